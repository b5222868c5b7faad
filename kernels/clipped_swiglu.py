"""ClippedSwiglu (the GPT-OSS gated activation): x is split along `dim` into pairs (a, b), either the two halves of
the dim ("front / back") or even / odd elements (interleaved); a' = min(a, limit), b' = clamp(b, -limit, limit) +
bias, y = b' * a' / (1 + exp(-alpha * a')). With group_index (int64 counts), only the first sum(group_index) rows
(batches) are computed; the rest of y is left as it was.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, activation/clipped_swiglu:
- op_kernel/clipped_swiglu.cpp (the entry: no output without a workspace or a user workspace, one TPipe,
  GET_TILING_DATA_WITH_STRUCT, tiling key 1 for float / half / bfloat16);
- op_kernel/clipped_swiglu.hpp (`ClippedSwigluBase`: Init sizes a depth-2 x queue, a y queue and two TBufs by
  ubMaxPair; Process reads the group counts (DataCopyPad of int64, Cast int64 -> float CAST_RINT, ReduceSum,
  GetValue) and CalTilingParam splits batches (front / back) or pairs (interleaved) over the cores, then a UB loop a
  step; CopyIn by DataCopyPad with DataCopyParams: per batch the a half and the b half by a source stride of dimH
  (short rows), one run of each half (long rows), or one run of pairs (interleaved), 16-bit data into the buffer's
  second half; ProcessSingleLoop Casts 16-bit data to float in the same buffer (CAST_NONE); GetAB by counter mode
  (SetMaskCount, SetVectorMask<float, COUNTER>(n), two `Copy<float, false>` with repeat sizes 0, SetMaskNorm,
  ResetMask) or, interleaved, ArithProgression of byte offsets and two Gathers (base 4 and 0); Compute's Mins /
  Maxs / Adds on b, Mins / Muls / Exp / Adds / Div on a, Mul; the y Cast CAST_RINT (bf16) or CAST_NONE (half) and
  a DataCopyPad out);
- op_host/clipped_swiglu_tiling.cpp (`ClippedSwigluTiling`, the A2/A3 path: x folded to [dimBatchSize, dim2H] at
  `dim`, alpha 1.702 / limit 7 / bias 1 / interleaved true by default, CountMaxPair: the UB less 1024 bytes and
  the group buffers over 18 bytes a pair, rounded to 32 bytes, less 31, over 2; isLongH when 2 * ubMaxPair < dim2H).

Deviations, each because the emulator refuses or reports the original's sequence:
1. the core count is the launch's 8 (GetCoreNumAiv in the original);
2. the original Casts the int64 group counts to float in place (the float view of the same queue tile) and the
   float y to 16 bits in place (the 16-bit view of the y tile); SPEC-2 D34 refuses any overlap in a Cast between
   sizes, so the group counts are Cast into tmpBuf2_ (ReduceSum then reads them there), and for 16-bit types
   Compute's last Mul writes y into tmpBuf2_ (free after GetAB), from which the Cast narrows into the y tile;
3. the group sum is read by GetValue straight after ReduceSum with no V_S flag (a race the sanitizer reports);
   the port adds the SetFlag / WaitFlag<V_S> pair.
Not portable as written (kept, refused, tested): for half / bfloat16, a UB step of more than about ubMaxPair / 2
pairs makes the Cast of the b half (front / back) or of the pairs (interleaved) write its float result over the
16-bit source it is still reading (ahead of it, so the device's in-order repeats get the right values); D34 refuses
it (OverlapError). The gallery's 16-bit cases stay below that.
Kept and reported: for float x in front / back halves of short rows whose half (dimH floats) is not a multiple of
16 floats, a step's count is batches * dimH rounded to 16 (the tiling's 16-bit sizing) while DataCopyPad lays the
batches out at dimH rounded to 8 floats; the compute runs over lanes past the last batch that nothing wrote (their
results are never copied out; the device reads stale UB), which the sanitizer's init check reports (tested). The
gallery's shapes have dimH a multiple of 16.

Devices: A2 and A3 (configs ascend910b, ascend910_93; the 950 runs the arch35 kernel).

Fidelity: MODELLED (Exp, Div); the rest (Casts, Copy in counter mode, Gather, DataCopyPad with strides) is
BIT-EXACT. Checked against a float64 formula with a relative tolerance of the output type.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

# clipped_swiglu.hpp
DB_BUFFER = 2
BLOCK_SIZE = 32
SWI_FACTOR = 2
DTYPE_FACTOR = 2
# clipped_swiglu_tiling.cpp
UB_RESERVE = 1024
SIZE_OF_BF16_FP16 = 2
CLAMP_LIMIT_DEFAULT, GLU_ALPHA_DEFAULT, GLU_BIAS_DEFAULT = 7.0, 1.702, 1.0
WORKSPACE_SIZE = 16 * 1024 * 1024
CORE_NUM = 8                      # deviation 1

ClippedSwigluTilingData = np.dtype({
    "names": ["coreNumAll", "dimBatchSize", "dim2H", "isLongH", "isGroup", "isInterleaved", "gluAlpha", "gluLimit",
              "gluBias", "ubMaxPair", "groupNum"],
    "formats": [np.int64] * 6 + [np.float32] * 3 + [np.int64] * 2}, align=True)

_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _align_bytes(n):
    return (n + BLOCK_SIZE - 1) // BLOCK_SIZE * BLOCK_SIZE


def tiling(device, x_shape, x_dtype, dim=-1, alpha=None, limit=None, bias=None, interleaved=None, group_num=None):
    """ClippedSwigluTiling::DoOpTiling (A2/A3): (block dim, the packed ClippedSwigluTilingData)."""
    ub_size = aj.get_device(device).ub_bytes
    x_dims = len(x_shape)
    if not -x_dims <= dim <= x_dims - 1:
        raise ValueError(f"ClippedSwiglu tiling: dim should be in [-{x_dims}, {x_dims - 1}], got {dim}")
    dim = dim + x_dims if dim < 0 else dim
    if x_shape[dim] % 2 == 1:
        raise ValueError(f"ClippedSwiglu tiling: x[dim] should be divisible by 2, got {x_shape[dim]}")
    if x_dtype not in _NP:
        raise ValueError("ClippedSwiglu tiling: x dtype only supports float, half or bfloat16")
    if x_dims == 1:
        batch, dim2h = 1, x_shape[0]
    else:
        batch, dim2h = int(np.prod(x_shape[:dim], dtype=np.int64)), int(np.prod(x_shape[dim:], dtype=np.int64))
    is_group = group_num is not None
    # CountMaxPair
    x_buffer = DB_BUFFER * SWI_FACTOR * DTYPE_FACTOR
    group_buffer = DB_BUFFER * _align_bytes(group_num * 8) if is_group else 0
    numerator = ub_size - UB_RESERVE - group_buffer
    ub_max_pair = ((numerator // (x_buffer + DTYPE_FACTOR + 2 * SWI_FACTOR * DTYPE_FACTOR) // BLOCK_SIZE * BLOCK_SIZE)
                   - (BLOCK_SIZE - 1)) // SIZE_OF_BF16_FP16
    if numerator <= 0 or ub_max_pair <= 0:
        raise ValueError("ClippedSwiglu tiling: input not supported, groupNum is too large")
    t = np.zeros(1, ClippedSwigluTilingData)
    t["coreNumAll"], t["dimBatchSize"], t["dim2H"] = CORE_NUM, batch, dim2h
    t["isLongH"] = int(ub_max_pair * SWI_FACTOR < dim2h)
    t["isGroup"], t["isInterleaved"] = int(is_group), int(True if interleaved is None else interleaved)
    t["gluAlpha"] = GLU_ALPHA_DEFAULT if alpha is None else alpha
    t["gluLimit"] = CLAMP_LIMIT_DEFAULT if limit is None else limit
    t["gluBias"] = GLU_BIAS_DEFAULT if bias is None else bias
    t["ubMaxPair"], t["groupNum"] = ub_max_pair, group_num or 0
    return CORE_NUM, t.view(np.uint8).copy()


class ClippedSwigluBase:
    def __init__(self, inType, pipe):
        self.inType, self.pipe_ = inType, pipe
        self.blockIdx_ = aj.GetBlockIdx()
        self.usedCoreNum_ = 0
        self.xLocalOffset1_ = self.xLocalOffset2_ = 0

    def Init(self, x, groupIndex, y, tl):
        self.tl_ = tl
        self.ubMaxPair_ = int(tl.ubMaxPair)
        self.dimH_ = int(tl.dim2H) // SWI_FACTOR
        self.xQueSpace_ = SWI_FACTOR * DTYPE_FACTOR * _align_bytes(self.ubMaxPair_ * 2)
        self.xGm_, self.groupIndexGm_, self.yGm_ = aj.GlobalTensor(), aj.GlobalTensor("int64"), aj.GlobalTensor()
        self.xGm_.SetGlobalBuffer(x)
        self.yGm_.SetGlobalBuffer(y)
        self.xQueue_ = aj.TQue(aj.QuePosition.VECIN, DB_BUFFER)
        self.groupQueue_ = aj.TQue(aj.QuePosition.VECIN, DB_BUFFER)
        self.yQueue_ = aj.TQue(aj.QuePosition.VECOUT, 1)
        self.tmpBuf1_, self.tmpBuf2_ = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        if tl.isGroup == 1:
            self.groupIndexGm_.SetGlobalBuffer(groupIndex)
            self.pipe_.InitBuffer(self.groupQueue_, DB_BUFFER, _align_bytes(int(tl.groupNum) * 8))
        self.pipe_.InitBuffer(self.xQueue_, DB_BUFFER, self.xQueSpace_)
        self.pipe_.InitBuffer(self.yQueue_, 1, DTYPE_FACTOR * _align_bytes(self.ubMaxPair_ * 2))
        self.pipe_.InitBuffer(self.tmpBuf1_, self.xQueSpace_)
        self.pipe_.InitBuffer(self.tmpBuf2_, self.xQueSpace_)

    def Process(self):
        tl = self.tl_
        if tl.isGroup == 0:
            self.realBatchSize_ = int(tl.dimBatchSize)
        else:
            groupNum = int(tl.groupNum)
            groupLocal = self.groupQueue_.AllocTensor("int64")
            aj.DataCopyPad(groupLocal, self.groupIndexGm_, aj.DataCopyParams(1, groupNum * 8, 0, 0),
                           aj.DataCopyPadParams(False, 0, 0, 0))
            self.groupQueue_.EnQue("int64", groupLocal)
            groupLocal = self.groupQueue_.DeQue("int64")
            groupFloatLocal = self.tmpBuf2_.Get("float")          # deviation 2: the original's groupLocal view
            aj.Cast(groupFloatLocal, groupLocal, aj.RoundMode.CAST_RINT, groupNum)
            groupSumLocal = self.tmpBuf1_.Get("float")
            aj.ReduceSum(groupSumLocal, groupFloatLocal, groupFloatLocal, groupNum)
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)      # deviation 3
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
            groupSum = groupSumLocal.GetValue(0)
            self.realBatchSize_ = int(groupSum)                   # static_cast<int64_t>: toward zero
            self.groupQueue_.FreeTensor(groupLocal)
            self.realBatchSize_ = min(self.realBatchSize_, int(tl.dimBatchSize))
        self.CalTilingParam()
        if self.blockIdx_ < self.usedCoreNum_:
            if tl.isInterleaved == 0 and tl.isLongH == 1:
                for batchIdx in range(self.batchPreBlock_):
                    xOffset = self.blockIdx_ * self.blockOffset_ + batchIdx * int(tl.dim2H)
                    yOffset = self.blockIdx_ * self.blockOffset_ // SWI_FACTOR + batchIdx * self.dimH_
                    for loopIdx in range(self.loopTime_):
                        last = loopIdx == self.loopTime_ - 1
                        self.pairNum_ = self.pairLastLoop_ if last else self.pairFrontLoop_
                        self.calPairNum_ = self.calPairLastLoop_ if last else self.calPairFrontLoop_
                        self.ProcessSingleLoop(xOffset, yOffset)
                        xOffset += self.loopOffset_
                        yOffset += self.loopOffset_
            else:
                xOffset = self.blockIdx_ * self.blockOffset_
                yOffset = self.blockIdx_ * self.blockOffset_ // SWI_FACTOR
                for loopIdx in range(self.loopTime_):
                    last = loopIdx == self.loopTime_ - 1
                    self.pairNum_ = self.pairLastLoop_ if last else self.pairFrontLoop_
                    self.calPairNum_ = self.calPairLastLoop_ if last else self.calPairFrontLoop_
                    self.ProcessSingleLoop(xOffset, yOffset)
                    xOffset += self.loopOffset_
                    yOffset += self.loopOffset_ // SWI_FACTOR

    def CalTilingParam(self):
        tl, b = self.tl_, self.blockIdx_
        coreNumAll, dim2H = int(tl.coreNumAll), int(tl.dim2H)
        if tl.isInterleaved == 0:
            batchFrontBlock = (self.realBatchSize_ + coreNumAll - 1) // coreNumAll
            self.usedCoreNum_ = (self.realBatchSize_ + batchFrontBlock - 1) // batchFrontBlock if batchFrontBlock \
                else 0                                            # C++ would divide by 0 for no batch
            batchLastBlock = self.realBatchSize_ - batchFrontBlock * (self.usedCoreNum_ - 1)
            self.batchPreBlock_ = batchLastBlock if b == self.usedCoreNum_ - 1 else batchFrontBlock
            self.blockOffset_ = batchFrontBlock * dim2H
            if tl.isLongH == 0:
                batchSpace = SWI_FACTOR * DTYPE_FACTOR * _align_bytes(self.dimH_ * 2)
                ubMaxBatch = self.xQueSpace_ // batchSpace
                self.loopTime_ = (self.batchPreBlock_ + ubMaxBatch - 1) // ubMaxBatch
                batchLastLoop = self.batchPreBlock_ - ubMaxBatch * (self.loopTime_ - 1)
                self.pairFrontLoop_ = ubMaxBatch * self.dimH_
                self.pairLastLoop_ = batchLastLoop * self.dimH_
                self.loopOffset_ = ubMaxBatch * dim2H
                self.calPairFrontLoop_ = ubMaxBatch * batchSpace // SWI_FACTOR // 4
                self.calPairLastLoop_ = batchLastLoop * batchSpace // SWI_FACTOR // 4
            else:
                self.loopTime_ = (self.dimH_ + self.ubMaxPair_ - 1) // self.ubMaxPair_
                self.pairLastLoop_ = self.dimH_ - self.ubMaxPair_ * (self.loopTime_ - 1)
                self.pairFrontLoop_ = self.loopOffset_ = self.ubMaxPair_
                self.calPairFrontLoop_, self.calPairLastLoop_ = self.pairFrontLoop_, self.pairLastLoop_
        else:
            pairTotal = dim2H * self.realBatchSize_ // SWI_FACTOR
            pairFrontBlock = (pairTotal + coreNumAll - 1) // coreNumAll
            self.usedCoreNum_ = (pairTotal + pairFrontBlock - 1) // pairFrontBlock if pairFrontBlock else 0
            pairLastBlock = pairTotal - pairFrontBlock * (self.usedCoreNum_ - 1)
            pairPreBlock = pairLastBlock if b == self.usedCoreNum_ - 1 else pairFrontBlock
            self.blockOffset_ = pairFrontBlock * SWI_FACTOR
            self.loopTime_ = (pairPreBlock + self.ubMaxPair_ - 1) // self.ubMaxPair_
            self.pairLastLoop_ = pairPreBlock - self.ubMaxPair_ * (self.loopTime_ - 1)
            self.pairFrontLoop_ = self.ubMaxPair_
            self.loopOffset_ = SWI_FACTOR * self.ubMaxPair_
            self.calPairFrontLoop_, self.calPairLastLoop_ = self.pairFrontLoop_, self.pairLastLoop_

    def ProcessSingleLoop(self, xOffset, yOffset):
        self.CopyIn(xOffset)
        xDTypeLocal = self.xQueue_.DeQue(self.inType)
        xFloatLocal = xDTypeLocal.ReinterpretCast("float")
        half_floats = self.xQueSpace_ // 4 // SWI_FACTOR
        if self.inType != "float":
            if self.tl_.isInterleaved == 0:
                aj.Cast(xFloatLocal, xDTypeLocal[self.xLocalOffset1_], aj.RoundMode.CAST_NONE, self.calPairNum_)
                aj.PipeBarrier(aj.PIPE_V)
                aj.Cast(xFloatLocal[half_floats], xDTypeLocal[self.xLocalOffset1_ + self.xLocalOffset2_],
                        aj.RoundMode.CAST_NONE, self.calPairNum_)
            else:
                aj.Cast(xFloatLocal, xDTypeLocal[self.xLocalOffset1_], aj.RoundMode.CAST_NONE,
                        self.calPairNum_ * SWI_FACTOR)
        tmpUbF32 = self.tmpBuf1_.Get("float")
        yFloatLocal = self.yQueue_.AllocTensor("float")
        # deviation 2: for 16-bit types the product goes to tmpBuf2_, the Cast narrows it into the y tile
        yProduct = yFloatLocal if self.inType == "float" else self.tmpBuf2_.Get("float")
        self.Compute(xFloatLocal, tmpUbF32, yProduct)
        yDTypeLocal = yFloatLocal.ReinterpretCast(self.inType)
        if self.inType == "bfloat16":
            aj.Cast(yDTypeLocal, yProduct, aj.RoundMode.CAST_RINT, self.calPairNum_)
        elif self.inType == "half":
            aj.Cast(yDTypeLocal, yProduct, aj.RoundMode.CAST_NONE, self.calPairNum_)
        self.yQueue_.EnQue(self.inType, yDTypeLocal)
        self.CopyOut(yOffset)

    def CopyIn(self, xOffset):
        if self.inType != "float":       # 16-bit data lands in the buffer's second half, for the Casts
            self.xLocalOffset1_ = self.xQueSpace_ // SWI_FACTOR // 2
            self.xLocalOffset2_ = self.xLocalOffset1_ // SWI_FACTOR
        else:
            self.xLocalOffset1_ = 0
            self.xLocalOffset2_ = self.xQueSpace_ // 4 // SWI_FACTOR
        xDTypeLocal = self.xQueue_.AllocTensor(self.inType)
        tl = self.tl_
        if tl.isInterleaved == 0 and tl.isLongH == 0:
            self.CopyInHalfShortH(xDTypeLocal, xOffset)
        elif tl.isInterleaved == 0 and tl.isLongH == 1:
            self.CopyInHalfLongH(xDTypeLocal, xOffset)
        else:
            self.CopyInInterLeaved(xDTypeLocal, xOffset)
        self.xQueue_.EnQue(xDTypeLocal)

    def _size(self):
        return np.dtype(_NP[self.inType]).itemsize

    def CopyInHalfShortH(self, xDTypeLocal, xOffset):
        padParams = aj.DataCopyPadParams(False, 0, 0, 0)
        p = aj.DataCopyParams()
        p.blockCount = self.pairNum_ // self.dimH_                 # batches of this step
        p.blockLen = self.dimH_ * self._size()                     # one half a batch
        p.srcStride = self.dimH_ * self._size()
        p.dstStride = 0
        aj.DataCopyPad(xDTypeLocal[self.xLocalOffset1_], self.xGm_[xOffset], p, padParams)
        aj.DataCopyPad(xDTypeLocal[self.xLocalOffset1_ + self.xLocalOffset2_], self.xGm_[xOffset + self.dimH_], p,
                       padParams)

    def CopyInHalfLongH(self, xDTypeLocal, xOffset):
        padParams = aj.DataCopyPadParams(False, 0, 0, 0)
        p = aj.DataCopyParams()
        p.blockCount, p.blockLen, p.srcStride, p.dstStride = 1, self.pairNum_ * self._size(), 0, 0
        aj.DataCopyPad(xDTypeLocal[self.xLocalOffset1_], self.xGm_[xOffset], p, padParams)
        aj.DataCopyPad(xDTypeLocal[self.xLocalOffset1_ + self.xLocalOffset2_], self.xGm_[xOffset + self.dimH_], p,
                       padParams)

    def CopyInInterLeaved(self, xDTypeLocal, xOffset):
        padParams = aj.DataCopyPadParams(False, 0, 0, 0)
        p = aj.DataCopyParams()
        p.blockCount, p.blockLen, p.srcStride, p.dstStride = 1, SWI_FACTOR * self.pairNum_ * self._size(), 0, 0
        aj.DataCopyPad(xDTypeLocal[self.xLocalOffset1_], self.xGm_[xOffset], p, padParams)

    def Compute(self, xFloatLocal, tmpUbF32, yFloatLocal):
        tl, n = self.tl_, self.calPairNum_
        limit, alpha, bias = np.float32(tl.gluLimit), np.float32(tl.gluAlpha), np.float32(tl.gluBias)
        tmpA = tmpUbF32
        tmpB = tmpUbF32[self.xQueSpace_ // 4 // SWI_FACTOR]
        self.GetAB(tmpA, tmpB, xFloatLocal)
        aj.Mins(tmpB, tmpB, limit, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Maxs(tmpB, tmpB, np.float32(-1 * limit), n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Adds(tmpB, tmpB, bias, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Mins(tmpA, tmpA, limit, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(xFloatLocal, tmpA, np.float32(-1 * alpha), n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Exp(xFloatLocal, xFloatLocal, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Adds(xFloatLocal, xFloatLocal, np.float32(1.0), n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Div(tmpA, tmpA, xFloatLocal, n)
        aj.PipeBarrier(aj.PIPE_V)
        self.xQueue_.FreeTensor(xFloatLocal)
        aj.Mul(yFloatLocal, tmpB, tmpA, n)
        aj.PipeBarrier(aj.PIPE_V)

    def GetAB(self, tmpA, tmpB, xFloatLocal):
        if self.tl_.isInterleaved == 0:
            aj.SetMaskCount()
            aj.SetVectorMask(self.calPairNum_, dtype="float", mode=aj.MaskMode.COUNTER)
            aj.Copy(tmpA, xFloatLocal, aj.MASK_PLACEHOLDER, 1, aj.CopyRepeatParams(1, 1, 0, 0), is_set_mask=False)
            aj.Copy(tmpB, xFloatLocal[self.xQueSpace_ // 4 // SWI_FACTOR], aj.MASK_PLACEHOLDER, 1,
                    aj.CopyRepeatParams(1, 1, 0, 0), is_set_mask=False)
            aj.SetMaskNorm()
            aj.ResetMask()
        else:
            xOffsetLocalI32 = self.tmpBuf2_.Get("int32")
            aj.ArithProgression(xOffsetLocalI32, np.int32(0), np.int32(4 * SWI_FACTOR), self.ubMaxPair_)
            aj.PipeBarrier(aj.PIPE_V)
            xOffsetLocalU32 = xOffsetLocalI32.ReinterpretCast("uint32")
            aj.Gather(tmpB, xFloatLocal, xOffsetLocalU32, np.uint32(4), self.pairNum_)
            aj.Gather(tmpA, xFloatLocal, xOffsetLocalU32, np.uint32(0), self.pairNum_)
            aj.PipeBarrier(aj.PIPE_V)

    def CopyOut(self, yOffset):
        yDTypeLocal = self.yQueue_.DeQue(self.inType)
        p = aj.DataCopyParams()
        if self.tl_.isInterleaved == 0 and self.tl_.isLongH == 0:
            p.blockCount, p.blockLen = self.pairNum_ // self.dimH_, self.dimH_ * self._size()
        else:
            p.blockCount, p.blockLen = 1, self.pairNum_ * self._size()
        p.srcStride, p.dstStride = 0, 0
        aj.DataCopyPad(self.yGm_[yOffset], yDTypeLocal, p)
        self.yQueue_.FreeTensor(yDTypeLocal)


def clipped_swiglu(xGM, groupIndexGM, yGM, workspace, tiling, DTYPE_X):
    """The kernel entry (tiling key 1; DTYPE_X the build's ORIG_DTYPE_X)."""
    if workspace is None:
        return
    if aj.GetUserWorkspace(workspace) is None:
        return
    pipe = aj.TPipe()
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ClippedSwigluTilingData, tiling)
    op = ClippedSwigluBase(DTYPE_X, pipe)
    op.Init(xGM, groupIndexGM, yGM, tilingData)
    op.Process()


def clipped_swiglu_host(device, x, dim=-1, group_index=None, alpha=None, limit=None, bias=None, interleaved=None,
                        y=None):
    """Tile, launch, return y (x's shape with x.shape[dim] halved; rows past sum(group_index) keep y's values)."""
    x_dtype = {np.dtype(v): k for k, v in _NP.items()}[x.dtype]
    block_dim, raw = tiling(device, x.shape, x_dtype, dim, alpha, limit, bias, interleaved,
                            None if group_index is None else len(group_index))
    d = dim + x.ndim if dim < 0 else dim
    y_shape = x.shape[:d] + (x.shape[d] // 2,) + x.shape[d + 1:]
    y = np.zeros(y_shape, x.dtype) if y is None else y
    workspace = np.zeros(WORKSPACE_SIZE, np.uint8)
    aj.launch(clipped_swiglu, block_dim, device, x.reshape(-1), group_index, y.reshape(-1), workspace, raw, x_dtype)
    return y


def reference(x, dim=-1, group_index=None, alpha=GLU_ALPHA_DEFAULT, limit=CLAMP_LIMIT_DEFAULT, bias=GLU_BIAS_DEFAULT,
              interleaved=True):
    """float64 ClippedSwiglu; rows at or past sum(group_index) are 0."""
    d = dim + x.ndim if dim < 0 else dim
    batch = int(np.prod(x.shape[:d], dtype=np.int64)) if x.ndim > 1 else 1
    xf = x.astype(np.float64).reshape(batch, -1)
    if interleaved:
        a, b = xf[:, 0::2], xf[:, 1::2]
    else:
        h = xf.shape[1] // 2
        a, b = xf[:, :h], xf[:, h:]
    alpha, limit, bias = (np.float64(np.float32(v)) for v in (alpha, limit, bias))
    a = np.minimum(a, limit)
    b = np.clip(b, -limit, limit) + bias
    y = b * a / (1 + np.exp(-alpha * a))
    if group_index is not None:
        y[min(int(np.sum(group_index)), batch):] = 0
    return y


# the gallery's cases: (dtype, x shape for size n, dim, interleaved, with group_index)
CASES = {
    "clipped_swiglu": ("float", 384, False, False),
    "clipped_swiglu_interleaved_bf16": ("bfloat16", 256, True, False),
    "clipped_swiglu_group_half": ("half", 192, False, True),
}
_TOL = {"float": 1e-5, "half": 2e-3, "bfloat16": 1e-2}


def _make_inputs(case):
    dtype, dim2h, _, grouped = CASES[case]

    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        batch = max(1, size // dim2h)
        x = (rng.standard_normal((batch, dim2h)) * 4).astype(np.float32)
        x[0, :4] = [10.0, -10.0, 0.0, 7.0]
        inputs = {"x": x.astype(_NP[dtype])}
        if grouped:
            g = rng.integers(0, max(2, batch // 3), 4).astype(np.int64)
            inputs["group_index"] = g
        return inputs
    return make_inputs


def _run(case):
    _, _, interleaved, _ = CASES[case]

    def run(device, inputs):
        y = clipped_swiglu_host(device, inputs["x"], -1, inputs.get("group_index"), interleaved=interleaved)
        return {"y": y}
    return run


def _expected(case):
    dtype, _, interleaved, _ = CASES[case]

    def expected(device, inputs):
        y = reference(inputs["x"], -1, inputs.get("group_index"), interleaved=interleaved)
        return {"y": y.astype(np.float32).astype(_NP[dtype])}
    return expected


_SOURCE = "hicann/ops-nn@e5c3fa93 activation/clipped_swiglu/op_kernel/clipped_swiglu.hpp"


def _spec(name, batches, description):
    dtype, dim2h, _, _ = CASES[name]
    return KernelSpec(name, description, _make_inputs(name), _run(name), _expected(name),
                      default_size=batches * dim2h, devices=("atlas-a3", "atlas-a2"),
                      size_rule=f"a multiple of {dim2h} (rows of {dim2h}), up to 8 * 2048 rows",
                      size_ok=lambda n, d=dim2h: d <= n <= 8 * 2048 * d and n % d == 0,
                      tolerance=_TOL[dtype], source=_SOURCE)


KERNELS = [
    _spec("clipped_swiglu", 61, "ops-nn ClippedSwiglu, float, front / back halves of rows of 384 (a and b by "
          "DataCopyPad with a source stride of 192 floats, counter-mode Copy<float, false> with repeat sizes 0, "
          "Mins / Maxs / Adds, Mins / Muls / Exp / Adds / Div, Mul; batches over 8 cores)"),
    _spec("clipped_swiglu_interleaved_bf16", 45, "ops-nn ClippedSwiglu, bfloat16, interleaved pairs (Cast to "
          "float CAST_NONE, ArithProgression byte offsets, two Gathers, Cast CAST_RINT)"),
    _spec("clipped_swiglu_group_half", 40, "ops-nn ClippedSwiglu, half, front / back, group_index (int64 "
          "DataCopyPad, Cast int64 -> float CAST_RINT, ReduceSum, GetValue: only sum(group_index) rows)"),
]
