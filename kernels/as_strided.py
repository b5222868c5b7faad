"""AsStrided from the CANN learning hub's operator-development skill examples: output[i0, .., i3] = x[storageOffset +
sum(i_d * stride[d])] for a view of up to 4 dimensions (strides may be negative; a source index outside the input
reads x[0]), over half, float and int32.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/cann-learning-hub @ a3989658fa1dce436d4ab402042e0682a2e9bdc7, skills/examples/as_strided/code:
- op_kernel/as_strided.cpp (`KernelAsStrided<T>`: the output's elements split into ceil(total / blockDim) a core;
  Path A (the input fits the UB): the whole input DataCopyPad'ed into a VECIN queue once, per tile a VECCALC queue of
  uint32 byte offsets (DataCopyPad'ed from the table appended to the tiling data, or computed on the scalar unit by
  SetValue with an incremental index state), Gather of the tile from the input, DataCopyPad out through a
  double-buffered VECOUT queue; Path B: per element a 32-byte VECIN queue buffer DataCopyPad'ed from GM at the
  source index, GetValue, SetValue into the output tile, DataCopyPad out; `initIncrementalState` /
  `advanceIncrementalState`: the source index of a flat output index, then advanced by the last dimension's stride
  with carries, reset to 0 whenever it leaves the input);
- op_kernel/as_strided_tiling.h (`AsStridedTilingData`, 24 words) and op_host/as_strided.cpp (`TilingFunc`: a UB
  budget of 196608 - 8192 bytes; Path A when the input's 32-byte aligned bytes, a uint32 offset tile and two output
  tiles fit it (tileSize = the rest / (4 + 2 * sizeof(T)) rounded down to 8), else Path B (tileSize = (budget - 32) /
  (4 + sizeof(T)) rounded down to 8); blockDim = min(AIV cores, elements); the offset table (byte offsets for Path
  A, indices for Path B; each index outside the input replaced by 0) appended to the tiling data when it fits the
  tiling buffer's capacity).

Sizes: the gallery size is the element count n of a [n] input viewed as [n // 8, 4] with strides (1, 2) from
offset 2 (overlapping rows); its offset table (n / 2 uint32) fits the tiling buffer up to about 8000 elements, so the
gallery's default (20000) computes the offsets on the scalar unit and the tests take the table too.

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original). The raw tiling buffer's
capacity is the framework's (not in the sources): the port takes 16 KB by default (`capacity`). Path B reads the
copied element with GetValue right after the VECIN queue's DeQue and SetValues the output tile right before the
VECOUT queue's EnQue; the queues' events order the vector pipe, not the scalar unit (the sanitizer's device-sync
race reports, docs/decisions.md "The device's synchronisation"; `original_sync=True` runs the original's form,
tests/test_port47l_kernels.py shows them): the port adds MTE2_S and S_MTE3 flag pairs. Likewise the offset tables'
TQue<VECCALC> hand-offs, whose device events are UB -> UB's MTE2_MTE3 / MTE3_MTE2 (session 63): the port adds
MTE2_V (S_V for offsets the scalar unit wrote) before path A's Gather and MTE2_S before path B's index reads, and
V_MTE2 / V_S / S_MTE2 before a tile refills the buffer the last tile's reads used; path B's output queue, whose free
event MTE3_V does not reach the scalar unit, gets an MTE3_S pair before a tile's SetValues refill it.

Not a deviation (the original's behaviour, kept): the on-the-fly index state resets an index outside the input to 0
and keeps advancing from there, where the host's table replaces only that element's index, so the two tables
differ for views that leave the input and carry on (tests/test_port47l_kernels.py shows it).

Devices: the original's host is written for the ascend910b (its UB size is a constant): the port runs on the A3
and A2.

Fidelity: BIT-EXACT (DataCopyPad, Gather, GetValue / SetValue: bit copies).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
UB_SIZE = 196608                   # the host's constant (ascend910b)
RESERVED = 8192
TILING_CAPACITY = 16384            # deviation: the raw tiling buffer's capacity (the framework's)
TYPE_SIZE = {"half": 2, "float": 4, "int32": 4}
_NP = {"half": np.float16, "float": np.float32, "int32": np.int32}
DEVICES = ("atlas-a3", "atlas-a2")

AsStridedTilingData = np.dtype([("totalOutputElements", np.uint32), ("tileSize", np.uint32),
                                ("inputTotalElements", np.uint32), ("ndim", np.uint32), ("size", np.uint32, 4),
                                ("stride", np.int32, 4), ("storageOffset", np.int32), ("dimStride", np.uint32, 4),
                                ("pathFlag", np.uint32), ("blockDim", np.uint32), ("offsetTableInTiling", np.uint32)])


def _align_up(v, a):
    return (v + a - 1) // a * a


def tiling(input_elements, dtype, size, stride, storage_offset, capacity=TILING_CAPACITY, force_path=None):
    """TilingFunc: (block dim, the tiling bytes: the struct, then the offset table when it fits)."""
    ts = TYPE_SIZE[dtype]
    ndim = len(size)
    size_arr, stride_arr, dim_stride = [1] * 4, [0] * 4, [1] * 4
    total = 1
    for d in range(ndim):
        size_arr[d], stride_arr[d] = size[d], stride[d]
        total *= size[d]
    for d in range(ndim - 2, -1, -1):
        dim_stride[d] = dim_stride[d + 1] * size_arr[d + 1]
    budget = UB_SIZE - RESERVED
    input_aligned = _align_up(input_elements * ts, 32)
    path, tile = 1, 0
    if input_aligned < budget:
        tile = max(((budget - input_aligned) // (4 + ts * 2)) & ~7, 8)
        path = 0 if input_aligned + _align_up(tile * 4, 32) + 2 * _align_up(tile * ts, 32) <= budget else 1
    if force_path is not None:                       # tests: Path B for an input that would fit
        path = force_path
    if path == 1:
        tile = max(((budget - 32) // (4 + ts)) & ~7, 8)
    block_dim = max(min(CORE_NUM, total), 1)
    table = np.zeros(total, np.uint32)
    for f in range(total):
        src, remaining = storage_offset, f
        for d in range(ndim):
            src += (remaining // dim_stride[d]) * stride_arr[d]
            remaining %= dim_stride[d]
        if src < 0 or src >= input_elements:
            src = 0
        table[f] = src * ts if path == 0 else src
    t = np.zeros((), AsStridedTilingData)
    t["totalOutputElements"], t["tileSize"], t["inputTotalElements"], t["ndim"] = total, tile, input_elements, ndim
    t["size"], t["stride"], t["dimStride"] = size_arr, stride_arr, dim_stride
    t["storageOffset"], t["pathFlag"], t["blockDim"] = storage_offset, path, block_dim
    raw = t.tobytes()
    if len(raw) + table.nbytes <= capacity:
        t["offsetTableInTiling"] = 1
        raw = t.tobytes() + table.tobytes()
    return block_dim, np.frombuffer(raw, np.uint8).copy()


class KernelAsStrided:
    """`KernelAsStrided<DT_INPUT_X>`."""

    def __init__(self, T, original_sync=False):
        self.T, self.original_sync = T, original_sync

    def Init(self, input_x, output, tiling_addr, t):
        T = self.T
        self.totalOutputElements, self.tileSize = int(t["totalOutputElements"]), int(t["tileSize"])
        self.inputTotalElements, self.ndim = int(t["inputTotalElements"]), int(t["ndim"])
        self.sizeArr = [int(v) for v in t["size"]]
        self.strideArr = [int(v) for v in t["stride"]]
        self.storageOffset = int(t["storageOffset"])
        self.dimStrideArr = [int(v) for v in t["dimStride"]]
        self.pathFlag, self.blockDimValue = int(t["pathFlag"]), int(t["blockDim"])
        self.offsetTableInTiling = int(t["offsetTableInTiling"])
        self.inputGlobal, self.outputGlobal = aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.inputGlobal.SetGlobalBuffer(input_x)
        self.outputGlobal.SetGlobalBuffer(output)
        if self.offsetTableInTiling == 1:
            self.offsetTableGlobal = aj.GlobalTensor("uint32")
            self.offsetTableGlobal.SetGlobalBuffer(tiling_addr[AsStridedTilingData.itemsize:].view(np.uint32))
        self.pipe = aj.TPipe()
        P = aj.TPosition
        self.inQueueSrc, self.inQueueTmp = aj.TQue(P.VECIN, 1), aj.TQue(P.VECIN, 1)
        self.tmpQueueOffset, self.tmpQueueSrcIdx = aj.TQue(P.VECCALC, 1), aj.TQue(P.VECCALC, 1)
        self.outQueueDstA, self.outQueueDstB = aj.TQue(P.VECOUT, 2), aj.TQue(P.VECOUT, 1)
        blockIdx = aj.GetBlockIdx()
        self.coreElements = -(-self.totalOutputElements // self.blockDimValue)
        self.coreOffset = blockIdx * self.coreElements
        if self.coreOffset >= self.totalOutputElements:
            self.coreElements = 0
            return
        if self.coreOffset + self.coreElements > self.totalOutputElements:
            self.coreElements = self.totalOutputElements - self.coreOffset
        size = TYPE_SIZE[T]
        if self.pathFlag == 0:
            self.pipe.InitBuffer(self.inQueueSrc, 1, _align_up(self.inputTotalElements * size, 32))
            self.pipe.InitBuffer(self.tmpQueueOffset, 1, _align_up(self.tileSize * 4, 32))
            self.pipe.InitBuffer(self.outQueueDstA, 2, _align_up(self.tileSize * size, 32))
            inputLocal = self.inQueueSrc.AllocTensor(T)
            aj.DataCopyPad(inputLocal, self.inputGlobal,
                           aj.DataCopyExtParams(1, self.inputTotalElements * size, 0, 0, 0),
                           aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0)))
            self.inQueueSrc.EnQue(inputLocal)
        else:
            self.pipe.InitBuffer(self.inQueueTmp, 1, 32)
            self.pipe.InitBuffer(self.tmpQueueSrcIdx, 1, _align_up(self.tileSize * 4, 32))
            self.pipe.InitBuffer(self.outQueueDstB, 1, _align_up(self.tileSize * size, 32))

    def Process(self):
        if self.coreElements == 0:
            return
        if self.pathFlag == 0:
            self.ProcessPathA()
        else:
            self.ProcessPathB()

    def initIncrementalState(self, flatIdx):
        self.curSrcIdx = self.storageOffset
        self.multiIdx = [0] * 4
        remaining = flatIdx
        for d in range(self.ndim):
            self.multiIdx[d] = remaining // self.dimStrideArr[d]
            remaining %= self.dimStrideArr[d]
            self.curSrcIdx += self.multiIdx[d] * self.strideArr[d]
        if self.curSrcIdx < 0 or self.curSrcIdx >= self.inputTotalElements:
            self.curSrcIdx = 0

    def advanceIncrementalState(self):
        d = self.ndim - 1
        self.multiIdx[d] += 1
        self.curSrcIdx += self.strideArr[d]
        while d > 0 and self.multiIdx[d] >= self.sizeArr[d]:
            self.curSrcIdx -= self.sizeArr[d] * self.strideArr[d]
            self.multiIdx[d] = 0
            d -= 1
            self.multiIdx[d] += 1
            self.curSrcIdx += self.strideArr[d]
        if self.curSrcIdx < 0 or self.curSrcIdx >= self.inputTotalElements:
            self.curSrcIdx = 0

    def _tiles(self):
        for tile in range(-(-self.coreElements // self.tileSize)):
            tileStart = self.coreOffset + tile * self.tileSize
            yield tile, tileStart, min(self.tileSize, self.coreOffset + self.coreElements - tileStart)

    def ProcessPathA(self):
        T, size = self.T, TYPE_SIZE[self.T]
        inputLocal = self.inQueueSrc.DeQue(T)
        tilesPerCore = -(-self.coreElements // self.tileSize)
        for tile, tileStart, curTileSize in self._tiles():
            offsetLocal = self.tmpQueueOffset.AllocTensor("uint32")
            if tile and not self.original_sync:         # deviation: the last tile's Gather read this buffer
                self._flag_pair(aj.HardEvent.V_MTE2 if self.offsetTableInTiling == 1 else aj.HardEvent.V_S)
            if self.offsetTableInTiling == 1:
                aj.DataCopyPad(offsetLocal, self.offsetTableGlobal[tileStart],
                               aj.DataCopyExtParams(1, curTileSize * 4, 0, 0, 0),
                               aj.DataCopyPadExtParams(False, 0, 0, np.uint32(0)))
            else:
                if tile == 0:
                    self.initIncrementalState(tileStart)
                for i in range(curTileSize):
                    offsetLocal.SetValue(i, np.uint32(self.curSrcIdx * size))
                    if i + 1 < curTileSize:
                        self.advanceIncrementalState()
            self.tmpQueueOffset.EnQue(offsetLocal)
            offLocal = self.tmpQueueOffset.DeQue("uint32")
            if not self.original_sync:                  # deviation: the Gather after the offsets' writer
                self._flag_pair(aj.HardEvent.MTE2_V if self.offsetTableInTiling == 1 else aj.HardEvent.S_V)
            outputLocal = self.outQueueDstA.AllocTensor(T)
            aj.Gather(outputLocal, inputLocal, offLocal, 0, curTileSize)
            self.outQueueDstA.EnQue(outputLocal)
            self.tmpQueueOffset.FreeTensor(offLocal)
            outLocal = self.outQueueDstA.DeQue(T)
            aj.DataCopyPad(self.outputGlobal[tileStart], outLocal,
                           aj.DataCopyExtParams(1, curTileSize * size, 0, 0, 0))
            self.outQueueDstA.FreeTensor(outLocal)
            if self.offsetTableInTiling != 1 and tilesPerCore > 1 and tile + 1 < tilesPerCore:
                self.advanceIncrementalState()
        self.inQueueSrc.FreeTensor(inputLocal)

    @staticmethod
    def _flag_pair(event):
        aj.SetFlag(aj.EVENT_ID0, event=event)
        aj.WaitFlag(aj.EVENT_ID0, event=event)

    def _copy_element(self, srcIdx):
        """One element through the 32-byte VECIN buffer: DataCopyPad, EnQue / DeQue, GetValue."""
        T = self.T
        tmpLocal = self.inQueueTmp.AllocTensor(T)
        aj.DataCopyPad(tmpLocal, self.inputGlobal[srcIdx], aj.DataCopyExtParams(1, TYPE_SIZE[T], 0, 0, 0),
                       aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0)))
        self.inQueueTmp.EnQue(tmpLocal)
        valLocal = self.inQueueTmp.DeQue(T)
        if not self.original_sync:                    # deviation: the scalar unit after the copy
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_S)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_S)
        val = valLocal.GetValue(0)
        self.inQueueTmp.FreeTensor(valLocal)
        return val

    def _copy_out_b(self, outputLocal, tileStart, curTileSize):
        if not self.original_sync:                    # deviation: the copy-out after the scalar unit
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_MTE3)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_MTE3)
        self.outQueueDstB.EnQue(outputLocal)
        outLocal = self.outQueueDstB.DeQue(self.T)
        aj.DataCopyPad(self.outputGlobal[tileStart], outLocal,
                       aj.DataCopyExtParams(1, curTileSize * TYPE_SIZE[self.T], 0, 0, 0))
        self.outQueueDstB.FreeTensor(outLocal)

    def ProcessPathB(self):
        T = self.T
        tilesPerCore = -(-self.coreElements // self.tileSize)
        for tile, tileStart, curTileSize in self._tiles():
            if self.offsetTableInTiling == 1:
                srcIdxLocal = self.tmpQueueSrcIdx.AllocTensor("uint32")
                if tile and not self.original_sync:     # deviation: the last tile's GetValues read this buffer
                    self._flag_pair(aj.HardEvent.S_MTE2)
                aj.DataCopyPad(srcIdxLocal, self.offsetTableGlobal[tileStart],
                               aj.DataCopyExtParams(1, curTileSize * 4, 0, 0, 0),
                               aj.DataCopyPadExtParams(False, 0, 0, np.uint32(0)))
                self.tmpQueueSrcIdx.EnQue(srcIdxLocal)
                idxLocal = self.tmpQueueSrcIdx.DeQue("uint32")
                if not self.original_sync:              # deviation: the scalar reads after the copy
                    self._flag_pair(aj.HardEvent.MTE2_S)
                outputLocal = self.outQueueDstB.AllocTensor(T)
                if tile and not self.original_sync:     # deviation: the last tile's copy-out read this buffer
                    self._flag_pair(aj.HardEvent.MTE3_S)
                for i in range(curTileSize):
                    outputLocal.SetValue(i, self._copy_element(int(idxLocal.GetValue(i))))
                self.tmpQueueSrcIdx.FreeTensor(idxLocal)
                self._copy_out_b(outputLocal, tileStart, curTileSize)
            else:
                if tile == 0:
                    self.initIncrementalState(tileStart)
                outputLocal = self.outQueueDstB.AllocTensor(T)
                if tile and not self.original_sync:     # deviation: the last tile's copy-out read this buffer
                    self._flag_pair(aj.HardEvent.MTE3_S)
                for i in range(curTileSize):
                    outputLocal.SetValue(i, self._copy_element(self.curSrcIdx))
                    if i + 1 < curTileSize:
                        self.advanceIncrementalState()
                self._copy_out_b(outputLocal, tileStart, curTileSize)
                if tilesPerCore > 1 and tile + 1 < tilesPerCore:
                    self.advanceIncrementalState()


def as_strided(input_x, output, workspace, tiling_bytes, dtype, original_sync=False):
    """The kernel entry (as_strided<DT_INPUT_X>; GET_TILING_DATA_WITH_STRUCT)."""
    t = np.frombuffer(tiling_bytes[:AsStridedTilingData.itemsize].tobytes(), AsStridedTilingData)[0]
    op = KernelAsStrided(dtype, original_sync)
    op.Init(input_x, output, tiling_bytes, t)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_as_strided(device, x, size, stride, storage_offset, capacity=TILING_CAPACITY, force_path=None,
                   original_sync=False):
    dtype = _dtype_name(x)
    block_dim, t = tiling(x.size, dtype, size, stride, storage_offset, capacity, force_path)
    out = np.zeros(int(np.prod(size)), x.dtype)
    aj.launch(as_strided, block_dim, device, x, out, None, t, dtype, original_sync)
    return out.reshape(size)


def _table_indices(n_input, size, stride, storage_offset):
    total = int(np.prod(size))
    dim_stride = [int(np.prod(size[d + 1:])) for d in range(len(size))]
    idx = np.empty(total, np.int64)
    for f in range(total):
        src = storage_offset + sum((f // dim_stride[d]) % size[d] * stride[d] for d in range(len(size)))
        idx[f] = src if 0 <= src < n_input else 0
    return idx


def _incremental_indices(n_input, size, stride, storage_offset, block_dim, tile):
    """The kernel's on-the-fly state: per core, the first index of its range, then advanced with carries (an index
    outside the input reset to 0 and advanced from there)."""
    total, ndim = int(np.prod(size)), len(size)
    dim_stride = [int(np.prod(size[d + 1:])) for d in range(ndim)]
    per_core = -(-total // block_dim)
    idx = np.empty(total, np.int64)
    for start in range(0, total, per_core):
        multi = [(start // dim_stride[d]) % size[d] if d else start // dim_stride[d] for d in range(ndim)]
        cur = storage_offset + sum(multi[d] * stride[d] for d in range(ndim))
        cur = cur if 0 <= cur < n_input else 0
        for f in range(start, min(start + per_core, total)):
            idx[f] = cur
            d = ndim - 1
            multi[d] += 1
            cur += stride[d]
            while d > 0 and multi[d] >= size[d]:
                cur -= size[d] * stride[d]
                multi[d] = 0
                d -= 1
                multi[d] += 1
                cur += stride[d]
            cur = cur if 0 <= cur < n_input else 0
    return idx


def as_strided_model(x, size, stride, storage_offset, capacity=TILING_CAPACITY, force_path=None):
    """The host's table (each index outside the input -> 0) when it fits the tiling buffer, else the kernel's
    incremental state (whose resets carry on: it differs from the table only for views leaving the input)."""
    block_dim, t = tiling(x.size, _dtype_name(x), size, stride, storage_offset, capacity, force_path)
    head = np.frombuffer(t[:AsStridedTilingData.itemsize].tobytes(), AsStridedTilingData)[0]
    if head["offsetTableInTiling"]:
        idx = _table_indices(x.size, size, stride, storage_offset)
    else:
        idx = _incremental_indices(x.size, size, stride, storage_offset, block_dim, int(head["tileSize"]))
    return x[idx].reshape(size)


def _inputs(size, seed, dtype="float"):
    rng = np.random.default_rng(seed)
    if dtype == "int32":
        return {"x": rng.integers(-2 ** 31, 2 ** 31, size, dtype=np.int64).astype(np.int32)}
    return {"x": rng.uniform(-100, 100, size).astype(_NP[dtype])}


def _view(n):
    return (max(n // 8, 1), 4), (1, 2), 2


def _spec(name, dtype, description):
    def run(device, inputs):
        size, stride, off = _view(inputs["x"].size)
        return {"y": run_as_strided(device, inputs["x"], size, stride, off).reshape(-1)}

    def expected(device, inputs):
        size, stride, off = _view(inputs["x"].size)
        return {"y": as_strided_model(inputs["x"], size, stride, off).reshape(-1)}
    return KernelSpec(name, description, lambda size, seed: _inputs(size, seed, dtype), run, expected,
                      default_size=20000, devices=DEVICES,
                      size_rule="input elements (8 to 40000: the input stays in the UB, Path A)",
                      size_ok=lambda n: 8 <= n <= 40000, source=_SOURCE)


_SOURCE = "hicann/cann-learning-hub@a3989658 skills/examples/as_strided/code/op_kernel/as_strided.cpp"
KERNELS = [
    _spec("as_strided", "float", "learning-hub AsStrided over floats, Path A (the input DataCopyPad'ed into the UB "
          "once, per tile a uint32 byte-offset table computed on the scalar unit by SetValue, Gather, DataCopyPad "
          "out through a double-buffered queue; 8 cores)"),
    _spec("as_strided_int32", "int32", "learning-hub AsStrided over int32 (Path A)"),
    _spec("as_strided_half", "half", "learning-hub AsStrided over halves (Path A)"),
]
