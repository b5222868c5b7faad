"""GroupNorm from the CANN NN operators: for each (n, group), mean and rstd = 1 / sqrt(var + eps) over the group's
channels x H x W elements, y = (x - mean) * rstd * gamma[c] + beta[c], over float, half and bfloat16 (computed in
float), with the group's mean and rstd as outputs.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/norm/group_norm/op_kernel/group_norm_kernel.h
(`GroupNormKernel::GroupNorm<T, schMode>`: groups spread over the cores, the first groupTailCore one more; per group
CalcMeanAndVariance (tiles by DataCopyPad with DataCopyPadExtParams<T>{false, 0, 0, 0}, EnQue / DeQue, 16-bit tiles
Cast CAST_NONE into a float TBuf, then the scalar unit's Kahan-compensated sums of x and x * x by GetValue, one
element at a time; variance = E[x^2] - mean^2 clamped at 0, rstd = 1 / sqrt(var + eps)), StoreScalar of mean and
rstd (SetValue, for 16-bit through a float TBuf and a one-element Cast CAST_ROUND, queue hand-off, a one-element
DataCopyPad to `gm[index]`), NormalizeAndCopyOut (per tile, per channel segment, gamma and beta fetched by
LoadScalarAsFloat: a one-element DataCopyPad into the input queue, GetValue (16-bit: a one-element Cast first);
Adds -mean, Muls rstd * gamma, Adds beta on `dst[i]` / `src[i]`, 16-bit Cast CAST_ROUND back, DataCopyPad out);
groups of one element take ProcessSingleElementGroups (x copied to mean, Duplicate of 1 / sqrt(eps) to rstd, beta by
Duplicate or per-element SetValue to y)) and group_norm.cpp (REGISTER_TILING_DEFAULT, GET_TILING_DATA_WITH_STRUCT),
with the host tiling of experimental/norm/group_norm/op_host/group_norm_tiling.cpp (`GroupNormTilingFunc`: at most
coreNum cores, one group at least each; tiles of UB / 2 / 4 / 8 floats (at least 8 KB, whole DataBlocks), no longer
than a group; invElementsPerGroup = 1.0f / elementsPerGroup).

Deviations (also in docs/decisions.md "Kernel gallery"): the original orders none of its scalar-unit and copy-out
accesses beyond the queue hand-offs: GetValue after a Cast (V -> S), a Cast of what SetValue stored (S -> V), a
SetValue over a float earlier Casts read (V -> S), the next tile's Cast over floats the scalar loop read (S -> V), y copied out after the vector steps with no EnQue
(V -> MTE3), and on the one-element path x copied straight back out (MTE2 -> MTE3) and SetValue'd betas copied out
(S -> MTE3): the sanitizer's race reports (tested without the deviation); the port adds FetchEventID'd flag pairs.
For 16-bit types the original's LoadScalarAsFloat Casts gamma and beta into the first float of xFloatBuf, which
holds the tile being normalised, so the tile's first element is normalised as beta (the emulator reproduces it with
ORIGINAL_SCALAR_FLOAT_BUFFER = True, tested); the port Casts them into a 32-byte TBuf of its own. The core count is
the launch's 8 (GetCoreNum would give the device's). GM is padded to 32 bytes, as device allocations are.

Devices: DataCopyPad runs on the 950, A3, A2 and 310B; the 16-bit kinds need Cast float -> half / bfloat16
CAST_ROUND and bfloat16 -> float (SPEC-2 7.2), which all four offer; FetchEventID is not offered on the 310B (docs/
decisions.md "Event ids"): the kernel runs on the 950, A3 and A2 (the operator's config is the A2).

Fidelity: BIT-EXACT (Cast, Adds, Muls, Duplicate are BIT-EXACT, SPEC-2 0.3; the scalar unit's float arithmetic and
sqrt are IEEE float32). The expectation replays the Kahan loops and the per-segment float steps on the host in
float32, and CAST_ROUND through the package's reference model (ascend_jit.reference.convert), independent of the
kernels.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
BLOCK_SIZE = 32
MIN_TILE_BYTES = 8 * 1024
CORE_NUM = 8
EPS = 1e-5
GROUP_NORM_SCH_SMALL_GROUP, GROUP_NORM_SCH_GENERAL = 0, 1
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
ORIGINAL_SCALAR_FLOAT_BUFFER = False   # True: gamma / beta Cast into xFloatBuf, as the original (docstring)

GroupNormTilingData = np.dtype([(name, np.uint32) for name in (
    "n", "c", "hxw", "numGroups", "channelsPerGroup", "elementsPerGroup", "groupNum", "groupPerCore",
    "groupTailCore", "tileLength", "hasGamma", "hasBeta", "reserved")] + [("eps", np.float32),
                                                                         ("invElementsPerGroup", np.float32)])


def tiling(device, shape, num_groups, eps=EPS, has_gamma=True, has_beta=True):
    """GroupNormTilingFunc: (block dim, tiling key, the packed GroupNormTilingData)."""
    n, c = shape[0], shape[1]
    hxw = int(np.prod(shape[2:], dtype=np.int64)) if len(shape) > 2 else 1
    t = np.zeros(1, GroupNormTilingData)
    cpg = c // num_groups
    epg = cpg * hxw
    for name, value in (("n", n), ("c", c), ("hxw", hxw), ("numGroups", num_groups), ("channelsPerGroup", cpg),
                        ("elementsPerGroup", epg), ("groupNum", n * num_groups), ("hasGamma", int(has_gamma)),
                        ("hasBeta", int(has_beta))):
        t[name] = value
    t["invElementsPerGroup"] = np.float32(1.0) / np.float32(epg)
    t["eps"] = eps
    group_num = n * num_groups
    block_num = min(group_num, CORE_NUM)
    t["groupPerCore"], t["groupTailCore"] = group_num // block_num, group_num % block_num
    tile = aj.get_device(device).ub_bytes // BUFFER_NUM // 4 // 8
    tile = max(tile, MIN_TILE_BYTES // 4)
    tile = -(-tile // (BLOCK_SIZE // 4)) * (BLOCK_SIZE // 4)
    t["tileLength"] = tile if epg == 1 else min(tile, epg)
    key = GROUP_NORM_SCH_SMALL_GROUP if epg <= int(t["tileLength"][0]) else GROUP_NORM_SCH_GENERAL
    return block_num, key, t.view(np.uint8).copy()


def _flag_pair(event):
    """Deviation (module docstring): a SetFlag/WaitFlag pair on an event id the pipe hands out."""
    event_id = aj.GetTPipePtr().FetchEventID(event)
    aj.SetFlag(event_id, event=event)
    aj.WaitFlag(event_id, event=event)


class GroupNorm:
    def __init__(self, T, schMode):
        self.T, self.schMode = T, schMode

    def Init(self, x, gamma, beta, y, mean, rstd, workspace, tiling):
        self.t = tiling
        blockIdx = aj.GetBlockIdx()
        per, tail = int(tiling.groupPerCore), int(tiling.groupTailCore)
        self.groupCount = per + (1 if blockIdx < tail else 0)
        self.startGroup = blockIdx * per + (blockIdx if blockIdx < tail else tail)
        self.c, self.hxw, self.numGroups = int(tiling.c), int(tiling.hxw), int(tiling.numGroups)
        self.channelsPerGroup, self.elementsPerGroup = int(tiling.channelsPerGroup), int(tiling.elementsPerGroup)
        self.tileLength, self.hasGamma, self.hasBeta = int(tiling.tileLength), int(tiling.hasGamma), \
            int(tiling.hasBeta)
        self.eps, self.invElementsPerGroup = np.float32(tiling.eps), np.float32(tiling.invElementsPerGroup)
        totalNum = int(tiling.n) * self.c * self.hxw
        self.xGm, self.yGm, self.gammaGm, self.betaGm, self.meanGm, self.rstdGm = \
            (aj.GlobalTensor() for _ in range(6))
        self.xGm.SetGlobalBuffer(x, totalNum)
        self.yGm.SetGlobalBuffer(y, totalNum)
        self.gammaGm.SetGlobalBuffer(gamma, self.c)
        self.betaGm.SetGlobalBuffer(beta, self.c)
        self.meanGm.SetGlobalBuffer(mean, int(tiling.groupNum))
        self.rstdGm.SetGlobalBuffer(rstd, int(tiling.groupNum))
        self.pipe = aj.TPipe()
        self.inQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.xFloatBuf, self.yFloatBuf = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        self.scalarFloatBuf = aj.TBuf(aj.TPosition.VECCALC)       # deviation: LoadScalarAsFloat's own float
        size = TYPE_SIZE[self.T]
        self.pipe.InitBuffer(self.inQueue, BUFFER_NUM, self.tileLength * size)
        self.pipe.InitBuffer(self.outQueue, BUFFER_NUM, self.tileLength * size)
        self.pipe.InitBuffer(self.xFloatBuf, self.tileLength * 4)
        self.pipe.InitBuffer(self.yFloatBuf, self.tileLength * 4)
        self.pipe.InitBuffer(self.scalarFloatBuf, BLOCK_SIZE)

    def Process(self):
        if self.elementsPerGroup == 1:
            self.ProcessSingleElementGroups()
            return
        # both schedule modes walk their groups the same way
        for i in range(self.groupCount):
            self.ProcessOneGroup(self.startGroup + i)

    def ProcessSingleElementGroups(self):
        start, end = self.startGroup, self.startGroup + self.groupCount
        rstdVal = np.float32(1.0) / np.sqrt(self.eps)
        yVal = np.float32(0.0) if self.hasBeta == 0 else self.LoadScalarAsFloat(self.betaGm, 0)
        for offset in range(start, end, self.tileLength):
            currentCount = min(self.tileLength, end - offset)
            xLocal = self.inQueue.AllocTensor(self.T)
            yLocal = self.outQueue.AllocTensor(self.T)
            self.CopyInPad(xLocal, offset, currentCount)
            _flag_pair(aj.HardEvent.MTE2_MTE3)                    # deviation: x copied straight back out
            self.CopyOutPad(self.meanGm, offset, xLocal, currentCount)
            if self.T == "float":
                aj.Duplicate(yLocal, rstdVal, currentCount)
            else:
                yFloat = self.yFloatBuf.Get("float")
                aj.Duplicate(yFloat, rstdVal, currentCount)
                aj.Cast(yLocal, yFloat, aj.RoundMode.CAST_ROUND, currentCount)
            _flag_pair(aj.HardEvent.V_MTE3)                       # deviation: rstd copied out after the vector
            self.CopyOutPad(self.rstdGm, offset, yLocal, currentCount)
            _flag_pair(aj.HardEvent.MTE3_V)                       # deviation: yLocal written again below
            _flag_pair(aj.HardEvent.MTE3_S)
            yTarget = yLocal if self.T == "float" else self.yFloatBuf.Get("float")
            if self.c == 1 or self.hasBeta == 0:
                aj.Duplicate(yTarget, yVal, currentCount)
            else:
                for i in range(currentCount):
                    channel = (offset + i) % self.c
                    yTarget.SetValue(i, self.LoadScalarAsFloat(self.betaGm, channel))
                _flag_pair(aj.HardEvent.S_V)                      # deviation: SetValue'd betas cast / copied out
                _flag_pair(aj.HardEvent.S_MTE3)
            if self.T != "float":
                aj.Cast(yLocal, yTarget, aj.RoundMode.CAST_ROUND, currentCount)
            _flag_pair(aj.HardEvent.V_MTE3)
            self.CopyOutPad(self.yGm, offset, yLocal, currentCount)
            self.inQueue.FreeTensor(xLocal)
            self.outQueue.FreeTensor(yLocal)

    def GetGroupOffset(self, groupIndex):
        nIndex, gIndex = divmod(groupIndex, self.numGroups)
        return nIndex * self.c * self.hxw + gIndex * self.channelsPerGroup * self.hxw

    def GetChannelBase(self, groupIndex):
        return groupIndex % self.numGroups * self.channelsPerGroup

    def ProcessOneGroup(self, groupIndex):
        groupOffset = self.GetGroupOffset(groupIndex)
        meanVal, meanOutVal, rstdVal = self.CalcMeanAndVariance(groupOffset, self.elementsPerGroup)
        self.StoreScalar(self.meanGm, groupIndex, meanOutVal)
        self.StoreScalar(self.rstdGm, groupIndex, rstdVal)
        self.NormalizeAndCopyOut(groupOffset, self.GetChannelBase(groupIndex), self.elementsPerGroup, meanVal,
                                 rstdVal)

    def LoadScalarAsFloat(self, gm, index):
        scalarLocal = self.inQueue.AllocTensor(self.T)
        aj.DataCopyPad(scalarLocal, gm[index], aj.DataCopyExtParams(1, TYPE_SIZE[self.T], 0, 0, 0),
                       aj.DataCopyPadExtParams(False, 0, 0, 0))
        self.inQueue.EnQue(scalarLocal)
        scalarLocal = self.inQueue.DeQue(self.T)
        if self.T == "float":
            value = np.float32(scalarLocal.GetValue(0))
        else:
            buf = self.xFloatBuf if ORIGINAL_SCALAR_FLOAT_BUFFER else self.scalarFloatBuf
            scalarFloat = buf.Get("float")
            aj.Cast(scalarFloat, scalarLocal, aj.RoundMode.CAST_NONE, 1)
            _flag_pair(aj.HardEvent.V_S)                          # deviation: GetValue after the Cast
            value = np.float32(scalarFloat.GetValue(0))
            _flag_pair(aj.HardEvent.S_V)                          # deviation: the next Cast over that float
        self.inQueue.FreeTensor(scalarLocal)
        return value

    def StoreScalar(self, gm, index, value):
        scalarLocal = self.outQueue.AllocTensor(self.T)
        if self.T == "float":
            scalarLocal.SetValue(0, value)
        else:
            scalarFloat = self.yFloatBuf.Get("float")
            _flag_pair(aj.HardEvent.V_S)                          # deviation: earlier Casts read that float
            scalarFloat.SetValue(0, value)
            _flag_pair(aj.HardEvent.S_V)                          # deviation: the Cast reads what SetValue stored
            aj.Cast(scalarLocal, scalarFloat, aj.RoundMode.CAST_ROUND, 1)
        self.outQueue.EnQue(scalarLocal)
        scalarLocal = self.outQueue.DeQue(self.T)
        aj.DataCopyPad(gm[index], scalarLocal, aj.DataCopyExtParams(1, TYPE_SIZE[self.T], 0, 0, 0))
        self.outQueue.FreeTensor(scalarLocal)

    def CopyInPad(self, dstLocal, gmOffset, count):
        aj.DataCopyPad(dstLocal, self.xGm[gmOffset], aj.DataCopyExtParams(1, count * TYPE_SIZE[self.T], 0, 0, 0),
                       aj.DataCopyPadExtParams(False, 0, 0, 0))

    def CopyOutPad(self, gm, gmOffset, srcLocal, count):
        aj.DataCopyPad(gm[gmOffset], srcLocal, aj.DataCopyExtParams(1, count * TYPE_SIZE[self.T], 0, 0, 0))

    def CalcMeanAndVariance(self, groupOffset, dataCount):
        f32 = np.float32
        total, totalComp, squareSum, squareSumComp = f32(0.0), f32(0.0), f32(0.0), f32(0.0)
        for offset in range(0, dataCount, self.tileLength):
            currentCount = min(self.tileLength, dataCount - offset)
            xLocal = self.inQueue.AllocTensor(self.T)
            self.CopyInPad(xLocal, groupOffset + offset, currentCount)
            self.inQueue.EnQue(xLocal)
            xLocal = self.inQueue.DeQue(self.T)
            if self.T == "float":
                source = xLocal
            else:
                source = self.xFloatBuf.Get("float")
                aj.Cast(source, xLocal, aj.RoundMode.CAST_NONE, currentCount)
                _flag_pair(aj.HardEvent.V_S)                      # deviation: the scalar loop reads the Cast
            for i in range(currentCount):
                v = f32(source.GetValue(i))
                sumInput = v - totalComp
                sumNext = total + sumInput
                totalComp = (sumNext - total) - sumInput
                total = sumNext
                squareInput = v * v - squareSumComp
                squareNext = squareSum + squareInput
                squareSumComp = (squareNext - squareSum) - squareInput
                squareSum = squareNext
            if self.T != "float":
                _flag_pair(aj.HardEvent.S_V)                      # deviation: the next tile's Cast after the reads
            self.inQueue.FreeTensor(xLocal)
        meanVal = total * self.invElementsPerGroup
        variance = squareSum * self.invElementsPerGroup - meanVal * meanVal
        variance = f32(0.0) if variance < 0 else variance
        rstdVal = f32(1.0) / np.sqrt(variance + self.eps)
        return meanVal, meanVal, rstdVal

    def NormalizeFloatTile(self, srcLocal, dstLocal, offset, channelBase, currentCount, meanVal, rstdVal):
        i = 0
        while i < currentCount:
            channelInGroup = (offset + i) // self.hxw
            channel = channelBase + channelInGroup
            nextChannelOffset = (channelInGroup + 1) * self.hxw
            segmentEnd = currentCount if nextChannelOffset > offset + currentCount else nextChannelOffset - offset
            segmentCount = segmentEnd - i
            gammaVal = np.float32(1.0) if self.hasGamma == 0 else self.LoadScalarAsFloat(self.gammaGm, channel)
            betaVal = np.float32(0.0) if self.hasBeta == 0 else self.LoadScalarAsFloat(self.betaGm, channel)
            scaleVal = rstdVal * gammaVal
            aj.Adds(dstLocal[i], srcLocal[i], -meanVal, segmentCount)
            aj.Muls(dstLocal[i], dstLocal[i], scaleVal, segmentCount)
            aj.Adds(dstLocal[i], dstLocal[i], betaVal, segmentCount)
            i = segmentEnd

    def NormalizeAndCopyOut(self, groupOffset, channelBase, dataCount, meanVal, rstdVal):
        for offset in range(0, dataCount, self.tileLength):
            currentCount = min(self.tileLength, dataCount - offset)
            xLocal = self.inQueue.AllocTensor(self.T)
            yLocal = self.outQueue.AllocTensor(self.T)
            self.CopyInPad(xLocal, groupOffset + offset, currentCount)
            self.inQueue.EnQue(xLocal)
            xLocal = self.inQueue.DeQue(self.T)
            if self.T == "float":
                self.NormalizeFloatTile(xLocal, yLocal, offset, channelBase, currentCount, meanVal, rstdVal)
            else:
                xFloat, yFloat = self.xFloatBuf.Get("float"), self.yFloatBuf.Get("float")
                aj.Cast(xFloat, xLocal, aj.RoundMode.CAST_NONE, currentCount)
                self.NormalizeFloatTile(xFloat, yFloat, offset, channelBase, currentCount, meanVal, rstdVal)
                aj.Cast(yLocal, yFloat, aj.RoundMode.CAST_ROUND, currentCount)
            _flag_pair(aj.HardEvent.V_MTE3)                       # deviation: y copied out with no EnQue
            self.CopyOutPad(self.yGm, groupOffset + offset, yLocal, currentCount)
            _flag_pair(aj.HardEvent.MTE3_V)                       # deviation: the next group's vector writes
            self.inQueue.FreeTensor(xLocal)
            self.outQueue.FreeTensor(yLocal)


aj.REGISTER_TILING_DEFAULT(GroupNormTilingData)


def group_norm(x, gamma, beta, y, mean, rstd, workspace, tiling, schMode, DTYPE_X):
    """The kernel entry; schMode is the tiling key, DTYPE_X the build's type (a macro in C++)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(GroupNormTilingData, tiling)
    op = GroupNorm(DTYPE_X, schMode)
    op.Init(x, gamma, beta, y, mean, rstd, workspace, tilingData)
    op.Process()


# the gallery's shapes: (C, H x W, num_groups); the size is N x C x H x W
SHAPES = {"group_norm": (16, 64, 4), "group_norm_half": (32, 48, 8), "group_norm_bf16_big_group": (8, 1024, 2),
          "group_norm_single": (16, 1, 16)}


def _shape(name, size):
    c, hxw, _ = SHAPES[name]
    return (size // (c * hxw), c, hxw)


def _make_inputs(name, dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        shape = _shape(name, size)
        x = (rng.standard_normal(shape) * 2 + 0.5).astype(np.float32).astype(_NP[dtype])
        gamma = (1 + 0.2 * rng.standard_normal(shape[1])).astype(np.float32).astype(_NP[dtype])
        beta = (0.1 * rng.standard_normal(shape[1])).astype(np.float32).astype(_NP[dtype])
        return {"x": x, "gamma": gamma, "beta": beta}
    return make_inputs


def _padded(a):
    n = -(-a.size * a.itemsize // BLOCK_SIZE) * BLOCK_SIZE // a.itemsize
    out = np.zeros(n, a.dtype)
    out[:a.size] = a.reshape(-1)
    return out


def _run(name, dtype):
    def run(device, inputs):
        x = inputs["x"]
        groups = x.shape[0] * SHAPES[name][2]
        block_dim, key, tiling_bytes = tiling(device, x.shape, SHAPES[name][2])
        gx, gg, gb = _padded(x), _padded(inputs["gamma"]), _padded(inputs["beta"])
        y, mean, rstd = np.zeros_like(gx), _padded(np.zeros(groups, x.dtype)), _padded(np.zeros(groups, x.dtype))
        workspace = np.zeros(BLOCK_SIZE, np.uint8)
        aj.launch(group_norm, block_dim, device, gx, gg, gb, y, mean, rstd, workspace, tiling_bytes, key, dtype)
        return {"y": y[:x.size].reshape(x.shape), "mean": mean[:groups], "rstd": rstd[:groups]}
    return run


def _cast_round(values, dtype):
    """float32 values to dtype by CAST_ROUND (nearest, ties away from zero) through the reference model."""
    f = np.asarray(values, np.float32)
    if dtype == "float":
        return f
    from ascend_jit.reference import convert
    bits = convert.convert("float", dtype, "CAST_ROUND", f.reshape(-1).view(np.uint32).astype(np.uint64), False,
                           False)
    return bits.astype(np.uint16).view(_NP[dtype]).reshape(f.shape)


def _expected(name, dtype):
    def expected(device, inputs):
        """The original's float32 sequence replayed on the host: the Kahan loops, the scalar mean / rstd, per
        element (x + -mean) * (rstd * gamma) + beta, each step rounded to float32; CAST_ROUND to the output type."""
        f32 = np.float32
        x = inputs["x"].astype(np.float32)
        gamma, beta = inputs["gamma"].astype(np.float32), inputs["beta"].astype(np.float32)
        n, c, hxw = x.shape
        num_groups = SHAPES[name][2]
        cpg = c // num_groups
        inv = f32(1.0) / f32(cpg * hxw)
        eps = f32(EPS)
        y = np.zeros_like(x)
        means, rstds = np.zeros(n * num_groups, np.float32), np.zeros(n * num_groups, np.float32)
        if cpg * hxw == 1:
            means[:] = x.reshape(-1)
            rstds[:] = f32(1.0) / np.sqrt(eps)
            y[:] = beta[None, :, None]
            return {"y": _cast_round(y, dtype), "mean": _cast_round(means, dtype), "rstd": _cast_round(rstds, dtype)}
        for g in range(n * num_groups):
            ni, gi = divmod(g, num_groups)
            block = x[ni, gi * cpg:(gi + 1) * cpg, :]
            total = comp = sq = sqc = f32(0.0)
            for v in block.reshape(-1):
                a = v - comp
                b = total + a
                comp = (b - total) - a
                total = b
                a = v * v - sqc
                b = sq + a
                sqc = (b - sq) - a
                sq = b
            mean = total * inv
            var = sq * inv - mean * mean
            var = f32(0.0) if var < 0 else var
            rstd = f32(1.0) / np.sqrt(var + eps)
            means[g], rstds[g] = mean, rstd
            scale = (rstd * gamma[gi * cpg:(gi + 1) * cpg]).astype(np.float32)[:, None]
            out = ((block + (-mean)).astype(np.float32) * scale).astype(np.float32)
            y[ni, gi * cpg:(gi + 1) * cpg, :] = out + beta[gi * cpg:(gi + 1) * cpg, None]
        return {"y": _cast_round(y, dtype), "mean": _cast_round(means, dtype), "rstd": _cast_round(rstds, dtype)}
    return expected


def _spec(name, dtype, default_size, description):
    c, hxw, _ = SHAPES[name]
    row = c * hxw
    return KernelSpec(name, description, _make_inputs(name, dtype), _run(name, dtype), _expected(name, dtype),
                      default_size=default_size, devices=DEVICES, source=_SOURCE,
                      size_rule=f"a multiple of {row} (N x C={c} x H x W={hxw})",
                      size_ok=lambda n, row=row: n > 0 and n % row == 0)


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/norm/group_norm/op_kernel/group_norm_kernel.h"
KERNELS = [
    _spec("group_norm", "float", 2 * 16 * 64, "GroupNorm over floats (N x 16 x 64, 4 groups): Kahan sums by "
          "GetValue, one-element DataCopyPad in and out, Adds/Muls/Adds on per-channel sub-tensors"),
    _spec("group_norm_half", "half", 32 * 48, "GroupNorm over halves (N x 32 x 48, 8 groups) in float: Cast "
          "CAST_NONE in, CAST_ROUND out, one-element Casts of gamma, beta, mean and rstd"),
    _spec("group_norm_bf16_big_group", "bfloat16", 8 * 1024, "GroupNorm over bfloat16 (N x 8 x 1024, 2 groups "
          "of 4096, the general schedule: several tiles a group, channel segments inside a tile)"),
    _spec("group_norm_single", "float", 2 * 16, "GroupNorm with one-element groups (N x 16 x 1, 16 groups): x "
          "copied to mean, Duplicate of 1 / sqrt(eps), betas by per-element SetValue"),
]
