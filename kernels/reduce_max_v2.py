"""ReduceMaxV2 from the CANN math operators (experimental): the maximum of a 2-D [rows, cols] float or half tensor
over every element (axes -1), over the rows (axes 0: one value a column) or over the columns (axes 1: one a row).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/reduce_max_v2/op_kernel/reduce_max_v2.h
(`NsReduceMaxV2::ReduceMaxV2<T>`: big/small cores of whole 32-byte blocks of the flattened input, the last core's
GlobalTensor cut at the input's end; core 0 fills the float GM workspace (one 64-byte slot, 16 floats, a result) with
-inf by InitGlobalMemory; tiles DataCopy'd through a double-buffered VECIN queue and widened to a float TBuf (half:
Cast CAST_NONE; float: GetValue/SetValue element by element); axes -1: a scalar running max a tile and a one-element
LocalTensor; axes 0/1: a SyncAll first, then per element a scalar compare into a per-column/per-row float TBuf by
GetValue/SetValue; the per-core results placed one a slot in a -inf Duplicated UB buffer, then
`SetAtomicMax<float>()`, DataCopy into the workspace, SetAtomicNone, SyncAll; axes -1 flushes its slot by
`DataCacheCleanAndInvalid<float, SINGLE_CACHE_LINE, CACHELINE_OUT>` before the SyncAll and every core reads the
result by GM GetValue, core 0 writing it by GM SetValue; axes 0/1: core 0 DataCopies the slots back and writes each
result by GM SetValue) and reduce_max_v2.cpp (REGISTER_TILING_DEFAULT / GET_TILING_DATA_WITH_STRUCT of
reduce_max_v2_tiling_data.h), with the host tiling of op_host/reduce_max_v2_tiling.cpp (`ReduceMaxV2TilingFunc`:
tiles of (UB / 2 / 32) / 6 blocks; one core when a tile holds the input, else min(cores, 32-byte blocks); the first
blocks % cores cores one block more; dataTypeId the ge::DataType, DT_FLOAT 0, DT_FLOAT16 1).

Deviations (also in docs/decisions.md "Kernel gallery"): the original orders none of its scalar-unit accesses of the
UB against the other pipes, and in the axes -1 schedule core 0's InitGlobalMemory races the other cores' atomic
copies; the sanitizer reports all but the first below (`test_reduce_max_v2_original_sequence_is_reported` runs the
literal sequence), and the port adds the flags and the barrier:
- an MTE2_S flag after each float tile's DeQue before its GetValue loop: the device's VECIN hand-off is a
  SetFlag/WaitFlag<MTE2_V> pair, which orders the copy before the vector unit, not the scalar unit (SPEC-2 10.4 counts
  a queue hand-off as ordering every pipe, so the sanitizer does not report its absence); a V_S flag after the half
  tile's Cast before its GetValue loop;
- in CollectAxes / the axes -1 tail: a V_S flag between the -inf Duplicate and the slot SetValues, an S_MTE3 flag
  between them and the atomic DataCopy, and core 0's read-back ordered by MTE3_MTE2 (the atomic copy read the buffer
  the read-back overwrites) and MTE2_S (its GetValues);
- axes -1: a SyncAll between core 0's InitGlobalMemory and the atomic copies (axes 0/1 have one; without it another
  core's maximum can reach the workspace before the -inf fill overwrites it).
- the last core's GlobalTensor: the original cuts it at the input's end, then DataCopies its last tile rounded up to
  32 bytes (within the 32-byte rounded allocation); the emulator refuses a copy past a GlobalTensor (docs/decisions.md
  "Scaffolding"), so the port widens that window by the rounding, as the GreaterEqual port does.
The core count is the launch's 8 (GetCoreNum would give the device's); GM is padded to 32 bytes, as device allocations
are, and the workspace is the kernel's slots (the tiling asks 16 MB plus the library's; the kernel takes the raw
workspace address, not GetUserWorkspace's).

Kept from the original: axes -1 takes each tile's maximum over its whole 32-byte rounded length, so the last core's
last tile includes the elements past the input up to the next 32 bytes (axes 0/1 skip them by index): on the device
whatever follows the input in GM, here the allocation's zero padding, so an input whose maximum is negative and whose
size is not whole 32 bytes gives 0 (`test_reduce_max_v2_all_axes_reads_the_padding_past_the_input`). The gallery's
inputs have a positive maximum.

Devices: SetAtomicMax decides: the 950, A3 and A2 (the operator's config is the A2, ascend910b).

Fidelity: BIT-EXACT (DataCopy, Cast half -> float, Duplicate, the atomic max, scalar float compares are exact):
checked bit for bit against numpy's max along the axis (the inputs hold no NaN and no zeros, whose sign the atomic
max leaves to the order of the copies).
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
DATA_CACHE_CLEAN_NEED = 64
SLOT_STRIDE = DATA_CACHE_CLEAN_NEED // 4
BLOCK_SIZE = 32
UB_DATA_NUMBER_32 = 6
CORE_NUM = 8
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
TYPE_SIZE = {"float": 4, "half": 2}
DATA_TYPE_ID = {"float": 0, "half": 1}             # ge::DT_FLOAT, ge::DT_FLOAT16
_NP = {"float": np.float32, "half": np.float16}
NEG_INF = np.float32(-np.inf)


class ReduceMaxV2TilingData(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint32) for name in (
        "smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum", "tileDataNum",
        "smallTailDataNum", "bigTailDataNum", "tailBlockNum", "dataTypeId", "rows", "cols", "axes", "keepdims")]


def tiling(device, rows, cols, dtype, axes):
    """ReduceMaxV2TilingFunc: (block dim, packed ReduceMaxV2TilingData). axes -1 is stored as uint32, as the
    original's assignment to a uint32_t field does."""
    size = TYPE_SIZE[dtype]
    input_num = rows * cols
    tile_block_num = aj.get_device(device).ub_bytes // BUFFER_NUM // BLOCK_SIZE // UB_DATA_NUMBER_32
    tile_data_num = tile_block_num * BLOCK_SIZE // size
    blocks = -(-input_num * size // BLOCK_SIZE)
    core_num = 1 if tile_data_num >= input_num else min(CORE_NUM, blocks)
    t = ReduceMaxV2TilingData(tileDataNum=tile_data_num, dataTypeId=DATA_TYPE_ID[dtype], rows=rows, cols=cols,
                              axes=axes & 0xFFFFFFFF, keepdims=1)
    # CalculateCoreBlockNums
    every = blocks // core_num
    t.tailBlockNum = blocks % core_num
    for per_core, data, tiles, tail in ((every, "smallCoreDataNum", "finalSmallTileNum", "smallTailDataNum"),
                                        (every + 1, "bigCoreDataNum", "finalBigTileNum", "bigTailDataNum")):
        data_num = per_core * BLOCK_SIZE // size
        whole = per_core // tile_block_num
        setattr(t, data, data_num)
        setattr(t, tiles, whole if per_core % tile_block_num == 0 else whole + 1)
        setattr(t, tail, data_num - tile_data_num * whole or tile_data_num)
    return core_num, np.frombuffer(bytes(t), np.uint8).copy()


class ReduceMaxV2:
    def __init__(self, T):
        self.T = T
        self.pipe = aj.TPipe()          # a member: constructed with the op, before Init's InitGlobalMemory

    def InitTilingParam(self, tilingData):
        aj.ascendc_assert(aj.GetBlockNum() != 0, "block dim can not be zero!\n")
        coreIdx = aj.GetBlockIdx()
        self.blockIdx, self.blockNum = coreIdx, aj.GetBlockNum()
        globalBufferIndex = tilingData.bigCoreDataNum * coreIdx
        self.tileDataNum = tilingData.tileDataNum
        self.axes = np.int32(np.uint32(tilingData.axes))       # the uint32 field compared with 0 and 1
        self.rows, self.cols = tilingData.rows, tilingData.cols
        self.keyType = tilingData.dataTypeId
        if coreIdx < tilingData.tailBlockNum:
            self.coreDataNum = tilingData.bigCoreDataNum
            self.tileNum = tilingData.finalBigTileNum
            self.tailDataNum = tilingData.bigTailDataNum
        else:
            self.coreDataNum = tilingData.smallCoreDataNum
            self.tileNum = tilingData.finalSmallTileNum
            self.tailDataNum = tilingData.smallTailDataNum
            globalBufferIndex -= (tilingData.bigCoreDataNum - tilingData.smallCoreDataNum) * (
                coreIdx - tilingData.tailBlockNum)
        self.globalOffset = globalBufferIndex

    def Init(self, x, z, workspace, tilingData):
        self.InitTilingParam(tilingData)
        totalElements = self.rows * self.cols
        self.xGm, self.zGm, self.workGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        if self.globalOffset >= totalElements:
            self.coreDataNum = 0
            self.xGm.SetGlobalBuffer(x, 0)
        else:
            bindLen = min(totalElements - self.globalOffset, self.coreDataNum)
            # deviation: the window widened to the last tile's 32-byte rounded copy (docstring)
            blockElems = BLOCK_SIZE // TYPE_SIZE[self.T]
            self.xGm.SetGlobalBuffer(x[self.globalOffset:], -(-bindLen // blockElems) * blockElems)
            self.coreDataNum = bindLen
        outputSize = self.cols if self.axes == 0 else self.rows if self.axes == 1 else 1
        self.zGm.SetGlobalBuffer(z, outputSize)
        workGmSize = outputSize * SLOT_STRIDE
        self.workGm.SetGlobalBuffer(workspace, workGmSize)
        if aj.GetBlockIdx() == 0:
            aj.InitGlobalMemory(self.workGm, workGmSize, NEG_INF)
        self.inQueueInput = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.tmpFloat, self.tmpBase, self.tmpBuffer, self.axisMax = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(4))
        self.pipe.InitBuffer(self.inQueueInput, BUFFER_NUM, self.tileDataNum * TYPE_SIZE[self.T])
        self.pipe.InitBuffer(self.tmpFloat, self.tileDataNum * 4)
        self.pipe.InitBuffer(self.tmpBase, 64 * 4)
        self.pipe.InitBuffer(self.tmpBuffer, workGmSize * 4)
        if self.axes in (0, 1):        # the original's colMax (axes 0) or rowMax (axes 1)
            self.pipe.InitBuffer(self.axisMax, outputSize * 4)

    def CopyIn(self, progress):
        curTileLen = self.tailDataNum if progress == self.tileNum - 1 else self.tileDataNum
        xLocal = self.inQueueInput.AllocTensor(self.T)
        aj.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], curTileLen)
        self.inQueueInput.EnQue(xLocal)

    def Process(self):
        if self.axes == 0 or self.axes == 1:
            self.ReduceMaxV2Axes(self.axes)
        else:
            self.ReduceMaxV2AxesAll()

    @staticmethod
    def Fence(event):
        """Deviation: the flag pair the original leaves out (docstring)."""
        eventId = aj.GetTPipePtr().FetchEventID(event)
        aj.SetFlag(eventId, event=event)
        aj.WaitFlag(eventId, event=event)

    @staticmethod
    def FillBarrier():
        """Deviation: axes -1's SyncAll between core 0's InitGlobalMemory and the atomic copies (docstring)."""
        aj.SyncAll()

    def WidenTile(self, t):
        """The tile DeQue'd as float in tmpFloat, readable by the scalar unit: (the tile, its length, the float
        tensor)."""
        curTileLen = self.tailDataNum if t == self.tileNum - 1 else self.tileDataNum
        self.CopyIn(t)
        tileLocal = self.inQueueInput.DeQue(self.T)
        tileFloat = self.tmpFloat.Get("float")
        if self.keyType == 1:
            aj.Cast(tileFloat, tileLocal, aj.RoundMode.CAST_NONE, curTileLen)
            self.Fence(aj.HardEvent.V_S)
        else:
            self.Fence(aj.HardEvent.MTE2_S)
            for i in range(curTileLen):
                tileFloat.SetValue(i, tileLocal.GetValue(i))
        return tileLocal, curTileLen, tileFloat

    def CollectAxes(self, localMax, nums):
        tmpBuf = self.tmpBuffer.Get("float")
        totalWorkSize = nums * SLOT_STRIDE
        aj.Duplicate(tmpBuf, NEG_INF, totalWorkSize)
        self.Fence(aj.HardEvent.V_S)
        for c in range(nums):
            tmpBuf.SetValue(c * SLOT_STRIDE, localMax.GetValue(c))
        self.Fence(aj.HardEvent.S_MTE3)
        aj.SetAtomicMax("float")
        aj.DataCopy(self.workGm, tmpBuf, totalWorkSize)
        aj.SetAtomicNone()
        aj.SyncAll()
        if self.blockIdx == 0:
            self.Fence(aj.HardEvent.MTE3_MTE2)
            aj.DataCopy(tmpBuf, self.workGm, totalWorkSize)
            self.Fence(aj.HardEvent.MTE2_S)
            for c in range(nums):
                self.zGm.SetValue(c, _NP[self.T](tmpBuf.GetValue(c * SLOT_STRIDE)))

    def ReduceMaxV2Axes(self, axes):
        """ReduceMaxV2Axes0 (axes 0: a column's max) and ReduceMaxV2Axes1 (axes 1: a row's), one loop apart in the
        original: the element's column or row picks its slot."""
        aj.SyncAll()
        totalElements = self.rows * self.cols
        nums = self.cols if axes == 0 else self.rows
        localMax = self.axisMax.Get("float")
        for c in range(nums):
            localMax.SetValue(c, NEG_INF)
        for t in range(self.tileNum):
            tileLocal, curTileLen, tileFloat = self.WidenTile(t)
            for i in range(curTileLen):
                globalIdx = self.globalOffset + t * self.tileDataNum + i
                if globalIdx >= totalElements:
                    continue
                slot = globalIdx % self.cols if axes == 0 else globalIdx // self.cols
                if slot >= nums:
                    continue
                prev = np.float32(localMax.GetValue(slot))
                curv = np.float32(tileFloat.GetValue(i))
                if prev < curv:
                    localMax.SetValue(slot, curv)
            self.inQueueInput.FreeTensor(tileLocal)
        self.CollectAxes(localMax, nums)

    def ReduceMaxV2AxesAll(self):
        self.FillBarrier()
        localMax = self.tmpBase.Get("float")
        localMax.SetValue(0, NEG_INF)
        for t in range(self.tileNum):
            tileLocal, curTileLen, tileFloat = self.WidenTile(t)
            tileMax = NEG_INF
            for i in range(curTileLen):
                curv = np.float32(tileFloat.GetValue(i))
                if curv > tileMax:
                    tileMax = curv
            if np.float32(localMax.GetValue(0)) < tileMax:
                localMax.SetValue(0, tileMax)
            self.inQueueInput.FreeTensor(tileLocal)
        tmpBuf = self.tmpBuffer.Get("float")
        aj.Duplicate(tmpBuf, NEG_INF, 8)
        self.Fence(aj.HardEvent.V_S)
        tmpBuf.SetValue(0, localMax.GetValue(0))
        self.Fence(aj.HardEvent.S_MTE3)
        aj.SetAtomicMax("float")
        aj.DataCopy(self.workGm[0], tmpBuf, 8)
        aj.SetAtomicNone()
        aj.DataCacheCleanAndInvalid(self.workGm[0], entire_type=aj.CacheLine.SINGLE_CACHE_LINE,
                                    dcci_dst=aj.DcciDst.CACHELINE_OUT)
        aj.SyncAll()
        globalMax = self.workGm.GetValue(0)
        if self.blockIdx == 0:
            self.zGm.SetValue(0, _NP[self.T](globalMax))


aj.REGISTER_TILING_DEFAULT(ReduceMaxV2TilingData)


def reduce_max_v2(x, z, workspace, tiling, DTYPE_X):
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ReduceMaxV2TilingData, tiling)
    op = ReduceMaxV2(DTYPE_X)
    op.Init(x, z, workspace, tilingData)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        """N(0, 4) values with no zeros (the atomic max keeps GM's value on a +0/-0 tie)."""
        rng = np.random.default_rng(seed)
        x = (rng.standard_normal(size) * 4).astype(_NP[dtype])
        x[x == 0] = _NP[dtype](1)
        return {"x": x}
    return make_inputs


def _gm(a):
    out = np.zeros(-(-a.size * a.itemsize // 32) * 32 // a.itemsize, a.dtype)
    out[:a.size] = a
    return out


def _out_size(rows, cols, axes):
    return cols if axes == 0 else rows if axes == 1 else 1


def _run(dtype, cols, axes):
    def run(device, inputs, kernel=None):
        x = inputs["x"]
        rows = x.size // cols
        block_dim, tiling_bytes = tiling(device, rows, cols, dtype, axes)
        n = _out_size(rows, cols, axes)
        z = _gm(np.zeros(n, x.dtype))
        workspace = np.zeros(n * SLOT_STRIDE, np.float32)
        aj.launch(kernel or reduce_max_v2, block_dim, device, _gm(x), z, workspace, tiling_bytes, dtype)
        return {"z": z[:n]}
    return run


def _expected(dtype, cols, axes):
    def expected(device, inputs):
        x = inputs["x"].reshape(-1, cols)
        return {"z": x.max().reshape(1) if axes == -1 else x.max(axis=axes)}
    return expected


_SOURCE = "hicann/ops-math@c4193324 experimental/math/reduce_max_v2/op_kernel/reduce_max_v2.h"
KERNELS = [
    KernelSpec(f"reduce_max_v2{suffix}", description, _make_inputs(dtype), _run(dtype, cols, axes),
               _expected(dtype, cols, axes), default_size=rows * cols, devices=DEVICES, source=_SOURCE,
               size_rule=f"whole rows of {cols} elements", size_ok=lambda n, c=cols: n > 0 and n % c == 0)
    for suffix, dtype, cols, axes, rows, description in (
        ("", "float", 97, -1, 100,
         "ReduceMaxV2 of every float (8 cores of 32-byte blocks, scalar running max a tile, SetAtomicMax DataCopy "
         "into a workspace InitGlobalMemory'd to -inf, DataCacheCleanAndInvalid, SyncAll, GM GetValue/SetValue)"),
        ("_half_axis0", "half", 33, 0, 300,
         "ReduceMaxV2 over the rows of a half tensor (Cast CAST_NONE a tile, a column max a slot by GetValue/"
         "SetValue, per-core slots combined by SetAtomicMax, read back by core 0)"),
        ("_axis1", "float", 50, 1, 200,
         "ReduceMaxV2 over the columns of a float tensor (a row max a 64-byte workspace slot, SetAtomicMax, SyncAll)"))
]
