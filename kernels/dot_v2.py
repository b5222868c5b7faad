"""DotV2 from the CANN math operators: z = sum(x * y) over two vectors, float or half, on several cores.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/dot_v2:
- op_kernel/dot_v2.h (`NsDotV2::DotV2<T>`: the first tailBlockNum ("big") cores take one 32-byte block more; core 0
  clears a workspace of one 32-byte block (workGmSize = 32 / sizeof(T) elements) by InitGlobalMemory; depth-2
  VECIN queues for x and y, a VECOUT queue for a per-tile result and a VECIN queue lending ReduceSum its
  sharedTmpBuffer, all of tileDataNum elements, and a TBuf for the core's accumulator. Process: SyncAll, Duplicate
  0 over the accumulator tile, then per tile DataCopy x and y in (count form), Duplicate 0 into the result tile,
  Mul in place, PipeBarrier<PIPE_V>, count-form ReduceSum, PipeBarrier<PIPE_V>, and on the scalar unit
  `acc[0] = T(float(acc[0]) + float(sum))` by GetValue / SetValue; at the end an MTE2_MTE3 flag pair, SetAtomicAdd<T>,
  DataCopy of the accumulator's first block into the workspace, SetAtomicNone, SyncAll, and core 0 copies element 0
  of the workspace to z by GlobalTensor GetValue / SetValue);
- op_kernel/dot_v2.cpp (the entry, GET_TILING_DATA_WITH_STRUCT) and op_host/dot_v2_tiling.cpp (`DotV2TilingFunc`:
  32-byte blocks; tiles of UB / 32 / 2 / 5 blocks; cores = min(AIV count, blocks); the big/small split of
  ascend_jit.kernels._base.big_small_core_tiling (its tail rule is the same); workGmSize = 32 / sizeof(T)).

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original). The last core copies whole
32-byte blocks, up to 31 bytes past an input that does not end on one: the host pads GM to 32 bytes with zeros, as
device allocations are (those products are +0 and add nothing but the sign of an all -0 sum). The original reads
the ReduceSum result and the Duplicate'd accumulator on the scalar unit after PipeBarrier<PIPE_V> only, and copies
the SetValue'd accumulator out after an MTE2_MTE3 flag only: the scalar unit is ordered against neither the vector
pipe nor MTE3 (SPEC-2 10.1, 10.4; the sanitizer's race reports, `original_sync=True` runs it so and
tests/test_port46m_kernels.py shows them), so the port adds a V_S flag pair before the GetValues and an S_MTE3 pair
before the atomic copy (FetchEventID'd ids). The workspace is the launch's array itself (the original asks for no
user workspace and writes the start of the system one).

Devices: the original is built for the ascend910b (A2 / A3); the port runs on the A3 and A2.

Fidelity: BIT-EXACT (Mul, Duplicate, ReduceSum, the atomic add, the scalar float add; SPEC-2 0.3). The model
replays the per-tile ReduceSum in the device's count-form order (aj.explain_reduce_order's tree, evaluated with numpy
one rounding per add), the core's scalar accumulation (float add, rounded to T), and the cores' atomic adds into the
zeroed workspace in the launch's block order (each add rounded to T).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
BLOCK_SIZE = 32
BUFFER_NUM = 2
TYPE_SIZE = {"float": 4, "half": 2}
_NP = {"float": np.float32, "half": np.float16}
DEVICES = ("atlas-a3", "atlas-a2")


def tiling(device, total, dtype):
    """DotV2TilingFunc: (block dim, tiling data)."""
    size = TYPE_SIZE[dtype]
    ub_data_number = 7 if size == 1 else 5
    tile_block_num = max(1, aj.get_device(device).ub_bytes // BLOCK_SIZE // BUFFER_NUM // ub_data_number)
    tile_data_num = max(1, tile_block_num * BLOCK_SIZE // size)
    blocks = -(-total * size // BLOCK_SIZE)
    core_num = max(1, min(CORE_NUM, blocks))
    small, big, tail_block_num = big_small_core_tiling(total, size, tile_data_num, core_num, block=BLOCK_SIZE)
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num,
                          finalBigTileNum=big.tile_num, finalSmallTileNum=small.tile_num, tileDataNum=tile_data_num,
                          smallTailDataNum=small.tail_data_num, bigTailDataNum=big.tail_data_num,
                          tailBlockNum=tail_block_num, workGmSize=BLOCK_SIZE // size)


class DotV2:
    """`DotV2<T>`."""

    def __init__(self, T, original_sync=False):
        self.T, self.original_sync = T, original_sync
        self.pipe = aj.TPipe()                         # a member: constructed with the op, before Init

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
        self.inputGMX, self.inputGMY = aj.GlobalTensor(), aj.GlobalTensor()
        self.outputGMZ, self.workGM = aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGMX.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.inputGMY.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        self.outputGMZ.SetGlobalBuffer(z, 1)
        self.workGmSize = tilingData["workGmSize"]            # the fewest elements a DataCopy moves
        self.workGM.SetGlobalBuffer(workspace, self.workGmSize)
        if aj.GetBlockIdx() == 0:
            aj.InitGlobalMemory(self.workGM, self.workGmSize, _NP[T](0.0))
        self.inputQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.inputQueueY = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outputQueueZ = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.tmpQueue = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.tmpBuf0 = aj.TBuf(aj.TPosition.VECCALC)
        size = TYPE_SIZE[T]
        for que in (self.inputQueueX, self.inputQueueY, self.outputQueueZ, self.tmpQueue):
            self.pipe.InitBuffer(que, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.tmpBuf0, self.tileDataNum * size)

    def CopyIn(self, progress):
        xLocal = self.inputQueueX.AllocTensor(self.T)
        yLocal = self.inputQueueY.AllocTensor(self.T)
        aj.DataCopy(xLocal, self.inputGMX[progress * self.tileDataNum], self.processDataNum)
        aj.DataCopy(yLocal, self.inputGMY[progress * self.tileDataNum], self.processDataNum)
        self.inputQueueX.EnQue(xLocal)
        self.inputQueueY.EnQue(yLocal)

    def CopyOut(self, tmpTensor0):
        aj.SetFlag(0, event=aj.HardEvent.MTE2_MTE3)
        aj.WaitFlag(0, event=aj.HardEvent.MTE2_MTE3)
        if not self.original_sync:                     # deviation: the SetValue'd accumulator before its copy-out
            e = aj.GetTPipePtr().FetchEventID(aj.HardEvent.S_MTE3)
            aj.SetFlag(e, event=aj.HardEvent.S_MTE3)
            aj.WaitFlag(e, event=aj.HardEvent.S_MTE3)
        aj.SetAtomicAdd(self.T)
        aj.DataCopy(self.workGM, tmpTensor0, self.workGmSize)
        aj.SetAtomicNone()
        aj.SyncAll()

    def Compute(self, progress, tmpTensor0):
        T, n = self.T, self.processDataNum
        xLocal = self.inputQueueX.DeQue(T)
        yLocal = self.inputQueueY.DeQue(T)
        zLocal = self.outputQueueZ.AllocTensor(T)
        sharedTmpBuffer = self.tmpQueue.AllocTensor(T)
        aj.Duplicate(zLocal, _NP[T](0.0), n)
        aj.Mul(xLocal, xLocal, yLocal, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.ReduceSum(zLocal, xLocal, sharedTmpBuffer, n)
        aj.PipeBarrier(aj.PIPE_V)
        if not self.original_sync:                     # deviation: the vector results before the scalar reads
            e = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_S)
            aj.SetFlag(e, event=aj.HardEvent.V_S)
            aj.WaitFlag(e, event=aj.HardEvent.V_S)
        val = zLocal.GetValue(0)
        accum = tmpTensor0.GetValue(0)
        tmpTensor0.SetValue(0, _NP[T](np.float32(accum) + np.float32(val)))   # static_cast<T>(float + float)
        self.outputQueueZ.FreeTensor(zLocal)
        self.inputQueueX.FreeTensor(xLocal)
        self.inputQueueY.FreeTensor(yLocal)
        self.tmpQueue.FreeTensor(sharedTmpBuffer)

    def Process(self):
        aj.SyncAll()
        loopCount = self.tileNum
        self.processDataNum = self.tileDataNum
        tmpTensor0 = self.tmpBuf0.Get(self.T)
        aj.Duplicate(tmpTensor0, _NP[self.T](0.0), self.processDataNum)
        for i in range(loopCount):
            if i == self.tileNum - 1:
                self.processDataNum = self.tailDataNum
            self.CopyIn(i)
            self.Compute(i, tmpTensor0)
        self.CopyOut(tmpTensor0)
        if aj.GetBlockIdx() == 0:
            self.outputGMZ.SetValue(0, self.workGM.GetValue(0))


def dot_v2(x, y, z, workspace, tilingData, dtype, original_sync=False):
    """The kernel entry (dot_v2.cpp)."""
    op = DotV2(dtype, original_sync)
    op.Init(x, y, z, workspace, tilingData)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_dot_v2(device, x, y, original_sync=False, workspace=None):
    dtype = _dtype_name(x)
    block_dim, t = tiling(device, x.size, dtype)
    elems = BLOCK_SIZE // TYPE_SIZE[dtype]
    padded = -(-x.size // elems) * elems                       # deviation: GM padded to 32 bytes
    gm_x, gm_y = np.zeros(padded, x.dtype), np.zeros(padded, x.dtype)
    gm_x[:x.size], gm_y[:y.size] = x, y
    z = np.zeros(1, x.dtype)
    if workspace is None:
        workspace = np.full(t["workGmSize"], 7.0, x.dtype)      # stale: InitGlobalMemory must clear it
    aj.launch(dot_v2, block_dim, device, gm_x, gm_y, z, workspace, t, dtype, original_sync)
    return z


def core_tiles(total, dtype, t, block_dim):
    """Per core, in block order, the (GM start, elements) of each tile the kernel reduces."""
    out = []
    for core in range(block_dim):
        if core < t["tailBlockNum"]:
            tiles, tail = t["finalBigTileNum"], t["bigTailDataNum"]
            start = t["bigCoreDataNum"] * core
        else:
            tiles, tail = t["finalSmallTileNum"], t["smallTailDataNum"]
            start = t["bigCoreDataNum"] * core - (t["bigCoreDataNum"] - t["smallCoreDataNum"]) * \
                (core - t["tailBlockNum"])
        out.append([(start + i * t["tileDataNum"], t["tileDataNum"] if i < tiles - 1 else tail)
                    for i in range(tiles)])
    return out


def dot_v2_model(device, x, y):
    """Mul in T, each tile's ReduceSum by the device's count-form tree, the core's scalar float accumulation rounded
    to T, the cores' atomic adds in block order."""
    dtype = _dtype_name(x)
    np_t = _NP[dtype]
    block_dim, t = tiling(device, x.size, dtype)
    elems = BLOCK_SIZE // TYPE_SIZE[dtype]
    padded = -(-x.size // elems) * elems
    px, py = np.zeros(padded, np_t), np.zeros(padded, np_t)
    px[:x.size], py[:y.size] = x, y
    with np.errstate(all="ignore"):
        prod = (px * py).astype(np_t)
        total = np_t(0.0)
        for tiles in core_tiles(x.size, dtype, t, block_dim):
            acc = np_t(0.0)
            for start, n in tiles:
                tree = aj.explain_reduce_order(device, "count", dtype, count=n)
                val = np_t(tree.evaluate_batch(prod[None, start:start + n])[0])
                acc = np_t(np.float32(acc) + np.float32(val))
            total = np_t(np.float32(total) + np.float32(acc))
    return np.array([total], np_t)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-2.0, 2.0, size)
        y = rng.uniform(-2.0, 2.0, size)
        return {"x": x.astype(_NP[dtype]), "y": y.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"z": run_dot_v2(device, inputs["x"], inputs["y"])}


def _expected(device, inputs):
    return {"z": dot_v2_model(device, inputs["x"], inputs["y"])}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/dot_v2/op_kernel/dot_v2.h"
KERNELS = [
    KernelSpec(f"dot_v2{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 100003, "DotV2 over floats (core 0's InitGlobalMemory, SyncAll; per tile Mul, count-form "
         "ReduceSum, a scalar float add; SetAtomicAdd DataCopy of one 32-byte block, SyncAll; 8 cores)"),
        ("_half", "half", 50003, "DotV2 over halves (per-tile sums and the atomic adds in half)"))
]
