"""Core state, tensors, the allocator, TPipe/TQue/TBuf misuse, DataCopy rules, threads."""
import re
import threading

import numpy as np
import pytest

import ascend_jit as aj


def test_set_vector_mask_forms():
    core = aj.Core("atlas-a2")
    core.SetVectorMask(100)
    assert (core.mask_high, core.mask_low) == ((1 << 36) - 1, 2**64 - 1)
    core.SetVectorMask(64)
    assert (core.mask_high, core.mask_low) == (0, 2**64 - 1)
    core.SetVectorMask(5, 9)
    assert (core.mask_high, core.mask_low) == (5, 9)
    core.SetMaskCount()
    core.SetVectorMask(300)
    assert core.counter_mode and (core.mask_high, core.mask_low) == (0, 300)
    core.SetMaskNorm()
    core.ResetMask()
    assert (core.mask_high, core.mask_low) == (2**64 - 1, 2**64 - 1)
    with pytest.raises(aj.ParameterError):
        core.SetVectorMask(-1)


def test_module_level_state_calls_need_a_current_core():
    with pytest.raises(aj.StateError, match="current core"):
        aj.SetMaskCount()
    core = aj.Core("a2")
    with core:
        aj.SetMaskCount()
        aj.SetVectorMask(7)
    assert core.counter_mode and core.mask_low == 7


def test_cores_in_threads_do_not_share_state():
    errors = []

    def worker(i):
        core = aj.Core("a2")
        with core:
            for k in range(200):
                aj.SetVectorMask(i, k)
                if aj.current_core() is not core or core.mask_low != k or core.mask_high != i:
                    errors.append(i)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_local_tensor_views_and_host_copies():
    core = aj.Core("a2")
    t = core.local_tensor("half", 64)
    assert t.GetPhyAddr() % 32 == 0 and t.GetSize() == 64
    t[:] = np.arange(64)
    sub = t[8:16]
    assert sub.GetSize() == 8 and sub.GetPhyAddr() == t.GetPhyAddr() + 16
    assert sub.numpy().tolist() == list(range(8, 16))
    t.SetValue(3, 42)
    assert t.GetValue(3) == 42 and t[3].GetValue(0) == 42 and t(3) == 42
    with pytest.raises(aj.OutOfBoundsError):
        t.GetValue(64)
    with pytest.raises(aj.ParameterError):
        t[:] = np.zeros(5)
    with pytest.raises(aj.OutOfBoundsError):
        core.local_tensor("half", 10, addr=core.spec.ub_bytes - 4)


def test_allocator_runs_out_and_frees():
    core = aj.Core("a2")
    big = core.local_tensor("uint8", core.spec.ub_bytes - 64)
    with pytest.raises(aj.OutOfBoundsError, match="free"):
        core.local_tensor("half", 100)
    core.free(big.addr)
    core.local_tensor("half", 100)
    with pytest.raises(aj.StateError, match="double free"):
        core.free(big.addr + 32 * 1000)


def test_queue_lifecycle_and_misuse():
    core = aj.Core("a2")
    with core:
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 2, 256)
        a = q.AllocTensor("half")
        b = q.AllocTensor("half")
        assert a.GetSize() == 128 and a.addr != b.addr
        with pytest.raises(aj.StateError, match="in use"):
            q.AllocTensor("half")
        assert q.VacantInQue() and not q.HasTensorInQue()
        q.EnQue(a)
        assert not q.VacantInQue() and q.HasTensorInQue()
        with pytest.raises(aj.StateError, match="full"):
            q.EnQue(b)
        assert q.DeQue("half").addr == a.addr
        with pytest.raises(aj.StateError, match="empty"):
            q.DeQue("half")
        q.FreeTensor(a)
        with pytest.raises(aj.StateError, match="double free"):
            q.FreeTensor(a)
        with pytest.raises(aj.StateError, match="freed"):
            aj.Add(b, a, b, 16)
        with pytest.raises(aj.StateError, match="freed"):
            a.GetValue(0)
        other = aj.TQue(aj.TPosition.VECOUT, 1)
        pipe.InitBuffer(other, 1, 64)
        with pytest.raises(aj.StateError, match="not allocated by this queue"):
            other.FreeTensor(b)
        with pytest.raises(aj.StateError, match="already initialised"):
            pipe.InitBuffer(q, 1, 64)
        buf = aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(buf, 128)
        assert buf.Get("float").GetSize() == 32 and buf.Get("half", 10).GetSize() == 10
        with pytest.raises(aj.OutOfBoundsError):
            buf.Get("half", 65)


def test_queue_hands_out_its_buffers_round_robin():
    """The devkit's AllocBuffer (impl/basic_api/kernel_tquebind_impl.h) starts at bufCursor and moves it on at every
    look, so a double-buffered queue alternates its buffers although each tensor is freed before the next
    AllocTensor (ports of ops-nn AddRmsNorm read a tensor after FreeTensor, relying on that); InitBuffer zeroes the
    cursor; a refused AllocTensor leaves it (docs/decisions.md "TQue buffer order")."""
    with aj.Core("a2"):
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 2)
        pipe.InitBuffer(q, 3, 256)
        addrs = []
        for _ in range(4):
            t = q.AllocTensor("half")
            addrs.append(t.addr)
            q.FreeTensor(t)
        assert addrs == [addrs[0], addrs[0] + 256, addrs[0] + 512, addrs[0]]
        a, b, c = (q.AllocTensor("half") for _ in range(3))      # buffers 1, 2, 0; the cursor back at 1
        assert [t.addr for t in (a, b, c)] == [addrs[0] + 256, addrs[0] + 512, addrs[0]]
        with pytest.raises(aj.StateError, match="in use"):
            q.AllocTensor("half")
        q.FreeTensor(c)
        q.FreeTensor(b)
        assert q.AllocTensor("half").addr == addrs[0] + 512      # from the cursor (1, busy) on, not the first free


def test_depth_zero_queue_dequeues_the_named_tensor():
    """`TQue<VECIN, 0>` (ops-math CastV3's queues): the devkit's depth-0 queue has no capacity bound and its
    in-place `DeQue<T>(LocalTensor<T>& t)` waits for that tensor's own EnQue event, in any order; the returning
    DeQue, VacantInQue and HasTensorInQue are refused there, the in-place DeQue elsewhere, as the devkit's
    static_asserts refuse them (impl/basic_api/kernel_tquebind_impl.h; docs/decisions.md "Depth-0 queues")."""
    with aj.Core("a2"):
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 0)
        pipe.InitBuffer(q, 2, 64)
        a, b = q.AllocTensor("half"), q.AllocTensor("half")
        a[:], b[:] = np.ones(32, np.float16), np.full(32, 2, np.float16)
        q.EnQue(a)
        q.EnQue(b)                                    # no depth bound
        assert q.DeQue(b) is b and q.DeQue("half", a) is a
        with pytest.raises(aj.StateError, match="never set"):
            q.DeQue(a)                                # already dequeued: the device would wait forever
        with pytest.raises(aj.ParameterError, match="depth-0"):
            q.DeQue("half")
        with pytest.raises(aj.ParameterError, match="depth"):
            q.VacantInQue()
        with pytest.raises(aj.ParameterError, match="returning"):
            q.AllocTensor("half", a)
        q.FreeTensor(a)
        q.FreeTensor(b)
        one = aj.TQue(aj.TPosition.VECOUT, 1)
        pipe.InitBuffer(one, 1, 64)
        t = one.AllocTensor("half")
        one.EnQue(t)
        with pytest.raises(aj.ParameterError, match="depth-0"):
            one.DeQue(t)
        assert one.DeQue("half").addr == t.addr       # the refused call left it queued


def test_buffers_keep_the_length_init_buffer_rounds_up_to():
    """The devkit's InitBuffer rounds len up to whole DataBlocks and the tensors of the buffer carry that length:
    GetSize() counts it, and so does every bounds check (a Brcb from a 38-float rstd queue buffer may read 40;
    FusedAddRmsNorm's merge-N kernel sizes its rstd queue rowFactor * 4 bytes) (docs/decisions.md "Buffer
    lengths")."""
    with aj.Core("a2"):
        pipe = aj.TPipe()
        q, buf = aj.TQue(aj.TPosition.VECOUT, 1), aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(q, 1, 38 * 4)
        pipe.InitBuffer(buf, 100)
        rstd = q.AllocTensor("float")
        assert rstd.GetSize() == 40 and buf.Get("half").GetSize() == 64
        rstd[:] = np.arange(40, dtype=np.float32)
        big = aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(big, 40 * 32)
        out = big.Get("float")
        aj.Brcb(out, rstd, 5, aj.BrcbRepeatParams(1, 8))
        assert out.numpy()[::8].tolist() == list(range(40))
        pool = aj.TBufPool(aj.TPosition.VECCALC)
        pipe.InitBufPool(pool, 256)
        pq = aj.TQue(aj.TPosition.VECIN, 1)
        pool.InitBuffer(pq, 2, 20)
        assert pq.AllocTensor("half").GetSize() == 16


def test_data_copy_rules():
    core = aj.Core("a2")
    gm = aj.GlobalTensor(np.arange(64, dtype=np.float16))
    ub = core.local_tensor("half", 64)
    aj.DataCopy(ub, gm, 64)
    assert ub.numpy().tolist() == list(range(64))
    aj.DataCopy(ub, gm[16:], 16)  # GM offsets need no alignment beyond the element
    assert ub.numpy()[:16].tolist() == list(range(16, 32))
    out = aj.GlobalTensor(np.zeros(64, np.float16))
    core.PipeBarrier(aj.PIPE_ALL)         # the copy-out waits for the copy-in (MTE2 -> MTE3)
    aj.DataCopy(out, ub, 32)
    assert out.array[:16].tolist() == list(range(16, 32))
    with pytest.raises(aj.AlignmentError, match="multiple of 32"):
        aj.DataCopy(ub, gm, 10)
    with pytest.raises(aj.AlignmentError, match="32-byte"):
        aj.DataCopy(core.local_tensor("half", 16, addr=ub.addr + 2), gm, 16)
    with pytest.raises(aj.OutOfBoundsError):
        aj.DataCopy(ub, gm[32:], 64)
    strided = aj.GlobalTensor(np.zeros(64, np.float16))
    aj.DataCopy(strided, ub, aj.DataCopyParams(2, 1, 1, 1))  # two 32-B blocks, one-block gaps on both sides
    assert strided.array[:16].tolist() == ub.numpy()[:16].tolist()
    assert strided.array[32:48].tolist() == ub.numpy()[32:48].tolist()
    assert (strided.array[16:32] == 0).all()
    for bad in (aj.DataCopyParams(0, 1, 0, 0), aj.DataCopyParams(4096, 1, 0, 0), aj.DataCopyParams(1, 0, 0, 0)):
        with pytest.raises(aj.ParameterError):
            aj.DataCopy(strided, ub, bad)


@pytest.mark.parametrize("make, args, named", [
    (lambda: aj.TQue(aj.TPosition.VECIN, 2), (2, -32), "'len' = -32 for a TQue(VECIN, depth 2)"),
    (lambda: aj.TQue(aj.TPosition.VECOUT, 1), (0, 512), "'num' = 0 for a TQue(VECOUT, depth 1)"),
    (lambda: aj.TBuf(aj.TPosition.VECCALC), (1.5,), "'len' = 1.5 a float is not an integer, for a TBuf(VECCALC)")])
def test_an_init_buffer_refusal_names_the_buffer(make, args, named):
    """port53b: "InitBuffer: 'len' = 0" (a tiling that rounds a length down to 0, now a 0-byte buffer as on the device)
    named none of a kernel's buffers."""
    def kernel():
        aj.TPipe().InitBuffer(make(), *args)
    with pytest.raises(aj.ParameterError, match=re.escape(named)):
        aj.launch(kernel, 1, "atlas-a2")


def test_tque_config_template_argument():
    """`TQue<pos, depth, &conf>` (port54a, ops-nn MseLossGradV2): the TQueConfig's bufferLen / bufferNumber, when
    not 0, must be InitBuffer's len and num (DK TQue简介.md); the cube positions' format conversions and any other
    mask are refused, each an AscendJitError naming TQue's mask (a third argument was a plain TypeError)."""
    with aj.Core("atlas-a2"):
        pipe = aj.TPipe()
        sized = aj.TQue(aj.TPosition.VECIN, 2, aj.TQueConfig(bufferLen=1000, bufferNumber=2))
        pipe.InitBuffer(sized, 2, 1000)
        assert sized.AllocTensor("half").GetSize() == 512
        for num, nbytes, name in ((1, 1000, "num"), (2, 1024, "len")):
            # port68g2: the text names the declaration that agrees
            field, given = ("bufferNumber", num) if name == "num" else ("bufferLen", nbytes)
            with pytest.raises(aj.ParameterError,
                               match=f"'{name}' = {given} .*declare TQueConfig\\({field}={given}\\), or 0"):
                pipe.InitBuffer(aj.TQue(aj.TPosition.VECIN, 2, aj.TQueConfig(bufferLen=1000, bufferNumber=2)), num,
                                nbytes)
        # bufferNumber 1 with two buffers: on the device AllocTensor takes the first alone (kernel_tquebind_impl.h)
        with pytest.raises(aj.ParameterError, match=r"with bufferNumber 1 AllocTensor hands out the first buffer "
                                                     r"alone .* declare TQueConfig\(bufferNumber=2\), or 0"):
            pipe.InitBuffer(aj.TQue(aj.TPosition.VECIN, 2, aj.TQueConfig(bufferNumber=1)), 2, 1024)
        pipe.InitBuffer(aj.TQueBind(aj.TPosition.VECIN, aj.TPosition.VECOUT, 1, aj.TQueConfig()), 1, 64)  # 0: any
        for mask in ({}, 1, 2, True, aj.TQueConfig(nd2nz=True), aj.TQueConfig(nz2nd=True)):
            with pytest.raises(aj.ParameterError, match="TQue: parameter 'mask'.*cube positions"):
                aj.TQue(aj.TPosition.VECIN, 1, mask)
