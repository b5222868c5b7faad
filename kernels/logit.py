"""Logit from the CANN NN operators: y = ln(x / (1 - x)) with x first clamped to [eps, 1 - eps] when eps >= 0 (a NaN
input stays NaN), over float, half and bfloat16 (16-bit types computed in float).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, loss/logit/op_kernel/logit.h (`Logit::LogitND<T>`: one
192 KiB uint8 TBuf carved by hand into two ping-pong halves of 96 KiB, each tensor a `tmpTensor[bytes]
.ReinterpretCast<T>()`; the elements split evenly over needCoreNum cores, the first elementNum % cores one more;
tiles of 8192; two MTE3_MTE2 flags armed before the loop and awaited after it, one per half; CopyInAndCast:
DataCopyPad of the tile (16-bit types into the upper half of their float tile), an MTE2_V flag pair, Cast
CAST_NONE to float in place; ComputeStepOne (eps >= 0): a NaN mask by Compare(x, x, EQ) over the tile rounded up to
64 floats, written into the second float tile's bytes, CompareScalar GE eps and LE 1 - eps into two mask tiles,
two Select VSEL_TENSOR_SCALAR_MODE (x where the bit is set, else the bound), and a Select restoring NaN (the
scalar sqrt(-1.0f)); the 950 (__CCE_AICORE__ 310) branch clamps by Mins / Maxs when eps <= 0.5; ComputeStepTwo:
Muls -1, Adds 1, Div, Ln, or on the 950 one `__VEC_SCOPE__` of MicroAPI DataCopy DIST_NORM, Muls, Adds, Div,
Log, DataCopy DIST_NORM_B32 under an UpdateMask; CastAndCopyOut: Cast to T (half CAST_NONE, bfloat16 CAST_RINT)
in place, a V_MTE3 flag pair, DataCopyPad, SetFlag MTE3_MTE2 for the next use of that half) and logit.cpp
(GET_TILING_DATA; TILING_KEY_IS 1 / 2 / 3 for half / float / bfloat16), with the host tiling of
loss/logit/op_host/logit_tiling.cpp (`LogitTiling::RunBigKernelTiling`: needCoreNum = ceil(n / 8192), at least 1,
at most the platform's cores; workspace 16 MiB; the tiling key from the dtype).

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's). TILING_KEY_IS is not offered
(docs/decisions.md "Tiling macros"): the entry branches on the key the host tiling returns, passed as an argument.

Deviation 2 (the sanitizer's init check, DEVIATION_ZERO_TAIL): the NaN Compare reads the tile rounded up to 64
floats, and on the 950 the VF loads whole 64-float vectors: at a tile whose count is not a multiple of 64 the lanes
past it are UB no instruction of this launch wrote (on the first use of a half) -- values that never reach GM (their
mask bits are not selected by the count-form Select, their lanes are outside the UpdateMask). The port Duplicates 0
over the tile's last 64-float group before the copy in (from a 256-byte boundary: Duplicate wants 32-byte aligned
addresses) and orders the copy after it by a V_MTE2 flag pair. (Since session 61 the sanitizer follows the compared
lanes to their mask bits, which the Select of the count never reads: on the paths the tests run the original is
clean too, docs/decisions.md "Sanitizer".)

Devices: the original is built for the A2 / A3 (ascend910b, ascend910_93: __CCE_AICORE__ 220) and the 950
(ascend950); bfloat16 is left out on arch 3003 only. CompareScalar, Select, Div and Ln run on all three.

Fidelity: MODELLED (Div and Ln are MODELLED, SPEC-2 0.3; Compare, CompareScalar, Select, Muls, Adds, Mins, Maxs and
Cast are BIT-EXACT). The expectation is the float64 formula log(x / (1 - x)) of x (as float32) clamped to
[float32(eps), float32(1 - eps)]: the float32 chain's 1 - x is exact for x in [0.5, 1] (Sterbenz) and one rounding
elsewhere; the Div and Ln each add half an ulp, so the float result lies within a few float ulps of the formula
except where ln(.) is near 0 (x near 0.5: the relative error of 1 - x is magnified by 1 / |ln(x / (1 - x))|). Inputs
are drawn from [0.02, 0.98] away from (0.49, 0.51): 2e-5 relative for float, 2e-3 for half (2**-11 for the output
rounding) and 8e-3 for bfloat16. A NaN input stays NaN (among the gallery's inputs; the tolerance check matches a
NaN with a NaN).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
MAX_UB_SIZE = 192 * 1024
PP_ELEMENT_NUM = 8 * 1024
ONE_REPEAT_ELE_NUM_FP32 = 64
MAX_ELEMENT_NUM_EACH_CORE = 8 * 1024
TILING_KEY_HALF, TILING_KEY_FLOAT, TILING_KEY_BFLOAT16 = 1, 2, 3
WORKSPACE_SIZE = 16 * 1024 * 1024
CORE_NUM = 8
EPS = 1e-6
DEVIATION_ZERO_TAIL = True
ORIGINAL_LAYOUT = False
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
ZEROING = R.MaskMergeMode.ZEROING
FLOAT_LANES = aj.VECTOR_REG_WIDTH // 4

LogitTilingData = np.dtype([("elementNum", np.int64), ("eps", np.float32), ("needCoreNum", np.uint64)],
                           align=True)


def tiling(device, total, dtype, eps=EPS):
    """LogitTiling::RunBigKernelTiling: (block dim, tiling key, the packed LogitTilingData, workspace bytes)."""
    key = {"half": TILING_KEY_HALF, "float": TILING_KEY_FLOAT, "bfloat16": TILING_KEY_BFLOAT16}[dtype]
    need = -(-total // MAX_ELEMENT_NUM_EACH_CORE) or 1
    need = min(need, CORE_NUM)
    t = np.zeros(1, LogitTilingData)
    t["elementNum"], t["needCoreNum"], t["eps"] = total, need, eps
    return need, key, t.view(np.uint8).copy(), WORKSPACE_SIZE


def logit_vf(x1Addr, dataCount):
    """ComputeStepTwo's __VEC_SCOPE__ on the 950: ln(x / (1 - x)) in place, 64 floats a step."""
    regX, regTmp = R.RegTensor("float"), R.RegTensor("float")
    count = dataCount
    vfLoopNum = (count + FLOAT_LANES - 1) // FLOAT_LANES
    for i in range(vfLoopNum):
        preg0, count = R.UpdateMask("float", count)
        R.DataCopy(regX, x1Addr[i * FLOAT_LANES], dist=R.LoadDist.DIST_NORM)
        R.Muls(regTmp, regX, np.float32(-1.0), preg0, ZEROING)
        R.Adds(regTmp, regTmp, np.float32(1.0), preg0, ZEROING)
        R.Div(regX, regX, regTmp, preg0, ZEROING)
        R.Log(regX, regX, preg0)
        R.DataCopy(x1Addr[i * FLOAT_LANES], regX, preg0, dist=R.StoreDist.DIST_NORM_B32)


LOGIT_VF = R.simd_vf(logit_vf)


def _arch():
    """__NPU_ARCH__ of the running core (the original's `__CCE_AICORE__ == 310` is the 950's 3510)."""
    return aj.get_device(aj.current_core().device).arch


class LogitND:
    def __init__(self, T):
        self.T = T
        self.is16 = T in ("half", "bfloat16")
        self.eventId = aj.EVENT_ID0
        self.pingPongFlag = 0

    def Init(self, input, output, workspace, tilingData):
        self.pipe = aj.TPipe()
        self.inputGm, self.outputGm = aj.GlobalTensor(dtype=self.T), aj.GlobalTensor(dtype=self.T)
        self.inputGm.SetGlobalBuffer(input)
        self.outputGm.SetGlobalBuffer(output)
        self.eps = np.float32(tilingData.eps)
        self.elementNum = int(tilingData.elementNum)
        self.needCoreNumber = int(tilingData.needCoreNum)
        self.blockIdx = aj.GetBlockIdx()
        self.ubTBuf = aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.ubTBuf, MAX_UB_SIZE)
        self.tmpTensor = self.ubTBuf.Get("uint8")

    def Process(self):
        if self.blockIdx >= self.needCoreNumber:
            return
        perCore = self.elementNum // self.needCoreNumber
        coreRemain = self.elementNum % self.needCoreNumber
        myLen = perCore + (1 if self.blockIdx < coreRemain else 0)
        myStart = self.blockIdx * perCore + (self.blockIdx if self.blockIdx < coreRemain else coreRemain)
        myTimes = (myLen + PP_ELEMENT_NUM - 1) // PP_ELEMENT_NUM
        self.pingPongFlag = 0
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_MTE2)
        aj.SetFlag(aj.EVENT_ID1, event=aj.HardEvent.MTE3_MTE2)
        for i in range(myTimes):
            localOffset = i * PP_ELEMENT_NUM
            calNum = min(myLen - localOffset, PP_ELEMENT_NUM)
            self.eventId = aj.EVENT_ID1 if self.pingPongFlag else aj.EVENT_ID0
            self.CopyInAndCast(myStart + localOffset, calNum)
            if self.eps >= 0:
                self.ComputeStepOne(calNum)
            self.ComputeStepTwo(calNum)
            self.CastAndCopyOut(myStart + localOffset, calNum)
            self.pingPongFlag = 1 - self.pingPongFlag
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_MTE2)
        aj.WaitFlag(aj.EVENT_ID1, event=aj.HardEvent.MTE3_MTE2)

    def _half(self, byte_offset):
        """tmpTensor[byte_offset (+ MAX_UB_SIZE / 2 on the pong half)]."""
        return self.tmpTensor[byte_offset + (MAX_UB_SIZE // 2 if self.pingPongFlag else 0)]

    def CopyInAndCast(self, inputOffset, dataCount):
        T = self.T
        self.x1Tensor = self._half(0).ReinterpretCast(T)
        self.x2Tensor = self._half(PP_ELEMENT_NUM * 4).ReinterpretCast(T)
        aj.WaitFlag(self.eventId, event=aj.HardEvent.MTE3_MTE2)
        if DEVIATION_ZERO_TAIL and dataCount % ONE_REPEAT_ELE_NUM_FP32:
            # not in the original (docstring, deviation 2): the lanes past the tile up to 64 floats
            first = dataCount // ONE_REPEAT_ELE_NUM_FP32 * ONE_REPEAT_ELE_NUM_FP32
            aj.Duplicate(self._half(0).ReinterpretCast("float")[first], np.float32(0), ONE_REPEAT_ELE_NUM_FP32)
            aj.SetFlag(self.eventId, event=aj.HardEvent.V_MTE2)
            aj.WaitFlag(self.eventId, event=aj.HardEvent.V_MTE2)
        dataCopyParams = aj.DataCopyExtParams(1, dataCount * TYPE_SIZE[T], 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(False, 0, 0, 0)
        if self.is16:
            elementByte = PP_ELEMENT_NUM * TYPE_SIZE[T]
            self.x1Tmp = self._half(elementByte).ReinterpretCast(T)
            self.x2Tmp = self._half(elementByte + PP_ELEMENT_NUM * 4).ReinterpretCast(T)
            if not ORIGINAL_LAYOUT:
                self.x1Tmp = self.x2Tmp      # deviation 3: the 16-bit tile outside the float tile it widens into
            aj.DataCopyPad(self.x1Tmp, self.inputGm[inputOffset], dataCopyParams, padParams)
        else:
            aj.DataCopyPad(self.x1Tensor, self.inputGm[inputOffset], dataCopyParams, padParams)
        aj.SetFlag(self.eventId, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(self.eventId, event=aj.HardEvent.MTE2_V)
        self.x1TensorFp32 = self.x1Tensor.ReinterpretCast("float")
        self.x2TensorFp32 = self.x2Tensor.ReinterpretCast("float")
        if self.is16:
            aj.Cast(self.x1TensorFp32, self.x1Tmp, aj.RoundMode.CAST_NONE, dataCount)
            aj.PipeBarrier(aj.PIPE_V)

    def ComputeStepOne(self, dataCount):
        elementByte = PP_ELEMENT_NUM * 4
        nanValue = np.float32(np.nan)      # sqrt(-1.0f): a NaN
        self.selMaskOne = self._half(elementByte * 2)
        self.selMaskTwo = self._half(elementByte * 2 + elementByte // 2)
        self.selMaskThree = self.x2TensorFp32.ReinterpretCast("uint8")
        eps = self.eps
        hi = np.float32(np.float32(1.0) - eps)
        x1 = self.x1TensorFp32
        tmpDataCount = (dataCount + ONE_REPEAT_ELE_NUM_FP32 - 1) // ONE_REPEAT_ELE_NUM_FP32 * ONE_REPEAT_ELE_NUM_FP32
        aj.Compare(self.selMaskThree, x1, x1, aj.CMPMODE.EQ, tmpDataCount)
        aj.PipeBarrier(aj.PIPE_V)
        if _arch() == 3510 and not eps > np.float32(0.5):
            aj.Mins(x1, x1, hi, tmpDataCount)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Maxs(x1, x1, eps, tmpDataCount)
            aj.PipeBarrier(aj.PIPE_V)
        else:
            aj.CompareScalar(self.selMaskOne, x1, eps, aj.CMPMODE.GE, tmpDataCount)
            aj.PipeBarrier(aj.PIPE_V)
            aj.CompareScalar(self.selMaskTwo, x1, hi, aj.CMPMODE.LE, tmpDataCount)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Select(x1, self.selMaskTwo, x1, hi, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, dataCount)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Select(x1, self.selMaskOne, x1, eps, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, dataCount)
            aj.PipeBarrier(aj.PIPE_V)
        aj.Select(x1, self.selMaskThree, x1, nanValue, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, dataCount)
        aj.PipeBarrier(aj.PIPE_V)

    def ComputeStepTwo(self, dataCount):
        if _arch() == 3510:
            aj.Reg.asc_vf_call(LOGIT_VF, self.x1TensorFp32, dataCount)
            aj.PipeBarrier(aj.PIPE_V)
            return
        aj.Muls(self.x2TensorFp32, self.x1TensorFp32, np.float32(-1.0), dataCount)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Adds(self.x2TensorFp32, self.x2TensorFp32, np.float32(1.0), dataCount)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Div(self.x1TensorFp32, self.x1TensorFp32, self.x2TensorFp32, dataCount)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Ln(self.x1TensorFp32, self.x1TensorFp32, dataCount)
        aj.PipeBarrier(aj.PIPE_V)

    def CastAndCopyOut(self, outputOffset, dataCount):
        if self.is16 and not ORIGINAL_LAYOUT:
            self.x1Tensor = self.x2Tensor    # deviation 3: narrowed into the free second tile, copied out from there
        if self.T == "half":
            aj.Cast(self.x1Tensor, self.x1TensorFp32, aj.RoundMode.CAST_NONE, dataCount)
            aj.PipeBarrier(aj.PIPE_V)
        elif self.T == "bfloat16":
            aj.Cast(self.x1Tensor, self.x1TensorFp32, aj.RoundMode.CAST_RINT, dataCount)
            aj.PipeBarrier(aj.PIPE_V)
        aj.SetFlag(self.eventId, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(self.eventId, event=aj.HardEvent.V_MTE3)
        dataCopyParams = aj.DataCopyExtParams(1, dataCount * TYPE_SIZE[self.T], 0, 0, 0)
        aj.DataCopyPad(self.outputGm[outputOffset], self.x1Tensor, dataCopyParams)
        aj.SetFlag(self.eventId, event=aj.HardEvent.MTE3_MTE2)


aj.REGISTER_TILING_DEFAULT(LogitTilingData)


def logit(input, output, workspace, tiling, tiling_key):
    """The kernel entry; tiling_key stands for TILING_KEY_IS (not offered)."""
    tilingData = aj.GET_TILING_DATA(tiling)
    userWs = None
    T = {TILING_KEY_HALF: "half", TILING_KEY_FLOAT: "float", TILING_KEY_BFLOAT16: "bfloat16"}.get(tiling_key)
    if T is None:
        return
    op = LogitND(T)
    op.Init(input, output, userWs, tilingData)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(0.02, 0.98, size)
        x = np.where(np.abs(x - 0.5) < 0.01, x + 0.2, x)      # away from ln's zero (docstring)
        special = np.array([0.0, 1.0, -0.5, 2.0, 0.75, 1e-9, 1 - 1e-9, 0.25, np.nan])
        x[:min(size, special.size)] = special[:size]
        return {"x": x.astype(_NP[dtype])}
    return make_inputs


def _run(dtype, eps=EPS):
    def run(device, inputs):
        x = inputs["x"]
        y = np.zeros_like(x)
        block_dim, key, tiling_bytes, ws = tiling(device, x.size, dtype, eps)
        workspace = np.zeros(ws, np.uint8)
        aj.launch(logit, block_dim, device, x, y, workspace, tiling_bytes, key)
        return {"y": y}
    return run


def _expected(eps=EPS):
    def expected(device, inputs):
        x = inputs["x"].astype(np.float32)
        if eps >= 0:
            lo, hi = np.float32(eps), np.float32(np.float32(1.0) - np.float32(eps))
            x = np.where(np.isnan(x), x, np.minimum(np.maximum(x, lo), hi))
        x = x.astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return {"y": np.log(x / (1.0 - x))}
    return expected


_SOURCE = "hicann/ops-nn@e5c3fa93 loss/logit/op_kernel/logit.h"
KERNELS = [
    KernelSpec("logit", "Logit over floats: NaN mask by Compare EQ, CompareScalar GE / LE and Select "
               "VSEL_TENSOR_SCALAR_MODE clamps, Muls/Adds/Div/Ln (950: a MicroAPI VF); one 192 KiB uint8 TBuf carved "
               "by ReinterpretCast into ping-pong halves", _make_inputs("float"), _run("float"), _expected(),
               default_size=70003, devices=DEVICES, tolerance=2e-5, source=_SOURCE),
    KernelSpec("logit_half", "Logit over halves computed in float (the half tile in the upper half of the float "
               "tile; Cast CAST_NONE in and out in place)", _make_inputs("half"), _run("half"), _expected(),
               default_size=70003, devices=DEVICES, tolerance=2e-3, source=_SOURCE),
    KernelSpec("logit_bf16", "Logit over bfloat16 computed in float (Cast CAST_RINT out)", _make_inputs("bfloat16"),
               _run("bfloat16"), _expected(), default_size=70003, devices=DEVICES, tolerance=8e-3, source=_SOURCE),
]
