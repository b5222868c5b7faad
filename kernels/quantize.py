"""Quantize from the CANN NN operators, int32 output: y = rint(x * (1 / scale) + zero_point) per tensor or per channel
(x float, half or bfloat16; scales float or bfloat16; zero points of any of six dtypes, read by their runtime type).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/quant/quantize:
- op_kernel/quantize.cpp (the entry: GET_TILING_DATA, the perMode template argument picks QuantizePerTensor or
  QuantizePerChannel);
- op_kernel/quantize.h (`QuantizeBase<T, S, Z, Y>`: GlobalTensors over the whole tensors, the zero points kept as a
  raw GM address; depth-2 VECIN / VECOUT queues of baseLen elements and a float TBuf; ScaleToFp32 (ToFloat for
  bfloat16), ReciprocalOfScale (1 / scale, 1 for a zero scale), ReadOffsetFp32 (a GlobalTensor of the zero points'
  runtime dtype, tiling.zpDtype, and GetValue), ProcessOneTile (DataCopyPad in with DataCopyExtParams and
  `{false, 0, 0, 0}`, EnQue / DeQue, Muls by the reciprocal (16-bit x: Cast CAST_NONE to float first), Adds the zero
  point when there is one, each behind a PipeBarrier<PIPE_V>, CastOut, EnQue / DeQue, DataCopyPad out);
  `QuantizePerTensor` (elements over the cores, the scale and zero point read once) and `QuantizePerChannel` (rows of
  rowLen over the cores, channel = row % channelNum, its scale and zero point read per row));
- op_host/quantize_tiling.cpp (`FoldShape`, `CalcBaseLen`: (UB - 16 KB) over 2 * (x + y bytes) + 4, rounded down to
  64 elements; `CalcSplit`: ceil(total / cores) elements or rows a core, the last core the rest).

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's). Init's SetDeqScale((half)1.0)
is left out: the emulator does not offer SetDeqScale (SPEC-2 14, D47), and the original's own comment says the
register is unused for int32 (and floating) outputs; its CastOut for int8 / uint8 outputs (Cast float -> int32
CAST_RINT, int32 -> half under that scale, half -> int8 CAST_RINT) needs the refused Cast int32 -> half (D47), so
those outputs are not ported (tests/test_quantize.py shows the refusal).

Devices: DataCopyPad leaves out the 310P and 910 and GET_TILING_DATA the 910; the original's configuration is
ascend910b (the A2); the bfloat16 Cast and ToFloat run on the 950, A3, A2 and 310B.

Fidelity: BIT-EXACT (Muls, Adds, Cast, DataCopyPad are BIT-EXACT; the reciprocal and the zero point's conversion are
the scalar unit's IEEE float32 division and int -> float conversion, numpy's here). The expectation is numpy's
float32 x * recip + zp, rounded to even and converted to int32; inputs keep every result within int32.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

RESERVE_UB = 16 * 1024
ALIGN_ELEMS = 64
BUFFER_NUM = 2
CALC_BUF_BYTES_PER_ELEM = 4
CORE_NUM = 8                        # deviation: the launch's cores (GetCoreNumAiv in the original)
QUANTIZE_PER_TENSOR, QUANTIZE_PER_CHANNEL = 0, 1        # quantize_tiling_key.h's perMode values
# ge::DataType codes of the zero points' runtime dtype (tiling.zpDtype)
ZP_DT = {"float": 0, "half": 1, "int8": 2, "int32": 3, "uint8": 4, "bfloat16": 27}
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2, "int32": 4, "int8": 1, "uint8": 1}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32, "int8": np.int8,
       "uint8": np.uint8}

QuantizeTilingData = np.dtype([("numCore", np.uint32), ("hasZeroPoint", np.uint32), ("channelNum", np.int64),
                               ("rowLen", np.int64), ("totalRows", np.int64), ("totalElems", np.int64),
                               ("blockFactor", np.int64), ("blockTailFactor", np.int64), ("baseLen", np.int64),
                               ("zpDtype", np.uint32)], align=True)


def tiling(device, shape, axis, scales_size, x_dtype, y_dtype, zp_dtype):
    """Tiling4Quantize: (block dim, perMode, the packed QuantizeTilingData); zp_dtype None: no zero points."""
    total = int(np.prod(shape))
    axis = min(max(axis + len(shape) if axis < 0 else axis, 0), len(shape) - 1)
    dim_before, dim_axis = int(np.prod(shape[:axis])), shape[axis]
    dim_after = int(np.prod(shape[axis + 1:]))
    t = np.zeros(1, QuantizeTilingData)
    t["channelNum"] = t["rowLen"] = t["totalRows"] = 1
    if scales_size == 1:
        key, units = QUANTIZE_PER_TENSOR, total
    else:
        key, units = QUANTIZE_PER_CHANNEL, dim_before * dim_axis
        t["channelNum"], t["rowLen"], t["totalRows"] = dim_axis, dim_after, units
    block_factor = -(-units // CORE_NUM) or units
    num_core = -(-units // block_factor)
    per_elem = BUFFER_NUM * (TYPE_SIZE[x_dtype] + TYPE_SIZE[y_dtype]) + CALC_BUF_BYTES_PER_ELEM
    base_len = max((aj.get_device(device).ub_bytes - RESERVE_UB) // per_elem // ALIGN_ELEMS * ALIGN_ELEMS,
                   ALIGN_ELEMS)
    t["numCore"], t["hasZeroPoint"], t["totalElems"] = num_core, zp_dtype is not None, total
    t["blockFactor"], t["blockTailFactor"] = block_factor, units - block_factor * (num_core - 1)
    t["baseLen"], t["zpDtype"] = base_len, 0 if zp_dtype is None else ZP_DT[zp_dtype]
    return num_core, key, t.view(np.uint8).copy()


class QuantizeBase:
    def __init__(self, T, S, Z, Y):
        self.T, self.S, self.Z, self.Y = T, S, Z, Y

    def Init(self, x, scales, zeroPoints, y, tilingData):
        self.blockIdx_ = aj.GetBlockIdx()
        self.tiling_ = tilingData
        self.xGm_, self.scaleGm_, self.yGm_ = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm_.SetGlobalBuffer(x)
        self.scaleGm_.SetGlobalBuffer(scales)
        self.zpBase_ = zeroPoints           # the raw address: read by its runtime dtype in ReadOffsetFp32
        self.yGm_.SetGlobalBuffer(y)
        baseLen = int(self.tiling_.baseLen)
        self.pipe_ = aj.TPipe()
        self.inQueueX_ = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY_ = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.calcBuf_ = aj.TBuf(aj.TPosition.VECCALC)
        self.pipe_.InitBuffer(self.inQueueX_, BUFFER_NUM, baseLen * TYPE_SIZE[self.T])
        self.pipe_.InitBuffer(self.outQueueY_, BUFFER_NUM, baseLen * TYPE_SIZE[self.Y])
        self.pipe_.InitBuffer(self.calcBuf_, baseLen * 4)
        # SetDeqScale((half)1.0f) left out: not offered (SPEC-2 14, D47); unused for int32 outputs (docstring)

    def ScaleToFp32(self, v):
        if aj.IsSameType(self.S, "bfloat16"):
            return aj.ToFloat(v)
        return np.float32(v)

    def ReadOffsetFp32(self, index):
        if self.tiling_.hasZeroPoint == 0:
            return np.float32(0.0)
        code = int(self.tiling_.zpDtype)
        for name, value in ZP_DT.items():
            if value == code:
                g = aj.GlobalTensor()
                g.SetGlobalBuffer(self.zpBase_, dtype=name)      # reinterpret_cast<__gm__ T*>(zpBase_)
                v = g.GetValue(index)
                if name == "bfloat16":
                    return aj.ToFloat(v)
                return np.float32(v)       # static_cast<float>: exact for 8-bit and half, RNE for int32
        return np.float32(0.0)

    def CastOut(self, outLocal, fpLocal, count):
        if aj.IsSameType(self.Y, "int32"):
            aj.Cast(outLocal, fpLocal, aj.RoundMode.CAST_RINT, count)
        else:
            # int8 / uint8: fp32 -> int32 (rint) -> half under the deq scale -> 8-bit (rint, saturating)
            aj.Cast(fpLocal.ReinterpretCast("int32"), fpLocal, aj.RoundMode.CAST_RINT, count)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Cast(fpLocal.ReinterpretCast("half"), fpLocal.ReinterpretCast("int32"), aj.RoundMode.CAST_NONE, count)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Cast(outLocal, fpLocal.ReinterpretCast("half"), aj.RoundMode.CAST_RINT, count)

    @staticmethod
    def ReciprocalOfScale(scaleF):
        return np.float32(1.0) if scaleF == 0.0 else np.float32(1.0) / scaleF

    def ProcessOneTile(self, off, count, recipScaleF, offsetF):
        T, Y = self.T, self.Y
        xLocal = self.inQueueX_.AllocTensor(T)
        copyInParams = aj.DataCopyExtParams(1, count * TYPE_SIZE[T], 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(False, 0, 0, 0)
        aj.DataCopyPad(xLocal, self.xGm_[off], copyInParams, padParams)
        self.inQueueX_.EnQue(xLocal)
        xLocal = self.inQueueX_.DeQue(T)
        outLocal = self.outQueueY_.AllocTensor(Y)
        calc = self.calcBuf_.Get("float")
        if aj.IsSameType(T, "float"):
            aj.Muls(calc, xLocal, recipScaleF, count)
            aj.PipeBarrier(aj.PIPE_V)
        else:
            aj.Cast(calc, xLocal, aj.RoundMode.CAST_NONE, count)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Muls(calc, calc, recipScaleF, count)
            aj.PipeBarrier(aj.PIPE_V)
        if self.tiling_.hasZeroPoint != 0:
            aj.Adds(calc, calc, offsetF, count)
            aj.PipeBarrier(aj.PIPE_V)
        self.CastOut(outLocal, calc, count)
        self.inQueueX_.FreeTensor(xLocal)
        self.outQueueY_.EnQue(outLocal)
        outLocal = self.outQueueY_.DeQue(Y)
        copyOutParams = aj.DataCopyExtParams(1, count * TYPE_SIZE[Y], 0, 0, 0)
        aj.DataCopyPad(self.yGm_[off], outLocal, copyOutParams)
        self.outQueueY_.FreeTensor(outLocal)


class QuantizePerTensor(QuantizeBase):
    def Process(self):
        t = self.tiling_
        if self.blockIdx_ >= t.numCore:
            return
        blockFactor = int(t.blockFactor)
        myCount = int(t.blockTailFactor) if self.blockIdx_ == t.numCore - 1 else blockFactor
        if myCount <= 0:
            return
        gmOffset = self.blockIdx_ * blockFactor
        scaleF = self.ScaleToFp32(self.scaleGm_.GetValue(0))
        recipScaleF = self.ReciprocalOfScale(scaleF)
        offsetF = self.ReadOffsetFp32(0)
        baseLen = int(t.baseLen)
        loopNum, loopTail = divmod(myCount, baseLen)
        for i in range(loopNum):
            self.ProcessOneTile(gmOffset + i * baseLen, baseLen, recipScaleF, offsetF)
        if loopTail != 0:
            self.ProcessOneTile(gmOffset + loopNum * baseLen, loopTail, recipScaleF, offsetF)


class QuantizePerChannel(QuantizeBase):
    def Process(self):
        t = self.tiling_
        if self.blockIdx_ >= t.numCore:
            return
        blockFactor = int(t.blockFactor)
        myRows = int(t.blockTailFactor) if self.blockIdx_ == t.numCore - 1 else blockFactor
        if myRows <= 0:
            return
        rowStart = self.blockIdx_ * blockFactor
        channelNum, rowLen, baseLen = int(t.channelNum), int(t.rowLen), int(t.baseLen)
        for k in range(myRows):
            r = rowStart + k
            channel = r % channelNum if channelNum > 0 else 0
            scaleF = self.ScaleToFp32(self.scaleGm_.GetValue(channel))
            recipScaleF = self.ReciprocalOfScale(scaleF)
            offsetF = self.ReadOffsetFp32(channel)
            base = r * rowLen
            loopNum, loopTail = divmod(rowLen, baseLen)
            for i in range(loopNum):
                self.ProcessOneTile(base + i * baseLen, baseLen, recipScaleF, offsetF)
            if loopTail != 0:
                self.ProcessOneTile(base + loopNum * baseLen, loopTail, recipScaleF, offsetF)


# the host's REGISTER_TILING_DATA_CLASS(Quantize, QuantizeTilingData): the struct GET_TILING_DATA reads
aj.REGISTER_TILING_DEFAULT(QuantizeTilingData)


def quantize(x, scales, zero_points, y, workspace, tiling_bytes, perMode, DTYPE_X, DTYPE_SCALES, DTYPE_ZERO_POINTS,
             DTYPE_Y):
    """The kernel entry; perMode is the tiling key's template argument, the DTYPE_* the build's macros."""
    tilingData = aj.GET_TILING_DATA(tiling_bytes)
    cls = QuantizePerTensor if perMode == QUANTIZE_PER_TENSOR else QuantizePerChannel
    op = cls(DTYPE_X, DTYPE_SCALES, DTYPE_ZERO_POINTS, DTYPE_Y)
    op.Init(x, scales, zero_points, y, tilingData)
    op.Process()


# the gallery's cases: (x dtype, scales dtype, zero points dtype or None, channels (1: per tensor), rows of the
# leading dimension); x is [rows, channels, size / (rows * channels)] quantized along axis 1
CASES = {
    "quantize": ("float", "float", "int8", 1, 1),
    "quantize_half": ("half", "float", None, 1, 1),
    "quantize_per_channel_bf16": ("bfloat16", "bfloat16", "int32", 6, 3),
}


def _shape(case, size):
    channels, rows = CASES[case][3], CASES[case][4]
    return (size,) if channels == 1 else (rows, channels, size // (rows * channels))


def _make_inputs(case):
    x_dtype, s_dtype, z_dtype, channels, _ = CASES[case]

    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        scales = rng.uniform(0.01, 0.2, channels).astype(np.float32)
        scales[0] = 0.0625 if channels == 1 else 0.0     # an exact reciprocal; a zero scale (reciprocal 1)
        x = rng.uniform(-50.0, 50.0, size).astype(np.float32)
        x[:min(size, 6)] = np.array([0.0, -0.0, 0.03125, -0.03125, 1.5, 2.5], np.float32)[:size]
        inputs = {"x": x.astype(_NP[x_dtype]), "scales": scales.astype(_NP[s_dtype])}
        if z_dtype is not None:
            inputs["zero_points"] = rng.integers(-100, 100, channels).astype(_NP[z_dtype])
        return inputs
    return make_inputs


def _run(case):
    x_dtype, s_dtype, z_dtype, channels, _ = CASES[case]

    def run(device, inputs):
        x = inputs["x"]
        shape = _shape(case, x.size)
        block_dim, per_mode, tiling_bytes = tiling(device, shape, 1 if len(shape) > 1 else 0,
                                                   inputs["scales"].size, x_dtype, "int32", z_dtype)
        y = np.zeros(x.size, np.int32)
        zero_points = inputs.get("zero_points", np.zeros(1, np.int32))     # absent: a null address never read
        workspace = np.zeros(32, np.uint8)
        aj.launch(quantize, block_dim, device, x, inputs["scales"], zero_points, y, workspace, tiling_bytes,
                  per_mode, x_dtype, s_dtype, z_dtype or "int32", "int32")
        return {"y": y}
    return run


def _expected(case):
    channels = CASES[case][3]

    def expected(device, inputs):
        x = inputs["x"].astype(np.float32)
        shape = _shape(case, x.size)
        s = inputs["scales"].astype(np.float32)
        recip = np.where(s == 0, np.float32(1.0), np.float32(1.0) / np.where(s == 0, np.float32(1.0), s))
        zp = inputs["zero_points"].astype(np.float32) if "zero_points" in inputs else np.zeros(channels, np.float32)
        if channels > 1:
            x = x.reshape(shape)
            recip, zp = recip.reshape(1, -1, 1), zp.reshape(1, -1, 1)
        v = (x * recip).astype(np.float32)
        if "zero_points" in inputs:
            v = (v + zp).astype(np.float32)
        return {"y": np.rint(v).astype(np.int32).reshape(-1)}
    return expected


def _size_ok(case):
    rows_channels = CASES[case][3] * CASES[case][4]
    return lambda n: 0 < n <= 1 << 24 and n % rows_channels == 0


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/quant/quantize/op_kernel/quantize.h"
_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
KERNELS = [
    KernelSpec("quantize", "ops-nn Quantize per tensor, float x, int8 zero point, int32 y: GM GetValue of the scale "
               "and (reinterpreted by its runtime dtype) the zero point, scalar reciprocal, DataCopyPad tiles from "
               "unaligned core starts, Muls / Adds / Cast CAST_RINT behind PipeBarrier<PIPE_V>",
               _make_inputs("quantize"), _run("quantize"), _expected("quantize"), default_size=100000,
               devices=_DEVICES, size_rule="1 to 16Mi elements", size_ok=_size_ok("quantize"), source=_SOURCE),
    KernelSpec("quantize_half", "ops-nn Quantize per tensor, half x (Cast CAST_NONE to float), no zero point",
               _make_inputs("quantize_half"), _run("quantize_half"), _expected("quantize_half"),
               default_size=100000, devices=_DEVICES, size_rule="1 to 16Mi elements",
               size_ok=_size_ok("quantize_half"), source=_SOURCE),
    KernelSpec("quantize_per_channel_bf16", "ops-nn Quantize per channel over [3, 6, n/18] bfloat16 along axis 1: "
               "rows over the cores, a bfloat16 scale by ToFloat and an int32 zero point read per row, a zero scale",
               _make_inputs("quantize_per_channel_bf16"), _run("quantize_per_channel_bf16"),
               _expected("quantize_per_channel_bf16"), default_size=18 * 5000, devices=_DEVICES,
               size_rule="a multiple of 18 (3 x 6 rows), up to 16Mi elements",
               size_ok=_size_ok("quantize_per_channel_bf16"), source=_SOURCE),
]
