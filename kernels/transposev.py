"""Transposev from the CANN math operators: out = x transposed by perm (up to 8 dimensions), any 1-, 2-, 4- or 8-byte
type, the output's linear indices turned into source offsets by vector arithmetic, the elements moved on the scalar
unit.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/conversion/transposev:
- op_kernel/transposev.h (`NsTransposev::Transposev<T, U>`): the output split in 32-byte blocks over cores (the
  first tailBlockNum cores a block more), tiles of tileDataNum elements; Init reads perm (U = int32 / int64) by a
  DataCopyPad with padding (DataCopyPadExtParams {true, 0, 2, 0}: two zero elements after it) into a VECIN tile of 8
  U's and GetValue, the strides of x and of the output on the scalar unit. Per tile: ArithProgression of the tile's
  output linear indices (int32), Sub p6 - p6 as the offset accumulator's zero, and per dimension j: Duplicate the
  output stride as float, Cast int32 -> float CAST_TRUNC, Div, Cast float -> int32 CAST_FLOOR (the coordinate), Muls
  by the stride and Sub (the remainder), Muls the coordinate by x's stride of perm[j] and Add into the offsets; then
  per element `zLocal.SetValue(k, xGm.GetValue(p6.GetValue(k)))` and a DataCopy of the tile out;
- op_kernel/transposev.cpp (the entry) and op_host/transposev_tiling.cpp (`TransposevTilingFunc`: UB - 512 bytes,
  / 32 / 2, / (25, 13, 7 or 4 for 1-, 2-, 4-, 8-byte types) blocks a tile; cores = min(AIV count, blocks)).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). (1) The offsets' zero is Sub(p6, p6,
p6) of a TBuf nothing wrote (uninitialised at its first use: the sanitizer's init report; ORIGINAL_ZERO = True runs
it): the port Duplicates 0 instead, the same value. (2) The scalar reads perm right after its DataCopyPad and p6 right
after the vector writes with no synchronisation (RAW across pipes): the port adds SetFlag / WaitFlag MTE2_S after
the perm copy, V_S before the scalar loop and S_MTE3 after it (the tile's SetValues reach the copy-out through the
VECOUT queue, whose device event is V_MTE3: decisions.md, "Scalar writes handed over by a queue"); ORIGINAL_SYNC =
True leaves them out (the sanitizer reports the races). (3) Sizes: the split rounds the element count up to whole
32-byte blocks, so with a byte size not a multiple of 32 the last core's output range (and the source offsets it
decomposes) run past the arrays' ends: refused (GM out of bounds, at its SetGlobalBuffer). The port takes shapes
whose byte size is whole 32-byte blocks (the size rule; a test runs another size and shows the refusal). A limit of
the original the port keeps: perm's DataCopyPad with two elements of right padding fills ceil((dims + 2) *
sizeof(U) / 32) blocks of a tile of 8 U's, so int32 perm of 7 or 8 dims (int64: 7 or 8) passes the tile's end
(refused: UB out of bounds; a test shows it at 7 dims).

Devices: the operator's config is the ascend910b (A2; the A3 shares its kernels): the port runs on the A3 and A2.

Fidelity: the moved elements are BIT-EXACT copies; the offsets come through a MODELLED Div (SPEC-2 D37: the exact
quotient rounded once) and CAST_FLOOR, exact for the element counts below 2**24 this runs (checked bit for bit
against numpy's transpose and against the same float chain).
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
BLOCK_SIZE = 32
BUFFER_NUM = 2
MAX_DIM = 8
RESERVED_BYTES = 512
UB_DATA_NUMBER = {1: 25, 2: 13, 4: 7, 8: 4}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32,
       "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "int64": np.int64}
DEVICES = ("atlas-a3", "atlas-a2")
ORIGINAL_ZERO = False              # True: Sub(p6, p6, p6) of the uninitialised TBuf as the offsets' zero
ORIGINAL_SYNC = False              # True: no V_S / S_V flags around the scalar gather


class TransposevTilingData(ctypes.Structure):
    _fields_ = [("smallCoreDataNum", ctypes.c_int64), ("bigCoreDataNum", ctypes.c_int64),
                ("finalBigTileNum", ctypes.c_int64), ("finalSmallTileNum", ctypes.c_int64),
                ("tileDataNum", ctypes.c_int64), ("smallTailDataNum", ctypes.c_int64),
                ("bigTailDataNum", ctypes.c_int64), ("tailBlockNum", ctypes.c_int64), ("dims", ctypes.c_int64),
                ("totalnumber", ctypes.c_int64), ("shape", ctypes.c_int64 * MAX_DIM)]


def tiling(device, shape, dtype):
    """TransposevTilingFunc: (used cores, the tiling bytes)."""
    ub_size = aj.get_device(device).ub_bytes - RESERVED_BYTES
    total = int(np.prod(shape))
    size = np.dtype(_NP[dtype]).itemsize
    tile_blocks = max(1, ub_size // BLOCK_SIZE // BUFFER_NUM // UB_DATA_NUMBER[size])
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
    t = TransposevTilingData(smallCoreDataNum=small, bigCoreDataNum=big, finalBigTileNum=big_tiles,
                             finalSmallTileNum=small_tiles, tileDataNum=tile, smallTailDataNum=small_tail,
                             bigTailDataNum=big_tail, tailBlockNum=tail_blocks, dims=len(shape), totalnumber=total)
    for i, d in enumerate(shape):
        t.shape[i] = d
    return cores, np.frombuffer(bytes(t), np.uint8).copy()


class Transposev:
    """`Transposev<T, U>`."""

    def __init__(self, T, U):
        self.T, self.U = T, U

    def Init(self, x, y, z, tilingData):
        T, U = self.T, self.U
        self.dims = tilingData.dims
        coreNum = aj.GetBlockIdx()
        self.globalBufferIndex = tilingData.bigCoreDataNum * coreNum
        self.tileDataNum = tilingData.tileDataNum
        if coreNum < tilingData.tailBlockNum:
            self.coreDataNum = tilingData.bigCoreDataNum
            self.tileNum = tilingData.finalBigTileNum
            self.tailDataNum = tilingData.bigTailDataNum
        else:
            self.coreDataNum = tilingData.smallCoreDataNum
            self.tileNum = tilingData.finalSmallTileNum
            self.tailDataNum = tilingData.smallTailDataNum
            self.globalBufferIndex -= (tilingData.bigCoreDataNum - tilingData.smallCoreDataNum) * (
                coreNum - tilingData.tailBlockNum)
        self.xGm, self.yGm, self.zGm = aj.GlobalTensor(T), aj.GlobalTensor(U), aj.GlobalTensor(T)
        self.xGm.SetGlobalBuffer(x, tilingData.totalnumber)
        self.yGm.SetGlobalBuffer(y, self.dims)
        self.zGm.SetGlobalBuffer(z[self.globalBufferIndex:], self.coreDataNum)
        self.pipe = aj.TPipe()
        self.inQueueY = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueZ = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.tmp = [aj.TBuf(aj.QuePosition.VECCALC) for _ in range(6)]
        usize = np.dtype(_NP[U]).itemsize
        self.pipe.InitBuffer(self.inQueueY, BUFFER_NUM, 8 * usize)
        self.pipe.InitBuffer(self.outQueueZ, BUFFER_NUM, self.tileDataNum * np.dtype(_NP[T]).itemsize)
        for b in self.tmp:
            self.pipe.InitBuffer(b, self.tileDataNum * 4)
        yLocal = self.inQueueY.AllocTensor(U)
        copyParams = aj.DataCopyExtParams(1, self.dims * usize, 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(True, 0, 2, _NP[U](0))
        aj.DataCopyPad(yLocal, self.yGm, copyParams, padParams)
        if not ORIGINAL_SYNC:
            # deviation (2): the scalar reads perm right after the copy
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_S)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_S)
        self.perm = [int(yLocal.GetValue(i)) for i in range(self.dims)]
        self.inQueueY.FreeTensor(yLocal)
        shape = [int(tilingData.shape[i]) for i in range(self.dims)]
        self.Stride = [1] * self.dims
        for i in range(self.dims - 2, -1, -1):
            self.Stride[i] = self.Stride[i + 1] * shape[i + 1]
        self.NewStride = [1] * self.dims
        for i in range(self.dims - 2, -1, -1):
            self.NewStride[i] = self.NewStride[i + 1] * shape[self.perm[i + 1]]

    def Compute(self, progress):
        zLocal = self.outQueueZ.AllocTensor(self.T)
        p1 = self.tmp[0].Get("int32")
        p2, p3 = self.tmp[1].Get("float"), self.tmp[2].Get("float")
        p4, p5, p6 = self.tmp[3].Get("int32"), self.tmp[4].Get("int32"), self.tmp[5].Get("int32")
        n = self.processDataNum
        aj.ArithProgression(p1, np.int32(self.globalBufferIndex + progress * self.tileDataNum), np.int32(1), n)
        if ORIGINAL_ZERO:
            aj.Sub(p6, p6, p6, n)
        else:
            aj.Duplicate(p6, np.int32(0), n)      # deviation (1): the same zero, from nothing uninitialised
        for j in range(self.dims):
            aj.Duplicate(p3, np.float32(self.NewStride[j]), n)
            aj.Cast(p2, p1, aj.RoundMode.CAST_TRUNC, n)
            aj.Div(p2, p2, p3, n)
            aj.Cast(p4, p2, aj.RoundMode.CAST_FLOOR, n)
            aj.Muls(p5, p4, np.int32(self.NewStride[j]), n)
            aj.Sub(p1, p1, p5, n)
            aj.Muls(p4, p4, np.int32(self.Stride[self.perm[j]]), n)
            aj.Add(p6, p6, p4, n)
        if not ORIGINAL_SYNC:
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)     # deviation (2)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        for total in range(n):
            zLocal.SetValue(total, self.xGm.GetValue(int(p6.GetValue(total))))
        if not ORIGINAL_SYNC:
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_MTE3)  # deviation (2): the copy-out reads the SetValues
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_MTE3)
        self.outQueueZ.EnQue(self.T, zLocal)

    def CopyOut(self, progress):
        zLocal = self.outQueueZ.DeQue(self.T)
        aj.DataCopy(self.zGm[progress * self.tileDataNum], zLocal, self.processDataNum)
        self.outQueueZ.FreeTensor(zLocal)

    def Process(self):
        self.processDataNum = self.tileDataNum
        for i in range(self.tileNum):
            if i == self.tileNum - 1:
                self.processDataNum = self.tailDataNum
            self.Compute(i)
            self.CopyOut(i)


aj.REGISTER_TILING_DEFAULT(TransposevTilingData)


def transposev(x, y, z, workspace, tiling_bytes, T, U):
    """The kernel entry (transposev.cpp; DTYPE_X and DTYPE_PERM as arguments)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(TransposevTilingData, tiling_bytes)
    op = Transposev(T, U)
    op.Init(x, y, z, tilingData)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_transposev(device, x, perm, perm_dtype=np.int32):
    """out = x.transpose(perm) by the kernel; x's byte size a multiple of 32 (the size rule)."""
    T = _dtype_name(x)
    U = "int64" if np.dtype(perm_dtype) == np.int64 else "int32"
    cores, t = tiling(device, x.shape, T)
    out_shape = tuple(x.shape[p] for p in perm)
    z = np.zeros(x.size, x.dtype)
    aj.launch(transposev, cores, device, np.ascontiguousarray(x).reshape(-1), np.asarray(perm, perm_dtype), z, None,
              t, T, U)
    return z.reshape(out_shape)


def transposev_offsets(shape, perm):
    """The kernel's offset chain in numpy: float division of the remaining index by each output stride, floored."""
    dims = len(shape)
    stride = [int(np.prod(shape[i + 1:])) for i in range(dims)]
    new_stride = [int(np.prod([shape[p] for p in perm[i + 1:]])) for i in range(dims)]
    rem = np.arange(int(np.prod(shape)), dtype=np.int32)
    off = np.zeros_like(rem)
    for j in range(dims):
        q = np.floor(rem.astype(np.float32) / np.float32(new_stride[j])).astype(np.int32)
        rem = rem - q * np.int32(new_stride[j])
        off = off + q * np.int32(stride[perm[j]])
    return off


def transposev_model(x, perm):
    return x.reshape(-1)[transposev_offsets(x.shape, perm)].reshape(tuple(x.shape[p] for p in perm))


_CASES = {"": ("float", (6, 40, 24), (2, 0, 1)), "_half_4d": ("half", (3, 8, 10, 16), (3, 1, 0, 2)),
          "_int8": ("int8", (32, 36), (1, 0))}


def _make_inputs(dtype, shape):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        rows = max(1, size // int(np.prod(shape[1:])))
        s = (rows,) + tuple(shape[1:])
        if np.issubdtype(_NP[dtype], np.integer):
            return {"x": rng.integers(-100, 100, s).astype(_NP[dtype])}
        return {"x": rng.standard_normal(s).astype(_NP[dtype])}
    return make_inputs


def _run(perm):
    def run(device, inputs):
        return {"out": run_transposev(device, inputs["x"], perm)}
    return run


def _expected(perm):
    def expected(device, inputs):
        return {"out": np.ascontiguousarray(inputs["x"].transpose(perm))}
    return expected


def _size_ok(dtype, shape):
    inner = int(np.prod(shape[1:]))
    size = np.dtype(_NP[dtype]).itemsize
    return lambda n: n > 0 and n % inner == 0 and n * size % BLOCK_SIZE == 0


_SOURCE = "hicann/ops-math@c4193324 experimental/conversion/transposev/op_kernel/transposev.h"
KERNELS = [
    KernelSpec(f"transposev{suffix}", description, _make_inputs(_CASES[suffix][0], _CASES[suffix][1]),
               _run(_CASES[suffix][2]), _expected(_CASES[suffix][2]), default_size=size, devices=DEVICES,
               source=_SOURCE,
               size_rule=f"rows of {int(np.prod(_CASES[suffix][1][1:]))} elements, whole 32-byte blocks in all",
               size_ok=_size_ok(_CASES[suffix][0], _CASES[suffix][1]))
    for suffix, size, description in (
        ("", 5760, "Transposev of a float (rows, 40, 24) tensor by perm (2, 0, 1): perm read by a padded DataCopyPad, "
         "ArithProgression of output indices, per dimension Cast CAST_TRUNC / Div / Cast CAST_FLOOR / Muls / Sub / "
         "Add in int32 and float, the elements gathered by GM GetValue and UB SetValue; 32-byte block cores"),
        ("_half_4d", 3840, "Transposev of a half (rows, 8, 10, 16) tensor by perm (3, 1, 0, 2)"),
        ("_int8", 1152, "Transposev of an int8 (rows, 36) matrix (a 2-D transpose; 1-byte elements)"))
]
