"""ClipByValueV2 from a CANN operator collection: y = min(max(x, clip_value_min), clip_value_max), the two bounds
read from GM on the scalar unit, big and small cores, double-buffered tiles with a tail tile per core.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
Hayden727/cann-ops @ 53cce04df5be1c6714c1c38eb9f0b5b9597f1da7, src/math/clip_by_value_v2/op_kernel/clip_by_value_v2.cpp
(`KernelClipByValueV2<T, T, T, T, IsExistBigCore>` and its bfloat16 specialisation, `clip_by_value_v2`) with the host
tiling of src/math/clip_by_value_v2/op_host/clip_by_value_v2.cpp (`TilingFunc`): the UB split into ubPartNum parts
(3; 6 for bfloat16) of two buffers each, the 32-byte aligned input spread over the cores block by block, the first
`tailBlockNum` cores ("big") one block more, each core's data in tiles of ubPartDataNum elements and a last, shorter
tile; tiling key 1 when big cores exist.

As in the original: a TPipe passed by pointer, depth-2 VECIN/VECOUT queues and VECCALC TBufs for the bounds,
`Gm_clip_value_min.GetValue(0)` on GM, Duplicate of each bound over the tile, Max then Min; the bfloat16
specialisation widens the tile (Cast CAST_NONE), takes the bounds through `ToFloat`, clips in float and narrows back
with CAST_RINT. The host side pads GM to the 32-byte multiple the tiling reads and writes (the device's allocations
are so rounded; the original's last core copies whole blocks).

Deviation: the core count is the launch's 8 cores (GetCoreNum would give the device's AIV count); every other tiling
figure follows the original, from the device's UB size.

Devices: Duplicate, Max and Min are offered everywhere (half: all six devices); the bfloat16 Casts only on the 950, A3,
A2 and 310B (SPEC-2 7.2).

Fidelity: BIT-EXACT (Duplicate, Max, Min, Cast are BIT-EXACT, SPEC-2 0.3). The expectation is the reference model's
Max and Min lanes (D41: NaN propagates, -0 < +0; a saturating device's half NaN and infinities per D35) on the
same operands; for bfloat16 the lanes are float's and the narrowing is exact (every result is a bfloat16 value).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8


def tiling(device, total, dtype):
    """TilingFunc: (block_dim, tiling key, the tiling data fields)."""
    length = 2 if dtype in ("half", "bfloat16") else 4
    ub_part_num = 6 if dtype == "bfloat16" else 3
    ub_part_data_num = aj.get_device(device).ub_bytes // ub_part_num // BUFFER_NUM // BLOCK_SIZE * BLOCK_SIZE // length
    blocks = -(-total * length // BLOCK_SIZE)
    core_num = 1 if ub_part_data_num >= total else min(CORE_NUM, blocks)
    small, big, tail_block_num = big_small_core_tiling(total, length, ub_part_data_num, core_num)
    fields = dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num, bigCoreLoopNum=big.tile_num,
                  smallCoreLoopNum=small.tile_num, ubPartDataNum=ub_part_data_num,
                  smallCoreTailDataNum=small.tail_data_num, bigCoreTailDataNum=big.tail_data_num,
                  tailBlockNum=tail_block_num)
    return core_num, 1 if tail_block_num else 0, fields


class KernelClipByValueV2:
    """The generic template (half here): Duplicate, Max, Min on the tile."""

    dtype = "half"

    def Init(self, x, clip_value_min, clip_value_max, y, smallCoreDataNum, bigCoreDataNum, bigCoreLoopNum,
             smallCoreLoopNum, ubPartDataNum, smallCoreTailDataNum, bigCoreTailDataNum, tailBlockNum, pipeIn,
             isExistBigCore):
        coreNum = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * aj.GetBlockIdx()
        self.ubPartDataNum = ubPartDataNum
        if isExistBigCore:
            if coreNum < tailBlockNum:
                self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, bigCoreLoopNum, bigCoreTailDataNum
            else:
                self.coreDataNum, self.tileNum = smallCoreDataNum, smallCoreLoopNum
                self.tailDataNum = smallCoreTailDataNum
                globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (aj.GetBlockIdx() - tailBlockNum)
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            globalBufferIndex = smallCoreDataNum * aj.GetBlockIdx()
        self.Gm_x, self.Gm_y = aj.GlobalTensor(), aj.GlobalTensor()
        self.Gm_x.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.Gm_y.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        self.pipe = pipeIn
        self.InitBuffers()
        self.Gm_clip_value_min, self.Gm_clip_value_max = aj.GlobalTensor(), aj.GlobalTensor()
        self.Gm_clip_value_min.SetGlobalBuffer(clip_value_min, 1)
        self.Gm_clip_value_max.SetGlobalBuffer(clip_value_max, 1)
        self.ReadBounds()

    def InitBuffers(self):
        size = self.ubPartDataNum * 2
        self.Q_x, self.Q_y = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM), aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.Q_min, self.Q_max = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        self.pipe.InitBuffer(self.Q_x, BUFFER_NUM, size)
        self.pipe.InitBuffer(self.Q_min, size)
        self.pipe.InitBuffer(self.Q_max, size)
        self.pipe.InitBuffer(self.Q_y, BUFFER_NUM, size)

    def ReadBounds(self):
        self.clip_value_min = self.Gm_clip_value_min.GetValue(0)
        self.clip_value_max = self.Gm_clip_value_max.GetValue(0)

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
        x = self.Q_x.AllocTensor(self.dtype)
        aj.DataCopy(x, self.Gm_x[progress * self.ubPartDataNum], self.processDataNum)
        self.Q_x.EnQue(x)

    def Compute(self, progress):
        n = self.processDataNum
        x = self.Q_x.DeQue(self.dtype)
        y = self.Q_y.AllocTensor(self.dtype)
        lo, hi = self.Q_min.Get(self.dtype), self.Q_max.Get(self.dtype)
        aj.Duplicate(lo, self.clip_value_min, n)
        aj.Duplicate(hi, self.clip_value_max, n)
        aj.Max(y, x, lo, n)
        aj.Min(y, y, hi, n)
        self.Q_x.FreeTensor(x)
        self.Q_y.EnQue(y)

    def CopyOut(self, progress):
        y = self.Q_y.DeQue(self.dtype)
        aj.DataCopy(self.Gm_y[progress * self.ubPartDataNum], y, self.processDataNum)
        self.Q_y.FreeTensor(y)


class KernelClipByValueV2Bf16(KernelClipByValueV2):
    """The bfloat16 specialisation: float TBufs, Cast in and out, the bounds through ToFloat."""

    dtype = "bfloat16"

    def InitBuffers(self):
        part = self.ubPartDataNum
        self.Q_x_fp32, self.Q_min_fp32, self.Q_max_fp32, self.Q_y_fp32 = (aj.TBuf(aj.TPosition.VECCALC)
                                                                          for _ in range(4))
        self.Q_x, self.Q_y = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM), aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        for buf in (self.Q_x_fp32, self.Q_min_fp32, self.Q_max_fp32, self.Q_y_fp32):
            self.pipe.InitBuffer(buf, part * 4)
        self.pipe.InitBuffer(self.Q_x, BUFFER_NUM, part * 2)
        self.pipe.InitBuffer(self.Q_y, BUFFER_NUM, part * 2)

    def ReadBounds(self):
        self.clip_value_min = aj.ToFloat(self.Gm_clip_value_min.GetValue(0))
        self.clip_value_max = aj.ToFloat(self.Gm_clip_value_max.GetValue(0))

    def Compute(self, progress):
        n = self.processDataNum
        x_bf16 = self.Q_x.DeQue("bfloat16")
        y_bf16 = self.Q_y.AllocTensor("bfloat16")
        x_fp32, y_fp32 = self.Q_x_fp32.Get("float"), self.Q_y_fp32.Get("float")
        aj.Cast(x_fp32, x_bf16, aj.RoundMode.CAST_NONE, n)
        lo, hi = self.Q_min_fp32.Get("float"), self.Q_max_fp32.Get("float")
        aj.Duplicate(lo, self.clip_value_min, n)
        aj.Duplicate(hi, self.clip_value_max, n)
        aj.Max(y_fp32, x_fp32, lo, n)
        aj.Min(y_fp32, y_fp32, hi, n)
        aj.Cast(y_bf16, y_fp32, aj.RoundMode.CAST_RINT, n)
        self.Q_x.FreeTensor(x_bf16)
        self.Q_y.EnQue(y_bf16)


def clip_by_value_v2(x, clip_value_min, clip_value_max, y, tiling_key, fields, kernel_class):
    pipe = aj.TPipe()
    op = kernel_class()
    op.Init(x, clip_value_min, clip_value_max, y, pipeIn=pipe, isExistBigCore=tiling_key == 1, **fields)
    op.Process()


def _make_inputs(np_dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = (rng.standard_normal(size) * 4).astype(np_dtype)
        x[:5] = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf])[:min(5, size)]
        return {"x": x, "clip_value_min": np.array([-2.5], np_dtype), "clip_value_max": np.array([3.0], np_dtype)}
    return make_inputs


def _run(dtype, kernel_class):
    def run(device, inputs):
        x = inputs["x"]
        padded = -(-x.size * 2 // BLOCK_SIZE) * BLOCK_SIZE // 2   # GM rounded to 32 bytes, as the device allocates
        gm_x = np.zeros(padded, x.dtype)
        gm_x[:x.size] = x
        gm_y = np.zeros(padded, x.dtype)
        block_dim, key, fields = tiling(device, x.size, dtype)
        aj.launch(clip_by_value_v2, block_dim, device, gm_x, inputs["clip_value_min"], inputs["clip_value_max"],
                  gm_y, key, fields, kernel_class)
        return {"y": gm_y[:x.size]}
    return run


def _expected(device, inputs):
    from ascend_jit.reference import elementwise as ref
    env = ref.Env(device, sat_half=aj.Core(device).half_saturating)
    lane = "half" if inputs["x"].dtype == np.float16 else "float"   # the bfloat16 kernel clips in float
    x = inputs["x"].astype(np.float64)
    lo, hi = float(inputs["clip_value_min"][0]), float(inputs["clip_value_max"][0])
    y = ref.min_(lane, env, ref.max_(lane, env, x, lo), hi)
    return {"y": y.astype(inputs["x"].dtype)}


_SOURCE = "Hayden727/cann-ops@53cce04d src/math/clip_by_value_v2/op_kernel/clip_by_value_v2.cpp"
KERNELS = [
    KernelSpec("clip_by_value", "ClipByValueV2 over halves: big/small cores, double-buffered tiles with a tail, "
               "bounds by GlobalTensor.GetValue, Duplicate/Max/Min", _make_inputs(np.float16),
               _run("half", KernelClipByValueV2), _expected, default_size=7 * 2045, source=_SOURCE,
               size_rule="any positive size", size_ok=lambda n: n > 0),
    KernelSpec("clip_by_value_bf16", "ClipByValueV2's bfloat16 specialisation: Cast to float and back (CAST_RINT), "
               "the bounds through ToFloat", _make_inputs(np.dtype("bfloat16").type),
               _run("bfloat16", KernelClipByValueV2Bf16), _expected, default_size=7 * 2045,
               devices=("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2"), source=_SOURCE,
               size_rule="any positive size", size_ok=lambda n: n > 0),
]
