"""ReducePairElem: seed golden, overflow rows, per-device mask behaviour, reference equality, refusals."""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.reference import model as ref
from conftest import DEVICES, set_sat_mode
from test_add import random_ub

SEED_IN = [1, 1, 1, -1, 2, 2, -1, 2, 3, 3, 3, -1, 4, 4, -2, 4]
SEED_OUT = [2, 0, 4, 1, 6, 2, 8, 2]


@pytest.mark.parametrize("mask", [128, [2**64 - 1, 2**64 - 1]])
def test_seed_example(device, mask):
    core = aj.Core(device)
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 64)
    src[:] = np.tile(SEED_IN, 8)
    aj.ReducePairElem(dst, src, mask, 1, 1, 1, 8)
    aj.testing.assert_bit_equal(dst.numpy(), np.array(SEED_OUT * 8, np.float16))


@pytest.mark.parametrize("saturating", [False, True])
@pytest.mark.parametrize("a,b,inf_mode,sat_mode", [(65504, 65504, math.inf, 65504), (1, math.nan, math.nan, 0),
                                                   (math.inf, -math.inf, math.nan, 0), (0, -math.inf, -math.inf, -65504),
                                                   (-0.0, -0.0, -0.0, -0.0)])
def test_overflow_rows(device, saturating, a, b, inf_mode, sat_mode):
    core = aj.Core(device)
    if not set_sat_mode(core, saturating):
        pytest.skip("mode not offered (D6)")
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 64)
    src[:] = np.tile([a, b], 64)
    aj.ReducePairElem(dst, src, 128, 1, 1, 1, 8)
    got, want = float(dst.numpy()[0]), sat_mode if saturating else inf_mode
    assert (math.isnan(got) and math.isnan(want)) or (got == want and math.copysign(1, got) == math.copysign(1, want))


def test_both_masked_pairs_per_device(device):
    core = aj.Core(device)
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 64)
    src[:] = -0.0
    src.SetValue(2, 5)
    dst[:] = 9
    core.PipeBarrier(aj.PIPE_ALL)             # the vector read waits for the scalar store (S -> V)
    aj.ReducePairElem(dst, src, [0b0110, 0], 1, 1, 1, 8)  # lanes 1 and 2: pairs 0 and 1 have one lane each
    got = dst.numpy()
    assert got[1] == 5
    assert got[0] == 0 and math.copysign(1, got[0]) == 1  # D19: -0 + (+0) = +0
    rest = 0 if core.spec.pair_both_masked_zero else 9
    assert (got[2:] == rest).all()


def test_mask_zero_per_device(device):
    core = aj.Core(device)
    src, dst = core.local_tensor("half", 256), core.local_tensor("half", 128)
    src[:] = 1
    dst[:] = 9
    if core.spec.mask_zero_refused:
        with pytest.raises(aj.ParameterError, match="D14"):
            aj.ReducePairElem(dst, src, 0, 2, 1, 1, 8)
        return
    aj.ReducePairElem(dst, src, 0, 2, 1, 1, 8)
    assert (dst.numpy() == (0 if core.spec.pair_both_masked_zero else 9)).all()  # 310B writes zeros (D14)
    aj.ReducePairElem(dst, src, 128, 0, 1, 1, 8)


def test_dst_rep_stride_zero_last_repeat_wins(device):
    core = aj.Core(device)
    src, dst = core.local_tensor("half", 384), core.local_tensor("half", 64)
    src[:] = np.repeat([1, 2, 3], 128)
    if not core.spec.pair_dst_rep_stride_zero:
        with pytest.raises(aj.ParameterError, match="dst_rep_stride"):
            aj.ReducePairElem(dst, src, 128, 3, 0, 1, 8)
        return
    aj.ReducePairElem(dst, src, 128, 3, 0, 1, 8)
    assert (dst.numpy() == 6).all()


@st.composite
def pair_cases(draw):
    device = draw(st.sampled_from(DEVICES))
    spec = aj.get_device(device)
    dtype = draw(st.sampled_from(spec.pair_dtypes))
    lanes = 256 // ref.SIZES[dtype]
    if draw(st.booleans()):
        mask = draw(st.integers(0, lanes + 3))
        act = ref.continuous_lanes(mask, lanes)
    else:
        lo = draw(st.integers(0, 2**64 - 1) | st.sampled_from([0, 0x5555555555555555, 0xAAAAAAAAAAAAAAAA]))
        hi = draw(st.integers(0, 2**64 - 1)) if lanes == 128 else 0
        mask = [lo, hi] if lanes == 128 else [lo]
        act = ref.lanes_of_mask(lo, hi, lanes)
    return (device, dtype, mask, act, draw(st.integers(0, 10)), draw(st.integers(0, 6)), draw(st.integers(0, 3)),
            draw(st.integers(0, 12)), draw(st.integers(0, 2**32 - 1)), draw(st.booleans()), draw(st.booleans()))


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync",
                             reason="4-element tensors on a bounds=\"ub\" core: the strides address past them on "
                                    "purpose, which the memory check reports")
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair_cases())
def test_pair_matches_reference_on_whole_ub(case):
    device, dtype, mask, act, repeat, dst_rep, src_blk, src_rep, seed, saturating, counter = case
    core = aj.Core(device, bounds="ub")  # 4-element tensors, strided far past them: the UB rule
    set_sat_mode(core, saturating)
    random_ub(core, seed, dtype)
    src = core.local_tensor(dtype, 4, addr=0)
    dst = core.local_tensor(dtype, 4, addr=40960)
    core.ub_written_by_host()   # the random UB bytes (the tensors made them undefined): initialised for the sanitizer
    before = core.ub.copy()
    last = None
    try:
        if counter:
            count = repeat * 37
            core.SetMaskCount()
            core.SetVectorMask(count)
            lanes = 256 // ref.SIZES[dtype]
            act, repeat = list(range(lanes)), -(-count // lanes)
            last = count - (repeat - 1) * lanes if repeat else None
            aj.ReducePairElem(dst, src, aj.MASK_PLACEHOLDER, 1, dst_rep, src_blk, src_rep, is_set_mask=False)
        else:
            aj.ReducePairElem(dst, src, mask, repeat, dst_rep, src_blk, src_rep)
    except aj.AscendJitError:
        assert np.array_equal(core.ub, before)
        return
    if act or core.spec.pair_both_masked_zero:
        ref.reduce_pair(before, core.spec, dtype, dst.addr, src.addr, act, repeat, dst_rep, src_blk, src_rep,
                        core.half_saturating, last)
    assert np.array_equal(core.ub, before)


def test_refusals(device):
    core = aj.Core(device)
    random_ub(core, 2)
    src, dst = core.local_tensor("half", 4096), core.local_tensor("half", 2048)
    cases = [(lambda: aj.ReducePairElem(dst, src, 128, 256, 1, 1, 8), aj.ParameterError, "repeat_time"),
             (lambda: aj.ReducePairElem(dst, src, 128, 1, 65536, 1, 8), aj.ParameterError, "dst_rep_stride"),
             (lambda: aj.ReducePairElem(dst, src, 128, 1, 1, -1, 8), aj.ParameterError, "src_blk_stride"),
             (lambda: aj.ReducePairElem(dst, src, 128, 255, 1, 1, 65535), aj.OutOfBoundsError, "src"),
             (lambda: aj.ReducePairElem(dst, src, 128, 255, 65535, 1, 8), aj.OutOfBoundsError, "dst"),
             (lambda: aj.ReducePairElem(core.local_tensor("half", 64, addr=dst.addr + 16), src, 128, 1, 1, 1, 8),
              aj.AlignmentError, "dst"),
             (lambda: aj.ReducePairElem(core.local_tensor("half", 64, addr=src.addr + 64), src, 128, 1, 1, 1, 8),
              aj.OverlapError, "dst/src"),
             (lambda: aj.ReducePairElem(dst, src, 128, 1, 1, 1, 8, reduce_type=aj.ReduceType.MAX), aj.ParameterError,
              "reduce_type"),
             (lambda: aj.ReducePairElem(dst, src, 128, 1, 1, 1, 8, is_set_mask=False), aj.ParameterError, "mask")]
    i16 = core.local_tensor("int16", 128)
    cases.append((lambda: aj.ReducePairElem(i16, i16, 128, 1, 1, 1, 8), aj.UnsupportedDTypeError, "int16"))
    cases.append((lambda: aj.ReducePairElem(dst, src, 128, 1, 1, 1, 8, reduce_type=aj.Reg.ReduceType.SUM),
                  aj.ParameterError, "reduce_type"))   # the Reg twin is another enum (issue 12)
    # template arguments are keyword-only (SPEC-2 1.1): an eighth positional argument was taken as reduce_type
    with pytest.raises(TypeError):
        aj.ReducePairElem(dst, src, 128, 1, 1, 1, 8, aj.ReduceType.SUM)
    for call, error, word in cases:
        before = core.ub.copy()
        with pytest.raises(error) as info:
            call()
        assert word in str(info.value) and device in str(info.value)
        assert np.array_equal(core.ub, before)


def test_float_not_on_training():
    core = aj.Core("atlas-training")
    f = core.local_tensor("float", 64)
    with pytest.raises(aj.UnsupportedDTypeError, match="half"):
        aj.ReducePairElem(f, f, 64, 1, 1, 1, 8)
