"""The same-core GM race check of "device-sync" (docs/decisions.md "Sanitizer", session 64): a core's copy-out to GM
and its later copy-in or GlobalTensor GetValue / SetValue of those bytes, in other pipes, need a flag between them,
as two UB accesses do; the default model follows UB bytes only and reports none of them."""
import gc

import numpy as np
import pytest

import ascend_jit as aj
from tiles import flag as _flag, float_globals as _globals, queue_tile, scratch

DEVICE = "atlas-a2"
MODES = ("report", "report,device-sync")


def _workspace(x, ws, y, ordered, scalar):
    """x -> UB -> the workspace ws (MTE3), read back (MTE2, and a GetValue when `scalar`) -> y: a kernel's partial
    results through a GM workspace, ordered by MTE3_MTE2 / MTE3_S only when `ordered`."""
    xg, wg, yg = _globals(x, ws, y)
    pipe, buf = scratch(512)
    t, u = buf.Get("float"), buf.GetWithOffset("float", 64, 256)
    aj.DataCopy(t, xg, 64)
    _flag(aj.HardEvent.MTE2_MTE3)
    aj.DataCopy(wg, t, 64)
    if ordered:
        _flag(aj.HardEvent.MTE3_MTE2)
        _flag(aj.HardEvent.MTE3_S)
    if scalar:
        assert wg.GetValue(3) == 3
    aj.DataCopy(u, wg, 64)
    _flag(aj.HardEvent.MTE2_MTE3, 1)
    aj.DataCopy(yg, u, 64)


def _reports(kernel, mode, *args):
    with aj.sanitize_session(mode) as session:
        aj.launch(kernel, 1, DEVICE, *args)
    return [(r.kind, r.instruction.api, r.instruction.pipe, r.earlier.api, r.earlier.pipe, r.space, r.address,
             r.nbytes) for r in session.reports], session.reports


def _arrays():
    return np.arange(64, dtype=np.float32), np.zeros(64, np.float32), np.zeros(64, np.float32)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scalar", [False, True])
def test_workspace_read_back_without_a_flag(mode, scalar):
    """port62b's GroupedBiasAddGrad: the workspace's copy-out and its read-back with no MTE3_MTE2 between them."""
    x, ws, y = _arrays()
    found, reports = _reports(_workspace, mode, x, ws, y, False, scalar)
    np.testing.assert_array_equal(y, x)   # the emulator runs in program order: only the sanitizer sees the race
    if mode == "report":
        assert found == []
        return
    expected = [("RAW", "DataCopy", "PIPE_MTE2", "DataCopy", "PIPE_MTE3", "GM", 0, 256)]
    if scalar:
        expected.insert(0, ("RAW", "GetValue", "PIPE_S", "DataCopy", "PIPE_MTE3", "GM", 12, 4))
    assert found == expected
    # the fix names the flag (no queue event orders MTE3 before MTE2 or a GM access: port64e) and the operand the
    # GM buffer, in the UB operands' words
    assert reports[-1].fix == "SetFlag/WaitFlag with aj.HardEvent.MTE3_MTE2 between them (or PipeBarrier(PIPE_ALL))"
    assert "operand src (GM: a host array of 64 float32), GM byte 0 (256 bytes)" in str(reports[-1])
    if scalar:
        assert "aj.HardEvent.MTE3_S" in reports[0].fix
        assert reports[0].operand == "tensor (GM: a host array of 64 float32)"


@pytest.mark.parametrize("scalar", [False, True])
def test_workspace_read_back_after_its_flags_is_clean(scalar):
    x, ws, y = _arrays()
    assert _reports(_workspace, "report,device-sync", x, ws, y, True, scalar)[0] == []


def _set_then_copy_in(x, ordered):
    """A SetValue into GM, then a copy-in of those bytes: S -> MTE2."""
    (xg,) = _globals(x)
    pipe, buf = scratch(256)
    xg.SetValue(5, np.float32(7))
    # the device's data cache holds the SetValue until cleaned (the "dcache" check of device-sync, session 65); the
    # clean writes it back but orders no pipe: the S_MTE2 flag is still the race check's
    aj.DataCacheCleanAndInvalid(xg, entire_type=aj.CacheLine.SINGLE_CACHE_LINE, dcci_dst=aj.DcciDst.CACHELINE_OUT)
    if ordered:
        _flag(aj.HardEvent.S_MTE2)
    aj.DataCopy(buf.Get("float"), xg, 64)


@pytest.mark.parametrize("ordered", [False, True])
def test_set_value_then_copy_in(ordered):
    found, reports = _reports(_set_then_copy_in, "report,device-sync", np.zeros(64, np.float32), ordered)
    if ordered:
        assert found == []
    else:
        assert found == [("RAW", "DataCopy", "PIPE_MTE2", "SetValue", "PIPE_S", "GM", 20, 4)]
        assert "aj.HardEvent.S_MTE2" in reports[0].fix


def _in_place(x, queues):
    """The in-place kernels' tile (apply_adagrad, foreach_non_finite_check_and_unscale): x copied in, computed and
    copied out over itself, ordered on the device by the queues' MTE2_V and V_MTE3 events (or the same flags)."""
    (xg,) = _globals(x)
    if queues:
        pipe = aj.TPipe()
        qin, qout = aj.TQue(aj.TPosition.VECIN, 1), aj.TQue(aj.TPosition.VECOUT, 1)
        pipe.InitBuffer(qin, 1, 256)
        pipe.InitBuffer(qout, 1, 256)
        queue_tile(xg, xg, qin, qout, 1)
    else:
        pipe, buf = scratch(512)
        t, o = buf.Get("float"), buf.GetWithOffset("float", 64, 256)
        aj.DataCopy(t, xg, 64)
        _flag(aj.HardEvent.MTE2_V)
        aj.Adds(o, t, np.float32(1), 64)
        _flag(aj.HardEvent.V_MTE3)
        aj.DataCopy(xg, o, 64)


@pytest.mark.parametrize("queues", [True, False])
def test_in_place_tile_is_ordered_through_the_vector_pipe(queues):
    """The copy-out is after the copy-in's read through MTE2 -> V -> MTE3: no WAR (the check tried in session 62
    reported these, its clocks not counting the queue events)."""
    x = np.arange(64, dtype=np.float32)
    assert _reports(_in_place, "report,device-sync", x, queues)[0] == []
    np.testing.assert_array_equal(x, np.arange(64, dtype=np.float32) + 1)


def _overwrite_input(x, other):
    """x copied in, then other data copied out over x with no order between the copy-in's read and the write."""
    xg, og = _globals(x, other)
    pipe, buf = scratch(512)
    t, u = buf.Get("float"), buf.GetWithOffset("float", 32, 256)
    aj.DataCopy(u, og, 32)
    _flag(aj.HardEvent.MTE2_MTE3)
    aj.DataCopy(t, xg, 64)          # after the flag: nothing orders this read before the copy-out below
    aj.DataCopy(xg[16:], u, 32)     # GM bytes 64 .. 191 of x (a report names a byte of the host array)


def test_copy_out_over_bytes_a_copy_in_read_is_a_war():
    x, other = np.arange(64, dtype=np.float32), np.full(32, -1, np.float32)
    found, reports = _reports(_overwrite_input, "report,device-sync", x, other)
    assert found == [("WAR", "DataCopy", "PIPE_MTE3", "DataCopy", "PIPE_MTE2", "GM", 64, 128)]
    assert "aj.HardEvent.MTE2_MTE3" in reports[0].fix


def test_raise_mode_stops_before_the_copy():
    """"device-sync" without "report" raises at the copy-in, before it writes the UB or anything is recorded."""
    x, ws, y = _arrays()
    with pytest.raises(aj.SanitizerError, match=r"RAW: DataCopy \[PIPE_MTE2\].*GM byte 0"):
        aj.launch(_workspace, 1, DEVICE, x, ws, y, False, False, sanitize="device-sync")
    assert not y.any()


def test_a_long_lived_core_does_not_keep_gm_arrays_alive():
    core = aj.Core(DEVICE, sanitize="report,device-sync")
    x = np.arange(64, dtype=np.float32)
    with core:
        (xg,) = _globals(x)
        t = aj.LocalTensor(core, "float", 0, 64)
        aj.DataCopy(t, xg, 64)
        del xg
    assert len(core.sanitizer.gm_own.roots) == 1
    del x
    gc.collect()
    assert core.sanitizer.gm_own.roots == {}


def test_a_scalar_access_the_blocks_check_refuses_leaves_the_core_gm_shadow_unchanged():
    """review64: with "blocks" and "device-sync", a GM SetValue was recorded in the core's own shadow (log, scalar
    clock, writer) before the blocks check raised, so the refused access looked done."""
    from ascend_jit.sanitizer import PIPE_MTE3, LaunchShadow
    core = aj.Core(DEVICE, sanitize="device-sync")
    sanitizer = core.sanitizer
    sanitizer.gm_shadow = LaunchShadow(sanitizer.config)
    core.block_idx, core.block_num = 1, 2
    y = np.zeros(64, np.float32)
    sanitizer.gm_shadow.gm_access(0, "DataCopy", PIPE_MTE3, y, 0, 256, True, 0, lambda report: None, "k.py:1")
    (yg,) = _globals(y)
    with core:
        log, clock = len(sanitizer.log), sanitizer.clock.copy()
        with pytest.raises(aj.SanitizerError, match=r"\[blocks\] two blocks write the same GM bytes"):
            yg.SetValue(3, np.float32(5))
        assert len(sanitizer.log) == log and np.array_equal(sanitizer.clock, clock)
        assert sanitizer.gm_own is None or sanitizer.gm_own.roots == {} or all(
            page.writer_pipe is None for _, pages in sanitizer.gm_own.roots.values() for page in pages.values())
    assert y[3] == 0
