"""The devkit's Sigmoid example (advanced API) with the advanced API's own implementation ported beside it:
y = 1 / (1 + exp(-x)) over float.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7:
- examples/01_simd_cpp_api/04_advanced_api/01_activation/sigmoid/sigmoid.asc (`KernelSigmoid<float, apiMode>`,
  `sigmoid_custom`): TPipe, depth-1 VECIN/VECOUT queues of the 32-byte aligned size, a TBuf of the minimum
  temporary size (GetSigmoidMaxMinTmpSize: 256 bytes) for `Sigmoid(dst, src, tmpBuf, calCount)` (apiMode 2),
  Duplicate of 0 into dst first;
- the advanced API, impl/adv_api/detail/activation/sigmoid/: the temporary buffer sets the split (256 B / 4 = 64
  floats), `calCount / splitSize` chunks and a tail; per chunk Muls(-1), Exp, Adds(1), Duplicate(1) into the
  temporary, Div(1 / t), each a one-repeat high-dim call with `isSetMask = false` and MASK_PLACEHOLDER behind a
  PipeBarrier<PIPE_V>. Per device as the devkit compiles it:
  * A2, A3, 310P (sigmoid_impl.h, arch 2201/2002): counter mode, SetMaskCount, SetVectorMask<float,
    MaskMode::COUNTER>(0, splitSize), then (0, calcTail) for the tail, SetMaskNorm and ResetMask at the end;
  * 910 (sigmoid_v100_impl.h, arch 1001): normal mode, per chunk NormCompute: a full 64-lane mask and repeats of at
    most 255, then the tail's SetVectorMask(tail) and one repeat; ResetMask at the end;
  * 950 (sigmoid_3510_impl.h): one Reg-API VF per call, 64 float lanes a step with UpdateMask<float>, LoadAlign,
    Muls(-1), Exp, Adds(1), Duplicate(1), Div, StoreAlign. Deviation (docs/decisions.md "Kernel gallery"): the
    emulator's Reg API has no Muls/Adds (SPEC-2 11 lists the tensor-tensor forms), so the VF multiplies by and adds
    a register duplicated from -1 and 1: the same IEEE operations on the same values, the same bits.
  The 310B has no Sigmoid implementation in the devkit (no arch branch for it), so the kernel is not offered there.

Sizes: the example runs 1024 floats; any size runs (the queues take the 32-byte aligned size, the API computes
calCount = size elements: a size that is not a multiple of 64 leaves a tail chunk).

Deviation (950 only): the 950 VF's LoadAlign reads whole 256-byte vectors whatever the mask, so at a size that is
not a multiple of 64 the original's last load reads past the input queue's buffer (into the next buffer; the lanes
past calCount are computed and not stored). The port's input queue takes the size rounded up to whole vectors
there and its floats past the copy are zeroed by a Duplicate before the copy-in, so the load stays inside the
tensor and reads only written bytes (the sanitizer has nothing to report); the stored lanes are the original's.

Fidelity: MODELLED (Exp and Div are MODELLED on every device, SPEC-2 0.3). Against a float64 sigmoid each element
passes through an exact negation, Exp, an addition and a division, each rounded once to float32 (the 950's FTZ
flushes no normal value here: inputs stay within +-80, so every intermediate is normal or an exact 1): within
4e-7 relative (three roundings of 2**-24 each, with margin).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

SIGMOID_MEMORY_SIZE = 256       # GetSigmoidMaxMinTmpSize's minValue: the temporary buffer of apiMode 2
FLOATS_PER_REPEAT = 64
MAX_REPEAT_TIMES = 255
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore", "atlas-training")
R = aj.Reg
ZEROING = R.MaskMergeMode.ZEROING   # named as kernels/softmax_reg.py names it: one compiled specialisation each


# --- the advanced API: Sigmoid(dst, src, sharedTmpBuffer, calCount) --------------------------------------------------
def _sigmoid_intrinsics(dst, src, stack_buffer, repeat_times):
    """SigmoidIntrinsicsImpl: one pass under the mask the caller set (isSetMask = false, MASK_PLACEHOLDER)."""
    repeat_params, binary_repeat_params = aj.UnaryRepeatParams(), aj.BinaryRepeatParams()
    mask = aj.MASK_PLACEHOLDER
    aj.PipeBarrier(aj.PIPE_V)
    aj.Muls(dst, src, np.float32(-1.0), mask, repeat_times, repeat_params, is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Exp(dst, dst, mask, repeat_times, repeat_params, is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Adds(dst, dst, np.float32(1.0), mask, repeat_times, repeat_params, is_set_mask=False)
    aj.Duplicate(stack_buffer, np.float32(1.0), mask, repeat_times, 1, 8, is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Div(dst, stack_buffer, dst, mask, repeat_times, binary_repeat_params, is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)


def _sigmoid_counter_mode(dst, src, tmp, split_size, loop_count, calc_tail):
    """sigmoid_impl.h (A2, A3, 310P): counter mode, one repeat per pass whatever the count."""
    aj.SetMaskCount()
    aj.SetVectorMask(0, split_size, dtype="float", mode=aj.MaskMode.COUNTER)
    for i in range(loop_count):
        _sigmoid_intrinsics(dst[i * split_size], src[i * split_size], tmp, 1)
    if calc_tail > 0:
        aj.SetVectorMask(0, calc_tail, dtype="float", mode=aj.MaskMode.COUNTER)
        _sigmoid_intrinsics(dst[loop_count * split_size], src[loop_count * split_size], tmp, 1)
    aj.SetMaskNorm()
    aj.ResetMask()


def _norm_compute(dst, src, tmp, count):
    """sigmoid_v100_impl.h's NormCompute (910): full-mask repeats of at most 255, then the tail under its mask."""
    repeat_rounding, rest = divmod(count, MAX_REPEAT_TIMES * FLOATS_PER_REPEAT)
    repeat_remaining, tail = divmod(rest, FLOATS_PER_REPEAT)
    aj.SetVectorMask(FLOATS_PER_REPEAT, dtype="float")
    offset = 0
    for _ in range(repeat_rounding):
        _sigmoid_intrinsics(dst[offset], src[offset], tmp, MAX_REPEAT_TIMES)
        offset += MAX_REPEAT_TIMES * FLOATS_PER_REPEAT
    if repeat_remaining:
        _sigmoid_intrinsics(dst[offset], src[offset], tmp, repeat_remaining)
        offset += repeat_remaining * FLOATS_PER_REPEAT
    if tail:
        aj.SetVectorMask(tail, dtype="float")
        _sigmoid_intrinsics(dst[offset], src[offset], tmp, 1)


def _sigmoid_normal_mode(dst, src, tmp, split_size, loop_count, calc_tail):
    for i in range(loop_count):
        _norm_compute(dst[i * split_size], src[i * split_size], tmp, split_size)
    if calc_tail > 0:
        _norm_compute(dst[loop_count * split_size], src[loop_count * split_size], tmp, calc_tail)
    aj.ResetMask()


def sigmoid_vf(dst, src, count, repeat_times):
    """sigmoid_3510_impl.h's SigmoidImplVF for float (Muls/Adds as Mul/Add by duplicated registers, see above)."""
    x, t, one, minus_one = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    for i in range(repeat_times):
        preg, count = R.UpdateMask("float", count)
        R.LoadAlign(x, src, i * FLOATS_PER_REPEAT)
        R.Duplicate(minus_one, -1.0, preg)
        R.Mul(t, x, minus_one, preg, ZEROING)
        R.Exp(t, t, preg, ZEROING)
        R.Duplicate(one, 1.0, preg)
        R.Add(t, t, one, preg, ZEROING)
        R.Div(x, one, t, preg, ZEROING)
        R.StoreAlign(dst, x, preg, i * FLOATS_PER_REPEAT)


SIGMOID_VF = R.simd_vf(sigmoid_vf)


def Sigmoid(dst, src, shared_tmp_buffer, cal_count):
    """`Sigmoid<float, false>(dst, src, sharedTmpBuffer, calCount)`, as the devkit implements it on each device."""
    core = dst.core
    if core.device == "ascend950":
        SIGMOID_VF(dst, src, cal_count, -(-cal_count // FLOATS_PER_REPEAT))
        return
    split_size = shared_tmp_buffer.GetSize() // 4
    loop_count, calc_tail = divmod(cal_count, split_size)
    tmp = shared_tmp_buffer.ReinterpretCast("float")
    if core.device == "atlas-training":
        _sigmoid_normal_mode(dst, src, tmp, split_size, loop_count, calc_tail)
    else:
        _sigmoid_counter_mode(dst, src, tmp, split_size, loop_count, calc_tail)


# --- the example kernel ---------------------------------------------------------------------------------------------
class KernelSigmoid:
    def Init(self, srcGm, dstGm, srcSize, calCount, tmpBufSize, pipeIn):
        self.pipe = pipeIn
        self.srcGlobal, self.dstGlobal = aj.GlobalTensor(srcGm), aj.GlobalTensor(dstGm)
        self.count = calCount
        self.alignDataSize = -(-srcSize * 4 // 32) * 32   # DivCeil(srcSize * sizeof(T), 32) * 32
        self.alignDataNum = self.alignDataSize // 4
        # not in the original (see the docstring): on the 950 the input holds the whole vectors the VF loads
        self.loadDataNum = self.alignDataNum
        if aj.current_core().device == "ascend950":
            self.loadDataNum = -(-self.alignDataNum // FLOATS_PER_REPEAT) * FLOATS_PER_REPEAT
        self.tmpBufSize = tmpBufSize
        self.inQueueX = aj.TQue(aj.TPosition.VECIN, 1)
        self.outQueue = aj.TQue(aj.TPosition.VECOUT, 1)
        self.bufQueue = aj.TBuf(aj.TPosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueX, 1, self.loadDataNum * 4)
        if tmpBufSize > 0:
            self.pipe.InitBuffer(self.bufQueue, tmpBufSize)
        self.pipe.InitBuffer(self.outQueue, 1, self.alignDataSize)

    def Process(self):
        self.CopyIn()
        self.Compute()
        self.CopyOut()

    def CopyIn(self):
        srcLocal = self.inQueueX.AllocTensor("float")
        if self.loadDataNum > self.alignDataNum:
            # not in the original: past the copy, so no ordering against it; the VF follows on the vector pipe
            aj.Duplicate(srcLocal[self.alignDataNum], np.float32(0), self.loadDataNum - self.alignDataNum)
        aj.DataCopy(srcLocal, self.srcGlobal, self.alignDataNum)
        self.inQueueX.EnQue(srcLocal)

    def Compute(self):
        dstLocal = self.outQueue.AllocTensor("float")
        srcLocal = self.inQueueX.DeQue("float")
        aj.Duplicate(dstLocal, np.float32(0), self.alignDataNum)
        tmpBuf = self.bufQueue.Get("uint8")
        Sigmoid(dstLocal, srcLocal, tmpBuf, self.count)           # apiMode 2
        self.outQueue.EnQue(dstLocal)
        self.inQueueX.FreeTensor(srcLocal)

    def CopyOut(self):
        dstLocal = self.outQueue.DeQue("float")
        aj.DataCopy(self.dstGlobal, dstLocal, self.alignDataNum)
        self.outQueue.FreeTensor(dstLocal)


def sigmoid_custom(srcGm, dstGm, srcSize, calCount, tmpBufSize):
    pipe = aj.TPipe()
    op = KernelSigmoid()
    op.Init(srcGm, dstGm, srcSize, calCount, tmpBufSize, pipe)
    op.Process()


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    x = np.clip(rng.standard_normal(size) * 8, -80, 80).astype(np.float32)
    x[:4] = [0.0, -0.0, 80.0, -80.0][:min(4, size)]
    return {"x": x}


def run(device, inputs):
    x = inputs["x"]
    aligned = -(-x.size * 4 // 32) * 8
    src = np.zeros(aligned, np.float32)
    src[:x.size] = x
    dst = np.zeros(aligned, np.float32)
    aj.launch(sigmoid_custom, 1, device, src, dst, x.size, x.size, SIGMOID_MEMORY_SIZE)
    return {"y": dst[:x.size]}


def expected(device, inputs):
    return {"y": 1.0 / (1.0 + np.exp(-inputs["x"].astype(np.float64)))}


KERNEL = KernelSpec("sigmoid", "devkit Sigmoid example with the advanced API's implementation: counter mode "
                    "(A2/A3/310P), normal-mode repeats (910), a Reg VF (950); 64-float chunks and a tail",
                    make_inputs, run, expected, default_size=1024, devices=DEVICES, tolerance=4e-7,
                    size_rule="1 to 16384 floats", size_ok=lambda n: 0 < n <= 16384,
                    source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/04_advanced_api/01_activation/"
                           "sigmoid/sigmoid.asc; impl/adv_api/detail/activation/sigmoid/sigmoid_impl.h, "
                           "sigmoid_v100_impl.h, sigmoid_3510_impl.h")
