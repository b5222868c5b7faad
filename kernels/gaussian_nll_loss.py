"""GaussianNllLoss from the CANN NN operators: loss = 0.5 * (ln(max(var, eps)) + (input - target)^2 / max(var, eps))
(+ 0.5 ln(2 pi) when full), returned element by element (reduction "none") or summed ("sum", "mean" = sum / n), over
float, half and bfloat16 (the 16-bit types computed in float); target may broadcast one axis of size 1, var its last
axis (or be a scalar).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/loss/gaussian_nll_loss:
- op_kernel/gaussian_nll_loss.h (`NsGaussianNllLoss::KernelGaussianNllLoss<T, reductionMode>`): the element split of
  the tiling (the first tailBlockNum cores one element more: unaligned per-core GM starts); depth-2 VECIN queues for
  input, target and var and a depth-2 VECOUT queue of tileDataNum elements, float TBufs (result, temporary, and for
  the 16-bit types the three widened inputs); per tile CopyIn by DataCopyPad (DataCopyExtParams {1, n * sizeof(T),
  0, 0, 0}, DataCopyPadExtParams {true, 0, 0, 0}), a broadcast target or var element by element by GM GetValue and
  LocalTensor SetValue; BuildResult: Maxs(var, eps) in place, Sub, Mul, Div, the advanced API's Log, Add, Muls 0.5,
  Adds 0.5 ln(2 pi) when full, PipeBarrier<PIPE_V> between them; "none": Cast CAST_RINT (16-bit) or Adds 0 (float)
  into the output tile and DataCopyPad out; "sum" / "mean": `ReduceSum<float>(result, result, result, n)` (dst, src
  and work tensor one tensor) and a 1-element Add into an 8-float partial sum cleared by Duplicate; one core: Muls by
  1 / n for "mean", a 1-element Cast / Adds, EnQue / DeQue and a 2- or 4-byte DataCopyPad; several cores: PipeBarrier
  <PIPE_ALL>, each core's 8 floats by DataCopy to its GM workspace slot, PipeBarrier<PIPE_ALL>, SyncAll, and core 0
  DataCopies every slot back through a depth-1 VECIN queue, ReduceSum of them in place and writes as one core does;
- op_kernel/gaussian_nll_loss.cpp (the entry: a caller-made TPipe, the reduction mode from the tiling key);
- op_host/gaussian_nll_loss_tiling.cpp (`GaussianNllLossTiling`: bytes a logical element = 4 queues x 2 x sizeof(T)
  + (2 + 3 for the 16-bit types + GetLogTmpBufferFactorSize's maxLiveNodeCount, 0) x 4; tiles of (UB - the
  reductions' 8 + cores x 8 floats) / that, rounded down to a 32-byte block; cores = min(n, cores); the broadcast
  classification; fullConstant 0.9189385f; meanScale 1.0f / n in float32).

The advanced API's Log is ported as kernels/kl_div.py ports it (mirror-cann/asc-devkit @ 82b89a15,
impl/adv_api/detail/math/log/log_common_impl.h: Ln in counter mode), written out here.

Deviations: the core count is the launch's 8 (GetCoreNumAiv), in the tiling's split and its all-core partial
buffer. The workspace is the blockNum x 8 floats the kernel addresses from the workspace's start (the 16 MiB system
part the tiling adds before them is used by no call the kernel makes). A broadcast target or var is written into its
VECIN tile by the scalar unit (SetValue) and ordered before the vector unit's Cast / Maxs of it by the queue's EnQue /
DeQue alone: enough under SPEC-2 10.4's hand-off, but on the device a VECIN queue's event is MTE2_V, which orders
neither the scalar writes before the vector reads nor (the buffer recycled) the previous tile's vector reads before
them (docs/decisions.md "The device's synchronisation"; `sanitize="device-sync"` reports the S -> V RAW, tested with
ORIGINAL_SYNC = True): the port adds a FetchEventID'd V_S pair before and an S_V pair after those writes.

Devices: the operator's config is the ascend910b (A2; the A3 shares its kernels), and the advanced Log is the
A2/A3 counter-mode Ln: the port runs on the A3 and A2.

Fidelity: MODELLED (Div, Ln: SPEC-2 D37, the exact value rounded once), the rest BIT-EXACT (Maxs, Sub, Mul, Add,
Muls, Adds, Cast, Duplicate, ReduceSum in the device's count-form tree, DataCopy / DataCopyPad). The model replays
the float chain in numpy (ln taken in float64 and rounded to float32; numpy's float32 division is the exact quotient
rounded once) and the sums by the device's ReduceSum tree (`aj.explain_reduce_order`), so it is checked bit for bit.
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
kBufferDepth = 2
kTensorQueueCount = 4
kFloatCalculationBufferCount = 2
kHalfUpcastBufferCount = 3
kReductionWorkspaceFloatsPerCore = 8
kHalfLogTwoPi = np.float32(0.91893853320467274178)
LOG_MAX_LIVE_NODE_COUNT, LOG_EXTRA_BUFFER_BYTES = 0, 0     # GetLogTmpBufferFactorSize (the devkit's host values)
kNoBroadcast, kScalarBroadcast = 0, 2
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
_REDUCTIONS = {"none": 0, "sum": 1, "mean": 2}
DEVICES = ("atlas-a3", "atlas-a2")
ORIGINAL_SYNC = False              # True: the broadcast SetValues ordered by the VECIN queue alone (docstring)


class GaussianNllLossTilingData(ctypes.Structure):
    _fields_ = [("smallCoreDataNum", ctypes.c_uint32), ("bigCoreDataNum", ctypes.c_uint32),
                ("finalBigTileNum", ctypes.c_uint32), ("finalSmallTileNum", ctypes.c_uint32),
                ("tileDataNum", ctypes.c_uint32), ("smallTailDataNum", ctypes.c_uint32),
                ("bigTailDataNum", ctypes.c_uint32), ("tailBlockNum", ctypes.c_uint32),
                ("blockNum", ctypes.c_uint32), ("workspaceFloatsPerCore", ctypes.c_uint32),
                ("targetBroadcastMode", ctypes.c_uint32), ("varBroadcastMode", ctypes.c_uint32),
                ("targetAxisSpan", ctypes.c_uint64), ("targetInnerSize", ctypes.c_uint64),
                ("targetElementCount", ctypes.c_uint64), ("varInnerSize", ctypes.c_uint64),
                ("varElementCount", ctypes.c_uint64), ("eps", ctypes.c_float), ("fullConstant", ctypes.c_float),
                ("meanScale", ctypes.c_float)]


def _classify(input_shape, target_shape, var_shape):
    """ClassifyTargetBroadcast / ClassifyVarBroadcast: (target mode, axis span, inner size, var mode, inner size)."""
    t_mode, t_span, t_inner = 0, 1, 1
    if tuple(target_shape) != tuple(input_shape):
        if len(target_shape) != len(input_shape):
            raise ValueError("target must have the same rank as input")
        axes = [i for i, (a, b) in enumerate(zip(input_shape, target_shape)) if a != b]
        if len(axes) != 1 or target_shape[axes[0]] != 1:
            raise ValueError("target may broadcast exactly one dimension of size 1")
        t_inner = int(np.prod(input_shape[axes[0] + 1:], dtype=np.int64))
        t_mode, t_span = 1, int(input_shape[axes[0]]) * t_inner
    v_mode, v_inner = 0, 1
    if tuple(var_shape) != tuple(input_shape):
        if len(var_shape) == 0:
            v_mode = kScalarBroadcast
        else:
            rank, vrank = len(input_shape), len(var_shape)
            ok = (vrank == rank and var_shape[-1] == 1 and tuple(var_shape[:-1]) == tuple(input_shape[:-1])) or \
                 (vrank + 1 == rank and tuple(var_shape) == tuple(input_shape[:-1]))
            if not ok:
                raise ValueError("var must match input, have trailing dimension 1, omit the last one, or be scalar")
            v_mode, v_inner = 1, int(input_shape[-1])
    return t_mode, t_span, t_inner, v_mode, v_inner


def tiling(device, input_shape, target_shape, var_shape, dtype, reduction, full=False, eps=1e-6):
    """GaussianNllLossTiling: (used cores, the tiling bytes)."""
    total = int(np.prod(input_shape, dtype=np.int64))
    t_mode, t_span, t_inner, v_mode, v_inner = _classify(input_shape, target_shape, var_shape)
    size = TYPE_SIZE[dtype]
    per_block = 32 // size
    queued = kTensorQueueCount * kBufferDepth * size
    float_bufs = kFloatCalculationBufferCount + (0 if dtype == "float" else kHalfUpcastBufferCount) + \
        LOG_MAX_LIVE_NODE_COUNT
    per_element = queued + float_bufs * 4
    needs = _REDUCTIONS[reduction] != 0
    scratch = (kReductionWorkspaceFloatsPerCore * 4 + CORE_NUM * kReductionWorkspaceFloatsPerCore * 4
               if needs else 0) + LOG_EXTRA_BUFFER_BYTES
    tile = (aj.get_device(device).ub_bytes - scratch) // per_element // per_block * per_block
    used = 1 if total == 0 else min(total, CORE_NUM)
    small = total // used
    extra = total % used
    big = small + (1 if extra > 0 else 0)
    small_tiles = 0 if small == 0 else -(-small // tile)
    big_tiles = 0 if big == 0 else -(-big // tile)
    t = GaussianNllLossTilingData(
        smallCoreDataNum=small, bigCoreDataNum=big, finalBigTileNum=big_tiles, finalSmallTileNum=small_tiles,
        tileDataNum=tile, smallTailDataNum=0 if small == 0 else small - (small_tiles - 1) * tile,
        bigTailDataNum=0 if big == 0 else big - (big_tiles - 1) * tile, tailBlockNum=extra, blockNum=used,
        workspaceFloatsPerCore=kReductionWorkspaceFloatsPerCore, targetBroadcastMode=t_mode,
        varBroadcastMode=v_mode, targetAxisSpan=t_span, targetInnerSize=t_inner,
        targetElementCount=int(np.prod(target_shape, dtype=np.int64)), varInnerSize=v_inner,
        varElementCount=int(np.prod(var_shape, dtype=np.int64)), eps=eps,
        fullConstant=kHalfLogTwoPi if full else np.float32(0.0),
        meanScale=np.float32(np.nan) if total == 0 else np.float32(1.0) / np.float32(total))
    return used, np.frombuffer(bytes(t), np.uint8).copy()


def Log(dst, src, cal_count):
    """The advanced API's `Log<T>(dst, src, calCount)` (log_common_impl.h, arch 2201): Ln in counter mode."""
    aj.SetMaskCount()
    aj.SetVectorMask(0, cal_count, dtype=dst.dtype.name, mode=aj.MaskMode.COUNTER)
    aj.Ln(dst, src, aj.MASK_PLACEHOLDER, 1, aj.UnaryRepeatParams(), is_set_mask=False)
    aj.SetMaskNorm()
    aj.SetVectorMask(2 ** 64 - 1, 2 ** 64 - 1, dtype="half")       # FULL_MASK, FULL_MASK


class KernelGaussianNllLoss:
    """`KernelGaussianNllLoss<T, reductionMode>`."""

    def __init__(self, T, reductionMode):
        self.T = T
        self.kUpcast = T != "float"
        self.kNeedsReduction = reductionMode != 0
        self.kMeanReduction = reductionMode == 2

    def Init(self, input, target, var, loss, workspace, tiling, pipe):
        T = self.T
        self.pipe_ = pipe
        core = aj.GetBlockIdx()
        self.tileDataNum_ = tiling.tileDataNum
        self.blockNum_ = tiling.blockNum
        self.workspaceFloatsPerCore_ = tiling.workspaceFloatsPerCore
        self.targetBroadcastMode_ = tiling.targetBroadcastMode
        self.varBroadcastMode_ = tiling.varBroadcastMode
        self.targetAxisSpan_ = tiling.targetAxisSpan
        self.targetInnerSize_ = tiling.targetInnerSize
        self.varInnerSize_ = tiling.varInnerSize
        self.eps_ = np.float32(tiling.eps)
        self.fullConstant_ = np.float32(tiling.fullConstant)
        self.meanScale_ = np.float32(tiling.meanScale)
        if core < tiling.tailBlockNum:
            self.coreDataNum_ = tiling.bigCoreDataNum
            self.tileNum_ = tiling.finalBigTileNum
            self.tailDataNum_ = tiling.bigTailDataNum
            self.offset_ = core * tiling.bigCoreDataNum
        else:
            self.coreDataNum_ = tiling.smallCoreDataNum
            self.tileNum_ = tiling.finalSmallTileNum
            self.tailDataNum_ = tiling.smallTailDataNum
            self.offset_ = tiling.tailBlockNum * tiling.bigCoreDataNum + \
                (core - tiling.tailBlockNum) * tiling.smallCoreDataNum
        self.inputGm_, self.targetGm_ = aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.varGm_, self.lossGm_ = aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.workspaceGm_ = aj.GlobalTensor("float")
        self.inputGm_.SetGlobalBuffer(input, self.offset_ + self.coreDataNum_)
        self.targetGm_.SetGlobalBuffer(target, tiling.targetElementCount)
        self.varGm_.SetGlobalBuffer(var, tiling.varElementCount)
        if self.kNeedsReduction:
            self.lossGm_.SetGlobalBuffer(loss, 1)
            if self.blockNum_ > 1:
                self.workspaceGm_.SetGlobalBuffer(workspace, self.blockNum_ * self.workspaceFloatsPerCore_)
        else:
            self.lossGm_.SetGlobalBuffer(loss, self.offset_ + self.coreDataNum_)
        self.inputQueue_ = aj.TQue(aj.QuePosition.VECIN, kBufferDepth)
        self.targetQueue_ = aj.TQue(aj.QuePosition.VECIN, kBufferDepth)
        self.varQueue_ = aj.TQue(aj.QuePosition.VECIN, kBufferDepth)
        self.lossQueue_ = aj.TQue(aj.QuePosition.VECOUT, kBufferDepth)
        self.allCorePartialQueue_ = aj.TQue(aj.QuePosition.VECIN, 1)
        (self.inputFloatBuf_, self.targetFloatBuf_, self.varFloatBuf_, self.resultFloatBuf_,
         self.temporaryFloatBuf_, self.partialSumBuf_) = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(6))
        n = self.tileDataNum_
        for q in (self.inputQueue_, self.targetQueue_, self.varQueue_, self.lossQueue_):
            pipe.InitBuffer(q, kBufferDepth, n * TYPE_SIZE[T])
        pipe.InitBuffer(self.resultFloatBuf_, n * 4)
        pipe.InitBuffer(self.temporaryFloatBuf_, n * 4)
        if self.kUpcast:
            pipe.InitBuffer(self.inputFloatBuf_, n * 4)
            pipe.InitBuffer(self.targetFloatBuf_, n * 4)
            pipe.InitBuffer(self.varFloatBuf_, n * 4)
        if self.kNeedsReduction:
            pipe.InitBuffer(self.partialSumBuf_, self.workspaceFloatsPerCore_ * 4)
            pipe.InitBuffer(self.allCorePartialQueue_, 1, self.blockNum_ * self.workspaceFloatsPerCore_ * 4)

    def Process(self):
        partialSum = None
        if self.kNeedsReduction:
            partialSum = self.partialSumBuf_.Get("float")
            aj.Duplicate(partialSum, np.float32(0.0), self.workspaceFloatsPerCore_)
        for tileIndex in range(self.tileNum_):
            elementCount = self.tailDataNum_ if tileIndex + 1 == self.tileNum_ else self.tileDataNum_
            self.CopyIn(tileIndex, elementCount)
            self.Compute(elementCount, partialSum)
            if not self.kNeedsReduction:
                self.CopyOut(tileIndex, elementCount)
        if self.kNeedsReduction:
            self.CopyOutReduction(partialSum)

    def GetTargetIndex(self, logicalIndex):
        if self.targetBroadcastMode_ == kNoBroadcast:
            return logicalIndex
        outerIndex = logicalIndex // self.targetAxisSpan_
        innerIndex = logicalIndex % self.targetInnerSize_
        return outerIndex * self.targetInnerSize_ + innerIndex

    def GetVarIndex(self, logicalIndex):
        if self.varBroadcastMode_ == kNoBroadcast:
            return logicalIndex
        if self.varBroadcastMode_ == kScalarBroadcast:
            return 0
        return logicalIndex // self.varInnerSize_

    def CopyIn(self, tileIndex, elementCount):
        T = self.T
        input = self.inputQueue_.AllocTensor(T)
        target = self.targetQueue_.AllocTensor(T)
        var = self.varQueue_.AllocTensor(T)
        logicalOffset = self.offset_ + tileIndex * self.tileDataNum_
        params = aj.DataCopyExtParams(1, elementCount * TYPE_SIZE[T], 0, 0, 0)
        pad = aj.DataCopyPadExtParams(True, 0, 0, _NP[T](0))
        aj.DataCopyPad(input, self.inputGm_[logicalOffset], params, pad)
        scalar_fill = self.targetBroadcastMode_ != kNoBroadcast or self.varBroadcastMode_ != kNoBroadcast
        if scalar_fill and not ORIGINAL_SYNC:
            # deviation (docstring): the vector unit's reads of these recycled buffers before the scalar writes
            e = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_S)
            aj.SetFlag(e, event=aj.HardEvent.V_S)
            aj.WaitFlag(e, event=aj.HardEvent.V_S)
        if self.targetBroadcastMode_ == kNoBroadcast:
            aj.DataCopyPad(target, self.targetGm_[logicalOffset], params, pad)
        else:
            for i in range(elementCount):
                target.SetValue(i, self.targetGm_.GetValue(self.GetTargetIndex(logicalOffset + i)))
        if self.varBroadcastMode_ == kNoBroadcast:
            aj.DataCopyPad(var, self.varGm_[logicalOffset], params, pad)
        else:
            for i in range(elementCount):
                var.SetValue(i, self.varGm_.GetValue(self.GetVarIndex(logicalOffset + i)))
        if scalar_fill and not ORIGINAL_SYNC:
            # deviation (docstring): the scalar writes before the vector unit's Cast / Maxs of them
            e = aj.GetTPipePtr().FetchEventID(aj.HardEvent.S_V)
            aj.SetFlag(e, event=aj.HardEvent.S_V)
            aj.WaitFlag(e, event=aj.HardEvent.S_V)
        self.inputQueue_.EnQue(input)
        self.targetQueue_.EnQue(target)
        self.varQueue_.EnQue(var)

    def BuildResult(self, result, input, target, var, temporary, elementCount):
        n = elementCount
        aj.Maxs(var, var, self.eps_, n)
        aj.Sub(result, input, target, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Mul(temporary, result, result, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Div(temporary, temporary, var, n)
        Log(result, var, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Add(result, result, temporary, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(result, result, np.float32(0.5), n)
        if self.fullConstant_ != 0.0:
            aj.PipeBarrier(aj.PIPE_V)
            aj.Adds(result, result, self.fullConstant_, n)
        aj.PipeBarrier(aj.PIPE_V)

    def Compute(self, elementCount, partialSum):
        T = self.T
        input = self.inputQueue_.DeQue(T)
        target = self.targetQueue_.DeQue(T)
        var = self.varQueue_.DeQue(T)
        result = self.resultFloatBuf_.Get("float")
        temporary = self.temporaryFloatBuf_.Get("float")
        if self.kUpcast:
            inputFloat = self.inputFloatBuf_.Get("float")
            targetFloat = self.targetFloatBuf_.Get("float")
            varFloat = self.varFloatBuf_.Get("float")
            aj.Cast(inputFloat, input, aj.RoundMode.CAST_NONE, elementCount)
            aj.Cast(targetFloat, target, aj.RoundMode.CAST_NONE, elementCount)
            aj.Cast(varFloat, var, aj.RoundMode.CAST_NONE, elementCount)
            aj.PipeBarrier(aj.PIPE_V)
            self.BuildResult(result, inputFloat, targetFloat, varFloat, temporary, elementCount)
        else:
            self.BuildResult(result, input, target, var, temporary, elementCount)
        if self.kNeedsReduction:
            aj.ReduceSum(result, result, result, elementCount)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Add(partialSum, partialSum, result, 1)
        else:
            loss = self.lossQueue_.AllocTensor(T)
            if self.kUpcast:
                aj.Cast(loss, result, aj.RoundMode.CAST_RINT, elementCount)
            else:
                aj.Adds(loss, result, np.float32(0.0), elementCount)
            self.lossQueue_.EnQue(loss)
        self.inputQueue_.FreeTensor(input)
        self.targetQueue_.FreeTensor(target)
        self.varQueue_.FreeTensor(var)

    def CopyOut(self, tileIndex, elementCount):
        loss = self.lossQueue_.DeQue(self.T)
        params = aj.DataCopyExtParams(1, elementCount * TYPE_SIZE[self.T], 0, 0, 0)
        aj.DataCopyPad(self.lossGm_[self.offset_ + tileIndex * self.tileDataNum_], loss, params)
        self.lossQueue_.FreeTensor(loss)

    def WriteReduction(self, result):
        T = self.T
        if self.kMeanReduction:
            aj.Muls(result, result, self.meanScale_, 1)
            aj.PipeBarrier(aj.PIPE_V)
        loss = self.lossQueue_.AllocTensor(T)
        if self.kUpcast:
            aj.Cast(loss, result, aj.RoundMode.CAST_RINT, 1)
        else:
            aj.Adds(loss, result, np.float32(0.0), 1)
        self.lossQueue_.EnQue(loss)
        loss = self.lossQueue_.DeQue(T)
        aj.DataCopyPad(self.lossGm_, loss, aj.DataCopyExtParams(1, TYPE_SIZE[T], 0, 0, 0))
        self.lossQueue_.FreeTensor(loss)

    def CopyOutReduction(self, partialSum):
        if self.blockNum_ == 1:
            self.WriteReduction(partialSum)
            return
        aj.PipeBarrier(aj.PIPE_ALL)
        aj.DataCopy(self.workspaceGm_[aj.GetBlockIdx() * self.workspaceFloatsPerCore_], partialSum,
                    self.workspaceFloatsPerCore_)
        aj.PipeBarrier(aj.PIPE_ALL)
        aj.SyncAll()
        if aj.GetBlockIdx() != 0:
            return
        total = self.blockNum_ * self.workspaceFloatsPerCore_
        allPartialSums = self.allCorePartialQueue_.AllocTensor("float")
        aj.DataCopy(allPartialSums, self.workspaceGm_, total)
        self.allCorePartialQueue_.EnQue(allPartialSums)
        allPartialSums = self.allCorePartialQueue_.DeQue("float")
        aj.ReduceSum(allPartialSums, allPartialSums, allPartialSums, total)
        aj.PipeBarrier(aj.PIPE_V)
        self.WriteReduction(allPartialSums)
        self.allCorePartialQueue_.FreeTensor(allPartialSums)


aj.REGISTER_TILING_DEFAULT(GaussianNllLossTilingData)


def gaussian_nll_loss(input, target, var, loss, workspace, tiling_bytes, dtype, reduction_mode):
    """The kernel entry (gaussian_nll_loss.cpp; the tiling key's reduction mode and the dtype as arguments)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(GaussianNllLossTilingData, tiling_bytes)
    pipe = aj.TPipe()
    op = KernelGaussianNllLoss(dtype, reduction_mode)
    op.Init(input, target, var, loss, workspace, tilingData, pipe)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_gaussian_nll_loss(device, input, target, var, reduction="mean", full=False, eps=1e-6):
    dtype = _dtype_name(input)
    block_num, t = tiling(device, input.shape, target.shape, var.shape, dtype, reduction, full, eps)
    mode = _REDUCTIONS[reduction]
    loss = np.zeros(input.size if mode == 0 else 1, input.dtype)
    workspace = np.zeros(block_num * kReductionWorkspaceFloatsPerCore, np.float32)   # deviation: the user slots
    aj.launch(gaussian_nll_loss, block_num, device, input.ravel(), np.ascontiguousarray(target).ravel(),
              np.ascontiguousarray(var).reshape(-1), loss, workspace, t, dtype, mode)
    return loss


def _ln32(v):
    """ln rounded once to float32 (D37), from float64."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(v.astype(np.float64)).astype(np.float32)


def gaussian_nll_loss_model(device, input, target, var, reduction="mean", full=False, eps=1e-6):
    """The kernel's float chain element by element; the sums by the device's count-form ReduceSum trees per tile,
    the 1-element Adds into the partial, the core slots' tree on core 0, Muls 1 / n (float32), RNE to T."""
    dtype = _dtype_name(input)
    x = input.astype(np.float32).ravel()
    t = np.broadcast_to(target.astype(np.float32), input.shape).ravel()
    vshape = var.shape if var.ndim != input.ndim - 1 else var.shape + (1,)
    v = np.broadcast_to(var.astype(np.float32).reshape(vshape), input.shape).ravel()
    fc = kHalfLogTwoPi if full else np.float32(0.0)
    with np.errstate(all="ignore"):
        v = np.where(np.isnan(v), v, np.maximum(v, np.float32(eps)))
        d = x - t
        r = _ln32(v) + (d * d) / v
        r = r * np.float32(0.5)
        if fc != 0.0:
            r = r + fc
        if reduction == "none":
            return r + np.float32(0.0) if dtype == "float" else r.astype(input.dtype)
        used, tb = tiling(device, input.shape, target.shape, var.shape, dtype, reduction, full, eps)
        td = GaussianNllLossTilingData.from_buffer_copy(tb.tobytes())
        slots, start = [], 0
        for core in range(used):
            big = core < td.tailBlockNum
            count = td.bigCoreDataNum if big else td.smallCoreDataNum
            partial = np.float32(0.0)
            for k in range(0, count, td.tileDataNum):
                tile = r[start + k:start + min(count, k + td.tileDataNum)]
                tree = aj.explain_reduce_order(device, "count", "float", count=tile.size)
                partial = np.float32(partial + np.float32(tree.evaluate_batch(tile[None, :])[0]))
            slots.append(partial)
            start += count
        if used == 1:
            total = slots[0]
        else:
            allp = np.zeros((used, kReductionWorkspaceFloatsPerCore), np.float32)
            allp[:, 0] = slots
            tree = aj.explain_reduce_order(device, "count", "float", count=allp.size)
            total = np.float32(tree.evaluate_batch(allp.reshape(1, -1))[0])
        if reduction == "mean":
            total = np.float32(total * np.float32(td.meanScale))
        out = np.array([total], np.float32)
        return out + np.float32(0.0) if dtype == "float" else out.astype(input.dtype)


def _make_inputs(dtype, var_scalar=False):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.standard_normal(size).astype(np.float32)
        t = (x + rng.standard_normal(size) * 0.5).astype(np.float32)
        v = rng.uniform(0.2, 3.0, () if var_scalar else size).astype(np.float32)
        if not var_scalar:
            v[::53] = 0.0                                  # clamped to eps
        return {"input": x.astype(_NP[dtype]), "target": t.astype(_NP[dtype]),
                "var": np.asarray(v).astype(_NP[dtype])}
    return make_inputs


def _run_for(reduction, full):
    def run(device, inputs):
        return {"loss": run_gaussian_nll_loss(device, inputs["input"], inputs["target"], inputs["var"], reduction,
                                              full)}
    return run


def _expected_for(reduction, full):
    def expected(device, inputs):
        return {"loss": gaussian_nll_loss_model(device, inputs["input"], inputs["target"], inputs["var"],
                                                reduction, full)}
    return expected


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/loss/gaussian_nll_loss/op_kernel/gaussian_nll_loss.h"
KERNELS = [
    KernelSpec(f"gaussian_nll_loss{suffix}", description, _make_inputs(dtype, scalar), _run_for(reduction, full),
               _expected_for(reduction, full), default_size=size, devices=DEVICES, source=_SOURCE)
    for suffix, dtype, reduction, full, scalar, size, description in (
        ("", "float", "mean", False, False, 100003, "GaussianNllLoss, mean over floats (Maxs eps in place, Sub, Mul, "
         "Div, counter-mode Ln, Add, Muls; ReduceSum in place per tile, 8-float partials through a GM workspace, "
         "SyncAll, core 0's ReduceSum)"),
        ("_none_half", "half", "none", True, False, 50003, "GaussianNllLoss, none over halves, full (Casts "
         "CAST_NONE in, the float chain, Adds 0.5 ln 2 pi, Cast CAST_RINT out)"),
        ("_sum_bf16_scalar_var", "bfloat16", "sum", False, True, 20003, "GaussianNllLoss, sum over bfloat16 with a "
         "scalar var (broadcast by GM GetValue / LocalTensor SetValue)"))
]
