""""strict" inside a Reg VF through the register lanes (docs/decisions.md "The strict RAW through the lanes"; port68f2,
port68j3): a load of bytes a store of the same VF wrote with no LocalMemBar between is reported where its lanes are
stored under an active mask, with the load's own report (the load, the store as the earlier instruction, the
LocalMemBar fix); lanes no store writes (a whole-vector tail load whose tail mask drops them, as the devkit's 950
CumSum and ReduceSum AR do) are no race on the values the kernel keeps."""
import numpy as np
import pytest

import ascend_jit as aj

R = aj.Reg


def _tail_vf(buf, used, barrier, through):
    """Store floats 64..127, then load floats 32..95 (lanes 32..63 are the stored bytes) and store `used` lanes of
    it (directly, or through an Add into another register) at floats 128.."""
    full = R.CreateMask("float", R.MaskPattern.ALL)
    tail, _ = R.UpdateMask("float", used)
    r, acc, out = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    R.LoadAlign(r, buf, 64)
    R.Adds(r, r, 1.0, full)
    R.StoreAlign(buf, r, full, 64)
    if barrier:
        R.LocalMemBar(R.MemType.VEC_STORE, R.MemType.VEC_LOAD)
    R.LoadAlign(acc, buf, 32)
    if through:
        R.Adds(out, acc, 2.0, tail)
        R.StoreAlign(buf, out, tail, 128)
    else:
        R.Adds(acc, acc, 2.0, tail)
        R.StoreAlign(buf, acc, tail, 128)


TAIL_VF = R.simd_vf(_tail_vf)


def _kernel(x, used, barrier, through):
    pipe = aj.TPipe()
    q = aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(q, 1, 256 * 4)
    g = aj.GlobalTensor("float")
    g.SetGlobalBuffer(x, 256)
    t = q.AllocTensor("float")
    aj.DataCopy(t, g, 256)
    q.EnQue(t)
    t = q.DeQue("float")
    TAIL_VF(t, used, barrier, through)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(g, t, 256)
    q.FreeTensor(t)


def _run(words, used, barrier=False, through=False):
    x = np.arange(256, dtype=np.float32)
    with aj.sanitize_session(words) as session:
        aj.launch(_kernel, 1, "ascend950", x, used, barrier, through)
    want = np.arange(256, dtype=np.float32)
    want[64:128] += 1
    want[128:128 + used] = np.arange(32, 32 + used, dtype=np.float32) + 2 + (np.arange(used) >= 32)
    np.testing.assert_array_equal(x, want)
    return session.reports


@pytest.mark.parametrize("words", ["report,strict", "report,strict,device-sync"])
@pytest.mark.parametrize("through", [False, True])
def test_racing_lanes_no_store_writes_are_no_report(words, through):
    assert _run(words, 32, through=through) == []


@pytest.mark.parametrize("words", ["report,strict", "report,strict,device-sync"])
@pytest.mark.parametrize("through", [False, True])
def test_racing_lanes_a_store_writes_are_the_loads_report(words, through):
    reports = _run(words, 48, through=through)   # lanes 32..47 are stored: floats 64..79 raced
    assert [(r.check, r.kind, r.instruction.api, r.earlier.api, r.operand) for r in reports] == [
        ("race", "RAW", "LoadAlign", "StoreAlign", "tensor")]
    report = reports[0]
    assert report.nbytes == 128 and report.fix.startswith("Reg.LocalMemBar(MemType.VEC_STORE, MemType.VEC_LOAD)")
    assert "test_sanitizer_strict_lanes.py" in report.instruction.where


def test_a_local_mem_bar_orders_them():
    assert _run("report,strict,device-sync", 64, barrier=True) == []


def test_without_strict_nothing_is_followed():
    assert _run("report,device-sync", 64) == []


def test_raise_mode_raises_at_the_store():
    x = np.arange(256, dtype=np.float32)
    with pytest.raises(aj.SanitizerError, match=r"RAW: LoadAlign \[PIPE_V\] at .* after StoreAlign"):
        with aj.sanitize_session("strict"):
            aj.launch(_kernel, 1, "ascend950", x, 48, False, False)
