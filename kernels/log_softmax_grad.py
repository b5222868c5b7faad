"""LogSoftmaxGrad from the CANN NN operators, reduced over the last axis: z = dy - exp(x) * sum(dy) per row, float,
rows that fit the UB (the "reduce tail, small shape" schedule).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-nn @ 19dd7a6092358bf856c7521bde4fa3aaa8705bc1, experimental/activation/log_softmax_grad/op_kernel/
reduce_tail.h (`ReduceTail<float, IS_SMALL = true, IS_CONTIGUOUS, BUF_NUM = 1>`, `ProcSmallDim2` / `ComputeSmall`)
and log_softmax_grad_base.h (`CopyInDy` / `CopyInX` / `CopyOutZ`), with the host tiling of
experimental/activation/log_softmax_grad/op_host/log_softmax_grad_tiling.cpp (`ProcReduceTail`: four single buffers
of a quarter UB each; h rows a tile, at most ceil(rows / cores) and what a buffer holds; the cores take tiles
round-robin, the core after the last full tile the remainder). Per tile of h rows, wAlign = the row rounded up to a
DataBlock: rows whose width is a multiple of 8 floats are copied by one DataCopy (contiguous); others by a DataCopyPad
of h blocks of w floats (DataCopyExtParams, brace-list pad struct) that lands each row on its own DataBlock run, and
go back the same way. ComputeSmall: a UB -> UB DataCopy of dy into z, Exp of x in place, the per-row sums by halving
(count-form Adds of each row's upper part onto its lower part down to 128 columns, a high-dim Add over the rows with
repeat strides of a row, then WholeReduceSum of up to 64 columns a row, one row per repeat, 248 rows a call),
Brcb of the sums to one DataBlock per row, a high-dim Mul of each row's 64-column chunks by its broadcast block
(src1 block stride 0, repeat stride 1), Sub(z, dy, x).

Not portable: the half and bfloat16 instantiations copy the input into the buffer's back half and Cast it forward
into float over the same buffer (`Cast(dyFloatIn, dyFloatIn.ReinterpretCast<T>()[singleBufElems], ...)`), a partial
overlap between types of different sizes that SPEC-2 D34 refuses; the contiguous rows whose width is not a multiple
of 8 (and at most 255) transpose with TransDataTo5HD, which the emulator does not offer; the large-row and
middle-axis schedules were not ported.

Deviations (also in docs/decisions.md "Kernel gallery"): Brcb broadcasts the row sums a DataBlock (8 rows) at a
time, so with h not a multiple of 8 it reads up to 7 sums past the h that WholeReduceSum wrote (stale UB whose
broadcast rows are never read; the sanitizer reports the read): the port zeroes the sums buffer once in Init. The
core count is the launch's 8 (GetCoreNum would give the device's).

Devices: float WholeReduceSum (not the 910) and Brcb (not the 310B) decide: the 950, A3, A2 and 310P; the padded rows
also need DataCopyPad (not the 310P).

Fidelity: MODELLED (Exp is MODELLED on every device, SPEC-2 0.3). Inputs keep exp(x) in [6e-6, 5e-5] and dy in
[1, 2], so exp(x) * sum(dy) stays below a tenth of dy and z has no cancellation: z is within 1e-6 relative of the
float64 formula (Exp's rounding and the float sum's, each scaled down by the small product, and the final Sub's).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BLOCK_SIZE = 32
FP32_ELEMS_PER_BLOCK = 8
FP32_ELEMS_PER_REPEAT = 64
MAX_REPEAT_TIME = 255
REDUCE_MAX_REPEAT_TIME = 248
REDUCE_TAIL_NODB_BUF_NUM = 4
TRANS_MIN_SIZE = 16 * FP32_ELEMS_PER_BLOCK
CORE_NUM = 8
ALIGNED_WIDTH, PADDED_WIDTH, NARROW_WIDTH = 1024, 1001, 40
BRCB_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore")   # float WholeReduceSum and Brcb
PAD_DEVICES = ("ascend950", "atlas-a3", "atlas-a2")                             # and DataCopyPad


def tiling(device, rows, width):
    """ProcReduceTail for float rows that fit one buffer: (usedCoreNum, tiling data, contiguous)."""
    ub = aj.get_device(device).ub_bytes
    single = ub // REDUCE_TAIL_NODB_BUF_NUM // BLOCK_SIZE * BLOCK_SIZE // 4
    width_align = -(-width // FP32_ELEMS_PER_BLOCK) * FP32_ELEMS_PER_BLOCK
    assert width_align <= single, "a row past one buffer takes the large-row schedule, not ported"
    dim1_tile = -(-rows // CORE_NUM)
    dim1_max = single // width
    if width % FP32_ELEMS_PER_BLOCK == 0:
        contiguous, dim1_tile = True, min(dim1_tile, dim1_max)
    else:
        assert not (dim1_max >= TRANS_MIN_SIZE and width <= MAX_REPEAT_TIME), "the TransDataTo5HD path, not ported"
        contiguous, dim1_tile = False, min(dim1_tile, single // width_align)
    dim1_tile = min(dim1_tile, rows)
    loops, remained = divmod(rows, dim1_tile)
    used = min(loops + (remained > 0), CORE_NUM)
    return used, dict(singleBufElems=single, dim1Tile=dim1_tile, dim2Tile=width, mergedDim2=width,
                      dim1LoopTime=loops, dim1Remained=remained), contiguous


class ReduceTail:
    def __init__(self, contiguous):
        self.IS_CONTIGUOUS = contiguous

    def Init(self, tiling_data, pipe):
        self.singleBufElems_ = tiling_data["singleBufElems"]
        self.dim1Tile_, self.dim2Tile_ = tiling_data["dim1Tile"], tiling_data["dim2Tile"]
        self.mergedDim2_ = tiling_data["mergedDim2"]
        self.dim1LoopTime_, self.dim1Remained_ = tiling_data["dim1LoopTime"], tiling_data["dim1Remained"]
        self.pipePtr_ = pipe
        self.inQueDy_ = aj.TQue(aj.QuePosition.VECIN, 1)
        self.inQueX_ = aj.TQue(aj.QuePosition.VECIN, 1)
        self.outQueZ_ = aj.TQue(aj.QuePosition.VECOUT, 1)
        self.tempBuf_ = aj.TBuf(aj.QuePosition.VECCALC)
        singleBufSize = self.singleBufElems_ * 4
        pipe.InitBuffer(self.inQueDy_, 1, singleBufSize)
        pipe.InitBuffer(self.inQueX_, 1, singleBufSize)
        pipe.InitBuffer(self.outQueZ_, 1, singleBufSize)
        pipe.InitBuffer(self.tempBuf_, singleBufSize)
        self.t1_ = self.tempBuf_.Get("float")
        aj.Duplicate(self.t1_, np.float32(0.0), self.singleBufElems_)     # deviation: see the module docstring
        self.inParams_, self.outParams_ = aj.DataCopyExtParams(), aj.DataCopyExtParams()
        if not self.IS_CONTIGUOUS:
            self.inParams_.dstStride = 0
            self.outParams_.srcStride = 0

    def Process(self, dy, x, z):
        blockNum, blockIdx = aj.GetBlockNum(), aj.GetBlockIdx()
        self.dyGM_, self.xGM_, self.zGM_ = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        if not self.IS_CONTIGUOUS:
            self.inParams_.blockCount = self.dim1Tile_
            self.outParams_.blockCount = self.inParams_.blockCount
            self.inParams_.blockLen = self.dim2Tile_ * 4
            self.inParams_.srcStride = 0
            self.outParams_.blockLen = self.inParams_.blockLen
            self.outParams_.dstStride = self.inParams_.srcStride
        dim1Stride = self.dim1Tile_ * self.mergedDim2_
        for i in range(blockIdx, self.dim1LoopTime_, blockNum):
            offset = i * dim1Stride
            self.dyGM_.SetGlobalBuffer(dy[offset:])
            self.xGM_.SetGlobalBuffer(x[offset:])
            self.zGM_.SetGlobalBuffer(z[offset:])
            self.ProcSmallDim2(self.dim1Tile_)
        if self.dim1Remained_ and blockIdx == self.dim1LoopTime_ % blockNum:
            if not self.IS_CONTIGUOUS:
                self.inParams_.blockCount = self.dim1Remained_
                self.outParams_.blockCount = self.inParams_.blockCount
            offset = self.dim1LoopTime_ * dim1Stride
            self.dyGM_.SetGlobalBuffer(dy[offset:])
            self.xGM_.SetGlobalBuffer(x[offset:])
            self.zGM_.SetGlobalBuffer(z[offset:])
            self.ProcSmallDim2(self.dim1Remained_)

    # --- log_softmax_grad_base.h ------------------------------------------------------------------------------------
    def CopyIn(self, que, gm, offset, count):
        floatIn = que.AllocTensor("float")
        if self.IS_CONTIGUOUS:
            aj.DataCopy(floatIn, gm[offset], -(-count // FP32_ELEMS_PER_BLOCK) * FP32_ELEMS_PER_BLOCK)
        else:
            aj.DataCopyPad(floatIn, gm[offset], self.inParams_, (False, 0, 0, np.float32(0)))
        que.EnQue(floatIn)

    def CopyOutZ(self, offset, count):
        zFloatOut = self.outQueZ_.DeQue("float")
        if self.IS_CONTIGUOUS:
            countFloorAlign = count // FP32_ELEMS_PER_BLOCK * FP32_ELEMS_PER_BLOCK
            countRemained = count - countFloorAlign
            aj.DataCopy(self.zGM_[offset], zFloatOut, countFloorAlign)
            if countRemained:
                aj.DataCopyPad(self.zGM_[offset + countFloorAlign], zFloatOut[countFloorAlign],
                               aj.DataCopyParams(1, countRemained * 4, 0, 0))
        else:
            aj.DataCopyPad(self.zGM_[offset], zFloatOut, self.outParams_)
        self.outQueZ_.FreeTensor(zFloatOut)

    # --- reduce_tail.h ----------------------------------------------------------------------------------------------
    def ProcSmallDim2(self, h):
        wAlign = self.dim2Tile_ if self.IS_CONTIGUOUS else -(-self.dim2Tile_ // 8) * 8
        copyNum = h * wAlign
        self.CopyIn(self.inQueX_, self.xGM_, 0, copyNum)
        self.CopyIn(self.inQueDy_, self.dyGM_, 0, copyNum)
        self.ComputeSmall(h, self.dim2Tile_, wAlign)
        self.CopyOutZ(0, copyNum)

    def ComputeSmall(self, h, w, wAlign):
        calcElems = h * wAlign
        dy = self.inQueDy_.DeQue("float")
        x = self.inQueX_.DeQue("float")
        z = self.outQueZ_.AllocTensor("float")
        aj.DataCopy(z, dy, calcElems)
        aj.Exp(x, x, calcElems)
        self.BinaryAddReduceDy(self.t1_, z, h, w, wAlign)
        aj.PipeBarrier(aj.PIPE_V)
        self.BroadcastSum(z, self.t1_, h)
        aj.PipeBarrier(aj.PIPE_V)
        self.RectMul(x, z, h, wAlign)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Sub(z, dy, x, calcElems)
        self.outQueZ_.EnQue(z)
        self.inQueX_.FreeTensor(x)
        self.inQueDy_.FreeTensor(dy)

    def BinaryAddReduceDy(self, result, inp, h, w, wAlign):
        hLoopTime, hRemained = divmod(h, REDUCE_MAX_REPEAT_TIME)
        hRepeatStride = REDUCE_MAX_REPEAT_TIME * wAlign
        wBlkCount = wAlign // FP32_ELEMS_PER_BLOCK
        totalNum = self.ReduceLargeWidth(inp, w, h, wAlign, 2 * FP32_ELEMS_PER_REPEAT)
        if totalNum > FP32_ELEMS_PER_REPEAT:
            offset = 0
            aj.PipeBarrier(aj.PIPE_V)
            params = (1, 1, 1, wBlkCount, wBlkCount, wBlkCount)
            for _ in range(hLoopTime):
                temp = inp[offset]
                aj.Add(temp, temp, temp[FP32_ELEMS_PER_REPEAT], totalNum - FP32_ELEMS_PER_REPEAT,
                       REDUCE_MAX_REPEAT_TIME, params)
                offset += hRepeatStride
            if hRemained:
                temp = inp[offset]
                aj.Add(temp, temp, temp[FP32_ELEMS_PER_REPEAT], totalNum - FP32_ELEMS_PER_REPEAT, hRemained, params)
            totalNum = FP32_ELEMS_PER_REPEAT
        self.ReduceSmallWidth(result, inp, totalNum, hLoopTime, hRemained, hRepeatStride, wBlkCount)

    def ReduceLargeWidth(self, inp, totalNum, h, wAlign, elemsDoubleRepeat):
        while totalNum > elemsDoubleRepeat:
            halfNum = -(-totalNum // elemsDoubleRepeat) * FP32_ELEMS_PER_REPEAT
            offset = 0
            aj.PipeBarrier(aj.PIPE_V)
            for _ in range(h):
                temp = inp[offset]
                aj.Add(temp, temp, temp[halfNum], totalNum - halfNum)
                offset += wAlign
            totalNum = halfNum
        return totalNum

    def ReduceSmallWidth(self, result, inp, totalNum, hLoopTime, hRemained, hRepeatStride, wBlkCount):
        hOffset, offset = 0, 0
        aj.PipeBarrier(aj.PIPE_V)
        for _ in range(hLoopTime):
            aj.WholeReduceSum(result[hOffset], inp[offset], totalNum, REDUCE_MAX_REPEAT_TIME, 1, 1, wBlkCount)
            offset += hRepeatStride
            hOffset += REDUCE_MAX_REPEAT_TIME
        if hRemained:
            aj.WholeReduceSum(result[hOffset], inp[offset], totalNum, hRemained, 1, 1, wBlkCount)

    def BroadcastSum(self, dst, src, h):
        dstStride = MAX_REPEAT_TIME * FP32_ELEMS_PER_REPEAT
        srcStride = MAX_REPEAT_TIME * FP32_ELEMS_PER_BLOCK
        hBlkCount = -(-h // FP32_ELEMS_PER_BLOCK)
        loopTime, remained = divmod(hBlkCount, MAX_REPEAT_TIME)
        srcOffset = dstOffset = 0
        for _ in range(loopTime):
            aj.Brcb(dst[dstOffset], src[srcOffset], MAX_REPEAT_TIME, (1, 8))
            dstOffset += dstStride
            srcOffset += srcStride
        if remained:
            aj.Brcb(dst[dstOffset], src[srcOffset], remained, (1, 8))

    def RectMul(self, a1, a2, h, wAlign):
        """RectMulSmallWidth (rows of at most 255 DataBlocks): each 64-column chunk of every row times the row's
        broadcast block."""
        assert wAlign <= MAX_REPEAT_TIME * FP32_ELEMS_PER_BLOCK, "RectMulLargeWidth: not reached by these widths"
        wLoopTime, wRemained = divmod(wAlign, FP32_ELEMS_PER_REPEAT)
        hLoopTime, hRemained = divmod(h, MAX_REPEAT_TIME)
        wBlkCount = wAlign // FP32_ELEMS_PER_BLOCK
        params = (1, 1, 0, wBlkCount, wBlkCount, 1)
        for mask, wOffset in ([(FP32_ELEMS_PER_REPEAT, i * FP32_ELEMS_PER_REPEAT) for i in range(wLoopTime)]
                              + ([(wRemained, wLoopTime * FP32_ELEMS_PER_REPEAT)] if wRemained else [])):
            hOffset, sumOffset = wOffset, 0
            for _ in range(hLoopTime):
                aj.Mul(a1[hOffset], a1[hOffset], a2[sumOffset], mask, MAX_REPEAT_TIME, params)
                hOffset += MAX_REPEAT_TIME * wAlign
                sumOffset += MAX_REPEAT_TIME * FP32_ELEMS_PER_BLOCK
            if hRemained:
                aj.Mul(a1[hOffset], a1[hOffset], a2[sumOffset], mask, hRemained, params)


def log_softmax_grad(dy, x, z, tiling_data, contiguous):
    pipe = aj.TPipe()
    op = ReduceTail(contiguous)
    op.Init(tiling_data, pipe)
    op.Process(dy, x, z)


def _make_inputs(width):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        return {"dy": rng.uniform(1.0, 2.0, size).astype(np.float32),
                "x": rng.uniform(-12.0, -10.0, size).astype(np.float32)}
    return make_inputs


def _run(width):
    def run(device, inputs):
        dy = inputs["dy"]
        rows = dy.size // width
        padded = -(-dy.size // 8) * 8
        gm = {}
        for key in ("dy", "x"):
            gm[key] = np.zeros(padded, np.float32)
            gm[key][:dy.size] = inputs[key]
        z = np.zeros(padded, np.float32)
        block_dim, tiling_data, contiguous = tiling(device, rows, width)
        aj.launch(log_softmax_grad, block_dim, device, gm["dy"], gm["x"], z, tiling_data, contiguous)
        return {"z": z[:dy.size]}
    return run


def _expected(width):
    def expected(device, inputs):
        dy = inputs["dy"].astype(np.float64).reshape(-1, width)
        x = inputs["x"].astype(np.float64).reshape(-1, width)
        return {"z": (dy - np.exp(x) * dy.sum(axis=1, keepdims=True)).reshape(-1)}
    return expected


_SOURCE = "hicann/ops-nn@19dd7a60 experimental/activation/log_softmax_grad/op_kernel/reduce_tail.h"
KERNELS = [
    KernelSpec("log_softmax_grad", "LogSoftmaxGrad over float rows of 1024: per-row sums by halving Adds, high-dim "
               "Add with row strides and WholeReduceSum (a row a repeat), Brcb to a block a row, high-dim Mul with "
               "src1 block stride 0; contiguous DataCopy", _make_inputs(ALIGNED_WIDTH), _run(ALIGNED_WIDTH),
               _expected(ALIGNED_WIDTH), default_size=24 * ALIGNED_WIDTH, devices=BRCB_DEVICES, tolerance=1e-6,
               size_rule=f"a multiple of {ALIGNED_WIDTH} (whole rows)", size_ok=lambda n: n > 0 and n % 1024 == 0,
               source=_SOURCE),
    KernelSpec("log_softmax_grad_padded", "LogSoftmaxGrad over float rows of 1001: rows copied in and out by one "
               "DataCopyPad of h blocks onto 32-byte aligned UB rows, the same reduction with 1008-float rows",
               _make_inputs(PADDED_WIDTH), _run(PADDED_WIDTH), _expected(PADDED_WIDTH),
               default_size=24 * PADDED_WIDTH, devices=PAD_DEVICES, tolerance=1e-6,
               size_rule=f"a multiple of {PADDED_WIDTH} (whole rows)", size_ok=lambda n: n > 0 and n % 1001 == 0,
               source=_SOURCE),
    KernelSpec("log_softmax_grad_narrow", "LogSoftmaxGrad over float rows of 40: 300 rows a tile, so WholeReduceSum "
               "runs 248 rows and the rest, the broadcast Mul 255 and the rest, each with a 40-lane mask",
               _make_inputs(NARROW_WIDTH), _run(NARROW_WIDTH), _expected(NARROW_WIDTH),
               default_size=2400 * NARROW_WIDTH, devices=BRCB_DEVICES, tolerance=1e-6,
               size_rule=f"a multiple of {NARROW_WIDTH} (whole rows)", size_ok=lambda n: n > 0 and n % 40 == 0,
               source=_SOURCE),
]
