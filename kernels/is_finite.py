"""IsFinite from the CANN math operators: y = isfinite(x) as bytes, computed on the exponent bits with int16 vector
instructions and two reinterpreting Casts, no float arithmetic at all.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ 2d110677dfffff151a98e6e2e693808e651feda9, math/is_finite/op_kernel/is_finite.h (`IsFinite<T, MASK>`:
the input read as int16; Duplicate the exponent mask, And, Sub the mask (0 only when every exponent bit is set),
Maxs -1, Muls -1 (1 finite, 0 not), then Cast of those int16 bits *reinterpreted as half* (1 is the subnormal 2**-24)
to uint8 with CAST_CEIL, which gives 1) with the host tiling of math/is_finite/op_host/is_finite_tiling.cpp
(`RunBigKernelTiling`: a tenth of the UB less 1024 bytes and the 40-byte tiling struct, rounded down to 32 elements,
per double-buffered queue tile; the input spread over the cores in 32-element blocks, the first `tailDataCoreNum`
cores one block more, the last core the rest; each core walks whole UB tiles and one short tile).

The two builds of the original: on the A2/A3 (`__CCE_AICORE__ == 220`) every copy is a DataCopyPad with the older
DataCopyParams (blockLen in bytes; the uint8 output of a short tile copied out byte-exact); on the 310P the short tile
is read by DataCopy rounded up to 16 halves and written rounded up to 32 bytes, so GM is padded as device allocations
are. Deviation: there the last core's copy-out of 32 bytes would read up to 16 bytes the Cast never wrote (stale
queue data: they land in the GM padding, but the sanitizer rightly reports the uninitialised UB read), so the port
rounds that short tile up to 32 elements instead of 16: every byte copied out was computed; y[:n] is unchanged.

Variants: `is_finite` (half, mask 0x7c00: A2, A3, 310P) and `is_finite_bf16` (bfloat16, mask 0x7f80: the A2/A3 build
only, as the operator's 310P configuration lists half and float). Every instruction used is an int16 one, so bfloat16
needs no bfloat16 arithmetic. The float variant (`IsFinite<float, 0x7f80>`) is not portable: its `Cast(src.
ReinterpretCast<half>(), src.ReinterpretCast<float>(), CAST_NONE, n)` narrows in place, which SPEC-2 D34 refuses
("Cast between types of different sizes allows no overlap at all", the Cast page's rule).

Deviation: the core count is the launch's 8 (the platform's AIV count would be 20-48).

Fidelity: BIT-EXACT (And, Sub, Maxs, Muls on int16, Duplicate, DataCopy/DataCopyPad and Cast half -> uint8 are
BIT-EXACT, SPEC-2 0.3); checked bit for bit against numpy's isfinite.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
DATA_BLOCK = 32
CORE_NUM = 8
TILING_DATA_SIZE = 40                     # IsFiniteTilingData: 2 uint32 + 4 uint64 fields
UB_DIVIDER_FOR_TEMP_CASTING = 10
HALF_TYPE_MASK = 0x7C00
BF16_TYPE_MASK = 0x7F80
FLOAT_INTERVAL_TYPE = 2
DAV_2201 = ("atlas-a3", "atlas-a2")       # the __CCE_AICORE__ == 220 build


def tiling(device, total):
    """RunBigKernelTiling for a 2-byte input: (needCoreNum, tiling data)."""
    data_block_size = DATA_BLOCK * 2
    usable = (aj.get_device(device).ub_bytes - 1024 - TILING_DATA_SIZE) // UB_DIVIDER_FOR_TEMP_CASTING
    usable = usable // data_block_size * data_block_size
    need = min(-(-total // DATA_BLOCK), CORE_NUM)
    per = total // need // DATA_BLOCK * DATA_BLOCK
    rest = total - per * need
    return need, dict(usableUbSize=usable, needCoreNum=need, totalDataCount=total, perCoreDataCount=per,
                      tailDataCoreNum=rest // DATA_BLOCK, lastCoreDataCount=per + rest % DATA_BLOCK)


class IsFinite:
    def __init__(self, dtype, mask, dav_2201):
        self.dtype, self.MASK, self.dav_2201 = dtype, mask, dav_2201

    def Init(self, x, y, tilingData):
        self.inputGM, self.outputGM = aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGM.SetGlobalBuffer(x, dtype="int16")
        self.outputGM.SetGlobalBuffer(y)
        self.ParseTilingData(tilingData)
        self.maxDataCount = self.usableUbSize // 2 // DATA_BLOCK * DATA_BLOCK
        actualMaxDataCount = self.maxDataCount // self.selectInterval
        self.pipe = aj.TPipe()
        self.inputQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outputQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.cacheTensorBuff = aj.TBuf()
        self.pipe.InitBuffer(self.inputQueue, BUFFER_NUM, self.maxDataCount * 2)
        self.pipe.InitBuffer(self.outputQueue, BUFFER_NUM, actualMaxDataCount)
        self.pipe.InitBuffer(self.cacheTensorBuff, self.maxDataCount * 2)

    def ParseTilingData(self, tilingData):
        self.blockIdx = aj.GetBlockIdx()
        self.coreNum = tilingData["needCoreNum"]
        self.usableUbSize = tilingData["usableUbSize"]
        self.perCoreDataCount = tilingData["perCoreDataCount"]
        tailCoreNum = tilingData["tailDataCoreNum"]
        self.selectInterval = 1          # sizeof(T) / sizeof(int16_t) for the 2-byte types
        if tailCoreNum == 0:
            self.blockOffset = self.perCoreDataCount * self.blockIdx
        elif self.blockIdx + 1 <= tailCoreNum:
            self.perCoreDataCount += DATA_BLOCK
            self.blockOffset = self.perCoreDataCount * self.blockIdx
        else:
            self.blockOffset = ((self.perCoreDataCount + DATA_BLOCK) * tailCoreNum
                                + self.perCoreDataCount * (self.blockIdx - tailCoreNum))
        if self.blockIdx == self.coreNum - 1:
            self.perCoreDataCount = tilingData["lastCoreDataCount"]
        self.blockOffset *= self.selectInterval
        self.perCoreDataCount *= self.selectInterval

    def CopyIn(self, offset, calCount):
        dataLocal = self.inputQueue.AllocTensor("int16")
        if self.dav_2201:
            copyParams = aj.DataCopyParams()
            copyParams.blockCount = 1
            copyParams.blockLen = calCount * 2
            copyParams.srcStride = 0
            copyParams.dstStride = 0
            aj.DataCopyPad(dataLocal, self.inputGM[offset], copyParams, aj.DataCopyPadParams(False, 0, 0, 0))
        else:
            aj.DataCopy(dataLocal, self.inputGM[offset], calCount)
        self.inputQueue.EnQue(dataLocal)

    def CopyOut(self, offset, calCount):
        dstLocal = self.outputQueue.DeQue("uint8")
        if self.dav_2201:
            copyParams = aj.DataCopyParams()
            copyParams.blockCount = 1
            copyParams.blockLen = calCount
            copyParams.srcStride = 0
            copyParams.dstStride = 0
            aj.DataCopyPad(self.outputGM[offset], dstLocal, copyParams)
        else:
            aj.DataCopy(self.outputGM[offset], dstLocal, calCount)
        self.outputQueue.FreeTensor(dstLocal)

    def Compute(self, calCount):
        srcTensor = self.inputQueue.DeQue("int16")
        dstTensor = self.outputQueue.AllocTensor("uint8")
        cacheTensor = self.cacheTensorBuff.Get("int16")
        aj.Duplicate(cacheTensor, np.int16(self.MASK), calCount)
        aj.And(srcTensor, srcTensor, cacheTensor, calCount)
        aj.Sub(srcTensor, srcTensor, cacheTensor, calCount)
        aj.Maxs(srcTensor, srcTensor, np.int16(-1), calCount)
        aj.Muls(srcTensor, srcTensor, np.int16(-1), calCount)
        actualCalCount = calCount // self.selectInterval
        aj.Cast(dstTensor, srcTensor.ReinterpretCast("half"), aj.RoundMode.CAST_CEIL, actualCalCount)
        self.inputQueue.FreeTensor(srcTensor)
        self.outputQueue.EnQue(dstTensor)

    def Process(self):
        loopCount, tailDataCount = divmod(self.perCoreDataCount, self.maxDataCount)
        actualInOffset = self.blockOffset
        actualOutOffset = self.blockOffset // self.selectInterval
        actualOutCount = self.maxDataCount // self.selectInterval
        for _ in range(loopCount):
            self.CopyIn(actualInOffset, self.maxDataCount)
            self.Compute(self.maxDataCount)
            self.CopyOut(actualOutOffset, actualOutCount)
            actualOutOffset += actualOutCount
            actualInOffset += self.maxDataCount
        if tailDataCount > 0:
            dataCount = tailDataCount
            if self.dav_2201:
                actualOutCount = dataCount // self.selectInterval
            else:
                # the original rounds to DATA_BLOCK / sizeof(int16_t) = 16 elements; the port to 32 (module docstring)
                dataCount = -(-tailDataCount // DATA_BLOCK) * DATA_BLOCK
                actualOutCount = -(-(dataCount // self.selectInterval) // DATA_BLOCK) * DATA_BLOCK
            self.CopyIn(actualInOffset, dataCount)
            self.Compute(dataCount)
            self.CopyOut(actualOutOffset, actualOutCount)


def is_finite(x, y, tiling_data, dtype, mask, dav_2201):
    op = IsFinite(dtype, mask, dav_2201)
    op.Init(x, y, tiling_data)
    op.Process()


def _make_inputs(np_dtype):
    def make_inputs(size, seed):
        """Random bit patterns (a sixteenth of them inf or nan: the exponent bits forced to all ones)."""
        rng = np.random.default_rng(seed)
        bits = rng.integers(0, 1 << 16, size, dtype=np.uint16)
        special = rng.random(size) < 1 / 16
        bits[special] |= HALF_TYPE_MASK if np_dtype == np.float16 else BF16_TYPE_MASK
        return {"x": bits.view(np_dtype)}
    return make_inputs


def _run(mask):
    def run(device, inputs):
        x = inputs["x"]
        padded = -(-x.size // DATA_BLOCK) * DATA_BLOCK     # the 310P's short tile is read rounded up to 32 elements
        gm_x = np.zeros(padded, np.uint16)
        gm_x[:x.size] = x.view(np.uint16)
        gm_y = np.zeros(padded, np.uint8)
        block_dim, tiling_data = tiling(device, x.size)
        aj.launch(is_finite, block_dim, device, gm_x, gm_y, tiling_data, "int16", mask, device in DAV_2201)
        return {"y": gm_y[:x.size]}
    return run


def expected(device, inputs):
    return {"y": np.isfinite(inputs["x"].astype(np.float32)).astype(np.uint8)}


_SOURCE = "hicann/ops-math@2d110677 math/is_finite/op_kernel/is_finite.h"
KERNELS = [
    KernelSpec("is_finite", "IsFinite over halves: exponent bits by int16 Duplicate/And/Sub/Maxs/Muls, Cast of the bits "
               "reinterpreted as half to uint8 (CAST_CEIL); DataCopyPad with DataCopyParams (A2/A3) or rounded DataCopy "
               "(310P)", _make_inputs(np.float16), _run(HALF_TYPE_MASK), expected, default_size=156160,
               devices=DAV_2201 + ("atlas-inference-aicore",), source=_SOURCE),
    KernelSpec("is_finite_bf16", "IsFinite over bfloat16 (the same int16 sequence with the mask 0x7f80)",
               _make_inputs(ml_dtypes.bfloat16), _run(BF16_TYPE_MASK), expected, default_size=156160,
               devices=DAV_2201, source=_SOURCE),
]
