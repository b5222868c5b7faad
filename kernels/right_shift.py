"""RightShift from the CANN math operators: z = x >> y over int32 and int16 (arithmetic; a shift amount below 0 or
past the type's width minus one gives the sign fill, -1 or 0). A scalar y shifts a whole tile with one count-form
ShiftRight; a tensor y buckets each 256-byte repeat by amount: the sign fill first (Maxs -1, Mins 0), then for every
amount s in [0, width) a CompareScalar(y == s) bit mask and, when any bit is set, one masked ShiftRight by s.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/right_shift/op_kernel/right_shift.h
(`RightShiftKernel<T, BROADCAST_MODE>`: `ProcessScalarY` / `ComputeScalarShift` (ReadScalarY: a one-element
DataCopyPad, PipeBarrier<PIPE_ALL>, GetValue), `ProcessElementwise` / `ApplyVectorBucketShift` (int16 amounts
compared as half after `Cast(.., CAST_NONE)`, int32 ones directly; the 16-byte or 8-byte compare result read back
as uint64 words by GetValue on a ReinterpretCast; `ShiftRight(dst[base], x[base], s, mask, 1, {1, 1, 8, 8})`),
`InitInvalidShiftResult`, DataCopyPad in and out of `count * sizeof(T)` bytes, PipeBarrier<PIPE_ALL> between
stages; TBufs x, y, z, work, cmp (int32-sized), a 128-byte mask buffer and a 32-byte scalar buffer) with the host
tiling of experimental/math/right_shift/op_host/right_shift_tiling.cpp (`CalcTileBufferLen`: UB less 8 KB less 160
bytes over 5 * sizeof(T) + 4 bytes an element, aligned down to 256 elements, at most 8192; `SetCoreTiling`: one core
up to 2048 elements, else the elements (not blocks) spread over the cores, the first `total % cores` one more).

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's). Only the contiguous mode
(x and y of one shape) and the scalar-y mode are ported; the broadcast modes (scalar x, outer-row and general
strided broadcasts) copy with the same instructions segment by segment and are not repeated. The int8/uint8 and
int64 instantiations shift element by element on the scalar unit (no vector instruction) and the unsigned ones
replace the sign fill by Duplicate 0: not ported. The tensor-y mode zeroes its x and y tiles once before the first
tile: the original computes whole 256-byte repeats, reading the last repeat's lanes past the tile's count from UB
that nothing wrote (their results are never copied out; the sanitizer reports the read).

Devices: ShiftRight on int16/int32 (950, A2, A3, 310B: the devkit page; not the 310P, not the 910), CompareScalar on
int32 and half and DataCopyPad: the 950, A3, A2 and 310B. The int16 tensor-y kernel not on the 950: its
`Cast(half, int16, CAST_NONE)` is not in the 950's Cast table (SPEC-2 7.2; D72 refuses CAST_NONE where the table
omits it), so the original's int16 path is not portable to the 950 as written.

Fidelity: BIT-EXACT (ShiftRight, Maxs, Mins, Cast int16 -> half, CompareScalar, DataCopyPad are BIT-EXACT); checked
bit for bit against numpy's arithmetic `>>` with out-of-range amounts replaced by width - 1.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8
RESERVED_UB_SIZE = 8 * 1024
MASK_BUFFER_BYTES = 128
SCALAR_BUFFER_BYTES = 32
TMP_BUFFER_FACTOR = 5
BYTE_ALIGN = 256
MAX_TILE_BUFFER_LEN = 8192
MULTI_CORE_SIZE_LIMIT = 2048
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
DEVICES_INT16 = DEVICES[1:]  # the 950's Cast table has no int16 -> half CAST_NONE (SPEC-2 7.2, D72)
SIZE = {"int16": 2, "int32": 4}


def tiling(device, total, itemsize):
    """RightShiftTilingFunc for the contiguous and scalar-y modes: (block_dim, tiling data)."""
    ub = aj.get_device(device).ub_bytes - RESERVED_UB_SIZE
    usable = ub - MASK_BUFFER_BYTES - SCALAR_BUFFER_BYTES
    element_align = max(BYTE_ALIGN, BYTE_ALIGN // itemsize)
    tile = usable // (TMP_BUFFER_FACTOR * itemsize + 4) // element_align * element_align
    tile = min(tile, MAX_TILE_BUFFER_LEN) or element_align
    used = 1 if total <= MULTI_CORE_SIZE_LIMIT else min(CORE_NUM, total)
    former = total % used or used
    return used, dict(totalLength=total, tileBufferLen=tile, formerCoreNum=former, tailCoreNum=used - former,
                      formerCoreDataNum=-(-total // used), tailCoreDataNum=total // used if used - former else 0)


class RightShiftKernel:
    def __init__(self, T, scalar_y):
        self.T, self.scalar_y = T, scalar_y

    def Init(self, x, y, z, tilingData):
        coreId = aj.GetBlockIdx()
        self.totalLength, self.tileBufferLen = tilingData["totalLength"], tilingData["tileBufferLen"]
        former, formerData = tilingData["formerCoreNum"], tilingData["formerCoreDataNum"]
        usedCoreNum = former + tilingData["tailCoreNum"]
        self.blockOffset = 0
        if coreId >= usedCoreNum:
            self.blockLength = 0
        elif coreId < former:
            self.blockLength, self.blockOffset = formerData, coreId * formerData
        else:
            self.blockLength = tilingData["tailCoreDataNum"]
            self.blockOffset = former * formerData + (coreId - former) * self.blockLength
        self.blockLength = max(0, min(self.blockLength, self.totalLength - self.blockOffset))
        self.xGm, self.yGm, self.zGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x)
        self.yGm.SetGlobalBuffer(y)
        self.zGm.SetGlobalBuffer(z)
        if self.blockLength == 0:
            return
        self.pipe = aj.TPipe()
        size = SIZE[self.T]
        self.xBuf, self.yBuf, self.zBuf, self.workBuf, self.cmpBuf, self.maskBuf, self.singleBuf, self.rowBuf = (
            aj.TBuf(aj.TPosition.VECCALC) for _ in range(8))
        for buf in (self.xBuf, self.yBuf, self.zBuf, self.workBuf):
            self.pipe.InitBuffer(buf, self.tileBufferLen * size)
        self.pipe.InitBuffer(self.cmpBuf, self.tileBufferLen * 4)
        self.pipe.InitBuffer(self.maskBuf, MASK_BUFFER_BYTES)
        self.pipe.InitBuffer(self.singleBuf, SCALAR_BUFFER_BYTES)
        self.pipe.InitBuffer(self.rowBuf, SCALAR_BUFFER_BYTES)  # the outer-row broadcast's (not ported): 32 bytes

    def Process(self):
        if self.blockLength == 0:
            return
        if self.scalar_y:
            self.ProcessScalarY()
        else:
            self.ProcessElementwise()

    # -- helpers shared by both modes

    def IsInvalidShift(self, shiftValue):
        return shiftValue > SIZE[self.T] * 8 - 1 or shiftValue < 0

    def CopyContiguousIn(self, dst, src, offset, count):
        if count:
            aj.DataCopyPad(dst, src[offset], aj.DataCopyParams(1, count * SIZE[self.T], 0, 0), (False, 0, 0, 0))

    def CopyContiguousOut(self, dst, offset, src, count):
        if count:
            aj.DataCopyPad(dst[offset], src, aj.DataCopyParams(1, count * SIZE[self.T], 0, 0))

    def InitInvalidShiftResult(self, dst, src, count):
        """The sign fill: max(x, -1) then min(., 0)."""
        workLocal = self.workBuf.Get(self.T)
        aj.Maxs(workLocal, src, -1, count)
        aj.PipeBarrier(aj.PIPE_ALL)
        aj.Mins(dst, workLocal, 0, count)

    # -- scalar y

    def ReadScalarY(self):
        yLocal = self.yBuf.Get(self.T)
        self.CopyContiguousIn(yLocal, self.yGm, 0, 1)
        aj.PipeBarrier(aj.PIPE_ALL)
        return int(yLocal.GetValue(0))

    def ComputeScalarShift(self, dst, src, count, shiftValue):
        if not self.IsInvalidShift(shiftValue):
            aj.ShiftRight(dst, src, shiftValue, count)
        else:
            self.InitInvalidShiftResult(dst, src, count)

    def ProcessScalarY(self):
        shiftValue = self.ReadScalarY()
        processed = 0
        while processed < self.blockLength:
            count = min(self.blockLength - processed, self.tileBufferLen)
            start = self.blockOffset + processed
            xLocal, zLocal = self.xBuf.Get(self.T), self.zBuf.Get(self.T)
            self.CopyContiguousIn(xLocal, self.xGm, start, count)
            aj.PipeBarrier(aj.PIPE_ALL)
            self.ComputeScalarShift(zLocal, xLocal, count, shiftValue)
            aj.PipeBarrier(aj.PIPE_ALL)
            self.CopyContiguousOut(self.zGm, start, zLocal, count)
            aj.PipeBarrier(aj.PIPE_ALL)
            processed += count

    # -- tensor y (contiguous mode)

    def ApplyVectorBucketShift(self, dst, xSrc, ySrc, count):
        elemsPerRepeat = 256 // SIZE[self.T]
        bitWidth = SIZE[self.T] * 8
        computeCount = -(-count // elemsPerRepeat) * elemsPerRepeat
        self.InitInvalidShiftResult(dst, xSrc, computeCount)
        aj.PipeBarrier(aj.PIPE_ALL)
        if self.T == "int16":  # no int16 CompareScalar off the 950 and 310B: the amounts compared as half
            yCmp = self.cmpBuf.Get("half")
            aj.Cast(yCmp, ySrc, aj.RoundMode.CAST_NONE, computeCount)
            aj.PipeBarrier(aj.PIPE_ALL)
        maskLocal = self.maskBuf.Get("uint8")
        maskWords = maskLocal.ReinterpretCast("uint64")
        shiftParams = aj.UnaryRepeatParams()
        shiftParams.dstBlkStride, shiftParams.srcBlkStride = 1, 1
        shiftParams.dstRepStride, shiftParams.srcRepStride = 8, 8
        for base in range(0, computeCount, elemsPerRepeat):
            for shift in range(bitWidth):
                if self.T == "int16":
                    aj.CompareScalar(maskLocal, yCmp[base], float(shift), aj.CMPMODE.EQ, elemsPerRepeat)
                else:
                    aj.CompareScalar(maskLocal, ySrc[base], shift, aj.CMPMODE.EQ, elemsPerRepeat)
                aj.PipeBarrier(aj.PIPE_ALL)
                words = 2 if self.T == "int16" else 1
                mask = [int(maskWords.GetValue(i)) for i in range(words)]
                if any(mask):
                    aj.ShiftRight(dst[base], xSrc[base], shift, mask, 1, shiftParams)
                aj.PipeBarrier(aj.PIPE_ALL)

    def ProcessElementwise(self):
        outStart, remainLength = self.blockOffset, self.blockLength
        # (deviation) the x and y tiles zeroed once: the last repeat's lanes past count are read (never stored)
        for buf in (self.xBuf, self.yBuf):
            aj.Duplicate(buf.Get(self.T), 0, self.tileBufferLen)
        aj.PipeBarrier(aj.PIPE_ALL)
        while remainLength > 0:
            count = min(remainLength, self.tileBufferLen)
            xLocal, yLocal, zLocal = self.xBuf.Get(self.T), self.yBuf.Get(self.T), self.zBuf.Get(self.T)
            self.CopyContiguousIn(xLocal, self.xGm, outStart, count)
            self.CopyContiguousIn(yLocal, self.yGm, outStart, count)
            aj.PipeBarrier(aj.PIPE_ALL)
            self.ApplyVectorBucketShift(zLocal, xLocal, yLocal, count)
            aj.PipeBarrier(aj.PIPE_ALL)
            self.CopyContiguousOut(self.zGm, outStart, zLocal, count)
            aj.PipeBarrier(aj.PIPE_ALL)
            outStart += count
            remainLength -= count


def right_shift(x, y, z, tiling_data, T, scalar_y):
    op = RightShiftKernel(T, scalar_y)
    op.Init(x, y, z, tiling_data)
    op.Process()


def _make_inputs(np_dtype, scalar_y):
    def make_inputs(size, seed):
        info, bits = np.iinfo(np_dtype), np.dtype(np_dtype).itemsize * 8
        rng = np.random.default_rng(seed)
        x = rng.integers(info.min, info.max, size, dtype=np_dtype, endpoint=True)
        # a tensor: amounts past both ends (the sign fill) as well as every valid one; the scalar: a valid amount
        # for even sizes, one past the width (the sign fill) for odd sizes
        if scalar_y:
            y = np.array([rng.integers(0, bits) if size % 2 == 0 else bits + size % 3], np_dtype)
        else:
            y = rng.integers(-3, bits + 3, size).astype(np_dtype)
        return {"x": x, "y": y}
    return make_inputs


def _run(T, scalar_y):
    def run(device, inputs):
        x, y = inputs["x"], inputs["y"]
        z = np.zeros_like(x)
        block_dim, tiling_data = tiling(device, x.size, x.itemsize)
        aj.launch(right_shift, block_dim, device, x.copy(), y.copy(), z, tiling_data, T, scalar_y)
        return {"z": z}
    return run


def expected(device, inputs):
    x, y = inputs["x"], inputs["y"]
    bits = x.itemsize * 8
    amount = np.where((y < 0) | (y > bits - 1), bits - 1, y).astype(x.dtype)
    return {"z": np.right_shift(x, amount)}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/right_shift/op_kernel/right_shift.h"
KERNELS = [
    KernelSpec("right_shift_int32", "RightShift over int32 with a tensor of amounts: per 64-lane repeat the sign fill, "
               "then a CompareScalar bit mask and a masked ShiftRight for each amount present",
               _make_inputs(np.int32, False), _run("int32", False), expected, default_size=2000, devices=DEVICES,
               source=_SOURCE),
    KernelSpec("right_shift_int16", "RightShift over int16 with a tensor of amounts compared as half (Cast CAST_NONE): "
               "two mask words a 128-lane repeat", _make_inputs(np.int16, False), _run("int16", False), expected,
               default_size=2000, devices=DEVICES_INT16, source=_SOURCE),
    KernelSpec("right_shift_scalar_int32", "RightShift over int32 by one amount read from GM (GetValue after a "
               "one-element DataCopyPad): a count-form ShiftRight a tile, or the sign fill",
               _make_inputs(np.int32, True), _run("int32", True), expected, default_size=100000, devices=DEVICES,
               source=_SOURCE),
]
