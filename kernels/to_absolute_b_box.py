"""ToAbsoluteBBox from the CANN CV operators: normalized bounding boxes [ymin, xmin, ymax, xmax] to absolute pixel
coordinates, ymin / ymax times the image height H and xmin / xmax times its width W (H = shape_hw[1], W =
shape_hw[2] of an int32 (batch, H, W, C) shape), over float and half; the boxes laid out (batch, num, 4) or, with
reversed_box, (batch, 4, num).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-cv @ 6ae87653464d2afb064c829e529abba2e278b0c4, objdetect/to_absolute_b_box (the 950 Memory API):
- op_kernel/arch35/to_absolute_b_box.h (`NsToAbsoluteBBox::ToAbsoluteBBox<T, REVERSED_BOX>`): each core a
  blockFormer-element range (the last the rest); depth-2 in and out queues of ubFormer elements; `BuildScale`:
  DataCopyPad of the 4 int32 of shape_hw (DataCopyExtParams set field by field), MTE2_V on EVENT_ID0, Cast to T
  (float CAST_NONE, half CAST_RINT), V_S, H and W read by GetValue; (batch, num, 4): a persistent scale TBuf of
  ubFormer elements, a count-form Duplicate of H, then a mask-form Duplicate of W on the odd lanes (mask
  0xAAAA... in both words, ubFormer / (256 / sizeof(T)) repeats, strides 1 / 8) and PipeBarrier<PIPE_V>; per tile
  DataCopyPad in, Mul by the scale, DataCopyPad out; (batch, 4, num): the core's range cut at the coordinate
  segments of num elements (period 4 num, the segment picks H or W) and at ubFormer, each chunk DataCopyPad in,
  Muls by the scalar, DataCopyPad out (`ProcessChunkRev`);
- op_kernel/to_absolute_b_box_apt.cpp (the entry: REGISTER_TILING_DEFAULT, GET_TILING_DATA_WITH_STRUCT, the template's
  REVERSED_BOX from the tiling key) and op_host/arch35/to_absolute_b_box_tiling_arch35.cpp (`ComputeTilingParams`:
  cores = ceil(total * bits / 32768) at most the AIV count, blockFormer = ceil(total / cores) rounded up to 512
  elements, blocks = ceil(total / blockFormer); ubFormer = (UB - 64) / (5 buffers * sizeof(T)) rounded down to a
  256-byte repeat; the loop count and tail of the former and the last block).

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original). The shape_hw Casts: the
original converts int32 -> float with CAST_NONE, which the 950's Cast table does not list for the pair, so the
emulator refuses it (SPEC-2 D45 / D72); the port uses CAST_RINT, the value CAST_NONE gives where it is offered (D45:
CAST_NONE = CAST_RINT). For half it converts int32 -> half CAST_RINT directly, a pair the emulator refuses on the
950 (SPEC-2 D47: it needs SetDeqScale); the port converts int32 -> float -> half (CAST_RINT each, in a 16-byte float
TBuf of its own), the same value for dimensions below 2**24. The float scale's odd-lane Duplicate: the original
passes the mask 0xAAAA... in both words, and for 32-bit lanes the emulator refuses a non-zero mask[1] (SPEC 2.1);
the port passes {0xAAAA..., 0}, the same lanes. ORIGINAL_CAST / ORIGINAL_MASK = True run the original's forms and
tests/test_port47cv_kernels.py shows the refusals. Every copy moves exactly its elements and every instruction's
count is the tile's (the scale's Duplicates write the whole TBuf).

Devices: the operator's config is the ascend950 (op_host/to_absolute_b_box_def.cpp): the port runs on the 950.

Fidelity: BIT-EXACT (Cast, Duplicate, Mul, Muls, DataCopyPad; SPEC-2 0.3): each output is x * H or x * W rounded
once in T, H and W converted to T first (half: a dimension past 2048 rounds to nearest even, one past 65504 becomes
inf).
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
BUFFER_NUM = 2
MIN_TILING_BITS = 32768
ELEM_ALIGN_FACTOR = 512
ALIGN_256 = 256
COORD_AXIS_LEN = 4
SHAPE_HW_LEN = 4
UB_BUFFER_NUM = 5                  # the tiling's 2 in + 2 out + 1 scale
EXTRA_SIZE = 64
SHAPE_HW_H_IDX, SHAPE_HW_W_IDX = 1, 2
VEC_REPEAT_BYTES = 256
DUP_DST_BLK_STRIDE, DUP_DST_REP_STRIDE = 1, 8
ODD_MASK = 0xAAAAAAAAAAAAAAAA
TYPE_SIZE = {"float": 4, "half": 2}
_NP = {"float": np.float32, "half": np.float16}
DEVICES = ("ascend950",)
ORIGINAL_MASK = False              # True: the original's float mask (ODD_MASK in mask[1] too: refused)
ORIGINAL_CAST = False              # True: the original's shape_hw Casts (refused on the 950)


class ToAbsoluteBBoxTilingData(ctypes.Structure):
    _fields_ = [("dim0", ctypes.c_int64), ("coreNum", ctypes.c_int32), ("blockFormer", ctypes.c_int64),
                ("blockNum", ctypes.c_int64), ("ubFormer", ctypes.c_int64), ("ubLoopOfFormerBlock", ctypes.c_int64),
                ("ubTailOfFormerBlock", ctypes.c_int64), ("ubLoopOfTailBlock", ctypes.c_int64),
                ("ubTailOfTailBlock", ctypes.c_int64), ("num", ctypes.c_int64)]


def _ceil_div(a, b):
    return -(-a // b)


def tiling(device, shape, dtype, reversed_box=False):
    """ToAbsoluteBBoxTilingFunc: (block count, tiling bytes, the REVERSED_BOX key)."""
    if len(shape) != 3:
        raise ValueError("normalized_boxes rank must be 3")
    coord_axis, num = (shape[1], shape[2]) if reversed_box else (shape[2], shape[1])
    if coord_axis != COORD_AXIS_LEN:
        raise ValueError("coord axis must be 4")
    dim0 = int(np.prod(shape))
    if dim0 <= 0:
        raise ValueError("empty tensor is not supported")
    elem_bytes = TYPE_SIZE[dtype]
    core_num = max(1, min(_ceil_div(dim0 * elem_bytes * 8, MIN_TILING_BITS), CORE_NUM))
    block_former = _ceil_div(_ceil_div(dim0, core_num), ELEM_ALIGN_FACTOR) * ELEM_ALIGN_FACTOR
    block_num = _ceil_div(dim0, block_former)
    ub_size = aj.get_device(device).ub_bytes
    max_elem = (ub_size - EXTRA_SIZE) // (UB_BUFFER_NUM * elem_bytes)
    align = ALIGN_256 // elem_bytes
    ub_former = max(max_elem // align * align, align)
    loop_former = _ceil_div(block_former, ub_former)
    block_tail = dim0 - (block_num - 1) * block_former
    loop_tail = _ceil_div(block_tail, ub_former)
    t = ToAbsoluteBBoxTilingData(
        dim0=dim0, coreNum=core_num, blockFormer=block_former, blockNum=block_num, ubFormer=ub_former,
        ubLoopOfFormerBlock=loop_former, ubTailOfFormerBlock=block_former - (loop_former - 1) * ub_former,
        ubLoopOfTailBlock=loop_tail, ubTailOfTailBlock=block_tail - (loop_tail - 1) * ub_former, num=num)
    return block_num, np.frombuffer(bytes(t), np.uint8).copy(), int(reversed_box)


class ToAbsoluteBBox:
    """`ToAbsoluteBBox<T, REVERSED_BOX>`."""

    def __init__(self, T, REVERSED_BOX):
        self.T, self.REVERSED_BOX = T, REVERSED_BOX

    def Init(self, normalizedBoxes, shapeHw, y, tilingData):
        T = self.T
        self.ubFormer = tilingData.ubFormer
        self.blockNum = tilingData.blockNum
        self.blockFormer = tilingData.blockFormer
        self.num = tilingData.num
        blockIdx = aj.GetBlockIdx()
        isLastBlock = blockIdx == self.blockNum - 1
        self.loopNum = tilingData.ubLoopOfTailBlock if isLastBlock else tilingData.ubLoopOfFormerBlock
        self.tailNum = tilingData.ubTailOfTailBlock if isLastBlock else tilingData.ubTailOfFormerBlock
        self.blockLen = (self.loopNum - 1) * self.ubFormer + self.tailNum
        self.blockBase = self.blockFormer * blockIdx
        self.pipe = aj.TPipe()
        self.boxGm, self.yGm, self.hwGm = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor("int32")
        self.boxGm.SetGlobalBuffer(normalizedBoxes[self.blockBase:], self.blockLen)
        self.yGm.SetGlobalBuffer(y[self.blockBase:], self.blockLen)
        self.hwGm.SetGlobalBuffer(shapeHw, SHAPE_HW_LEN)
        self.inQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.scaleBuf, self.hwIntBuf, self.hwCastBuf, self.hwFloatBuf = (
            aj.TBuf(aj.TPosition.VECCALC) for _ in range(4))
        self.pipe.InitBuffer(self.inQueue, BUFFER_NUM, self.ubFormer * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.outQueue, BUFFER_NUM, self.ubFormer * TYPE_SIZE[T])
        if self.REVERSED_BOX == 0:
            self.pipe.InitBuffer(self.scaleBuf, self.ubFormer * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.hwIntBuf, SHAPE_HW_LEN * 4)
        self.pipe.InitBuffer(self.hwCastBuf, SHAPE_HW_LEN * TYPE_SIZE[T])
        if T == "half" and not ORIGINAL_CAST:
            self.pipe.InitBuffer(self.hwFloatBuf, SHAPE_HW_LEN * 4)
        self.BuildScale()

    def BuildScale(self):
        T = self.T
        hwInt = self.hwIntBuf.Get("int32")
        hwCast = self.hwCastBuf.Get(T)
        hwCopy = aj.DataCopyExtParams()
        hwCopy.blockCount = 1
        hwCopy.blockLen = SHAPE_HW_LEN * 4
        hwCopy.srcStride = 0
        hwCopy.dstStride = 0
        hwCopy.rsv = 0
        aj.DataCopyPad(hwInt, self.hwGm, hwCopy, aj.DataCopyPadExtParams(False, 0, 0, np.int32(0)))
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        if ORIGINAL_CAST:                                    # refused on the 950 (SPEC-2 D45 / D72, D47)
            mode = aj.RoundMode.CAST_NONE if T == "float" else aj.RoundMode.CAST_RINT
            aj.Cast(hwCast, hwInt, mode, SHAPE_HW_LEN)
        elif T == "float":
            aj.Cast(hwCast, hwInt, aj.RoundMode.CAST_RINT, SHAPE_HW_LEN)
        else:                                                # deviation: int32 -> float -> half
            hwFloat = self.hwFloatBuf.Get("float")
            aj.Cast(hwFloat, hwInt, aj.RoundMode.CAST_RINT, SHAPE_HW_LEN)
            aj.Cast(hwCast, hwFloat, aj.RoundMode.CAST_RINT, SHAPE_HW_LEN)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        self.hVal = hwCast.GetValue(SHAPE_HW_H_IDX)
        self.wVal = hwCast.GetValue(SHAPE_HW_W_IDX)
        if self.REVERSED_BOX == 0:
            scale = self.scaleBuf.Get(T)
            aj.Duplicate(scale, self.hVal, self.ubFormer)
            elemPerRepeat = VEC_REPEAT_BYTES // TYPE_SIZE[T]
            mask = [ODD_MASK, ODD_MASK]                      # lanes 1, 3, 5, ...: the x coordinates
            if T == "float" and not ORIGINAL_MASK:
                mask = [ODD_MASK, 0]                         # deviation: 32-bit lanes take mask[0] only
            repeatTimes = self.ubFormer // elemPerRepeat
            aj.Duplicate(scale, self.wVal, mask, repeatTimes, DUP_DST_BLK_STRIDE, DUP_DST_REP_STRIDE)
            aj.PipeBarrier(aj.PIPE_V)

    def CopyIn(self, tileOffset, currentNum):
        T = self.T
        xLocal = self.inQueue.AllocTensor(T)
        copyParams = aj.DataCopyExtParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        copyParams.rsv = 0
        aj.DataCopyPad(xLocal, self.boxGm[tileOffset], copyParams, aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0)))
        self.inQueue.EnQue(xLocal)

    def Compute(self, currentNum):
        T = self.T
        xLocal = self.inQueue.DeQue(T)
        zLocal = self.outQueue.AllocTensor(T)
        scale = self.scaleBuf.Get(T)
        aj.Mul(zLocal, xLocal, scale, currentNum)
        self.outQueue.EnQue(zLocal)
        self.inQueue.FreeTensor(xLocal)

    def CopyOut(self, tileOffset, currentNum):
        T = self.T
        zLocal = self.outQueue.DeQue(T)
        copyParams = aj.DataCopyExtParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        copyParams.rsv = 0
        aj.DataCopyPad(self.yGm[tileOffset], zLocal, copyParams)
        self.outQueue.FreeTensor(zLocal)

    def ProcessChunkRev(self, localOffset, currentNum, scalarVal):
        T = self.T
        xLocal = self.inQueue.AllocTensor(T)
        copyParams = aj.DataCopyExtParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        copyParams.rsv = 0
        aj.DataCopyPad(xLocal, self.boxGm[localOffset], copyParams, aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0)))
        self.inQueue.EnQue(xLocal)
        xLocal = self.inQueue.DeQue(T)
        zLocal = self.outQueue.AllocTensor(T)
        aj.Muls(zLocal, xLocal, scalarVal, currentNum)
        self.outQueue.EnQue(zLocal)
        self.inQueue.FreeTensor(xLocal)
        zLocal = self.outQueue.DeQue(T)
        aj.DataCopyPad(self.yGm[localOffset], zLocal, copyParams)
        self.outQueue.FreeTensor(zLocal)

    def Process(self):
        if self.REVERSED_BOX == 0:
            offset = 0
            for _ in range(self.loopNum - 1):
                self.CopyIn(offset, self.ubFormer)
                self.Compute(self.ubFormer)
                self.CopyOut(offset, self.ubFormer)
                offset += self.ubFormer
            if self.tailNum > 0:
                self.CopyIn(offset, self.tailNum)
                self.Compute(self.tailNum)
                self.CopyOut(offset, self.tailNum)
        else:
            batchLen = COORD_AXIS_LEN * self.num             # one batch: 4 segments of num elements
            gStart, gEnd = self.blockBase, self.blockBase + self.blockLen
            g = gStart
            while g < gEnd:
                pos = g % batchLen
                coordSegIdx = pos // self.num                # 0 ymin, 1 xmin, 2 ymax, 3 xmax
                scalarVal = self.hVal if coordSegIdx in (0, 2) else self.wVal
                segEnd = min(g - pos + (coordSegIdx + 1) * self.num, gEnd)
                c = g
                while c < segEnd:
                    cnt = min(segEnd - c, self.ubFormer)
                    self.ProcessChunkRev(c - gStart, cnt, scalarVal)
                    c += cnt
                g = segEnd


aj.REGISTER_TILING_DEFAULT(ToAbsoluteBBoxTilingData)


def to_absolute_b_box(normalized_boxes, shape_hw, y, workspace, tiling_bytes, T, REVERSED_BOX):
    """The kernel entry (to_absolute_b_box_apt.cpp)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ToAbsoluteBBoxTilingData, tiling_bytes)
    op = ToAbsoluteBBox(T, REVERSED_BOX)
    op.Init(normalized_boxes, shape_hw, y, tilingData)
    op.Process()


def run_to_absolute_b_box(device, boxes, shape_hw, reversed_box=False):
    T = "half" if boxes.dtype == np.float16 else "float"
    blocks, t, key = tiling(device, boxes.shape, T, reversed_box)
    y = np.zeros(boxes.size, boxes.dtype)
    aj.launch(to_absolute_b_box, blocks, device, np.ascontiguousarray(boxes).reshape(-1),
              np.ascontiguousarray(shape_hw, np.int32), y, None, t, T, key)
    return y.reshape(boxes.shape)


def to_absolute_b_box_model(boxes, shape_hw, reversed_box=False):
    """x * H on ymin / ymax, x * W on xmin / xmax, in T (H and W rounded to T first, RNE), one rounding; H and W
    below 2**24 (the port's int32 -> float -> half equals the direct conversion there)."""
    with np.errstate(over="ignore"):                   # exact in float below 2**24, then RNE (inf past 65504)
        h, w = (np.float32(v).astype(boxes.dtype) for v in (shape_hw[1], shape_hw[2]))
    scale = np.array([h, w, h, w], boxes.dtype)
    with np.errstate(all="ignore"):
        if reversed_box:
            return (boxes * scale[None, :, None]).astype(boxes.dtype)
        return (boxes * scale[None, None, :]).astype(boxes.dtype)


def _make_inputs(dtype, reversed_box, shape_hw):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        num = max(1, size // 8)
        shape = (2, 4, num) if reversed_box else (2, num, 4)
        boxes = rng.uniform(0.0, 1.0, shape).astype(dtype)
        return {"normalized_boxes": boxes, "shape_hw": np.array(shape_hw, np.int32)}
    return make_inputs


def _runner(reversed_box):
    def run(device, inputs):
        return {"y": run_to_absolute_b_box(device, inputs["normalized_boxes"], inputs["shape_hw"], reversed_box)}
    return run


def _expected_for(reversed_box):
    def expected(device, inputs):
        return {"y": to_absolute_b_box_model(inputs["normalized_boxes"], inputs["shape_hw"], reversed_box)}
    return expected


def _size_ok(n):
    return n >= 8


_SOURCE = "hicann/ops-cv@6ae87653 objdetect/to_absolute_b_box/op_kernel/arch35/to_absolute_b_box.h"
KERNELS = [
    KernelSpec(f"to_absolute_b_box{suffix}", description, _make_inputs(dtype, rev, hw), _runner(rev),
               _expected_for(rev), default_size=size, devices=DEVICES, source=_SOURCE,
               size_rule="8 or more (2 x 4 x size // 8 boxes' coordinates)", size_ok=_size_ok)
    for suffix, dtype, rev, hw, size, description in (
        ("", np.float32, False, (1, 1080, 1920, 3), 200008, "ToAbsoluteBBox over float (batch, num, 4) boxes: "
         "shape_hw by DataCopyPad and Cast, H / W by GetValue after V_S, a scale TBuf of count-form Duplicate H "
         "and odd-lane mask-form Duplicate W, then per tile DataCopyPad, Mul, DataCopyPad"),
        ("_half", np.float16, False, (4, 720, 1280, 3), 200008, "ToAbsoluteBBox over half (batch, num, 4) boxes "
         "(H / W by Cast int32 -> half CAST_RINT)"),
        ("_reversed", np.float32, True, (1, 1080, 1920, 3), 200008, "ToAbsoluteBBox over float (batch, 4, num) "
         "boxes: each core's range cut at the num-element coordinate segments, Muls by H or W per chunk"),
        ("_reversed_half", np.float16, True, (2, 3001, 70001, 1), 100008, "ToAbsoluteBBox over half (batch, 4, "
         "num) boxes, H and W past 2048 rounded to half and W past 65504 to inf"))
]
