"""AngleV2 over integers from the CANN math operators: y = angle(x) as float, that is pi where x < 0 and 0 elsewhere,
decided by a float Compare GE 0 and a Select between a zero tile and a pi tile.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, math/angle_v2/op_kernel/angle_v2_int.h
(`AngleV2N::AngleV2Int<xType, float>`) on the base class of math/angle_v2/op_kernel/angle_v2_base.h, with the host
tiling of math/angle_v2/op_host/angle_v2_tiling.cpp (`AngleV2Tiling`: one core per 64 outputs up to the core count,
the input spread over the cores in 32-byte blocks of x, the first `formerNum` cores one block more; a UB tile of
(UB - 8000) / bytesPerData elements rounded down to 64, and on the 910 one 64-element repeat; the last core moves its
GM start back so that its last 32-byte block of float output ends on the input's end rounded up to 8 floats).

The conversion to float is the part that differs by device. On the A2/A3 (`__CCE_AICORE__ >= 200`): int8 -> half ->
float, int16 -> float and int32 -> float by high-dim Casts, int64 -> float by a CAST_FLOOR Cast of 32-element repeats.
On the 910 (`__CCE_AICORE__ < 200`), which has no int16 or int64 conversion, only the sign matters: int16 is read as
int8 pairs and cast to half, int64 as int32 pairs cast to float and then to half; a Duplicate of 0 under the bit mask
0x5555... clears every low half (the even lanes), and a PairReduceSum adds each pair, leaving the high byte or high
word, whose sign is the number's. Then half -> float. Select is mode 2 (VSEL_TENSOR_TENSOR_MODE) on the A2/A3 and
mode 0 (VSEL_CMPMASK_SPR) on the 910, where each Select is a single repeat.

Variants: `angle_v2_int8`, `angle_v2_int16`, `angle_v2_int32`, `angle_v2_int64` on the A2, A3 and the 910 (the
operator's configurations: ascend910b, ascend910_93, ascend910; the 950 build is a separate kernel).

Deviations: the core count is the launch's 8 (the platform's AIV count would be 20-48); the 910's UB tile is the
64 elements the kernel forces there (its tiling's UB-filling size is never used). The original converts int8 in
128-lane repeats, `ceil(repeatTimes / 2)` of them, while its input queue and half buffer hold `tileLength` elements:
with an odd `repeatTimes` (always on the 910, where a tile is one 64-lane repeat) that Cast reads and writes 64 lanes
past both tensors (refused by the tensor bounds, SPEC-2 D56; on the device the next buffer or unused UB). Its last
tile converts int8 and the A2/A3's int64 over the full tile's repeats (`repeatTimesInt8`, `repeatTimesInt64`,
computed once in Init) and the other types over `repeatTimes` whole 64-lane repeats, past the DataCopy of that
tile's 32-byte blocks: UB the copy never wrote (stale queue data or, with one tile a core, never written at all: the
sanitizer rightly reports it; those lanes are never copied out). The port sizes the int8 buffers to the lanes
converted, recomputes the last tile's conversion repeats from that tile's `repeatTimes`, and copies in every lane it
converts (at most a repeat past the tile: the next tile's input, or past the core's share into the next core's input
or the GM padding, as device allocations are padded); y[:n] is unchanged.
The original's last core, when it can, moves its GM start back by the
difference between the input rounded up to its 32-byte blocks and to 8 floats (int8, int16) or to 4 int64s, so that
its float output ends there rather than past y; its first floats then rewrite ones the core before wrote (the same
values, but a cross-core write-write: the sanitizer reports it, as it does for Reshape's cores). The port keeps the
last core's start and lets its last block run into the GM padding.

Fidelity: BIT-EXACT (Cast, Duplicate, PairReduceSum of a zero and a half, Compare, Select and DataCopy are BIT-EXACT,
SPEC-2 0.3; the result is 0 or float(pi) exactly); checked bit for bit against numpy.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
COEFFICENT = 2
CORE_NUM = 8
BYTE_BLOCK = 32
BYTE_REPEAT = 256
SELECT_MODE_GE_ZERO_TMP_UB = 8000
PI = np.float32(np.pi)                    # ConstData::const_pi, the double PI stored in a float
DAV_2201 = ("atlas-a3", "atlas-a2")       # __CCE_AICORE__ == 220; the 910 is 100
# GetUsedBytesPerDataInKernel: the queues' and buffers' bytes per element of each input type
BYTES_PER_DATA = {"int8": 1 * 2 + 4 * 2 + 1 + 4 * 2 + 2, "int16": 2 * 2 + 4 * 2 + 1 + 4 * 2,
                  "int32": 4 * 2 + 4 * 2 + 1 + 4 * 2, "int64": 8 * 2 + 4 * 2 + 1 + 4 * 2}


def tiling(device, x_dtype, total):
    """AngleV2Tiling for an integer input and the float output: (coreNum, tiling data)."""
    data_per_repeat = BYTE_REPEAT // 4
    core_num = min((total - 1) // data_per_repeat + 1, CORE_NUM)
    align_num = BYTE_BLOCK // min(np.dtype(x_dtype).itemsize, 4)   # GetAlignNum: int64 falls to the 4-byte default
    aligned = -(-total // align_num) * align_num
    block_num = aligned // align_num
    ub = aj.get_device(device).ub_bytes
    if device in DAV_2201:
        tile = (ub - SELECT_MODE_GE_ZERO_TMP_UB) // BYTES_PER_DATA[x_dtype] // data_per_repeat * data_per_repeat
    else:
        tile = ub // BYTES_PER_DATA[x_dtype] // data_per_repeat * data_per_repeat
    return core_num, dict(totalLength=total, alignNum=align_num, totalLengthAligned=aligned,
                          formerNum=block_num % core_num, tailNum=core_num - block_num % core_num,
                          formerLength=-(-block_num // core_num) * align_num,
                          tailLength=block_num // core_num * align_num, tileLength=tile,
                          dataPerRepeat=data_per_repeat)


class AngleV2Int:
    def __init__(self, x_dtype, dav_2201):
        self.xType, self.yType, self.dav_2201 = x_dtype, "float", dav_2201
        self.xSize = np.dtype(x_dtype).itemsize
        self.repeatParams = aj.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
        self.CastDownParams = aj.UnaryRepeatParams(1, 1, 4, 8)
        self.CastKeepParams = aj.UnaryRepeatParams(1, 1, 8, 8)
        self.CastHighParams = aj.UnaryRepeatParams(1, 1, 8, 4)
        self.dupDstBlockStride, self.dupDstRepeatStride = 1, 8
        self.maskDup910 = [0x5555555555555555, 0x5555555555555555]   # the even lanes: each pair's low half
        self.pairReduceSumCount, self.pairReduceSumRepStride = 128, 8

    # AngleV2Base
    def BaseMemberDataInit(self, t):
        self.totalLength, self.alignNum = t["totalLength"], t["alignNum"]
        self.formerNum, self.formerLength = t["formerNum"], t["formerLength"]
        self.tailNum, self.tailLength = t["tailNum"], t["tailLength"]
        self.totalLengthAligned, self.tileLength = t["totalLengthAligned"], t["tileLength"]
        self.mask = t["dataPerRepeat"]
        idx = aj.GetBlockIdx()
        if idx < self.formerNum:
            self.blockLength = self.formerLength
            self.offset = self.blockLength * idx
        else:
            self.blockLength = self.tailLength
            self.offset = self.formerLength * self.formerNum + self.tailLength * (idx - self.formerNum)
        self.CalTileLength()
        self.tileNum = (self.blockLength - 1) // self.tileLength
        self.lastTileLength = self.blockLength - self.tileNum * self.tileLength

    def CalTileLength(self):
        if self.dav_2201:
            if self.blockLength <= self.tileLength:
                self.tileLength = -(-self.blockLength // self.mask) * self.mask
        else:
            self.tileLength = self.mask

    def DoSelect(self, dstLocal, selMask, src0Local, src1Local, mask, repeatTimes):
        mode = aj.SELMODE.VSEL_TENSOR_TENSOR_MODE if self.dav_2201 else aj.SELMODE.VSEL_CMPMASK_SPR
        aj.Select(dstLocal, selMask, src0Local, src1Local, mode, mask, repeatTimes, self.repeatParams)

    # AngleV2Int
    def Init(self, x, y, tilingData):
        self.BaseMemberDataInit(tilingData)
        self.repeatTimes = -(-self.tileLength // self.mask)
        self.InitDataAddress(x, y)
        self.pipe = aj.TPipe()
        self.inQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.maskBuf1, self.zeroBuf, self.piBuf = aj.TBuf(), aj.TBuf(), aj.TBuf()
        # int8 is converted in 128-lane repeats: the port sizes its buffers to them (docstring)
        lanesIn = self.maskInt8 * self.repeatTimesInt8 if self.xType == "int8" else self.tileLength
        self.pipe.InitBuffer(self.inQueue, BUFFER_NUM, lanesIn * self.xSize)
        self.pipe.InitBuffer(self.outQueue, BUFFER_NUM, self.tileLength * 4)
        self.pipe.InitBuffer(self.maskBuf1, self.tileLength)
        self.pipe.InitBuffer(self.zeroBuf, self.tileLength * 4)
        self.pipe.InitBuffer(self.piBuf, self.tileLength * 4)
        self.halfBuf = self.bufB16 = self.bufB32 = None
        if self.xType == "int8":
            self.halfBuf = aj.TBuf()
            self.pipe.InitBuffer(self.halfBuf, lanesIn * 2)
        if not self.dav_2201:
            if self.xType == "int16":
                self.bufB16, self.halfBuf = aj.TBuf(), aj.TBuf()
                self.pipe.InitBuffer(self.bufB16, COEFFICENT * self.tileLength * 2)
                self.pipe.InitBuffer(self.halfBuf, self.tileLength * 2)
            elif self.xType == "int64":
                self.bufB32, self.bufB16, self.halfBuf = aj.TBuf(), aj.TBuf(), aj.TBuf()
                self.pipe.InitBuffer(self.bufB32, COEFFICENT * self.tileLength * 4)
                self.pipe.InitBuffer(self.bufB16, COEFFICENT * self.tileLength * 2)
                self.pipe.InitBuffer(self.halfBuf, self.tileLength * 2)

    def InitDataAddress(self, x, y):
        self.lastTileLengthOut = self.lastTileLengthIn = self.lastTileLength
        alignNumFp32 = 32 // 4
        totalLengthAlignedFP32 = -(-self.totalLength // alignNumFp32) * alignNumFp32
        diffLength = self.totalLengthAligned - totalLengthAlignedFP32
        last = aj.GetBlockIdx() == self.formerNum + self.tailNum - 1
        if self.xType in ("int8", "int16"):
            if self.xType == "int8":
                self.maskInt8 = self.mask * COEFFICENT
                self.repeatTimesInt8 = -(-self.repeatTimes // COEFFICENT)
            # fewer outputs when there is no room to move back; the original's move back is not ported (docstring)
            if last and self.offset < diffLength:
                self.lastTileLengthOut = self.lastTileLength - diffLength
        elif self.xType == "int64":
            self.maskInt64 = self.mask // COEFFICENT
            self.repeatTimesInt64 = self.repeatTimes * COEFFICENT
            alignNumInt64 = 32 // 8
            totalLengthAlignedInt64 = -(-self.totalLength // alignNumInt64) * alignNumInt64
            diffLength = self.totalLengthAligned - totalLengthAlignedInt64
            if last and self.offset < diffLength:
                self.lastTileLengthIn = self.lastTileLength - diffLength
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[self.offset:])
        self.yGm.SetGlobalBuffer(y[self.offset:])

    def Process(self):
        self.BufferGet()
        dataPerBlockIn, dataPerBlockOut = 32 // self.xSize, 32 // 4
        self.blockLenIn = self.tileLength // dataPerBlockIn
        self.blockLenOut = self.tileLength // dataPerBlockOut
        if self.xType == "int8":
            self.blockLenIn = self.maskInt8 * self.repeatTimesInt8 // dataPerBlockIn   # the lanes converted (docstring)
        for i in range(self.tileNum):
            coreOffset = i * self.tileLength
            self.CopyIn(coreOffset)
            self.Compute()
            self.CopyOut(coreOffset)
        if self.lastTileLength > 0:
            coreOffset = self.blockLength - self.lastTileLength
            self.repeatTimes = -(-self.lastTileLength // self.mask)
            # the original copies lastTileLengthIn elements and converts int8 and A2/A3 int64 over the full tile's
            # repeats; the port converts this tile's repeats and copies in every lane converted (docstring)
            if self.xType == "int8":
                self.repeatTimesInt8 = -(-self.repeatTimes // COEFFICENT)
                readIn = self.maskInt8 * self.repeatTimesInt8
            else:
                self.repeatTimesInt64 = self.repeatTimes * COEFFICENT
                readIn = self.repeatTimes * self.mask
            self.blockLenIn = max(self.lastTileLengthIn, readIn) // dataPerBlockIn
            self.blockLenOut = self.lastTileLengthOut // dataPerBlockOut
            self.CopyIn(coreOffset)
            self.Compute()
            self.CopyOut(coreOffset)

    def BufferGet(self):
        self.mask1 = self.maskBuf1.Get("uint8")
        self.zeroTensor = self.zeroBuf.Get(self.yType)
        self.piTensor = self.piBuf.Get(self.yType)
        if self.halfBuf is not None:
            self.halfTensor = self.halfBuf.Get("half")
        if self.bufB16 is not None:
            self.halfTensorDouble = self.bufB16.Get("half")
        if self.bufB32 is not None:
            self.castTensor = self.bufB32.Get(self.yType)
        aj.Duplicate(self.zeroTensor, np.float32(0.0), self.mask, self.repeatTimes, self.dupDstBlockStride,
                     self.dupDstRepeatStride)
        aj.Duplicate(self.piTensor, PI, self.mask, self.repeatTimes, self.dupDstBlockStride,
                     self.dupDstRepeatStride)

    def CopyIn(self, coreOffset):
        xLocal = self.inQueue.AllocTensor(self.xType)
        aj.DataCopy(xLocal, self.xGm[coreOffset], aj.DataCopyParams(1, self.blockLenIn, 0, 0))
        self.inQueue.EnQue(xLocal)

    def _pair_sum_into(self, result):
        """The common tail of the int16 and int64 conversions off dav_2201 (both branches of the original run it):
        Duplicate zeros under maskDup910, PairReduceSum the half pairs, Cast the sums into result."""
        aj.Duplicate(self.halfTensorDouble, np.float16(0.0), self.maskDup910, self.repeatTimes,
                     self.dupDstBlockStride, self.dupDstRepeatStride)
        aj.PairReduceSum(self.halfTensor, self.halfTensorDouble, 1, self.pairReduceSumCount, 1, 1,
                         self.pairReduceSumRepStride)
        aj.Cast(result, self.halfTensor, aj.RoundMode.CAST_NONE, self.mask, self.repeatTimes, self.CastHighParams)

    def Cast2Float(self, input, result):
        if self.xType == "int8":
            aj.Cast(self.halfTensor, input, aj.RoundMode.CAST_NONE, self.maskInt8, self.repeatTimesInt8,
                    self.CastHighParams)
            aj.Cast(result, self.halfTensor, aj.RoundMode.CAST_NONE, self.mask, self.repeatTimes, self.CastHighParams)
        elif self.xType == "int16":
            if self.dav_2201:
                aj.Cast(result, input, aj.RoundMode.CAST_NONE, self.mask, self.repeatTimes, self.CastHighParams)
            else:
                aj.Cast(self.halfTensorDouble, input.ReinterpretCast("int8"), aj.RoundMode.CAST_NONE,
                        self.mask * COEFFICENT, self.repeatTimes, self.CastHighParams)
                self._pair_sum_into(result)
        elif self.xType == "int32":
            aj.Cast(result, input, aj.RoundMode.CAST_NONE, self.mask, self.repeatTimes, self.CastKeepParams)
        else:
            if self.dav_2201:
                aj.Cast(result, input, aj.RoundMode.CAST_FLOOR, self.maskInt64, self.repeatTimesInt64,
                        self.CastDownParams)
            else:
                aj.Cast(self.castTensor, input.ReinterpretCast("int32"), aj.RoundMode.CAST_NONE, self.mask,
                        self.repeatTimes * COEFFICENT, self.CastKeepParams)
                aj.Cast(self.halfTensorDouble, self.castTensor, aj.RoundMode.CAST_NONE, self.mask,
                        self.repeatTimes * COEFFICENT, self.CastDownParams)
                self._pair_sum_into(result)

    def Compute(self):
        input = self.inQueue.DeQue(self.xType)
        result = self.outQueue.AllocTensor(self.yType)
        self.Cast2Float(input, result)
        # result = 0 where input >= 0, else pi
        aj.Compare(self.mask1, result, self.zeroTensor, aj.CMPMODE.GE, self.mask, self.repeatTimes,
                   self.repeatParams)
        self.DoSelect(result, self.mask1, self.zeroTensor, self.piTensor, self.mask, self.repeatTimes)
        self.outQueue.EnQue(result)
        self.inQueue.FreeTensor(input)

    def CopyOut(self, coreOffset):
        result = self.outQueue.DeQue(self.yType)
        aj.DataCopy(self.yGm[coreOffset], result, aj.DataCopyParams(1, self.blockLenOut, 0, 0))
        self.outQueue.FreeTensor(result)


def angle_v2(x, y, tiling_data, x_dtype, dav_2201):
    op = AngleV2Int(x_dtype, dav_2201)
    op.Init(x, y, tiling_data)
    op.Process()


def _make_inputs(x_dtype):
    def make_inputs(size, seed):
        """Random integers over the whole range, with zeros, -1, 1 and the extremes mixed in."""
        rng = np.random.default_rng(seed)
        info = np.iinfo(x_dtype)
        x = rng.integers(info.min, info.max, size, dtype=x_dtype, endpoint=True)
        special = rng.random(size) < 1 / 8
        x[special] = rng.choice(np.array([0, -1, 1, info.min, info.max, 255, -256], dtype=np.int64)
                                .astype(x_dtype), int(special.sum()))
        return {"x": x}
    return make_inputs


def _run(x_dtype):
    def run(device, inputs):
        x = inputs["x"]
        block_dim, tiling_data = tiling(device, x_dtype, x.size)
        # GM as device allocations: padded past the input, to whole input blocks and whole last-tile repeats
        padded = tiling_data["totalLengthAligned"] + 2 * BYTE_REPEAT
        gm_x = np.zeros(padded, x_dtype)
        gm_x[:x.size] = x
        gm_y = np.zeros(padded, np.float32)
        aj.launch(angle_v2, block_dim, device, gm_x, gm_y, tiling_data, x_dtype, device in DAV_2201)
        return {"y": gm_y[:x.size]}
    return run


def expected(device, inputs):
    return {"y": np.where(inputs["x"] < 0, PI, np.float32(0.0)).astype(np.float32)}


_SOURCE = "hicann/ops-math@c4193324 math/angle_v2/op_kernel/angle_v2_int.h"
_DEVICES = DAV_2201 + ("atlas-training",)
KERNELS = [
    KernelSpec(f"angle_v2_{t}", f"AngleV2 over {t}: Cast to float ({how}), Compare GE against a zero tile, Select "
               "zero or pi (mode 2 on the A2/A3, mode 0 on the 910); high-dim forms throughout",
               _make_inputs(t), _run(t), expected, default_size=20000, devices=_DEVICES, source=_SOURCE)
    for t, how in (("int8", "through half"),
                   ("int16", "910: int8 pairs to half, Duplicate 0 under a bit mask, PairReduceSum"),
                   ("int32", "directly"),
                   ("int64", "A2/A3 CAST_FLOOR; 910: int32 pairs to float to half, bit-mask Duplicate, "
                             "PairReduceSum"))
]
