"""Pows from the CANN math operators: y = x ** s with s a one-element tensor, for the six exponents the kernel
recognises (-2, -1, -0.5, 0.5, 2 and 3, each within 1e-9), computed in float over float, half and bfloat16 inputs
(the 16-bit types cast to float and back).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, math/pows:
- op_kernel/pows.cpp (the entry: GetUserWorkspace, GET_TILING_DATA, tiling key 101 `PowsFp16<half>`, 201
  `PowsBfp16<bfloat16_t>` (not on the 200-class cores), 301 `PowsFp32<float>`);
- op_kernel/pows_base.h (`PowsBase<T>`): a core's share from blockIdx * numPerCore; the last core (if the split is
  uneven) walks tailCoreLoopNum tiles and a tail, the others mainCoreLoopNum tiles and a tail, dataLength apart;
  CopyInXBase: DataCopyPad with DataCopyParams / DataCopyPadParams (isPad false) on the 220 cores (A2 / A3), else
  DataCopy of the count rounded up to 32 bytes followed by an MTE2_V flag pair; CopyOutBase: a V_MTE3 flag pair
  (FetchEventID) then DataCopyPad / DataCopy as for the copy-in; ComputePowsBase: by the exponent's range a
  PipeBarrier<PIPE_V>-separated chain of Mul, Duplicate 1.0, Div and Sqrt (1 / (x * x), 1 / x, sqrt(x),
  1 / sqrt(x), x * x, x * x * x);
- op_kernel/pows_fp32.h (`PowsFp32<T>`: the chain from the depth-2 VECIN queue into the VECOUT tile; the exponent
  by `x2Gm.GetValue(0)`), pows_fp16.h (`PowsFp16<T>`: Cast half -> float CAST_NONE into a TBuf, the chain into a
  second TBuf, Cast back CAST_RINT (CAST_NONE on the 200 cores)), pows_bf16.h (`PowsBfp16<T>`: the same; the
  bfloat16 exponent stored into the high half of a zeroed float, the float of the same value);
- op_host/pows_tiling.cpp (under 4096 elements one core and one tile; else ceil(n / cores) rounded up to 32 bytes a
  core, tiles of UB / (2 * 7) (16-bit) or UB / (4 * 3) (float) elements rounded down to 256 and to 32 bytes).

Deviations: the core count is the launch's 8 (the compile info's totalCoreNum). The 310P's copies of a short tile
read and write whole 32-byte blocks (DataCopy): the port pads the GM arrays to the next 32 bytes, as device
allocations are; and there the copy-out of the last block reads lanes past the tile's count which the chain never
wrote (stale UB; they land in the GM padding, but the sanitizer rightly reports the uninitialised read), so the port
runs the short tile's chain over the count rounded up to 32 bytes (lanes of the zero-padded GM): y[:n] unchanged.

Found in the original and kept: on the A2 / A3 a full float tile is 16384 floats (UB / 12 rounded down to 256),
whose 65536 bytes do not fit DataCopyParams' uint16_t blockLen (C++ would store 0 and move nothing); the emulator
refuses the field (ParameterError), so a float input whose core share reaches 16384 elements (over 7 * 16384 in
all) is refused there; half and bfloat16 tiles (13824) and the 310P's count-form DataCopy are not affected.

Devices: the A2 / A3 (DataCopyPad) and the 310P (DataCopy; half and float only, as the entry's 200-class build).
The original's 910 configuration is not ported: GET_TILING_DATA is refused there
(UnsupportedDeviceError: the devkit's Kernel-Tiling pages do not list the 910); the kirin ones are no emulated
device.

Fidelity: Cast, Duplicate and Mul BIT-EXACT; Div and Sqrt MODELLED (SPEC-2 D37: the exact result rounded once),
so the expectation is numpy's float32 chain (IEEE division and square root round once) rounded to the type by RNE;
against the float64 formula within the chain's float roundings and the type's.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                        # deviation: the launch's cores
BUFFER_NUM = 2
FP16_COEXISTING_NUM, FP32_COEXISTING_NUM = 7, 3
BYTES_ONE_BLOCK = 32
MULTI_CORE_SHAPE_SIZE_LIMIT = 4096
BUFFER_SIZE_ALIGN_LENGTH = 256
TILING_KEY = {"half": 101, "bfloat16": 201, "float": 301}
TYPE_SIZE = {"half": 2, "bfloat16": 2, "float": 4}
_NP = {"half": np.float16, "bfloat16": ml_dtypes.bfloat16, "float": np.float32}
DAV_2201 = ("atlas-a2", "atlas-a3")  # __CCE_AICORE__ == 220: DataCopyPad
DAV_200 = ("atlas-inference-aicore",)

scalarOne = np.float32(1.0)
SQRT_EXP_UPPER, SQRT_EXP_LOWER = np.float32(0.500000001), np.float32(0.499999999)
SQUARE_EXP_UPPER, SQUARE_EXP_LOWER = np.float32(2.000000001), np.float32(1.999999999)
CUBE_EXP_UPPER, CUBE_EXP_LOWER = np.float32(3.000000001), np.float32(2.999999999)
NEGTIVE_SQRT_EXP_UPPER, NEGTIVE_SQRT_EXP_LOWER = np.float32(-0.499999999), np.float32(-0.500000001)
NEGTIVE_ONE_EXP_UPPER, NEGTIVE_ONE_EXP_LOWER = np.float32(-0.999999999), np.float32(-1.000000001)
NEGTIVE_SQUARE_EXP_UPPER, NEGTIVE_SQUARE_EXP_LOWER = np.float32(-1.999999999), np.float32(-2.000000001)

PowsTilingData = np.dtype([("mainCoreLoopNum", np.int64), ("mainCoreTailLength", np.int64),
                           ("tailCoreLoopNum", np.int64), ("tailCoreTailLength", np.int64),
                           ("realCoreNum", np.int64), ("numPerCore", np.int64), ("dataLength", np.int64),
                           ("tilingKey", np.int64), ("blockSize", np.int64), ("bufSize", np.int64)])


def tiling(device, x, dtype):
    """GetFp16TilingData / GetBf16TilingData / GetFp32TilingData: (block dim, the packed PowsTilingData)."""
    size = TYPE_SIZE[dtype]
    coexisting = FP32_COEXISTING_NUM if size == 4 else FP16_COEXISTING_NUM
    bufSize = aj.get_device(device).ub_bytes // (size * coexisting)
    blockSize = BYTES_ONE_BLOCK // size
    t = np.zeros(1, PowsTilingData)
    f = {}
    if x < MULTI_CORE_SHAPE_SIZE_LIMIT:                                     # GetTilingDataNonCut
        f.update(numPerCore=x, realCoreNum=1, mainCoreLoopNum=1, mainCoreTailLength=0, dataLength=x,
                 tailCoreLoopNum=0, tailCoreTailLength=0)
        bufSizeAlign = bufSize // BUFFER_SIZE_ALIGN_LENGTH * BUFFER_SIZE_ALIGN_LENGTH
    else:                                                                   # GetTilingDataBigCase
        bufSizeAlign = bufSize // BUFFER_SIZE_ALIGN_LENGTH * BUFFER_SIZE_ALIGN_LENGTH
        blockFactor = -(-x // CORE_NUM)
        blockFactorAlign = (blockFactor + blockSize - 1) // blockSize * blockSize
        realCoreNum = -(-x // blockFactorAlign)
        ubFactorAlign = min(bufSizeAlign // blockSize * blockSize, blockFactorAlign)
        f.update(numPerCore=blockFactorAlign, realCoreNum=realCoreNum,
                 mainCoreLoopNum=blockFactorAlign // ubFactorAlign,
                 mainCoreTailLength=blockFactorAlign % ubFactorAlign, dataLength=ubFactorAlign)
        if x % blockFactorAlign != 0:
            tailCoreTotalNum = x - blockFactorAlign * (realCoreNum - 1)
            f.update(tailCoreLoopNum=tailCoreTotalNum // ubFactorAlign,
                     tailCoreTailLength=tailCoreTotalNum % ubFactorAlign)
        else:
            f.update(tailCoreLoopNum=0, tailCoreTailLength=0)
    f.update(bufSize=bufSizeAlign, blockSize=blockSize, tilingKey=TILING_KEY[dtype])
    for name, value in f.items():
        t[name] = value
    return int(f["realCoreNum"]), t.view(np.uint8).copy()


class Pows:
    """`PowsBase<T>` with `PowsFp32<T>`, `PowsFp16<T>` and `PowsBfp16<T>` (one class: they differ in the casts
    around the chain and in how the exponent becomes a float)."""

    def __init__(self, T, device, whole_blocks=True):
        self.T, self.dav_2201, self.dav_200 = T, device in DAV_2201, device in DAV_200
        self.whole_blocks = whole_blocks

    # PowsBase
    def BaseInit(self, x1, x2, y, tilingData):
        self.blockIdx = aj.GetBlockIdx()
        self.m_tilingData = tilingData
        self.gmOffset = self.blockIdx * int(tilingData.numPerCore)
        self.x1Gm, self.x2Gm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.x1Gm.SetGlobalBuffer(x1)
        self.x2Gm.SetGlobalBuffer(x2)
        self.yGm.SetGlobalBuffer(y)
        self.processStride = int(tilingData.dataLength)
        self.isLastCore = (self.blockIdx == int(tilingData.realCoreNum) - 1 and
                           (int(tilingData.tailCoreLoopNum) != 0 or int(tilingData.tailCoreTailLength) != 0))

    def Init(self, x, y, gelu, workspace, tilingData):
        T = self.T
        self.BaseInit(x, y, gelu, tilingData)
        if T == "bfloat16":
            # *(reinterpret_cast<T*>(&scalar) + 1) = x2Gm.GetValue(0): the bf16 bits as the float's high half
            bits = np.array([self.x2Gm.GetValue(0)], ml_dtypes.bfloat16).view(np.uint16)[0]
            self.scalar = np.array([int(bits) << 16], np.uint32).view(np.float32)[0]
        else:
            self.scalar = np.float32(self.x2Gm.GetValue(0))
        self.pipe = aj.TPipe()
        bufSize = int(tilingData.bufSize)
        self.inQueueX1 = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueue = aj.TQue(aj.QuePosition.VECOUT, 1)
        self.pipe.InitBuffer(self.inQueueX1, BUFFER_NUM, bufSize * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.outQueue, 1, bufSize * TYPE_SIZE[T])
        if T != "float":
            self.tempBuf1, self.tempBuf2 = aj.TBuf(), aj.TBuf()
            self.pipe.InitBuffer(self.tempBuf1, bufSize * 4)
            self.pipe.InitBuffer(self.tempBuf2, bufSize * 4)

    def CopyInXBase(self, index, dataLength, ubX1):
        t = self.m_tilingData
        if self.dav_2201:
            intriParams = aj.DataCopyParams()
            intriParams.blockCount = 1
            intriParams.dstStride = 0
            intriParams.srcStride = 0
            intriParams.blockLen = dataLength * TYPE_SIZE[self.T]
            intriPadParams = aj.DataCopyPadParams()
            intriPadParams.isPad = False
            aj.DataCopyPad(ubX1, self.x1Gm[self.gmOffset + index * self.processStride], intriParams, intriPadParams)
        else:
            blockSize = int(t.blockSize)
            dataLengthAlign = (dataLength + blockSize - 1) // blockSize * blockSize
            aj.DataCopy(ubX1, self.x1Gm[self.gmOffset + index * self.processStride], dataLengthAlign)
            eventIdMte2ToV = aj.event_t(aj.GetTPipePtr().FetchEventID(aj.HardEvent.MTE2_V))
            aj.SetFlag(eventIdMte2ToV, event=aj.HardEvent.MTE2_V)
            aj.WaitFlag(eventIdMte2ToV, event=aj.HardEvent.MTE2_V)

    def ComputePowsBase(self, ubx2_fp32, result, dataLength):
        s = self.scalar
        if NEGTIVE_SQUARE_EXP_LOWER <= s <= NEGTIVE_SQUARE_EXP_UPPER:       # 1.0 / (x * x)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Mul(result, ubx2_fp32, ubx2_fp32, dataLength)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Duplicate(ubx2_fp32, scalarOne, dataLength)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Div(result, ubx2_fp32, result, dataLength)
            aj.PipeBarrier(aj.PIPE_V)
        elif NEGTIVE_ONE_EXP_LOWER <= s <= NEGTIVE_ONE_EXP_UPPER:          # 1.0 / x
            aj.PipeBarrier(aj.PIPE_V)
            aj.Duplicate(result, scalarOne, dataLength)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Div(result, result, ubx2_fp32, dataLength)
            aj.PipeBarrier(aj.PIPE_V)
        elif SQRT_EXP_LOWER <= s <= SQRT_EXP_UPPER:                        # sqrt(x)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Sqrt(result, ubx2_fp32, dataLength)
            aj.PipeBarrier(aj.PIPE_V)
        elif NEGTIVE_SQRT_EXP_LOWER <= s <= NEGTIVE_SQRT_EXP_UPPER:        # 1.0 / sqrt(x)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Sqrt(result, ubx2_fp32, dataLength)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Duplicate(ubx2_fp32, scalarOne, dataLength)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Div(result, ubx2_fp32, result, dataLength)
            aj.PipeBarrier(aj.PIPE_V)
        elif SQUARE_EXP_LOWER <= s <= SQUARE_EXP_UPPER:                    # x * x
            aj.PipeBarrier(aj.PIPE_V)
            aj.Mul(result, ubx2_fp32, ubx2_fp32, dataLength)
            aj.PipeBarrier(aj.PIPE_V)
        elif CUBE_EXP_LOWER <= s <= CUBE_EXP_UPPER:                        # x * x * x
            aj.PipeBarrier(aj.PIPE_V)
            aj.Mul(result, ubx2_fp32, ubx2_fp32, dataLength)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Mul(result, ubx2_fp32, result, dataLength)
            aj.PipeBarrier(aj.PIPE_V)

    def CopyOutBase(self, index, dataLength, outLocal):
        eventIdVToMte3 = aj.event_t(aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_MTE3))
        aj.SetFlag(eventIdVToMte3, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(eventIdVToMte3, event=aj.HardEvent.V_MTE3)
        offset = self.gmOffset + index * self.processStride
        if self.dav_2201:
            intriParams = aj.DataCopyParams()
            intriParams.blockCount = 1
            intriParams.dstStride = 0
            intriParams.srcStride = 0
            intriParams.blockLen = dataLength * TYPE_SIZE[self.T]
            aj.DataCopyPad(self.yGm[offset], outLocal, intriParams)
        else:
            blockSize = int(self.m_tilingData.blockSize)
            aj.DataCopy(self.yGm[offset], outLocal, (dataLength + blockSize - 1) // blockSize * blockSize)

    # PowsFp32 / PowsFp16 / PowsBfp16
    def Process(self):
        if self.blockIdx >= int(self.m_tilingData.realCoreNum):
            return
        if self.isLastCore:
            self.ProcessLastCore()
        else:
            self.ProcessPerCore()

    def ProcessPerCore(self):
        t = self.m_tilingData
        for idx in range(int(t.mainCoreLoopNum)):
            self.CopyInX(idx, int(t.dataLength))
            self.ComputePows(int(t.dataLength))
            self.CopyOut(idx, int(t.dataLength))
        if int(t.mainCoreTailLength) > 0:
            self.CopyInX(int(t.mainCoreLoopNum), int(t.mainCoreTailLength))
            self.ComputePows(int(t.mainCoreTailLength))
            self.CopyOut(int(t.mainCoreLoopNum), int(t.mainCoreTailLength))

    def ProcessLastCore(self):
        t = self.m_tilingData
        for idx in range(int(t.tailCoreLoopNum)):
            self.CopyInX(idx, int(t.dataLength))
            self.ComputePows(int(t.dataLength))
            self.CopyOut(idx, int(t.dataLength))
        if int(t.tailCoreTailLength) > 0:
            self.CopyInX(int(t.tailCoreLoopNum), int(t.tailCoreTailLength))
            self.ComputePows(int(t.tailCoreTailLength))
            self.CopyOut(int(t.tailCoreLoopNum), int(t.tailCoreTailLength))

    def _computed(self, dataLength):
        """Deviation: the 310P's copy-out of whole 32-byte blocks reads the lanes past dataLength, which the
        original's chain never writes (the sanitizer reports them): the port computes those lanes too (over the
        zero-padded GM the copy-in read), so every byte copied out was computed."""
        if self.dav_2201 or not self.whole_blocks:
            return dataLength
        blockSize = int(self.m_tilingData.blockSize)
        return (dataLength + blockSize - 1) // blockSize * blockSize

    def CopyInX(self, index, dataLength):
        ubX1 = self.inQueueX1.AllocTensor(self.T)
        self.CopyInXBase(index, dataLength, ubX1)
        self.inQueueX1.EnQue(ubX1)

    def ComputePows(self, dataLength):
        T = self.T
        dataLength = self._computed(dataLength)
        ubX1 = self.inQueueX1.DeQue(T)
        if T == "float":
            out = self.outQueue.AllocTensor(T)
            self.ComputePowsBase(ubX1, out, dataLength)
            self.inQueueX1.FreeTensor(ubX1)
            self.outQueue.EnQue(out)
            return
        ubx_fp32 = self.tempBuf1.Get("float")
        aj.Cast(ubx_fp32, ubX1, aj.RoundMode.CAST_NONE, dataLength)
        self.inQueueX1.FreeTensor(ubX1)
        result_fp32 = self.tempBuf2.Get("float")
        self.ComputePowsBase(ubx_fp32, result_fp32, dataLength)
        out = self.outQueue.AllocTensor(T)
        mode = aj.RoundMode.CAST_NONE if self.dav_200 else aj.RoundMode.CAST_RINT   # __CCE_AICORE__ == 200
        aj.Cast(out, result_fp32, mode, dataLength)
        self.outQueue.EnQue(out)

    def CopyOut(self, index, dataLength):
        outLocal = self.outQueue.DeQue(self.T)
        self.CopyOutBase(index, dataLength, outLocal)
        self.outQueue.FreeTensor(outLocal)


aj.REGISTER_TILING_DEFAULT(PowsTilingData)


def pows(x1, x2, y, workspace, tiling_bytes, DTYPE, device, whole_blocks=True):
    """The kernel entry (pows.cpp); DTYPE stands for the tiling key's class."""
    tilingData = aj.GET_TILING_DATA(tiling_bytes)
    op = Pows(DTYPE, device, whole_blocks)
    op.Init(x1, x2, y, workspace, tilingData)
    op.Process()


def run_pows(device, x, exponent, whole_blocks=True):
    dtype = {np.dtype(v): k for k, v in _NP.items()}[x.dtype]
    block_dim, tiling_bytes = tiling(device, x.size, dtype)
    block = BYTES_ONE_BLOCK // x.itemsize
    padded = -(-x.size // block) * block            # the 310P's DataCopy of whole blocks (module docstring)
    gm_x = np.zeros(padded, x.dtype)
    gm_x[:x.size] = x
    gm_y = np.zeros(padded, x.dtype)
    gm_s = np.zeros(block, x.dtype)
    gm_s[0] = exponent
    workspace = np.zeros(32, np.uint8)
    aj.launch(pows, block_dim, device, gm_x, gm_s, gm_y, workspace, tiling_bytes, dtype, device, whole_blocks)
    return gm_y[:x.size]


def pows_model(x, exponent, device="atlas-a2"):
    """The float32 chain (each IEEE operation rounded once), then RNE to the type; None for an exponent the kernel
    does not recognise (its output is then whatever the tile held)."""
    xf = x.astype(np.float32)
    s = np.float32(np.array([exponent], x.dtype)[0])
    with np.errstate(all="ignore"):
        if NEGTIVE_SQUARE_EXP_LOWER <= s <= NEGTIVE_SQUARE_EXP_UPPER:
            r = np.float32(1) / (xf * xf)
        elif NEGTIVE_ONE_EXP_LOWER <= s <= NEGTIVE_ONE_EXP_UPPER:
            r = np.float32(1) / xf
        elif SQRT_EXP_LOWER <= s <= SQRT_EXP_UPPER:
            r = np.sqrt(xf)
        elif NEGTIVE_SQRT_EXP_LOWER <= s <= NEGTIVE_SQRT_EXP_UPPER:
            r = np.float32(1) / np.sqrt(xf)
        elif SQUARE_EXP_LOWER <= s <= SQUARE_EXP_UPPER:
            r = xf * xf
        elif CUBE_EXP_LOWER <= s <= CUBE_EXP_UPPER:
            r = xf * (xf * xf)
        else:
            return None
        r = r.astype(x.dtype)
    if device in DAV_200 and x.dtype == np.float16:
        # the 310P's half results saturate (SPEC D6, SPEC-2 D35 / D46): +-inf -> +-65504, NaN -> +0
        r = np.where(np.isnan(r), np.float16(0), np.clip(r, np.float16(-65504), np.float16(65504))).astype(x.dtype)
    return r


def _make_inputs(dtype):
    def make_inputs(size, seed):
        x = np.random.default_rng(seed).uniform(0.25, 4, size).astype(np.float32).astype(_NP[dtype])
        return {"x": x}
    return make_inputs


def _run(exponent):
    def run(device, inputs):
        return {"y": run_pows(device, inputs["x"], exponent)}
    return run


def _expected(exponent):
    def expected(device, inputs):
        return {"y": pows_model(inputs["x"], exponent, device)}
    return expected


_SOURCE = "hicann/ops-math@c4193324 math/pows/op_kernel/pows_base.h"
KERNELS = [
    KernelSpec(f"pows{suffix}", description, _make_inputs(dtype), _run(exponent), _expected(exponent),
               default_size=size, devices=devices, source=_SOURCE.replace("base", file),
               size_rule="1 to 114688 elements for float (a larger core share overflows the A2 / A3's "
               "DataCopyParams.blockLen, module docstring); any positive size for half and bfloat16" if
               dtype == "float" else "any positive size", size_ok=(lambda n: 0 < n <= 7 * 16384) if dtype == "float"
               else (lambda n: n > 0))
    for suffix, dtype, exponent, size, devices, file, description in (
        ("", "float", -0.5, 100003, DAV_2201 + DAV_200, "fp32", "Pows over floats, exponent -0.5: Sqrt, Duplicate 1, "
         "Div behind PipeBarrier<PIPE_V>; V_MTE3 flags; main and last cores, DataCopyPad (A2/A3) or DataCopy (310P)"),
        ("_half", "half", 3.0, 60001, DAV_2201 + DAV_200, "fp16", "Pows over halves cubed: Cast CAST_NONE to float, "
         "two Mul, Cast CAST_RINT back (CAST_NONE on the 310P)"),
        ("_bf16", "bfloat16", -2.0, 50001, DAV_2201, "bf16", "Pows over bfloat16, exponent -2: the bf16 scalar as a "
         "float's high half; Cast, Mul, Duplicate, Div, Cast CAST_RINT"))
]
