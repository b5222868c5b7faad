"""HuberLoss from the CANN NN operators: loss = m * (|e| - m / 2), e = input - target, m = min(|e|, delta), element by
element (reduction "none") or its sum or mean, over float, half and bfloat16 (always computed in float).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-nn @ 7c5958be87432190c7e3edff268be907b36ef0e3, experimental/loss/huber_loss/op_kernel/huber_loss.h
(`NsHuberLoss::HuberLoss<T, SCH_MODE>`: a prefetching tile loop (CopyIn of tile i+1 issued before Compute of tile i,
the double-buffered queues holding both; on "none" the CopyOut one tile behind); each copy a DataCopy when the
bytes are whole DataBlocks, else a DataCopyPad with a default-made DataCopyPadExtParams; two tile-wide float slots
of one TBuf taken with GetWithOffset (the second 256 bytes past the first's end, as are the queues' "bank pad"
TBufs); Sub, Abs, Mins delta, Axpy(-0.5) and then Mul (none) or MulAddDst into a tile-wide accumulator (reduce);
the epilogue ReduceSums the accumulator, reads it with GetValue behind PipeBarrier<PIPE_ALL>, and with several
cores SetValues it into lane 0 of a Duplicated DataBlock, DataCopies that to its GM workspace slot, SyncAll, and core
0 ReduceSums the slots; the scalar unit divides by the divisor (numel for mean, 1 for sum), Duplicate broadcasts it,
and a one-element DataCopyPad writes it (16-bit: through a CAST_RINT)) with the host tiling of
experimental/loss/huber_loss/op_host/huber_loss_tiling_calc.h (`CalcTiling`: the tile from the UB less the fixed
buffers over the bytes per element, rounded down to 256 and capped at the largest core share; one core below 32768
elements, else 512-byte GM blocks spread over the cores, the last core the rest; the workspace a 64-byte sync region
per core and then the slots).

Deviations (also in docs/decisions.md "Kernel gallery"): the epilogue's Duplicate (float) or Cast (16-bit) of the
result and the DataCopyPad that writes it out have no V -> MTE3 synchronisation in the original (a RAW race: the copy
may read the block before the vector unit wrote it; the sanitizer reports it), so the port puts
SetFlag/WaitFlag<V_MTE3> between them. The AIV count is the launch's 8 (the tiling's aivNum); the workspace is a
host float array of the size the tiling asks for (its sync region unused: SyncAll needs none here). GM is padded to
32 bytes, as device allocations are.

Devices: DataCopyPad decides: the 950, A3, A2 and 310B (not the 310P and 910); the multi-core reductions also need
the hard SyncAll (not the 310B): huber_loss and huber_loss_sum_half, whose tail sizes run on 8 cores, are offered on
the 950, A3 and A2.

Fidelity: MODELLED (Axpy and MulAddDst are MODELLED off the 950: whether the device fuses the multiply-add is
undocumented, SPEC-2 D39; the rest is BIT-EXACT). Against the float64 formula: the float mean within 1e-5 relative
(float roundings of each element's chain, accumulated per lane and by ReduceSum's tree over positive terms), the
half sum within 1e-3 (the float sum, then one rounding to half: 2**-11), each bfloat16 element within 4e-3 (a few
float roundings, then one to bfloat16: up to 2**-8).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
ACC_LEN = 256
SLOT_BYTES = 32
SLOT_FLOATS = SLOT_BYTES // 4
BANK_PAD_BYTES = 256
SYNC_BYTES_PER_CORE = 64
BLOCK_BYTES = 32
GM_ALIGN_BYTES = 512
SINGLE_CORE_THRESHOLD = 32768
AIV_NUM = 8
REDUCE_NONE, REDUCE_MEAN, REDUCE_SUM = 0, 1, 2
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
SYNC_ALL_DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}


def _align_up(v, a):
    return (v + a - 1) // a * a


def tiling(device, numel, dtype, reduction, delta):
    """CalcTiling: (blockDim, tiling data, workspace bytes)."""
    dtype_bytes, is_reduce = TYPE_SIZE[dtype], reduction != REDUCE_NONE
    per_elem = 2 * BUFFER_NUM * dtype_bytes + 2 * 4 + (4 if is_reduce else BUFFER_NUM * dtype_bytes)
    fixed = (6 if dtype_bytes == 4 else 9) * BLOCK_BYTES + 4 * BANK_PAD_BYTES
    if is_reduce:
        fixed += ACC_LEN * 4 + 2 * BLOCK_BYTES + 2 * 64 * SLOT_BYTES
    tile = (aj.get_device(device).ub_bytes - fixed) // per_elem // ACC_LEN * ACC_LEN
    if numel < SINGLE_CORE_THRESHOLD:
        cores, core_data, front, tail_data = 1, numel, 1, 0
    else:
        per_block = GM_ALIGN_BYTES // dtype_bytes
        blocks = -(-numel // per_block)
        blocks_per_core = -(-blocks // min(AIV_NUM, blocks))
        cores = -(-blocks // blocks_per_core)
        core_data = blocks_per_core * per_block
        front, tail_data = cores - 1, numel - core_data * (cores - 1)
    largest = max(core_data, tail_data)
    if largest and tile > largest:
        tile = largest // ACC_LEN * ACC_LEN or ACC_LEN
    slot_offset, workspace = 0, 0
    if is_reduce and cores > 1:
        slot_offset = cores * SYNC_BYTES_PER_CORE
        workspace = slot_offset + 2 * AIV_NUM * SLOT_BYTES
    data = dict(totalNumel=numel, coreDataNum=core_data, tailCoreDataNum=tail_data, usedCoreNum=cores,
                frontCoreNum=front, tileDataNum=tile, reduction=reduction, delta=np.float32(delta),
                divisor=np.float32(numel if reduction == REDUCE_MEAN else 1.0), slotRegionOffset=slot_offset)
    return cores, data, workspace


def compute_huber_factors(inF, tgt, tmpAbs, tmpMin, delta, n):
    """tmpAbs = |e| - m / 2, tmpMin = m (each write lands where its sources are dead, as the original notes)."""
    aj.Sub(tmpAbs, inF, tgt, n)
    aj.Abs(tmpAbs, tmpAbs, n)
    aj.Mins(tmpMin, tmpAbs, delta, n)
    aj.Axpy(tmpAbs, tmpMin, np.float32(-0.5), n)


class HuberLoss:
    def __init__(self, dtype, reduce):
        self.T, self.REDUCE = dtype, reduce

    def Init(self, inp, target, loss, workspace, tiling):
        self.delta, self.divisor = tiling["delta"], tiling["divisor"]
        self.tileDataNum, self.usedCoreNum = tiling["tileDataNum"], tiling["usedCoreNum"]
        self.blockIdx = aj.GetBlockIdx()
        if self.blockIdx >= tiling["usedCoreNum"]:
            self.coreNumel, self.coreOffset = 0, 0
        elif self.blockIdx < tiling["frontCoreNum"]:
            self.coreNumel = tiling["coreDataNum"]
            self.coreOffset = self.blockIdx * tiling["coreDataNum"]
        else:
            self.coreNumel = tiling["tailCoreDataNum"]
            self.coreOffset = (tiling["frontCoreNum"] * tiling["coreDataNum"]
                               + (self.blockIdx - tiling["frontCoreNum"]) * tiling["tailCoreDataNum"])
        self.inGm, self.targetGm, self.outGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.inGm.SetGlobalBuffer(inp[self.coreOffset:], self.coreNumel)
        self.targetGm.SetGlobalBuffer(target[self.coreOffset:], self.coreNumel)
        if self.REDUCE:
            self.outGm.SetGlobalBuffer(loss, 1)
        else:
            self.outGm.SetGlobalBuffer(loss[self.coreOffset:], self.coreNumel)
        self.InitUbBuffers(workspace, tiling)

    def InitUbBuffers(self, workspace, tiling):
        size = TYPE_SIZE[self.T]
        self.bufStride = _align_up(self.tileDataNum * 4, 32)
        self.slotStride = self.bufStride + BANK_PAD_BYTES
        queueBytes = _align_up(self.tileDataNum * size, 32)
        self.pipe = aj.TPipe()
        self.inQueueInput = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.inQueueTarget = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        (self.wsBuf, self.accBuf, self.resBuf, self.scalarBuf, self.scalarOutBuf, self.slotBuf, self.crossBuf,
         self.bankPadQ, self.bankPadO, self.bankPadA) = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(10))
        self.pipe.InitBuffer(self.inQueueInput, BUFFER_NUM, queueBytes)
        self.pipe.InitBuffer(self.bankPadQ, BANK_PAD_BYTES)
        self.pipe.InitBuffer(self.inQueueTarget, BUFFER_NUM, queueBytes)
        if not self.REDUCE:
            self.pipe.InitBuffer(self.bankPadO, BANK_PAD_BYTES)
            self.pipe.InitBuffer(self.outQueue, BUFFER_NUM, queueBytes)
        self.pipe.InitBuffer(self.wsBuf, self.slotStride + self.bufStride)
        if self.REDUCE:
            self.InitReduceBuffers(workspace, tiling)

    def InitReduceBuffers(self, workspace, tiling):
        self.slotGm = aj.GlobalTensor()
        self.slotGm.SetGlobalBuffer(workspace[tiling["slotRegionOffset"] // 4:], self.usedCoreNum * SLOT_FLOATS)
        crossLen = self.usedCoreNum * SLOT_FLOATS
        self.pipe.InitBuffer(self.bankPadA, BANK_PAD_BYTES)
        self.pipe.InitBuffer(self.accBuf, self.bufStride)
        self.pipe.InitBuffer(self.resBuf, ACC_LEN * 4)
        self.pipe.InitBuffer(self.scalarBuf, 32)
        if self.T != "float":
            self.pipe.InitBuffer(self.scalarOutBuf, 32)
        if self.usedCoreNum > 1:
            self.pipe.InitBuffer(self.slotBuf, SLOT_FLOATS * 4)
            self.pipe.InitBuffer(self.crossBuf, crossLen * 4)

    def Process(self):
        if self.REDUCE:
            self.acc = self.accBuf.Get("float")
            aj.Duplicate(self.acc, np.float32(0.0), self.tileDataNum)
        hasWork = self.coreNumel > 0 and self.tileDataNum > 0
        if not self.REDUCE:
            if not hasWork:
                return
            self.TileLoop()
        else:
            if hasWork:
                self.TileLoop()
            self.Epilogue()

    def TileLoop(self):
        done = 0
        valid = min(self.coreNumel, self.tileDataNum)
        self.CopyIn(done, valid)
        outOff, outValid, haveOut = 0, 0, False
        while done < self.coreNumel:
            nxt = done + valid
            nextValid = 0
            if nxt < self.coreNumel:
                nextValid = min(self.coreNumel - nxt, self.tileDataNum)
                self.CopyIn(nxt, nextValid)              # prefetch: both queue buffers in flight
            self.Compute(valid)
            if not self.REDUCE:
                if haveOut:
                    self.CopyOut(outOff, outValid)
                outOff, outValid, haveOut = done, valid, True
            done, valid = nxt, nextValid
        if not self.REDUCE and haveOut:
            self.CopyOut(outOff, outValid)

    def CopyGmToUb(self, dst, src, valid):
        nbytes = valid * TYPE_SIZE[self.T]
        if nbytes & 31 == 0:
            aj.DataCopy(dst, src, valid)
        else:
            copyParams = aj.DataCopyExtParams(1, nbytes, 0, 0, 0)
            padParams = aj.DataCopyPadExtParams()
            aj.DataCopyPad(dst, src, copyParams, padParams)

    def CopyIn(self, offset, valid):
        inp = self.inQueueInput.AllocTensor(self.T)
        tgt = self.inQueueTarget.AllocTensor(self.T)
        self.CopyGmToUb(inp, self.inGm[offset], valid)
        self.CopyGmToUb(tgt, self.targetGm[offset], valid)
        self.inQueueInput.EnQue(inp)
        self.inQueueTarget.EnQue(tgt)

    def Compute(self, valid):
        T = self.T
        inLocal = self.inQueueInput.DeQue(T)
        tgtLocal = self.inQueueTarget.DeQue(T)
        tmpAbs = self.wsBuf.GetWithOffset("float", self.tileDataNum, 0)
        tmpMin = self.wsBuf.GetWithOffset("float", self.tileDataNum, self.slotStride)
        if T == "float":
            inF, tgtF = inLocal.ReinterpretCast("float"), tgtLocal.ReinterpretCast("float")
        else:
            inF, tgtF = tmpAbs, tmpMin
            aj.Cast(inF, inLocal, aj.RoundMode.CAST_NONE, valid)
            aj.Cast(tgtF, tgtLocal, aj.RoundMode.CAST_NONE, valid)
        compute_huber_factors(inF, tgtF, tmpAbs, tmpMin, self.delta, valid)
        self.inQueueInput.FreeTensor(inLocal)
        self.inQueueTarget.FreeTensor(tgtLocal)
        if self.REDUCE:
            aj.MulAddDst(self.acc, tmpMin, tmpAbs, valid)     # acc += m * (|e| - m / 2)
        else:
            outLocal = self.outQueue.AllocTensor(T)
            dstF = outLocal.ReinterpretCast("float") if T == "float" else tmpMin
            aj.Mul(dstF, tmpMin, tmpAbs, valid)
            if T != "float":
                aj.Cast(outLocal, dstF, aj.RoundMode.CAST_RINT, valid)
            self.outQueue.EnQue(outLocal)

    def CopyOut(self, offset, valid):
        outLocal = self.outQueue.DeQue(self.T)
        nbytes = valid * TYPE_SIZE[self.T]
        if nbytes & 31 == 0:
            aj.DataCopy(self.outGm[offset], outLocal, valid)
        else:
            aj.DataCopyPad(self.outGm[offset], outLocal, aj.DataCopyExtParams(1, nbytes, 0, 0, 0))
        self.outQueue.FreeTensor(outLocal)

    def Epilogue(self):
        work = self.wsBuf.GetWithOffset("float", self.tileDataNum, 0)
        res = self.resBuf.Get("float")
        aj.ReduceSum(res, self.acc, work, self.tileDataNum)
        aj.PipeBarrier(aj.PIPE_ALL)
        partial = res.GetValue(0)
        if self.usedCoreNum > 1:
            if self.blockIdx < self.usedCoreNum:
                slot = self.slotBuf.Get("float")
                aj.Duplicate(slot, np.float32(0.0), SLOT_FLOATS)
                aj.PipeBarrier(aj.PIPE_ALL)
                slot.SetValue(0, partial)
                aj.PipeBarrier(aj.PIPE_ALL)
                aj.DataCopy(self.slotGm[self.blockIdx * SLOT_FLOATS], slot, SLOT_FLOATS)
            aj.SyncAll()
            if self.blockIdx != 0:
                return
            crossLen = self.usedCoreNum * SLOT_FLOATS
            allSlots = self.crossBuf.Get("float")
            aj.DataCopy(allSlots, self.slotGm, crossLen)
            aj.PipeBarrier(aj.PIPE_ALL)
            aj.ReduceSum(res, allSlots, work, crossLen)
            aj.PipeBarrier(aj.PIPE_ALL)
            partial = res.GetValue(0)
        if self.blockIdx != 0:
            return
        total = np.float32(partial) / self.divisor           # the scalar unit's float division
        scalarF = self.scalarBuf.Get("float")
        aj.Duplicate(scalarF, total, 8)
        copyParams = aj.DataCopyExtParams(1, TYPE_SIZE[self.T], 0, 0, 0)
        if self.T == "float":
            wait_vector_to_mte3()                               # deviation: the original has no V -> MTE3 sync
            aj.DataCopyPad(self.outGm, scalarF.ReinterpretCast(self.T), copyParams)
        else:
            scalarT = self.scalarOutBuf.Get(self.T)
            aj.Cast(scalarT, scalarF, aj.RoundMode.CAST_RINT, 8)
            wait_vector_to_mte3()
            aj.DataCopyPad(self.outGm, scalarT, copyParams)


def wait_vector_to_mte3():
    """SetFlag/WaitFlag<V_MTE3> on an event the pipe hands out (the port's addition, module docstring)."""
    event_id = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_MTE3)
    aj.SetFlag(event_id, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(event_id, event=aj.HardEvent.V_MTE3)


def huber_loss(inp, target, loss, workspace, tiling_data, dtype):
    op = HuberLoss(dtype, tiling_data["reduction"] != REDUCE_NONE)
    op.Init(inp, target, loss, workspace, tiling_data)
    op.Process()


_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        return {k: rng.standard_normal(size).astype(np.float32).astype(_NP[dtype]) for k in ("input", "target")}
    return make_inputs


def _run(dtype, reduction, delta):
    def run(device, inputs):
        x = inputs["input"]
        padded = -(-x.size * x.itemsize // 32) * 32 // x.itemsize
        gm = {}
        for key in ("input", "target"):
            gm[key] = np.zeros(padded, x.dtype)
            gm[key][:x.size] = inputs[key]
        loss = np.zeros(padded if reduction == REDUCE_NONE else 32 // x.itemsize, x.dtype)
        block_dim, tiling_data, workspace_bytes = tiling(device, x.size, dtype, reduction, delta)
        workspace = np.zeros(max(workspace_bytes // 4, 8), np.float32)
        aj.launch(huber_loss, block_dim, device, gm["input"], gm["target"], loss, workspace, tiling_data, dtype)
        return {"loss": loss[:x.size] if reduction == REDUCE_NONE else loss[:1]}
    return run


def _expected(reduction, delta):
    def expected(device, inputs):
        e = np.abs(np.asarray(inputs["input"], np.float64) - np.asarray(inputs["target"], np.float64))
        m = np.minimum(e, delta)
        loss = m * (e - 0.5 * m)
        if reduction == REDUCE_NONE:
            return {"loss": loss}
        return {"loss": np.array([loss.sum() / (e.size if reduction == REDUCE_MEAN else 1)])}
    return expected


_SOURCE = "hicann/ops-nn@7c5958be experimental/loss/huber_loss/op_kernel/huber_loss.h"
KERNELS = [
    KernelSpec(f"huber_loss{suffix}", description, _make_inputs(dtype), _run(dtype, reduction, delta),
               _expected(reduction, delta), default_size=size, devices=devices, tolerance=tolerance, source=_SOURCE,
               **({"size_rule": "1 to 80000 elements (the half sum of about 0.6 an element stays below 65504)",
                   "size_ok": lambda n: 0 < n <= 80000} if dtype == "half" else {}))
    for suffix, dtype, reduction, delta, size, devices, tolerance, description in (
        ("", "float", REDUCE_MEAN, 1.0, 40000, SYNC_ALL_DEVICES, 1e-5,
         "HuberLoss mean over floats: prefetching double-buffered tile loop, GetWithOffset slots, Sub/Abs/Mins/Axpy, "
         "MulAddDst into a tile-wide accumulator, ReduceSum, GetValue/SetValue, GM workspace slots after SyncAll"),
        ("_sum_half", "half", REDUCE_SUM, 0.75, 20000, SYNC_ALL_DEVICES, 1e-3,
         "HuberLoss sum over halves (one core, three tiles; 8 cores past 32768 elements), one CAST_RINT at the end"),
        ("_none_bf16", "bfloat16", REDUCE_NONE, 1.0, 20000, DEVICES, 4e-3,
         "HuberLoss without reduction over bfloat16: Cast to float, the chain, Mul, Cast CAST_RINT; the copy-out one "
         "tile behind; DataCopy or DataCopyPad by alignment"))
]
