"""Row softmax with the Memory API: y[r, :] = exp(x[r, :] - max(x[r, :])) / sum(exp(x[r, :] - max(x[r, :]))).

Ported (structure, synchronisation and instruction sequence; written in our own words) from the Ascend C devkit's
best-practice softmax, Memory-API scenario ("Case 0: MemBase, single loop"):
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7,
examples/01_simd_cpp_api/05_best_practices/02_reg_compute/softmax_high_performance/softmax.asc
(`CustomSoftmax` and `softmax_custom`, SCENARIO_NUM 0).

As in the original: InitSocState, a LocalMemAllocator carving x, y, exp and sum tiles, DataCopyPad of the rows into
the x tile, SetFlag/WaitFlag MTE2_V before the compute, V_MTE3 before the copy out and MTE3_MTE2 between tiles, Cast
half->float (CAST_NONE), the row maximum, its broadcast, Sub, Exp, the row sum (its scratch is the y tile
reinterpreted as float), its broadcast, Div, Cast float->half with CAST_FLOOR (the original's mode). Where the
original issues every instruction once per row, the port tiles many rows (rows per tile from the UB) and each
instruction covers the whole tile, as the library's multi-row kernels do: the row maximum folds each row's upper half
onto its lower half with whole-tile Max calls down to 64 floats a row (after the first fold a UB -> UB DataCopy packs
the rows' halves into the y tile, so later folds span half the tile and x as float is cast once), then WholeReduceMax
with repeatTimes = rows; the row sum is WholeReduceSum of every 64-float repeat of the tile, then WholeReduceSum of
each row's r_dim / 64 sums with repeatTimes = rows (the two steps of the high-dim ReduceSum, SPEC 4.2); the broadcasts
of the per-row max and sum (the original's `Duplicate(expTensor[i * rDimAlign], expTensor[i * rDimAlign], rDim)`)
are Brcb and UB -> UB DataCopies over all rows, as the library's BroadCast does.

Devices: DataCopyPad is not offered on the 310P and the 910 (SPEC-2 1.9) and the 310B has neither the ISASI
SetFlag/WaitFlag nor TPipe event ids, so the kernel runs on the 950, A3 and A2, with the same instructions on each.
Like the original, the kernel has no PipeBarrier between its vector instructions (one pipe runs them in order; the
UB -> UB DataCopies run on the vector pipe too).

Fidelity: MODELLED (Exp and Div are MODELLED on every device, SPEC-2 0.3). The result is checked against a float64
softmax: each row passes through one exact cast, one rounded subtraction, one rounded Exp, a sum of rDim rounded
terms (in any order), one rounded division and the final cast, so the float result is within 2e-6 relative
(float32 rounding of at most 12 tree levels plus three single roundings), and the half result within 2**-9
relative (CAST_FLOOR loses up to one half ulp, 2**-10 relative, on top of that).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

ROW = 1024                      # rDim of the default problem (1024 x 1024 halves)
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")   # DataCopyPad, ISASI SetFlag/WaitFlag, TPipe event ids
FLOATS_PER_REPEAT = 64
FLOATS_PER_BLOCK = 8
MAX_REPEAT = 255


def rows_per_tile(device, r_dim, dtype):
    """Rows per tile: x, y (dtype) and the exp and sum float tiles inside the device's UB, beside the per-row
    results and the broadcasts' blocks (at most 255: WholeReduceMax/Sum take one repeat per row)."""
    elem = 2 if dtype == "half" else 4
    per_row = r_dim * (2 * elem + 8) + (2 + FLOATS_PER_BLOCK) * 4
    return max(1, min((aj.get_device(device).ub_bytes - 1024) // per_row, MAX_REPEAT))


class SoftmaxTiles:
    """The original's LocalMemAllocator carving (x, y, exp and sum tiles) plus the per-row results and the block
    scratch of the broadcasts."""

    def __init__(self, dtype, tile_rows, r_dim):
        allocator = aj.LocalMemAllocator()
        tile = tile_rows * r_dim
        padded_rows = -(-tile_rows // FLOATS_PER_BLOCK) * FLOATS_PER_BLOCK   # Brcb takes 8 values a repeat
        self.r_dim = r_dim
        self.x = allocator.Alloc(dtype, tile)
        self.y = allocator.Alloc(dtype, tile)
        self.exp = allocator.Alloc("float", tile)
        self.sum = allocator.Alloc("float", tile)
        self.row_max = allocator.Alloc("float", padded_rows)
        self.row_sum = allocator.Alloc("float", padded_rows)
        self.blocks = allocator.Alloc("float", padded_rows * FLOATS_PER_BLOCK)
        self.y_as_float = self.y.ReinterpretCast("float")
        self._operands = {}
        # a short last tile's Brcb reads the values past its rows: defined ones
        aj.Duplicate(self.row_max, 0.0, padded_rows)
        aj.Duplicate(self.row_sum, 0.0, padded_rows)

    def operands(self, a_dim):
        """The sub-tensors and parameter structs of a tile of a_dim rows, built once per tile height (every tile but
        the last has the same): the instruction sequence is custom_softmax's either way."""
        ops = self._operands.get(a_dim)
        if ops is None:
            ops = self._operands[a_dim] = SoftmaxOperands(self, a_dim, self.r_dim)
        return ops


class SoftmaxOperands:
    """One tile height's operands: the max folds, the broadcasts' DataCopies, the repeat sums' calls."""

    def __init__(self, t, a_dim, r_dim):
        self.n = a_dim * r_dim
        xf = t.sum if t.x.dtype.name == "half" else t.x
        # ReduceMax: Max folds each row's upper half onto its lower half over the whole tile (the positions past
        # each row's half are don't-care), the first into exp; when more follow, one DataCopy packs the rows' halves
        # into the y tile (as float: half a tile) and the later folds alternate between it and exp over half the
        # span, so x as float survives. The folds' (dst, src0, src1, count), the packing DataCopy's (dst, src,
        # params) or None, and the folded rows (tensor, row stride in floats) that WholeReduceMax reads.
        self.folds, self.pack = [], None
        width, stride, src = r_dim, r_dim, xf
        if width > FLOATS_PER_REPEAT:
            width //= 2
            self.folds.append((t.exp, xf, xf[width], (a_dim - 1) * r_dim + width))
            src = t.exp
            if width > FLOATS_PER_REPEAT:
                self.pack = (t.y_as_float, t.exp, aj.DataCopyParams(a_dim, width // FLOATS_PER_BLOCK,
                                                                      (r_dim - width) // FLOATS_PER_BLOCK, 0))
                src, stride = t.y_as_float, width
            while width > FLOATS_PER_REPEAT:
                width //= 2
                dst = t.exp if src is t.y_as_float else t.y_as_float
                self.folds.append((dst, src, src[width], (a_dim - 1) * stride + width))
                src = dst
        self.folded, self.folded_stride = src, stride
        self.max_broadcast = _RowBroadcast(t.exp, t.row_max, t.blocks, a_dim, r_dim)
        self.sum_broadcast = _RowBroadcast(t.sum, t.row_sum, t.blocks, a_dim, r_dim)
        # ReduceSum: WholeReduceSum of every repeat of the tile in calls of at most 255 repeats (8-bit repeatTimes)
        repeats = self.n // FLOATS_PER_REPEAT
        self.repeat_sums = [(t.y_as_float[first], t.exp[first * FLOATS_PER_REPEAT], min(MAX_REPEAT, repeats - first))
                            for first in range(0, repeats, MAX_REPEAT)]
        self.sum_width = r_dim // FLOATS_PER_REPEAT   # repeat sums a row
        self.copy_params = aj.DataCopyExtParams(a_dim, r_dim * t.x.dtype.size, 0, 0, 0)


class _RowBroadcast:
    """Row i of the tile t := values[i] (the original's `Duplicate(expTensor[i * rDimAlign], ..., rDim)` for all rows
    at once, as the library's BroadCast<float, 2, 1> does): a Brcb puts each value in a whole 32-byte block, a second
    Brcb with one repeat a row (dstRepStride = the row) spreads each row's block over the row's first 8 blocks, and
    UB -> UB DataCopies with blockCount = rows double every row's filled head until the row is full:
    2 + log2(r_dim / 64) calls instead of one Duplicate per row."""

    def __init__(self, t, values, blocks, a_dim, r_dim):
        row_blocks = r_dim // FLOATS_PER_BLOCK
        self.t, self.values, self.blocks = t, values, blocks
        self.value_repeats = -(-a_dim // FLOATS_PER_BLOCK)
        self.value_params = aj.BrcbRepeatParams(1, FLOATS_PER_BLOCK)
        self.row_repeats = a_dim
        self.row_params = aj.BrcbRepeatParams(1, row_blocks)
        self.doublings = []
        filled = FLOATS_PER_BLOCK
        while filled < row_blocks:
            gap = row_blocks - filled
            self.doublings.append((t[filled * FLOATS_PER_BLOCK], aj.DataCopyParams(a_dim, filled, gap, gap)))
            filled *= 2

    def __call__(self):
        aj.Brcb(self.blocks, self.values, self.value_repeats, self.value_params)
        aj.Brcb(self.t, self.blocks, self.row_repeats, self.row_params)
        t = self.t
        for dst, params in self.doublings:
            aj.DataCopy(dst, t, params)


def custom_softmax(t, a_dim, r_dim):
    """The original's CustomSoftmax on a tile of a_dim rows (r_dim a power of two, at least 512: the row sum's
    WholeReduceSum reads r_dim / 64 floats a row at a whole-block row stride): every instruction covers the tile."""
    ops = t.operands(a_dim)
    n = ops.n
    half = t.x.dtype.name == "half"
    xf = t.sum if half else t.x   # x as float
    if half:
        aj.Cast(t.sum, t.x, aj.RoundMode.CAST_NONE, n)
    # ReduceMax of every row: the folds down to 64 floats a row (SoftmaxOperands), then WholeReduceMax with
    # repeatTimes = rows
    for i, (dst, src0, src1, count) in enumerate(ops.folds):
        aj.Max(dst, src0, src1, count)
        if i == 0 and ops.pack is not None:
            aj.DataCopy(*ops.pack)
    aj.WholeReduceMax(t.row_max, ops.folded, FLOATS_PER_REPEAT, a_dim, 1, 1, ops.folded_stride // FLOATS_PER_BLOCK,
                      aj.ReduceOrder.ORDER_ONLY_VALUE)
    ops.max_broadcast()
    aj.Sub(t.exp, xf, t.exp, n)
    aj.Exp(t.exp, t.exp, n)
    # ReduceSum of every row (its tmp is the y tile reinterpreted as float, as in the original): WholeReduceSum of
    # every 64-float repeat of the tile (r_dim / 64 sums a row, back to back), then WholeReduceSum of each row's sums
    # with repeatTimes = rows: the high-dim ReduceSum's two steps (SPEC 4.2 TREE-TREE) for all rows at once
    for dst, src, repeats in ops.repeat_sums:
        aj.WholeReduceSum(dst, src, FLOATS_PER_REPEAT, repeats, 1, 1, 8)
    width = ops.sum_width
    aj.WholeReduceSum(t.row_sum, t.y_as_float, width, a_dim, 1, 1, width // FLOATS_PER_BLOCK)
    ops.sum_broadcast()
    if half:
        aj.Div(t.exp, t.exp, t.sum, n)
        aj.Cast(t.y, t.exp, aj.RoundMode.CAST_FLOOR, n)
    else:
        aj.Div(t.y, t.exp, t.sum, n)


def softmax_kernel(x_gm, y_gm, rows, r_dim, dtype, tile_rows):
    """The original's softmax_custom for one block: tiles of `tile_rows` rows, the last tile shorter."""
    pipe = aj.TPipe()   # noqa: F841  (the original's `TPipe tPipe;`: the kernel's GetTPipePtr())
    aj.InitSocState()
    x = aj.GlobalTensor(x_gm)
    y = aj.GlobalTensor(y_gm)
    t = SoftmaxTiles(dtype, tile_rows, r_dim)
    no_pad = aj.DataCopyPadExtParams(False, 0, 0, 0)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_MTE2)
    for start in range(0, rows, tile_rows):
        a_dim = min(tile_rows, rows - start)
        copy_params = t.operands(a_dim).copy_params
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_MTE2)
        aj.DataCopyPad(t.x, x[start * r_dim], copy_params, no_pad)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        custom_softmax(t, a_dim, r_dim)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.DataCopyPad(y[start * r_dim], t.y, copy_params)
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
    with aj.Core(device):
        softmax_kernel(x.reshape(-1), y.reshape(-1), rows, r_dim, dtype, min(rows, rows_per_tile(device, r_dim, dtype)))
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
