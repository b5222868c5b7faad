"""BitwiseNot from the CANN math operators: y = ~x over int16, int32 and int8; the vector Not takes 16-bit lanes off
the 950, so the int32 and int8 kernels invert their tiles reinterpreted as int16 (twice, or half rounded up, the
count), always a whole number of 32-byte blocks (AlignUpI16), and the copies move the exact bytes (DataCopyPad).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/bitwise_not/op_kernel/bitwise_not.h
(`BitwiseNot<TYPE_X, IsExistBigCore>`: DataCopyPad in of `dataNum * sizeof(T)` bytes, `Not` of
`AlignUpI16(n)` / `AlignUpI16(2n)` / `AlignUpI16((n + 1) / 2)` int16 lanes, `outQueueY.EnQue<TYPE_X>`,
`inQueueX.DeQue<TYPE_X>`, DataCopyPad out; the last core's last tile moves only the real remaining elements) with the
host tiling of experimental/math/bitwise_not/op_host/bitwise_not_tiling.cpp (`BitwiseNotTilingFunc`: tiles of
UB / 3 / 2 bytes in whole blocks, one core when one tile holds the input, the big/small core split of
ascend_jit.kernels._base.big_small_core_tiling, `lastCoreTailDataNum` = the small tail less the 32-byte padding).

Deviations: the core count is the launch's 8 (GetCoreNum would give the device's). The host side pads GM to 32 bytes,
as device allocations are (the last core's SetGlobalBuffer window is its whole-block count). The half tmpBuffer that
only the bool (logical not) instantiation uses is still reserved; that instantiation is not ported: bool is no
emulator dtype (SPEC-2 14, D28). The int64 and uint8/uint16 instantiations are the same instruction sequence as
int32 / int8 / int16 and are not repeated.

Devices: Not on int16 is offered everywhere (SPEC-2 2, devkit Not page), DataCopyPad on the 950, A2, A3 and 310B
(SPEC-2 1.1): those four.

Fidelity: BIT-EXACT (Not, DataCopyPad are BIT-EXACT); checked bit for bit against numpy's `~`.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8
UB_PART_NUM = 3
ALIGN_NUM_I16 = 16
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")


def tiling(device, total, itemsize):
    """BitwiseNotTilingFunc: (block_dim, tiling data)."""
    ub_part_blocks = aj.get_device(device).ub_bytes // UB_PART_NUM // BUFFER_NUM // BLOCK_SIZE
    ub_part_data_num = ub_part_blocks * BLOCK_SIZE // itemsize
    blocks = -(-total * itemsize // BLOCK_SIZE)
    core_num = 1 if ub_part_data_num >= total else min(CORE_NUM, blocks)
    small, big, tail_block_num = big_small_core_tiling(total, itemsize, ub_part_data_num, core_num)
    pad = blocks * BLOCK_SIZE // itemsize - total
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num,
                          bigCoreLoopNum=big.tile_num, smallCoreLoopNum=small.tile_num, ubPartDataNum=ub_part_data_num,
                          smallCoreTailDataNum=small.tail_data_num, bigCoreTailDataNum=big.tail_data_num,
                          tailBlockNum=tail_block_num, lastCoreId=core_num - 1,
                          lastCoreTailDataNum=small.tail_data_num - pad), tail_block_num != 0


def align_up_i16(n):
    return -(-n // ALIGN_NUM_I16) * ALIGN_NUM_I16


class BitwiseNot:
    def __init__(self, dtype, is_exist_big_core):
        self.TYPE_X, self.IsExistBigCore = dtype, is_exist_big_core

    def Init(self, x, y, smallCoreDataNum, bigCoreDataNum, bigCoreLoopNum, smallCoreLoopNum, ubPartDataNum,
             smallCoreTailDataNum, bigCoreTailDataNum, tailBlockNum, lastCoreId, lastCoreTailDataNum):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        blockIdx = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * blockIdx
        self.ubPartDataNum = ubPartDataNum
        if self.IsExistBigCore and blockIdx < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, bigCoreLoopNum, bigCoreTailDataNum
        elif self.IsExistBigCore:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (blockIdx - tailBlockNum)
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            globalBufferIndex = smallCoreDataNum * blockIdx
        # the last core's last tile writes back only the real elements (not the 32-byte padding)
        self.lastTailDataNum = lastCoreTailDataNum if blockIdx == lastCoreId else self.tailDataNum
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        size = np.dtype(x.dtype).itemsize
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.tmpBuffer = aj.TBuf(aj.TPosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.ubPartDataNum * size)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.ubPartDataNum * size)
        self.pipe.InitBuffer(self.tmpBuffer, self.ubPartDataNum * 2)  # half: the bool instantiation's only

    def Process(self):
        loopCount = self.tileNum
        if loopCount <= 0:
            return
        for i in range(loopCount - 1):
            self.CopyIn(i, self.ubPartDataNum)
            self.Compute(self.ubPartDataNum)
            self.CopyOut(i, self.ubPartDataNum)
        self.CopyIn(loopCount - 1, self.lastTailDataNum)
        self.Compute(self.lastTailDataNum)
        self.CopyOut(loopCount - 1, self.lastTailDataNum)

    def CopyIn(self, progress, dataNum):
        xLocal = self.inQueueX.AllocTensor(self.TYPE_X)
        copyParams = aj.DataCopyExtParams(1, dataNum * xLocal.dtype.size, 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(False, 0, 0, 0)
        aj.DataCopyPad(xLocal, self.xGm[progress * self.ubPartDataNum], copyParams, padParams)
        self.inQueueX.EnQue(xLocal)

    def Compute(self, dataNum):
        xLocal = self.inQueueX.DeQue(self.TYPE_X)
        yLocal = self.outQueueY.AllocTensor(self.TYPE_X)
        if self.TYPE_X in ("int16", "uint16"):
            aj.Not(yLocal, xLocal, align_up_i16(dataNum))
        else:
            lanes = {"int32": dataNum * 2, "int8": (dataNum + 1) // 2}[self.TYPE_X]
            aj.Not(yLocal.ReinterpretCast("int16"), xLocal.ReinterpretCast("int16"), align_up_i16(lanes))
        self.outQueueY.EnQue(self.TYPE_X, yLocal)
        self.inQueueX.FreeTensor(xLocal)

    def CopyOut(self, progress, dataNum):
        yLocal = self.outQueueY.DeQue(self.TYPE_X)
        copyParams = aj.DataCopyExtParams(1, dataNum * yLocal.dtype.size, 0, 0, 0)
        aj.DataCopyPad(self.yGm[progress * self.ubPartDataNum], yLocal, copyParams)
        self.outQueueY.FreeTensor(yLocal)


def bitwise_not(x, y, tiling_data, dtype, is_exist_big_core):
    op = BitwiseNot(dtype, is_exist_big_core)
    op.Init(x, y, **tiling_data)
    op.Process()


def _make_inputs(np_dtype):
    def make_inputs(size, seed):
        info = np.iinfo(np_dtype)
        rng = np.random.default_rng(seed)
        return {"x": rng.integers(info.min, info.max, size, dtype=np_dtype, endpoint=True)}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        padded = -(-x.size * x.itemsize // BLOCK_SIZE) * BLOCK_SIZE // x.itemsize
        gm_x, gm_y = np.zeros(padded, x.dtype), np.zeros(padded, x.dtype)
        gm_x[:x.size] = x
        block_dim, tiling_data, big = tiling(device, x.size, x.itemsize)
        aj.launch(bitwise_not, block_dim, device, gm_x, gm_y, tiling_data, dtype, big)
        assert not gm_y[x.size:].any(), "the last core wrote into the 32-byte padding"
        return {"y": gm_y[:x.size]}
    return run


def expected(device, inputs):
    return {"y": ~inputs["x"]}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/bitwise_not/op_kernel/bitwise_not.h"
KERNELS = [
    KernelSpec("bitwise_not_int16", "BitwiseNot over int16: big/small cores, double-buffered UB-filling tiles, the "
               "last core's exact tail by DataCopyPad", _make_inputs(np.int16), _run("int16"), expected,
               default_size=100000, devices=DEVICES, source=_SOURCE),
    KernelSpec("bitwise_not_int32", "BitwiseNot over int32: Not of the tile reinterpreted as int16 pairs (2n lanes, "
               "whole blocks)", _make_inputs(np.int32), _run("int32"), expected, default_size=50000, devices=DEVICES,
               source=_SOURCE),
    KernelSpec("bitwise_not_int8", "BitwiseNot over int8: Not of (n + 1) / 2 int16 lanes rounded up to whole blocks",
               _make_inputs(np.int8), _run("int8"), expected, default_size=200000, devices=DEVICES, source=_SOURCE),
]
