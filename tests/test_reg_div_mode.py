"""Reg Div with a DivSpecificMode{mrgMode, precisionMode, algo} (DK R/基础算术/Div.md; docs/decisions.md "Reg Div
modes"): compiled and plain VFs against the reference model byte for byte over the whole UB (every half pattern as
dividend and as divisor), the page's Subnormal table (表 8), the (type, precisionMode, algo) combinations the page and
DivImpl refuse (state unchanged, compiled too), and aj.fidelity of the modes."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.reference import reg as ref

R = aj.Reg
A = aj.DivAlgo
D950 = "ascend950"
Z, M = R.MaskMergeMode.ZEROING, R.MaskMergeMode.MERGING
CANONICAL = {"half": 0x7E00, "float": 0x7FC00000}  # D35: every NaN written is the canonical NaN


def _div_vf(dst, x, y, count, vl, mode, dtype):
    ra, rb, rd = R.RegTensor(dtype), R.RegTensor(dtype), R.RegTensor(dtype)
    for i in range((count + vl - 1) // vl):
        mask, count = R.UpdateMask(dtype, count)
        R.LoadAlign(ra, x, i * vl)
        R.LoadAlign(rb, y, i * vl)
        R.Div(rd, ra, rb, mask, mode)
        R.StoreAlign(dst, rd, mask, i * vl)


DIV_VF = R.simd_vf(_div_vf)


def _core(sat):
    core = aj.Core(D950)
    core.SetCtrlSpr(48, 48, 0 if sat else 1)  # CTRL[48] = 0: half saturation (SPEC D6)
    return core


def _bits(dtype, values):
    """Reference lanes as the stored bit patterns (RNE already applied by the reference; NaN canonical)."""
    v = np.asarray(values, np.float64)
    np_type, uint = (np.float16, np.uint16) if dtype == "half" else (np.float32, np.uint32)
    with np.errstate(all="ignore"):
        bits = v.astype(np_type).view(uint).copy()
    bits[np.isnan(v)] = CANONICAL[dtype]
    return bits


def _run_whole_ub(dtype, xs_bits, ys_bits, mode, sat, compiled, precision, algo):
    """Chunks of 32 KB: x at UB byte 0, y at 32768, dst at 65536; the rest of the UB random. Returns nothing: asserts
    that the VF changed exactly dst's bytes, to the reference's bits."""
    size = 2 if dtype == "half" else 4
    uint = np.uint16 if size == 2 else np.uint32
    n = 32768 // size
    vl = 256 // size
    for start in range(0, xs_bits.size, n):
        core = _core(sat)
        core.ub[:] = np.random.default_rng(start).integers(0, 256, core.ub.size, dtype=np.uint8)
        x, y, dst = (core.local_tensor(dtype, n, addr=a) for a in (0, 32768, 65536))
        xb, yb = xs_bits[start:start + n].astype(uint), ys_bits[start:start + n].astype(uint)
        core.ub[0:32768] = xb.view(np.uint8)
        core.ub[32768:65536] = yb.view(np.uint8)
        want = core.ub.copy()
        fx, fy = xb.view(np.float16 if size == 2 else np.float32), yb.view(np.float16 if size == 2 else np.float32)
        with np.errstate(invalid="ignore"):  # NaN patterns widen quietly
            lanes = ref.div(dtype, fx.astype(np.float64), fy.astype(np.float64), [True] * n, precision=precision,
                            algo=algo, sat_half=sat)
        want[65536:98304] = _bits(dtype, lanes).view(np.uint8)
        with core:
            (DIV_VF if compiled else DIV_VF.py_func)(dst, x, y, n, vl, mode, dtype)
        assert np.array_equal(core.ub, want), (dtype, mode, sat, start)


HALF_MODES = [(False, "INTRINSIC"), (False, "PRECISION_1ULP_FTZ_TRUE"), (False, "PRECISION_1ULP_FTZ_FALSE")]


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("sat", [False, True])
@pytest.mark.parametrize("precision,algo", HALF_MODES)
def test_half_every_pattern_as_dividend_and_divisor(precision, algo, sat, compiled):
    """Every half pattern divided by a permutation of every pattern, and specials / subnormals divided by every
    pattern: the whole UB after the VF is the reference's (DAZ/FTZ only where the mode's code flushes)."""
    rng = np.random.default_rng(sum(map(ord, algo)) + sat)
    every = np.arange(65536, dtype=np.uint32)
    specials = np.array([0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x0001, 0x83FF, 0x0400, 0x3C00, 0xBC00, 0x7BFF,
                         0x0200, 0x8001, 0x3555, 0x1400, 0x6400], np.uint32)
    xs = np.concatenate([every, np.resize(specials, 65536)])
    ys = np.concatenate([rng.permutation(every), every])
    if not compiled:  # plain Python runs the same kernels: one pass of each pair set is enough there
        xs, ys = xs[::8], ys[::8]
    mode = R.DivSpecificMode(Z, precision, getattr(A, algo))
    _run_whole_ub("half", xs, ys, mode, sat, compiled, precision, algo)


def _float_operands(rng, n):
    """Random normals over the whole exponent range, subnormals, the specials and the boundaries."""
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    sub = rng.integers(1, 0x800000, n // 4, dtype=np.uint64).astype(np.uint32) | \
        (rng.integers(0, 2, n // 4, dtype=np.uint64).astype(np.uint32) << np.uint32(31))
    bits[rng.integers(0, n, n // 4)] = sub
    specials = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x00000001, 0x007FFFFF, 0x00800000,
                         0x3F800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x0014440B, 0x0053E3CF, 0x8036A794, 0x00400000,
                         0x33800000], np.uint32)
    bits[:specials.size] = specials
    return bits


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("precision,algo", [(False, "INTRINSIC"), (False, "DIFF_COMPENSATION"),
                                            (False, "PRECISION_0ULP_FTZ_TRUE"), (False, "PRECISION_0ULP_FTZ_FALSE"),
                                            (False, "PRECISION_1ULP_FTZ_FALSE"), (True, "INTRINSIC"),
                                            (True, "PRECISION_1ULP_FTZ_FALSE"), (True, "PRECISION_0ULP_FTZ_FALSE")])
def test_float_modes_over_the_whole_ub(precision, algo, compiled):
    rng = np.random.default_rng(sum(map(ord, algo)) + precision)
    n = 8192 * (4 if compiled else 1)
    xs, ys = _float_operands(rng, n), _float_operands(rng, n)
    ys[16:32] = xs[:16]  # the specials divided by each other too
    xs[16:32] = rng.permutation(xs[:16])
    _run_whole_ub("float", xs, ys, R.DivSpecificMode(Z, precision, getattr(A, algo)), False, compiled, precision,
                  algo)


def test_the_pages_subnormal_table():
    """DK R/基础算术/Div.md 表 8: 1 / 0x8036A794 = 0xFF15E301 and 0x0014440B / 0x0053E3CF = 0x3E775FBC with a
    subnormal-keeping algo; -inf and NaN otherwise (the page prints that NaN as 0x7FFFFFFF: the emulator writes the
    canonical 0x7FC00000, D35)."""
    core = aj.Core(D950)
    x, y, dst = (core.local_tensor("float", 64) for _ in range(3))
    x[:] = np.resize(np.array([0x3F800000, 0x0014440B], np.uint32), 64).view(np.float32)
    y[:] = np.resize(np.array([0x8036A794, 0x0053E3CF], np.uint32), 64).view(np.float32)
    cases = {(False, A.PRECISION_0ULP_FTZ_FALSE): (0xFF15E301, 0x3E775FBC),
             (True, A.PRECISION_0ULP_FTZ_FALSE): (0xFF15E301, 0x3E775FBC),
             (False, A.PRECISION_1ULP_FTZ_FALSE): (0xFF15E301, 0x3E775FBC),
             (False, A.INTRINSIC): (0xFF800000, 0x7FC00000), (True, A.INTRINSIC): (0xFF800000, 0x7FC00000),
             (True, A.PRECISION_1ULP_FTZ_FALSE): (0xFF800000, 0x7FC00000),  # DivImpl: precisionMode wins
             (False, A.PRECISION_0ULP_FTZ_TRUE): (0xFF800000, 0x7FC00000)}
    for (precision, algo), want in cases.items():
        for vf in (DIV_VF, DIV_VF.py_func):
            with core:
                vf(dst, x, y, 64, 64, R.DivSpecificMode(Z, precision, algo), "float")
            assert tuple(int(b) for b in dst.numpy().view(np.uint32)[:2]) == want, (precision, algo)


def _merge_vf(dst, x, y, prev, count, mode, dtype):
    ra, rb, rd = R.RegTensor(dtype), R.RegTensor(dtype), R.RegTensor(dtype)
    mask, count = R.UpdateMask(dtype, count)
    R.LoadAlign(ra, x, 0)
    R.LoadAlign(rb, y, 0)
    R.LoadAlign(rd, prev, 0)
    R.Div(rd, ra, rb, mask, mode)
    R.StoreAlign(dst, rd, R.CreateMask(dtype), 0)


MERGE_VF = R.simd_vf(_merge_vf)


@pytest.mark.parametrize("dtype,algo", [("float", A.PRECISION_0ULP_FTZ_FALSE), ("half", A.PRECISION_1ULP_FTZ_FALSE),
                                        ("int32", A.PRECISION_1ULP_FTZ_TRUE), ("uint16", A.INTRINSIC)])
def test_mrg_mode_and_integer_types(dtype, algo):
    """mrgMode ZEROING zeroes the inactive lanes; MERGING is refused as the MaskMergeMode form refuses it (DK RegMerge
    table 2: Div is ZEROING only; DivImpl static_asserts it; session 57), nothing written; integers take INTRINSIC
    and PRECISION_1ULP_FTZ_TRUE (D48 lanes)."""
    rng = np.random.default_rng(int(algo))
    core = aj.Core(D950)
    lanes = 256 // np.dtype({"half": np.float16, "float": np.float32}.get(dtype, dtype)).itemsize
    x, y, prev, dst = (core.local_tensor(dtype, lanes) for _ in range(4))
    if dtype in ("half", "float"):
        x[:] = (rng.standard_normal(lanes) * 1e-3).astype(x.numpy().dtype)
        y[:] = (rng.standard_normal(lanes) * 1e3).astype(x.numpy().dtype)
    else:
        info = np.iinfo(np.dtype(dtype))
        x[:] = rng.integers(info.min, info.max, lanes, endpoint=True, dtype=np.dtype(dtype))
        y[:] = rng.integers(info.min, info.max, lanes, endpoint=True, dtype=np.dtype(dtype))
        y[:3] = [0, 0, 1]
    prev[:] = x.numpy()[::-1].copy()
    active = lanes - 9
    conv = float if dtype in ("half", "float") else int
    want = ref.div(dtype, [conv(v) for v in x.numpy()], [conv(v) for v in y.numpy()],
                   [j < active for j in range(lanes)], False, algo.name)
    want = np.asarray(want, np.float64 if conv is float else object).astype(x.numpy().dtype)
    for vf in (MERGE_VF, MERGE_VF.py_func):
        with core:
            vf(dst, x, y, prev, active, R.DivSpecificMode(Z, False, algo), dtype)
        assert dst.numpy().tobytes() == want.tobytes(), dtype
        before = core.ub.copy()
        with core, pytest.raises(aj.ParameterError, match="Div: parameter 'mode.mrgMode' = 'MERGING'.*table 2"):
            vf(dst, x, y, prev, active, R.DivSpecificMode(M, False, algo), dtype)
        assert np.array_equal(core.ub, before)


REFUSED = [  # (dtype, mode, error class, parameter named)
    ("half", R.DivSpecificMode(Z, True, A.INTRINSIC), aj.ParameterError, "mode.precisionMode"),
    ("half", R.DivSpecificMode(Z, False, A.DIFF_COMPENSATION), aj.ParameterError, "mode.algo"),
    ("half", R.DivSpecificMode(Z, False, A.PRECISION_0ULP_FTZ_TRUE), aj.ParameterError, "mode.algo"),
    ("half", R.DivSpecificMode(Z, False, A.PRECISION_0ULP_FTZ_FALSE), aj.ParameterError, "mode.algo"),
    ("int32", R.DivSpecificMode(Z, False, A.PRECISION_1ULP_FTZ_FALSE), aj.ParameterError, "mode.algo"),
    ("int16", R.DivSpecificMode(Z, True, A.INTRINSIC), aj.ParameterError, "mode.precisionMode"),
    ("float", R.DivSpecificMode(R.MaskMergeMode.UNKNOWN, False, A.INTRINSIC), aj.ParameterError, "mode.mrgMode"),
    ("float", R.DivSpecificMode(Z, 1, A.INTRINSIC), aj.ParameterError, "mode.precisionMode"),
    ("float", R.DivSpecificMode(Z, False, aj.ExpAlgo.INTRINSIC), aj.ParameterError, "mode.algo"),
    ("float", R.DivSpecificMode(A.INTRINSIC, False, A.INTRINSIC), aj.ParameterError, "mode.mrgMode"),
    ("float", R.DivSpecificMode(Z, False, 6), aj.ParameterError, "mode.algo"),
    ("int8", R.DivSpecificMode(Z, False, A.PRECISION_1ULP_FTZ_FALSE), aj.UnsupportedDTypeError, "Div"),
    # the dtype first, compiled too, when a field is also out of range (plain Python checks the dtype first)
    ("int8", R.DivSpecificMode(Z, False, 6), aj.UnsupportedDTypeError, "Div"),
    ("int8", R.DivSpecificMode(R.MaskMergeMode.UNKNOWN, False, A.INTRINSIC), aj.UnsupportedDTypeError, "Div"),
]


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("dtype,mode,error,name", REFUSED)
def test_refusals_name_the_field_and_change_nothing(dtype, mode, error, name, compiled):
    core = aj.Core(D950)
    size = {"half": 2, "float": 4, "int32": 4, "int16": 2, "int8": 1}[dtype]
    x, y, dst = (core.local_tensor(dtype, 256 // size) for _ in range(3))
    core.ub[:] = np.random.default_rng(size).integers(0, 256, core.ub.size, dtype=np.uint8)
    before = core.ub.copy()
    with core, pytest.raises(error, match=name) as info:
        (DIV_VF if compiled else DIV_VF.py_func)(dst, x, y, 256 // size, 256 // size, mode, dtype)
    assert "ascend950" in str(info.value)
    assert np.array_equal(core.ub, before)


def test_refusals_of_the_mode_shape():
    """A tuple that is no DivSpecificMode: plain, and a VF (no compiled call: the VF runs plain and refuses alike)."""
    core = aj.Core(D950)
    x, y, dst = (core.local_tensor("float", 64) for _ in range(3))
    with core:
        f, out = R.RegTensor("float"), R.RegTensor("float")
        R.Duplicate(out, 3.0)
        before, ub = out.data.copy(), core.ub.copy()
        for mode in ((Z, False), (Z, False, A.INTRINSIC, 0), R.CastTrait()):
            with pytest.raises(aj.ParameterError, match="'mode'"):
                R.Div(out, f, f, R.CreateMask("float"), mode)
            with pytest.raises(aj.ParameterError, match="'mode'"):
                DIV_VF(dst, x, y, 64, 64, mode, "float")
        assert np.array_equal(out.data, before)
        assert np.array_equal(core.ub, ub)


def test_fidelity_follows_the_code_the_mode_runs():
    def level(dtype, mode):
        return aj.fidelity("Reg.Div", D950, dtype, mode)
    assert level("float", None) == aj.Fidelity.MODELLED
    assert level("float", R.DivSpecificMode()) == aj.Fidelity.MODELLED
    assert level("float", R.DivSpecificMode(Z, False, A.DIFF_COMPENSATION)) == aj.Fidelity.MODELLED  # vdiv alone
    assert level("float", R.DivSpecificMode(Z, True, A.DIFF_COMPENSATION)) == aj.Fidelity.BIT_EXACT
    assert level("float", R.DivSpecificMode(Z, True, A.INTRINSIC)) == aj.Fidelity.BIT_EXACT  # the page's example
    assert level("float", R.DivSpecificMode(Z, False, A.PRECISION_0ULP_FTZ_TRUE)) == aj.Fidelity.BIT_EXACT
    # the subnormal-keeping code (DivIEEE754FloatImpl) rounds subnormal results twice: MODELLED (decisions.md)
    assert level("float", R.DivSpecificMode(Z, False, A.PRECISION_0ULP_FTZ_FALSE)) == aj.Fidelity.MODELLED
    assert level("float", R.DivSpecificMode(Z, True, A.PRECISION_0ULP_FTZ_FALSE)) == aj.Fidelity.MODELLED
    assert level("float", R.DivSpecificMode(Z, False, A.PRECISION_1ULP_FTZ_FALSE)) == aj.Fidelity.MODELLED
    assert level("half", R.DivSpecificMode(Z, False, A.PRECISION_1ULP_FTZ_FALSE)) == aj.Fidelity.MODELLED


def test_modes_share_the_engine_specialisation():
    """Issue 20: a DivSpecificMode's fields reach the engine as run-time values, so after a MaskMergeMode Div no mode
    value compiles engine_binary again."""
    from ascend_jit.jit import reg_ops
    core = aj.Core(D950)
    x, y, dst = (core.local_tensor("float", 64) for _ in range(3))
    x[:], y[:] = 1.0, 3.0
    with core:
        DIV_VF(dst, x, y, 64, 64, Z, "float")
        before = len(reg_ops.engine_binary.signatures)
        for precision, algo in [(False, A.INTRINSIC), (True, A.INTRINSIC), (False, A.PRECISION_0ULP_FTZ_FALSE),
                                (False, A.PRECISION_1ULP_FTZ_FALSE)]:
            DIV_VF(dst, x, y, 64, 64, R.DivSpecificMode(Z, precision, algo), "float")
    assert len(reg_ops.engine_binary.signatures) == before
