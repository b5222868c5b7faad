"""DiagPart from the CANN math operators: y[i] = x[i, i] for a square x of side N (the operator's x[d1..dk, d1..dk]
read as N = d1 * ... * dk), float, half or int32.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c4193324, experimental/math/diag_part/op_kernel/diag_part.h (`KernelDiagPart<T>`), its entry
diag_part.cpp (the tiling key's dtype picks the instantiation) and op_host/diag_part_tiling.cpp (the diagonal in
sub-blocks of 8 elements (16 for half), the last one short, spread over the cores, front cores one sub-block more).

As in the original, per sub-block of `count` diagonal elements: one strided DataCopyPad of the count x count square
around the diagonal (blockCount = count rows of count elements, srcStride = the rest of a GM row in bytes, each row
landing on its own 32-byte-rounded UB row), MTE2_V flags with FetchEventID, ArithProgression of the int32 byte
offsets i * (row bytes rounded to 32 + sizeof(T)) into a TBuf, ReinterpretCast to uint32, Gather of the count
diagonal elements (count-form, base 0), V_MTE3 flags, a DataCopyPad of count elements out. The queues are only
allocated and freed (no EnQue / DeQue); the original's flags are the whole synchronisation.

Devices: DataCopyPad (not the 310P, 910), TPipe event ids (not the 310B), Gather and ArithProgression on the three
types: the 950, A3 and A2.

Fidelity: BIT-EXACT (copies and Gather move bits; ArithProgression on int32 is exact, SPEC-2 0.3). The expectation
is numpy's diagonal.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                 # deviation: the launch's cores (GetCoreNum in the original)
BUFFER_NUM = 2
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
_NP = {"float": np.float32, "half": np.float16, "int32": np.int32}
_KEY = {"float": 0, "half": 1, "int32": 3}

DiagPartTilingData = np.dtype([("sideLength", np.int64), ("dtype", np.uint32), ("realCoreNum", np.int64),
                               ("numPerCore", np.int64), ("tailNum", np.int64), ("blockSize", np.int64)],
                              align=True)


def tiling(side, dtype, core_num=CORE_NUM):
    """Tiling4DiagPart: (block dim, tiling key, the packed DiagPartTilingData)."""
    num_per_core = 16 if dtype == "half" else 8
    total_blocks = -(-side // num_per_core)
    t = np.zeros(1, DiagPartTilingData)
    t["sideLength"], t["dtype"] = side, _KEY[dtype]
    t["realCoreNum"] = min(core_num, total_blocks)
    t["numPerCore"], t["tailNum"], t["blockSize"] = num_per_core, side % num_per_core, 0
    return int(t["realCoreNum"][0]), _KEY[dtype], t.view(np.uint8).copy()


class KernelDiagPart:
    def __init__(self, T):
        self.T = T
        self.size = np.dtype(_NP[T]).itemsize

    def Init(self, x, y, tilingData):
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x)
        self.yGm.SetGlobalBuffer(y)
        self.sideLength = int(tilingData.sideLength)
        self.realCoreNum = int(tilingData.realCoreNum)
        self.numPerCore = int(tilingData.numPerCore)
        self.tailNum = int(tilingData.tailNum)
        self.pipe = aj.TPipe()
        self.xQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.yQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.indexBuf = aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.xQueue, BUFFER_NUM, self.numPerCore * self.numPerCore * self.size)
        self.pipe.InitBuffer(self.yQueue, BUFFER_NUM, self.numPerCore * self.size)
        self.pipe.InitBuffer(self.indexBuf, self.numPerCore * 4)

    def Process(self):
        blockIdx = aj.GetBlockIdx()
        if blockIdx >= self.realCoreNum:
            return
        totalBlocks = -(-self.sideLength // self.numPerCore)
        blocksPerCore, tailBlocks = totalBlocks // self.realCoreNum, totalBlocks % self.realCoreNum
        myBlocks = blocksPerCore + (1 if blockIdx < tailBlocks else 0)
        if myBlocks == 0:
            return
        if blockIdx < tailBlocks:
            myStartBlock = blockIdx * (blocksPerCore + 1)
        else:
            myStartBlock = tailBlocks * (blocksPerCore + 1) + (blockIdx - tailBlocks) * blocksPerCore
        for b in range(myBlocks):
            block = myStartBlock + b
            count = self.numPerCore
            if block == totalBlocks - 1 and self.tailNum != 0:
                count = self.tailNum
            self.ProcessBatch(block * self.numPerCore * (self.sideLength + 1), block * self.numPerCore, count)

    def ProcessBatch(self, xGmOffset, yGmOffset, count):
        size = self.size
        copyInParams = aj.DataCopyExtParams()
        copyInParams.blockCount = count
        copyInParams.blockLen = count * size
        copyInParams.srcStride = (self.sideLength - count) * size
        copyInParams.dstStride = 0
        padParams = aj.DataCopyPadExtParams(False, 0, 0, 0)
        xLocal = self.xQueue.AllocTensor(self.T)
        aj.DataCopyPad(xLocal, self.xGm[xGmOffset], copyInParams, padParams)
        aj.SetFlag(aj.GetTPipePtr().FetchEventID(aj.HardEvent.MTE2_V), event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.GetTPipePtr().FetchEventID(aj.HardEvent.MTE2_V), event=aj.HardEvent.MTE2_V)
        # UB rows are rounded up to whole 32-byte blocks: the diagonal's byte offsets step by a row and an element
        alignRowBytes = -(-count * size // 32) * 32
        indexLocal = self.indexBuf.Get("int32")
        aj.ArithProgression(indexLocal, np.int32(0), np.int32(alignRowBytes + size), count)
        indexU32 = indexLocal.ReinterpretCast("uint32")
        yLocal = self.yQueue.AllocTensor(self.T)
        aj.Gather(yLocal, xLocal, indexU32, 0, count)
        aj.SetFlag(aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_MTE3), event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_MTE3), event=aj.HardEvent.V_MTE3)
        copyOutParams = aj.DataCopyExtParams()
        copyOutParams.blockCount = 1
        copyOutParams.blockLen = count * size
        copyOutParams.srcStride = 0
        copyOutParams.dstStride = 0
        aj.DataCopyPad(self.yGm[yGmOffset], yLocal, copyOutParams)
        self.xQueue.FreeTensor(xLocal)
        self.yQueue.FreeTensor(yLocal)


def diag_part(x, y, workspace, tiling_bytes, dtype_key):
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(DiagPartTilingData, tiling_bytes)
    T = {0: "float", 1: "half", 3: "int32"}[dtype_key]
    op = KernelDiagPart(T)
    op.Init(x, y, tilingData)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        side = max(1, int(round(size ** 0.5)))
        rng = np.random.default_rng(seed)
        if dtype == "int32":
            x = rng.integers(-2 ** 31, 2 ** 31, (side, side), dtype=np.int64).astype(np.int32)
        else:
            x = rng.standard_normal((side, side)).astype(_NP[dtype])
        return {"x": x}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        side = x.shape[0]
        y = np.zeros(side, x.dtype)
        block_dim, key, tiling_bytes = tiling(side, dtype)
        aj.launch(diag_part, block_dim, device, x.reshape(-1), y, np.zeros(32, np.uint8), tiling_bytes, key)
        return {"y": y}
    return run


def expected(device, inputs):
    return {"y": np.ascontiguousarray(np.diagonal(inputs["x"]))}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/diag_part/op_kernel/diag_part.h"
_RULE = "a square number of elements (a side of at least 1)"


def _square(n):
    side = int(round(n ** 0.5))
    return n > 0 and side * side == n


KERNELS = [
    KernelSpec("diag_part", "DiagPart of a float matrix: per 8-element sub-block a strided DataCopyPad of the 8 x 8 "
               "square, ArithProgression of int32 byte offsets, Gather of the diagonal, DataCopyPad out",
               _make_inputs("float"), _run("float"), expected, default_size=203 * 203, devices=DEVICES,
               size_rule=_RULE, size_ok=_square, source=_SOURCE),
    KernelSpec("diag_part_half", "DiagPart of a half matrix (16 x 16 sub-blocks)", _make_inputs("half"),
               _run("half"), expected, default_size=100 * 100, devices=DEVICES, size_rule=_RULE, size_ok=_square,
               source=_SOURCE),
    KernelSpec("diag_part_int32", "DiagPart of an int32 matrix", _make_inputs("int32"), _run("int32"), expected,
               default_size=37 * 37, devices=DEVICES, size_rule=_RULE, size_ok=_square, source=_SOURCE),
]
