"""BiasAdd from the CANN math operators: y = x + bias broadcast along the channel dimension (the last one for NHWC /
NDHWC, the second for NCHW / NCDHW), over float, half, int32 and bfloat16: the BASE schedule (tiling key 0) of the
original.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/bias_add:
- op_kernel/bias_add.h (`NsBiasAdd::KernelBiasAdd<T>`): element-split big / small cores (the first tailBlockNum
  cores one element more, from unaligned GM starts), depth-2 VECIN / VECOUT queues of tileDataNum elements, a bias
  TBuf of a tile and an optional bias-cache TBuf; Init fills the cache by a DataCopyPad of the bias (or, on the
  K-cycle path, by GM GetValue / UB SetValue of one super-cycle of channels from the core's phase) and a
  PipeBarrier<PIPE_MTE2>; per tile a DataCopyPad in (DataCopyExtParams, no padding), one of the Compute paths, a
  DataCopyPad out. The Compute paths, tried in the original's order:
  ChannelCacheAdds (innerSize 1, channel stride whole 32-byte blocks, tiles and core starts whole channel rows):
  the cache replicated over the bias TBuf once a core by Copy repeats, then one Add a tile;
  KCycleAdds (innerSize 1, an unaligned channel count: super-cycles of lcm(C, 32 bytes) elements): per super-cycle
  an Add against the cache;
  InnerSizeAdds (innerSize over 1, float / half / int32): per channel run a scalar head up to a 32-byte boundary
  (x + bias on the scalar unit, half through float), Adds of the bias over the aligned body, a scalar tail;
  SegmentAdds (channel runs that start 32-byte aligned): one Adds a run;
  else FillBias (the bias of every element set on the scalar unit into the bias TBuf) and one Add.
  `KernelBiasAdd<bfloat16_t>`: three float TBufs of a tile, x Cast CAST_NONE, y Cast CAST_RINT back; the K-cycle
  cache Cast to float once a tile and Added per super-cycle; channel rows Cast from the cache row by row beside one
  Add each; innerSize over 1 (tile at least C): the bias Cast to a float cache in Init, InnerSizeAdds in float (scalar
  head / tail, Adds body, PipeBarrier<PIPE_ALL>); else FillBias, Casts, Add;
- op_kernel/bias_add.cpp (the entry: the tiling key picks the kernel) and op_host/bias_add_tiling.cpp
  (`TilingForBiasAdd`: UB - 4096 bytes usable, 24 (16-bit) or 6 * sizeof(T) bytes an element; a 32-byte rounded
  bias cache when C * sizeof(T) <= usable / 4; K-cycle tiles of whole super-cycles; NCHW tiles and cores aligned to
  innerSize when innerSize is whole 32-byte blocks; aligned NHWC cores a multiple of 4 dividing the rows; the
  budget (2 * 2 + 1) tiles + cache halved until it fits).

Tiling modes ported: BASE only (SEGMENT: NCHW / NCDHW; ALIGNED: NHWC with C * sizeof(T) whole 32-byte blocks;
UNALIGNED U2_SUPERCYCLE: the K-cycle path). Refused by the port's host code with a ParameterError naming the mode:
TINY_NOQUEUE (x of 1536 bytes or less), THIN_TINY_VECTOR_BROADCAST and BROADCAST_UB_TILE (unaligned NHWC whose rows
fit one GatherMask materialisation: C of 32 blocks or fewer; bfloat16 by its float-cast forms).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). The scalar unit reads and writes UB
the vector and MTE pipes also use with no synchronisation (the original's PipeBarrier<PIPE_MTE2> after the cache
copy orders no other pipe): the port adds SetFlag / WaitFlag pairs MTE2_V and MTE2_S after the cache's DataCopyPad
(the Copy and FillBias's GetValues read it), S_V after the K-cycle cache's SetValues and after FillBias (the Add
reads them), MTE2_S before InnerSizeAdds' GetValues of the copied tile and S_MTE3 after its SetValues (the copy-out
reads them; these two the sanitizer's device-sync mode asks for, its report mode takes the queue's hand-over);
bfloat16: MTE2_V after the bias copies Init Casts, V_S before InnerSizeAddsBf16's GetValues of the Cast tile;
ORIGINAL_SYNC = True leaves them out (the sanitizer reports the races). Kept as the original: ChannelCacheAdds's
replication is Copy<T, false> in counter mode (SetVectorMask<T, COUNTER>(C), repeatTime = up to 255 rows,
CopyRepeatParams {1, 1, C's blocks, 0}): by the Copy page's counter-mode rule (decisions.md, "Copy") the count is
each repeat's, one channel row a repeat.

Devices: the operator's config is the ascend910b / ascend910_93: the port runs on the A3 and A2.

Fidelity: BIT-EXACT (Add, Adds, Copy, Cast, DataCopyPad; the scalar half add in float rounded once to half is the
half sum's one rounding, as a half sum's exact value always fits a float; bfloat16: the float sum rounded once by
CAST_RINT); int32 wraps.
"""
import ctypes
import math

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
BUFFER_NUM = 2
BLOCK_SIZE = 32
UB_RESERVE_SIZE = 4096
BIAS_CACHE_LIMIT_DIVISOR = 4
BIAS_CACHE_MIN_TILES_PER_CORE = 4
TINY_FLOOR_BYTES = 1536
THIN_SMALL_VECTOR_MIN_ELEMS = 90
U1_MAX_ROWS_PER_TILE = 255
SAFE_GATHER_BLOCKS = 32
TYPE_SIZE = {"float": 4, "half": 2, "int32": 4, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "int32": np.int32, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("atlas-a3", "atlas-a2")
ORIGINAL_SYNC = False              # True: no flags around the scalar accesses (the deviation)


class BiasAddTilingData(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in (
        "totalElements", "channelSize", "innerSize", "smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum",
        "finalSmallTileNum", "tileDataNum", "biasCacheElems", "brcTmpBytes", "useFastPath", "superCycleSize",
        "kCycleCount", "smallTailDataNum", "bigTailDataNum", "tailBlockNum")]


def _align_up(v, a):
    return -(-v // a) * a


def layout(shape, data_format="NHWC"):
    """ResolveLayoutInfo for an ND x: (channelSize, innerSize)."""
    if len(shape) == 1:
        return shape[0], 1
    if data_format in ("NCHW", "NCDHW"):
        return shape[1], int(np.prod(shape[2:], dtype=np.int64))
    if data_format in ("NHWC", "NDHWC"):
        return shape[-1], 1
    raise aj.ParameterError("BiasAdd tiling", "data_format", data_format, legal="NCHW, NHWC, NCDHW, NDHWC")


def _refused_mode(total, channel, inner, dtype, usable, core_num):
    """The schedule the original picks when it is not BASE (the port refuses it), else None."""
    size = TYPE_SIZE[dtype]
    align = BLOCK_SIZE // size
    aligned_stride = channel * size % BLOCK_SIZE == 0
    c_aligned = _align_up(channel, align)
    c_blocks = c_aligned // align
    rows = total // channel if total % channel == 0 else 0
    if dtype == "bfloat16":
        thin_bf16 = (inner == 1 and rows and rows <= U1_MAX_ROWS_PER_TILE and not aligned_stride
                     and total >= THIN_SMALL_VECTOR_MIN_ELEMS and _align_up(channel, 8) // 8 <= SAFE_GATHER_BLOCKS)
        if total * size <= TINY_FLOOR_BYTES and not thin_bf16:
            return None                                     # TINY's T2_BASE: the BASE kernel
        if thin_bf16:
            f_al = _align_up(channel, 8)
            if (total * 2 * 2 + total * 12 + rows * f_al * 4 + _align_up(channel, 16) * 2 + f_al * 4) <= usable:
                return "THIN_TINY_VECTOR_BROADCAST"
        if inner == 1 and rows and not aligned_stride and _align_up(channel, 8) // 8 <= SAFE_GATHER_BLOCKS:
            f_al, b_al = _align_up(channel, 8), _align_up(channel, 16)
            fixed = b_al * 2 + f_al * 4
            per_row = channel * 2 * 2 + channel * 12 + f_al * 4
            if usable > fixed:
                rows_per_tile = min((usable - fixed) // per_row, U1_MAX_ROWS_PER_TILE, rows)
                if rows_per_tile and (rows_per_tile * channel * (4 + 12) + b_al * 2 + f_al * 4
                                      + rows_per_tile * f_al * 4) <= usable:
                    return "BROADCAST_UB_TILE"
        return None
    thin = (inner == 1 and rows and rows <= U1_MAX_ROWS_PER_TILE and not aligned_stride
            and total >= THIN_SMALL_VECTOR_MIN_ELEMS and c_blocks <= SAFE_GATHER_BLOCKS
            and total * size * 3 + c_aligned * size + rows * c_aligned * size <= usable)
    if total * size <= TINY_FLOOR_BYTES and not thin:
        return "TINY_NOQUEUE"
    if thin:
        return "THIN_TINY_VECTOR_BROADCAST"
    if inner == 1 and rows and not aligned_stride and channel % align and c_blocks <= SAFE_GATHER_BLOCKS:
        fixed = c_aligned * size
        per_row = channel * size * 2 + c_aligned * size
        if usable > fixed:
            rows_per_tile = min((usable - fixed) // per_row, U1_MAX_ROWS_PER_TILE, rows)
            if rows_per_tile and (rows_per_tile * channel * size * 2 + rows_per_tile * c_aligned * size
                                  + c_aligned * size) <= usable:
                return "BROADCAST_UB_TILE"
    return None


def tiling(device, shape, dtype, data_format="NHWC"):
    """TilingForBiasAdd, the BASE schedule: (core count, tiling bytes). Other schedules are refused."""
    if dtype not in TYPE_SIZE:
        raise aj.ParameterError("BiasAdd tiling", "dtype", dtype, legal="float, half, int32, bfloat16")
    total = int(np.prod(shape, dtype=np.int64))
    channel, inner = layout(shape, data_format)
    size = TYPE_SIZE[dtype]
    align = BLOCK_SIZE // size
    usable = max(0, aj.get_device(device).ub_bytes - UB_RESERVE_SIZE)
    budget = 24 if size == 2 else size * 6
    mode = _refused_mode(total, channel, inner, dtype, usable, CORE_NUM)
    if mode is not None:
        raise aj.ParameterError("BiasAdd tiling", "schedule", mode, legal="BASE (the port's only tiling mode)",
                                detail=f"x {tuple(shape)} {data_format} {dtype} selects {mode}, not ported")
    aligned_stride = channel * size % BLOCK_SIZE == 0
    tile = max(align, usable // budget // align * align)
    tile = min(tile, total)
    core_num = max(1, min(total, CORE_NUM))
    if inner == 1 and aligned_stride:                 # ApplyAlignedChannelCorePolicy
        for cand in range(min(core_num, 32), 0, -1):
            if cand % 4 == 0 and total % (cand * channel) == 0:
                core_num = cand
                break
    cache_elems = cache_bytes = super_cycle = k_cycle = 0
    use_k = False
    if inner == 1 and not aligned_stride and channel % align:      # SelectKCyclePolicy
        g = math.gcd(align, channel)
        k = align // g
        sc = k * channel
        if sc * size <= usable // BIAS_CACHE_LIMIT_DIVISOR:
            sc_tile = (usable - sc * size) // budget // sc * sc
            if sc_tile >= sc and total // core_num >= sc:
                use_k, cache_elems, cache_bytes, super_cycle, k_cycle = True, sc, sc * size, sc, k
    if inner == 1 and cache_elems == 0 and channel * size <= usable // BIAS_CACHE_LIMIT_DIVISOR:
        cache_bytes = _align_up(channel * size, BLOCK_SIZE)
        cache_elems = cache_bytes // size
    small0 = total // core_num
    big0 = small0 + (1 if total % core_num else 0)
    tiles0 = -(-big0 // tile)
    if inner == 1 and aligned_stride and channel * size <= usable // BIAS_CACHE_LIMIT_DIVISOR \
            and tiles0 >= BIAS_CACHE_MIN_TILES_PER_CORE:
        cache_bytes = _align_up(channel * size, BLOCK_SIZE)
        cache_elems = cache_bytes // size
    if use_k:
        tile = (usable - cache_bytes) // budget // super_cycle * super_cycle
        tile = min(tile, total)
    elif cache_bytes > 0:
        tile = max(align, (usable - cache_bytes) // budget // align * align)
        if inner == 1 and tile >= channel:
            aligned = tile // channel * channel
            if aligned >= tile // 2:
                tile = aligned
        tile = min(tile, total)
    if inner > 1 and inner * size % BLOCK_SIZE == 0 and tile >= inner:    # path B
        aligned = tile // inner * inner
        if aligned >= tile // 2:
            tile = aligned
        for cand in range(min(core_num, 32), 0, -1):
            if total % (cand * inner) == 0:
                if cand >= core_num // 4:
                    core_num = cand
                break
    while tile > align and tile * size * (2 * BUFFER_NUM + 1) + cache_bytes + (
            tile * 12 if dtype == "bfloat16" else 0) > usable:
        tile = max(align, tile // 2 // align * align)
    small = total // core_num
    tail_block = total % core_num
    big = small + 1 if tail_block else small
    small_tiles = -(-small // tile) if small else 0
    big_tiles = -(-big // tile) if big else 0
    t = BiasAddTilingData(
        totalElements=total, channelSize=channel, innerSize=inner, smallCoreDataNum=small, bigCoreDataNum=big,
        finalBigTileNum=big_tiles, finalSmallTileNum=small_tiles, tileDataNum=tile, biasCacheElems=cache_elems,
        brcTmpBytes=0, useFastPath=0, superCycleSize=super_cycle, kCycleCount=k_cycle,
        smallTailDataNum=small - tile * (small_tiles - 1) if small_tiles else 0,
        bigTailDataNum=big - tile * (big_tiles - 1) if big_tiles else 0, tailBlockNum=tail_block)
    return core_num, np.frombuffer(bytes(t), np.uint8).copy()


def _scalar_add(T, a, b):
    """x + bias on the scalar unit: half through float (static_cast<half>(float + float)), int32 wrapping."""
    if T == "half":
        return np.float16(np.float32(a) + np.float32(b))
    if T == "int32":
        return np.int32((int(a) + int(b) + 2 ** 31) % 2 ** 32 - 2 ** 31)
    return np.float32(np.float32(a) + np.float32(b))


def _sync(event):
    """The deviation: a SetFlag / WaitFlag pair the original lacks."""
    if not ORIGINAL_SYNC:
        aj.SetFlag(aj.EVENT_ID0, event=event)
        aj.WaitFlag(aj.EVENT_ID0, event=event)


class KernelBiasAdd:
    """`KernelBiasAdd<T>` (T float, half, int32)."""

    def __init__(self, T):
        self.T = T
        self.channelFullHoisted = False

    def Init(self, x, bias, y, t):
        T = self.T
        coreIdx = aj.GetBlockIdx()
        if coreIdx < t.tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = t.bigCoreDataNum, t.finalBigTileNum, t.bigTailDataNum
            globalStart = t.bigCoreDataNum * coreIdx
        else:
            self.coreDataNum, self.tileNum = t.smallCoreDataNum, t.finalSmallTileNum
            self.tailDataNum = t.smallTailDataNum
            globalStart = t.bigCoreDataNum * t.tailBlockNum + t.smallCoreDataNum * (coreIdx - t.tailBlockNum)
        self.tileDataNum = t.tileDataNum
        self.biasCacheElems = t.biasCacheElems
        self.superCycleSize = t.superCycleSize
        self.kCycleCount = t.kCycleCount
        self.channelSize = t.channelSize
        self.innerSize = t.innerSize
        self.globalStart = globalStart
        self.xGm, self.yGm, self.biasGm = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.xGm.SetGlobalBuffer(x[globalStart:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalStart:], self.coreDataNum)
        self.biasGm.SetGlobalBuffer(bias, self.channelSize)
        self.pipe = aj.TPipe()
        self.xQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.yQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.biasBuffer = aj.TBuf(aj.QuePosition.VECCALC)
        self.biasCacheBuffer = aj.TBuf(aj.QuePosition.VECCALC)
        size = TYPE_SIZE[T]
        self.pipe.InitBuffer(self.xQueue, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.yQueue, BUFFER_NUM, self.tileDataNum * size)
        self.pipe.InitBuffer(self.biasBuffer, self.tileDataNum * size)
        if self.biasCacheElems > 0:
            self.pipe.InitBuffer(self.biasCacheBuffer, self.biasCacheElems * size)
            biasCache = self.biasCacheBuffer.Get(T)
            if self.superCycleSize > 0 and self.kCycleCount > 0:
                biasStart = globalStart % self.channelSize
                for i in range(self.biasCacheElems):
                    biasCache.SetValue(i, self.biasGm.GetValue((biasStart + i) % self.channelSize))
                _sync(aj.HardEvent.S_V)                       # deviation: the Adds read the SetValues
            else:
                aj.DataCopyPad(biasCache, self.biasGm[0], aj.DataCopyExtParams(1, self.channelSize * size, 0, 0, 0),
                               aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0)))
                _sync(aj.HardEvent.MTE2_V)                    # deviation: the Copy reads the cache
                _sync(aj.HardEvent.MTE2_S)                    # deviation: FillBias's GetValues read it
            aj.PipeBarrier(aj.PIPE_MTE2)

    def Process(self):
        if self.coreDataNum == 0 or self.tileNum == 0:
            return
        self.processDataNum = self.tileDataNum
        for i in range(self.tileNum):
            if i == self.tileNum - 1:
                self.processDataNum = self.tailDataNum
            if self.processDataNum == 0:
                continue
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)

    def CopyIn(self, progress):
        T = self.T
        xLocal = self.xQueue.AllocTensor(T)
        aj.DataCopyPad(xLocal, self.xGm[progress * self.tileDataNum],
                       aj.DataCopyExtParams(1, self.processDataNum * TYPE_SIZE[T], 0, 0, 0),
                       aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0)))
        self.xQueue.EnQue(xLocal)

    def _bias_value(self, idx):
        if self.biasCacheElems > 0:
            return self.biasCacheBuffer.Get(self.T).GetValue(idx)
        return self.biasGm.GetValue(idx)

    def FillBias(self, biasLocal, progress):
        globalIndex = self.globalStart + progress * self.tileDataNum
        n = self.processDataNum
        if self.innerSize == 1:
            biasIndex = globalIndex % self.channelSize
            for i in range(n):
                biasLocal.SetValue(i, self._bias_value(biasIndex))
                biasIndex += 1
                if biasIndex == self.channelSize:
                    biasIndex = 0
            return
        localOffset = 0
        while localOffset < n:
            biasIndex = (globalIndex // self.innerSize) % self.channelSize
            runLen = min(self.innerSize - globalIndex % self.innerSize, n - localOffset)
            biasValue = self._bias_value(biasIndex)
            for j in range(runLen):
                biasLocal.SetValue(localOffset + j, biasValue)
            localOffset += runLen
            globalIndex += runLen

    def Compute(self, progress):
        T = self.T
        xLocal = self.xQueue.DeQue(T)
        yLocal = self.yQueue.AllocTensor(T)
        if self.CanUseChannelCacheAdds():
            self.ComputeChannelCacheAdds(xLocal, yLocal)
        elif self.CanUseKCycleAdds():
            self.ComputeKCycleAdds(xLocal, yLocal)
        elif self.CanUseInnerSizeAdds():
            self.ComputeInnerSizeAdds(xLocal, yLocal, progress)
        elif self.CanUseSegmentAdds(progress):
            self.ComputeSegmentAdds(xLocal, yLocal, progress)
        else:
            biasLocal = self.biasBuffer.Get(T)
            self.FillBias(biasLocal, progress)
            _sync(aj.HardEvent.S_V)                           # deviation: the Add reads the SetValues
            aj.Add(yLocal, xLocal, biasLocal, self.processDataNum)
            self.biasBuffer.FreeTensor(biasLocal)
        self.xQueue.FreeTensor(xLocal)
        self.yQueue.EnQue(yLocal)

    def CanUseInnerSizeAdds(self):
        align = BLOCK_SIZE // TYPE_SIZE[self.T]
        return self.innerSize > 1 and self.innerSize >= align * 2 and self.processDataNum >= align * 4

    def ComputeInnerSizeAdds(self, xLocal, yLocal, progress):
        T = self.T
        align = BLOCK_SIZE // TYPE_SIZE[T]
        globalIndex = self.globalStart + progress * self.tileDataNum
        n = self.processDataNum
        _sync(aj.HardEvent.MTE2_S)                            # deviation: the GetValues read the copied tile
        localOffset = 0
        while localOffset < n:
            biasIndex = (globalIndex // self.innerSize) % self.channelSize
            runLen = min(self.innerSize - globalIndex % self.innerSize, n - localOffset)
            biasValue = self.biasGm.GetValue(biasIndex)
            headLen = min((align - localOffset % align) % align, runLen)
            for i in range(headLen):
                yLocal.SetValue(localOffset + i, _scalar_add(T, xLocal.GetValue(localOffset + i), biasValue))
            consumed = headLen
            bodyLen = (runLen - consumed) // align * align
            if bodyLen > 0:
                aj.Adds(yLocal[localOffset + consumed], xLocal[localOffset + consumed], biasValue, bodyLen)
                consumed += bodyLen
            while consumed < runLen:
                yLocal.SetValue(localOffset + consumed,
                                _scalar_add(T, xLocal.GetValue(localOffset + consumed), biasValue))
                consumed += 1
            localOffset += runLen
            globalIndex += runLen
        _sync(aj.HardEvent.S_MTE3)                            # deviation: the copy-out reads the SetValues

    def CanUseSegmentAdds(self, progress):
        align = BLOCK_SIZE // TYPE_SIZE[self.T]
        globalIndex = self.globalStart + progress * self.tileDataNum
        return (self.innerSize > 1 and self.innerSize % align == 0 and self.tileDataNum % align == 0
                and globalIndex % self.innerSize == 0)

    def ComputeSegmentAdds(self, xLocal, yLocal, progress):
        globalIndex = self.globalStart + progress * self.tileDataNum
        localOffset = 0
        while localOffset < self.processDataNum:
            biasIndex = (globalIndex // self.innerSize) % self.channelSize
            runLen = min(self.innerSize, self.processDataNum - localOffset)
            aj.Adds(yLocal[localOffset], xLocal[localOffset], self.biasGm.GetValue(biasIndex), runLen)
            localOffset += runLen
            globalIndex += runLen

    def CanUseChannelCacheAdds(self):
        return (self.innerSize == 1 and self.superCycleSize == 0 and self.biasCacheElems >= self.channelSize
                and self.channelSize > 0 and self.channelSize * TYPE_SIZE[self.T] % BLOCK_SIZE == 0
                and self.tileDataNum % self.channelSize == 0 and self.globalStart % self.channelSize == 0)

    def ComputeChannelCacheAdds(self, xLocal, yLocal):
        T = self.T
        C = self.channelSize
        biasFull = self.biasBuffer.Get(T)
        if not self.channelFullHoisted:
            biasCache = self.biasCacheBuffer.Get(T)
            cBlocks = C // (BLOCK_SIZE // TYPE_SIZE[T])
            rows = self.tileDataNum // C
            aj.SetMaskCount()
            aj.SetVectorMask(C, dtype=T, mode=aj.MaskMode.COUNTER)
            rep = aj.CopyRepeatParams(1, 1, cBlocks, 0)
            doneRows = 0
            while doneRows < rows:
                batch = min(rows - doneRows, 255)
                aj.Copy(biasFull[doneRows * C], biasCache, aj.MASK_PLACEHOLDER, batch, rep, is_set_mask=False)
                doneRows += batch
            aj.SetMaskNorm()
            aj.ResetMask()
            aj.PipeBarrier(aj.PIPE_V)
            self.channelFullHoisted = True
        aj.Add(yLocal, xLocal, biasFull, self.processDataNum)

    def CanUseKCycleAdds(self):
        sc = self.superCycleSize
        return (self.innerSize == 1 and sc > 0 and self.biasCacheElems >= sc and self.channelSize > 0
                and self.biasCacheElems % sc == 0 and self.tileDataNum % sc == 0)

    def ComputeKCycleAdds(self, xLocal, yLocal):
        biasCache = self.biasCacheBuffer.Get(self.T)
        chunk = self.biasCacheElems
        off = 0
        while off + chunk <= self.processDataNum:
            aj.Add(yLocal[off], xLocal[off], biasCache[0], chunk)
            off += chunk
        if off < self.processDataNum:
            aj.Add(yLocal[off], xLocal[off], biasCache[0], self.processDataNum - off)

    def CopyOut(self, progress):
        T = self.T
        yLocal = self.yQueue.DeQue(T)
        aj.DataCopyPad(self.yGm[progress * self.tileDataNum], yLocal,
                       aj.DataCopyExtParams(1, self.processDataNum * TYPE_SIZE[T], 0, 0, 0))
        self.yQueue.FreeTensor(yLocal)


class KernelBiasAddBf16(KernelBiasAdd):
    """`KernelBiasAdd<bfloat16_t>`: everything in float through three float TBufs of a tile, Cast CAST_RINT back."""

    def Init(self, x, bias, y, t):
        T = self.T
        coreIdx = aj.GetBlockIdx()
        if coreIdx < t.tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = t.bigCoreDataNum, t.finalBigTileNum, t.bigTailDataNum
            globalStart = t.bigCoreDataNum * coreIdx
        else:
            self.coreDataNum, self.tileNum = t.smallCoreDataNum, t.finalSmallTileNum
            self.tailDataNum = t.smallTailDataNum
            globalStart = t.bigCoreDataNum * t.tailBlockNum + t.smallCoreDataNum * (coreIdx - t.tailBlockNum)
        self.tileDataNum, self.biasCacheElems = t.tileDataNum, t.biasCacheElems
        self.superCycleSize, self.kCycleCount = t.superCycleSize, t.kCycleCount
        self.channelSize, self.innerSize, self.globalStart = t.channelSize, t.innerSize, globalStart
        self.xGm, self.yGm, self.biasGm = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.xGm.SetGlobalBuffer(x[globalStart:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalStart:], self.coreDataNum)
        self.biasGm.SetGlobalBuffer(bias, self.channelSize)
        self.pipe = aj.TPipe()
        self.xQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.yQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.biasBuffer, self.xCastBuffer, self.biasCastBuffer, self.yCastBuffer, self.biasCacheBuffer = (
            aj.TBuf(aj.QuePosition.VECCALC) for _ in range(5))
        n = self.tileDataNum
        self.pipe.InitBuffer(self.xQueue, BUFFER_NUM, n * 2)
        self.pipe.InitBuffer(self.yQueue, BUFFER_NUM, n * 2)
        self.pipe.InitBuffer(self.biasBuffer, n * 2)
        self.pipe.InitBuffer(self.xCastBuffer, n * 4)
        self.pipe.InitBuffer(self.biasCastBuffer, n * 4)
        self.pipe.InitBuffer(self.yCastBuffer, n * 4)
        if self.CanUseInnerSizeAddsBf16():
            biasLocal = self.biasBuffer.Get(T)
            biasFloatCache = self.biasCastBuffer.Get("float")
            aj.DataCopyPad(biasLocal, self.biasGm[0], aj.DataCopyExtParams(1, self.channelSize * 2, 0, 0, 0),
                           aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0)))
            aj.PipeBarrier(aj.PIPE_MTE2)
            _sync(aj.HardEvent.MTE2_V)                    # deviation: the Cast reads the copy
            aj.Cast(biasFloatCache, biasLocal, aj.RoundMode.CAST_NONE, self.channelSize)
            aj.PipeBarrier(aj.PIPE_V)
            self.biasBuffer.FreeTensor(biasLocal)
        if self.biasCacheElems > 0:
            self.pipe.InitBuffer(self.biasCacheBuffer, self.biasCacheElems * 2)
            biasCache = self.biasCacheBuffer.Get(T)
            if self.superCycleSize > 0 and self.kCycleCount > 0:
                biasStart = globalStart % self.channelSize
                for i in range(self.biasCacheElems):
                    biasCache.SetValue(i, self.biasGm.GetValue((biasStart + i) % self.channelSize))
                _sync(aj.HardEvent.S_V)                   # deviation: the Casts read the SetValues
            else:
                aj.DataCopyPad(biasCache, self.biasGm[0], aj.DataCopyExtParams(1, self.channelSize * 2, 0, 0, 0),
                               aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0)))
                _sync(aj.HardEvent.MTE2_V)                # deviation: the Casts read the cache
                _sync(aj.HardEvent.MTE2_S)                # deviation: FillBias's GetValues read it
            aj.PipeBarrier(aj.PIPE_MTE2)

    def CanUseInnerSizeAddsBf16(self):
        return self.innerSize > 1 and self.channelSize > 0 and self.tileDataNum >= self.channelSize

    def Compute(self, progress):
        T = self.T
        n = self.processDataNum
        xLocal = self.xQueue.DeQue(T)
        yLocal = self.yQueue.AllocTensor(T)
        xCast, biasCast = self.xCastBuffer.Get("float"), self.biasCastBuffer.Get("float")
        yCast = self.yCastBuffer.Get("float")
        sc, cache = self.superCycleSize, self.biasCacheElems
        if sc > 0 and cache >= sc and cache % sc == 0 and self.tileDataNum % sc == 0:
            biasCache = self.biasCacheBuffer.Get(T)
            aj.Cast(xCast, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(biasCast, biasCache, aj.RoundMode.CAST_NONE, cache)
            off = 0
            while off + cache <= n:
                aj.Add(yCast[off], xCast[off], biasCast, cache)
                off += cache
            if off < n:
                aj.Add(yCast[off], xCast[off], biasCast, n - off)
            aj.Cast(yLocal, yCast, aj.RoundMode.CAST_RINT, n)
        elif (self.innerSize == 1 and cache >= self.channelSize and self.channelSize > 0
              and self.channelSize * 2 % 32 == 0 and self.tileDataNum % self.channelSize == 0
              and self.globalStart % self.channelSize == 0):
            self.ComputeChannelCached(xLocal, yLocal, xCast, biasCast, yCast)
        elif self.CanUseInnerSizeAddsBf16():
            self.ComputeInnerSizeAddsBf16(xLocal, yLocal, biasCast, xCast, yCast, progress)
        else:
            biasLocal = self.biasBuffer.Get(T)
            self.FillBias(biasLocal, progress)
            _sync(aj.HardEvent.S_V)                       # deviation: the Cast reads the SetValues
            aj.Cast(xCast, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(biasCast, biasLocal, aj.RoundMode.CAST_NONE, n)
            aj.Add(yCast, xCast, biasCast, n)
            aj.Cast(yLocal, yCast, aj.RoundMode.CAST_RINT, n)
            self.biasBuffer.FreeTensor(biasLocal)
        self.xQueue.FreeTensor(xLocal)
        self.yQueue.EnQue(yLocal)

    def ComputeInnerSizeAddsBf16(self, xLocal, yLocal, biasFloatCache, xCast, yCast, progress):
        align = 8
        n = self.processDataNum
        aj.Cast(xCast, xLocal, aj.RoundMode.CAST_NONE, n)
        aj.PipeBarrier(aj.PIPE_V)
        _sync(aj.HardEvent.V_S)                           # deviation: the GetValues read the Casts
        globalIndex = self.globalStart + progress * self.tileDataNum
        localOffset = 0
        while localOffset < n:
            biasIndex = (globalIndex // self.innerSize) % self.channelSize
            runLen = min(self.innerSize - globalIndex % self.innerSize, n - localOffset)
            biasValue = biasFloatCache.GetValue(biasIndex)
            headLen = min((align - localOffset % align) % align, runLen)
            for i in range(headLen):
                yCast.SetValue(localOffset + i, np.float32(xCast.GetValue(localOffset + i) + biasValue))
            consumed = headLen
            bodyLen = (runLen - consumed) // align * align
            if bodyLen > 0:
                aj.Adds(yCast[localOffset + consumed], xCast[localOffset + consumed], biasValue, bodyLen)
                consumed += bodyLen
            while consumed < runLen:
                yCast.SetValue(localOffset + consumed, np.float32(xCast.GetValue(localOffset + consumed) + biasValue))
                consumed += 1
            localOffset += runLen
            globalIndex += runLen
        aj.PipeBarrier(aj.PIPE_ALL)
        aj.Cast(yLocal, yCast, aj.RoundMode.CAST_RINT, n)

    def ComputeChannelCached(self, xLocal, yLocal, xCast, biasCast, yCast):
        C, n = self.channelSize, self.processDataNum
        biasCache = self.biasCacheBuffer.Get(self.T)
        aj.Cast(xCast, xLocal, aj.RoundMode.CAST_NONE, n)
        localOffset = 0
        while localOffset + C <= n:
            aj.Cast(biasCast[localOffset], biasCache[0], aj.RoundMode.CAST_NONE, C)
            aj.Add(yCast[localOffset], xCast[localOffset], biasCast[localOffset], C)
            localOffset += C
        if localOffset < n:
            aj.Cast(biasCast[localOffset], biasCache[0], aj.RoundMode.CAST_NONE, n - localOffset)
            aj.Add(yCast[localOffset], xCast[localOffset], biasCast[localOffset], n - localOffset)
        aj.Cast(yLocal, yCast, aj.RoundMode.CAST_RINT, n)


aj.REGISTER_TILING_DEFAULT(BiasAddTilingData)


def bias_add(x, bias, y, workspace, tiling_bytes, dtype):
    """The kernel entry (bias_add.cpp, schMode BIAS_ADD_TPL_SCH_MODE_BASE)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(BiasAddTilingData, tiling_bytes)
    op = KernelBiasAddBf16(dtype) if dtype == "bfloat16" else KernelBiasAdd(dtype)
    op.Init(x, bias, y, tilingData)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_bias_add(device, x, bias, data_format="NHWC"):
    dtype = _dtype_name(x)
    if bias.dtype != x.dtype or bias.ndim != 1 or bias.size != layout(x.shape, data_format)[0]:
        raise aj.ParameterError("BiasAdd tiling", "bias", bias.shape, legal="x's dtype, one dimension of C")
    block_num, t = tiling(device, x.shape, dtype, data_format)
    y = np.zeros(x.size, x.dtype)
    aj.launch(bias_add, block_num, device, np.ascontiguousarray(x).reshape(-1), bias, y, None, t, dtype)
    return y.reshape(x.shape)


def bias_add_model(x, bias, data_format="NHWC"):
    """x + bias broadcast along the channel: one rounding in the type (float, half), int32 wrapping."""
    channel, inner = layout(x.shape, data_format)
    b = np.repeat(np.tile(bias, x.size // (channel * inner)), inner).reshape(x.shape)
    if x.dtype == np.int32:
        return ((x.astype(np.int64) + b + 2 ** 31) % 2 ** 32 - 2 ** 31).astype(np.int32)
    # float, half (the sum of two halves is exact in float) and bfloat16 (in float, CAST_RINT back): one rounding
    with np.errstate(all="ignore"):
        return (x.astype(np.float32) + b.astype(np.float32)).astype(x.dtype)


# the gallery's shapes: x is size // (C * inner) rows of the fixed channel block
_GALLERY = {"bias_add": ("float", 64, 1, "NHWC"), "bias_add_half_nchw": ("half", 16, 49, "NCHW"),
            "bias_add_int32_kcycle": ("int32", 300, 1, "NHWC"), "bias_add_bf16_nchw": ("bfloat16", 16, 49, "NCHW")}


def _shape(name, size):
    _, c, inner, fmt = _GALLERY[name]
    return (size // (c * inner), c) if fmt == "NHWC" else (size // (c * inner), c, 7, 7)


def _make_inputs(name):
    dtype, c, _, _ = _GALLERY[name]

    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        shape = _shape(name, size)
        if dtype == "int32":
            return {"x": rng.integers(-10 ** 6, 10 ** 6, shape).astype(np.int32),
                    "bias": rng.integers(-10 ** 6, 10 ** 6, c).astype(np.int32)}
        return {"x": rng.standard_normal(shape).astype(_NP[dtype]),
                "bias": rng.uniform(-2.0, 2.0, c).astype(_NP[dtype])}
    return make_inputs


def _runner(name):
    def run(device, inputs):
        return {"y": run_bias_add(device, inputs["x"], inputs["bias"], _GALLERY[name][3])}
    return run


def _expected(name):
    def expected(device, inputs):
        return {"y": bias_add_model(inputs["x"], inputs["bias"], _GALLERY[name][3])}
    return expected


def _rule(name):
    dtype, c, inner, _ = _GALLERY[name]
    block = c * inner
    return (f"a multiple of {block} elements, over {TINY_FLOOR_BYTES} bytes",
            lambda n: n > 0 and n % block == 0 and n * TYPE_SIZE[dtype] > TINY_FLOOR_BYTES)


_SOURCE = "hicann/ops-math@c4193324 experimental/math/bias_add/op_kernel/bias_add.h"
KERNELS = [
    KernelSpec(name, description, _make_inputs(name), _runner(name), _expected(name), default_size=size,
               devices=DEVICES, size_rule=_rule(name)[0], size_ok=_rule(name)[1], source=_SOURCE)
    for name, size, description in (
        ("bias_add", 1600 * 64, "BiasAdd, NHWC float, C = 64 (the BASE schedule's channel-cache path: the bias "
         "DataCopyPad'd once, replicated over a tile by Copy repeats, one Add a tile; unaligned core starts fall "
         "back to FillBias on the scalar unit and Add)"),
        ("bias_add_half_nchw", 64 * 784, "BiasAdd, NCHW half (16, 7, 7) planes (InnerSizeAdds: a scalar head and "
         "tail in float per channel run, Adds of the bias over the 32-byte aligned body)"),
        ("bias_add_int32_kcycle", 400 * 300, "BiasAdd, NHWC int32, C = 300 (the K-cycle path: one super-cycle of "
         "600 bias values cached by GetValue / SetValue from the core's phase, an Add per super-cycle)"),
        ("bias_add_bf16_nchw", 64 * 784, "BiasAdd, NCHW bfloat16 (16, 7, 7) planes (KernelBiasAdd<bfloat16_t>: "
         "the bias Cast to a float cache, x Cast to float, InnerSizeAdds in float, Cast CAST_RINT back)"))
]
