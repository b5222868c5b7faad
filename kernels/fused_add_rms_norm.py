"""FusedAddRmsNorm from the CANN NN operators, its merge-N kernel (many short rows a tile): x = x1 + x2 (an output
too), rstd = 1 / sqrt(mean(x**2) + eps) per row in float (an output), y = x * rstd * gamma.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/norm/fused_add_rms_norm/op_kernel/
fused_add_rms_norm_merge_n.h (`KernelFusedAddRmsNormMergeN<T>`: Process / MainCompute / CopyInX / ComputeX /
CopyOutX / ComputeRstd / CopyOutRstd / ComputeY / CopyOutY / repeatByRow / mulRepeat) with its helpers:
norm/rms_norm/op_kernel/rms_norm_base.h (`DataCopyCustom`, the A2/A3 path: DataCopyPad of `rows` blocks of a row's
bytes each, the UB rows padded to whole DataBlocks) and experimental/norm/norm_common/op_kernel/reduce_common.h
(`ReduceSumMultiN`: the rows' squares folded into a 64-float work row per row by high-dim Adds, mask 64 and one
with the row's tail mask, src0 repeat stride a padded row, then `AscendCUtils::SetMask<float>(64)` and one
WholeReduceSum with isSetMask false and repeatTime = rows). rstd: Adds eps, Sqrt, Duplicate 1, Div; y: Brcb of rstd
into a DataBlock a row, then per 64 floats a Mul with src1BlkStride 0 and src1RepStride 1 (the row's rstd block), a
Cast CAST_NONE (half), and per 128 halves a Mul by gamma with src1RepStride 0; PipeBarrier<PIPE_V> where the original
has them. The tiling is norm/add_rms_norm/op_host/add_rms_norm_tiling.cpp's MODE_MERGE_N (rowFactor = (UB - 1024) /
(numColAlign * 24 or 18 + 260), mulLoop / mulTail / dstRepStride per dtype): the experimental operator's own host
code only selects its general kernel.

Deviations: (1) the original reads x after CopyOutX's FreeTensor and rstd after CopyOutRstd's FreeTensor (the
device keeps the bytes until the queue's next AllocTensor); a freed tensor is refused here (docs/decisions.md "Freed
handles stay dead"), so the port frees both after ComputeY. (2) The original's Brcb runs `rows` repeats, reading
8 * rows rstd floats, past the rstd tensor (SPEC-2 5.2 refuses it); the port runs ceil(rows / 8) repeats: the same
DataBlocks for the rows the Muls read; and, as the production AddRmsNorm merge-N kernel (norm/add_rms_norm/
op_kernel/add_rms_norm_merge_n.h) does before each tile, it zeroes the rstd tensor up to whole DataBlocks (a
Duplicate of rowFactor rounded up to 8 floats, which the 32-byte rounded queue buffer holds, docs/decisions.md
"Buffer lengths"), so the last repeat reads no uninitialised floats. (3) The core count is the launch's 8. The sizes keep rows whole DataBlocks
(200 floats, 208 halves): the original computes over each row's DataCopyPad padding, bytes nothing wrote.

Devices: the original's `__CCE_AICORE__ == 220` paths (DataCopyPad, the rstd queue): the A3 and A2.

Fidelity: MODELLED (Sqrt and Div are MODELLED, SPEC-2 0.3). Checked against float64: x = x1 + x2 rounded to T
(exact here); rstd within a few float ulps; y = x * rstd rounded to T (half: then times gamma, rounded again), so
within 2e-6 (float) and 2e-3 (half: two roundings of 2**-11 each and rstd's error) relative.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

NUM_PER_REP_FP32, NUM_PER_BLK_FP32, MOV_8 = 64, 8, 8
BUFFER_NUM, DOUBLE_BUFFER_NUM = 1, 2
UB_USED, FP32_WEIGHT, OTHER_WEIGHT, DIV_FACTOR = 1024, 24, 18, 260
CORE_NUM = 8
EPS = 1e-6
TYPE_SIZE = {"float": 4, "half": 2}
NP_TYPE = {"float": np.float32, "half": np.float16}
DEVICES = ("atlas-a3", "atlas-a2")


def tiling(device, num_row, num_col, dtype):
    """CalculateBlockParameters and DetermineModeParameters' MODE_MERGE_N: (block_dim, tiling data)."""
    ub = aj.get_device(device).ub_bytes - UB_USED
    block_factor = -(-num_row // CORE_NUM)
    used = -(-num_row // block_factor)
    last = num_row - block_factor * (used - 1)
    per_block = 32 // TYPE_SIZE[dtype]
    align = -(-num_col // per_block) * per_block
    row_factor = ub // (align * (FP32_WEIGHT if dtype == "float" else OTHER_WEIGHT) + DIV_FACTOR)
    row_loop, last_loop = -(-block_factor // row_factor), -(-last // row_factor)
    return used, dict(num_row=num_row, num_col=num_col, num_col_align=align, block_factor=block_factor,
                      last_block_factor=last, row_factor=row_factor, ub_factor=row_factor * align,
                      epsilon=np.float32(EPS), avg_factor=np.float32(1.0 / num_col),
                      mul_loop_fp32=align // 64, mul_tail_fp32=align % 64, dst_rep_stride_fp32=align // 8,
                      mul_loop_fp16=align // 128, mul_tail_fp16=align % 128, dst_rep_stride_fp16=align // 16,
                      row_loop=row_loop, row_tail=block_factor - (row_loop - 1) * row_factor,
                      last_block_row_loop=last_loop, last_block_row_tail=last - (last_loop - 1) * row_factor)


def ReduceSumMultiN(dst, src, tmp, num_row, num_col, num_col_align):
    """reduce_common.h: rows of up to 255 * 8 floats summed into dst[r] (num_row < 255: one PreRepeat pass)."""
    tail_count = num_col % NUM_PER_REP_FP32
    rep_stride = num_col_align // NUM_PER_BLK_FP32
    aj.Duplicate(tmp, np.float32(0.0), num_row * NUM_PER_REP_FP32)
    aj.PipeBarrier(aj.PIPE_V)
    params = aj.BinaryRepeatParams(1, 1, 1, NUM_PER_BLK_FP32, rep_stride, NUM_PER_BLK_FP32)
    elem = 0
    while elem + NUM_PER_REP_FP32 <= num_col:
        aj.Add(tmp, src[elem], tmp, NUM_PER_REP_FP32, num_row, params)
        aj.PipeBarrier(aj.PIPE_V)
        elem += NUM_PER_REP_FP32
    if tail_count != 0:
        aj.Add(tmp, src[elem], tmp, tail_count, num_row, params)
    aj.PipeBarrier(aj.PIPE_V)
    aj.SetVectorMask(NUM_PER_REP_FP32, dtype="float")                 # AscendCUtils::SetMask<float>(64)
    aj.WholeReduceSum(dst, tmp, aj.MASK_PLACEHOLDER, num_row, 1, 1, NUM_PER_BLK_FP32, is_set_mask=False)


def DataCopyCustom(dst, src, count, dtype, to_ub, rows=None):
    """rms_norm_base.h's A2/A3 DataCopyCustom: one block of `count` elements, or `rows` blocks of `count` each."""
    params = aj.DataCopyParams()
    params.blockLen = count * TYPE_SIZE[dtype]
    params.blockCount = 1 if rows is None else rows
    if to_ub:
        aj.DataCopyPad(dst, src, params, aj.DataCopyPadParams())
    else:
        aj.DataCopyPad(dst, src, params)


class KernelFusedAddRmsNormMergeN:
    def __init__(self, dtype, pipe):
        self.T, self.Ppipe = dtype, pipe

    def Init(self, x1, x2, gamma, y, rstd, x, t):
        self.numRow, self.numCol, self.numColAlign = t["num_row"], t["num_col"], t["num_col_align"]
        self.blockFactor, self.rowFactor, self.ubFactor = t["block_factor"], t["row_factor"], t["ub_factor"]
        self.epsilon, self.avgFactor = t["epsilon"], t["avg_factor"]
        self.blockIdx_ = aj.GetBlockIdx()
        if self.blockIdx_ < aj.GetBlockNum() - 1:
            self.rowWork, self.rowLoop, self.rowTail = self.blockFactor, t["row_loop"], t["row_tail"]
        else:
            self.rowWork, self.rowLoop, self.rowTail = (t["last_block_factor"], t["last_block_row_loop"],
                                                        t["last_block_row_tail"])
        start, n = self.blockIdx_ * self.blockFactor * self.numCol, self.rowWork * self.numCol
        self.x1Gm, self.x2Gm, self.gammaGm, self.yGm, self.rstdGm, self.xGm = (aj.GlobalTensor() for _ in range(6))
        self.x1Gm.SetGlobalBuffer(x1[start:], n)
        self.x2Gm.SetGlobalBuffer(x2[start:], n)
        self.gammaGm.SetGlobalBuffer(gamma, self.numCol)
        self.yGm.SetGlobalBuffer(y[start:], n)
        self.rstdGm.SetGlobalBuffer(rstd[self.blockIdx_ * self.blockFactor:], self.blockFactor)
        self.xGm.SetGlobalBuffer(x[start:], n)
        self.mulLoopFp32, self.mulTailFp32, self.dstRepStrideFp32 = (
            t["mul_loop_fp32"], t["mul_tail_fp32"], t["dst_rep_stride_fp32"])
        self.mulLoopFp16, self.mulTailFp16, self.dstRepStrideFp16 = (
            t["mul_loop_fp16"], t["mul_tail_fp16"], t["dst_rep_stride_fp16"])
        size = TYPE_SIZE[self.T]
        self.inQueueX = aj.TQue(aj.QuePosition.VECIN, DOUBLE_BUFFER_NUM)
        self.inQueueGamma = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, DOUBLE_BUFFER_NUM)
        self.outQueueRstd = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.xFp32Buf, self.sqxBuf, self.tmpBuf = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(3))
        self.Ppipe.InitBuffer(self.inQueueX, DOUBLE_BUFFER_NUM, self.ubFactor * size)
        self.Ppipe.InitBuffer(self.inQueueGamma, BUFFER_NUM, self.ubFactor * size)
        self.Ppipe.InitBuffer(self.outQueueY, DOUBLE_BUFFER_NUM, self.ubFactor * size)
        self.Ppipe.InitBuffer(self.outQueueRstd, BUFFER_NUM, self.rowFactor * 4)
        if self.T != "float":
            self.Ppipe.InitBuffer(self.xFp32Buf, self.ubFactor * 4)
        self.Ppipe.InitBuffer(self.sqxBuf, self.ubFactor * 4)
        self.Ppipe.InitBuffer(self.tmpBuf, self.rowFactor * NUM_PER_REP_FP32 * 4)

    def Process(self):
        self.CopyInGamma()
        gammaLocal = self.inQueueGamma.DeQue(self.T)
        for i_o in range(self.rowLoop - 1):
            self.MainCompute(i_o, self.rowFactor, gammaLocal)
        self.MainCompute(self.rowLoop - 1, self.rowTail, gammaLocal)
        self.inQueueGamma.FreeTensor(gammaLocal)

    def MainCompute(self, i_o, calc_row_num, gammaLocal):
        gm_bias = i_o * self.rowFactor * self.numCol
        elementNum = calc_row_num * self.numColAlign
        self.CopyInX(gm_bias, calc_row_num)
        xLocal = self.ComputeX(elementNum)
        self.CopyOutX(gm_bias, calc_row_num)
        rstdLocal = self.outQueueRstd.AllocTensor("float")
        aj.Duplicate(rstdLocal, np.float32(0.0), -(-self.rowFactor // 8) * 8)    # deviation (2)
        aj.PipeBarrier(aj.PIPE_V)
        self.ComputeRstd(xLocal, rstdLocal, calc_row_num, elementNum)
        self.outQueueRstd.EnQue(rstdLocal)
        self.CopyOutRstd(i_o, calc_row_num)
        self.ComputeY(xLocal, gammaLocal, rstdLocal, calc_row_num, elementNum)
        self.CopyOutY(gm_bias, calc_row_num)
        self.outQueueY.FreeTensor(xLocal)            # deviation (1): CopyOutX and CopyOutRstd free these
        self.outQueueRstd.FreeTensor(rstdLocal)

    def CopyInX(self, gm_bias, calc_row_num):
        for gm in (self.x1Gm, self.x2Gm):
            local = self.inQueueX.AllocTensor(self.T)
            DataCopyCustom(local, gm[gm_bias], self.numCol, self.T, True, calc_row_num)
            self.inQueueX.EnQue(local)

    def ComputeX(self, elementNum):
        x1Local, x2Local = self.inQueueX.DeQue(self.T), self.inQueueX.DeQue(self.T)
        xLocal = self.outQueueY.AllocTensor(self.T)
        aj.Add(xLocal, x1Local, x2Local, elementNum)
        self.inQueueX.FreeTensor(x1Local)
        self.inQueueX.FreeTensor(x2Local)
        self.outQueueY.EnQue(xLocal)
        aj.PipeBarrier(aj.PIPE_V)
        return xLocal

    def CopyOutX(self, gm_bias, calc_row_num):
        xOut = self.outQueueY.DeQue(self.T)
        DataCopyCustom(self.xGm[gm_bias], xOut, self.numCol, self.T, False, calc_row_num)

    def CopyInGamma(self):
        gammaLocal = self.inQueueGamma.AllocTensor(self.T)
        DataCopyCustom(gammaLocal, self.gammaGm, self.numCol, self.T, True)
        self.inQueueGamma.EnQue(gammaLocal)

    def ComputeRstd(self, xLocal, rstdLocal, calc_row_num, elementNum):
        sqx, tmpLocal = self.sqxBuf.Get("float"), self.tmpBuf.Get("float")
        if self.T != "float":
            x_fp32 = self.xFp32Buf.Get("float")
            aj.Cast(x_fp32, xLocal, aj.RoundMode.CAST_NONE, elementNum)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Mul(sqx, x_fp32, x_fp32, elementNum)
        else:
            aj.Mul(sqx, xLocal, xLocal, elementNum)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(sqx, sqx, self.avgFactor, elementNum)
        aj.PipeBarrier(aj.PIPE_V)
        ReduceSumMultiN(rstdLocal, sqx, tmpLocal, calc_row_num, self.numCol, self.numColAlign)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Adds(rstdLocal, rstdLocal, self.epsilon, calc_row_num)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Sqrt(rstdLocal, rstdLocal, calc_row_num)
        aj.Duplicate(tmpLocal, np.float32(1.0), calc_row_num)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Div(rstdLocal, tmpLocal, rstdLocal, calc_row_num)
        aj.PipeBarrier(aj.PIPE_V)

    def ComputeY(self, xLocal, gammaLocal, rstdLocal, calc_row_num, elementNum):
        tmpLocal = self.tmpBuf.Get("float")
        splid_row = 240
        loop1, tail1 = calc_row_num // splid_row, calc_row_num % splid_row
        for r_i in range(loop1):
            aj.Brcb(tmpLocal[r_i * splid_row * MOV_8], rstdLocal[r_i * splid_row], splid_row // 8,
                    aj.BrcbRepeatParams(1, 8))                          # deviation (2): splid_row repeats
        aj.PipeBarrier(aj.PIPE_V)
        if tail1 > 0:
            aj.Brcb(tmpLocal[loop1 * splid_row * MOV_8], rstdLocal[loop1 * splid_row], -(-tail1 // 8),
                    aj.BrcbRepeatParams(1, 8))                          # deviation (2): tail1 repeats
            aj.PipeBarrier(aj.PIPE_V)
        yLocal = self.outQueueY.AllocTensor(self.T)
        if self.T != "float":
            x_fp32 = self.xFp32Buf.Get("float")
            self.repeatByRow(x_fp32, x_fp32, tmpLocal, calc_row_num, 1)
            aj.Cast(yLocal, x_fp32, aj.RoundMode.CAST_NONE, elementNum)
        else:
            self.repeatByRow(yLocal, xLocal, tmpLocal, calc_row_num, 1)
        aj.PipeBarrier(aj.PIPE_V)
        if self.T == "half":
            self.repeatByRow(yLocal, yLocal, gammaLocal, calc_row_num, 2)
        else:
            self.repeatByRow(yLocal, yLocal, gammaLocal, calc_row_num, 3)
        aj.PipeBarrier(aj.PIPE_V)
        self.outQueueY.EnQue(yLocal)

    def CopyOutY(self, progress, calc_row_num):
        yLocal = self.outQueueY.DeQue(self.T)
        DataCopyCustom(self.yGm[progress], yLocal, self.numCol, self.T, False, calc_row_num)
        self.outQueueY.FreeTensor(yLocal)

    def CopyOutRstd(self, outer_progress, num):
        rstdLocal = self.outQueueRstd.DeQue("float")
        DataCopyCustom(self.rstdGm[outer_progress * self.rowFactor], rstdLocal, num, "float", False)

    def repeatByRow(self, dstLocal, src1Local, src2Local, calc_row_num, kind):
        """kind 1: times the row's rstd DataBlock; 2: times the half gamma row; 3: times the float gamma row."""
        params = [self.mulLoopFp32, self.mulTailFp32, 64, 1, self.dstRepStrideFp32, 0]
        if kind == 2:
            params[0], params[1], params[2], params[4] = self.mulLoopFp16, self.mulTailFp16, 128, self.dstRepStrideFp16
        elif kind == 1:
            params[3], params[5] = 0, 1
        single = 255
        loop, tail = calc_row_num // single, calc_row_num % single
        for r_i in range(loop):
            offset2 = r_i * single * MOV_8 if kind == 1 else 0
            self.mulRepeat(dstLocal[r_i * single * self.numColAlign], src1Local[r_i * single * self.numColAlign],
                           src2Local[offset2], single, params)
        if tail > 0:
            offset2 = loop * single * MOV_8 if kind == 1 else 0
            offset1 = loop * single * self.numColAlign
            self.mulRepeat(dstLocal[offset1], src1Local[offset1], src2Local[offset2], tail, params)

    def mulRepeat(self, dstLocal, src1Local, src2Local, calcRowNum, params):
        mulLoop, mulTail, strideNum, src1BlkStride, dstRepStride, src1RepStride = params
        repeat = aj.BinaryRepeatParams(1, 1, src1BlkStride, dstRepStride, dstRepStride, src1RepStride)
        for m_i in range(mulLoop):
            src2 = src2Local if src1BlkStride == 0 else src2Local[m_i * strideNum]
            aj.Mul(dstLocal[m_i * strideNum], src1Local[m_i * strideNum], src2, strideNum, calcRowNum, repeat)
        aj.PipeBarrier(aj.PIPE_V)
        if mulTail > 0:
            src2 = src2Local if src1BlkStride == 0 else src2Local[mulLoop * strideNum]
            aj.Mul(dstLocal[mulLoop * strideNum], src1Local[mulLoop * strideNum], src2, mulTail, calcRowNum, repeat)
        aj.PipeBarrier(aj.PIPE_V)


def fused_add_rms_norm(x1, x2, gamma, y, rstd, x, t, dtype):
    pipe = aj.TPipe()
    op = KernelFusedAddRmsNormMergeN(dtype, pipe)
    op.Init(x1, x2, gamma, y, rstd, x, t)
    op.Process()


def _make_inputs(dtype, num_col):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        rows = size // num_col
        return {"x1": rng.uniform(-1, 1, (rows, num_col)).astype(NP_TYPE[dtype]),
                "x2": rng.uniform(-1, 1, (rows, num_col)).astype(NP_TYPE[dtype]),
                "gamma": rng.uniform(0.5, 1.5, num_col).astype(NP_TYPE[dtype])}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x1, x2, gamma = inputs["x1"], inputs["x2"], inputs["gamma"]
        rows, cols = x1.shape
        used, t = tiling(device, rows, cols, dtype)
        y, x = np.zeros(rows * cols, x1.dtype), np.zeros(rows * cols, x1.dtype)
        rstd = np.zeros(-(-used * t["block_factor"] // 8) * 8, np.float32)   # every core's rstd window
        aj.launch(fused_add_rms_norm, used, device, x1.ravel(), x2.ravel(), gamma, y, rstd, x, t, dtype)
        return {"y": y.reshape(rows, cols), "rstd": rstd[:rows], "x": x.reshape(rows, cols)}
    return run


def _expected(dtype):
    def expected(device, inputs):
        x = (inputs["x1"].astype(np.float64) + inputs["x2"].astype(np.float64)).astype(NP_TYPE[dtype])
        xf = x.astype(np.float64)
        rstd = 1.0 / np.sqrt((xf * xf).mean(axis=1) + EPS)
        y = xf * rstd[:, None]
        if dtype == "half":
            y = y.astype(np.float16).astype(np.float64)
        return {"y": y * inputs["gamma"].astype(np.float64), "rstd": rstd, "x": x}
    return expected


_SOURCE = ("hicann/ops-nn@e5c3fa93 experimental/norm/fused_add_rms_norm/op_kernel/fused_add_rms_norm_merge_n.h")
KERNELS = [
    KernelSpec(f"fused_add_rms_norm{suffix}", description, _make_inputs(dtype, cols), _run(dtype), _expected(dtype),
               default_size=64 * cols, devices=DEVICES, tolerance=tolerance, source=_SOURCE,
               size_rule=f"a multiple of {cols}, at least 9 rows (a core has 2)",
               size_ok=lambda n, cols=cols: n % cols == 0 and n // cols >= 9)
    for suffix, dtype, cols, tolerance, description in (
        ("", "float", 200, 2e-6, "FusedAddRmsNorm merge-N over float rows of 200 (ReduceSumMultiN: high-dim Adds "
         "with a padded-row src0 stride and a tail mask, WholeReduceSum with isSetMask false over the rows; Brcb of "
         "rstd and Muls broadcasting it by src1BlkStride 0; gamma by src1RepStride 0)"),
        ("_half", "half", 208, 2e-3, "the same over half rows of 208 (Cast to float for the squares and x * rstd, "
         "Cast back, half Muls by gamma in 128-lane steps)"),
    )
]
