"""DataFormatDimMap from the CANN NN operators: each dimension index x of a src_format (in [-N, N), N the format's
length) mapped to its position in dst_format, as int32 or int64 (here NHWC -> NCHW: 0 -> 0, 1 -> 2, 2 -> 3, 3 -> 1).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/index/data_format_dim_map:
- op_kernel/data_format_dim_map.cpp (the entry: REGISTER_TILING_DEFAULT, GET_TILING_DATA_WITH_STRUCT);
- op_kernel/data_format_dim_map.h (`DataFormatDimMap<T>`: blockFactor elements a core, the last the rest; depth-2
  VECIN / VECOUT queues of ubFactor elements and float TBufs (cast, mod, tmp, result) and a bit-mask TBuf; per tile
  DataCopyPad in (DataCopyParams, `{false, 0, 0, 0}`), Cast to float (int64: Cast CAST_NONE to int32 in the cast
  TBuf, then CAST_RINT; int32: CAST_RINT), mod = (x + N) - floor((x + N) / N) * N by Adds, Muls 1/N, the advanced
  API's Floor in place, Muls N, Sub; Duplicate of the last table entry, then for i = N-2 .. 0 Compares EQ i,
  Duplicate of entry i and a tensor-tensor Select; Cast CAST_RINT back (int64 through int32), DataCopyPad out);
- op_host/data_format_dim_map_tiling.cpp (blockFactor = ceil(total / cores) rounded up to 32 elements, ubFactor =
  UB / (4 * sizeof(T) + 17) rounded down to 32, the expanded table of dst positions).
The advanced API's Floor (DK impl/adv_api/detail/math/floor/): on the 950 `Truncate<float, CAST_FLOOR>`, on the
A2/A3 a count-form Cast float -> float CAST_FLOOR (as kernels/floor.py writes it).

Deviation: the core count is the launch's 8 (GetCoreNumAiv would give the device's).

Sizes (size_rule): the Compares take a tile's plain count, which SPEC-2 D44 requires to be whole 256-byte blocks
(64 floats; the devkit page: elements of an incomplete block are not compared) and the emulator refuses otherwise:
the kernel runs when every core's tiles are whole 64-element groups, a multiple of 512 elements for int32 here (8
cores), and for int64 also at most 3968 elements a core (one tile: the A2/A3's 4000-element and the 950's 5152-element
int64 tiles are not whole groups).
Elsewhere the A2/A3 would leave the tail's mask bits stale for the Select (a kernel bug there); the 950's own
CompareScalar compares the partial block (docs/decisions.md, the session-18 port18b bullet), so on the 950 the
original is right where the emulator refuses it (tests/test_data_format_dim_map.py shows the refusal).

Fidelity: BIT-EXACT (DataCopyPad, Cast, Adds, Muls, Truncate, Sub, Duplicate, Compares, Select are BIT-EXACT); the
expectation replays the float32 steps in numpy and selects as the kernel does.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                        # deviation: the launch's cores (GetCoreNumAiv in the original)
UB_BLOCK = 32                       # GetUbBlockSize, used as an element count by the host
TYPE_SIZE = {"int32": 4, "int64": 8}
SRC_FORMAT, DST_FORMAT = "NHWC", "NCHW"

DataFormatDimMapTilingData = np.dtype([("totalNum", np.int64), ("blockFactor", np.int64), ("ubFactor", np.int64),
                                       ("formatLen", np.int32), ("expandedTable", np.int32, 10)], align=True)


def tiling(device, total, dtype, src_format=SRC_FORMAT, dst_format=DST_FORMAT):
    """DataFormatDimMapTilingFunc: (block dim, the packed tiling data)."""
    t = np.zeros(1, DataFormatDimMapTilingData)
    n = len(src_format)
    table = [dst_format.index(c) for c in src_format]
    t["totalNum"], t["formatLen"] = total, n
    t["expandedTable"][0, :2 * n] = table + table
    t["blockFactor"] = -(-(-(-total // CORE_NUM)) // UB_BLOCK) * UB_BLOCK
    t["ubFactor"] = aj.get_device(device).ub_bytes // (4 * TYPE_SIZE[dtype] + 4 * 4 + 1) // UB_BLOCK * UB_BLOCK
    return -(-total // int(t["blockFactor"][0])), t.view(np.uint8).copy()


def floor_api(dst, src, count):
    """AscendC::Floor(dst, src, count) on float: the 950 build's Truncate, the A2/A3 build's Cast."""
    if aj.current_core().device == "ascend950":
        aj.Truncate(dst, src, aj.RoundMode.CAST_FLOOR, count)
    else:
        aj.Cast(dst, src, aj.RoundMode.CAST_FLOOR, count)


class DataFormatDimMap:
    BUFFER_NUM = 2

    def __init__(self, T):
        self.T = T

    def Init(self, x, y, tilingData):
        T = self.T
        remainderLength = int(tilingData.totalNum) - int(tilingData.blockFactor) * aj.GetBlockIdx()
        self.blockLength_ = min(remainderLength, int(tilingData.blockFactor))
        if self.blockLength_ <= 0:
            return
        self.ubLength_ = int(tilingData.ubFactor)
        self.formatLen_ = int(tilingData.formatLen)
        self.indValues_ = [int(v) for v in tilingData.expandedTable[:min(2 * self.formatLen_, 10)]]
        offset = int(tilingData.blockFactor) * aj.GetBlockIdx()
        self.inputGM, self.outputGM = aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGM.SetGlobalBuffer(x[offset:], self.blockLength_)
        self.outputGM.SetGlobalBuffer(y[offset:], self.blockLength_)
        self.pipe = aj.TPipe()
        self.inputQueue = aj.TQue(aj.QuePosition.VECIN, self.BUFFER_NUM)
        self.outputQueue = aj.TQue(aj.QuePosition.VECOUT, self.BUFFER_NUM)
        self.pipe.InitBuffer(self.inputQueue, self.BUFFER_NUM, self.ubLength_ * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.outputQueue, self.BUFFER_NUM, self.ubLength_ * TYPE_SIZE[T])
        self.castBuf, self.modBuf, self.tmpBuf, self.cmpBuf, self.resultBuf = (
            aj.TBuf(aj.QuePosition.VECCALC) for _ in range(5))
        floatBytes = self.ubLength_ * 4
        self.pipe.InitBuffer(self.castBuf, floatBytes)
        self.pipe.InitBuffer(self.modBuf, floatBytes)
        self.pipe.InitBuffer(self.tmpBuf, floatBytes)
        self.pipe.InitBuffer(self.resultBuf, floatBytes)
        self.pipe.InitBuffer(self.cmpBuf, (self.ubLength_ // 8 + 31) // 32 * 32)

    def CopyIn(self, progress, currentNum):
        T = self.T
        inputLocal = self.inputQueue.AllocTensor(T)
        copyParams = aj.DataCopyParams(1, currentNum * TYPE_SIZE[T], 0, 0)
        aj.DataCopyPad(inputLocal, self.inputGM[progress * self.ubLength_], copyParams, (False, 0, 0, 0))
        self.inputQueue.EnQue(inputLocal)

    def CopyOut(self, progress, currentNum):
        T = self.T
        outputLocal = self.outputQueue.DeQue(T)
        aj.DataCopyPad(self.outputGM[progress * self.ubLength_], outputLocal,
                       aj.DataCopyParams(1, currentNum * TYPE_SIZE[T], 0, 0))
        self.outputQueue.FreeTensor(outputLocal)

    def Compute(self, currentNum):
        T = self.T
        inputLocal = self.inputQueue.DeQue(T)
        outputLocal = self.outputQueue.AllocTensor(T)
        castLocal, modLocal = self.castBuf.Get("float"), self.modBuf.Get("float")
        tmpLocal, cmpLocal = self.tmpBuf.Get("float"), self.cmpBuf.Get("uint8")
        resultLocal = self.resultBuf.Get("float")
        count = currentNum
        if TYPE_SIZE[T] == 8:
            tmpI32 = self.castBuf.Get("int32")
            aj.Cast(tmpI32, inputLocal, aj.RoundMode.CAST_NONE, count)
            aj.Cast(castLocal, tmpI32, aj.RoundMode.CAST_RINT, count)
        else:
            aj.Cast(castLocal, inputLocal, aj.RoundMode.CAST_RINT, count)
        fN = np.float32(self.formatLen_)
        invN = np.float32(1.0) / fN
        aj.Adds(modLocal, castLocal, fN, count)
        aj.Muls(tmpLocal, modLocal, invN, count)
        floor_api(tmpLocal, tmpLocal, count)
        aj.Muls(tmpLocal, tmpLocal, fN, count)
        aj.Sub(modLocal, modLocal, tmpLocal, count)
        aj.Duplicate(resultLocal, np.float32(self.indValues_[self.formatLen_ - 1]), count)
        for i in range(self.formatLen_ - 2, -1, -1):
            aj.Compares(cmpLocal, modLocal, np.float32(i), aj.CMPMODE.EQ, count)
            aj.Duplicate(tmpLocal, np.float32(self.indValues_[i]), count)
            aj.Select(resultLocal, cmpLocal, tmpLocal, resultLocal, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, count)
        if TYPE_SIZE[T] == 8:
            tmpI32 = self.castBuf.Get("int32")
            aj.Cast(tmpI32, resultLocal, aj.RoundMode.CAST_RINT, count)
            aj.Cast(outputLocal, tmpI32, aj.RoundMode.CAST_NONE, count)
        else:
            aj.Cast(outputLocal, resultLocal, aj.RoundMode.CAST_RINT, count)
        self.outputQueue.EnQue(outputLocal)
        self.inputQueue.FreeTensor(inputLocal)

    def Process(self):
        if self.blockLength_ <= 0:
            return
        loopCount = -(-self.blockLength_ // self.ubLength_)
        for i in range(loopCount):
            currentNum = self.blockLength_ - self.ubLength_ * i if i == loopCount - 1 else self.ubLength_
            self.CopyIn(i, currentNum)
            self.Compute(currentNum)
            self.CopyOut(i, currentNum)


aj.REGISTER_TILING_DEFAULT(DataFormatDimMapTilingData)


def data_format_dim_map(x, y, workspace, tiling_bytes, DTYPE_X):
    """The kernel entry; DTYPE_X the build's type."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(DataFormatDimMapTilingData, tiling_bytes)
    op = DataFormatDimMap(DTYPE_X)
    op.Init(x, y, tilingData)
    op.Process()


_NP = {"int32": np.int32, "int64": np.int64}


def _make_inputs(dtype):
    def make_inputs(size, seed):
        n = len(SRC_FORMAT)
        return {"x": np.random.default_rng(seed).integers(-n, n, size).astype(_NP[dtype])}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        y = np.zeros_like(x)
        block_dim, tiling_bytes = tiling(device, x.size, dtype)
        aj.launch(data_format_dim_map, block_dim, device, x, y, np.zeros(32, np.uint8), tiling_bytes, dtype)
        return {"y": y}
    return run


def _expected(dtype):
    def expected(device, inputs):
        n = len(SRC_FORMAT)
        table = [DST_FORMAT.index(c) for c in SRC_FORMAT]
        fN, invN = np.float32(n), np.float32(1.0) / np.float32(n)
        v = inputs["x"].astype(np.float32) + fN
        mod = (v - (np.floor((v * invN).astype(np.float32)) * fN).astype(np.float32)).astype(np.float32)
        out = np.full(v.size, table[n - 1], np.int64)
        for i in range(n - 2, -1, -1):
            out = np.where(mod == np.float32(i), table[i], out)
        return {"y": out.astype(_NP[dtype])}
    return expected


def _size_ok(dtype):
    # every core's tiles whole 64-element groups (D44, the docstring); int64 also within one tile a core
    return lambda n: 0 < n <= (1 << 24 if dtype == "int32" else 8 * 3968) and n % 512 == 0


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/index/data_format_dim_map/op_kernel/data_format_dim_map.h"
_DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
KERNELS = [
    KernelSpec("data_format_dim_map", "ops-nn DataFormatDimMap over int32 (NHWC -> NCHW): Cast to float, Adds / Muls "
               "/ the advanced Floor (950: Truncate CAST_FLOOR) / Muls / Sub for x mod N, Duplicate + Compares EQ + "
               "tensor-tensor Select per table entry, Cast CAST_RINT back; 32-element core blocks, DataCopyPad tiles",
               _make_inputs("int32"), _run("int32"), _expected("int32"), default_size=100352, devices=_DEVICES,
               size_rule="a multiple of 512 elements, up to 16Mi (D44: whole 64-float Compares)",
               size_ok=_size_ok("int32"), source=_SOURCE),
    KernelSpec("data_format_dim_map_int64", "ops-nn DataFormatDimMap over int64: Casts int64 -> int32 CAST_NONE and "
               "back around the float steps", _make_inputs("int64"), _run("int64"), _expected("int64"),
               default_size=20480, devices=_DEVICES,
               size_rule="a multiple of 512 elements, up to 31744 (D44: whole 64-float Compares in one tile)",
               size_ok=_size_ok("int64"), source=_SOURCE),
]
