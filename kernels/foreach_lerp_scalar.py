"""ForeachLerpScalar from the CANN NN operators, the Ascend 950 (regbase) kernel: for every pair of tensors of two
lists (float, half or bfloat16; sizes of their own) out = x1 + weight * (x2 - x1), weight one float in GM
(PyTorch's _foreach_lerp_ with a scalar weight).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921:
- foreach/foreach_lerp_scalar/op_kernel/arch35/foreach_lerp_scalar.cpp (the entry: one TPipe, TILING_KEY_IS per
  dtype 10001 half / 10002 float / 10004 bfloat16, GET_TILING_DATA_WITH_STRUCT(ForeachSoloTilingDataRegbase),
  pipeOp.Destroy());
- foreach/foreach_lerp_scalar/op_kernel/arch35/foreach_lerp_scalar_regbase.h (`ForeachLerpScalarRegbase`: Init reads
  the weight by GM GetValue; Compute picks DoCompute<true> when -0.5 < weight < 0.5, else DoCompute<false>; the VF
  (__VEC_SCOPE__): per 64-float vector UpdateMask, LoadOneTensorForDtypeT of both inputs, then
  <true>: Sub(x2 - x1), Axpy(x1 += weight * d) and <false>: Sub(x2 - x1), Axpy(x2 += (weight - 1) * d), the
  store StoreOneTensorForDtypeT under the mask; the two forms are PyTorch's lerp, which keeps the result exact at
  weight 0 and 1);
- foreach/foreach_utils/op_kernel/arch35/foreach_regbase_binary.h (`ForeachRegbaseBinary`: the per-core tensor
  range of the tiling, depth-2 queues for both inputs and the output, chunks of inputsTensorUbSize elements:
  DataCopyPad in with isPad false, Compute, DataCopyPad out);
- common/inc/op_kernel/load_store_utils.h (`ops::LoadOneTensorForDtypeT`: DataCopy DIST_NORM, or DIST_UNPACK_B16 and
  Cast (ZERO, UNKNOWN, ZEROING, UNKNOWN) to float; `ops::StoreOneTensorForDtypeT`: DataCopy under the mask, or Cast
  (ZERO, NO_SAT, ZEROING, CAST_RINT) and DIST_PACK_B32), here `@aj.Reg.simd_callee`s;
- foreach/foreach_utils/op_host/foreach_regbase_tiling.cpp (`ForeachRegbaseTiling::DoOpTiling`: cores
  min(platform, 80, ceil(total / (4096 / sizeof(T)))), `AssignDataToEachCore` in blocks of 4096 bytes;
  `ForeachRegbaseTilingBinaryScalar::DoOpTiling`: inputsTensorUbSize = UB / (2 inputs x 2 buffers + 2 output
  buffers) elements, floored to 32 bytes) and foreach_tiling_def.h (the struct, 256 tensors, 80 cores).

Deviations: the core count is the launch's 8 (the platform's in the original). The tensor lists are Python lists
of GM arrays (docs/decisions.md "Kernel utilities": the original reads a pointer table, `GetTensorAddr`). The VF
loads whole vectors (256 bytes; 128 for the 16-bit unpacking load) with no mask, so a chunk's last vector reads the
queue buffer past the DataCopyPad's bytes (never written: the sanitizer's uninitialised reads before session 54;
with the lane tracking not reported, as those lanes never reach a store) and, as
inputsTensorUbSize is no multiple of a vector (10576 floats, 21152 halves on the 950), past the buffer into the next
one, which a default (bounds="tensor") core refuses; their lanes are outside the UpdateMask, so nothing reaches an
output. The six buffers fill the UB, so they cannot be rounded up: the port's tiling floors inputsTensorUbSize to
whole vectors (256 bytes, `UB_ALIGN`; the original's 32 gives 10576 floats, the port's 10560), and the port
Duplicates 0 over the input buffers' lanes past a short chunk before its copy-in (kept from before, no longer needed
for the init check; `ZERO_TAIL = False` runs without that and sanitizes clean: tests/test_port45c_kernels.py).

Fidelity: BIT-EXACT (loads, Casts, Sub, Axpy: one rounding of the exact weight * d + x, SPEC-2 0.3 and docs/decisions.md
"Reg API"). The model: float32 difference, a fused multiply-add (TwoSum-corrected), RNE to the type.
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
TWO_INPUTS = 2
BLOCK_SIZE = 32
UB_ALIGN = 256                    # deviation: the original floors inputsTensorUbSize to BLOCK_SIZE (docstring)
BUFFER_NUM = 2
VL_SIZE = 256                     # platform::GetVRegSize()
FOREACH_TILING_KEY_HALF, FOREACH_TILING_KEY_FLOAT, FOREACH_TILING_KEY_BF16 = 10001, 10002, 10004
FLOAT_NUM_NEG, FLOAT_NUM_POS, FLOAT_NUM_ONE = np.float32(-0.5), np.float32(0.5), np.float32(1.0)
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_KEY = {"half": FOREACH_TILING_KEY_HALF, "float": FOREACH_TILING_KEY_FLOAT, "bfloat16": FOREACH_TILING_KEY_BF16}

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


def tiling(device, counts, dtype, inputs=TWO_INPUTS, align=None):
    """ForeachRegbaseTilingBinaryScalar (inputs=2) / ...Ternary (3): (block dim, tiling key, the packed struct)."""
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
def lerp_vf(tensorOneUbAddr, tensorTwoUbAddr, outUbAddr, repeatTimes, sreg, weightVal_, weightVal,
            dataCountPerLoop, T, needExchange):
    """DoCompute<needExchange>'s __VEC_SCOPE__."""
    tensorOneRegToFloat = R.RegTensor("float")
    tensorTwoRegToFloat = R.RegTensor("float")
    for i in range(repeatTimes):
        maskReg, sreg = R.UpdateMask("float", sreg)
        load_one_tensor_for_dtype_t(tensorOneUbAddr, tensorOneRegToFloat, maskReg, i * dataCountPerLoop, T)
        load_one_tensor_for_dtype_t(tensorTwoUbAddr, tensorTwoRegToFloat, maskReg, i * dataCountPerLoop, T)
        if needExchange:      # tensor1 + weight * (tensor2 - tensor1)
            R.Sub(tensorTwoRegToFloat, tensorTwoRegToFloat, tensorOneRegToFloat, maskReg)
            R.Axpy(tensorOneRegToFloat, tensorTwoRegToFloat, weightVal_, maskReg)
            store_one_tensor_for_dtype_t(outUbAddr, tensorOneRegToFloat, maskReg, i * dataCountPerLoop, T)
        else:                 # tensor2 + (tensor2 - tensor1) * (weight - 1)
            R.Sub(tensorOneRegToFloat, tensorTwoRegToFloat, tensorOneRegToFloat, maskReg)
            R.Axpy(tensorTwoRegToFloat, tensorOneRegToFloat, weightVal, maskReg)
            store_one_tensor_for_dtype_t(outUbAddr, tensorTwoRegToFloat, maskReg, i * dataCountPerLoop, T)


class ForeachRegbaseBinary:
    """ForeachRegbaseBinary<T, Tiling, Predicate>: the list walk the binary foreach kernels share."""

    def __init__(self, T, pred):
        self.T, self.pred_ = T, pred

    def Init(self, tensor1, tensor2, outputs, workspace, tilingData, tPipe):
        T = self.T
        self.blockIdx_ = aj.GetBlockIdx()
        self.tensorOneDesc_, self.tensorTwoDesc_, self.outDesc_ = tensor1, tensor2, outputs
        self.ParseTilingData(tilingData)
        self.tensorOneQueue_ = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.tensorTwoQueue_ = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueue_ = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.bufBytes_ = self.inputsTensorUbSize_ * _SIZE[T]
        tPipe.InitBuffer(self.tensorOneQueue_, BUFFER_NUM, self.bufBytes_)
        tPipe.InitBuffer(self.tensorTwoQueue_, BUFFER_NUM, self.bufBytes_)
        tPipe.InitBuffer(self.outQueue_, BUFFER_NUM, self.bufBytes_)
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
            self.tensorOneGM_, self.tensorTwoGM_ = aj.GlobalTensor(T), aj.GlobalTensor(T)
            self.outTensorGM_ = aj.GlobalTensor(T)
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

    def _zero_tail(self, local, dataCount):
        """Not in the original (docstring): 0 over the lanes the last vector loads past the chunk."""
        T = self.T
        lanes = VL_SIZE // 4
        start, loaded = dataCount // lanes * lanes, aj.CeilDivision(dataCount, lanes) * lanes
        if ZERO_TAIL and loaded > dataCount:     # the whole last vector (aligned); the copy-in then overwrites
            aj.Duplicate(local[start], _NP[T](0), loaded - start)
            # the copy-in (MTE2) overwrites part of what the Duplicate (V) wrote: V -> MTE2 order (SPEC-2 D62)
            eventID = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_MTE2)
            aj.SetFlag(eventID, event=aj.HardEvent.V_MTE2)
            aj.WaitFlag(eventID, event=aj.HardEvent.V_MTE2)

    def CopyIn(self, index, dataCount):
        T = self.T
        one = self.tensorOneQueue_.AllocTensor(T)
        two = self.tensorTwoQueue_.AllocTensor(T)
        self._zero_tail(one, dataCount)
        self._zero_tail(two, dataCount)
        pad = aj.DataCopyPadExtParams()
        pad.isPad, pad.leftPadding, pad.rightPadding, pad.paddingValue = False, 0, 0, 0
        params = aj.DataCopyExtParams()
        params.blockCount, params.blockLen, params.srcStride, params.dstStride = 1, dataCount * _SIZE[T], 0, 0
        aj.DataCopyPad(one, self.tensorOneGM_[index * self.maxDataCount_], params, pad)
        aj.DataCopyPad(two, self.tensorTwoGM_[index * self.maxDataCount_], params, pad)
        self.tensorOneQueue_.EnQue(T, one)
        self.tensorTwoQueue_.EnQue(T, two)

    def Compute(self, dataCount):
        T = self.T
        one = self.tensorOneQueue_.DeQue(T)
        two = self.tensorTwoQueue_.DeQue(T)
        out = self.outQueue_.AllocTensor(T)
        self.pred_.Compute(one, two, out, dataCount)
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


class ForeachLerpScalarRegbase:
    """ForeachLerpScalarRegbase<T, Tiling>."""

    def __init__(self, T, vf=lerp_vf):
        self.T, self.vf = T, vf
        self.base = ForeachRegbaseBinary(T, self)

    def Init(self, tensor1, tensor2, weight, outputs, workspace, tilingData, tPipe):
        self.base.Init(tensor1, tensor2, outputs, workspace, tilingData, tPipe)
        self.inScalarGM_ = aj.GlobalTensor("float")
        self.inScalarGM_.SetGlobalBuffer(weight, 1)
        self.weightVal_ = np.float32(self.inScalarGM_.GetValue(0))

    def Process(self):
        self.base.Process()

    def DoCompute(self, needExchange, one, two, out, dataCount):
        dataCountPerLoop = VL_SIZE // 4
        repeatTimes = aj.CeilDivision(dataCount, dataCountPerLoop)
        weightVal = np.float32(self.weightVal_ - FLOAT_NUM_ONE)
        R.asc_vf_call(self.vf, one, two, out, repeatTimes, dataCount, self.weightVal_, weightVal, dataCountPerLoop,
                      self.T, needExchange)

    def Compute(self, one, two, out, dataCount):
        if FLOAT_NUM_NEG < self.weightVal_ < FLOAT_NUM_POS:
            self.DoCompute(True, one, two, out, dataCount)
        else:
            self.DoCompute(False, one, two, out, dataCount)


aj.REGISTER_TILING_DEFAULT(ForeachSoloTilingDataRegbase)


def foreach_lerp_scalar(tensor1, tensor2, weight, outputs, workspace, tiling_bytes, tiling_key):
    """The kernel entry (extern "C" foreach_lerp_scalar); tiling_key stands for TILING_KEY_IS."""
    pipeOp = aj.TPipe()
    T = {FOREACH_TILING_KEY_HALF: "half", FOREACH_TILING_KEY_FLOAT: "float",
         FOREACH_TILING_KEY_BF16: "bfloat16"}.get(tiling_key)
    if T is not None:
        tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ForeachSoloTilingDataRegbase, tiling_bytes)
        op = ForeachLerpScalarRegbase(T)
        op.Init(tensor1, tensor2, weight, outputs, workspace, tilingData, pipeOp)
        op.Process()
    pipeOp.Destroy()


def _dtype_name(a):
    return {np.dtype(np.float32): "float", np.dtype(np.float16): "half",
            np.dtype(ml_dtypes.bfloat16): "bfloat16"}[a.dtype]


def run_lerp(device, x1, x2, weight):
    """Launch over two lists of 1-d arrays of one dtype; the outputs, a list."""
    T = _dtype_name(x1[0])
    outs = [np.zeros_like(a) for a in x1]
    blocks, key, raw = tiling(device, [a.size for a in x1], T)
    workspace = np.zeros(BLOCK_SIZE, np.uint8)
    aj.launch(foreach_lerp_scalar, blocks, device, list(x1), list(x2), np.array([weight], np.float32), outs,
              workspace, raw, key)
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


def lerp_model(x1, x2, weight):
    """One tensor: the kernel's float chain (the branch by weight), RNE to the type; NaN canonical."""
    w = np.float32(weight)
    a, b = x1.astype(np.float32), x2.astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        d = (b - a).astype(np.float32)
        if np.float32(-0.5) < w < np.float32(0.5):
            y = fma_f32(np.full_like(d, w), d, a)
        else:
            y = fma_f32(np.full_like(d, np.float32(w - np.float32(1.0))), d, b)
        y = y.astype(x1.dtype)
    y[np.isnan(y.astype(np.float32))] = np.float32(np.nan)
    return y


# the gallery's lists: five tensors of uneven shares of the size (some shorter than a DataBlock or a vector)
_SHARES = (0.41, 0.0001, 0.3, 0.2899, 0.0)


def counts_of(size):
    counts = [max(1, int(size * s)) for s in _SHARES]
    counts[0] += size - sum(counts)
    return counts


def _make_inputs(dtype, weight):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        out = {"weight": np.array([weight], np.float32)}
        for k, n in enumerate(counts_of(max(size, len(_SHARES)))):
            out[f"a{k}"] = (rng.standard_normal(n) * 10).astype(_NP[dtype])
            out[f"b{k}"] = (rng.standard_normal(n) * 10).astype(_NP[dtype])
        return out
    return make_inputs


def _lists(inputs):
    n = sum(1 for k in inputs if k.startswith("a"))
    return [inputs[f"a{k}"] for k in range(n)], [inputs[f"b{k}"] for k in range(n)]


def _run(device, inputs):
    x1, x2 = _lists(inputs)
    return {f"y{k}": y for k, y in enumerate(run_lerp(device, x1, x2, inputs["weight"][0]))}


def _expected(device, inputs):
    x1, x2 = _lists(inputs)
    return {f"y{k}": lerp_model(a, b, inputs["weight"][0]) for k, (a, b) in enumerate(zip(x1, x2))}


def _size_ok(n):
    return 5 <= n <= 1 << 22


_SOURCE = "hicann/ops-nn@e5c3fa93 foreach/foreach_lerp_scalar/op_kernel/arch35/foreach_lerp_scalar_regbase.h"
KERNELS = [
    KernelSpec("foreach_lerp_scalar", "ops-nn ForeachLerpScalar over float tensor lists, 950 regbase (weight 0.3: "
               "Sub, Axpy x1 += w * d; per-core tensor ranges, DataCopyPad chunks)", _make_inputs("float", 0.3),
               _run, _expected, default_size=100000, devices=("ascend950",), size_rule="5 to 4Mi elements",
               size_ok=_size_ok, source=_SOURCE),
    KernelSpec("foreach_lerp_scalar_half", "the same over halves, weight 0.75 (the other branch: x2 += (w - 1) * d; "
               "DIST_UNPACK_B16 + Cast in, Cast CAST_RINT + DIST_PACK_B32 out)", _make_inputs("half", 0.75), _run,
               _expected, default_size=100000, devices=("ascend950",), size_rule="5 to 4Mi elements",
               size_ok=_size_ok, source=_SOURCE),
    KernelSpec("foreach_lerp_scalar_bf16", "the same over bfloat16, weight -0.25", _make_inputs("bfloat16", -0.25),
               _run, _expected, default_size=100000, devices=("ascend950",), size_rule="5 to 4Mi elements",
               size_ok=_size_ok, source=_SOURCE),
]
