"""Floor from the CANN math operators: y = floor(x) over float, half and bfloat16 (the half and bfloat16 tiles widened
to float, floored there, and narrowed with CAST_FLOOR), with the advanced API's Floor written out beside it.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/floor/op_kernel/floor.h
(`MyFloor::KernelFloor<TYPE_X>`: double-buffered VECIN/VECOUT queues of one tile each and, unless TYPE_X is float, a
float TBuf of one tile; per tile DataCopy in of processDataNum elements; float: `Floor(y, x, n)`; otherwise
Cast to float (CAST_NONE), `Floor(tmp, tmp, n)` in place, Cast back with CAST_FLOOR; DataCopy out, except the last
tile, which leaves by DataCopyPad with a brace-built DataCopyExtParams of tailDataNum elements' bytes) with the host
tiling of experimental/math/floor/op_host/floor_tiling.cpp (`FloorTilingFunc`: 512-byte blocks, tiles of UB / 512 /
(4 for float, 6 otherwise) blocks, one core up to 512 elements and at most one core per 512 elements or per block
beyond, the big/small core split of ascend_jit.kernels._base.big_small_core_tiling over 512-byte blocks).

The advanced API (mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7,
impl/adv_api/detail/math/floor/): the kernel calls `Floor(dst, src, calCount)` on float tensors only; the A2/A3
build (floor_v220_impl.h) and the 310B build (floor_v300_impl.h) implement that overload as one count-form
`Cast<float, float>(dst, src, CAST_FLOOR, calCount)` (`floor_api` below). The 950 build (floor_3510_impl.h) calls
the Memory API Truncate<T, CAST_FLOOR> (offered since session 18, docs/decisions.md "Truncate"; before it the port left
the 950 out), and the 310P build (floor_v200_impl.h) goes through float -> int32 CAST_FLOOR, a pair the 310P's Cast
table lacks (SPEC-2 7.2; its kernel's DataCopyPad is not offered there either, SPEC-2 1.9): the port runs on the 950,
A2, A3 and 310B.

Deviations: the core count is at most the launch's 8 (GetCoreNum would give the device's). The last core copies in
and out whole 512-byte blocks (the tiling counts the input in them), up to 511 bytes past the input: the host pads
GM to 512 bytes, past the 32 bytes device allocations are rounded to.

Fidelity: BIT-EXACT (DataCopy, DataCopyPad and Cast are BIT-EXACT, SPEC-2 0.3): checked bit for bit against numpy's
floor (float: floor of the float; half and bfloat16: floor of the widened value, exact in the narrow type).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

BUFFER_NUM = 2
BLOCK_SIZE = 512
UB_DATA_NUM_FLOAT = 4
UB_DATA_NUM_OTHER = 6
MIN_ELEM_PER_CORE = 512
CORE_NUM = 8
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}


def tiling(device, total, dtype):
    """FloorTilingFunc: (coreNum, tiling data)."""
    size = TYPE_SIZE[dtype]
    ub_data_number = UB_DATA_NUM_FLOAT if dtype == "float" else UB_DATA_NUM_OTHER
    tile_block_num = aj.get_device(device).ub_bytes // BLOCK_SIZE // ub_data_number
    tile_data_num = tile_block_num * BLOCK_SIZE // size
    blocks = -(-total * size // BLOCK_SIZE)
    core_num = 1 if total <= MIN_ELEM_PER_CORE else min(CORE_NUM, total // MIN_ELEM_PER_CORE, blocks)
    small, big, tail_block_num = big_small_core_tiling(total, size, tile_data_num, core_num, block=BLOCK_SIZE)
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num,
                          finalBigTileNum=big.tile_num, finalSmallTileNum=small.tile_num, tileDataNum=tile_data_num,
                          smallTailDataNum=small.tail_data_num, bigTailDataNum=big.tail_data_num,
                          tailBlockNum=tail_block_num)


def floor_api(dst, src, calCount):
    """AscendC::Floor(dst, src, calCount) for float tensors: the A2/A3 (v220) and 310B (v300) builds' count-form
    Cast float -> float, the 950 build's (3510) Memory-API Truncate<float, CAST_FLOOR>."""
    if aj.current_core().device == "ascend950":
        aj.Truncate(dst, src, aj.RoundMode.CAST_FLOOR, calCount)
    else:
        aj.Cast(dst, src, aj.RoundMode.CAST_FLOOR, calCount)


class KernelFloor:
    def __init__(self, dtype):
        self.TYPE_X = dtype

    def Init(self, x, y, tilingData):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        coreId = aj.GetBlockIdx()
        globalBufferIndex = tilingData["bigCoreDataNum"] * coreId
        self.tileDataNum = tilingData["tileDataNum"]
        if coreId < tilingData["tailBlockNum"]:
            coreDataNum = tilingData["bigCoreDataNum"]
            self.tileNum = tilingData["finalBigTileNum"]
            self.tailDataNum = tilingData["bigTailDataNum"]
        else:
            coreDataNum = tilingData["smallCoreDataNum"]
            self.tileNum = tilingData["finalSmallTileNum"]
            self.tailDataNum = tilingData["smallTailDataNum"]
            globalBufferIndex -= (tilingData["bigCoreDataNum"] - tilingData["smallCoreDataNum"]) * \
                (coreId - tilingData["tailBlockNum"])
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], coreDataNum)
        size = TYPE_SIZE[self.TYPE_X]
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.tmpBuf = aj.TBuf(aj.TPosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * size)
        if self.TYPE_X != "float":
            self.pipe.InitBuffer(self.tmpBuf, self.tileDataNum * 4)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.TYPE_X)
        aj.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def Compute(self, progress):
        xLocal = self.inQueueX.DeQue(self.TYPE_X)
        yLocal = self.outQueueY.AllocTensor(self.TYPE_X)
        if self.TYPE_X == "float":
            floor_api(yLocal, xLocal, self.processDataNum)
        else:
            tmpFloat = self.tmpBuf.Get("float")
            aj.Cast(tmpFloat, xLocal, aj.RoundMode.CAST_NONE, self.processDataNum)
            floor_api(tmpFloat, tmpFloat, self.processDataNum)
            aj.Cast(yLocal, tmpFloat, aj.RoundMode.CAST_FLOOR, self.processDataNum)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.TYPE_X)
        if progress == self.tileNum - 1:
            copyParams = aj.DataCopyExtParams(1, self.tailDataNum * TYPE_SIZE[self.TYPE_X], 0, 0, 0)
            aj.DataCopyPad(self.yGm[progress * self.tileDataNum], yLocal, copyParams)
        else:
            aj.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)

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


def floor_kernel(x, y, tiling_data, dtype):
    op = KernelFloor(dtype)
    op.Init(x, y, tiling_data)
    op.Process()


_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _make_inputs(dtype):
    def make_inputs(size, seed):
        """Values over (-300, 300) with integers, halves, signed zeros, tiny values, infinities and NaN mixed in,
        and magnitudes past the significand's reach (already integral: 2**23 for float, 2**10 for half)."""
        big = 6e4 if dtype == "half" else 1e9
        rng = np.random.default_rng(seed)
        x = rng.uniform(-300.0, 300.0, size)
        pick = rng.random(size)
        x[pick < 0.05] = np.round(x[pick < 0.05])
        x[(pick >= 0.05) & (pick < 0.10)] = np.round(x[(pick >= 0.05) & (pick < 0.10)]) + 0.5
        x[(pick >= 0.10) & (pick < 0.12)] = rng.choice([0.0, -0.0, 1e-30, -1e-30, np.inf, -np.inf, np.nan],
                                                       int(((pick >= 0.10) & (pick < 0.12)).sum()))
        x[(pick >= 0.12) & (pick < 0.14)] = rng.uniform(-big, big, int(((pick >= 0.12) & (pick < 0.14)).sum()))
        return {"x": x.astype(np.float32).astype(_NP[dtype])}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        padded = -(-x.size * x.itemsize // BLOCK_SIZE) * BLOCK_SIZE // x.itemsize
        gm_x, gm_y = np.zeros(padded, x.dtype), np.zeros(padded, x.dtype)
        gm_x[:x.size] = x
        block_dim, tiling_data = tiling(device, x.size, dtype)
        aj.launch(floor_kernel, block_dim, device, gm_x, gm_y, tiling_data, dtype)
        return {"y": gm_y[:x.size]}
    return run


def expected(device, inputs):
    """floor of each value (exact in float, and in half / bfloat16: the floor of a narrow value is representable);
    a zero result is +0 (float -> float round-to-integral, SPEC-2 7.3 step 5: floor(-0.0) is +0, and a half -0.0
    widens to -0.0 first); NaN is the canonical quiet NaN of the output type."""
    x = inputs["x"]
    y = np.floor(x.astype(np.float32))
    y[y == 0] = 0.0
    y = y.astype(x.dtype)
    nan_bits = {np.dtype(np.float32): 0x7FC00000, np.dtype(np.float16): 0x7E00,
                np.dtype(ml_dtypes.bfloat16): 0x7FC0}[x.dtype]
    view = y.view({4: np.uint32, 2: np.uint16}[x.itemsize])
    view[np.isnan(x.astype(np.float32))] = nan_bits
    return {"y": y}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/floor/op_kernel/floor.h"
KERNELS = [
    KernelSpec(f"floor{suffix}", description, _make_inputs(dtype), _run(dtype), expected, default_size=100000,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, description in (
        ("", "float", "Floor over floats: the advanced API's Floor as a count-form Cast float -> float CAST_FLOOR; "
                      "DataCopy in, DataCopyPad (DataCopyExtParams) out for the last tile"),
        ("_half", "half", "Floor over halves: Cast to float, Cast float -> float CAST_FLOOR in place, Cast back with "
                          "CAST_FLOOR"),
        ("_bf16", "bfloat16", "Floor over bfloat16: Cast to float, CAST_FLOOR in place, Cast float -> bfloat16 "
                              "CAST_FLOOR"))
]
