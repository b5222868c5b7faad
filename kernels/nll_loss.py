"""NLLLoss from the CANN NN operators: loss[r] = -weight[t] * x[r, t] for the target class t = target[r] of each row
(0 for rows whose target is ignore_index), output per row (reduction "none") or summed, or divided by the summed
weights of the counted rows ("mean"); the summed weights are a second output. float, half and bfloat16 x; int32 or
int64 targets.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/loss/nll_loss/op_kernel/nll_loss.h
(`NsNllLoss::NllLossKernel<T>`: the weights DataCopyPad'ed once and widened to float (Cast, or Adds 0 for float);
per tile of rows a DataCopyPad of x and of the targets through depth-1 queues; the vector path (a core with at least
128 rows): row bases CreateVecIndex * C (int32 Muls), targets to float (int64 through a CAST_NONE to int32, then
CAST_RINT), a CompareScalar NE ignore_index over the tile rounded up to 64 lanes, the class clamped by Maxs / Mins and
cast back to int32, byte offsets (Add, Muls by sizeof) for a Gather of x and one of the float weights (or a Duplicate
of 1), Mul, Muls -1, two tensor-scalar Selects, per-lane accumulators Added tile by tile and ReduceSum'med at the end
(read behind a V_S flag pair); the scalar path (fewer rows) reads the same values with GetValue after an MTE2_S flag
pair; "none" rows go out through Adds 0 (float) or a CAST_RINT Cast and a DataCopyPad; with several cores each writes
its two partials by Duplicate into a zeroed 16-float block and two DataCopies to its GM workspace slots, SyncAll, and
core 0 sums the slots (DataCopy, a Duplicate of zeros up to 64 lanes, ReduceSum); the scalars are stored by
GlobalTensor SetValue, 16-bit ones through the kernel's own float -> half (truncating, flushing subnormals) and
float -> bfloat16 (round to nearest even) bit conversions), with the host tiling of
experimental/loss/nll_loss/op_host/nll_loss_tiling.cpp (`ComputeNllLossSplit`: cores by 16 KiB of work, rows per
core, the vector path from 128 rows a core, tile rows from a 140 KiB budget).

Deviations: the AIV count is the launch's 8; GM is padded to 32 bytes, as device allocations are; the workspace is a
host byte array of the size the kernel addresses (its first 32 bytes a core unused, as in the original). The
original's CompareScalar covers a tile's rows rounded up to 64 lanes, reading float targets past the rows the Cast
wrote (uninitialised UB; their bits are never selected), so the port zeroes the float-target buffer once before the
first tile (docs/decisions.md "Sanitizer-clean tails").

Devices: DataCopyPad, the TPipe event ids and SyncAll: the 950, A3 and A2 (the 310B has no TPipe event ids, the
310P and 910 no DataCopyPad).

Fidelity: BIT-EXACT (CreateVecIndex, Muls, Add, Cast, Compares, Maxs, Mins, Gather, Mul, Select, Duplicate, ReduceSum
are BIT-EXACT, SPEC-2 0.3). `expected` replays the arithmetic on host float32 arrays: per-lane float32 accumulation
in tile order, the device's ReduceSum trees from the reference model (aj.explain_reduce_order) for each core's lanes
and for core 0's sum of the slots, the scalar path's sequential float32 sums, and the kernel's own bit conversions.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BLK_ELEM, VEC_ALIGN, BLK_BYTES = 8, 64, 32
AIV_NUM = 8
IGNORE_INDEX = -100
NONE, MEAN, SUM = 0, 1, 2
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
NP_TYPE = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")


def _ceil_align(v, a):
    return (v + a - 1) // a * a


def tiling(num_row, num_class, dtype, reduction, has_weight, target_int64):
    """ComputeNllLossSplit: (block_dim, tiling data)."""
    size = TYPE_SIZE[dtype]
    work = num_row * (num_class * size + 512)
    used = max(1, min(-(-work // (16 * 1024)), AIV_NUM, num_row))
    rows_per_core = -(-num_row // used)
    used = -(-num_row // rows_per_core)
    rep_rows = num_row if used <= 1 else rows_per_core
    budget = 140 * 1024
    if has_weight:
        w_bytes = num_class * (size + 4) + 256
        budget = budget - w_bytes if budget > w_bytes + 32 * 1024 else 32 * 1024
    tile_rows = min(max(1, budget // (num_class * size + 320)), rows_per_core)
    return used, dict(rowNum=num_row, classNum=num_class, reduction=reduction, ignoreIndex=IGNORE_INDEX,
                      hasWeight=int(has_weight), targetIsInt64=int(target_int64), usedCoreNum=used,
                      rowsPerCore=rows_per_core, tileRows=tile_rows, useVector=int(rep_rows >= 128))


def float_to_half_bits(v):
    """The kernel's FloatToHalfBits: exponent rebias, mantissa truncated, subnormals flushed to a signed zero."""
    bits = int(np.float32(v).view(np.uint32))
    sign, exp, mant = (bits >> 16) & 0x8000, ((bits >> 23) & 0xFF) - 127 + 15, (bits >> 13) & 0x3FF
    if exp <= 0:
        return np.uint16(sign)
    if exp >= 31:
        return np.uint16(sign | 0x7C00)
    return np.uint16(sign | (exp << 10) | mant)


def float_to_bf16_bits(v):
    """The kernel's FloatToBf16Bits: round to nearest even on the bit pattern."""
    bits = int(np.float32(v).view(np.uint32))
    return np.uint16(((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFFFFFF) >> 16)


def _event_pair(event):
    eid = aj.GetTPipePtr().FetchEventID(event)
    aj.SetFlag(eid, event=event)
    aj.WaitFlag(eid, event=event)


class NllLossKernel:
    def __init__(self, dtype):
        self.T = dtype

    def Init(self, x, target, weight, y, tw, workspace, pipe, td):
        self.pipe = pipe
        self.N, self.C = td["rowNum"], td["classNum"]
        self.reduction, self.ignoreIndex = td["reduction"], td["ignoreIndex"]
        self.hasWeight, self.targetIsInt64 = td["hasWeight"] != 0, td["targetIsInt64"] != 0
        self.usedCore, self.rowsPerCore = td["usedCoreNum"], td["rowsPerCore"]
        self.tileRows = td["tileRows"] or 1
        self.useVector = td["useVector"] != 0
        self.coreIdx = aj.GetBlockIdx()
        self.rowStart = self.coreIdx * self.rowsPerCore
        self.rowEnd = min(self.rowStart + self.rowsPerCore, self.N)
        self.myRows = max(self.rowEnd - self.rowStart, 0)
        (self.xGm, self.yGm, self.yGmU, self.yGmF, self.twGmU, self.twGmF, self.wGm, self.tgtGm,
         self.wsGm) = (aj.GlobalTensor() for _ in range(9))
        self.xGm.SetGlobalBuffer(x)
        self.yGm.SetGlobalBuffer(y)
        self.yGmU.SetGlobalBuffer(y.view(np.uint16))        # (__gm__ uint16_t*)y, (__gm__ float*)y
        self.yGmF.SetGlobalBuffer(y.view(np.float32))
        self.twGmU.SetGlobalBuffer(tw.view(np.uint16))
        self.twGmF.SetGlobalBuffer(tw.view(np.float32))
        if self.hasWeight:
            self.wGm.SetGlobalBuffer(weight)
        self.tgtGm.SetGlobalBuffer(target)
        self.wsGm.SetGlobalBuffer(workspace[BLK_BYTES * self.usedCore:].view(np.float32))
        self.trA = _ceil_align(self.tileRows, VEC_ALIGN)
        self.blkA = _ceil_align(self.tileRows * self.C, VEC_ALIGN)
        self.cA = _ceil_align(self.C, VEC_ALIGN)
        self.segLen = _ceil_align(self.usedCore * BLK_ELEM, VEC_ALIGN)
        self.InitBuffers()

    def Process(self):
        wF32 = self.wF32Buf.Get("float")
        if self.hasWeight:
            self.LoadWeight(wF32)
        if self.useVector:
            accLossVal, accWVal = self.RunVector(wF32)
        else:
            acc = [np.float32(0.0), np.float32(0.0)]       # the C++ float& accumulators
            for off in range(0, self.myRows, self.tileRows):
                cur = min(self.myRows - off, self.tileRows)
                self.ProcessTileScalar(self.rowStart + off, cur, wF32, acc)
            accLossVal, accWVal = acc
        if self.usedCore == 1:
            self.WriteReduced(accLossVal, accWVal)
        else:
            self.CrossCoreReduce(accLossVal, accWVal)

    def InitBuffers(self):
        size, trA, p = TYPE_SIZE[self.T], self.trA, self.pipe
        self.xInQue, self.tInQue, self.wInQue, self.finalInQue = (aj.TQue(aj.QuePosition.VECIN, 1) for _ in range(4))
        self.yOutQue, self.partialOutQue = (aj.TQue(aj.QuePosition.VECOUT, 1) for _ in range(2))
        (self.wF32Buf, self.yF32Buf, self.rowBaseBuf, self.accLossBuf, self.accWBuf, self.tFBuf, self.idxBuf,
         self.offBuf, self.xGathBuf, self.gRawBuf, self.wGathBuf, self.maskBuf, self.redTmpBuf,
         self.redOutBuf) = (aj.TBuf(aj.QuePosition.VECCALC) for _ in range(14))
        p.InitBuffer(self.xInQue, 1, self.blkA * size)
        p.InitBuffer(self.tInQue, 1, trA * 8)
        if self.hasWeight:
            p.InitBuffer(self.wInQue, 1, self.cA * size)
        p.InitBuffer(self.yOutQue, 1, trA * size)
        p.InitBuffer(self.wF32Buf, self.cA * 4)
        p.InitBuffer(self.yF32Buf, trA * 4)
        if self.useVector:
            for buf in (self.rowBaseBuf, self.accLossBuf, self.accWBuf, self.tFBuf, self.idxBuf, self.offBuf,
                        self.xGathBuf):
                p.InitBuffer(buf, trA * 4)
            p.InitBuffer(self.gRawBuf, trA * size)
            p.InitBuffer(self.wGathBuf, trA * 4)
            p.InitBuffer(self.maskBuf, trA)
        p.InitBuffer(self.redTmpBuf, max(trA, self.segLen) * 4)
        p.InitBuffer(self.redOutBuf, VEC_ALIGN * 4)
        p.InitBuffer(self.partialOutQue, 1, 2 * BLK_BYTES)
        p.InitBuffer(self.finalInQue, 1, self.segLen * 4)

    def LoadWeight(self, wF32):
        wRaw = self.wInQue.AllocTensor(self.T)
        aj.DataCopyPad(wRaw, self.wGm, aj.DataCopyExtParams(1, self.C * TYPE_SIZE[self.T], 0, 0, 0),
                       aj.DataCopyPadExtParams(False, 0, 0, 0))
        self.wInQue.EnQue(wRaw)
        wRaw = self.wInQue.DeQue(self.T)
        if self.T == "float":
            aj.Adds(wF32, wRaw.ReinterpretCast("float"), np.float32(0.0), self.C)
        else:
            aj.Cast(wF32, wRaw, aj.RoundMode.CAST_NONE, self.C)
        self.wInQue.FreeTensor(wRaw)
        if not self.useVector:
            _event_pair(aj.HardEvent.V_S)

    def LoadInputTile(self, row0, cur):
        xRaw = self.xInQue.AllocTensor(self.T)
        aj.DataCopyPad(xRaw, self.xGm[row0 * self.C], aj.DataCopyExtParams(1, cur * self.C * TYPE_SIZE[self.T], 0, 0, 0),
                       aj.DataCopyPadExtParams(False, 0, 0, 0))
        self.xInQue.EnQue(xRaw)
        xRaw = self.xInQue.DeQue(self.T)
        tdtype, tsize = ("int64", 8) if self.targetIsInt64 else ("int32", 4)
        t = self.tInQue.AllocTensor(tdtype)
        aj.DataCopyPad(t, self.tgtGm[row0], aj.DataCopyExtParams(1, cur * tsize, 0, 0, 0),
                       aj.DataCopyPadExtParams(False, 0, 0, 0))
        self.tInQue.EnQue(t)
        return xRaw, self.tInQue.DeQue(tdtype)

    def FreeInputTile(self, xRaw, t):
        self.xInQue.FreeTensor(xRaw)
        self.tInQue.FreeTensor(t)

    def WriteRowsOutput(self, row0, cur, srcF):
        yOut = self.yOutQue.AllocTensor(self.T)
        if self.T == "float":
            aj.Adds(yOut.ReinterpretCast("float"), srcF, np.float32(0.0), cur)
        else:
            aj.Cast(yOut, srcF, aj.RoundMode.CAST_RINT, cur)
        self.yOutQue.EnQue(yOut)
        yOut = self.yOutQue.DeQue(self.T)
        aj.DataCopyPad(self.yGm[row0], yOut, aj.DataCopyExtParams(1, cur * TYPE_SIZE[self.T], 0, 0, 0))
        self.yOutQue.FreeTensor(yOut)

    def RunVector(self, wF32):
        rowBase = self.rowBaseBuf.Get("int32")
        aj.CreateVecIndex(rowBase, np.int32(0), self.trA)
        aj.Muls(rowBase, rowBase, np.int32(self.C), self.trA)
        accLoss, accW = self.accLossBuf.Get("float"), self.accWBuf.Get("float")
        aj.Duplicate(accLoss, np.float32(0.0), self.trA)
        aj.Duplicate(accW, np.float32(0.0), self.trA)
        aj.Duplicate(self.tFBuf.Get("float"), np.float32(0.0), self.trA)    # deviation: see the docstring
        for off in range(0, self.myRows, self.tileRows):
            cur = min(self.myRows - off, self.tileRows)
            self.ProcessTileVector(self.rowStart + off, cur, wF32, rowBase, accLoss, accW)
        redTmp, redOut = self.redTmpBuf.Get("float"), self.redOutBuf.Get("float")
        if self.reduction != NONE:
            aj.ReduceSum(redOut, accLoss, redTmp, self.trA)
        aj.ReduceSum(redOut[BLK_ELEM], accW, redTmp, self.trA)
        _event_pair(aj.HardEvent.V_S)
        return (redOut.GetValue(0) if self.reduction != NONE else np.float32(0.0)), redOut.GetValue(BLK_ELEM)

    def GatherTileValues(self, xRaw, wF32, idx, offI, rowBase, xGathF, wGathF, cur):
        aj.Add(offI, rowBase, idx, cur)
        aj.Muls(offI, offI, np.int32(TYPE_SIZE[self.T]), cur)
        if self.T == "float":
            aj.Gather(xGathF, xRaw, offI.ReinterpretCast("uint32"), 0, cur)
        else:
            gRaw = self.gRawBuf.Get(self.T)
            aj.Gather(gRaw, xRaw, offI.ReinterpretCast("uint32"), 0, cur)
            aj.Cast(xGathF, gRaw, aj.RoundMode.CAST_NONE, cur)
        if self.hasWeight:
            aj.Muls(offI, idx, np.int32(4), cur)
            aj.Gather(wGathF, wF32, offI.ReinterpretCast("uint32"), 0, cur)
        else:
            aj.Duplicate(wGathF, np.float32(1.0), cur)

    def ProcessTileVector(self, row0, cur, wF32, rowBase, accLoss, accW):
        xRaw, t = self.LoadInputTile(row0, cur)
        tF, idx, offI = self.tFBuf.Get("float"), self.idxBuf.Get("int32"), self.offBuf.Get("int32")
        xGathF, wGathF, lossF = self.xGathBuf.Get("float"), self.wGathBuf.Get("float"), self.yF32Buf.Get("float")
        mask = self.maskBuf.Get("uint8")
        if self.targetIsInt64:
            aj.Cast(idx, t, aj.RoundMode.CAST_NONE, cur)
            aj.Cast(tF, idx, aj.RoundMode.CAST_RINT, cur)
        else:
            aj.Cast(tF, t, aj.RoundMode.CAST_RINT, cur)
        aj.CompareScalar(mask, tF, np.float32(self.ignoreIndex), aj.CMPMODE.NE, _ceil_align(cur, VEC_ALIGN))
        aj.Maxs(tF, tF, np.float32(0.0), cur)
        aj.Mins(tF, tF, np.float32(self.C - 1), cur)
        aj.Cast(idx, tF, aj.RoundMode.CAST_RINT, cur)
        self.GatherTileValues(xRaw, wF32, idx, offI, rowBase, xGathF, wGathF, cur)
        aj.Mul(lossF, wGathF, xGathF, cur)
        aj.Muls(lossF, lossF, np.float32(-1.0), cur)
        aj.Select(lossF, mask, lossF, np.float32(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, cur)
        aj.Select(wGathF, mask, wGathF, np.float32(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, cur)
        if self.reduction != NONE:
            aj.Add(accLoss, accLoss, lossF, cur)
        aj.Add(accW, accW, wGathF, cur)
        if self.reduction == NONE:
            self.WriteRowsOutput(row0, cur, lossF)
        self.FreeInputTile(xRaw, t)

    def ProcessTileScalar(self, row0, cur, wF32, acc):
        xRaw, t = self.LoadInputTile(row0, cur)
        _event_pair(aj.HardEvent.MTE2_S)
        yF = self.yF32Buf.Get("float")
        for j in range(cur):
            target = int(t.GetValue(j))
            loss = w = np.float32(0.0)
            if target != self.ignoreIndex:
                tc = min(max(target, 0), self.C - 1)
                xv = np.float32(xRaw.GetValue(j * self.C + tc))
                w = wF32.GetValue(tc) if self.hasWeight else np.float32(1.0)
                loss = -w * xv
            if self.reduction == NONE:
                yF.SetValue(j, loss)
            acc[0] += loss
            acc[1] += w
        self.FreeInputTile(xRaw, t)
        if self.reduction == NONE:
            _event_pair(aj.HardEvent.S_V)
            self.WriteRowsOutput(row0, cur, yF)

    def CrossCoreReduce(self, accLossVal, accWVal):
        partUb = self.partialOutQue.AllocTensor("float")
        aj.Duplicate(partUb, np.float32(0.0), 2 * BLK_ELEM)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Duplicate(partUb, accLossVal, 1)
        aj.Duplicate(partUb[BLK_ELEM], accWVal, 1)
        aj.PipeBarrier(aj.PIPE_V)
        self.partialOutQue.EnQue(partUb)
        partUb = self.partialOutQue.DeQue("float")
        aj.DataCopy(self.wsGm[self.coreIdx * BLK_ELEM], partUb, BLK_ELEM)
        aj.DataCopy(self.wsGm[(self.usedCore + self.coreIdx) * BLK_ELEM], partUb[BLK_ELEM], BLK_ELEM)
        self.partialOutQue.FreeTensor(partUb)
        aj.SyncAll()
        if self.coreIdx == 0:
            self.FinalReduceAndWrite()

    def SumSlots(self, first):
        """FinalReduceAndWrite's sum of one partial per core: DataCopy, zeros up to segLen, ReduceSum."""
        cnt = self.usedCore * BLK_ELEM
        redTmp, redOut = self.redTmpBuf.Get("float"), self.redOutBuf.Get("float")
        part = self.finalInQue.AllocTensor("float")
        aj.DataCopy(part, self.wsGm[first], cnt)
        self.finalInQue.EnQue(part)
        part = self.finalInQue.DeQue("float")
        if self.segLen > cnt:
            aj.Duplicate(part[cnt], np.float32(0.0), self.segLen - cnt)
            aj.PipeBarrier(aj.PIPE_V)
        aj.ReduceSum(redOut, part, redTmp, self.segLen)
        _event_pair(aj.HardEvent.V_S)
        total = redOut.GetValue(0)
        self.finalInQue.FreeTensor(part)
        return total

    def FinalReduceAndWrite(self):
        totalLoss = self.SumSlots(0) if self.reduction != NONE else np.float32(0.0)
        self.WriteReduced(totalLoss, self.SumSlots(self.usedCore * BLK_ELEM))

    def StoreScalar(self, gU, gF, value):
        if self.T == "float":
            gF.SetValue(0, value)
        else:
            gU.SetValue(0, float_to_half_bits(value) if self.T == "half" else float_to_bf16_bits(value))

    def WriteReduced(self, totalLoss, totalWeight):
        self.StoreScalar(self.twGmU, self.twGmF, totalWeight)
        if self.reduction == SUM:
            self.StoreScalar(self.yGmU, self.yGmF, totalLoss)
        elif self.reduction == MEAN:
            self.StoreScalar(self.yGmU, self.yGmF, totalLoss / totalWeight if totalWeight != 0 else np.float32(0.0))


def nll_loss(x, target, weight, y, tw, workspace, td, dtype):
    pipe = aj.TPipe()
    op = NllLossKernel(dtype)
    op.Init(x, target, weight, y, tw, workspace, pipe, td)
    op.Process()


def _padded(n, dtype):
    per = 32 // np.dtype(dtype).itemsize
    return np.zeros(-(-max(n, 1) // per) * per, dtype)


def _make_inputs(dtype, num_class, has_weight, target_int64):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-4, 4, (size, num_class)).astype(NP_TYPE[dtype])
        target = rng.integers(0, num_class, size).astype(np.int64 if target_int64 else np.int32)
        target[::7] = IGNORE_INDEX
        target[1::11] = num_class + 3        # out of range: the kernel clamps the class
        target[2::13] = -5
        x[3 % size, :] = 0                    # -(w * 0) is -0.0
        inputs = {"x": x, "target": target}
        if has_weight:
            inputs["weight"] = rng.uniform(0.25, 2, num_class).astype(NP_TYPE[dtype])
        return inputs
    return make_inputs


def _run(dtype, reduction):
    def run(device, inputs):
        x, target, weight = inputs["x"], inputs["target"], inputs.get("weight")
        num_row, num_class = x.shape
        used, td = tiling(num_row, num_class, dtype, reduction, weight is not None, target.dtype == np.int64)
        gm_x = _padded(x.size, x.dtype)
        gm_x[:x.size] = x.ravel()
        gm_t = _padded(target.size, target.dtype)
        gm_t[:target.size] = target
        gm_w = None
        if weight is not None:
            gm_w = _padded(weight.size, weight.dtype)
            gm_w[:weight.size] = weight
        y = _padded(num_row if reduction == NONE else 2, x.dtype)
        tw = _padded(2, x.dtype)
        workspace = np.zeros(BLK_BYTES * used + 2 * used * BLK_ELEM * 4, np.uint8)
        aj.launch(nll_loss, used, device, gm_x, gm_t, gm_w, y, tw, workspace, td, dtype)
        out = {"total_weight": tw[:1]}
        out["y"] = y[:num_row] if reduction == NONE else y[:1]
        return out
    return run


def _store(dtype, value):
    if dtype == "float":
        return np.array([value], np.float32)
    bits = float_to_half_bits(value) if dtype == "half" else float_to_bf16_bits(value)
    return np.array([bits], np.uint16).view(NP_TYPE[dtype])


def _expected(dtype, reduction):
    def expected(device, inputs):
        x, target, weight = inputs["x"], inputs["target"], inputs.get("weight")
        num_row, num_class = x.shape
        used, td = tiling(num_row, num_class, dtype, reduction, weight is not None, target.dtype == np.int64)
        xf = x.astype(np.float32)
        wf = weight.astype(np.float32) if weight is not None else np.ones(num_class, np.float32)
        keep = target.astype(np.int64) != IGNORE_INDEX
        cls = np.clip(target.astype(np.int64), 0, num_class - 1)
        w = np.where(keep, wf[cls], np.float32(0.0)).astype(np.float32)
        loss = np.where(keep, -(wf[cls] * xf[np.arange(num_row), cls]), np.float32(0.0)).astype(np.float32)
        rpc, tile = td["rowsPerCore"], td["tileRows"]
        trA = _ceil_align(tile, VEC_ALIGN)
        partials = []
        for core in range(used):
            rows = slice(core * rpc, min((core + 1) * rpc, num_row))
            core_loss, core_w = loss[rows], w[rows]
            if td["useVector"]:
                lanes = [np.zeros(trA, np.float32), np.zeros(trA, np.float32)]
                for off in range(0, core_loss.size, tile):
                    for acc, vals in zip(lanes, (core_loss, core_w)):
                        chunk = vals[off:off + tile]
                        acc[:chunk.size] = (acc[:chunk.size] + chunk).astype(np.float32)
                [tree] = [aj.explain_reduce_order(device, "count", "float", count=trA)]
                sums = [np.float32(tree.evaluate(acc)) for acc in lanes]
                if reduction == NONE:
                    sums[0] = np.float32(0.0)
            else:
                sums = [np.float32(0.0), np.float32(0.0)]
                for lv, wv in zip(core_loss, core_w):
                    sums[0] = np.float32(sums[0] + lv)
                    sums[1] = np.float32(sums[1] + wv)
            partials.append(sums)
        if used == 1:
            total_loss, total_w = partials[0]
        else:
            seg = _ceil_align(used * BLK_ELEM, VEC_ALIGN)
            tree = aj.explain_reduce_order(device, "count", "float", count=seg)
            totals = []
            for k in range(2):
                slots = np.zeros(seg, np.float32)
                slots[0:used * BLK_ELEM:BLK_ELEM] = [p[k] for p in partials]
                totals.append(np.float32(tree.evaluate(slots)))
            total_loss, total_w = totals
            if reduction == NONE:
                total_loss = np.float32(0.0)
        out = {"total_weight": _store(dtype, total_w)}
        if reduction == NONE:
            out["y"] = (loss + np.float32(0.0)) if dtype == "float" else loss.astype(NP_TYPE[dtype])
        else:
            value = total_loss if reduction == SUM else (
                np.float32(total_loss / total_w) if total_w != 0 else np.float32(0.0))
            out["y"] = _store(dtype, value)
        return out
    return expected


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/loss/nll_loss/op_kernel/nll_loss.h"
KERNELS = [
    KernelSpec(name, description, _make_inputs(dtype, num_class, has_weight, t64), _run(dtype, reduction),
               _expected(dtype, reduction), default_size=size, devices=DEVICES, source=_SOURCE)
    for name, description, dtype, num_class, has_weight, t64, reduction, size in (
        ("nll_loss", "NLLLoss mean over float rows of 7 classes with class weights and int32 targets (ignore_index "
         "and out-of-range targets; vector path: CreateVecIndex row bases, Gather by byte offsets, CompareScalar + "
         "Select, per-lane sums, ReduceSum; 8 cores merged through GM slots after SyncAll)",
         "float", 7, True, False, MEAN, 1100),
        ("nll_loss_none_half", "NLLLoss per row over half rows of 9 classes, no weights, int64 targets (Cast int64 "
         "-> int32 -> float, CAST_RINT out, DataCopyPad of unaligned row counts) and the summed weights",
         "half", 9, False, True, NONE, 1100),
    )
]
