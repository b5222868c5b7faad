"""AvgPool3DGrad from the CANN NN operators, the NCDHW "only T" kernels (a window of 1 x 1 in H and W, stride 1
there): the input gradient of a 3-D average pool, each output-gradient plane scaled by 1 / (the window's divisor)
and added into every input depth its window covers -- by atomic adds into GM (or a float GM workspace for 16-bit
types) when windows overlap in depth.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, pooling/avg_pool3_d_grad/op_kernel:
- avg_pool3_d_grad.cpp (GetUserWorkspace, GET_TILING_DATA, KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0),
  tiling keys 3000 (`KernelAvgPool3DGradT<float>`) and 4000 (`KernelAvgPool3DGradTCast<DTYPE_GRADS>`));
- avg_pool3_d_grad_base_t.h (`KernelAvgPool3DGradBaseT`: ParseTilingData of the nested AvgPool3dGradTilingParam's
  hwParam and attrParam, four event ids fetched from the pipe, CalcIndex (line -> n, c, d, hw chunk; the depth
  window clipped to [0, inD) in uint64 arithmetic whose wrap the int64 min / max undo; the divisor: divisorOverride,
  the padded window or the clipped one), CopyIn by DataCopyPad);
- avg_pool3_d_grad_t.h (float: InitOutput of this core's share of y to 0 and SyncAll; SetAtomicAdd<T> when windows
  overlap; groups of nLine lines, each group's lines in their own slot of two TBufs, V_MTE2 and MTE3_V flags armed
  before the loop, awaited at the start of a group and set again at its end; per line CopyIn, an MTE2_V pair, Muls
  by the factor, a V_MTE3 pair, one DataCopyPad out a covered input depth);
- avg_pool3_d_grad_t_cast.h (half / bfloat16: Cast to float CAST_NONE, Muls; overlapping windows: the float lines
  added atomically into a float workspace (InitOutput to 0 there), then SyncAll, `pipe.Destroy()`, and a second
  TPipe re-initialising the TBufs to copy each core's share of the workspace back (DataCopyPad in, Cast CAST_RINT,
  DataCopyPad out, with MTE2_V / V_MTE3 flags); no overlap: Cast CAST_RINT and DataCopyPad straight to y),
with the host tiling of pooling/avg_pool3_d_grad/op_host/avg_pool_3d_grad_tiling.cpp (`InitDHW` (isOverlap,
isOnlyT), `CalcCoreNumAndDetermineFlag` (cores = min(cores, N * C * outD), non-deterministic), `Tiling4HWParam`
(the UB less 20 KiB split in 2 (float) or 3 / 4 (16-bit, overlapping or not) parts; a plane longer than a part is
cut into hwNum chunks, otherwise nLine planes a group), `Tiling4CastCopyOut`, `SetWorkspace` (16 MiB and, for 16-bit
types, a float per input element), `SetTilingKey`).

Deviations: the core count is the launch's 8 (GetCoreNumAiv). TILING_KEY_IS is not offered: the entry branches on
the host tiling's key. Only the "only T" keys are ported (the NDHWC keys 1000 / 2000 and the general NCDHW keys
5000 / 6000 are other kernels).

Devices: the configs list the 950, A3 and A2; InitOutput, SyncAll and atomic DataCopyPad run on all three.

Fidelity: BIT-EXACT (DataCopyPad, Muls, Cast, InitOutput and float atomic adds). The expectation is numpy's float32
replay: each line's plane times float32(1) / float32(divisor), added into y (or the float workspace, then rounded
RNE to T) in the order atomic adds commit in ascend_jit -- block by block in block-index order, each block's lines
in program order. In the gallery's case (window 3, stride 2) an input depth gets at most two terms, whose sum
onto 0 does not depend on the order; with stride 1 (CASES["triple"]) it gets three, and launch(...,
atomic_order="shuffle") can move the last bit (tests/test_nn38_kernels.py).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

SCALR_UB_SIZE = 20480
FP32_UB_PART, BF16_UB_PART, BF16_UB_PART_NO_OVERLAP = 2, 3, 4
ALIGN_BYTES = 32
TILINGKEY_ONLY_T_FP32, TILINGKEY_ONLY_T_BF16 = 3000, 4000
SYS_WORKSPACE = 16 * 1024 * 1024
CORE_NUM = 8
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}

_u64 = np.uint64
AttrParam = np.dtype([(n, _u64) for n in ("N", "C", "outN", "outD", "outH", "outW", "inN", "inD", "inH", "inW",
                                          "kD", "kH", "kW", "dD", "dH", "dW", "padD", "padH", "padW",
                                          "countIncludePad")]
                     + [("divisorOverride", np.int64), ("isOverLap", _u64), ("isDetermine", _u64)])
CParam = np.dtype([(n, _u64) for n in ("normalCoreCNum", "lastCoreCNum", "cAlign", "cTotal", "cCount", "cNum",
                                       "cLine", "cTail")])
CastCopy = np.dtype([(n, _u64) for n in (
    "maxDataNumInUb", "normalCoreNum", "tailCoreNum", "normalCoreDataNum", "tailCoreDataNum",
    "normalCoreFormerCopyTime", "normalCoreTailCopyTime", "normalCoreFormerDataNum", "normalCoreTailDataNum",
    "tailCoreFormerCopyTime", "tailCoreTailCopyTime", "tailCoreFormerDataNum", "tailCoreTailDataNum")])
HWParam = np.dtype([(n, _u64) for n in ("normalCoreHWNum", "lastCoreHWNum", "hwAlign", "hwTotal", "hwCount", "hwNum",
                                        "nLine", "hwTail")])
BlockParam = np.dtype([(n, _u64) for n in (
    "singleCoreNc", "singleCoreDo", "singleCoreHo", "singleCoreWo", "ncCnt", "doCnt", "hoCnt", "woCnt", "totalCnt",
    "ncTailData", "doTailData", "hoTailData", "woTailData", "baseDo", "baseHo", "baseWo", "baseDi", "baseHi",
    "baseWi", "ubSize", "isScatter")])
AvgPool3dGradTilingParam = np.dtype([("attrParam", AttrParam), ("cParam", CParam), ("castCopyParam", CastCopy),
                                     ("hwParam", HWParam), ("blockParam", BlockParam)])


def tiling(device, grad_shape, in_shape, ksize, strides, pads, count_include_pad, divisor_override, dtype):
    """AvgPool3dGradTiling::Init / SetKernelTiling for NCDHW with kH = kW = dH = dW = 1: (block dim, tiling key,
    the packed tiling data, workspace bytes)."""
    N, C, outD, outH, outW = grad_shape
    inN, inD, inH, inW = in_shape
    kD, kH, kW = ksize
    dD, dH, dW = strides
    padD, padH, padW = pads
    is_overlap = int(dD < kD or dH < kH or dW < kW)
    is_only_t = int(kH == 1 and dH == 1 and kW == 1 and dW == 1)
    if not is_only_t:
        raise NotImplementedError("only the 'only T' keys (kH = kW = dH = dW = 1) are ported")
    nc = N * C
    byte_size = TYPE_SIZE[dtype]
    ws = SYS_WORKSPACE + (inD * inH * inW * nc * 4 if dtype != "float" else 0)
    core_num = min(CORE_NUM, nc * outD)                              # CalcCoreNumAndDetermineFlag
    ub = aj.get_device(device).ub_bytes
    t = np.zeros(1, AvgPool3dGradTilingParam)
    # Tiling4HWParam
    ub_left = ub - SCALR_UB_SIZE
    ub_part = FP32_UB_PART if dtype == "float" else (BF16_UB_PART if is_overlap else BF16_UB_PART_NO_OVERLAP)
    ub_max_hw = ub_left // ub_part // ALIGN_BYTES * ALIGN_BYTES // byte_size
    hw_shape = outH * outW
    if hw_shape > ub_max_hw:
        hw_align = hw_count = ub_max_hw
        hw_num = -(-hw_shape // hw_count)
        hw_tail = hw_shape - (hw_num - 1) * hw_count
        hw_line = 1
    else:
        hw_align = -(-hw_shape // (ALIGN_BYTES // byte_size)) * (ALIGN_BYTES // byte_size)
        hw_count, hw_num, hw_tail = hw_shape, 1, hw_shape
        hw_line = ub_max_hw // hw_align
    divid = N * C * outD * hw_num
    normal = divid // core_num
    h = t["hwParam"]
    for name, value in (("normalCoreHWNum", normal), ("lastCoreHWNum", divid - normal * (core_num - 1)),
                        ("hwAlign", hw_align), ("hwTotal", hw_shape), ("hwCount", hw_count), ("hwNum", hw_num),
                        ("nLine", hw_line), ("hwTail", hw_tail)):
        h[name] = value
    t["hwParam"] = h
    if dtype != "float":                                             # Tiling4CastCopyOut
        grad = inD * inH * inW * nc
        c = t["castCopyParam"]
        max_ub = (ub - SCALR_UB_SIZE) // 2 // BF16_UB_PART
        normal_num, tail_num = grad % core_num, core_num - grad % core_num
        normal_data, tail_data = -(-grad // core_num), grad // core_num
        values = {"maxDataNumInUb": max_ub, "normalCoreNum": normal_num, "tailCoreNum": tail_num,
                  "normalCoreDataNum": normal_data, "tailCoreDataNum": tail_data}
        for prefix, data in (("normalCore", normal_data), ("tailCore", tail_data)):
            times = -(-data // max_ub)
            former = data % times
            values[prefix + "FormerCopyTime"] = former
            values[prefix + "TailCopyTime"] = times - former
            values[prefix + "FormerDataNum"] = -(-data // times)
            values[prefix + "TailDataNum"] = data // times
        for name, value in values.items():
            c[name] = value
        t["castCopyParam"] = c
    a = t["attrParam"]
    for name, value in (("N", N), ("C", C), ("inN", inN), ("inD", inD), ("inH", inH), ("inW", inW), ("outN", N),
                        ("outD", outD), ("outH", outH), ("outW", outW), ("kD", kD), ("kH", kH), ("kW", kW),
                        ("dD", dD), ("dH", dH), ("dW", dW), ("padD", padD), ("padH", padH), ("padW", padW),
                        ("countIncludePad", int(count_include_pad)), ("divisorOverride", divisor_override),
                        ("isOverLap", is_overlap), ("isDetermine", 0)):
        a[name] = value
    t["attrParam"] = a
    b = t["blockParam"]
    b["singleCoreNc"] = 64                                           # the tiling class's default, unused here
    t["blockParam"] = b
    key = TILINGKEY_ONLY_T_FP32 if dtype == "float" else TILINGKEY_ONLY_T_BF16
    return core_num, key, t.view(np.uint8).copy(), ws


class KernelAvgPool3DGradBaseT:
    def __init__(self, T):
        self.T = T
        self.pipe = aj.TPipe()
        self.xInBuf, self.yOutBuf = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)

    def ParseTilingData(self, tilingData):
        hw, at = tilingData.hwParam, tilingData.attrParam
        self.normalCoreHWNum, self.lastCoreHWNum = int(hw.normalCoreHWNum), int(hw.lastCoreHWNum)
        self.hwTotal, self.hwCount, self.hwNum = int(hw.hwTotal), int(hw.hwCount), int(hw.hwNum)
        self.hwTail, self.nLine, self.hwAlign = int(hw.hwTail), int(hw.nLine), int(hw.hwAlign)
        self.N, self.C, self.outD, self.inD = int(at.N), int(at.C), int(at.outD), int(at.inD)
        self.kD, self.dD, self.padD = int(at.kD), int(at.dD), int(at.padD)
        self.countIncludePad = bool(at.countIncludePad)
        self.divisorOverride = int(at.divisorOverride)
        self.kernelsOverlap = bool(at.isOverLap)
        self.isDetermine = int(at.isDetermine)
        self.thisCoreNum = self.lastCoreHWNum if self.thisCoreIdx == self.coreNum - 1 else self.normalCoreHWNum
        self.nLine = min(self.nLine, self.thisCoreNum)

    def GetEventIds(self):
        pipe = aj.GetTPipePtr()
        self.eventIdMte2ToV = pipe.FetchEventID(aj.HardEvent.MTE2_V)
        self.eventIdMte3ToV = pipe.FetchEventID(aj.HardEvent.MTE3_V)
        self.eventIdV2Mte2 = pipe.FetchEventID(aj.HardEvent.V_MTE2)
        self.eventIdV2Mte3 = pipe.FetchEventID(aj.HardEvent.V_MTE3)

    def CalcIndex(self, index):
        self.indexN = (index // (self.C * self.outD * self.hwNum)) % self.N
        self.indexC = (index // (self.outD * self.hwNum)) % self.C
        self.indexD = (index // self.hwNum) % self.outD
        self.indexHW = index % self.hwNum
        self.thisIterCount = self.hwTail if self.indexHW == self.hwNum - 1 else self.hwCount
        # the original's uint64 dStart may wrap below 0; its int64 min / max read it back as the signed value
        dStart = self.indexD * self.dD - self.padD
        dEnd = min(dStart + self.kD, self.inD + self.padD)
        self.poolSize = dEnd - dStart
        self.dStart, self.dEnd = max(dStart, 0), min(dEnd, self.inD)
        self.kernelSize = self.dEnd - self.dStart
        if self.divisorOverride:
            self.mulsFactor = np.float32(1.0) / np.float32(self.divisorOverride)
        elif self.countIncludePad:
            self.mulsFactor = np.float32(1.0) / np.float32(self.poolSize)
        else:
            self.mulsFactor = np.float32(1.0) / np.float32(self.kernelSize)

    def CopyIn(self, n, c, d, hw, ubIndex):
        dstUbOffset = ubIndex * self.hwAlign
        srcGmOffset = n * (self.C * self.outD * self.hwTotal) + c * (self.outD * self.hwTotal) + \
            d * self.hwTotal + hw * self.hwCount
        copyExtParams = aj.DataCopyExtParams(1, self.thisIterCount * TYPE_SIZE[self.T], 0, 0, 0)
        copyPadExtParams = aj.DataCopyPadExtParams(False, 0, 0, 0)
        aj.DataCopyPad(self.outputGradUb[dstUbOffset], self.xGm[srcGmOffset], copyExtParams, copyPadExtParams)

    def _dst_offset(self, n, c, d, hw):
        return n * (self.C * self.inD * self.hwTotal) + c * (self.inD * self.hwTotal) + d * self.hwTotal + \
            hw * self.hwCount

    def _output_share(self):
        """ClearOutput's split of the y elements: (offset, count) of this core."""
        yGmCount = self.N * self.C * self.inD * self.hwTotal
        formerNum = yGmCount % self.coreNum
        formerCount = (yGmCount + self.coreNum - 1) // self.coreNum
        tailCount = yGmCount // self.coreNum
        if self.thisCoreIdx < formerNum:
            return self.thisCoreIdx * formerCount, formerCount
        return formerNum * formerCount + (self.thisCoreIdx - formerNum) * tailCount, tailCount

    def _lines(self, per_line):
        """ProcessAndCopyout's loop: groups of nLine lines between the V_MTE2 / MTE3_V flags."""
        processStart = self.normalCoreHWNum * self.thisCoreIdx
        processEnd = processStart + self.thisCoreNum
        aj.SetFlag(self.eventIdV2Mte2, event=aj.HardEvent.V_MTE2)
        aj.SetFlag(self.eventIdMte3ToV, event=aj.HardEvent.MTE3_V)
        for index in range(processStart, processEnd, self.nLine):
            indexEnd = min(index + self.nLine, processEnd)
            aj.WaitFlag(self.eventIdV2Mte2, event=aj.HardEvent.V_MTE2)
            aj.WaitFlag(self.eventIdMte3ToV, event=aj.HardEvent.MTE3_V)
            for i in range(index, indexEnd):
                per_line(i, i - index)
            aj.SetFlag(self.eventIdV2Mte2, event=aj.HardEvent.V_MTE2)
            aj.SetFlag(self.eventIdMte3ToV, event=aj.HardEvent.MTE3_V)
        aj.WaitFlag(self.eventIdV2Mte2, event=aj.HardEvent.V_MTE2)
        aj.WaitFlag(self.eventIdMte3ToV, event=aj.HardEvent.MTE3_V)


class KernelAvgPool3DGradT(KernelAvgPool3DGradBaseT):
    """Key 3000: float."""

    def Init(self, grads, output, tilingData, workspace):
        self.thisCoreIdx, self.coreNum = aj.GetBlockIdx(), aj.GetBlockNum()
        self.ParseTilingData(tilingData)
        self.GetEventIds()
        self.xGm, self.yGm = aj.GlobalTensor(dtype=self.T), aj.GlobalTensor(dtype=self.T)
        self.xGm.SetGlobalBuffer(grads)
        self.yGm.SetGlobalBuffer(output)
        self.pipe.InitBuffer(self.xInBuf, self.nLine * self.hwAlign * 4)
        self.pipe.InitBuffer(self.yOutBuf, self.nLine * self.hwAlign * 4)
        self.ClearOutput()
        self.outputGradUb = self.xInBuf.Get(self.T)
        self.inputGradUb = self.yOutBuf.Get(self.T)

    def ClearOutput(self):
        offset, count = self._output_share()
        aj.InitOutput(self.yGm[offset], count, np.float32(0))
        aj.SyncAll()

    def Process(self):
        if self.kernelsOverlap:
            aj.SetAtomicAdd(self.T)
        self._lines(self.ProcessPerLine)
        if self.kernelsOverlap:
            aj.SetAtomicNone()

    def ProcessPerLine(self, index, ubIndex):
        self.CalcIndex(index)
        self.CopyIn(self.indexN, self.indexC, self.indexD, self.indexHW, ubIndex)
        aj.SetFlag(self.eventIdMte2ToV, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(self.eventIdMte2ToV, event=aj.HardEvent.MTE2_V)
        offset = ubIndex * self.hwAlign
        aj.Muls(self.inputGradUb[offset], self.outputGradUb[offset], self.mulsFactor, self.thisIterCount)
        aj.SetFlag(self.eventIdV2Mte3, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(self.eventIdV2Mte3, event=aj.HardEvent.V_MTE3)
        for iD in range(self.dStart, self.dEnd):
            copyExtParams = aj.DataCopyExtParams(1, self.thisIterCount * 4, 0, 0, 0)
            aj.DataCopyPad(self.yGm[self._dst_offset(self.indexN, self.indexC, iD, self.indexHW)],
                           self.inputGradUb[offset], copyExtParams)
        if self.isDetermine:
            aj.PipeBarrier(aj.PIPE_MTE3)


class KernelAvgPool3DGradTCast(KernelAvgPool3DGradBaseT):
    """Key 4000: half / bfloat16 through float."""

    def __init__(self, T):
        super().__init__(T)
        self.pipeCopyCast = None
        self.calcBuffer = aj.TBuf(aj.QuePosition.VECCALC)

    def Init(self, grads, output, tilingData, workspace):
        self.thisCoreIdx, self.coreNum = aj.GetBlockIdx(), aj.GetBlockNum()
        self.ParseTilingData(tilingData)
        self.ParseTilingDataForCast(tilingData)
        self.GetEventIds()
        self.xGm, self.yGm = aj.GlobalTensor(dtype=self.T), aj.GlobalTensor(dtype=self.T)
        self.xGm.SetGlobalBuffer(grads)
        self.yGm.SetGlobalBuffer(output)
        self.workspaceGm = aj.GlobalTensor(dtype="float")
        self.workspaceGm.SetGlobalBuffer(workspace.view(np.float32))
        size = TYPE_SIZE[self.T]
        self.pipe.InitBuffer(self.xInBuf, self.nLine * self.hwAlign * size)
        self.pipe.InitBuffer(self.calcBuffer, self.nLine * self.hwAlign * 4)
        self.outputGradUb = self.xInBuf.Get(self.T)
        self.calcUb = self.calcBuffer.Get("float")
        if not self.kernelsOverlap:
            self.pipe.InitBuffer(self.yOutBuf, self.nLine * self.hwAlign * size)
            self.inputGradUb = self.yOutBuf.Get(self.T)
        self.ClearOutput()

    def ParseTilingDataForCast(self, tilingData):
        c = tilingData.castCopyParam
        self.maxDataNumInUb = int(c.maxDataNumInUb)
        self.normalCoreNum, self.normalCoreDataNum = int(c.normalCoreNum), int(c.normalCoreDataNum)
        self.tailCoreDataNum = int(c.tailCoreDataNum)
        if self.thisCoreIdx < self.normalCoreNum:
            self.tileFormerLen, self.tileFormerLoop = int(c.normalCoreFormerDataNum), int(c.normalCoreFormerCopyTime)
            self.tileTailLen, self.tileTailLoop = int(c.normalCoreTailDataNum), int(c.normalCoreTailCopyTime)
            self.offset = self.thisCoreIdx * self.normalCoreDataNum
        else:
            self.tileFormerLen, self.tileFormerLoop = int(c.tailCoreFormerDataNum), int(c.tailCoreFormerCopyTime)
            self.tileTailLen, self.tileTailLoop = int(c.tailCoreTailDataNum), int(c.tailCoreTailCopyTime)
            self.offset = self.normalCoreNum * self.normalCoreDataNum + \
                (self.thisCoreIdx - self.normalCoreNum) * self.tailCoreDataNum

    def ClearOutput(self):
        offset, count = self._output_share()
        if self.kernelsOverlap:
            aj.InitOutput(self.workspaceGm[offset], count, np.float32(0))
        else:
            aj.InitOutput(self.yGm[offset], count, _NP[self.T](0))
        aj.SyncAll()

    def Process(self):
        self.ProcessAndCopyout()
        if self.kernelsOverlap:
            aj.SyncAll()
            self.pipe.Destroy()
            self.ProcessWorkspace()

    def ProcessAndCopyout(self):
        if self.kernelsOverlap:
            aj.SetAtomicAdd("float")
        self._lines(self.ProcessPerLine)
        if self.kernelsOverlap:
            aj.SetAtomicNone()

    def ProcessPerLine(self, index, ubIndex):
        self.CalcIndex(index)
        self.CopyIn(self.indexN, self.indexC, self.indexD, self.indexHW, ubIndex)
        aj.SetFlag(self.eventIdMte2ToV, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(self.eventIdMte2ToV, event=aj.HardEvent.MTE2_V)
        self.Compute(ubIndex)
        aj.SetFlag(self.eventIdV2Mte3, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(self.eventIdV2Mte3, event=aj.HardEvent.V_MTE3)
        for iD in range(self.dStart, self.dEnd):
            self.CopyOut(self.indexN, self.indexC, iD, self.indexHW, ubIndex)

    def Compute(self, ubIndex):
        offset = ubIndex * self.hwAlign
        aj.Cast(self.calcUb[offset], self.outputGradUb[offset], aj.RoundMode.CAST_NONE, self.thisIterCount)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(self.calcUb[offset], self.calcUb[offset], self.mulsFactor, self.thisIterCount)
        if not self.kernelsOverlap:
            aj.Cast(self.inputGradUb[offset], self.calcUb[offset], aj.RoundMode.CAST_RINT, self.thisIterCount)

    def CopyOut(self, n, c, d, hw, ubIndex):
        srcUbOffset = ubIndex * self.hwAlign
        dst = self._dst_offset(n, c, d, hw)
        if not self.kernelsOverlap:
            copyExtParams = aj.DataCopyExtParams(1, self.thisIterCount * TYPE_SIZE[self.T], 0, 0, 0)
            aj.DataCopyPad(self.yGm[dst], self.inputGradUb[srcUbOffset], copyExtParams)
        else:
            copyExtParams = aj.DataCopyExtParams(1, self.thisIterCount * 4, 0, 0, 0)
            aj.DataCopyPad(self.workspaceGm[dst], self.calcUb[srcUbOffset], copyExtParams)

    def ProcessWorkspace(self):
        self.pipeCopyCast = aj.TPipe()
        self.pipeCopyCast.InitBuffer(self.yOutBuf, self.maxDataNumInUb * TYPE_SIZE[self.T])
        self.pipeCopyCast.InitBuffer(self.calcBuffer, self.maxDataNumInUb * 4)
        self.inputGradUb = self.yOutBuf.Get(self.T)
        self.calcUb = self.calcBuffer.Get("float")
        aj.SetFlag(self.eventIdV2Mte2, event=aj.HardEvent.V_MTE2)
        aj.SetFlag(self.eventIdMte3ToV, event=aj.HardEvent.MTE3_V)
        for process in range(self.tileFormerLoop + self.tileTailLoop):
            if process < self.tileFormerLoop:
                thisIterNum = self.tileFormerLen
                workspaceOffset = self.offset + process * self.tileFormerLen
            else:
                thisIterNum = self.tileTailLen
                workspaceOffset = self.offset + self.tileFormerLoop * self.tileFormerLen + \
                    (process - self.tileFormerLoop) * self.tileTailLen
            aj.WaitFlag(self.eventIdV2Mte2, event=aj.HardEvent.V_MTE2)
            aj.WaitFlag(self.eventIdMte3ToV, event=aj.HardEvent.MTE3_V)
            self.CopyFromWorkspaceToGm(workspaceOffset, thisIterNum)
            aj.SetFlag(self.eventIdV2Mte2, event=aj.HardEvent.V_MTE2)
            aj.SetFlag(self.eventIdMte3ToV, event=aj.HardEvent.MTE3_V)
        aj.WaitFlag(self.eventIdV2Mte2, event=aj.HardEvent.V_MTE2)
        aj.WaitFlag(self.eventIdMte3ToV, event=aj.HardEvent.MTE3_V)

    def CopyFromWorkspaceToGm(self, offset, count):
        copyExtParams = aj.DataCopyExtParams(1, count * 4, 0, 0, 0)
        aj.DataCopyPad(self.calcUb, self.workspaceGm[offset], copyExtParams, aj.DataCopyPadExtParams(False, 0, 0, 0))
        aj.SetFlag(self.eventIdMte2ToV, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(self.eventIdMte2ToV, event=aj.HardEvent.MTE2_V)
        aj.Cast(self.inputGradUb, self.calcUb, aj.RoundMode.CAST_RINT, count)
        aj.SetFlag(self.eventIdV2Mte3, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(self.eventIdV2Mte3, event=aj.HardEvent.V_MTE3)
        copyExtParams = aj.DataCopyExtParams(1, count * TYPE_SIZE[self.T], 0, 0, 0)
        aj.DataCopyPad(self.yGm[offset], self.inputGradUb, copyExtParams)


aj.REGISTER_TILING_DEFAULT(AvgPool3dGradTilingParam)


def avg_pool3_d_grad(orig_input_shape, grads, output, workspace, tiling, tiling_key, DTYPE_GRADS):
    """The kernel entry; tiling_key stands for TILING_KEY_IS (not offered), DTYPE_GRADS for the build's macro."""
    userWorkspace = aj.GetUserWorkspace(workspace)
    tiling_data = aj.GET_TILING_DATA(tiling)
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_MIX_AIV_1_0)
    if tiling_key == TILINGKEY_ONLY_T_FP32:
        op = KernelAvgPool3DGradT("float")
    elif tiling_key == TILINGKEY_ONLY_T_BF16:
        op = KernelAvgPool3DGradTCast(DTYPE_GRADS)
    else:
        return
    op.Init(grads, output, tiling_data, userWorkspace)
    op.Process()


# the gallery's case: N 2, C 3, input depth 9, window 3 / stride 2 / pad 1 in depth (overlapping), plane = size
CASES = {"overlap": dict(in_d=9, ksize=(3, 1, 1), strides=(2, 1, 1), pads=(1, 0, 0)),
         "disjoint": dict(in_d=9, ksize=(2, 1, 1), strides=(3, 1, 1), pads=(1, 0, 0)),
         "triple": dict(in_d=9, ksize=(3, 1, 1), strides=(1, 1, 1), pads=(1, 0, 0))}
N_, C_ = 2, 3


def out_depth(in_d, k, s, p):
    return (in_d + 2 * p - k) // s + 1


def _case(dtype, case="overlap", count_include_pad=True, divisor_override=0):
    cfg = CASES[case]

    def shapes(hw):
        od = out_depth(cfg["in_d"], cfg["ksize"][0], cfg["strides"][0], cfg["pads"][0])
        return (N_, C_, od, 1, hw), (N_, cfg["in_d"], 1, hw)

    def make_inputs(size, seed):
        grad_shape, _ = shapes(size)
        rng = np.random.default_rng(seed)
        return {"grads": rng.standard_normal(grad_shape).astype(_NP[dtype])}

    def run(device, inputs, atomic_order=None, seed=0):
        grads = inputs["grads"]
        hw = grads.shape[-1]
        grad_shape, in_shape = shapes(hw)
        block_dim, key, raw, ws = tiling(device, grad_shape, in_shape, cfg["ksize"], cfg["strides"], cfg["pads"],
                                         count_include_pad, divisor_override, dtype)
        y = np.zeros((N_, C_, cfg["in_d"], 1, hw), grads.dtype)
        shape_in = np.array([N_, C_, cfg["in_d"], 1, hw], np.uint32)
        extra = {} if atomic_order is None else {"atomic_order": atomic_order, "seed": seed}
        aj.launch(avg_pool3_d_grad, block_dim, device, shape_in, grads, y, np.zeros(ws, np.uint8), raw, key, dtype,
                  **extra)
        return {"y": y}

    def expected(device, inputs):
        g = inputs["grads"]
        hw = g.shape[-1]
        kD, dD, padD, in_d = cfg["ksize"][0], cfg["strides"][0], cfg["pads"][0], cfg["in_d"]
        acc = np.zeros((N_, C_, in_d, hw), np.float32)
        for n in range(N_):
            for c in range(C_):
                for od in range(g.shape[2]):
                    start = od * dD - padD
                    end = min(start + kD, in_d + padD)
                    pool = end - start
                    start, end = max(start, 0), min(end, in_d)
                    div = divisor_override or (pool if count_include_pad else end - start)
                    line = g[n, c, od, 0].astype(np.float32) * (np.float32(1) / np.float32(div))
                    for d in range(start, end):
                        acc[n, c, d] = acc[n, c, d] + line
        return {"y": acc.astype(g.dtype).reshape(N_, C_, in_d, 1, hw)}

    return make_inputs, run, expected


_SOURCE = "hicann/ops-nn@e5c3fa93 pooling/avg_pool3_d_grad/op_kernel/avg_pool3_d_grad_t.h"


def _spec(name, dtype, description, **kw):
    make_inputs, run, expected = _case(dtype, **kw)
    return KernelSpec(name, description, make_inputs, run, expected, default_size=4000, devices=DEVICES,
                      size_rule="the H x W plane's elements (N 2, C 3, depth 9)", source=_SOURCE)


KERNELS = [
    _spec("avg_pool3d_grad", "float", "AvgPool3DGrad 'only T' (key 3000): InitOutput + SyncAll, SetAtomicAdd, "
          "groups of plane lines in TBuf slots, Muls by 1 / divisor, one DataCopyPad per covered depth; nested "
          "TilingData"),
    _spec("avg_pool3d_grad_half", "half", "AvgPool3DGrad 'only T' over halves (key 4000): float lines added "
          "atomically into the GM workspace, SyncAll, pipe.Destroy(), a second TPipe casting the workspace back"),
    _spec("avg_pool3d_grad_bf16_disjoint", "bfloat16", "AvgPool3DGrad 'only T' over bfloat16 with disjoint depth "
          "windows (key 4000, no atomics): Cast, Muls, Cast CAST_RINT straight to y", case="disjoint",
          count_include_pad=False),
]
