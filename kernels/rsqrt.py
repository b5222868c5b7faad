"""Rsqrt from the CANN math operators: y = 1 / sqrt(x), one instruction sequence per input type: float and half by
Sqrt in place and Div of a tile of ones, bfloat16 the same in float between two Casts, int8 / int16 / uint8 / int32
by a Cast to a float type, the Rsqrt instruction and a Cast back with CAST_RINT (int8 and int16 with an "integer
correction" of min(r, 2) - 3 * max(min(r, 2) - 1, 0) before it), bool by a Duplicate of 0x0101 over the output.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/rsqrt/op_kernel/rsqrt.h
(`NsRsqrt::KernelRsqrt<TYPE_X, BUFFER_NUM>`: T is int8 for bool; a VECIN and a VECOUT queue of BUFFER_NUM tiles of
tileDataNum elements (bool: the output's (tileDataNum + 1) / 2 int16s); Init fills a tile of ones once (float and
half: Duplicate<T>(1) over tmp1; bfloat16: Duplicate<float>(1) over tmp1, tmp2 a float tile; int8: two half TBufs;
uint8: one); Process: tileNum - 1 full tiles and a tail tile, each DataCopy in, Compute, DataCopy out; Compute per
type: float / half `Sqrt(x, x)`, `Div(y, ones, x)`; bfloat16 `Cast(xf, x, CAST_NONE)`, `Sqrt(xf, xf)`,
`Div(xf, ones, xf)`, `Cast(y, xf, CAST_RINT)`; uint8 `Cast(h, x, CAST_NONE)`, `Rsqrt(h, h)`, `Cast(y, h, CAST_RINT)`;
bool `Duplicate<int16_t>(y as int16, 0x0101, (n + 1) >> 1)`; int32 (x and y reinterpreted as float) `Cast(yf, x,
CAST_NONE)`, `Rsqrt(xf, yf)`, `Cast(y, xf, CAST_RINT)`; int16 (x and y reinterpreted as half) `Cast(yh, x,
CAST_NONE)`, `Rsqrt(xh, yh)`, the correction `Mins(p1, p1, 2)`, `Adds(p2, p1, -1)`, `Maxs(p2, p2, 0)`,
`Muls(p2, p2, 3)`, `Sub(p1, p1, p2)` on (xh, yh), `Cast(y, xh, CAST_RINT)`; int8 the same in the two half TBufs),
rsqrt.cpp (REGISTER_TILING_DEFAULT(RsqrtTilingData), GET_TILING_DATA_WITH_STRUCT, AIV only, schMode 0 double-
and 1 single-buffered) and rsqrt_tiling_data.h (eight uint64 fields), with the host tiling of
experimental/math/rsqrt/op_host/rsqrt_tiling.cpp (`RsqrtTilingFunc`: UB less 1 KiB; the type's UB share (int32,
int16, bool 2; float, half 3; uint8 4; bfloat16, int8 6); single buffering while the 32-byte aligned input times the
share fits the cores' UBs, else double; tiles of (UB / buffers / 32) / share blocks; ceil(n / 1024) cores at most;
big and small cores of whole 32-byte blocks, each core's last tile the rest).

Deviations:
- The core count is the launch's 8 (GetCoreNumAiv would give the device's). The host pads GM to the 32-byte
  blocks the tiling deals out (each core copies whole blocks; device allocations are so rounded).
- bool is no emulator dtype (SPEC-2 D28); the original itself computes it through its int8 T, and so does the port
  (the host passes the bool arrays viewed as int8).

Devices: the operator's configs are the A2 (ascend910b) and A3 (ascend910_93); the port runs on both. (The 950's
Rsqrt is the other kernel, math/rsqrt/op_kernel/arch35, a DAG-framework Reg VF. Run on the 950, this one gives the
same results for float, half, bfloat16, int8, uint8 and bool, and its int32 and int16 sequences are refused: the
950's Cast int32 -> float and int16 -> half list no CAST_NONE, SPEC-2 7.2 / D72.)

Fidelity: MODELLED (Sqrt, Div and Rsqrt are MODELLED on the A2/A3, SPEC-2 0.3; Rsqrt composes as Div(1, Sqrt(x)),
D40/D75). The expectation composes the model in numpy: sqrt and then 1/s each rounded once to the computing type
(float64 then narrowed: exact for these one-operation results), the Rsqrt special values of SPEC-2 4.3, the
correction's Mins/Adds/Maxs/Muls/Sub each rounded to half with D41's NaN rule, and the Casts of SPEC-2 7.3 (RINT,
NaN -> 0, +inf -> MAX, negative -> 0 for uint8). The float kernels state 3e-7 (float) and 1e-3 (half, bfloat16: 8e-3)
relative, the hardware's room; the integer kernels state 0 (an exact check of the model's integers: a device whose
Rsqrt is off by an ulp can move a tie such as rsqrt(4) = 0.5 -> RINT 0).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BLOCK_SIZE = 32
DATA_NUM = {"int32": 2, "float": 3, "half": 3, "bfloat16": 6, "int8": 6, "bool": 2, "int16": 2, "uint8": 4}
TILE_SPLIT_NUM = 1024
SINGLE_BUFFER_NUM, DOUBLE_BUFFER_NUM = 1, 2
UB_RESERVED_BYTE = 1024
CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
DEVICES = ("atlas-a3", "atlas-a2")
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2, "int32": 4, "int16": 2, "int8": 1, "uint8": 1, "bool": 1}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32,
       "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "bool": np.int8}

RsqrtTilingData = np.dtype([(name, np.uint64) for name in (
    "smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum", "tileDataNum", "smallTailDataNum",
    "bigTailDataNum", "tailBlockNum")])


def tiling(device, input_num, dtype, core_num=CORE_NUM):
    """RsqrtTilingFunc: (block dim, buffer count (the tiling key), the packed RsqrtTilingData)."""
    ub_size = aj.get_device(device).ub_bytes - UB_RESERVED_BYTE
    element_bytes = TYPE_SIZE[dtype]
    ub_data_number = DATA_NUM[dtype]
    input_length_align = -(-input_num * element_bytes // BLOCK_SIZE) * BLOCK_SIZE
    buffer_num = SINGLE_BUFFER_NUM if input_length_align * ub_data_number <= core_num * ub_size else DOUBLE_BUFFER_NUM
    tile_block_num = ub_size // buffer_num // BLOCK_SIZE // ub_data_number
    tile_data_num = tile_block_num * BLOCK_SIZE // element_bytes
    core_num = min(-(-input_num // TILE_SPLIT_NUM), core_num)
    every = input_length_align // BLOCK_SIZE // core_num
    tail_block_num = input_length_align // BLOCK_SIZE % core_num
    small_data = every * BLOCK_SIZE // element_bytes
    small_tiles = every // tile_block_num
    final_small = small_tiles + (every % tile_block_num != 0)
    small_tail = small_data - tile_data_num * small_tiles or tile_data_num
    every += 1
    big_data = every * BLOCK_SIZE // element_bytes
    big_tiles = every // tile_block_num
    final_big = big_tiles + (every % tile_block_num != 0)
    big_tail = big_data - tile_data_num * big_tiles or tile_data_num
    t = np.zeros(1, RsqrtTilingData)
    for name, value in (("smallCoreDataNum", small_data), ("bigCoreDataNum", big_data),
                        ("finalBigTileNum", final_big), ("finalSmallTileNum", final_small),
                        ("tileDataNum", tile_data_num), ("smallTailDataNum", small_tail),
                        ("bigTailDataNum", big_tail), ("tailBlockNum", tail_block_num)):
        t[name] = value
    return core_num, buffer_num, t.view(np.uint8).copy()


class KernelRsqrt:
    def __init__(self, TYPE_X, BUFFER_NUM):
        self.TYPE_X, self.BUFFER_NUM = TYPE_X, BUFFER_NUM
        self.T = "int8" if TYPE_X == "bool" else TYPE_X

    def Init(self, x, y, tilingData, pipeIn):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        blockIdx = aj.GetBlockIdx()
        globalBufferIndex = int(tilingData.bigCoreDataNum) * blockIdx
        self.tileDataNum = int(tilingData.tileDataNum)
        self.pipe = pipeIn
        if blockIdx < int(tilingData.tailBlockNum):
            self.coreDataNum = int(tilingData.bigCoreDataNum)
            self.tileNum = int(tilingData.finalBigTileNum)
            self.tailDataNum = int(tilingData.bigTailDataNum)
        else:
            self.coreDataNum = int(tilingData.smallCoreDataNum)
            self.tileNum = int(tilingData.finalSmallTileNum)
            self.tailDataNum = int(tilingData.smallTailDataNum)
            globalBufferIndex -= (int(tilingData.bigCoreDataNum) - int(tilingData.smallCoreDataNum)) * \
                (blockIdx - int(tilingData.tailBlockNum))
        self.xGm, self.yGm = aj.GlobalTensor(self.T), aj.GlobalTensor(self.T)
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        self.inQueueX = aj.TQue(aj.QuePosition.VECIN, self.BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, self.BUFFER_NUM)
        self.tmp1, self.tmp2 = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        size = TYPE_SIZE[self.TYPE_X]
        self.pipe.InitBuffer(self.inQueueX, self.BUFFER_NUM, self.tileDataNum * size)
        if self.TYPE_X == "bool":          # sized for the int16 Duplicate over an odd count
            self.pipe.InitBuffer(self.outQueueY, self.BUFFER_NUM, ((self.tileDataNum + 1) >> 1) * 2)
        else:
            self.pipe.InitBuffer(self.outQueueY, self.BUFFER_NUM, self.tileDataNum * size)
        if self.TYPE_X in ("half", "float"):
            self.pipe.InitBuffer(self.tmp1, self.tileDataNum * size)
            oneLocal = self.tmp1.Get(self.TYPE_X)
            aj.Duplicate(oneLocal, _NP[self.TYPE_X](1.0), self.tileDataNum)
        if self.TYPE_X == "bfloat16":
            self.pipe.InitBuffer(self.tmp1, self.tileDataNum * 4)
            self.pipe.InitBuffer(self.tmp2, self.tileDataNum * 4)
            oneLocal = self.tmp1.Get("float")
            aj.Duplicate(oneLocal, np.float32(1.0), self.tileDataNum)
        if self.TYPE_X == "int8":
            self.pipe.InitBuffer(self.tmp1, self.tileDataNum * 2)
            self.pipe.InitBuffer(self.tmp2, self.tileDataNum * 2)
        if self.TYPE_X == "uint8":
            self.pipe.InitBuffer(self.tmp1, self.tileDataNum * 2)

    def Process(self):
        loopCount = self.tileNum - 1
        self.processDataNum = self.tileDataNum
        offset = 0
        for _ in range(loopCount):
            self.CopyIn(offset)
            self.Compute(offset)
            self.CopyOut(offset)
            offset += self.tileDataNum
        self.processDataNum = self.tailDataNum
        self.CopyIn(offset)
        self.Compute(offset)
        self.CopyOut(offset)

    def CopyIn(self, offset):
        xLocal = self.inQueueX.AllocTensor(self.T)
        aj.DataCopy(xLocal, self.xGm[offset], self.processDataNum)
        self.inQueueX.EnQue(self.T, xLocal)

    def Compute(self, offset):
        yLocal = self.outQueueY.AllocTensor(self.T)
        xLocal = self.inQueueX.DeQue(self.T)
        self.ComputeImpl(yLocal, xLocal)
        self.outQueueY.EnQue(self.T, yLocal)
        self.inQueueX.FreeTensor(xLocal)

    def ComputeImpl(self, yLocal, xLocal):
        getattr(self, "Compute" + {"half": "Float", "float": "Float", "bfloat16": "Bfloat16", "uint8": "Uint8",
                                   "bool": "Bool", "int32": "Int32", "int16": "Int16",
                                   "int8": "Int8"}[self.TYPE_X])(yLocal, xLocal)

    def ComputeFloat(self, yLocal, xLocal):
        oneLocal = self.tmp1.Get(self.T)
        aj.Sqrt(xLocal, xLocal, self.processDataNum)
        aj.Div(yLocal, oneLocal, xLocal, self.processDataNum)

    def ComputeBfloat16(self, yLocal, xLocal):
        oneLocal = self.tmp1.Get("float")
        xLocalFp = self.tmp2.Get("float")
        aj.Cast(xLocalFp, xLocal, aj.RoundMode.CAST_NONE, self.processDataNum)
        aj.Sqrt(xLocalFp, xLocalFp, self.processDataNum)
        aj.Div(xLocalFp, oneLocal, xLocalFp, self.processDataNum)
        aj.Cast(yLocal, xLocalFp, aj.RoundMode.CAST_RINT, self.processDataNum)

    def ComputeUint8(self, yLocal, xLocal):
        xLocalHalf = self.tmp1.Get("half")
        aj.Cast(xLocalHalf, xLocal, aj.RoundMode.CAST_NONE, self.processDataNum)
        aj.Rsqrt(xLocalHalf, xLocalHalf, self.processDataNum)
        aj.Cast(yLocal, xLocalHalf, aj.RoundMode.CAST_RINT, self.processDataNum)

    def ComputeBool(self, yLocal, xLocal):
        p1 = yLocal.ReinterpretCast("int16")
        aj.Duplicate(p1, np.int16(0x0101), (self.processDataNum + 1) >> 1)

    def ComputeInt32(self, yLocal, xLocal):
        p1 = xLocal.ReinterpretCast("float")
        p2 = yLocal.ReinterpretCast("float")
        aj.Cast(p2, xLocal, aj.RoundMode.CAST_NONE, self.processDataNum)
        aj.Rsqrt(p1, p2, self.processDataNum)
        aj.Cast(yLocal, p1, aj.RoundMode.CAST_RINT, self.processDataNum)

    def ComputeInt16(self, yLocal, xLocal):
        p1 = xLocal.ReinterpretCast("half")
        p2 = yLocal.ReinterpretCast("half")
        aj.Cast(p2, xLocal, aj.RoundMode.CAST_NONE, self.processDataNum)
        aj.Rsqrt(p1, p2, self.processDataNum)
        self.ComputeIntCorrection(p1, p2)
        aj.Cast(yLocal, p1, aj.RoundMode.CAST_RINT, self.processDataNum)

    def ComputeInt8(self, yLocal, xLocal):
        p1 = self.tmp1.Get("half")
        p2 = self.tmp2.Get("half")
        aj.Cast(p1, xLocal, aj.RoundMode.CAST_NONE, self.processDataNum)
        aj.Rsqrt(p1, p1, self.processDataNum)
        self.ComputeIntCorrection(p1, p2)
        aj.Cast(yLocal, p1, aj.RoundMode.CAST_RINT, self.processDataNum)

    def ComputeIntCorrection(self, p1, p2):
        """p1 = min(p1, 2) - 3 * max(min(p1, 2) - 1, 0): 1 -> 1, +inf (x = 0) -> -1, below 1 unchanged."""
        n = self.processDataNum
        aj.Mins(p1, p1, np.float16(2.0), n)
        aj.Adds(p2, p1, np.float16(-1.0), n)
        aj.Maxs(p2, p2, np.float16(0.0), n)
        aj.Muls(p2, p2, np.float16(3.0), n)
        aj.Sub(p1, p1, p2, n)

    def CopyOut(self, offset):
        yLocal = self.outQueueY.DeQue(self.T)
        aj.DataCopy(self.yGm[offset], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


aj.REGISTER_TILING_DEFAULT(RsqrtTilingData)


def rsqrt(x, y, workspace, tiling_bytes, DTYPE_X, schMode):
    """The kernel entry; DTYPE_X is the build's type and schMode its template argument (0: double buffers)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(RsqrtTilingData, tiling_bytes)
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    pipe = aj.TPipe()
    op = KernelRsqrt(DTYPE_X, DOUBLE_BUFFER_NUM if schMode == 0 else SINGLE_BUFFER_NUM)
    op.Init(x, y, tilingData, pipe)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if dtype == "bool":
            return {"x": rng.random(size) < 0.5}
        if dtype in ("float", "half", "bfloat16"):
            x = np.exp(rng.uniform(-8, 8, size)).astype(np.float32)
            x[::97] = rng.integers(1, 64, x[::97].size) ** 2          # perfect squares
            x[5::211], x[7::307] = 0.0, -1.5                           # +inf and NaN results
            return {"x": x.astype(_NP[dtype])}
        info = np.iinfo(_NP[dtype])
        x = rng.integers(max(info.min, -8), 17, size, dtype=_NP[dtype])   # small values: every correction branch
        big = rng.integers(0, int(info.max) + 1, size, dtype=_NP[dtype])
        x[::3] = big[::3]
        return {"x": x}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        n = x.size
        np_t = _NP[dtype]
        per_block = BLOCK_SIZE // TYPE_SIZE[dtype]
        padded = -(-n // per_block) * per_block
        gm_x = np.zeros(padded, np_t)
        gm_x[:n] = x.view(np.int8) if dtype == "bool" else x
        y = np.zeros(padded, np_t)
        block_dim, buffer_num, tiling_bytes = tiling(device, n, dtype)
        workspace = np.zeros(BLOCK_SIZE, np.uint8)
        aj.launch(rsqrt, block_dim, device, gm_x, y, workspace, tiling_bytes, dtype,
                  0 if buffer_num == DOUBLE_BUFFER_NUM else 1)
        return {"y": y[:n].view(np.bool_) if dtype == "bool" else y[:n]}
    return run


def _round_half(v):
    return np.asarray(v, np.float64).astype(np.float16)


def _rsqrt_model(x, np_t):
    """The D40/D75 model in the computing type: RN(1 / RN(sqrt(x))) for finite x > 0, else SPEC-2 4.3's specials."""
    xf = np.asarray(x, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.sqrt(xf).astype(np_t).astype(np.float64)
        r = (1.0 / s).astype(np_t)
    r = np.where(xf == 0, np.where(np.signbit(xf), -np.inf, np.inf).astype(np_t), r)
    return np.where(xf < 0, np_t(np.nan), r).astype(np_t)


def _cast_rint(v, np_t):
    """float -> integer Cast CAST_RINT, SPEC-2 7.3: NaN -> 0, +-inf and overflow saturate (negatives to 0 for
    unsigned)."""
    info = np.iinfo(np_t)
    v = np.asarray(v, np.float64)
    with np.errstate(invalid="ignore"):
        out = np.clip(np.rint(np.nan_to_num(v, nan=0.0, posinf=info.max, neginf=info.min)), info.min, info.max)
    return out.astype(np_t)


def _correction(p1):
    """Mins(2), Adds(-1), Maxs(0), Muls(3), Sub, each rounded to half; a NaN operand gives NaN (D41)."""
    with np.errstate(invalid="ignore"):
        p1 = np.where(np.isnan(p1), np.float16(np.nan), np.minimum(p1, np.float16(2)))
        p2 = _round_half(p1.astype(np.float64) - 1.0)
        p2 = np.where(np.isnan(p2), np.float16(np.nan), np.maximum(p2, np.float16(0)))
        p2 = _round_half(p2.astype(np.float64) * 3.0)
        return _round_half(p1.astype(np.float64) - p2.astype(np.float64))


def _expected(dtype):
    def expected(device, inputs):
        x = inputs["x"]
        if dtype == "bool":
            return {"y": np.ones(x.size, np.bool_)}
        if dtype in ("float", "half"):
            return {"y": _rsqrt_model(x, _NP[dtype])}
        if dtype == "bfloat16":
            return {"y": _rsqrt_model(x.astype(np.float32), np.float32).astype(ml_dtypes.bfloat16)}
        if dtype == "int32":
            return {"y": _cast_rint(_rsqrt_model(x.astype(np.float32), np.float32), np.int32)}
        r = _rsqrt_model(x.astype(np.float16), np.float16)
        if dtype in ("int8", "int16"):
            r = _correction(r)
        return {"y": _cast_rint(r, _NP[dtype])}
    return expected


_SOURCE = "hicann/ops-math@c4193324 experimental/math/rsqrt/op_kernel/rsqrt.h"
_INT_RULE = "MODELLED (Rsqrt); integer results checked exactly against the model"
KERNELS = [
    KernelSpec("rsqrt", "Rsqrt over floats: Sqrt in place, Div of a Duplicated tile of ones; big/small cores of "
               "32-byte blocks, single- or double-buffered by size", _make_inputs("float"), _run("float"),
               _expected("float"), default_size=100000, devices=DEVICES, tolerance=3e-7, source=_SOURCE),
    KernelSpec("rsqrt_half", "Rsqrt over halves: Sqrt in place, Div of ones", _make_inputs("half"), _run("half"),
               _expected("half"), default_size=100000, devices=DEVICES, tolerance=1e-3, source=_SOURCE),
    KernelSpec("rsqrt_bf16", "Rsqrt over bfloat16: Cast to float, Sqrt, Div of float ones, Cast back CAST_RINT",
               _make_inputs("bfloat16"), _run("bfloat16"), _expected("bfloat16"), default_size=100000,
               devices=DEVICES, tolerance=8e-3, source=_SOURCE),
    KernelSpec("rsqrt_int32", "Rsqrt over int32: Cast to float in the output tile, Rsqrt into the input tile, "
               "Cast CAST_RINT", _make_inputs("int32"), _run("int32"), _expected("int32"), default_size=100000,
               devices=DEVICES, tolerance=0.0, source=_SOURCE),
    KernelSpec("rsqrt_int16", "Rsqrt over int16: Cast to half, Rsqrt, the min/max integer correction, Cast "
               "CAST_RINT", _make_inputs("int16"), _run("int16"), _expected("int16"), default_size=100000,
               devices=DEVICES, tolerance=0.0, source=_SOURCE),
    KernelSpec("rsqrt_int8", "Rsqrt over int8 through two half TBufs and the integer correction",
               _make_inputs("int8"), _run("int8"), _expected("int8"), default_size=100000, devices=DEVICES,
               tolerance=0.0, source=_SOURCE),
    KernelSpec("rsqrt_uint8", "Rsqrt over uint8: Cast to half, Rsqrt, Cast CAST_RINT (rsqrt(0) = inf -> 255)",
               _make_inputs("uint8"), _run("uint8"), _expected("uint8"), default_size=100000, devices=DEVICES,
               tolerance=0.0, source=_SOURCE),
    KernelSpec("rsqrt_bool", "Rsqrt over bool: a Duplicate of int16 0x0101 over the output (every element true)",
               _make_inputs("bool"), _run("bool"), _expected("bool"), default_size=100000, devices=DEVICES,
               source=_SOURCE),
]
