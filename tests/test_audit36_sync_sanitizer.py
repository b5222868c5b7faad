"""Independent-model audit of SPEC-2 10 (session 36, audit36f): the flag state and refusals of D62 (10.3) and the
hazard detector of 10.4, on small kernels written as Ascend C ports are (LocalMemAllocator or TPipe/TQue tensors,
DataCopy GM <-> UB, vector instructions, GetValue/SetValue on the scalar pipe, SetFlag/WaitFlag with each HardEvent,
PipeBarrier, TQue hand-offs, SyncAll and atomics across blocks). Every expectation is derived from the SPEC text
(and the project choices of docs/decisions.md "Sanitizer" where the SPEC is silent or the project deviates, marked
so), not from the implementation: the exact set of reports (check, kind, later instruction and pipe, earlier
instruction and pipe, UB byte, byte count) or the exact refusal."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ascend_jit as aj
from nested_pytest import LEAN_SESSION

pytestmark = pytest.mark.ascend_sanitize(checks="", reason="each test sets its own sanitizer mode")

A2 = "atlas-a2"
H = "half"
N = 128                       # halves per tile: 256 bytes, 8 DataBlocks
NB = N * 2


def _gm(n=N, start=0):
    return aj.GlobalTensor(np.arange(start, start + n, dtype=np.float16))


def _out(n=N):
    return aj.GlobalTensor(np.zeros(n, np.float16))


def _tiles(*sizes, dtype=H):
    alloc = aj.LocalMemAllocator()
    return [alloc.Alloc(dtype, n) for n in sizes]


def _host(t, value=1.0):
    t[:] = np.full(t.size, value, t.numpy().dtype)


def _flag(event, event_id=0):
    aj.SetFlag(event_id, event=getattr(aj.HardEvent, event))
    aj.WaitFlag(event_id, event=getattr(aj.HardEvent, event))


def _summary(reports):
    return [(r.check, r.kind, r.instruction.api, r.instruction.pipe,
             r.earlier.api if r.earlier else None, r.earlier.pipe if r.earlier else None, r.address, r.nbytes)
            for r in reports]


def _run(kernel, sanitize="report", device=A2):
    """Run kernel(core) on a fresh sanitizing core; return (summary of its reports, what the kernel returned)."""
    with aj.Core(device, sanitize=sanitize) as core:
        result = kernel(core)
    return _summary(core.sanitizer.reports), result


# =================================================================================================================
# 10.4 every pipe pair: the hazard without its ordering event (kind, both pipes, byte range), none with it
# =================================================================================================================
def _mte2_then_v(fix):        # RAW: a copy-in read by a vector instruction
    def kernel(core):
        x, z = _tiles(N, N)
        aj.DataCopy(x, _gm(), N)
        fix()
        aj.Add(z, x, x, N)
        return x.addr
    return kernel


def _v_then_mte3(fix):        # RAW: a vector result copied out
    def kernel(core):
        x, = _tiles(N)
        aj.Duplicate(x, 1.0, N)
        fix()
        aj.DataCopy(_out(), x, N)
        return x.addr
    return kernel


def _v_then_s(fix):           # RAW: a vector result read by the scalar unit (one half: 2 bytes)
    def kernel(core):
        x, = _tiles(N)
        aj.Duplicate(x, 1.0, N)
        fix()
        x.GetValue(3)
        return x.addr + 6
    return kernel


def _s_then_v(fix):           # RAW: a scalar write read by a vector instruction
    def kernel(core):
        x, z = _tiles(N, N)
        _host(x)
        x.SetValue(5, 2.0)
        fix()
        aj.Add(z, x, x, N)
        return x.addr + 10
    return kernel


def _mte3_then_mte2(fix):     # WAR: a buffer copied out, then reused for the next copy-in
    def kernel(core):
        x, = _tiles(N)
        _host(x)
        aj.DataCopy(_out(), x, N)
        fix()
        aj.DataCopy(x, _gm(), N)
        return x.addr
    return kernel


def _v_read_then_mte2(fix):   # WAR: a vector source overwritten by the next copy-in
    def kernel(core):
        x, z = _tiles(N, N)
        _host(x)
        aj.Add(z, x, x, N)
        fix()
        aj.DataCopy(x, _gm(), N)
        return x.addr
    return kernel


def _mte2_then_v_write(fix):  # WAW: a copy-in overwritten by a vector instruction
    def kernel(core):
        x, = _tiles(N)
        aj.DataCopy(x, _gm(), N)
        fix()
        aj.Duplicate(x, 0.0, N)
        return x.addr
    return kernel


def _mte3_read_then_v_write(fix):   # WAR: a copy-out source overwritten by the next vector result
    def kernel(core):
        x, = _tiles(N)
        _host(x)
        aj.DataCopy(_out(), x, N)
        fix()
        aj.Duplicate(x, 0.0, N)
        return x.addr
    return kernel


def _s_then_mte3(fix):        # RAW: a scalar write copied out
    def kernel(core):
        x, = _tiles(N)
        _host(x)
        x.SetValue(0, 3.0)
        fix()
        aj.DataCopy(_out(), x, N)
        return x.addr
    return kernel


def _mte2_then_s(fix):        # RAW: a copy-in read by the scalar unit
    def kernel(core):
        x, = _tiles(N)
        aj.DataCopy(x, _gm(), N)
        fix()
        x.GetValue(N - 1)
        return x.addr + NB - 2
    return kernel


def _mte3_then_s_write(fix):  # WAR: a copy-out source overwritten by SetValue
    def kernel(core):
        x, = _tiles(N)
        _host(x)
        aj.DataCopy(_out(), x, N)
        fix()
        x.SetValue(1, 3.0)
        return x.addr + 2
    return kernel


def _s_write_then_mte2(fix):  # WAW: a scalar write overwritten by a copy-in
    def kernel(core):
        x, = _tiles(N)
        _host(x)
        x.SetValue(2, 3.0)
        fix()
        aj.DataCopy(x, _gm(), N)
        return x.addr + 4
    return kernel


def _mte2_then_mte3(fix):     # RAW: a copy-in copied straight out (TQueBind VECIN -> VECOUT without the queue)
    def kernel(core):
        x, = _tiles(N)
        aj.DataCopy(x, _gm(), N)
        fix()
        aj.DataCopy(_out(), x, N)
        return x.addr
    return kernel


def _v_write_then_mte2(fix):  # WAW: a vector result overwritten by a copy-in
    def kernel(core):
        x, = _tiles(N)
        aj.Duplicate(x, 1.0, N)
        fix()
        aj.DataCopy(x, _gm(), N)
        return x.addr
    return kernel


_PAIRS = [  # kernel, (kind, later api, later pipe, earlier api, earlier pipe), bytes, the event that orders them
    (_mte2_then_v, ("RAW", "Add", "PIPE_V", "DataCopy", "PIPE_MTE2"), NB, "MTE2_V"),
    (_v_then_mte3, ("RAW", "DataCopy", "PIPE_MTE3", "Duplicate", "PIPE_V"), NB, "V_MTE3"),
    (_v_then_s, ("RAW", "GetValue", "PIPE_S", "Duplicate", "PIPE_V"), 2, "V_S"),
    (_s_then_v, ("RAW", "Add", "PIPE_V", "SetValue", "PIPE_S"), 2, "S_V"),
    (_mte3_then_mte2, ("WAR", "DataCopy", "PIPE_MTE2", "DataCopy", "PIPE_MTE3"), NB, "MTE3_MTE2"),
    (_v_read_then_mte2, ("WAR", "DataCopy", "PIPE_MTE2", "Add", "PIPE_V"), NB, "V_MTE2"),
    (_mte2_then_v_write, ("WAW", "Duplicate", "PIPE_V", "DataCopy", "PIPE_MTE2"), NB, "MTE2_V"),
    (_mte3_read_then_v_write, ("WAR", "Duplicate", "PIPE_V", "DataCopy", "PIPE_MTE3"), NB, "MTE3_V"),
    (_s_then_mte3, ("RAW", "DataCopy", "PIPE_MTE3", "SetValue", "PIPE_S"), 2, "S_MTE3"),
    (_mte2_then_s, ("RAW", "GetValue", "PIPE_S", "DataCopy", "PIPE_MTE2"), 2, "MTE2_S"),
    (_mte3_then_s_write, ("WAR", "SetValue", "PIPE_S", "DataCopy", "PIPE_MTE3"), 2, "MTE3_S"),
    (_s_write_then_mte2, ("WAW", "DataCopy", "PIPE_MTE2", "SetValue", "PIPE_S"), 2, "S_MTE2"),
    (_mte2_then_mte3, ("RAW", "DataCopy", "PIPE_MTE3", "DataCopy", "PIPE_MTE2"), NB, "MTE2_MTE3"),
    (_v_write_then_mte2, ("WAW", "DataCopy", "PIPE_MTE2", "Duplicate", "PIPE_V"), NB, "V_MTE2"),
]
_IDS = [f.__name__.strip("_") for f, *_ in _PAIRS]


@pytest.mark.parametrize("make, expected, nbytes, event", _PAIRS, ids=_IDS)
def test_unordered_pair_is_one_report_with_both_pipes_and_the_bytes(make, expected, nbytes, event):
    with aj.Core(A2, sanitize="report") as core:
        addr = make(lambda: None)(core)
    assert _summary(core.sanitizer.reports) == [("race",) + expected + (addr, nbytes)]
    assert f"HardEvent.{event} " in core.sanitizer.reports[0].fix      # the fix names the event that orders it


@pytest.mark.parametrize("make, expected, nbytes, event", _PAIRS, ids=_IDS)
def test_matching_flag_orders_the_pair(make, expected, nbytes, event):
    assert _run(make(lambda: _flag(event)))[0] == []


@pytest.mark.parametrize("make, expected, nbytes, event", _PAIRS, ids=_IDS)
def test_tquesync_of_the_same_pipes_and_pipe_all_order_the_pair(make, expected, nbytes, event):
    src, dst = getattr(aj.HardEvent, event).pipes

    def tquesync():
        sync = aj.TQueSync(src, dst)
        sync.SetFlag(3)
        sync.WaitFlag(3)
    assert _run(make(tquesync))[0] == []
    assert _run(make(lambda: aj.PipeBarrier(aj.PIPE_ALL)))[0] == []


@pytest.mark.parametrize("make, expected, nbytes, event", _PAIRS, ids=_IDS)
def test_orderings_that_do_not_order_the_pair(make, expected, nbytes, event):
    """A barrier of one pipe orders only that pipe's instructions (10.1); a flag of the reversed event, or of the
    right source but another destination, does not reach the later pipe (10.4: the WaitFlag's destination pipe must
    be the later access's)."""
    src, dst = event.split("_")
    wrong = [lambda: _flag(f"{dst}_{src}")]
    for pipe in {src, dst} - {"S"}:         # PipeBarrier<PIPE_S> is refused (D62)
        wrong.append(lambda pipe=pipe: aj.PipeBarrier(getattr(aj.Pipe, "PIPE_" + pipe)))
    other_dst = next(e for e in ("V", "MTE3", "S", "MTE2") if e not in (src, dst))
    if hasattr(aj.HardEvent, f"{src}_{other_dst}"):
        wrong.append(lambda: _flag(f"{src}_{other_dst}"))
    for fix in wrong:
        got, addr = _run(make(fix))
        assert got == [("race",) + expected + (addr, nbytes)]


def test_set_flag_issued_before_the_earlier_access_orders_nothing():
    """10.4: the SetFlag must be issued *after* the earlier access (it fires once the source pipe's earlier
    instructions completed); a flag set before the copy-in and waited after it is the classic mis-armed flag."""
    def kernel(core):
        x, z = _tiles(N, N)
        aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
        aj.DataCopy(x, _gm(), N)
        aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
        aj.Add(z, x, x, N)
        return x.addr
    got, addr = _run(kernel)
    assert got == [("race", "RAW", "Add", "PIPE_V", "DataCopy", "PIPE_MTE2", addr, NB)]


def test_flag_orders_only_accesses_before_its_set_and_only_if_waited_before_the_later_one():
    """10.4: a SetFlag orders the source pipe's accesses issued before it; a WaitFlag issued after the later access
    orders nothing."""
    def after_set(core):
        x, y, z = _tiles(N, N, N)
        aj.DataCopy(x, _gm(), N)
        aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
        aj.DataCopy(y, _gm(), N)                 # after the SetFlag
        aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
        aj.Add(z, x, y, N)
        return y.addr
    got, y = _run(after_set)
    assert got == [("race", "RAW", "Add", "PIPE_V", "DataCopy", "PIPE_MTE2", y, NB)]

    def late_wait(core):
        x, z = _tiles(N, N)
        aj.DataCopy(x, _gm(), N)
        aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
        aj.Add(z, x, x, N)
        aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
        return x.addr
    got, x = _run(late_wait)
    assert got == [("race", "RAW", "Add", "PIPE_V", "DataCopy", "PIPE_MTE2", x, NB)]


def test_strided_copy_in_writes_only_its_blocks():
    """DataCopyParams(blockCount 2, blockLen 1, srcStride 0, dstStride 1): DataBlocks 0 and 2 of x are written, the
    gap block 1 is not: an Add over the three blocks races on 64 bytes (two runs) and reads 32 uninitialised ones."""
    def kernel(core):
        x, z = _tiles(48, 48)
        aj.DataCopy(x, _gm(), aj.DataCopyParams(2, 1, 0, 1))
        aj.Add(z, x, x, 48)
        return x.addr
    got, x = _run(kernel)
    assert sorted(got) == sorted([("race", "RAW", "Add", "PIPE_V", "DataCopy", "PIPE_MTE2", x, 64),
                                  ("init", "uninitialised read", "Add", "PIPE_V", None, None, x + 32, 32)])


def test_every_vector_api_is_pipe_v():
    """10.4: PIPE_V for every vector API, Cast, Compare, Brcb and the reductions included (Brcb reads 8 elements
    per repeat)."""
    def kernel(api):
        def k(core):
            alloc = aj.LocalMemAllocator()
            x, f, m, z = alloc.Alloc(H, N), alloc.Alloc("float", N), alloc.Alloc("uint8", 32), alloc.Alloc(H, N)
            aj.DataCopy(x, _gm(), N)
            if api == "Cast":
                aj.Cast(f, x, aj.RoundMode.CAST_NONE, N)
            elif api == "Compare":
                aj.Compare(m, x, x, aj.CMPMODE.EQ, N)
            elif api == "Brcb":
                aj.Brcb(z, x, 1, aj.BrcbRepeatParams(1, 8))
            elif api == "ReduceMax":
                aj.ReduceMax(z, x, f.ReinterpretCast(H), N)
            else:
                aj.Abs(z, x, N)
            return x.addr
        return k
    for api, nbytes in [("Cast", NB), ("Compare", NB), ("Brcb", 16), ("ReduceMax", NB), ("Abs", NB)]:
        got, x = _run(kernel(api))
        assert got == [("race", "RAW", api, "PIPE_V", "DataCopy", "PIPE_MTE2", x, nbytes)]


def test_raise_mode_report_changes_nothing():
    """A reported call in "raise" mode raises before it writes (decisions "Sanitizer"; SPEC-2 1.5)."""
    def kernel(core):
        x, = _tiles(N)
        _host(x, 3.0)
        aj.DataCopy(_out(), x, N)
        with pytest.raises(aj.SanitizerError):
            aj.DataCopy(x, _gm(), N)
        return x.numpy().tolist()
    assert _run(kernel, sanitize=True)[1] == [3.0] * N


def test_partial_overlap_reports_only_the_conflicting_bytes_and_init_the_rest():
    """A copy-in of the first 64 halves and an Add over 128: 128 bytes RAW (MTE2 -> V), the other 128 bytes were
    never written (init). Aliased operands (src0 = src1) give one report per conflict."""
    def kernel(core):
        x, z = _tiles(N, N)
        aj.DataCopy(x, _gm(), 64)
        aj.Add(z, x, x, N)
        return x.addr
    got, addr = _run(kernel)
    assert sorted(got) == sorted([("race", "RAW", "Add", "PIPE_V", "DataCopy", "PIPE_MTE2", addr, 128),
                                  ("init", "uninitialised read", "Add", "PIPE_V", None, None, addr + 128, 128)])


def test_one_report_per_unordered_pair():
    """10.4: "an unordered pair raises StateError naming both instructions, the byte address and the kind"; a
    report's byte count is that pair's. An Add reading bytes a copy-in wrote (0..127, MTE2) and one a SetValue wrote
    (byte 200, S) conflicts with two instructions of two pipes, each needing its own flag (MTE2_V, S_V): two reports.
    The detector gave one, "after DataCopy ... (130 bytes)", with the SetValue's 2 bytes counted against the copy and
    the S -> V pair unnamed. Likewise two earlier instructions of one pipe (two readers before a copy-in, two
    copy-ins before a vector read) are two pairs, each with its own bytes."""
    def two_writers(core):
        x, z = _tiles(N, N)
        _host(x)
        aj.DataCopy(x, _gm(), 64)
        x.SetValue(100, 1.0)
        aj.Add(z, x, x, N)
        return x.addr
    got, x = _run(two_writers)
    assert got == [("race", "RAW", "Add", "PIPE_V", "DataCopy", "PIPE_MTE2", x, 128),
                   ("race", "RAW", "Add", "PIPE_V", "SetValue", "PIPE_S", x + 200, 2)]
    with pytest.raises(aj.SanitizerError, match=r"UB byte 0 \(128 bytes\)"):     # raise mode: the first pair
        _run(two_writers, sanitize=True)

    def two_readers(core):
        x, z, w = _tiles(N, N, N)
        _host(x)
        aj.Add(z, x, x, 64)
        aj.Mul(w, x[64:], x[64:], 64)
        aj.DataCopy(x, _gm(), N)
        return x.addr
    got, x = _run(two_readers)
    assert got == [("race", "WAR", "DataCopy", "PIPE_MTE2", "Add", "PIPE_V", x, 128),
                   ("race", "WAR", "DataCopy", "PIPE_MTE2", "Mul", "PIPE_V", x + 128, 128)]

    def two_copy_ins(core):
        x, = _tiles(N)
        aj.DataCopy(x, _gm(), 64)
        aj.DataCopy(x[64:], _gm(), 64)
        aj.Duplicate(x, 0.0, N)                       # WAW with both
        return x.addr
    got, x = _run(two_copy_ins)
    assert got == [("race", "WAW", "Duplicate", "PIPE_V", "DataCopy", "PIPE_MTE2", x, 128),
                   ("race", "WAW", "Duplicate", "PIPE_V", "DataCopy", "PIPE_MTE2", x + 128, 128)]


# An independent reference for the pair reports: random multi-byte programs over one 16-byte buffer (S and V read
# or write, MTE2 writes, MTE3 reads), with SetFlag/WaitFlag between random pipe pairs, PipeBarrier<PIPE_ALL>, pipe
# barriers that order nothing across pipes, and AllocTensor hand-offs. Ordering is reachability in the graph whose
# edges are each pipe's own program order (its accesses, the SetFlags it sources, the WaitFlags it blocks on), a
# SetFlag to its WaitFlag, and PIPE_ALL to and from everything; the project's two readings of 10.4 are applied as
# docs/decisions.md "Sanitizer" says (chains order transitively; a scalar read never starts a WAR). Every unordered
# (later, earlier, kind) pair must be one report with its first byte and byte count; of several reads of a byte by
# one pipe since its last write the last is named (a pipe runs in order: whatever orders it orders the earlier ones).
_PIPES4 = ("PIPE_S", "PIPE_V", "PIPE_MTE2", "PIPE_MTE3")


def _random_pairs_program(rng, n):
    prog, pending = [], set()
    for _ in range(n):
        r = rng.random()
        if r < 0.5:
            pipe = rng.choice(_PIPES4)
            write = {"PIPE_MTE2": True, "PIPE_MTE3": False}.get(pipe, rng.random() < 0.5)
            start = rng.randrange(16)
            prog.append(("access", pipe, start, rng.randrange(1, 17 - start), write))
        elif r < 0.72:
            src, dst = rng.sample(_PIPES4, 2)
            if (src, dst) not in pending:
                pending.add((src, dst))
                prog.append(("set", src, dst))
        elif r < 0.92 and pending:
            key = rng.choice(sorted(pending))
            pending.remove(key)
            prog.append(("wait",) + key)
        elif r < 0.94:
            prog.append(("all",))
        elif r < 0.97:
            prog.append(("barrier", rng.choice(_PIPES4[1:])))
        else:
            prog.append(("alloc",))
    return prog


def _engine_pairs(prog):
    from ascend_jit import sanitizer
    core = aj.Core(A2, sanitize=sanitizer.SanitizeConfig(mode="report", checks=("race",)))
    s, found = core.sanitizer, []
    for k, event in enumerate(prog):
        if event[0] == "access":
            _, pipe, start, nbytes, write = event
            before = len(s.reports)
            s.instruction(str(k), pipe, [sanitizer.Access.of_run("x", start, nbytes, write)], where=str(k))
            found += [(k, int(r.earlier.api), r.kind, r.address, r.nbytes) for r in s.reports[before:]]
        elif event[0] == "set":
            s.set_flag(event[1], event[2], 0)
        elif event[0] == "wait":
            s.wait_flag(event[1], event[2], 0)
        elif event[0] == "all":
            s.pipe_barrier("PIPE_ALL")
        elif event[0] == "barrier":
            s.pipe_barrier(event[1])
        else:
            s.hand_off(0, 16)
    return sorted(found)


def _reference_pairs(prog):
    def stream(event):   # the pipe whose in-order stream an event belongs to
        return {"access": 1, "set": 1, "wait": 2}.get(event[0]) and event[{"access": 1, "set": 1, "wait": 2}[event[0]]]
    n = len(prog)
    succ = [set() for _ in range(n)]
    for j, later in enumerate(prog):
        for i in range(j):
            earlier = prog[i]
            if "all" in (earlier[0], later[0]) or (stream(earlier) and stream(earlier) == stream(later)):
                succ[i].add(j)
        if later[0] == "wait":
            succ[max(i for i in range(j) if prog[i][0] == "set" and prog[i][1:] == later[1:])].add(j)
    reach = [set() for _ in range(n)]
    for i in reversed(range(n)):
        for j in succ[i]:
            reach[i] |= {j} | reach[j]
    pairs, last_write, readers = {}, [None] * 16, [[] for _ in range(16)]
    for j, event in enumerate(prog):
        if event[0] == "alloc":
            last_write, readers = [None] * 16, [[] for _ in range(16)]
            continue
        if event[0] != "access":
            continue
        _, pipe, start, nbytes, write = event
        for b in range(start, start + nbytes):
            w = last_write[b]
            if w is not None and prog[w][1] != pipe and j not in reach[w]:
                pairs.setdefault((j, w, "WAW" if write else "RAW"), []).append(b)
            if write:   # a pipe's reads are in order: its last read since the write is the one to order (and name)
                for q in set(_PIPES4) - {pipe, "PIPE_S"}:
                    r = max((r for r in readers[b] if prog[r][1] == q), default=None)
                    if r is not None and j not in reach[r]:
                        pairs.setdefault((j, r, "WAR"), []).append(b)
        for b in range(start, start + nbytes):
            if write:
                last_write[b], readers[b] = j, []
            else:
                readers[b].append(j)
    return sorted((j, i, kind, min(bs), len(set(bs))) for (j, i, kind), bs in pairs.items())


def test_pair_reports_agree_with_a_reachability_reference_on_random_programs():
    import random
    for seed in range(250):
        rng = random.Random(seed)
        prog = _random_pairs_program(rng, rng.randrange(4, 36))
        assert _engine_pairs(prog) == _reference_pairs(prog), (seed, prog)


def test_two_reader_pipes_need_both_orderings_before_the_write():
    """10.4: a write conflicts with *any* reader since the last write in another pipe. x is read by the vector
    pipe and by MTE3; ordering only MTE3 -> MTE2 leaves the vector read unordered with the copy-in."""
    def kernel(core):
        x, z = _tiles(N, N)
        _host(x)
        aj.Add(z, x, x, N)
        aj.DataCopy(_out(), x, N)
        _flag("MTE3_MTE2")
        aj.DataCopy(x, _gm(), N)
        return x.addr
    got, addr = _run(kernel)
    assert got == [("race", "WAR", "DataCopy", "PIPE_MTE2", "Add", "PIPE_V", addr, NB)]

    def both(core):
        x, z = _tiles(N, N)
        _host(x)
        aj.Add(z, x, x, N)
        aj.DataCopy(_out(), x, N)
        _flag("MTE3_MTE2")
        _flag("V_MTE2", 1)
        aj.DataCopy(x, _gm(), N)
    assert _run(both)[0] == []


def test_masked_off_lanes_are_neither_read_nor_written():
    """10.4 / decisions "Sanitizer": accesses are the active lanes. A high-dim Add with a 64-lane continuous mask on
    one repeat of halves reads and writes the first 128 bytes only: a copy-in to the second half of the source
    and a copy-out of the second half of dst are no conflict, and the unwritten upper source lanes no init read."""
    def kernel(core):
        x, z = _tiles(N, N)
        aj.DataCopy(x, _gm(64), 64)       # the lower 64 halves, ordered below
        _flag("MTE2_V")
        aj.Add(z, x, x, 64, 1, aj.BinaryRepeatParams())
        aj.DataCopy(x[64:], _gm(64), 64)  # the upper half: the Add did not read it
        return z
    assert _run(kernel)[0] == []


def test_host_accesses_are_not_instructions():
    """10.4: `tensor[:] = array` and `.numpy()` are ignored: a host fill after a vector write is no WAW and a host
    read of a copy-in is no RAW."""
    def kernel(core):
        x, z = _tiles(N, N)
        aj.Duplicate(z, 2.0, N)
        _host(z)                         # host write over a vector write
        aj.DataCopy(x, _gm(), N)
        x.numpy().sum()                  # host read of a copy-in
    assert _run(kernel)[0] == []


def test_scalar_read_then_vector_write_is_the_documented_deviation():
    """SPEC-2 10.4 read literally reports a GetValue (PIPE_S) followed by a vector write of the same bytes (WAR,
    reader pipe S != V); docs/decisions.md "Sanitizer" deviates on purpose (the in-order scalar unit has its value
    before it issues anything later; the devkit's own ReduceSum relies on it). The project's choice holds."""
    def kernel(core):
        x, = _tiles(N)
        _host(x)
        v = x.GetValue(0)
        aj.Duplicate(x, v, N)
    assert _run(kernel)[0] == []


def test_chains_order_transitively():
    """docs/decisions.md "Sanitizer": MTE2 -> (MTE2_V) -> V -> (V_MTE3) -> MTE3 orders the copy-in before the
    copy-out of the same bytes (the device's flag semantics of 10.1 do)."""
    def kernel(core):
        x, z = _tiles(N, N)
        aj.DataCopy(x, _gm(), N)
        _flag("MTE2_V")
        aj.Add(z, x, x, N)
        _flag("V_MTE3")
        aj.DataCopy(_out(), x, N)
        aj.DataCopy(_out(), z, N)
    assert _run(kernel)[0] == []


def test_special_register_read_needs_v_s():
    """10.4: GetReduce*Spr reads are PIPE_S; the count-form ReduceSum's ACC_VAL is written by the vector pipe. With
    "device-sync" the implementation's own V_S orders it (docs/decisions.md "The implementations' own flags"), and
    the report's fix says so; WholeReduceMax has no such pair."""
    def kernel(with_flag, reduce_sum=True):
        def k(core):
            x, d, w = _tiles(N, 16, N)
            _host(x)
            if reduce_sum:
                aj.ReduceSum(d, x, w, N)
            else:
                aj.WholeReduceMax(d, x, N, 1, 1, 1, 8)
            if with_flag:
                _flag("V_S")
            (aj.GetReduceRepeatSumSpr if reduce_sum else aj.GetReduceRepeatMaxMinSpr)(H)
        return k
    got, _ = _run(kernel(False))
    assert [g[:6] for g in got] == [("race", "RAW", "GetReduceRepeatSumSpr", "PIPE_S", "ReduceSum", "PIPE_V")]
    assert _run(kernel(True))[0] == []
    with aj.Core(A2, sanitize="report") as core:
        kernel(False)(core)
    assert "ReduceSum's implementation issues its own SetFlag/WaitFlag V_S" in core.sanitizer.reports[0].fix
    assert _run(kernel(False), "device-sync,report")[0] == []
    got, _ = _run(kernel(False, reduce_sum=False), "device-sync,report")
    assert [g[:6] for g in got] == [("race", "RAW", "GetReduceRepeatMaxMinSpr", "PIPE_S", "WholeReduceMax", "PIPE_V")]


# =================================================================================================================
# same-pipe pairs: not reported by default; "strict" (10.4) asks for PipeBarrier<PIPE_V> / <PIPE_MTE2>
# =================================================================================================================
def _vector_chain(barrier):
    def kernel(core):
        x, y, z = _tiles(N, N, N)
        _host(x)
        aj.Add(y, x, x, N)
        if barrier:
            aj.PipeBarrier(aj.PIPE_V)
        aj.Mul(z, y, y, N)
        aj.Duplicate(x, 0.0, N)   # a same-pipe WAR: not in "strict"'s list either
        return y.addr
    return kernel


def _overlapping_copy_ins(barrier):
    def kernel(core):
        x, = _tiles(N)
        aj.DataCopy(x, _gm(), N)
        if barrier:
            aj.PipeBarrier(aj.PIPE_MTE2)
        aj.DataCopy(x, _gm(start=5), 64)
        return x.addr
    return kernel


def test_same_pipe_pairs_default_and_strict():
    assert _run(_vector_chain(False))[0] == []
    assert _run(_overlapping_copy_ins(False))[0] == []
    got, y = _run(_vector_chain(False), sanitize="report,strict")
    assert got == [("race", "RAW", "Mul", "PIPE_V", "Add", "PIPE_V", y, NB)]
    assert _run(_vector_chain(True), sanitize="report,strict")[0] == []
    got, x = _run(_overlapping_copy_ins(False), sanitize="report,strict")
    assert got == [("race", "WAW", "DataCopy", "PIPE_MTE2", "DataCopy", "PIPE_MTE2", x, 128)]
    assert _run(_overlapping_copy_ins(True), sanitize="report,strict")[0] == []
    # "strict": UB -> GM copies with overlapping GM destinations need PipeBarrier<PIPE_MTE3> (or PIPE_ALL)
    def copy_outs(barrier):
        def kernel(core):
            x, = _tiles(N)
            _host(x)
            out = _out()
            aj.DataCopy(out, x, N)
            if barrier is not None:
                aj.PipeBarrier(barrier)
            aj.DataCopy(out, x, 64)
        return kernel
    for barrier, n in [(None, 1), (aj.PIPE_V, 1), (aj.PIPE_MTE2, 1), (aj.PIPE_MTE3, 0), (aj.PIPE_ALL, 0)]:
        got, _ = _run(copy_outs(barrier), sanitize="report,strict")
        assert got == [("race", "WAW", "DataCopy", "PIPE_MTE3", "DataCopy", "PIPE_MTE3", 0, 128)] * n, barrier
    assert _run(copy_outs(None))[0] == []
    # a barrier of another pipe does not order the vector chain
    def other_barrier(core):
        x, y, z = _tiles(N, N, N)
        _host(x)
        aj.Add(y, x, x, N)
        aj.PipeBarrier(aj.PIPE_MTE2)
        aj.Mul(z, y, y, N)
    assert len(_run(other_barrier, sanitize="report,strict")[0]) == 1


# =================================================================================================================
# no false positives: a hand-flagged double buffer with pre-armed flags, TQue-only kernels
# =================================================================================================================
TILES = 4


def _double_buffer(x, y, drop_free_flags=False, drop_final_waits=False, tquesync=False):
    """The devkit pattern: the buffers' "free" flags (V_MTE2 for the inputs, MTE3_V for the outputs) are set once
    before the loop (pre-armed), waited before each reuse, set again after each use and consumed after the loop.
    `tquesync`: the same flags as TQueSync<src, dst> objects (the 310B form, 10.1)."""
    if tquesync:
        class _Flags:   # aj.SetFlag / aj.WaitFlag spelled with TQueSync, same (event_id, event=) calls
            @staticmethod
            def SetFlag(event_id, event):
                aj.TQueSync(*event.pipes).SetFlag(event_id)

            @staticmethod
            def WaitFlag(event_id, event):
                aj.TQueSync(*event.pipes).WaitFlag(event_id)
        flags = _Flags
    else:
        flags = aj
    xg, yg = aj.GlobalTensor(), aj.GlobalTensor()
    xg.SetGlobalBuffer(x, x.size)
    yg.SetGlobalBuffer(y, y.size)
    alloc = aj.LocalMemAllocator()
    ins = [alloc.Alloc(H, N) for _ in range(2)]
    outs = [alloc.Alloc(H, N) for _ in range(2)]
    for b in range(2):
        if not drop_free_flags:
            flags.SetFlag(b, event=aj.HardEvent.V_MTE2)
        flags.SetFlag(b, event=aj.HardEvent.MTE3_V)
    for i in range(TILES):
        b = i % 2
        if not drop_free_flags:
            flags.WaitFlag(b, event=aj.HardEvent.V_MTE2)
        aj.DataCopy(ins[b], xg[i * N:], N)
        flags.SetFlag(b, event=aj.HardEvent.MTE2_V)
        flags.WaitFlag(b, event=aj.HardEvent.MTE2_V)
        flags.WaitFlag(b, event=aj.HardEvent.MTE3_V)
        aj.Adds(outs[b], ins[b], 1.0, N)
        if not drop_free_flags:
            flags.SetFlag(b, event=aj.HardEvent.V_MTE2)
        flags.SetFlag(b, event=aj.HardEvent.V_MTE3)
        flags.WaitFlag(b, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(yg[i * N:], outs[b], N)
        flags.SetFlag(b, event=aj.HardEvent.MTE3_V)
    if not drop_final_waits:
        for b in range(2):
            if not drop_free_flags:
                flags.WaitFlag(b, event=aj.HardEvent.V_MTE2)
            flags.WaitFlag(b, event=aj.HardEvent.MTE3_V)
    return [t.addr for t in ins]


def _x():
    return (np.arange(TILES * N) % 97).astype(np.float16)


@pytest.mark.parametrize("sanitize", ["report", "strict"])
@pytest.mark.parametrize("device, tquesync", [(A2, False), (A2, True), ("atlas-200i-500-a2", True)])
def test_flagged_double_buffer_is_clean_and_exact(sanitize, device, tquesync):
    x, y = _x(), np.zeros(TILES * N, np.float16)
    with aj.sanitize_session(sanitize) as session:
        aj.launch(_double_buffer, 1, device, x, y, tquesync=tquesync)
    assert session.reports == []
    assert np.array_equal(y, x + np.float16(1))


def test_double_buffer_without_the_free_flags_reports_each_reuse():
    """Dropping the pre-armed V_MTE2 "input free" flags: tiles 2 and 3 copy into a buffer the vector pipe read for
    tiles 0 and 1 with nothing ordering them (WAR, MTE2 after V), one report per reuse, whole buffer."""
    x, y = _x(), np.zeros(TILES * N, np.float16)
    with aj.Core(A2, sanitize="report") as core:
        addrs = _double_buffer(x, y, drop_free_flags=True)
    assert _summary(core.sanitizer.reports) == [
        ("race", "WAR", "DataCopy", "PIPE_MTE2", "Adds", "PIPE_V", addrs[0], NB),
        ("race", "WAR", "DataCopy", "PIPE_MTE2", "Adds", "PIPE_V", addrs[1], NB)]
    assert np.array_equal(y, x + np.float16(1))     # values never change (10.1)


def test_flags_left_set_at_launch_end_are_refused_by_name():
    """D62: flags still set when aj.launch returns -> StateError naming the pending (event, id) pairs."""
    x, y = _x(), np.zeros(TILES * N, np.float16)
    with pytest.raises(aj.StateError) as e:
        aj.launch(_double_buffer, 1, A2, x, y, drop_final_waits=True)
    text = str(e.value)
    for name in ("V_MTE2 id 0", "V_MTE2 id 1", "MTE3_V id 0", "MTE3_V id 1"):
        assert name in text
    with aj.Core(A2) as core:       # outside aj.launch: core.pending_flags() tells
        _double_buffer(x, y, drop_final_waits=True)
        assert core.pending_flags() == sorted(
            (src, dst, b) for b in range(2) for src, dst in (aj.HardEvent.V_MTE2.pipes, aj.HardEvent.MTE3_V.pipes))


def _tque_kernel(x, y, queues=True, depth=2):
    """The README pattern with BUFFER_NUM = depth tiles in flight: VECIN queue, vector op, VECOUT queue."""
    xg, yg = aj.GlobalTensor(), aj.GlobalTensor()
    xg.SetGlobalBuffer(x, x.size)
    yg.SetGlobalBuffer(y, y.size)
    pipe, qin, qout = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, depth), aj.TQue(aj.TPosition.VECOUT, depth)
    pipe.InitBuffer(qin, depth, NB)
    pipe.InitBuffer(qout, depth, NB)
    for i in range(TILES):
        t = qin.AllocTensor(H)
        aj.DataCopy(t, xg[i * N:], N)
        if queues:
            qin.EnQue(t)
            t = qin.DeQue(H)
        u = qout.AllocTensor(H)
        aj.Muls(u, t, 2.0, N)
        if queues:
            qout.EnQue(u)
            u = qout.DeQue(H)
        qin.FreeTensor(t)
        aj.DataCopy(yg[i * N:], u, N)
        qout.FreeTensor(u)


def _tque_prefetch(x, y):
    """Depth-2 queues with the next tile's copy-in issued before the current tile's compute (two tensors in the
    VECIN queue at once): each DeQue hands off the tensor its own EnQue marked."""
    xg, yg = aj.GlobalTensor(), aj.GlobalTensor()
    xg.SetGlobalBuffer(x, x.size)
    yg.SetGlobalBuffer(y, y.size)
    pipe, qin, qout = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 2), aj.TQue(aj.TPosition.VECOUT, 2)
    pipe.InitBuffer(qin, 2, NB)
    pipe.InitBuffer(qout, 2, NB)

    def copy_in(i):
        t = qin.AllocTensor(H)
        aj.DataCopy(t, xg[i * N:], N)
        qin.EnQue(t)
    copy_in(0)
    for i in range(TILES):
        if i + 1 < TILES:
            copy_in(i + 1)
        t, u = qin.DeQue(H), qout.AllocTensor(H)
        aj.Adds(u, t, 3.0, N)
        qout.EnQue(u)
        qin.FreeTensor(t)
        u = qout.DeQue(H)
        aj.DataCopy(yg[i * N:], u, N)
        qout.FreeTensor(u)


def test_tque_prefetch_kernel_is_clean():
    x, y = _x(), np.zeros(TILES * N, np.float16)
    with aj.sanitize_session("report,strict") as session:
        aj.launch(_tque_prefetch, 1, A2, x, y)
    assert session.reports == []
    assert np.array_equal(y, x + np.float16(3))


@pytest.mark.parametrize("depth", [1, 2])
def test_tque_only_kernel_is_clean(depth):
    x, y = _x(), np.zeros(TILES * N, np.float16)
    with aj.sanitize_session("strict") as session:
        aj.launch(_tque_kernel, 1, A2, x, y, depth=depth)
    assert session.reports == []
    assert np.array_equal(y, x * np.float16(2))


def test_tque_without_enque_dequeue_reports_the_hand_offs():
    """Dropping the EnQue/DeQue pairs (README's example): the vector read of each copy-in and the copy-out of each
    vector result are RAW races; the recycled buffers' AllocTensor still hands them off (decisions "Sanitizer"), so
    no WAR across tiles."""
    x, y = _x(), np.zeros(TILES * N, np.float16)
    with aj.Core(A2, sanitize="report") as core:
        _tque_kernel(x, y, queues=False)
    got = [g[:6] for g in _summary(core.sanitizer.reports)]
    assert got == [("race", "RAW", "Muls", "PIPE_V", "DataCopy", "PIPE_MTE2"),
                   ("race", "RAW", "DataCopy", "PIPE_MTE3", "Muls", "PIPE_V")] * TILES


def test_hand_off_orders_only_the_queued_tensor():
    """10.4: the EnQue/DeQue orders the bytes of the tensor it hands off; a TBuf copied in beside it is not."""
    def kernel(core):
        pipe, q, buf = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 1), aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(q, 1, NB)
        pipe.InitBuffer(buf, NB)
        t, w = q.AllocTensor(H), buf.Get(H)
        aj.DataCopy(t, _gm(), N)
        aj.DataCopy(w, _gm(), N)
        q.EnQue(t)
        t = q.DeQue(H)
        aj.Add(t, t, w, N)
        q.FreeTensor(t)
        return w.addr
    got, w = _run(kernel)
    assert got == [("race", "RAW", "Add", "PIPE_V", "DataCopy", "PIPE_MTE2", w, NB)]


def test_write_after_enque_is_not_covered_by_its_dequeue():
    """10.4: the EnQue/DeQue must lie *between* the two accesses: a second copy into an already enqueued tensor
    is unordered with the consumer's read (RAW) and write (WAW) after the DeQue, over the 128 bytes it wrote."""
    def kernel(core):
        pipe, q = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, NB)
        t = q.AllocTensor(H)
        aj.DataCopy(t, _gm(), N)
        q.EnQue(t)
        aj.DataCopy(t, _gm(start=1), 64)
        t = q.DeQue(H)
        aj.Adds(t, t, 1.0, N)
        q.FreeTensor(t)
        return t.addr
    got, addr = _run(kernel)
    assert got == [("race", "RAW", "Adds", "PIPE_V", "DataCopy", "PIPE_MTE2", addr, 128),
                   ("race", "WAW", "Adds", "PIPE_V", "DataCopy", "PIPE_MTE2", addr, 128)]


def test_tque_bind_hand_off_orders_copy_in_before_copy_out():
    def kernel(core):
        pipe, q = aj.TPipe(), aj.TQueBind(aj.TPosition.VECIN, aj.TPosition.VECOUT, 1)
        pipe.InitBuffer(q, 1, NB)
        t = q.AllocTensor(H)
        aj.DataCopy(t, _gm(), N)
        q.EnQue(t)
        t = q.DeQue(H)
        aj.DataCopy(_out(), t, N)
        q.FreeTensor(t)
    assert _run(kernel)[0] == []


def _event_ids(x):
    aj.TPipe()
    aj.GetTPipePtr().AllocEventID(aj.HardEvent.V_MTE3)      # never released: the "sync" check
    aj.GetTPipePtr().FetchEventID(aj.HardEvent.MTE2_V)      # does not occupy the id


def _syncall_orders_own_pipes(x):
    t = aj.LocalMemAllocator().Alloc("float", 64)
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(x, 64)
    _host(t)
    aj.DataCopy(g, t, 64)
    aj.SyncAll()                  # begins with PipeBarrier<PIPE_ALL> (decisions "SyncAll orders the core's pipes")
    aj.Duplicate(t, 2.0, 64)


def test_sync_check_and_syncall_within_a_core():
    with aj.sanitize_session("report") as session:
        aj.launch(_event_ids, 1, A2, np.zeros(4, np.float32))
    assert [(r.check, r.kind, r.operand, r.address) for r in session.reports] == [
        ("sync", "event id never released", "V_MTE3", 0)]
    with aj.sanitize_session("report") as session:
        aj.launch(_syncall_orders_own_pipes, 1, A2, np.zeros(64, np.float32))
    assert session.reports == []


# =================================================================================================================
# 10.3 / D62: flag state and refusals (always on, sanitizer or not)
# =================================================================================================================
@pytest.mark.parametrize("sanitize", [False, "report"])
def test_d62_refusals(sanitize):
    with aj.Core(A2, sanitize=sanitize) as core:
        with pytest.raises(aj.StateError, match="block forever"):
            aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
        assert core.pending_flags() == []
        aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
        with pytest.raises(aj.StateError, match="already set"):
            aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
        assert core.pending_flags() == [(aj.PIPE_MTE2, aj.PIPE_V, 0)]        # still set once
        with pytest.raises(aj.StateError):                                   # same pipes, wrong id
            aj.WaitFlag(1, event=aj.HardEvent.MTE2_V)
        with pytest.raises(aj.StateError):                                   # same id, reversed event
            aj.WaitFlag(0, event=aj.HardEvent.V_MTE2)
        with pytest.raises(aj.StateError):                                   # same source, other destination
            aj.WaitFlag(0, event=aj.HardEvent.MTE2_MTE3)
        aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
        assert core.pending_flags() == []
        for bad in (8, -1, 100):
            with pytest.raises(aj.ParameterError):
                aj.SetFlag(bad, event=aj.HardEvent.V_S)
            with pytest.raises(aj.ParameterError):
                aj.WaitFlag(bad, event=aj.HardEvent.V_S)
            with pytest.raises(aj.ParameterError):
                aj.TQueSync(aj.PIPE_V, aj.PIPE_S).SetFlag(bad)
        assert core.pending_flags() == []
        for ok in (aj.EVENT_ID6, aj.EVENT_ID7):                              # reserved but legal
            aj.SetFlag(ok, event=aj.HardEvent.V_S)
            aj.WaitFlag(ok, event=aj.HardEvent.V_S)
        with pytest.raises(aj.ParameterError):
            aj.PipeBarrier(aj.PIPE_S)
        for pipe in (aj.PIPE_V, aj.PIPE_MTE2, aj.PIPE_MTE3, aj.PIPE_ALL):
            aj.PipeBarrier(pipe)
        aj.SetFlag(2, event=aj.HardEvent.V_V)                                # V_V is (PIPE_V, PIPE_V)
        assert core.pending_flags() == [(aj.PIPE_V, aj.PIPE_V, 2)]
        aj.WaitFlag(2, event=aj.HardEvent.V_V)


def test_d62_ids_on_910_and_isasi_on_310b():
    with aj.Core("atlas-training"):
        aj.SetFlag(3, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(3, event=aj.HardEvent.MTE2_V)
        with pytest.raises(aj.ParameterError):
            aj.SetFlag(4, event=aj.HardEvent.MTE2_V)
        with pytest.raises(aj.ParameterError):
            aj.TQueSync(aj.PIPE_MTE2, aj.PIPE_V).SetFlag(4)
    with aj.Core("atlas-200i-500-a2") as core:
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
        sync = aj.TQueSync(aj.PIPE_MTE2, aj.PIPE_V)
        sync.SetFlag(7)
        assert core.pending_flags() == [(aj.PIPE_MTE2, aj.PIPE_V, 7)]
        sync.WaitFlag(7)


def test_tquesync_and_isasi_share_the_flags():
    with aj.Core(A2) as core:
        aj.TQueSync(aj.PIPE_V, aj.PIPE_MTE3).SetFlag(1)
        with pytest.raises(aj.StateError):
            aj.SetFlag(1, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(1, event=aj.HardEvent.V_MTE3)
        with pytest.raises(aj.StateError):
            aj.TQueSync(aj.PIPE_V, aj.PIPE_MTE3).WaitFlag(1)
        assert core.pending_flags() == []


def test_every_hard_event_names_its_pipes():
    short = {"S": aj.PIPE_S, "V": aj.PIPE_V, "M": aj.PIPE_M, "MTE1": aj.PIPE_MTE1, "MTE2": aj.PIPE_MTE2,
             "MTE3": aj.PIPE_MTE3, "FIX": aj.PIPE_FIX}
    names = ("MTE2_MTE1 MTE1_MTE2 MTE1_M M_MTE1 MTE2_V V_MTE2 MTE3_V V_MTE3 M_V V_M V_V MTE3_MTE1 MTE1_MTE3 MTE1_V "
             "MTE2_M M_MTE2 V_MTE1 M_FIX FIX_M MTE3_MTE2 MTE2_MTE3 S_V V_S S_MTE2 MTE2_S S_MTE3 MTE3_S MTE2_FIX "
             "FIX_MTE2 FIX_S M_S FIX_MTE3 MTE1_FIX FIX_MTE1 FIX_FIX").split()
    assert [e.name for e in aj.HardEvent] == names
    for e in aj.HardEvent:
        src, dst = e.name.split("_")
        assert e.pipes == (short[src], short[dst])
    assert [aj.EVENT_ID0, aj.EVENT_ID7] == [0, 7]


def _wait_first(x):
    aj.WaitFlag(0, event=aj.HardEvent.V_MTE3)


def _set_only(x):
    aj.SetFlag(0, event=aj.HardEvent.S_MTE3)


def test_launch_starts_with_every_flag_clear_and_ends_checking_them():
    """10.3: all flags 0 at the start of aj.launch (a flag left set by code outside it does not leak in); a block
    ending with a flag set is refused naming it."""
    with aj.Core(A2):
        aj.SetFlag(0, event=aj.HardEvent.V_MTE3)      # left set on this core, not the launch's
        with pytest.raises(aj.StateError, match="block forever"):
            aj.launch(_wait_first, 2, A2, np.zeros(4, np.float32))
        aj.WaitFlag(0, event=aj.HardEvent.V_MTE3)
    with pytest.raises(aj.StateError, match="S_MTE3 id 0"):
        aj.launch(_set_only, 2, A2, np.zeros(4, np.float32))


def test_sanitizer_error_in_raise_mode_is_a_state_error_naming_both_instructions():
    """10.4: an unordered pair raises StateError naming both instructions, the byte address and the kind."""
    with pytest.raises(aj.StateError) as e:
        _run(_mte2_then_v(lambda: None), sanitize=True)
    text = str(e.value)
    assert "RAW" in text and "Add" in text and "DataCopy" in text and "UB byte 0" in text


# =================================================================================================================
# init: bytes nothing wrote, DataCopyPad's pads and dummy bytes (D56)
# =================================================================================================================
def test_fresh_tensor_reads_are_reported_and_scalar_reads_too():
    def kernel(core):
        x, z = _tiles(N, N)
        aj.Add(z, x, x, N)
        _flag("V_S")
        z.GetValue(0)          # z was written by the Add: fine
        x.GetValue(1)          # never written
        return x.addr
    got, addr = _run(kernel)
    assert got == [("init", "uninitialised read", "Add", "PIPE_V", None, None, addr, NB),
                   ("init", "uninitialised read", "GetValue", "PIPE_S", None, None, addr + 2, 2)]


def _pad_kernel(is_pad, right, set_pad=False):
    """DataCopyPad of 10 halves (blockLen 20 B) with `right` right-pad elements, then an Add over the 16 halves of
    the 32-byte block."""
    def kernel(core):
        x, z = _tiles(16, 16)
        if set_pad:
            aj.SetPadValue(np.float16(9), H)
        aj.DataCopyPad(x, _gm(16), aj.DataCopyExtParams(1, 20, 0, 0, 0),
                       aj.DataCopyPadExtParams(is_pad, 0, right, np.float16(7)))
        _flag("MTE2_V")
        aj.Add(z, x, x, 16)
        return x.addr, x.numpy().copy()
    return kernel


def test_data_copy_pad_filler_per_d56():
    # no pads, no isPad: the dummy bytes repeat the first element (defined data)
    got, (addr, vals) = _run(_pad_kernel(False, 0))
    assert got == [] and vals[10:].tolist() == [0.0] * 6
    # isPad: pads and dummy are paddingValue (defined)
    got, (addr, vals) = _run(_pad_kernel(True, 2))
    assert got == [] and vals[10:].tolist() == [7.0] * 6
    # SetPadValue for the dtype: that value (defined)
    got, (addr, vals) = _run(_pad_kernel(False, 2, set_pad=True))
    assert got == [] and vals[10:].tolist() == [9.0] * 6
    # pads without isPad or SetPadValue: pads and dummy are random (D56): reading them is an init report
    got, (addr, vals) = _run(_pad_kernel(False, 2))
    assert got == [("init", "uninitialised read", "Add", "PIPE_V", None, None, addr + 20, 12)]


def test_recycled_queue_buffer_is_uninitialised():
    def kernel(core):
        pipe, q = aj.TPipe(), aj.TQue(aj.TPosition.VECOUT, 1)
        pipe.InitBuffer(q, 1, NB)
        t = q.AllocTensor(H)
        aj.Duplicate(t, 1.0, N)
        q.FreeTensor(t)
        t = q.AllocTensor(H)
        aj.Adds(t, t, 1.0, N)          # stale bytes of the previous user
        q.FreeTensor(t)
        return t.addr
    got, addr = _run(kernel)
    assert got == [("init", "uninitialised read", "Adds", "PIPE_V", None, None, addr, NB)]


# =================================================================================================================
# blocks: GM across the blocks of a launch, SyncAll phases and atomics
# =================================================================================================================
def _producer_consumer(gm, sync):
    t = aj.LocalMemAllocator().Alloc("float", 64)
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(gm, 64)
    if aj.GetBlockIdx() == 0:
        _host(t, 5.0)
        aj.DataCopy(g, t, 64)
    if sync:
        aj.SyncAll()
    if aj.GetBlockIdx() == 1:
        aj.DataCopy(t, g, 64)


def _atomic_sum(gm, acc, read_back, sync):
    b = aj.GetBlockIdx()
    t = aj.LocalMemAllocator().Alloc("float", 8)
    xg, ag = aj.GlobalTensor(), aj.GlobalTensor()
    xg.SetGlobalBuffer(gm[8 * b:], 8)
    ag.SetGlobalBuffer(acc, 8)
    aj.DataCopy(t, xg, 8)
    _flag("MTE2_MTE3")
    aj.SetAtomicAdd("float")
    aj.DataCopy(ag, t, 8)
    aj.SetAtomicNone()
    if sync:
        aj.SyncAll()
    if read_back:
        _flag("MTE3_MTE2")
        aj.DataCopy(t, ag, 8)


def test_blocks_read_after_write_needs_syncall():
    with aj.sanitize_session("report") as session:
        aj.launch(_producer_consumer, 2, A2, np.zeros(64, np.float32), False)
    assert [(r.check, r.block, r.instruction.pipe, r.address, r.nbytes) for r in session.reports] == [
        ("blocks", 1, "PIPE_MTE2", 0, 256)]
    with aj.sanitize_session("report") as session:
        aj.launch(_producer_consumer, 2, A2, np.zeros(64, np.float32), True)
    assert session.reports == []


def _gm_scalar(x, sync):
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(x, 8)
    if aj.GetBlockIdx() == 0:
        g.SetValue(3, np.float32(2))
    if sync:
        aj.SyncAll()
    if aj.GetBlockIdx() == 1:
        g.GetValue(3)


def test_blocks_gm_scalar_accesses():
    with aj.sanitize_session("report") as session:
        aj.launch(_gm_scalar, 2, A2, np.zeros(8, np.float32), False)
    assert [(r.check, r.block, r.instruction.api, r.address, r.nbytes) for r in session.reports] == [
        ("blocks", 1, "GetValue", 12, 4)]
    with aj.sanitize_session("report") as session:
        aj.launch(_gm_scalar, 2, A2, np.zeros(8, np.float32), True)
    assert session.reports == []


def _rows(y, pad):
    """Block b writes a row of 10 halves at GM element 10*b: DataCopyPad writes exactly blockLen bytes (9.1), a
    32-byte DataCopy writes 16 halves, 6 of them the next block's."""
    b = aj.GetBlockIdx()
    t = aj.LocalMemAllocator().Alloc(H, 16)
    _host(t, float(b))
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(y[10 * b:], 16)
    if pad:
        aj.DataCopyPad(g, t, aj.DataCopyExtParams(1, 20, 0, 0, 0))
    else:
        aj.DataCopy(g, t, 16)


def test_blocks_adjacent_rows_padded_and_overlapping():
    y = np.zeros(48, np.float16)
    with aj.sanitize_session("report") as session:
        aj.launch(_rows, 3, A2, y, True)
    assert session.reports == [] and y[:30].tolist() == [0.0] * 10 + [1.0] * 10 + [2.0] * 10
    with aj.sanitize_session("report") as session:
        aj.launch(_rows, 3, A2, np.zeros(48, np.float16), False)
    assert [(r.check, r.kind, r.block, r.address, r.nbytes) for r in session.reports] == [
        ("blocks", "two blocks write the same GM bytes", 1, 20, 12),
        ("blocks", "two blocks write the same GM bytes", 2, 40, 12)]


def test_blocks_atomic_adds_combine_and_a_read_back_needs_syncall():
    x = np.arange(32, dtype=np.float32)
    # without SyncAll, "report" mode replays in (phase, block, program order) and reports the access it sees
    # second: block 0's add and read conflict with nothing yet; blocks 1-3 each add over an earlier block's read
    # and read an earlier block's add: two reports each, the accumulator's 32 bytes
    racy = [(b, pipe, 0, 32) for b in (1, 2, 3) for pipe in ("PIPE_MTE3", "PIPE_MTE2")]
    for read_back, sync, expected in [(False, False, []), (True, True, []), (True, False, racy)]:
        acc = np.zeros(8, np.float32)
        with aj.sanitize_session("report") as session:
            aj.launch(_atomic_sum, 4, A2, x, acc, read_back, sync)
        assert [(r.block, r.instruction.pipe, r.address, r.nbytes) for r in session.reports] == expected
        assert {r.check for r in session.reports} <= {"blocks"}
        assert acc.tolist() == x.reshape(4, 8).sum(axis=0).tolist()


# =================================================================================================================
# the sanitizer never changes a value (10.1: ordering events only)
# =================================================================================================================
def test_results_identical_with_and_without_the_sanitizer():
    outs = []
    for sanitize in (False, "report", "report,strict"):
        x = _x()
        y1, y2 = np.zeros(TILES * N, np.float16), np.zeros(TILES * N, np.float16)
        with aj.sanitize_session(sanitize or "report") as session:
            aj.launch(_double_buffer, 1, A2, x, y1, sanitize=sanitize, drop_free_flags=(sanitize == "report"))
            aj.launch(_tque_kernel, 1, A2, x, y2, sanitize=sanitize, queues=(sanitize != "report"))
        assert bool(session.reports) == (sanitize == "report")     # the racy variants report, values unchanged
        outs.append((y1.view(np.uint16).tolist(), y2.view(np.uint16).tolist()))
    assert outs[0] == outs[1] == outs[2]


# =================================================================================================================
# the README's entry points: `ascend-jit run FILE --sanitize` and `pytest --ascend-sanitize`
# =================================================================================================================
_KERNEL_FILE = """
import numpy as np
import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec


def kernel(x, y):
    xg, yg = aj.GlobalTensor(), aj.GlobalTensor()
    xg.SetGlobalBuffer(x, 128)
    yg.SetGlobalBuffer(y, 128)
    alloc = aj.LocalMemAllocator()
    t, u = alloc.Alloc("half", 128), alloc.Alloc("half", 128)
    aj.DataCopy(t, xg, 128)
    aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
    aj.Adds(u, t, 1.0, 128)
    if FLAGGED:
        aj.SetFlag(0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(yg, u, 128)


def test_kernel():
    x, y = np.ones(128, np.float16), np.zeros(128, np.float16)
    aj.launch(kernel, 1, "atlas-a2", x, y)
    assert (y == 2).all()


def run(device, inputs):
    y = np.zeros(128, np.float16)
    aj.launch(kernel, 1, device, inputs["x"], y)
    return {"y": y}


KERNEL = KernelSpec("audit36_copy_out", "Adds then a copy-out", lambda n, s: {"x": np.ones(128, np.float16)}, run,
                    lambda d, i: {"y": i["x"] + np.float16(1)}, default_size=128)
"""
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _subprocess(args, cwd):
    env = dict(os.environ, PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("ASCEND_JIT_SANITIZE", None)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("flagged", [False, True])
def test_cli_run_sanitize_and_pytest_option(tmp_path, flagged):
    path = tmp_path / "test_audit36_kernel.py"
    path.write_text(f"FLAGGED = {flagged}\n" + textwrap.dedent(_KERNEL_FILE))
    report = tmp_path / "reports.json"
    done = _subprocess(["-m", "ascend_jit.cli", "run", str(path), "--device", "atlas-a2", "--sanitize",
                        "--sanitize-json", str(report)], tmp_path)
    assert "PASS" in done.stdout                               # the values are right either way
    got = json.loads(report.read_text())
    if flagged:
        assert done.returncode == 0 and got == []
    else:
        assert done.returncode == 1
        assert [(r["check"], r["kind"], r["instruction"].split(" at ")[0], r["earlier"].split(" at ")[0],
                 r["address"], r["bytes"], r["block"]) for r in got] == [
            ("race", "RAW", "DataCopy [PIPE_MTE3]", "Adds [PIPE_V]", 256, 256, 0)]
        assert "HardEvent.V_MTE3" in got[0]["fix"]
    done = _subprocess(["-m", "pytest", "-q", *LEAN_SESSION, "--ascend-sanitize", str(path)], tmp_path)
    assert (done.returncode == 0) == flagged, done.stdout[-2000:]
    if not flagged:
        assert "SanitizerError" in done.stdout and "RAW" in done.stdout


# =================================================================================================================
# the implementations' own SetFlag/WaitFlag pairs (docs/decisions.md "The implementations' own flags")
# =================================================================================================================
P310, T910, B310, D950 = "atlas-inference-aicore", "atlas-training", "atlas-200i-500-a2", "ascend950"
_EVERY = (A2, P310, T910, B310, D950)


def _reduce_then_get(call):
    def k(core):
        x, d, w = _tiles(130 * N, 16, 4096)
        _host(x)
        call(d, x, w)
        d.GetValue(0)   # the kernel reads the result with no flag of its own
    return k


def _scalar_then(call, index=0):
    def k(core):
        x, d, w = _tiles(N, 64, 4096)
        _host(x)
        x.SetValue(index, 2.0)   # a scalar write the call then reads (or, for ArithProgression, overwrites)
        call(d, x, w)
    return k


def _brcb_stride_two(core):
    x, src, dst = _tiles(N, 16, 2 * N)
    _host(x)
    _host(src)
    aj.Duplicate(x, np.float16(1), N)
    aj.Brcb(dst, src, 1, aj.BrcbRepeatParams(2, 16))   # the 310P's scalar blocks: V_S first
    x.GetValue(0)


def _scalar_then_axpy_bits(core):
    x, f = core.local_tensor(H, N), core.local_tensor("float", 64)
    _host(x)
    _host(f)
    x.SetValue(0, 2.0)
    aj.Axpy(f, x, np.float16(2), [2**64 - 1, 0], 1, aj.UnaryRepeatParams(1, 1, 8, 4))


def _scalar_then_gather_mask_b32(core):
    x, d, pattern = core.local_tensor("float", 64), core.local_tensor("float", 64), core.local_tensor("uint32", 8)
    _host(x)
    pattern[:] = np.full(8, 0xFFFFFFFF, np.uint32)
    x.SetValue(0, 2.0)
    aj.GatherMask(d, x, pattern, True, 64, aj.GatherMaskParams(1, 1, 8, 8))


_OWN_CASES = [   # (what, kernel, devices where the pair is reported: the call leaves it unordered)
    ("ReduceSum count: V_S after the vector work (A2: ACC_VAL copied to dst[0]; 950: dst[0] read back)",
     _reduce_then_get(lambda d, x, w: aj.ReduceSum(d, x, w, 256)), ()),
    ("ReduceSum high-dim, at most L repeats: the scalar copy of tmp[0] to dst[0]",
     _reduce_then_get(lambda d, x, w: aj.ReduceSum(d, x, w, N, 4, 8)), (D950,)),
    ("ReduceSum high-dim, more than L repeats: ends with a vcadd into dst (910 / 310B: a V_S before it)",
     _reduce_then_get(lambda d, x, w: aj.ReduceSum(d, x, w, N, 130, 8)), _EVERY),
    ("ReduceMax count with the index, one repeat: one vcmax writes dst",
     _reduce_then_get(lambda d, x, w: aj.ReduceMax(d, x, w, 100, True)), _EVERY),
    ("ReduceMax count without the index: the scalar copy", _reduce_then_get(lambda d, x, w: aj.ReduceMax(d, x, w, 300)),
     (D950,)),
    ("ReduceMin high-dim with the index, two repeats: the scalar copy of value and index",
     _reduce_then_get(lambda d, x, w: aj.ReduceMin(d, x, w, N, 2, 8, True)), (D950,)),
    ("ReduceSum with a bit mask: the 310B writes the words to a scratch area, then S_V",
     _scalar_then(lambda d, x, w: aj.ReduceSum(d, x, w, [2**64 - 1, 2**64 - 1], 1, 8)), (A2, P310, T910, D950)),
    ("ReduceSum with a continuous mask: no scratch", _scalar_then(lambda d, x, w: aj.ReduceSum(d, x, w, N, 1, 8)),
     _EVERY),
    ("Cast with a bit mask: the 310B's scratch and S_V too",
     _scalar_then(lambda d, x, w: aj.Cast(w.ReinterpretCast("float"), x, aj.RoundMode.CAST_NONE, [2**64 - 1, 0], 1,
                                          aj.UnaryRepeatParams(1, 1, 8, 4))), (A2, P310, T910, D950)),
    ("ArithProgression past one DataBlock: the first block's SetValues, then S_V, then the Adds",
     _scalar_then(lambda d, x, w: d.SetValue(20, 2.0) or aj.ArithProgression(d, 0.0, 1.0, 64)), (D950,)),
    ("Brcb with a block stride of 2: the 310P's MTE2_S, V_S, MTE3_S, then a scalar read per block",
     _brcb_stride_two, (A2, D950)),
    ("Axpy of half into float with a bit mask: the 310B's scratch and S_V", _scalar_then_axpy_bits,
     (A2, P310, T910, D950)),
    ("GatherMask of floats by a pattern tensor in reduce mode: the 310B's S_V", _scalar_then_gather_mask_b32,
     (A2, P310, D950)),
]


@pytest.mark.parametrize("device", _EVERY)
@pytest.mark.parametrize("what, kernel, reported", _OWN_CASES, ids=[c[0].split(":")[0] for c in _OWN_CASES])
def test_the_implementations_own_flags_order_what_they_order_on_the_device(device, what, kernel, reported):
    """port52b: a GetValue of ReduceSum's dst straight after the call (ops-nn GroupNormSilu), which the devkit's own
    V_S inside the call orders on the device. SPEC-2 10.4 records the call as one PIPE_V access, so by default it
    is reported, its fix naming the implementation's pair and "device-sync"; with "device-sync" the pairs order
    (docs/decisions.md "The implementations' own flags"). Where the implementation has no such pair (a result one
    vector instruction writes, the 950's Reg implementations) neither mode orders it nor names the pair."""
    with aj.Core(device, sanitize="report") as core:
        try:
            kernel(core)
        except aj.UnsupportedDeviceError:
            pytest.skip(f"{device} does not offer the instruction")
    reports = core.sanitizer.reports
    assert reports and all(r.check == "race" and r.kind in ("RAW", "WAW") for r in reports), (what, reports)
    for r in reports:
        assert ("implementation issues its own SetFlag/WaitFlag" in r.fix) == (device not in reported), (what, r.fix)
    got, _ = _run(kernel, "device-sync,report", device=device)
    assert bool(got) == (device in reported), (what, got)


def test_a_reductions_own_scalar_wait_orders_a_later_copy_in_under_device_sync():
    """ReduceSum's own V_S is a wait of the scalar unit, which issues every later instruction after it
    (docs/decisions.md "The device's synchronisation"): a Duplicate's bytes copied over after the ReduceSum are
    ordered on the device; by default the WAW is reported and its fix names "device-sync"."""
    def k(core):
        x, y, d, w = _tiles(N, N, 16, N)
        _host(y)
        aj.Duplicate(x, np.float16(0), N)
        aj.ReduceSum(d, y, w, N)
        aj.DataCopy(x, _gm(), N)
    with aj.Core(A2, sanitize="report") as core:
        k(core)
    (report,) = core.sanitizer.reports
    assert (report.kind, report.earlier.api, report.instruction.api) == ("WAW", "Duplicate", "DataCopy")
    assert "'device-sync'" in report.fix
    assert _run(k, "device-sync,report")[0] == []
