"""Mish from the CANN NN operators: y = x * tanh(ln(1 + e^x)), element by element over float (computed in float) and
half and bfloat16 (computed in float), by two overflow-safe branches picked per element with a compare mask:
x > 0: (1 + 2e^-x) / (1 + 2e^-x + 2e^-2x); x <= 0: (2e^x + e^2x) / (2e^x + e^2x + 2); then times x.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/activation/mish/op_kernel/mish.h
(`MyMish::KernelMish<TYPE_X, TYPE_Y>`, the default build (no SUPER_PERFORMANCE): depth-2 VECIN / VECOUT queues,
big and small cores, tiles by DataCopy, the last tile of a core shorter; ComputeHighPerf (float) and ComputeHighPerf16
(half, bfloat16: Cast CAST_NONE into a float TBuf first, Cast CAST_RINT out at the end): CompareScalar GT 0 into a
uint8 TBuf over the count rounded up to 64 (COMPARE_ALIGN), Muls -1 / Exp / Muls 2 / Adds 1, Muls -2 / Exp / Muls 2,
Add, Div (the x > 0 branch), Muls 2 / Exp, Exp / Muls 2, Add, Adds 2, Div (the x <= 0 branch),
Select VSEL_TENSOR_TENSOR_MODE, Mul by x, with PipeBarrier<PIPE_V> between the steps as the original places them
(none between the Select and the Mul)) and mish.cpp (REGISTER_TILING_DEFAULT, GET_TILING_DATA_WITH_STRUCT of
MishTilingData), with the host tiling of experimental/activation/mish/op_host/mish_tiling.cpp (`MishTilingFunc`: the
UB split in 12 (float) or 14 parts of whole blocks, rounded down to 16 blocks; one core per 1024 elements, at most
coreNum; the big/small-core split block by block).

Deviations: the core count is the launch's 8 (GetCoreNum would give the device's). The host pads GM to 32 bytes, as
device allocations are (each core copies whole blocks). At a short tile only: the CompareScalar runs over the count
rounded up to 64 floats, so lanes past the copied (or Cast) elements are compared: bytes nothing wrote at the
buffer's first use (their mask bits are never selected, the Select stops at the count). The port Duplicates zeroes
over those lanes before the compare; the results are the original's. (The sanitizer reported the original's read
until session 61; it now follows the compared lanes to their bits, which nothing reads here: docs/decisions.md
"Sanitizer".)

Devices: CompareScalar on float is not offered on the 910 (SPEC-2 9.4), nor are the tiling macros, so `mish` runs on
the 950, A3, A2, 310B and 310P; the 16-bit kinds need Cast float -> half/bfloat16 CAST_RINT and bfloat16 -> float
(SPEC-2 7.2): the 950, A3, A2 and 310B.

Fidelity: MODELLED (Exp and Div are MODELLED, SPEC-2 0.3). The expectation is the float64 formula
x * tanh(log1p(exp(x))) on inputs in [-10, 10]: the float branches are a few float roundings each (no cancellation:
every term is positive), 2e-6 relative; half and bfloat16 add one rounding to the output type: 1e-3 and 8e-3.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
COMPARE_ALIGN = 64
BLOCK_SIZE = 32
OPT_CORE_SIZE = 1024
BLOCK_ALIGN_NUM = 16
UB_DATA_NUM_FLOAT, UB_DATA_NUM_OTHER = 12, 14
CORE_NUM = 8
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")
CAST_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}

MishTilingData = np.dtype([(name, np.uint64) for name in (
    "smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum", "tileDataNum", "smallTailDataNum",
    "bigTailDataNum", "tailBlockNum")], align=True)


def tiling(device, total, dtype):
    """MishTilingFunc: (block dim, the packed MishTilingData)."""
    ub_size, core_num = aj.get_device(device).ub_bytes, CORE_NUM
    input_bytes = TYPE_SIZE[dtype]
    ub_data_number = UB_DATA_NUM_FLOAT if dtype == "float" else UB_DATA_NUM_OTHER
    tile_block_num = ub_size // BLOCK_SIZE // ub_data_number
    if tile_block_num > BLOCK_ALIGN_NUM:
        tile_block_num = tile_block_num // BLOCK_ALIGN_NUM * BLOCK_ALIGN_NUM
    tile_data_num = tile_block_num * BLOCK_SIZE // input_bytes
    input_length_align = -(-total * input_bytes // BLOCK_SIZE) * BLOCK_SIZE
    if OPT_CORE_SIZE >= total:
        used = 1
    else:
        used = min(core_num, total // OPT_CORE_SIZE)
        if total % OPT_CORE_SIZE and used < core_num:
            used += 1
    every = input_length_align // BLOCK_SIZE // used
    tail_block_num = input_length_align // BLOCK_SIZE % used
    small_data = every * BLOCK_SIZE // input_bytes
    small_tiles = every // tile_block_num
    final_small = small_tiles + (every % tile_block_num != 0)
    small_tail = small_data - tile_data_num * small_tiles or tile_data_num
    every += 1
    big_data = every * BLOCK_SIZE // input_bytes
    big_tiles = every // tile_block_num
    final_big = big_tiles + (every % tile_block_num != 0)
    big_tail = big_data - tile_data_num * big_tiles or tile_data_num
    t = np.zeros(1, MishTilingData)
    for name, value in (("smallCoreDataNum", small_data), ("bigCoreDataNum", big_data),
                        ("finalBigTileNum", final_big), ("finalSmallTileNum", final_small),
                        ("tileDataNum", tile_data_num), ("smallTailDataNum", small_tail),
                        ("bigTailDataNum", big_tail), ("tailBlockNum", tail_block_num)):
        t[name] = value
    return used, t.view(np.uint8).copy()


class KernelMish:
    def __init__(self, TYPE_X, TYPE_Y):
        self.TYPE_X, self.TYPE_Y = TYPE_X, TYPE_Y

    def Init(self, x, y, tilingData):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        coreId = aj.GetBlockIdx()
        globalBufferIndex = int(tilingData.bigCoreDataNum) * coreId
        self.tileDataNum = int(tilingData.tileDataNum)
        if coreId < tilingData.tailBlockNum:
            self.coreDataNum = int(tilingData.bigCoreDataNum)
            self.tileNum = int(tilingData.finalBigTileNum)
            self.tailDataNum = int(tilingData.bigTailDataNum)
        else:
            self.coreDataNum = int(tilingData.smallCoreDataNum)
            self.tileNum = int(tilingData.finalSmallTileNum)
            self.tailDataNum = int(tilingData.smallTailDataNum)
            globalBufferIndex -= (int(tilingData.bigCoreDataNum) - int(tilingData.smallCoreDataNum)) * \
                (coreId - int(tilingData.tailBlockNum))
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.tmpBuffer1, self.tmpBuffer2, self.tmpBuffer3 = (aj.TBuf(aj.QuePosition.VECCALC) for _ in range(3))
        self.QueueTmpX, self.QueueTmpY = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum * TYPE_SIZE[self.TYPE_X])
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * TYPE_SIZE[self.TYPE_Y])
        self.pipe.InitBuffer(self.tmpBuffer1, self.tileDataNum * 4)
        self.pipe.InitBuffer(self.tmpBuffer2, self.tileDataNum * 4)
        self.pipe.InitBuffer(self.tmpBuffer3, self.tileDataNum * 1)
        self.pipe.InitBuffer(self.QueueTmpX, self.tileDataNum * 4)
        self.pipe.InitBuffer(self.QueueTmpY, self.tileDataNum * 4)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.TYPE_X)
        if aj.IsSameType(self.TYPE_X, "float"):
            self.ZeroComparePadding(xLocal)
        aj.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def ZeroComparePadding(self, floatTile):
        """Deviation (module docstring): zeroes over the lanes the rounded-up CompareScalar reads past the count."""
        compareLength = -(-self.processDataNum // COMPARE_ALIGN) * COMPARE_ALIGN
        if compareLength > self.processDataNum:
            aj.Duplicate(floatTile[self.processDataNum], np.float32(0.0), compareLength - self.processDataNum)
            aj.PipeBarrier(aj.PIPE_ALL)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.TYPE_Y)
        aj.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)

    def ComputeHighPerf16(self, xLocal, yLocal):
        n = self.processDataNum
        xLocalfp32, yLocalfp32 = self.QueueTmpX.Get("float"), self.QueueTmpY.Get("float")
        tmp1Local, tmp2Local = self.tmpBuffer1.Get("float"), self.tmpBuffer2.Get("float")
        cmp1 = self.tmpBuffer3.Get("uint8")
        self.ZeroComparePadding(xLocalfp32)
        aj.Cast(xLocalfp32, xLocal, aj.RoundMode.CAST_NONE, n)
        aj.PipeBarrier(aj.PIPE_V)
        self.Branches(xLocalfp32, yLocalfp32, tmp1Local, tmp2Local, cmp1, np.float32)
        aj.Cast(yLocal, yLocalfp32, aj.RoundMode.CAST_RINT, n)
        aj.PipeBarrier(aj.PIPE_V)

    def ComputeHighPerf(self, xLocal, yLocal):
        tmp1Local, tmp2Local = self.tmpBuffer1.Get(self.TYPE_X), self.tmpBuffer2.Get(self.TYPE_X)
        cmp1 = self.tmpBuffer3.Get("uint8")
        self.Branches(xLocal, yLocal, tmp1Local, tmp2Local, cmp1, _NP[self.TYPE_X])

    def Branches(self, x, y, tmp1, tmp2, cmp1, T):
        """The instruction sequence both Compute variants share (ComputeHighPerf16 on its float copies)."""
        n = self.processDataNum
        comparelength = (n + COMPARE_ALIGN - 1) // COMPARE_ALIGN * COMPARE_ALIGN
        aj.CompareScalar(cmp1, x, T(0), aj.CMPMODE.GT, comparelength)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(tmp1, x, T(-1), n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Exp(tmp1, tmp1, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(tmp1, tmp1, T(2), n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Adds(tmp1, tmp1, T(1), n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(tmp2, x, T(-2), n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Exp(tmp2, tmp2, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(tmp2, tmp2, T(2), n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Add(tmp2, tmp1, tmp2, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Div(tmp1, tmp1, tmp2, n)              # the x > 0 branch
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(tmp2, x, T(2), n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Exp(tmp2, tmp2, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Exp(y, x, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(y, y, T(2), n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Add(y, y, tmp2, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Adds(tmp2, y, T(2), n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Div(y, y, tmp2, n)                    # the x <= 0 branch
        aj.PipeBarrier(aj.PIPE_V)
        aj.Select(y, cmp1, tmp1, y, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
        aj.Mul(y, y, x, n)
        aj.PipeBarrier(aj.PIPE_V)

    def Compute(self, progress):
        xLocal = self.inQueueX.DeQue(self.TYPE_X)
        yLocal = self.outQueueY.AllocTensor(self.TYPE_Y)
        if aj.IsSameType(self.TYPE_X, "bfloat16") or aj.IsSameType(self.TYPE_X, "half"):
            self.ComputeHighPerf16(xLocal, yLocal)
        elif aj.IsSameType(self.TYPE_X, "float"):
            self.ComputeHighPerf(xLocal, yLocal)
        self.outQueueY.EnQue(self.TYPE_Y, yLocal)
        self.inQueueX.FreeTensor(xLocal)

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


aj.REGISTER_TILING_DEFAULT(MishTilingData)


def mish(x, y, workspace, tiling, DTYPE_X):
    """The kernel entry; DTYPE_X (= DTYPE_Y) is the build's type, a macro in C++."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(MishTilingData, tiling)
    op = KernelMish(DTYPE_X, DTYPE_X)
    op.Init(x, y, tilingData)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-10, 10, size).astype(np.float32)
        x[:min(size, 4)] = np.array([0.0, -0.0, 10.0, -10.0], np.float32)[:size]
        return {"x": x.astype(_NP[dtype])}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        padded = -(-x.size * x.itemsize // BLOCK_SIZE) * BLOCK_SIZE // x.itemsize
        gm_x, gm_y = np.zeros(padded, x.dtype), np.zeros(padded, x.dtype)
        gm_x[:x.size] = x
        block_dim, tiling_bytes = tiling(device, x.size, dtype)
        workspace = np.zeros(BLOCK_SIZE, np.uint8)      # the tiling asks for the library's system workspace only
        aj.launch(mish, block_dim, device, gm_x, gm_y, workspace, tiling_bytes, dtype)
        return {"y": gm_y[:x.size]}
    return run


def expected(device, inputs):
    x = inputs["x"].astype(np.float64)
    return {"y": x * np.tanh(np.log1p(np.exp(x)))}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/mish/op_kernel/mish.h"
KERNELS = [
    KernelSpec("mish", "Mish over floats: CompareScalar GT 0 over the count rounded to 64, two Exp/Div branches, "
               "Select VSEL_TENSOR_TENSOR_MODE, Mul by x; big/small cores of 1024-element shares",
               _make_inputs("float"), _run("float"), expected, default_size=30000, devices=DEVICES,
               tolerance=2e-6, source=_SOURCE),
    KernelSpec("mish_half", "Mish over halves computed in float (Cast CAST_NONE in, CAST_RINT out)",
               _make_inputs("half"), _run("half"), expected, default_size=30000, devices=CAST_DEVICES,
               tolerance=1e-3, source=_SOURCE),
    KernelSpec("mish_bf16", "Mish over bfloat16 computed in float (Cast CAST_NONE in, CAST_RINT out)",
               _make_inputs("bfloat16"), _run("bfloat16"), expected, default_size=30000, devices=CAST_DEVICES,
               tolerance=8e-3, source=_SOURCE),
]
