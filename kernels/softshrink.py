"""Softshrink from the CANN NN operators: y = x - lambd where x > lambd, x + lambd where x < -lambd, else 0, element by
element, over float, half and bfloat16 (the 16-bit types computed in float); NaN inputs meant to pass through.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921,
experimental/activation/softshrink/op_kernel/softshrink.h (`NsSoftshrink::Softshrink<T, BUFFER_MODE>`:
blockFactor elements a core, the last core the rest; VECIN / VECOUT queues of depth 1 or 2 (BUFFER_MODE), a VECCALC
TBuf of ubFactor computing elements (two float halves for the 16-bit types: fp32Buf and fp32Tmp = fp32Buf[ubFactor])
and a bit-mask TBuf of ceil(ubFactor / 8) bytes rounded up to 256; CopyIn by DataCopyPad with a DataCopyParams set
field by field and `{false, 0, 0, 0}`; Compute over alignedNum = the tile rounded up to 256 bytes of computing
elements: [Cast CAST_NONE], Compares GT lambd + Adds -lambd + Select VSEL_TENSOR_SCALAR_MODE 0, Compares LT -lambd +
Adds lambd + Select 0, Add of the two branches, the NaN fix-up Compare(x, x, NE) + Select VSEL_TENSOR_TENSOR_MODE
(x where set), [Cast CAST_ROUND]; CopyOut by DataCopyPad; the double-buffered Process copies tile i in before
computing tile i - 1), op_kernel/softshrink.cpp (the entry) and op_host/softshrink_tiling.cpp
(`SoftshrinkTilingFunc`: at least 1024 elements a core, blockFactor = ceil(total / cores), double buffering when a
core has more than 1024 elements, ubFactor = UB / typeSize / bufferNum (float 6 or 4, 16-bit 9 or 7) rounded down
to 64 elements).

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's). GM is padded to 32 bytes, as
device allocations are.

Deviation at a short tile only: Compute reads the tile up to alignedNum, so the elements past the copied 32-byte
blocks were never written (harmless on the device: their lanes are computed and never copied out), an uninitialised
read for the sanitizer. As kernels/relu6_d.py and sigmoid_regbase.py do, the port zeroes those elements by a
Duplicate before the copy-in (`zero_tail=False` runs the original's sequence, which the sanitizer reports; the
stored results are the same).

Devices: the original is built for the ascend910b (A2/A3 config); DataCopyPad keeps it off the 310P and the 910.
The kernel runs on the A3 and A2.

NaN: the original's NaN fix-up relies on Compare NE giving 1 for x != x. On the A2/A3 the vector compare returns 0
for NE with a NaN operand (SPEC-2 D43, DK MemBV-T30 notes), so a NaN input leaves the fix-up unselected and comes out
as 0 (both branches' Compares are false): the emulator models that, and the expectation follows it.

Fidelity: BIT-EXACT (Cast, Compares, Compare, Adds, Select, Add, DataCopyPad are BIT-EXACT, SPEC-2 0.3): the
expectation is the formula in float (x - lambd and x + lambd rounded once, the other branch an exact +0), the 16-bit
results rounded half away from zero (CAST_ROUND).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                     # deviation: the launch's cores (GetCoreNumAiv in the original)
MIN_PER_CORE_ELEMS = 1024
MIN_SPLIT_THRESHOLD = 1024
VECTOR_ALIGN_ELEM = 256 // 4
UB_BLOCK_SIZE = 32
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("atlas-a3", "atlas-a2")


def tiling(device, total, dtype, lambd):
    """SoftshrinkTilingFunc: (block dim, BUFFER_MODE, tiling data)."""
    ub_size = aj.get_device(device).ub_bytes
    max_cores = max(1, total // MIN_PER_CORE_ELEMS)
    effective = min(CORE_NUM, max_cores)
    block_factor = -(-total // effective)
    used = -(-total // block_factor)
    double = 1 if block_factor > MIN_SPLIT_THRESHOLD else 0
    if dtype == "float":
        buffer_num = 6 if double else 4
    else:
        buffer_num = 9 if double else 7
    align_unit = max(UB_BLOCK_SIZE, VECTOR_ALIGN_ELEM)
    ub_factor = ub_size // TYPE_SIZE[dtype] // buffer_num // align_unit * align_unit
    return used, double, dict(totalNum=total, blockFactor=block_factor, ubFactor=ub_factor, lambd=np.float32(lambd))


class Softshrink:
    """`Softshrink<T, BUFFER_MODE>`."""

    def __init__(self, T, BUFFER_MODE, zero_tail=True):
        self.T, self.zero_tail = T, zero_tail
        self.BUFFER_NUM = 2 if BUFFER_MODE else 1
        self.NEED_CAST = T in ("half", "bfloat16")
        self.ComputeType = "float" if self.NEED_CAST else T

    def Init(self, inputX, outputY, tilingData):
        T = self.T
        remainderLength = tilingData["totalNum"] - tilingData["blockFactor"] * aj.GetBlockIdx()
        self.blockLength_ = min(remainderLength, tilingData["blockFactor"])
        self.ubLength_ = tilingData["ubFactor"]
        self.lambd_ = np.float32(tilingData["lambd"])
        offset = tilingData["blockFactor"] * aj.GetBlockIdx()
        self.inputGM, self.outputGM = aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGM.SetGlobalBuffer(inputX[offset:], self.blockLength_)
        self.outputGM.SetGlobalBuffer(outputY[offset:], self.blockLength_)
        self.pipe = aj.TPipe()
        self.inputQueue = aj.TQue(aj.QuePosition.VECIN, self.BUFFER_NUM)
        self.outputQueue = aj.TQue(aj.QuePosition.VECOUT, self.BUFFER_NUM)
        self.tmpBuf, self.maskBuf = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.inputQueue, self.BUFFER_NUM, self.ubLength_ * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.outputQueue, self.BUFFER_NUM, self.ubLength_ * TYPE_SIZE[T])
        if self.NEED_CAST:
            self.pipe.InitBuffer(self.tmpBuf, 2 * self.ubLength_ * 4)      # fp32Buf and fp32Tmp back to back
        else:
            self.pipe.InitBuffer(self.tmpBuf, self.ubLength_ * TYPE_SIZE[T])
        maskBytes = (self.ubLength_ + 7) // 8
        maskBytes = (maskBytes + 255) // 256 * 256
        self.pipe.InitBuffer(self.maskBuf, maskBytes)

    def CopyIn(self, progress, currentNum):
        T = self.T
        inputLocal = self.inputQueue.AllocTensor(T)
        ALIGN_ELEM = 256 // TYPE_SIZE[self.ComputeType]
        computed = (currentNum + ALIGN_ELEM - 1) // ALIGN_ELEM * ALIGN_ELEM
        copied = (currentNum * TYPE_SIZE[T] + UB_BLOCK_SIZE - 1) // UB_BLOCK_SIZE * UB_BLOCK_SIZE // TYPE_SIZE[T]
        if self.zero_tail and computed > copied:
            # not in the original (docstring): the elements Compute reads past the copy, zeroed; past the copy's
            # bytes, so no ordering against it, and Compute follows on the vector pipe
            aj.Duplicate(inputLocal[copied], _NP[T](0), computed - copied)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(inputLocal, self.inputGM[progress * self.ubLength_], copyParams,
                       aj.DataCopyPadParams(False, 0, 0, 0))
        self.inputQueue.EnQue(inputLocal)

    def Compute(self, currentNum):
        T = self.T
        inputLocal = self.inputQueue.DeQue(T)
        resultLocal = self.outputQueue.AllocTensor(T)
        ALIGN_ELEM = 256 // TYPE_SIZE[self.ComputeType]
        alignedNum = (currentNum + ALIGN_ELEM - 1) // ALIGN_ELEM * ALIGN_ELEM
        maskLocal = self.maskBuf.Get("uint8")
        lambd, neg_lambd = self.lambd_, -self.lambd_
        if self.NEED_CAST:
            fp32Buf = self.tmpBuf.Get("float")
            fp32Tmp = fp32Buf[self.ubLength_]
            aj.Cast(fp32Buf, inputLocal, aj.RoundMode.CAST_NONE, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
            # positive branch: x > lambd ? x - lambd : 0
            aj.Compares(maskLocal, fp32Buf, lambd, aj.CMPMODE.GT, alignedNum)
            aj.Adds(fp32Tmp, fp32Buf, neg_lambd, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Select(fp32Tmp, maskLocal, fp32Tmp, np.float32(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
            # negative branch: x < -lambd ? x + lambd : 0
            aj.Compares(maskLocal, fp32Buf, neg_lambd, aj.CMPMODE.LT, alignedNum)
            aj.Adds(fp32Buf, fp32Buf, lambd, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Select(fp32Buf, maskLocal, fp32Buf, np.float32(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Add(fp32Buf, fp32Buf, fp32Tmp, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
            # NaN fix-up: the input again, selected where x != x
            aj.Cast(fp32Tmp, inputLocal, aj.RoundMode.CAST_NONE, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Compare(maskLocal, fp32Tmp, fp32Tmp, aj.CMPMODE.NE, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Select(fp32Buf, maskLocal, fp32Tmp, fp32Buf, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Cast(resultLocal, fp32Buf, aj.RoundMode.CAST_ROUND, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
        else:
            tmpLocal = self.tmpBuf.Get(T)
            aj.Compares(maskLocal, inputLocal, lambd, aj.CMPMODE.GT, alignedNum)
            aj.Adds(tmpLocal, inputLocal, neg_lambd, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Select(tmpLocal, maskLocal, tmpLocal, np.float32(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Compares(maskLocal, inputLocal, neg_lambd, aj.CMPMODE.LT, alignedNum)
            aj.Adds(resultLocal, inputLocal, lambd, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Select(resultLocal, maskLocal, resultLocal, np.float32(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE,
                      alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Add(resultLocal, resultLocal, tmpLocal, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Compare(maskLocal, inputLocal, inputLocal, aj.CMPMODE.NE, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Select(resultLocal, maskLocal, inputLocal, resultLocal, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, alignedNum)
            aj.PipeBarrier(aj.PIPE_V)
        self.outputQueue.EnQue(T, resultLocal)
        self.inputQueue.FreeTensor(inputLocal)

    def CopyOut(self, progress, currentNum):
        resultLocal = self.outputQueue.DeQue(self.T)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[self.T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(self.outputGM[progress * self.ubLength_], resultLocal, copyParams)
        self.outputQueue.FreeTensor(resultLocal)

    def Process(self):
        blockLength, ubLength = self.blockLength_, self.ubLength_
        loopCount = (blockLength + ubLength - 1) // ubLength
        if self.BUFFER_NUM == 2:
            curNum0 = blockLength if loopCount == 1 else ubLength
            if loopCount >= 2:
                self.CopyIn(0, curNum0)
                for i in range(1, loopCount):
                    if i == 1:
                        prevNum = curNum0
                    else:
                        prevNum = blockLength - ubLength * (i - 1) if i - 1 == loopCount - 1 else ubLength
                    curNum = blockLength - ubLength * i if i == loopCount - 1 else ubLength
                    self.CopyIn(i, curNum)
                    self.Compute(prevNum)
                    self.CopyOut(i - 1, prevNum)
                lastNum = blockLength - ubLength * (loopCount - 1)
                self.Compute(lastNum)
                self.CopyOut(loopCount - 1, lastNum)
            elif loopCount == 1:
                self.CopyIn(0, curNum0)
                self.Compute(curNum0)
                self.CopyOut(0, curNum0)
        else:
            for i in range(loopCount):
                currentNum = blockLength - ubLength * i if i == loopCount - 1 else ubLength
                self.CopyIn(i, currentNum)
                self.Compute(currentNum)
                self.CopyOut(i, currentNum)


def softshrink(input_x, output_y, workspace, tiling_data, D_T_X, BUFFER_MODE, zero_tail=True):
    op = Softshrink(D_T_X, BUFFER_MODE, zero_tail)
    op.Init(input_x, output_y, tiling_data)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-2.0, 2.0, size).astype(np.float32)
        x[::97] = 0.5                                # exactly +-lambd: neither branch
        x[1::97] = -0.5
        return {"x": x.astype(_NP[dtype])}
    return make_inputs


def run_softshrink(device, x, lambd=0.5, zero_tail=True):
    dtype = {np.dtype(v): k for k, v in _NP.items()}[x.dtype]
    padded = -(-x.size * x.itemsize // 32) * 32 // x.itemsize
    gm_x, gm_y = np.zeros(padded, x.dtype), np.zeros(padded, x.dtype)
    gm_x[:x.size] = x
    block_dim, buffer_mode, tiling_data = tiling(device, x.size, dtype, lambd)
    aj.launch(softshrink, block_dim, device, gm_x, gm_y, None, tiling_data, dtype, buffer_mode, zero_tail)
    return gm_y[:x.size]


def softshrink_model(x, lambd=0.5):
    """The formula in float: x -+ lambd rounded once, else +0; NaN -> 0 (A2/A3 Compare NE, SPEC-2 D43); the 16-bit
    types rounded half away from zero."""
    xf = x.astype(np.float32)
    lam = np.float32(lambd)
    with np.errstate(invalid="ignore"):
        pos = np.where(xf > lam, xf - lam, np.float32(0.0))
        neg = np.where(xf < -lam, xf + lam, np.float32(0.0))
    y = (pos + neg).astype(np.float32)
    if x.dtype == np.float32:
        return y
    return _round_away(y, x.dtype)


def _round_away(y, np_t):
    """float32 -> half / bfloat16 rounding half away from zero (CAST_ROUND) for finite values in range."""
    with np.errstate(invalid="ignore", over="ignore"):
        return _round_away_finite(y, np_t)


def _round_away_finite(y, np_t):
    y64 = y.astype(np.float64)
    lo = y.astype(np_t)                                  # RNE
    lo64 = lo.astype(np.float64)
    # the neighbour on the other side of y
    step = np.where(lo64 > y64, -1, 1) * np.where(y64 >= 0, 1, -1)
    bits = lo.view(np.uint16).astype(np.int32)
    other = (bits + step).astype(np.uint16).view(np_t)
    other64 = other.astype(np.float64)
    tie = np.abs(other64 - y64) == np.abs(lo64 - y64)
    away = np.where(np.abs(other64) > np.abs(lo64), other, lo)
    return np.where(tie & (y64 != lo64), away, lo).astype(np_t)


def _run(dtype):
    def run(device, inputs):
        return {"y": run_softshrink(device, inputs["x"])}
    return run


def _expected(dtype):
    def expected(device, inputs):
        return {"y": softshrink_model(inputs["x"])}
    return expected


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/softshrink/op_kernel/softshrink.h"
KERNELS = [
    KernelSpec(f"softshrink{suffix}", description, _make_inputs(dtype), _run(dtype), _expected(dtype),
               default_size=size, devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 40003, "Softshrink over floats (Compares GT/LT + Adds + Select tensor-scalar per branch, Add, "
         "Compare NE + Select tensor-tensor; DataCopyPad with the older structs; double-buffered, 8 cores)"),
        ("_half", "half", 30001, "Softshrink over halves (Cast to float, the float sequence, Cast CAST_ROUND)"),
        ("_bf16", "bfloat16", 3001, "Softshrink over bfloat16 (one core a tile: Cast to float, CAST_ROUND back)"))
]
