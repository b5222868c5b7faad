"""Row softmax with the Memory API: y[r, :] = exp(x[r, :] - max(x[r, :])) / sum(exp(x[r, :] - max(x[r, :]))).

Ported (structure, synchronisation and instruction sequence; written in our own words) from the Ascend C devkit's
best-practice softmax, Memory-API scenario ("Case 0: MemBase, single loop"):
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7,
examples/01_simd_cpp_api/05_best_practices/02_reg_compute/softmax_high_performance/softmax.asc
(`CustomSoftmax` and `softmax_custom`, SCENARIO_NUM 0).

As in the original: InitSocState, a LocalMemAllocator carving x, y, exp and sum tiles, DataCopyPad of each row into a
32-byte aligned row slot (padding to rDimAlign), SetFlag/WaitFlag MTE2_V before the compute, V_MTE3 before the copy
out and MTE3_MTE2 between tiles, then per row: Cast half->float (CAST_NONE), ReduceMax, broadcast of the max, Sub, Exp,
ReduceSum (its tmp is the y row reinterpreted as float), broadcast of the sum, Div, Cast float->half with CAST_FLOOR
(the original's mode).

Device differences (docs/decisions.md "Kernel gallery"): the tensor-source Duplicate that broadcasts the max and the
sum exists on the 950 only (SPEC-2 5.1); elsewhere the kernel reads the value with GetValue after a V_S flag pair and
broadcasts it with the scalar Duplicate, as A2-class kernels do. ReduceMax may use its own source as tmp on the 950
only (SPEC-2 D54); elsewhere the kernel carves a tmp of GetReduceMaxMinTmpSize elements. DataCopyPad is not offered
on the 310P and the 910 (SPEC-2 1.9) and the 310B has neither the ISASI SetFlag/WaitFlag nor TPipe event ids, so
the kernel runs on the 950, A3 and A2.

Fidelity: MODELLED (Exp and Div are MODELLED on every device, SPEC-2 0.3). The result is checked against a float64
softmax: each row passes through one exact cast, one rounded subtraction, one rounded Exp, a sum of rDim rounded
terms, one rounded division and the final cast, so the float result is within 2e-6 relative (float32 rounding of
at most 12 tree levels plus three single roundings), and the half result within 2**-9 relative (CAST_FLOOR loses
up to one half ulp, 2**-10 relative, on top of that).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

ROW = 1024                      # rDim of the default problem (1024 x 1024 halves)
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")   # DataCopyPad, ISASI SetFlag/WaitFlag, TPipe event ids


def custom_softmax(dst, src, exp_t, sum_t, tmp, a_dim, r_dim, r_align, on_950):
    """The original's CustomSoftmax: one row at a time, every instruction on sub-tensors `t[i * rDimAlign]`."""
    for i in range(a_dim):
        o = i * r_align
        if src.dtype.name == "half":
            aj.Cast(sum_t[o], src[o], aj.RoundMode.CAST_NONE, r_dim)
            aj.ReduceMax(exp_t[o], sum_t[o], sum_t[o] if on_950 else tmp, r_dim)
        else:
            aj.ReduceMax(exp_t[o], src[o], sum_t[o] if on_950 else tmp, r_dim)
        _broadcast_first(exp_t[o], r_dim, on_950)
        aj.Sub(exp_t[o], sum_t[o] if src.dtype.name == "half" else src[o], exp_t[o], r_dim)
        aj.Exp(exp_t[o], exp_t[o], r_dim)
        aj.ReduceSum(sum_t[o], exp_t[o], dst[o].ReinterpretCast("float"), r_dim)
        _broadcast_first(sum_t[o], r_dim, on_950)
        if src.dtype.name == "half":
            aj.Div(exp_t[o], exp_t[o], sum_t[o], r_dim)
            aj.Cast(dst[o], exp_t[o], aj.RoundMode.CAST_FLOOR, r_dim)
        else:
            aj.Div(dst[o], exp_t[o], sum_t[o], r_dim)


def _broadcast_first(t, count, on_950):
    """`Duplicate(t, t, count)`: element 0 to elements 0..count-1 (950); the scalar route elsewhere."""
    if on_950:
        aj.Duplicate(t, t, count)
        return
    event = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_S)
    aj.SetFlag(event, event=aj.HardEvent.V_S)
    aj.WaitFlag(event, event=aj.HardEvent.V_S)
    aj.Duplicate(t, t.GetValue(0), count)


def softmax_kernel(x_gm, y_gm, rows, r_dim, dtype, rows_per_tile):
    """The original's softmax_custom for one block: tiles of `rows_per_tile` rows, the last tile shorter."""
    pipe = aj.TPipe()   # noqa: F841  (the original's `TPipe tPipe;`: the kernel's GetTPipePtr())
    aj.InitSocState()
    core = aj.current_core()
    on_950 = core.device == "ascend950"
    elem = 2 if dtype == "half" else 4
    r_align = -(-r_dim // (32 // elem)) * (32 // elem)
    x = aj.GlobalTensor(x_gm)
    y = aj.GlobalTensor(y_gm)
    allocator = aj.LocalMemAllocator()
    tile = rows_per_tile * r_align
    x_local = allocator.Alloc(dtype, tile)
    y_local = allocator.Alloc(dtype, tile)
    exp_t = allocator.Alloc("float", tile)
    sum_t = allocator.Alloc("float", tile)
    tmp = None if on_950 else allocator.Alloc("float", max(8, aj.GetReduceMaxMinTmpSize(core.device, "float",
                                                                                       count=r_dim)))
    pad = aj.DataCopyPadExtParams(True, 0, r_align - r_dim, 0)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_MTE2)
    for start in range(0, rows, rows_per_tile):
        a_dim = min(rows_per_tile, rows - start)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_MTE2)
        for j in range(a_dim):
            aj.DataCopyPad(x_local[j * r_align], x[(start + j) * r_dim],
                           aj.DataCopyExtParams(1, r_dim * elem, 0, 0, 0), pad)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        custom_softmax(y_local, x_local, exp_t, sum_t, tmp, a_dim, r_dim, r_align, on_950)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        for j in range(a_dim):
            aj.DataCopyPad(y[(start + j) * r_dim], y_local[j * r_align],
                           aj.DataCopyExtParams(1, r_dim * elem, 0, 0, 0))
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_MTE2)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_MTE2)
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed, dtype=np.float16):
    rows = max(1, size // ROW)
    rng = np.random.default_rng(seed)
    return {"x": (rng.standard_normal((rows, ROW)) * 3).astype(dtype)}


def run(device, inputs, dtype="half"):
    x = inputs["x"]
    rows, r_dim = x.shape
    y = np.zeros_like(x)
    rows_per_tile = max(1, min(rows, 8192 // r_dim))   # x, y, exp and sum tiles plus tmp fit every UB
    with aj.Core(device):
        softmax_kernel(x.reshape(-1), y.reshape(-1), rows, r_dim, dtype, rows_per_tile)
    return {"y": y}


def expected(device, inputs):
    x = inputs["x"].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"y": e / e.sum(axis=1, keepdims=True)}


KERNEL = KernelSpec("softmax", "row softmax (devkit best practice, Memory-API scenario): ReduceMax, Sub, Exp, "
                    "ReduceSum, Div", make_inputs, run, expected, default_size=64 * ROW, devices=DEVICES,
                    size_rule=f"a multiple of {ROW} (rows of {ROW})", size_ok=lambda n: n >= ROW and n % ROW == 0,
                    tolerance=2.0 ** -9,
                    source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/05_best_practices/02_reg_compute/"
                           "softmax_high_performance/softmax.asc (scenario 0)")
