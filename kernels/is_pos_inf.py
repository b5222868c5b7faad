"""IsPosInf from the CANN math operators: y = (x == +inf) as bytes over half, float and bfloat16, by Compare EQ against
a Duplicated +inf, Select of 1 or 0 by the compare bits and a Cast of those halves to uint8.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/is_pos_inf/op_kernel/is_pos_inf.h and
is_pos_inf.cpp (`KernelIsPosInfBase<T, Derived>` with `KernelIsPosInf<half>`, `KernelIsPosInfFp32Unified` and
`KernelIsPosInfBf16Unified`, chosen by the tiling's dtypeId: double-buffered VECIN/VECOUT queues of one tile (T in,
uint8 out); per tile DataCopyPad in with a brace-built DataCopyExtParams and DataCopyPadExtParams<T>{false, 0, 0, 0},
DataCopyPad out of the tile's bytes; compute over the tile's count rounded up to 256 bytes of T, each step behind a
PipeBarrier<PIPE_V>. half: Duplicate +inf into a TBuf, Compare EQ straight into the uint8 output tile, Duplicate 1
over the input tile, Select(x, bits, x, 0, VSEL_TENSOR_SCALAR_MODE), Cast half -> uint8 (CAST_NONE) into the output
tile over its bits. float: Compare EQ into a uint8 TBuf, then `BuildMaskOutput`: Duplicate half 1 into a TBuf,
`Select<half, uint8_t>` of 1 or 0 by the float compare bits into a half TBuf, Cast to uint8. bfloat16: Cast to
float (CAST_NONE) first, then the float steps) with the host tiling of
experimental/math/is_pos_inf/op_host/is_pos_inf_tiling.cpp (`IsPosInfTilingFunc`: ceil(total / cores) elements a
core rounded up to 512 bytes, the last core the rest; tiles of UB / 10 elements rounded down to 256 bytes, capped at
192 elements for float and bfloat16).

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's). The original computes a short
tile over its count rounded up to 256 bytes but copies in only the count, so the Compare reads input-tile lanes no
copy wrote (at the queue buffer's first use uninitialised bytes; later a previous tile's data; results computed and
never copied out; the sanitizer reports the read): the port zeroes those lanes, from the end of the copy's last
32-byte block (DataCopyPad writes whole blocks into the UB) to the rounded count, by a Duplicate before such a
tile's copy-in (past the copy's bytes: no MTE2 ordering needed).

Devices: DataCopyPad leaves out the 310P and 910 (SPEC-2 1.9) and the Cast half -> uint8 with CAST_NONE the 950
(its Cast table has RINT, FLOOR, CEIL, ROUND and TRUNC for that pair only, SPEC-2 7.2, D72): the A2, A3 and 310B.

Fidelity: BIT-EXACT (Duplicate, Compare, Select, Cast and DataCopyPad are BIT-EXACT, SPEC-2 0.3): checked bit for bit
against numpy's x == inf.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
CMP_ALIGN_BYTES = 256
CACHE_LINE_BYTE_LENGTH = 512
FLOAT_BUFFER_COEFFICIENT = 10
DEBUG_TILE_ELEMENTS = 192                 # the tiling's cap for float and bfloat16 tiles
CORE_NUM = 8
DEVICES = ("atlas-a3", "atlas-a2", "atlas-200i-500-a2")
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}


def tiling(device, total, dtype):
    """IsPosInfTilingFunc: (usedCoreNum, tiling data)."""
    size = TYPE_SIZE[dtype]
    cache_line_elements = CACHE_LINE_BYTE_LENGTH // size
    per_core = -(-total // CORE_NUM)
    per_core_align = -(-per_core // cache_line_elements) * cache_line_elements
    used = -(-total // per_core_align)
    align_elements = 256 // size
    tile = aj.get_device(device).ub_bytes // FLOAT_BUFFER_COEFFICIENT // align_elements * align_elements
    if dtype != "half":
        tile = min(tile, DEBUG_TILE_ELEMENTS)
    return used, dict(formerNum=used - 1, formerLength=per_core_align, tailLength=total - (used - 1) * per_core_align,
                      tileLength=tile or align_elements)


class KernelContext:
    def __init__(self, dtype):
        self.T = dtype
        self.pipe = None
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.blockLength = 0
        self.tileLength = 0


def InitKernelContext(context, x, y, formerNum, formerLength, tailLength, tileLength, pipeIn):
    context.pipe = pipeIn
    blockIdx = aj.GetBlockIdx()
    if blockIdx < formerNum:
        context.blockLength = formerLength
        offset = formerLength * blockIdx
        context.xGm.SetGlobalBuffer(x[offset:], formerLength)
        context.yGm.SetGlobalBuffer(y[offset:], formerLength)
    else:
        context.blockLength = tailLength
        offset = formerLength * formerNum
        context.xGm.SetGlobalBuffer(x[offset:], tailLength)
        context.yGm.SetGlobalBuffer(y[offset:], tailLength)
    context.tileLength = tileLength


def _compute_length(validLength, T):
    """validLength rounded up to 256 bytes of the compared type: T for half, float for float and bfloat16."""
    alignCount = CMP_ALIGN_BYTES // TYPE_SIZE["half" if T == "half" else "float"]
    return (validLength + alignCount - 1) // alignCount * alignCount


def CopyInTile(inQueueX, xGm, progress, tileLength, validLength, T):
    xLocal = inQueueX.AllocTensor(T)
    computeLength = _compute_length(validLength, T)
    copied = -(-validLength * TYPE_SIZE[T] // 32) * 32 // TYPE_SIZE[T]     # the copy fills whole 32-byte blocks
    if computeLength > copied:
        # deviation (module docstring): the lanes the rounded compute reads past the copy are zeroed first
        aj.Duplicate(xLocal[copied:], _NP[T](0), computeLength - copied)
    copyParams = aj.DataCopyExtParams(1, validLength * TYPE_SIZE[T], 0, 0, 0)
    padParams = aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0))
    aj.DataCopyPad(xLocal, xGm[progress * tileLength], copyParams, padParams)
    inQueueX.EnQue(xLocal)


def FinishCompute(xLocal, outLocal, inQueueX, outQueueY):
    outQueueY.EnQue("uint8", outLocal)
    inQueueX.FreeTensor(xLocal)


def CopyOutTile(outQueueY, yGm, progress, tileLength, validLength):
    outLocal = outQueueY.DeQue("uint8")
    copyParams = aj.DataCopyExtParams(1, validLength, 0, 0, 0)
    aj.DataCopyPad(yGm[progress * tileLength], outLocal, copyParams)
    outQueueY.FreeTensor(outLocal)


def BuildMaskOutput(maskLocal, halfLocal, oneLocal, outLocal, computeLength):
    aj.Duplicate(oneLocal, np.float16(1), computeLength)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Select(halfLocal, maskLocal, oneLocal, np.float16(0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, computeLength)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Cast(outLocal, halfLocal, aj.RoundMode.CAST_NONE, computeLength)


def ProcessTiles(kernel, blockLength, tileLength):
    tileNum = (blockLength + tileLength - 1) // tileLength
    for i in range(tileNum):
        validLength = blockLength - (tileNum - 1) * tileLength if i == tileNum - 1 else tileLength
        kernel.CopyIn(i, validLength)
        kernel.Compute(validLength)
        kernel.CopyOut(i, validLength)


class KernelIsPosInfBase:
    T = None

    def Init(self, x, y, formerNum, formerLength, tailLength, tileLength, pipeIn):
        self.context_ = KernelContext(self.T)
        InitKernelContext(self.context_, x, y, formerNum, formerLength, tailLength, tileLength, pipeIn)
        self.inQueueX_ = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.outQueueY_ = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.context_.pipe.InitBuffer(self.inQueueX_, BUFFER_NUM, tileLength * TYPE_SIZE[self.T])
        self.context_.pipe.InitBuffer(self.outQueueY_, BUFFER_NUM, tileLength)
        self.InitComputeBuffers(tileLength)

    def Process(self):
        ProcessTiles(self, self.context_.blockLength, self.context_.tileLength)

    def CopyIn(self, progress, validLength):
        CopyInTile(self.inQueueX_, self.context_.xGm, progress, self.context_.tileLength, validLength, self.T)

    def Compute(self, validLength):
        xLocal = self.inQueueX_.DeQue(self.T)
        outLocal = self.outQueueY_.AllocTensor("uint8")
        self.ComputeImpl(xLocal, outLocal, validLength)
        FinishCompute(xLocal, outLocal, self.inQueueX_, self.outQueueY_)

    def CopyOut(self, progress, validLength):
        CopyOutTile(self.outQueueY_, self.context_.yGm, progress, self.context_.tileLength, validLength)


class KernelIsPosInfHalf(KernelIsPosInfBase):
    """KernelIsPosInf<half>."""
    T = "half"

    def InitComputeBuffers(self, tileLength):
        self.tmpBufCmp_ = aj.TBuf(aj.TPosition.VECCALC)
        self.context_.pipe.InitBuffer(self.tmpBufCmp_, tileLength * 2)

    def ComputeImpl(self, xLocal, outLocal, validLength):
        cmpLocal = self.tmpBufCmp_.Get("half")
        computeLength = _compute_length(validLength, "half")
        aj.Duplicate(cmpLocal, np.float16(np.inf), computeLength)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Compare(outLocal, xLocal, cmpLocal, aj.CMPMODE.EQ, computeLength)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Duplicate(xLocal, np.float16(1), computeLength)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Select(xLocal, outLocal, xLocal, np.float16(0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, computeLength)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Cast(outLocal, xLocal, aj.RoundMode.CAST_NONE, computeLength)


class KernelIsPosInfFp32Unified(KernelIsPosInfBase):
    T = "float"

    def InitComputeBuffers(self, tileLength):
        self.tmpBufCmp_, self.tmpBufMask_, self.tmpBufHalf_, self.tmpBufOne_ = \
            (aj.TBuf(aj.TPosition.VECCALC) for _ in range(4))
        self.context_.pipe.InitBuffer(self.tmpBufCmp_, tileLength * 4)
        self.context_.pipe.InitBuffer(self.tmpBufMask_, tileLength)
        self.context_.pipe.InitBuffer(self.tmpBufHalf_, tileLength * 2)
        self.context_.pipe.InitBuffer(self.tmpBufOne_, tileLength * 2)

    def ComputeImpl(self, xLocal, outLocal, validLength):
        cmpLocal = self.tmpBufCmp_.Get("float")
        maskLocal = self.tmpBufMask_.Get("uint8")
        halfLocal = self.tmpBufHalf_.Get("half")
        oneLocal = self.tmpBufOne_.Get("half")
        computeLength = _compute_length(validLength, "float")
        aj.Duplicate(cmpLocal, np.float32(np.inf), computeLength)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Compare(maskLocal, xLocal, cmpLocal, aj.CMPMODE.EQ, computeLength)
        BuildMaskOutput(maskLocal, halfLocal, oneLocal, outLocal, computeLength)


class KernelIsPosInfBf16Unified(KernelIsPosInfBase):
    T = "bfloat16"

    def InitComputeBuffers(self, tileLength):
        self.tmpBufFp32_, self.tmpBufCmp_, self.tmpBufMask_, self.tmpBufHalf_, self.tmpBufOne_ = \
            (aj.TBuf(aj.TPosition.VECCALC) for _ in range(5))
        self.context_.pipe.InitBuffer(self.tmpBufFp32_, tileLength * 4)
        self.context_.pipe.InitBuffer(self.tmpBufCmp_, tileLength * 4)
        self.context_.pipe.InitBuffer(self.tmpBufMask_, tileLength)
        self.context_.pipe.InitBuffer(self.tmpBufHalf_, tileLength * 2)
        self.context_.pipe.InitBuffer(self.tmpBufOne_, tileLength * 2)

    def ComputeImpl(self, xLocal, outLocal, validLength):
        fp32Local = self.tmpBufFp32_.Get("float")
        cmpLocal = self.tmpBufCmp_.Get("float")
        maskLocal = self.tmpBufMask_.Get("uint8")
        halfLocal = self.tmpBufHalf_.Get("half")
        oneLocal = self.tmpBufOne_.Get("half")
        computeLength = _compute_length(validLength, "bfloat16")
        aj.Cast(fp32Local, xLocal, aj.RoundMode.CAST_NONE, computeLength)
        aj.Duplicate(cmpLocal, np.float32(np.inf), computeLength)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Compare(maskLocal, fp32Local, cmpLocal, aj.CMPMODE.EQ, computeLength)
        BuildMaskOutput(maskLocal, halfLocal, oneLocal, outLocal, computeLength)


_KERNELS = {"float": KernelIsPosInfFp32Unified, "half": KernelIsPosInfHalf, "bfloat16": KernelIsPosInfBf16Unified}


def is_pos_inf(x, y, tiling_data, dtype):
    pipe = aj.TPipe()
    op = _KERNELS[dtype]()
    op.Init(x, y, tiling_data["formerNum"], tiling_data["formerLength"], tiling_data["tailLength"],
            tiling_data["tileLength"], pipe)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        """Normal values with +inf, -inf, NaN and the largest finite value mixed in."""
        rng = np.random.default_rng(seed)
        x = (rng.standard_normal(size) * 100).astype(np.float32)
        pick = rng.random(size)
        x[pick < 0.05] = np.inf
        x[(pick >= 0.05) & (pick < 0.08)] = -np.inf
        x[(pick >= 0.08) & (pick < 0.10)] = np.nan
        x[(pick >= 0.10) & (pick < 0.12)] = float(ml_dtypes.finfo(_NP[dtype]).max)
        return {"x": x.astype(_NP[dtype])}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        padded = -(-x.size * x.itemsize // 32) * 32 // x.itemsize    # device allocations: 32-byte multiples
        gm_x = np.zeros(padded, x.dtype)
        gm_x[:x.size] = x
        gm_y = np.zeros(-(-x.size // 32) * 32, np.uint8)
        block_dim, tiling_data = tiling(device, x.size, dtype)
        aj.launch(is_pos_inf, block_dim, device, gm_x, gm_y, tiling_data, dtype)
        return {"y": gm_y[:x.size]}
    return run


def expected(device, inputs):
    return {"y": (inputs["x"].astype(np.float32) == np.inf).astype(np.uint8)}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/is_pos_inf/op_kernel/is_pos_inf.h"
KERNELS = [
    KernelSpec("is_pos_inf_half", "IsPosInf over halves: Compare EQ +inf into the uint8 output tile, Select 1/0 "
               "(tensor-scalar) over the input tile, Cast half -> uint8 (CAST_NONE) over the bits; DataCopyPad with "
               "DataCopyExtParams / DataCopyPadExtParams", _make_inputs("half"), _run("half"), expected,
               default_size=200000, devices=DEVICES, source=_SOURCE),
    KernelSpec("is_pos_inf", "IsPosInf over floats in 192-element tiles: float Compare bits drive a half Select "
               "(128 bits a repeat), Cast to uint8", _make_inputs("float"), _run("float"), expected,
               default_size=20000, devices=DEVICES, source=_SOURCE),
    KernelSpec("is_pos_inf_bf16", "IsPosInf over bfloat16: Cast to float, then the float sequence",
               _make_inputs("bfloat16"), _run("bfloat16"), expected, default_size=20000, devices=DEVICES,
               source=_SOURCE),
]
