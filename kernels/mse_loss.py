"""MseLoss from the CANN NN operators: (predict - label)**2 element by element (reduction "none"), or its sum or mean
as one value, over float, half and bfloat16 (the 16-bit types computed in float).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-nn @ 37f6f43a8fccd9e1fcef2ddda82dc527465d6896, experimental/loss/mse_loss/op_kernel/mse_loss.h
(`NsMseLoss::MseLoss<T>`: double-buffered queues; each tile copied in by DataCopyPad with DataCopyExtParams and
`DataCopyPadExtParams<T>{true, 0, rightPadding, 0}` (the block's tail padded with zeros); "none": Sub, Mul (16-bit
types: Cast CAST_NONE to float first and CAST_RINT back), DataCopyPad out of the exact bytes; "sum"/"mean": per tile
Sub, Mul and a count-form `ReduceSum<float>(t, t, t, n)` with dst, src and the work buffer the same tensor, then
`Add(partial, partial, t, 1)` into a per-core partial of one DataBlock Duplicated to 0; one core: Muls by meanScale
(mean) and the result written by `Adds(out, partial, 0.0f, 1)` (float) or Cast CAST_RINT (16-bit) and a DataCopyPad
of one element; several cores: PipeBarrier<PIPE_ALL>, each core's DataBlock DataCopy'd to its slot of a float GM
workspace, SyncAll, and core 0 copies the slots back (a depth-1 queue), ReduceSums them, scales and writes) with the
host tiling of experimental/loss/mse_loss/op_host/mse_loss_tiling.cpp (`MseLossTilingFunc`: tiles of (UB - 16 KB)
over 28 bytes per element (float) or 24 (16-bit), rounded down to 64 and at most 64 * 255; a "sum"/"mean" input of at
most one UB tile runs on one core, else ceil(total / cores) rounded up to a DataBlock per core;
workspaceFloatsPerCore = 8; meanScale = 1.0f / total).

Deviations (also in docs/decisions.md "Kernel gallery"): `ReduceSum<float>(t, t, t, n)` also uses src as its work
buffer; the A2 and A3 write no work entries and run it (decisions.md "Reductions in place", since session 36), but
the 950's work entries past four repeats would overwrite the squares being summed, which the emulator refuses
(OverlapError); the port reduces into a 1 KB TBuf taken from the 16 KB the tiling reserves, as both dst and work
buffer (an allowed overlap), and adds or scales from there (the same values on every device). The core count is
the launch's 8 (GetCoreNumAiv would give the device's); the workspace is its used
part (the tiling adds 16 MB for the tools) and a host float array; GM is padded to 32 bytes, as device allocations
are.

Devices: DataCopyPad decides: the 950, A3, A2 and 310B (not the 310P and 910); the reductions over several cores
also need the hard SyncAll (not the 310B), so mse_loss and mse_loss_sum_half (whose tail size runs on 8 cores) are
offered on the 950, A3 and A2. The half sum's inputs are N(0, 0.25) so the sum stays below half's 65504.

Fidelity: BIT-EXACT (Sub, Mul, Cast, ReduceSum, Add, Muls, Adds, DataCopyPad are BIT-EXACT, SPEC-2 0.3; ReduceSum's
summation order is the device's tree, `aj.explain_reduce_order`): checked bit for bit against the same float
operations composed from the package's reference model and the device's reduction trees.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
ALIGN_ELEM = 64
MAX_UB_FACTOR = ALIGN_ELEM * 255
RESERVED_UB_SIZE = 16 * 1024
UB_BLOCK_BYTES = 32
CORE_NUM = 8
FLOAT_256B_ALIGN_ELEM = 64
REDUCE_BUF_BYTES = MAX_UB_FACTOR // 64 * 4 + 4      # ReduceSum's work entries for a full tile, rounded to 32 B
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
SYNC_ALL_DEVICES = ("ascend950", "atlas-a3", "atlas-a2")     # the hard SyncAll of the multi-core reductions
REDUCTIONS = {"none": 0, "sum": 1, "mean": 2}
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}


def _ub_factor(device, dtype, total):
    """CalcUbFactor."""
    available = aj.get_device(device).ub_bytes - RESERVED_UB_SIZE
    per_element = 7 * 4 if dtype == "float" else 3 * 2 * 2 + 3 * 4
    factor = min(max(available // per_element // ALIGN_ELEM * ALIGN_ELEM, ALIGN_ELEM), MAX_UB_FACTOR)
    if 0 < total < factor:
        factor = -(-total // ALIGN_ELEM) * ALIGN_ELEM
    return factor


def tiling(device, total, dtype, reduction):
    """MseLossTilingFunc: (blockNum, tiling data)."""
    block_num, reduction = 1, REDUCTIONS[reduction]
    if reduction != 0 and total <= _ub_factor(device, dtype, 2**62):
        block_factor = total
    else:
        align = UB_BLOCK_BYTES // TYPE_SIZE[dtype]
        block_factor = -(-(-(-total // CORE_NUM)) // align) * align
        block_num = -(-total // block_factor)
    return block_num, dict(totalNum=total, blockFactor=block_factor, ubFactor=_ub_factor(device, dtype, total),
                           reduction=reduction, blockNum=block_num, workspaceFloatsPerCore=UB_BLOCK_BYTES // 4,
                           meanScale=np.float32(1.0) / np.float32(total))


class MseLoss:
    def __init__(self, dtype):
        self.IO_T = dtype
        self.NEED_UPCAST = dtype != "float"

    def Init(self, predict, label, y, workspace, tilingData):
        remainderLength = tilingData["totalNum"] - tilingData["blockFactor"] * aj.GetBlockIdx()
        self.blockLength_ = max(0, min(remainderLength, tilingData["blockFactor"]))
        self.ubLength_ = max(tilingData["ubFactor"], FLOAT_256B_ALIGN_ELEM)
        self.reduction_ = tilingData["reduction"]
        self.blockNum_ = tilingData["blockNum"]
        self.workspaceFloatsPerCore_ = tilingData["workspaceFloatsPerCore"]
        self.meanScale_ = tilingData["meanScale"]
        offset = tilingData["blockFactor"] * aj.GetBlockIdx()
        self.predictGM, self.labelGM, self.outputGM = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.workspaceGM = aj.GlobalTensor()
        self.predictGM.SetGlobalBuffer(predict[offset:], self.blockLength_)
        self.labelGM.SetGlobalBuffer(label[offset:], self.blockLength_)
        if self.reduction_ == 0:
            self.outputGM.SetGlobalBuffer(y[offset:], self.blockLength_)
        else:
            self.outputGM.SetGlobalBuffer(y, 1)
            self.workspaceGM.SetGlobalBuffer(workspace, self.blockNum_ * self.workspaceFloatsPerCore_)
        size = TYPE_SIZE[self.IO_T]
        self.pipe = aj.TPipe()
        self.predictQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.labelQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outputQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.downloadQueue = aj.TQue(aj.QuePosition.VECIN, 1)
        self.predictFloatBuf, self.labelFloatBuf, self.tmpFloatBuf, self.partialFloatBuf, self.reduceBuf = (
            aj.TBuf(aj.QuePosition.VECCALC) for _ in range(5))
        self.pipe.InitBuffer(self.predictQueue, BUFFER_NUM, self.ubLength_ * size)
        self.pipe.InitBuffer(self.labelQueue, BUFFER_NUM, self.ubLength_ * size)
        self.pipe.InitBuffer(self.outputQueue, BUFFER_NUM, self.ubLength_ * size)
        self.pipe.InitBuffer(self.downloadQueue, 1, self.blockNum_ * self.workspaceFloatsPerCore_ * 4)
        self.pipe.InitBuffer(self.tmpFloatBuf, self.ubLength_ * 4)
        self.pipe.InitBuffer(self.partialFloatBuf, self.workspaceFloatsPerCore_ * 4)
        self.pipe.InitBuffer(self.reduceBuf, REDUCE_BUF_BYTES)       # deviation: ReduceSum's own dst (docstring)
        if self.NEED_UPCAST:
            self.pipe.InitBuffer(self.predictFloatBuf, self.ubLength_ * 4)
            self.pipe.InitBuffer(self.labelFloatBuf, self.ubLength_ * 4)

    def CopyIn(self, progress, currentNum):
        T = self.IO_T
        predictLocal = self.predictQueue.AllocTensor(T)
        labelLocal = self.labelQueue.AllocTensor(T)
        ioAlignElem = UB_BLOCK_BYTES // TYPE_SIZE[T]
        copyAlignedNum = (currentNum + ioAlignElem - 1) // ioAlignElem * ioAlignElem
        rightPadding = copyAlignedNum - currentNum
        copyParams = aj.DataCopyExtParams(1, currentNum * TYPE_SIZE[T], 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(True, 0, rightPadding, 0)
        aj.DataCopyPad(predictLocal, self.predictGM[progress * self.ubLength_], copyParams, padParams)
        aj.DataCopyPad(labelLocal, self.labelGM[progress * self.ubLength_], copyParams, padParams)
        self.predictQueue.EnQue(predictLocal)
        self.labelQueue.EnQue(labelLocal)

    def ComputeNone(self, currentNum):
        T = self.IO_T
        predictLocal = self.predictQueue.DeQue(T)
        labelLocal = self.labelQueue.DeQue(T)
        outputLocal = self.outputQueue.AllocTensor(T)
        if self.NEED_UPCAST:
            predictFloat, labelFloat = self.predictFloatBuf.Get("float"), self.labelFloatBuf.Get("float")
            aj.Cast(predictFloat, predictLocal, aj.RoundMode.CAST_NONE, currentNum)
            aj.Cast(labelFloat, labelLocal, aj.RoundMode.CAST_NONE, currentNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Sub(predictFloat, predictFloat, labelFloat, currentNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Mul(labelFloat, predictFloat, predictFloat, currentNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Cast(outputLocal, labelFloat, aj.RoundMode.CAST_RINT, currentNum)
        else:
            tmpFloat = self.tmpFloatBuf.Get("float")
            aj.Sub(tmpFloat, predictLocal, labelLocal, currentNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Mul(outputLocal, tmpFloat, tmpFloat, currentNum)
        self.outputQueue.EnQue(T, outputLocal)
        self.predictQueue.FreeTensor(predictLocal)
        self.labelQueue.FreeTensor(labelLocal)

    def Accumulate(self, currentNum, partialLocal):
        T = self.IO_T
        predictLocal = self.predictQueue.DeQue(T)
        labelLocal = self.labelQueue.DeQue(T)
        tmpFloat = self.tmpFloatBuf.Get("float")
        if self.NEED_UPCAST:
            predictFloat, labelFloat = self.predictFloatBuf.Get("float"), self.labelFloatBuf.Get("float")
            aj.Cast(predictFloat, predictLocal, aj.RoundMode.CAST_NONE, currentNum)
            aj.Cast(labelFloat, labelLocal, aj.RoundMode.CAST_NONE, currentNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Sub(tmpFloat, predictFloat, labelFloat, currentNum)
        else:
            aj.Sub(tmpFloat, predictLocal, labelLocal, currentNum)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Mul(tmpFloat, tmpFloat, tmpFloat, currentNum)
        aj.PipeBarrier(aj.PIPE_V)
        reduced = self.reduceBuf.Get("float")
        aj.ReduceSum(reduced, tmpFloat, reduced, currentNum)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Add(partialLocal, partialLocal, reduced, 1)
        self.predictQueue.FreeTensor(predictLocal)
        self.labelQueue.FreeTensor(labelLocal)

    def CopyOut(self, progress, currentNum):
        outputLocal = self.outputQueue.DeQue(self.IO_T)
        copyParams = aj.DataCopyExtParams(1, currentNum * TYPE_SIZE[self.IO_T], 0, 0, 0)
        aj.DataCopyPad(self.outputGM[progress * self.ubLength_], outputLocal, copyParams)
        self.outputQueue.FreeTensor(outputLocal)

    def CopyOutReduce(self, partialLocal):
        if self.blockNum_ == 1:
            if self.reduction_ == 2:
                aj.Muls(partialLocal, partialLocal, self.meanScale_, 1)
                aj.PipeBarrier(aj.PIPE_V)
            self.WriteReduceResult(partialLocal)
            return
        aj.PipeBarrier(aj.PIPE_ALL)
        aj.DataCopy(self.workspaceGM[aj.GetBlockIdx() * self.workspaceFloatsPerCore_], partialLocal,
                    self.workspaceFloatsPerCore_)
        aj.PipeBarrier(aj.PIPE_ALL)
        aj.SyncAll()
        if aj.GetBlockIdx() != 0:
            return
        n = self.blockNum_ * self.workspaceFloatsPerCore_
        mergeLocal = self.downloadQueue.AllocTensor("float")
        aj.DataCopy(mergeLocal, self.workspaceGM, n)
        self.downloadQueue.EnQue("float", mergeLocal)
        mergeLocal = self.downloadQueue.DeQue("float")
        reduced = self.reduceBuf.Get("float")
        aj.ReduceSum(reduced, mergeLocal, reduced, n)
        aj.PipeBarrier(aj.PIPE_V)
        if self.reduction_ == 2:
            aj.Muls(reduced, reduced, self.meanScale_, 1)
            aj.PipeBarrier(aj.PIPE_V)
        self.WriteReduceResult(reduced)
        self.downloadQueue.FreeTensor(mergeLocal)

    def WriteReduceResult(self, resultLocal):
        T = self.IO_T
        outLocal = self.outputQueue.AllocTensor(T)
        if self.NEED_UPCAST:
            aj.Cast(outLocal, resultLocal, aj.RoundMode.CAST_RINT, 1)
        else:
            aj.Adds(outLocal, resultLocal, np.float32(0.0), 1)
        self.outputQueue.EnQue(T, outLocal)
        outLocal = self.outputQueue.DeQue(T)
        aj.DataCopyPad(self.outputGM, outLocal, aj.DataCopyExtParams(1, TYPE_SIZE[T], 0, 0, 0))
        self.outputQueue.FreeTensor(outLocal)

    def Process(self):
        if self.reduction_ == 0:
            loopCount = (self.blockLength_ + self.ubLength_ - 1) // self.ubLength_
            for i in range(loopCount):
                currentNum = self.blockLength_ - i * self.ubLength_ if i == loopCount - 1 else self.ubLength_
                self.CopyIn(i, currentNum)
                self.ComputeNone(currentNum)
                self.CopyOut(i, currentNum)
            return
        partialLocal = self.partialFloatBuf.Get("float")
        aj.Duplicate(partialLocal, np.float32(0.0), self.workspaceFloatsPerCore_)
        if self.blockLength_ > 0:
            loopCount = (self.blockLength_ + self.ubLength_ - 1) // self.ubLength_
            for i in range(loopCount):
                currentNum = self.blockLength_ - i * self.ubLength_ if i == loopCount - 1 else self.ubLength_
                self.CopyIn(i, currentNum)
                self.Accumulate(currentNum, partialLocal)
        self.CopyOutReduce(partialLocal)


def mse_loss(predict, label, y, workspace, tiling_data, dtype):
    op = MseLoss(dtype)
    op.Init(predict, label, y, workspace, tiling_data)
    op.Process()


_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _make_inputs(dtype, scale=1.0):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        return {k: (rng.standard_normal(size) * scale).astype(np.float32).astype(_NP[dtype])
                for k in ("predict", "label")}
    return make_inputs


def _run(dtype, reduction):
    def run(device, inputs):
        p = inputs["predict"]
        padded = -(-p.size * p.itemsize // 32) * 32 // p.itemsize
        gm = {}
        for key in ("predict", "label"):
            gm[key] = np.zeros(padded, p.dtype)
            gm[key][:p.size] = inputs[key]
        y = np.zeros(padded if reduction == "none" else 32 // p.itemsize, p.dtype)
        block_num, tiling_data = tiling(device, p.size, dtype, reduction)
        workspace = np.zeros(block_num * tiling_data["workspaceFloatsPerCore"], np.float32)
        aj.launch(mse_loss, block_num, device, gm["predict"], gm["label"], y, workspace, tiling_data, dtype)
        return {"y": y[:p.size] if reduction == "none" else y[:1]}
    return run


def _expected(dtype, reduction):
    def expected(device, inputs):
        """Sub and Mul in float through the reference model; per tile the device's ReduceSum tree, the partial
        added in float; the workspace slots (a partial and 7 zeros each) summed by their own tree; Muls by
        meanScale; the 16-bit narrowing rounds to nearest even."""
        from ascend_jit.reference import elementwise as ref
        core = aj.Core(device)
        env = ref.Env(device, sat_half=core.half_saturating, sat_int=core.int_saturating)
        p, label = inputs["predict"], inputs["label"]
        diff = ref.sub("float", env, np.asarray(p, np.float64), np.asarray(label, np.float64))
        sq = np.asarray(ref.mul("float", env, np.asarray(diff, np.float64), np.asarray(diff, np.float64)), np.float32)
        if reduction == "none":
            return {"y": sq.astype(p.dtype)}
        block_num, t = tiling(device, p.size, dtype, reduction)
        ub = max(t["ubFactor"], FLOAT_256B_ALIGN_ELEM)
        partials = []
        for block in range(block_num):
            chunk = sq[block * t["blockFactor"]:(block + 1) * t["blockFactor"]]
            partial = np.float32(0.0)
            for start in range(0, chunk.size, ub):
                tile = chunk[start:start + ub]
                tree = aj.explain_reduce_order(device, "count", "float", count=tile.size)
                partial = np.float32(partial + np.float32(tree.evaluate_batch(tile[None, :])[0]))
            partials.append(partial)
        total = partials[0]
        if block_num > 1:
            slots = np.zeros((1, block_num * 8), np.float32)
            slots[0, ::8] = partials
            tree = aj.explain_reduce_order(device, "count", "float", count=slots.size)
            total = np.float32(tree.evaluate_batch(slots)[0])
        if reduction == "mean":
            total = np.float32(ref.mul("float", env, np.float64(total), np.float64(t["meanScale"])))
        return {"y": np.array([total], np.float32).astype(p.dtype)}
    return expected


_SOURCE = "hicann/ops-nn@37f6f43a experimental/loss/mse_loss/op_kernel/mse_loss.h"
KERNELS = [
    KernelSpec(f"mse_loss{suffix}", description, _make_inputs(dtype, scale), _run(dtype, reduction),
               _expected(dtype, reduction), default_size=size, devices=devices, source=_SOURCE,
               **({"size_rule": "1 to 120000 elements (the half sum of about 0.5 an element stays below 65504)",
                   "size_ok": lambda n: 0 < n <= 120000} if dtype == "half" else {}))
    for suffix, dtype, reduction, size, scale, devices, description in (
        ("", "float", "mean", 30000, 1.0, SYNC_ALL_DEVICES,
         "MseLoss mean over floats: per-tile ReduceSum into a per-core partial, a GM workspace merged by core 0 after "
         "SyncAll, Muls by 1/n, Adds 0 as the copy; DataCopyPad with rightPadding zeros"),
        ("_sum_half", "half", "sum", 5000, 0.5, SYNC_ALL_DEVICES,
         "MseLoss sum over halves (one core up to a UB tile, else 8: Cast to float, ReduceSum, Cast CAST_RINT of one "
         "element)"),
        ("_none_bf16", "bfloat16", "none", 20000, 1.0, DEVICES,
         "MseLoss without reduction over bfloat16 (Cast to float, Sub, Mul, Cast CAST_RINT; DataCopyPad of "
         "non-32-byte tiles)"))
]
