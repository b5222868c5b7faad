"""HingeLoss from the CANN NN operators: loss = max(0, 1 - target * predict), element by element, over float, half
and bfloat16 (the 16-bit types computed in float).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/loss/hinge_loss:
- op_kernel/hinge_loss.h (`NsHingeLoss::HingeLoss<T>`): the element split of the tiling (the first tailBlockNum
  cores take one element more, so every later core starts at an unaligned GM element); depth-2 VECIN queues for
  predict and target and a depth-2 VECOUT queue of tileDataNum elements rounded up to 32 bytes; per tile CopyIn by
  DataCopyPad (DataCopyExtParams {1, n * sizeof(T), 0, 0, 0}, DataCopyPadExtParams {true, 0, 0, 0}), Compute and
  CopyOut by DataCopyPad; Compute: float: Mul(target, predict) into a float TBuf, Muls -1, Adds 1, Maxs 0 into the
  output tile; half / bfloat16: Cast CAST_NONE of both inputs into float TBufs, the same chain in a third float TBuf
  (Maxs in place) and Cast CAST_RINT into the output tile;
- op_kernel/hinge_loss.cpp (the entry: a caller-made TPipe, GET_TILING_DATA_WITH_STRUCT);
- op_host/hinge_loss_tiling.cpp (`HingeLossTilingFunc`: UB / 32 / (15 float, 25 otherwise) blocks a tile; cores =
  min(total, cores); small = total / cores, tailBlockNum = total % cores, big = small + 1; per core ceil(data / tile)
  tiles, the last of data - (tiles - 1) * tile elements).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). Nothing else: DataCopyPad moves exactly
each tile's bytes, so the GM needs no padding, and every instruction's count is the tile's element count.

Devices: the operator's config is the ascend910b (A2; the A3 shares its kernels): the port runs on the A3 and A2.

Fidelity: BIT-EXACT (Mul, Muls, Adds, Maxs, Cast, DataCopyPad; SPEC-2 0.3). NaN: Maxs with a NaN operand gives NaN
(SPEC-2 D41), so a NaN input keeps its NaN.
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
BUFFER_NUM = 2
BLOCK_SIZE = 32
UB_NUM_FLOAT, UB_NUM_OTHER = 15, 25
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("atlas-a3", "atlas-a2")


class HingeLossTilingData(ctypes.Structure):
    _fields_ = [("smallCoreDataNum", ctypes.c_uint32), ("bigCoreDataNum", ctypes.c_uint32),
                ("finalBigTileNum", ctypes.c_uint32), ("finalSmallTileNum", ctypes.c_uint32),
                ("tileDataNum", ctypes.c_uint32), ("smallTailDataNum", ctypes.c_uint32),
                ("bigTailDataNum", ctypes.c_uint32), ("tailBlockNum", ctypes.c_uint32)]


def tiling(device, total, dtype):
    """HingeLossTilingFunc: (used cores, the tiling bytes)."""
    ub_size = aj.get_device(device).ub_bytes
    ub_data_number = UB_NUM_FLOAT if dtype == "float" else UB_NUM_OTHER
    tile_block_num = ub_size // BLOCK_SIZE // ub_data_number
    tile_data_num = max(1, tile_block_num * BLOCK_SIZE // TYPE_SIZE[dtype])
    used = 1 if total == 0 else min(total, CORE_NUM)
    small = total // used
    tail_block_num = total % used
    big = small + (1 if tail_block_num > 0 else 0)
    big_tiles = -(-big // tile_data_num) if big > 0 else 0
    small_tiles = -(-small // tile_data_num) if small > 0 else 0
    t = HingeLossTilingData(
        smallCoreDataNum=small, bigCoreDataNum=big, finalBigTileNum=big_tiles, finalSmallTileNum=small_tiles,
        tileDataNum=tile_data_num, smallTailDataNum=small - (small_tiles - 1) * tile_data_num if small else 0,
        bigTailDataNum=big - (big_tiles - 1) * tile_data_num if big else 0, tailBlockNum=tail_block_num)
    return used, np.frombuffer(bytes(t), np.uint8).copy()


def _align_up(value, align):
    return (value + align - 1) // align * align


class HingeLoss:
    """`HingeLoss<T>`."""

    def __init__(self, T):
        self.T = T

    def Init(self, predict, target, loss, tilingData, pipe):
        T = self.T
        coreIdx = aj.GetBlockIdx()
        globalOffset = tilingData.bigCoreDataNum * coreIdx
        self.tileDataNum = tilingData.tileDataNum
        if coreIdx < tilingData.tailBlockNum:
            self.coreDataNum = tilingData.bigCoreDataNum
            self.tileNum = tilingData.finalBigTileNum
            self.tailDataNum = tilingData.bigTailDataNum
        else:
            self.coreDataNum = tilingData.smallCoreDataNum
            self.tileNum = tilingData.finalSmallTileNum
            self.tailDataNum = tilingData.smallTailDataNum
            globalOffset = tilingData.smallCoreDataNum * coreIdx
            if tilingData.tailBlockNum > 0:
                globalOffset += (tilingData.bigCoreDataNum - tilingData.smallCoreDataNum) * tilingData.tailBlockNum
        self.predictGm, self.targetGm, self.lossGm = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.predictGm.SetGlobalBuffer(predict[globalOffset:], self.coreDataNum)
        self.targetGm.SetGlobalBuffer(target[globalOffset:], self.coreDataNum)
        self.lossGm.SetGlobalBuffer(loss[globalOffset:], self.coreDataNum)
        dataAlignNum = _align_up(self.tileDataNum * TYPE_SIZE[T], BLOCK_SIZE) // TYPE_SIZE[T]
        floatAlignNum = _align_up(self.tileDataNum * 4, BLOCK_SIZE) // 4
        self.predictQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.targetQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.lossQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.tmpBuf = aj.TBuf(aj.QuePosition.VECCALC)
        self.castPredictBuf = aj.TBuf(aj.QuePosition.VECCALC)
        self.castTargetBuf = aj.TBuf(aj.QuePosition.VECCALC)
        self.castResultBuf = aj.TBuf(aj.QuePosition.VECCALC)
        pipe.InitBuffer(self.predictQueue, BUFFER_NUM, dataAlignNum * TYPE_SIZE[T])
        pipe.InitBuffer(self.targetQueue, BUFFER_NUM, dataAlignNum * TYPE_SIZE[T])
        pipe.InitBuffer(self.lossQueue, BUFFER_NUM, dataAlignNum * TYPE_SIZE[T])
        if T != "float":
            pipe.InitBuffer(self.castPredictBuf, floatAlignNum * 4)
            pipe.InitBuffer(self.castTargetBuf, floatAlignNum * 4)
            pipe.InitBuffer(self.castResultBuf, floatAlignNum * 4)
        else:
            pipe.InitBuffer(self.tmpBuf, floatAlignNum * 4)

    def Process(self):
        self.processDataNum = self.tileDataNum
        for index in range(self.tileNum):
            if index == self.tileNum - 1:
                self.processDataNum = self.tailDataNum
            self.CopyIn(index)
            self.Compute()
            self.CopyOut(index)

    def CopyIn(self, progress):
        T = self.T
        predictLocal = self.predictQueue.AllocTensor(T)
        targetLocal = self.targetQueue.AllocTensor(T)
        params = aj.DataCopyExtParams(1, self.processDataNum * TYPE_SIZE[T], 0, 0, 0)
        pad = aj.DataCopyPadExtParams(True, 0, 0, _NP[T](0))
        aj.DataCopyPad(predictLocal, self.predictGm[progress * self.tileDataNum], params, pad)
        aj.DataCopyPad(targetLocal, self.targetGm[progress * self.tileDataNum], params, pad)
        self.predictQueue.EnQue(predictLocal)
        self.targetQueue.EnQue(targetLocal)

    def Compute(self):
        T = self.T
        n = self.processDataNum
        predictLocal = self.predictQueue.DeQue(T)
        targetLocal = self.targetQueue.DeQue(T)
        lossLocal = self.lossQueue.AllocTensor(T)
        if T != "float":
            predictFloat = self.castPredictBuf.Get("float")
            targetFloat = self.castTargetBuf.Get("float")
            resultFloat = self.castResultBuf.Get("float")
            aj.Cast(predictFloat, predictLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(targetFloat, targetLocal, aj.RoundMode.CAST_NONE, n)
            aj.Mul(resultFloat, targetFloat, predictFloat, n)
            aj.Muls(resultFloat, resultFloat, np.float32(-1.0), n)
            aj.Adds(resultFloat, resultFloat, np.float32(1.0), n)
            aj.Maxs(resultFloat, resultFloat, np.float32(0.0), n)
            aj.Cast(lossLocal, resultFloat, aj.RoundMode.CAST_RINT, n)
        else:
            margin = self.tmpBuf.Get("float")
            aj.Mul(margin, targetLocal, predictLocal, n)
            aj.Muls(margin, margin, np.float32(-1.0), n)
            aj.Adds(margin, margin, np.float32(1.0), n)
            aj.Maxs(lossLocal, margin, np.float32(0.0), n)
        self.lossQueue.EnQue(lossLocal)
        self.predictQueue.FreeTensor(predictLocal)
        self.targetQueue.FreeTensor(targetLocal)

    def CopyOut(self, progress):
        lossLocal = self.lossQueue.DeQue(self.T)
        params = aj.DataCopyExtParams(1, self.processDataNum * TYPE_SIZE[self.T], 0, 0, 0)
        aj.DataCopyPad(self.lossGm[progress * self.tileDataNum], lossLocal, params)
        self.lossQueue.FreeTensor(lossLocal)


aj.REGISTER_TILING_DEFAULT(HingeLossTilingData)


def hinge_loss(predict, target, loss, workspace, tiling_bytes, dtype):
    """The kernel entry (hinge_loss.cpp)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(HingeLossTilingData, tiling_bytes)
    pipe = aj.TPipe()
    op = HingeLoss(dtype)
    op.Init(predict, target, loss, tilingData, pipe)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_hinge_loss(device, predict, target):
    dtype = _dtype_name(predict)
    block_num, t = tiling(device, predict.size, dtype)
    loss = np.zeros_like(predict)
    aj.launch(hinge_loss, block_num, device, predict, target, loss, None, t, dtype)
    return loss


def hinge_loss_model(predict, target):
    """The kernel's float chain (exact up to Mul's one rounding: -(t * p) and + 1 round once each), then RNE."""
    p, t = predict.astype(np.float32), target.astype(np.float32)
    with np.errstate(all="ignore"):
        m = (t * p) * np.float32(-1.0) + np.float32(1.0)
        y = np.where(np.isnan(m), m, np.maximum(m, np.float32(0.0))).astype(np.float32)
    return y if predict.dtype == np.float32 else y.astype(predict.dtype)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        predict = rng.uniform(-3.0, 3.0, size).astype(np.float32)
        target = np.where(rng.random(size) < 0.5, -1.0, 1.0).astype(np.float32)
        target[::7] = rng.uniform(-2.0, 2.0, target[::7].size)
        return {"predict": predict.astype(_NP[dtype]), "target": target.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"loss": run_hinge_loss(device, inputs["predict"], inputs["target"])}


def _expected(device, inputs):
    return {"loss": hinge_loss_model(inputs["predict"], inputs["target"])}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/loss/hinge_loss/op_kernel/hinge_loss.h"
KERNELS = [
    KernelSpec(f"hinge_loss{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 100003, "HingeLoss over floats (Mul, Muls -1, Adds 1, Maxs 0; element-split big/small cores "
         "from unaligned GM starts, double-buffered DataCopyPad tiles)"),
        ("_half", "half", 50003, "HingeLoss over halves (Cast CAST_NONE to float, the float chain, Cast CAST_RINT)"),
        ("_bf16", "bfloat16", 50003, "HingeLoss over bfloat16 (as the half kernel)"))
]
