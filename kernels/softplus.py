"""Softplus from the CANN NN operators: y = ln(1 + e^x), computed without overflow as
max(x, 0) + ln(1 + e^-max(x, 0)) + ln(1 + e^min(x, 0)) - ln 2, element by element over float, half and bfloat16
(16-bit types computed in float).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/activation/softplus/op_kernel/softplus.h
(`NsSoftplus::KernelSoftplus<TYPE_X>`: depth-2 VECIN / VECOUT queues given 1 or 2 buffers by the tiling's
`bufferOpen`, big and small cores, tiles by DataCopy, the last tile of a core shorter; float: Maxs 0 into a TBuf
tile, Muls -1, Exp, Adds 1, Ln, Add the max, Mins 0 into the TBuf tile, Exp, Adds 1, Ln, Add, Adds -ln 2 (the
constant MAGIC_NUM), each through the output tile; half and bfloat16: Cast CAST_NONE into a first float TBuf, the
same chain over three float TBufs taken with TBuf::AllocTensor, Cast CAST_RINT into the output tile) and softplus.cpp
(REGISTER_TILING_DEFAULT, GET_TILING_DATA_WITH_STRUCT of SoftplusTilingData), with the host tiling of
experimental/activation/softplus/op_host/softplus_tiling.cpp (`SoftplusTilingFunc`: bufferOpen 0 when the input
rounded up to 32-byte blocks is below coreNum x UB / 3 (float) or coreNum x UB / 8 (16-bit); the UB split in
ubDataNumber parts of whole blocks; one core when one tile holds the input, else at most one core a block; the
big/small-core split block by block). Transcribed as written, the float branch's ubDataNumber is overwritten by the
16-bit test's else branch, so float tiles are always UB / 10 (the queues and the one TBuf take half the UB).

No vector PipeBarrier between the chain's steps, as in the original (the vector pipe runs in order).

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's). The host pads GM to 32
bytes, as device allocations are (each core copies whole blocks).

Devices: Maxs and Mins (SPEC-2 1.9) and the tiling macros (their pages' product lists) are not offered on the 910,
so `softplus` runs on the 950, A3, A2, 310B and 310P; the 16-bit kinds need Cast float -> half/bfloat16 CAST_RINT and bfloat16 -> float (SPEC-2 7.2): the 950, A3,
A2 and 310B.

Fidelity: MODELLED (Exp and Ln are MODELLED, SPEC-2 0.3). The expectation is the float64 formula
log1p(exp(-|x|)) + max(x, 0) on inputs in [-8, 8]. The float chain rounds about ln 2 and subtracts ln 2 at the end,
so for negative x its absolute error is a few float ulps of ln 2 (about 2e-7), which relative to the smallest output
(3.4e-4 at x = -8) allows 1e-3; half and bfloat16 add one rounding to the output type (2**-11 and 2**-8 relative):
2e-3 and 8e-3. The emulator's Exp and Ln are the correctly rounded model, and on these inputs every output equals
the chain staged through ascend_jit.reference.elementwise (each instruction rounded once) bit for bit on the 950, A2
and 310B.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

SINGLE_BUFFER_NUM = 1
DOUBLE_BUFFER_NUM = 2
MAGIC_NUM = np.float32(-0.69314718055994530941723212145818)   # -ln 2 as a float literal
UB_NUM_BF16_F16_ONE, UB_NUM_F32_ONE = 8, 3        # single buffer
UB_NUM_BF16_F16_TWO, UB_NUM_F32_TWO = 10, 5       # double buffer
BLOCK_SIZE = 32
CORE_NUM = 8
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")
CAST_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}

SoftplusTilingData = np.dtype([(name, np.uint64) for name in (
    "smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum", "tileDataNum", "smallTailDataNum",
    "bigTailDataNum", "tailBlockNum", "bufferOpen")], align=True)


def tiling(device, total, dtype):
    """SoftplusTilingFunc: (block dim, the packed SoftplusTilingData)."""
    ub_size, core_num = aj.get_device(device).ub_bytes, CORE_NUM
    input_bytes = TYPE_SIZE[dtype]
    input_length_align = -(-total * input_bytes // BLOCK_SIZE) * BLOCK_SIZE
    buffer_open = 1
    if dtype == "float" and input_length_align < core_num * (ub_size // BLOCK_SIZE * BLOCK_SIZE // UB_NUM_F32_ONE):
        buffer_open, ub_data_number = 0, UB_NUM_F32_ONE
    else:
        ub_data_number = UB_NUM_F32_TWO
    if dtype != "float" and input_length_align < core_num * (ub_size // BLOCK_SIZE * BLOCK_SIZE
                                                              // UB_NUM_BF16_F16_ONE):
        buffer_open, ub_data_number = 0, UB_NUM_BF16_F16_ONE
    else:
        ub_data_number = UB_NUM_BF16_F16_TWO      # also for float: the original's second test overwrites the first
    tile_block_num = ub_size // BLOCK_SIZE // ub_data_number
    tile_data_num = tile_block_num * BLOCK_SIZE // input_bytes
    if tile_data_num >= total:
        core_num = 1
    else:
        core_num = min(core_num, input_length_align // BLOCK_SIZE)
    every = input_length_align // BLOCK_SIZE // core_num
    tail_block_num = input_length_align // BLOCK_SIZE % core_num
    small_data = every * BLOCK_SIZE // input_bytes
    small_tiles = every // tile_block_num
    final_small = small_tiles + (every % tile_block_num != 0)
    small_tail = small_data - tile_data_num * small_tiles or tile_data_num
    every += 1
    big_data = every * BLOCK_SIZE // input_bytes
    big_tiles = every // tile_block_num
    final_big = big_tiles + (every % tile_block_num != 0)
    big_tail = big_data - tile_data_num * big_tiles or tile_data_num
    t = np.zeros(1, SoftplusTilingData)
    for name, value in (("smallCoreDataNum", small_data), ("bigCoreDataNum", big_data),
                        ("finalBigTileNum", final_big), ("finalSmallTileNum", final_small),
                        ("tileDataNum", tile_data_num), ("smallTailDataNum", small_tail),
                        ("bigTailDataNum", big_tail), ("tailBlockNum", tail_block_num), ("bufferOpen", buffer_open)):
        t[name] = value
    return core_num, t.view(np.uint8).copy()


class KernelSoftplus:
    def __init__(self, TYPE_X):
        self.TYPE_X = TYPE_X

    def Init(self, x, y, smallCoreDataNum, bigCoreDataNum, finalBigTileNum, finalSmallTileNum, tileDataNum,
             smallTailDataNum, bigTailDataNum, tailBlockNum, bufferOpen):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        coreId = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * coreId
        self.tileDataNum = int(tileDataNum)
        BUFFER_NUM = SINGLE_BUFFER_NUM if bufferOpen == 0 else DOUBLE_BUFFER_NUM
        if coreId < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, finalBigTileNum, bigTailDataNum
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, finalSmallTileNum, smallTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (coreId - tailBlockNum)
        self.coreDataNum, self.tileNum, self.tailDataNum = int(self.coreDataNum), int(self.tileNum), \
            int(self.tailDataNum)
        globalBufferIndex = int(globalBufferIndex)
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.TPosition.VECIN, DOUBLE_BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.TPosition.VECOUT, DOUBLE_BUFFER_NUM)
        self.tmpQueue0, self.tmpQueue1, self.tmpQueue2 = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(3))
        size = TYPE_SIZE[self.TYPE_X]
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * size)
        if aj.IsSameType(self.TYPE_X, "float"):
            self.pipe.InitBuffer(self.tmpQueue0, self.tileDataNum * 4)
        else:
            self.pipe.InitBuffer(self.tmpQueue0, self.tileDataNum * 4)
            self.pipe.InitBuffer(self.tmpQueue1, self.tileDataNum * 4)
            self.pipe.InitBuffer(self.tmpQueue2, self.tileDataNum * 4)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.TYPE_X)
        aj.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.TYPE_X)
        aj.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)

    def Compute(self, progress):
        n = self.processDataNum
        zero, one, minus_one = np.float32(0.0), np.float32(1.0), np.float32(-1.0)
        if aj.IsSameType(self.TYPE_X, "float"):
            xLocal = self.inQueueX.DeQue("float")
            yLocal = self.outQueueY.AllocTensor("float")
            tmp0Local = self.tmpQueue0.AllocTensor("float")
            aj.Maxs(tmp0Local, xLocal, zero, n)
            aj.Muls(yLocal, tmp0Local, minus_one, n)
            aj.Exp(yLocal, yLocal, n)
            aj.Adds(yLocal, yLocal, one, n)
            aj.Ln(yLocal, yLocal, n)
            aj.Add(yLocal, yLocal, tmp0Local, n)
            aj.Mins(tmp0Local, xLocal, zero, n)
            aj.Exp(tmp0Local, tmp0Local, n)
            aj.Adds(tmp0Local, tmp0Local, one, n)
            aj.Ln(tmp0Local, tmp0Local, n)
            aj.Add(yLocal, yLocal, tmp0Local, n)
            aj.Adds(yLocal, yLocal, MAGIC_NUM, n)
            self.outQueueY.EnQue("float", yLocal)
            self.inQueueX.FreeTensor(xLocal)
        else:
            xLocal = self.inQueueX.DeQue(self.TYPE_X)
            yLocal = self.outQueueY.AllocTensor(self.TYPE_X)
            tmp0Local = self.tmpQueue0.AllocTensor("float")
            tmp1Local = self.tmpQueue1.AllocTensor("float")
            tmp2Local = self.tmpQueue2.AllocTensor("float")
            aj.Cast(tmp1Local, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.Maxs(tmp0Local, tmp1Local, zero, n)
            aj.Muls(tmp2Local, tmp0Local, minus_one, n)
            aj.Exp(tmp2Local, tmp2Local, n)
            aj.Adds(tmp2Local, tmp2Local, one, n)
            aj.Ln(tmp2Local, tmp2Local, n)
            aj.Add(tmp2Local, tmp2Local, tmp0Local, n)
            aj.Mins(tmp0Local, tmp1Local, zero, n)
            aj.Exp(tmp0Local, tmp0Local, n)
            aj.Adds(tmp0Local, tmp0Local, one, n)
            aj.Ln(tmp0Local, tmp0Local, n)
            aj.Add(tmp2Local, tmp2Local, tmp0Local, n)
            aj.Adds(tmp2Local, tmp2Local, MAGIC_NUM, n)
            aj.Cast(yLocal, tmp2Local, aj.RoundMode.CAST_RINT, n)
            self.outQueueY.EnQue(self.TYPE_X, yLocal)
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


aj.REGISTER_TILING_DEFAULT(SoftplusTilingData)


def softplus(x, y, workspace, tiling, DTYPE_X):
    """The kernel entry (schMode unused); DTYPE_X is the build's type, a macro in C++."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(SoftplusTilingData, tiling)
    op = KernelSoftplus(DTYPE_X)
    op.Init(x, y, tilingData.smallCoreDataNum, tilingData.bigCoreDataNum, tilingData.finalBigTileNum,
            tilingData.finalSmallTileNum, tilingData.tileDataNum, tilingData.smallTailDataNum,
            tilingData.bigTailDataNum, tilingData.tailBlockNum, tilingData.bufferOpen)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-8, 8, size).astype(np.float32)
        x[:min(size, 4)] = np.array([0.0, -0.0, 8.0, -8.0], np.float32)[:size]
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
        aj.launch(softplus, block_dim, device, gm_x, gm_y, workspace, tiling_bytes, dtype)
        return {"y": gm_y[:x.size]}
    return run


def expected(device, inputs):
    x = inputs["x"].astype(np.float64)
    return {"y": np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0.0)}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/softplus/op_kernel/softplus.h"
KERNELS = [
    KernelSpec("softplus", "Softplus over floats: Maxs/Mins 0, Muls -1, Exp, Adds 1, Ln, Add, Adds -ln 2; depth-2 "
               "queues given 1 or 2 buffers by the tiling, TBuf::AllocTensor, big/small cores",
               _make_inputs("float"), _run("float"), expected, default_size=30000, devices=DEVICES,
               tolerance=1e-3, source=_SOURCE),
    KernelSpec("softplus_half", "Softplus over halves computed in float through three TBufs (Cast CAST_NONE in, "
               "CAST_RINT out)", _make_inputs("half"), _run("half"), expected, default_size=30000,
               devices=CAST_DEVICES, tolerance=2e-3, source=_SOURCE),
    KernelSpec("softplus_bf16", "Softplus over bfloat16 computed in float (single-buffered UB / 8 tiles below "
               "8 x UB / 8 bytes of input, double-buffered UB / 10 tiles above)", _make_inputs("bfloat16"), _run("bfloat16"), expected,
               default_size=30000, devices=CAST_DEVICES, tolerance=8e-3, source=_SOURCE),
]
