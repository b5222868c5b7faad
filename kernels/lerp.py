"""Lerp from the CANN math operators: y = start + weight * (end - start), element by element, over float, half and
bfloat16 (the 16-bit types widened to float by CAST_NONE, computed in float, narrowed by CAST_RINT).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c4193324, experimental/math/lerp/op_kernel/lerp.h (`NsLerp::Lerp<TYPE_START, TYPE_END, TYPE_WEIGHT,
TYPE_Y, IsExistBigCore>`: three depth-2 VECIN queues and a depth-2 VECOUT queue, CopyIn / Compute / CopyOut per tile,
the last tile of a core shorter; float: Sub end - start into the output tile, Mul by the weight, Add start; half and
bfloat16: two float TBufs, Cast start and end CAST_NONE, Sub, Cast weight CAST_NONE into the first TBuf, Mul, Cast
start again, Add, Cast the sum CAST_RINT into the output tile) and lerp.cpp (tiling key 1: big and small cores, key 0:
small cores only), with the host tiling of experimental/math/lerp/op_host/lerp_tiling.cpp (`LerpTilingFunc`: tiles of
UB / (4 for float, 6 otherwise) / 2 bytes rounded down to 32-byte blocks, so the queues and the float TBufs fill the UB
to the byte; the input rounded up to 32-byte blocks spread over the cores block by block; one core when one tile holds
the input: ascend_jit.kernels._base.big_small_core_tiling is the same split).

Deviations: the core count is the launch's 8 (GetCoreNum would give the device's); the host pads GM to 32 bytes, as
device allocations are (the last tile of the last core copies whole blocks).

Devices: float on every device; half where float -> half takes CAST_RINT (950, A3, A2, 310B; the 310P and 910 offer
only CAST_ODD and CAST_NONE, SPEC-2 7.2, and refuse it); bfloat16 where the bfloat16 <-> float Casts exist (the same
four, SPEC-2 7.2).

Fidelity: BIT-EXACT (Sub, Mul, Add, Cast and DataCopy, SPEC-2 0.3). The expectation is the same three IEEE float32
operations on host numpy float32 arrays (RNE, subnormals kept: SPEC 5.1, SPEC D8), the widening exact and the narrowing one
RNE rounding (numpy's and ml_dtypes' astype), with the half overflow mode of the device (SPEC 5.2, SPEC-2 D46).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8
HALF_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")   # float -> half CAST_RINT (SPEC-2 7.2)
BF16_DEVICES = HALF_DEVICES   # bfloat16 <-> float (SPEC-2 7.2)
_SIZES = {"float": 4, "half": 2, "bfloat16": 2}


def tiling(device, total, dtype):
    """LerpTilingFunc: (block_dim, tiling key, tiling data)."""
    type_length = _SIZES[dtype]
    ub_part_num = 4 if type_length == 4 else 6
    ub_part_blocks = aj.get_device(device).ub_bytes // ub_part_num // BUFFER_NUM // BLOCK_SIZE
    ub_part_data_num = ub_part_blocks * BLOCK_SIZE // type_length
    blocks = -(-total * type_length // BLOCK_SIZE)
    core_num = 1 if ub_part_data_num >= total else min(CORE_NUM, blocks)
    small, big, tail_block_num = big_small_core_tiling(total, type_length, ub_part_data_num, core_num)
    data = dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num, bigCoreLoopNum=big.tile_num,
                smallCoreLoopNum=small.tile_num, ubPartDataNum=ub_part_data_num,
                smallCoreTailDataNum=small.tail_data_num, bigCoreTailDataNum=big.tail_data_num,
                tailBlockNum=tail_block_num)
    return core_num, (1 if tail_block_num else 0), data


class Lerp:
    def __init__(self, dtype, is_exist_big_core):
        self.T = dtype
        self.IsExistBigCore = is_exist_big_core

    def Init(self, start, end, weight, y, smallCoreDataNum, bigCoreDataNum, bigCoreLoopNum, smallCoreLoopNum,
             ubPartDataNum, smallCoreTailDataNum, bigCoreTailDataNum, tailBlockNum):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        coreNum = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * aj.GetBlockIdx()
        self.ubPartDataNum = ubPartDataNum
        if self.IsExistBigCore and coreNum < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, bigCoreLoopNum, bigCoreTailDataNum
        elif self.IsExistBigCore:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (aj.GetBlockIdx() - tailBlockNum)
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            globalBufferIndex = smallCoreDataNum * aj.GetBlockIdx()
        self.startGm, self.endGm, self.weightGm, self.yGm = (aj.GlobalTensor() for _ in range(4))
        self.startGm.SetGlobalBuffer(start[globalBufferIndex:], self.coreDataNum)
        self.endGm.SetGlobalBuffer(end[globalBufferIndex:], self.coreDataNum)
        self.weightGm.SetGlobalBuffer(weight[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        size = _SIZES[self.T]
        self.pipe = aj.TPipe()
        self.inQueueStart, self.inQueueEnd, self.inQueueWeight = (aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
                                                                  for _ in range(3))
        self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        for que in (self.inQueueStart, self.inQueueEnd, self.inQueueWeight, self.outQueueY):
            self.pipe.InitBuffer(que, BUFFER_NUM, self.ubPartDataNum * size)
        if self.T != "float":
            self.tmp1, self.tmp2 = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
            self.pipe.InitBuffer(self.tmp1, self.ubPartDataNum * 4)
            self.pipe.InitBuffer(self.tmp2, self.ubPartDataNum * 4)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.ubPartDataNum
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)
        self.processDataNum = self.tailDataNum
        self.CopyIn(loopCount - 1)
        self.Compute(loopCount - 1)
        self.CopyOut(loopCount - 1)

    def CopyIn(self, progress):
        startLocal = self.inQueueStart.AllocTensor(self.T)
        endLocal = self.inQueueEnd.AllocTensor(self.T)
        weightLocal = self.inQueueWeight.AllocTensor(self.T)
        offset = progress * self.ubPartDataNum
        aj.DataCopy(startLocal, self.startGm[offset], self.processDataNum)
        aj.DataCopy(endLocal, self.endGm[offset], self.processDataNum)
        aj.DataCopy(weightLocal, self.weightGm[offset], self.processDataNum)
        self.inQueueStart.EnQue(startLocal)
        self.inQueueEnd.EnQue(endLocal)
        self.inQueueWeight.EnQue(weightLocal)

    def Compute(self, progress):
        n = self.processDataNum
        startLocal = self.inQueueStart.DeQue(self.T)
        endLocal = self.inQueueEnd.DeQue(self.T)
        weightLocal = self.inQueueWeight.DeQue(self.T)
        yLocal = self.outQueueY.AllocTensor(self.T)
        if self.T == "float":
            aj.Sub(yLocal, endLocal, startLocal, n)
            aj.Mul(yLocal, weightLocal, yLocal, n)
            aj.Add(yLocal, yLocal, startLocal, n)
        else:
            fstart, fend = self.tmp1.Get("float"), self.tmp2.Get("float")
            aj.Cast(fstart, startLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(fend, endLocal, aj.RoundMode.CAST_NONE, n)
            aj.Sub(fend, fend, fstart, n)
            aj.Cast(fstart, weightLocal, aj.RoundMode.CAST_NONE, n)   # the start copy is spent: the weight takes it
            aj.Mul(fend, fstart, fend, n)
            aj.Cast(fstart, startLocal, aj.RoundMode.CAST_NONE, n)
            aj.Add(fend, fend, fstart, n)
            aj.Cast(yLocal, fend, aj.RoundMode.CAST_RINT, n)
        self.outQueueY.EnQue(self.T, yLocal)
        self.inQueueStart.FreeTensor(startLocal)
        self.inQueueEnd.FreeTensor(endLocal)
        self.inQueueWeight.FreeTensor(weightLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.T)
        aj.DataCopy(self.yGm[progress * self.ubPartDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


def lerp(start, end, weight, y, tiling_key, tiling_data, dtype):
    """The kernel entry: tiling key 1 instantiates the big-core variant, key 0 the small-core one."""
    op = Lerp(dtype, tiling_key == 1)
    op.Init(start, end, weight, y, **tiling_data)
    op.Process()


def _make_inputs(np_dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        start = (rng.standard_normal(size) * 4).astype(np.float32)
        end = (rng.standard_normal(size) * 4).astype(np.float32)
        weight = rng.uniform(-0.5, 1.5, size).astype(np.float32)   # extrapolation too
        arrays = {"start": start, "end": end, "weight": weight}
        if np_dtype == np.float16:   # overflowing differences: the half path computes in float, so no inf appears
            arrays["end"][::97] = 60000.0
            arrays["start"][::97] = -60000.0
        return {k: v.astype(np_dtype) for k, v in arrays.items()}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["start"]
        padded = -(-x.size * x.itemsize // BLOCK_SIZE) * BLOCK_SIZE // x.itemsize
        gm = {}
        for key in ("start", "end", "weight"):
            gm[key] = np.zeros(padded, x.dtype)
            gm[key][:x.size] = inputs[key]
        y = np.zeros(padded, x.dtype)
        block_dim, key, tiling_data = tiling(device, x.size, dtype)
        aj.launch(lerp, block_dim, device, gm["start"], gm["end"], gm["weight"], y, key, tiling_data, dtype)
        return {"y": y[:x.size]}
    return run


def expected(device, inputs):
    """Sub, Mul, Add in IEEE float32 on the host; 16-bit types widened exactly and narrowed once (RNE), saturated to
    +-65504 (NaN to 0) when the device's half mode is saturating (SPEC 5.2, SPEC-2 D35)."""
    dtype = inputs["start"].dtype
    start, end, weight = (inputs[k].astype(np.float32) for k in ("start", "end", "weight"))
    with np.errstate(all="ignore"):
        y = (end - start) * weight + start
        out = y.astype(dtype)
    if dtype == np.float16 and aj.Core(device).half_saturating:
        out = np.where(np.isnan(out), np.float16(0), np.clip(out, np.float16(-65504), np.float16(65504)))
    return {"y": out.astype(dtype)}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/lerp/op_kernel/lerp.h"
KERNELS = [
    KernelSpec("lerp", "Lerp over floats: Sub, Mul, Add; big/small cores, double-buffered tiles filling the UB",
               _make_inputs(np.float32), _run("float"), expected, default_size=100000, source=_SOURCE),
    KernelSpec("lerp_half", "Lerp over halves computed in float (Cast CAST_NONE in, CAST_RINT out; two float TBufs)",
               _make_inputs(np.float16), _run("half"), expected, default_size=100000, devices=HALF_DEVICES,
               source=_SOURCE),
    KernelSpec("lerp_bf16", "Lerp over bfloat16 computed in float", _make_inputs(ml_dtypes.bfloat16),
               _run("bfloat16"), expected, default_size=100000, devices=BF16_DEVICES, source=_SOURCE),
]
