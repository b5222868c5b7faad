"""The devkit's Reg reduce_pair example: Reg PairReduceElem SUM over 64 floats a repeat (dst lane i = src lane 2i +
src lane 2i+1 for i < 32, lanes 32..63 zero), each repeat's whole register stored 64 floats apart, so the output
interleaves 32 pair sums and 32 zeros.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
02_reg_vector_compute/reduce_pair/reduce_pair.asc (`PairReduceSumVF<float>`, `Kernel<float>`, `reduce_pair`, one
block, totalLength 256) and scripts/gen_data.py (x uniform in [1, 2); golden the 128 pair sums, which main's
CompareResult reads at output position 64 (i // 32) + i % 32: "每64个元素中只有前32个有效"). The devkit page:
SIMD-API/基础API/Reg矢量计算/归约计算/PairReduceElem.md ("求和后，dst中仅前一半元素为有效数据，后一半填充为0").

The kernel: a LocalMemAllocator's x tile (256 floats) and y tile (512 floats); DataCopy x in; MTE2_V flag; the VF
(per repeat i of DivCeil(totalLength, 64): LoadAlign of x + 64 i, mask = UpdateMask<float>(count), PairReduceElem<SUM>,
StoreAlign of the 64 lanes to y + 64 i under the mask); V_MTE3 flag; DataCopy of repeatTimes x 64 floats of y out;
PipeBarrier<PIPE_ALL>.

Deviations: none.

Sizes: totalLength (the example's 256); any multiple of 64 floats up to 16384 (whole repeats: the copy-out takes
repeatTimes x 64 floats of the y tile, so a short last repeat would copy out y lanes its masked store never wrote,
an uninitialised read; tests/test_port40pc_kernels.py runs a short UpdateMask repeat on its own). The y tile is 2 x
totalLength floats as the original's 512 for 256 (only the first totalLength are used). Devices: ascend950 only
(Reg API; PairReduceElem is 950-only, its page).
Fidelity: BIT-EXACT (one float add a lane, RN; SPEC 7.6).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
SOURCE = ("mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/reduce_pair/"
          "reduce_pair.asc")


def pair_reduce_sum_vf(dstAddr, srcAddr, count, repeatTimes, oneRepeatSize):
    """PairReduceSumVF<float>."""
    srcReg, dstReg = R.RegTensor("float"), R.RegTensor("float")
    for i in range(repeatTimes):
        R.LoadAlign(srcReg, srcAddr, i * oneRepeatSize)
        mask, count = R.UpdateMask("float", count)
        R.PairReduceElem(dstReg, srcReg, mask)                # dst[j] = src[2j] + src[2j + 1], j < 32; the rest 0
        R.StoreAlign(dstAddr, dstReg, mask, i * oneRepeatSize)


PAIR_REDUCE_SUM_VF = R.simd_vf(pair_reduce_sum_vf)


class Kernel:
    """Kernel<float>."""

    def Init(self, x, y, totalLength):
        self.totalLength = totalLength
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x)
        self.yGm.SetGlobalBuffer(y)

    def Process(self):
        oneRepeatSize = aj.GetVecLen() // 4                    # GetVecLen() / sizeof(float)
        repeatTimes = aj.DivCeil(self.totalLength, oneRepeatSize)
        ubAllocator = aj.LocalMemAllocator()
        xLocal = ubAllocator.Alloc("float", self.totalLength)            # the example's 256
        yLocal = ubAllocator.Alloc("float", 2 * self.totalLength)         # the example's 512 for 256
        aj.DataCopy(xLocal, self.xGm, self.totalLength)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        R.asc_vf_call(PAIR_REDUCE_SUM_VF, yLocal, xLocal, self.totalLength, repeatTimes, oneRepeatSize)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        outputSize = repeatTimes * oneRepeatSize
        aj.DataCopy(self.yGm, yLocal, outputSize)


def reduce_pair(x, y, totalLength):
    aj.InitSocState()
    kernel = Kernel()
    kernel.Init(x, y, totalLength)
    kernel.Process()
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    """gen_data.py: x uniform in [1, 2); the first lanes hold specials (+-inf, NaN, a cancelling pair, -0 + -0,
    a sum that rounds, float max + float max)."""
    x = np.random.default_rng(seed).uniform(1, 2, size).astype(np.float32)
    x[:12] = [np.inf, -np.inf, np.nan, 1.0, 3.5, -3.5, -0.0, -0.0, 1.0, 2.0 ** -24, 3.4e38, 3.4e38]
    return {"x": x}


def run(device, inputs):
    x = inputs["x"]
    y = np.full(x.size, np.nan, np.float32)                       # poisoned: every element must be written
    aj.launch(reduce_pair, 1, device, x, y, x.size)
    return {"y": y}


def expected_output(x):
    """Per 64-float repeat: 32 pair sums (one float32 rounding each; a NaN written is the canonical 0x7FC00000, SPEC-2
    D35, where x86 gives inf + -inf the sign bit) then 32 zeros."""
    with np.errstate(over="ignore", invalid="ignore"):
        sums = (x[0::2] + x[1::2]).reshape(-1, 32)
    sums[np.isnan(sums)] = np.float32(np.nan)
    out = np.zeros((sums.shape[0], 64), np.float32)
    out[:, :32] = sums
    return out.reshape(-1)


def expected(device, inputs):
    return {"y": expected_output(inputs["x"])}


KERNEL = KernelSpec(
    "reg_pair_reduce", "devkit Reg reduce_pair example: PairReduceElem SUM of 64 floats a repeat under UpdateMask, the "
    "whole register stored (32 pair sums, 32 zeros)", make_inputs, run, expected, default_size=256,
    devices=("ascend950",), size_rule="a multiple of 64 floats, at most 16384",
    size_ok=lambda n: 0 < n <= 16384 and n % 64 == 0, source=SOURCE)
