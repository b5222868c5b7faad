"""ReduceMinV2 from the CANN math operators: the minimum of a 2-D float or half tensor over axis 0 (per column),
axis 1 (per row) or all of it, per core on the scalar unit and across the cores by an atomic-min DataCopy into a GM
workspace of 64-byte slots that core 0 first fills with +inf.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/reduce_min_v2/op_kernel/
reduce_min_v2.h (`NsReduceMinV2::ReduceMinV2<T>`: Init splits the flattened tensor into big and small cores of
whole 32-byte blocks, binds x to the core's real elements, z (the result: cols, rows or one element, shared by every
core) and the float workspace of one 16-float slot per result, which core 0 fills by `InitGlobalMemory(workGm,
size, +inf)`; a depth-2 VECIN queue of tileDataNum elements, VECCALC TBufs tmpFloat (a float tile), tmpBase (64
floats), tmpBuffer (the slots) and colMin / rowMin (one float per result). Process by the axes attribute:
Axes0 / Axes1: SyncAll, SetValue +inf per result; per tile DataCopy in, DeQue, the float tile by Cast CAST_NONE
(half) or a scalar GetValue / SetValue copy (float), then per element on the scalar unit its global index, row and
column, and `if (prev > cur) SetValue(cur)` on its result; then Duplicate +inf over the slots, SetValue of each
result at its slot's first float, SetAtomicMin<float>, DataCopy of the slots to the workspace, SetAtomicNone,
SyncAll, and core 0 DataCopy's the slots back and writes z by GlobalTensor SetValue of each slot's first float cast
to T. AxesAll: per tile the same float tile, a scalar running minimum, kept in tmpBase[0]; Duplicate +inf over 8
floats, SetValue(0, min), SetAtomicMin, DataCopy of the 8 floats to slot 0, SetAtomicNone, DataCacheCleanAndInvalid
of slot 0, SyncAll, and every core reads the slot by GetValue, core 0 writing z[0]), reduce_min_v2.cpp
(REGISTER_TILING_DEFAULT, GET_TILING_DATA_WITH_STRUCT(ReduceMinV2TilingData)) and reduce_min_v2_tiling_data.h, with
the host tiling of experimental/math/reduce_min_v2/op_host/reduce_min_v2_tiling.cpp (`ReduceMinV2TilingFunc`:
tiles of (UB / 2 / 32) / 6 blocks; one core when a tile holds the input, else one core a 32-byte block up to the
core count; big and small cores block by block; dataTypeId the ge type (float 0, half 1); rows and cols the shape's
two dimensions; axes default -1 (all); a 16 MiB workspace).

Deviations:
- The core count is the launch's 8 (GetCoreNumAiv in the original). The host pads GM to the 32-byte blocks the
  tiling deals out.
- ORIGINAL_SYNC: the original orders none of its scalar-unit accesses against the pipes: Cast (V) then GetValue of
  the float tile, Duplicate (V) then SetValue over the slots, SetValue then the atomic DataCopy (MTE3) of the slots,
  and core 0's DataCopy (MTE2) back into the slots then GetValue. The sanitizer reports these races (the device
  needs the order too); the port adds SetFlag/WaitFlag pairs with ids fetched from the pipe (V_S, V_S, S_MTE3 and
  MTE2_S; the SyncAll between the atomic copy and the copy back orders those two). Also the float tile's scalar
  copy reads the DeQue'd queue tensor, which the device's hand-off orders for the vector unit only (MTE2_V): the
  sanitizer's "device-sync" mode reports it; the port adds an MTE2_S pair there too. `ORIGINAL_SYNC = True` runs
  without them.
- ORIGINAL_NO_SYNCALL: AxesAll, unlike Axes0 / Axes1, does not start with a SyncAll, so nothing orders core 0's
  InitGlobalMemory of the slot before the other cores' atomic DataCopy into it (on the device a core that gets there
  first has its minimum overwritten by the +inf fill; the sanitizer's blocks check reports the two writes), nor
  InitGlobalMemory's Duplicate over the UB's stack buffer (all of the UB: it runs before the InitBuffers) before the
  scalar SetValues into the TBufs later placed there (a V -> S race the sanitizer reports, under the name
  Duplicate at the InitGlobalMemory line). The port starts AxesAll with the SyncAll the other two paths start with
  (a barrier of every pipe too); `ORIGINAL_NO_SYNCALL = True` leaves it out.
- ORIGINAL_WINDOW: the last core's GlobalTensor is bound to the input's real elements, but its last tile copies
  (and AxesAll's scalar loop reads) the whole 32-byte block. The device does not check a GlobalTensor's size; the
  emulator keeps every access inside it (docs/decisions.md "Scaffolding") and refuses the copy (OutOfBoundsError,
  DataCopy 'src'). The port binds the window rounded up to the block; `ORIGINAL_WINDOW = True` binds the original's.
  The lanes past the input are GM past the tensor on the device: the axis paths skip them by their global index,
  AxesAll counts them in its minimum (the original's bug: an input whose byte size is not whole 32-byte blocks gets
  the minimum of what follows it in GM too). The port's host pads with +inf, which changes nothing;
  tests/test_port40pa_kernels.py pads with 0 and shows the result move.

Devices: the operator's one config is the A2 (ascend910b); the port runs on the A2, the A3 and the 950 (the devices
with InitGlobalMemory, the hard SyncAll and a float atomic min), with the same results.

Fidelity: BIT-EXACT (Cast, Duplicate, DataCopy, the atomic float min and scalar float compares: SPEC-2 0.3; the
minimum of floats is exact and order-independent but for the sign of zero, which the strict `prev > cur` keeps from
the first element seen). The expectation is numpy's min over the float32 values (half widened exactly), cast back
to T with RNE; every test input avoids NaN (the scalar `>` never takes a NaN) and mixes -0 and +0 only where the
first one seen is the expected one.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
DATA_CACHE_CLEAN_NEED = 64
SLOT_STRIDE = DATA_CACHE_CLEAN_NEED // 4
BLOCK_SIZE = 32
UB_DATA_NUMBER_32 = 6
WS_SYS_SIZE = 16 * 1024 * 1024
CORE_NUM = 8
DT_ID = {"float": 0, "half": 1}            # ge::DT_FLOAT, ge::DT_FLOAT16
AXES_ALL = 0xFFFFFFFF                      # the attribute's default -1 stored in a uint32
TYPE_SIZE = {"float": 4, "half": 2}
_NP = {"float": np.float32, "half": np.float16}
DEVICES = ("atlas-a2", "atlas-a3", "ascend950")
ORIGINAL_SYNC = False
ORIGINAL_NO_SYNCALL = False
ORIGINAL_WINDOW = False

ReduceMinV2TilingData = np.dtype([(name, np.uint32) for name in (
    "smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum", "tileDataNum", "smallTailDataNum",
    "bigTailDataNum", "tailBlockNum", "dataTypeId", "rows", "cols", "axes", "keepdims")])


def tiling(device, rows, cols, dtype, axes=-1, keepdims=1):
    """ReduceMinV2TilingFunc: (block dim, the packed ReduceMinV2TilingData, workspace bytes)."""
    ub_size, core_num = aj.get_device(device).ub_bytes, CORE_NUM
    input_num = rows * cols
    input_bytes = TYPE_SIZE[dtype]
    tile_block_num = ub_size // BUFFER_NUM // BLOCK_SIZE // UB_DATA_NUMBER_32
    tile_data_num = tile_block_num * BLOCK_SIZE // input_bytes
    align32 = -(-input_num * input_bytes // BLOCK_SIZE) * BLOCK_SIZE
    core_num = 1 if tile_data_num >= input_num else min(core_num, align32 // BLOCK_SIZE)
    every = align32 // BLOCK_SIZE // core_num
    tail_block_num = align32 // BLOCK_SIZE % core_num
    small_data = every * BLOCK_SIZE // input_bytes
    small_tiles = every // tile_block_num
    final_small = small_tiles + (every % tile_block_num != 0)
    small_tail = small_data - tile_data_num * small_tiles or tile_data_num
    every += 1
    big_data = every * BLOCK_SIZE // input_bytes
    big_tiles = every // tile_block_num
    final_big = big_tiles + (every % tile_block_num != 0)
    big_tail = big_data - tile_data_num * big_tiles or tile_data_num
    t = np.zeros(1, ReduceMinV2TilingData)
    for name, value in (("smallCoreDataNum", small_data), ("bigCoreDataNum", big_data),
                        ("finalBigTileNum", final_big), ("finalSmallTileNum", final_small),
                        ("tileDataNum", tile_data_num), ("smallTailDataNum", small_tail),
                        ("bigTailDataNum", big_tail), ("tailBlockNum", tail_block_num),
                        ("dataTypeId", DT_ID[dtype]), ("rows", rows), ("cols", cols), ("axes", axes & 0xFFFFFFFF),
                        ("keepdims", keepdims)):
        t[name] = value
    return core_num, t.view(np.uint8).copy(), WS_SYS_SIZE


class ReduceMinV2:
    def __init__(self, T):
        self.T = T
        self.pipe = aj.TPipe()                         # a member: constructed with the op, before Init

    def _flag(self, event):
        """The port's ordering (module docstring, ORIGINAL_SYNC): a fetched id of `event`, set and waited at once."""
        if ORIGINAL_SYNC:
            return
        event_id = aj.GetTPipePtr().FetchEventID(event)
        aj.SetFlag(event_id, event=event)
        aj.WaitFlag(event_id, event=event)

    def Init(self, x, z, workspace, tilingData):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        self.blockIdx = aj.GetBlockIdx()
        self.blockNum = aj.GetBlockNum()
        globalBufferIndex = int(tilingData.bigCoreDataNum) * self.blockIdx
        self.tileDataNum = int(tilingData.tileDataNum)
        self.axes, self.rows, self.cols = int(tilingData.axes), int(tilingData.rows), int(tilingData.cols)
        self.keyType = int(tilingData.dataTypeId)
        if self.blockIdx < int(tilingData.tailBlockNum):
            self.coreDataNum = int(tilingData.bigCoreDataNum)
            self.tileNum = int(tilingData.finalBigTileNum)
            self.tailDataNum = int(tilingData.bigTailDataNum)
        else:
            self.coreDataNum = int(tilingData.smallCoreDataNum)
            self.tileNum = int(tilingData.finalSmallTileNum)
            self.tailDataNum = int(tilingData.smallTailDataNum)
            globalBufferIndex -= (int(tilingData.bigCoreDataNum) - int(tilingData.smallCoreDataNum)) * \
                (self.blockIdx - int(tilingData.tailBlockNum))
        self.xGm, self.zGm, self.workGm = aj.GlobalTensor(self.T), aj.GlobalTensor(self.T), aj.GlobalTensor("float")
        totalElements = self.rows * self.cols
        if globalBufferIndex >= totalElements:
            self.coreDataNum = 0
            self.xGm.SetGlobalBuffer(x, 0)
        else:
            available = totalElements - globalBufferIndex
            if not ORIGINAL_WINDOW:                    # deviation: the window of the blocks the last tile copies
                per_block = BLOCK_SIZE // TYPE_SIZE[self.T]
                available = -(-available // per_block) * per_block
            bindLen = min(available, self.coreDataNum)
            self.xGm.SetGlobalBuffer(x[globalBufferIndex:], bindLen)
            self.coreDataNum = bindLen
        outputSize = self.cols if self.axes == 0 else self.rows if self.axes == 1 else 1
        self.zGm.SetGlobalBuffer(z, outputSize)             # every core's output GM
        workGmSize = (self.cols if self.axes == 0 else self.rows if self.axes == 1 else 1) * SLOT_STRIDE
        self.workGm.SetGlobalBuffer(workspace, workGmSize)
        if aj.GetBlockIdx() == 0:
            aj.InitGlobalMemory(self.workGm, workGmSize, np.float32(np.inf))
        self.inQueueInput = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.tmpFloat, self.tmpBase, self.rowMin, self.colMin, self.tmpBuffer = (
            aj.TBuf(aj.TPosition.VECCALC) for _ in range(5))
        self.pipe.InitBuffer(self.inQueueInput, BUFFER_NUM, self.tileDataNum * TYPE_SIZE[self.T])
        self.pipe.InitBuffer(self.tmpFloat, self.tileDataNum * 4)
        self.pipe.InitBuffer(self.tmpBase, 64 * 4)
        self.pipe.InitBuffer(self.tmpBuffer, workGmSize * 4)
        if self.axes == 0:
            self.pipe.InitBuffer(self.colMin, self.cols * 4)
        elif self.axes == 1:
            self.pipe.InitBuffer(self.rowMin, self.rows * 4)
        self.globalOffset = globalBufferIndex

    def CopyIn(self, progress):
        curTileLen = self.tailDataNum if progress == self.tileNum - 1 else self.tileDataNum
        xLocal = self.inQueueInput.AllocTensor(self.T)
        aj.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], curTileLen)
        self.inQueueInput.EnQue(xLocal)

    def Process(self):
        if self.axes == 0:
            self.ReduceMinV2Axes(by_column=True)
        elif self.axes == 1:
            self.ReduceMinV2Axes(by_column=False)
        else:
            self.ReduceMinV2AxesAll()

    def _float_tile(self, tileLocal, curTileLen):
        """The tile as floats: Cast (half) or a scalar copy (float)."""
        tileFloat = self.tmpFloat.Get("float")
        if self.keyType == 1:
            aj.Cast(tileFloat, tileLocal, aj.RoundMode.CAST_NONE, curTileLen)
            self._flag(aj.HardEvent.V_S)               # deviation: the GetValues read the Cast
        else:
            self._flag(aj.HardEvent.MTE2_S)            # deviation: the GetValues read the DeQue'd copy
            for i in range(curTileLen):
                tileFloat.SetValue(i, tileLocal.GetValue(i))
        return tileFloat

    def ReduceMinV2Axes(self, by_column):
        """ReduceMinV2Axes0 (by_column) and ReduceMinV2Axes1: the two functions differ only in the result an element
        goes to (its column or its row) and the buffer that holds the results."""
        aj.SyncAll()
        colNum, rowNum = self.cols, self.rows
        totalElements = rowNum * colNum
        tileLen, lastTileLen, globalOffset = self.tileDataNum, self.tailDataNum, self.globalOffset
        resultNum = colNum if by_column else rowNum
        localMin = (self.colMin if by_column else self.rowMin).Get("float")
        for c in range(resultNum):
            localMin.SetValue(c, np.float32(np.inf))
        for t in range(self.tileNum):
            curTileLen = lastTileLen if t == self.tileNum - 1 else tileLen
            self.CopyIn(t)
            tileLocal = self.inQueueInput.DeQue(self.T)
            tileFloat = self._float_tile(tileLocal, curTileLen)
            for i in range(curTileLen):
                globalIdx = globalOffset + t * tileLen + i
                if globalIdx >= totalElements:
                    continue
                rowIdx, colIdx = divmod(globalIdx, colNum)
                k = colIdx if by_column else rowIdx
                if k < resultNum:
                    prev = localMin.GetValue(k)
                    curv = tileFloat.GetValue(i)
                    if prev > curv:
                        localMin.SetValue(k, curv)
            self.inQueueInput.FreeTensor(tileLocal)
        tmpBuf = self.tmpBuffer.Get("float")
        totalWorkSize = resultNum * SLOT_STRIDE
        aj.Duplicate(tmpBuf, np.float32(np.inf), totalWorkSize)
        self._flag(aj.HardEvent.V_S)                   # deviation: the SetValues write over the Duplicate
        for c in range(resultNum):
            tmpBuf.SetValue(c * SLOT_STRIDE, localMin.GetValue(c))
        self._flag(aj.HardEvent.S_MTE3)                # deviation: the atomic copy reads the SetValues
        aj.SetAtomicMin("float")
        aj.DataCopy(self.workGm, tmpBuf, totalWorkSize)
        aj.SetAtomicNone()
        aj.SyncAll()
        if self.blockIdx == 0:
            aj.DataCopy(tmpBuf, self.workGm, totalWorkSize)
            self._flag(aj.HardEvent.MTE2_S)            # deviation: the GetValues read the copy
            for c in range(resultNum):
                val = tmpBuf.GetValue(c * SLOT_STRIDE)
                self.zGm.SetValue(c, _NP[self.T](val))

    def ReduceMinV2AxesAll(self):
        if not ORIGINAL_NO_SYNCALL:
            aj.SyncAll()                               # deviation: as Axes0 / Axes1 start (module docstring)
        loopCount, tileLen, lastTileLen = self.tileNum, self.tileDataNum, self.tailDataNum
        localMin = self.tmpBase.Get("float")
        localMin.SetValue(0, np.float32(np.inf))
        for t in range(loopCount):
            curTileLen = lastTileLen if t == loopCount - 1 else tileLen
            self.CopyIn(t)
            tileLocal = self.inQueueInput.DeQue(self.T)
            tileFloat = self._float_tile(tileLocal, curTileLen)
            tileMin = np.float32(np.inf)
            for i in range(curTileLen):
                curv = tileFloat.GetValue(i)
                if curv < tileMin:
                    tileMin = curv
            if localMin.GetValue(0) > tileMin:
                localMin.SetValue(0, tileMin)
            self.inQueueInput.FreeTensor(tileLocal)
        tmpBuf = self.tmpBuffer.Get("float")
        aj.Duplicate(tmpBuf, np.float32(np.inf), 8)
        self._flag(aj.HardEvent.V_S)                   # deviation: the SetValue writes over the Duplicate
        tmpBuf.SetValue(0, localMin.GetValue(0))
        self._flag(aj.HardEvent.S_MTE3)                # deviation: the atomic copy reads the SetValue
        aj.SetAtomicMin("float")
        aj.DataCopy(self.workGm[0], tmpBuf, 8)
        aj.SetAtomicNone()
        aj.DataCacheCleanAndInvalid(self.workGm[0], entire_type=aj.CacheLine.SINGLE_CACHE_LINE,
                                    dcci_dst=aj.DcciDst.CACHELINE_OUT)
        aj.SyncAll()
        globalMin = self.workGm.GetValue(0)
        if self.blockIdx == 0:
            self.zGm.SetValue(0, _NP[self.T](globalMin))


aj.REGISTER_TILING_DEFAULT(ReduceMinV2TilingData)


def reduce_min_v2(x, z, workspace, tiling_bytes, DTYPE_X):
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ReduceMinV2TilingData, tiling_bytes)
    op = ReduceMinV2(DTYPE_X)
    op.Init(x, z, workspace, tilingData)
    op.Process()


def _make_inputs(dtype, cols):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        rows = size // cols
        x = (rng.standard_normal((rows, cols)) * 100).astype(_NP[dtype])
        x[rng.random((rows, cols)) < 0.01] = np.inf
        x[rng.random((rows, cols)) < 0.001] = -np.inf
        return {"x": x}
    return make_inputs


def _result_size(rows, cols, axes):
    return cols if axes == 0 else rows if axes == 1 else 1


def run_reduce_min(device, x, axes=-1, pad=np.inf, **launch_options):
    """Launch on a 2-D x; GM padded to the tiling's 32-byte blocks with `pad` (module docstring); launch_options go
    to aj.launch (atomic_order=..., seed=...)."""
    dtype = {np.dtype(np.float32): "float", np.dtype(np.float16): "half"}[x.dtype]
    rows, cols = x.shape
    n = x.size
    per_block = BLOCK_SIZE // x.itemsize
    gm_x = np.full(-(-n // per_block) * per_block, pad, x.dtype)
    gm_x[:n] = x.reshape(-1)
    out_num = _result_size(rows, cols, axes)
    z = np.zeros(-(-out_num // per_block) * per_block, x.dtype)
    block_dim, tiling_bytes, _ = tiling(device, rows, cols, dtype, axes)
    workspace = np.full(out_num * SLOT_STRIDE, -7.0, np.float32)   # stale: InitGlobalMemory must fill it
    aj.launch(reduce_min_v2, block_dim, device, gm_x, z, workspace, tiling_bytes, dtype, **launch_options)
    return z[:out_num]


def _run(axes):
    def run(device, inputs):
        return {"z": run_reduce_min(device, inputs["x"], axes)}
    return run


def _expected(axes):
    def expected(device, inputs):
        x = inputs["x"]
        xf = x.astype(np.float32)
        z = xf.min(axis=axes).reshape(-1) if axes in (0, 1) else np.array([xf.min()], np.float32)
        return {"z": z.astype(x.dtype)}
    return expected


_SOURCE = "hicann/ops-math@c4193324 experimental/math/reduce_min_v2/op_kernel/reduce_min_v2.h"
COLS = {"reduce_min_v2": 100, "reduce_min_v2_axis0": 300, "reduce_min_v2_axis1_half": 48}
KERNELS = [
    KernelSpec("reduce_min_v2", "ReduceMinV2 over all of a float tensor (rows of 100): a scalar minimum per core, "
               "SetAtomicMin into a GM slot core 0 filled with +inf by InitGlobalMemory, DataCacheCleanAndInvalid, "
               "SyncAll, every core GetValue's the slot", _make_inputs("float", 100), _run(-1), _expected(-1),
               default_size=300 * 100, devices=DEVICES, size_rule="whole rows of 100", size_ok=lambda n:
               n > 0 and n % 100 == 0, source=_SOURCE),
    KernelSpec("reduce_min_v2_axis0", "ReduceMinV2 over axis 0 of a float tensor (rows of 300): SyncAll, a scalar "
               "minimum per column per core, SetAtomicMin of 64-byte slots, SyncAll, core 0 writes z by "
               "GlobalTensor SetValue", _make_inputs("float", 300), _run(0), _expected(0), default_size=100 * 300,
               devices=DEVICES, size_rule="whole rows of 300", size_ok=lambda n: n > 0 and n % 300 == 0,
               source=_SOURCE),
    KernelSpec("reduce_min_v2_axis1_half", "ReduceMinV2 over axis 1 of a half tensor (rows of 48): the tile Cast "
               "to float, a scalar minimum per row, SetAtomicMin, z cast back to half on the scalar unit",
               _make_inputs("half", 48), _run(1), _expected(1), default_size=500 * 48, devices=DEVICES,
               size_rule="whole rows of 48", size_ok=lambda n: n > 0 and n % 48 == 0, source=_SOURCE),
]
