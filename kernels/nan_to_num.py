"""NanToNum from the CANN math operators: y = x with NaN replaced by `nan`, +inf by `posinf` and -inf by `neginf`
(torch.nan_to_num), over float, half and bfloat16 (bfloat16 computed in float), by Compare and Select with a selMask.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/nan_to_num/op_kernel/nan_to_num.h
(`NsNanToNum::KernelNanToNum<TYPE_X>`: double-buffered VECIN/VECOUT queues of one tile each, a uint8 mask TBuf of one
byte an element and, for bfloat16, two float TBufs; every TBuf tensor taken with `AllocTensor<T>()` each tile and
never freed; per tile DataCopy in and out of processDataNum elements; Compute: Compare(mask, x, x, EQ) (false only
for NaN), Select(y, mask, x, nan, VSEL_TENSOR_SCALAR_MODE); then for +inf and -inf in turn a Duplicate of the
infinity into the input tile, Compare(mask, y, that, EQ), a Duplicate of the replacement into the input tile and
Select(y, mask, replacement, y, VSEL_TENSOR_TENSOR_MODE); bfloat16: the same on a float copy (Cast CAST_NONE) with the
Duplicates into the second float TBuf, then Cast back with CAST_RINT) with the host tiling of
experimental/math/nan_to_num/op_host/nan_to_num_tiling.cpp (`NanToNumTilingFunc`: 256-byte blocks, tiles of UB / 256
/ (9 for bfloat16, 5 otherwise) blocks, one core when a tile holds the input, else at most one core per block; the
big/small core split of ascend_jit.kernels._base.big_small_core_tiling over 256-byte blocks; the attributes nan,
posinf and neginf as floats, narrowed to TYPE_X by static_cast in the kernel).

The attributes are required by the operator definition; the port's host passes what aclnnNanToNum passes for
torch's defaults (nan 0; posinf and neginf the type's largest finite values, as floats: 65504 for half,
3.3895314e38 for bfloat16) or the values a variant names.

Deviations: the core count is at most the launch's 8 (GetCoreNum would give the device's). The last core copies in
and out whole 256-byte blocks (the tiling counts the input in them), up to 255 bytes past the input: the host pads
GM to 256 bytes, past the 32 bytes device allocations are rounded to.

Devices: Compare, Select and Duplicate on float and half are offered on every device, but the 910's Select has
mode 0 (VSEL_CMPMASK_SPR) only (SPEC-2 9.5), so the float and half variants leave it out; the bfloat16 variant
needs Cast bfloat16 <-> float (SPEC-2 7.2): the 950, A2, A3 and 310B.

Fidelity: BIT-EXACT (Compare, Select, Duplicate, DataCopy and Cast are BIT-EXACT, SPEC-2 0.3): checked bit for bit
against numpy: NaN lanes take the scalar (rounded to the type by RNE, as static_cast does), infinities their
replacements; the bfloat16 round trip through float is exact.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

BUFFER_NUM = 2
BLOCK_SIZE = 256
UB_NUM_BF16 = 9
UB_NUM_OTHER = 5
CORE_NUM = 8
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
# the largest finite value of each type as a float attribute (aclnnNanToNum's defaults for posinf / neginf)
TYPE_MAX = {"float": 3.4028235e+38, "half": 65504.0, "bfloat16": 3.3895314e+38}


def tiling(device, total, dtype, nan, posinf, neginf):
    """NanToNumTilingFunc: (coreNum, tiling data)."""
    size = TYPE_SIZE[dtype]
    ub_data_number = UB_NUM_BF16 if dtype == "bfloat16" else UB_NUM_OTHER
    tile_block_num = aj.get_device(device).ub_bytes // BLOCK_SIZE // ub_data_number
    tile_data_num = tile_block_num * BLOCK_SIZE // size
    blocks = -(-total * size // BLOCK_SIZE)
    core_num = 1 if tile_data_num >= total else min(CORE_NUM, blocks)
    small, big, tail_block_num = big_small_core_tiling(total, size, tile_data_num, core_num, block=BLOCK_SIZE)
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num,
                          finalBigTileNum=big.tile_num, finalSmallTileNum=small.tile_num, tileDataNum=tile_data_num,
                          smallTailDataNum=small.tail_data_num, bigTailDataNum=big.tail_data_num,
                          tailBlockNum=tail_block_num, nan=np.float32(nan), posinf=np.float32(posinf),
                          neginf=np.float32(neginf))


class KernelNanToNum:
    def __init__(self, dtype):
        self.TYPE_X = dtype

    def Init(self, x, y, smallCoreDataNum, bigCoreDataNum, finalBigTileNum, finalSmallTileNum, tileDataNum,
             smallTailDataNum, bigTailDataNum, tailBlockNum, nan, posinf, neginf):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        coreId = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * coreId
        self.tileDataNum = tileDataNum
        # static_cast<TYPE_X> of the float attributes, done once here (the original converts at each call; the
        # same values): round to nearest even, overflow to infinity
        cast = np.float32 if self.TYPE_X == "bfloat16" else _NP[self.TYPE_X]
        with np.errstate(over="ignore"):
            self.nan, self.posinf, self.neginf = cast(nan), cast(posinf), cast(neginf)
        self.inf = cast(np.inf)
        if coreId < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, finalBigTileNum, bigTailDataNum
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, finalSmallTileNum, smallTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (coreId - tailBlockNum)
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        size = TYPE_SIZE[self.TYPE_X]
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.tmpQueue, self.tmpQueueMask, self.tmpQueue0 = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(3))
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * size)
        if self.TYPE_X == "bfloat16":
            self.pipe.InitBuffer(self.tmpQueue, self.tileDataNum * 4)
            self.pipe.InitBuffer(self.tmpQueue0, self.tileDataNum * 4)
        self.pipe.InitBuffer(self.tmpQueueMask, self.tileDataNum)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.TYPE_X)
        aj.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.TYPE_X)
        aj.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)

    def Compute(self, progress):
        n = self.processDataNum
        xLocal = self.inQueueX.DeQue(self.TYPE_X)
        yLocal = self.outQueueY.AllocTensor(self.TYPE_X)
        mask1Local = self.tmpQueueMask.AllocTensor("uint8")
        if self.TYPE_X != "bfloat16":
            aj.Compare(mask1Local, xLocal, xLocal, aj.CMPMODE.EQ, n)
            aj.Select(yLocal, mask1Local, xLocal, self.nan, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, n)
            for inf, value in ((self.inf, self.posinf), (-self.inf, self.neginf)):
                aj.Duplicate(xLocal, inf, n)
                aj.Compare(mask1Local, yLocal, xLocal, aj.CMPMODE.EQ, n)
                aj.Duplicate(xLocal, value, n)
                aj.Select(yLocal, mask1Local, xLocal, yLocal, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
        else:
            tmpLocal = self.tmpQueue.AllocTensor("float")
            tmp0Local = self.tmpQueue0.AllocTensor("float")
            aj.Cast(tmpLocal, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.Compare(mask1Local, tmpLocal, tmpLocal, aj.CMPMODE.EQ, n)
            aj.Select(tmpLocal, mask1Local, tmpLocal, self.nan, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, n)
            for inf, value in ((self.inf, self.posinf), (-self.inf, self.neginf)):
                aj.Duplicate(tmp0Local, inf, n)
                aj.Compare(mask1Local, tmpLocal, tmp0Local, aj.CMPMODE.EQ, n)
                aj.Duplicate(tmp0Local, value, n)
                aj.Select(tmpLocal, mask1Local, tmp0Local, tmpLocal, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
            aj.Cast(yLocal, tmpLocal, aj.RoundMode.CAST_RINT, n)
        self.outQueueY.EnQue(self.TYPE_X, yLocal)
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


def nan_to_num(x, y, tiling_data, dtype):
    op = KernelNanToNum(dtype)
    op.Init(x, y, **tiling_data)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        """Normal values with NaN (quiet and signalling bit patterns), +inf and -inf mixed in, and the type's
        largest finite values (equal to the default replacements, never replaced themselves)."""
        rng = np.random.default_rng(seed)
        x = (rng.standard_normal(size) * 100).astype(np.float32).astype(_NP[dtype])
        pick = rng.random(size)
        x[pick < 0.04] = np.nan
        x[(pick >= 0.04) & (pick < 0.08)] = np.inf
        x[(pick >= 0.08) & (pick < 0.12)] = -np.inf
        x[(pick >= 0.12) & (pick < 0.13)] = _NP[dtype](TYPE_MAX[dtype])
        bits = x.view({4: np.uint32, 2: np.uint16}[x.itemsize])
        sig = (pick >= 0.13) & (pick < 0.14)      # signalling / negative NaN payloads
        bits[sig] = {4: 0xFF800001, 2: 0xFC01 if dtype == "half" else 0xFF81}[x.itemsize]
        return {"x": x}
    return make_inputs


def _attrs(dtype, nan, posinf, neginf):
    return (nan, TYPE_MAX[dtype] if posinf is None else posinf, -TYPE_MAX[dtype] if neginf is None else neginf)


def _run(dtype, nan=0.0, posinf=None, neginf=None):
    def run(device, inputs):
        x = inputs["x"]
        padded = -(-x.size * x.itemsize // BLOCK_SIZE) * BLOCK_SIZE // x.itemsize
        gm_x, gm_y = np.zeros(padded, x.dtype), np.zeros(padded, x.dtype)
        gm_x[:x.size] = x
        block_dim, tiling_data = tiling(device, x.size, dtype, *_attrs(dtype, nan, posinf, neginf))
        aj.launch(nan_to_num, block_dim, device, gm_x, gm_y, tiling_data, dtype)
        return {"y": gm_y[:x.size]}
    return run


def _expected(dtype, nan=0.0, posinf=None, neginf=None):
    def expected(device, inputs):
        x = inputs["x"]
        with np.errstate(over="ignore"):
            nan, posinf, neginf = (_NP[dtype](np.float32(v)) for v in _attrs(dtype, nan_, posinf_, neginf_))
        wide = x.astype(np.float32)
        y = x.copy()
        y[np.isnan(wide)] = nan
        y[wide == np.inf] = posinf
        y[wide == -np.inf] = neginf
        return {"y": y}
    nan_, posinf_, neginf_ = nan, posinf, neginf
    return expected


_SOURCE = "hicann/ops-math@c4193324 experimental/math/nan_to_num/op_kernel/nan_to_num.h"
_ALL_BUT_910 = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")
KERNELS = [
    KernelSpec("nan_to_num", "NanToNum over floats: Compare(x, x, EQ) and Select tensor-scalar for NaN; Duplicate "
               "+-inf and the replacements into the input tile, Compare EQ and Select tensor-tensor for each",
               _make_inputs("float"), _run("float"), _expected("float"), default_size=100000,
               devices=_ALL_BUT_910, source=_SOURCE),
    KernelSpec("nan_to_num_half", "NanToNum over halves with nan=1.5, posinf=100, neginf=-7e4 (overflows to -inf "
               "in the static_cast, so -inf stays -inf)", _make_inputs("half"),
               _run("half", 1.5, 100.0, -7e4), _expected("half", 1.5, 100.0, -7e4), default_size=100000,
               devices=_ALL_BUT_910, source=_SOURCE),
    KernelSpec("nan_to_num_bf16", "NanToNum over bfloat16 computed in float (Cast CAST_NONE in, CAST_RINT out)",
               _make_inputs("bfloat16"), _run("bfloat16"), _expected("bfloat16"), default_size=100000,
               devices=("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2"), source=_SOURCE),
]
