"""HardtanhGrad from the CANN activation operators: y = grad where the forward result lies in [min, max] or is NaN,
else 0, over float, half and bfloat16. The condition is built as bit masks: four CompareScalar (the 16-bit types on a
float copy of the result), Or / Not / And on the masks read as uint16 words, then one Select tensor-scalar.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa93, experimental/activation/hardtanh_grad/op_kernel/hardtanh_grad.h:
- `KernelHardtanhGrad` (tiling key 1, inputs above 6144 * 20 elements): big and small cores, double-buffered tiles;
  one VECIN queue whose tensor holds the result tile then the grad tile (`xLocal[tileDataNum]`), a VECOUT queue, a
  mask TBuf of three mask tiles and, for half and bfloat16, a float TBuf for the widened result; CalculateMask:
  `(x <= 1) | (x > 1)` negated (the NaN lanes), `(x >= min) & (x <= max)`, Or of the two, with PipeBarrier<PIPE_V>
  between dependent steps, as the original places them;
- `KernelHardtanhGrad_NoDB` (tiling key 0, small inputs): the whole kernel in Init, one tile a core; the queue tensors
  are allocated and freed without EnQue / DeQue, the copies ordered by FetchEventID'd MTE2_V and V_MTE3 flag pairs;
- bfloat16 selects on half views of the grad and output tiles (ReinterpretCast<half>, scalar half 0);
with the host tiling of experimental/activation/hardtanh_grad/op_host/hardtanh_grad_tiling.cpp (the input rounded up to
512-byte GM blocks; large inputs: tiles of at most 6144 elements over min(cores, ceil(n / 12288)) cores, spread 512-B
block by block, the first cores one block more; small inputs: 1024..4096-element tiles (6144 above 32 Ki elements), one
a core; mask tiles of ceil(tile / 8) bytes rounded up to 256).

Deviations: the core count is the launch's 8 (GetCoreNum would give the device's); the host pads GM to the 512-byte
multiple the tiling reads and writes (device allocations of the original's test are so rounded), and further to
block_dim * tileDataNum elements for the single-tile kernel: its last core sets a GlobalTensor window of a whole tile
while copying only its short tail, a window past the allocation that the device never checks and never touches, which
the emulator's SetGlobalBuffer refuses (docs/decisions.md "Scaffolding", DataCopy operands).

Devices: float and half need CompareScalar on float (not the 910: SPEC-2 9.4) and Select tensor-scalar; the
single-tile kernel's TPipe FetchEventID is not offered on the 310B (docs/decisions.md, Event ids); bfloat16 needs the
bfloat16 -> float Cast too (950, A3, A2: SPEC-2 7.2).

Fidelity: BIT-EXACT (Cast, Compares, And, Or, Not, Select and DataCopy, SPEC-2 0.3). The expectation is computed on the
host with numpy comparisons on the float32 value of the result (IEEE ordered: every comparison with NaN is false,
SPEC-2 9.4) and the grad's bits copied where the condition holds, +0 elsewhere.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
BITS_PER_INT16 = 16
MAX_TILEDATA = 6144
GM_ALIGN = 512
REPEAT_ALIGN = 256
DB_THRESHOLD_VALUE = 6144 * 20
TILE_BASE_SIZE = 1024
TILE_THRESHOLD_FACTOR = 8
TILE_MAX_REGULAR_INDEX = 4
CORE_NUM = 8
MIN, MAX = np.float32(-0.75), np.float32(1.5)
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore")
BF16_DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
_SIZES = {"float": 4, "half": 2, "bfloat16": 2}


def tiling(total, dtype):
    """HardtanhGradTilingFunc: (block_dim, tiling key, tiling data)."""
    elems = GM_ALIGN // _SIZES[dtype]
    aligned = -(-total // elems) * elems
    data = dict(smallCoreDataNum=0, bigCoreDataNum=0, finalBigTileNum=0, finalSmallTileNum=0, smallTailDataNum=0,
                bigTailDataNum=0, tailBlockNum=0, min=MIN, max=MAX)
    if total > DB_THRESHOLD_VALUE:
        key = 1
        core_num = min(CORE_NUM, -(-aligned // (MAX_TILEDATA * BUFFER_NUM)))
        need_tile = -(-(-(-aligned // core_num)) // BUFFER_NUM)
        tile = min(MAX_TILEDATA, -(-need_tile // elems) * elems)
        every, tail_blocks = divmod(aligned // elems, core_num)
        small = every * elems
        big = small + elems
        small_tiles, big_tiles = -(-small // tile), -(-big // tile)
        data.update(smallCoreDataNum=small, bigCoreDataNum=big, finalSmallTileNum=small_tiles,
                    finalBigTileNum=big_tiles, smallTailDataNum=small - (small_tiles - 1) * tile,
                    bigTailDataNum=big - (big_tiles - 1) * tile, tailBlockNum=tail_blocks)
    else:
        key = 0
        index = (aligned - 1) // (TILE_BASE_SIZE * TILE_THRESHOLD_FACTOR)
        tile = TILE_BASE_SIZE * (index + 1) if index < TILE_MAX_REGULAR_INDEX else MAX_TILEDATA
        need_cores = -(-aligned // tile)
        tile = -(-(-(-aligned // need_cores)) // elems) * elems
        core_num = -(-aligned // tile)
        data.update(smallTailDataNum=aligned - (core_num - 1) * tile)
    mask = -(-(-(-tile // 8)) // REPEAT_ALIGN) * REPEAT_ALIGN
    data.update(tileDataNum=tile, maskTileDataNum=mask)
    return core_num, key, data, aligned


def calculate_mask(maskLocal, xLocal, length, mask_tile, lo, hi):
    """The original's CalculateMask: maskLocal's first mask tile = isnan(x) | (lo <= x <= hi)."""
    maskTmp1, maskTmp2, maskTmp3 = maskLocal, maskLocal[mask_tile], maskLocal[2 * mask_tile]
    words = length // BITS_PER_INT16
    m1, m2, m3 = (m.ReinterpretCast("uint16") for m in (maskTmp1, maskTmp2, maskTmp3))
    aj.CompareScalar(maskTmp1, xLocal, np.float32(1.0), aj.CMPMODE.LE, length)
    aj.CompareScalar(maskTmp2, xLocal, np.float32(1.0), aj.CMPMODE.GT, length)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Or(m1, m1, m2, words)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Not(m1, m1, words)
    aj.CompareScalar(maskTmp3, xLocal, hi, aj.CMPMODE.LE, length)
    aj.CompareScalar(maskTmp2, xLocal, lo, aj.CMPMODE.GE, length)
    aj.PipeBarrier(aj.PIPE_V)
    aj.And(m2, m2, m3, words)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Or(m1, m1, m2, words)


def select_grad(T, yLocal, mask, gradLocal, n):
    """Select tensor-scalar: grad where the mask bit is 1, else 0 (bfloat16 through half views, as the original)."""
    if T == "bfloat16":
        aj.Select(yLocal.ReinterpretCast("half"), mask, gradLocal.ReinterpretCast("half"), np.float16(0),
                  aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, n)
    else:
        zero = np.float32(0) if T == "float" else np.float16(0)
        aj.Select(yLocal, mask, gradLocal, zero, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, n)


class KernelHardtanhGrad:
    def __init__(self, dtype):
        self.T = dtype

    def Init(self, result, grad, y, tiling_data, pipe):
        t = tiling_data
        coreId = aj.GetBlockIdx()
        globalBufferIndex = t["bigCoreDataNum"] * coreId
        self.tileDataNum = t["tileDataNum"]
        if coreId < t["tailBlockNum"]:
            self.coreDataNum, self.tileNum, self.tailDataNum = (t["bigCoreDataNum"], t["finalBigTileNum"],
                                                                t["bigTailDataNum"])
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = (t["smallCoreDataNum"], t["finalSmallTileNum"],
                                                                t["smallTailDataNum"])
            globalBufferIndex -= (t["bigCoreDataNum"] - t["smallCoreDataNum"]) * (coreId - t["tailBlockNum"])
        self.maskTileDataNum = t["maskTileDataNum"]
        self.min, self.max = t["min"], t["max"]
        self.resultGm, self.gradGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.resultGm.SetGlobalBuffer(result[globalBufferIndex:], self.coreDataNum)
        self.gradGm.SetGlobalBuffer(grad[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        size = _SIZES[self.T]
        self.inQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.maskBuf, self.tmpBuf = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        pipe.InitBuffer(self.inQueueX, BUFFER_NUM, 2 * self.tileDataNum * size)
        pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * size)
        pipe.InitBuffer(self.maskBuf, 3 * self.maskTileDataNum)
        if self.T != "float":
            pipe.InitBuffer(self.tmpBuf, self.tileDataNum * 4)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.tileDataNum
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)
        self.processDataNum = self.tailDataNum
        self.CopyIn(loopCount - 1)
        self.Compute(loopCount - 1)
        self.CopyOut(loopCount - 1)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.T)
        aj.DataCopy(xLocal, self.resultGm[progress * self.tileDataNum], self.processDataNum)
        aj.DataCopy(xLocal[self.tileDataNum], self.gradGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def Compute(self, progress):
        n = self.processDataNum
        maskTmp = self.maskBuf.Get("uint8")
        xLocal = self.inQueueX.DeQue(self.T)
        yLocal = self.outQueueY.AllocTensor(self.T)
        resultLocal, gradLocal = xLocal, xLocal[self.tileDataNum]
        if self.T == "float":
            calculate_mask(maskTmp, resultLocal, n, self.maskTileDataNum, self.min, self.max)
        else:
            p1 = self.tmpBuf.Get("float")
            aj.Cast(p1, resultLocal, aj.RoundMode.CAST_NONE, n)
            calculate_mask(maskTmp, p1, n, self.maskTileDataNum, self.min, self.max)
        select_grad(self.T, yLocal, maskTmp, gradLocal, n)
        self.outQueueY.EnQue(self.T, yLocal)
        self.inQueueX.FreeTensor(xLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.T)
        aj.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


class KernelHardtanhGrad_NoDB:
    """One tile a core, all in Init: no queue hand-over, so the copies are ordered by explicit flag pairs."""

    def __init__(self, dtype):
        self.T = dtype

    def Init(self, result, grad, y, tiling_data, pipe):
        t = tiling_data
        coreId, coreNum = aj.GetBlockIdx(), aj.GetBlockNum()
        n = t["tileDataNum"] if coreId != coreNum - 1 else t["smallTailDataNum"]
        globalBufferIndex = t["tileDataNum"] * coreId
        resultGm, gradGm, yGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        resultGm.SetGlobalBuffer(result[globalBufferIndex:], t["tileDataNum"])
        gradGm.SetGlobalBuffer(grad[globalBufferIndex:], t["tileDataNum"])
        yGm.SetGlobalBuffer(y[globalBufferIndex:], t["tileDataNum"])
        size = _SIZES[self.T]
        inQueueX, outQueueY = aj.TQue(aj.QuePosition.VECIN, 1), aj.TQue(aj.QuePosition.VECOUT, 1)
        maskBuf, tmpBuf = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        pipe.InitBuffer(inQueueX, BUFFER_NUM, 2 * MAX_TILEDATA * size)
        pipe.InitBuffer(outQueueY, BUFFER_NUM, MAX_TILEDATA * size)
        pipe.InitBuffer(maskBuf, 3 * MAX_TILEDATA)
        if self.T != "float":
            pipe.InitBuffer(tmpBuf, MAX_TILEDATA * 4)
        xLocal = inQueueX.AllocTensor(self.T)
        aj.DataCopy(xLocal, resultGm, n)
        aj.DataCopy(xLocal[MAX_TILEDATA], gradGm, n)
        eventId1 = pipe.FetchEventID(aj.HardEvent.MTE2_V)
        aj.SetFlag(eventId1, event=aj.HardEvent.MTE2_V)
        maskTmp = maskBuf.Get("uint8")   # its three mask tiles at the MAX_TILEDATA stride (not maskTileDataNum)
        aj.WaitFlag(eventId1, event=aj.HardEvent.MTE2_V)
        yLocal = outQueueY.AllocTensor(self.T)
        resultLocal, gradLocal = xLocal, xLocal[MAX_TILEDATA]
        if self.T == "float":
            calculate_mask(maskTmp, resultLocal, n, MAX_TILEDATA, t["min"], t["max"])
        else:
            p1 = tmpBuf.Get("float")
            aj.Cast(p1, resultLocal, aj.RoundMode.CAST_NONE, n)
            aj.PipeBarrier(aj.PIPE_V)
            calculate_mask(maskTmp, p1, n, MAX_TILEDATA, t["min"], t["max"])
        aj.PipeBarrier(aj.PIPE_V)
        select_grad(self.T, yLocal, maskTmp, gradLocal, n)
        eventId2 = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_MTE3)
        aj.SetFlag(eventId2, event=aj.HardEvent.V_MTE3)
        inQueueX.FreeTensor(xLocal)
        aj.WaitFlag(eventId2, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(yGm, yLocal, n)
        outQueueY.FreeTensor(yLocal)


def hardtanh_grad(result, grad, y, tiling_key, tiling_data, dtype):
    """The kernel entry: the caller's TPipe, key 1 the double-buffered kernel, key 0 the single-tile one."""
    pipe = aj.TPipe()
    if tiling_key == 1:
        op = KernelHardtanhGrad(dtype)
        op.Init(result, grad, y, tiling_data, pipe)
        op.Process()
    else:
        KernelHardtanhGrad_NoDB(dtype).Init(result, grad, y, tiling_data, pipe)


def _make_inputs(np_dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        result = (rng.standard_normal(size) * 1.5).astype(np.float32)
        result[::37] = np.nan                                    # NaN results pass the grad through
        result[5::41] = MIN                                      # the interval's ends are inside it
        result[7::43] = MAX
        grad = rng.standard_normal(size).astype(np.float32)
        return {"result": result.astype(np_dtype), "grad": grad.astype(np_dtype)}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["result"]
        block_dim, key, tiling_data, aligned = tiling(x.size, dtype)
        length = aligned if key == 1 else max(aligned, block_dim * tiling_data["tileDataNum"])
        gm = {}
        for name in ("result", "grad"):
            gm[name] = np.zeros(length, x.dtype)
            gm[name][:x.size] = inputs[name]
        y = np.zeros(length, x.dtype)
        aj.launch(hardtanh_grad, block_dim, device, gm["result"], gm["grad"], y, key, tiling_data, dtype)
        return {"y": y[:x.size]}
    return run


def expected(device, inputs):
    r = inputs["result"].astype(np.float32)
    grad = inputs["grad"]
    keep = np.isnan(r) | ((r >= MIN) & (r <= MAX))
    return {"y": np.where(keep, grad, np.zeros(1, grad.dtype)).astype(grad.dtype)}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/hardtanh_grad/op_kernel/hardtanh_grad.h"
KERNELS = [
    KernelSpec("hardtanh_grad", "HardtanhGrad over floats: CompareScalar x4, Or/Not/And on uint16 mask words, Select "
               "tensor-scalar; big/small cores, double-buffered tiles (above 122880 elements) or one tile a core with "
               "MTE2_V / V_MTE3 flags", _make_inputs(np.float32), _run("float"), expected, default_size=130000,
               devices=DEVICES, source=_SOURCE),
    KernelSpec("hardtanh_grad_half", "HardtanhGrad over halves: the result widened to float for the masks",
               _make_inputs(np.float16), _run("half"), expected, default_size=20000, devices=DEVICES, source=_SOURCE),
    KernelSpec("hardtanh_grad_bf16", "HardtanhGrad over bfloat16: Select on half views of the tiles",
               _make_inputs(ml_dtypes.bfloat16), _run("bfloat16"), expected, default_size=130000,
               devices=BF16_DEVICES, source=_SOURCE),
]
