"""ForeachNonFiniteCheckAndUnscale from the CANN NN operators, the Ascend 950 (regbase) kernel: every element of a
list of tensors (float, half or bfloat16, sizes of their own) is multiplied in place by inv_scale, and found_inf is
set to 1.0 when any element is inf or NaN (PyTorch's _amp_foreach_non_finite_check_and_unscale_).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, foreach/foreach_non_finite_check_and_unscale:
- op_kernel/arch35/foreach_non_finite_check_and_unscale.cpp (the entry: a null workspace returns,
  GetUserWorkspace, TILING_KEY_IS(100), GET_TILING_DATA_WITH_STRUCT);
- op_kernel/arch35/foreach_non_finite_check_and_unscale_regbase.h (`ForeachNonFiniteCheckAndUnscaleNDRegbase<T>`):
  Init (the tiling's per-core tensor range, inv_scale by GM GetValue, depth-2 copy-in, copy-out and reduce-temp
  queues, two 32-byte TBufs for the running max and min); Process (both TBufs Duplicated to 0; per tensor of the
  core's range a GlobalTensor from its start offset; chunks of scaledGradsUbSize bytes: DataCopy of whole
  DataBlocks or DataCopyPad with isPad {true, 0, 0, 0}, the VF over the count rounded up to a DataBlock, DataCopy or
  DataCopyPad back to the same GM; then a FetchEventID'd V_S flag, GetValue of both TBufs, the exponent test and on
  a hit `found_inf.SetValue(0, 1.0)` + DataCacheCleanAndInvalid SINGLE_CACHE_LINE); the VF (__VEC_SCOPE__):
  CreateMask ALL and VL1, min and max Duplicated to 0; for each but the last 64-float vector UpdateMask,
  LoadOneTensorForDtypeT, Max, Min, Muls by inv_scale, StoreOneTensorForDtypeT under the UpdateMask; the last
  vector the same after `Adds(x, x, 0, mask)` (ZEROING: the lanes past the count become +0), with Max / Min under
  the ALL mask; then DataCopy of the running min and max from their TBufs, ReduceMax / ReduceMin of the vectors,
  Max / Min into the running values, and DIST_FIRST_ELEMENT_B32 stores under VL1;
- common/inc/op_kernel/load_store_utils.h (`ops::LoadOneTensorForDtypeT`: DataCopy DIST_NORM, or DIST_UNPACK_B16
  and Cast (ZERO, UNKNOWN, ZEROING, UNKNOWN) to float; `ops::StoreOneTensorForDtypeT`: DataCopy under the mask, or
  Cast (ZERO, NO_SAT, ZEROING, CAST_RINT) and DIST_PACK_B32), here `@aj.Reg.simd_callee`s;
- op_host/foreach_non_finite_check_and_unscale_regbase_tiling.cpp and _tiling.h (the tensors rounded up to
  DataBlocks, one core per DataBlock up to the cores (at most 80), `AssignDataToEachCore`, `DivideUbMemory`,
  `GetReduceRetValSize`; the RegbaseTilingData struct).

A quirk of the original, kept: the last vector's `Adds(x, x, 0)` also runs before its Muls, so a -0 there is
unscaled to +0 (every other vector keeps -0 * s = -0).

Deviations: the core count is the launch's 8 (the platform's in the original). The original loads the running min /
max by a whole-vector DataCopy from their 32-byte TBufs: lanes 8..63 read the 224 UB bytes past the buffer (past the
pipe's buffers: no instruction writes them), which a default core refuses (it needs `aj.launch(..., bounds="ub")`)
and the sanitizer reported as reads outside the tensor before session 66 (before session 54 also as uninitialised
reads; with the lane tracking of both checks not: those lanes never reach a store). Only lane 0 of those loads, of
the Max / Min with the reduced vectors and of the stores is used, so the port loads lane 0 broadcast (DIST_BRC_B32):
the same stored values, no byte past the TBufs (`ORIGINAL_MIN_MAX_LOADS = True` runs the original's loads, with
bounds="ub"; tests/test_port39r_kernels.py checks it reports nothing). The VF loads whole vectors (256 bytes; 128 for
the 16-bit unpacking load), so a chunk's last vector reads past the chunk's DataBlocks and, when scaledGradsUbSize is
no multiple of 256 bytes, past the queue buffer into the next one (lanes outside the UpdateMask: harmless on the
device); the port rounds the copy-in and copy-out buffers up to 256 bytes (the chunks stay scaledGradsUbSize) and
zeroes the elements past the chunk by a Duplicate before the copy-in (kept from before session 54; with the lane
tracking no longer needed for the init check: the last vector's ZEROING Adds clears those lanes).
The tensor list is a Python list of GM arrays (docs/decisions.md "Kernel utilities": the original reads a pointer
table at the GM address, `GetTensorAddr`). found_inf is an in/out GM float; the kernel only ever writes 1.0 to it.

Fidelity: BIT-EXACT (loads, Casts, Max, Min, Reduce, Adds, Muls, stores: SPEC-2 0.3). The expectation is numpy's
float32 product (RNE, then RNE to half / bfloat16), with the last vector's -0 quirk, and isfinite over the list.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
CORE_NUM = 8                          # deviation: the launch's cores (the platform's in the original)
ORIGINAL_MIN_MAX_LOADS = False        # True: the original's whole-vector loads of the running min / max
MAX_TENSOR_COUNT = 256
MAX_CORE_COUNT_REGBASE = 80
BYTE_BLOCK = 32
BYTE_REPEAT = 256
BUFFER_NUM = 2
TEM_BUFFER_REMAIN = 32
TEMP_BUFFER_NUM_FOR_MIN_MAX = 2
COEFFICIENT_OF_FLOAT = 2
DTYPE_SIZE_FLOAT = 4
TILING_KEY_REGBASE = 100
VF_LANES = 64                         # GetVRegSize() / sizeof(float)
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
_SIZE = {"float": 4, "half": 2, "bfloat16": 2}

ForeachNonFiniteCheckAndUnscaleRegbaseTilingData = np.dtype([
    ("scaledGradsUbSize", np.uint32), ("reduceTempValUbSize", np.uint32),
    ("tensorDataCountList", np.int64, MAX_TENSOR_COUNT),
    ("tensorStartList", np.uint16, MAX_CORE_COUNT_REGBASE), ("tensorEndList", np.uint16, MAX_CORE_COUNT_REGBASE),
    ("tensorStartOffsetList", np.int64, MAX_CORE_COUNT_REGBASE),
    ("tensorEndOffsetList", np.int64, MAX_CORE_COUNT_REGBASE)], align=True)


def tiling(device, counts, dtype):
    """ForeachNonFiniteCheckAndUnscaleRegbaseTiling: (block dim, tiling key, the packed tiling data)."""
    t = np.zeros(1, ForeachNonFiniteCheckAndUnscaleRegbaseTilingData)[0]
    size = _SIZE[dtype]
    per_block = BYTE_BLOCK // size
    aligned = [-(-n // per_block) * per_block for n in counts]
    t["tensorDataCountList"][:len(counts)] = counts
    total, total_aligned = sum(counts), sum(aligned)
    need = min(min(total_aligned // per_block, CORE_NUM), MAX_CORE_COUNT_REGBASE)     # GetNeedCoreNum
    if total == 0:
        need = 1
    else:                                                                             # AssignDataToEachCore
        need = max(need, 1)
        block_count = total_aligned // per_block
        per_core = block_count // need * per_block
        remainder = block_count % need
        core, data, cursor = 0, 0, 0
        i = 0
        while i < len(counts):
            cmp_count = per_core + per_block if remainder and core < remainder else per_core
            left = aligned[i] - cursor
            if data + left < cmp_count:
                data += left
                cursor = 0
                i += 1
                continue
            t["tensorEndList"][core] = i
            cursor = cursor + cmp_count - data
            t["tensorEndOffsetList"][core] = cursor - 1
            data = 0
            core += 1
            if cursor < aligned[i]:
                t["tensorStartList"][core] = i
                t["tensorStartOffsetList"][core] = cursor
                continue                                     # the same tensor again (the original's --i)
            if core != need:
                t["tensorStartList"][core] = i + 1
                t["tensorStartOffsetList"][core] = 0
                cursor = 0
            i += 1
        if data:
            t["tensorEndList"][core] = len(counts) - 1
            t["tensorEndOffsetList"][core] = aligned[-1] - 1
    # DivideUbMemory, GetReduceRetValSize
    can_use = (aj.get_device(device).ub_bytes - ForeachNonFiniteCheckAndUnscaleRegbaseTilingData.itemsize
               - TEM_BUFFER_REMAIN * TEMP_BUFFER_NUM_FOR_MIN_MAX) // BUFFER_NUM
    can_use = can_use // BYTE_BLOCK * BYTE_BLOCK
    predict = int(BYTE_REPEAT * size / (COEFFICIENT_OF_FLOAT * BYTE_REPEAT * size + BYTE_BLOCK * 1.0) * can_use)
    sg_size = predict // BYTE_BLOCK * BYTE_BLOCK
    src_count = sg_size // size
    per_repeat, per_block_f = BYTE_REPEAT // DTYPE_SIZE_FLOAT, BYTE_BLOCK // DTYPE_SIZE_FLOAT
    iter1 = int(np.ceil(2.0 * src_count / per_repeat))
    t["scaledGradsUbSize"] = sg_size
    t["reduceTempValUbSize"] = -(-iter1 // per_block_f) * per_block_f * DTYPE_SIZE_FLOAT
    assert COEFFICIENT_OF_FLOAT * sg_size + int(t["reduceTempValUbSize"]) <= can_use
    return need, TILING_KEY_REGBASE, np.frombuffer(t.tobytes(), np.uint8).copy()


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
    """ops::StoreOneTensorForDtypeT<T> for float, half and bfloat16: the active float lanes to output + offset."""
    if T == "float":
        R.DataCopy(output[offset], src, preg)
    else:
        y16 = R.RegTensor(T)
        R.Cast(y16, src, preg, CAST_B32_TO_B16)
        R.DataCopy(output[offset], y16, preg, dist=R.StoreDist.DIST_PACK_B32)


def unscale_vf(inUbAddr, outUbAddr, minUbAddr, maxUbAddr, repeatTimes, sreg, invScaleVal, dataCountPerLoop, T,
               whole_vector_loads):
    """Compute's __VEC_SCOPE__ (whole_vector_loads: ORIGINAL_MIN_MAX_LOADS)."""
    vmin, vmax, x, y = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    lastMin, lastMax = R.RegTensor("float"), R.RegTensor("float")
    pregMain = R.CreateMask("float", R.MaskPattern.ALL)
    pregMerge = R.CreateMask("float", R.MaskPattern.VL1)
    R.Duplicate(vmin, np.float32(0.0), pregMain)
    R.Duplicate(vmax, np.float32(0.0), pregMain)
    for i in range(repeatTimes - 1):
        maskReg, sreg = R.UpdateMask("float", sreg)
        load_one_tensor_for_dtype_t(inUbAddr, x, maskReg, i * dataCountPerLoop, T)
        R.Max(vmax, vmax, x, maskReg)
        R.Min(vmin, vmin, x, maskReg)
        R.Muls(y, x, invScaleVal, maskReg)
        store_one_tensor_for_dtype_t(outUbAddr, y, maskReg, i * dataCountPerLoop, T)
    maskReg, sreg = R.UpdateMask("float", sreg)
    load_one_tensor_for_dtype_t(inUbAddr, x, maskReg, (repeatTimes - 1) * dataCountPerLoop, T)
    R.Adds(x, x, np.float32(0.0), maskReg)
    R.Max(vmax, vmax, x, pregMain)
    R.Min(vmin, vmin, x, pregMain)
    R.Muls(y, x, invScaleVal, maskReg)
    store_one_tensor_for_dtype_t(outUbAddr, y, maskReg, (repeatTimes - 1) * dataCountPerLoop, T)
    if whole_vector_loads:   # the original: whole vectors from the 32-byte TBufs (lanes 8..63 past them)
        R.DataCopy(lastMin, minUbAddr)
        R.DataCopy(lastMax, maxUbAddr)
    else:                    # deviation: lane 0 broadcast, the one lane the Max / Min results store
        R.DataCopy(lastMin, minUbAddr, dist=R.LoadDist.DIST_BRC_B32)
        R.DataCopy(lastMax, maxUbAddr, dist=R.LoadDist.DIST_BRC_B32)
    R.ReduceMax(vmax, vmax, pregMain)
    R.ReduceMin(vmin, vmin, pregMain)
    R.Max(lastMax, lastMax, vmax, pregMain)
    R.Min(lastMin, lastMin, vmin, pregMain)
    R.DataCopy(minUbAddr, lastMin, pregMerge, dist=R.StoreDist.DIST_FIRST_ELEMENT_B32)
    R.DataCopy(maxUbAddr, lastMax, pregMerge, dist=R.StoreDist.DIST_FIRST_ELEMENT_B32)


UNSCALE_VF = R.simd_vf(unscale_vf)


class ForeachNonFiniteCheckAndUnscaleNDRegbase:
    """ForeachNonFiniteCheckAndUnscaleNDRegbase<T>."""

    def __init__(self, T, vf=UNSCALE_VF):
        self.T, self.vf = T, vf

    def Init(self, scaled_grads, found_inf, inv_scale, workspace, tilingData):
        T = self.T
        self.tilingDataInClass_ = tilingData
        self.blockIdx_ = aj.GetBlockIdx()
        self.scaledGradsPtr_ = scaled_grads
        self.ParseTilingData()
        self.foundInfGM_, self.invScaleGM_ = aj.GlobalTensor("float"), aj.GlobalTensor("float")
        self.foundInfGM_.SetGlobalBuffer(found_inf, 1)
        self.invScaleGM_.SetGlobalBuffer(inv_scale, 1)
        self.pipe_ = aj.TPipe()
        self.copyInQueue_ = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.copyOutQueue_ = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.tempValQueue_ = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.maxBuf_, self.minBuf_ = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        # deviation: the two data queues' buffers rounded up to whole vectors (docstring)
        bufBytes = aj.AlignUp(self.scaledGradsUbSize_, VF_LANES * 4)
        self.bufElems_ = bufBytes // _SIZE[T]
        self.pipe_.InitBuffer(self.copyInQueue_, BUFFER_NUM, bufBytes)
        self.pipe_.InitBuffer(self.copyOutQueue_, BUFFER_NUM, bufBytes)
        self.pipe_.InitBuffer(self.tempValQueue_, BUFFER_NUM, self.reduceTempValUbSize_)
        self.pipe_.InitBuffer(self.maxBuf_, TEM_BUFFER_REMAIN)
        self.pipe_.InitBuffer(self.minBuf_, TEM_BUFFER_REMAIN)
        self.invScaleVal_ = self.invScaleGM_.GetValue(0)
        self.perBlockCount_ = BYTE_BLOCK // _SIZE[T]
        self.maxDataCount_ = self.scaledGradsUbSize_ // _SIZE[T]

    def ParseTilingData(self):
        t = self.tilingDataInClass_
        self.scaledGradsUbSize_ = int(t.scaledGradsUbSize)
        self.reduceTempValUbSize_ = int(t.reduceTempValUbSize)
        self.tensorDataCountList_ = t.tensorDataCountList
        self.tensorStart_ = int(t.tensorStartList[self.blockIdx_])
        self.tensorEnd_ = int(t.tensorEndList[self.blockIdx_])
        self.tensorStartOffset_ = int(t.tensorStartOffsetList[self.blockIdx_])
        self.tensorEndOffset_ = int(t.tensorEndOffsetList[self.blockIdx_])

    def Process(self):
        self.maxLocal_ = self.maxBuf_.Get("float")
        aj.Duplicate(self.maxLocal_, np.float32(0.0), TEM_BUFFER_REMAIN // 4)
        self.minLocal_ = self.minBuf_.Get("float")
        aj.Duplicate(self.minLocal_, np.float32(0.0), TEM_BUFFER_REMAIN // 4)
        for i in range(self.tensorStart_, self.tensorEnd_ + 1):
            cursorStart, cursorEnd = 0, int(self.tensorDataCountList_[i]) - 1
            if i == self.tensorStart_:
                cursorStart = self.tensorStartOffset_
            if i == self.tensorEnd_ and self.tensorEndOffset_ < cursorEnd:
                cursorEnd = self.tensorEndOffset_
            dataCount = cursorEnd - cursorStart + 1
            self.scaledGradsGM_ = aj.GlobalTensor(self.T)
            self.scaledGradsGM_.SetGlobalBuffer(self.GetTensorAddr(i)[cursorStart:])
            self.SingleTensorProcess(dataCount)
        eventIDVToS = aj.event_t(aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_S))
        aj.SetFlag(eventIDVToS, event=aj.HardEvent.V_S)
        aj.WaitFlag(eventIDVToS, event=aj.HardEvent.V_S)
        if self.IsNonFinite(self.maxLocal_.GetValue(0)) or self.IsNonFinite(self.minLocal_.GetValue(0)):
            self.foundInfGM_.SetValue(0, np.float32(1.0))
            aj.DataCacheCleanAndInvalid(self.foundInfGM_, entire_type=aj.CacheLine.SINGLE_CACHE_LINE)

    def SingleTensorProcess(self, dataCount):
        copyTimes = aj.CeilDivision(dataCount, self.maxDataCount_)
        for i in range(copyTimes):
            tempCount = self.maxDataCount_
            if i + 1 == copyTimes and dataCount % self.maxDataCount_:
                tempCount = dataCount % self.maxDataCount_
            self.CopyIn(i, tempCount)
            alignCount = aj.CeilDivision(tempCount, self.perBlockCount_) * self.perBlockCount_
            self.Compute(i, alignCount)
            self.CopyOut(i, tempCount)

    def CopyIn(self, index, dataCount):
        T = self.T
        copyInLT = self.copyInQueue_.AllocTensor(T)
        copied = aj.CeilDivision(dataCount, self.perBlockCount_) * self.perBlockCount_
        loaded = min(aj.CeilDivision(copied, VF_LANES) * VF_LANES, self.bufElems_)
        if loaded > copied:
            # not in the original (docstring): the last vector's lanes past the copy, inside the buffer
            aj.Duplicate(copyInLT[copied], _NP[T](0), loaded - copied)
        if dataCount % self.perBlockCount_:
            extParams = aj.DataCopyExtParams(1, dataCount * _SIZE[T], 0, 0, 0)
            padParams = aj.DataCopyPadExtParams(True, 0, 0, _NP[T](0.0))
            aj.DataCopyPad(copyInLT, self.scaledGradsGM_[index * self.maxDataCount_], extParams, padParams)
        else:
            aj.DataCopy(copyInLT, self.scaledGradsGM_[index * self.maxDataCount_], dataCount)
        self.copyInQueue_.EnQue(T, copyInLT)

    def Compute(self, index, dataCount):
        T = self.T
        computeInLT = self.copyInQueue_.DeQue(T)
        computeOutLT = self.copyOutQueue_.AllocTensor(T)
        dataCountPerLoop = aj.GetVecLen() // 4
        repeatTimes = aj.CeilDivision(dataCount, dataCountPerLoop)
        R.asc_vf_call(self.vf, computeInLT, computeOutLT, self.minLocal_, self.maxLocal_, repeatTimes, dataCount,
                      np.float32(self.invScaleVal_), dataCountPerLoop, T, ORIGINAL_MIN_MAX_LOADS)
        self.copyOutQueue_.EnQue(T, computeOutLT)
        self.copyInQueue_.FreeTensor(computeInLT)

    def CopyOut(self, index, dataCount):
        T = self.T
        copyOutLT = self.copyOutQueue_.DeQue(T)
        if dataCount % self.perBlockCount_:
            extParams = aj.DataCopyExtParams(1, dataCount * _SIZE[T], 0, 0, 0)
            aj.DataCopyPad(self.scaledGradsGM_[index * self.maxDataCount_], copyOutLT, extParams)
        else:
            aj.DataCopy(self.scaledGradsGM_[index * self.maxDataCount_], copyOutLT, dataCount)
        self.copyOutQueue_.FreeTensor(copyOutLT)

    @staticmethod
    def IsNonFinite(value):
        """The float's exponent all ones, from its bits."""
        return (int(np.float32(value).view(np.uint32)) & 0x7FFFFFFF) >> 23 == 0xFF

    def GetTensorAddr(self, index):
        """The list's index-th GM tensor (deviation: the original reads it from the pointer table)."""
        return self.scaledGradsPtr_[index]


aj.REGISTER_TILING_DEFAULT(ForeachNonFiniteCheckAndUnscaleRegbaseTilingData)


def foreach_non_finite_check_and_unscale(scaled_grads, found_inf, inv_scale, workspace, tiling_bytes, tiling_key, T,
                                         vf=UNSCALE_VF):
    """The kernel entry; tiling_key is the tiling's key (TILING_KEY_IS in C++), T stands for DTYPE_SCALED_GRADS."""
    if workspace is None:
        return
    userWS = aj.GetUserWorkspace(workspace)
    if userWS is None:
        return
    if tiling_key == TILING_KEY_REGBASE:
        tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ForeachNonFiniteCheckAndUnscaleRegbaseTilingData, tiling_bytes)
        op = ForeachNonFiniteCheckAndUnscaleNDRegbase(T, vf)
        op.Init(scaled_grads, found_inf, inv_scale, userWS, tilingData)
        op.Process()


# the gallery's list: five tensors of uneven shares of the size (some shorter than a DataBlock or a vector)
_SHARES = (0.41, 0.0001, 0.3, 0.2899, 0.0)
INV_SCALE = 1.0 / 1024.0


def _counts(size):
    counts = [max(1, int(size * s)) for s in _SHARES]
    counts[0] += size - sum(counts)
    return counts


def _make_inputs(dtype, non_finite=None):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        out = {}
        for k, n in enumerate(_counts(max(size, len(_SHARES)))):
            x = (rng.standard_normal(n) * 1000).astype(_NP[dtype])
            x[:min(n, 3)] = np.array([-0.0, 0.0, 65504.0 if dtype == "half" else 3e5], np.float32)[:min(n, 3)]
            out[f"g{k}"] = x
        if non_finite is not None:
            g = out["g2"]
            g[(g.size * 5) // 7] = non_finite
        out["inv_scale"] = np.array([INV_SCALE], np.float32)
        return out
    return make_inputs


def _grads(inputs):
    return [inputs[k] for k in sorted(k for k in inputs if k.startswith("g"))]


def run_unscale(device, inputs, vf=UNSCALE_VF, found_inf=0.0):
    grads = [g.copy() for g in _grads(inputs)]
    T = {np.dtype(np.float32): "float", np.dtype(np.float16): "half",
         np.dtype(ml_dtypes.bfloat16): "bfloat16"}[grads[0].dtype]
    found = np.array([found_inf], np.float32)
    block_dim, key, tiling_bytes = tiling(device, [g.size for g in grads], T)
    workspace = np.zeros(aj.GetLibApiWorkSpaceSize(device) + 32, np.uint8)
    aj.launch(foreach_non_finite_check_and_unscale, block_dim, device, grads, found, inputs["inv_scale"].copy(),
              workspace, tiling_bytes, key, T, vf, bounds="ub" if ORIGINAL_MIN_MAX_LOADS else "tensor")
    out = {f"g{k}": g for k, g in enumerate(grads)}
    out["found_inf"] = found
    return out


def expected_unscale(inputs, found_inf=0.0):
    """x * inv_scale in float32 then RNE to T; -0 in a chunk's last 64-float vector becomes +0 first (docstring)."""
    inv = np.float32(inputs["inv_scale"][0])
    grads = _grads(inputs)
    T = grads[0].dtype
    chunk = _max_data_count(T)
    out, bad = {}, False
    for k, g in enumerate(grads):
        x = g.astype(np.float32)
        bad = bad or not np.isfinite(x).all()
        x = x.copy()
        for start, count in _vf_spans(k, grads, chunk):
            last = start + (count - 1) // 64 * 64               # the chunk's last vector, in the tensor
            seg = x[last:start + count]
            seg[seg == 0] = 0.0                                # Adds(x, x, 0): -0 + 0 = +0
        with np.errstate(invalid="ignore", over="ignore"):
            y = (x * inv).astype(T)
        y[np.isnan(y.astype(np.float32))] = np.float32(np.nan)     # the canonical NaN (docs/decisions.md)
        out[f"g{k}"] = y
    out["found_inf"] = np.array([1.0 if bad else found_inf], np.float32)
    return out


def _max_data_count(np_dtype):
    T = {np.dtype(np.float32): "float", np.dtype(np.float16): "half", np.dtype(ml_dtypes.bfloat16): "bfloat16"}
    name = T[np.dtype(np_dtype)]
    t = np.frombuffer(tiling("ascend950", [1], name)[2].tobytes(), ForeachNonFiniteCheckAndUnscaleRegbaseTilingData)
    return int(t["scaledGradsUbSize"][0]) // _SIZE[name]


def _vf_spans(k, grads, chunk):
    """(start in tensor k, real count) of every VF call that covers tensor k: the cores' ranges cut into chunks."""
    name = {np.dtype(np.float32): "float", np.dtype(np.float16): "half",
            np.dtype(ml_dtypes.bfloat16): "bfloat16"}[grads[0].dtype]
    counts = [g.size for g in grads]
    need, _, raw = tiling("ascend950", counts, name)
    t = np.frombuffer(raw.tobytes(), ForeachNonFiniteCheckAndUnscaleRegbaseTilingData)[0]
    spans = []
    for core in range(need):
        s, e = int(t["tensorStartList"][core]), int(t["tensorEndList"][core])
        if not s <= k <= e:
            continue
        c0, c1 = (int(t["tensorStartOffsetList"][core]) if k == s else 0), counts[k] - 1
        if k == e and int(t["tensorEndOffsetList"][core]) < c1:
            c1 = int(t["tensorEndOffsetList"][core])
        n = c1 - c0 + 1
        for i in range(-(-n // chunk)):
            spans.append((c0 + i * chunk, min(chunk, n - i * chunk)))
    return spans


def _run(device, inputs):
    return run_unscale(device, inputs)


def _expected(device, inputs):
    return expected_unscale(inputs)


def _size_ok(n):
    return 5 <= n <= 1 << 22


_SOURCE = ("hicann/ops-nn@e5c3fa93 foreach/foreach_non_finite_check_and_unscale/op_kernel/arch35/"
           "foreach_non_finite_check_and_unscale_regbase.h")
KERNELS = [
    KernelSpec("foreach_non_finite_check_and_unscale", "ops-nn ForeachNonFiniteCheckAndUnscale over a float tensor "
               "list, 950 regbase: a VF of UpdateMask loads, Max / Min, Muls by inv_scale, the last vector's Adds 0, "
               "ReduceMax / ReduceMin into running values stored DIST_FIRST_ELEMENT_B32 under VL1; found_inf by "
               "GetValue and GM SetValue", _make_inputs("float"), _run, _expected, default_size=100000,
               devices=("ascend950",), size_rule="5 to 4Mi elements", size_ok=_size_ok, source=_SOURCE),
    KernelSpec("foreach_non_finite_check_and_unscale_half_inf", "the same over halves with an inf (DIST_UNPACK_B16 + "
               "Cast in, Cast CAST_RINT + DIST_PACK_B32 out; found_inf 1)", _make_inputs("half", np.inf), _run,
               _expected, default_size=100000, devices=("ascend950",), size_rule="5 to 4Mi elements",
               size_ok=_size_ok, source=_SOURCE),
    KernelSpec("foreach_non_finite_check_and_unscale_bf16_nan", "the same over bfloat16 with a NaN",
               _make_inputs("bfloat16", np.nan), _run, _expected, default_size=100000, devices=("ascend950",),
               size_rule="5 to 4Mi elements", size_ok=_size_ok, source=_SOURCE),
]
