"""Relu6D from the CANN NN operators, the Ascend 950 (arch35) RegBase kernel: y = min(max(x, 0), 6 * scale), element
by element, over float, half and int32 (computed in the input type) and bfloat16 (computed in float).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, activation/relu6_d/op_kernel/relu6_d.cpp (the entry:
REGISTER_TILING_DEFAULT, GET_TILING_DATA_WITH_STRUCT(Relu6DTilingData), KernelRelu6D<DTYPE_X>),
op_kernel/arch35/relu6_d.h (`KernelRelu6D<T>`: blockFormer elements a core, the last core its tail; depth-2 VECIN and
VECOUT queues of ubFormer elements; per tile DataCopyPad in with DataCopyExtParams and `{false, 0, 0, 0}`, the VF
through asc_vf_call, DataCopyPad out; tiles of ubFormer and a last one of ubTail, skipped when it is 0; two VFs:
`Relu6DVF<T>` (UpdateMask<T> of the remaining count, LoadAlign, Maxs by (T)0, Mins in place by
static_cast<T>(6 * scale), StoreAlign: the devkit's current names) and `Relu6DVFBf16` (UpdateMask<float>,
`MicroAPI::DataCopy<bfloat16_t, DIST_UNPACK_B16>`, Cast bf16 -> float (ZERO, UNKNOWN, ZEROING, UNKNOWN), Maxs 0.0f,
Mins by the float threshold, Cast float -> bf16 (ZERO, NO_SAT, ZEROING, CAST_RINT),
`MicroAPI::DataCopy<bfloat16_t, DIST_PACK_B32>`: the devkit's earlier names, ported with them)),
op_kernel/arch35/relu6_d_tiling_data.h (the struct) and op_host/arch35/relu6_d_tiling_arch35.cpp
(`ComputeTilingParams`: cores for at least 4 KB each, blockFormer rounded up to 512 elements, ubFormer the UB less 256
bytes over 4 buffers, rounded down to 256 bytes; upperThreshold = 6 * scale as a float).

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's); scale is an argument of the
gallery kernel (1.0 for float, 1.1 otherwise: 6.6 is not a half or bfloat16 value, and int32 truncates it to 6).

Deviation at a short tile only: the VF loads whole vectors (GetVecLen() bytes, half of it for the bf16 unpacking
load), so a tile whose length is no multiple of a vector is read past the DataCopyPad's 32-byte blocks. ubFormer is
a multiple of 256 bytes, so the reads stay in the queue buffer, but a buffer's first use holds bytes nothing wrote:
harmless on the device (UpdateMask keeps those lanes out of the compute and the store), an uninitialised read for
the sanitizer before session 54, which checked every byte a Reg load read (docs/decisions.md "Sanitizer"); with the
lane tracking the original runs clean. The port zeroes those elements by a Duplicate before the copy-in (kept from
before, no longer needed for the init check); the stored lanes are the original's.

Fidelity: BIT-EXACT (LoadAlign/StoreAlign, their DataCopy names, Maxs, Mins and Cast are BIT-EXACT, SPEC-2 0.3).
The expectation is the clamp written with numpy: max(x, +0) (Maxs(-0, +0) = +0, DK R/基础算术/Maxs.md), then
min(., threshold) with the threshold converted to the computing type as the original converts it (half: RNE;
int32: toward zero; bfloat16: computed in float, the result rounded to bfloat16 by RNE).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
CORE_NUM = 8                        # deviation: the launch's cores (GetCoreNumAiv in the original)
MIN_TILING_BITS_SIZE_PER_CORE = 32768
ELEM_ALIGN_FACTOR = 512
ALIGN_256 = 256
BUFFER_NUM = 4                      # 2 VECIN + 2 VECOUT buffers
RELU6_SCALE_FACTOR = np.float32(6.0)
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2, "int32": 4}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32}
SCALE = {"float": 1.0, "half": 1.1, "bfloat16": 1.1, "int32": 1.1}

Relu6DTilingData = np.dtype([("dim0", np.int64), ("coreNum", np.int32), ("blockFormer", np.int64),
                             ("blockNum", np.int64), ("ubFormer", np.int64), ("ubLoopOfFormerBlock", np.int64),
                             ("ubTailOfFormerBlock", np.int64), ("ubLoopOfTailBlock", np.int64),
                             ("ubTailOfTailBlock", np.int64), ("upperThreshold", np.float32)], align=True)


def tiling(device, dim0, dtype, scale):
    """Relu6DTilingFunc / ComputeTilingParams: (block dim, the packed Relu6DTilingData)."""
    t = np.zeros(1, Relu6DTilingData)
    t["upperThreshold"] = RELU6_SCALE_FACTOR * np.float32(scale)
    t["dim0"] = dim0
    if dim0 == 0:
        return 0, t.view(np.uint8).copy()
    elem_bytes = TYPE_SIZE[dtype]
    bits = elem_bytes * 8
    core_num = min(-(-dim0 * bits // MIN_TILING_BITS_SIZE_PER_CORE), CORE_NUM)
    block_former = -(-(-(-dim0 // core_num)) // ELEM_ALIGN_FACTOR) * ELEM_ALIGN_FACTOR
    block_num = -(-dim0 // block_former)
    max_elem_num = (aj.get_device(device).ub_bytes - ALIGN_256) // (BUFFER_NUM * elem_bytes)
    align_factor = ALIGN_256 * 8 // bits
    ub_former = max_elem_num // align_factor * align_factor
    loop_former = -(-block_former // ub_former)
    block_tail = dim0 - (block_num - 1) * block_former
    loop_tail = -(-block_tail // ub_former)
    t["coreNum"], t["blockFormer"], t["blockNum"], t["ubFormer"] = core_num, block_former, block_num, ub_former
    t["ubLoopOfFormerBlock"], t["ubTailOfFormerBlock"] = loop_former, block_former - (loop_former - 1) * ub_former
    t["ubLoopOfTailBlock"], t["ubTailOfTailBlock"] = loop_tail, block_tail - (loop_tail - 1) * ub_former
    return block_num, t.view(np.uint8).copy()


def relu6_d_vf(dstAddr, srcAddr, lowerBound, upperThr, count, oneRepeatSize, repeatTimes, T):
    """The original's Relu6DVF<T> (half, float, int32)."""
    srcReg, dstReg = R.RegTensor(T), R.RegTensor(T)
    for i in range(repeatTimes):
        rem = count - i * oneRepeatSize
        mask, rem = R.UpdateMask(T, rem)
        R.LoadAlign(srcReg, srcAddr[i * oneRepeatSize])
        R.Maxs(dstReg, srcReg, lowerBound, mask)           # max(x, 0)
        R.Mins(dstReg, dstReg, upperThr, mask)             # min(., 6 * scale)
        R.StoreAlign(dstAddr[i * oneRepeatSize], dstReg, mask)


def relu6_d_vf_bf16(dstAddr, srcAddr, lowerBound, upperThr, count, fp32Lane, repeatTimes):
    """The original's Relu6DVFBf16: bfloat16 widened to float lanes, clamped in float, narrowed by CAST_RINT."""
    widen = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, aj.RoundMode.UNKNOWN)
    narrow = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_RINT)
    srcRegB, dstRegB = R.RegTensor("bfloat16"), R.RegTensor("bfloat16")
    regF = R.RegTensor("float")
    for i in range(repeatTimes):
        rem = count - i * fp32Lane
        mask, rem = R.UpdateMask("float", rem)
        R.DataCopy(srcRegB, srcAddr[i * fp32Lane], dist=R.LoadDist.DIST_UNPACK_B16)
        R.Cast(regF, srcRegB, mask, widen)
        R.Maxs(regF, regF, lowerBound, mask)
        R.Mins(regF, regF, upperThr, mask)
        R.Cast(dstRegB, regF, mask, narrow)
        R.DataCopy(dstAddr[i * fp32Lane], dstRegB, mask, dist=R.StoreDist.DIST_PACK_B32)


RELU6_D_VF = R.simd_vf(relu6_d_vf)
RELU6_D_VF_BF16 = R.simd_vf(relu6_d_vf_bf16)


class KernelRelu6D:
    def __init__(self, T):
        self.T = T

    def Init(self, x, y, tilingData):
        self.blockNum_, self.ubFormer_ = int(tilingData.blockNum), int(tilingData.ubFormer)
        self.upperThrF_ = np.float32(tilingData.upperThreshold)
        if aj.IsSameType(self.T, "bfloat16"):
            self.lowerBound_ = self.upperThr_ = None        # the bf16 path uses the float carrier alone
        elif aj.IsSameType(self.T, "int32"):
            self.lowerBound_ = np.int32(0)
            self.upperThr_ = np.int32(np.trunc(self.upperThrF_))   # static_cast<int32_t>: toward zero
        else:
            self.lowerBound_ = _NP[self.T](0)
            self.upperThr_ = _NP[self.T](self.upperThrF_)
        if self.blockNum_ == 0:
            return
        blockIdx = aj.GetBlockIdx()
        coreOffset = int(tilingData.blockFormer) * blockIdx
        isLastBlock = blockIdx == self.blockNum_ - 1
        self.loopNum_ = int(tilingData.ubLoopOfTailBlock if isLastBlock else tilingData.ubLoopOfFormerBlock)
        self.tailNum_ = int(tilingData.ubTailOfTailBlock if isLastBlock else tilingData.ubTailOfFormerBlock)
        self.xGm_, self.yGm_ = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm_.SetGlobalBuffer(x[coreOffset:])
        self.yGm_.SetGlobalBuffer(y[coreOffset:])
        self.pipe = aj.TPipe()
        self.inQue_ = aj.TQue(aj.QuePosition.VECIN, 2)
        self.outQue_ = aj.TQue(aj.QuePosition.VECOUT, 2)
        self.pipe.InitBuffer(self.inQue_, 2, self.ubFormer_ * TYPE_SIZE[self.T])
        self.pipe.InitBuffer(self.outQue_, 2, self.ubFormer_ * TYPE_SIZE[self.T])

    def Process(self):
        if aj.GetBlockIdx() >= self.blockNum_:
            return
        offset = 0
        for _ in range(self.loopNum_ - 1):
            self.ProcessTile(offset, self.ubFormer_)
            offset += self.ubFormer_
        if self.tailNum_ > 0:
            self.ProcessTile(offset, self.tailNum_)

    def LoadedElements(self, length):
        """The elements the VF's loads read for a tile of `length`: whole vectors (of float lanes for bfloat16)."""
        lanes = aj.GetVecLen() // (4 if aj.IsSameType(self.T, "bfloat16") else TYPE_SIZE[self.T])
        return aj.CeilDivision(length, lanes) * lanes

    def ProcessTile(self, ubOffset, length):
        T = self.T
        xLocal = self.inQue_.AllocTensor(T)
        copyParams = aj.DataCopyExtParams(1, length * TYPE_SIZE[T], 0, 0, 0)
        loaded = self.LoadedElements(length)
        copied = aj.AlignUp(length * TYPE_SIZE[T], 32) // TYPE_SIZE[T]
        if loaded > copied:
            # not in the original: the whole-vector loads' lanes past the copy, zeroed (docstring); past the
            # copy's bytes, so no ordering against it, and the VF follows on the vector pipe
            aj.Duplicate(xLocal[copied], _NP[T](0), loaded - copied)
        aj.DataCopyPad(xLocal, self.xGm_[ubOffset], copyParams, (False, 0, 0, 0))
        self.inQue_.EnQue(xLocal)
        xLocal = self.inQue_.DeQue(T)
        yLocal = self.outQue_.AllocTensor(T)
        if aj.IsSameType(T, "bfloat16"):
            fp32Lane = aj.GetVecLen() // 4
            repeatTimes = aj.CeilDivision(length, fp32Lane)
            aj.Reg.asc_vf_call(RELU6_D_VF_BF16, yLocal, xLocal, np.float32(0.0), self.upperThrF_, length, fp32Lane,
                               repeatTimes)
        else:
            oneRepeatSize = aj.GetVecLen() // TYPE_SIZE[T]
            repeatTimes = aj.CeilDivision(length, oneRepeatSize)
            aj.Reg.asc_vf_call(RELU6_D_VF, yLocal, xLocal, self.lowerBound_, self.upperThr_, length, oneRepeatSize,
                               repeatTimes, T)
        self.outQue_.EnQue(T, yLocal)
        self.inQue_.FreeTensor(xLocal)
        yLocal = self.outQue_.DeQue(T)
        aj.DataCopyPad(self.yGm_[ubOffset], yLocal, aj.DataCopyExtParams(1, length * TYPE_SIZE[T], 0, 0, 0))
        self.outQue_.FreeTensor(yLocal)


aj.REGISTER_TILING_DEFAULT(Relu6DTilingData)


def relu6_d(x, y, workspace, tiling_bytes, DTYPE_X):
    """The kernel entry; DTYPE_X is the build's type (a macro in C++)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(Relu6DTilingData, tiling_bytes)
    op = KernelRelu6D(DTYPE_X)
    op.Init(x, y, tilingData)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if dtype == "int32":
            x = rng.integers(-20, 20, size, dtype=np.int32)
            x[:4] = [np.iinfo(np.int32).min, np.iinfo(np.int32).max, 6, 7][:size]
            return {"x": x}
        x = rng.uniform(-3.0, 9.0, size).astype(np.float32).astype(_NP[dtype])
        specials = np.array([-0.0, 0.0, np.inf, -np.inf, 6.0, 6.6, 6.5, -1e-30], np.float32).astype(_NP[dtype])
        x[:min(size, specials.size)] = specials[:size]
        return {"x": x}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        y = np.zeros_like(x)
        block_dim, tiling_bytes = tiling(device, x.size, dtype, SCALE[dtype])
        workspace = np.zeros(32, np.uint8)            # the tiling asks for none
        aj.launch(relu6_d, block_dim, device, x, y, workspace, tiling_bytes, dtype)
        return {"y": y}
    return run


def _expected(dtype):
    def expected(device, inputs):
        thr = np.float32(6.0) * np.float32(SCALE[dtype])
        x = inputs["x"]
        if dtype == "int32":
            return {"y": np.minimum(np.maximum(x, 0), np.int32(np.trunc(thr)))}
        work = np.float32 if dtype == "bfloat16" else _NP[dtype]
        z = x.astype(work)
        z = np.where(z > 0, z, work(0.0))                     # +0 for -0 and every negative
        z = np.where(z < work(thr), z, work(thr))
        return {"y": z.astype(_NP[dtype])}
    return expected


def _size_ok(n):
    return 0 < n <= 1 << 24


_SOURCE = "hicann/ops-nn@e5c3fa93 activation/relu6_d/op_kernel/arch35/relu6_d.h"
KERNELS = [
    KernelSpec("relu6_d", "Relu6D over floats, 950 RegBase: LoadAlign, Maxs 0, Mins 6*scale, StoreAlign in a VF; "
               "TilingData by GET_TILING_DATA_WITH_STRUCT, 512-element core blocks, double-buffered DataCopyPad tiles",
               _make_inputs("float"), _run("float"), _expected("float"), default_size=100000,
               devices=("ascend950",), size_rule="1 to 16Mi elements", size_ok=_size_ok, source=_SOURCE),
    KernelSpec("relu6_d_half", "Relu6D over halves (threshold 6.6 cast to half)", _make_inputs("half"), _run("half"),
               _expected("half"), default_size=100000, devices=("ascend950",), size_rule="1 to 16Mi elements",
               size_ok=_size_ok, source=_SOURCE),
    KernelSpec("relu6_d_int32", "Relu6D over int32 (threshold 6.6 truncated to 6)", _make_inputs("int32"),
               _run("int32"), _expected("int32"), default_size=100000, devices=("ascend950",),
               size_rule="1 to 16Mi elements", size_ok=_size_ok, source=_SOURCE),
    KernelSpec("relu6_d_bf16", "Relu6D over bfloat16 in float lanes: MicroAPI::DataCopy DIST_UNPACK_B16, Cast, "
               "Maxs/Mins, Cast CAST_RINT, MicroAPI::DataCopy DIST_PACK_B32", _make_inputs("bfloat16"),
               _run("bfloat16"), _expected("bfloat16"), default_size=100000, devices=("ascend950",),
               size_rule="1 to 16Mi elements", size_ok=_size_ok, source=_SOURCE),
]
