"""Logdet from the CANN math operators: out = log(det(A)) of each float n x n matrix of a batch by LU decomposition
with partial pivoting (a negative determinant gives NaN, a singular matrix -inf), the pivot found per column by
segmented ReduceMax with its index, the elimination by Axpy over whole rows, ln on the scalar unit by a series.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/logdet/op_kernel/logdet.h
(`NsLogdet::LogdetKernel<D_T, MEM_STRATEGY>`; matrices dealt to the cores round robin, mi = block index + k * block
dim). MEM_STRATEGY 0 (FULL, the matrix resident in the UB): LoadMatrixToUB (one DataCopyPad a row into rows padded
to 8 floats, {false, 0, 0, 0}, MTE2_S), then per column k: GatherColumn (the sub-column uWork[k..n-1][k] to a
contiguous tile by scalar GetValue / SetValue, S_V), Abs, PipeBarrier<PIPE_V>, ArgMaxAbsColumn (per 64-element
segment `ReduceMax<float>(redOut, absCol[seg], redTmp, len, true)`, V_S, the value and the index's bits by GetValue,
a strict `>` keeping the first maximum), the signed pivot by GetValue, the singular test |piv| < 1e-38, SwapRows
(three UB -> UB DataCopy of a whole row through a TBuf, each followed by PipeBarrier<PIPE_V>; then V_S), the sign
and logabs += LogScalar(|piv|) on the scalar unit, EliminateFull (per row below: GetValue of u[j][k], mult = u[j][k] /
piv, `Axpy(row_j, row_k, -mult, rowStride)` over the whole padded row; V_S); WriteResult (-inf, NaN for a negative
sign, else logabs; SetValue into a 32-byte TBuf, S_MTE3, DataCopyPad of 4 bytes to out[mi], MTE3_S).
MEM_STRATEGY 1 (BLOCKED, n past what the UB holds; one core): the matrix copied row by row through the UB into the
GM workspace with rows padded to 8 floats (DataCopyPad in with isPad and rightPadding rowStride - n, MTE2_MTE3,
DataCopyPad out, MTE3_MTE2); per column: MTE3_MTE2, GatherColumnFromGM (one DataCopyPad of m blocks of 4 bytes with
a GM srcStride of (rowStride - 1) * 4 bytes: element i lands at colWide[8 i]; MTE2_S; scalar compaction; S_V), Abs,
the same argmax, the pivot from the gathered column, SwapRowsGM (two rows into the UB, MTE2_MTE3, out crosswise,
MTE3_S), EliminateBlocked (the pivot row in once, MTE2_S; per row below: DataCopyPad in, MTE2_S, GetValue, Axpy,
V_MTE3, DataCopyPad out, MTE3_S)), logdet.cpp (the entry returns without a workspace; REGISTER_TILING_DEFAULT,
GET_TILING_DATA_WITH_STRUCT(LogdetTilingData), a TPipe, the template by MEM_STRATEGY) and logdet_tiling_data.h
(uint32 n, uint64 count, uint32 blockSize, blockNum, float epsSingular: 32 bytes with C alignment), with the host
tiling of experimental/math/logdet/op_host/logdet_tiling.cpp (`LogdetTilingFunc`: residentMax, the largest n with
n * rowBytes + 4 * rowBytes + 96 <= (UB - 8 KiB) * 0.95; FULL up to it, else BLOCKED; min(cores, batch) cores,
BLOCKED one; epsSingular 1e-38; workspace 16 MiB, or the BLOCKED slots if larger).

Deviations:
- The core count is the launch's 8 (GetCoreNumAiv in the original). The entry's `workspace == nullptr` test is the
  host passing None.
- ORIGINAL_RED_TMP: the ReduceMax sharedTmpBuffer is one padded row, rowStride floats: 8 floats for n <= 8. The
  emulator asks 16 floats of a ReduceMax with an index whatever the count (SPEC-2 D54: its formula with at least one
  first-level repeat) and refuses 8 (ParameterError, 'sharedTmpBuffer.GetSize()'), although the devkit's A2
  implementation writes a single repeat's value and index straight into dst and never touches the buffer
  (ReduceImplWithIndex, repeatTimes == 1; every segment here is one repeat), and the page's own formula gives 0 for
  a count under 64. The port sizes the buffer at least 16 floats; `ORIGINAL_RED_TMP = True` keeps the original's
  (refused for n <= 8 on the A2 / A3, whose minimum this is; the same bits above and on the 950).
- ORIGINAL_SYNC: the original orders its copies and vector instructions through the scalar unit (MTE2_S, V_S and
  MTE3_S waits, after which the scalar unit issues the next instruction of any pipe): correct on the device, and so
  under the sanitizer's "device-sync" option, which reports nothing. The default sanitizer follows SPEC-2 10.4,
  where only a wait whose destination is the later access's own pipe orders it, and reports each such pair as a
  race (BLOCKED at n = 210: about 109 000 reports; FULL: a core's second matrix's DataCopyPad over the first one's
  Axpy and swaps). The port adds the pairs the contract asks for: V_MTE2 before a matrix's load (FULL), MTE3_MTE2
  before and MTE2_V after each row's copy-in in EliminateBlocked; `ORIGINAL_SYNC = True` leaves them out.

Devices: the operator's one config is the A2 (ascend910b); the port runs on the A2, the A3 and the 950 (where its
UB keeps matrices up to n = 239 resident and Axpy is a BIT-EXACT fma: the same bits as the expectation).
logdet_blocked's n = 210 is BLOCKED on the A2 and A3 only.

Fidelity: MODELLED (Axpy float -> float is MODELLED on the A2/A3, SPEC-2 0.3 and D39: the emulator's Axpy is one
rounding of the exact scalar * src + dst). The expectation replays the same LU in numpy: the same pivots (first
maximum of |u| by a strict comparison per 64-element segment, then across segments), float32 scalar divisions,
each Axpy lane as a correctly rounded fused multiply-add (float64 product and TwoSum, the float32 rounding of the
exact sum), the swaps, and LogScalar's float32 series; tests/test_port40pa_kernels.py checks it bit for bit and
within 2e-4 of numpy's float64 slogdet (the float32 LU and the series' own error). The gallery states 1e-5 relative:
the hardware's room (an unfused Axpy rounds twice).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

LOGDET_BASIC_BLOCK = 32
LOGDET_SEG = 64
LOGDET_UB_BLOCK_ELEM = 8
BLOCK_SIZE = 32
WS_SYS_SIZE = 16 * 1024 * 1024
UB_RESERVE = 8 * 1024
MEM_STRATEGY_FULL, MEM_STRATEGY_BLOCKED = 0, 1
FULL_RESIDENT_FALLBACK = 256
COL_BLOCK = 64
LOGDET_MAX_N = 4095
UB_MARGIN_RATIO = 0.95
LOGDET_EPS_FLOOR = np.float32(1e-38)
CORE_NUM = 8
ORIGINAL_SYNC = False
RED_TMP_MIN_BYTES = 16 * 4         # the emulator's ReduceMax minimum with an index (SPEC-2 D54)
ORIGINAL_RED_TMP = False
DEVICES = ("atlas-a2", "atlas-a3", "ascend950")
BLOCKED_DEVICES = ("atlas-a2", "atlas-a3")      # the 950's UB holds n = 239 (its logdet_blocked would not block)
F32 = np.float32

LogdetTilingData = np.dtype([("matSizeN", np.uint32), ("matrixNumCount", np.uint64), ("blockSize", np.uint32),
                             ("blockNum", np.uint32), ("epsSingular", np.float32)], align=True)


def _align32(nbytes):
    return (nbytes + BLOCK_SIZE - 1) // BLOCK_SIZE * BLOCK_SIZE


def resolve_resident_max(ub_size):
    """ResolveResidentMax: the largest n whose FULL buffers fit (UB - 8 KiB) * 0.95."""
    if ub_size <= UB_RESERVE:
        return FULL_RESIDENT_FALLBACK
    avail = int(float(ub_size - UB_RESERVE) * UB_MARGIN_RATIO)
    best = 1
    for n in range(1, 4097):
        row_bytes = _align32(n * 4)
        if n * row_bytes + 4 * row_bytes + BLOCK_SIZE + 2 * BLOCK_SIZE <= avail:
            best = n
        else:
            break
    return best


def tiling(device, n, batch):
    """LogdetTilingFunc: (block dim, MEM_STRATEGY, the packed LogdetTilingData, workspace bytes)."""
    if not 0 < n <= LOGDET_MAX_N or batch == 0:
        raise ValueError(f"n = {n}, batch = {batch}: the tiling refuses it")
    ub_size = aj.get_device(device).ub_bytes
    resident_max = resolve_resident_max(ub_size)
    if n <= resident_max:
        mem_strategy, block_size = MEM_STRATEGY_FULL, n
    else:
        mem_strategy, block_size = MEM_STRATEGY_BLOCKED, COL_BLOCK
    need_core_num = min(CORE_NUM, batch)
    if mem_strategy == MEM_STRATEGY_BLOCKED:
        need_core_num = 1
    t = np.zeros(1, LogdetTilingData)
    t["matSizeN"], t["matrixNumCount"], t["blockSize"], t["blockNum"] = n, batch, block_size, 1
    t["epsSingular"] = LOGDET_EPS_FLOOR
    ws_bytes = WS_SYS_SIZE
    if mem_strategy == MEM_STRATEGY_BLOCKED:
        ws_bytes = max(ws_bytes, need_core_num * n * ((n + 7) // 8 * 8) * 4)
    return need_core_num, mem_strategy, t.view(np.uint8).copy(), ws_bytes


def logdet_pos_inf():
    return np.uint32(0x7F800000).view(F32)


def logdet_quiet_nan():
    return np.uint32(0x7FC00000).view(F32)


def log_scalar(x):
    """LogScalar: ln x for x > 0 on the scalar unit, every operation a float32 one: x = f * 2**e with f in [1, 2),
    ln f = 2 atanh((f - 1) / (f + 1)) by its series to t**11."""
    x = F32(x)
    if x <= F32(0):
        return -logdet_pos_inf()
    e, f = 0, x
    while f >= F32(2):
        f = F32(f * F32(0.5))
        e += 1
    while f < F32(1):
        f = F32(f * F32(2))
        e -= 1
    t = F32(F32(f - F32(1)) / F32(f + F32(1)))
    t2 = F32(t * t)
    third, fifth, seventh, ninth, eleventh = (F32(F32(1) / F32(d)) for d in (3, 5, 7, 9, 11))
    inner = F32(ninth + F32(t2 * eleventh))
    inner = F32(seventh + F32(t2 * inner))
    inner = F32(fifth + F32(t2 * inner))
    inner = F32(third + F32(t2 * inner))
    inner = F32(F32(1) + F32(t2 * inner))
    series = F32(t * inner)
    ln2 = F32(0.69314718055994530942)
    return F32(F32(F32(e) * ln2) + F32(F32(2) * series))


class LogdetKernel:
    def __init__(self, MEM_STRATEGY):
        self.MEM_STRATEGY = MEM_STRATEGY

    def Init(self, self_, out, workspace, tiling, pipe):
        self.pipe = pipe
        self.n = int(tiling.matSizeN)
        self.matrixNumCount = int(tiling.matrixNumCount)
        self.epsSingular = F32(tiling.epsSingular)
        self.blockIdx = aj.GetBlockIdx()
        self.blockDim = aj.GetBlockNum()
        self.rowStrideElem = (self.n + 7) // 8 * 8            # rows 32-byte aligned in the UB
        self.matStrideElem = self.n * self.n
        self.wsMatStrideElem = self.n * self.rowStrideElem
        self.selfGm, self.outGm, self.wsGm = aj.GlobalTensor("float"), aj.GlobalTensor("float"), \
            aj.GlobalTensor("float")
        self.selfGm.SetGlobalBuffer(self_)
        self.outGm.SetGlobalBuffer(out)
        rs = self.rowStrideElem * 4
        if self.MEM_STRATEGY == 0:
            self.uWorkBuf, self.colBuf, self.absBuf, self.tmpRowBuf, self.redOutBuf, self.redTmpBuf, \
                self.outScalarBuf = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(7))
            self.pipe.InitBuffer(self.uWorkBuf, self.n * rs)
            self.pipe.InitBuffer(self.colBuf, rs)
            self.pipe.InitBuffer(self.absBuf, rs)
            self.pipe.InitBuffer(self.tmpRowBuf, rs)
            self.pipe.InitBuffer(self.redOutBuf, LOGDET_BASIC_BLOCK)
            self.pipe.InitBuffer(self.redTmpBuf, self._red_tmp_bytes(rs))
            self.pipe.InitBuffer(self.outScalarBuf, LOGDET_BASIC_BLOCK)
        else:
            self.wsGm.SetGlobalBuffer(workspace)
            self.colWideBuf, self.colBuf, self.absBuf, self.rowKBuf, self.rowBlockBuf, self.swapBuf, self.cpyBuf, \
                self.redOutBuf, self.redTmpBuf, self.outScalarBuf = (aj.TBuf(aj.TPosition.VECCALC)
                                                                      for _ in range(10))
            self.pipe.InitBuffer(self.colWideBuf, rs * LOGDET_UB_BLOCK_ELEM)
            self.pipe.InitBuffer(self.colBuf, rs)
            self.pipe.InitBuffer(self.absBuf, rs)
            self.pipe.InitBuffer(self.rowKBuf, rs)
            self.pipe.InitBuffer(self.rowBlockBuf, rs)
            self.pipe.InitBuffer(self.swapBuf, rs)
            self.pipe.InitBuffer(self.cpyBuf, rs)
            self.pipe.InitBuffer(self.redOutBuf, LOGDET_BASIC_BLOCK)
            self.pipe.InitBuffer(self.redTmpBuf, self._red_tmp_bytes(rs))
            self.pipe.InitBuffer(self.outScalarBuf, LOGDET_BASIC_BLOCK)

    @staticmethod
    def _red_tmp_bytes(rs):
        """The ReduceMax sharedTmpBuffer: one padded row (the original), at least 16 floats (the deviation)."""
        return rs if ORIGINAL_RED_TMP else max(rs, RED_TMP_MIN_BYTES)

    def Process(self):
        mi = self.blockIdx
        while mi < self.matrixNumCount:
            if self.MEM_STRATEGY == 0:
                self.ProcessOneMatrix(mi)
            else:
                self.ProcessOneMatrixBlocked(mi)
            mi += self.blockDim

    @staticmethod
    def _sync(event):
        e = aj.GetTPipePtr().FetchEventID(event)
        aj.SetFlag(e, event=event)
        aj.WaitFlag(e, event=event)

    def _contract(self, event):
        """A pair the port adds for SPEC-2 10.4's ordering rule (module docstring, ORIGINAL_SYNC)."""
        if not ORIGINAL_SYNC:
            self._sync(event)

    def GatherColumn(self, uWork, col, k, m):
        """The sub-column u[k..n-1][k] to a contiguous tile on the scalar unit (no 32-byte alignment there)."""
        for i in range(m):
            col.SetValue(i, uWork.GetValue((k + i) * self.rowStrideElem + k))
        self._sync(aj.HardEvent.S_V)

    def ArgMaxAbsColumn(self, absCol, m):
        """Per segment of at most 64 (one ReduceMax repeat: a segment-local index), merged on the scalar unit."""
        redOut = self.redOutBuf.Get("float")
        redTmp = self.redTmpBuf.Get("float")
        bestVal, bestIdx = F32(-1.0), 0
        for segStart in range(0, m, LOGDET_SEG):
            segLen = min(m - segStart, LOGDET_SEG)
            aj.ReduceMax(redOut, absCol[segStart], redTmp, segLen, True)
            self._sync(aj.HardEvent.V_S)
            segVal = F32(redOut.GetValue(0))
            idxAsFloat = F32(redOut.GetValue(1))
            segLocal = int(idxAsFloat.view(np.uint32))          # the index's bits (ReduceMax.md's own reading)
            if segVal > bestVal:                                # strict: the first maximum
                bestVal, bestIdx = segVal, segStart + segLocal
        return bestIdx

    def SwapRows(self, uWork, tmpRow, r1, r2):
        rs = self.rowStrideElem
        aj.DataCopy(tmpRow, uWork[r1 * rs], rs)
        aj.PipeBarrier(aj.PIPE_V)
        aj.DataCopy(uWork[r1 * rs], uWork[r2 * rs], rs)
        aj.PipeBarrier(aj.PIPE_V)
        aj.DataCopy(uWork[r2 * rs], tmpRow, rs)
        aj.PipeBarrier(aj.PIPE_V)

    def CheckSingular(self, piv):
        pivAbs = piv if piv >= F32(0) else F32(-piv)
        return pivAbs < self.epsSingular

    def WriteResult(self, mi, singular, swapParity, signProd, logabs):
        outScalar = self.outScalarBuf.Get("float")
        if singular:
            finalLogdet = F32(-logdet_pos_inf())
        else:
            finalSign = F32(-signProd) if swapParity != 0 else signProd
            finalLogdet = logdet_quiet_nan() if finalSign < F32(0) else logabs
        outScalar.SetValue(0, finalLogdet)
        self._sync(aj.HardEvent.S_MTE3)
        aj.DataCopyPad(self.outGm[mi], outScalar, aj.DataCopyExtParams(1, 4, 0, 0, 0))
        self._sync(aj.HardEvent.MTE3_S)

    def LoadMatrixToUB(self, mi, uWork):
        base = mi * self.matStrideElem
        for r in range(self.n):
            p = aj.DataCopyExtParams(1, self.n * 4, 0, 0, 0)
            padParams = aj.DataCopyPadExtParams(False, 0, 0, F32(0))
            aj.DataCopyPad(uWork[r * self.rowStrideElem], self.selfGm[base + r * self.n], p, padParams)
        self._sync(aj.HardEvent.MTE2_S)

    def EliminateFull(self, uWork, k, piv):
        if piv == F32(0):
            return
        rs = self.rowStrideElem
        rowK = uWork[k * rs]
        for j in range(k + 1, self.n):
            ajk = F32(uWork.GetValue(j * rs + k))
            mult = F32(ajk / piv)
            rowJ = uWork[j * rs]
            aj.Axpy(rowJ, rowK, F32(-mult), rs)           # the whole row: the dead columns < k change, harmlessly
        self._sync(aj.HardEvent.V_S)

    def ProcessOneMatrix(self, mi):
        uWork = self.uWorkBuf.Get("float")
        col = self.colBuf.Get("float")
        absCol = self.absBuf.Get("float")
        tmpRow = self.tmpRowBuf.Get("float")
        self._contract(aj.HardEvent.V_MTE2)           # deviation: the last matrix's vector writes of uWork
        self.LoadMatrixToUB(mi, uWork)
        signProd, logabs, swapParity, singular = F32(1), F32(0), 0, False
        for k in range(self.n):
            m = self.n - k
            self.GatherColumn(uWork, col, k, m)
            aj.Abs(absCol, col, m)
            aj.PipeBarrier(aj.PIPE_V)
            pidx = k + self.ArgMaxAbsColumn(absCol, m)
            piv = F32(uWork.GetValue(pidx * self.rowStrideElem + k))
            pivAbs = piv if piv >= F32(0) else F32(-piv)
            if self.CheckSingular(piv):
                singular = True
                break
            if pidx != k:
                self.SwapRows(uWork, tmpRow, k, pidx)
                swapParity ^= 1
                self._sync(aj.HardEvent.V_S)
            if piv < F32(0):
                signProd = F32(-signProd)
            logabs = F32(logabs + log_scalar(pivAbs))
            if k + 1 < self.n:
                self.EliminateFull(uWork, k, piv)
        self.WriteResult(mi, singular, swapParity, signProd, logabs)

    # the BLOCKED path: U in the GM workspace, rows padded to 8 floats; the UB holds rows and columns only

    def CopySelfToWorkspace(self, mi, wsBase):
        cpy = self.cpyBuf.Get("float")
        selfBase = mi * self.matStrideElem
        rs = self.rowStrideElem
        inP = aj.DataCopyExtParams(1, self.n * 4, 0, 0, 0)
        inPad = aj.DataCopyPadExtParams(True, 0, rs - self.n, F32(0))
        outP = aj.DataCopyExtParams(1, rs * 4, 0, 0, 0)
        for r in range(self.n):
            aj.DataCopyPad(cpy, self.selfGm[selfBase + r * self.n], inP, inPad)
            self._sync(aj.HardEvent.MTE2_MTE3)
            aj.DataCopyPad(self.wsGm[wsBase + r * rs], cpy, outP)
            self._sync(aj.HardEvent.MTE3_MTE2)
        self._sync(aj.HardEvent.MTE3_MTE2)

    def GatherColumnFromGM(self, colWide, col, wsBase, k, m):
        """One DataCopyPad of m 4-byte blocks a padded row apart: element i lands at colWide[8 i]."""
        startElem = wsBase + k * self.rowStrideElem + k
        p = aj.DataCopyExtParams(m, 4, (self.rowStrideElem - 1) * 4, 0, 0)
        pad = aj.DataCopyPadExtParams(False, 0, 0, F32(0))
        aj.DataCopyPad(colWide, self.wsGm[startElem], p, pad)
        self._sync(aj.HardEvent.MTE2_S)
        for i in range(m):
            col.SetValue(i, colWide.GetValue(i * LOGDET_UB_BLOCK_ELEM))
        self._sync(aj.HardEvent.S_V)

    def SwapRowsGM(self, wsBase, r1, r2):
        sbuf = self.swapBuf.Get("float")
        cpy = self.cpyBuf.Get("float")
        rs = self.rowStrideElem
        b1, b2 = wsBase + r1 * rs, wsBase + r2 * rs
        p = aj.DataCopyExtParams(1, rs * 4, 0, 0, 0)
        pad = aj.DataCopyPadExtParams(False, 0, 0, F32(0))
        aj.DataCopyPad(sbuf, self.wsGm[b1], p, pad)
        aj.DataCopyPad(cpy, self.wsGm[b2], p, pad)
        self._sync(aj.HardEvent.MTE2_MTE3)
        aj.DataCopyPad(self.wsGm[b1], cpy, p)
        aj.DataCopyPad(self.wsGm[b2], sbuf, p)
        self._sync(aj.HardEvent.MTE3_S)

    def EliminateBlocked(self, wsBase, k, piv, rowK, rowBlock, rowParams, rowPad):
        if piv == F32(0):
            return
        rs = self.rowStrideElem
        aj.DataCopyPad(rowK, self.wsGm[wsBase + k * rs], rowParams, rowPad)
        self._sync(aj.HardEvent.MTE2_S)
        for j in range(k + 1, self.n):
            rowBase = wsBase + j * rs
            self._contract(aj.HardEvent.MTE3_MTE2)     # deviation: the last row's Axpy and copy-out of rowBlock
            aj.DataCopyPad(rowBlock, self.wsGm[rowBase], rowParams, rowPad)
            self._sync(aj.HardEvent.MTE2_S)
            self._contract(aj.HardEvent.MTE2_V)        # deviation: the Axpy reads rowK and rowBlock's copies
            ajk = F32(rowBlock.GetValue(k))
            mult = F32(ajk / piv)
            aj.Axpy(rowBlock, rowK, F32(-mult), rs)
            self._sync(aj.HardEvent.V_MTE3)
            aj.DataCopyPad(self.wsGm[rowBase], rowBlock, rowParams)
            self._sync(aj.HardEvent.MTE3_S)

    def ProcessOneMatrixBlocked(self, mi):
        wsBase = self.blockIdx * self.wsMatStrideElem
        self.CopySelfToWorkspace(mi, wsBase)
        colWide = self.colWideBuf.Get("float")
        col = self.colBuf.Get("float")
        absCol = self.absBuf.Get("float")
        rowK = self.rowKBuf.Get("float")
        rowBlock = self.rowBlockBuf.Get("float")
        signProd, logabs, swapParity, singular = F32(1), F32(0), 0, False
        rowParams = aj.DataCopyExtParams(1, self.rowStrideElem * 4, 0, 0, 0)
        rowPad = aj.DataCopyPadExtParams(False, 0, 0, F32(0))
        for k in range(self.n):
            m = self.n - k
            self._sync(aj.HardEvent.MTE3_MTE2)
            self.GatherColumnFromGM(colWide, col, wsBase, k, m)
            aj.Abs(absCol, col, m)
            aj.PipeBarrier(aj.PIPE_V)
            pivLocal = self.ArgMaxAbsColumn(absCol, m)
            pidx = k + pivLocal
            piv = F32(col.GetValue(pivLocal))
            pivAbs = piv if piv >= F32(0) else F32(-piv)
            if self.CheckSingular(piv):
                singular = True
                break
            if pidx != k:
                self.SwapRowsGM(wsBase, k, pidx)
                swapParity ^= 1
                self._sync(aj.HardEvent.MTE3_MTE2)
            if piv < F32(0):
                signProd = F32(-signProd)
            logabs = F32(logabs + log_scalar(pivAbs))
            if k + 1 < self.n:
                self.EliminateBlocked(wsBase, k, piv, rowK, rowBlock, rowParams, rowPad)
        self.WriteResult(mi, singular, swapParity, signProd, logabs)


aj.REGISTER_TILING_DEFAULT(LogdetTilingData)


def logdet(self_, out, workspace, tiling_bytes, MEM_STRATEGY):
    """The kernel entry; MEM_STRATEGY is the template argument the tiling selects."""
    if workspace is None:
        return
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(LogdetTilingData, tiling_bytes)
    pipe = aj.TPipe()
    op = LogdetKernel(MEM_STRATEGY)
    op.Init(self_, out, workspace, tilingData, pipe)
    op.Process()


def run_logdet(device, a):
    """Launch on a batch of square float matrices (..., n, n): (the float logdet per matrix, MEM_STRATEGY)."""
    a = np.ascontiguousarray(a, np.float32)
    n = a.shape[-1]
    batch = a.size // (n * n)
    block_dim, mem_strategy, tiling_bytes, ws_bytes = tiling(device, n, batch)
    gm_self = np.zeros(-(-a.size // 8) * 8, np.float32)                 # allocations whole 32-byte blocks
    gm_self[:a.size] = a.reshape(-1)
    out = np.full(-(-batch // 8) * 8, 7.0, np.float32)
    workspace = np.zeros(ws_bytes // 4, np.float32)
    aj.launch(logdet, block_dim, device, gm_self, out, workspace, tiling_bytes, mem_strategy)
    return out[:batch].reshape(a.shape[:-2]), mem_strategy


# the expectation, numpy alone

def fma32(a, b, c):
    """float32 a * b + c rounded once (arrays): the product is exact in float64; TwoSum gives the float64 sum s and
    its exact error; s's float32 rounding is the exact sum's unless s is a float32 midpoint, then err decides."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    with np.errstate(over="ignore", invalid="ignore"):
        p = a * b
        s = p + c
        bb = s - p
        err = (p - (s - bb)) + (c - bb)
        r = s.astype(np.float32)
        rf = r.astype(np.float64)
        up = np.nextafter(r, np.float32(np.inf)).astype(np.float64)
        down = np.nextafter(r, np.float32(-np.inf)).astype(np.float64)
        other = np.where(rf < s, up, down)
        mid = np.isfinite(s) & (s != rf) & (np.abs(s - rf) == np.abs(other - s)) & (err != 0)
        fix = np.where((err > 0) == (other > rf), other, rf)
    return np.where(mid, fix, rf).astype(np.float32)


def _argmax_first(v):
    """ArgMaxAbsColumn: per 64-element segment the first maximum (ReduceMax's ties to the smallest index), merged
    across segments by a strict `>` from -1."""
    best_val, best = F32(-1), 0
    for seg in range(0, v.size, LOGDET_SEG):
        part = v[seg:seg + LOGDET_SEG]
        i = int(np.argmax(part))
        if part[i] > best_val:
            best_val, best = part[i], seg + i
    return best


def logdet_reference(a):
    """The port's LU on one float32 matrix, replayed in numpy."""
    n = a.shape[0]
    u = np.array(a, np.float32)
    sign, logabs, parity = F32(1), F32(0), 0
    for k in range(n):
        p = k + _argmax_first(np.abs(u[k:, k]))
        piv = u[p, k]
        if abs(piv) < LOGDET_EPS_FLOOR:
            return F32(-np.inf)
        if p != k:
            u[[k, p]] = u[[p, k]]
            parity ^= 1
        if piv < 0:
            sign = F32(-sign)
        logabs = F32(logabs + log_scalar(abs(piv)))
        for j in range(k + 1, n):
            mult = F32(u[j, k] / piv)
            u[j] = fma32(-mult, u[k], u[j])
    final_sign = F32(-sign) if parity else sign
    return logdet_quiet_nan() if final_sign < 0 else logabs


def make_batch(n, batch, seed):
    """Well-conditioned matrices (n I + N(0, 1)): positive determinants, a negative one every 5th (one row's sign
    flipped: NaN), a singular one every 7th (a zero column: -inf); the first row of every 3rd scaled small so the
    first pivot search moves a row."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((batch, n, n)).astype(np.float32) + np.float32(n) * np.eye(n, dtype=np.float32)
    a[::3, 0, :] *= np.float32(1e-3)
    if n > 1:
        a[1::5, -1, :] *= np.float32(-1)
        a[3::7, :, n // 2] = 0
    return a


def _make_inputs(n):
    def make_inputs(size, seed):
        return {"x": make_batch(n, size // (n * n), seed)}
    return make_inputs


def _run(device, inputs):
    return {"y": run_logdet(device, inputs["x"])[0].reshape(-1)}


def _expected(device, inputs):
    x = inputs["x"]
    n = x.shape[-1]
    return {"y": np.array([logdet_reference(m) for m in x.reshape(-1, n, n)], np.float32)}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/logdet/op_kernel/logdet.h"
BLOCKED_N = 210
KERNELS = [
    KernelSpec("logdet", "Logdet of 16 x 16 float matrices (FULL: resident in the UB), batch over 8 cores: scalar "
               "column gather, Abs, segmented ReduceMax with index, UB -> UB row swaps, Axpy elimination, ln on the "
               "scalar unit, DataCopyPad of one float per matrix", _make_inputs(16), _run, _expected,
               default_size=40 * 256, devices=DEVICES, size_rule="whole 16 x 16 matrices",
               size_ok=lambda n: n > 0 and n % 256 == 0, tolerance=1e-5, source=_SOURCE),
    KernelSpec("logdet_blocked", f"Logdet of {BLOCKED_N} x {BLOCKED_N} float matrices (BLOCKED: past the UB's "
               "208, U in the GM workspace, one core): strided DataCopyPad column gathers from GM, GM row swaps "
               "through the UB, per-row DataCopyPad in, Axpy, DataCopyPad out", _make_inputs(BLOCKED_N), _run,
               _expected, default_size=BLOCKED_N * BLOCKED_N,
               size_rule=f"whole {BLOCKED_N} x {BLOCKED_N} matrices",
               size_ok=lambda n: n > 0 and n % (BLOCKED_N * BLOCKED_N) == 0, devices=BLOCKED_DEVICES,
               tolerance=1e-5, source=_SOURCE),
]
