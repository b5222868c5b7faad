"""Onehot from the CANN math operators' conversion family: z[i, k] = 1 where x[i] == k, else 0, for k in
[0, depth), over int32 indices (an index outside [0, depth) gives a row of zeros).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/conversion/onehot:
- op_kernel/onehot.h (`NsOnehot::Onehot<T>`: the first tailBlockNum ("big") cores take one 32-byte block more; a
  depth-2 VECIN queue of tileDataNum indices, a depth-2 VECOUT queue of one row (depthAlign = depth rounded up to 8
  elements), TBufs for an 8 * depthAlign-byte compare mask, depthAlign floats of ones, depthAlign floats of result
  and depthAlign lane numbers; for every index j of every tile: CopyIn DataCopies the whole tile again (count form),
  Compute AllocTensors the TBufs, Duplicates 1.0f into the ones, PipeBarrier<PIPE_V>, writes the lane numbers
  0..depth-1 and -1 for the padding lanes by SetValue, reads the index by `xLocal.GetValue(j)`, CompareScalar EQ in
  the high-dimensional form (mask depthAlign, one repeat, UnaryRepeatParams {1, 1, 8, 8}) into the uint8 mask,
  Select tensor-scalar (the uint16 view of the mask, ones, 0.0f, count depth), Cast float -> int32 CAST_CEIL over
  depth lanes, EnQue; CopyOut DataCopyPads one row of depth * 4 bytes (DataCopyExtParams {1, depth * 4, 0, 0, 0})
  to row (tile * tileDataNum + j); the tiles' TBufs FreeTensor'd);
- op_kernel/onehot.cpp (the entry) and op_host/onehot_tiling.cpp (`OnehotTilingFunc`: 32-byte blocks; tiles of
  UB / 32 / 2 / 3 blocks; cores = min(AIV count, blocks); the big/small split of
  ascend_jit.kernels._base.big_small_core_tiling over 32-byte blocks).

Deviations:
- the core count is at most the launch's 8 (GetCoreNumAiv in the original);
- the last core's last tile copies and walks whole 32-byte blocks (8 indices), up to 7 past the input: the host pads
  x (with zeros) and z to whole blocks of indices (those rows are computed and never returned), as the original's
  tiling assumes;
- the high-dimensional CompareScalar ignores its mask on the A2/A3 and compares a whole 256-byte repeat (SPEC-2
  D44), so it reads 64 lane numbers from a dLocal of depthAlign: past the TBuf for depth <= 56 (on the device,
  whatever the next buffer holds, in lanes whose bits Select never reads). The emulator refuses the read past the
  tensor (OutOfBoundsError, tests/test_port45d_kernels.py); the port sizes dBuf to a whole repeat (64 int32) and
  writes -1 into every lane from depth to its end, so the extra lanes compare as the original's padding lanes do;
- synchronisation (`original_sync=False`; True runs the original's sequence): the original writes the lane numbers
  by SetValue and lets CompareScalar read them with no flag between (a scalar -> vector RAW), and the next index's
  SetValues overwrite them with no flag after the previous CompareScalar (vector -> scalar WAR): the sanitizer
  reports both (tests/test_port45d_kernels.py). The port adds an S_V flag pair after the SetValue loop and a V_S pair
  before it; the values are the same.

Limits kept from the original: the CompareScalar is one repeat, 64 int32 lanes, whatever its mask (a continuous
mask above the lanes clamps, SPEC D15, and the A2/A3 ignore a high-dimensional Compare's mask, SPEC-2 D44), so for
depth > 64 the Select reads mask bits past the 8 bytes the compare wrote: the sanitizer reports the uninitialised
read, and the bits of indices >= 64 are whatever the buffer held. The gallery runs depth <= 64.

Devices: the original is built for the ascend910b (the A2/A3 config); the port runs on the A3 and A2.

Fidelity: BIT-EXACT (DataCopy, DataCopyPad, Duplicate, CompareScalar, Select, Cast; SPEC-2 0.3): checked bit for bit
against numpy's one-hot.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
BLOCK_SIZE = 32
BUFFER_NUM = 2
REPEAT_LANES = 64                  # int32 lanes of one 256-byte repeat
UB_DATA_NUMBER = 3                 # 4-byte indices (5 for 1-byte types, which the op does not take)
DEVICES = ("atlas-a3", "atlas-a2")


def tiling(device, total, depth):
    """OnehotTilingFunc: (block dim, tiling data)."""
    size = 4
    tile_block_num = max(1, aj.get_device(device).ub_bytes // BLOCK_SIZE // BUFFER_NUM // UB_DATA_NUMBER)
    tile_data_num = tile_block_num * BLOCK_SIZE // size
    blocks = -(-total * size // BLOCK_SIZE)
    core_num = min(CORE_NUM, blocks)
    small, big, tail_block_num = big_small_core_tiling(total, size, tile_data_num, core_num, block=BLOCK_SIZE)
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num,
                          finalBigTileNum=big.tile_num, finalSmallTileNum=small.tile_num, tileDataNum=tile_data_num,
                          smallTailDataNum=small.tail_data_num, bigTailDataNum=big.tail_data_num,
                          tailBlockNum=tail_block_num, depth=depth)


class Onehot:
    """`Onehot<T>` (T = int32)."""

    def __init__(self, original_sync=False):
        self.T = "int32"
        self.original_sync = original_sync
        self.repeat = 1
        self.repeatParams = aj.UnaryRepeatParams(1, 1, 8, 8)

    def Init(self, x, z, tilingData):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        coreNum = aj.GetBlockIdx()
        globalBufferIndex = tilingData["bigCoreDataNum"] * coreNum
        self.tileDataNum = tilingData["tileDataNum"]
        self.depth = tilingData["depth"]
        self.depthAlign = (self.depth + 8 - 1) // 8 * 8
        self.maskCmp = self.depthAlign
        self.processDataNum = self.tileDataNum
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
        self.xGm, self.zGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.zGm.SetGlobalBuffer(z[globalBufferIndex * self.depth:], self.coreDataNum * self.depth)
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.outQueueZ = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.cmpBuf, self.oneBuf, self.zBuf, self.dBuf = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(4))
        self.pipe.InitBuffer(self.cmpBuf, 8 * self.depthAlign * 1)
        self.pipe.InitBuffer(self.oneBuf, self.depthAlign * 4)
        self.pipe.InitBuffer(self.zBuf, self.depthAlign * 4)
        # deviation: the lane numbers fill a whole 256-byte repeat (the original: depthAlign * 4 bytes), see above
        self.dLanes = max(self.depthAlign, REPEAT_LANES)
        self.pipe.InitBuffer(self.dBuf, self.dLanes * 4)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum * 4)
        self.pipe.InitBuffer(self.outQueueZ, BUFFER_NUM, self.depthAlign * 4)

    def CopyIn(self, progress, j):
        xLocal = self.inQueueX.AllocTensor(self.T)
        aj.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def CopyOut(self, progress, j):
        zLocal = self.outQueueZ.DeQue(self.T)
        copyParams = aj.DataCopyExtParams(1, self.depth * 4, 0, 0, 0)
        aj.DataCopyPad(self.zGm[(progress * self.tileDataNum + j) * self.depth], zLocal, copyParams)
        self.outQueueZ.FreeTensor(zLocal)

    def Compute(self, progress, j):
        xLocal = self.inQueueX.DeQue(self.T)
        zLocal = self.outQueueZ.AllocTensor(self.T)
        cmp = self.cmpBuf.AllocTensor("uint8")
        zfloat = self.zBuf.AllocTensor("float")
        oneLocal = self.oneBuf.AllocTensor("float")
        dLocal = self.dBuf.AllocTensor(self.T)
        aj.Duplicate(oneLocal, np.float32(1.0), self.depthAlign)
        aj.PipeBarrier(aj.PIPE_V)
        if not self.original_sync:
            # the previous index's CompareScalar read dLocal on PIPE_V: wait for it before the scalar overwrites it
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        for i in range(self.depth):
            dLocal.SetValue(i, i)
        for i in range(self.depth, self.dLanes):      # the original: up to depthAlign
            dLocal.SetValue(i, -1)
        xVal = int(xLocal.GetValue(j))
        if not self.original_sync:
            # the lane numbers were written by the scalar unit: publish them to PIPE_V before CompareScalar reads them
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
        aj.CompareScalar(cmp, dLocal, np.int32(xVal), aj.CMPMODE.EQ, self.maskCmp, self.repeat, self.repeatParams)
        mask_Dup = self.cmpBuf.AllocTensor("uint16")
        aj.Select(zfloat, mask_Dup[0], oneLocal, np.float32(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, self.depth)
        aj.Cast(zLocal, zfloat, aj.RoundMode.CAST_CEIL, self.depth)
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)
        self.cmpBuf.FreeTensor(cmp)
        self.oneBuf.FreeTensor(oneLocal)
        self.zBuf.FreeTensor(zfloat)
        self.dBuf.FreeTensor(dLocal)

    def Process(self):
        loopCount = self.tileNum
        for i in range(loopCount):
            if i == self.tileNum - 1:
                self.processDataNum = self.tailDataNum
            for j in range(self.processDataNum):
                self.CopyIn(i, j)
                self.Compute(i, j)
                self.CopyOut(i, j)


def onehot(x, z, workspace, tilingData, original_sync=False):
    """The kernel entry (onehot.cpp)."""
    op = Onehot(original_sync)
    op.Init(x, z, tilingData)
    op.Process()


def run_onehot(device, x, depth, original_sync=False):
    """(n,) int32 indices -> (n, depth) int32."""
    block_dim, t = tiling(device, x.size, depth)
    padded = -(-x.size // 8) * 8                             # deviation: x and z padded to whole 32-byte blocks
    gm_x = np.zeros(padded, np.int32)
    gm_x[:x.size] = x
    gm_z = np.zeros(padded * depth, np.int32)
    aj.launch(onehot, block_dim, device, gm_x, gm_z, None, t, original_sync)
    return gm_z[:x.size * depth].reshape(x.size, depth)


def onehot_model(x, depth):
    return (x.astype(np.int64)[:, None] == np.arange(depth)[None, :]).astype(np.int32)


def _make_inputs(depth):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.integers(-2, depth + 2, size).astype(np.int32)   # some outside [0, depth): zero rows
        return {"x": x}
    return make_inputs


def _run(depth):
    def run(device, inputs):
        return {"z": run_onehot(device, inputs["x"], depth)}
    return run


def _expected(depth):
    def expected(device, inputs):
        return {"z": onehot_model(inputs["x"], depth)}
    return expected


_SOURCE = "hicann/ops-math@c4193324 experimental/conversion/onehot/op_kernel/onehot.h"
KERNELS = [
    KernelSpec(f"onehot{suffix}", description, _make_inputs(depth), _run(depth), _expected(depth),
               default_size=size, devices=DEVICES, source=_SOURCE)
    for suffix, depth, size, description in (
        ("", 10, 203, "Onehot of int32 indices, depth 10 (per index: the tile copied again, SetValue lane numbers, "
         "GetValue of the index, high-dim CompareScalar EQ int32 into a bit mask, tensor-scalar Select of ones, Cast "
         "float -> int32 CAST_CEIL, a one-row DataCopyPad)"),
        ("_depth64", 64, 101, "Onehot, depth 64 (one whole repeat of int32 lanes, the largest the mask takes)"))
]
