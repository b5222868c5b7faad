"""The devkit example `reduce` (float sum of one row, the instruction sequence chosen by the row's size), ported line by
line: a TPipe passed by pointer, depth-1 VECIN/VECOUT queues, and by size
1. <= 256 B: Duplicate 0 into z, one ReduceRepeat<SUM> of 64 lanes (normal mode);
2. <= 2 KB: counter mode (SetMaskCount, SetVectorMask<T>(0, totalLength)), a VECCALC TBuf initialised inside
   Compute (InitBuffer after the queues' tensors are out), ReduceDataBlock<SUM, T, T, false> with MASK_PLACEHOLDER
   into it, PipeBarrier<PIPE_V>, SetVectorMask(0, blocks) and ReduceRepeat<SUM, T, T, false> of the block sums;
3. <= 16 KB: the same with two ReduceRepeat<SUM> passes (row -> repeat sums -> one sum); SetMaskNorm at the end.
The `dst` of the second step is z (32 floats, Duplicate'd 0 first); z is copied out whole.

Regimes 4 and 5 (10000 and 20000 floats: ReduceRepeatSumImpl and BinaryReduceSumImpl) are not ported: they write
the first pass's 157 (resp. 79 after the Add folds) repeat sums through z, a 32-float tensor (past its queue buffer;
the emulator's tensor bounds refuse it), then reduce in place with dst overlapping part of the source repeat
(SPEC 8.2 refuses a partial overlap).

Source: mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
01_memory_vector_compute/reduce/reduce.asc (`KernelReduce<float>` Compute1-3, `reduce_custom`; main runs 4096 floats).

Devices: the 910's ReduceRepeat takes half only (SPEC-2 8.1); every other device runs it, counter mode included.

Fidelity: BIT-EXACT (ReduceRepeat, ReduceDataBlock are BIT-EXACT, SPEC-2 0.3). The expectation runs the package's
reference model (ascend_jit.reference.reductions) on a host UB laid out as the kernel's, with counter mode's
partial last repeat as its last_lanes.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

DEFAULT_BLK_STRIDE = 1
DEFAULT_REP_STRIDE = 8
REP_LEN = 256
BLK_LEN = 32
OUT_LENGTH = 32


class KernelReduce:
    def Init(self, x, z, totalLength, outLength, pipeIn):
        self.pipe = pipeIn
        self.totalLength, self.outLength = totalLength, outLength
        self.xGm, self.zGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x, totalLength)
        self.zGm.SetGlobalBuffer(z, outLength)
        self.inQueueX, self.outQueueZ = aj.TQue(aj.TPosition.VECIN, 1), aj.TQue(aj.TPosition.VECOUT, 1)
        self.calcBuf = aj.TBuf(aj.TPosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueX, 1, totalLength * 4)
        self.pipe.InitBuffer(self.outQueueZ, 1, outLength * 4)

    def Process(self, computeKey):
        self.CopyIn()
        (self.Compute1, self.Compute2, self.Compute3)[computeKey - 1]()
        self.CopyOut()

    def CopyIn(self):
        xLocal = self.inQueueX.AllocTensor("float")
        aj.DataCopy(xLocal, self.xGm, self.totalLength)
        self.inQueueX.EnQue(xLocal)

    def Compute1(self):
        """Under 256 B: one ReduceRepeat<SUM>."""
        xLocal = self.inQueueX.DeQue("float")
        zLocal = self.outQueueZ.AllocTensor("float")
        aj.Duplicate(zLocal, np.float32(0), self.outLength)
        maskLen = REP_LEN // 4
        aj.ReduceRepeat(zLocal, xLocal, maskLen, 1, DEFAULT_BLK_STRIDE, DEFAULT_BLK_STRIDE, DEFAULT_REP_STRIDE,
                        reduce_type=aj.ReduceType.SUM)
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)

    def Compute2(self):
        """(256 B, 2 KB]: ReduceDataBlock<SUM> then ReduceRepeat<SUM>, in counter mode."""
        xLocal = self.inQueueX.DeQue("float")
        zLocal = self.outQueueZ.AllocTensor("float")
        aj.Duplicate(zLocal, np.float32(0), self.outLength)
        self.pipe.InitBuffer(self.calcBuf, self.totalLength * 4)
        tempTensor1 = self.calcBuf.Get("float")
        c0Count = BLK_LEN // 4
        blockNum0 = (self.totalLength + c0Count - 1) // c0Count
        aj.SetMaskCount()
        aj.SetVectorMask(0, self.totalLength, dtype="float")
        aj.ReduceDataBlock(tempTensor1, xLocal, aj.MASK_PLACEHOLDER, 1, DEFAULT_BLK_STRIDE, DEFAULT_BLK_STRIDE,
                           DEFAULT_REP_STRIDE, reduce_type=aj.ReduceType.SUM, is_set_mask=False)
        aj.PipeBarrier(aj.PIPE_V)
        aj.SetVectorMask(0, blockNum0, dtype="float")
        aj.ReduceRepeat(zLocal, tempTensor1, aj.MASK_PLACEHOLDER, 1, DEFAULT_BLK_STRIDE, DEFAULT_BLK_STRIDE,
                        DEFAULT_REP_STRIDE, reduce_type=aj.ReduceType.SUM, is_set_mask=False)
        aj.PipeBarrier(aj.PIPE_V)
        aj.SetMaskNorm()
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)

    def Compute3(self):
        """(2 KB, 16 KB]: two ReduceRepeat<SUM> passes in counter mode."""
        xLocal = self.inQueueX.DeQue("float")
        zLocal = self.outQueueZ.AllocTensor("float")
        aj.Duplicate(zLocal, np.float32(0), self.outLength)
        self.pipe.InitBuffer(self.calcBuf, self.totalLength * 4)
        tempTensor1 = self.calcBuf.Get("float")
        repeatNum = (self.totalLength * 4 + REP_LEN - 1) // REP_LEN
        aj.SetMaskCount()
        aj.SetVectorMask(0, self.totalLength, dtype="float")
        aj.ReduceRepeat(tempTensor1, xLocal, aj.MASK_PLACEHOLDER, 1, DEFAULT_BLK_STRIDE, DEFAULT_BLK_STRIDE,
                        DEFAULT_REP_STRIDE, reduce_type=aj.ReduceType.SUM, is_set_mask=False)
        aj.PipeBarrier(aj.PIPE_V)
        aj.SetVectorMask(0, repeatNum, dtype="float")
        aj.ReduceRepeat(zLocal, tempTensor1, aj.MASK_PLACEHOLDER, 1, DEFAULT_BLK_STRIDE, DEFAULT_BLK_STRIDE,
                        DEFAULT_REP_STRIDE, reduce_type=aj.ReduceType.SUM, is_set_mask=False)
        aj.PipeBarrier(aj.PIPE_V)
        aj.SetMaskNorm()
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)

    def CopyOut(self):
        zLocal = self.outQueueZ.DeQue("float")
        aj.DataCopy(self.zGm, zLocal, self.outLength)
        self.outQueueZ.FreeTensor(zLocal)


def regime(total_length):
    """reduce_custom's dispatch on the row's bytes (1, 2 or 3)."""
    nbytes = total_length * 4
    return 1 if nbytes <= 256 else 2 if nbytes <= 2048 else 3


def reduce_custom(x, z, totalLength, outLength):
    pipe = aj.TPipe()
    op = KernelReduce()
    op.Init(x, z, totalLength, outLength, pipe)
    op.Process(regime(totalLength))


def make_inputs(size, seed):
    return {"x": (np.random.default_rng(seed).standard_normal(size) * 8).astype(np.float32)}


def run(device, inputs):
    z = np.zeros(OUT_LENGTH, np.float32)
    aj.launch(reduce_custom, 1, device, inputs["x"], z, inputs["x"].size, OUT_LENGTH)
    return {"z": z}


def expected(device, inputs):
    from ascend_jit.reference.reductions import reduce_data_block, reduce_repeat
    spec, x = aj.get_device(device), inputs["x"]
    n, lanes = x.size, list(range(64))
    ub = np.zeros(spec.ub_bytes, np.uint8)
    ub[:x.nbytes] = x.view(np.uint8)
    tmp, out = 16384, 32768                    # any free addresses: the reference reads and writes bytes only
    steps = {1: [], 2: [("block", n)], 3: [("repeat", n)]}[regime(n)]
    src = 0
    for kind, count in steps:                  # the counter-mode first pass into tmp
        repeats = -(-count // 64)
        last = count - (repeats - 1) * 64
        if kind == "block":
            reduce_data_block(ub, spec, "sum", "float", tmp, src, lanes, repeats, 1, 1, 8, False, last_lanes=last)
            count = -(-count // 8)
        else:
            reduce_repeat(ub, spec, "sum", "float", "float", tmp, src, lanes, repeats, 1, 1, 8, 2, False,
                          last_lanes=last)
            count = repeats
        src, n = tmp, count
    reduce_repeat(ub, spec, "sum", "float", "float", out, src, lanes, 1, 1, 1, 8, 2, False, last_lanes=n)
    z = np.zeros(OUT_LENGTH, np.float32)
    z[0] = ub[out:out + 4].view(np.float32)[0]
    return {"z": z}


KERNEL = KernelSpec("reduce_tiling", "devkit reduce: a float row summed by ReduceRepeat / ReduceDataBlock in counter "
                    "mode with isSetMask = false, the sequence chosen by the row's size (<= 256 B, 2 KB, 16 KB)",
                    make_inputs, run, expected, default_size=4096,
                    devices=("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore"),
                    size_rule="64, or a multiple of 8 floats in (64, 4096] (regime 1's ReduceRepeat reads 64 lanes)",
                    size_ok=lambda n: n == 64 or (64 < n <= 4096 and n % 8 == 0),
                    source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/"
                           "01_memory_vector_compute/reduce/reduce.asc")
