"""ForeachNorm from the CANN NN operators, the Ascend 950 (regbase) kernel: for every tensor of a list (float, half
or bfloat16; sizes of their own) its p-norm as a one-element tensor of its type: p = 1 sum |x|, p = 2 sqrt(sum x^2),
p = +inf max |x| (PyTorch's _foreach_norm). Two stages: each core reduces its share of the list to one float per
tensor it touches into the user workspace, SyncAll, then the cores (round robin over the tensors) reduce each
tensor's partials and take the square root.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921:
- foreach/foreach_norm/op_kernel/arch35/foreach_norm.cpp (the entry: a null workspace returns, SetSysWorkspace,
  GetSysWorkSpacePtr, GetUserWorkspace; p read from GM as DTYPE_SCALAR (float or int64) into a float; the model code
  +inf when p's exponent is all ones and p > 0, 1 when (int)p == 1, else 2; TILING_KEY_IS 10001 / 10002 / 10004;
  pipeOp.Destroy());
- foreach/foreach_norm/op_kernel/arch35/foreach_norm_regbase.h (`ForeachNormNDRegbase<T, modelCode>`: Init (the
  workspace as (256 + 80) floats, a depth-2 input queue of inputsTensorUbSize elements, a depth-1 output queue of
  maxTensorNumPerCore floats); Process: stage 1 per tensor of the core's range, chunks through DataCopyPad (isPad
  false) and DoCompute<isFirst>'s VF: per 64-float vector UpdateMask, LoadOneTensorForDtypeT, Abs + Max / Abs + Add
  / Mul + Add (the UpdateMask ZEROING, the accumulation under ALL), ReduceMax / ReduceSum, then the chunk's value
  stored DIST_FIRST_ELEMENT_B32 under VL1 at the tensor's slot, or (later chunks) loaded DIST_BRC_B32, Max / Add under
  VL1 and stored back; EnQue / DeQue, one DataCopyPad of the core's slots to workspace + coreMiddleOffset; SyncAll;
  stage 2: tensor i = blockIdx, blockIdx + needCoreNum, ...: an empty tensor's output Duplicate 0 (OutputZero), else
  ReduceCompute (DataCopyPad isPad true of its partials, ReduceComputeImpl<count > 1>'s VF: Select of the loaded
  lanes against 0 under the UpdateMask, Add / Max, ReduceSum / ReduceMax, Sqrt for p = 2, StoreOneTensorForDtypeT
  under ALL) and CopyOut of one element);
- common/inc/op_kernel/load_store_utils.h (LoadOneTensorForDtypeT / StoreOneTensorForDtypeT, as
  kernels/foreach_lerp_scalar.py);
- foreach/foreach_utils/op_host/foreach_reduce_regbase_tiling.cpp and foreach_reduce_tiling_def.h
  (`ForeachReduceRegbaseTiling`: cores min(platform, 80, ceil(total / (4096 / sizeof(T)))), `AssignDataToEachCore`
  with maxTensorNumPerCore, `AssignTensorMiddleCountList` (partials per tensor, their start, each core's offset),
  maxTensorNumPerCore rounded up to 8 floats, inputsTensorUbSize = (UB - that) / 2 floored to 32 bytes, in elements;
  workspace 16 MiB + (80 + 256) floats; the ForeachReduceTilingDataRegbase struct).

Quirks of the original, kept: p is truncated, so 1.5 computes the 1-norm and 3 the 2-norm; a NaN or -inf p (C++
leaves the (int) cast undefined) computes the 2-norm here. A list of empty tensors only: the tiling's
maxTensorNumPerCore is 0, so the output queue's InitBuffer asks for 0 bytes (and OutputZero would then write past
it); ascend_jit refuses that InitBuffer (ParameterError, len in [1, UB]). An empty tensor among others: its stage-1
slot is never computed but is copied to the workspace with the core's other slots (the sanitizer's uninitialised
read; stage 2 writes 0 for it without reading that partial).

Deviations: 8 cores and Python lists of GM arrays, as kernels/foreach_lerp_scalar.py. Stage 1's VF loads whole
vectors with no mask, so a chunk's last vector reads queue bytes past the copy (uninitialised: the sanitizer
reported them before session 54; ZEROING drops their lanes, so with the lane tracking it does not) and,
inputsTensorUbSize being no multiple of 64 lanes (31736 floats on the 950 with 8 slots), past the second queue
buffer into the output queue's; stage 2's VF loads a whole vector of partials after a copy of one 32-byte block. The
port floors inputsTensorUbSize to whole vectors (`UB_ALIGN`) and Duplicates 0 over a short chunk's last vector (and
over stage 2's first vector) before the copy-in, ordered by a V_MTE2 flag (`ZERO_TAIL = False` runs without; kept
from before, no longer needed for the init check: the original sanitizes clean, stage 2's Select dropping the lanes
past the partials). Stage 2 stores a whole vector (StoreOneTensorForDtypeT under ALL: 256 bytes of floats, 128 of
halves) into the output queue's buffer of maxTensorNumPerCore floats (32 bytes for up to 8 slots), past it into UB
no buffer holds, which a default core refuses: the port rounds that buffer up to a vector (`OUT_BUFFER_BYTES`; the
original's size with `ROUND_OUT_BUFFER = False`, refused: tests/test_port45c_kernels.py).

Fidelity: BIT-EXACT (loads, Casts, Abs, Mul, Add, Max, Select, Reduce SUM's adjacent-pair tree and MAX, SPEC-2 11.4;
Sqrt MODELLED: DAZ/FTZ then the correctly rounded root, which the model reproduces). The model: per core chunk 64
float lanes accumulated in order, the pair tree, the chunks' values added in order, the partials' pair tree, sqrt.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
CORE_NUM = 8                      # deviation: the launch's cores (the platform's in the original)
ZERO_TAIL = True                  # the port's Duplicate of a short chunk's last vector (docstring; not needed since
                                  # session 54's lane tracking)
ROUND_OUT_BUFFER = True           # the port's whole-vector output buffer (docstring)
MAX_TENSOR_CONT = 256
MAX_CORE_CONT = 80
SINGLE_CORE_PROCESS_DATA = 4096   # bytes a block of AssignDataToEachCore
DOUBLE_BUFFER = 2
BLOCK_SIZE = 32
UB_ALIGN = 256                    # deviation: the original floors inputsTensorUbSize to BLOCK_SIZE (docstring)
VL_SIZE = 256                     # platform::GetVRegSize()
WORK_SPACE_SIZE = 16 * 1024 * 1024
ONE_SCALAR_NORM_MODEL_CODE, TWO_SCALAR_NORM_MODEL_CODE, POSITIVE_INF_SCALAR_NORM_MODEL_CODE = 1, 2, 3
FOREACH_TILING_KEY_HALF, FOREACH_TILING_KEY_FLOAT, FOREACH_TILING_KEY_BF16 = 10001, 10002, 10004
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_KEY = {"half": FOREACH_TILING_KEY_HALF, "float": FOREACH_TILING_KEY_FLOAT, "bfloat16": FOREACH_TILING_KEY_BF16}

ForeachReduceTilingDataRegbase = np.dtype([
    ("inputsTensorUbSize", np.uint32), ("needCoreNum", np.uint32), ("totalTensorCount", np.uint32),
    ("maxTensorNumPerCore", np.uint16), ("tensorDataCountList", np.uint64, MAX_TENSOR_CONT),
    ("tensorStartList", np.uint16, MAX_CORE_CONT), ("tensorEndList", np.uint16, MAX_CORE_CONT),
    ("tensorStartOffsetList", np.uint64, MAX_CORE_CONT), ("tensorEndOffsetList", np.uint64, MAX_CORE_CONT),
    ("tensorMiddleCountList", np.uint16, MAX_TENSOR_CONT), ("tensorMiddleStartList", np.uint16, MAX_TENSOR_CONT),
    ("coreMiddleOffsetList", np.uint16, MAX_CORE_CONT)], align=True)


def assign_data_to_each_core(t, counts, need, per_block):
    """ForeachReduceRegbaseTiling::AssignDataToEachCore: blocks of per_block elements over `need` cores (the first
    blocks % need cores one more); a core's range may start and end inside a tensor. Returns maxTensorNumPerCore."""
    total = sum(counts)
    block_count = -(-total // per_block)
    per_core = block_count // need * per_block
    remainder = block_count % need
    core, data, cursor, most = 0, 0, 0, 0
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
        most = max(most, j - int(t["tensorStartList"][core]) + 1)
        cursor = cursor + cmp_count - data
        t["tensorEndOffsetList"][core] = cursor - 1
        data = 0
        core += 1
        if cursor < counts[j]:
            t["tensorStartList"][core] = j
            t["tensorStartOffsetList"][core] = cursor
            continue                                    # the original's --i: the same tensor again
        if core != need:
            t["tensorStartList"][core] = j + 1
            t["tensorStartOffsetList"][core] = 0
            cursor = 0
        j += 1
    if data > 0:
        t["tensorEndList"][core] = len(counts) - 1
        t["tensorEndOffsetList"][core] = (counts[-1] - 1) % 2 ** 64     # an empty last tensor: -1 as uint64
    return max(most, int(t["tensorEndList"][core]) - int(t["tensorStartList"][core]) + 1)


def assign_tensor_middle_count_list(t, n_tensors, need):
    """AssignTensorMiddleCountList: how many cores leave a partial for each tensor, where its partials start in the
    workspace, where each core's partials go."""
    middle = t["tensorMiddleCountList"]
    pre = 0
    for i in range(1, need):
        start = int(t["tensorStartList"][i])
        if pre == start:
            middle[pre] += 1
        elif int(t["tensorStartOffsetList"][i]) > 0:
            middle[start] += 1
        pre = start
    at = 0
    for j in range(n_tensors):
        middle[j] += 1
        t["tensorMiddleStartList"][j] = at
        at += int(middle[j])
    at = 0
    for j in range(need):
        t["coreMiddleOffsetList"][j] = at
        at += int(t["tensorEndList"][j]) - int(t["tensorStartList"][j]) + 1


def tiling(device, counts, dtype, align=None):
    """ForeachReduceRegbaseTiling: (block dim, tiling key, the packed struct, the workspace bytes)."""
    align = UB_ALIGN if align is None else align
    if not 1 <= len(counts) <= MAX_TENSOR_CONT:
        raise ValueError(f"foreach_norm tiling: {len(counts)} tensors, legal 1..{MAX_TENSOR_CONT}")
    size = _SIZE[dtype]
    t = np.zeros(1, ForeachReduceTilingDataRegbase)[0]
    t["tensorDataCountList"][:len(counts)] = counts
    total = sum(counts)
    per_block = SINGLE_CORE_PROCESS_DATA // size
    blocks = max(1, min(CORE_NUM, MAX_CORE_CONT, -(-total // per_block)))
    if total == 0:
        blocks, most = 1, 0
        t["tensorEndOffsetList"][0] = 2 ** 64 - 1                       # -1 in the uint64 field
    else:
        most = assign_data_to_each_core(t, counts, blocks, per_block)
    assign_tensor_middle_count_list(t, len(counts), blocks)
    most = (most * 4 + BLOCK_SIZE - 1) // BLOCK_SIZE * BLOCK_SIZE // 4
    ub_elems = (aj.get_device(device).ub_bytes - most * 4) // DOUBLE_BUFFER // align * align // size
    t["inputsTensorUbSize"], t["needCoreNum"], t["totalTensorCount"] = ub_elems, blocks, len(counts)
    t["maxTensorNumPerCore"] = most
    workspace = WORK_SPACE_SIZE + (MAX_CORE_CONT + MAX_TENSOR_CONT) * 4
    return blocks, _KEY[dtype], np.frombuffer(t.tobytes(), np.uint8).copy(), workspace


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
def norm_chunk_vf(inUbAddr, outUbAddr, outOffset, repeatTimes, sreg, dataCountPerLoop, T, isFirst, modelOrd):
    """DoCompute<isFirst, modelOrd>'s __VEC_SCOPE__: the chunk's |x| max, |x| sum or x^2 sum into slot outOffset."""
    inRegToFloat = R.RegTensor("float")
    reduceFloat = R.RegTensor("float")
    outFloat = R.RegTensor("float")
    pregMain = R.CreateMask("float", R.MaskPattern.ALL)
    R.Duplicate(reduceFloat, np.float32(0.0), pregMain)
    for i in range(repeatTimes):
        maskReg, sreg = R.UpdateMask("float", sreg)
        load_one_tensor_for_dtype_t(inUbAddr, inRegToFloat, maskReg, i * dataCountPerLoop, T)
        if modelOrd == POSITIVE_INF_SCALAR_NORM_MODEL_CODE:
            R.Abs(inRegToFloat, inRegToFloat, maskReg)
            R.Max(reduceFloat, reduceFloat, inRegToFloat, pregMain)
        elif modelOrd == ONE_SCALAR_NORM_MODEL_CODE:
            R.Abs(inRegToFloat, inRegToFloat, maskReg)
            R.Add(reduceFloat, reduceFloat, inRegToFloat, pregMain)
        else:
            R.Mul(inRegToFloat, inRegToFloat, inRegToFloat, maskReg)
            R.Add(reduceFloat, reduceFloat, inRegToFloat, pregMain)
    if modelOrd == POSITIVE_INF_SCALAR_NORM_MODEL_CODE:
        R.ReduceMax(reduceFloat, reduceFloat, pregMain)
    else:
        R.ReduceSum(reduceFloat, reduceFloat, pregMain)
    pregMarge = R.CreateMask("float", R.MaskPattern.VL1)
    if isFirst:
        R.DataCopy(outUbAddr[outOffset], reduceFloat, pregMarge, dist=R.StoreDist.DIST_FIRST_ELEMENT_B32)
    else:
        R.DataCopy(outFloat, outUbAddr[outOffset], dist=R.LoadDist.DIST_BRC_B32)
        if modelOrd == POSITIVE_INF_SCALAR_NORM_MODEL_CODE:
            R.Max(outFloat, outFloat, reduceFloat, pregMarge)
        else:
            R.Add(outFloat, outFloat, reduceFloat, pregMarge)
        R.DataCopy(outUbAddr[outOffset], outFloat, pregMarge, dist=R.StoreDist.DIST_FIRST_ELEMENT_B32)


@R.simd_vf
def norm_partials_vf(inUbAddr, outUbAddr, repeatTimes, sreg, dataCountPerLoop, T, isMulitNum, modelOrd):
    """ReduceComputeImpl<isMulitNum, modelOrd>'s __VEC_SCOPE__: the tensor's partials to its norm, as T in lane 0."""
    inRegToFloat = R.RegTensor("float")
    reduceFloat = R.RegTensor("float")
    selectReg = R.RegTensor("float")
    pregMain = R.CreateMask("float", R.MaskPattern.ALL)
    R.Duplicate(reduceFloat, np.float32(0.0), pregMain)
    R.Duplicate(selectReg, np.float32(0.0), pregMain)
    for i in range(repeatTimes):
        maskReg, sreg = R.UpdateMask("float", sreg)
        load_one_tensor_for_dtype_t(inUbAddr, inRegToFloat, maskReg, i * dataCountPerLoop, "float")
        R.Select(inRegToFloat, inRegToFloat, selectReg, maskReg)      # the lanes past the partials: 0
        if isMulitNum:
            if modelOrd == POSITIVE_INF_SCALAR_NORM_MODEL_CODE:
                R.Max(reduceFloat, reduceFloat, inRegToFloat, pregMain)
            else:
                R.Add(reduceFloat, reduceFloat, inRegToFloat, pregMain)
    if isMulitNum:
        if modelOrd == POSITIVE_INF_SCALAR_NORM_MODEL_CODE:
            R.ReduceMax(inRegToFloat, reduceFloat, pregMain)
        else:
            R.ReduceSum(inRegToFloat, reduceFloat, pregMain)
    if modelOrd == TWO_SCALAR_NORM_MODEL_CODE:
        R.Sqrt(inRegToFloat, inRegToFloat, pregMain)
    store_one_tensor_for_dtype_t(outUbAddr, inRegToFloat, pregMain, 0, T)


class ForeachNormNDRegbase:
    """ForeachNormNDRegbase<T, modelCode, Tiling>."""

    BUFFER_NUM_ = 2

    def __init__(self, T, modelCode):
        self.T, self.modelCode = T, modelCode

    def Init(self, inputs, outputs, workspace, tilingData, tPipe):
        T = self.T
        self.workTensorGM_ = aj.GlobalTensor("float")
        self.workTensorGM_.SetGlobalBuffer(workspace, MAX_TENSOR_CONT + MAX_CORE_CONT)
        self.blockIdx_ = aj.GetBlockIdx()
        self.inDesc_, self.outDesc_ = inputs, outputs
        self.ParseTilingData(tilingData)
        self.inQueue_ = aj.TQue(aj.QuePosition.VECIN, self.BUFFER_NUM_)
        self.outQueue_ = aj.TQue(aj.QuePosition.VECOUT, 1)
        tPipe.InitBuffer(self.inQueue_, self.BUFFER_NUM_, self.inputsTensorUbSize_ * _SIZE[T])
        outBytes = self.maxTensorNumPerCore_ * 4
        if ROUND_OUT_BUFFER:        # deviation (docstring): stage 2 stores a whole vector into this buffer
            outBytes = aj.AlignUp(outBytes, VL_SIZE)
        tPipe.InitBuffer(self.outQueue_, 1, outBytes)
        self.maxDataCount_ = self.inputsTensorUbSize_

    def Process(self):
        outLocal = self.outQueue_.AllocTensor("float")
        for i in range(self.tensorStart_, self.tensorEnd_ + 1):
            cursorStart, cursorEnd = 0, int(self.tensorDataCountList_[i]) - 1
            if i == self.tensorStart_:
                cursorStart = self.tensorStartOffset_
            if i == self.tensorEnd_:
                cursorEnd = self.tensorEndOffset_
            dataCount = cursorEnd - cursorStart + 1
            self.inTensorGM_ = aj.GlobalTensor(self.T)
            self.inTensorGM_.SetGlobalBuffer(self.GetGlobalTensorAddr(i, self.inDesc_)[cursorStart:])
            self.SingleTensorProcess(outLocal, dataCount, i - self.tensorStart_)
        self.outQueue_.EnQue("float", outLocal)
        outLocal = self.outQueue_.DeQue("float")
        tensorNum = self.tensorEnd_ - self.tensorStart_ + 1
        copyParams = aj.DataCopyExtParams(1, tensorNum * 4, 0, 0, 0)
        aj.DataCopyPad(self.workTensorGM_[self.coreMiddleOffset_], outLocal, copyParams)
        self.outQueue_.FreeTensor(outLocal)

        aj.SyncAll()

        # stage 2: each tensor's partials reduced (and square-rooted) by one core
        for i in range(self.blockIdx_, self.totalTensorCount_, self.needCoreNum_):
            self.outTensorGM_ = aj.GlobalTensor(self.T)
            self.outTensorGM_.SetGlobalBuffer(self.GetGlobalTensorAddr(i, self.outDesc_))
            if int(self.tensorDataCountList_[i]) == 0:
                self.OutputZero()
                continue
            self.ReduceCompute(int(self.tensorMiddleCountList_[i]), int(self.tensorMiddleStartList_[i]))
            self.CopyOut()

    def _zero_tail(self, local, dataCount, dtype):
        """Not in the original (docstring): 0 over the last vector the VF loads past dataCount, then V -> MTE2."""
        lanes = VL_SIZE // 4
        start, loaded = dataCount // lanes * lanes, aj.CeilDivision(dataCount, lanes) * lanes
        if ZERO_TAIL and loaded > dataCount:
            aj.Duplicate(local[start], _NP[dtype](0), loaded - start)
            eventID = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_MTE2)
            aj.SetFlag(eventID, event=aj.HardEvent.V_MTE2)
            aj.WaitFlag(eventID, event=aj.HardEvent.V_MTE2)

    def ReduceCompute(self, dataCount, offset):
        dataLocal = self.inQueue_.AllocTensor("float")
        self._zero_tail(dataLocal, dataCount, "float")
        copyParams = aj.DataCopyExtParams(1, dataCount * 4, 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(True, 0, 0, np.float32(0))
        aj.DataCopyPad(dataLocal, self.workTensorGM_[offset], copyParams, padParams)
        self.inQueue_.EnQue("float", dataLocal)
        dataLocal = self.inQueue_.DeQue("float")
        outLocal = self.outQueue_.AllocTensor(self.T)
        dataCountPerLoop = VL_SIZE // 4
        repeatTimes = aj.CeilDivision(dataCount, dataCountPerLoop)
        R.asc_vf_call(norm_partials_vf, dataLocal, outLocal, repeatTimes, dataCount, dataCountPerLoop, self.T,
                      dataCount > 1, self.modelCode)
        self.inQueue_.FreeTensor(dataLocal)
        self.outQueue_.EnQue(self.T, outLocal)

    def SingleTensorProcess(self, outLocal, dataCount, outOffset):
        quotient = aj.CeilDivision(dataCount, self.maxDataCount_)
        for i in range(quotient):
            current = dataCount - (quotient - 1) * self.maxDataCount_ if i == quotient - 1 else self.maxDataCount_
            self.CopyIn(i, current)
            self.Compute(outLocal, current, i, outOffset)

    def Compute(self, outLocal, dataCount, index, outOffset):
        inLocal = self.inQueue_.DeQue(self.T)
        dataCountPerLoop = VL_SIZE // 4
        repeatTimes = aj.CeilDivision(dataCount, dataCountPerLoop)
        R.asc_vf_call(norm_chunk_vf, inLocal, outLocal, outOffset, repeatTimes, dataCount, dataCountPerLoop, self.T,
                      index == 0, self.modelCode)
        self.inQueue_.FreeTensor(inLocal)

    def OutputZero(self):
        T = self.T
        outLocal = self.outQueue_.AllocTensor(T)
        # SetValueAdapter: Duplicate of T(0.0) (ToBfloat16 for bfloat16)
        aj.Duplicate(outLocal, aj.ToBfloat16(0.0) if T == "bfloat16" else _NP[T](0.0), 1)
        self.outQueue_.EnQue(T, outLocal)
        outLocal = self.outQueue_.DeQue(T)
        aj.DataCopyPad(self.outTensorGM_, outLocal, aj.DataCopyExtParams(1, _SIZE[T], 0, 0, 0))
        self.outQueue_.FreeTensor(outLocal)

    def ParseTilingData(self, t):
        b = self.blockIdx_
        self.maxTensorNumPerCore_ = int(t.maxTensorNumPerCore)
        self.inputsTensorUbSize_ = int(t.inputsTensorUbSize)
        self.tensorDataCountList_ = t.tensorDataCountList
        self.needCoreNum_ = int(t.needCoreNum)
        self.totalTensorCount_ = int(t.totalTensorCount)
        self.tensorStart_ = int(t.tensorStartList[b])
        self.tensorEnd_ = int(t.tensorEndList[b])
        self.tensorStartOffset_ = int(t.tensorStartOffsetList[b])
        self.tensorEndOffset_ = int(np.int64(np.uint64(t.tensorEndOffsetList[b])))      # -1 for an empty list
        self.tensorMiddleStartList_ = t.tensorMiddleStartList
        self.tensorMiddleCountList_ = t.tensorMiddleCountList
        self.coreMiddleOffset_ = int(t.coreMiddleOffsetList[b])

    def CopyIn(self, index, dataCount):
        T = self.T
        dataLocal = self.inQueue_.AllocTensor(T)
        self._zero_tail(dataLocal, dataCount, T)
        pad = aj.DataCopyPadExtParams()
        pad.isPad, pad.leftPadding, pad.rightPadding, pad.paddingValue = False, 0, 0, 0
        params = aj.DataCopyExtParams()
        params.blockCount, params.blockLen, params.srcStride, params.dstStride = 1, dataCount * _SIZE[T], 0, 0
        aj.DataCopyPad(dataLocal, self.inTensorGM_[index * self.maxDataCount_], params, pad)
        self.inQueue_.EnQue(T, dataLocal)

    def CopyOut(self):
        T = self.T
        retLocal = self.outQueue_.DeQue(T)
        aj.DataCopyPad(self.outTensorGM_, retLocal, aj.DataCopyExtParams(1, _SIZE[T], 0, 0, 0))
        self.outQueue_.FreeTensor(retLocal)

    @staticmethod
    def GetGlobalTensorAddr(index, desc):
        """The list's index-th GM tensor (deviation: the original reads it from the ListTensorDesc's table)."""
        return desc[index]


aj.REGISTER_TILING_DEFAULT(ForeachReduceTilingDataRegbase)


def model_code(scalarVal):
    """The entry's choice from p (a float): +inf, (int)p == 1, else the 2-norm (NaN / -inf: 2, docstring)."""
    scalarVal = np.float32(scalarVal)
    bits = int(scalarVal.view(np.uint32))
    if (bits & 0x7FFFFFFF) >> 23 == 0xFF and scalarVal > 0:
        return POSITIVE_INF_SCALAR_NORM_MODEL_CODE
    if np.isfinite(scalarVal) and int(scalarVal) == 1:
        return ONE_SCALAR_NORM_MODEL_CODE
    return TWO_SCALAR_NORM_MODEL_CODE


def foreach_norm(inputs, scalar, output, workspace, tiling_bytes, tiling_key):
    """The kernel entry (extern "C" foreach_norm); scalar is p's one-element GM array (DTYPE_SCALAR float32 or
    int64), tiling_key stands for TILING_KEY_IS."""
    if workspace is None:
        return
    aj.SetSysWorkspace(workspace)
    if aj.GetSysWorkSpacePtr() is None:
        return
    userWS = aj.GetUserWorkspace(workspace)
    DTYPE_SCALAR = "int64" if scalar.dtype == np.int64 else "float"
    inScalarGM = aj.GlobalTensor(DTYPE_SCALAR)
    inScalarGM.SetGlobalBuffer(scalar, 1)
    scalarVal = np.float32(inScalarGM.GetValue(0))
    if DTYPE_SCALAR == "int64":
        modelCode = ONE_SCALAR_NORM_MODEL_CODE if int(scalarVal) == 1 else TWO_SCALAR_NORM_MODEL_CODE
    else:
        modelCode = model_code(scalarVal)
    pipeOp = aj.TPipe()
    T = {FOREACH_TILING_KEY_HALF: "half", FOREACH_TILING_KEY_FLOAT: "float",
         FOREACH_TILING_KEY_BF16: "bfloat16"}.get(tiling_key)
    if T is not None:
        tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ForeachReduceTilingDataRegbase, tiling_bytes)
        op = ForeachNormNDRegbase(T, modelCode)
        op.Init(inputs, output, userWS, tilingData, pipeOp)
        op.Process()
    pipeOp.Destroy()


def _dtype_name(a):
    return {np.dtype(np.float32): "float", np.dtype(np.float16): "half",
            np.dtype(ml_dtypes.bfloat16): "bfloat16"}[a.dtype]


def run_norm(device, xs, p, **launch_kw):
    """Launch over a list of 1-d arrays of one dtype; p a float (or an np.int64); the list of one-element outputs."""
    T = _dtype_name(xs[0])
    outs = [np.full(1, 7, xs[0].dtype) for _ in xs]
    blocks, key, raw, ws_bytes = tiling(device, [a.size for a in xs], T)
    workspace = np.zeros(ws_bytes // 4, np.float32)
    scalar = np.array([p], np.int64 if isinstance(p, (int, np.integer)) else np.float32)
    aj.launch(foreach_norm, blocks, device, list(xs), scalar, outs, workspace, raw, key, **launch_kw)
    return outs


def _pair_tree(v):
    """Reduce SUM's adjacent-pair tree over 64 float lanes (SPEC-2 11.4), float32 adds."""
    v = np.asarray(v, np.float32)
    while v.size > 1:
        v = (v[0::2] + v[1::2]).astype(np.float32)
    return v[0]


def _vector_reduce(x, code):
    """One VF call of stage 1 over x (float32): the 64-lane accumulation in order, then Reduce."""
    n = x.size
    padded = np.zeros(-(-n // 64) * 64, np.float32)
    if code == TWO_SCALAR_NORM_MODEL_CODE:
        padded[:n] = (x * x).astype(np.float32)
    else:
        padded[:n] = np.abs(x)
    acc = np.zeros(64, np.float32)
    for row in padded.reshape(-1, 64):
        acc = np.maximum(acc, row) if code == POSITIVE_INF_SCALAR_NORM_MODEL_CODE else (acc + row).astype(np.float32)
    return np.float32(acc.max()) if code == POSITIVE_INF_SCALAR_NORM_MODEL_CODE else _pair_tree(acc)


def norm_model(xs, p, device="ascend950"):
    """The kernel's float chain: the tiling's core ranges and chunks, each core's per-tensor value (chunks combined
    in order), the partials' 64-lane Reduce, sqrt for the 2-norm (DAZ on its input), RNE to the type."""
    code = model_code(p) if not isinstance(p, (int, np.integer)) else (
        ONE_SCALAR_NORM_MODEL_CODE if int(p) == 1 else TWO_SCALAR_NORM_MODEL_CODE)
    T = _dtype_name(xs[0])
    blocks, _, raw, _ = tiling(device, [a.size for a in xs], T)
    t = np.frombuffer(raw.tobytes(), ForeachReduceTilingDataRegbase)[0]
    chunk = int(t["inputsTensorUbSize"])
    partials = [[] for _ in xs]
    with np.errstate(over="ignore", invalid="ignore"):
        for core in range(blocks):
            s, e = int(t["tensorStartList"][core]), int(t["tensorEndList"][core])
            for k in range(s, e + 1):
                c0 = int(t["tensorStartOffsetList"][core]) if k == s else 0
                c1 = int(np.int64(np.uint64(t["tensorEndOffsetList"][core]))) if k == e else xs[k].size - 1
                x = xs[k].astype(np.float32)[c0:c1 + 1]
                value = None
                for start in range(0, x.size, chunk):
                    v = _vector_reduce(x[start:start + chunk], code)
                    if value is None:
                        value = v
                    elif code == POSITIVE_INF_SCALAR_NORM_MODEL_CODE:
                        value = np.float32(max(value, v))
                    else:
                        value = np.float32(value + v)
                partials[k].append(value)
        outs = []
        for k, parts in enumerate(partials):
            if xs[k].size == 0:
                outs.append(np.zeros(1, xs[k].dtype))
                continue
            parts = np.array(parts, np.float32)
            if parts.size > 1:
                lanes = np.zeros(-(-parts.size // 64) * 64, np.float32)
                lanes[:parts.size] = parts
                acc = np.zeros(64, np.float32)
                for row in lanes.reshape(-1, 64):
                    acc = np.maximum(acc, row) if code == POSITIVE_INF_SCALAR_NORM_MODEL_CODE else \
                        (acc + row).astype(np.float32)
                r = np.float32(acc.max()) if code == POSITIVE_INF_SCALAR_NORM_MODEL_CODE else _pair_tree(acc)
            else:
                r = parts[0]
            if code == TWO_SCALAR_NORM_MODEL_CODE:
                r = np.float32(0.0) if abs(r) < np.finfo(np.float32).tiny else np.sqrt(np.float32(r))
            outs.append(np.array([r], np.float32).astype(xs[k].dtype))
    return outs


_SHARES = (0.41, 0.0001, 0.3, 0.2899, 0.0)


def counts_of(size):
    counts = [max(1, int(size * s)) for s in _SHARES]
    counts[0] += size - sum(counts)
    return counts


def _make_inputs(dtype, p):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        out = {"p": np.array([p], np.float32)}
        for k, n in enumerate(counts_of(max(size, len(_SHARES)))):
            out[f"x{k}"] = (rng.standard_normal(n) * 2).astype(_NP[dtype])
        return out
    return make_inputs


def _list(inputs):
    return [inputs[f"x{k}"] for k in range(sum(1 for k in inputs if k.startswith("x")))]


def _run(device, inputs):
    return {f"y{k}": y for k, y in enumerate(run_norm(device, _list(inputs), float(inputs["p"][0])))}


def _expected(device, inputs):
    return {f"y{k}": y for k, y in enumerate(norm_model(_list(inputs), float(inputs["p"][0]), device))}


def _size_ok(n):
    return 5 <= n <= 1 << 22


_SOURCE = "hicann/ops-nn@e5c3fa93 foreach/foreach_norm/op_kernel/arch35/foreach_norm_regbase.h"
KERNELS = [
    KernelSpec("foreach_norm", "ops-nn ForeachNorm (p = 2) over a float tensor list, 950 regbase: per-core Mul + Add "
               "lanes, Reduce SUM, DIST_FIRST_ELEMENT / DIST_BRC slots, partials through the workspace, SyncAll, "
               "Select + Reduce SUM + Sqrt", _make_inputs("float", 2.0), _run, _expected, default_size=100000,
               devices=("ascend950",), size_rule="5 to 4Mi elements", size_ok=_size_ok, source=_SOURCE),
    KernelSpec("foreach_norm_half_l1", "the same over halves, p = 1 (Abs + Add; Cast CAST_RINT + DIST_PACK_B32 of the "
               "sum)", _make_inputs("half", 1.0), _run, _expected, default_size=100000, devices=("ascend950",),
               size_rule="5 to 4Mi elements", size_ok=_size_ok, source=_SOURCE),
    KernelSpec("foreach_norm_bf16_inf", "the same over bfloat16, p = inf (Abs + Max, Reduce MAX)",
               _make_inputs("bfloat16", np.inf), _run, _expected, default_size=100000, devices=("ascend950",),
               size_rule="5 to 4Mi elements", size_ok=_size_ok, source=_SOURCE),
]
