"""DropOutV3Grad from the CANN math operators, the Ascend 950 (arch35) kernel: grad_x = grad_y * mask * scale, with
mask one bit an element (uint8 bytes, least significant bit first), over float, half and bfloat16.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, random/drop_out_v3_grad/op_kernel/drop_out_v3_grad.cpp
(GET_TILING_DATA, TILING_KEY_IS(100), a TPipe made by the entry), op_kernel/arch35/drop_out_v3_grad.h
(`DropOutV3GradImpl<T>`: normBlockData elements a core, the last core its tailBlockData; depth-2 VECIN queues for
grad_y and the mask bytes and a VECOUT queue, ubFactor elements a tile, the last tile of a core shorter; scale by GM
GetValue; CopyIn: DataCopyPad of the tile, an MTE2_MTE3 flag pair by FetchEventID, DataCopyPad of the tile's mask
bytes rounded up to 128 elements; Compute: one VF over 256 elements a step: `MicroAPI::DataCopy<uint8_t,
MaskDist::DIST_NORM>` of 32 mask bytes into a MaskReg, six `MaskUnPack`s (LOWEST / HIGHEST, two of them in place)
splitting its 256 bits into four 64-lane float masks, and per mask the inline doMaskB32 / doMaskB16 (ported as
`@simd_callee`s): UpdateMask<float> of the running count, `MicroAPI::DataCopy` DIST_NORM (float) or DIST_UNPACK_B16
and Cast to float, Select of Duplicated 1.0 / 0.0 by the mask bit (the mask made a 0/1 float so that inf * 0 gives
NaN, as PyTorch), Mul, Muls by scale, Cast CAST_RINT back for 16-bit types, `MicroAPI::DataCopy` DIST_NORM_B32 or
DIST_PACK_B32; CopyOut: DataCopyPad of the tile), with the host tiling of
op_host/arch35/drop_out_v3_grad_tiling_arch35.cpp (`DoOpTiling`: ubFactor = (UB - 8 KB - 32) / 2 * 8 /
(16 * sizeof(T) + 1) rounded down to 256 elements; normBlockData = ceil(n / cores) rounded up to 256, at least 2048).
The devkit's earlier names are kept: DataCopy for the loads and stores, MaskUnPack (docs/decisions.md "Reg DataCopy
names", "Reg MaskReg names").

Deviations: the core count is the launch's 8 (the compile info's). At a short tile only: the VF works in steps of
256 elements, so its last step loads grad_y vectors past what the tile's copy wrote (it ends at the tile's last
32-byte block). ubFactor is a multiple of 256, so the reads stay in the queue buffer; on the device those lanes are
out of the (empty or partial) UpdateMask and never stored. Before session 54 the sanitizer reported every byte a Reg
load read (docs/decisions.md "Sanitizer"); with the lane tracking the original runs clean. The port zeroes those
grad_y elements by a Duplicate before the copy (kept from before, no longer needed for the init check). (The mask
copy of 16 bytes past a 32-byte boundary needs nothing: DataCopyPad writes its whole last 32-byte block.)

Fidelity: BIT-EXACT (the loads and stores, MaskUnPack, Select, Duplicate, Mul, Muls and Cast are BIT-EXACT,
SPEC-2 0.3). The expectation is numpy's float32: (grad_y as float32 * the mask bit as 0.0 / 1.0) * scale, each
product rounded once, then RNE to the element type; a NaN (NaN inputs, inf * 0) is the canonical one (numpy's inf * 0
is x86's negative default NaN; the device writes the canonical NaN, docs/decisions.md "NaN bit patterns").
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
CORE_NUM = 8                       # deviation: the launch's cores (the compile info's coreNum)
DB_BUFFER = 2
ALIGN256 = 256
UINT8_BIT_NUMBER = 8
RESERVED_UB_SIZE = 8192
UB_MIN_FACTOR = 2048
UB_BLOCK = 32
DO_MASK_TILING_KEY = 100
BYTE_BIT_RATIO = 8
MASK_REG_LEN = 32                  # mask bytes a MaskReg load takes: 256 elements
MASK_LOOP = 4                      # float vectors a MaskReg covers
ALIGN_128 = 128
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
SCALE = np.float32(1.25)           # 1 / (1 - p) for p = 0.2
ZEROING = R.MaskMergeMode.ZEROING
HIGHEST = R.HighLowPart.HIGHEST

DropOutV3GradTilingData = np.dtype([("usedCoreNum", np.int64), ("normBlockData", np.int64),
                                    ("tailBlockData", np.int64), ("ubFactor", np.int64),
                                    ("normBlockLoop", np.int64), ("normBlockTail", np.int64),
                                    ("tailBlockLoop", np.int64), ("tailBlockTail", np.int64),
                                    ("epsilon", np.float32)], align=True)


def tiling(device, all_axis, dtype):
    """DropOutV3GradTiling::DoOpTiling: (block dim, tiling key, the packed tiling data)."""
    type_size = TYPE_SIZE[dtype]
    ub_factor = (aj.get_device(device).ub_bytes - RESERVED_UB_SIZE - UB_BLOCK) // DB_BUFFER * UINT8_BIT_NUMBER // \
        (UINT8_BIT_NUMBER * type_size + 1 + UINT8_BIT_NUMBER * type_size)
    ub_factor = ub_factor // ALIGN256 * ALIGN256
    norm = max(-(-(-(-all_axis // CORE_NUM)) // ALIGN256) * ALIGN256, UB_MIN_FACTOR)
    used = -(-all_axis // norm)
    tail = all_axis - (used - 1) * norm
    t = np.zeros(1, DropOutV3GradTilingData)
    t["usedCoreNum"], t["normBlockData"], t["tailBlockData"], t["ubFactor"] = used, norm, tail, ub_factor
    for name, data in (("normBlock", norm), ("tailBlock", tail)):
        loop = -(-data // ub_factor)
        t[name + "Loop"], t[name + "Tail"] = loop, data - (loop - 1) * ub_factor
    t["epsilon"] = np.finfo(np.float64).eps        # std::numeric_limits<double>::epsilon() into the float field
    return used, DO_MASK_TILING_KEY, t.view(np.uint8).copy()


@R.simd_callee
def do_mask_b32(maskInputVf_n, gradYInputVf, gradXOutputVf, select0, onesReg, maskFloatVf, gradYInputUbPtr,
                gradXOutputUbPtr, size, postUpdateStride, index, offset, scaleVal):
    """The original's doMaskB32; returns the count left (its `uint32_t& size`)."""
    preg0, size = R.UpdateMask("float", size)
    at = (MASK_LOOP * index + offset) * postUpdateStride
    R.DataCopy(gradYInputVf, gradYInputUbPtr[at], dist=R.LoadDist.DIST_NORM)
    R.Select(maskFloatVf, onesReg, select0, maskInputVf_n)        # the mask bit as 1.0 / 0.0
    R.Mul(gradYInputVf, gradYInputVf, maskFloatVf, preg0, ZEROING)
    R.Muls(gradXOutputVf, gradYInputVf, scaleVal, preg0, ZEROING)
    R.DataCopy(gradXOutputUbPtr[at], gradXOutputVf, preg0, dist=R.StoreDist.DIST_NORM_B32)
    return size


@R.simd_callee
def do_mask_b16(maskInputVf_n, gradYInputVf, gradXOutputVf, select0, onesReg, maskFloatVf, gradYInputUbPtr,
                gradXOutputUbPtr, size, postUpdateStride, index, offset, scaleVal, gradYFp32InputVf):
    """The original's doMaskB16 (half, bfloat16 in float lanes); returns the count left."""
    widen = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, aj.RoundMode.UNKNOWN)
    narrow = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_RINT)
    preg0, size = R.UpdateMask("float", size)
    at = (MASK_LOOP * index + offset) * postUpdateStride
    R.DataCopy(gradYInputVf, gradYInputUbPtr[at], dist=R.LoadDist.DIST_UNPACK_B16)
    R.Cast(gradYFp32InputVf, gradYInputVf, preg0, widen)
    R.Select(maskFloatVf, onesReg, select0, maskInputVf_n)
    R.Mul(gradYFp32InputVf, gradYFp32InputVf, maskFloatVf, preg0, ZEROING)
    R.Muls(gradYFp32InputVf, gradYFp32InputVf, scaleVal, preg0, ZEROING)
    R.Cast(gradXOutputVf, gradYFp32InputVf, preg0, narrow)
    R.DataCopy(gradXOutputUbPtr[at], gradXOutputVf, preg0, dist=R.StoreDist.DIST_PACK_B32)
    return size


def drop_out_v3_grad_vf(gradYInputUbPtr, gradXOutputUbPtr, maskInputUbPtr, size, postUpdateStride, vfLoopNumMask,
                        scaleVal, T):
    """The original's Compute VF (__VEC_SCOPE__)."""
    gradYInputVf, gradXOutputVf = R.RegTensor(T), R.RegTensor(T)
    gradYFp32InputVf = R.RegTensor("float")
    select0, onesReg, maskFloatVf = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    maskInputVf, maskInputVf1, maskInputVf2 = R.MaskReg(), R.MaskReg(), R.MaskReg()
    maskInputVf3, maskInputVf4 = R.MaskReg(), R.MaskReg()
    R.Duplicate(select0, 0.0)
    R.Duplicate(onesReg, 1.0)
    for i in range(vfLoopNumMask):
        R.DataCopy(maskInputVf, maskInputUbPtr[i * MASK_REG_LEN], dist=R.MaskDist.DIST_NORM)
        R.MaskUnPack(maskInputVf3, maskInputVf)                 # bits 0..127 at b16 spacing
        R.MaskUnPack(maskInputVf4, maskInputVf, HIGHEST)        # bits 128..255
        R.MaskUnPack(maskInputVf1, maskInputVf3)                # elements 0..63 at b32 spacing
        R.MaskUnPack(maskInputVf2, maskInputVf3, HIGHEST)       # 64..127
        R.MaskUnPack(maskInputVf3, maskInputVf4)                # 128..191
        R.MaskUnPack(maskInputVf4, maskInputVf4, HIGHEST)       # 192..255, in place as the original
        if T == "float":
            size = do_mask_b32(maskInputVf1, gradYInputVf, gradXOutputVf, select0, onesReg, maskFloatVf,
                               gradYInputUbPtr, gradXOutputUbPtr, size, postUpdateStride, i, 0, scaleVal)
            size = do_mask_b32(maskInputVf2, gradYInputVf, gradXOutputVf, select0, onesReg, maskFloatVf,
                               gradYInputUbPtr, gradXOutputUbPtr, size, postUpdateStride, i, 1, scaleVal)
            size = do_mask_b32(maskInputVf3, gradYInputVf, gradXOutputVf, select0, onesReg, maskFloatVf,
                               gradYInputUbPtr, gradXOutputUbPtr, size, postUpdateStride, i, 2, scaleVal)
            size = do_mask_b32(maskInputVf4, gradYInputVf, gradXOutputVf, select0, onesReg, maskFloatVf,
                               gradYInputUbPtr, gradXOutputUbPtr, size, postUpdateStride, i, 3, scaleVal)
        else:
            size = do_mask_b16(maskInputVf1, gradYInputVf, gradXOutputVf, select0, onesReg, maskFloatVf,
                               gradYInputUbPtr, gradXOutputUbPtr, size, postUpdateStride, i, 0, scaleVal,
                               gradYFp32InputVf)
            size = do_mask_b16(maskInputVf2, gradYInputVf, gradXOutputVf, select0, onesReg, maskFloatVf,
                               gradYInputUbPtr, gradXOutputUbPtr, size, postUpdateStride, i, 1, scaleVal,
                               gradYFp32InputVf)
            size = do_mask_b16(maskInputVf3, gradYInputVf, gradXOutputVf, select0, onesReg, maskFloatVf,
                               gradYInputUbPtr, gradXOutputUbPtr, size, postUpdateStride, i, 2, scaleVal,
                               gradYFp32InputVf)
            size = do_mask_b16(maskInputVf4, gradYInputVf, gradXOutputVf, select0, onesReg, maskFloatVf,
                               gradYInputUbPtr, gradXOutputUbPtr, size, postUpdateStride, i, 3, scaleVal,
                               gradYFp32InputVf)


DROP_OUT_V3_GRAD_VF = R.simd_vf(drop_out_v3_grad_vf)


class DropOutV3GradImpl:
    def __init__(self, T):
        self.T = T

    def Init(self, grad_y, mask, scale, grad_x, workspace, tilingData, pipeIn):
        self.pipePtr_, self.tilingDataPtr_ = pipeIn, tilingData
        self.ParseTilingData()
        T, t = self.T, tilingData
        self.gradYInputGm_, self.maskInputGm_ = aj.GlobalTensor(grad_y), aj.GlobalTensor(mask)
        self.scaleGm_, self.gradXOutputGm_ = aj.GlobalTensor(scale), aj.GlobalTensor(grad_x)
        self.gradYInputQueue_ = aj.TQue(aj.QuePosition.VECIN, DB_BUFFER)
        self.maskInputQueue_ = aj.TQue(aj.QuePosition.VECIN, DB_BUFFER)
        self.gradXOutputQueue_ = aj.TQue(aj.QuePosition.VECOUT, DB_BUFFER)
        self.pipePtr_.InitBuffer(self.gradYInputQueue_, DB_BUFFER, int(t.ubFactor) * TYPE_SIZE[T])
        self.pipePtr_.InitBuffer(self.maskInputQueue_, DB_BUFFER, int(t.ubFactor) // BYTE_BIT_RATIO)
        self.pipePtr_.InitBuffer(self.gradXOutputQueue_, DB_BUFFER, int(t.ubFactor) * TYPE_SIZE[T])
        self.scale_ = np.float32(self.scaleGm_.GetValue(0))

    def ParseTilingData(self):
        t = self.tilingDataPtr_
        self.blockId_ = aj.GetBlockIdx()
        if self.blockId_ == t.usedCoreNum - 1:
            self.currLoopCount_, self.ubTailLoopSize_ = int(t.tailBlockLoop), int(t.tailBlockTail)
        else:
            self.currLoopCount_, self.ubTailLoopSize_ = int(t.normBlockLoop), int(t.normBlockTail)

    def GmOffset(self, loopIdx):
        return self.blockId_ * int(self.tilingDataPtr_.normBlockData) + loopIdx * int(self.tilingDataPtr_.ubFactor)

    def CopyIn(self, loopIdx, dataCount):
        T = self.T
        steps = -(-dataCount // (MASK_LOOP * aj.GetVecLen() // 4))      # the VF's 256-element steps
        gradYInputUb_ = self.gradYInputQueue_.AllocTensor(T)
        copied = aj.AlignUp(dataCount * TYPE_SIZE[T], UB_BLOCK) // TYPE_SIZE[T]
        if steps * ALIGN256 > copied:
            # not in the original: the last step's lanes past the copy (docstring); past its bytes, so no ordering
            aj.Duplicate(gradYInputUb_[copied], _NP[T](0), steps * ALIGN256 - copied)
        aj.DataCopyPad(gradYInputUb_, self.gradYInputGm_[self.GmOffset(loopIdx)],
                       aj.DataCopyExtParams(1, dataCount * TYPE_SIZE[T], 0, 0, 0), (False, 0, 0, 0))
        self.gradYInputQueue_.EnQue(gradYInputUb_)
        event_MTE2_MTE3 = aj.GetTPipePtr().FetchEventID(aj.HardEvent.MTE2_MTE3)
        aj.SetFlag(event_MTE2_MTE3, event=aj.HardEvent.MTE2_MTE3)
        aj.WaitFlag(event_MTE2_MTE3, event=aj.HardEvent.MTE2_MTE3)
        maskInputUb_ = self.maskInputQueue_.AllocTensor("uint8")
        mask_bytes = aj.AlignUp(dataCount, ALIGN_128) // BYTE_BIT_RATIO
        aj.DataCopyPad(maskInputUb_, self.maskInputGm_[self.GmOffset(loopIdx) // BYTE_BIT_RATIO],
                       aj.DataCopyExtParams(1, mask_bytes, 0, 0, 0), (False, 0, 0, 0))
        self.maskInputQueue_.EnQue(maskInputUb_)

    def Compute(self, loopIdx, dataCount):
        T = self.T
        gradYInputUb_ = self.gradYInputQueue_.DeQue(T)
        maskInputUb_ = self.maskInputQueue_.DeQue("uint8")
        gradXOutputUb_ = self.gradXOutputQueue_.AllocTensor(T)
        vRegSize = aj.GetVecLen()
        vfLoopNum = aj.CeilDivision(dataCount * 4, vRegSize)
        vfLoopNumMask = aj.CeilDivision(vfLoopNum, MASK_LOOP)
        postUpdateStride = vRegSize // 4
        DROP_OUT_V3_GRAD_VF(gradYInputUb_, gradXOutputUb_, maskInputUb_, dataCount, postUpdateStride, vfLoopNumMask,
                            self.scale_, T)
        self.gradYInputQueue_.FreeTensor(gradYInputUb_)
        self.maskInputQueue_.FreeTensor(maskInputUb_)
        self.gradXOutputQueue_.EnQue(T, gradXOutputUb_)

    def CopyOut(self, loopIdx, dataCount):
        T = self.T
        gradXOutputUb_ = self.gradXOutputQueue_.DeQue(T)
        aj.DataCopyPad(self.gradXOutputGm_[self.GmOffset(loopIdx)], gradXOutputUb_,
                       aj.DataCopyExtParams(1, dataCount * TYPE_SIZE[T], 0, 0, 0))
        self.gradXOutputQueue_.FreeTensor(gradXOutputUb_)

    def Process(self):
        if self.blockId_ >= self.tilingDataPtr_.usedCoreNum:
            return
        for idx in range(self.currLoopCount_):
            dataCount = self.ubTailLoopSize_ if idx == self.currLoopCount_ - 1 else int(self.tilingDataPtr_.ubFactor)
            self.CopyIn(idx, dataCount)
            self.Compute(idx, dataCount)
            self.CopyOut(idx, dataCount)


aj.REGISTER_TILING_DEFAULT(DropOutV3GradTilingData)


def drop_out_v3_grad(grad_y, mask, scale, grad_x, workspace, tiling_bytes, tiling_key, DTYPE_GRAD_Y):
    """The kernel entry; DTYPE_GRAD_Y is the build's type (a macro in C++)."""
    tilingData = aj.GET_TILING_DATA(tiling_bytes)
    pipe = aj.TPipe()
    if tiling_key == DO_MASK_TILING_KEY:
        op = DropOutV3GradImpl(DTYPE_GRAD_Y)
        op.Init(grad_y, mask, scale, grad_x, workspace, tilingData, pipe)
        op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        grad_y = rng.uniform(-8.0, 8.0, size).astype(np.float32)
        grad_y[:6] = [np.inf, -np.inf, np.nan, -3.0, 0.0, -0.0][:size]
        bits = rng.random(-(-size // ALIGN_128) * ALIGN_128) < 0.8
        bits[:6] = [False, True, False, False, False, True][:min(size, 6)]
        return {"grad_y": grad_y.astype(_NP[dtype]), "mask": np.packbits(bits, bitorder="little")}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        grad_y, mask = inputs["grad_y"], inputs["mask"]
        grad_x = np.zeros_like(grad_y)
        block_dim, key, tiling_bytes = tiling(device, grad_y.size, dtype)
        workspace = np.zeros(UB_BLOCK, np.uint8)       # the tools' 16 MB, unused by the kernel
        aj.launch(drop_out_v3_grad, block_dim, device, grad_y, mask, np.array([SCALE], np.float32), grad_x,
                  workspace, tiling_bytes, key, dtype)
        return {"grad_x": grad_x}
    return run


def _expected(dtype):
    def expected(device, inputs):
        grad_y = inputs["grad_y"]
        keep = np.unpackbits(inputs["mask"], bitorder="little")[:grad_y.size].astype(np.float32)
        with np.errstate(invalid="ignore"):
            grad_x = (grad_y.astype(np.float32) * keep * SCALE).astype(_NP[dtype])
        grad_x[np.isnan(grad_x)] = _NP[dtype](np.nan)     # the canonical quiet NaN (docs/decisions.md)
        return {"grad_x": grad_x}
    return expected


def _size_ok(n):
    return 0 < n <= 1 << 24


_SOURCE = "hicann/ops-math@c4193324 random/drop_out_v3_grad/op_kernel/arch35/drop_out_v3_grad.h"
KERNELS = [
    KernelSpec(f"drop_out_v3_grad{suffix}", f"DropOutV3Grad over {dtype}s, 950: bit mask by MicroAPI::DataCopy "
               "into a MaskReg and MaskUnPack, Select 1/0, Mul, Muls in a VF" + extra,
               _make_inputs(dtype), _run(dtype), _expected(dtype), default_size=100000, devices=("ascend950",),
               size_rule="1 to 16Mi elements", size_ok=_size_ok, source=_SOURCE)
    for suffix, dtype, extra in (("", "float", ""), ("_half", "half", " (DIST_UNPACK_B16, Casts, DIST_PACK_B32)"),
                                 ("_bf16", "bfloat16", " (DIST_UNPACK_B16, Casts, DIST_PACK_B32)"))
]
