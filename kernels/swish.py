"""Swish from a CANN operator collection: y = x / (1 + exp(-scale * x)), big and small cores, double-buffered tiles
that fill the UB, the last tile of each core short; half computed in float through two VECCALC buffers.

Ported (structure and instruction sequence; written in our own words) from
Hayden727/cann-ops @ fd1e257cee42a8ba666e864860cbe5f37100a2a3, src/math/swish/op_kernel/swish.cpp (`KernelSwish`:
float: Muls by -scale, Exp, Adds 1, Div x by it; half: Cast to float with CAST_NONE, the same four steps in float,
Cast back with CAST_ROUND) with the host tiling of src/math/swish/op_host/swish.cpp (`TilingFunc`: tiles of UB / 32 /
BUFFER_NUM / (2 for float, 4 for half) blocks, so the queues and the half variant's float buffers fill the UB; the
big/small-core split of ascend_jit.kernels._base.big_small_core_tiling; one core when one tile holds the input).

Deviation: the core count is the launch's 8 (GetCoreNum would give the device's count); the scale attribute is
fixed at the port's 1.0 (the operator's default; any value takes the same path). The host side pads GM to 32
bytes, as device allocations are.

Devices: `swish` runs on every device; `swish_half` needs Cast float -> half CAST_ROUND, which the 310P and 910
do not offer (SPEC-2 7.2): the 950, A3, A2 and 310B.

Fidelity: MODELLED (Exp and Div are MODELLED, SPEC-2 0.3). Checked against the float64 formula for inputs in
[-12, 12] (exp stays far from float overflow): float: Exp's modelled error and the Adds and Div roundings, each
amplified at most by the formula's condition (below 1 + |x| <= 13 where the output is small, x < 0), stay below
4e-6 relative; half: the input widens exactly, the float steps add under 4e-6 and CAST_ROUND one half rounding
(2**-11 relative, plus the tiniest subnormal near 0): 1e-3.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8
SCALE = 1.0
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore", "atlas-training")


def tiling(device, total, dtype):
    """TilingFunc: (block_dim, tiling data)."""
    size = 4 if dtype == "float" else 2
    ub_data_number = 2 if dtype == "float" else 4
    tile_block_num = aj.get_device(device).ub_bytes // BLOCK_SIZE // BUFFER_NUM // ub_data_number
    tile_data_num = tile_block_num * BLOCK_SIZE // size
    blocks = -(-total * size // BLOCK_SIZE)
    core_num = 1 if tile_data_num >= total else min(CORE_NUM, blocks)
    small, big, tail_block_num = big_small_core_tiling(total, size, tile_data_num, core_num)
    if not tail_block_num:    # the host computes the big core's fields anyway: one block more than a small core
        every = blocks // core_num + 1
        big = big_small_core_tiling(every * BLOCK_SIZE // size, size, tile_data_num, 1)[0]
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num,
                          finalBigTileNum=big.tile_num, finalSmallTileNum=small.tile_num, tileDataNum=tile_data_num,
                          smallTailDataNum=small.tail_data_num, bigTailDataNum=big.tail_data_num,
                          tailBlockNum=tail_block_num, scale=SCALE)


class KernelSwish:
    def __init__(self, dtype):
        self.dtype = dtype

    def Init(self, x, y, smallCoreDataNum, bigCoreDataNum, finalBigTileNum, finalSmallTileNum, tileDataNum,
             smallTailDataNum, bigTailDataNum, tailBlockNum, scale):
        coreNum = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * aj.GetBlockIdx()
        self.tileDataNum = tileDataNum
        if coreNum < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, finalBigTileNum, bigTailDataNum
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, finalSmallTileNum, smallTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (aj.GetBlockIdx() - tailBlockNum)
        self.scale = np.float32(-1.0) * np.float32(scale)
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        size = 4 if self.dtype == "float" else 2
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * size)
        if self.dtype != "float":
            self.calcBuf1, self.calcBuf2 = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
            self.pipe.InitBuffer(self.calcBuf1, self.tileDataNum * 4)
            self.pipe.InitBuffer(self.calcBuf2, self.tileDataNum * 4)

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

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.dtype)
        aj.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def Compute(self, progress):
        n = self.processDataNum
        xLocal = self.inQueueX.DeQue(self.dtype)
        yLocal = self.outQueueY.AllocTensor(self.dtype)
        if self.dtype == "float":
            aj.Muls(yLocal, xLocal, self.scale, n)
            aj.Exp(yLocal, yLocal, n)
            aj.Adds(yLocal, yLocal, np.float32(1.0), n)
            aj.Div(yLocal, xLocal, yLocal, n)
        else:
            xLocalFp32, yLocalFp32 = self.calcBuf1.Get("float"), self.calcBuf2.Get("float")
            aj.Cast(xLocalFp32, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.Muls(yLocalFp32, xLocalFp32, self.scale, n)
            aj.Exp(yLocalFp32, yLocalFp32, n)
            aj.Adds(yLocalFp32, yLocalFp32, np.float32(1.0), n)
            aj.Div(yLocalFp32, xLocalFp32, yLocalFp32, n)
            aj.Cast(yLocal, yLocalFp32, aj.RoundMode.CAST_ROUND, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.dtype)
        aj.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


def swish(x, y, tiling_data, dtype):
    op = KernelSwish(dtype)
    op.Init(x, y, **tiling_data)
    op.Process()


def _make_inputs(np_dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-12, 12, size).astype(np_dtype)
        x[:min(size, 4)] = np.array([0.0, -0.0, 12.0, -12.0], np_dtype)[:size]
        return {"x": x}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        padded = -(-x.size * x.itemsize // BLOCK_SIZE) * BLOCK_SIZE // x.itemsize
        gm_x, gm_y = np.zeros(padded, x.dtype), np.zeros(padded, x.dtype)
        gm_x[:x.size] = x
        block_dim, tiling_data = tiling(device, x.size, dtype)
        aj.launch(swish, block_dim, device, gm_x, gm_y, tiling_data, dtype)
        return {"y": gm_y[:x.size]}
    return run


def expected(device, inputs):
    x = inputs["x"].astype(np.float64)
    return {"y": x / (1.0 + np.exp(-SCALE * x))}


_SOURCE = "Hayden727/cann-ops@fd1e257c src/math/swish/op_kernel/swish.cpp"
KERNELS = [
    KernelSpec("swish", "Swish over floats: Muls(-scale), Exp, Adds(1), Div; big/small cores, double-buffered "
               "UB-filling tiles with a tail", _make_inputs(np.float32), _run("float"), expected,
               default_size=30000, devices=DEVICES, tolerance=4e-6, source=_SOURCE),
    KernelSpec("swish_half", "Swish over halves computed in float (Cast CAST_NONE in, CAST_ROUND out)",
               _make_inputs(np.float16), _run("half"), expected, default_size=30000, devices=DEVICES[:4],
               tolerance=1e-3, source=_SOURCE),
]
