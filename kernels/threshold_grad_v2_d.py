"""ThresholdGradV2D from the CANN NN operators: the gradient of Threshold, y = g where feature > threshold, 0 elsewhere,
element by element, over float, half, bfloat16, int32, int8 and uint8 (bfloat16 and int32 compared and selected in
float, int8 / uint8 widened to float through half).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/activation/threshold_grad_v2_d:
- op_kernel/threshold_grad_v2_d.h (`NsThresholdGradV2D::KernelThresholdGradV2D<T>`): big cores (the first
  tailBlockNum) take one 256-byte block more than the small ones; depth-2 VECIN queues for the gradient and the
  feature and a depth-2 VECOUT queue of tileDataNum elements, a uint8 mask TBuf of tileDataNum bytes, and by type one
  float TBuf (int32, bfloat16) or two half-sized TBufs (int8, uint8), each taken by `TBuf::AllocTensor` every tile;
  per tile count-form DataCopy in, Compute, DataCopy out (the last tile tailDataNum elements). Compute: float / half:
  CompareScalar(feature, threshold, GT) into the mask (half: the threshold static_cast to half), tensor-scalar Select
  of the gradient or 0; bfloat16 / int32: Cast CAST_NONE of the feature to float, CompareScalar, Cast of the gradient
  to float, Select in place, Cast back (CAST_RINT / CAST_TRUNC); int8 / uint8: Casts CAST_NONE to half and to float
  (both inputs), CompareScalar and Select in float, Casts float -> half CAST_NONE and half -> T CAST_TRUNC;
- op_kernel/threshold_grad_v2_d.cpp (the entry: GET_TILING_DATA_WITH_STRUCT, the class by DTYPE_INPUT_GRADIENT);
- op_host/threshold_grad_v2_d_tiling.cpp (`ThresholdGradV2DTilingFunc`: 256-byte blocks; tileBlockNum = UB blocks
  / 7 (float, half), 10 (bfloat16), 8 (int32) or 14 (int8, uint8); one core when a tile holds the input, else
  min(cores, blocks); every core blocks / cores blocks, the first blocks % cores one more).

Deviations: (1) the core count is the launch's 8 (GetCoreNumAiv in the original). (2) The host pads GM to the
tiling's 256-byte block, as the original's tiling assumes (the last core copies whole blocks past the tensor's end:
those lanes are computed from the padding's zeros and never returned; unpadded, SetGlobalBuffer refuses the last
core's extent). (3) int8 / uint8: the original InitBuffers the second temporary with tileDataNum * sizeof(half)
bytes and takes it as float (`tmpQueue2.AllocTensor<float>()`), so on a tile of more than tileDataNum / 2 elements
its Casts to float write past the buffer: a count past the tensor, refused (OutOfBoundsError; on the device the
writes run on into the UB the tiling's 14 parts leave free, 2 parts above the 11 the buffers use). The port gives the
buffer tileDataNum * sizeof(float) bytes (ORIGINAL_TMP2 = True runs the original's size). Nothing else: every count
is a whole number of 256-byte blocks of the input type, so the count-form CompareScalar compares every lane (SPEC-2
D44).

Devices: the operator's config is the ascend910b (A2; the A3 shares its kernels): the port runs on the A3 and A2.

Fidelity: BIT-EXACT (CompareScalar, Select, Cast, DataCopy; SPEC-2 0.3). NaN > threshold is false (SPEC-2 D43): a NaN
feature gives 0; int32 values past 2**24 round to float (CAST_NONE: round to nearest even) before CAST_TRUNC back.
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
BUFFER_NUM = 2
BLOCK_SIZE = 256
UB_NUM = {"float": 7, "half": 7, "bfloat16": 10, "int32": 8, "int8": 14, "uint8": 14}
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2, "int32": 4, "int8": 1, "uint8": 1}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32,
       "int8": np.int8, "uint8": np.uint8}
DEVICES = ("atlas-a3", "atlas-a2")
ORIGINAL_TMP2 = False              # True: the int8 / uint8 float temporary at the original's half-sized bytes


class ThresholdGradV2DTilingData(ctypes.Structure):
    _fields_ = [("smallCoreDataNum", ctypes.c_uint64), ("bigCoreDataNum", ctypes.c_uint64),
                ("finalBigTileNum", ctypes.c_uint64), ("finalSmallTileNum", ctypes.c_uint64),
                ("tileDataNum", ctypes.c_uint64), ("smallTailDataNum", ctypes.c_uint64),
                ("bigTailDataNum", ctypes.c_uint64), ("tailBlockNum", ctypes.c_uint64),
                ("threshold", ctypes.c_float)]


def tiling(device, total, dtype, threshold):
    """ThresholdGradV2DTilingFunc: (used cores, the tiling bytes)."""
    ub_size = aj.get_device(device).ub_bytes
    input_bytes = TYPE_SIZE[dtype]
    tile_block_num = ub_size // BLOCK_SIZE // UB_NUM[dtype]
    tile_data_num = tile_block_num * BLOCK_SIZE // input_bytes
    align_len = -(-(total * input_bytes) // BLOCK_SIZE) * BLOCK_SIZE
    blocks = align_len // BLOCK_SIZE
    cores = 1 if tile_data_num >= total else min(CORE_NUM, blocks)
    every = blocks // cores
    tail_block_num = blocks % cores
    small = every * BLOCK_SIZE // input_bytes
    small_tiles = every // tile_block_num
    final_small = small_tiles if every % tile_block_num == 0 else small_tiles + 1
    small_tail = small - tile_data_num * small_tiles
    small_tail = tile_data_num if small_tail == 0 else small_tail
    every += 1
    big = every * BLOCK_SIZE // input_bytes
    big_tiles = every // tile_block_num
    final_big = big_tiles if every % tile_block_num == 0 else big_tiles + 1
    big_tail = big - tile_data_num * big_tiles
    big_tail = tile_data_num if big_tail == 0 else big_tail
    t = ThresholdGradV2DTilingData(
        smallCoreDataNum=small, bigCoreDataNum=big, finalBigTileNum=final_big, finalSmallTileNum=final_small,
        tileDataNum=tile_data_num, smallTailDataNum=small_tail, bigTailDataNum=big_tail, tailBlockNum=tail_block_num,
        threshold=threshold)
    return cores, np.frombuffer(bytes(t), np.uint8).copy()


class KernelThresholdGradV2D:
    """`KernelThresholdGradV2D<TYPE_INPUT_GRADIENT>`."""

    def __init__(self, T):
        self.T = T

    def Init(self, input_gradient, input_feature, output_backprops, smallCoreDataNum, bigCoreDataNum,
             finalBigTileNum, finalSmallTileNum, tileDataNum, smallTailDataNum, bigTailDataNum, tailBlockNum,
             threshold):
        T = self.T
        coreId = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * coreId
        self.tileDataNum = tileDataNum
        self.thresholdValue = np.float32(threshold)
        if coreId < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, finalBigTileNum, bigTailDataNum
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, finalSmallTileNum, smallTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (coreId - tailBlockNum)
        self.input_gradientGm, self.input_featureGm = aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.output_backpropsGm = aj.GlobalTensor(T)
        self.input_gradientGm.SetGlobalBuffer(input_gradient[globalBufferIndex:], self.coreDataNum)
        self.input_featureGm.SetGlobalBuffer(input_feature[globalBufferIndex:], self.coreDataNum)
        self.output_backpropsGm.SetGlobalBuffer(output_backprops[globalBufferIndex:], self.coreDataNum)
        self.pipe = aj.TPipe()
        self.inQueueG = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.inQueueF = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.outQueueout = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.tmpQueue1, self.tmpQueue2, self.tmpQueueMask = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(3))
        self.pipe.InitBuffer(self.inQueueG, BUFFER_NUM, tileDataNum * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.inQueueF, BUFFER_NUM, tileDataNum * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.outQueueout, BUFFER_NUM, tileDataNum * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.tmpQueueMask, tileDataNum * 1)
        if T in ("int32", "bfloat16"):
            self.pipe.InitBuffer(self.tmpQueue1, tileDataNum * 4)
        elif T in ("uint8", "int8"):
            self.pipe.InitBuffer(self.tmpQueue1, tileDataNum * 2)
            # deviation (docstring): the buffer the original takes as float holds a tile of floats
            self.pipe.InitBuffer(self.tmpQueue2, tileDataNum * (2 if ORIGINAL_TMP2 else 4))

    def CopyIn(self, progress):
        T = self.T
        gLocal = self.inQueueG.AllocTensor(T)
        fLocal = self.inQueueF.AllocTensor(T)
        aj.DataCopy(gLocal, self.input_gradientGm[progress * self.tileDataNum], self.processDataNum)
        aj.DataCopy(fLocal, self.input_featureGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueG.EnQue(gLocal)
        self.inQueueF.EnQue(fLocal)

    def CopyOut(self, progress):
        outLocal = self.outQueueout.DeQue(self.T)
        aj.DataCopy(self.output_backpropsGm[progress * self.tileDataNum], outLocal, self.processDataNum)
        self.outQueueout.FreeTensor(outLocal)

    def Compute(self, progress):
        T = self.T
        n = self.processDataNum
        gLocal = self.inQueueG.DeQue(T)
        fLocal = self.inQueueF.DeQue(T)
        outLocal = self.outQueueout.AllocTensor(T)
        maskLocal = self.tmpQueueMask.AllocTensor("uint8")
        if T in ("int8", "uint8"):
            tmp1Local = self.tmpQueue1.AllocTensor("half")
            tmp2Local = self.tmpQueue2.AllocTensor("float")
            aj.Cast(tmp1Local, fLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(tmp2Local, tmp1Local, aj.RoundMode.CAST_NONE, n)
            aj.CompareScalar(maskLocal, tmp2Local, self.thresholdValue, aj.CMPMODE.GT, n)
            aj.Cast(tmp1Local, gLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(tmp2Local, tmp1Local, aj.RoundMode.CAST_NONE, n)
            aj.Select(tmp2Local, maskLocal, tmp2Local, np.float32(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, n)
            aj.Cast(tmp1Local, tmp2Local, aj.RoundMode.CAST_NONE, n)
            aj.Cast(outLocal, tmp1Local, aj.RoundMode.CAST_TRUNC, n)
        elif T in ("int32", "bfloat16"):
            tmp1Local = self.tmpQueue1.AllocTensor("float")
            aj.Cast(tmp1Local, fLocal, aj.RoundMode.CAST_NONE, n)
            aj.CompareScalar(maskLocal, tmp1Local, self.thresholdValue, aj.CMPMODE.GT, n)
            aj.Cast(tmp1Local, gLocal, aj.RoundMode.CAST_NONE, n)
            aj.Select(tmp1Local, maskLocal, tmp1Local, np.float32(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, n)
            aj.Cast(outLocal, tmp1Local, aj.RoundMode.CAST_TRUNC if T == "int32" else aj.RoundMode.CAST_RINT, n)
        else:
            # half: static_cast<half>(float) rounds once (RNE), SPEC-2 D29
            scalar = self.thresholdValue if T == "float" else np.float16(self.thresholdValue)
            aj.CompareScalar(maskLocal, fLocal, scalar, aj.CMPMODE.GT, n)
            aj.Select(outLocal, maskLocal, gLocal, _NP[T](0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, n)
        self.outQueueout.EnQue(T, outLocal)
        self.inQueueG.FreeTensor(gLocal)
        self.inQueueF.FreeTensor(fLocal)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.tileDataNum
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)
        self.processDataNum = self.tailDataNum
        self.CopyIn(loopCount - 1)
        self.Compute(loopCount - 1)
        self.CopyOut(loopCount - 1)


aj.REGISTER_TILING_DEFAULT(ThresholdGradV2DTilingData)


def threshold_grad_v2_d(input_gradient, input_feature, output_backprops, workspace, tiling_bytes, dtype):
    """The kernel entry (threshold_grad_v2_d.cpp)."""
    t = aj.GET_TILING_DATA_WITH_STRUCT(ThresholdGradV2DTilingData, tiling_bytes)
    op = KernelThresholdGradV2D(dtype)
    op.Init(input_gradient, input_feature, output_backprops, t.smallCoreDataNum, t.bigCoreDataNum,
            t.finalBigTileNum, t.finalSmallTileNum, t.tileDataNum, t.smallTailDataNum, t.bigTailDataNum,
            t.tailBlockNum, t.threshold)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_threshold_grad_v2_d(device, g, f, threshold):
    dtype = _dtype_name(g)
    block_num, t = tiling(device, g.size, dtype, threshold)
    block_elem = BLOCK_SIZE // TYPE_SIZE[dtype]
    padded = -(-g.size // block_elem) * block_elem              # deviation: GM padded to the tiling's block
    gm_g, gm_f, gm_y = (np.zeros(padded, g.dtype) for _ in range(3))
    gm_g[:g.size], gm_f[:f.size] = g, f
    aj.launch(threshold_grad_v2_d, block_num, device, gm_g, gm_f, gm_y, None, t, dtype)
    return gm_y[:g.size]


def threshold_grad_v2_d_model(g, f, threshold):
    """y = g where f > threshold else 0, in the kernel's compare type (half for half, float for the rest); int32 through
    float (RNE) and truncated back."""
    dtype = _dtype_name(g)
    th = np.float32(threshold)
    if dtype == "half":
        keep = f > np.float16(th)
        return np.where(keep, g, np.float16(0.0)).astype(g.dtype)
    keep = f.astype(np.float32) > th
    if dtype == "float":
        return np.where(keep, g, np.float32(0.0)).astype(np.float32)
    gf = np.where(keep, g.astype(np.float32), np.float32(0.0))
    if dtype == "int32":
        with np.errstate(invalid="ignore"):
            return np.clip(np.trunc(gf.astype(np.float64)), -2 ** 31, 2 ** 31 - 1).astype(np.int32)
    return gf.astype(g.dtype)


THRESHOLD = 0.5


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if dtype in ("int8", "uint8", "int32"):
            lo, hi = {"int8": (-128, 128), "uint8": (0, 256), "int32": (-2 ** 30, 2 ** 30)}[dtype]
            g = rng.integers(lo, hi, size).astype(_NP[dtype])
            f = rng.integers(max(lo, -4), min(hi, 4), size).astype(_NP[dtype])
        else:
            g = rng.standard_normal(size).astype(np.float32).astype(_NP[dtype])
            f = rng.uniform(-1.0, 2.0, size).astype(np.float32)
            f[::61] = THRESHOLD
            f = f.astype(_NP[dtype])
        return {"gradient": g, "feature": f}
    return make_inputs


def _run(device, inputs):
    return {"y": run_threshold_grad_v2_d(device, inputs["gradient"], inputs["feature"], THRESHOLD)}


def _expected(device, inputs):
    return {"y": threshold_grad_v2_d_model(inputs["gradient"], inputs["feature"], THRESHOLD)}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/threshold_grad_v2_d/op_kernel/threshold_grad_v2_d.h"
KERNELS = [
    KernelSpec(f"threshold_grad_v2_d{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 100003, "ThresholdGradV2D over floats (CompareScalar GT, tensor-scalar Select of the gradient "
         "or 0; 256-byte-block big/small cores, double-buffered count-form DataCopy tiles)"),
        ("_half", "half", 100003, "ThresholdGradV2D over halves (the threshold rounded to half)"),
        ("_bf16", "bfloat16", 100003, "ThresholdGradV2D over bfloat16 (Casts CAST_NONE to float, Select in place, "
         "CAST_RINT back)"),
        ("_int32", "int32", 100003, "ThresholdGradV2D over int32 (through float: CAST_NONE in, CAST_TRUNC out)"),
        ("_int8", "int8", 100003, "ThresholdGradV2D over int8 (Casts to half and float, CAST_NONE / CAST_TRUNC "
         "back through half)"),
        ("_uint8", "uint8", 100003, "ThresholdGradV2D over uint8 (as int8)"))
]
