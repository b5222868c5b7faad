"""HardShrink from the CANN NN operators: y = x where x > lambd or x < -lambd, 0 elsewhere, element by element over
float, half (computed in the input type) and bfloat16 (computed in float).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/activation/hard_shrink:
- op_kernel/hard_shrink.h (`NsHardShrink::HardShrink<T, BUFFER_MODE, IS_BF16>`): each core blockFactor elements (the
  last the rest); queues of depth 2 (BUFFER_MODE 1) or 1 of ubFactor elements, three TBufs of ubFactor compute-type
  elements (lambd, -lambd, a temporary; bfloat16 a fourth) and a bit-mask TBuf of ubFactor / 8 bytes rounded up to
  32; Init fills the lambd and -lambd tensors once by Duplicate over ubFactor; per tile CopyIn by DataCopyPad with
  DataCopyParams set field by field {1, n * sizeof(T), 0, 0} and the brace-list pad {false, 0, 0, 0}; Compute over
  n rounded up to a 256-byte repeat of the compute type (`alignedNum`, at most ubFactor): tensor-tensor Compare GT
  against lambd into the bit mask, Select VSEL_TENSOR_SCALAR_MODE (x or 0) into the temporary, Compare LT against
  -lambd, Select VSEL_TENSOR_TENSOR_MODE (x or the temporary) into the output tile; bfloat16: Cast CAST_NONE of the
  n elements to float first, the same four instructions in float, Cast CAST_RINT of n back; `EnQue<IO_T>`; CopyOut by
  DataCopyPad of the n elements;
- op_kernel/hard_shrink.cpp (the entry: the template's dtype, BUFFER_MODE and IS_BF16 from the tiling key);
- op_host/hard_shrink_tiling.cpp (`HardShrinkTilingFunc`: blockFactor = ceil(total / cores) elements, cores =
  ceil(total / blockFactor); double buffering above 1024 elements; `CalcUbFactor`: ubFactor = (UB - 1024) * 8 /
  (bytes an element * 8 + 1) rounded down to a 256-byte repeat, the bytes an element 2 * BM * sizeof(T) + 3 *
  sizeof(T) (bfloat16: 2 * 2 * BM + 4 * 4); lambd a float attribute, default 0.5).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). The Compares and Selects run over
alignedNum lanes where the copy (float / half) or the Cast (bfloat16) wrote only n: on a tile whose n is not whole
repeats they read lanes nothing wrote (uninitialised at the buffer's first use, later a previous tile's values; their
results are never copied out; the sanitizer reports the reads). The port zeroes those lanes by a Duplicate first: the
input tile's past the copy's 32-byte blocks (before the copy, as kernels/threshold_v2.py does), the bfloat16 float
temporary's from n rounded down to 8 floats (before the Cast, which then overwrites the head). ORIGINAL_TAIL = True
runs the original's form.

Devices: the operator's config is the ascend950 (op_host/hard_shrink_def.cpp): the port runs on the 950.

Fidelity: BIT-EXACT (Duplicate, Compare, Select, Cast, DataCopyPad; SPEC-2 0.3). NaN compares false (SPEC-2 D43):
a NaN input gives 0. lambd is rounded to half by static_cast (RNE) in the half kernel.
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
MIN_SPLIT_THRESHOLD = 1024
UB_RESERVED_BYTE = 1024
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("ascend950",)
ORIGINAL_TAIL = False              # True: the rounded-up Compares read the lanes past the copy / Cast as the UB holds


class HardShrinkTilingData(ctypes.Structure):
    _fields_ = [("totalNum", ctypes.c_int64), ("blockFactor", ctypes.c_int64), ("ubFactor", ctypes.c_int64),
                ("lambd", ctypes.c_float)]


def tiling(device, total, dtype, lambd=0.5):
    """HardShrinkTilingFunc: (used cores, BUFFER_MODE, IS_BF16, the tiling bytes)."""
    ub_size = aj.get_device(device).ub_bytes
    total = max(total, 1)                                   # EnsureNotScalar
    is_bf16 = dtype == "bfloat16"
    compute_size = 4 if dtype in ("bfloat16", "float") else 2
    block_factor = -(-total // CORE_NUM)
    used = -(-total // block_factor)
    buffer_mode = 1 if total > MIN_SPLIT_THRESHOLD else 0
    bm = 2 if buffer_mode else 1
    align = 256 // compute_size
    per_elem = 2 * 2 * bm + compute_size * 4 if is_bf16 else compute_size * 2 * bm + compute_size * 3
    ub_factor = (ub_size - UB_RESERVED_BYTE) * 8 // (per_elem * 8 + 1) // align * align
    t = HardShrinkTilingData(totalNum=total, blockFactor=block_factor, ubFactor=ub_factor, lambd=lambd)
    return used, buffer_mode, int(is_bf16), np.frombuffer(bytes(t), np.uint8).copy()


class HardShrink:
    """`HardShrink<T, BUFFER_MODE, IS_BF16>`."""

    def __init__(self, T, BUFFER_MODE, IS_BF16):
        self.IO_T = "bfloat16" if IS_BF16 else T
        self.COMPUTE_T = "float" if IS_BF16 else T
        self.IS_BF16 = IS_BF16
        self.BUFFER_NUM = 2 if BUFFER_MODE else 1

    def Init(self, self_gm, out, tilingData):
        IO_T, CT = self.IO_T, self.COMPUTE_T
        blk = aj.GetBlockIdx()
        remainderLength = tilingData.totalNum - tilingData.blockFactor * blk
        self.blockLength_ = min(remainderLength, tilingData.blockFactor)
        self.ubLength_ = tilingData.ubFactor
        self.lambd_ = np.float32(tilingData.lambd)
        self.selfGM, self.outGM = aj.GlobalTensor(IO_T), aj.GlobalTensor(IO_T)
        self.selfGM.SetGlobalBuffer(self_gm[tilingData.blockFactor * blk:], self.blockLength_)
        self.outGM.SetGlobalBuffer(out[tilingData.blockFactor * blk:], self.blockLength_)
        self.pipe = aj.TPipe()
        self.inputQueue = aj.TQue(aj.QuePosition.VECIN, self.BUFFER_NUM)
        self.outputQueue = aj.TQue(aj.QuePosition.VECOUT, self.BUFFER_NUM)
        self.lambdBuf, self.negLambdBuf, self.tmpBuf, self.tmp2Buf, self.cmpMaskBuf = (
            aj.TBuf(aj.QuePosition.VECCALC) for _ in range(5))
        self.pipe.InitBuffer(self.inputQueue, self.BUFFER_NUM, self.ubLength_ * TYPE_SIZE[IO_T])
        self.pipe.InitBuffer(self.outputQueue, self.BUFFER_NUM, self.ubLength_ * TYPE_SIZE[IO_T])
        csize = 4 if CT == "float" else 2
        self.pipe.InitBuffer(self.lambdBuf, self.ubLength_ * csize)
        self.pipe.InitBuffer(self.negLambdBuf, self.ubLength_ * csize)
        self.pipe.InitBuffer(self.tmpBuf, self.ubLength_ * csize)
        if self.IS_BF16:
            self.pipe.InitBuffer(self.tmp2Buf, self.ubLength_ * csize)
        maskBytes = (self.ubLength_ // 8 + 31) // 32 * 32
        self.pipe.InitBuffer(self.cmpMaskBuf, maskBytes)
        # the lambd / -lambd tensors, filled once (static_cast<COMPUTE_T>: RNE for half)
        aj.Duplicate(self.lambdBuf.Get(CT), _NP[CT](self.lambd_), self.ubLength_)
        aj.Duplicate(self.negLambdBuf.Get(CT), _NP[CT](-self.lambd_), self.ubLength_)

    def _aligned(self, currentNum):
        alignElems = 256 // (4 if self.COMPUTE_T == "float" else 2)
        return min((currentNum + alignElems - 1) // alignElems * alignElems, self.ubLength_)

    def CopyIn(self, progress, currentNum):
        IO_T = self.IO_T
        inputLocal = self.inputQueue.AllocTensor(IO_T)
        if not ORIGINAL_TAIL and not self.IS_BF16:
            # deviation (module docstring): the lanes the rounded-up Compare reads past the copy are zeroed first
            alignedNum = self._aligned(currentNum)
            copied = -(-currentNum * TYPE_SIZE[IO_T] // 32) * 32 // TYPE_SIZE[IO_T]
            if alignedNum > copied:
                aj.Duplicate(inputLocal[copied:], _NP[IO_T](0), alignedNum - copied)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[IO_T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(inputLocal, self.selfGM[progress * self.ubLength_], copyParams, (False, 0, 0, 0))
        self.inputQueue.EnQue(inputLocal)

    def Compute(self, currentNum):
        IO_T, CT = self.IO_T, self.COMPUTE_T
        inputLocal = self.inputQueue.DeQue(IO_T)
        outputLocal = self.outputQueue.AllocTensor(IO_T)
        lambdLocal = self.lambdBuf.Get(CT)
        negLambdLocal = self.negLambdBuf.Get(CT)
        tmpLocal = self.tmpBuf.Get(CT)
        maskLocal = self.cmpMaskBuf.Get("uint8")
        alignedNum = self._aligned(currentNum)
        zero = _NP[CT](0)
        if self.IS_BF16:
            tmp2Local = self.tmp2Buf.Get(CT)
            if not ORIGINAL_TAIL and alignedNum > currentNum:
                # deviation (module docstring): zeros over the float lanes past the Cast, before it
                head = currentNum // 8 * 8
                aj.Duplicate(tmpLocal[head:], zero, alignedNum - head)
            aj.Cast(tmpLocal, inputLocal, aj.RoundMode.CAST_NONE, currentNum)
            aj.Compare(maskLocal, tmpLocal, lambdLocal, aj.CMPMODE.GT, alignedNum)
            aj.Select(tmp2Local, maskLocal, tmpLocal, zero, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, alignedNum)
            aj.Compare(maskLocal, tmpLocal, negLambdLocal, aj.CMPMODE.LT, alignedNum)
            aj.Select(tmpLocal, maskLocal, tmpLocal, tmp2Local, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, alignedNum)
            aj.Cast(outputLocal, tmpLocal, aj.RoundMode.CAST_RINT, currentNum)
        else:
            aj.Compare(maskLocal, inputLocal, lambdLocal, aj.CMPMODE.GT, alignedNum)
            aj.Select(tmpLocal, maskLocal, inputLocal, zero, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, alignedNum)
            aj.Compare(maskLocal, inputLocal, negLambdLocal, aj.CMPMODE.LT, alignedNum)
            aj.Select(outputLocal, maskLocal, inputLocal, tmpLocal, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, alignedNum)
        self.outputQueue.EnQue(IO_T, outputLocal)
        self.inputQueue.FreeTensor(inputLocal)

    def CopyOut(self, progress, currentNum):
        outputLocal = self.outputQueue.DeQue(self.IO_T)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[self.IO_T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(self.outGM[progress * self.ubLength_], outputLocal, copyParams)
        self.outputQueue.FreeTensor(outputLocal)

    def Process(self):
        if self.blockLength_ <= 0:
            return
        loopCount = (self.blockLength_ + self.ubLength_ - 1) // self.ubLength_
        for i in range(loopCount):
            currentNum = self.blockLength_ - self.ubLength_ * i if i == loopCount - 1 else self.ubLength_
            self.CopyIn(i, currentNum)
            self.Compute(currentNum)
            self.CopyOut(i, currentNum)


aj.REGISTER_TILING_DEFAULT(HardShrinkTilingData)


def hard_shrink(self_gm, out, workspace, tiling_bytes, dtype, BUFFER_MODE, IS_BF16):
    """The kernel entry (hard_shrink.cpp; the tiling key's D_T, BUFFER_MODE and IS_BF16 as arguments)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(HardShrinkTilingData, tiling_bytes)
    op = HardShrink(dtype, BUFFER_MODE, IS_BF16)
    op.Init(self_gm, out, tilingData)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_hard_shrink(device, x, lambd=0.5):
    dtype = _dtype_name(x)
    used, mode, is_bf16, t = tiling(device, x.size, dtype, lambd)
    y = np.zeros_like(x)
    aj.launch(hard_shrink, used, device, np.ascontiguousarray(x), y, None, t, dtype, mode, is_bf16)
    return y


def hard_shrink_model(x, lambd=0.5):
    """x where x > lambd or x < -lambd (lambd as the compute type holds it; NaN compares false), +0 elsewhere."""
    ct = np.float16 if x.dtype == np.float16 else np.float32
    lam = ct(np.float32(lambd))
    neg = ct(-np.float32(lambd))
    xc = x.astype(ct)
    with np.errstate(invalid="ignore"):
        keep = (xc > lam) | (xc < neg)
    return np.where(keep, x, np.zeros(1, x.dtype)).astype(x.dtype)


LAMBD = 0.5


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-1.5, 1.5, size).astype(np.float32)
        x[::101] = LAMBD
        x[1::101] = -LAMBD
        return {"x": x.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"y": run_hard_shrink(device, inputs["x"], LAMBD)}


def _expected(device, inputs):
    return {"y": hard_shrink_model(inputs["x"], LAMBD)}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/hard_shrink/op_kernel/hard_shrink.h"
KERNELS = [
    KernelSpec(f"hard_shrink{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 300001, "HardShrink over floats (tensor-tensor Compare GT / LT into a bit mask against "
         "Duplicate'd lambd tensors, Select tensor-scalar then tensor-tensor, over 256-byte rounded counts; "
         "double-buffered DataCopyPad tiles)"),
        ("_half", "half", 1000, "HardShrink over halves (lambd rounded to half; 1000 elements: single-buffered "
         "depth-1 queues)"),
        ("_bf16", "bfloat16", 100003, "HardShrink over bfloat16 (Cast to float, the compares and selects in float, "
         "Cast CAST_RINT back)"))
]
