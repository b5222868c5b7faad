"""MaskedSelectV3 from the CANN conversion operators: y = x[mask] (the elements of x whose bool mask byte is 1, packed
in order) and shapeout = [1, len(y)], by a bit mask from CompareScalar and a counter-mode GatherMask with that user
pattern, per-core results gathered through a GM workspace and a SyncAll.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, conversion/masked_select_v3/op_kernel/masked_select_v3.h
(`AscendC::KernelMaskedSelectV3<T>`, T the unsigned type of the element size) and its entry masked_select_v3.cpp,
with the host tiling of conversion/masked_select_v3/op_host/masked_select_v3_tiling.cpp (`MaskedSelectV3Tiling`: a
UB tile of 0.65 of the UB shared by the kernel's buffers, in whole 256-byte blocks, an even number of them; as many
cores as tiles, up to the core count; the first `totalLength % numBlocks` cores one element more).

Per core and tile: DataCopyPad x and the mask bytes in (DataCopyExtParams, exact byte counts); Duplicate 0 over a half
tile, Cast the mask bytes uint8 -> half, CompareScalar EQ 1.0 over the whole tile into a bit mask; GatherMask(y, x,
bits, reduceMode = true, mask = the tile's count, {1, 1, 8, 1}) returns rsvdCnt, and DataCopyPad moves that many
elements to the core's part of the workspace. Each core then writes its count to its 64-byte slot of the workspace
(GlobalTensor SetValue, DataCacheCleanAndInvalid), SyncAll, sums the slots of the cores before it (GetValue), and
moves its packed elements to y from there through a TQueBind VECIN -> VECOUT (DataCopyPad in and out); the last core
writes shapeout. One-byte elements are gathered as halves (Cast uint8 -> half, GatherMask, Cast half -> uint8 over
rsvdCnt): GatherMask takes 2- and 4-byte elements. 8-byte elements are gathered as int32 pairs: the mask halves are
rounded to int16, `m + (m << 8)` (ShiftLeft, Add) gives each element's byte pair, and CompareScalar over that tile of
bytes cast to half gives one bit per int32 word.

Variants: `masked_select_v3` (float), `masked_select_v3_half`, `masked_select_v3_int8`, `masked_select_v3_int64` on
the A2 and A3 (the operator's configurations ascend910b and ascend910_93; the 950 build is arch35/, a separate kernel).

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's). The 8-byte path's last Cast,
`Cast(maskCastLocal, maskCastInt16Shift.ReinterpretCast<uint8_t>(), CAST_NONE, 2 * tileLength)`, widens the bytes in
the second half of the half buffer into the whole buffer: a Cast between sizes whose dst overlaps its src, which the
Cast page forbids (SPEC-2 D34: refused; on the device each repeat's write stays behind the bytes later repeats read).
The port widens into a second buffer of the same size (`maskWideBuf`) and compares that.
The count slots' GlobalTensor is declared numBlocks uint64s long while core i writes and reads element 8 * i (inside
the workspace's numBlocks * 64 bytes; the device never checks a GlobalTensor's size): the emulator refuses an access
past a GlobalTensor (docs/decisions.md "Scaffolding"), so the port declares it over the whole user workspace.

Fidelity: BIT-EXACT (DataCopyPad, Duplicate, Cast uint8 <-> half of integers, CompareScalar, GatherMask, ShiftLeft and
Add on int16 are BIT-EXACT, SPEC-2 0.3: the elements are moved, never computed); checked bit for bit against numpy's
boolean indexing.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 1
CORE_NUM = 8
BLOCK_SIZE = 256
DOUBLE_BUFFER = 2
UB_USAGE = np.float32(0.65)
SHAPEOUT_SIZE = 2
BIT_NUM_PER_BYTE = 8
HEAD_BLOCK_SIZE = 64
OFFSET_SHIFT_BITS = 3
INT64_LENGTH_IN_INT32 = 2
GATHER_RESULT_STRIDE = 8
UNSIGNED = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}


def tiling(device, size_of_data_type, total):
    """MaskedSelectV3Tiling::Init (float arithmetic as the C++): (numBlocks, tiling data, user workspace bytes)."""
    f32 = np.float32
    align_num = BLOCK_SIZE // size_of_data_type
    aligned = -(-total // align_num) * align_num
    total_fact = f32(1) + f32(size_of_data_type) * f32(3.0)
    if size_of_data_type == 8:
        total_fact += f32(4) + (f32(1.0) / f32(8)) * f32(INT64_LENGTH_IN_INT32)
    else:
        total_fact += f32(2) + (f32(1.0) / f32(8))
    if size_of_data_type == 1:
        total_fact += f32(4)
    tmp = f32(size_of_data_type) * f32(1.0) / total_fact
    ub_block_num = int(f32(aj.get_device(device).ub_bytes) * UB_USAGE * tmp / f32(BLOCK_SIZE))
    if ub_block_num % DOUBLE_BUFFER:
        ub_block_num -= 1
    ub_length = ub_block_num * align_num
    num_blocks = min(-(-aligned // ub_length), CORE_NUM)
    former_num = total % num_blocks or num_blocks
    tail_num = num_blocks - former_num
    former_length = -(-total // num_blocks)
    t = dict(formerNum=former_num, formerLength=former_length, formertileNum=-(-former_length // ub_length),
             formertileLength=ub_length, formerlasttileLength=former_length % ub_length or ub_length,
             tailNum=tail_num, tailLength=0, tailtileNum=0, tailtileLength=0, taillasttileLength=0)
    if tail_num:
        tail_length = (total - former_length * former_num) // tail_num
        t.update(tailLength=tail_length, tailtileNum=-(-tail_length // ub_length), tailtileLength=ub_length,
                 taillasttileLength=tail_length % ub_length or ub_length)
    return num_blocks, t, aligned * size_of_data_type + num_blocks * 64


class KernelMaskedSelectV3:
    def __init__(self, T):
        self.T = T
        self.size = np.dtype(T).itemsize
        self.rsvdCnt = 0
        self.outOffset = 0

    def Init(self, x, mask, y, shapeout, workspace, t):
        self.numBlocks = aj.GetBlockNum()
        # the data part of the workspace starts after a 64-byte count slot per core
        globalWorkTensor = workspace[self.numBlocks * HEAD_BLOCK_SIZE:]
        self.blockIdx = aj.GetBlockIdx()
        for k, v in t.items():
            setattr(self, k, v)
        self.xGlobal, self.maskGlobal, self.workGlobal = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        if self.blockIdx < self.formerNum:
            self.tileLength = self.formertileLength // BUFFER_NUM
            self.lasttileLength = self.formerlasttileLength // BUFFER_NUM
            self.tileNum = self.formertileNum * BUFFER_NUM
            start, length = self.formerLength * self.blockIdx, self.formerLength
        else:
            self.tileLength = self.tailtileLength // BUFFER_NUM
            self.lasttileLength = self.taillasttileLength // BUFFER_NUM
            self.tileNum = self.tailtileNum * BUFFER_NUM
            start = self.formerLength * self.formerNum + self.tailLength * (self.blockIdx - self.formerNum)
            length = self.tailLength
        self.xGlobal.SetGlobalBuffer(x[start * self.size:], length, dtype=self.T)
        self.maskGlobal.SetGlobalBuffer(mask[start:], length, dtype="uint8")
        self.workGlobal.SetGlobalBuffer(globalWorkTensor[start * self.size:], length, dtype=self.T)
        self.shapeoutGlobal, self.offsetGlobal = aj.GlobalTensor(), aj.GlobalTensor()
        self.shapeoutGlobal.SetGlobalBuffer(shapeout, SHAPEOUT_SIZE, dtype="uint64")
        # the original declares numBlocks elements and uses element i << 3 as core i's slot (module docstring)
        self.offsetGlobal.SetGlobalBuffer(workspace, dtype="uint64")
        self.yBase = y

        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.inQueueMask = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.moveQue = aj.TQueBind(aj.QuePosition.VECIN, aj.QuePosition.VECOUT, BUFFER_NUM)
        self.maskCastBuf, self.bitMaskBuf = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileLength * self.size)
        self.pipe.InitBuffer(self.inQueueMask, BUFFER_NUM, self.tileLength)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileLength * self.size)
        self.pipe.InitBuffer(self.moveQue, BUFFER_NUM, self.tileLength * self.size)
        if self.size == 8:
            self.pipe.InitBuffer(self.maskCastBuf, self.tileLength * 4)
            self.pipe.InitBuffer(self.bitMaskBuf, self.tileLength * INT64_LENGTH_IN_INT32 // BIT_NUM_PER_BYTE)
            self.maskWideBuf = aj.TBuf(aj.TPosition.VECCALC)        # the port's (module docstring)
            self.pipe.InitBuffer(self.maskWideBuf, self.tileLength * 4)
        else:
            self.pipe.InitBuffer(self.maskCastBuf, self.tileLength * 2)
            self.pipe.InitBuffer(self.bitMaskBuf, self.tileLength // BIT_NUM_PER_BYTE)
        if self.size == 1:
            self.xCastBuf, self.yCastBuf = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
            self.pipe.InitBuffer(self.xCastBuf, self.tileLength * 2)
            self.pipe.InitBuffer(self.yCastBuf, self.tileLength * 2)

    def Process(self, y, shapeout):
        for i in range(self.tileNum):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut2WorkSpace()
        self.offsetGlobal.SetValue(self.blockIdx << OFFSET_SHIFT_BITS, self.outOffset)
        aj.DataCacheCleanAndInvalid(self.offsetGlobal[self.blockIdx << OFFSET_SHIFT_BITS],
                                    entire_type=aj.CacheLine.SINGLE_CACHE_LINE, dcci_dst=aj.DcciDst.CACHELINE_OUT)
        aj.SyncAll()
        ind = 0
        for i in range(self.blockIdx):
            aj.DataCacheCleanAndInvalid(self.offsetGlobal[i << OFFSET_SHIFT_BITS],
                                        entire_type=aj.CacheLine.SINGLE_CACHE_LINE,
                                        dcci_dst=aj.DcciDst.CACHELINE_OUT)
            ind += int(self.offsetGlobal.GetValue(i << OFFSET_SHIFT_BITS))
        self.yGlobal = aj.GlobalTensor()
        self.yGlobal.SetGlobalBuffer(y[ind * self.size:], self.outOffset, dtype=self.T)
        loopCount, tailLoopLength = divmod(self.outOffset, self.tileLength)
        for i in range(loopCount):
            self.CopyInMove(i, self.tileLength)
            self.CopyOutMove(i, self.tileLength)
        if tailLoopLength > 0:
            self.CopyInMove(loopCount, tailLoopLength)
            self.CopyOutMove(loopCount, tailLoopLength)
        if self.blockIdx == self.numBlocks - 1:
            self.shapeoutGlobal.SetValue(0, 1)
            self.shapeoutGlobal.SetValue(1, ind + self.outOffset)

    def CopyInMove(self, progress, length):
        xLocal = self.moveQue.AllocTensor(self.T)
        if self.size == 8:
            self.DataCopyPadDoubleWordIn(xLocal, self.workGlobal[progress * self.tileLength], length)
        else:
            aj.DataCopyPad(xLocal, self.workGlobal[progress * self.tileLength],
                           aj.DataCopyExtParams(1, length * self.size, 0, 0, 0),
                           aj.DataCopyPadExtParams(False, 0, 0, 0))
        self.moveQue.EnQue(xLocal)

    def CopyOutMove(self, progress, length):
        yLocal = self.moveQue.DeQue(self.T)
        if self.size == 8:
            self.DataCopyPadDoubleWordOut(self.yGlobal[progress * self.tileLength], yLocal, length)
        else:
            aj.DataCopyPad(self.yGlobal[progress * self.tileLength], yLocal,
                           aj.DataCopyExtParams(1, length * self.size, 0, 0, 0))
        self.moveQue.FreeTensor(yLocal)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.T)
        maskLocal = self.inQueueMask.AllocTensor("uint8")
        ind = progress * self.tileLength
        length = self.lasttileLength if progress == self.tileNum - 1 else self.tileLength
        if self.size == 8:
            self.DataCopyPadDoubleWordIn(xLocal, self.xGlobal[ind], length)
        else:
            aj.DataCopyPad(xLocal, self.xGlobal[ind], aj.DataCopyExtParams(1, length * self.size, 0, 0, 0),
                           aj.DataCopyPadExtParams(False, 0, 0, 0))
        aj.DataCopyPad(maskLocal, self.maskGlobal[ind], aj.DataCopyExtParams(1, length, 0, 0, 0),
                       aj.DataCopyPadExtParams(False, 0, 0, 0))
        self.inQueueX.EnQue(xLocal)
        self.inQueueMask.EnQue(maskLocal)

    def GenerateMask(self, mask, bitMask, count):
        maskCastLocal = self.maskCastBuf.Get("half")
        aj.Duplicate(maskCastLocal, np.float16(0), self.tileLength)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Cast(maskCastLocal, mask, aj.RoundMode.CAST_NONE, count)
        aj.PipeBarrier(aj.PIPE_V)
        if self.size == 8:
            maskCastInt16 = maskCastLocal.ReinterpretCast("int16")
            maskCastInt16Shift = maskCastLocal[self.tileLength].ReinterpretCast("int16")
            aj.Cast(maskCastInt16, maskCastLocal, aj.RoundMode.CAST_ROUND, self.tileLength)
            aj.PipeBarrier(aj.PIPE_V)
            aj.ShiftLeft(maskCastInt16Shift, maskCastInt16, np.int16(BIT_NUM_PER_BYTE), self.tileLength)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Add(maskCastInt16Shift, maskCastInt16, maskCastInt16Shift, self.tileLength)
            aj.PipeBarrier(aj.PIPE_V)
            maskWide = self.maskWideBuf.Get("half")      # the original widens in place (module docstring)
            aj.Cast(maskWide, maskCastInt16Shift.ReinterpretCast("uint8"), aj.RoundMode.CAST_NONE,
                    self.tileLength * INT64_LENGTH_IN_INT32)
            aj.PipeBarrier(aj.PIPE_V)
            aj.CompareScalar(bitMask, maskWide, np.float16(1.0), aj.CMPMODE.EQ,
                             self.tileLength * INT64_LENGTH_IN_INT32)
        else:
            aj.CompareScalar(bitMask, maskCastLocal, np.float16(1.0), aj.CMPMODE.EQ, self.tileLength)
        aj.PipeBarrier(aj.PIPE_V)

    def GatherResult(self, dstLocal, srcLocal, bitMaskLocal, count):
        params = aj.GatherMaskParams()
        params.src0BlockStride = 1
        params.repeatTimes = 1
        params.src0RepeatStride = GATHER_RESULT_STRIDE
        params.src1RepeatStride = 1
        if self.size == 8:
            self.rsvdCnt = aj.GatherMask(dstLocal.ReinterpretCast("int32"), srcLocal.ReinterpretCast("int32"),
                                         bitMaskLocal.ReinterpretCast("uint32"), True, count * INT64_LENGTH_IN_INT32,
                                         params)
        elif self.size == 4:
            self.rsvdCnt = aj.GatherMask(dstLocal, srcLocal, bitMaskLocal.ReinterpretCast("uint32"), True, count,
                                         params)
        elif self.size == 2:
            self.rsvdCnt = aj.GatherMask(dstLocal, srcLocal, bitMaskLocal.ReinterpretCast("uint16"), True, count,
                                         params)
        else:
            xCastLocal = self.xCastBuf.Get("half")
            yCastLocal = self.yCastBuf.Get("half")
            aj.Duplicate(xCastLocal, np.float16(0), self.tileLength)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Cast(xCastLocal, srcLocal, aj.RoundMode.CAST_NONE, count)
            aj.PipeBarrier(aj.PIPE_V)
            self.rsvdCnt = aj.GatherMask(yCastLocal, xCastLocal, bitMaskLocal.ReinterpretCast("uint16"), True, count,
                                         params)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Cast(dstLocal, yCastLocal, aj.RoundMode.CAST_NONE, self.rsvdCnt)

    def Compute(self, progress):
        xLocal = self.inQueueX.DeQue(self.T)
        maskLocal = self.inQueueMask.DeQue("uint8")
        yLocal = self.outQueueY.AllocTensor(self.T)
        bitMaskLocal = self.bitMaskBuf.Get("uint8")
        length = self.lasttileLength if progress == self.tileNum - 1 else self.tileLength
        self.GenerateMask(maskLocal, bitMaskLocal, length)
        aj.PipeBarrier(aj.PIPE_V)
        self.GatherResult(yLocal, xLocal, bitMaskLocal, length)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)
        self.inQueueMask.FreeTensor(maskLocal)

    def DataCopyPadDoubleWordIn(self, dstLocal, srcGlobal, count):
        srcCastGlobal = aj.GlobalTensor()
        srcCastGlobal.SetGlobalBuffer(srcGlobal, count * INT64_LENGTH_IN_INT32, dtype="int32")
        aj.DataCopyPad(dstLocal.ReinterpretCast("int32"), srcCastGlobal,
                       aj.DataCopyExtParams(1, count * INT64_LENGTH_IN_INT32 * 4, 0, 0, 0),
                       aj.DataCopyPadExtParams(False, 0, 0, 0))

    def DataCopyPadDoubleWordOut(self, dstGlobal, srcLocal, count):
        dstCastGlobal = aj.GlobalTensor()
        dstCastGlobal.SetGlobalBuffer(dstGlobal, count * INT64_LENGTH_IN_INT32, dtype="int32")
        aj.DataCopyPad(dstCastGlobal, srcLocal.ReinterpretCast("int32"),
                       aj.DataCopyExtParams(1, count * INT64_LENGTH_IN_INT32 * 4, 0, 0, 0))

    def CopyOut2WorkSpace(self):
        yLocal = self.outQueueY.DeQue(self.T)
        if self.size == 8:
            self.DataCopyPadDoubleWordOut(self.workGlobal[self.outOffset], yLocal,
                                          self.rsvdCnt // INT64_LENGTH_IN_INT32)
            self.outOffset += self.rsvdCnt // INT64_LENGTH_IN_INT32
        else:
            aj.DataCopyPad(self.workGlobal[self.outOffset], yLocal,
                           aj.DataCopyExtParams(1, self.rsvdCnt * self.size, 0, 0, 0))
            self.outOffset += self.rsvdCnt
        self.outQueueY.FreeTensor(yLocal)


def masked_select_v3(x, mask, y, shapeout, workspace, tiling_data, T):
    usrWorkspace = aj.GetUserWorkspace(workspace)
    op = KernelMaskedSelectV3(T)
    op.Init(x, mask, y, shapeout, usrWorkspace, tiling_data)
    op.Process(y, shapeout)


def _make_inputs(np_dtype):
    def make_inputs(size, seed):
        """Random bit patterns for x; the mask about 40% true, with an all-false and an all-true stretch."""
        rng = np.random.default_rng(seed)
        x = rng.integers(0, 256, size * np.dtype(np_dtype).itemsize, dtype=np.uint8).view(np_dtype)
        mask = rng.random(size) < 0.4
        mask[size // 3:size // 3 + size // 8] = False
        mask[size // 2:size // 2 + size // 8] = True
        return {"x": x, "mask": mask}
    return make_inputs


def _run(np_dtype):
    def run(device, inputs):
        x, mask = inputs["x"], inputs["mask"]
        size = np.dtype(np_dtype).itemsize
        block_dim, tiling_data, usr = tiling(device, size, x.size)
        gm_x = x.view(np.uint8).copy()
        gm_mask = mask.view(np.uint8).copy()
        gm_y = np.zeros(x.size * size, np.uint8)
        shapeout = np.zeros(SHAPEOUT_SIZE, np.uint64)
        workspace = np.zeros(aj.GetLibApiWorkSpaceSize(device) + usr, np.uint8)
        aj.launch(masked_select_v3, block_dim, device, gm_x, gm_mask, gm_y, shapeout, workspace, tiling_data,
                  UNSIGNED[size])
        n = int(shapeout[1])
        return {"y": gm_y.view(np_dtype)[:n], "shapeout": shapeout}
    return run


def expected(device, inputs):
    y = inputs["x"][inputs["mask"]]
    return {"y": y, "shapeout": np.array([1, y.size], np.uint64)}


_SOURCE = "hicann/ops-math@c4193324 conversion/masked_select_v3/op_kernel/masked_select_v3.h"
_DAV_2201 = ("atlas-a3", "atlas-a2")
KERNELS = [
    KernelSpec(name, f"MaskedSelectV3 over {what}: CompareScalar of the mask cast to half into a bit mask, "
               "counter-mode GatherMask with that user pattern, per-core counts in a GM workspace, SyncAll, the packed "
               "results moved through a TQueBind", _make_inputs(t), _run(t), expected, default_size=30000,
               devices=_DAV_2201, source=_SOURCE)
    for name, t, what in (("masked_select_v3", np.float32, "float"),
                          ("masked_select_v3_half", np.float16, "half"),
                          ("masked_select_v3_int8", np.int8, "int8 (gathered as halves)"),
                          ("masked_select_v3_int64", np.int64, "int64 (gathered as int32 pairs)"))
]
