"""The reduction family (SPEC-2 8): ReduceRepeat and its old names, ReduceDataBlock and BlockReduce*, ReduceMax /
ReduceMin, GetReduceRepeatMaxMinSpr: SPEC-2 12.4 golden vectors per device and mode, the 0.4 decision probes,
index conventions (D50, D53), refusals, and whole-UB property tests against the reference model."""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.reference import model as ref_model
from ascend_jit.reference import reductions as ref
from conftest import DEVICES, set_sat_mode
from test_add import random_ub

INF, NAN = math.inf, math.nan
MAX, MIN, SUM = aj.ReduceType.MAX, aj.ReduceType.MIN, aj.ReduceType.SUM
VI, IV, OV, OI = list(aj.ReduceOrder)
FULL = 2**64 - 1


def u16(t):
    return t.numpy().view(np.uint16)


def _half_src(core, values):
    src = core.local_tensor("half", len(values))
    src[:] = np.asarray(values, np.float16)
    return src


def _r1_src(core, base=(1, 2, 5, 3), peaks=(11, 12, 9, 13), at=(52, 100, 7, 19)):
    """SPEC-2 R-1: four repeats, repeat r all base[r] with lane at[r] = peaks[r] (repeat 2 chosen by the test)."""
    x = np.repeat(np.asarray(base, np.float16), 128)
    for r in range(4):
        x[r * 128 + at[r]] = peaks[r]
    return _half_src(core, x)


# --- ReduceRepeat (R-1, R-2, R-4) ------------------------------------------------------------------------------------
@pytest.mark.parametrize("mask", [128, [FULL, FULL]])
def test_r1_reduce_repeat_max_every_order(device, mask):
    core = aj.Core(device)
    src = _r1_src(core)
    want = {VI: [0x4980, 52, 0x4A00, 100, 0x4880, 7, 0x4A80, 19],
            IV: [52, 0x4980, 100, 0x4A00, 7, 0x4880, 19, 0x4A80],
            OV: [0x4980, 0x4A00, 0x4880, 0x4A80],
            OI: [52, 0, 100, 0, 7, 0, 19, 0]}
    for order, words in want.items():
        dst = core.local_tensor("half", 16)
        dst[:] = np.full(16, 0x5555, np.uint16).view(np.float16)
        call = lambda: aj.ReduceRepeat(dst, src, mask, 4, 1, 1, 8, order, reduce_type=MAX)  # noqa: E731
        if int(order) not in core.spec.reduce_repeat_orders:
            with pytest.raises(aj.ParameterError, match="order"):
                call()
            continue
        call()
        got = u16(dst)
        assert got[:len(words)].tolist() == words and (got[len(words):] == 0x5555).all(), order


def test_r2_reduce_repeat_min_and_the_old_names(device):
    core = aj.Core(device)
    src = _r1_src(core, base=(10, 20, 25, 30), peaks=(1, 2, 4, 3), at=(52, 100, 0, 19))
    dst, dst2 = core.local_tensor("half", 16), core.local_tensor("half", 16)
    aj.ReduceRepeat(dst, src, 128, 4, 1, 1, 8, reduce_type=MIN)
    aj.WholeReduceMin(dst2, src, 128, 4, 1, 1, 8)
    assert u16(dst)[:8].tolist() == [0x3C00, 52, 0x4000, 100, 0x4400, 0, 0x4200, 19]
    assert u16(dst2).tolist() == u16(dst).tolist()
    aj.WholeReduceMax(dst2, src, 128, 4, 1, 1, 8, aj.ReduceOrder.ORDER_VALUE_INDEX)
    assert u16(dst2)[:2].tolist() == [np.float16(10).view(np.uint16), 0]  # ties -> smallest lane (D50)


def test_old_sum_names_and_argument_order(device):
    core = aj.Core(device)
    x = (np.random.default_rng(1).standard_normal(3 * 128) * 50).astype(np.float16)
    src = _half_src(core, x)
    a, b, c = (core.local_tensor("half", 16) for _ in range(3))
    aj.ReduceRepeat(a, src, 100, 3, 1, 1, 8, reduce_type=SUM)
    aj.WholeReduceSum(b, src, 100, 3, 1, 1, 8)
    want = [ref_model.tree("half", list(map(float, x[r * 128:r * 128 + 100])), 128, core.half_saturating)
            for r in range(3)]
    assert a.numpy()[:3].tolist() == b.numpy()[:3].tolist() == [np.float16(w) for w in want]
    if core.spec.repeat_reduce_sum_offered:
        aj.RepeatReduceSum(c, src, 3, 100, 7, 1, 1, 8)  # dst_blk_stride is checked and ignored
        assert c.numpy()[:3].tolist() == a.numpy()[:3].tolist()
        with pytest.raises(aj.ParameterError, match="bit-mask"):
            aj.RepeatReduceSum(c, src, 3, [FULL, FULL], 1, 1, 1, 8)
        with pytest.raises(aj.ParameterError, match="dst_blk_stride"):
            aj.RepeatReduceSum(c, src, 3, 100, 65536, 1, 1, 8)
    else:
        with pytest.raises(aj.UnsupportedDeviceError, match="RepeatReduceSum"):
            aj.RepeatReduceSum(c, src, 3, 100, 1, 1, 1, 8)


R4_REPEAT = [  # SPEC-2 R-4 (MemBV-T36/T37/T38): op, one repeat of 128 halves, INF/NaN, sat
    (SUM, [-INF] + [1] * 127, -INF, -65376), (SUM, [NAN] + [1] * 127, NAN, 126), (SUM, [INF] + [1] * 127, INF, 65504),
    (SUM, [-65504] * 128, -INF, -65504), (SUM, [INF, -INF] * 64, NAN, 0.0),
    (MAX, [1] * 127 + [-INF], 1.0, 1.0), (MAX, [1] * 127 + [NAN], NAN, 0.0), (MAX, [INF, -INF] * 64, INF, 65504),
    (MAX, [-0.0] * 128, -0.0, -0.0), (MIN, [INF, -INF] * 64, -INF, -65504), (MIN, [1] * 127 + [INF], 1.0, 1.0)]


def _same(got, want):
    if isinstance(want, float) and math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1, got) == math.copysign(1, want)


@pytest.mark.parametrize("saturating", [False, True])
@pytest.mark.parametrize("op,values,inf_mode,sat_mode", R4_REPEAT)
def test_r4_reduce_repeat_boundary_rows(device, saturating, op, values, inf_mode, sat_mode):
    core = aj.Core(device)
    if not set_sat_mode(core, saturating):
        pytest.skip("mode not offered (D6)")
    src = _half_src(core, values)
    dst = core.local_tensor("half", 16)
    aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, reduce_type=op)
    assert _same(float(dst.numpy()[0]), sat_mode if saturating else inf_mode)


def test_float_sums_are_never_saturated():
    core = aj.Core("atlas-a2")
    set_sat_mode(core, True)
    src = core.local_tensor("float", 64)
    src[:] = np.float32(3.4028235e38)
    dst = core.local_tensor("float", 8)
    aj.ReduceRepeat(dst, src, 64, 1, 1, 1, 8, reduce_type=SUM)
    aj.ReduceDataBlock(dst, src, 64, 1, 1, 1, 8, reduce_type=SUM)
    assert np.isinf(dst.numpy()).all()


# --- index conventions (D50) and decision probes ----------------------------------------------------------------------
def test_h4_nan_index_is_the_first_nan_lane(device):
    core = aj.Core(device)
    x = np.ones(128, np.float16)
    x[5] = x[9] = np.nan
    src, dst = _half_src(core, x), core.local_tensor("half", 16)
    set_sat_mode(core, False) or set_sat_mode(core, True)
    aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, reduce_type=MIN)
    assert u16(dst)[1] == 5
    assert u16(dst)[0] == (0 if core.half_saturating else 0x7E00)  # NaN -> +0 in saturation mode, index unaffected


def test_h21_masked_lanes_never_win_and_index_ignores_strides(device):
    core = aj.Core(device)
    x = np.full(1024, 100, np.float16)
    x[:64] = 1
    x[3] = 2
    src, dst = _half_src(core, x), core.local_tensor("half", 16)
    aj.ReduceRepeat(dst, src, 64, 1, 1, 1, 8, reduce_type=MAX)
    assert u16(dst)[:2].tolist() == [0x4000, 3]
    x[16:] = 0
    x[2 * 16 + 4] = 7  # lane 20 (block 1, position 4) read from block 2 with src_blk_stride 2
    src[:] = x
    aj.ReduceRepeat(dst, src, 128, 1, 1, 2, 8, reduce_type=MAX)
    assert u16(dst)[:2].tolist() == [0x4700, 20]  # the lane number, not a memory offset


def test_ties_between_zeros_follow_d41():
    core = aj.Core("atlas-a2")
    x = np.zeros(128, np.float16)
    x[:4] = -0.0
    src, dst = _half_src(core, x), core.local_tensor("half", 16)
    aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, reduce_type=MAX)
    assert u16(dst)[:2].tolist() == [0x0000, 4]   # max(-0, +0) = +0: the first +0 lane
    aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, reduce_type=MIN)
    assert u16(dst)[:2].tolist() == [0x8000, 0]   # min(-0, +0) = -0


def test_950_integer_reduce_repeat():
    core = aj.Core("ascend950")
    src = core.local_tensor("int16", 256)
    src[:] = np.concatenate([np.full(128, 32767, np.int16), np.arange(-64, 64, dtype=np.int16)])
    dst = core.local_tensor("int32", 8)
    aj.WholeReduceSum(dst, src, 128, 2, 1, 1, 8)
    assert dst.numpy()[:2].tolist() == [32767 * 128, -64]  # widened: no 16-bit wrap
    src32 = core.local_tensor("int32", 64)
    src32[:] = np.full(64, 2**31 - 1, np.int32)
    aj.WholeReduceSum(dst, src32, 64, 1, 1, 1, 8)
    assert dst.numpy()[0] == -64  # int32 adds wrap modulo 2**32 (D50)
    d16 = core.local_tensor("uint16", 16)
    s16 = core.local_tensor("uint16", 128)
    s16[:] = np.arange(128, dtype=np.uint16) * 500
    aj.ReduceRepeat(d16, s16, 128, 1, 1, 1, 8, aj.ReduceOrder.ORDER_ONLY_INDEX, reduce_type=MAX)
    assert d16.numpy()[:2].view(np.uint32)[0] == 127


def test_h19_get_reduce_repeat_max_min_spr():
    core = aj.Core("atlas-a2")
    x = np.ones(256, np.float16)
    x[128 + 3] = 9
    src, dst = _half_src(core, x), core.local_tensor("half", 16)
    with core:
        with pytest.raises(aj.StateError, match="D55"):
            aj.GetReduceRepeatMaxMinSpr("half")
        aj.ReduceRepeat(dst, src, 128, 2, 1, 1, 8, reduce_type=MAX)
        aj.PipeBarrier(aj.PIPE_ALL)           # the scalar read of the register waits for the vector pipe
        value, index = aj.GetReduceRepeatMaxMinSpr("half")
        assert value == 9 and index.view(np.uint16) == 131
        with pytest.raises(aj.StateError, match="dtype"):
            aj.GetReduceRepeatMaxMinSpr("float")
        aj.ReduceRepeat(dst, src, 128, 2, 1, 1, 16 // 2, reduce_type=MAX)
        aj.ReduceRepeat(dst, src, 128, 1, 1, 2, 8, reduce_type=MAX)
        with pytest.raises(aj.StateError, match="contiguous"):
            aj.GetReduceRepeatMaxMinSpr("half")
        core.SetMaskCount()                   # D55: a counter-mode call leaves nothing to read (spec2-audit)
        aj.ReduceRepeat(dst, src, 200, 2, 1, 1, 8, reduce_type=MAX)
        core.SetMaskNorm()
        with pytest.raises(aj.StateError, match="counter mode"):
            aj.GetReduceRepeatMaxMinSpr("half")
        tmp = core.local_tensor("half", 64)
        aj.ReduceMax(dst, src, tmp, 256, True)
        aj.PipeBarrier(aj.PIPE_ALL)
        value, index = aj.GetReduceRepeatMaxMinSpr("half")
        assert value == 9 and index.view(np.uint16) == 0xFFFF  # D55: the inaccurate index is all ones
    p310 = aj.Core("310p")
    src = _half_src(p310, x)
    aj.ReduceRepeat(p310.local_tensor("half", 16), src, 128, 2, 1, 1, 8, reduce_type=MIN)
    p310.PipeBarrier(aj.PIPE_ALL)
    assert aj.GetReduceRepeatMaxMinSpr("half", core=p310) == 1
    assert p310.GetReduceRepeatMaxMinSpr("half") == 1       # the Core method, as core.GetReduceRepeatSumSpr
    assert aj.GetReduceMaxMinCount("half", core=p310) == 1  # the pre-9.1 name (SPEC-2 8.4)
    with pytest.raises(aj.UnsupportedDeviceError):
        aj.GetReduceRepeatMaxMinSpr("half", core=aj.Core("950"))


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-a3", "310p"])
def test_d55_register_after_reduce_max_holds_the_written_value_in_saturation_mode(device):
    """A NaN in one repeat (x[3]) and 2.0 in another (x[130]), saturation mode: ReduceRepeat's register holds the
    overall extreme then saturated (+0: the NaN), ReduceMax's the value it wrote (2.0): its last vcmax runs over the
    per-repeat results already saturated (SPEC-2 8.3.2; docs/decisions.md "GetReduceRepeatMaxMinSpr")."""
    core = aj.Core(device)
    assert set_sat_mode(core, True)
    x = np.ones(256, np.float16)
    x[3], x[130] = np.nan, 2
    src, dst, tmp = _half_src(core, x), core.local_tensor("half", 16), core.local_tensor("half", 64)
    with core:
        for call, want in ((lambda: aj.ReduceRepeat(dst, src, 128, 2, 1, 1, 8, reduce_type=MAX), 0x0000),
                           (lambda: aj.ReduceMax(dst, src, tmp, 256), 0x4000),
                           (lambda: aj.ReduceMax(dst, src, tmp, 128, 2, 8), 0x4000)):
            call()
            aj.PipeBarrier(aj.PIPE_ALL)
            got = aj.GetReduceRepeatMaxMinSpr("half")
            value = got[0] if isinstance(got, tuple) else got
            assert np.asarray(value, np.float16).view(np.uint16) == want
        assert dst.numpy()[:1].view(np.uint16)[0] == 0x4000  # ReduceMax's written value


# --- ReduceDataBlock (R-3, R-4, D51) -----------------------------------------------------------------------------------
def test_r3_reduce_data_block(device):
    core = aj.Core(device)
    dst = core.local_tensor("half", 16)
    for op, base, peaks, want in ((MAX, 1, {10: 2, 29: 3, 115: 4}, [2, 3, 1, 1, 1, 1, 1, 4]),
                                  (MIN, 10, {11: 2, 29: -3, 121: 4}, [2, -3, 10, 10, 10, 10, 10, 4])):
        x = np.full(128, base, np.float16)
        for k, v in peaks.items():
            x[k] = v
        src = _half_src(core, x)
        for call in (lambda: aj.ReduceDataBlock(dst, src, 128, 1, 1, 1, 8, reduce_type=op),
                     lambda: (aj.BlockReduceMax if op is MAX else aj.BlockReduceMin)(dst, src, 1, [FULL, FULL], 1, 1, 8)):
            dst[:] = 0
            call()
            assert dst.numpy()[:8].tolist() == want
    v = [1, 2, 0.5, 3, -1, 7, 0.25, 3]
    src = _half_src(core, np.repeat(np.asarray(v, np.float16), 16))
    aj.BlockReduceSum(dst, src, 1, 128, 1, 1, 8)
    assert dst.numpy()[:8].tolist() == [16 * b for b in v]


R4_BLOCK = [(SUM, [1] * 15 + [NAN], NAN, 14.0), (SUM, [1] * 15 + [INF], INF, 65504), (SUM, [-65504] * 16, -INF, -65504),
            (SUM, [65504] * 16, INF, 65504),  # SPEC.md Tables 33-35, the Memory API's row
            (MAX, [1] * 15 + [-INF], 1.0, 1.0), (MAX, [NAN] * 16, NAN, 0.0), (MIN, [NAN] * 16, NAN, 0.0),
            (MAX, [INF, -INF] * 8, INF, 65504), (MIN, [INF, -INF] * 8, -INF, -65504)]


@pytest.mark.parametrize("saturating", [False, True])
@pytest.mark.parametrize("op,values,inf_mode,sat_mode", R4_BLOCK)
def test_r4_reduce_data_block_boundary_rows(device, saturating, op, values, inf_mode, sat_mode):
    core = aj.Core(device)
    if not set_sat_mode(core, saturating):
        pytest.skip("mode not offered (D6)")
    src = _half_src(core, values * 8)
    dst = core.local_tensor("half", 16)
    aj.ReduceDataBlock(dst, src, 128, 1, 1, 1, 8, reduce_type=op)
    for b in range(8):
        assert _same(float(dst.numpy()[b]), sat_mode if saturating else inf_mode)


@pytest.mark.parametrize("op", [SUM, MAX, MIN])
def test_h9_fully_masked_blocks_per_device(device, op):
    core = aj.Core(device)
    for dtype, mask in (("half", 16), ("float", 8)):
        src = core.local_tensor(dtype, 256 // np.dtype(np.float16 if dtype == "half" else np.float32).itemsize)
        src[:] = 1
        dst = core.local_tensor(dtype, 8)
        dst[:] = 7
        if dtype not in core.spec.reduce_data_block_dtypes:
            continue
        aj.ReduceDataBlock(dst, src, mask, 1, 1, 1, 8, reduce_type=op)
        out = dst.numpy()
        fill = ref.block_fill(core.spec, op.name.lower(), dtype)
        want = 7.0 if fill is None else ref.sat(dtype, fill, core.half_saturating)
        assert out[0] == (16 if op is SUM and dtype == "half" else 8 if op is SUM else 1)
        assert all(_same(float(v), want) for v in out[1:]), (dtype, out)


# --- ReduceMax / ReduceMin (R-5, R-6, R-7, H-5) ------------------------------------------------------------------------
R5 = [([INF, -INF, NAN] + [1] * 253, (NAN, 1.0), (NAN, 0.0)), ([INF, NAN] + [1] * 254, (NAN, 1.0), (NAN, 0.0)),
      ([INF, -INF] + [1] * 254, (INF, 65504), (-INF, -65504)), ([1] * 255 + [NAN], (NAN, 1.0), (NAN, 0.0)),
      ([-INF] * 256, (-INF, -65504), (-INF, -65504))]


@pytest.mark.parametrize("saturating", [False, True])
@pytest.mark.parametrize("values,want_max,want_min", R5)
def test_r5_reduce_max_min_non_950(device, saturating, values, want_max, want_min):
    core = aj.Core(device)
    if core.spec.reduce_max_min_per_lane or not set_sat_mode(core, saturating):
        pytest.skip("the 950 follows D53 (test_r5_950); mode not offered (D6)")
    src, dst, tmp = _half_src(core, values), core.local_tensor("half", 16), core.local_tensor("half", 64)
    aj.ReduceMax(dst, src, tmp, 256)
    assert _same(float(dst.numpy()[0]), want_max[saturating])
    aj.ReduceMin(dst, src, tmp, 256, True)
    assert _same(float(dst.numpy()[0]), want_min[saturating])


def test_r5_950_and_h5():
    core = aj.Core("ascend950")
    src, dst = _half_src(core, [-INF] * 128), core.local_tensor("half", 16)
    aj.ReduceMax(dst, src, src, 128, True)  # tmp may be src itself on the 950 (D54)
    assert u16(dst)[:2].tolist() == [0xFBFF, 0]
    x = np.full(128, -np.inf, np.float16)
    x[7] = np.nan
    src[:] = x
    aj.ReduceMax(dst, src, src, 128, True)
    assert u16(dst)[:2].tolist() == [0x7E00, 0xFFFE]
    src = _half_src(core, R5[0][0])
    aj.ReduceMax(dst, src, src, 256, True)
    assert u16(dst)[:2].tolist() == [0x7E00, 0xFFFE]
    core.SetCtrlSpr(48, 48, 0)
    aj.ReduceMax(dst, src, src, 256, True)
    assert u16(dst)[:2].tolist() == [0x7BFF, 0]  # lane 0's accumulator saturates (R-5 decision)
    src = _half_src(core, [-0.0] * 64 + [0.0] * 64)
    aj.ReduceMax(dst, src, src, 128, True)
    assert u16(dst)[:2].tolist() == [0x0000, 0]  # a +0 result may carry a -0 element's index (D53)
    src = _half_src(core, [-INF] * 256)   # R-5 "all -inf" on the 950 in saturation mode: ReduceMax and ReduceMin
    aj.ReduceMax(dst, src, src, 256, True)
    assert u16(dst)[:2].tolist() == [0xFBFF, 0]
    aj.ReduceMin(dst, src, src, 256, True)
    assert u16(dst)[:2].tolist() == [0xFBFF, 0]
    core.SetCtrlSpr(48, 48, 1)           # INF/NaN mode: ReduceMin's per-lane min(+65504 seed, -inf) is -inf (8.3.3)
    aj.ReduceMin(dst, src, src, 256, True)
    assert u16(dst)[:2].tolist() == [0xFC00, 0]


def test_950_counter_mode_high_dim_reads_strided_repeats_and_indexes_by_v():
    """SPEC-2 8.3.3 / D53 (spec2-audit): a 950 high-dim ReduceMax in counter mode processes `count` (the mask
    argument) elements as the count form, except that repeat r is read at r * src_rep_stride blocks while the index
    still advances by V per repeat. count V + 40 with src_rep_stride 16 (2V elements): repeat 1 reads src[2V ..
    2V + 39], so its lane 10 (= 9) wins with index V + 10 (an index of src offsets would be 2V + 10); src[V + 5] = 20
    lies in the gap between the strided repeats and src[2V + 50] = 30 is lane 50 of repeat 1, past the count. The
    half path without saturation has a kernel of its own; saturation mode and float take the lane walk: all three."""
    core = aj.Core("ascend950")
    for dtype, lanes in (("half", 128), ("float", 64)):
        x = np.zeros(1024, np.float16 if dtype == "half" else np.float32)
        x[[2 * lanes + 10, lanes + 5, 2 * lanes + 50]] = [9, 20, 30]
        src, dst = core.local_tensor(dtype, 1024), core.local_tensor(dtype, 16)
        src[:] = x
        for saturating in ((False, True) if dtype == "half" else (False,)):
            core.SetCtrlSpr(48, 48, 0 if saturating else 1)
            core.SetMaskCount()
            aj.ReduceMax(dst, src, src, lanes + 40, 7, 16, True)   # repeat_time 7 is ignored in counter mode
            core.SetMaskNorm()
            got = dst.numpy()
            index = got.view(np.uint16 if dtype == "half" else np.uint32)[1]
            assert (got[0], index) == (9, lanes + 10), (dtype, saturating, got[0], index)
        core.SetCtrlSpr(48, 48, 1)


def test_r6_layout_and_index_conventions(device):
    core = aj.Core(device)
    rng = np.random.default_rng(6)
    x = rng.uniform(0.01, 0.99, 512).astype(np.float16)
    x[114], x[353] = 0.9985, 0.001
    src, tmp = _half_src(core, x), core.local_tensor("half", 64)
    dst = core.local_tensor("half", 16)
    dst[:] = np.full(16, 0x5555, np.uint16).view(np.float16)
    aj.ReduceMax(dst, src, tmp, 128, 4, 8, True)
    assert u16(dst)[:3].tolist() == [np.float16(0.9985).view(np.uint16), 114, 0x5555]
    aj.ReduceMin(dst, src, tmp, 512, False)
    assert u16(dst)[:2].tolist() == [np.float16(0.001).view(np.uint16), 114]  # index slot untouched without cal_index
    aj.ReduceMin(dst, src, tmp, 128, 4, 8, True)  # R-6's ReduceMin, 4 repeats: [value, index 353 (0x0161)]
    assert u16(dst)[:3].tolist() == [np.float16(0.001).view(np.uint16), 0x0161, 0x5555]
    y = rng.uniform(0.01, 0.99, 288).astype(np.float16)   # R-6's count 288: a full repeat, then a 32-element tail
    y[232], y[72] = 0.999, 0.00393
    src288, tmp288 = _half_src(core, y), core.local_tensor("half", 64)
    aj.ReduceMax(dst, src288, tmp288, 288, True)
    assert u16(dst)[:2].tolist() == [np.float16(0.999).view(np.uint16), 0x00E8]
    aj.ReduceMin(dst, src288, tmp288, 288, True)
    assert u16(dst)[:2].tolist() == [np.float16(0.00393).view(np.uint16), 0x0048]
    if "float" not in core.spec.reduce_max_min_dtypes:
        return
    f = core.local_tensor("float", 64)
    f[:] = np.arange(64, dtype=np.float32) % 5
    fd = core.local_tensor("float", 8)
    aj.ReduceMax(fd, f, core.local_tensor("float", 64), 64, True)
    assert fd.numpy()[:2].view(np.uint32).tolist() == [np.float32(4).view(np.uint32), 4]  # ties -> smallest


def test_r7_tmp_sizes():
    for kw, want in ((dict(repeat_time=65, cal_index=True), 176), (dict(repeat_time=255, cal_index=True), 544),
                     (dict(count=65408, cal_index=True), 1056), (dict(count=65408), 1024),
                     (dict(repeat_time=4, cal_index=True), 32)):
        assert aj.GetReduceMaxMinTmpSize("atlas-a2", "half", **kw) == want
        assert ref.max_min_tmp_size(aj.get_device("a2"), "half", **kw) == want
    assert aj.GetReduceMaxMinTmpSize("310p", "float", repeat_time=130, cal_index=True) == 288
    assert aj.GetReduceMaxMinTmpSize("950", "half", count=5, cal_index=True) == 0


def test_950_integer_reduce_max_min():
    core = aj.Core("ascend950")
    for dtype, vals in (("int16", [-5, 300, -32768, 300]), ("uint32", [7, 2**32 - 1, 0, 2**32 - 1]),
                        ("int64", [-2**63, 2**62, 5, 2**62]), ("uint64", [2**64 - 1, 3, 2**64 - 1, 0])):
        n = 300
        src = core.local_tensor(dtype, n)
        x = np.zeros(n, np.dtype(dtype))
        x[[3, 77, 150, 299]] = vals
        src[:] = x
        dst = core.local_tensor(dtype, 4)
        aj.ReduceMax(dst, src, src, n, True)
        assert int(dst.numpy()[0]) == int(x.max()), dtype
        idx = dst.numpy()[1:2].view(np.uint16 if x.itemsize == 2 else np.uint32)[0]
        assert idx == int(np.argmax(x)), dtype
        aj.ReduceMin(dst, src, src, n, True)
        assert int(dst.numpy()[0]) == int(x.min()), dtype


def _refused(core, call, error, *words):
    before = core.ub.copy()
    with pytest.raises(error) as info:
        call()
    assert np.array_equal(core.ub, before)
    for w in words:
        assert w in str(info.value)


def test_refusals(device):
    core = aj.Core(device)
    random_ub(core, 4)
    src, dst, tmp = core.local_tensor("half", 1024), core.local_tensor("half", 16), core.local_tensor("half", 64)
    tmp16 = core.local_tensor("half", 16)
    spec = core.spec
    _refused(core, lambda: aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8), aj.ParameterError, "reduce_type")
    _refused(core, lambda: aj.ReduceRepeat(dst, src, 128, 256, 1, 1, 8, reduce_type=SUM), aj.ParameterError, "255")
    _refused(core, lambda: aj.ReduceRepeat(dst, src, 128, 9, 1, 1, 8, reduce_type=SUM), aj.OutOfBoundsError, "src")
    _refused(core, lambda: aj.ReduceRepeat(dst, src, 128, 2, 20, 1, 8, reduce_type=SUM), aj.OutOfBoundsError, "dst")
    _refused(core, lambda: aj.ReduceRepeat(dst[1:], src, 128, 1, 1, 1, 8, reduce_type=MAX), aj.AlignmentError, "dst")
    _refused(core, lambda: aj.ReduceDataBlock(dst[4:], src, 128, 1, 1, 1, 8, reduce_type=MAX), aj.AlignmentError)
    _refused(core, lambda: aj.ReduceRepeat(src[64:], src, 128, 2, 1, 1, 8, reduce_type=SUM), aj.OverlapError)
    _refused(core, lambda: aj.ReduceMax(dst, src, tmp, 0), aj.ParameterError, "count")
    _refused(core, lambda: aj.ReduceMax(dst, src, tmp, 2000), aj.OutOfBoundsError, "count")
    _refused(core, lambda: aj.ReduceMax(dst, src, tmp, 128, 2, 8, 5), aj.ParameterError, "bool")
    _refused(core, lambda: aj.ReduceMax(src[8:], src, tmp, 512, True), aj.OverlapError, "dst")
    if not spec.reduce_max_min_per_lane:
        _refused(core, lambda: aj.ReduceMax(dst, src, src, 512, True), aj.OverlapError, "sharedTmpBuffer")
        _refused(core, lambda: aj.ReduceMax(dst, src, tmp16, 1024, True), aj.ParameterError, ">= 32")
        core.SetMaskCount()
        _refused(core, lambda: aj.ReduceMax(dst, src, tmp, 128, 1, 8), aj.StateError, "D52")
        core.SetMaskNorm()
    if not spec.reduce_dst_rep_stride_zero:
        _refused(core, lambda: aj.ReduceRepeat(dst, src, 128, 1, 0, 1, 8, reduce_type=SUM), aj.ParameterError)
    if spec.mask_zero_refused or spec.reduce_mask_zero_refused:
        _refused(core, lambda: aj.ReduceRepeat(dst, src, 0, 1, 1, 1, 8, reduce_type=SUM), aj.ParameterError, "D30")
        _refused(core, lambda: aj.ReduceMax(dst, src, tmp, 0, 1, 8), aj.ParameterError, "D30")
    else:
        before = core.ub.copy()
        aj.ReduceRepeat(dst, src, 0, 1, 1, 1, 8, reduce_type=SUM)
        aj.ReduceMax(dst, src, tmp, 0, 1, 8)
        assert np.array_equal(core.ub, before)
    big = core.local_tensor("half", 70000, addr=0) if 140000 < spec.ub_bytes else None
    if big is not None:
        _refused(core, lambda: aj.ReduceMax(dst, big, tmp16, 70000, True), aj.ParameterError, "index")


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync", reason="writes past dst through the bounds=\"ub\" escape "
                             "hatch, which the memory check reports by design")
def test_tensor_bounds_and_ub_bounds():
    core = aj.Core("atlas-a2")
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 1)
    with pytest.raises(aj.OutOfBoundsError, match="dst"):
        aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, reduce_type=MAX)  # [value, index] needs 2 elements
    loose = aj.Core("atlas-a2", bounds="ub")
    src, dst = loose.local_tensor("half", 128), loose.local_tensor("half", 1)
    src[:] = 1
    aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, reduce_type=MAX)   # the escape hatch: dst's tensor is too small


def test_mask_register_effects():
    core = aj.Core("atlas-a2")
    src, dst, tmp = core.local_tensor("half", 256), core.local_tensor("half", 16), core.local_tensor("half", 64)
    d, a, b = (core.local_tensor("half", 128) for _ in range(3))
    src[:] = np.zeros(256, np.float16)
    aj.ReduceRepeat(dst, src, 0, 0, 1, 1, 8, reduce_type=SUM)  # repeat 0: NOP, the register still gets the mask
    assert (core.mask_high, core.mask_low) == (0, 0)
    aj.ReduceMax(dst, src, tmp, 256)
    with pytest.raises(aj.StateError, match="undefined"):  # D31
        aj.Add(d, a, b, aj.MASK_PLACEHOLDER, 1, aj.BinaryRepeatParams(), is_set_mask=False)
    core.SetVectorMask(0, 5)  # lanes 0 and 2
    src[:] = np.arange(256, dtype=np.float16) + 1
    aj.ReduceRepeat(dst, src, aj.MASK_PLACEHOLDER, 1, 1, 1, 8, reduce_type=SUM, is_set_mask=False)
    assert dst.numpy()[0] == 4


# --- whole-UB property tests against the reference ---------------------------------------------------------------------
@st.composite
def group_cases(draw):
    device = draw(st.sampled_from(DEVICES))
    spec = aj.get_device(device)
    family = draw(st.sampled_from(["repeat", "block"]))
    op = draw(st.sampled_from(["sum", "max", "min"]))
    if family == "repeat":
        if op == "sum":
            src_dtype, dst_dtype = draw(st.sampled_from(spec.reduce_repeat_sum_pairs))
        else:
            src_dtype = dst_dtype = draw(st.sampled_from(spec.reduce_repeat_max_min_dtypes))
        order = draw(st.sampled_from(spec.reduce_repeat_orders))
    else:
        src_dtype = dst_dtype = draw(st.sampled_from(spec.reduce_data_block_dtypes))
        order = 0
    lanes = 256 // ref.SIZES[src_dtype]
    if draw(st.booleans()):
        mask = draw(st.integers(1, lanes + 5))
        act = list(range(min(mask, lanes)))
    else:
        lo = draw(st.integers(1, FULL))
        hi = draw(st.integers(0, FULL)) if lanes == 128 else 0
        mask = [lo, hi] if lanes == 128 else [lo]
        act = ref_model.lanes_of_mask(lo, hi, lanes)
    return dict(device=device, family=family, op=op, src_dtype=src_dtype, dst_dtype=dst_dtype, order=order, mask=mask,
                act=act, repeat=draw(st.integers(0, 6) | st.integers(0, 255)), dst_rep=draw(st.integers(0, 12)),
                src_blk=draw(st.integers(0, 3)), src_rep=draw(st.integers(0, 12)), seed=draw(st.integers(0, 2**32 - 1)),
                saturating=draw(st.booleans()), counter=draw(st.integers(0, 9)) == 0)


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync",
                             reason="an 8-element dst on a bounds=\"ub\" core: the strides address past them on "
                                    "purpose, which the memory check reports")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(group_cases())
def test_group_reductions_match_reference_on_whole_ub(case):
    c = case
    core = aj.Core(c["device"], bounds="ub")
    set_sat_mode(core, c["saturating"])
    random_ub(core, c["seed"], "half")
    src = core.local_tensor(c["src_dtype"], 1000, addr=0)
    dst = core.local_tensor(c["dst_dtype"], 8, addr=120000 + 32 * (c["seed"] % 7))
    core.ub_written_by_host()   # the random UB bytes (the tensors made them undefined): initialised for the sanitizer
    rt = {"sum": SUM, "max": MAX, "min": MIN}[c["op"]]
    mask = c["mask"]
    last = None
    if c["counter"]:
        core.SetMaskCount()
        count = (mask[0] if isinstance(mask, list) else mask) + 130
        mask = [count, 0] if isinstance(mask, list) and len(mask) == 2 else ([count] if isinstance(mask, list)
                                                                            else count)
        lanes = 256 // ref.SIZES[c["src_dtype"]]
        c["repeat"], c["act"], last = -(-count // lanes), list(range(lanes)), count % lanes or lanes
    before = core.ub.copy()
    try:
        if c["family"] == "repeat":
            aj.ReduceRepeat(dst, src, mask, c["repeat"], c["dst_rep"], c["src_blk"], c["src_rep"], c["order"],
                            reduce_type=rt)
        else:
            aj.ReduceDataBlock(dst, src, mask, c["repeat"], c["dst_rep"], c["src_blk"], c["src_rep"], reduce_type=rt)
    except aj.AscendJitError:
        assert np.array_equal(core.ub, before)
        return
    sat = core.half_saturating
    if c["family"] == "repeat":
        ref.reduce_repeat(before, core.spec, c["op"], c["src_dtype"], c["dst_dtype"], dst.addr, src.addr, c["act"],
                          c["repeat"], c["dst_rep"], c["src_blk"], c["src_rep"], c["order"], sat, last)
    else:
        ref.reduce_data_block(before, core.spec, c["op"], c["src_dtype"], dst.addr, src.addr, c["act"], c["repeat"],
                              c["dst_rep"], c["src_blk"], c["src_rep"], sat, last)
    assert np.array_equal(core.ub, before)


@st.composite
def max_min_cases(draw):
    device = draw(st.sampled_from(DEVICES))
    spec = aj.get_device(device)
    dtype = draw(st.sampled_from(spec.reduce_max_min_dtypes))
    lanes = 256 // ref.SIZES[dtype]
    count_only = dtype in spec.reduce_max_min_count_only_dtypes
    if count_only or draw(st.booleans()):
        p = dict(count=draw(st.sampled_from([1, lanes - 1, lanes, lanes + 1, 2 * lanes + 7]) | st.integers(1, 3000)))
    else:
        if draw(st.booleans()):
            mask = draw(st.integers(1, lanes))
            act = list(range(mask))
        else:
            lo = draw(st.integers(1, FULL))
            hi = draw(st.integers(0, FULL)) if lanes == 128 else 0
            mask, act = ([lo, hi] if lanes == 128 else [lo]), ref_model.lanes_of_mask(lo, hi, lanes)
        p = dict(mask=mask, act=act, repeat=draw(st.integers(1, 30)), src_rep=draw(st.integers(0, 10)))
    return device, dtype, p, draw(st.booleans()), draw(st.booleans()), draw(st.integers(0, 2**32 - 1)), draw(
        st.sampled_from(["max", "min"]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(max_min_cases())
def test_reduce_max_min_match_reference_on_whole_ub(case):
    device, dtype, p, cal_index, saturating, seed, op = case
    core = aj.Core(device, bounds="ub")
    set_sat_mode(core, saturating)
    random_ub(core, seed, "half")
    size = ref.SIZES[dtype]
    if seed % 4 == 0 and dtype == "half":  # many ties and specials: repeat a few bit patterns
        pats = np.array([0x7E00, 0x7C00, 0xFC00, 0x8000, 0x0000, 0x3C00, 0xBC00], np.uint16)
        core.ub[:8000] = pats[np.random.default_rng(seed).integers(0, 7, 4000)].view(np.uint8)
        core.ub_written_by_host(0, 8000)   # raw UB bytes: initialised for the sanitizer
    src = core.local_tensor(dtype, 20000 // size, addr=0)
    tmp = core.local_tensor(dtype, 2048 // size, addr=100000)
    dst = core.local_tensor(dtype, 4, addr=100000 + 32 * (seed % 3) if seed % 2 else 120000)
    fn = aj.ReduceMax if op == "max" else aj.ReduceMin
    before = core.ub.copy()
    try:
        if "count" in p:
            fn(dst, src, tmp, p["count"], cal_index)
        else:
            fn(dst, src, tmp, p["mask"], p["repeat"], p["src_rep"], cal_index)
    except aj.AscendJitError:
        assert np.array_equal(core.ub, before)
        return
    sat = core.half_saturating
    if core.spec.reduce_max_min_per_lane:
        if "count" in p:
            ref.reduce_max_min_950(before, op, dtype, dst.addr, src.addr, cal_index, sat, count=p["count"])
        else:
            ref.reduce_max_min_950(before, op, dtype, dst.addr, src.addr, cal_index, sat, lanes=p["act"],
                                   repeat=p["repeat"], src_rep=p["src_rep"])
    elif "count" in p:
        ref.reduce_max_min_levels(before, op, dtype, dst.addr, src.addr, None, None, None, cal_index, sat,
                                  count=p["count"])
    else:
        ref.reduce_max_min_levels(before, op, dtype, dst.addr, src.addr, p["act"], p["repeat"], p["src_rep"],
                                  cal_index, sat)
    assert np.array_equal(core.ub, before)


_PER_LANE_PATTERNS = {   # ties, -0/+0, infinities, the seeds' values, NaN
    "half": np.array([0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7BFF, 0xFBFF, 0x7E00], np.uint16),
    "float": np.array([0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7F7FFFFF,
                       0xFF7FFFFF, 0x7FC00000], np.uint32)}


@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("op", ["max", "min"])
def test_950_per_lane_count_path_on_ties_zeros_and_specials(op, dtype):
    """The 950's vectorised path (count form; half without saturation, float: port67b) against the lane-walk
    reference: inputs drawn from a few bit patterns so that ties, -0/+0 pairs, infinities, NaN and seed values are
    everywhere."""
    pats = _PER_LANE_PATTERNS[dtype]
    fn = aj.ReduceMax if op == "max" else aj.ReduceMin
    for seed in range(24):
        rng = np.random.default_rng(seed)
        core = aj.Core("ascend950")
        count = int(rng.integers(1, 700))
        use = pats[:int(rng.integers(2, 9))]
        src, dst = core.local_tensor(dtype, count), core.local_tensor(dtype, 16)
        src[:] = use[rng.integers(0, use.size, count)].view(np.float16 if dtype == "half" else np.float32)
        before = core.ub.copy()
        fn(dst, src, src, count, bool(seed % 2))
        ref.reduce_max_min_950(before, op, dtype, dst.addr, src.addr, bool(seed % 2), False, count=count)
        assert np.array_equal(core.ub, before), (seed, count, use)


@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("device", ["atlas-a2", "atlas-inference-aicore", "atlas-training", "atlas-200i-500-a2"])
def test_levels_runs_path_on_ties_zeros_and_specials(device, dtype):
    """The non-950 algorithm on whole rows (count form: each repeat's extreme in one scan, then the winner's lane;
    floats since port67b) against the levels reference, on the patterns of the per-lane test, both ops, with and
    without the index, saturation on and off where the device switches it."""
    pats = _PER_LANE_PATTERNS[dtype]
    if dtype not in aj.get_device(device).reduce_max_min_dtypes:
        pytest.skip(f"ReduceMax of {dtype} is not offered on {device}")
    for seed in range(16):
        rng = np.random.default_rng(seed)
        core = aj.Core(device)
        sat = seed % 4 < 2
        if not set_sat_mode(core, sat):   # a device fixed in the other mode
            sat = not sat
        count = int(rng.integers(1, 700))
        use = pats[:int(rng.integers(2, 9))]
        src, dst = core.local_tensor(dtype, count), core.local_tensor(dtype, 16)
        tmp = core.local_tensor(dtype, max(aj.GetReduceMaxMinTmpSize(device, dtype, count=count, cal_index=True), 16))
        src[:] = use[rng.integers(0, use.size, count)].view(np.float16 if dtype == "half" else np.float32)
        op, cal_index = ("max", "min")[seed % 2], bool(seed % 3)
        before = core.ub.copy()
        (aj.ReduceMax if op == "max" else aj.ReduceMin)(dst, src, tmp, count, cal_index)
        ref.reduce_max_min_levels(before, op, dtype, dst.addr, src.addr, None, None, None, cal_index, sat,
                                  count=count)
        # tmp's bytes are the algorithm's scratch (D54): compared apart from them
        keep = np.ones(before.size, bool)
        keep[tmp.addr:tmp.addr + tmp.nbytes] = False
        assert np.array_equal(core.ub[keep], before[keep]), (seed, count, use)


def test_arity_refusals_name_the_device():
    """Every refusal names the device (SPEC-2 1.8, DESIGN.md), the arity ones of the multi-form APIs included."""
    core = aj.Core("atlas-a2")
    h, d, u = core.local_tensor("half", 256), core.local_tensor("half", 64), core.local_tensor("uint8", 64)
    gm = aj.GlobalTensor(np.zeros(8, np.float16))
    for call in (lambda: aj.ReduceMax(d, h, d, 128, 2), lambda: aj.ReduceSum(d, h, d, 1, 2),
                 lambda: aj.Compare(u, h, h, aj.CMPMODE.LT, 1, 2), lambda: aj.Select(h, u, h, h, 0, 1, 2),
                 lambda: aj.Gather(d, h, core.local_tensor("uint32", 8), 0, 1, 2),
                 lambda: aj.DataCopyPad(gm, h, aj.DataCopyExtParams(1, 2, 0, 0, 0), aj.DataCopyPadExtParams())):
        with pytest.raises(aj.ParameterError, match="on device atlas-a2"):
            call()


def test_audit_integer_and_flag_parameters_are_checked():
    """decisions.md "Integer parameters" (issue 12) on the reductions: the 950 counter-mode count of ReduceMax (D53:
    the low 32 bits of the mask argument) is an integer (a bool, a float or a negative value is refused, naming the
    value given), cal_index is a bool also as a keyword, order is a ReduceOrder member or its int value (1.0
    and aj.ReduceType.MAX were taken as orders), is_set_mask is True/False only (it was read for its truth
    value by the group reductions), reduce_type is never a member of aj.Reg.ReduceType, and
    GetReduceMaxMinTmpSize checks its count / repeat_time like ReduceMax does."""
    core = aj.Core("ascend950")
    src, dst = _half_src(core, [1.0] * 256), core.local_tensor("half", 16)
    before = core.ub.copy()
    core.SetMaskCount()
    for mask, shown in ((True, "True"), (130.0, "130.0"), (-1, "-1")):
        with pytest.raises(aj.ParameterError, match=f"= {shown}"):
            aj.ReduceMax(dst, src, src, mask, 1, 8)
    aj.ReduceMax(dst, src, src, np.uint64(2**32 + 130), 1, 8, True)  # the low 32 bits: 130 elements
    assert u16(dst)[:2].tolist() == [0x3C00, 0]
    core.SetMaskNorm()
    core.ub[:] = before
    for call in (lambda: aj.ReduceMax(dst, src, src, 256, cal_index=1),
                 lambda: aj.ReduceMin(dst, src, src, 128, 2, 8, cal_index="yes"),
                 lambda: aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, reduce_type=aj.Reg.ReduceType.MAX),
                 lambda: aj.ReduceDataBlock(dst, src, 128, 1, 1, 1, 8, reduce_type=aj.Reg.ReduceType.SUM),
                 lambda: aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, reduce_type=SUM, is_set_mask=1),
                 lambda: aj.BlockReduceMax(dst, src, 1, 128, 1, 1, 8, is_set_mask="yes"),
                 lambda: aj.WholeReduceMax(dst, src, 128, 1, 1, 1, 8, 1.0),          # order: a float
                 lambda: aj.WholeReduceMin(dst, src, 128, 1, 1, 1, 8, aj.ReduceType.MAX)):  # another enum's member
        with pytest.raises(aj.ParameterError):
            call()
    assert np.array_equal(core.ub, before)
    for kw in (dict(count=-5), dict(count=0), dict(count=5.0), dict(repeat_time=-1), dict(repeat_time=True),
               dict(count=256, cal_index=1)):
        with pytest.raises(aj.ParameterError):
            aj.GetReduceMaxMinTmpSize("atlas-a2", "half", **kw)
    # the tmp-size helpers answer only for calls the device offers (SPEC D13, SPEC-2 8.3 dtypes)
    for call, error in ((lambda: aj.GetReduceMaxMinTmpSize("atlas-training", "float", count=300),
                         aj.UnsupportedDTypeError),
                        (lambda: aj.GetReduceSumTmpSize("atlas-a2", "int32", count=300), aj.UnsupportedDTypeError),
                        (lambda: aj.GetReduceMaxMinTmpSize("atlas-inference-vectorcore", "half", count=300),
                         aj.UnsupportedDeviceError),
                        (lambda: aj.GetReduceSumTmpSize("atlas-inference-vectorcore", "half", count=300),
                         aj.UnsupportedDeviceError)):
        with pytest.raises(error):
            call()
    # the old name GetReduceMaxMinCount is offered where GetReduceRepeatMaxMinSpr is (SPEC-2 8.4, 0.3)
    assert aj.fidelity("GetReduceMaxMinCount", "atlas-a2") == aj.fidelity("GetReduceRepeatMaxMinSpr", "atlas-a2")
    assert ("GetReduceMaxMinCount", "ascend950") not in aj.FIDELITY


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_audit_reduce_max_dst_and_tmp_in_the_gaps_of_a_strided_src(device):
    """D34 on exact byte sets, as ReduceSum's (decisions.md "Overlap"): dst and tmp may lie in the bytes a strided
    src never reads (here repeat 0's 256 bytes, then a 256-byte gap, then repeat 1); a byte src reads is refused."""
    core = aj.Core(device)
    x = np.full(384, 2.0, np.float16)
    x[128 + 5] = 7.0       # repeat 1 starts at element 256: the gap (elements 128..255) holds 7.0, never read
    x[256 + 3] = 5.0
    src = _half_src(core, x)
    dst, tmp = src[128:144], src[160:256]
    aj.ReduceMax(dst, src, tmp, 128, 2, 16, True)
    assert u16(dst)[:2].tolist() == [0x4500, 256 + 3]
    with pytest.raises(aj.OverlapError, match="src repeat 1"):
        aj.ReduceMax(src[256:272], src, core.local_tensor("half", 64), 128, 2, 16, True)


@pytest.mark.parametrize("api", [aj.ReduceMax, aj.ReduceMin])
def test_reduce_max_min_values_positionally_or_by_keyword(api):
    """SPEC-2 1.1 through _common.split_forms, as ReduceSum (tester R2's sibling): the high-dim values fill in C++
    order from the positional arguments, the rest from keywords; a value given both ways (mask=64 had silently
    become repeat_time, the positional 128 the mask), a count with high-dim values (count=100 had run as the mask
    of a high-dim call) or a missing value is a ParameterError naming the forms, and nothing is written."""
    core = aj.Core("atlas-a2")
    src = _half_src(core, (np.arange(1024) * 5) % 13)
    dst, tmp = core.local_tensor("half", 16), core.local_tensor("half", 64)
    api(dst, src, tmp, 128, 4, 8, True)
    want = u16(dst)[:2].tolist()
    for args, kw in (((128,), dict(repeat_time=4, src_rep_stride=8)), ((128, 4), dict(src_rep_stride=8)),
                     ((), dict(mask=128, repeat_time=4, src_rep_stride=8)), ((128, 4, 8), {})):
        dst[:] = np.zeros(16, np.float16)
        api(dst, src, tmp, *args, **kw, cal_index=True)
        assert u16(dst)[:2].tolist() == want, (args, kw)
    api(dst, src, tmp, 128, 4, src_rep_stride=8)    # no cal_index: the value alone
    assert u16(dst)[0] == want[0]
    dst[:] = np.zeros(16, np.float16)
    api(dst, src, tmp, 300, True)
    want = u16(dst)[:2].tolist()
    dst[:] = np.zeros(16, np.float16)
    api(dst, src, tmp, count=300, cal_index=True)
    assert u16(dst)[:2].tolist() == want
    before = core.ub.copy()
    for args, kw, why in (((128,), dict(mask=64, repeat_time=4), "mask given both"),
                          ((), dict(count=100, repeat_time=2, src_rep_stride=8), "count= together"),
                          ((128,), dict(count=5), "count= together"),
                          ((128, 4), {}, "lacks src_rep_stride"),
                          ((128, 4, 8, 1), {}, "bool cal_index"),
                          ((), {}, "is missing")):
        with pytest.raises(aj.ParameterError, match=why) as info:
            api(dst, src, tmp, *args, **kw)
        assert "on device atlas-a2" in str(info.value) and ("cal_index" in str(info.value)), why
    assert np.array_equal(core.ub, before)


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-training", "ascend950"])
def test_audit_reduce_data_block_footprint_is_the_blocks_written(device):
    """Issue 11's tensor rule with D51: where a fully masked DataBlock is not written (A2/A3/310P/910) only the
    blocks the mask reaches are part of dst's footprint, so one block into a one-element dst is legal (it was
    refused as if all 8 results were written); where they are filled (950, 310B) all 8 are written."""
    core = aj.Core(device)
    src = _half_src(core, np.arange(128) % 7)
    pad = core.local_tensor("half", 16)
    pad[:] = np.full(16, 0x5555, np.uint16).view(np.float16)
    one = pad[:1]
    if core.spec.reduce_block_masked != "keep":
        with pytest.raises(aj.OutOfBoundsError, match="dst"):
            aj.BlockReduceSum(one, src, 1, 16, 1, 1, 8)
        return
    aj.BlockReduceSum(one, src, 1, 16, 1, 1, 8)
    aj.BlockReduceMax(pad[8:], src, 1, [0, 1 << 48], 1, 1, 8)   # lane 112 only: block 7, written at dst + 7
    assert u16(pad).tolist() == [np.float16(sum(np.arange(16) % 7)).view(np.uint16)] + [0x5555] * 14 + \
        [np.float16(112 % 7).view(np.uint16)]
    short = core.local_tensor("half", 7, addr=pad.addr + 16)
    with pytest.raises(aj.OutOfBoundsError, match="dst"):
        aj.BlockReduceMax(short, src, 1, [0, 1 << 48], 1, 1, 8)   # block 7's result lands past the tensor


@pytest.mark.parametrize("saturating", [False, True])
def test_audit_d5_block_sum_with_an_infinity_memory_and_reg(saturating):
    """SPEC D5 / SPEC-2 D36 (X-5): "15 x 1.0 + +-inf" per DataBlock is +-inf in INF/NaN mode and +-65504 in saturation
    mode (the table's +-65344 is not a vector), for the Memory ReduceDataBlock on the A2 and the 950 and for the 950's
    Reg ReduceDataBlock: per-add SAT(RN) in the SPEC 4.1 tree."""
    x = np.ones(128, np.float16)
    x[15::16], x[31] = np.inf, -np.inf   # block 1 holds -inf, every other block +inf
    want = np.array([65504.0 if saturating else np.inf] * 8, np.float16)
    want[1] = -want[1]
    for device in ("atlas-a2", "ascend950"):
        core = aj.Core(device)
        set_sat_mode(core, saturating)
        src, dst = _half_src(core, x), core.local_tensor("half", 16)
        aj.ReduceDataBlock(dst, src, 128, 1, 1, 1, 8, reduce_type=SUM)
        assert u16(dst)[:8].tolist() == want.view(np.uint16).tolist(), device
    reg_src, reg_dst = aj.Reg.RegTensor("half"), aj.Reg.RegTensor("half")
    with core:
        aj.Reg.LoadAlign(reg_src, src)
        aj.Reg.ReduceDataBlock(reg_dst, reg_src, aj.Reg.CreateMask("half"), aj.Reg.ReduceType.SUM)
    assert reg_dst.numpy()[:8].view(np.uint16).tolist() == want.view(np.uint16).tolist()
    assert (reg_dst.numpy()[8:] == 0).all()   # SPEC D3


_IN_PLACE_CALLS = {  # (API, call with dst, src; repeats of 256 bytes, dstRepStride 1, srcBlkStride 1, srcRepStride 8)
    "WholeReduceSum": lambda d, s, n, m: aj.WholeReduceSum(d, s, m, n, 1, 1, 8),
    "WholeReduceMax": lambda d, s, n, m: aj.WholeReduceMax(d, s, m, n, 1, 1, 8),
    "WholeReduceMin": lambda d, s, n, m: aj.WholeReduceMin(d, s, m, n, 1, 1, 8),
    "BlockReduceSum": lambda d, s, n, m: aj.BlockReduceSum(d, s, n, m, 1, 1, 8),
    "BlockReduceMax": lambda d, s, n, m: aj.BlockReduceMax(d, s, n, m, 1, 1, 8),
    "BlockReduceMin": lambda d, s, n, m: aj.BlockReduceMin(d, s, n, m, 1, 1, 8),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("api", sorted(_IN_PLACE_CALLS))
def test_a_repeat_reduction_in_place_equals_the_out_of_place_call(device, api):
    """`WholeReduceMax(x, x, ...)`, `BlockReduceSum(w, w, ...)` (ops-nn DynamicQuant, CrossEntropyLoss): repeat i's
    result starts at repeat i's own first source byte or lands in an earlier repeat's source, and each repeat reads
    its source before writing (decisions.md "Reductions in place"): x ends as a copy of x reduced out of place into
    a third tensor holding x's values would. A result elsewhere inside a source a later repeat reads is refused."""
    call = _IN_PLACE_CALLS[api]
    rng = np.random.default_rng(sum(map(ord, device + api)))
    for dtype in ("half", "float"):
        for repeats, mask in ((1, 128 if dtype == "half" else 64), (37, 100 if dtype == "half" else 50), (130, 64)):
            core = aj.Core(device)
            n = repeats * 256 // (2 if dtype == "half" else 4)
            x, src, out = (core.local_tensor(dtype, n) for _ in range(3))
            values = (rng.standard_normal(n) * 100).astype(np.float16 if dtype == "half" else np.float32)
            for t in (x, src, out):
                t[:] = values
            try:
                call(out, src, repeats, mask)
            except aj.UnsupportedDTypeError:
                continue  # not offered for this dtype on this device (SPEC-2 1.9)
            call(x, x, repeats, mask)
            assert x.numpy().tobytes() == out.numpy().tobytes(), (dtype, repeats)
            if repeats > 1:
                before = core.ub.copy()
                with pytest.raises(aj.OverlapError):
                    call(x[n // 2], x, repeats, mask)  # results inside sources later repeats read
                assert np.array_equal(core.ub, before)


@pytest.mark.parametrize("api", ["ReduceSum", "WholeReduceSum", "BlockReduceMax", "ReduceMax", "ReducePairElem",
                                 "ReduceDataBlock"])
def test_a_910_float_reduction_refusal_says_it_is_a_decision_between_pages(api):
    """port53b: the refusal named no reason, so a port read it as a hardware fact; the devkit's dav_c100 code and
    the older WholeReduceSum page take float (docs/decisions.md "910 float reductions")."""
    core = aj.Core("atlas-training")
    src, dst, tmp = (core.local_tensor("float", 128) for _ in range(3))
    calls = {"ReduceSum": lambda: aj.ReduceSum(dst, src, tmp, 128),
             "WholeReduceSum": lambda: aj.WholeReduceSum(dst, src, 64, 1, 1, 1, 8),
             "BlockReduceMax": lambda: aj.BlockReduceMax(dst, src, 1, 64, 1, 1, 8),
             "ReduceMax": lambda: aj.ReduceMax(dst, src, tmp, 128),
             "ReducePairElem": lambda: aj.ReducePairElem(dst, src, 64, 1, 1, 1, 8),
             "ReduceDataBlock": lambda: aj.ReduceDataBlock(dst, src, 64, 1, 1, 1, 8, reduce_type=aj.ReduceType.SUM)}
    with pytest.raises(aj.UnsupportedDTypeError, match=r"older WholeReduceSum page .* a hardware question") as raised:
        calls[api]()
    assert "SPEC-2 8, D50, X-1" in str(raised.value) and "legal: half" in str(raised.value)
    a2 = aj.Core("atlas-a2")
    with pytest.raises(aj.UnsupportedDTypeError) as raised:   # another refusal there names no such reason
        aj.ReduceSum(*(a2.local_tensor("int32", 128) for _ in range(3)), 128)
    assert "WholeReduceSum page" not in str(raised.value)
