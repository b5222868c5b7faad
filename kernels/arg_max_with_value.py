"""ArgMaxWithValue from the CANN math operators: the maximum of x along one dimension and the index of its first
occurrence (int32), over float, half and bfloat16: the NLAST_OUTPUT schedule (the reduced dimension not the last)
and the COPY schedule (a reduced dimension of one element).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/arg_max_with_value:
- op_kernel/arg_max_with_value_nlast.h (`ArgNLast<T, false, ARG_SCH_NLAST_OUTPUT>`): x seen as firstDim x axis x
  lastDim, the outputs (firstDim x lastDim) split over cores in 32-byte blocks (the first bigCores cores a block
  more); no TPipe: every buffer a LocalTensor at a fixed UB address (two input slots of axisTile rows of innerTile
  elements, the output value and index tiles, a float cast scratch, the running extremum, two index ping-pong
  buffers, the compare mask). Per output tile (up to innerTile columns of one firstDim plane): the running extremum
  Duplicated to -inf (as its IEEE bits), the index to 0; blocks of axisTile axis rows loaded by one strided GM -> UB
  copy (copy_gm_to_ubuf_align: blockCount rows, the lastDim stride as the source gap, no padding) into alternating
  slots, the next block prefetched under the current one between MTE2_V / V_MTE2 flags; per axis row a Compare LE
  of the row against the extremum ("not better": ties keep the earlier row), a tensor-scalar Select of the old index
  or the row's index, a Max into the extremum. ComputeCast (float, bfloat16; half with an axis over 2048) reduces
  in float (bfloat16 rows Cast CAST_NONE, the value Cast CAST_RINT back), the int32 index selected through float
  lanes; ComputeNative (half, axis <= 2048) reduces in half, the index a half value Cast CAST_RINT to int32 at the
  end. Drain: V_MTE3, the value and index rows out by UB -> GM copies, PipeBarrier<PIPE_MTE3> and MTE3_V;
- op_kernel/arg_max_with_value_copy.h (`ArgCopy<T, false>`: per tile of rowTile outputs the x elements by a GM -> UB
  copy to UB address 0, MTE2_MTE3, the same bytes out as the values; a counter-mode vector_dup of n int32 zeros at
  the next 32-byte boundary, V_MTE3, out as the indices; PipeBarrier<PIPE_MTE3>, MTE3_MTE2);
- op_kernel/arg_max_with_value_base.h (`ArgBase`: the raw intrinsic helpers: counter-mode vector_dup / vconv /
  vmax, vcmpv in chunks of 252 repeats, vsel in VSEL_TENSOR_SCALAR_MODE with the scalar through set_cmpmask);
- op_host/arg_max_with_value_tiling.cpp (`ArgTilingFunc`, the NLAST part: ComputeOutputSplit, innerTile = lastDim
  (at most 1024) rounded up to 128, axisTile the largest that fits the UB less 16 KiB and an 8192-element working
  set, the 1 / 2 / 4 launch-wave cap by MaxNLastTiles; COPY: under 64 KiB one core, rowTile the largest tile whose
  input and index buffers fit).

Tiling modes ported: NLAST_OUTPUT and COPY. Refused by the port's host code with a ParameterError naming the mode:
the LAST family (the last dimension reduced: LAST_DIRECT, LAST_LONG, TINY, PACK*, SEG, PIECE, SPLIT1 / SPLIT2),
NLAST_BATCH / NLAST_TREE (several firstDim planes of 512 elements or fewer reduced together) and NLAST_SPLIT
(firstDim 1, the axis split over cores and combined through the workspace); int16 and ArgMinWithValue (the same
kernel with IS_MIN) are not offered.

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). The raw intrinsics are written as the
Ascend C calls that issue them (vector_dup / vconv / vmax in counter mode as the count forms of Duplicate / Cast /
Max, vcmpv as Compare's count form over the same whole repeats, vsel with a set_cmpmask scalar as Select
VSEL_TENSOR_SCALAR_MODE's count form, the int32 index's bits through float lanes as the original's reinterpret;
copy_gm_to_ubuf_align / copy_ubuf_to_gm_align as DataCopyPad with the same block count, lengths and gaps). The
loads leave each row's lanes past lastDim's 32-byte block unwritten (LoadRowsNoFill: "dummy UB", never stored) and
the Compare, Select and Max read them: the port Duplicates zeros over the two input slots once in Init (then a
V_MTE2 pair); ORIGINAL_FILL = True leaves them uninitialised (the sanitizer's init report; the outputs the same).
COPY's next tile Duplicates zeros over the index tile the last tile's copy-out read, ordered only MTE3 -> MTE2: the
port adds an MTE3_V pair; ORIGINAL_SYNC = True leaves it out (the sanitizer reports the WAR race).

Devices: the operator's config is the ascend910b / ascend910_93: the port runs on the A3 and A2.

Fidelity: BIT-EXACT (Compare, Select, Max, Duplicate, Cast between exact values, DataCopyPad). Specials: Max with a
NaN gives NaN (SPEC-2 D41) and a Compare with NaN is false (D43), so from a NaN row on every later row is "better":
the value NaN and the index the last row's; max(-0, +0) = +0 with the index of the first of them the Compare did
not keep (+0 <= -0 holds: a later +0 after -0 keeps -0's index).
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
UB_MARGIN = 16384
WORKSET_CAP = 8192
NATIVE_AXIS_LIM = 2048
TARGET_W = 1024
NATIVE_TWO_PLANE_W = 1152
CHUNK_REPEATS = 252
UB_BYTES = 192 * 1024
_SIZE_OF = {"float": 4, "int32": 4, "uint32": 4, "half": 2, "int16": 2, "uint16": 2, "uint8": 1}
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("atlas-a3", "atlas-a2")
ORIGINAL_FILL = False              # True: the input slots' lanes past each row's copy left uninitialised
ORIGINAL_SYNC = False              # True: COPY without the MTE3_V pair between tiles


class ArgMaxWithValueTilingData(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint32) for name in (
        "tilingMode", "firstDim", "axisSize", "lastDim", "outSize", "usedCoreNum", "perCore", "bigCores", "rowTile",
        "innerTile", "axisTile", "apiTmpSize", "splitAxis", "axisPerCore", "nlBf", "nlIPad")]


ARG_SCH_COPY = 0
ARG_SCH_NLAST_OUTPUT = 12
COPY_MULTICORE_MIN_BYTES = 65536


def _round_up(a, b):
    return (a + b - 1) // b * b


def _output_split(out_size, out_align, core_num):
    """ComputeOutputSplit: (used, perCore, bigCores)."""
    total_blk = -(-out_size // out_align)
    used = max(1, min(total_blk, core_num))
    return used, total_blk // used * out_align, total_blk % used


def _max_nlast_tiles(out_size, last_dim, inner_tile, out_align, core_cap):
    """MaxNLastTiles: the slowest core's tile count for a core cap, and the cores used."""
    used, per_core, big = _output_split(out_size, out_align, core_cap)
    worst = 0
    for core in range(used):
        start = core * (per_core + out_align) if core < big else big * (per_core + out_align) + (core - big) * per_core
        length = per_core + (out_align if core < big else 0)
        length = 0 if start >= out_size else min(length, out_size - start)
        first = 0 if length == 0 else min(last_dim - start % last_dim, length)
        tiles = -(-first // inner_tile)
        length -= first
        tiles += length // last_dim * -(-last_dim // inner_tile) + -(-(length % last_dim) // inner_tile)
        worst = max(worst, tiles)
    return worst, used


def flatten(shape, dim):
    dim = dim + len(shape) if dim < 0 else dim
    if not 0 <= dim < len(shape):
        raise aj.ParameterError("ArgMaxWithValue tiling", "dimension", dim, legal=f"[-{len(shape)}, {len(shape)})")
    first = int(np.prod(shape[:dim], dtype=np.int64))
    last = int(np.prod(shape[dim + 1:], dtype=np.int64))
    return first, shape[dim], last


def tiling(device, shape, dtype, dim):
    """ArgTilingFunc's NLAST_OUTPUT path: (core count, tiling bytes); the other schedules refused."""
    if dtype not in TYPE_SIZE:
        raise aj.ParameterError("ArgMaxWithValue tiling", "dtype", dtype, legal="float, half, bfloat16")
    first, axis, last = flatten(shape, dim)
    out_size = first * last
    size = TYPE_SIZE[dtype]
    use_cast = size < 4
    is_fp16 = dtype == "half"
    out_align = 16 if size == 2 else 8

    def refuse(mode):
        raise aj.ParameterError("ArgMaxWithValue tiling", "schedule", mode, legal="NLAST_OUTPUT (the port's only "
                                "tiling mode)", detail=f"x {tuple(shape)} {dtype} dim {dim} selects {mode}, not ported")
    if out_size == 0:
        refuse("COPY of nothing")
    used, per_core, big = _output_split(out_size, out_align, CORE_NUM)
    ub = aj.get_device(device).ub_bytes
    budget = ub - UB_MARGIN if ub > UB_MARGIN else ub
    if axis <= 1:
        return _copy_tiling(first, axis, last, out_size, size, out_align, used, per_core, big, budget)
    if last == 1:
        refuse("LAST")
    native = is_fp16 and axis <= NATIVE_AXIS_LIM
    inner_tile = _round_up(min(last, 1024), 128)

    def nbytes(i_len, a_cap):
        total = 2 * a_cap * i_len * size + 2 * i_len * size + 2 * i_len * 4
        if use_cast and not native:
            total += a_cap * i_len * 4
        return total + 3 * i_len * 4 + _round_up(i_len, 256) // 8 + 32
    while inner_tile > 64 and nbytes(inner_tile, 1) > budget:
        inner_tile -= 64
    hi = min(axis, max(1, WORKSET_CAP // inner_tile))
    lo, axis_tile = 1, 1
    while lo <= hi:
        mid = lo + (hi - lo) // 2
        if nbytes(inner_tile, mid) <= budget:
            axis_tile, lo = mid, mid + 1
        else:
            hi = mid - 1
    i_pad = _round_up(last, 32 // size)
    if first >= 2 and i_pad <= (NATIVE_TWO_PLANE_W if native else TARGET_W) // 2:
        refuse("NLAST_BATCH / NLAST_TREE")     # at least two planes a group fit (the port does not size the group)
    if first == 1 and out_size > 1 and last <= inner_tile:
        per = _round_up(-(-axis // CORE_NUM), 64)
        if -(-axis // per) > used:
            refuse("NLAST_SPLIT")
    half_cap = CORE_NUM // 2 if CORE_NUM > 1 else 1
    quarter_cap = CORE_NUM // 4 if CORE_NUM > 3 else 1
    full_tiles, full_used = _max_nlast_tiles(out_size, last, inner_tile, out_align, CORE_NUM)
    half_tiles, _ = _max_nlast_tiles(out_size, last, inner_tile, out_align, half_cap)
    native_nlast = is_fp16 and axis <= NATIVE_AXIS_LIM
    axis_cost = axis + 4
    half_extra = max(0, half_tiles - full_tiles)
    half_budget = 20 if native_nlast else 12
    cap = CORE_NUM
    half_wins = full_used <= half_cap or half_extra == 0 or (axis_cost <= half_budget
                                                               and half_extra <= half_budget // axis_cost)
    if half_wins:
        cap = half_cap
        quarter_tiles, _ = _max_nlast_tiles(out_size, last, inner_tile, out_align, quarter_cap)
        quarter_extra = max(0, quarter_tiles - half_tiles)
        quarter_budget = 12 if native_nlast else 8
        if quarter_tiles <= 4 and (quarter_extra == 0 or (axis_cost <= quarter_budget
                                                          and quarter_extra <= quarter_budget // axis_cost)):
            cap = quarter_cap
    if cap >= 1 and used > cap:
        used, per_core, big = _output_split(out_size, out_align, cap)
    t = ArgMaxWithValueTilingData(
        tilingMode=ARG_SCH_NLAST_OUTPUT, firstDim=first, axisSize=axis, lastDim=last, outSize=out_size,
        usedCoreNum=used, perCore=per_core, bigCores=big, rowTile=1, innerTile=inner_tile, axisTile=axis_tile,
        apiTmpSize=0, splitAxis=0, axisPerCore=0, nlBf=1, nlIPad=0)
    return used, np.frombuffer(bytes(t), np.uint8).copy()


def _copy_tiling(first, axis, last, out_size, size, out_align, used, per_core, big, budget):
    """The COPY schedule (an axis of one element): under 64 KiB one core; rowTile the largest tile whose input and
    zero-index buffers fit the UB less 16 KiB."""
    if out_size * size < COPY_MULTICORE_MIN_BYTES:
        used, per_core, big = 1, out_size, 0

    def nbytes(t):
        return _round_up(t * size, 32) + _round_up(t, 8) * 4
    hi = max(1, min(per_core + (out_align if big else 0), budget // (size + 4)))
    lo, row_tile = 1, 1
    while lo <= hi:
        mid = lo + (hi - lo) // 2
        if nbytes(mid) <= budget:
            row_tile, lo = mid, mid + 1
        else:
            hi = mid - 1
    t = ArgMaxWithValueTilingData(
        tilingMode=ARG_SCH_COPY, firstDim=first, axisSize=axis, lastDim=last, outSize=out_size, usedCoreNum=used,
        perCore=per_core, bigCores=big, rowTile=row_tile, innerTile=64, axisTile=1, apiTmpSize=0, splitAxis=0,
        axisPerCore=0, nlBf=1, nlIPad=0)
    return used, np.frombuffer(bytes(t), np.uint8).copy()


class ArgCopy:
    """`ArgCopy<T, false>`: the values are x itself, the indices 0 (fixed UB addresses: the tile at 0, the index
    tile after it)."""

    def __init__(self, T):
        self.T = T

    def Init(self, x, indice, values, t):
        ArgNLast.InitBase(self, x, indice, values, t)
        self.tile = t.rowTile or 1
        self.indexAddr = _round_up(self.tile * TYPE_SIZE[self.T], 32)

    def Process(self):
        T, size = self.T, TYPE_SIZE[self.T]
        for done in range(0, self.oLen, self.tile):
            n = min(self.oLen - done, self.tile)
            off = self.oStart + done
            xUb = aj.LocalTensor(aj.TPosition.VECCALC, 0, self.indexAddr // size, dtype=T)   # to the 32-byte block
            indexUb = aj.LocalTensor(aj.TPosition.VECCALC, self.indexAddr, _round_up(self.tile, 8), dtype="int32")
            aj.DataCopyPad(xUb, self.xGm[off], aj.DataCopyExtParams(1, n * size, 0, 0, 0),
                           aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0)))
            _sync(aj.HardEvent.MTE2_MTE3)
            aj.DataCopyPad(self.valuesGm[off], xUb, aj.DataCopyExtParams(1, n * size, 0, 0, 0))
            aj.Duplicate(indexUb, np.int32(0), n)                 # counter-mode vector_dup of n zeros
            _sync(aj.HardEvent.V_MTE3)
            aj.DataCopyPad(self.indiceGm[off], indexUb, aj.DataCopyExtParams(1, n * 4, 0, 0, 0))
            aj.PipeBarrier(aj.PIPE_MTE3)
            _sync(aj.HardEvent.MTE3_MTE2)
            if not ORIGINAL_SYNC:
                _sync(aj.HardEvent.MTE3_V)        # deviation: the next tile's Duplicate rewrites the indices' tile

def _sync(event):
    aj.SetFlag(aj.EVENT_ID0, event=event)
    aj.WaitFlag(aj.EVENT_ID0, event=event)


class ArgNLast:
    """`ArgNLast<T, IS_MIN = false, ARG_SCH_NLAST_OUTPUT>` with its `ArgBase<T, false>`."""

    def __init__(self, T):
        self.T = T

    # --- ArgBase ---
    def InitBase(self, x, indice, values, t):
        T = self.T
        self.axis, self.lastDim, self.outSize = t.axisSize, t.lastDim, t.outSize
        blk = aj.GetBlockIdx()
        aln = 32 // TYPE_SIZE[T]
        if t.bigCores == 0:
            self.oStart, myLen = blk * t.perCore, t.perCore
        elif blk < t.bigCores:
            self.oStart, myLen = blk * (t.perCore + aln), t.perCore + aln
        else:
            self.oStart, myLen = t.bigCores * (t.perCore + aln) + (blk - t.bigCores) * t.perCore, t.perCore
        self.oLen = 0 if self.oStart >= self.outSize else min(self.outSize - self.oStart, myLen)
        self.xGm, self.valuesGm, self.indiceGm = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor("int32")
        self.xGm.SetGlobalBuffer(x)
        self.valuesGm.SetGlobalBuffer(values)
        self.indiceGm.SetGlobalBuffer(indice)

    def LoadRowsNoFill(self, dst, base, R, length, rowW, gmStride):
        """R rows of `length` elements, gmStride apart in GM, into rows of rowW (copy_gm_to_ubuf_align)."""
        size = TYPE_SIZE[self.T]
        pad = aj.DataCopyPadExtParams(False, 0, 0, _NP[self.T](0))
        if gmStride == length and rowW == length:
            aj.DataCopyPad(dst, self.xGm[base], aj.DataCopyExtParams(1, R * length * size, 0, 0, 0), pad)
            return
        dstDb = (rowW - _round_up(length, 32 // size)) // (32 // size)
        aj.DataCopyPad(dst, self.xGm[base], aj.DataCopyExtParams(R, length * size, (gmStride - length) * size, dstDb,
                                                                 0), pad)

    def StoreOut(self, outOff, n, oval, oidx):
        aj.DataCopyPad(self.valuesGm[outOff], oval, aj.DataCopyExtParams(1, n * TYPE_SIZE[self.T], 0, 0, 0))
        aj.DataCopyPad(self.indiceGm[outOff], oidx, aj.DataCopyExtParams(1, n * 4, 0, 0, 0))

    @staticmethod
    def RawCompareLE(mask, src0, src1, count, lanes):
        """vcmpv_le in chunks of 252 repeats (whole repeats of the count)."""
        repeats = count // lanes
        for done in range(0, repeats, CHUNK_REPEATS):
            rep = min(repeats - done, CHUNK_REPEATS)
            aj.Compare(mask[done * lanes // 8], src0[done * lanes], src1[done * lanes], aj.CMPMODE.LE, rep * lanes)
        aj.PipeBarrier(aj.PIPE_V)

    @staticmethod
    def RawSelectExtremum(indexDst, mask, indexSrc, scalar, valueDst, valueSrc0, valueSrc1, count):
        """vsel VSEL_TENSOR_SCALAR_MODE (the scalar by set_cmpmask) then vmax, in counter mode."""
        aj.Select(indexDst, mask, indexSrc, scalar, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, count)
        aj.Max(valueDst, valueSrc0, valueSrc1, count)
        aj.PipeBarrier(aj.PIPE_V)

    # --- ArgNLast ---
    def Init(self, x, indice, values, t):
        T = self.T
        size = TYPE_SIZE[T]
        self.InitBase(x, indice, values, t)
        self.iLen, self.aCap = t.innerTile or 128, t.axisTile or 1
        self.native = T == "half" and self.axis <= NATIVE_AXIS_LIM
        w, loadW = self.iLen, self.aCap * self.iLen
        ub = [0]

        def reserve(nbytes):
            addr = ub[0]
            ub[0] = _round_up(addr + nbytes, 32)
            return addr
        self.inputSlotBytes = _round_up(loadW * size, 32)
        self.inputAddr = reserve(2 * self.inputSlotBytes)
        self.outValueAddr = reserve(w * size)
        self.outIndexAddr = reserve(w * 4)
        self.srcAddr = reserve(loadW * 4) if T != "float" and not self.native else None
        self.curValAddr = reserve(w * 4)
        self.idxAAddr = reserve(w * 4)
        self.idxBAddr = reserve(w * 4)
        self.maskAddr = reserve(_round_up(w, 256) // 8 + 32)
        self.inputCap, self.outputCap = loadW, w
        if not ORIGINAL_FILL:          # the deviation: the dummy lanes the loads leave, zeroed once
            aj.Duplicate(self.Ub("int16", self.inputAddr), np.int16(0), self.inputSlotBytes)
            _sync(aj.HardEvent.V_MTE2)

    @staticmethod
    def Ub(dtype, addr):
        """A tensor from `addr` to the 192 KiB UB's end (the original's Ub<U>)."""
        return aj.LocalTensor(aj.TPosition.VECCALC, addr, (UB_BYTES - addr) // _SIZE_OF[dtype], dtype=dtype)

    def Input(self, slot):
        return aj.LocalTensor(aj.TPosition.VECCALC, self.inputAddr + slot * self.inputSlotBytes, self.inputCap,
                              dtype=self.T)

    def OutValue(self):
        return aj.LocalTensor(aj.TPosition.VECCALC, self.outValueAddr, self.outputCap, dtype=self.T)

    def OutIndex(self):
        return aj.LocalTensor(aj.TPosition.VECCALC, self.outIndexAddr, self.outputCap, dtype="int32")

    def Fp32Accumulator(self):
        if self.T == "float":
            return self.OutValue()
        return self.Ub("float", self.curValAddr)

    def RowBase(self, f, innerOff, aStart):
        return f * self.axis * self.lastDim + innerOff + aStart * self.lastDim

    def Process(self):
        o, oEnd = self.oStart, self.oStart + self.oLen
        while o < oEnd:
            f, l = divmod(o, self.lastDim)
            blockLen = min(self.lastDim - l, oEnd - o)
            for io in range(0, blockLen, self.iLen):
                ilen = min(blockLen - io, self.iLen)
                if self.native:
                    self.ComputeNative(f, l + io, ilen)
                    self.Drain(o + io, ilen, self.OutIndex())
                else:
                    self.Drain(o + io, ilen, self.ComputeCast(f, l + io, ilen))
            o += blockLen

    def ComputeCast(self, f, innerOff, ilen):
        T = self.T
        aEnd = self.axis
        cn = _round_up(ilen, 64)
        curV = self.Fp32Accumulator()
        idxA, idxB = self.Ub("int32", self.idxAAddr), self.Ub("int32", self.idxBAddr)
        mask = self.Ub("uint8", self.maskAddr)
        aj.Duplicate(curV.ReinterpretCast("uint32"), np.uint32(0xff800000), cn)     # RawDupInitF: -inf's bits
        aj.PipeBarrier(aj.PIPE_V)
        aj.Duplicate(idxA, np.int32(0), cn)
        aj.PipeBarrier(aj.PIPE_V)
        self.LoadRowsNoFill(self.Input(0), self.RowBase(f, innerOff, 0), min(aEnd, self.aCap), ilen, self.iLen,
                            self.lastDim)
        block = 0
        for aStart in range(0, aEnd, self.aCap):
            aN = min(aEnd - aStart, self.aCap)
            x = self.Input(block & 1)
            _sync(aj.HardEvent.MTE2_V)
            aStartN = aStart + self.aCap
            if aStartN < aEnd:                           # prefetch the next block under this one's compute
                if block > 0:
                    _sync(aj.HardEvent.V_MTE2)
                self.LoadRowsNoFill(self.Input((block + 1) & 1), self.RowBase(f, innerOff, aStartN),
                                    min(aEnd - aStartN, self.aCap), ilen, self.iLen, self.lastDim)
            if T == "float":
                blockF = x
            else:
                blockF = self.Ub("float", self.srcAddr)
                aj.Cast(blockF, x, aj.RoundMode.CAST_NONE, aN * self.iLen)
                aj.PipeBarrier(aj.PIPE_V)
            for a in range(aN):
                row = blockF[a * self.iLen]
                self.RawCompareLE(mask, row, curV, cn, 64)          # "not better" keeps idxA
                aVal = np.int32(aStart + a).view(np.float32)          # the int32 index's bits in float lanes
                self.RawSelectExtremum(idxB.ReinterpretCast("float"), mask, idxA.ReinterpretCast("float"), aVal,
                                       curV, curV, row, cn)
                idxA, idxB = idxB, idxA
            block += 1
        _sync(aj.HardEvent.V_MTE2)
        if T != "float":
            aj.Cast(self.OutValue(), curV, aj.RoundMode.CAST_RINT, ilen)           # StoreValF
            aj.PipeBarrier(aj.PIPE_V)
        return idxA

    def ComputeNative(self, f, innerOff, ilen):
        aEnd = self.axis
        cn = _round_up(ilen, 128)
        curV = self.OutValue()
        idxA, idxB = self.Ub("half", self.idxAAddr), self.Ub("half", self.idxBAddr)
        mask = self.Ub("uint8", self.maskAddr)
        aj.Duplicate(curV.ReinterpretCast("uint16"), np.uint16(0xfc00), cn)         # RawDupPad: -inf's bits
        aj.PipeBarrier(aj.PIPE_V)
        aj.Duplicate(idxA, np.float16(0), cn)
        aj.PipeBarrier(aj.PIPE_V)
        self.LoadRowsNoFill(self.Input(0), self.RowBase(f, innerOff, 0), min(aEnd, self.aCap), ilen, self.iLen,
                            self.lastDim)
        block = 0
        for aStart in range(0, aEnd, self.aCap):
            aN = min(aEnd - aStart, self.aCap)
            x = self.Input(block & 1)
            _sync(aj.HardEvent.MTE2_V)
            aStartN = aStart + self.aCap
            if aStartN < aEnd:
                if block > 0:
                    _sync(aj.HardEvent.V_MTE2)
                self.LoadRowsNoFill(self.Input((block + 1) & 1), self.RowBase(f, innerOff, aStartN),
                                    min(aEnd - aStartN, self.aCap), ilen, self.iLen, self.lastDim)
            for a in range(aN):
                row = x[a * self.iLen]
                self.RawCompareLE(mask, row, curV, cn, 128)
                self.RawSelectExtremum(idxB, mask, idxA, np.float16(aStart + a), curV, curV, row, cn)
                idxA, idxB = idxB, idxA
            block += 1
        _sync(aj.HardEvent.V_MTE2)
        aj.Cast(self.OutIndex(), idxA, aj.RoundMode.CAST_RINT, ilen)
        aj.PipeBarrier(aj.PIPE_V)

    def Drain(self, outOff, n, oidx):
        _sync(aj.HardEvent.V_MTE3)
        self.StoreOut(outOff, n, self.OutValue(), oidx)
        aj.PipeBarrier(aj.PIPE_MTE3)                     # SyncMte3Complete<MTE3_V>
        _sync(aj.HardEvent.MTE3_V)


aj.REGISTER_TILING_DEFAULT(ArgMaxWithValueTilingData)


def arg_max_with_value(x, indice, values, workspace, tiling_bytes, dtype):
    """The kernel entry (arg_max_with_value.cpp: RunArgWithValue<T, false, ARG_SCH_NLAST_OUTPUT, false>)."""
    t = aj.GET_TILING_DATA_WITH_STRUCT(ArgMaxWithValueTilingData, tiling_bytes)
    op = ArgCopy(dtype) if t.tilingMode == ARG_SCH_COPY else ArgNLast(dtype)
    op.Init(x, indice, values, t)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def _out_shape(shape, dim):
    dim = dim + len(shape) if dim < 0 else dim
    return tuple(shape[:dim]) + tuple(shape[dim + 1:])


def run_arg_max_with_value(device, x, dim):
    """(indice int32, values) of x's maximum along `dim` (keep_dims false)."""
    dtype = _dtype_name(x)
    used, t = tiling(device, x.shape, dtype, dim)
    first, axis, last = flatten(x.shape, dim)
    indice = np.zeros(first * last, np.int32)
    values = np.zeros(first * last, x.dtype)
    aj.launch(arg_max_with_value, used, device, np.ascontiguousarray(x).reshape(-1), indice, values, None, t, dtype)
    return indice.reshape(_out_shape(x.shape, dim)), values.reshape(_out_shape(x.shape, dim))


def _d41_max(a, b):
    """SPEC-2 D41: a NaN operand gives NaN; max(-0, +0) = +0."""
    m = np.where(a > b, a, np.where(b > a, b, np.where(np.signbit(a), b, a)))
    return np.where(np.isnan(a) | np.isnan(b), np.float32(np.nan), m).astype(a.dtype)


def arg_max_with_value_model(x, dim):
    """The kernel's running combine in numpy: per axis row, 'not better' = row <= extremum (NaN: false), the index
    kept where not better, else the row's; the extremum by D41's Max. float / half in their type (half's index exact
    below 2049), bfloat16 in float."""
    first, axis, last = flatten(x.shape, dim)
    if axis == 1:                                   # COPY
        return np.zeros(_out_shape(x.shape, dim), np.int32), x.reshape(_out_shape(x.shape, dim)).copy()
    work = np.float16 if (x.dtype == np.float16 and axis <= NATIVE_AXIS_LIM) else np.float32
    xs = x.reshape(first, axis, last).astype(work)
    cur = np.full((first, last), -np.inf, work)
    idx = np.zeros((first, last), np.int32)
    with np.errstate(invalid="ignore"):
        for a in range(axis):
            row = xs[:, a, :]
            idx = np.where(row <= cur, idx, np.int32(a))
            cur = _d41_max(cur, row)
    out = _out_shape(x.shape, dim)
    return idx.reshape(out), cur.astype(x.dtype).reshape(out)


_GALLERY = {"arg_max_with_value": ("float", 24, 1100), "arg_max_with_value_half": ("half", 40, 600),
            "arg_max_with_value_bf16": ("bfloat16", 16, 700), "arg_max_with_value_copy": ("float", 1, 64)}


def _shape(name, size):
    _, axis, last = _GALLERY[name]
    return (size // (axis * last), axis, last)


def _make_inputs(name):
    dtype = _GALLERY[name][0]

    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.standard_normal(_shape(name, size)).astype(np.float32)
        x[..., ::17] = np.round(x[..., ::17])           # ties: the first occurrence's index
        return {"x": x.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    indice, values = run_arg_max_with_value(device, inputs["x"], 1)
    return {"indice": indice, "values": values}


def _expected(device, inputs):
    indice, values = arg_max_with_value_model(inputs["x"], 1)
    return {"indice": indice, "values": values}


def _rule(name):
    _, axis, last = _GALLERY[name]
    return f"a multiple of {axis * last} elements", lambda n: n > 0 and n % (axis * last) == 0


_SOURCE = "hicann/ops-math@c4193324 experimental/math/arg_max_with_value/op_kernel/arg_max_with_value_nlast.h"
KERNELS = [
    KernelSpec(name, description, _make_inputs(name), _run, _expected, default_size=size, devices=DEVICES,
               size_rule=_rule(name)[0], size_ok=_rule(name)[1], source=_SOURCE)
    for name, size, description in (
        ("arg_max_with_value", 4 * 24 * 1100, "ArgMaxWithValue over dim 1 of (n, 24, 1100) floats (NLAST_OUTPUT: "
         "1024 + 76 column tiles, strided row blocks prefetched into two slots, per row Compare LE, Select of the "
         "index through float lanes, Max)"),
        ("arg_max_with_value_half", 4 * 40 * 600, "ArgMaxWithValue over dim 1 of (n, 40, 600) halves (the native "
         "half reduce: the index a half, Cast CAST_RINT to int32)"),
        ("arg_max_with_value_bf16", 4 * 16 * 700, "ArgMaxWithValue over dim 1 of (n, 16, 700) bfloat16 (rows Cast to "
         "float, the value Cast CAST_RINT back)"),
        ("arg_max_with_value_copy", 3000 * 64, "ArgMaxWithValue over dim 1 of (n, 1, 64) floats (COPY: x copied "
         "through the UB as the values, Duplicate'd zeros as the indices)"))
]
