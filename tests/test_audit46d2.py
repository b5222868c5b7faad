"""Audit 46 D2: the SPEC-2 decisions the suite cited least (D27, D40, D42, D49, D51, D52, D53, D60, D61, D63, D64,
D66, D70, D72, D73, D74), tested from the decision texts.

Expectations are computed here (numpy, fractions, mpmath, or a few-line model of the D's words), never by the
project's reference package. Every call that writes checks the whole UB: bytes outside the ones the D says are
written stay unchanged; every refusal leaves the UB byte-identical.
"""
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.api.registry import INSTRUCTIONS

R = aj.Reg
DEVICES = ("ascend950", "atlas-a2", "atlas-a3", "atlas-200i-500-a2", "atlas-inference-aicore", "atlas-training")
NON950 = DEVICES[1:]
# Devices whose half overflow mode can be saturating (SPEC D6): switchable on the 950/A2/A3, fixed on 310P/910.
SAT_SWITCH = ("ascend950", "atlas-a2", "atlas-a3")
SAT_FIXED = ("atlas-inference-aicore", "atlas-training")
INSTR = {i.name: i for i in INSTRUCTIONS}
HALF_NAN, FLOAT_NAN = 0x7E00, 0x7FC00000
SIZES = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "half": 2, "bfloat16": 2, "int32": 4, "uint32": 4,
         "float": 4, "int64": 8, "uint64": 8}
SENT = 0xA5  # the UB's fill byte before every call: "unchanged" is checked against it


def dtypes_of(name, device):
    ins = INSTR[name]
    spec = aj.get_device(device)
    return ins.dtypes(spec) if ins.offered(spec) else ()


def make_core(device, sat=False):
    core = aj.Core(device)
    core.ub[:] = SENT
    if sat and device in SAT_SWITCH:
        core.SetCtrlSpr(48, 48, 0)  # SPEC D6: CTRL[48] 0 = saturating
    return core


def is_sat(device, sat):
    return device in SAT_FIXED or (sat and device in SAT_SWITCH)


def put(t, values, view):
    """Write raw bits (view dtype) into tensor t."""
    arr = np.asarray(values, view)
    t.core.ub[t.addr:t.addr + arr.nbytes] = arr.view(np.uint8)
    t.core.ub_written_by_host(t.addr, arr.nbytes)


def expect_ub(core, before, t, values, view):
    """The UB equals `before` except t's first len(values) elements, which hold `values` (raw bits, view dtype)."""
    exp = before.copy()
    arr = np.asarray(values, view)
    exp[t.addr:t.addr + arr.nbytes] = arr.view(np.uint8)
    diff = np.nonzero(core.ub != exp)[0]
    assert diff.size == 0, (f"UB differs at bytes {diff[:8]} (tensor at {t.addr}): got "
                            f"{core.ub[t.addr:t.addr + arr.nbytes].view(view)}, expected {arr}")


def refused(core, exc, fn, match=None):
    before = core.ub.copy()
    with pytest.raises(exc, match=match):
        fn()
    assert np.array_equal(core.ub, before), "a refused call wrote the UB"


def hbits(x):
    return int(np.float16(x).view(np.uint16))


def fbits(x):
    return int(np.float32(x).view(np.uint32))


# ----------------------------------------------------------------------------------------------------------- D27

def test_d27_enum_names_and_values():
    """SPEC-2 D27: ReduceOrder is the Ascend output-order enum, ReduceTree the tree class, ReduceType SUM/MAX/MIN =
    0/1/2 with a Reg twin, one RoundMode object for Memory and Reg Cast."""
    assert [(m.name, int(m)) for m in aj.ReduceOrder] == [
        ("ORDER_VALUE_INDEX", 0), ("ORDER_INDEX_VALUE", 1), ("ORDER_ONLY_VALUE", 2), ("ORDER_ONLY_INDEX", 3)]
    for enum in (aj.ReduceType, R.ReduceType):
        assert (int(enum.SUM), int(enum.MAX), int(enum.MIN)) == (0, 1, 2)
    assert R.RoundMode is aj.RoundMode
    tree = aj.explain_reduce_order("atlas-a2", "count", "half", count=300)
    assert isinstance(tree, aj.ReduceTree)
    for meth in ("to_text", "to_json", "to_dot", "evaluate"):
        assert callable(getattr(tree, meth))


@pytest.mark.parametrize("order, layout", [(aj.ReduceOrder.ORDER_VALUE_INDEX, "vi"),
                                           (aj.ReduceOrder.ORDER_INDEX_VALUE, "iv")])
def test_d27_reduce_order_enum_drives_reduce_repeat(order, layout):
    """SPEC-2 D27 with D50: the ReduceOrder member passed to ReduceRepeat MAX orders (value, index) in dst."""
    core = make_core("atlas-a2")
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 16)
    x = np.arange(128, dtype=np.float16) / 8
    x[77] = 100
    put(src, x, np.float16)
    before = core.ub.copy()
    aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, order, reduce_type=aj.ReduceType.MAX)
    pair = [hbits(100), 77] if layout == "vi" else [77, hbits(100)]
    expect_ub(core, before, dst, pair, np.uint16)


# ----------------------------------------------------------------------------------------------------------- D42

LEAKY_CASES = [(-0.0, -65504.0, "+0"), (-0.0, float("nan"), "nan"), (0.0, float("nan"), "+0"),
               (float("-inf"), 0.0, "nan"), (-2.0, 0.5, "-1"), (3.0, float("nan"), "3")]


@pytest.mark.parametrize("device", DEVICES)
def test_d42_leaky_relu_sign_bit_selects_multiply(device):
    """SPEC-2 D42 (MemBV-T19): LeakyRelu multiplies iff src's sign bit is set; NaN results canonical, and +0 in
    saturation mode (D35). Every device offering LeakyRelu, every dtype, both half modes."""
    for dt in dtypes_of("LeakyRelu", device):
        npt, view, nan = (np.float16, np.uint16, HALF_NAN) if dt == "half" else (np.float32, np.uint32, FLOAT_NAN)
        for sat in ((False, True) if dt == "half" else (False,)):
            for x, s, res in LEAKY_CASES:
                core = make_core(device, sat)
                n = 32 // npt().itemsize
                src, dst = core.local_tensor(dt, n), core.local_tensor(dt, n)
                put(src, np.full(n, x, npt), npt)
                before = core.ub.copy()
                aj.LeakyRelu(dst, src, npt(s), n)
                if res == "nan":
                    want = 0 if (dt == "half" and is_sat(device, sat)) else nan
                else:
                    want = int(npt(float(res)).view(view))
                expect_ub(core, before, dst, [want] * n, view)


# ----------------------------------------------------------------------------------------------------------- D60

@pytest.mark.parametrize("device", NON950)
@pytest.mark.parametrize("name", ["And", "Or"])
def test_d60_and_or_32bit_refused_off_950(device, name):
    """SPEC-2 D60: And/Or on int32/uint32 refused off the 950 (UnsupportedDTypeError recommending ReinterpretCast),
    count and high-dim forms, UB unchanged; the 16-bit forms work."""
    fn = getattr(aj, name)
    for dt in ("int32", "uint32"):
        core = make_core(device)
        a, b, d = (core.local_tensor(dt, 64) for _ in range(3))
        refused(core, aj.UnsupportedDTypeError, lambda: fn(d, a, b, 64), match="ReinterpretCast")
        refused(core, aj.UnsupportedDTypeError,
                lambda: fn(d, a, b, 64, 1, aj.BinaryRepeatParams()), match="ReinterpretCast")
    core = make_core(device)
    a, b, d = (core.local_tensor("uint16", 128) for _ in range(3))
    x, y = np.arange(128, dtype=np.uint16) * 517, np.arange(128, dtype=np.uint16) * 9001
    put(a, x, np.uint16)
    put(b, y, np.uint16)
    before = core.ub.copy()
    fn(d, a, b, 128)
    expect_ub(core, before, d, (x & y) if name == "And" else (x | y), np.uint16)


@pytest.mark.parametrize("dt", ["int32", "uint32"])
def test_d60_and_or_32bit_work_on_950(dt):
    """SPEC-2 D60 names the non-950 devices only: the 950 computes 32-bit And/Or bitwise."""
    core = make_core("ascend950")
    a, b, d, e = (core.local_tensor(dt, 64) for _ in range(4))
    rng = np.random.default_rng(60)
    x, y = (rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32) for _ in range(2))
    put(a, x, np.uint32)
    put(b, y, np.uint32)
    before = core.ub.copy()
    aj.And(d, a, b, 64)
    aj.Or(e, a, b, 64)
    exp = before.copy()
    exp[d.addr:d.addr + 256] = (x & y).view(np.uint8)
    exp[e.addr:e.addr + 256] = (x | y).view(np.uint8)
    assert np.array_equal(core.ub, exp)


# ----------------------------------------------------------------------------------------------------------- D61

@pytest.mark.parametrize("device", DEVICES)
def test_d61_brcb_dst_blk_stride_zero_refused(device):
    """SPEC-2 D61: Brcb with dstBlkStride 0 is a ParameterError (undefined behaviour wins over the pseudocode),
    every device and dtype offering Brcb, UB unchanged; stride 1 broadcasts each src element over a DataBlock."""
    dts = dtypes_of("Brcb", device)
    for dt in dts:
        core = make_core(device)
        size = SIZES[dt]
        per_block = 32 // size
        src, dst = core.local_tensor(dt, 8), core.local_tensor(dt, 8 * per_block)
        raw = np.arange(1, 9, dtype=np.uint8)
        core.ub[src.addr:src.addr + 8 * size] = 0
        core.ub[src.addr:src.addr + 8 * size:size] = raw  # element k has low byte k+1
        core.ub_written_by_host(src.addr, 8 * size)
        refused(core, aj.ParameterError, lambda: aj.Brcb(dst, src, 1, aj.BrcbRepeatParams(0, 8)))
        before = core.ub.copy()
        aj.Brcb(dst, src, 1, aj.BrcbRepeatParams(1, 8))
        exp = before.copy()
        blocks = np.repeat(core.ub[src.addr:src.addr + 8 * size].reshape(8, size), per_block, axis=0)
        exp[dst.addr:dst.addr + 256] = blocks.reshape(-1)
        assert np.array_equal(core.ub, exp), (device, dt)
    if not dts:
        assert not INSTR["Brcb"].offered(aj.get_device(device))


# ----------------------------------------------------------------------------------------------------------- D51

def _block_fill(device, dt, rtype, sat):
    """SPEC-2 §8.2 table under D51: the value a fully masked DataBlock gets, or None (not written)."""
    if device in ("atlas-a2", "atlas-a3", "atlas-inference-aicore", "atlas-training"):
        return None
    half = dt == "half"
    if rtype == "SUM":
        v = 0.0
    elif device == "atlas-200i-500-a2":
        v = (-65504.0 if half else -np.inf) if rtype == "MAX" else (65504.0 if half else np.inf)
    else:
        v = -np.inf if rtype == "MAX" else np.inf
        if half and is_sat(device, sat):
            v = -65504.0 if rtype == "MAX" else 65504.0
    return v


@pytest.mark.parametrize("device", DEVICES)
def test_d51_reduce_data_block_fully_masked_block(device):
    """SPEC-2 D51 / §8.2: a DataBlock whose lanes are all masked is not written on A2/A3/310P/910 and is filled on
    310B/950 (310B MAX/MIN half ±65504, float ±inf; 950 ±inf, SAT in saturation mode). Both API names."""
    for dt in dtypes_of("ReduceDataBlock", device):
        npt, view = (np.float16, np.uint16) if dt == "half" else (np.float32, np.uint32)
        per = 32 // npt().itemsize
        for rtype in ("SUM", "MAX", "MIN"):
            for sat in ((False, True) if (dt == "half" and device == "ascend950") else (False,)):
                for old_name in (False, True):
                    core = make_core(device, sat)
                    src, dst = core.local_tensor(dt, 8 * per), core.local_tensor(dt, 8)
                    x = np.arange(8 * per, dtype=npt) - 3
                    put(src, x, npt)
                    before = core.ub.copy()
                    mask = [(1 << per) - 1] + ([0] if dt == "half" else [])  # block 0 only
                    if old_name:
                        getattr(aj, "BlockReduce" + rtype.capitalize())(dst, src, 1, mask, 1, 1, 8)
                    else:
                        aj.ReduceDataBlock(dst, src, mask, 1, 1, 1, 8,
                                           reduce_type=getattr(aj.ReduceType, rtype))
                    blk = x[:per].astype(np.float64)
                    first = {"SUM": blk.sum(), "MAX": blk.max(), "MIN": blk.min()}[rtype]
                    fill = _block_fill(device, dt, rtype, sat)
                    got = core.ub[dst.addr:dst.addr + 8 * npt().itemsize].view(view)
                    assert int(got[0]) == int(npt(first).view(view)), (device, dt, rtype)
                    rest = (int(before[dst.addr:dst.addr + 8 * npt().itemsize].view(view)[1])
                            if fill is None else int(npt(fill).view(view)))
                    expect_ub(core, before, dst, [got[0]] + [rest] * 7, view)


# ----------------------------------------------------------------------------------------------------------- D52

def _rmax(core, dst, src, dt, *args, cal_index=True, fn=None):
    tmp_n = aj.GetReduceMaxMinTmpSize(core.device if isinstance(core.device, str) else core.device.name, dt,
                                      **({"count": args[0]} if len(args) == 1 else {"repeat_time": args[1]}),
                                      cal_index=cal_index)
    tmp = core.local_tensor(dt, max(tmp_n, 16))
    before = core.ub.copy()
    (fn or aj.ReduceMax)(dst, src, tmp, *args, cal_index)
    # D54: the first `minimum` tmp elements are unspecified: restore them before the whole-UB comparison
    sz = 2 if dt == "half" else 4
    core.ub[tmp.addr:tmp.addr + tmp_n * sz] = before[tmp.addr:tmp.addr + tmp_n * sz]
    return before


@pytest.mark.parametrize("device", [d for d in NON950])
def test_d52_per_repeat_saturation_then_earliest_repeat(device):
    """SPEC-2 D52: each repeat's value goes through D35 before the repeats are compared, ties go to the earliest
    repeat: repeat 0 holds 65504 (lane 9), repeat 1 holds +inf (lane 3). Saturating: 65504 vs 65504, index 9;
    INF/NaN: +inf wins, index 128 + 3."""
    for sat in (False, True):
        if sat and not (device in SAT_SWITCH or device in SAT_FIXED):
            continue
        if not sat and device in SAT_FIXED:
            continue
        core = make_core(device, sat)
        src, dst = core.local_tensor("half", 256), core.local_tensor("half", 16)
        x = np.zeros(256, np.float16)
        x[9], x[128 + 3] = 65504, np.inf
        put(src, x, np.float16)
        before = _rmax(core, dst, src, "half", 256)
        want = [0x7BFF, 9] if is_sat(device, sat) else [0x7C00, 131]
        expect_ub(core, before, dst, want, np.uint16)


@pytest.mark.parametrize("device", NON950)
def test_d52_count_tail_compared_last_ties_to_body(device):
    """SPEC-2 D52: count form, the tail repeat is compared last and a tie goes to the body."""
    for tail_val, want_idx in ((7.0, 10), (8.0, 129)):
        core = make_core(device)
        src, dst = core.local_tensor("half", 144), core.local_tensor("half", 16)
        x = np.zeros(144, np.float16)
        x[10], x[129] = 7, tail_val
        put(src, x, np.float16)
        before = _rmax(core, dst, src, "half", 133)
        expect_ub(core, before, dst, [hbits(max(7.0, tail_val)), want_idx], np.uint16)


@pytest.mark.parametrize("device", NON950)
def test_d52_high_dim_index_uses_src_rep_stride(device):
    """SPEC-2 D52: index = repeat·srcRepStride·(32/sizeof T) + lane (srcRepStride 16: repeat 1 lane 4 → 260);
    ReduceMin likewise."""
    for fn, v in ((aj.ReduceMax, 5.0), (aj.ReduceMin, -5.0)):
        core = make_core(device)
        src, dst = core.local_tensor("half", 512), core.local_tensor("half", 16)
        x = np.zeros(512, np.float16)
        x[256 + 4] = v
        put(src, x, np.float16)
        before = _rmax(core, dst, src, "half", 128, 2, 16, fn=fn)
        expect_ub(core, before, dst, [hbits(v), 260], np.uint16)


@pytest.mark.parametrize("device", NON950)
def test_d52_high_dim_counter_mode_refused(device):
    """SPEC-2 D52: a high-dim ReduceMax/ReduceMin in counter mode is a StateError, nothing written."""
    core = make_core(device)
    src, dst = core.local_tensor("half", 256), core.local_tensor("half", 16)
    tmp = core.local_tensor("half", 512)
    core.SetMaskCount()
    for fn in (aj.ReduceMax, aj.ReduceMin):
        refused(core, aj.StateError, lambda: fn(dst, src, tmp, 128, 2, 8, True))


def test_d52_half_index_past_65535_refused():
    """SPEC-2 D52: calIndex with half and a possible index > 65535 is refused (ParameterError); 65536 elements
    (largest index 65535) are accepted; without calIndex the long count is fine."""
    core = make_core("atlas-a2")
    src, dst = core.local_tensor("half", 65600), core.local_tensor("half", 16)
    x = np.zeros(65600, np.float16)
    x[65535] = 3
    put(src, x, np.float16)
    tmp = core.local_tensor("half", aj.GetReduceMaxMinTmpSize("atlas-a2", "half", count=65600, cal_index=True))
    refused(core, aj.ParameterError, lambda: aj.ReduceMax(dst, src, tmp, 65537, True))
    aj.ReduceMax(dst, src, tmp, 65536, True)
    assert list(dst.numpy()[:2].view(np.uint16)) == [hbits(3), 65535]


# ----------------------------------------------------------------------------------------------------------- D53

def test_d53_950_seeds_and_nan_index():
    """SPEC-2 D53: 950 ReduceMax/Min start from the finite extreme: all −inf → −65504 / −FLT_MAX (MIN: all +inf →
    +65504 / FLT_MAX); a NaN result has index 0xFFFE (16-bit) / 0xFFFFFFFE (32-bit)."""
    for dt, npt, view, big, nan, nan_idx in (("half", np.float16, np.uint16, 0x7BFF, HALF_NAN, 0xFFFE),
                                             ("float", np.float32, np.uint32, 0x7F7FFFFF, FLOAT_NAN, 0xFFFFFFFE)):
        n = 256 // npt().itemsize
        for fn, fill, want in ((aj.ReduceMax, -np.inf, big | (0x8000 if dt == "half" else 0x80000000)),
                               (aj.ReduceMin, np.inf, big)):
            core = make_core("ascend950")
            src, dst = core.local_tensor(dt, n), core.local_tensor(dt, 8)
            put(src, np.full(n, fill, npt), npt)
            before = _rmax(core, dst, src, dt, n, cal_index=False, fn=fn)
            expect_ub(core, before, dst, [want], view)
            x = np.arange(n, dtype=npt)
            x[7] = np.nan
            core = make_core("ascend950")
            src, dst = core.local_tensor(dt, n), core.local_tensor(dt, 8)
            put(src, x, npt)
            before = _rmax(core, dst, src, dt, n, fn=fn)
            expect_ub(core, before, dst, [nan, nan_idx], view)


def test_d53_950_high_dim_counter_mode_low_32_bits():
    """SPEC-2 D53 (as SPEC D23): 950 high-dim ReduceMax in counter mode reduces the first (mask & 0xFFFFFFFF)
    elements; repeat_time is ignored."""
    core = make_core("ascend950")
    src, dst = core.local_tensor("half", 512), core.local_tensor("half", 8)
    x = np.zeros(512, np.float16)
    x[199], x[200] = 5, 9  # element 200 lies past a count of 200
    put(src, x, np.float16)
    core.SetMaskCount()
    tmp = core.local_tensor("half", 16)
    before = core.ub.copy()
    aj.ReduceMax(dst, src, tmp, [(1 << 32) | 200, 0], 1, 8, True)
    core.ub[tmp.addr:tmp.addr + 32] = before[tmp.addr:tmp.addr + 32]
    expect_ub(core, before, dst, [hbits(5), 199], np.uint16)


# ----------------------------------------------------------------------------------------------------------- D49

def _f32_neighbours(c):
    c = np.float32(c)
    return np.nextafter(c, np.float32(0)), c, np.nextafter(c, np.float32(np.inf))


def rn_sqrt_f32(x):
    """RN_float(√x): float64 sqrt is correctly rounded and 53 ≥ 2·24 + 2 makes the second rounding innocuous."""
    return np.float32(np.sqrt(np.float64(x)))


def rn_rsqrt_f32(x):
    """RN_float(1/√x) exactly: among the float32 neighbours of an estimate, the one whose midpoints bracket
    1/√x (m < 1/√x ⇔ m²·x < 1, exact in Fraction)."""
    fx = Fraction(float(x))
    lo, c, hi = _f32_neighbours(1 / np.sqrt(np.float64(x)))
    for cand in (lo, c, hi):
        p, q = _f32_neighbours(cand)[0], _f32_neighbours(cand)[2]
        m_lo = (Fraction(float(p)) + Fraction(float(cand))) / 2
        m_hi = (Fraction(float(cand)) + Fraction(float(q))) / 2
        if m_lo * m_lo * fx < 1 < m_hi * m_hi * fx:
            return cand
    raise AssertionError(x)


D49_INPUTS = np.array([0x7E800000, 0x7E800001, 0x7F7FFFFF, 0x7F800000, 0x80000000, 0x00000000, 0xBF800000,
                       0x7FC00000, 0x00000001, 0x00400000, 0x40800000, 0x40000000, 0x3F800001, 0x7E7FFFFF],
                      np.uint32)


@pytest.mark.parametrize("algo", ["FAST_INVERSE", "PRECISION_0ULP_FTZ_FALSE"])
@pytest.mark.parametrize("name", ["Sqrt", "Rsqrt"])
def test_d49_950_float_fast_domain(name, algo):
    """SPEC-2 D49: 950 float Sqrt/Rsqrt with FAST_INVERSE / PRECISION_0ULP_FTZ_FALSE: x > 2^126 gives +0 (Sqrt) /
    +inf (Rsqrt); 2^126 itself is in the domain; subnormals kept; IEEE specials."""
    core = make_core("ascend950")
    src, dst = core.local_tensor("float", 16), core.local_tensor("float", 16)
    put(src, np.concatenate([D49_INPUTS, np.full(2, 0x40800000, np.uint32)]), np.uint32)
    before = core.ub.copy()
    cfg_cls, algo_cls = (aj.SqrtConfig, aj.SqrtAlgo) if name == "Sqrt" else (aj.RsqrtConfig, aj.RsqrtAlgo)
    getattr(aj, name)(dst, src, 16, config=cfg_cls(getattr(algo_cls, algo)))
    want = []
    for b in np.concatenate([D49_INPUTS, np.full(2, 0x40800000, np.uint32)]):
        x = np.uint32(b).view(np.float32)
        if np.isnan(x) or x < 0:
            want.append(FLOAT_NAN)
        elif x == 0:
            want.append(int(b) if name == "Sqrt" else (0xFF800000 if b else 0x7F800000))
        elif np.isinf(x):
            want.append(0x7F800000 if name == "Sqrt" else 0)
        elif int(b) > 0x7E800000:
            want.append(0 if name == "Sqrt" else 0x7F800000)
        else:
            want.append(fbits(rn_sqrt_f32(x) if name == "Sqrt" else rn_rsqrt_f32(x)))
    expect_ub(core, before, dst, want, np.uint32)


# ----------------------------------------------------------------------------------------------------------- D40

def _half_rn(x):
    return np.float16(np.float64(x))  # numpy rounds float64 → half once (RNE)


def test_d40_950_rsqrt_half_is_div_of_sqrt():
    """SPEC-2 D40 (with D38 DAZ/FTZ for INTRINSIC and D75 for the specials): 950 half Rsqrt = Div(1, Sqrt(x)), two
    RNE roundings, over every positive finite half; subnormal inputs read as +0 → +inf. The model differs from a
    single rounding somewhere, so the test can tell them apart."""
    core = make_core("ascend950")
    bits = np.arange(1, 0x7C00, dtype=np.uint16)
    n = bits.size + (-bits.size) % 16
    src, dst = core.local_tensor("half", n), core.local_tensor("half", n)
    put(src, np.concatenate([bits, np.full(n - bits.size, 0x3C00, np.uint16)]), np.uint16)
    before = core.ub.copy()
    aj.Rsqrt(dst, src, n)
    x = np.concatenate([bits, np.full(n - bits.size, 0x3C00, np.uint16)]).view(np.float16).astype(np.float64)
    s = _half_rn(np.sqrt(x)).astype(np.float64)
    two = _half_rn(1.0 / s)
    two[x < 2.0 ** -14] = np.inf  # DAZ: subnormal → +0 → Rsqrt(+0) = +inf (D75 special table)
    one = _half_rn(1.0 / np.sqrt(x))
    assert np.any(two[x >= 2.0 ** -14].view(np.uint16) != one[x >= 2.0 ** -14].view(np.uint16))
    expect_ub(core, before, dst, two.view(np.uint16), np.uint16)


def test_d40_950_reciprocal_half_ftz():
    """SPEC-2 D40 / D38: 950 half Reciprocal = Div(1.0, x) INTRINSIC: one RNE rounding, and a subnormal result
    (|x| > 2^14) flushed to a zero of x's sign; subnormal x read as ±0 → ±inf."""
    core = make_core("ascend950")
    xs = np.array([65504, -65504, 20000, 3, -7, 2.0 ** -14, 2.0 ** -20, -(2.0 ** -20), 0.1, 16384, 16385, 1,
                   -0.0, 0.0, 1000, 0.5], np.float16)
    src, dst = core.local_tensor("half", 16), core.local_tensor("half", 16)
    put(src, xs, np.float16)
    before = core.ub.copy()
    aj.Reciprocal(dst, src, 16)
    want = []
    for x in xs.astype(np.float64):
        if abs(x) < 2.0 ** -14:
            want.append(0x7C00 if not np.signbit(x) else 0xFC00)
            continue
        r = _half_rn(1.0 / x)
        if abs(float(r)) < 2.0 ** -14:
            r = np.float16(-0.0) if x < 0 else np.float16(0.0)
        want.append(int(r.view(np.uint16)))
    expect_ub(core, before, dst, want, np.uint16)


def _bf16(x32):
    """RNE float32 → bfloat16 bits (finite inputs)."""
    b = int(np.float32(x32).view(np.uint32))
    return (b + 0x7FFF + ((b >> 16) & 1)) >> 16


def test_d40_950_axpy_bf16_two_stages():
    """SPEC-2 D40 / §6.3: 950 bfloat16 Axpy = Mul(src, scalar) then Add(…, dst), each rint_to_bf16 of the float op:
    (1+2^-7)² rounds to 1+2^-6 first, so adding −(1+2^-6) gives +0 where a fused op gives 2^-14."""
    core = make_core("ascend950")
    src, dst = core.local_tensor("bfloat16", 16), core.local_tensor("bfloat16", 16)
    a = np.float32(1 + 2 ** -7)
    d = np.array([-(1 + 2 ** -6), -1, 0.5, 3, -2, 1, 0, -0.25] * 2, np.float32)
    put(src, np.full(16, _bf16(a), np.uint16), np.uint16)
    put(dst, [_bf16(v) for v in d], np.uint16)
    before = core.ub.copy()
    aj.Axpy(dst, src, aj.ToBfloat16(float(a)), 16)
    p = np.float32(np.uint32(_bf16(np.float32(a) * np.float32(a)) << 16).view(np.float32))
    want = [_bf16(np.float32(p + np.float32(v))) for v in d]
    assert want[0] == 0
    expect_ub(core, before, dst, want, np.uint16)


# ----------------------------------------------------------------------------------------------------------- D74

B_ROWS = {  # scalar, src, dst → (INF/NaN, saturation) for the 950 (D74) and the others (SPEC-2 12.2)
    "B-23": ((np.inf, 65504.0, -np.inf), ("nan", 0.0), ("nan", -65504.0)),
    "B-24": ((0.0, np.inf, np.inf), ("nan", 0.0), ("nan", 65504.0)),
    "B-25": ((1.0, 65504.0, -65504.0), (0.0, 0.0), (0.0, 0.0)),
    "B-26": ((1.0, 0.0, -0.0), (0.0, 0.0), (0.0, 0.0)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("row", sorted(B_ROWS))
def test_d74_axpy_boundary_rows(device, row):
    """SPEC-2 D74 / §12.2 B-23..B-26 on half Axpy, both half modes where the device has them; the 950 is one fused
    stage (NaN / +0), the others D39 (NaN / ±65504 for B-23/B-24); B-25/B-26 +0 everywhere."""
    (s, x, d), r950, rother = B_ROWS[row]
    for sat in (False, True):
        if (sat and device not in SAT_SWITCH + SAT_FIXED) or (not sat and device in SAT_FIXED):
            continue
        if "half" not in dtypes_of("Axpy", device):
            continue
        core = make_core(device, sat)
        src, dst = core.local_tensor("half", 16), core.local_tensor("half", 16)
        put(src, np.full(16, x, np.float16), np.float16)
        put(dst, np.full(16, d, np.float16), np.float16)
        before = core.ub.copy()
        aj.Axpy(dst, src, np.float16(s), 16)
        res = (r950 if device == "ascend950" else rother)[1 if is_sat(device, sat) else 0]
        want = HALF_NAN if res == "nan" else hbits(res)
        expect_ub(core, before, dst, [want] * 16, np.uint16)


@pytest.mark.parametrize("name", ["MulAddDst", "FusedMulAdd"])
def test_d74_950_fused_multiply_add_rows(name):
    """SPEC-2 D74 / §6.3: on the 950 every same-type half multiply-add is one fused stage: +inf·MAX + (−inf) is NaN
    (INF/NaN) / +0 (saturation), MAX·1 + MIN = +0. MulAddDst: src0·src1 + dst; FusedMulAdd: src0·dst + src1."""
    for sat in (False, True):
        core = make_core("ascend950", sat)
        a, b, d = (core.local_tensor("half", 16) for _ in range(3))
        fa = np.array([np.inf] * 8 + [65504.0] * 8, np.float16)
        fb = np.array([65504.0] * 8 + [1.0] * 8, np.float16)
        c = np.array([-np.inf] * 8 + [-65504.0] * 8, np.float16)
        if name == "MulAddDst":
            put(a, fa, np.float16), put(b, fb, np.float16), put(d, c, np.float16)
        else:
            put(a, fa, np.float16), put(d, fb, np.float16), put(b, c, np.float16)
        before = core.ub.copy()
        getattr(aj, name)(d, a, b, 16)
        expect_ub(core, before, d, [0 if sat else HALF_NAN] * 8 + [0] * 8, np.uint16)


# ----------------------------------------------------------------------------------------------------------- D73

def _mp_round(v, fmt):
    """Correctly rounded (RNE) value of an mpmath real in half / float, subnormals kept."""
    npt = np.float16 if fmt == "half" else np.float32
    c = npt(float(v))
    best = None
    for k in (np.nextafter(c, npt(-np.inf)), c, np.nextafter(c, npt(np.inf))):
        err = abs(mpmath.mpf(float(k)) - v)
        if best is None or err < best[0]:
            best = (err, k)
    return best[1]


@pytest.mark.parametrize("device", DEVICES)
def test_d73_sqrt_max_rows_follow_rne(device):
    """SPEC-2 D73: the model's exact-then-RNE result, not the table's 1-ulp-off values: Sqrt(half 65504) = 0x5BFF
    (table 0x5C00), Sqrt(FLT_MAX) = 0x5F7FFFFF (table 0x5F800000), on every device."""
    core = make_core(device)
    h_src, h_dst = core.local_tensor("half", 16), core.local_tensor("half", 16)
    f_src, f_dst = core.local_tensor("float", 8), core.local_tensor("float", 8)
    put(h_src, np.full(16, 65504, np.float16), np.float16)
    put(f_src, np.full(8, 0x7F7FFFFF, np.uint32), np.uint32)
    mpmath.mp.prec = 200
    assert hbits(_mp_round(mpmath.sqrt(65504), "half")) == 0x5BFF
    assert fbits(_mp_round(mpmath.sqrt(mpmath.mpf(float(np.finfo(np.float32).max))), "float")) == 0x5F7FFFFF
    before = core.ub.copy()
    aj.Sqrt(h_dst, h_src, 16)
    expect_ub(core, before, h_dst, [0x5BFF] * 16, np.uint16)
    before = core.ub.copy()
    aj.Sqrt(f_dst, f_src, 8)
    expect_ub(core, before, f_dst, [0x5F7FFFFF] * 8, np.uint32)


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-a3"])
def test_d73_rne_rows_bit_exact_on_a2_a3(device):
    """SPEC-2 D73: the boundary rows that agree with RNE are bit for bit on A2/A3: Ln half MAX 11.09375, Rsqrt half
    MAX 2^-8, Reciprocal half MAX 2^-16 (subnormal kept, D38), and the float MAX rows of Ln/Rsqrt/Reciprocal."""
    mpmath.mp.prec = 200
    fmax = mpmath.mpf(float(np.finfo(np.float32).max))
    cases = {"Ln": (11.09375, mpmath.log(65504), mpmath.log(fmax)),
             "Rsqrt": (2.0 ** -8, 1 / mpmath.sqrt(65504), 1 / mpmath.sqrt(fmax)),
             "Reciprocal": (2.0 ** -16, 1 / mpmath.mpf(65504), 1 / fmax)}
    for name, (table, hexact, fexact) in cases.items():
        hwant = hbits(table)
        assert hbits(_mp_round(hexact, "half")) == hwant  # the row agrees with RNE
        core = make_core(device)
        h_src, h_dst = core.local_tensor("half", 16), core.local_tensor("half", 16)
        f_src, f_dst = core.local_tensor("float", 8), core.local_tensor("float", 8)
        put(h_src, np.full(16, 65504, np.float16), np.float16)
        put(f_src, np.full(8, 0x7F7FFFFF, np.uint32), np.uint32)
        before = core.ub.copy()
        getattr(aj, name)(h_dst, h_src, 16)
        expect_ub(core, before, h_dst, [hwant] * 16, np.uint16)
        before = core.ub.copy()
        getattr(aj, name)(f_dst, f_src, 8)
        expect_ub(core, before, f_dst, [fbits(_mp_round(fexact, "float"))] * 8, np.uint32)


# ----------------------------------------------------------------------------------------------------------- D72

@pytest.mark.parametrize("device", DEVICES)
def test_d72_compare_continuous_mask_28(device):
    """SPEC-2 D72 / D44: Compare.md's continuous-mask (28) float example gives [255 255 255 15 0 0 0 0] on 950/310B
    (mask effective, masked lanes 0 bits), and all 64 bits on the devices that ignore the mask."""
    if "float" not in dtypes_of("Compare", device):
        pytest.skip("no float Compare")
    core = make_core(device)
    a, b = core.local_tensor("float", 64), core.local_tensor("float", 64)
    dst = core.local_tensor("uint8", 32)
    put(a, np.zeros(64, np.float32), np.float32)
    put(b, np.ones(64, np.float32), np.float32)
    before = core.ub.copy()
    aj.Compare(dst, a, b, aj.CMPMODE.LT, 28, 1, aj.BinaryRepeatParams())
    want = [255, 255, 255, 15, 0, 0, 0, 0] if device in ("ascend950", "atlas-200i-500-a2") else [255] * 8
    expect_ub(core, before, dst, want, np.uint8)


@pytest.mark.parametrize("device", DEVICES)
def test_d72_cast_half_to_int32_cast_none_and_mask_hi_refused(device):
    """SPEC-2 D72: half→int32 CAST_NONE is refused (UnsupportedDTypeError); a bit mask with a non-zero mask[1] for
    32-bit lanes is refused (the Cast.md example {0, UINT64_MAX}); CAST_RINT with mask[0] works."""
    core = make_core(device)
    src, dst = core.local_tensor("half", 64), core.local_tensor("int32", 64)
    put(src, np.arange(64, dtype=np.float16) + np.float16(0.5), np.float16)
    try:
        aj.Cast(core.local_tensor("int32", 64), src, aj.RoundMode.CAST_RINT, 64)
    except aj.UnsupportedDTypeError:
        pytest.skip("half→int32 not offered")
    core.ub[:] = SENT
    put(src, np.arange(64, dtype=np.float16) + np.float16(0.5), np.float16)
    refused(core, aj.UnsupportedDTypeError, lambda: aj.Cast(dst, src, aj.RoundMode.CAST_NONE, 64))
    refused(core, aj.ParameterError,
            lambda: aj.Cast(dst, src, aj.RoundMode.CAST_RINT, [0, 2**64 - 1], 1, aj.UnaryRepeatParams(1, 1, 8, 4)))
    f0, f1, f2 = (core.local_tensor("float", 64) for _ in range(3))  # the same rule for every 32-bit-lane call
    refused(core, aj.ParameterError, lambda: aj.Add(f2, f0, f1, [1, 1], 1, aj.BinaryRepeatParams()))
    refused(core, aj.ParameterError,
            lambda: aj.Cast(f2, src, aj.RoundMode.CAST_NONE, [0, 2**64 - 1], 1, aj.UnaryRepeatParams(1, 1, 8, 4)))
    before = core.ub.copy()
    aj.Cast(dst, src, aj.RoundMode.CAST_RINT, [2**64 - 1, 0], 1, aj.UnaryRepeatParams(1, 1, 8, 4))
    expect_ub(core, before, dst, np.rint(np.arange(64) + 0.5).astype(np.int32), np.int32)


# ----------------------------------------------------------------------------------------------------------- D70

def test_d70_950_whole_248k_usable():
    """SPEC-2 D70: the 950's 8 KB high-dim reservation is not modelled: a high-dim Add may write the UB's last
    bytes (253952 B), and a byte past it is refused."""
    core = make_core("ascend950")
    ub = core.ub.size
    assert ub == 253952
    with core:
        assert aj.GetUBSizeInBytes() == 253952
        x = core.local_tensor("half", 128, addr=0)
        y = core.local_tensor("half", 128, addr=256)
        d = core.local_tensor("half", 128, addr=ub - 256)
        put(x, np.arange(128, dtype=np.float16), np.float16)
        put(y, np.ones(128, np.float16), np.float16)
        before = core.ub.copy()
        aj.Add(d, x, y, 128, 1, aj.BinaryRepeatParams())
        expect_ub(core, before, d, np.arange(128, dtype=np.float16) + np.float16(1), np.float16)
        refused(core, aj.AscendJitError,
                lambda: aj.Add(core.local_tensor("half", 128, addr=ub - 240), x, y, 128, 1, aj.BinaryRepeatParams()))


# ----------------------------------------------------------------------------------------------------------- D63

def test_d63_maskreg_outputs_written_in_place_and_new_masks():
    """SPEC-2 D63: Add carry and the MaskReg ops write into the MaskReg object passed; UpdateMask, CreateMask and
    MoveMask return new MaskReg objects."""
    core = make_core("ascend950")
    with core:
        a, b, d = R.RegTensor("uint32"), R.RegTensor("uint32"), R.RegTensor("uint32")
        R.Duplicate(a, np.uint32(0xFFFFFFFF))
        R.Duplicate(b, np.uint32(1))
        carry = R.MaskReg()
        ident = id(carry)
        full = R.CreateMask("uint32")
        R.Add(carry, d, a, b, full)
        assert id(carry) == ident and carry.lanes("uint32") == list(range(64))  # every lane carried out
        assert d.numpy().tolist() == [0] * 64
        m1, rest = R.UpdateMask("half", 200)
        m2, _ = R.UpdateMask("half", rest)
        assert m1 is not m2 and rest == 72
        c1, c2 = R.CreateMask("half"), R.CreateMask("half")
        assert c1 is not c2
        out = R.MaskReg()
        R.Not(out, c1, c2)
        assert out.bits() == 0 and c1.bits() == (1 << 256) - 1  # sources untouched
        assert R.MoveMask("half") is not R.MoveMask("half")


# ----------------------------------------------------------------------------------------------------------- D64

def _words(v):
    return [(v >> (64 * i)) & (2**64 - 1) for i in range(4)]


def test_d64_mask_register_operations():
    """SPEC-2 D64: Pack/UnPack (LOWEST/HIGHEST), Interleave/DeInterleave per element width, And/Or/Xor/Not/Move
    with a mask, on random 256-bit values, against a model written from the D's words."""
    rng = np.random.default_rng(64)
    core = make_core("ascend950")
    full = (1 << 256) - 1
    bit = lambda v, i: (v >> i) & 1  # noqa: E731
    with core:
        for _ in range(6):
            s0, s1, m = (int.from_bytes(rng.bytes(32), "little") for _ in range(3))
            A, B, M = R.MaskReg(_words(s0)), R.MaskReg(_words(s1)), R.MaskReg(_words(m))
            for part, off in ((R.HighLowPart.LOWEST, 0), (R.HighLowPart.HIGHEST, 128)):
                d = R.MaskReg()
                R.Pack(d, A, part)
                assert d.bits() == sum(bit(s0, 2 * k) << (k + off) for k in range(128))
                R.UnPack(d, A, part)
                assert d.bits() == sum(bit(s0, k + off) << (2 * k) for k in range(128))
            for T, g in (("uint8", 1), ("half", 2), ("float", 4)):
                n = 256 // g
                grp = lambda v, k: (v >> (g * k)) & ((1 << g) - 1)  # noqa: E731
                seq = [x for k in range(n) for x in (grp(s0, k), grp(s1, k))]
                d0, d1 = R.MaskReg(), R.MaskReg()
                R.Interleave(d0, d1, A, B, T)
                assert d0.bits() == sum(v << (g * k) for k, v in enumerate(seq[:n]))
                assert d1.bits() == sum(v << (g * k) for k, v in enumerate(seq[n:]))
                cat = [grp(s0, k) for k in range(n)] + [grp(s1, k) for k in range(n)]
                R.DeInterleave(d0, d1, A, B, T)
                assert d0.bits() == sum(v << (g * k) for k, v in enumerate(cat[0::2]))
                assert d1.bits() == sum(v << (g * k) for k, v in enumerate(cat[1::2]))
            d = R.MaskReg(_words(full))
            for op, want in ((R.And, s0 & s1), (R.Or, s0 | s1), (R.Xor, s0 ^ s1)):
                op(d, A, B, M)
                assert d.bits() == want & m
            R.Not(d, A, M)
            assert d.bits() == (~s0 & full) & m
            R.Move(d, A, M)
            assert d.bits() == s0 & m


# ----------------------------------------------------------------------------------------------------------- D66

NP = {"half": np.float16, "float": np.float32, "int16": np.int16, "uint16": np.uint16, "int32": np.int32,
      "uint32": np.uint32}
SUM_DST = {"int16": "int32", "uint16": "uint32"}  # SPEC-2 11.4: the widening SUM pairs


def _reduce(T, values, mask, rtype):
    Td = SUM_DST.get(T, T) if rtype == R.ReduceType.SUM else T
    a, d = R.RegTensor(T), R.RegTensor(Td)
    a.data[:256] = np.asarray(values, NP[T]).view(np.uint8)
    R.Duplicate(d, NP[Td](7))
    R.Reduce(d, a, mask, rtype)
    return d.numpy()


def test_d66_reg_reduce_identities_and_outputs():
    """SPEC-2 D66 / §11.4: Reg Reduce all-masked SUM → +0, MAX/MIN → −inf/+inf (half/float) or the type's MIN/MAX
    (integers) with index 0; lane 0 value, lane 1 index (MAX/MIN), every other lane 0; integer SUM wraps."""
    core = make_core("ascend950")
    empty = R.MaskReg()
    with core:
        for T, lo, hi in (("half", -np.inf, np.inf), ("float", -np.inf, np.inf), ("int16", -32768, 32767),
                          ("uint16", 0, 65535), ("int32", -2**31, 2**31 - 1), ("uint32", 0, 2**32 - 1)):
            npt = np.dtype(NP[T])
            n = 256 // npt.itemsize
            u = f"u{npt.itemsize}"
            vals = (np.arange(n) % 50).astype(npt)
            out = _reduce(T, vals, empty, R.ReduceType.SUM)
            assert not out.view(f"u{out.dtype.itemsize}").any(), T
            for rt, ident in ((R.ReduceType.MAX, lo), (R.ReduceType.MIN, hi)):
                out = _reduce(T, vals, empty, rt)
                assert out[:1].view(u)[0] == np.array([ident], npt).view(u)[0], (T, rt, out[0])
                assert out[1:].view(u).tolist() == [0] * (n - 1), (T, rt)
            vals[n // 2 + 3] = 60
            out = _reduce(T, vals, R.CreateMask(T), R.ReduceType.MAX)
            ub = out.view(u)
            assert out[0] == npt.type(60) and int(ub[1]) == n // 2 + 3 and ub[2:].tolist() == [0] * (n - 2), T
        out = _reduce("int32", np.full(64, 2**31 - 1, np.int32), R.CreateMask("int32"), R.ReduceType.SUM)
        assert out.tolist() == [((2**31 - 1) * 64 + 2**31) % 2**32 - 2**31] + [0] * 63
        out = _reduce("uint32", np.full(64, 2**31, np.uint32), R.CreateMask("uint32"), R.ReduceType.SUM)
        assert out.tolist() == [0] * 64
        out = _reduce("int16", np.full(128, -300, np.int16), R.CreateMask("int16"), R.ReduceType.SUM)
        assert out.tolist() == [-38400] + [0] * 63  # int32 dst: widened, no wrap


# ------------------------------------------------------------------ D52 / D53: the whole algorithms, randomised

def _key(v):
    """D41's total order: −inf < negatives < −0 < +0 < positives < +inf (NaN handled by the callers)."""
    return (float(v), not np.signbit(v))


def _ext(a, b, is_max):
    if np.isnan(a) or np.isnan(b):
        return a if np.isnan(a) else b
    better = _key(b) > _key(a) if is_max else _key(b) < _key(a)
    return b if better else a


def _sat(v, npt, sat):
    if npt is np.float16 and sat:
        if np.isnan(v):
            return npt(0.0)
        if np.isinf(v):
            return npt(65504.0 if v > 0 else -65504.0)
    return v


def _extreme_d50(vals, is_max):
    """D50: (value, first lane); a NaN among the lanes gives NaN at the first NaN lane."""
    for j, v in enumerate(vals):
        if np.isnan(v):
            return v, j
    best, bj = vals[0], 0
    for j, v in enumerate(vals):
        if _key(v) != _key(best) and _ext(best, v, is_max) is v:
            best, bj = v, j
    return best, bj


def model_non950(x, npt, is_max, sat, count=None, mask=None, repeat=None, rep_stride=None):
    """SPEC-2 D52 / §8.3.2, written from the text."""
    L = 256 // np.dtype(npt).itemsize
    if count is not None:
        R_, s = max(1, count // L), L
        lanes = range(min(count, L))
    else:
        R_, s = repeat, rep_stride * 32 // np.dtype(npt).itemsize
        lanes = range(mask) if isinstance(mask, int) else mask
    reps = []
    for r in range(R_):
        v, k = _extreme_d50([x[r * s + j] for j in lanes], is_max)
        reps.append((_sat(v, npt, sat), lanes[k]))  # D50: the lane number, not the rank among active lanes
    best = reps[0][0]
    for v, _ in reps:
        best = _ext(best, v, is_max)
    same = (lambda v: np.isnan(v)) if np.isnan(best) else (lambda v: not np.isnan(v) and _key(v) == _key(best))
    r_star = next(r for r, (v, _) in enumerate(reps) if same(v))
    value, index = reps[r_star][0], r_star * s + reps[r_star][1]
    if count is not None and count % L and count // L >= 1:
        vt, jt = _extreme_d50(list(x[R_ * L:count]), is_max)
        vt = _sat(vt, npt, sat)
        wins = (np.isnan(vt) and not np.isnan(value)) or (
            not np.isnan(vt) and not np.isnan(value) and _key(vt) != _key(value) and _ext(value, vt, is_max) is vt)
        if wins:
            value, index = vt, R_ * L + jt
    return npt(value), index


def model_950(x, npt, is_max, sat, count=None, mask=None, repeat=None, rep_stride=None):
    """SPEC-2 D53 / §8.3.3, written from the text (count form and high-dim with a continuous mask)."""
    size = np.dtype(npt).itemsize
    V = 256 // size
    if npt is np.float16:
        seed = npt(-65504.0) if is_max else npt(65504.0)
    elif npt is np.float32:
        seed = np.uint32(0xFF7FFFFF if is_max else 0x7F7FFFFF).view(np.float32)
    else:
        info = np.iinfo(npt)
        seed = npt(info.min if is_max else info.max)
    acc, idx = [seed] * V, list(range(V))
    if count is not None:
        step, reps = V, -(-count // V)
        active = lambda r, j: r * V + j < count  # noqa: E731
        P = range(V)
    else:
        step, reps = rep_stride * 32 // size, repeat
        P = range(mask) if isinstance(mask, int) else mask
        active = lambda r, j: j in P  # noqa: E731
    for r in range(reps):
        for j in range(V):
            if active(r, j):
                new = _sat(_ext(acc[j], x[r * step + j], is_max), npt, sat)
                if np.isnan(new) or np.isnan(acc[j]) or new != acc[j]:
                    idx[j] = r * step + j
                acc[j] = new
    value = acc[P[0]]
    for j in P:
        value = _ext(value, acc[j], is_max)
    value = _sat(value, npt, sat)
    cands = [idx[j] for j in P if acc[j] == value]
    index = min(cands) if cands else (0xFFFE if size == 2 else 0xFFFFFFFE)
    return npt(value), index


POOL = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 65504.0, -65504.0, np.inf, -np.inf, np.nan, 0.5]


def _rand_src(rng, npt, n):
    if np.dtype(npt).kind == "f":
        x = np.array(rng.choice(POOL, n), npt)
        x[rng.random(n) < 0.7] = npt(0.25)  # mostly a dull value, so single specials decide
        return x
    info = np.iinfo(npt)
    return rng.choice(np.array([info.min, info.max, 0, 1, 5, info.max - 1], npt), n)


def _check_minmax(device, dt, npt, sat, rng, model, forms):
    for _ in range(16):
        is_max = bool(rng.integers(2))
        fn = aj.ReduceMax if is_max else aj.ReduceMin
        core = make_core(device, sat)
        size = np.dtype(npt).itemsize
        L = 256 // size
        src = core.local_tensor(dt, 4 * L + L)
        dst = core.local_tensor(dt, 32 // size)
        x = _rand_src(rng, npt, 5 * L)
        put(src, x, npt)
        form = forms[int(rng.integers(len(forms)))]
        if form == "count":
            n = int(rng.choice([1, L // 2, L, L + 3, 2 * L, 3 * L + L // 3, 4 * L]))
            args, kw = (n,), dict(count=n)
            tmp_n = aj.GetReduceMaxMinTmpSize(device, dt, count=n, cal_index=True)
        else:
            mask, rep, stride = int(rng.integers(1, L + 1)), int(rng.integers(1, 4)), int(rng.choice([8, 10]))
            args, kw = (mask, rep, stride), dict(mask=mask, repeat=rep, rep_stride=stride)
            if rng.random() < 0.5:  # a bit mask (SPEC 2.1: mask[1] only for 16-bit lanes), at least one lane
                bits = int.from_bytes(rng.bytes(L // 8), "little") | (1 << int(rng.integers(L)))
                words = [bits & (2**64 - 1)] + ([bits >> 64] if L == 128 else [])
                args = (words, rep, stride)
                kw["mask"] = [j for j in range(L) if (bits >> j) & 1]
            tmp_n = aj.GetReduceMaxMinTmpSize(device, dt, repeat_time=rep, cal_index=True)
        tmp = core.local_tensor(dt, max(tmp_n, 32 // size))
        before = core.ub.copy()
        fn(dst, src, tmp, *args, True)
        core.ub[tmp.addr:tmp.addr + tmp_n * size] = before[tmp.addr:tmp.addr + tmp_n * size]  # D54
        value, index = model(x, npt, is_max, is_sat(device, sat), **kw)
        iview = np.uint16 if size == 2 else np.uint32
        want = np.concatenate([np.array([value], npt).view(np.uint8), np.array([index], iview).view(np.uint8)])
        expect_ub(core, before, dst, want, np.uint8)


@pytest.mark.parametrize("device", NON950)
def test_d52_reduce_max_min_random_against_model(device):
    """SPEC-2 D52 / D50 / D41: non-950 ReduceMax/ReduceMin (count and high-dim, cal_index) against the §8.3.2 model,
    inputs drawn from the special values (±0, ±inf, NaN, MAX, ties), both half modes where offered."""
    rng = np.random.default_rng(52)
    for dt in dtypes_of("ReduceMax", device):
        npt = np.float16 if dt == "half" else np.float32
        for sat in ((False, True) if device in SAT_SWITCH else (False,)):
            _check_minmax(device, dt, npt, sat, rng, model_non950, ("count", "hd"))


def test_d53_950_reduce_max_min_random_against_model():
    """SPEC-2 D53 / §8.3.3: 950 ReduceMax/ReduceMin (per-lane accumulators with the finite seeds, IEEE index rule,
    NaN index 0xFFFE/0xFFFFFFFE) against a model written from the text, every non-64-bit dtype, both half modes."""
    rng = np.random.default_rng(53)
    for dt in ("half", "float", "int16", "uint16", "int32", "uint32"):
        npt = NP[dt]
        for sat in ((False, True) if dt == "half" else (False,)):
            _check_minmax("ascend950", dt, npt, sat, rng, model_950, ("count", "hd"))


# ------------------------------------------------------- the same Ds on the 950 Reg API and the operator forms

def test_d42_d74_d73_on_reg_api():
    """SPEC-2 D42 (LeakyRelu sign rule), D74 (950 Axpy one fused stage: B-23/B-24 NaN or +0 by SAT) and D73 (Sqrt
    half 65504 → 0x5BFF) hold for the Reg API forms too, both half modes, with StoreAlign writing only dst."""
    core = make_core("ascend950")
    out = core.local_tensor("half", 128 * 12)
    with core:
        for sat in (False, True):
            core.SetCtrlSpr(48, 48, 0 if sat else 1)
            before = core.ub.copy()
            a, d = R.RegTensor("half"), R.RegTensor("half")
            m = R.CreateMask("half")
            want = []
            for k, (x, s, res) in enumerate(LEAKY_CASES[:4]):
                R.Duplicate(a, np.float16(x))
                R.LeakyRelu(d, a, np.float16(s), m)
                R.StoreAlign(out, d, m, 128 * k)
                want.append(0 if (res == "+0" or sat) else HALF_NAN)
            for k, (s, x, c) in enumerate([(np.inf, 65504.0, -np.inf), (0.0, np.inf, np.inf)]):
                R.Duplicate(a, np.float16(x))
                R.Duplicate(d, np.float16(c))
                R.Axpy(d, a, np.float16(s), m)
                R.StoreAlign(out, d, m, 128 * (4 + k))
                want.append(0 if sat else HALF_NAN)
            R.Duplicate(a, np.float16(65504))
            R.Sqrt(d, a, m)
            R.StoreAlign(out, d, m, 128 * 6)
            want.append(0x5BFF)
            expect_ub(core, before, out, np.repeat(np.array(want, np.uint16), 128), np.uint16)


@pytest.mark.parametrize("device", NON950)
def test_d60_operator_forms_refused(device):
    """SPEC-2 D60: the operator forms `d[:] = a & b`, `a | b` on int32 off the 950 are refused like the calls."""
    core = make_core(device)
    a, b, d = (core.local_tensor("int32", 64) for _ in range(3))

    def and_():
        d[:] = a & b

    def or_():
        d[:] = a | b
    refused(core, aj.UnsupportedDTypeError, and_, match="ReinterpretCast")
    refused(core, aj.UnsupportedDTypeError, or_, match="ReinterpretCast")
    core.SetVectorMask(64)  # the mask-register form (is_set_mask=False) is refused the same way
    refused(core, aj.UnsupportedDTypeError, lambda: aj.And(d, a, b, aj.MASK_PLACEHOLDER, 1, aj.BinaryRepeatParams(),
                                                           is_set_mask=False), match="ReinterpretCast")


@pytest.mark.parametrize("device", ["ascend950", "atlas-a2", "atlas-inference-aicore"])
def test_d61_brcb_stride_zero_refused_even_with_repeat_zero(device):
    """SPEC-2 D61 with D30: dstBlkStride 0 is refused before the repeat_time-0 NOP applies (the parameter is
    undefined behaviour whatever the repeat count)."""
    core = make_core(device)
    src, dst = core.local_tensor("half", 8), core.local_tensor("half", 128)
    refused(core, aj.ParameterError, lambda: aj.Brcb(dst, src, 0, aj.BrcbRepeatParams(0, 8)))


def test_d63_maskreg_load_writes_the_object_passed():
    """SPEC-2 D63: MaskReg LoadAlign writes into the MaskReg object passed (DIST_NORM: 32 bytes → 256 bits)."""
    core = make_core("ascend950")
    t = core.local_tensor("uint8", 32)
    raw = np.arange(32, dtype=np.uint8) * 7
    put(t, raw, np.uint8)
    with core:
        mk = R.MaskReg()
        ident = id(mk)
        R.LoadAlign(mk, t)
        assert id(mk) == ident and mk.bits() == int.from_bytes(raw.tobytes(), "little")


def test_d70_950_reg_store_at_ub_end():
    """SPEC-2 D70: a Reg StoreAlign may write the 950 UB's last 256 bytes (no 8 KB reservation modelled)."""
    core = make_core("ascend950")
    ub = core.ub.size
    t = core.local_tensor("float", 64, addr=ub - 256)
    with core:
        r = R.RegTensor("float")
        R.Duplicate(r, np.float32(1.5))
        before = core.ub.copy()
        R.StoreAlign(t, r, R.CreateMask("float"))
    expect_ub(core, before, t, np.full(64, 1.5, np.float32), np.float32)


def test_d40_950_rsqrt_reciprocal_float_stages():
    """SPEC-2 D40 / D38 / D75: 950 float Rsqrt INTRINSIC = RN(1 / RN(√x)) and Reciprocal = RN(1/x), both DAZ/FTZ:
    subnormal x → ±inf, a subnormal reciprocal (|x| > 2^126) → ±0. Random normal floats over the whole range."""
    rng = np.random.default_rng(40)
    bits = rng.integers(0x00800000, 0x7F800000, 256, dtype=np.uint64).astype(np.uint32)
    bits[:8] = [0x00000001, 0x007FFFFF, 0x7E800001, 0x7F7FFFFF, 0x00800000, 0x3F800000, 0x7E7FFFFF, 0x40000000]
    x64 = bits.view(np.float32).astype(np.float64)
    sub = x64 < 2.0 ** -126
    s = np.sqrt(x64).astype(np.float32).astype(np.float64)  # RN_float(√x): double rounding innocuous for sqrt
    rsq = (1.0 / s).astype(np.float32)                       # ... and for division (53 ≥ 2·24 + 2)
    rsq[sub] = np.inf
    with np.errstate(over="ignore"):
        rec = (1.0 / x64).astype(np.float32)
    rec[sub] = np.inf
    rec[np.abs(rec) < np.float32(2.0 ** -126)] = 0.0
    for name, want in (("Rsqrt", rsq), ("Reciprocal", rec)):
        for sign in (1, -1) if name == "Reciprocal" else (1,):
            core = make_core("ascend950")
            src, dst = core.local_tensor("float", 256), core.local_tensor("float", 256)
            put(src, bits | (np.uint32(0x80000000) if sign < 0 else np.uint32(0)), np.uint32)
            before = core.ub.copy()
            getattr(aj, name)(dst, src, 256)
            expect_ub(core, before, dst, (want * np.float32(sign)).view(np.uint32), np.uint32)


@pytest.mark.parametrize("device", DEVICES)
def test_d51_fill_in_counter_mode(device):
    """SPEC-2 D51 / §8.2 in counter mode: 20 halves leave blocks 2..7 of the one repeat fully masked: not written
    on A2/A3/310P/910, filled on 310B (MAX −65504) and the 950 (MAX −inf; −65504 saturating)."""
    for sat in ((False, True) if device == "ascend950" else (False,)):
        core = make_core(device, sat)
        src, dst = core.local_tensor("half", 256), core.local_tensor("half", 16)
        put(src, np.ones(256, np.float16), np.float16)
        core.SetMaskCount()
        before = core.ub.copy()
        aj.ReduceDataBlock(dst, src, 20, 1, 1, 1, 8, reduce_type=aj.ReduceType.MAX)
        fill = _block_fill(device, "half", "MAX", sat)
        rest = [0xA5A5] * 6 if fill is None else [hbits(fill)] * 6
        expect_ub(core, before, dst, [0x3C00, 0x3C00] + rest, np.uint16)


def test_d53_950_64bit_index_layout_and_16bit_limit():
    """SPEC-2 D53 / §8.3: 950 int64/uint64 ReduceMax writes the value, a uint32 index and 4 zero bytes; 16-bit
    types accept an index up to 65534 (count 65535) and refuse count 65536 with cal_index."""
    for dt, npt in (("int64", np.int64), ("uint64", np.uint64)):
        core = make_core("ascend950")
        src, dst, tmp = core.local_tensor(dt, 100), core.local_tensor(dt, 4), core.local_tensor(dt, 4)
        x = np.arange(100, dtype=npt)
        x[37] = 1000
        put(src, x, npt)
        before = core.ub.copy()
        aj.ReduceMax(dst, src, tmp, 100, True)
        expect_ub(core, before, dst, [1000, 37], np.uint64)
    core = make_core("ascend950")
    src, dst, tmp = core.local_tensor("half", 65536), core.local_tensor("half", 16), core.local_tensor("half", 16)
    refused(core, aj.ParameterError, lambda: aj.ReduceMax(dst, src, tmp, 65536, True))
    x = np.zeros(65536, np.float16)
    x[65534] = 1
    put(src, x, np.float16)
    before = core.ub.copy()
    aj.ReduceMax(dst, src, tmp, 65535, True)
    expect_ub(core, before, dst, [0x3C00, 65534], np.uint16)


@pytest.mark.parametrize("device", DEVICES)
def test_d40_half_to_float_multiply_add_one_rounding(device):
    """SPEC-2 D40 / §6.3: MulAddDst and Axpy with half factors and a float dst = exact widening, exact product,
    one float RNE rounding of product + dst (computed here exactly in float64: operands chosen so the sum has
    fewer than 53 significant bits)."""
    rng = np.random.default_rng(4040)
    a = (rng.uniform(-32, 32, 64)).astype(np.float16)
    b = (rng.uniform(-32, 32, 64)).astype(np.float16)
    c = (rng.uniform(-1024, 1024, 64)).astype(np.float32)
    for name in ("MulAddDst", "Axpy"):
        if "half" not in dtypes_of(name, device) or (name, device) == ("MulAddDst", "atlas-200i-500-a2"):
            continue  # §6.2: no half→float MulAddDst on the 310B
        core = make_core(device)
        s0, s1 = core.local_tensor("half", 64), core.local_tensor("half", 64)
        d = core.local_tensor("float", 64)
        put(s0, a, np.float16)
        put(s1, b, np.float16)
        put(d, c, np.float32)
        before = core.ub.copy()
        if name == "MulAddDst":
            aj.MulAddDst(d, s0, s1, 64)
            p = a.astype(np.float64) * b.astype(np.float64)
        else:
            aj.Axpy(d, s0, a[0], 64)
            p = a.astype(np.float64) * np.float64(a[0])
        expect_ub(core, before, d, (p + c.astype(np.float64)).astype(np.float32), np.float32)


def _vf_mask_out(out, m_out, m_in, T):
    R.Not(m_out, m_in, R.CreateMask(T))
    r = R.RegTensor(T)
    R.Duplicate(r, 1)
    R.StoreAlign(out, r, m_out)


VF_MASK_OUT = R.simd_vf(_vf_mask_out)


def test_d63_compiled_vf_writes_the_maskreg_argument():
    """SPEC-2 D63 inside a compiled VF: a MaskReg passed as an argument and written by a MaskReg operation holds
    the result after the VF returns (as the plain run); the store under it writes exactly its lanes."""
    core = make_core("ascend950")
    out = core.local_tensor("half", 128)
    m_in, m_out = R.MaskReg((0xFFFF, 0, 0, 0)), R.MaskReg()
    before = core.ub.copy()
    VF_MASK_OUT(out, m_out, m_in, "half")
    assert m_out.bits() == ((1 << 256) - 1) ^ 0xFFFF and m_in.bits() == 0xFFFF
    exp = before.copy()
    exp[out.addr + 16:out.addr + 256] = np.ones(120, np.float16).view(np.uint8)
    assert np.array_equal(core.ub, exp)


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-inference-aicore", "ascend950"])
def test_d52_d53_high_dim_half_index_limit(device):
    """SPEC-2 D52 / §8.3: high-dim half ReduceMax with cal_index is refused when an active lane of the last repeat
    can have an index above 65535 (non-950) / 65534 (950: index+1 kept in 16 bits); the mask counts (the highest
    active lane decides). Index = (repeat_time−1)·srcRepStride·16 + highest lane."""
    core = aj.Core(device, bounds="ub")
    core.ub[:] = SENT
    src, dst, tmp = core.local_tensor("half", 65700), core.local_tensor("half", 16), core.local_tensor("half", 64)
    core.ub_written_by_host()   # the SENT bytes (a new tensor's count as uninitialised)
    limit = 65534 if device == "ascend950" else 65535
    for stride, mask in ((4096, 128), (4088, 128), (4089, 128), (4088, 127), (4089, 1)):
        top = stride * 16 + mask - 1
        call = lambda: aj.ReduceMax(dst, src, tmp, mask, 2, stride, True)  # noqa: E731
        if top > limit:
            refused(core, aj.ParameterError, call, match="index")
        else:
            call()


def test_d53_950_counter_mode_reads_by_stride_indexes_by_v():
    """SPEC-2 D53 / §8.3.3: 950 high-dim counter mode: repeat r is read at r·srcRepStride blocks while the index
    advances by V per repeat (count 200, stride 16: the max at memory element 256+4 has index 128+4); elements past
    the count (memory 256+100 = logical 228) do not take part."""
    core = make_core("ascend950")
    src, dst, tmp = core.local_tensor("half", 1024), core.local_tensor("half", 16), core.local_tensor("half", 16)
    x = np.zeros(1024, np.float16)
    x[256 + 4], x[256 + 100], x[128 + 3] = 5, 9, 7
    put(src, x, np.float16)
    core.SetMaskCount()
    before = core.ub.copy()
    aj.ReduceMax(dst, src, tmp, 200, 1, 16, True)
    expect_ub(core, before, dst, [hbits(5), 132], np.uint16)


def test_d66_reg_reduce_random_masks_against_model():
    """SPEC-2 D66 / §11.4 / D41 / D50: Reg Reduce MAX/MIN over random masks and special values: masked lanes never
    win, value through SAT, index = first active lane attaining it (first NaN lane for NaN), lanes ≥ 2 zero;
    SUM of small integer values (exact in any order) with masked lanes +0. Both half modes."""
    rng = np.random.default_rng(66)
    core = make_core("ascend950")
    with core:
        for T in ("half", "float", "int16", "uint16", "int32", "uint32"):
            npt = NP[T]
            size = np.dtype(npt).itemsize
            n, u = 256 // size, f"u{size}"
            for sat in ((False, True) if T == "half" else (False,)):
                core.SetCtrlSpr(48, 48, 0 if sat else 1)
                for _ in range(6):
                    x = _rand_src(rng, npt, n)
                    lanes = rng.random(n) < rng.choice([0.05, 0.5, 1.0])
                    bits = 0
                    for j in np.nonzero(lanes)[0]:
                        bits |= ((1 << size) - 1) << (int(j) * size)
                    m = R.MaskReg(_words(bits))
                    for rt, is_max in ((R.ReduceType.MAX, True), (R.ReduceType.MIN, False)):
                        out = _reduce(T, x, m, rt)
                        act = [j for j in range(n) if lanes[j]]
                        if act:
                            v, j = _extreme_d50([x[k] for k in act], is_max)
                            want_v, want_i = _sat(v, npt, sat), act[j]
                        else:
                            want_v = npt(-np.inf if is_max else np.inf) if T in ("half", "float") \
                                else npt(np.iinfo(npt).min if is_max else np.iinfo(npt).max)
                            want_v, want_i = _sat(want_v, npt, sat), 0
                        got = out.view(u)
                        assert got[0] == np.array([want_v], npt).view(u)[0], (T, sat, rt, out[0], want_v)
                        assert int(got[1]) == want_i and not got[2:].any(), (T, sat, rt)
                    if np.dtype(npt).kind != "f":
                        xs = (rng.integers(0, 50, n)).astype(npt)
                        out = _reduce(T, xs, m, R.ReduceType.SUM)
                        assert int(out[0]) == int(xs.astype(np.int64)[lanes].sum()) and not out[1:].any(), T


def test_d52_possible_index_follows_a_bit_mask():
    """SPEC-2 D52, docs/decisions.md "Reductions": with a bit mask the highest set lane decides whether the last
    repeat can produce an index above 65535 (lane 0 only at stride 4096: 65536, refused; stride 4095 with lane 15:
    65535, accepted)."""
    core = aj.Core("atlas-a2", bounds="ub")
    core.ub[:] = SENT
    src, dst, tmp = core.local_tensor("half", 65700), core.local_tensor("half", 16), core.local_tensor("half", 64)
    core.ub_written_by_host()   # the SENT bytes (a new tensor's count as uninitialised)
    refused(core, aj.ParameterError, lambda: aj.ReduceMax(dst, src, tmp, [1, 0], 2, 4096, True), match="index")
    aj.ReduceMax(dst, src, tmp, [1 << 15, 0], 2, 4095, True)
    refused(core, aj.ParameterError, lambda: aj.ReduceMax(dst, src, tmp, [1 << 16, 0], 2, 4095, True), match="index")


def test_d40_d49_rsqrt_fast_algorithms_high_dim_equal_count_form():
    """SPEC-2 D40 / D49: Rsqrt FAST_INVERSE and PRECISION_1ULP_FTZ_FALSE are correctly rounded 1/√x in the high-dim
    form too (the devkit's two roundings there are why the row is MODELLED, not a second model)."""
    rng = np.random.default_rng(49)
    bits = rng.integers(0x00000001, 0x7E800000, 64, dtype=np.uint64).astype(np.uint32)
    want = [fbits(rn_rsqrt_f32(np.uint32(b).view(np.float32))) for b in bits]
    for algo in ("FAST_INVERSE", "PRECISION_1ULP_FTZ_FALSE", "PRECISION_0ULP_FTZ_FALSE"):
        core = make_core("ascend950")
        src, dst = core.local_tensor("float", 64), core.local_tensor("float", 64)
        put(src, bits, np.uint32)
        before = core.ub.copy()
        aj.Rsqrt(dst, src, 64, 1, aj.UnaryRepeatParams(), config=aj.RsqrtConfig(getattr(aj.RsqrtAlgo, algo)))
        expect_ub(core, before, dst, want, np.uint32)


@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync,dcache", reason="an all-masked Reduce through a MaskReg() "
                             "no instruction wrote: the emulator's zero bits are the all-false mask the test means")
def test_d66_all_masked_reduce_saturating_half():
    """SPEC-2 D66 with §11.4's SAT (docs/decisions.md "Reductions", audit 46 D2 reading 2): in half saturation mode an
    all-masked Reg Reduce MAX/MIN writes −65504 / +65504 and index 0; INF/NaN mode −inf / +inf."""
    core = make_core("ascend950")
    with core:
        for sat, lo, hi in ((False, 0xFC00, 0x7C00), (True, 0xFBFF, 0x7BFF)):
            core.SetCtrlSpr(48, 48, 0 if sat else 1)
            for rt, want in ((R.ReduceType.MAX, lo), (R.ReduceType.MIN, hi)):
                out = _reduce("half", np.ones(128, np.float16), R.MaskReg(), rt).view(np.uint16)
                assert out[0] == want and not out[1:].any(), (sat, rt)


def test_d70_950_tpipe_buffers_cover_248k():
    """SPEC-2 D70: a TPipe TBuf may take the whole 253952-byte 950 UB (no 8 KB reserved); 32 bytes more is
    refused."""
    core = make_core("ascend950")
    with core:
        buf = aj.TBuf(aj.TPosition.VECCALC)
        aj.TPipe().InitBuffer(buf, 253952)
        assert buf.Get("half").GetSize() == 126976 and aj.GetRuntimeUBSize() == 253952
    core = make_core("ascend950")
    with core:
        refused(core, aj.ParameterError, lambda: aj.TPipe().InitBuffer(aj.TBuf(aj.TPosition.VECCALC), 253952 + 32))


SPECIAL_X = np.array([0x0000, 0x8000, 0x7C00, 0xFC00, 0xC000, 0x7E00, 0x0001, 0x8001], np.uint16)
SPECIAL_ROWS = {  # SPEC-2 4.3 table (D75: the D40 compositions do not apply to these inputs): +0 −0 +inf −inf −2 NaN
    "Sqrt": [0.0, -0.0, np.inf, "nan", "nan", "nan"],
    "Rsqrt": [np.inf, -np.inf, 0.0, "nan", "nan", "nan"],
    "Reciprocal": [np.inf, -np.inf, 0.0, -0.0, -0.5, "nan"],
}


@pytest.mark.parametrize("device", DEVICES)
def test_d40_d75_special_inputs_every_device(device):
    """SPEC-2 D40 / D75 / §4.3 with D38 and D35: Sqrt, Rsqrt, Reciprocal half special inputs on every device and
    half mode. Subnormal inputs: read as ±0 on the 950's default INTRINSIC algorithm (DAZ), exact elsewhere
    (Rsqrt(2^-24) = 4096, Reciprocal(2^-24) = 2^24 → +inf); then SAT (inf → ±65504, NaN → +0)."""
    for sat in (False, True):
        if (sat and device not in SAT_SWITCH + SAT_FIXED) or (not sat and device in SAT_FIXED):
            continue
        s_on = is_sat(device, sat)
        for name, rows in SPECIAL_ROWS.items():
            if device == "ascend950":
                sub = [rows[0], rows[1]]  # DAZ: the ±0 rows
            else:
                sub = {"Sqrt": [2.0 ** -12, "nan"], "Rsqrt": [4096.0, "nan"], "Reciprocal": [np.inf, -np.inf]}[name]
            want = []
            for r in rows + sub:
                if r == "nan":
                    want.append(0 if s_on else HALF_NAN)
                elif s_on and np.isinf(r):
                    want.append(hbits(65504.0 if r > 0 else -65504.0))
                else:
                    want.append(hbits(r))
            core = make_core(device, sat)
            src, dst = core.local_tensor("half", 16), core.local_tensor("half", 16)
            put(src, np.concatenate([SPECIAL_X, SPECIAL_X]), np.uint16)
            before = core.ub.copy()
            getattr(aj, name)(dst, src, 16)
            expect_ub(core, before, dst, want * 2, np.uint16)


def test_d27_enum_twins_kept_apart_and_old_spelling_warns():
    """SPEC-2 D27 (docs/decisions.md "Reductions": D27 transition, reduction arguments): the Memory APIs take
    aj.ReduceType (or its int), Reg Reduce takes aj.Reg.ReduceType (or its int), each refuses the twin
    (ParameterError, nothing written); Reg Reduce is ZEROING only; the old tree spelling warns."""
    core = make_core("ascend950")
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 16)
    put(src, np.arange(128, dtype=np.float16), np.float16)
    order = aj.ReduceOrder.ORDER_VALUE_INDEX
    refused(core, aj.ParameterError,
            lambda: aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, order, reduce_type=R.ReduceType.MAX))
    for rt in (aj.ReduceType.MAX, 1):
        aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, aj.ReduceOrder.ORDER_VALUE_INDEX, reduce_type=rt)
        assert dst.numpy()[:2].view(np.uint16).tolist() == [hbits(127), 127]
    with core:
        a, o = R.RegTensor("half"), R.RegTensor("half")
        with pytest.raises(aj.ParameterError):
            R.Reduce(o, a, R.CreateMask("half"), aj.ReduceType.MAX)
        with pytest.raises(aj.ParameterError):
            R.Reduce(o, a, R.CreateMask("half"), R.ReduceType.MAX, R.MaskMergeMode.MERGING)
        R.Reduce(o, a, R.CreateMask("half"), 1)
    tree = aj.explain_reduce_order("atlas-a2", "count", "half", count=300)
    with pytest.warns(DeprecationWarning, match="D27"):
        assert isinstance(tree, aj.ReduceOrder)


def test_d42_d63_tensor_scalar_and_sub_carry_on_950():
    """SPEC-2 D42 with the 950's one-element-tensor scalar (README porting table): LeakyRelu(−0, NaN) = NaN,
    (+0, NaN) = +0, (−0, −65504) = +0; SPEC-2 D63: Reg Sub's carry MaskReg is written in place (1 − 2 borrows in
    every lane: the carry-out bit is 0, as Add's carry is 1 on a wrap)."""
    core = make_core("ascend950")
    src, dst, sc = (core.local_tensor("half", 16) for _ in range(3))
    put(src, np.array([-0.0, 0.0, -1, 2] * 4, np.float16), np.float16)
    for s, want in ((np.nan, [HALF_NAN, 0, HALF_NAN, hbits(2)]), (-65504, [0, 0, 0x7BFF, hbits(2)])):
        put(sc, np.full(16, s, np.float16), np.float16)
        before = core.ub.copy()
        aj.LeakyRelu(dst, src, sc[0], 16)
        expect_ub(core, before, dst, want * 4, np.uint16)
    with core:
        a, b, o = R.RegTensor("uint32"), R.RegTensor("uint32"), R.RegTensor("uint32")
        R.Duplicate(a, np.uint32(1))
        R.Duplicate(b, np.uint32(2))
        carry = R.MaskReg((5, 5, 5, 5))
        ident = id(carry)
        R.Sub(carry, o, a, b, R.CreateMask("uint32"))
        assert id(carry) == ident and carry.bits() == 0
        assert o.numpy().tolist() == [2**32 - 1] * 64
