"""RmsNormQuant: per row of x (half or bfloat16) y = int8(clamp(half(((x / rms) * gamma [+ beta]) * (1 / scale) +
offset), quantMin, 127)), rms = sqrt(mean(x^2) + epsilon); scale and offset are one-element tensors.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, norm/rms_norm_quant:
- op_kernel/rms_norm_quant.cpp (the entry: GET_TILING_DATA, TILING_KEY_IS 1 / 257 / 65 / 321 for half, 27 / 283 /
  91 / 347 for bfloat16 (A2/A3 build only); `RmsNormQuant<T, DTYPE_Y, EN_BETA, FastComputeMode>`: rows over
  numCore cores (the last one the rest), FastCompute for rows of at most sliceSize (gamma Cast to float once, then
  per row CopyIn / Compute / CopyOut), SliceCompute for longer rows (per row: the squares' sums of every slice
  through a count-form ReduceSum, GetValue and a scalar float sqrt, then per slice gamma, x, norm and quant, with
  PipeBarrier<PIPE_ALL> between the steps));
- op_kernel/rms_norm_quant.h (GetScaleAndOffset: a 32-byte DataCopy of scale and of offset, MTE2_S flags, the
  scalar unit's 1 / scale (bfloat16 through a one-element Cast and a V_S flag); DataCopyCustomQuant: DataCopyPad
  with DataCopyParams on the A2/A3, elsewhere DataCopy rounded up into the UB and, out, whole blocks plus the last
  32 bytes rewritten by the scalar unit (the 310P: fewer than 32 bytes by GM SetValue and DataCacheCleanAndInvalid);
  CastFrom32To16 and CastFromF16ToI8: Maxs quantMin, Mins 127, Cast half -> int8 CAST_RINT on __CCE_AICORE__ 220,
  CAST_NONE elsewhere);
- norm/rms_norm/op_kernel/rms_norm_base.h (ReduceSumCustom = ReduceSumFP32: Duplicate 0 over 64 floats, a high-dim
  Add accumulating every 64-float repeat into them (dst and src1 repeat stride 0), the tail with mask the remainder,
  `AscendCUtils::SetMask<float>(64)` and `WholeReduceSum<float, false>` (A2/A3: strides 1, 0, 1, 0 under
  `g_coreType == AIV`; elsewhere 1, 1, 1, 8));
- op_host/rms_norm_quant_common_tiling.cpp (NormCommonTiling<true> for PrePostType::Norm: numRow = elements /
  gamma's, numCore = ceil(numRow / ceil(numRow / cores)), sliceSize 8192, avgFactor = float(1.0 / numCol),
  quantMin -128 (-127 with ASDOPS_QUANT_MIN_NEG_127=1), the tiling key |gemma|beta|precision|slice|dtype(6 bits)|).

`AscendCUtils::SetMask<float>(64)` has no ascend_jit spelling; the port writes `aj.SetVectorMask(64, dtype="float")`
(what it does, as kernels/fused_add_rms_norm.py).

Not ported: the int4 output (DT_INT4: `Cast` half -> int4b_t CAST_RINT; the emulator has no int4 dtype, the host
raises NotImplementedError), and the tiling keys with gemma_mode or high_precision_mode, which the entry has no
branch for (the original writes nothing; so does the port).

Deviation 1: the core count is the launch's 8 (GetCoreNumAiv in the original). GM arrays the kernel reads past
(scale and offset through 32-byte DataCopies; on the 310P / 310B x and gamma through DataCopies rounded up to 16
halves) are padded on the host (`run`), as the device reads whatever follows.

Deviation 2: the bfloat16 scale is Cast to float in place in the original (tmpFp32 and scale_buffer are both
`buf.Get()`, one element); a Cast between sizes over its own source is refused (SPEC-2 D34: no overlap at all), so
the port writes the float one DataBlock further into the TBuf.

Deviation 3 (sanitizer): FastCompute copies beta into a TBuf once and lets the x queue's first EnQue/DeQue order
it before the vector reads; on the device that hand-off is a SetFlag/WaitFlag<MTE2_V> pair, which waits for the
beta copy too, but SPEC-2 10.4 orders only the queued tensor's bytes (the AddRmsNorm bullet of docs/decisions.md),
so the sanitizer reports a race the device does not have; the port adds a TQueSync<PIPE_MTE2, PIPE_V> pair after
the beta copy.

Deviation 4 (sanitizer): twice a vector access is followed by SetFlag/WaitFlag<V_S>, scalar reads, and then an MTE2
copy over the same bytes (the bfloat16 scale: its Cast, then the offset's DataCopy into the same TBuf; SliceCompute:
the last slice's square sum, then CopyInGama into fp32_xy_buf_). The scalar unit issues the DataCopy only after
its WaitFlag<V_S> returned, so the device orders the pair, but the sanitizer's V_S flag orders the vector pipe
before the scalar pipe alone and reports a WAR / WAW; the port adds a TQueSync<PIPE_V, PIPE_MTE2> pair there.

Devices: A2 and A3 (half and bfloat16: the DataCopyPad build) and the 310P (half: DataCopy with the scalar tail,
the 2002 branch for rows under 32 bytes). The op's configs also name ascend310b, whose build takes the same
non-220 path, but the kernel's `SetFlag<HardEvent::...>` calls are refused there (SPEC-2 D62: the 310B offers no
ISASI SetFlag/WaitFlag), so the port does not list it.

Fidelity: MODELLED (Sqrt, and the scalar unit's float32 1 / rms and 1 / scale), otherwise BIT-EXACT: the
expectation replays the float32 chain in numpy, the row sums through the reference model's summation trees
(aj.explain_reduce_order), and is checked bit for bit (the emulator's Sqrt is the correctly rounded one).
"""
import os

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

# rms_norm_quant.cpp
BUF_FACTOR = 3
OFFSET_GAMMA, OFFSET_SQX, OFFSET_SUM, OFFSET_WORKSPACE = 0, 1, 2, 3
DIM_2 = 2
REPEAT_TIME_256, REPEAT_TIME_16, REPEAT_TIME_64 = 256, 16, 64
# rms_norm_base.h
BUFFER_NUM = 1
NUM_PER_REP_FP32 = 64
BLOCK_SIZE = 32
# rms_norm_quant_common_tiling.cpp
SLICE_SIZE = 8192
WORKSPACE_RESERVE = 16 * 1024 * 1024
BIT_OFFSET_SIX = 6
CORE_NUM = 8                      # deviation: the launch's cores (GetCoreNumAiv in the original)
DT_INT8, DT_INT4, DT_FLOAT16, DT_BF16 = 2, 29, 1, 27

NormCommonTilingData1 = np.dtype([
    ("numCore", np.uint32), ("numCol", np.uint32), ("numRow", np.uint32), ("avgFactor", np.float32),
    ("epsilon", np.float32), ("sliceSize", np.uint32), ("sliceNum", np.uint32), ("tailSliceSize", np.uint32),
    ("quantMin", np.int32), ("scale", np.float32), ("offset", np.int32), ("highPrecisionMode", np.bool_),
    ("gemmaMode", np.bool_), ("pad", np.uint8, 2), ("dstType", np.int32)])

_NP = {"half": np.float16, "bfloat16": ml_dtypes.bfloat16}
_DT = {"half": DT_FLOAT16, "bfloat16": DT_BF16}


def tiling(x_shape, gamma_shape, x_dtype, with_beta, epsilon=1e-6, high_precision=False, gemma=False,
           dst_type=DT_INT8):
    """NormCommonTiling<true>(Norm): (tiling key, block dim, the packed NormCommonTilingData1)."""
    num_row = int(np.prod(x_shape))
    num_col = int(np.prod(gamma_shape))
    num_row //= num_col
    if epsilon <= 0:
        raise ValueError("RmsNormQuant tiling: epsilon should be positive")
    if dst_type not in (DT_INT8, DT_INT4):
        raise ValueError("RmsNormQuant tiling: dstType can only be 2 or 29")
    if dst_type == DT_INT4:
        raise NotImplementedError("RmsNormQuant: the int4 output is not ported (no int4 dtype in the emulator)")
    t = np.zeros(1, NormCommonTilingData1)
    t["numRow"], t["numCol"] = num_row, num_col
    t["numCore"] = -(-num_row // -(-num_row // CORE_NUM))
    t["sliceSize"] = SLICE_SIZE
    t["avgFactor"] = np.float32(1.0 / num_col)
    t["epsilon"] = np.float32(epsilon)
    t["highPrecisionMode"], t["gemmaMode"] = high_precision, gemma
    t["dstType"] = dst_type
    # GetQuantAttrs
    t["quantMin"] = -127 if os.environ.get("ASDOPS_QUANT_MIN_NEG_127") == "1" else -128
    t["scale"], t["offset"] = 1.0, 0
    # CalcNormTilingKey
    key = int(gemma)
    key = (key << 1) + int(with_beta)
    key = (key << 1) + int(high_precision)
    key = (key << 1) + int(num_col > SLICE_SIZE)
    key = (key << BIT_OFFSET_SIX) + _DT[x_dtype]
    return key, int(t["numCore"][0]), t.view(np.uint8).copy()


def _is_220():
    return aj.get_device(aj.current_core().device).arch == 2201


def OrderForSanitizer(src_pipe, dst_pipe):
    """Deviations 3 and 4: a TQueSync flag pair the original does not have (see the module docstring)."""
    sync = aj.TQueSync(src_pipe, dst_pipe)
    sync.SetFlag(aj.EVENT_ID2)
    sync.WaitFlag(aj.EVENT_ID2)


def GetScaleAndOffset(T, scale, offset, buf):
    """rms_norm_quant.h: (1 / scale, offset) as floats, read by the scalar unit from 32-byte copies."""
    gm_s = aj.GlobalTensor()
    gm_s.SetGlobalBuffer(scale)
    scale_buffer = buf.Get(T)
    aj.DataCopy(scale_buffer, gm_s, BLOCK_SIZE // 2)
    if T == "half":
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_S)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_S)
        varScale = np.float32(1) / np.float32(scale_buffer.GetValue(0))
    else:
        tmpFp32 = buf.Get("float")
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        # deviation 2: the original Casts in place (tmpFp32 and scale_buffer are both buf.Get()); a widening Cast
        # over its own source is refused (SPEC-2 D34), so the float lands one DataBlock further on
        tmpFp32 = tmpFp32[8]
        aj.Cast(tmpFp32, scale_buffer, aj.RoundMode.CAST_NONE, 1)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        varScale = np.float32(1) / tmpFp32.GetValue(0)
        OrderForSanitizer(aj.PIPE_V, aj.PIPE_MTE2)              # deviation 4
    gm_o = aj.GlobalTensor("int8")
    gm_o.SetGlobalBuffer(offset)
    tmpInt8 = buf.Get("int8")
    aj.DataCopy(tmpInt8, gm_o, BLOCK_SIZE)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_S)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_S)
    varOffset = np.float32(tmpInt8.GetValue(0))
    return varScale, varOffset


def DataCopyCustomQuant(T, dst, src, count):
    """rms_norm_quant.h: GM <-> UB of `count` elements (dst a LocalTensor: in; a GlobalTensor: out)."""
    size = np.dtype(_NP.get(T, T)).itemsize if T in _NP else 1
    if _is_220():
        params = aj.DataCopyParams()
        params.blockLen = count * size
        params.blockCount = 1
        if isinstance(dst, aj.LocalTensor):
            aj.DataCopyPad(dst, src, params, aj.DataCopyPadParams())
        else:
            aj.DataCopyPad(dst, src, params)
        return
    numPerBlock = aj.ONE_BLK_SIZE // size
    if count % numPerBlock == 0:
        aj.DataCopy(dst, src, count)
    elif isinstance(dst, aj.LocalTensor):
        aj.DataCopy(dst, src, aj.AlignUp(count, numPerBlock))
    elif count < numPerBlock:
        if aj.get_device(aj.current_core().device).arch == 2002:
            for i in range(count):
                dst.SetValue(i, src.GetValue(i))
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
            aj.DataCacheCleanAndInvalid(dst, entire_type=aj.CacheLine.SINGLE_CACHE_LINE)
        else:
            aj.DataCopy(dst, src, numPerBlock)
    else:
        num = count // numPerBlock * numPerBlock
        aj.DataCopy(dst, src, num)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_S)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_S)
        for i in range(numPerBlock):
            src.SetValue(i, src.GetValue(count - numPerBlock + i))
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_MTE3)
        aj.DataCopy(dst[count - numPerBlock], src, numPerBlock)


def ReduceSumCustom(dst_local, src_local, work_local, count):
    """rms_norm_base.h ReduceSumFP32 (count under 255 repeats of 64 floats)."""
    mask = NUM_PER_REP_FP32
    repeatTimes, tailCount = divmod(count, NUM_PER_REP_FP32)
    bodyCount = repeatTimes * NUM_PER_REP_FP32
    repeatParams = aj.BinaryRepeatParams()
    repeatParams.src0RepStride = aj.ONE_REPEAT_BYTE_SIZE // aj.ONE_BLK_SIZE
    repeatParams.src0BlkStride = 1
    repeatParams.src1RepStride = 0
    repeatParams.src1BlkStride = 1
    repeatParams.dstRepStride = 0
    repeatParams.dstBlkStride = 1
    aj.Duplicate(work_local, np.float32(0), NUM_PER_REP_FP32)
    aj.PipeBarrier(aj.PIPE_V)
    if repeatTimes > 0:
        aj.Add(work_local, src_local, work_local, mask, repeatTimes, repeatParams)
        aj.PipeBarrier(aj.PIPE_V)
    if tailCount != 0:
        aj.Add(work_local, src_local[bodyCount], work_local, tailCount, 1, repeatParams)
        aj.PipeBarrier(aj.PIPE_V)
    aj.SetVectorMask(NUM_PER_REP_FP32, dtype="float")          # AscendCUtils::SetMask<float>(64)
    if _is_220():
        if aj.ASCEND_IS_AIV():
            aj.WholeReduceSum(dst_local, work_local, aj.MASK_PLACEHOLDER, 1, 0, 1, 0, is_set_mask=False)
    else:
        aj.WholeReduceSum(dst_local, work_local, aj.MASK_PLACEHOLDER, 1, 1, 1, aj.DEFAULT_REPEAT_STRIDE,
                          is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)


def CastFrom32To16(out, inp, count):
    if out.dtype.name == "half":
        aj.Cast(out, inp, aj.RoundMode.CAST_NONE, count)
    else:
        aj.Cast(out, inp, aj.RoundMode.CAST_RINT, count)
    aj.PipeBarrier(aj.PIPE_V)


def CastFromF16ToI8(out, inp, quantMin, count):
    aj.Maxs(inp, inp, quantMin, count)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Mins(inp, inp, np.float16(127), count)
    aj.PipeBarrier(aj.PIPE_V)
    if _is_220():
        aj.Cast(out, inp, aj.RoundMode.CAST_RINT, count)
    else:
        aj.Cast(out, inp, aj.RoundMode.CAST_NONE, count)
    aj.PipeBarrier(aj.PIPE_V)


class RmsNormQuant:
    def __init__(self, T, yDtype, EN_BETA, FastComputeMode, x, gamma, beta, scale, offset, y, tiling_data):
        self.T, self.EN_BETA, self.FastComputeMode = T, EN_BETA, FastComputeMode
        td = tiling_data
        self.num_core_, self.num_col_ = int(td.numCore), int(td.numCol)
        self.avg_factor_, self.epsilon_ = np.float32(td.avgFactor), np.float32(td.epsilon)
        self.slice_size_ = int(td.sliceSize)
        num_row = int(td.numRow)
        row_work = (num_row + self.num_core_ - 1) // self.num_core_
        if aj.GetBlockIdx() != self.num_core_ - 1:
            self.row_work_ = row_work
        else:
            self.row_work_ = num_row - (self.num_core_ - 1) * row_work
        self.gm_offset_ = row_work * self.num_col_
        nc = self.num_col_
        if nc <= self.slice_size_:
            self.num_col_align_int8 = (nc + REPEAT_TIME_256 - 1) // REPEAT_TIME_256 * REPEAT_TIME_256
            self.num_col_align_int4 = self.num_col_align_int8
            self.num_col_align_f16 = (nc + REPEAT_TIME_16 - 1) // REPEAT_TIME_16 * REPEAT_TIME_16
            self.num_col_align_f32 = (nc + REPEAT_TIME_64 - 1) // REPEAT_TIME_64 * REPEAT_TIME_64
        else:
            self.num_col_align_int8 = self.num_col_align_int4 = self.slice_size_
            self.num_col_align_f16 = self.num_col_align_f32 = self.slice_size_
            self.num_col_align_f32_long = (nc + REPEAT_TIME_64 - 1) // REPEAT_TIME_64 * REPEAT_TIME_64
        self.quantMin_ = np.float16(int(td.quantMin))
        self.dstType = int(td.dstType)
        b = aj.GetBlockIdx()
        self.gm_x_, self.gm_g_, self.gm_b_ = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.gm_y_ = aj.GlobalTensor("int8")
        self.gm_x_.SetGlobalBuffer(x[b * self.gm_offset_:])
        self.gm_g_.SetGlobalBuffer(gamma)
        if beta is not None:
            self.gm_b_.SetGlobalBuffer(beta)
        self.gm_y_.SetGlobalBuffer(y[b * self.gm_offset_:])
        self.pipe = aj.TPipe()
        self.fp16_x_que_ = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.int8_y_que_ = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.int4_y_que_ = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.fp32_xy_buf_, self.fp16_buf_, self.calc_buf_ = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(3))
        self.pipe.InitBuffer(self.fp16_x_que_, BUFFER_NUM, self.num_col_align_f16 * 2)
        self.pipe.InitBuffer(self.int8_y_que_, BUFFER_NUM, self.num_col_align_int8)
        self.pipe.InitBuffer(self.int4_y_que_, BUFFER_NUM, self.num_col_align_int4 // 2)
        self.pipe.InitBuffer(self.fp32_xy_buf_, self.num_col_align_f32 * 4)
        self.pipe.InitBuffer(self.fp16_buf_, self.num_col_align_f16 * 2)
        self.pipe.InitBuffer(self.calc_buf_, BUF_FACTOR * self.num_col_align_f32 * 4 + 32)   # 32 for sum
        self.input_scale_, self.input_offset_ = GetScaleAndOffset(T, scale, offset, self.fp16_buf_)

    def Launch(self):
        if self.FastComputeMode:
            self.FastCompute()
        else:
            self.SliceCompute()

    def CopyIn(self, offset, numel):
        fp16_x = self.fp16_x_que_.AllocTensor(self.T)
        DataCopyCustomQuant(self.T, fp16_x, self.gm_x_[offset], numel)
        self.fp16_x_que_.EnQue(fp16_x)

    def FastCompute(self):
        fp16_g = self.fp32_xy_buf_.Get(self.T, self.num_col_align_f32)
        fp32_g = self.calc_buf_.Get("float", self.num_col_align_f16)
        DataCopyCustomQuant(self.T, fp16_g, self.gm_g_, self.num_col_)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.Cast(fp32_g[OFFSET_GAMMA * self.num_col_align_f32], fp16_g, aj.RoundMode.CAST_NONE, self.num_col_)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)
        if self.EN_BETA:
            DataCopyCustomQuant(self.T, self.fp16_buf_.Get(self.T), self.gm_b_, self.num_col_)
            OrderForSanitizer(aj.PIPE_MTE2, aj.PIPE_V)          # deviation 3
        for pid in range(self.row_work_):
            offset = pid * self.num_col_
            self.CopyIn(offset, self.num_col_)
            self.Compute()
            self.CopyOut(offset, self.num_col_)
        aj.PipeBarrier(aj.PIPE_ALL)

    def SliceCompute(self):
        self.num_slice_ = (self.num_col_align_f32_long + self.slice_size_ - 1) // self.slice_size_
        self.tail_copy_ = self.num_col_ - (self.num_slice_ - 1) * self.slice_size_
        for pid in range(self.row_work_):
            row_offset = pid * self.num_col_
            squareSum = np.float32(0)
            for sid in range(self.num_slice_):
                col_offset = row_offset + sid * self.slice_size_
                copyNum = self.tail_copy_ if sid == self.num_slice_ - 1 else self.slice_size_
                self.CopyIn(col_offset, copyNum)
                aj.PipeBarrier(aj.PIPE_ALL)
                squareSum = np.float32(squareSum + self.ComputeSquareSum(copyNum))
            OrderForSanitizer(aj.PIPE_V, aj.PIPE_MTE2)          # deviation 4
            avg = np.float32(squareSum * self.avg_factor_)
            rms = np.sqrt(np.float32(avg + self.epsilon_))
            factor = np.float32(1) / rms if rms != 0 else np.float32(1.0)
            for sid in range(self.num_slice_):
                sliceOffset = sid * self.slice_size_
                copyNum = self.tail_copy_ if sid == self.num_slice_ - 1 else self.slice_size_
                totalOffset = row_offset + sliceOffset
                if self.EN_BETA:
                    DataCopyCustomQuant(self.T, self.fp16_buf_.Get(self.T), self.gm_b_[sliceOffset], copyNum)
                self.CopyInGama(sliceOffset, copyNum)
                aj.PipeBarrier(aj.PIPE_ALL)
                self.CopyIn(totalOffset, copyNum)
                aj.PipeBarrier(aj.PIPE_ALL)
                self.ComputeNormandQuant(factor, copyNum)
                aj.PipeBarrier(aj.PIPE_ALL)
                self.CopyOut(totalOffset, copyNum)
                aj.PipeBarrier(aj.PIPE_ALL)
        aj.PipeBarrier(aj.PIPE_ALL)

    def CopyInGama(self, sliceOffset, numel):
        fp16_g = self.fp32_xy_buf_.Get(self.T, self.slice_size_)
        fp32_g = self.calc_buf_.Get("float", self.slice_size_)
        DataCopyCustomQuant(self.T, fp16_g, self.gm_g_[sliceOffset], numel)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.Cast(fp32_g[OFFSET_GAMMA * self.slice_size_], fp16_g, aj.RoundMode.CAST_NONE, numel)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)

    def _quant_tail(self, fp32_xy, work, stride, num):
        """The common end of Compute and ComputeNormandQuant: [+ beta], * 1 / scale, + offset, to half, to int8."""
        if self.EN_BETA:
            b = self.fp16_buf_.Get(self.T)
            aj.Cast(work, b, aj.RoundMode.CAST_NONE, num)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Add(fp32_xy, fp32_xy, work, num)
            aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(fp32_xy, fp32_xy, self.input_scale_, num)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Adds(fp32_xy, fp32_xy, self.input_offset_, num)
        aj.PipeBarrier(aj.PIPE_V)
        tmpfp16Buf = self.calc_buf_.Get("half")
        tmpfp16 = tmpfp16Buf[OFFSET_SUM * stride * DIM_2]          # the work slot as halves
        CastFrom32To16(tmpfp16, fp32_xy, num)
        int8_y = self.int8_y_que_.AllocTensor("int8")
        CastFromF16ToI8(int8_y, tmpfp16, self.quantMin_, num)
        self.int8_y_que_.EnQue(int8_y)

    def Compute(self):
        nc, a32 = self.num_col_, self.num_col_align_f32
        fp16_x = self.fp16_x_que_.DeQue(self.T)
        fp32_xy = self.fp32_xy_buf_.Get("float")
        buf = self.calc_buf_.Get("float")
        g, sqx = buf[OFFSET_GAMMA * a32], buf[OFFSET_SQX * a32]
        work, sum_ = buf[OFFSET_SUM * a32], buf[OFFSET_WORKSPACE * a32]
        aj.Cast(fp32_xy, fp16_x, aj.RoundMode.CAST_NONE, nc)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Mul(sqx, fp32_xy, fp32_xy, nc)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(sqx, sqx, self.avg_factor_, nc)
        aj.PipeBarrier(aj.PIPE_V)
        ReduceSumCustom(sum_, sqx, work, nc)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Adds(sum_, sum_, self.epsilon_, 1)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Sqrt(sum_, sum_, 1)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        with np.errstate(divide="ignore"):
            factor = np.float32(1) / sum_.GetValue(0)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
        aj.Muls(fp32_xy, fp32_xy, factor, nc)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Mul(fp32_xy, fp32_xy, g, nc)
        aj.PipeBarrier(aj.PIPE_V)
        self._quant_tail(fp32_xy, work, a32, nc)
        self.fp16_x_que_.FreeTensor(fp16_x)

    def ComputeSquareSum(self, numel):
        s = self.slice_size_
        fp16_x = self.fp16_x_que_.DeQue(self.T)
        fp32_xy = self.fp32_xy_buf_.Get("float")
        buf = self.calc_buf_.Get("float")
        sqx, work, sum_ = buf[OFFSET_SQX * s], buf[OFFSET_SUM * s], buf[OFFSET_WORKSPACE * s]
        aj.Cast(fp32_xy, fp16_x, aj.RoundMode.CAST_NONE, numel)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Mul(sqx, fp32_xy, fp32_xy, numel)
        aj.PipeBarrier(aj.PIPE_V)
        aj.ReduceSum(sum_, sqx, work, numel)                     # __CCE_AICORE__ != 100
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        self.fp16_x_que_.FreeTensor(fp16_x)
        return sum_.GetValue(0)

    def ComputeNormandQuant(self, factor, num):
        s = self.slice_size_
        fp16_x = self.fp16_x_que_.DeQue(self.T)
        fp32_xy = self.fp32_xy_buf_.Get("float")
        buf = self.calc_buf_.Get("float")
        g, work = buf[OFFSET_GAMMA * s], buf[OFFSET_SUM * s]
        aj.Cast(fp32_xy, fp16_x, aj.RoundMode.CAST_NONE, num)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(fp32_xy, fp32_xy, factor, num)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Mul(fp32_xy, fp32_xy, g, num)
        aj.PipeBarrier(aj.PIPE_V)
        self._quant_tail(fp32_xy, work, s, num)
        self.fp16_x_que_.FreeTensor(fp16_x)

    def CopyOut(self, offset, numel):
        int8_y = self.int8_y_que_.DeQue("int8")
        DataCopyCustomQuant("int8", self.gm_y_[offset], int8_y, numel)
        self.int8_y_que_.FreeTensor(int8_y)


aj.REGISTER_TILING_DEFAULT(NormCommonTilingData1)


def rms_norm_quant(x, gamma, beta, scale, offset, y, workspace, tiling, tiling_key, DTYPE_Y="int8"):
    """The kernel entry; tiling_key is the host's (TILING_KEY_IS)."""
    tiling_data = aj.GET_TILING_DATA(tiling)
    keys = {257: ("half", True, True), 1: ("half", False, True), 321: ("half", True, False),
            65: ("half", False, False)}
    if _is_220():
        keys.update({283: ("bfloat16", True, True), 27: ("bfloat16", False, True),
                     347: ("bfloat16", True, False), 91: ("bfloat16", False, False)})
    if tiling_key in keys:
        T, en_beta, fast = keys[tiling_key]
        kernel = RmsNormQuant(T, DTYPE_Y, en_beta, fast, x, gamma, beta, scale, offset, y, tiling_data)
        kernel.Launch()


def _pad(a, n):
    """A host array followed by n zero elements: GM the kernel's rounded-up copies may read past its end."""
    return np.concatenate([a.reshape(-1), np.zeros(n, a.dtype)])


def rms_norm_quant_host(device, x, gamma, beta, scale, offset, epsilon=1e-6):
    """Tile x [rows, cols], launch, return y int8 [rows, cols]."""
    x_dtype = "bfloat16" if x.dtype == _NP["bfloat16"] else "half"
    rows, cols = x.shape
    key, block_dim, raw = tiling(x.shape, gamma.shape, x_dtype, beta is not None, epsilon)
    y = np.zeros(rows * cols, np.int8)
    workspace = np.zeros(WORKSPACE_RESERVE, np.uint8)
    aj.launch(rms_norm_quant, block_dim, device, _pad(x, 16), _pad(gamma, 16),
              None if beta is None else _pad(beta, 16), _pad(np.asarray(scale).reshape(1), 15),
              _pad(np.asarray(offset, np.int8).reshape(1), 31), y, workspace, raw, key)
    return y.reshape(rows, cols)


# the gallery's cases: (x dtype, row length, with beta)
CASES = {
    "rms_norm_quant": ("half", 1000, True),
    "rms_norm_quant_bf16": ("bfloat16", 333, False),
    "rms_norm_quant_slice": ("half", 9000, False),
}
DEVICES = {"half": ("atlas-a3", "atlas-a2", "atlas-inference-aicore"),
           "bfloat16": ("atlas-a3", "atlas-a2")}


def _make_inputs(case):
    dtype, cols, with_beta = CASES[case]

    def make_inputs(size, seed):
        rows = max(1, size // cols)
        rng = np.random.default_rng(seed)
        x = rng.standard_normal((rows, cols)).astype(np.float32) * rng.uniform(0.2, 4.0, (rows, 1))
        x[0, :3] = [0.0, -0.0, 3.0]
        inputs = {"x": x.astype(_NP[dtype]),
                  "gamma": rng.uniform(0.5, 1.5, cols).astype(np.float32).astype(_NP[dtype]),
                  "scale": np.array([0.02], np.float32).astype(_NP[dtype]),
                  "offset": np.array([3], np.int8)}
        if with_beta:
            inputs["beta"] = rng.uniform(-0.2, 0.2, cols).astype(np.float32).astype(_NP[dtype])
        return inputs
    return make_inputs


def _run(device, inputs):
    return {"y": rms_norm_quant_host(device, inputs["x"], inputs["gamma"], inputs.get("beta"), inputs["scale"],
                                     inputs["offset"])}


def _reduce_fp32(device, sqa):
    """ReduceSumFP32 on rows of float32: the repeats added lane by lane into 64 zeros, then WholeReduceSum's tree."""
    rows, cols = sqa.shape
    work = np.zeros((rows, NUM_PER_REP_FP32), np.float32)
    for r in range(0, cols, NUM_PER_REP_FP32):
        chunk = sqa[:, r:r + NUM_PER_REP_FP32]
        work[:, :chunk.shape[1]] = (work[:, :chunk.shape[1]] + chunk).astype(np.float32)
    [tree] = aj.explain_reduce_order(device, "WholeReduceSum", "float", mask=NUM_PER_REP_FP32, repeat_time=1)
    return tree.evaluate_batch(work).reshape(rows).astype(np.float32)


def _to_int8(device, f32, quant_min):
    """CastFrom32To16 (CAST_NONE: to nearest even) then Maxs / Mins in half and the Cast half -> int8 (an integral
    half after the clamp whatever the mode, but CAST_RINT / CAST_NONE both round half-way to even)."""
    with np.errstate(over="ignore"):
        h = f32.astype(np.float16)
    h = np.minimum(np.maximum(h, np.float16(quant_min)), np.float16(127))
    return np.rint(h.astype(np.float32)).astype(np.int8)


def _expected(case):
    def expected(device, inputs):
        x = inputs["x"].astype(np.float32)
        rows, cols = x.shape
        g = inputs["gamma"].astype(np.float32)
        inv_scale = np.float32(1) / np.float32(inputs["scale"].astype(np.float32)[0])
        off = np.float32(inputs["offset"][0])
        avg = np.float32(1.0 / cols)
        sq = (x * x).astype(np.float32)
        if cols <= SLICE_SIZE:
            total = _reduce_fp32(device, (sq * avg).astype(np.float32))
            rms = np.sqrt((total + np.float32(1e-6)).astype(np.float32))
            factor = (np.float32(1) / rms).astype(np.float32)
        else:
            total = np.zeros(rows, np.float32)
            for s in range(0, cols, SLICE_SIZE):
                part = sq[:, s:s + SLICE_SIZE]
                tree = aj.explain_reduce_order(device, "count", "float", count=part.shape[1])
                total = (total + tree.evaluate_batch(part).reshape(rows)).astype(np.float32)
            rms = np.sqrt(((total * avg).astype(np.float32) + np.float32(1e-6)).astype(np.float32))
            factor = np.where(rms != 0, np.float32(1) / rms, np.float32(1)).astype(np.float32)
        v = ((x * factor[:, None]).astype(np.float32) * g).astype(np.float32)
        if "beta" in inputs:
            v = (v + inputs["beta"].astype(np.float32)).astype(np.float32)
        v = ((v * inv_scale).astype(np.float32) + off).astype(np.float32)
        quant_min = -127 if os.environ.get("ASDOPS_QUANT_MIN_NEG_127") == "1" else -128
        return {"y": _to_int8(device, v, quant_min)}
    return expected


def _size_ok(case):
    cols = CASES[case][1]
    return lambda n: cols <= n <= 1 << 22 and n % cols == 0


_SOURCE = "hicann/ops-nn@e5c3fa93 norm/rms_norm_quant/op_kernel/rms_norm_quant.cpp"


def _spec(name, rows, description):
    dtype, cols, _ = CASES[name]
    return KernelSpec(name, description, _make_inputs(name), _run, _expected(name), default_size=rows * cols,
                      devices=DEVICES[dtype], size_rule=f"a multiple of {cols} (rows of {cols}), up to 4Mi elements",
                      size_ok=_size_ok(name), source=_SOURCE)


KERNELS = [
    _spec("rms_norm_quant", 37, "ops-nn RmsNormQuant, half rows of 1000 with beta (FastCompute: Cast, Mul, Muls, "
          "ReduceSumFP32 = a repeat-stride-0 Add chain + WholeReduceSum with isSetMask false, Adds, Sqrt, GetValue, "
          "Muls, Mul gamma, Add beta, Muls 1/scale, Adds offset, Cast to half, Maxs / Mins, Cast to int8); "
          "rows over 8 cores, the last the rest"),
    _spec("rms_norm_quant_bf16", 21, "ops-nn RmsNormQuant, bfloat16 rows of 333 without beta (scale by a "
          "one-element Cast bf16 -> float and a V_S flag)"),
    _spec("rms_norm_quant_slice", 3, "ops-nn RmsNormQuant SliceCompute, half rows of 9000 (two slices of 8192 / "
          "808: count-form ReduceSum per slice, GetValue, a scalar float sqrt and 1 / rms, PipeBarrier<PIPE_ALL> "
          "steps)"),
]
