"""The tiled, double-buffered add_custom sample of the Ascend samples (`KernelAdd`: 8 blocks, each splitting its
slice of GM into TILE_NUM * BUFFER_NUM tiles through depth-2 queues; CopyIn / Compute / CopyOut per tile), ported
line by line: `xGm[progress * tileLength]` indexes GM exactly as in C++, `SetGlobalBuffer(x + offset, length)`
becomes `SetGlobalBuffer(x[offset:], length)`, and `<<<8>>>` is `aj.launch(add_custom, 8, device, ...)`.
The expectation is numpy's float16 add (IEEE, RNE) with the saturation rules on saturating devices (SPEC 5.2)."""
import numpy as np

import ascend_jit as aj

from ascend_jit.kernels._base import KernelSpec, ones_or_random

BUFFER_NUM = 2   # tensors per queue (double buffering)
TILE_NUM = 8     # tiles per block and buffer
USE_CORE_NUM = 8


class KernelAdd:
    def Init(self, x, y, z, totalLength, tileNum):
        self.blockLength = totalLength // aj.GetBlockNum()
        self.tileNum = tileNum
        self.tileLength = self.blockLength // tileNum // BUFFER_NUM
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.inQueueY = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.outQueueZ = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.xGm, self.yGm, self.zGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[self.blockLength * aj.GetBlockIdx():], self.blockLength)
        self.yGm.SetGlobalBuffer(y[self.blockLength * aj.GetBlockIdx():], self.blockLength)
        self.zGm.SetGlobalBuffer(z[self.blockLength * aj.GetBlockIdx():], self.blockLength)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileLength * 2)
        self.pipe.InitBuffer(self.inQueueY, BUFFER_NUM, self.tileLength * 2)
        self.pipe.InitBuffer(self.outQueueZ, BUFFER_NUM, self.tileLength * 2)

    def Process(self):
        loopCount = self.tileNum * BUFFER_NUM
        for i in range(loopCount):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor("half")
        yLocal = self.inQueueY.AllocTensor("half")
        aj.DataCopy(xLocal, self.xGm[progress * self.tileLength], self.tileLength)
        aj.DataCopy(yLocal, self.yGm[progress * self.tileLength], self.tileLength)
        self.inQueueX.EnQue(xLocal)
        self.inQueueY.EnQue(yLocal)

    def Compute(self, progress):
        xLocal = self.inQueueX.DeQue("half")
        yLocal = self.inQueueY.DeQue("half")
        zLocal = self.outQueueZ.AllocTensor("half")
        aj.Add(zLocal, xLocal, yLocal, self.tileLength)
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)
        self.inQueueY.FreeTensor(yLocal)

    def CopyOut(self, progress):
        zLocal = self.outQueueZ.DeQue("half")
        aj.DataCopy(self.zGm[progress * self.tileLength], zLocal, self.tileLength)
        self.outQueueZ.FreeTensor(zLocal)


def add_custom(x, y, z, totalLength, tileNum):
    """The kernel entry (`extern "C" __global__ __aicore__ void add_custom(...)`)."""
    op = KernelAdd()
    op.Init(x, y, z, totalLength, tileNum)
    op.Process()


def _block_multiple():
    return USE_CORE_NUM * TILE_NUM * BUFFER_NUM * 16  # every tile a whole number of 32-byte blocks


def make_inputs(size, seed):
    return {"x": ones_or_random(size, seed, scale=1000.0), "y": ones_or_random(size, seed + 1, scale=1000.0)}


def run(device, inputs):
    x, y = inputs["x"], inputs["y"]
    z = np.zeros_like(x)
    aj.launch(add_custom, USE_CORE_NUM, device, x, y, z, x.size, TILE_NUM)
    return {"z": z}


def expected(device, inputs):
    with np.errstate(all="ignore"):
        z = inputs["x"] + inputs["y"]
    if aj.Core(device).half_saturating:
        z = np.clip(np.where(np.isnan(z), np.float16(0), z), -65504, 65504).astype(np.float16)
    return {"z": z}


KERNEL = KernelSpec("add_custom", "the samples' tiled double-buffered add_custom: 8 blocks, xGm[progress * "
                    "tileLength] indexing", make_inputs, run, expected, default_size=8 * 2048,
                    size_rule=f"a multiple of {_block_multiple()} whose tiles fit the UB",
                    size_ok=lambda n: n > 0 and n % _block_multiple() == 0 and n <= 8 * 2048 * 64,
                    source="Ascend samples, operator/ascendc/0_introduction/3_add_kernellaunch/AddKernelInvocationNeo/"
                           "add_custom.cpp (KernelAdd; the public copy's commit could not be resolved here)")
