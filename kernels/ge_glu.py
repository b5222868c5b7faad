"""GeGluV2 (tanh approximation) from a CANN operator collection: x of shape (rows, 2 * ny) split in halves x1 | x2
along the last axis; gelu = x2 / (1 + exp(-alpha * (x2 + beta * x2**3))) and y = gelu * x1, both of shape (rows,
ny); rows spread over the cores, groups of rows a tile.

Ported (structure and instruction sequence; written in our own words) from
Hayden727/cann-ops @ fd1e257cee42a8ba666e864860cbe5f37100a2a3, src/activation/ge_glu_v2/op_kernel/ge_glu_v2_base.h
(`GeGluV2Base<T>`: BaseInit, CopyInXAlign, CopyOutMulBase / CopyOutGeluBase, ComputeGeluBase, CopyInXVreduce,
ComputeFp32VReduce, the Vreduce copy-outs) with tanh/ge_glu_v2_fp32_align.h (tiling key 301) and
tanh/ge_glu_v2_fp32_vreduce.h (key 302), and the host tiling of src/activation/ge_glu_v2/op_host/ge_glu_v2.cpp
(`GetFp32TilingData`, `GetTilingDataSmall`: 6144-float buffers, groups of rows a tile, numPerCore rows a core, the
last core's rows in `tailLoopNum` tiles and a `lastTailGroup`):
- `ge_glu` (ny = 100, key 301): each half's rows copied in by one DataCopyPad with the older structs (blockCount =
  rows, blockLen and srcStride = 400 bytes: the other half skipped) and `DataCopyPadParams{isPad = true,
  rightPadding = 4, paddingValue = 1}` (the pad floats hold the bits 1, decisions.md "The older DataCopyPad
  prototype"), gelu over the padded rows, the gelu tile copied out (DataCopyPad, 100 floats a row) and queued again
  for the Mul with x1 (CopyOutGelu's DeQue / EnQue), then y copied out;
- `ge_glu_aligned` (ny = 128, key 301): the rows copied by DataCopy with DataCopyParams in 32-byte blocks
  (blockLen = srcStride = 16 blocks) and out by DataCopy;
- `ge_glu_vreduce` (ny = 1, key 302): each tile's [x1, x2] pairs copied in by one DataCopyPad and split by two
  GatherMasks with the built-in patterns 1 (even elements: x1) and 2 (odd: x2).
Not ported: key 303 (ny over 6144), the half/bf16 and erf variants (the same structure with Casts), the 310P build.

Deviation: the vector core count is the launch's 8 (GetCoreNumAiv gives the device's AIV count).

A second deviation (`ge_glu_vreduce`): the original's GatherMasks read whole 64-float repeats; when a tile's pairs
are not a multiple of 32 (the gallery's tail size) the last repeat gathers floats the tile never copied in
(uninitialised UB at the queue buffer's first use), into lanes past the tile's results that nothing reads or copies
out. The port zeroes those floats (from the copy's last 32-byte block to the last repeat's end) with a Duplicate
before such a tile's copy-in, so the sanitizer has nothing to report; the results are the original's.

Devices: DataCopyPad is not offered on the 310P and the 910 (SPEC-2 1.9): the kernels run on the 950, A3, A2 and
310B.

Fidelity: MODELLED (Exp and Div are MODELLED, SPEC-2 0.3). Checked against the float64 formula with the kernel's
float32 constants (alpha 1.5957691, beta 0.044715) for x in [-4, 4]: the cubic and its scalings round a few times
(relative 4e-7 on the exponent t, |t| <= 11.3), so exp carries 5e-6 relative error at worst, plus Exp's own, the
Adds, Div and the Mul with x1: 2e-5 relative.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BLOCK_BYTES = 32
BLOCK_SIZE = 8                 # floats a 32-byte block
REPEAT_FLOATS = 64             # floats a 256-byte repeat (GatherMask's unit)
BUFFER_SIZE = 6144             # floats a tile buffer (FP32_BUFFER_SIZE_SMALL / _VREDUCE_TANH)
CORE_NUM = 8
NEGATIVE_ONE, SCALAR_ZERO, SCALAR_ONE = np.float32(-1.0), np.float32(0.0), np.float32(1.0)
BETA, ALPHA = np.float32(0.044715), np.float32(1.5957691)
EVEN, ODD = 1, 2               # GatherMask's built-in patterns


def tiling(rows, ny):
    """GetFp32TilingData / GetTilingDataSmall (approximate = 1, activateLeft = false): the tiling data."""
    is_vreduce = ny == 1
    if is_vreduce or ny % BLOCK_SIZE == 0:
        group = BUFFER_SIZE // ny
    else:
        group = BUFFER_SIZE // (-(-ny // BLOCK_SIZE) * BLOCK_SIZE)
    num_per_core = -(-rows // CORE_NUM)
    real_core_num = -(-rows // num_per_core)
    t = dict(splitSize=ny, group=group, numPerCore=num_per_core, loopNum=num_per_core // group,
             nLastTailGroup=num_per_core % group, realCoreNum=real_core_num, tailLoopNum=0, lastTailGroup=0,
             blockSize=BLOCK_SIZE, activateLeft=0, ny=ny, tilingKey=302 if is_vreduce else 301)
    if rows % real_core_num:
        tail_total = rows - num_per_core * (real_core_num - 1)
        t.update(tailLoopNum=tail_total // group, lastTailGroup=tail_total % group)
    return t


class GeGluV2Base:
    def BaseInit(self, x, y, gelu, tilingData, isVreduce=False):
        self.blockIdx = aj.GetBlockIdx()
        self.m_tilingData = t = dict(tilingData)
        self.gmXOffset = self.blockIdx * t["numPerCore"] * t["splitSize"] * 2
        self.gmDYOffset = self.blockIdx * t["numPerCore"] * t["splitSize"]
        self.xGm, self.yMulGm, self.yGeluGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x)
        self.yMulGm.SetGlobalBuffer(y)
        self.yGeluGm.SetGlobalBuffer(gelu)
        if t["splitSize"] % t["blockSize"] == 0 or isVreduce:
            split = t["splitSize"]
        else:
            split = (t["splitSize"] + t["blockSize"] - 1) // t["blockSize"] * t["blockSize"]
        self.group_ub_num = t["group"] * split
        self.nlast_tail_ub_num = t["nLastTailGroup"] * split
        self.last_tail_ub_num = t["lastTailGroup"] * split
        self.one_process_in_stride = t["group"] * t["splitSize"] * 2
        self.one_process_out_stride = t["group"] * t["splitSize"]
        self.x1_stride, self.x2_stride = 0, 0
        self.vreduce_srcPattern_x1, self.vreduce_srcPattern_x2 = EVEN, ODD
        if t["activateLeft"] == 1:
            self.x1_stride = t["splitSize"]
            self.vreduce_srcPattern_x1, self.vreduce_srcPattern_x2 = ODD, EVEN
        else:
            self.x2_stride = t["splitSize"]
        self.isLastCore = (self.blockIdx == t["realCoreNum"] - 1 and
                           (t["tailLoopNum"] != 0 or t["lastTailGroup"] != 0))

    def CopyInXAlign(self, index, group, ubX1, ubX2):
        t = self.m_tilingData
        intriParams = aj.DataCopyParams()
        intriParams.blockCount = group
        intriParams.dstStride = 0
        at = self.gmXOffset + index * self.one_process_in_stride
        if t["splitSize"] % t["blockSize"] == 0:      # align case
            intriParams.blockLen = t["splitSize"] // t["blockSize"]
            intriParams.srcStride = t["splitSize"] // t["blockSize"]
            aj.DataCopy(ubX1, self.xGm[at + self.x1_stride], intriParams)
            aj.DataCopy(ubX2, self.xGm[at + self.x2_stride], intriParams)
        else:                                          # not align case
            intriParams.blockLen = t["splitSize"] * 4
            intriParams.srcStride = t["splitSize"] * 4
            intriPadParams = aj.DataCopyPadParams()
            intriPadParams.isPad = True
            intriPadParams.leftPadding = 0
            intriPadParams.rightPadding = BLOCK_BYTES // 4 - t["splitSize"] % t["blockSize"]
            intriPadParams.paddingValue = 1
            aj.DataCopyPad(ubX1, self.xGm[at + self.x1_stride], intriParams, intriPadParams)
            aj.DataCopyPad(ubX2, self.xGm[at + self.x2_stride], intriParams, intriPadParams)

    def _copy_out_base(self, gm, index, ub_num, group, outLocal):
        t = self.m_tilingData
        at = self.gmDYOffset + index * self.one_process_out_stride
        if t["splitSize"] % t["blockSize"] == 0:
            aj.DataCopy(gm[at], outLocal, ub_num)
        else:
            intriParams = aj.DataCopyParams()
            intriParams.blockCount = group
            intriParams.dstStride = 0
            intriParams.srcStride = 0
            intriParams.blockLen = t["splitSize"] * 4
            aj.DataCopyPad(gm[at], outLocal, intriParams)

    def CopyOutMulBase(self, index, ub_num, group, outLocal):
        self._copy_out_base(self.yMulGm, index, ub_num, group, outLocal)

    def CopyOutGeluBase(self, index, ub_num, group, outLocal):
        self._copy_out_base(self.yGeluGm, index, ub_num, group, outLocal)

    def ComputeGeluBase(self, ubx2_fp32, tmpBuf, ub_num):
        # 2 * sqrt(2 / pi) * (x + 0.044715 * x**3)
        aj.Mul(tmpBuf, ubx2_fp32, ubx2_fp32, ub_num)
        aj.Mul(tmpBuf, ubx2_fp32, tmpBuf, ub_num)
        aj.Muls(tmpBuf, tmpBuf, BETA, ub_num)
        aj.Add(tmpBuf, ubx2_fp32, tmpBuf, ub_num)
        aj.Muls(tmpBuf, tmpBuf, ALPHA, ub_num)
        # x / (1 + exp(-t)) = x * 0.5 * (1 + tanh(t / 2))
        aj.Muls(tmpBuf, tmpBuf, NEGATIVE_ONE, ub_num)
        aj.Exp(tmpBuf, tmpBuf, ub_num)
        aj.Adds(tmpBuf, tmpBuf, SCALAR_ONE, ub_num)
        aj.Div(tmpBuf, ubx2_fp32, tmpBuf, ub_num)

    def CopyInXVreduce(self, index, blockCount, ubX):
        intriParams = aj.DataCopyParams()
        intriParams.blockCount = 1
        intriParams.dstStride = 0
        intriParams.srcStride = 0
        intriParams.blockLen = blockCount * self.m_tilingData["splitSize"] * 2 * 4
        intriPadParams = aj.DataCopyPadParams()
        intriPadParams.isPad = False
        aj.DataCopyPad(ubX, self.xGm[self.gmXOffset + index * self.one_process_in_stride], intriParams,
                       intriPadParams)

    def ComputeFp32VReduce(self, ubX1, ubX2, ubX, ub_num):
        repeat = (ub_num * 2 + 63) // 64
        aj.GatherMask(ubX1, ubX, self.vreduce_srcPattern_x1, False, 0, (1, repeat, 8, 0))
        aj.GatherMask(ubX2, ubX, self.vreduce_srcPattern_x2, False, 0, (1, repeat, 8, 0))

    def _copy_out_vreduce(self, gm, index, ub_num, outLocal):
        intriParams = aj.DataCopyParams()
        intriParams.blockCount = 1
        intriParams.dstStride = 0
        intriParams.srcStride = 0
        intriParams.blockLen = ub_num * 4
        aj.DataCopyPad(gm[self.gmDYOffset + index * self.one_process_out_stride], outLocal, intriParams)

    def Process(self):
        t = self.m_tilingData
        if self.blockIdx >= t["realCoreNum"]:
            return
        if self.isLastCore:
            loops, tail, tail_ub_num = t["tailLoopNum"], t["lastTailGroup"], self.last_tail_ub_num
        else:
            loops, tail, tail_ub_num = t["loopNum"], t["nLastTailGroup"], self.nlast_tail_ub_num
        for idx in range(loops):
            self.ProcessGroup(idx, t["group"], self.group_ub_num)
        if tail > 0:
            self.ProcessGroup(loops, tail, tail_ub_num)


class GeGluV2Fp32Align(GeGluV2Base):
    """Tiling key 301 (ProcessPerCore / ProcessLastCore: one walk over the core's groups of rows)."""
    bufferNum = 2

    def Init(self, x, y, gelu, tilingData):
        self.BaseInit(x, y, gelu, tilingData)
        self.pipe = aj.TPipe()
        self.inQueueX1 = aj.TQue(aj.QuePosition.VECIN, self.bufferNum)
        self.inQueueX2 = aj.TQue(aj.QuePosition.VECIN, self.bufferNum)
        self.outQueueGelu = aj.TQue(aj.QuePosition.VECOUT, self.bufferNum)
        self.outQueueMul = aj.TQue(aj.QuePosition.VECOUT, self.bufferNum)
        self.resultTempBuf1 = aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueX1, self.bufferNum, BUFFER_SIZE * 4)
        self.pipe.InitBuffer(self.inQueueX2, self.bufferNum, BUFFER_SIZE * 4)
        self.pipe.InitBuffer(self.outQueueGelu, 1, BUFFER_SIZE * 4)
        self.pipe.InitBuffer(self.outQueueMul, 1, BUFFER_SIZE * 4)
        self.pipe.InitBuffer(self.resultTempBuf1, BUFFER_SIZE * 4)

    def ProcessGroup(self, idx, group, ub_num):
        self.CopyInX(idx, group)
        self.ComputeGelu(ub_num)
        self.CopyOutGelu(idx, ub_num, group)
        self.ComputeMul(ub_num)
        self.CopyOutMul(idx, ub_num, group)

    def CopyInX(self, index, blockCount):
        ubX1, ubX2 = self.inQueueX1.AllocTensor("float"), self.inQueueX2.AllocTensor("float")
        self.CopyInXAlign(index, blockCount, ubX1, ubX2)
        self.inQueueX1.EnQue(ubX1)
        self.inQueueX2.EnQue(ubX2)

    def ComputeGelu(self, ub_num):
        ubx2_fp32 = self.inQueueX2.DeQue("float")
        gelu_out = self.outQueueGelu.AllocTensor("float")
        self.ComputeGeluBase(ubx2_fp32, gelu_out, ub_num)
        self.inQueueX2.FreeTensor(ubx2_fp32)
        self.outQueueGelu.EnQue(gelu_out)

    def ComputeMul(self, ub_num):
        ubX1 = self.inQueueX1.DeQue("float")
        gelu_out = self.outQueueGelu.DeQue("float")
        mul_out = self.outQueueMul.AllocTensor("float")
        aj.PipeBarrier(aj.PIPE_V)
        aj.Mul(mul_out, gelu_out, ubX1, ub_num)
        self.outQueueMul.EnQue(mul_out)
        self.outQueueGelu.FreeTensor(gelu_out)
        self.inQueueX1.FreeTensor(ubX1)

    def CopyOutGelu(self, index, ub_num, group):
        outLocalGelu = self.outQueueGelu.DeQue("float")
        self.CopyOutGeluBase(index, ub_num, group, outLocalGelu)
        self.outQueueGelu.EnQue(outLocalGelu)       # queued again: ComputeMul reads it

    def CopyOutMul(self, index, ub_num, group):
        outLocalMul = self.outQueueMul.DeQue("float")
        self.CopyOutMulBase(index, ub_num, group, outLocalMul)
        self.outQueueMul.FreeTensor(outLocalMul)


class GeGluV2Fp32VReduce(GeGluV2Base):
    """Tiling key 302 (ny = 1: the halves interleaved, split by GatherMask)."""
    bufferNum = 2

    def Init(self, x, y, gelu, tilingData):
        self.BaseInit(x, y, gelu, tilingData, isVreduce=True)
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.QuePosition.VECIN, self.bufferNum)
        self.outQueueGelu = aj.TQue(aj.QuePosition.VECOUT, self.bufferNum)
        self.outQueueMul = aj.TQue(aj.QuePosition.VECOUT, self.bufferNum)
        self.resultTempBuf3, self.resultTempBuf4 = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueX, self.bufferNum, 2 * BUFFER_SIZE * 4)
        self.pipe.InitBuffer(self.outQueueGelu, 1, BUFFER_SIZE * 4)
        self.pipe.InitBuffer(self.outQueueMul, 1, BUFFER_SIZE * 4)
        self.pipe.InitBuffer(self.resultTempBuf3, BUFFER_SIZE * 4)
        self.pipe.InitBuffer(self.resultTempBuf4, BUFFER_SIZE * 4)

    def ProcessGroup(self, idx, group, ub_num):
        ubX = self.inQueueX.AllocTensor("float")
        self.ZeroGatheredTail(group, ubX)
        self.CopyInXVreduce(idx, group, ubX)
        self.inQueueX.EnQue(ubX)
        self.ComputeGeluAndMul(ub_num)
        outLocalGelu = self.outQueueGelu.DeQue("float")
        self._copy_out_vreduce(self.yGeluGm, idx, ub_num, outLocalGelu)
        self.outQueueGelu.FreeTensor(outLocalGelu)
        outLocalMul = self.outQueueMul.DeQue("float")
        self._copy_out_vreduce(self.yMulGm, idx, ub_num, outLocalMul)
        self.outQueueMul.FreeTensor(outLocalMul)

    def ZeroGatheredTail(self, blockCount, ubX):
        """Not in the original (see the docstring): ComputeFp32VReduce gathers whole repeats, so the floats between
        the copy's last 32-byte block and the last repeat's end are zeroed. They lie past what the DataCopyPad
        writes, so the two need no ordering; the GatherMasks come after the queue hand-off, on this Duplicate's
        pipe."""
        copied = -(-blockCount * self.m_tilingData["splitSize"] * 2 // BLOCK_SIZE) * BLOCK_SIZE
        gathered = -(-copied // REPEAT_FLOATS) * REPEAT_FLOATS
        if gathered > copied:
            aj.Duplicate(ubX[copied], SCALAR_ZERO, gathered - copied)

    def ComputeGeluAndMul(self, ub_num):
        ubX = self.inQueueX.DeQue("float")
        ubx1_fp32, ubx2_fp32 = self.resultTempBuf3.Get("float"), self.resultTempBuf4.Get("float")
        self.ComputeFp32VReduce(ubx1_fp32, ubx2_fp32, ubX, ub_num)
        self.inQueueX.FreeTensor(ubX)
        gelu_out = self.outQueueGelu.AllocTensor("float")
        self.ComputeGeluBase(ubx2_fp32, gelu_out, ub_num)
        mul_out = self.outQueueMul.AllocTensor("float")
        aj.Mul(mul_out, ubx1_fp32, gelu_out, ub_num)
        self.outQueueMul.EnQue(mul_out)
        self.outQueueGelu.EnQue(gelu_out)


def ge_glu_v2(x, y, gelu, tiling_data):
    op = GeGluV2Fp32VReduce() if tiling_data["tilingKey"] == 302 else GeGluV2Fp32Align()
    op.Init(x, y, gelu, tiling_data)
    op.Process()


def _make_inputs(ny):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-4, 4, size).astype(np.float32)
        x[:min(size, 3)] = np.array([0.0, -0.0, 4.0], np.float32)[:size]
        return {"x": x.reshape(-1, 2 * ny)}
    return make_inputs


def run(device, inputs):
    x = inputs["x"]
    rows, ny = x.shape[0], x.shape[1] // 2
    y, gelu = np.full((rows, ny), np.nan, np.float32), np.full((rows, ny), np.nan, np.float32)
    aj.launch(ge_glu_v2, CORE_NUM, device, x.reshape(-1).copy(), y.reshape(-1), gelu.reshape(-1), tiling(rows, ny))
    return {"y": y, "gelu": gelu}


def expected(device, inputs):
    x = inputs["x"].astype(np.float64)
    ny = x.shape[1] // 2
    x1, x2 = x[:, :ny], x[:, ny:]
    t = float(ALPHA) * (x2 + float(BETA) * x2 ** 3)
    gelu = x2 / (1.0 + np.exp(-t))
    return {"y": gelu * x1, "gelu": gelu}


_SOURCE = "Hayden727/cann-ops@fd1e257c src/activation/ge_glu_v2/op_kernel/ge_glu_v2_base.h"
_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
KERNELS = [
    KernelSpec("ge_glu", "GeGluV2 tanh over rows of 2 x 100 floats (key 301): rows copied in by DataCopyPad with "
               "DataCopyParams + DataCopyPadParams (paddingValue 1), gelu and x1 * gelu, 8 cores", _make_inputs(100),
               run, expected, default_size=24 * 200, devices=_DEVICES, tolerance=2e-5, source=_SOURCE,
               size_rule="a multiple of 200 (rows of 2 x 100)", size_ok=lambda n: n > 0 and n % 200 == 0),
    KernelSpec("ge_glu_aligned", "GeGluV2 tanh over rows of 2 x 128 floats (key 301, 32-byte aligned halves: DataCopy "
               "with DataCopyParams strides)", _make_inputs(128), run, expected, default_size=24 * 256,
               devices=_DEVICES, tolerance=2e-5, source=_SOURCE, size_rule="a multiple of 256 (rows of 2 x 128)",
               size_ok=lambda n: n > 0 and n % 256 == 0),
    KernelSpec("ge_glu_vreduce", "GeGluV2 tanh over rows of 2 floats (key 302): pairs split by GatherMask's built-in "
               "even/odd patterns", _make_inputs(1), run, expected, default_size=2 * 256, devices=_DEVICES,
               tolerance=2e-5, source=_SOURCE, size_rule="an even number", size_ok=lambda n: n > 0 and n % 2 == 0),
]
