"""IsClose from the CANN math operators: y = |x1 - x2| <= atol + rtol * |x2| (and finite), or x1 == x2, or (with
equal_nan) both NaN, as int8 (bool), over float, half, bfloat16 and int32, computed in float: the contiguous mode
(x1 and x2 of the output's shape).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/is_close/op_kernel/is_close.cpp
(REGISTER_TILING_DEFAULT(IsCloseTilingData), GET_TILING_DATA_WITH_STRUCT, the template key split into a broadcast
mode and a dtype) and is_close.h (`NsIsClose::IsClose<T, BROADCAST_MODE>` with BROADCAST_MODE
IS_CLOSE_BROADCAST_MODE_CONTIGUOUS: former and tail cores of ceil / floor(total / cores) elements from unaligned GM
starts, UB tiles of tileBufferLen and a tail tile, each computed over its count rounded up to 256 elements; double-
buffered VECIN queues for x1 and x2 and a VECOUT int8 queue, the broadcast modes' scalar and row queues (allocated,
unused here), ten float, half and uint8 TBufs; per tile DataCopyPad in with DataCopyParams set field by field and
{false, 0, 0, 0}; the inputs as float (float: the input tile itself, `dst = src`; otherwise Cast CAST_NONE); Sub,
Abs, Abs, Muls rtol, Adds atol; Duplicate 1, 0 and +inf; Compare LE / LT / EQ with Select VSEL_TENSOR_TENSOR_MODE
into a 0/1 float result; with equal_nan the NaN test by Abs, Compare LE +inf, Select, Add and CompareScalar EQ 2;
Cast CAST_RINT to half and to int8; DataCopyPad out) and is_close_tiling_data.h (the struct, its shape and stride
arrays included), with the host tiling of experimental/math/is_close/op_host/is_close_tiling.cpp (`IsCloseTilingFunc`
for a contiguous input: rank 1 after the shape compression; UB less 8 KiB and 64 bytes over 2 * (2 * sizeof(T) + 1)
+ 8 * 4 + 2 + 1 bytes an element, rounded down to 256 elements; one core up to 2048 elements; the workspace
GetLibApiWorkSpaceSize). The struct is one ctypes.Structure (with c_uint64 arrays) the host packs and the kernel
reads.

Not ported: the broadcast modes (ProcessBroadcast and its copy helpers; tiling keys 4-19), which the tiling picks
only when x1 or x2 is broadcast; the kernel refuses those keys.

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's). The original computes each
tile over its count rounded up to 256 elements but copies in only the count, so a short tile's Casts, Sub, Abs and
Compares read input-tile lanes no copy wrote (results never copied out; the sanitizer reports the read): the port
zeroes those lanes of x1's and x2's tiles, from the end of the copy's last 32-byte block (DataCopyPad writes whole
blocks into the UB) to the rounded count, by a Duplicate before the copy-in (other bytes than the copy's: no MTE2
ordering needed). The tile length is a multiple of 256 elements, so the rounded count never passes a buffer.

Devices: the operator's configs are the A2 (ascend910b) and A3 (ascend910_93).

Fidelity: BIT-EXACT (DataCopyPad, Cast, Sub, Abs, Muls, Adds, Add, Duplicate, Compare, CompareScalar and Select are
BIT-EXACT, SPEC-2 0.3): checked bit for bit against numpy in IEEE float32 (inputs widened exactly, int32 rounded
to nearest even as Cast CAST_NONE does, SPEC-2 D45): |x1 - x2|, rtol * |x2| then + atol, each rounded once.
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
SCALAR_BUFFER_NUM = 1
COMPARE_ALIGN = 256
BYTE_ALIGN = 256
DATABLOCK_BYTES = 32
BROADCAST_SCALAR_BUFFER_BYTES = 32
RESERVED_UB_SIZE = 8 * 1024
FLOAT_BUF_NUM, HALF_BUF_NUM, MASK_BUF_NUM = 8, 1, 1
BROADCAST_SCALAR_BUF_SIZE = 2 * 32
MULTI_CORE_SIZE_LIMIT = 2048
IS_CLOSE_MAX_BROADCAST_DIM = 8
IS_CLOSE_BROADCAST_MODE_CONTIGUOUS = 0
IS_CLOSE_TPL_DTYPE_COUNT = 4
CORE_NUM = 8
DEVICES = ("atlas-a3", "atlas-a2")
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2, "int32": 4}
_DTYPES = ("float", "half", "bfloat16", "int32")      # IS_CLOSE_TPL_FP32 .. IS_CLOSE_TPL_INT32, from 1
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32}
# the attributes per gallery kernel: (rtol, atol, equal_nan); the float default is the operator's
ATTRS = {"float": (1e-5, 1e-8, False), "half": (1e-3, 1e-5, True), "bfloat16": (1e-2, 1e-3, False),
         "int32": (1e-5, 1.0, False)}


class IsCloseTilingData(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in (
        "formerCoreNum", "tailCoreNum", "formerCoreDataNum", "tailCoreDataNum", "formerCoreLoopCount",
        "formerCoreFormerDataNum", "formerCoreTailDataNum", "tailCoreLoopCount", "tailCoreFormerDataNum",
        "tailCoreTailDataNum", "tileBufferLen")] + [
        ("rtol", ctypes.c_float), ("atol", ctypes.c_float), ("equalNan", ctypes.c_uint32), ("rank", ctypes.c_uint32),
        ("broadcastMode", ctypes.c_uint32), ("reserved", ctypes.c_uint32), ("totalLength", ctypes.c_uint64),
        ("outShape", ctypes.c_uint64 * IS_CLOSE_MAX_BROADCAST_DIM),
        ("x1Stride", ctypes.c_uint64 * IS_CLOSE_MAX_BROADCAST_DIM),
        ("x2Stride", ctypes.c_uint64 * IS_CLOSE_MAX_BROADCAST_DIM)]


def _tile_buffer_len(ub_size, dtype_size):
    """CalcTileBufferLen."""
    per_element = BUFFER_NUM * (2 * dtype_size + 1) + FLOAT_BUF_NUM * 4 + HALF_BUF_NUM * 2 + MASK_BUF_NUM
    usable = max(ub_size - BROADCAST_SCALAR_BUF_SIZE, 0)
    align = max(COMPARE_ALIGN, BYTE_ALIGN // dtype_size)
    return usable // per_element // align * align or align


def tiling(device, total, dtype):
    """IsCloseTilingFunc for x1 and x2 of one 1-D shape: (block dim, tiling key, packed IsCloseTilingData,
    workspace bytes)."""
    rtol, atol, equal_nan = ATTRS[dtype]
    ub_size = aj.get_device(device).ub_bytes
    if ub_size > RESERVED_UB_SIZE:
        ub_size -= RESERVED_UB_SIZE
    t = IsCloseTilingData(rtol=rtol, atol=atol, equalNan=int(equal_nan))
    tile = _tile_buffer_len(ub_size, TYPE_SIZE[dtype])
    # SetCoreTiling, contiguous mode
    used = 1 if total <= MULTI_CORE_SIZE_LIMIT else min(CORE_NUM, total)
    remainder = total % used
    t.formerCoreNum = used if remainder == 0 else remainder
    t.tailCoreNum = used - t.formerCoreNum
    t.formerCoreDataNum = -(-total // used)
    t.tailCoreDataNum = 0 if t.tailCoreNum == 0 else total // used
    t.tileBufferLen = tile
    t.formerCoreLoopCount = -(-t.formerCoreDataNum // tile)
    t.formerCoreFormerDataNum = min(t.formerCoreDataNum, tile)
    t.formerCoreTailDataNum = t.formerCoreDataNum % tile or tile
    if t.tailCoreDataNum:
        t.tailCoreLoopCount = -(-t.tailCoreDataNum // tile)
        t.tailCoreFormerDataNum = min(t.tailCoreDataNum, tile)
        t.tailCoreTailDataNum = t.tailCoreDataNum % tile or tile
    # a contiguous 1-D input compresses to rank 1: its shape, unit strides
    t.totalLength, t.rank, t.broadcastMode = total, 1, IS_CLOSE_BROADCAST_MODE_CONTIGUOUS
    t.outShape[0], t.x1Stride[0], t.x2Stride[0] = total, 1, 1
    key = t.broadcastMode * IS_CLOSE_TPL_DTYPE_COUNT + _DTYPES.index(dtype)
    return (t.formerCoreNum + t.tailCoreNum, key, np.frombuffer(bytes(t), np.uint8).copy(),
            aj.GetLibApiWorkSpaceSize(device))


class IsClose:
    def __init__(self, T, BROADCAST_MODE):
        self.T, self.BROADCAST_MODE = T, BROADCAST_MODE

    def Init(self, x1, x2, y, workspace, tilingData):
        blockIdx = aj.GetBlockIdx()
        if blockIdx >= tilingData.formerCoreNum:
            self.blockLength = tilingData.tailCoreDataNum
            self.loopCount = tilingData.tailCoreLoopCount
            self.tailTileLen = tilingData.tailCoreTailDataNum
            self.blockOffset = (tilingData.formerCoreNum * tilingData.formerCoreDataNum
                                + (blockIdx - tilingData.formerCoreNum) * self.blockLength)
        else:
            self.blockLength = tilingData.formerCoreDataNum
            self.loopCount = tilingData.formerCoreLoopCount
            self.tailTileLen = tilingData.formerCoreTailDataNum
            self.blockOffset = self.blockLength * blockIdx
        self.tileBufferLen = tilingData.tileBufferLen
        self.rtol, self.atol = np.float32(tilingData.rtol), np.float32(tilingData.atol)
        self.equalNan = tilingData.equalNan
        self.rank = tilingData.rank
        self.outShape = list(tilingData.outShape)
        self.x1Gm, self.x2Gm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.x1Gm.SetGlobalBuffer(x1)
        self.x2Gm.SetGlobalBuffer(x2)
        self.yGm.SetGlobalBuffer(y)
        if self.tileBufferLen == 0:
            return
        # the row-broadcast buffer is sized by the broadcast modes only; a rank-1 contiguous input keeps 32 bytes
        assert self.rank == 1 and self.BROADCAST_MODE == IS_CLOSE_BROADCAST_MODE_CONTIGUOUS, "not ported"
        broadcastRowBufferBytes = BROADCAST_SCALAR_BUFFER_BYTES
        self.pipe = aj.TPipe()
        self.x1Queue, self.x2Queue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM), aj.TQue(aj.QuePosition.VECIN,
                                                                                          BUFFER_NUM)
        self.x1ScalarQueue, self.x2ScalarQueue, self.broadcastRowQueue = (
            aj.TQue(aj.QuePosition.VECIN, SCALAR_BUFFER_NUM) for _ in range(3))
        self.yQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        (self.x1FloatBuf, self.x2FloatBuf, self.actualErrorBuf, self.allowedErrorBuf, self.resultBuf,
         self.resultHalfBuf, self.onesBuf, self.zerosBuf, self.infBuf, self.maskBuf) = (
            aj.TBuf(aj.QuePosition.VECCALC) for _ in range(10))
        n, size = self.tileBufferLen, TYPE_SIZE[self.T]
        self.pipe.InitBuffer(self.x1Queue, BUFFER_NUM, n * size)
        self.pipe.InitBuffer(self.x2Queue, BUFFER_NUM, n * size)
        self.pipe.InitBuffer(self.x1ScalarQueue, SCALAR_BUFFER_NUM, BROADCAST_SCALAR_BUFFER_BYTES)
        self.pipe.InitBuffer(self.x2ScalarQueue, SCALAR_BUFFER_NUM, BROADCAST_SCALAR_BUFFER_BYTES)
        self.pipe.InitBuffer(self.broadcastRowQueue, SCALAR_BUFFER_NUM, broadcastRowBufferBytes)
        self.pipe.InitBuffer(self.yQueue, BUFFER_NUM, n)
        for buf in (self.x1FloatBuf, self.x2FloatBuf, self.actualErrorBuf, self.allowedErrorBuf, self.resultBuf):
            self.pipe.InitBuffer(buf, n * 4)
        self.pipe.InitBuffer(self.resultHalfBuf, n * 2)
        for buf in (self.onesBuf, self.zerosBuf, self.infBuf):
            self.pipe.InitBuffer(buf, n * 4)
        self.pipe.InitBuffer(self.maskBuf, n)

    def CopyIn(self, progress, validLength, computeLength):
        x1Local = self.x1Queue.AllocTensor(self.T)
        x2Local = self.x2Queue.AllocTensor(self.T)
        # deviation (module docstring): the lanes the rounded compute reads past the copy's last block are zeroed
        copied = aj.AlignUp(validLength, DATABLOCK_BYTES // TYPE_SIZE[self.T])
        if computeLength > copied:
            aj.Duplicate(x1Local[copied:], _NP[self.T](0), computeLength - copied)
            aj.Duplicate(x2Local[copied:], _NP[self.T](0), computeLength - copied)
        outStart = self.blockOffset + progress * self.tileBufferLen
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = validLength * TYPE_SIZE[self.T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(x1Local, self.x1Gm[outStart], copyParams, aj.DataCopyPadParams(False, 0, 0, 0))
        aj.DataCopyPad(x2Local, self.x2Gm[outStart], copyParams, aj.DataCopyPadParams(False, 0, 0, 0))
        self.x1Queue.EnQue(x1Local)
        self.x2Queue.EnQue(x2Local)

    def CastInputToFloat(self, dst, src, tileLength):
        if aj.IsSameType(self.T, "float"):
            return src                     # `dst = src`: the input tile is the float operand
        aj.Cast(dst, src, aj.RoundMode.CAST_NONE, tileLength)
        return dst

    def Compute(self, computeLength):
        n = computeLength
        x1Local = self.x1Queue.DeQue(self.T)
        x2Local = self.x2Queue.DeQue(self.T)
        yLocal = self.yQueue.AllocTensor("int8")
        x1Float = self.x1FloatBuf.Get("float")
        x2Float = self.x2FloatBuf.Get("float")
        actualError = self.actualErrorBuf.Get("float")
        allowedError = self.allowedErrorBuf.Get("float")
        result = self.resultBuf.Get("float")
        resultHalf = self.resultHalfBuf.Get("half")
        ones, zeros, infTensor = self.onesBuf.Get("float"), self.zerosBuf.Get("float"), self.infBuf.Get("float")
        mask = self.maskBuf.Get("uint8")

        x1Float = self.CastInputToFloat(x1Float, x1Local, n)
        x2Float = self.CastInputToFloat(x2Float, x2Local, n)

        aj.Sub(actualError, x1Float, x2Float, n)
        aj.Abs(actualError, actualError, n)
        aj.Abs(allowedError, x2Float, n)
        aj.Muls(allowedError, allowedError, self.rtol, n)
        aj.Adds(allowedError, allowedError, self.atol, n)

        aj.Duplicate(ones, np.float32(1.0), n)
        aj.Duplicate(zeros, np.float32(0.0), n)
        aj.Duplicate(infTensor, np.float32(np.inf), n)

        aj.Compare(mask, actualError, allowedError, aj.CMPMODE.LE, n)
        aj.Select(result, mask, ones, zeros, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
        aj.Compare(mask, actualError, infTensor, aj.CMPMODE.LT, n)
        aj.Select(result, mask, result, zeros, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
        aj.Compare(mask, x1Float, x2Float, aj.CMPMODE.EQ, n)
        aj.Select(result, mask, ones, result, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)

        if self.equalNan != 0:
            aj.Abs(actualError, x1Float, n)
            aj.Compare(mask, actualError, infTensor, aj.CMPMODE.LE, n)
            aj.Select(actualError, mask, zeros, ones, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
            aj.Abs(allowedError, x2Float, n)
            aj.Compare(mask, allowedError, infTensor, aj.CMPMODE.LE, n)
            aj.Select(allowedError, mask, zeros, ones, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
            aj.Add(actualError, actualError, allowedError, n)
            aj.CompareScalar(mask, actualError, np.float32(2.0), aj.CMPMODE.EQ, n)
            aj.Select(result, mask, ones, result, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)

        aj.Cast(resultHalf, result, aj.RoundMode.CAST_RINT, n)
        aj.Cast(yLocal, resultHalf, aj.RoundMode.CAST_RINT, n)

        self.x1Queue.FreeTensor(x1Local)
        self.x2Queue.FreeTensor(x2Local)
        self.yQueue.EnQue("int8", yLocal)

    def CopyOut(self, outOffset, validLength):
        yLocal = self.yQueue.DeQue("int8")
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = validLength
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(self.yGm[outOffset], yLocal, copyParams)
        self.yQueue.FreeTensor(yLocal)

    def Process(self):
        if self.blockLength == 0 or self.loopCount == 0 or self.tileBufferLen == 0:
            return
        for i in range(self.loopCount - 1):
            validLength = self.tileBufferLen
            computeLength = aj.AlignUp(validLength, COMPARE_ALIGN)
            self.CopyIn(i, validLength, computeLength)
            self.Compute(computeLength)
            self.CopyOut(self.blockOffset + i * self.tileBufferLen, validLength)
        validLength = self.tailTileLen
        computeLength = aj.AlignUp(validLength, COMPARE_ALIGN)
        self.CopyIn(self.loopCount - 1, validLength, computeLength)
        self.Compute(computeLength)
        self.CopyOut(self.blockOffset + (self.loopCount - 1) * self.tileBufferLen, validLength)


aj.REGISTER_TILING_DEFAULT(IsCloseTilingData)


def is_close(x1, x2, y, workspace, tiling, IS_CLOSE_TPL_KEY):
    """The kernel entry: the template key is the broadcast mode times the dtype count plus the dtype."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(IsCloseTilingData, tiling)
    BROADCAST_MODE = IS_CLOSE_TPL_KEY // IS_CLOSE_TPL_DTYPE_COUNT
    op = IsClose(_DTYPES[IS_CLOSE_TPL_KEY % IS_CLOSE_TPL_DTYPE_COUNT], BROADCAST_MODE)
    op.Init(x1, x2, y, workspace, tilingData)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        rtol, atol, _ = ATTRS[dtype]
        if dtype == "int32":
            x2 = rng.integers(-2**31, 2**31 - 1, size, dtype=np.int64)
            x2[::3] = rng.integers(-300, 300, size)[::3]
            # neighbours past float32's integer range round to one float; small ones differ by atol's 1 or more
            x1 = np.clip(x2 + rng.integers(-2, 3, size), -2**31, 2**31 - 1)
            return {"x1": x1.astype(np.int32), "x2": x2.astype(np.int32)}
        x2 = (rng.standard_normal(size) * 4).astype(np.float32)
        # relative differences around rtol: within, near and past the bound
        x1 = x2 * (1 + rng.integers(-4, 5, size) * np.float32(rtol / 2))
        x1, x2 = x1.astype(_NP[dtype]), x2.astype(_NP[dtype])
        x1[::13], x2[::17] = x2[::13], np.float32(1e-9)
        x1[3::101], x2[3::101] = np.nan, np.nan
        x1[5::89] = np.nan
        x2[7::97], x1[7::194] = np.inf, np.inf
        return {"x1": x1, "x2": x2}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x1, x2 = inputs["x1"], inputs["x2"]
        padded = -(-x1.size * x1.itemsize // DATABLOCK_BYTES) * DATABLOCK_BYTES // x1.itemsize
        gm1, gm2 = np.zeros(padded, x1.dtype), np.zeros(padded, x1.dtype)
        gm1[:x1.size], gm2[:x2.size] = x1, x2
        y = np.zeros(-(-x1.size // DATABLOCK_BYTES) * DATABLOCK_BYTES, np.int8)
        block_dim, key, tiling_bytes, workspace_bytes = tiling(device, x1.size, dtype)
        workspace = np.zeros(workspace_bytes, np.uint8)     # the kernel does not touch it
        aj.launch(is_close, block_dim, device, gm1, gm2, y, workspace, tiling_bytes, key)
        return {"y": y[:x1.size]}
    return run


def _expected(dtype):
    def expected(device, inputs):
        """IEEE float32 on the host: |x1 - x2| <= rtol * |x2| + atol and < inf, or x1 == x2, or both NaN when
        equal_nan."""
        rtol, atol, equal_nan = ATTRS[dtype]
        x1, x2 = inputs["x1"].astype(np.float32), inputs["x2"].astype(np.float32)
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.abs(x1 - x2)
            allowed = np.abs(x2) * np.float32(rtol) + np.float32(atol)
            close = ((err <= allowed) & (err < np.inf)) | (x1 == x2)
        if equal_nan:
            close |= np.isnan(x1) & np.isnan(x2)
        return {"y": close.astype(np.int8)}
    return expected


_SOURCE = "hicann/ops-math@c4193324 experimental/math/is_close/op_kernel/is_close.h"
KERNELS = [
    KernelSpec("is_close", "IsClose over floats, contiguous mode: a tiling struct with shape arrays by "
               "GET_TILING_DATA_WITH_STRUCT; Sub/Abs/Muls/Adds, Compare LE/LT/EQ and Select tensor-tensor into a "
               "0/1 float, Cast to half and int8; former/tail cores from unaligned GM starts", _make_inputs("float"),
               _run("float"), _expected("float"), default_size=100000, devices=DEVICES, source=_SOURCE),
    KernelSpec("is_close_half_equal_nan", "IsClose over halves in float with equal_nan (Abs, Compare LE +inf, "
               "Select, Add, CompareScalar EQ 2)", _make_inputs("half"), _run("half"), _expected("half"),
               default_size=100000, devices=DEVICES, source=_SOURCE),
    KernelSpec("is_close_bf16", "IsClose over bfloat16 in float", _make_inputs("bfloat16"), _run("bfloat16"),
               _expected("bfloat16"), default_size=100000, devices=DEVICES, source=_SOURCE),
    KernelSpec("is_close_int32", "IsClose over int32 in float (Cast CAST_NONE rounds past 2**24)",
               _make_inputs("int32"), _run("int32"), _expected("int32"), default_size=100000, devices=DEVICES,
               source=_SOURCE),
]
