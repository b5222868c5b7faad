"""The sanitizer's "memory" check on the system workspace (docs/decisions.md "The system workspace check"): once a
core has called GetUserWorkspace(workspace), its GM writes into the workspace's first RESERVED_WORKSPACE bytes (the
framework's, DK 资源管理/workspace/GetUserWorkspace.md) are reported: DataCopy, DataCopyPad, an atomic copy and
SetValue; reads, the user's part and a kernel that never asked for the split are not; in "raise" mode nothing is
written."""
import numpy as np
import pytest

import ascend_jit as aj

RESERVED = {"ascend950": 16 << 20, "atlas-a2": 16 << 20, "atlas-inference-aicore": 2 << 20}


def _workspace(device, user_bytes=4096):
    return np.zeros((aj.GetLibApiWorkSpaceSize(device) + user_bytes) // 4, np.float32)


def _tile(count=64, filled=True):
    pipe = aj.TPipe()
    buf = aj.TBuf(aj.TPosition.VECCALC)
    pipe.InitBuffer(buf, count * 4)
    tile = buf.Get("float")
    if not filled:
        return tile
    aj.Duplicate(tile, np.float32(1), count)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    return tile


def _copy_kernel(how, start_byte, count=64, split=True):
    """A kernel writing `count` floats from workspace byte `start_byte` (its block's own 256 bytes on)."""
    def kernel(ws):
        if split:
            aj.GetUserWorkspace(ws)
        gm = aj.GlobalTensor()
        gm.SetGlobalBuffer(ws[start_byte // 4 + count * aj.GetBlockIdx():], count)
        tile = _tile(count, filled=how != "read")
        if how == "DataCopy":
            aj.DataCopy(gm, tile, count)
        elif how == "DataCopyPad":
            aj.DataCopyPad(gm, tile, aj.DataCopyExtParams(1, count * 4, 0, 0, 0))
        elif how == "atomic":
            aj.SetAtomicAdd("float")
            aj.DataCopy(gm, tile, count)
            aj.DisableDmaAtomic()
        else:   # a read of the system part and of the user's: no write, no report
            aj.DataCopy(tile, gm, count)
    return kernel


def _reports(kernel, device, *arrays, mode="report", blocks=2):
    with aj.sanitize_session(mode) as session:
        aj.launch(kernel, blocks, device, *arrays)
    return session.reports


@pytest.mark.parametrize("device, how", [(d, h) for d in sorted(RESERVED) for h in ("DataCopy", "DataCopyPad", "atomic")
                                         if (d, h) != ("atlas-inference-aicore", "DataCopyPad")])   # not on the 310P
def test_a_copy_into_the_system_workspace_is_reported(device, how):
    ws = _workspace(device)
    reports = _reports(_copy_kernel(how, 0), device, ws)
    reserved = RESERVED[device]
    assert [(r.check, r.kind, r.block, r.space, r.address, r.nbytes) for r in reports] == [
        ("memory", "write into the system workspace", b, "GM", 256 * b, 256) for b in range(2)]
    text = str(reports[0])
    assert "DataCopy" in text and "[PIPE_MTE3]" in text and "test_sanitizer_system_workspace.py" in text
    assert f"whose first {reserved} bytes are the system workspace" in text
    assert f"GetUserWorkspace(workspace) view (its element 0 is the workspace's byte {reserved})" in text
    assert f"RESERVED_WORKSPACE on {device}" in text
    assert np.count_nonzero(ws) == 128   # "report" mode: the writes happen, as on the device


def test_a_copy_straddling_the_split_counts_the_system_bytes_only():
    ws = _workspace("atlas-a2")
    reports = _reports(_copy_kernel("DataCopy", RESERVED["atlas-a2"] - 100, count=64), "atlas-a2", ws, blocks=1)
    assert [(r.address, r.nbytes) for r in reports] == [(RESERVED["atlas-a2"] - 100, 100)]


@pytest.mark.parametrize("how", ["DataCopy", "read"])
def test_the_users_part_and_reads_are_not_reported(how):
    device = "ascend950"
    ws = _workspace(device)
    assert _reports(_copy_kernel(how, RESERVED[device]), device, ws) == []
    assert _reports(_copy_kernel("read", 0), device, ws) == []


def test_a_kernel_that_never_asked_for_the_split_is_not_reported():
    """Without GetUserWorkspace the array is whatever the kernel says it is (a host buffer named workspace)."""
    ws = _workspace("atlas-a2")
    assert _reports(_copy_kernel("DataCopy", 0, split=False), "atlas-a2", ws) == []


def test_set_value_into_the_system_workspace_is_reported():
    def kernel(ws):
        aj.GetUserWorkspace(ws)
        gm = aj.GlobalTensor()
        gm.SetGlobalBuffer(ws)
        gm.SetValue(3, np.float32(2))
        gm.GetValue(5)
    ws = _workspace("atlas-a2")
    reports = _reports(kernel, "atlas-a2", ws, blocks=1)
    assert [(r.kind, r.instruction.api, r.instruction.pipe, r.address, r.nbytes) for r in reports] == [
        ("write into the system workspace", "SetValue", "PIPE_S", 12, 4)]
    assert reports[0].operand.startswith("tensor (GM: the kernel's workspace")


def test_raise_mode_refuses_before_the_write():
    ws = _workspace("ascend950")
    with pytest.raises(aj.SanitizerError, match=r"\[memory\] write into the system workspace: DataCopy"):
        _reports(_copy_kernel("DataCopy", 512), "ascend950", ws, mode="raise", blocks=1)
    assert not ws.any()


def test_only_the_memory_check_reports_it():
    ws = _workspace("atlas-a2")
    assert _reports(_copy_kernel("DataCopy", 0), "atlas-a2", ws, mode="report,race,init,blocks,sync") == []
    assert len(_reports(_copy_kernel("DataCopy", 0), "atlas-a2", ws, mode="report,memory")) == 2


def test_init_global_memory_into_the_system_workspace_is_reported():
    def kernel(ws):
        aj.GetUserWorkspace(ws)
        aj.TPipe()
        gm = aj.GlobalTensor()
        gm.SetGlobalBuffer(ws[:64], 64)
        aj.InitGlobalMemory(gm, 64, np.float32(0))
    ws = np.ones(_workspace("atlas-a2").size, np.float32)
    reports = _reports(kernel, "atlas-a2", ws, blocks=1)
    assert [(r.kind, r.instruction.api, r.address, r.nbytes) for r in reports] == [
        ("write into the system workspace", "InitGlobalMemory: DataCopyPad", 0, 256)]


def test_two_workspaces_carved_from_one_pool_both_count():
    """review68: the second GetUserWorkspace had replaced the first's record (one numpy root)."""
    def kernel(w1, w2):
        aj.GetUserWorkspace(w1)
        aj.GetUserWorkspace(w2)
        for ws in (w1, w2):
            gm = aj.GlobalTensor()
            gm.SetGlobalBuffer(ws[16:80], 64)
            aj.DataCopy(gm, _tile(), 64)
            aj.PipeBarrier(aj.PIPE_ALL)
    n = _workspace("atlas-a2").size
    pool = np.zeros(2 * n, np.float32)
    reports = _reports(kernel, "atlas-a2", pool[:n], pool[n:], blocks=1)
    assert [(r.kind, r.address, r.nbytes) for r in reports] == [("write into the system workspace", 64, 256)] * 2
