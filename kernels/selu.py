"""Selu from the CANN NN operators: y = scale * (max(0, x) + min(0, alpha * (exp(x) - 1))) over float, half,
bfloat16, int32 and int8: half computed in half, the others in float between Casts (int8 through half both ways).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-nn @ 41926c8ac093027500bb80462c94c1c31cb89e89, experimental/activation/selu/op_kernel/selu.h
(`NsSelu::Selu<T>`: per core a contiguous share `blockFactor * blockIdx`, the last core the rest; single-buffered
VECIN/VECOUT queues and two TBufs; each tile copied in and out by DataCopyPad with the older DataCopyParams
(blockLen in bytes, so a short tile moves exactly its bytes) and computed over its count rounded up to 32 bytes of
the wider of T and the compute type: Mins 0, Exp, Adds -1, Muls alpha, Mins 0; Maxs 0; Add; Muls scale) with the host
tiling of experimental/activation/selu/op_host/selu_tiling.cpp (`SeluTilingFunc`: the cores' shares rounded up to
32 bytes; the tile the UB divided by the bytes per element of the four buffers, rounded down to 32 bytes, so the
buffers fill the UB).

What each dtype exercises: half and float the scalar Mins/Maxs/Adds/Muls chain in place (half scalars rounded once,
SPEC-2 D29); bfloat16 Cast CAST_NONE in and CAST_ROUND out; int32 Cast int32 -> float CAST_NONE and float -> int32
CAST_TRUNC; int8 the two-step Casts int8 -> half -> float (CAST_NONE) through a TBuf reinterpreted as half
(`tmp2.ReinterpretCast<half>()`) and float -> half -> int8 with CAST_TRUNC twice.

Deviation: the core count is the launch's 8 (GetCoreNumAiv would give the device's). The host pads GM to 32 bytes,
as device allocations are. Nothing else: the tail tile's compute over the rounded count reads only bytes the
DataCopyPad wrote (it fills the whole last 32-byte block).

Devices: the DataCopyPad of DataCopyParams and the Casts decide. float and half run on the 950, A3, A2 and 310B
(DataCopyPad GM <-> UB: not on the 310P and 910); bfloat16 and int8 too (their Casts); int32 needs int32 -> float
CAST_NONE (A3, A2, 310B: the 950 refuses it, SPEC-2 D72).

Fidelity: MODELLED (Exp is MODELLED on every device, SPEC-2 0.3). Against float64 selu: inputs keep |x| >= 0.25 so
exp(x) - 1 loses little relative precision to cancellation; float results are within 2e-6 relative (five float
roundings and Exp's; 1.9e-7 measured), half within 5e-3 (the same chain in half, ulp 2**-10, the Exp error amplified
up to 3.6x by the cancellation at x = -0.25; 1.6e-3 measured), bfloat16 within 5e-3 (the float chain and one
CAST_ROUND to bfloat16: up to 2**-8 relative; 3.8e-3 measured); the integer dtypes equal trunc(selu(x)) exactly
(integer inputs, the int8 ones below 120 so the result fits; the closest result to an integer, selu(927) =
973.99982, is 1.8e-4 away, beyond the float chain's 1e-4 error).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

ALPHA = 1.6732632423543772848170429916717
SCALE = 1.0507009873554804934193349852946
CORE_NUM = 8
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2, "int32": 4, "int8": 1}
COMPUTE_SIZE = {"float": 4, "half": 2, "bfloat16": 4, "int32": 4, "int8": 4}
PAD_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
INT_DEVICES = ("atlas-a3", "atlas-a2", "atlas-200i-500-a2")


def tiling(device, total, dtype):
    """SeluTilingFunc: (usedCoreNum, tiling data)."""
    type_size, compute_size = TYPE_SIZE[dtype], COMPUTE_SIZE[dtype]
    ub_block = 32 // type_size
    block_factor = -(-(-(-total // CORE_NUM)) // ub_block) * ub_block
    used = -(-total // block_factor)
    ub_divisor = (2 * type_size + 2 * compute_size) // type_size
    ub_factor = aj.get_device(device).ub_bytes // type_size // ub_divisor // ub_block * ub_block
    return used, dict(totalElements=total, blockFactor=block_factor, ubFactor=ub_factor)


class Selu:
    def __init__(self, dtype):
        self.T = dtype

    def Init(self, x, y, tilingData):
        self.ubFactor_ = tilingData["ubFactor"]
        if tilingData["totalElements"] == 0 or tilingData["blockFactor"] == 0:
            self.blockOffset_, self.blockLen_ = 0, 0
            return
        self.blockOffset_ = tilingData["blockFactor"] * aj.GetBlockIdx()
        remaining = tilingData["totalElements"] - self.blockOffset_
        if remaining <= 0:
            self.blockLen_ = 0
            return
        self.blockLen_ = min(remaining, tilingData["blockFactor"])
        self.xGM_, self.yGM_ = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGM_.SetGlobalBuffer(x[self.blockOffset_:], self.blockLen_)
        self.yGM_.SetGlobalBuffer(y[self.blockOffset_:], self.blockLen_)
        self.pipe = aj.TPipe()
        self.inputQueue = aj.TQue(aj.QuePosition.VECIN, 1)
        self.outputQueue = aj.TQue(aj.QuePosition.VECOUT, 1)
        self.tmpBuf1_, self.tmpBuf2_ = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        size, compute_size = TYPE_SIZE[self.T], COMPUTE_SIZE[self.T]
        self.pipe.InitBuffer(self.inputQueue, 1, self.ubFactor_ * size)
        self.pipe.InitBuffer(self.outputQueue, 1, self.ubFactor_ * size)
        self.pipe.InitBuffer(self.tmpBuf1_, self.ubFactor_ * compute_size)
        self.pipe.InitBuffer(self.tmpBuf2_, self.ubFactor_ * compute_size)

    def CopyIn(self, gmOffset, currentNum):
        xLocal = self.inputQueue.AllocTensor(self.T)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[self.T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(xLocal, self.xGM_[gmOffset], copyParams, (False, 0, 0, 0))
        self.inputQueue.EnQue(xLocal)

    def CopyOut(self, gmOffset, currentNum):
        yLocal = self.outputQueue.DeQue(self.T)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[self.T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(self.yGM_[gmOffset], yLocal, copyParams)
        self.outputQueue.FreeTensor(yLocal)

    def ComputeDirect(self, x, y, alignedNum, ctype):
        """ComputeFloat32 / ComputeFloat16: the chain in T itself (the scalars are T's: half(...) in the original)."""
        tmp1, tmp2 = self.tmpBuf1_.Get(ctype), self.tmpBuf2_.Get(ctype)
        c = np.float16 if ctype == "half" else np.float32
        aj.Mins(tmp1, x, c(0.0), alignedNum)
        aj.Exp(tmp1, tmp1, alignedNum)
        aj.Adds(tmp1, tmp1, c(-1.0), alignedNum)
        aj.Muls(tmp1, tmp1, c(ALPHA), alignedNum)
        aj.Mins(tmp1, tmp1, c(0.0), alignedNum)
        aj.Maxs(tmp2, x, c(0.0), alignedNum)
        aj.Add(y, tmp2, tmp1, alignedNum)
        aj.Muls(y, y, c(SCALE), alignedNum)

    def ComputeCastFp32(self, xLocal, yLocal, alignedNum):
        tmp1, tmp2 = self.tmpBuf1_.Get("float"), self.tmpBuf2_.Get("float")
        if self.T == "int8":
            tmpHalf = tmp2.ReinterpretCast("half")
            aj.Cast(tmpHalf, xLocal, aj.RoundMode.CAST_NONE, alignedNum)
            aj.Cast(tmp1, tmpHalf, aj.RoundMode.CAST_NONE, alignedNum)
        else:
            aj.Cast(tmp1, xLocal, aj.RoundMode.CAST_NONE, alignedNum)
        aj.Mins(tmp2, tmp1, np.float32(0.0), alignedNum)
        aj.Exp(tmp2, tmp2, alignedNum)
        aj.Adds(tmp2, tmp2, np.float32(-1.0), alignedNum)
        aj.Muls(tmp2, tmp2, np.float32(ALPHA), alignedNum)
        aj.Mins(tmp2, tmp2, np.float32(0.0), alignedNum)
        aj.Maxs(tmp1, tmp1, np.float32(0.0), alignedNum)
        aj.Add(tmp1, tmp1, tmp2, alignedNum)
        aj.Muls(tmp1, tmp1, np.float32(SCALE), alignedNum)
        if self.T == "int8":
            tmpHalf = tmp2.ReinterpretCast("half")
            aj.Cast(tmpHalf, tmp1, aj.RoundMode.CAST_TRUNC, alignedNum)
            aj.Cast(yLocal, tmpHalf, aj.RoundMode.CAST_TRUNC, alignedNum)
        elif self.T == "int32":
            aj.Cast(yLocal, tmp1, aj.RoundMode.CAST_TRUNC, alignedNum)
        else:
            aj.Cast(yLocal, tmp1, aj.RoundMode.CAST_ROUND, alignedNum)

    def Compute(self, currentNum):
        xLocal = self.inputQueue.DeQue(self.T)
        yLocal = self.outputQueue.AllocTensor(self.T)
        align_block = max(32 // TYPE_SIZE[self.T], 32 // COMPUTE_SIZE[self.T])
        alignedNum = (currentNum + align_block - 1) // align_block * align_block
        if self.T in ("float", "half"):
            self.ComputeDirect(xLocal, yLocal, alignedNum, self.T)
        else:
            self.ComputeCastFp32(xLocal, yLocal, alignedNum)
        self.outputQueue.EnQue(self.T, yLocal)
        self.inputQueue.FreeTensor(xLocal)

    def Process(self):
        if self.blockLen_ <= 0:
            return
        loopCount = (self.blockLen_ + self.ubFactor_ - 1) // self.ubFactor_
        for i in range(loopCount):
            gmOffset = i * self.ubFactor_
            currentNum = self.blockLen_ - gmOffset if i == loopCount - 1 else self.ubFactor_
            self.CopyIn(gmOffset, currentNum)
            self.Compute(currentNum)
            self.CopyOut(gmOffset, currentNum)


def selu(x, y, tiling_data, dtype):
    op = Selu(dtype)
    op.Init(x, y, tiling_data)
    op.Process()


_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32, "int8": np.int8}


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if dtype == "int8":
            return {"x": rng.integers(-128, 120, size).astype(np.int8)}     # selu(119) = 125.03 fits int8
        if dtype == "int32":
            return {"x": rng.integers(-1000, 1001, size).astype(np.int32)}
        magnitude = rng.uniform(0.25, 6.0, size)
        x = np.where(rng.random(size) < 0.5, -magnitude, magnitude)
        return {"x": x.astype(np.float32).astype(_NP[dtype])}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        padded = -(-x.size * x.itemsize // 32) * 32 // x.itemsize
        gm_x = np.zeros(padded, x.dtype)
        gm_x[:x.size] = x
        y = np.zeros(padded, x.dtype)
        block_dim, tiling_data = tiling(device, x.size, dtype)
        aj.launch(selu, block_dim, device, gm_x, y, tiling_data, dtype)
        return {"y": y[:x.size]}
    return run


def _selu64(x):
    x = np.asarray(x, np.float64)
    return SCALE * (np.maximum(x, 0.0) + np.minimum(0.0, ALPHA * np.expm1(np.minimum(x, 0.0))))


def expected(device, inputs):
    x = inputs["x"]
    if x.dtype.kind in "iu":
        return {"y": np.trunc(_selu64(x)).astype(x.dtype)}
    return {"y": _selu64(x)}


_SOURCE = "hicann/ops-nn@41926c8a experimental/activation/selu/op_kernel/selu.h"


def _spec(name, dtype, tolerance, devices, description):
    return KernelSpec(name, description, _make_inputs(dtype), _run(dtype), expected, default_size=40000,
                      devices=devices, tolerance=tolerance, source=_SOURCE)


KERNELS = [
    _spec("selu", "float", 2e-6, PAD_DEVICES, "Selu over floats: Mins/Exp/Adds/Muls/Maxs/Add in place; DataCopyPad "
          "with DataCopyParams; compute over the count rounded up to 32 bytes"),
    _spec("selu_half", "half", 5e-3, PAD_DEVICES, "Selu over halves computed in half (half scalars)"),
    _spec("selu_bf16", "bfloat16", 5e-3, PAD_DEVICES, "Selu over bfloat16 computed in float: Cast CAST_NONE in, "
          "CAST_ROUND out"),
    _spec("selu_int32", "int32", 1e-9, INT_DEVICES, "Selu over int32 computed in float: Cast int32 -> float, "
          "float -> int32 CAST_TRUNC"),
    _spec("selu_int8", "int8", 1e-9, PAD_DEVICES, "Selu over int8: int8 -> half -> float through a TBuf "
          "reinterpreted as half, float -> half -> int8 CAST_TRUNC"),
]
