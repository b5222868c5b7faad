"""LogSoftmaxV2 from the CANN NN operators, experimental, the last-axis (2-D) kernels for float and half:
y = x - max(x) - ln(sum(exp(x - max(x)))) per row.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/activation/log_softmax_v2:
- op_kernel/log_softmax_v2.cpp (ProcessLogSoftmaxInternal, dims == 2: rows [blockIdx * M / blockDim,
  (blockIdx + 1) * M / blockDim) a core, Process1);
- op_kernel/log_softmax_v2.h, `LogSoftmax` (float; HIGH_PERFORMANCE undefined, so the second Process1): a row at a
  time, DataCopy of the row rounded up to 32 floats into a depth-1 VECIN queue of two 32 KB buffers with the next
  row prefetched; counter mode (SetMaskCount, SetVectorMask(0, length[j])): BlockReduceMax<float, false> passes
  while the length is over 64 (ceil(len / 8) each), WholeReduceMax<float, false>, SetMaskNorm; Adds -max (GetValue
  of lane 0), Exp; counter-mode BlockReduceSum / WholeReduceSum passes in place; Ln of 8 lanes, Adds -ln(sum);
  EnQue / DeQue; DataCopyPad (n % 8) or DataCopy out;
- `LogSoftmaxHalf` (half): rows aligned to 64 halves, 8192 / align_n rows a tile (the first tile takes the
  remainder) by one strided DataCopyPad (dstStride (align_n - n) / 16 blocks) with the next tile prefetched; per
  row counter-mode BlockReduceMax<half, false> passes while over 128 (ceil(len / 16) each) and WholeReduceMax into
  the output tile; Cast half -> float CAST_NONE of the whole tile; per row Adds -max (read as half), Exp of the
  tile, counter-mode float BlockReduceSum / WholeReduceSum passes; per row Ln, Adds -ln(sum); Cast CAST_RINT to
  half; one strided DataCopyPad out (srcStride (align_n - n) / 16);
- op_host/log_softmax_v2_tiling.cpp (axes folded into (M, N) when the last axis is reduced; coreNum = min(2 M,
  cores)).

Deviations: (1) the original reads the max (`outLocal(0)`) and ln(sum) (`inputLocal(0)`) on the scalar unit after
only PipeBarrier<PIPE_V>: V -> S races the sanitizer reports (ORIGINAL_SYNC = True runs the original's form,
tested); the port adds a FetchEventID'd V_S pair before each read. (2) The half kernel's whole-tile Cast, Exp and
Cast back read the lanes between a row's n and its 64-half alignment, which no copy or Adds writes (the sanitizer's
init reports on each core's first tile, tested with ORIGINAL_TILE_WIDE = True; the rows' results do not depend on
them): the port Duplicates zeros over each input tile before its DataCopyPad (then a V_MTE2 pair) and over
workLocal2 before the Adds. (3) The core count is the launch's 8. (4) GM is padded to whole 32-byte blocks (and a
row past the end: the float kernel's DataCopy of a row rounded up to 32 floats reads past the last row), as device
allocations are. (5) The original calls
`WholeReduceMax<T, false>(dst, src, 1, MASK_PLACEHOLDER, 1, 1, 8)` (and WholeReduceSum alike): mask 1 and
repeatTime MASK_PLACEHOLDER, the two swapped (BlockReduce*'s order is (repeat, mask)); with isSetMask false the mask
argument must be MASK_PLACEHOLDER (SPEC 2.5), so the emulator refuses it (ParameterError, ORIGINAL_WHOLE_ARGS =
True, tested); in counter mode repeatTime is ignored (SPEC 4.4), so the port passes (MASK_PLACEHOLDER, 1).

Devices: the operator's config lists the A2 (ascend910b); the kernels also run on the A3 (same cores). The float
WholeReduceSum / BlockReduceSum trees are the same on both (aj.explain_reduce_order), so their outputs agree.

Fidelity: Exp and Ln MODELLED (SPEC-2 D37: the exact value rounded once), the rest BIT-EXACT; the model replays the
float steps with the devices' trees and exp / log in float64 rounded once to float32, bit for bit.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                                     # deviation (3)
DEVICES = ("atlas-a2", "atlas-a3")
ORIGINAL_SYNC = False                            # True: the original's V -> S races (deviation 1)
ORIGINAL_TILE_WIDE = False                       # True: the half kernel's gap lanes left unwritten (deviation 2)
ORIGINAL_WHOLE_ARGS = False                      # True: WholeReduce*(dst, src, 1, MASK_PLACEHOLDER, ...) (deviation 5)
FLOAT_SIZE, HALF_SIZE, HALF_ALIGN_BLOCK = 4, 2, 16

LogSoftmaxV2TilingData = np.dtype([("axis", np.uint64), ("dims", np.uint64), ("shape", np.uint64, 8)])


def align_to(a, b):
    return 1 if b == 0 else (a + b - 1) // b * b


def tiling(shape):
    """LogSoftmaxV2TilingFunc for the last axis: (block dim, the packed tiling data)."""
    m = int(np.prod(shape[:-1], dtype=np.int64)) if len(shape) > 1 else 1
    t = np.zeros(1, LogSoftmaxV2TilingData)
    t["axis"], t["dims"] = 1, 2
    t["shape"][0, :2] = (m, shape[-1])
    return min(2 * m, CORE_NUM), t.view(np.uint8).copy()


class _WholeArgs:
    """Deviation (5): WholeReduceMax / WholeReduceSum's (mask, repeatTime) as the original writes them, or swapped."""

    def __iter__(self):
        return iter((1, aj.MASK_PLACEHOLDER) if ORIGINAL_WHOLE_ARGS else (aj.MASK_PLACEHOLDER, 1))


_WHOLE_ARGS = _WholeArgs()


def _flag(event):
    """Deviation (1): a FetchEventID'd SetFlag / WaitFlag pair the original lacks."""
    if ORIGINAL_SYNC:
        return
    e = aj.GetTPipePtr().FetchEventID(event)
    aj.SetFlag(e, event=event)
    aj.WaitFlag(e, event=event)


def _lengths(n, lanes, per_block):
    """Init's length chain: the counts of the BlockReduce passes while over `lanes`, then the last."""
    length, length_ = [], n
    while length_ > lanes:
        length.append(length_)
        length_ = (length_ + per_block - 1) // per_block
    length.append(length_)
    return length, len(length) - 1


class LogSoftmax:
    """`LogSoftmax` (float), Process1 without HIGH_PERFORMANCE."""

    def Init(self, input_, out, m, n):
        self.inputGm, self.outGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGm.SetGlobalBuffer(input_)
        self.outGm.SetGlobalBuffer(out)
        self.m, self.n = m, n
        self.length, self.iters = _lengths(n, 64, 8)
        self.pipe = aj.TPipe()
        self.inQueue, self.outQueue = aj.TQue(aj.QuePosition.VECIN, 1), aj.TQue(aj.QuePosition.VECOUT, 1)
        self.workQueue1, self.workQueue2 = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        self.pipe.InitBuffer(self.inQueue, 2, 32768)
        self.pipe.InitBuffer(self.outQueue, 2, 32768)
        self.pipe.InitBuffer(self.workQueue1, 16384)
        self.pipe.InitBuffer(self.workQueue2, 16384)

    def Process1(self, start, end):
        n = self.n
        inputLocal = self.inQueue.AllocTensor("float")
        aj.DataCopy(inputLocal, self.inputGm[start * n], align_to(n, 32))
        self.inQueue.EnQue(inputLocal)
        for i in range(start, end):
            inputLocal = self.inQueue.DeQue("float")
            if i != end - 1:
                aLocal = self.inQueue.AllocTensor("float")
                aj.DataCopy(aLocal, self.inputGm[(i + 1) * n], align_to(n, 32))
                self.inQueue.EnQue(aLocal)
            srcLocal = inputLocal
            outLocal = self.outQueue.AllocTensor("float")
            aj.SetMaskCount()
            for j in range(self.iters):
                aj.SetVectorMask(0, self.length[j], dtype="float")
                aj.BlockReduceMax(outLocal, srcLocal, 1, aj.MASK_PLACEHOLDER, 1, 1, 8, is_set_mask=False)
                aj.PipeBarrier(aj.PIPE_V)
                srcLocal = outLocal
            aj.SetVectorMask(0, self.length[self.iters], dtype="float")
            aj.WholeReduceMax(outLocal, srcLocal, *_WHOLE_ARGS, 1, 1, 8, is_set_mask=False)
            aj.PipeBarrier(aj.PIPE_V)
            aj.SetMaskNorm()
            _flag(aj.HardEvent.V_S)
            aj.Adds(outLocal, inputLocal, -np.float32(outLocal.GetValue(0)), n)
            aj.Exp(inputLocal, outLocal, n)
            aj.SetMaskCount()
            for j in range(self.iters):
                aj.SetVectorMask(0, self.length[j], dtype="float")
                aj.BlockReduceSum(inputLocal, inputLocal, 1, aj.MASK_PLACEHOLDER, 1, 1, 8, is_set_mask=False)
                aj.PipeBarrier(aj.PIPE_V)
            aj.SetVectorMask(0, self.length[self.iters], dtype="float")
            aj.WholeReduceSum(inputLocal, inputLocal, *_WHOLE_ARGS, 1, 1, 8, is_set_mask=False)
            aj.PipeBarrier(aj.PIPE_V)
            aj.SetMaskNorm()
            aj.Ln(inputLocal, inputLocal, 8)
            _flag(aj.HardEvent.V_S)
            aj.Adds(outLocal, outLocal, -np.float32(inputLocal.GetValue(0)), n)
            self.outQueue.EnQue(outLocal)
            self.outQueue.DeQue("float")
            if n % 8:
                aj.DataCopyPad(self.outGm[i * n], outLocal, aj.DataCopyExtParams(1, n * FLOAT_SIZE, 0, 0, 0))
            else:
                aj.DataCopy(self.outGm[i * n], outLocal, n)
            self.outQueue.FreeTensor(outLocal)
            self.inQueue.FreeTensor(inputLocal)


class LogSoftmaxHalf:
    """`LogSoftmaxHalf`, Process1."""

    def Init(self, input_, out, m, n):
        self.inputGm, self.outGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGm.SetGlobalBuffer(input_)
        self.outGm.SetGlobalBuffer(out)
        self.m, self.n = m, n
        self.lengthHalf, self.itersHalf = _lengths(n, 128, 16)
        self.length, self.iters = _lengths(n, 64, 8)
        self.pipe = aj.TPipe()
        self.inQueue, self.outQueue = aj.TQue(aj.QuePosition.VECIN, 1), aj.TQue(aj.QuePosition.VECOUT, 1)
        self.workQueue1, self.workQueue2 = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        self.pipe.InitBuffer(self.inQueue, 2, 16384)
        self.pipe.InitBuffer(self.workQueue1, 32768 + 256)
        self.pipe.InitBuffer(self.workQueue2, 32768)
        self.pipe.InitBuffer(self.outQueue, 2, 16384)

    def _zero_gaps(self, tile, lines, align_n):
        """Deviation (2): the tile zeroed before the copy fills its rows, so the lanes between each row's n and
        align_n hold zeros; a V_MTE2 pair orders the copy after it."""
        if ORIGINAL_TILE_WIDE or self.n == align_n:
            return
        aj.Duplicate(tile, np.float16(0), lines * align_n)
        _flag(aj.HardEvent.V_MTE2)

    def Process1(self, start, end):
        n = self.n
        align_n = align_to(n, 64)
        if align_n == 0:
            return
        step = 8192 // align_n
        loop = (end - start + step - 1) // step
        tail = (end - start) % step or step
        copyParams = aj.DataCopyExtParams(tail, n * HALF_SIZE, 0, (align_n - n) // HALF_ALIGN_BLOCK, 0)
        padParams = aj.DataCopyPadExtParams(False, 0, 0, 0)
        inputLocal = self.inQueue.AllocTensor("half")
        self._zero_gaps(inputLocal, tail, align_n)
        aj.DataCopyPad(inputLocal, self.inputGm[start * n], copyParams, padParams)
        self.inQueue.EnQue(inputLocal)
        offset = start * n
        workLocal1 = self.workQueue1.Get("float")
        workLocal2 = self.workQueue2.Get("float")
        copyParamsOut = aj.DataCopyExtParams(tail, n * HALF_SIZE, (align_n - n) // HALF_ALIGN_BLOCK, 0, 0)
        copyParams.blockCount = step
        for i in range(loop):
            inputLocal = self.inQueue.DeQue("half")
            if i != loop - 1:
                aLocal = self.inQueue.AllocTensor("half")
                self._zero_gaps(aLocal, step, align_n)
                aj.DataCopyPad(aLocal, self.inputGm[(i * step + start + tail) * n], copyParams, padParams)
                self.inQueue.EnQue(aLocal)
            outLocal = self.outQueue.AllocTensor("half")
            lines = tail if i == 0 else step
            aj.SetMaskCount()
            for k in range(lines):
                srcLocal = inputLocal[k * align_n]
                dstLocal = outLocal[k * align_n]
                for j in range(self.itersHalf):
                    aj.SetVectorMask(0, self.lengthHalf[j], dtype="half")
                    aj.BlockReduceMax(dstLocal, srcLocal, 1, aj.MASK_PLACEHOLDER, 1, 1, 8, is_set_mask=False)
                    aj.PipeBarrier(aj.PIPE_V)
                    srcLocal = dstLocal
                aj.SetVectorMask(0, self.lengthHalf[self.itersHalf], dtype="half")
                aj.WholeReduceMax(dstLocal, srcLocal, *_WHOLE_ARGS, 1, 1, 8, is_set_mask=False)
                aj.PipeBarrier(aj.PIPE_V)
            aj.SetMaskNorm()
            aj.Cast(workLocal1, inputLocal, aj.RoundMode.CAST_NONE, align_n * lines)
            self.inQueue.FreeTensor(inputLocal)
            if not ORIGINAL_TILE_WIDE and n != align_n:     # deviation (2): the gaps Adds leaves in workLocal2
                aj.Duplicate(workLocal2, np.float32(0), lines * align_n)
            _flag(aj.HardEvent.V_S)
            for k in range(lines):
                aj.Adds(workLocal2[k * align_n], workLocal1[k * align_n],
                        -np.float32(outLocal.GetValue(k * align_n)), n)
            aj.Exp(workLocal1, workLocal2, align_n * lines)
            aj.SetMaskCount()
            for k in range(lines):
                workLocal = workLocal1[k * align_n]
                for j in range(self.iters):
                    aj.SetVectorMask(0, self.length[j], dtype="float")
                    aj.BlockReduceSum(workLocal, workLocal, 1, aj.MASK_PLACEHOLDER, 1, 1, 8, is_set_mask=False)
                    aj.PipeBarrier(aj.PIPE_V)
                aj.SetVectorMask(0, self.length[self.iters], dtype="float")
                aj.WholeReduceSum(workLocal, workLocal, *_WHOLE_ARGS, 1, 1, 8, is_set_mask=False)
                aj.PipeBarrier(aj.PIPE_V)
            aj.SetMaskNorm()
            for k in range(lines):
                aj.Ln(workLocal1[k * align_n], workLocal1[k * align_n], 8)
                _flag(aj.HardEvent.V_S)
                aj.Adds(workLocal2[k * align_n], workLocal2[k * align_n],
                        -np.float32(workLocal1.GetValue(k * align_n)), n)
            aj.Cast(outLocal, workLocal2, aj.RoundMode.CAST_RINT, lines * align_n)
            self.outQueue.EnQue(outLocal)
            self.outQueue.DeQue("half")
            copyParamsOut.blockCount = lines
            aj.DataCopyPad(self.outGm[offset], outLocal, copyParamsOut)
            offset += n * lines
            self.outQueue.FreeTensor(outLocal)


aj.REGISTER_TILING_DEFAULT(LogSoftmaxV2TilingData)


def log_softmax_v2(input_, out, workspace, tiling_bytes, DTYPE):
    """The kernel entry (log_softmax_v2.cpp), dims == 2; DTYPE stands for DTYPE_INPUT."""
    t = aj.GET_TILING_DATA_WITH_STRUCT(LogSoftmaxV2TilingData, tiling_bytes)
    shape = [int(v) for v in t.shape]
    blockIdx, blockDim = aj.GetBlockIdx(), aj.GetBlockNum()
    op = LogSoftmax() if DTYPE == "float" else LogSoftmaxHalf()
    op.Init(input_, out, shape[0], shape[1])
    start = blockIdx * shape[0] // blockDim
    end = (blockIdx + 1) * shape[0] // blockDim
    if end > start:
        op.Process1(start, end)


def run_log_softmax_v2(device, x):
    dtype = "float" if x.dtype == np.float32 else "half"
    used, tiling_bytes = tiling(x.shape)
    n = x.shape[-1]
    block = 32 // x.itemsize
    size = -(-(x.size + align_to(n, 32)) // block) * block      # deviation (4): a row rounded up past the end
    gm_x = np.zeros(size, x.dtype)
    gm_x[:x.size] = x.ravel()
    gm_y = np.zeros_like(gm_x)
    aj.launch(log_softmax_v2, used, device, gm_x, gm_y, None, tiling_bytes, dtype)
    return gm_y[:x.size].reshape(x.shape)


# -- the independent model ------------------------------------------------------------------------------------------

def _round32(v):
    return np.asarray(v, np.float64).astype(np.float32)


def _block_sum(device, v):
    """A counter-mode BlockReduceSum over len(v) floats: one sum a DataBlock of 8, by the device's trees (the last
    repeat's by the trees of its continuous mask)."""
    count = v.shape[1]
    full, rest = count // 64, count % 64
    outs = []
    if full:
        trees = aj.explain_reduce_order(device, "BlockReduceSum", "float", mask=64, repeat_time=1)
        rows = v[:, :full * 64].reshape(-1, 64)
        outs.append(np.stack([tr.evaluate_batch(rows) for tr in trees], axis=1).reshape(v.shape[0], full * 8))
    if rest:
        trees = [tr for tr in aj.explain_reduce_order(device, "BlockReduceSum", "float", mask=rest, repeat_time=1)
                 if tr is not None][:-(-rest // 8)]
        rows = np.zeros((v.shape[0], 64), np.float32)
        rows[:, :rest] = v[:, full * 64:]
        outs.append(np.stack([tr.evaluate_batch(rows) for tr in trees], axis=1))
    return np.concatenate(outs, axis=1).astype(np.float32)


def _row_sums(device, e):
    """The counter-mode passes: BlockReduceSum while over 64, then WholeReduceSum."""
    v = e
    while v.shape[1] > 64:
        v = _block_sum(device, v)
    tree = aj.explain_reduce_order(device, "WholeReduceSum", "float", mask=v.shape[1], repeat_time=1)[0]
    rows = np.zeros((v.shape[0], 64), np.float32)
    rows[:, :v.shape[1]] = v
    return tree.evaluate_batch(rows).astype(np.float32)


def log_softmax_v2_model(x, device="atlas-a2"):
    """Per row: max (exact), x + -max, exp rounded once, the devices' sum trees, ln rounded once, + -ln; half in
    float (exact widening), CAST_RINT back."""
    shape = x.shape
    xs = x.reshape(-1, shape[-1])
    with np.errstate(all="ignore"):
        mx = xs.max(axis=1).astype(np.float32)
        sh = xs.astype(np.float32) + (-mx)[:, None]
        e = _round32(np.exp(sh.astype(np.float64)))
        s = _row_sums(device, e)
        ln = _round32(np.log(s.astype(np.float64)))
        y = sh + (-ln)[:, None]
    return y.astype(x.dtype).reshape(shape)


def _make_inputs(dtype, n):
    def make_inputs(size, seed):
        rows = max(1, size // n)
        x = np.random.default_rng(seed).normal(0, 3, (rows, n)).astype(np.float32)
        return {"x": x.astype(dtype)}
    return make_inputs


def _run(device, inputs):
    return {"y": run_log_softmax_v2(device, inputs["x"])}


def _expected(device, inputs):
    return {"y": log_softmax_v2_model(inputs["x"], device)}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/log_softmax_v2/op_kernel/log_softmax_v2.h"
KERNELS = [
    KernelSpec(name, description, _make_inputs(dtype, n), _run, _expected, default_size=size, devices=DEVICES,
               source=_SOURCE, size_rule=f"rows of {n}: a multiple of {n}", size_ok=lambda s, n=n: s >= n)
    for name, dtype, n, size, description in (
        ("log_softmax_v2", np.float32, 1000, 20 * 1000, "LogSoftmaxV2 over float rows of 1000 (a row a step, "
         "prefetched DataCopy; counter-mode BlockReduceMax / WholeReduceMax and BlockReduceSum / WholeReduceSum "
         "passes 1000 -> 125 -> 16, Adds, Exp, Ln; DataCopyPad out)"),
        ("log_softmax_v2_half", np.float16, 300, 70 * 300, "LogSoftmaxV2 over half rows of 300 (27 rows a tile by "
         "a strided DataCopyPad; half BlockReduceMax 300 -> 19 and WholeReduceMax, Cast to float, float sums "
         "300 -> 38, Exp, Ln, Cast CAST_RINT)"))
]
