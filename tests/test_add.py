"""Add: seed goldens, SPEC 9 boundary values per device and mode, whole-UB property tests, refusals."""
import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.reference import model as ref
from conftest import DEVICES, set_int_sat, set_sat_mode


def _three(core, dtype, n):
    return [core.local_tensor(dtype, n) for _ in range(3)]


@pytest.mark.parametrize("form", ["count", "continuous", "bits", "operator"])
def test_seed_example_every_form(device, form):
    core = aj.Core(device)
    d, a, b = _three(core, "half", 512)
    a[:] = np.arange(1, 513)
    b[:] = np.arange(513, 1025)
    if form == "count":
        aj.Add(d, a, b, 512)
    elif form == "continuous":
        aj.Add(d, a, b, 128, 4, aj.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    elif form == "bits":
        aj.Add(d, a, b, [2**64 - 1, 2**64 - 1], 4, (1, 1, 1, 8, 8, 8))  # the seed's brace list as a tuple
    else:
        d[:] = a + b
    aj.testing.assert_bit_equal(d.numpy(), (514 + 2 * np.arange(512)).astype(np.float16))


H = np.float16
INF, NAN = math.inf, math.nan
HALF_TABLE = [  # SPEC 9, Add boundary values: (x, y, INF mode, sat mode)
    (65504, 65504, INF, 65504), (-65504, -65504, -INF, -65504), (-65504, 65504, 0.0, 0.0), (1.0, NAN, NAN, 0.0),
    (INF, -INF, NAN, 0.0), (0.0, INF, INF, 65504), (-0.0, -0.0, -0.0, -0.0)]


def _same(got, want):
    if isinstance(want, float) and math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1, got) == math.copysign(1, want)


def _run_add(core, dtype, x, y):
    d, a, b = _three(core, dtype, 16)
    a[:] = np.full(16, x)
    b[:] = np.full(16, y)
    aj.Add(d, a, b, 16)
    return d.numpy()[0]


@pytest.mark.parametrize("saturating", [False, True])
@pytest.mark.parametrize("x,y,inf_mode,sat_mode", HALF_TABLE)
def test_half_boundary_table(device, saturating, x, y, inf_mode, sat_mode):
    core = aj.Core(device)
    if not set_sat_mode(core, saturating):
        pytest.skip(f"{device} has no {'saturation' if saturating else 'INF/NaN'} mode (D6)")
    got = float(_run_add(core, "half", x, y))
    assert _same(got, sat_mode if saturating else inf_mode)


@pytest.mark.parametrize("saturating", [False, True])
def test_float_is_ieee_in_both_modes(device, saturating):
    core = aj.Core(device)
    if not set_sat_mode(core, saturating):
        pytest.skip("mode not offered")
    assert math.isnan(_run_add(core, "float", INF, -INF))
    big = float(np.finfo(np.float32).max)
    assert _run_add(core, "float", big, big) == INF


INT_TABLE = [("int16", 32767, 32767, -2, 32767), ("int16", -32768, -32768, 0, -32768), ("int16", -32768, 32767, -1, -1),
             ("int32", 2**31 - 1, 2**31 - 1, -2, 2**31 - 1), ("int32", -2**31, -2**31, 0, -2**31)]


@pytest.mark.parametrize("saturating", [False, True])
@pytest.mark.parametrize("dtype,x,y,wrap,clamp", INT_TABLE)
def test_integer_boundary_table(device, saturating, dtype, x, y, wrap, clamp):
    core = aj.Core(device)
    if dtype not in core.spec.add_dtypes:
        pytest.skip(f"{dtype} Add not on {device}")
    if not set_int_sat(core, saturating):
        pytest.skip("integer saturation cannot be switched on here (D6)")
    assert int(_run_add(core, dtype, x, y)) == (clamp if saturating else wrap)


def test_half_saturation_switch_does_not_touch_integers():
    core = aj.Core("atlas-a2")
    core.SetSaturationFlag(True)  # FLOAT only (audit 7)
    assert int(_run_add(core, "int16", 32767, 32767)) == -2
    core.SetSaturationFlag(True, aj.SaturationMode.INT)
    assert int(_run_add(core, "int16", 32767, 32767)) == 32767
    assert float(_run_add(core, "half", 65504, 65504)) == 65504


def test_bfloat16_is_ieee_even_with_half_saturation():
    core = aj.Core("ascend950")
    core.SetCtrlSpr(48, 48, 0)
    big = float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)
    assert _run_add(core, "bfloat16", big, big) == INF


def test_masked_lanes_and_elements_past_count_are_untouched(device):
    core = aj.Core(device)
    d, a, b = _three(core, "half", 256)
    a[:] = 1
    b[:] = 2
    d[:] = 7
    aj.Add(d, a, b, 100)
    assert (d.numpy()[:100] == 3).all() and (d.numpy()[100:] == 7).all()
    d[:] = 7
    aj.Add(d, a, b, [0b1010, 1 << 63], 2, aj.BinaryRepeatParams())
    got = d.numpy()
    lanes = {1, 3, 127}
    for i in range(256):
        assert got[i] == (3 if i % 128 in lanes else 7)


# --- property tests against the reference ------------------------------------------------------------------------
UB_WINDOW = 40960  # operands live in the first 40 KiB; the rest of the UB must stay untouched too


@st.composite
def add_cases(draw):
    device = draw(st.sampled_from(DEVICES))
    spec = aj.get_device(device)
    dtype = draw(st.sampled_from([t for t in spec.add_dtypes if t not in spec.add_count_only_dtypes]))
    size = np.dtype(ref.SIZES[dtype]).itemsize if False else ref.SIZES[dtype]
    nlanes = 256 // size
    if draw(st.booleans()):
        mask = draw(st.integers(0, nlanes + 20))
        lanes = ref.continuous_lanes(mask, nlanes)
    else:
        lo = draw(st.integers(0, 2**64 - 1) | st.sampled_from([0, 1, 2**64 - 1]))
        hi = draw(st.integers(0, 2**64 - 1)) if size == 2 else 0
        mask = [lo, hi] if size == 2 else [lo]
        lanes = ref.lanes_of_mask(lo, hi, nlanes)
    repeat = draw(st.integers(0, 12))
    blk = [draw(st.integers(1, 4))] + [draw(st.integers(0, 4)) for _ in range(2)]
    rep = [draw(st.integers(0, 20)) for _ in range(3)]
    bases = draw(st.permutations([0, 1, 2]))
    seed = draw(st.integers(0, 2**32 - 1))
    saturating = draw(st.booleans())
    return device, dtype, mask, lanes, repeat, blk, rep, [b * 13312 for b in bases], seed, saturating


def random_ub(core, seed, specials_dtype=None):
    rng = np.random.default_rng(seed)
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    core.ub_written_by_host()   # raw UB bytes: initialised for the sanitizer
    if specials_dtype == "half":  # sprinkle NaN, inf, subnormals and signed zeros
        h = core.ub[:UB_WINDOW].view(np.uint16)
        idx = rng.integers(0, h.size, h.size // 8)
        h[idx] = rng.choice(np.array([0x7C00, 0xFC00, 0x7E00, 0x0001, 0x8001, 0x0000, 0x8000, 0x7BFF, 0xFBFF],
                                     np.uint16), idx.size)


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync",
                             reason="one-element tensors on a bounds=\"ub\" core: the strides address past them on "
                                    "purpose, which the memory check reports")
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(add_cases())
def test_add_high_dim_matches_reference_on_whole_ub(case):
    device, dtype, mask, lanes, repeat, blk, rep, bases, seed, saturating = case
    core = aj.Core(device, bounds="ub")  # 1-element tensors: strides legitimately reach past them
    set_sat_mode(core, saturating)
    set_int_sat(core, saturating)
    random_ub(core, seed, dtype)
    d, a, b = (core.local_tensor(dtype, 1, addr=x) for x in bases)
    core.ub_written_by_host()   # the random UB bytes (the tensors made them undefined): initialised for the sanitizer
    before = core.ub.copy()
    params = aj.BinaryRepeatParams(blk[0], blk[1], blk[2], rep[0], rep[1], rep[2])
    try:
        aj.Add(d, a, b, mask, repeat, params)
    except aj.AscendJitError:
        assert np.array_equal(core.ub, before)  # refused: nothing written
        return
    expected = before.copy()
    if lanes:
        ref.add_high_dim(expected, dtype, bases[0], bases[1], bases[2], lanes, repeat, blk + rep,
                         core.half_saturating, core.int_saturating)
    assert np.array_equal(core.ub, expected)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(DEVICES), st.integers(0, 700), st.integers(0, 2**32 - 1), st.booleans(), st.data())
def test_add_count_matches_reference(device, count, seed, saturating, data):
    spec = aj.get_device(device)
    dtype = data.draw(st.sampled_from(spec.add_dtypes))
    core = aj.Core(device)
    set_sat_mode(core, saturating)
    set_int_sat(core, saturating)
    random_ub(core, seed, dtype)
    n = max(count, 1)
    d, a, b = (core.local_tensor(dtype, n, addr=x) for x in (0, 8192, 16384))
    before = core.ub.copy()
    aj.Add(d, a, b, count)
    ref.add_count(before, dtype, 0, 8192, 16384, count, core.half_saturating, core.int_saturating)
    assert np.array_equal(core.ub, before)


def test_counter_mode_with_placeholder(device):
    """SPEC 2.5 example: SetMaskCount; SetVectorMask(130); Add<false>(..., MASK_PLACEHOLDER, 1, {2,2,2,16,16,16})."""
    core = aj.Core(device)
    with core:
        d, a, b = _three(core, "half", 1024)
        a[:] = 1
        b[:] = 2
        aj.SetMaskCount()
        aj.SetVectorMask(130)
        aj.Add(d, a, b, aj.MASK_PLACEHOLDER, 1, aj.BinaryRepeatParams(2, 2, 2, 16, 16, 16), is_set_mask=False)
        aj.SetMaskNorm()
        aj.ResetMask()
    got = d.numpy()
    written = {(i * 256 + (j // 16) * 32 + j % 16) for i in range(2) for j in range(128 if i == 0 else 2)}
    for k in range(1024):
        assert got[k] == (3 if k in written else 0)


def test_count_zero_is_a_nop_register_included(device):
    core = aj.Core(device)
    core.SetVectorMask(0, 5)
    d, a, b = _three(core, "half", 16)
    before = core.ub.copy()
    aj.Add(d, a, b, 0)
    assert np.array_equal(core.ub, before) and (core.mask_high, core.mask_low) == (0, 5)


def test_count_mask_register_side_effects():
    """D22 / SPEC 2.6: A2 restores all-ones; 910 keeps the tail mask; 950 and 310B do not touch the register."""
    for device, expect in (("atlas-a2", (2**64 - 1, 2**64 - 1)), ("atlas-training", (0, (1 << 4) - 1)),
                           ("ascend950", (0, 5)), ("atlas-200i-500-a2", (0, 5))):
        core = aj.Core(device)
        core.SetVectorMask(0, 5)
        d, a, b = _three(core, "half", 260)
        a[:], b[:] = np.ones(260, np.float16), np.ones(260, np.float16)
        aj.Add(d, a, b, 260)
        assert (core.mask_high, core.mask_low) == expect, device


# --- refusals -------------------------------------------------------------------------------------------------------
def _refused(core, call, error):
    before = core.ub.copy()
    with pytest.raises(error) as info:
        call()
    assert np.array_equal(core.ub, before)
    msg = str(info.value)
    assert "Add" in msg or "operator" in msg
    return msg


def test_refusals_leave_ub_identical(device):
    core = aj.Core(device)
    random_ub(core, 5)
    d, a, b = _three(core, "half", 1024)
    P = aj.BinaryRepeatParams
    msg = _refused(core, lambda: aj.Add(d, a, b, 128, 256, P()), aj.ParameterError)
    assert "repeat_time" in msg and "[0, 255]" in msg and device in msg
    _refused(core, lambda: aj.Add(d, a, b, 128, 1, P(0, 1, 1, 8, 8, 8)), aj.ParameterError)
    _refused(core, lambda: aj.Add(d, a, b, 128, 1, P(1, 1, 1, 256, 8, 8)), aj.ParameterError)
    _refused(core, lambda: aj.Add(d, a, b, -1, 1, P()), aj.ParameterError)
    _refused(core, lambda: aj.Add(d, a, b, 128, 255, P(1, 1, 1, 255, 8, 8)), aj.OutOfBoundsError)
    _refused(core, lambda: aj.Add(d, a, b, 2000), aj.OutOfBoundsError)
    _refused(core, lambda: aj.Add(d, a, b, -5), aj.ParameterError)
    _refused(core, lambda: aj.Add(d, a, b, aj.MASK_PLACEHOLDER, 1, P()), aj.ParameterError)
    _refused(core, lambda: aj.Add(d, a, b, 128, 1, P(), is_set_mask=False), aj.ParameterError)
    _refused(core, lambda: aj.Add(d, a, b, [1, 2, 3], 1, P()), aj.ParameterError)
    _refused(core, lambda: aj.Add(d, a, b, 128, 1, (1, 1, 8)), aj.ParameterError)
    mis = core.local_tensor("half", 128, addr=d.addr + 2)
    _refused(core, lambda: aj.Add(mis, a, b, 128), aj.AlignmentError)
    part = core.local_tensor("half", 256, addr=a.addr + 64)
    _refused(core, lambda: aj.Add(part, a, b, 256), aj.OverlapError)
    _refused(core, lambda: aj.Add(part, a, b, 128, 2, P()), aj.OverlapError)
    f = core.local_tensor("float", 64)
    _refused(core, lambda: aj.Add(f, a, b, 64), aj.UnsupportedDTypeError)
    short = core.local_tensor("half", 10)

    def op():
        d[:] = short + a
    _refused(core, op, aj.OutOfBoundsError)


def test_mask_zero_and_repeat_zero(device):
    core = aj.Core(device)
    random_ub(core, 9)
    d, a, b = _three(core, "half", 256)
    before = core.ub.copy()
    aj.Add(d, a, b, 128, 0, aj.BinaryRepeatParams())
    assert np.array_equal(core.ub, before)
    if core.spec.mask_zero_refused:
        _refused(core, lambda: aj.Add(d, a, b, 0, 1, aj.BinaryRepeatParams()), aj.ParameterError)
        _refused(core, lambda: aj.Add(d, a, b, [0, 0], 1, aj.BinaryRepeatParams()), aj.ParameterError)
    else:
        aj.Add(d, a, b, [0, 0], 1, aj.BinaryRepeatParams())
        aj.Add(d, a, b, 0, 2, aj.BinaryRepeatParams())
        assert np.array_equal(core.ub, before)


def test_full_overlap_in_place_and_src1_accumulate_exception():
    core = aj.Core("atlas-a2")
    a, b = _three(core, "half", 512)[:2]
    a[:] = 1
    b[:] = 2
    aj.Add(a, a, b, 512)  # 100% overlap is allowed
    assert (a.numpy() == 3).all()
    acc = core.local_tensor("half", 128)
    acc[:] = 0
    # dst over src1 with dstRepStride = src1RepStride = 0: accumulate 4 repeats of b into acc (SPEC 8.2 exception)
    aj.Add(acc, b, acc, 128, 4, aj.BinaryRepeatParams(1, 1, 1, 0, 8, 0))
    assert (acc.numpy() == 8).all()
    with pytest.raises(aj.OverlapError):
        aj.Add(acc, acc, b, 128, 4, aj.BinaryRepeatParams(1, 1, 1, 0, 0, 8))  # not for src0


def test_vector_core_is_refused():
    core = aj.Core("atlas-inference-vectorcore")
    d, a, b = _three(core, "half", 128)
    with pytest.raises(aj.UnsupportedDeviceError, match="atlas-inference-vectorcore"):
        aj.Add(d, a, b, 128)


def test_950_extra_types_count_form():
    core = aj.Core("ascend950")
    for dtype in ("int8", "uint8", "uint16", "uint32", "int64", "uint64", "bfloat16"):
        d, a, b = _three(core, dtype, 64)
        a[:] = np.arange(64)
        b[:] = 3
        aj.Add(d, a, b, 64)
        assert np.array_equal(d.numpy().astype(np.float64), np.arange(64) + 3.0), dtype
    d, a, b = _three(core, "int8", 256)
    with pytest.raises(aj.UnsupportedDTypeError):
        aj.Add(d, a, b, 128, 1, aj.BinaryRepeatParams())


@st.composite
def wide_add_cases(draw):
    """The full documented ranges: repeat 0..255, every stride 0..255 (most land past the UB and are refused)."""
    device = draw(st.sampled_from(DEVICES))
    spec = aj.get_device(device)
    dtype = draw(st.sampled_from([t for t in spec.add_dtypes if t not in spec.add_count_only_dtypes]))
    lanes = 256 // ref.SIZES[dtype]
    mask = draw(st.integers(0, lanes))
    repeat = draw(st.integers(0, 255) | st.integers(0, 12))  # the full range, and values that fit the UB
    strides = [draw(st.integers(0, 255) | st.integers(0, 16)) for _ in range(6)]
    return device, dtype, mask, repeat, strides, draw(st.integers(0, 2**32 - 1))


def _wide_add(case):
    device, dtype, mask, repeat, strides, seed = case
    core = aj.Core(device, bounds="ub")
    random_ub(core, seed, dtype)
    ub_third = core.spec.ub_bytes // 3 // 32 * 32
    d, a, b = (core.local_tensor(dtype, 1, addr=k * ub_third) for k in range(3))
    core.ub_written_by_host()   # the random UB bytes (the tensors made them undefined): initialised for the sanitizer
    before = core.ub.copy()
    try:
        aj.Add(d, a, b, mask, repeat, aj.BinaryRepeatParams(*strides))
    except aj.AscendJitError:
        assert np.array_equal(core.ub, before)
        return
    lanes = ref.continuous_lanes(mask, 256 // ref.SIZES[dtype])
    if lanes:
        ref.add_high_dim(before, dtype, d.addr, a.addr, b.addr, lanes, repeat, strides[:3] + strides[3:],
                         core.half_saturating, core.int_saturating)
    assert np.array_equal(core.ub, before)


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync",
                             reason="one-element tensors on a bounds=\"ub\" core: the strides address past them on "
                                    "purpose, which the memory check reports")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wide_add_cases())
def test_add_full_parameter_ranges(case):
    _wide_add(case)


@pytest.mark.slow
@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync",
                             reason="one-element tensors on a bounds=\"ub\" core: the strides address past them on "
                                    "purpose, which the memory check reports")
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wide_add_cases())
def test_add_full_parameter_ranges_sweep(case):
    _wide_add(case)
