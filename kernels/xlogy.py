"""Xlogy from a CANN operator collection: y = x1 * ln(x2), and 0 where x1 == 0, with x2 broadcast to x1's shape by
the scalar unit: one core, double-buffered tiles of a tenth of the UB, the last tile short.

Ported (structure and instruction sequence; written in our own words) from
Hayden727/cann-ops @ fd1e257cee42a8ba666e864860cbe5f37100a2a3, src/math/xlogy/op_kernel/xlogy.cpp
(`Kernelxlogy_Broadcast`: CopyIn with BroadCX2 (x2 of one element: GetValue(0) from GM and Duplicate; else an
element loop of GM GetValue at GetPos's broadcast index and LocalTensor SetValue), Compute: Duplicate 0, Compare
x1 == 0 into an int8 mask, Select(tmp, mask, tmp, 1) (0 where x1 == 0, else 1), Ln(x2), Mul by x1, Mul by tmp)
with the host tiling of src/math/xlogy/op_host/xlogy.cpp (`TilingFunc`: one core, tiles of UB / 32 / 10 blocks,
the last tile the rest; the shapes padded to x1's rank with x2's positional dims).
- `xlogy`: x2 of x1's shape (DataCopy both);
- `xlogy_broadcast`: x1 of shape (rows, 64), x2 of shape (1, 64): the scalar unit's GetValue/SetValue loop;
- `xlogy_scalar`: x2 of one element: GetValue(0) and Duplicate.
BroadCX1 (x1 smaller than the broadcast shape) is not ported: the operator's output has x1's shape (its InferShape),
so the kernel never computes past x1's count there.

Deviations: (1) the original's tile, UB / 32 / 10 blocks (614 on the A2), is not a whole number of 256-byte blocks:
its Compare (count form) leaves the last partial block's elements uncompared and their mask bits stale (SPEC-2 D44),
which the emulator refuses; the port rounds the tile down to whole 256-byte blocks (608 on the A2), and takes sizes
whose last tile is whole 256-byte blocks too. (2) The original passes its int8 Compare result to Select, whose
selMask the devkit types as uint8/16/32/64 (a static_assert on the 950, an assert on the A2); the port passes the
same bytes as uint8 (`cmp1.ReinterpretCast<uint8_t>()`).

Devices: Compare, Select's VSEL_TENSOR_SCALAR_MODE and Ln are offered on the 950, A3, A2, 310B and 310P (not the
910's Select mode 1): the kernel runs there.

Fidelity: MODELLED (Ln is MODELLED, SPEC-2 0.3). Checked against the float64 formula x1 * ln(x2) (0 where x1 == 0)
for x2 in [0.1, 0.8] and [1.25, 10] (|ln x2| >= 0.22: Ln's relative error amplified at most 4.5 by the
formula's condition): float: Ln and two Mul roundings, 2e-6 relative; half: inputs and every stage in half (2**-11
each): 4e-3.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
BLOCK_SIZE = 32
UB_DATA_NUMBER = 10
COLS = 64                 # the ports' x1 shape: (rows, 64)
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")


def tiling(device, x1_shape, x2_shape, itemsize):
    """TilingFunc: the tiling data (one core). The tile is rounded down to whole 256-byte blocks (deviation 1)."""
    input_num = int(np.prod(x1_shape))
    tile_block_num = aj.get_device(device).ub_bytes // BLOCK_SIZE // UB_DATA_NUMBER // 8 * 8
    tile_data_num = tile_block_num * BLOCK_SIZE // itemsize
    blocks = -(-input_num * itemsize // BLOCK_SIZE)
    core_data_num = blocks * BLOCK_SIZE // itemsize
    tile_num = blocks // tile_block_num
    final_tile_num = tile_num if blocks % tile_block_num == 0 else tile_num + 1
    tail_data_num = core_data_num - tile_data_num * tile_num or tile_data_num
    shapefull = [max(a, b) for a, b in zip(x1_shape, x2_shape)]
    return dict(CoreDataNum=core_data_num, finalTileNum=final_tile_num, tileDataNum=tile_data_num,
                TailDataNum=tail_data_num, x1_length=input_num, x2_length=int(np.prod(x2_shape)),
                numshapes=len(x1_shape), shape=(list(x1_shape), list(x2_shape)), shapefull=shapefull)


class KernelXlogyBroadcast:
    def __init__(self, dtype):
        self.dtype = dtype

    def Init(self, x1, x2, y, tilevar):
        self.coreDataNum = tilevar["CoreDataNum"]
        self.tileNum = tilevar["finalTileNum"]
        self.tileDataNum = tilevar["tileDataNum"]
        self.tailDataNum = tilevar["TailDataNum"]
        self.shape = tilevar["shape"]
        self.numshapes = tilevar["numshapes"]
        self.shapefull = tilevar["shapefull"]
        self.total_length = 1
        for i in range(self.numshapes):
            self.total_length *= self.shapefull[i]
        self.x1_Length, self.x2_Length = tilevar["x1_length"], tilevar["x2_length"]
        self.x1Gm, self.x2Gm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.x1Gm.SetGlobalBuffer(x1, self.coreDataNum)
        self.x2Gm.SetGlobalBuffer(x2, min(self.coreDataNum, x2.size))
        self.yGm.SetGlobalBuffer(y, self.coreDataNum)
        size = 2 if self.dtype == "half" else 4
        self.pipe = aj.TPipe()
        self.inQueueX1, self.inQueueX2 = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM), aj.TQue(
            aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.QueueTmp1, self.QueueTmp2 = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueX1, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.inQueueX2, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.QueueTmp1, self.tileDataNum * size)
        self.pipe.InitBuffer(self.QueueTmp2, self.tileDataNum)      # int8 mask bytes

    def Process(self):
        self.processDataNum = self.tileDataNum
        for i in range(self.tileNum):
            if i == self.tileNum - 1:
                self.processDataNum = self.tailDataNum
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)

    def CopyIn(self, progress):
        x1Local = self.inQueueX1.AllocTensor(self.dtype)
        x2Local = self.inQueueX2.AllocTensor(self.dtype)
        aj.DataCopy(x1Local, self.x1Gm[progress * self.tileDataNum], self.processDataNum)
        if self.x2_Length < self.total_length:
            self.BroadCX2(x2Local, progress * self.tileDataNum, self.processDataNum)
        else:
            aj.DataCopy(x2Local, self.x2Gm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX1.EnQue(x1Local)
        self.inQueueX2.EnQue(x2Local)

    def BroadCX2(self, dst, offset, length):
        if self.x2_Length == 1:
            tmp = self.x2Gm.GetValue(0)
            aj.Duplicate(dst, tmp, length)
            return
        for i in range(length):
            idxtmp = self.GetPos(i + offset, 1)
            dst.SetValue(i, self.x2Gm.GetValue(idxtmp))

    def GetPos(self, istart, inputNo):
        """The flat index into input `inputNo` of output element `istart` (the original's loop: dims where the input
        matches the broadcast shape contribute, strides from x2's shape)."""
        idxtmp = 0
        for k in range(1, self.numshapes + 1):
            if k < self.numshapes:
                krange = 1
                for m in range(k + 1, self.numshapes + 1):
                    krange *= self.shapefull[m - 1]
                kpos, istart = istart // krange, istart % krange
            else:
                kpos = istart % self.shapefull[k - 1]
            if self.shapefull[k - 1] == self.shape[inputNo][k - 1]:
                if k < self.numshapes:
                    krangeB = 1
                    for m in range(k + 1, self.numshapes + 1):
                        krangeB *= self.shape[1][m - 1]
                    idxtmp += kpos * krangeB
                else:
                    idxtmp += kpos
        return idxtmp

    def Compute(self, progress):
        T, n = self.dtype, self.processDataNum
        x1Local = self.inQueueX1.DeQue(T)
        x2Local = self.inQueueX2.DeQue(T)
        yLocal = self.outQueueY.AllocTensor(T)
        tmp1 = self.QueueTmp1.Get(T)
        cmp1 = self.QueueTmp2.Get("int8")
        aj.Duplicate(tmp1, 0.0, n)
        aj.Compare(cmp1, x1Local, tmp1, aj.CMPMODE.EQ, n)
        aj.Select(tmp1, cmp1.ReinterpretCast("uint8"), tmp1, 1.0, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, n)   # (2)
        aj.Ln(yLocal, x2Local, n)
        aj.Mul(yLocal, yLocal, x1Local, n)
        aj.Mul(yLocal, yLocal, tmp1, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX1.FreeTensor(x1Local)
        self.inQueueX2.FreeTensor(x2Local)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.dtype)
        aj.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


def xlogy(x1, x2, y, tilevar, dtype):
    op = KernelXlogyBroadcast(dtype)
    op.Init(x1, x2, y, tilevar)
    op.Process()


def _make_inputs(np_dtype, x2_shape):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x1 = (rng.standard_normal(size) * 3).astype(np_dtype)
        x1[rng.random(size) < 0.2] = 0
        x1[:2] = np.array([0.0, -0.0], np_dtype)
        n2 = size if x2_shape is None else int(np.prod(x2_shape))
        below = rng.uniform(0.1, 0.8, n2)
        x2 = np.where(rng.random(n2) < 0.3, below, rng.uniform(1.25, 10, n2)).astype(np_dtype)
        return {"x1": x1, "x2": x2}
    return make_inputs


def _shapes(inputs):
    x1, x2 = inputs["x1"], inputs["x2"]
    rows = x1.size // COLS
    return (rows, COLS), ((rows, COLS) if x2.size == x1.size else (1, COLS) if x2.size == COLS else (1, 1))


def _run(dtype):
    def run(device, inputs):
        x1, x2 = inputs["x1"], inputs["x2"]
        x1_shape, x2_shape = _shapes(inputs)
        tilevar = tiling(device, x1_shape, x2_shape, x1.itemsize)
        y = np.zeros(x1.size, x1.dtype)
        aj.launch(xlogy, 1, device, x1.copy(), x2.copy(), y, tilevar, dtype)
        return {"y": y}
    return run


def expected(device, inputs):
    x1_shape, x2_shape = _shapes(inputs)
    x1 = inputs["x1"].astype(np.float64).reshape(x1_shape)
    x2 = np.broadcast_to(inputs["x2"].astype(np.float64).reshape(x2_shape), x1_shape)
    return {"y": np.where(x1 == 0, 0.0, x1 * np.log(x2)).reshape(-1)}


def _size_ok(itemsize):
    return lambda n: n > 0 and n % COLS == 0 and n * itemsize % 256 == 0


_SOURCE = "Hayden727/cann-ops@fd1e257c src/math/xlogy/op_kernel/xlogy.cpp"
KERNELS = [
    KernelSpec("xlogy", "Xlogy over floats of one shape: Duplicate, Compare EQ into an int8 mask, Select mode 1, Ln, "
               "two Muls; one core, double-buffered tiles with a tail", _make_inputs(np.float32, None), _run("float"),
               expected, default_size=8192, devices=DEVICES, tolerance=2e-6, source=_SOURCE,
               size_rule="a multiple of 64 (whole 256-byte blocks)", size_ok=_size_ok(4)),
    KernelSpec("xlogy_broadcast", "Xlogy over halves, x2 of shape (1, 64) broadcast by the scalar unit (GM GetValue, "
               "LocalTensor SetValue per element)", _make_inputs(np.float16, (1, COLS)), _run("half"), expected,
               default_size=2048, devices=DEVICES, tolerance=4e-3, source=_SOURCE,
               size_rule="a multiple of 128 (rows of 64, whole 256-byte blocks)", size_ok=_size_ok(2)),
    KernelSpec("xlogy_scalar", "Xlogy over floats, x2 of one element (GM GetValue(0), Duplicate)",
               _make_inputs(np.float32, (1, 1)), _run("float"), expected, default_size=8192, devices=DEVICES,
               tolerance=2e-6, source=_SOURCE, size_rule="a multiple of 64 (whole 256-byte blocks)",
               size_ok=_size_ok(4)),
]
