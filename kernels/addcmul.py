"""Addcmul from the CANN math operators: y = input_data + value * x1 * x2 with a one-element value tensor, over float,
int32 and bfloat16 (computed in float between CAST_NONE and CAST_RINT Casts, the value widened by ToFloat).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ b622ab1f85eba26f1fcb19b2c1f753bee437e336, experimental/math/addcmul/op_kernel/addcmul.h
(`KernelAddcmul<TYPE_X>`, tiling key 0: the value read once by `valueGm.GetValue(0)` (bfloat16: `ToFloat` of it);
Mul x1 by x2 in place, Muls by the value, Add the input into the output tile; bfloat16: Cast the three inputs to
float with CAST_NONE, Mul, Muls, Add, Cast back with CAST_RINT) with the host tiling of
experimental/math/addcmul/op_host/addcmul_tiling.cpp (`AddcmulTilingFunc`: tiles of UB / 32 / 2 / (4, or 6 for
bfloat16) blocks, so the four double-buffered queues (and bfloat16's two float TBufs) fill the UB exactly; the
big/small-core split of ascend_jit.kernels._base.big_small_core_tiling; one core when one tile holds the input).

Not portable: tiling key 1 (`KernelAddcmulTensor`, value of the input's shape) initialises five double-buffered queues
and two float TBufs with the tile the host sized for four queues: 1.25 UBs for float and int32, 1.17 for bfloat16.
InitBuffer refuses it (the device would overrun the UB); the original needs a tiling fix, not a port.

Deviation: the core count is the launch's 8 (GetCoreNum would give the device's). The host side pads GM to 32 bytes,
as device allocations are.

Devices: float runs everywhere; int32 needs Muls on int32 (not the 910: SPEC-2 3.2); bfloat16 needs the bfloat16 <->
float Casts (the 950, A3, A2 and 310B: SPEC-2 7.2).

Fidelity: BIT-EXACT (Mul, Muls, Add, Cast and DataCopy are BIT-EXACT, SPEC-2 0.3): checked bit for bit against the
same instructions composed from the package's reference model (int32 wraps, or saturates where the device's CTRL
bit 53 says so, D35).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8
ALL_DEVICES = aj.SUPPORTED_NAMES
INT32_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")
BF16_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")


def tiling(device, total, dtype):
    """AddcmulTilingFunc for a one-element value (tiling key 0): (block_dim, tiling data)."""
    input_bytes = 2 if dtype == "bfloat16" else 4
    ub_data_number = 6 if dtype == "bfloat16" else 4
    tile_block_num = aj.get_device(device).ub_bytes // BLOCK_SIZE // BUFFER_NUM // ub_data_number
    tile_data_num = tile_block_num * BLOCK_SIZE // input_bytes
    blocks = -(-total * input_bytes // BLOCK_SIZE)
    core_num = 1 if tile_data_num >= total else min(CORE_NUM, blocks)
    small, big, tail_block_num = big_small_core_tiling(total, input_bytes, tile_data_num, core_num)
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num,
                          finalBigTileNum=big.tile_num, finalSmallTileNum=small.tile_num, tileDataNum=tile_data_num,
                          smallTailDataNum=small.tail_data_num, bigTailDataNum=big.tail_data_num,
                          tailBlockNum=tail_block_num)


class KernelAddcmul:
    def __init__(self, dtype):
        self.TYPE_X = dtype

    def Init(self, input_data, x1, x2, value, y, smallCoreDataNum, bigCoreDataNum, finalBigTileNum,
             finalSmallTileNum, tileDataNum, smallTailDataNum, bigTailDataNum, tailBlockNum):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        blockIdx = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * aj.GetBlockIdx()
        self.tileDataNum = tileDataNum
        if blockIdx < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, finalBigTileNum, bigTailDataNum
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, finalSmallTileNum, smallTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (aj.GetBlockIdx() - tailBlockNum)
        self.input_dataGm, self.x1Gm, self.x2Gm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.valueGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.input_dataGm.SetGlobalBuffer(input_data[globalBufferIndex:], self.coreDataNum)
        self.x1Gm.SetGlobalBuffer(x1[globalBufferIndex:], self.coreDataNum)
        self.x2Gm.SetGlobalBuffer(x2[globalBufferIndex:], self.coreDataNum)
        self.valueGm.SetGlobalBuffer(value)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        size = y.itemsize
        self.pipe = aj.TPipe()
        self.inQueueX1, self.inQueueX2, self.inQueueINPUT_DATA = (aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
                                                                   for _ in range(3))
        self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        for que in (self.inQueueX1, self.inQueueX2, self.inQueueINPUT_DATA, self.outQueueY):
            self.pipe.InitBuffer(que, BUFFER_NUM, self.tileDataNum * size)
        if self.TYPE_X == "bfloat16":
            self.tmp1, self.tmp2 = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
            self.pipe.InitBuffer(self.tmp1, self.tileDataNum * 4)
            self.pipe.InitBuffer(self.tmp2, self.tileDataNum * 4)
            self.f_value = aj.ToFloat(self.valueGm.GetValue(0))
        else:
            self.m_value = self.valueGm.GetValue(0)

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

    def CopyIn(self, progress):
        input_dataLocal = self.inQueueINPUT_DATA.AllocTensor(self.TYPE_X)
        x1Local = self.inQueueX1.AllocTensor(self.TYPE_X)
        x2Local = self.inQueueX2.AllocTensor(self.TYPE_X)
        aj.DataCopy(x1Local, self.x1Gm[progress * self.tileDataNum], self.processDataNum)
        aj.DataCopy(x2Local, self.x2Gm[progress * self.tileDataNum], self.processDataNum)
        aj.DataCopy(input_dataLocal, self.input_dataGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX1.EnQue(x1Local)
        self.inQueueX2.EnQue(x2Local)
        self.inQueueINPUT_DATA.EnQue(input_dataLocal)

    def Compute(self, progress):
        n = self.processDataNum
        x1Local = self.inQueueX1.DeQue(self.TYPE_X)
        x2Local = self.inQueueX2.DeQue(self.TYPE_X)
        input_dataLocal = self.inQueueINPUT_DATA.DeQue(self.TYPE_X)
        yLocal = self.outQueueY.AllocTensor(self.TYPE_X)
        if self.TYPE_X == "bfloat16":
            p1, p2 = self.tmp1.Get("float"), self.tmp2.Get("float")
            aj.Cast(p1, x1Local, aj.RoundMode.CAST_NONE, n)
            aj.Cast(p2, x2Local, aj.RoundMode.CAST_NONE, n)
            aj.Mul(p1, p1, p2, n)
            aj.Muls(p1, p1, self.f_value, n)
            aj.Cast(p2, input_dataLocal, aj.RoundMode.CAST_NONE, n)
            aj.Add(p2, p1, p2, n)
            aj.Cast(yLocal, p2, aj.RoundMode.CAST_RINT, n)
        else:
            aj.Mul(x1Local, x1Local, x2Local, n)
            aj.Muls(x1Local, x1Local, self.m_value, n)
            aj.Add(yLocal, x1Local, input_dataLocal, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX1.FreeTensor(x1Local)
        self.inQueueX2.FreeTensor(x2Local)
        self.inQueueINPUT_DATA.FreeTensor(input_dataLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.TYPE_X)
        aj.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


def addcmul(input_data, x1, x2, value, y, tiling_data, dtype):
    op = KernelAddcmul(dtype)
    op.Init(input_data, x1, x2, value, y, **tiling_data)
    op.Process()


def _make_inputs(np_dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if np_dtype == np.int32:   # products that wrap (or saturate) as often as not
            arrays = {k: rng.integers(-(1 << 20), 1 << 20, size, dtype=np.int32) for k in ("input_data", "x1", "x2")}
            arrays["value"] = np.array([-3], np.int32)
            return arrays
        arrays = {k: rng.standard_normal(size).astype(np.float32).astype(np_dtype) for k in ("input_data", "x1", "x2")}
        arrays["value"] = np.array([0.7], np.float32).astype(np_dtype)
        return arrays
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x1"]
        padded = -(-x.size * x.itemsize // BLOCK_SIZE) * BLOCK_SIZE // x.itemsize
        gm = {}
        for key in ("input_data", "x1", "x2"):
            gm[key] = np.zeros(padded, x.dtype)
            gm[key][:x.size] = inputs[key]
        value = np.zeros(BLOCK_SIZE // x.itemsize, x.dtype)
        value[0] = inputs["value"][0]
        y = np.zeros(padded, x.dtype)
        block_dim, tiling_data = tiling(device, x.size, dtype)
        aj.launch(addcmul, block_dim, device, gm["input_data"], gm["x1"], gm["x2"], value, y, tiling_data, dtype)
        return {"y": y[:x.size]}
    return run


def expected(device, inputs):
    """Mul, Muls, Add (bfloat16: exact widening, the three in float, one RNE narrowing) through the reference model."""
    from ascend_jit.reference import elementwise as ref
    core = aj.Core(device)
    env = ref.Env(device, sat_half=core.half_saturating, sat_int=core.int_saturating)
    x1, x2, inp, value = inputs["x1"], inputs["x2"], inputs["input_data"], inputs["value"][0]
    if x1.dtype == np.int32:
        as_int = lambda a: np.array([int(v) for v in a], dtype=object)   # the reference's integer values
        y = ref.add("int32", env, ref.mul("int32", env, ref.mul("int32", env, as_int(x1), as_int(x2)), int(value)),
                    as_int(inp))
        return {"y": np.array([int(v) for v in y], dtype=np.int64).astype(np.int32)}
    lane = "float"
    f = lambda a: np.asarray(a, np.float64)
    y = ref.add(lane, env, ref.mul(lane, env, ref.mul(lane, env, f(x1), f(x2)), float(value)), f(inp))
    return {"y": np.asarray(y, np.float32).astype(x1.dtype)}


_SOURCE = "hicann/ops-math@b622ab1f experimental/math/addcmul/op_kernel/addcmul.h"
KERNELS = [
    KernelSpec("addcmul", "Addcmul over floats with a one-element value (GM GetValue): Mul, Muls, Add; big/small "
               "cores, double-buffered tiles filling the UB", _make_inputs(np.float32), _run("float"), expected,
               default_size=100000, devices=ALL_DEVICES, source=_SOURCE),
    KernelSpec("addcmul_int32", "Addcmul over int32 (wrapping or saturating products per the device's CTRL)",
               _make_inputs(np.int32), _run("int32"), expected, default_size=20000, devices=INT32_DEVICES,
               source=_SOURCE),
    KernelSpec("addcmul_bf16", "Addcmul over bfloat16 computed in float: Cast CAST_NONE in, the value by ToFloat, "
               "Cast CAST_RINT out", _make_inputs(ml_dtypes.bfloat16), _run("bfloat16"), expected,
               default_size=100000, devices=BF16_DEVICES, source=_SOURCE),
]
