"""Arange from the CANN math operators: out[i] = start + i * step for i < N (N from the output's shape). Each core
builds its first tile with one ArithProgression from start + coreOffset * step, and every later tile is that ramp
plus an accumulator that grows by unitNum * step per tile (two Adds a tile); the last tile leaves by DataCopyPad when
its real element count is not whole 32-byte blocks.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/arange/op_kernel/arange.h: the float
instantiation `KernelArange` (schMode 1: start and step read by `GetValue(0)` from float GM, the scalar base
`start + float(coreOffset) * step`, `ArithProgression<float>(calc_init, baseStart, step, setupNum)`, Duplicate of 0
and of `unitNum * step`, per tile `Add(out, calc_init, calc_temp)` and `Add(calc_temp, calc_temp, blockStep)` over
the count rounded up to whole blocks, `EnQue<float>` / `DeQue<float>`, `ArangeCopyOutImpl`: DataCopy when the real
count is whole blocks, else DataCopyPad of the real bytes) and the int32 instantiation of `KernelArange_Cast`
(`work_init_int32`: the same chain in int32, the base `start + coreOffset * step` in int64 then int32); host tiling
of experimental/math/arange/op_host/arange_tiling.cpp (`CalcUnitNum`: UB / 10 rounded up to 32 bytes, in floats;
`CalcCoreSplitAndFillTiling`: 32-byte blocks spread over the cores, the first `totalBlocks % coreNum` ("former")
cores one block more, each core's length cut into unitNum tiles and a tail).

Deviations: the core count is the launch's 8 (GetCoreNum would give the device's). The host pads GM to 32 bytes, as
device allocations are (the last core's SetGlobalBuffer window is its whole-block length). start and step are
one-element GM tensors; `end` is not passed (the kernel never reads it: N is the output's size). The half, bfloat16,
int8/uint8/int16 and int64 instantiations (float chain, then Cast out, half/bf16 start read through a 16-lane Cast)
are not ported here.

Not portable: a negative step. The original passes it to ArithProgression, whose devkit page requires
diffValue >= 0 (`Arange-94.md`); the emulator refuses it (ParameterError naming diff_value, nothing written), so
the inputs keep step >= 0.

Devices: ArithProgression (950, A2, A3, 310P) and DataCopyPad (950, A2, A3, 310B): the 950, A3 and A2.

Fidelity: BIT-EXACT (ArithProgression, Duplicate, Add, DataCopy(Pad) are BIT-EXACT; float Add by the reference's
own lanes); checked bit for bit against the reference model's ArithProgression and Add composed as the kernel
composes them, with the host's float32 / int64 scalar arithmetic.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
f32 = np.float32


def align_up_32b_elements(count, itemsize):
    return -(-count * itemsize // BLOCK_SIZE) * (BLOCK_SIZE // itemsize)


def int32_cast(v):
    """static_cast<int32_t> of an int64 (modular)."""
    return (v + 2**31) % 2**32 - 2**31


def tiling(device, total, itemsize):
    """ArangeTilingFunc: (block_dim, tiling data)."""
    ub_unit_size = -(-(aj.get_device(device).ub_bytes // 10) // BLOCK_SIZE) * BLOCK_SIZE
    unit_num = ub_unit_size // max(itemsize, 4)
    align_num = BLOCK_SIZE // itemsize
    total_blocks = max(-(-total // align_num), 1)
    core_num = max(min(CORE_NUM, total_blocks), 1)
    former_num = total_blocks % core_num
    former_length = -(-total_blocks // core_num) * align_num if former_num else 0
    tail_length = total_blocks // core_num * align_num

    def unit_loops(length):
        loops, tail = divmod(length, unit_num)
        return loops + (tail > 0), tail

    former_loops, former_tail = unit_loops(former_length) if former_num else (0, 0)
    tail_loops, tail_tail = unit_loops(tail_length)
    return core_num, dict(totalNum=total, unitNum=unit_num, formerNum=former_num, formerLength=former_length,
                          tailLength=tail_length, formerUnitLoops=former_loops, formerTailNum=former_tail,
                          tailUnitLoops=tail_loops, tailTailNum=tail_tail)


def core_params(t, coreId):
    """ParseCoreParams: (unitLoops, tailNum, coreOffset, coreLen) of this core."""
    if coreId < t["formerNum"]:
        return t["formerUnitLoops"], t["formerTailNum"], t["formerLength"] * coreId, t["formerLength"]
    return (t["tailUnitLoops"], t["tailTailNum"],
            t["formerLength"] * t["formerNum"] + t["tailLength"] * (coreId - t["formerNum"]), t["tailLength"])


def arange_copy_out(outGm, outLocal, globalOffset, localOffset, num, totalNum):
    """ArangeCopyOutImpl: the real element count (the output's end caps it); whole blocks by DataCopy, else the
    real bytes by DataCopyPad."""
    realNum = min(num, totalNum - globalOffset) if globalOffset < totalNum else 0
    if realNum == 0:
        return
    if align_up_32b_elements(realNum, outLocal.dtype.size) == realNum:
        aj.DataCopy(outGm[localOffset], outLocal, realNum)
    else:
        aj.DataCopyPad(outGm[localOffset], outLocal, aj.DataCopyExtParams(1, realNum * outLocal.dtype.size, 0, 0))


class KernelArange:
    """KernelArange (float) and the int32 path of KernelArange_Cast: the same chain in T."""

    def __init__(self, T):
        self.T = T

    def Init(self, start, step, out, tilingData):
        assert aj.GetBlockNum() != 0
        self.unitNum, self.totalNum = tilingData["unitNum"], tilingData["totalNum"]
        self.unitLoops, self.tailNum, self.coreOffset, self.coreLen = core_params(tilingData, aj.GetBlockIdx())
        self.startGm, self.stepGm, self.outGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.startGm.SetGlobalBuffer(start)
        self.stepGm.SetGlobalBuffer(step)
        self.outGm.SetGlobalBuffer(out[self.coreOffset:], self.coreLen)
        self.pipe = aj.TPipe()
        self.outQueue = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.temp1, self.temp2, self.temp3 = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(3))
        self.pipe.InitBuffer(self.outQueue, BUFFER_NUM, self.unitNum * 4)
        for buf in (self.temp1, self.temp2, self.temp3):
            self.pipe.InitBuffer(buf, self.unitNum * 4)

    def work_init(self):
        start, step = self.startGm.GetValue(0), self.stepGm.GetValue(0)
        self.calc_init = self.temp1.Get(self.T)
        self.blockStep = self.temp2.Get(self.T)
        self.calc_temp = self.temp3.Get(self.T)
        if self.T == "float":  # two float32 roundings on the scalar unit: the product, then the sum
            baseStart = f32(f32(start) + f32(self.coreOffset) * f32(step))
            blockStepValue = f32(f32(self.unitNum) * f32(step))
        else:  # int64 arithmetic, then int32 (the output's range holds every value)
            baseStart = int32_cast(int(start) + self.coreOffset * int(step))
            blockStepValue = int32_cast(self.unitNum * int(step))
        setupNum = self.unitNum
        if self.coreLen < self.unitNum:
            setupNum = min(align_up_32b_elements(self.coreLen, 4), self.unitNum)
        aj.ArithProgression(self.calc_init, baseStart, step, setupNum)
        aj.Duplicate(self.calc_temp, 0.0 if self.T == "float" else 0, setupNum)
        aj.Duplicate(self.blockStep, blockStepValue, setupNum)

    def Process(self):
        if self.coreLen == 0:
            return
        self.work_init()
        for i in range(self.unitLoops):
            num = self.tailNum if i == self.unitLoops - 1 and self.tailNum > 0 else self.unitNum
            self.Compute(i, num)
            self.CopyOut(i, num)

    def Compute(self, iter_, num):
        calc_num = align_up_32b_elements(num, 4)
        outLocal = self.outQueue.AllocTensor(self.T)
        aj.Add(outLocal, self.calc_init, self.calc_temp, calc_num)
        aj.Add(self.calc_temp, self.calc_temp, self.blockStep, calc_num)
        self.outQueue.EnQue(self.T, outLocal)

    def CopyOut(self, iter_, num):
        outLocal = self.outQueue.DeQue(self.T)
        globalOffset = self.coreOffset + iter_ * self.unitNum
        arange_copy_out(self.outGm, outLocal, globalOffset, iter_ * self.unitNum, num, self.totalNum)
        self.outQueue.FreeTensor(outLocal)


def arange(start, step, out, tiling_data, T):
    op = KernelArange(T)
    op.Init(start, step, out, tiling_data)
    op.Process()


def _make_inputs(np_dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if np_dtype == np.float32:
            start, step = rng.uniform(-100, 100), rng.uniform(0, 0.01)
        else:  # every value start + i * step inside int32
            step = int(rng.integers(0, max(1, (2**31 - 1) // (2 * size))))
            start = int(rng.integers(-(2**30), 2**30 - step * size))
        return {"start": np.array([start], np_dtype), "step": np.array([step], np_dtype),
                "out": np.zeros(size, np_dtype)}
    return make_inputs


def _run(T):
    def run(device, inputs):
        n, np_dtype = inputs["out"].size, inputs["out"].dtype
        padded = align_up_32b_elements(n, np_dtype.itemsize)
        start, step, out = np.zeros(8, np_dtype), np.zeros(8, np_dtype), np.zeros(padded, np_dtype)
        start[0], step[0] = inputs["start"][0], inputs["step"][0]
        block_dim, tiling_data = tiling(device, n, np_dtype.itemsize)
        aj.launch(arange, block_dim, device, start, step, out, tiling_data, T)
        assert not out[n:].any(), "a core wrote past the output's end"
        return {"out": out[:n]}
    return run


def _expected(T):
    def expected(device, inputs):
        """The reference model's ArithProgression and Add, composed per core as the kernel composes them."""
        from ascend_jit.reference import elementwise as ref
        from ascend_jit.reference.arith_progression import arith_progression
        env = ref.Env(device=device)
        n, np_dtype = inputs["out"].size, inputs["out"].dtype
        block_dim, t = tiling(device, n, np_dtype.itemsize)
        start, step = inputs["start"][0], inputs["step"][0]
        out = np.zeros(n, np_dtype)

        def vector(values):
            return np.array(values, np.float64) if T == "float" else np.array([int(v) for v in values], object)

        for core in range(block_dim):
            loops, tail, offset, length = core_params(t, core)
            if T == "float":
                base = float(f32(f32(start) + f32(offset) * f32(step)))
                block_step = float(f32(f32(t["unitNum"]) * f32(step)))
                first_value, diff = base, float(step)
            else:
                first_value, diff = int32_cast(int(start) + offset * int(step)), int(step)
                block_step = int32_cast(t["unitNum"] * int(step))
            setup = min(align_up_32b_elements(length, 4), t["unitNum"])
            ramp = vector(arith_progression(T, env, first_value, diff, setup))
            acc = vector([0] * setup)
            for i in range(loops):
                num = tail if i == loops - 1 and tail > 0 else t["unitNum"]
                m = align_up_32b_elements(num, 4)
                tile = np.array(ref.add(T, env, ramp[:m], acc[:m]))
                acc = np.array(ref.add(T, env, acc[:m], vector([block_step] * m)))
                lo = offset + i * t["unitNum"]
                real = min(num, n - lo) if lo < n else 0
                out[lo:lo + real] = tile[:real].astype(np.float64 if T == "float" else np.int64).astype(np_dtype)
        return {"out": out}
    return expected


_SOURCE = "hicann/ops-math@c4193324 experimental/math/arange/op_kernel/arange.h"
KERNELS = [
    KernelSpec("arange", "Arange over float: per core one ArithProgression ramp, two Adds a UB tile (ramp + the "
               "running unitNum * step), the last tile's real bytes by DataCopyPad", _make_inputs(np.float32),
               _run("float"), _expected("float"), default_size=100000, devices=DEVICES, source=_SOURCE),
    KernelSpec("arange_int32", "Arange over int32: the same chain in int32 (KernelArange_Cast's work_init_int32, no "
               "float intermediate)", _make_inputs(np.int32), _run("int32"), _expected("int32"), default_size=100000,
               devices=DEVICES, source=_SOURCE),
]
