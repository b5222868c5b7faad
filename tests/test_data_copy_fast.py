"""DataCopy's memoised validation and compiled copy, the queue fast paths and the closed-form overlap test (issue
21): a proven call shape never lets a different call through unchecked, and the fast paths give the same bytes as
the plain numpy copies they replace."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.api._common import Operand, _first_touch_by_lane_byte, first_touch


def _ub_and_gm(core, n=256, seed=0):
    rng = np.random.default_rng(seed)
    gm = aj.GlobalTensor(rng.integers(0, 2**16, n, dtype=np.uint16).view(np.float16))
    return core.local_tensor("half", n), gm


def test_gm_sub_tensors_copy_the_bytes_numpy_copies():
    core = aj.Core("atlas-a2")
    ub, gm = _ub_and_gm(core)
    for start in (0, 16, 48, 100, 240):  # the same call shape at shrinking GM sizes (the memo keys no GM size)
        aj.DataCopy(ub[:16], gm[start], 16)
        assert ub.numpy()[:16].view(np.uint16).tolist() == gm.array[start:start + 16].view(np.uint16).tolist()
    ub[16:] = np.arange(240, dtype=np.float16)
    core.PipeBarrier(aj.PIPE_ALL)                  # the copy-out reads what the copies in wrote (sanitizer-clean)
    out = aj.GlobalTensor(np.zeros(256, np.float16))
    aj.DataCopy(out[32:], ub, 64)
    assert out.array[32:96].tobytes() == ub.numpy()[:64].tobytes()
    assert not out.array[:32].any() and not out.array[96:].any()


def test_a_proven_shape_still_refuses_a_gm_tensor_too_short():
    core = aj.Core("atlas-a2")
    ub, gm = _ub_and_gm(core)
    aj.DataCopy(ub, gm[0], 32)                     # proven: 64 bytes from a 512-byte GM tensor
    before = ub.numpy().tobytes()
    with pytest.raises(aj.OutOfBoundsError, match="the copy needs 64"):
        aj.DataCopy(ub, gm[240], 32)               # same shape, 16 elements of GM left
    with pytest.raises(aj.OutOfBoundsError):
        aj.DataCopy(gm[240], ub, 32)
    assert ub.numpy().tobytes() == before


def test_memo_keys_types_and_freed_tensors():
    core = aj.Core("atlas-a2")
    ub, gm = _ub_and_gm(core)
    aj.DataCopy(ub, gm, 32)
    with pytest.raises(aj.ParameterError, match="not an integer"):
        aj.DataCopy(ub, gm, 32.0)                  # equal value, other type: validated, refused
    aj.DataCopy(ub, gm, np.int64(32))              # numpy integers are accepted
    pipe = aj.TPipe(core)
    q = aj.TQue(aj.TPosition.VECIN, 2)
    pipe.InitBuffer(q, 2, 64)
    t = q.AllocTensor("half")
    aj.DataCopy(t, gm, 32)
    q.FreeTensor(t)
    with pytest.raises(aj.StateError, match="freed"):
        aj.DataCopy(t, gm, 32)                     # the memo never skips the liveness check


def test_params_form_memo_follows_the_fields():
    core = aj.Core("atlas-a2")
    ub, _ = _ub_and_gm(core)
    ub[:] = np.arange(256, dtype=np.float16)
    out = aj.GlobalTensor(np.zeros(256, np.float16))
    params = aj.DataCopyParams(2, 1, 1, 1)
    aj.DataCopy(out, ub, params)
    params.blockCount = 3                          # DataCopyParams is mutable: the memo keys its fields
    aj.DataCopy(out, ub, params)
    assert out.array[64:80].tolist() == list(range(64, 80))
    params.blockLen = 0
    with pytest.raises(aj.ParameterError, match="blockLen"):
        aj.DataCopy(out, ub, params)


def test_read_only_gm():
    core = aj.Core("atlas-a2")
    ub, _ = _ub_and_gm(core)
    src = np.arange(256, dtype=np.float16)
    src.flags.writeable = False
    aj.DataCopy(ub, aj.GlobalTensor(src), 256)     # a read-only source copies
    assert ub.numpy().tolist() == src.tolist()
    core.PipeBarrier(aj.PIPE_ALL)
    with pytest.raises(aj.ParameterError, match="read-only"):
        aj.DataCopy(aj.GlobalTensor(src), ub, 256)


def test_ub_to_ub_overlapping_copy_is_a_memmove():
    core = aj.Core("atlas-a2")
    t = core.local_tensor("half", 64)
    t[:] = np.arange(64, dtype=np.float16)
    aj.DataCopy(t[16:], t, 32)
    assert t.numpy()[16:48].tolist() == list(range(32))


def test_queue_fast_paths_keep_the_lease_rules():
    core = aj.Core("atlas-a2")
    pipe = aj.TPipe(core)
    q, other = aj.TQue(aj.TPosition.VECIN, 2), aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(q, 2, 64)
    pipe.InitBuffer(other, 1, 64)
    t = q.AllocTensor("half")
    assert (t.size, t.dtype.name) == (32, "half")
    q.EnQue(t)
    assert q.DeQue("half") is t                    # same dtype: the tensor itself
    f = t.ReinterpretCast("float")
    assert (f.addr, f.size) == (t.addr, 16)
    with pytest.raises(aj.StateError, match="not allocated by this queue"):
        other.FreeTensor(t)
    q.FreeTensor(t)
    with pytest.raises(aj.StateError, match="double free"):
        q.FreeTensor(t)
    with pytest.raises(aj.StateError):
        q.EnQue(f)                                 # freed through its alias too


def _operand(size, blk, lo, hi, repeat, rep, last, base):
    return Operand("src", base, size, lo, hi, repeat, blk, rep, last)


@settings(max_examples=300, deadline=None)
@given(size=st.sampled_from([2, 4]), blk=st.integers(0, 3), full=st.booleans(), lo=st.integers(1, 2**64 - 1),
       repeat=st.integers(1, 40), rep=st.integers(0, 12), last=st.integers(-1, 128), base=st.integers(0, 4096),
       a=st.integers(0, 20000), w=st.integers(1, 3000))
def test_first_touch_closed_form_matches_the_lane_walk(size, blk, full, lo, repeat, rep, last, base, a, w):
    lanes = 256 // size
    lo_mask, hi_mask = ((2**64 - 1, 2**64 - 1 if lanes == 128 else 0) if full else (lo, 0))
    op = _operand(size, blk, lo_mask, hi_mask, repeat, rep, min(last, lanes), base)
    assert first_touch(op, a, a + w) == _first_touch_by_lane_byte(op, a, a + w, rep * 32)


def test_data_copy_pad_proven_shape_checks_each_gm_tensor():
    """DataCopyPad's memo leaves GM sizes out too: the same shape on shrinking GM sub-tensors copies the right bytes
    (multi-row calls go through the compiled kernel), and a GM tensor too short for it is refused untouched."""
    core = aj.Core("atlas-a2")
    ub, gm = _ub_and_gm(core)
    params, pad = aj.DataCopyExtParams(2, 40, 0, 0, 0), aj.DataCopyPadExtParams(True, 0, 4, 0)
    for start in (0, 50, 200):  # two rows of 20 halves (+4 zeros, then to 32 B blocks: 32 halves apart) from `start`
        aj.DataCopyPad(ub, gm[start], params, pad)
        rows = ub.numpy()[:64].reshape(2, 32)
        want = gm.array[start:start + 40].reshape(2, 20)
        assert rows[:, :20].view(np.uint16).tolist() == want.view(np.uint16).tolist() and not rows[:, 20:24].any()
    before = core.ub.copy()
    with pytest.raises(aj.OutOfBoundsError, match="src"):
        aj.DataCopyPad(ub, gm[230], params, pad)    # 26 halves left, the shape needs 40
    assert np.array_equal(core.ub, before)
    core.PipeBarrier(aj.PIPE_ALL)
    out = aj.GlobalTensor(np.zeros(256, np.float16))
    aj.DataCopyPad(out[100], ub, params)
    assert out.array[100:120].tobytes() == ub.numpy()[:20].tobytes()
    assert out.array[120:140].tobytes() == ub.numpy()[32:52].tobytes()
    with pytest.raises(aj.OutOfBoundsError, match="dst"):
        aj.DataCopyPad(out[230], ub, params)


@settings(max_examples=150, deadline=None)
@given(count=st.integers(1, 6), length=st.integers(1, 3), src_gap=st.integers(0, 2), dst_gap=st.integers(0, 2),
       offset=st.integers(0, 64), to_gm=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_params_copies_move_the_bytes_of_their_runs(count, length, src_gap, dst_gap, offset, to_gm, seed):
    """DataCopyParams copies between the UB and a GM sub-tensor, gapless runs merged into one copy or not: exactly
    the bytes of the runs the params describe move (blockLen DataBlocks every blockLen + stride DataBlocks)."""
    core = aj.Core("atlas-a2")
    rng = np.random.default_rng(seed)
    gm_array = rng.integers(0, 256, 4096, dtype=np.uint8)
    ub = core.local_tensor("uint8", 1024)
    ub[:] = rng.integers(0, 256, 1024, dtype=np.uint8)
    expect_gm, expect_ub = gm_array.copy(), ub.numpy()
    gm = aj.GlobalTensor(gm_array)[offset][offset:]   # a sub-tensor of a sub-tensor: element 2 * offset
    for k in range(count):
        s, d = k * (length + src_gap) * 32, k * (length + dst_gap) * 32
        if to_gm:
            expect_gm[2 * offset + d:2 * offset + d + 32 * length] = expect_ub[s:s + 32 * length]
        else:
            expect_ub[d:d + 32 * length] = expect_gm[2 * offset + s:2 * offset + s + 32 * length]
    params = aj.DataCopyParams(count, length, src_gap, dst_gap)
    if to_gm:
        aj.DataCopy(gm, ub, params)
    else:
        aj.DataCopy(ub, gm, params)
    assert gm_array.tobytes() == expect_gm.tobytes() and ub.numpy().tobytes() == expect_ub.tobytes()
    assert gm.array.tobytes() == gm_array[2 * offset:].tobytes()  # the sub-tensor's view is its window


def test_gm_sub_tensors_are_windows_on_their_buffer():
    array = np.arange(64, dtype=np.float16)
    g = aj.GlobalTensor(array)
    sub = g[8][4:20]
    assert (sub.GetSize(), len(sub)) == (16, 16) and sub.array.tolist() == list(range(12, 28))
    assert np.shares_memory(sub.array, array) and sub.GetValue(0) == 12
    sub.SetValue(1, 99)
    assert array[13] == 99 and g[63].GetSize() == 1 and g[60:64].GetSize() == 4 and g[64:].GetSize() == 0
    for bad in (64, slice(60, 100), slice(70, None), slice(-4, None), slice(10, 5)):   # decisions.md "Indexing"
        with pytest.raises(aj.OutOfBoundsError):
            g[bad]
    with pytest.raises(aj.StateError):
        aj.GlobalTensor().GetSize()
    g.array.flags.writeable = False                # the buffer made read-only after the tensor: copies out refused
    core = aj.Core("atlas-a2")
    with pytest.raises(aj.ParameterError, match="read-only"):
        aj.DataCopy(g[16], core.local_tensor("half", 16), 16)
    g.array = np.zeros(32, np.float16)             # a new buffer: every view follows it
    assert g.GetSize() == 32 and g[16].GetSize() == 16 and not g.array.any()


def test_data_copy_pad_memo_tells_apart_equal_values_of_other_types():
    """A proven DataCopyPad shape never lets through parameters that compare equal but validate differently: a bool
    or float field where an int was proven (struct or tuple form), paddingValue -0.0 where 0.0 was proven (other
    bits); an int mode is its PaddingMode member (decisions.md "Integer parameters") and an unknown one is refused;
    lists (unhashable) are validated every call."""
    core = aj.Core("atlas-a2")
    ub, gm = _ub_and_gm(core)
    aj.DataCopyPad(ub, gm, aj.DataCopyExtParams(1, 32, 0, 0, 0), aj.DataCopyPadExtParams(True, 0, 4, 0.0))
    for bad in (aj.DataCopyExtParams(True, 32, 0, 0, 0), aj.DataCopyExtParams(1, 32.0, 0, 0, 0), (True, 32, 0, 0),
                [True, 32, 0, 0, 0]):
        aj.DataCopyPad(ub, gm, (1, 32, 0, 0), aj.DataCopyPadExtParams(True, 0, 4, 0.0))  # the tuple form, proven
        with pytest.raises(aj.AscendJitError):
            aj.DataCopyPad(ub, gm, bad, aj.DataCopyPadExtParams(True, 0, 4, 0.0))
    with pytest.raises(aj.AscendJitError):
        aj.DataCopyPad(ub, gm, aj.DataCopyExtParams(1, 32, 0, 0, 0), aj.DataCopyPadExtParams(1, 0, 4, 0.0))
    aj.DataCopyPad(ub, gm, aj.DataCopyExtParams(1, 32, 0, 0, 0), aj.DataCopyPadExtParams(True, 0, 4, 0.0), mode=0)
    for mode in (2, True, 0.0, "Normal"):
        with pytest.raises(aj.ParameterError, match="mode"):
            aj.DataCopyPad(ub, gm, aj.DataCopyExtParams(1, 32, 0, 0, 0), aj.DataCopyPadExtParams(True, 0, 4, 0.0),
                           mode=mode)
    aj.DataCopyPad(ub, gm, aj.DataCopyExtParams(1, 24, 0, 0, 0), aj.DataCopyPadExtParams(True, 0, 4, 0.0))
    aj.DataCopyPad(ub, gm, aj.DataCopyExtParams(1, 24, 0, 0, 0), aj.DataCopyPadExtParams(True, 0, 4, -0.0))
    assert ub.numpy()[12:16].view(np.uint16).tolist() == [0x8000] * 4  # the -0.0 pads, not the proven 0.0's
    aj.DataCopyPad(ub, gm, [1, 32, 0, 0, 0], aj.DataCopyPadExtParams(True, 0, 4, 0.0))
    assert aj.DataCopyExtParams(1, 32) == aj.DataCopyExtParams(1, 32) != aj.DataCopyExtParams(True, 32)
    assert hash(aj.DataCopyPadExtParams(True, 0, 4, 0.5)) == hash(aj.DataCopyPadExtParams(True, 0, 4, 0.5))


@settings(max_examples=100, deadline=None)
@given(dtype=st.sampled_from(["half", "float", "int16", "int32", "uint8", "int64"]), start=st.integers(0, 40),
       stop=st.integers(0, 48), index=st.integers(0, 47), as_dtype=st.sampled_from(["half", "float", "uint8"]),
       seed=st.integers(0, 2**32 - 1))
def test_sub_tensors_and_scalar_access_match_numpy(dtype, start, stop, index, as_dtype, seed):
    """Slices t[a:b], reinterpretations and GetValue / SetValue (the fast paths through the core's typed UB views)
    address the same elements as numpy views of the UB bytes; out-of-range accesses are refused."""
    core = aj.Core("atlas-a2")
    t = core.local_tensor(dtype, 48)
    t[:] = np.random.default_rng(seed).integers(0, 100, 48).astype(t.dtype.np_dtype)
    view = core.ub[t.addr:t.addr + t.nbytes].view(t.dtype.np_dtype)
    if start <= stop:
        sub = t[start:stop]
        assert (sub.addr, sub.size) == (t.addr + start * t.dtype.size, stop - start)
        if index < sub.size:
            assert sub.GetValue(index) == view[start + index]
            sub.SetValue(index, 7)
            assert view[start + index] == 7
        else:
            with pytest.raises(aj.OutOfBoundsError):
                sub.GetValue(index)
    r = t[1:].ReinterpretCast(as_dtype)  # an odd byte address for wider types: the sliced-view path
    bytes_view = core.ub[r.addr:r.addr + r.nbytes].view(r.dtype.np_dtype)
    if index < r.size:
        assert r.GetValue(index).tobytes() == bytes_view[index].tobytes()


def test_read_only_gm_refuses_scalar_and_host_writes():
    """GlobalTensor.SetValue and the host copy `g[a:b] = x` into a read-only GM buffer are ParameterErrors like
    DataCopy's (docs/decisions.md, "DataCopy ... A read-only GM destination is a ParameterError"), not numpy's
    ValueError; the buffer is left unchanged and reads still work."""
    array = np.arange(64, dtype=np.float32)
    array.flags.writeable = False
    g = aj.GlobalTensor(array)
    with pytest.raises(aj.ParameterError, match="GlobalTensor.SetValue.*read-only"):
        g.SetValue(3, np.float32(7))
    with pytest.raises(aj.ParameterError, match="read-only"):
        g[8].SetValue(0, 7.0)
    with pytest.raises(aj.ParameterError, match=r"GlobalTensor\[\]=.*read-only"):
        g[0:4] = np.ones(4, np.float32)
    assert array.tolist() == list(range(64)) and g.GetValue(3) == 3
