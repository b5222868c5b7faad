"""Independent audit 45 of the sanitizer (SPEC-2 10.1-10.4, D62, docs/decisions.md "Sanitizer" and
"Synchronisation and kernel boilerplate"). Small adversarial kernels; every expectation is written from the contract
(the exact report: check, kind, later and earlier instruction with their pipes, first UB/GM byte and byte count), not
from the implementation, which was read only for call shapes. Covered: every cross-pipe hazard between V, MTE2, MTE3,
S and the 950's Reg loads/stores, each left unordered and each ordered by its SetFlag/WaitFlag, TQueSync,
PipeBarrier<PIPE_ALL>, a chain, DataSyncBarrier or a queue hand-off; what does not order; refused flag calls ordering
nothing; D62's refusals; the init and memory checks; "strict"; the launch-wide "blocks" and "sync" checks; the
report objects, the modes and value neutrality (results byte-identical with and without the sanitizer)."""
import inspect
import json
import warnings

import numpy as np
import pytest

import ascend_jit as aj

pytestmark = pytest.mark.ascend_sanitize(checks="", reason="each test sets its own sanitizer mode")

A2, A950, T910, B310 = "atlas-a2", "ascend950", "atlas-training", "atlas-200i-500-a2"
R = aj.Reg
N = 128           # halves per tile: 256 bytes
NB = 2 * N
ME = __file__.rsplit("/", 1)[-1]


# ---------------------------------------------------------------------------------------------------------------------
# helpers: tensors, GM, flags, report summaries
# ---------------------------------------------------------------------------------------------------------------------
def _tiles(*sizes, dtype="half"):
    alloc = aj.LocalMemAllocator()
    return [alloc.Alloc(dtype, n) for n in sizes]


def _gm(n=N):
    return aj.GlobalTensor(np.arange(n, dtype=np.float16))


def _gmv(array, offset, n):
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(array[offset:], n)
    return g


def _host(t, value=1.0):
    t[:] = np.full(t.size, value, t.numpy().dtype)


def _flag(event, event_id=0):
    aj.SetFlag(event_id, event=getattr(aj.HardEvent, event))
    aj.WaitFlag(event_id, event=getattr(aj.HardEvent, event))


def _tqs(src, dst, event_id=0):
    sync = aj.TQueSync(getattr(aj, src), getattr(aj, dst))
    sync.SetFlag(event_id)
    sync.WaitFlag(event_id)


def _sum(reports):
    return [(r.check, r.kind, r.instruction.api, r.instruction.pipe, r.earlier.api if r.earlier else None,
             r.earlier.pipe if r.earlier else None, r.address, r.nbytes) for r in reports]


def _run(kernel, sanitize="report", device=A2, **core_kw):
    with aj.Core(device, sanitize=sanitize, **core_kw) as core:
        kernel(core)
    return _sum(core.sanitizer.reports)


def _race(kind, later, lpipe, earlier, epipe, addr, nbytes):
    return [("race", kind, later, "PIPE_" + lpipe, earlier, "PIPE_" + epipe, addr, nbytes)]


def _init(api, pipe, addr, nbytes):
    return [("init", "uninitialised read", api, "PIPE_" + pipe, None, None, addr, nbytes)]


# ---------------------------------------------------------------------------------------------------------------------
# SPEC-2 10.4: each cross-pipe hazard, unordered (one report) and ordered by its event (none)
# each maker takes `order()` (what goes between the two accesses) and returns the expected unordered report
# ---------------------------------------------------------------------------------------------------------------------
def _mte2_w_v_r(order):           # RAW MTE2 -> V: x = 128 halves at byte 0, z after it
    def k(core):
        x, z = _tiles(N, N)
        aj.DataCopy(x, _gm(), N)
        order()
        aj.Adds(z, x, 1.0, N)
    return k, _race("RAW", "Adds", "V", "DataCopy", "MTE2", 0, NB)


def _v_w_mte3_r(order):           # RAW V -> MTE3
    def k(core):
        x, = _tiles(N)
        aj.Duplicate(x, 2.0, N)
        order()
        aj.DataCopy(_gm(), x, N)
    return k, _race("RAW", "DataCopy", "MTE3", "Duplicate", "V", 0, NB)


def _v_w_s_r(order):              # RAW V -> S: one half at element 7
    def k(core):
        x, = _tiles(N)
        aj.Duplicate(x, 2.0, N)
        order()
        x.GetValue(7)
    return k, _race("RAW", "GetValue", "S", "Duplicate", "V", 14, 2)


def _s_w_v_r(order):              # RAW S -> V: the scalar write's 2 bytes only
    def k(core):
        x, z = _tiles(N, N)
        _host(x)
        x.SetValue(9, 3.0)
        order()
        aj.Adds(z, x, 1.0, N)
    return k, _race("RAW", "Adds", "V", "SetValue", "S", 18, 2)


def _v_r_mte2_w(order):           # WAR V -> MTE2 (next tile's copy-in over a vector source)
    def k(core):
        x, z = _tiles(N, N)
        _host(x)
        aj.Adds(z, x, 1.0, N)
        order()
        aj.DataCopy(x, _gm(), N)
    return k, _race("WAR", "DataCopy", "MTE2", "Adds", "V", 0, NB)


def _mte3_r_v_w(order):           # WAR MTE3 -> V
    def k(core):
        x, = _tiles(N)
        _host(x)
        aj.DataCopy(_gm(), x, N)
        order()
        aj.Duplicate(x, 0.0, N)
    return k, _race("WAR", "Duplicate", "V", "DataCopy", "MTE3", 0, NB)


def _mte3_r_mte2_w(order):        # WAR MTE3 -> MTE2 (a buffer reused for the next copy-in)
    def k(core):
        x, = _tiles(N)
        _host(x)
        aj.DataCopy(_gm(), x, N)
        order()
        aj.DataCopy(x, _gm(), N)
    return k, _race("WAR", "DataCopy", "MTE2", "DataCopy", "MTE3", 0, NB)


def _mte2_w_v_w(order):           # WAW MTE2 -> V
    def k(core):
        x, = _tiles(N)
        aj.DataCopy(x, _gm(), N)
        order()
        aj.Duplicate(x, 0.0, N)
    return k, _race("WAW", "Duplicate", "V", "DataCopy", "MTE2", 0, NB)


def _s_w_mte2_w(order):           # WAW S -> MTE2
    def k(core):
        x, = _tiles(N)
        _host(x)
        x.SetValue(4, 3.0)
        order()
        aj.DataCopy(x, _gm(), N)
    return k, _race("WAW", "DataCopy", "MTE2", "SetValue", "S", 8, 2)


def _mte2_w_mte3_r(order):        # RAW MTE2 -> MTE3
    def k(core):
        x, = _tiles(N)
        aj.DataCopy(x, _gm(), N)
        order()
        aj.DataCopy(_gm(), x, N)
    return k, _race("RAW", "DataCopy", "MTE3", "DataCopy", "MTE2", 0, NB)


def _mte3_r_s_w(order):           # WAR MTE3 -> S
    def k(core):
        x, = _tiles(N)
        _host(x)
        aj.DataCopy(_gm(), x, N)
        order()
        x.SetValue(127, 1.0)
    return k, _race("WAR", "SetValue", "S", "DataCopy", "MTE3", 254, 2)


# the 950's Reg path: loads and stores are PIPE_V (decisions.md "Sanitizer", the Reg API bullet)
def _mte2_w_reg_load(order):
    def k(core):
        x, = _tiles(N)
        aj.DataCopy(x, _gm(), N)
        order()
        R.LoadAlign(R.RegTensor("half"), x)
    return k, _race("RAW", "LoadAlign", "V", "DataCopy", "MTE2", 0, NB)


def _reg_store_mte3_r(order):
    def k(core):
        x, = _tiles(N)
        reg = R.RegTensor("half")
        R.Duplicate(reg, 1.0)
        R.StoreAlign(x, reg, R.CreateMask("half"))
        order()
        aj.DataCopy(_gm(), x, N)
    return k, _race("RAW", "DataCopy", "MTE3", "StoreAlign", "V", 0, NB)


def _reg_store_s_r(order):
    def k(core):
        x, = _tiles(N)
        reg = R.RegTensor("half")
        R.Duplicate(reg, 1.0)
        R.StoreAlign(x, reg, R.CreateMask("half"))
        order()
        x.GetValue(5)
    return k, _race("RAW", "GetValue", "S", "StoreAlign", "V", 10, 2)


def _s_w_reg_load(order):
    def k(core):
        x, = _tiles(N)
        _host(x)
        x.SetValue(3, 2.0)
        order()
        R.LoadAlign(R.RegTensor("half"), x)
    return k, _race("RAW", "LoadAlign", "V", "SetValue", "S", 6, 2)


def _mte3_r_reg_store(order):
    def k(core):
        x, = _tiles(N)
        _host(x)
        aj.DataCopy(_gm(), x, N)
        order()
        reg = R.RegTensor("half")
        R.Duplicate(reg, 1.0)
        R.StoreAlign(x, reg, R.CreateMask("half"))
    return k, _race("WAR", "StoreAlign", "V", "DataCopy", "MTE3", 0, NB)


PAIRS = [  # maker, device, the HardEvent that orders it, the event in the wrong direction
    (_mte2_w_v_r, A2, "MTE2_V", "V_MTE2"), (_v_w_mte3_r, A2, "V_MTE3", "MTE3_V"), (_v_w_s_r, A2, "V_S", "S_V"),
    (_s_w_v_r, A2, "S_V", "V_S"), (_v_r_mte2_w, A2, "V_MTE2", "MTE2_V"), (_mte3_r_v_w, A2, "MTE3_V", "V_MTE3"),
    (_mte3_r_mte2_w, A2, "MTE3_MTE2", "MTE2_MTE3"), (_mte2_w_v_w, A2, "MTE2_V", "V_MTE2"),
    (_s_w_mte2_w, A2, "S_MTE2", "MTE2_S"), (_mte2_w_mte3_r, A2, "MTE2_MTE3", "MTE3_MTE2"),
    (_mte3_r_s_w, A2, "MTE3_S", "S_MTE3"),
    (_mte2_w_reg_load, A950, "MTE2_V", "V_MTE2"), (_reg_store_mte3_r, A950, "V_MTE3", "MTE3_V"),
    (_reg_store_s_r, A950, "V_S", "S_V"), (_s_w_reg_load, A950, "S_V", "V_S"),
    (_mte3_r_reg_store, A950, "MTE3_V", "V_MTE3"),
]
PAIR_IDS = [m.__name__.strip("_") for m, *_ in PAIRS]


def _pipes(event):
    src, dst = event.split("_", 1)
    return "PIPE_" + src, "PIPE_" + dst


@pytest.mark.parametrize("make, device, event, wrong", PAIRS, ids=PAIR_IDS)
def test_each_cross_pipe_hazard_is_one_exact_report_unordered_and_none_ordered(make, device, event, wrong):
    kernel, expected = make(lambda: None)
    assert _run(kernel, device=device) == expected
    # SPEC-2 10.4's three orderings: the matching flag (ISASI and TQueSync, same flags), PipeBarrier<PIPE_ALL>
    for order in (lambda: _flag(event), lambda: _tqs(*_pipes(event)), lambda: aj.PipeBarrier(aj.PIPE_ALL),
                  lambda: _flag(event, 7)):
        assert _run(make(order)[0], device=device) == []
    # a flag the other way round, a same-pipe barrier of either pipe, and a flag set but waited too late do not
    src, dst = _pipes(event)
    not_orders = [lambda: _flag(wrong)] + [lambda p=p: aj.PipeBarrier(getattr(aj, p)) for p in (src, dst)
                                           if p != "PIPE_S"]
    for order in not_orders:
        assert _run(make(order)[0], device=device) == expected


def test_310b_and_910_order_the_pair_by_tquesync_and_their_own_ids():
    # the 310B has no ISASI SetFlag (D62) but TQueSync names the same flag; the 910's ids are 0..3
    for device, event_id in ((B310, 7), (T910, 3)):
        kernel, expected = _mte2_w_v_r(lambda: None)
        assert _run(kernel, device=device) == expected
        assert _run(_mte2_w_v_r(lambda: _tqs("PIPE_MTE2", "PIPE_V", event_id))[0], device=device) == []


def test_which_earlier_access_a_report_names():
    """SPEC-2 10.4: the last writer (for any access) and the readers since that write (for a write)."""
    def read_then_rewritten(core):    # V read, V write, MTE2 write: the Adds read is older than the last write
        x, z = _tiles(N, N)
        _host(x)
        aj.Adds(z, x, 1.0, N)
        aj.Duplicate(x, 0.0, N)
        aj.DataCopy(x, _gm(), N)
    assert _run(read_then_rewritten) == _race("WAW", "DataCopy", "MTE2", "Duplicate", "V", 0, NB)

    def second_reader(core):          # the first vector read is ordered by V_MTE2, the second is not
        x, z = _tiles(N, N)
        _host(x)
        aj.Adds(z, x, 1.0, N)
        _flag("V_MTE2")
        aj.Muls(z, x, 2.0, N)
        aj.DataCopy(x, _gm(), N)
    assert _run(second_reader) == _race("WAR", "DataCopy", "MTE2", "Muls", "V", 0, NB)

    def two_reader_pipes(core):       # V_S orders the vector reader only: the copy-out's read remains
        x, z = _tiles(N, N)
        _host(x)
        aj.Adds(z, x, 1.0, N)
        aj.DataCopy(_gm(), x, N)
        _flag("V_S")
        x.SetValue(0, 1.0)
    assert _run(two_reader_pipes) == _race("WAR", "SetValue", "S", "DataCopy", "MTE3", 0, 2)

    def writer_and_reader(core):      # MTE2 wrote, V read (ordered), S writes: WAW with MTE2 and WAR with V
        x, z = _tiles(N, N)
        aj.DataCopy(x, _gm(), N)
        _flag("MTE2_V")
        aj.Adds(z, x, 1.0, N)
        x.SetValue(0, 1.0)
    assert _run(writer_and_reader) == (_race("WAW", "SetValue", "S", "DataCopy", "MTE2", 0, 2)
                                       + _race("WAR", "SetValue", "S", "Adds", "V", 0, 2))

    def three_writers(core):          # one report per earlier instruction, in the order of their first bytes
        x, z = _tiles(N, N)
        aj.DataCopy(x, _gm(), N)
        x.SetValue(5, 1.0)            # itself a WAW after the copy-in
        aj.DataCopy(x[64:], _gm(64), 64)
        aj.Adds(z, x, 1.0, N)
    assert _run(three_writers) == (_race("WAW", "SetValue", "S", "DataCopy", "MTE2", 10, 2)
                                   + _race("RAW", "Adds", "V", "DataCopy", "MTE2", 0, 126)
                                   + _race("RAW", "Adds", "V", "SetValue", "S", 10, 2)
                                   + _race("RAW", "Adds", "V", "DataCopy", "MTE2", 128, 128))

    def scalar_read_then_write(core):     # decisions "Sanitizer": a scalar read is never the earlier half of a WAR
        x, = _tiles(N)
        _host(x)
        x.GetValue(0)
        aj.Duplicate(x, 0.0, N)
    assert _run(scalar_read_then_write) == []


def test_reports_name_the_kernel_line_and_the_fix_names_the_event():
    with aj.Core(A2, sanitize="report") as core:
        x, z = _tiles(N, N)
        line = inspect.currentframe().f_lineno + 1
        aj.DataCopy(x, _gm(), N)
        aj.Adds(z, x, 1.0, N)
    [rep] = core.sanitizer.reports
    assert rep.earlier.where == f"{ME}:{line}" and rep.instruction.where == f"{ME}:{line + 1}"
    assert rep.operand == "src" and rep.block is None
    assert "HardEvent.MTE2_V" in rep.fix
    assert str(rep.instruction) == f"Adds [PIPE_V] at {ME}:{line + 1}"


def test_reads_from_two_pipes_conflict_with_nothing():
    # RAR is no hazard (SPEC-2 10.4 names RAW, WAR, WAW): a copy-out and a vector read of the same bytes
    def k(core):
        x, z = _tiles(N, N)
        _host(x)
        aj.DataCopy(_gm(), x, N)
        aj.Adds(z, x, 1.0, N)
        x.GetValue(0)
    assert _run(k) == []


def test_a_flag_orders_only_its_destination_pipe_and_chains_order_in_sequence():
    # MTE2_V lets the vector pipe wait, not MTE3: the copy-out still races the copy-in
    def no_chain(core):
        x, = _tiles(N)
        aj.DataCopy(x, _gm(), N)
        _flag("MTE2_V")
        aj.DataCopy(_gm(), x, N)
    assert _run(no_chain) == _race("RAW", "DataCopy", "MTE3", "DataCopy", "MTE2", 0, NB)

    def chain(first, second):   # MTE2 -> S -> MTE3 orders transitively only in that order (decisions "Sanitizer")
        def k(core):
            x, = _tiles(N)
            aj.DataCopy(x, _gm(), N)
            _flag(first)
            _flag(second)
            aj.DataCopy(_gm(), x, N)
        return k
    assert _run(chain("MTE2_S", "S_MTE3")) == []
    assert _run(chain("S_MTE3", "MTE2_S")) == _race("RAW", "DataCopy", "MTE3", "DataCopy", "MTE2", 0, NB)


def test_only_the_bytes_both_touch_conflict_views_and_masks():
    def view(core):                   # a copy-in into the upper half, a vector read of the lower half: disjoint
        x, z = _tiles(N, N)
        _host(x)
        aj.DataCopy(x[64:], _gm(64), 64)
        aj.Adds(z, x, 1.0, 64)
        aj.Adds(z, x[32:], 1.0, 64)   # elements 32..95: overlaps the copy-in's elements 64..95 only
    assert _run(view) == _race("RAW", "Adds", "V", "DataCopy", "MTE2", 128, 64)

    def masked(core):                 # a high-dim read of 16 lanes then a copy-in over the tile: 32 bytes conflict
        x, z = _tiles(N, N)
        _host(x)
        aj.Adds(z, x, 1.0, 16, 1, aj.UnaryRepeatParams(1, 1, 8, 8))
        aj.DataCopy(x, _gm(), N)
    assert _run(masked) == _race("WAR", "DataCopy", "MTE2", "Adds", "V", 0, 32)


def test_data_sync_barrier_orders_the_scalar_units_earlier_accesses_only():
    # README / decisions: DataSyncBarrier<UB / ALL> orders the scalar unit's earlier UB accesses before every later
    # instruction; DDR does not concern the UB; the barrier does not order a vector write before a scalar read
    def s_then(barrier, later):
        def k(core):
            x, z = _tiles(16, 16)
            _host(x)
            x.SetValue(0, 2.0)
            aj.DataSyncBarrier(getattr(aj.MemDsbT, barrier))
            aj.Adds(z, x, 1.0, 16) if later == "V" else aj.DataCopy(_gm(16), x, 16)
        return k
    for later, api in (("V", "Adds"), ("MTE3", "DataCopy")):
        assert _run(s_then("UB", later)) == []
        assert _run(s_then("ALL", later)) == []
        assert _run(s_then("DDR", later)) == _race("RAW", api, later, "SetValue", "S", 0, 2)

    def v_then_s(core):
        x, = _tiles(16)
        aj.Duplicate(x, 1.0, 16)
        aj.DataSyncBarrier(aj.MemDsbT.UB)
        x.GetValue(0)
    assert _run(v_then_s) == _race("RAW", "GetValue", "S", "Duplicate", "V", 0, 2)


def test_a_scalar_wait_orders_later_pipes_only_under_device_sync():
    # decisions "The device's synchronisation": V; V_S; MTE2 over the same bytes is a V -> MTE2 race by SPEC-2 10.4
    def k(core):
        x, = _tiles(N)
        aj.Duplicate(x, 1.0, N)
        _flag("V_S")
        aj.DataCopy(x, _gm(), N)
    assert _run(k) == _race("WAW", "DataCopy", "MTE2", "Duplicate", "V", 0, NB)
    assert _run(k, sanitize="report,device-sync") == []


# ---------------------------------------------------------------------------------------------------------------------
# queue hand-offs (SPEC-2 10.4 "a TQue EnQue/DeQue of a tensor containing the byte")
# ---------------------------------------------------------------------------------------------------------------------
def test_a_hand_off_orders_the_queued_tensor_only():
    def k(core):
        pipe, q, buf = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 2), aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(q, 2, NB)
        pipe.InitBuffer(buf, NB)
        a, b = q.AllocTensor("half"), q.AllocTensor("half")
        aj.DataCopy(a, _gm(), N)
        aj.DataCopy(b, _gm(), N)
        q.EnQue(a)
        a = q.DeQue("half")
        z = buf.Get("half")
        aj.Adds(z, a, 1.0, N)         # ordered by a's hand-off
        aj.Adds(z, b, 1.0, N)         # b was never enqueued: a race
    assert _run(k) == _race("RAW", "Adds", "V", "DataCopy", "MTE2", NB, NB)


def test_a_dequeued_vecin_tensor_read_by_the_scalar_unit_needs_mte2_s_only_under_device_sync():
    def k(core):
        pipe, q = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, NB)
        t = q.AllocTensor("half")
        aj.DataCopy(t, _gm(), N)
        q.EnQue(t)
        t = q.DeQue("half")
        t.GetValue(0)
        q.FreeTensor(t)
    assert _run(k) == []
    assert _run(k, sanitize="report,device-sync") == _race("RAW", "GetValue", "S", "DataCopy", "MTE2", 0, 2)


# ---------------------------------------------------------------------------------------------------------------------
# D62: refusals always on; a refused call changes no flag and orders nothing for the sanitizer
# ---------------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sanitize", [False, "report"])
def test_d62_refusals_and_flag_state(sanitize):
    ev = aj.HardEvent.MTE2_V
    key = (aj.Pipe.PIPE_MTE2, aj.Pipe.PIPE_V, 0)
    with aj.Core(A2, sanitize=sanitize) as core:
        with pytest.raises(aj.StateError, match="block forever"):
            aj.WaitFlag(0, event=ev)
        assert set(core.pending_flags()) == set()
        aj.SetFlag(0, event=ev)
        with pytest.raises(aj.StateError, match="already set"):
            aj.SetFlag(0, event=ev)
        assert set(core.pending_flags()) == {key}
        aj.WaitFlag(0, event=ev)
        assert set(core.pending_flags()) == set()
        for bad in (8, -1, True, 1.0, aj.HardEvent.MTE1_MTE2):
            with pytest.raises(aj.ParameterError):
                aj.SetFlag(bad, event=ev)
            with pytest.raises(aj.ParameterError):
                aj.TQueSync(aj.PIPE_MTE2, aj.PIPE_V).SetFlag(bad)
        assert set(core.pending_flags()) == set()
        with pytest.raises(aj.ParameterError, match="PIPE_S"):
            aj.PipeBarrier(aj.PIPE_S)
        with pytest.raises(aj.ParameterError):
            aj.SetFlag(1)                              # event is keyword-only and required (SPEC-2 10.2)
        aj.SetFlag(np.int64(7), event=ev)              # a numpy integer is an integer
        aj.TQueSync(aj.PIPE_MTE2, aj.PIPE_V).WaitFlag(7)   # the same hardware flag (decisions "Flags")
        assert set(core.pending_flags()) == set()


def test_d62_event_id_range_per_device_and_isasi_on_310b():
    for device, top in ((A2, 7), (A950, 7), (T910, 3)):
        with aj.Core(device):
            aj.SetFlag(top, event=aj.HardEvent.V_MTE3)
            aj.WaitFlag(top, event=aj.HardEvent.V_MTE3)
            with pytest.raises(aj.ParameterError, match=rf"\[0, {top}\]"):
                aj.SetFlag(top + 1, event=aj.HardEvent.V_MTE3)
    with aj.Core(B310) as core:
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
        assert set(core.pending_flags()) == set()
        _tqs("PIPE_MTE2", "PIPE_V", 7)


def test_refused_flag_calls_order_nothing_for_the_sanitizer():
    def double_set(core):
        x, z = _tiles(N, N)
        aj.SetFlag(0, event=aj.HardEvent.MTE2_V)      # set before the copy: orders nothing
        aj.DataCopy(x, _gm(), N)
        with pytest.raises(aj.StateError):
            aj.SetFlag(0, event=aj.HardEvent.MTE2_V)  # refused: must not snapshot the copy
        aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
        aj.Adds(z, x, 1.0, N)

    def stray_wait(core):
        x, z = _tiles(N, N)
        aj.DataCopy(x, _gm(), N)
        with pytest.raises(aj.StateError):
            aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
        aj.Adds(z, x, 1.0, N)

    def barrier_s(core):
        x, z = _tiles(N, N)
        aj.DataCopy(x, _gm(), N)
        with pytest.raises(aj.ParameterError):
            aj.PipeBarrier(aj.PIPE_S)
        aj.Adds(z, x, 1.0, N)
    for k in (double_set, stray_wait, barrier_s):
        assert _run(k) == _race("RAW", "Adds", "V", "DataCopy", "MTE2", 0, NB)


def _pending(x):
    aj.SetFlag(0, event=aj.HardEvent.MTE2_V)


@pytest.mark.parametrize("sanitize", [False, "report"])
def test_flags_pending_at_launch_end_are_refused_sanitizing_or_not(sanitize):
    with pytest.raises(aj.StateError, match="MTE2_V id 0"):
        aj.launch(_pending, 1, A2, np.zeros(4, np.float32), sanitize=sanitize)


def _alloc_events(x, release):
    pipe = aj.TPipe()
    ids = [pipe.AllocEventID(aj.HardEvent.V_MTE3) for _ in range(2)]
    pipe.FetchEventID(aj.HardEvent.MTE2_V)            # FetchEventID occupies nothing
    if release:
        pipe.ReleaseEventID(ids[0], aj.HardEvent.V_MTE3)


def test_sync_check_reports_each_event_id_never_released():
    with aj.sanitize_session("report") as session:
        aj.launch(_alloc_events, 1, A2, np.zeros(4), True)
    assert [(r.check, r.operand, r.address, r.block) for r in session.reports] == [("sync", "V_MTE3", 1, 0)]
    with aj.sanitize_session("report,race,init") as session:       # the check off: nothing
        aj.launch(_alloc_events, 1, A2, np.zeros(4), False)
    assert session.reports == []


# ---------------------------------------------------------------------------------------------------------------------
# init: what counts as written (README "init"; decisions "A Core starts fully uninitialised")
# ---------------------------------------------------------------------------------------------------------------------
def test_uninitialised_reads_exact_bytes():
    def bitmask(core):                # lanes 0, 2, .., 62 written: the copy-out reads 192 bytes nothing wrote
        x, = _tiles(N)
        aj.Duplicate(x, 1.0, [0x5555555555555555, 0], 1, 1, 8)
        _flag("V_MTE3")
        aj.DataCopy(_gm(), x, N)
    assert _run(bitmask) == _init("DataCopy", "MTE3", 2, 192)

    def count(core):                  # Duplicate of 100: 56 bytes of the 128-half copy-out
        x, = _tiles(N)
        aj.Duplicate(x, 1.0, 100)
        _flag("V_MTE3")
        aj.DataCopy(_gm(), x, N)
    assert _run(count) == _init("DataCopy", "MTE3", 200, 56)

    def set_value(core):              # one SetValue initialises its 2 bytes only
        x, z = _tiles(16, 16)
        x.SetValue(0, 1.0)
        _flag("S_V")
        aj.Adds(z, x, 1.0, 16)
    assert _run(set_value) == _init("Adds", "V", 2, 30)

    def scalar(core):                 # a GetValue of a fresh tensor is a read too
        _tiles(16)[0].GetValue(3)
    assert _run(scalar) == _init("GetValue", "S", 6, 2)

    def refused_copy(core):           # a refused DataCopy writes nothing
        x, z = _tiles(N, N)
        with pytest.raises(aj.OutOfBoundsError):
            aj.DataCopy(x, _gm(), N + 16)
        aj.Adds(z, x, 1.0, N)
    assert _run(refused_copy) == _init("Adds", "V", 0, NB)


def test_what_initialises_and_what_does_not():
    def host(core):
        x, z = _tiles(16, 16)
        x[:] = np.ones(16, np.float16)
        aj.Adds(z, x, 1.0, 16)
    assert _run(host) == []

    def host_slices(core):            # a host copy initialises the bytes of its slice only
        x, z = _tiles(16, 16)
        x[4:][:4] = np.ones(4, np.float16)
        aj.Adds(z, x, 1.0, 16)
    assert _run(host_slices) == _init("Adds", "V", 0, 24)

    def raw_ub(core, declared):       # raw core.ub writes bypass the tensor API unless declared
        x, z = _tiles(16, 16)
        core.ub[x.addr:x.addr + 32] = 0
        if declared:
            core.ub_written_by_host(x.addr, 32)
        aj.Adds(z, x, 1.0, 16)
    assert _run(lambda c: raw_ub(c, False)) == _init("Adds", "V", 0, 32)
    assert _run(lambda c: raw_ub(c, True)) == []

    def host_orders_nothing(core):    # a host write is no instruction: the copy-in still races the vector read
        x, z = _tiles(N, N)
        aj.DataCopy(x, _gm(), N)
        x[:] = np.ones(N, np.float16)
        aj.Adds(z, x, 1.0, N)
    assert _run(host_orders_nothing) == _race("RAW", "Adds", "V", "DataCopy", "MTE2", 0, NB)

    def realloc(core):                # a recycled queue buffer holds stale data
        pipe, q = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, NB)
        t = q.AllocTensor("half")
        aj.Duplicate(t, 1.0, N)
        q.EnQue(t)
        q.FreeTensor(q.DeQue("half"))
        q.AllocTensor("half").GetValue(0)
    assert _run(realloc) == _init("GetValue", "S", 0, 2)

    def tbuf_again(core):             # TBuf bytes are uninitialised once, at InitBuffer
        pipe, b = aj.TPipe(), aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(b, NB)
        aj.Duplicate(b.Get("half"), 1.0, N)
        _flag("V_S")
        b.Get("half").GetValue(N - 1)
    assert _run(tbuf_again) == []


def test_copy_outs_read_only_the_bytes_they_copy():
    def strided(core):                # blocks 0, 2, .., 14 written; the copy-out's srcStride skips the others
        x, = _tiles(256)
        for i in range(0, 256, 32):
            aj.Duplicate(x[i:], 1.0, 16)
        _flag("V_MTE3")
        aj.DataCopy(aj.GlobalTensor(np.zeros(N, np.float16)), x, aj.DataCopyParams(8, 1, 1, 0))
    assert _run(strided) == []

    def pad(written):                 # DataCopyPad of 6 bytes reads 6 bytes
        def k(core):
            x, = _tiles(16)
            aj.Duplicate(x, 1.0, written)
            _flag("V_MTE3")
            aj.DataCopyPad(aj.GlobalTensor(np.zeros(16, np.float16)), x, aj.DataCopyExtParams(1, 6, 0, 0, 0))
        return k
    assert _run(pad(3)) == []
    assert _run(pad(2)) == _init("DataCopyPad", "MTE3", 4, 2)


def test_gather_reads_only_the_offsets_of_active_lanes():
    def k(core):
        src, off, dst = _tiles(64, 64, 64, dtype="float")
        off = off.ReinterpretCast("uint32")
        src[:] = np.ones(64, np.float32)
        off[:32] = np.arange(32, dtype=np.uint32) * 4
        aj.Gather(dst, src, off, 0, 64)
    assert _run(k) == _init("Gather", "V", 256 + 128, 128)


# ---------------------------------------------------------------------------------------------------------------------
# memory (bounds="ub" cores): an access outside the operand's tensor
# ---------------------------------------------------------------------------------------------------------------------
def _past_src(core):
    x, pad, z = _tiles(N, N, 2 * N)
    _host(x)
    _host(pad)
    aj.Adds(z, x, 1.0, N, 2, aj.UnaryRepeatParams(1, 1, 8, 8))   # repeat 1 reads x's next 256 bytes


def test_memory_check_reports_the_bytes_past_the_tensor():
    assert _run(_past_src, bounds="ub") == [("memory", "access outside the tensor", "Adds", "PIPE_V", None, None,
                                             NB, NB)]
    assert _run(_past_src, sanitize="report,race,init", bounds="ub") == []
    with pytest.raises(aj.OutOfBoundsError):        # the tensor rule refuses it, sanitizing or not
        _run(_past_src)


# ---------------------------------------------------------------------------------------------------------------------
# "strict": same-pipe pairs
# ---------------------------------------------------------------------------------------------------------------------
def test_strict_vector_raw_and_what_orders_it():
    def k(order):
        def kernel(core):
            x, z, w = _tiles(N, N, N)
            _host(x)
            aj.Adds(z, x, 1.0, N)
            order()
            aj.Adds(w, z, 1.0, N)
        return kernel
    raw = _race("RAW", "Adds", "V", "Adds", "V", NB, NB)
    assert _run(k(lambda: None)) == []                                   # default: same-pipe pairs not reported
    assert _run(k(lambda: None), sanitize="report,strict") == raw
    assert _run(k(lambda: aj.PipeBarrier(aj.PIPE_MTE2)), sanitize="report,strict") == raw
    for order in (lambda: aj.PipeBarrier(aj.PIPE_V), lambda: aj.PipeBarrier(aj.PIPE_ALL),
                  lambda: (_flag("V_S"), _flag("S_V"))):
        assert _run(k(order), sanitize="report,strict") == []

    def war(core):                    # strict adds same-pipe RAW only
        x, z = _tiles(N, N)
        _host(x)
        aj.Adds(z, x, 1.0, N)
        aj.Duplicate(x, 0.0, N)
    assert _run(war, sanitize="report,strict") == []


def test_strict_overlapping_copy_destinations():
    def ub(barrier):
        def k(core):
            x, = _tiles(N)
            aj.DataCopy(x, _gm(), N)
            barrier()
            aj.DataCopy(x[64:], _gm(64), 64)
        return k
    assert _run(ub(lambda: None)) == []
    assert _run(ub(lambda: None), sanitize="report,strict") == _race("WAW", "DataCopy", "MTE2", "DataCopy", "MTE2",
                                                                       128, 128)
    assert _run(ub(lambda: aj.PipeBarrier(aj.PIPE_MTE2)), sanitize="report,strict") == []

    def gm(seq):                      # GM destinations of copy-outs: partial overlap, atomics of one op combine
        def k(core):
            arr = np.zeros(64, np.float32)
            x, = _tiles(32, dtype="float")
            _host(x)
            for step in seq:
                if step == "pb":
                    aj.PipeBarrier(aj.PIPE_MTE3)
                elif step == "rt":
                    _flag("MTE3_V")
                    _flag("V_MTE3")
                else:
                    atomic, offset = step
                    if atomic:
                        getattr(aj, "SetAtomic" + atomic)("float")
                    aj.DataCopy(_gmv(arr, offset, 32), x, 32)
                    aj.SetAtomicNone()
        return k
    waw = [("race", "WAW", "DataCopy", "PIPE_MTE3", "DataCopy", "PIPE_MTE3")]
    strict = "report,strict"
    assert [s[:6] for s in _run(gm([(None, 0), (None, 16)]), sanitize=strict)] == waw
    assert [s[6:] for s in _run(gm([(None, 0), (None, 16)]), sanitize=strict)] == [(64, 64)]
    assert _run(gm([(None, 0), (None, 32)]), sanitize=strict) == []                     # adjacent
    assert _run(gm([(None, 0), "pb", (None, 0)]), sanitize=strict) == []
    assert _run(gm([(None, 0), "rt", (None, 0)]), sanitize=strict) == []
    assert _run(gm([("Add", 0), ("Add", 0)]), sanitize=strict) == []
    assert _run(gm([("Max", 0), ("Max", 0)]), sanitize=strict) == []
    for seq in ([("Add", 0), ("Max", 0)], [(None, 0), ("Add", 0)], [("Add", 0), (None, 0)]):
        assert [s[:6] for s in _run(gm(seq), sanitize=strict)] == waw


# ---------------------------------------------------------------------------------------------------------------------
# "blocks": GM conflicts between the blocks of one launch
# ---------------------------------------------------------------------------------------------------------------------
def _blocks_kernel(y, y_alias, case):
    b = aj.GetBlockIdx()
    t = aj.LocalMemAllocator().Alloc("float", 8)

    def write(array, offset, value):
        aj.Duplicate(t, value, 8)
        _flag("V_MTE3")
        aj.DataCopy(_gmv(array, offset, 8), t, 8)
        _flag("MTE3_V")
    if case == "own":                                 # each block its own row, written then read back
        write(y, 8 * b, float(b))
        _flag("MTE3_MTE2")
        aj.DataCopy(t, _gmv(y, 8 * b, 8), 8)
    elif case == "alias":                             # block 1 writes through a view overlapping block 0's row
        write(y if b == 0 else y_alias, 0, float(b))
    elif case in ("read", "read_sync"):
        if b == 0:
            write(y, 0, 5.0)
        if case == "read_sync":
            aj.SyncAll()
        if b != 0:
            aj.DataCopy(t, _gmv(y, 0, 8), 8)
    elif case == "phase2":                            # ordered across SyncAll, then a conflict in phase 2
        if b == 0:
            write(y, 0, 1.0)
        aj.SyncAll()
        if b == 1:
            aj.DataCopy(t, _gmv(y, 0, 8), 8)
        else:
            write(y, 0, 3.0)
    elif case == "rar":
        aj.DataCopy(t, _gmv(y, 0, 8), 8)
    elif case in ("pad", "pad_overlap"):              # 12 / 16 bytes at 12*b: adjacent or 4 bytes shared
        aj.Duplicate(t, float(b), 8)
        _flag("V_MTE3")
        nbytes = 12 if case == "pad" else 16
        aj.DataCopyPad(_gmv(y, 3 * b, nbytes // 4), t, aj.DataCopyExtParams(1, nbytes, 0, 0, 0))
    elif case in ("set_value", "set_value_same"):
        _gmv(y, 0, 8).SetValue(b if case == "set_value" else 0, float(b + 5))
    elif case == "get_value":
        if b == 0:
            write(y, 0, 5.0)
        else:
            _gmv(y, 0, 8).GetValue(3)


@pytest.mark.parametrize("case, alias, expected", [
    ("own", None, []),
    ("alias", 4, [("two blocks write the same GM bytes", 1, "DataCopy", "PIPE_MTE3", 16, 16)]),
    ("alias", "int32", [("two blocks write the same GM bytes", 1, "DataCopy", "PIPE_MTE3", 0, 32)]),
    ("alias", 8, []),
    ("read", None, [("a block reads GM bytes another block writes", 1, "DataCopy", "PIPE_MTE2", 0, 32)]),
    ("read_sync", None, []),
    ("phase2", None, [("a block reads GM bytes another block writes", 1, "DataCopy", "PIPE_MTE2", 0, 32)]),
    ("rar", None, []),
    ("pad", None, []),
    ("pad_overlap", None, [("two blocks write the same GM bytes", 1, "DataCopyPad", "PIPE_MTE3", 12, 4)]),
    ("set_value", None, []),
    ("set_value_same", None, [("two blocks write the same GM bytes", 1, "SetValue", "PIPE_S", 0, 4)]),
    ("get_value", None, [("a block reads GM bytes another block writes", 1, "GetValue", "PIPE_S", 12, 4)]),
])
def test_blocks_check(case, alias, expected):
    y = np.zeros(32, np.float32)
    y_alias = y.view(np.int32) if alias == "int32" else y[alias:] if alias else y
    with aj.sanitize_session("report") as session:
        aj.launch(_blocks_kernel, 2, A2, y, y_alias, case)
    assert {r.check for r in session.reports} <= {"blocks"}
    assert [(r.kind, r.block, r.instruction.api, r.instruction.pipe, r.address, r.nbytes)
            for r in session.reports] == expected


def _interleaved_rows(y, gap):
    b = aj.GetBlockIdx()
    t = aj.LocalMemAllocator().Alloc("float", 32)
    aj.Duplicate(t, float(b + 1), 32)
    _flag("V_MTE3")
    aj.DataCopyPad(_gmv(y, 8 * b, 64), t, aj.DataCopyExtParams(4, 32, 0, gap, 0))   # 4 rows of 32 B, gap B apart


def test_blocks_strided_rows_conflict_only_where_they_overlap():
    # block b's rows start at 32b + (32 + gap)k: a 32-byte gap interleaves the blocks; 28 overlaps 4 bytes per row
    for gap, expected in ((32, []), (28, [(1, 60, 4), (1, 120, 4), (1, 180, 4)])):
        y = np.zeros(80, np.float32)
        with aj.sanitize_session("report") as session:
            aj.launch(_interleaved_rows, 2, A2, y, gap)
        assert [(r.block, r.address, r.nbytes) for r in session.reports] == expected
        assert {r.kind for r in session.reports} <= {"two blocks write the same GM bytes"}


def _atomics(x, acc, ops, dtypes):
    b = aj.GetBlockIdx()
    dtype = dtypes[b]
    t = aj.LocalMemAllocator().Alloc(dtype, 16)
    aj.DataCopy(t, aj.GlobalTensor(x.astype(np.float32 if dtype == "float" else np.float16)), 16)
    _flag("MTE2_MTE3")
    getattr(aj, "SetAtomic" + ops[b])(dtype)
    aj.DataCopy(_gmv(acc.view(np.float32 if dtype == "float" else np.float16), 0, 16), t, 16)
    aj.SetAtomicNone()


@pytest.mark.parametrize("ops, dtypes, expected", [
    (("Add", "Add"), ("float", "float"), []),
    (("Max", "Max"), ("float", "float"), []),
    (("Min", "Min"), ("float", "float"), []),
    (("Add", "Max"), ("float", "float"), [(1, 0, 64)]),
    (("Min", "Max"), ("float", "float"), [(1, 0, 64)]),
    (("Add", "Add"), ("float", "half"), [(1, 0, 32)]),       # one operation and dtype only
])
def test_blocks_atomics_of_one_operation_and_dtype_combine(ops, dtypes, expected):
    x, acc = np.arange(16, dtype=np.float32), np.zeros(16, np.float32)
    with aj.sanitize_session("report") as session:
        aj.launch(_atomics, 2, A2, x, acc, ops, dtypes)
    assert [(r.block, r.address, r.nbytes) for r in session.reports] == expected
    assert {r.check for r in session.reports} <= {"blocks"}


def test_blocks_raise_mode_stops_the_access_before_it_writes_and_report_mode_is_deterministic():
    y = np.zeros(32, np.float32)
    with pytest.raises(aj.SanitizerError):
        with aj.sanitize_session("raise"):
            aj.launch(_blocks_kernel, 2, A2, y, y, "set_value_same", parallel=False)
    assert y[0] == 5.0                                            # block 0's write only; block 1's never happened
    seen = set()
    for _ in range(3):
        with aj.sanitize_session("report") as session:
            aj.launch(_blocks_kernel, 4, A2, np.zeros(32, np.float32), None, "read", parallel=True)
        seen.add(tuple(json.dumps(r.to_dict()) for r in session.reports))
    assert len(seen) == 1 and len(next(iter(seen))) == 3      # blocks 1-3 each read block 0's write


_CACHE = {}


def _shared_tensor(y):
    if "t" not in _CACHE:                                  # a module-level cache the blocks' threads share
        _CACHE["t"] = aj.LocalMemAllocator().Alloc("float", 8)
    aj.Duplicate(_CACHE["t"], 1.0, 8)


def test_blocks_reaching_another_cores_ub_is_reported():
    _CACHE.clear()
    with aj.sanitize_session("report") as session:
        aj.launch(_shared_tensor, 2, A2, np.zeros(8, np.float32), parallel=False)
    assert [(r.check, r.kind, r.block, r.instruction.api) for r in session.reports] == [
        ("blocks", "another core's UB", 1, "Duplicate")]


# ---------------------------------------------------------------------------------------------------------------------
# reports, JSON, modes
# ---------------------------------------------------------------------------------------------------------------------
def _two_hazards(core):
    x, z = _tiles(16, 16)
    aj.Adds(z, x, 1.0, 16)            # init
    aj.DataCopy(x, _gm(16), 16)       # WAR V -> MTE2


def test_report_objects_and_json():
    with aj.Core(A2, sanitize="report") as core:
        _two_hazards(core)
    reports = core.sanitizer.reports
    assert [(r.check, r.kind) for r in reports] == [("init", "uninitialised read"), ("race", "WAR")]
    keys = {"check", "kind", "instruction", "earlier", "earlier_block", "operand", "space", "address", "bytes",
            "runs", "fix", "block"}
    for r in reports:
        d = r.to_dict()
        assert set(d) == keys
        assert all(v is None or type(v) in (str, int) for v in d.values())        # plain values
        assert json.loads(json.dumps(d)) == d
        assert d["instruction"] == str(r.instruction) and d["space"] == "UB"
        assert d["address"] == r.address and d["bytes"] == r.nbytes
    assert reports[0].to_dict()["earlier"] is None and reports[0].earlier is None
    assert reports[1].to_dict()["earlier"].startswith("Adds [PIPE_V] at " + ME + ":")
    assert reports[0].instruction.seq < reports[1].instruction.seq
    text = aj.format_reports(reports)
    assert "[init]" in text and "[race] WAR" in text
    reports.clear()
    assert core.sanitizer.reports == [] and aj.format_reports([]) == "sanitizer: no reports"


@pytest.mark.parametrize("mode, expected", [
    ("report", [("init", "uninitialised read"), ("race", "WAR")]),
    ("report,race", [("race", "WAR")]),
    ("report,init", [("init", "uninitialised read")]),
    ("report,blocks,sync,memory", []),
    (aj.SanitizeConfig(mode="report", checks=("race",)), [("race", "WAR")]),
])
def test_check_words_select_the_checks(mode, expected):
    with aj.Core(A2, sanitize=mode) as core:
        _two_hazards(core)
    assert [(r.check, r.kind) for r in core.sanitizer.reports] == expected


@pytest.mark.parametrize("mode, check", [(True, "init"), ("raise", "init"), ("race", "race"), ("init", "init")])
def test_raise_mode_raises_the_first_report_as_a_state_error(mode, check):
    with pytest.raises(aj.SanitizerError, match=rf"\[{check}\]") as info:
        with aj.Core(A2, sanitize=mode) as core:
            _two_hazards(core)
    assert isinstance(info.value, aj.StateError)


@pytest.mark.parametrize("value", ["foo", "raise,report", 3, "race,nothing"])
def test_sanitize_session_refuses_bad_values(value):
    with pytest.raises(aj.ParameterError, match="sanitize_session"):
        with aj.sanitize_session(value):
            pass


def _racy_launch(y):
    t = aj.LocalMemAllocator().Alloc("float", 8)
    aj.Duplicate(t, 1.0, 8)
    aj.DataCopy(_gmv(y, 0, 8), t, 8)     # no V_MTE3


@pytest.mark.ascend_sanitize(checks="", reason="sets its own sanitizer modes: \"report\" outside a session "
                             "warns, which a session around the test would change")
def test_launch_modes():
    y = np.zeros(8, np.float32)
    with pytest.raises(aj.SanitizerError, match="block 0 of 1"):
        with aj.sanitize_session("raise"):
            aj.launch(_racy_launch, 1, A2, y)
    assert (y == 0).all()                                  # the reported copy-out wrote nothing
    with warnings.catch_warnings(record=True) as caught:    # "report" outside a session: one SanitizerWarning
        warnings.simplefilter("always")
        aj.launch(_racy_launch, 1, A2, y, sanitize="report")
    assert [w.category for w in caught] == [aj.SanitizerWarning] and "[race] RAW" in str(caught[0].message)
    with aj.sanitize_session("report") as session, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        aj.launch(_racy_launch, 1, A2, y)
    assert caught == [] and [(r.check, r.kind, r.block) for r in session.reports] == [("race", "RAW", 0)]
    assert (y == 1).all()


# ---------------------------------------------------------------------------------------------------------------------
# value neutrality: 10.1 "none of these change any value"; raise mode changes nothing (SPEC-2 1.5)
# ---------------------------------------------------------------------------------------------------------------------
def _messy(core, out):
    """Races, an uninitialised read, a strict pair and a Reg store; returns nothing, writes UB and `out`."""
    x, z, w = _tiles(N, N, N)
    aj.DataCopy(x, aj.GlobalTensor(np.linspace(-3, 3, N).astype(np.float16)), N)
    aj.Adds(z, x, 1.5, N)
    aj.Mul(w, z, x, N)
    w.SetValue(3, 7.0)
    aj.Adds(z, w, -2.0, 100)
    aj.DataCopy(aj.GlobalTensor(out), z, N)


def test_sanitizing_never_changes_a_result_byte():
    results = []
    for sanitize in (False, "report", "report,strict", "report,device-sync"):
        out = np.zeros(N, np.float16)
        with aj.Core(A2, sanitize=sanitize) as core:
            _messy(core, out)
        if sanitize:
            assert core.sanitizer.reports
        results.append((core.ub.tobytes(), out.tobytes()))
    assert all(r == results[0] for r in results)


def test_sanitizing_a_reg_vf_changes_no_byte():
    results = []
    for sanitize in (False, "report"):
        with aj.Core(A950, sanitize=sanitize) as core:
            x, y = _tiles(N, N)
            aj.DataCopy(x, _gm(), N)            # no MTE2_V: reported, value unchanged
            reg, mask = R.RegTensor("half"), R.CreateMask("half")
            R.LoadAlign(reg, x)
            R.Add(reg, reg, reg, mask)
            R.StoreAlign(y, reg, mask)
        results.append(core.ub[:2 * NB].tobytes())
    assert results[0] == results[1]
    assert np.array_equal(np.frombuffer(results[0][NB:], np.float16), 2 * np.arange(N, dtype=np.float16))


def test_a_reported_call_in_raise_mode_changes_nothing():
    def check(device, prepare, call, gm=None):
        with aj.Core(device, sanitize="raise") as core:
            state = prepare()
            ub = core.ub.copy()
            gm_before = None if gm is None else gm.copy()
            with pytest.raises(aj.SanitizerError):
                call(*state)
            assert np.array_equal(core.ub, ub)
            if gm is not None:
                assert np.array_equal(gm, gm_before)

    def read_then():
        x, z = _tiles(N, N)
        x[:] = np.full(N, 7, np.float16)
        z[:] = np.full(N, 9, np.float16)
        aj.Adds(z, x, 1.0, N)
        return x, z
    check(A2, read_then, lambda x, z: aj.DataCopy(x, _gm(), N))                          # WAR copy-in

    def copied_out():
        x, = _tiles(N)
        _host(x, 7.0)
        aj.DataCopy(_gm(), x, N)
        return (x,)
    check(A2, copied_out, lambda x: x.SetValue(0, 1.0))                                  # WAR SetValue
    check(A950, copied_out, lambda x: R.StoreAlign(x, R.RegTensor("half"), R.CreateMask("half")))

    def copied_in():
        x, z = _tiles(N, N)
        z[:] = np.full(N, 9, np.float16)
        aj.DataCopy(x, _gm(), N)
        return x, z
    check(A2, copied_in, lambda x, z: aj.Adds(z, x, 1.0, N))                             # RAW vector
    out = np.full(N, 3, np.float16)

    def written():
        x, = _tiles(N)
        aj.Duplicate(x, 1.0, N)
        return (x,)
    check(A2, written, lambda x: aj.DataCopy(aj.GlobalTensor(out), x, N), gm=out)       # RAW copy-out


# ---------------------------------------------------------------------------------------------------------------------
# defects found by this audit
# ---------------------------------------------------------------------------------------------------------------------
A2_PAIRS = [p for p in PAIRS if p[1] == A2]


@pytest.mark.parametrize("make, device, event, wrong", A2_PAIRS, ids=[m.__name__.strip("_") for m, *_ in A2_PAIRS])
def test_found_310b_race_fix_names_tquesync(make, device, event, wrong):
    """D62: the ISASI SetFlag/WaitFlag is refused on the 310B (UnsupportedDeviceError naming TQueSync); README: a
    report names its fix. The race report's fix named `SetFlag/WaitFlag with aj.HardEvent.<E>` there too, a call the
    device refuses; it must name the TQueSync of the same two pipes (SPEC-2 10.1: the same flags, named by pipes),
    which orders the pair (test_310b_and_910_order_the_pair_by_tquesync_and_their_own_ids). The A2 keeps the event."""
    src, dst = _pipes(event)
    with aj.Core(B310, sanitize="report") as core:
        make(lambda: None)[0](core)
    [rep] = core.sanitizer.reports
    assert f"TQueSync({src}, {dst})" in rep.fix and "HardEvent" not in rep.fix
    assert "PipeBarrier(PIPE_ALL)" in rep.fix
    with aj.Core(A2, sanitize="report") as core:
        make(lambda: None)[0](core)
    [rep] = core.sanitizer.reports
    assert f"aj.HardEvent.{event}" in rep.fix


def _two_writers_310b(y):
    t = aj.LocalMemAllocator().Alloc("float", 8)
    aj.Duplicate(t, 1.0, 8)
    _tqs("PIPE_V", "PIPE_MTE3")
    aj.DataCopy(_gmv(y, 0, 8), t, 8)


def test_found_blocks_fix_names_no_syncall_where_the_device_has_none():
    """The "blocks" report's fix offered "or a SyncAll between them" on the 310B too, which offers neither SyncAll
    form (SyncAll is refused there: UnsupportedDeviceError), the same fault as the flag fix above. There the fix
    names what remains: one atomic operation, or separate launches. The A2's fix keeps its SyncAll."""
    with aj.Core(B310), pytest.raises(aj.UnsupportedDeviceError):
        aj.SyncAll()
    for device, syncall in ((B310, False), (A2, True)):
        with aj.sanitize_session("report") as session:
            aj.launch(_two_writers_310b, 2, device, np.zeros(8, np.float32))
        [rep] = session.reports
        assert rep.check == "blocks" and "SetAtomicAdd" in rep.fix
        assert ("a SyncAll between them" in rep.fix) == syncall
        assert ("separate launches" in rep.fix) == (not syncall)


def _store_then_load(t, y):   # one VF: the load reads what the store wrote, with no LocalMemBar between them
    r = R.RegTensor("float")
    m = R.CreateMask("float")
    R.Duplicate(r, 1.0, m)
    R.StoreAlign(t, r, m)
    R.LoadAlign(r, t)
    R.StoreAlign(y, r, m)


@pytest.mark.parametrize("mode", ["report,strict", "report,strict,device-sync"])
def test_asc_vf_call_runs_a_plain_function_as_one_vf(mode, monkeypatch):
    """port57c (cann-samples simd_vf_constraints membar.asc calls a store then a load without LocalMemBar inside one
    VF "not allowed"): `asc_vf_call(f, ...)` of an undecorated f makes f one VF, as C++ does, so the sanitizer's
    VF-to-VF ordering ('device-sync') does not excuse the race inside it; the values are the VF's."""
    core = aj.Core("ascend950", sanitize=mode)
    t, y = core.local_tensor("float", 64), core.local_tensor("float", 64)
    with core:
        R.asc_vf_call(_store_then_load, t, y)
    [report] = core.sanitizer.reports
    assert "RAW" in str(report) and "LocalMemBar" in str(report) and "device-sync" not in str(report)
    assert np.array_equal(y.numpy(), np.ones(64, np.float32))
    compiled = R.simd_vf(_store_then_load)   # a simd_vf function is called as it is, not wrapped as a plain one
    wrapped, plain_vf = [], R._plain_vf
    monkeypatch.setattr(R, "_plain_vf", lambda fn: wrapped.append(fn) or plain_vf(fn))
    with aj.Core("ascend950") as plain_core:
        t, y = plain_core.local_tensor("float", 64), plain_core.local_tensor("float", 64)
        R.asc_vf_call(compiled, t, y)
        R.asc_vf_call(_store_then_load, t, y)
    assert wrapped == [_store_then_load]
    assert np.array_equal(y.numpy(), np.ones(64, np.float32))
