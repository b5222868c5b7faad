"""Round from the CANN math operators: y = round(x * 10**d) / 10**d, halves to even (torch.round with decimals), over
float, half, bfloat16 (computed in float) and int32 (copied through), with the advanced API's counter-mode Round
written out beside it.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/round/op_kernel/round.h
(`MyRound::KernelRound<TYPE_X, TYPE_Y, true>`: double-buffered VECIN/VECOUT queues of one tile each; a float TBuf
for the widened tile unless TYPE_X is float or int32, and one for the Duplicated scale unless decimals is 1; per
tile DataCopy in and out of processDataNum elements; int32: DataCopy UB -> UB; half and bfloat16: Cast to float
(CAST_NONE), then with decimals > 1 `Duplicate<float>` of the scale, Mul, Round, Div by the scale, else Round alone,
and Cast back with CAST_RINT; float: the same on the queue tensors, the Mul in place on the input tile) with the
host tiling of experimental/math/round/op_host/round_tiling.cpp (`TilingFunc`: 32-byte blocks, tiles of UB / 32 /
(4 for int32; 8 or, with decimals, 10 for half and bfloat16; 5 or 6 for float) blocks, one core when a tile holds
the input, else at most one core per block; the big/small core split of ascend_jit.kernels._base.
big_small_core_tiling; the scale 10**decimals as a float).

The advanced API (mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7,
impl/adv_api/detail/math/round/): the kernel calls `Round(dst, src, calCount)` on float tensors only; the A2/A3
build (round_common_impl.h with round_v220_impl.h) runs it in counter mode: SetMaskCount, `SetVectorMask<float,
MaskMode::COUNTER>(0, calCount)`, one `Cast<float, float, false>(dst, src, CAST_RINT, MASK_PLACEHOLDER, 1,
{1, 1, 8, 8})`, SetMaskNorm, ResetMask (`round_api` below). The 950 build (round_3510_impl.h) rounds in a Reg VF
with Reg::Truncate (not an emulator instruction, SPEC-2 14); the 310P build (round_v200_impl.h) goes through Cast
float -> int32 CAST_RINT, a pair the 310P's Cast table lacks (SPEC-2 7.2; the devkit code implies the instruction
exists there: a hardware-checklist question, not changed here); the 310B has no Round. The float, half and bfloat16
kernels run on the A2 and A3; int32 (DataCopy only) everywhere.

Deviations: the core count is at most the launch's 8 (GetCoreNum would give the device's). The last core copies
whole 32-byte blocks past the input (the tiling counts it in blocks): the host pads GM to 32 bytes, as device
allocations are.

Fidelity: BIT-EXACT for decimals 0 (Cast, Duplicate, DataCopy are BIT-EXACT): checked bit for bit against numpy's
rint (float, and the widened half / bfloat16 value, whose rint is representable; zero results +0, SPEC-2 7.3 step
5). `round_decimals` (float, decimals 2) divides by the scale with Div, MODELLED off the 950 (SPEC-2 0.3): checked
against the exact float replay of the Mul and the round (BIT-EXACT stages) divided in float64, within 1.2e-7
relative (the one rounding of the quotient, 2**-24, with margin).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8
DEVICES = ("atlas-a3", "atlas-a2")
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2, "int32": 4}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32}


def tiling(device, total, dtype, decimals):
    """Round's TilingFunc: (coreNum, tiling data)."""
    size = TYPE_SIZE[dtype]
    ub_data_number = {"int32": 4, "float": 6 if decimals else 5}.get(dtype, 10 if decimals else 8)
    tile_block_num = aj.get_device(device).ub_bytes // BLOCK_SIZE // ub_data_number
    tile_data_num = tile_block_num * BLOCK_SIZE // size
    blocks = -(-total * size // BLOCK_SIZE)
    core_num = 1 if total <= tile_data_num else max(1, min(CORE_NUM, blocks))
    small, big, tail_block_num = big_small_core_tiling(total, size, tile_data_num, core_num)
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num,
                          finalBigTileNum=big.tile_num, finalSmallTileNum=small.tile_num, tileDataNum=tile_data_num,
                          smallTailDataNum=small.tail_data_num, bigTailDataNum=big.tail_data_num,
                          tailBlockNum=tail_block_num, decimals=np.float32(10.0 ** decimals))


def round_api(dst, src, calCount):
    """AscendC::Round(dst, src, calCount) for float tensors on the A2/A3 build (RoundImpl, RoundComputeCount)."""
    aj.SetMaskCount()
    aj.SetVectorMask(0, calCount, dtype="float", mode=aj.MaskMode.COUNTER)
    aj.Cast(dst, src, aj.RoundMode.CAST_RINT, aj.MASK_PLACEHOLDER, 1, (1, 1, 8, 8), is_set_mask=False)
    aj.SetMaskNorm()
    aj.ResetMask()


class KernelRound:
    def __init__(self, TYPE_X, TYPE_Y, IsExistBigCore):
        self.TYPE_X, self.TYPE_Y, self.IsExistBigCore = TYPE_X, TYPE_Y, IsExistBigCore

    def Init(self, x, y, tilingData):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        self.tileDataNum = tilingData["tileDataNum"]
        self.decimals = tilingData["decimals"]
        blockIdx = aj.GetBlockIdx()
        globalBufferIndex = tilingData["bigCoreDataNum"] * blockIdx
        if self.IsExistBigCore:
            if blockIdx < tilingData["tailBlockNum"]:
                self.coreDataNum = tilingData["bigCoreDataNum"]
                self.tileNum = tilingData["finalBigTileNum"]
                self.tailDataNum = tilingData["bigTailDataNum"]
            else:
                self.coreDataNum = tilingData["smallCoreDataNum"]
                self.tileNum = tilingData["finalSmallTileNum"]
                self.tailDataNum = tilingData["smallTailDataNum"]
                globalBufferIndex -= (tilingData["bigCoreDataNum"] - tilingData["smallCoreDataNum"]) * \
                    (blockIdx - tilingData["tailBlockNum"])
        else:
            self.coreDataNum = tilingData["smallCoreDataNum"]
            self.tileNum = tilingData["finalSmallTileNum"]
            self.tailDataNum = tilingData["smallTailDataNum"]
            globalBufferIndex = tilingData["smallCoreDataNum"] * blockIdx
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.tmpBuf, self.tmpBuf1 = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum * TYPE_SIZE[self.TYPE_X])
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * TYPE_SIZE[self.TYPE_Y])
        if self.TYPE_X not in ("float", "int32"):
            self.pipe.InitBuffer(self.tmpBuf, self.tileDataNum * 4)
        if self.decimals != 1:
            self.pipe.InitBuffer(self.tmpBuf1, self.tileDataNum * 4)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.TYPE_X)
        aj.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.TYPE_Y)
        aj.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)

    def Compute(self, progress):
        n = self.processDataNum
        xLocal = self.inQueueX.DeQue(self.TYPE_X)
        yLocal = self.outQueueY.AllocTensor(self.TYPE_Y)
        if self.TYPE_X == "int32":
            aj.DataCopy(yLocal, xLocal, n)
        elif self.TYPE_X != "float":
            tmp = self.tmpBuf.Get("float")
            aj.Cast(tmp, xLocal, aj.RoundMode.CAST_NONE, n)
            if self.decimals > 1:
                tmp1 = self.tmpBuf1.Get("float")
                aj.Duplicate(tmp1, self.decimals, n)
                aj.Mul(tmp, tmp, tmp1, n)
                round_api(tmp, tmp, n)
                aj.Div(tmp, tmp, tmp1, n)
            else:
                round_api(tmp, tmp, n)
            aj.Cast(yLocal, tmp, aj.RoundMode.CAST_RINT, n)
        elif self.decimals > 1:
            tmp1 = self.tmpBuf1.Get("float")
            aj.Duplicate(tmp1, self.decimals, n)
            aj.Mul(xLocal, xLocal, tmp1, n)
            round_api(yLocal, xLocal, n)
            aj.Div(yLocal, yLocal, tmp1, n)
        else:
            round_api(yLocal, xLocal, n)
        self.outQueueY.EnQue(self.TYPE_Y, yLocal)
        self.inQueueX.FreeTensor(xLocal)

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


def round_kernel(x, y, tiling_data, dtype):
    op = KernelRound(dtype, dtype, True)
    op.Init(x, y, tiling_data)
    op.Process()


def _make_inputs(dtype, specials=True):
    def make_inputs(size, seed):
        """Values over (-300, 300) with exact halves (the ties), integers, signed zeros and (unless the check is a
        tolerance, which has no NaN or infinity to compare) infinities and NaN mixed in; int32: random integers."""
        rng = np.random.default_rng(seed)
        if dtype == "int32":
            return {"x": rng.integers(-2**31, 2**31, size, dtype=np.int64).astype(np.int32)}
        x = rng.uniform(-300.0, 300.0, size)
        pick = rng.random(size)
        x[pick < 0.1] = np.round(x[pick < 0.1] * 2) / 2
        specials = [0.0, -0.0, -0.25] + ([np.inf, -np.inf, np.nan] if specials_ else [])
        x[(pick >= 0.1) & (pick < 0.12)] = rng.choice(specials, int(((pick >= 0.1) & (pick < 0.12)).sum()))
        return {"x": x.astype(np.float32).astype(_NP[dtype])}
    specials_ = specials
    return make_inputs


def _run(dtype, decimals=0):
    def run(device, inputs):
        x = inputs["x"]
        padded = -(-x.size * x.itemsize // BLOCK_SIZE) * BLOCK_SIZE // x.itemsize
        gm_x, gm_y = np.zeros(padded, x.dtype), np.zeros(padded, x.dtype)
        gm_x[:x.size] = x
        block_dim, tiling_data = tiling(device, x.size, dtype, decimals)
        aj.launch(round_kernel, block_dim, device, gm_x, gm_y, tiling_data, dtype)
        return {"y": gm_y[:x.size]}
    return run


def expected(device, inputs):
    """rint of the (widened) value, ties to even, zero results +0 (the float -> float Cast, SPEC-2 7.3), NaN the
    canonical quiet NaN; int32 unchanged."""
    x = inputs["x"]
    if x.dtype == np.int32:
        return {"y": x.copy()}
    y = np.rint(x.astype(np.float32))
    y[y == 0] = 0.0
    y = y.astype(x.dtype)
    view = y.view(np.uint32 if x.itemsize == 4 else np.uint16)
    view[np.isnan(x.astype(np.float32))] = {4: 0x7FC00000, 2: 0x7E00 if x.dtype == np.float16 else 0x7FC0}[x.itemsize]
    return {"y": y}


def expected_decimals(device, inputs):
    """The exact float replay of Mul by 100 and the round (BIT-EXACT stages), divided by 100 in float64."""
    x = inputs["x"].astype(np.float32)
    scaled = np.rint(x * np.float32(100.0))
    scaled[scaled == 0] = 0.0
    return {"y": scaled.astype(np.float64) / 100.0}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/round/op_kernel/round.h"
KERNELS = [
    KernelSpec("round", "Round over floats: the advanced API's Round in counter mode (SetMaskCount, SetVectorMask "
               "COUNTER, a high-dim Cast float -> float CAST_RINT with isSetMask false and MASK_PLACEHOLDER)",
               _make_inputs("float"), _run("float"), expected, default_size=100000, devices=DEVICES,
               source=_SOURCE),
    KernelSpec("round_half", "Round over halves: Cast to float, counter-mode Round, Cast back CAST_RINT",
               _make_inputs("half"), _run("half"), expected, default_size=100000, devices=DEVICES, source=_SOURCE),
    KernelSpec("round_bf16", "Round over bfloat16: Cast to float, counter-mode Round, Cast back CAST_RINT",
               _make_inputs("bfloat16"), _run("bfloat16"), expected, default_size=100000, devices=DEVICES,
               source=_SOURCE),
    KernelSpec("round_int32", "Round over int32: a UB -> UB DataCopy a tile", _make_inputs("int32"), _run("int32"),
               expected, default_size=100000, source=_SOURCE),
    KernelSpec("round_decimals", "Round over floats with decimals 2: Duplicate<float> of 100, Mul in place, "
               "counter-mode Round, Div by the scale", _make_inputs("float", specials=False), _run("float", 2),
               expected_decimals,
               default_size=100000, devices=DEVICES, tolerance=1.2e-7, source=_SOURCE),
]
