"""Session 64's fresh ports (docs/decisions.md "What the session-64 ports found"): the refusals, docs and queue
forms they met."""
import warnings

import numpy as np
import pytest

import ascend_jit as aj

R = aj.Reg


def _copy_through(x, y, src_end, dst_end):
    """x -> y through a TQueBind with a GM end for the copy-in and another for the copy-out (ops-math Roll's
    TQueBind<GM, VECIN> / TQueBind<VECOUT, GM>), and an Adds between them."""
    xg, yg = aj.GlobalTensor("float"), aj.GlobalTensor("float")
    xg.SetGlobalBuffer(x, 64)
    yg.SetGlobalBuffer(y, 64)
    pipe = aj.TPipe()
    qin, qout = aj.TQueBind(*src_end, 1), aj.TQueBind(*dst_end, 1)
    pipe.InitBuffer(qin, 1, 256)
    pipe.InitBuffer(qout, 1, 256)
    t = qin.AllocTensor("float")
    aj.DataCopy(t, xg, 64)
    qin.EnQue(t)
    t = qin.DeQue("float")
    o = qout.AllocTensor("float")
    aj.Adds(o, t, np.float32(2), 64)
    qin.FreeTensor(t)
    qout.EnQue(o)
    o = qout.DeQue("float")
    aj.DataCopy(yg, o, 64)
    qout.FreeTensor(o)


@pytest.mark.parametrize("mode", ["report", "report,device-sync"])
def test_tquebind_with_a_gm_end_is_the_tque_of_its_other_end(mode):
    """port64c: TQueBind<GM, VECIN> and TQueBind<VECOUT, GM> (the devkit's TQue<VECIN> / TQue<VECOUT> types) were
    refused, the first under TQue's name. They run as those queues, with their events under "device-sync"."""
    P = aj.TPosition
    x, y = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    with aj.sanitize_session(mode) as session:
        aj.launch(_copy_through, 1, "atlas-a2", x, y, (P.GM, P.VECIN), (P.VECOUT, P.GM))
    np.testing.assert_array_equal(y, x + 2)
    assert session.reports == []
    bind_in, que_in = aj.TQueBind(P.GM, P.VECIN, 2), aj.TQue(P.VECIN, 2)
    bind_out, que_out = aj.TQueBind(P.VECOUT, P.GM, 2), aj.TQue(P.VECOUT, 2)
    assert (bind_in.position, bind_out.position) == (P.VECIN, P.VECOUT)
    assert bind_in._pipes == que_in._pipes and bind_out._pipes == que_out._pipes
    with pytest.raises(aj.ParameterError, match=r"^TQueBind: parameter 'position' = <TPosition.GM"):
        aj.TQueBind(P.GM, P.GM, 1)


@pytest.mark.parametrize("name", ["Gather", "Scatter", "GatherB"])
def test_reg_gather_refusal_names_the_memory_api_route(name):
    """port64c: Reg::Gather's refusal said only that it is not offered."""
    with pytest.raises(aj.NotOfferedError, match=r"aj\.Gather\(dst, src, offsets, base, count\) before the VF"):
        getattr(R, name)


def test_unalign_reg_refusals_say_the_devkit_type_is_one():
    """port64c: the devkit aliases UnalignRegForLoad / ForStore / UnalignReg to one vector_align; the refusal had
    called UnalignReg "older" and a load register given to StoreUnAlign said only which class it wanted."""
    with pytest.raises(aj.NotOfferedError, match="vector_align"):
        R.UnalignReg
    with aj.Core("ascend950") as core:
        t = core.local_tensor("half", 256)
        with pytest.raises(aj.ParameterError, match=r"UnalignRegForStore \(the devkit's one vector_align type"):
            R.StoreUnAlign(t, R.RegTensor("half"), R.UnalignRegForLoad(), 0, 16)


@R.simd_vf
def _reinterpreting_move(out):
    a = R.RegTensor("int32")
    b = R.RegTensor("uint32")
    R.Arange(a, -3)
    R.Move(b, a)
    R.StoreAlign(out, b, R.CreateMask("uint32", R.MaskPattern.ALL), 0)


@pytest.mark.parametrize("compiled", [True, False])
def test_reinterpreting_move_says_to_store_into_the_other_type(compiled):
    """port64c: Move(uint32 register, (RegTensor<uint32_t>&)int32 register) was refused with Copy's one-type rule and
    no word of the same-width store that does the reinterpretation."""
    with aj.Core("ascend950") as core:
        out = core.local_tensor("uint32", 64)
        vf = _reinterpreting_move if compiled else _reinterpreting_move.py_func
        with pytest.raises(aj.UnsupportedDTypeError, match="Move on data registers is too.*store it into the "
                                                            "tensor of that type directly"):
            vf(out)


@pytest.mark.parametrize("name", ["DataCopyPadGm2UBImpl", "DataCopyPadUB2GMImpl", "DataCopyGM2UBImpl",
                                  "DataCopyUB2GMImpl"])
def test_devkit_copy_implementations_say_what_to_write(name):
    """port64b: DataCopyPadGm2UBImpl (ops-nn ScatterElementsV2's int64 index copy) was a bare AttributeError."""
    with pytest.raises(aj.NotOfferedError, match=r"aj\.DataCopyPad\(dst, src, DataCopyExtParams.*"
                                                 r"aj\.GlobalTensor\(\"uint32\"\) over the same host array"):
        getattr(aj, name)


def test_negative_global_tensor_index_explains_the_window():
    """port64c: CircularPad's copy from one element before x got a bare range."""
    g = aj.GlobalTensor("half")
    g.SetGlobalBuffer(np.zeros(8, np.float16), 8)
    with aj.Core("atlas-a2"):
        for access in (lambda: g[-1], lambda: g.GetValue(-1)):
            with pytest.raises(aj.OutOfBoundsError, match="give SetGlobalBuffer the host array from an earlier "
                                                          "element"):
                access()


def _every_block_writes_all(x, y):
    xg, yg = aj.GlobalTensor("float"), aj.GlobalTensor("float")
    xg.SetGlobalBuffer(x, 64)
    yg.SetGlobalBuffer(y, 64)
    pipe = aj.TPipe()
    buf = aj.TBuf(aj.TPosition.VECCALC)
    pipe.InitBuffer(buf, 256)
    t = buf.Get("float")
    aj.DataCopy(t, xg, 64)
    aj.SetFlag(0, event=aj.HardEvent.MTE2_MTE3)
    aj.WaitFlag(0, event=aj.HardEvent.MTE2_MTE3)
    aj.DataCopy(yg, t, 64)


def test_blocks_fix_for_same_bytes_names_each_blocks_share_first():
    """port64a: the devkit's Axpy example has every block write the whole output; the fix said SetAtomicAdd first,
    which would have summed the blocks' copies."""
    with aj.sanitize_session("report") as session:
        aj.launch(_every_block_writes_all, 2, "atlas-a2", np.arange(64, dtype=np.float32), np.zeros(64, np.float32))
    fixes = {r.fix for r in session.reports}
    assert fixes and all("give each block its own share of the output (an offset by GetBlockIdx())" in f
                         for f in fixes)


def _uninitialised_copy_out(x, y):
    yg = aj.GlobalTensor("half")
    yg.SetGlobalBuffer(y, 32)
    pipe = aj.TPipe()
    q = aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(q, 1, 64)
    t = q.AllocTensor("half")
    aj.Duplicate(t, np.float16(1), 16)
    q.EnQue(t)
    t = q.DeQue("half")
    aj.DataCopy(yg, t, 32)   # 16 of the 32 halves were never written
    q.FreeTensor(t)


def test_report_mode_warning_names_the_launch_so_a_device_loop_shows_each():
    """port64a: outside a session a launch's reports come as one SanitizerWarning; Python shows a warning text once
    per line, and the text did not name the device, so a loop's second device showed nothing."""
    x, y = np.zeros(32, np.float16), np.zeros(32, np.float16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for device in ("atlas-a2", "atlas-inference-aicore"):
            aj.launch(_uninitialised_copy_out, 1, device, x, y, sanitize="report")
    texts = [str(w.message) for w in caught if w.category is aj.SanitizerWarning]
    assert len(texts) == 2
    assert texts[0].startswith("aj.launch on atlas-a2, 1 block: [init]")
    assert texts[1].startswith("aj.launch on atlas-inference-aicore, 1 block: [init]")
