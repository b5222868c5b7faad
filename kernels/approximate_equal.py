"""ApproximateEqual from the CANN math operators: y = |x1 - x2| < tolerance, as bytes (bool), over float, half and
bfloat16 (the 16-bit types widened to float by CAST_NONE and compared in float).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/approximate_equal/op_kernel/
approximate_equal.cpp (REGISTER_TILING_DEFAULT(ApproximateEqualTilingData), GET_TILING_DATA_WITH_STRUCT, the class
instantiated by `std::is_same_v<DTYPE_X1, ...>`), approximate_equal_kernel.h (`NsApproximateEqual::
KernelApproximateEqual<T, TILING_KEY>`: double-buffered VECIN queues for x1 and x2 and a VECOUT queue of uint8, a
bitmap TBuf and a TBuf of ones filled once by Duplicate<uint8_t> in Init, two float TBufs when T needs a cast; per
tile DataCopyPad in with DataCopyParams set field by field and DataCopyPadParams {false, 0, 0, 0}; float: Sub and Abs
in place in x1's tile; half and bfloat16: Cast both to float CAST_NONE, Sub, Abs; then CompareScalar LT against the
tolerance over the count rounded up to 256 bytes of T into the bitmap, Select<uint8_t, uint8_t>(y, bitmap, ones, 0,
VSEL_TENSOR_SCALAR_MODE, count) and DataCopyPad out of the tile's bytes) and approximate_equal_tiling_data.h (the
struct: int64 totalNum, blockFactor, ubFactor, float tolerance, uint32 reserved), with the host tiling of
experimental/math/approximate_equal/op_host/approximate_equal_tiling.cpp (`ApproximateEqualTilingFunc`: ceil(total /
cores) rounded up to a 32-byte block a core, as many cores as that takes; tiles of (UB - 32 KiB) / 20 bytes rounded
down to a block, at most a core's share). The tiling struct is one ctypes.Structure the host packs and the kernel
reads, as the C++ header serves both.

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's). The original's CompareScalar
runs over the tile's count rounded up to 256 bytes of T (its comment: the count must be whole 256 bytes), which
reads lanes no instruction of the tile wrote (a short tile: past the copy's last 32-byte block, or past the Cast's
count) and, for a full tile that is not whole 256 bytes (11056 floats on the 950), past the end of the compared
buffer into its neighbour (the next queue slot or TBuf). The port sizes the compared buffer (x1's queue for float,
the first float TBuf otherwise) up to that rounded count (aj.AlignUp) and zeroes the lanes the compare reads past
what the tile wrote: for float, by a Duplicate past the copy's last block before the copy-in (no MTE2 ordering
needed: other bytes), for the 16-bit types by a Duplicate over the float TBuf before the Cast. Those lanes' bits are
never selected (Select takes the count): the outputs are the original's.

Devices: the operator's one config is ascend950 (op_host/approximate_equal_def.cpp), and Select<uint8_t, uint8_t>
exists only there (SPEC-2 9.5: uint8 count form, 950); the 950 offers every other instruction for the three types.

Fidelity: BIT-EXACT (DataCopyPad, Cast, Sub, Abs, CompareScalar, Duplicate and Select are BIT-EXACT, SPEC-2 0.3):
checked bit for bit against numpy: |x1 - x2| in IEEE float32 (the 16-bit types widened exactly) compared < the
tolerance as a float32 (NaN: 0).
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
CORE_NUM = 8
UB_BLOCK_SIZE = 32
UB_BYTES_PER_ELEM = 20          # the same for float, half and bfloat16 in the tiling
UB_RESERVED_BYTES = 32 * 1024
DEVICES = ("ascend950",)
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
TOLERANCE = {"float": 1e-5, "half": 1e-3, "bfloat16": 1e-2}    # the attribute (default 1e-5), near each type's ulp


class ApproximateEqualTilingData(ctypes.Structure):
    _fields_ = [("totalNum", ctypes.c_int64), ("blockFactor", ctypes.c_int64), ("ubFactor", ctypes.c_int64),
                ("tolerance", ctypes.c_float), ("reserved", ctypes.c_uint32)]


def tiling(device, total, dtype, tolerance=1e-5):
    """ApproximateEqualTilingFunc: (block dim, the packed ApproximateEqualTilingData bytes)."""
    data = ApproximateEqualTilingData(totalNum=total, tolerance=tolerance)
    align = UB_BLOCK_SIZE // TYPE_SIZE[dtype]
    data.blockFactor = -(-(-(-total // CORE_NUM)) // align) * align
    used = max(-(-total // data.blockFactor), 1)
    usable = aj.get_device(device).ub_bytes - UB_RESERVED_BYTES
    ub_factor = usable // UB_BYTES_PER_ELEM // align * align
    data.ubFactor = min(ub_factor, data.blockFactor)
    return used, np.frombuffer(bytes(data), np.uint8).copy()


class KernelApproximateEqual:
    def __init__(self, T):
        self.T = T
        self.NEEDS_CAST = aj.IsSameType(T, "half") or aj.IsSameType(T, "bfloat16")
        # the CompareScalar's rounding: 256 bytes of T (the original's COMPARE_ALIGN_ELEMS)
        self.COMPARE_ALIGN_ELEMS = 256 // TYPE_SIZE[T]

    def Init(self, x1, x2, y, tiling):
        blockIdx = aj.GetBlockIdx()
        remainder = tiling.totalNum - tiling.blockFactor * blockIdx
        self.blockLength = max(min(remainder, tiling.blockFactor), 0)
        self.ubLength = tiling.ubFactor
        self.tolerance = np.float32(tiling.tolerance)
        offset = tiling.blockFactor * blockIdx
        self.inputGMX1, self.inputGMX2, self.outputGMY = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGMX1.SetGlobalBuffer(x1[offset:], self.blockLength)
        self.inputGMX2.SetGlobalBuffer(x2[offset:], self.blockLength)
        self.outputGMY.SetGlobalBuffer(y[offset:], self.blockLength)
        self.pipe = aj.TPipe()
        self.inputQueueX1 = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.inputQueueX2 = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outputQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.bitmapBuf, self.onesBuf, self.castBuf1, self.castBuf2 = (aj.TBuf(aj.QuePosition.VECCALC)
                                                                      for _ in range(4))
        size = TYPE_SIZE[self.T]
        # deviation (module docstring): the compared buffer holds the compare's rounded count
        compared = aj.AlignUp(self.ubLength, self.COMPARE_ALIGN_ELEMS)
        self.pipe.InitBuffer(self.inputQueueX1, BUFFER_NUM, (self.ubLength if self.NEEDS_CAST else compared) * size)
        self.pipe.InitBuffer(self.inputQueueX2, BUFFER_NUM, self.ubLength * size)
        self.pipe.InitBuffer(self.outputQueueY, BUFFER_NUM, self.ubLength)
        self.pipe.InitBuffer(self.bitmapBuf, self.ubLength)
        self.pipe.InitBuffer(self.onesBuf, self.ubLength)
        if self.NEEDS_CAST:
            self.pipe.InitBuffer(self.castBuf1, compared * 4)
            self.pipe.InitBuffer(self.castBuf2, self.ubLength * 4)
        onesLocal = self.onesBuf.Get("uint8")
        aj.Duplicate(onesLocal, np.uint8(1), self.ubLength)

    def Process(self):
        if self.blockLength <= 0:
            return
        loopCount = (self.blockLength + self.ubLength - 1) // self.ubLength
        for i in range(loopCount):
            currentNum = self.blockLength - self.ubLength * i if i == loopCount - 1 else self.ubLength
            self.CopyIn(i, currentNum)
            self.Compute(currentNum)
            self.CopyOut(i, currentNum)

    def _cmp_count(self, count):
        return (count + self.COMPARE_ALIGN_ELEMS - 1) // self.COMPARE_ALIGN_ELEMS * self.COMPARE_ALIGN_ELEMS

    def CopyIn(self, progress, count):
        x1Local = self.inputQueueX1.AllocTensor(self.T)
        x2Local = self.inputQueueX2.AllocTensor(self.T)
        if not self.NEEDS_CAST:
            # deviation (module docstring): the compare's lanes past the copy's last 32-byte block are zeroed
            copied = aj.AlignUp(count, UB_BLOCK_SIZE // TYPE_SIZE[self.T])
            cmpCount = self._cmp_count(count)
            if cmpCount > copied:
                aj.Duplicate(x1Local[copied:], np.float32(0), cmpCount - copied)
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = count * TYPE_SIZE[self.T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(x1Local, self.inputGMX1[progress * self.ubLength], copyParams,
                       aj.DataCopyPadParams(False, 0, 0, 0))
        aj.DataCopyPad(x2Local, self.inputGMX2[progress * self.ubLength], copyParams,
                       aj.DataCopyPadParams(False, 0, 0, 0))
        self.inputQueueX1.EnQue(x1Local)
        self.inputQueueX2.EnQue(x2Local)

    def Compute(self, count):
        cmpCount = self._cmp_count(count)
        x1Local = self.inputQueueX1.DeQue(self.T)
        x2Local = self.inputQueueX2.DeQue(self.T)
        yLocal = self.outputQueueY.AllocTensor("uint8")
        bitmap = self.bitmapBuf.Get("uint8")
        onesLoc = self.onesBuf.Get("uint8")
        if aj.IsSameType(self.T, "float"):
            self.ComputeFp32Body(x1Local, x2Local, bitmap, count, cmpCount)
        else:
            x1f = self.castBuf1.Get("float")
            x2f = self.castBuf2.Get("float")
            if cmpCount > count:
                aj.Duplicate(x1f, np.float32(0), cmpCount)   # deviation (module docstring): the compare's lanes
            aj.Cast(x1f, x1Local, aj.RoundMode.CAST_NONE, count)
            aj.Cast(x2f, x2Local, aj.RoundMode.CAST_NONE, count)
            aj.Sub(x1f, x1f, x2f, count)
            aj.Abs(x1f, x1f, count)
            aj.CompareScalar(bitmap, x1f, self.tolerance, aj.CMPMODE.LT, cmpCount)
        aj.Select(yLocal, bitmap, onesLoc, np.uint8(0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, count)
        self.outputQueueY.EnQue("uint8", yLocal)
        self.inputQueueX1.FreeTensor(x1Local)
        self.inputQueueX2.FreeTensor(x2Local)

    def ComputeFp32Body(self, x1Local, x2Local, bitmap, count, cmpCount):
        aj.Sub(x1Local, x1Local, x2Local, count)
        aj.Abs(x1Local, x1Local, count)
        aj.CompareScalar(bitmap, x1Local, self.tolerance, aj.CMPMODE.LT, cmpCount)

    def CopyOut(self, progress, count):
        yLocal = self.outputQueueY.DeQue("uint8")
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = count
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        aj.DataCopyPad(self.outputGMY[progress * self.ubLength], yLocal, copyParams)
        self.outputQueueY.FreeTensor(yLocal)


aj.REGISTER_TILING_DEFAULT(ApproximateEqualTilingData)


def approximate_equal(x1, x2, y, workspace, tiling, DTYPE_X1):
    """The kernel entry; DTYPE_X1 is the build's input type (a macro in C++, an argument here)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ApproximateEqualTilingData, tiling)
    for T in ("float", "half", "bfloat16"):
        if aj.IsSameType(DTYPE_X1, T):
            op = KernelApproximateEqual(T)
            op.Init(x1, x2, y, tilingData)
            op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x1 = rng.standard_normal(size).astype(np.float32)
        # differences around the tolerance: equal, within, at and past it, and NaN / inf lanes
        step = TOLERANCE[dtype]
        x2 = (x1 + rng.integers(-3, 4, size) * np.float32(step / 2)).astype(np.float32)
        x1, x2 = x1.astype(_NP[dtype]), x2.astype(_NP[dtype])
        x2[::11] = x1[::11]
        x1[5::97] = np.nan
        x2[7::89] = np.inf
        return {"x1": x1, "x2": x2}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x1, x2 = inputs["x1"], inputs["x2"]
        # device allocations come in whole 32-byte blocks (the last core's DataCopyPad reads only its bytes)
        padded = -(-x1.size * x1.itemsize // UB_BLOCK_SIZE) * UB_BLOCK_SIZE // x1.itemsize
        gm1, gm2 = np.zeros(padded, x1.dtype), np.zeros(padded, x1.dtype)
        gm1[:x1.size], gm2[:x2.size] = x1, x2
        y = np.zeros(-(-x1.size // UB_BLOCK_SIZE) * UB_BLOCK_SIZE, np.uint8)
        block_dim, tiling_bytes = tiling(device, x1.size, dtype, TOLERANCE[dtype])
        workspace = np.zeros(UB_BLOCK_SIZE, np.uint8)      # WS_SYS_SIZE 0: unused
        aj.launch(approximate_equal, block_dim, device, gm1, gm2, y, workspace, tiling_bytes, dtype)
        return {"y": y[:x1.size]}
    return run


def expected(device, inputs):
    """|x1 - x2| < tolerance in IEEE float32 (16-bit inputs widened exactly); NaN compares false."""
    dtype = {np.dtype(v): k for k, v in _NP.items()}[inputs["x1"].dtype]
    x1, x2 = inputs["x1"].astype(np.float32), inputs["x2"].astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        return {"y": (np.abs(x1 - x2) < np.float32(TOLERANCE[dtype])).astype(np.uint8)}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/approximate_equal/op_kernel/approximate_equal_kernel.h"
KERNELS = [
    KernelSpec("approximate_equal", "ApproximateEqual over floats: tiling struct by REGISTER_TILING_DEFAULT / "
               "GET_TILING_DATA_WITH_STRUCT; Sub, Abs, CompareScalar LT over 256-byte rounded counts, Select<uint8_t> "
               "of Duplicated ones or 0; DataCopyPad with DataCopyParams", _make_inputs("float"), _run("float"),
               expected, default_size=100000, devices=DEVICES, source=_SOURCE),
    KernelSpec("approximate_equal_half", "ApproximateEqual over halves compared in float (two float TBufs, Cast "
               "CAST_NONE)", _make_inputs("half"), _run("half"), expected, default_size=100000, devices=DEVICES,
               source=_SOURCE),
    KernelSpec("approximate_equal_bf16", "ApproximateEqual over bfloat16 compared in float",
               _make_inputs("bfloat16"), _run("bfloat16"), expected, default_size=100000, devices=DEVICES,
               source=_SOURCE),
]
