"""DynamicQuant, per-token symmetric int8 quantisation: per row of x (half or bfloat16; optionally times a
per-column smooth_scales row) max |x| = m, y = int8(rint(x * (127 / m))) and scale = m * (1 / 127) a row.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, quant/dynamic_quant:
- op_kernel/dynamic_quant.cpp (the A2/A3 entry: no output for a null x / y / scale or user workspace,
  GET_TILING_DATA, cores past tilingData.coreNum return, tiling keys 2 / 3 build `DynamicQuantDbOpt<DTYPE_X,
  DTYPE_Y>`);
- op_kernel/dynamic_quant_db.h (`DynamicQuantDbOpt`, the symmetric path: rows over the cores (head cores one row
  more), multiRowNum rows a UB tile through a depth-2 VECIN queue, the next tile's CopyIn issued before the current
  tile is processed; DataCopyPad with DataCopyParams and a right padding to 16 elements, or DataCopy; per row
  ComputeRowMax and QuantizeRow; CopyOutData's V_MTE3 flag pair and two DataCopyPads, the MTE3_V flag armed at the
  start of each tile and awaited before its first row's outputs are written);
- op_kernel/dynamic_quant_base.h (`DynamicQuantBase`: ParseTilingData, InitParams, InitBaseBuffer (a 128-float
  quantTemp TBuf carved into 8-float constScale / constInvScale and a 64-float brcbTmp, tempCastUb and fp32_buf_),
  DuplicateConst (127 and 1 / 127), and `ReduceMaxInplace` for half and float);
- op_host/dynamic_quant_tiling.cpp (`DynamicQuantTiling::RunFusionKernelTiling`: SetSpecialTilingForDs,
  CalcTilingForMultiRow, then rows over min(cores, rows) cores, CalculateMaxUbSizePerRow, SetTilingData and
  SetTilingKey).

A row: Cast to float (CAST_NONE); half without smooth: Abs of the input row in place in the queue tile and
ReduceMaxInplace<half> on it, then Cast of that row to float; otherwise (bfloat16, or with smooth: Mul by the smooth
row over the padded length) Abs into fp32_buf_ and ReduceMaxInplace<float> there. ReduceMaxInplace folds the row
into its first 256-byte repeat by a binary Max with dst and src1 the row itself (`{1, 1, 1, 0, 8, 0}`: dst and src1
repeat stride 0, one repeat a further 256 bytes), the partial last repeat by Max with mask the remainder, then
`WholeReduceMax(src, src, mask, 1, 8, 1, 8)`: the repeat reduction in place, ORDER_VALUE_INDEX, as the original
writes it (accepted since session 36, docs/decisions.md "Reductions in place"). Then Brcb of the row maximum to a
DataBlock, Div(127 / max) over 8 floats, Mul of the float row by it with src1 block and repeat stride 0, Cast float
-> int16 CAST_RINT, int16 -> half CAST_ROUND in place, and (after the MTE3_V wait on row 0) a Mul with a one-bit
mask writing max * (1 / 127) into the row's lane of the scale tile and Cast half -> int8 CAST_TRUNC into the output
tile.

Not ported: the tiling's other keys. Rows of at least 128 elements that are a multiple of 8 and fit the UB go to
key 10 (`DynamicQuantMultiRow`, no in-place repeat reduction), rows of 4096 / 5120 / 10240 to key 100, and rows too
long for double buffering to keys 0 / 1 (`DynamicQuant`) and 6, whose Cast int32 -> half needs SetDeqScale (SPEC-2
D47, refused); the asymmetric (offset) path needs it too. The gallery's sizes are rows the tiling sends to keys
2 / 3 (a length under 128 or not a multiple of 8); the host side (`quantize_rows`) and the entry raise
NotImplementedError on any other key.

Deviations: the core count is the launch's 8 (the tiling's vectorCoreNum is the device's). The half path's Abs
in place on the input tile follows its Cast without a PipeBarrier<PIPE_V>, as in the original (a write after read
in the vector pipe, in order).

Deviation 2: the float row is Cast over rowLen lanes, but the Mul by the smooth row reads it (and the smooth row)
over the row padded to 16 elements, and the Mul by 127 / max over whole 64-float repeats: lanes past rowLen that no
instruction wrote (results that are never copied out; the device reads stale UB). The sanitizer's init check reports
those reads; the port Duplicates 0 over tempCastUb and smooth_buf_ once before the first row (`ZeroPadLanes`).

Devices: the class is built for __CCE_AICORE__ 220 (and arch 3003 / 3113): the A3 and A2 (configs ascend910b,
ascend910_93; the 950 runs the regbase kernels).

Fidelity: BIT-EXACT against the model (integer y and the scale; the Div stage is MODELLED on the A2/A3, SPEC-2 D37:
the emulator's IEEE float32 division). Abs, Max, WholeReduceMax, Brcb, Mul, Cast and DataCopyPad are BIT-EXACT, and
the scale (max * float32(1 / 127)) does not pass through the Div; the expectation replays the float32 chain in numpy
(max |x|, 127 / max, x times it rounded to even) and is checked bit for bit. A device Div one ulp off could move a
y by one where x * 127 / max lies within an ulp of a half-integer.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

# dynamic_quant_base.h
BUFFER_NUM = 1
DOUBLE_BUFFER_NUM = 2
FIFTEEN, SIXTEEN, SEVEN, EIGHT, THIRTY_ONE, THIRTY_TWO = 15, 16, 7, 8, 31, 32
QUANT_TEMP_LEN = 128
MAX_VALUE_NUM = 8
MAX_REPEAT = 255
ELEM_PER_REP_FP32 = 64
ELEM_PER_REP_HALF = 128
DYNAMIC_QUANT_INT8_SYM_SCALE = np.float32(127.0)

# dynamic_quant_tiling.cpp
CORE_NUM = 8                  # deviation: the launch's cores (the device's vectorCoreNum in the original)
RESERVED_LENGTH = 1024
FP16_DB_SMOOTH_UB_SIZE, FP16_DB_UB_SIZE, FP16_SMOOTH_UB_SIZE, FP16_UB_SIZE = 19, 13, 17, 11
BF16_DB_SMOOTH_UB_SIZE, BF16_DB_UB_SIZE, BF16_SMOOTH_UB_SIZE, BF16_UB_SIZE = 19, 13, 17, 11
ONE_REPEAT_ELE = 64
MEMORY_ALLOC_COEFFICIENT = 12
MIN_ROW_LENGTH_THRESHOLD = 128
NUM_TWO_FIVE_SIX = 256
MULTI_ROW_HAS_SMOOTH_SPLIT, MULTI_ROW_NO_SMOOTH_SPLIT = 15, 11
COMPARE_INT = 255
FLOAT_NUM_ONE_RPT = 128
TILING_KEY_BF16, TILING_KEY_HALF, TILING_KEY_DB_BF16, TILING_KEY_DB_HALF = 0, 1, 2, 3
TILING_KEY_LARGE_SHAPE, TILING_KEY_MULTI_ROW, TILING_KEY_SPECIAL_LAST_DIM = 6, 10, 100

DynamicQuantTilingData = np.dtype([(f, np.uint32) for f in (
    "coreNum", "rowLen", "headCoreNum", "rowPerHeadCore", "rowPerTailCore", "multiRowNumHeadCore",
    "multiRowNumTailCore", "innerLoopEle", "innerLoopTimes", "innerLoopTail", "groupNum", "alignGroupNum",
    "hasSmooth", "unused", "ubSize")])


def tiling(device, rows, row_len, x_dtype, has_smooth):
    """RunFusionKernelTiling for the A2/A3 (DAV_2201) without group_index, int8 y, symmetric: (key, block dim,
    the packed DynamicQuantTilingData)."""
    ub_size = aj.get_device(device).ub_bytes
    t = np.zeros(1, DynamicQuantTilingData)
    t["rowLen"], t["hasSmooth"], t["ubSize"] = row_len, int(has_smooth), ub_size
    # SetSpecialTilingForDs
    if row_len in (4096, 5120, 10240) and 4 <= rows <= 384:
        return TILING_KEY_SPECIAL_LAST_DIM, 0, t.view(np.uint8).copy()
    # CheckMultiRowPreconditions
    max_ub_len = ub_size - RESERVED_LENGTH - (NUM_TWO_FIVE_SIX + ONE_REPEAT_ELE
                                              + MEMORY_ALLOC_COEFFICIENT * ONE_REPEAT_ELE * 4)
    split = MULTI_ROW_HAS_SMOOTH_SPLIT if has_smooth else MULTI_ROW_NO_SMOOTH_SPLIT
    max_ub_len = min(max_ub_len // split // ONE_REPEAT_ELE * ONE_REPEAT_ELE, COMPARE_INT * ONE_REPEAT_ELE)
    if not (row_len < MIN_ROW_LENGTH_THRESHOLD or row_len > max_ub_len or row_len % EIGHT != 0):
        return TILING_KEY_MULTI_ROW, 0, t.view(np.uint8).copy()
    core_num = max(min(CORE_NUM, rows), 1)
    head_core_num = rows % core_num
    row_per_head = (rows + core_num - 1) // core_num
    row_per_tail = rows // core_num
    # CalculateMaxUbSizePerRow
    aligned = (row_len + 15) // 16 * 16
    if x_dtype == "bfloat16":
        per_row_db = (BF16_DB_SMOOTH_UB_SIZE if has_smooth else BF16_DB_UB_SIZE) * aligned
        per_row_new = (BF16_SMOOTH_UB_SIZE if has_smooth else BF16_UB_SIZE) * aligned
    else:
        per_row_db = (FP16_DB_SMOOTH_UB_SIZE if has_smooth else FP16_DB_UB_SIZE) * aligned
        per_row_new = (FP16_SMOOTH_UB_SIZE if has_smooth else FP16_UB_SIZE) * aligned
    # SetTilingData
    max_use = ub_size - RESERVED_LENGTH
    ub_avail = max_use // per_row_new
    use_db = True
    if ub_avail == 0:
        inner = max_use // BF16_DB_SMOOTH_UB_SIZE // FLOAT_NUM_ONE_RPT * FLOAT_NUM_ONE_RPT
        t["innerLoopEle"], t["innerLoopTimes"], t["innerLoopTail"] = inner, row_len // inner, row_len % inner
        ub_avail = 1
    elif per_row_db < max_use:
        ub_avail = max(ub_avail, 1)
    else:
        use_db, ub_avail = False, 1
    if int(t["innerLoopTimes"][0]) > 0:
        key = TILING_KEY_LARGE_SHAPE
    elif use_db:
        key = TILING_KEY_DB_BF16 if x_dtype == "bfloat16" else TILING_KEY_DB_HALF
    else:
        key = TILING_KEY_BF16 if x_dtype == "bfloat16" else TILING_KEY_HALF
    t["coreNum"], t["headCoreNum"] = core_num, head_core_num
    t["rowPerHeadCore"], t["rowPerTailCore"] = row_per_head, row_per_tail
    t["multiRowNumHeadCore"] = min(COMPARE_INT, ub_avail, row_per_head)
    t["multiRowNumTailCore"] = min(COMPARE_INT, ub_avail, row_per_tail)
    return key, core_num, t.view(np.uint8).copy()


class DynamicQuantBase:
    def ParseTilingData(self, tilingData):
        self.td = tilingData

    def InitParams(self):
        td = self.td
        self.blockIdx = aj.GetBlockIdx()
        self.rowPerHeadCore, self.rowPerTailCore = int(td.rowPerHeadCore), int(td.rowPerTailCore)
        rowLen = int(td.rowLen)
        if self.blockIdx < td.headCoreNum:
            self.multiRowNum = int(td.multiRowNumHeadCore)
            self.loopCnt, self.remainRow = divmod(self.rowPerHeadCore, self.multiRowNum)
        else:
            self.multiRowNum = int(td.multiRowNumTailCore)
            self.loopCnt, self.remainRow = divmod(self.rowPerTailCore, self.multiRowNum)
        self.sizeHalfLen = (rowLen + FIFTEEN) // SIXTEEN * SIXTEEN
        self.rightPadding = self.sizeHalfLen - rowLen
        self.isPad = self.rightPadding > 0
        self.outAlignLen = (rowLen + THIRTY_ONE) // THIRTY_TWO * THIRTY_TWO
        self.sizeFloatLen = (self.multiRowNum + SEVEN) // EIGHT * EIGHT
        self.lenMultiRow = self.multiRowNum * self.sizeHalfLen
        self.lenGMMultiRow = self.multiRowNum * rowLen
        self.outLen = self.multiRowNum * self.outAlignLen
        self.lenHead, self.lenTail = self.rowPerHeadCore * rowLen, self.rowPerTailCore * rowLen
        self.outLenHead, self.outLenTail = self.lenHead, self.lenTail

    def InitBaseBuffer(self):
        self.quantTemp = aj.TBuf(aj.TPosition.VECCALC)
        self.tempCastUb = aj.TBuf(aj.TPosition.VECCALC)
        self.fp32_buf_ = aj.TBuf(aj.TPosition.VECCALC)
        self.pPipe.InitBuffer(self.quantTemp, QUANT_TEMP_LEN * 4)
        self.pPipe.InitBuffer(self.tempCastUb, (self.sizeHalfLen + 63) // 64 * 64 * 4)
        self.pPipe.InitBuffer(self.fp32_buf_, self.sizeHalfLen * 4)

    def DuplicateConst(self):
        tmp = self.quantTemp.Get("uint8")
        self.constScale = tmp.ReinterpretCast("float")
        self.constInvScale = tmp[MAX_VALUE_NUM * 4].ReinterpretCast("float")
        self.scaleTmp = tmp[MAX_VALUE_NUM * 4 * 2].ReinterpretCast("float")
        self.quantScaleTmp = tmp[MAX_VALUE_NUM * 4 * 3].ReinterpretCast("float")
        self.brcbTmp = tmp[MAX_VALUE_NUM * 4 * 4].ReinterpretCast("float")
        aj.Duplicate(self.constScale, DYNAMIC_QUANT_INT8_SYM_SCALE, MAX_VALUE_NUM)
        aj.Duplicate(self.constInvScale, np.float32(1) / DYNAMIC_QUANT_INT8_SYM_SCALE, MAX_VALUE_NUM)

    @staticmethod
    def ReduceMaxInplace(src, count):
        """The base class's two overloads: fold the row into its first repeat (dst = src1 = the row, repeat stride
        0), then WholeReduceMax of that repeat into its own first bytes."""
        per_rep = ELEM_PER_REP_HALF if src.dtype.name == "half" else ELEM_PER_REP_FP32
        reps, rems = divmod(count, per_rep)
        offsets = reps * per_rep
        fold = aj.BinaryRepeatParams(1, 1, 1, 0, 8, 0)
        if reps > 1:
            if per_rep == ELEM_PER_REP_FP32 and reps - 1 > MAX_REPEAT:
                aj.Max(src, src[per_rep], src, per_rep, MAX_REPEAT, fold)
                aj.PipeBarrier(aj.PIPE_V)
                aj.Max(src, src[per_rep * MAX_REPEAT], src, per_rep, reps - MAX_REPEAT - 1, fold)
            else:
                aj.Max(src, src[per_rep], src, per_rep, reps - 1, fold)
            aj.PipeBarrier(aj.PIPE_V)
        if rems > 0 and offsets > 0:
            aj.Max(src, src[offsets], src, rems, 1, fold)
            aj.PipeBarrier(aj.PIPE_V)
        mask = per_rep if reps > 0 else count
        aj.WholeReduceMax(src, src, mask, 1, 8, 1, 8)           # in place, as the original


class DynamicQuantDbOpt(DynamicQuantBase):
    def __init__(self, xDtype, yDtype, pipe):
        self.xDtype, self.yDtype, self.pPipe = xDtype, yDtype, pipe

    def Init(self, x, smooth_scales, y, scale, tilingData):
        self.ParseTilingData(tilingData)
        self.InitParams()
        self.InitBaseBuffer()
        self.InitAndSetBuffer(x, smooth_scales, y, scale)

    def Process(self):
        rowLen = int(self.td.rowLen)
        self.DuplicateConst()
        self.ZeroPadLanes()                               # deviation 2
        smoothLocal = smoothHalfLocal = None
        if self.td.hasSmooth:
            smoothLocal = self.smooth_buf_.Get("float")
            self.SmoothCopyIn()
            smoothHalfLocal = self.smoothQueue.DeQue(self.xDtype)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Cast(smoothLocal, smoothHalfLocal, aj.RoundMode.CAST_NONE, rowLen)
            aj.PipeBarrier(aj.PIPE_V)
        self.CopyIn(self.multiRowNum, 0)
        for i in range(1, self.loopCnt):
            self.CopyIn(self.multiRowNum, i)
            self.ProcessSymmetric(smoothLocal, self.multiRowNum, i - 1)
        if self.remainRow > 0:
            self.CopyIn(self.remainRow, self.loopCnt)
        self.ProcessSymmetric(smoothLocal, self.multiRowNum, self.loopCnt - 1)
        if self.remainRow > 0:
            self.ProcessSymmetric(smoothLocal, self.remainRow, self.loopCnt)
        if self.td.hasSmooth:
            self.smoothQueue.FreeTensor(smoothHalfLocal)

    def ZeroPadLanes(self):
        """Deviation 2: the float row's lanes past rowLen (up to the padded length or the next 64) are read by the
        Mul by the smooth row and the Mul by 127 / max but never written by a Cast of rowLen; zero them once."""
        tempCast = self.tempCastUb.Get("float")
        aj.Duplicate(tempCast, np.float32(0), tempCast.GetSize())
        if self.td.hasSmooth:
            smoothLocal = self.smooth_buf_.Get("float")
            aj.Duplicate(smoothLocal, np.float32(0), smoothLocal.GetSize())
        aj.PipeBarrier(aj.PIPE_V)

    def InitAndSetBuffer(self, x, smooth_scales, y, scale):
        td = self.td
        self.inGm, self.smoothGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.outGm, self.scaleGm = aj.GlobalTensor(), aj.GlobalTensor()
        if td.hasSmooth:
            self.smoothGm.SetGlobalBuffer(smooth_scales)
            self.smooth_buf_ = aj.TBuf(aj.TPosition.VECCALC)
            self.smoothQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
            self.pPipe.InitBuffer(self.smooth_buf_, self.sizeHalfLen * 4)
            self.pPipe.InitBuffer(self.smoothQueue, BUFFER_NUM, self.sizeHalfLen * 2)
        b, head = self.blockIdx, int(td.headCoreNum)
        if b < head:
            self.inGm.SetGlobalBuffer(x[b * self.lenHead:], self.lenHead)
            self.outGm.SetGlobalBuffer(y[b * self.outLenHead:], self.outLenHead)
            self.scaleGm.SetGlobalBuffer(scale[b * self.rowPerHeadCore:], self.rowPerHeadCore)
        else:
            self.inGm.SetGlobalBuffer(x[head * self.lenHead + (b - head) * self.lenTail:], self.lenTail)
            self.outGm.SetGlobalBuffer(y[head * self.outLenHead + (b - head) * self.outLenTail:], self.outLenTail)
            self.scaleGm.SetGlobalBuffer(scale[head * self.rowPerHeadCore + (b - head) * self.rowPerTailCore:],
                                         self.rowPerTailCore)
        self.inQueue = aj.TQue(aj.QuePosition.VECIN, DOUBLE_BUFFER_NUM)
        self.outBuf, self.scaleBuf = aj.TBuf(), aj.TBuf()
        self.pPipe.InitBuffer(self.inQueue, DOUBLE_BUFFER_NUM, self.lenMultiRow * 2)
        self.pPipe.InitBuffer(self.outBuf, self.outLen)
        self.pPipe.InitBuffer(self.scaleBuf, self.sizeFloatLen * 4)

    def SmoothCopyIn(self):
        rowLen = int(self.td.rowLen)
        smoothLocal = self.smoothQueue.AllocTensor(self.xDtype)
        if self.isPad:
            aj.DataCopyPad(smoothLocal, self.smoothGm, aj.DataCopyParams(1, rowLen * 2, 0, 0),
                           aj.DataCopyPadParams(True, 0, self.rightPadding, 0))
        else:
            aj.DataCopy(smoothLocal, self.smoothGm, rowLen)
        self.smoothQueue.EnQue(smoothLocal)

    def CopyIn(self, multiRow, loopNum):
        rowLen = int(self.td.rowLen)
        inLocal = self.inQueue.AllocTensor(self.xDtype)
        if self.isPad:
            aj.DataCopyPad(inLocal, self.inGm[loopNum * self.lenGMMultiRow],
                           aj.DataCopyParams(multiRow, rowLen * 2, 0, 0),
                           aj.DataCopyPadParams(True, 0, self.rightPadding, 0))
        else:
            aj.DataCopy(inLocal, self.inGm[loopNum * self.lenGMMultiRow], multiRow * rowLen)
        self.inQueue.EnQue(inLocal)

    def CopyOutData(self, multiRow, loopNum, outLocal, scaleLocal):
        rowLen = int(self.td.rowLen)
        pipe = aj.GetTPipePtr()
        e = pipe.FetchEventID(aj.HardEvent.V_MTE3)
        aj.SetFlag(e, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(e, event=aj.HardEvent.V_MTE3)
        aj.DataCopyPad(self.outGm[loopNum * self.lenGMMultiRow], outLocal,
                       aj.DataCopyExtParams(multiRow, rowLen, 0, 0, 0))
        aj.DataCopyPad(self.scaleGm[loopNum * self.multiRowNum], scaleLocal,
                       aj.DataCopyParams(1, multiRow * 4, 0, 0))

    def ProcessSymmetric(self, smoothLocal, multiRow, loopNum):
        scaleLocal = self.scaleBuf.Get("float")
        inLocal = self.inQueue.DeQue(self.xDtype)
        tempCast = self.tempCastUb.Get("float")
        outLocal = self.outBuf.Get(self.yDtype)
        temp = self.fp32_buf_.Get("float")
        tempInt16 = self.fp32_buf_.Get("int16")
        tempHalf = temp.ReinterpretCast("half")
        event_mte3_v = aj.GetTPipePtr().FetchEventID(aj.HardEvent.MTE3_V)
        aj.SetFlag(event_mte3_v, event=aj.HardEvent.MTE3_V)
        for i in range(multiRow):
            index = i * self.sizeHalfLen
            self.ComputeRowMax(inLocal[index], tempCast, temp, smoothLocal)
            self.QuantizeRow(tempCast, temp, tempInt16, tempHalf, scaleLocal, outLocal, i, event_mte3_v)
        self.inQueue.FreeTensor(inLocal)
        self.CopyOutData(multiRow, loopNum, outLocal, scaleLocal)

    def ComputeRowMax(self, inLocal, tempCast, temp, smoothLocal):
        rowLen = int(self.td.rowLen)
        if self.xDtype == "bfloat16":
            aj.Cast(tempCast, inLocal, aj.RoundMode.CAST_NONE, rowLen)
            aj.PipeBarrier(aj.PIPE_V)
            if self.td.hasSmooth:
                aj.Mul(tempCast, tempCast, smoothLocal, self.sizeHalfLen)
                aj.PipeBarrier(aj.PIPE_V)
            aj.Abs(temp, tempCast, rowLen)
            aj.PipeBarrier(aj.PIPE_V)
            self.ReduceMaxInplace(temp, rowLen)
        else:
            aj.Cast(tempCast, inLocal, aj.RoundMode.CAST_NONE, rowLen)
            if self.td.hasSmooth:
                aj.PipeBarrier(aj.PIPE_V)
                aj.Mul(tempCast, tempCast, smoothLocal, self.sizeHalfLen)
                aj.PipeBarrier(aj.PIPE_V)
                aj.Abs(temp, tempCast, rowLen)
                aj.PipeBarrier(aj.PIPE_V)
                self.ReduceMaxInplace(temp, rowLen)
            else:
                aj.Abs(inLocal, inLocal, rowLen)          # in place on the input row, after the Cast (no barrier)
                aj.PipeBarrier(aj.PIPE_V)
                self.ReduceMaxInplace(inLocal, rowLen)
                aj.PipeBarrier(aj.PIPE_V)
                aj.Cast(temp, inLocal, aj.RoundMode.CAST_NONE, rowLen)
        aj.PipeBarrier(aj.PIPE_V)

    def QuantizeRow(self, tempCast, temp, tempInt16, tempHalf, scaleLocal, outLocal, rowIndex, event_mte3_v):
        rowLen = int(self.td.rowLen)
        aj.Brcb(self.brcbTmp, temp, 1, (1, 8))
        aj.PipeBarrier(aj.PIPE_V)
        aj.Div(self.quantScaleTmp, self.constScale, self.brcbTmp, MAX_VALUE_NUM)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Mul(tempCast, tempCast, self.quantScaleTmp, 64, (rowLen + 63) >> 6, aj.BinaryRepeatParams(1, 1, 0, 8, 8, 0))
        aj.PipeBarrier(aj.PIPE_V)
        aj.Cast(tempInt16, tempCast, aj.RoundMode.CAST_RINT, rowLen)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Cast(tempHalf, tempInt16, aj.RoundMode.CAST_ROUND, rowLen)
        aj.PipeBarrier(aj.PIPE_V)
        if rowIndex == 0:
            aj.WaitFlag(event_mte3_v, event=aj.HardEvent.MTE3_V)
        mask = [1 << (rowIndex & 7), 0]
        aj.Mul(scaleLocal[rowIndex & ~7], self.brcbTmp, self.constInvScale, mask, 1,
               aj.BinaryRepeatParams(1, 1, 0, 8, 8, 0))
        aj.Cast(outLocal[rowIndex * self.outAlignLen], tempHalf, aj.RoundMode.CAST_TRUNC, rowLen)


aj.REGISTER_TILING_DEFAULT(DynamicQuantTilingData)


def dynamic_quant(x, smooth_scales, group_index, y, scale, workspace, tiling_bytes, tiling_key, DTYPE_X, DTYPE_Y):
    """The kernel entry (A2/A3 build); tiling_key is the host's, DTYPE_* the build's macros."""
    if x is None or y is None or scale is None:
        return
    if aj.GetUserWorkspace(workspace) is None:
        return
    tilingData = aj.GET_TILING_DATA(tiling_bytes)
    if aj.GetBlockIdx() >= tilingData.coreNum:
        return
    pipe = aj.TPipe()
    if tiling_key in (TILING_KEY_DB_BF16, TILING_KEY_DB_HALF):
        op = DynamicQuantDbOpt(DTYPE_X, DTYPE_Y, pipe)
        op.Init(x, smooth_scales, y, scale, tilingData)
        op.Process()
    else:
        raise NotImplementedError(f"DynamicQuant tiling key {tiling_key} is not ported (only DynamicQuantDbOpt, "
                                  "keys 2 / 3; see the module docstring)")


# the gallery's cases: (x dtype, row length, with smooth_scales)
CASES = {
    "dynamic_quant": ("half", 700, False),
    "dynamic_quant_bf16": ("bfloat16", 1001, False),
    "dynamic_quant_smooth_half": ("half", 77, True),
}
_NP = {"half": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _make_inputs(case):
    x_dtype, row_len, smooth = CASES[case]

    def make_inputs(size, seed):
        rows = max(1, size // row_len)
        rng = np.random.default_rng(seed)
        x = rng.standard_normal((rows, row_len)).astype(np.float32) * rng.uniform(0.1, 20.0, (rows, 1))
        x[0, :4] = [0.0, -0.0, 1.5, -2.5]
        x[rows // 2, row_len - 1] = -30.0              # a row's maximum in its last (partial) repeat
        inputs = {"x": x.astype(np.float32).astype(_NP[x_dtype])}
        if smooth:
            inputs["smooth_scales"] = rng.uniform(0.5, 2.0, row_len).astype(np.float32).astype(_NP[x_dtype])
        return inputs
    return make_inputs


def quantize_rows(device, x, smooth_scales=None):
    """The host side: tile x [rows, rowLen] (half or bfloat16), launch, return (y int8 [rows, rowLen], scale float
    [rows]); a shape the tiling sends to a key not ported raises NotImplementedError before the launch."""
    x_dtype = "bfloat16" if x.dtype == _NP["bfloat16"] else "half"
    rows, row_len = x.shape
    key, block_dim, raw = tiling(device, rows, row_len, x_dtype, smooth_scales is not None)
    if key not in (TILING_KEY_DB_BF16, TILING_KEY_DB_HALF):
        raise NotImplementedError(f"DynamicQuant tiling key {key} is not ported (only DynamicQuantDbOpt, keys 2 / 3; "
                                  "see the module docstring)")
    y = np.zeros(rows * row_len, np.int8)
    scale = np.zeros(rows, np.float32)
    workspace = np.zeros(aj.GetLibApiWorkSpaceSize(device) + 32, np.uint8)
    aj.launch(dynamic_quant, block_dim, device, x.reshape(-1), smooth_scales, None, y, scale, workspace, raw, key,
              x_dtype, "int8")
    return y.reshape(rows, row_len), scale


def _run(case):
    def run(device, inputs):
        y, scale = quantize_rows(device, inputs["x"], inputs.get("smooth_scales"))
        return {"y": y, "scale": scale}
    return run


def _expected(case):
    def expected(device, inputs):
        x = inputs["x"].astype(np.float32)
        if "smooth_scales" in inputs:
            x = (x * inputs["smooth_scales"].astype(np.float32)).astype(np.float32)
        m = np.abs(x).max(axis=1, keepdims=True)
        q = (DYNAMIC_QUANT_INT8_SYM_SCALE / m).astype(np.float32)
        y = np.rint((x * q).astype(np.float32)).astype(np.int8)
        scale = (m[:, 0] * (np.float32(1) / DYNAMIC_QUANT_INT8_SYM_SCALE)).astype(np.float32)
        return {"y": y, "scale": scale}
    return expected


def _size_ok(case):
    row_len = CASES[case][1]
    return lambda n: row_len <= n <= 1 << 22 and n % row_len == 0


_SOURCE = "hicann/ops-nn@e5c3fa93 quant/dynamic_quant/op_kernel/dynamic_quant_db.h"
_DEVICES = ("atlas-a3", "atlas-a2")
_ROWS = 243             # 8 cores: 3 of 31 rows, 5 of 30; UB tiles of 25 (half, 700) or 17 (bf16, 1001) rows


def _spec(name, description):
    row_len = CASES[name][1]
    return KernelSpec(name, description, _make_inputs(name), _run(name), _expected(name),
                      default_size=_ROWS * row_len if row_len > 100 else 8 * 40 * row_len, devices=_DEVICES,
                      size_rule=f"a multiple of {row_len} (rows of {row_len}), up to 4Mi elements",
                      size_ok=_size_ok(name), source=_SOURCE)


KERNELS = [
    _spec("dynamic_quant", "ops-nn DynamicQuant (per-token int8), half rows of 700: Abs in place on the input tile, "
          "Max folds with dst = src1 (repeat stride 0) and WholeReduceMax in place, Brcb, Div 127 / max, Mul, Cast "
          "float -> int16 -> half -> int8, the scale by a one-lane masked Mul; double-buffered multi-row tiles"),
    _spec("dynamic_quant_bf16", "ops-nn DynamicQuant, bfloat16 rows of 1001: Cast to float, Abs, the float "
          "ReduceMaxInplace (14 Max folds, a 41-lane one, WholeReduceMax in place)"),
    _spec("dynamic_quant_smooth_half", "ops-nn DynamicQuant with smooth_scales, half rows of 77: Mul by the smooth "
          "row, Abs, one Max fold of 13 lanes, WholeReduceMax in place over 64 floats"),
]
