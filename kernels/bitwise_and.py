"""BitwiseAnd from the CANN math operators: y = x1 & x2 over int16 and int32; the vector And takes 16-bit lanes only,
so the int32 kernel ands the inputs reinterpreted as int16 pairs (twice the count) into an int16 tile that the copy-out
dequeues as int32.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ 63d76c8dcaf7efaf1ba73c2f50a5df91066962a8, experimental/math/bitwise_and/op_kernel/bitwise_and.h
(`KernelBitwiseAnd<TYPE_X1>`: DataCopy in, `And(y, x1, x2, n)`; for int32 `AllocTensor<int16_t>`,
`And(y, x1.ReinterpretCast<int16_t>(), x2.ReinterpretCast<int16_t>(), 2n)`, `EnQue<int16_t>`, and the copy-out's
`DeQue<int32_t>`) with the host tiling of experimental/math/bitwise_and/op_host/bitwise_and_tiling.cpp
(`BitwiseAndTilingFunc`: tiles of UB / 32 / 6 blocks, the three double-buffered queues filling the UB; the big/small
core split of ascend_jit.kernels._base.big_small_core_tiling; one core when one tile holds the input; the int32
kernel's `tmp*DataNum` fields twice the element counts).

Deviation: the core count is the launch's 8 (GetCoreNum would give the device's). The host side pads GM to 32 bytes,
as device allocations are (the kernel copies whole 32-byte blocks).

Devices: And on int16 is offered everywhere (SPEC-2 2): both variants run on all six devices.

Fidelity: BIT-EXACT (And and DataCopy are BIT-EXACT, SPEC-2 0.3); checked bit for bit against numpy's `&`.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8
UB_NUM = 6
INT32_DOUBLE_DATA = 2


def tiling(device, total, itemsize):
    """BitwiseAndTilingFunc: (block_dim, tiling data)."""
    tile_block_num = aj.get_device(device).ub_bytes // BLOCK_SIZE // UB_NUM
    tile_data_num = tile_block_num * BLOCK_SIZE // itemsize
    blocks = -(-total * itemsize // BLOCK_SIZE)
    core_num = 1 if tile_data_num >= total else min(CORE_NUM, blocks)
    small, big, tail_block_num = big_small_core_tiling(total, itemsize, tile_data_num, core_num)
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num,
                          finalBigTileNum=big.tile_num, finalSmallTileNum=small.tile_num, tileDataNum=tile_data_num,
                          smallTailDataNum=small.tail_data_num, bigTailDataNum=big.tail_data_num,
                          tailBlockNum=tail_block_num, tmpTileDataNum=INT32_DOUBLE_DATA * tile_data_num,
                          tmpSmallTailDataNum=INT32_DOUBLE_DATA * small.tail_data_num,
                          tmpBigTailDataNum=INT32_DOUBLE_DATA * big.tail_data_num)


class KernelBitwiseAnd:
    def __init__(self, dtype):
        self.TYPE_X1 = dtype

    def Init(self, x1, x2, y, smallCoreDataNum, bigCoreDataNum, finalBigTileNum, finalSmallTileNum, tileDataNum,
             smallTailDataNum, bigTailDataNum, tailBlockNum, tmpTileDataNum, tmpSmallTailDataNum, tmpBigTailDataNum):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        coreId = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * coreId
        self.tileDataNum, self.tmpTileDataNum = tileDataNum, tmpTileDataNum
        if coreId < tailBlockNum:
            self.coreDataNum, self.tileNum = bigCoreDataNum, finalBigTileNum
            self.tailDataNum, self.tmpTailDataNum = bigTailDataNum, tmpBigTailDataNum
        else:
            self.coreDataNum, self.tileNum = smallCoreDataNum, finalSmallTileNum
            self.tailDataNum, self.tmpTailDataNum = smallTailDataNum, tmpSmallTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (coreId - tailBlockNum)
        self.x1Gm, self.x2Gm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.x1Gm.SetGlobalBuffer(x1[globalBufferIndex:], self.coreDataNum)
        self.x2Gm.SetGlobalBuffer(x2[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        size = np.dtype(x1.dtype).itemsize
        self.pipe = aj.TPipe()
        self.inQueueX1 = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.inQueueX2 = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.pipe.InitBuffer(self.inQueueX1, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.inQueueX2, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * size)

    def CopyIn(self, progress):
        x1Local = self.inQueueX1.AllocTensor(self.TYPE_X1)
        x2Local = self.inQueueX2.AllocTensor(self.TYPE_X1)
        aj.DataCopy(x1Local, self.x1Gm[progress * self.tileDataNum], self.processDataNum)
        aj.DataCopy(x2Local, self.x2Gm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX1.EnQue(x1Local)
        self.inQueueX2.EnQue(x2Local)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.TYPE_X1)
        aj.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)

    def Compute(self, progress):
        x1Local = self.inQueueX1.DeQue(self.TYPE_X1)
        x2Local = self.inQueueX2.DeQue(self.TYPE_X1)
        if self.TYPE_X1 != "int32":
            yLocal = self.outQueueY.AllocTensor(self.TYPE_X1)
            aj.And(yLocal, x1Local, x2Local, self.processDataNum)
            self.outQueueY.EnQue(yLocal)
        else:
            yLocal = self.outQueueY.AllocTensor("int16")
            aj.And(yLocal, x1Local.ReinterpretCast("int16"), x2Local.ReinterpretCast("int16"), self.tmpProcessDataNum)
            self.outQueueY.EnQue(yLocal)
        self.inQueueX1.FreeTensor(x1Local)
        self.inQueueX2.FreeTensor(x2Local)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.tileDataNum
        if self.TYPE_X1 == "int32":
            self.tmpProcessDataNum = self.tmpTileDataNum
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)
        self.processDataNum = self.tailDataNum
        if self.TYPE_X1 == "int32":
            self.tmpProcessDataNum = self.tmpTailDataNum
        self.CopyIn(loopCount - 1)
        self.Compute(loopCount - 1)
        self.CopyOut(loopCount - 1)


def bitwise_and(x1, x2, y, tiling_data, dtype):
    op = KernelBitwiseAnd(dtype)
    op.Init(x1, x2, y, **tiling_data)
    op.Process()


def _make_inputs(np_dtype):
    def make_inputs(size, seed):
        info = np.iinfo(np_dtype)
        rng = np.random.default_rng(seed)
        return {k: rng.integers(info.min, info.max, size, dtype=np_dtype, endpoint=True) for k in ("x1", "x2")}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x1, x2 = inputs["x1"], inputs["x2"]
        padded = -(-x1.size * x1.itemsize // BLOCK_SIZE) * BLOCK_SIZE // x1.itemsize
        gm = [np.zeros(padded, x1.dtype) for _ in range(3)]
        gm[0][:x1.size], gm[1][:x1.size] = x1, x2
        block_dim, tiling_data = tiling(device, x1.size, x1.itemsize)
        aj.launch(bitwise_and, block_dim, device, *gm, tiling_data, dtype)
        return {"y": gm[2][:x1.size]}
    return run


def expected(device, inputs):
    return {"y": inputs["x1"] & inputs["x2"]}


_SOURCE = "hicann/ops-math@63d76c8d experimental/math/bitwise_and/op_kernel/bitwise_and.h"
KERNELS = [
    KernelSpec("bitwise_and_int16", "BitwiseAnd over int16: big/small cores, double-buffered UB-filling tiles with a "
               "tail", _make_inputs(np.int16), _run("int16"), expected, default_size=200000, source=_SOURCE),
    KernelSpec("bitwise_and_int32", "BitwiseAnd over int32: And of the inputs reinterpreted as int16 pairs into an "
               "int16 tile that the copy-out dequeues as int32", _make_inputs(np.int32), _run("int32"), expected,
               default_size=100000, source=_SOURCE),
]
