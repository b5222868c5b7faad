"""GeluGrad from a CANN operator collection: z = dy * d/dx gelu_tanh(x), built from Mul, Muls, Adds, Exp, Duplicate,
Div and Add in float (half inputs widened by Cast and the result narrowed by Cast CAST_RINT), big and small cores,
double-buffered tiles with a tail tile per core.

Ported (structure and instruction sequence; written in our own words) from
Hayden727/cann-ops @ 0592adbcbee6cc5511d4f469f988e8eb85d05e2d, src/math/gelu_grad/op_kernel/gelu_grad.cpp
(`KernelGeluGrad<T, T, T>`: Init / Process / CopyIn / Compute / CopyOut, both `versionNum` sequences) with the host
tiling of src/math/gelu_grad/op_host/gelu_grad.cpp @ 05936de717e2dcfcbd26131d9987bace1767558e (`TilingFunc`: UB less
8 KB in 2 x 10 parts, the 32-byte aligned input spread over the cores block by block, the first `tailBlockNum` cores
one block more, tiles of tileDataNum and a last, shorter tile; versionNum 1 on the 310B, 0 elsewhere).

Per element, with u = sqrt(2/pi) (x + 0.044715 x^3): version 0 computes p = exp(-2u), t = 1 / (1 + p) and
z = (p t * (0.2140644 x^2 + 1.5957691) x * t + t) * dy; version 1 computes g1 = 1 / (1 + exp(-2u)) and
z = (((g1 - 1) x) (-0.2140644 x^2 - 1.5957691) + 1) g1 dy; both are dy * (t + x t (1 - t) 2u').

Deviation: the core count is the launch's 8 (GetCoreNum would give the device's count); everything else follows the
original's tiling from the device's UB size.

Devices: the original's configs, the A2 (910B) and the 310B, and the A3 (the A2's architecture, version 0).

Fidelity: MODELLED (Exp and Div are MODELLED, SPEC-2 0.3). Checked against the float64 formula dy * (t + x t (1 - t)
2u') for x in [-4, 4] away from the gradient's zero near x = -0.7518 (|x + 0.7518| >= 0.05, where the relative error
of any float32 evaluation is bounded by the formula's conditioning): about sixteen float32 roundings (each 2**-24),
amplified by at most ~20 at the window's edge, stay below 2e-5 for float; the half result adds the final RINT cast
(2**-11): 6e-4.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8
UB_DATA_NUMBER = 10
GRADIENT_ZERO = -0.7518
DEVICES = ("atlas-a3", "atlas-a2", "atlas-200i-500-a2")


def tiling(device, total, dtype):
    """TilingFunc: (block_dim, the tiling data fields)."""
    size = 2 if dtype == "half" else 4
    ub = aj.get_device(device).ub_bytes - 8 * 1024
    tile_data_num = ub // BLOCK_SIZE // BUFFER_NUM // UB_DATA_NUMBER * BLOCK_SIZE // size
    core_num = max(1, min(CORE_NUM, -(-total * size // BLOCK_SIZE)))
    small, big, tail_block_num = big_small_core_tiling(total, size, tile_data_num, core_num)
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num,
                          finalBigTileNum=big.tile_num, finalSmallTileNum=small.tile_num, tileDataNum=tile_data_num,
                          smallTailDataNum=small.tail_data_num, bigTailDataNum=big.tail_data_num,
                          tailBlockNum=tail_block_num, versionNum=1 if device == "atlas-200i-500-a2" else 0)


class KernelGeluGrad:
    def __init__(self, dtype):
        self.dtype = dtype

    def Init(self, dy, x, z, smallCoreDataNum, bigCoreDataNum, finalBigTileNum, finalSmallTileNum, tileDataNum,
             smallTailDataNum, bigTailDataNum, tailBlockNum, versionNum):
        coreNum = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * aj.GetBlockIdx()
        self.tileDataNum, self.versionNum = tileDataNum, versionNum
        if coreNum < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, finalBigTileNum, bigTailDataNum
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, finalSmallTileNum, smallTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (aj.GetBlockIdx() - tailBlockNum)
        self.dyGm, self.xGm, self.zGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.dyGm.SetGlobalBuffer(dy[globalBufferIndex:], self.coreDataNum)
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.zGm.SetGlobalBuffer(z[globalBufferIndex:], self.coreDataNum)
        size = 2 if self.dtype == "half" else 4
        self.pipe = aj.TPipe()
        self.inQueueDY, self.inQueueX = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM), aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.outQueueZ = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.tmpBuffer, self.funBuffer = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        self.tmp1, self.tmp2, self.tmp3 = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(3))
        self.pipe.InitBuffer(self.inQueueDY, BUFFER_NUM, tileDataNum * size)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, tileDataNum * size)
        self.pipe.InitBuffer(self.outQueueZ, BUFFER_NUM, tileDataNum * size)
        for buf in (self.tmpBuffer, self.funBuffer, self.tmp1, self.tmp2, self.tmp3):
            self.pipe.InitBuffer(buf, tileDataNum * 4)

    def Process(self):
        self.processDataNum = self.tileDataNum
        for i in range(self.tileNum):
            if i == self.tileNum - 1:
                self.processDataNum = self.tailDataNum
            self.CopyIn(i)
            self.Compute()
            self.CopyOut(i)

    def CopyIn(self, progress):
        xLocal, dyLocal = self.inQueueX.AllocTensor(self.dtype), self.inQueueDY.AllocTensor(self.dtype)
        aj.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        aj.DataCopy(dyLocal, self.dyGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)
        self.inQueueDY.EnQue(dyLocal)

    def Compute(self):
        n = self.processDataNum
        xLocal, dyLocal = self.inQueueX.DeQue(self.dtype), self.inQueueDY.DeQue(self.dtype)
        zLocal = self.outQueueZ.AllocTensor(self.dtype)
        fun, tmp = self.funBuffer.Get("float"), self.tmpBuffer.Get("float")
        if self.dtype == "half":   # widen, compute in float, narrow with RINT
            p1, p2, p3 = self.tmp1.Get("float"), self.tmp2.Get("float"), self.tmp3.Get("float")
            aj.Cast(p1, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(p2, dyLocal, aj.RoundMode.CAST_NONE, n)
            x, dy, z = p1, p2, p3
            ones = p1 if self.versionNum == 0 else tmp      # where each version Duplicates its 1s
        else:                      # in place in the queue tensors (version 0 overwrites x with the 1s)
            x, dy, z = xLocal, dyLocal, zLocal
            ones = xLocal if self.versionNum == 0 else self.tmp1.Get("float")
        (self._version0 if self.versionNum == 0 else self._version1)(x, dy, z, ones, fun, tmp, n)
        if self.dtype == "half":
            aj.Cast(zLocal, z, aj.RoundMode.CAST_RINT, n)
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)
        self.inQueueDY.FreeTensor(dyLocal)

    def CopyOut(self, progress):
        zLocal = self.outQueueZ.DeQue(self.dtype)
        aj.DataCopy(self.zGm[progress * self.tileDataNum], zLocal, self.processDataNum)
        self.outQueueZ.FreeTensor(zLocal)

    @staticmethod
    def _version0(x, dy, z, ones, fun, tmp, n):
        C0, C1, C2, C3, C4 = (np.float32(c) for c in (-0.0713548162726002527220, -1.595769121605730711759,
                                                       0.2140644488178007, 1.595769121605730711759, 1.0))
        aj.Mul(z, x, x, n)
        aj.Muls(z, z, C0, n)
        aj.Adds(z, z, C1, n)
        aj.Mul(z, z, x, n)
        aj.Exp(z, z, n)                 # p = exp(-2u)
        aj.Mul(tmp, x, x, n)
        aj.Muls(tmp, tmp, C2, n)
        aj.Adds(tmp, tmp, C3, n)
        aj.Mul(tmp, tmp, x, n)          # 2u' x
        aj.Adds(fun, z, C4, n)
        aj.Duplicate(ones, C4, n)       # x's tensor (half: its float copy) becomes the 1s
        aj.Div(fun, ones, fun, n)       # t = 1 / (1 + p)
        aj.Mul(z, z, fun, n)
        aj.Mul(z, z, tmp, n)
        aj.Mul(z, z, fun, n)
        aj.Add(z, z, fun, n)
        aj.Mul(z, z, dy, n)

    @staticmethod
    def _version1(x, dy, z, ones, fun, tmp, n):
        C0, C1, C2, C3, C4, C5 = (np.float32(c) for c in (
            -0.0713548162726002527220, -1.5957691216057308, -0.21406444881780074632901625683959062,
            -1.5957691216057307117597842397375274738, 1.0, -1.0))
        aj.Mul(z, x, x, n)
        aj.Muls(z, z, C0, n)
        aj.Adds(z, z, C1, n)
        aj.Mul(z, z, x, n)
        aj.Exp(z, z, n)
        aj.Adds(z, z, C4, n)
        aj.Duplicate(ones, C4, n)
        aj.Div(z, ones, z, n)                        # g1
        aj.Adds(tmp, z, C5, n)
        aj.Mul(tmp, tmp, x, n)                       # res = (g1 - 1) x
        aj.Mul(fun, x, x, n)
        aj.Muls(fun, fun, C2, n)
        aj.Adds(fun, fun, C3, n)                     # g2
        aj.Mul(tmp, tmp, fun, n)
        aj.Adds(tmp, tmp, C4, n)
        aj.Mul(tmp, tmp, z, n)
        aj.Mul(z, tmp, dy, n)


def gelu_grad(dy, x, z, fields, dtype):
    op = KernelGeluGrad(dtype)
    op.Init(dy, x, z, **fields)
    op.Process()


def _make_inputs(np_dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-4, 4, size)
        near = np.abs(x - GRADIENT_ZERO) < 0.05
        x[near] += np.where(x[near] < GRADIENT_ZERO, -0.05, 0.05)   # away from the gradient's zero
        return {"dy": rng.uniform(0.5, 2, size).astype(np_dtype), "x": x.astype(np_dtype)}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        size = x.itemsize
        padded = -(-x.size * size // BLOCK_SIZE) * BLOCK_SIZE // size   # GM rounded to 32 bytes
        gm_dy, gm_x, gm_z = (np.zeros(padded, x.dtype) for _ in range(3))
        gm_dy[:x.size], gm_x[:x.size] = inputs["dy"], x
        block_dim, fields = tiling(device, x.size, dtype)
        aj.launch(gelu_grad, block_dim, device, gm_dy, gm_x, gm_z, fields, dtype)
        return {"z": gm_z[:x.size]}
    return run


def expected(device, inputs):
    x, dy = inputs["x"].astype(np.float64), inputs["dy"].astype(np.float64)
    k = np.sqrt(2 / np.pi)
    u = k * (x + 0.044715 * x ** 3)
    t = 1 / (1 + np.exp(-2 * u))
    return {"z": dy * (t + x * t * (1 - t) * 2 * k * (1 + 3 * 0.044715 * x ** 2))}


_SOURCE = "Hayden727/cann-ops@0592adbc src/math/gelu_grad/op_kernel/gelu_grad.cpp"
KERNELS = [
    KernelSpec("gelu_grad", "GeluGrad over halves: Cast to float, Mul/Muls/Adds/Exp/Duplicate/Div/Add, Cast RINT "
               "back; big/small cores, double-buffered tiles with a tail", _make_inputs(np.float16), _run("half"),
               expected, default_size=8 * 2048, devices=DEVICES, tolerance=6e-4, source=_SOURCE,
               size_rule="any positive size", size_ok=lambda n: n > 0),
    KernelSpec("gelu_grad_float", "GeluGrad over floats, computed in place in the queue tensors",
               _make_inputs(np.float32), _run("float"), expected, default_size=8 * 2048, devices=DEVICES,
               tolerance=2e-5, source=_SOURCE, size_rule="any positive size", size_ok=lambda n: n > 0),
]
