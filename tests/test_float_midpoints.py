"""SPEC-2 D37: float Exp, Ln and Rsqrt are correctly rounded also where the exact value lies within a few double ulps
of a float32 rounding midpoint, whatever the C library's exp/log return within a few ulps (jit/lanes.py: the hard-case
tables `hard_case_or`, Rsqrt's exact settlement `settle_rsqrt`). Default: the known hard inputs through the public API
on every device where the lane is exact-then-round, and the lanes fed doubles a few ulps off. Slow: every float32."""
import mpmath
import numpy as np
import pytest
from numba import njit

import ascend_jit as aj
from ascend_jit.reference import elementwise as R
from ascend_jit.api import elementwise as E
from ascend_jit.jit.lanes import (_EXP_HARD_X, _EXP_HARD_Y, _LN_HARD_X, _LN_HARD_Y, exp_float_run, hard_case_or,
                                  ln_lane, rsqrt_lane, settle_rsqrt)

# The float32 inputs whose exact exp lies within 8 double ulps of a float32 midpoint (float64 sweep of every float32,
# mpmath at 300 bits), with the correctly rounded results; the first five (within 4) are lanes._EXP_HARD_X.
EXP_NEAR_MIDPOINT = {
    0xC16912CD: 0x34FD331B, 0xBBF0EDF1: 0x3F7E1FE9, 0x377EFF81: 0x3F800080, 0xBAE0E25C: 0x3F7F8FA7,
    0xB3000000: 0x3F800000, 0x39C6BE5B: 0x3F800C6D, 0x38E69CC1: 0x3F80039A, 0x383A3EF1: 0x3F800175,
    0x3D1A274E: 0x3F84E8BA, 0x40315B33: 0x417FA47D, 0x4001B249: 0x40F2CD14, 0x39E5BB1D: 0x3F800E5D,
    0x36FDFFC1: 0x3F800040, 0x4288942B: 0x70B7A4C5, 0x367BFFE1: 0x3F800020, 0x35F7FFF1: 0x3F800010,
    0x356FFFF9: 0x3F800008, 0x34DFFFFD: 0x3F800004, 0x343FFFFF: 0x3F800002, 0x33800000: 0x3F800001,
    0x337FFFFF: 0x3F800000}
# Every float32 input in [1, 4) whose exact 1/sqrt lies within 64 double ulps of a float32 midpoint (the first 1.41
# ulps below it), with the correctly rounded results; 1/sqrt(4x) = 1/sqrt(x)/2 carries them to every binade.
RSQRT_NEAR_MIDPOINT = {0x403A18E3: 0x3F16209E, 0x4009F038: 0x3F2E6055, 0x407FFFFE: 0x3F000001,
                       0x3FBA2A39: 0x3F54460C, 0x3FD2208F: 0x3F47CDC8, 0x3FED3230: 0x3F3C0EC9, 0x3F8A5C86: 0x3F763A5E}

_EXP_DEVICES = [("atlas-a2", None), ("atlas-training", None), ("atlas-200i-500-a2", None), ("atlas-inference-aicore", None),
                ("ascend950", aj.ExpConfig(aj.ExpAlgo.PRECISION_1ULP_FTZ_FALSE)), ("ascend950", None)]
# Rsqrt through rsqrt_lane: every device but the 950's INTRINSIC (Div(1, Sqrt(x)), D40)
_RSQRT_DEVICES = [("atlas-a2", None), ("atlas-training", None), ("atlas-200i-500-a2", None),
                  ("atlas-inference-aicore", None)] + [("ascend950", aj.RsqrtConfig(a)) for a in aj.RsqrtAlgo
                                                       if a is not aj.RsqrtAlgo.INTRINSIC]


def _bits(values):
    return np.array(list(values), np.uint32)


def _run(op, device, config, bits):
    core = aj.Core(device)
    s, d = core.local_tensor("float", bits.size), core.local_tensor("float", bits.size)
    s[:] = bits.view(np.float32)
    getattr(aj, op)(d, s, bits.size, **({} if config is None else {"config": config}))
    return d.numpy().view(np.uint32)


def _reference(op, device, bits, config=None):
    env = R.Env(device) if config is None else R.Env(device, algo=config.algo.name)
    want = E.OPS[op].reference("float", env, bits.view(np.float32).astype(np.float64))
    return np.asarray(want, np.float32).view(np.uint32)


def _rsqrt_inputs():
    """RSQRT_NEAR_MIDPOINT's hardest input times 4**k over the normal float32 range up to 2**126 (D49), then the
    others."""
    base = np.float64(_bits([0x403A18E3]).view(np.float32)[0])
    scaled = [np.float32(np.ldexp(base, 2 * k)).view(np.uint32) for k in range(-63, 63)]
    return _bits(scaled + list(RSQRT_NEAR_MIDPOINT))


def test_the_tables_hold_the_exact_results_and_no_half():
    assert set(_EXP_HARD_X.tolist()) == {x for x in list(EXP_NEAR_MIDPOINT)[:5]}
    assert np.all(np.diff(_EXP_HARD_X.astype(np.int64)) > 0) and np.all(np.diff(_LN_HARD_X.astype(np.int64)) > 0)
    for op, xs, ys in (("Exp", _EXP_HARD_X, _EXP_HARD_Y), ("Ln", _LN_HARD_X, _LN_HARD_Y)):
        assert np.array_equal(_reference(op, "atlas-a2", xs), ys), op
        x = xs.view(np.float32)
        with np.errstate(over="ignore"):
            assert not np.any(x.astype(np.float16).astype(np.float32) == x), op


@pytest.mark.parametrize("device,config", _EXP_DEVICES)
def test_float_exp_next_to_float32_midpoints(device, config):
    bits = _bits(EXP_NEAR_MIDPOINT)
    got = _run("Exp", device, config, bits)
    assert dict(zip(bits.tolist(), got.tolist())) == EXP_NEAR_MIDPOINT
    assert np.array_equal(got, _reference("Exp", device, bits, config))


def test_reg_exp_next_to_float32_midpoints():
    """The 950 Reg Exp (its float lanes take exp_float_run, whose near-midpoint lanes take exp_lane)."""
    bits = np.resize(_bits(EXP_NEAR_MIDPOINT), 64)
    core = aj.Core("ascend950")
    a, d = core.local_tensor("float", 64), core.local_tensor("float", 64)
    a[:] = bits.view(np.float32)
    with core:
        ra, rd = aj.Reg.RegTensor("float"), aj.Reg.RegTensor("float")
        aj.Reg.LoadAlign(ra, a, 0)
        aj.Reg.Exp(rd, ra, aj.Reg.CreateMask("float"), aj.Reg.MaskMergeMode.ZEROING)
        aj.Reg.StoreAlign(d, rd, aj.Reg.CreateMask("float"), 0)
    assert [EXP_NEAR_MIDPOINT[b] for b in bits.tolist()] == d.numpy().view(np.uint32).tolist()


@pytest.mark.parametrize("device,config", _RSQRT_DEVICES)
def test_float_rsqrt_next_to_float32_midpoints(device, config):
    bits = _rsqrt_inputs()
    got = _run("Rsqrt", device, config, bits)
    assert np.array_equal(got, _reference("Rsqrt", device, bits, config))
    assert dict(zip(bits[-7:].tolist(), got[-7:].tolist())) == RSQRT_NEAR_MIDPOINT


def _off_by(y, k):
    return np.int64(np.float64(y).view(np.int64) + k).view(np.float64)


@pytest.mark.parametrize("op", ["Exp", "Ln"])
def test_the_hard_cases_do_not_depend_on_the_c_library(op):
    """A libm double up to 3 ulps from the exact value (rounded to the nearest double by mpmath) still gives the
    correctly rounded float32: tabled inputs through the table, the others (exact value > 4 ulps from the midpoint)
    on the right side anyway."""
    xs, ys = (_EXP_HARD_X, _EXP_HARD_Y) if op == "Exp" else (_LN_HARD_X, _LN_HARD_Y)
    bits = _bits(EXP_NEAR_MIDPOINT) if op == "Exp" else xs
    want = _reference(op, "atlas-a2", bits)
    f = mpmath.exp if op == "Exp" else mpmath.log
    with mpmath.workprec(300):
        exact = [float(f(mpmath.mpf(float(x)))) for x in bits.view(np.float32)]
    for x, e, w in zip(bits.view(np.float32), exact, want):
        got = {int(np.float32(hard_case_or(x, _off_by(e, k), xs, ys)).view(np.uint32)) for k in range(-3, 4)}
        assert got == {int(w)}, (hex(x.view(np.uint32)), [hex(g) for g in got], hex(w))


def test_rsqrt_settles_a_double_a_few_ulps_off():
    bits = _rsqrt_inputs()
    want = _reference("Rsqrt", "atlas-a2", bits)
    with mpmath.workprec(300):
        exact = [float(1 / mpmath.sqrt(mpmath.mpf(float(x)))) for x in bits.view(np.float32)]
    for x, e, w in zip(bits.view(np.float32), exact, want):
        got = {int(np.float32(settle_rsqrt(np.float64(x), _off_by(e, k))).view(np.uint32)) for k in range(-3, 4)}
        assert got == {int(w)}, (hex(x.view(np.uint32)), [hex(g) for g in got], hex(w))


# --- every float32 (slow) ---------------------------------------------------------------------------------------------
def _midpoint_distance(d):
    """Distance (in ulps of d) of each float64 |d| to the nearest float32 rounding midpoint: the low 29 significand
    bits against 2**28 for float32-normal results, the subnormal grid (odd multiples of 2**-150) below 2**-126;
    inf for zero and for |d| >= 2**128."""
    d = np.abs(d)
    out = np.full(d.shape, np.inf)
    normal = (d >= 2.0 ** -126) & (d < 2.0 ** 128)
    out[normal] = np.abs((d[normal].view(np.int64) & ((1 << 29) - 1)) - (1 << 28))
    sub = (d < 2.0 ** -126) & (d > 0)
    u = np.ldexp(d[sub], 149)
    out[sub] = np.abs((u - np.floor(u)) - 0.5) / np.spacing(u)
    return out


@njit(cache=True)
def _exp_kernel(x, r):
    for c0 in range(0, x.size, 1024):
        m = min(1024, x.size - c0)
        exp_float_run(x[c0:c0 + m], r[c0:c0 + m], m)


@njit(cache=True)
def _ln_kernel(x, r):
    for i in range(x.size):
        r[i] = np.float32(ln_lane(x[i]))


@njit(cache=True)
def _rsqrt_kernel(x, r):
    for i in range(x.size):
        r[i] = np.float32(rsqrt_lane(x[i], False))


_SWEEPS = {  # the float32 inputs whose result is finite, non-zero and not 1 by its special-value row or underflow
    "Exp": (_exp_kernel, np.exp, [(0, 0x42B17219), (0x80000000, 0xC2D00001)]),
    "Ln": (_ln_kernel, np.log, [(1, 0x7F800000)]),
    "Rsqrt": (_rsqrt_kernel, lambda v: 1.0 / np.sqrt(v), [(0x3F800000, 0x40800000)])}


@pytest.mark.slow
@pytest.mark.parametrize("op", list(_SWEEPS))
def test_every_float32_is_correctly_rounded(op):
    """numpy's float64 result (within 2 ulps) rounds correctly wherever it lies more than 64 double ulps from a float32
    midpoint: there the lane must agree with it; the few others must equal the reference (mpmath)."""
    kernel, f, ranges = _SWEEPS[op]
    near = []
    for lo, hi in ranges:
        for start in range(lo, hi, 1 << 24):
            bits = np.arange(start, min(hi, start + (1 << 24)), dtype=np.uint32)
            x = bits.view(np.float32)
            with np.errstate(over="ignore", under="ignore"):
                d = f(x.astype(np.float64))
                rounded = d.astype(np.float32)
            got = np.empty_like(x)
            kernel(x, got)
            far = _midpoint_distance(d) > 64
            assert np.array_equal(got[far].view(np.uint32), rounded[far].view(np.uint32)), start
            near.extend(bits[~far].tolist())
    near = _bits(near)
    got = np.empty(near.size, np.float32)
    kernel(near.view(np.float32), got)
    assert np.array_equal(got.view(np.uint32), _reference(op, "atlas-a2", near))
