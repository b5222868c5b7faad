"""Exp from the CANN math operators: y = base ** (scale * x + shift) (base -1 meaning e), element by element, over
float and half (computed in the input type) and bfloat16 (computed in float).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/exp/op_kernel/exp.cpp
(REGISTER_TILING_DEFAULT(ExpTilingData), GET_TILING_DATA_WITH_STRUCT, TILING_KEY_IS(1) for the big-core variant),
exp.h (`NsExp::Exp<TYPE_X, TYPE_Y, IsExistBigCore>`: depth-2 VECIN and VECOUT queues, big and small cores, tiles by
DataCopy, the last tile of a core shorter; float and half: Muls scale, Adds shift, Muls base (the scalars cast to
the input type), Exp, all into the output tile; bfloat16: Cast to a float TBuf CAST_NONE, the same four steps in
float, Cast CAST_RINT into the output tile) and exp_tiling_data.h (the struct, whose field `base` is the natural log
of the operator's base), with the host tiling of experimental/math/exp/op_host/exp_tiling.cpp (`ExpTilingFunc`: the
UB split in 2 parts (3 for bfloat16) of 2 buffers, rounded down to 32-byte blocks; the input rounded up to blocks
spread over the cores block by block, as ascend_jit.kernels._base.big_small_core_tiling splits it; one core when one
tile holds the input; base -1 gives ln e = 1, a positive base its natural log). The struct is a numpy structured
dtype (`align=True`, C's layout, 80 bytes): its `base` field is read as `tilingData.base`, which np.record answered
with its own attribute before the field until this port (docs/decisions.md "Kernel utilities", Tiling macros).

Deviations: the core count is the launch's 8 (GetCoreNum would give the device's). The host pads GM to 32 bytes, as
device allocations are (the last core's last tile copies whole blocks).

Devices: the operator's one config is the A2 (ascend910b); every instruction it uses exists on every device for
float and half (SPEC-2 0.3 tables), and the tiling macros on all but the 910 (their pages' product lists), so those
run on five; bfloat16 needs the bfloat16 <-> float Casts too (950, A3, A2, 310B, SPEC-2 7.2).

Fidelity: MODELLED (Exp is MODELLED, SPEC-2 0.3). The expectation stages Muls, Adds, Muls on the host exactly as the
device rounds them (each exact result rounded once to the computing type, in float64 then narrowed: SPEC-2 D35),
then exp in float64 narrowed to the computing type and, for bfloat16, to bfloat16 by RNE; checked within 2e-7
relative for float (the float32 Exp's rounding), 1e-3 for half (its rounding) and 8e-3 for bfloat16. The
tolerance is the hardware Exp's room: the emulator's Exp is the correctly rounded model, and on these inputs its
outputs equal the expectation bit for bit on every device.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")   # not the 910
BF16_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")   # bfloat16 <-> float Casts (SPEC-2 7.2)
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
# the attributes per gallery kernel: (base, scale, shift); base -1 is e
ATTRS = {"float": (-1.0, 1.0, 0.0), "half": (2.0, 1.5, 0.25), "bfloat16": (10.0, 0.5, -0.5)}

ExpTilingData = np.dtype([("smallCoreDataNum", np.uint64), ("bigCoreDataNum", np.uint64),
                          ("ubPartDataNum", np.uint64), ("smallCoreTailDataNum", np.uint64),
                          ("bigCoreTailDataNum", np.uint64), ("smallCoreLoopNum", np.uint64),
                          ("bigCoreLoopNum", np.uint64), ("tailBlockNum", np.uint64), ("base", np.float32),
                          ("scale", np.float32), ("shift", np.float32)], align=True)


def tiling(device, total, dtype):
    """ExpTilingFunc: (block dim, tiling key, the packed ExpTilingData)."""
    type_length = TYPE_SIZE[dtype]
    ub_part_num = 3 if dtype == "bfloat16" else 2
    ub_part_blocks = aj.get_device(device).ub_bytes // ub_part_num // BUFFER_NUM // BLOCK_SIZE
    ub_part_data_num = ub_part_blocks * BLOCK_SIZE // type_length
    blocks = -(-total * type_length // BLOCK_SIZE)
    core_num = 1 if ub_part_data_num >= total else min(CORE_NUM, blocks)
    small, big, tail_block_num = big_small_core_tiling(total, type_length, ub_part_data_num, core_num)
    base, scale, shift = ATTRS[dtype]
    t = np.zeros(1, ExpTilingData)
    t["smallCoreDataNum"], t["bigCoreDataNum"], t["ubPartDataNum"] = small.data_num, big.data_num, ub_part_data_num
    t["smallCoreTailDataNum"], t["bigCoreTailDataNum"] = small.tail_data_num, big.tail_data_num
    t["smallCoreLoopNum"], t["bigCoreLoopNum"], t["tailBlockNum"] = small.tile_num, big.tile_num, tail_block_num
    t["base"] = 1.0 if base == -1.0 else np.log(np.float64(base))   # log(double) narrowed to the float field
    t["scale"], t["shift"] = scale, shift
    return core_num, (1 if tail_block_num else 0), t.view(np.uint8).copy()


class Exp:
    def __init__(self, TYPE_X, TYPE_Y, IsExistBigCore):
        self.TYPE_X, self.TYPE_Y, self.IsExistBigCore = TYPE_X, TYPE_Y, IsExistBigCore

    def Init(self, x, y, smallCoreDataNum, bigCoreDataNum, bigCoreLoopNum, smallCoreLoopNum, ubPartDataNum,
             smallCoreTailDataNum, bigCoreTailDataNum, tailBlockNum, base, scale, shift):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        coreNum = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * aj.GetBlockIdx()
        self.ubPartDataNum = ubPartDataNum
        if self.IsExistBigCore and coreNum < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, bigCoreLoopNum, bigCoreTailDataNum
        elif self.IsExistBigCore:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (aj.GetBlockIdx() - tailBlockNum)
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            globalBufferIndex = smallCoreDataNum * aj.GetBlockIdx()
        self.base, self.shift, self.scale = np.float32(base), np.float32(shift), np.float32(scale)
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.tmp1 = aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.ubPartDataNum * TYPE_SIZE[self.TYPE_X])
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.ubPartDataNum * TYPE_SIZE[self.TYPE_Y])
        if aj.IsSameType(self.TYPE_X, "bfloat16"):
            self.pipe.InitBuffer(self.tmp1, self.ubPartDataNum * 4)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.ubPartDataNum
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)
        self.processDataNum = self.tailDataNum
        self.CopyIn(loopCount - 1)
        self.Compute(loopCount - 1)
        self.CopyOut(loopCount - 1)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.TYPE_X)
        aj.DataCopy(xLocal, self.xGm[progress * self.ubPartDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def Compute(self, progress):
        n = self.processDataNum
        xLocal = self.inQueueX.DeQue(self.TYPE_X)
        yLocal = self.outQueueY.AllocTensor(self.TYPE_Y)
        if aj.IsSameType(self.TYPE_X, "float") or aj.IsSameType(self.TYPE_X, "half"):
            DTYPE_X = _NP[self.TYPE_X]             # (DTYPE_X)this->scale: the scalars in the input type
            aj.Muls(yLocal, xLocal, DTYPE_X(self.scale), n)
            aj.Adds(yLocal, yLocal, DTYPE_X(self.shift), n)
            aj.Muls(yLocal, yLocal, DTYPE_X(self.base), n)
            aj.Exp(yLocal, yLocal, n)
        else:
            xLocalFp32 = self.tmp1.Get("float")
            aj.Cast(xLocalFp32, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.Muls(xLocalFp32, xLocalFp32, self.scale, n)
            aj.Adds(xLocalFp32, xLocalFp32, self.shift, n)
            aj.Muls(xLocalFp32, xLocalFp32, self.base, n)
            aj.Exp(xLocalFp32, xLocalFp32, n)
            aj.Cast(yLocal, xLocalFp32, aj.RoundMode.CAST_RINT, n)
        self.outQueueY.EnQue(self.TYPE_Y, yLocal)
        self.inQueueX.FreeTensor(xLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.TYPE_Y)
        aj.DataCopy(self.yGm[progress * self.ubPartDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


aj.REGISTER_TILING_DEFAULT(ExpTilingData)


def exp(x, y, workspace, tiling, tiling_key, DTYPE_X):
    """The kernel entry: TILING_KEY_IS(1) instantiates the big-core variant, TILING_KEY_IS(0) the small-core one;
    DTYPE_X (= DTYPE_Y) is the build's type, a macro in C++."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ExpTilingData, tiling)
    op = Exp(DTYPE_X, DTYPE_X, tiling_key == 1)
    op.Init(x, y, tilingData.smallCoreDataNum, tilingData.bigCoreDataNum, tilingData.bigCoreLoopNum,
            tilingData.smallCoreLoopNum, tilingData.ubPartDataNum, tilingData.smallCoreTailDataNum,
            tilingData.bigCoreTailDataNum, tilingData.tailBlockNum, tilingData.base, tilingData.scale,
            tilingData.shift)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        return {"x": rng.uniform(-4, 4, size).astype(np.float32).astype(_NP[dtype])}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        padded = -(-x.size * x.itemsize // BLOCK_SIZE) * BLOCK_SIZE // x.itemsize
        gm_x = np.zeros(padded, x.dtype)
        gm_x[:x.size] = x
        y = np.zeros(padded, x.dtype)
        block_dim, key, tiling_bytes = tiling(device, x.size, dtype)
        workspace = np.zeros(BLOCK_SIZE, np.uint8)      # the tiling asks for none
        aj.launch(exp, block_dim, device, gm_x, y, workspace, tiling_bytes, key, dtype)
        return {"y": y[:x.size]}
    return run


def _expected(dtype):
    def expected(device, inputs):
        """Muls, Adds, Muls rounded once each to the computing type (exact in float64, then narrowed), exp in
        float64 narrowed to it, then (bfloat16) RNE to bfloat16."""
        t = np.frombuffer(tiling(device, inputs["x"].size, dtype)[2].tobytes(), ExpTilingData)[0]
        work = np.float32 if dtype == "bfloat16" else _NP[dtype]
        base, scale, shift = (np.float64(work(t[k])) for k in ("base", "scale", "shift"))
        z = inputs["x"].astype(np.float64)
        z = (z * scale).astype(work).astype(np.float64)
        z = (z + shift).astype(work).astype(np.float64)
        z = (z * base).astype(work).astype(np.float64)
        return {"y": np.exp(z).astype(work).astype(_NP[dtype])}
    return expected


_SOURCE = "hicann/ops-math@c4193324 experimental/math/exp/op_kernel/exp.h"
KERNELS = [
    KernelSpec("exp", "Exp over floats, base e: Muls, Adds, Muls by ln(base), Exp; a numpy structured TilingData "
               "(field `base`) by GET_TILING_DATA_WITH_STRUCT; big/small cores, tiles filling the UB",
               _make_inputs("float"), _run("float"), _expected("float"), default_size=100000, devices=DEVICES,
               tolerance=2e-7, source=_SOURCE),
    KernelSpec("exp_half", "Exp over halves, base 2, computed in half (scalars cast to half)", _make_inputs("half"),
               _run("half"), _expected("half"), default_size=100000, devices=DEVICES, tolerance=1e-3,
               source=_SOURCE),
    KernelSpec("exp_bf16", "Exp over bfloat16, base 10, computed in float (Cast CAST_NONE in, CAST_RINT out)",
               _make_inputs("bfloat16"), _run("bfloat16"), _expected("bfloat16"), default_size=100000,
               devices=BF16_DEVICES, tolerance=8e-3, source=_SOURCE),
]
