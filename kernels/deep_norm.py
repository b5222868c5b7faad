"""DeepNorm, the short-row kernel (D <= 500): per row of x and gx, z = alpha * x + gx, mean = sum(z) / D,
rstd = 1 / sqrt(sum((z - mean)^2) / D + eps), y = (z - mean) * rstd * gamma + beta, with mean and rstd (float) as
outputs too; float, half and bfloat16 (the 16-bit types computed in float).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, norm/deep_norm:
- op_kernel/deep_norm.cpp (the entry: GET_TILING_DATA, TILING_KEY_IS 16 / 17 / 18 (bfloat16 / half / float with
  D <= 500): `KernelDeepNorm<T>::InitShort` and ProcessBf16Short / ProcessFp16Short / ProcessFp32Short. InitBase:
  rows over num_core cores (the last l_firstdim_per_core), tiles of first_dim_per_times rows (the last the rest);
  depth-1 queues for x, gx (rows rounded up to 32 bytes), beta, gamma, z, and mean / rstd (32 bytes a row); float
  TBufs of the tile for the 16-bit types. Per core beta and gamma by DataCopyPad once; per tile CopyInXGX
  (DataCopyPad of `rows` blocks of D elements, isPad with rightPadding to the 32-byte row), Compute, CopyOut
  (DataCopyPad of the mean and rstd floats, and of `rows` blocks of D elements of z). ComputeFp32Short /
  ComputeFp16Short / ComputeBf16Short: (16-bit: Cast x and gx to float over the tile) PrecisionComputeMeanShort
  (Axpy gx += alpha x over the tile, Muls by 1.0 into z, ReduceSumShort, Muls by 1/D, a V_S flag, then per row from
  the last GetValue of the mean, an S_V flag and Adds -mean), PrecisionComputeRstdShort (Mul z * z, ReduceSumShort,
  Muls 1/D, Adds eps, Sqrt, Duplicate 1.0, Div, V_S, per row GetValue, S_V, Muls rstd), PrecisionComputeResultShort
  (per 64 columns a high-dim Mul by gamma and Add of beta over the rows: repeat = row, src1 repeat stride 0), (16-bit:
  gamma and beta Cast to float first, z Cast back CAST_NONE / CAST_RINT). ReduceSumShort: Duplicate 0 over 8 floats
  a row, per 8 columns a high-dim Add (mask 8, one repeat a row, dst / src0 repeat stride 1 block, src1 repeat
  stride the row) accumulating 8 partial sums a row, the column tail with mask D % 8, then BlockReduceSum (mask 64,
  repeats of 8 rows) and a last BlockReduceSum of the remaining rows' blocks);
- op_host/arch22/deep_norm_tiling.cpp and deep_norm_tiling.h (`Tiling4DeepNorm`: cores ceil(rows / ceil(rows /
  cores)); the tile's rows from the UB budget (maxEleNum - 64 - 50 - 2 RU(D) - RU(D) * 4 / bytes against
  (3 RU(D) + 64 / bytes) * rowWork, plus 3 RU(D) * 4 / bytes * rowWork for the 16-bit types), at most 255;
  ave_str = float(1.0 / D), eps and alpha as uint32 bit patterns; the tiling key bits).

The 310P build (`__CCE_AICORE__` 200, the non-220 branches) is ported too: CopyInXGX a DataCopy a row of D rounded
up to 32 bytes (reading into the next row, past the last one at the end), beta and gamma likewise, and CopyOut a
DataCopy of each row's whole blocks, then (D not whole blocks) an MTE3_S flag, the scalar unit moving the row's last
32 bytes to its start, an S_MTE3 flag and a DataCopy of them to the row's end. That branch copies neither mean nor
rstd out (they keep what GM held), and writes no row at all when D is under a block (its loop breaks).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). On the 310P the DataCopy reads go
up to a block past the windows SetGlobalBuffer gave x, gx (the core's rows), beta and gamma (D); the device does
not check a window, the emulator does (docs/decisions.md "Scaffolding": a GlobalTensor stays inside its window), so
the port widens those windows by the rounding; `ORIGINAL_GM_WINDOWS = True` keeps the original's sizes and shows
the refusal. The host pads GM by that rounding (a device allocation is so rounded).

Not ported: the other tiling keys (D > 500: the per-row ReduceSum / GetAccVal kernels).

Devices: A2 and A3 (op_host/config/ascend910b, ascend910_93: the DataCopyPad build), and the 310P (ascend310p:
half and float; bfloat16 is not built there).

Fidelity: MODELLED (Axpy, Sqrt and Div on the A2/A3: SPEC-2 D37, D39); the rest BIT-EXACT. The expectation replays
the sequence in numpy: Axpy as one rounding of the exact x * alpha + gx (D39), the high-dim Add's eight running float32
sums a row, BlockReduceSum's adjacent-pair tree over the eight (SPEC-2 8.2), float32 Muls / Adds / Mul / Add, and the
correctly rounded float32 sqrt and 1 / x the emulator models; it is checked bit for bit. On hardware the Sqrt and Div
may differ (the devkit documents no precision for them on the A2/A3); `tests/test_port40pb_kernels.py` also checks the
float64 formula within 2e-5 relative (float) and half / bfloat16 rounding.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 1
BLOCK_SIZE = 32
FLOAT_BLOCK = 8
ZERO = np.float32(0)
REPEAT_MAX = 64
# op_host/arch22/deep_norm_tiling.cpp
TILING_ISSHORT_OFFSET, TILING_UPPER_LIMIT_OFFSET, TILING_BEYOND_LIMIT_OFFSET = 16, 8, 4
TILING_ISFP32_OFFSET, TILING_ISFP16_OFFSET = 2, 1
SHORT_LIMIT, LIMIT_LAST_DIM, FP16_LIMIT, FP32_LIMIT = 500, 4096, 15360, 8192
MAX_REPEAT = 255
CORE_NUM = 8                          # deviation: the launch's cores (GetCoreNumAiv in the original)
ALPHA, EPSILON = 0.3, 1e-6            # the op's attribute defaults
ORIGINAL_GM_WINDOWS = False
DEVICES = {"float": ("atlas-a3", "atlas-a2", "atlas-inference-aicore"),
           "half": ("atlas-a3", "atlas-a2", "atlas-inference-aicore"), "bfloat16": ("atlas-a3", "atlas-a2")}
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}

DeepNormTilingData = np.dtype([(name, np.uint32) for name in (
    "num_core", "num_last_dim", "num_first_dim", "nl_firstdim_per_core", "l_firstdim_per_core",
    "first_dim_per_times", "updated_last_dim", "updated_last_times", "eps_str", "ave_str", "alpha_str")])


def _f32_bits(v):
    return int(np.array([v], np.float32).view(np.uint32)[0])


def tiling(device, rows, cols, dtype, alpha=ALPHA, eps=EPSILON):
    """Tiling4DeepNorm for D <= 4096 (bufferNum 1): (tiling key, block dim, packed DeepNormTilingData)."""
    ub = aj.get_device(device).ub_bytes

    def ru(x, n):
        return -(-x // n) * n

    limit2 = FP32_LIMIT if dtype == "float" else FP16_LIMIT
    num_core = -(-rows // -(-rows // CORE_NUM))
    row_work = -(-rows // num_core)
    last = rows - row_work * (num_core - 1)
    if cols > LIMIT_LAST_DIM:
        raise NotImplementedError("DeepNorm: D > 4096 (updated_last_dim) is not ported")
    byte_num = TYPE_SIZE[dtype] if dtype == "float" else 2
    blk = 32 // byte_num
    max_ele = ub // byte_num
    dyn_last = cols
    small = 1 if dtype != "float" else 0
    short = 1 if cols <= SHORT_LIMIT else 0
    total = ((2 * ru(cols, blk) + ru(dyn_last, blk) + 64 // byte_num) * row_work
             + small * (1 - short) * 4 * ru(cols, blk) * row_work
             + short * small * 3 * ru(cols, blk) * 4 // byte_num * row_work)
    sum_data = (max_ele - 64 - 50 - 2 * ru(cols, blk) - (1 - short) * 3 * ru(cols, blk) * 4 // byte_num
                - ru(dyn_last, blk) * 4 // byte_num)
    if total > sum_data:
        per_time = row_work // -(-total // sum_data)
    else:
        per_time = row_work
    if short:
        per_time = min(per_time, MAX_REPEAT)
    t = np.zeros(1, DeepNormTilingData)
    t["num_core"], t["num_last_dim"], t["num_first_dim"] = num_core, cols, rows
    t["nl_firstdim_per_core"], t["l_firstdim_per_core"], t["first_dim_per_times"] = row_work, last, per_time
    t["eps_str"] = _f32_bits(eps)
    t["ave_str"] = _f32_bits(np.float32(1.0 / cols))
    t["alpha_str"] = _f32_bits(alpha)
    key = (short * TILING_ISSHORT_OFFSET + (limit2 < cols) * TILING_UPPER_LIMIT_OFFSET
           + (LIMIT_LAST_DIM < cols) * TILING_BEYOND_LIMIT_OFFSET + (dtype == "float") * TILING_ISFP32_OFFSET
           + (dtype == "half") * TILING_ISFP16_OFFSET)
    return key, num_core, t.view(np.uint8).copy()


def _is_220():
    """The DataCopyPad build (`__CCE_AICORE__ == 220`: the A2 / A3); the 310P takes the DataCopy branches."""
    return aj.get_device(aj.current_core().device).arch == 2201


def _as_float(bits):
    return np.array([bits], np.uint32).view(np.float32)[0]


class KernelDeepNorm:
    def __init__(self, T):
        self.T = T

    def CEIL_DIV(self, x, y):
        return x if y == 0 else (x + y - 1) // y

    def ROUND_UP(self, x):
        return (x + self.blockNumEl - 1) // self.blockNumEl * self.blockNumEl

    def ReduceSumShort(self, dst_local1, src_local, tmp_local, len_, repeat):
        elementNum = BLOCK_SIZE // 4
        maxRepeat = aj.ONE_REPEAT_BYTE_SIZE // 4
        tailCount = self.num_last_dim % elementNum
        repStride = len_ // FLOAT_BLOCK
        repeatTimes = repeat // elementNum
        bodyCount = repeatTimes * elementNum
        repeatTail = repeat % elementNum * elementNum
        aj.Duplicate(tmp_local, ZERO, repeat * elementNum)
        aj.PipeBarrier(aj.PIPE_V)
        params = aj.BinaryRepeatParams(1, 1, 1, 1, 1, repStride)
        index = 0
        while index + elementNum <= self.num_last_dim:
            aj.Add(tmp_local, tmp_local, src_local[index], elementNum, repeat, params)
            aj.PipeBarrier(aj.PIPE_V)
            index += elementNum
        if tailCount != 0:
            aj.Add(tmp_local, tmp_local, src_local[index], tailCount, repeat, params)
        aj.PipeBarrier(aj.PIPE_V)
        if repeatTimes != 0:
            aj.BlockReduceSum(dst_local1, tmp_local, repeatTimes, maxRepeat, 1, 1, elementNum)
        if repeatTail != 0:
            aj.BlockReduceSum(dst_local1[bodyCount], tmp_local[bodyCount * elementNum], 1, repeatTail, 1, 1,
                              elementNum)

    def InitBase(self, x, gx, beta, gamma, mean, rstd, z, num_core_, num_last_dim_, num_first_dim_,
                 nl_first_dim_per_core_, l_first_dim_per_core_, first_dim_per_times_, updated_last_dim_,
                 updated_last_times_, eps_, meanNum_, alpha_):
        T = self.T
        self.databyte = TYPE_SIZE[T]
        self.num_core, self.num_last_dim, self.num_first_dim = num_core_, num_last_dim_, num_first_dim_
        self.nl_first_dim_per_core, self.l_first_dim_per_core = nl_first_dim_per_core_, l_first_dim_per_core_
        self.first_dim_per_times = first_dim_per_times_
        self.updated_last_dim, self.updated_last_times = updated_last_dim_, updated_last_times_
        self.blockNumEl = 32 // self.databyte
        self.meanNum, self.eps, self.alphaVal = _as_float(meanNum_), _as_float(eps_), _as_float(alpha_)
        block_idx = aj.GetBlockIdx()
        if block_idx < self.num_core - 1:
            self.row_work = self.nl_first_dim_per_core
            self.row_step = self.first_dim_per_times
        else:
            self.row_work = self.l_first_dim_per_core
            self.row_step = min(self.first_dim_per_times, self.row_work)
        self.row_tail_ = self.row_work % self.first_dim_per_times or self.first_dim_per_times
        used_last_dim_num = self.num_last_dim if self.updated_last_dim == 0 else self.updated_last_dim
        self.gm_offset_ = self.nl_first_dim_per_core * self.num_last_dim
        self.gm_offset2_ = self.nl_first_dim_per_core
        D, rw = self.num_last_dim, self.row_work
        self.x_gm, self.gx_gm, self.beta_gm, self.gamma_gm, self.z_gm = (aj.GlobalTensor(T) for _ in range(5))
        self.mean_gm, self.rstd_gm = aj.GlobalTensor("float"), aj.GlobalTensor("float")
        # deviation (310P): the windows widened by the DataCopy rounding the reads take past them
        extra = 0 if _is_220() or ORIGINAL_GM_WINDOWS else self.ROUND_UP(D) - D
        self.x_gm.SetGlobalBuffer(x[block_idx * self.gm_offset_:], rw * D + extra)
        self.gx_gm.SetGlobalBuffer(gx[block_idx * self.gm_offset_:], rw * D + extra)
        self.beta_gm.SetGlobalBuffer(beta, D + extra)
        self.gamma_gm.SetGlobalBuffer(gamma, D + extra)
        self.mean_gm.SetGlobalBuffer(mean[block_idx * self.gm_offset2_:], rw)
        self.rstd_gm.SetGlobalBuffer(rstd[block_idx * self.gm_offset2_:], rw)
        self.z_gm.SetGlobalBuffer(z[block_idx * self.gm_offset_:], rw * D)
        self.pipe = aj.TPipe()
        self.gx_que, self.x_que, self.beta_que, self.gamma_que = (aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
                                                                  for _ in range(4))
        self.z_que, self.mean_que_fp32, self.rstd_que_fp32 = (aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
                                                              for _ in range(3))
        self.x_buf_fp32, self.y_buf_fp32, self.z_buf_fp32 = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(3))
        self.calc_buf_fp32 = aj.TBuf(aj.TPosition.VECCALC)
        ru = self.ROUND_UP(used_last_dim_num)
        self.pipe.InitBuffer(self.x_que, BUFFER_NUM, self.row_step * ru * self.databyte)
        self.pipe.InitBuffer(self.gx_que, BUFFER_NUM, self.row_step * ru * self.databyte)
        self.pipe.InitBuffer(self.beta_que, BUFFER_NUM, ru * self.databyte)
        self.pipe.InitBuffer(self.gamma_que, BUFFER_NUM, ru * self.databyte)
        self.pipe.InitBuffer(self.mean_que_fp32, BUFFER_NUM, self.row_step * BLOCK_SIZE)
        self.pipe.InitBuffer(self.rstd_que_fp32, BUFFER_NUM, self.row_step * BLOCK_SIZE)

    def InitShort(self, *args):
        self.InitBase(*args)
        ru = self.ROUND_UP(self.num_last_dim)
        self.pipe.InitBuffer(self.z_que, BUFFER_NUM, self.row_step * ru * self.databyte)
        self.pipe.InitBuffer(self.calc_buf_fp32, ru * 4)
        if self.databyte != 4:
            for b in (self.x_buf_fp32, self.y_buf_fp32, self.z_buf_fp32):
                self.pipe.InitBuffer(b, self.row_step * 4 * ru)

    def ProcessShort(self):
        """ProcessFp16Short / ProcessBf16Short / ProcessFp32Short (the same loop, the compute by type)."""
        compute = {"float": self.ComputeFp32Short, "half": self.ComputeFp16Short,
                   "bfloat16": self.ComputeBf16Short}[self.T]
        move_cnt = self.CEIL_DIV(self.row_work, self.row_step)
        self.CopyInBetaGamma(self.num_last_dim)
        beta_local, gamma_local = self.beta_que.DeQue(self.T), self.gamma_que.DeQue(self.T)
        for i in range(move_cnt):
            rows = self.row_step if i < move_cnt - 1 else self.row_tail_
            self.CopyInXGX(i, rows, self.num_last_dim)
            compute(rows, beta_local, gamma_local)
            self.CopyOut(i, rows, self.num_last_dim)
        self.beta_que.FreeTensor(beta_local)
        self.gamma_que.FreeTensor(gamma_local)

    def CopyInXGX(self, proc_id, repeatTimes, length):
        T = self.T
        x_local, gx_local = self.x_que.AllocTensor(T), self.gx_que.AllocTensor(T)
        offset = proc_id * self.row_step * self.num_last_dim
        if not _is_220():
            for idx in range(repeatTimes):
                ru = self.ROUND_UP(length)
                aj.DataCopy(x_local[idx * ru], self.x_gm[offset + idx * length], ru)
                aj.DataCopy(gx_local[idx * ru], self.gx_gm[offset + idx * length], ru)
            self.x_que.EnQue(x_local)
            self.gx_que.EnQue(gx_local)
            return
        temp = aj.DataCopyPadParams()
        temp.isPad = True
        temp.paddingValue = 0
        temp.rightPadding = self.ROUND_UP(length) - length
        copyInput = aj.DataCopyParams()
        copyInput.blockCount = repeatTimes
        copyInput.blockLen = length * self.databyte
        copyInput.srcStride = 0
        copyInput.dstStride = 0
        aj.DataCopyPad(x_local, self.x_gm[offset], copyInput, temp)
        aj.DataCopyPad(gx_local, self.gx_gm[offset], copyInput, temp)
        self.x_que.EnQue(x_local)
        self.gx_que.EnQue(gx_local)

    def CopyInBetaGamma(self, length):
        T = self.T
        beta_local, gamma_local = self.beta_que.AllocTensor(T), self.gamma_que.AllocTensor(T)
        if not _is_220():
            aj.DataCopy(beta_local, self.beta_gm, self.ROUND_UP(length))
            aj.DataCopy(gamma_local, self.gamma_gm, self.ROUND_UP(length))
            self.beta_que.EnQue(beta_local)
            self.gamma_que.EnQue(gamma_local)
            return
        temp = aj.DataCopyPadParams()
        copyParams = aj.DataCopyParams()
        copyParams.blockLen = length * self.databyte
        copyParams.blockCount = 1
        aj.DataCopyPad(beta_local, self.beta_gm, copyParams, temp)
        aj.DataCopyPad(gamma_local, self.gamma_gm, copyParams, temp)
        self.beta_que.EnQue(beta_local)
        self.gamma_que.EnQue(gamma_local)

    def ComputeFp32Short(self, nums, beta_local, gamma_local):
        x_local, gx_local = self.x_que.DeQue(self.T), self.gx_que.DeQue(self.T)
        z_local = self.z_que.AllocTensor(self.T)
        mean_local, rstd_local = self.mean_que_fp32.AllocTensor("float"), self.rstd_que_fp32.AllocTensor("float")
        self.PrecisionComputeMeanShort(nums, z_local, x_local, gx_local, mean_local)
        aj.PipeBarrier(aj.PIPE_V)
        self.mean_que_fp32.EnQue(mean_local)
        self.PrecisionComputeRstdShort(nums, z_local, x_local, gx_local, rstd_local)
        aj.PipeBarrier(aj.PIPE_V)
        self.rstd_que_fp32.EnQue(rstd_local)
        self.x_que.FreeTensor(x_local)
        self.gx_que.FreeTensor(gx_local)
        self.PrecisionComputeResultShort(nums, z_local, beta_local, gamma_local)
        self.z_que.EnQue(z_local)

    def _compute_16(self, nums, beta_local, gamma_local, out_round):
        """ComputeFp16Short / ComputeBf16Short (the half one DeQues gx first; the order of two DeQues of different
        queues changes nothing)."""
        T = self.T
        x_local, gx_local = self.x_que.DeQue(T), self.gx_que.DeQue(T)
        z_local = self.z_que.AllocTensor(T)
        mean_local, rstd_local = self.mean_que_fp32.AllocTensor("float"), self.rstd_que_fp32.AllocTensor("float")
        x_local_fp32 = self.x_buf_fp32.Get("float")
        y_local_fp32 = self.y_buf_fp32.Get("float")
        z_local_fp32 = self.z_buf_fp32.Get("float")
        stepSize = nums * self.ROUND_UP(self.num_last_dim)
        aj.Cast(x_local_fp32, x_local, aj.RoundMode.CAST_NONE, stepSize)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Cast(y_local_fp32, gx_local, aj.RoundMode.CAST_NONE, stepSize)
        aj.PipeBarrier(aj.PIPE_V)
        self.x_que.FreeTensor(x_local)
        self.gx_que.FreeTensor(gx_local)
        self.PrecisionComputeMeanShort(nums, z_local_fp32, x_local_fp32, y_local_fp32, mean_local)
        aj.PipeBarrier(aj.PIPE_V)
        self.mean_que_fp32.EnQue(mean_local)
        self.PrecisionComputeRstdShort(nums, z_local_fp32, x_local_fp32, y_local_fp32, rstd_local)
        aj.PipeBarrier(aj.PIPE_V)
        self.rstd_que_fp32.EnQue(rstd_local)
        aj.Cast(x_local_fp32, gamma_local, aj.RoundMode.CAST_NONE, self.num_last_dim)
        aj.Cast(y_local_fp32, beta_local, aj.RoundMode.CAST_NONE, self.num_last_dim)
        self.PrecisionComputeResultShort(nums, z_local_fp32, y_local_fp32, x_local_fp32)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Cast(z_local, z_local_fp32, out_round, stepSize)
        self.z_que.EnQue(z_local)

    def ComputeFp16Short(self, nums, beta_local, gamma_local):
        self._compute_16(nums, beta_local, gamma_local, aj.RoundMode.CAST_NONE)

    def ComputeBf16Short(self, nums, beta_local, gamma_local):
        self._compute_16(nums, beta_local, gamma_local, aj.RoundMode.CAST_RINT)

    def PrecisionComputeMeanShort(self, nums, z_local, x_local, gx_local, mean_local):
        realLen = self.ROUND_UP(self.num_last_dim)
        stepSize = nums * realLen
        aj.Axpy(gx_local, x_local, self.alphaVal, stepSize)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(z_local, gx_local, np.float32(1.0), stepSize)
        aj.PipeBarrier(aj.PIPE_V)
        self.ReduceSumShort(mean_local, z_local, x_local, realLen, nums)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(mean_local, mean_local, self.meanNum, nums)
        aj.PipeBarrier(aj.PIPE_V)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        for idx in range(nums - 1, -1, -1):
            offset = idx * realLen
            meanTmp = np.float32(mean_local.GetValue(idx))
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
            aj.Adds(z_local[offset], gx_local[offset], np.float32(meanTmp * np.float32(-1)), self.num_last_dim)
        aj.PipeBarrier(aj.PIPE_V)

    def PrecisionComputeRstdShort(self, nums, z_local, x_local, gx_local, rstd_local):
        realLen = self.ROUND_UP(self.num_last_dim)
        stepSize = nums * realLen
        aj.Mul(gx_local, z_local, z_local, stepSize)
        aj.PipeBarrier(aj.PIPE_V)
        self.ReduceSumShort(rstd_local, gx_local, x_local, realLen, nums)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(rstd_local, rstd_local, self.meanNum, nums)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Adds(rstd_local, rstd_local, self.eps, nums)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Sqrt(rstd_local, rstd_local, nums)
        aj.Duplicate(x_local, np.float32(1), nums)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Div(rstd_local, x_local, rstd_local, nums)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        for idx in range(nums - 1, -1, -1):
            offset = idx * realLen
            rstdTmp = np.float32(rstd_local.GetValue(idx))
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
            aj.Muls(z_local[offset], z_local[offset], rstdTmp, self.num_last_dim)
        aj.PipeBarrier(aj.PIPE_V)

    def PrecisionComputeResultShort(self, nums, z_local, beta_local, gamma_local):
        realLen = self.ROUND_UP(self.num_last_dim)
        repeatStride = realLen // FLOAT_BLOCK
        betaIter, betaTail = REPEAT_MAX, self.num_last_dim % REPEAT_MAX
        params = aj.BinaryRepeatParams(1, 1, 1, repeatStride, repeatStride, 0)
        aj.PipeBarrier(aj.PIPE_V)
        index = 0
        while index + betaIter <= self.num_last_dim:
            aj.Mul(z_local[index], z_local[index], gamma_local[index], betaIter, nums, params)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Add(z_local[index], z_local[index], beta_local[index], betaIter, nums, params)
            index += betaIter
        if betaTail != 0:
            aj.Mul(z_local[index], z_local[index], gamma_local[index], betaTail, nums, params)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Add(z_local[index], z_local[index], beta_local[index], betaTail, nums, params)

    def CopyOut(self, proc_id, repeatTimes, length):
        z = self.z_que.DeQue(self.T)
        mean, rstd = self.mean_que_fp32.DeQue("float"), self.rstd_que_fp32.DeQue("float")
        offset = proc_id * self.row_step * self.num_last_dim
        if not _is_220():
            self._copy_out_rows(z, offset, repeatTimes, length)
            self.z_que.FreeTensor(z)
            self.mean_que_fp32.FreeTensor(mean)
            self.rstd_que_fp32.FreeTensor(rstd)
            return
        offset2 = proc_id * self.row_step
        copyParams = aj.DataCopyParams()
        copyParams.blockLen = repeatTimes * 4
        copyParams.blockCount = 1
        aj.DataCopyPad(self.mean_gm[offset2], mean, copyParams)
        aj.DataCopyPad(self.rstd_gm[offset2], rstd, copyParams)
        copyOutput = aj.DataCopyParams()
        copyOutput.blockCount = repeatTimes
        copyOutput.blockLen = length * self.databyte
        copyOutput.srcStride = 0
        copyOutput.dstStride = 0
        aj.DataCopyPad(self.z_gm[offset], z, copyOutput)
        self.z_que.FreeTensor(z)
        self.mean_que_fp32.FreeTensor(mean)
        self.rstd_que_fp32.FreeTensor(rstd)

    def _copy_out_rows(self, z, offset, repeatTimes, length):
        """CopyOut's non-220 branch: per row the whole 32-byte blocks by DataCopy, then (a row not whole blocks) the
        row's last 32 bytes moved by the scalar unit to the row's start and copied to the row's end; mean and rstd
        are not copied out (nor is anything when a row is shorter than a block: the loop breaks)."""
        blockNum, tail = divmod(length, self.blockNumEl)
        blkLength = blockNum * self.blockNumEl
        ru = self.ROUND_UP(length)
        for idx in range(repeatTimes):
            curOffset = offset + idx * length
            if blockNum == 0:
                break
            aj.DataCopy(self.z_gm[curOffset], z[idx * ru], blkLength)
            if tail != 0:
                aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_S)
                aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_S)
                for i in range(self.blockNumEl):
                    tensorValue = z.GetValue(idx * ru + length - self.blockNumEl + i)
                    z.SetValue(idx * ru + i, tensorValue)
                aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_MTE3)
                aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_MTE3)
                aj.DataCopy(self.z_gm[curOffset + length - self.blockNumEl], z[idx * ru], self.blockNumEl)


aj.REGISTER_TILING_DEFAULT(DeepNormTilingData)

_SHORT_KEYS = {16: "bfloat16", 17: "half", 18: "float"}


def deep_norm(x, gx, beta, gamma, mean, rstd, y, workspace, tiling_bytes, TILING_KEY):
    """The kernel entry; TILING_KEY stands for the launch's key (only the D <= 500 keys are ported)."""
    t = aj.GET_TILING_DATA(tiling_bytes)
    if TILING_KEY not in _SHORT_KEYS:
        raise NotImplementedError(f"DeepNorm: tiling key {TILING_KEY} (D > 500) is not ported")
    op = KernelDeepNorm(_SHORT_KEYS[TILING_KEY])
    op.InitShort(x, gx, beta, gamma, mean, rstd, y, int(t.num_core), int(t.num_last_dim), int(t.num_first_dim),
                 int(t.nl_firstdim_per_core), int(t.l_firstdim_per_core), int(t.first_dim_per_times),
                 int(t.updated_last_dim), int(t.updated_last_times), int(t.eps_str), int(t.ave_str),
                 int(t.alpha_str))
    op.ProcessShort()


def _dtype_name(a):
    return next(k for k, v in _NP.items() if np.dtype(v) == a.dtype)


def run_deep_norm(device, inputs, alpha=ALPHA, eps=EPSILON):
    x = inputs["x"]
    rows, cols = x.shape
    dtype = _dtype_name(x)
    key, block_dim, tiling_bytes = tiling(device, rows, cols, dtype, alpha, eps)
    mean, rstd = np.zeros(rows, np.float32), np.zeros(rows, np.float32)
    y = np.zeros(x.size, x.dtype)
    workspace = np.zeros(32, np.uint8)           # the tiling asks for 1 byte; the kernel reads none
    # the 310P's DataCopy rows (and beta / gamma) read up to a 32-byte block past the row: GM padded so that the
    # last row's read stays inside (a device allocation is so rounded; the bytes never reach an output)
    pad = -(-cols * x.itemsize // 32) * 32 // x.itemsize - cols
    flat = [np.concatenate([a.reshape(-1), np.zeros(pad, x.dtype)]) for a in
            (x, inputs["gx"], inputs["beta"], inputs["gamma"])]
    aj.launch(deep_norm, block_dim, device, *flat, mean, rstd, y, workspace, tiling_bytes, key)
    return {"mean": mean, "rstd": rstd, "y": y.reshape(x.shape)}


def _fma_f32(a, b, c):
    """float32 of the exact a * b + c (a, b, c float32 arrays): the product is exact in float64; TwoSum gives the
    float64 sum's error, which decides the one case where rounding the float64 sum again would round twice (the sum
    exactly halfway between two float32s)."""
    p = a.astype(np.float64) * b.astype(np.float64)
    c = c.astype(np.float64)
    s = p + c
    bb = s - p
    e = (p - (s - bb)) + (c - bb)
    r = s.astype(np.float32)
    lo = np.where(r.astype(np.float64) > s, np.nextafter(r, np.float32(-np.inf)), r)
    hi = np.nextafter(lo, np.float32(np.inf))
    mid = (lo.astype(np.float64) + hi.astype(np.float64)) / 2
    tie = (s == mid) & (e != 0)
    return np.where(tie, np.where(e > 0, hi, lo), r).astype(np.float32)


def _pair8(v):
    """BlockReduceSum's adjacent-pair tree over the last axis of 8 (SPEC-2 8.2), float32 adds."""
    a = (v[..., 0::2] + v[..., 1::2]).astype(np.float32)
    a = (a[..., 0::2] + a[..., 1::2]).astype(np.float32)
    return (a[..., 0] + a[..., 1]).astype(np.float32)


def _row_sums(v):
    """ReduceSumShort: eight running float32 sums a row (column j of every 8, the tail's columns last), then the
    pair tree over the eight."""
    rows, cols = v.shape
    acc = np.zeros((rows, 8), np.float32)
    for start in range(0, cols, 8):
        part = v[:, start:start + 8]
        acc[:, :part.shape[1]] = (acc[:, :part.shape[1]] + part).astype(np.float32)
    return _pair8(acc)


def expected_deep_norm(inputs, alpha=ALPHA, eps=EPSILON, device="atlas-a2"):
    """The sequence's results; on the 310P (the non-220 build) mean and rstd stay as the host left them (zeros) and
    rows shorter than a 32-byte block are not written either."""
    x, gx = inputs["x"].astype(np.float32), inputs["gx"].astype(np.float32)
    gamma, beta = inputs["gamma"].astype(np.float32), inputs["beta"].astype(np.float32)
    cols = x.shape[1]
    ave = np.float32(1.0 / cols)
    z = _fma_f32(x, np.full_like(x, np.float32(alpha)), gx)
    mean = (_row_sums(z) * ave).astype(np.float32)
    d = (z + (-mean)[:, None]).astype(np.float32)
    var = (_row_sums((d * d).astype(np.float32)) * ave).astype(np.float32)
    rstd = (np.float32(1) / np.sqrt((var + np.float32(eps)).astype(np.float32))).astype(np.float32)
    y = (d * rstd[:, None]).astype(np.float32)
    y = ((y * gamma).astype(np.float32) + beta).astype(np.float32)
    y = y.astype(inputs["x"].dtype)
    if aj.get_device(device).arch != 2201:
        mean, rstd = np.zeros_like(mean), np.zeros_like(rstd)
        if cols * y.itemsize < 32:
            y = np.zeros_like(y)
    return {"mean": mean, "rstd": rstd, "y": y}


# name -> (dtype, D)
CASES = {"deep_norm": ("float", 200), "deep_norm_half": ("half", 100), "deep_norm_bf16": ("bfloat16", 333)}


def _make_inputs(name):
    dtype, cols = CASES[name]

    def make_inputs(size, seed):
        rows = max(1, size // cols)
        rng = np.random.default_rng(seed)
        x = (rng.standard_normal((rows, cols)) * rng.uniform(0.5, 3, (rows, 1))).astype(np.float32)
        gx = (rng.standard_normal((rows, cols)) + rng.uniform(-2, 2, (rows, 1))).astype(np.float32)
        return {"x": x.astype(_NP[dtype]), "gx": gx.astype(_NP[dtype]),
                "beta": rng.uniform(-0.5, 0.5, cols).astype(np.float32).astype(_NP[dtype]),
                "gamma": rng.uniform(0.5, 1.5, cols).astype(np.float32).astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return run_deep_norm(device, inputs)


def _expected(device, inputs):
    return expected_deep_norm(inputs, device=device)


def _size_ok(name):
    cols = CASES[name][1]
    return lambda n: cols <= n <= 1 << 22 and n % cols == 0


_SOURCE = "hicann/ops-nn@e5c3fa93 norm/deep_norm/op_kernel/deep_norm.cpp"


def _spec(name, rows, description):
    dtype, cols = CASES[name]
    return KernelSpec(name, description, _make_inputs(name), _run, _expected, default_size=rows * cols,
                      devices=DEVICES[dtype], size_rule=f"a multiple of {cols} (rows of {cols}), up to 4Mi elements",
                      size_ok=_size_ok(name), source=_SOURCE)


KERNELS = [
    _spec("deep_norm", 1000, "ops-nn DeepNorm, D <= 500 kernel, float rows of 200: Axpy, row sums by high-dim Adds "
          "(src1 repeat stride a row) into 8 lanes a row and BlockReduceSum, per-row GetValue / Adds / Muls after "
          "V_S / S_V flags, Sqrt, Div, high-dim Mul / Add of gamma and beta (src1 repeat stride 0), multi-row "
          "DataCopyPad with right padding"),
    _spec("deep_norm_half", 600, "ops-nn DeepNorm short kernel, half rows of 100 (Cast to float TBufs, Cast back "
          "CAST_NONE)"),
    _spec("deep_norm_bf16", 90, "ops-nn DeepNorm short kernel, bfloat16 rows of 333 (Cast back CAST_RINT; a "
          "column tail of 5 and a 64-column tail of 13)"),
]
