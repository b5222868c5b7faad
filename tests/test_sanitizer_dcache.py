"""The data-cache check ("dcache", session 65; docs/decisions.md "Sanitizer"): the scalar unit reaches GM through a
per-core write-back data cache of 64-byte lines (DK 缓存控制/DataCacheCleanAndInvalid.md, 系统缓存概述.md), which
"device-sync" (or the check word "dcache") models: (a) another block's access of bytes a SetValue left dirty in an
earlier SyncAll phase, (b) a block's DMA of its own dirty line, (c) a GetValue of a cached line written since (by
another block, or the block's own DMA), (d) two blocks writing one line in one phase. The default sanitizer reports
none of them."""
import numpy as np
import pytest

import ascend_jit as aj
from tiles import flag as _flag, float_globals as _globals, scratch

DEVICE = "atlas-a2"
_DCCI_OUT = dict(entire_type=aj.CacheLine.SINGLE_CACHE_LINE, dcci_dst=aj.DcciDst.CACHELINE_OUT)


def _dcache(reports):
    return [(r.kind, r.instruction.api, r.earlier.api if r.earlier else None,
             r.earlier.block if r.earlier else None, r.block, r.address, r.nbytes) for r in reports
            if r.check == "dcache"]


def _launch(kernel, blocks, mode, *args, device=DEVICE):
    with aj.sanitize_session(mode) as session:
        aj.launch(kernel, blocks, device, *args)
    return session.reports


def _raised(kernel, blocks, *args, mode="dcache", device=DEVICE):
    with pytest.raises(aj.SanitizerError) as info:
        with aj.sanitize_session(mode):
            aj.launch(kernel, blocks, device, *args)
    return info.value.report


# --- (a) a SetValue left dirty in another block's cache --------------------------------------------------------------
def _slots(out, fix, stride=16):
    """port65's ops-nn loss kernels: each block SetValue's its own slot, SyncAll, block 0 reads every slot.
    `stride` floats between slots (16: one 64-byte line each); `fix`: what follows the SetValue."""
    (g,) = _globals(out)
    b = aj.GetBlockIdx()
    if fix == "bypass":
        gi = aj.GlobalTensor("int32")
        gi.SetGlobalBuffer(out.view(np.int32), out.size)
        aj.WriteGmByPassDCache(gi[b * stride], b + 1)
    else:
        g.SetValue(b * stride, np.float32(b + 1))
    if fix == "single":
        aj.DataCacheCleanAndInvalid(g[b * stride], **_DCCI_OUT)
    elif fix == "entire":
        aj.DataCacheCleanAndInvalid(g, entire_type=aj.CacheLine.ENTIRE_DATA_CACHE, dcci_dst=aj.DcciDst.CACHELINE_OUT)
    elif fix == "ub":   # the cache's coherence with the UB: no GM line
        aj.DataCacheCleanAndInvalid(g[b * stride], entire_type=aj.CacheLine.SINGLE_CACHE_LINE,
                                    dcci_dst=aj.DcciDst.CACHELINE_UB)
    elif fix == "local":
        pipe, buf = scratch(64)
        aj.DataCacheCleanAndInvalid(buf.Get("float"), entire_type=aj.CacheLine.ENTIRE_DATA_CACHE,
                                    dcci_dst=aj.DcciDst.CACHELINE_OUT)
    aj.SyncAll()
    if fix == "after":   # too late: the reader's phase has begun
        aj.DataCacheCleanAndInvalid(g[b * stride], **_DCCI_OUT)
    if b == 0:
        for i in range(1, 4):
            g.GetValue(i * stride)


_SLOT_READS = [("a block accesses GM bytes another block's SetValue left in its data cache", "GetValue", "SetValue",
                i, 0, i * 64, 4) for i in range(1, 4)]


@pytest.mark.parametrize("mode", ["report,device-sync", "report,dcache"])
@pytest.mark.parametrize("fix", [None, "after", "ub", "local"])
def test_a_block_reads_a_slot_another_block_left_dirty(mode, fix):
    out = np.zeros(64, np.float32)
    reports = _launch(_slots, 4, mode, out, fix)
    assert _dcache(reports) == _SLOT_READS
    r = [r for r in reports if r.check == "dcache"][0]
    assert r.space == "GM" and "in block 1, DataCacheCleanAndInvalid(" in r.fix and "SINGLE_CACHE_LINE" in r.fix
    assert "before the SyncAll" in r.fix and "WriteGmByPassDCache" in r.fix
    assert "GetValue [PIPE_S]" in str(r) and "after SetValue [PIPE_S]" in str(r) and "of block 1 in block 0 of 4" \
        in str(r)


@pytest.mark.parametrize("fix", ["single", "entire", "bypass"])
def test_the_fixes_of_a_dirty_slot(fix):
    out = np.zeros(64, np.float32)
    assert _dcache(_launch(_slots, 4, "report,device-sync", out, fix)) == []


def test_the_default_sanitizer_reports_nothing_new():
    for fix in (None, "after"):
        assert _launch(_slots, 4, "report", np.zeros(64, np.float32), fix) == []
        assert _launch(_slots, 4, "report", np.zeros(64, np.float32), fix, 1) == []   # one shared line
    assert _launch(_own_copy, 1, "report", np.zeros(64, np.float32), "in", False) == []


def test_raise_mode_raises_before_the_read():
    report = _raised(_slots, 4, np.zeros(64, np.float32), None)
    assert (report.check, report.instruction.api, report.earlier.block) == ("dcache", "GetValue", 1)


def _dirty_then_copy_out(out, ws, dcci):
    """Block 1 SetValue's float 0 of the line; after the SyncAll block 0 copies floats 8-15 (other bytes of it)."""
    (g,) = _globals(out)
    b = aj.GetBlockIdx()
    if b == 1:
        g.SetValue(0, np.float32(5))
        if dcci:
            aj.DataCacheCleanAndInvalid(g, **_DCCI_OUT)
    aj.SyncAll()
    if b == 0:
        pipe, buf = scratch(64)
        t = buf.Get("float")
        aj.Duplicate(t, np.float32(1), 8)
        _flag(aj.HardEvent.V_MTE3)
        aj.DataCopy(g[8], t, 8)


@pytest.mark.parametrize("dcci", [False, True])
def test_a_copy_out_into_another_blocks_dirty_line(dcci):
    """The dirty line's write-back is of all 64 bytes: it can overwrite the copy's bytes."""
    out = np.zeros(64, np.float32)
    reports = _launch(_dirty_then_copy_out, 2, "report,device-sync", out, None, dcci)
    if dcci:
        assert _dcache(reports) == []
        return
    assert _dcache(reports) == [("a block accesses GM bytes another block's SetValue left in its data cache",
                                 "DataCopy", "SetValue", 1, 0, 32, 32)]
    assert "can overwrite block 0's bytes" in [r for r in reports if r.check == "dcache"][0].fix


# --- SINGLE_CACHE_LINE on an unaligned address ---------------------------------------------------------------------
def _unaligned(out, second):
    """Block 1 fills a whole line by SetValue and cleans it from float 4 (byte 16) on: bytes 0-15 stay dirty."""
    (g,) = _globals(out)
    b = aj.GetBlockIdx()
    if b == 1:
        for i in range(16):
            g.SetValue(i, np.float32(i))
        aj.DataCacheCleanAndInvalid(g[4], **_DCCI_OUT)
        if second:
            aj.DataCacheCleanAndInvalid(g, **_DCCI_OUT)
    aj.SyncAll()
    if b == 0:
        for i in range(16):
            g.GetValue(i)


@pytest.mark.parametrize("second", [False, True])
def test_a_single_line_clean_of_an_unaligned_address_covers_the_line_from_it(second):
    out = np.zeros(32, np.float32)
    found = _dcache(_launch(_unaligned, 2, "report,dcache", out, second))
    assert found == ([] if second else [(_SLOT_READS[0][0], "GetValue", "SetValue", 1, 0, 4 * i, 4)
                                        for i in range(4)])


# --- (b) the block's own DMA past its dirty line -------------------------------------------------------------------
def _own_copy(out, direction, dcci):
    (g,) = _globals(out)
    g.SetValue(2, np.float32(7))
    if dcci:
        aj.DataCacheCleanAndInvalid(g, **_DCCI_OUT)
    pipe, buf = scratch(256)
    t = buf.Get("float")
    _flag(aj.HardEvent.S_MTE2)
    _flag(aj.HardEvent.S_MTE3)
    if direction == "in":
        aj.DataCopy(t, g, 16)
    else:
        aj.Duplicate(t, np.float32(1), 8)
        _flag(aj.HardEvent.V_MTE3)
        aj.DataCopy(g[8], t, 8)


@pytest.mark.parametrize("direction, address, nbytes", [("in", 8, 4), ("out", 32, 32)])
@pytest.mark.parametrize("mode", ["report,device-sync", "report,dcache"])
def test_a_copy_of_the_blocks_own_dirty_line(direction, address, nbytes, mode):
    reports = _launch(_own_copy, 1, mode, np.zeros(64, np.float32), direction, False)
    assert _dcache(reports) == [("a DMA access of GM bytes this block's SetValue left in its data cache",
                                 "DataCopy", "SetValue", None, 0, address, nbytes)]
    fix = [r for r in reports if r.check == "dcache"][0].fix
    assert "after the SetValue, before the copy" in fix and "SINGLE_CACHE_LINE" in fix
    assert _dcache(_launch(_own_copy, 1, mode, np.zeros(64, np.float32), direction, True)) == []


def test_a_core_outside_a_launch_checks_its_own_dma():
    out = np.zeros(64, np.float32)
    with aj.Core(DEVICE, sanitize="report,dcache") as core:
        _own_copy(out, "in", False)
    assert [(r.kind, r.address, r.block) for r in core.sanitizer.reports] == [
        ("a DMA access of GM bytes this block's SetValue left in its data cache", 8, None)]
    with pytest.raises(aj.SanitizerError):
        with aj.Core(DEVICE, sanitize="dcache"):
            _own_copy(out, "in", False)


# --- (c) a stale cached line -----------------------------------------------------------------------------------------
def _own_stale(out, fix):
    """A GetValue caches the line, the block's own copy-out writes it, a second GetValue reads the cached copy."""
    (g,) = _globals(out)
    g.GetValue(0)
    pipe, buf = scratch(64)
    t = buf.Get("float")
    aj.Duplicate(t, np.float32(3), 8)
    _flag(aj.HardEvent.V_MTE3)
    aj.DataCopy(g[8], t, 8)
    _flag(aj.HardEvent.MTE3_S)
    if fix == "dcci":
        aj.DataCacheCleanAndInvalid(g, **_DCCI_OUT)
    if fix == "bypass":
        gi = aj.GlobalTensor("int32")
        gi.SetGlobalBuffer(out.view(np.int32), out.size)
        aj.ReadGmByPassDCache(gi[9])
    else:
        g.GetValue(9)


@pytest.mark.parametrize("fix", [None, "dcci", "bypass"])
def test_a_getvalue_after_the_blocks_own_copy_out(fix):
    reports = _launch(_own_stale, 1, "report,device-sync", np.zeros(64, np.float32), fix)
    if fix:
        assert _dcache(reports) == []
        return
    assert _dcache(reports) == [("a GetValue can read a stale data-cache line", "GetValue", "DataCopy", None, 0,
                                 36, 4)]
    fix_text = [r for r in reports if r.check == "dcache"][0].fix
    assert "before the GetValue" in fix_text and "ReadGmByPassDCache" in fix_text


def _other_stale(out, fix):
    """Block 0 caches the line (GetValue of float 0); block 1 copies floats 8-15 out; after the SyncAll block 0
    reads float 9."""
    (g,) = _globals(out)
    b = aj.GetBlockIdx()
    if b == 0:
        g.GetValue(0)
    else:
        pipe, buf = scratch(64)
        t = buf.Get("float")
        aj.Duplicate(t, np.float32(3), 8)
        _flag(aj.HardEvent.V_MTE3)
        aj.DataCopy(g[8], t, 8)
    aj.SyncAll()
    if b == 0:
        if fix == "dcci":
            aj.DataCacheCleanAndInvalid(g, **_DCCI_OUT)
        g.GetValue(9)


@pytest.mark.parametrize("fix", [None, "dcci"])
def test_a_getvalue_of_a_line_another_block_wrote_since_it_was_cached(fix):
    reports = _launch(_other_stale, 2, "report,device-sync", np.zeros(64, np.float32), fix)
    if fix:
        assert _dcache(reports) == []
        return
    assert _dcache(reports) == [("a GetValue can read a stale data-cache line", "GetValue", "DataCopy", 1, 0, 36,
                                 4)]
    assert "after the SyncAll" in [r for r in reports if r.check == "dcache"][0].fix
    report = _raised(_other_stale, 2, np.zeros(64, np.float32), None, mode="device-sync")
    assert (report.check, report.instruction.api, report.earlier.api) == ("dcache", "GetValue", "DataCopy")


# --- (d) two blocks write one line in one phase ---------------------------------------------------------------------
@pytest.mark.parametrize("stride, fix", [(1, None), (1, "single"), (16, None), (4, "bypass")])
def test_two_blocks_setvalue_one_line(stride, fix):
    """The page's example 3: different bytes of one line, random even with DataCacheCleanAndInvalid; 64-byte slots
    or WriteGmByPassDCache do not share a written-back line."""
    out = np.zeros(64, np.float32)
    reports = _launch(_slots, 4, "report,device-sync", out, fix, stride)
    shared = [r for r in reports if r.kind == "two blocks write one 64-byte GM cache line"]
    if stride == 16 or fix == "bypass":
        assert shared == []
        return
    assert [(r.instruction.api, r.earlier.api, r.earlier.block, r.block, r.address, r.nbytes) for r in shared] == [
        ("SetValue", "SetValue", 0, 1, 4, 4), ("SetValue", "SetValue", 0, 2, 8, 4), ("SetValue", "SetValue", 0, 3, 12,
                                                                                     4)]
    assert "pad the per-block slots to 64 bytes" in shared[0].fix and "in the same SyncAll phase" in str(shared[0])
    report = _raised(_slots, 4, np.zeros(64, np.float32), fix, stride)
    assert (report.check, report.kind) == ("dcache", "two blocks write one 64-byte GM cache line")


def test_the_same_bytes_are_the_blocks_checks_report():
    def kernel(out):
        (g,) = _globals(out)
        g.SetValue(0, np.float32(aj.GetBlockIdx()))
    reports = _launch(kernel, 2, "report,device-sync", np.zeros(16, np.float32))
    assert [r.check for r in reports] == ["blocks"]


# --- devices, determinism, configuration ----------------------------------------------------------------------------
def test_the_910_has_no_data_cache_to_report():
    """DataCacheCleanAndInvalid is not offered on the 910 (the page's product list): no dcache report there."""
    assert _launch(_own_copy, 1, "report,device-sync", np.zeros(64, np.float32), "in", False,
                   device="atlas-training") == []

    def kernel(out):
        (g,) = _globals(out)
        g.SetValue(aj.GetBlockIdx(), np.float32(1))
    assert _launch(kernel, 4, "report,dcache", np.zeros(64, np.float32), device="atlas-training") == []


def test_report_mode_is_deterministic():
    runs = [[str(r) for r in _launch(_slots, 8, "report,device-sync", np.zeros(256, np.float32), None, 1)]
            for _ in range(2)]
    assert runs[0] == runs[1] and runs[0]


def test_the_check_words():
    resolve = aj.sanitizer.resolve_config
    assert resolve("report").checks == aj.sanitizer.CHECKS
    assert resolve("report,device-sync").checks == aj.sanitizer.CHECKS + ("dcache",)
    assert resolve("race,device-sync").checks == ("race",)   # named checks are exactly those
    assert resolve("dcache").checks == ("dcache",) and not resolve("dcache").device_sync
    assert aj.SanitizeConfig(device_sync=True).checks == aj.sanitizer.ALL_CHECKS


def _reread(out):
    """Block 1 leaves its slot dirty; after the SyncAll block 0 reads it five times in a loop."""
    (g,) = _globals(out)
    if aj.GetBlockIdx() == 1:
        g.SetValue(16, np.float32(2))
    aj.SyncAll()
    if aj.GetBlockIdx() == 0:
        for _ in range(5):
            g.GetValue(16)


def test_a_conflict_met_again_by_a_loop_is_reported_once():
    """review65: each of a loop's reads of the same dirty bytes had its own report (the blocks check gives one)."""
    reports = _launch(_reread, 2, "report,device-sync", np.zeros(64, np.float32))
    assert len(_dcache(reports)) == 1
