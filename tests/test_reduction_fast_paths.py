"""The reductions' direct paths against the reference model, byte for byte over the whole UB: float MAX/MIN of
whole, contiguous-block repeats and DataBlocks (jit/reductions.py group_extreme_float_rows_kernel scans the UB's
int32 keys without the int64 gather), and SUM under a mask of the first lanes (group_sum_kernel decodes the prefix of each
contiguous repeat in one run). The values come from a pool of specials (NaNs of both signs and several payloads,
+-0, +-inf, the extremes, subnormals) and repeated values, so ties, the first NaN lane and -0 against +0 (D41, D50)
are exercised on every draw; src_rep_stride 0 and dst overlapping its own later repeats are drawn too."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.reference import model as ref_model
from ascend_jit.reference import reductions as ref
from conftest import DEVICES, set_sat_mode
from test_add import random_ub

FULL = 2**64 - 1
FLOAT_SPECIALS = np.array([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
                           0xFFA12345, 0x00000001, 0x80000001, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000,
                           0x3F800000, 0x3F800000], np.uint32)
HALF_SPECIALS = np.array([0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x0001, 0x8001, 0x7BFF, 0xFBFF, 0x3C00,
                          0x3C00, 0xBC00], np.uint16)
SRC_BYTES = 256 * 40


def _sprinkle(core, seed, dtype):
    """Random UB bytes, then the first SRC_BYTES mostly drawn from the dtype's special pool (ties included)."""
    random_ub(core, seed)
    rng = np.random.default_rng(seed)
    pool = FLOAT_SPECIALS if dtype == "float" else HALF_SPECIALS
    window = core.ub[:SRC_BYTES].view(pool.dtype)
    pick = rng.random(window.size) < 0.7
    window[pick] = rng.choice(pool, int(pick.sum()))


def _devices(attr, dtype):
    return [d for d in DEVICES if dtype in getattr(aj.get_device(d), attr)]


@st.composite
def extreme_cases(draw):
    device = draw(st.sampled_from(_devices("reduce_repeat_max_min_dtypes", "float")))
    spec = aj.get_device(device)
    family = draw(st.sampled_from(["repeat", "block"] if "float" in spec.reduce_data_block_dtypes else ["repeat"]))
    return dict(device=device, family=family, op=draw(st.sampled_from(["max", "min"])),
                order=draw(st.sampled_from(spec.reduce_repeat_orders)) if family == "repeat" else 0,
                mask=draw(st.sampled_from([64, [FULL]])), repeat=draw(st.integers(1, 12) | st.just(40)),
                dst_rep=draw(st.integers(0, 4)), src_rep=draw(st.integers(0, 9)), seed=draw(st.integers(0, 2**32 - 1)),
                dst_at=draw(st.sampled_from([120000, 120000 + 32 * 5, 1024])))


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync",
                             reason="an 8-element dst on a bounds=\"ub\" core: the strides address past them on "
                                    "purpose, which the memory check reports")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(extreme_cases())
def test_float_max_min_of_whole_repeats_match_reference(case):
    c = case
    core = aj.Core(c["device"], bounds="ub")
    _sprinkle(core, c["seed"], "float")
    src = core.local_tensor("float", SRC_BYTES // 4, addr=0)
    dst = core.local_tensor("float", 8, addr=c["dst_at"])   # 1024: inside src (refused, UB unchanged)
    rt = aj.ReduceType.MAX if c["op"] == "max" else aj.ReduceType.MIN
    core.ub_written_by_host()   # the random UB bytes (the tensors made them undefined): initialised for the sanitizer
    before = core.ub.copy()
    try:
        if c["family"] == "repeat":
            aj.ReduceRepeat(dst, src, c["mask"], c["repeat"], c["dst_rep"], 1, c["src_rep"], c["order"],
                            reduce_type=rt)
        else:
            aj.ReduceDataBlock(dst, src, c["mask"], c["repeat"], c["dst_rep"], 1, c["src_rep"], reduce_type=rt)
    except aj.AscendJitError:
        assert np.array_equal(core.ub, before)
        return
    act = list(range(64))
    if c["family"] == "repeat":
        ref.reduce_repeat(before, core.spec, c["op"], "float", "float", dst.addr, src.addr, act, c["repeat"],
                          c["dst_rep"], 1, c["src_rep"], c["order"], core.half_saturating, None)
    else:
        ref.reduce_data_block(before, core.spec, c["op"], "float", dst.addr, src.addr, act, c["repeat"], c["dst_rep"],
                              1, c["src_rep"], core.half_saturating, None)
    assert np.array_equal(core.ub, before)


@st.composite
def prefix_sum_cases(draw):
    device = draw(st.sampled_from(DEVICES))
    spec = aj.get_device(device)
    src_dtype, dst_dtype = draw(st.sampled_from([p for p in spec.reduce_repeat_sum_pairs if p[0] in ("half", "float")]))
    lanes = 256 // ref.SIZES[src_dtype]
    first = draw(st.integers(1, lanes - 1))
    form = draw(st.sampled_from(["continuous", "bits", "holes"]))
    if form == "continuous":
        mask, act = first, list(range(first))
    else:
        bits = (1 << first) - 1
        if form == "holes":  # a lane past the prefix: the lane-by-lane walk
            bits |= 1 << draw(st.integers(first, lanes - 1))
        lo, hi = bits & FULL, bits >> 64
        mask, act = ([lo, hi] if lanes == 128 else [lo]), ref_model.lanes_of_mask(lo, hi, lanes)
    return dict(device=device, src_dtype=src_dtype, dst_dtype=dst_dtype, mask=mask, act=act,
                repeat=draw(st.integers(1, 12) | st.just(40)), dst_rep=draw(st.integers(0, 4)),
                src_blk=draw(st.sampled_from([1, 1, 2])), src_rep=draw(st.integers(0, 9)),
                seed=draw(st.integers(0, 2**32 - 1)), saturating=draw(st.booleans()),
                family=draw(st.sampled_from(["repeat", "block"])))


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync",
                             reason="an 8-element dst on a bounds=\"ub\" core: the strides address past them on "
                                    "purpose, which the memory check reports")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prefix_sum_cases())
def test_sums_under_a_prefix_mask_match_reference(case):
    c = case
    core = aj.Core(c["device"], bounds="ub")
    set_sat_mode(core, c["saturating"])
    _sprinkle(core, c["seed"], c["src_dtype"])
    src = core.local_tensor(c["src_dtype"], SRC_BYTES // ref.SIZES[c["src_dtype"]], addr=0)
    dst = core.local_tensor(c["dst_dtype"], 8, addr=120000 + 32 * (c["seed"] % 7))
    core.ub_written_by_host()   # the random UB bytes (the tensors made them undefined): initialised for the sanitizer
    before = core.ub.copy()
    block = c["family"] == "block" and c["src_dtype"] in core.spec.reduce_data_block_dtypes
    try:
        if block:
            aj.ReduceDataBlock(dst, src, c["mask"], c["repeat"], c["dst_rep"], c["src_blk"], c["src_rep"],
                               reduce_type=aj.ReduceType.SUM)
        else:
            aj.WholeReduceSum(dst, src, c["mask"], c["repeat"], c["dst_rep"], c["src_blk"], c["src_rep"])
    except aj.AscendJitError:
        assert np.array_equal(core.ub, before)
        return
    sat = core.half_saturating
    if block:
        ref.reduce_data_block(before, core.spec, "sum", c["src_dtype"], dst.addr, src.addr, c["act"], c["repeat"],
                              c["dst_rep"], c["src_blk"], c["src_rep"], sat, None)
    else:
        ref.reduce_repeat(before, core.spec, "sum", c["src_dtype"], c["dst_dtype"], dst.addr, src.addr, c["act"],
                          c["repeat"], c["dst_rep"], c["src_blk"], c["src_rep"], 0, sat, None)
    assert np.array_equal(core.ub, before)
