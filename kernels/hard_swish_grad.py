"""HardSwishGrad from the CANN NN operators: y = grad * slope(x), slope = x / 3 + 0.5 inside (-3, 3), 0 at or below
-3 and 1 at or above 3, over float, half and bfloat16 (the half and bfloat16 tiles computed in float).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-nn @ 1df7c5665dcbf2b06e723b60643d252c61e14b7d, experimental/activation/hard_swish_grad/op_kernel/
hard_swish_grad.h (`NsHardSwishGrad::HardSwishGrad<T>`: single-buffered queues for x, grad and y; float TBufs for
the widened inputs, the slope and four constant tensors (-3, 3, 0, 1) Duplicated once in Init behind a
PipeBarrier<PIPE_V>; two uint8 mask TBufs of whole 256-byte blocks; per tile DataCopyPad in with DataCopyParams and
a brace-list pad struct, Cast to float (CAST_NONE) unless T is float (then `ReinterpretCast<float>()` of the queue
tensors), over the count rounded up to 64 floats: Compare GT against -3 and LT against 3 into the masks, Muls by
0.333333343f, Adds 0.5, Select (VSEL_TENSOR_TENSOR_MODE) against the 0 and 1 tensors, Mul by grad; Cast back
(half CAST_NONE, bfloat16 CAST_RINT); DataCopyPad out) with the host tiling of experimental/activation/
hard_swish_grad/op_host/hard_swish_grad_tiling.cpp (`HardSwishGradTilingFunc`: each core ceil(total / cores)
elements, not aligned, so cores start at any GM byte; tiles of (UB - 1 KB) / 48 bytes rounded down to 64 elements).

Deviation (also in docs/decisions.md "Kernel gallery"): the original computes a short tile over its count rounded
up to 64 floats (Compare's count form needs whole 256-byte blocks, SPEC-2 D44) but copies in only the count, so
the last lanes read UB bytes no copy wrote (stale data: computed, never copied out; the sanitizer reports the read).
The port copies the short tile in rounded up to 64 elements: each core's GlobalTensor window is its share rounded up
to 64 elements (the bytes past the share are the next core's input or GM padding) and the copy-out keeps the exact
count. The core count is the launch's 8 (GetCoreNumAiv would give the device's).

Devices: DataCopyPad and Compare on float decide: the 950, A3, A2 and 310B (not the 310P and 910: no DataCopyPad).

Fidelity: BIT-EXACT (Compare, Select, Muls, Adds, Mul, Duplicate, Cast and DataCopyPad are BIT-EXACT, SPEC-2 0.3):
checked bit for bit against the same float operations composed from the package's reference model and the
narrowing Cast (round to nearest even).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 1
COMPUTE_ALIGN_NUM = 64
VECTOR_ALIGN_ELEM = 64
UB_MASK_RESERVE = 1024
BYTES_PER_ELEMENT = 48
CORE_NUM = 8
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}


def tiling(device, total):
    """HardSwishGradTilingFunc: (usedCoreNum, tiling data)."""
    block_factor = -(-total // CORE_NUM)
    used = -(-total // block_factor)
    ub_factor = (aj.get_device(device).ub_bytes - UB_MASK_RESERVE) // BYTES_PER_ELEMENT
    ub_factor = ub_factor // VECTOR_ALIGN_ELEM * VECTOR_ALIGN_ELEM
    return used, dict(totalNum=total, blockFactor=block_factor, ubFactor=ub_factor)


def _align_compute_num(n):
    return (n + COMPUTE_ALIGN_NUM - 1) // COMPUTE_ALIGN_NUM * COMPUTE_ALIGN_NUM


class HardSwishGrad:
    def __init__(self, dtype):
        self.T = dtype

    def Init(self, grad, x, y, tilingData):
        blockOffset = tilingData["blockFactor"] * aj.GetBlockIdx()
        remainderLength = tilingData["totalNum"] - blockOffset
        self.blockLength_ = max(0, min(remainderLength, tilingData["blockFactor"]))
        self.ubLength_ = tilingData["ubFactor"]
        window = _align_compute_num(self.blockLength_)        # deviation: whole 64-element groups (docstring)
        self.inputGMX, self.inputGMGrad, self.outputGMY = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGMX.SetGlobalBuffer(x[blockOffset:], window)
        self.inputGMGrad.SetGlobalBuffer(grad[blockOffset:], window)
        self.outputGMY.SetGlobalBuffer(y[blockOffset:], self.blockLength_)
        if self.blockLength_ <= 0 or self.ubLength_ <= 0:
            return
        size = TYPE_SIZE[self.T]
        self.pipe = aj.TPipe()
        self.inputQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.inputQueueGrad = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outputQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.pipe.InitBuffer(self.inputQueueX, BUFFER_NUM, self.ubLength_ * size)
        self.pipe.InitBuffer(self.inputQueueGrad, BUFFER_NUM, self.ubLength_ * size)
        self.pipe.InitBuffer(self.outputQueueY, BUFFER_NUM, self.ubLength_ * size)
        (self.xFp32Buf, self.gradFp32Buf, self.slopeBuf, self.lowerBuf, self.upperBuf, self.zeroBuf, self.oneBuf,
         self.greaterMaskBuf, self.lessMaskBuf) = (aj.TBuf(aj.QuePosition.VECCALC) for _ in range(9))
        if self.T != "float":
            self.pipe.InitBuffer(self.xFp32Buf, self.ubLength_ * 4)
            self.pipe.InitBuffer(self.gradFp32Buf, self.ubLength_ * 4)
        for buf in (self.slopeBuf, self.lowerBuf, self.upperBuf, self.zeroBuf, self.oneBuf):
            self.pipe.InitBuffer(buf, self.ubLength_ * 4)
        maskBytes = max(256, ((self.ubLength_ + 7) // 8 + 255) // 256 * 256)
        self.pipe.InitBuffer(self.greaterMaskBuf, maskBytes)
        self.pipe.InitBuffer(self.lessMaskBuf, maskBytes)
        aj.Duplicate(self.lowerBuf.Get("float"), np.float32(-3.0), self.ubLength_)
        aj.Duplicate(self.upperBuf.Get("float"), np.float32(3.0), self.ubLength_)
        aj.Duplicate(self.zeroBuf.Get("float"), np.float32(0.0), self.ubLength_)
        aj.Duplicate(self.oneBuf.Get("float"), np.float32(1.0), self.ubLength_)
        aj.PipeBarrier(aj.PIPE_V)

    def CopyIn(self, progress, currentNum):
        xLocal = self.inputQueueX.AllocTensor(self.T)
        gradLocal = self.inputQueueGrad.AllocTensor(self.T)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = _align_compute_num(currentNum) * TYPE_SIZE[self.T]    # deviation: rounded up
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        offset = progress * self.ubLength_
        aj.DataCopyPad(xLocal, self.inputGMX[offset], copyParams, (False, 0, 0, 0))
        aj.DataCopyPad(gradLocal, self.inputGMGrad[offset], copyParams, (False, 0, 0, 0))
        self.inputQueueX.EnQue(xLocal)
        self.inputQueueGrad.EnQue(gradLocal)

    def Compute(self, currentNum):
        T = self.T
        xLocal = self.inputQueueX.DeQue(T)
        gradLocal = self.inputQueueGrad.DeQue(T)
        yLocal = self.outputQueueY.AllocTensor(T)
        computeNum = _align_compute_num(currentNum)
        if T == "float":
            xFp32 = xLocal.ReinterpretCast("float")
            gradFp32 = gradLocal.ReinterpretCast("float")
        else:
            xFp32 = self.xFp32Buf.Get("float")
            gradFp32 = self.gradFp32Buf.Get("float")
            aj.Cast(xFp32, xLocal, aj.RoundMode.CAST_NONE, computeNum)       # the copied 64-element groups
            aj.Cast(gradFp32, gradLocal, aj.RoundMode.CAST_NONE, computeNum)
            aj.PipeBarrier(aj.PIPE_V)
        slope = self.slopeBuf.Get("float")
        lowerLocal, upperLocal = self.lowerBuf.Get("float"), self.upperBuf.Get("float")
        zeroLocal, oneLocal = self.zeroBuf.Get("float"), self.oneBuf.Get("float")
        greaterMask, lessMask = self.greaterMaskBuf.Get("uint8"), self.lessMaskBuf.Get("uint8")
        aj.Compare(greaterMask, xFp32, lowerLocal, aj.CMPMODE.GT, computeNum)
        aj.Compare(lessMask, xFp32, upperLocal, aj.CMPMODE.LT, computeNum)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(slope, xFp32, np.float32(0.333333343), computeNum)
        aj.Adds(slope, slope, np.float32(0.5), computeNum)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Select(slope, greaterMask, slope, zeroLocal, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, computeNum)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Select(slope, lessMask, slope, oneLocal, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, computeNum)
        aj.PipeBarrier(aj.PIPE_V)
        if T == "float":
            aj.Mul(yLocal.ReinterpretCast("float"), gradFp32, slope, computeNum)
        else:
            aj.Mul(slope, gradFp32, slope, computeNum)
            aj.PipeBarrier(aj.PIPE_V)
            mode = aj.RoundMode.CAST_RINT if T == "bfloat16" else aj.RoundMode.CAST_NONE
            aj.Cast(yLocal, slope, mode, currentNum)
        self.outputQueueY.EnQue(T, yLocal)
        self.inputQueueX.FreeTensor(xLocal)
        self.inputQueueGrad.FreeTensor(gradLocal)

    def CopyOut(self, progress, currentNum):
        yLocal = self.outputQueueY.DeQue(self.T)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[self.T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(self.outputGMY[progress * self.ubLength_], yLocal, copyParams)
        self.outputQueueY.FreeTensor(yLocal)

    def Process(self):
        if self.blockLength_ <= 0 or self.ubLength_ <= 0:
            return
        loopCount = (self.blockLength_ + self.ubLength_ - 1) // self.ubLength_
        for i in range(loopCount):
            currentNum = self.blockLength_ - self.ubLength_ * i if i == loopCount - 1 else self.ubLength_
            self.CopyIn(i, currentNum)
            self.Compute(currentNum)
            self.CopyOut(i, currentNum)


def hard_swish_grad(grad, x, y, tiling_data, dtype):
    op = HardSwishGrad(dtype)
    op.Init(grad, x, y, tiling_data)
    op.Process()


_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _make_inputs(dtype):
    def make_inputs(size, seed):
        """x over (-5, 5) with exact -3 and 3 mixed in (the strict comparisons' edges), grad normal."""
        rng = np.random.default_rng(seed)
        x = rng.uniform(-5.0, 5.0, size)
        edge = rng.random(size)
        x[edge < 0.03] = -3.0
        x[(edge >= 0.03) & (edge < 0.06)] = 3.0
        return {"grad": rng.standard_normal(size).astype(np.float32).astype(_NP[dtype]),
                "x": x.astype(np.float32).astype(_NP[dtype])}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        padded = x.size + COMPUTE_ALIGN_NUM     # room for the last core's window rounded up to 64 elements
        gm = {}
        for key in ("grad", "x"):
            gm[key] = np.zeros(padded, x.dtype)
            gm[key][:x.size] = inputs[key]
        y = np.zeros(padded, x.dtype)
        block_dim, tiling_data = tiling(device, x.size)
        aj.launch(hard_swish_grad, block_dim, device, gm["grad"], gm["x"], y, tiling_data, dtype)
        return {"y": y[:x.size]}
    return run


def expected(device, inputs):
    """slope = x * float(1/3) + 0.5 (two float roundings), 0 where x <= -3, 1 where x >= 3; grad * slope in float;
    the float -> half / bfloat16 narrowing rounds to nearest even."""
    from ascend_jit.reference import elementwise as ref
    core = aj.Core(device)
    env = ref.Env(device, sat_half=core.half_saturating, sat_int=core.int_saturating)
    x, grad = inputs["x"], inputs["grad"]
    xf, gf = np.asarray(x, np.float64), np.asarray(grad, np.float64)
    slope = ref.add("float", env, ref.mul("float", env, xf, float(np.float32(0.333333343))), 0.5)
    slope = np.where(xf > -3.0, np.asarray(slope, np.float64), 0.0)
    slope = np.where(xf < 3.0, slope, 1.0)
    y = np.asarray(ref.mul("float", env, gf, slope), np.float32)
    return {"y": y.astype(x.dtype)}


_SOURCE = "hicann/ops-nn@1df7c566 experimental/activation/hard_swish_grad/op_kernel/hard_swish_grad.h"
KERNELS = [
    KernelSpec(f"hard_swish_grad{suffix}", description, _make_inputs(dtype), _run(dtype), expected,
               default_size=50000, devices=DEVICES, source=_SOURCE)
    for suffix, dtype, description in (
        ("", "float", "HardSwishGrad over floats: Compare GT/LT against Duplicated constant tensors, Muls/Adds, "
                      "two Selects (tensor-tensor mode), Mul; queue tensors ReinterpretCast to float"),
        ("_half", "half", "HardSwishGrad over halves computed in float (Cast CAST_NONE both ways)"),
        ("_bf16", "bfloat16", "HardSwishGrad over bfloat16 computed in float (Cast CAST_NONE in, CAST_RINT out)"))
]
