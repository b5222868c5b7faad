"""Neg from the CANN math operators (the operator, not the vector Neg instruction, which the emulator does not offer:
SPEC-2 14): y = -x. int32 multiplies by a Duplicated -1; int8 goes through half (Cast, Muls -1, Cast CAST_RINT to
int16) and wraps to int8 by ShiftLeft 8 then an arithmetic ShiftRight 8 before casting back through half; bfloat16
negates in float (Cast, Muls -1, Cast CAST_RINT).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/neg/op_kernel/neg.h
(`KernelNeg<T, IsExistBigCore>`: DataCopy in and out of whole blocks, the int32/int16, int8 and bfloat16 branches of
`Compute`, the temporary TBufs `Get` and `FreeTensor`ed per tile, `outQueue.EnQue<T>`, `inQueueX.DeQue<T>`; a TPipe
made by the caller and passed in) with the host tiling of experimental/math/neg/op_host/neg_tiling.cpp
(`NegTilingFunc`: UB over 4 parts, int8 8, bfloat16 6, in whole blocks; one core when a tile holds the input, else
the big/small core split of ascend_jit.kernels._base.big_small_core_tiling).

Deviations: the core count is the launch's 8 (GetCoreNum would give the device's). The host pads GM to 32 bytes, as
device allocations are (the tiles are whole blocks). Not ported: the float/half branch (one Muls, as bfloat16's
middle step), uint8 (Muls, Adds 256, And 255: the same instructions as int8 and bitwise_and) and int64 (an element
split with DataCopyPad and a carry chain through Not, masked Adds, CompareScalar, Select and ShiftLeft on the
compare bits), which the round's budget left for later.

Devices: the int8 branch needs ShiftLeft/ShiftRight on int16 (950, A2, A3, 310B; not the 310P or the 910) and
`Cast(half, int16, CAST_NONE)`, not in the 950's Cast table (SPEC-2 7.2, D72): A3, A2 and 310B. int32: Duplicate and
Mul (every device). bfloat16: the bfloat16 Casts (950, A3, A2).

A finding, not a deviation: the original wraps -(-128) = 128 to int8 relying on C++'s left shift into the sign bit
(128 << 8 = -32768, then >> 8 = -128, as torch.neg gives). The devkit's ShiftLeft page says a signed ShiftLeft keeps
the sign bit and drops the bit below it ("次高位被丢弃"), and the emulator follows the page: 128 << 8 is 0, so the
port gives neg(-128) = 0 (every other int8 value as torch). Which the hardware does is a question for the hardware
checklist; the port keeps the original's instructions and the page's semantics.

Fidelity: BIT-EXACT (Duplicate, Mul, Muls, Cast, ShiftLeft, ShiftRight, DataCopy are BIT-EXACT); int32 checked bit for
bit against the reference model's Mul in the core's integer mode, int8 against the reference model's ShiftLeft and
ShiftRight (the Casts around them are exact: |values| <= 128 in half and int16), bfloat16 against numpy's sign change
(exact in float and back).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8
UB_PART_NUM = {"int32": 4, "int8": 8, "bfloat16": 6}
ALL = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore", "atlas-training")


def tiling(device, T, total, itemsize):
    """NegTilingFunc (every type but int64): (block_dim, tiling data)."""
    ub_part_blocks = aj.get_device(device).ub_bytes // UB_PART_NUM[T] // BLOCK_SIZE
    ub_part_data_num = ub_part_blocks * BLOCK_SIZE // itemsize
    blocks = -(-total * itemsize // BLOCK_SIZE)
    core_num = 1 if ub_part_data_num >= total else min(CORE_NUM, blocks)
    small, big, tail_block_num = big_small_core_tiling(total, itemsize, ub_part_data_num, core_num)
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num, bigCoreLoopNum=big.tile_num,
                          smallCoreLoopNum=small.tile_num, ubPartDataNum=ub_part_data_num,
                          smallCoreTailDataNum=small.tail_data_num, bigCoreTailDataNum=big.tail_data_num,
                          tailBlockNum=tail_block_num), tail_block_num != 0


class KernelNeg:
    def __init__(self, T, is_exist_big_core):
        self.T, self.IsExistBigCore = T, is_exist_big_core

    def Init(self, src_gm, dst_gm, smallCoreDataNum, bigCoreDataNum, bigCoreLoopNum, smallCoreLoopNum, ubPartDataNum,
             smallCoreTailDataNum, bigCoreTailDataNum, tailBlockNum, pipeIn):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        coreNum = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * coreNum
        self.ubPartDataNum = ubPartDataNum
        if self.IsExistBigCore and coreNum < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, bigCoreLoopNum, bigCoreTailDataNum
        elif self.IsExistBigCore:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (coreNum - tailBlockNum)
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            globalBufferIndex = smallCoreDataNum * coreNum
        self.src_global, self.dst_global = aj.GlobalTensor(), aj.GlobalTensor()
        self.src_global.SetGlobalBuffer(src_gm[globalBufferIndex:], self.coreDataNum)
        self.dst_global.SetGlobalBuffer(dst_gm[globalBufferIndex:], self.coreDataNum)
        self.pipe = pipeIn
        size = np.dtype(src_gm.dtype).itemsize
        self.inQueueX = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.outQueue = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.QueueTmp, self.QueueTmp1, self.QueueTmp2 = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(3))
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.ubPartDataNum * size)
        self.pipe.InitBuffer(self.outQueue, BUFFER_NUM, self.ubPartDataNum * size)
        if self.T == "int8":
            self.pipe.InitBuffer(self.QueueTmp, self.ubPartDataNum * 2)    # half
            self.pipe.InitBuffer(self.QueueTmp2, self.ubPartDataNum * 2)   # int16
        elif self.T == "bfloat16":
            self.pipe.InitBuffer(self.QueueTmp1, self.ubPartDataNum * 4)   # float

    def Process(self):
        if self.tileNum == 0:
            return
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

    def CopyIn(self, process):
        srcLocal = self.inQueueX.AllocTensor(self.T)
        aj.DataCopy(srcLocal, self.src_global[process * self.ubPartDataNum], self.processDataNum)
        self.inQueueX.EnQue(srcLocal)

    def Compute(self, process):
        n = self.processDataNum
        dstLocal = self.outQueue.AllocTensor(self.T)
        srcLocal = self.inQueueX.DeQue(self.T)
        if self.T == "int32":
            aj.Duplicate(dstLocal, -1, n)
            aj.Mul(dstLocal, srcLocal, dstLocal, n)
        elif self.T == "int8":
            tmp = self.QueueTmp.Get("half")
            aj.Cast(tmp, srcLocal, aj.RoundMode.CAST_NONE, n)
            aj.Muls(tmp, tmp, -1.0, n)
            tmp2 = self.QueueTmp2.Get("int16")
            aj.Cast(tmp2, tmp, aj.RoundMode.CAST_RINT, n)
            # the int8 overflow (-(-128) = 128) wrapped: the low byte moved up, then shifted back with its sign
            aj.ShiftLeft(tmp2, tmp2, 8, n)
            aj.ShiftRight(tmp2, tmp2, 8, n)
            aj.Cast(tmp, tmp2, aj.RoundMode.CAST_NONE, n)
            aj.Cast(dstLocal, tmp, aj.RoundMode.CAST_NONE, n)
            self.QueueTmp2.FreeTensor(tmp2)
            self.QueueTmp.FreeTensor(tmp)
        else:  # bfloat16: Muls takes no bfloat16
            tmp1 = self.QueueTmp1.Get("float")
            aj.Cast(tmp1, srcLocal, aj.RoundMode.CAST_NONE, n)
            aj.Muls(tmp1, tmp1, -1.0, n)
            aj.Cast(dstLocal, tmp1, aj.RoundMode.CAST_RINT, n)
            self.QueueTmp1.FreeTensor(tmp1)
        self.outQueue.EnQue(self.T, dstLocal)
        self.inQueueX.FreeTensor(srcLocal)

    def CopyOut(self, process):
        dstLocal = self.outQueue.DeQue(self.T)
        aj.DataCopy(self.dst_global[process * self.ubPartDataNum], dstLocal, self.processDataNum)
        self.outQueue.FreeTensor(dstLocal)


def neg(src_gm, dst_gm, tiling_data, T, is_exist_big_core):
    pipe = aj.TPipe()
    op = KernelNeg(T, is_exist_big_core)
    op.Init(src_gm, dst_gm, **tiling_data, pipeIn=pipe)
    op.Process()


def _make_inputs(np_dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if np.dtype(np_dtype).kind == "i":
            info = np.iinfo(np_dtype)
            x = rng.integers(info.min, info.max, size, dtype=np_dtype, endpoint=True)
            x[:2] = info.min, info.max   # the overflowing negation always present
            return {"x": x}
        return {"x": (rng.standard_normal(size) * 100).astype(np_dtype)}
    return make_inputs


def _run(T):
    def run(device, inputs):
        x = inputs["x"]
        padded = -(-x.size * x.itemsize // BLOCK_SIZE) * BLOCK_SIZE // x.itemsize
        src, dst = np.zeros(padded, x.dtype), np.zeros(padded, x.dtype)
        src[:x.size] = x
        block_dim, tiling_data, big = tiling(device, T, x.size, x.itemsize)
        aj.launch(neg, block_dim, device, src, dst, tiling_data, T, big)
        return {"y": dst[:x.size]}
    return run


def expected(device, inputs):
    x = inputs["x"]
    if x.dtype == np.int32:   # Mul by -1 in the core's integer mode (-(-2**31) saturates or wraps, D35)
        from ascend_jit.reference import elementwise as ref
        core = aj.Core(device)
        env = ref.Env(device, sat_half=core.half_saturating, sat_int=core.int_saturating)
        y = ref.mul("int32", env, np.array([int(v) for v in x], dtype=object), -1)
        return {"y": np.array([int(v) for v in y], dtype=np.int64).astype(np.int32)}
    if x.dtype == np.int8:    # the Casts are exact here (|values| <= 128); the shifts are the reference model's
        from ascend_jit.reference import elementwise as ref
        env = ref.Env(device)
        v = np.array([-int(a) for a in x], dtype=object)
        eight = np.full(x.size, 8, dtype=object)
        v = ref.shift_right("int16", env, ref.shift_left("int16", env, v, eight), eight)
        return {"y": np.array([int(a) for a in v], dtype=np.int64).astype(np.int8)}
    return {"y": -x}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/neg/op_kernel/neg.h"
KERNELS = [
    KernelSpec("neg_int8", "Neg over int8: through half and int16, the int8 wrap by ShiftLeft 8 and an arithmetic "
               "ShiftRight 8", _make_inputs(np.int8), _run("int8"), expected, default_size=200000,
               devices=("atlas-a3", "atlas-a2", "atlas-200i-500-a2"), source=_SOURCE),
    KernelSpec("neg_int32", "Neg over int32: Mul by a Duplicated -1 (big/small cores, UB-filling double-buffered "
               "tiles)", _make_inputs(np.int32), _run("int32"), expected, default_size=100000, devices=ALL,
               source=_SOURCE),
    KernelSpec("neg_bf16", "Neg over bfloat16: Cast to float, Muls -1, Cast CAST_RINT back",
               _make_inputs(ml_dtypes.bfloat16), _run("bfloat16"), expected, default_size=100000,
               devices=("ascend950", "atlas-a3", "atlas-a2"), source=_SOURCE),
]
