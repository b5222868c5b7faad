"""IouV2 from the CANN CV operators, its non-aligned modes: the intersection over union (mode "iou") or over the
ground-truth box's area (mode "iof") of every box of bboxes (n, 4) with every box of gtboxes (m, 4), rows of
[x1, y1, x2, y2], into overlap (m, n), over float, half and bfloat16 (computed in float):
iou = inter / (area_b + area_g - inter), iof = inter / area_g, with area = (x2 - x1 + eps) * (y2 - y1 + eps) and
inter = relu(min(x2) + eps - max(x1)) * relu(min(y2) + eps - max(y1)). kernels/iou_v2.py holds the aligned modes.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-cv @ 6ae87653464d2afb064c829e529abba2e278b0c4, objdetect/iou_v2:
- op_kernel/iou_v2_common.h (`KernelIouV2NotAlignBase<inType, Derived>`): cores of loopNum (the first
  frontCoreNum loopNum + 1) tiles of tileLength gtboxes, each against the bboxes in tiles of subTileLen (the last
  first); a depth-1 input queue of 8 x tile x subTile floats, a depth-1 output queue of tile x subTile floats, two
  float TBufs of 4 (tile + subTile) and for 16-bit types a TBuf of tile x subTile of the type; CopyIn: the bbox and
  gtbox tiles by DataCopyPad (16-bit: after an MTE3_MTE2 pair, into the TBuf, MTE2_V, one Cast CAST_NONE), MTE2_V,
  four GatherMasks of the built-in patterns 3-6 (every fourth float, counter mode) into coordinate rows, two UB ->
  UB DataCopys with strides splitting the bbox and gtbox parts; `NotAlignComputePrepareBox`: Duplicate 0 over the
  queue buffer, four Adds of a row into tile rows (mask subTile, repeat tile, src repeat stride 0) for the bbox
  coordinates and Brcb loops (8 columns a call) broadcasting each gtbox coordinate along its row;
  `CommonCopyOut`: one DataCopyPad of subTile elements per gtbox row (PipeBarrier<PIPE_MTE3> between), a short
  last bbox tile's rows spilling into the next row's start that the earlier tiles (copied later) overwrite, and the
  rows whose spill would pass the tile's end (`CommonCopyOutBoundaryStep`) packed by a scalar GetValue / SetValue
  loop after an MTE3_S pair into one block ending at the tile's end; 16-bit outputs by Cast CAST_RINT and V_MTE3;
- op_kernel/iou_v2_not_align_iou.h / iou_v2_not_align_iof.h (`KernelIouV2NotAlign`, `KernelIofV2NotAlign`: the
  widths and areas of the rows by Sub / Adds / Mul, Max, Max, Min, Min, Adds eps, SubRelu, the bbox areas by a
  strided Adds 0 and the gtbox areas by Brcb, Add, Mul, Sub, Div; iof: Sub, Adds, Mul of the broadcast gtbox planes);
- op_kernel/iou_v2.cpp (tiling keys 7 / 8 / 9 iou and 17 / 18 / 19 iof for float / half / bfloat16) and
  op_host/iou_v2_tiling.cpp (`Tiling4IouV2`, non-aligned: n and m rounded up to 32 bytes; (9 m min(n, m) + 8 (m +
  min(n, m))) floats (+ 2 m min(n, m) bytes for 16-bit types); maxLength 64 (the Max / Min mask) lowered by the
  alignment while `IsOutOfBound`; the aligned mode's core split; subTileLen = min(tileLength, n)).

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original). The last core copies
lastCoreLen gtboxes in every one of its tiles and clips its rows' copies to the first tile's end (gmLen is counted
from the core's start while the offsets grow with the tile): with two or more tiles there (m beyond 8 x 64 float
boxes) its earlier tiles compute on rows no copy wrote and its later tiles' copies are not clipped, running past the
output; the port takes each tile's own row count and end (ORIGINAL_LAST_LEN = True runs the original's form, which
the emulator stops at the copy past the GM tensor). The tiles' lanes past a short copy (a short last bbox tile or
short gtbox rows) are read by the GatherMasks on a buffer's first use without any copy writing them: the port
zeroes them first (ZERO_TAIL = False runs the original's form; for 16-bit types behind an MTE3_V pair of the port's
own). The boundary step's DataCopyPad reads the scalar loop's SetValues with no S -> MTE3 order (and the next
tile's Div or Cast writes over them with no S -> V order): the port puts an S_MTE3 pair (FetchEventID'd) before
that copy (ORIGINAL_SYNC = True runs the original's form and tests/test_port47cv2_kernels.py shows the sanitizer's
race reports).

Devices: the operator's configs are the ascend910b, ascend910_93 and ascend950 (and a DataCopy-only 310P build, not
ported): the port runs on the A3, A2 and 950.

Fidelity: Div MODELLED (SPEC-2 D37: the exact quotient rounded once), the rest BIT-EXACT (Cast, Sub, Adds, Mul, Add,
Max, Min, SubRelu, Brcb, GatherMask, DataCopy, DataCopyPad; SPEC-2 0.3), so the numpy model (each float operation
rounded once) is checked bit for bit. Disjoint boxes give 0; zero-area boxes with eps 0 give 0 / 0 = NaN.
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
MIN_SIZE_PER_CORE = 4096
BLOCK_SIZE = 32
FLOAT_SIZE = 4
UNALIGNED_KEY, MODE_IOF_KEY = 7, 10
MAX_LENGTH = 64                    # the Max / Min mask
DTYPE_KEY = {"float": 0, "half": 1, "bfloat16": 2}
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("atlas-a3", "atlas-a2", "ascend950")
ZERO_TAIL = True                   # False: the original's form (lanes past a short copy read uninitialised)
ORIGINAL_LAST_LEN = False          # True: the last core's tiles copy lastCoreLen rows, clipped to its first tile
ORIGINAL_SYNC = False              # True: the boundary step's copy without the S_MTE3 pair


class IouV2TilingData(ctypes.Structure):
    _fields_ = [("bBoxLength", ctypes.c_uint64), ("gtBoxLength", ctypes.c_uint64), ("frontCoreNum", ctypes.c_uint64),
                ("loopNum", ctypes.c_uint64), ("tileLength", ctypes.c_uint64), ("subTileLen", ctypes.c_uint64),
                ("eps", ctypes.c_float)]


def _ceil_div(a, b):
    return a if b == 0 else -(-a // b)


def _ceil_align(a, b):
    return a if b == 0 else _ceil_div(a, b) * b


def _out_of_bound(max_len, b_len, ub_size, is_float):
    b_len = min(b_len, max_len)
    return (36 if is_float else 38) * max_len * b_len + BLOCK_SIZE * (max_len + b_len) > ub_size


def tiling(device, n, m, dtype, mode="iou", eps=1.0):
    """Tiling4IouV2, non-aligned: n bboxes, m gtboxes -> (core count, tiling key, tiling bytes)."""
    data_size = TYPE_SIZE[dtype]
    key = DTYPE_KEY[dtype] + (MODE_IOF_KEY if mode == "iof" else 0) + UNALIGNED_KEY
    align = BLOCK_SIZE // data_size
    b_len, gt_len = _ceil_align(n, align), _ceil_align(m, align)
    ub_size = aj.get_device(device).ub_bytes
    valid = min(b_len, gt_len)
    total = (gt_len * valid * 9 + (gt_len + valid) * 8) * FLOAT_SIZE
    total += 0 if data_size == FLOAT_SIZE else gt_len * valid * 2
    temp_loop = _ceil_div(total, MIN_SIZE_PER_CORE)
    max_length = MAX_LENGTH
    while _out_of_bound(max_length, b_len, ub_size, data_size == FLOAT_SIZE) and max_length > align:
        max_length -= align
    core_num, loop_num, front = 1, 1, 0
    if total <= MIN_SIZE_PER_CORE:
        tile = _ceil_align(gt_len, align)
    elif temp_loop <= CORE_NUM:
        tile = _ceil_align(_ceil_div(gt_len, temp_loop), align)
        core_num = _ceil_div(gt_len, tile)
    elif m <= max_length * CORE_NUM:
        tile = _ceil_align(_ceil_div(gt_len, CORE_NUM), align)
        core_num = _ceil_div(gt_len, tile)
    else:
        core_num = CORE_NUM
        total_loop = _ceil_div(m, max_length)
        loop_num, front = total_loop // CORE_NUM, total_loop % CORE_NUM
        tile = _ceil_align(_ceil_div(gt_len, total_loop), align)
    t = IouV2TilingData(bBoxLength=n, gtBoxLength=m, frontCoreNum=front, loopNum=loop_num, tileLength=tile,
                        subTileLen=min(tile, b_len), eps=eps)
    return core_num, key, np.frombuffer(bytes(t), np.uint8).copy()


def _flag(event):
    evt = aj.GetTPipePtr().FetchEventID(event)
    aj.SetFlag(evt, event=event)
    aj.WaitFlag(evt, event=event)


class KernelIouV2NotAlignBase:
    """`KernelIouV2NotAlignBase<inType, Derived>`: Init, Process, CopyIn, the shared box preparation, CopyOut."""

    def __init__(self, inType):
        self.inType = inType

    def Init(self, bboxes, gtboxes, overlap, td):
        inType = self.inType
        self.eps = np.float32(td.eps)
        self.bBoxLength, self.gtBoxLength = td.bBoxLength, td.gtBoxLength
        self.tileLen = T = td.tileLength
        self.quadTileLen = 4 * T
        self.loopTileLen = L = td.subTileLen
        self.quadLoopTileLen = 4 * L
        self.mulLen = T * L
        self.totalLen = T + L
        self.totalLen1 = 3 * L + 2 * T
        self.totalLen2 = 2 * L + T
        self.loopTileNum = (self.bBoxLength + T - 1) // T
        blockId = aj.GetBlockIdx()
        front, loops = td.frontCoreNum, td.loopNum
        self.blockOffsetLen = T * (front + loops * blockId) if blockId > front else T * (loops + 1) * blockId
        self.loopNum = loops + 1 if blockId < front else loops
        self.box1Gm, self.box2Gm, self.outGm = aj.GlobalTensor(inType), aj.GlobalTensor(inType), aj.GlobalTensor(inType)
        self.box1Gm.SetGlobalBuffer(bboxes)
        self.box2Gm.SetGlobalBuffer(gtboxes[self.blockOffsetLen * 4:])
        self.outGm.SetGlobalBuffer(overlap[self.blockOffsetLen * self.bBoxLength:])
        self.pipe = aj.TPipe()
        self.inQue, self.outQue = aj.TQue(aj.QuePosition.VECIN, 1), aj.TQue(aj.QuePosition.VECOUT, 1)
        self.tmpTensor1, self.tmpTensor2 = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        self.fp16Tensor = aj.TBuf(aj.TPosition.VECCALC)
        self.pipe.InitBuffer(self.inQue, 1, 8 * self.mulLen * 4)
        self.pipe.InitBuffer(self.outQue, 1, self.mulLen * 4)
        self.pipe.InitBuffer(self.tmpTensor1, 4 * self.totalLen * 4)
        self.pipe.InitBuffer(self.tmpTensor2, 4 * self.totalLen * 4)
        if inType != "float":
            self.pipe.InitBuffer(self.fp16Tensor, self.mulLen * 2)

    def Process(self):
        for gtBoxLoop in range(self.loopNum):
            self.gmOffset = gtBoxLoop * self.quadTileLen
            for bBoxLoop in range(self.loopTileNum - 1, -1, -1):
                self.CopyIn(gtBoxLoop, bBoxLoop)
                self.Compute(bBoxLoop)
                self.CopyOut(gtBoxLoop, bBoxLoop)

    def _rows(self, gtBoxLoop):
        """The tile's gtbox rows: the original's lastCoreLen on the last core (ORIGINAL_LAST_LEN), else its own."""
        T = self.tileLen
        if ORIGINAL_LAST_LEN:
            isLastCore = aj.GetBlockIdx() == aj.GetBlockNum() - 1
            lastCoreLen = T if self.gtBoxLength % T == 0 else self.gtBoxLength % T
            return lastCoreLen if isLastCore else T
        return min(T, self.gtBoxLength - self.blockOffsetLen - gtBoxLoop * T)

    def _zero_past(self, local, dtype, start, count, end):
        """The deviation: zeros from the copy's 32-byte-rounded end up to the region's end."""
        size = TYPE_SIZE[dtype]
        written = start + -(-count * size // 32) * 32 // size
        if ZERO_TAIL and end > written:
            view = local.ReinterpretCast("int16")
            aj.Duplicate(view[written * size // 2], np.int16(0), (end - written) * size // 2)

    def CopyIn(self, gtBoxLoop, bBoxLoop):
        inType, L, T = self.inType, self.loopTileLen, self.tileLen
        boxLocal = self.inQue.AllocTensor("float")
        isLastLoop = bBoxLoop == self.loopTileNum - 1
        lastLoopLen = L if self.bBoxLength % L == 0 else self.bBoxLength % L
        blockLen0 = lastLoopLen * 4 if isLastLoop else self.quadLoopTileLen
        blockLen1 = self._rows(gtBoxLoop) * 4
        copyParams0 = aj.DataCopyExtParams(1, blockLen0 * TYPE_SIZE[inType], 0, 0, 0)
        copyParams1 = aj.DataCopyExtParams(1, blockLen1 * TYPE_SIZE[inType], 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(False, 0, 0, _NP[inType](0))
        short = blockLen0 < 4 * L or blockLen1 < 4 * T
        if inType != "float":
            fp16Buf = self.fp16Tensor.Get(inType)
            _flag(aj.HardEvent.MTE3_MTE2)
            if ZERO_TAIL and short:
                # the deviation's zeros go into the TBuf the last CopyOut read (MTE3) and the scalar loop wrote
                _flag(aj.HardEvent.MTE3_V)
                self._zero_past(fp16Buf, inType, 0, blockLen0, 4 * L)
                self._zero_past(fp16Buf, inType, 4 * L, blockLen1, 4 * (L + T))
            aj.DataCopyPad(fp16Buf, self.box1Gm[bBoxLoop * self.quadLoopTileLen], copyParams0, padParams)
            aj.DataCopyPad(fp16Buf[self.quadLoopTileLen], self.box2Gm[self.gmOffset], copyParams1, padParams)
            _flag(aj.HardEvent.MTE2_V)
            aj.Cast(boxLocal, fp16Buf, aj.RoundMode.CAST_NONE, 4 * self.totalLen)
        else:
            if short:
                self._zero_past(boxLocal, "float", 0, blockLen0, 4 * L)
                self._zero_past(boxLocal, "float", 4 * L, blockLen1, 4 * (L + T))
            aj.DataCopyPad(boxLocal.ReinterpretCast(inType), self.box1Gm[bBoxLoop * self.quadLoopTileLen],
                           copyParams0, padParams)
            aj.DataCopyPad(boxLocal[self.quadLoopTileLen].ReinterpretCast(inType), self.box2Gm[self.gmOffset],
                           copyParams1, padParams)
        _flag(aj.HardEvent.MTE2_V)
        tmpBuffer1 = self.tmpTensor1.Get("float")
        quadTotalLen, totalLen = 4 * self.totalLen, self.totalLen
        params = aj.GatherMaskParams(1, 1, 8, 8)
        for k in range(4):                      # src1Pattern 3..6: the k-th of every four floats
            aj.GatherMask(tmpBuffer1[k * totalLen], boxLocal, 3 + k, True, quadTotalLen, params)
        self.inQue.FreeTensor(boxLocal)
        tmpBuffer2 = self.tmpTensor2.Get("float")
        # the bbox coordinate rows, then the gtbox ones, out of the [bbox | gtbox] rows (32-byte blocks)
        aj.DataCopy(tmpBuffer2, tmpBuffer1, aj.DataCopyParams(4, L // 8, T // 8, 0))
        aj.DataCopy(tmpBuffer2[self.quadLoopTileLen], tmpBuffer1[L], aj.DataCopyParams(4, T // 8, L // 8, 0))

    def NotAlignComputePrepareBox(self, boxLocal, tmpBuffer2):
        L, T, mulLen = self.loopTileLen, self.tileLen, self.mulLen
        _flag(aj.HardEvent.MTE2_V)
        aj.Duplicate(boxLocal, np.float32(0.0), 8 * mulLen)
        rep = aj.BinaryRepeatParams(1, 1, 1, L // 8, L // 8, 0)
        for k in range(4):                      # bbox coordinate k along every row of matrix k
            aj.Add(boxLocal[k * mulLen], boxLocal[k * mulLen], tmpBuffer2[k * L], L, T, rep)
        brcb = aj.BrcbRepeatParams(L // 8, L)
        for repTime in range(L // 8):           # gtbox coordinate e of the four rows of 8 columns
            aj.Brcb(boxLocal[4 * mulLen + repTime * 8], tmpBuffer2[self.quadLoopTileLen], T // 2, brcb)

    def CopyOut(self, gtBoxLoop, bBoxLoop):
        outLocal = self.outQue.DeQue("float")
        if self.inType != "float":
            fp16Buf = self.fp16Tensor.Get(self.inType)
            aj.Cast(fp16Buf, outLocal, aj.RoundMode.CAST_RINT, self.mulLen)
            _flag(aj.HardEvent.V_MTE3)
            self.CommonCopyOut(fp16Buf, gtBoxLoop, bBoxLoop)
        else:
            self.CommonCopyOut(outLocal, gtBoxLoop, bBoxLoop)
        self.outQue.FreeTensor(outLocal)

    def _gm_len(self, gtBoxLoop):
        """The end the rows' copies are clipped to: the original's count from the core's start (one tile of
        lastCoreLen rows on the last core) as uint32, or (the port) the tile's own end."""
        b, T = self.bBoxLength, self.tileLen
        if ORIGINAL_LAST_LEN:
            isLastCore = aj.GetBlockIdx() == aj.GetBlockNum() - 1
            lastCoreLen = T if self.gtBoxLength % T == 0 else self.gtBoxLength % T
            return b * lastCoreLen if isLastCore else b * T
        return gtBoxLoop * b * T + b * self._rows(gtBoxLoop)

    def CommonCopyOut(self, tmpLocal, gtBoxLoop, bBoxLoop):
        L, T, b = self.loopTileLen, self.tileLen, self.bBoxLength
        num1 = T
        rest = self.gtBoxLength - self.blockOffsetLen - gtBoxLoop * T
        if gtBoxLoop == self.loopNum - 1 and rest < T:
            num1 = rest
        gmLenEachLoop = b * T
        bBoxNotAlign = b - bBoxLoop * L
        st = {"tmpGmOffset": 0, "tmpUbOffset": 0, "addNum": 0, "headNum": 0}
        for i in range(num1):
            offset = gtBoxLoop * gmLenEachLoop + bBoxLoop * L + i * b
            aj.PipeBarrier(aj.PIPE_MTE3)
            isBoundary = (bBoxLoop == self.loopTileNum - 1 and bBoxNotAlign > 0
                          and offset + L > gmLenEachLoop * (gtBoxLoop + 1))
            if isBoundary:
                self.CommonCopyOutBoundaryStep(tmpLocal, gtBoxLoop, i, num1, bBoxNotAlign, st)
            else:
                blockLen = min((self._gm_len(gtBoxLoop) - offset) % 2 ** 32, L)   # uint32, as the original
                copyParams = aj.DataCopyExtParams(1, blockLen * TYPE_SIZE[self.inType], 0, 0, 0)
                aj.DataCopyPad(self.outGm[offset], tmpLocal[L * i], copyParams)
                st["tmpGmOffset"], st["tmpUbOffset"] = offset, L * i

    def CommonCopyOutBoundaryStep(self, tmpLocal, gtBoxLoop, i, num1, bBoxNotAlign, st):
        """The rows whose copy would pass the tile's end: their bboxes packed after the last headNum of the row
        before, one copy of subTile elements ending at the tile's end."""
        L, T, b = self.loopTileLen, self.tileLen, self.bBoxLength
        _flag(aj.HardEvent.MTE3_S)              # (after the rows' copies, themselves after the vector unit)
        ub = st["tmpUbOffset"]
        if st["addNum"] == 0:
            st["headNum"] = headNum = L - (T - i) * bBoxNotAlign
            if headNum != bBoxNotAlign:
                for index in range(headNum):
                    tmpLocal.SetValue(ub + index, tmpLocal.GetValue(ub + bBoxNotAlign - headNum + index))
            st["addNum"] += headNum
        for index in range(bBoxNotAlign):
            tmpLocal.SetValue(ub + st["addNum"] + index, tmpLocal.GetValue(L * i + index))
        st["addNum"] += bBoxNotAlign
        if i == num1 - 1:
            headNum = st["headNum"]
            blockLen = (self._gm_len(gtBoxLoop) - st["tmpGmOffset"] + b - headNum) % 2 ** 32
            blockLen = min(blockLen, L)
            if not ORIGINAL_SYNC:
                _flag(aj.HardEvent.S_MTE3)      # deviation: the DataCopyPad reads the SetValues
            copyParams = aj.DataCopyExtParams(1, blockLen * TYPE_SIZE[self.inType], 0, 0, 0)
            aj.DataCopyPad(self.outGm[st["tmpGmOffset"] + b - headNum], tmpLocal[ub], copyParams)


class KernelIouV2NotAlign(KernelIouV2NotAlignBase):
    """`KernelIouV2NotAlign<inType>`."""

    def Compute(self, bBoxLoop):
        L, T, mulLen = self.loopTileLen, self.tileLen, self.mulLen
        totalLen, eps = self.totalLen, self.eps
        boxLocal = self.inQue.AllocTensor("float")
        tmp1 = self.tmpTensor1.Get("float")
        tmp2 = self.tmpTensor2.Get("float")
        self.NotAlignComputePrepareBox(boxLocal, tmp2)
        aj.Sub(tmp1, tmp1[2 * totalLen], tmp1, 2 * totalLen)          # widths, heights of [bbox | gtbox]
        aj.Adds(tmp1, tmp1, eps, 2 * totalLen)
        aj.Mul(tmp1[2 * totalLen], tmp1, tmp1[totalLen], L)            # the bbox areas
        aj.Mul(tmp1[self.totalLen1], tmp1[L], tmp1[self.totalLen2], T)  # the gtbox areas
        aj.Max(boxLocal, boxLocal, boxLocal[4 * mulLen], mulLen)
        aj.Max(boxLocal[mulLen], boxLocal[mulLen], boxLocal[5 * mulLen], mulLen)
        aj.Min(boxLocal[2 * mulLen], boxLocal[2 * mulLen], boxLocal[6 * mulLen], mulLen)
        aj.Min(boxLocal[3 * mulLen], boxLocal[3 * mulLen], boxLocal[7 * mulLen], mulLen)
        aj.Adds(boxLocal[2 * mulLen], boxLocal[2 * mulLen], eps, 2 * mulLen)
        aj.PipeBarrier(aj.PIPE_V)
        aj.SubRelu(boxLocal, boxLocal[2 * mulLen], boxLocal, 2 * mulLen)
        aj.Adds(boxLocal[4 * mulLen], tmp1[2 * totalLen], np.float32(0.0), L, T,
                aj.UnaryRepeatParams(1, 1, L // 8, 0))                  # the bbox areas along every row
        brcb = aj.BrcbRepeatParams(L // 8, L)
        for repTime in range(L // 8):                                   # the gtbox areas along their rows
            aj.Brcb(boxLocal[5 * mulLen + repTime * 8], tmp1[self.totalLen1], T // 8, brcb)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Add(boxLocal[6 * mulLen], boxLocal[4 * mulLen], boxLocal[5 * mulLen], mulLen)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Mul(boxLocal[7 * mulLen], boxLocal, boxLocal[mulLen], mulLen)  # the intersections
        aj.PipeBarrier(aj.PIPE_V)
        aj.Sub(boxLocal, boxLocal[6 * mulLen], boxLocal[7 * mulLen], mulLen)  # the unions
        outLocal = self.outQue.AllocTensor("float")
        aj.PipeBarrier(aj.PIPE_V)
        aj.Div(outLocal, boxLocal[7 * mulLen], boxLocal, mulLen)
        self.outQue.EnQue(outLocal)
        self.inQue.FreeTensor(boxLocal)


class KernelIofV2NotAlign(KernelIouV2NotAlignBase):
    """`KernelIofV2NotAlign<inType>`."""

    def Compute(self, bBoxLoop):
        mulLen, eps = self.mulLen, self.eps
        boxLocal = self.inQue.AllocTensor("float")
        tmp2 = self.tmpTensor2.Get("float")
        self.NotAlignComputePrepareBox(boxLocal, tmp2)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Max(boxLocal, boxLocal, boxLocal[4 * mulLen], mulLen)
        aj.Max(boxLocal[mulLen], boxLocal[mulLen], boxLocal[5 * mulLen], mulLen)
        aj.Min(boxLocal[2 * mulLen], boxLocal[2 * mulLen], boxLocal[6 * mulLen], mulLen)
        aj.Min(boxLocal[3 * mulLen], boxLocal[3 * mulLen], boxLocal[7 * mulLen], mulLen)
        aj.Adds(boxLocal[2 * mulLen], boxLocal[2 * mulLen], eps, 2 * mulLen)
        aj.PipeBarrier(aj.PIPE_V)
        aj.SubRelu(boxLocal, boxLocal[2 * mulLen], boxLocal, 2 * mulLen)
        aj.Sub(boxLocal[4 * mulLen], boxLocal[6 * mulLen], boxLocal[4 * mulLen], 2 * mulLen)  # gtbox widths, heights
        aj.PipeBarrier(aj.PIPE_V)
        aj.Adds(boxLocal[4 * mulLen], boxLocal[4 * mulLen], eps, 2 * mulLen)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Mul(boxLocal[4 * mulLen], boxLocal[4 * mulLen], boxLocal[5 * mulLen], mulLen)   # the gtbox areas
        aj.Mul(boxLocal[7 * mulLen], boxLocal, boxLocal[mulLen], mulLen)                   # the intersections
        outLocal = self.outQue.AllocTensor("float")
        aj.PipeBarrier(aj.PIPE_V)
        aj.Div(outLocal, boxLocal[7 * mulLen], boxLocal[4 * mulLen], mulLen)
        self.outQue.EnQue(outLocal)
        self.inQue.FreeTensor(boxLocal)


aj.REGISTER_TILING_DEFAULT(IouV2TilingData)
_KEYS = {7: (KernelIouV2NotAlign, "float"), 8: (KernelIouV2NotAlign, "half"), 9: (KernelIouV2NotAlign, "bfloat16"),
         17: (KernelIofV2NotAlign, "float"), 18: (KernelIofV2NotAlign, "half"),
         19: (KernelIofV2NotAlign, "bfloat16")}


def iou_v2_not_aligned(bboxes, gtboxes, overlap, workspace, tiling_bytes, tiling_key):
    """The kernel entry (iou_v2.cpp), the non-aligned keys."""
    tiling_data = aj.GET_TILING_DATA(tiling_bytes)
    cls, inType = _KEYS[tiling_key]
    op = cls(inType)
    op.Init(bboxes, gtboxes, overlap, tiling_data)
    op.Process()


def run_iou_v2_not_aligned(device, bboxes, gtboxes, mode="iou", eps=1.0):
    """bboxes (n, 4), gtboxes (m, 4) -> overlap (m, n)."""
    dtype = {np.dtype(v): k for k, v in _NP.items()}[bboxes.dtype]
    n, m = bboxes.shape[0], gtboxes.shape[0]
    cores, key, t = tiling(device, n, m, dtype, mode, eps)
    out = np.zeros(m * n, bboxes.dtype)
    aj.launch(iou_v2_not_aligned, cores, device, np.ascontiguousarray(bboxes).reshape(-1),
              np.ascontiguousarray(gtboxes).reshape(-1), out, None, t, key)
    return out.reshape(m, n)


def iou_v2_not_aligned_model(bboxes, gtboxes, mode="iou", eps=1.0):
    """The kernel's float chain per (gtbox, bbox) pair, each operation rounded once; SubRelu max(a - b, 0)."""
    f = np.float32
    b, g = bboxes.astype(f).T[:, None, :], gtboxes.astype(f).T[:, :, None]     # (4, 1, n), (4, m, 1)
    e = f(eps)
    with np.errstate(all="ignore"):
        lo = np.maximum(b[:2], g[:2])
        hi = (np.minimum(b[2:], g[2:]) + e).astype(f)
        d = (hi - lo).astype(f)
        side = np.where(d > 0, d, f(0)).astype(f)
        inter = (side[0] * side[1]).astype(f)
        area_g = (((g[2] - g[0]).astype(f) + e).astype(f) * ((g[3] - g[1]).astype(f) + e).astype(f)).astype(f)
        if mode == "iof":
            den = np.broadcast_to(area_g, inter.shape)
        else:
            area_b = (((b[2] - b[0]).astype(f) + e).astype(f) * ((b[3] - b[1]).astype(f) + e).astype(f)).astype(f)
            den = ((area_b + f(0)).astype(f) + area_g).astype(f)
            den = (den - inter).astype(f)
        out = (inter / den).astype(f)
    return out.astype(bboxes.dtype)


def _boxes(rng, n):
    x1, y1 = rng.uniform(0, 100, n), rng.uniform(0, 100, n)
    return np.stack([x1, y1, x1 + rng.uniform(0, 40, n), y1 + rng.uniform(0, 40, n)], axis=1)


def make_boxes(n, m, seed, dtype):
    rng = np.random.default_rng(seed)
    return _boxes(rng, n).astype(_NP[dtype]), _boxes(rng, m).astype(_NP[dtype])


def _make_inputs(dtype):
    def make_inputs(size, seed):
        m = 41 if size >= 41 else 1            # size: the overlaps, size // 41 bboxes against 41 gtboxes
        b, g = make_boxes(max(1, size // m), m, seed, dtype)
        return {"bboxes": b, "gtboxes": g}
    return make_inputs


def _runner(mode):
    def run(device, inputs):
        return {"overlap": run_iou_v2_not_aligned(device, inputs["bboxes"], inputs["gtboxes"], mode)}
    return run


def _expected_for(mode):
    def expected(device, inputs):
        return {"overlap": iou_v2_not_aligned_model(inputs["bboxes"], inputs["gtboxes"], mode)}
    return expected


_SOURCE = "hicann/ops-cv@6ae87653 objdetect/iou_v2/op_kernel/iou_v2_not_align_iou.h"
KERNELS = [
    KernelSpec(f"iou_v2_not_aligned{suffix}", description, _make_inputs(dtype), _runner(mode), _expected_for(mode),
               default_size=size, devices=DEVICES, source=_SOURCE,
               size_rule="the overlaps: size // 41 bboxes against 41 gtboxes (size bboxes against 1 below 41)")
    for suffix, dtype, mode, size, description in (
        ("", "float", "iou", 41 * 300, "IouV2 non-aligned IoU of float (n, 4) bboxes against (m, 4) gtboxes into "
         "(m, n) (GatherMasks of the coordinates, strided Adds and Brcb broadcasts into tile x subTile matrices, Max, "
         "Min, SubRelu, Div; per-row DataCopyPads, the boundary rows packed by a scalar loop)"),
        ("_half", "half", "iou", 41 * 300, "IouV2 non-aligned IoU over half (the tiles by DataCopyPad into a 16-bit "
         "TBuf, Cast CAST_NONE; the overlaps by Cast CAST_RINT, V_MTE3)"),
        ("_iof_bf16", "bfloat16", "iof", 41 * 300, "IouV2 non-aligned IoF over bfloat16 (the intersection over the "
         "broadcast gtbox's area)"),
        ("_iof", "float", "iof", 41 * 300, "IouV2 non-aligned IoF over float"))
]
