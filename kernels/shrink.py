"""Shrink from the CANN NN operators, the Ascend 950 (arch35) kernel: y = x - bias where x > lambd, x + bias where
x < -lambd, 0 between (float and half).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/activation/shrink:
- op_kernel/shrink.cpp (the entry: REGISTER_TILING_DEFAULT, GET_TILING_DATA_WITH_STRUCT, `Shrink<T, BUFFER_MODE>`);
- op_kernel/shrink.h (`Shrink<T, BUFFER_MODE>`: blockFactor elements a core from GetBlockIdx(), the last core the
  rest; VECIN and VECOUT queues of one or two ubFactor buffers, a mid TBuf and two bit-mask TBufs of ubFactor / 8
  bytes rounded up to 32; per tile DataCopyPad in with brace-list DataCopyParams `{1, bytes, 0, 0}` and
  `{false, 0, 0, 0}`, two count-form Compares (LT -lambd, GT lambd) over the count rounded up to 256 bytes, Adds
  -bias, Duplicate 0, Select (mask GT, x - bias, 0), Adds +bias, Select (mask LT, x + bias, the result) over the
  tile's count, `EnQue<T>`, DataCopyPad out);
- op_host/shrink_tiling.cpp (`ShrinkTilingFunc`, `CalcUbFactor`: blockFactor = ceil(total / cores); double
  buffering above 1024 elements; ubFactor = (UB - 48 KB) over 2 * buffers + 1 tiles, 256-byte aligned, no more than
  the input rounded up and no more than 65535 bytes (DataCopyParams' uint16 blockLen); lambd clamped at 0).

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's); lambd and bias are arguments
of the gallery kernel (0.5 and 0.25).

Deviation at a short tile only: the Compares run over the tile's count rounded up to 256 bytes (their count must be
whole 256-byte blocks, SPEC-2 D44, as the original's comment says), so a short tile's lanes past the DataCopyPad's
32-byte blocks are compared: bytes nothing wrote at the buffer's first use (their mask bits are never selected, the
Selects stop at the count), an uninitialised read for the sanitizer. The port zeroes those elements by a Duplicate
before the copy-in; the results are the original's.

Fidelity: BIT-EXACT (Compares, Adds, Duplicate, Select are BIT-EXACT). The expectation is numpy's where() over the
same comparisons and the input-type additions (half: rounded once, as Adds rounds; lambd and bias converted to the
type as static_cast<T> does).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                        # deviation: the launch's cores (GetCoreNumAiv in the original)
MIN_SPLIT_THRESHOLD = 1024
UB_RESERVED_BYTES = 48 * 1024
UB_BLOCK_SIZE = 32                  # GetUbBlockSize
MAX_COPY_BYTES = 65535
LAMBD, BIAS = 0.5, 0.25
TYPE_SIZE = {"float": 4, "half": 2}
_NP = {"float": np.float32, "half": np.float16}

ShrinkTilingData = np.dtype([("totalNum", np.int64), ("blockFactor", np.int64), ("ubFactor", np.int64),
                             ("lambd", np.float32), ("bias", np.float32)], align=True)


def tiling(device, total, dtype, lambd, bias):
    """ShrinkTilingFunc: (block dim, BUFFER_MODE, the packed ShrinkTilingData)."""
    t = np.zeros(1, ShrinkTilingData)
    t["totalNum"] = total
    t["blockFactor"] = -(-total // CORE_NUM)
    used = -(-total // int(t["blockFactor"][0]))
    t["lambd"], t["bias"] = max(lambd, 0.0), bias
    double = 1 if total > MIN_SPLIT_THRESHOLD else 0
    # CalcUbFactor
    size = TYPE_SIZE[dtype]
    compute_alignment = 256 // size
    available = aj.get_device(device).ub_bytes - UB_RESERVED_BYTES
    buffer_bytes = (2 * (2 if double else 1) + 1) * size
    align = max(UB_BLOCK_SIZE, compute_alignment)
    factor = available // buffer_bytes // align * align
    if total < factor:
        factor = -(-total // align) * align
    if factor > MAX_COPY_BYTES // size:
        factor = MAX_COPY_BYTES // size // align * align
    t["ubFactor"] = factor
    return used, double, t.view(np.uint8).copy()


class Shrink:
    def __init__(self, T, BUFFER_MODE):
        self.T, self.BUFFER_NUM = T, 2 if BUFFER_MODE else 1

    def Init(self, x, out, tilingData):
        T = self.T
        remainderLength = int(tilingData.totalNum) - int(tilingData.blockFactor) * aj.GetBlockIdx()
        self.blockLength_ = min(remainderLength, int(tilingData.blockFactor))
        self.ubLength_ = int(tilingData.ubFactor)
        self.lambd_, self.bias_ = np.float32(tilingData.lambd), np.float32(tilingData.bias)
        offset = int(tilingData.blockFactor) * aj.GetBlockIdx()
        self.gmIn_, self.gmOut_ = aj.GlobalTensor(), aj.GlobalTensor()
        self.gmIn_.SetGlobalBuffer(x[offset:], max(self.blockLength_, 0))
        self.gmOut_.SetGlobalBuffer(out[offset:], max(self.blockLength_, 0))
        self.pipe_ = aj.TPipe()
        self.inputQueue_ = aj.TQue(aj.QuePosition.VECIN, self.BUFFER_NUM)
        self.outputQueue_ = aj.TQue(aj.QuePosition.VECOUT, self.BUFFER_NUM)
        self.midBuf_ = aj.TBuf(aj.TPosition.VECCALC)
        self.maskBuf1_, self.maskBuf2_ = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        self.pipe_.InitBuffer(self.inputQueue_, self.BUFFER_NUM, self.ubLength_ * TYPE_SIZE[T])
        self.pipe_.InitBuffer(self.outputQueue_, self.BUFFER_NUM, self.ubLength_ * TYPE_SIZE[T])
        self.pipe_.InitBuffer(self.midBuf_, self.ubLength_ * TYPE_SIZE[T])
        maskBytes = max((self.ubLength_ // 8 + 31) & ~31, 32)
        self.pipe_.InitBuffer(self.maskBuf1_, maskBytes)
        self.pipe_.InitBuffer(self.maskBuf2_, maskBytes)

    def ComputeNum(self, currentNum):
        """Compute's computeNum: the count rounded up to whole 256 bytes (the Compares' count rule)."""
        computeAlignment = 256 // TYPE_SIZE[self.T]
        return -(-currentNum // computeAlignment) * computeAlignment

    def CopyIn(self, progress, currentNum):
        T = self.T
        inLocal = self.inputQueue_.AllocTensor(T)
        copied = aj.AlignUp(currentNum * TYPE_SIZE[T], 32) // TYPE_SIZE[T]
        computeNum = self.ComputeNum(currentNum)
        if computeNum > copied:
            # not in the original: the Compares' lanes past the copy (docstring); past the copy's bytes, so no
            # ordering against it, and the Compares follow on the vector pipe
            aj.Duplicate(inLocal[copied], _NP[T](0), computeNum - copied)
        aj.DataCopyPad(inLocal, self.gmIn_[progress * self.ubLength_],
                       aj.DataCopyParams(1, currentNum * TYPE_SIZE[T], 0, 0), (False, 0, 0, 0))
        self.inputQueue_.EnQue(inLocal)

    def CopyOut(self, progress, currentNum):
        T = self.T
        outLocal = self.outputQueue_.DeQue(T)
        aj.DataCopyPad(self.gmOut_[progress * self.ubLength_], outLocal,
                       aj.DataCopyParams(1, currentNum * TYPE_SIZE[T], 0, 0))
        self.outputQueue_.FreeTensor(outLocal)

    def Compute(self, currentNum):
        T = self.T
        inLocal = self.inputQueue_.DeQue(T)
        midLocal = self.midBuf_.Get(T)
        outLocal = self.outputQueue_.AllocTensor(T)
        maskNeg, maskPos = self.maskBuf1_.Get("uint8"), self.maskBuf2_.Get("uint8")
        computeNum = self.ComputeNum(currentNum)
        aj.Compares(maskNeg, inLocal, _NP[T](-self.lambd_), aj.CMPMODE.LT, computeNum)
        aj.Compares(maskPos, inLocal, _NP[T](self.lambd_), aj.CMPMODE.GT, computeNum)
        aj.Adds(outLocal, inLocal, _NP[T](-self.bias_), currentNum)
        aj.Duplicate(midLocal, _NP[T](0.0), currentNum)
        aj.Select(outLocal, maskPos, outLocal, midLocal, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, currentNum)
        aj.Adds(midLocal, inLocal, _NP[T](self.bias_), currentNum)
        aj.Select(outLocal, maskNeg, midLocal, outLocal, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, currentNum)
        self.outputQueue_.EnQue(T, outLocal)
        self.inputQueue_.FreeTensor(inLocal)

    def Process(self):
        if self.blockLength_ <= 0:
            return
        loopCount = -(-self.blockLength_ // self.ubLength_)
        for i in range(loopCount):
            currentNum = self.blockLength_ - self.ubLength_ * i if i == loopCount - 1 else self.ubLength_
            self.CopyIn(i, currentNum)
            self.Compute(currentNum)
            self.CopyOut(i, currentNum)


aj.REGISTER_TILING_DEFAULT(ShrinkTilingData)


def shrink(x, out, workspace, tiling_bytes, D_T_X, BUFFER_MODE):
    """The kernel entry; D_T_X and BUFFER_MODE are the tiling key's template arguments."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ShrinkTilingData, tiling_bytes)
    op = Shrink(D_T_X, BUFFER_MODE)
    op.Init(x, out, tilingData)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-2.0, 2.0, size).astype(np.float32)
        specials = np.array([0.5, -0.5, 0.75, -0.75, 0.0, -0.0, np.inf, -np.inf, np.nan], np.float32)
        x[:min(size, specials.size)] = specials[:size]
        return {"x": x.astype(_NP[dtype])}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        y = np.zeros_like(x)
        block_dim, mode, tiling_bytes = tiling(device, x.size, dtype, LAMBD, BIAS)
        aj.launch(shrink, block_dim, device, x, y, np.zeros(32, np.uint8), tiling_bytes, dtype, mode)
        return {"y": y}
    return run


def _expected(dtype):
    def expected(device, inputs):
        t = _NP[dtype]
        x = inputs["x"]
        lam, b = t(np.float32(LAMBD)), t(np.float32(BIAS))
        with np.errstate(invalid="ignore"):
            return {"y": np.where(x < -lam, (x + b).astype(t), np.where(x > lam, (x - b).astype(t), t(0)))}
    return expected


def _size_ok(n):
    return 0 < n <= 1 << 24


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/shrink/op_kernel/shrink.h"
KERNELS = [
    KernelSpec("shrink", "ops-nn Shrink over floats, 950 arch35: two count-form Compares over 256-byte rounded "
               "counts into bit-mask TBufs, Adds, Duplicate 0 and two tensor-tensor Selects over the tile's count; "
               "brace-list DataCopyParams, unaligned core starts, one or two buffers by size",
               _make_inputs("float"), _run("float"), _expected("float"), default_size=100000,
               devices=("ascend950",), size_rule="1 to 16Mi elements", size_ok=_size_ok, source=_SOURCE),
    KernelSpec("shrink_half", "ops-nn Shrink over halves (lambd, bias cast to half)", _make_inputs("half"),
               _run("half"), _expected("half"), default_size=100000, devices=("ascend950",),
               size_rule="1 to 16Mi elements", size_ok=_size_ok, source=_SOURCE),
]
