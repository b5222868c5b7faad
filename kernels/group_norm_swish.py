"""GroupNormSwish from the CANN NN operators, the small-group float kernel (tiling key 212): for each (n, group) the
mean and variance of its channels x H x W floats, rstd = 1 / sqrt(var + eps), x normalised with gamma / beta per
channel, then (activateSwish) y = x / (1 + exp(-swishScale * x)); mean and rstd are outputs.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, norm/group_norm_swish:
- op_kernel/group_norm_swish.cpp (GET_TILING_DATA, a caller-made TPipe, TILING_KEY_IS(212)
  `GroupNormSwishSmallB32<float, float>`);
- op_kernel/group_norm_swish_small_b32.h: gamma and beta by one DataCopyPad each into depth-1 VECIN queues; per group
  the whole group by one DataCopyPad (EnQue / DeQue), ComputeMeanAndRstd (ReduceSumCustom of x into meanUb, a
  FetchEventID'd V_S pair, mean = (meanUb(0) + meanUb(1)) / numPerGroup on the scalar unit, Adds -mean, Mul, and
  ReduceSumCustom of the squares into rstdUb with the square tile as its own work buffer), then, when H x W is a
  multiple of 8 (ComputeOneLoop), per channel Muls rstd * gamma and Adds -scale * mean + beta on the group tile (into
  the tile itself under activateSwish, else into the output tile), the swish chain (Muls -swishScale, Exp, Adds 1,
  Div) and one DataCopyPad out; otherwise (ComputeMulLoop) the statistics from the whole group, then each channel
  copied in again (DataCopyPad from an unaligned GM start), normalised, swished and copied out on its own; mean and
  rstd by SetValue into VECOUT tiles allocated at Init, EnQue'd, DeQue'd and copied out by one DataCopyPad each;
- op_kernel/group_norm_swish_base.h (`GroupNormSwishBase`): InitGlobal, InitLocalB32, CopyInX / CopyOutY /
  CopyInGammaAndBeta / CopyOutMeanAndRstd on the 220 cores, and ReduceSumCustom: 8192 floats by BlockReduceSum
  (128 repeats), BlockReduceSum (16) and WholeReduceSum (mask 64, 2 repeats) into dst[0], dst[1]; up to 4096 by
  ReduceSumCustomSmall (dst(1) = 0 on the scalar unit; WholeReduceSum of the whole 64-float repeats, of the tail
  with mask tail, then of the repeat + 1 partial sums); between the two, the first 4096 as the 8192 case with 64 / 8
  repeats into dst[0] and the rest by ReduceSumCustomSmall into dst[1];
- op_host/group_norm_swish_tiling.cpp (groups spread over the cores, ceil(N * G / cores) a core and the rest on the
  last; shapeCAlign, groupPerCoreAlign, numPerLoop 8192; key 200 + 10 + 2 when H x W > 1, numPerGroup <= 8192 and
  shapeCAlign + groupPerCoreAlign <= 4088).

Deviations: the core count is the launch's 8 (the platform's GetCoreNumAiv). Only key 212 is ported (the other keys
select other classes). The original orders the scalar unit's SetValue of mean / rstd into the VECOUT tiles before
their DataCopyPad by the queues' EnQue / DeQue only: enough under SPEC-2 10.4's hand-off, but on the device a VECOUT
queue's event is V_MTE3 and the SetValue races the copy-out (docs/decisions.md "The device's synchronisation";
`sanitize="device-sync"` reports it, tested with ORIGINAL_SYNC = True): the port adds a FetchEventID'd S_MTE3 pair
before the copy-out, as the ReduceMaxV2 and ReflectionPad1dV2 ports do.

Devices: the operator's binary configs list the A2 (ascend910b) and A3 (ascend910_93) for this kernel (the 950 takes
the arch35 kernel); the 220 path (DataCopyPad) is ported. The `#else` path (DataCopy of whole blocks and atomic-add
tails) is not: no config builds it. The A2 and A3 share the float WholeReduceSum / BlockReduceSum trees
(aj.explain_reduce_order), so the two devices' outputs are the same bits.

Fidelity: with activateSwish false BIT-EXACT (BlockReduceSum, WholeReduceSum, Adds, Mul, Muls, DataCopyPad; the
scalar unit's float arithmetic and sqrt are IEEE float32); with it, Exp and Div are MODELLED (SPEC-2 D37: the exact
value rounded once), reproduced by the model, so it is checked bit for bit too.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                         # deviation: the launch's cores
reduceNum, doubleRNum = 4096, 8192
oneBlockNum = 8
ProcessSize = 8192
DEVICES = ("atlas-a2", "atlas-a3")
ORIGINAL_SYNC = False                # True: the original's queue-only order of mean / rstd (deviation, docstring)

GroupNormSwishTilingData = np.dtype([
    ("numGroups", np.int64), ("epsilon", np.float32), ("activateSwish", np.int64), ("swishScale", np.float32),
    ("hwNum", np.int64), ("shapeC", np.int64), ("shapeCAlign", np.int64), ("shapeD", np.int64),
    ("numPerGroup", np.int64), ("groupPerCore", np.int64), ("groupLastCore", np.int64),
    ("groupPerCoreAlign", np.int64), ("numPerLoop", np.int64), ("loopTimes", np.int64), ("loopTimesAlign", np.int64),
    ("numTailLoop", np.int64), ("totalCoreNum", np.int32)], align=True)


def _ceil_div(a, b):
    return a if b == 0 else -(-a // b)


def tiling(shape, num_groups, eps=1e-5, activate_swish=True, swish_scale=1.0):
    """Tiling4GroupNormSwish for float x and gamma: (block dim, tiling key, the packed tiling data)."""
    n, c = shape[0], shape[1]
    hw = int(np.prod(shape[2:], dtype=np.int64)) if len(shape) > 2 else 1
    t = np.zeros(1, GroupNormSwishTilingData)
    f = dict(numGroups=num_groups, epsilon=eps, activateSwish=int(activate_swish), swishScale=swish_scale,
             totalCoreNum=CORE_NUM, shapeC=c, shapeD=c // num_groups, hwNum=hw)
    f["numPerGroup"] = f["shapeD"] * hw
    total_group = n * num_groups                                           # SetBlockTiling
    group_per_core = _ceil_div(total_group, CORE_NUM)
    used = _ceil_div(total_group, group_per_core)
    f.update(groupPerCore=group_per_core, groupPerCoreAlign=_ceil_div(group_per_core, oneBlockNum) * oneBlockNum,
             groupLastCore=total_group - (used - 1) * group_per_core)
    f["numPerLoop"] = 8192                                                 # SetUbTiling
    f["loopTimes"] = _ceil_div(f["numPerGroup"], 8192)
    f["loopTimesAlign"] = _ceil_div(f["loopTimes"], oneBlockNum) * oneBlockNum
    f["numTailLoop"] = f["numPerGroup"] % 8192 or 8192
    f["shapeCAlign"] = _ceil_div(c, 8) * 8                                 # SetTilingKey, 32 / sizeof(float)
    key = 200 + 10
    if hw == 1:
        key += 1
    elif f["numPerGroup"] <= ProcessSize:
        key += 2 if f["shapeCAlign"] + f["groupPerCoreAlign"] <= ProcessSize * 2 // 4 - 8 else 4
    else:
        key += 3 if f["shapeCAlign"] + f["groupPerCoreAlign"] <= ProcessSize * 2 // 4 - f["loopTimesAlign"] * 2 else 4
    for name, value in f.items():
        t[name] = value
    return used, key, t.view(np.uint8).copy()


def _copy_params(nbytes):
    return aj.DataCopyParams(1, nbytes, 0, 0)


class GroupNormSwishSmallB32:
    """`GroupNormSwishBase<float, float>` with `GroupNormSwishSmallB32<float, float>` (the 220 paths)."""

    # GroupNormSwishBase
    def InitGlobal(self, x, gamma, beta, y, mean, rstd, tilingData, pipeIn):
        t = self.tiling = tilingData
        self.blockIdx, self.usedBlock = aj.GetBlockIdx(), aj.GetBlockNum()
        self.pipe = pipeIn
        self.numPerGroup, self.hwNum, self.shapeD = int(t.numPerGroup), int(t.hwNum), int(t.shapeD)
        self.groupPerCore = int(t.groupPerCore)
        xGMOffset = self.blockIdx * self.groupPerCore * self.numPerGroup
        self.xGm, self.yGm, self.gammaGm, self.betaGm, self.meanGm, self.rstdGm = \
            (aj.GlobalTensor() for _ in range(6))
        self.xGm.SetGlobalBuffer(x[xGMOffset:])
        self.yGm.SetGlobalBuffer(y[xGMOffset:])
        self.gammaGm.SetGlobalBuffer(gamma)
        self.betaGm.SetGlobalBuffer(beta)
        self.meanGm.SetGlobalBuffer(mean)
        self.rstdGm.SetGlobalBuffer(rstd)

    def InitLocalB32(self, inQueSize, outQueSize, bufSize):
        p, t = self.pipe, self.tiling
        self.inQueueX, self.inQueueGamma, self.inQueueBeta = (aj.TQue(aj.QuePosition.VECIN, 1) for _ in range(3))
        self.outQueueY, self.outQueueMean, self.outQueueRstd = (aj.TQue(aj.QuePosition.VECOUT, 1) for _ in range(3))
        self.x2Buf32, self.meanBuf32, self.rstdBuf32 = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(3))
        p.InitBuffer(self.inQueueGamma, 1, inQueSize * 4)
        p.InitBuffer(self.inQueueBeta, 1, inQueSize * 4)
        p.InitBuffer(self.inQueueX, 2, int(t.numPerLoop) * 4)
        p.InitBuffer(self.outQueueY, 2, int(t.numPerLoop) * 4)
        p.InitBuffer(self.outQueueMean, 1, outQueSize * 4)
        p.InitBuffer(self.outQueueRstd, 1, outQueSize * 4)
        p.InitBuffer(self.x2Buf32, int(t.numPerLoop) * 4)
        p.InitBuffer(self.meanBuf32, bufSize * 4)
        p.InitBuffer(self.rstdBuf32, bufSize * 4)
        self.x2Ub32 = self.x2Buf32.Get("float")
        self.meanUb = self.meanBuf32.Get("float")
        self.rstdUb = self.rstdBuf32.Get("float")
        self.meanOut = self.outQueueMean.AllocTensor("float")
        self.rstdOut = self.outQueueRstd.AllocTensor("float")

    def CopyInX(self, xOffset, copyNum):
        xUb = self.inQueueX.AllocTensor("float")
        aj.DataCopyPad(xUb, self.xGm[xOffset], _copy_params(copyNum * 4), aj.DataCopyPadParams(False, 0, 0, 0))
        self.inQueueX.EnQue(xUb)

    def CopyOutY(self, yOffset, copyNum):
        yUb = self.outQueueY.DeQue("float")
        aj.DataCopyPad(self.yGm[yOffset], yUb, _copy_params(copyNum * 4))
        self.outQueueY.FreeTensor(yUb)

    def CastMeanAndRstd(self, copyNum):
        # T2 is float: the tiles are queued as they are
        self.outQueueMean.EnQue(self.meanOut)
        self.outQueueRstd.EnQue(self.rstdOut)

    def CopyOutMeanAndRstd(self, copyNum):
        meanOutT2 = self.outQueueMean.DeQue("float")
        rstdOutT2 = self.outQueueRstd.DeQue("float")
        if not ORIGINAL_SYNC:                          # deviation: the SetValue'd statistics before their copy-out
            e = aj.GetTPipePtr().FetchEventID(aj.HardEvent.S_MTE3)
            aj.SetFlag(e, event=aj.HardEvent.S_MTE3)
            aj.WaitFlag(e, event=aj.HardEvent.S_MTE3)
        params = aj.DataCopyParams(1, copyNum * 4, 0, 0)
        aj.DataCopyPad(self.meanGm[self.blockIdx * self.groupPerCore], meanOutT2, params)
        aj.DataCopyPad(self.rstdGm[self.blockIdx * self.groupPerCore], rstdOutT2, params)
        self.outQueueMean.FreeTensor(meanOutT2)
        self.outQueueRstd.FreeTensor(rstdOutT2)
        self.meanOut = self.outQueueMean.AllocTensor("float")
        self.rstdOut = self.outQueueRstd.AllocTensor("float")

    def CopyInGammaAndBeta(self, gmOffset, localOffset, copyNum):
        gammaLocal = self.inQueueGamma.AllocTensor("float")
        aj.DataCopyPad(gammaLocal, self.gammaGm[gmOffset], _copy_params(copyNum * 4),
                       aj.DataCopyPadParams(False, 0, 0, 0))
        self.inQueueGamma.EnQue(gammaLocal)
        betaLocal = self.inQueueBeta.AllocTensor("float")
        aj.DataCopyPad(betaLocal, self.betaGm[gmOffset], _copy_params(copyNum * 4),
                       aj.DataCopyPadParams(False, 0, 0, 0))
        self.inQueueBeta.EnQue(betaLocal)

    def ReduceSumCustomSmall(self, dstLocal, srcLocal, workLocal, count):
        repeat, tailNum = count // 64, count % 64
        if repeat > 0:
            aj.WholeReduceSum(workLocal, srcLocal, 64, repeat, 1, 1, 8)
            aj.PipeBarrier(aj.PIPE_V)
        if tailNum != 0:
            aj.WholeReduceSum(workLocal[repeat], srcLocal[count - tailNum], tailNum, 1, 1, 1, 8)
            aj.PipeBarrier(aj.PIPE_V)
            aj.WholeReduceSum(dstLocal, workLocal, repeat + 1, 1, 1, 1, 8)
        else:
            aj.PipeBarrier(aj.PIPE_V)
            aj.WholeReduceSum(dstLocal, workLocal, repeat, 1, 1, 1, 8)

    def ReduceSumCustom(self, dstLocal, srcLocal, workLocal, count):
        if count == doubleRNum:
            aj.BlockReduceSum(workLocal, srcLocal, 128, 64, 1, 1, 8)
            aj.PipeBarrier(aj.PIPE_V)
            aj.BlockReduceSum(workLocal, workLocal, 16, 64, 1, 1, 8)
            aj.PipeBarrier(aj.PIPE_V)
            aj.WholeReduceSum(dstLocal, workLocal, 64, 2, 1, 1, 8)
            aj.PipeBarrier(aj.PIPE_V)
        elif count <= reduceNum:
            dstLocal.SetValue(1, 0.0)
            self.ReduceSumCustomSmall(dstLocal, srcLocal, workLocal, count)
            aj.PipeBarrier(aj.PIPE_V)
        else:
            aj.BlockReduceSum(workLocal, srcLocal, 64, 64, 1, 1, 8)
            aj.PipeBarrier(aj.PIPE_V)
            aj.BlockReduceSum(workLocal, workLocal, 8, 64, 1, 1, 8)
            aj.PipeBarrier(aj.PIPE_V)
            aj.WholeReduceSum(dstLocal, workLocal, 64, 1, 1, 1, 8)
            aj.PipeBarrier(aj.PIPE_V)
            self.ReduceSumCustomSmall(dstLocal[1], srcLocal[reduceNum], workLocal, count - reduceNum)
            aj.PipeBarrier(aj.PIPE_V)

    # GroupNormSwishSmallB32
    def Init(self, x, gamma, beta, y, mean, rstd, tilingData, pipeIn):
        self.InitGlobal(x, gamma, beta, y, mean, rstd, tilingData, pipeIn)
        self.InitLocalB32(int(tilingData.shapeCAlign), int(tilingData.groupPerCoreAlign), oneBlockNum)

    def Process(self):
        if self.blockIdx >= self.usedBlock:
            return
        if self.blockIdx == self.usedBlock - 1:
            self.ProcessPerCore(int(self.tiling.groupLastCore))
        else:
            self.ProcessPerCore(self.groupPerCore)

    def ProcessPerCore(self, groupNum):
        self.CopyInGammaAndBeta(0, int(self.tiling.shapeCAlign), int(self.tiling.shapeC))
        self.Compute(groupNum)
        self.CastMeanAndRstd(groupNum)
        self.CopyOutMeanAndRstd(groupNum)

    def Compute(self, groupNum):
        if self.hwNum % 8 == 0:
            self.ComputeOneLoop(groupNum)
        else:
            self.ComputeMulLoop(groupNum)

    def ComputeOneLoop(self, groupNum):
        gammaLocal = self.inQueueGamma.DeQue("float")
        betaLocal = self.inQueueBeta.DeQue("float")
        for groupId in range(groupNum):
            self.CopyInX(groupId * self.numPerGroup, self.numPerGroup)
            xUb = self.inQueueX.DeQue("float")
            self.ComputeMeanAndRstd(groupId, xUb)
            self.ComputeOneLoopInner(groupId, gammaLocal, betaLocal, xUb)
            self.inQueueX.FreeTensor(xUb)
            self.CopyOutY(groupId * self.numPerGroup, self.numPerGroup)
        self.inQueueGamma.FreeTensor(gammaLocal)
        self.inQueueBeta.FreeTensor(betaLocal)

    def ComputeMeanAndRstd(self, groupId, xUb):
        n = self.numPerGroup
        self.ReduceSumCustom(self.meanUb, xUb, self.x2Ub32, n)
        eventIdVToS = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_S)
        aj.SetFlag(eventIdVToS, event=aj.HardEvent.V_S)
        aj.WaitFlag(eventIdVToS, event=aj.HardEvent.V_S)
        mean = np.float32(self.meanUb.GetValue(0)) + np.float32(self.meanUb.GetValue(1))
        mean = mean / np.float32(n)                       # float / int64_t: the count converted to float
        aj.Adds(self.x2Ub32, xUb, -mean, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Mul(self.x2Ub32, self.x2Ub32, self.x2Ub32, n)
        aj.PipeBarrier(aj.PIPE_V)
        self.ReduceSumCustom(self.rstdUb, self.x2Ub32, self.x2Ub32, n)

    def _statistics(self, groupId):
        """The scalar part both inner loops share: mean, rstd after a V_S pair, stored by SetValue."""
        n = np.float32(self.numPerGroup)
        eventIdVToS = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_S)
        aj.SetFlag(eventIdVToS, event=aj.HardEvent.V_S)
        aj.WaitFlag(eventIdVToS, event=aj.HardEvent.V_S)
        mean = np.float32(self.meanUb.GetValue(0)) + np.float32(self.meanUb.GetValue(1))
        rstd = np.float32(self.rstdUb.GetValue(0)) + np.float32(self.rstdUb.GetValue(1))
        mean = mean / n
        rstd = rstd / n
        rstd = np.float32(1.0) / np.sqrt(rstd + np.float32(self.tiling.epsilon))
        self.meanOut.SetValue(groupId, mean)
        self.rstdOut.SetValue(groupId, rstd)
        return mean, rstd

    def _scale_bias(self, gammaLocal, betaLocal, channel, mean, rstd):
        gamma = np.float32(gammaLocal.GetValue(channel))
        beta = np.float32(betaLocal.GetValue(channel))
        scale = rstd * gamma
        bias = -scale * mean + beta
        return scale, bias

    def ComputeOneLoopInner(self, groupId, gammaLocal, betaLocal, xUb):
        t = self.tiling
        groupIdGlobal = (self.blockIdx * self.groupPerCore + groupId) % int(t.numGroups)
        channelIdGlobal = groupIdGlobal * self.shapeD
        mean, rstd = self._statistics(groupId)
        yUb = self.outQueueY.AllocTensor("float")
        dstUb = xUb if int(t.activateSwish) else yUb
        hw = self.hwNum
        for i in range(self.shapeD):
            xOffset = i * hw
            scale, bias = self._scale_bias(gammaLocal, betaLocal, channelIdGlobal + i, mean, rstd)
            aj.Muls(xUb[xOffset], xUb[xOffset], scale, hw)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Adds(dstUb[xOffset], xUb[xOffset], bias, hw)
        aj.PipeBarrier(aj.PIPE_V)
        if int(t.activateSwish):
            n = self.numPerGroup
            aj.Muls(yUb, xUb, -np.float32(t.swishScale), n)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Exp(yUb, yUb, n)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Adds(yUb, yUb, np.float32(1.0), n)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Div(yUb, xUb, yUb, n)
            aj.PipeBarrier(aj.PIPE_V)
        self.outQueueY.EnQue(yUb)

    def ComputeMulLoop(self, groupNum):
        gammaLocal = self.inQueueGamma.DeQue("float")
        betaLocal = self.inQueueBeta.DeQue("float")
        for groupId in range(groupNum):
            self.CopyInX(groupId * self.numPerGroup, self.numPerGroup)
            xUb = self.inQueueX.DeQue("float")
            self.ComputeMeanAndRstd(groupId, xUb)
            self.inQueueX.FreeTensor(xUb)
            self.ComputeMulLoopInner(groupId, gammaLocal, betaLocal)
        self.inQueueGamma.FreeTensor(gammaLocal)
        self.inQueueBeta.FreeTensor(betaLocal)

    def ComputeMulLoopInner(self, groupId, gammaLocal, betaLocal):
        groupIdGlobal = (self.blockIdx * self.groupPerCore + groupId) % int(self.tiling.numGroups)
        channelIdGlobal = groupIdGlobal * self.shapeD
        mean, rstd = self._statistics(groupId)
        for i in range(self.shapeD):
            xOffset = groupId * self.numPerGroup + i * self.hwNum
            self.CopyInX(xOffset, self.hwNum)
            scale, bias = self._scale_bias(gammaLocal, betaLocal, channelIdGlobal + i, mean, rstd)
            self.CalcGroupNormSwish(scale, bias)
            self.CopyOutY(xOffset, self.hwNum)

    def CalcGroupNormSwish(self, scale, bias):
        t, hw = self.tiling, self.hwNum
        xUb = self.inQueueX.DeQue("float")
        yUb = self.outQueueY.AllocTensor("float")
        aj.Muls(xUb, xUb, scale, hw)
        aj.PipeBarrier(aj.PIPE_V)
        if int(t.activateSwish):
            aj.Adds(xUb, xUb, bias, hw)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Muls(yUb, xUb, -np.float32(t.swishScale), hw)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Exp(yUb, yUb, hw)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Adds(yUb, yUb, np.float32(1.0), hw)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Div(yUb, xUb, yUb, hw)
            aj.PipeBarrier(aj.PIPE_V)
        else:
            aj.Adds(yUb, xUb, bias, hw)
            aj.PipeBarrier(aj.PIPE_V)
        self.inQueueX.FreeTensor(xUb)
        self.outQueueY.EnQue(yUb)


aj.REGISTER_TILING_DEFAULT(GroupNormSwishTilingData)


def group_norm_swish(x, gamma, beta, y, mean, rstd, workspace, tiling_bytes, key):
    """The kernel entry (group_norm_swish.cpp); only TILING_KEY_IS(212) is ported."""
    tilingData = aj.GET_TILING_DATA(tiling_bytes)
    pipe = aj.TPipe()
    if key == 212:
        op = GroupNormSwishSmallB32()
        op.Init(x, gamma, beta, y, mean, rstd, tilingData, pipe)
        op.Process()


def run_group_norm_swish(device, x, gamma, beta, num_groups, eps=1e-5, activate_swish=True, swish_scale=1.0):
    """(y, mean, rstd) of a float [N, C, *HW] x; refused (ParameterError) when the host tiling picks another key."""
    used, key, tiling_bytes = tiling(x.shape, num_groups, eps, activate_swish, swish_scale)
    if key != 212:
        raise aj.ParameterError("group_norm_swish", "shape", tuple(x.shape), legal="a shape of tiling key 212 "
                                "(H x W > 1, C / G x H x W <= 8192, C and groups a core within 4088)", device=device)
    groups = x.shape[0] * num_groups
    pad = 8                                            # GM padded to 32 bytes, as device allocations are
    gm_x = np.zeros(x.size + pad, np.float32)
    gm_x[:x.size] = x.ravel()
    gm_y = np.zeros_like(gm_x)
    gm_g, gm_b = (np.zeros(x.shape[1] + pad, np.float32) for _ in range(2))
    gm_g[:x.shape[1]], gm_b[:x.shape[1]] = gamma, beta
    gm_mean, gm_rstd = (np.zeros(groups + pad, np.float32) for _ in range(2))
    aj.launch(group_norm_swish, used, device, gm_x, gm_g, gm_b, gm_y, gm_mean, gm_rstd, None, tiling_bytes, key)
    return gm_y[:x.size].reshape(x.shape), gm_mean[:groups], gm_rstd[:groups]


# -- the independent model ------------------------------------------------------------------------------------------

def _trees(device, form, mask, repeat):
    return aj.explain_reduce_order(device, form, "float", mask=mask, repeat_time=repeat)


def _whole(device, values, mask, repeat):
    """WholeReduceSum, src repeat stride 8: one float a repeat by the device's tree."""
    trees = _trees(device, "WholeReduceSum", mask, repeat)      # leaves index src across the repeats
    return np.array([tr.evaluate_batch(values[None, :])[0] for tr in trees], np.float32)


def _block(device, values, repeat):
    """BlockReduceSum mask 64: eight floats a repeat (one per 8-float DataBlock)."""
    trees = _trees(device, "BlockReduceSum", 64, 1)
    rows = values[:repeat * 64].reshape(repeat, 64)
    return np.stack([tr.evaluate_batch(rows) for tr in trees], axis=1).ravel().astype(np.float32)


def _small(device, v):
    count = v.size
    repeat, tail = count // 64, count % 64
    work = list(_whole(device, v, 64, repeat)) if repeat else []
    if tail:
        work.append(_whole(device, np.concatenate([v[count - tail:], np.zeros(64 - tail, np.float32)]), tail, 1)[0])
    w = np.zeros(64, np.float32)
    w[:len(work)] = work
    return _whole(device, w, len(work), 1)[0]


def reduce_sum_custom(device, v):
    """ReduceSumCustom's two partial sums (dst[0], dst[1]) of a float vector, replayed on the devices' trees."""
    count = v.size
    if count == doubleRNum:
        w = _block(device, _block(device, v, 128), 16)
        return _whole(device, w, 64, 2)
    if count <= reduceNum:
        return np.array([_small(device, v), 0.0], np.float32)
    w = _block(device, _block(device, v[:reduceNum], 64), 8)
    return np.array([_whole(device, w, 64, 1)[0], _small(device, v[reduceNum:])], np.float32)


def _exp32(v):
    with np.errstate(all="ignore"):
        return np.exp(v.astype(np.float64)).astype(np.float32)


def group_norm_swish_model(x, gamma, beta, num_groups, eps=1e-5, activate_swish=True, swish_scale=1.0,
                           device="atlas-a2"):
    """(y, mean, rstd): the kernel's float32 steps per group (two-part sums on the device's trees, scalar mean and
    rstd, per-channel Muls / Adds, the swish chain with exp and division rounded once, D37)."""
    n_, c = x.shape[0], x.shape[1]
    hw = x.size // (n_ * c)
    d = c // num_groups
    npg = np.float32(d * hw)
    xg = x.reshape(n_ * num_groups, d, hw).astype(np.float32)
    y = np.empty_like(xg)
    means, rstds = [], []
    f32 = np.float32
    with np.errstate(all="ignore"):
        for g in range(xg.shape[0]):
            v = xg[g].ravel()
            s = reduce_sum_custom(device, v)
            mean = (s[0] + s[1]) / npg
            sq = (v + (-mean)) * (v + (-mean))
            s2 = reduce_sum_custom(device, sq.astype(f32))
            rstd = f32(1.0) / np.sqrt((s2[0] + s2[1]) / npg + f32(eps))
            means.append(mean)
            rstds.append(rstd)
            for i in range(d):
                ch = (g % num_groups) * d + i
                scale = rstd * f32(gamma[ch])
                bias = -scale * mean + f32(beta[ch])
                z = xg[g, i] * scale + bias
                if activate_swish:
                    z = z / (_exp32(z * -f32(swish_scale)) + f32(1.0))
                y[g, i] = z
    return y.reshape(x.shape), np.array(means, f32), np.array(rstds, f32)


def _make_inputs(shape, groups):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        n = max(1, size // int(np.prod(shape)))
        x = rng.normal(0.5, 2.0, (n,) + shape).astype(np.float32)
        c = shape[0]
        return {"x": x, "gamma": rng.uniform(0.5, 1.5, c).astype(np.float32),
                "beta": rng.uniform(-1, 1, c).astype(np.float32), "groups": groups}
    return make_inputs


def _run(swish):
    def run(device, inputs):
        y, mean, rstd = run_group_norm_swish(device, inputs["x"], inputs["gamma"], inputs["beta"], inputs["groups"],
                                             activate_swish=swish)
        return {"y": y, "mean": mean, "rstd": rstd}
    return run


def _expected(swish):
    def expected(device, inputs):
        y, mean, rstd = group_norm_swish_model(inputs["x"], inputs["gamma"], inputs["beta"], inputs["groups"],
                                               activate_swish=swish, device=device)
        return {"y": y, "mean": mean, "rstd": rstd}
    return expected


_SOURCE = "hicann/ops-nn@e5c3fa93 norm/group_norm_swish/op_kernel/group_norm_swish_small_b32.h"
KERNELS = [
    KernelSpec(name, description, _make_inputs(shape, groups), _run(swish), _expected(swish), default_size=size,
               devices=DEVICES, source=_SOURCE,
               size_rule=f"a multiple of {int(np.prod(shape))} (N samples of {shape})",
               size_ok=lambda n, s=int(np.prod(shape)): n >= s)
    for name, shape, groups, swish, size, description in (
        ("group_norm_swish", (32, 9, 16), 8, True, 10 * 32 * 144, "GroupNormSwish, float, small groups (key "
         "212): per group ReduceSumCustom by WholeReduceSum (64-float repeats, the tail, the partials), V_S, "
         "scalar mean / rstd, Adds / Mul, per-channel Muls / Adds, Muls / Exp / Adds / Div swish"),
        ("group_norm_swish_odd_hw", (16, 5, 7), 4, False, 20 * 16 * 35, "GroupNormSwish without swish, H x W = 35 "
         "(ComputeMulLoop: each channel copied in again from an unaligned GM start)"),
        ("group_norm_swish_8192", (64, 8, 16), 1, False, 2 * 64 * 128, "GroupNormSwish without swish, 8192-float "
         "groups: BlockReduceSum 128 / 16 repeats and WholeReduceSum into two partial sums"))
]
