"""FakeQuantAffineCachemask from a CANN operator collection, float: per channel (the first axis), q = rint(x / scale)
+ zero_point, mask = quant_min <= q <= quant_max (a uint8 "bool"), y = (clamp(q) - zero_point) * scale; channels
spread over the cores, each channel walked in tiles of whole repeats.

Ported (structure and instruction sequence; written in our own words) from
Hayden727/cann-ops @ d5357636b1421fbf583805e4c17c917f76ecc8f6,
src/quant/fake_quant_affine_cachemask/op_kernel/fake_quant_affine_cachemask_fp32.h (`FakeQuantAffineCachemaskFp32`:
the scale by `scaleGm.GetValue(i)` and the zero point by an int32 GM GetValue per channel; Muls by the scalar unit's
1 / scale, Cast float -> int32 CAST_RINT and back, Adds, Compare GE / LE against Duplicate'd bounds into uint8 bit
masks, high-dim Selects of 1 / 0 (mask 64, BinaryRepeatParams as a brace list), Mul for the logical and, Cast float
-> half -> uint8 with CAST_RINT for the mask; Maxs / Mins on int32, Cast int32 -> float CAST_ROUND, Compare EQ of x
with itself and NE against the "inf" tensor with tensor-scalar Selects, Adds, Muls; PipeBarrier<PIPE_ALL> between
the stages) with its base class fake_quant_affine_cachemask_base.h (BaseMemberDataInit's channel split: the first
headNum % cores cores one channel more; DataCopyPad in and out with DataCopyExtParams) and the host tiling of
op_host/fake_quant_affine_cachemask.cpp (tiles of (UB - 8000) / 68 floats rounded down to 64; the channel length
rounded up to 8 floats; min(channels, cores) cores).

Faithful quirks: the "inf" tensor is Duplicate(static_cast<float>(0x80000000)), i.e. 2**31, so a value whose int32
rounding saturates (|x / scale| >= 2**31) takes quant_min in y; NaN takes quant_min in y and 0 in the mask.

Deviations: (1) the core count is the launch's 8 at most (GetCoreNumAic gives the device's). (2) The last,
partial tile of a channel is copied in short but computed over a whole tile (`Compute(tileLength)`): the lanes past
the copy are stale UB (uninitialised at the first use; the sanitizer reports them, though their results are never
copied out). The port zeroes that tile with Duplicate and a PipeBarrier<PIPE_ALL> before its copy-in, and runs
that tile's high-dim Selects over the whole tile too (the original's repeatTimes from the partial length leaves the
rest of their outputs stale for the whole-tile Mul that reads them: on the 310B, whose tile exceeds the channel, the
first use reads uninitialised bytes). (3) GM is
padded past the last channel by the rounding of the channel length to 8 floats (the GM windows span it).

Devices: Cast float -> int32 CAST_RINT is not offered on the 310P and 910 (SPEC-2 7.2), and the 950's table has no
CAST_NONE for int32 -> float (SPEC-2 D72 refuses it; the kernel's `Cast(curTemp, curInt32Temp, CAST_NONE)` would
need CAST_RINT there): the A3, A2 and 310B.

Fidelity: BIT-EXACT (Muls, Adds, Mul, Maxs, Mins, Cast, Compare, Select, Duplicate and DataCopyPad are BIT-EXACT,
SPEC-2 0.3): checked bit for bit against the same steps composed from the package's reference model (the Cast rules
of SPEC-2 7.3 with the device's CTRL defaults).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
CORE_NUM = 8
BYTES_PER_DATA_FP32 = 68
BYTE_REPEAT = 256
SELECT_MODE_GE_ZERO_TMP_UB = 8000
QUANT_MIN, QUANT_MAX = -128, 127
CHANNEL_LENGTH = 3000          # the elements of one channel (calcLength); the size is channels x this
DEVICES = ("atlas-a3", "atlas-a2", "atlas-200i-500-a2")


def tiling(device, total):
    """FakeQuantAffineCachemaskTiling for float x of shape (total / CHANNEL_LENGTH, CHANNEL_LENGTH)."""
    head_num, calc_length = total // CHANNEL_LENGTH, CHANNEL_LENGTH
    core_num = min(head_num, CORE_NUM)
    data_per_repeat = BYTE_REPEAT // 4
    tile_length = ((aj.get_device(device).ub_bytes - SELECT_MODE_GE_ZERO_TMP_UB) // BYTES_PER_DATA_FP32
                   // data_per_repeat * data_per_repeat)
    return core_num, dict(quantMin=QUANT_MIN, quantMax=QUANT_MAX, loopNum=head_num // core_num,
                          remainNum=head_num % core_num, calcLength=calc_length, headNum=head_num,
                          dataPerRepeat=data_per_repeat, totalLengthAligned=-(-calc_length // 8) * 8,
                          tileLength=tile_length)


class FakeQuantAffineCachemaskFp32:
    def BaseMemberDataInit(self, tilingData):
        t = tilingData
        self.loopNum, self.remainNum, self.calcLength = t["loopNum"], t["remainNum"], t["calcLength"]
        self.headNum, self.totalLengthAligned, self.tileLength = t["headNum"], t["totalLengthAligned"], t["tileLength"]
        self.quantMin, self.quantMax, self.mask = t["quantMin"], t["quantMax"], t["dataPerRepeat"]
        self.offset, self.scaleOffset, self.circleNum = 0, 0, self.loopNum
        idx = aj.GetBlockIdx()
        if self.remainNum == 0:
            self.blockLength = self.totalLengthAligned * self.loopNum
            self.offset = self.calcLength * self.loopNum * idx
            self.scaleOffset = self.loopNum * idx
        elif idx < self.remainNum:
            self.blockLength = self.totalLengthAligned * (self.loopNum + 1)
            for _ in range(idx):
                self.offset += self.calcLength * (self.loopNum + 1)
                self.scaleOffset += self.loopNum + 1
            self.circleNum = self.loopNum + 1
        else:
            self.blockLength = self.totalLengthAligned * self.loopNum
            self.offset = self.calcLength * (self.remainNum + idx * self.loopNum)
            self.scaleOffset = self.remainNum + idx * self.loopNum
        self.tileNum = self.totalLengthAligned // self.tileLength
        self.lastTileLength = self.totalLengthAligned % self.tileLength
        self.lastActulTileLength = self.calcLength % self.tileLength

    def Init(self, x, scale, zero_point, y, mask, tilingData):
        self.BaseMemberDataInit(tilingData)
        self.xGm, self.scaleGm, self.zeroGm, self.yGm, self.maskGm = (aj.GlobalTensor() for _ in range(5))
        self.xGm.SetGlobalBuffer(x[self.offset:], self.blockLength)
        self.scaleGm.SetGlobalBuffer(scale[self.scaleOffset:], self.circleNum)
        self.zeroGm.SetGlobalBuffer(zero_point[self.scaleOffset:], self.circleNum)
        self.yGm.SetGlobalBuffer(y[self.offset:], self.blockLength)
        self.maskGm.SetGlobalBuffer(mask[self.offset:], self.blockLength)
        n = self.tileLength
        self.pipe = aj.TPipe()
        self.inQueueData = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueOut = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.outQueueMask = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.pipe.InitBuffer(self.inQueueData, BUFFER_NUM, n * 4)
        self.pipe.InitBuffer(self.outQueueOut, BUFFER_NUM, n * 4)
        self.pipe.InitBuffer(self.outQueueMask, BUFFER_NUM, n)
        for name, nbytes in (("calcBuf", BUFFER_NUM * n * 4), ("calcInt32Buf", BUFFER_NUM * n * 4),
                             ("calcHf16Buf", BUFFER_NUM * n * 2), ("maskBuf", BUFFER_NUM * n),
                             ("selectBuf", BUFFER_NUM * n * 4), ("quantMinQueueBuf", n * 4),
                             ("quantMaxQueueBuf", n * 4), ("zeroBuf", n * 4), ("infBuf", n * 4), ("oneBuf", n * 4)):
            setattr(self, name, aj.TBuf(aj.QuePosition.VECCALC))
            self.pipe.InitBuffer(getattr(self, name), nbytes)

    def CommonBufferGet(self, coreLength):
        self.quantMinTensor, self.quantMaxTensor = self.quantMinQueueBuf.Get("float"), self.quantMaxQueueBuf.Get("float")
        self.zeroTensor, self.oneTensor = self.zeroBuf.Get("float"), self.oneBuf.Get("float")
        self.infTensor = self.infBuf.Get("float")
        aj.Duplicate(self.quantMinTensor, float(self.quantMin), coreLength)
        aj.Duplicate(self.quantMaxTensor, float(self.quantMax), coreLength)
        aj.Duplicate(self.oneTensor, 1.0, coreLength)
        aj.Duplicate(self.zeroTensor, 0.0, coreLength)
        aj.Duplicate(self.infTensor, float(0x80000000), coreLength)   # static_cast<float>(0x80000000): 2**31

    def CommonCopyIn(self, calcOffset, coreLength):
        xLocal = self.inQueueData.AllocTensor("float")
        if coreLength < self.tileLength:   # deviation (2): Compute(tileLength) reads the whole tile
            aj.Duplicate(xLocal, 0.0, self.tileLength)
            aj.PipeBarrier(aj.PIPE_ALL)
        copyParams = aj.DataCopyExtParams(1, coreLength * 4, 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(False, 0, 0, 0)
        aj.DataCopyPad(xLocal, self.xGm[calcOffset], copyParams, padParams)
        self.inQueueData.EnQue(xLocal)

    def CommonCopyOut(self, calcOffset, coreLength):
        yLocal = self.outQueueOut.DeQue("float")
        maskLocal = self.outQueueMask.DeQue("uint8")
        outCopyOutParams = aj.DataCopyExtParams()
        outCopyOutParams.blockCount = 1
        outCopyOutParams.blockLen = coreLength * 4
        outCopyOutParams.dstStride = 0
        outCopyOutParams.srcStride = 0
        outCopyOutParams.rsv = 0
        maskCopyOutParams = aj.DataCopyExtParams()
        maskCopyOutParams.blockCount = 1
        maskCopyOutParams.blockLen = coreLength
        maskCopyOutParams.dstStride = 0
        maskCopyOutParams.srcStride = 0
        maskCopyOutParams.rsv = 0
        aj.DataCopyPad(self.yGm[calcOffset], yLocal, outCopyOutParams)
        aj.DataCopyPad(self.maskGm[calcOffset], maskLocal, maskCopyOutParams)
        self.outQueueOut.FreeTensor(yLocal)
        self.outQueueMask.FreeTensor(maskLocal)

    def Process(self):
        self.CommonBufferGet(self.tileLength)
        for i in range(self.circleNum):
            self.scaleValue = np.float32(self.scaleGm.GetValue(i))
            self.zeroPointValue = int(self.zeroGm.GetValue(i))
            dataOffset = i * self.calcLength
            for j in range(self.tileNum):
                calcOffset = dataOffset + j * self.tileLength
                self.repeatTimes = (self.tileLength + self.mask - 1) // self.mask
                self.CommonCopyIn(calcOffset, self.tileLength)
                aj.PipeBarrier(aj.PIPE_ALL)
                self.Compute(self.tileLength)
                aj.PipeBarrier(aj.PIPE_ALL)
                self.CommonCopyOut(calcOffset, self.tileLength)
                aj.PipeBarrier(aj.PIPE_ALL)
            if self.lastTileLength > 0:
                calcOffset = dataOffset + self.tileNum * self.tileLength
                # deviation (2): the original's repeats cover lastTileLength only, leaving the Selects' outputs past
                # it stale for the whole-tile Mul that follows; the port's Selects cover the tile Compute covers
                self.repeatTimes = (self.tileLength + self.mask - 1) // self.mask
                self.CommonCopyIn(calcOffset, self.lastActulTileLength)
                aj.PipeBarrier(aj.PIPE_ALL)
                self.Compute(self.tileLength)
                aj.PipeBarrier(aj.PIPE_ALL)
                self.CommonCopyOut(calcOffset, self.lastActulTileLength)

    def Compute(self, calCount):
        xLocal = self.inQueueData.DeQue("float")
        yLocal = self.outQueueOut.AllocTensor("float")
        maskLocal = self.outQueueMask.AllocTensor("uint8")
        curTemp, curInt32Temp = self.calcBuf.Get("float"), self.calcInt32Buf.Get("int32")
        curHf16Temp, selectTemp, maskTemp = self.calcHf16Buf.Get("half"), self.selectBuf.Get("float"), \
            self.maskBuf.Get("uint8")
        repeatTimes = self.repeatTimes
        # tmp = x / scale + zero_point
        aj.Muls(curTemp, xLocal, np.float32(1.0) / self.scaleValue, calCount)
        aj.Cast(curInt32Temp, curTemp, aj.RoundMode.CAST_RINT, calCount)
        aj.Cast(curTemp, curInt32Temp, aj.RoundMode.CAST_NONE, calCount)
        aj.Cast(yLocal, curInt32Temp, aj.RoundMode.CAST_NONE, calCount)
        aj.Adds(curTemp, curTemp, float(self.zeroPointValue), calCount)
        aj.Cast(curInt32Temp, curTemp, aj.RoundMode.CAST_RINT, calCount)
        aj.PipeBarrier(aj.PIPE_ALL)
        # maskTemp = (round(curTemp) >= quant_min) & (round(curTemp) <= quant_max)
        aj.Compare(maskTemp, curTemp, self.quantMinTensor, aj.CMPMODE.GE, calCount)
        repeatParams = (1, 1, 1, 8, 8, 8)
        aj.Select(selectTemp, maskTemp, self.oneTensor, self.zeroTensor, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, self.mask,
                  repeatTimes, repeatParams)
        aj.Compare(maskTemp, curTemp, self.quantMaxTensor, aj.CMPMODE.LE, calCount)
        aj.Select(curTemp, maskTemp, self.oneTensor, self.zeroTensor, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, self.mask,
                  repeatTimes, repeatParams)
        aj.Mul(curTemp, selectTemp, curTemp, calCount)          # the logical and
        aj.Cast(curHf16Temp, curTemp, aj.RoundMode.CAST_RINT, calCount)   # float -> half -> uint8
        aj.Cast(maskLocal, curHf16Temp, aj.RoundMode.CAST_RINT, calCount)
        aj.PipeBarrier(aj.PIPE_ALL)
        # y = (Mins(Maxs(tmp, quant_min), quant_max) - zero_point) * scale
        aj.Maxs(curInt32Temp, curInt32Temp, self.quantMin, calCount)
        aj.Mins(curInt32Temp, curInt32Temp, self.quantMax, calCount)
        aj.Cast(curTemp, curInt32Temp, aj.RoundMode.CAST_ROUND, calCount)
        aj.Compare(maskTemp, xLocal, xLocal, aj.CMPMODE.EQ, calCount)
        aj.Select(curTemp, maskTemp, curTemp, float(self.quantMin), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, self.mask,
                  repeatTimes, repeatParams)
        aj.Compare(maskTemp, yLocal, self.infTensor, aj.CMPMODE.NE, calCount)
        aj.Select(curTemp, maskTemp, curTemp, float(self.quantMin), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, self.mask,
                  repeatTimes, repeatParams)
        aj.Adds(curTemp, curTemp, float(-1 * self.zeroPointValue), calCount)
        aj.Muls(yLocal, curTemp, self.scaleValue, calCount)
        aj.PipeBarrier(aj.PIPE_ALL)
        self.outQueueOut.EnQue(yLocal)
        self.outQueueMask.EnQue(maskLocal)
        self.inQueueData.FreeTensor(xLocal)


def fake_quant_affine_cachemask(x, scale, zero_point, y, mask, tiling_data):
    op = FakeQuantAffineCachemaskFp32()
    op.Init(x, scale, zero_point, y, mask, tiling_data)
    op.Process()


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    channels = size // CHANNEL_LENGTH
    scale = rng.uniform(0.01, 0.05, channels).astype(np.float32)
    zero_point = rng.integers(-20, 20, channels, dtype=np.int32)
    x = (rng.standard_normal((channels, CHANNEL_LENGTH)) * 3).astype(np.float32)
    x[:, :4] = [np.nan, 3e9, -3e9, np.inf]       # NaN, int32 saturation both ways, inf
    return {"x": x.reshape(-1), "scale": scale, "zero_point": zero_point}


def run(device, inputs):
    x = inputs["x"]
    pad = -(-CHANNEL_LENGTH // 8) * 8 - CHANNEL_LENGTH + 8      # deviation (3): the windows' rounding
    gm_x = np.zeros(x.size + pad, np.float32)
    gm_x[:x.size] = x
    y, mask = np.zeros(x.size + pad, np.float32), np.zeros(x.size + pad, np.uint8)
    block_dim, tiling_data = tiling(device, x.size)
    aj.launch(fake_quant_affine_cachemask, block_dim, device, gm_x, inputs["scale"], inputs["zero_point"], y, mask,
              tiling_data)
    return {"y": y[:x.size], "mask": mask[:x.size]}


def expected(device, inputs):
    """The kernel's steps through the reference model: elementwise lanes, SPEC-2 7.3 Casts, exact compares."""
    from ascend_jit.reference import convert as rc
    from ascend_jit.reference import elementwise as ref
    core = aj.Core(device)
    env = ref.Env(device, sat_half=core.half_saturating, sat_int=core.int_saturating)

    types = {"float": (np.float32, np.uint32), "int32": (np.int32, np.uint32), "half": (np.float16, np.uint16),
             "uint8": (np.uint8, np.uint8)}

    def cast(values, src, dst, mode):
        truncate, saturate = rc.overflow_rules(device, src, dst, int(core.cast_truncating), core.half_saturating)
        values = np.asarray(values)
        bits = values.reshape(-1).astype(types[src][0]).view(types[src][1]).astype(np.uint64)
        out = rc.convert(src, dst, mode, bits, truncate, saturate).astype(types[dst][1]).view(types[dst][0])
        return out.astype(np.float64).reshape(values.shape)

    x = inputs["x"].reshape(-1, CHANNEL_LENGTH).astype(np.float64)
    scale = inputs["scale"].astype(np.float64)[:, None]
    zp = inputs["zero_point"].astype(np.float64)[:, None]
    inv = (np.float32(1.0) / inputs["scale"]).astype(np.float64)[:, None]
    q = cast(ref.mul("float", env, x, inv), "float", "int32", "CAST_RINT")
    t = ref.add("float", env, cast(q, "int32", "float", "CAST_NONE"), zp)
    y_local = cast(q, "int32", "float", "CAST_NONE")
    q2 = cast(t, "float", "int32", "CAST_RINT")
    inside = ((t >= QUANT_MIN) & (t <= QUANT_MAX)).astype(np.float64)
    mask = cast(cast(inside, "float", "half", "CAST_RINT"), "half", "uint8", "CAST_RINT")
    clamped = cast(np.clip(q2, QUANT_MIN, QUANT_MAX), "int32", "float", "CAST_ROUND")
    clamped = np.where(x == x, clamped, QUANT_MIN)
    clamped = np.where(y_local != 2.0 ** 31, clamped, QUANT_MIN)
    y = ref.mul("float", env, ref.add("float", env, clamped, -zp), scale)
    return {"y": np.asarray(y, np.float32).reshape(-1), "mask": mask.astype(np.uint8).reshape(-1)}


KERNEL = KernelSpec("fake_quant", "FakeQuantAffineCachemask over float channels of 3000: Muls, Casts float <-> int32, "
                    "Compare into uint8 masks, high-dim Selects (brace-list params), Maxs/Mins on int32, Cast float -> "
                    "half -> uint8 mask; per-channel scale and int32 zero point by GM GetValue",
                    make_inputs, run, expected, default_size=10 * CHANNEL_LENGTH, devices=DEVICES,
                    size_rule=f"a multiple of {CHANNEL_LENGTH} (channels of {CHANNEL_LENGTH} floats)",
                    size_ok=lambda n: n > 0 and n % CHANNEL_LENGTH == 0,
                    source="Hayden727/cann-ops@d5357636 src/quant/fake_quant_affine_cachemask/op_kernel/"
                           "fake_quant_affine_cachemask_fp32.h")
