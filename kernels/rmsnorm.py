"""RMSNorm with half input, float gamma and float accumulation, many rows per tile, multi-block over rows:
y[r, :] = cast_half(x[r, :] * rstd[r] * gamma), rstd[r] = 1 / sqrt(mean(x[r, :]^2) + eps).

Ported (structure, synchronisation and instruction sequence; written in our own words) from the CANN operator
library's multi-row ("merge N") RMSNorm kernel, mixed dtype (half x, float gamma):
hicann/ops-nn @ 26bb0755db767817742d34050935ee260d05b7f5, norm/rms_norm/op_kernel/rms_norm_merge_n.h
(`KernelRmsNormMergeN`: Process / DoMainCompute / CopyIn / Compute / CopyOutY / CopyOutRstd, BroadCastGamma), with the
per-row scalar rstd of the single-row kernel of the same folder (rms_norm_single_row.h, `1 / sqrt(sum * avgFactor +
epsilon)` on the scalar unit).

As in the original, a tile holds `row_factor` rows (from the UB size) and the vector instructions cover the whole tile:
per tile DataCopy of the rows (EnQue/DeQue), Cast half->float CAST_NONE of the tile, Mul x*x of the tile, the row
sums of squares (ReduceSumMultiN: the library's helper covers rows below 255 * 8 floats; for 4096 the port reduces
every 64-float repeat of the tile with WholeReduceSum, 4096 -> 64 floats a row, then each row's 64 sums with
WholeReduceSum and repeatTimes = rows), PipeBarrier<PIPE_V> between dependent vector instructions, then per row Muls
by its rstd and Mul by the gamma row (the single-row path's form: broadcasting gamma to the tile as the merge-N
kernel does would cost a float tile of UB), one Cast float->half CAST_NONE of the tile and the copies out of y and
rstd. The float copy of x is cast again after the reduction, which squared it in place (one tile less of UB). Blocks
take `block_factor` rows each, the last block the rest.

Deviation (docs/decisions.md "Kernel gallery"): the merge-N kernel computes rstd with vector Muls, Adds, Sqrt and
Div, which are MODELLED (SPEC-2 0.3); the port computes it on the scalar unit as the single-row kernel does (a V_S
flag pair, GetValue, float32 arithmetic, SetValue, an S_V flag pair), so the whole kernel stays BIT-EXACT.

Fidelity: BIT-EXACT (Cast, Mul, Muls, WholeReduceSum are BIT-EXACT on every device, SPEC-2 0.3; the
scalar arithmetic is IEEE float32). `expected` recomputes the same sequence on host float32 arrays with the
summation trees of the package's reference model (aj.explain_reduce_order), independent of the kernels.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

NUM_COL = 4096
BLOCKS = 8
EPS = np.float32(1e-6)
FLOATS_PER_REPEAT = 64
FLOATS_PER_BLOCK = 8
MAX_REPEAT = 255
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")   # DataCopyPad, ISASI SetFlag/WaitFlag, TPipe event ids


def row_factor(device, num_col):
    """Rows per tile (the original's tiling): the x (half), x float and y (half) tiles and the row-sum scratch
    inside the device's UB beside the gamma row and the rstd values."""
    ub = aj.get_device(device).ub_bytes
    per_row = num_col * (2 + 4 + 2) + num_col // FLOATS_PER_REPEAT * 4 + 4
    return max(1, (ub - num_col * 4 - 32) // per_row)


class ReduceSumMultiN:
    """Row sums of a [num_row, num_col] float tile into dst[0:num_row] (num_col a multiple of 512, at most 4096):
    WholeReduceSum of every 64-float repeat of the tile into tmp (num_col / 64 sums a row, back to back; calls of at
    most 255 repeats), then one WholeReduceSum of each row's sums with repeatTimes = rows. The operands of each call
    are built once per tile height (every tile but the last has the same)."""

    def __init__(self, src, tmp, num_row, num_col):
        repeats = num_row * num_col // FLOATS_PER_REPEAT
        self.repeat_sums = [(tmp[first], src[first * FLOATS_PER_REPEAT], min(MAX_REPEAT, repeats - first))
                            for first in range(0, repeats, MAX_REPEAT)]
        self.tmp, self.width, self.num_row = tmp, num_col // FLOATS_PER_REPEAT, num_row

    def __call__(self, dst):
        for call_dst, call_src, repeats in self.repeat_sums:
            aj.WholeReduceSum(call_dst, call_src, FLOATS_PER_REPEAT, repeats, 1, 1, 8)
        aj.PipeBarrier(aj.PIPE_V)
        aj.WholeReduceSum(dst, self.tmp, self.width, self.num_row, 1, 1, self.width // FLOATS_PER_BLOCK)


class KernelRmsNormMergeN:
    def Init(self, x, gamma, y, rstd, num_row, num_col, block_factor, rows_per_tile):
        block = aj.GetBlockIdx()
        last = aj.GetBlockNum() - 1
        self.rows = block_factor if block != last else num_row - last * block_factor
        self.num_col = num_col
        self.row_factor = min(rows_per_tile, self.rows)
        self.avg_factor = np.float32(1.0) / np.float32(num_col)
        base = block * block_factor
        self.x_gm = aj.GlobalTensor(x)[base * num_col:]
        self.y_gm = aj.GlobalTensor(y)[base * num_col:]
        self.gamma_gm = aj.GlobalTensor(gamma)
        self.rstd_gm = aj.GlobalTensor(rstd)[base:]
        self.pipe = aj.TPipe()
        self.in_x, self.in_gamma = aj.TQue(aj.TPosition.VECIN, 1), aj.TQue(aj.TPosition.VECIN, 1)
        self.out_y, self.out_rstd = aj.TQue(aj.TPosition.VECOUT, 1), aj.TQue(aj.TPosition.VECOUT, 1)
        self.x_fp32 = aj.TBuf(aj.TPosition.VECCALC)
        self.sum_tmp = aj.TBuf(aj.TPosition.VECCALC)
        tile = self.row_factor * num_col
        self.pipe.InitBuffer(self.in_x, 1, tile * 2)
        self.pipe.InitBuffer(self.in_gamma, 1, num_col * 4)
        self.pipe.InitBuffer(self.out_y, 1, tile * 2)
        self.pipe.InitBuffer(self.out_rstd, 1, -(-self.row_factor * 4 // 32) * 32)
        self.pipe.InitBuffer(self.x_fp32, tile * 4)
        self.pipe.InitBuffer(self.sum_tmp, tile // FLOATS_PER_REPEAT * 4)
        self.x_fp32_tile = self.x_fp32.Get("float")
        self.sum_tmp_tile = self.sum_tmp.Get("float")
        self.x_fp32_rows = [self.x_fp32_tile[r * num_col] for r in range(self.row_factor)]   # `xFp32[rowOffset]`
        self.reductions = {}   # tile height -> its ReduceSumMultiN
        self.rstd_copies = {}  # tile height -> the rstd copy-out's DataCopyExtParams

    def Process(self):
        self.CopyInGamma()
        gamma = self.in_gamma.DeQue("float")
        for start in range(0, self.rows, self.row_factor):
            self.DoMainCompute(start, min(self.row_factor, self.rows - start), gamma)
        self.in_gamma.FreeTensor(gamma)
        self.pipe.Destroy()

    def CopyInGamma(self):
        gamma = self.in_gamma.AllocTensor("float")
        aj.DataCopy(gamma, self.gamma_gm, self.num_col)
        self.in_gamma.EnQue(gamma)

    def DoMainCompute(self, start, rows, gamma):
        self.CopyIn(start, rows)
        self.Compute(start, rows, gamma)
        self.CopyOutY(start, rows)

    def CopyIn(self, start, rows):
        x = self.in_x.AllocTensor("half")
        aj.DataCopy(x, self.x_gm[start * self.num_col], rows * self.num_col)
        self.in_x.EnQue(x)

    def Compute(self, start, rows, gamma):
        n, cols = rows * self.num_col, self.num_col
        x = self.in_x.DeQue("half")
        x_fp32 = self.x_fp32_tile
        # 1. x^2 of the tile (in the float buffer), the row sums of squares
        aj.Cast(x_fp32, x, aj.RoundMode.CAST_NONE, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Mul(x_fp32, x_fp32, x_fp32, n)
        aj.PipeBarrier(aj.PIPE_V)
        rstd = self.out_rstd.AllocTensor("float")
        reduce_sum_multi_n = self.reductions.get(rows)
        if reduce_sum_multi_n is None:
            reduce_sum_multi_n = self.reductions[rows] = ReduceSumMultiN(x_fp32, self.sum_tmp_tile, rows, cols)
        reduce_sum_multi_n(rstd)
        # 2. rstd = 1 / sqrt(sum * avgFactor + eps) on the scalar unit, one row at a time
        event_vs = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_S)
        aj.SetFlag(event_vs, event=aj.HardEvent.V_S)
        aj.WaitFlag(event_vs, event=aj.HardEvent.V_S)
        sums = np.array([rstd.GetValue(r) for r in range(rows)], np.float32)
        values = np.float32(1.0) / np.sqrt(sums * self.avg_factor + EPS)   # each row's float32 ops, on numpy arrays
        for r in range(rows):
            rstd.SetValue(r, values[r])
        event_sv = aj.GetTPipePtr().FetchEventID(aj.HardEvent.S_V)
        aj.SetFlag(event_sv, event=aj.HardEvent.S_V)
        aj.WaitFlag(event_sv, event=aj.HardEvent.S_V)
        self.out_rstd.EnQue(rstd)
        self.CopyOutRstd(start, rows)
        # 3. y = x * rstd * gamma: x cast again (its squares took the float buffer), Muls and Mul per row
        aj.Cast(x_fp32, x, aj.RoundMode.CAST_NONE, n)
        self.in_x.FreeTensor(x)
        aj.PipeBarrier(aj.PIPE_V)
        for r in range(rows):
            row = self.x_fp32_rows[r]
            aj.Muls(row, row, values[r], cols)
        aj.PipeBarrier(aj.PIPE_V)
        for r in range(rows):
            row = self.x_fp32_rows[r]
            aj.Mul(row, row, gamma, cols)
        aj.PipeBarrier(aj.PIPE_V)
        y = self.out_y.AllocTensor("half")
        aj.Cast(y, x_fp32, aj.RoundMode.CAST_NONE, n)
        aj.PipeBarrier(aj.PIPE_V)
        self.out_y.EnQue(y)

    def CopyOutRstd(self, start, rows):
        rstd = self.out_rstd.DeQue("float")
        params = self.rstd_copies.get(rows)
        if params is None:
            params = self.rstd_copies[rows] = aj.DataCopyExtParams(1, rows * 4, 0, 0, 0)
        aj.DataCopyPad(self.rstd_gm[start], rstd, params)
        self.out_rstd.FreeTensor(rstd)

    def CopyOutY(self, start, rows):
        y = self.out_y.DeQue("half")
        aj.DataCopy(self.y_gm[start * self.num_col], y, rows * self.num_col)
        self.out_y.FreeTensor(y)


def rms_norm_kernel(x, gamma, y, rstd, num_row, num_col, block_factor, rows_per_tile):
    op = KernelRmsNormMergeN()
    op.Init(x, gamma, y, rstd, num_row, num_col, block_factor, rows_per_tile)
    op.Process()


def make_inputs(size, seed):
    rows = max(1, size // NUM_COL)
    rng = np.random.default_rng(seed)
    return {"x": rng.standard_normal((rows, NUM_COL)).astype(np.float16),
            "gamma": (1 + 0.1 * rng.standard_normal(NUM_COL)).astype(np.float32)}


def run(device, inputs, blocks=BLOCKS):
    x, gamma = inputs["x"], inputs["gamma"]
    rows, cols = x.shape
    y = np.zeros_like(x)
    rstd = np.zeros(rows, np.float32)
    blocks = min(blocks, rows)
    factor = -(-rows // blocks)
    blocks = -(-rows // factor)
    aj.launch(rms_norm_kernel, blocks, device, x.reshape(-1), gamma, y.reshape(-1), rstd, rows, cols, factor,
              row_factor(device, cols))
    return {"y": y, "rstd": rstd}


def _row_sums(device, sq):
    """Host replay of ReduceSumMultiN on rows of float32 squares: both WholeReduceSum steps through the device's
    summation trees from the reference model."""
    rows = sq.shape[0]
    [repeat] = aj.explain_reduce_order(device, "WholeReduceSum", "float", mask=FLOATS_PER_REPEAT, repeat_time=1)
    v = repeat.evaluate_batch(sq.reshape(-1, FLOATS_PER_REPEAT)).reshape(rows, -1)
    [whole] = aj.explain_reduce_order(device, "WholeReduceSum", "float", mask=v.shape[1], repeat_time=1)
    return whole.evaluate_batch(v)


def expected(device, inputs):
    x = inputs["x"].astype(np.float32)
    gamma = inputs["gamma"]
    total = _row_sums(device, x * x)
    avg = np.float32(1.0) / np.float32(x.shape[1])
    rstd = (np.float32(1.0) / np.sqrt(total * avg + EPS)).astype(np.float32)
    y = ((x * rstd[:, None]).astype(np.float32) * gamma).astype(np.float32)
    return {"y": _to_half(device, y), "rstd": rstd}


def _to_half(device, y):
    """Cast float->half CAST_NONE (= CAST_RINT, SPEC-2 D45) with the device's half overflow mode (D46)."""
    with np.errstate(over="ignore"):
        h = y.astype(np.float16)
    if aj.Core(device).half_saturating:
        h = np.where(np.isnan(h), np.float16(0), np.clip(h, np.float16(-65504), np.float16(65504))).astype(np.float16)
    return h


KERNEL = KernelSpec("rmsnorm", "RMSNorm over rows of 4096 halves, float gamma and accumulation, many rows a tile, "
                    "8 blocks (ops-nn merge-N kernel)", make_inputs, run, expected, default_size=32 * NUM_COL,
                    devices=DEVICES, size_rule=f"a multiple of {NUM_COL}",
                    size_ok=lambda n: n >= NUM_COL and n % NUM_COL == 0,
                    source="hicann/ops-nn@26bb0755 norm/rms_norm/op_kernel/rms_norm_merge_n.h")
