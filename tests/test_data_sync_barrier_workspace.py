"""DataSyncBarrier<MemDsbT> (devkit 同步控制/核内同步/DataSyncBarrier(ISASI).md) and GetUserWorkspace (devkit
资源管理/workspace/GetUserWorkspace.md): the SPECs are silent; docs/decisions.md "DataSyncBarrier" and
"GetUserWorkspace". Devices, refusals (UB and state unchanged), the sanitizer's view of the barrier, the workspace
split inside a launch."""
import numpy as np
import pytest

import ascend_jit as aj

DSB_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
WS_DEVICES = {"ascend950": 16 << 20, "atlas-a3": 16 << 20, "atlas-a2": 16 << 20,
              "atlas-inference-aicore": 2 << 20, "atlas-training": 2 << 20}


def _state(core):
    return core.ub.copy(), core.mask_high, core.mask_low, core.mask_defined, core.ctrl, core.pending_flags()


# --- DataSyncBarrier --------------------------------------------------------------------------------------------------
def test_mem_dsb_t_is_the_devkit_enum():
    """kernel_event.h: enum class MemDsbT : uint8_t { ALL = 0, DDR, UB, SEQ }."""
    assert [(m.name, m.value) for m in aj.MemDsbT] == [("ALL", 0), ("DDR", 1), ("UB", 2), ("SEQ", 3)]


@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES + ("atlas-inference-vectorcore",))
def test_data_sync_barrier_devices(device):
    """Offered on the page's 950, A3, A2 and 310B; elsewhere UnsupportedDeviceError naming API, device and the
    legal devices, nothing changed. Every member (or its integer value) is accepted; hooks see it."""
    core = aj.Core(device)
    events = []
    core.sync_hooks.append(lambda c, kind, detail: events.append((kind, detail)))
    with core:
        if device not in DSB_DEVICES:
            before = _state(core)
            with pytest.raises(aj.UnsupportedDeviceError, match=f"DataSyncBarrier.*{device}.*ascend950"):
                aj.DataSyncBarrier(aj.MemDsbT.ALL)
            after = _state(core)
            assert np.array_equal(after[0], before[0]) and after[1:] == before[1:]
            return
        for m in aj.MemDsbT:
            aj.DataSyncBarrier(m)
        aj.DataSyncBarrier(2)
        core.DataSyncBarrier(arg0=aj.MemDsbT.SEQ)
    assert [d["arg0"] for k, d in events if k == "DataSyncBarrier"] == list(aj.MemDsbT) + [aj.MemDsbT.UB,
                                                                                          aj.MemDsbT.SEQ]


@pytest.mark.parametrize("bad", [4, -1, "UB", None, True, aj.Pipe.PIPE_V, 1.0])
def test_data_sync_barrier_refuses_what_is_no_mem_dsb_t(bad):
    core = aj.Core("atlas-a2")
    with core:
        with pytest.raises(aj.ParameterError, match="DataSyncBarrier.*arg0.*MemDsbT.ALL.*atlas-a2"):
            aj.DataSyncBarrier(bad)


def test_data_sync_barrier_needs_a_core():
    with pytest.raises(aj.StateError, match="DataSyncBarrier"):
        aj.DataSyncBarrier(aj.MemDsbT.ALL)


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_the_sanitizer_orders_the_scalar_units_ub_accesses_for_ub_and_all(device):
    """SetValue (PIPE_S) then a vector read of the byte is a RAW race without a flag; DataSyncBarrier<UB> or <ALL>
    between them orders it (later instructions wait for the scalar unit's earlier UB accesses); <DDR> (GM only) and
    <SEQ> do not."""
    for arg, ordered in ((aj.MemDsbT.UB, True), (aj.MemDsbT.ALL, True), (aj.MemDsbT.DDR, False),
                         (aj.MemDsbT.SEQ, False), (None, False)):
        with aj.Core(device, sanitize="report") as core:
            src, dst = core.local_tensor("float", 64), core.local_tensor("float", 64)
            aj.Duplicate(src, 1.0, 64)
            aj.SetFlag(0, event=aj.HardEvent.V_S)
            aj.WaitFlag(0, event=aj.HardEvent.V_S)
            src.SetValue(3, 2.0)
            if arg is not None:
                aj.DataSyncBarrier(arg)
            aj.Adds(dst, src, 1.0, 64)
            kinds = [(r.instruction.api, r.kind) for r in core.sanitizer.reports]
            assert kinds == ([] if ordered else [("Adds", "RAW")]), arg


def test_the_barrier_does_not_wait_for_the_vector_unit():
    """It orders the scalar unit's own accesses only: a vector write then a scalar read still needs V_S."""
    with aj.Core("atlas-a2", sanitize="report") as core:
        t = core.local_tensor("float", 64)
        aj.Duplicate(t, 1.0, 64)
        aj.DataSyncBarrier(aj.MemDsbT.ALL)
        t.GetValue(0)
        assert [(r.instruction.api, r.kind) for r in core.sanitizer.reports] == [("GetValue", "RAW")]


# --- GetUserWorkspace -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", list(WS_DEVICES))
def test_user_workspace_follows_the_system_workspace(device):
    """The user's part starts RESERVED_WORKSPACE bytes in (16 MiB on the 950 / A2 / A3, 2 MiB on the 310P / 910),
    a view of the same memory in the same dtype; GetLibApiWorkSpaceSize is that size."""
    reserved = WS_DEVICES[device]
    assert aj.GetLibApiWorkSpaceSize(device) == reserved
    for dtype in (np.uint8, np.float32, np.int64):
        ws = np.zeros((reserved + 256) // np.dtype(dtype).itemsize, dtype)
        with aj.Core(device):
            user = aj.GetUserWorkspace(ws)
        assert user.dtype == ws.dtype and user.nbytes == 256
        assert user.__array_interface__["data"][0] - ws.__array_interface__["data"][0] == reserved
        with aj.Core(device):   # exactly the system workspace: an empty user part
            assert aj.GetUserWorkspace(ws[:reserved // ws.itemsize]).size == 0


def _kernel(workspace, out):
    user = aj.GlobalTensor()
    user.SetGlobalBuffer(aj.GetUserWorkspace(workspace), aj.GetBlockNum())
    user.SetValue(aj.GetBlockIdx(), np.float32(10 + aj.GetBlockIdx()))


def test_inside_a_launch_each_block_writes_the_users_part():
    device = "atlas-a2"
    ws = np.full(aj.GetLibApiWorkSpaceSize(device) // 4 + 8, np.float32(-1.0), np.float32)
    aj.launch(_kernel, 4, device, ws, None)
    reserved = aj.GetLibApiWorkSpaceSize(device) // 4
    assert list(ws[reserved:reserved + 4]) == [10.0, 11.0, 12.0, 13.0]
    assert (ws[:reserved] == -1.0).all() and (ws[reserved + 4:] == -1.0).all()


@pytest.mark.parametrize("device", ["atlas-200i-500-a2", "atlas-inference-vectorcore"])
def test_get_user_workspace_not_offered(device):
    with aj.Core(device):
        with pytest.raises(aj.UnsupportedDeviceError, match=f"GetUserWorkspace.*{device}.*ascend950"):
            aj.GetUserWorkspace(np.zeros(16 << 20, np.uint8))
    with pytest.raises(aj.UnsupportedDeviceError, match=f"GetLibApiWorkSpaceSize.*{device}"):
        aj.GetLibApiWorkSpaceSize(device)


@pytest.mark.parametrize("bad,error,match", [
    (None, aj.ParameterError, "workspace.*None.*nullptr"),
    ([0] * 8, aj.ParameterError, "workspace.*list.*1-D numpy array"),
    (np.zeros((4, 4), np.uint8), aj.ParameterError, "workspace.*shape.*1-D"),
    (np.zeros(64, np.uint8)[::2], aj.ParameterError, "workspace.*not contiguous"),
    (np.zeros((2 << 20) - 1, np.uint8), aj.OutOfBoundsError, r"workspace.*2097151 bytes.*>= 2097152"),
])
def test_get_user_workspace_refusals(bad, error, match):
    """Each refusal names the API, the parameter, the value, the legal range and the device; the array is not
    touched."""
    with aj.Core("atlas-inference-aicore"):
        with pytest.raises(error, match=f"GetUserWorkspace.*{match}.*atlas-inference-aicore"):
            aj.GetUserWorkspace(bad)


def test_get_user_workspace_needs_a_core():
    with pytest.raises(aj.StateError, match="GetUserWorkspace"):
        aj.GetUserWorkspace(np.zeros(16 << 20, np.uint8))
