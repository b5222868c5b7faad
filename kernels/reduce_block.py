"""The devkit's Reg-API example `reduce_block` (Ascend 950), ported line by line in our own words:
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7,
examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/reduce_block/reduce_block.asc
(`ReduceDataBlockSumVF`, `Kernel<float>::Init / Process`, `reduce_block`).

As in the original: InitSocState, a LocalMemAllocator carving x and y (256 floats each), DataCopy GM -> UB, a
MTE2_V flag pair, the VF through asc_vf_call (compiled with @aj.Reg.simd_vf): an all-true mask (CreateMask ALL),
then per repeat LoadAlign with post-update of oneRepeatSize (GetVecLen() / sizeof(T) = 64), ReduceDataBlock<SUM> and
StoreAlign with post-update; a V_MTE3 flag pair, DataCopy of all repeatTimes * oneRepeatSize floats out and
PipeBarrier<PIPE_ALL>. The results are interleaved: each repeat's first 8 floats are its 8 DataBlock sums; the
original's CompareResult reads only those, as `run` does.

Fidelity: BIT-EXACT (Reg ReduceDataBlock SUM, SPEC-2 0.3). `expected` evaluates the reference model's summation tree
of each DataBlock (aj.explain_reduce_order, "ReduceDataBlock") on the input, independent of the kernels.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
TOTAL_LENGTH = 256
FLOATS_PER_BLOCK = 8


def ReduceDataBlockSumVF(dstAddr, srcAddr, repeatTimes, oneRepeatSize, T):
    srcReg = R.RegTensor(T)
    dstReg = R.RegTensor(T)
    mask = R.CreateMask(T, R.MaskPattern.ALL)
    src_offset = 0
    dst_offset = 0
    for i in range(repeatTimes):
        src_offset = R.LoadAlign(srcReg, srcAddr, src_offset, post_update_stride=oneRepeatSize)
        # the 8 DataBlock sums land in the lowest lanes of dstReg
        R.ReduceDataBlock(dstReg, srcReg, mask)
        dst_offset = R.StoreAlign(dstAddr, dstReg, mask, dst_offset, post_update_stride=oneRepeatSize)


ReduceDataBlockSumVF_compiled = R.simd_vf(ReduceDataBlockSumVF)


class Kernel:
    def Init(self, x, y, totalLength):
        self.totalLength = totalLength
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x)
        self.yGm.SetGlobalBuffer(y)

    def Process(self):
        ubAllocator = aj.LocalMemAllocator()
        xLocal = ubAllocator.Alloc("float", TOTAL_LENGTH)
        yLocal = ubAllocator.Alloc("float", TOTAL_LENGTH)   # repeatTimes * oneRepeatSize floats, 8 valid a repeat
        aj.DataCopy(xLocal, self.xGm, self.totalLength)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        oneRepeatSize = R.GetVecLen() // 4
        repeatTimes = -(-self.totalLength // oneRepeatSize)
        R.asc_vf_call(ReduceDataBlockSumVF_compiled, yLocal, xLocal, repeatTimes, oneRepeatSize, "float")
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(self.yGm, yLocal, repeatTimes * oneRepeatSize)


def reduce_block(x, y):
    aj.InitSocState()
    kernel = Kernel()
    kernel.Init(x, y, TOTAL_LENGTH)
    kernel.Process()
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    return {"x": np.random.default_rng(seed).uniform(1, 2, size).astype(np.float32)}   # the example's gen_data


def run(device, inputs):
    y = np.zeros(TOTAL_LENGTH, np.float32)
    aj.launch(reduce_block, 1, device, inputs["x"].copy(), y)
    one_repeat = 256 // 4
    return {"block_sums": y.reshape(-1, one_repeat)[:, :FLOATS_PER_BLOCK].reshape(-1).copy()}


def expected(device, inputs):
    trees = aj.explain_reduce_order(device, "ReduceDataBlock", "float", mask=64, repeat_time=1)
    repeats = inputs["x"].reshape(-1, 64)
    return {"block_sums": np.stack([tree.evaluate_batch(repeats) for tree in trees], axis=1).reshape(-1)}


KERNEL = KernelSpec("reduce_block", "devkit Reg-API reduce_block example (950): ReduceDataBlock SUM in a VF, "
                    "interleaved results", make_inputs, run, expected, default_size=TOTAL_LENGTH,
                    devices=("ascend950",), size_rule=f"{TOTAL_LENGTH} (the example's data)",
                    size_ok=lambda n: n == TOTAL_LENGTH,
                    source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/"
                           "02_reg_vector_compute/reduce_block/reduce_block.asc")
