"""The sanitizer across the blocks of a launch (sanit13 black-box findings): the "blocks" check with several atomic
writers, reports that name their block and reach a session in block order, and report mode without a session."""
import warnings

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.sanitizer import GM_PAGE_BYTES, PIPE_MTE2, PIPE_MTE3, LaunchShadow, SanitizeConfig

DEVICE = "atlas-a2"


def gm_access(shadow, reports, *access):
    """One access through the shadow; in "report" mode it is checked when the launch ends, so replay it now."""
    shadow.gm_access(*access, reports.append, "kernel.py:1")
    if shadow.config.mode == "report":
        shadow.replay()


@pytest.mark.parametrize("mode", ["raise", "report"])
def test_blocks_check_keeps_every_atomic_writer(mode):
    """Two blocks' atomic adds combine; a third access must still see that another block wrote, whichever block
    wrote last (the shadow kept only the last writer, so a block reading after its own atomic add saw no conflict)."""
    reports = []
    shadow = LaunchShadow(SanitizeConfig(mode=mode))
    gm = np.zeros(64, np.float32)
    gm_access(shadow, reports, 0, "DataCopy", PIPE_MTE3, gm, 0, 16, True, True)
    gm_access(shadow, reports, 1, "DataCopy", PIPE_MTE3, gm, 0, 16, True, True)
    assert reports == []
    gm_access(shadow, reports, 1, "DataCopy", PIPE_MTE2, gm, 0, 16, False, False)    # block 0 added too: a race
    assert [(r.kind, r.address, r.nbytes) for r in reports] == [("a block reads GM bytes another block writes", 0, 16)]
    # several blocks wrote, the reader among them: the report names the other block's write (session 62)
    assert "block 0" in reports[0].fix and reports[0].earlier.pipe == PIPE_MTE3
    reports.clear()
    gm_access(shadow, reports, 2, "DataCopy", PIPE_MTE3, gm, 0, 16, True, False)   # plain, over the adds
    assert [r.kind for r in reports] == ["two blocks write the same GM bytes"]


@pytest.mark.parametrize("mode", ["raise", "report"])
def test_blocks_check_gm_conflicts_atomics_and_syncall(mode):
    reports = []
    shadow = LaunchShadow(SanitizeConfig(mode=mode))
    gm = np.zeros(64, np.float32)
    gm_access(shadow, reports, 0, "DataCopy", PIPE_MTE3, gm, 0, 64, True, False)
    gm_access(shadow, reports, 1, "DataCopy", PIPE_MTE3, gm[8:], 0, 32, True, False)   # over block 0's 32..63
    assert [(r.check, r.address, r.nbytes) for r in reports] == [("blocks", 32, 32)]
    reports.clear()
    shadow = LaunchShadow(SanitizeConfig(mode=mode))
    gm_access(shadow, reports, 0, "DataCopy", PIPE_MTE3, gm, 0, 4, True, True)
    gm_access(shadow, reports, 1, "DataCopy", PIPE_MTE3, gm, 0, 4, True, True)          # both atomic: fine
    assert reports == []
    gm_access(shadow, reports, 1, "DataCopy", PIPE_MTE3, gm, 64, 4, True, False)
    shadow.sync_all(0), shadow.sync_all(1)
    gm_access(shadow, reports, 0, "DataCopy", PIPE_MTE2, gm, 64, 4, False, False)       # after SyncAll: ordered
    assert reports == []
    gm_access(shadow, reports, 1, "DataCopy", PIPE_MTE3, gm, 128, 4, True, False)
    gm_access(shadow, reports, 0, "DataCopy", PIPE_MTE2, gm, 128, 4, False, False)      # same phase: a race
    assert [r.kind for r in reports] == ["a block reads GM bytes another block writes"]



@pytest.mark.parametrize("mode", ["raise", "report"])
def test_gm_shadow_pays_for_the_pages_touched_and_checks_across_them(mode):
    """The GM shadow took 17 bytes per byte of every GM array a launch touched (a 16 MiB workspace: 280 MB for one
    access); it is now made per page on first touch. Conflicts across a page boundary are found whole."""
    reports = []
    shadow = LaunchShadow(SanitizeConfig(mode=mode))
    gm = np.zeros(1 << 24, np.uint8)
    page = GM_PAGE_BYTES
    gm_access(shadow, reports, 0, "DataCopy", PIPE_MTE3, gm, page - 8, 16, True, False)
    gm_access(shadow, reports, 1, "DataCopy", PIPE_MTE2, gm, page - 4, 8, False, False)
    gm_access(shadow, reports, 1, "DataCopy", PIPE_MTE2, gm, page + 4, 8, False, False)
    assert [(r.kind, r.address, r.nbytes) for r in reports] == [
        ("a block reads GM bytes another block writes", page - 4, 8),
        ("a block reads GM bytes another block writes", page + 4, 4)]
    reports.clear()
    gm_access(shadow, reports, 2, "DataCopy", PIPE_MTE3, gm, page - 16, 32, True, False)
    assert [(r.kind, r.address, r.nbytes) for r in reports] == [("two blocks write the same GM bytes", page - 8, 20)]
    assert sorted(shadow.arrays[id(gm)][1]) == [0, 1]    # two pages of the 256


def _one_writer_three_readers(gm, writer):
    t = aj.LocalMemAllocator().Alloc("float", 64)
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(gm, 64)
    if aj.GetBlockIdx() == writer:
        t[:] = np.ones(64, np.float32)
        aj.DataCopy(g, t, 64)
    else:
        aj.DataCopy(t, g, 64)


@pytest.mark.parametrize("writer, expected", [
    (0, [(1, "PIPE_MTE2"), (2, "PIPE_MTE2"), (3, "PIPE_MTE2")]),   # each reader after block 0's write
    (3, [(3, "PIPE_MTE3")]),                                       # the write, after blocks 0-2 read
])
def test_report_mode_blocks_reports_do_not_follow_the_timing(writer, expected):
    """Which access of a conflicting pair was reported (and so how many reports a launch gave) followed the order in
    which the host ran the blocks: a serial launch in another block order, or threads, gave other reports. Report
    mode now checks GM accesses at the end of the launch in (SyncAll phase, block, program order)."""
    seen = set()
    runs = [dict(parallel=False), dict(parallel=False, atomic_order="shuffle", seed=0),
            dict(parallel=False, atomic_order="shuffle", seed=3)] + [dict(parallel=True)] * 4
    for kw in runs:
        with aj.sanitize_session("report") as session:
            aj.launch(_one_writer_three_readers, 4, DEVICE, np.zeros(64, np.float32), writer, **kw)
        got = [(r.block, r.instruction.pipe) for r in session.reports]
        assert {r.check for r in session.reports} == {"blocks"} and all(r.address == 0 for r in session.reports)
        assert all(r.instruction.where.startswith("test_sanitizer_launch.py:") for r in session.reports)
        seen.add(tuple(got))
    assert seen == {tuple(expected)}


def _accumulate_then_read(x, acc, out, reader):
    b = aj.GetBlockIdx()
    xg, ag, og = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
    xg.SetGlobalBuffer(x[64 * b:], 64)
    ag.SetGlobalBuffer(acc, 64)
    og.SetGlobalBuffer(out, 64)
    t = aj.LocalMemAllocator().Alloc("float", 64)
    aj.DataCopy(t, xg, 64)
    aj.SetFlag(0, event=aj.HardEvent.MTE2_MTE3)
    aj.WaitFlag(0, event=aj.HardEvent.MTE2_MTE3)
    aj.SetAtomicAdd("float")
    aj.DataCopy(ag, t, 64)
    aj.SetAtomicNone()
    if b == reader:      # no SyncAll: the other blocks' adds may not have landed yet
        aj.SetFlag(0, event=aj.HardEvent.MTE3_MTE2)
        aj.WaitFlag(0, event=aj.HardEvent.MTE3_MTE2)
        aj.DataCopy(t, ag, 64)
        aj.SetFlag(0, event=aj.HardEvent.MTE2_MTE3)
        aj.WaitFlag(0, event=aj.HardEvent.MTE2_MTE3)
        aj.DataCopy(og, t, 64)


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("reader", [0, 3])
def test_read_of_other_blocks_atomic_adds_without_syncall_is_reported(parallel, reader):
    """The last block reading the accumulator after its own atomic add (in serial launches always) was not reported."""
    x = np.arange(256, dtype=np.float32)
    for _ in range(3 if parallel else 1):
        acc, out = np.zeros(64, np.float32), np.zeros(64, np.float32)
        with aj.sanitize_session("report") as session:
            aj.launch(_accumulate_then_read, 4, DEVICE, x, acc, out, reader, parallel=parallel)
        assert session.reports and {r.check for r in session.reports} == {"blocks"}


def _race_in_every_block(x):
    t = aj.LocalMemAllocator().Alloc("half", 128)
    aj.DataCopy(t, aj.GlobalTensor(x), 128)
    aj.Adds(t, t, 1.0, 128)          # no MTE2_V: each block reports
    aj.PipeBarrier(aj.PIPE_ALL)


def test_reports_name_their_block_and_reach_the_session_in_block_order():
    """Blocks run in threads, so their reports used to reach the session interleaved, and identical reports of
    different blocks could not be told apart."""
    x = np.arange(128, dtype=np.float16)
    for _ in range(3):
        with aj.sanitize_session("report") as session:
            aj.launch(_race_in_every_block, 4, DEVICE, x)
        assert [r.block for r in session.reports] == [0, 0, 1, 1, 2, 2, 3, 3]
        assert "block 2 of 4" in str(session.reports[4]) and session.reports[4].to_dict()["block"] == 2
    with aj.Core(DEVICE, sanitize="report") as core:     # a core outside a launch: no block
        t = core.local_tensor("half", 128)
        aj.Adds(t, t, 1.0, 128)
    [rep] = core.sanitizer.reports
    assert rep.block is None and "block" not in str(rep)


def test_launch_in_report_mode_without_a_session_warns_with_the_reports(monkeypatch):
    """aj.launch(..., sanitize="report") outside a sanitize_session used to drop every report with the block cores."""
    from ascend_jit import sanitizer
    monkeypatch.setattr(sanitizer, "_sessions", [])   # outside every session, --ascend-sanitize's own included
    x = np.arange(128, dtype=np.float16)
    # the two blocks' identical races grouped (format_reports): block 0's line, then how many and which blocks
    with pytest.warns(aj.SanitizerWarning, match=r"(?s)block 0 of 2.*blocks 0-1.*sanitizer: 4 race"):
        aj.launch(_race_in_every_block, 2, DEVICE, x, sanitize="report")
    with aj.sanitize_session("report") as session:         # a session collects them instead: no warning
        aj.launch(_race_in_every_block, 2, DEVICE, x, sanitize="report")
    assert len(session.reports) == 4


def _scalar_gm(g, fixed):
    gg = aj.GlobalTensor()
    gg.SetGlobalBuffer(g, 16)
    if aj.GetBlockIdx() == 1:
        gg.SetValue(0, np.float32(1.0))
    if fixed:
        aj.SyncAll()
    return gg.GetValue(0)


def test_blocks_check_sees_gm_getvalue_and_setvalue():
    """The scalar unit's GM accesses (GlobalTensor GetValue / SetValue: tiling words, scalar kernels) are GM traffic
    like DataCopy's; another block's SetValue read with no SyncAll between was not reported."""
    with aj.sanitize_session("report") as session:
        aj.launch(_scalar_gm, 2, DEVICE, np.zeros(16, np.float32), False, parallel=False)
    [rep] = session.reports
    assert (rep.check, rep.space, rep.address, rep.nbytes) == ("blocks", "GM", 0, 4)
    assert rep.instruction.pipe == "PIPE_S" and rep.instruction.api in ("GetValue", "SetValue")
    with aj.sanitize_session("report") as session:
        aj.launch(_scalar_gm, 2, DEVICE, np.zeros(16, np.float32), True)
    assert session.reports == []
    g = np.zeros(16, np.float32)
    with pytest.raises(aj.SanitizerError, match="block 1 of 2: sanitizer: .blocks. .*SetValue .PIPE_S."):
        aj.launch(_scalar_gm, 2, DEVICE, g, False, parallel=False, sanitize=True)
    assert g[0] == 0      # the reported SetValue wrote nothing


def test_datacopypad_random_filler_is_uninitialised():
    """SPEC-2 D56: with pads and neither isPad nor SetPadValue the doc calls the filler random (the emulator's 0xCD
    poison); computing over it read garbage with no report. isPad's paddingValue and a SetPadValue are defined."""
    def run(is_pad, set_pad):
        with aj.Core(DEVICE, sanitize="report") as core:
            t, u = core.local_tensor("half", 128), core.local_tensor("half", 128)
            x = aj.GlobalTensor(np.arange(128, dtype=np.float16))
            if set_pad:
                aj.SetPadValue(np.float16(0))
            aj.DataCopyPad(t, x, aj.DataCopyExtParams(1, 200, 0, 0, 0), aj.DataCopyPadExtParams(is_pad, 0, 4, 0))
            aj.PipeBarrier(aj.PIPE_ALL)
            aj.Adds(u, t, 1.0, 112)          # the 100 copied halves, 4 pads, 8 dummies
        return [(r.check, r.operand, r.address - t.addr, r.nbytes) for r in core.sanitizer.reports]
    assert run(False, False) == [("init", "src", 200, 24)]
    assert run(True, False) == [] and run(False, True) == []


@pytest.mark.parametrize("mode", ["raise", "report"])
@pytest.mark.parametrize("other_atomic", [True, False])
def test_plain_write_then_own_atomic_write_still_clashes_with_another_blocks_write(mode, other_atomic):
    """port15 (ops-math ReduceMaxV2, axes -1): core 0 fills the workspace with -inf (InitGlobalMemory, a plain copy)
    and atomically maxes its own value into it; core 1's atomic max in the same SyncAll phase may land before the fill
    and be overwritten. Block 0's own atomic write replaced its plain one in the shadow (atomic over atomic: no clash),
    so the race went unreported."""
    reports = []
    shadow = LaunchShadow(SanitizeConfig(mode=mode))
    gm = np.zeros(64, np.float32)
    gm_access(shadow, reports, 0, "InitGlobalMemory", PIPE_MTE3, gm, 0, 64, True, False)
    gm_access(shadow, reports, 0, "DataCopy", PIPE_MTE3, gm, 0, 32, True, True)
    assert reports == []
    gm_access(shadow, reports, 1, "DataCopy", PIPE_MTE3, gm, 0, 32, True, other_atomic)
    assert [(r.kind, r.address, r.nbytes) for r in reports] == [("two blocks write the same GM bytes", 0, 32)]


def _init_then_atomic_max(work, x, sync_after_init):
    pipe = aj.TPipe()
    ws = aj.GlobalTensor()
    ws.SetGlobalBuffer(work, 8)
    if aj.GetBlockIdx() == 0:
        aj.InitGlobalMemory(ws, 8, np.float32(-np.inf))
    if sync_after_init:
        aj.SyncAll()
    que = aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(que, 1, 32)
    t = que.AllocTensor("float")
    aj.Duplicate(t, np.float32(x[aj.GetBlockIdx()]), 8)
    que.EnQue(t)
    t = que.DeQue("float")
    aj.SetAtomicMax("float")
    aj.DataCopy(ws, t, 8)
    aj.SetAtomicNone()
    que.FreeTensor(t)


@pytest.mark.parametrize("sync_after_init", [False, True])
def test_init_global_memory_racing_other_blocks_atomic_max_is_reported(sync_after_init):
    work = np.zeros(8, np.float32)
    with aj.sanitize_session("report") as session:
        aj.launch(_init_then_atomic_max, 4, DEVICE, work, np.arange(4, dtype=np.float32), sync_after_init)
    assert work.tolist() == [3.0] * 8
    kinds = {(r.check, r.kind) for r in session.reports}
    # without the SyncAll, block 0's queue buffer also reuses InitGlobalMemory's stack buffer at UB byte 0 while its
    # MTE3 copy may still read it: a buffer's first AllocTensor orders nothing (session 63, port63j)
    assert kinds == (set() if sync_after_init else {("blocks", "two blocks write the same GM bytes"),
                                                    ("race", "WAR")})
    if not sync_after_init:
        [race] = [r for r in session.reports if r.check == "race"]
        assert race.instruction.api == "Duplicate" and race.earlier.api.startswith("InitGlobalMemory")


def _add_or_max_into(acc, second_op, sync_between):
    """Block 0 adds 3 into acc atomically, block 1 combines 2 into it with `second_op`, a SyncAll between or not."""
    block = aj.GetBlockIdx()
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(acc, 8)
    t = aj.LocalMemAllocator().Alloc("float", 8)
    t[:] = np.full(8, 3.0 if block == 0 else 2.0, np.float32)
    if sync_between and block == 1:
        aj.SyncAll()
    (aj.SetAtomicAdd if block == 0 else second_op)("float")
    aj.DataCopy(g, t, 8)
    aj.SetAtomicNone()
    if sync_between and block == 0:
        aj.SyncAll()


@pytest.mark.parametrize("second_op, sync_between, reported", [
    (aj.SetAtomicMax, False, True),   # 1 + 3 then max 2 is 4, max 2 then + 3 is 5: the order matters
    (aj.SetAtomicMax, True, False),   # the report's fix: a SyncAll between them
    (aj.SetAtomicAdd, False, False),  # two adds combine in either order
])
def test_two_blocks_atomic_writes_of_different_operations_are_a_race(second_op, sync_between, reported):
    """Session-25 sanitizer audit: two blocks' atomic copy-outs into the same GM bytes in one SyncAll phase combine
    only under one atomic operation; an Add and a Max were taken as combining and not reported."""
    acc = np.ones(8, np.float32)
    with aj.sanitize_session("report") as session:
        aj.launch(_add_or_max_into, 2, DEVICE, acc, second_op, sync_between)   # report mode: replayed in order
    assert [(r.check, r.kind) for r in session.reports] == (
        [("blocks", "two blocks write the same GM bytes")] if reported else [])
    assert acc.tolist() == [6.0 if second_op is aj.SetAtomicAdd else 4.0] * 8


def test_strict_one_core_atomic_add_then_max_over_the_same_gm_needs_a_mte3_barrier():
    """"strict": overlapping UB -> GM copies need PipeBarrier<PIPE_MTE3> unless both are atomic with one operation."""
    gm = np.ones(16, np.float32)
    with aj.Core(DEVICE, sanitize="report,strict") as core:
        t = aj.LocalMemAllocator().Alloc("float", 8)
        t[:] = 3
        g = aj.GlobalTensor(gm)
        for second in (aj.SetAtomicAdd, aj.SetAtomicMax):
            aj.SetAtomicAdd("float")
            aj.DataCopy(g, t, 8)
            second("float")
            aj.DataCopy(g, t, 8)
            aj.SetAtomicNone()
            aj.PipeBarrier(aj.PIPE_MTE3)
    reports = core.sanitizer.reports
    assert [(r.check, r.kind) for r in reports] == [("race", "WAW")]
    assert reports[0].instruction.api == "DataCopy" and reports[0].address == 0 and reports[0].nbytes == 32


@pytest.mark.ascend_sanitize(checks="", reason="counts the warnings of its own sanitize_session")
def test_an_explicit_sanitize_false_inside_a_session_warns_once():
    """port53b, port53c, port53f: a port's helper defaulting to `sanitize=False` passed it on to aj.launch inside
    aj.sanitize_session, and every run said "no reports"; the explicit value still wins, with one warning per
    session. Left out (or None), the launch sanitizes with the session's configuration, silently."""
    def kernel():
        pass

    with aj.sanitize_session("report"):
        with pytest.warns(aj.SanitizerWarning, match=r"aj.launch\(sanitize=False\) inside aj.sanitize_session runs "
                                                     r"unsanitized") as caught:
            aj.launch(kernel, 1, "atlas-a2", sanitize=False)
            aj.launch(kernel, 1, "atlas-a2", sanitize="off")
        assert len(caught) == 1 and caught[0].filename == __file__
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            aj.launch(kernel, 1, "atlas-a2")
            aj.launch(kernel, 1, "atlas-a2", sanitize=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        aj.launch(kernel, 1, "atlas-a2", sanitize=False)   # no session: nothing to override
        with aj.sanitize_session(False):                   # a session that does not sanitize: neither
            aj.launch(kernel, 1, "atlas-a2", sanitize=False)


def _line(marker):
    """This file's line holding `marker`, as a report's `where` names it."""
    with open(__file__) as f:
        return next(f"test_sanitizer_launch.py:{n}" for n, text in enumerate(f, 1) if marker in text)


def _zero_fill_then_atomic_add(rstd, acc, own, variant):
    """ops-nn GemmaRmsNorm's 310P path (session 62): block 0 zero-fills rstd plainly, block 1 adds its value into the
    same bytes atomically; variant "B" zero-fills them plainly itself first. Correct patterns beside it: both blocks'
    atomic adds into acc, each block's plain-then-atomic over its own slice of `own`, a plain rewrite after SyncAll."""
    block = aj.GetBlockIdx()
    g_rstd, g_acc, g_own = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
    g_rstd.SetGlobalBuffer(rstd, 8)
    g_acc.SetGlobalBuffer(acc, 8)
    g_own.SetGlobalBuffer(own[8 * block:], 8)
    t = aj.LocalMemAllocator().Alloc("float", 8)
    t[:] = np.full(8, block + 1, np.float32)
    if block == 0:
        aj.DataCopy(g_rstd, t, 8)                         # block 0's fill
    else:
        if variant == "B":
            aj.DataCopy(g_rstd, t, 8)                     # block 1's own fill
            aj.PipeBarrier(aj.PIPE_ALL)
        aj.SetAtomicAdd("float")
        aj.DataCopy(g_rstd, t, 8)                         # block 1's atomic add
        aj.SetAtomicNone()
    aj.SetAtomicAdd("float")
    aj.DataCopy(g_acc, t, 8)
    aj.SetAtomicNone()
    aj.DataCopy(g_own, t, 8)
    aj.PipeBarrier(aj.PIPE_ALL)
    aj.SetAtomicAdd("float")
    aj.DataCopy(g_own, t, 8)
    aj.SetAtomicNone()
    aj.SyncAll()
    if block == 1:
        aj.DataCopy(g_rstd, t, 8)


@pytest.mark.parametrize("variant", ["A", "B"])
def test_an_atomic_add_after_its_own_plain_write_still_races_another_blocks_plain_write(variant):
    """Session 62 (GemmaRmsNorm, 310P): the shadow kept the last writer per byte, so in variant B block 1's own
    plain write replaced block 0's and its atomic add after it was not reported (only the plain-vs-plain pair was);
    and a blocks report named no earlier access (`earlier` None). Both reports name block 0's fill, whatever the
    threads' timing; the correct patterns beside them stay clean."""
    fill, own_fill, add = _line("# block 0's fill"), _line("# block 1's own fill"), _line("# block 1's atomic add")
    expected = ([(own_fill, "block 1 and block 0 write these bytes")] if variant == "B" else []) + [
        (add, "block 1's write is an atomic add of float and block 0's a plain write")]
    for _ in range(3):   # SyncAll: the blocks run in threads
        with aj.sanitize_session("report") as session:
            aj.launch(_zero_fill_then_atomic_add, 2, DEVICE, np.zeros(8, np.float32), np.zeros(8, np.float32),
                      np.zeros(16, np.float32), variant)
        got = [(r.instruction.where, r.fix[:len(fix)]) for r, (_, fix) in zip(session.reports, expected)]
        assert got == expected
        assert all((r.check, r.kind, r.block, r.address, r.nbytes) == ("blocks", "two blocks write the same GM bytes",
                                                                       1, 0, 32) for r in session.reports)
        assert {(r.earlier.api, r.earlier.pipe, r.earlier.where) for r in session.reports} == {
            ("DataCopy", PIPE_MTE3, fill)}


@pytest.mark.parametrize("mode", ["raise", "report"])
def test_a_blocks_report_names_the_other_blocks_conflicting_access(mode):
    """Both modes ("raise" checks as the accesses come, "report" at the end of the launch): the earlier access is
    the other block's, not the reporting block's own plain write in between, and an atomic add of the same
    operation by a third block, which combines with the reporting one, is not the one named."""
    reports = []
    shadow = LaunchShadow(SanitizeConfig(mode=mode))
    gm = np.zeros(16, np.float32)
    gm_access(shadow, reports, 0, "fill", PIPE_MTE3, gm, 0, 64, True, False)
    gm_access(shadow, reports, 2, "add of block 2", PIPE_MTE3, gm, 0, 64, True, True)
    reports.clear()
    gm_access(shadow, reports, 1, "own fill", PIPE_MTE3, gm, 0, 32, True, False)
    gm_access(shadow, reports, 1, "add of block 1", PIPE_MTE3, gm, 0, 32, True, True)
    assert [(r.instruction.api, r.earlier.api, r.earlier.pipe, r.earlier.where) for r in reports] == [
        ("own fill", "add of block 2", PIPE_MTE3, "kernel.py:1"), ("add of block 1", "fill", PIPE_MTE3, "kernel.py:1")]
    assert "block 0's a plain write" in reports[1].fix


def _copy_twice(x, order):
    """Two GM -> UB copies into the same bytes; `order` says what the scalar unit does between them."""
    g = aj.GlobalTensor("float")
    g.SetGlobalBuffer(x, 64)
    pipe, buf = aj.TPipe(), aj.TBuf(aj.TPosition.VECCALC)
    pipe.InitBuffer(buf, 256)
    t = buf.Get("float")
    params, pad = aj.DataCopyExtParams(1, 256, 0, 0, 0), aj.DataCopyPadExtParams(False, 0, 0, 0)
    aj.DataCopyPad(t, g, params, pad)
    if order in ("wait", "set_only"):
        aj.SetFlag(0, event=aj.HardEvent.MTE2_S)
    if order == "wait":
        aj.WaitFlag(0, event=aj.HardEvent.MTE2_S)
        t.GetValue(0)
    aj.DataCopyPad(t, g, params, pad)
    if order == "set_only":
        aj.WaitFlag(0, event=aj.HardEvent.MTE2_S)


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
@pytest.mark.parametrize("order, reported", [("wait", 0), ("set_only", 1), ("nothing", 1)])
def test_strict_a_scalar_wait_orders_the_pipes_it_saw_complete(device, order, reported):
    """port63e (ops-math Segsum's arch35 LoadX): the scalar unit waits for a copy (MTE2_S), reads it, then issues a
    second copy into the same bytes. It issues that copy after the first completed, so "strict" has no MTE2 WAW to
    report; with the flag set but not yet waited, or none, it does (SPEC-2 10.4: PipeBarrier<PIPE_MTE2>)."""
    with aj.sanitize_session("report,strict") as session:
        aj.launch(_copy_twice, 1, device, np.arange(64, dtype=np.float32), order)
    waws = [r for r in session.reports if r.kind == "WAW"]
    assert len(waws) == reported, [r.text(False) for r in session.reports]
    assert len(session.reports) == reported


def _alloc_five_event_ids(x):
    pipe = aj.TPipe()
    for event in (aj.HardEvent.MTE2_V, aj.HardEvent.MTE3_V, aj.HardEvent.V_MTE2, aj.HardEvent.V_MTE3,
                  aj.HardEvent.MTE3_MTE2):
        event_id = pipe.AllocEventID(event)
        aj.SetFlag(event_id, event=event)
        aj.WaitFlag(event_id, event=event)


def test_every_event_id_never_released_is_reported_when_events_share_the_id():
    """port63f (ops-cv RoiAlignRotatedGrad): five AllocEventIDs of five events, each id 0, none released, gave one
    report: the reports' de-duplication key (check, kind, space, address, ...) took the shared id for one conflict."""
    with aj.sanitize_session("report") as session:
        aj.launch(_alloc_five_event_ids, 1, "atlas-a2", np.zeros(8, np.float32))
    assert sorted(r.operand for r in session.reports if r.kind == "event id never released") == [
        "MTE2_V", "MTE3_MTE2", "MTE3_V", "V_MTE2", "V_MTE3"]


def _write_then_queue(x, free_first):
    """A vector write of UB bytes 0-255, then a queue's buffer there and an MTE2 copy into it, no flag between; with
    free_first, the queue's tensor is allocated, freed and allocated again before the copy."""
    xg = aj.GlobalTensor("float")
    xg.SetGlobalBuffer(x, 64)
    pipe = aj.TPipe()
    aj.Duplicate(aj.LocalTensor(aj.TPosition.VECCALC, 0, 64, dtype="float"), np.float32(1.0), 64)
    que = aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(que, 1, 256)
    t = que.AllocTensor("float")
    if free_first:
        que.FreeTensor(t)
        t = que.AllocTensor("float")
    aj.DataCopy(t, xg, 64)
    que.EnQue(t)
    que.FreeTensor(que.DeQue("float"))


@pytest.mark.parametrize("free_first", [False, True])
def test_a_queue_buffers_first_alloc_tensor_orders_nothing(free_first):
    """port63j: a buffer's first AllocTensor after InitBuffer waits on no event on the device, so it does not order
    the earlier Duplicate of its bytes (SPEC-2 10.4 counts EnQue/DeQue; decisions.md: AllocTensor after FreeTensor);
    it had hidden the WAW. After a FreeTensor the AllocTensor is the queue's hand-off, as before."""
    with aj.sanitize_session("report") as session:
        aj.launch(_write_then_queue, 1, "atlas-a2", np.arange(64, dtype=np.float32), free_first)
    got = [(r.kind, r.instruction.api, r.earlier.api) for r in session.reports]
    assert got == ([] if free_first else [("WAW", "DataCopy", "Duplicate")])


def _veccalc_free_then_copy(x, y):
    xg, yg = aj.GlobalTensor("float"), aj.GlobalTensor("float")
    xg.SetGlobalBuffer(x, 64)
    yg.SetGlobalBuffer(y, 64)
    pipe, calc, out = aj.TPipe(), aj.TQue(aj.TPosition.VECCALC, 1), aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(calc, 1, 256)
    pipe.InitBuffer(out, 1, 256)
    t = calc.AllocTensor("float")
    aj.DataCopy(t, xg, 64)
    aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
    o = out.AllocTensor("float")
    aj.Adds(o, t, np.float32(1), 64)
    calc.FreeTensor(t)
    t = calc.AllocTensor("float")
    aj.DataCopy(t, xg, 64)
    out.EnQue(o)
    o = out.DeQue("float")
    aj.DataCopy(yg, o, 64)
    out.FreeTensor(o)
    calc.FreeTensor(t)


@pytest.mark.parametrize("mode, expected", [("report", []), ("report,device-sync", [("WAR", "DataCopy", "Adds")])])
def test_device_sync_veccalc_queue_free_orders_only_mte3_before_mte2(mode, expected):
    """port63k: the devkit's TQue<VECCALC> events are UB -> UB's (GetBufferLogicPos(VECCALC) is MAX, GetPhyType(MAX)
    UB): its FreeTensor -> AllocTensor is MTE3_MTE2 on the device and leaves a PIPE_V read before the next copy-in
    unordered; "device-sync" had kept the SPEC's hand-off for VECCALC queues. The default model keeps it."""
    with aj.sanitize_session(mode) as session:
        aj.launch(_veccalc_free_then_copy, 1, "atlas-a2", np.arange(64, dtype=np.float32), np.zeros(64, np.float32))
    assert [(r.kind, r.instruction.api, r.earlier.api) for r in session.reports] == expected


def _reused_queue_bytes(x, depth, rebind):
    """Review of session 63: a VECIN queue's tensor read by a vector op and freed; the queue given new buffers
    (rebind) and the pipe Reset; a new queue of `depth` over the old bytes (after a Duplicate of them when the pipe
    is not reset) and an MTE2 copy into its first tensor."""
    xg = aj.GlobalTensor("float")
    xg.SetGlobalBuffer(x, 64)
    pipe = aj.TPipe()
    que = aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(que, 1, 256)
    t = que.AllocTensor("float")
    aj.DataCopy(t, xg, 64)
    que.EnQue(t)
    t = que.DeQue("float")
    scratch = aj.TBuf(aj.TPosition.VECCALC)
    pipe.InitBuffer(scratch, 256)
    aj.Adds(scratch.Get("float"), t, np.float32(1), 64)
    que.FreeTensor(t)
    if rebind:
        pipe.InitBuffer(que, 1, 256)   # new buffers past the others; TPipe::Reset still waits on the old slot's event
    pipe.Reset()
    second = aj.TQue(aj.TPosition.VECIN, depth)
    pipe.InitBuffer(second, 1, 256)
    u = second.AllocTensor("float")
    aj.DataCopy(u, xg, 64)
    second.EnQue(u)
    second.FreeTensor(second.DeQue(u) if depth == 0 else second.DeQue("float"))


@pytest.mark.parametrize("depth, rebind", [(1, False), (1, True), (0, True)])
def test_reset_waits_on_a_rebound_queues_old_buffers_and_depth_0_buffers_start_freed(depth, rebind):
    """Review of session 63: TPipe::Reset waits on every slot's free event, the slots of a queue's earlier InitBuffer
    included (they had been dropped, so the Adds read raced the copy into the reused bytes); a depth-0 queue's
    InitBuffer sets its buffers' free events, so its first AllocTensor orders like one after a FreeTensor."""
    for mode in ("report", "report,device-sync"):
        with aj.sanitize_session(mode) as session:
            aj.launch(_reused_queue_bytes, 1, "atlas-a2", np.arange(64, dtype=np.float32), depth, rebind)
        assert session.reports == [], (mode, aj.format_reports(session.reports))


def _bind_same_position(x):
    xg = aj.GlobalTensor("float")
    xg.SetGlobalBuffer(x, 64)
    pipe, que, scratch = aj.TPipe(), aj.TQueBind(aj.TPosition.VECIN, aj.TPosition.VECIN, 1), aj.TBuf()
    pipe.InitBuffer(que, 1, 256)
    pipe.InitBuffer(scratch, 256)
    t = que.AllocTensor("float")
    aj.DataCopy(t, xg, 64)
    aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
    aj.Adds(scratch.Get("float"), t, np.float32(1), 64)
    que.FreeTensor(t)
    t = que.AllocTensor("float")
    aj.DataCopy(t, xg, 64)
    que.FreeTensor(t)


def test_device_sync_tquebind_of_one_position_uses_ub_to_ub_events():
    """Review of session 63: TQueBind<VECIN, VECIN> takes its events from both positions' memories (UB -> UB: freed
    MTE3_MTE2), not TQue<VECIN>'s GM -> VECIN pair, so a vector read before its FreeTensor races the next copy-in."""
    with aj.sanitize_session("report,device-sync") as session:
        aj.launch(_bind_same_position, 1, "atlas-a2", np.arange(64, dtype=np.float32))
    assert [(r.kind, r.instruction.api, r.earlier.api) for r in session.reports] == [("WAR", "DataCopy", "Adds")]
