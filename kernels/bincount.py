"""Bincount from the CANN math operators: bins[v] = the number (or the weight sum) of the elements of a non-negative
integer array equal to v, for v < outLength; a per-core private histogram built by scalar GetValue / SetValue
loops, merged by core 0 through a GM workspace after SyncAll, or scattered straight into GM when the histogram does
not fit the UB.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/bincount/op_kernel/bincount.h
(`NsBincount::Bincount<TYPE_SELF, TYPE_OUT>`: the elements split evenly over the cores, the first totalNum % cores
one more; the UB path (`largeL` 0): a depth-2 VECIN queue for the array's tiles and one for the weights' (of
TYPE_OUT), TBufs for the histogram, a second histogram, a 4-slot int64 minimum and every core's minimums; the
histogram cleared by SetValue, each full tile of 4096 copied in (DataCopy, EnQue, DeQue) and scattered element by
element (GetValue, then hist.SetValue(v, hist.GetValue(v) + w) for 0 <= v < outLength, tracking the minimum), the
rest of the core's elements read from GM by GetValue; one core: ascendc_assert that no element is negative, the
histogram's whole 32-byte blocks by DataCopy to GM and the rest by GM SetValue; several cores: the minimum slot and
the histogram DataCopy'd to the workspace, SyncAll, and core 0 alone reads every minimum (DataCopy in, GetValue),
asserts, adds the other cores' histograms (DataCopy in, GetValue / SetValue) and writes the bins by GM SetValue;
the GM path (`largeL` 1): core 0 alone finds the minimum by GM GetValue, asserts, clears the bins as int32 words
(Duplicate 0 over a 2048-word TBuf, DataCopy of whole 8-word multiples, PipeBarrier<PIPE_ALL>, GM SetValue for the
rest, PipeBarrier<PIPE_ALL>) and adds each element's weight into GM by GetValue / SetValue) and bincount.cpp
(REGISTER_TILING_DEFAULT, GET_TILING_DATA_WITH_STRUCT; the `size` input unused), with the host tiling of
experimental/math/bincount/op_host/bincount_tiling.cpp (`BincountTilingFunc`: cores min(coreNum, totalNum);
`largeL` when the two queues' 4096-element tiles, two histograms and the minimum slots exceed the UB; one core for
at most 4096 elements or more than 2048 bins; tiles of 4096; the workspace cores x 32 + cores x (bins + 32) x 8 bytes
plus the library's). The workspace is used from its first byte, as the original does (it never calls
GetUserWorkspace, so its slots lie in what the framework reserves for the library: harmless here, nothing else uses
it).

Deviations (synchronisation only; `ORIGINAL_SYNC = True` leaves them out and the sanitizer reports the races):
the original orders none of its scalar-unit UB accesses against the copies: the histogram and minimum slot written by
SetValue and then DataCopy'd out (S -> MTE3), the minimums and other cores' histograms DataCopy'd in and read by
GetValue (MTE2 -> S), and the GM path's zeroing Duplicate read by DataCopy (V -> MTE3). The port adds a SetFlag / WaitFlag pair at each, with the id fetched from
the pipe (`GetTPipePtr()->FetchEventID`). The core count is the launch's 8 (GetCoreNum would give the device's).
The double output (float accumulation spliced into float64 bits) is not ported: its bit splicing is scalar C++.

Devices: the original is built for the A2 (ascend910b); the hard SyncAll is offered on the 950, A3 and A2, so the
port runs there (the host's GetLibApiWorkSpaceSize leaves out the 310B as well).

Fidelity: BIT-EXACT (DataCopy, Duplicate and scalar float / integer arithmetic in order): checked bit for bit
against numpy: per core, its elements' weights added one by one in float32 (or counted in int32) into a zeroed
histogram, core 0's histogram plus the others' in core order (the GM path: one histogram over all elements in
order).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BINCOUNT_BLOCK_BYTES = 32
MIN_SLOT = 4
BUFFER_NUM = 2
BINCOUNT_ZTILE_W = 2048
BINCOUNT_BLOCK_WORDS = 8
BINCOUNT_TILE_DATA_NUM = 4096
BINCOUNT_SINGLE_CORE_MAX = 4096
BINCOUNT_MULTICORE_MAX_OUT = 2048
BIG = 1 << 62
CORE_NUM = 8
ORIGINAL_SYNC = False
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
SIZE = {"int8": 1, "uint8": 1, "int16": 2, "int32": 4, "float": 4, "int64": 8}
_NP = {"int32": np.int32, "int64": np.int64, "float": np.float32}

BincountTilingData = np.dtype([("totalNum", np.uint64), ("outLength", np.uint64), ("coreNum", np.uint64),
                               ("bigCoreNum", np.uint64), ("tileDataNum", np.uint64), ("hasWeights", np.uint32),
                               ("largeL", np.uint32)], align=True)


def tiling(device, total_num, out_length, self_dtype, bins_dtype, has_weights):
    """BincountTilingFunc: (block dim, the packed BincountTilingData, workspace bytes)."""
    sys_workspace = aj.GetLibApiWorkSpaceSize(device)
    core_num = CORE_NUM
    block_size = 32
    if total_num > 0 and core_num > total_num:
        core_num = total_num
    # DecideLargeL
    self_size, acc_size = SIZE[self_dtype], SIZE[bins_dtype]
    ub_size = aj.get_device(device).ub_bytes
    aligned_hist = (out_length * acc_size + BINCOUNT_BLOCK_BYTES - 1) // BINCOUNT_BLOCK_BYTES * BINCOUNT_BLOCK_BYTES
    ub_need = (BUFFER_NUM * BINCOUNT_TILE_DATA_NUM * self_size
               + (BUFFER_NUM * BINCOUNT_TILE_DATA_NUM * acc_size if has_weights else 0)
               + 2 * aligned_hist + MIN_SLOT * 8 + core_num * MIN_SLOT * 8)
    large_l = ub_size > 0 and ub_need > ub_size
    if not large_l and total_num > 0 and (total_num <= BINCOUNT_SINGLE_CORE_MAX
                                          or out_length > BINCOUNT_MULTICORE_MAX_OUT):
        core_num = 1
    t = np.zeros(1, BincountTilingData)
    for name, value in (("totalNum", total_num), ("outLength", out_length), ("coreNum", core_num),
                        ("bigCoreNum", total_num % core_num if core_num > 0 else 0), ("tileDataNum", 4096),
                        ("hasWeights", int(has_weights)), ("largeL", int(large_l))):
        t[name] = value
    min_ws = core_num * block_size
    hist_ws = 0 if large_l else core_num * (out_length + block_size) * 8
    return core_num, t.view(np.uint8).copy(), min_ws + hist_ws + sys_workspace


def _sync(event):
    """Deviation (docstring): the order the original leaves out, with an id fetched from the pipe."""
    if ORIGINAL_SYNC:
        return
    event_id = aj.GetTPipePtr().FetchEventID(event)
    aj.SetFlag(event_id, event=event)
    aj.WaitFlag(event_id, event=event)


class Bincount:
    def __init__(self, TYPE_SELF, TYPE_OUT):
        self.TYPE_SELF, self.TYPE_OUT = TYPE_SELF, TYPE_OUT
        self.TYPE_ACC = self.TYPE_WEIGHT = TYPE_OUT
        self.acc = _NP[TYPE_OUT]

    def Init(self, self_, weights, out, workspace, t):
        self.blockIdx_ = aj.GetBlockIdx()
        self.totalNum_, self.outLength_, self.coreNum_ = int(t.totalNum), int(t.outLength), int(t.coreNum)
        self.tileDataNum_ = int(t.tileDataNum) if t.tileDataNum > 0 else 4096
        self.hasWeights_ = int(t.hasWeights)
        base = self.totalNum_ // self.coreNum_ if self.coreNum_ > 0 else self.totalNum_
        rem = self.totalNum_ % self.coreNum_ if self.coreNum_ > 0 else 0
        if self.blockIdx_ < rem:
            self.coreData_ = base + 1
            self.coreStart_ = self.blockIdx_ * (base + 1)
        else:
            self.coreData_ = base
            self.coreStart_ = rem * (base + 1) + (self.blockIdx_ - rem) * base
        window = self.coreData_ if self.coreData_ > 0 else 1
        self.selfGm_ = aj.GlobalTensor(dtype=self.TYPE_SELF)
        self.selfGm_.SetGlobalBuffer(self_[self.coreStart_:], window)
        self.weightGm_ = aj.GlobalTensor(dtype=self.TYPE_WEIGHT)
        if self.hasWeights_:
            self.weightGm_.SetGlobalBuffer(weights[self.coreStart_:], window)
        self.outGm_ = aj.GlobalTensor(dtype=self.TYPE_OUT)
        self.outGm_.SetGlobalBuffer(out, self.outLength_)
        self.minWsGm_ = aj.GlobalTensor(dtype="int64")
        self.minWsGm_.SetGlobalBuffer(workspace, self.coreNum_ * MIN_SLOT)
        self.largeL_ = int(t.largeL)
        self.pipe_ = aj.TPipe()
        if self.largeL_:
            total = self.totalNum_ if self.totalNum_ > 0 else 1
            self.selfFullGm_ = aj.GlobalTensor(dtype=self.TYPE_SELF)
            self.selfFullGm_.SetGlobalBuffer(self_, total)
            self.weightFullGm_ = aj.GlobalTensor(dtype=self.TYPE_WEIGHT)
            if self.hasWeights_:
                self.weightFullGm_.SetGlobalBuffer(weights, total)
            self.outWordGm_ = aj.GlobalTensor(dtype="int32")
            self.outWordGm_.SetGlobalBuffer(out, self.outLength_ * SIZE[self.TYPE_OUT] // 4)
            self.zeroBuf_ = aj.TBuf(aj.TPosition.VECCALC)
            self.pipe_.InitBuffer(self.zeroBuf_, BINCOUNT_ZTILE_W * 4)
        else:
            self.histWsGm_ = aj.GlobalTensor(dtype=self.TYPE_ACC)
            self.histWsGm_.SetGlobalBuffer(workspace[self.coreNum_ * MIN_SLOT * 8:], self.coreNum_ * self.AlignedLen())
            self.inQueueSelf_ = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
            self.inQueueW_ = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
            self.histBuf_, self.tmpHistBuf_, self.minBlkBuf_, self.minAllBuf_ = \
                (aj.TBuf(aj.TPosition.VECCALC) for _ in range(4))
            self.pipe_.InitBuffer(self.inQueueSelf_, BUFFER_NUM, self.tileDataNum_ * SIZE[self.TYPE_SELF])
            if self.hasWeights_:
                self.pipe_.InitBuffer(self.inQueueW_, BUFFER_NUM, self.tileDataNum_ * SIZE[self.TYPE_WEIGHT])
            self.pipe_.InitBuffer(self.histBuf_, self.AlignedLen() * SIZE[self.TYPE_ACC])
            self.pipe_.InitBuffer(self.tmpHistBuf_, self.AlignedLen() * SIZE[self.TYPE_ACC])
            self.pipe_.InitBuffer(self.minBlkBuf_, MIN_SLOT * 8)
            self.pipe_.InitBuffer(self.minAllBuf_, self.coreNum_ * MIN_SLOT * 8)

    def AlignedLen(self):
        size = SIZE[self.TYPE_ACC]
        return (self.outLength_ * size + BINCOUNT_BLOCK_BYTES - 1) // BINCOUNT_BLOCK_BYTES * BINCOUNT_BLOCK_BYTES \
            // size

    def ProcessLargeL(self):
        if self.blockIdx_ != 0:
            return                      # core 0 alone (the others never reach a SyncAll)
        gMin = BIG
        for i in range(self.totalNum_):
            v = int(self.selfFullGm_.GetValue(i))
            if v < gMin:
                gMin = v
        if gMin == BIG:
            gMin = 0
        aj.ascendc_assert(gMin >= 0, "BinCount: input 'self' contains negative value, which is not supported "
                                     "(non-negative integers required).\n")
        totalWords = self.outLength_ * SIZE[self.TYPE_OUT] // 4
        zt = self.zeroBuf_.Get("int32")
        aj.Duplicate(zt, np.int32(0), BINCOUNT_ZTILE_W)
        _sync(aj.HardEvent.V_MTE3)
        pos = 0
        while pos + BINCOUNT_BLOCK_WORDS <= totalWords:
            chunk = min(totalWords - pos, BINCOUNT_ZTILE_W)
            chunk = chunk // BINCOUNT_BLOCK_WORDS * BINCOUNT_BLOCK_WORDS
            if chunk == 0:
                break
            aj.DataCopy(self.outWordGm_[pos], zt, chunk)
            pos += chunk
        aj.PipeBarrier(aj.PIPE_ALL)
        for p in range(pos, totalWords):
            self.outWordGm_.SetValue(p, np.int32(0))
        aj.PipeBarrier(aj.PIPE_ALL)
        for i in range(self.totalNum_):
            idx = int(self.selfFullGm_.GetValue(i))
            if idx < 0 or idx >= self.outLength_:
                continue
            w = self.acc(self.weightFullGm_.GetValue(i)) if self.hasWeights_ else self.acc(1)
            self.outGm_.SetValue(idx, self.acc(self.acc(self.outGm_.GetValue(idx)) + w))

    def Process(self):
        if self.largeL_:
            self.ProcessLargeL()
            return
        alignedLen = self.AlignedLen()
        hist = self.histBuf_.Get(self.TYPE_ACC)
        localMin = self.ScatterHist(hist, alignedLen)
        if self.coreNum_ <= 1:
            aj.ascendc_assert(localMin >= 0, "BinCount: input 'self' contains negative value, which is not "
                                             "supported (non-negative integers required).\n")
            self.SingleWrite(hist)
            return
        self.MergeMultiCore(hist, localMin, alignedLen)

    def SingleWrite(self, hist):
        blockElems = BINCOUNT_BLOCK_BYTES // SIZE[self.TYPE_OUT]
        vecCount = self.outLength_ // blockElems * blockElems
        if vecCount > 0:
            _sync(aj.HardEvent.S_MTE3)
            aj.DataCopy(self.outGm_, hist, vecCount)
        for k in range(vecCount, self.outLength_):
            self.outGm_.SetValue(k, self.acc(hist.GetValue(k)))

    def ScatterHist(self, hist, alignedLen):
        fullTiles = self.coreData_ // self.tileDataNum_ if self.tileDataNum_ > 0 else 0
        tailStart = fullTiles * self.tileDataNum_
        zero, one = self.acc(0), self.acc(1)
        for k in range(alignedLen):
            hist.SetValue(k, zero)
        self.localMin = BIG
        for tIdx in range(fullTiles):
            s = self.inQueueSelf_.AllocTensor(self.TYPE_SELF)
            aj.DataCopy(s, self.selfGm_[tIdx * self.tileDataNum_], self.tileDataNum_)
            self.inQueueSelf_.EnQue(s)
            wt = None
            if self.hasWeights_:
                wt = self.inQueueW_.AllocTensor(self.TYPE_WEIGHT)
                aj.DataCopy(wt, self.weightGm_[tIdx * self.tileDataNum_], self.tileDataNum_)
                self.inQueueW_.EnQue(wt)
                wt = self.inQueueW_.DeQue(self.TYPE_WEIGHT)
            s = self.inQueueSelf_.DeQue(self.TYPE_SELF)
            for k in range(self.tileDataNum_):
                self.AccumOne(hist, int(s.GetValue(k)), self.acc(wt.GetValue(k)) if self.hasWeights_ else one)
            self.inQueueSelf_.FreeTensor(s)
            if self.hasWeights_:
                self.inQueueW_.FreeTensor(wt)
        for i in range(tailStart, self.coreData_):
            self.AccumOne(hist, int(self.selfGm_.GetValue(i)),
                          self.acc(self.weightGm_.GetValue(i)) if self.hasWeights_ else one)
        return 0 if self.localMin == BIG else self.localMin

    def AccumOne(self, hist, v, w):
        """localMin is an out-parameter in C++ (int64_t&); a member here."""
        if v < self.localMin:
            self.localMin = v
        if v < 0 or v >= self.outLength_:
            return
        hist.SetValue(v, self.acc(hist.GetValue(v) + w))

    def MergeMultiCore(self, hist, localMin, alignedLen):
        minBlk = self.minBlkBuf_.Get("int64")
        for j in range(MIN_SLOT):
            minBlk.SetValue(j, np.int64(BIG))
        minBlk.SetValue(0, np.int64(localMin))
        _sync(aj.HardEvent.S_MTE3)
        aj.DataCopy(self.minWsGm_[self.blockIdx_ * MIN_SLOT], minBlk, MIN_SLOT)
        aj.DataCopy(self.histWsGm_[self.blockIdx_ * alignedLen], hist, alignedLen)
        aj.SyncAll()
        if self.blockIdx_ != 0:
            return
        minAll = self.minAllBuf_.Get("int64")
        aj.DataCopy(minAll, self.minWsGm_, self.coreNum_ * MIN_SLOT)
        _sync(aj.HardEvent.MTE2_S)
        gMin = BIG
        for c in range(self.coreNum_):
            m = int(minAll.GetValue(c * MIN_SLOT))
            if m < gMin:
                gMin = m
        aj.ascendc_assert(gMin == BIG or gMin >= 0, "BinCount: input 'self' contains negative value, which is not "
                                                    "supported (non-negative integers required).\n")
        tmp = self.tmpHistBuf_.Get(self.TYPE_ACC)
        for c in range(1, self.coreNum_):
            aj.DataCopy(tmp, self.histWsGm_[c * alignedLen], alignedLen)
            _sync(aj.HardEvent.MTE2_S)
            for k in range(self.outLength_):
                hist.SetValue(k, self.acc(hist.GetValue(k) + tmp.GetValue(k)))
        for k in range(self.outLength_):
            self.outGm_.SetValue(k, self.acc(hist.GetValue(k)))


aj.REGISTER_TILING_DEFAULT(BincountTilingData)


def bincount(array, size, weights, bins, workspace, tiling, DTYPE_ARRAY, DTYPE_BINS):
    """The kernel entry (schMode unused); DTYPE_ARRAY / DTYPE_BINS are the build's types, macros in C++."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(BincountTilingData, tiling)
    op = Bincount(DTYPE_ARRAY, DTYPE_BINS)
    op.Init(array, weights, bins, workspace, tilingData)
    op.Process()


class Variant:
    def __init__(self, self_dtype, bins_dtype, has_weights, out_length):
        self.self_dtype, self.bins_dtype, self.has_weights, self.out_length = \
            self_dtype, bins_dtype, has_weights, out_length

    def make_inputs(self, size, seed):
        rng = np.random.default_rng(seed)
        inputs = {"array": rng.integers(0, self.out_length + 7, size).astype(_NP[self.self_dtype])}
        if self.has_weights:
            inputs["weights"] = rng.uniform(0.0, 2.0, size).astype(_NP[self.bins_dtype])
        return inputs

    def run(self, device, inputs):
        array = inputs["array"]
        n = array.size
        block_dim, tiling_bytes, ws_bytes = tiling(device, n, self.out_length, self.self_dtype, self.bins_dtype,
                                                   self.has_weights)
        pad = lambda a: np.concatenate([a, np.zeros(-(-a.nbytes // 32) * 32 // a.itemsize - a.size, a.dtype)])
        gm_array = pad(array)
        gm_weights = pad(inputs["weights"]) if self.has_weights else np.zeros(8, _NP[self.bins_dtype])
        dt = _NP[self.bins_dtype]
        gm_bins = np.full(-(-self.out_length * dt().itemsize // 32) * 32 // dt().itemsize, 7, dt)  # not cleared
        size = np.array([self.out_length], np.int32)
        workspace = np.zeros(ws_bytes, np.uint8)
        aj.launch(bincount, block_dim, device, gm_array, size, gm_weights, gm_bins, workspace, tiling_bytes,
                  self.self_dtype, self.bins_dtype)
        return {"bins": gm_bins[:self.out_length]}

    def expected(self, device, inputs):
        array = inputs["array"]
        n, acc = array.size, _NP[self.bins_dtype]
        block_dim, tiling_bytes, _ = tiling(device, n, self.out_length, self.self_dtype, self.bins_dtype,
                                            self.has_weights)
        t = np.frombuffer(tiling_bytes.tobytes(), BincountTilingData)[0]
        weights = inputs["weights"] if self.has_weights else np.ones(n, acc)
        cores = 1 if t["largeL"] else int(t["coreNum"])
        base, rem = divmod(n, cores)
        hists, start = [], 0
        for c in range(cores):
            count = base + (c < rem)
            h = np.zeros(self.out_length, acc)
            for v, w in zip(array[start:start + count].tolist(), weights[start:start + count]):
                if 0 <= v < self.out_length:
                    h[v] = acc(h[v] + w)
            hists.append(h)
            start += count
        total = hists[0]
        for h in hists[1:]:
            total = (total + h).astype(acc)
        return {"bins": total}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/bincount/op_kernel/bincount.h"
_MULTI = Variant("int32", "float", True, 203)
_SINGLE = Variant("int64", "int32", False, 3003)
_LARGE = Variant("int32", "float", True, 40003)
KERNELS = [
    KernelSpec("bincount", "Bincount of int32 with float weights into 203 float bins: per-core UB histograms by "
               "GetValue / SetValue (4096-element tiles through depth-2 queues, the rest from GM), a GM workspace, "
               "SyncAll, core 0 merging (8 cores above 4096 elements)", _MULTI.make_inputs, _MULTI.run,
               _MULTI.expected, default_size=40009, devices=DEVICES, source=_SOURCE),
    KernelSpec("bincount_int64", "Bincount of int64 counted into 3003 int32 bins on one core (more than 2048 bins): "
               "the histogram's whole blocks DataCopy'd out, the last 3 bins by GM SetValue", _SINGLE.make_inputs,
               _SINGLE.run, _SINGLE.expected, default_size=10007, devices=DEVICES, source=_SOURCE),
    KernelSpec("bincount_large_bins", "Bincount into 40003 float bins (the histograms do not fit the UB): core 0 "
               "clears GM as int32 words (Duplicate, DataCopy, GM SetValue) and scatters the weights into GM by "
               "GetValue / SetValue", _LARGE.make_inputs, _LARGE.run, _LARGE.expected, default_size=5003,
               devices=DEVICES, source=_SOURCE),
]
