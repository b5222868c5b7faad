"""Log from a CANN operator collection: y = base_factor * ln(scale * x + shift) (base_factor = 1 / ln(base), or 1 for
the natural log), big and small cores, double-buffered tiles with a tail tile per core, with the advanced API's `Log`
ported beside it.

Ported (structure and instruction sequence; written in our own words) from
Hayden727/cann-ops @ fd1e257cee42a8ba666e864860cbe5f37100a2a3, src/contrib/math/log/op_kernel/log.cpp (`KernelLog<T, T,
IsExistBigCore>`: Muls by scale, Adds shift, Log, Muls by the base factor; half and float) with the host tiling of
src/contrib/math/log/op_host/log.cpp (UB in 2 parts of two buffers, the big/small-core split of
ascend_jit.kernels._base.big_small_core_tiling; base -1 -> factor 1, base > 0 and != 1 -> 1 / ln(base) in float32),
and the advanced API's Log from mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7,
impl/adv_api/detail/math/log/log_common_impl.h (`LogImpl` for arch 2201/2002: counter mode, SetVectorMask<T,
COUNTER>(0, calCount), Ln<T, false> with MASK_PLACEHOLDER, then SetMaskNorm and a full normal-mode mask).

Deviation: the core count is the launch's 8 (GetCoreNum would give the device's count).

Devices: the original's config is the A2 (910B); the advanced API's Memory-API Log is compiled for the A2/A3 and the
310P; the 950 builds it from a Reg-API VF whose Ln the emulator's Reg API does not offer (SPEC-2 11), and the 910 and
310B have no implementation: the kernel runs on the A3, A2 and 310P.

Fidelity: MODELLED (Ln is MODELLED, SPEC-2 0.3). Checked against the float64 formula base_factor * ln(scale x +
shift) for inputs with scale x + shift in [0.5, 50] (away from ln's zero at 1 by at least 1/8, so the formula's
condition number stays below 10): the float32 Muls and Adds round once each (their errors, amplified by at most 10,
and Ln's and the last Muls' roundings: below 2e-6 relative), the half variant's inputs and every stage round to half
(2**-11 each, the same amplification): 1e-2.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8
BASE, SCALE, SHIFT = 2.0, 0.5, 1.0   # the operator attributes of the port's runs: log2(0.5 x + 1)
DEVICES = ("atlas-a3", "atlas-a2", "atlas-inference-aicore")


def Log(dst, src, cal_count):
    """The advanced API's `Log<T>(dst, src, calCount)` (log_common_impl.h, arch 2201/2002): Ln in counter mode."""
    aj.SetMaskCount()
    aj.SetVectorMask(0, cal_count, dtype=dst.dtype.name, mode=aj.MaskMode.COUNTER)
    aj.Ln(dst, src, aj.MASK_PLACEHOLDER, 1, aj.UnaryRepeatParams(), is_set_mask=False)
    aj.SetMaskNorm()
    aj.SetVectorMask(2 ** 64 - 1, 2 ** 64 - 1, dtype="half")       # FULL_MASK, FULL_MASK


def tiling(device, total, dtype):
    """TilingFunc: (block_dim, tiling key, the tiling data fields)."""
    size = 2 if dtype == "half" else 4
    ub_part_data_num = aj.get_device(device).ub_bytes // 2 // BUFFER_NUM // BLOCK_SIZE * BLOCK_SIZE // size
    core_num = 1 if ub_part_data_num >= total else min(CORE_NUM, -(-total * size // BLOCK_SIZE))
    small, big, tail_block_num = big_small_core_tiling(total, size, ub_part_data_num, core_num)
    base = 1.0 if BASE == -1.0 or not (BASE > 0 and BASE != 1) else float(np.float32(1) / np.log(np.float32(BASE)))
    fields = dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num, bigCoreLoopNum=big.tile_num,
                  smallCoreLoopNum=small.tile_num, ubPartDataNum=ub_part_data_num,
                  smallCoreTailDataNum=small.tail_data_num, bigCoreTailDataNum=big.tail_data_num,
                  tailBlockNum=tail_block_num, base=base, scale=SCALE, shift=SHIFT)
    return core_num, 1 if tail_block_num else 0, fields


class KernelLog:
    def __init__(self, dtype, is_exist_big_core):
        self.dtype, self.isExistBigCore = dtype, is_exist_big_core

    def Init(self, x, y, smallCoreDataNum, bigCoreDataNum, bigCoreLoopNum, smallCoreLoopNum, ubPartDataNum,
             smallCoreTailDataNum, bigCoreTailDataNum, tailBlockNum, base, scale, shift):
        coreNum = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * aj.GetBlockIdx()
        self.ubPartDataNum = ubPartDataNum
        if self.isExistBigCore:
            if coreNum < tailBlockNum:
                self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, bigCoreLoopNum, bigCoreTailDataNum
            else:
                self.coreDataNum, self.tileNum = smallCoreDataNum, smallCoreLoopNum
                self.tailDataNum = smallCoreTailDataNum
                globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (aj.GetBlockIdx() - tailBlockNum)
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            globalBufferIndex = smallCoreDataNum * aj.GetBlockIdx()
        self.base, self.shift, self.scale = np.float32(base), np.float32(shift), np.float32(scale)
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        size = 2 if self.dtype == "half" else 4
        self.pipe = aj.TPipe()
        self.inQueueX, self.outQueueY = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM), aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, ubPartDataNum * size)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, ubPartDataNum * size)

    def Process(self):
        self.processDataNum = self.ubPartDataNum
        for i in range(self.tileNum - 1):
            self.CopyIn(i)
            self.Compute()
            self.CopyOut(i)
        self.processDataNum = self.tailDataNum
        self.CopyIn(self.tileNum - 1)
        self.Compute()
        self.CopyOut(self.tileNum - 1)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.dtype)
        aj.DataCopy(xLocal, self.xGm[progress * self.ubPartDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def Compute(self):
        n, T = self.processDataNum, (np.float16 if self.dtype == "half" else np.float32)
        xLocal = self.inQueueX.DeQue(self.dtype)
        yLocal = self.outQueueY.AllocTensor(self.dtype)
        aj.Muls(yLocal, xLocal, T(self.scale), n)        # (TYPE_X)this->scale
        aj.Adds(yLocal, yLocal, T(self.shift), n)
        Log(yLocal, yLocal, n)
        aj.Muls(yLocal, yLocal, T(self.base), n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.dtype)
        aj.DataCopy(self.yGm[progress * self.ubPartDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


def log_kernel(x, y, tiling_key, fields, dtype):
    op = KernelLog(dtype, tiling_key == 1)
    op.Init(x, y, **fields)
    op.Process()


def _make_inputs(np_dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        # scale x + shift in [0.5, 50], at least 1/8 away from 1 (ln's zero)
        v = rng.uniform(0.5, 50, size)
        v = np.where(np.abs(v - 1) < 0.125, v + 0.25, v)
        return {"x": ((v - SHIFT) / SCALE).astype(np_dtype)}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        padded = -(-x.size * x.itemsize // BLOCK_SIZE) * BLOCK_SIZE // x.itemsize   # GM rounded to 32 bytes
        gm_x, gm_y = np.ones(padded, x.dtype), np.zeros(padded, x.dtype)
        gm_x[:x.size] = x
        block_dim, key, fields = tiling(device, x.size, dtype)
        aj.launch(log_kernel, block_dim, device, gm_x, gm_y, key, fields, dtype)
        return {"y": gm_y[:x.size]}
    return run


def expected(device, inputs):
    return {"y": np.log(SCALE * inputs["x"].astype(np.float64) + SHIFT) / np.log(BASE)}


_SOURCE = "Hayden727/cann-ops@fd1e257c src/contrib/math/log/op_kernel/log.cpp"
KERNELS = [
    KernelSpec("log", "Log over floats: Muls, Adds, the advanced API's Log (counter-mode Ln), Muls; big/small cores, "
               "double-buffered tiles with a tail", _make_inputs(np.float32), _run("float"), expected,
               default_size=8 * 4096, devices=DEVICES, tolerance=2e-6, source=_SOURCE,
               size_rule="any positive size", size_ok=lambda n: n > 0),
    KernelSpec("log_half", "Log over halves (the same sequence in half)", _make_inputs(np.float16), _run("half"),
               expected, default_size=8 * 4096, devices=DEVICES, tolerance=1e-2, source=_SOURCE,
               size_rule="any positive size", size_ok=lambda n: n > 0),
]
