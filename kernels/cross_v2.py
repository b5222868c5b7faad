"""CrossV2: y = cross(x1, x2, dim), the cross product of 3-vectors along a dimension of size 3, over float, half,
bfloat16, int32, int16, int8 and uint8. Two kernels by the host's tiling key: dim not last (a stride between the three
components: each component a contiguous run, copied in three DataCopyPads) and dim last (the components interleaved:
a tile of vectors copied in whole and split into x / y / z by GatherMask with user patterns, the results
interleaved back by the scalar unit).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, loss/cross_v2:
- op_kernel/cross_v2.cpp (the entry: GET_TILING_DATA, TILING_KEY_IS(0) `KernelCrossOneStep<DTYPE_X1>`, 1
  `KernelCross<DTYPE_X1>`. KernelCross: tiles dealt round robin over GetBlockNum() cores; per tile nine depth-2
  queues (x1 / y1 / z1 / x2 / y2 / z2 in, x3 / y3 / z3 out) and DataCopyPad {1, bytes, 0, 0, 0} in and out; half and
  bfloat16 Cast to float TBufs, int8 and uint8 Cast to half TBufs, float / int32 / int16 computed as they are:
  Mul, Mul, Sub per component (x3 = y1 z2 - y2 z1, y3 = x2 z1 - x1 z2, z3 = x1 y2 - x2 y1), Cast back (CAST_RINT
  from float, CAST_NONE from half); uint8 first CompareScalar(LT 0) over the count rounded up to 256 bytes into
  bit masks over the x1 / y1 / z1 TBufs, Adds 256, Select tensor-tensor. KernelCrossOneStep: the patterns written by
  SetValue into a 96-byte TBuf (three uint32 words 0b...1001001 and shifts for 32-bit lanes; three uint16 words each
  for 16-bit lanes, a 48-bit pattern a repeat), one DataCopyPad of 3 * count elements per input, GatherMask
  reduce mode true, mask 24 (or 48), {1, tileDataNum / 8 (or / 16), 3, 0}, the same Mul / Sub, then a scalar loop
  `out.SetValue(3 i + k, c.GetValue(i))` and a Cast of 3 * count elements, DataCopyPad out);
- op_host/cross_v2_tiling.cpp and cross_v2_tiling.h (`TilingFuncForCrossV2`: dim from the attribute (negative
  wraps; the default finds the first axis of size 3), batchSize / stepSize the products before / after it; stepSize
  > 1: tiles of (UB / 32 / 2 / 11) blocks (20 with Casts), 256-byte units for uint8; stepSize 1: (UB / 32 / 2 / 21)
  (30 with Casts); fewer tiles than cores: the elements split over the cores in 32-byte units; block dim
  min(tiles, cores)).

The operator's attribute default (-65530) is the "first axis of size 3" search; the port takes dim as an argument.

Deviations (flags run the original):
- The core count is the launch's 8 (GetCoreNumAiv in the original).
- ORIGINAL_UNINIT_READS: the one-step kernel's GatherMasks run tileDataNum / 8 repeats whatever the tile's count, and
  uint8's CompareScalar the count rounded up to 256 bytes: at a short tile (the only one of a core, or the first
  use of the TBuf) they read elements past what the tile wrote. Their results are never copied out, and the
  sanitizer follows them to what reads them (since session 64 the Select of the tile's count reads only its lanes'
  mask bits, so none is reported); the port zeroes those elements with a Duplicate first (the queue's bytes past the
  copy, the TBuf's past the Cast / Sub).
- ORIGINAL_NO_SCALAR_SYNC: the one-step kernel hands vector results to the scalar unit (GetValue of x3 / y3 / z3
  after the Sub), its SetValues back to the vector unit (the Cast of `out`), and its pattern SetValues to the first
  GatherMask, with no flag at all. The sanitizer reports these as races (SPEC-2 10.4: nothing orders the scalar
  pipe against V without a flag); the port adds SetFlag / WaitFlag V_S and S_V pairs there
  (`tests/test_port40pb_kernels.py` runs the original's order and shows the reports). int16 / int32 / float write
  the output queue tensor itself by SetValue and hand it to MTE3 by EnQue / DeQue alone: SPEC-2 10.4 counts the
  queue hand-off as ordering, so that needs nothing.

Devices: the A2 and A3 (op_host/config/ascend910b, ascend910_93), both run.

Fidelity: BIT-EXACT (Mul, Sub, Adds, CompareScalar, Select, GatherMask, Cast: SPEC-2 0.3). The expectation replays the
arithmetic in numpy: float32 products and differences (one RNE each) for float, half and bfloat16 (then RNE to the
element type); int32 / int16 wrap (SPEC-2 D35, integer saturation off); int8 / uint8 in half arithmetic (products
above 2048 rounded), uint8's negatives + 256 in half, and the Cast to the 8-bit type saturating (D46, CTRL[59] = 0).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
SPECIFIED_DIM_SIZE = 3
UINT8_ALIGN_SIZE = 256
BLOCK_SIZE = 32
NUM_PER_BLK_32 = 8
NUM_PER_BLK_16 = 16
IDX_0, IDX_1, IDX_2 = 0, 1, 2
HALF_ZERO = np.float16(0)
HALF_256 = np.float16(256)
# one bit in three a repeat: the first, second, third element of each vector
GATHER_MASK_UINT16_0 = 0b1001_0010_0100_1001
GATHER_MASK_UINT16_1 = 0b0010_0100_1001_0010
GATHER_MASK_UINT16_2 = 0b0100_1001_0010_0100
GATHER_MASK_UINT32_0 = 0b0100_1001_0010_0100_1001_0010_0100_1001
GATHER_MASK_UINT32_1 = 0b1001_0010_0100_1001_0010_0100_1001_0010
GATHER_MASK_UINT32_2 = 0b0010_0100_1001_0010_0100_1001_0010_0100
# op_host
TILING_ONE_STEP_MODE, TILING_DEFAULT_MODE = 0, 1
THRESHOLD_STEP_SIZE = 1
DEFAULT_DIM = -65530
CORE_NUM = 8                          # deviation: the launch's cores (GetCoreNumAiv in the original)
ORIGINAL_UNINIT_READS = False
ORIGINAL_NO_SCALAR_SYNC = False
DEVICES = ("atlas-a3", "atlas-a2")

TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2, "int32": 4, "int16": 2, "int8": 1, "uint8": 1}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32,
       "int16": np.int16, "int8": np.int8, "uint8": np.uint8}
_BIT16 = ("half", "bfloat16")
_BIT8 = ("int8", "uint8")

CrossV2TilingData = np.dtype([(name, np.int64) for name in (
    "stepSize", "tileNum", "tileNumPerBatch", "tileDataNum", "tailDataNum")])


def dim_process(shape, dim):
    """DimProcess: a negative dim wraps; still negative (the attribute's default) finds the first axis of size 3."""
    if dim < 0:
        dim += len(shape)
    if dim < 0:
        dim = next((i for i, s in enumerate(shape) if s == SPECIFIED_DIM_SIZE), dim)
    return dim


def tiling(device, shape, dtype, dim=DEFAULT_DIM):
    """TilingFuncForCrossV2: (tiling key, block dim, packed CrossV2TilingData)."""
    ub_size, core_num = aj.get_device(device).ub_bytes, CORE_NUM
    dim = dim_process(shape, dim)
    if dim < 0 or dim >= len(shape):
        raise ValueError("CrossV2 tiling: dim is invalid")
    batch = int(np.prod(shape[:dim], dtype=np.int64))
    step = int(np.prod(shape[dim + 1:], dtype=np.int64))
    size = TYPE_SIZE[dtype]
    cast = dtype not in ("float", "int32", "int16")
    align = UINT8_ALIGN_SIZE if dtype == "uint8" else BLOCK_SIZE
    num_per_align = align // size
    if step > THRESHOLD_STEP_SIZE:
        key, work = TILING_DEFAULT_MODE, step
        ub_data_number = 20 if cast else 11
        tile_data = (ub_size // align // BUFFER_NUM) // ub_data_number * num_per_align
        per_batch = -(-step // tile_data)
        tile_num = batch * per_batch
        if tile_num < core_num:
            tile_data = max(num_per_align, batch * step // core_num // num_per_align * num_per_align)
            per_batch = -(-step // tile_data)
            tile_num = batch * per_batch
    else:
        key, work, per_batch = TILING_ONE_STEP_MODE, batch, 1
        ub_data_number = 30 if cast else 21
        tile_data = (ub_size // align // BUFFER_NUM) // ub_data_number * num_per_align
        tile_num = -(-batch // tile_data)
        if tile_num < core_num:
            tile_data = max(num_per_align, batch // core_num // num_per_align * num_per_align)
            tile_num = -(-batch // tile_data)
    tail = work % tile_data or tile_data
    t = np.zeros(1, CrossV2TilingData)
    t["stepSize"], t["tileNum"], t["tileNumPerBatch"] = step, tile_num, per_batch
    t["tileDataNum"], t["tailDataNum"] = tile_data, tail
    return key, min(tile_num, core_num), t.view(np.uint8).copy()


def _copy_params(nbytes):
    return aj.DataCopyExtParams(1, nbytes, 0, 0, 0)


def _sync(event):
    """Deviation ORIGINAL_NO_SCALAR_SYNC: a flag pair the original does not have."""
    if not ORIGINAL_NO_SCALAR_SYNC:
        evt = aj.GetTPipePtr().FetchEventID(event)
        aj.SetFlag(evt, event=event)
        aj.WaitFlag(evt, event=event)


def _zero_past(local, written, upto):
    """Deviation ORIGINAL_UNINIT_READS: zero local[written:upto] (the elements a rounded read takes past the data),
    from the 32-byte block holding element `written` on: called before the instruction that writes the data."""
    if not ORIGINAL_UNINIT_READS and upto > written:
        per_block = BLOCK_SIZE // local.dtype.size
        start = written // per_block * per_block
        aj.Duplicate(local[start], _NP[local.dtype.name](0), upto - start)


class KernelCross:
    """KernelCross<T>: stepSize > 1, each component a contiguous run of the tile's elements."""

    def __init__(self, T):
        self.T = T

    def Init(self, x1, x2, y, stepSize, tileNum, tileNumPerBatch, tileDataNum, tailDataNum):
        T = self.T
        self.coreIdx, self.coreNum = aj.GetBlockIdx(), aj.GetBlockNum()
        self.x1Gm, self.x2Gm, self.yGm = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.x1Gm.SetGlobalBuffer(x1)
        self.x2Gm.SetGlobalBuffer(x2)
        self.yGm.SetGlobalBuffer(y)
        self.stepSize, self.tileNum, self.tileNumPerBatch = stepSize, tileNum, tileNumPerBatch
        self.tileDataNum, self.tailDataNum = tileDataNum, tailDataNum
        self.pipe = aj.TPipe()
        self.inQ = [aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM) for _ in range(6)]      # x1 y1 z1 x2 y2 z2
        self.outQ = [aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM) for _ in range(3)]    # x3 y3 z3
        for q in self.inQ + self.outQ:
            self.pipe.InitBuffer(q, BUFFER_NUM, tileDataNum * TYPE_SIZE[T])
        self.bufXaYb, self.bufXbYa = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        self.compBuf = [aj.TBuf(aj.QuePosition.VECCALC) for _ in range(9)]               # x1 y1 z1 x2 y2 z2 x3 y3 z3
        if T in _BIT16 or T in _BIT8:
            wide = 4 if T in _BIT16 else 2
            self.pipe.InitBuffer(self.bufXaYb, tileDataNum * wide)
            self.pipe.InitBuffer(self.bufXbYa, tileDataNum * wide)
            for b in self.compBuf:
                self.pipe.InitBuffer(b, tileDataNum * wide)
        else:
            self.pipe.InitBuffer(self.bufXaYb, tileDataNum * TYPE_SIZE[T])
            self.pipe.InitBuffer(self.bufXbYa, tileDataNum * TYPE_SIZE[T])

    def Process(self):
        for i in range(self.coreIdx, self.tileNum, self.coreNum):
            self.processDataNum = self.tileDataNum
            batchIdx, tileIdx = divmod(i, self.tileNumPerBatch)
            if tileIdx == self.tileNumPerBatch - 1:
                self.processDataNum = self.tailDataNum
            offsets = [(batchIdx * SPECIFIED_DIM_SIZE + k) * self.stepSize + tileIdx * self.tileDataNum
                       for k in (IDX_0, IDX_1, IDX_2)]
            self.CopyIn(offsets)
            self.Compute()
            self.CopyOut(offsets)

    def CopyIn(self, offsets):
        T = self.T
        locals_ = [q.AllocTensor(T) for q in self.inQ]
        params = _copy_params(self.processDataNum * TYPE_SIZE[T])
        pad = aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0))
        for k, off in enumerate(offsets):
            aj.DataCopyPad(locals_[k], self.x1Gm[off], params, pad)
        for k, off in enumerate(offsets):
            aj.DataCopyPad(locals_[3 + k], self.x2Gm[off], params, pad)
        for q, t in zip(self.inQ, locals_):
            q.EnQue(t)

    def _mul_sub(self, x1, y1, z1, x2, y2, z2, x3, y3, z3, U):
        n = self.processDataNum
        xayb, xbya = self.bufXaYb.Get(U), self.bufXbYa.Get(U)
        aj.Mul(xayb, y1, z2, n)
        aj.Mul(xbya, y2, z1, n)
        aj.Sub(x3, xayb, xbya, n)
        aj.Mul(xayb, x2, z1, n)
        aj.Mul(xbya, x1, z2, n)
        aj.Sub(y3, xayb, xbya, n)
        aj.Mul(xayb, x1, y2, n)
        aj.Mul(xbya, x2, y1, n)
        aj.Sub(z3, xayb, xbya, n)

    def ComputeBit16(self, ins, outs):
        n = self.processDataNum
        x1, y1, z1, x2, y2, z2, x3, y3, z3 = (b.Get("float") for b in self.compBuf)
        for dst, src in zip((x1, y1, z1, x2, y2, z2), ins):
            aj.Cast(dst, src, aj.RoundMode.CAST_NONE, n)
        self._mul_sub(x1, y1, z1, x2, y2, z2, x3, y3, z3, "float")
        for dst, src in zip(outs, (x3, y3, z3)):
            aj.Cast(dst, src, aj.RoundMode.CAST_RINT, n)

    def ComputeBit8(self, ins, outs):
        n = self.processDataNum
        x1, y1, z1, x2, y2, z2, x3, y3, z3 = (b.Get("half") for b in self.compBuf)
        for dst, src in zip((x2, y2, z2, x1, y1, z1), ins[3:] + ins[:3]):
            aj.Cast(dst, src, aj.RoundMode.CAST_NONE, n)
        calCount = aj.AlignUp(n * 2, UINT8_ALIGN_SIZE) // 2
        if self.T == "uint8":
            for c in (x3, y3, z3):
                _zero_past(c, n, calCount)          # deviation ORIGINAL_UNINIT_READS (before the Sub)
        self._mul_sub(x1, y1, z1, x2, y2, z2, x3, y3, z3, "half")
        if self.T == "uint8":
            masks = [self.compBuf[k].Get("uint8") for k in (0, 1, 2)]
            tmps = [self.compBuf[k].Get("half") for k in (3, 4, 5)]
            for m, c in zip(masks, (x3, y3, z3)):
                aj.CompareScalar(m, c, HALF_ZERO, aj.CMPMODE.LT, calCount)
            for t, c in zip(tmps, (x3, y3, z3)):
                aj.Adds(t, c, HALF_256, n)
            for m, t, c in zip(masks, tmps, (x3, y3, z3)):
                aj.Select(c, m, t, c, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
        for dst, src in zip(outs, (x3, y3, z3)):
            aj.Cast(dst, src, aj.RoundMode.CAST_NONE, n)

    def ComputeNotCast(self, ins, outs):
        self._mul_sub(*ins, *outs, self.T)

    def Compute(self):
        T = self.T
        ins = [q.DeQue(T) for q in self.inQ]
        outs = [q.AllocTensor(T) for q in self.outQ]
        if T in _BIT16:
            self.ComputeBit16(ins, outs)
        elif T in _BIT8:
            self.ComputeBit8(ins, outs)
        else:
            self.ComputeNotCast(ins, outs)
        for q, t in zip(self.outQ, outs):
            q.EnQue(t)
        for q, t in zip(self.inQ, ins):
            q.FreeTensor(t)

    def CopyOut(self, offsets):
        T = self.T
        outs = [q.DeQue(T) for q in self.outQ]
        params = _copy_params(self.processDataNum * TYPE_SIZE[T])
        for off, t in zip(offsets, outs):
            aj.DataCopyPad(self.yGm[off], t, params)
        for q, t in zip(self.outQ, outs):
            q.FreeTensor(t)


class KernelCrossOneStep:
    """KernelCrossOneStep<T>: stepSize 1, the components interleaved (x y z x y z ...)."""

    def __init__(self, T):
        self.T = T

    def Init(self, x1, x2, y, tileNum, tileDataNum, tailDataNum):
        T = self.T
        self.coreIdx, self.coreNum = aj.GetBlockIdx(), aj.GetBlockNum()
        self.x1Gm, self.x2Gm, self.yGm = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.x1Gm.SetGlobalBuffer(x1)
        self.x2Gm.SetGlobalBuffer(x2)
        self.yGm.SetGlobalBuffer(y)
        self.tileNum, self.tileDataNum, self.tailDataNum = tileNum, tileDataNum, tailDataNum
        self.pipe = aj.TPipe()
        self.inQueueSelf, self.inQueueOther = (aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM) for _ in range(2))
        self.outQueueOut = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        three = SPECIFIED_DIM_SIZE * tileDataNum
        for q in (self.inQueueSelf, self.inQueueOther, self.outQueueOut):
            self.pipe.InitBuffer(q, BUFFER_NUM, three * TYPE_SIZE[T])
        self.srcOffsetBuf = aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.srcOffsetBuf, SPECIFIED_DIM_SIZE * BLOCK_SIZE)
        self.bufXaYb, self.bufXbYa = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        self.compBuf = [aj.TBuf(aj.QuePosition.VECCALC) for _ in range(9)]               # x1 y1 z1 x2 y2 z2 x3 y3 z3
        self.selfBuf, self.otherBuf, self.outBuf = (aj.TBuf(aj.QuePosition.VECCALC) for _ in range(3))
        if T in ("half", "int16", "bfloat16") or T in _BIT8:
            wide = 2 if T in _BIT8 else 4
            self.pipe.InitBuffer(self.bufXaYb, tileDataNum * wide)
            self.pipe.InitBuffer(self.bufXbYa, tileDataNum * wide)
            for b in self.compBuf:
                self.pipe.InitBuffer(b, tileDataNum * wide)
            for b in (self.selfBuf, self.otherBuf, self.outBuf):
                self.pipe.InitBuffer(b, three * wide)
        else:
            for b in self.compBuf:
                self.pipe.InitBuffer(b, tileDataNum * TYPE_SIZE[T])
            self.pipe.InitBuffer(self.bufXaYb, tileDataNum * TYPE_SIZE[T])
            self.pipe.InitBuffer(self.bufXbYa, tileDataNum * TYPE_SIZE[T])

    def _offsets(self, pattern_type):
        n = BLOCK_SIZE // np.dtype(pattern_type).itemsize
        return [self.srcOffsetBuf.GetWithOffset(pattern_type, n, k * BLOCK_SIZE) for k in (IDX_0, IDX_1, IDX_2)]

    def Process(self):
        T = self.T
        if T in ("int8", "uint8", "int16"):
            xOffset, yOffset, zOffset = self._offsets("uint16")
            for off, words in ((xOffset, (GATHER_MASK_UINT16_0, GATHER_MASK_UINT16_2, GATHER_MASK_UINT16_1)),
                               (yOffset, (GATHER_MASK_UINT16_1, GATHER_MASK_UINT16_0, GATHER_MASK_UINT16_2)),
                               (zOffset, (GATHER_MASK_UINT16_2, GATHER_MASK_UINT16_1, GATHER_MASK_UINT16_0))):
                for k, w in enumerate(words):
                    off.SetValue(k, w)
        else:
            xOffset, yOffset, zOffset = self._offsets("uint32")
            xOffset.SetValue(IDX_0, GATHER_MASK_UINT32_0)
            yOffset.SetValue(IDX_0, GATHER_MASK_UINT32_1)
            zOffset.SetValue(IDX_0, GATHER_MASK_UINT32_2)
        _sync(aj.HardEvent.S_V)                         # deviation ORIGINAL_NO_SCALAR_SYNC
        for i in range(self.coreIdx, self.tileNum, self.coreNum):
            self.processDataNum = self.tileDataNum
            if i == self.tileNum - 1:
                self.processDataNum = self.tailDataNum
            offset = i * self.tileDataNum * SPECIFIED_DIM_SIZE
            self.CopyInOneStep(offset)
            self.ComputeOneStep()
            self.CopyOutOneStep(offset)

    def CopyInOneStep(self, offset):
        T = self.T
        selfLocal, otherLocal = self.inQueueSelf.AllocTensor(T), self.inQueueOther.AllocTensor(T)
        count = SPECIFIED_DIM_SIZE * self.processDataNum
        if T not in _BIT16 and T not in _BIT8:
            # deviation ORIGINAL_UNINIT_READS: the GatherMasks read the queue tensors' whole 3 * tileDataNum
            # elements (the others read a TBuf the Cast fills: zeroed in ComputeOneStep)
            copied = aj.AlignUp(count * TYPE_SIZE[T], BLOCK_SIZE) // TYPE_SIZE[T]
            for t in (selfLocal, otherLocal):
                _zero_past(t, copied, SPECIFIED_DIM_SIZE * self.tileDataNum)
        params = _copy_params(count * TYPE_SIZE[T])
        pad = aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0))
        aj.DataCopyPad(selfLocal, self.x1Gm[offset], params, pad)
        aj.DataCopyPad(otherLocal, self.x2Gm[offset], params, pad)
        self.inQueueSelf.EnQue(selfLocal)
        self.inQueueOther.EnQue(otherLocal)

    def _gather(self, U, pattern_type, per_block, pairs):
        offsets = self._offsets(pattern_type)
        repeatTimes = self.tileDataNum // per_block
        mask = SPECIFIED_DIM_SIZE * per_block
        params = aj.GatherMaskParams(1, repeatTimes, SPECIFIED_DIM_SIZE, 0)
        for dst, src, k in pairs:
            aj.GatherMask(dst, src, offsets[k], True, mask, params)

    def _mul_sub(self, order, x1, y1, z1, x2, y2, z2, x3, y3, z3):
        n = self.processDataNum
        U = x1.dtype.name
        xayb, xbya = self.bufXaYb.Get(U), self.bufXbYa.Get(U)
        steps = {"x": (x3, y1, z2, y2, z1), "y": (y3, x2, z1, x1, z2), "z": (z3, x1, y2, x2, y1)}
        for c in order:
            dst, a, b, p, q = steps[c]
            aj.Mul(xayb, a, b, n)
            aj.Mul(xbya, p, q, n)
            aj.Sub(dst, xayb, xbya, n)

    def _interleave(self, out, x3, y3, z3):
        """The scalar loop: out[3 i + k] = component k of vector i."""
        _sync(aj.HardEvent.V_S)                          # deviation ORIGINAL_NO_SCALAR_SYNC
        for i in range(self.processDataNum):
            out.SetValue(i * SPECIFIED_DIM_SIZE + IDX_0, x3.GetValue(i))
            out.SetValue(i * SPECIFIED_DIM_SIZE + IDX_1, y3.GetValue(i))
            out.SetValue(i * SPECIFIED_DIM_SIZE + IDX_2, z3.GetValue(i))

    def ComputeBit16(self, selfLocal, otherLocal, outLocal):
        U, count = "float", SPECIFIED_DIM_SIZE * self.processDataNum
        self_, other, out = self.selfBuf.Get(U), self.otherBuf.Get(U), self.outBuf.Get(U)
        for t in (self_, other):                          # deviation ORIGINAL_UNINIT_READS (before the Casts)
            _zero_past(t, count, SPECIFIED_DIM_SIZE * self.tileDataNum)
        aj.Cast(self_, selfLocal, aj.RoundMode.CAST_NONE, count)
        aj.Cast(other, otherLocal, aj.RoundMode.CAST_NONE, count)
        x1, y1, z1, x2, y2, z2, x3, y3, z3 = (b.Get(U) for b in self.compBuf)
        self._gather(U, "uint32", NUM_PER_BLK_32, ((x1, self_, 0), (y1, self_, 1), (z1, self_, 2),
                                                   (x2, other, 0), (y2, other, 1), (z2, other, 2)))
        self._mul_sub("xyz", x1, y1, z1, x2, y2, z2, x3, y3, z3)
        self._interleave(out, x3, y3, z3)
        _sync(aj.HardEvent.S_V)                          # deviation ORIGINAL_NO_SCALAR_SYNC
        aj.Cast(outLocal, out, aj.RoundMode.CAST_RINT, count)

    def ComputeBit8(self, selfLocal, otherLocal, outLocal):
        U, count, n = "half", SPECIFIED_DIM_SIZE * self.processDataNum, self.processDataNum
        self_, other, out = self.selfBuf.Get(U), self.otherBuf.Get(U), self.outBuf.Get(U)
        for t in (self_, other):                          # deviation ORIGINAL_UNINIT_READS (before the Casts)
            _zero_past(t, count, SPECIFIED_DIM_SIZE * self.tileDataNum)
        aj.Cast(self_, selfLocal, aj.RoundMode.CAST_NONE, count)
        aj.Cast(other, otherLocal, aj.RoundMode.CAST_NONE, count)
        x1, y1, z1, x3, y3, z3, x2, y2, z2 = (self.compBuf[k].Get(U) for k in (0, 1, 2, 6, 7, 8, 3, 4, 5))
        self._gather(U, "uint16", NUM_PER_BLK_16, ((x2, other, 0), (y2, other, 1), (z2, other, 2),
                                                   (x1, self_, 0), (y1, self_, 1), (z1, self_, 2)))
        calCount = aj.AlignUp(n * 2, UINT8_ALIGN_SIZE) // 2
        if self.T == "uint8":
            for c in (x3, y3, z3):
                _zero_past(c, n, calCount)              # deviation ORIGINAL_UNINIT_READS (before the Sub)
        self._mul_sub("xzy", x1, y1, z1, x2, y2, z2, x3, y3, z3)
        if self.T == "uint8":
            masks = [self.compBuf[k].Get("uint8") for k in (0, 1, 2)]
            tmps = [self.compBuf[k].Get(U) for k in (3, 4, 5)]
            for m, c in zip(masks, (x3, y3, z3)):
                aj.CompareScalar(m, c, HALF_ZERO, aj.CMPMODE.LT, calCount)
            for k in (0, 2, 1):                          # x, z, y as the original
                aj.Adds(tmps[k], (x3, y3, z3)[k], HALF_256, n)
            for m, t, c in zip(masks, tmps, (x3, y3, z3)):
                aj.Select(c, m, t, c, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
        self._interleave(out, x3, y3, z3)
        _sync(aj.HardEvent.S_V)                          # deviation ORIGINAL_NO_SCALAR_SYNC
        aj.Cast(outLocal, out, aj.RoundMode.CAST_NONE, count)

    def ComputeNotCast(self, selfLocal, otherLocal, outLocal, pattern_type):
        per_block = BLOCK_SIZE // np.dtype(pattern_type).itemsize
        x1, y1, z1, x2, y2, z2, x3, y3, z3 = (b.Get(self.T) for b in self.compBuf)
        self._gather(self.T, pattern_type, per_block, ((x1, selfLocal, 0), (y1, selfLocal, 1), (z1, selfLocal, 2),
                                                       (x2, otherLocal, 0), (y2, otherLocal, 1),
                                                       (z2, otherLocal, 2)))
        self._mul_sub("yxz", x1, y1, z1, x2, y2, z2, x3, y3, z3)
        self._interleave(outLocal, x3, y3, z3)

    def ComputeOneStep(self):
        T = self.T
        selfLocal, otherLocal = self.inQueueSelf.DeQue(T), self.inQueueOther.DeQue(T)
        outLocal = self.outQueueOut.AllocTensor(T)
        if T in _BIT16:
            self.ComputeBit16(selfLocal, otherLocal, outLocal)
        elif T in _BIT8:
            self.ComputeBit8(selfLocal, otherLocal, outLocal)
        elif T == "int16":
            self.ComputeNotCast(selfLocal, otherLocal, outLocal, "uint16")
        else:
            self.ComputeNotCast(selfLocal, otherLocal, outLocal, "uint32")
        self.outQueueOut.EnQue(outLocal)
        self.inQueueSelf.FreeTensor(selfLocal)
        self.inQueueOther.FreeTensor(otherLocal)

    def CopyOutOneStep(self, offset):
        outLocal = self.outQueueOut.DeQue(self.T)
        aj.DataCopyPad(self.yGm[offset], outLocal, _copy_params(SPECIFIED_DIM_SIZE * self.processDataNum *
                                                                TYPE_SIZE[self.T]))
        self.outQueueOut.FreeTensor(outLocal)


aj.REGISTER_TILING_DEFAULT(CrossV2TilingData)


def cross_v2(x1, x2, y, workspace, tiling_bytes, TILING_KEY, DTYPE_X1):
    """The kernel entry; TILING_KEY and DTYPE_X1 stand for the build's key and type."""
    t = aj.GET_TILING_DATA(tiling_bytes)
    if TILING_KEY == TILING_ONE_STEP_MODE:
        op = KernelCrossOneStep(DTYPE_X1)
        op.Init(x1, x2, y, int(t.tileNum), int(t.tileDataNum), int(t.tailDataNum))
        op.Process()
    elif TILING_KEY == TILING_DEFAULT_MODE:
        op = KernelCross(DTYPE_X1)
        op.Init(x1, x2, y, int(t.stepSize), int(t.tileNum), int(t.tileNumPerBatch), int(t.tileDataNum),
                int(t.tailDataNum))
        op.Process()


def _dtype_name(a):
    return next(k for k, v in _NP.items() if np.dtype(v) == a.dtype)


def run_cross(device, inputs, dim):
    x1, x2 = inputs["x1"], inputs["x2"]
    dtype = _dtype_name(x1)
    key, block_dim, tiling_bytes = tiling(device, x1.shape, dtype, dim)
    y = np.zeros(x1.size, x1.dtype)
    workspace = np.zeros(16 * 1024 * 1024 // 1024, np.uint8)   # GetLibApiWorkSpaceSize: the kernel reads none
    aj.launch(cross_v2, block_dim, device, x1.reshape(-1), x2.reshape(-1), y, workspace, tiling_bytes, key, dtype)
    return {"y": y.reshape(x1.shape)}


def expected_cross(inputs, dim):
    """The original's arithmetic in numpy, component k of x1 / x2 taken along dim."""
    x1, x2 = inputs["x1"], inputs["x2"]
    dtype = _dtype_name(x1)
    dim = dim_process(x1.shape, dim)
    a = [np.take(x1, k, axis=dim) for k in range(3)]
    b = [np.take(x2, k, axis=dim) for k in range(3)]
    U = {"half": np.float32, "bfloat16": np.float32, "int8": np.float16, "uint8": np.float16}.get(dtype, x1.dtype)
    a, b = [v.astype(U) for v in a], [v.astype(U) for v in b]
    with np.errstate(all="ignore"):
        c = [(a[1] * b[2]).astype(U) - (b[1] * a[2]).astype(U),
             (b[0] * a[2]).astype(U) - (a[0] * b[2]).astype(U),
             (a[0] * b[1]).astype(U) - (b[0] * a[1]).astype(U)]
        c = [v.astype(U) for v in c]
        if dtype == "uint8":
            c = [np.where(v < 0, (v + np.float16(256)).astype(U), v) for v in c]
        if dtype in _BIT8:
            info = np.iinfo(_NP[dtype])
            c = [np.clip(v.astype(np.float32), info.min, info.max).astype(_NP[dtype]) for v in c]
        else:
            c = [v.astype(_NP[dtype]) for v in c]
    return {"y": np.stack(c, axis=dim)}


# name -> (dtype, dim, shape of a size): dim 1 of (2, 3, S) runs KernelCross, dim -1 of (N, 3) KernelCrossOneStep
CASES = {
    "cross_v2": ("float", 1),
    "cross_v2_bf16": ("bfloat16", 1),
    "cross_v2_uint8": ("uint8", 1),
    "cross_v2_one_step": ("float", -1),
    "cross_v2_one_step_half": ("half", -1),
    "cross_v2_one_step_int16": ("int16", -1),
    "cross_v2_one_step_uint8": ("uint8", -1),
}


def shape_of(name, size):
    dtype, dim = CASES[name]
    return (2, 3, size // 6) if dim == 1 else (size // 3, 3)


def _make_inputs(name):
    dtype, dim = CASES[name]

    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        shape = shape_of(name, size)
        if dtype in ("float", "half", "bfloat16"):
            x1 = rng.uniform(-4, 4, shape).astype(np.float32)
            x2 = rng.uniform(-4, 4, shape).astype(np.float32)
        else:
            info = np.iinfo(_NP[dtype])
            lo, hi = (-300, 301) if dtype == "int16" else (int(info.min), int(info.max) + 1)
            if dtype == "int32":
                lo, hi = -50000, 50001
            x1, x2 = rng.integers(lo, hi, shape), rng.integers(lo, hi, shape)
            if dtype in _BIT8:                      # half the vectors small: products exact in half, no clamping
                small = rng.random(shape[:-1] if dim == -1 else shape) < 0.5
                if dim == -1:
                    small = small[..., None]
                x1 = np.where(small, x1 % 12, x1)
                x2 = np.where(small, x2 % 12, x2)
        return {"x1": x1.astype(_NP[dtype]), "x2": x2.astype(_NP[dtype])}
    return make_inputs


def _run(name):
    return lambda device, inputs: run_cross(device, inputs, CASES[name][1])


def _expected(name):
    return lambda device, inputs: expected_cross(inputs, CASES[name][1])


def _size_ok(name):
    unit = 6 if CASES[name][1] == 1 else 3
    low = 12 if CASES[name][1] == 1 else 3
    return lambda n: low <= n <= 1 << 22 and n % unit == 0


_SOURCE = "hicann/ops-nn@e5c3fa93 loss/cross_v2/op_kernel/cross_v2.cpp"


def _spec(name, default_size, description):
    rule = "a multiple of 6 (x of shape (2, 3, n / 6)), 12 to 4Mi" if CASES[name][1] == 1 else \
        "a multiple of 3 (x of shape (n / 3, 3)), up to 4Mi"
    return KernelSpec(name, description, _make_inputs(name), _run(name), _expected(name), default_size=default_size,
                      devices=DEVICES, size_rule=rule, size_ok=_size_ok(name), source=_SOURCE)


KERNELS = [
    _spec("cross_v2", 60000, "ops-nn CrossV2, float, dim 1 of (2, 3, n / 6): KernelCross (three DataCopyPads per "
          "input, Mul / Mul / Sub per component, tiles dealt round robin over the cores)"),
    _spec("cross_v2_bf16", 60000, "ops-nn CrossV2 KernelCross, bfloat16: Cast to float, Cast back CAST_RINT"),
    _spec("cross_v2_uint8", 60000, "ops-nn CrossV2 KernelCross, uint8: half arithmetic, CompareScalar LT 0 over "
          "256-byte counts, Adds 256, Select tensor-tensor, Cast to uint8"),
    _spec("cross_v2_one_step", 30000, "ops-nn CrossV2 KernelCrossOneStep, float, dim -1 of (n / 3, 3): GatherMask "
          "reduce mode with uint32 user patterns (mask 24, src0RepeatStride 3), Mul / Sub, scalar interleave"),
    _spec("cross_v2_one_step_half", 30000, "ops-nn CrossV2 KernelCrossOneStep, half: Cast to float, GatherMask, "
          "scalar interleave into a float TBuf, Cast CAST_RINT"),
    _spec("cross_v2_one_step_int16", 30000, "ops-nn CrossV2 KernelCrossOneStep, int16: GatherMask with 48-bit "
          "uint16 patterns (mask 48), Mul / Sub wrapping"),
    _spec("cross_v2_one_step_uint8", 30000, "ops-nn CrossV2 KernelCrossOneStep, uint8: Cast to half, GatherMask "
          "(uint16 patterns), CompareScalar / Adds / Select, Cast to uint8"),
]
