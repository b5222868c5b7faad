"""Sasum (BLAS level 1) from a CANN operator collection: the sum of |x_i| over a float vector, spread over the
vector cores, each adding its partial sums into the one GM result with atomic adds.

Ported (structure and instruction sequence; written in our own words) from
Hayden727/cann-ops @ fd1e257cee42a8ba666e864860cbe5f37100a2a3, src/math/sasum/op_kernel/sasum_aiv.h and sasum.cpp
(`Sasum::SasumAIV<float>`) with the host tiling of src/math/sasum/op_host/sasum.cpp (`CalTilingData`: 8-float
blocks spread over the cores, the first `remainBlock` cores one block more, the last core the <8 leftover floats;
a vector of fewer than 8 floats all on core 0). Per core: Init zeroes the GM result (Duplicate into an 8-float TBuf
window, `DataCopyPad(outGM, workLocal, DataCopyParams{1, sizeof(T), 0, 0})`) and meets the other cores at SyncAll;
Process sets SetAtomicAdd<float> and walks its range in 20480-float tiles (double-buffered queues), then at most
one 16384-float tile (the older DataCopyPad's uint16_t blockLen limit) and the rest through CopyInPad
(`DataCopyPadParams{true, 0, 8 - n % 8, 0}`: zeros to the next 8 floats); each tile: Abs in place,
PipeBarrier<PIPE_V>, ReduceSum into an 8-float output tensor with a 376-float work TBuf, and the one float copied
out by DataCopyPad with DataCopyParams (an atomic add into GM under SetAtomicAdd).

Deviations: (1) the core count is the launch's 8 (GetCoreNumAiv gives the device's AIV count); (2) in Init every
core writes the zero to the result, a cross-core write-write race on one GM word (the same value, but a race the
sanitizer reports), and its Duplicate (vector pipe) and the DataCopyPad (MTE3) that reads it are not ordered:
the port lets core 0 alone write the zero, after a V -> MTE3 flag pair (TQueSync); every core still meets at
SyncAll before any atomic add.

Devices: DataCopyPad is not offered on the 310P and the 910, the hard SyncAll not on the 310B (SPEC-2 1.9, 10): the
kernel runs on the 950, A3 and A2.

Fidelity: BIT-EXACT (Abs, ReduceSum, DataCopyPad and the atomic float add are BIT-EXACT, SPEC-2 0.3; SPEC D1's
device-specific ReduceSum order). The expectation replays the sum on the host: each tile's |x| (padded with zeros to
its 8-float multiple) summed through the device's ReduceSum count-form tree from the reference model
(aj.explain_reduce_order), and the partial sums added into a float32 zero in the launch's atomic order (block by
block, each block's tiles in order: ascend_jit.launch's deterministic "block" order).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
ELEMENTS_PER_BLOCK = 8
CORE_NUM = 8
MAX_DATA_COUNT = 80 * 1024 // 4          # 80 KB of floats a tile
MAX_COPY_PAD_NUM = (65535 + 1) // 4      # the older DataCopyParams' uint16_t blockLen, in floats
FIRST_MAX_REPEAT = MAX_DATA_COUNT // 64  # ReduceSum's first-level outputs of a full tile


def cal_tiling_data(element_num, max_core_num):
    """CalTilingData: (calNum, startOffset) per core."""
    cal_num, start_offset = [0] * max_core_num, [0] * max_core_num
    total_block_num, remain_num = divmod(element_num, ELEMENTS_PER_BLOCK)
    if total_block_num == 0:
        cal_num[0] = remain_num
    elif total_block_num <= max_core_num:
        for i in range(total_block_num):
            start_offset[i], cal_num[i] = ELEMENTS_PER_BLOCK * i, ELEMENTS_PER_BLOCK
        cal_num[total_block_num - 1] += remain_num
    else:
        each, remain_block = divmod(total_block_num, max_core_num)
        offset = 0
        for i in range(max_core_num):
            cal_num[i] = (each + 1 if i < remain_block else each) * ELEMENTS_PER_BLOCK
            start_offset[i] = offset
            offset += cal_num[i]
        cal_num[max_core_num - 1] += remain_num
    return cal_num, start_offset


class SasumAIV:
    def Init(self, inDevice, outDevice, n, offset, calNum):
        self.inGM, self.outGM = aj.GlobalTensor(), aj.GlobalTensor()
        self.inGM.SetGlobalBuffer(inDevice, n)
        self.outGM.SetGlobalBuffer(outDevice, 1)
        self.computeNum, self.startOffset = calNum, offset
        elementsPerBlock = 32 // 4
        iter1AlignEnd = (FIRST_MAX_REPEAT + elementsPerBlock - 1) // elementsPerBlock * elementsPerBlock
        byteLen = iter1AlignEnd * 4                                   # 1504
        self.pipe = aj.TPipe()
        self.workBuf = aj.TBuf(aj.TPosition.VECCALC)
        self.inQueue, self.outQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM), aj.TQue(
            aj.QuePosition.VECOUT, BUFFER_NUM)
        self.pipe.InitBuffer(self.workBuf, byteLen + 32)
        self.pipe.InitBuffer(self.inQueue, BUFFER_NUM, MAX_DATA_COUNT * 4)
        self.pipe.InitBuffer(self.outQueue, BUFFER_NUM, 8 * 4)
        if aj.GetBlockIdx() == 0:                                     # deviation (2)
            workLocal = self.workBuf.Get("float", 8)
            aj.Duplicate(workLocal, 0.0, 8)
            order = aj.TQueSync(aj.PIPE_V, aj.PIPE_MTE3)
            order.SetFlag(0)
            order.WaitFlag(0)
            aj.DataCopyPad(self.outGM, workLocal, aj.DataCopyParams(1, 4, 0, 0))   # {1, sizeof(T), 0, 0}
        aj.SyncAll()

    def Process(self):
        aj.SetAtomicAdd("float")
        repeatTimes, remainNum = divmod(self.computeNum, MAX_DATA_COUNT)
        currOffset = self.startOffset
        for _ in range(repeatTimes):
            self.SingleIteration(currOffset, MAX_DATA_COUNT)
            currOffset += MAX_DATA_COUNT
        if remainNum > 0:
            if remainNum >= MAX_COPY_PAD_NUM:
                self.SingleIteration(currOffset, MAX_COPY_PAD_NUM)
                currOffset += MAX_COPY_PAD_NUM
                remainNum -= MAX_COPY_PAD_NUM
            if remainNum > 0:
                self.SingleIterationAligned(currOffset, remainNum)
        aj.SetAtomicNone()

    def SingleIteration(self, offset, dataCount):
        self.CopyIn(offset, dataCount)
        self.Compute(dataCount)
        self.CopyOut()

    def SingleIterationAligned(self, offset, dataCount):
        dataCountAligned = (dataCount + 7) // 8 * 8
        self.CopyInPad(offset, dataCount)
        self.Compute(dataCountAligned)
        self.CopyOut()

    def CopyIn(self, offset, dataCount):
        inLocal = self.inQueue.AllocTensor("float")
        aj.DataCopy(inLocal, self.inGM[offset], dataCount)
        self.inQueue.EnQue(inLocal)

    def CopyInPad(self, offset, dataCount):
        copyParams = aj.DataCopyParams(1, dataCount * 4, 0, 0)
        paddingNum = 8 - dataCount % 8
        padParams = aj.DataCopyPadParams(True, 0, paddingNum, 0)
        inLocal = self.inQueue.AllocTensor("float")
        aj.DataCopyPad(inLocal, self.inGM[offset], copyParams, padParams)
        self.inQueue.EnQue(inLocal)

    def Compute(self, dataCount):
        inLocal = self.inQueue.DeQue("float")
        workLocal = self.workBuf.Get("float")
        outLocal = self.outQueue.AllocTensor("float")
        aj.Abs(inLocal, inLocal, dataCount)
        aj.PipeBarrier(aj.PIPE_V)
        aj.ReduceSum(outLocal, inLocal, workLocal, dataCount)
        self.outQueue.EnQue(outLocal)
        self.inQueue.FreeTensor(inLocal)

    def CopyOut(self):
        outLocal = self.outQueue.DeQue("float")
        aj.DataCopyPad(self.outGM, outLocal, aj.DataCopyParams(1, 4, 0, 0))
        self.outQueue.FreeTensor(outLocal)


def sasum(inGM, outGM, n, cal_num, start_offset):
    vecIdx = aj.GetBlockIdx()
    op = SasumAIV()
    op.Init(inGM, outGM, n, start_offset[vecIdx], cal_num[vecIdx])
    op.Process()


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(size) * np.exp(rng.uniform(-6, 6, size))).astype(np.float32)
    x[:min(size, 2)] = np.array([-0.0, -3.5], np.float32)[:size]
    return {"x": x}


def run(device, inputs):
    x = inputs["x"]
    cal_num, start_offset = cal_tiling_data(x.size, CORE_NUM)
    out = np.full(1, np.nan, np.float32)
    aj.launch(sasum, CORE_NUM, device, x.copy(), out, x.size, cal_num, start_offset)
    return {"y": out}


def _tiles(count):
    """(first element, elements, elements summed) of each of a core's tiles, as Process walks them."""
    tiles, offset = [], 0
    repeat, remain = divmod(count, MAX_DATA_COUNT)
    for _ in range(repeat):
        tiles.append((offset, MAX_DATA_COUNT, MAX_DATA_COUNT))
        offset += MAX_DATA_COUNT
    if remain >= MAX_COPY_PAD_NUM:
        tiles.append((offset, MAX_COPY_PAD_NUM, MAX_COPY_PAD_NUM))
        offset += MAX_COPY_PAD_NUM
        remain -= MAX_COPY_PAD_NUM
    if remain:
        tiles.append((offset, remain, (remain + 7) // 8 * 8))
    return tiles


def expected(device, inputs):
    x = np.abs(inputs["x"])
    cal_num, start_offset = cal_tiling_data(x.size, CORE_NUM)
    tiles = [(start_offset[core] + first, n, summed) for core in range(CORE_NUM)
             for first, n, summed in _tiles(cal_num[core])]          # the atomic order: block by block
    sums = [None] * len(tiles)
    for summed in {t[2] for t in tiles}:            # one tree walk per tile length, over all its tiles at once
        which = [i for i, t in enumerate(tiles) if t[2] == summed]
        rows = np.zeros((len(which), summed), np.float32)
        for row, i in enumerate(which):
            first, n, _ = tiles[i]
            rows[row, :n] = x[first:first + n]
        tree = aj.explain_reduce_order(device, "count", "float", count=summed)
        for i, value in zip(which, tree.evaluate_batch(rows)):
            sums[i] = np.float32(value)
    total = np.float32(0.0)
    for value in sums:
        total = np.float32(total + value)
    return {"y": np.array([total], np.float32)}


KERNEL = KernelSpec("sasum", "BLAS Sasum: Abs and ReduceSum per tile, partial sums atomically added into one GM "
                    "float (DataCopyPad with DataCopyParams / DataCopyPadParams brace lists), SyncAll after the "
                    "result's zeroing; 8 cores", make_inputs, run, expected, default_size=8005,
                    devices=("ascend950", "atlas-a3", "atlas-a2"),
                    source="Hayden727/cann-ops@fd1e257c src/math/sasum/op_kernel/sasum_aiv.h")
