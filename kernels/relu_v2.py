"""ReluV2 from the CANN NN operators, the A2/A3 kernel: y = max(x, 0) for float, half, int32 (Relu in place),
bfloat16 and int16 (through float), int8 (through half) and int64 (by sign bits).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa93, experimental/activation/relu_v2/op_kernel/relu_v2.cpp (the entry: REGISTER_TILING_DEFAULT,
GET_TILING_DATA_WITH_STRUCT, the instantiation by dtype), op_kernel/relu_v2.h (`KernelReluV2`, `KernelReluV2Upcast`,
`KernelReluV2VectorInt64`) and op_host/ascend910b/relu_v2_tiling.cpp (cores of whole 512-byte cache lines, at
least 8 KiB a core; tiles from the UB over a per-dtype buffer coefficient, cut to about a quarter of a core when that
keeps them at 16 KiB or more; int64's own core counts).

As in the original:
- float / half / int32 / bfloat16 / int16 / int8: a core whose block fits one tile copies it into a TBuf
  (DataCopy, or DataCopyPad for a length that is not whole 32 bytes), MTE2_V flags on EVENT_ID0, the compute, V_MTE3
  flags, the copy out; larger blocks stream through a `TQueBind<VECIN, VECOUT, 4>` of four buffers with the
  position-templated `EnQue<GM, VECIN, T>` / `DeQue<GM, VECIN, T>` / `EnQue<VECOUT, GM, T>` / `DeQue<VECOUT, GM, T>`
  hand-offs, computing in place: Relu, or Cast up (CAST_NONE), Relu, Cast back (CAST_RINT);
- int64: the int16 view of each element's top 16 bits gathered by a Gather with srcBaseAddr 6 and byte offsets
  (k >> 2) << 3 (CreateVecIndex, ShiftRight, ShiftLeft of int32 once at Init), ShiftRight 15 (the sign as 0 / -1),
  Not, And with the int16 view of x: x where x >= 0, else 0, four int16 lanes an element; blocks of 256 elements or
  fewer by the scalar unit (GetValue / SetValue) between DataCopyPads.

Deviation: the int64 scalar path reads the DataCopyPad'ed tile with GetValue with no MTE2 -> S ordering and copies
out what SetValue stored with no S -> MTE3 ordering (the sanitizer's race reports); the port adds FetchEventID'd
MTE2_S and S_MTE3 flag pairs (`Fence`; tests/test_relu_v2.py removes them). The core count is the launch's 8
(GetCoreNumAiv in the original).

Devices: DataCopyPad, ISASI flags on EVENT_ID0 and TPipe event ids: the A3 and A2 (the original's ascend910b
tiling; the 950 builds its own arch35 kernel).

Fidelity: BIT-EXACT (Relu, Casts between types that hold every value, Gather, shifts, Not, And, SPEC-2 0.3; the
Casts back round values the first Cast made exactly). The expectation is numpy's maximum(x, 0) for the integers and
x where x > 0 else +0 for float (NaN inputs are not generated; -0.0 is one of the inputs).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                      # deviation: the launch's cores (GetCoreNumAiv in the original)
BUFFER_NUM, QUEUE_DEPTH, BUFFER_NUM_I64 = 4, 4, 2
CACHE_LINE_BYTE_LENGTH = 512
MIN_BYTES_PER_CORE = 8 * 1024
SCALAR_THRESHOLD = 256
DEVICES = ("atlas-a3", "atlas-a2")
_NP = {"float": np.float32, "half": np.float16, "int32": np.int32, "int16": np.int16, "int8": np.int8,
       "int64": np.int64}
_MID = {"bfloat16": "float", "int16": "float", "int8": "half"}
_COEFFICIENT = {"half": 8, "bfloat16": 12, "int16": 12, "int8": 6, "int64": 56}

ReluV2TilingData = np.dtype([("formerNum", np.int64), ("formerLength", np.int64), ("tailLength", np.int64),
                             ("tileLength", np.int64)])


def tiling(device, total, dtype, core_num=CORE_NUM):
    """FillNormalTiling: (block dim, the packed ReluV2TilingData)."""
    size = np.dtype(_NP[dtype]).itemsize
    total_bytes = total * size
    if dtype == "int64":
        if total_bytes < 2048:
            target = 1
        elif total_bytes < 16384:
            target = min(4, core_num)
        else:
            target = min(-(-total // 800), core_num)
    else:
        target = min(max(1, -(-total_bytes // MIN_BYTES_PER_CORE)), core_num)
    line = max(1, CACHE_LINE_BYTE_LENGTH // size)
    per_core = -(-(-(-total // target)) // line) * line
    used = max(1, -(-total // per_core))
    former_num, former_length = used - 1, per_core
    tail_length = total - former_num * former_length
    align = max(1, 32 // size)
    tile = aj.get_device(device).ub_bytes // _COEFFICIENT.get(dtype, 20) // align * align or align
    if dtype != "int64":
        core_len = max(former_length, tail_length)
        pipeline_tile = -(-core_len // 4)
        if core_len > tile and pipeline_tile < tile:
            candidate = max(pipeline_tile, max(align, 16 * 1024 // size)) // align * align
            if 0 < candidate < tile:
                tile = candidate
    t = np.zeros(1, ReluV2TilingData)
    t["formerNum"], t["formerLength"], t["tailLength"], t["tileLength"] = former_num, former_length, tail_length, tile
    return used, t.view(np.uint8).copy()


def _copy(dst, src, n, size):
    """The original's copies: DataCopy for whole 32 bytes, else DataCopyPad (GM -> UB with `{false, 0, 0, 0}`)."""
    if n * size % 32 == 0:
        aj.DataCopy(dst, src, n)
    elif isinstance(dst, aj.GlobalTensor):
        aj.DataCopyPad(dst, src, aj.DataCopyExtParams(1, n * size, 0, 0, 0))
    else:
        aj.DataCopyPad(dst, src, aj.DataCopyExtParams(1, n * size, 0, 0, 0), aj.DataCopyPadExtParams(False, 0, 0, 0))


def InitBlockGm(x, y, tilingData):
    """(xGm, yGm, blockLength, tileLength) of this core."""
    blockIdx = aj.GetBlockIdx()
    formerNum, formerLength = int(tilingData.formerNum), int(tilingData.formerLength)
    if blockIdx < formerNum:
        blockLength, offset = formerLength, formerLength * blockIdx
    else:
        blockLength, offset = int(tilingData.tailLength), formerLength * formerNum
    xGm, yGm = aj.GlobalTensor(), aj.GlobalTensor()
    xGm.SetGlobalBuffer(x[offset:], blockLength)
    yGm.SetGlobalBuffer(y[offset:], blockLength)
    total = formerNum * formerLength + int(tilingData.tailLength)
    if total * x.itemsize > 1024 * 1024 * 1024:             # L2_BYPASS_BYTES
        xGm.SetL2CacheHint(aj.CacheMode.CACHE_MODE_DISABLE)
        yGm.SetL2CacheHint(aj.CacheMode.CACHE_MODE_DISABLE)
    return xGm, yGm, blockLength, int(tilingData.tileLength)


class KernelReluV2Base:
    """KernelReluV2 (mid None) and KernelReluV2Upcast (mid the compute type)."""

    def __init__(self, T, mid=None):
        self.T, self.mid = T, mid
        self.size = np.dtype(_NP[T]).itemsize

    def Init(self, x, y, tilingData, pipeIn):
        self.pipe_ = pipeIn
        self.xGm_, self.yGm_, self.blockLength_, self.tileLength_ = InitBlockGm(x, y, tilingData)
        self.inOutQueue_ = aj.TQueBind(aj.TPosition.VECIN, aj.TPosition.VECOUT, QUEUE_DEPTH)
        self.smallBuf_ = aj.TBuf(aj.TPosition.VECCALC)
        if self.blockLength_ <= self.tileLength_:
            self.pipe_.InitBuffer(self.smallBuf_, self.blockLength_ * self.size)
        else:
            self.pipe_.InitBuffer(self.inOutQueue_, BUFFER_NUM, self.tileLength_ * self.size)
        if self.mid is not None:
            self.tmpBufX_ = aj.TBuf(aj.TPosition.VECCALC)
            mid_size = 2 if self.mid == "half" else 4
            self.pipe_.InitBuffer(self.tmpBufX_, min(self.blockLength_, self.tileLength_) * mid_size)

    def Process(self):
        if self.blockLength_ <= self.tileLength_:
            self.ProcessSingleTile()
            return
        tileNum = -(-self.blockLength_ // self.tileLength_)
        tailTileLength = self.blockLength_ - (tileNum - 1) * self.tileLength_
        for i in range(tileNum):
            n = self.tileLength_ if i < tileNum - 1 else tailTileLength
            self.CopyIn(i, n)
            self.Compute(n)
            self.CopyOut(i, n)

    def ProcessSingleTile(self):
        xLocal = self.smallBuf_.Get(self.T)
        _copy(xLocal, self.xGm_[0], self.blockLength_, self.size)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        self.ComputeSingleTile(xLocal, self.blockLength_)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        _copy(self.yGm_[0], xLocal, self.blockLength_, self.size)

    def CopyIn(self, progress, n):
        xLocal = self.inOutQueue_.AllocTensor(self.T)
        _copy(xLocal, self.xGm_[progress * self.tileLength_], n, self.size)
        self.inOutQueue_.EnQue(aj.QuePosition.GM, aj.QuePosition.VECIN, self.T, xLocal)

    def CopyOut(self, progress, n):
        yLocal = self.inOutQueue_.DeQue(aj.QuePosition.VECOUT, aj.QuePosition.GM, self.T)
        _copy(self.yGm_[progress * self.tileLength_], yLocal, n, self.size)
        self.inOutQueue_.FreeTensor(yLocal)

    def Compute(self, n):
        xLocal = self.inOutQueue_.DeQue(aj.QuePosition.GM, aj.QuePosition.VECIN, self.T)
        self.ComputeSingleTile(xLocal, n)
        self.inOutQueue_.EnQue(aj.QuePosition.VECOUT, aj.QuePosition.GM, self.T, xLocal)

    def ComputeSingleTile(self, xLocal, n):
        if self.mid is None:
            aj.Relu(xLocal, xLocal, n)
            return
        xMid = self.tmpBufX_.Get(self.mid)
        aj.Cast(xMid, xLocal, aj.RoundMode.CAST_NONE, n)
        aj.Relu(xMid, xMid, n)
        aj.Cast(xLocal, xMid, aj.RoundMode.CAST_RINT, n)


class KernelReluV2VectorInt64:
    def Init(self, x, y, tilingData, pipeIn):
        self.pipe_ = pipeIn
        self.xGm_, self.yGm_, self.blockLength_, self.tileLength_ = InitBlockGm(x, y, tilingData)
        self.inQueueX_ = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM_I64)
        self.outQueueY_ = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM_I64)
        self.tempBuf_, self.expandIdxBuf_ = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        self.pipe_.InitBuffer(self.inQueueX_, BUFFER_NUM_I64, self.tileLength_ * 8)
        self.pipe_.InitBuffer(self.outQueueY_, BUFFER_NUM_I64, self.tileLength_ * 8)
        self.pipe_.InitBuffer(self.tempBuf_, self.tileLength_ * 8)
        self.pipe_.InitBuffer(self.expandIdxBuf_, self.tileLength_ * 4 * 4)
        lenInt16 = min(self.blockLength_, self.tileLength_) * 4
        idxI32 = self.expandIdxBuf_.Get("int32")
        aj.CreateVecIndex(idxI32, np.int32(0), lenInt16)            # 0, 1, 2, ...
        aj.ShiftRight(idxI32, idxI32, np.int32(2), lenInt16)        # k >> 2: the element
        aj.ShiftLeft(idxI32, idxI32, np.int32(3), lenInt16)         # its byte offset

    def Fence(self, event):
        """Deviation: the scalar path's missing MTE2_S / S_MTE3 ordering (module docstring)."""
        e = self.pipe_.FetchEventID(event)
        aj.SetFlag(e, event=event)
        aj.WaitFlag(e, event=event)

    def Process(self):
        if self.blockLength_ <= SCALAR_THRESHOLD:
            self.ProcessScalar()
            return
        tileNum = -(-self.blockLength_ // self.tileLength_)
        tail = self.blockLength_ - (tileNum - 1) * self.tileLength_
        for i in range(tileNum):
            n = self.tileLength_ if i < tileNum - 1 else tail
            xLocal = self.inQueueX_.AllocTensor("int64")
            _copy(xLocal, self.xGm_[i * self.tileLength_], n, 8)
            self.inQueueX_.EnQue(xLocal)
            self.Compute(n)
            yLocal = self.outQueueY_.DeQue("int64")
            _copy(self.yGm_[i * self.tileLength_], yLocal, n, 8)
            self.outQueueY_.FreeTensor(yLocal)

    def ProcessScalar(self):
        tileNum = -(-self.blockLength_ // self.tileLength_)
        for t in range(tileNum):
            n = self.blockLength_ - t * self.tileLength_ if t == tileNum - 1 else self.tileLength_
            xLocal = self.inQueueX_.AllocTensor("int64")
            aj.DataCopyPad(xLocal, self.xGm_[t * self.tileLength_], aj.DataCopyExtParams(1, n * 8, 0, 0, 0),
                           aj.DataCopyPadExtParams(False, 0, 0, 0))
            self.Fence(aj.HardEvent.MTE2_S)                        # deviation
            for i in range(n):
                value = xLocal.GetValue(i)
                xLocal.SetValue(i, value if value > 0 else np.int64(0))
            self.Fence(aj.HardEvent.S_MTE3)                        # deviation
            aj.DataCopyPad(self.yGm_[t * self.tileLength_], xLocal, aj.DataCopyExtParams(1, n * 8, 0, 0, 0))
            self.inQueueX_.FreeTensor(xLocal)

    def Compute(self, n):
        xLocal = self.inQueueX_.DeQue("int64")
        yLocal = self.outQueueY_.AllocTensor("int64")
        lenInt16 = n * 4
        xInt16, yInt16 = xLocal.ReinterpretCast("int16"), yLocal.ReinterpretCast("int16")
        rawMask = self.tempBuf_.Get("int16")
        expandIdx = self.expandIdxBuf_.Get("uint32")
        aj.Gather(rawMask, xInt16, expandIdx, 6, lenInt16)         # each element's top int16, four times
        aj.ShiftRight(rawMask, rawMask, np.int16(15), lenInt16)    # its sign: 0 or -1
        aj.Not(rawMask, rawMask, lenInt16)                         # -1 where x >= 0
        aj.And(yInt16, xInt16, rawMask, lenInt16)
        self.outQueueY_.EnQue("int64", yLocal)
        self.inQueueX_.FreeTensor(xLocal)


aj.REGISTER_TILING_DEFAULT(ReluV2TilingData)


def relu_v2(x, y, workspace, tiling_bytes, D_T_X):
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ReluV2TilingData, tiling_bytes)
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    pipe = aj.TPipe()
    if D_T_X in ("float", "half", "int32"):
        op = KernelReluV2Base(D_T_X)
    elif D_T_X in _MID:
        op = KernelReluV2Base(D_T_X, _MID[D_T_X])
    else:
        op = KernelReluV2VectorInt64()
    op.Init(x, y, tilingData, pipe)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if dtype in ("int8", "int16", "int32", "int64"):
            info = np.iinfo(_NP[dtype])
            x = rng.integers(info.min, info.max, size, dtype=_NP[dtype], endpoint=True)
            x[:min(size, 3)] = np.array([info.min, -1, info.max], _NP[dtype])[:size]
        else:
            x = (rng.standard_normal(size) * 100).astype(_NP[dtype])
            x[:min(size, 3)] = np.array([-0.0, 0.0, -1e-3], _NP[dtype])[:size]
        return {"x": x}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        y = np.zeros_like(x)
        block_dim, tiling_bytes = tiling(device, x.size, dtype)
        aj.launch(relu_v2, block_dim, device, x, y, np.zeros(32, np.uint8), tiling_bytes, dtype)
        return {"y": y}
    return run


def expected(device, inputs):
    x = inputs["x"]
    if x.dtype.kind == "i":
        return {"y": np.maximum(x, 0).astype(x.dtype)}
    return {"y": np.where(x > 0, x, 0).astype(x.dtype)}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/relu_v2/op_kernel/relu_v2.h"
KERNELS = [
    KernelSpec("relu_v2", "ReluV2 of float: 512-byte cache-line cores, a TQueBind<VECIN, VECOUT, 4> of four buffers "
               "with position-templated EnQue/DeQue, Relu in place; one-tile cores through a TBuf and EVENT_ID0 flags",
               _make_inputs("float"), _run("float"), expected, default_size=100000, devices=DEVICES,
               source=_SOURCE),
    KernelSpec("relu_v2_int8", "ReluV2 of int8: Cast to half, Relu, Cast back CAST_RINT", _make_inputs("int8"),
               _run("int8"), expected, default_size=70000, devices=DEVICES, source=_SOURCE),
    KernelSpec("relu_v2_int64", "ReluV2 of int64: Gather of each element's top int16 (srcBaseAddr 6, offsets from "
               "CreateVecIndex / ShiftRight / ShiftLeft), ShiftRight 15, Not, And; blocks of 256 or fewer by the "
               "scalar unit", _make_inputs("int64"), _run("int64"), expected, default_size=20000, devices=DEVICES,
               source=_SOURCE),
]
