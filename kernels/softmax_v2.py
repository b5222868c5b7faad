"""SoftmaxV2 over the last axis, the Ascend 950 (arch35) AR full-load kernel: y = exp(x - max(x)) / sum(exp(x - max(x)))
row by row, over float, half, bfloat16 and half -> float (16-bit types computed in float lanes).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, activation/softmax_v2:
- op_kernel/softmax_v2_apt.cpp (the entry: TILING_KEY_IS(1000) runs SOFTMAX_V2_AR_IMPL: GET_TILING_DATA_WITH_STRUCT
  of SoftmaxV2ARTilingData, a TPipe, `SoftmaxV2AR<DTYPE_X, DTYPE_Y>`; KERNEL_TASK_TYPE_DEFAULT(AIV_ONLY));
- op_kernel/arch35/softmax_v2_ar_full_load.h (`SoftmaxV2AR`): Init (the core's rows from blockIdx * aBlockFactor, the
  last core the rest; a double-buffered VECIN and VECOUT queue of ubFactor * rAligned elements, one float TBuf of
  ubFactor * rAligned floats plus binaryTmpSize bytes), Process (ubFactor-row tiles, the last short), ProcessUB
  (CopyInX: DataCopyPad of ubA rows of r elements, dstStride the row padding in blocks; FirstNormCompute;
  SecondNormCompute; CopyOutY: DataCopyPad with srcStride the padding), FirstNormCompute's __VEC_SCOPE__ (per row:
  Duplicate -inf, the last vector first -- Max under the tail mask (ZEROING) and Move MERGING into the running
  vector --, then Max of the other vectors, Reduce MAX, Duplicate of lane 0, and per vector Sub, Exp, StoreAlign into
  the float TBuf), SecondNormCompute (r <= 128: straight to SecondNormComputePost; otherwise the fold's
  __VEC_SCOPE__: foldPoint = the largest power of two below the vector count, per row Add of vector j and vector
  j + foldPoint, Reduce SUM, one float each by a post-updating StoreUnAlign (the tail vector's Add under its mask,
  Move MERGING), the unfolded vectors reduced alone, StoreUnAlignPost; then SecondNormComputePost over the foldPoint
  partial sums a row), SecondNormComputePost (r <= 64: LoadAlign, Reduce SUM under the count's mask; r <= 128: Add
  of the two halves under the second's mask, Move MERGING, Reduce SUM of the whole vector; Duplicate of lane 0, and
  per vector LoadAlign, Div, StoreTensorForDtypeTOut), LoadTensorForDtypeTIn (LoadAlign, or DIST_UNPACK_B16 and Cast
  {ZERO, UNKNOWN, ZEROING, UNKNOWN} under the mask) and StoreTensorForDtypeTOut (StoreAlign, or Cast {ZERO, NO_SAT,
  ZEROING, CAST_RINT} and DIST_PACK_B32);
- op_kernel/arch35/softmax_v2_base.h (the CastTraits, VL_FP32, FindNearestPower2);
- op_host/arch35/softmax_v2_ar_full_load_tiling.cpp, softmax_v2_base_tiling.cpp, softmax_v2_ar_small_r_tiling.cpp and
  softmax_v2_tiling.h (the axes merged to (a1, r, a0); the AR template when a0 = 1, r <= 16384 and the small-r
  template (priority 50) declines it: r > 16 or a1 within [5, 160] x cores; rAligned, binaryTmpPerRow, ubFactor =
  (UB - 1 KB) / (rAligned * (4 + 2 * sizeof(x) + 2 * sizeof(y)) + binaryTmpPerRow), aBlockFactor = ceil(a1 / cores),
  block dim ceil(a1 / aBlockFactor)).

The __VEC_SCOPE__s are `@aj.Reg.simd_vf` functions called by `R.asc_vf_call`; the helpers LoadTensorForDtypeTIn /
StoreTensorForDtypeTOut are `@aj.Reg.simd_callee`s. A `__ubuf__` pointer plus an offset is a (tensor, offset) pair,
the fold's `StoreUnAlign((__ubuf__ float*&)dst, ...)` returns the advanced offset.

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original); the platform UB is the emulator's
248 KiB. TILING_KEY_IS is not offered: the entry takes the key as an argument; only key 1000 (AR full load) is
ported, the host refuses shapes the other templates take. The VFs load whole vectors (64 floats, or 64 16-bit
elements by DIST_UNPACK_B16): a row's last vector reads past the row (harmless on the device: the lanes are outside
the masks), so the last row of a tile reads past the x buffer, and the reduce loads past the float TBuf (up to
64 floats from the last row's start); a default core refuses reads past a tensor, and the sanitizer reported the
uninitialised bytes before session 54 (with the lane tracking not: those lanes never reach a store). The port adds
that slack to the x buffers and the TBuf (the tiling's 1 KB reserve holds it), zeroes the TBuf once and the slack
after each tile's rows by Duplicate (the zeroing kept from before, no longer needed for the init check);
`ORIGINAL_WHOLE_VECTOR_LOADS = True` runs the original's buffer sizes with `aj.launch(..., bounds="ub")` and no
zeroing (the sanitizer reported the reads outside the tensors before session 66; now none: those lanes never
reach a store). ProcessUB takes
`tmpLocalTensor[ubFactor * rAligned]` for the partial sums even when r <= 128 gives them no bytes: a view at the
tensor's end, which the devkit's own `LocalTensor::operator[]` asserts against (ASCENDC_DEBUG_ASSERT(dataLen >
offset * sizeof(T)), a debug build's check) and ascend_jit refuses (OutOfBoundsError, legal [0, size)); the port
makes no view there (it is unused when r <= 128).

Fidelity: MODELLED (Reg Exp, Reg Div in its default mode: D37, D38); Max, Reduce, Add, Sub, Move, the Casts and the
moves are BIT-EXACT. The emulator's Exp and Div are the exact result rounded once (RNE), subnormals flushed, so the
expectation replays the kernel's float32 sequence in numpy (exp in float64 rounded to float32, the fold order and
Reduce's adjacent-pair tree) and is checked bit for bit; tests/test_port40pe_kernels.py also checks float64 softmax
within a few ulp.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
ZEROING, MERGING = R.MaskMergeMode.ZEROING, R.MaskMergeMode.MERGING
CORE_NUM = 8                     # deviation: the launch's cores (GetCoreNumAiv in the original)
ORIGINAL_WHOLE_VECTOR_LOADS = False
VL_FP32 = 64
BLOCK_SIZE = 32
DOUBLE_BUFFER = 2
UB_RESERVED_BYTE = 1024
R_MAX_VALUE = 16384
DATA_BLOCK_COUNT, MAX_A_LEN, MIN_A_LEN = 16, 160, 5
FP32_BLOCK_ALIGN_NUM = 8
TILINGKEY_AR_SMALL_R, TILINGKEY_AR, TILINGKEY_AR_RECOMPUTE = 500, 1000, 2000
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}

SoftmaxV2ARTilingData = np.dtype([(f, np.int64) for f in ("a", "r", "rAligned", "ubFactor", "aBlockFactor",
                                                          "rLoopCount", "binaryTmpSize")])

castTraitFp16ToFp32 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, ZEROING, aj.RoundMode.UNKNOWN)
castTraitFp32ToFp16 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, ZEROING, aj.RoundMode.CAST_RINT)


def find_nearest_power2(value):
    """FindNearestPower2 (host and kernel): 0 for 1, else the largest power of two below value."""
    if value <= 1:
        return 0
    if value <= 2:
        return 1
    if value <= 4:
        return 2
    return 1 << (63 - (64 - (value - 1).bit_length()))


def tiling(device, a1, r, x_dtype, y_dtype):
    """SoftmaxV2TilingAR (after the base tiling's axis merge, a0 = 1): (tiling key, block dim, packed tiling)."""
    cores = CORE_NUM
    if r == 1:
        raise aj.ParameterError("softmax_v2 tiling", "r", r, legal="at least 2 (r = 1 merges into a0: the ARA "
                                "template, not ported)", device=device)
    if r <= DATA_BLOCK_COUNT and not (cores * MIN_A_LEN <= a1 <= cores * MAX_A_LEN):
        raise aj.ParameterError("softmax_v2 tiling", "(a, r)", (a1, r), legal=f"r > {DATA_BLOCK_COUNT} or a within "
                                f"[{cores * MIN_A_LEN}, {cores * MAX_A_LEN}] (the AR small-r template, key 500, is "
                                "not ported)", device=device)
    if r > R_MAX_VALUE:
        raise aj.ParameterError("softmax_v2 tiling", "r", r, legal=f"at most {R_MAX_VALUE} (the AR recompute "
                                "template, key 2000, is not ported)", device=device)
    xs, ys = TYPE_SIZE[x_dtype], TYPE_SIZE[y_dtype]
    r_aligned = -(-r // (BLOCK_SIZE // xs)) * (BLOCK_SIZE // xs)
    binary_tmp_per_row = 0
    if r > 2 * VL_FP32:
        fold = find_nearest_power2(-(-r // VL_FP32))
        binary_tmp_per_row = -(-fold // FP32_BLOCK_ALIGN_NUM) * FP32_BLOCK_ALIGN_NUM * 4
    ub_size = aj.get_device(device).ub_bytes
    ub_factor = (ub_size - UB_RESERVED_BYTE) // (r_aligned * 4 + DOUBLE_BUFFER * r_aligned * xs +
                                                 DOUBLE_BUFFER * r_aligned * ys + binary_tmp_per_row)
    if ub_factor <= 0:
        raise aj.ParameterError("softmax_v2 tiling", "r", r, legal="a row that fits the UB (ubFactor 0: the AR "
                                "recompute template, key 2000, is not ported)", device=device)
    a_block_factor = -(-a1 // cores)
    used = -(-a1 // a_block_factor)
    ub_factor = min(ub_factor, a_block_factor)
    t = np.zeros(1, SoftmaxV2ARTilingData)
    t["a"], t["r"], t["rAligned"], t["aBlockFactor"] = a1, r, r_aligned, a_block_factor
    t["rLoopCount"] = -(-r_aligned // VL_FP32)
    t["ubFactor"], t["binaryTmpSize"] = ub_factor, ub_factor * binary_tmp_per_row
    return TILINGKEY_AR, used, t.view(np.uint8).copy()


@R.simd_callee
def LoadTensorForDtypeTIn(src, dst, preg, offset, T_in):
    if T_in == "float":
        R.LoadAlign(dst, src[offset])
    else:
        xFp16 = R.RegTensor(T_in)
        R.LoadAlign(xFp16, src[offset], dist=R.LoadDist.DIST_UNPACK_B16)
        R.Cast(dst, xFp16, preg, castTraitFp16ToFp32)


@R.simd_callee
def StoreTensorForDtypeTOut(dst, src, preg, offset, T_out):
    if T_out == "float":
        R.StoreAlign(dst[offset], src, preg)
    else:
        xFp16 = R.RegTensor(T_out)
        R.Cast(xFp16, src, preg, castTraitFp32ToFp16)
        R.StoreAlign(dst[offset], xFp16, preg, dist=R.StoreDist.DIST_PACK_B32)


def first_norm_vf(xInAddr, xTmpLocalAddr, ubActualA, rAligned, ubActualR, rLoopCount, T_in):
    """FirstNormCompute's __VEC_SCOPE__: per row the max, then exp(x - max) into the float TBuf."""
    tailUbBlockSize = ubActualR - VL_FP32 * (rLoopCount - 1)
    vreg0, vreg1, vreg2 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    vreg3, vreg4, vreg5 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    maskTail, _ = R.UpdateMask("uint32", tailUbBlockSize)
    maskAll, _ = R.UpdateMask("uint32", VL_FP32)
    for k in range(ubActualA):
        tailAddrPtr = k * rAligned + VL_FP32 * (rLoopCount - 1)
        R.Duplicate(vreg0, -np.inf, maskAll)
        LoadTensorForDtypeTIn(xInAddr, vreg1, maskTail, tailAddrPtr, T_in)
        R.Max(vreg1, vreg0, vreg1, maskTail)
        R.Move(vreg0, vreg1, maskTail, MERGING)
        sreg2 = ubActualR - tailUbBlockSize
        for i in range(rLoopCount - 1):
            maskMax, sreg2 = R.UpdateMask("float", sreg2)
            addrPtr = i * VL_FP32 + k * rAligned
            LoadTensorForDtypeTIn(xInAddr, vreg1, maskMax, addrPtr, T_in)
            R.Max(vreg0, vreg0, vreg1, maskMax)
        R.Reduce(vreg2, vreg0, maskAll, reduce_type=R.ReduceType.MAX)
        R.Duplicate(vreg3, vreg2, maskAll)
        sreg3 = ubActualR
        for i in range(rLoopCount):
            maskSub, sreg3 = R.UpdateMask("float", sreg3)
            addrPtr = i * VL_FP32 + k * rAligned
            LoadTensorForDtypeTIn(xInAddr, vreg1, maskSub, addrPtr, T_in)
            R.Sub(vreg4, vreg1, vreg3, maskSub)
            R.Exp(vreg5, vreg4, maskSub)
            R.StoreAlign(xTmpLocalAddr[addrPtr], vreg5, maskSub)


def post_one_vf(dst, src, oriSrc, loopTimes, stride, rSize, rLoopCount, oriR, oriRAligned, T_out):
    """SecondNormComputePost, rSize <= 64: a row's sum by one Reduce SUM, then every vector divided by it."""
    aReg, bReg, cReg, dReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    pMask, _ = R.UpdateMask("float", rSize)
    pFull = R.CreateMask("float", R.MaskPattern.ALL)
    for i in range(loopTimes):
        R.LoadAlign(aReg, src[i * stride])
        R.Reduce(bReg, aReg, pMask, reduce_type=R.ReduceType.SUM)
        R.Duplicate(cReg, bReg, pFull)
        sreg0 = oriR
        for j in range(rLoopCount):
            maskOri, sreg0 = R.UpdateMask("float", sreg0)
            addrPtr = j * VL_FP32 + i * oriRAligned
            R.LoadAlign(dReg, oriSrc[addrPtr])
            R.Div(dReg, dReg, cReg, maskOri)
            StoreTensorForDtypeTOut(dst, dReg, maskOri, addrPtr, T_out)


def post_two_vf(dst, src, oriSrc, loopTimes, stride, rSize, rLoopCount, oriR, oriRAligned, T_out):
    """SecondNormComputePost, 64 < rSize <= 128: the two halves added (Move MERGING), one Reduce SUM, the Divs."""
    aReg, bReg, cReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    dReg, eReg = R.RegTensor("float"), R.RegTensor("float")
    pMask, _ = R.UpdateMask("float", rSize - VL_FP32)
    pFull = R.CreateMask("float", R.MaskPattern.ALL)
    for i in range(loopTimes):
        R.LoadAlign(aReg, src[i * stride])
        R.LoadAlign(bReg, src[VL_FP32 + i * stride])
        R.Add(cReg, aReg, bReg, pMask, ZEROING)
        R.Move(aReg, cReg, pMask, MERGING)
        R.Reduce(bReg, aReg, pFull, reduce_type=R.ReduceType.SUM)
        R.Duplicate(dReg, bReg, pFull)
        sreg0 = oriR
        for j in range(rLoopCount):
            maskOri, sreg0 = R.UpdateMask("float", sreg0)
            addrPtr = j * VL_FP32 + i * oriRAligned
            R.LoadAlign(eReg, oriSrc[addrPtr])
            R.Div(eReg, eReg, dReg, maskOri)
            StoreTensorForDtypeTOut(dst, eReg, maskOri, addrPtr, T_out)


def fold_vf(reduceSumTemp, src, outerLoopTimes, outerLoopStride, outerLoopDstStride, mainFoldLoopTimes,
            tailFoldLoopTimes, tailFoldElemCount, unFoldLoopTimes, foldSrcBOffset, tailSrcAOffset, tailSrcBOffset,
            unFoldSrcOffset):
    """SecondNormCompute's __VEC_SCOPE__ (rSize > 128): foldPoint partial sums a row by post-updating StoreUnAlign."""
    pFull = R.CreateMask("float", R.MaskPattern.ALL)
    UReg = R.UnalignRegForStore()
    aReg, bReg, cReg, dReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    dst = 0
    for i in range(outerLoopTimes):
        dst = i * outerLoopDstStride
        for j in range(mainFoldLoopTimes):
            R.LoadAlign(aReg, src[i * outerLoopStride + j * VL_FP32])
            R.LoadAlign(bReg, src[foldSrcBOffset + i * outerLoopStride + j * VL_FP32])
            R.Add(cReg, aReg, bReg, pFull, ZEROING)
            R.Reduce(dReg, cReg, pFull, reduce_type=R.ReduceType.SUM)
            dst = R.StoreUnAlign(reduceSumTemp, dReg, UReg, dst, 1)
        for j in range(tailFoldLoopTimes):
            pMask, _ = R.UpdateMask("float", tailFoldElemCount)
            R.LoadAlign(aReg, src[tailSrcAOffset + i * outerLoopStride + j * VL_FP32])
            R.LoadAlign(bReg, src[tailSrcBOffset + i * outerLoopStride + j * VL_FP32])
            R.Add(cReg, aReg, bReg, pMask, ZEROING)
            R.Move(aReg, cReg, pMask, MERGING)
            R.Reduce(bReg, aReg, pFull, reduce_type=R.ReduceType.SUM)
            dst = R.StoreUnAlign(reduceSumTemp, bReg, UReg, dst, 1)
        for j in range(unFoldLoopTimes):
            R.LoadAlign(aReg, src[unFoldSrcOffset + i * outerLoopStride + j * VL_FP32])
            R.Reduce(bReg, aReg, pFull, reduce_type=R.ReduceType.SUM)
            dst = R.StoreUnAlign(reduceSumTemp, bReg, UReg, dst, 1)
        dst = R.StoreUnAlignPost(reduceSumTemp, UReg, dst, 0)


FIRST_NORM_VF = R.simd_vf(first_norm_vf)
POST_ONE_VF = R.simd_vf(post_one_vf)
POST_TWO_VF = R.simd_vf(post_two_vf)
FOLD_VF = R.simd_vf(fold_vf)


def _slack(tl):
    """Elements a row's whole-vector loads read past the row (the deviation's buffer slack)."""
    return VL_FP32 * int(tl.rLoopCount) - int(tl.rAligned)


class SoftmaxV2AR:
    """SoftmaxV2AR<T_in, T_out>."""

    def __init__(self, pipe, T_in, T_out):
        self.pipe_, self.T_in, self.T_out = pipe, T_in, T_out

    def Init(self, x, y, tilingData):
        self.tl_ = tl = tilingData
        a, ab, r = int(tl.a), int(tl.aBlockFactor), int(tl.r)
        self.blockA_ = a - ab * (aj.GetBlockNum() - 1) if aj.GetBlockIdx() == aj.GetBlockNum() - 1 else ab
        aGmOffset = ab * aj.GetBlockIdx() * r
        self.xGm_, self.yGm_ = aj.GlobalTensor(self.T_in), aj.GlobalTensor(self.T_out)
        self.xGm_.SetGlobalBuffer(x[aGmOffset:])
        self.yGm_.SetGlobalBuffer(y[aGmOffset:])
        ubBufferSize = int(tl.ubFactor) * int(tl.rAligned)
        self.xQueue_ = aj.TQue(aj.QuePosition.VECIN, 1)
        self.yQueue_ = aj.TQue(aj.QuePosition.VECOUT, 1)
        self.tmpLocalBuffer_ = aj.TBuf(aj.QuePosition.VECCALC)
        xs, tmp_floats = TYPE_SIZE[self.T_in], ubBufferSize + int(tl.binaryTmpSize) // 4
        x_bytes, tmp_bytes = ubBufferSize * xs, tmp_floats * 4
        if not ORIGINAL_WHOLE_VECTOR_LOADS:     # deviation (docstring): the whole-vector loads' slack
            x_bytes += aj.AlignUp(_slack(tl) * xs, BLOCK_SIZE)
            tmp_bytes += aj.AlignUp(self._tmp_slack() * 4, BLOCK_SIZE)
        self.pipe_.InitBuffer(self.xQueue_, DOUBLE_BUFFER, x_bytes)
        self.pipe_.InitBuffer(self.yQueue_, DOUBLE_BUFFER, ubBufferSize * TYPE_SIZE[self.T_out])
        self.pipe_.InitBuffer(self.tmpLocalBuffer_, tmp_bytes)
        if not ORIGINAL_WHOLE_VECTOR_LOADS:     # deviation: the TBuf's never-stored lanes read as zeros
            tmp = self.tmpLocalBuffer_.Get("float")
            aj.Duplicate(tmp, np.float32(0), tmp_bytes // 4)

    def _tmp_slack(self):
        """Floats the reduce loads read past the TBuf: the last row's vectors, or its partial sums (r > 128)."""
        tl = self.tl_
        slack = _slack(tl)
        if int(tl.r) > 2 * VL_FP32:
            fold = find_nearest_power2(-(-int(tl.r) // VL_FP32))
            stride = aj.AlignUp(fold, FP32_BLOCK_ALIGN_NUM)
            slack += max(0, VL_FP32 - stride)
        return slack

    def Process(self):
        tl = self.tl_
        ubFactor, r = int(tl.ubFactor), int(tl.r)
        ubLoop = aj.CeilDivision(self.blockA_, ubFactor)
        lastUbFactor = self.blockA_ - ubFactor * (ubLoop - 1)
        for ubLoopIdx in range(ubLoop):
            aOffset = ubLoopIdx * ubFactor * r
            ubA = lastUbFactor if ubLoopIdx == ubLoop - 1 else ubFactor
            self.ProcessUB(ubA, aOffset)

    def ProcessUB(self, ubA, aOffset):
        tl = self.tl_
        xInUb = self.xQueue_.AllocTensor(self.T_in)
        self.CopyInX(xInUb, ubA, aOffset)
        self.xQueue_.EnQue(xInUb)
        xInUb = self.xQueue_.DeQue(self.T_in)
        tmpLocalTensor = self.tmpLocalBuffer_.Get("float")
        end = int(tl.ubFactor) * int(tl.rAligned)
        # deviation (docstring): no past-the-end view when the TBuf ends there (r <= 128 and no slack)
        binaryTmpLocalTensor = tmpLocalTensor[end] if end < tmpLocalTensor.GetSize() else None
        xTmpLocalTensor = tmpLocalTensor[0]
        self.FirstNormCompute(ubA, xInUb, xTmpLocalTensor)
        self.xQueue_.FreeTensor(xInUb)
        yInUb = self.yQueue_.AllocTensor(self.T_out)
        self.SecondNormCompute(yInUb, xTmpLocalTensor, binaryTmpLocalTensor, ubA, int(tl.r), int(tl.rAligned))
        self.yQueue_.EnQue(yInUb)
        yOutUb = self.yQueue_.DeQue(self.T_out)
        self.CopyOutY(yOutUb, ubA, aOffset)
        self.yQueue_.FreeTensor(yOutUb)

    def FirstNormCompute(self, ubA, xInAddr, xTmpLocalAddr):
        tl = self.tl_
        R.asc_vf_call(FIRST_NORM_VF, xInAddr, xTmpLocalAddr, ubA, int(tl.rAligned), int(tl.r), int(tl.rLoopCount),
                      self.T_in)

    def SecondNormComputePost(self, dstTensor, srcTensor, oriSrcTensor, aSize, rSize, stride):
        tl = self.tl_
        if aSize <= 0 or rSize <= 0 or rSize > 2 * VL_FP32:
            return
        vf = POST_ONE_VF if rSize <= VL_FP32 else POST_TWO_VF
        R.asc_vf_call(vf, dstTensor, srcTensor, oriSrcTensor, aSize, stride, rSize, int(tl.rLoopCount), int(tl.r),
                      int(tl.rAligned), self.T_out)

    def SecondNormCompute(self, dstTensor, srcTensor, reduceSumTempTensor, aSize, rSize, stride):
        if aSize <= 0 or rSize <= 0:
            return
        if rSize <= 2 * VL_FP32:
            self.SecondNormComputePost(dstTensor, srcTensor, srcTensor, aSize, rSize, stride)
            return
        ceilVLCount = aj.CeilDivision(rSize * 4, aj.GetVecLen())
        floorVLCount = rSize * 4 // aj.GetVecLen()
        foldPoint = find_nearest_power2(ceilVLCount)
        tailFoldLoopTimes = ceilVLCount - floorVLCount
        tailFoldElemCount = rSize - floorVLCount * VL_FP32
        mainFoldLoopTimes = floorVLCount - foldPoint
        unFoldLoopTimes = foldPoint + foldPoint - ceilVLCount
        outerLoopDstStride = aj.AlignUp(foldPoint, BLOCK_SIZE // 4)
        R.asc_vf_call(FOLD_VF, reduceSumTempTensor, srcTensor, aSize, stride, outerLoopDstStride, mainFoldLoopTimes,
                      tailFoldLoopTimes, tailFoldElemCount, unFoldLoopTimes, foldPoint * VL_FP32,
                      mainFoldLoopTimes * VL_FP32, floorVLCount * VL_FP32,
                      (mainFoldLoopTimes + tailFoldLoopTimes) * VL_FP32)
        self.SecondNormComputePost(dstTensor, reduceSumTempTensor, srcTensor, aSize, foldPoint, outerLoopDstStride)

    def CopyInX(self, xInUb, ubA, offset):
        tl = self.tl_
        T, xs = self.T_in, TYPE_SIZE[self.T_in]
        if not ORIGINAL_WHOLE_VECTOR_LOADS and _slack(tl) > 0:   # deviation (docstring): past the tile's rows
            aj.Duplicate(xInUb[ubA * int(tl.rAligned)], _NP[T](0), _slack(tl))
        padParams = aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0))
        copyInParams = aj.DataCopyExtParams()
        copyInParams.blockCount = ubA
        copyInParams.blockLen = int(tl.r) * xs
        copyInParams.srcStride = 0
        copyInParams.dstStride = (int(tl.rAligned) - int(tl.r)) * xs // BLOCK_SIZE
        aj.DataCopyPad(xInUb, self.xGm_[offset], copyInParams, padParams)

    def CopyOutY(self, yOutUb, ubA, offset):
        tl = self.tl_
        ys = TYPE_SIZE[self.T_out]
        copyOutParams = aj.DataCopyExtParams()
        copyOutParams.blockCount = ubA
        copyOutParams.blockLen = int(tl.r) * ys
        copyOutParams.srcStride = (int(tl.rAligned) - int(tl.r)) * ys // BLOCK_SIZE
        copyOutParams.dstStride = 0
        aj.DataCopyPad(self.yGm_[offset], yOutUb, copyOutParams)


aj.REGISTER_TILING_DEFAULT(SoftmaxV2ARTilingData)


def softmax_v2(x, y, workspace, tiling_bytes, tiling_key, DTYPE_X, DTYPE_Y):
    """The kernel entry (softmax_v2_apt.cpp); tiling_key stands for TILING_KEY_IS, DTYPE_X / DTYPE_Y for the build."""
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    if tiling_key == TILINGKEY_AR:
        tilingData = aj.GET_TILING_DATA_WITH_STRUCT(SoftmaxV2ARTilingData, tiling_bytes)
        pipe = aj.TPipe()
        op = SoftmaxV2AR(pipe, DTYPE_X, DTYPE_Y)
        op.Init(x, y, tilingData)
        op.Process()
    else:
        raise aj.ParameterError("softmax_v2", "tiling_key", tiling_key, legal=f"{TILINGKEY_AR} (the AR full-load "
                                "template; the others are not ported)", device="ascend950")


_NAMES = {np.dtype(v): k for k, v in _NP.items()}


def run_softmax_v2(device, inputs, y_dtype=None):
    x = inputs["x"]
    a1, r = x.shape
    x_dtype = _NAMES[x.dtype]
    y_dtype = y_dtype or x_dtype
    key, block_dim, tiling_bytes = tiling(device, a1, r, x_dtype, y_dtype)
    y = np.zeros((a1, r), _NP[y_dtype])
    workspace = np.zeros(32, np.uint8)
    aj.launch(softmax_v2, block_dim, device, x.reshape(-1), y.reshape(-1), workspace, tiling_bytes, key, x_dtype,
              y_dtype, bounds="ub" if ORIGINAL_WHOLE_VECTOR_LOADS else "tensor")
    return {"y": y}


def _pair_tree(v):
    """Reduce SUM of a 64-lane float32 vector: the adjacent-pair tree, one RNE an add."""
    v = v.astype(np.float32)
    while v.shape[-1] > 1:
        v = (v[..., 0::2] + v[..., 1::2]).astype(np.float32)
    return v[..., 0]


def _ftz(v):
    v = v.astype(np.float32)
    return np.where(np.abs(v) < np.finfo(np.float32).tiny, np.float32(0) * np.sign(v), v).astype(np.float32)


def expected_softmax_v2(inputs, y_dtype=None):
    """The kernel's float32 sequence in numpy: row max, exp(x - max) (float64 exp rounded once, flushed), the sums
    in the fold / Reduce order, x / sum (RNE), RNE to the output type."""
    x = inputs["x"]
    y_dtype = y_dtype or _NAMES[x.dtype]
    xf = x.astype(np.float32)
    a1, r = xf.shape
    m = xf.max(axis=1, keepdims=True)
    with np.errstate(all="ignore"):
        e = _ftz(np.exp((xf - m).astype(np.float32).astype(np.float64)))
    nv = -(-r // VL_FP32)
    pad = np.zeros((a1, nv * VL_FP32), np.float32)
    pad[:, :r] = e
    vec = pad.reshape(a1, nv, VL_FP32)
    if r <= VL_FP32:
        s = _pair_tree(vec[:, 0])
    elif r <= 2 * VL_FP32:
        s = _pair_tree((vec[:, 0] + vec[:, 1]).astype(np.float32))
    else:
        fold = find_nearest_power2(nv)
        partial = []
        for j in range(fold):            # vectors j and j + fold (when it exists) added, then reduced
            v = vec[:, j] if j + fold >= nv else (vec[:, j] + vec[:, j + fold]).astype(np.float32)
            partial.append(_pair_tree(v))
        part = np.stack(partial, axis=1)
        if fold <= VL_FP32:
            p = np.zeros((a1, VL_FP32), np.float32)
            p[:, :fold] = part
            s = _pair_tree(p)
        else:
            s = _pair_tree((part[:, :VL_FP32] + part[:, VL_FP32:]).astype(np.float32))
    with np.errstate(all="ignore"):
        y = _ftz(e / s[:, None].astype(np.float32))
    return {"y": y.astype(_NP[y_dtype])}


def _make_inputs(dtype, r):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        a1 = max(1, size // r)
        x = rng.uniform(-5, 5, (a1, r)).astype(np.float32)
        return {"x": x.astype(_NP[dtype])}
    return make_inputs


def _run(y_dtype=None):
    return lambda device, inputs: run_softmax_v2(device, inputs, y_dtype)


def _expected(y_dtype=None):
    return lambda device, inputs: expected_softmax_v2(inputs, y_dtype)


def _size_ok(r):
    return lambda n: r <= n <= 1 << 22


_SOURCE = "hicann/ops-nn@e5c3fa93 activation/softmax_v2/op_kernel/arch35/softmax_v2_ar_full_load.h"
KERNELS = [
    KernelSpec("softmax_v2", "ops-nn SoftmaxV2, 950 arch35 AR full load, float rows of 1000: a VF of Max (the tail "
               "vector first, Move MERGING), Reduce MAX, Duplicate, Sub, Exp; a fold VF of Add and Reduce SUM into "
               "partial sums by post-updating StoreUnAlign; a VF of Reduce SUM and Div", _make_inputs("float", 1000),
               _run(), _expected(), default_size=200000, devices=("ascend950",), size_rule="1000 to 4Mi elements",
               size_ok=_size_ok(1000), tolerance=None, source=_SOURCE),
    KernelSpec("softmax_v2_half", "ops-nn SoftmaxV2 arch35 AR, half rows of 100 (DIST_UNPACK_B16 + Cast, two-half "
               "Add with Move MERGING before Reduce SUM, Cast CAST_RINT + DIST_PACK_B32)", _make_inputs("half", 100),
               _run(), _expected(), default_size=200000, devices=("ascend950",), size_rule="100 to 4Mi elements",
               size_ok=_size_ok(100), source=_SOURCE),
    KernelSpec("softmax_v2_bf16", "ops-nn SoftmaxV2 arch35 AR, bfloat16 rows of 37 (one masked vector a row)",
               _make_inputs("bfloat16", 37), _run(), _expected(), default_size=100000, devices=("ascend950",),
               size_rule="37 to 4Mi elements", size_ok=_size_ok(37), source=_SOURCE),
    KernelSpec("softmax_v2_half_to_float", "ops-nn SoftmaxV2 arch35 AR, half in, float out (half_to_float), rows "
               "of 9000 (a 128-way fold)", _make_inputs("half", 9000), _run("float"), _expected("float"),
               default_size=200000, devices=("ascend950",), size_rule="9000 to 4Mi elements", size_ok=_size_ok(9000),
               source=_SOURCE),
]
