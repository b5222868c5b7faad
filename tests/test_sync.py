"""Issue 11: Ascend C indexing, kernel boilerplate and synchronisation (SPEC-2 section 10, D62), SyncAll, atomics,
LocalMemAllocator and explicit placement, event ids, InitSocState, and the porting mistakes that must be refused."""
import re
import threading
import time

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.reference import atomic as ref_atomic
from ascend_jit.reference import numerics as ref

E = aj.HardEvent


# --- indexing (docs/decisions.md "Indexing") -------------------------------------------------------------------------
def test_local_tensor_int_index_is_a_sub_tensor():
    core = aj.Core("a2")
    t = core.local_tensor("half", 64)
    t[:] = np.arange(64)
    sub = t[10]
    assert isinstance(sub, aj.LocalTensor) and sub.GetSize() == 54 and sub.GetPhyAddr() == t.GetPhyAddr() + 20
    assert sub.GetValue(0) == 10 and sub[4][2:4].numpy().tolist() == [16, 17]
    assert t[np.int64(3)].GetValue(0) == 3 and t(5) == 5
    assert t[8:16].GetSize() == 8 and t[60:64].GetSize() == 4 and t[64:].GetSize() == 0
    sub.SetValue(1, 99)
    assert t.GetValue(11) == 99
    for bad in (64, -1, 1000):
        with pytest.raises(aj.OutOfBoundsError, match=r"\[0, 64\)"):
            t[bad]
    with pytest.raises(aj.ParameterError, match="SetValue"):
        t[3] = 5
    with pytest.raises(aj.ParameterError, match="float"):
        t[1.5]


def test_global_tensor_int_index_is_a_sub_tensor():
    host = np.arange(32, dtype=np.float16)
    g = aj.GlobalTensor(host)
    sub = g[8]
    assert isinstance(sub, aj.GlobalTensor) and sub.GetSize() == 24 and sub.GetValue(0) == 8
    sub.SetValue(2, 77)
    assert host[10] == 77  # a window on the same GM
    assert g[4:8].numpy().tolist() == [4, 5, 6, 7]
    g[0:2] = [1, 2]
    assert host[:2].tolist() == [1, 2]
    for bad in (32, -1):
        with pytest.raises(aj.OutOfBoundsError):
            g[bad]
    with pytest.raises(aj.OutOfBoundsError):
        g.GetValue(32)
    with pytest.raises(aj.ParameterError, match="SetValue"):
        g[0] = 1


def test_slices_neither_clamp_nor_wrap():
    """decisions.md "Indexing" (binding): `t[a:b]` has b - a elements, so 0 <= a <= b <= GetSize(); a slice past
    the end, a negative bound or b < a is an OutOfBoundsError naming the bound, its legal range and the device (the
    current core's for a GlobalTensor), where Python's list slicing had clamped and wrapped them."""
    core = aj.Core("atlas-a2")
    t = core.local_tensor("half", 64)
    g = aj.GlobalTensor(np.zeros(64, np.float16))
    with core:
        for tensor in (t, g):
            api = f"{type(tensor).__name__}[]"
            assert tensor[0:64].GetSize() == 64 and tensor[64:64].GetSize() == 0 and tensor[:].GetSize() == 64
            assert tensor[np.int64(3):np.uint32(10)].GetSize() == 7 and tensor[0:64:1].GetSize() == 64
            for key, name, value, legal in ((slice(0, 100), "stop", 100, r"\[0, 64\]"),
                                            (slice(-16, None), "start", -16, r"\[0, 64\]"),
                                            (slice(None, -1), "stop", -1, r"\[0, 64\]"),
                                            (slice(10, 5), "stop", 5, r"\[10, 64\]"),
                                            (slice(65, None), "start", 65, r"\[0, 64\]")):
                with pytest.raises(aj.OutOfBoundsError, match=rf"{re.escape(api)}: parameter '{name}' = {value} "
                                                              rf".*legal: {legal}\) on device atlas-a2"):
                    tensor[key]
            with pytest.raises(aj.OutOfBoundsError, match="stop"):
                tensor[60:70] = np.zeros(10, np.float16)
            for key in (slice(1.0, 3), slice(True, 3)):
                with pytest.raises(aj.ParameterError, match="start"):
                    tensor[key]


def test_set_global_buffer_size_past_the_array_is_refused():
    x = np.zeros(256, np.float16)
    assert aj.GlobalTensor().SetGlobalBuffer(x[:128], 64).GetSize() == 64
    with pytest.raises(aj.OutOfBoundsError, match="128"):
        aj.GlobalTensor().SetGlobalBuffer(x[:128], 256)
    with pytest.raises(aj.ParameterError, match="list"):
        aj.GlobalTensor().SetGlobalBuffer([1, 2, 3])


def test_ported_sub_tensor_calls_work():
    core = aj.Core("a2")
    s = core.local_tensor("half", 512)
    s[:] = 1
    dst, tmp = core.local_tensor("half", 16), core.local_tensor("half", 64)
    aj.ReduceSum(dst, s[128], tmp, 256)  # aj.ReduceSum(s[128], ...): a sub-tensor, as in Ascend C
    assert dst.numpy()[0] == 256
    aj.Add(s[64], s, s, 64)
    assert s.numpy()[64] == 2
    gm = aj.GlobalTensor(np.arange(512, dtype=np.float16))
    core.PipeBarrier(aj.PIPE_ALL)   # the copy-in overwrites what the Add read (V -> MTE2)
    aj.DataCopy(s, gm[128], 128)
    assert s.numpy()[0] == 128


# --- porting mistakes are AscendJitErrors with helpful messages --------------------------------------------------------
def test_not_a_tensor_messages_name_the_types():
    core = aj.Core("a2")
    a, tmp = core.local_tensor("half", 128), core.local_tensor("half", 64)
    with pytest.raises(aj.ParameterError, match="ndarray.*LocalTensor"):
        aj.ReduceSum(a, np.zeros(128, np.float16), tmp, 128)
    with pytest.raises(aj.ParameterError, match="float16.*scalar"):
        aj.ReduceSum(np.float16(1), a, tmp, 128)
    with pytest.raises(aj.ParameterError, match="the count .* is missing"):  # _common.split_forms
        aj.ReduceSum(a, a, tmp)
    gm = aj.GlobalTensor(np.zeros(128, np.float16))
    for bad in ([0] * 128, np.zeros(128, np.float16)):
        with pytest.raises(aj.ParameterError, match=f"{type(bad).__name__}.*GlobalTensor"):
            aj.DataCopy(a, bad, 128)
    with pytest.raises(aj.ParameterError, match="missing"):
        aj.DataCopy(a, gm)


def test_data_copy_operand_refusals_name_the_device():
    """errors.py: every refusal names the device. DataCopy / DataCopyPad with an operand that is no tensor, or GM on
    both sides, name the device of the LocalTensor operand, else the current core's, else say none is known."""
    core = aj.Core("atlas-a2")
    a = core.local_tensor("half", 64)
    gm = aj.GlobalTensor(np.zeros(64, np.float16))
    params = aj.DataCopyExtParams(1, 8, 0, 0, 0)
    for bad in (np.zeros(64, np.float16), [0.0] * 64, None, 3):
        for call in (lambda: aj.DataCopy(a, bad, 64), lambda: aj.DataCopy(bad, a, 64),
                     lambda: aj.DataCopyPad(a, bad, params), lambda: aj.DataCopyPad(bad, a, params)):
            with pytest.raises(aj.ParameterError, match=r"on device atlas-a2$"):
                call()
    with pytest.raises(aj.ParameterError, match=r"^DataCopy: .*GM -> GM.*no device known"):
        aj.DataCopy(gm, aj.GlobalTensor(np.ones(64, np.float16)), 64)
    with pytest.raises(aj.ParameterError, match=r"^DataCopyPad: parameter 'src' = 'ndarray' no device known"):
        aj.DataCopyPad(gm, np.zeros(64, np.float16), params)
    with core:
        for call in (lambda: aj.DataCopy(gm, aj.GlobalTensor(np.ones(64, np.float16)), 64),
                     lambda: aj.DataCopyPad(gm, aj.GlobalTensor(np.ones(64, np.float16)), params),
                     lambda: aj.DataCopy(gm, np.zeros(64, np.float16), 64)):
            with pytest.raises(aj.ParameterError, match=r"on device atlas-a2$"):
                call()
    assert (gm.array == 0).all()


def test_data_copy_gm_to_gm_and_across_cores_refused():
    g1, g2 = aj.GlobalTensor(np.zeros(64, np.float16)), aj.GlobalTensor(np.ones(64, np.float16))
    with pytest.raises(aj.ParameterError, match="GM -> GM"):
        aj.DataCopy(g1, g2, 64)
    assert (g1.array == 0).all()
    c1, c2 = aj.Core("a2"), aj.Core("a2")
    t1, t2 = c1.local_tensor("half", 64), c2.local_tensor("half", 64)
    t2[:] = 1
    with pytest.raises(aj.ParameterError, match="another core"):
        aj.DataCopy(t1, t2, 64)
    assert (t1.numpy() == 0).all()


def test_tque_requires_a_position():
    with pytest.raises(aj.ParameterError, match="TPosition"):
        aj.TQue(2)
    with pytest.raises(aj.ParameterError, match="TPosition"):
        aj.TBuf(1)


def test_errors_inside_a_launch_name_the_block():
    def kernel():
        if aj.GetBlockIdx() == 3:
            core = aj.current_core()
            aj.Add(core.local_tensor("half", 16), core.local_tensor("half", 16), core.local_tensor("half", 16), 64)

    for parallel in (True, False):
        with pytest.raises(aj.OutOfBoundsError, match="^block 3 of 4: Add"):
            aj.launch(kernel, 4, "a2", parallel=parallel)

    def python_bug():
        if aj.GetBlockIdx() == 1:
            raise KeyError("x")
    with pytest.raises(KeyError) as info:
        aj.launch(python_bug, 2, "a2")
    assert "block 1 of 2" in "".join(getattr(info.value, "__notes__", []))


def test_get_reduce_repeat_sum_spr_has_the_tensor_dtype():
    for dtype, np_t in (("half", np.float16), ("float", np.float32)):
        core = aj.Core("a2")
        src, dst, tmp = core.local_tensor(dtype, 256), core.local_tensor(dtype, 16), core.local_tensor(dtype, 64)
        src[:] = 1
        aj.ReduceSum(dst, src, tmp, 200)
        core.PipeBarrier(aj.PIPE_ALL)         # the scalar read of ACC_VAL waits for the vector pipe
        value = core.GetReduceRepeatSumSpr()
        assert type(value) is np_t and value == 200 and core.GetReduceRepeatSumSpr(dtype) == 200
        with pytest.raises(aj.StateError, match=dtype):
            core.GetReduceRepeatSumSpr("float" if dtype == "half" else "half")


# --- the flag model (SPEC-2 10.3, D62) ---------------------------------------------------------------------------
def test_flag_model_and_every_refusal(device):
    core = aj.Core(device)
    n = core.spec.event_ids
    events = []
    core.sync_hooks.append(lambda c, kind, detail: events.append((kind, detail)))
    with core:
        aj.PipeBarrier(aj.PIPE_V)
        aj.PipeBarrier(aj.PIPE_ALL)
        with pytest.raises(aj.ParameterError, match="PIPE_S"):
            aj.PipeBarrier(aj.PIPE_S)
        aj.PipeBarrier(2)   # PIPE_V's value (decisions.md "Integer parameters")
        for bad in (0, 7, True, "PIPE_V"):
            with pytest.raises(aj.ParameterError, match="Pipe"):
                aj.PipeBarrier(bad)
        with pytest.raises(aj.ParameterError, match="PIPE_S"):
            aj.PipeBarrier(1)
        for pipe in (aj.PIPE_S, aj.PIPE_V, aj.PIPE_MTE2):   # the devkit static_asserts src != dst (audit 45s)
            with pytest.raises(aj.ParameterError, match="dst_pipe.*other than src_pipe") as refusal:
                aj.TQueSync(pipe, pipe)
            assert refusal.value.device == core.spec.name
        sync = aj.TQueSync(aj.PIPE_MTE2, aj.PIPE_V)  # every device, 310B included
        sync.SetFlag(aj.EVENT_ID1)
        with pytest.raises(aj.StateError, match="already set"):
            sync.SetFlag(aj.EVENT_ID1)
        if core.spec.isasi_flags:
            aj.WaitFlag(aj.EVENT_ID1, event=E.MTE2_V)  # the same hardware flag as the TQueSync pair
        else:
            with pytest.raises(aj.UnsupportedDeviceError, match="TQueSync"):
                aj.SetFlag(aj.EVENT_ID0, event=E.MTE2_V)
            sync.WaitFlag(aj.EVENT_ID1)
        with pytest.raises(aj.StateError, match="block forever"):
            sync.WaitFlag(aj.EVENT_ID1)
        with pytest.raises(aj.ParameterError, match=f"0, {n - 1}"):
            sync.SetFlag(n)
        with pytest.raises(aj.ParameterError):
            sync.SetFlag(-1)
        assert core.pending_flags() == []
        if core.spec.isasi_flags:
            aj.SetFlag(n - 1, event=E.V_MTE3)
            assert core.pending_flags() == [(aj.PIPE_V, aj.PIPE_MTE3, n - 1)]
            with pytest.raises(aj.ParameterError, match="HardEvent"):
                aj.SetFlag(0, event="V_MTE3")
            with pytest.raises(aj.ParameterError, match="keyword-only"):
                aj.SetFlag(0, E.V_MTE3)  # the event is keyword-only (SPEC-2 10.2)
    assert ("PipeBarrier", {"pipe": aj.PIPE_ALL}) in events
    assert [k for k, _ in events].count("TQueSync.SetFlag") == 1


def test_flag_calls_in_the_cpp_order_are_refused_with_the_legal_call():
    """`SetFlag<HardEvent::V_MTE3>(0)` written template-first, `aj.SetFlag(aj.HardEvent.V_MTE3, 0)`, or without the
    event, is a ParameterError that spells the keyword call (SPEC-2 10.2: event is keyword-only and required), not a
    bare TypeError; nothing is set."""
    core = aj.Core("a2")
    with core:
        for api in (aj.SetFlag, aj.WaitFlag):
            name = api.__name__
            with pytest.raises(aj.ParameterError, match=rf"{name}: parameter 'event' = 'HardEvent.V_MTE3 as a "
                                                        rf"positional argument'.*aj\.{name}\(0, event=aj\.HardEvent"
                                                        rf"\.V_MTE3\) \(SPEC-2 10.2\)"):
                api(E.V_MTE3, 0)
            with pytest.raises(aj.ParameterError, match=rf"'missing'.*aj\.{name}\(3, event=aj\.HardEvent\."
                                                        rf"<SRC>_<DST>\)"):
                api(3)
            with pytest.raises(aj.ParameterError, match="'missing'.*event_id"):
                api()
        with pytest.raises(aj.ParameterError, match="keyword-only"):
            core.SetFlag(E.MTE2_V, 1)
        assert core.pending_flags() == []
        aj.SetFlag(0, event=E.V_MTE3)
        aj.WaitFlag(0, event=E.V_MTE3)


def test_flag_calls_take_the_event_id_by_keyword():
    """SPEC-2 1.1: every parameter is also a keyword with the snake_case of its C++ name, so `event_id=` works for
    aj.SetFlag / aj.WaitFlag and core.SetFlag / core.WaitFlag as it does for TQueSync.SetFlag; an id given both ways
    or an unknown keyword is Python's own TypeError, as for every other API (decisions.md "Forms by position or
    keyword")."""
    core = aj.Core("a2")
    with core:
        aj.SetFlag(event_id=0, event=E.V_S)
        assert core.pending_flags() == [(aj.PIPE_V, aj.PIPE_S, 0)]
        aj.WaitFlag(event_id=0, event=E.V_S)
        core.SetFlag(event_id=aj.EVENT_ID2, event=E.MTE2_V)
        core.WaitFlag(event_id=np.int64(2), event=E.MTE2_V)
        sync = aj.TQueSync(aj.PIPE_MTE2, aj.PIPE_V)
        sync.SetFlag(event_id=1)
        sync.WaitFlag(event_id=1)
        with pytest.raises(aj.ParameterError, match=r"event_id.*\[0, 7\]"):
            aj.SetFlag(event_id=8, event=E.V_S)
        with pytest.raises(aj.ParameterError, match=r"keyword-only.*aj\.SetFlag\(0, event=aj\.HardEvent\.V_S\)"):
            aj.SetFlag(E.V_S, event_id=0)
        with pytest.raises(aj.ParameterError, match="missing"):
            aj.WaitFlag(event_id=0)
        for call in (lambda: aj.SetFlag(0, event_id=0, event=E.V_S), lambda: aj.SetFlag(0, event=E.V_S, id=0),
                     lambda: core.WaitFlag(0, event_id=0, event=E.V_S)):
            with pytest.raises(TypeError):
                call()
        assert core.pending_flags() == []


def test_enum_parameters_take_their_integer_values():
    """decisions.md "Integer parameters": an enum parameter takes a member or its integer value (a numpy integer
    too), never bool, a float, a name or a value outside the enum, which stay ParameterErrors naming the legal
    members with their values: Pipe (PipeBarrier, TQueSync), HardEvent (SetFlag/WaitFlag, TPipe event ids)."""
    core = aj.Core("a2")
    with core:
        aj.PipeBarrier(int(aj.PIPE_V))
        aj.PipeBarrier(pipe=np.uint8(10))                   # PIPE_ALL
        sync = aj.TQueSync(5, np.int32(2))                  # PIPE_MTE2 -> PIPE_V
        assert (sync.src, sync.dst) == (aj.PIPE_MTE2, aj.PIPE_V) and type(sync.src) is aj.Pipe
        sync.SetFlag(0)
        aj.WaitFlag(0, event=E.MTE2_V.value)              # the same hardware flag, the event by its value
        with pytest.raises(aj.ParameterError, match=r"TQueSync: parameter 'dst_pipe' = 10 .*Pipe\.PIPE_V \(2\)"):
            aj.TQueSync(5, 10)                              # PIPE_ALL's value is refused as PIPE_ALL is
        for bad in (0, 12, True, 2.0, "PIPE_V", E.V_S):
            with pytest.raises(aj.ParameterError, match=r"PipeBarrier: parameter 'pipe'.*legal: Pipe\.PIPE_S \(1\)"):
                aj.PipeBarrier(bad)
        for bad in (35, -1, True, "V_S", aj.PIPE_V):
            with pytest.raises(aj.ParameterError, match=r"SetFlag: parameter 'event'.*HardEvent\.MTE2_MTE1 \(0\)"):
                aj.SetFlag(0, event=bad)
        pipe = aj.TPipe()
        i = pipe.AllocEventID(E.V_MTE3.value)
        assert pipe.FetchEventID(E.V_MTE3) == i + 1
        pipe.ReleaseEventID(i, np.int16(E.V_MTE3.value))
        assert core.pending_flags() == []


def test_flag_state_refusals_name_their_legal_state():
    """The errors.py contract (API, parameter, value, legal range, device) holds for D62's state refusals too
    (audit14b: SetFlag on a set flag, WaitFlag on a clear one and flags pending at a launch's end had no legal
    part)."""
    core = aj.Core("atlas-a2")
    with core:
        aj.SetFlag(3, event=E.V_S)
        with pytest.raises(aj.StateError) as info:
            aj.SetFlag(3, event=E.V_S)
        assert info.value.legal and "(legal: a flag that is not set)" in str(info.value)
        aj.WaitFlag(3, event=E.V_S)
        with pytest.raises(aj.StateError) as info:
            aj.WaitFlag(3, event=E.V_S)
        assert info.value.legal and "(legal: a flag set by a SetFlag" in str(info.value)
    with pytest.raises(aj.StateError) as info:
        aj.launch(lambda: aj.SetFlag(1, event=E.MTE2_V), 1, "a2")
    assert info.value.legal and "legal: none" in str(info.value) and info.value.device == "atlas-a2"


def test_pending_flags_at_the_end_of_a_launch():
    def kernel():
        aj.SetFlag(aj.EVENT_ID2, event=E.MTE2_V)
        if aj.GetBlockIdx() == 0:
            aj.WaitFlag(aj.EVENT_ID2, event=E.MTE2_V)

    with pytest.raises(aj.StateError, match="block 1 of 2: .*MTE2_V id 2"):
        aj.launch(kernel, 2, "a2")


def test_event_ids_fetch_alloc_release_and_exhaustion():
    for device, n in (("a2", 8), ("910", 4)):
        with aj.Core(device):
            pipe = aj.TPipe()
            assert aj.GetTPipePtr() is pipe
            assert pipe.FetchEventID(E.V_S) == pipe.FetchEventID(E.V_S) == 0  # Fetch does not occupy
            ids = [pipe.AllocEventID(E.V_S) for _ in range(n)]
            assert ids == list(range(n)) and pipe.FetchEventID(E.S_V) == 0
            for call in (lambda: pipe.AllocEventID(E.V_S), lambda: pipe.FetchEventID(E.V_S)):
                with pytest.raises(aj.StateError, match="allocated"):
                    call()
            pipe.ReleaseEventID(2, E.V_S)
            assert pipe.AllocEventID(E.V_S) == 2
            with pytest.raises(aj.StateError, match="not allocated"):
                pipe.ReleaseEventID(1, E.S_V)
    with aj.Core("310b"):
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.TPipe().FetchEventID(E.V_S)
    with aj.Core("a2"), pytest.raises(aj.StateError, match="TPipe"):
        aj.GetTPipePtr()


def test_init_soc_state_power_on_values():
    core = aj.Core("a2")
    core.SetMaskCount()
    core.SetVectorMask(5)
    core.SetAtomicAdd("half")
    with core:
        aj.InitSocState()
    assert not core.counter_mode and (core.mask_high, core.mask_low) == (2**64 - 1, 2**64 - 1) and core.atomic is None
    core = aj.Core("950")
    core.SetCtrlSpr(48, 48, 0)
    core.SetCtrlSpr(53, 53, 1)
    core.InitSocState()
    assert core.ctrl == 0x1000000000000008 and core.half_saturating and not core.int_saturating
    core = aj.Core("310p")
    ctrl = core.ctrl
    core.SetMaskCount()
    core.InitSocState()
    assert core.counter_mode and core.ctrl == ctrl | (1 << 56)  # 310P init touches only the atomics


def test_local_mem_allocator_and_explicit_placement():
    core = aj.Core("a2")
    with core:
        allocator = aj.LocalMemAllocator()
        a = allocator.Alloc("half", 100)
        b = allocator.Alloc("float", 8)
        assert (a.addr, a.GetSize(), b.addr, allocator.GetCurAddr()) == (0, 100, 224, 256)
        with pytest.raises(aj.OutOfBoundsError, match=f"{core.spec.ub_bytes - 256} B are free"):
            allocator.Alloc("float", core.spec.ub_bytes)
        with pytest.raises(aj.ParameterError, match="n"):
            allocator.Alloc("half")
        with pytest.raises(aj.StateError, match="one LocalMemAllocator"):
            aj.LocalMemAllocator()
        assert core.local_tensor("half", 16).addr >= 256  # the allocator's ranges are reserved
        t = aj.LocalTensor(aj.TPosition.VECCALC, 4096, 64, dtype="float")
        assert (t.addr, t.GetSize(), t.dtype.name, t.position) == (4096, 64, "float", aj.TPosition.VECCALC)
        with pytest.raises(aj.OutOfBoundsError):
            aj.LocalTensor(aj.TPosition.VECCALC, core.spec.ub_bytes - 64, 64, dtype="float")
        with pytest.raises(aj.ParameterError, match="dtype"):
            aj.LocalTensor(aj.TPosition.VECCALC, 0, 64)
        with pytest.raises(aj.ParameterError, match="TPosition"):
            aj.LocalTensor(2, 0, dtype="half")
    with aj.Core("a2"):
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, 1024)
        with pytest.raises(aj.OutOfBoundsError, match="occupies"):
            aj.LocalMemAllocator().Alloc("half", 16)


# --- SyncAll ----------------------------------------------------------------------------------------------------------
def _exchange(gm, seen):
    """Each block writes its slot, SyncAll, then reads every slot: correct only with a real barrier."""
    b, n = aj.GetBlockIdx(), aj.GetBlockNum()
    assert aj.GetSubBlockIdx() == 0
    gm[b] = b + 1
    aj.SyncAll()
    seen[b] = gm[:n].copy()
    aj.SyncAll()
    gm[b] = 0


def test_sync_all_is_a_barrier_across_eight_blocks():
    gm = np.zeros(8, np.int32)
    seen = [None] * 8
    aj.launch(_exchange, 8, "a2", gm, seen)
    assert all(s.tolist() == list(range(1, 9)) for s in seen) and (gm == 0).all()
    with pytest.raises(aj.StateError, match="parallel=False"):
        aj.launch(_exchange, 8, "a2", gm, seen, parallel=False)
    with pytest.raises(aj.UnsupportedDeviceError, match="gm_workspace"):
        aj.launch(_exchange, 2, "910", gm, seen)
    from ascend_jit.launch import MAX_CONCURRENT_BLOCKS
    with pytest.raises(aj.StateError, match=f"more than {MAX_CONCURRENT_BLOCKS} blocks"):
        aj.launch(lambda: aj.SyncAll(), MAX_CONCURRENT_BLOCKS + 1, "a2")


def test_sync_all_never_hangs():
    def early_return():
        if aj.GetBlockIdx() == 5:
            return
        aj.SyncAll()

    def failing_block():
        if aj.GetBlockIdx() == 2:
            raise aj.ParameterError("kernel", "x", 1)
        aj.SyncAll()

    result = []
    worker = threading.Thread(target=lambda: result.append(_raises(lambda: aj.launch(early_return, 8, "a2"))))
    worker.start()
    worker.join(60)
    assert not worker.is_alive() and "block 5 returned without reaching SyncAll" in result[0]
    assert _raises(lambda: aj.launch(failing_block, 8, "a2")).startswith("block 2 of 8: kernel")


def _raises(call):
    try:
        call()
    except aj.AscendJitError as err:
        return str(err)
    return ""


def test_sync_all_soft_form():
    def kernel(gm):
        core = aj.current_core()
        aj.SyncAll(aj.GlobalTensor(gm), core.local_tensor("int32", 8))

    aj.launch(kernel, 4, "910", np.zeros(64, np.int32))
    with pytest.raises(aj.UnsupportedDeviceError):
        aj.launch(kernel, 1, "310b", np.zeros(64, np.int32))


def test_sync_all_template_argument_is_the_keyword_is_aiv_only():
    """`SyncAll<true>()` (ops-nn L2Loss, Median, CrossEntropyLoss) is `aj.SyncAll(is_aiv_only=True)`; `<false>`
    (the mixed cube/vector kernels' sync) and the template argument written positionally are ParameterErrors naming
    the keyword, before any block waits."""
    def kernel(gm):
        aj.SyncAll(is_aiv_only=True)
        gm[aj.GetBlockIdx()] = 1

    gm = np.zeros(4, np.int32)
    aj.launch(kernel, 4, "a2", gm)
    assert gm.tolist() == [1, 1, 1, 1]
    for call, value in ((lambda: aj.SyncAll(is_aiv_only=False), "False"), (lambda: aj.SyncAll(True), "True"),
                        (lambda: aj.SyncAll(False), "False")):
        with pytest.raises(aj.ParameterError, match=f"SyncAll: parameter 'is_aiv_only' = {value}.*keyword "
                                                    "is_aiv_only="):
            aj.launch(lambda: call(), 2, "a2")


# --- atomics ----------------------------------------------------------------------------------------------------------
_SPECIALS = {"half": [0.0, -0.0, 65504, -65504, np.inf, -np.inf, np.nan, 6e-8, 1.0, 2049],
             "float": [0.0, -0.0, 3e38, -3e38, np.inf, -np.inf, np.nan, 1e-45, 1.0, 16777217],
             "bfloat16": [0.0, -0.0, 3e38, -3e38, np.inf, -np.inf, np.nan, 1.0, 257]}


def _atomic_values(dtype, n, seed):
    rng = np.random.default_rng(seed)
    np_t = ref.NP_TYPES[dtype]
    if ref.is_float(dtype):
        v = (rng.standard_normal(n) * 300).astype(np.float32)
        v[:len(_SPECIALS[dtype])] = _SPECIALS[dtype]
        rng.shuffle(v)
        with np.errstate(all="ignore"):
            return v.astype(np_t)
    lo, hi = ref.INT_RANGE[dtype]
    v = rng.integers(lo, hi + 1, n)
    v[:4] = [lo, hi, -1 if lo else 0, 0]
    return v.astype(np_t)


@pytest.mark.parametrize("device,dtype,op,saturating", [
    (dev, dtype, op, sat) for dev in ("a2", "310p", "910", "310b")
    for dtype in aj.get_device(dev).atomic_add_dtypes for op in ("add", "max", "min")
    if op == "add" or dtype in aj.get_device(dev).atomic_max_min_dtypes for sat in (False, True)
    if not (dev == "310p" and not sat) and not (dev in ("910", "310b") and sat != (dev == "910"))])
def test_atomic_data_copy_matches_the_reference(device, dtype, op, saturating):
    core = aj.Core(device)
    if core.spec.half_saturation_switchable:
        core.SetCtrlSpr(48, 48, 0 if saturating else 1)
        core.SetCtrlSpr(53, 53, 1 if saturating else 0)
    n = 32 // ref.SIZES[dtype] * 8
    gm_host = _atomic_values(dtype, n, 1)
    ub = core.local_tensor(dtype, n)
    ub[:] = _atomic_values(dtype, n, 2)
    expected = gm_host.view(np.uint8).copy()
    ref_atomic.atomic_copy(expected, ub.numpy().view(np.uint8), dtype, op, core.half_saturating, core.int_saturating)
    with core:
        {"add": aj.SetAtomicAdd, "max": aj.SetAtomicMax, "min": aj.SetAtomicMin}[op](dtype)
        aj.DataCopy(aj.GlobalTensor(gm_host), ub, n)
        aj.SetAtomicNone()
    assert np.array_equal(gm_host.view(np.uint8), expected)


def test_atomic_refusals():
    core = aj.Core("310b")
    with core:
        with pytest.raises(aj.UnsupportedDTypeError, match="int16, half, int32, float"):
            aj.SetAtomicAdd("bfloat16")
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.SetAtomicMax("half")
        with pytest.raises(aj.ParameterError, match="missing"):
            aj.SetAtomicAdd()
        aj.SetAtomicAdd("half")
        gm = np.ones(16, np.int16)
        with pytest.raises(aj.ParameterError, match="half"):   # before the sanitizer sees the never-written bytes
            aj.DataCopy(aj.GlobalTensor(gm), core.local_tensor("int16", 16), 16)
        assert (gm == 1).all()


@pytest.mark.parametrize("sanitize", [False, True])
def test_atomic_data_copy_pad_refusals_name_data_copy_pad(sanitize):
    """A DataCopyPad UB -> GM under SetAtomicAdd whose GM type is not the mode's is refused by DataCopyPad's name,
    with and without the sanitizer (the atomic path is DataCopy's; it named DataCopy)."""
    core = aj.Core("atlas-a2")
    if sanitize:
        core.sanitize = True
    with core:
        a = core.local_tensor("half", 64)
        a[:] = np.ones(64, np.float16)
        aj.PipeBarrier(aj.PIPE_ALL)
        aj.SetAtomicAdd("float")
        gm = np.zeros(64, np.float16)
        with pytest.raises(aj.ParameterError, match=r"^DataCopyPad: parameter 'dst.dtype' = 'half'.*SetAtomicAdd"):
            aj.DataCopyPad(aj.GlobalTensor(gm), a, aj.DataCopyExtParams(1, 8, 0, 0, 0))
        assert (gm == 0).all()
        events = []
        core.sync_hooks.append(lambda c, kind, detail: events.append(kind))
        aj.SetAtomicAdd("half")
        aj.DataCopyPad(aj.GlobalTensor(gm), a, aj.DataCopyExtParams(1, 8, 0, 0, 0))
        assert gm[:4].tolist() == [1, 1, 1, 1] and (gm[4:] == 0).all() and events == ["DataCopyPad (atomic)"]
        aj.SetAtomicNone()


def _block_values():
    """Per-block partials whose float sum depends on the order: large values that cancel, small ones that vanish."""
    return np.array([1e8, 3.0, -1e8, 5.0, 7.0, 2e8, -2e8, 1.0], np.float32)


def _atomic_kernel(values, out):
    core = aj.current_core()
    t = core.local_tensor("float", 8)
    t[:] = 0
    t.SetValue(0, values[aj.GetBlockIdx()])
    aj.PipeBarrier(aj.PIPE_ALL)               # the copy-out waits for the scalar store (S -> MTE3)
    aj.SetAtomicAdd("float")
    aj.DataCopy(aj.GlobalTensor(out), t, 8)


def _sequential(values, order):
    total = np.float32(0)
    for b in order:
        total = np.float32(total + values[b])
    return total


def test_atomic_order_is_deterministic_and_shuffle_changes_a_float_sum():
    values = _block_values()
    results = {}
    for parallel in (True, False):
        out = np.zeros(8, np.float32)
        aj.launch(_atomic_kernel, 8, "a2", values, out, parallel=parallel)
        results[parallel] = out[0]
    assert results[True] == results[False] == _sequential(values, range(8))
    shuffled = set()
    for seed in range(6):
        outs = []
        for parallel in (True, False):
            out = np.zeros(8, np.float32)
            aj.launch(_atomic_kernel, 8, "a2", values, out, parallel=parallel, atomic_order="shuffle", seed=seed)
            outs.append(out[0])
        order = np.random.default_rng(seed).permutation(8)
        assert outs[0] == outs[1] == _sequential(values, order)  # deterministic given the seed
        shuffled.add(float(outs[0]))
    assert len(shuffled - {float(results[True])}) >= 1  # the order shows in the float sum
    with pytest.raises(aj.ParameterError):
        aj.launch(_atomic_kernel, 8, "a2", values, np.zeros(8, np.float32), atomic_order="random")


def test_atomic_turns_respect_sync_all_epochs():
    """Block 0 commits after a SyncAll, every other block before it: block 0's add lands last (1e8 + 1 + 1 - 1e8 = 0
    in float32; block 0 first would give 2)."""
    def kernel(out):
        core = aj.current_core()
        t = core.local_tensor("float", 8)
        t[:] = 0
        t.SetValue(0, {0: -1e8, 1: 1e8}.get(aj.GetBlockIdx(), 1.0))
        aj.PipeBarrier(aj.PIPE_ALL)           # the copy-out waits for the scalar store (S -> MTE3)
        aj.SetAtomicAdd("float")
        if aj.GetBlockIdx() == 0:
            aj.SyncAll()
            aj.DataCopy(aj.GlobalTensor(out), t, 8)
        else:
            aj.DataCopy(aj.GlobalTensor(out), t, 8)
            aj.SyncAll()

    out = np.zeros(8, np.float32)
    aj.launch(kernel, 4, "a2", out)
    assert out[0] == 0


def test_bf16_atomic_uses_bfloat16_rounding():
    core = aj.Core("950")
    gm = np.array([1.0] * 16, ml_dtypes.bfloat16)
    t = core.local_tensor("bfloat16", 16)
    t[:] = np.full(16, 2.0 ** -8, ml_dtypes.bfloat16)
    core.SetAtomicAdd("bfloat16")
    aj.DataCopy(aj.GlobalTensor(gm), t, 16)
    assert (gm == 1.0).all()  # 1 + 2**-8 rounds to even in bf16 (8 significand bits)


def test_a_sanitizing_core_receives_the_sync_events():
    core = aj.Core("a2", sanitize="report")
    with core:
        aj.SetFlag(aj.EVENT_ID3, event=E.MTE2_V)
        assert ("PIPE_MTE2", "PIPE_V", 3) in core.sanitizer.flag_clocks
        aj.WaitFlag(aj.EVENT_ID3, event=E.MTE2_V)
        assert ("PIPE_MTE2", "PIPE_V", 3) not in core.sanitizer.flag_clocks
        aj.PipeBarrier(aj.PIPE_ALL)


@pytest.mark.parametrize("cores", [1, 3])
def test_run_slots_bound_the_running_blocks_and_never_block_a_barrier(monkeypatch, cores):
    """With fewer host cores than blocks, at most `cores` blocks run Python at once; blocks waiting at SyncAll or
    for an atomic turn hand their slot on, so barriers and turn orders still complete (no hang)."""
    import importlib
    monkeypatch.setattr(importlib.import_module("ascend_jit.launch"), "host_cores", lambda: cores)
    lock, running, peak = threading.Lock(), [0], [0]

    def kernel(gm, out):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.01)  # releases the GIL: without run slots every block would be in here at once
        with lock:
            running[0] -= 1
        core = aj.current_core()
        t = core.local_tensor("float", 8)
        t[:] = 0
        t.SetValue(0, float(aj.GetBlockIdx() + 1))
        s_to_mte3 = aj.TQueSync(aj.PIPE_S, aj.PIPE_MTE3)
        s_to_mte3.SetFlag(0)
        s_to_mte3.WaitFlag(0)
        aj.SyncAll()
        aj.SetAtomicAdd("float")
        aj.DataCopy(aj.GlobalTensor(out), t, 8)
        aj.SyncAll()
        gm[aj.GetBlockIdx()] = out[0]

    gm, out, errors = np.zeros(8, np.float32), np.zeros(8, np.float32), []
    worker = threading.Thread(target=lambda: errors.append(_raises(lambda: aj.launch(kernel, 8, "a2", gm, out))))
    worker.start()
    worker.join(60)
    assert not worker.is_alive() and errors == [""]
    assert peak[0] <= cores and (gm == 36).all()


def test_tque_sync_made_outside_a_core_acts_on_the_core_current_at_each_call():
    """SPEC-2 10.2: TQueSync names a pipe pair; like the C++ local object it needs no core to exist, only to flag."""
    sync = aj.TQueSync(aj.PIPE_MTE2, aj.PIPE_V)
    with pytest.raises(aj.ParameterError, match="src_pipe"):
        aj.TQueSync(aj.PIPE_ALL, aj.PIPE_V)
    with pytest.raises(aj.StateError, match="no current core"):
        sync.SetFlag(0)
    core = aj.Core("310b")
    with core:
        sync.SetFlag(0)
        assert core.pending_flags() == [(aj.PIPE_MTE2, aj.PIPE_V, 0)]
        aj.TQueSync(aj.PIPE_MTE2, aj.PIPE_V).WaitFlag(0)
    assert core.pending_flags() == []


def test_a_pending_flag_refusal_names_its_setflags_line_when_sanitizing():
    """port53f: "pending flags 'MTE2_V id 0' are still set" named no line of a kernel of many flags. A sanitized
    launch records each SetFlag's line (a plain one would pay a stack walk per SetFlag) and names it; a plain one
    says how to get it."""
    def kernel():
        aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
        aj.SetFlag(1, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(1, event=aj.HardEvent.V_MTE3)
        aj.TQueSync(aj.PIPE_S, aj.PIPE_V).SetFlag(2)
    line = kernel.__code__.co_firstlineno
    with pytest.raises(aj.StateError, match=re.escape(f"'S_V id 2 (set at test_sync.py:{line + 4}), MTE2_V id 0 "
                                                      f"(set at test_sync.py:{line + 1})'")):
        aj.launch(kernel, 1, "atlas-a2", sanitize="report")
    with pytest.raises(aj.StateError, match=r"'S_V id 2, MTE2_V id 0' .*a sanitized launch names the line"):
        aj.launch(kernel, 1, "atlas-a2", sanitize=False)
