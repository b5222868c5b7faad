"""PopulationCount from the CANN math operators, the Ascend 950 (arch35) kernel: y[i] = the number of set bits of the
16-bit x[i] (int16 or uint16), as uint8.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c4193324, math/population_count/op_kernel/population_count_apt.cpp (the entry:
REGISTER_TILING_DEFAULT, GET_TILING_DATA_WITH_STRUCT(PopulationCountTilingData), nothing for an empty input,
`PopulationCount<DTYPE_X, BUFFER_MODE>`), op_kernel/arch35/population_count.h (blockFactor elements a core, the last
core what is left, a core past the input none; VECIN and VECOUT queues of ubFactor elements, one buffer each or two
(BUFFER_MODE), a uint16 TBuf for the intermediate; per tile DataCopyPad in with DataCopyParams and `{false, 0, 0, 0}`,
the compute, DataCopyPad out; the compute: the int16 tile ReinterpretCast to uint16 (logical shifts), then the 16-bit
SWAR count as count-form ShiftRight / Ands / Sub / Add in place on the input tile, Ands 0x00FF, and
Cast uint16 -> uint8 CAST_NONE into the output tile), op_kernel/arch35/population_count_tiling_data.h and
op_host/arch35/population_count_tiling_arch35.cpp (blockFactor = the per-core share rounded up to GetUbBlockSize()
= 32 elements; double buffering past 1024 elements; ubFactor = the UB over 5 or 8 bytes an element (input, output
and intermediate, one or two buffers), rounded down to 32 elements).

Ands (the 950's tensor-scalar And, devkit M/逻辑计算/Ands.md) is an instruction of its own here: before it, the port
could not be written (docs/decisions.md "Ands, Ors").

The original's mask 0x00FF before the Cast is what makes the result right: the 950's Cast uint16 -> uint8 CAST_NONE
saturates (SPEC-2 12.3: 65535 -> 255), and after the fourth SWAR step the high byte still holds the high byte's own
count. `popcount_without_the_mask` (tests/test_population_count.py) shows every count of a value whose high byte is
not 0 becoming 255 without it, as the original's comment says the hardware did.

Deviation: the core count is the launch's 8 (GetCoreNumAiv in the original).

Fidelity: BIT-EXACT (ShiftRight, Ands, Sub, Add, Cast: integer instructions, SPEC-2 0.3). The expectation is numpy's
bit count of the uint16 view.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                         # deviation: the launch's cores (GetCoreNumAiv in the original)
UB_BLOCK_SIZE = 32                   # GetUbBlockSize(): used by the tiling as an element count
MIN_SPLIT_THRESHOLD = 1024
UB_BYTES_PER_ELEM_SINGLE = 5         # 2 (input) + 1 (output) + 2 (intermediate)
UB_BYTES_PER_ELEM_DOUBLE = 8         # 2 x 2 (input) + 2 x 1 (output) + 2 (intermediate)
_NP = {"int16": np.int16, "uint16": np.uint16}

PopulationCountTilingData = np.dtype([("totalNum", np.int64), ("blockFactor", np.int64), ("ubFactor", np.int64)])


def tiling(device, total):
    """PopulationCountTilingFunc: (block dim, BUFFER_MODE, the packed PopulationCountTilingData)."""
    t = np.zeros(1, PopulationCountTilingData)
    if total == 0:
        return 1, 0, t.view(np.uint8).copy()
    t["totalNum"] = total
    block_factor = aj.AlignUp(-(-total // CORE_NUM), UB_BLOCK_SIZE)
    used_core_num = -(-total // max(block_factor, 1))
    double = 1 if total > MIN_SPLIT_THRESHOLD else 0
    per_elem = UB_BYTES_PER_ELEM_DOUBLE if double else UB_BYTES_PER_ELEM_SINGLE
    t["blockFactor"] = block_factor
    t["ubFactor"] = aj.get_device(device).ub_bytes // per_elem // UB_BLOCK_SIZE * UB_BLOCK_SIZE
    return max(used_core_num, 1), double, t.view(np.uint8).copy()


class PopulationCount:
    def __init__(self, T, BUFFER_MODE):
        self.T = T
        self.BUFFER_NUM = 2 if BUFFER_MODE else 1

    def Init(self, x, y, tilingData):
        blockIdx = aj.GetBlockIdx()
        remainderLength = int(tilingData.totalNum) - int(tilingData.blockFactor) * blockIdx
        self.blockLength_ = max(min(remainderLength, int(tilingData.blockFactor)), 0)
        self.ubLength_ = int(tilingData.ubFactor)
        start = int(tilingData.blockFactor) * blockIdx
        self.inputGMX, self.outputGMY = aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGMX.SetGlobalBuffer(x[start:], self.blockLength_)
        self.outputGMY.SetGlobalBuffer(y[start:], self.blockLength_)
        self.pipe = aj.TPipe()
        self.inputQueueX = aj.TQue(aj.QuePosition.VECIN, self.BUFFER_NUM)
        self.outputQueueY = aj.TQue(aj.QuePosition.VECOUT, self.BUFFER_NUM)
        self.tmpBuf = aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.inputQueueX, self.BUFFER_NUM, self.ubLength_ * 2)
        self.pipe.InitBuffer(self.outputQueueY, self.BUFFER_NUM, self.ubLength_)
        self.pipe.InitBuffer(self.tmpBuf, self.ubLength_ * 2)      # the SWAR intermediate, as uint16

    def CopyIn(self, progress, currentNum):
        xLocal = self.inputQueueX.AllocTensor(self.T)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * 2
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(xLocal, self.inputGMX[progress * self.ubLength_], copyParams, (False, 0, 0, 0))
        self.inputQueueX.EnQue(xLocal)

    def CopyOut(self, progress, currentNum):
        yLocal = self.outputQueueY.DeQue("uint8")
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(self.outputGMY[progress * self.ubLength_], yLocal, copyParams)
        self.outputQueueY.FreeTensor(yLocal)

    def Compute(self, currentNum):
        xLocal = self.inputQueueX.DeQue(self.T)
        yLocal = self.outputQueueY.AllocTensor("uint8")
        tmp = self.tmpBuf.Get("uint16")
        # int16 read as uint16, so that every right shift is logical
        u = xLocal.ReinterpretCast("uint16") if aj.IsSameType(self.T, "int16") else xLocal
        count = currentNum
        # step 1: u = u - ((u >> 1) & 0x5555)
        aj.ShiftRight(tmp, u, np.uint16(1), count)
        aj.Ands(tmp, tmp, np.uint16(0x5555), count)
        aj.Sub(u, u, tmp, count)
        # step 2: u = (u & 0x3333) + ((u >> 2) & 0x3333)
        aj.ShiftRight(tmp, u, np.uint16(2), count)
        aj.Ands(tmp, tmp, np.uint16(0x3333), count)
        aj.Ands(u, u, np.uint16(0x3333), count)
        aj.Add(u, u, tmp, count)
        # step 3: u = (u + (u >> 4)) & 0x0F0F
        aj.ShiftRight(tmp, u, np.uint16(4), count)
        aj.Add(u, u, tmp, count)
        aj.Ands(u, u, np.uint16(0x0F0F), count)
        # step 4: u = u + (u >> 8): the low byte holds the count (0..16), the high byte its own count
        aj.ShiftRight(tmp, u, np.uint16(8), count)
        aj.Add(u, u, tmp, count)
        # the high byte cleared: Cast uint16 -> uint8 saturates (module docstring)
        aj.Ands(u, u, np.uint16(0x00FF), count)
        aj.Cast(yLocal, u, aj.RoundMode.CAST_NONE, count)
        self.outputQueueY.EnQue("uint8", yLocal)
        self.inputQueueX.FreeTensor(xLocal)

    def Process(self):
        if self.blockLength_ <= 0 or self.ubLength_ <= 0:
            return
        loopCount = -(-self.blockLength_ // self.ubLength_)
        for i in range(loopCount):
            currentNum = self.blockLength_ - self.ubLength_ * i if i == loopCount - 1 else self.ubLength_
            self.CopyIn(i, currentNum)
            self.Compute(currentNum)
            self.CopyOut(i, currentNum)


aj.REGISTER_TILING_DEFAULT(PopulationCountTilingData)


def population_count(x, y, workspace, tiling_bytes, DTYPE_X, BUFFER_MODE):
    """The kernel entry; DTYPE_X and BUFFER_MODE are the build's type and the tiling key's template argument."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(PopulationCountTilingData, tiling_bytes)
    if tilingData.totalNum == 0:
        return
    op = PopulationCount(DTYPE_X, BUFFER_MODE)
    op.Init(x, y, tilingData)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        info = np.iinfo(_NP[dtype])
        x = np.random.default_rng(seed).integers(info.min, info.max, size, dtype=_NP[dtype], endpoint=True)
        specials = np.array([0, -1, info.min, info.max, 0x00FF, 0x0100, 0x5555, 0x7FFF], np.int64).astype(_NP[dtype])
        x[:min(size, specials.size)] = specials[:size]
        return {"x": x}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        y = np.zeros(x.size, np.uint8)
        block_dim, buffer_mode, tiling_bytes = tiling(device, x.size)
        workspace = np.zeros(32, np.uint8)             # the tiling asks for none
        aj.launch(population_count, block_dim, device, x, y, workspace, tiling_bytes, dtype, buffer_mode)
        return {"y": y}
    return run


def expected(device, inputs):
    bits = np.unpackbits(inputs["x"].view(np.uint8).reshape(-1, 2), axis=1)
    return {"y": bits.sum(axis=1).astype(np.uint8)}


def _size_ok(n):
    return 0 < n <= 1 << 24


_SOURCE = "hicann/ops-math@c4193324 math/population_count/op_kernel/arch35/population_count.h"
KERNELS = [
    KernelSpec("population_count", "PopulationCount over int16, 950: ReinterpretCast to uint16, SWAR count by "
               "count-form ShiftRight / Ands / Sub / Add, Ands 0x00FF, Cast uint16 -> uint8 CAST_NONE; 32-element "
               "core blocks, double-buffered DataCopyPad tiles past 1024 elements", _make_inputs("int16"),
               _run("int16"), expected, default_size=100000, devices=("ascend950",),
               size_rule="1 to 16Mi elements", size_ok=_size_ok, source=_SOURCE),
    KernelSpec("population_count_uint16", "PopulationCount over uint16 (one buffer a queue at 1024 elements or "
               "fewer)", _make_inputs("uint16"), _run("uint16"), expected, default_size=1000,
               devices=("ascend950",), size_rule="1 to 16Mi elements", size_ok=_size_ok, source=_SOURCE),
]
