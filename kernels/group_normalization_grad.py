"""GroupNormalizationGrad from the CANN NN operators, experimental: for each (n, c) plane of H x W elements (a
"group" of the operator), with its saved mean and rstd and a gamma of x's shape,
x_hat = (x - mean) * rstd, s1 = sum(dy * gamma), s2 = sum(dy * gamma * x_hat) and
dx = rstd / M * gamma * (M * dy - s1 - x_hat * s2), in float over float, half and bfloat16 inputs.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/norm/group_normalization_grad:
- op_kernel/group_normalization_grad.cpp (REGISTER_TILING_DEFAULT, GET_TILING_DATA_WITH_STRUCT, one class per
  DTYPE_X);
- op_kernel/group_normalization_grad.h (`KernelGroupNormalizationGrad<TYPE_X>`): groups over the cores, the first
  tailBlockNum one more; per group ReadScalar of mean and rstd (GM GetValue; bfloat16 by a one-element DataCopyPad
  into scalarBuf, PipeBarrier<PIPE_ALL>, a one-element Cast and GetValue), then two passes over the group's tiles
  (x, dy and gamma by DataCopyPad with DataCopyPadExtParams{true, 0, 0, 0} into three depth-2 queues, widened by
  Adds 0 (float) or Cast CAST_NONE): pass 1 Adds -mean, Muls rstd, Mul dy * gamma, count-form ReduceSum into
  scalarTensor and a scalar float accumulation of its GetValue(0), Mul by x_hat, ReduceSum, accumulation; pass 2
  Muls M, Adds -s1, Muls s2, Sub, Mul gamma, Muls rstd / M (a float product on the scalar unit), back by Adds 0
  (float) or Cast CAST_ROUND, DataCopyPad out;
- op_host/group_normalization_grad_tiling.cpp (tiles of (UB - 32) / (4 queues x 2 x size + 9 floats x 4) elements
  rounded down to 32 bytes, at most the group; tailDataNum; coreNum = min(cores, N x C), big and small cores).

Deviations: (1) the original reads ReduceSum's result (scalarTensor.GetValue(0)) and the bfloat16 ReadScalar's Cast
result after only PipeBarrier<PIPE_V> / nothing (V -> S), and the bfloat16 ReadScalar's DataCopyPad overwrites the
bytes the previous one's Cast read (V -> MTE2): races the sanitizer reports (ORIGINAL_SYNC = True runs the
original's form, tested); the port adds a FetchEventID'd V_S pair before each of those GetValues and a V_MTE2 pair
before that DataCopyPad. (2) The core count
is the launch's 8 (GetCoreNum would give the device's). (3) GM is padded to 32 bytes, as device allocations are.
(4) The bfloat16 ReadScalar copies the value into scalarBuf and Casts it to float in place (dst and src both at the
buffer's start): the emulator refuses that Cast (OverlapError: SPEC-2 D34, "Cast between types of different sizes
allows no overlap at all", from the Cast page), so the port copies the bfloat16 into a 32-byte TBuf of its own
(ORIGINAL_INPLACE_CAST = True runs the original's form, tested).

Devices: the operator's config lists the A2 (ascend910b); the kernel has no device branches, so it also runs on the
A3 and the 950 (DataCopyPad, count-form ReduceSum, bfloat16 Casts). The count-form ReduceSum tree of the 950
differs from the A2 / A3's for counts over 64 (aj.explain_reduce_order "count"), so the two families' outputs
differ in the last bits (tested). Not the 310B (no FetchEventID, docs/decisions.md "Event ids").

Fidelity: BIT-EXACT (Adds, Muls, Mul, Sub, ReduceSum, Cast, DataCopyPad; the scalar unit's float adds and product
are IEEE float32). The model replays every float32 step with the device's ReduceSum tree and CAST_ROUND through
the package's reference conversion (ascend_jit.reference.convert).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
BLOCK_SIZE = 32
NUM_QUEUES, NUM_TEMP_FLOAT_BUFS, SCALAR_BYTES = 4, 9, 32
CORE_NUM = 8                                   # deviation (2)
DEVICES = ("atlas-a2", "atlas-a3", "ascend950")
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
ORIGINAL_SYNC = False                          # True: the original's V -> S races (deviation 1)
ORIGINAL_INPLACE_CAST = False                  # True: the original's in-place bfloat16 -> float Cast (deviation 4)

GroupNormalizationGradTilingData = np.dtype(
    [(name, np.uint64) for name in ("groupElemNum", "groupCount", "smallCoreGroupNum", "bigCoreGroupNum",
                                    "finalGroupTileNum", "tileDataNum", "alignedTileDataNum", "tailDataNum",
                                    "tailBlockNum")] + [("groupElemNumFloat", np.float32),
                                                        ("groupElemNumReciprocal", np.float32)])


def tiling(device, shape, dtype):
    """GroupNormalizationGradTilingFunc: (block dim, the packed tiling data)."""
    ub = aj.get_device(device).ub_bytes
    group_count = shape[0] * shape[1]
    elems = int(np.prod(shape[2:], dtype=np.int64))
    size = TYPE_SIZE[dtype]
    per_elem = NUM_QUEUES * BUFFER_NUM * size + NUM_TEMP_FLOAT_BUFS * 4
    usable = ub - SCALAR_BYTES if ub > SCALAR_BYTES else 1
    align = (BLOCK_SIZE + size - 1) // size
    max_tdn = usable // per_elem // align * align or align
    tdn = min(max_tdn, elems)
    aligned = (tdn * size + BLOCK_SIZE - 1) // BLOCK_SIZE * BLOCK_SIZE // size or align
    cores = max(min(CORE_NUM, group_count), 1)
    seg = elems // tdn
    t = np.zeros(1, GroupNormalizationGradTilingData)
    for name, value in (("groupElemNum", elems), ("groupCount", group_count),
                        ("smallCoreGroupNum", group_count // cores), ("bigCoreGroupNum", group_count // cores + 1),
                        ("finalGroupTileNum", seg if elems % tdn == 0 else seg + 1), ("tileDataNum", tdn),
                        ("alignedTileDataNum", aligned), ("tailDataNum", elems - seg * tdn or tdn),
                        ("tailBlockNum", group_count % cores)):
        t[name] = value
    t["groupElemNumFloat"] = np.float32(elems)
    t["groupElemNumReciprocal"] = np.float32(1.0) / np.float32(elems)
    return cores, t.view(np.uint8).copy()


def _flag(event):
    """Deviation (1): a FetchEventID'd SetFlag / WaitFlag pair the original lacks."""
    if ORIGINAL_SYNC:
        return
    e = aj.GetTPipePtr().FetchEventID(event)
    aj.SetFlag(e, event=event)
    aj.WaitFlag(e, event=event)


def _v_s():
    _flag(aj.HardEvent.V_S)


class KernelGroupNormalizationGrad:
    def __init__(self, T):
        self.T = T

    def Init(self, x, dy, gamma, mean, rstd, dx, groupElemNum, groupCount, smallCoreGroupNum, bigCoreGroupNum,
             finalGroupTileNum, tileDataNum, alignedTileDataNum, tailDataNum, tailBlockNum, groupElemNumFloat,
             groupElemNumReciprocal):
        T = self.T
        self.groupElemNum, self.groupCount = groupElemNum, groupCount
        self.tileDataNum, self.alignedTileDataNum, self.tailDataNum = tileDataNum, alignedTileDataNum, tailDataNum
        self.groupElemNumFloat = np.float32(groupElemNumFloat)
        self.groupElemNumReciprocal = np.float32(groupElemNumReciprocal)
        blockIdx = aj.GetBlockIdx()
        groupOffsetVal = bigCoreGroupNum * blockIdx
        if blockIdx < tailBlockNum:
            self.coreGroupNum = bigCoreGroupNum
        else:
            self.coreGroupNum = smallCoreGroupNum
            groupOffsetVal -= (bigCoreGroupNum - smallCoreGroupNum) * (blockIdx - tailBlockNum)
        self.groupOffset = groupOffsetVal
        self.groupTileNum = finalGroupTileNum
        total = groupCount * groupElemNum
        self.xGm, self.dyGm, self.gammaGm, self.meanGm, self.rstdGm, self.dxGm = (aj.GlobalTensor() for _ in range(6))
        self.xGm.SetGlobalBuffer(x, total)
        self.dyGm.SetGlobalBuffer(dy, total)
        self.gammaGm.SetGlobalBuffer(gamma, total)
        self.meanGm.SetGlobalBuffer(mean, groupCount)
        self.rstdGm.SetGlobalBuffer(rstd, groupCount)
        self.dxGm.SetGlobalBuffer(dx, total)
        self.pipe = aj.TPipe()
        self.inQueueX, self.inQueueDY, self.inQueueGamma = (aj.TQue(aj.TPosition.VECIN, BUFFER_NUM) for _ in range(3))
        self.outQueueDX = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        size = TYPE_SIZE[T]
        for q in (self.inQueueX, self.inQueueDY, self.inQueueGamma, self.outQueueDX):
            self.pipe.InitBuffer(q, BUFFER_NUM, alignedTileDataNum * size)
        names = ("xFloatBuf", "dyFloatBuf", "gammaFloatBuf", "xhatBuf", "tmp0Buf", "tmp1Buf", "tmp2Buf", "tmp3Buf",
                 "reduceBuf")
        for name in names:
            buf = aj.TBuf(aj.TPosition.VECCALC)
            self.pipe.InitBuffer(buf, alignedTileDataNum * 4)
            setattr(self, name, buf)
        self.scalarBuf = aj.TBuf(aj.TPosition.VECCALC)
        self.pipe.InitBuffer(self.scalarBuf, 8 * 4)
        self.scalarSrcBuf = aj.TBuf(aj.TPosition.VECCALC)          # deviation (4)
        self.pipe.InitBuffer(self.scalarSrcBuf, BLOCK_SIZE)

    def Process(self):
        for groupIndex in range(self.coreGroupNum):
            self.ProcessSingleGroup(self.groupOffset + groupIndex)

    def CopyIn(self, groupIdx, segmentIdx, currentDataNum):
        T = self.T
        baseOffset = groupIdx * self.groupElemNum + segmentIdx * self.tileDataNum
        xLocal = self.inQueueX.AllocTensor(T)
        dyLocal = self.inQueueDY.AllocTensor(T)
        gammaLocal = self.inQueueGamma.AllocTensor(T)
        copyParams = aj.DataCopyExtParams(1, currentDataNum * TYPE_SIZE[T], 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(True, 0, 0, 0)
        aj.DataCopyPad(xLocal, self.xGm[baseOffset], copyParams, padParams)
        aj.DataCopyPad(dyLocal, self.dyGm[baseOffset], copyParams, padParams)
        aj.DataCopyPad(gammaLocal, self.gammaGm[baseOffset], copyParams, padParams)
        self.inQueueX.EnQue(xLocal)
        self.inQueueDY.EnQue(dyLocal)
        self.inQueueGamma.EnQue(gammaLocal)

    def CopyOut(self, groupIdx, segmentIdx, currentDataNum):
        T = self.T
        baseOffset = groupIdx * self.groupElemNum + segmentIdx * self.tileDataNum
        dxLocal = self.outQueueDX.DeQue(T)
        aj.DataCopyPad(self.dxGm[baseOffset], dxLocal, aj.DataCopyExtParams(1, currentDataNum * TYPE_SIZE[T], 0, 0, 0))
        self.outQueueDX.FreeTensor(dxLocal)

    def ReadScalar(self, tensor, index):
        T = self.T
        if T == "float":
            return np.float32(tensor.GetValue(index))
        if T == "bfloat16":
            # deviation (4): the bfloat16 lands in a 32-byte TBuf of its own (in place the Cast is refused, D34)
            tempSrc = self.scalarBuf.Get(T) if ORIGINAL_INPLACE_CAST else self.scalarSrcBuf.Get(T)
            _flag(aj.HardEvent.V_MTE2)          # deviation (1): the last Cast read this buffer
            aj.DataCopyPad(tempSrc, tensor[index], aj.DataCopyExtParams(1, 2, 0, 0, 0),
                           aj.DataCopyPadExtParams(True, 0, 0, 0))
            aj.PipeBarrier(aj.PIPE_ALL)
            tempDst = self.scalarBuf.Get("float")
            aj.Cast(tempDst, tempSrc, aj.RoundMode.CAST_NONE, 1)
            _v_s()
            return np.float32(tempDst.GetValue(0))
        return np.float32(tensor.GetValue(index))          # half -> float is exact

    def CastToFloat(self, dst, src, dataNum):
        if self.T == "float":
            aj.Adds(dst, src, np.float32(0.0), dataNum)
        else:
            aj.Cast(dst, src, aj.RoundMode.CAST_NONE, dataNum)

    def CastFromFloat(self, dst, src, dataNum):
        if self.T == "float":
            aj.Adds(dst, src, np.float32(0.0), dataNum)
        else:                                               # half and bfloat16
            aj.Cast(dst, src, aj.RoundMode.CAST_ROUND, dataNum)

    def GetCurrentDataNum(self, segmentIdx):
        return self.tailDataNum if segmentIdx + 1 == self.groupTileNum else self.tileDataNum

    def ProcessSingleGroup(self, groupIdx):
        T = self.T
        meanValue = self.ReadScalar(self.meanGm, groupIdx)
        rstdValue = self.ReadScalar(self.rstdGm, groupIdx)
        sumDyGamma = np.float32(0.0)
        sumDyGammaXhat = np.float32(0.0)
        xFloat, dyFloat = self.xFloatBuf.Get("float"), self.dyFloatBuf.Get("float")
        gammaFloat, xhat = self.gammaFloatBuf.Get("float"), self.xhatBuf.Get("float")
        tmp0, tmp1 = self.tmp0Buf.Get("float"), self.tmp1Buf.Get("float")
        tmp2, tmp3 = self.tmp2Buf.Get("float"), self.tmp3Buf.Get("float")
        reduceTensor, scalarTensor = self.reduceBuf.Get("float"), self.scalarBuf.Get("float")
        # pass 1: the two sums
        for segmentIdx in range(self.groupTileNum):
            n = self.GetCurrentDataNum(segmentIdx)
            self.CopyIn(groupIdx, segmentIdx, n)
            xLocal = self.inQueueX.DeQue(T)
            dyLocal = self.inQueueDY.DeQue(T)
            gammaLocal = self.inQueueGamma.DeQue(T)
            self.CastToFloat(xFloat, xLocal, n)
            self.CastToFloat(dyFloat, dyLocal, n)
            self.CastToFloat(gammaFloat, gammaLocal, n)
            aj.Adds(xhat, xFloat, -meanValue, n)
            aj.Muls(xhat, xhat, rstdValue, n)
            aj.Mul(tmp0, dyFloat, gammaFloat, n)
            aj.PipeBarrier(aj.PIPE_V)
            aj.ReduceSum(scalarTensor, tmp0, reduceTensor, n)
            aj.PipeBarrier(aj.PIPE_V)
            _v_s()
            sumDyGamma = np.float32(sumDyGamma + np.float32(scalarTensor.GetValue(0)))
            aj.Mul(tmp1, tmp0, xhat, n)
            aj.PipeBarrier(aj.PIPE_V)
            aj.ReduceSum(scalarTensor, tmp1, reduceTensor, n)
            aj.PipeBarrier(aj.PIPE_V)
            _v_s()
            sumDyGammaXhat = np.float32(sumDyGammaXhat + np.float32(scalarTensor.GetValue(0)))
            self.inQueueX.FreeTensor(xLocal)
            self.inQueueDY.FreeTensor(dyLocal)
            self.inQueueGamma.FreeTensor(gammaLocal)
        aj.PipeBarrier(aj.PIPE_V)
        coeff = np.float32(rstdValue * self.groupElemNumReciprocal)
        # pass 2: dx
        for segmentIdx in range(self.groupTileNum):
            n = self.GetCurrentDataNum(segmentIdx)
            self.CopyIn(groupIdx, segmentIdx, n)
            xLocal = self.inQueueX.DeQue(T)
            dyLocal = self.inQueueDY.DeQue(T)
            gammaLocal = self.inQueueGamma.DeQue(T)
            dxLocal = self.outQueueDX.AllocTensor(T)
            self.CastToFloat(xFloat, xLocal, n)
            self.CastToFloat(dyFloat, dyLocal, n)
            self.CastToFloat(gammaFloat, gammaLocal, n)
            aj.Adds(xhat, xFloat, -meanValue, n)
            aj.Muls(xhat, xhat, rstdValue, n)
            aj.Muls(tmp0, dyFloat, self.groupElemNumFloat, n)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Adds(tmp0, tmp0, -sumDyGamma, n)
            aj.Muls(tmp1, xhat, sumDyGammaXhat, n)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Sub(tmp2, tmp0, tmp1, n)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Mul(tmp3, gammaFloat, tmp2, n)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Muls(tmp3, tmp3, coeff, n)
            self.CastFromFloat(dxLocal, tmp3, n)
            self.outQueueDX.EnQue(dxLocal)
            self.CopyOut(groupIdx, segmentIdx, n)
            self.inQueueX.FreeTensor(xLocal)
            self.inQueueDY.FreeTensor(dyLocal)
            self.inQueueGamma.FreeTensor(gammaLocal)


aj.REGISTER_TILING_DEFAULT(GroupNormalizationGradTilingData)


def group_normalization_grad(x, dy, gamma, mean, rstd, dx, workspace, tiling_bytes, DTYPE):
    """The kernel entry (group_normalization_grad.cpp); DTYPE stands for DTYPE_X."""
    t = aj.GET_TILING_DATA_WITH_STRUCT(GroupNormalizationGradTilingData, tiling_bytes)
    op = KernelGroupNormalizationGrad(DTYPE)
    op.Init(x, dy, gamma, mean, rstd, dx, int(t.groupElemNum), int(t.groupCount), int(t.smallCoreGroupNum),
            int(t.bigCoreGroupNum), int(t.finalGroupTileNum), int(t.tileDataNum), int(t.alignedTileDataNum),
            int(t.tailDataNum), int(t.tailBlockNum), t.groupElemNumFloat, t.groupElemNumReciprocal)
    op.Process()


def _padded(a):
    block = BLOCK_SIZE // a.itemsize
    out = np.zeros(-(-a.size // block) * block + block, a.dtype)
    out[:a.size] = a.ravel()
    return out


def run_group_normalization_grad(device, x, dy, gamma, mean, rstd):
    dtype = {np.dtype(v): k for k, v in _NP.items()}[x.dtype]
    cores, tiling_bytes = tiling(device, x.shape, dtype)
    gm = [_padded(a) for a in (x, dy, gamma, mean, rstd)]
    dx = np.zeros_like(gm[0])
    aj.launch(group_normalization_grad, cores, device, *gm, dx, None, tiling_bytes, dtype)
    return dx[:x.size].reshape(x.shape)


# -- the independent model ------------------------------------------------------------------------------------------

def _cast_round(values, dtype):
    """float32 values to dtype by CAST_ROUND (nearest, ties away from zero) through the reference model."""
    f = np.asarray(values, np.float32)
    if dtype == "float":
        return f + np.float32(0.0)                       # Adds 0: -0 + 0 = +0
    from ascend_jit.reference import convert
    bits = convert.convert("float", dtype, "CAST_ROUND", f.reshape(-1).view(np.uint32).astype(np.uint64), False,
                           False)
    return bits.astype(np.uint16).view(_NP[dtype]).reshape(f.shape)


def group_normalization_grad_model(x, dy, gamma, mean, rstd, device="atlas-a2"):
    """dx by the kernel's float32 steps: its tiles, the device's count-form ReduceSum tree per tile, the scalar
    float accumulations and product, CAST_ROUND back."""
    dtype = {np.dtype(v): k for k, v in _NP.items()}[x.dtype]
    _, tb = tiling(device, x.shape, dtype)
    t = np.frombuffer(tb.tobytes(), GroupNormalizationGradTilingData)[0]
    elems, tdn = int(t["groupElemNum"]), int(t["tileDataNum"])
    f32 = np.float32
    M, recip = f32(t["groupElemNumFloat"]), f32(t["groupElemNumReciprocal"])
    xs, dys, gs = (a.astype(f32).reshape(-1, elems) for a in (x, dy, gamma))
    out = np.empty_like(xs)
    trees = {}

    def rsum(v):
        if v.shape[1] not in trees:
            trees[v.shape[1]] = aj.explain_reduce_order(device, "count", "float", count=v.shape[1])
        return trees[v.shape[1]].evaluate_batch(v)

    ms, rs = mean.astype(f32).ravel(), rstd.astype(f32).ravel()
    starts = list(range(0, elems, tdn))
    with np.errstate(all="ignore"):
        xhat = (xs + (-ms)[:, None]) * rs[:, None]
        p0 = dys * gs
        p1 = p0 * xhat
        s1 = np.zeros(xs.shape[0], f32)
        s2 = np.zeros(xs.shape[0], f32)
        for s in starts:
            s1 = s1 + rsum(p0[:, s:s + tdn])
            s2 = s2 + rsum(p1[:, s:s + tdn])
        coeff = rs * recip
        tmp0 = dys * M + (-s1)[:, None]
        tmp2 = tmp0 - xhat * s2[:, None]
        out = (gs * tmp2) * coeff[:, None]
    return _cast_round(out, dtype).reshape(x.shape)


def _make_inputs(dtype, shape):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        n = max(1, size // int(np.prod(shape)))
        full = (n,) + shape
        x = rng.normal(0.3, 1.5, full).astype(np.float32)
        planes = x.reshape(n * shape[0], -1)
        mean = planes.mean(axis=1).astype(np.float32)
        rstd = (1 / np.sqrt(planes.var(axis=1) + 1e-5)).astype(np.float32)
        cast = _NP[dtype]
        return {"x": x.astype(cast), "dy": rng.normal(0, 1, full).astype(np.float32).astype(cast),
                "gamma": rng.uniform(0.5, 1.5, full).astype(np.float32).astype(cast),
                "mean": mean.astype(cast), "rstd": rstd.astype(cast)}
    return make_inputs


def _run(device, inputs):
    return {"dx": run_group_normalization_grad(device, inputs["x"], inputs["dy"], inputs["gamma"], inputs["mean"],
                                               inputs["rstd"])}


def _expected(device, inputs):
    return {"dx": group_normalization_grad_model(inputs["x"], inputs["dy"], inputs["gamma"], inputs["mean"],
                                                 inputs["rstd"], device)}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/norm/group_normalization_grad/op_kernel/group_normalization_grad.h"
KERNELS = [
    KernelSpec(name, description, _make_inputs(dtype, shape), _run, _expected, default_size=size, devices=DEVICES,
               source=_SOURCE, size_rule=f"a multiple of {int(np.prod(shape))} (N samples of {shape})",
               size_ok=lambda n, s=int(np.prod(shape)): n >= s)
    for name, dtype, shape, size, description in (
        ("group_normalization_grad", "float", (5, 3000), 3 * 15000, "GroupNormalizationGrad over floats, planes of "
         "3000 (two tiles a plane on the A2, a tail): Adds 0 widening, per-tile count-form ReduceSum and scalar sums, "
         "Muls / Adds / Sub / Mul, V_S before each GetValue"),
        ("group_normalization_grad_half", "half", (9, 10, 13), 3 * 1170, "GroupNormalizationGrad over halves (Cast "
         "CAST_NONE in, float sums, Cast CAST_ROUND out; 27 planes of 130 over 8 cores, big and small)"),
        ("group_normalization_grad_bf16", "bfloat16", (4, 7, 9), 5 * 252, "GroupNormalizationGrad over bfloat16 "
         "(mean / rstd by a one-element DataCopyPad, PipeBarrier<PIPE_ALL> and Cast; planes of 63)"))
]
