"""KLDivV2 from the CANN math operators: the pointwise Kullback-Leibler divergence of a log-probability input x from a
target t, l = t * (ln t - x) (log_target: l = exp(t) * (t - x)), returned as is (reduction "none") or summed ("sum",
"mean" = sum / n, "batchmean" = sum / dim 0) over float, half and bfloat16, computed in float.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c4193324, experimental/math/kl_div_v2/op_kernel/kl_div_v2.h (`NsKLDivV2::KLDivV2<T>`):
- CopyIn: DataCopyPad of `num` elements of x and t (DataCopyParams {1, num * sizeof(T), 0, 0}, no padding) into
  depth-2 VECIN queues; a core's elements start anywhere in GM (cores take n / cores elements, the first n % cores one
  more);
- ComputePointwise: the 16-bit types Cast CAST_NONE into float TBufs, PipeBarrier<PIPE_V>; log_target: Exp, Sub, Mul;
  otherwise Maxs(t, 1.18e-38), the advanced API's Log, Sub, Mul, then the zero-target factor
  max(t, 0) / (max(t, 0) + 1.18e-38) by Maxs, Adds, Div and a last Mul; reduction "none": the result into a VECOUT tile
  (float: Adds 0, bfloat16: Cast CAST_RINT, half: Cast CAST_NONE) and DataCopyPad out;
- the reductions: a float accumulator tile cleared by Duplicate, Add of each tile's results (the short last tile adds
  only its lanes), one count-form ReduceSum of the whole accumulator, a V_S flag pair and GetValue; one core: the sum
  times the coefficient written by SetValue, an S_V flag pair, narrowed by a 1-element Adds / Cast and copied out by a
  4- or 2-byte DataCopyPad; several cores: each core's sum SetValue'd into the scalar buffer, S_MTE3 flags,
  DataCopyPad to its slot of a float GM workspace, MTE3_S flags, SyncAll, and core 0 adds the slots on the scalar
  unit (GM GetValue), scales and writes the result as above;
with the host tiling of experimental/math/kl_div_v2/op_host/kl_div_v2_tiling.cpp (`KLDivV2TilingFunc`: tiles of
UB / 32 / 2 / (6 for float, 8 otherwise) blocks; the reductions use one core up to 8192 elements; the coefficient
1 / n for "mean", 1 / dim 0 for "batchmean", in float32) and, for Log, the advanced API as kernels/log_kernel.py ports
it (mirror-cann/asc-devkit @ 82b89a15, impl/adv_api/detail/math/log/log_common_impl.h: counter-mode Ln).

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's). The workspace is the operator's
user slice only (one float a core; the system part is the framework's).

Devices: the original's configs are the A2 (910B) and A3 (910_93); the advanced API's Memory-API Log is compiled for
the A2/A3 and the 310P (kernels/log_kernel.py), and the multi-core reductions' SyncAll exists on the 950, A3 and A2
(README, SyncAll): the kernel runs on the A3 and A2.

Fidelity: MODELLED (Exp, Ln and Div are MODELLED, SPEC-2 0.3). Checked against the float64 formula on the same inputs
with targets chosen so that ln t - x (or t - x) lies in [0.5, 2] in magnitude (no cancellation: a float32 stage's
relative error is amplified at most ~20x): float within 1e-5; half and bfloat16 outputs within their final rounding
(2^-11, 2^-8) plus that: 1e-3 and 8e-3. The sums take only positive terms (relative error bounded by the
float32 accumulation: 1e-5).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
KLDIV_TINY = np.float32(1.18e-38)
WORK_GM_SIZE = 8
UB_BLOCK_FACTOR = 8
UB_BLOCK_FACTOR_FP32 = 6
REDUCE_SINGLE_CORE_MAX = 8192
BLOCK_SIZE = 32
CORE_NUM = 8
DEVICES = ("atlas-a3", "atlas-a2")
_SIZES = {"float": 4, "half": 2, "bfloat16": 2}
_REDUCTIONS = {"none": 0, "sum": 1, "mean": 2, "batchmean": 3}


def Log(dst, src, cal_count):
    """The advanced API's `Log<T>(dst, src, calCount)` (log_common_impl.h, arch 2201): Ln in counter mode."""
    aj.SetMaskCount()
    aj.SetVectorMask(0, cal_count, dtype=dst.dtype.name, mode=aj.MaskMode.COUNTER)
    aj.Ln(dst, src, aj.MASK_PLACEHOLDER, 1, aj.UnaryRepeatParams(), is_set_mask=False)
    aj.SetMaskNorm()
    aj.SetVectorMask(2 ** 64 - 1, 2 ** 64 - 1, dtype="half")       # FULL_MASK, FULL_MASK


def tiling(device, shape, dtype, reduction, log_target):
    """KLDivV2TilingFunc: (block_dim, tiling data)."""
    total = int(np.prod(shape))
    mode = _REDUCTIONS[reduction]
    cof = np.float32(1.0)
    if mode == 3:
        cof = np.float32(1.0) / np.float32(shape[0])
    elif mode == 2:
        cof = np.float32(1.0) / np.float32(total)
    factor = UB_BLOCK_FACTOR_FP32 if dtype == "float" else UB_BLOCK_FACTOR
    tile_blocks = max(1, aj.get_device(device).ub_bytes // BLOCK_SIZE // BUFFER_NUM // factor)
    tile = tile_blocks * BLOCK_SIZE // _SIZES[dtype]
    cores = max(1, min(CORE_NUM, total))
    if mode != 0 and total <= REDUCE_SINGLE_CORE_MAX:
        cores = 1
    base, tail_block_num = divmod(total, cores)

    def split(data):
        tiles = -(-data // tile)
        tail = data - tile * (tiles - 1) if tiles else 0
        return max(tiles, 1), tail or tile

    small_tiles, small_tail = split(base)
    big_tiles, big_tail = split(base + 1)
    return cores, dict(smallCoreDataNum=base, bigCoreDataNum=base + 1, tileDataNum=tile, smallTailDataNum=small_tail,
                       bigTailDataNum=big_tail, finalSmallTileNum=small_tiles, finalBigTileNum=big_tiles,
                       tailBlockNum=tail_block_num, reduction=0 if mode == 0 else 1, logTarget=int(log_target),
                       cof=cof)


class KLDivV2:
    def __init__(self, dtype):
        self.T = dtype

    def Init(self, x, target, y, workspace, tilingData):
        t = tilingData
        blockIdx = aj.GetBlockIdx()
        globalBufferIndex = t["bigCoreDataNum"] * blockIdx
        self.tileDataNum_ = t["tileDataNum"]
        self.reduction_, self.logTarget_, self.cof_ = t["reduction"], t["logTarget"], t["cof"]
        if blockIdx < t["tailBlockNum"]:
            self.coreDataNum_, self.tileNum_, self.tailDataNum_ = (t["bigCoreDataNum"], t["finalBigTileNum"],
                                                                   t["bigTailDataNum"])
        else:
            self.coreDataNum_, self.tileNum_, self.tailDataNum_ = (t["smallCoreDataNum"], t["finalSmallTileNum"],
                                                                   t["smallTailDataNum"])
            globalBufferIndex -= (t["bigCoreDataNum"] - t["smallCoreDataNum"]) * (blockIdx - t["tailBlockNum"])
        self.inputGMX, self.inputGMT, self.outputGMY = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.workGM = aj.GlobalTensor()
        self.inputGMX.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum_)
        self.inputGMT.SetGlobalBuffer(target[globalBufferIndex:], self.coreDataNum_)
        if self.reduction_ == 0:
            self.outputGMY.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum_)
        else:
            self.outputGMY.SetGlobalBuffer(y, 1)
            self.workGM.SetGlobalBuffer(workspace, aj.GetBlockNum())
        size = _SIZES[self.T]
        self.pipe = aj.TPipe()
        self.inQueueX, self.inQueueT = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM), aj.TQue(aj.QuePosition.VECIN,
                                                                                            BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.calcXBuf, self.calcTBuf, self.calcResBuf, self.accumBuf, self.reduceBuf = (
            aj.TBuf(aj.QuePosition.VECCALC) for _ in range(5))
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum_ * size)
        self.pipe.InitBuffer(self.inQueueT, BUFFER_NUM, self.tileDataNum_ * size)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum_ * size)
        self.pipe.InitBuffer(self.calcResBuf, self.tileDataNum_ * 4)
        self.pipe.InitBuffer(self.calcXBuf, self.tileDataNum_ * 4)
        if self.T != "float":
            self.pipe.InitBuffer(self.calcTBuf, self.tileDataNum_ * 4)
        if self.reduction_ != 0:
            self.pipe.InitBuffer(self.accumBuf, self.tileDataNum_ * 4)
        self.pipe.InitBuffer(self.reduceBuf, WORK_GM_SIZE * 4)

    def CopyIn(self, progress, num):
        xLocal = self.inQueueX.AllocTensor(self.T)
        tLocal = self.inQueueT.AllocTensor(self.T)
        copyParams = aj.DataCopyParams(1, num * _SIZES[self.T], 0, 0)
        aj.DataCopyPad(xLocal, self.inputGMX[progress * self.tileDataNum_], copyParams, (False, 0, 0, 0))
        aj.DataCopyPad(tLocal, self.inputGMT[progress * self.tileDataNum_], copyParams, (False, 0, 0, 0))
        self.inQueueX.EnQue(xLocal)
        self.inQueueT.EnQue(tLocal)

    def ComputePointwise(self, num):
        xLocal = self.inQueueX.DeQue(self.T)
        tLocal = self.inQueueT.DeQue(self.T)
        res = self.calcResBuf.Get("float")
        if self.T == "float":
            xf, tf = xLocal, tLocal
        else:
            xf, tf = self.calcXBuf.Get("float"), self.calcTBuf.Get("float")
            aj.Cast(xf, xLocal, aj.RoundMode.CAST_NONE, num)
            aj.Cast(tf, tLocal, aj.RoundMode.CAST_NONE, num)
            aj.PipeBarrier(aj.PIPE_V)
        if self.logTarget_ == 1:
            aj.Exp(res, tf, num)
            aj.Sub(xf, tf, xf, num)
            aj.Mul(res, res, xf, num)
        else:
            aj.Maxs(res, tf, KLDIV_TINY, num)
            Log(res, res, num)
            aj.Sub(res, res, xf, num)
            aj.Mul(res, tf, res, num)
            aj.Maxs(xf, tf, np.float32(0.0), num)
            aj.Adds(tf, xf, KLDIV_TINY, num)
            aj.Div(xf, xf, tf, num)
            aj.Mul(res, res, xf, num)
        aj.PipeBarrier(aj.PIPE_V)
        if self.reduction_ == 0:
            yLocal = self.outQueueY.AllocTensor(self.T)
            self.narrow(yLocal, res, num)
            self.outQueueY.EnQue(self.T, yLocal)
        self.inQueueX.FreeTensor(xLocal)
        self.inQueueT.FreeTensor(tLocal)

    def narrow(self, yLocal, res, num):
        """float -> T as the original writes it: Adds 0 for float, CAST_RINT for bfloat16, CAST_NONE for half."""
        if self.T == "float":
            aj.Adds(yLocal, res, np.float32(0.0), num)
        elif self.T == "bfloat16":
            aj.Cast(yLocal, res, aj.RoundMode.CAST_RINT, num)
        else:
            aj.Cast(yLocal, res, aj.RoundMode.CAST_NONE, num)

    def CopyOut(self, progress, num):
        yLocal = self.outQueueY.DeQue(self.T)
        aj.DataCopyPad(self.outputGMY[progress * self.tileDataNum_], yLocal,
                       aj.DataCopyParams(1, num * _SIZES[self.T], 0, 0))
        self.outQueueY.FreeTensor(yLocal)

    def WriteResult(self, total):
        """The scaled sum from the scalar unit to y: SetValue, S_V flags, a 1-element narrowing, DataCopyPad out."""
        resf = self.reduceBuf.Get("float")
        resf.SetValue(0, total)
        yLocal = self.outQueueY.AllocTensor(self.T)
        aj.SetFlag(0, event=aj.HardEvent.S_V)
        aj.WaitFlag(0, event=aj.HardEvent.S_V)
        self.narrow(yLocal, resf, 1)
        self.outQueueY.EnQue(self.T, yLocal)
        outLocal = self.outQueueY.DeQue(self.T)
        aj.DataCopyPad(self.outputGMY, outLocal, aj.DataCopyParams(1, _SIZES[self.T], 0, 0))
        self.outQueueY.FreeTensor(outLocal)

    def Process(self):
        loopCount = self.tileNum_
        if self.reduction_ == 0:
            num = self.tileDataNum_
            for i in range(loopCount):
                if i == loopCount - 1:
                    num = self.tailDataNum_
                self.CopyIn(i, num)
                self.ComputePointwise(num)
                self.CopyOut(i, num)
            return
        blockNum = aj.GetBlockNum()
        accum = self.accumBuf.Get("float")
        aj.Duplicate(accum, np.float32(0.0), self.tileDataNum_)
        aj.PipeBarrier(aj.PIPE_V)
        num = self.tileDataNum_
        for i in range(loopCount):
            if i == loopCount - 1:
                num = self.tailDataNum_
            self.CopyIn(i, num)
            self.ComputePointwise(num)
            res = self.calcResBuf.Get("float")
            aj.Add(accum, accum, res, num)
            aj.PipeBarrier(aj.PIPE_V)
        work = self.calcXBuf.Get("float")
        reduceOut = self.reduceBuf.Get("float")
        aj.ReduceSum(reduceOut, accum, work, self.tileDataNum_)
        aj.SetFlag(0, event=aj.HardEvent.V_S)
        aj.WaitFlag(0, event=aj.HardEvent.V_S)
        coreSum = np.float32(reduceOut.GetValue(0))
        if blockNum == 1:
            self.WriteResult(coreSum * self.cof_)
            return
        partial = self.reduceBuf.Get("float")
        partial.SetValue(0, coreSum)
        aj.SetFlag(0, event=aj.HardEvent.S_MTE3)
        aj.WaitFlag(0, event=aj.HardEvent.S_MTE3)
        aj.DataCopyPad(self.workGM[aj.GetBlockIdx()], partial, aj.DataCopyParams(1, 4, 0, 0))
        aj.SetFlag(0, event=aj.HardEvent.MTE3_S)
        aj.WaitFlag(0, event=aj.HardEvent.MTE3_S)
        aj.SyncAll()
        if aj.GetBlockIdx() == 0:
            total = np.float32(0.0)
            for c in range(blockNum):
                total += np.float32(self.workGM.GetValue(c))
            self.WriteResult(total * self.cof_)


def kl_div_v2(x, target, y, workspace, tiling_data, dtype):
    op = KLDivV2(dtype)
    op.Init(x, target, y, workspace, tiling_data)
    op.Process()


ROWS = 7   # dim 0 of the inputs when the size allows it ("batchmean" divides by it)


def _make_inputs(np_dtype, log_target, signed_gaps=True):
    """Targets, then x = ln t - gap (log_target: t - gap) from the rounded targets, |gap| in [0.5, 2]: negative gaps
    too for the pointwise outputs, positive only for the sums (no cancellation in the float32 accumulation)."""
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if log_target:
            t = rng.uniform(-6.0, 0.0, size).astype(np.float32).astype(np_dtype)
        else:
            t = rng.uniform(1e-4, 1.0, size).astype(np.float32)
            t[::53] = 0.0                                       # zero targets contribute 0 (the TINY factor)
            t = t.astype(np_dtype)
        gap = rng.uniform(0.5, 2.0, size)
        if signed_gaps:
            gap *= np.where(rng.random(size) < 0.5, -1.0, 1.0)
        tt = t.astype(np.float64)
        x = ((tt if log_target else np.log(np.maximum(tt, 1e-30))) - gap).astype(np.float32).astype(np_dtype)
        return {"x": x.reshape(ROWS, -1) if size % ROWS == 0 else x, "target": t}
    return make_inputs


def _run(dtype, reduction, log_target):
    def run(device, inputs):
        x, t = inputs["x"], inputs["target"]
        block_dim, tiling_data = tiling(device, x.shape, dtype, reduction, log_target)
        y = np.zeros(t.size if reduction == "none" else 1, t.dtype)
        workspace = np.full(block_dim, np.float32(7.0))   # stale: every core's DataCopyPad must replace its slot
        aj.launch(kl_div_v2, block_dim, device, x.reshape(-1), t, y, workspace, tiling_data, dtype)
        return {"y": y}
    return run


def _expected(reduction, log_target):
    def expected(device, inputs):
        x = inputs["x"].reshape(-1).astype(np.float64)
        t = inputs["target"].astype(np.float64)
        if log_target:
            pointwise = np.exp(t) * (t - x)
        else:
            pointwise = np.where(t > 0, t * (np.log(np.maximum(t, 1e-300)) - x), 0.0)
        if reduction == "none":
            return {"y": pointwise}
        total = pointwise.sum()
        if reduction == "mean":
            total /= t.size
        elif reduction == "batchmean":
            total /= inputs["x"].shape[0]
        return {"y": np.array([total])}
    return expected


_SOURCE = "hicann/ops-math@c4193324 experimental/math/kl_div_v2/op_kernel/kl_div_v2.h"
KERNELS = [
    KernelSpec("kl_div", "KLDivV2 over floats, reduction none: DataCopyPad at unaligned core starts, Maxs, Log "
               "(counter-mode Ln), Sub, Mul, the zero-target factor by Maxs/Adds/Div", _make_inputs(np.float32, False),
               _run("float", "none", False), _expected("none", False), default_size=20011, devices=DEVICES,
               tolerance=1e-5, source=_SOURCE),
    KernelSpec("kl_div_mean_half", "KLDivV2 over halves, reduction mean on 8 cores: Cast to float, a Duplicate-cleared "
               "accumulator, ReduceSum, V_S flags, per-core sums by DataCopyPad into a GM workspace, SyncAll, core 0 "
               "sums on the scalar unit", _make_inputs(np.float16, False, signed_gaps=False), _run("half", "mean", False),
               _expected("mean", False), default_size=20013, devices=DEVICES, tolerance=1e-3, source=_SOURCE),
    KernelSpec("kl_div_batchmean_bf16_log_target", "KLDivV2 over bfloat16 log-targets (Exp, Sub, Mul), reduction "
               "batchmean on one core: the result by SetValue, S_V flags, a 1-element Cast CAST_RINT, DataCopyPad",
               _make_inputs(ml_dtypes.bfloat16, True, signed_gaps=False), _run("bfloat16", "batchmean", True),
               _expected("batchmean", True), default_size=7 * 1001, devices=DEVICES, tolerance=8e-3,
               source=_SOURCE),
]
