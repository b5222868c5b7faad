"""Audit 46 D1: SPEC.md decisions D1-D5, D7-D12, D16-D21, D23, D24, D26 checked from the decision texts.

Expectations come from numpy and a few-line model of each D (pairwise adjacent trees, RNE per add, saturation per
stage), never from ascend_jit.reference. Every written call is checked on the whole UB: the bytes the D says are
written hold the expected bits and every other byte is unchanged.
"""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.devices import SUPPORTED_NAMES

R = aj.Reg
H = np.float16
DEVS = SUPPORTED_NAMES
NON950 = tuple(d for d in DEVS if d != "ascend950")
HALF_MAX = 65504.0
SAT_DEVICES = ("atlas-training", "atlas-inference-aicore")   # D6: saturating only


def _instr(name):
    return {i.name: i for i in aj.api.registry.INSTRUCTIONS}[name]


def _saturating(core):
    """Put the core in half saturation mode the way the device offers it (D6, D21); None where it cannot."""
    dev = core.spec.name
    if dev in SAT_DEVICES:
        return core
    if dev in ("atlas-a2", "atlas-a3"):
        core.SetSaturationFlag(True)
        return core
    if dev == "ascend950":
        core.SetCtrlSpr(48, 48, 0)
        return core
    return None


def _sat(x, on):
    """D35 / SPEC 5.2 per-stage saturation of one half result."""
    x = H(x)
    if not on:
        return x
    if np.isnan(x):
        return H(0.0)
    if np.isinf(x):
        return H(np.copysign(HALF_MAX, x))
    return x


def _add(a, b, sat=False):
    return _sat(H(np.float32(a) + np.float32(b)), sat)   # fp32 add of two halves is exact enough (DESIGN 3)


def _tree(vals, lanes=128, sat=False):
    """SPEC 4.1 per-repeat tree over adjacent lanes, missing lanes +0 (D2)."""
    v = [H(x) for x in vals] + [H(0.0)] * (lanes - len(vals))
    while len(v) > 1:
        v = [_add(v[2 * k], v[2 * k + 1], sat) for k in range(len(v) // 2)]
    return v[0]


def _bits(x, dt=np.float16):
    return np.asarray(x, dt).view(np.uint16 if np.dtype(dt).itemsize == 2 else np.uint32)


def _only_changed(before, core, allowed):
    """Bytes outside `allowed` (a set of byte indices) must be unchanged (D10 / DESIGN 2)."""
    diff = set(np.nonzero(before != core.ub)[0].tolist())
    assert diff <= set(allowed), sorted(diff - set(allowed))[:10]


def _span(t, first=0, n=None):
    n = t.size - first if n is None else n
    isz = t.nbytes // t.size
    return set(range(t.addr + first * isz, t.addr + (first + n) * isz))


def _refused(core, call, exc=aj.AscendJitError):
    before = core.ub.copy()
    with pytest.raises(exc) as info:
        call()
    assert np.array_equal(before, core.ub), "a refused call wrote the UB (D10)"
    return str(info.value)


# ---------------------------------------------------------------- D1, D26, D18: A2/A3 count-form ReduceSum
@pytest.mark.parametrize("dev", ["atlas-a2", "atlas-a3"])
@pytest.mark.parametrize("sat", [False, True])
def test_d1_d26_tree_seq_rounds_accumulator_per_repeat(dev, sat):
    """SPEC D1: the sequential accumulator is rounded to half (RNE + overflow mode) after every repeat addition,
    the first repeat's tree initialising it; D26: only dst[0] is written; SPEC 4.2 / D18: tmp is not touched."""
    core = aj.Core(dev)
    if sat:
        _saturating(core)
    n = 128 * 5 + 7
    x = np.zeros(n, H)
    x[0] = 2048.0                       # repeat 0: 2048; repeats 1..3 each one 1.0: 2048+1 ties to 2048 every step
    x[128] = x[256] = x[384] = 1.0
    x[512] = 65000.0                    # repeat 4: 2048 + 64992 -> overflow (inf or 65504)
    x[640] = -30000.0                   # tail repeat: 7 lanes
    src, dst, tmp = core.local_tensor("half", n), core.local_tensor("half", 16), core.local_tensor("half", 16)
    src[:] = x
    dst[:] = H(7.0)
    tmp[:] = H(9.0)
    acc = None
    for r in range(0, n, 128):
        part = _tree(x[r:r + 128], sat=sat)
        acc = part if acc is None else _add(acc, part, sat)
    before = core.ub.copy()
    aj.ReduceSum(dst, src, tmp, n)
    assert _bits(dst.numpy()[0]) == _bits(acc), (dst.numpy()[0], acc)
    assert (acc == H(35520.0)) if sat else np.isposinf(acc)   # 65504 - 30000 ties to even
    _only_changed(before, core, _span(dst, 0, 1))


def test_d1_fp32_accumulator_is_not_the_default():
    """SPEC D1: the alternative (fp32 accumulator rounded once) is never the default: 2048 + 3 x 1.0 stays 2048."""
    core = aj.Core("atlas-a2")
    x = np.zeros(512, H)
    x[0], x[128], x[256], x[384] = 2048.0, 1.0, 1.0, 1.0
    src, dst, tmp = core.local_tensor("half", 512), core.local_tensor("half", 16), core.local_tensor("half", 16)
    src[:] = x
    aj.ReduceSum(dst, src, tmp, 512)
    assert dst.numpy()[0] == H(2048.0)          # the fp32 accumulator would give 2051 -> 2052


# ---------------------------------------------------------------- D2: masked lanes contribute +0
@pytest.mark.parametrize("dev", DEVS)
def test_d2_padding_zero_is_positive_in_sums(dev):
    """SPEC D2: a masked lane contributes +0, so an all -0 input through a padded tree sums to +0 (high-dim with a
    partial mask, a count form with a tail); the D2 consequence: a tree with no padding keeps -0 (the A2/A3 count
    form over whole repeats; the 950's VADD merges for L < count <= 4L, whose tail lanes add into block 0 and leave
    the other lanes as they are, SPEC 4.4 -- docs/decisions.md "Signed zero of padded sums")."""
    core = aj.Core(dev)
    src, dst, tmp = core.local_tensor("half", 640), core.local_tensor("half", 16), core.local_tensor("half", 16)
    src[:] = np.full(640, -0.0, H)
    is950 = dev == "ascend950"
    cases = [((100, 1, 8), 0x0000), ((100, 2, 8), 0x0000), ((50,), 0x0000), ((600,), 0x0000),
             ((200,), 0x8000 if is950 else 0x0000),
             ((256,), 0x8000 if dev in ("atlas-a2", "atlas-a3", "ascend950") else 0x0000),
             ((640,), 0x8000 if dev in ("atlas-a2", "atlas-a3") else 0x0000)]
    for args, want in cases:
        dst[:] = H(5.0)
        before = core.ub.copy()
        aj.ReduceSum(dst, src, tmp, *args)
        assert int(_bits(dst.numpy()[0])) == want, args
        _only_changed(before, core, _span(dst, 0, 1) | _span(tmp))


# ---------------------------------------------------------------- D3: Reg ReduceDataBlock zeroes lanes 8..VL-1
@pytest.mark.parametrize("dtype,vl", [("half", 128), ("float", 64)])
def test_d3_reg_reduce_data_block_zeroes_upper_lanes(dtype, vl):
    """SPEC D3: dst lanes 8..VL-1 of Reg ReduceDataBlock are written 0 (ZEROING), whatever the register held."""
    npd = np.float16 if dtype == "half" else np.float32
    core = aj.Core("ascend950")
    src_t, dst_t, pre_t = (core.local_tensor(dtype, vl) for _ in range(3))
    x = (np.arange(vl) % 5 + 1).astype(npd)
    src_t[:] = x
    pre_t[:] = np.full(vl, 3.0, npd)
    dst_t[:] = np.full(vl, -1.0, npd)
    sr, dr = R.RegTensor(dtype), R.RegTensor(dtype)
    before = core.ub.copy()
    with core:
        R.LoadAlign(sr, src_t)
        R.LoadAlign(dr, pre_t)                       # garbage in dst register first
        R.ReduceDataBlock(dr, sr, R.CreateMask(dtype))
        R.StoreAlign(dst_t, dr, R.CreateMask(dtype))
    epb = vl // 8
    want = np.zeros(vl, npd)
    for b in range(8):
        want[b] = x[b * epb:(b + 1) * epb].astype(np.float64).sum()
    assert np.array_equal(dst_t.numpy(), want)
    _only_changed(before, core, _span(dst_t))


# ---------------------------------------------------------------- D4, D21: 310B
def test_d4_310b_ub_size_default_inf_and_no_switch():
    """SPEC D4: 310B has a 253952-byte UB, half overflow INF/NaN by default and no saturation switch: asking for
    one raises a clear error (D21: SetSaturationFlag refused; no SetCtrlSpr bit 48/53 switch either)."""
    core = aj.Core("atlas-200i-500-a2")
    assert core.ub.size == 253952
    a = core.local_tensor("half", 128)
    a[:] = np.full(128, 60000.0, H)
    d = core.local_tensor("half", 128)
    aj.Add(d, a, a, 128)
    assert np.all(np.isposinf(d.numpy()))
    for call in (lambda: core.SetSaturationFlag(True), lambda: core.SetCtrlSpr(48, 48, 0),
                 lambda: core.SetCtrlSpr(53, 53, 1)):
        with pytest.raises(aj.AscendJitError):
            call()
    # the last byte of the UB is usable, one past it is not (D10: access past the end)
    last = core.local_tensor("half", 16, addr=253952 - 32)
    last[:] = np.ones(16, H)
    aj.Add(last, last, last, 16)
    assert np.all(last.numpy() == 2)
    with pytest.raises(aj.AscendJitError):
        core.local_tensor("half", 32, addr=253952 - 32)


# ---------------------------------------------------------------- D5: 15 ones + inf in saturation mode
@pytest.mark.parametrize("dev", [d for d in DEVS if d != "atlas-200i-500-a2"])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_d5_block_sum_fifteen_ones_and_inf_saturates_to_max(dev, sign):
    """SPEC D5: Memory ReduceDataBlock SUM of 15 ones + inf in saturation mode gives 65504 (not the doc's 65344)."""
    core = _saturating(aj.Core(dev))
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 16)
    x = np.zeros(128, H)
    x[:15] = 1.0
    x[15] = sign * np.inf
    src[:] = x
    dst[:] = H(3.0)
    before = core.ub.copy()
    aj.BlockReduceSum(dst, src, 1, 16, 1, 1, 8)
    want = _tree(x[:16], lanes=16, sat=True)
    assert want == H(sign * HALF_MAX)
    assert dst.numpy()[0] == want
    _only_changed(before, core, _span(dst, 0, 8))


# ---------------------------------------------------------------- D7: 950 count/repeat/mask 0
def test_d7_950_high_dim_reduce_sum_repeat_zero_is_repeat_one():
    """SPEC D7 / 4.4: on the 950 high-dim ReduceSum with repeat 0 behaves as repeat 1 (dst[0] = tree of repeat 0)."""
    core = aj.Core("ascend950")
    src, dst, tmp = core.local_tensor("half", 256), core.local_tensor("half", 16), core.local_tensor("half", 16)
    x = (np.arange(256) % 7).astype(H)
    src[:] = x
    dst[:] = H(-1.0)
    before = core.ub.copy()
    aj.ReduceSum(dst, src, tmp, 100, 0, 8)
    assert dst.numpy()[0] == _tree(x[:100])
    _only_changed(before, core, _span(dst, 0, 1) | _span(tmp))


_BINARY = ("Add", "Sub", "Mul", "Max", "Min", "AddRelu", "SubRelu", "Div")
_UNARY = ("Abs", "Relu", "Exp", "Ln", "Sqrt")
_SCALAR = ("Adds", "Muls", "Maxs", "Mins")


def _high_dim_calls(core, mask, repeat):
    """High-dim calls of the element-wise registry rows with a half operand set (SPEC 1.x forms)."""
    a, b, d = (core.local_tensor("half", 256) for _ in range(3))
    a[:] = np.full(256, 2.0, H)
    b[:] = np.full(256, 3.0, H)
    d[:] = np.full(256, 5.0, H)
    calls = {}
    for n in _BINARY:
        calls[n] = (lambda f: lambda: f(d, a, b, mask, repeat, aj.BinaryRepeatParams()))(getattr(aj, n))
    for n in _UNARY:
        calls[n] = (lambda f: lambda: f(d, a, mask, repeat, aj.UnaryRepeatParams()))(getattr(aj, n))
    for n in _SCALAR:
        calls[n] = (lambda f: lambda: f(d, a, 1.5, mask, repeat, aj.UnaryRepeatParams()))(getattr(aj, n))
    calls["ReducePairElem"] = lambda: aj.ReducePairElem(d, a, mask, repeat, 1, 1, 8)
    calls["WholeReduceSum"] = lambda: aj.WholeReduceSum(d, a, mask, repeat, 1, 1, 8)
    calls["BlockReduceSum"] = lambda: aj.BlockReduceSum(d, a, repeat, mask, 1, 1, 8)
    return calls


@pytest.mark.parametrize("dev", DEVS)
def test_d7_d14_repeat_zero_writes_nothing(dev):
    """SPEC D7 (950) and D14: Add / ReducePairElem (and every element-wise high-dim row, cross-cutting) with
    repeat 0 write nothing in the UB."""
    core = aj.Core(dev)
    for name, call in _high_dim_calls(core, 128, 0).items():
        if "half" not in _instr(name).dtypes(core.spec) or not _instr(name).offered(core.spec):
            continue
        before = core.ub.copy()
        call()
        assert np.array_equal(before, core.ub), name


def test_d7_950_mask_zero_refused_across_registry():
    """SPEC D7 -> D14: mask 0 on the 950 is refused (ParameterError), for Add and ReducePairElem and, cross-cutting,
    every element-wise high-dim row and high-dim ReduceSum; continuous 0 and all-zero bit words alike."""
    core = aj.Core("ascend950")
    for mask in (0, [0, 0]):
        for name, call in _high_dim_calls(core, mask, 1).items():
            _refused(core, call, aj.ParameterError)
        src, dst, tmp = core.local_tensor("half", 128), core.local_tensor("half", 16), core.local_tensor("half", 16)
        _refused(core, lambda: aj.ReduceSum(dst, src, tmp, mask, 1, 8), aj.ParameterError)


@pytest.mark.parametrize("dev", DEVS)
def test_d14_add_count_zero_is_nop_and_negative_mask_refused(dev):
    """SPEC D7/D14: Add with count 0 is a NOP on every device; a negative mask is refused everywhere."""
    core = aj.Core(dev)
    a, d = core.local_tensor("half", 128), core.local_tensor("half", 128)
    before = core.ub.copy()
    aj.Add(d, a, a, 0)
    assert np.array_equal(before, core.ub)
    _refused(core, lambda: aj.Add(d, a, a, -1, 1, aj.BinaryRepeatParams()), aj.ParameterError)


# ---------------------------------------------------------------- D8: subnormals kept everywhere
_SUB_H = np.array([1, 2, 0x3FF, 0x8001, 0x83FF, 0x0200], np.uint16).view(H)     # half subnormals
_SUB_F = np.array([1, 2, 0x7FFFFF, 0x80000001, 0x00400000], np.uint32).view(np.float32)


@pytest.mark.parametrize("dev", DEVS)
@pytest.mark.parametrize("dtype", ["half", "float"])
def test_d8_subnormals_kept_in_non_ftz_instructions(dev, dtype):
    """SPEC D8: subnormal inputs and results are kept (gradual underflow) on every device, for every instruction
    not under a D38 FTZ algorithm: Add, Sub, Mul, Max, Min, Adds, Muls, Abs, Relu count forms and the sums."""
    npd = H if dtype == "half" else np.float32
    sub = _SUB_H if dtype == "half" else _SUB_F
    core = aj.Core(dev)
    n = 64
    a_v = np.resize(sub, n).astype(npd)
    b_v = np.resize(sub[::-1], n).astype(npd)
    half_v = np.full(n, 0.5, npd)
    minnorm = np.finfo(npd).tiny
    a, b, h, d = (core.local_tensor(dtype, n) for _ in range(4))
    a[:], b[:], h[:] = a_v, b_v, half_v
    cases = {
        "Add": (lambda: aj.Add(d, a, b, n), a_v + b_v),
        "Sub": (lambda: aj.Sub(d, a, b, n), a_v - b_v),
        "Max": (lambda: aj.Max(d, a, b, n), np.maximum(a_v, b_v)),
        "Min": (lambda: aj.Min(d, a, b, n), np.minimum(a_v, b_v)),
        "Abs": (lambda: aj.Abs(d, a, n), np.abs(a_v)),
        "Relu": (lambda: aj.Relu(d, a, n), np.where(a_v > 0, a_v, npd(0))),
        "Adds": (lambda: aj.Adds(d, a, 0.0, n), a_v + npd(0)),
    }
    a2 = np.full(n, minnorm, npd) * np.resize(np.array([1, -1], npd), n)
    cases["Mul"] = (lambda: (a.__setitem__(slice(None), a2), aj.Mul(d, a, h, n)), (a2 * half_v))
    cases["Muls"] = (lambda: (a.__setitem__(slice(None), a2), aj.Muls(d, a, 0.5, n)), (a2 * npd(0.5)))
    for name, (call, want) in cases.items():
        if dtype not in _instr(name).dtypes(core.spec):
            continue
        a[:] = a_v
        d[:] = np.full(n, 7.0, npd)
        call()
        got = d.numpy()
        assert np.array_equal(_bits(got, npd), _bits(want.astype(npd), npd)), (name, got, want)
        assert np.any(got != 0)


@pytest.mark.parametrize("dev", DEVS)
def test_d8_subnormal_sums_kept(dev):
    """SPEC D8 with D2: ReduceSum (count form) and ReducePairElem of half subnormals keep the exact subnormal sums."""
    core = aj.Core(dev)
    src, dst, tmp = core.local_tensor("half", 128), core.local_tensor("half", 64), core.local_tensor("half", 16)
    x = np.resize(np.array([1, 3, 5, 0x8002], np.uint16).view(H), 128)
    src[:] = x
    aj.ReduceSum(dst, src, tmp, 128)
    assert dst.numpy()[0] == _tree(x) and int(_bits(dst.numpy()[0])) == 32 * 7
    aj.ReducePairElem(dst, src, 128, 1, 1, 1, 8)
    want = np.array([_add(x[2 * p], x[2 * p + 1]) for p in range(64)], H)
    assert np.array_equal(_bits(dst.numpy()), _bits(want))


def test_d8_reg_add_keeps_subnormals():
    """SPEC D8: the 950 Reg Add keeps subnormal halves and floats."""
    core = aj.Core("ascend950")
    for dtype, sub, npd in (("half", _SUB_H, H), ("float", _SUB_F, np.float32)):
        vl = 256 // np.dtype(npd).itemsize
        x = np.resize(sub, vl).astype(npd)
        s, o = core.local_tensor(dtype, vl), core.local_tensor(dtype, vl)
        s[:] = x
        r, q = R.RegTensor(dtype), R.RegTensor(dtype)
        with core:
            R.LoadAlign(r, s)
            R.Add(q, r, r, R.CreateMask(dtype))
            R.StoreAlign(o, q, R.CreateMask(dtype))
        assert np.array_equal(_bits(o.numpy(), npd), _bits(x + x, npd))


# ---------------------------------------------------------------- D9, D21: Add on the 950, integer wrap
_INT_TYPES = {"int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16, "int32": np.int32,
              "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64}


@pytest.mark.parametrize("dtype", sorted(_INT_TYPES))
@pytest.mark.parametrize("int_sat", [False, True])
def test_d9_d21_950_add_integer_types(dtype, int_sat):
    """SPEC D9: Add on the 950 takes every listed type; D6/D21: int16/int32 clamp only with CTRL bit 53 set by
    SetCtrlSpr, the 8-bit, 64-bit and unsigned types always wrap."""
    npd = _INT_TYPES[dtype]
    info = np.iinfo(npd)
    core = aj.Core("ascend950")
    if int_sat:
        core.SetCtrlSpr(53, 53, 1)
    n = 256 // np.dtype(npd).itemsize
    rng = np.random.default_rng(46)
    a_v = rng.integers(info.min, info.max, n, dtype=npd, endpoint=True)
    b_v = rng.integers(info.min, info.max, n, dtype=npd, endpoint=True)
    a_v[:2] = info.max
    b_v[:2] = [info.max, 1]
    a, b, d = (core.local_tensor(dtype, n) for _ in range(3))
    a[:], b[:] = a_v, b_v
    before = core.ub.copy()
    aj.Add(d, a, b, n)
    exact = a_v.astype(object) + b_v.astype(object)
    if int_sat and dtype in ("int16", "int32"):
        want = np.array([min(max(v, info.min), info.max) for v in exact], npd)
    else:
        want = np.array([int(v) % (1 << (8 * np.dtype(npd).itemsize)) for v in exact], np.uint64).astype(npd)
    assert np.array_equal(d.numpy(), want)
    _only_changed(before, core, _span(d))


def test_d9_950_add_bfloat16():
    """SPEC D9: bfloat16 Add on the 950 = round-to-bf16 of the fp32 add (SPEC 5.1), IEEE in every mode (D6)."""
    import ml_dtypes
    bf = ml_dtypes.bfloat16
    core = aj.Core("ascend950")
    core.SetCtrlSpr(48, 48, 0)                       # half saturation does not touch bf16 Add (D6)
    n = 128
    a_v = np.array(np.linspace(-3, 3, n), bf)
    a_v[0] = bf(3.0e38)
    b_v = np.array(np.linspace(1, 2, n) / 3, bf)
    b_v[0] = bf(3.0e38)
    a, b, d = (core.local_tensor("bfloat16", n) for _ in range(3))
    a[:], b[:] = a_v, b_v
    aj.Add(d, a, b, n)
    want = (a_v.astype(np.float32) + b_v.astype(np.float32)).astype(bf)
    assert np.array_equal(d.numpy().view(np.uint16), want.view(np.uint16))
    assert np.isposinf(np.float32(d.numpy()[0]))


# ---------------------------------------------------------------- D10: undefined behaviour raises first
@pytest.mark.parametrize("dev", DEVS)
def test_d10_undefined_behaviour_raises_before_writing(dev):
    """SPEC D10: misaligned address, partial overlap, dstBlkStride 0, out-of-range parameter and an access past
    the end of the UB raise a clear error and leave the UB byte-identical."""
    core = aj.Core(dev, bounds="ub")
    a, b, d = (core.local_tensor("half", 256) for _ in range(3))
    a[:] = np.ones(256, H)
    P = aj.BinaryRepeatParams
    _refused(core, lambda: aj.Add(d[1], a, b, 128, 1, P()), aj.AlignmentError)            # dst 2 B off a block
    _refused(core, lambda: aj.Add(a[16], a, b, 128, 1, P()), aj.OverlapError)              # partial overlap
    _refused(core, lambda: aj.Add(d, a, b, 128, 1, P(0, 1, 1, 8, 8, 8)), aj.ParameterError)  # dstBlkStride 0
    _refused(core, lambda: aj.Add(d, a, b, 128, 256, P()), aj.ParameterError)              # repeat > 255
    _refused(core, lambda: aj.Add(d, a, b, -5, 1, P()), aj.ParameterError)                 # negative mask
    end = core.local_tensor("half", 16, addr=core.ub.size - 32)
    _refused(core, lambda: aj.Add(end, a, b, 128, 1, P()), aj.OutOfBoundsError)            # past the UB end
    _refused(core, lambda: aj.ReducePairElem(d, a, 128, 1, 1, 1, -1), aj.ParameterError)        # srcRepStride < 0


# ---------------------------------------------------------------- D11, D18: sharedTmpBuffer minimum
@pytest.mark.parametrize("dev", DEVS)
def test_d11_d18_tmp_minimum_high_dim(dev):
    """SPEC D11/D18: high-dim ReduceSum accepts any tmp of at least RoundUp(repeatTime, 16) halves; a smaller one
    raises an error stating the required size; nothing is written by the refusal."""
    core = aj.Core(dev)
    src, dst = core.local_tensor("half", 128 * 20), core.local_tensor("half", 16)
    src[:] = np.ones(128 * 20, H)
    small, ok, big = (core.local_tensor("half", n) for n in (16, 32, 48))
    msg = _refused(core, lambda: aj.ReduceSum(dst, src, small, 128, 20, 8), aj.ParameterError)
    assert "32" in msg or "64" in msg, msg
    for tmp in (ok, big):
        dst[:] = H(0.0)
        before = core.ub.copy()
        aj.ReduceSum(dst, src, tmp, 128, 20, 8)
        assert dst.numpy()[0] == H(2560.0)
        _only_changed(before, core, _span(dst, 0, 1) | _span(tmp))


def test_d11_950_count_tmp_ceil_rounded_to_block():
    """SPEC D11: 950 count ReduceSum needs ceil(count/L) entries rounded up to a 32-byte block: count 2049 half
    -> 17 entries -> 32 halves; 16 refused (the doc formula's 16 is one short, SPEC 4.5), 32 accepted."""
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("half", 2049), core.local_tensor("half", 16)
    src[:] = np.ones(2049, H)
    small, ok = core.local_tensor("half", 16), core.local_tensor("half", 32)
    msg = _refused(core, lambda: aj.ReduceSum(dst, src, small, 2049), aj.ParameterError)
    assert "32" in msg or "64" in msg, msg
    aj.ReduceSum(dst, src, ok, 2049)
    assert dst.numpy()[0] == H(2049.0)


def test_d11_a2_count_form_any_tmp():
    """SPEC D11/D18: the A2/A3 count form has no minimum tmp (it is not used)."""
    core = aj.Core("atlas-a2")
    src, dst, tmp = core.local_tensor("half", 4096), core.local_tensor("half", 16), core.local_tensor("half", 16)
    src[:] = np.ones(4096, H)
    aj.ReduceSum(dst, src, tmp, 4096)
    assert dst.numpy()[0] == H(4096.0)


# ---------------------------------------------------------------- D12: the seed's worked example
@pytest.mark.parametrize("dev", DEVS)
@pytest.mark.parametrize("sat", [False, True])
def test_d12_seed_worked_example(dev, sat):
    """SPEC D12: [60000, 60000, -30000, 100] sums to 35584 in saturation mode, +inf in INF/NaN mode; via the count
    form and the high-dim form of ReduceSum, on every device that offers the mode."""
    core = aj.Core(dev)
    if sat and _saturating(core) is None:
        pytest.skip("310B has no saturation mode (D4)")
    if not sat and dev in SAT_DEVICES:
        pytest.skip("saturation only (D6)")
    src, dst, tmp = core.local_tensor("half", 128), core.local_tensor("half", 16), core.local_tensor("half", 16)
    src[:] = np.resize(np.array([60000, 60000, -30000, 100], H), 128)
    for call in (lambda: aj.ReduceSum(dst, src, tmp, 4), lambda: aj.ReduceSum(dst, src, tmp, 4, 1, 8)):
        dst[:] = H(1.0)
        call()
        got = dst.numpy()[0]
        assert (got == H(35584.0)) if sat else np.isposinf(got), got


# ---------------------------------------------------------------- D16: ReduceSum count range
@pytest.mark.parametrize("dev", DEVS)
def test_d16_reduce_sum_count_zero_and_past_ub_refused(dev):
    """SPEC D16: ReduceSum count 0 and count > UB bytes / sizeof(T) raise ParameterError on every device."""
    core = aj.Core(dev, bounds="ub")
    src, dst, tmp = core.local_tensor("half", 128), core.local_tensor("half", 16), core.local_tensor("half", 16)
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 0), aj.ParameterError)
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, core.ub.size // 2 + 1), aj.ParameterError)
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, -3), aj.ParameterError)


# ---------------------------------------------------------------- D17: more than L*L repeat results
@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync,dcache", reason="where ReduceSum takes no float, the "
                             "half src is a fresh tensor (its zero bytes are the emulator's fresh UB)")
@pytest.mark.parametrize("dev", DEVS)
def test_d17_more_than_l_squared_repeats_refused(dev):
    """SPEC D17: high-dim ReduceSum with more than L*L repeat results is refused naming L*L; L*L is accepted."""
    core = aj.Core(dev)
    src, dst = core.local_tensor("float", 64), core.local_tensor("float", 8)
    tmp = core.local_tensor("float", 4104)
    src[:] = np.zeros(64, np.float32)
    if "float" not in _instr("ReduceSum").dtypes(core.spec):
        src, dst = core.local_tensor("half", 128), core.local_tensor("half", 16)
        tmp = core.local_tensor("half", 16400)
        lanes = 128
    else:
        lanes = 64
    msg = _refused(core, lambda: aj.ReduceSum(dst, src, tmp, lanes, lanes * lanes + 1, 0), aj.ParameterError)
    assert str(lanes * lanes) in msg, msg
    before = core.ub.copy()
    aj.ReduceSum(dst, src, tmp, lanes, lanes * lanes, 0)
    assert dst.numpy()[0] == 0
    _only_changed(before, core, _span(dst, 0, 1) | _span(tmp))


# ---------------------------------------------------------------- D19: one lane of a pair masked
@pytest.mark.parametrize("dev", DEVS)
@pytest.mark.parametrize("sat", [False, True])
def test_d19_pair_with_one_lane_masked_is_rounded_add_of_plus_zero(dev, sat):
    """SPEC D19: one masked lane of a ReducePairElem pair -> x + (+0), one rounded add: -0 becomes +0 and the
    saturation mode applies (inf -> 65504, NaN -> +0)."""
    core = aj.Core(dev)
    if sat and _saturating(core) is None:
        pytest.skip("no saturation on 310B (D4)")
    if not sat and dev in SAT_DEVICES:
        pytest.skip("saturation only (D6)")
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 128)
    vals = [-0.0, np.inf, -np.inf, np.nan, 3.0, -5.5, 65504.0, 1e-7]
    x = np.resize(np.array(vals, H), 128)
    src[:] = x
    dst[:] = np.full(128, 9.0, H)
    mask = [0x5555555555555555, 0x5555555555555555]          # even lanes only: every pair has lane 2p+1 masked
    before = core.ub.copy()
    aj.ReducePairElem(dst, src, mask, 1, 1, 1, 8)
    want = np.array([_add(x[2 * p], 0.0, sat) for p in range(64)], H)
    got = dst.numpy()[:64]
    gb, wb = _bits(got), _bits(want)
    nan_w = np.isnan(want)
    assert np.array_equal(gb[~nan_w], wb[~nan_w]) and np.all(np.isnan(got[nan_w]))
    assert not sat or not np.any(np.isnan(got))
    _only_changed(before, core, _span(dst, 0, 64))


# ---------------------------------------------------------------- D20: saturation NaN and masked MAX/MIN blocks
@pytest.mark.parametrize("dev", [d for d in DEVS if d != "atlas-200i-500-a2"])
def test_d20_sat_nan_becomes_plus_zero(dev):
    """SPEC D20: in saturation mode a NaN result becomes +0 (Add count form; ReduceSum where NaN + x -> 0 and the
    tree continues, SPEC 5.2 "255 x 1.0 + one NaN" -> 254)."""
    core = _saturating(aj.Core(dev))
    a, b, d = (core.local_tensor("half", 128) for _ in range(3))
    a[:] = np.resize(np.array([np.nan, np.inf, -np.inf, 1.0], H), 128)
    b[:] = np.resize(np.array([1.0, -np.inf, np.inf, np.nan], H), 128)
    aj.Add(d, a, b, 128)
    assert np.all(_bits(d.numpy()) == 0)
    src, tmp = core.local_tensor("half", 256), core.local_tensor("half", 16)
    x = np.ones(256, H)
    x[5] = np.nan
    src[:] = x
    aj.ReduceSum(d, src, tmp, 256)
    assert d.numpy()[0] == H(254.0)


@pytest.mark.parametrize("dev", ["ascend950", "atlas-200i-500-a2"])
@pytest.mark.parametrize("op,ident", [("BlockReduceMax", -1.0), ("BlockReduceMin", 1.0)])
@pytest.mark.parametrize("sat", [False, True])
def test_d20_fully_masked_max_min_block(dev, op, ident, sat):
    """SPEC D20 with SPEC 2.4: a fully masked half MAX/MIN block is filled with its identity; in saturation mode
    the identity -inf/+inf saturates to -65504/+65504 (310B fills +-65504 in its only mode, SPEC 2.4)."""
    core = aj.Core(dev)
    if sat and _saturating(core) is None:
        pytest.skip("no saturation on 310B (D4)")
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 16)
    src[:] = (np.arange(128) % 9).astype(H)
    dst[:] = np.full(16, 7.0, H)
    before = core.ub.copy()
    getattr(aj, op)(dst, src, 1, 16, 1, 1, 8)                 # only block 0 active
    got = dst.numpy()
    blk0 = src.numpy()[:16]
    assert got[0] == (blk0.max() if op.endswith("Max") else blk0.min())
    if dev == "atlas-200i-500-a2" or sat:
        want = H(ident * HALF_MAX)
    else:
        want = H(ident * np.inf)
    assert np.all(_bits(got[1:8]) == _bits(want)), got
    _only_changed(before, core, _span(dst, 0, 8))


# ---------------------------------------------------------------- D21: the switches
def test_d21_950_switches_are_set_ctrl_spr_only():
    """SPEC D21: SetSaturationFlag is refused on the 950; SetCtrlSpr bit 48 switches half, bit 53 int16/int32;
    integer ReduceSum always wraps even with bit 53 set."""
    core = aj.Core("ascend950")
    with pytest.raises(aj.AscendJitError):
        core.SetSaturationFlag(True)
    a, d = core.local_tensor("half", 128), core.local_tensor("half", 128)
    a[:] = np.full(128, 60000.0, H)
    aj.Add(d, a, a, 128)
    assert np.all(np.isposinf(d.numpy()))
    core.SetCtrlSpr(48, 48, 0)
    aj.Add(d, a, a, 128)
    assert np.all(d.numpy() == H(HALF_MAX))
    core.SetCtrlSpr(48, 48, 1)
    core.SetCtrlSpr(53, 53, 1)
    src, dst, tmp = core.local_tensor("int32", 64), core.local_tensor("int32", 8), core.local_tensor("int32", 8)
    src[:] = np.full(64, 2**31 - 1, np.int32)
    aj.ReduceSum(dst, src, tmp, 64)
    assert dst.numpy()[0] == np.int32((64 * (2**31 - 1)) % 2**32 - 2**32)
    i16, o16 = core.local_tensor("int16", 128), core.local_tensor("int16", 128)
    i16[:] = np.full(128, 32767, np.int16)
    aj.Add(o16, i16, i16, 128)
    assert np.all(o16.numpy() == 32767)


# ---------------------------------------------------------------- D23: 950 high-dim ReduceSum, counter mode
@pytest.mark.parametrize("repeat", [0, 1, 3])
def test_d23_950_counter_mode_high_dim_reduce_sum(repeat):
    """SPEC D23: in counter mode the 950 high-dim ReduceSum sums `mask` elements (low 32 bits); repeatTime is
    ignored and the mask register (here a count of 5) is not read."""
    core = aj.Core("ascend950")
    src, dst, tmp = core.local_tensor("half", 512), core.local_tensor("half", 16), core.local_tensor("half", 64)
    x = np.ones(512, H)
    x[300:] = 1000.0
    src[:] = x
    core.SetMaskCount()
    core.SetVectorMask(0, 5)
    dst[:] = H(-1.0)
    before = core.ub.copy()
    aj.ReduceSum(dst, src, tmp, 300, repeat, 8)
    assert dst.numpy()[0] == H(300.0)
    _only_changed(before, core, _span(dst, 0, 1) | _span(tmp))
    aj.ReduceSum(dst, src, tmp, [(7 << 32) | 300, 0], repeat, 8)
    assert dst.numpy()[0] == H(300.0)


# ---------------------------------------------------------------- D24: 950 ReducePairElem, counter mode
@pytest.mark.parametrize("count", [200, 201, 128, 7])
def test_d24_950_counter_mode_pair_tail_zeroed(count):
    """SPEC D24: 950 ReducePairElem in counter mode writes 0 to the pairs past the count in the last repeat
    (a half pair is x + (+0), D19); dstRepStride 0 in counter mode is refused."""
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("half", 256), core.local_tensor("half", 256)
    x = (np.arange(256) % 11 - 5).astype(H)
    src[:] = x
    dst[:] = np.full(256, 9.0, H)
    core.SetMaskCount()
    before = core.ub.copy()
    aj.ReducePairElem(dst, src, count, 1, 1, 1, 8)
    reps = -(-count // 128)
    xm = np.where(np.arange(256) < count, x, H(0.0)).astype(H)
    want = np.array([_add(xm[2 * p], xm[2 * p + 1]) for p in range(64 * reps)], H)
    got = dst.numpy()
    assert np.array_equal(_bits(got[:64 * reps]), _bits(want)), (got[:64 * reps], want)
    _only_changed(before, core, _span(dst, 0, 64 * reps))
    _refused(core, lambda: aj.ReducePairElem(dst, src, count, 1, 0, 1, 8), aj.ParameterError)


# ================================================================ cross-cutting sweeps over more registry rows
def _reg_run(core, dtype, vals, op):
    """Load `vals` into a register on the 950, apply `op(dst_reg, src_reg, mask)`, store all lanes back."""
    npd = H if dtype == "half" else np.float32
    vl = 256 // np.dtype(npd).itemsize
    s, o = core.local_tensor(dtype, vl), core.local_tensor(dtype, vl)
    s[:] = np.resize(np.asarray(vals, npd), vl)
    o[:] = np.full(vl, 7.0, npd)
    r, q = R.RegTensor(dtype), R.RegTensor(dtype)
    with core:
        m = R.CreateMask(dtype)
        R.LoadAlign(r, s)
        op(q, r, m)
        R.StoreAlign(o, q, m)
    return s.numpy(), o.numpy()


_REG_SUB_OPS = {
    "Reg.Add": (lambda q, r, m: R.Add(q, r, r, m), lambda x: x + x),
    "Reg.Sub": (lambda q, r, m: R.Sub(q, r, r, m), lambda x: x - x),
    "Reg.Max": (lambda q, r, m: R.Max(q, r, r, m), lambda x: x),
    "Reg.Min": (lambda q, r, m: R.Min(q, r, r, m), lambda x: x),
    "Reg.Abs": (lambda q, r, m: R.Abs(q, r, m), np.abs),
    "Reg.Neg": (lambda q, r, m: R.Neg(q, r, m), np.negative),
    "Reg.Relu": (lambda q, r, m: R.Relu(q, r, m), lambda x: np.where(x > 0, x, x.dtype.type(0))),
    "Reg.Muls": (lambda q, r, m: R.Muls(q, r, 0.5, m), lambda x: x * x.dtype.type(0.5)),
    "Reg.Adds": (lambda q, r, m: R.Adds(q, r, 0.0, m), lambda x: x + x.dtype.type(0)),
    "Reg.Maxs": (lambda q, r, m: R.Maxs(q, r, 0.0, m), lambda x: np.where(x > 0, x, x.dtype.type(0))),
    "Reg.Mins": (lambda q, r, m: R.Mins(q, r, 0.0, m), lambda x: np.where(x < 0, x, x.dtype.type(0))),
    "Reg.LeakyRelu": (lambda q, r, m: R.LeakyRelu(q, r, 0.5, m),
                      lambda x: np.where(x >= 0, x, (x.astype(np.float64) * 0.5).astype(x.dtype))),
    "Reg.Move": (lambda q, r, m: R.Move(q, r, m), lambda x: x),
}


@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("name", sorted(_REG_SUB_OPS))
def test_d8_reg_rows_keep_subnormals(dtype, name):
    """SPEC D8 (SPEC-2 D38: only the named FTZ algorithms flush): the 950 Reg element-wise rows keep subnormal
    inputs and results."""
    core = aj.Core("ascend950")
    sub = _SUB_H if dtype == "half" else _SUB_F
    op, model = _REG_SUB_OPS[name]
    x, got = _reg_run(core, dtype, sub, op)
    npd = x.dtype
    assert np.array_equal(_bits(got, npd), _bits(model(x).astype(npd), npd)), (name, got[:6], model(x)[:6])


@pytest.mark.parametrize("dev", DEVS)
def test_d8_more_memory_rows_keep_subnormals(dev):
    """SPEC D8 across more rows: Duplicate of a subnormal scalar, LeakyRelu of a negative subnormal, half->float and
    float->half Cast, Compares/Compare against 0, WholeReduceSum and BlockReduceSum of subnormals."""
    core = aj.Core(dev)
    spec = core.spec
    n = 128
    tiny = float(np.uint16(3).view(H))                          # 3 x 2^-24
    a, d = core.local_tensor("half", n), core.local_tensor("half", n)
    x = np.resize(_SUB_H, n)
    a[:] = x
    if "half" in _instr("Duplicate").dtypes(spec):
        aj.Duplicate(d, tiny, n)
        assert np.all(_bits(d.numpy()) == 3)
    if "half" in _instr("LeakyRelu").dtypes(spec):
        aj.LeakyRelu(d, a, 0.5, n)
        want = np.where(x >= 0, x, (x.astype(np.float32) * np.float32(0.5)).astype(H))
        assert np.array_equal(_bits(d.numpy()), _bits(want))
    f = core.local_tensor("float", n)
    if _instr("Cast").offered(spec):
        try:
            aj.Cast(f, a, aj.RoundMode.CAST_NONE, n)
        except aj.UnsupportedDTypeError:
            pass
        else:
            assert np.array_equal(f.numpy(), x.astype(np.float32))
        f[:] = np.full(n, 2.0 ** -20, np.float32)
        try:
            aj.Cast(d, f, aj.RoundMode.CAST_RINT, n)
        except aj.UnsupportedDTypeError:
            pass
        else:
            assert np.all(_bits(d.numpy()) == 0x0010)
    w = core.local_tensor("half", 16)
    w[:] = np.full(16, 9.0, H)
    aj.WholeReduceSum(w, a, 128, 1, 1, 1, 8)
    assert w.numpy()[0] == _tree(x)
    aj.BlockReduceSum(w, a, 1, 128, 1, 1, 8)
    assert np.array_equal(_bits(w.numpy()[:8]),
                          _bits(np.array([_tree(x[16 * b:16 * b + 16], 16) for b in range(8)], H)))
    if _instr("Compares").offered(spec) and "half" in _instr("Compares").dtypes(spec):
        cm = core.local_tensor("uint8", 32)
        a[:] = np.full(n, tiny, H)
        aj.Compares(cm, a, 0.0, aj.CMPMODE.GT, n)
        assert np.all(cm.numpy()[:16] == 0xFF), cm.numpy()


def _sat_cases():
    inf, nan = np.inf, np.nan
    return {   # name -> (call(d, a, b, n), a values, b values, model(a, b) before saturation)
        "Add": (lambda d, a, b, n: aj.Add(d, a, b, n), [inf, nan, 60000, -inf], [-inf, 1, 60000, -1],
                lambda a, b: a + b),
        "Sub": (lambda d, a, b, n: aj.Sub(d, a, b, n), [inf, nan, 60000, -60000], [inf, 1, -60000, 60000],
                lambda a, b: a - b),
        "Mul": (lambda d, a, b, n: aj.Mul(d, a, b, n), [inf, 300, -300, nan], [0, 300, 300, 2],
                lambda a, b: a * b),
        "Adds": (lambda d, a, b, n: aj.Adds(d, a, 1.0, n), [inf, nan, 65504, -inf], None, lambda a, b: a + 1),
        "Muls": (lambda d, a, b, n: aj.Muls(d, a, 0.0, n), [inf, nan, -inf, 3], None, lambda a, b: a * 0),
        "Muls2": (lambda d, a, b, n: aj.Muls(d, a, 4.0, n), [60000, -60000, nan, 2], None, lambda a, b: a * 4),
        "Abs": (lambda d, a, b, n: aj.Abs(d, a, n), [nan, -inf, inf, -3], None, lambda a, b: np.abs(a)),
        "LeakyRelu": (lambda d, a, b, n: aj.LeakyRelu(d, a, 0.5, n), [-inf, nan, inf, -4], None,
                      lambda a, b: np.where(a >= 0, a, a * 0.5)),
    }


@pytest.mark.parametrize("dev", [d for d in DEVS if d != "atlas-200i-500-a2"])
@pytest.mark.parametrize("name", sorted(_sat_cases()))
def test_d20_saturation_per_stage_across_rows(dev, name):
    """SPEC D20 (with SPEC 5.2, SPEC-2 D35): in saturation mode every half result NaN becomes +0 and +-inf becomes
    +-65504, whichever element-wise row produced it."""
    core = _saturating(aj.Core(dev))
    call, av, bv, model = _sat_cases()[name]
    instr = _instr(name.rstrip("2"))
    if not instr.offered(core.spec) or "half" not in instr.dtypes(core.spec):
        pytest.skip("not offered")
    n = 128
    a, b, d = (core.local_tensor("half", n) for _ in range(3))
    A = np.resize(np.array(av, H), n)
    B = np.resize(np.array(bv if bv is not None else [0], H), n)
    a[:], b[:] = A, B
    d[:] = np.full(n, 7.0, H)
    before = core.ub.copy()
    with np.errstate(all="ignore"):
        want = np.array([_sat(v, True) for v in model(A.astype(np.float32), B.astype(np.float32))], H)
    call(d, a, b, n)
    assert np.array_equal(_bits(d.numpy()), _bits(want)), (d.numpy()[:4], want[:4])
    _only_changed(before, core, _span(d))


@pytest.mark.parametrize("dev", [d for d in DEVS if d != "atlas-200i-500-a2"])
def test_d12_d20_seed_example_through_block_and_whole_reduce(dev):
    """SPEC D12 through WholeReduceSum and ReduceDataBlock SUM (DK labels the example there): 35584 in saturation
    mode; D20: a NaN in the tree becomes +0 at its stage."""
    core = _saturating(aj.Core(dev))
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 16)
    x = np.zeros(128, H)
    x[:4] = [60000, 60000, -30000, 100]
    x[16:18] = [np.nan, 5.0]
    src[:] = x
    aj.WholeReduceSum(dst, src, 4, 1, 1, 1, 8)
    assert dst.numpy()[0] == H(35584.0)
    aj.BlockReduceSum(dst, src, 1, 128, 1, 1, 8)
    assert dst.numpy()[0] == H(35584.0) and dst.numpy()[1] == H(0.0)


@pytest.mark.parametrize("sat", [False, True])
def test_d12_950_reg_reduce_seed_example(sat):
    """SPEC D12 on the 950 Reg API: Reduce SUM and ReduceDataBlock SUM of [60000, 60000, -30000, 100, 0...] give
    35584 with CTRL bit 48 = 0, +inf otherwise."""
    core = aj.Core("ascend950")
    if sat:
        core.SetCtrlSpr(48, 48, 0)
    vals = np.zeros(128, H)
    vals[:4] = [60000, 60000, -30000, 100]
    for op in (lambda q, r, m: R.Reduce(q, r, m), lambda q, r, m: R.ReduceDataBlock(q, r, m)):
        _, got = _reg_run(core, "half", vals, op)
        assert (got[0] == H(35584.0)) if sat else np.isposinf(got[0]), got[0]


@pytest.mark.parametrize("dev", DEVS)
def test_d19_old_pair_reduce_sum_and_reg_pair(dev):
    """SPEC D19 on the old name PairReduceSum (same instruction) and, on the 950, Reg PairReduceElem (SPEC 7.6):
    a pair with one lane masked gives x + (+0), so -0 becomes +0."""
    core = aj.Core(dev)
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 128)
    src[:] = np.resize(np.array([-0.0, 4.0], H), 128)
    dst[:] = np.full(128, 9.0, H)
    aj.PairReduceSum(dst, src, 1, [0x5555555555555555, 0x5555555555555555], 1, 1, 8)
    assert np.all(_bits(dst.numpy()[:64]) == 0), dst.numpy()[:4]
    assert np.all(dst.numpy()[64:] == 9.0)
    if dev == "ascend950":
        vals = np.resize(np.array([-0.0, 4.0], H), 128)
        s, o = core.local_tensor("half", 128), core.local_tensor("half", 128)
        s[:] = vals
        r, q = R.RegTensor("half"), R.RegTensor("half")
        with core:
            R.LoadAlign(r, s)
            R.PairReduceElem(q, r, _even_mask())
            R.StoreAlign(o, q, R.CreateMask("half"))
        assert np.all(_bits(o.numpy()[:64]) == 0), o.numpy()[:4]


def _even_mask():
    """Half lanes 0, 2, 4, ...: lane j is predicated by register byte 2j (SPEC 7.1), so bits 0, 4, 8, ..."""
    m = R.MaskReg((0x1111111111111111,) * 4)
    assert m.lanes("half") == list(range(0, 128, 2))
    return m


# ---------------------------------------------------------------- more D16 / D11 / D24 / D1 dtypes
@pytest.mark.parametrize("dev,dtype", [(d, t) for d in DEVS for t in ("float", "int32", "int64")])
def test_d16_count_limit_per_dtype(dev, dtype):
    """SPEC D16: the limit is UB bytes / sizeof(T) for every ReduceSum dtype the device offers."""
    core = aj.Core(dev, bounds="ub")
    if dtype not in _instr("ReduceSum").dtypes(core.spec):
        pytest.skip("dtype not offered")
    size = np.dtype({"float": np.float32, "int32": np.int32, "int64": np.int64}[dtype]).itemsize
    src, dst, tmp = (core.local_tensor(dtype, n) for n in (64, 8, 8))
    msg = _refused(core, lambda: aj.ReduceSum(dst, src, tmp, core.ub.size // size + 1), aj.ParameterError)
    assert str(core.ub.size // size) in msg, msg
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 0), aj.ParameterError)


def test_d11_950_float_count_tmp():
    """SPEC D11: 950 float count 1025 -> ceil(1025/64) = 17 entries -> 24 floats (a 32-byte multiple)."""
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("float", 1025), core.local_tensor("float", 8)
    src[:] = np.ones(1025, np.float32)
    small, ok = core.local_tensor("float", 16), core.local_tensor("float", 24)
    msg = _refused(core, lambda: aj.ReduceSum(dst, src, small, 1025), aj.ParameterError)
    assert "24" in msg or "96" in msg, msg
    aj.ReduceSum(dst, src, ok, 1025)
    assert dst.numpy()[0] == 1025.0


@pytest.mark.parametrize("count", [65, 127, 64, 5])
def test_d24_950_counter_mode_float_pairs(count):
    """SPEC D24 for float (L = 64): pairs past the count written 0, a half-masked last pair is x + (+0)."""
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("float", 128), core.local_tensor("float", 128)
    x = np.resize(np.array([-0.0, 1.5, -2.25, -0.0], np.float32), 128)
    src[:] = x
    dst[:] = np.full(128, 9.0, np.float32)
    core.SetMaskCount()
    before = core.ub.copy()
    aj.ReducePairElem(dst, src, count, 1, 1, 1, 8)
    reps = -(-count // 64)
    xm = np.where(np.arange(128) < count, x, np.float32(0.0)).astype(np.float32)
    want = np.array([np.float32(xm[2 * p]) + np.float32(xm[2 * p + 1]) for p in range(32 * reps)], np.float32)
    got = dst.numpy()[:32 * reps]
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (got, want)
    _only_changed(before, core, _span(dst, 0, 32 * reps))


@pytest.mark.parametrize("dev", ["atlas-a2", "atlas-a3"])
def test_d1_float_accumulator_rounded_per_repeat(dev):
    """SPEC D1 for float: 2^24 then three repeats of one 1.0 each: the float accumulator stays 2^24 (ties to even),
    a double accumulator would give 2^24 + 3 -> 2^24 + 4."""
    core = aj.Core(dev)
    x = np.zeros(256, np.float32)
    x[0], x[64], x[128], x[192] = 2.0 ** 24, 1.0, 1.0, 1.0
    src, dst, tmp = core.local_tensor("float", 256), core.local_tensor("float", 8), core.local_tensor("float", 8)
    src[:] = x
    dst[:] = np.full(8, 5.0, np.float32)
    before = core.ub.copy()
    aj.ReduceSum(dst, src, tmp, 256)
    assert dst.numpy()[0] == np.float32(2.0 ** 24)
    _only_changed(before, core, _span(dst, 0, 1))


# ---------------------------------------------------------------- D10 across the element-wise registry rows
_BIN_ROWS = ("Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or", "AddRelu", "SubRelu", "MulAddDst", "FusedMulAdd")
_UN_ROWS = ("Abs", "Relu", "Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal", "Not")
_SC_ROWS = ("Adds", "Muls", "Maxs", "Mins", "LeakyRelu", "Axpy", "ShiftLeft", "ShiftRight", "Ands", "Ors")


def _row_dtype(core, name):
    instr = _instr(name)
    if not instr.offered(core.spec):
        return None
    have = instr.dtypes(core.spec)
    return next((t for t in ("half", "int16", "float", "int32", "uint16") if t in have), None)


def _row_call(name, dt):
    scalar = 1.5 if dt in ("half", "float") else 1
    if name in _BIN_ROWS:
        return lambda d, s, m, rep, blk: getattr(aj, name)(d, s, s, m, rep, aj.BinaryRepeatParams(blk, 1, 1, 8, 8, 8))
    if name in _UN_ROWS:
        return lambda d, s, m, rep, blk: getattr(aj, name)(d, s, m, rep, aj.UnaryRepeatParams(blk, 1, 8, 8))
    return lambda d, s, m, rep, blk: getattr(aj, name)(d, s, scalar, m, rep, aj.UnaryRepeatParams(blk, 1, 8, 8))


@pytest.mark.parametrize("dev", DEVS)
def test_d10_undefined_behaviour_refused_across_rows(dev):
    """SPEC D10 cross-cutting: for every element-wise high-dim row, dstBlkStride 0, a misaligned dst, a partial
    overlap of dst and src, repeat 256 and a footprint past the UB end raise an AscendJitError before anything is
    written (the UB is byte-identical)."""
    core = aj.Core(dev, bounds="ub")
    ends = {}
    for name in _BIN_ROWS + _UN_ROWS + _SC_ROWS:
        dt = _row_dtype(core, name)
        if dt is None:
            continue
        size = np.dtype(aj.dtypes.resolve(dt).np_dtype).itemsize
        n = 512 // size
        s, d = core.local_tensor(dt, n), core.local_tensor(dt, n)
        call = _row_call(name, dt)
        lanes = 256 // size
        end = ends.setdefault(dt, core.local_tensor(dt, 32 // size, addr=core.ub.size - 32))
        bad = {"dstBlkStride 0": lambda: call(d, s, lanes, 1, 0),
               "misaligned dst": lambda: call(d[1], s, lanes, 1, 1),
               "partial overlap": lambda: call(s[16 // size * 2], s, lanes, 1, 1),
               "repeat 256": lambda: call(d, s, lanes, 256, 1),
               "past the UB end": lambda: call(end, s, lanes, 1, 1)}
        for what, c in bad.items():
            before = core.ub.copy()
            try:
                c()
            except aj.AscendJitError:
                pass
            else:
                raise AssertionError(f"{name} {dt} on {dev}: {what} was accepted")
            assert np.array_equal(before, core.ub), (name, what)


@pytest.mark.parametrize("dev", ["ascend950"] + list(NON950))
def test_d7_d14_repeat_zero_more_rows(dev):
    """SPEC D7/D14 extended: repeat 0 writes nothing for Duplicate, Copy, Cast, WholeReduceMax, BlockReduceMax,
    ReduceRepeat SUM and every element-wise row above."""
    core = aj.Core(dev)
    d, s = core.local_tensor("half", 256), core.local_tensor("half", 256)
    s[:] = np.ones(256, H)
    f = core.local_tensor("float", 256)
    calls = {"Duplicate": lambda: aj.Duplicate(d, 2.0, 128, 0, 1, 8),
             "Copy": lambda: aj.Copy(d, s, 128, 0, aj.CopyRepeatParams(1, 1, 8, 8)),
             "Cast": lambda: aj.Cast(f, s, aj.RoundMode.CAST_NONE, 64, 0, aj.UnaryRepeatParams(1, 1, 8, 4)),
             "WholeReduceMax": lambda: aj.WholeReduceMax(d, s, 128, 0, 1, 1, 8),
             "BlockReduceMax": lambda: aj.BlockReduceMax(d, s, 0, 128, 1, 1, 8),
             "ReduceRepeat": lambda: aj.ReduceRepeat(d, s, 128, 0, 1, 1, 8, reduce_type=aj.ReduceType.SUM)}
    for name in _BIN_ROWS + _UN_ROWS + _SC_ROWS:
        dt = _row_dtype(core, name)
        if dt is not None:
            t_s, t_d = core.local_tensor(dt, 256), core.local_tensor(dt, 256)
            calls[name] = (lambda c, a, b: lambda: c(b, a, 64, 0, 1))(_row_call(name, dt), t_s, t_d)
    for name, c in calls.items():
        if name in ("Duplicate", "Copy", "Cast", "WholeReduceMax", "BlockReduceMax", "ReduceRepeat"):
            instr = _instr(name)
            if not instr.offered(core.spec) or "half" not in instr.dtypes(core.spec):
                continue
        before = core.ub.copy()
        try:
            c()
        except aj.UnsupportedDTypeError:
            continue
        assert np.array_equal(before, core.ub), name


@pytest.mark.parametrize("dev", DEVS)
def test_d2_masked_lanes_plus_zero_in_memory_reductions(dev):
    """SPEC D2 across the Memory reductions: WholeReduceSum with a partial mask, BlockReduceSum with a partly
    masked block and ReduceRepeat SUM over all -0 lanes give +0 (a masked lane contributes +0); with the full mask
    and no padding the tree of -0 stays -0 (SPEC 5.5)."""
    core = aj.Core(dev)
    s, d = core.local_tensor("half", 128), core.local_tensor("half", 16)
    s[:] = np.full(128, -0.0, H)
    for mask, want in ((100, 0x0000), (128, 0x8000)):
        d[:] = np.full(16, 5.0, H)
        aj.WholeReduceSum(d, s, mask, 1, 1, 1, 8)
        assert int(_bits(d.numpy()[0])) == want, ("WholeReduceSum", mask)
        d[:] = np.full(16, 5.0, H)
        aj.BlockReduceSum(d, s, 1, [0x7FFF, 0] if mask == 100 else 128, 1, 1, 8)
        assert int(_bits(d.numpy()[0])) == want, ("BlockReduceSum", mask)
        if _instr("ReduceRepeat").offered(core.spec):
            d[:] = np.full(16, 5.0, H)
            aj.ReduceRepeat(d, s, mask, 1, 1, 1, 8, reduce_type=aj.ReduceType.SUM)
            assert int(_bits(d.numpy()[0])) == want, ("ReduceRepeat", mask)


def test_d2_reg_reduce_masked_lanes_plus_zero():
    """SPEC D2 (SPEC-2 D66) on the 950 Reg Reduce SUM and ReduceDataBlock SUM: -0 lanes with some lanes masked
    sum to +0; unmasked -0 sums stay -0."""
    core = aj.Core("ascend950")
    vals = np.full(128, -0.0, H)
    for mask, want in ((_even_mask(), 0x0000), (None, 0x8000)):
        for op in (R.Reduce, R.ReduceDataBlock):
            _, got = _reg_run(core, "half", vals, lambda q, r, m: op(q, r, mask if mask is not None else m))
            assert int(_bits(got[0])) == want, (op, mask)


# ---------------------------------------------------------------- D8 on the MODELLED rows (SPEC-2 D37/D38)
_F = np.float32


@pytest.mark.parametrize("dev", DEVS)
def test_d8_modelled_rows_keep_subnormals_off_ftz(dev):
    """SPEC D8: off the 950 (no D38 FTZ algorithm exists there) Sqrt, Ln, Reciprocal, Div and Exp read subnormal
    inputs as themselves and keep subnormal results; on the 950 the default INTRINSIC algorithms flush (D38) while
    Div PRECISION_0ULP_FTZ_FALSE keeps them."""
    core = aj.Core(dev)
    n = 64
    a, b, d = (core.local_tensor("float", n) for _ in range(3))
    tiny = _F(2.0 ** -140)
    cases = {   # name -> (input a, input b, call, exact model)
        "Sqrt": (tiny, None, lambda: aj.Sqrt(d, a, n), _F(2.0 ** -70)),
        "Reciprocal": (_F(2.0 ** 127), None, lambda: aj.Reciprocal(d, a, n), _F(2.0 ** -127)),
        "Div": (_F(2.0 ** -126), _F(4.0), lambda: aj.Div(d, a, b, n), _F(2.0 ** -128)),
        "Ln": (tiny, None, lambda: aj.Ln(d, a, n), _F(np.log(2.0 ** -140))),
        "Exp": (_F(-100.0), None, lambda: aj.Exp(d, a, n), _F(np.exp(np.float64(-100.0)))),
    }
    ftz = {"Sqrt": _F(0.0), "Reciprocal": _F(0.0), "Div": _F(0.0), "Ln": _F(-np.inf), "Exp": _F(0.0)}
    for name, (av, bv, call, want) in cases.items():
        if "float" not in _instr(name).dtypes(core.spec):
            continue
        a[:] = np.full(n, av, _F)
        b[:] = np.full(n, bv if bv is not None else 1.0, _F)
        call()
        expect = ftz[name] if dev == "ascend950" else want
        got = d.numpy()
        assert np.all(got.view(np.uint32) == np.array([expect], _F).view(np.uint32)[0]), (name, got[0], expect)
    if dev == "ascend950":
        a[:] = np.full(n, 2.0 ** -126, _F)
        b[:] = np.full(n, 4.0, _F)
        aj.Div(d, a, b, n, config=aj.DivAlgo.PRECISION_0ULP_FTZ_FALSE)
        assert np.all(d.numpy() == _F(2.0 ** -128))


# ---------------------------------------------------------------- D23 count range and tmp; D20 float identities
def test_d23_counter_count_range_and_tmp():
    """SPEC D23 with D16 and D11: the counter-mode count is refused at 0 and past UB/sizeof(T); tmp must hold
    ceil(count/L) entries rounded to a block, whatever repeatTime says."""
    core = aj.Core("ascend950")
    src, dst, tmp = core.local_tensor("half", 4096), core.local_tensor("half", 16), core.local_tensor("half", 16)
    src[:] = np.ones(4096, H)
    core.SetMaskCount()
    for cnt in (0, core.ub.size // 2 + 1):
        _refused(core, lambda: aj.ReduceSum(dst, src, tmp, cnt, 1, 8), aj.ParameterError)
    for rep in (0, 1, 200):
        msg = _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 3000, rep, 8), aj.ParameterError)
        assert "32" in msg
    big = core.local_tensor("half", 32)
    aj.ReduceSum(dst, src, big, 3000, 0, 8)
    assert dst.numpy()[0] == H(3000.0)


@pytest.mark.parametrize("sat", [False, True])
def test_d20_float_identity_never_saturates_950(sat):
    """SPEC D20 applies to half only (D6: float is always IEEE): a fully masked float MAX/MIN block on the 950 is
    -inf/+inf in both modes."""
    core = aj.Core("ascend950")
    if sat:
        core.SetCtrlSpr(48, 48, 0)
    src, dst = core.local_tensor("float", 64), core.local_tensor("float", 8)
    src[:] = np.arange(64, dtype=_F)
    aj.BlockReduceMax(dst, src, 1, 8, 1, 1, 8)
    assert np.all(np.isneginf(dst.numpy()[1:8])) and dst.numpy()[0] == 7.0
    aj.BlockReduceMin(dst, src, 1, 8, 1, 1, 8)
    assert np.all(np.isposinf(dst.numpy()[1:8])) and dst.numpy()[0] == 0.0


@pytest.mark.parametrize("op", ["MAX", "MIN"])
def test_d3_reg_reduce_data_block_max_min_zeroing(op):
    """SPEC D3 for MAX/MIN: lanes 8..VL-1 written 0 as for SUM."""
    core = aj.Core("ascend950")
    vals = (np.arange(128) % 13 - 6).astype(H)
    _, got = _reg_run(core, "half", vals, lambda q, r, m: R.ReduceDataBlock(q, r, m, getattr(R.ReduceType, op)))
    f = np.max if op == "MAX" else np.min
    assert np.array_equal(got[:8], np.array([f(vals[16 * b:16 * b + 16]) for b in range(8)], H))
    assert np.all(_bits(got[8:]) == 0)


@pytest.mark.parametrize("dev", DEVS)
def test_d2_both_masked_pairs_write_plus_zero_or_nothing(dev):
    """SPEC D2 with SPEC 2.4 / D14: a ReducePairElem pair with both lanes masked is written +0 on the 950 and the
    310B and left unchanged elsewhere; an unmasked -0 pair stays -0."""
    core = aj.Core(dev)
    s, d = core.local_tensor("half", 128), core.local_tensor("half", 128)
    s[:] = np.full(128, -0.0, H)
    d[:] = np.full(128, 9.0, H)
    before = core.ub.copy()
    aj.ReducePairElem(d, s, [0x3, 0x3], 1, 1, 1, 8)
    got = _bits(d.numpy())
    assert got[0] == 0x8000 and got[32] == 0x8000
    rest = np.delete(got[:64], [0, 32])
    if dev in ("ascend950", "atlas-200i-500-a2"):
        assert np.all(rest == 0)
        _only_changed(before, core, _span(d, 0, 64))
    else:
        assert np.all(rest == _bits(H(9.0)))
        _only_changed(before, core, _span(d, 0, 1) | _span(d, 32, 1))


# ---------------------------------------------------------------- D17 boundary with order-sensitive data
def _tree_f(v, lanes=64):
    v = list(np.asarray(v, _F)) + [_F(0.0)] * (lanes - len(v))
    while len(v) > 1:
        v = [_F(v[2 * k] + v[2 * k + 1]) for k in range(len(v) // 2)]
    return v[0]


@pytest.mark.parametrize("dev", [d for d in DEVS if d != "atlas-training"])
def test_d17_exactly_l_squared_repeats_tree_tree(dev):
    """SPEC D17: exactly L*L = 4096 float repeat results are accepted and reduced by the three-level tree of
    SPEC 4.2/4.3/4.4 (repeat trees, groups of L, one last tree); srcRepStride 1 makes every repeat different."""
    core = aj.Core(dev)
    reps = 64 * 64
    n = reps * 8 + 56
    rng = np.random.default_rng(17)
    x = rng.standard_normal(n).astype(_F) * _F(1000.0)
    src, dst, tmp = core.local_tensor("float", n), core.local_tensor("float", 8), core.local_tensor("float", reps)
    src[:] = x
    dst[:] = np.full(8, 5.0, _F)
    before = core.ub.copy()
    aj.ReduceSum(dst, src, tmp, 64, reps, 1)
    idx = np.arange(reps)[:, None] * 8 + np.arange(64)[None, :]
    level1 = [_tree_f(x[row]) for row in idx]
    level2 = [_tree_f(level1[64 * g:64 * g + 64]) for g in range(64)]
    want = _tree_f(level2)
    assert dst.numpy()[0].view(np.uint32) == np.array([want], _F).view(np.uint32)[0]
    _only_changed(before, core, _span(dst, 0, 1) | _span(tmp))


@pytest.mark.parametrize("dev", DEVS)
def test_d12_memory_reduce_data_block_sum(dev):
    """SPEC D12 through the Memory ReduceDataBlock SUM (DK ReduceDataBlock.md labels the example 饱和模式):
    35584 saturating, +inf in INF/NaN mode; only dst[0..7] written."""
    core = aj.Core(dev)
    sat = _saturating(core) is not None
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 16)
    x = np.zeros(128, H)
    x[:4] = [60000, 60000, -30000, 100]
    src[:] = x
    dst[:] = np.full(16, 3.0, H)
    before = core.ub.copy()
    aj.ReduceDataBlock(dst, src, 128, 1, 1, 1, 8, reduce_type=aj.ReduceType.SUM)
    got = dst.numpy()
    assert (got[0] == H(35584.0)) if sat else np.isposinf(got[0])
    assert np.all(got[1:8] == 0)
    _only_changed(before, core, _span(dst, 0, 8))


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_d7_950_repeat_zero_bit_mask(dtype):
    """SPEC D7: 950 high-dim ReduceSum with repeat 0 and a bit mask sums repeat 0 under that mask."""
    npd = H if dtype == "half" else _F
    lanes = 128 if dtype == "half" else 64
    core = aj.Core("ascend950")
    src, dst, tmp = core.local_tensor(dtype, lanes), core.local_tensor(dtype, 16), core.local_tensor(dtype, 16)
    x = (np.arange(lanes) % 9 + 1).astype(npd)
    src[:] = x
    words = [0xF0F0F0F0F0F0F0F1, 0x8000000000000001 if dtype == "half" else 0]
    act = [j for j in range(lanes) if (words[j // 64] >> (j % 64)) & 1]
    aj.ReduceSum(dst, src, tmp, words, 0, 8)
    assert dst.numpy()[0] == npd(x[act].astype(np.float64).sum())


@pytest.mark.parametrize("stride", [2, 3])
def test_d24_counter_mode_dst_rep_stride(stride):
    """SPEC D24 with dstRepStride > 1: repeat r writes L/2 results at r * stride * L/2; the last repeat's pairs past
    the count are 0; the gaps between repeats are untouched."""
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("half", 384), core.local_tensor("half", 64 * stride * 3)
    x = (np.arange(384) % 7).astype(H)
    src[:] = x
    dst[:] = np.full(dst.size, 9.0, H)
    core.SetMaskCount()
    before = core.ub.copy()
    aj.ReducePairElem(dst, src, 300, 1, stride, 1, 8)
    got = dst.numpy()
    allowed = set()
    for r in range(3):
        base = r * stride * 64
        want = [_add(x[128 * r + 2 * p], x[128 * r + 2 * p + 1]) if 128 * r + 2 * p < 300 else H(0) for p in range(64)]
        assert np.array_equal(_bits(got[base:base + 64]), _bits(np.array(want, H))), r
        allowed |= _span(dst, base, 64)
    _only_changed(before, core, allowed)


@pytest.mark.parametrize("dev", ["atlas-a2", "atlas-a3"])
def test_d1_random_count_forms_match_sequential_model(dev):
    """SPEC D1 on random data of several sizes (tails included): tree per repeat, half accumulator rounded per
    repeat addition; D26: dst[1..] and tmp unchanged."""
    core = aj.Core(dev)
    rng = np.random.default_rng(1)
    src, dst, tmp = core.local_tensor("half", 8320), core.local_tensor("half", 16), core.local_tensor("half", 16)
    for n in (1, 129, 1000, 8320):
        x = (rng.standard_normal(8320) * 30).astype(H)
        src[:] = x
        acc = None
        for r in range(0, n, 128):
            part = _tree(x[r:min(r + 128, n)])
            acc = part if acc is None else _add(acc, part)
        dst[:] = np.full(16, 5.0, H)
        before = core.ub.copy()
        aj.ReduceSum(dst, src, tmp, n)
        assert _bits(dst.numpy()[0]) == _bits(acc), n
        _only_changed(before, core, _span(dst, 0, 1))


def _block0_mask():
    """Half lanes 0..15 only (block 0): register bytes 0..31."""
    return R.MaskReg((0xFFFFFFFF, 0, 0, 0))


@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync,dcache", reason="an all-masked Reduce through a MaskReg() "
                             "no instruction wrote: the emulator's zero bits are the all-false mask the test means")
@pytest.mark.parametrize("sat", [False, True])
@pytest.mark.parametrize("op,sign", [("MAX", -1.0), ("MIN", 1.0)])
def test_d20_reg_fully_masked_blocks_and_reduce(sat, op, sign):
    """SPEC D20 on the 950 Reg API (SPEC 7.5; SPEC-2 D66): a fully masked half MAX/MIN block of ReduceDataBlock,
    and an all-masked Reg Reduce MAX/MIN, give the identity -inf/+inf, saturated to -65504/+65504 when CTRL[48] = 0;
    the fully masked SUM block gives +0."""
    core = aj.Core("ascend950")
    if sat:
        core.SetCtrlSpr(48, 48, 0)
    vals = (np.arange(128) % 5).astype(H)
    ident = H(sign * (HALF_MAX if sat else np.inf))
    _, got = _reg_run(core, "half", vals,
                      lambda q, r, m: R.ReduceDataBlock(q, r, _block0_mask(), getattr(R.ReduceType, op)))
    assert got[0] == (vals[:16].max() if op == "MAX" else vals[:16].min())
    assert np.all(_bits(got[1:8]) == _bits(ident)), got[:8]
    _, got = _reg_run(core, "half", vals, lambda q, r, m: R.ReduceDataBlock(q, r, _block0_mask()))
    assert got[0] == vals[:16].astype(np.float64).sum() and np.all(_bits(got[1:8]) == 0)
    _, got = _reg_run(core, "half", vals, lambda q, r, m: R.Reduce(q, r, R.MaskReg(), getattr(R.ReduceType, op)))
    assert _bits(got[0]) == _bits(ident), got[:2]


@pytest.mark.parametrize("dtype", ["uint32", "int64", "uint64"])
def test_d21_950_integer_reduce_sum_always_wraps(dtype):
    """SPEC D21: integer ReduceSum wraps on the 950 even with CTRL[53] = 1."""
    npd = {"uint32": np.uint32, "int64": np.int64, "uint64": np.uint64}[dtype]
    info = np.iinfo(npd)
    core = aj.Core("ascend950")
    core.SetCtrlSpr(53, 53, 1)
    n = 100
    src, dst, tmp = core.local_tensor(dtype, n), core.local_tensor(dtype, 8), core.local_tensor(dtype, 16)
    x = np.full(n, info.max, npd)
    src[:] = x
    aj.ReduceSum(dst, src, tmp, n)
    bits = 8 * np.dtype(npd).itemsize
    want = (n * int(info.max)) % (1 << bits)
    assert int(dst.numpy()[0].astype(np.uint64 if bits == 64 else np.int64)) % (1 << bits) == want


def test_d21_module_level_switches_refused():
    """SPEC D21 through the module-level names a ported kernel calls inside `with core:`: SetSaturationFlag is
    refused on the 950 and the 310B, SetCtrlSpr bit 48 on the 310B."""
    for dev in ("ascend950", "atlas-200i-500-a2"):
        core = aj.Core(dev)
        with core:
            with pytest.raises(aj.AscendJitError):
                aj.SetSaturationFlag(True)
            if dev == "atlas-200i-500-a2":
                with pytest.raises(aj.AscendJitError):
                    aj.SetCtrlSpr(48, 48, 0)
        assert not core.half_saturating


@pytest.mark.parametrize("dtype", sorted(_INT_TYPES) + ["half", "float", "bfloat16"])
def test_d9_950_add_count_tail_every_type(dtype):
    """SPEC D9: the 950 count Add of every listed type over 3 repeats and a tail writes exactly `count` elements."""
    import ml_dtypes
    npd = {"half": H, "float": _F, "bfloat16": ml_dtypes.bfloat16}.get(dtype) or _INT_TYPES[dtype]
    size = np.dtype(npd).itemsize
    lanes = 256 // size
    count = 3 * lanes + 5
    core = aj.Core("ascend950")
    a, d = core.local_tensor(dtype, 4 * lanes), core.local_tensor(dtype, 4 * lanes)
    av = (np.arange(4 * lanes) % 50).astype(npd)
    a[:] = av
    d[:] = np.zeros(4 * lanes, npd)
    before = core.ub.copy()
    aj.Add(d, a, a, count)
    want = (av[:count].astype(np.float64) * 2).astype(npd)
    assert np.array_equal(d.numpy()[:count].astype(np.float64), want.astype(np.float64))
    _only_changed(before, core, _span(d, 0, count))


def test_d8_bfloat16_subnormals_kept_950():
    """SPEC D8 (SPEC-2 D35 gradual underflow) for the 950's bfloat16 Add: subnormal inputs and results kept."""
    import ml_dtypes
    bf = ml_dtypes.bfloat16
    core = aj.Core("ascend950")
    x = np.array([1, 2, 0x7F, 0x8001, 0x0040] * 26, np.uint16)[:128].view(bf)
    a, d = core.local_tensor("bfloat16", 128), core.local_tensor("bfloat16", 128)
    a[:] = x
    aj.Add(d, a, a, 128)
    want = (x.astype(np.float32) * 2).astype(bf)
    assert np.array_equal(d.numpy().view(np.uint16), want.view(np.uint16))


# ---------------------------------------------------------------- count-form algorithms of SPEC 4.3 / 4.4
def _vtree(v, lanes, npd):
    """SPEC 4.1 tree, vectorised: pad with +0 (D2) to `lanes`, add adjacent pairs level by level (RNE per add)."""
    v = np.concatenate([np.asarray(v, npd), np.zeros(lanes - len(v), npd)])
    while len(v) > 1:
        v = (v[0::2].astype(np.float32) + v[1::2].astype(np.float32)).astype(npd)
    return v[0]


def _tree_tree(results, L, npd):
    """Level 2 (and 3) of SPEC 4.2/4.3/4.4: groups of L per-repeat results, then one last tree."""
    res = list(results)
    while len(res) > 1:
        res = [_vtree(res[g:g + L], L, npd) for g in range(0, len(res), L)]
    return res[0]


def _model_count(dev, x, n, npd):
    L = 256 // np.dtype(npd).itemsize
    blocks = [x[r:min(r + L, n)] for r in range(0, n, L)]
    if dev in ("atlas-a2", "atlas-a3"):                                    # TREE-SEQ, SPEC 4.2 / D1
        acc = None
        for b in blocks:
            p = _vtree(b, L, npd)
            acc = p if acc is None else npd(np.float32(acc) + np.float32(p))
        return acc
    if dev != "ascend950":                                                 # TREE-TREE + tail, SPEC 4.3
        R_, t = divmod(n, L)
        if R_ == 0:
            return _vtree(x[:n], L, npd)
        body = _tree_tree([_vtree(b, L, npd) for b in blocks[:R_]], L, npd)
        return body if t == 0 else npd(np.float32(body) + np.float32(_vtree(blocks[R_], L, npd)))
    f = lambda a, b: (a.astype(np.float32) + b.astype(np.float32)).astype(npd)   # noqa: E731 (vadd)
    full = lambda k: np.asarray(x[k * L:(k + 1) * L], npd)                       # noqa: E731
    if n <= L:
        return _vtree(x[:n], L, npd)
    if n <= 4 * L:                                                         # VADD merges, SPEC 4.4 table
        nb = -(-n // L)
        t = np.asarray(x[(nb - 1) * L:n], npd)                             # the last (partial or full) block

        def merge(a):                                                      # lanes k < len(t) add, others keep
            v = a.copy()
            v[:len(t)] = f(a[:len(t)], t)
            return v
        if nb == 2:
            v = merge(full(0))
        elif nb == 3:
            v = merge(f(full(0), full(1)))
        else:
            v = f(f(full(0), full(1)), merge(full(2)))
        return _vtree(v, L, npd)
    return _tree_tree([_vtree(b, L, npd) for b in blocks], L, npd)


_COUNTS = (1, 100, 128, 129, 200, 256, 300, 384, 385, 500, 512, 513, 1000, 2049, 8320, 16385)


@pytest.mark.parametrize("dev", DEVS)
def test_d7_d26_count_form_algorithms(dev):
    """SPEC 4.2-4.4 count forms as the Ds cite them (D1 A2/A3 sequential; D7 the 950's paths; D2 +0 padding):
    dst[0] equals the model bit for bit on random halves of many sizes, and D26/SPEC 4.3/4.4: dst[1..] unchanged."""
    core = aj.Core(dev)
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(16385) * 40).astype(H)
    src, dst = core.local_tensor("half", 16385), core.local_tensor("half", 16)
    tmp = core.local_tensor("half", 256)
    src[:] = x
    for n in _COUNTS:
        dst[:] = np.full(16, 5.0, H)
        aj.ReduceSum(dst, src, tmp, n)
        want = _model_count(dev, x, n, H)
        assert _bits(dst.numpy()[0]) == _bits(want), (n, dst.numpy()[0], want)
        assert np.all(dst.numpy()[1:] == 5.0)


@pytest.mark.parametrize("rep_stride", [8, 16, 12])
def test_d23_counter_mode_uses_src_rep_stride(rep_stride):
    """SPEC D23 / SPEC 4.4: the 950 counter-mode high-dim ReduceSum walks blocks of L at the user's srcRepStride
    (the count API's 8 only for the count API), summing `mask` elements."""
    core = aj.Core("ascend950")
    rng = np.random.default_rng(23)
    n = 700
    reps = -(-n // 128)
    total = (reps - 1) * rep_stride * 16 + 128
    y = (rng.standard_normal(total) * 40).astype(H)
    src, dst, tmp = core.local_tensor("half", total), core.local_tensor("half", 16), core.local_tensor("half", 64)
    src[:] = y
    core.SetMaskCount()
    aj.ReduceSum(dst, src, tmp, n, 1, rep_stride)
    gathered = np.concatenate([y[r * rep_stride * 16:r * rep_stride * 16 + 128] for r in range(reps)])
    want = _model_count("ascend950", gathered, n, H)
    assert _bits(dst.numpy()[0]) == _bits(want), (dst.numpy()[0], want)


@pytest.mark.parametrize("dev", DEVS)
def test_d10_other_families_refuse_before_writing(dev):
    """SPEC D10 on Duplicate, Copy, Cast, Select and Compare: dstBlkStride 0, a misaligned dst, a partial overlap
    and a footprint past the UB end raise before anything is written."""
    core = aj.Core(dev, bounds="ub")
    s, d = core.local_tensor("half", 512), core.local_tensor("half", 512)
    f, m = core.local_tensor("float", 512), core.local_tensor("uint8", 256)
    s[:] = np.ones(512, H)
    end = core.local_tensor("half", 16, addr=core.ub.size - 32)
    U = aj.UnaryRepeatParams
    calls = {
        "Duplicate dstBlkStride 0": lambda: aj.Duplicate(d, 1.0, 128, 1, 0, 8),
        "Duplicate misaligned": lambda: aj.Duplicate(d[1], 1.0, 128, 1, 1, 8),
        "Duplicate past the end": lambda: aj.Duplicate(end, 1.0, 128, 1, 1, 8),
        "Copy dstStride 0": lambda: aj.Copy(d, s, 128, 1, aj.CopyRepeatParams(0, 1, 8, 8)),
        "Cast dstBlkStride 0": lambda: aj.Cast(f, s, aj.RoundMode.CAST_NONE, 64, 1, U(0, 1, 8, 4)),
        "Cast misaligned": lambda: aj.Cast(f[1], s, aj.RoundMode.CAST_NONE, 64, 1, U(1, 1, 8, 4)),
        "Cast overlap": lambda: aj.Cast(f, f[8].ReinterpretCast("half"), aj.RoundMode.CAST_NONE, 64, 1,
                                        U(1, 1, 8, 4)),
        "Select dstBlkStride 0": lambda: aj.Select(d, m, s, s, aj.SELMODE.VSEL_CMPMASK_SPR, 128, 1,
                                                   aj.BinaryRepeatParams(0, 1, 1, 8, 8, 8)),
        "Compare past the end": lambda: aj.Compare(m, end, s, aj.CMPMODE.LT, 128, 1, aj.BinaryRepeatParams()),
    }
    for what, call in calls.items():
        name = what.split()[0]
        if not _instr(name).offered(core.spec):
            continue
        _refused(core, call)


_PAIR_VALUES = [0.0, -0.0, 1.0, -2.5, 65504.0, -65504.0, np.inf, -np.inf, np.nan, 3e-7, 1024.0, 0.5]


@pytest.mark.parametrize("dev", DEVS)
def test_d19_pairs_random_masks(dev):
    """SPEC D19 with SPEC 2.4 / 6 on random masks and special values: both lanes active -> one rounded add;
    one active -> x + (+0); none -> unchanged (A2/A3/310P/910) or +0 (950/310B); saturation per D6/D20."""
    rng = np.random.default_rng(19)
    for trial in range(4):
        core = aj.Core(dev)
        sat = bool(trial % 2) and _saturating(core) is not None or dev in SAT_DEVICES
        x = np.array(rng.choice(np.array(_PAIR_VALUES, dtype=np.float64), 256), H)
        words = [int(w) for w in rng.integers(0, 2 ** 63, 2)] if trial else [2 ** 64 - 1, 0x0F0F0F0F0F0F0F0F]
        src, dst = core.local_tensor("half", 256), core.local_tensor("half", 128)
        src[:] = x
        dst[:] = np.full(128, 9.0, H)
        before = core.ub.copy()
        aj.ReducePairElem(dst, src, words, 2, 1, 1, 8)
        zeroing = dev in ("ascend950", "atlas-200i-500-a2")
        want = np.full(128, 9.0, H)
        for r in range(2):
            for p in range(64):
                on = [(words[(2 * p + k) // 64] >> ((2 * p + k) % 64)) & 1 for k in (0, 1)]
                a, b = x[128 * r + 2 * p], x[128 * r + 2 * p + 1]
                if on[0] or on[1]:
                    want[64 * r + p] = _add(a if on[0] else 0.0, b if on[1] else 0.0, sat)
                elif zeroing:
                    want[64 * r + p] = H(0.0)
        got = dst.numpy()
        nan = np.isnan(want)
        assert np.array_equal(_bits(got[~nan]), _bits(want[~nan])), (trial, np.nonzero(got[~nan] != want[~nan]))
        assert np.all(np.isnan(got[nan]))
        _only_changed(before, core, _span(dst))


def test_d3_d21_refusals_keep_state():
    """SPEC D3: Reg ReduceDataBlock is ZEROING only (MERGING refused); SPEC D21: SetSaturationFlag(False) is refused
    on the 950 and the 310B as well, and a refusal changes neither the UB nor the overflow modes."""
    core = aj.Core("ascend950")
    s = core.local_tensor("half", 128)
    s[:] = np.ones(128, H)
    r, q = R.RegTensor("half"), R.RegTensor("half")
    with core:
        R.LoadAlign(r, s)
        _refused(core, lambda: R.ReduceDataBlock(q, r, R.CreateMask("half"), R.ReduceType.SUM,
                                                 R.MaskMergeMode.MERGING), aj.ParameterError)
    for dev in ("ascend950", "atlas-200i-500-a2"):
        core = aj.Core(dev)
        _refused(core, lambda: core.SetSaturationFlag(False))
        assert not core.half_saturating and not core.int_saturating


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_d8_reg_reductions_and_duplicate_keep_subnormals(dtype):
    """SPEC D8 on the 950 Reg Reduce SUM (lane 0, SPEC 7.7), PairReduceElem (lanes 0..L/2-1, SPEC 7.6) and
    Duplicate of a subnormal scalar: subnormal sums and values are kept."""
    npd = H if dtype == "half" else _F
    sub = _SUB_H if dtype == "half" else _SUB_F
    vl = 256 // np.dtype(npd).itemsize
    core = aj.Core("ascend950")
    x, got = _reg_run(core, dtype, np.abs(sub), lambda q, r, m: R.Reduce(q, r, m))
    assert _bits(got[0], npd) == _bits(_vtree(x, vl, npd), npd)
    x, got = _reg_run(core, dtype, sub, lambda q, r, m: R.PairReduceElem(q, r, m))
    pairs = (x[0::2].astype(np.float64) + x[1::2].astype(np.float64)).astype(npd)
    assert np.array_equal(_bits(got[:vl // 2], npd), _bits(pairs, npd))
    tiny = float(np.abs(sub[0]))
    _, got = _reg_run(core, dtype, sub, lambda q, r, m: R.Duplicate(q, tiny, m))
    assert np.all(got == npd(tiny)) and np.all(got != 0)


@pytest.mark.parametrize("dev", ["atlas-a2", "atlas-a3"])
@pytest.mark.parametrize("how", ["flag", "ctrl"])
def test_d12_a2_both_switches(dev, how):
    """SPEC D12 (with D6): on A2/A3 the seed example gives 35584 whichever switch selects saturation
    (SetSaturationFlag FLOAT or SetCtrlSpr bit 48 = 0), and +inf again after switching back."""
    core = aj.Core(dev)
    src, dst, tmp = core.local_tensor("half", 128), core.local_tensor("half", 16), core.local_tensor("half", 16)
    src[:] = np.resize(np.array([60000, 60000, -30000, 100], H), 128)
    (core.SetSaturationFlag(True) if how == "flag" else core.SetCtrlSpr(48, 48, 0))
    aj.ReduceSum(dst, src, tmp, 4)
    assert dst.numpy()[0] == H(35584.0)
    (core.SetSaturationFlag(False) if how == "flag" else core.SetCtrlSpr(48, 48, 1))
    aj.ReduceSum(dst, src, tmp, 4)
    assert np.isposinf(dst.numpy()[0])


def test_d24_dst_rep_stride_zero_normal_vs_counter():
    """SPEC D24: dstRepStride 0 is refused in counter mode (also through the old name PairReduceSum); in Normal
    mode on the 950 it is legal and the last repeat's pairs win (SPEC 6)."""
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("half", 256), core.local_tensor("half", 128)
    x = (np.arange(256) % 7).astype(H)
    src[:] = x
    dst[:] = np.full(128, 9.0, H)
    before = core.ub.copy()
    aj.ReducePairElem(dst, src, 128, 2, 0, 1, 8)
    want = np.array([_add(x[128 + 2 * p], x[129 + 2 * p]) for p in range(64)], H)
    assert np.array_equal(_bits(dst.numpy()[:64]), _bits(want))
    _only_changed(before, core, _span(dst, 0, 64))
    core.SetMaskCount()
    _refused(core, lambda: aj.ReducePairElem(dst, src, 200, 1, 0, 1, 8), aj.ParameterError)
    _refused(core, lambda: aj.PairReduceSum(dst, src, 1, 200, 0, 1, 8), aj.ParameterError)
