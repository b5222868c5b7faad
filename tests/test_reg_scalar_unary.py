"""Reg Adds/Muls/Maxs/Mins and Abs/Relu/Neg/Ln/Log/Sqrt (not in SPEC-2 11: DK `R/基础算术/*.md`, docs/decisions.md
"Reg API"): the devkit's boundary rows (RegBV-T2/T6/T7/T8/T9/T12/T21/T22/T23) in both overflow modes, the reference
model over random lanes and masks, compiled = plain = the 950 Memory-API instruction lane for lane, and the
refusals (dtype, mode, scalar, device) leaving the registers unchanged."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.reference import numerics as rnum
from ascend_jit.reference import reg as ref

R = aj.Reg
D950 = "ascend950"
SCALAR_OPS = ("Adds", "Muls", "Maxs", "Mins", "LeakyRelu")
UNARY_OPS = ("Abs", "Relu", "Neg", "Ln", "Log", "Sqrt")


def _vf_scalar(dst, src, dtype, op, scalar, n, mode):
    a, b = R.RegTensor(dtype), R.RegTensor(dtype)
    mask, n = R.UpdateMask(dtype, n)
    R.LoadAlign(a, src, 0)
    if op == 0:
        R.Adds(b, a, scalar, mask, mode)
    elif op == 1:
        R.Muls(b, a, scalar, mask, mode)
    elif op == 2:
        R.Maxs(b, a, scalar, mask, mode)
    elif op == 3:
        R.Mins(b, a, scalar, mask, mode)
    else:
        R.LeakyRelu(b, a, scalar, mask, mode)
    R.StoreAlign(dst, b, R.CreateMask(dtype), 0)


def _vf_unary(dst, src, dtype, op, n, mode):
    a, b = R.RegTensor(dtype), R.RegTensor(dtype)
    mask, n = R.UpdateMask(dtype, n)
    R.LoadAlign(a, src, 0)
    if op == 0:
        R.Abs(b, a, mask, mode)
    elif op == 1:
        R.Relu(b, a, mask, mode)
    elif op == 2:
        R.Neg(b, a, mask, mode)
    elif op == 3:
        R.Ln(b, a, mask, mode)
    elif op == 4:
        R.Log(b, a, mask, mode)
    else:
        R.Sqrt(b, a, mask, mode)
    R.StoreAlign(dst, b, R.CreateMask(dtype), 0)


ZEROING = R.MaskMergeMode.ZEROING
SCALAR_VF, UNARY_VF = R.simd_vf(_vf_scalar), R.simd_vf(_vf_unary)


def _core(sat=False):
    core = aj.Core(D950)
    core.SetCtrlSpr(48, 48, 0 if sat else 1)  # CTRL[48] = 0: half saturation (SPEC D6)
    core.SetCtrlSpr(53, 53, 1 if sat else 0)  # CTRL[53] = 1: int16/int32 saturation (D35)
    return core


def _np(dtype):
    return rnum.NP_TYPES[dtype]


def _lanes(dtype):
    return 256 // rnum.SIZES[dtype]


def _tensor(core, dtype, values):
    t = core.local_tensor(dtype, _lanes(dtype))
    t[:] = np.resize(np.asarray(values, _np(dtype)), _lanes(dtype))
    return t


def _run_plain(core, op, dtype, src, scalar=None, n=None):
    """One plain call on the register loaded from src; the register's lanes (host array)."""
    with core:
        a, b = R.RegTensor(dtype), R.RegTensor(dtype)
        R.LoadAlign(a, src, 0)
        mask, _ = R.UpdateMask(dtype, _lanes(dtype) if n is None else n)
        if scalar is None:
            getattr(R, op)(b, a, mask)
        else:
            getattr(R, op)(b, a, scalar, mask)
    return b.numpy()


def _bits(dtype, values):
    return np.asarray(values, _np(dtype)).view(np.dtype(f"u{rnum.SIZES[dtype]}"))


def _want_bits(dtype, values):
    return np.frombuffer(b"".join(rnum.encode(dtype, v) for v in values), np.dtype(f"u{rnum.SIZES[dtype]}"))


# --- the devkit's boundary rows (RegBV tables; half MIN/MAX = -/+65504, the sat column in saturation mode) -----------
H, F = 65504.0, float(np.finfo(np.float32).max)
INF, NAN = math.inf, math.nan
SCALAR_ROWS = [  # (op, dtype, x, scalar, INF/NAN mode, saturation mode)
    ("Adds", "half", -H, -H, -INF, -H), ("Adds", "half", -H, H, 0.0, 0.0), ("Adds", "half", H, INF, INF, H),
    ("Adds", "half", 0.0, NAN, NAN, 0.0), ("Adds", "half", INF, -INF, NAN, 0.0),
    ("Adds", "half", -0.0, -0.0, -0.0, -0.0),
    ("Adds", "float", F, F, INF, INF), ("Adds", "float", INF, -INF, NAN, NAN),
    ("Adds", "float", -0.0, -0.0, -0.0, -0.0),
    ("Adds", "int16", -32768, -32768, 0, -32768), ("Adds", "int16", 32767, 32767, -2, 32767),
    ("Adds", "int16", -32768, 32767, -1, -1), ("Adds", "int32", -2**31, -2**31, 0, -2**31),
    ("Adds", "int32", 2**31 - 1, 2**31 - 1, -2, 2**31 - 1),
    ("Muls", "half", -H, -H, INF, H), ("Muls", "half", -H, 0.0, -0.0, -0.0), ("Muls", "half", 0.0, INF, NAN, 0.0),
    ("Muls", "half", -INF, -INF, INF, H), ("Muls", "float", -F, F, -INF, -INF),
    ("Muls", "float", -0.0, 0.0, -0.0, -0.0),
    ("Muls", "int16", -32768, -32768, 0, 32767), ("Muls", "int16", 32767, 32767, 1, 32767),
    ("Muls", "int32", -2**31, 2**31 - 1, -2**31, -2**31), ("Muls", "int32", 2**31 - 1, 2**31 - 1, 1, 2**31 - 1),
    ("Maxs", "half", -H, NAN, NAN, 0.0), ("Maxs", "half", -H, INF, INF, H), ("Maxs", "half", -0.0, -INF, -0.0, -0.0),
    ("Maxs", "half", -0.0, 0.0, 0.0, 0.0), ("Maxs", "float", -0.0, -0.0, -0.0, -0.0),
    ("Maxs", "float", NAN, INF, NAN, NAN),
    ("Maxs", "int16", -32768, 32767, 32767, 32767), ("Maxs", "int32", -2**31, -2**31, -2**31, -2**31),
    ("Mins", "half", -H, -INF, -INF, -H), ("Mins", "half", H, NAN, NAN, 0.0), ("Mins", "half", -0.0, 0.0, -0.0, -0.0),
    ("Mins", "float", 0.0, -INF, -INF, -INF), ("Mins", "int16", -32768, 32767, -32768, -32768),
    ("Mins", "int32", 2**31 - 1, 2**31 - 1, 2**31 - 1, 2**31 - 1),
    # LeakyRelu: D42 as the Memory API (the sign bit picks the product path); RegBV-T24 prints "0.0" for the products
    # -65504 x 0 and -0 x 65504, which IEEE and D42 give as -0: a decision vector (docs/decisions.md "Reg API")
    ("LeakyRelu", "half", -H, -H, INF, H), ("LeakyRelu", "half", -H, 0.0, -0.0, -0.0),
    ("LeakyRelu", "half", H, NAN, H, H),
    ("LeakyRelu", "half", -0.0, NAN, NAN, 0.0), ("LeakyRelu", "half", INF, -INF, INF, H),
    ("LeakyRelu", "half", -INF, 0.0, NAN, 0.0), ("LeakyRelu", "half", NAN, 1.0, NAN, 0.0),
    ("LeakyRelu", "float", -F, -F, INF, INF), ("LeakyRelu", "float", -0.0, -0.0, 0.0, 0.0),
    ("LeakyRelu", "float", -INF, INF, -INF, -INF),
]
UNARY_ROWS = [  # (op, dtype, x, INF/NAN mode, saturation mode)
    ("Neg", "half", -H, H, H), ("Neg", "half", 0.0, -0.0, -0.0), ("Neg", "half", -0.0, 0.0, 0.0),
    ("Neg", "half", NAN, NAN, 0.0), ("Neg", "half", INF, -INF, -H), ("Neg", "half", -INF, INF, H),
    ("Neg", "float", -F, F, F), ("Neg", "float", 0.0, -0.0, -0.0), ("Neg", "float", NAN, NAN, NAN),
    ("Neg", "float", INF, -INF, -INF),
    ("Abs", "half", -H, H, H), ("Abs", "half", -0.0, 0.0, 0.0), ("Abs", "half", NAN, NAN, 0.0),
    ("Abs", "half", -INF, INF, H), ("Abs", "float", -F, F, F), ("Abs", "float", -0.0, 0.0, 0.0),
    ("Abs", "float", NAN, NAN, NAN), ("Abs", "float", -INF, INF, INF),
    ("Relu", "half", -H, 0.0, 0.0), ("Relu", "half", H, H, H), ("Relu", "half", -0.0, 0.0, 0.0),
    ("Relu", "half", NAN, NAN, 0.0), ("Relu", "half", INF, INF, H), ("Relu", "half", -INF, 0.0, 0.0),
    ("Relu", "float", -F, 0.0, 0.0), ("Relu", "float", -0.0, 0.0, 0.0), ("Relu", "float", NAN, NAN, NAN),
    ("Relu", "int32", -2**31, 0, 0), ("Relu", "int32", 2**31 - 1, 2**31 - 1, 2**31 - 1),
    ("Sqrt", "half", -H, NAN, 0.0), ("Sqrt", "half", 0.0, 0.0, 0.0),
    ("Sqrt", "half", -0.0, -0.0, -0.0), ("Sqrt", "half", NAN, NAN, 0.0), ("Sqrt", "half", INF, INF, H),
    ("Sqrt", "half", -INF, NAN, 0.0), ("Sqrt", "float", -F, NAN, NAN), ("Sqrt", "float", -0.0, -0.0, -0.0),
    ("Sqrt", "float", INF, INF, INF),
    ("Ln", "half", -H, NAN, 0.0), ("Ln", "half", 0.0, -INF, -H), ("Ln", "half", -0.0, -INF, -H),
    ("Ln", "half", INF, INF, H), ("Ln", "half", -INF, NAN, 0.0), ("Ln", "float", 0.0, -INF, -INF),
    ("Ln", "float", -INF, NAN, NAN), ("Log", "half", NAN, NAN, 0.0), ("Log", "float", INF, INF, INF),
]


@pytest.mark.parametrize("sat", [False, True])
def test_boundary_rows_of_the_devkit_tables(sat):
    """RegBV-T12/T21/T22/T23/T24 (Adds/Muls/Maxs/Mins/LeakyRelu) and T2/T6/T7/T8/T9 (Ln/Neg/Abs/Sqrt/Relu), bit for
    bit (NaN as the canonical pattern). The rows' finite Ln/Sqrt results of MAX (printed 11.094, 88.723, 256.0,
    1.84467E+19) are MODELLED: the emulator gives RN(f(MAX)), within one ulp of the printed value
    (sqrt(65504) = 255.9375 - 2**-13 rounds to 255.875 in half, one ulp under the table's 256.0)."""
    core = _core(sat)
    for op, dtype, x, s, plain, saturated in SCALAR_ROWS:
        got = _run_plain(core, op, dtype, _tensor(core, dtype, [x]), s)[0]
        assert _bits(dtype, [got])[0] == _want_bits(dtype, [saturated if sat else plain])[0], (op, dtype, x, s, sat)
    for op, dtype, x, plain, saturated in UNARY_ROWS:
        got = _run_plain(core, op, dtype, _tensor(core, dtype, [x]))[0]
        assert _bits(dtype, [got])[0] == _want_bits(dtype, [saturated if sat else plain])[0], (op, dtype, x, sat)
    for op, dtype, x, printed in (("Ln", "half", H, 11.094), ("Ln", "float", F, 88.723), ("Sqrt", "half", H, 256.0),
                                  ("Sqrt", "float", F, 1.84467e19)):
        got = _run_plain(core, op, dtype, _tensor(core, dtype, [x]))[0]
        assert got == _np(dtype)((np.log if op == "Ln" else np.sqrt)(np.float64(x)))
        assert abs(float(got) - printed) <= float(np.spacing(_np(dtype)(printed))) + 5e-4 * printed  # the print


def _random(dtype, rng, n):
    if rnum.is_float(dtype):
        v = (rng.standard_normal(n) * 8).astype(np.float32)
        specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, -65504.0, 1e-6, -1e-40, 1e-42]
        picks = rng.integers(0, n, n // 4)
        v[picks] = rng.choice(np.array(specials, np.float32), picks.size)
        return v.astype(_np(dtype))
    info = np.iinfo(np.dtype(dtype))
    v = rng.integers(info.min, info.max, n, endpoint=True, dtype=np.dtype(dtype))
    v[:4] = [info.min, info.max, 0, info.max // 2]
    return v


def _scalar(dtype, rng):
    """A scalar argument: one of _random's lanes (the type's edges and the specials among them), as a Python number."""
    v = _random(dtype, rng, 8)[rng.integers(0, 8)]
    return float(v) if rnum.is_float(dtype) else int(v)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(SCALAR_OPS + UNARY_OPS), st.sampled_from(sorted(rnum.NP_TYPES)), st.integers(0, 2**32 - 1),
       st.integers(0, 300), st.booleans())
def test_plain_calls_match_the_reference(op, dtype, seed, active, sat):
    allowed = R.SCALAR_DTYPES.get(op) or R.UNARY_DTYPES[op]
    if dtype not in allowed:
        return
    rng = np.random.default_rng(seed)
    core = _core(sat)
    xs = _random(dtype, rng, _lanes(dtype))
    src = _tensor(core, dtype, xs)
    on = [j < active for j in range(_lanes(dtype))]
    values = [float(v) if rnum.is_float(dtype) else int(v) for v in xs]
    sat_half, sat_int = sat, sat
    if op in SCALAR_OPS:
        scalar = _scalar(dtype, rng)
        got = _run_plain(core, op, dtype, src, scalar, active)
        want = ref.tensor_scalar(op.lower(), dtype, values, scalar, on, sat_half, sat_int)
    else:
        got = _run_plain(core, op, dtype, src, None, active)
        want = ref.unary(op.lower(), dtype, values, on, sat_half, sat_int)
    assert np.array_equal(_bits(dtype, got), _want_bits(dtype, want)), (op, dtype)


MEMORY_CASES = [("Adds", "half"), ("Adds", "bfloat16"), ("Adds", "int8"), ("Adds", "uint64"), ("Muls", "float"),
                ("Muls", "int16"), ("Muls", "int64"), ("Maxs", "half"), ("Maxs", "uint8"), ("Mins", "float"),
                ("Mins", "int64"), ("LeakyRelu", "half"), ("LeakyRelu", "float"), ("Abs", "half"), ("Abs", "int8"),
                ("Abs", "int64"), ("Relu", "float"),
                ("Relu", "int32"), ("Ln", "half"), ("Ln", "float"), ("Sqrt", "half"), ("Sqrt", "float")]


@pytest.mark.parametrize("sat", [False, True])
@pytest.mark.parametrize("op,dtype", MEMORY_CASES)
def test_compiled_and_plain_are_the_memory_api_instruction(op, dtype, sat):
    """The active lanes are the 950 Memory-API instruction's (its default algorithm), compiled and plain alike; the
    inactive ones 0 (ZEROING)."""
    rng = np.random.default_rng(sum(map(ord, op + dtype)))
    core = _core(sat)
    n = _lanes(dtype)
    src = _tensor(core, dtype, _random(dtype, rng, n))
    mem, dst = core.local_tensor(dtype, n), core.local_tensor(dtype, n)
    active = n - 7
    scalar = None
    if op in SCALAR_OPS:  # (one VF specialisation for every integer scalar: int64's range)
        scalar = _scalar(dtype, rng) % 2**63 if dtype == "uint64" else _scalar(dtype, rng)
    with core:
        if scalar is None:
            getattr(aj, op)(mem, src, n)
        else:
            getattr(aj, op)(mem, src, scalar, n)
    want = mem.numpy().view(np.uint8).reshape(n, -1).copy()
    want[active:] = 0
    with core:
        if scalar is None:
            UNARY_VF(dst, src, dtype, UNARY_OPS.index(op), active, ZEROING)
        else:
            SCALAR_VF(dst, src, dtype, SCALAR_OPS.index(op), scalar, active, ZEROING)
    assert np.array_equal(dst.numpy().view(np.uint8).reshape(n, -1), want)
    plain = _run_plain(core, op, dtype, src, scalar, active)
    assert np.array_equal(plain.view(np.uint8).reshape(n, -1), want)


def test_neg_and_log_compiled_equal_plain():
    """Neg and Log have no Memory-API twin: compiled against plain Python (the same kernel) and the reference."""
    rng = np.random.default_rng(7)
    core = _core()
    for op, dtype in (("Neg", "int16"), ("Neg", "half"), ("Neg", "int64"), ("Log", "float")):
        n = _lanes(dtype)
        src, dst = _tensor(core, dtype, _random(dtype, rng, n)), core.local_tensor(dtype, n)
        with core:
            UNARY_VF(dst, src, dtype, UNARY_OPS.index(op), n - 3, ZEROING)
        plain = _run_plain(core, op, dtype, src, None, n - 3)
        assert np.array_equal(dst.numpy().view(np.uint8), plain.view(np.uint8))
        want = ref.unary(op.lower(), dtype, [float(v) if rnum.is_float(dtype) else int(v) for v in src.numpy()],
                         [j < n - 3 for j in range(n)])
        assert np.array_equal(_bits(dtype, plain), _want_bits(dtype, want))


def test_integer_neg_and_abs_wrap_or_clamp():
    """D35: -MIN and |MIN| are MIN (wrap) unless int16/int32 saturate (then MAX); int8/int64 always wrap."""
    for sat in (False, True):
        core = _core(sat)
        for dtype in ("int8", "int16", "int32", "int64"):
            lo, hi = rnum.INT_RANGE[dtype]
            src = _tensor(core, dtype, [lo])
            clamp = sat and dtype in ("int16", "int32")
            for op in ("Neg", "Abs"):
                assert int(_run_plain(core, op, dtype, src)[0]) == (hi if clamp else lo), (op, dtype, sat)


def _refused(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_refusals_name_the_instruction_and_leave_the_register_unchanged():
    core = _core()
    with core:
        h, f, i8, b16 = R.RegTensor("half"), R.RegTensor("float"), R.RegTensor("int8"), R.RegTensor("bfloat16")
        out = R.RegTensor("half")
        R.Duplicate(out, 3.0)
        before = out.data.copy()
        m = R.CreateMask("half")
        _refused(lambda: R.Muls(b16, b16, 1.0, m), aj.UnsupportedDTypeError, "Muls.*bfloat16")
        _refused(lambda: R.Muls(i8, i8, 1, m), aj.UnsupportedDTypeError, "Muls")
        _refused(lambda: R.Adds(out, f, 1.0, m), aj.UnsupportedDTypeError, "Adds")
        _refused(lambda: R.Maxs(out, h, 1.0, m, R.MaskMergeMode.MERGING), aj.ParameterError, "Maxs.*MERGING")
        _refused(lambda: R.Adds(out, h, True, m), aj.ParameterError, "Adds.*bool")
        _refused(lambda: R.Mins(i8, i8, 1000, m), aj.ParameterError, "Mins")
        _refused(lambda: R.Abs(R.RegTensor("uint8"), R.RegTensor("uint8"), m), aj.UnsupportedDTypeError, "Abs")
        _refused(lambda: R.Relu(i8, i8, m), aj.UnsupportedDTypeError, "Relu")
        _refused(lambda: R.Ln(out, f, m), aj.UnsupportedDTypeError, "Ln")
        _refused(lambda: R.Sqrt(out, h, m, R.MaskMergeMode.MERGING), aj.ParameterError, "Sqrt.*MERGING")
        _refused(lambda: R.Neg(out, h, m, 7), aj.ParameterError, "Neg")
        assert np.array_equal(out.data, before)
    with aj.Core("atlas-a2"):
        _refused(lambda: R.Adds(h, h, 1.0, m), aj.UnsupportedDeviceError, "Adds")
        _refused(lambda: R.Abs(h, h, m), aj.UnsupportedDeviceError, "Abs")


def test_compiled_refusals_as_plain_python():
    """The test VFs refuse what plain Python refuses, naming the instruction: a dtype the page does not list, MERGING
    (ZEROING only); the UB is left as it was."""
    core = _core()
    src, dst = _tensor(core, "uint8", [1]), _tensor(core, "uint8", [9])
    h, hd = _tensor(core, "half", [1.0]), _tensor(core, "half", [9.0])
    merging = R.MaskMergeMode.MERGING
    before = core.ub.copy()
    with core:
        _refused(lambda: SCALAR_VF(dst, src, "uint8", 1, 1, 32, ZEROING), aj.UnsupportedDTypeError, "Muls")
        _refused(lambda: UNARY_VF(dst, src, "uint8", 0, 32, ZEROING), aj.UnsupportedDTypeError, "Abs")
        _refused(lambda: SCALAR_VF(hd, h, "half", 0, 1, 32, merging), aj.ParameterError, "Adds.*mode")
        _refused(lambda: SCALAR_VF(hd, h, "half", 4, 1, 32, merging), aj.ParameterError, "LeakyRelu.*mode")
        _refused(lambda: UNARY_VF(hd, h, "half", 5, 32, merging), aj.ParameterError, "Sqrt.*mode")
    assert np.array_equal(core.ub, before)


@pytest.mark.parametrize("size", [256 * 32, 8000])
def test_gelu_port_is_the_reference_composition_bit_for_bit(size):
    """kernels/gelu_reg.py (the devkit's Reg GELU) against its instruction sequence composed from the reference
    model: float32 IEEE Mul/Muls/Add/Adds (Add/Mul's lanes, RegPrec 0 ulp), the reference Exp and Div of the 950's
    INTRINSIC algorithm (D37: the exact result rounded once, D38 flush); compiled and plain Python alike."""
    from ascend_jit.kernels import registry
    from ascend_jit.reference import elementwise as ref_ew
    k = registry()["gelu_reg"]
    gelu = __import__(k.run.__module__)
    inputs = k.make_inputs(size, 3)
    x = inputs["x"]
    env = ref_ew.Env("ascend950")
    t = x * x * x * gelu.COEFF_CUBIC + x * gelu.COEFF_LINEAR
    e = ref_ew.exp("float", env, t).astype(np.float32) + np.float32(1.0)
    want = ref_ew.div("float", env, x, e).astype(np.float32)
    for vf in (gelu.GELU_VF, gelu.GELU_VF.py_func):
        assert np.array_equal(k.run(D950, inputs, vf=vf)["y"].view(np.uint32), want.view(np.uint32))


def _vf_prelu(dst, a, b, dtype, n):
    ra, rb, rd = R.RegTensor(dtype), R.RegTensor(dtype), R.RegTensor(dtype)
    mask, n = R.UpdateMask(dtype, n)
    R.LoadAlign(ra, a, 0)
    R.LoadAlign(rb, b, 0)
    R.Prelu(rd, ra, rb, mask)
    R.StoreAlign(dst, rd, R.CreateMask(dtype), 0)


PRELU_VF = R.simd_vf(_vf_prelu)


@pytest.mark.parametrize("sat", [False, True])
def test_prelu_rows_and_reference(sat):
    """RegBV-T10 (Prelu) rows, and random lanes against the reference, compiled and plain (its float "-0 x inf/nan
    -> 0.0" saturation cell is a documentation error: float never saturates, the INF/NAN cell's NaN is kept)."""
    core = _core(sat)
    rows = [("half", H, -INF, H, H), ("half", -H, H, -INF, -H), ("half", -H, -H, INF, H), ("half", -H, 0.0, -0.0, -0.0),
            ("half", -H, -0.0, 0.0, 0.0), ("half", -H, NAN, NAN, 0.0), ("half", 0.0, NAN, 0.0, 0.0),
            ("half", -0.0, H, -0.0, -0.0), ("half", -0.0, -H, 0.0, 0.0), ("half", -0.0, INF, NAN, 0.0),
            ("half", INF, NAN, INF, H), ("half", -INF, 0.0, NAN, 0.0), ("float", -F, F, -INF, -INF),
            ("float", -0.0, -F, 0.0, 0.0), ("float", -INF, -INF, INF, INF), ("float", NAN, 1.0, NAN, NAN)]
    for dtype, x, y, plain, saturated in rows:
        n = _lanes(dtype)
        a, b, out = _tensor(core, dtype, [x]), _tensor(core, dtype, [y]), core.local_tensor(dtype, n)
        with core:
            PRELU_VF(out, a, b, dtype, n)
        got = out.numpy()[:1]
        assert _bits(dtype, got)[0] == _want_bits(dtype, [saturated if sat else plain])[0], (dtype, x, y, sat)
    rng = np.random.default_rng(11)
    for dtype in ("half", "float"):
        n = _lanes(dtype)
        a, b = _tensor(core, dtype, _random(dtype, rng, n)), _tensor(core, dtype, _random(dtype, rng, n))
        out = core.local_tensor(dtype, n)
        with core:
            PRELU_VF(out, a, b, dtype, n - 9)
            ra, rb, rd = R.RegTensor(dtype), R.RegTensor(dtype), R.RegTensor(dtype)
            R.LoadAlign(ra, a, 0)
            R.LoadAlign(rb, b, 0)
            R.Prelu(rd, ra, rb, R.UpdateMask(dtype, n - 9)[0])
        want = ref.prelu(dtype, [float(v) for v in a.numpy()], [float(v) for v in b.numpy()],
                         [j < n - 9 for j in range(n)], sat)
        assert np.array_equal(_bits(dtype, out.numpy()), _want_bits(dtype, want))
        assert np.array_equal(_bits(dtype, rd.numpy()), _want_bits(dtype, want))
    with core, pytest.raises(aj.ParameterError, match="Prelu.*MERGING"):
        h = R.RegTensor("half")
        R.Prelu(h, h, h, R.CreateMask("half"), R.MaskMergeMode.MERGING)


@R.simd_vf
def _literal_half_vf(dst, src):
    """Registers of a literal dtype (typed with their kind: each call compiles its half class alone, issue 20)."""
    a, b = R.RegTensor("half"), R.RegTensor("half")
    m = R.CreateMask("half")
    sel, _ = R.UpdateMask("half", 50)
    R.LoadAlign(a, src, 0)
    R.Adds(b, a, 1.5, m)
    R.Maxs(b, b, -2.0, m)
    R.LeakyRelu(b, b, 0.25, m)
    R.Abs(a, a, m)
    R.Ln(a, a, m)
    R.Select(b, a, b, sel)
    R.StoreAlign(dst, b, m, 0)


def test_literal_dtype_registers_give_the_plain_calls_bits():
    rng = np.random.default_rng(21)
    core = _core(True)
    src, dst = _tensor(core, "half", _random("half", rng, 128)), core.local_tensor("half", 128)
    with core:
        _literal_half_vf(dst, src)
    with core:
        a, b, m = R.RegTensor("half"), R.RegTensor("half"), R.CreateMask("half")
        sel, _ = R.UpdateMask("half", 50)
        R.LoadAlign(a, src, 0)
        R.Adds(b, a, 1.5, m)
        R.Maxs(b, b, -2.0, m)
        R.LeakyRelu(b, b, 0.25, m)
        R.Abs(a, a, m)
        R.Ln(a, a, m)
        R.Select(b, a, b, sel)
    assert dst.numpy().tobytes() == b.numpy().tobytes()
