"""AscendAntiQuant from the CANN NN operators, the Ascend 950 (arch35) regbase kernel: y = TOut((float(x) + offset) *
scale [* scale]) from int8 x to half or float y, the whole tensor as one axis.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, quant/ascend_anti_quant:
- op_kernel/arch35/ascend_anti_quant.cpp (the entry: AIV only, REGISTER_TILING_DEFAULT / GET_TILING_DATA, the
  scale and offset read from the tiling, one class over <DTYPE_X, DTYPE_Y, sqrtModeKey != 0>);
- op_kernel/arch35/ascend_anti_quant_regbase.h (`AscendAntiQuantRegbase`): Init (the core's slice: blockFormer
  elements, the last of blockNum cores the rest with its own UB loop count and tail; depth-2 VECIN / VECOUT queues
  of ubFormer elements, x moved as raw uint8 bytes), Process (cores past blockNum, or with no UB loop, return;
  ubLoop - 1 full chunks and a last one of the tail, or full when the tail is 0), ProcessChunk (DataCopyPad in with
  DataCopyExtParams and {false, 0, 0, 0}, EnQue / DeQue, Compute, DataCopyPad out), and Compute's __VEC_SCOPE__ over
  the uint8 buffer reinterpreted as int8: per 64 float lanes UpdateMask<float>, `Reg::DataCopy` DIST_UNPACK4_B8
  (element i into byte lane 4i), Cast int8 -> half and half -> float (both ZERO, UNKNOWN, ZEROING, UNKNOWN), Adds
  the offset, Muls the scale (and again in the sqrt-mode build), then for half y Cast float -> half (ZERO, NO_SAT,
  ZEROING, CAST_RINT) and DIST_PACK_B32, for float y DIST_NORM, all under the UpdateMask mask;
- op_kernel/arch35/ascend_anti_quant_tilingdata.h (AscendAntiQuantBaseTilingData inside AscendAntiQuantTilingData)
  and op_host/arch35/ascend_anti_quant_tiling_arch35.cpp (CalcMaxUbElem: (UB - 2048) / ((1 + sizeof(TOut)) * 2)
  rounded down to 128; CalcCoreSlice: blockFormer = CeilDiv(n, cores) rounded up to 128, blockNum = CeilDiv(n,
  blockFormer); CalcUbLoopTail; the sqrt mode is the tiling key, the block dim blockNum).

The register lanes: DIST_UNPACK4_B8 puts element i in byte lane 4i (lanes 4i+1..4i+3 zero); the ZERO-layout
int8 -> half Cast reads the even byte lanes, so half lane 2i holds element i; the ZERO-layout half -> float Cast
reads the even half lanes, so float lane i holds element i (SPEC-2 11.6, D65).

Deviations: the core count is the launch's 8 (the compile info's vectorCoreNum in the original). Only int8 x:
hifloat8 / fp8 are no emulator dtypes (SPEC-2 D28). At a short chunk only (as kernels/sigmoid_regbase.py): the
VF loads 64 bytes a step, so the last step reads past the DataCopyPad's 32-byte blocks, inside the queue buffer
(ubFormer is a multiple of 128); those lanes are out of every instruction's mask and of the store (harmless on the
device; an uninitialised read for the sanitizer before session 54, clean with the lane tracking): the port zeroes
them by a Duplicate before the copy-in (kept from before, no longer needed for the init check).

Fidelity: BIT-EXACT (loads, Casts, Adds, Muls, stores: SPEC-2 0.3). The expectation is numpy's float32: the int8
exact, one RNE per Adds / Muls, RNE to half (overflow to inf: the 950's INF/NaN half mode, as CTRL[60] = 1 leaves the
NO_SAT trait to CTRL[48]).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
ZEROING = R.MaskMergeMode.ZEROING
CORE_NUM = 8                        # deviation: the launch's cores (vectorCoreNum in the original)
AAQ_CACHE_LINE_BYTES = 128
AAQ_UB_RESERVE_BYTES = 2048
AAQ_BUFFER_NUM = 2
VL = 64                             # VECTOR_REG_WIDTH / sizeof(float)
OUT_SIZE = {"half": 2, "float": 4}
_NP = {"half": np.float16, "float": np.float32}

AscendAntiQuantBaseTilingData = np.dtype([
    ("dim0", np.int64), ("coreNum", np.int32), ("ubFormer", np.int32), ("blockFormer", np.int64),
    ("blockNum", np.int64), ("ubLoopOfFormerBlock", np.int64), ("ubLoopOfTailBlock", np.int64),
    ("ubTailOfFormerBlock", np.int64), ("ubTailOfTailBlock", np.int64), ("elemNum", np.int64),
    ("scheMode", np.uint64)])
AscendAntiQuantTilingData = np.dtype([("baseTiling", AscendAntiQuantBaseTilingData), ("scale", np.float32),
                                      ("offset", np.float32), ("sqrtMode", np.int32), ("reserved", np.int32)])


def _loop_tail(block_len, ub_former):
    """CalcUbLoopTail."""
    if block_len <= 0:
        return 0, 0
    loop = -(-block_len // ub_former)
    rem = block_len - ub_former * (loop - 1)
    return loop, (0 if rem == ub_former else rem)


def tiling(device, n, out_dtype, scale, offset, sqrt_mode=False):
    """AscendAntiQuantTiling::RunTiling: (block dim, tiling key, the packed AscendAntiQuantTilingData)."""
    line = AAQ_CACHE_LINE_BYTES
    usable = max(aj.get_device(device).ub_bytes - AAQ_UB_RESERVE_BYTES, line)        # CalcMaxUbElem
    max_ub_elem = usable // ((1 + OUT_SIZE[out_dtype]) * AAQ_BUFFER_NUM) // line * line
    max_ub_elem = max_ub_elem if max_ub_elem > 0 else line
    block_former = -(-(-(-n // CORE_NUM)) // line) * line                             # CalcCoreSlice
    block_former = block_former if block_former > 0 else line
    block_num = max(1, min(-(-n // block_former), CORE_NUM))
    ub_former = min(block_former, max_ub_elem)
    tail_block = n - block_former * (block_num - 1)
    tail_block = tail_block if tail_block > 0 else block_former
    t = np.zeros(1, AscendAntiQuantTilingData)
    bt = t["baseTiling"]
    bt["dim0"], bt["coreNum"], bt["ubFormer"], bt["blockFormer"], bt["blockNum"] = (n, block_num, ub_former,
                                                                                     block_former, block_num)
    bt["ubLoopOfFormerBlock"], bt["ubTailOfFormerBlock"] = _loop_tail(block_former, ub_former)
    bt["ubLoopOfTailBlock"], bt["ubTailOfTailBlock"] = _loop_tail(tail_block, ub_former)
    bt["elemNum"], bt["scheMode"] = n, 0
    t["baseTiling"] = bt
    t["scale"], t["offset"], t["sqrtMode"] = np.float32(scale), np.float32(offset), int(bool(sqrt_mode))
    return block_num, int(bool(sqrt_mode)), t.view(np.uint8).copy()


def anti_quant_vf(outAddr, xAddr, count, scaleLocal, offsetVLocal, U, SqrtMode):
    """Compute's __VEC_SCOPE__ for an int8 x."""
    int8_to_half = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, ZEROING, aj.RoundMode.UNKNOWN)
    half_to_fp32 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, ZEROING, aj.RoundMode.UNKNOWN)
    fp32_to_half = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, ZEROING, aj.RoundMode.CAST_RINT)
    vregX, vregHalfX = R.RegTensor("int8"), R.RegTensor("half")
    vregFloatX, vregTmp, vregFloatY = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    vregY = R.RegTensor(U)
    remaining = count
    vfLoopNum = (count + VL - 1) // VL
    for i in range(vfLoopNum):
        mask, remaining = R.UpdateMask("float", remaining)
        R.DataCopy(vregX, xAddr[i * VL], dist=R.LoadDist.DIST_UNPACK4_B8)
        R.Cast(vregHalfX, vregX, mask, int8_to_half)
        R.Cast(vregFloatX, vregHalfX, mask, half_to_fp32)
        R.Adds(vregTmp, vregFloatX, offsetVLocal, mask)
        R.Muls(vregFloatY, vregTmp, scaleLocal, mask)
        if SqrtMode:
            R.Muls(vregFloatY, vregFloatY, scaleLocal, mask)
        if U == "half":
            R.Cast(vregY, vregFloatY, mask, fp32_to_half)
            R.DataCopy(outAddr[i * VL], vregY, mask, dist=R.StoreDist.DIST_PACK_B32)
        else:
            R.DataCopy(outAddr[i * VL], vregFloatY, mask, dist=R.StoreDist.DIST_NORM)


ANTI_QUANT_VF = R.simd_vf(anti_quant_vf)


class AscendAntiQuantRegbase:
    """AscendAntiQuantRegbase<int8_t, U, SqrtMode>."""
    BUFFER_NUM = 2
    BLOCK_BYTES = 32

    def __init__(self, tilingData, scaleV, offsetV, U, SqrtMode, vf=ANTI_QUANT_VF):
        self.tilingData_, self.scaleV_, self.offsetV_ = tilingData, scaleV, offsetV
        self.T, self.U, self.SqrtMode, self.vf = "int8", U, SqrtMode, vf

    def Init(self, x, y):
        self.blockIdx_ = aj.GetBlockIdx()
        self.xGm_, self.yGm_ = aj.GlobalTensor("uint8"), aj.GlobalTensor(self.U)
        self.xGm_.SetGlobalBuffer(x)
        self.yGm_.SetGlobalBuffer(y)
        bt = self.tilingData_.baseTiling
        self.myBlockOffset_ = self.blockIdx_ * int(bt.blockFormer)
        if int(bt.blockNum) > 0 and self.blockIdx_ == int(bt.blockNum) - 1:
            self.myBlockLen_ = int(bt.elemNum) - self.myBlockOffset_
            self.myUbLoop_, self.myUbTail_ = int(bt.ubLoopOfTailBlock), int(bt.ubTailOfTailBlock)
        else:
            self.myBlockLen_ = int(bt.blockFormer)
            self.myUbLoop_, self.myUbTail_ = int(bt.ubLoopOfFormerBlock), int(bt.ubTailOfFormerBlock)
        self.pipe_ = aj.TPipe()
        self.inQueueX_ = aj.TQue(aj.QuePosition.VECIN, self.BUFFER_NUM)
        self.outQueueY_ = aj.TQue(aj.QuePosition.VECOUT, self.BUFFER_NUM)
        self.pipe_.InitBuffer(self.inQueueX_, self.BUFFER_NUM, int(bt.ubFormer) * 1)
        self.pipe_.InitBuffer(self.outQueueY_, self.BUFFER_NUM, int(bt.ubFormer) * OUT_SIZE[self.U])

    def Process(self):
        bt = self.tilingData_.baseTiling
        if self.blockIdx_ >= int(bt.blockNum):
            return
        if self.myUbLoop_ <= 0:
            return
        off = self.myBlockOffset_
        for _ in range(self.myUbLoop_ - 1):
            self.ProcessChunk(off, int(bt.ubFormer))
            off += int(bt.ubFormer)
        lastCount = self.myUbTail_ if self.myUbTail_ > 0 else int(bt.ubFormer)
        self.ProcessChunk(off, lastCount)

    def ProcessChunk(self, gmOffset, count):
        U = self.U
        xLocal = self.inQueueX_.AllocTensor("uint8")
        loaded = aj.CeilDivision(count, VL) * VL
        copied = aj.AlignUp(count, self.BLOCK_BYTES)
        if loaded > copied:
            # not in the original (docstring): the last step's bytes past the copy, inside the buffer
            aj.Duplicate(xLocal[copied], np.uint8(0), loaded - copied)
        cpIn = aj.DataCopyExtParams()
        cpIn.blockCount, cpIn.blockLen, cpIn.srcStride, cpIn.dstStride, cpIn.rsv = 1, count * 1, 0, 0, 0
        aj.DataCopyPad(xLocal, self.xGm_[gmOffset], cpIn, aj.DataCopyPadExtParams(False, 0, 0, 0))
        self.inQueueX_.EnQue("uint8", xLocal)
        xIn = self.inQueueX_.DeQue("uint8")
        outLocal = self.outQueueY_.AllocTensor(U)
        self.Compute(xIn, outLocal, count)
        self.inQueueX_.FreeTensor(xIn)
        self.outQueueY_.EnQue(U, outLocal)
        outDe = self.outQueueY_.DeQue(U)
        cpOut = aj.DataCopyExtParams()
        cpOut.blockCount, cpOut.blockLen, cpOut.srcStride, cpOut.dstStride, cpOut.rsv = 1, count * OUT_SIZE[U], 0, 0, 0
        aj.DataCopyPad(self.yGm_[gmOffset], outDe, cpOut)
        self.outQueueY_.FreeTensor(outDe)

    def Compute(self, xLocal, outLocal, count):
        xAddr = xLocal.ReinterpretCast(self.T)              # (__local_mem__ T*)xLocal.GetPhyAddr()
        R.asc_vf_call(self.vf, outLocal, xAddr, count, np.float32(self.scaleV_), np.float32(self.offsetV_), self.U,
                      self.SqrtMode)


aj.REGISTER_TILING_DEFAULT(AscendAntiQuantTilingData)


def ascend_anti_quant(x, y, workspace, tiling_bytes, sqrtModeKey, DTYPE_Y, vf=ANTI_QUANT_VF):
    """The kernel entry; sqrtModeKey is the template key, DTYPE_Y stands for the build's output type."""
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    tilingData = aj.GET_TILING_DATA(tiling_bytes)
    scaleV, offsetV = np.float32(tilingData.scale), np.float32(tilingData.offset)
    op = AscendAntiQuantRegbase(tilingData, scaleV, offsetV, DTYPE_Y, sqrtModeKey != 0, vf)
    op.Init(x, y)
    op.Process()


SCALE, OFFSET = 0.0371, -3.0       # the gallery's attributes


def make_inputs(size, seed):
    x = np.random.default_rng(seed).integers(-128, 128, size).astype(np.int8)
    x[:min(size, 4)] = np.array([-128, 127, 0, 3], np.int8)[:min(size, 4)]    # 3 + offset: a zero
    return {"x": x}


def run_anti_quant(device, inputs, out_dtype, scale=SCALE, offset=OFFSET, sqrt_mode=False, vf=ANTI_QUANT_VF):
    x = inputs["x"]
    y = np.zeros(x.size, _NP[out_dtype])
    block_dim, key, tiling_bytes = tiling(device, x.size, out_dtype, scale, offset, sqrt_mode)
    workspace = np.zeros(32, np.uint8)                  # ASCEND_WORKSPACE is 0 bytes
    aj.launch(ascend_anti_quant, block_dim, device, x.view(np.uint8), y, workspace, tiling_bytes, key, out_dtype, vf)
    return {"y": y}


def expected_anti_quant(x, out_dtype, scale=SCALE, offset=OFFSET, sqrt_mode=False):
    """float32 (x + offset) * scale [* scale], one RNE each, RNE to the output type."""
    with np.errstate(over="ignore"):
        v = (x.astype(np.float32) + np.float32(offset)) * np.float32(scale)
        if sqrt_mode:
            v = v * np.float32(scale)
        return v.astype(_NP[out_dtype])


def _run(out_dtype):
    def run(device, inputs):
        return run_anti_quant(device, inputs, out_dtype)
    return run


def _expected(out_dtype):
    def expected(device, inputs):
        return {"y": expected_anti_quant(inputs["x"], out_dtype)}
    return expected


def _size_ok(n):
    return 0 < n <= 1 << 22


_SOURCE = "hicann/ops-nn@e5c3fa93 quant/ascend_anti_quant/op_kernel/arch35/ascend_anti_quant_regbase.h"
KERNELS = [
    KernelSpec("ascend_anti_quant", "ops-nn AscendAntiQuant, int8 -> half, 950 regbase: a VF of DataCopy "
               "DIST_UNPACK4_B8, Casts int8 -> half -> float, Adds, Muls, Cast CAST_RINT and DIST_PACK_B32 under "
               "UpdateMask; 128-byte core slices, double-buffered DataCopyPad chunks", make_inputs, _run("half"),
               _expected("half"), default_size=100000, devices=("ascend950",), size_rule="1 to 4Mi elements",
               size_ok=_size_ok, source=_SOURCE),
    KernelSpec("ascend_anti_quant_float", "ops-nn AscendAntiQuant, int8 -> float: the float lanes stored DIST_NORM",
               make_inputs, _run("float"), _expected("float"), default_size=100000, devices=("ascend950",),
               size_rule="1 to 4Mi elements", size_ok=_size_ok, source=_SOURCE),
]
