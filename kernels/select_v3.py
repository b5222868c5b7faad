"""SelectV3 from the CANN math operators (experimental): z = b ? x : y element by element, b a bool (int8) tensor,
over float and half, by a Cast of b to half, a CompareScalar NE 0 into a bit mask and a tensor-tensor Select.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/select_v3:
- op_kernel/select_v3.cpp (the entry: REGISTER_TILING_DEFAULT, GET_TILING_DATA_WITH_STRUCT, schMode 0 `SelectV3<float>`,
  1 `SelectV3<half>`);
- op_kernel/select_v3.h (`SelectV3<T>`): the first tailBlockNum cores take bigCoreDataNum elements (one 32-byte
  block of T more) and the rest smallCoreDataNum, GlobalTensors offset to the core's start; depth-2 VECIN queues for
  x, y (T) and b (int8) and a VECOUT queue, two TBufs (the bit mask, rounded to 256 elements, and a half row);
  per tile CopyIn (DataCopy of x and y, DataCopyPad of b with DataCopyPadExtParams{true, 0, 2, 0}), Compute (Cast
  int8 -> half CAST_NONE, CompareScalar NE 0.0 over the count rounded up to 256, Select VSEL_TENSOR_TENSOR_MODE),
  CopyOut (DataCopy); the last tile tailDataNum long;
- op_host/select_v3_tiling.cpp (tiles of (UB / 32 / 2 / 6) blocks; the input's 32-byte blocks spread over the
  cores, the remainder one block more to the first cores).

Deviations:
(1) the core count is the launch's 8 (GetCoreNumAiv); GM arrays are padded to whole 32-byte blocks of T, as device
    allocations are (the last core copies whole blocks).
(2) b's DataCopyPad asks for isPad with rightPadding 2: when the tile's bytes are a whole number of 32-byte blocks
    (every full tile) the padded row is 32 bytes longer than the data (SPEC-2 9.1 / D56: P = ceil((blockLen +
    rightPadding) / 32) * 32) and the copy writes past b's queue buffer; the emulator refuses that
    (OutOfBoundsError, tests/test_port45b_kernels.py shows it). The 2 padding bytes are never read as data (the
    Select takes processDataNum elements), so the port copies b with rightPadding 0 where the row is block-aligned
    and keeps the original's 2 otherwise.
(3) CompareScalar runs over the count rounded up to 256 halves: on a short tile it reads the half row past the
    Cast's elements (the bits it makes there are never selected). The port Casts over that rounded count as well
    (b's queue row is zeroed past the copy first); the selected elements are the original's. (The sanitizer
    reported the original's read until session 61; it now follows the compared lanes to their bits, which no Select
    reads: docs/decisions.md "Sanitizer".)

Devices: the A2 (op_host/config/ascend910b), and the A3 (the same __CCE_AICORE__ 220 build).

Fidelity: BIT-EXACT (DataCopy / DataCopyPad, Cast int8 -> half (exact), CompareScalar, Select and Duplicate are
BIT-EXACT, SPEC-2 0.3): z is numpy's where(b != 0, x, y), values copied bit for bit (NaN payloads kept, D59).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8                       # deviation (1)
UB_DATA_NUMBER = 6
TYPE_SIZE = {"float": 4, "half": 2}
_NP = {"float": np.float32, "half": np.float16}
SCH_MODE = {"float": 0, "half": 1}
DEVICES = ("atlas-a2", "atlas-a3")

SelectV3TilingData = np.dtype([("smallCoreDataNum", np.int64), ("bigCoreDataNum", np.int64),
                               ("finalBigTileNum", np.int64), ("finalSmallTileNum", np.int64),
                               ("tileDataNum", np.int64), ("smallTailDataNum", np.int64),
                               ("bigTailDataNum", np.int64), ("tailBlockNum", np.int64)])


def tiling(device, total, dtype):
    """SelectV3TilingFunc: (block dim, the packed SelectV3TilingData)."""
    size = TYPE_SIZE[dtype]
    tmp = aj.get_device(device).ub_bytes // BLOCK_SIZE // BUFFER_NUM
    tileBlockNum = max(1, tmp // UB_DATA_NUMBER) if tmp > 0 else 1
    tileDataNum = max(1, tileBlockNum * BLOCK_SIZE // size)
    blocksTotal = -(-total * size // BLOCK_SIZE)
    coreNum = max(1, min(CORE_NUM, blocksTotal))
    everyCoreInputBlockNum, tailBlockNum = divmod(blocksTotal, coreNum)
    smallCoreDataNum = everyCoreInputBlockNum * BLOCK_SIZE // size
    smallTileNum = everyCoreInputBlockNum // tileBlockNum
    finalSmallTileNum = smallTileNum + (everyCoreInputBlockNum % tileBlockNum != 0)
    smallTailDataNum = smallCoreDataNum - tileDataNum * smallTileNum
    smallTailDataNum = tileDataNum if smallTailDataNum <= 0 else smallTailDataNum
    bigEveryCoreBlockNum = everyCoreInputBlockNum + 1
    bigCoreDataNum = bigEveryCoreBlockNum * BLOCK_SIZE // size
    bigTileNum = bigEveryCoreBlockNum // tileBlockNum
    finalBigTileNum = bigTileNum + (bigEveryCoreBlockNum % tileBlockNum != 0)
    bigTailDataNum = bigCoreDataNum - tileDataNum * bigTileNum
    bigTailDataNum = tileDataNum if bigTailDataNum <= 0 else bigTailDataNum
    t = np.zeros(1, SelectV3TilingData)
    for name, value in (("smallCoreDataNum", smallCoreDataNum), ("bigCoreDataNum", bigCoreDataNum),
                        ("finalBigTileNum", finalBigTileNum), ("finalSmallTileNum", finalSmallTileNum),
                        ("tileDataNum", tileDataNum), ("smallTailDataNum", smallTailDataNum),
                        ("bigTailDataNum", bigTailDataNum), ("tailBlockNum", tailBlockNum)):
        t[name] = value
    return coreNum, t.view(np.uint8).copy()


class SelectV3:
    """`SelectV3<T>`."""

    def __init__(self, T, original_padding=False, zero_tail=True):
        self.T, self.original_padding, self.zero_tail = T, original_padding, zero_tail

    def Init(self, x, y, b, z, tilingData):
        T = self.T
        coreNum = aj.GetBlockIdx()
        globalBufferIndex = int(tilingData.bigCoreDataNum) * aj.GetBlockIdx()
        self.tileDataNum = int(tilingData.tileDataNum)
        if coreNum < int(tilingData.tailBlockNum):
            self.coreDataNum = int(tilingData.bigCoreDataNum)
            self.tileNum = int(tilingData.finalBigTileNum)
            self.tailDataNum = int(tilingData.bigTailDataNum)
        else:
            self.coreDataNum = int(tilingData.smallCoreDataNum)
            self.tileNum = int(tilingData.finalSmallTileNum)
            self.tailDataNum = int(tilingData.smallTailDataNum)
            globalBufferIndex -= ((int(tilingData.bigCoreDataNum) - int(tilingData.smallCoreDataNum)) *
                                  (aj.GetBlockIdx() - int(tilingData.tailBlockNum)))
        self.inputGMX, self.inputGMY = aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGMB, self.outputGMZ = aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGMX.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.inputGMY.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        self.inputGMB.SetGlobalBuffer(b[globalBufferIndex:], self.coreDataNum)
        self.outputGMZ.SetGlobalBuffer(z[globalBufferIndex:], self.coreDataNum)
        self.pipe = aj.TPipe()
        self.inputQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.inputQueueY = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.inputQueueB = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outputQueueZ = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.tmpBuf0, self.tmpBuf1 = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        size = TYPE_SIZE[T]
        self.pipe.InitBuffer(self.inputQueueX, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.inputQueueY, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.inputQueueB, BUFFER_NUM, self.tileDataNum)
        self.pipe.InitBuffer(self.outputQueueZ, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.tmpBuf0, (self.tileDataNum + 255) // 256 * 256 // 8)
        self.pipe.InitBuffer(self.tmpBuf1, self.tileDataNum * 2)

    def CopyIn(self, progress):
        T = self.T
        xLocal = self.inputQueueX.AllocTensor(T)
        yLocal = self.inputQueueY.AllocTensor(T)
        bLocal = self.inputQueueB.AllocTensor("int8")
        n = self.processDataNum
        bCopyParams = aj.DataCopyExtParams(1, n, 0, 0, 0)
        # deviation (2): the original's rightPadding 2 only where it stays inside the row's last 32-byte block
        right = 2 if self.original_padding or n % BLOCK_SIZE != 0 else 0
        padParams = aj.DataCopyPadExtParams(True, 0, right, np.int8(0))
        aj.DataCopy(xLocal, self.inputGMX[progress * self.tileDataNum], n)
        aj.DataCopy(yLocal, self.inputGMY[progress * self.tileDataNum], n)
        if self.zero_tail:
            # deviation (3): b's row past the copy's 32-byte blocks up to the Cast's rounded count (no ordering
            # needed: bytes the copy does not write; the Cast follows on the vector pipe after the DeQue)
            copied = aj.AlignUp(n + right, BLOCK_SIZE)
            rounded = min(aj.AlignUp(n, 256), self.tileDataNum)
            if rounded > copied:
                aj.Duplicate(bLocal.ReinterpretCast("int16")[copied // 2], np.int16(0), (rounded - copied) // 2)
        aj.DataCopyPad(bLocal, self.inputGMB[progress * self.tileDataNum], bCopyParams, padParams)
        self.inputQueueX.EnQue(xLocal)
        self.inputQueueY.EnQue(yLocal)
        self.inputQueueB.EnQue(bLocal)

    def CopyOut(self, progress):
        zLocal = self.outputQueueZ.DeQue(self.T)
        aj.DataCopy(self.outputGMZ[progress * self.tileDataNum], zLocal, self.processDataNum)
        self.outputQueueZ.FreeTensor(zLocal)

    def Compute(self, progress):
        T = self.T
        xLocal = self.inputQueueX.DeQue(T)
        yLocal = self.inputQueueY.DeQue(T)
        bLocal = self.inputQueueB.DeQue("int8")
        zLocal = self.outputQueueZ.AllocTensor(T)
        tmpTensor0 = self.tmpBuf0.Get("uint8")
        tmpTensor1 = self.tmpBuf1.Get("half")
        n = self.processDataNum
        rounded = (n + 255) // 256 * 256
        castCount = min(rounded, self.tileDataNum) if self.zero_tail else n      # deviation (3)
        aj.Cast(tmpTensor1, bLocal, aj.RoundMode.CAST_NONE, castCount)
        aj.CompareScalar(tmpTensor0, tmpTensor1, np.float16(0.0), aj.CMPMODE.NE, rounded)
        aj.Select(zLocal, tmpTensor0, xLocal, yLocal, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
        self.outputQueueZ.EnQue(zLocal)
        self.inputQueueX.FreeTensor(xLocal)
        self.inputQueueY.FreeTensor(yLocal)
        self.inputQueueB.FreeTensor(bLocal)

    def Process(self):
        self.processDataNum = self.tileDataNum
        for i in range(self.tileNum):
            if i == self.tileNum - 1:
                self.processDataNum = self.tailDataNum
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)


aj.REGISTER_TILING_DEFAULT(SelectV3TilingData)


def select_v3(x, y, b, z, workspace, tiling_bytes, schMode, original_padding=False, zero_tail=True):
    """The kernel entry (select_v3.cpp); schMode stands for the template argument."""
    tilingData = aj.GET_TILING_DATA(tiling_bytes)
    op = SelectV3("float" if schMode == SCH_MODE["float"] else "half", original_padding, zero_tail)
    op.Init(x, y, b, z, tilingData)
    op.Process()


def run_select_v3(device, x, y, b, original_padding=False, zero_tail=True):
    dtype = {np.dtype(v): k for k, v in _NP.items()}[x.dtype]
    block_dim, tiling_bytes = tiling(device, x.size, dtype)
    block = BLOCK_SIZE // x.itemsize
    padded = -(-x.size // block) * block          # deviation (1)
    gm = {}
    for name, a in (("x", x), ("y", y), ("b", b.astype(np.int8))):
        gm[name] = np.zeros(padded, a.dtype)
        gm[name][:a.size] = a
    z = np.zeros(padded, x.dtype)
    workspace = np.zeros(32, np.uint8)
    aj.launch(select_v3, block_dim, device, gm["x"], gm["y"], gm["b"], z, workspace, tiling_bytes, SCH_MODE[dtype],
              original_padding, zero_tail)
    return z[:x.size]


def select_v3_model(x, y, b):
    return np.where(b.astype(np.int8) != 0, x, y)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.standard_normal(size).astype(_NP[dtype])
        y = rng.standard_normal(size).astype(_NP[dtype])
        b = rng.integers(0, 2, size).astype(np.bool_)
        return {"x": x, "y": y, "b": b}
    return make_inputs


def _run(device, inputs):
    return {"z": run_select_v3(device, inputs["x"], inputs["y"], inputs["b"])}


def _expected(device, inputs):
    return {"z": select_v3_model(inputs["x"], inputs["y"], inputs["b"])}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/select_v3/op_kernel/select_v3.h"
KERNELS = [
    KernelSpec("select_v3", "SelectV3 over floats: Cast bool (int8) -> half, CompareScalar NE 0 into bits, Select "
               "VSEL_TENSOR_TENSOR_MODE; big and small cores of whole 32-byte blocks", _make_inputs("float"), _run,
               _expected, default_size=100003, devices=DEVICES, source=_SOURCE),
    KernelSpec("select_v3_half", "SelectV3 over halves (as the float kernel)", _make_inputs("half"), _run,
               _expected, default_size=70001, devices=DEVICES, source=_SOURCE),
]
