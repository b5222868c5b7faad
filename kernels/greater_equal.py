"""GreaterEqual from a CANN operator collection: y = (x1 >= x2) as int8, computed arithmetically on the vector unit
(no Compare): t = |min(|x1 - max(x2, x1)|, tiny) * big - 1|, which is 1 where x1 >= x2 and 0 where x1 < x2, then
narrowed to int8 by Casts.

Ported (structure and instruction sequence; written in our own words) from
Hayden727/cann-ops @ 04eebecc6ab0fe76c35a4e4428c5c198f7908a21, src/math/greater_equal/op_kernel/greater_equal.cpp
(`GreaterEqualK::KernelGreaterEqual<half>` and `<float>`: ComputeHalf / ComputeFloat, CopyIn / CopyInPad / Compute /
CopyOut / CopyOutPad) with the host tiling of src/math/greater_equal/op_host/greater_equal.cpp (`TilingFunc`,
`ProcessGreaterEqual`): padMax = UB / 16 elements rounded down to 64, per-core blocks of whole 32-element runs, tiles of
padTemp (a divisor of the block between padMax / 2 and padMax) or padMax, the last core's last tile short.

As in the original: depth-2 queues for x1, x2 and y and four VECCALC TBufs; every Compute covers a whole tile of
`tile_cache` elements, also for the last core's short last tile (its lanes past the copied data hold what the buffer
held before and are not copied out); the last core copies its last tile in and out rounded up to 32 elements. half:
Max, Sub, Abs, Mins(2**-24), Muls(4096) twice, Adds(-1), Abs, Cast half -> int8 CAST_NONE. float: Max, Sub, Abs,
Mins(FLT_MIN), Muls(2**50) twice, Muls(2**26), Adds(-1), Abs, Cast float -> half and half -> int8, CAST_NONE.
The host side pads GM to the 32-element multiple the last tile reads and writes (device allocations are so rounded).

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's AIV count); the tiling follows
the original otherwise, from the device's UB size. The original's SetGlobalBuffer gives each core a window of
blockLength elements, and its last tile's copies, rounded up to 32 elements, reach past it (the device does not
check the window); the emulator keeps a GlobalTensor inside its window (docs/decisions.md "Scaffolding"), so the
port's windows include the rounding (the same bytes).

Devices: the original's configs are the 310P, 310B and A2 (910B); Mins is not offered on the 910 and the 950's Cast
half -> int8 takes no CAST_NONE (SPEC-2 7.2, D72): the kernel runs on the A3, A2, 310B and 310P.

One more deviation: at sizes that leave the last core's last tile short (the gallery's tail, 4173; the default, 8 x
544 elements, gives every core whole tiles) the original computes the whole tile on lanes it never copied in
(uninitialised UB at the queue buffers' first use; their results are not copied out). The port zeroes x1's and x2's
lanes past the copy with a Duplicate before that tile's copy-in, so the sanitizer has nothing to report; the copied
lanes' results are the original's.

Fidelity: BIT-EXACT (Max, Sub, Abs, Mins, Muls, Adds, Cast are BIT-EXACT, SPEC-2 0.3). The expectation composes the
same instructions from the package's reference model (ascend_jit.reference.elementwise, with the device's half
saturation) and the Casts' RINT, NaN -> 0 (D45). It is the original's arithmetic, not x1 >= x2: for float, 0 >= the
smallest subnormal comes out 1 (the scaled difference, 2**-23, is lost in the final -1 and RINT), as on the device.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8
MIN_ACCURACY = {"half": 2.0 ** -24, "float": 1.1754943508222875e-38}
MULS = {"half": (4096.0, 4096.0), "float": (2.0 ** 50, 2.0 ** 50, 2.0 ** 26)}


def tiling(device, total, dtype):
    """TilingFunc with ProcessGreater32B / ProcessGreaterEqual: (block_dim, tiling data)."""
    size = 2 if dtype == "half" else 4
    pad32 = BLOCK_SIZE
    pad_max = aj.get_device(device).ub_bytes // 16 // size // (2 * BLOCK_SIZE) * (2 * BLOCK_SIZE)
    core_num = CORE_NUM
    if total < pad32 * core_num:
        core_num = -(-total // pad32)
    t = dict(totalLength=total)
    if total < pad32:
        t.update(blockLengthMean=pad32, blockLengthEnd=total, tileNumMean=1, tileNumEnd=1, tileLengthMean=total,
                 tileLengthEnd=total)
        return core_num, t
    real_total = -(-total // (pad32 * core_num)) * (pad32 * core_num)
    max_block = real_total // core_num
    if real_total - total > max_block:
        max_block = total // core_num
    if max_block > pad_max:
        pad_temp = 0
        for i in range(pad_max // 2, pad_max + 1, pad32):
            pad_temp = i if max_block % i == 0 else pad_temp
        if pad_temp:
            mean = max_block
            end = total - mean * (core_num - 1)
            tiles = mean // pad_temp
            t.update(blockLengthMean=mean, blockLengthEnd=end, tileNumMean=tiles, tileNumEnd=tiles,
                     tileLengthMean=pad_temp, tileLengthEnd=end - pad_temp * (tiles - 1))
        else:
            mean = max_block - max_block % pad_max
            end = total - mean * (core_num - 1)
            tiles_end = 1 if pad_max >= end else end // pad_max + (end % pad_max != 0)
            t.update(blockLengthMean=mean, blockLengthEnd=end, tileNumMean=mean // pad_max, tileNumEnd=tiles_end,
                     tileLengthMean=pad_max, tileLengthEnd=end - pad_max * (tiles_end - 1))
    elif max_block >= pad32:
        mean = max_block - max_block % pad32
        end = total - mean * (core_num - 1)
        tiles_end = end // pad32 + 1 if end % pad32 else end // mean
        if mean >= end:
            tiles_end = 1
        t.update(blockLengthMean=mean, blockLengthEnd=end, tileNumMean=1, tileNumEnd=tiles_end, tileLengthMean=mean,
                 tileLengthEnd=end - mean * (tiles_end - 1))
    else:
        end = total - pad32 * (core_num - 1)
        t.update(blockLengthMean=pad32, blockLengthEnd=end, tileNumMean=1, tileNumEnd=1, tileLengthMean=pad32,
                 tileLengthEnd=end)
    return core_num, t


class KernelGreaterEqual:
    def __init__(self, dtype):
        self.dtype = dtype

    def Init(self, x1, x2, y, tiling_data):
        self.ResolveTiling(tiling_data)
        offset = self.block_offset * aj.GetBlockIdx()
        # the window the last tile reaches: its copies are rounded up to 32 elements (see the docstring)
        window = self.block_length + (self.padded_end() - self.tile_length_end)
        self.x1_gm, self.x2_gm, self.y_gm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.x1_gm.SetGlobalBuffer(x1[offset:], window)
        self.x2_gm.SetGlobalBuffer(x2[offset:], window)
        self.y_gm.SetGlobalBuffer(y[offset:], window)
        size = 2 if self.dtype == "half" else 4
        self.pipe = aj.TPipe()
        self.x1_inque, self.x2_inque = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM), aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.y_outque = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.calc_buf_1, self.calc_buf_2 = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        self.calc_buf_3, self.calc_buf_4 = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        cache = self.tile_cache
        self.pipe.InitBuffer(self.x1_inque, BUFFER_NUM, cache * size)
        self.pipe.InitBuffer(self.x2_inque, BUFFER_NUM, cache * size)
        self.pipe.InitBuffer(self.y_outque, BUFFER_NUM, max(cache, BLOCK_SIZE))
        self.pipe.InitBuffer(self.calc_buf_1, cache * size)
        self.pipe.InitBuffer(self.calc_buf_2, max(cache * 2, BLOCK_SIZE))
        self.pipe.InitBuffer(self.calc_buf_3, max(cache * 2, BLOCK_SIZE))
        self.pipe.InitBuffer(self.calc_buf_4, max(cache * 4, BLOCK_SIZE))

    def ResolveTiling(self, t):
        last = aj.GetBlockIdx() == aj.GetBlockNum() - 1
        self.total_length = t["totalLength"]
        self.block_length = t["blockLengthEnd"] if last else t["blockLengthMean"]
        self.tile_num = t["tileNumEnd"] if last else t["tileNumMean"]
        self.block_offset = t["blockLengthMean"]
        self.tile_cache = t["tileLengthMean"]
        self.tile_length_end = t["tileLengthEnd"]
        if self.total_length < BLOCK_SIZE:
            self.block_offset, self.tile_cache, self.block_length = 0, BLOCK_SIZE, BLOCK_SIZE

    def Process(self):
        if self.total_length <= BLOCK_SIZE // (2 if self.dtype == "half" else 4):
            self.CopyIn(0, self.padded_end())
            self.Compute()
            self.CopyOut(0, self.padded_end())
            return
        last_block = aj.GetBlockIdx() == aj.GetBlockNum() - 1
        for i in range(self.tile_num - 1):
            self.CopyIn(i, self.tile_cache)
            self.Compute()
            self.CopyOut(i, self.tile_cache)
        n = self.padded_end() if last_block else self.tile_cache   # CopyInPad / CopyOutPad on the last core
        self.CopyIn(self.tile_num - 1, n)
        self.Compute()
        self.CopyOut(self.tile_num - 1, n)

    def padded_end(self):
        return -(-self.tile_length_end // BLOCK_SIZE) * BLOCK_SIZE

    def CopyIn(self, progress, count):
        x1_local, x2_local = self.x1_inque.AllocTensor(self.dtype), self.x2_inque.AllocTensor(self.dtype)
        if count < self.tile_cache:
            # not in the original (see the docstring): Compute covers the whole tile; the zeroed lanes lie past the
            # copy, so the Duplicates and DataCopies need no ordering, and Compute follows on the Duplicates' pipe
            zero = np.float16(0) if self.dtype == "half" else np.float32(0)
            for local in (x1_local, x2_local):
                aj.Duplicate(local[count], zero, self.tile_cache - count)
        aj.DataCopy(x1_local, self.x1_gm[progress * self.tile_cache], count)
        aj.DataCopy(x2_local, self.x2_gm[progress * self.tile_cache], count)
        self.x1_inque.EnQue(x1_local)
        self.x2_inque.EnQue(x2_local)

    def Compute(self):
        n, d = self.tile_cache, self.dtype
        x1_local, x2_local = self.x1_inque.DeQue(d), self.x2_inque.DeQue(d)
        y_local = self.y_outque.AllocTensor("int8")
        y_compute = self.calc_buf_1.Get(d)
        scalar = np.float16 if d == "half" else np.float32
        aj.Max(y_compute, x2_local, x1_local, n)
        aj.Sub(y_compute, x1_local, y_compute, n)
        aj.Abs(y_compute, y_compute, n)
        aj.Mins(y_compute, y_compute, scalar(MIN_ACCURACY[d]), n)
        for factor in MULS[d]:
            aj.Muls(y_compute, y_compute, scalar(factor), n)
        aj.Adds(y_compute, y_compute, scalar(-1.0), n)
        aj.Abs(y_compute, y_compute, n)
        if d == "half":
            aj.Cast(y_local, y_compute, aj.RoundMode.CAST_NONE, n)
        else:
            y_fp16 = self.calc_buf_2.Get("half")
            aj.Cast(y_fp16, y_compute, aj.RoundMode.CAST_NONE, n)
            aj.Cast(y_local, y_fp16, aj.RoundMode.CAST_NONE, n)
        self.y_outque.EnQue(y_local)
        self.x1_inque.FreeTensor(x1_local)
        self.x2_inque.FreeTensor(x2_local)

    def CopyOut(self, progress, count):
        y_local = self.y_outque.DeQue("int8")
        aj.DataCopy(self.y_gm[progress * self.tile_cache], y_local, count)
        self.y_outque.FreeTensor(y_local)


def greater_equal(x1, x2, y, tiling_data, dtype):
    op = KernelGreaterEqual(dtype)
    op.Init(x1, x2, y, tiling_data)
    op.Process()


def _make_inputs(np_dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x1 = (rng.standard_normal(size) * 4).astype(np_dtype)
        x2 = (rng.standard_normal(size) * 4).astype(np_dtype)
        x2[::3] = x1[::3]                                 # equal pairs
        tiny = np.finfo(np_dtype).smallest_subnormal
        special = [(0.0, -0.0), (-0.0, 0.0), (tiny, 0.0), (0.0, tiny), (np.inf, 1.0), (1.0, np.inf),
                   (-np.inf, -np.inf), (np.nan, 1.0)]
        for i, (a, b) in enumerate(special[:size]):
            x1[i], x2[i] = a, b
        return {"x1": x1, "x2": x2}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x1, x2 = inputs["x1"], inputs["x2"]
        padded = -(-x1.size // BLOCK_SIZE) * BLOCK_SIZE + BLOCK_SIZE   # device allocations are rounded up
        gm = [np.zeros(padded, x1.dtype) for _ in range(2)]
        gm[0][:x1.size], gm[1][:x1.size] = x1, x2
        y = np.zeros(padded, np.int8)
        block_dim, t = tiling(device, x1.size, dtype)
        aj.launch(greater_equal, block_dim, device, gm[0], gm[1], y, t, dtype)
        return {"y": y[:x1.size]}
    return run


def _expected(dtype):
    def expected(device, inputs):
        from ascend_jit.reference import elementwise as ref
        env = ref.Env(device, sat_half=aj.Core(device).half_saturating)
        a, b = inputs["x1"].astype(np.float64), inputs["x2"].astype(np.float64)
        with np.errstate(invalid="ignore"):          # inf - inf: NaN, as on the device
            t = ref.abs_(dtype, env, ref.sub(dtype, env, a, ref.max_(dtype, env, b, a)))
        t = ref.min_(dtype, env, t, MIN_ACCURACY[dtype])
        for factor in MULS[dtype]:
            t = ref.mul(dtype, env, t, factor)
        t = ref.abs_(dtype, env, ref.add(dtype, env, t, -1.0))
        if dtype == "float":                         # Cast float -> half CAST_NONE (= RINT, D45)
            t = t.astype(np.float16).astype(np.float64)   # t holds float32 values: one RNE rounding
        # Cast half -> int8 CAST_NONE (= RINT); t lies in [0, 1] or is NaN (a NaN input), which gives 0 (D45)
        return {"y": np.where(np.isnan(t), 0, np.rint(t)).astype(np.int8)}
    return expected


_SOURCE = "Hayden727/cann-ops@04eebecc src/math/greater_equal/op_kernel/greater_equal.cpp"
DEVICES = ("atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")
KERNELS = [
    KernelSpec(f"greater_equal{suffix}", f"GreaterEqual over {dtype}s by arithmetic (Max, Sub, Abs, Mins, Muls, Adds, "
               "Abs, Cast to int8): 8 cores, double-buffered tiles, the last core's tile rounded to 32 elements",
               _make_inputs(np.float16 if dtype == "half" else np.float32), _run(dtype), _expected(dtype),
               default_size=8 * 544, devices=DEVICES, source=_SOURCE, size_rule="any positive size",
               size_ok=lambda n: n > 0)
    for suffix, dtype in (("", "half"), ("_float", "float"))
]
