"""HardShrinkGrad from the CANN NN operators: dx = grad where |x| > lambd, 0 elsewhere, element by element over float
(in the input type) and half / bfloat16 (in float).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/activation/hard_shrink_grad:
- op_kernel/hard_shrink_grad.h (`HardShrinkGradDirect<T, BUFFER_MODE>` for float, `HardShrinkGradCastFp32<T,
  BUFFER_MODE>` for the 16-bit types): each core blockFactor elements (the last the rest); queues of depth 2
  (BUFFER_MODE 1) or 1 of ubFactor elements for grad, x and the output; float TBufs of ubFactor elements (abs, lambd,
  zero; the 16-bit kernel three more for the Casts) and a bit-mask TBuf of ceil(ubFactor / 8) rounded up to 256
  bytes; Init Duplicates lambd and 0 over ubFactor once and PipeBarrier<PIPE_V>; per tile two DataCopyPads in
  (DataCopyParams set field by field, the brace-list pad), then over the **whole ubFactor** (not the tile's count):
  (16-bit: Cast CAST_NONE of both to float), Abs, tensor-tensor Compare GT against lambd into the bit mask, Select
  VSEL_TENSOR_TENSOR_MODE (grad or the zeros), (16-bit: Cast CAST_ROUND back); DataCopyPad of the tile out;
- op_kernel/hard_shrink_grad.cpp (the entry: sizeof(T) == 2 picks the Cast kernel) and
  op_host/hard_shrink_grad_tiling.cpp (blockFactor = ceil(total / cores); double buffering above 1024 elements;
  ubFactor = (UB - 256) / ((3 * buffers + 3) * 4 bytes for float, 3 * buffers * 2 + 6 * 4 for the 16-bit types),
  rounded down to 32 and then 64 elements; lambd a float attribute, default 0.5).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). (1) The tiling reserves 256 UB bytes
for the bit mask, which the kernel sizes ceil(ubFactor / 8) rounded up to 256: for the 16-bit types single-buffered
(1024 elements or fewer) ubFactor is 6528 on the A2 / A3, the buffers leave 768 bytes and the mask wants 1024 (and
the Compare writes 816): InitBuffer refuses it (ORIGINAL_MASK = True shows it). The port's tiling takes 64 elements
off ubFactor until the mask fits (6464 there; every other case is unchanged). (2) Every Compute runs over ubFactor lanes
while a short tile (the last of a core; every tile of a core shorter than ubFactor) copies in only its count: the
lanes past it are uninitialised at the queue buffers' first use (the sanitizer's init report; later a previous
tile's values) and never copied out. The port zeroes the input tiles' lanes past the copy's 32-byte blocks by a
Duplicate (int16 view) before the copy (ORIGINAL_TAIL = True runs the original's form).

Devices: the operator's config is the ascend910b (A2; the A3 shares its kernels): the port runs on the A3 and A2.

Fidelity: BIT-EXACT (Duplicate, Abs, Compare, Select, Cast, DataCopyPad; SPEC-2 0.3). |NaN| > lambd is false (D43):
a NaN x gives 0; a NaN grad passes where |x| > lambd. lambd is compared in float (half / bfloat16 too).
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
MIN_SPLIT_THRESHOLD = 1024
CMP_MASK_RESERVE = 256
UB_BLOCK_SIZE = 32
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("atlas-a3", "atlas-a2")
ORIGINAL_TAIL = False              # True: the whole-buffer Compute reads the lanes past the copy as the UB holds them
ORIGINAL_MASK = False              # True: the original's ubFactor (the 16-bit single-buffered mask overruns the UB)


def _mask_bytes(ub_factor):
    """The kernel's bit-mask TBuf: ceil(ubFactor / 8) bytes rounded up to 256, at least 256."""
    return max(((ub_factor + 7) // 8 + 255) // 256 * 256, 256)


class HardShrinkGradTilingData(ctypes.Structure):
    _fields_ = [("totalNum", ctypes.c_int64), ("blockFactor", ctypes.c_int64), ("ubFactor", ctypes.c_int64),
                ("lambd", ctypes.c_float)]


def tiling(device, total, dtype, lambd=0.5):
    """HardShrinkGradTilingFunc: (used cores, BUFFER_MODE, the tiling bytes)."""
    ub_size = aj.get_device(device).ub_bytes
    total = max(total, 1)                                   # EnsureNotScalar
    block_factor = -(-total // CORE_NUM)
    used = -(-total // block_factor)
    double = 1 if total > MIN_SPLIT_THRESHOLD else 0
    bufs = 2 if double else 1
    per_elem = (3 * bufs + 3) * 4 if dtype == "float" else 3 * bufs * 2 + 6 * 4
    ub_factor = (ub_size - CMP_MASK_RESERVE) // per_elem // UB_BLOCK_SIZE * UB_BLOCK_SIZE // 64 * 64
    if not ORIGINAL_MASK:
        # deviation (module docstring): 64 elements fewer until the mask the kernel sizes fits beside the buffers
        while ub_factor > 64 and ub_factor * per_elem + _mask_bytes(ub_factor) > ub_size:
            ub_factor -= 64
    t = HardShrinkGradTilingData(totalNum=total, blockFactor=block_factor, ubFactor=ub_factor, lambd=lambd)
    return used, double, np.frombuffer(bytes(t), np.uint8).copy()


class HardShrinkGrad:
    """`HardShrinkGradDirect<float, BUFFER_MODE>` and `HardShrinkGradCastFp32<half / bfloat16, BUFFER_MODE>`."""

    def __init__(self, T, BUFFER_MODE):
        self.T = T
        self.cast = TYPE_SIZE[T] == 2
        self.BUFFER_NUM = 2 if BUFFER_MODE else 1

    def Init(self, gradOutput, self_gm, output, tilingData):
        T = self.T
        blk = aj.GetBlockIdx()
        remainderLength = tilingData.totalNum - tilingData.blockFactor * blk
        self.blockLength_ = min(remainderLength, tilingData.blockFactor)
        self.ubLength_ = tilingData.ubFactor
        self.lambd_ = np.float32(tilingData.lambd)
        offset = tilingData.blockFactor * blk
        self.inputGMGrad, self.inputGMSelf, self.outputGM = (aj.GlobalTensor(T) for _ in range(3))
        self.inputGMGrad.SetGlobalBuffer(gradOutput[offset:], self.blockLength_)
        self.inputGMSelf.SetGlobalBuffer(self_gm[offset:], self.blockLength_)
        self.outputGM.SetGlobalBuffer(output[offset:], self.blockLength_)
        self.pipe = aj.TPipe()
        self.inputQueueGrad = aj.TQue(aj.QuePosition.VECIN, self.BUFFER_NUM)
        self.inputQueueSelf = aj.TQue(aj.QuePosition.VECIN, self.BUFFER_NUM)
        self.outputQueue = aj.TQue(aj.QuePosition.VECOUT, self.BUFFER_NUM)
        for q in (self.inputQueueGrad, self.inputQueueSelf, self.outputQueue):
            self.pipe.InitBuffer(q, self.BUFFER_NUM, self.ubLength_ * TYPE_SIZE[T])
        names = ("gradFp32", "selfFp32", "outFp32", "abs", "lambd", "zero") if self.cast else ("abs", "lambd", "zero")
        self.bufs = {name: aj.TBuf(aj.QuePosition.VECCALC) for name in names}
        for b in self.bufs.values():
            self.pipe.InitBuffer(b, self.ubLength_ * 4)     # float (the float kernel's T is float)
        cmpMaskBytes = _mask_bytes(self.ubLength_)
        self.cmpMaskBuf = aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.cmpMaskBuf, cmpMaskBytes)
        if self.blockLength_ > 0:
            aj.Duplicate(self.bufs["lambd"].Get("float"), self.lambd_, self.ubLength_)
            aj.Duplicate(self.bufs["zero"].Get("float"), np.float32(0.0), self.ubLength_)
            aj.PipeBarrier(aj.PIPE_V)

    def CopyIn(self, progress, currentNum):
        T = self.T
        gradLocal = self.inputQueueGrad.AllocTensor(T)
        selfLocal = self.inputQueueSelf.AllocTensor(T)
        if not ORIGINAL_TAIL and currentNum < self.ubLength_:
            # deviation (module docstring): zeros over the lanes past the copy that the whole-buffer Compute reads
            copied = -(-currentNum * TYPE_SIZE[T] // 32) * 32
            end = self.ubLength_ * TYPE_SIZE[T]
            if end > copied:
                for t in (gradLocal, selfLocal):
                    aj.Duplicate(t.ReinterpretCast("int16")[copied // 2:], np.int16(0), (end - copied) // 2)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(gradLocal, self.inputGMGrad[progress * self.ubLength_], copyParams, (False, 0, 0, 0))
        aj.DataCopyPad(selfLocal, self.inputGMSelf[progress * self.ubLength_], copyParams, (False, 0, 0, 0))
        self.inputQueueGrad.EnQue(gradLocal)
        self.inputQueueSelf.EnQue(selfLocal)

    def Compute(self, currentNum):
        T = self.T
        gradLocal = self.inputQueueGrad.DeQue(T)
        selfLocal = self.inputQueueSelf.DeQue(T)
        outLocal = self.outputQueue.AllocTensor(T)
        absLocal = self.bufs["abs"].Get("float")
        lambdLocal = self.bufs["lambd"].Get("float")
        zeroLocal = self.bufs["zero"].Get("float")
        cmpMask = self.cmpMaskBuf.Get("uint8")
        computeNum = self.ubLength_                          # the whole buffer, as the original
        if self.cast:
            gradF, selfF = self.bufs["gradFp32"].Get("float"), self.bufs["selfFp32"].Get("float")
            outF = self.bufs["outFp32"].Get("float")
            aj.Cast(gradF, gradLocal, aj.RoundMode.CAST_NONE, computeNum)
            aj.Cast(selfF, selfLocal, aj.RoundMode.CAST_NONE, computeNum)
            aj.Abs(absLocal, selfF, computeNum)
            aj.Compare(cmpMask, absLocal, lambdLocal, aj.CMPMODE.GT, computeNum)
            aj.Select(outF, cmpMask, gradF, zeroLocal, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, computeNum)
            aj.Cast(outLocal, outF, aj.RoundMode.CAST_ROUND, computeNum)
        else:
            aj.Abs(absLocal, selfLocal, computeNum)
            aj.Compare(cmpMask, absLocal, lambdLocal, aj.CMPMODE.GT, computeNum)
            aj.Select(outLocal, cmpMask, gradLocal, zeroLocal, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, computeNum)
        self.outputQueue.EnQue(T, outLocal)
        self.inputQueueGrad.FreeTensor(gradLocal)
        self.inputQueueSelf.FreeTensor(selfLocal)

    def CopyOut(self, progress, currentNum):
        outLocal = self.outputQueue.DeQue(self.T)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[self.T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(self.outputGM[progress * self.ubLength_], outLocal, copyParams)
        self.outputQueue.FreeTensor(outLocal)

    def Process(self):
        if self.blockLength_ <= 0:
            return
        loopCount = (self.blockLength_ + self.ubLength_ - 1) // self.ubLength_
        for i in range(loopCount):
            currentNum = self.blockLength_ - self.ubLength_ * i if i == loopCount - 1 else self.ubLength_
            self.CopyIn(i, currentNum)
            self.Compute(currentNum)
            self.CopyOut(i, currentNum)


aj.REGISTER_TILING_DEFAULT(HardShrinkGradTilingData)


def hard_shrink_grad(grad_output, self_gm, output, workspace, tiling_bytes, dtype, BUFFER_MODE):
    """The kernel entry (hard_shrink_grad.cpp; D_T and BUFFER_MODE as arguments)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(HardShrinkGradTilingData, tiling_bytes)
    op = HardShrinkGrad(dtype, BUFFER_MODE)
    op.Init(grad_output, self_gm, output, tilingData)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_hard_shrink_grad(device, grad, x, lambd=0.5):
    dtype = _dtype_name(x)
    used, mode, t = tiling(device, x.size, dtype, lambd)
    out = np.zeros_like(x)
    aj.launch(hard_shrink_grad, used, device, np.ascontiguousarray(grad), np.ascontiguousarray(x), out, None, t,
              dtype, mode)
    return out


def hard_shrink_grad_model(grad, x, lambd=0.5):
    """grad where |x| > lambd (in float; NaN compares false), +0 elsewhere."""
    with np.errstate(invalid="ignore"):
        keep = np.abs(x.astype(np.float32)) > np.float32(lambd)
    return np.where(keep, grad, np.zeros(1, grad.dtype)).astype(grad.dtype)


LAMBD = 0.5


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-1.5, 1.5, size).astype(np.float32)
        x[::97] = LAMBD
        x[1::97] = -LAMBD
        g = rng.standard_normal(size).astype(np.float32)
        return {"grad": g.astype(_NP[dtype]), "x": x.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"dx": run_hard_shrink_grad(device, inputs["grad"], inputs["x"], LAMBD)}


def _expected(device, inputs):
    return {"dx": hard_shrink_grad_model(inputs["grad"], inputs["x"], LAMBD)}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/hard_shrink_grad/op_kernel/hard_shrink_grad.h"
KERNELS = [
    KernelSpec(f"hard_shrink_grad{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 100003, "HardShrinkGrad over floats (Abs, tensor-tensor Compare GT against a Duplicate'd "
         "lambd into a bit mask, Select VSEL_TENSOR_TENSOR_MODE against Duplicate'd zeros, all over the whole "
         "tile buffer; double-buffered DataCopyPad tiles)"),
        ("_half", "half", 1000, "HardShrinkGrad over halves (Casts to float, the chain in float, Cast CAST_ROUND; "
         "1000 elements: single-buffered)"),
        ("_bf16", "bfloat16", 50003, "HardShrinkGrad over bfloat16 (as the half kernel)"))
]
