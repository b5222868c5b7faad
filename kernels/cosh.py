"""Cosh from the CANN math operators: z = (exp(x) + 1 / exp(x)) / 2 element by element, over float and half.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/cosh:
- op_kernel/cosh.h (`NsCosh::Cosh<T>`): the input in 32-byte blocks over cores (the first tailBlockNum cores a block
  more), depth-2 queues of tileDataNum elements; per tile DataCopy in, Exp in place in the input tile,
  PipeBarrier<PIPE_V>, **Reciprocal** into the output tile, PipeBarrier<PIPE_V>, Add of the two, PipeBarrier<PIPE_V>,
  Muls 0.5 (as T), DataCopy out;
- op_kernel/cosh.cpp (the entry) and op_host/cosh_tiling.cpp (`CalculateCoreNum`: UB / 32 / 2 / 3 blocks a tile (5
  for 1-byte types); cores = min(AIV count, blocks); big / small cores of whole blocks).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). The copies are whole 32-byte blocks,
so the last core reads and writes up to 31 bytes past the data: the GM arrays are padded to a whole block (as the
gallery's other block-split ports do). The operator also lists int32, int16 and bfloat16, for which Exp and
Reciprocal have no A2 / A3 form (SPEC-2 4.2): the original's template cannot be built for them, and the emulator
refuses the Exp (UnsupportedDTypeError; a test shows it for int32); only float and half are registered.

Devices: the operator's config is the ascend910b (A2; the A3 shares its kernels): the port runs on the A3 and A2.

Fidelity: MODELLED (Exp, Reciprocal: SPEC-2 D37, the exact value rounded once; A2 / A3 keep subnormals, D38), Add and
Muls BIT-EXACT; the model (exp in float64 narrowed to the type, the reciprocal of the rounded exp likewise, the
type's Add and Muls) is checked bit for bit. exp overflows to +inf past 88.7 (float) / 11.1 (half), giving +inf; far
negative x gives exp 0 (or a subnormal), its reciprocal +inf: cosh(x) is +inf there even where the true value is
finite (x in (-89.4, -88.7) for float), as the original computes it.
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
BLOCK_SIZE = 32
BUFFER_NUM = 2
_NP = {"float": np.float32, "half": np.float16, "int32": np.int32}
DEVICES = ("atlas-a3", "atlas-a2")


class CoshTilingData(ctypes.Structure):
    _fields_ = [("smallCoreDataNum", ctypes.c_int64), ("bigCoreDataNum", ctypes.c_int64),
                ("finalBigTileNum", ctypes.c_int64), ("finalSmallTileNum", ctypes.c_int64),
                ("tileDataNum", ctypes.c_int64), ("smallTailDataNum", ctypes.c_int64),
                ("bigTailDataNum", ctypes.c_int64), ("tailBlockNum", ctypes.c_int64)]


def tiling(device, total, dtype):
    """CoshTilingFunc / CalculateCoreNum: (used cores, the tiling bytes)."""
    ub_size = aj.get_device(device).ub_bytes
    size = np.dtype(_NP[dtype]).itemsize
    ub_data_number = 5 if size == 1 else 3
    tile_blocks = max(1, ub_size // BLOCK_SIZE // BUFFER_NUM // ub_data_number)
    tile = max(1, tile_blocks * BLOCK_SIZE // size)
    blocks = -(-total * size // BLOCK_SIZE)
    cores = max(1, min(CORE_NUM, blocks))
    every, tail_blocks = divmod(blocks, cores)

    def split(nblocks):
        data = nblocks * BLOCK_SIZE // size
        tiles = nblocks // tile_blocks
        final = tiles if nblocks % tile_blocks == 0 else tiles + 1
        rest = data - tile * tiles
        return data, final, rest if rest > 0 else tile

    small, small_tiles, small_tail = split(every)
    big, big_tiles, big_tail = split(every + 1)
    t = CoshTilingData(smallCoreDataNum=small, bigCoreDataNum=big, finalBigTileNum=big_tiles,
                       finalSmallTileNum=small_tiles, tileDataNum=tile, smallTailDataNum=small_tail,
                       bigTailDataNum=big_tail, tailBlockNum=tail_blocks)
    return cores, np.frombuffer(bytes(t), np.uint8).copy()


class Cosh:
    """`Cosh<T>`."""

    def __init__(self, T):
        self.T = T

    def Init(self, x, z, tilingData):
        T = self.T
        coreNum = aj.GetBlockIdx()
        globalBufferIndex = tilingData.bigCoreDataNum * coreNum
        self.tileDataNum = tilingData.tileDataNum
        if coreNum < tilingData.tailBlockNum:
            self.coreDataNum = tilingData.bigCoreDataNum
            self.tileNum = tilingData.finalBigTileNum
            self.tailDataNum = tilingData.bigTailDataNum
        else:
            self.coreDataNum = tilingData.smallCoreDataNum
            self.tileNum = tilingData.finalSmallTileNum
            self.tailDataNum = tilingData.smallTailDataNum
            globalBufferIndex -= (tilingData.bigCoreDataNum - tilingData.smallCoreDataNum) * (
                coreNum - tilingData.tailBlockNum)
        self.inputGMX, self.outputGMZ = aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.inputGMX.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.outputGMZ.SetGlobalBuffer(z[globalBufferIndex:], self.coreDataNum)
        self.pipe = aj.TPipe()
        self.inputQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outputQueueZ = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        size = np.dtype(_NP[T]).itemsize
        self.pipe.InitBuffer(self.inputQueueX, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.outputQueueZ, BUFFER_NUM, self.tileDataNum * size)

    def CopyIn(self, progress):
        xLocal = self.inputQueueX.AllocTensor(self.T)
        aj.DataCopy(xLocal, self.inputGMX[progress * self.tileDataNum], self.processDataNum)
        self.inputQueueX.EnQue(xLocal)

    def CopyOut(self, progress):
        zLocal = self.outputQueueZ.DeQue(self.T)
        aj.DataCopy(self.outputGMZ[progress * self.tileDataNum], zLocal, self.processDataNum)
        self.outputQueueZ.FreeTensor(zLocal)

    def Compute(self, progress):
        T = self.T
        xLocal = self.inputQueueX.DeQue(T)
        zLocal = self.outputQueueZ.AllocTensor(T)
        scalar = _NP[T](0.5)              # cosh(x) = (exp(x) + exp(-x)) / 2
        n = self.processDataNum
        aj.Exp(xLocal, xLocal, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Reciprocal(zLocal, xLocal, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Add(zLocal, xLocal, zLocal, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(zLocal, zLocal, scalar, n)
        self.outputQueueZ.EnQue(T, zLocal)
        self.inputQueueX.FreeTensor(xLocal)

    def Process(self):
        self.processDataNum = self.tileDataNum
        for i in range(self.tileNum):
            if i == self.tileNum - 1:
                self.processDataNum = self.tailDataNum
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)


aj.REGISTER_TILING_DEFAULT(CoshTilingData)


def cosh(x, z, workspace, tiling_bytes, dtype):
    """The kernel entry (cosh.cpp; DTYPE_X as an argument)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(CoshTilingData, tiling_bytes)
    op = Cosh(dtype)
    op.Init(x, z, tilingData)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_cosh(device, x):
    """z of x; the GM arrays padded to a whole 32-byte block (the block-rounded copies)."""
    dtype = _dtype_name(x)
    cores, t = tiling(device, x.size, dtype)
    per_block = BLOCK_SIZE // x.itemsize
    padded = -(-x.size // per_block) * per_block
    xg = np.zeros(padded, x.dtype)
    xg[:x.size] = x
    z = np.zeros(padded, x.dtype)
    aj.launch(cosh, cores, device, xg, z, None, t, dtype)
    return z[:x.size]


def cosh_model(x):
    """exp rounded once to the type, its reciprocal rounded once, the type's Add, Muls 0.5 (exact)."""
    t = x.dtype.type
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        e = np.exp(x.astype(np.float64)).astype(t)
        r = (1.0 / e.astype(np.float64)).astype(t)
        return ((e + r).astype(t) * t(0.5)).astype(t)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        hi = 10.0 if dtype == "half" else 80.0
        return {"x": rng.uniform(-hi, hi, size).astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"z": run_cosh(device, inputs["x"])}


def _expected(device, inputs):
    return {"z": cosh_model(inputs["x"])}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/cosh/op_kernel/cosh.h"
KERNELS = [
    KernelSpec(f"cosh{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 100003, "Cosh over floats (Exp in place, Reciprocal, Add, Muls 0.5 with PipeBarrier<PIPE_V> "
         "between; 32-byte block cores, DataCopy tiles)"),
        ("_half", "half", 100003, "Cosh over halves (the same chain in half: exp overflows past 11.1)"))
]
