"""InitGlobalMemory (the devkit's GM fill utility; docs/decisions.md "InitGlobalMemory"): the value lands in exactly
`size` elements, through whole 255-repeat runs of the stack buffer and a tail, on each build the devkit has (A2/A3
and 950 by DataCopyPad, 310P by DataCopy and SetValue); the refusals name the API."""
import numpy as np
import pytest

import ascend_jit as aj

RUN = 255 * 256          # bytes of the Duplicated run (MAX_REPEAT_TIMES * MAX_REPEAT_LEN)


def _fill(device, dtype, n, value, pipe_bytes=4096, window=None):
    g = np.full(n + 64, 99, dtype)
    state = {}

    def kernel(g):
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, pipe_bytes)
        gt = aj.GlobalTensor()
        gt.SetGlobalBuffer(g, n if window is None else window)
        core = pipe.core
        free_before = list(core._free)
        aj.InitGlobalMemory(gt, n, value)
        state["free"] = (free_before, list(core._free))

    aj.launch(kernel, 1, device, g)
    return g, state


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950", "atlas-inference-aicore"])
@pytest.mark.parametrize("dtype, value", [(np.float32, -np.inf), (np.float16, 1.5), (np.int32, -7),
                                          (np.uint16, 65535)])
def test_fills_exactly_size_elements_over_whole_runs_and_a_tail(device, dtype, value):
    per_run = RUN // np.dtype(dtype).itemsize
    for n in (1, 5, 13, per_run, 2 * per_run + 3, 3 * per_run + per_run // 2):
        g, state = _fill(device, dtype, n, dtype(value))
        assert (g[:n] == dtype(value)).all() and (g[n:] == 99).all(), (device, dtype, n)
        before, after = state["free"]
        assert before == after      # the stack buffer is given back


@pytest.mark.parametrize("dtype, value", [(np.uint8, 255), (np.int8, -3), (np.int64, -(2 ** 40)),
                                          (np.uint64, 2 ** 63 + 5)])
def test_the_950_fills_the_types_only_its_build_takes(dtype, value):
    """The Fill page gives the 950 eleven types (uint8, int8, bfloat16, uint64, int64 beyond the other devices'
    six; ops-math TensorEqual fills a uint8 GlobalTensor); the A2 refuses them (docs/decisions.md
    "InitGlobalMemory")."""
    per_run = RUN // np.dtype(dtype).itemsize
    for n in (1, 33, per_run + 7):
        g, _ = _fill("ascend950", dtype, n, dtype(value))
        assert (g[:n] == dtype(value)).all() and (g[n:] == 99).all(), (dtype, n)
    with pytest.raises(aj.UnsupportedDTypeError, match=f"InitGlobalMemory: parameter 'T' = '{np.dtype(dtype).name}'"):
        _fill("atlas-a2", dtype, 8, dtype(value))


def test_the_950_fills_bfloat16():
    import ml_dtypes
    g = np.full(300, 7, ml_dtypes.bfloat16)

    def kernel(g):
        aj.TPipe()
        gt = aj.GlobalTensor()
        gt.SetGlobalBuffer(g, 290)
        aj.InitGlobalMemory(gt, 290, -1.5)

    aj.launch(kernel, 1, "ascend950", g)
    assert (g[:290] == ml_dtypes.bfloat16(-1.5)).all() and (g[290:] == 7).all()


def test_python_values_convert_as_every_scalar_operand():
    """The value goes through the same conversion as Duplicate's scalar (SPEC-2 D29): 0.1 rounds to the half."""
    g, _ = _fill("atlas-a2", np.float16, 300, 0.1)
    assert (g[:300] == np.float16(0.1)).all()


@pytest.mark.parametrize("dtype, value", [(np.int16, 70000), (np.float32, True), (np.int32, 1.5)])
def test_a_value_the_type_cannot_hold_is_refused_in_its_own_name(dtype, value):
    """Session 45 (audit 45m): the refusal names InitGlobalMemory's `value`, not the inner Duplicate's scalar, and
    nothing is written (the GM and the UB unchanged)."""
    seen = {}

    def kernel(g):
        pipe = aj.TPipe()
        gt = aj.GlobalTensor()
        gt.SetGlobalBuffer(g, 16)
        ub = pipe.core.ub.copy()
        with pytest.raises(aj.ParameterError) as refusal:
            aj.InitGlobalMemory(gt, 16, value)
        seen["error"], seen["ub_same"] = refusal.value, np.array_equal(pipe.core.ub, ub)

    g = np.full(16, 7, dtype)
    aj.launch(kernel, 1, "atlas-a2", g)
    error = seen["error"]
    assert (error.api, error.parameter, error.device) == ("InitGlobalMemory", "value", "atlas-a2")
    assert seen["ub_same"] and (g == 7).all()


def test_a_small_stack_buffer_takes_more_runs():
    """The run is min(stack buffer, 255 repeats): a pipe that leaves 1 KB of UB free fills by 1 KB copies."""
    ub = aj.get_device("atlas-a2").ub_bytes
    g, _ = _fill("atlas-a2", np.float32, 1000, np.float32(3.0), pipe_bytes=ub - 1024)
    assert (g[:1000] == 3.0).all() and (g[1000:] == 99).all()


def test_every_core_fills_then_others_read_after_syncall_without_a_report():
    n = RUN // 4 * 2 + 13
    g, out = np.full(n, 99, np.float32), np.zeros(64, np.float32)

    def kernel(g, out):
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, 256)
        gt, o = aj.GlobalTensor(), aj.GlobalTensor()
        gt.SetGlobalBuffer(g, n)
        o.SetGlobalBuffer(out)
        if aj.GetBlockIdx() == 0:
            aj.InitGlobalMemory(gt, n, np.float32(2.0))
        aj.SyncAll()
        t = q.AllocTensor("float")
        aj.DataCopy(t, gt[n - 64], 64)
        q.EnQue(t)
        t = q.DeQue("float")
        if aj.GetBlockIdx() == 1:
            aj.DataCopy(o, t, 64)
        q.FreeTensor(t)

    with aj.sanitize_session("report") as session:
        aj.launch(kernel, 2, "atlas-a2", g, out)
    assert session.reports == []
    assert (g == 2.0).all() and (out == 2.0).all()


def test_refusals_name_the_api():
    with pytest.raises(aj.UnsupportedDeviceError, match="InitGlobalMemory.*atlas-200i-500-a2"):
        _fill("atlas-200i-500-a2", np.float32, 8, np.float32(1))
    with pytest.raises(aj.UnsupportedDeviceError, match="InitGlobalMemory.*atlas-training"):
        _fill("atlas-training", np.float32, 8, np.float32(1))
    with pytest.raises(aj.UnsupportedDTypeError, match="InitGlobalMemory: parameter 'T' = 'int8'"):
        _fill("atlas-a2", np.int8, 8, np.int8(1))
    with pytest.raises(aj.ParameterError, match="InitGlobalMemory: parameter 'size' = 9"):
        _fill("atlas-a2", np.float32, 9, np.float32(1), window=8)
    ub = aj.get_device("atlas-a2").ub_bytes
    with pytest.raises(aj.OutOfBoundsError, match="InitGlobalMemory.*stack buffer"):
        _fill("atlas-a2", np.float32, 8, np.float32(1), pipe_bytes=ub)

    def without_pipe(g):
        gt = aj.GlobalTensor()
        gt.SetGlobalBuffer(g)
        aj.InitGlobalMemory(gt, 8, np.float32(1))

    with pytest.raises(aj.StateError, match="InitGlobalMemory.*no TPipe"):
        aj.launch(without_pipe, 1, "atlas-a2", np.zeros(8, np.float32))
    with pytest.raises(aj.ParameterError, match="gmWorkspaceAddr"):
        aj.launch(lambda: (aj.TPipe(), aj.InitGlobalMemory(np.zeros(8, np.float32), 8, 1.0)), 1, "atlas-a2")


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-inference-aicore"])
def test_a_refused_call_leaves_gm_ub_and_the_free_ub_unchanged(device):
    """A size past the tensor, a dtype the utility does not take, a non-tensor address and a read-only GM buffer
    (named as InitGlobalMemory's, not as the DataCopyPad inside it) are refused before the stack buffer is taken or
    anything is written."""
    g = np.arange(16, dtype=np.float32)
    g8 = np.arange(32, dtype=np.int8)
    g_ro = np.arange(16, dtype=np.float32)
    g_ro.flags.writeable = False
    seen = {}

    def kernel(g, g8, g_ro):
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, 4096)
        core = pipe.core
        t = q.AllocTensor("float")
        aj.Duplicate(t, np.float32(3), 1024)
        gt, gt8 = aj.GlobalTensor(), aj.GlobalTensor()
        gt.SetGlobalBuffer(g, 8)
        gt8.SetGlobalBuffer(g8)
        before = (core.ub.copy(), g.copy(), list(core._free))
        for args, error, message in (((gt, 9, np.float32(1)), aj.ParameterError, "size"),
                                     ((gt8, 8, np.int8(1)), aj.UnsupportedDTypeError, "'T'"),
                                     ((g, 8, np.float32(1)), aj.ParameterError, "gmWorkspaceAddr"),
                                     ((aj.GlobalTensor(g_ro), 8, np.float32(1)), aj.ParameterError,
                                      "InitGlobalMemory: parameter 'gmWorkspaceAddr'.*read-only")):
            with pytest.raises(error, match=message):
                aj.InitGlobalMemory(*args)
        seen["same"] = (np.array_equal(before[0], core.ub), np.array_equal(before[1], g), before[2] == list(core._free))

    aj.launch(kernel, 1, device, g, g8, g_ro)
    assert seen["same"] == (True, True, True)
    assert np.array_equal(g, np.arange(16, dtype=np.float32))


def test_fill_is_init_global_memory_under_its_current_name():
    """The devkit's Fill<T>(gmWorkspaceAddr, size, value) (DK 高阶API/张量变换/Fill-97.md) is InitGlobalMemory's
    implementation under another name (ops-math's 950 DropOutV3 calls Fill<uint16_t> on GM); session 56 offers it,
    refused in its own name; a LocalTensor (the cube unit's Fill) is no gmWorkspaceAddr."""
    g = np.full(40, 9, np.uint16)

    def kernel(g):
        pipe = aj.TPipe()
        gt = aj.GlobalTensor()
        gt.SetGlobalBuffer(g, 33)
        aj.Fill(gt, 33, 0)
        with pytest.raises(aj.ParameterError, match="Fill: parameter 'size' = 34"):
            aj.Fill(gt, 34, 0)
        with pytest.raises(aj.ParameterError, match="Fill: parameter 'gmWorkspaceAddr' = 'LocalTensor'"):
            aj.Fill(pipe.core.local_tensor("uint16", 16), 16, 0)

    aj.launch(kernel, 1, "ascend950", g)
    assert (g[:33] == 0).all() and (g[33:] == 9).all()
    with pytest.raises(aj.UnsupportedDeviceError, match="Fill.*atlas-training"):
        aj.launch(kernel, 1, "atlas-training", g)
    with pytest.raises(aj.UnsupportedDTypeError, match="Fill: parameter 'T' = 'int8'"):
        aj.launch(lambda g: (aj.TPipe(), aj.Fill(aj.GlobalTensor(g), 8, 1)), 1, "atlas-a2", np.zeros(8, np.int8))
