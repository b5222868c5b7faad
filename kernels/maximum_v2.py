"""MaximumV2 from the CANN math operators: z = max(x, y), element by element, over float, int32, int16, half,
bfloat16 and int8 (bfloat16 compared in float, int8 in half; the rest by Max in their own type).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/maximum_v2:
- op_kernel/maximum_v2.h (`NsMaximumV2::MaximumV2<T>`: the first tailBlockNum ("big") cores take one 32-byte block
  more; depth-2 VECIN queues for x and y and a VECOUT queue for z of tileDataNum elements, and two TBufs of
  tileDataNum * sizeof(T) bytes; per tile (the last one tailDataNum elements) DataCopy x and y in (count form),
  Compute, DataCopy z out. Compute: bfloat16: Get<float> of both TBufs, Cast CAST_NONE of x and y, Max, Cast
  CAST_RINT back; int8: the same through half; float, half, int16, int32: one Max into z);
- op_kernel/maximum_v2.cpp (the entry, `MaximumV2<DTYPE_X1>`) and op_host/maximum_v2_tiling.cpp
  (`MaximumV2TilingFunc`: 32-byte blocks; tiles of UB / 32 / 2 / (5 for int8 and bfloat16, else 3) blocks;
  cores = min(AIV count, blocks); the big/small split of ascend_jit.kernels._base.big_small_core_tiling).

Found in the original (`original_buffers=True` runs its buffer sizes; the port's default corrects them):
- the two TBufs are tileDataNum * sizeof(T) bytes, but the bfloat16 and int8 branches view them as float / half,
  twice as wide: a Cast of more than tileDataNum / 2 elements runs past tmpBuf0 into tmpBuf1 (and tmpY past
  tmpBuf1), so on the device the second half of a long tile's x is overwritten by y before Max reads it. The
  emulator refuses the Cast past its tensor (OutOfBoundsError); the port sizes the TBufs by the type they are viewed
  as (float for bfloat16, half for int8), which the tiling's 5 parts leave room for (6 queue tiles of T and two of
  twice T: UB / 10 * 10 bytes at most);
- for float, half, int16 and int32 the tiling's 3 parts give tiles of UB / 6 bytes, and the kernel allocates 6
  queue tiles and the two TBufs of one tile each, 8 / 6 of the UB: InitBuffer past the UB is refused
  (OutOfBoundsError, SPEC "UB sizes used by the emulator"); on the device the two TBufs, never used by these
  types, lie past the UB unread. The port does not allocate them for these types.

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original). The last core copies whole
32-byte blocks: the host pads GM to 32 bytes, as device allocations are.

Devices: the original is built for the ascend910b (the A2/A3 config); the port runs on the A3 and A2.

Fidelity: BIT-EXACT (DataCopy, Cast, Max; SPEC-2 0.3). Max orders as SPEC-2 D41: a NaN operand gives NaN (the
canonical one, D35) and max(-0, +0) = +0 in either order, where numpy's maximum returns its first operand. Checked
bit for bit against numpy's maximum with those two rules (bfloat16 and int8 through float / half, which is exact:
the Casts widen exactly and narrow a value of the type back to itself).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
BLOCK_SIZE = 32
BUFFER_NUM = 2
TYPE_SIZE = {"float": 4, "int32": 4, "int16": 2, "half": 2, "bfloat16": 2, "int8": 1}
# the type the TBufs are viewed as in Compute
WIDE = {"bfloat16": "float", "int8": "half"}
_NP = {"float": np.float32, "int32": np.int32, "int16": np.int16, "half": np.float16, "bfloat16": ml_dtypes.bfloat16,
       "int8": np.int8}
DEVICES = ("atlas-a3", "atlas-a2")


def tiling(device, total, dtype):
    """MaximumV2TilingFunc: (block dim, tiling data)."""
    size = TYPE_SIZE[dtype]
    ub_data_number = 5 if dtype in ("int8", "bfloat16") else 3
    tile_block_num = max(1, aj.get_device(device).ub_bytes // BLOCK_SIZE // BUFFER_NUM // ub_data_number)
    tile_data_num = max(1, tile_block_num * BLOCK_SIZE // size)
    blocks = -(-total * size // BLOCK_SIZE)
    core_num = max(1, min(CORE_NUM, blocks))
    small, big, tail_block_num = big_small_core_tiling(total, size, tile_data_num, core_num, block=BLOCK_SIZE)
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num, tileDataNum=tile_data_num,
                          smallTailDataNum=small.tail_data_num, bigTailDataNum=big.tail_data_num,
                          finalSmallTileNum=small.tile_num, finalBigTileNum=big.tile_num,
                          tailBlockNum=tail_block_num)


class MaximumV2:
    """`MaximumV2<T>`."""

    def __init__(self, T, original_buffers=False):
        self.T, self.original_buffers = T, original_buffers

    def Init(self, x, y, z, workspace, tilingData):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        T = self.T
        coreNum = aj.GetBlockIdx()
        globalBufferIndex = tilingData["bigCoreDataNum"] * coreNum
        self.tileDataNum = tilingData["tileDataNum"]
        if coreNum < tilingData["tailBlockNum"]:
            self.coreDataNum = tilingData["bigCoreDataNum"]
            self.tileNum = tilingData["finalBigTileNum"]
            self.tailDataNum = tilingData["bigTailDataNum"]
        else:
            self.coreDataNum = tilingData["smallCoreDataNum"]
            self.tileNum = tilingData["finalSmallTileNum"]
            self.tailDataNum = tilingData["smallTailDataNum"]
            globalBufferIndex -= (tilingData["bigCoreDataNum"] - tilingData["smallCoreDataNum"]) * \
                (coreNum - tilingData["tailBlockNum"])
        self.inputGMX, self.inputGMY, self.outputGMZ = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGMX.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.inputGMY.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        self.outputGMZ.SetGlobalBuffer(z[globalBufferIndex:], self.coreDataNum)
        self.pipe = aj.TPipe()
        self.inputQueueX = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.inputQueueY = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.outputQueueZ = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.tmpBuf0, self.tmpBuf1 = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        size = TYPE_SIZE[T]
        self.pipe.InitBuffer(self.inputQueueX, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.inputQueueY, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.outputQueueZ, BUFFER_NUM, self.tileDataNum * size)
        if self.original_buffers:
            self.pipe.InitBuffer(self.tmpBuf0, self.tileDataNum * size)
            self.pipe.InitBuffer(self.tmpBuf1, self.tileDataNum * size)
        elif T in WIDE:
            # the port's fix: the TBufs hold a tile of the type Compute views them as (see the docstring)
            self.pipe.InitBuffer(self.tmpBuf0, self.tileDataNum * TYPE_SIZE[WIDE[T]])
            self.pipe.InitBuffer(self.tmpBuf1, self.tileDataNum * TYPE_SIZE[WIDE[T]])

    def CopyIn(self, progress):
        xLocal = self.inputQueueX.AllocTensor(self.T)
        yLocal = self.inputQueueY.AllocTensor(self.T)
        aj.DataCopy(xLocal, self.inputGMX[progress * self.tileDataNum], self.processDataNum)
        aj.DataCopy(yLocal, self.inputGMY[progress * self.tileDataNum], self.processDataNum)
        self.inputQueueX.EnQue(xLocal)
        self.inputQueueY.EnQue(yLocal)

    def CopyOut(self, progress):
        zLocal = self.outputQueueZ.DeQue(self.T)
        aj.DataCopy(self.outputGMZ[progress * self.tileDataNum], zLocal, self.processDataNum)
        self.outputQueueZ.FreeTensor(zLocal)

    def Compute(self, progress):
        T, n = self.T, self.processDataNum
        xLocal = self.inputQueueX.DeQue(T)
        yLocal = self.inputQueueY.DeQue(T)
        zLocal = self.outputQueueZ.AllocTensor(T)
        if T in WIDE:
            tmpX, tmpY = self.tmpBuf0.Get(WIDE[T]), self.tmpBuf1.Get(WIDE[T])
            aj.Cast(tmpX, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(tmpY, yLocal, aj.RoundMode.CAST_NONE, n)
            aj.Max(tmpX, tmpX, tmpY, n)
            aj.Cast(zLocal, tmpX, aj.RoundMode.CAST_RINT, n)
        else:
            aj.Max(zLocal, xLocal, yLocal, n)
        self.outputQueueZ.EnQue(zLocal)
        self.inputQueueX.FreeTensor(xLocal)
        self.inputQueueY.FreeTensor(yLocal)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.tileDataNum
        for i in range(loopCount):
            if i == self.tileNum - 1:
                self.processDataNum = self.tailDataNum
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)


def maximum_v2(x, y, z, workspace, tilingData, dtype, original_buffers=False):
    """The kernel entry (maximum_v2.cpp)."""
    op = MaximumV2(dtype, original_buffers)
    op.Init(x, y, z, workspace, tilingData)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_maximum_v2(device, x, y, original_buffers=False):
    dtype = _dtype_name(x)
    block_dim, t = tiling(device, x.size, dtype)
    elems = BLOCK_SIZE // TYPE_SIZE[dtype]
    padded = -(-x.size // elems) * elems                    # deviation: GM padded to 32 bytes
    gm_x, gm_y, gm_z = (np.zeros(padded, x.dtype) for _ in range(3))
    gm_x[:x.size], gm_y[:y.size] = x, y
    aj.launch(maximum_v2, block_dim, device, gm_x, gm_y, gm_z, None, t, dtype, original_buffers)
    return gm_z[:x.size]


def maximum_v2_model(x, y):
    """numpy's maximum (NaN propagates), NaN canonical for the float types (D35), max(-0, +0) = +0 (D41)."""
    z = np.maximum(x, y)
    if x.dtype.kind == "f" or x.dtype == ml_dtypes.bfloat16:
        xf, yf = x.astype(np.float32), y.astype(np.float32)
        z[np.isnan(z.astype(np.float32))] = np.array(np.nan, np.float32).astype(x.dtype)
        z[(xf == 0) & (yf == 0)] = np.array(0.0, np.float32).astype(x.dtype)
    return z


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if dtype in ("int32", "int16", "int8"):
            info = np.iinfo(_NP[dtype])
            x = rng.integers(info.min, info.max, size, endpoint=True)
            y = rng.integers(info.min, info.max, size, endpoint=True)
            y[::7] = x[::7]
        else:
            x = rng.standard_normal(size) * 100
            y = rng.standard_normal(size) * 100
            y[::7] = x[::7]
            x[::53] = np.inf
            y[5::53] = -np.inf
            x[9::61], y[9::61] = -0.0, 0.0
            x[10::61], y[10::61] = 0.0, -0.0
            x[11::67] = np.nan
        return {"x": x.astype(_NP[dtype]), "y": y.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"z": run_maximum_v2(device, inputs["x"], inputs["y"])}


def _expected(device, inputs):
    return {"z": maximum_v2_model(inputs["x"], inputs["y"])}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/maximum_v2/op_kernel/maximum_v2.h"
KERNELS = [
    KernelSpec(f"maximum_v2{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 50003, "MaximumV2 over floats (Max; 32-byte-block big/small cores, double-buffered count-form "
         "DataCopy tiles)"),
        ("_int32", "int32", 50003, "MaximumV2 over int32 (integer Max)"),
        ("_int16", "int16", 50003, "MaximumV2 over int16 (integer Max)"),
        ("_half", "half", 30001, "MaximumV2 over halves (Max)"),
        ("_bf16", "bfloat16", 30001, "MaximumV2 over bfloat16 (Cast CAST_NONE to float TBufs, Max, Cast CAST_RINT)"),
        ("_int8", "int8", 50003, "MaximumV2 over int8 (Cast CAST_NONE to half TBufs, Max, Cast CAST_RINT)"))
]
