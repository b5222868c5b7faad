"""Issue 21: the group reductions' (ReduceRepeat / WholeReduce* / BlockReduce*) memo of validated call shapes
(api/reductions.py _group_key): every part of the key changed on its own is validated again (refused, or run with
its own result), and a remembered call still leaves its mask words and SPR (D22, D55) as the full path does."""
import numpy as np
import pytest

import ascend_jit as aj

MAX, SUM = aj.ReduceType.MAX, aj.ReduceType.SUM
VALUE = aj.ReduceOrder.ORDER_ONLY_VALUE


def _refuses(core, call, error, *words):
    core.SetVectorMask(0, 0x1234)
    before = core.ub.copy()
    with pytest.raises(error) as info:
        call()
    assert np.array_equal(core.ub, before) and (core.mask_high, core.mask_low) == (0, 0x1234)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def _setup(core):
    src, dst = core.local_tensor("float", 128), core.local_tensor("float", 16)
    src[:] = np.arange(128, dtype=np.float32)
    return src, dst


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync", reason="writes past a one-element dst through the "
                             "bounds=\"ub\" escape hatch, which the memory check reports")
def test_group_call_memo_keys_hold_everything_validation_reads():
    core = aj.Core("atlas-a2")
    src, dst = _setup(core)
    for _ in range(3):  # the first call validates, the others are remembered
        dst[:] = 0
        core.SetVectorMask(0, 0x1234)
        aj.WholeReduceSum(dst, src, 64, 2, 1, 1, 8)
        assert list(dst.numpy()[:2]) == [sum(range(64)), sum(range(64, 128))]
        assert (core.mask_high, core.mask_low) == (0, 2**64 - 1)     # D22: the call's mask in the register
    # exact types: equal values of other types are validated again (and refused)
    _refuses(core, lambda: aj.WholeReduceSum(dst, src, 64, True, 1, 1, 8), aj.ParameterError, "repeat_time")
    _refuses(core, lambda: aj.WholeReduceSum(dst, src, 64, 2, 1.0, 1, 8), aj.ParameterError, "dst_rep_stride")
    _refuses(core, lambda: aj.WholeReduceSum(dst, src, 64.0, 2, 1, 1, 8), aj.ParameterError, "mask")
    # each fact: repeat, strides, mask, tensor sizes and addresses, dtype, the API and reduce type, device, bounds
    _refuses(core, lambda: aj.WholeReduceSum(dst, src, 64, 3, 1, 1, 8), aj.OutOfBoundsError, "src")
    _refuses(core, lambda: aj.WholeReduceSum(dst, src, 64, 2, 1, 1, 16), aj.OutOfBoundsError, "src")
    _refuses(core, lambda: aj.WholeReduceSum(dst, src[0:64], 64, 2, 1, 1, 8), aj.OutOfBoundsError, "src")
    _refuses(core, lambda: aj.WholeReduceSum(dst[0:1], src, 64, 2, 1, 1, 8), aj.OutOfBoundsError, "dst")
    _refuses(core, lambda: aj.WholeReduceSum(dst, src.ReinterpretCast("int32"), 64, 2, 1, 1, 8),
             aj.UnsupportedDTypeError)
    dst[:] = 0
    aj.WholeReduceSum(dst, src, 32, 2, 1, 1, 8)                         # another mask: its own lanes
    assert list(dst.numpy()[:2]) == [sum(range(32)), sum(range(64, 96))]
    aj.WholeReduceSum(dst, src[64], 64, 1, 1, 1, 8)                     # another source address
    assert dst.numpy()[0] == sum(range(64, 128))
    aj.WholeReduceMax(dst, src, 64, 2, 1, 1, 8, VALUE)                  # another API, same arguments
    assert list(dst.numpy()[:2]) == [63, 127]
    aj.ReduceRepeat(dst, src, 64, 2, 1, 1, 8, VALUE, reduce_type=SUM)
    aj.ReduceRepeat(dst, src, 64, 2, 1, 1, 8, VALUE, reduce_type=MAX)   # another reduce type, same arguments
    assert list(dst.numpy()[:2]) == [63, 127]
    aj.WholeReduceMax(dst, src, 64, 2, 1, 1, 8, aj.ReduceOrder.ORDER_VALUE_INDEX)   # another order: value, index
    assert dst.numpy()[0] == 63 and dst.numpy()[1:2].view(np.uint32)[0] == 63
    aj.BlockReduceSum(dst, src, 2, 64, 1, 1, 8)                         # the other family: 8 sums a repeat
    assert list(dst.numpy()[:8]) == [sum(range(8 * k, 8 * k + 8)) for k in range(8)]
    with core:                                                          # counter mode: 64 elements in all
        aj.SetMaskCount()
        dst[:] = 0
        aj.WholeReduceSum(dst, src, 64, 2, 1, 1, 8)
        aj.SetMaskNorm()
    assert list(dst.numpy()[:2]) == [sum(range(64)), 0]
    loose = aj.Core("atlas-a2", bounds="ub")                            # the UB-only rule admits a short tensor
    ls, ld = _setup(loose)
    aj.WholeReduceSum(ld[0:1], ls, 64, 2, 1, 1, 8)
    _refuses(core, lambda: aj.WholeReduceSum(dst[0:1], src, 64, 2, 1, 1, 8), aj.OutOfBoundsError, "dst")
    other = aj.Core("atlas-training")                                   # the same facts on a device without float
    os_, od = (other.local_tensor("float", n, addr=t.addr) for n, t in ((128, src), (16, dst)))
    _refuses(other, lambda: aj.WholeReduceSum(od, os_, 64, 2, 1, 1, 8), aj.UnsupportedDTypeError)


def test_remembered_calls_keep_spr_sanitizer_and_liveness():
    core = aj.Core("atlas-a2")
    src, dst = _setup(core)
    with core:
        for k in (5, 9):   # the second call is remembered: the SPR holds its own result
            src[:] = np.where(np.arange(128) == 64 + k, 1000, np.arange(128)).astype(np.float32)
            aj.WholeReduceMax(dst, src, 64, 2, 1, 1, 8, VALUE)
            aj.PipeBarrier(aj.PIPE_ALL)
            value, index = aj.GetReduceRepeatMaxMinSpr("float")
            assert value == 1000 and index.view(np.uint32) == 64 + k
        aj.WholeReduceMax(dst, src, 64, 2, 1, 1, 0, VALUE)      # not contiguous: the SPR refuses (D55)
        aj.WholeReduceMax(dst, src, 64, 2, 1, 1, 0, VALUE)
        aj.PipeBarrier(aj.PIPE_ALL)
        with pytest.raises(aj.StateError, match="contiguous"):
            aj.GetReduceRepeatMaxMinSpr("float")
    with aj.Core("atlas-a2", sanitize="report") as checked:      # the same facts on a sanitizing core
        cs = checked.local_tensor("float", 128, addr=src.addr)
        cd = checked.local_tensor("float", 16, addr=dst.addr)
        aj.WholeReduceMax(cd, cs, 64, 2, 1, 1, 8, VALUE)         # src never written: the init check reports it
    assert any("WholeReduceMax" in str(r) for r in checked.sanitizer.reports)
    pipe, q = aj.TPipe(core), aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(q, 1, 64)
    t = q.AllocTensor("float")
    aj.WholeReduceSum(t, src, 64, 2, 1, 1, 8)
    q.FreeTensor(t)
    with pytest.raises(aj.StateError, match="freed"):
        aj.WholeReduceSum(t, src, 64, 2, 1, 1, 8)


@pytest.mark.ascend_sanitize(checks="", reason="checks the fast-path memo of remembered calls, which a sanitizing core "
                                               "bypasses (it takes the full path)")
def test_block_family_calls_are_remembered_and_keyed_like_repeat_calls():
    """ReduceDataBlock and its old names pass no order (None): their calls are remembered too (5.3 -> 1.4 us a
    call, BENCHMARKS.md "Session 38"), and each part of the key changed on its own is validated again."""
    from ascend_jit.api import reductions
    core = aj.Core("atlas-a2")
    src, dst = _setup(core)
    blocks = [sum(range(8 * k, 8 * k + 8)) for k in range(16)]
    for _ in range(3):
        dst[:] = 0
        core.SetVectorMask(0, 0x1234)
        aj.BlockReduceSum(dst, src, 2, 64, 1, 1, 8)
        assert list(dst.numpy()) == blocks
        assert (core.mask_high, core.mask_low) == (0, 2**64 - 1)     # D22: the call's mask in the register
    assert any(key[0] == "BlockReduceSum" and key[-1] is None for key in reductions._GROUP_CALLS)
    _refuses(core, lambda: aj.BlockReduceSum(dst, src, 3, 64, 1, 1, 8), aj.OutOfBoundsError, "src")
    _refuses(core, lambda: aj.BlockReduceSum(dst, src, True, 64, 1, 1, 8), aj.ParameterError, "repeat_time")
    _refuses(core, lambda: aj.BlockReduceSum(dst[0:8], src, 2, 64, 1, 1, 8), aj.OutOfBoundsError, "dst")
    _refuses(core, lambda: aj.ReduceDataBlock(dst, src, 64, 2, 1, 1, 8, reduce_type=7), aj.ParameterError,
             "reduce_type")
    aj.BlockReduceMax(dst, src, 2, 64, 1, 1, 8)                          # another API, same arguments
    assert list(dst.numpy()) == [8 * k + 7 for k in range(16)]
    aj.ReduceDataBlock(dst, src, 64, 2, 1, 1, 8, reduce_type=aj.ReduceType.MIN)
    assert list(dst.numpy()) == [8 * k for k in range(16)]
    dst[:] = -1
    aj.BlockReduceSum(dst, src, 2, 32, 1, 1, 8)                          # another mask: its own lanes
    assert list(dst.numpy()) == blocks[:4] + [-1] * 4 + blocks[8:12] + [-1] * 4   # D51: masked blocks kept on A2


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
@pytest.mark.ascend_sanitize(checks="", reason="checks the fast-path memo of remembered calls, which a sanitizing core "
                                               "bypasses (it takes the full path)")
def test_reduce_max_min_count_calls_are_remembered_with_their_effects(device):
    """ReduceMax/ReduceMin's count form (api/reduce_max_min.py _count_key): a remembered call reduces its own data,
    writes the index when cal_index is given (keyword or trailing bool), leaves the mask register and the SPR as
    the full path does (D31, D55); each part of the key changed on its own is validated again."""
    from ascend_jit.api import reduce_max_min
    rng = np.random.default_rng(38)
    core = aj.Core(device)
    src, dst, tmp = core.local_tensor("half", 256), core.local_tensor("half", 16), core.local_tensor("half", 512)
    with core:
        for call, want_index in ((lambda: aj.ReduceMax(dst, src, tmp, 200), False),
                                 (lambda: aj.ReduceMax(dst, src, tmp, 200, True), True),
                                 (lambda: aj.ReduceMax(dst, src, tmp, 200, cal_index=True), True)):
            for _ in range(3):   # the first call validates, the others are remembered
                x = rng.standard_normal(256).astype(np.float16)
                src[:] = x
                core.SetVectorMask(0, 0x1234)
                call()
                best = int(np.argmax(x[:200]))
                assert dst.numpy()[0] == x[best]
                if want_index:
                    assert dst.numpy()[1:2].view(np.uint16)[0] == best
                assert core.mask_defined == (device == "ascend950")   # D31: undefined off the 950
                if device == "atlas-a2":                              # D55: the SPR holds this call's value
                    aj.PipeBarrier(aj.PIPE_ALL)
                    assert aj.GetReduceRepeatMaxMinSpr("half")[0] == x[best]
        assert any(key[4] == 200 for key in reduce_max_min._COUNT_CALLS)   # (device, bounds, op, cal_index, count, ...)
        aj.ReduceMin(dst, src, tmp, 200)                                  # another op, same arguments
        assert dst.numpy()[0] == src.numpy()[:200].min()
    before = core.ub.copy()
    for call, error in ((lambda: aj.ReduceMax(dst, src, tmp, 300), aj.OutOfBoundsError),        # past src
                        (lambda: aj.ReduceMax(dst[0:1], src, tmp, 200, True), aj.OutOfBoundsError),  # no index
                        (lambda: aj.ReduceMax(dst, src, tmp, 200, 1), aj.ParameterError),       # cal_index 1
                        (lambda: aj.ReduceMax(dst, src, tmp, True), aj.ParameterError)):        # an exact int
        with pytest.raises(error):
            call()
        assert np.array_equal(core.ub, before)
