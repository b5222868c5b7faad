"""Pdist from the CANN math operators: the p-norm distance of every pair of rows i < j of an [N, M] matrix (float or
half), y[k] = (sum_m |x[i, m] - x[j, m]|^p)^(1/p) in the row-major order of the pairs, with the special norms p = 0
(the count of differing columns), p = 1, p = 2 and p = inf (the largest difference). Pairs are dealt to the cores in
blocks of 8; each pair's rows are copied in chunk by chunk and reduced with ReduceSum (or ReduceMax for inf), the 8
results of a block are taken to the power 1/p together and copied out by one DataCopyPad.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/pdist/op_kernel/pdist.h
(`NsPdist::Pdist<T>`: depth-1 VECIN queues for the two rows' chunks (in float), a depth-1 VECOUT queue of the
block's 8 float results, a VECCALC work TBuf (the reductions' shared tmp buffer and an 8-float tmp after it), a
VECCALC compare-bits TBuf and, for half, a depth-1 VECIN queue for the half chunk. GetIJFromIndex: the pair's rows
from its index by an integer Newton square root (16 iterations) and a one-step correction. Process: numBlockEachCore
blocks of 8 a core, then one more block on the first lastNumsBlocks cores, then the partial block on core
lastNumsBlocks. ProcessBlock: Duplicate 0 into the 8 results; per pair and chunk of at most ubTensorEachLoop
columns LoadDiff (DataCopyPad of each row's chunk with DataCopyParams set field by field and padding {false, 0, 0,
0}, through the half queue and a Cast CAST_NONE of the chunk rounded up to 8 for half; EnQue / DeQue; Sub) and
ComputeChunkDistance (p = 0: CompareScalar NE 0 over the chunk rounded up to 64, Duplicate 1.0, Select of 1 or
0.0f (VSEL_TENSOR_SCALAR_MODE), ReduceSum; p = 1, 2, other: Abs, then nothing, Mul, or Ln / Muls(p) / Exp, and
ReduceSum; inf: Abs, ReduceMax without index), the chunk's value read by GetValue(0) and accumulated (a maximum for
inf) on the scalar unit, the pair's result set by SetValue; ApplyInvP (p = 1, 2, other: the high-dim
CompareScalar GT 0 of the 8 results (mask 8, repeat 1, {1, 1, 8, 8}), Select of the result or 1.0f, nothing / Sqrt
/ Ln, Muls(1 / p), Exp, Select of that or 0.0f); WriteOutput (EnQue / DeQue, for half a Cast CAST_RINT into the work
TBuf viewed as half, DataCopyPad of the block's elements)) and pdist.cpp (REGISTER_TILING_DEFAULT(PdistTilingData),
GET_TILING_DATA_WITH_STRUCT) and pdist_tiling_data.h, with the host tiling of
experimental/math/pdist/op_host/pdist_tiling.cpp (`PdistTilingFunc`: the chunk length ubTensorEachLoop from the UB
left after the reductions' tmp buffer and two (half: and one half) 8-element tensors, divided by 8 bytes a column
(half: 10), in multiples of 8; cores ceil(pairs / 8) up to the core count; the tiling key 0 for p = 0, 2 for inf,
1 otherwise).

Deviations (tests/test_port39m_kernels.py runs the original's sequences where they differ and shows what the
emulator says):
- UB budget. The host tiling leaves the compare-bits TBuf (ubTensorEachLoop / 8 bytes rounded up to 32) out of its
  sum, so the original's buffers overrun the UB by about that much (3 KiB on the A2) whatever the input: InitBuffer
  refuses (OutOfBoundsError). The port's tiling counts it and makes the chunk whole 64-element groups (so the p = 0
  compare over the chunk rounded up to 64 stays inside the tile): 19072 halves a chunk on the A2 against the
  original's 19344 (float chunks are capped lower still, below); `ORIGINAL_UB_BUDGET = True` uses the original's
  budget (24184 floats, 19344 halves on the A2).
- Chunk length. LoadDiff copies a chunk with one `DataCopyParams.blockLen = length * sizeof(T)`, a uint16_t, but
  the tiling's chunk is about 24 K floats on the A2: a row longer than 16383 floats (32767 halves) wraps the byte
  count on the device (a partial chunk copied, the rest of the tile stale); the emulator refuses the value
  (ParameterError, "DataCopyParams.blockLen ... [0, 65535]"). The port's tiling caps the chunk at 65535 bytes of T
  in whole 64-element groups (16320 floats; the half chunk, 19072 on the A2, is below its 32704).
- Reductions' tmp size. The host sizes the work buffer with the advanced API's GetReduceSumMaxMinTmpSize /
  GetReduceMaxMaxMinTmpSize (pattern R), not offered here (host-side advanced-API queries), for the basic ReduceSum
  and ReduceMax the kernel calls; the port asks the basic APIs' own minimums (aj.GetReduceSumTmpSize,
  aj.GetReduceMaxMinTmpSize, without index) for a chunk, in 32-byte blocks.
- Scalar-vector ordering. The original reads the chunk's reduced value with `tempLocal.GetValue(0)` straight after
  the vector unit's ReduceSum / ReduceMax, writes the pair's result with `outLocal.SetValue` after the vector
  Duplicate of the same tensor, and the ApplyInvP CompareScalar reads those scalar writes, all with no flag between
  the vector and scalar units; for half, the Cast into the work TBuf and the DataCopyPad out of it have no V_MTE3
  flag between them (the queue hand-off came before the Cast), and the next block's vector writes of the work TBuf
  (its ReduceSum's tmp, its Cast) no MTE3_V flag after that DataCopyPad. The sanitizer reports each as a race (on
  the device the scalar read can see the value before the reduction wrote it). The port adds SetFlag/WaitFlag V_S
  before each GetValue, S_V before ApplyInvP, V_MTE3 before the half DataCopyPad and MTE3_V after it;
  `ORIGINAL_SYNC = True` leaves them out.
- Uninitialised lanes. For p = 0 the CompareScalar and Select over the chunk rounded up to 64 read the float tile's
  lanes past the chunk (at a buffer's first use nothing wrote them; their results are never reduced): the sanitizer
  reports the Select's reads of them and of their bits. The port zeroes those lanes of the last 64-lane repeat
  first (a Duplicate with a bit mask: the chunk's end need not be 32-byte aligned); `ORIGINAL_UNINIT_READS = True`
  runs the original's reads. (The half
  Cast of the chunk rounded up to 8 reads the DataCopyPad's dummy lanes of the chunk's last 32-byte block, which the
  emulator fills with the block's first element, docs/decisions.md "DataCopyPad fill order": defined, no report.)
- The results tensor. ApplyInvP's high-dim `CompareScalar(cmp, outLocal, 0.0f, GT, 8, 1, {1, 1, 8, 8})` on the
  A2 and A3 computes every lane of its repeat whatever the mask (SPEC-2 D44: the mask is ignored there), so it reads
  64 floats of an 8-float tensor: 224 bytes past it (the work TBuf's first bytes on the device; only the first 8
  bits are selected after). The emulator refuses the read past the tensor (OutOfBoundsError, "make the core with
  bounds="ub""). The port sizes the VECOUT queue to 64 floats and Duplicates zeros over all of them (the 8 results
  are the same); `ORIGINAL_OUT_SIZE = True` runs the original's 8 (the 950, whose mask is effective, runs it).
- The core count is the launch's 8 (GetCoreNumAiv would give the device's).

Kept as in the original: GetIJFromIndex's integer square root takes 16 Newton steps from y = disc, too few for
disc above about 2**26: from 6455 rows (the tiling accepts 65535) the first pairs map to rows far past the input (a
GM read out of range). The gallery's shapes are far below; a test pins it.

Devices: the operator's configs are the A2 and A3 (ascend910b, ascend910_93); the port runs there and on the 950
(Ln / Exp / Sqrt there run the INTRINSIC algorithm, DAZ/FTZ, SPEC-2 D38).

Fidelity: p = 0, 1 and inf BIT-EXACT (Sub, Abs, CompareScalar, Duplicate, Select, ReduceSum, ReduceMax, Cast are
BIT-EXACT, SPEC-2 0.3): checked bit for bit against numpy on integer-valued inputs, whose sums are exact in every
order. p = 2 and general p MODELLED (Sqrt, Ln and Exp are MODELLED, SPEC-2 0.3): checked against the float64
formula within 2e-6 (p = 2, float) and 2e-3 (p = 3 over halves: the half output's rounding, 2**-11, and the Ln / Exp
round trips per element and per result).
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

PDIST_DATA_EACH_BLOCK = 8
PDIST_SUM_TENSOR_SIZE = 8
PDIST_MAX_SUPPORTED_ROWS = 65535
CORE_NUM = 8
ORIGINAL_UB_BUDGET = False
ORIGINAL_SYNC = False
ORIGINAL_UNINIT_READS = False
ORIGINAL_OUT_SIZE = False
OUT_LANES = 64                       # one repeat of floats
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
TYPE_SIZE = {"float": 4, "half": 2}
_NP = {"float": np.float32, "half": np.float16}
U32 = 0xFFFFFFFF
MAX_BLOCK_LEN = 65535                # DataCopyParams.blockLen is a uint16_t (bytes)


class PdistTilingData(ctypes.Structure):
    _fields_ = [("rows", ctypes.c_uint32), ("cols", ctypes.c_uint32), ("pValue", ctypes.c_float),
                ("computeNum", ctypes.c_uint64), ("ubTensorEachLoop", ctypes.c_uint32),
                ("coreNumVar", ctypes.c_uint32), ("tilingKey", ctypes.c_uint32), ("reduceBufSize", ctypes.c_uint32),
                ("numBlockEachCore", ctypes.c_uint64), ("lastNumsBlocks", ctypes.c_uint64),
                ("lastNumsNoneFullBlock", ctypes.c_uint64)]


def _reduce_buf_size(device, count):
    """ComputeReduceBufSize: bytes of the larger of the two reductions' tmp buffers for a chunk, 32-byte rounded
    (deviation: the basic APIs' minimums; module docstring)."""
    need = max(aj.GetReduceSumTmpSize(device, "float", count=count),
               aj.GetReduceMaxMinTmpSize(device, "float", count=count, cal_index=False)) * 4
    return (need + 31) // 32 * 32


def tiling(device, rows, cols, dtype, p):
    """PdistTilingFunc: (block dim, the packed PdistTilingData, workspace bytes)."""
    if rows < 2 or cols < 1 or rows > PDIST_MAX_SUPPORTED_ROWS:
        raise aj.ParameterError("Pdist tiling", "shape", (rows, cols), legal="rows 2..65535, cols >= 1")
    ub_size = aj.get_device(device).ub_bytes
    is_fp16 = dtype == "half"
    # ComputeUbBudget
    loop = ub_size // (2 * 4) // PDIST_DATA_EACH_BLOCK * PDIST_DATA_EACH_BLOCK
    reduce_buf = _reduce_buf_size(device, loop)
    reserved = reduce_buf + 2 * PDIST_SUM_TENSOR_SIZE * 4 + (PDIST_SUM_TENSOR_SIZE * 2 if is_fp16 else 0)
    per_pair = 2 * 4 + (2 if is_fp16 else 0)
    if ORIGINAL_UB_BUDGET:
        loop = (ub_size - reserved) // per_pair // PDIST_DATA_EACH_BLOCK * PDIST_DATA_EACH_BLOCK
    else:
        # deviation (module docstring): the compare-bits TBuf counted (1/8 byte a column and a 32-byte rounding),
        # the chunk a multiple of 64 columns
        loop = (ub_size - reserved - 64) * 8 // (8 * per_pair + 1) // 64 * 64
        # deviation (module docstring): a chunk's bytes fit DataCopyParams' uint16 blockLen
        loop = min(loop, MAX_BLOCK_LEN // TYPE_SIZE[dtype] // 64 * 64)
    reduce_buf = _reduce_buf_size(device, loop)
    compute_num = rows * (rows - 1) // 2
    used = min(CORE_NUM, (compute_num + 7) // 8) or 1
    num_block_each_core = compute_num // used // 8
    last_nums = compute_num % (8 * used)
    key = 0 if p == 0 else 2 if np.isinf(p) else 1
    t = PdistTilingData(rows=rows, cols=cols, pValue=p, computeNum=compute_num, ubTensorEachLoop=loop,
                        coreNumVar=used, tilingKey=key, reduceBufSize=reduce_buf,
                        numBlockEachCore=num_block_each_core, lastNumsBlocks=last_nums // 8,
                        lastNumsNoneFullBlock=last_nums % 8)
    return used, np.frombuffer(bytes(t), np.uint8).copy(), 4


class Pdist:
    def __init__(self, T):
        self.T = T

    def Init(self, x, y, workspace, tilingData):
        t = tilingData
        self.rows_, self.cols_, self.pValue_ = int(t.rows), int(t.cols), np.float32(t.pValue)
        self.computeNum_, self.ubTensorEachLoop_ = int(t.computeNum), int(t.ubTensorEachLoop)
        self.coreNumVar_, self.tilingKey_, self.reduceBufSize_ = int(t.coreNumVar), int(t.tilingKey), \
            int(t.reduceBufSize)
        self.numBlockEachCore_, self.lastNumsBlocks_ = int(t.numBlockEachCore), int(t.lastNumsBlocks)
        self.lastNumsNoneFullBlock_ = int(t.lastNumsNoneFullBlock)
        self.inputGM, self.outputGM = aj.GlobalTensor(self.T), aj.GlobalTensor(self.T)
        self.inputGM.SetGlobalBuffer(x, self.rows_ * self.cols_)
        self.outputGM.SetGlobalBuffer(y, self.computeNum_)
        self.pipe = aj.TPipe()
        self.inQueueSrc1 = aj.TQue(aj.QuePosition.VECIN, 1)
        self.inQueueSrc2 = aj.TQue(aj.QuePosition.VECIN, 1)
        self.outQueue = aj.TQue(aj.QuePosition.VECOUT, 1)
        self.workBuf = aj.TBuf(aj.QuePosition.VECCALC)
        self.cmpBuf = aj.TBuf(aj.QuePosition.VECCALC)
        self.fp16Queue = aj.TQue(aj.QuePosition.VECIN, 1)
        self.pipe.InitBuffer(self.inQueueSrc1, 1, self.ubTensorEachLoop_ * 4)
        self.pipe.InitBuffer(self.inQueueSrc2, 1, self.ubTensorEachLoop_ * 4)
        # deviation (module docstring): one repeat of floats, which the A2/A3 high-dim CompareScalar reads
        self.pipe.InitBuffer(self.outQueue, 1, (8 if ORIGINAL_OUT_SIZE else OUT_LANES) * 4)
        self.pipe.InitBuffer(self.workBuf, self.reduceBufSize_ + PDIST_SUM_TENSOR_SIZE * 4)
        cmpBufSize = (self.ubTensorEachLoop_ + 63) // 64 * 64 // 8
        cmpBufSize = (cmpBufSize + 31) // 32 * 32
        self.pipe.InitBuffer(self.cmpBuf, cmpBufSize)
        if self.T == "half":
            self.pipe.InitBuffer(self.fp16Queue, 1, self.ubTensorEachLoop_ * 2)

    def GetIJFromIndex(self, idx):
        """The pair's rows (i, j) from its index, in the original's uint32 arithmetic."""
        n = self.rows_
        total = (n * (n - 1) // 2) & U32
        revIdx = (total - 1 - idx) & U32
        disc = (1 + 8 * revIdx) & U32
        y = disc
        for _ in range(16):
            y = (y + disc // y) // 2
        if (y * y) & U32 > disc:
            y -= 1
        i = (n - 2 - (y - 1) // 2) & U32
        cumI = (i * (2 * n - i - 1) // 2) & U32
        if idx < cumI:
            i -= 1
            cumI = (i * (2 * n - i - 1) // 2) & U32
        elif idx >= cumI + (n - 1 - i):
            cumI = cumI + (n - 1 - i)
            i += 1
        return i, idx - cumI + i + 1

    def Process(self):
        dataEachBlock = 8
        coreId = aj.GetBlockIdx()
        baseIdx = coreId * self.numBlockEachCore_ * dataEachBlock
        for blockId in range(self.numBlockEachCore_):
            self.ProcessBlock(baseIdx + blockId * dataEachBlock, dataEachBlock)
        lastBaseIdx = self.coreNumVar_ * self.numBlockEachCore_ * dataEachBlock
        if coreId < self.lastNumsBlocks_:
            self.ProcessBlock(lastBaseIdx + coreId * dataEachBlock, dataEachBlock)
        if self.lastNumsNoneFullBlock_ > 0 and coreId == self.lastNumsBlocks_:
            self.ProcessBlock(lastBaseIdx + self.lastNumsBlocks_ * dataEachBlock, self.lastNumsNoneFullBlock_)

    def LoadDiff(self, rowI, rowJ, colOffset, length, alignLen, src1, src2):
        gmOffI = rowI * self.cols_ + colOffset
        gmOffJ = rowJ * self.cols_ + colOffset
        cpParams = aj.DataCopyParams()
        cpParams.blockCount = 1
        cpParams.blockLen = length * TYPE_SIZE[self.T]
        cpParams.srcStride = 0
        cpParams.dstStride = 0
        if self.T == "half":
            padParams = (False, 0, 0, 0)
            fp16Tmp = self.fp16Queue.AllocTensor("half")
            aj.DataCopyPad(fp16Tmp, self.inputGM[gmOffI], cpParams, padParams)
            self.fp16Queue.EnQue(fp16Tmp)
            fp16In = self.fp16Queue.DeQue("half")
            aj.Cast(src1, fp16In, aj.RoundMode.CAST_NONE, alignLen)
            self.fp16Queue.FreeTensor(fp16In)
            fp16Tmp = self.fp16Queue.AllocTensor("half")
            aj.DataCopyPad(fp16Tmp, self.inputGM[gmOffJ], cpParams, padParams)
            self.fp16Queue.EnQue(fp16Tmp)
            fp16In = self.fp16Queue.DeQue("half")
            aj.Cast(src2, fp16In, aj.RoundMode.CAST_NONE, alignLen)
            self.fp16Queue.FreeTensor(fp16In)
        else:
            aj.DataCopyPad(src1, self.inputGM[gmOffI], cpParams, (False, 0, 0, 0))
            aj.DataCopyPad(src2, self.inputGM[gmOffJ], cpParams, (False, 0, 0, 0))
            self.inQueueSrc1.EnQue(src1)
            self.inQueueSrc2.EnQue(src2)
            src1 = self.inQueueSrc1.DeQue("float")
            src2 = self.inQueueSrc2.DeQue("float")
        aj.Sub(src1, src1, src2, length)
        return src1, src2

    def ComputeChunkDistance(self, src1, src2, length, workLocal, tempLocal):
        if self.tilingKey_ == 0:
            align256Len = (length + 63) // 64 * 64
            cmpLocal = self.cmpBuf.Get("uint8")
            if not ORIGINAL_UNINIT_READS and align256Len > length:
                # deviation (module docstring): lanes length.. of the last 64-lane repeat zeroed by a bit mask
                base = length // 64 * 64
                aj.Duplicate(src1[base], np.float32(0), [(2**64 - 1) ^ ((1 << (length - base)) - 1), 0], 1, 1, 8)
            aj.CompareScalar(cmpLocal, src1, np.float32(0), aj.CMPMODE.NE, align256Len)
            aj.Duplicate(src2, np.float32(1), align256Len)
            aj.Select(src1, cmpLocal, src2, np.float32(0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, align256Len)
            aj.ReduceSum(tempLocal, src1, workLocal, length)
        elif self.tilingKey_ == 1:
            aj.Abs(src1, src1, length)
            if self.pValue_ == 1:
                pass
            elif self.pValue_ == 2:
                aj.Mul(src1, src1, src1, length)
            else:
                aj.Ln(src1, src1, length)
                aj.Muls(src1, src1, self.pValue_, length)
                aj.Exp(src1, src1, length)
            aj.ReduceSum(tempLocal, src1, workLocal, length)
        else:
            aj.Abs(src1, src1, length)
            aj.ReduceMax(tempLocal, src1, workLocal, length, False)

    def ApplyInvP(self, outLocal, blockSize):
        if self.tilingKey_ != 1:
            return
        invP = np.float32(1) / self.pValue_
        tempOffset = self.reduceBufSize_ // 4
        tmp = self.workBuf.Get("float")[tempOffset]
        cmpLocal = self.cmpBuf.Get("uint8")
        aj.CompareScalar(cmpLocal, outLocal, np.float32(0), aj.CMPMODE.GT, 8, 1, aj.UnaryRepeatParams(1, 1, 8, 8))
        aj.Select(tmp, cmpLocal, outLocal, np.float32(1), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 8)
        if self.pValue_ == 1:
            pass
        elif self.pValue_ == 2:
            aj.Sqrt(tmp, tmp, 8)
        else:
            aj.Ln(tmp, tmp, 8)
            aj.Muls(tmp, tmp, invP, 8)
            aj.Exp(tmp, tmp, 8)
        aj.Select(outLocal, cmpLocal, tmp, np.float32(0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 8)

    def WriteOutput(self, outLocal, startIdx, blockSize):
        self.outQueue.EnQue(outLocal)
        outLocal = self.outQueue.DeQue("float")
        outParams = aj.DataCopyParams()
        outParams.blockCount = 1
        outParams.blockLen = blockSize * TYPE_SIZE[self.T]
        outParams.srcStride = 0
        outParams.dstStride = 0
        if self.T == "half":
            outFp16 = self.workBuf.Get("float").ReinterpretCast("half")
            aj.Cast(outFp16, outLocal, aj.RoundMode.CAST_RINT, 8)
            self._sync(aj.HardEvent.V_MTE3)                  # deviation (module docstring)
            aj.DataCopyPad(self.outputGM[startIdx], outFp16, outParams)
            self._sync(aj.HardEvent.MTE3_V)                  # deviation (module docstring)
        else:
            aj.DataCopyPad(self.outputGM[startIdx], outLocal, outParams)
        self.outQueue.FreeTensor(outLocal)

    @staticmethod
    def _sync(event):
        """Deviation (module docstring): the flag round trip the original leaves out."""
        if ORIGINAL_SYNC:
            return
        eventId = int(aj.GetTPipePtr().FetchEventID(event))
        aj.SetFlag(eventId, event=event)
        aj.WaitFlag(eventId, event=event)

    def ProcessBlock(self, startIdx, blockSize):
        outLocal = self.outQueue.AllocTensor("float")
        aj.Duplicate(outLocal, np.float32(0), 8 if ORIGINAL_OUT_SIZE else OUT_LANES)
        wBuf = self.workBuf.Get("float")
        workLocal = wBuf[0]
        tempOffset = self.reduceBufSize_ // 4
        tempLocal = wBuf[tempOffset]
        for k in range(blockSize):
            globalIdx = startIdx + k
            if globalIdx >= self.computeNum_:
                break
            rowI, rowJ = self.GetIJFromIndex(globalIdx)
            accum = np.float32(0)
            remaining = self.cols_
            colOffset = 0
            while remaining > 0:
                length = min(remaining, self.ubTensorEachLoop_)
                alignLen = (length + 7) // 8 * 8
                src1 = self.inQueueSrc1.AllocTensor("float")
                src2 = self.inQueueSrc2.AllocTensor("float")
                src1, src2 = self.LoadDiff(rowI, rowJ, colOffset, length, alignLen, src1, src2)
                self.ComputeChunkDistance(src1, src2, length, workLocal, tempLocal)
                self._sync(aj.HardEvent.V_S)                 # deviation (module docstring)
                chunkVal = np.float32(tempLocal.GetValue(0))
                if self.tilingKey_ == 2:
                    accum = chunkVal if chunkVal > accum else accum
                else:
                    accum = np.float32(accum + chunkVal)
                self.inQueueSrc1.FreeTensor(src1)
                self.inQueueSrc2.FreeTensor(src2)
                colOffset += length
                remaining -= length
            outLocal.SetValue(k, accum)
        self._sync(aj.HardEvent.S_V)                         # deviation (module docstring)
        self.ApplyInvP(outLocal, blockSize)
        self.WriteOutput(outLocal, startIdx, blockSize)


aj.REGISTER_TILING_DEFAULT(PdistTilingData)


def pdist(x, y, workspace, tiling, D_T_X):
    """The kernel entry; D_T_X is the template's input type."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(PdistTilingData, tiling)
    op = Pdist(D_T_X)
    op.Init(x, y, workspace, tilingData)
    op.Process()


def _make_inputs(dtype, cols, integral):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if integral:
            x = rng.integers(-8, 9, size).astype(_NP[dtype])
            x[::7] = 0
        else:
            x = (rng.standard_normal(size) * 2).astype(_NP[dtype])
        x = x.reshape(-1, cols)
        x[1] = x[0]                                         # a pair at distance 0
        return {"x": x}
    return make_inputs


def _run(dtype, p):
    def run(device, inputs):
        x = inputs["x"]
        rows, cols = x.shape
        n = rows * (rows - 1) // 2
        y = np.zeros(n, x.dtype)
        block_dim, tiling_bytes, ws = tiling(device, rows, cols, dtype, p)
        workspace = np.zeros(max(ws, 32), np.uint8)
        aj.launch(pdist, block_dim, device, x.reshape(-1), y, workspace, tiling_bytes, dtype)
        return {"y": y}
    return run


def _expected(p):
    def expected(device, inputs):
        x = inputs["x"].astype(np.float64)
        i, j = np.triu_indices(x.shape[0], 1)
        d = np.abs(x[i] - x[j])
        if p == 0:
            r = (d != 0).sum(axis=1).astype(np.float64)
        elif np.isinf(p):
            r = d.max(axis=1)
        else:
            r = (d ** p).sum(axis=1) ** (1.0 / p)
        return {"y": r.astype(inputs["x"].dtype) if p in (0, 1) or np.isinf(p) else r}
    return expected


def _spec(name, dtype, cols, p, default, tolerance, description):
    integral = p in (0, 1) or np.isinf(p)
    return KernelSpec(name, description, _make_inputs(dtype, cols, integral), _run(dtype, p), _expected(p),
                      default_size=default, devices=DEVICES, tolerance=tolerance,
                      size_rule=f"a multiple of M = {cols}, at least two rows",
                      size_ok=lambda n: n >= 2 * cols and n % cols == 0,
                      source="hicann/ops-math@c4193324 experimental/math/pdist/op_kernel/pdist.h")


KERNELS = [
    _spec("pdist", "float", 100, 2.0, 23 * 100, 2e-6, "Pdist p = 2 over 23 float rows of 100: DataCopyPad, Sub, Abs, "
          "Mul, ReduceSum, GetValue accumulation, the high-dim CompareScalar GT and tensor-scalar Selects around "
          "Sqrt; 253 pairs in blocks of 8 over 8 cores, a partial block"),
    _spec("pdist_p1_half", "half", 45, 1.0, 19 * 45, None, "Pdist p = 1 over half rows of 45: DataCopyPad through "
          "the half queue, Cast CAST_NONE, Sub, Abs, ReduceSum; the results Cast CAST_RINT and copied out as half"),
    _spec("pdist_p0", "float", 130, 0.0, 12 * 130, None, "Pdist p = 0 (count of differing columns): CompareScalar NE "
          "over 64-rounded counts, Duplicate ones, tensor-scalar Select against 0.0f, ReduceSum"),
    _spec("pdist_inf", "float", 77, np.inf, 17 * 77, None, "Pdist p = inf: Abs and ReduceMax without index, the "
          "maximum taken on the scalar unit"),
    _spec("pdist_p3_half", "half", 33, 3.0, 9 * 33, 2e-3, "Pdist p = 3 over half rows: Ln, Muls(p), Exp per "
          "element, ReduceSum, then Ln, Muls(1 / p), Exp of the 8 results; Cast RINT to half"),
]
