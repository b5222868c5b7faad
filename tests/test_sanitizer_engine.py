"""The sanitizer's engine (issue 17, SPEC-2 §10.4) driven through its hooks: vector clocks, shadow init bits, the
memory and cross-block checks. Kernel-level tests (broken kernels and their fixes) live in test_sanitizer.py."""
import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.api._common import Operand
from ascend_jit import sanitizer
from ascend_jit.errors import ParameterError, SanitizerError
from ascend_jit.sanitizer import (PIPE_MTE2, PIPE_MTE3, PIPE_S, PIPE_V, Access, SanitizeConfig, _addresses,
                                  compact, operand_bytes, resolve_config)


def _core(mode="report", **kw):
    return aj.Core("atlas-a2", sanitize=SanitizeConfig(mode=mode, **kw))


def _w(addr, n, name="dst"):
    return Access.of_run(name, addr, n, True)


def _r(addr, n, name="src"):
    return Access.of_run(name, addr, n, False)


def test_copy_in_then_vector_read_without_flag_is_a_raw_race():
    core = _core()
    s = core.sanitizer
    s.instruction("DataCopy", PIPE_MTE2, [_w(0, 256)], where="k.py:1")
    s.instruction("Add", PIPE_V, [_r(0, 256), _w(512, 256)], where="k.py:2")
    [rep] = s.reports
    assert (rep.check, rep.kind, rep.address, rep.nbytes) == ("race", "RAW", 0, 256)
    assert rep.earlier.api == "DataCopy" and rep.instruction.where == "k.py:2"
    assert "HardEvent.MTE2_V" in rep.fix


def test_flag_pair_orders_and_chains_are_transitive():
    core = _core()
    s = core.sanitizer
    s.instruction("DataCopy", PIPE_MTE2, [_w(0, 256)])
    s.set_flag(PIPE_MTE2, PIPE_V, 0)
    s.wait_flag(PIPE_MTE2, PIPE_V, 0)
    s.instruction("Add", PIPE_V, [_r(0, 256), _w(512, 256)])
    s.set_flag(PIPE_V, PIPE_MTE3, 0)
    s.wait_flag(PIPE_V, PIPE_MTE3, 0)
    s.instruction("DataCopy", PIPE_MTE3, [_r(0, 256), _r(512, 256)])   # MTE2's and V's bytes: ordered by the chain
    assert s.reports == []


def test_set_without_wait_orders_nothing():
    core = _core()
    s = core.sanitizer
    s.instruction("Add", PIPE_V, [_w(0, 64)])
    s.set_flag(PIPE_V, PIPE_S, 0)
    s.instruction("GetValue", PIPE_S, [_r(0, 2)])
    assert [r.kind for r in s.reports] == ["RAW"] and "V_S" in s.reports[0].fix


def test_war_and_waw_between_pipes_and_the_barrier():
    core = _core()
    s = core.sanitizer
    s.host_write(0, 1024)
    s.instruction("Add", PIPE_V, [_r(0, 256), _w(256, 256)])
    s.instruction("DataCopy", PIPE_MTE2, [_w(0, 512)])      # overwrites what V read (WAR) and wrote (WAW)
    assert {r.kind for r in s.reports} == {"WAR", "WAW"}
    assert all("V_MTE2" in r.fix for r in s.reports)
    s.reports.clear()
    s.pipe_barrier("PIPE_ALL")
    s.instruction("DataCopy", PIPE_MTE2, [_w(0, 512)])
    s.instruction("DataCopy", PIPE_MTE3, [_r(2048, 8)])
    assert [r.check for r in s.reports] == ["init"]          # only the never-written bytes


def test_init_reports_exactly_the_unwritten_lanes():
    core = _core(checks=("init",))
    s = core.sanitizer
    lanes = Operand("dst", 0, 2, (1 << 64) - 1, 0, 1, 1, 8)   # a 64-lane partial write of halves
    s.instruction("Duplicate", PIPE_V, [Access.of_operand(lanes, True)])
    full = Operand("src", 0, 2, (1 << 64) - 1, (1 << 64) - 1, 1, 1, 8)
    s.instruction("Add", PIPE_V, [Access.of_operand(full, False)])
    [rep] = s.reports
    assert (rep.kind, rep.address, rep.nbytes) == ("uninitialised read", 128, 128)
    s.reports.clear()
    s.instruction("Add", PIPE_V, [Access.of_operand(Operand("src", 0, 2, (1 << 64) - 1, 0, 1, 1, 8), False)])
    assert s.reports == []                                   # masked-off lanes are not reads


def test_hand_off_orders_and_undefine_uninitialises():
    core = _core()
    s = core.sanitizer
    s.instruction("DataCopy", PIPE_MTE2, [_w(0, 256)])
    s.hand_off(0, 256)                                       # EnQue .. DeQue
    s.instruction("Add", PIPE_V, [_r(0, 256), _w(256, 256)])
    assert s.reports == []
    s.undefine(0, 32)
    s.instruction("Add", PIPE_V, [_r(0, 64)])
    assert [(r.check, r.nbytes) for r in s.reports] == [("init", 32)]


def test_strict_reports_same_pipe_vector_raw_without_barrier():
    for strict, expected in ((False, []), (True, ["RAW"])):
        core = _core(strict=strict)
        s = core.sanitizer
        s.host_write(0, 512)
        s.instruction("Add", PIPE_V, [_r(0, 256), _w(256, 256)])
        s.instruction("Mul", PIPE_V, [_r(256, 256)])
        assert [r.kind for r in s.reports] == expected
    core = _core(strict=True)
    s = core.sanitizer
    s.host_write(0, 512)
    s.instruction("Add", PIPE_V, [_r(0, 256), _w(256, 256)])
    s.pipe_barrier(PIPE_V)
    s.instruction("Mul", PIPE_V, [_r(256, 256)])
    assert s.reports == []


def test_strict_same_pipe_pairs_ordered_through_another_pipe():
    """"strict" (SPEC-2 10.4) asks a PipeBarrier between same-pipe pairs; a flag round trip through another pipe orders
    them too (MTE2 -> V -> MTE2 is the hand-written double buffer, V -> S -> V a GetValue/SetValue between vector
    calls), as the TQue hand-off that stands for the same flags already does (sanit13: both were reported)."""
    def run(chain):
        s = _core(strict=True).sanitizer
        s.host_write(0, 512)
        first, middle = chain
        s.instruction("first", first, [_w(0, 256)])
        s.set_flag(first, middle, 0)
        s.wait_flag(first, middle, 0)
        s.instruction("middle", middle, [_r(0, 2)])
        s.set_flag(middle, first, 0)
        s.wait_flag(middle, first, 0)
        s.instruction("second", first, [_r(0, 256)] if first == PIPE_V else [_w(0, 256)])
        return [(r.kind, r.instruction.api, r.earlier.api) for r in s.reports]
    assert run((PIPE_V, PIPE_S)) == []
    assert run((PIPE_MTE2, PIPE_V)) == []
    s = _core(strict=True).sanitizer   # a flag from the same pipe's future does not order: still reported
    s.host_write(0, 512)
    s.set_flag(PIPE_V, PIPE_S, 0)
    s.wait_flag(PIPE_V, PIPE_S, 0)
    s.instruction("Add", PIPE_V, [_w(0, 256)])
    s.set_flag(PIPE_S, PIPE_V, 0)
    s.wait_flag(PIPE_S, PIPE_V, 0)
    s.instruction("Mul", PIPE_V, [_r(0, 256)])
    assert [(r.kind, r.instruction.api, r.earlier.api) for r in s.reports] == [("RAW", "Mul", "Add")]


def test_strict_reports_overlapping_copy_out_destinations_without_mte3_barrier():
    """SPEC-2 10.4 "strict": overlapping MTE3 destinations (GM) need PipeBarrier<PIPE_MTE3> (audit: only the UB
    side was checked, so two copy-outs into one GM range passed)."""
    def run(strict, barrier, lo2=64, atomic=False):
        with aj.Core("atlas-a2", sanitize=SanitizeConfig(mode="report", strict=strict)) as core:
            src = aj.LocalMemAllocator().Alloc("half", 128)
            src[:] = np.ones(128, np.float16)
            gm = aj.GlobalTensor(np.zeros(256, np.float16))
            if atomic:
                aj.SetAtomicAdd("half")
            aj.DataCopy(gm[0:], src, 128)
            if barrier:
                aj.PipeBarrier(barrier)
            aj.DataCopy(gm[lo2:], src, 128)
        return [(r.check, r.kind, r.space, r.address, r.nbytes, r.earlier.api) for r in core.sanitizer.reports]
    assert run(True, None) == [("race", "WAW", "GM", 128, 128, "DataCopy")]
    assert run(False, None) == []
    assert run(True, aj.PIPE_MTE3) == [] and run(True, aj.PIPE_ALL) == []
    assert run(True, aj.PIPE_V) == [("race", "WAW", "GM", 128, 128, "DataCopy")]
    assert run(True, None, lo2=128) == []          # adjacent, not overlapping
    assert run(True, None, atomic=True) == []      # atomic copies combine in any order


def test_raise_mode_raises_before_recording():
    core = _core(mode="raise")
    s = core.sanitizer
    with pytest.raises(SanitizerError, match=r"\[init\] uninitialised read") as info:
        s.instruction("Add", PIPE_V, [_r(0, 64), _w(64, 64)])
    assert info.value.report.address == 0
    assert not s.initialised[64:128].any() and s.log == []   # the refused instruction recorded nothing


def test_memory_check_on_ub_bounds_cores_only():
    for bounds, expected in (("ub", ["memory"]), ("tensor", [])):
        core = aj.Core("atlas-a2", bounds=bounds, sanitize="report")
        t = core.local_tensor("half", 64)
        core.sanitizer.host_write(0, core.spec.ub_bytes)
        core.sanitizer.instruction("Add", PIPE_V, [Access.of_run("src0", t.addr, 256, False, tensor=t)])
        assert [r.check for r in core.sanitizer.reports] == expected
        if expected:
            assert core.sanitizer.reports[0].address == t.addr + 128


@pytest.mark.parametrize("value, checks, mode, strict", [
    (True, ("race", "init", "memory", "blocks", "sync"), "raise", False),
    ("report", ("race", "init", "memory", "blocks", "sync"), "report", False),
    ("race,init,strict", ("race", "init"), "raise", True),
])
def test_config_spellings(value, checks, mode, strict, monkeypatch):
    cfg = resolve_config(value)
    assert (cfg.checks, cfg.mode, cfg.strict) == (checks, mode, strict)
    assert resolve_config(False) is None
    with pytest.raises(ParameterError):
        resolve_config("races")
    monkeypatch.setenv("ASCEND_JIT_SANITIZE", "report")
    monkeypatch.setattr(sanitizer, "_sessions", [])   # the variable applies outside every sanitize_session
    assert aj.Core("atlas-a2").sanitize.mode == "report"
    core = aj.Core("atlas-a2", sanitize=False)
    assert core.sanitizer is None and core.sanitize is False


@settings(max_examples=150, deadline=None)
@given(size=st.sampled_from([2, 4]), blk=st.integers(0, 9), rep=st.integers(0, 12), repeat=st.integers(0, 5),
       lo=st.integers(0, (1 << 64) - 1), hi=st.integers(0, (1 << 64) - 1), last=st.integers(-1, 70))
def test_operand_bytes_equal_the_exact_footprint(size, blk, rep, repeat, lo, hi, last):
    lanes = 256 // size
    if last > lanes:
        last = lanes
    if last >= 0 and repeat == 0:
        repeat = 1
    op = Operand("src", 4096, size, lo, hi if size == 2 else 0, repeat, blk, rep, last)
    got = operand_bytes(op)
    np.testing.assert_array_equal(got, op.footprint())
    np.testing.assert_array_equal(_addresses(compact(got)), op.footprint())


_PIPES = (PIPE_S, PIPE_V, PIPE_MTE2, PIPE_MTE3)
_EVENTS = st.one_of(   # small ranges in a small space: runs overlap partly, so bytes of one run have different pasts
    st.tuples(st.just("access"), st.sampled_from(_PIPES), st.booleans(), st.integers(0, 48), st.integers(1, 48)),
    st.tuples(st.just("flag"), st.sampled_from(_PIPES), st.sampled_from(_PIPES)),
    st.tuples(st.just("barrier"), st.sampled_from(_PIPES[1:] + ("PIPE_ALL",))),
    st.tuples(st.just("hand_off"), st.integers(0, 48), st.integers(1, 48)),
    st.tuples(st.just("host"), st.integers(0, 48), st.integers(1, 48)))


@settings(max_examples=200, deadline=None)
@given(events=st.lists(_EVENTS, max_size=25), strict=st.booleans())
@example(events=[("access", PIPE_V, False, 0, 32), ("access", PIPE_MTE2, True, 16, 16),
                 ("access", PIPE_MTE2, True, 0, 32)], strict=False)   # older reads under a newer partial write
def test_run_pre_checks_agree_with_the_byte_walk(events, strict):
    """A contiguous run is first asked with vectorised reductions whether a check can fail; an address array is always
    walked byte by byte. The same history through both gives the same reports."""
    seen = []
    for as_run in (True, False):
        s = _core(strict=strict).sanitizer
        for e in events:
            if e[0] == "access":
                _, pipe, write, start, n = e
                addrs = slice(start, start + n) if as_run else np.arange(start, start + n, dtype=np.int64)
                s.instruction("X", pipe, [Access("t", write, addrs)], where="x")
            elif e[0] == "flag":
                s.set_flag(e[1], e[2], 0)
                s.wait_flag(e[1], e[2], 0)
            elif e[0] == "barrier":
                s.pipe_barrier(e[1])
            elif e[0] == "hand_off":
                s.hand_off(e[1], e[2])
            else:
                s.host_write(e[1], e[2])
        seen.append([(r.check, r.kind, r.address, r.nbytes, r.earlier.seq if r.earlier else None) for r in s.reports])
    assert seen[0] == seen[1]
