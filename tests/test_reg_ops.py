"""Ascend 950 Reg Add/Sub/Mul (and carry forms), Duplicate, Reduce (SPEC-2 11.2-11.4, D66, D67): golden vectors
of SPEC-2 12.2 / 12.8, and property tests of the compiled and the plain-Python paths against the reference."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.reference import numerics as rnum
from ascend_jit.reference import reg as ref

R = aj.Reg
OPS = {"add": 0, "sub": 1, "mul": 2}
TYPES = ref.BINARY_TYPES["add"]


def _vf_binary(out, a, b, T, op, mask, mode):
    ra, rb, rd = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    R.LoadAlign(ra, a)
    R.LoadAlign(rb, b)
    R.LoadAlign(rd, out)  # dst's previous lanes (MERGING keeps them)
    if op == 0:
        R.Add(rd, ra, rb, mask, mode)
    elif op == 1:
        R.Sub(rd, ra, rb, mask, mode)
    else:
        R.Mul(rd, ra, rb, mask, mode)
    R.StoreAlign(out, rd, R.CreateMask(T))


def _vf_carry(out, a, b, T, op, mask, carry):
    ra, rb, rd = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    R.LoadAlign(ra, a)
    R.LoadAlign(rb, b)
    if op == 0:
        R.Add(carry, rd, ra, rb, mask)
    else:
        R.Sub(carry, rd, ra, rb, mask)
    R.StoreAlign(out, rd, R.CreateMask(T))


def _vf_reduce(out, a, T, D, op, mask):
    ra, rd = R.RegTensor(T), R.RegTensor(D)
    R.LoadAlign(ra, a)
    R.Reduce(rd, ra, mask, op)
    R.StoreAlign(out, rd, R.CreateMask(D))


def _vf_duplicate(out, src, T, value, mask, mode, from_reg):
    rd, rs = R.RegTensor(T), R.RegTensor(T)
    R.LoadAlign(rd, out)
    R.LoadAlign(rs, src)
    if from_reg:
        R.Duplicate(rd, rs, mask, mode)
    else:
        R.Duplicate(rd, value, mask, mode)
    R.StoreAlign(out, rd, R.CreateMask(T))


BINARY, CARRY, REDUCE, DUPLICATE = (R.simd_vf(f) for f in (_vf_binary, _vf_carry, _vf_reduce, _vf_duplicate))


def _core(sat_half=False, sat_int=False):
    core = aj.Core("ascend950")
    core.SetCtrlSpr(48, 48, 0 if sat_half else 1)
    core.SetCtrlSpr(53, 53, 1 if sat_int else 0)
    return core


def _tensor(core, dtype, raw):
    d = aj.dtypes.resolve(dtype)
    t = core.local_tensor(dtype, 256 // d.size)
    t[:] = np.frombuffer(bytes(raw), d.np_dtype)
    return t


def _run(vf, compiled, *args):
    (vf if compiled else vf.py_func)(*args)


def _values(dtype, raw):
    d = aj.dtypes.resolve(dtype)
    return [float(v) if d.is_float else int(v) for v in np.frombuffer(bytes(raw), d.np_dtype)]


def _same_value(dtype, got, want):
    if rnum.is_float(dtype):
        return rnum.encode(dtype, got) == rnum.encode(dtype, want)
    return got == want


def _binary(op, dtype, xs, ys, mask=None, sat_half=False, sat_int=False, compiled=True,
            mode=R.MaskMergeMode.ZEROING, before=None):  # the enum every call passes: one compiled VF
    core = _core(sat_half, sat_int)
    d = aj.dtypes.resolve(dtype)
    n = 256 // d.size
    a = _tensor(core, dtype, np.resize(np.asarray(xs, d.np_dtype), n).tobytes())
    b = _tensor(core, dtype, np.resize(np.asarray(ys, d.np_dtype), n).tobytes())
    out = _tensor(core, dtype, bytes(256) if before is None else before)
    with core:
        _run(BINARY, compiled, out, a, b, dtype, OPS[op], mask or R.CreateMask(dtype), mode)
    return out.numpy()


H_MIN, H_MAX = -65504.0, 65504.0
GOLDEN = [  # SPEC-2 12.2 B-1..B-8 (RegBV-T14/T16), 12.8 G-1: (op, dtype, x, y, INF/NaN mode, sat mode)
    ("sub", "half", H_MIN, H_MAX, -math.inf, H_MIN), ("sub", "half", -0.0, 0.0, -0.0, -0.0),
    ("sub", "half", -0.0, -0.0, 0.0, 0.0), ("sub", "half", 0.0, -0.0, 0.0, 0.0),
    ("sub", "half", math.inf, math.inf, math.nan, 0.0), ("sub", "half", math.nan, 1.0, math.nan, 0.0),
    ("sub", "int16", -32768, 32767, 1, -32768), ("sub", "int16", 32767, -32768, -1, 32767),
    ("sub", "int32", -2**31, 2**31 - 1, 1, -2**31), ("sub", "int32", 2**31 - 1, -2**31, -1, 2**31 - 1),
    ("sub", "float", -3.4028234663852886e38, 3.4028234663852886e38, -math.inf, -math.inf),
    ("mul", "half", H_MIN, H_MIN, math.inf, H_MAX), ("mul", "half", H_MIN, 0.0, -0.0, -0.0),
    ("mul", "half", H_MAX, -0.0, -0.0, -0.0), ("mul", "half", 0.0, math.inf, math.nan, 0.0),
    ("mul", "int16", 32767, 32767, 1, 32767), ("mul", "int16", -32768, -32768, 0, 32767),
    ("mul", "int16", -32768, 32767, -32768, -32768), ("mul", "int32", 2**31 - 1, 2**31 - 1, 1, 2**31 - 1),
    ("mul", "int32", -2**31, -2**31, 0, 2**31 - 1),
    ("add", "half", H_MAX, H_MAX, math.inf, H_MAX), ("add", "half", -0.0, -0.0, -0.0, -0.0)]


@pytest.mark.parametrize("op,dtype,x,y,inf_mode,sat_mode", GOLDEN)
def test_boundary_rows(op, dtype, x, y, inf_mode, sat_mode):
    for sat in (False, True):
        got = _binary(op, dtype, [x], [y], sat_half=sat, sat_int=sat)
        want = sat_mode if sat else inf_mode
        assert _same_value(dtype, float(got[0]) if rnum.is_float(dtype) else int(got[0]), want), (sat, got[0])


_SPECIALS = {"half": [-65504.0, 65504.0, 0.0, -0.0, math.nan, math.inf, -math.inf],
             "float": [-3.4028234663852886e38, 3.4028234663852886e38, 0.0, -0.0, math.nan, math.inf, -math.inf]}


@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_every_float_row_of_regbv_t11_t14_t16(op, dtype):
    """SPEC-2 12.0 / 12.8 G-1: every half and float row of RegBV-T11 (Add), T14 (Sub), T16 (Mul) is a vector. Their
    inputs are the 7 specials {MIN, MAX, 0, -0, nan, inf, -inf}; the INF/NaN column is IEEE 754 (the table's note),
    the sat column SAT of it (half: +-inf -> +-65504, NaN -> +0; float never saturated). All 49 pairs, both modes,
    one call each; zero signs from IEEE (D72: RegBV prints -0.0 as 0.0)."""
    pairs = [(x, y) for x in _SPECIALS[dtype] for y in _SPECIALS[dtype]]
    xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
    np_type = np.float16 if dtype == "half" else np.float32
    with np.errstate(all="ignore"):
        exact = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[op](np.float64(xs), np.float64(ys))
        ieee = exact.astype(np_type)
    for sat in (False, True):
        got = _binary(op, dtype, xs, ys, sat_half=sat)[:len(pairs)]
        for (x, y), g, want in zip(pairs, got, ieee):
            want = float(want)
            if sat and dtype == "half":
                want = 0.0 if math.isnan(want) else max(-65504.0, min(65504.0, want))
            assert _same_value(dtype, float(g), want), (op, x, y, sat, g, want)


INT_ROWS = {  # RegBV-T11 / T14 / T16 integer rows: (x, y, wrap column, clamp column) with m = MIN, M = MAX
    "add": [("m", "m", 0, "m"), ("m", "M", -1, -1), ("M", "M", -2, "M")],
    "sub": [("m", "m", 0, 0), ("m", "M", 1, "m"), ("M", "m", -1, "M"), ("M", "M", 0, 0)],
    "mul": [("m", "m", 0, "M"), ("m", "M", "m", "m"), ("M", "M", 1, "M")]}


@pytest.mark.parametrize("dtype", ["int16", "int32"])
@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_every_integer_row_of_regbv_t11_t14_t16(op, dtype):
    info = np.iinfo(aj.dtypes.resolve(dtype).np_dtype)
    value = {"m": int(info.min), "M": int(info.max)}
    rows = [[value.get(v, v) for v in row] for row in INT_ROWS[op]]
    for sat in (False, True):
        got = _binary(op, dtype, [r[0] for r in rows], [r[1] for r in rows], sat_int=sat)
        assert [int(g) for g in got[:len(rows)]] == [r[3] if sat else r[2] for r in rows], sat


def _carry(op, xs, ys, dtype="uint32", mask=None, compiled=True):
    core = _core()
    a = _tensor(core, dtype, np.resize(np.asarray(xs, np.uint32), 64).tobytes())
    b = _tensor(core, dtype, np.resize(np.asarray(ys, np.uint32), 64).tobytes())
    out = core.local_tensor(dtype, 64)
    carry = R.MaskReg()
    with core:
        _run(CARRY, compiled, out, a, b, dtype, OPS[op], mask or R.CreateMask(dtype), carry)
    return out.numpy().view(np.uint32), carry


@pytest.mark.parametrize("dtype", ["uint32", "int32"])
def test_carry_vectors_g3(dtype):
    got, carry = _carry("add", [0xFFFFFFFF, 0x7FFFFFFF], [1, 1], dtype)
    assert got[:2].tolist() == [0, 0x80000000]
    assert carry.lanes("uint32")[:1] == [0] and 1 not in carry.lanes("uint32")
    got, carry = _carry("sub", [7, 5, 5], [5, 7, 5], dtype)
    assert got[:3].tolist() == [2, 0xFFFFFFFE, 0]
    bits = carry.bits()
    assert [(bits >> (4 * k)) & 0xF for k in range(3)] == [1, 0, 1]  # bit 4k only (SPEC-2 11.2)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["add", "sub"]), st.integers(0, 2**32 - 1), st.lists(st.integers(0, 2**64 - 1), min_size=4,
       max_size=4), st.booleans())
def test_carry_matches_reference(op, seed, words, compiled):
    rng = np.random.default_rng(seed)
    xs = rng.integers(0, 2**32, 64, dtype=np.uint64)
    ys = np.where(rng.random(64) < 0.2, xs, rng.integers(0, 2**32, 64, dtype=np.uint64))
    mask = R.MaskReg(words)
    got, carry = _carry(op, xs.astype(np.uint32), ys.astype(np.uint32), mask=mask, compiled=compiled)
    active = [bool(R.jit_lane_on(mask.words, 4 * k)) for k in range(64)]
    want, want_carry = ref.carry(op, [int(v) for v in xs], [int(v) for v in ys], active)
    assert got.tolist() == want
    assert carry.bits() == sum(c << (4 * k) for k, c in enumerate(want_carry))


SPECIALS = {"half": [0x7C00, 0xFC00, 0x7E00, 0x8000, 0x0000, 0x7BFF, 0xFBFF, 0x0001],
            "bfloat16": [0x7F80, 0xFF80, 0x7FC0, 0x8000, 0x7F7F, 0x0001],
            "float": [0x7F800000, 0xFF800000, 0x7FC00000, 0x80000000, 0x7F7FFFFF, 0x00000001]}


def _random_raw(rng, dtype):
    raw = rng.integers(0, 256, 256, dtype=np.uint8)
    d = aj.dtypes.resolve(dtype)
    if dtype in SPECIALS:
        view = raw.view(np.uint16 if d.size == 2 else np.uint32)
        picks = rng.integers(0, view.size, view.size // 8)
        view[picks] = rng.choice(np.array(SPECIALS[dtype], view.dtype), picks.size)
    elif not d.is_float and rng.random() < 0.5:  # extremes, to reach overflow and saturation
        info = np.iinfo(d.np_dtype)
        view = raw.view(d.np_dtype)
        picks = rng.integers(0, view.size, view.size // 4)
        view[picks] = rng.choice(np.array([info.min, info.max, -1 if info.min < 0 else 0, 1], d.np_dtype), picks.size)
    return raw.tobytes()


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(OPS)), st.sampled_from(TYPES), st.integers(0, 2**32 - 1),
       st.lists(st.integers(0, 2**64 - 1), min_size=4, max_size=4), st.booleans(), st.booleans(), st.booleans(),
       st.booleans())
def test_binary_matches_reference(op, dtype, seed, words, sat_half, sat_int, compiled, merging):
    if dtype not in ref.BINARY_TYPES[op]:
        return
    merging = merging and op == "add"
    rng = np.random.default_rng(seed)
    xa, xb, before = (_random_raw(rng, dtype) for _ in range(3))
    mask = R.MaskReg(words)
    d = aj.dtypes.resolve(dtype)
    got = _binary(op, dtype, np.frombuffer(xa, d.np_dtype), np.frombuffer(xb, d.np_dtype), mask, sat_half, sat_int,
                  compiled, R.MaskMergeMode.MERGING if merging else R.MaskMergeMode.ZEROING, before)
    active = [bool(R.jit_lane_on(mask.words, j * d.size)) for j in range(256 // d.size)]
    want = ref.binary(op, dtype, _values(dtype, xa), _values(dtype, xb), active, _values(dtype, before), merging,
                      sat_half, sat_int)
    kept = [before[j * d.size:(j + 1) * d.size] for j in range(len(want))]  # MERGING keeps the bits themselves
    assert got.tobytes() == b"".join(rnum.encode(dtype, v) if on or not merging else k
                                     for v, on, k in zip(want, active, kept))


def test_merging_refused_for_sub_and_mul_ub_unchanged():
    for op in ("sub", "mul"):
        for compiled in (True, False):
            core = _core()
            a = _tensor(core, "half", bytes(256))
            before = core.ub.copy()
            with core, pytest.raises(aj.ParameterError, match="MERGING"):
                _run(BINARY, compiled, a, a, a, "half", OPS[op], R.CreateMask("half"), R.MaskMergeMode.MERGING)
            assert np.array_equal(before, core.ub)


def test_refusals_mismatched_types_and_devices():
    core = _core()
    h, f = R.RegTensor("half"), R.RegTensor("float")
    with core, pytest.raises(aj.UnsupportedDTypeError) as refused:
        R.Add(h, h, f, R.CreateMask("half"))
    # the kernel checks kind codes; the message gives the dtypes the user wrote (errors._named_kinds)
    assert "'dst/src0/src1 dtypes' = ('half', 'half', 'float')" in str(refused.value)
    assert refused.value.value == ("half", "half", "float")
    i8 = R.RegTensor("int8")
    with core, pytest.raises(aj.UnsupportedDTypeError, match="Mul: parameter 'dtype' = 'int8'"):  # was 'dtype dtype'
        R.Mul(i8, i8, i8, R.CreateMask("int8"))
    with core, pytest.raises(aj.UnsupportedDTypeError, match="MoveMask: parameter 'dtype' = 'int8'"):
        aj.SetVectorMask(0xFF)
        R.MoveMask("int8")
    with core, pytest.raises(aj.UnsupportedDTypeError):
        R.Add(R.MaskReg(), h, h, h, R.CreateMask("half"))  # carry form: int32/uint32 only
    with aj.Core("atlas-a2"), pytest.raises(aj.UnsupportedDeviceError, match="950"):
        R.Add(h, h, h, R.CreateMask("half"))
    with aj.Core("atlas-a2"), pytest.raises(aj.UnsupportedDeviceError):
        R.Duplicate(h, 1.0)
    with core, pytest.raises(aj.ParameterError, match="D29"):
        R.Duplicate(R.RegTensor("int16"), 40000)
    with core, pytest.raises(aj.ParameterError):
        R.Duplicate(h, True)


# --- Duplicate -------------------------------------------------------------------------------------------------
DUP_CASES = [("half", 1.0, 0x3C00), ("half", 0.1, 0x2E66), ("half", 70000.0, 0x7C00), ("half", math.nan, 0x7E00),
             ("float", 0.1, 0x3DCCCCCD), ("bfloat16", 1.00390625, 0x3F80), ("int8", -1, 0xFF),
             ("uint16", 65535, 0xFFFF), ("int32", -2, 0xFFFFFFFE), ("int64", -1, 2**64 - 1),
             ("uint64", np.uint64(2**63), 2**63), ("half", 3, 0x4200)]


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("dtype,value,bits", DUP_CASES)
def test_duplicate_scalar_d29(dtype, value, bits, compiled):
    core = _core()
    d = aj.dtypes.resolve(dtype)
    out, src = _tensor(core, dtype, bytes([0x55]) * 256), _tensor(core, dtype, bytes(256))
    mask = R.CreateMask(dtype, R.MaskPattern.H)
    with core:
        _run(DUPLICATE, compiled, out, src, dtype, value, mask, R.MaskMergeMode.MERGING, False)
    lanes = out.numpy().view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[d.size])
    n = lanes.size
    assert all(int(v) == bits for v in lanes[:n // 2])
    assert all(int(v) == int.from_bytes(b"\x55" * d.size, "little") for v in lanes[n // 2:])  # MERGING keeps


@pytest.mark.parametrize("compiled", [True, False])
def test_duplicate_lane0_zeroing(compiled):
    core = _core()
    out = _tensor(core, "float", bytes([0x55]) * 256)
    src = _tensor(core, "float", np.arange(64, dtype=np.float32).tobytes())
    src.SetValue(0, 7.5)
    core.PipeBarrier(aj.PIPE_ALL)            # the vector loads wait for the scalar store (S -> V)
    with core:
        _run(DUPLICATE, compiled, out, src, "float", 0, R.CreateMask("float", R.MaskPattern.VL8),
             R.MaskMergeMode.ZEROING, True)
    got = out.numpy()
    assert (got[:8] == 7.5).all() and (got[8:] == 0).all()


# --- Reduce ------------------------------------------------------------------------------------------------------
def _reduce(dtype, dst_dtype, raw, op, mask=None, sat=False, compiled=True):
    core = _core(sat_half=sat)
    a = _tensor(core, dtype, raw)
    out = core.local_tensor(dst_dtype, 256 // aj.dtypes.resolve(dst_dtype).size)
    with core:
        _run(REDUCE, compiled, out, a, dtype, dst_dtype, op, mask or R.CreateMask(dtype))
    return out.numpy()


R8 = [  # SPEC-2 12.4 R-8 (RegBV-T35): (dtype, op, every lane, INF/NaN mode, sat mode)
    ("half", R.ReduceType.SUM, H_MIN, -math.inf, H_MIN), ("half", R.ReduceType.SUM, H_MAX, math.inf, H_MAX),
    ("half", R.ReduceType.SUM, math.nan, math.nan, 0.0),
    ("float", R.ReduceType.SUM, 3.4028234663852886e38, math.inf, math.inf),
    ("half", R.ReduceType.MAX, math.inf, math.inf, H_MAX), ("half", R.ReduceType.MIN, -math.inf, -math.inf, H_MIN),
    ("half", R.ReduceType.MAX, math.nan, math.nan, 0.0), ("float", R.ReduceType.MIN, math.nan, math.nan, math.nan),
    ("float", R.ReduceType.MAX, -math.inf, -math.inf, -math.inf)]


@pytest.mark.parametrize("dtype,op,v,inf_mode,sat_mode", R8)
def test_reduce_r8(dtype, op, v, inf_mode, sat_mode):
    d = aj.dtypes.resolve(dtype)
    raw = np.full(256 // d.size, v, d.np_dtype).tobytes()
    for sat in (False, True):
        got = _reduce(dtype, dtype, raw, int(op), sat=sat)
        assert _same_value(dtype, float(got[0]), sat_mode if sat else inf_mode)
        assert (got[2:] == 0).all() and (op == R.ReduceType.SUM or got.view(np.uint16 if d.size == 2 else
                                                                              np.uint32)[1] == 0)


def _t35_rows():
    """Every row of RegBV-T35 (Reduce) and T36 (ReduceDataBlock): MAX/MIN/SUM x half/float x every lane = one of the
    7 specials; (dtype, op, v, INF/NaN result, sat result). SUM of equal lanes: MIN/MAX overflow to -+inf, the
    rest keep v (-0 + -0 = -0)."""
    rows = []
    for dtype in ("half", "float"):
        hi = H_MAX if dtype == "half" else 3.4028234663852886e38
        for op in (R.ReduceType.MAX, R.ReduceType.MIN, R.ReduceType.SUM):
            for v in _SPECIALS[dtype]:
                inf_mode = (math.copysign(math.inf, v) if abs(v) == hi else v) if op == R.ReduceType.SUM else v
                sat_mode = inf_mode
                if dtype == "half":
                    sat_mode = 0.0 if math.isnan(inf_mode) else max(H_MIN, min(H_MAX, inf_mode))
                rows.append((dtype, op, v, inf_mode, sat_mode))
    return rows


@pytest.mark.parametrize("dtype,op,v,inf_mode,sat_mode", _t35_rows())
def test_every_row_of_regbv_t35_and_t36(dtype, op, v, inf_mode, sat_mode):
    """SPEC-2 12.0: every RegBV-T35 row (Reg Reduce: value in lane 0, index 0 in lane 1) and T36 row (Reg
    ReduceDataBlock: every block's result in lanes 0..7), both overflow modes."""
    d = aj.dtypes.resolve(dtype)
    raw = np.full(256 // d.size, v, d.np_dtype).tobytes()
    for sat in (False, True):
        want = sat_mode if sat else inf_mode
        got = _reduce(dtype, dtype, raw, int(op), sat=sat)
        assert _same_value(dtype, float(got[0]), want), ("Reduce", sat, got[0])
        core = _core(sat_half=sat)
        src, dst = R.RegTensor(dtype), R.RegTensor(dtype)
        with core:
            R.LoadAlign(src, _tensor(core, dtype, raw))
            R.ReduceDataBlock(dst, src, R.CreateMask(dtype), op)
        assert all(_same_value(dtype, float(g), want) for g in dst.numpy()[:8]), ("ReduceDataBlock", sat)


def test_reduce_index_ties_nan_and_empty():
    vals = np.array([1, 5, 3, 5, -0.0, 0.0] + [0] * 58, np.float32)
    got = _reduce("float", "float", vals.tobytes(), int(R.ReduceType.MAX))
    assert got[0] == 5 and got.view(np.uint32)[1] == 1  # the first lane attaining the maximum
    got = _reduce("float", "float", np.array([0.0, -0.0] + [1] * 62, np.float32).tobytes(), int(R.ReduceType.MIN))
    assert math.copysign(1, got[0]) == -1 and got.view(np.uint32)[1] == 1  # -0 < +0 (D41)
    vals[10], vals[20] = np.nan, np.nan
    got = _reduce("float", "float", vals.tobytes(), int(R.ReduceType.MIN))
    assert math.isnan(got[0]) and got.view(np.uint32)[1] == 10
    none = R.CreateMask("int16", R.MaskPattern.ALLF)
    got = _reduce("int16", "int16", bytes(256), int(R.ReduceType.MAX), mask=none)
    assert got[0] == -32768 and got[1] == 0  # D66 identities


REDUCE_PAIRS = sorted({("sum",) + p for p in ref.REDUCE_SUM_PAIRS} |
                      {(op, t, t) for op in ("max", "min") for t in ref.REDUCE_MINMAX_TYPES})


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(REDUCE_PAIRS), st.integers(0, 2**32 - 1),
       st.lists(st.integers(0, 2**64 - 1), min_size=4, max_size=4), st.booleans(), st.booleans())
def test_reduce_matches_reference(case, seed, words, sat, compiled):
    op, dst_dtype, src_dtype = case
    rng = np.random.default_rng(seed)
    raw = _random_raw(rng, src_dtype)
    mask = R.MaskReg(words)
    code = {"sum": R.ReduceType.SUM, "max": R.ReduceType.MAX, "min": R.ReduceType.MIN}[op]
    got = _reduce(src_dtype, dst_dtype, raw, int(code), mask, sat, compiled)
    s = aj.dtypes.resolve(src_dtype).size
    active = [bool(R.jit_lane_on(mask.words, j * s)) for j in range(256 // s)]
    value, index = ref.reduce(op, dst_dtype, src_dtype, _values(src_dtype, raw), active, sat)
    dsize = aj.dtypes.resolve(dst_dtype).size
    want = rnum.encode(dst_dtype, value)
    if index is not None:
        want += index.to_bytes(dsize, "little")
    assert got.tobytes() == want + bytes(256 - len(want))


def test_reduce_refusals():
    core = _core()
    f, h = R.RegTensor("float"), R.RegTensor("half")
    with core, pytest.raises(aj.UnsupportedDTypeError, match="Reduce"):
        R.Reduce(f, h, R.CreateMask("half"))
    with core, pytest.raises(aj.ParameterError, match="MERGING"):
        R.Reduce(h, h, R.CreateMask("half"), R.ReduceType.SUM, R.MaskMergeMode.MERGING)
    i8 = R.RegTensor("int8")
    with core, pytest.raises(aj.UnsupportedDTypeError):
        R.Reduce(i8, i8, R.CreateMask("int8"), R.ReduceType.MAX)


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_every_row_of_regbv_t28_t29_fused_multiply_adds(dtype):
    """SPEC-2 12.0 / 12.2 B-27, 6.3: RegBV-T28 (MulDstAdd = FusedMulAdd, dst = src0 * dst + src1) and T29
    (MulAddDst, dst = src0 * src1 + dst) on the 950: every row's inputs are three of the 7 specials, and every row is
    the fma of the exact product, rounded once, then SAT in the half sat column (the tables' note: IEEE 754; e.g.
    T28 MAX/+inf with dst MIN -> +inf, since MAX * MIN is finite before the rounding). All 343 triples, both modes."""
    triples = [(x, y, z) for x in _SPECIALS[dtype] for y in _SPECIALS[dtype] for z in _SPECIALS[dtype]]
    np_type = np.float16 if dtype == "half" else np.float32
    x, y, z = (np.array([t[k] for t in triples], np.float64) for k in range(3))
    for api, (a, b, c) in (("FusedMulAdd", (x, z, y)), ("MulAddDst", (x, y, z))):
        with np.errstate(all="ignore"):
            want = (a * b + c).astype(np_type)  # the exact product fits a double: one rounding (float64 -> T exact)
        for sat in (False, True):
            core = _core(sat_half=sat)
            n = len(triples)
            s0, s1, dst = (core.local_tensor(dtype, 352) for _ in range(3))
            for t, v in ((s0, x), (s1, y), (dst, z)):
                t[:] = np.resize(v.astype(np_type), 352)
            getattr(aj, api)(dst, s0, s1, n)
            for triple, g, w in zip(triples, dst.numpy()[:n], want):
                w = float(w)
                if sat and dtype == "half":
                    w = 0.0 if math.isnan(w) else max(H_MIN, min(H_MAX, w))
                assert _same_value(dtype, float(g), w), (api, triple, sat, g, w)


def _vf_pair_reduce(out, a, T, mask):
    ra, rd = R.RegTensor(T), R.RegTensor(T)
    R.LoadAlign(ra, a)
    R.PairReduceElem(rd, ra, mask)
    R.StoreAlign(out, rd, R.CreateMask(T))


PAIR_REDUCE = R.simd_vf(_vf_pair_reduce)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["half", "float"]), st.integers(0, 2**32 - 1), st.lists(st.integers(0, 2**64 - 1),
       min_size=4, max_size=4), st.booleans(), st.booleans())
def test_pair_reduce_elem_matches_reference(dtype, seed, words, sat, compiled):
    """SPEC 7.6: Reg PairReduceElem, lane i < L/2 = src 2i + src 2i+1 (inactive lanes +0), the upper half 0; against
    the reference over random bytes with the specials mixed in."""
    rng = np.random.default_rng(seed)
    raw = _random_raw(rng, dtype)
    core = _core(sat_half=sat)
    a, out = _tensor(core, dtype, raw), _tensor(core, dtype, bytes(256))
    mask = R.MaskReg(words)
    with core:
        (PAIR_REDUCE if compiled else PAIR_REDUCE.py_func)(out, a, dtype, mask)
    size = aj.dtypes.resolve(dtype).size
    active = [bool(R.jit_lane_on(mask.words, j * size)) for j in range(256 // size)]
    want = ref.pair_reduce(dtype, _values(dtype, raw), active, sat)
    assert all(_same_value(dtype, float(g), w) for g, w in zip(out.numpy(), want))


def test_pair_reduce_elem_vectors_and_refusals():
    """SPEC 7.6 / SPEC 2.4 row "one element of a pair masked": the result is the other element; both masked: +0."""
    core = _core()
    vals = np.zeros(128, np.float16)
    vals[:6] = [1.5, 2.0, -0.0, -0.0, 65504.0, 65504.0]
    a, out = _tensor(core, "half", vals.tobytes()), _tensor(core, "half", np.full(128, 9, np.float16).tobytes())
    mask = R.MaskReg((0b1111_0011_1111, 0, 0, 0))  # half lanes 0, 1, 2, 4, 5 (lane 3's bits 6-7 off)
    with core:
        PAIR_REDUCE(out, a, "half", mask)
    got = out.numpy()
    assert got[0] == 3.5 and got[1] == 0 and not np.signbit(got[1]) and got[2] == np.inf and (got[3:] == 0).all()
    with core:
        with pytest.raises(aj.UnsupportedDTypeError):
            R.PairReduceElem(R.RegTensor("int32"), R.RegTensor("int32"), R.CreateMask("int32"))
        with pytest.raises(aj.ParameterError, match="mode"):
            R.PairReduceElem(R.RegTensor("half"), R.RegTensor("half"), R.CreateMask("half"), R.MaskMergeMode.MERGING)


@pytest.mark.ascend_sanitize(checks="", reason="a compiled VF's refusal: a sanitizing core runs every VF plain")
def test_kernel_type_refusals_name_dtypes_in_a_compiled_vf():
    """A type refusal raised by a compiled kernel inside a compiled VF reads as the plain call's: dtype names."""
    @R.simd_vf
    def vf(out, a):
        x, y = R.RegTensor("half"), R.RegTensor("float")
        m = R.CreateMask("half")
        R.LoadAlign(x, a, 0)
        R.Max(x, x, y, m)
        R.StoreAlign(out, x, m, 0)

    core = _core()
    out, a = core.local_tensor("half", 128), core.local_tensor("half", 128)
    before = core.ub.copy()
    with pytest.raises(aj.UnsupportedDTypeError) as refused:
        vf(out, a)
    assert "('half', 'half', 'float')" in str(refused.value) and "kinds" not in str(refused.value)
    assert np.array_equal(before, core.ub)
