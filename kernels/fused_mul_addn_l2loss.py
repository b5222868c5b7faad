"""FusedMulAddNL2loss from the CANN math operators, the Ascend 950 (arch35) kernel: y1 = x1 * x3 + x2 element by
element (x3 a one-element tensor broadcast) and y2 = sum(x1**2) / 2 as one value, over float and half (half computed
in float; y2 accumulated in float).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, math/fused_mul_addn_l2loss:
- op_kernel/fused_mul_addn_l2loss.cpp (the entry: AIV only, GET_TILING_DATA_WITH_STRUCT, a TPipe, the kernel class
  over half or float);
- op_kernel/arch35/fused_mul_addn_l2loss.h (`FusedMulAddNL2lossKernel<T>`): coreElements a core, the last core
  tailCoreElements (core starts need not be 32-byte aligned); x3 read once by a one-element GlobalTensor's GetValue
  and cast to float; depth-2 queues x1Que_ / x2Que_ / y1Que_ of ubTileSize elements, float TBufs for the half path,
  a 32-byte sumBuf_ (ReduceSum's dst), a 32-byte accBuf_ (the partial) and a tile-wide reduceTmpBuf_ (ReduceSum's
  sharedTmpBuffer). ComputeTile: DataCopyPad of x1 and x2 with DataCopyExtParams {1, bytes, 0, 0, 0} and
  `DataCopyPadExtParams<T>{false, 0, 0, 0}`, EnQue / DeQue, [Cast CAST_NONE to float], (float) Mul x1 * x1 into the
  y1 buffer, the count-form ReduceSum into sumUb and Add(accUb, accUb, sumUb, 1); then Muls by x3, Add x2,
  [Cast CAST_NONE back], DataCopyPad out. Float: accUb Duplicated to 0 first, Muls by 0.5 after the loop; core 0
  Duplicates sumUb to 0, PipeBarrier<PIPE_ALL>, DataCopyPads one float 0 over y2; SyncAll; PipeBarrier<PIPE_ALL>,
  accUb.GetValue(0) and a scalar `AtomicAdd<float>(y2, partial)`. Half: no cross-core step: after its y1 tiles, core
  0 alone reads all of x1 again (the same copy, Cast, Mul, ReduceSum, Add per tile), Muls 0.5, Cast CAST_NONE of one
  element and a DataCopyPad of 2 bytes;
- op_kernel/arch35/fused_mul_addn_l2loss_tiling_data.h (the struct) and
  op_host/arch35/fused_mul_addn_l2loss_tiling_arch35.cpp (ubTileSize = (UB - 8512) / 28 rounded down to 64; cores =
  totalN / 64 capped by the core count, at least 1; coreElements = totalN / cores, the last core the rest).

Deviations: (1) the core count is the launch's 8 (GetCoreNumAiv would give the device's). (2) The scalar
`AtomicAdd<float>(__gm__ float*, float)` (DK `SIMD-API/基础API/原子操作/AtomicAdd.md`, 950 only) is not offered by
the emulator (nor named in SPEC-2): the port adds the partial, which sits in lane 0 of accUb, by the Memory API's
atomic copy, SetAtomicAdd<float> + DataCopyPad of 4 bytes + SetAtomicNone; it follows the original's
PipeBarrier<PIPE_ALL> (the Muls before it is ordered), and adds the same float to y2 once per core. The emulator
commits atomic copies in block order, so y2 is ((0 + p0) + p1) + ... in float.

Devices: the original is the 950's (arch35; DataCopyPad, SyncAll); the kernel runs there.

Fidelity: BIT-EXACT (Mul, Muls, Add, Cast, ReduceSum, Duplicate, DataCopyPad and the atomic add are BIT-EXACT, SPEC-2
0.3): y1 is numpy's x1 * x3 rounded then + x2 rounded (float; for half the same in float, rounded to half by RNE);
y2 follows the kernel's order: per tile the device's ReduceSum tree over the float squares
(`aj.explain_reduce_order`), added to the partial in float, times 0.5, and the partials added in block order (half:
one core over all tiles, then RNE to half).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                      # deviation (1)
VL = 64
QUEUE_NUM = 3
DOUBLE_BUFFER = 2
FLOAT_BYTES = 4
RESERVED_UB = 8512
TYPE_SIZE = {"float": 4, "half": 2}
_NP = {"float": np.float32, "half": np.float16}

FusedMulAddNL2lossTilingData = np.dtype([("totalElements", np.int64), ("coreElements", np.int64),
                                         ("tailCoreElements", np.int64), ("ubTileSize", np.int64)])


def tiling(device, total):
    """The arch35 tiling: (block dim, the packed FusedMulAddNL2lossTilingData)."""
    ub_avail = aj.get_device(device).ub_bytes - RESERVED_UB
    per_elem = (QUEUE_NUM * DOUBLE_BUFFER + 1) * FLOAT_BYTES
    ub_tile = ub_avail // per_elem // VL * VL
    used = min(total // VL, CORE_NUM)
    used = max(used, 1)
    core_elements = total // used
    tail = total - core_elements * (used - 1)
    t = np.zeros(1, FusedMulAddNL2lossTilingData)
    t["totalElements"], t["coreElements"], t["tailCoreElements"], t["ubTileSize"] = total, core_elements, tail, ub_tile
    return used, t.view(np.uint8).copy()


class FusedMulAddNL2lossKernel:
    """`FusedMulAddNL2lossKernel<T>`."""

    def __init__(self, T):
        self.T = T
        self.is_half = T == "half"

    def Init(self, x1, x2, x3, y1, y2, workspace, tilingData, pipe):
        T = self.T
        self.pipe_, self.tl_ = pipe, tilingData
        self.blockIdx_, self.blockNum_ = aj.GetBlockIdx(), aj.GetBlockNum()
        if self.blockIdx_ < self.blockNum_ - 1:
            self.coreStart_ = self.blockIdx_ * int(tilingData.coreElements)
            self.coreSize_ = int(tilingData.coreElements)
        else:
            self.coreStart_ = (self.blockNum_ - 1) * int(tilingData.coreElements)
            self.coreSize_ = int(tilingData.tailCoreElements)
        self.x1Gm_, self.x2Gm_, self.y1Gm_, self.y2Gm_ = (aj.GlobalTensor() for _ in range(4))
        self.x1Gm_.SetGlobalBuffer(x1)
        self.x2Gm_.SetGlobalBuffer(x2)
        self.y1Gm_.SetGlobalBuffer(y1)
        self.y2Gm_.SetGlobalBuffer(y2)
        x3Gm = aj.GlobalTensor()
        x3Gm.SetGlobalBuffer(x3, 1)
        self.x3Value_ = np.float32(x3Gm.GetValue(0))
        tile = int(tilingData.ubTileSize)
        tileBytes = tile * TYPE_SIZE[T]
        self.x1Que_, self.x2Que_ = aj.TQue(aj.QuePosition.VECIN, 2), aj.TQue(aj.QuePosition.VECIN, 2)
        self.y1Que_ = aj.TQue(aj.QuePosition.VECOUT, 2)
        self.x1F32Buf_, self.x2F32Buf_, self.y1F32Buf_ = (aj.TBuf() for _ in range(3))
        self.sumBuf_, self.accBuf_, self.reduceTmpBuf_ = (aj.TBuf() for _ in range(3))
        self.pipe_.InitBuffer(self.x1Que_, 2, tileBytes)
        self.pipe_.InitBuffer(self.x2Que_, 2, tileBytes)
        self.pipe_.InitBuffer(self.y1Que_, 2, tileBytes)
        if self.is_half:
            self.pipe_.InitBuffer(self.x1F32Buf_, tile * 4)
            self.pipe_.InitBuffer(self.x2F32Buf_, tile * 4)
            self.pipe_.InitBuffer(self.y1F32Buf_, tile * 4)
        self.pipe_.InitBuffer(self.sumBuf_, 32)
        self.pipe_.InitBuffer(self.accBuf_, 32)
        self.pipe_.InitBuffer(self.reduceTmpBuf_, tile * 4)

    def Process(self):
        if self.is_half:
            if self.coreSize_ <= 0:
                return
            self.ComputeY1Fp16()
            if self.blockIdx_ == 0:
                self.ReduceY2Serial()
        else:
            self.ComputeY1AndPartialFp32()
            self.ReduceY2Atomic()

    def ToFp32(self, x1Ub, x2Ub, y1Ub, extent):
        if self.is_half:
            x1f, x2f, y1f = self.x1F32Buf_.Get("float"), self.x2F32Buf_.Get("float"), self.y1F32Buf_.Get("float")
            aj.Cast(x1f, x1Ub, aj.RoundMode.CAST_NONE, extent)
            aj.Cast(x2f, x2Ub, aj.RoundMode.CAST_NONE, extent)
            return x1f, x2f, y1f
        return x1Ub, x2Ub, y1Ub

    def ComputeTile(self, doPartial, extent, offset, accUb, sumUb, tmpUb):
        T = self.T
        x1Ub, x2Ub = self.x1Que_.AllocTensor(T), self.x2Que_.AllocTensor(T)
        cpIn = aj.DataCopyExtParams(1, extent * TYPE_SIZE[T], 0, 0, 0)
        padIn = aj.DataCopyPadExtParams(False, 0, 0, 0)
        aj.DataCopyPad(x1Ub, self.x1Gm_[offset], cpIn, padIn)
        aj.DataCopyPad(x2Ub, self.x2Gm_[offset], cpIn, padIn)
        self.x1Que_.EnQue(x1Ub)
        self.x2Que_.EnQue(x2Ub)
        x1Ub, x2Ub = self.x1Que_.DeQue(T), self.x2Que_.DeQue(T)
        y1Ub = self.y1Que_.AllocTensor(T)
        x1f, x2f, y1f = self.ToFp32(x1Ub, x2Ub, y1Ub, extent)
        if doPartial:                                        # partial += sum(x1**2), the squares in y1f first
            aj.Mul(y1f, x1f, x1f, extent)
            aj.ReduceSum(sumUb, y1f, tmpUb, extent)
            aj.Add(accUb, accUb, sumUb, 1)
        aj.Muls(y1f, x1f, self.x3Value_, extent)
        aj.Add(y1f, y1f, x2f, extent)
        if self.is_half:
            aj.Cast(y1Ub, y1f, aj.RoundMode.CAST_NONE, extent)
        self.y1Que_.EnQue(y1Ub)
        y1Ub = self.y1Que_.DeQue(T)
        aj.DataCopyPad(self.y1Gm_[offset], y1Ub, cpIn)
        self.y1Que_.FreeTensor(y1Ub)
        self.x1Que_.FreeTensor(x1Ub)
        self.x2Que_.FreeTensor(x2Ub)

    def RunTileLoop(self, doPartial, start, size, accUb):
        ubTile = int(self.tl_.ubTileSize)
        fullTiles = size // ubTile
        tailCount = size - fullTiles * ubTile
        totalTiles = fullTiles + (1 if tailCount > 0 else 0)
        sumUb, tmpUb = self.sumBuf_.Get("float"), self.reduceTmpBuf_.Get("float")
        for t in range(totalTiles):
            extent = tailCount if (t == totalTiles - 1 and tailCount > 0) else ubTile
            self.ComputeTile(doPartial, extent, start + t * ubTile, accUb, sumUb, tmpUb)

    def ComputeY1AndPartialFp32(self):
        accUb = self.accBuf_.Get("float")
        aj.Duplicate(accUb, np.float32(0.0), 8)
        if self.coreSize_ > 0:
            self.RunTileLoop(True, self.coreStart_, self.coreSize_, accUb)
        aj.Muls(accUb, accUb, np.float32(0.5), 1)

    def ComputeY1Fp16(self):
        accUb = self.accBuf_.Get("float")                   # a placeholder: doPartial is false
        self.RunTileLoop(False, self.coreStart_, self.coreSize_, accUb)

    def ReduceY2Atomic(self):
        if self.blockIdx_ == 0:
            sumUb = self.sumBuf_.Get("float")
            aj.Duplicate(sumUb, np.float32(0.0), 8)
            aj.PipeBarrier(aj.PIPE_ALL)
            aj.DataCopyPad(self.y2Gm_[0], sumUb, aj.DataCopyExtParams(1, 4, 0, 0, 0))
        aj.SyncAll()
        accUb = self.accBuf_.Get("float")
        aj.PipeBarrier(aj.PIPE_ALL)
        # the original: partial = accUb.GetValue(0); AtomicAdd<float>(y2GmRaw_, partial) -- deviation (2)
        aj.SetAtomicAdd("float")
        aj.DataCopyPad(self.y2Gm_[0], accUb, aj.DataCopyExtParams(1, 4, 0, 0, 0))
        aj.SetAtomicNone()

    def ReduceY2Serial(self):
        T = self.T
        accUb, sumUb = self.accBuf_.Get("float"), self.sumBuf_.Get("float")
        tmpUb, x1f = self.reduceTmpBuf_.Get("float"), self.x1F32Buf_.Get("float")
        sqBuf = self.y1F32Buf_.Get("float")
        aj.Duplicate(accUb, np.float32(0.0), 8)
        totalN, ubTile = int(self.tl_.totalElements), int(self.tl_.ubTileSize)
        fullTiles = totalN // ubTile
        tailCount = totalN - fullTiles * ubTile
        totalTiles = fullTiles + (1 if tailCount > 0 else 0)
        for t in range(totalTiles):
            extent = tailCount if (t == totalTiles - 1 and tailCount > 0) else ubTile
            x1Ub = self.x1Que_.AllocTensor(T)
            aj.DataCopyPad(x1Ub, self.x1Gm_[t * ubTile], aj.DataCopyExtParams(1, extent * TYPE_SIZE[T], 0, 0, 0),
                           aj.DataCopyPadExtParams(False, 0, 0, 0))
            self.x1Que_.EnQue(x1Ub)
            x1Ub = self.x1Que_.DeQue(T)
            aj.Cast(x1f, x1Ub, aj.RoundMode.CAST_NONE, extent)
            aj.Mul(sqBuf, x1f, x1f, extent)
            aj.ReduceSum(sumUb, sqBuf, tmpUb, extent)
            aj.Add(accUb, accUb, sumUb, 1)
            self.x1Que_.FreeTensor(x1Ub)
        aj.Muls(accUb, accUb, np.float32(0.5), 1)
        y2Ub = self.y1Que_.AllocTensor(T)
        aj.Cast(y2Ub, accUb, aj.RoundMode.CAST_NONE, 1)
        self.y1Que_.EnQue(y2Ub)
        y2Ub = self.y1Que_.DeQue(T)
        aj.DataCopyPad(self.y2Gm_[0], y2Ub, aj.DataCopyExtParams(1, TYPE_SIZE[T], 0, 0, 0))
        self.y1Que_.FreeTensor(y2Ub)


aj.REGISTER_TILING_DEFAULT(FusedMulAddNL2lossTilingData)


def fused_mul_addn_l2loss(x1, x2, x3, y1, y2, workspace, tiling_bytes, DTYPE_X1):
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(FusedMulAddNL2lossTilingData, tiling_bytes)
    pipe = aj.TPipe()
    op = FusedMulAddNL2lossKernel(DTYPE_X1)
    op.Init(x1, x2, x3, y1, y2, workspace, tilingData, pipe)
    op.Process()


def _padded(a):
    n = -(-a.size * a.itemsize // 32) * 32 // a.itemsize
    out = np.zeros(n, a.dtype)
    out[:a.size] = a
    return out


def run_fused_mul_addn_l2loss(device, x1, x2, x3):
    dtype = "half" if x1.dtype == np.float16 else "float"
    block_dim, tiling_bytes = tiling(device, x1.size)
    gx1, gx2, gx3 = _padded(x1), _padded(x2), _padded(np.asarray(x3, x1.dtype)[:1])
    y1, y2 = np.zeros_like(gx1), np.full(32 // x1.itemsize, 7, x1.dtype)    # y2 starts as garbage
    aj.launch(fused_mul_addn_l2loss, block_dim, device, gx1, gx2, gx3, y1, y2, np.zeros(8, np.uint8), tiling_bytes,
              dtype)
    return {"y1": y1[:x1.size], "y2": y2[:1]}


def fused_mul_addn_l2loss_model(device, x1, x2, x3):
    """y1 in float (two roundings), y2 in the kernel's order (docstring)."""
    f1, f2, f3 = x1.astype(np.float32), x2.astype(np.float32), np.float32(np.asarray(x3)[0])
    y1 = (f1 * f3 + f2).astype(x1.dtype)
    block_num, raw = tiling(device, x1.size)
    t = np.frombuffer(raw.tobytes(), FusedMulAddNL2lossTilingData)[0]
    tile, sq = int(t["ubTileSize"]), f1 * f1

    def partial(chunk):
        acc = np.float32(0.0)
        for start in range(0, chunk.size, tile):
            part = chunk[start:start + tile]
            tree = aj.explain_reduce_order(device, "count", "float", count=part.size)
            acc = np.float32(acc + np.float32(tree.evaluate_batch(part[None, :])[0]))
        return np.float32(acc * np.float32(0.5))

    if x1.dtype == np.float16:
        y2 = partial(sq)
    else:
        core = int(t["coreElements"])
        y2 = np.float32(0.0)
        for b in range(block_num):
            size = core if b < block_num - 1 else int(t["tailCoreElements"])
            y2 = np.float32(y2 + partial(sq[b * core:b * core + size]))
    return {"y1": y1, "y2": np.array([y2], np.float32).astype(x1.dtype)}


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        scale = 1.0 if dtype == "float" else 0.5
        x1 = (rng.standard_normal(size) * scale).astype(np.float32).astype(_NP[dtype])
        x2 = (rng.standard_normal(size) * scale).astype(np.float32).astype(_NP[dtype])
        return {"x1": x1, "x2": x2, "x3": np.array([0.75], _NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return run_fused_mul_addn_l2loss(device, inputs["x1"], inputs["x2"], inputs["x3"])


def _expected(device, inputs):
    return fused_mul_addn_l2loss_model(device, inputs["x1"], inputs["x2"], inputs["x3"])


_SOURCE = "hicann/ops-math@c4193324 math/fused_mul_addn_l2loss/op_kernel/arch35/fused_mul_addn_l2loss.h"
KERNELS = [
    KernelSpec("fused_mul_addn_l2loss", "FusedMulAddNL2loss over floats, 950: y1 = x1 * x3 + x2 by tiles on 8 cores "
               "(DataCopyPad from unaligned core starts), y2 = sum(x1**2) / 2 by per-tile ReduceSum into a per-core "
               "partial, y2 zeroed by core 0 before SyncAll, the partials added atomically",
               _make_inputs("float"), _run, _expected, default_size=100003, devices=("ascend950",),
               source=_SOURCE),
    KernelSpec("fused_mul_addn_l2loss_half", "FusedMulAddNL2loss over halves: y1 in float lanes (Cast CAST_NONE both "
               "ways); y2 by core 0 alone re-reading all of x1, Cast to half of one element",
               _make_inputs("half"), _run, _expected, default_size=50001, devices=("ascend950",),
               size_rule="1 to 200000 elements (the half sum of about 0.125 an element stays below 65504)",
               size_ok=lambda n: 0 < n <= 200000, source=_SOURCE),
]
