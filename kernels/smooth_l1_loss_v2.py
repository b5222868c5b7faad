"""SmoothL1LossV2 from the CANN NN operators: with d = predict - label, loss = 0.5 * d**2 / sigma where |d| < sigma,
|d| - 0.5 * sigma elsewhere (computed as 0.5 / sigma * min(|d|, sigma)**2 + (|d| - min(|d|, sigma))), element by element
(reduction "none") or summed / averaged over the whole tensor ("sum" / "mean"), over float, half and bfloat16 (the
16-bit types computed in float).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/loss/smooth_l1_loss_v2:
- op_kernel/smooth_l1_loss_v2.h (`MySmoothL1LossV2::KernelSmoothL1LossV2<T, T, T>`): the elements split evenly over
  the launched cores (total / cores each, the first total % cores one more: unaligned per-core GM starts); the tile
  the tiling's, capped by the kernel's own UB budget (196608 - 512 bytes over the bytes an element needs) and rounded
  down to 32 bytes of the widest type, or the core's whole share when smaller; depth-2 VECIN queues for predict and
  label (and a VECOUT queue for "none"), two float TBufs (diff, absDiff). Per tile: CopyIn by DataCopyPad with
  DataCopyExtParams and `{true, 0, 0, 0}` padding; to float (float: DataCopy UB -> UB of the 8-element-aligned part
  and a GetValue / SetValue loop for the rest; 16-bit: Cast CAST_NONE); Sub, Abs, Mins sigma, Sub, Mul, Muls
  0.5 / sigma, Add; "none": back to T (the same UB copy, or Cast CAST_RINT) and CopyOut by DataCopyPad; "sum" /
  "mean": ReduceSumTile (PipeBarrier<PIPE_ALL>, SetValue zeros to 8 elements, halving count-form Adds
  val += val[half] down to 8 floats, PipeBarrier<PIPE_ALL>, a scalar sum of the 8) and a compensated (Kahan) float
  running sum. GlobalReduction: one core stores its sum (divided by the element count for "mean") by a GM SetValue;
  several cores each SetValue their sum into an 8-float TBuf, PipeBarrier<PIPE_ALL>, DataCopy it to a GM workspace
  slot, SyncAll; core 0 copies the slots back, PipeBarrier<PIPE_ALL>, Kahan-sums them, divides for "mean" and stores
  (bfloat16 by the kernel's own bit-level RNE, `FromFloatValue`);
- op_kernel/smooth_l1_loss_v2.cpp (the entry) and op_host/smooth_l1_loss_v2_tiling.cpp (`SmoothL1LossV2TilingFunc`:
  tileDataNum = UB blocks / (5 float none, 4 float sum/mean, 6 or 5 for the 16-bit types) / 2 in elements; the core
  count by DecideLaunchCoreNum's size rules, at most the AIV count; the workspace: 2 * 32 bytes a core of sync
  space, then 8 floats a core).

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original; DecideLaunchCoreNum asks for 12
or 16 on some sizes); GM is padded to 32 bytes, as device allocations are (the copies move exact bytes). One sync
fix, `original_sync=False` (True runs the original's sequence): the float kernel's UB -> UB conversion moves the
elements past the last whole 8 by scalar SetValue between vector instructions with no flag, a V -> S read of diff
(the "none" output copy) and an S -> V read of the written elements (Sub reads them): the sanitizer reports both
(SPEC-2 10.4; on the device the scalar unit and the vector pipe do race there). The port
puts a V_S pair before and an S_V pair after each such loop; the values are the same.

Devices: the original is built for the ascend910b (the A2/A3 config); the port runs on the A3 and A2.

Fidelity: BIT-EXACT (DataCopyPad, DataCopy, Cast, Sub, Abs, Mins, Mul, Muls, Add; the scalar float arithmetic is
IEEE float32; SPEC-2 0.3). The model replays the float32 chain in numpy and, for "sum" / "mean", the kernel's order:
per core, per tile the halving pairs and the 8-element scalar sum, the Kahan sums over tiles and over cores.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: at most the launch's cores (GetCoreNumAiv in the original)
BUFFER_NUM = 2
BLOCK_BYTES = 32                   # GetUbBlockSize
SYNC_WORKSPACE_REGION_NUM = 2
UB_DATA_NUM = {("float", 0): 5, ("float", 1): 4, ("other", 0): 6, ("other", 1): 5}
TILE_SPLIT_NUM_NONE, TILE_SPLIT_NUM_REDUCE, SINGLE_CORE_THRESHOLD = 4096, 2048, 8192
UB_POOL_BYTES, UB_SAFETY_BYTES = 196608, 512          # the kernel's own constants (InitTileAndAlign)
REDUCTIONS = {"none": 0, "sum": 1, "mean": 2}
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("atlas-a3", "atlas-a2")
F32 = np.float32


def _launch_core_num(total, reduction, type_len):
    """DecideLaunchCoreNum, at most CORE_NUM."""
    split = TILE_SPLIT_NUM_NONE if reduction == 0 else TILE_SPLIT_NUM_REDUCE
    calc = -(-total // split)
    if reduction == 0:
        if total <= 128:
            calc = 1
        elif total <= 1024:
            calc = 2
        elif total <= 8192:
            calc = 8
        elif total <= 32768:
            calc = 12
        if type_len == 4 and total <= 8192 and calc > 4:
            calc = 4
    else:
        if total <= SINGLE_CORE_THRESHOLD:
            calc = 1
        elif total <= 131072:
            calc = min(calc, 16)
        elif total <= 524288:
            calc = min(calc, 32)
    return max(1, min(calc, CORE_NUM))


def tiling(device, total, dtype, sigma=1.0, reduction="mean"):
    """SmoothL1LossV2TilingFunc: (core count, tiling data, workspace bytes)."""
    red = REDUCTIONS[reduction]
    ub_size = aj.get_device(device).ub_bytes
    type_len = TYPE_SIZE[dtype]
    ub_data_number = UB_DATA_NUM[("float" if dtype == "float" else "other", min(red, 1))]
    tile_block_num = ub_size // BLOCK_BYTES // ub_data_number // BUFFER_NUM
    tile_data_num = tile_block_num * BLOCK_BYTES // type_len
    aligned_len = -(-total * type_len // BLOCK_BYTES) * BLOCK_BYTES
    core_num = _launch_core_num(total, red, type_len)
    # CalculateCoreBlockNums: the kernel reads only bigCoreDataNum (and overrides the split), the rest is kept
    every = aligned_len // BLOCK_BYTES // core_num
    tail_block_num = aligned_len // BLOCK_BYTES % core_num
    small = every * BLOCK_BYTES // type_len
    big = (every + 1) * BLOCK_BYTES // type_len
    t = dict(smallCoreDataNum=small, bigCoreDataNum=big, tileDataNum=tile_data_num, tailBlockNum=tail_block_num,
             totalDataNum=total, blockBytes=BLOCK_BYTES, sigma=F32(sigma), reduction=red)
    workspace = core_num * BLOCK_BYTES * SYNC_WORKSPACE_REGION_NUM + core_num * 8 * 4 if red else 0
    return core_num, t, workspace


def _align_up(v, a):
    return -(-v // a) * a if a else v


def _bf16_from_float(val):
    """FromFloatValue<bfloat16_t>: the kernel's bit-level RNE (inf / NaN by truncation, NaN kept quiet)."""
    bits = int(np.array([val], F32).view(np.uint32)[0])
    if bits & 0x7F800000 == 0x7F800000:
        out = bits >> 16
        if bits & 0x007FFFFF:
            out |= 0x0040
    else:
        out = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFFFFFF) >> 16
    return np.array([out], np.uint16).view(ml_dtypes.bfloat16)[0]


class KernelSmoothL1LossV2:
    """`KernelSmoothL1LossV2<T, T, T>` (predict, label and loss share a type: the host tiling checks it)."""

    def __init__(self, T, original_sync=False):
        self.T, self.original_sync = T, original_sync

    def Init(self, predict, label, loss, workspace, tiling):
        self.blockBytes = tiling["blockBytes"]
        coreId = aj.GetBlockIdx()
        self.InitTileAndAlign(tiling["tileDataNum"], tiling["reduction"])
        self.InitReductionAndWorkspace(workspace, tiling["totalDataNum"], tiling["sigma"], tiling["reduction"])
        globalBufferIndex = self.InitCorePartition(coreId)
        self.InitGlobalBuffers(predict, label, loss, globalBufferIndex, tiling["reduction"])
        self.InitPipeBuffers()

    def Process(self):
        if self.coreDataNum == 0:
            if self.reduction != 0:
                self.GlobalReduction(F32(0.0), F32(0.0))
            return
        loopCount = self.tileNum
        acc = [F32(0.0), F32(0.0)]                     # totalSum, totalCompensation (references in C++)
        self.processDataNum = self.tileDataNum
        for i in range(loopCount - 1):
            self._tile(i, acc)
        self.processDataNum = self.tailDataNum
        if self.processDataNum > 0:
            self._tile(loopCount - 1, acc)
        if self.reduction != 0:
            self.GlobalReduction(acc[0], acc[1])

    def _tile(self, i, acc):
        self.CopyIn(i)
        if self.reduction == 0:
            self.Compute(i)
            self.CopyOut(i)
        else:
            self.ComputeReduceAccumulate(i, acc)

    def InitTileAndAlign(self, inputTileDataNum, reduction):
        size = TYPE_SIZE[self.T]
        self.alignUnit = max(32 // size, 32 // 4)
        usable = UB_POOL_BYTES - UB_SAFETY_BYTES
        bytesPerElem = BUFFER_NUM * (size + size) + 4 + 4
        if reduction == 0:
            bytesPerElem += BUFFER_NUM * size
        maxTileDataNum = max(1, usable // bytesPerElem)
        self.tileDataNum = inputTileDataNum
        if self.tileDataNum == 0 or self.tileDataNum > maxTileDataNum:
            self.tileDataNum = maxTileDataNum
        if self.alignUnit > 1:
            alignedTile = self.tileDataNum // self.alignUnit * self.alignUnit or self.alignUnit
            if alignedTile > maxTileDataNum:
                alignedTile = maxTileDataNum // self.alignUnit * self.alignUnit or maxTileDataNum
            self.tileDataNum = alignedTile

    def InitReductionAndWorkspace(self, workspace, totalDataNum, sigma, reduction):
        self.sigma, self.reduction, self.totalDataNum = F32(sigma), reduction, totalDataNum
        self.coreNum = aj.GetBlockNum()
        self.totalReduceCount = self.coreNum * 8
        self.workspaceFloatOffset = self.coreNum * self.blockBytes * SYNC_WORKSPACE_REGION_NUM // 4
        self.workspaceGm = aj.GlobalTensor()
        if self.reduction != 0:
            self.workspaceGm.SetGlobalBuffer(workspace.view(np.float32)[self.workspaceFloatOffset:],
                                             self.totalReduceCount)

    def InitCorePartition(self, coreId):
        base = self.totalDataNum // self.coreNum
        extra = self.totalDataNum % self.coreNum
        self.coreDataNum = base + (1 if coreId < extra else 0)
        globalBufferIndex = coreId * base + (coreId if coreId < extra else extra)
        if self.coreDataNum > 0 and self.tileDataNum > self.coreDataNum:
            self.tileDataNum = self.coreDataNum
        if self.tileDataNum == 0 or self.coreDataNum == 0:
            self.tileNum, self.tailDataNum = 0, 0
        else:
            self.tileNum = -(-self.coreDataNum // self.tileDataNum)
            self.tailDataNum = self.coreDataNum - self.tileDataNum * (self.tileNum - 1)
        return globalBufferIndex

    def InitGlobalBuffers(self, predict, label, loss, globalBufferIndex, reduction):
        self.predictGm, self.labelGm, self.lossGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.predictGm.SetGlobalBuffer(predict[globalBufferIndex:], self.coreDataNum)
        self.labelGm.SetGlobalBuffer(label[globalBufferIndex:], self.coreDataNum)
        if reduction == 0:
            self.lossGm.SetGlobalBuffer(loss[globalBufferIndex:], self.coreDataNum)
        else:
            self.lossGm.SetGlobalBuffer(loss, 1)

    def InitPipeBuffers(self):
        size = TYPE_SIZE[self.T]
        self.pipe = aj.TPipe()
        self.inQueuePredict = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.inQueueLabel = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueLoss = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.tmp1, self.tmp2 = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        self.reduceAccumBuf, self.crossCoreReduceBuf = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.inQueuePredict, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.inQueueLabel, BUFFER_NUM, self.tileDataNum * size)
        if self.reduction == 0:
            self.pipe.InitBuffer(self.outQueueLoss, BUFFER_NUM, self.tileDataNum * size)
        else:
            self.pipe.InitBuffer(self.reduceAccumBuf, 4 * 8)
            self.pipe.InitBuffer(self.crossCoreReduceBuf, 4 * self.totalReduceCount)
        self.pipe.InitBuffer(self.tmp1, self.tileDataNum * 4)
        self.pipe.InitBuffer(self.tmp2, self.tileDataNum * 4)

    @staticmethod
    def CopyGmToLocalAligned(dst, src, count, size):
        if count == 0:
            return
        aj.DataCopyPad(dst, src, aj.DataCopyExtParams(1, count * size, 0, 0, 0), aj.DataCopyPadExtParams(True, 0, 0, 0))

    @staticmethod
    def CopyLocalToGmAligned(dst, src, count, size):
        if count == 0:
            return
        aj.DataCopyPad(dst, src, aj.DataCopyExtParams(1, count * size, 0, 0, 0))

    def CopyLocalToLocalAligned(self, dst, src, count):
        if count == 0:
            return
        if self.alignUnit != 0 and count < self.alignUnit:
            self._scalar_copy(dst, src, 0, count)
            return
        alignedDown = count // self.alignUnit * self.alignUnit if self.alignUnit else count
        if alignedDown > 0:
            aj.DataCopy(dst, src, alignedDown)
        if count > alignedDown:
            self._scalar_copy(dst, src, alignedDown, count)

    def _scalar_copy(self, dst, src, start, stop):
        if not self.original_sync:
            # not in the original (docstring): src may be the vector pipe's output, and dst's next reader may be it
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        for i in range(start, stop):
            dst.SetValue(i, src.GetValue(i))
        if not self.original_sync:
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)

    def ConvertLocalByScalar(self, dst, src, count, to_float):
        """The three conversions this kernel instantiates: T -> T, T -> float, float -> T."""
        if count == 0:
            return
        if dst.dtype == src.dtype:
            self.CopyLocalToLocalAligned(dst, src, count)
        elif to_float:
            aj.Cast(dst, src, aj.RoundMode.CAST_NONE, count)
        else:
            aj.Cast(dst, src, aj.RoundMode.CAST_RINT, count)

    def ComputeSmoothL1FloatCore(self, predictLocal, labelLocal, diff, absDiff):
        sigmaVal = self.sigma
        invSigma = F32(0.0) if sigmaVal == 0 else F32(F32(1.0) / sigmaVal)
        n = self.processDataNum
        self.ConvertLocalByScalar(diff, predictLocal, n, True)
        self.ConvertLocalByScalar(absDiff, labelLocal, n, True)
        aj.Sub(diff, diff, absDiff, n)
        aj.Abs(absDiff, diff, n)
        aj.Mins(diff, absDiff, sigmaVal, n)
        aj.Sub(absDiff, absDiff, diff, n)
        aj.Mul(diff, diff, diff, n)
        aj.Muls(diff, diff, F32(F32(0.5) * invSigma), n)
        aj.Add(diff, diff, absDiff, n)

    def CopyIn(self, progress):
        T, size = self.T, TYPE_SIZE[self.T]
        predictLocal = self.inQueuePredict.AllocTensor(T)
        labelLocal = self.inQueueLabel.AllocTensor(T)
        self.CopyGmToLocalAligned(predictLocal, self.predictGm[progress * self.tileDataNum], self.processDataNum, size)
        self.CopyGmToLocalAligned(labelLocal, self.labelGm[progress * self.tileDataNum], self.processDataNum, size)
        self.inQueuePredict.EnQue(predictLocal)
        self.inQueueLabel.EnQue(labelLocal)

    def CopyOut(self, progress):
        lossLocal = self.outQueueLoss.DeQue(self.T)
        self.CopyLocalToGmAligned(self.lossGm[progress * self.tileDataNum], lossLocal, self.processDataNum,
                                  TYPE_SIZE[self.T])
        self.outQueueLoss.FreeTensor(lossLocal)

    def Compute(self, progress):
        T = self.T
        predictLocal = self.inQueuePredict.DeQue(T)
        labelLocal = self.inQueueLabel.DeQue(T)
        lossLocal = self.outQueueLoss.AllocTensor(T)
        diff, absDiff = self.tmp1.Get("float"), self.tmp2.Get("float")
        self.ComputeSmoothL1FloatCore(predictLocal, labelLocal, diff, absDiff)
        self.ConvertLocalByScalar(lossLocal, diff, self.processDataNum, False)
        self.outQueueLoss.EnQue(T, lossLocal)
        self.inQueuePredict.FreeTensor(predictLocal)
        self.inQueueLabel.FreeTensor(labelLocal)

    def ReduceSumTile(self, val, processLen):
        if processLen == 0:
            return F32(0.0)
        alignLen = _align_up(processLen, 8)
        aj.PipeBarrier(aj.PIPE_ALL)
        for i in range(processLen, alignLen):
            val.SetValue(i, F32(0.0))
        aj.PipeBarrier(aj.PIPE_ALL)
        currentLen = alignLen
        while currentLen > 8:
            half = ((currentLen + 15) >> 4) << 3
            rightLen = currentLen - half
            aj.Add(val, val, val[half], rightLen)
            currentLen = half
        aj.PipeBarrier(aj.PIPE_ALL)
        tileSum = F32(0.0)
        with np.errstate(all="ignore"):                 # IEEE float32: inf / NaN sums are the kernel's results
            for i in range(8):
                tileSum = F32(tileSum + val.GetValue(i))
        aj.PipeBarrier(aj.PIPE_ALL)
        return tileSum

    def ComputeReduceAccumulate(self, progress, acc):
        T = self.T
        predictLocal = self.inQueuePredict.DeQue(T)
        labelLocal = self.inQueueLabel.DeQue(T)
        diff, absDiff = self.tmp1.Get("float"), self.tmp2.Get("float")
        self.ComputeSmoothL1FloatCore(predictLocal, labelLocal, diff, absDiff)
        tileSum = self.ReduceSumTile(diff, self.processDataNum)
        acc[0], acc[1] = _kahan(acc[0], acc[1], tileSum)
        self.inQueuePredict.FreeTensor(predictLocal)
        self.inQueueLabel.FreeTensor(labelLocal)

    def StoreReductionResult(self, totalSum):
        if self.T == "float":
            value = F32(totalSum)
        elif self.T == "half":
            with np.errstate(over="ignore"):
                value = np.float16(totalSum)              # static_cast<half>: RNE, past 65504 inf
        else:
            value = _bf16_from_float(totalSum)
        self.lossGm.SetValue(0, value)

    def GlobalReduction(self, totalSum, totalCompensation):
        if self.coreNum == 1:
            if self.reduction == 2 and self.totalDataNum != 0:
                totalSum = F32(totalSum / F32(self.totalDataNum))
            self.StoreReductionResult(totalSum)
            return
        accum = self.reduceAccumBuf.Get("float")
        for i in range(8):
            accum.SetValue(i, F32(0.0))
        accum.SetValue(0, totalSum)
        aj.PipeBarrier(aj.PIPE_ALL)
        aj.DataCopy(self.workspaceGm[aj.GetBlockIdx() * 8], accum, 8)
        aj.SyncAll()
        if aj.GetBlockIdx() != 0:
            return
        allCoreSums = self.crossCoreReduceBuf.Get("float")
        aj.DataCopy(allCoreSums, self.workspaceGm, self.totalReduceCount)
        aj.PipeBarrier(aj.PIPE_ALL)
        globalSum, globalCompensation = F32(0.0), F32(0.0)
        for i in range(self.coreNum):
            globalSum, globalCompensation = _kahan(globalSum, globalCompensation, allCoreSums.GetValue(i * 8))
        if self.reduction == 2 and self.totalDataNum != 0:
            globalSum = F32(globalSum / F32(self.totalDataNum))
        self.StoreReductionResult(globalSum)


def _kahan(total, compensation, value):
    """One compensated step in float32: (sum, compensation)."""
    with np.errstate(all="ignore"):
        y = F32(F32(value) - compensation)
        t = F32(total + y)
        return t, F32(F32(t - total) - y)


def smooth_l1_loss_v2(predict, label, loss, workspace, tiling_data, dtype, original_sync=False):
    """The kernel entry (smooth_l1_loss_v2.cpp)."""
    op = KernelSmoothL1LossV2(dtype, original_sync)
    op.Init(predict, label, loss, workspace, tiling_data)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_smooth_l1_loss_v2(device, predict, label, sigma=1.0, reduction="mean", original_sync=False):
    dtype = _dtype_name(predict)
    block_num, t, ws_bytes = tiling(device, predict.size, dtype, sigma, reduction)
    pad = BLOCK_BYTES // predict.itemsize
    n = -(-predict.size // pad) * pad                      # GM allocations are whole 32-byte blocks
    gm_p, gm_l = np.zeros(n, predict.dtype), np.zeros(n, predict.dtype)
    gm_p[:predict.size], gm_l[:predict.size] = predict, label
    out = np.zeros(n if t["reduction"] == 0 else pad, predict.dtype)
    workspace = np.zeros(max(ws_bytes, BLOCK_BYTES), np.uint8)
    aj.launch(smooth_l1_loss_v2, block_num, device, gm_p, gm_l, out, workspace, t, dtype, original_sync)
    return out[:predict.size] if t["reduction"] == 0 else out[:1]


def smooth_l1_elementwise(predict, label, sigma=1.0):
    """The float32 chain of ComputeSmoothL1FloatCore."""
    s = F32(sigma)
    inv = F32(0.0) if s == 0 else F32(F32(1.0) / s)
    with np.errstate(all="ignore"):
        d = predict.astype(F32) - label.astype(F32)
        a = np.abs(d)
        m = np.minimum(a, s)
        a = a - m
        return (m * m * F32(F32(0.5) * inv) + a).astype(F32)


def _tile_sum_model(v):
    """ReduceSumTile: zero-pad to 8, halving pairs, a serial float sum of the last 8."""
    n = v.size
    buf = np.zeros(_align_up(n, 8), F32)
    buf[:n] = v
    cur = buf.size
    with np.errstate(all="ignore"):
        while cur > 8:
            half = ((cur + 15) >> 4) << 3
            right = cur - half
            buf[:right] = buf[:right] + buf[half:half + right]
            cur = half
        s = F32(0.0)
        for i in range(8):
            s = F32(s + buf[i])
    return s


def smooth_l1_loss_v2_model(device, predict, label, sigma=1.0, reduction="mean"):
    """The kernel's results: "none" the float chain cast back by RNE; "sum" / "mean" in the kernel's order."""
    dtype = _dtype_name(predict)
    r = smooth_l1_elementwise(predict, label, sigma)
    if reduction == "none":
        return r if dtype == "float" else r.astype(predict.dtype)
    block_num, t, _ = tiling(device, predict.size, dtype, sigma, reduction)
    probe = KernelSmoothL1LossV2(dtype)
    probe.InitTileAndAlign(t["tileDataNum"], t["reduction"])
    tile0 = probe.tileDataNum
    total = predict.size
    base, extra = divmod(total, block_num)
    sums = []
    with np.errstate(all="ignore"):
        for core in range(block_num):
            count = base + (1 if core < extra else 0)
            start = core * base + min(core, extra)
            tile = min(tile0, count)
            acc = (F32(0.0), F32(0.0))
            for off in range(0, count, tile):
                acc = _kahan(acc[0], acc[1], _tile_sum_model(r[start + off:start + min(off + tile, count)]))
            sums.append(acc[0])
        if block_num == 1:
            result = sums[0]
        else:
            result, comp = F32(0.0), F32(0.0)
            for s in sums:
                result, comp = _kahan(result, comp, s)
        if reduction == "mean":
            result = F32(result / F32(total))
    out = np.array([result], F32)
    with np.errstate(over="ignore"):
        return out if dtype == "float" else out.astype(predict.dtype)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        p = rng.standard_normal(size).astype(np.float32) * 2
        lab = rng.standard_normal(size).astype(np.float32)
        return {"predict": p.astype(_NP[dtype]), "label": lab.astype(_NP[dtype])}
    return make_inputs


def _run(reduction, sigma):
    def run(device, inputs):
        return {"loss": run_smooth_l1_loss_v2(device, inputs["predict"], inputs["label"], sigma, reduction)}
    return run


def _expected(reduction, sigma):
    def expected(device, inputs):
        return {"loss": smooth_l1_loss_v2_model(device, inputs["predict"], inputs["label"], sigma, reduction)}
    return expected


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/loss/smooth_l1_loss_v2/op_kernel/smooth_l1_loss_v2.h"
KERNELS = [
    KernelSpec(name, description, _make_inputs(dtype), _run(reduction, sigma), _expected(reduction, sigma),
               default_size=size, devices=DEVICES, source=_SOURCE)
    for name, dtype, reduction, sigma, size, description in (
        ("smooth_l1_loss_v2", "float", "mean", 1.0, 60001,
         "SmoothL1LossV2 mean over floats (Sub, Abs, Mins, Sub, Mul, Muls, Add; halving Adds a tile, scalar Kahan "
         "sums; per-core sums through a GM workspace, SyncAll, core 0 sums; even split from unaligned GM starts)"),
        ("smooth_l1_loss_v2_sum_half", "half", "sum", 0.5, 30001,
         "SmoothL1LossV2 sum over halves (Cast CAST_NONE in; the sum cast to half by the scalar unit)"),
        ("smooth_l1_loss_v2_none_bf16", "bfloat16", "none", 2.0, 20001,
         "SmoothL1LossV2 none over bfloat16 (Cast CAST_NONE in, CAST_RINT out; DataCopyPad of unaligned core shares)"),
        ("smooth_l1_loss_v2_none", "float", "none", 1.0, 10003,
         "SmoothL1LossV2 none over floats (the float copies UB -> UB by DataCopy and a SetValue tail)"))
]
