"""ReduceSum: seed goldens, SPEC 9 boundary tables, order (kernel == explain tree), reference equality, refusals."""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.devices import TREE_TREE_950
from ascend_jit.reference import model as ref
from conftest import DEVICES, set_sat_mode
from test_add import random_ub

INF, NAN = math.inf, math.nan


def _tensors(core, dtype, n, tmp_n=None):
    src = core.local_tensor(dtype, n)
    dst = core.local_tensor(dtype, 16)
    tmp = core.local_tensor(dtype, tmp_n if tmp_n is not None else max(aj.GetReduceSumTmpSize(core.device, dtype,
                                                                                          count=n), 16))
    dst[:] = 0
    return src, dst, tmp


@pytest.mark.parametrize("mask", [128, [2**64 - 1, 2**64 - 1]])
def test_seed_high_dim_8320_ones(device, mask):
    core = aj.Core(device)
    src, dst, tmp = _tensors(core, "half", 8320, 80)
    src[:] = 1
    aj.ReduceSum(dst, src, tmp, mask, 65, 8)
    aj.testing.assert_bit_equal(dst.numpy(), np.array([8320] + [0] * 15, np.float16))


def test_seed_count_288_ones_and_spr(device):
    core = aj.Core(device)
    src, dst, tmp = _tensors(core, "half", 288)
    src[:] = 1
    aj.ReduceSum(dst, src, tmp, 288)
    core.PipeBarrier(aj.PIPE_ALL)             # the scalar unit waits for the vector pipe (V -> S)
    if not core.spec.reduce_repeat_sum_spr:   # 950, A3, A2 only (DK GetReduceRepeatSumSpr(ISASI).md)
        with pytest.raises(aj.UnsupportedDeviceError, match="GetReduceRepeatSumSpr"):
            core.GetReduceRepeatSumSpr()
        aj.testing.assert_bit_equal(dst.numpy(), np.array([288] + [0] * 15, np.float16))
        return
    dst.SetValue(1, core.GetReduceRepeatSumSpr())
    aj.testing.assert_bit_equal(dst.numpy(), np.array([288, 288] + [0] * 14, np.float16))


@pytest.mark.parametrize("saturating", [False, True])
def test_seed_saturation_example(device, saturating):
    """D12: [60000, 60000, -30000, 100] -> 35584 in saturation mode, +inf in INF/NaN mode."""
    core = aj.Core(device)
    if not set_sat_mode(core, saturating):
        pytest.skip("mode not offered (D6)")
    src, dst, tmp = _tensors(core, "half", 4)
    src[:] = [60000, 60000, -30000, 100]
    aj.ReduceSum(dst, src, tmp, 4)
    assert dst.numpy()[0] == (35584 if saturating else np.inf)


TABLE_41 = [  # SPEC 9 (A2/A3, 256 halves, count form): specials at lanes 0..k, rest ones -> (INF, sat)
    ([-0.0] * 256, -0.0, -0.0), ([NAN] * 256, NAN, 0.0), ([INF, -INF, NAN] + [1] * 253, NAN, 252),
    ([INF, -INF] + [1] * 254, NAN, 254), ([INF, NAN] + [1] * 254, NAN, 254), ([INF] + [1] * 255, INF, 65504),
    ([-INF] + [1] * 255, -INF, -65248), ([NAN] + [1] * 255, NAN, 254)]


def _same(got, want):
    if isinstance(want, float) and math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1, got) == math.copysign(1, want)


@pytest.mark.parametrize("device_", ["atlas-a2", "atlas-a3"])
@pytest.mark.parametrize("saturating", [False, True])
@pytest.mark.parametrize("values,inf_mode,sat_mode", TABLE_41)
def test_table_41(device_, saturating, values, inf_mode, sat_mode):
    core = aj.Core(device_)
    set_sat_mode(core, saturating)
    src, dst, tmp = _tensors(core, "half", 256)
    src[:] = values
    aj.ReduceSum(dst, src, tmp, 256)
    assert _same(float(dst.numpy()[0]), sat_mode if saturating else inf_mode)


@pytest.mark.parametrize("device_", ["atlas-a2", "atlas-a3"])
@pytest.mark.parametrize("saturating", [False, True])
def test_table_41_float_rows_are_ieee_in_both_modes(device_, saturating):
    """SPEC 9 (Table 41, float): anything with inf/nan gives the IEEE result in both modes; all MAX -> inf."""
    core = aj.Core(device_)
    set_sat_mode(core, saturating)
    src, dst, tmp = _tensors(core, "float", 64)
    for values, want in (([np.finfo(np.float32).max] * 64, INF), ([INF, -INF] + [1] * 62, NAN),
                         ([NAN] + [1] * 63, NAN), ([-INF] + [1] * 63, -INF)):
        src[:] = values
        aj.ReduceSum(dst, src, tmp, 64)
        assert _same(float(dst.numpy()[0]), want)
        assert math.isnan(want) <= (dst.numpy()[:1].view(np.uint32)[0] == 0x7FC00000)  # canonical NaN


TABLE_38 = [([-INF] + [1] * 127, -INF, -65376), ([NAN] + [1] * 127, NAN, 126), ([INF] + [1] * 127, INF, 65504)]


@pytest.mark.parametrize("saturating", [False, True])
@pytest.mark.parametrize("form", ["count", "highdim"])
@pytest.mark.parametrize("values,inf_mode,sat_mode", TABLE_38)
def test_table_38_one_repeat_tree(device, saturating, form, values, inf_mode, sat_mode):
    """SPEC 9 (ReduceRepeat SUM, one repeat of 128 halves): every device's single-repeat tree."""
    core = aj.Core(device)
    if not set_sat_mode(core, saturating):
        pytest.skip("mode not offered (D6)")
    src, dst, tmp = _tensors(core, "half", 128)
    src[:] = values
    if form == "count":
        aj.ReduceSum(dst, src, tmp, 128)
    else:
        aj.ReduceSum(dst, src, tmp, 128, 1, 8)
    assert _same(float(dst.numpy()[0]), sat_mode if saturating else inf_mode)


def test_a2_count_form_leaves_tmp_and_dst_tail_untouched():
    core = aj.Core("atlas-a2")
    src, dst, tmp = _tensors(core, "half", 1000, 64)
    src[:] = np.random.default_rng(0).standard_normal(1000)
    tmp[:] = 7
    dst[:] = 5
    aj.ReduceSum(dst, src, tmp, 1000)
    assert (tmp.numpy() == 7).all() and (dst.numpy()[1:] == 5).all()


def test_tree_seq_accumulator_is_rounded_each_repeat():
    """D1: half accumulator rounded after every repeat. One repeat summing to 2048 then 128 repeats of 1.0 each
    (one lane 1.0): 2048 + 1 rounds back to 2048 each time in half; an fp32 accumulator would give 2176."""
    core = aj.Core("atlas-a2")
    n = 129 * 128
    src, dst, tmp = _tensors(core, "half", n, 16)
    x = np.zeros(n, np.float16)
    x[:128] = 16
    x[128::128] = 1
    src[:] = x
    aj.ReduceSum(dst, src, tmp, n)
    assert dst.numpy()[0] == 2048
    core2 = aj.Core("atlas-training")  # tree-tree: the ones are summed first, 2048 + 128
    src2, dst2, tmp2 = _tensors(core2, "half", n)
    src2[:] = x
    aj.ReduceSum(dst2, src2, tmp2, n)
    assert dst2.numpy()[0] == 2176


# --- order: kernel == the tree explain_reduce_order describes ------------------------------------------------------
def _branch_sizes(lanes, ub_elems):
    sizes = [1, lanes - 1, lanes, lanes + 1, 2 * lanes, 3 * lanes + 5, 4 * lanes, 4 * lanes + 1, 65 * lanes,
             lanes * lanes + 1]
    return [n for n in sizes if 2 * n + 4096 < ub_elems]


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_count_form_matches_explained_order(device, dtype):
    core = aj.Core(device)
    if dtype not in core.spec.reduce_sum_dtypes:
        pytest.skip("dtype not on device")
    lanes = 256 // np.dtype(np.float16 if dtype == "half" else np.float32).itemsize
    rng = np.random.default_rng(11)
    for n in _branch_sizes(lanes, core.spec.ub_bytes // (2 if dtype == "half" else 4)):
        core = aj.Core(device)
        src, dst, tmp = _tensors(core, dtype, n)
        x = (rng.standard_normal(n) * 300).astype(np.float16 if dtype == "half" else np.float32)
        src[:] = x
        aj.ReduceSum(dst, src, tmp, n)
        order = aj.explain_reduce_order(device, "count", dtype, count=n)
        want = order.evaluate(x, saturate=core.half_saturating)
        assert _same(float(dst.numpy()[0]), want), (device, n)
        assert sorted(order.leaves()) == list(range(n))


@pytest.mark.parametrize("repeat,mask", [(1, 128), (2, 100), (127, 128), (128, [0xF0F0, 0xFF]), (129, 128),
                                         (300, 77), (0, 128)])
def test_high_dim_matches_explained_order(device, repeat, mask):
    core = aj.Core(device)
    n = max(repeat, 1) * 128
    src, dst, tmp = _tensors(core, "half", n, max(aj.GetReduceSumTmpSize(device, "half", repeat_time=repeat), 16))
    x = (np.random.default_rng(repeat).standard_normal(n) * 100).astype(np.float16)
    src[:] = x
    dst[:] = 3
    aj.ReduceSum(dst, src, tmp, mask, repeat, 8)
    order = aj.explain_reduce_order(device, "highdim", "half", mask=mask, repeat_time=repeat)
    if order.tree is None:  # repeat 0 off the 950: NOP, or +0 on the 310B (D14)
        assert dst.numpy()[0] == (0 if core.spec.reduce_sum_highdim_repeat0 == "zero" else 3)
        return
    assert _same(float(dst.numpy()[0]), order.evaluate(x, saturate=core.half_saturating))


def test_950_counter_mode_high_dim_uses_mask_as_count():
    """D23: in counter mode the 950 takes the element count from the mask argument; repeat_time is ignored."""
    core = aj.Core("ascend950")
    src, dst, tmp = _tensors(core, "half", 1024)
    x = (np.random.default_rng(5).standard_normal(1024) * 50).astype(np.float16)
    src[:] = x
    core.SetMaskCount()
    aj.ReduceSum(dst, src, tmp, 700, 99, 8)
    core.SetMaskNorm()
    order = aj.explain_reduce_order("ascend950", "highdim", "half", mask=700, counter_mode=True)
    assert _same(float(dst.numpy()[0]), order.evaluate(x))


def test_950_integer_sums():
    core = aj.Core("ascend950")
    for dtype, vals, want in (("int32", [2**31 - 1, 1, 5], -2**31 + 5), ("uint32", [2**32 - 1, 2], 1),
                              ("int64", [2**63 - 1, 1], -2**63), ("uint64", [2**64 - 1, 3], 2)):
        n = 700
        src, dst, tmp = _tensors(core, dtype, n)
        x = np.zeros(n, np.dtype(dtype))
        x[:len(vals)] = vals
        src[:] = x
        aj.ReduceSum(dst, src, tmp, n)
        assert int(dst.numpy()[0]) == want, dtype


# --- property tests against the reference -------------------------------------------------------------------------
@st.composite
def reduce_cases(draw):
    device = draw(st.sampled_from(DEVICES))
    spec = aj.get_device(device)
    dtype = draw(st.sampled_from(spec.reduce_sum_dtypes))
    size = ref.SIZES[dtype]
    lanes = 256 // size
    form = "count" if dtype in spec.reduce_sum_count_only_dtypes else draw(st.sampled_from(["count", "highdim"]))
    seed = draw(st.integers(0, 2**32 - 1))
    saturating = draw(st.booleans())
    if form == "count":
        count = draw(st.sampled_from([1, lanes - 1, lanes, lanes + 3, 2 * lanes, 3 * lanes + 1, 4 * lanes,
                                      4 * lanes + 1]) | st.integers(1, 40 * lanes))
        return device, dtype, form, seed, saturating, dict(count=count)
    if draw(st.booleans()):
        mask = draw(st.integers(0, lanes + 5))
        act = list(range(min(mask, lanes)))
    else:
        lo = draw(st.integers(0, 2**64 - 1))
        hi = draw(st.integers(0, 2**64 - 1)) if size == 2 else 0
        mask = [lo, hi] if size == 2 else [lo]
        act = ref.lanes_of_mask(lo, hi, lanes)
    repeat = draw(st.integers(0, 3) | st.integers(0, 2 * lanes + 3))
    stride = draw(st.integers(0, 10))
    return device, dtype, form, seed, saturating, dict(mask=mask, act=act, repeat=repeat, stride=stride)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(reduce_cases())
def test_reduce_sum_matches_reference_on_whole_ub(case):
    device, dtype, form, seed, saturating, p = case
    core = aj.Core(device, bounds="ub")  # strides past the tensors: the UB rule (tensor bounds: test_tensor_bounds)
    set_sat_mode(core, saturating)
    random_ub(core, seed, dtype)
    size = ref.SIZES[dtype]
    src = core.local_tensor(dtype, 60000 // size, addr=0)
    tmp = core.local_tensor(dtype, 4096 // size, addr=70016)
    dst = core.local_tensor(dtype, 4, addr=70016 + 64 if seed % 3 == 0 else 80000 + size * (seed % 5))
    before = core.ub.copy()
    try:
        if form == "count":
            aj.ReduceSum(dst, src, tmp, p["count"])
        else:
            aj.ReduceSum(dst, src, tmp, p["mask"], p["repeat"], p["stride"])
    except aj.AscendJitError:
        assert np.array_equal(core.ub, before)
        return
    sat = core.half_saturating
    if form == "count":
        ref.reduce_sum_count(before, core.spec, dtype, dst.addr, src.addr, tmp.addr, p["count"], sat)
    elif p["act"]:
        ref.reduce_sum_high_dim(before, core.spec, dtype, dst.addr, src.addr, tmp.addr, p["act"], p["repeat"],
                                p["stride"], sat)
    assert np.array_equal(core.ub, before)


# --- refusals -------------------------------------------------------------------------------------------------------
def _refused(core, call, error, *words):
    before = core.ub.copy()
    with pytest.raises(error) as info:
        call()
    assert np.array_equal(core.ub, before)
    for w in words:
        assert w in str(info.value)


def test_refusals(device):
    core = aj.Core(device)
    random_ub(core, 3)
    src, dst, tmp = _tensors(core, "half", 2200, 16)
    ub_elems = core.spec.ub_bytes // 2
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 0), aj.ParameterError, "count", device)
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, ub_elems + 1), aj.ParameterError, str(ub_elems))
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 4096), aj.OutOfBoundsError, "'count' = 4096",
             "src.GetSize() = 2200")
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 128, 600, 8000), aj.OutOfBoundsError)
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 128, 16385, 0), aj.ParameterError, "L*L")
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 128, 1, 65536), aj.ParameterError, "src_rep_stride")
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 128, -1, 8), aj.ParameterError)
    if core.spec.reduce_sum_count_algorithm != "tree-seq":
        _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 2176), aj.ParameterError, "sharedTmpBuffer", ">= 32")
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 128, 17, 8), aj.ParameterError, "32")
    mis_src = core.local_tensor("half", 256, addr=src.addr + 16)
    _refused(core, lambda: aj.ReduceSum(dst, mis_src, tmp, 128), aj.AlignmentError, "src")
    mis_tmp = core.local_tensor("half", 64, addr=tmp.addr + 2)
    _refused(core, lambda: aj.ReduceSum(dst, src, mis_tmp, 128, 2, 8), aj.AlignmentError, "sharedTmpBuffer")
    odd_dst = core.local_tensor("half", 4, addr=dst.addr + 1)
    _refused(core, lambda: aj.ReduceSum(odd_dst, src, tmp, 128), aj.AlignmentError, "dst")
    in_src = core.local_tensor("half", 4, addr=src.addr + 64)
    _refused(core, lambda: aj.ReduceSum(in_src, src, tmp, 128), aj.OverlapError)
    f = core.local_tensor("int16", 128)
    _refused(core, lambda: aj.ReduceSum(f, f, f, 128), aj.UnsupportedDTypeError)
    if device == "ascend950":
        i64 = core.local_tensor("int64", 64)
        t64 = core.local_tensor("int64", 8)
        _refused(core, lambda: aj.ReduceSum(t64, i64, t64, 32, 1, 8), aj.UnsupportedDTypeError, "count form")
        _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 0, 1, 8), aj.ParameterError, "D14")
    # a parameter given both positionally and by keyword, keywords of both forms, or a high-dim form lacking a value
    # is refused (audit 8: the keyword silently won, or the positional count did and repeat_time= was dropped);
    # the words are _common.split_forms', shared with Cast, Compare and the element-wise family
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 128, count=5), aj.ParameterError, "count= together")
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 128, 2, 8, mask=64), aj.ParameterError, "mask given both")
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 128, repeat_time=2), aj.ParameterError,
             "lacks src_rep_stride", "src_rep_stride)", device)
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, count=5, mask=64), aj.ParameterError, "count= together")
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp), aj.ParameterError, "missing")


def test_high_dim_values_positionally_or_by_keyword(device):
    """SPEC-2 1.1 (decisions.md "Forms by position or keyword"): mask, repeat_time and src_rep_stride are each given
    positionally or by keyword, the first ones positionally and the rest by keyword too, as ReduceMax and Cast take
    them (tester R2: `128, repeat_time=4, src_rep_stride=8` was refused as a value "given twice")."""
    core = aj.Core(device)
    src, dst, tmp = _tensors(core, "half", 1024, 64)
    src[:] = (np.arange(1024) % 7).astype(np.float16)
    aj.ReduceSum(dst, src, tmp, 128, 4, 8)
    want = dst.numpy().copy()
    for args, kw in (((128,), dict(repeat_time=4, src_rep_stride=8)), ((128, 4), dict(src_rep_stride=8)),
                     ((), dict(mask=128, repeat_time=4, src_rep_stride=8)),
                     ((128,), dict(src_rep_stride=8, repeat_time=4))):
        dst[:] = 0
        aj.ReduceSum(dst, src, tmp, *args, **kw)
        aj.testing.assert_bit_equal(dst.numpy(), want)
    dst[:] = 0
    aj.ReduceSum(dst, src, tmp, count=300)
    aj.ReduceSum(tmp, src, tmp, 300)
    aj.testing.assert_bit_equal(dst.numpy()[:1], tmp.numpy()[:1])


def _tmp_over_src_cases(core):
    """dst, src and (call, refused, sum) per form on `core`: tmp is src itself, so the call is legal where the
    device's algorithm writes no tmp entry (SPEC 4.2-4.4; decisions.md "Overlap") and, since session 66, on every
    non-950 tree, whose first level writes repeat i's sum to tmp[i], bytes a repeat already read (decisions.md
    "Reductions in place"), and since session 67 on the 950's count form (the same order, SPEC 4.4); the 950's
    high-dim form writing tmp stays refused."""
    spec, lanes = core.spec, 128
    s = core.local_tensor("half", 8 * lanes)
    d = core.local_tensor("half", 16)
    s[:] = np.ones(8 * lanes, np.float16)
    is_950 = spec.reduce_sum_highdim_algorithm == TREE_TREE_950
    cases = [(lambda n=n: aj.ReduceSum(d, s, s, n), False, n)   # the 950's count form in place since session 67
             for n in (100, 300, 4 * lanes, 5 * lanes + 1)]
    cases += [(lambda r=r: aj.ReduceSum(d, s, s, lanes, r, 8), is_950 and r > 1, r * lanes) for r in (1, 2)]
    return d, s, cases


def test_tmp_may_overlap_src_where_the_algorithm_writes_no_tmp(device):
    """Tester R1: the overlap rule keeps src apart from the tmp entries the algorithm writes, not from tmp as a
    whole: the 950 writes none for N <= 4L (count, counter mode) or R <= 1 (high dim), the A2/A3 count form none
    at all; the 950's high-dim paths that write tmp[0..] are refused (OverlapError, nothing written). The non-950
    trees (session 66) and the 950's count form (session 67) take a tmp at src's own address whatever they write
    (tests/test_reduce_sum_tmp_in_place.py)."""
    core = aj.Core(device)
    d, s, cases = _tmp_over_src_cases(core)
    for call, refused, n in cases:
        s[:] = np.ones(s.size, np.float16)   # an in-place call leaves partial sums in src (D18)
        if refused:
            _refused(core, call, aj.OverlapError, "src/sharedTmpBuffer", device)
        else:
            d[:] = 0
            call()
            assert d.numpy()[0] == n
    if device == "ascend950":
        s = core.local_tensor("half", 1024)
        s[:] = np.ones(1024, np.float16)
        core.SetMaskCount()
        aj.ReduceSum(d, s, s, 300, 1, 8)                       # counter mode, N <= 4L: VADD merges only
        assert d.numpy()[0] == 300
        _refused(core, lambda: aj.ReduceSum(d, s, s, 641, 1, 8), aj.OverlapError, "src/sharedTmpBuffer")
        core.SetMaskNorm()
        i64 = core.local_tensor("int64", 256)
        i64[:] = np.arange(256)
        d64 = core.local_tensor("int64", 4)
        aj.ReduceSum(d64, i64, i64, 256)                        # audit 3: 64-bit sums never touch tmp
        assert d64.numpy()[0] == 255 * 256 // 2


def test_tmp_overlap_counts_the_written_entries_not_the_rounded_minimum():
    """The rule is on the bytes written (A2 high dim, R = 2: tmp[0..1]), not on the 32-byte minimum of D18: a tmp
    over lanes a bit mask skips is legal even where the rest of its minimum lies over read lanes."""
    core = aj.Core("atlas-a2")
    src = core.local_tensor("half", 512)
    dst = core.local_tensor("half", 16)
    src[:] = np.ones(512, np.float16)
    tmp = src[128:]                                               # repeat 1's lanes 0 and 1 are masked off
    aj.ReduceSum(dst, src, tmp, [2**64 - 4, 2**64 - 1], 2, 8)
    assert dst.numpy()[0] == 252
    # tmp[0..1] = repeat 0's lanes 112, 113, which it reads
    _refused(core, lambda: aj.ReduceSum(dst, src, src[112:], 128, 2, 8), aj.OverlapError, "src repeat 0")


def test_sanitizer_records_the_tmp_entries_written():
    """The sanitizer's write footprint of tmp is the overlap rule's (_tmp_written): on the 950 a count of 300 writes
    no tmp, 641 writes tmp[0..5]; an Add over the first 16 entries then reads 16 or 10 never-written entries."""
    for count, unwritten_from in ((300, 0), (641, 6)):
        with aj.Core("ascend950", sanitize="report") as core:
            src, dst = core.local_tensor("half", 1024), core.local_tensor("half", 16)
            tmp = core.local_tensor("half", 16)
            src[:] = np.ones(1024, np.float16)
            aj.ReduceSum(dst, src, tmp, count)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Add(dst, tmp, tmp, 16)
        reports = [r for r in core.sanitizer.reports if r.check == "init"]
        assert [(r.address, r.nbytes) for r in reports] == [(tmp.addr + 2 * unwritten_from, 32 - 2 * unwritten_from)]


def test_tmp_size_helper_refuses_what_reduce_sum_refuses(device):
    """Tester R4: GetReduceSumTmpSize answers only for a call ReduceSum accepts, through ReduceSum's own checks (D16
    count range; int32 repeatTime; D17's L*L; the forms of SPEC-2 1.1; 64-bit types in the count form only; counter
    mode on the 950 only): the same error class, parameter value and legal range, naming the helper and device."""
    core = aj.Core(device)
    random_ub(core, 5)
    src, dst, tmp = _tensors(core, "half", 2048, 64)
    ub = core.spec.ub_bytes // 2
    cases = [(dict(count=0), lambda: aj.ReduceSum(dst, src, tmp, 0)),
             (dict(count=10**6), lambda: aj.ReduceSum(dst, src, tmp, 10**6)),
             (dict(count=ub + 1), lambda: aj.ReduceSum(dst, src, tmp, ub + 1)),
             (dict(count=2.0), lambda: aj.ReduceSum(dst, src, tmp, 2.0)),
             (dict(repeat_time=-1), lambda: aj.ReduceSum(dst, src, tmp, 128, -1, 8)),
             (dict(repeat_time=2**31), lambda: aj.ReduceSum(dst, src, tmp, 128, 2**31, 0)),
             (dict(repeat_time=128 * 128 + 1), lambda: aj.ReduceSum(dst, src, tmp, 128, 128 * 128 + 1, 0)),
             (dict(count=100, repeat_time=3),
              lambda: aj.ReduceSum(dst, src, tmp, count=100, repeat_time=3, src_rep_stride=8)),
             (dict(), lambda: aj.ReduceSum(dst, src, tmp))]
    counter = dict(repeat_time=1, counter_mode=True)   # the 950's counter-mode high-dim form (D23)
    if device == "ascend950":
        i64, t64 = core.local_tensor("int64", 64), core.local_tensor("int64", 8)
        cases += [(dict(repeat_time=2, dtype="int64"), lambda: aj.ReduceSum(t64, i64, t64, 32, 2, 8)),
                  (dict(count=0, **counter), lambda: aj.ReduceSum(dst, src, tmp, 0, 1, 8))]
    else:
        cases += [(dict(count=300, **counter), lambda: aj.ReduceSum(dst, src, tmp, 300, 1, 8))]
    for kw, call in cases:
        with pytest.raises(aj.AscendJitError) as helper:
            aj.GetReduceSumTmpSize(device, **{"dtype": "half", **kw})
        if kw.get("counter_mode"):
            core.SetMaskCount()
        try:
            _refused(core, call, type(helper.value))
            with pytest.raises(aj.AscendJitError) as api:
                call()
        finally:
            core.SetMaskNorm()
        h, a = helper.value, api.value
        assert (h.api, h.device, a.device) == ("GetReduceSumTmpSize", core.device, core.device), kw
        if h.parameter == "arguments":  # the forms: split_forms' words, each naming its own signature
            words = "count= together" if "count" in kw else "is missing"
            assert a.parameter == "arguments" and words in str(h) and words in str(a), kw
            continue
        assert (h.value, h.legal) == (a.value, a.legal), kw
        # counter mode: the helper's count= is ReduceSum's mask argument
        assert h.parameter == a.parameter or (kw.get("counter_mode") and a.parameter.startswith("mask")), kw
    # what ReduceSum accepts, the helper sizes (decisions.md "ReduceSum sharedTmpBuffer minimum")
    want = {"ascend950": (16, 48, 80), "atlas-a3": (0, 0, 80), "atlas-a2": (0, 0, 80)}.get(device, (16, 32, 80))
    assert (aj.GetReduceSumTmpSize(device, "half", count=300), aj.GetReduceSumTmpSize(device, "half", count=4100),
            aj.GetReduceSumTmpSize(device, "half", repeat_time=65)) == want
    if device == "ascend950":
        assert aj.GetReduceSumTmpSize(device, "half", count=641, repeat_time=1, counter_mode=True) == 16
        assert aj.GetReduceSumTmpSize(device, "int64", count=100) == 4


def test_dst_may_overlap_tmp(device):
    core = aj.Core(device)
    src, _, tmp = _tensors(core, "half", 1000, 64)
    src[:] = 1
    aj.ReduceSum(tmp, src, tmp, 1000)
    assert tmp.numpy()[0] == 1000


def test_mask_register_undefined_after_non_950_high_dim():
    core = aj.Core("atlas-a2")
    src, dst, tmp = _tensors(core, "half", 256, 16)
    src[:] = 1
    d, a, b = (core.local_tensor("half", 128) for _ in range(3))
    a[:], b[:] = np.ones(128, np.float16), np.ones(128, np.float16)
    aj.ReduceSum(dst, src, tmp, 128, 2, 8)
    with pytest.raises(aj.StateError, match="undefined"):
        aj.Add(d, a, b, aj.MASK_PLACEHOLDER, 1, aj.BinaryRepeatParams(), is_set_mask=False)
    core.ResetMask()
    aj.Add(d, a, b, aj.MASK_PLACEHOLDER, 1, aj.BinaryRepeatParams(), is_set_mask=False)


def test_vector_core_refused():
    core = aj.Core("310p-vectorcore")
    src, dst, tmp = (core.local_tensor("half", 128) for _ in range(3))
    with pytest.raises(aj.UnsupportedDeviceError):
        aj.ReduceSum(dst, src, tmp, 128)


@pytest.mark.parametrize("count", [129, 300, 500, 700])
def test_count_form_at_the_very_end_of_the_ub(device, count):
    """The last bytes the call may read are src[count-1]; a src that ends exactly at the UB end must work (the
    950's VADD path must not read the rest of the last 256-byte repeat)."""
    core = aj.Core(device)
    src = core.local_tensor("half", count, addr=(core.spec.ub_bytes - count * 2) // 32 * 32)  # ends < 32 B from the end
    dst, tmp = core.local_tensor("half", 16, addr=0), core.local_tensor("half", 64, addr=64)
    x = (np.random.default_rng(count).standard_normal(count) * 10).astype(np.float16)
    src[:] = x
    aj.ReduceSum(dst, src, tmp, count)
    want = aj.explain_reduce_order(device, "count", "half", count=count).evaluate(x, saturate=core.half_saturating)
    assert _same(float(dst.numpy()[0]), want)


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-a3"])
@pytest.mark.parametrize("register_count", [0, 10**6])
def test_count_form_register_count_refusal_names_the_register(device, register_count):
    """A2/A3 count form with is_set_mask=False: the count is the counter-mode mask register (SPEC 4.2, 2.5), so a
    register count outside D16's [1, UB bytes / sizeof(T)] is refused naming the register and its value, as the other
    is_set_mask=False calls do; the `count` argument (ignored here) was named before (audit15a). Nothing changes."""
    core = aj.Core(device)
    src, dst, tmp = _tensors(core, "half", 256)
    core.SetMaskCount()
    core.SetVectorMask(register_count)
    before = core.ub.copy()
    with pytest.raises(aj.ParameterError) as refusal:
        aj.ReduceSum(dst, src, tmp, 1, is_set_mask=False)
    message = str(refusal.value)
    assert f"parameter 'mask register (counter-mode count)' = {register_count}" in message
    assert "[1, 98304]" in message and device in message
    assert (core.ub == before).all() and core.counter_mode and core.mask_low == register_count


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["half", "float", "int32", "int64"])
def test_in_place_equals_the_out_of_place_sum(device, dtype):
    """`ReduceSum(t, t, tmp, n)` and the high-dim `ReduceSum(t, t, tmp, mask, repeats, 8)`: dst at src's address is
    the full overlap SPEC 3.3 allows a count API (SPEC 4.5); every algorithm writes dst[0] once, after its last read
    of src, so t[0] gets the sum of the original t, bit for bit the out-of-place call's, and the rest of t is
    unchanged (decisions.md "Reductions in place")."""
    rng = np.random.default_rng(seed := sum(map(ord, device + dtype)))
    npdt = np.dtype({"half": np.float16, "float": np.float32}.get(dtype, dtype))
    for count in (1, 129, 1000, 2049, 8320):
        core = aj.Core(device)
        src, copy = core.local_tensor(dtype, 8320), core.local_tensor(dtype, 8320)
        dst, tmp = core.local_tensor(dtype, 16), core.local_tensor(dtype, 512)
        values = ((rng.standard_normal(8320) * 1000).astype(npdt) if npdt.kind == "f"
                  else rng.integers(-10 ** 6, 10 ** 6, 8320).astype(npdt))
        src[:] = values
        copy[:] = values
        try:
            aj.ReduceSum(dst, src, tmp, count)
        except aj.UnsupportedDTypeError:
            pytest.skip(f"{dtype} ReduceSum is not offered on {device} (SPEC 4.5)")
        aj.ReduceSum(copy, copy, tmp, count)
        assert copy.numpy()[:1].tobytes() == dst.numpy()[:1].tobytes(), (count, seed)
        assert copy.numpy()[1:].tobytes() == values[1:].tobytes()
        repeats, mask = min(count // 128 + 1, 8320 * npdt.itemsize // 256), 100 if count % 2 else 256 // npdt.itemsize
        copy[:] = values
        try:
            aj.ReduceSum(dst, src, tmp, mask, repeats, 8)
        except aj.UnsupportedDTypeError:
            continue  # the high-dim form takes half and float (SPEC 4.5)
        aj.ReduceSum(copy, copy, tmp, mask, repeats, 8)
        assert copy.numpy()[:1].tobytes() == dst.numpy()[:1].tobytes(), ("high-dim", repeats, mask, seed)
        assert copy.numpy()[1:].tobytes() == values[1:].tobytes()
