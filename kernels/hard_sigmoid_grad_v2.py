"""HardSigmoidGradV2 from the CANN NN operators: dx = grad / 6 where -3 < x < 3, 0 elsewhere, element by element over
float and half (in the input type) and bfloat16 (in float).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/activation/hard_sigmoid_grad_v2:
- op_kernel/hard_sigmoid_grad_v2.h (`NsHardSigmoidGradV2::HardSigmoidGradV2<T, BUFFER_MODE>`): each core blockFactor
  elements (the last the rest); queues of depth 2 (BUFFER_MODE 1) or 1 of ubFactor elements for grad, x and the
  result, two bit-mask TBufs of ubFactor / 8 bytes rounded up to 32 (bfloat16: two float TBufs more); per tile two
  DataCopyPads in (DataCopyParams set field by field, the brace-list pad); Compute over the **whole ubFactor**:
  (bfloat16: Cast CAST_NONE of both to float), Compares GT -3 and Compares LT 3 into the two masks, **And** of the
  masks over ubFactor / 8 mask bytes, Muls grad by 1/6, Select VSEL_TENSOR_SCALAR_MODE (grad / 6 or 0), (bfloat16:
  Cast CAST_RINT back); DataCopyPad of the tile out;
- op_kernel/hard_sigmoid_grad_v2.cpp (the entry) and op_host/hard_sigmoid_grad_v2_tiling.cpp (blockFactor =
  ceil(total / cores); double buffering above 1024 elements; ubFactor = UB / (3 * sizeof(T) * buffers + 1, bfloat16
  3 * 2 * buffers + 2 * 4 + 1) rounded down to a 256-byte repeat of the compute type).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). (1) The masks are uint8 tensors and
the original Ands them as uint8; the A2 / A3 And takes int16 / uint16 only (SPEC-2 2.2), so the
original's And is refused (UnsupportedDTypeError; ORIGINAL_AND = True runs it). The port Ands the same bytes viewed
as uint16, half as many elements (a bitwise And: the same bits). (2) Every Compute runs over ubFactor lanes while a
short tile copies in only its count: the lanes past it are uninitialised at the queue buffers' first use (the
sanitizer's init report; never copied out): the port zeroes the input tiles' lanes past the copy's 32-byte blocks by
a Duplicate (int16 view) before the copy (ORIGINAL_TAIL = True runs the original's form).

Devices: the operator's config is the ascend910b (A2; the A3 shares its kernels): the port runs on the A3 and A2.

Fidelity: BIT-EXACT (Compares, And, Muls, Select, Cast, DataCopyPad; SPEC-2 0.3). NaN compares false (D43): a NaN x
gives 0; x = +-3 gives 0; the half kernel multiplies by 1/6 rounded to half (0.1666259765625).
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
MIN_SPLIT_THRESHOLD = 1024
UB_BLOCK_SIZE = 32
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("atlas-a3", "atlas-a2")
ORIGINAL_AND = False               # True: And on the uint8 masks (refused on the A2 / A3)
ORIGINAL_TAIL = False              # True: the whole-buffer Compute reads the lanes past the copy as the UB holds them


class HardSigmoidGradV2TilingData(ctypes.Structure):
    _fields_ = [("totalNum", ctypes.c_int64), ("blockFactor", ctypes.c_int64), ("ubFactor", ctypes.c_int64)]


def tiling(device, total, dtype):
    """HardSigmoidGradV2TilingFunc: (used cores, BUFFER_MODE, the tiling bytes)."""
    ub_size = aj.get_device(device).ub_bytes
    total = max(total, 1)                                   # EnsureNotScalar
    block_factor = -(-total // CORE_NUM)
    used = -(-total // block_factor)
    double = 1 if total > MIN_SPLIT_THRESHOLD else 0
    bufs = 2 if double else 1
    per_elem = 3 * 2 * bufs + 2 * 4 + 1 if dtype == "bfloat16" else 3 * TYPE_SIZE[dtype] * bufs + 1
    compute_size = 2 if dtype == "half" else 4
    alignment = max(UB_BLOCK_SIZE, 256 // compute_size)
    ub_factor = ub_size // per_elem // alignment * alignment
    t = HardSigmoidGradV2TilingData(totalNum=total, blockFactor=block_factor, ubFactor=ub_factor)
    return used, double, np.frombuffer(bytes(t), np.uint8).copy()


class HardSigmoidGradV2:
    """`HardSigmoidGradV2<T, BUFFER_MODE>`."""

    def __init__(self, T, BUFFER_MODE):
        self.T = T
        self.IS_BF16 = T == "bfloat16"
        self.CT = "float" if self.IS_BF16 else T
        self.BUFFER_NUM = 2 if BUFFER_MODE else 1

    def Init(self, gradOutput, self_gm, gradInput, tilingData):
        T = self.T
        blk = aj.GetBlockIdx()
        remainderLength = tilingData.totalNum - tilingData.blockFactor * blk
        self.blockLength_ = min(remainderLength, tilingData.blockFactor)
        self.ubLength_ = tilingData.ubFactor
        offset = tilingData.blockFactor * blk
        self.gradGM, self.selfGM, self.outputGM = (aj.GlobalTensor(T) for _ in range(3))
        self.gradGM.SetGlobalBuffer(gradOutput[offset:], self.blockLength_)
        self.selfGM.SetGlobalBuffer(self_gm[offset:], self.blockLength_)
        self.outputGM.SetGlobalBuffer(gradInput[offset:], self.blockLength_)
        self.pipe = aj.TPipe()
        self.gradQueue = aj.TQue(aj.QuePosition.VECIN, self.BUFFER_NUM)
        self.selfQueue = aj.TQue(aj.QuePosition.VECIN, self.BUFFER_NUM)
        self.outputQueue = aj.TQue(aj.QuePosition.VECOUT, self.BUFFER_NUM)
        for q in (self.gradQueue, self.selfQueue, self.outputQueue):
            self.pipe.InitBuffer(q, self.BUFFER_NUM, self.ubLength_ * TYPE_SIZE[T])
        maskBytes = max((self.ubLength_ // 8 + 31) // 32 * 32, 32)
        self.maskBuf1, self.maskBuf2 = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.maskBuf1, maskBytes)
        self.pipe.InitBuffer(self.maskBuf2, maskBytes)
        if self.IS_BF16:
            self.floatBuf1, self.floatBuf2 = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
            self.pipe.InitBuffer(self.floatBuf1, self.ubLength_ * 4)
            self.pipe.InitBuffer(self.floatBuf2, self.ubLength_ * 4)

    def CopyIn(self, progress, currentNum):
        T = self.T
        gradLocal = self.gradQueue.AllocTensor(T)
        selfLocal = self.selfQueue.AllocTensor(T)
        if not ORIGINAL_TAIL and currentNum < self.ubLength_:
            # deviation (2): zeros over the lanes past the copy that the whole-buffer Compute reads
            copied = -(-currentNum * TYPE_SIZE[T] // 32) * 32
            end = self.ubLength_ * TYPE_SIZE[T]
            for t in (gradLocal, selfLocal):
                aj.Duplicate(t.ReinterpretCast("int16")[copied // 2:], np.int16(0), (end - copied) // 2)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(gradLocal, self.gradGM[progress * self.ubLength_], copyParams, (False, 0, 0, 0))
        aj.DataCopyPad(selfLocal, self.selfGM[progress * self.ubLength_], copyParams, (False, 0, 0, 0))
        self.gradQueue.EnQue(gradLocal)
        self.selfQueue.EnQue(selfLocal)

    @staticmethod
    def _and_masks(mask1, mask2, maskCount):
        if ORIGINAL_AND:
            aj.And(mask1, mask1, mask2, maskCount)
        else:
            # deviation (1): the same bytes as uint16 (the A2 / A3 And has no uint8 form)
            m1, m2 = mask1.ReinterpretCast("uint16"), mask2.ReinterpretCast("uint16")
            aj.And(m1, m1, m2, (maskCount + 1) // 2)

    def Compute(self, currentNum):
        T, CT = self.T, self.CT
        gradLocal = self.gradQueue.DeQue(T)
        selfLocal = self.selfQueue.DeQue(T)
        resultLocal = self.outputQueue.AllocTensor(T)
        mask1, mask2 = self.maskBuf1.Get("uint8"), self.maskBuf2.Get("uint8")
        count = self.ubLength_
        maskCount = (self.ubLength_ + 7) // 8
        if self.IS_BF16:
            selfFloat, gradFloat = self.floatBuf1.Get("float"), self.floatBuf2.Get("float")
            aj.Cast(selfFloat, selfLocal, aj.RoundMode.CAST_NONE, count)
            aj.Cast(gradFloat, gradLocal, aj.RoundMode.CAST_NONE, count)
            aj.Compares(mask1, selfFloat, np.float32(-3.0), aj.CMPMODE.GT, count)
            aj.Compares(mask2, selfFloat, np.float32(3.0), aj.CMPMODE.LT, count)
            self._and_masks(mask1, mask2, maskCount)
            aj.Muls(gradFloat, gradFloat, np.float32(1.0) / np.float32(6.0), count)
            aj.Select(selfFloat, mask1, gradFloat, np.float32(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, count)
            aj.Cast(resultLocal, selfFloat, aj.RoundMode.CAST_RINT, count)
        else:
            t = _NP[CT]
            aj.Compares(mask1, selfLocal, t(-3.0), aj.CMPMODE.GT, count)
            aj.Compares(mask2, selfLocal, t(3.0), aj.CMPMODE.LT, count)
            self._and_masks(mask1, mask2, maskCount)
            aj.Muls(gradLocal, gradLocal, t(1.0 / 6.0), count)
            aj.Select(resultLocal, mask1, gradLocal, t(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, count)
        self.outputQueue.EnQue(T, resultLocal)
        self.gradQueue.FreeTensor(gradLocal)
        self.selfQueue.FreeTensor(selfLocal)

    def CopyOut(self, progress, currentNum):
        resultLocal = self.outputQueue.DeQue(self.T)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[self.T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(self.outputGM[progress * self.ubLength_], resultLocal, copyParams)
        self.outputQueue.FreeTensor(resultLocal)

    def Process(self):
        if self.blockLength_ <= 0:
            return
        loopCount = (self.blockLength_ + self.ubLength_ - 1) // self.ubLength_
        for i in range(loopCount):
            currentNum = self.blockLength_ - self.ubLength_ * i if i == loopCount - 1 else self.ubLength_
            self.CopyIn(i, currentNum)
            self.Compute(currentNum)
            self.CopyOut(i, currentNum)


aj.REGISTER_TILING_DEFAULT(HardSigmoidGradV2TilingData)


def hard_sigmoid_grad_v2(grad_output, self_gm, grad_input, workspace, tiling_bytes, dtype, BUFFER_MODE):
    """The kernel entry (hard_sigmoid_grad_v2.cpp; D_T_X and BUFFER_MODE as arguments)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(HardSigmoidGradV2TilingData, tiling_bytes)
    op = HardSigmoidGradV2(dtype, BUFFER_MODE)
    op.Init(grad_output, self_gm, grad_input, tilingData)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_hard_sigmoid_grad_v2(device, grad, x):
    dtype = _dtype_name(x)
    used, mode, t = tiling(device, x.size, dtype)
    out = np.zeros_like(x)
    aj.launch(hard_sigmoid_grad_v2, used, device, np.ascontiguousarray(grad), np.ascontiguousarray(x), out, None, t,
              dtype, mode)
    return out


def hard_sigmoid_grad_v2_model(grad, x):
    """grad * (1/6 in the compute type), rounded once, where -3 < x < 3 (NaN false), +0 elsewhere; bfloat16 via float
    and RNE back."""
    ct = np.float16 if x.dtype == np.float16 else np.float32
    with np.errstate(invalid="ignore"):
        keep = (x.astype(ct) > ct(-3.0)) & (x.astype(ct) < ct(3.0))
        scaled = (grad.astype(ct) * ct(1.0 / 6.0)).astype(ct)
    return np.where(keep, scaled, ct(0.0)).astype(ct).astype(x.dtype)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-5.0, 5.0, size).astype(np.float32)
        x[::89] = 3.0
        x[1::89] = -3.0
        g = rng.standard_normal(size).astype(np.float32)
        return {"grad": g.astype(_NP[dtype]), "x": x.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"dx": run_hard_sigmoid_grad_v2(device, inputs["grad"], inputs["x"])}


def _expected(device, inputs):
    return {"dx": hard_sigmoid_grad_v2_model(inputs["grad"], inputs["x"])}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/hard_sigmoid_grad_v2/op_kernel/hard_sigmoid_grad_v2.h"
KERNELS = [
    KernelSpec(f"hard_sigmoid_grad_v2{suffix}", description, _make_inputs(dtype), _run, _expected,
               default_size=size, devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 100003, "HardSigmoidGradV2 over floats (Compares GT -3 / LT 3 into two bit masks, And of the "
         "masks (as uint16), Muls 1/6, Select tensor-scalar, over the whole tile buffer; double-buffered "
         "DataCopyPad tiles)"),
        ("_half", "half", 1000, "HardSigmoidGradV2 over halves (in half; 1000 elements: single-buffered)"),
        ("_bf16", "bfloat16", 50003, "HardSigmoidGradV2 over bfloat16 (Casts to float, the chain in float, Cast "
         "CAST_RINT back)"))
]
