"""ForeachDivScalar from the CANN NN operators, the Ascend 950 (regbase) kernel: for every tensor of a list (float,
half or bfloat16; sizes of their own) y = x / scalar, computed as x * (1 / scalar) with the reciprocal taken once on
the scalar unit (PyTorch's _foreach_div_ with a scalar).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921:
- foreach/foreach_div_scalar/op_kernel/arch35/foreach_div_scalar.cpp (the entry: one TPipe, TILING_KEY_IS per dtype
  10001 half / 10002 float / 10004 bfloat16, GET_TILING_DATA_WITH_STRUCT(ForeachSoloTilingDataRegbase),
  pipeOp.Destroy(); the scalar's type DTYPE_SCALAR: half for half tensors, float for float and bfloat16 ones,
  foreach_proto_utils.h `DtypeScalarToTensor2`);
- foreach/foreach_div_scalar/op_kernel/arch35/foreach_div_scalar_regbase.h (`ForeachDivScalarRegbase<T, ScalarT>`:
  Compute reads the scalar by GM GetValue on every chunk and takes its reciprocal on the scalar unit: +-0 gives
  +-inf (by the sign of 1 / scalar), +-inf gives +-0, otherwise 1.0f / scalar, refined for a float scalar by one
  Newton step inv * (2 - scalar * inv); the VF (__VEC_SCOPE__): per 64-float vector UpdateMask,
  LoadOneTensorForDtypeT, Muls by the reciprocal, StoreOneTensorForDtypeT under the mask);
- foreach/foreach_utils/op_kernel/arch35/foreach_regbase_unary.h (`ForeachRegbaseUnary`: the per-core tensor range
  of the tiling, depth-2 queues for the input and the output, chunks of inputsTensorUbSize elements: DataCopyPad in
  with DataCopyPadExtParams / DataCopyExtParams set field by field and isPad false, Compute, DataCopyPad out);
- common/inc/op_kernel/load_store_utils.h (`ops::LoadOneTensorForDtypeT` / `StoreOneTensorForDtypeT`: DataCopy
  DIST_NORM, or DIST_UNPACK_B16 and Cast (ZERO, UNKNOWN, ZEROING, UNKNOWN) to float; DataCopy under the mask, or Cast
  (ZERO, NO_SAT, ZEROING, CAST_RINT) and DIST_PACK_B32), here `@aj.Reg.simd_callee`s;
- foreach/foreach_utils/op_host/foreach_regbase_tiling.cpp (`ForeachRegbaseTiling::DoOpTiling`: cores
  min(platform, 80, ceil(total / (4096 / sizeof(T)))), `AssignDataToEachCore` in blocks of 4096 bytes; the unary
  scalar form: inputsTensorUbSize = UB / (1 input x 2 buffers + 2 output buffers) elements, floored to 32 bytes) and
  foreach_tiling_def.h (the struct, 256 tensors, 80 cores).

Deviations (those of kernels/foreach_lerp_scalar.py, for the same base class): the core count is the launch's 8 (the
platform's in the original); the tensor lists are Python lists of GM arrays (the original reads a pointer table).
The VF loads whole vectors with no mask, so a short chunk's last vector reads the queue buffer past the
DataCopyPad's bytes (never written: the sanitizer's uninitialised reads before session 54; those lanes are outside
the UpdateMask and reach no output, so with the lane tracking not reported): the port Duplicates 0 over the input
buffer's lanes past a short chunk before its copy-in (kept from before, no longer needed for the init check;
`ZERO_TAIL = False` runs without it and sanitizes clean). Unlike the binary and ternary kernels, the unary
one's inputsTensorUbSize is whole vectors already (UB / 4 buffers: 15872 floats or 31744 16-bit elements on the 950,
63488 bytes), so no load runs past a buffer and the tiling is the original's (32-byte floor).

The scalar unit's float expressions round each operation once (no multiply-add contraction of the Newton step;
docs/decisions.md "Layout and the kernel gallery (issue 18)", session 46).

Fidelity: BIT-EXACT (loads, Casts, Muls; SPEC-2 0.3 and docs/decisions.md "Reg API"); the reciprocal is the scalar
unit's IEEE float32. The result is x times a rounded reciprocal, not x / scalar rounded once: it can differ from
the true quotient by an ulp (the float64 check's tolerance), which is the original's behaviour.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
CORE_NUM = 8                      # deviation: the launch's cores (the platform's in the original)
ZERO_TAIL = True                  # the port's Duplicate of the lanes past a chunk (docstring; not needed since
                                  # session 54's lane tracking)
MAX_TENSOR_CONT_950 = 256
MAX_CORE_CONT_950 = 80
SINGLE_CORE_PROCESS_DATA = 4096   # bytes a block of AssignDataToEachCore
DOUBLE_BUFFER = 2
ONE_INPUT = 1
BLOCK_SIZE = 32
UB_ALIGN = BLOCK_SIZE             # the original's floor of inputsTensorUbSize (whole vectors here: docstring)
BUFFER_NUM = 2
VL_SIZE = 256                     # platform::GetVRegSize()
FOREACH_TILING_KEY_HALF, FOREACH_TILING_KEY_FLOAT, FOREACH_TILING_KEY_BF16 = 10001, 10002, 10004
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_KEY = {"half": FOREACH_TILING_KEY_HALF, "float": FOREACH_TILING_KEY_FLOAT, "bfloat16": FOREACH_TILING_KEY_BF16}
SCALAR_T = {"half": "half", "float": "float", "bfloat16": "float"}     # DtypeScalarToTensor2

ForeachSoloTilingDataRegbase = np.dtype([
    ("inputsTensorUbSize", np.uint32), ("tensorDataCountList", np.int64, MAX_TENSOR_CONT_950),
    ("tensorStartList", np.uint16, MAX_CORE_CONT_950), ("tensorEndList", np.uint16, MAX_CORE_CONT_950),
    ("tensorStartOffsetList", np.int64, MAX_CORE_CONT_950),
    ("tensorEndOffsetList", np.int64, MAX_CORE_CONT_950)], align=True)


def assign_data_to_each_core(t, counts, need, per_block):
    """ForeachRegbaseTiling::AssignDataToEachCore: blocks of per_block elements spread over `need` cores, the first
    (blocks % need) cores one block more; a core's range may start and end inside a tensor."""
    total = sum(counts)
    block_count = -(-total // per_block)
    need = max(need, 1)
    per_core = block_count // need * per_block
    remainder = block_count % need
    core, data, cursor = 0, 0, 0
    t["tensorStartList"][0] = 0
    t["tensorStartOffsetList"][0] = 0
    j = 0
    while j < len(counts):
        cmp_count = per_core + per_block if remainder and core < remainder else per_core
        left = counts[j] - cursor
        if data + left < cmp_count:
            data += left
            cursor = 0
            j += 1
            continue
        t["tensorEndList"][core] = j
        cursor = cursor + cmp_count - data
        t["tensorEndOffsetList"][core] = cursor - 1
        data = 0
        core += 1
        if cursor < counts[j]:
            t["tensorStartList"][core] = j
            t["tensorStartOffsetList"][core] = cursor
            continue                                    # the original's --j: the same tensor again
        if core != need:
            t["tensorStartList"][core] = j + 1
            t["tensorStartOffsetList"][core] = 0
            cursor = 0
        j += 1
    if data > 0:                                        # the last tensor cut short: the last core's end by hand
        t["tensorEndList"][core] = len(counts) - 1
        t["tensorEndOffsetList"][core] = counts[-1] - 1


def tiling(device, counts, dtype, inputs=ONE_INPUT, align=None):
    """ForeachRegbaseTilingUnaryScalar (inputs=1): (block dim, tiling key, the packed struct)."""
    align = UB_ALIGN if align is None else align
    if not 1 <= len(counts) <= MAX_TENSOR_CONT_950:
        raise ValueError(f"foreach tiling: {len(counts)} tensors, legal 1..{MAX_TENSOR_CONT_950}")
    size = _SIZE[dtype]
    t = np.zeros(1, ForeachSoloTilingDataRegbase)[0]
    t["tensorDataCountList"][:len(counts)] = counts
    total = sum(counts)
    per_block = SINGLE_CORE_PROCESS_DATA // size
    blocks = min(CORE_NUM, MAX_CORE_CONT_950, -(-total // per_block))
    if total == 0:
        blocks = 1
        t["tensorEndOffsetList"][0] = -1
    else:
        assign_data_to_each_core(t, counts, blocks, per_block)
    per_number = size * DOUBLE_BUFFER * inputs + size * DOUBLE_BUFFER
    ub_elems = aj.get_device(device).ub_bytes // per_number
    t["inputsTensorUbSize"] = ub_elems * size // align * align // size
    return blocks, _KEY[dtype], np.frombuffer(t.tobytes(), np.uint8).copy()


CAST_B16_TO_B32 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, aj.RoundMode.UNKNOWN)
CAST_B32_TO_B16 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_RINT)


@R.simd_callee
def load_one_tensor_for_dtype_t(input_, dst, preg, offset, T):
    """ops::LoadOneTensorForDtypeT<T>: T's elements at input_ + offset into float lanes."""
    if T == "float":
        R.DataCopy(dst, input_[offset])
    else:
        x16 = R.RegTensor(T)
        R.DataCopy(x16, input_[offset], dist=R.LoadDist.DIST_UNPACK_B16)
        R.Cast(dst, x16, preg, CAST_B16_TO_B32)


@R.simd_callee
def store_one_tensor_for_dtype_t(output, src, preg, offset, T):
    """ops::StoreOneTensorForDtypeT<T>: the active float lanes to output + offset as T."""
    if T == "float":
        R.DataCopy(output[offset], src, preg)
    else:
        y16 = R.RegTensor(T)
        R.Cast(y16, src, preg, CAST_B32_TO_B16)
        R.DataCopy(output[offset], y16, preg, dist=R.StoreDist.DIST_PACK_B32)


@R.simd_vf
def div_scalar_vf(tensorOneUbAddr, outUbAddr, repeatTimes, sreg, invScalarVal, dataCountPerLoop, T):
    """Compute's __VEC_SCOPE__."""
    tensorOneRegToFloat = R.RegTensor("float")
    outReg = R.RegTensor("float")
    for i in range(repeatTimes):
        maskReg, sreg = R.UpdateMask("float", sreg)
        load_one_tensor_for_dtype_t(tensorOneUbAddr, tensorOneRegToFloat, maskReg, i * dataCountPerLoop, T)
        R.Muls(outReg, tensorOneRegToFloat, invScalarVal, maskReg)
        store_one_tensor_for_dtype_t(outUbAddr, outReg, maskReg, i * dataCountPerLoop, T)


class ForeachRegbaseUnary:
    """ForeachRegbaseUnary<T, Tiling, Predicate>: the list walk the unary foreach kernels share."""

    def __init__(self, T, pred):
        self.T, self.pred = T, pred

    def Init(self, inputs, outputs, workspace, tilingData, tPipe):
        T = self.T
        self.blockIdx = aj.GetBlockIdx()
        self.inDesc, self.outDesc = inputs, outputs
        self.ParseTilingData(tilingData)
        self.inQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        tPipe.InitBuffer(self.inQueue, BUFFER_NUM, self.inputsTensorUbSize * _SIZE[T])
        tPipe.InitBuffer(self.outQueue, BUFFER_NUM, self.inputsTensorUbSize * _SIZE[T])
        self.maxDataCount = self.inputsTensorUbSize

    def Process(self):
        T = self.T
        for i in range(self.tensorStart, self.tensorEnd + 1):
            cursorStart, cursorEnd = 0, int(self.tensorDataCountList[i]) - 1
            if i == self.tensorStart:
                cursorStart = self.tensorStartOffset
            if i == self.tensorEnd:
                cursorEnd = self.tensorEndOffset
            dataCount = cursorEnd - cursorStart + 1
            self.inTensorGM, self.outTensorGM = aj.GlobalTensor(T), aj.GlobalTensor(T)
            self.inTensorGM.SetGlobalBuffer(self.GetInputTensorAddr(i)[cursorStart:])
            self.outTensorGM.SetGlobalBuffer(self.GetOutputTensorAddr(i)[cursorStart:])
            self.SingleTensorProcess(dataCount)

    def ParseTilingData(self, t):
        self.inputsTensorUbSize = int(t.inputsTensorUbSize)
        self.tensorDataCountList = t.tensorDataCountList
        self.tensorStart = int(t.tensorStartList[self.blockIdx])
        self.tensorEnd = int(t.tensorEndList[self.blockIdx])
        self.tensorStartOffset = int(t.tensorStartOffsetList[self.blockIdx])
        self.tensorEndOffset = int(t.tensorEndOffsetList[self.blockIdx])

    def SingleTensorProcess(self, dataCount):
        quotient = -(-dataCount // self.maxDataCount)                   # CEIL_DIV
        for i in range(quotient):
            current = dataCount - (quotient - 1) * self.maxDataCount if i == quotient - 1 else self.maxDataCount
            self.CopyIn(i, current)
            self.Compute(current)
            self.CopyOut(i, current)

    def _zero_tail(self, local, dataCount):
        """Not in the original (docstring): 0 over the lanes the last vector loads past the chunk."""
        lanes = VL_SIZE // 4
        start, loaded = dataCount // lanes * lanes, -(-dataCount // lanes) * lanes
        if ZERO_TAIL and loaded > dataCount:     # the whole last vector (aligned); the copy-in then overwrites
            aj.Duplicate(local[start], _NP[self.T](0), loaded - start)
            # the copy-in (MTE2) overwrites part of what the Duplicate (V) wrote: V -> MTE2 order (SPEC-2 D62)
            eventID = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_MTE2)
            aj.SetFlag(eventID, event=aj.HardEvent.V_MTE2)
            aj.WaitFlag(eventID, event=aj.HardEvent.V_MTE2)

    def CopyIn(self, index, dataCount):
        T = self.T
        dataLocal = self.inQueue.AllocTensor(T)
        self._zero_tail(dataLocal, dataCount)
        dataCopyPadExtParams = aj.DataCopyPadExtParams()
        dataCopyPadExtParams.isPad = False
        dataCopyPadExtParams.leftPadding = 0
        dataCopyPadExtParams.rightPadding = 0
        dataCopyPadExtParams.paddingValue = 0
        copyInParams = aj.DataCopyExtParams()
        copyInParams.blockCount = 1
        copyInParams.blockLen = dataCount * _SIZE[T]
        copyInParams.srcStride = 0
        copyInParams.dstStride = 0
        aj.DataCopyPad(dataLocal, self.inTensorGM[index * self.maxDataCount], copyInParams, dataCopyPadExtParams)
        self.inQueue.EnQue(dataLocal)

    def Compute(self, dataCount):
        T = self.T
        inLocal = self.inQueue.DeQue(T)
        outLocal = self.outQueue.AllocTensor(T)
        self.pred.Compute(inLocal, outLocal, dataCount)
        self.inQueue.FreeTensor(inLocal)
        self.outQueue.EnQue(T, outLocal)

    def CopyOut(self, index, dataCount):
        T = self.T
        retLocal = self.outQueue.DeQue(T)
        copyInParams = aj.DataCopyExtParams()
        copyInParams.blockCount = 1
        copyInParams.blockLen = dataCount * _SIZE[T]
        copyInParams.srcStride = 0
        copyInParams.dstStride = 0
        aj.DataCopyPad(self.outTensorGM[index * self.maxDataCount], retLocal, copyInParams)
        self.outQueue.FreeTensor(retLocal)

    def GetInputTensorAddr(self, index):
        """The list's index-th GM tensor (deviation: the original reads it from the ListTensorDesc's table)."""
        return self.inDesc[index]

    def GetOutputTensorAddr(self, index):
        return self.outDesc[index]


def reciprocal(scalarValue, ScalarT):
    """Compute's scalar-unit reciprocal (float32 IEEE, each operation rounded once)."""
    s = np.float32(scalarValue)
    one, two = np.float32(1.0), np.float32(2.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if s == np.float32(0.0):
            reciprocalZero = one / s
            return np.float32(-np.inf) if reciprocalZero < 0 else np.float32(np.inf)
        if s == np.float32(np.inf):
            return np.float32(0.0)
        if s == np.float32(-np.inf):
            return np.float32(-0.0)
        inv = np.float32(one / s)
        if ScalarT == "float":
            inv = np.float32(inv * np.float32(two - np.float32(s * inv)))
        return inv


class ForeachDivScalarRegbase:
    """ForeachDivScalarRegbase<T, ScalarT, Tiling>."""

    def __init__(self, T, ScalarT):
        self.T, self.ScalarT = T, ScalarT
        self.base = ForeachRegbaseUnary(T, self)

    def Init(self, tensor1, tensor2, outputs, workspace, tilingData, tPipe):
        self.base.Init(tensor1, outputs, workspace, tilingData, tPipe)
        self.inScalarGM_ = aj.GlobalTensor(self.ScalarT)
        self.inScalarGM_.SetGlobalBuffer(tensor2, 1)

    def Process(self):
        self.base.Process()

    def Compute(self, inLocal, outLocal, dataCount):
        dataCountPerLoop = VL_SIZE // 4
        repeatTimes = aj.CeilDivision(dataCount, dataCountPerLoop)
        scalarValue = np.float32(self.inScalarGM_.GetValue(0))
        invScalarVal = reciprocal(scalarValue, self.ScalarT)
        R.asc_vf_call(div_scalar_vf, inLocal, outLocal, repeatTimes, dataCount, invScalarVal, dataCountPerLoop,
                      self.T)


aj.REGISTER_TILING_DEFAULT(ForeachSoloTilingDataRegbase)


def foreach_div_scalar(tensor1, tensor2, outputs, workspace, tiling_bytes, tiling_key):
    """The kernel entry (extern "C" foreach_div_scalar); tiling_key stands for TILING_KEY_IS."""
    pipeOp = aj.TPipe()
    T = {FOREACH_TILING_KEY_HALF: "half", FOREACH_TILING_KEY_FLOAT: "float",
         FOREACH_TILING_KEY_BF16: "bfloat16"}.get(tiling_key)
    if T is not None:
        tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ForeachSoloTilingDataRegbase, tiling_bytes)
        op = ForeachDivScalarRegbase(T, SCALAR_T[T])
        op.Init(tensor1, tensor2, outputs, workspace, tilingData, pipeOp)
        op.Process()
    pipeOp.Destroy()


def _dtype_name(a):
    return {np.dtype(np.float32): "float", np.dtype(np.float16): "half",
            np.dtype(ml_dtypes.bfloat16): "bfloat16"}[a.dtype]


def run_div_scalar(device, xs, scalar):
    """Launch over a list of 1-d arrays of one dtype; the scalar in DtypeScalarToTensor2's type; the outputs."""
    T = _dtype_name(xs[0])
    outs = [np.zeros_like(a) for a in xs]
    blocks, key, raw = tiling(device, [a.size for a in xs], T)
    workspace = np.zeros(BLOCK_SIZE, np.uint8)
    s = np.array([scalar], _NP[SCALAR_T[T]])
    aj.launch(foreach_div_scalar, blocks, device, list(xs), s, outs, workspace, raw, key)
    return outs


def div_scalar_model(x, scalar):
    """One tensor: float(x) times the scalar unit's reciprocal (float32 Muls), RNE to the type; NaN canonical."""
    T = _dtype_name(x)
    s = np.float32(_NP[SCALAR_T[T]](scalar))
    inv = reciprocal(s, SCALAR_T[T])
    with np.errstate(invalid="ignore", over="ignore"):
        y = (x.astype(np.float32) * inv).astype(np.float32).astype(x.dtype)
    y[np.isnan(y.astype(np.float32))] = np.float32(np.nan)
    return y


# the gallery's lists: five tensors of uneven shares of the size (some shorter than a DataBlock or a vector)
_SHARES = (0.41, 0.0001, 0.3, 0.2899, 0.0)


def counts_of(size):
    counts = [max(1, int(size * s)) for s in _SHARES]
    counts[0] += size - sum(counts)
    return counts


def _make_inputs(dtype, scalar):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        out = {"scalar": np.array([scalar], np.float32)}
        for k, n in enumerate(counts_of(max(size, len(_SHARES)))):
            out[f"x{k}"] = (rng.standard_normal(n) * 10).astype(_NP[dtype])
        return out
    return make_inputs


def _list(inputs):
    return [inputs[f"x{k}"] for k in range(sum(1 for k in inputs if k.startswith("x")))]


def _run(device, inputs):
    return {f"y{k}": y for k, y in enumerate(run_div_scalar(device, _list(inputs), inputs["scalar"][0]))}


def _expected(device, inputs):
    return {f"y{k}": div_scalar_model(x, inputs["scalar"][0]) for k, x in enumerate(_list(inputs))}


def _size_ok(n):
    return 5 <= n <= 1 << 22


_SOURCE = "hicann/ops-nn@e5c3fa93 foreach/foreach_div_scalar/op_kernel/arch35/foreach_div_scalar_regbase.h"
KERNELS = [
    KernelSpec("foreach_div_scalar", "ops-nn ForeachDivScalar over float tensor lists, 950 regbase (scalar 3.0: "
               "the reciprocal and a Newton step on the scalar unit, a VF of UpdateMask, Muls; per-core tensor "
               "ranges, DataCopyPad chunks)", _make_inputs("float", 3.0), _run, _expected, default_size=100000,
               devices=("ascend950",), size_rule="5 to 4Mi elements", size_ok=_size_ok, source=_SOURCE),
    KernelSpec("foreach_div_scalar_half", "the same over halves, a half scalar -0.7 (no Newton step; "
               "DIST_UNPACK_B16 + Cast in, Cast CAST_RINT + DIST_PACK_B32 out)", _make_inputs("half", -0.7), _run,
               _expected, default_size=100000, devices=("ascend950",), size_rule="5 to 4Mi elements",
               size_ok=_size_ok, source=_SOURCE),
    KernelSpec("foreach_div_scalar_bf16", "the same over bfloat16, a float scalar 1e-3",
               _make_inputs("bfloat16", 1e-3), _run, _expected, default_size=100000, devices=("ascend950",),
               size_rule="5 to 4Mi elements", size_ok=_size_ok, source=_SOURCE),
]
