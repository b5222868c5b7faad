"""The sync model under the sanitizer, black box (session 16 audit): every pipe pair of SPEC-2 10.4 with and without
its ordering event, the TQue hand-off's extent (EnQue .. DeQue between the two accesses), ReduceMax/ReduceMin's
sharedTmpBuffer (D54) as a vector write, and the configuration's refusals. Small kernels on one core: no launch, no
new compiled kernel beyond those the other sanitizer tests use."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit import sanitizer

H = "half"


def _gm(n=128):
    return aj.GlobalTensor(np.arange(n, dtype=np.float16))


def _out(n=128):
    return aj.GlobalTensor(np.zeros(n, np.float16))


def _flag(event, event_id=0):
    aj.SetFlag(event_id, event=getattr(aj.HardEvent, event))
    aj.WaitFlag(event_id, event=getattr(aj.HardEvent, event))


def _ones(t):
    t[:] = np.ones(t.size, np.float16)


def _reports(kernel, device="atlas-a2", sanitize="report"):
    with aj.Core(device, sanitize=sanitize) as core:
        kernel(core)
    return [(r.check, r.kind, r.instruction.api, r.earlier.api if r.earlier else None)
            for r in core.sanitizer.reports]


def _tiles(*sizes):
    alloc = aj.LocalMemAllocator()
    return [alloc.Alloc(H, n) for n in sizes]


# --- every pipe pair (SPEC-2 10.4): the hazard without its event, nothing with it --------------------------------
def _copy_in_then_vector(fix):
    def kernel(core):
        x, z = _tiles(128, 128)
        aj.DataCopy(x, _gm(), 128)
        fix()
        aj.Add(z, x, x, 128)
    return kernel


def _vector_then_copy_out(fix):
    def kernel(core):
        x, = _tiles(128)
        aj.Duplicate(x, 1.0, 128)
        fix()
        aj.DataCopy(_out(), x, 128)
    return kernel


def _copy_out_then_copy_in(fix):
    def kernel(core):
        x, = _tiles(128)
        _ones(x)
        aj.DataCopy(_out(), x, 128)
        fix()
        aj.DataCopy(x, _gm(), 128)
    return kernel


def _vector_read_then_copy_in(fix):
    def kernel(core):
        x, z = _tiles(128, 128)
        _ones(x)
        aj.Add(z, x, x, 128)
        fix()
        aj.DataCopy(x, _gm(), 128)
    return kernel


def _set_value_then_vector(fix):
    def kernel(core):
        x, z = _tiles(128, 128)
        _ones(x)
        x.SetValue(3, 2.0)
        fix()
        aj.Add(z, x, x, 128)
    return kernel


def _set_value_then_copy_out(fix):
    def kernel(core):
        x, = _tiles(128)
        _ones(x)
        x.SetValue(3, 2.0)
        fix()
        aj.DataCopy(_out(), x, 128)
    return kernel


def _copy_in_then_get_value(fix):
    def kernel(core):
        x, = _tiles(128)
        aj.DataCopy(x, _gm(), 128)
        fix()
        x.GetValue(3)
    return kernel


def _copy_out_then_set_value(fix):
    def kernel(core):
        x, = _tiles(128)
        _ones(x)
        aj.DataCopy(_out(), x, 128)
        fix()
        x.SetValue(0, 3.0)
    return kernel


def _copy_in_then_copy_out(fix):
    def kernel(core):
        x, = _tiles(128)
        aj.DataCopy(x, _gm(), 128)
        fix()
        aj.DataCopy(_out(), x, 128)
    return kernel


def _nothing():
    pass


def _event(name):
    return lambda: _flag(name)


_PAIRS = [   # (kernel, its report, the event that fixes it)
    (_copy_in_then_vector, ("race", "RAW", "Add", "DataCopy"), "MTE2_V"),
    (_vector_then_copy_out, ("race", "RAW", "DataCopy", "Duplicate"), "V_MTE3"),
    (_copy_out_then_copy_in, ("race", "WAR", "DataCopy", "DataCopy"), "MTE3_MTE2"),
    (_vector_read_then_copy_in, ("race", "WAR", "DataCopy", "Add"), "V_MTE2"),
    (_set_value_then_vector, ("race", "RAW", "Add", "SetValue"), "S_V"),
    (_set_value_then_copy_out, ("race", "RAW", "DataCopy", "SetValue"), "S_MTE3"),
    (_copy_in_then_get_value, ("race", "RAW", "GetValue", "DataCopy"), "MTE2_S"),
    (_copy_out_then_set_value, ("race", "WAR", "SetValue", "DataCopy"), "MTE3_S"),
    (_copy_in_then_copy_out, ("race", "RAW", "DataCopy", "DataCopy"), "MTE2_MTE3"),
]


@pytest.mark.parametrize("make, report, event", _PAIRS, ids=[p[2] for p in _PAIRS])
def test_each_pipe_pair_needs_its_event_and_nothing_else(make, report, event):
    assert _reports(make(_nothing)) == [report]
    assert _reports(make(_event(event))) == []
    assert _reports(make(lambda: aj.PipeBarrier(aj.PIPE_ALL))) == []
    src, dst = event.split("_")
    # the reverse event, a barrier of one pipe, or the pair set before the earlier access order nothing
    assert _reports(make(_event(f"{dst}_{src}") if f"{dst}_{src}" in aj.HardEvent.__members__ else _nothing)) == [report]
    assert _reports(make(lambda: aj.PipeBarrier(aj.PIPE_V))) == [report]


def test_a_flag_set_before_the_earlier_access_or_waited_after_the_later_orders_nothing():
    def set_first(core):
        x, z = _tiles(128, 128)
        aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
        aj.DataCopy(x, _gm(), 128)
        aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
        aj.Add(z, x, x, 128)

    def wait_last(core):
        x, z = _tiles(128, 128)
        aj.DataCopy(x, _gm(), 128)
        aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
        aj.Add(z, x, x, 128)
        aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)

    def chain_through_scalar(core):   # MTE2 -> S -> V orders the copy before the vector read (transitively)
        x, z = _tiles(128, 128)
        aj.DataCopy(x, _gm(), 128)
        _flag("MTE2_S")
        _flag("S_V")
        aj.Add(z, x, x, 128)

    assert _reports(set_first) == [("race", "RAW", "Add", "DataCopy")]
    assert _reports(wait_last) == [("race", "RAW", "Add", "DataCopy")]
    assert _reports(chain_through_scalar) == []


# --- TQue: the EnQue/DeQue pair must lie between the two accesses (SPEC-2 10.4) ----------------------------------
def _queue(position=aj.TPosition.VECIN):
    pipe = aj.TPipe()
    que = aj.TQue(position, 1)
    pipe.InitBuffer(que, 1, 256)
    scratch = aj.TBuf(aj.TPosition.VECCALC)
    pipe.InitBuffer(scratch, 256)
    return que, scratch.Get(H)


def _copy_in_after_enque(again):
    def kernel(core):
        que, z = _queue()
        x = que.AllocTensor(H)
        aj.DataCopy(x, _gm(), 128)
        que.EnQue(x)
        if again:
            aj.DataCopy(x, _gm(), 128)   # MTE2 writes the tensor after its EnQue: the DeQue does not order it
        x = que.DeQue(H)
        aj.Add(z, x, x, 128)
        que.FreeTensor(x)
    return kernel


def _vector_after_enque(again):
    def kernel(core):
        que, _ = _queue(aj.TPosition.VECOUT)
        z = que.AllocTensor(H)
        aj.Duplicate(z, 1.0, 128)
        que.EnQue(z)
        if again:
            aj.Duplicate(z, 2.0, 128)     # the output changed after its EnQue: the copy-out may read either
        z = que.DeQue(H)
        aj.DataCopy(_out(), z, 128)
        que.FreeTensor(z)
    return kernel


def test_a_write_to_an_enqueued_tensor_is_not_ordered_by_its_dequeue():
    assert _reports(_copy_in_after_enque(False)) == []
    assert _reports(_copy_in_after_enque(True)) == [("race", "RAW", "Add", "DataCopy")]
    assert _reports(_vector_after_enque(False)) == []
    assert _reports(_vector_after_enque(True)) == [("race", "RAW", "DataCopy", "Duplicate")]


def test_a_read_between_enque_and_dequeue_is_not_ordered_before_the_consumers_write():
    def kernel(core):
        que, _ = _queue(aj.TPosition.VECOUT)
        z = que.AllocTensor(H)
        aj.Duplicate(z, 1.0, 128)
        que.EnQue(z)
        aj.DataCopy(_out(), z, 128)       # copied out before the DeQue: RAW, and it has not finished below
        z = que.DeQue(H)
        aj.Duplicate(z, 2.0, 128)         # WAR against that copy-out
        que.FreeTensor(z)
    assert _reports(kernel) == [("race", "RAW", "DataCopy", "Duplicate"), ("race", "WAR", "Duplicate", "DataCopy")]


def test_a_dequeue_on_a_core_that_started_sanitizing_after_the_enque_orders_nothing_it_saw():
    with aj.Core("atlas-a2") as core:
        que, z = _queue()
        x = que.AllocTensor(H)
        aj.DataCopy(x, _gm(), 128)
        que.EnQue(x)
        core.sanitize = "report"
        aj.DataCopy(x, _gm(), 128)        # seen by the sanitizer, after the EnQue
        x = que.DeQue(H)
        aj.Add(z, x, x, 128)
        que.FreeTensor(x)
    assert [(r.kind, r.earlier.api) for r in core.sanitizer.reports] == [("RAW", "DataCopy")]


# --- ReduceMax / ReduceMin sharedTmpBuffer (D54: written on the non-950 devices, unspecified after) ---------------
def _reduce_max_tiles(core):
    alloc = aj.LocalMemAllocator()
    x, dst, tmp = alloc.Alloc("float", 256), alloc.Alloc("float", 8), alloc.Alloc("float", 64)
    x[:] = np.arange(256, dtype=np.float32)
    return x, dst, tmp


def test_reduce_max_writes_its_tmp_on_the_vector_pipe():
    def kernel(core):
        x, dst, tmp = _reduce_max_tiles(core)
        tmp[:] = np.ones(64, np.float32)
        aj.DataCopy(aj.GlobalTensor(np.zeros(64, np.float32)), tmp, 64)   # MTE3 still reading tmp
        aj.ReduceMax(dst, x, tmp, 256)
    assert _reports(kernel) == [("race", "WAR", "ReduceMax", "DataCopy")]
    assert _reports(kernel, device="ascend950") == []                    # the 950 never touches tmp


def test_reduce_min_tmp_is_unspecified_after_the_call_but_dst_over_it_is_defined():
    need = aj.GetReduceMaxMinTmpSize("atlas-a2", "float", repeat_time=4, cal_index=True)

    def read_tmp_after(core):
        x, dst, tmp = _reduce_max_tiles(core)
        tmp[:] = np.ones(64, np.float32)
        aj.ReduceMin(dst, x, tmp, 64, 4, 8, True)
        aj.Add(tmp, tmp, tmp, need)                # the first `need` elements hold the algorithm's leftovers

    def dst_inside_tmp(core):
        x, _, tmp = _reduce_max_tiles(core)
        aj.ReduceMin(tmp, x, tmp, 64, 4, 8, True)
        _flag("V_S")
        return tmp.GetValue(0), tmp.GetValue(1)  # the value and the index: defined

    [report] = _reports(read_tmp_after)
    assert report == ("init", "uninitialised read", "Add", None)
    assert _reports(dst_inside_tmp) == []


# --- configuration: refusals name the API, the parameter, the value and the legal range --------------------------
@pytest.mark.parametrize("call, api, parameter", [
    (lambda v: aj.Core("atlas-a2", sanitize=v), "Core", "sanitize"),
    (lambda v: setattr(aj.Core("atlas-a2"), "sanitize", v), "Core", "sanitize"),
    (lambda v: aj.launch(lambda: None, 1, "atlas-a2", sanitize=v), "launch", "sanitize"),
    (lambda v: aj.sanitize_session(v).__enter__(), "sanitize_session", "value"),
])
def test_bad_sanitize_values_are_refused_naming_the_call(call, api, parameter):
    for value in ("races", "raise,report", 2, ("race",)):
        with pytest.raises(aj.ParameterError) as info:
            call(value)
        assert (info.value.api, info.value.parameter, info.value.value) == (api, parameter, value)
        assert "race, init, memory, blocks, sync" in info.value.legal


def test_the_environment_variable_is_named_and_reads_off_words(monkeypatch):
    monkeypatch.setattr(sanitizer, "_sessions", [])
    monkeypatch.setenv("ASCEND_JIT_SANITIZE", "bogus")
    with pytest.raises(aj.ParameterError, match="ASCEND_JIT_SANITIZE"):
        aj.Core("atlas-a2")
    for off in ("0", "false", "OFF", "no", ""):
        monkeypatch.setenv("ASCEND_JIT_SANITIZE", off)
        assert aj.Core("atlas-a2").sanitizer is None
    monkeypatch.setenv("ASCEND_JIT_SANITIZE", "On")
    assert aj.Core("atlas-a2").sanitize.mode == "raise"


def test_sanitize_config_strict_is_a_bool():
    for strict in ("no", 1, None):
        with pytest.raises(aj.ParameterError) as info:
            aj.SanitizeConfig(strict=strict)
        assert (info.value.api, info.value.parameter, info.value.value) == ("SanitizeConfig", "strict", strict)
    assert aj.SanitizeConfig(strict=np.bool_(True)).strict


def _event_id_kept():
    aj.TPipe()
    aj.GetTPipePtr().AllocEventID(aj.HardEvent.V_MTE3)


def test_the_sync_report_names_the_event_id_not_a_byte():
    with aj.sanitize_session("report") as session:
        aj.launch(_event_id_kept, 1, "atlas-a2")
    [report] = session.reports
    assert (report.check, report.operand, report.address) == ("sync", "V_MTE3", 0)
    assert "operand V_MTE3, id 0." in str(report) and "byte" not in str(report)


def test_the_cli_names_its_own_option_when_refusing_sanitizer_checks(capsys):
    from ascend_jit import cli
    for words in ("bogus", "off"):
        assert cli.main(["run", "add", "--sanitize", "--sanitize-checks", words]) == 2
        err = capsys.readouterr().err
        assert f"run add: parameter '--sanitize-checks' = '{words}'" in err and "race, init" in err


# --- strict mode inside a Reg VF: LocalMemBar is the VF's barrier (PipeBarrier has no place in a VF) ---------------
def _vf_store_then_load(x, y, before, after):
    R = aj.Reg
    mask = R.CreateMask(H)
    reg, back = R.RegTensor(H), R.RegTensor(H)
    R.LoadAlign(reg, x)
    R.StoreAlign(y, reg, mask)
    if before is not None:
        R.LocalMemBar(before, after)
    R.LoadAlign(back, y)       # reads what the store above wrote: strict's same-pipe RAW


@pytest.mark.parametrize("before, after, reported", [
    (None, None, True),
    (aj.Reg.MemType.VEC_STORE, aj.Reg.MemType.VEC_LOAD, False),
    (aj.Reg.MemType.VEC_ALL, aj.Reg.MemType.VEC_ALL, False),
    (aj.Reg.MemType.VEC_STORE, aj.Reg.MemType.SCALAR_LOAD, True),   # orders the store before scalar reads only
    (1, 2, True),   # VEC_LOAD -> SCALAR_STORE (the devkit's values): loads before the barrier, not the store
    (aj.Reg.MemType.VEC_STORE, aj.Reg.MemType.VEC_STORE, True),   # stores after stores, not the load
])
def test_strict_accepts_local_mem_bar_from_stores_to_loads_inside_a_vf(before, after, reported):
    def kernel(core):
        x, y = _tiles(128, 128)
        _ones(x)
        _vf_store_then_load(x, y, before, after)
    reports = _reports(kernel, device="ascend950", sanitize="report,strict")
    assert reports == ([("race", "RAW", "LoadAlign", "StoreAlign")] if reported else [])


# --- GetValue / SetValue inside a Reg VF: the VF's own SCALAR_LOAD / SCALAR_STORE accesses (port60e) --------------
def _vf_store(y, x):
    R = aj.Reg
    reg = R.RegTensor(H)
    R.LoadAlign(reg, x)
    R.StoreAlign(y, reg, R.CreateMask(H))


def _vf_scalar_read(y, z, barrier):
    """A scalar read inside a VF of a value the VF before it, or this one (`barrier` not None: a store here first,
    then LocalMemBar(*barrier) unless it is ()), stored; the value goes back out through a vector store."""
    R = aj.Reg
    mask = R.CreateMask(H)
    reg = R.RegTensor(H)
    if barrier is not None:
        R.LoadAlign(reg, z)
        R.StoreAlign(y, reg, mask)
        if barrier:
            R.LocalMemBar(*barrier)
    R.Duplicate(reg, y.GetValue(3), mask)
    R.StoreAlign(z, reg, mask)


@pytest.mark.parametrize("sanitize", ["report", "report,device-sync", "report,strict,device-sync"])
def test_a_getvalue_inside_a_vf_is_ordered_after_the_vf_before_it(sanitize):
    """ops-cv's resize reads indices a previous VF stored with GetValue inside its VF: no synchronisation between VFs
    (the devkit's "用户不需要管理VF和VF之间的同步"); it had been reported as a V -> S race whose fix, a V_S flag, has
    no place inside a VF."""
    def kernel(core):
        x, y, z = _tiles(128, 128, 128)
        _ones(x)
        _ones(z)
        aj.Reg.simd_vf(_vf_store)(y, x)
        aj.Reg.simd_vf(_vf_scalar_read)(y, z, None)
    assert _reports(kernel, device="ascend950", sanitize=sanitize) == []


@pytest.mark.parametrize("barrier", [(), (aj.Reg.MemType.VEC_STORE, aj.Reg.MemType.SCALAR_LOAD)])
def test_strict_leaves_a_vfs_getvalue_after_its_own_store_unchecked(barrier):
    """"strict"'s same-pipe RAW is a vector read's: the shadow keeps no kind per byte, so a VF's scalar read after its
    own vector store is not checked against the vector barriers (decisions.md "Sanitizer"); a vector load there is
    (test_strict_accepts_local_mem_bar_from_stores_to_loads_inside_a_vf)."""
    def kernel(core):
        y, z = _tiles(128, 128)
        _ones(z)
        aj.Reg.simd_vf(_vf_scalar_read)(y, z, barrier)
    assert _reports(kernel, device="ascend950", sanitize="report,strict") == []


def _vf_scalar_write(y):
    y.SetValue(3, 2.0)


@pytest.mark.parametrize("fix", [False, True])
def test_a_vfs_scalar_access_is_the_vector_pipes_against_the_scalar_unit(fix):
    """A SetValue outside any VF then a VF's GetValue of it needs S_V, and a VF's SetValue then a GetValue outside it
    V_S: the VF runs on the vector pipe (decisions.md "Sanitizer"; SPEC-2 10.4 names PIPE_S for GetValue / SetValue,
    which have no VF there)."""
    def kernel(core):
        y, z = _tiles(128, 128)
        _ones(y)
        _ones(z)
        y.SetValue(3, 2.0)
        if fix:
            _flag("S_V")
        aj.Reg.simd_vf(_vf_scalar_read)(y, z, None)
        aj.Reg.simd_vf(_vf_scalar_write)(z)
        if fix:
            _flag("V_S")
        z.GetValue(3)
    expected = [] if fix else [("race", "RAW", "GetValue (in a VF)", "SetValue"),
                               ("race", "RAW", "GetValue", "SetValue (in a VF)")]
    assert _reports(kernel, device="ascend950") == expected


def test_a_getvalue_inside_a_vf_waits_for_a_copy_in_by_mte2_v():
    """A VF's scalar read of bytes DataCopy brought in is ordered by the VF's own MTE2_V flag (not MTE2_S)."""
    def kernel(core, fix):
        y, z = _tiles(128, 128)
        _ones(z)
        aj.DataCopy(y, _gm(), 128)
        if fix:
            _flag("MTE2_V")
        aj.Reg.simd_vf(_vf_scalar_read)(y, z, None)
    with aj.Core("ascend950", sanitize="report") as core:
        kernel(core, False)
    [report] = core.sanitizer.reports
    assert (report.kind, report.instruction.api, report.earlier.api) == ("RAW", "GetValue (in a VF)", "DataCopy")
    assert "MTE2_V" in report.fix
    assert _reports(lambda c: kernel(c, True), device="ascend950") == []


def test_a_getvalue_after_a_vf_outside_any_vf_is_still_the_scalar_pipe():
    def kernel(core, fix):
        x, y = _tiles(128, 128)
        _ones(x)
        aj.Reg.simd_vf(_vf_store)(y, x)
        if fix:
            _flag("V_S")
        y.GetValue(3)
    assert _reports(lambda c: kernel(c, False), device="ascend950") == [("race", "RAW", "GetValue", "StoreAlign")]
    assert _reports(lambda c: kernel(c, True), device="ascend950") == []


def test_mem_type_has_the_devkits_values_and_local_mem_bar_its_pairs():
    """kernel_reg_compute_utils.h's enum order; a pair outside kernel_reg_compute_membar_impl.h's static_assert is
    the same ParameterError compiled and plain."""
    R = aj.Reg
    assert [(m.name, int(m)) for m in R.MemType] == [("VEC_STORE", 0), ("VEC_LOAD", 1), ("SCALAR_STORE", 2),
                                                       ("SCALAR_LOAD", 3), ("VEC_ALL", 4), ("SCALAR_ALL", 5)]
    messages = []
    for compiled in (True, False):
        with aj.Core("ascend950"):
            vf = R.simd_vf(_barrier_pair)
            with pytest.raises(aj.ParameterError, match="VEC_LOAD -> VEC_LOAD.*VEC_STORE -> VEC_LOAD") as info:
                (vf if compiled else vf.py_func)(R.MemType.VEC_LOAD, R.MemType.VEC_LOAD)
            messages.append(str(info.value))
            (vf if compiled else vf.py_func)(R.MemType.SCALAR_LOAD, R.MemType.VEC_STORE)
    assert messages[0] == messages[1]


def _barrier_pair(before, after):
    aj.Reg.LocalMemBar(before, after)


def test_strict_vector_raw_ordered_through_the_scalar_pipe_and_a_data_sync_barrier():
    """V -> V_S -> DataSyncBarrier<UB> -> V: the barrier makes every later instruction wait for what the scalar
    pipe had waited for (docs/decisions.md "DataSyncBarrier"), so the vector write is complete before the read, as
    with a WaitFlag round trip; without the V_S pair the scalar pipe had seen nothing of it."""
    def kernel(with_flag):
        def run(core):
            x, y, z = _tiles(128, 128, 128)
            _ones(x)
            aj.Add(y, x, x, 128)
            if with_flag:
                _flag("V_S")
            aj.DataSyncBarrier(aj.MemDsbT.UB)
            aj.Add(z, y, y, 128)
        return run
    assert _reports(kernel(True), sanitize="report,strict") == []
    assert _reports(kernel(False), sanitize="report,strict") == [("race", "RAW", "Add", "Add")]


# --- the race engine against a happens-before reading of SPEC-2 10.4 -------------------------------------------------
# The engine tracks order with vector clocks and shadow bytes; the reference below builds the happens-before graph of
# one random program explicitly (an instruction precedes a later SetFlag of its pipe, a SetFlag its WaitFlag, a
# WaitFlag the later events of its pipe, PipeBarrier<P> the later events of P after P's earlier instructions,
# PipeBarrier<PIPE_ALL> everything around it, DataSyncBarrier<UB> every later event after the scalar pipe's earlier
# ones, docs/decisions.md "DataSyncBarrier"; for "strict"'s same-pipe pairs only, a WaitFlag into PIPE_S also orders
# each pipe's own earlier instructions it reaches, session 63) and adds the TQue hand-offs:
# EnQue after the earlier access and DeQue before the later one, or an AllocTensor between them. Both must report
# the same (instruction, kind) pairs: RAW / WAW against the last write, WAR against the reads since it (a scalar
# read never starts a WAR, docs/decisions.md "Sanitizer").
_CELLS = 3


def _random_program(rng, n):
    prog, flags, queued = [], set(), set()
    for _ in range(n):
        r = rng.random()
        if r < 0.45:
            prog.append(("access", rng.choice(sanitizer.PIPES), rng.randrange(_CELLS), rng.random() < 0.5))
        elif r < 0.7:
            src, dst = rng.sample(sanitizer.PIPES, 2)
            if (src, dst) not in flags:
                flags.add((src, dst))
                prog.append(("set", src, dst))
        elif r < 0.95:
            if flags:
                key = rng.choice(sorted(flags))
                flags.remove(key)
                prog.append(("wait",) + key)
        elif r < 0.96:
            prog.append(("all",))
        elif r < 0.965:
            prog.append(("barrier", rng.choice(sanitizer.PIPES[1:])))   # PipeBarrier<PIPE_S> is refused (D62)
        elif r < 0.97:
            prog.append(("dsb",))    # DataSyncBarrier<UB>: the scalar pipe's barrier before every later instruction
        else:
            cell = rng.randrange(_CELLS)
            if cell in queued:
                queued.remove(cell)
                prog.append(("deque", cell))
            elif rng.random() < 0.5:
                queued.add(cell)
                prog.append(("enque", cell))
            else:
                prog.append(("alloc", cell))
    return prog


def _engine_reports(prog, strict):
    core = aj.Core("atlas-a2", sanitize=sanitizer.SanitizeConfig(mode="report", checks=("race",), strict=strict))
    s, marks, found = core.sanitizer, {}, []
    for k, event in enumerate(prog):
        kind = event[0]
        if kind == "access":
            _, pipe, cell, write = event
            before = len(s.reports)
            s.instruction(str(k), pipe, [sanitizer.Access.of_run("x", cell * 64, 1, write)], where=str(k))
            found += [(k, r.kind) for r in s.reports[before:]]
        elif kind == "set":
            s.set_flag(event[1], event[2], 0)
        elif kind == "wait":
            s.wait_flag(event[1], event[2], 0)
        elif kind == "all":
            s.pipe_barrier("PIPE_ALL")
        elif kind == "barrier":
            s.pipe_barrier(event[1])
        elif kind == "dsb":
            s.data_sync_barrier()
        elif kind == "enque":
            marks[event[1]] = s.enqueued()
        elif kind == "deque":
            s.hand_off(event[1] * 64, 1, since=marks.pop(event[1]))
        else:
            s.hand_off(event[1] * 64, 1)
    return sorted(found)


def _reference_reports(prog, strict):
    pipe_events = ("access", "set", "wait", "barrier", "dsb")

    def pipe_of(event):   # the pipe an event runs in (a WaitFlag blocks its destination pipe; DataSyncBarrier: S)
        return (event[2] if event[0] == "wait" else sanitizer.PIPE_S if event[0] == "dsb" else
                event[1] if event[0] in pipe_events else None)
    n = len(prog)
    after = [set() for _ in range(n)]
    for j, later in enumerate(prog):
        for i in range(j):
            earlier = prog[i]
            if "all" in (earlier[0], later[0]) or earlier[0] == "dsb" or (
                    earlier[0] == "access" and later[0] in ("set", "barrier", "dsb") and
                    earlier[1] == pipe_of(later)) or (
                    earlier[0] in ("wait", "barrier") and later[0] in pipe_events and
                    pipe_of(later) == pipe_of(earlier)):
                after[i].add(j)
        if later[0] == "wait":
            after[max(i for i in range(j) if prog[i][0] == "set" and prog[i][1:] == later[1:])].add(j)
    reach = [set() for _ in range(n)]
    for i in reversed(range(n)):
        for j in after[i]:
            reach[i] |= {j} | reach[j]
    hand_offs, enqueued = [], {}
    for k, event in enumerate(prog):
        if event[0] == "enque":
            enqueued[event[1]] = k
        elif event[0] == "deque":
            hand_offs.append((event[1], enqueued.pop(event[1]), k))
        elif event[0] == "alloc":
            hand_offs.append((event[1], k, k))

    def ordered(i, j):
        return j in reach[i] or any(c == prog[j][2] and i < a and b < j for c, a, b in hand_offs)
    scalar_waits = [k for k, event in enumerate(prog) if event[0] == "wait" and event[2] == sanitizer.PIPE_S]

    def ordered_same_pipe(i, j):
        # and the scalar unit issues every instruction after a wait of its own for i (port63e)
        return ordered(i, j) or any(i < k < j and k in reach[i] for k in scalar_waits)
    found, last_write, readers = [], [None] * _CELLS, [[] for _ in range(_CELLS)]
    for j, event in enumerate(prog):
        if event[0] != "access":
            continue
        _, pipe, cell, write = event
        w = last_write[cell]
        # "strict" also checks same-pipe vector RAW and MTE2/MTE3 WAW, which only a barrier or flag path orders
        same_pipe_checked = strict and (pipe == "PIPE_V" if not write else pipe in ("PIPE_MTE2", "PIPE_MTE3"))
        if w is not None and (prog[w][1] != pipe and not ordered(w, j) or
                              prog[w][1] == pipe and same_pipe_checked and not ordered_same_pipe(w, j)):
            found.append((j, "WAW" if write else "RAW"))
        if not write:
            readers[cell].append(j)
            continue
        for q in sanitizer.PIPES:
            if q not in (pipe, sanitizer.PIPE_S) and any(prog[r][1] == q and not ordered(r, j) for r in readers[cell]):
                found.append((j, "WAR"))
        last_write[cell], readers[cell] = j, []
    return sorted(found)


@pytest.mark.parametrize("strict", [False, True])
def test_the_race_engine_agrees_with_a_happens_before_reference_on_random_programs(strict):
    import random
    for seed in range(400):
        rng = random.Random(seed)
        prog = _random_program(rng, rng.randrange(4, 40))
        assert _engine_reports(prog, strict) == _reference_reports(prog, strict), (seed, prog)


# --- the blocks check (GM across the blocks of a launch, SyncAll phases) ---------------------------------------------
def _shadow_access(shadow, reports, block, k, start, nbytes, write, atomic=False, gm=None):
    shadow.gm_access(block, f"{block}:{k}", sanitizer.PIPE_MTE3 if write else sanitizer.PIPE_MTE2, gm, start, nbytes,
                     write, atomic, reports.append, "kernel.py:1")


@pytest.mark.parametrize("mode", ["raise", "report"])
def test_a_third_reader_that_writes_still_conflicts_with_the_other_readers(mode):
    """Blocks 0, 1 and 2 read the same GM bytes and block 2 then writes them, in one SyncAll phase: the shadow's
    "several readers" mark was overwritten by the third reader's own index, so its write looked like a write after
    its own read only."""
    gm, reports = np.zeros(16, np.uint8), []
    shadow = sanitizer.LaunchShadow(sanitizer.SanitizeConfig(mode=mode))
    for block in (0, 1, 2):
        _shadow_access(shadow, reports, block, 0, 0, 16, False, gm=gm)
    _shadow_access(shadow, reports, 2, 1, 0, 16, True, gm=gm)   # "raise" mode checks it now, "report" mode below
    shadow.replay()
    assert [(r.instruction.api, r.kind, r.nbytes) for r in reports] == [
        ("2:1", "a block reads GM bytes another block writes", 16)]
    # the newest read of another block is named (session 62; the fix said "at least one other block")
    assert reports[0].earlier.api == "1:0" and "block 1" in reports[0].fix


def test_the_blocks_check_reports_every_conflicting_byte_and_phase_of_random_launches():
    """Random single-byte accesses of 2-4 blocks with SyncAlls, fed to the shadow in a random interleaving ("report"
    mode checks them in (phase, block, program) order at the end): every access the shadow reports conflicts with an
    earlier one of another block in its phase (two plain writes, a plain and an atomic one, or a read and a write),
    and every such access is reported (session 62: the shadow kept one writer per byte, so a block's own plain write
    hid another block's from its atomic add after it), naming as `earlier` an access of another block of its phase,
    checked before it, that it conflicts with (it was None)."""
    import random
    for seed in range(300):
        rng = random.Random(seed)
        programs = {}
        for block in range(rng.randrange(2, 5)):
            programs[block] = [("sync",) if rng.random() < 0.15 else
                               ("access", rng.randrange(3), rng.random() < 0.5, rng.random() < 0.5)
                               for _ in range(rng.randrange(1, 8))]
        gm, reports = np.zeros(3, np.uint8), []
        shadow = sanitizer.LaunchShadow(sanitizer.SanitizeConfig(mode="report"))
        position = dict.fromkeys(programs, 0)
        while any(position[b] < len(programs[b]) for b in programs):
            block = rng.choice([b for b in programs if position[b] < len(programs[b])])
            k = position[block]
            position[block] += 1
            event = programs[block][k]
            if event[0] == "sync":
                shadow.sync_all(block)
            else:
                _, byte, write, atomic = event
                _shadow_access(shadow, reports, block, k, byte, 1, write, write and atomic, gm=gm)
        shadow.replay()
        accesses, where = [], {}
        for block, program in programs.items():
            phase = 0
            for k, event in enumerate(program):
                if event[0] == "sync":
                    phase += 1
                    continue
                _, byte, write, atomic = event
                accesses.append((phase, block, k, byte, write, write and atomic))
                where[f"{block}:{k}"] = (phase, byte)
        accesses.sort()
        expected = {f"{b}:{k}" for i, (phase, b, k, byte, write, atomic) in enumerate(accesses)
                    if any(p2 == phase and b2 != b and y2 == byte and (write or w2) and not (atomic and a2)
                           for p2, b2, _, y2, w2, a2 in accesses[:i])}
        found = {r.instruction.api for r in reports}
        assert found == expected, (seed, programs)
        order = {f"{b}:{k}": (phase, b, k, byte, write, atomic) for phase, b, k, byte, write, atomic in accesses}
        for r in reports:
            phase, b, k, byte, write, atomic = order[r.instruction.api]
            p2, b2, k2, y2, w2, a2 = order[r.earlier.api]
            assert (p2, y2) == (phase, byte) and (p2, b2, k2) < (phase, b, k) and b2 != b, (seed, programs)
            assert (write or w2) and not (atomic and a2), (seed, programs)


# --- uninitialised UB: buffers a TBufPool hands on ----------------------------------------------------------------
@pytest.mark.parametrize("share", [False, True])
def test_a_tbuf_carved_again_from_a_pool_holds_stale_data(share):
    """After TBufPool.Reset (or through a pool laid over another's range) a new TBuf covers bytes an earlier buffer
    wrote: stale data, as a TQue buffer after FreeTensor; TPipe.InitBuffer's buffers start uninitialised, and so do a
    pool's now (docs/decisions.md "Sanitizer")."""
    def kernel(core):
        pipe = aj.TPipe()
        first = aj.TBufPool()
        pipe.InitBufPool(first, 512)
        out = aj.TBuf()
        pipe.InitBuffer(out, 256)
        z = out.Get(H)
        old = aj.TBuf()
        first.InitBuffer(old, 256)
        aj.Duplicate(old.Get(H), 1.0, 128)
        pool = first
        if share:
            pool = aj.TBufPool()
            pipe.InitBufPool(pool, 512, first)
        first.Reset()
        new = aj.TBuf()
        pool.InitBuffer(new, 256)
        t = new.Get(H)
        aj.Add(z, t, t, 128)
    assert _reports(kernel) == [("init", "uninitialised read", "Add", None)]


# --- a Reset waits on its queues' free events ------------------------------------------------------------------------
def _reset_orders_another_tensor(core, reset):
    """A VECIN queue's tensor freed after an Add on another pipe's TBuf (the device: SetFlag V_MTE2 after the Add), then
    the queue's pipe or pool Reset, which waits on every buffer's free event as the buffer's next AllocTensor would
    (WaitFlag V_MTE2), then an MTE2 copy over the Add's bytes."""
    g = aj.GlobalTensor(np.ones(256, np.float16))
    other, plain = aj.TPipe(), aj.TBuf()
    other.InitBuffer(plain, 256)
    a = plain.Get(H)
    pipe, que = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 2)
    if reset == "TBufPool.Reset":
        pool = aj.TBufPool()
        pipe.InitBufPool(pool, 1024)
        pool.InitBuffer(que, 2, 256)
    else:
        pipe.InitBuffer(que, 2, 256)
    aj.DataCopy(a, g, 128)
    b = que.AllocTensor(H)
    aj.DataCopy(b, g[128], 128)
    aj.PipeBarrier(aj.PIPE_ALL)
    aj.Add(a, a, a, 128)                        # V
    que.FreeTensor(b)
    (pool if reset == "TBufPool.Reset" else pipe).Reset()
    aj.DataCopy(a, g, 128)                      # MTE2 over the Add's bytes


@pytest.mark.parametrize("reset", ["TPipe.Reset", "TBufPool.Reset"])
def test_a_reset_waits_on_its_queue_buffers_free_events_on_the_device(reset):
    """The devkit's Reset waits on each queue buffer's FreeTensor event before the buffers go back (its AllocTensor's
    wait): with 'device-sync' that orders the Add before the copy, as the device does; the default report (SPEC-2
    10.4 counts the hand-off for the buffer's own bytes only) names the event and 'device-sync' in its fix. Before,
    the Reset dropped the events: 'device-sync' reported the pair and the default fix named no event."""
    fixes = {}
    for mode in ("report", "device-sync,report"):
        with aj.Core("atlas-a2", sanitize=mode) as core:
            _reset_orders_another_tensor(core, reset)
        fixes[mode] = [(r.kind, r.earlier.pipe, r.instruction.pipe, r.fix) for r in core.sanitizer.reports]
        assert core.sanitizer.free_events == {}
    assert fixes["device-sync,report"] == []
    (kind, earlier, later, fix), = fixes["report"]
    assert (kind, earlier, later) == ("WAW", "PIPE_V", "PIPE_MTE2")
    assert "the TQue FreeTensor/Reset between them is SetFlag/WaitFlag V_MTE2 on the device" in fix, fix
    assert "sanitize with 'device-sync' to accept it" in fix, fix


def _phases(pipe_or_pool, first, second, end):
    """Stage 1 on a TPipe (or a TBufPool of one): a VECOUT queue's tensor copied out (MTE3 reads it) or a TBuf written
    by Duplicate (V); then `end` (Reset, or Destroy and a new TPipe); stage 2 writes the same UB bytes by DataCopy
    (MTE2) into a VECIN queue's tensor or a TBuf."""
    g, out = aj.GlobalTensor(np.ones(128, np.float16)), aj.GlobalTensor(np.zeros(128, np.float16))
    pipe = aj.TPipe()
    holder = pipe
    if pipe_or_pool == "pool":
        holder = aj.TBufPool()
        pipe.InitBufPool(holder, 256)
    if first == "queue":
        q = aj.TQue(aj.TPosition.VECOUT, 1)
        holder.InitBuffer(q, 1, 256)
        t = q.AllocTensor(H)
        aj.Duplicate(t, 1.0, 128)
        q.EnQue(t)
        t = q.DeQue(H)
        aj.DataCopy(out, t, 128)
        q.FreeTensor(t)
    else:
        b = aj.TBuf()
        holder.InitBuffer(b, 256)
        aj.Duplicate(b.Get(H), 1.0, 128)
    if end == "Destroy":
        pipe.Destroy()
        holder = pipe = aj.TPipe()
    else:
        holder.Reset()
    if second == "queue":
        q2 = aj.TQue(aj.TPosition.VECIN, 1)
        holder.InitBuffer(q2, 1, 256)
        aj.DataCopy(q2.AllocTensor(H), g, 128)
    else:
        b2 = aj.TBuf()
        holder.InitBuffer(b2, 256)
        aj.DataCopy(b2.Get(H), g, 128)
    aj.PipeBarrier(aj.PIPE_ALL)


@pytest.mark.parametrize("pipe_or_pool", ["pipe", "pool"])
def test_a_reset_orders_its_queue_buffers_only_and_destroy_is_a_pipe_all_barrier(pipe_or_pool):
    """The devkit's TPipe::Reset and TBufPool::Reset wait on their queue buffers' free events and nothing else;
    TPipe::Destroy ends with pipe_barrier(PIPE_ALL) (impl/basic_api/kernel_tpipe_impl.h, kernel_tbufpool_impl.h;
    port59d). So a TBuf written on V before a Reset and written by MTE2 after it is a race in every mode (the Reset
    had handed off the whole range); a queue buffer's bytes are handed off as by its next AllocTensor (SPEC-2 10.4's
    queue model), on the device only by its free event (VECOUT: MTE3 -> V, which orders no MTE2 write); after a
    Destroy nothing is reported (it was a race)."""
    def reports(first, second, end, mode):
        return [(r.kind, r.earlier.pipe, r.instruction.pipe) for r in _run(first, second, end, mode)]

    def _run(first, second, end, mode):
        with aj.Core("atlas-a2", sanitize=mode) as core:
            _phases(pipe_or_pool, first, second, end)
        return core.sanitizer.reports
    for mode in ("report", "device-sync,report"):
        assert reports("tbuf", "tbuf", "Reset", mode) == [("WAW", "PIPE_V", "PIPE_MTE2")]
        for first in ("queue", "tbuf"):
            for second in ("queue", "tbuf"):
                if pipe_or_pool == "pipe":
                    assert reports(first, second, "Destroy", mode) == [], (first, second, mode)
    assert reports("queue", "tbuf", "Reset", "report") == []
    assert reports("queue", "tbuf", "Reset", "device-sync,report") == [
        ("WAW", "PIPE_V", "PIPE_MTE2"), ("WAR", "PIPE_MTE3", "PIPE_MTE2")]


@pytest.mark.parametrize("mode", ["report", "device-sync,report"])
def test_a_pipe_reset_does_not_wait_on_a_pools_queue_buffers(mode):
    """Review 59: TPipe::Reset loops over the pipe's own buffers; a TBufPool's queue buffers are in the pool's array,
    which only the pool's Reset visits. A V write of a pool queue's tensor, FreeTensor, pipe.Reset(), then an MTE2
    write of the bytes is a race; the queue on the pipe itself is handed off (waited on, device-sync)."""
    def run(on_pool):
        with aj.Core("atlas-a2", sanitize=mode) as core:
            pipe, q = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 1)
            if on_pool:
                pool = aj.TBufPool()
                pipe.InitBufPool(pool, 256)
                pool.InitBuffer(q, 1, 256)
            else:
                pipe.InitBuffer(q, 1, 256)
            t = q.AllocTensor(H)
            aj.Duplicate(t, 1.0, 128)
            q.FreeTensor(t)
            pipe.Reset()
            b = aj.TBuf()
            pipe.InitBuffer(b, 256)
            aj.DataCopy(b.Get(H), _gm(), 128)
            aj.PipeBarrier(aj.PIPE_ALL)
        return [(r.kind, r.earlier.pipe, r.instruction.pipe) for r in core.sanitizer.reports]
    assert run(False) == []
    assert run(True) == [("WAW", "PIPE_V", "PIPE_MTE2")]
