"""Triu and Tril (the upper / lower triangle of the last two axes, diagonal offset k; the rest 0), the Ascend 950
(arch35) kernels: the tiny-shape template (a whole plane in one vector register: a 256-bit keep mask from the host,
loaded into a MaskReg and unpacked to the element width), the medium-shape template (rows of planes, Select of a
zero register by a per-row UpdateMask) and the all-zero / all-input copies; any element type by its width (int8,
int16, int32, int64 templates move bit patterns).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, conversion/triu and conversion/tril:
- op_kernel/triu_apt.cpp, conversion/tril/op_kernel/tril_apt.cpp and op_kernel/arch35/triangulator_base.h
  (`triangulatorEntry<IS_LOWER>`: GetUserWorkspace, then by TILING_KEY_IS (tens: 0 zero, 1 input, 2 normal, 3 tiny,
  4 medium; units: the element bytes) a template over int8_t / int16_t / int32_t / int64_t, its tiling struct by
  GET_TILING_DATA_PTR_WITH_STRUCT);
- op_kernel/arch35/split_tiny_shape.h (`SplitTinyShape<T>`: Init (each plane in a VL-byte slot: DataCopyExtParams
  blockLen planeArea bytes, dstStride the slot's remaining blocks; a 32-byte TBuf filled with the four uint64 words of
  highMask by SetValue; two double-buffered queues of bufferSize), Process (the core's plane groups, the next group's
  CopyIn before the current one's DoVectorCopy and CopyOut), DoVectorCopy's __VEC_SCOPE__ (CreateMask<T> ALL;
  Duplicate 0; the keep mask by a MaskReg DataCopy: b8 DIST_NORM, b16 DIST_US, b32 DIST_NORM and two MaskUnPacks,
  b64 three; per plane a post-updating DataCopy load, a DataCopy store of the zeros under the ALL mask, and a
  post-updating DataCopy store of the plane under the keep mask));
- op_kernel/arch35/split_medium_shape.h (`SplitMediumShape<T, IS_LOWER>`: rows padded to 32 bytes (col <= VL
  elements) or VL bytes, regCount elements a chunk; per plane of the group, head rows (whole: copied, or zeros for
  Tril), middle rows (per chunk a post-updating load, UpdateMask<T> of the row's zero / keep count decremented chunk
  by chunk, Select between the zero register and the row, a post-updating store under the row mask) and tail rows;
  the input address stepped over the rows a template never loads);
- op_kernel/arch35/split_all.h (`SplitAll<T, MODE>`: zero mode a Duplicate 0 of one TBuf, V_MTE3 flag, DataCopyPad
  out per chunk, PipeBarrier<PIPE_MTE3>; input mode two TBufs ping-ponged with MTE3_MTE2 / MTE2_MTE3 flags from
  AllocEventID);
- op_host/arch35/triangulator_tiling.cpp / .h (ComputeTilingMode, ComputeTinyInfo, ComputeMask, ComputeMediumInfo,
  OutputZeroAndInputTiling, DoTiling: UB - 8 KB; tiny when row * col * bytes <= VL; medium when row *
  CeilAlign(col * bytes, VL) * 4 <= UB; the structs TriangulatorTilingData, TriangulatorTinyTilingData,
  TriangulatorMediumTilingData).

The __VEC_SCOPE__s are `@aj.Reg.simd_vf` functions; a post-updating `DataCopy<T, POST_MODE_UPDATE>(reg, addr, n)`
returns the advanced offset; `xAddr += n` is an offset addition. The element type is its width's integer type
(the original's templates); the host views the data as that type.

Deviations: the core count is the launch's 8 (GetCoreNumAiv), the platform UB the emulator's 248 KiB; the 16 MiB user
workspace the host asks for is allocated but never touched (as in the original); TILING_KEY_IS is not offered: the
entry takes the key. The normal template (key 2x, split_row_and_col.h: planes too large for the medium template) is
not ported; the host refuses those shapes. The VFs load whole vectors: the tiny template each plane's VL-byte slot,
of which the DataCopyPad writes only the plane's 32-byte blocks; the medium template a row's chunks, past the row's
copied blocks and, on the last row, up to VL - regCount elements past the group (past the queue buffer when the
group fills it). Harmless on the device, those loads were uninitialised reads for the sanitizer before session 54
(and are reads past the tensor for a default core). With the lane tracking they run clean: lanes outside the masks
(the half 100 x 30 planes), and on rows longer than VL (the float 40 x 70 planes) the lanes of a row's last chunk past
the copy's 32-byte blocks, which the full row mask stores into the output buffer's row padding: those bytes stay
uninitialised and the copy-out skips them (docs/decisions.md "A Reg load's uninitialised bytes"). The port gives each
medium input buffer VL bytes of slack and, per group, Duplicates 0 over the bytes the VF loads before the copy-in,
which waits for it by a V_MTE2 flag pair; `ORIGINAL_UNINIT_LOADS = True` runs the original's buffers with
`aj.launch(..., bounds="ub")` and no zeroing.
The tiny template's Init writes the keep mask into its TBuf by four scalar SetValues and the first VF loads it into a
MaskReg with no synchronisation between PIPE_S and PIPE_V: a read-after-write race (SPEC-2 10.4; the sanitizer
reports it), which the port closes with an S_V flag pair after the SetValues (`ORIGINAL_SETVALUE_RACE = True` runs
without).

Fidelity: BIT-EXACT (moves, Duplicate, Select, MaskReg loads and MaskUnPack: SPEC-2 0.3, MaskReg layouts by D64).
The expectation is numpy's triu / tril of the last two axes.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
CORE_NUM = 8                          # deviation: the launch's cores (GetCoreNumAiv in the original)
ORIGINAL_UNINIT_LOADS = False
ORIGINAL_SETVALUE_RACE = False
VREG_SIZE = 256
UB_BLOCK_SIZE = 32
WORKSPACE_SIZE = 16777216
RESERVED_UB_SIZE = 8192
FOUR_BUFFER, TWO_BUFFER = 4, 2
MIN_CORE_COE = 1
OUTPUT_ZERO_MODE, OUTPUT_INPUT_MODE, OUTPUT_NORMAL_MODE, TINY_SHAPE_MODE, MEDIUM_SHAPE_MODE = 0, 1, 2, 3, 4
LARGE_BLOCK_FOR_MOVE = 1024
MASK_UB_SIZE = 32
TINY_BUFFER_NUM = MEDIUM_BUFFER_NUM = 2
INT_TYPE = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}
_NP_INT = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}

TriangulatorTilingData = np.dtype([(f, np.int64) for f in ("bufferSize", "usedCoreNum", "normalCoreProcessNum",
                                                           "tailCoreProcessNum")])
TriangulatorTinyTilingData = np.dtype([(f, np.int64) for f in ("bufferSize", "planeArea", "usedCoreNum",
                                                               "normalCoreProcessNum", "tailCoreProcessNum",
                                                               "highInner", "highOuter", "highTail")] +
                                      [("highMask", np.uint64, (4,))])
TriangulatorMediumTilingData = np.dtype([(f, np.int64) for f in ("bufferSize", "row", "col", "copyCols",
                                                                 "usedCoreNum", "normalCoreProcessNum",
                                                                 "tailCoreProcessNum", "highInner", "highOuter",
                                                                 "highTail", "headRows", "midRows", "tailRows")])


def _ceil_div(a, b):
    return -(-a // b)


def _ceil_align(a, b):
    return _ceil_div(a, b) * b


def tiling(device, shape, dtype_bytes, diagonal, upper):
    """TriangulatorTiling::DoTiling (+ SaveToTilingData, ComputeTilingKey): (key, block dim, packed struct)."""
    row, col = shape[-2], shape[-1]
    fused = int(np.prod(shape[:-2], dtype=np.int64)) if len(shape) > 2 else 1
    cores, ub = CORE_NUM, aj.get_device(device).ub_bytes - RESERVED_UB_SIZE
    s = dtype_bytes
    if (not upper and diagonal <= -row) or (upper and diagonal >= col):
        mode = OUTPUT_ZERO_MODE
    elif (not upper and diagonal >= col - 1) or (upper and diagonal <= 1 - row):
        mode = OUTPUT_INPUT_MODE
    elif col * row * s <= VREG_SIZE:
        mode = TINY_SHAPE_MODE
    elif row * _ceil_align(col * s, VREG_SIZE) * FOUR_BUFFER <= ub:
        mode = MEDIUM_SHAPE_MODE
    else:
        raise aj.ParameterError("triu tiling", "shape", tuple(shape), legal="planes the tiny or medium template "
                                "holds (the normal template, key 2x, split_row_and_col.h, is not ported)",
                                device=device)
    key = mode * 10 + s
    if mode == TINY_SHAPE_MODE:
        buffer_size = ub // FOUR_BUFFER // UB_BLOCK_SIZE * UB_BLOCK_SIZE
        tmp_inner = buffer_size // s * s // VREG_SIZE
        high_outer = max(_ceil_div(cores, MIN_CORE_COE), _ceil_div(fused, tmp_inner))
        high_inner = _ceil_div(fused, high_outer)
        high_outer = _ceil_div(fused, high_inner)
        tail = fused % high_inner
        t = np.zeros(1, TriangulatorTinyTilingData)
        t["bufferSize"], t["planeArea"] = buffer_size, row * col
        t["highInner"], t["highOuter"], t["highTail"] = high_inner, high_outer, tail if tail else high_inner
        mask = np.zeros(4, np.uint64)
        idx = 0
        for r in range(row):                       # ComputeMask
            for c in range(col):
                if (not upper and c <= r + diagonal) or (upper and c >= r + diagonal):
                    mask[idx // 64] |= np.uint64(1) << np.uint64(idx % 64)
                idx += 1
        t["highMask"] = mask
        blocks = high_outer
    elif mode == MEDIUM_SHAPE_MODE:
        buffer_size = ub // FOUR_BUFFER // UB_BLOCK_SIZE * UB_BLOCK_SIZE
        ele = buffer_size // s
        tmp = VREG_SIZE // UB_BLOCK_SIZE * UB_BLOCK_SIZE // s
        if col <= tmp:
            tmp = _ceil_align(col, UB_BLOCK_SIZE // s)
        tmp_inner = ele // (row * _ceil_align(col, tmp))
        high_outer = max(_ceil_div(cores, MIN_CORE_COE), _ceil_div(fused, tmp_inner))
        high_inner = _ceil_div(fused, high_outer)
        high_outer = _ceil_div(fused, high_inner)
        tail = fused % high_inner
        t = np.zeros(1, TriangulatorMediumTilingData)
        t["bufferSize"], t["row"], t["col"] = buffer_size, row, col
        t["highInner"], t["highOuter"], t["highTail"] = high_inner, high_outer, tail if tail else high_inner
        head = -diagonal
        tail_rows = row - col - head
        t["copyCols"] = (1 if head > 0 else -head + 1) - (1 if upper else 0)
        head, tail_rows = max(head, 0), max(tail_rows, 0)
        t["headRows"], t["tailRows"], t["midRows"] = head, tail_rows, row - head - tail_rows
        blocks = high_outer
    else:
        buffer_size = ub // TWO_BUFFER // UB_BLOCK_SIZE * UB_BLOCK_SIZE
        blocks = fused * col * row
        t = np.zeros(1, TriangulatorTilingData)
        t["bufferSize"] = buffer_size
    used = min(blocks, cores)
    normal, tail_num = blocks // used, blocks % used
    if mode in (OUTPUT_INPUT_MODE, OUTPUT_ZERO_MODE):    # OutputZeroAndInputTiling
        if blocks * s < LARGE_BLOCK_FOR_MOVE:
            used, normal, tail_num = 1, blocks, blocks
        else:
            normal = max(_ceil_div(blocks, cores), LARGE_BLOCK_FOR_MOVE // s)
            used = _ceil_div(blocks, normal)
            tail_num = blocks - normal * (used - 1)
    t["usedCoreNum"], t["normalCoreProcessNum"], t["tailCoreProcessNum"] = used, normal, tail_num
    return key, used, t.view(np.uint8).copy()


def _zero_before_copy(local, T, count):
    """Deviation (docstring): the bytes the VF's whole-vector loads read zeroed before the copy-in, which waits for
    it (V_MTE2)."""
    if ORIGINAL_UNINIT_LOADS:
        return
    aj.Duplicate(local, _NP[T](0), count)
    aj.SetFlag(0, event=aj.HardEvent.V_MTE2)
    aj.WaitFlag(0, event=aj.HardEvent.V_MTE2)


_NP = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64}
_BYTES = {"int8": 1, "int16": 2, "int32": 4, "int64": 8}


# ---- split_tiny_shape.h

def tiny_vf(srcAddr, dstAddr, maskUbAddr, repeatTimes, T):
    """SplitTinyShape::DoVectorCopy's __VEC_SCOPE__."""
    if T == "int8":
        dataCount = 256
    elif T == "int16":
        dataCount = 128
    elif T == "int32":
        dataCount = 64
    else:
        dataCount = 32
    vreg, sreg = R.RegTensor(T), R.RegTensor(T)
    maskReg, maskRegD, maskRegQ, maskRegO = R.MaskReg(), R.MaskReg(), R.MaskReg(), R.MaskReg()
    moveMask = R.CreateMask(T)
    R.Duplicate(sreg, 0)
    if T == "int16":
        R.DataCopy(maskRegO, maskUbAddr, dist=R.MaskDist.DIST_US)
    elif T == "int32":
        R.DataCopy(maskReg, maskUbAddr)
        R.MaskUnPack(maskRegD, maskReg)
        R.MaskUnPack(maskRegO, maskRegD)
    elif T == "int64":
        R.DataCopy(maskReg, maskUbAddr)
        R.MaskUnPack(maskRegD, maskReg)
        R.MaskUnPack(maskRegQ, maskRegD)
        R.MaskUnPack(maskRegO, maskRegQ)
    else:
        R.DataCopy(maskRegO, maskUbAddr)
    src = 0
    dst = 0
    for i in range(repeatTimes):
        src = R.DataCopy(vreg, srcAddr, src, post_update_stride=dataCount)
        R.DataCopy(dstAddr, sreg, moveMask, dst)
        dst = R.DataCopy(dstAddr, vreg, maskRegO, dst, post_update_stride=dataCount)


TINY_VF = R.simd_vf(tiny_vf)


def _split_cores(kernel, t, pipeIn):
    """The split kernels' common Init prologue: the pipe, the block and the cores' shares; False for an idle block."""
    kernel.pipe_ = pipeIn
    kernel.blockIdx_ = aj.GetBlockIdx()
    kernel.usedCoreNum_ = int(t.usedCoreNum)
    if kernel.blockIdx_ >= kernel.usedCoreNum_:
        return False
    kernel.normalCoreProcessNum_, kernel.tailCoreProcessNum_ = int(t.normalCoreProcessNum), int(t.tailCoreProcessNum)
    return True


class SplitTinyShape:
    """SplitTinyShape<T>."""

    def __init__(self, T):
        self.T = T

    def Init(self, x, y, tilingDataPtr, pipeIn):
        T, s = self.T, _BYTES[self.T]
        t = tilingDataPtr
        if not _split_cores(self, t, pipeIn):
            return
        self.highOuter_, self.highInner_, self.highTail_ = int(t.highOuter), int(t.highInner), int(t.highTail)
        self.planeArea_ = int(t.planeArea)
        self.copyInParam_, self.copyOutParam_ = aj.DataCopyExtParams(), aj.DataCopyExtParams()
        self.copyInParam_.dstStride = VREG_SIZE // UB_BLOCK_SIZE - _ceil_div(self.planeArea_ * s, UB_BLOCK_SIZE)
        self.copyOutParam_.srcStride = self.copyInParam_.dstStride
        self.copyInParam_.blockLen = self.planeArea_ * s
        self.copyOutParam_.blockLen = self.planeArea_ * s
        self.srcGm_, self.dstGm_ = aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.srcGm_.SetGlobalBuffer(x)
        self.dstGm_.SetGlobalBuffer(y)
        maskBuf = aj.TBuf(aj.TPosition.VECCALC)
        self.pipe_.InitBuffer(maskBuf, MASK_UB_SIZE)
        self.inQueue_, self.outQueue_ = aj.TQue(aj.QuePosition.VECIN, TINY_BUFFER_NUM), aj.TQue(
            aj.QuePosition.VECOUT, TINY_BUFFER_NUM)
        self.pipe_.InitBuffer(self.inQueue_, TINY_BUFFER_NUM, int(t.bufferSize))
        self.pipe_.InitBuffer(self.outQueue_, TINY_BUFFER_NUM, int(t.bufferSize))
        self.maskLocal_ = maskBuf.Get("uint64")
        for i in range(MASK_UB_SIZE // 8):
            self.maskLocal_.SetValue(i, np.uint64(t.highMask[i]))
        if not ORIGINAL_SETVALUE_RACE:   # deviation (docstring): the VF's MaskReg load waits for the SetValues
            aj.SetFlag(0, event=aj.HardEvent.S_V)
            aj.WaitFlag(0, event=aj.HardEvent.S_V)

    def Process(self):
        if self.blockIdx_ >= self.usedCoreNum_:
            return
        b, n, tail = self.blockIdx_, self.normalCoreProcessNum_, self.tailCoreProcessNum_
        startOffset = b * (n + 1) if b < tail else tail + b * n
        curBlocks = n + 1 if b < tail else n
        endOffset = startOffset + curBlocks
        cur = self.ComputeBlockInfo(startOffset)
        self.CopyIn(cur)
        for baseBlockIndex in range(startOffset + 1, endOffset):
            nxt = self.ComputeBlockInfo(baseBlockIndex)
            self.CopyIn(nxt)
            self.DoVectorCopy(cur)
            self.CopyOut(cur)
            cur = nxt
        self.DoVectorCopy(cur)
        self.CopyOut(cur)

    def ComputeBlockInfo(self, offset):
        """(highActual, gmOffset): TinyBlockInfo."""
        high = self.highTail_ if offset == self.highOuter_ - 1 else self.highInner_
        return high, offset * self.highInner_ * self.planeArea_

    def CopyIn(self, info):
        T = self.T
        self.copyInParam_.blockCount = info[0]
        copyInPadParam = aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0))
        xLocal = self.inQueue_.AllocTensor(T)
        _zero_before_copy(xLocal, T, info[0] * VREG_SIZE // _BYTES[T])
        aj.DataCopyPad(xLocal, self.srcGm_[info[1]], self.copyInParam_, copyInPadParam)
        self.inQueue_.EnQue(xLocal)

    def DoVectorCopy(self, info):
        T = self.T
        xLocal = self.inQueue_.DeQue(T)
        yLocal = self.outQueue_.AllocTensor(T)
        maskUbAddr = self.maskLocal_.ReinterpretCast("uint8")
        R.asc_vf_call(TINY_VF, xLocal, yLocal, maskUbAddr, info[0], T)
        self.inQueue_.FreeTensor(xLocal)
        self.outQueue_.EnQue(yLocal)

    def CopyOut(self, info):
        T = self.T
        self.copyOutParam_.blockCount = info[0]
        yLocal = self.outQueue_.DeQue(T)
        aj.DataCopyPad(self.dstGm_[info[1]], yLocal, self.copyOutParam_)
        self.outQueue_.FreeTensor(yLocal)


# ---- split_medium_shape.h

def medium_vf(xAddr, yAddr, highActual, headLoops, tailLoops, midRows, vfInnerLoops, regCount, copyCols, T,
              IS_LOWER):
    """SplitMediumShape::DoVectorCopy's __VEC_SCOPE__."""
    vregZero, vregSrc, vregDst = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    R.Duplicate(vregZero, 0)
    rowMask, _ = R.UpdateMask(T, regCount)
    x = 0
    y = 0
    for m in range(highActual):
        for i in range(headLoops):
            if IS_LOWER:
                y = R.DataCopy(yAddr, vregZero, rowMask, y, post_update_stride=regCount)
            else:
                x = R.DataCopy(vregSrc, xAddr, x, post_update_stride=regCount)
                y = R.DataCopy(yAddr, vregSrc, rowMask, y, post_update_stride=regCount)
        if IS_LOWER:
            x += headLoops * regCount
        for i in range(midRows):
            copyEleNum = copyCols + i
            for j in range(vfInnerLoops):
                x = R.DataCopy(vregSrc, xAddr, x, post_update_stride=regCount)
                selectMask, copyEleNum = R.UpdateMask(T, copyEleNum)
                if IS_LOWER:
                    R.Select(vregDst, vregSrc, vregZero, selectMask)
                else:
                    R.Select(vregDst, vregZero, vregSrc, selectMask)
                y = R.DataCopy(yAddr, vregDst, rowMask, y, post_update_stride=regCount)
        for i in range(tailLoops):
            if IS_LOWER:
                x = R.DataCopy(vregSrc, xAddr, x, post_update_stride=regCount)
                y = R.DataCopy(yAddr, vregSrc, rowMask, y, post_update_stride=regCount)
            else:
                y = R.DataCopy(yAddr, vregZero, rowMask, y, post_update_stride=regCount)
        if not IS_LOWER:
            x += tailLoops * regCount


MEDIUM_VF = R.simd_vf(medium_vf)


class SplitMediumShape:
    """SplitMediumShape<T, IS_LOWER>."""

    def __init__(self, T, IS_LOWER):
        self.T, self.IS_LOWER = T, IS_LOWER

    def Init(self, x, y, tilingDataPtr, pipeIn):
        T, s = self.T, _BYTES[self.T]
        t = tilingDataPtr
        if not _split_cores(self, t, pipeIn):
            return
        self.highInner_, self.highOuter_, self.highTail_ = int(t.highInner), int(t.highOuter), int(t.highTail)
        self.col_, self.row_ = int(t.col), int(t.row)
        self.planeArea_ = self.row_ * self.col_ * self.highInner_
        self.copyCols_ = int(t.copyCols)
        self.headRows_, self.midRows_, self.tailRows_ = int(t.headRows), int(t.midRows), int(t.tailRows)
        dataCount, blockCount = VREG_SIZE // s, UB_BLOCK_SIZE // s
        alignCount = blockCount if self.col_ <= dataCount else dataCount
        self.regCount_ = _ceil_align(self.col_, blockCount) if self.col_ <= dataCount else dataCount
        self.copyInParam_, self.copyOutParam_ = aj.DataCopyExtParams(), aj.DataCopyExtParams()
        self.copyInParam_.dstStride = (_ceil_align(self.col_, alignCount) * s // UB_BLOCK_SIZE -
                                       _ceil_div(self.col_ * s, UB_BLOCK_SIZE))
        self.copyOutParam_.srcStride = self.copyInParam_.dstStride
        self.copyInParam_.blockLen = self.col_ * s
        self.copyOutParam_.blockLen = self.col_ * s
        self.srcGm_, self.dstGm_ = aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.srcGm_.SetGlobalBuffer(x)
        self.dstGm_.SetGlobalBuffer(y)
        self.inQueue_ = aj.TQue(aj.QuePosition.VECIN, MEDIUM_BUFFER_NUM)
        self.outQueue_ = aj.TQue(aj.QuePosition.VECOUT, MEDIUM_BUFFER_NUM)
        # deviation (docstring): the last row's whole-vector loads read up to VL bytes past the buffer
        in_bytes = int(t.bufferSize) + (0 if ORIGINAL_UNINIT_LOADS else VREG_SIZE)
        self.pipe_.InitBuffer(self.inQueue_, MEDIUM_BUFFER_NUM, in_bytes)
        self.pipe_.InitBuffer(self.outQueue_, MEDIUM_BUFFER_NUM, int(t.bufferSize))

    Process = SplitTinyShape.Process

    def ComputeBlockInfo(self, offset):
        """(highActual, gmOffset): MediumBlockInfo."""
        high = self.highTail_ if offset == self.highOuter_ - 1 else self.highInner_
        return high, offset * self.planeArea_

    def CopyIn(self, info):
        T = self.T
        self.copyInParam_.blockCount = info[0] * self.row_
        copyInPadParam = aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0))
        xLocal = self.inQueue_.AllocTensor(T)
        rowStride = _ceil_div(self.col_, self.regCount_) * self.regCount_
        _zero_before_copy(xLocal, T, info[0] * self.row_ * rowStride + VREG_SIZE // _BYTES[T] - self.regCount_)
        aj.DataCopyPad(xLocal, self.srcGm_[info[1]], self.copyInParam_, copyInPadParam)
        self.inQueue_.EnQue(xLocal)

    def DoVectorCopy(self, info):
        T = self.T
        xLocal = self.inQueue_.DeQue(T)
        yLocal = self.outQueue_.AllocTensor(T)
        vfInnerLoops = _ceil_div(self.col_, self.regCount_)
        R.asc_vf_call(MEDIUM_VF, xLocal, yLocal, info[0], self.headRows_ * vfInnerLoops,
                      self.tailRows_ * vfInnerLoops, self.midRows_, vfInnerLoops, self.regCount_, self.copyCols_, T,
                      self.IS_LOWER)
        self.inQueue_.FreeTensor(xLocal)
        self.outQueue_.EnQue(yLocal)

    def CopyOut(self, info):
        T = self.T
        self.copyOutParam_.blockCount = info[0] * self.row_
        yLocal = self.outQueue_.DeQue(T)
        aj.DataCopyPad(self.dstGm_[info[1]], yLocal, self.copyOutParam_)
        self.outQueue_.FreeTensor(yLocal)


# ---- split_all.h

class SplitAll:
    """SplitAll<T, MODE>: every element 0 (OUTPUT_ZERO_MODE) or the input (OUTPUT_INPUT_MODE)."""

    def __init__(self, T, MODE):
        self.T, self.MODE = T, MODE

    def Init(self, x, y, tilingDataPtr, pipeIn):
        T, t = self.T, tilingDataPtr
        self.usedCoreNum_ = int(t.usedCoreNum)
        self.normalCoreProcessNum_, self.tailCoreProcessNum_ = int(t.normalCoreProcessNum), int(t.tailCoreProcessNum)
        self.bufferSize_ = int(t.bufferSize) if self.MODE == OUTPUT_INPUT_MODE else int(t.bufferSize) * 2
        self.blockIdx_ = aj.GetBlockIdx()
        self.pingpong_ = True
        if self.blockIdx_ >= self.usedCoreNum_:
            return
        burstLen = self.bufferSize_ // _BYTES[T]
        self.curCoreProcessNum_ = (self.normalCoreProcessNum_ if self.blockIdx_ < self.usedCoreNum_ - 1
                                   else self.tailCoreProcessNum_)
        self.curUbLoopCount_ = (self.curCoreProcessNum_ + burstLen - 1) // burstLen
        self.normalLoopBlockNum_ = burstLen if self.curCoreProcessNum_ >= burstLen else self.curCoreProcessNum_
        self.tailLoopBlockNum_ = self.curCoreProcessNum_ - (self.curUbLoopCount_ - 1) * self.normalLoopBlockNum_
        off = self.blockIdx_ * self.normalCoreProcessNum_
        self.srcGm_, self.dstGm_ = aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.srcGm_.SetGlobalBuffer(x[off:])
        self.dstGm_.SetGlobalBuffer(y[off:])
        self.pipe_ = pipeIn
        self.ubBuf1_, self.ubBuf2_ = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe_.InitBuffer(self.ubBuf1_, self.bufferSize_)
        if self.MODE == OUTPUT_INPUT_MODE:
            self.pipe_.InitBuffer(self.ubBuf2_, self.bufferSize_)

    def Process(self):
        if self.blockIdx_ >= self.usedCoreNum_:
            return
        T = self.T
        srcLocal1 = self.ubBuf1_.Get(T)
        srcLocal2 = self.ubBuf2_.Get(T) if self.MODE == OUTPUT_INPUT_MODE else srcLocal1
        pipe = aj.GetTPipePtr()
        eventFirst = eventSecond = 0
        if self.MODE == OUTPUT_INPUT_MODE:
            eventFirst = pipe.AllocEventID(aj.HardEvent.MTE3_MTE2)
            eventSecond = pipe.AllocEventID(aj.HardEvent.MTE3_MTE2)
            aj.SetFlag(eventFirst, event=aj.HardEvent.MTE3_MTE2)
            aj.SetFlag(eventSecond, event=aj.HardEvent.MTE3_MTE2)
        else:
            eventFirst = pipe.AllocEventID(aj.HardEvent.V_MTE3)
            aj.Duplicate(srcLocal1, _NP[T](0), self.bufferSize_ // _BYTES[T])
            aj.SetFlag(eventFirst, event=aj.HardEvent.V_MTE3)
            aj.WaitFlag(eventFirst, event=aj.HardEvent.V_MTE3)
            pipe.ReleaseEventID(eventFirst, aj.HardEvent.V_MTE3)
        for loopNum in range(self.curUbLoopCount_ - 1):
            if self.pingpong_:
                self.ProcessPerLoop(srcLocal1, eventFirst, loopNum, self.normalLoopBlockNum_)
            else:
                self.ProcessPerLoop(srcLocal2, eventSecond, loopNum, self.normalLoopBlockNum_)
            self.pingpong_ = not self.pingpong_
        if self.pingpong_:
            self.ProcessPerLoop(srcLocal1, eventFirst, self.curUbLoopCount_ - 1, self.tailLoopBlockNum_)
        else:
            self.ProcessPerLoop(srcLocal2, eventSecond, self.curUbLoopCount_ - 1, self.tailLoopBlockNum_)
        if self.MODE == OUTPUT_INPUT_MODE:
            aj.WaitFlag(eventFirst, event=aj.HardEvent.MTE3_MTE2)
            aj.WaitFlag(eventSecond, event=aj.HardEvent.MTE3_MTE2)
            pipe.ReleaseEventID(eventFirst, aj.HardEvent.MTE3_MTE2)
            pipe.ReleaseEventID(eventSecond, aj.HardEvent.MTE3_MTE2)
        else:
            aj.PipeBarrier(aj.PIPE_MTE3)

    def ProcessPerLoop(self, srcLocal, eventId, loopNum, loopBlockLength):
        T = self.T
        copyParams = aj.DataCopyExtParams(1, loopBlockLength * _BYTES[T], 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0))
        if self.MODE == OUTPUT_INPUT_MODE:
            aj.WaitFlag(eventId, event=aj.HardEvent.MTE3_MTE2)
            aj.DataCopyPad(srcLocal, self.srcGm_[self.normalLoopBlockNum_ * loopNum], copyParams, padParams)
            aj.SetFlag(eventId, event=aj.HardEvent.MTE2_MTE3)
            aj.WaitFlag(eventId, event=aj.HardEvent.MTE2_MTE3)
        aj.DataCopyPad(self.dstGm_[self.normalLoopBlockNum_ * loopNum], srcLocal, copyParams)
        if self.MODE == OUTPUT_INPUT_MODE:
            aj.SetFlag(eventId, event=aj.HardEvent.MTE3_MTE2)


# ---- triangulator_base.h and the entries

_STRUCT = {OUTPUT_ZERO_MODE: TriangulatorTilingData, OUTPUT_INPUT_MODE: TriangulatorTilingData,
           TINY_SHAPE_MODE: TriangulatorTinyTilingData, MEDIUM_SHAPE_MODE: TriangulatorMediumTilingData}
for _s in (TriangulatorTilingData, TriangulatorTinyTilingData, TriangulatorMediumTilingData):
    aj.REGISTER_TILING_DEFAULT(_s)


def triangulator_entry(x, y, workspace, tiling_bytes, tiling_key, IS_LOWER):
    """triangulatorEntry<IS_LOWER>; tiling_key stands for TILING_KEY_IS."""
    userWS = aj.GetUserWorkspace(workspace)
    if userWS is None:
        return
    mode, width = divmod(tiling_key, 10)
    if mode not in _STRUCT or width not in INT_TYPE:
        raise aj.ParameterError("triu", "tiling_key", tiling_key, legal="0x, 1x, 3x, 4x with x in 1, 2, 4, 8 (the "
                                "normal template, 2x, is not ported)", device="ascend950")
    T = INT_TYPE[width]
    tilingDataPtr = aj.GET_TILING_DATA_PTR_WITH_STRUCT(_STRUCT[mode], tiling_bytes)
    pipeIn = aj.TPipe()
    if mode in (OUTPUT_ZERO_MODE, OUTPUT_INPUT_MODE):
        op = SplitAll(T, mode)
    elif mode == TINY_SHAPE_MODE:
        op = SplitTinyShape(T)
    else:
        op = SplitMediumShape(T, IS_LOWER)
    op.Init(x, y, tilingDataPtr, pipeIn)
    op.Process()


def triu(x, y, workspace, tiling_bytes, tiling_key):
    """triu_apt.cpp."""
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    triangulator_entry(x, y, workspace, tiling_bytes, tiling_key, False)


def tril(x, y, workspace, tiling_bytes, tiling_key):
    """tril_apt.cpp."""
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    triangulator_entry(x, y, workspace, tiling_bytes, tiling_key, True)


def run_triangulator(device, inputs, diagonal, upper):
    x = inputs["x"]
    s = x.dtype.itemsize
    key, block_dim, tiling_bytes = tiling(device, x.shape, s, diagonal, upper)
    xi = np.ascontiguousarray(x).reshape(-1).view(_NP_INT[s])
    y = np.zeros(x.size, _NP_INT[s])
    workspace = np.zeros(aj.GetLibApiWorkSpaceSize(device) + WORKSPACE_SIZE, np.uint8)
    aj.launch(triu if upper else tril, block_dim, device, xi, y, workspace, tiling_bytes, key,
              bounds="ub" if ORIGINAL_UNINIT_LOADS else "tensor")
    return {"y": y.view(x.dtype).reshape(x.shape)}


def expected_triangulator(inputs, diagonal, upper):
    x = inputs["x"]
    return {"y": (np.triu if upper else np.tril)(x, diagonal)}


def _make_inputs(dtype, row, col):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        planes = max(1, size // (row * col))
        x = rng.integers(-100, 100, (planes, row, col)).astype(dtype)
        if np.dtype(dtype).kind == "f":
            x = (x + rng.uniform(-0.5, 0.5, x.shape)).astype(dtype)
        return {"x": x}
    return make_inputs


def _spec(name, description, dtype, row, col, diagonal, upper, default_size):
    return KernelSpec(name, description, _make_inputs(dtype, row, col),
                      lambda device, inputs: run_triangulator(device, inputs, diagonal, upper),
                      lambda device, inputs: expected_triangulator(inputs, diagonal, upper),
                      default_size=default_size, devices=("ascend950",),
                      size_rule=f"{row * col} to 4Mi elements", size_ok=lambda n: row * col <= n <= 1 << 22,
                      source=_SOURCE)


_SOURCE = "hicann/ops-math@c4193324 conversion/triu/op_kernel/arch35/split_tiny_shape.h"
KERNELS = [
    _spec("triu", "ops-math Triu, 950 arch35 tiny template, float 8 x 8 planes, k = 0: a host keep mask loaded into "
          "a MaskReg and MaskUnPacked twice to b32; per plane post-updating DataCopy load, zeros stored under "
          "CreateMask ALL, the plane under the keep mask", np.float32, 8, 8, 0, True, 100000),
    _spec("tril_half", "ops-math Tril tiny, half 11 x 11 planes, k = -1 (the mask by MaskDist DIST_US)", np.float16,
          11, 11, -1, False, 100000),
    _spec("tril_int8", "ops-math Tril tiny, int8 16 x 16 planes, k = 2 (the mask loaded as is)", np.int8, 16, 16, 2,
          False, 100000),
    _spec("triu_int64", "ops-math Triu tiny, int64 5 x 6 planes, k = -1 (three MaskUnPacks to b64)", np.int64, 5, 6,
          -1, True, 30000),
    _spec("triu_medium", "ops-math Triu, 950 arch35 medium template, float 40 x 70 planes, k = 3: rows of two "
          "64-lane chunks, Select of a zero register by an UpdateMask decremented chunk by chunk, post-updating "
          "DataCopy loads and stores", np.float32, 40, 70, 3, True, 200000),
    _spec("tril_medium_half", "ops-math Tril medium, half 100 x 30 planes, k = -5 (head rows of zeros, 32-lane row "
          "chunks)", np.float16, 100, 30, -5, False, 200000),
    _spec("triu_all_zero", "ops-math Triu, k past the columns: SplitAll zero mode (Duplicate, V_MTE3 flag, "
          "DataCopyPad out)", np.float32, 9, 5, 5, True, 100000),
    _spec("tril_all_input", "ops-math Tril, k past the last column: SplitAll input mode (two TBufs ping-ponged by "
          "AllocEventID'd MTE3_MTE2 / MTE2_MTE3 flags)", np.int16, 9, 5, 4, False, 100000),
]
