"""FloorDiv from the CANN math operators: z = floor(x / y), element by element, over float, int32, int8, uint8, half
and bfloat16 (every type divided in float; int8 / uint8 reach float through half and come back through half).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/floor_div:
- op_kernel/floor_div.h (`NsFloorDiv::FloorDiv<T, V>`: the first tailBlockNum ("big") cores take one 32-byte block
  more; depth-2 VECIN queues for x and y and a VECOUT queue for z of tileDataNum elements each; unless T is float,
  two TBufs of V (half for the 8-bit types, float otherwise) and, when V is half, two float TBufs; per tile DataCopy
  x and y in (count form), Compute, DataCopy z out; the last tile of a core moves tailDataNum elements. Compute:
  float: Div in place into x, Floor into z; int8 / uint8: Cast CAST_NONE to half and on to float, Div, Floor, Cast
  float -> half CAST_FLOOR and half -> T CAST_FLOOR; int32, half, bfloat16: Cast CAST_NONE to float, Div, Floor,
  Cast float -> T CAST_FLOOR);
- op_kernel/floor_div.cpp (the entry: the tiling key picks <float, float>, <int32, float>, <int8, half>,
  <half, float>, <uint8, half> or <bfloat16, float>);
- op_host/floor_div_tiling.cpp (`FloorDivTilingFunc`: 32-byte blocks (GetUbBlockSize); tiles of UB / 32 / (6 float,
  8 int32, 10 half / bfloat16, 18 int8 / uint8) blocks; cores = min(AIV count, blocks), one core when a tile holds
  the whole input; the big/small split of ascend_jit.kernels._base.big_small_core_tiling over 32-byte blocks).

The advanced API's Floor(dst, src, count) on float tensors is, in the A2/A3 build (mirror-cann/asc-devkit,
impl/adv_api/detail/math/floor/floor_v220_impl.h), one count-form Cast float -> float CAST_FLOOR (`floor_api`, as
kernels/floor.py writes it).

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original). The last core copies whole
32-byte blocks, up to 31 bytes past an input that does not end on one: the host pads GM to 32 bytes, as device
allocations are (those lanes divide the padding's 0 by 0 and are never returned).

Devices: the original is built for the ascend910b (the A2/A3 config); the port runs on the A3 and A2.

Fidelity: Div MODELLED (SPEC-2 D37: the exact quotient rounded once to float, i.e. IEEE division), every other
instruction BIT-EXACT (Cast, DataCopy; SPEC-2 0.3), so the model (numpy's float32 division, floor, and the Casts'
rounding and overflow rules of SPEC-2 7.3 / D45) is checked bit for bit. Specials (SPEC-2 7.3, D45, SPEC D6 with
the A2/A3's default INF/NaN half mode): a zero divisor gives +-inf or NaN in float; float -> half CAST_FLOOR keeps
+-inf and NaN, float / half -> integer gives the type's MAX / MIN for +-inf and 0 for NaN and saturates an
out-of-range quotient (int8 -128 // -1 = 127, int32 MIN // -1 = MAX).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
BLOCK_SIZE = 32                    # GetUbBlockSize
BUFFER_NUM = 2
UB_DATA_NUMBER = {"half": 10, "bfloat16": 10, "float": 6, "int8": 18, "uint8": 18, "int32": 8}
TYPE_SIZE = {"float": 4, "int32": 4, "half": 2, "bfloat16": 2, "int8": 1, "uint8": 1}
# the entry's template arguments: T -> V (the type the tile is divided in, or reaches float through)
COMPUTE_TYPE = {"float": "float", "int32": "float", "int8": "half", "half": "float", "uint8": "half",
                "bfloat16": "float"}
_NP = {"float": np.float32, "int32": np.int32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int8": np.int8,
       "uint8": np.uint8}
DEVICES = ("atlas-a3", "atlas-a2")


def tiling(device, total, dtype):
    """FloorDivTilingFunc: (block dim, tiling data)."""
    size = TYPE_SIZE[dtype]
    tile_block_num = max(1, aj.get_device(device).ub_bytes // BLOCK_SIZE // UB_DATA_NUMBER[dtype])
    tile_data_num = tile_block_num * BLOCK_SIZE // size
    blocks = -(-total * size // BLOCK_SIZE)
    core_num = max(1, min(CORE_NUM, blocks))
    if tile_data_num >= total:
        core_num = 1
    small, big, tail_block_num = big_small_core_tiling(total, size, tile_data_num, core_num, block=BLOCK_SIZE)
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num, tileDataNum=tile_data_num,
                          smallTailDataNum=small.tail_data_num, bigTailDataNum=big.tail_data_num,
                          finalSmallTileNum=small.tile_num, finalBigTileNum=big.tile_num,
                          tailBlockNum=tail_block_num)


def floor_api(dst, src, calCount):
    """AscendC::Floor(dst, src, calCount) on float tensors, the A2/A3 build: a count-form Cast CAST_FLOOR."""
    aj.Cast(dst, src, aj.RoundMode.CAST_FLOOR, calCount)


class FloorDiv:
    """`FloorDiv<T, V>`."""

    def __init__(self, T):
        self.T, self.V = T, COMPUTE_TYPE[T]

    def Init(self, x, y, z, tilingData):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        T, V = self.T, self.V
        coreNum = aj.GetBlockIdx()
        globalBufferIndex = tilingData["bigCoreDataNum"] * coreNum
        self.tileDataNum = tilingData["tileDataNum"]
        if coreNum < tilingData["tailBlockNum"]:
            self.coreDataNum = tilingData["bigCoreDataNum"]
            self.tileNum = tilingData["finalBigTileNum"]
            self.tailDataNum = tilingData["bigTailDataNum"]
        else:
            self.coreDataNum = tilingData["smallCoreDataNum"]
            self.tileNum = tilingData["finalSmallTileNum"]
            self.tailDataNum = tilingData["smallTailDataNum"]
            globalBufferIndex -= (tilingData["bigCoreDataNum"] - tilingData["smallCoreDataNum"]) * \
                (coreNum - tilingData["tailBlockNum"])
        self.inputGMX, self.inputGMY, self.outputGMZ = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGMX.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.inputGMY.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        self.outputGMZ.SetGlobalBuffer(z[globalBufferIndex:], self.coreDataNum)
        self.pipe = aj.TPipe()
        self.inputQueueX = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.inputQueueY = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.outputQueueZ = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.tmp0, self.tmp1, self.tmp2, self.tmp3 = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(4))
        size = TYPE_SIZE[T]
        self.pipe.InitBuffer(self.inputQueueX, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.inputQueueY, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.outputQueueZ, BUFFER_NUM, self.tileDataNum * size)
        if T != "float":
            self.pipe.InitBuffer(self.tmp0, self.tileDataNum * TYPE_SIZE[V])
            self.pipe.InitBuffer(self.tmp1, self.tileDataNum * TYPE_SIZE[V])
            if V == "half":
                self.pipe.InitBuffer(self.tmp2, self.tileDataNum * 4)
                self.pipe.InitBuffer(self.tmp3, self.tileDataNum * 4)

    def CopyIn(self, progress):
        xLocal = self.inputQueueX.AllocTensor(self.T)
        yLocal = self.inputQueueY.AllocTensor(self.T)
        aj.DataCopy(xLocal, self.inputGMX[progress * self.tileDataNum], self.processDataNum)
        aj.DataCopy(yLocal, self.inputGMY[progress * self.tileDataNum], self.processDataNum)
        self.inputQueueX.EnQue(xLocal)
        self.inputQueueY.EnQue(yLocal)

    def CopyOut(self, progress):
        zLocal = self.outputQueueZ.DeQue(self.T)
        aj.DataCopy(self.outputGMZ[progress * self.tileDataNum], zLocal, self.processDataNum)
        self.outputQueueZ.FreeTensor(zLocal)

    def Compute(self, progress):
        T, V, n = self.T, self.V, self.processDataNum
        xLocal = self.inputQueueX.DeQue(T)
        yLocal = self.inputQueueY.DeQue(T)
        zLocal = self.outputQueueZ.AllocTensor(T)
        if T == "float":
            aj.Div(xLocal, xLocal, yLocal, n)
            floor_api(zLocal, xLocal, n)
        elif T in ("int8", "uint8"):
            xHalf, yHalf = self.tmp0.Get(V), self.tmp1.Get(V)
            xFloat, yFloat = self.tmp2.Get("float"), self.tmp3.Get("float")
            aj.Cast(xHalf, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(yHalf, yLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(xFloat, xHalf, aj.RoundMode.CAST_NONE, n)
            aj.Cast(yFloat, yHalf, aj.RoundMode.CAST_NONE, n)
            aj.Div(xFloat, xFloat, yFloat, n)
            floor_api(yFloat, xFloat, n)
            aj.Cast(yHalf, yFloat, aj.RoundMode.CAST_FLOOR, n)
            aj.Cast(zLocal, yHalf, aj.RoundMode.CAST_FLOOR, n)
        else:
            xFloat, yFloat = self.tmp0.Get(V), self.tmp1.Get(V)
            aj.Cast(xFloat, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(yFloat, yLocal, aj.RoundMode.CAST_NONE, n)
            aj.Div(xFloat, xFloat, yFloat, n)
            floor_api(yFloat, xFloat, n)
            aj.Cast(zLocal, yFloat, aj.RoundMode.CAST_FLOOR, n)
        self.inputQueueX.FreeTensor(xLocal)
        self.inputQueueY.FreeTensor(yLocal)
        self.outputQueueZ.EnQue(zLocal)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.tileDataNum
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)
        self.processDataNum = self.tailDataNum
        self.CopyIn(loopCount - 1)
        self.Compute(loopCount - 1)
        self.CopyOut(loopCount - 1)


def floor_div(x, y, z, workspace, tilingData, dtype):
    """The kernel entry (floor_div.cpp)."""
    op = FloorDiv(dtype)
    op.Init(x, y, z, tilingData)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_floor_div(device, x, y):
    dtype = _dtype_name(x)
    block_dim, t = tiling(device, x.size, dtype)
    elems = BLOCK_SIZE // TYPE_SIZE[dtype]
    padded = -(-x.size // elems) * elems                    # deviation: GM padded to 32 bytes
    gm_x, gm_y, gm_z = (np.zeros(padded, x.dtype) for _ in range(3))
    gm_x[:x.size], gm_y[:y.size] = x, y
    aj.launch(floor_div, block_dim, device, gm_x, gm_y, gm_z, None, t, dtype)
    return gm_z[:x.size]


_INT_RANGE = {"int32": (-2 ** 31, 2 ** 31 - 1), "int8": (-128, 127), "uint8": (0, 255)}


def _to_int(q, dtype):
    """float -> integer of an integral (or special) value: NaN -> 0, +-inf and out-of-range values saturated
    (SPEC-2 7.3 steps 1 and 4, D45)."""
    lo, hi = _INT_RANGE[dtype]
    q = q.astype(np.float64)
    out = np.where(np.isnan(q), 0.0, np.clip(q, lo, hi))
    return out.astype(_NP[dtype])


def _floor_narrow(f, np_type):
    """float -> half / bfloat16 CAST_FLOOR: round toward -inf (a finite overflow gives +MAX or -inf, D45). RNE is
    within one unit of the exact value, so where it rounded up one step down in the narrow type's bits floors it."""
    with np.errstate(over="ignore", invalid="ignore"):
        r = f.astype(np_type)
        up = r.astype(np.float32) > f
    bits = r.view(np.uint16)
    b = bits[up]
    bits[up] = np.where(b & 0x8000, b + 1, np.where(b == 0, 0x8001, b - 1)).astype(np.uint16)
    return r


def floor_div_model(x, y):
    """The kernel's chain in numpy: to float (exact for every type but int32, which rounds to nearest even), IEEE
    float division, floor (a zero result +0, NaN canonical, SPEC-2 7.3 step 5), then CAST_FLOOR to the type."""
    dtype = _dtype_name(x)
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    with np.errstate(all="ignore"):
        q = np.floor(xf / yf).astype(np.float32)
    q[q == 0] = np.float32(0.0)
    q[np.isnan(q)] = np.float32(np.nan)
    if dtype == "float":
        return q
    if dtype in ("half", "bfloat16"):
        return _floor_narrow(q, _NP[dtype])
    if dtype == "int32":
        return _to_int(q, dtype)
    return _to_int(_floor_narrow(q, np.float16).astype(np.float32), dtype)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if dtype in _INT_RANGE:
            lo, hi = _INT_RANGE[dtype]
            lo, hi = max(lo, -10 ** 6), min(hi, 10 ** 6)
            x = rng.integers(lo, hi + 1, size)
            y = rng.integers(lo, hi + 1, size) // rng.choice([1, 7, 1000], size)
            y[y == 0] = 3
        else:
            x = rng.uniform(-300.0, 300.0, size) * rng.choice([1.0, 1e-3], size)
            y = rng.uniform(-20.0, 20.0, size)
            y[np.abs(y) < 0.01] = 0.5
        return {"x": x.astype(_NP[dtype]), "y": y.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"z": run_floor_div(device, inputs["x"], inputs["y"])}


def _expected(device, inputs):
    return {"z": floor_div_model(inputs["x"], inputs["y"])}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/floor_div/op_kernel/floor_div.h"
KERNELS = [
    KernelSpec(f"floor_div{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 50003, "FloorDiv over floats (Div in place, the advanced API's Floor as Cast CAST_FLOOR; "
         "32-byte-block big/small cores, double-buffered count-form DataCopy tiles)"),
        ("_int32", "int32", 50003, "FloorDiv over int32 (Cast to float, Div, Floor, Cast float -> int32 "
         "CAST_FLOOR)"),
        ("_int8", "int8", 50003, "FloorDiv over int8 (Cast int8 -> half -> float, Div, Floor, Cast float -> half "
         "-> int8 CAST_FLOOR)"),
        ("_uint8", "uint8", 20003, "FloorDiv over uint8 (as int8)"),
        ("_half", "half", 30001, "FloorDiv over halves (Cast to float, Div, Floor, Cast CAST_FLOOR back)"),
        ("_bf16", "bfloat16", 20001, "FloorDiv over bfloat16 (as half)"))
]
