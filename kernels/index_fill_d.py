"""IndexFillD from the CANN NN operators: y = x where assist1 marks a kept element and assist2's fill value where it
does not (float, half, bfloat16: CompareScalar assist1 > 0 and a tensor-tensor Select; int32: x * assist1 + assist2,
the host's assist tensors being 1/0 and the fill value at the filled indices).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/index/index_fill_d:
- op_kernel/index_fill_d.cpp (the entry: REGISTER_TILING_DEFAULT / GET_TILING_DATA_WITH_STRUCT, a TPipe made here
  and passed in, schMode 0 double-buffered and 1 single-buffered; bool runs the int8 kernel);
- op_kernel/index_fill_d.h (`KernelIndexFillD<TYPE_X, TYPE_Y, BUFFER_NUM>`: big cores first, each core's GM window
  from bigCoreDataNum * GetBlockIdx() less the small cores' shortfall; one `TQueBind<VECIN, VECOUT, BUFFER_NUM>`
  buffer of three tiles (x, assist1, assist2, y written over assist2), a uint8 mask TBuf and for bfloat16 a float
  TBuf; per tile DataCopy of the three inputs, flags on ids fetched by `GetTPipePtr()->FetchEventID` for MTE2_V and
  V_MTE3, the type's compute, DataCopy out, FreeTensor without EnQue / DeQue; bfloat16: Cast assist1 to float,
  CompareScalar GT 0.0f, Cast x to float, Cast assist2 into the float view of the x and assist1 tiles, Select,
  Cast CAST_RINT into the y tile; float and half: CompareScalar GT 0 and Select; int32: Mul and Add);
- op_host/index_fill_d_tiling.cpp (`GetShapeAttrsInfo`, `CalculateCoreBlockNums`, `IndexFillDTilingFunc`: the input
  in 256-byte blocks, tiles of UB / bufferNum / 256 * typeLength / ubDataNumber blocks, one core per 1024 elements
  at most, bufferNum 1 when the whole input's buffers fit the cores' UBs, else 2).

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's). The tiling works in 256-byte
blocks and the kernel moves whole blocks, so its last core reads and writes up to 255 bytes past the tensors: the
host pads the four GM tensors to whole blocks, as device allocations of those sizes are.

Not portable as written (tests/test_index_fill_d.py): the int32 kernel's tiling sizes its tiles for 12 bytes an
element (the three tiles) and leaves out the 1-byte mask TBuf the kernel initialises for every type, so the buffers
pass the UB by tileDataNum bytes on every device and in both buffer modes (InitBuffer: OutOfBoundsError; the A2:
196608 + 16384 bytes single-buffered); the int8 (and bool) kernel casts assist1 (int8) into the half view of the x
and assist1 tiles, a partial overlap between types of different sizes that SPEC-2 D34 refuses (OverlapError; the
repeat order would read each repeat's bytes before a write reaches them, the NonFiniteCheck case of
docs/decisions.md).

Devices: FetchEventID leaves out the 310B ("Event ids" in docs/decisions.md) and GET_TILING_DATA_WITH_STRUCT the
910 (DK Kernel-Tiling pages): the 950, A3, A2 and 310P; the bfloat16 Casts leave out the 310P.

Fidelity: BIT-EXACT (DataCopy, CompareScalar, Select, Cast are BIT-EXACT); the expectation is numpy's where() on
the bits (bfloat16 through float and back is exact).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BLOCK_SIZE = 256
DATA_NUM = {"float": 13, "int32": 12, "half": 7, "bfloat16": 11, "int8": 6}   # DATA_NUM_FP32 ... DATA_NUM_I8
TILE_SPLIT_NUM = 1024
CORE_NUM = 8                        # deviation: the launch's cores (GetCoreNumAiv in the original)
TYPE_SIZE = {"float": 4, "int32": 4, "half": 2, "bfloat16": 2, "int8": 1}
_NP = {"float": np.float32, "int32": np.int32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int8": np.int8}

IndexFillDTilingData = np.dtype([("smallCoreDataNum", np.uint64), ("bigCoreDataNum", np.uint64),
                                 ("finalBigTileNum", np.uint64), ("finalSmallTileNum", np.uint64),
                                 ("tileDataNum", np.uint64), ("smallTailDataNum", np.uint64),
                                 ("bigTailDataNum", np.uint64), ("tailBlockNum", np.uint64)])


def tiling(device, inputNum, dtype):
    """IndexFillDTilingFunc: (block dim, schMode (0 double-, 1 single-buffered), the packed tiling data)."""
    ubSize, coreNum, typeLength = aj.get_device(device).ub_bytes, CORE_NUM, TYPE_SIZE[dtype]
    inputBytes = typeLength
    ubDataNumber = DATA_NUM[dtype]
    inputLengthAlgin = -(-inputNum * typeLength // BLOCK_SIZE) * BLOCK_SIZE
    singleBufferNeedSize = inputLengthAlgin * ubDataNumber // typeLength
    bufferNum = 1 if singleBufferNeedSize <= coreNum * ubSize else 2
    tileBlockNum = (ubSize // bufferNum // BLOCK_SIZE) * typeLength // ubDataNumber
    tileDataNum = tileBlockNum * BLOCK_SIZE // inputBytes
    coreNum = min(-(-inputNum // TILE_SPLIT_NUM), coreNum)
    # CalculateCoreBlockNums
    everyCoreInputBlockNum = inputLengthAlgin // BLOCK_SIZE // coreNum
    tailBlockNum = (inputLengthAlgin // BLOCK_SIZE) % coreNum
    t = np.zeros(1, IndexFillDTilingData)

    def split(blocks):
        data = blocks * BLOCK_SIZE // inputBytes
        tiles = blocks // tileBlockNum
        final = tiles if blocks % tileBlockNum == 0 else tiles + 1
        return data, final, (data - tileDataNum * tiles) or tileDataNum

    t["smallCoreDataNum"], t["finalSmallTileNum"], t["smallTailDataNum"] = split(everyCoreInputBlockNum)
    t["bigCoreDataNum"], t["finalBigTileNum"], t["bigTailDataNum"] = split(everyCoreInputBlockNum + 1)
    t["tileDataNum"], t["tailBlockNum"] = tileDataNum, tailBlockNum
    return coreNum, (0 if bufferNum == 2 else 1), t.view(np.uint8).copy()


class KernelIndexFillD:
    def __init__(self, TYPE_X, TYPE_Y, BUFFER_NUM):
        self.TYPE_X, self.TYPE_Y, self.BUFFER_NUM = TYPE_X, TYPE_Y, BUFFER_NUM

    def Init(self, x, assist1, assist2, y, tilingData, pipeIn):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        T = self.TYPE_X
        coreNum = aj.GetBlockIdx()
        globalBufferIndex = int(tilingData.bigCoreDataNum) * aj.GetBlockIdx()
        self.tileDataNum = int(tilingData.tileDataNum)
        self.pipe = pipeIn
        if coreNum < tilingData.tailBlockNum:
            self.coreDataNum = int(tilingData.bigCoreDataNum)
            self.tileNum = int(tilingData.finalBigTileNum)
            self.tailDataNum = int(tilingData.bigTailDataNum)
        else:
            self.coreDataNum = int(tilingData.smallCoreDataNum)
            self.tileNum = int(tilingData.finalSmallTileNum)
            self.tailDataNum = int(tilingData.smallTailDataNum)
            globalBufferIndex -= (int(tilingData.bigCoreDataNum) - int(tilingData.smallCoreDataNum)) * \
                (aj.GetBlockIdx() - int(tilingData.tailBlockNum))
        self.xGm, self.assist1Gm = aj.GlobalTensor(), aj.GlobalTensor()
        self.assist2Gm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.assist1Gm.SetGlobalBuffer(assist1[globalBufferIndex:], self.coreDataNum)
        self.assist2Gm.SetGlobalBuffer(assist2[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        self.bindQue = aj.TQueBind(aj.QuePosition.VECIN, aj.QuePosition.VECOUT, self.BUFFER_NUM)
        self.castBuf, self.maskBuf = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.bindQue, self.BUFFER_NUM, self.tileDataNum * TYPE_SIZE[T] * 3)
        self.pipe.InitBuffer(self.maskBuf, self.tileDataNum * 1)
        if aj.IsSameType(T, "bfloat16"):
            self.pipe.InitBuffer(self.castBuf, self.tileDataNum * 4)
        if aj.IsSameType(T, "int8"):
            self.pipe.InitBuffer(self.castBuf, self.tileDataNum * 2)

    def DoRunOp(self, offset):
        T, n = self.TYPE_X, self.processDataNum
        xLocal = self.bindQue.AllocTensor(T)
        assist1Local = xLocal[n]
        assist2Local = assist1Local[n]
        yLocal = assist1Local[n]
        eventIDMTE2ToV = aj.GetTPipePtr().FetchEventID(aj.HardEvent.MTE2_V)
        eventIDVToMTE3 = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_MTE3)
        aj.DataCopy(xLocal, self.xGm[offset], n)
        aj.DataCopy(assist1Local, self.assist1Gm[offset], n)
        aj.DataCopy(assist2Local, self.assist2Gm[offset], n)
        aj.SetFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        if aj.IsSameType(T, "bfloat16"):
            maskLocal = self.maskBuf.Get("uint8")
            castLocal = self.castBuf.Get("float")
            yLocalFp = xLocal.ReinterpretCast("float")
            aj.Cast(castLocal, assist1Local, aj.RoundMode.CAST_NONE, n)
            aj.CompareScalar(maskLocal, castLocal, np.float32(0.0), aj.CMPMODE.GT, n)
            aj.Cast(castLocal, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(yLocalFp, assist2Local, aj.RoundMode.CAST_NONE, n)
            aj.Select(yLocalFp, maskLocal, castLocal, yLocalFp, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
            aj.Cast(yLocal, yLocalFp, aj.RoundMode.CAST_RINT, n)
        elif aj.IsSameType(T, "float") or aj.IsSameType(T, "half"):
            maskLocal = self.maskBuf.Get("uint8")
            aj.CompareScalar(maskLocal, assist1Local, _NP[T](0.0), aj.CMPMODE.GT, n)
            aj.Select(yLocal, maskLocal, xLocal, assist2Local, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
        elif aj.IsSameType(T, "int32"):
            aj.Mul(xLocal, xLocal, assist1Local, n)
            aj.Add(yLocal, xLocal, assist2Local, n)
        elif aj.IsSameType(T, "int8"):
            castLocal = self.castBuf.Get("half")
            yLocalHalf = xLocal.ReinterpretCast("half")
            aj.Cast(castLocal, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(yLocalHalf, assist1Local, aj.RoundMode.CAST_NONE, n)
            aj.Mul(yLocalHalf, yLocalHalf, castLocal, n)
            aj.Cast(castLocal, assist2Local, aj.RoundMode.CAST_NONE, n)
            aj.Add(yLocalHalf, yLocalHalf, castLocal, n)
            aj.Cast(yLocal, yLocalHalf, aj.RoundMode.CAST_RINT, n)
        aj.SetFlag(eventIDVToMTE3, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(eventIDVToMTE3, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(self.yGm[offset], yLocal, n)
        self.bindQue.FreeTensor(xLocal)

    def Process(self):
        loopCount = self.tileNum - 1
        self.processDataNum = self.tileDataNum
        offset = 0
        for _ in range(loopCount):
            self.DoRunOp(offset)
            offset += self.tileDataNum
        self.processDataNum = self.tailDataNum
        self.DoRunOp(offset)


aj.REGISTER_TILING_DEFAULT(IndexFillDTilingData)


def index_fill_d(x, assist1, assist2, y, workspace, tiling_bytes, schMode, DTYPE_X):
    """The kernel entry; schMode is the tiling key's template argument, DTYPE_X the build's type (bool would run
    the int8 kernel)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(IndexFillDTilingData, tiling_bytes)
    pipe = aj.TPipe()
    op = KernelIndexFillD(DTYPE_X, DTYPE_X, 2 if schMode == 0 else 1)
    op.Init(x, assist1, assist2, y, tilingData, pipe)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        keep = rng.random(size) < 0.7                   # assist1: 1 kept, 0 filled (the host's index mask)
        if dtype in ("int32", "int8"):
            info = np.iinfo(_NP[dtype])
            x = rng.integers(info.min, info.max, size, endpoint=True).astype(_NP[dtype])
        else:
            x = rng.standard_normal(size).astype(np.float32).astype(_NP[dtype])
            x[:min(size, 4)] = np.array([-0.0, np.inf, -np.inf, np.nan], np.float32)[:size].astype(_NP[dtype])
        value = _NP[dtype](-7)
        return {"x": x, "assist1": keep.astype(_NP[dtype]),
                "assist2": np.where(keep, _NP[dtype](0), value).astype(_NP[dtype])}
    return make_inputs


def _padded(a, n):
    """The array in a GM allocation of whole 256-byte blocks (zeros past it)."""
    out = np.zeros(n, a.dtype)
    out[:a.size] = a
    return out


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        n = -(-x.size * TYPE_SIZE[dtype] // BLOCK_SIZE) * BLOCK_SIZE // TYPE_SIZE[dtype]
        block_dim, schMode, tiling_bytes = tiling(device, x.size, dtype)
        gx, g1, g2 = (_padded(inputs[k], n) for k in ("x", "assist1", "assist2"))
        y = np.zeros(n, x.dtype)
        workspace = np.zeros(32, np.uint8)
        aj.launch(index_fill_d, block_dim, device, gx, g1, g2, y, workspace, tiling_bytes, schMode, dtype)
        return {"y": y[:x.size]}
    return run


def _expected(dtype):
    def expected(device, inputs):
        x, a1, a2 = inputs["x"], inputs["assist1"], inputs["assist2"]
        if dtype == "int32":        # Mul and Add wrap (SPEC D6: the default integer mode)
            return {"y": (x.astype(np.int64) * a1 + a2).astype(np.int32)}
        return {"y": np.where(a1.astype(np.float32) > 0, x, a2)}
    return expected


def _size_ok(n):
    return 0 < n <= 1 << 24


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/index/index_fill_d/op_kernel/index_fill_d.h"
_FLOAT_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore")
KERNELS = [
    KernelSpec("index_fill_d", "ops-nn IndexFillD over floats: x, assist1, assist2 as three tiles of one "
               "TQueBind<VECIN, VECOUT> buffer, DataCopy of 256-byte blocks, FetchEventID'd MTE2_V / V_MTE3 flags, "
               "CompareScalar GT 0 + Select into the assist2 tile; big/small cores, one or two buffers by size",
               _make_inputs("float"), _run("float"), _expected("float"), default_size=100000,
               devices=_FLOAT_DEVICES, size_rule="1 to 16Mi elements", size_ok=_size_ok, source=_SOURCE),
    KernelSpec("index_fill_d_half", "ops-nn IndexFillD over halves (CompareScalar GT 0 + Select)",
               _make_inputs("half"), _run("half"), _expected("half"), default_size=100000,
               devices=_FLOAT_DEVICES, size_rule="1 to 16Mi elements", size_ok=_size_ok,
               source=_SOURCE),
    KernelSpec("index_fill_d_bf16", "ops-nn IndexFillD over bfloat16 in float: Casts, CompareScalar, the float view "
               "of the x and assist1 tiles as Select's destination, Cast CAST_RINT into the assist2 tile",
               _make_inputs("bfloat16"), _run("bfloat16"), _expected("bfloat16"), default_size=100000,
               devices=("ascend950", "atlas-a3", "atlas-a2"), size_rule="1 to 16Mi elements", size_ok=_size_ok,
               source=_SOURCE),
]
