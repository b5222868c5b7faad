"""HardSigmoidV2 from the CANN NN operators: y = min(relu(x + 3), 6) / 6 element by element over float, half and
bfloat16 (the 16-bit types in float), and over int32 y = min(relu(x - 2), 1) (the original's integer form).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/activation/hard_sigmoid_v2:
- op_kernel/hard_sigmoid_v2.h (`KernelHardSigmoidV2Base<Derived, T>` with `KernelHardSigmoidV2<T>` (float),
  `KernelHardSigmoidV2Upcast<T>` (half / bfloat16) and `KernelHardSigmoidV2Int32`): the first formerNum cores take
  formerLength elements, the last tailLength; one `TQueBind<VECIN, VECOUT, 1>` of two buffers of tileLength elements
  carries each tile in and out (no separate output tile): CopyIn by DataCopyPad (DataCopyExtParams {1, n * sizeof(T),
  0, 0, 0}, DataCopyPadExtParams {false, 0, 0, 0}) and `EnQue<GM, VECIN, T>`; Compute `DeQue<GM, VECIN, T>`, in
  place: float: Adds 3, Relu, Mins 6, Muls 1/6; half / bfloat16: Cast CAST_NONE into a float TBuf, the same chain in
  float, Cast CAST_ROUND back into the queue's tile; int32: Adds -2, Relu, Mins 1; `EnQue<VECOUT, GM, T>`; CopyOut
  `DeQue<VECOUT, GM, T>` and DataCopyPad of the n elements;
- op_kernel/hard_sigmoid_v2.cpp (the entry: the template's dtype picks the class);
- op_host/hard_sigmoid_v2_tiling.cpp (`FillNormalTiling`: cores = ceil(bytes / 16 KiB) (64 KiB for int32) at most
  the AIV count; per core ceil(total / cores) rounded up to a 512-byte cache line of elements; formerNum = used - 1;
  tileLength = UB / 8 elements rounded down to 32 bytes).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). Nothing else: every instruction's
count is the tile's element count, the copies move exactly its bytes. The 16-bit kernel fills the UB exactly (two
24576-element queue buffers and a 98304-byte float TBuf make the A2 / A3's 196608 bytes).

Devices: the operator's config is the ascend910b (A2; the A3 shares its kernels): the port runs on the A3 and A2.

Fidelity: BIT-EXACT (Adds, Relu, Mins, Muls, Cast, DataCopyPad; SPEC-2 0.3). Relu is max(+0, x) and Mins keeps a
NaN (SPEC-2 D41): a NaN input gives NaN; +-inf give 1 and 0. CAST_ROUND rounds half away from zero (SPEC-2 7.3).
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
CACHE_LINE_BYTE_LENGTH = 512
MIN_BYTES_PER_CORE = 16 * 1024
INT32_MIN_BYTES_PER_CORE = 64 * 1024
BUFFER_NUM = 2
QUEUE_DEPTH = 1
SHIFT_VALUE, CLAMP_VALUE, SCALE_VALUE = np.float32(3.0), np.float32(6.0), np.float32(1.0) / np.float32(6.0)
INT32_SHIFT_VALUE, INT32_CLAMP_VALUE = np.int32(-2), np.int32(1)
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2, "int32": 4}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32}
DEVICES = ("atlas-a3", "atlas-a2")


class HardSigmoidV2TilingData(ctypes.Structure):
    _fields_ = [("formerNum", ctypes.c_int64), ("formerLength", ctypes.c_int64), ("tailLength", ctypes.c_int64),
                ("tileLength", ctypes.c_int64)]


def tiling(device, total, dtype):
    """HardSigmoidV2TilingFunc / FillNormalTiling: (used cores, the tiling bytes)."""
    ub_size = aj.get_device(device).ub_bytes
    if total <= 0:                                               # FillDefaultTiling
        t = HardSigmoidV2TilingData(formerNum=0, formerLength=0, tailLength=0, tileLength=1)
        return 1, np.frombuffer(bytes(t), np.uint8).copy()
    size = TYPE_SIZE[dtype]
    min_bytes = INT32_MIN_BYTES_PER_CORE if dtype == "int32" else MIN_BYTES_PER_CORE
    target = min(max(1, -(-total * size // min_bytes)), CORE_NUM)
    line = max(1, CACHE_LINE_BYTE_LENGTH // size)
    per_core = -(-(-(-total // target)) // line) * line
    used = max(1, -(-total // per_core))
    align = max(1, 32 // size)
    tile = ub_size // 8 // align * align or align
    t = HardSigmoidV2TilingData(formerNum=used - 1, formerLength=per_core, tailLength=total - (used - 1) * per_core,
                                tileLength=tile)
    return used, np.frombuffer(bytes(t), np.uint8).copy()


class KernelHardSigmoidV2Base:
    """`KernelHardSigmoidV2Base<Derived, T>`: the shared Init, tile loop and copies."""

    def __init__(self, T):
        self.T = T

    def Init(self, x, y, tilingData):
        T = self.T
        blockIdx = aj.GetBlockIdx()
        self.xGm_, self.yGm_ = aj.GlobalTensor(T), aj.GlobalTensor(T)
        if blockIdx < tilingData.formerNum:
            self.blockLength_ = tilingData.formerLength
            offset = tilingData.formerLength * blockIdx
        else:
            self.blockLength_ = tilingData.tailLength
            offset = tilingData.formerLength * tilingData.formerNum
        self.xGm_.SetGlobalBuffer(x[offset:], self.blockLength_)
        self.yGm_.SetGlobalBuffer(y[offset:], self.blockLength_)
        self.tileLength_ = tilingData.tileLength
        self.pipe_ = aj.TPipe()
        self.inOutQueue_ = aj.TQueBind(aj.TPosition.VECIN, aj.TPosition.VECOUT, QUEUE_DEPTH)
        self.pipe_.InitBuffer(self.inOutQueue_, BUFFER_NUM, self.tileLength_ * TYPE_SIZE[T])
        self.InitExtraBuffers()

    def InitExtraBuffers(self):
        pass

    def Process(self):
        """`ProcessTiles`: full tiles, then the tail tile."""
        tileNum = -(-self.blockLength_ // self.tileLength_)
        if tileNum == 0:
            return
        tailTileLength = self.blockLength_ - (tileNum - 1) * self.tileLength_
        for i in range(tileNum - 1):
            self.CopyIn(i, self.tileLength_)
            self.Compute(self.tileLength_)
            self.CopyOut(i, self.tileLength_)
        self.CopyIn(tileNum - 1, tailTileLength)
        self.Compute(tailTileLength)
        self.CopyOut(tileNum - 1, tailTileLength)

    def CopyIn(self, progress, curTileLength):
        T = self.T
        xLocal = self.inOutQueue_.AllocTensor(T)
        copyParams = aj.DataCopyExtParams(1, curTileLength * TYPE_SIZE[T], 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0))
        aj.DataCopyPad(xLocal, self.xGm_[progress * self.tileLength_], copyParams, padParams)
        self.inOutQueue_.EnQue(aj.QuePosition.GM, aj.QuePosition.VECIN, T, xLocal)

    def DeQueIn(self):
        return self.inOutQueue_.DeQue(aj.QuePosition.GM, aj.QuePosition.VECIN, self.T)

    def EnQueOut(self, t):
        self.inOutQueue_.EnQue(aj.QuePosition.VECOUT, aj.QuePosition.GM, self.T, t)

    def CopyOut(self, progress, curTileLength):
        T = self.T
        yLocal = self.inOutQueue_.DeQue(aj.QuePosition.VECOUT, aj.QuePosition.GM, T)
        copyParams = aj.DataCopyExtParams(1, curTileLength * TYPE_SIZE[T], 0, 0, 0)
        aj.DataCopyPad(self.yGm_[progress * self.tileLength_], yLocal, copyParams)
        self.inOutQueue_.FreeTensor(yLocal)


class KernelHardSigmoidV2(KernelHardSigmoidV2Base):
    """`KernelHardSigmoidV2<float>`: in place in the queue's tile."""

    def Compute(self, n):
        xLocal = self.DeQueIn()
        aj.Adds(xLocal, xLocal, SHIFT_VALUE, n)
        aj.Relu(xLocal, xLocal, n)
        aj.Mins(xLocal, xLocal, CLAMP_VALUE, n)
        aj.Muls(xLocal, xLocal, SCALE_VALUE, n)
        self.EnQueOut(xLocal)


class KernelHardSigmoidV2Upcast(KernelHardSigmoidV2Base):
    """`KernelHardSigmoidV2Upcast<half / bfloat16>`: the chain in a float TBuf, CAST_ROUND back into the tile."""

    def InitExtraBuffers(self):
        self.tmpBufFp32_ = aj.TBuf(aj.TPosition.VECCALC)
        self.pipe_.InitBuffer(self.tmpBufFp32_, self.tileLength_ * 4)

    def Compute(self, n):
        xLocal = self.DeQueIn()
        xFp32 = self.tmpBufFp32_.Get("float")
        aj.Cast(xFp32, xLocal, aj.RoundMode.CAST_NONE, n)
        aj.Adds(xFp32, xFp32, SHIFT_VALUE, n)
        aj.Relu(xFp32, xFp32, n)
        aj.Mins(xFp32, xFp32, CLAMP_VALUE, n)
        aj.Muls(xFp32, xFp32, SCALE_VALUE, n)
        aj.Cast(xLocal, xFp32, aj.RoundMode.CAST_ROUND, n)
        self.EnQueOut(xLocal)


class KernelHardSigmoidV2Int32(KernelHardSigmoidV2Base):
    """`KernelHardSigmoidV2Int32`: Adds -2, Relu, Mins 1 in int32."""

    def Compute(self, n):
        xLocal = self.DeQueIn()
        aj.Adds(xLocal, xLocal, INT32_SHIFT_VALUE, n)
        aj.Relu(xLocal, xLocal, n)
        aj.Mins(xLocal, xLocal, INT32_CLAMP_VALUE, n)
        self.EnQueOut(xLocal)


aj.REGISTER_TILING_DEFAULT(HardSigmoidV2TilingData)


def hard_sigmoid_v2(x, y, workspace, tiling_bytes, dtype):
    """The kernel entry (hard_sigmoid_v2.cpp; the template's dtype as an argument)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(HardSigmoidV2TilingData, tiling_bytes)
    if dtype == "float":
        op = KernelHardSigmoidV2(dtype)
    elif dtype in ("half", "bfloat16"):
        op = KernelHardSigmoidV2Upcast(dtype)
    else:
        op = KernelHardSigmoidV2Int32(dtype)
    op.Init(x, y, tilingData)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_hard_sigmoid_v2(device, x):
    dtype = _dtype_name(x)
    used, t = tiling(device, x.size, dtype)
    y = np.zeros_like(x)
    aj.launch(hard_sigmoid_v2, used, device, np.ascontiguousarray(x), y, None, t, dtype)
    return y


def round_half_away(y, np_t):
    """float32 -> half / bfloat16 with ties away from zero (CAST_ROUND), for finite values in range: RNE first, and
    where y lies exactly halfway to the neighbour on its other side, the larger-magnitude one of the two."""
    y64 = y.astype(np.float64)
    near = y.astype(np_t)
    near64 = near.astype(np.float64)
    # the neighbour on the other side of y from the RNE result (one step in bits toward or away from zero)
    toward_zero = np.abs(near64) > np.abs(y64)
    bits = near.view(np.uint16).astype(np.int32)
    other = np.where(toward_zero, bits - 1, bits + 1).astype(np.uint16).view(np_t)
    other64 = other.astype(np.float64)
    tie = (y64 != near64) & (np.abs(other64 - y64) == np.abs(near64 - y64))
    return np.where(tie & (np.abs(other64) > np.abs(near64)), other, near).astype(np_t)


def hard_sigmoid_v2_model(x):
    """The kernel's chain in numpy: float32 RNE steps, Relu / Mins by D41 (NaN kept), CAST_ROUND back for the
    16-bit types; int32: relu(x - 2) clipped at 1."""
    if x.dtype == np.int32:
        return np.minimum(np.maximum(x - np.int32(2), np.int32(0)), np.int32(1)).astype(np.int32)
    with np.errstate(invalid="ignore"):
        t = (x.astype(np.float32) + SHIFT_VALUE).astype(np.float32)
        t = np.where(np.isnan(t), t, np.maximum(t, np.float32(0.0)))
        t = np.where(np.isnan(t), t, np.minimum(t, CLAMP_VALUE))
        r = (t * SCALE_VALUE).astype(np.float32)
    if x.dtype == np.float32:
        return r
    out = round_half_away(np.nan_to_num(r), x.dtype)
    return np.where(np.isnan(r), np.array([np.nan], x.dtype), out).astype(x.dtype)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if dtype == "int32":
            return {"x": rng.integers(-50, 50, size).astype(np.int32)}
        x = rng.uniform(-5.0, 5.0, size).astype(np.float32)
        return {"x": x.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"y": run_hard_sigmoid_v2(device, inputs["x"])}


def _expected(device, inputs):
    return {"y": hard_sigmoid_v2_model(inputs["x"])}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/hard_sigmoid_v2/op_kernel/hard_sigmoid_v2.h"
KERNELS = [
    KernelSpec(f"hard_sigmoid_v2{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 200003, "HardSigmoidV2 over floats (Adds 3, Relu, Mins 6, Muls 1/6 in place in one "
         "TQueBind<VECIN, VECOUT> tile with EnQue / DeQue<src, dst, T>; cache-line aligned cores)"),
        ("_half", "half", 100003, "HardSigmoidV2 over halves (Cast to a float TBuf, the float chain, Cast "
         "CAST_ROUND back into the queue's tile; the UB exactly full)"),
        ("_bf16", "bfloat16", 100003, "HardSigmoidV2 over bfloat16 (as the half kernel)"),
        ("_int32", "int32", 100003, "HardSigmoidV2 over int32 (Adds -2, Relu, Mins 1: the original's integer form)"))
]
