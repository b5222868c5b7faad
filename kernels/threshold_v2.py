"""ThresholdV2 from the CANN NN operators: y = x where x > threshold, value elsewhere, element by element, over
float, half and bfloat16 (no widening: the compare and the select run in the input type).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/activation/threshold_v2:
- op_kernel/threshold_v2.h (`NsThresholdV2::ThresholdV2<T, BUFFER_MODE>`): threshold and value converted to T once
  (`FloatToT`: static_cast for float and half, for bfloat16 the float's high 16 bits, i.e. truncation); each core
  blockFactor elements (the last the rest); queues of depth 2 (BUFFER_MODE 1) or 1 of ubFactor elements and a mask
  TBuf of ceil(ubFactor / 256) * 32 bytes; per tile CopyIn by DataCopyPad with DataCopyParams set field by field
  {1, n * sizeof(T), 0, 0} and the brace-list pad {false, 0, 0, 0}; Compute: Compares(mask, x, threshold, GT) and
  Select(y, mask, x, value, VSEL_TENSOR_SCALAR_MODE), both over n rounded up to a whole 256-byte repeat
  (`alignNum`); `EnQue<T>`; CopyOut by DataCopyPad of the n elements;
- op_kernel/threshold_v2.cpp (the entry: the template's BUFFER_MODE and dtype from the tiling key);
- op_host/threshold_v2_tiling.cpp (`ThresholdV2TilingFunc`: blockFactor = ceil(total / cores) rounded up to
  GetUbBlockSize() (32) elements, cores = ceil(total / blockFactor); double buffering above 1024 elements; ubFactor =
  (UB - 4096) / sizeof(T) / (4 or 2 buffers), rounded down to a 256-byte repeat).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). The mask TBuf: the original sizes it
ceil(ubFactor / 256) * 32 bytes, and the tiling reserves 4096 UB bytes for it; single-buffered (1024 elements or
fewer) a 16-bit ubFactor is 62464 elements, so the mask needs 7808 bytes and ends 3712 bytes past the UB the
kernel may use (GetCoreMemSize's 253952 bytes, SPEC "UB sizes used by the emulator"): InitBuffer refuses it
(ORIGINAL_MASK = True shows it). The port sizes the mask for the longest tile the core computes, min(ubFactor,
blockLength) rounded up the same way, which covers every rounded-up compare; the float kernel and double buffering
(a 3904-byte mask) are unchanged in value and layout but for that size. The compare and select run over the count
rounded up to a whole 256-byte repeat but the copy brings only the count (whole 32-byte blocks into the UB), so on a
tile whose count is not whole repeats they read input lanes no copy wrote (uninitialised at the queue buffer's first
use, later a previous tile's data; their results are never copied out; the sanitizer reports the read): the port
zeroes those lanes by a Duplicate before such a tile's copy-in (past the copy's bytes: no MTE2 ordering needed), as
kernels/is_pos_inf.py does; ORIGINAL_TAIL = True runs the original's form.

Devices: the operator's config is the ascend950 (op_host/threshold_v2_def.cpp): the port runs on the 950.

Fidelity: BIT-EXACT (Compares, Select, DataCopyPad; SPEC-2 0.3). NaN > threshold is false (SPEC-2 D43): a NaN input
gives value.
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
UB_BLOCK_SIZE = 32                 # GetUbBlockSize: the tiling aligns blockFactor to this many *elements*
MIN_SPLIT_THRESHOLD = 1024
MASK_RESERVE = 4096
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("ascend950",)
ORIGINAL_MASK = False              # True: the original's mask TBuf size (refused for 16-bit single buffering)
ORIGINAL_TAIL = False              # True: the rounded-up compare reads the lanes past the copy as the UB holds them


class ThresholdV2TilingData(ctypes.Structure):
    _fields_ = [("totalNum", ctypes.c_int64), ("blockFactor", ctypes.c_int64), ("ubFactor", ctypes.c_int64),
                ("thresholdVal", ctypes.c_float), ("valueVal", ctypes.c_float)]


def tiling(device, total, dtype, threshold, value):
    """ThresholdV2TilingFunc: (used cores, BUFFER_MODE, the tiling bytes)."""
    ub_size = aj.get_device(device).ub_bytes
    type_size = TYPE_SIZE[dtype]
    total = max(total, 1)                                   # EnsureNotScalar
    block_factor = -(-(-(-total // CORE_NUM)) // UB_BLOCK_SIZE) * UB_BLOCK_SIZE
    used = -(-total // block_factor)
    double = 1 if total > MIN_SPLIT_THRESHOLD else 0
    buffer_num = 4 if double else 2
    vector_align = 256 // type_size
    ub_factor = (ub_size - MASK_RESERVE) // type_size // buffer_num // vector_align * vector_align
    t = ThresholdV2TilingData(totalNum=total, blockFactor=block_factor, ubFactor=ub_factor,
                              thresholdVal=threshold, valueVal=value)
    return used, double, np.frombuffer(bytes(t), np.uint8).copy()


def FloatToT(T, v):
    """`FloatToT<T>`: static_cast (RNE) for float / half; bfloat16 takes the float's high half (truncation)."""
    v = np.float32(v)
    if T == "bfloat16":
        return np.array([v.view(np.uint32) >> 16], np.uint16).view(ml_dtypes.bfloat16)[0]
    return _NP[T](v)


class ThresholdV2:
    """`ThresholdV2<T, BUFFER_MODE>`."""

    def __init__(self, T, BUFFER_MODE):
        self.T = T
        self.BUFFER_NUM = 2 if BUFFER_MODE else 1
        self.ELEMS_PER_REPEAT = 256 // TYPE_SIZE[T]

    def Init(self, self_gm, out, tilingData):
        T = self.T
        blk = aj.GetBlockIdx()
        remainderLength = tilingData.totalNum - tilingData.blockFactor * blk
        self.blockLength_ = min(remainderLength, tilingData.blockFactor)
        self.ubLength_ = tilingData.ubFactor
        self.thresholdT_ = FloatToT(T, tilingData.thresholdVal)
        self.valueT_ = FloatToT(T, tilingData.valueVal)
        self.inputGM, self.outputGM = aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.inputGM.SetGlobalBuffer(self_gm[tilingData.blockFactor * blk:], self.blockLength_)
        self.outputGM.SetGlobalBuffer(out[tilingData.blockFactor * blk:], self.blockLength_)
        self.pipe = aj.TPipe()
        self.inputQueue = aj.TQue(aj.QuePosition.VECIN, self.BUFFER_NUM)
        self.outputQueue = aj.TQue(aj.QuePosition.VECOUT, self.BUFFER_NUM)
        self.maskBuf = aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.inputQueue, self.BUFFER_NUM, self.ubLength_ * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.outputQueue, self.BUFFER_NUM, self.ubLength_ * TYPE_SIZE[T])
        maskBytes = (self.ubLength_ + 255) // 256 * 32
        if not ORIGINAL_MASK:
            # deviation (docstring): sized for the longest tile this core computes, so that the 16-bit
            # single-buffered kernel's mask fits in the UB the tiling leaves it
            maskBytes = (min(self.ubLength_, self.blockLength_) + 255) // 256 * 32
        self.pipe.InitBuffer(self.maskBuf, maskBytes)

    def CopyIn(self, progress, currentNum):
        inputLocal = self.inputQueue.AllocTensor(self.T)
        alignNum = (currentNum + self.ELEMS_PER_REPEAT - 1) // self.ELEMS_PER_REPEAT * self.ELEMS_PER_REPEAT
        copied = -(-currentNum * TYPE_SIZE[self.T] // 32) * 32 // TYPE_SIZE[self.T]   # whole 32-byte blocks
        if not ORIGINAL_TAIL and alignNum > copied:
            # deviation (module docstring): the lanes the rounded compare reads past the copy are zeroed first
            aj.Duplicate(inputLocal[copied:], _NP[self.T](0), alignNum - copied)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[self.T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(inputLocal, self.inputGM[progress * self.ubLength_], copyParams, (False, 0, 0, 0))
        self.inputQueue.EnQue(inputLocal)

    def Compute(self, currentNum):
        T = self.T
        inputLocal = self.inputQueue.DeQue(T)
        outputLocal = self.outputQueue.AllocTensor(T)
        alignNum = (currentNum + self.ELEMS_PER_REPEAT - 1) // self.ELEMS_PER_REPEAT * self.ELEMS_PER_REPEAT
        maskLocal = self.maskBuf.Get("uint8")
        aj.Compares(maskLocal, inputLocal, self.thresholdT_, aj.CMPMODE.GT, alignNum)
        aj.Select(outputLocal, maskLocal, inputLocal, self.valueT_, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, alignNum)
        self.outputQueue.EnQue(T, outputLocal)
        self.inputQueue.FreeTensor(inputLocal)

    def CopyOut(self, progress, currentNum):
        outputLocal = self.outputQueue.DeQue(self.T)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[self.T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(self.outputGM[progress * self.ubLength_], outputLocal, copyParams)
        self.outputQueue.FreeTensor(outputLocal)

    def Process(self):
        loopCount = (self.blockLength_ + self.ubLength_ - 1) // self.ubLength_
        for i in range(loopCount):
            currentNum = self.blockLength_ - self.ubLength_ * i if i == loopCount - 1 else self.ubLength_
            self.CopyIn(i, currentNum)
            self.Compute(currentNum)
            self.CopyOut(i, currentNum)


aj.REGISTER_TILING_DEFAULT(ThresholdV2TilingData)


def threshold_v2(self_gm, out, workspace, tiling_bytes, BUFFER_MODE, dtype):
    """The kernel entry (threshold_v2.cpp; the tiling key's BUFFER_MODE and dtype as arguments)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ThresholdV2TilingData, tiling_bytes)
    op = ThresholdV2(dtype, BUFFER_MODE)
    op.Init(self_gm, out, tilingData)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_threshold_v2(device, x, threshold, value):
    dtype = _dtype_name(x)
    block_num, mode, t = tiling(device, x.size, dtype, threshold, value)
    y = np.zeros_like(x)
    aj.launch(threshold_v2, block_num, device, x, y, None, t, mode, dtype)
    return y


def threshold_v2_model(x, threshold, value):
    T = _dtype_name(x)
    th, v = FloatToT(T, threshold), FloatToT(T, value)
    xf = x.astype(np.float32)
    return np.where(xf > np.float32(th), x, np.array([v], x.dtype)[0]).astype(x.dtype)


THRESHOLD, VALUE = 0.3, -2.5


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-2.0, 2.0, size).astype(np.float32)
        x[::97] = THRESHOLD
        return {"x": x.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"y": run_threshold_v2(device, inputs["x"], THRESHOLD, VALUE)}


def _expected(device, inputs):
    return {"y": threshold_v2_model(inputs["x"], THRESHOLD, VALUE)}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/threshold_v2/op_kernel/threshold_v2.h"
KERNELS = [
    KernelSpec(f"threshold_v2{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 300032, "ThresholdV2 over floats (Compares GT and tensor-scalar Select over 256-byte rounded "
         "counts; 32-element-aligned core blocks, double-buffered DataCopyPad tiles)"),
        ("_half", "half", 300032, "ThresholdV2 over halves (the threshold and value rounded to half)"),
        ("_bf16", "bfloat16", 1000, "ThresholdV2 over bfloat16 (the scalars truncated to bfloat16; 1000 elements: "
         "single-buffered depth-1 queues)"))
]
