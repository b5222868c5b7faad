"""SoftMarginLoss from the CANN NN operators: loss = max(0, -t x) + ln(1 + e^-|t x|) element by element
(reduction "none") or its mean or sum, over float and half (computed in float).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/loss/soft_margin_loss/op_kernel/
soft_margin_loss.h (`ComputeLossCore`: Mul t x, Muls -1, Abs, Muls -1, Exp, Adds 1, the advanced API's Log, Maxs 0,
Add, with no vector barriers; `SoftMarginLossNone<T>`: depth-2 queues, one tile after another by DataCopyPad with
the older DataCopyParams and a brace-list DataCopyPadParams, half through two CAST_NONE Casts into float TBufs (the
core's buffers aliased as the original's comments work out) and a CAST_ROUND back; `SoftMarginLossReduce<T>`: the
same per tile into a float TBuf, ReduceSum<float> of the tile in place (dst = src), the scalar unit adding its
GetValue(0) into a float; one core: the mean's multiply by invNumel, SetValue of the float (or, for half, of the
static_cast<half> value into the buffer ReinterpretCast to half) and a 32-byte DataCopyPad into the one-element output;
several cores: a GM workspace slot per core, SyncAll and core 0 adding the slots) and soft_margin_loss.cpp
(REGISTER_TILING_DEFAULT, GET_TILING_DATA_WITH_STRUCT, the four SML_TPL_SCH_MODE instantiations), with the host
tiling of experimental/loss/soft_margin_loss/op_host/soft_margin_loss_tiling.cpp (`SoftMarginLossTilingFunc`: none
spreads ceil(total / coreNum) elements a core; mean and sum run on one core; the UB in 8 / 9 (float none / reduce) or
6 / 7 (half) float-sized parts, rounded down to 32 elements, the none tilings filling the A2's UB to the byte).
The advanced API's Log is written out beside the kernel as kernels/kl_div.py has it (log_common_impl.h, arch 2201:
Ln in counter mode).

Deviations (also in docs/decisions.md "Kernel gallery"): the reduce path reads the ReduceSum result with GetValue
with no V -> S ordering, and copies out what SetValue stored with no S -> MTE3 ordering (the sanitizer's RAW race
reports, tested without the deviation); the port adds FetchEventID'd flag pairs there. It reduces each tile in
place, ReduceSum(lossLocal, lossLocal, reduceTmp, n), as written (the count form's full overlap, docs/decisions.md
"Reductions in place"), and reads the sum from lossLocal. Its one-element
output's GlobalTensor window is widened to the 32-byte copy-out that writes it, whose 28 (30) bytes past the sum
the original copies from UB nothing wrote (the sanitizer's uninitialised read): the port zeroes them by SetValue
first. The original's half "none" path calls ComputeLossCore twice, the second time on the first call's results
(its comments work out the second call's aliasing and leave the first in place), which gives
max(0, -L x) + ln(1 + e^-|L x|) with L = ln(1 + e^-|t x|) instead of the loss (the emulator reproduces that value
with ORIGINAL_HALF_NONE_SEQUENCE = True); the port makes the second call only. The core count is the
launch's 8 (GetCoreNumAiv would give the device's). GM is padded to 32 bytes, as device allocations are: the
reduce path's 32-byte copy-out writes 8 floats (16 halves) past the one-element output.

Devices: DataCopyPad runs on the 950, A3, A2 and 310B; the advanced API's Memory-API Log is compiled for the A2/A3
(and the 310P), while the 950 builds it from a Reg-API VF whose Ln the emulator's Reg API does not offer (SPEC-2 11):
the kernel runs on the A3 and A2, the operator's own config (ascend910b).

Fidelity: MODELLED (Exp and Ln are MODELLED, SPEC-2 0.3). Against the float64 formula on self uniform in [-4, 4]
and targets +-1: each element rounds 1 + e^-|t x| to float (at most 6e-8 absolute; |t x| <= 4 keeps ln of it above
0.018: 4e-6 relative) and takes a few other float roundings: 1e-5; the float mean adds ReduceSum's tree and the
scalar additions over positive terms: 1e-5; half outputs add one rounding to half (2**-11): 1e-3.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
CORE_NUM = 8
BUFFER_NUM_FP32_NONE, BUFFER_NUM_FP32_REDUCE = 8, 9
BUFFER_NUM_FP16_NONE, BUFFER_NUM_FP16_REDUCE = 6, 7
UB_BLOCK_SIZE = 32                  # GetUbBlockSize: the element count is floored to a multiple of it
REDUCE_NONE, REDUCE_MEAN, REDUCE_SUM = 0, 1, 2
SML_TPL_SCH_MODE_0, SML_TPL_SCH_MODE_1, SML_TPL_SCH_MODE_2, SML_TPL_SCH_MODE_3 = 0, 1, 2, 3
DEVICES = ("atlas-a3", "atlas-a2")
ORIGINAL_HALF_NONE_SEQUENCE = False   # True: both ComputeLossCore calls of the original's half "none" path (docstring)
TYPE_SIZE = {"float": 4, "half": 2}
_NP = {"float": np.float32, "half": np.float16}

SoftMarginLossTilingData = np.dtype([("totalNum", np.int64), ("blockFactor", np.int64), ("ubFactor", np.int64),
                                     ("reductionMode", np.int32), ("invNumel", np.float32),
                                     ("usedCoreNum", np.int64)], align=True)


def tiling(device, total, dtype, reduction):
    """SoftMarginLossTilingFunc: (block dim, tiling key, the packed tiling data, user workspace bytes)."""
    core_num = CORE_NUM
    t = np.zeros(1, SoftMarginLossTilingData)
    t["totalNum"] = total
    is_reduce = reduction != REDUCE_NONE
    if is_reduce:
        block_factor, used = total, 1
    else:
        block_factor = -(-total // core_num)
        used = -(-total // block_factor)
    t["blockFactor"], t["usedCoreNum"], t["reductionMode"] = block_factor, used, reduction
    t["invNumel"] = np.float32(1.0) / np.float32(total) if reduction == REDUCE_MEAN else 0.0
    ub_floats = aj.get_device(device).ub_bytes // 4
    parts = {("float", False): BUFFER_NUM_FP32_NONE, ("float", True): BUFFER_NUM_FP32_REDUCE,
             ("half", False): BUFFER_NUM_FP16_NONE, ("half", True): BUFFER_NUM_FP16_REDUCE}[dtype, is_reduce]
    t["ubFactor"] = ub_floats // parts // UB_BLOCK_SIZE * UB_BLOCK_SIZE
    key = (SML_TPL_SCH_MODE_0 if dtype == "float" else SML_TPL_SCH_MODE_2) + (1 if is_reduce else 0)
    return used, key, t.view(np.uint8).copy(), (used * 32 if is_reduce else 0)


def Log(dst, src, cal_count):
    """The advanced API's `Log<T>(dst, src, calCount)` (log_common_impl.h, arch 2201): Ln in counter mode."""
    aj.SetMaskCount()
    aj.SetVectorMask(0, cal_count, dtype=dst.dtype.name, mode=aj.MaskMode.COUNTER)
    aj.Ln(dst, src, aj.MASK_PLACEHOLDER, 1, aj.UnaryRepeatParams(), is_set_mask=False)
    aj.SetMaskNorm()
    aj.SetVectorMask(2 ** 64 - 1, 2 ** 64 - 1, dtype="half")       # FULL_MASK, FULL_MASK


def ComputeLossCore(outputF32, txLocal, negTxLocal, selfF32, targetF32, currentNum):
    """The nine steps: L = max(0, -t x) + log(1 + exp(-|t x|)) (the operands may alias, as the half path passes)."""
    aj.Mul(txLocal, targetF32, selfF32, currentNum)
    aj.Muls(negTxLocal, txLocal, np.float32(-1.0), currentNum)
    aj.Abs(txLocal, txLocal, currentNum)
    aj.Muls(txLocal, txLocal, np.float32(-1.0), currentNum)
    aj.Exp(txLocal, txLocal, currentNum)
    aj.Adds(txLocal, txLocal, np.float32(1.0), currentNum)
    Log(txLocal, txLocal, currentNum)
    aj.Maxs(negTxLocal, negTxLocal, np.float32(0.0), currentNum)
    aj.Add(outputF32, negTxLocal, txLocal, currentNum)


def _copy_params(currentNum, size):
    copyParams = aj.DataCopyParams()
    copyParams.blockCount = 1
    copyParams.blockLen = currentNum * size
    copyParams.srcStride = 0
    copyParams.dstStride = 0
    return copyParams


class SoftMarginLossNone:
    def __init__(self, T):
        self.T = T

    def Init(self, selfGm, targetGm, outputGm, tilingData):
        remainderLength = int(tilingData.totalNum) - int(tilingData.blockFactor) * aj.GetBlockIdx()
        self.blockLength_ = max(0, min(remainderLength, int(tilingData.blockFactor)))
        self.ubLength_ = int(tilingData.ubFactor)
        if self.blockLength_ <= 0 or self.ubLength_ <= 0:
            return
        coreOffset = int(tilingData.blockFactor) * aj.GetBlockIdx()
        self.selfGM, self.targetGM, self.outputGM = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.selfGM.SetGlobalBuffer(selfGm[coreOffset:], self.blockLength_)
        self.targetGM.SetGlobalBuffer(targetGm[coreOffset:], self.blockLength_)
        self.outputGM.SetGlobalBuffer(outputGm[coreOffset:], self.blockLength_)
        size = TYPE_SIZE[self.T]
        self.pipe = aj.TPipe()
        self.selfQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.targetQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outputQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.tmpBuf1, self.tmpBuf2, self.castBuf = (aj.TBuf(aj.QuePosition.VECCALC) for _ in range(3))
        self.pipe.InitBuffer(self.selfQueue, BUFFER_NUM, self.ubLength_ * size)
        self.pipe.InitBuffer(self.targetQueue, BUFFER_NUM, self.ubLength_ * size)
        self.pipe.InitBuffer(self.outputQueue, BUFFER_NUM, self.ubLength_ * size)
        self.pipe.InitBuffer(self.tmpBuf1, self.ubLength_ * 4)
        self.pipe.InitBuffer(self.tmpBuf2, self.ubLength_ * 4)
        if self.T == "half":
            self.pipe.InitBuffer(self.castBuf, self.ubLength_ * 4)

    def CopyIn(self, progress, currentNum):
        selfLocal = self.selfQueue.AllocTensor(self.T)
        copyParams = _copy_params(currentNum, TYPE_SIZE[self.T])
        aj.DataCopyPad(selfLocal, self.selfGM[progress * self.ubLength_], copyParams, (False, 0, 0, 0))
        self.selfQueue.EnQue(selfLocal)
        targetLocal = self.targetQueue.AllocTensor(self.T)
        aj.DataCopyPad(targetLocal, self.targetGM[progress * self.ubLength_], copyParams, (False, 0, 0, 0))
        self.targetQueue.EnQue(targetLocal)

    def Compute(self, currentNum):
        selfLocal = self.selfQueue.DeQue(self.T)
        targetLocal = self.targetQueue.DeQue(self.T)
        outputLocal = self.outputQueue.AllocTensor(self.T)
        txLocal, negTxLocal = self.tmpBuf1.Get("float"), self.tmpBuf2.Get("float")
        if self.T == "float":
            ComputeLossCore(outputLocal, txLocal, negTxLocal, selfLocal, targetLocal, currentNum)
        else:
            castLocal = self.castBuf.Get("float")
            aj.Cast(castLocal, selfLocal, aj.RoundMode.CAST_NONE, currentNum)
            aj.Cast(txLocal, targetLocal, aj.RoundMode.CAST_NONE, currentNum)
            if ORIGINAL_HALF_NONE_SEQUENCE:          # the original's first call, left in before the one it settles on
                ComputeLossCore(negTxLocal, txLocal, negTxLocal, castLocal, txLocal, currentNum)
            ComputeLossCore(negTxLocal, txLocal, castLocal, castLocal, txLocal, currentNum)
            aj.Cast(outputLocal, negTxLocal, aj.RoundMode.CAST_ROUND, currentNum)
        self.outputQueue.EnQue(self.T, outputLocal)
        self.selfQueue.FreeTensor(selfLocal)
        self.targetQueue.FreeTensor(targetLocal)

    def CopyOut(self, progress, currentNum):
        outputLocal = self.outputQueue.DeQue(self.T)
        aj.DataCopyPad(self.outputGM[progress * self.ubLength_], outputLocal, _copy_params(currentNum,
                                                                                           TYPE_SIZE[self.T]))
        self.outputQueue.FreeTensor(outputLocal)

    def Process(self):
        if self.blockLength_ <= 0 or self.ubLength_ <= 0:
            return
        loopCount = (self.blockLength_ + self.ubLength_ - 1) // self.ubLength_
        for i in range(loopCount):
            currentNum = self.blockLength_ - self.ubLength_ * i if i == loopCount - 1 else self.ubLength_
            self.CopyIn(i, currentNum)
            self.Compute(currentNum)
            self.CopyOut(i, currentNum)


def _flag_pair(event):
    """Deviation (module docstring): a SetFlag/WaitFlag pair on an event id the pipe hands out."""
    event_id = aj.GetTPipePtr().FetchEventID(event)
    aj.SetFlag(event_id, event=event)
    aj.WaitFlag(event_id, event=event)


class SoftMarginLossReduce:
    def __init__(self, T):
        self.T = T

    def Init(self, selfGm, targetGm, outputGm, workspaceGm, tilingData):
        remainderLength = int(tilingData.totalNum) - int(tilingData.blockFactor) * aj.GetBlockIdx()
        self.blockLength_ = max(0, min(remainderLength, int(tilingData.blockFactor)))
        self.ubLength_ = int(tilingData.ubFactor)
        self.reductionMode_ = int(tilingData.reductionMode)
        self.invNumel_ = np.float32(tilingData.invNumel)
        self.usedCoreNum_ = int(tilingData.usedCoreNum)
        coreOffset = int(tilingData.blockFactor) * aj.GetBlockIdx()
        self.selfGM, self.targetGM, self.outputGM = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.workspaceGM = aj.GlobalTensor()
        self.selfGM.SetGlobalBuffer(selfGm[coreOffset:], self.blockLength_ if self.blockLength_ > 0 else 1)
        self.targetGM.SetGlobalBuffer(targetGm[coreOffset:], self.blockLength_ if self.blockLength_ > 0 else 1)
        # deviation: the original's window is one element, its 32-byte copy-out writes past it (docs/decisions.md
        # "Scaffolding": a copy past a GlobalTensor's window is refused); the window is widened to the copy
        self.outputGM.SetGlobalBuffer(outputGm, 32 // TYPE_SIZE[self.T])
        self.workspaceGM.SetGlobalBuffer(workspaceGm.view(np.float32), self.usedCoreNum_ * 8)
        size = TYPE_SIZE[self.T]
        self.pipe = aj.TPipe()
        self.selfQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.targetQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        (self.tmpBuf1, self.tmpBuf2, self.tmpBuf3, self.castBuf, self.reduceTmpBuf,
         self.resultBuf) = (aj.TBuf(aj.QuePosition.VECCALC) for _ in range(6))
        if self.ubLength_ > 0:
            self.pipe.InitBuffer(self.selfQueue, BUFFER_NUM, self.ubLength_ * size)
            self.pipe.InitBuffer(self.targetQueue, BUFFER_NUM, self.ubLength_ * size)
            self.pipe.InitBuffer(self.tmpBuf1, self.ubLength_ * 4)
            self.pipe.InitBuffer(self.tmpBuf2, self.ubLength_ * 4)
            self.pipe.InitBuffer(self.tmpBuf3, self.ubLength_ * 4)
            self.pipe.InitBuffer(self.reduceTmpBuf, self.ubLength_ * 4)
            if self.T == "half":
                self.pipe.InitBuffer(self.castBuf, self.ubLength_ * 4)
        resultBufSize = max(32, (self.usedCoreNum_ * 4 + 31) & ~31)
        self.pipe.InitBuffer(self.resultBuf, resultBufSize)

    def CopyIn(self, progress, currentNum):
        selfLocal = self.selfQueue.AllocTensor(self.T)
        copyParams = _copy_params(currentNum, TYPE_SIZE[self.T])
        aj.DataCopyPad(selfLocal, self.selfGM[progress * self.ubLength_], copyParams, (False, 0, 0, 0))
        self.selfQueue.EnQue(selfLocal)
        targetLocal = self.targetQueue.AllocTensor(self.T)
        aj.DataCopyPad(targetLocal, self.targetGM[progress * self.ubLength_], copyParams, (False, 0, 0, 0))
        self.targetQueue.EnQue(targetLocal)

    def ComputeAndReduce(self, currentNum, localSum):
        selfLocal = self.selfQueue.DeQue(self.T)
        targetLocal = self.targetQueue.DeQue(self.T)
        txLocal, negTxLocal = self.tmpBuf1.Get("float"), self.tmpBuf2.Get("float")
        lossLocal, reduceTmp = self.tmpBuf3.Get("float"), self.reduceTmpBuf.Get("float")
        if self.T == "float":
            ComputeLossCore(lossLocal, txLocal, negTxLocal, selfLocal, targetLocal, currentNum)
        else:
            castLocal = self.castBuf.Get("float")
            aj.Cast(castLocal, selfLocal, aj.RoundMode.CAST_NONE, currentNum)
            aj.Cast(txLocal, targetLocal, aj.RoundMode.CAST_NONE, currentNum)
            ComputeLossCore(lossLocal, txLocal, castLocal, castLocal, txLocal, currentNum)
        aj.ReduceSum(lossLocal, lossLocal, reduceTmp, currentNum)
        _flag_pair(aj.HardEvent.V_S)                             # deviation: V -> S before GetValue
        localSum = np.float32(localSum + lossLocal.GetValue(0))
        _flag_pair(aj.HardEvent.S_V)                             # deviation: the next tile's vector writes after it
        self.selfQueue.FreeTensor(selfLocal)
        self.targetQueue.FreeTensor(targetLocal)
        return localSum

    def WritePartialSum(self, localSum):
        resultLocal = self.resultBuf.Get("float")
        resultLocal.SetValue(0, localSum)
        _flag_pair(aj.HardEvent.S_MTE3)                          # deviation: S -> MTE3 before the copy-out
        aj.DataCopyPad(self.workspaceGM[aj.GetBlockIdx() * 8], resultLocal, aj.DataCopyParams(1, 32, 0, 0))

    def WriteFinalScalar(self, value):
        resultLocal = self.resultBuf.Get("float")
        for i in range(8):                                      # deviation: the 32-byte copy-out's other bytes
            resultLocal.SetValue(i, np.float32(0.0))            # are zeroed (the original copies stale UB out)
        if self.T == "float":
            resultLocal.SetValue(0, value)
        else:
            halfResult = resultLocal.ReinterpretCast("half")
            halfResult.SetValue(0, np.float16(value))           # static_cast<half>: one RNE rounding
        outParams = aj.DataCopyParams()
        outParams.blockCount, outParams.blockLen, outParams.srcStride, outParams.dstStride = 1, 32, 0, 0
        _flag_pair(aj.HardEvent.S_MTE3)                          # deviation: S -> MTE3 before the copy-out
        if self.T == "float":
            aj.DataCopyPad(self.outputGM[0], resultLocal, outParams)
        else:
            aj.DataCopyPad(self.outputGM[0], resultLocal.ReinterpretCast("half"), outParams)

    def CrossCoreReduce(self):
        if aj.GetBlockIdx() != 0:
            return
        resultLocal = self.resultBuf.Get("float")
        globalSum = np.float32(0.0)
        for i in range(self.usedCoreNum_):
            aj.DataCopyPad(resultLocal, self.workspaceGM[i * 8], aj.DataCopyParams(1, 32, 0, 0), (False, 0, 0, 0))
            aj.PipeBarrier(aj.PIPE_ALL)
            globalSum = np.float32(globalSum + resultLocal.GetValue(0))
        if self.reductionMode_ == REDUCE_MEAN:
            globalSum = np.float32(globalSum * self.invNumel_)
        self.WriteFinalScalar(globalSum)

    def Process(self):
        localSum = np.float32(0.0)
        if self.blockLength_ > 0 and self.ubLength_ > 0:
            loopCount = (self.blockLength_ + self.ubLength_ - 1) // self.ubLength_
            for i in range(loopCount):
                currentNum = self.blockLength_ - self.ubLength_ * i if i == loopCount - 1 else self.ubLength_
                self.CopyIn(i, currentNum)
                localSum = self.ComputeAndReduce(currentNum, localSum)
        if self.usedCoreNum_ == 1:
            if self.reductionMode_ == REDUCE_MEAN:
                localSum = np.float32(localSum * self.invNumel_)
            self.WriteFinalScalar(localSum)
        else:
            self.WritePartialSum(localSum)
            aj.SyncAll()
            self.CrossCoreReduce()


aj.REGISTER_TILING_DEFAULT(SoftMarginLossTilingData)


def soft_margin_loss(selfInput, targetInput, output, workspace, tiling, schMode):
    """The kernel entry: schMode (the tiling key) picks one of the four instantiations."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(SoftMarginLossTilingData, tiling)
    if schMode == SML_TPL_SCH_MODE_0:
        op = SoftMarginLossNone("float")
        op.Init(selfInput, targetInput, output, tilingData)
    elif schMode == SML_TPL_SCH_MODE_1:
        op = SoftMarginLossReduce("float")
        op.Init(selfInput, targetInput, output, workspace, tilingData)
    elif schMode == SML_TPL_SCH_MODE_2:
        op = SoftMarginLossNone("half")
        op.Init(selfInput, targetInput, output, tilingData)
    else:
        op = SoftMarginLossReduce("half")
        op.Init(selfInput, targetInput, output, workspace, tilingData)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-4, 4, size).astype(np.float32)
        t = np.where(rng.random(size) < 0.5, -1.0, 1.0).astype(np.float32)
        return {"self": x.astype(_NP[dtype]), "target": t.astype(_NP[dtype])}
    return make_inputs


def _run(dtype, reduction):
    def run(device, inputs):
        x = inputs["self"]
        padded = -(-x.size * x.itemsize // 32) * 32 // x.itemsize
        gm = {}
        for key in ("self", "target"):
            gm[key] = np.zeros(padded, x.dtype)
            gm[key][:x.size] = inputs[key]
        out = np.zeros(padded if reduction == REDUCE_NONE else 32 // x.itemsize, x.dtype)
        block_dim, key, tiling_bytes, ws_bytes = tiling(device, x.size, dtype, reduction)
        workspace = np.zeros(max(ws_bytes, 32), np.uint8)
        aj.launch(soft_margin_loss, block_dim, device, gm["self"], gm["target"], out, workspace, tiling_bytes, key)
        return {"loss": out[:x.size] if reduction == REDUCE_NONE else out[:1]}
    return run


def _expected(reduction):
    def expected(device, inputs):
        tx = np.asarray(inputs["target"], np.float64) * np.asarray(inputs["self"], np.float64)
        loss = np.maximum(-tx, 0.0) + np.log1p(np.exp(-np.abs(tx)))
        if reduction == REDUCE_NONE:
            return {"loss": loss}
        return {"loss": np.array([loss.sum() / (loss.size if reduction == REDUCE_MEAN else 1)])}
    return expected


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/loss/soft_margin_loss/op_kernel/soft_margin_loss.h"
KERNELS = [
    KernelSpec("soft_margin_loss", "SoftMarginLoss without reduction over floats: 8 cores of ceil(n / 8), "
               "DataCopyPad with DataCopyParams, Mul/Muls/Abs/Exp/Adds/the advanced API's Log/Maxs/Add, "
               "UB-filling tiles", _make_inputs("float"), _run("float", REDUCE_NONE), _expected(REDUCE_NONE),
               default_size=50000, devices=DEVICES, tolerance=1e-5, source=_SOURCE),
    KernelSpec("soft_margin_loss_mean", "SoftMarginLoss mean over floats on one core: ReduceSum of each tile in "
               "place, GetValue sums, a 32-byte DataCopyPad into the one-element output",
               _make_inputs("float"), _run("float", REDUCE_MEAN), _expected(REDUCE_MEAN), default_size=30000,
               devices=DEVICES, tolerance=1e-5, source=_SOURCE),
    KernelSpec("soft_margin_loss_half", "SoftMarginLoss without reduction over halves computed in float (the "
               "original's two aliased ComputeLossCore calls, Cast CAST_ROUND out)", _make_inputs("half"),
               _run("half", REDUCE_NONE), _expected(REDUCE_NONE), default_size=50000, devices=DEVICES,
               tolerance=1e-3, source=_SOURCE),
    KernelSpec("soft_margin_loss_sum_half", "SoftMarginLoss sum over halves (float tiles, one static_cast<half> "
               "stored through a ReinterpretCast view)", _make_inputs("half"), _run("half", REDUCE_SUM),
               _expected(REDUCE_SUM), default_size=20000, devices=DEVICES, tolerance=1e-3, source=_SOURCE,
               size_rule="1 to 60000 elements (the sum of about 1.06 an element stays below 65504)",
               size_ok=lambda n: 0 < n <= 60000),
]
