"""Session 39: what the port39 probes found (docs/decisions.md "What the session-39 ports found") and the scalar hot
paths: SetValue's numpy conversions give the bits of SPEC-2 D29's rule, the CCE sync intrinsics and the 950's UB
size queries, C++ call shapes (a positional LocalTensor dtype, a template argument written first, a brace list
copied as a set, a uint16 field a port overflows), and the sanitizer's "device-sync" option, under which a queue
hand-off orders only the pipe pair of the devkit's queue event and a wait on the scalar pipe orders every later
instruction."""
import math
import struct

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ascend_jit as aj
from ascend_jit import dtypes as dt
from ascend_jit.api._scalar import scalar_bits, scalar_value
from ascend_jit.errors import ParameterError, StateError, UnsupportedDeviceError

SPEC = aj.get_device("atlas-a2")
FLOATS = [dt.HALF, dt.FLOAT, dt.BFLOAT16]
INTS = [dt.INT8, dt.UINT8, dt.INT16, dt.UINT16, dt.INT32, dt.UINT32, dt.INT64, dt.UINT64]


def _bits(value):
    return int.from_bytes(np.asarray(value).tobytes(), "little")


# --- SetValue's scalar conversion: the numpy fast paths are D29's bits ---------------------------------------------

EDGES = [0.0, -0.0, 1.0, -1.5, 65504.0, 65519.99, 65520.0, -65520.0, math.nextafter(65520.0, 0), 2.0 ** -24,
         2.0 ** -25, 1.5 * 2.0 ** -25, 2.0 ** -149, 2.0 ** -150, 1.5 * 2.0 ** -150, 2.0 ** 128 - 2.0 ** 103,
         math.nextafter(2.0 ** 128 - 2.0 ** 103, 0), 3.4028234663852886e38, 1e300, -1e300, 5e-324, math.inf,
         -math.inf, math.nan, -math.nan, 1 + 2 ** -24, 1 + 2 ** -11, 1 + 2 ** -8 + 2 ** -40]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_python_float_scalars_match_the_rule_at_every_edge(dtype):
    for x in EDGES:
        assert _bits(scalar_value("SetValue", SPEC, dtype, x)) == scalar_bits("SetValue", SPEC, dtype, x), x


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2 ** 64 - 1), st.sampled_from(FLOATS))
def test_python_float_scalars_match_the_rule_for_any_double(pattern, dtype):
    x = struct.unpack("<d", struct.pack("<Q", pattern))[0]
    assert _bits(scalar_value("SetValue", SPEC, dtype, x)) == scalar_bits("SetValue", SPEC, dtype, x)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.integers(-2 ** 70, 2 ** 70), st.sampled_from([2 ** 53, 2 ** 53 + 1, -2 ** 53 - 1, 65520, 65519])),
       st.sampled_from(FLOATS))
def test_python_int_scalars_for_float_tensors_match_the_rule(n, dtype):
    assert _bits(scalar_value("SetValue", SPEC, dtype, n)) == scalar_bits("SetValue", SPEC, dtype, n)


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: d.name)
def test_python_int_scalars_for_integer_tensors_keep_their_range(dtype):
    lo, hi = (-(1 << (8 * dtype.size - 1)), (1 << (8 * dtype.size - 1)) - 1) if dtype.is_signed else \
        (0, (1 << (8 * dtype.size)) - 1)
    for n in (lo, hi, 0, 1, -1 if dtype.is_signed else 2):
        v = scalar_value("SetValue", SPEC, dtype, n)
        assert type(v) is dtype.np_dtype.type and int(v) == n
    for n in (lo - 1, hi + 1):
        with pytest.raises(ParameterError, match="no implicit wrap"):
            scalar_value("SetValue", SPEC, dtype, n)
    for bad in (True, 1.0):
        with pytest.raises(ParameterError):
            scalar_value("SetValue", SPEC, dtype, bad)


def test_set_value_and_gm_get_value_through_the_fast_paths():
    core = aj.Core("atlas-a2")
    with core:
        h = core.local_tensor("half", 16)
        h.SetValue(0, 1 + 2 ** -11)           # the tie rounds to even: 1.0
        h.SetValue(1, 70000.0)                # overflow: inf
        h.SetValue(2, 3)                      # an int into a half tensor
        assert h.numpy()[:3].view(np.uint16).tolist() == [0x3C00, 0x7C00, 0x4200]
        g = aj.GlobalTensor("float")
        with pytest.raises(StateError):
            g.GetValue(0)                     # no buffer: refused, not a read of size 0
        g.SetGlobalBuffer(np.arange(8, dtype=np.float32))
        assert g.GetValue(7) == np.float32(7) and type(g.GetValue(7)) is np.float32
        assert g[2].GetValue(1) == np.float32(3)
        for bad in (8, -1, True, 1.0):
            with pytest.raises(aj.AscendJitError):
                g.GetValue(bad)


# --- the CCE sync intrinsics and the 950's UB size queries ---------------------------------------------------------

def test_cce_sync_intrinsics_are_the_flags_setflag_sets():
    core = aj.Core("atlas-a2")
    with core:
        aj.set_flag(aj.PIPE_V, aj.PIPE_MTE3, aj.EVENT_ID0)
        assert core.pending_flags() == [(aj.PIPE_V, aj.PIPE_MTE3, 0)]
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)    # the same flag
        aj.SetFlag(1, event=aj.HardEvent.MTE2_V)
        aj.wait_flag(aj.PIPE_MTE2, aj.PIPE_V, 1)
        assert core.pending_flags() == []
        aj.pipe_barrier(aj.PIPE_V)
        with pytest.raises(StateError, match="wait_flag.*V_MTE3 id 0"):
            aj.wait_flag(aj.PIPE_V, aj.PIPE_MTE3, 0)
        with pytest.raises(ParameterError, match="set_flag: parameter 'pipe'"):
            aj.set_flag(aj.PIPE_ALL, aj.PIPE_V, 0)
        with pytest.raises(ParameterError, match="set_flag: parameter 'tpipe'"):
            aj.set_flag(aj.PIPE_V, "PIPE_MTE3", 0)
        with pytest.raises(ParameterError, match="event_id"):
            aj.set_flag(aj.PIPE_V, aj.PIPE_MTE3, 8)
        with pytest.raises(ParameterError, match="PIPE_S"):
            aj.pipe_barrier(aj.PIPE_S)
        assert core.pending_flags() == []


def test_cce_set_flag_is_seen_by_the_sanitizer():
    core = aj.Core("atlas-a2", sanitize="report")
    with core:
        t = core.local_tensor("float", 64)
        g = aj.GlobalTensor("float")
        g.SetGlobalBuffer(np.zeros(64, np.float32))
        aj.Duplicate(t, 1.0, 64)
        aj.set_flag(aj.PIPE_V, aj.PIPE_MTE3, 0)
        aj.wait_flag(aj.PIPE_V, aj.PIPE_MTE3, 0)
        aj.DataCopy(g, t, 64)
    assert core.sanitizer.reports == []


@pytest.mark.parametrize("api", ["GetUBSizeInBytes", "GetRuntimeUBSize"])
def test_ub_size_queries_on_the_950_only(api):
    with aj.Core("ascend950"):
        assert getattr(aj, api)() == 253952 == aj.get_device("ascend950").ub_bytes
    for device in ("atlas-a2", "atlas-a3", "atlas-200i-500-a2"):
        with aj.Core(device):
            with pytest.raises(UnsupportedDeviceError, match=f"{api}.*ub_bytes"):
                getattr(aj, api)()


# --- C++ call shapes -----------------------------------------------------------------------------------------------

def test_local_tensor_takes_its_dtype_positionally_after_the_length():
    core = aj.Core("atlas-a2")
    with core:
        t = aj.LocalTensor(aj.TPosition.VECIN, 64, 32, "float")
        assert (t.dtype.name, t.addr, t.size) == ("float", 64, 32)
        with pytest.raises(ParameterError, match="'arguments'"):
            aj.LocalTensor(aj.TPosition.VECIN, 0, 32, "float", 1)
        with pytest.raises(ParameterError, match="'arguments'"):
            aj.LocalTensor(aj.TPosition.VECIN, 0, 32, "float", dtype="half")


@pytest.mark.parametrize("call", [
    lambda t: aj.Duplicate("float", t, 1.0, 64),
    lambda t: aj.Add("float", t, t, t, 64),
    lambda t: aj.ReduceSum(np.float32, t, t, t, 64),
    lambda t: aj.Add(t, "float", t, 64),
])
def test_a_template_argument_written_first_is_named(call):
    core = aj.Core("atlas-a2")
    with core:
        t = core.local_tensor("float", 256)
        with pytest.raises(ParameterError, match=r"is the dtype .*template argument <T> is not written here"):
            call(t)


def test_a_brace_list_copied_as_a_set_is_named():
    core = aj.Core("atlas-a2")
    with core:
        t = core.local_tensor("half", 256)
        g = aj.GlobalTensor("half")
        g.SetGlobalBuffer(np.zeros(256, np.float16))
        for call in (lambda: aj.DataCopyPad(t, g, aj.DataCopyParams(1, 64, 0, 0), {False, 0, 0, 0}),
                     lambda: aj.DataCopyPad(t, g, {1, 64, 0, 0, 0}, aj.DataCopyPadExtParams(False, 0, 0, 0)),
                     lambda: aj.Add(t, t, t, 128, 1, {1, 1, 1, 8, 8, 8})):
            with pytest.raises(ParameterError, match="a Python set: C\\+\\+'s brace list"):
                call()
        with pytest.raises(ParameterError) as info:
            aj.Add(t, t, t, 128, 1, (1, 1, 1, 8, 8, 300))
        assert "Python set" not in str(info.value)


def test_uint16_fields_name_the_value_cpp_would_store():
    core = aj.Core("atlas-a2")
    with core:
        t = core.local_tensor("float", 256)
        g = aj.GlobalTensor("float")
        g.SetGlobalBuffer(np.zeros(100000, np.float32))
        with pytest.raises(ParameterError, match="'blockLen' = 70000 a uint16_t field: C\\+\\+ would store 4464"):
            aj.DataCopy(t, g, aj.DataCopyParams(1, 70000, 0, 0))
        with pytest.raises(ParameterError, match="DataCopyParams.blockLen' = 94976 a uint16_t field: C\\+\\+ would "
                                                 "store 29440"):
            aj.DataCopyPad(t, g, aj.DataCopyParams(1, 94976, 0, 0), aj.DataCopyPadParams(False, 0, 0, 0))
        with pytest.raises(ParameterError) as info:
            aj.DataCopy(t, g, aj.DataCopyParams(1, 0, 0, 0))
        assert "uint16_t" not in str(info.value)


@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync,dcache", reason="selects through a fresh mask tensor: it "
                                                                             "checks the refusal's text, not the "
                                                                             "values")
def test_select_with_an_int8_mask_names_the_reinterpretation():
    core = aj.Core("atlas-a2")
    with core:
        t = core.local_tensor("float", 256)
        m = core.local_tensor("int8", 256)
        with pytest.raises(aj.UnsupportedDTypeError, match=r"ReinterpretCast\('uint8'\)"):
            aj.Select(t, m, t, 1.0, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 64)
        aj.Select(t, m.ReinterpretCast("uint8"), t, 1.0, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 64)


# --- the sanitizer's "device-sync" option ------------------------------------------------------------------------

def _tile(core, q_in, q_out, g, y, scalar_read=False, scalar_write=False):
    t = q_in.AllocTensor("float")
    aj.DataCopy(t, g, 16)
    q_in.EnQue(t)
    t = q_in.DeQue("float")
    if scalar_read:
        t.GetValue(0)
    o = q_out.AllocTensor("float")
    aj.Adds(o, t, 1.0, 16)
    if scalar_write:
        o.SetValue(0, 3.0)
    q_in.FreeTensor(t)
    q_out.EnQue(o)
    o = q_out.DeQue("float")
    aj.DataCopy(y, o, 16)
    q_out.FreeTensor(o)


def _run_tiles(mode, tiles):
    core = aj.Core("atlas-a2", sanitize=mode)
    with core:
        pipe = aj.TPipe()
        q_in, q_out = aj.TQue(aj.TPosition.VECIN, 1), aj.TQue(aj.TPosition.VECOUT, 1)
        pipe.InitBuffer(q_in, 1, 64)
        pipe.InitBuffer(q_out, 1, 64)
        g, y = aj.GlobalTensor("float"), aj.GlobalTensor("float")
        g.SetGlobalBuffer(np.ones(16, np.float32))
        y.SetGlobalBuffer(np.zeros(16, np.float32))
        for kwargs in tiles:
            _tile(core, q_in, q_out, g, y, **kwargs)
    return [(r.kind, r.earlier.pipe, r.instruction.pipe) for r in core.sanitizer.reports]


def test_device_sync_queue_hand_offs_order_their_pipe_pairs_across_tiles():
    """VECIN's MTE2 -> V, VECOUT's V -> MTE3, and the free events (V -> MTE2, MTE3 -> V) that let the next tile's
    copy-in and vector write reuse the buffers: three tiles without a report in either mode."""
    assert _run_tiles("report", [{}] * 3) == []
    assert _run_tiles("device-sync,report", [{}] * 3) == []


def test_device_sync_queue_hand_offs_leave_the_scalar_unit_unordered():
    """The device's VECIN DeQue waits on MTE2_V: a GetValue after it races the copy-in (and a SetValue before a
    VECOUT EnQue races the copy-out), which the default mode's SPEC-2 10.4 hand-off orders."""
    assert _run_tiles("report", [{"scalar_read": True}]) == []
    assert _run_tiles("device-sync,report", [{"scalar_read": True}]) == [("RAW", "PIPE_MTE2", "PIPE_S")]
    got = _run_tiles("device-sync,report", [{"scalar_write": True}])
    assert ("RAW", "PIPE_S", "PIPE_MTE3") in got


def test_device_sync_bind_queue_orders_mte2_to_mte3_only():
    """TQueBind<VECIN, VECOUT>: the devkit's UB -> UB event is MTE2_MTE3, so a vector op on the dequeued tensor is
    unordered with its copy-in under "device-sync"; the copy-out is ordered."""
    reports = {}
    for mode in ("report", "device-sync,report"):
        core = aj.Core("atlas-a2", sanitize=mode)
        with core:
            pipe = aj.TPipe()
            q = aj.TQueBind(aj.TPosition.VECIN, aj.TPosition.VECOUT, 1)
            pipe.InitBuffer(q, 1, 64)
            g, y = aj.GlobalTensor("float"), aj.GlobalTensor("float")
            g.SetGlobalBuffer(np.ones(16, np.float32))
            y.SetGlobalBuffer(np.zeros(16, np.float32))
            t = q.AllocTensor("float")
            aj.DataCopy(t, g, 16)
            q.EnQue(t)
            t = q.DeQue("float")
            aj.DataCopy(y, t, 16)
            aj.Adds(t, t, 1.0, 16)
            q.FreeTensor(t)
        reports[mode] = [(r.kind, r.earlier.pipe, r.instruction.pipe) for r in core.sanitizer.reports]
    assert ("RAW", "PIPE_MTE2", "PIPE_V") not in reports["report"]
    assert ("RAW", "PIPE_MTE2", "PIPE_V") in reports["device-sync,report"]
    assert all(pair[1:] != ("PIPE_MTE2", "PIPE_MTE3") for pair in reports["device-sync,report"])


def test_device_sync_is_an_option_beside_strict():
    config = aj.SanitizeConfig(device_sync=True)
    assert (config.strict, config.device_sync) == (False, True)
    with aj.Core("atlas-a2", sanitize="strict,device-sync,report") as core:
        assert (core.sanitize.strict, core.sanitize.device_sync, core.sanitize.mode) == (True, True, "report")
    with pytest.raises(ParameterError, match="device_sync"):
        aj.SanitizeConfig(device_sync="yes")
    with pytest.raises(ParameterError, match="device-sync"):
        aj.Core("atlas-a2", sanitize="report,devicesync")


def test_core_type_macros_read_as_cpp_writes_them():
    """`if ASCEND_IS_AIC { return; }` ported literally: the macro is false on every device here, so the kernel runs
    on (a plain function object had always been true, and the kernel silently did nothing)."""
    def kernel(y):
        if aj.ASCEND_IS_AIC:
            return
        if not aj.ASCEND_IS_AIV:
            return
        g = aj.GlobalTensor("float")
        g.SetGlobalBuffer(y)
        g.SetValue(aj.GetBlockIdx(), 1.0)
    y = np.zeros(2, np.float32)
    aj.launch(kernel, 2, "atlas-a2", y)
    assert y.tolist() == [1.0, 1.0]
    with aj.Core("atlas-inference-aicore"):
        assert not aj.ASCEND_IS_AIV and aj.ASCEND_IS_AIV() is False and aj.ASCEND_IS_AIC() is False
    with pytest.raises(StateError, match="ASCEND_IS_AIV"):
        bool(aj.ASCEND_IS_AIV)             # outside a core, as the call form


@pytest.mark.parametrize("args, name", [(("float", 64), "len"), ((64, "float"), "maskLow"),
                                        (("float", 0, 64), "maskHigh"), ((0, 64, "float"), "maskLow")])
def test_set_vector_mask_names_a_template_dtype_first_or_last(args, name):
    with aj.Core("atlas-a2"):
        with pytest.raises(ParameterError, match=f"'{name}' = 'float'.*SetVectorMask\\(len, dtype='float'\\)"):
            aj.SetVectorMask(*args)


@pytest.mark.parametrize("name", ["Interleave", "DeInterleave", "SetCmpMask", "CastDequant", "Neg", "Subs",
                                  "SetLoopModePara", "CrossCoreSetFlag"])
def test_memory_api_names_not_offered_say_why(name):
    """A devkit name the emulator does not offer is a NotOfferedError (an AttributeError too) saying why and what to
    use, as on aj.Reg; hasattr stays False and any other missing name is Python's AttributeError."""
    with pytest.raises(aj.NotOfferedError, match=f"^{name}: parameter 'name' = '{name}' .*not offered"):
        getattr(aj, name)
    assert not hasattr(aj, name)
    with pytest.raises(AttributeError) as info:
        aj.NoSuchInstruction
    assert type(info.value) is AttributeError


@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_a_vf_numba_cannot_type_runs_plain_with_the_reason():
    """numba's typing may fail outside its own error types (an AssertionError for a NamedTuple built with a keyword
    after a skipped field): the VF runs as plain Python with an UncompiledVFWarning saying so, not a traceback."""
    @aj.Reg.simd_vf
    def reciprocal(dst, src):
        a, one = aj.Reg.RegTensor("float"), aj.Reg.RegTensor("float")
        m = aj.Reg.CreateMask("float")
        aj.Reg.LoadAlign(a, src)
        aj.Reg.Duplicate(one, np.float32(1.0))
        aj.Reg.Div(a, one, a, m, aj.Reg.DivSpecificMode(precisionMode=True))
        aj.Reg.StoreAlign(dst, a, m)
    core = aj.Core("ascend950")
    with core:
        src, dst = core.local_tensor("float", 64), core.local_tensor("float", 64)
        src[:] = np.full(64, 4.0, np.float32)
        with pytest.warns(aj.UncompiledVFWarning, match="AssertionError in numba's typing.*fields in order"):
            reciprocal(dst, src)
        assert (dst.numpy() == np.float32(0.25)).all()


def test_goldens_record_and_check_bool_outputs(tmp_path):
    """A ported kernel's bool output (CastV3's half -> bool) is kept by its bytes under its own dtype name."""
    from ascend_jit.testing import check_golden, load_golden, record_golden
    y = np.array([True, False, True, True])
    record_golden("mask", y, tmp_path)
    back, meta = load_golden("mask", tmp_path)
    assert back.dtype == np.bool_ and meta["dtype"] == "bool" and np.array_equal(back, y)
    check_golden("mask", y, tmp_path)
    with pytest.raises(AssertionError, match="1 of 4 elements differ"):
        check_golden("mask", np.array([True, True, True, True]), tmp_path)

