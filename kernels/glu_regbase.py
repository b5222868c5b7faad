"""Glu from the CANN NN operators, the Ascend 950 (arch35) single-shape kernel: x of shape (rows, 2) split in halves
along the last dimension, y = a * sigmoid(b) with a = x[:, 0], b = x[:, 1], over float, half and bfloat16 (the
16-bit types computed in float lanes, even and odd lanes apart).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, activation/glu:
- op_kernel/glu_apt.cpp (the entry: KERNEL_TYPE_MIX_VECTOR_CORE, GetUserWorkspace, GET_TILING_DATA, tiling key 1:
  `GluSingleShape<DTYPE_X>`);
- op_kernel/arch35/glu_single_shape.h (`GluSingleShape<T>`): a core's numPerCore rows from blockIdx * numPerCore;
  depth-2 queues of 2 * 10 KiB floats (in) and 10 KiB floats (out); loopNum tiles of `group` rows and a tail of
  nLastTailGroup (the last core: tailLoopNum / lastTailGroup); CopyIn a DataCopyPad of group * 2 elements,
  ComputeSigmoidAndMul, CopyOut a DataCopyPad (DataCopyParams) of the tile's outputs;
- op_kernel/arch35/glu_common.h (`ComputeSigmoidAndMulWithDeInterleave`: CreateMask<T>, Duplicate 1.0f, a b8
  ALL mask; per vector of outputs UpdateMask<T>, two DataCopy loads and DeInterleave into a and b;
  `ComputeSigmoidAndMulCore`: float: Muls -1, Exp, Adds 1, Div, Mul by a; 16-bit: Cast of a and b to float from the
  even (RegLayout ZERO) and odd (RegLayout ONE) lanes, the float chain twice, Cast back into the even / odd lanes
  (CAST_RINT, NO_SAT) and Or of the two as uint16 registers; a DataCopy store under UpdateMask);
- op_host/glu_tiling_arch35.cpp and glu_tiling_common.h (commonBufferSize = (UB - 8 KiB) / (6 * 4), doubled for
  bfloat16 here and for half in GetTilingData; ny == 1: GetTilingDataSmall with isVreduce: group = bufSize,
  numPerCore = ceil(rows / cores), loopNum / nLastTailGroup, tailLoopNum / lastTailGroup for a short last core).

Deviations:
- the entry's KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_VECTOR_CORE) is refused on the 950 (decisions.md
  "KERNEL_TASK_TYPE_DEFAULT": the devkit page lists that type for the 310P only); the port declares
  KERNEL_TYPE_AIV_ONLY, what the launch runs either way;
- the core count is the launch's 8 (totalCoreNum in the original);
- DataCopy + DeInterleave of two data registers is refused (SPEC-2 14: Reg DeInterleave on data registers is not
  offered; the refusal names the load that moves the lanes so): the port loads a and b with one LoadAlign
  DIST_DINTLV_B32 / B16 (dual load: reg0 lane i = element 2i, reg1 lane i = element 2i + 1), the same lanes;
- the 16-bit path's Or of the even- and odd-lane halves, reinterpreted as uint16 registers, is refused twice over
  (SPEC-2 14: And/Or/Xor/Not on data registers are not offered; decisions.md: a RegTensor is not reinterpreted):
  the port Selects the even lanes of the ZERO-layout result and the odd ones of the ONE-layout result under a
  CreateMask<uint8_t, M4> mask (bit 4k set: the even half lanes), the same bits;
- at a short tile the VF's last loads read past the DataCopyPad's 32-byte blocks inside the queue buffer (harmless
  on the device; uninitialised for the sanitizer before session 54, clean with the lane tracking): the port zeroes
  those elements by a Duplicate before the copy-in (kept from before, no longer needed for the init check).

Devices: the arch35 build is the 950's (op_host/config/ascend950); the port runs there.

Fidelity: MODELLED (Reg Exp and Div, SPEC-2 0.3, D37, D38: the exact result rounded once), the rest BIT-EXACT.
Against float64 a * sigmoid(b) (b in [-8, 8], every intermediate normal): float within 6e-7 relative; half adds one
rounding to half (2**-11), bfloat16 to bfloat16 (2**-8).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
ZEROING = R.MaskMergeMode.ZEROING
CORE_NUM = 8                        # deviation: the launch's cores (totalCoreNum in the original)
BUFFER_NUM = 2
BUFFER_SIZE = 10 * 1024
BUFFER_SIZE_FACTOR = 6
RESERVED_SIZE_8K = 8 * 1024
TILINGKEY_SINGLESHAPE = 1
BLOCK_SIZE = {"float": 8, "half": 16, "bfloat16": 16}
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
VECTOR_LENGTH = 256

GluTilingData = np.dtype([("group", np.int64), ("loopNum", np.int64), ("tailLoopNum", np.int64),
                          ("nLastTailGroup", np.int64), ("lastTailGroup", np.int64), ("splitSize", np.int64),
                          ("realCoreNum", np.int64), ("numPerCore", np.int64), ("blockSize", np.int64),
                          ("tilingKey", np.int64), ("ny", np.int64)])

castTrait00 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, ZEROING, aj.RoundMode.UNKNOWN)
castTrait01 = R.CastTrait(R.RegLayout.ONE, R.SatMode.UNKNOWN, ZEROING, aj.RoundMode.UNKNOWN)
castTrait11 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, ZEROING, aj.RoundMode.CAST_RINT)
castTrait12 = R.CastTrait(R.RegLayout.ONE, R.SatMode.NO_SAT, ZEROING, aj.RoundMode.CAST_RINT)


def tiling(device, rows, dtype):
    """GluRegbaseTiling::RunFusionKernelTiling + RunCommonTiling for ny == 1: (tiling key, block dim, packed)."""
    ub = aj.get_device(device).ub_bytes - RESERVED_SIZE_8K
    commonBufferSize = ub // (BUFFER_SIZE_FACTOR * 4)
    if dtype == "bfloat16":
        commonBufferSize *= 2
    singleBufSize = commonBufferSize
    if dtype == "half":
        singleBufSize *= BLOCK_SIZE["half"] // BLOCK_SIZE["float"]
    t = np.zeros(1, GluTilingData)
    group = singleBufSize // 1
    numPerCore = -(-rows // CORE_NUM)
    realCoreNum = -(-rows // numPerCore)
    t["splitSize"], t["group"], t["numPerCore"] = 1, group, numPerCore
    t["loopNum"], t["nLastTailGroup"], t["realCoreNum"] = numPerCore // group, numPerCore % group, realCoreNum
    if numPerCore * realCoreNum != rows:
        tailTotalNum = rows - numPerCore * (realCoreNum - 1)
        t["tailLoopNum"], t["lastTailGroup"] = tailTotalNum // group, tailTotalNum % group
    t["blockSize"], t["tilingKey"], t["ny"] = BLOCK_SIZE[dtype], TILINGKEY_SINGLESHAPE, 1
    return TILINGKEY_SINGLESHAPE, realCoreNum, t.view(np.uint8).copy()


@R.simd_callee
def ComputeSigmoidAndMulCore(vregA, vregB, vregOutput, outLocalPtr, loopIdx, vlSize, preg0, maskAll8, vreg0,
                             evenLanes, T):
    vreg1, vreg2, vreg3 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    vreg4, vreg5, vreg6 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    vreg7, vreg8, vreg9 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    vreg10, vreg11, vreg12 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    vreg13, vreg14 = R.RegTensor("float"), R.RegTensor("float")
    vreg15, vreg16 = R.RegTensor(T), R.RegTensor(T)
    if T != "float":
        R.Cast(vreg5, vregA, maskAll8, castTrait00)
        R.Cast(vreg6, vregA, maskAll8, castTrait01)
        R.Cast(vreg8, vregB, maskAll8, castTrait00)
        R.Cast(vreg9, vregB, maskAll8, castTrait01)
        R.Muls(vreg1, vreg8, np.float32(-1), maskAll8, ZEROING)
        R.Exp(vreg2, vreg1, maskAll8, ZEROING)
        R.Adds(vreg3, vreg2, np.float32(1), maskAll8, ZEROING)
        R.Div(vreg4, vreg0, vreg3, maskAll8, ZEROING)
        R.Mul(vreg7, vreg4, vreg5, maskAll8)
        R.Muls(vreg11, vreg9, np.float32(-1), maskAll8, ZEROING)
        R.Exp(vreg12, vreg11, maskAll8, ZEROING)
        R.Adds(vreg13, vreg12, np.float32(1), maskAll8, ZEROING)
        R.Div(vreg14, vreg0, vreg13, maskAll8, ZEROING)
        R.Mul(vreg10, vreg14, vreg6, maskAll8)
        R.Cast(vreg15, vreg7, maskAll8, castTrait11)
        R.Cast(vreg16, vreg10, maskAll8, castTrait12)
        # the original: Or((RegTensor<uint16_t>&)vregOutput, (...&)vreg15, (...&)vreg16, maskAll8) (docstring)
        R.Select(vregOutput, vreg15, vreg16, evenLanes)
        R.DataCopy(outLocalPtr[loopIdx * vlSize], vregOutput, preg0)
    else:
        R.Muls(vreg1, vregB, np.float32(-1), preg0, ZEROING)
        R.Exp(vreg2, vreg1, preg0, ZEROING)
        R.Adds(vreg3, vreg2, np.float32(1), preg0, ZEROING)
        R.Div(vreg4, vreg0, vreg3, preg0, ZEROING)
        R.Mul(vregOutput, vreg4, vregA, preg0)
        R.DataCopy(outLocalPtr[loopIdx * vlSize], vregOutput, preg0)


def compute_with_deinterleave_vf(xLocalPtr, outLocalPtr, count, T):
    """ComputeSigmoidAndMulWithDeInterleave<T>'s __VEC_SCOPE__."""
    vl = VECTOR_LENGTH // (4 if T == "float" else 2)
    loopNum = (count + vl - 1) // vl
    vlSize = vl
    vreg0 = R.RegTensor("float")
    vregOutput, vreg1, vreg2 = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    size = count
    preg0 = R.CreateMask(T)
    R.Duplicate(vreg0, np.float32(1), preg0, ZEROING)
    maskAll8 = R.CreateMask("uint8", R.MaskPattern.ALL)
    evenLanes = R.CreateMask("uint8", R.MaskPattern.M4)      # not in the original (docstring)
    dintlv = R.LoadDist.DIST_DINTLV_B32 if T == "float" else R.LoadDist.DIST_DINTLV_B16
    for loopIdx in range(loopNum):
        preg0, size = R.UpdateMask(T, size)
        # the original: DataCopy of vregInput1 / vregInput2, then DeInterleave<T>(vreg1, vreg2, ...) (docstring)
        R.LoadAlign(vreg1, vreg2, xLocalPtr, loopIdx * 2 * vlSize, dist=dintlv)
        ComputeSigmoidAndMulCore(vreg1, vreg2, vregOutput, outLocalPtr, loopIdx, vlSize, preg0, maskAll8, vreg0,
                                 evenLanes, T)


COMPUTE_WITH_DEINTERLEAVE_VF = R.simd_vf(compute_with_deinterleave_vf)


class GluSingleShape:
    def __init__(self, T):
        self.T = T

    def Init(self, x, y, workspace, tilingData):
        self.blockIdx = aj.GetBlockIdx()
        t = tilingData
        self.splitSize, self.blockSize, self.group = int(t.splitSize), int(t.blockSize), int(t.group)
        self.realCoreNum, self.nLastTailGroup = int(t.realCoreNum), int(t.nLastTailGroup)
        self.lastTailGroup, self.loopNum, self.tailLoopNum = int(t.lastTailGroup), int(t.loopNum), int(t.tailLoopNum)
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x)
        self.yGm.SetGlobalBuffer(y)
        self.gmXOffset = self.blockIdx * int(t.numPerCore) * self.splitSize * 2
        self.gmYOffset = self.blockIdx * int(t.numPerCore) * self.splitSize
        self.one_process_in_stride = self.group * self.splitSize * 2
        self.one_process_out_stride = self.group * self.splitSize
        self.group_ub_num = self.group * self.splitSize
        self.nlast_tail_ub_num = self.nLastTailGroup * self.splitSize
        self.last_tail_ub_num = self.lastTailGroup * self.splitSize
        self.isLastCore = (self.blockIdx == self.realCoreNum - 1) and (self.tailLoopNum != 0 or
                                                                      self.lastTailGroup != 0)
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, 2 * BUFFER_SIZE * 4)
        self.pipe.InitBuffer(self.outQueue, BUFFER_NUM, BUFFER_SIZE * 4)

    def Process(self):
        if self.blockIdx >= self.realCoreNum:
            return
        if not self.isLastCore:
            self.ProcessPerCore()
        else:
            self.ProcessLastCore()

    def ProcessPerCore(self):
        for i in range(self.loopNum):
            self.CopyIn(i, self.group)
            self.ComputeSigmoidAndMul(self.group_ub_num)
            self.CopyOut(i, self.group_ub_num, self.group)
        if self.nLastTailGroup > 0:
            self.CopyIn(self.loopNum, self.nLastTailGroup)
            self.ComputeSigmoidAndMul(self.nlast_tail_ub_num)
            self.CopyOut(self.loopNum, self.nlast_tail_ub_num, self.nLastTailGroup)

    def ProcessLastCore(self):
        for i in range(self.tailLoopNum):
            self.CopyIn(i, self.group)
            self.ComputeSigmoidAndMul(self.group_ub_num)
            self.CopyOut(i, self.group_ub_num, self.group)
        if self.lastTailGroup > 0:
            self.CopyIn(self.tailLoopNum, self.lastTailGroup)
            self.ComputeSigmoidAndMul(self.last_tail_ub_num)
            self.CopyOut(self.tailLoopNum, self.last_tail_ub_num, self.lastTailGroup)

    def CopyIn(self, index, blockCount):
        T = self.T
        ubX = self.inQueueX.AllocTensor(T)
        one_process_total_num = blockCount * self.splitSize * 2
        vl = VECTOR_LENGTH // TYPE_SIZE[T]
        loaded = aj.CeilDivision(blockCount * self.splitSize, vl) * 2 * vl
        copied = aj.AlignUp(one_process_total_num * TYPE_SIZE[T], 32) // TYPE_SIZE[T]
        if loaded > copied:
            # not in the original: the last loads' elements past the copy (docstring)
            aj.Duplicate(ubX[copied], _NP[T](0), loaded - copied)
        intriParams = aj.DataCopyExtParams()
        intriParams.blockCount = 1
        intriParams.dstStride = 0
        intriParams.srcStride = 0
        intriParams.blockLen = one_process_total_num * TYPE_SIZE[T]
        intriPadParams = aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0))
        aj.DataCopyPad(ubX, self.xGm[self.gmXOffset + index * self.one_process_in_stride], intriParams,
                       intriPadParams)
        self.inQueueX.EnQue(ubX)

    def ComputeSigmoidAndMul(self, count):
        T = self.T
        xLocal = self.inQueueX.DeQue(T)
        outLocal = self.outQueue.AllocTensor(T)
        R.asc_vf_call(COMPUTE_WITH_DEINTERLEAVE_VF, xLocal, outLocal, count, T)
        self.inQueueX.FreeTensor(xLocal)
        self.outQueue.EnQue(outLocal)

    def CopyOut(self, index, count, group):
        T = self.T
        outLocal = self.outQueue.DeQue(T)
        intriParams = aj.DataCopyParams()
        intriParams.blockCount = 1
        intriParams.dstStride = 0
        intriParams.srcStride = 0
        intriParams.blockLen = count * TYPE_SIZE[T]
        aj.DataCopyPad(self.yGm[self.gmYOffset + index * self.one_process_out_stride], outLocal, intriParams)
        self.outQueue.FreeTensor(outLocal)


aj.REGISTER_TILING_DEFAULT(GluTilingData)


def glu(x, y, workspace, tiling_bytes, tiling_key, DTYPE_X):
    """The kernel entry (glu_apt.cpp), the single-shape branch."""
    # the original declares KERNEL_TYPE_MIX_VECTOR_CORE, which ascend_jit refuses on the 950 (docstring)
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    tilingData = aj.GET_TILING_DATA(tiling_bytes)
    if tiling_key == TILINGKEY_SINGLESHAPE:
        op = GluSingleShape(DTYPE_X)
        op.Init(x, y, workspace, tilingData)
        op.Process()


def run_glu(device, x):
    """x: (rows, 2); returns y of shape (rows, 1)."""
    dtype = {np.dtype(np.float32): "float", np.dtype(np.float16): "half"}.get(x.dtype, "bfloat16")
    rows = x.shape[0]
    key, block_dim, tiling_bytes = tiling(device, rows, dtype)
    y = np.zeros((rows, 1), x.dtype)
    workspace = np.zeros(32, np.uint8)      # the original's 16 MiB system workspace is not used by this branch
    aj.launch(glu, block_dim, device, x.reshape(-1), y.reshape(-1), workspace, tiling_bytes, key, dtype)
    return y


def glu_formula(x):
    xf = x.astype(np.float64)
    return (xf[:, :1] / (1.0 + np.exp(-xf[:, 1:]))).astype(x.dtype)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        rows = max(1, size // 2)
        x = rng.uniform(-8.0, 8.0, (rows, 2)).astype(np.float32)
        # |a| >= 0.5 keeps every result a normal number of the type (a * sigmoid(-8) >= 1.6e-4)
        x[:, 0] = np.copysign(rng.uniform(0.5, 8.0, rows), x[:, 0]).astype(np.float32)
        specials = np.array([[1.0, 0.0], [-2.0, 8.0], [3.0, -8.0], [0.5, 1e-3]], np.float32)
        x[:min(rows, 4)] = specials[:rows]
        return {"x": x.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"y": run_glu(device, inputs["x"])}


def _expected(device, inputs):
    return {"y": glu_formula(inputs["x"])}


def _size_ok(n):
    return 0 < n <= 1 << 22


_SOURCE = "hicann/ops-nn@e5c3fa93 activation/glu/op_kernel/arch35/glu_single_shape.h"
KERNELS = [
    KernelSpec("glu_regbase", "ops-nn Glu arch35 single shape, float (rows, 2): a VF of a DIST_DINTLV_B32 load "
               "(for DataCopy + DeInterleave), Muls, Exp, Adds, Div of a Duplicated 1, Mul, DataCopy store",
               _make_inputs("float"), _run, _expected, default_size=200000, devices=("ascend950",),
               size_rule="1 to 4Mi elements", size_ok=_size_ok, tolerance=6e-7, source=_SOURCE),
    KernelSpec("glu_regbase_half", "ops-nn Glu arch35 single shape, half: Casts from the even / odd lanes "
               "(RegLayout ZERO / ONE), the float chain twice, Casts back and a Select for the uint16 Or",
               _make_inputs("half"), _run, _expected, default_size=200000, devices=("ascend950",),
               size_rule="1 to 4Mi elements", size_ok=_size_ok, tolerance=1.1e-3, source=_SOURCE),
    KernelSpec("glu_regbase_bf16", "ops-nn Glu arch35 single shape, bfloat16 (as the half kernel)",
               _make_inputs("bfloat16"), _run, _expected, default_size=200000, devices=("ascend950",),
               size_rule="1 to 4Mi elements", size_ok=_size_ok, tolerance=8e-3, source=_SOURCE),
]
