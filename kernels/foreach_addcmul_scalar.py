"""ForeachAddcmulScalar from the CANN NN operators, the Ascend 950 (regbase) kernel: for every triple of tensors of
three lists (float, half, bfloat16 or int32; sizes of their own) out = x + value * t1 * t2, value one GM scalar
(float; half for a half list, as DTYPE_SCALAR allows; int32 for int32) - PyTorch's _foreach_addcmul with a scalar.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921:
- foreach/foreach_addcmul_scalar/op_kernel/arch35/foreach_addcmul_scalar.cpp (the entry: TILING_KEY_IS per dtype,
  10001 half with DTYPE_SCALAR, 10002 float, 10003 int32, 10004 bfloat16 with a float scalar;
  GET_TILING_DATA_WITH_STRUCT(ForeachSoloTilingDataRegbase));
- foreach/foreach_addcmul_scalar/op_kernel/arch35/foreach_addcmul_scalar_regbase.h (`ForeachAddcmulScalarRegbase`:
  Init reads the scalar by GM GetValue (float() for half / bfloat16, T() otherwise, stored as ScalarT); the VF
  (__VEC_SCOPE__), per 64-lane vector UpdateMask<float>: half / float / bfloat16 LoadOneTensorForDtypeT of the three
  inputs, Mul(t1 * t2), Axpy(x += value * p) (one rounding), StoreOneTensorForDtypeT; int32 DataCopy of whole
  vectors, Mul, Muls by the value, Add, DataCopy under the mask);
- foreach/foreach_utils/op_kernel/arch35/foreach_regbase_ternary.h (`ForeachRegbaseTernary`: the per-core tensor
  range, depth-2 queues for the three inputs and the output, chunks of inputsTensorUbSize elements, DataCopyPad in
  with isPad false, Compute, DataCopyPad out);
- common/inc/op_kernel/load_store_utils.h (`ops::LoadOneTensorForDtypeT` / `StoreOneTensorForDtypeT`: DIST_UNPACK_B16
  + Cast (ZERO, ZEROING) in, Cast (ZERO, NO_SAT, CAST_RINT) + DIST_PACK_B32 out for the 16-bit types);
- foreach/foreach_utils/op_host/foreach_regbase_tiling.cpp (`ForeachRegbaseTiling::DoOpTiling` and
  `AssignDataToEachCore`, as kernels/foreach_lerp_scalar.py; `ForeachRegbaseTilingTernaryScalar::DoOpTiling`:
  inputsTensorUbSize = UB / (3 inputs x 2 buffers + 2 output buffers) elements floored to 32 bytes).

Deviations: as kernels/foreach_lerp_scalar.py: 8 cores; Python lists of GM arrays for the tensor lists; the VF's
unmasked whole-vector loads read past a short chunk (uninitialised bytes whose lanes never reach a store: no report
since session 54's lane tracking). The original's inputsTensorUbSize (7936 floats, 15872 halves on the 950) is a
whole number of 64-lane vectors, so a full chunk's loads stay in its queue buffer (session 65, port65f: the port had
floored it to 256 bytes and zeroed a short chunk's last vector on a false premise; both removed).

Fidelity: BIT-EXACT (loads, Casts, Mul, Axpy, int32 Mul / Muls / Add; SPEC-2 0.3). The model: float32 product
t1 * t2, then the fused value * p + x (one rounding), RNE to the type; int32 products and sum in int32 (the tests keep
them in range).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
CORE_NUM = 8                      # deviation: the launch's cores (the platform's in the original)
MAX_TENSOR_CONT_950 = 256
MAX_CORE_CONT_950 = 80
SINGLE_CORE_PROCESS_DATA = 4096   # bytes a block of AssignDataToEachCore
DOUBLE_BUFFER = 2
THREE_INPUTS = 3
BLOCK_SIZE = 32
BUFFER_NUM = 2
VL_SIZE = 256                     # platform::GetVRegSize()
FOREACH_TILING_KEY_HALF, FOREACH_TILING_KEY_FLOAT = 10001, 10002
FOREACH_TILING_KEY_INT, FOREACH_TILING_KEY_BF16 = 10003, 10004
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32}
_SIZE = {"float": 4, "half": 2, "bfloat16": 2, "int32": 4}
_KEY = {"half": FOREACH_TILING_KEY_HALF, "float": FOREACH_TILING_KEY_FLOAT, "int32": FOREACH_TILING_KEY_INT,
        "bfloat16": FOREACH_TILING_KEY_BF16}

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


def tiling(device, counts, dtype, inputs=THREE_INPUTS):
    """ForeachRegbaseTilingBinaryScalar (inputs=2) / ...Ternary (3): (block dim, tiling key, the packed struct)."""
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
    t["inputsTensorUbSize"] = ub_elems * size // BLOCK_SIZE * BLOCK_SIZE // size
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
def addcmul_vf(inUbAddr, tensorOneUbAddr, tensorTwoUbAddr, outUbAddr, repeatTimes, sreg, scalarVal,
               dataCountPerLoop, T):
    """Compute's __VEC_SCOPE__."""
    if T == "int32":
        inReg, tensorOneReg, tensorTwoReg = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
        for i in range(repeatTimes):
            maskReg, sreg = R.UpdateMask("float", sreg)
            R.DataCopy(inReg, inUbAddr[i * dataCountPerLoop])
            R.DataCopy(tensorOneReg, tensorOneUbAddr[i * dataCountPerLoop])
            R.DataCopy(tensorTwoReg, tensorTwoUbAddr[i * dataCountPerLoop])
            R.Mul(tensorOneReg, tensorOneReg, tensorTwoReg, maskReg)
            R.Muls(tensorOneReg, tensorOneReg, scalarVal, maskReg)
            R.Add(inReg, inReg, tensorOneReg, maskReg)
            R.DataCopy(outUbAddr[i * dataCountPerLoop], inReg, maskReg)
    else:
        inRegToFloat = R.RegTensor("float")
        tensorOneRegToFloat = R.RegTensor("float")
        tensorTwoRegToFloat = R.RegTensor("float")
        for i in range(repeatTimes):
            maskReg, sreg = R.UpdateMask("float", sreg)
            load_one_tensor_for_dtype_t(inUbAddr, inRegToFloat, maskReg, i * dataCountPerLoop, T)
            load_one_tensor_for_dtype_t(tensorOneUbAddr, tensorOneRegToFloat, maskReg, i * dataCountPerLoop, T)
            load_one_tensor_for_dtype_t(tensorTwoUbAddr, tensorTwoRegToFloat, maskReg, i * dataCountPerLoop, T)
            R.Mul(tensorOneRegToFloat, tensorOneRegToFloat, tensorTwoRegToFloat, maskReg)
            R.Axpy(inRegToFloat, tensorOneRegToFloat, scalarVal, maskReg)
            store_one_tensor_for_dtype_t(outUbAddr, inRegToFloat, maskReg, i * dataCountPerLoop, T)


class ForeachRegbaseTernary:
    """ForeachRegbaseTernary<T, Tiling, Predicate>: the list walk the ternary foreach kernels share."""

    def __init__(self, T, pred):
        self.T, self.pred_ = T, pred

    def Init(self, inputs, tensor1, tensor2, outputs, workspace, tilingData, tPipe):
        T = self.T
        self.blockIdx_ = aj.GetBlockIdx()
        self.inDesc_, self.tensorOneDesc_, self.tensorTwoDesc_, self.outDesc_ = inputs, tensor1, tensor2, outputs
        self.ParseTilingData(tilingData)
        self.inQueue_ = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.tensorOneQueue_ = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.tensorTwoQueue_ = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueue_ = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        nbytes = self.inputsTensorUbSize_ * _SIZE[T]
        for q in (self.inQueue_, self.tensorOneQueue_, self.tensorTwoQueue_, self.outQueue_):
            tPipe.InitBuffer(q, BUFFER_NUM, nbytes)
        self.maxDataCount_ = self.inputsTensorUbSize_

    def Process(self):
        T = self.T
        for i in range(self.tensorStart_, self.tensorEnd_ + 1):
            cursorStart, cursorEnd = 0, int(self.tensorDataCountList_[i]) - 1
            if i == self.tensorStart_:
                cursorStart = self.tensorStartOffset_
            if i == self.tensorEnd_:
                cursorEnd = self.tensorEndOffset_
            dataCount = cursorEnd - cursorStart + 1
            self.inTensorGM_, self.tensorOneGM_ = aj.GlobalTensor(T), aj.GlobalTensor(T)
            self.tensorTwoGM_, self.outTensorGM_ = aj.GlobalTensor(T), aj.GlobalTensor(T)
            self.inTensorGM_.SetGlobalBuffer(self.GetTensorAddr(i, self.inDesc_)[cursorStart:])
            self.tensorOneGM_.SetGlobalBuffer(self.GetTensorAddr(i, self.tensorOneDesc_)[cursorStart:])
            self.tensorTwoGM_.SetGlobalBuffer(self.GetTensorAddr(i, self.tensorTwoDesc_)[cursorStart:])
            self.outTensorGM_.SetGlobalBuffer(self.GetTensorAddr(i, self.outDesc_)[cursorStart:])
            self.SingleTensorProcess(dataCount)

    def ParseTilingData(self, t):
        self.inputsTensorUbSize_ = int(t.inputsTensorUbSize)
        self.tensorDataCountList_ = t.tensorDataCountList
        self.tensorStart_ = int(t.tensorStartList[self.blockIdx_])
        self.tensorEnd_ = int(t.tensorEndList[self.blockIdx_])
        self.tensorStartOffset_ = int(t.tensorStartOffsetList[self.blockIdx_])
        self.tensorEndOffset_ = int(t.tensorEndOffsetList[self.blockIdx_])

    def SingleTensorProcess(self, dataCount):
        quotient = aj.CeilDivision(dataCount, self.maxDataCount_)
        for i in range(quotient):
            current = dataCount - (quotient - 1) * self.maxDataCount_ if i == quotient - 1 else self.maxDataCount_
            self.CopyIn(i, current)
            self.Compute(current)
            self.CopyOut(i, current)

    def CopyIn(self, index, dataCount):
        T = self.T
        inLocal = self.inQueue_.AllocTensor(T)
        one = self.tensorOneQueue_.AllocTensor(T)
        two = self.tensorTwoQueue_.AllocTensor(T)
        pad = aj.DataCopyPadExtParams()
        pad.isPad, pad.leftPadding, pad.rightPadding, pad.paddingValue = False, 0, 0, 0
        params = aj.DataCopyExtParams()
        params.blockCount, params.blockLen, params.srcStride, params.dstStride = 1, dataCount * _SIZE[T], 0, 0
        aj.DataCopyPad(inLocal, self.inTensorGM_[index * self.maxDataCount_], params, pad)
        aj.DataCopyPad(one, self.tensorOneGM_[index * self.maxDataCount_], params, pad)
        aj.DataCopyPad(two, self.tensorTwoGM_[index * self.maxDataCount_], params, pad)
        self.inQueue_.EnQue(T, inLocal)
        self.tensorOneQueue_.EnQue(T, one)
        self.tensorTwoQueue_.EnQue(T, two)

    def Compute(self, dataCount):
        T = self.T
        inLocal = self.inQueue_.DeQue(T)
        one = self.tensorOneQueue_.DeQue(T)
        two = self.tensorTwoQueue_.DeQue(T)
        out = self.outQueue_.AllocTensor(T)
        self.pred_.Compute(inLocal, one, two, out, dataCount)
        self.inQueue_.FreeTensor(inLocal)
        self.tensorOneQueue_.FreeTensor(one)
        self.tensorTwoQueue_.FreeTensor(two)
        self.outQueue_.EnQue(T, out)

    def CopyOut(self, index, dataCount):
        T = self.T
        ret = self.outQueue_.DeQue(T)
        params = aj.DataCopyExtParams()
        params.blockCount, params.blockLen, params.srcStride, params.dstStride = 1, dataCount * _SIZE[T], 0, 0
        aj.DataCopyPad(self.outTensorGM_[index * self.maxDataCount_], ret, params)
        self.outQueue_.FreeTensor(ret)

    @staticmethod
    def GetTensorAddr(index, desc):
        """The list's index-th GM tensor (deviation: the original reads it from the ListTensorDesc's table)."""
        return desc[index]


class ForeachAddcmulScalarRegbase:
    """ForeachAddcmulScalarRegbase<T, ScalarT, Tiling>."""

    def __init__(self, T, ScalarT, vf=addcmul_vf):
        self.T, self.ScalarT, self.vf = T, ScalarT, vf
        self.base = ForeachRegbaseTernary(T, self)

    def Init(self, inputs, tensor1, tensor2, scalar, outputs, workspace, tilingData, tPipe):
        self.base.Init(inputs, tensor1, tensor2, outputs, workspace, tilingData, tPipe)
        self.inScalarGM_ = aj.GlobalTensor(self.ScalarT)
        self.inScalarGM_.SetGlobalBuffer(scalar, 1)
        if self.T in ("bfloat16", "half"):     # float(GetValue(0)) stored in a ScalarT member
            self.scalarVal_ = _NP[self.ScalarT](np.float32(self.inScalarGM_.GetValue(0)))
        else:
            self.scalarVal_ = _NP[self.ScalarT](_NP[self.T](self.inScalarGM_.GetValue(0)))

    def Process(self):
        self.base.Process()

    def Compute(self, inLocal, one, two, out, dataCount):
        dataCountPerLoop = VL_SIZE // 4
        repeatTimes = aj.CeilDivision(dataCount, dataCountPerLoop)
        # scalarCalcType: int32_t for int32, else float
        scalarVal = np.int32(self.scalarVal_) if self.T == "int32" else np.float32(self.scalarVal_)
        R.asc_vf_call(self.vf, inLocal, one, two, out, repeatTimes, dataCount, scalarVal, dataCountPerLoop, self.T)


aj.REGISTER_TILING_DEFAULT(ForeachSoloTilingDataRegbase)


def foreach_addcmul_scalar(inputs, tensor1, tensor2, scalar, outputs, workspace, tiling_bytes, tiling_key,
                           DTYPE_SCALAR="half"):
    """The kernel entry (extern "C" foreach_addcmul_scalar); tiling_key stands for TILING_KEY_IS, DTYPE_SCALAR is the
    half build's scalar type."""
    pipeOp = aj.TPipe()
    pair = {FOREACH_TILING_KEY_HALF: ("half", DTYPE_SCALAR), FOREACH_TILING_KEY_FLOAT: ("float", "float"),
            FOREACH_TILING_KEY_INT: ("int32", "int32"), FOREACH_TILING_KEY_BF16: ("bfloat16", "float")}.get(tiling_key)
    if pair is not None:
        tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ForeachSoloTilingDataRegbase, tiling_bytes)
        op = ForeachAddcmulScalarRegbase(*pair)
        op.Init(inputs, tensor1, tensor2, scalar, outputs, workspace, tilingData, pipeOp)
        op.Process()


def _dtype_name(a):
    return {np.dtype(np.float32): "float", np.dtype(np.float16): "half", np.dtype(ml_dtypes.bfloat16): "bfloat16",
            np.dtype(np.int32): "int32"}[a.dtype]


def run_addcmul(device, x, t1, t2, value):
    """Launch over three lists of 1-d arrays of one dtype; value a one-element array of the scalar's dtype."""
    T = _dtype_name(x[0])
    outs = [np.zeros_like(a) for a in x]
    blocks, key, raw = tiling(device, [a.size for a in x], T)
    workspace = np.zeros(BLOCK_SIZE, np.uint8)
    aj.launch(foreach_addcmul_scalar, blocks, device, list(x), list(t1), list(t2), value, outs, workspace, raw,
              key, _dtype_name(value))
    return outs


def fma_f32(a, b, c):
    """float32 of the exact a * b + c (float32 arrays): the product is exact in float64; TwoSum's error term
    decides the one case where rounding the float64 sum to float32 would round twice (an exact float32 tie)."""
    p = a.astype(np.float64) * b.astype(np.float64)
    c = c.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        s = p + c
        bb = s - p
        e = (p - (s - bb)) + (c - bb)
        r = s.astype(np.float32)
        lo = np.where(r.astype(np.float64) > s, np.nextafter(r, np.float32(-np.inf)), r)
        hi = np.nextafter(lo, np.float32(np.inf))
        mid = (lo.astype(np.float64) + hi.astype(np.float64)) / 2
    tie = (s == mid) & (e != 0) & np.isfinite(s)
    return np.where(tie, np.where(e > 0, hi, lo), r).astype(np.float32)


def addcmul_model(x, t1, t2, value):
    """One tensor: x + value * (t1 * t2) as the kernel rounds it; NaN canonical."""
    if x.dtype == np.int32:
        with np.errstate(over="ignore"):
            return (x + np.int32(value) * (t1 * t2)).astype(np.int32)
    v = np.float32(value)
    with np.errstate(invalid="ignore", over="ignore"):
        p = (t1.astype(np.float32) * t2.astype(np.float32)).astype(np.float32)
        y = fma_f32(np.full_like(p, v), p, x.astype(np.float32)).astype(x.dtype)
    y[np.isnan(y.astype(np.float32))] = np.float32(np.nan)
    return y


_SHARES = (0.41, 0.0001, 0.3, 0.2899, 0.0)


def counts_of(size):
    counts = [max(1, int(size * s)) for s in _SHARES]
    counts[0] += size - sum(counts)
    return counts


def _make_inputs(dtype, scalar_dtype, value):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        out = {"value": np.array([value], _NP[scalar_dtype])}
        for k, n in enumerate(counts_of(max(size, len(_SHARES)))):
            for name in "xab":
                if dtype == "int32":
                    out[f"{name}{k}"] = rng.integers(-1000, 1000, n).astype(np.int32)
                else:
                    out[f"{name}{k}"] = (rng.standard_normal(n) * 4).astype(_NP[dtype])
        return out
    return make_inputs


def _lists(inputs):
    n = sum(1 for k in inputs if k.startswith("x"))
    return [[inputs[f"{c}{k}"] for k in range(n)] for c in "xab"]


def _run(device, inputs):
    x, a, b = _lists(inputs)
    return {f"y{k}": y for k, y in enumerate(run_addcmul(device, x, a, b, inputs["value"]))}


def _expected(device, inputs):
    x, a, b = _lists(inputs)
    return {f"y{k}": addcmul_model(*abc, inputs["value"][0]) for k, abc in enumerate(zip(x, a, b))}


def _size_ok(n):
    return 5 <= n <= 1 << 22


_SOURCE = "hicann/ops-nn@e5c3fa93 foreach/foreach_addcmul_scalar/op_kernel/arch35/foreach_addcmul_scalar_regbase.h"
KERNELS = [
    KernelSpec("foreach_addcmul_scalar", "ops-nn ForeachAddcmulScalar over float tensor lists, 950 regbase (Mul, "
               "Axpy by value 0.5; per-core tensor ranges, DataCopyPad chunks)", _make_inputs("float", "float", 0.5),
               _run, _expected, default_size=100000, devices=("ascend950",), size_rule="5 to 4Mi elements",
               size_ok=_size_ok, source=_SOURCE),
    KernelSpec("foreach_addcmul_scalar_half", "the same over halves with a half value -1.25 (DIST_UNPACK_B16 + Cast "
               "in, Cast CAST_RINT + DIST_PACK_B32 out)", _make_inputs("half", "half", -1.25), _run, _expected,
               default_size=100000, devices=("ascend950",), size_rule="5 to 4Mi elements", size_ok=_size_ok,
               source=_SOURCE),
    KernelSpec("foreach_addcmul_scalar_bf16", "the same over bfloat16, float value 3.0", _make_inputs(
               "bfloat16", "float", 3.0), _run, _expected, default_size=100000, devices=("ascend950",),
               size_rule="5 to 4Mi elements", size_ok=_size_ok, source=_SOURCE),
    KernelSpec("foreach_addcmul_scalar_int32", "the same over int32, value 7 (whole-vector DataCopy, Mul, Muls, Add, "
               "masked store)", _make_inputs("int32", "int32", 7), _run, _expected, default_size=100000,
               devices=("ascend950",), size_rule="5 to 4Mi elements", size_ok=_size_ok, source=_SOURCE),
]
