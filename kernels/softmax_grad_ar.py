"""SoftmaxGrad from the CANN NN operators, the Ascend 950 (arch35) AR full-load kernel: for rows of r elements of the
softmax output y (x0) and its incoming gradient dy (x1), grad_x = y * dy - y * sum(y * dy) per row, over float, half
and bfloat16 (the 16-bit types computed in float lanes).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, activation/softmax_grad:
- op_kernel/softmax_grad_apt.cpp (the entry: AIV only, KERNEL_TASK_TYPE_DEFAULT, tiling key TILINGKEY_AR = 1000:
  GET_TILING_DATA_WITH_STRUCT of SoftmaxGradARTilingData, a caller-made TPipe, `SoftmaxGradAR<DTYPE_SOFTMAX>`);
- op_kernel/arch35/softmax_grad_ar_full_load.h (`SoftmaxGradAR<T>`): a core's aBlockFactor rows (the last core the
  rest); depth-2 queues x0, x1 (in) and y (out) of ubFactor rows of rAligned elements, a TBuf of binaryTmpSize
  bytes; per UB loop CopyInX (DataCopyPad of ubA rows, blockLen r elements, dstStride the row's 32-byte padding),
  then for r <= 2 * 64 NormComputeSmallR (one VF: per row Mul, Reduce SUM, Duplicate of lane 0, Mul, Neg, MulAddDst;
  for 64 < r <= 128 a second vector folded in by Add under the tail's UpdateMask and Move MERGING), else NormCompute
  (one VF folding the row's 64-float vectors around FindNearestPower2(ceil(r / 64)): main-fold Add pairs, one tail
  pair (Add + Move MERGING), unfolded vectors, each Reduce SUM'd and written one float at a time by StoreUnAlign
  into the TBuf, StoreUnAlignPost a row) and NormComputePost (a VF: the row's partials Reduce SUM'd (folded once
  more past 64), Duplicate'd, then per vector of the row Mul, Neg, MulAddDst under UpdateMask of r), CopyOutY;
  LoadTensorForDtypeTIn / StoreTensorForDtypeTOut (float LoadAlign / StoreAlign DIST_NORM; 16-bit LoadAlign
  DIST_UNPACK_B16 + Cast {ZERO, UNKNOWN, ZEROING, UNKNOWN}, Cast {ZERO, NO_SAT, ZEROING, CAST_RINT} + StoreAlign
  DIST_PACK_B32);
- op_kernel/arch35/softmax_grad_base.h (FindNearestPower2, the cast traits, VL_FP32 = 64);
- op_host/arch35/softmax_grad_tiling_ar_full_load.cpp (DoOpTiling: rAligned = r rounded up to 32 bytes,
  binaryTmpPerRow = 4 * (FindNearestPower2(ceil(r / 64)) rounded up to 8) for r > 128, ubFactor = (UB - 1024) /
  (2 * rAligned * (2 * sizeof(T) + sizeof(T)) + binaryTmpPerRow), rLoopCount = ceil(rAligned / 64),
  aBlockFactor = ceil(a / cores), capped ubFactor; IsCapable: r <= 16384) and softmax_grad_tiling.h (the struct).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). The host picks among five templates
by priority (AR small-R, AR full load, AR recompute, ARA...); the port runs the AR full-load one for every r it is
capable of (r <= 16384), including the rows the host gives to SoftmaxGradARSmallR first (priority 50 < 100:
r <= 8 for float, r <= 16 for the 16-bit types).
The VFs load whole vectors, so a row's last vector (and NormComputePost's vector of partials) reads past what the
copy-in (or the StoreUnAlign) wrote: the device masks those lanes out (harmless); the sanitizer reported them as
uninitialised reads before session 54, and with the lane tracking does not (those lanes never reach a store).
`ZERO_UNWRITTEN = True` (the default; kept from before, no longer needed for the init check) zeroes the queue and
TBuf buffers once after InitBuffer; False runs the original as is. Those loads also reach past the operand's tensor
(a queue buffer of one short row; the TBuf's last row of partials): the hardware allows it inside the UB, the
emulator's tensor-bounds rule (decisions.md "Tensor bounds") does not, so the launch opts out with bounds="ub"; a
sanitized run reported them ("access outside the tensor") before session 66, whose memory check follows those lanes
as the init check does (before session 54 also an init report where the TBuf's last vector reached UB nothing
wrote): none reaches a store, and nothing is reported.

Devices: the op's arch35 build is the 950's (op_host/config/ascend950); the port runs there.

Fidelity: BIT-EXACT (Reg Mul, Add, Move, Neg, Reduce SUM (SPEC-2 11.4: the adjacent-pair tree), Duplicate,
MulAddDst (RegPrec: one rounding of the exact result, fidelity row "fma (RegPrec)"), Cast, the loads and stores).
`softmax_grad_model` replays the fold order and the trees in numpy float32, the fused multiply-add rounded once.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
ZEROING, MERGING = R.MaskMergeMode.ZEROING, R.MaskMergeMode.MERGING
CORE_NUM = 8                        # deviation: the launch's cores (GetCoreNumAiv in the original)
VL_FP32 = 64
BLOCK_SIZE = 32
DOUBLE_BUFFER = 2
UB_RESERVED_BYTE = 1024
R_MAX_VALUE = 16384
FP32_BLOCK_ALIGN_NUM = 8
TILINGKEY_AR = 1000
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
ZERO_UNWRITTEN = True

SoftmaxGradARTilingData = np.dtype([("a", np.int64), ("r", np.int64), ("rAligned", np.int64),
                                    ("ubFactor", np.int64), ("aBlockFactor", np.int64), ("rLoopCount", np.int64),
                                    ("binaryTmpSize", np.int64)])

castTraitFp16ToFp32 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, ZEROING, aj.RoundMode.UNKNOWN)
castTraitFp32ToFp16 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, ZEROING, aj.RoundMode.CAST_RINT)


def FindNearestPower2(value):
    """The host's FindNearestPower2 (__builtin_clzl): the largest power of two below value (0 for value <= 1)."""
    if value <= 1:
        return 0
    if value <= 2:
        return 1
    if value <= 4:
        return 2
    return 1 << (63 - (64 - int(value - 1).bit_length()))


def KernelFindNearestPower2(value):
    """SoftmaxGradOpsBase::FindNearestPower2 (softmax_grad_base.h): the same by ScalarCountLeadingZero."""
    if value <= 1:
        return 0
    if value <= 2:
        return 1
    if value <= 4:
        return 2
    num = value - 1
    pow_ = 63 - aj.ScalarCountLeadingZero(num)
    return 1 << pow_


def tiling(device, a, r, dtype):
    """SoftmaxGradTilingAR::DoOpTiling: (tiling key, block dim, the packed SoftmaxGradARTilingData)."""
    if r > R_MAX_VALUE:
        raise ValueError("AR full load template is not capable: r > 16384")
    size = TYPE_SIZE[dtype]
    rAligned = -(-r // (BLOCK_SIZE // size)) * (BLOCK_SIZE // size)
    binaryTmpPerRow = 0
    if r > 2 * VL_FP32:
        foldPoint = FindNearestPower2(-(-r // VL_FP32))
        binaryTmpPerRow = -(-foldPoint // FP32_BLOCK_ALIGN_NUM) * FP32_BLOCK_ALIGN_NUM * 4
    ub = aj.get_device(device).ub_bytes
    ubFactor = (ub - UB_RESERVED_BYTE) // (DOUBLE_BUFFER * rAligned * (size * 2 + size) + binaryTmpPerRow)
    if ubFactor <= 0:
        raise ValueError("AR full load template is not capable: ubFactor 0")
    rLoopCount = -(-rAligned // VL_FP32)
    aBlockFactor = -(-a // CORE_NUM)
    used = -(-a // aBlockFactor)
    ubFactor = min(ubFactor, aBlockFactor)
    t = np.zeros(1, SoftmaxGradARTilingData)
    t["a"], t["r"], t["rAligned"], t["aBlockFactor"] = a, r, rAligned, aBlockFactor
    t["rLoopCount"], t["ubFactor"], t["binaryTmpSize"] = rLoopCount, ubFactor, ubFactor * binaryTmpPerRow
    return TILINGKEY_AR, used, t.view(np.uint8).copy()


@R.simd_callee
def LoadTensorForDtypeTIn(src, dst, preg, offset, T):
    if T == "float":
        R.LoadAlign(dst, src, offset, dist=R.LoadDist.DIST_NORM)
    else:
        xFp16 = R.RegTensor(T)
        R.LoadAlign(xFp16, src, offset, dist=R.LoadDist.DIST_UNPACK_B16)
        R.Cast(dst, xFp16, preg, castTraitFp16ToFp32)


@R.simd_callee
def StoreTensorForDtypeTOut(dst, src, preg, offset, T):
    if T == "float":
        R.StoreAlign(dst, src, preg, offset, dist=R.StoreDist.DIST_NORM)
    else:
        xFp16 = R.RegTensor(T)
        R.Cast(xFp16, src, preg, castTraitFp32ToFp16)
        R.StoreAlign(dst, xFp16, preg, offset, dist=R.StoreDist.DIST_PACK_B32)


def small_r_one_vf(dst, x0, x1, rSize, rAligned, loopTimes, T):
    """NormComputeSmallR, r <= 64: a vector a row."""
    reg0, reg1, reg2 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    pMask, _ = R.UpdateMask("float", rSize)
    pFull = R.CreateMask("float", R.MaskPattern.ALL)
    for i in range(loopTimes):
        LoadTensorForDtypeTIn(x0, reg0, pMask, i * rAligned, T)
        LoadTensorForDtypeTIn(x1, reg1, pMask, i * rAligned, T)
        R.Mul(reg2, reg0, reg1, pMask)
        R.Reduce(reg2, reg2, pMask, R.ReduceType.SUM)
        R.Duplicate(reg2, reg2, pFull)
        R.Mul(reg1, reg0, reg1, pMask)
        R.Neg(reg0, reg0, pMask)
        R.MulAddDst(reg1, reg0, reg2, pMask)
        StoreTensorForDtypeTOut(dst, reg1, pMask, i * rAligned, T)


def small_r_two_vf(dst, x0, x1, rSize, rAligned, loopTimes, T):
    """NormComputeSmallR, 64 < r <= 128: two vectors a row, the second folded into the first."""
    reg0, reg1, reg0_1 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    reg1_1, reg2, reg2_1 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    pMask, _ = R.UpdateMask("float", rSize - VL_FP32)
    pFull = R.CreateMask("float", R.MaskPattern.ALL)
    for i in range(loopTimes):
        LoadTensorForDtypeTIn(x0, reg0, pFull, i * rAligned, T)
        LoadTensorForDtypeTIn(x1, reg1, pFull, i * rAligned, T)
        LoadTensorForDtypeTIn(x0, reg0_1, pMask, i * rAligned + VL_FP32, T)
        LoadTensorForDtypeTIn(x1, reg1_1, pMask, i * rAligned + VL_FP32, T)
        R.Mul(reg2, reg0, reg1, pFull)
        R.Mul(reg2_1, reg0_1, reg1_1, pMask)
        R.Add(reg2_1, reg2, reg2_1, pMask, ZEROING)
        R.Move(reg2, reg2_1, pMask, MERGING)
        R.Reduce(reg2, reg2, pFull, R.ReduceType.SUM)
        R.Duplicate(reg2, reg2, pFull)
        R.Mul(reg1, reg0, reg1, pFull)
        R.Neg(reg0, reg0, pFull)
        R.MulAddDst(reg1, reg0, reg2, pFull)
        StoreTensorForDtypeTOut(dst, reg1, pFull, i * rAligned, T)
        R.Mul(reg1_1, reg0_1, reg1_1, pMask)
        R.Neg(reg0_1, reg0_1, pMask)
        R.MulAddDst(reg1_1, reg0_1, reg2, pMask)
        StoreTensorForDtypeTOut(dst, reg1_1, pMask, i * rAligned + VL_FP32, T)


def norm_compute_vf(sumTmp, x0, x1, outerLoopTimes, mainFoldLoopTimes, tailFoldLoopTimes, unFoldLoopTimes,
                    tailFoldElemCount, outerLoopStride, outerLoopDstStride, foldSrcBOffset, tailSrcAOffset,
                    tailSrcBOffset, unFoldSrcOffset, T):
    """NormCompute's __VEC_SCOPE__: a row's foldPoint partial sums, one float each by StoreUnAlign. The original's
    pointers foldX0A ... unFoldX1 are (tensor, offset) pairs: the tensor and the offsets' sums."""
    pFull = R.CreateMask("float", R.MaskPattern.ALL)
    UReg = R.UnalignRegForStore()
    innerLoopStride = VL_FP32
    for i in range(outerLoopTimes):
        dst = i * outerLoopDstStride
        for j in range(mainFoldLoopTimes):
            reg0, reg1, reg0_1 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
            reg1_1, reg2, reg2_1 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
            off = i * outerLoopStride + j * innerLoopStride
            LoadTensorForDtypeTIn(x0, reg0, pFull, off, T)
            LoadTensorForDtypeTIn(x0, reg1, pFull, foldSrcBOffset + off, T)
            LoadTensorForDtypeTIn(x1, reg0_1, pFull, off, T)
            LoadTensorForDtypeTIn(x1, reg1_1, pFull, foldSrcBOffset + off, T)
            R.Mul(reg2, reg0, reg0_1, pFull)
            R.Mul(reg2_1, reg1, reg1_1, pFull)
            R.Add(reg2, reg2, reg2_1, pFull, ZEROING)
            R.Reduce(reg2, reg2, pFull, R.ReduceType.SUM)
            dst = R.StoreUnAlign(sumTmp, reg2, UReg, dst, 1)
        for j in range(tailFoldLoopTimes):
            reg0, reg1, reg2 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
            reg0_1, reg1_1, reg2_1 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
            pMask, _ = R.UpdateMask("float", tailFoldElemCount)
            off = i * outerLoopStride + j * innerLoopStride
            LoadTensorForDtypeTIn(x0, reg0, pFull, tailSrcAOffset + off, T)
            LoadTensorForDtypeTIn(x0, reg1, pMask, tailSrcBOffset + off, T)
            LoadTensorForDtypeTIn(x1, reg0_1, pFull, tailSrcAOffset + off, T)
            LoadTensorForDtypeTIn(x1, reg1_1, pMask, tailSrcBOffset + off, T)
            R.Mul(reg2, reg0, reg0_1, pFull)
            R.Mul(reg2_1, reg1, reg1_1, pMask)
            R.Add(reg2_1, reg2, reg2_1, pMask, ZEROING)
            R.Move(reg2, reg2_1, pMask, MERGING)
            R.Reduce(reg2, reg2, pFull, R.ReduceType.SUM)
            dst = R.StoreUnAlign(sumTmp, reg2, UReg, dst, 1)
        for j in range(unFoldLoopTimes):
            reg0, reg1, reg0_1 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
            off = i * outerLoopStride + j * innerLoopStride
            LoadTensorForDtypeTIn(x0, reg0, pFull, unFoldSrcOffset + off, T)
            LoadTensorForDtypeTIn(x1, reg0_1, pFull, unFoldSrcOffset + off, T)
            R.Mul(reg1, reg0, reg0_1, pFull)
            R.Reduce(reg1, reg1, pFull, R.ReduceType.SUM)
            dst = R.StoreUnAlign(sumTmp, reg1, UReg, dst, 1)
        R.StoreUnAlignPost(sumTmp, UReg, dst, 0)


def post_one_vf(dst, x0, x1, sumTmp, rSize, stride, oriR, oriRAligned, rLoopCount, loopTimes, T):
    """NormComputePost, foldPoint <= 64 partials a row."""
    reg0, reg1, reg2 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    pMask, _ = R.UpdateMask("float", rSize)
    pFull = R.CreateMask("float", R.MaskPattern.ALL)
    for i in range(loopTimes):
        R.LoadAlign(reg0, sumTmp, i * stride)
        R.Reduce(reg1, reg0, pMask, R.ReduceType.SUM)
        R.Duplicate(reg2, reg1, pFull)
        sreg0 = oriR
        for j in range(rLoopCount):
            maskOri, sreg0 = R.UpdateMask("float", sreg0)
            offset = j * VL_FP32 + i * oriRAligned
            LoadTensorForDtypeTIn(x0, reg0, maskOri, offset, T)
            LoadTensorForDtypeTIn(x1, reg1, maskOri, offset, T)
            R.Mul(reg1, reg0, reg1, maskOri)
            R.Neg(reg0, reg0, maskOri)
            R.MulAddDst(reg1, reg0, reg2, maskOri)
            StoreTensorForDtypeTOut(dst, reg1, maskOri, offset, T)


def post_two_vf(dst, x0, x1, sumTmp, rSize, stride, oriR, oriRAligned, rLoopCount, loopTimes, T):
    """NormComputePost, 64 < foldPoint <= 128 partials a row (sumTmpA, sumTmpB = sumTmp + 64)."""
    reg0, reg1, reg2 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    pMask, _ = R.UpdateMask("float", rSize - VL_FP32)
    pFull = R.CreateMask("float", R.MaskPattern.ALL)
    for i in range(loopTimes):
        R.LoadAlign(reg0, sumTmp, i * stride)
        R.LoadAlign(reg1, sumTmp, VL_FP32 + i * stride)
        R.Add(reg1, reg0, reg1, pMask, ZEROING)
        R.Move(reg0, reg1, pMask, MERGING)
        R.Reduce(reg2, reg0, pFull, R.ReduceType.SUM)
        R.Duplicate(reg2, reg2, pFull)
        sreg0 = oriR
        for j in range(rLoopCount):
            maskOri, sreg0 = R.UpdateMask("float", sreg0)
            offset = j * VL_FP32 + i * oriRAligned
            LoadTensorForDtypeTIn(x0, reg0, maskOri, offset, T)
            LoadTensorForDtypeTIn(x1, reg1, maskOri, offset, T)
            R.Mul(reg1, reg0, reg1, maskOri)
            R.Neg(reg0, reg0, maskOri)
            R.MulAddDst(reg1, reg0, reg2, maskOri)
            StoreTensorForDtypeTOut(dst, reg1, maskOri, offset, T)


SMALL_R_ONE_VF = R.simd_vf(small_r_one_vf)
SMALL_R_TWO_VF = R.simd_vf(small_r_two_vf)
NORM_COMPUTE_VF = R.simd_vf(norm_compute_vf)
POST_ONE_VF = R.simd_vf(post_one_vf)
POST_TWO_VF = R.simd_vf(post_two_vf)


class SoftmaxGradAR:
    def __init__(self, T, pipe):
        self.T, self.pipe_ = T, pipe

    def Init(self, x0, x1, y, tilingData):
        tl = self.tl_ = tilingData
        a, r, aBlockFactor = int(tl.a), int(tl.r), int(tl.aBlockFactor)
        last = aj.GetBlockIdx() == aj.GetBlockNum() - 1
        self.blockA_ = a - aBlockFactor * (aj.GetBlockNum() - 1) if last else aBlockFactor
        aGmOffset = aBlockFactor * aj.GetBlockIdx() * r
        self.x0Gm_, self.x1Gm_, self.yGm_ = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.x0Gm_.SetGlobalBuffer(x0[aGmOffset:])
        self.x1Gm_.SetGlobalBuffer(x1[aGmOffset:])
        self.yGm_.SetGlobalBuffer(y[aGmOffset:])
        ubBufferSize = int(tl.ubFactor) * int(tl.rAligned)
        size = TYPE_SIZE[self.T]
        self.x0Queue_ = aj.TQue(aj.QuePosition.VECIN, 1)
        self.x1Queue_ = aj.TQue(aj.QuePosition.VECIN, 1)
        self.yQueue_ = aj.TQue(aj.QuePosition.VECOUT, 1)
        self.binaryTmpLocalBuffer_ = aj.TBuf()
        self.pipe_.InitBuffer(self.x0Queue_, DOUBLE_BUFFER, ubBufferSize * size)
        self.pipe_.InitBuffer(self.x1Queue_, DOUBLE_BUFFER, ubBufferSize * size)
        self.pipe_.InitBuffer(self.yQueue_, DOUBLE_BUFFER, ubBufferSize * size)
        self.pipe_.InitBuffer(self.binaryTmpLocalBuffer_, max(int(tl.binaryTmpSize), 32))
        if ZERO_UNWRITTEN:
            self.ZeroUnwritten(ubBufferSize)

    def ZeroUnwritten(self, ubBufferSize):
        """Not in the original (module docstring): every queue buffer and the TBuf zeroed once."""
        T = self.T
        for que in (self.x0Queue_, self.x1Queue_):
            held = [que.AllocTensor(T) for _ in range(DOUBLE_BUFFER)]
            for t in held:
                aj.Duplicate(t, _NP[T](0), ubBufferSize)
                que.FreeTensor(t)
        tmp = self.binaryTmpLocalBuffer_.Get("float")
        aj.Duplicate(tmp, np.float32(0), tmp.GetSize())
        aj.PipeBarrier(aj.PIPE_V)

    def Process(self):
        ubFactor = int(self.tl_.ubFactor)
        ubLoop = -(-self.blockA_ // ubFactor)
        lastUbFactor = self.blockA_ - ubFactor * (ubLoop - 1)
        for ubLoopIdx in range(ubLoop):
            aOffset = ubLoopIdx * ubFactor * int(self.tl_.r)
            ubA = lastUbFactor if ubLoopIdx == ubLoop - 1 else ubFactor
            self.ProcessUB(ubA, aOffset)

    def ProcessUB(self, ubA, aOffset):
        if ubA <= 0 or int(self.tl_.r) <= 0:
            return
        self.CopyInX(ubA, aOffset)
        if int(self.tl_.r) <= 2 * VL_FP32:
            self.NormComputeSmallR(ubA)
        else:
            self.NormCompute(ubA)
        self.CopyOutY(ubA, aOffset)

    def NormComputeSmallR(self, aSize):
        T, tl = self.T, self.tl_
        rSize, rAligned = int(tl.r), int(tl.rAligned)
        x0Tensor, x1Tensor = self.x0Queue_.DeQue(T), self.x1Queue_.DeQue(T)
        dstTensor = self.yQueue_.AllocTensor(T)
        vf = SMALL_R_ONE_VF if rSize <= VL_FP32 else SMALL_R_TWO_VF
        R.asc_vf_call(vf, dstTensor, x0Tensor, x1Tensor, rSize, rAligned, aSize, T)
        self.yQueue_.EnQue(dstTensor)
        self.x0Queue_.FreeTensor(x0Tensor)
        self.x1Queue_.FreeTensor(x1Tensor)

    def NormCompute(self, aSize):
        T, tl = self.T, self.tl_
        x0Tensor, x1Tensor = self.x0Queue_.DeQue(T), self.x1Queue_.DeQue(T)
        dstTensor = self.yQueue_.AllocTensor(T)
        reduceSumTempTensor = self.binaryTmpLocalBuffer_.Get("float")
        r = int(tl.r)
        ceilVLCount = -(-(r * 4) // (VL_FP32 * 4))
        floorVLCount = (r * 4) // (VL_FP32 * 4)
        foldPoint = KernelFindNearestPower2(ceilVLCount)
        outerLoopTimes = aSize
        tailFoldLoopTimes = ceilVLCount - floorVLCount
        tailFoldElemCount = r - floorVLCount * VL_FP32
        mainFoldLoopTimes = floorVLCount - foldPoint
        unFoldLoopTimes = foldPoint + foldPoint - ceilVLCount
        outerLoopStride = int(tl.rAligned)
        outerLoopDstStride = -(-foldPoint // (BLOCK_SIZE // 4)) * (BLOCK_SIZE // 4)
        foldSrcBOffset = foldPoint * VL_FP32
        tailSrcAOffset = mainFoldLoopTimes * VL_FP32
        tailSrcBOffset = floorVLCount * VL_FP32
        unFoldSrcOffset = (mainFoldLoopTimes + tailFoldLoopTimes) * VL_FP32
        R.asc_vf_call(NORM_COMPUTE_VF, reduceSumTempTensor, x0Tensor, x1Tensor, outerLoopTimes, mainFoldLoopTimes,
                      tailFoldLoopTimes, unFoldLoopTimes, tailFoldElemCount, outerLoopStride, outerLoopDstStride,
                      foldSrcBOffset, tailSrcAOffset, tailSrcBOffset, unFoldSrcOffset, T)
        self.NormComputePost(dstTensor, x0Tensor, x1Tensor, reduceSumTempTensor, aSize, foldPoint,
                             outerLoopDstStride)
        self.yQueue_.EnQue(dstTensor)
        self.x0Queue_.FreeTensor(x0Tensor)
        self.x1Queue_.FreeTensor(x1Tensor)

    def NormComputePost(self, dstTensor, x0Tensor, x1Tensor, binAddTmpTensor, aSize, rSize, stride):
        if rSize <= 0 or rSize > 2 * VL_FP32:
            return
        tl = self.tl_
        vf = POST_ONE_VF if rSize <= VL_FP32 else POST_TWO_VF
        R.asc_vf_call(vf, dstTensor, x0Tensor, x1Tensor, binAddTmpTensor, rSize, stride, int(tl.r),
                      int(tl.rAligned), int(tl.rLoopCount), aSize, self.T)

    def CopyInX(self, ubA, offset):
        T, tl = self.T, self.tl_
        size = TYPE_SIZE[T]
        padParams = aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0))
        copyInParams = aj.DataCopyExtParams()
        copyInParams.blockCount = ubA
        copyInParams.blockLen = int(tl.r) * size
        copyInParams.srcStride = 0
        copyInParams.dstStride = (int(tl.rAligned) - int(tl.r)) * size // BLOCK_SIZE
        x0InUb = self.x0Queue_.AllocTensor(T)
        aj.DataCopyPad(x0InUb, self.x0Gm_[offset], copyInParams, padParams)
        self.x0Queue_.EnQue(x0InUb)
        x1InUb = self.x1Queue_.AllocTensor(T)
        aj.DataCopyPad(x1InUb, self.x1Gm_[offset], copyInParams, padParams)
        self.x1Queue_.EnQue(x1InUb)

    def CopyOutY(self, ubA, offset):
        T, tl = self.T, self.tl_
        size = TYPE_SIZE[T]
        copyOutParams = aj.DataCopyExtParams()
        copyOutParams.blockCount = ubA
        copyOutParams.blockLen = int(tl.r) * size
        copyOutParams.srcStride = (int(tl.rAligned) - int(tl.r)) * size // BLOCK_SIZE
        copyOutParams.dstStride = 0
        yOutUb = self.yQueue_.DeQue(T)
        aj.DataCopyPad(self.yGm_[offset], yOutUb, copyOutParams)
        self.yQueue_.FreeTensor(yOutUb)


aj.REGISTER_TILING_DEFAULT(SoftmaxGradARTilingData)


def softmax_grad(softmax, grad_softmax, grad_x, workspace, tiling_bytes, tiling_key, DTYPE_SOFTMAX):
    """The kernel entry (softmax_grad_apt.cpp), the TILINGKEY_AR branch only."""
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    if tiling_key == TILINGKEY_AR:
        tilingData = aj.GET_TILING_DATA_WITH_STRUCT(SoftmaxGradARTilingData, tiling_bytes)
        pipe = aj.TPipe()
        op = SoftmaxGradAR(DTYPE_SOFTMAX, pipe)
        op.Init(softmax, grad_softmax, grad_x, tilingData)
        op.Process()


def run_softmax_grad(device, y, dy):
    """y, dy: (a, r) arrays of one type; returns grad_x."""
    dtype = {np.dtype(np.float32): "float", np.dtype(np.float16): "half"}.get(y.dtype, "bfloat16")
    a, r = y.shape
    key, block_dim, tiling_bytes = tiling(device, a, r, dtype)
    out = np.zeros_like(y)
    workspace = np.zeros(32, np.uint8)
    aj.launch(softmax_grad, block_dim, device, y.reshape(-1), dy.reshape(-1), out.reshape(-1), workspace,
              tiling_bytes, key, dtype, bounds="ub")
    return out


# ---- the numpy model ----

def _tree(v):
    """Reduce SUM's adjacent-pair tree over the last axis (64 float32 lanes)."""
    v = v.astype(np.float32)
    while v.shape[-1] > 1:
        v = (v[..., 0::2] + v[..., 1::2]).astype(np.float32)
    return v[..., 0]


def _fma32(a, b, c):
    """float32 a * b + c rounded once (RNE): the float64 product is exact; TwoSum then round-to-odd makes the
    float64 -> float32 rounding a single one."""
    p = a.astype(np.float64) * b.astype(np.float64)
    c = c.astype(np.float64)
    s = p + c
    bb = s - p
    e = (p - (s - bb)) + (c - bb)
    bits = s.view(np.uint64)
    odd_fix = (e != 0) & ((bits & 1) == 0)
    s = np.where(odd_fix, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)
    return s.astype(np.float32)


def _row_sums(p):
    """The kernel's sum of each row of p (float32 products, shape (a, r)) in its order."""
    a, r = p.shape
    lanes = VL_FP32

    def vec(k, count=lanes):
        out = np.zeros((a, lanes), np.float32)
        out[:, :count] = p[:, k * lanes:k * lanes + count]
        return out

    if r <= lanes:
        return _tree(vec(0, r))
    if r <= 2 * lanes:
        head = vec(0)
        head[:, :r - lanes] = (head[:, :r - lanes] + p[:, lanes:r]).astype(np.float32)
        return _tree(head)
    ceil_vl, floor_vl = -(-r // lanes), r // lanes
    fp = FindNearestPower2(ceil_vl)
    main = floor_vl - fp
    tail = ceil_vl - floor_vl
    parts = []
    for j in range(main):
        parts.append(_tree((vec(j) + vec(fp + j)).astype(np.float32)))
    for j in range(tail):
        t = r - floor_vl * lanes
        head = vec(main + j)
        head[:, :t] = (head[:, :t] + p[:, floor_vl * lanes:r]).astype(np.float32)
        parts.append(_tree(head))
    for j in range(2 * fp - ceil_vl):
        parts.append(_tree(vec(main + tail + j)))
    parts = np.stack(parts, axis=1)
    if fp <= lanes:
        pad = np.zeros((a, lanes), np.float32)
        pad[:, :fp] = parts
        return _tree(pad)
    head = parts[:, :lanes].copy()
    head[:, :fp - lanes] = (head[:, :fp - lanes] + parts[:, lanes:]).astype(np.float32)
    return _tree(head)


def softmax_grad_model(y, dy):
    """grad_x in the kernel's float32 order: p = y * dy rounded, s the row sums in the fold/tree order,
    fma(-y, s, p) rounded once, then RNE to the element type."""
    yf, dyf = y.astype(np.float32), dy.astype(np.float32)
    p = (yf * dyf).astype(np.float32)
    s = _row_sums(p)
    out = _fma32(-yf, np.broadcast_to(s[:, None], yf.shape), p)
    return out.astype(y.dtype)


def _make_inputs(dtype, r):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        a = max(1, size // r)
        logits = rng.standard_normal((a, r)).astype(np.float64)
        y = np.exp(logits - logits.max(axis=1, keepdims=True))
        y = (y / y.sum(axis=1, keepdims=True)).astype(np.float32)
        dy = rng.uniform(-1.0, 1.0, (a, r)).astype(np.float32)
        return {"y": y.astype(_NP[dtype]), "dy": dy.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"grad_x": run_softmax_grad(device, inputs["y"], inputs["dy"])}


def _expected(device, inputs):
    return {"grad_x": softmax_grad_model(inputs["y"], inputs["dy"])}


def _size_ok(n):
    return 0 < n <= 1 << 22


_SOURCE = "hicann/ops-nn@e5c3fa93 activation/softmax_grad/op_kernel/arch35/softmax_grad_ar_full_load.h"
KERNELS = [
    KernelSpec("softmax_grad_ar", "ops-nn SoftmaxGrad AR full load, 950 arch35, float rows of 1000: a VF folding "
               "each row's vectors (Mul, Add, Move MERGING, Reduce SUM, StoreUnAlign of one float), a VF of "
               "Reduce, Duplicate lane 0, Mul, Neg, MulAddDst", _make_inputs("float", 1000), _run, _expected,
               default_size=64 * 1000, devices=("ascend950",), size_rule="1 to 4Mi elements (rows of 1000)",
               size_ok=_size_ok, source=_SOURCE),
    KernelSpec("softmax_grad_ar_half", "ops-nn SoftmaxGrad AR full load, half rows of 100 (NormComputeSmallR's "
               "two-vector fold), DIST_UNPACK_B16 / Cast / DIST_PACK_B32", _make_inputs("half", 100), _run,
               _expected, default_size=64 * 100, devices=("ascend950",), size_rule="1 to 4Mi elements (rows of 100)",
               size_ok=_size_ok, source=_SOURCE),
    KernelSpec("softmax_grad_ar_bf16", "ops-nn SoftmaxGrad AR full load, bfloat16 rows of 9000 (128 partials: "
               "NormComputePost's two-vector fold)", _make_inputs("bfloat16", 9000), _run, _expected,
               default_size=16 * 9000, devices=("ascend950",), size_rule="1 to 4Mi elements (rows of 9000)",
               size_ok=_size_ok, source=_SOURCE),
]
