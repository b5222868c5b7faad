"""IndexCheck from the CANN NN operators: every index of a list of up to 8 index tensors (int32 or int64) must lie in
[-bound, bound) of its dimension; the kernel has no output, it stops the AI Core by `ascendc_assert` on the first
index out of range. A core's share of a tensor is checked in UB-sized batches: negative indices are shifted by the
bound without a branch (ShiftRight 31 gives 0 or -1, Muls by the bound, Sub), the shifted indices are Cast to float
and their count-form ReduceMin must be >= 0; then the bound is Duplicated, subtracted, and the ReduceMax of the
differences must be < 0. A share shorter than one 32-byte block is checked by the scalar unit (GM GetValue).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, index/index_check/op_kernel/index_check.h
(`IndexCheckKernel<T>`: InitParams, InitBounds by GM GetValue, six depth-1 VECCALC TQues of alignedBatch elements;
Process: per tensor a former/tail core split of its length, ProcessScalar under 32 bytes, else ProcessBatch over
batches of maxBatchSize: DataCopyPad GM -> UB with DataCopyExtParams and a right padding of zeros to 32 bytes,
MTE2_V flags, Cast int64 -> int32 CAST_NONE or a UB -> UB DataCopy of the int32 view, ShiftRight(31), Muls(bound),
Sub, Cast int32 -> float, ReduceMin(floatLocal, floatLocal, workLocal, count, false), V_S / S_V flags around
GetValue(0), ascendc_assert; CheckUpperBound: Duplicate(bound), Sub, Cast, ReduceMax, the same flags, assert) and
index_check.cpp (tiling key 0: int64, 1: int32), with the host tiling of index/index_check/op_host/index_check_tiling.cpp
(`IndexCheckTiling`: UB less 20480 bytes, bytes per element 4 + 4 + 4 + 4 + 4 + sizeof(T), maxBatchSize rounded down
to 8; used cores min(core count, longest tensor)) and index_check_tiling.h (IndexCheckTilingParam: usedCoreNum,
tensorId, maxBatchSize, tensorLens[8], nested in IndexCheckTilingData as `params`).

The index list is a dynamic input: the original reads the tensors' GM addresses from the list's pointer table
(`GetTensorAddr`); here the list is a Python list of the host arrays and `GetTensorAddr(indexList, i)` is its i-th
entry.

Deviations:
- ReduceMin and ReduceMax run with dst = src (`ReduceMin(floatLocal, floatLocal, workLocal, ...)`). The emulator
  refuses a ReduceMax / ReduceMin whose dst overlaps src (OverlapError, SPEC-2 D34; docs/decisions.md "Reductions in
  place"). The port writes the result into tempLocal's bytes (dead after the Sub) viewed as float, and reads it from
  there; `ORIGINAL_IN_PLACE_REDUCE = True` runs the original's call and shows the refusal
  (tests/test_port39t_kernels.py).
- On the 950 the two Casts int32 -> float run CAST_RINT: the original's CAST_NONE is refused there, the 950's
  Cast table listing no CAST_NONE for the pair (SPEC-2 7.2, D45, D72), although the operator is configured for the
  ascend950 with this one kernel source. CAST_NONE is CAST_RINT wherever a table lists it for a lossy pair (D45), so
  the values are the A2's. `ORIGINAL_950_CAST_NONE = True` runs CAST_NONE and shows the refusal.
- The core count is the launch's 8 (GetCoreNumAiv would give the device's).

Outputs: the kernel writes nothing; `run` returns `status` = [1, -1] when every block finished, or [0, dim] when an
assert stopped a block (dim: the dimension its message names). The expectation computes the same from numpy.

Devices: the operator's configs are the A2 (ascend910b), A3 (ascend910_93) and the 950; the port runs on all three.
int64 indices beyond int32 are saturated by the Cast int64 -> int32 CAST_NONE (SPEC-2 7.3) before the check, as on
the device (an index of 2**40 passes the check of a bound above 2**31 - 1 only if the saturated value does); the
gallery's inputs stay in int32.

Fidelity: BIT-EXACT (DataCopyPad, Cast, ShiftRight, Muls, Sub, Duplicate, ReduceMin/ReduceMax are BIT-EXACT).
"""
import ctypes
import re

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 1
BLOCK_BYTES = 32
SIGN_BIT_SHIFT = 31
MAX_TENSOR_NUM = 8
SCALE_SPACE = 20480
MIN_UB_SIZE = 1024
CORE_NUM = 8
ORIGINAL_IN_PLACE_REDUCE = False
ORIGINAL_950_CAST_NONE = False
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
_SIZE = {"int32": 4, "int64": 8}


class IndexCheckTilingParam(ctypes.Structure):
    _fields_ = [("usedCoreNum", ctypes.c_uint64), ("tensorId", ctypes.c_uint64), ("maxBatchSize", ctypes.c_uint64),
                ("tensorLens", ctypes.c_uint64 * MAX_TENSOR_NUM)]


class IndexCheckTilingData(ctypes.Structure):
    _fields_ = [("params", IndexCheckTilingParam)]


def tiling(device, tensor_lens, idx_dtype):
    """IndexCheckTiling: (tiling key, block dim, the packed IndexCheckTilingData)."""
    ub_size = aj.get_device(device).ub_bytes - SCALE_SPACE
    if ub_size < MIN_UB_SIZE:
        raise ValueError(f"ub size {ub_size} is less than 1024")
    if not 0 < len(tensor_lens) <= MAX_TENSOR_NUM:
        raise ValueError(f"indices tensor num {len(tensor_lens)} must be 1..{MAX_TENSOR_NUM}")
    if idx_dtype not in ("int32", "int64"):
        raise ValueError("indices only support int32 or int64")
    key = 1 if idx_dtype == "int32" else 0
    used = min(CORE_NUM, max(tensor_lens)) or 1
    per_element = 4 + 4 + 4 + 4 + 4 + (8 if key == 0 else 4)
    align_unit = BLOCK_BYTES // 4
    max_batch = ub_size // per_element // align_unit * align_unit or align_unit
    t = IndexCheckTilingData()
    t.params.usedCoreNum, t.params.tensorId, t.params.maxBatchSize = used, len(tensor_lens), max_batch
    for i, n in enumerate(tensor_lens):
        t.params.tensorLens[i] = n
    return key, used, np.frombuffer(bytes(t), np.uint8).copy()


class IndexCheckKernel:
    def __init__(self, T, bounds, indexList, workSpace, tiling, pipe):
        self.T = T
        self.InitParams(tiling, indexList)
        self.InitBounds(bounds)
        self.InitBuffers(pipe)

    def Process(self):
        for i in range(self.tensorId_):
            tensorLen = self.tensorLens_[i]
            if tensorLen == 0:
                continue
            self.indexGm_ = aj.GlobalTensor(self.T)
            self.indexGm_.SetGlobalBuffer(self.GetTensorAddr(self.indexList_, i))
            formerCoreNum = tensorLen % self.usedCoreNum_
            formerCoreDataNum = (tensorLen + self.usedCoreNum_ - 1) // self.usedCoreNum_
            tailCoreDataNum = tensorLen // self.usedCoreNum_
            if self.blockIdx_ < formerCoreNum:
                dataNum = formerCoreDataNum
                idxAddrOffset = formerCoreDataNum * self.blockIdx_
            else:
                dataNum = tailCoreDataNum
                idxAddrOffset = formerCoreDataNum * formerCoreNum + tailCoreDataNum * (self.blockIdx_ - formerCoreNum)
            if dataNum == 0:
                continue
            processed = 0
            blockElementCount = BLOCK_BYTES // _SIZE[self.T]
            if dataNum < blockElementCount:
                self.ProcessScalar(i, dataNum, idxAddrOffset)
            else:
                while processed < dataNum:
                    remaining = dataNum - processed
                    currentBatch = min(remaining, self.maxBatchSize_)
                    self.ProcessBatch(i, currentBatch, idxAddrOffset + processed)
                    processed += currentBatch

    def InitParams(self, tiling, indexList):
        self.indexList_ = indexList
        self.blockIdx_ = aj.GetBlockIdx()
        self.usedCoreNum_ = int(tiling.params.usedCoreNum)
        self.tensorId_ = int(tiling.params.tensorId)
        self.maxBatchSize_ = int(tiling.params.maxBatchSize)
        self.tensorLens_ = [int(tiling.params.tensorLens[i]) for i in range(self.tensorId_)]

    def InitBounds(self, bounds):
        self.boundsGm_ = aj.GlobalTensor("int64")
        self.boundsGm_.SetGlobalBuffer(bounds)
        self.bounds_ = [int(self.boundsGm_.GetValue(i)) for i in range(self.tensorId_)]

    def InitBuffers(self, pipe):
        idxAlignUnit = BLOCK_BYTES // 4
        self.alignedBatch_ = (self.maxBatchSize_ + idxAlignUnit - 1) // idxAlignUnit * idxAlignUnit
        self.indicesQue_, self.workingQue_, self.tempQue_, self.floatQue_, self.workQue_, self.boundsQue_ = (
            aj.TQue(aj.TPosition.VECCALC, BUFFER_NUM) for _ in range(6))
        pipe.InitBuffer(self.indicesQue_, BUFFER_NUM, self.alignedBatch_ * _SIZE[self.T])
        pipe.InitBuffer(self.workingQue_, BUFFER_NUM, self.alignedBatch_ * 4)
        pipe.InitBuffer(self.tempQue_, BUFFER_NUM, self.alignedBatch_ * 4)
        pipe.InitBuffer(self.floatQue_, BUFFER_NUM, self.alignedBatch_ * 4)
        pipe.InitBuffer(self.workQue_, BUFFER_NUM, self.alignedBatch_ * 4)
        pipe.InitBuffer(self.boundsQue_, BUFFER_NUM, self.alignedBatch_ * 4)

    def ProcessScalar(self, tensorIdx, count, offset):
        bound = self.bounds_[tensorIdx]
        for i in range(count):
            idxVal = int(self.indexGm_.GetValue(offset + i))
            idx = idxVal
            if idx < 0:
                idx += bound
            aj.ascendc_assert(idx >= 0, "Index out of range in dimension %lu: index value %ld is too negative for "
                              "bounds %ld!\n", np.uint64(tensorIdx), np.int64(idxVal), np.int64(bound))
            aj.ascendc_assert(idx < bound, "Index out of range in dimension %lu: index value %ld exceeds bounds %ld!\n",
                              np.uint64(tensorIdx), np.int64(idxVal), np.int64(bound))

    def ProcessBatch(self, tensorIdx, count, offset):
        T = self.T
        indexLocal = self.indicesQue_.AllocTensor(T)
        workingLocal = self.workingQue_.AllocTensor("int32")
        tempLocal = self.tempQue_.AllocTensor("int32")
        floatLocal = self.floatQue_.AllocTensor("float")
        workLocal = self.workQue_.AllocTensor("float")
        boundsLocal = self.boundsQue_.AllocTensor("int32")

        copyAlignUnit = BLOCK_BYTES // _SIZE[T]
        countCopyAligned = (count + copyAlignUnit - 1) // copyAlignUnit * copyAlignUnit
        copyParams = aj.DataCopyExtParams(1, count * _SIZE[T], 0, 0, 0)
        rightPadCount = countCopyAligned - count
        padParams = aj.DataCopyPadExtParams(True, 0, rightPadCount, np.dtype(T).type(0))
        aj.DataCopyPad(indexLocal, self.indexGm_[offset], copyParams, padParams)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)

        if T == "int64":
            aj.Cast(workingLocal, indexLocal, aj.RoundMode.CAST_NONE, count)
            aj.PipeBarrier(aj.PIPE_V)
        else:
            indexInt32Local = indexLocal.ReinterpretCast("int32")
            aj.DataCopy(workingLocal, indexInt32Local, countCopyAligned)
            aj.PipeBarrier(aj.PIPE_V)

        aj.ShiftRight(tempLocal, workingLocal, np.int32(SIGN_BIT_SHIFT), count)     # 0, or -1 for a negative index
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(tempLocal, tempLocal, np.int32(self.bounds_[tensorIdx]), count)      # 0 or -bound
        aj.PipeBarrier(aj.PIPE_V)
        aj.Sub(workingLocal, workingLocal, tempLocal, count)                         # negative indices + bound
        aj.PipeBarrier(aj.PIPE_V)

        aj.Cast(floatLocal, workingLocal, self._i2f_mode(), count)
        aj.PipeBarrier(aj.PIPE_V)

        minLocal = self._reduce_dst(floatLocal, tempLocal)
        aj.ReduceMin(minLocal, floatLocal, workLocal, count, False)
        aj.PipeBarrier(aj.PIPE_V)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        minValue = minLocal.GetValue(0)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)

        aj.ascendc_assert(minValue >= 0.0, "Index out of range in dimension %lu: index value %f is too negative for "
                          "bounds %ld!\n", np.uint64(tensorIdx), np.float32(minValue),
                          np.int64(self.bounds_[tensorIdx]))

        self.CheckUpperBound(floatLocal, workLocal, workingLocal, boundsLocal, tempLocal, tensorIdx, count)

        self.indicesQue_.FreeTensor(indexLocal)
        self.workingQue_.FreeTensor(workingLocal)
        self.tempQue_.FreeTensor(tempLocal)
        self.floatQue_.FreeTensor(floatLocal)
        self.workQue_.FreeTensor(workLocal)
        self.boundsQue_.FreeTensor(boundsLocal)

    def CheckUpperBound(self, floatLocal, workLocal, workingLocal, boundsLocal, tempLocal, tensorIdx, count):
        aj.Duplicate(boundsLocal, np.int32(self.bounds_[tensorIdx]), count)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Sub(workingLocal, workingLocal, boundsLocal, count)                       # < 0 for every index in range
        aj.PipeBarrier(aj.PIPE_V)
        aj.Cast(floatLocal, workingLocal, self._i2f_mode(), count)
        aj.PipeBarrier(aj.PIPE_V)

        maxLocal = self._reduce_dst(floatLocal, tempLocal)
        aj.ReduceMax(maxLocal, floatLocal, workLocal, count, False)
        aj.PipeBarrier(aj.PIPE_V)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        maxValue = maxLocal.GetValue(0)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)

        aj.ascendc_assert(maxValue < 0.0, "Index out of range in dimension %lu: index value %f exceeds bounds %ld!\n",
                          np.uint64(tensorIdx), np.float32(maxValue), np.int64(self.bounds_[tensorIdx]))

    @staticmethod
    def _i2f_mode():
        """Deviation (module docstring): CAST_RINT for the 950's int32 -> float, whose table omits CAST_NONE."""
        if aj.get_device(aj.current_core().device).arch == 3510 and not ORIGINAL_950_CAST_NONE:
            return aj.RoundMode.CAST_RINT
        return aj.RoundMode.CAST_NONE

    @staticmethod
    def _reduce_dst(floatLocal, tempLocal):
        """Deviation (module docstring): the reduction's result goes to tempLocal's dead bytes, not over its src."""
        return floatLocal if ORIGINAL_IN_PLACE_REDUCE else tempLocal.ReinterpretCast("float")

    def GetTensorAddr(self, indexListPtr, offset):
        return indexListPtr[offset]


aj.REGISTER_TILING_DEFAULT(IndexCheckTilingData)


def index_check(bounds, indexList, workSpace, tiling, TILING_KEY):
    """The kernel entry; TILING_KEY is the launch's tiling key (TILING_KEY_IS in C++)."""
    if workSpace is None:
        return
    user = aj.GetUserWorkspace(workSpace)
    if user is None:
        return
    tilingData = aj.GET_TILING_DATA(tiling)
    pipe = aj.TPipe()
    if TILING_KEY == 0:
        op = IndexCheckKernel("int64", bounds, indexList, workSpace, tilingData, pipe)
        op.Process()
    elif TILING_KEY == 1:
        op = IndexCheckKernel("int32", bounds, indexList, workSpace, tilingData, pipe)
        op.Process()


_DIM = re.compile(r"Index out of range in dimension (\d+)")


def run_index_check(device, bounds, tensors, parallel=True):
    """Launch the kernel; (status, the StateError or None). status: [1, -1], or [0, dim] after an assert."""
    tensors = [np.ascontiguousarray(t).reshape(-1) for t in tensors]
    key, block_dim, tiling_bytes = tiling(device, [t.size for t in tensors], str(tensors[0].dtype))
    workspace = np.zeros(aj.GetLibApiWorkSpaceSize(device) + BLOCK_BYTES, np.uint8)
    try:
        aj.launch(index_check, block_dim, device, np.asarray(bounds, np.int64), tensors, workspace, tiling_bytes,
                  key, parallel=parallel)
    except aj.StateError as exc:
        m = _DIM.search(str(exc))
        if m is None:
            raise
        return np.array([0, int(m.group(1))], np.int64), exc
    return np.array([1, -1], np.int64), None


def expected_status(bounds, tensors):
    """[1, -1] when every index lies in [-bound, bound) (after the int64 -> int32 saturation), else [0, the first
    dimension with one out of range] (the gallery's inputs have at most one such dimension)."""
    for i, t in enumerate(tensors):
        v = np.clip(np.asarray(t, np.int64), -2**31, 2**31 - 1)
        if v.size and (v.min() < -bounds[i] or v.max() >= bounds[i]):
            return np.array([0, i], np.int64)
    return np.array([1, -1], np.int64)


def _make_inputs(dtype, bad_dim=None):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        lens = [size, size // 3 + 5, 7 if dtype == "int32" else 3, 1000]
        bounds = np.array([int(rng.integers(1, 2**31 - 1)), 1000, 5, 3], np.int64)
        out = {"bounds": bounds}
        for i, n in enumerate(lens):
            t = rng.integers(-bounds[i], bounds[i], n).astype(dtype)
            t[:: max(1, n // 5)] = -bounds[i]             # the extremes among them
            t[1:: max(1, n // 5)] = bounds[i] - 1
            if i == bad_dim:
                t[n // 2 + 1] = bounds[i] + (i % 2) * -(2 * bounds[i] + 1)   # bound, or -bound - 1
            out[f"indices{i}"] = t
        return out
    return make_inputs


def _tensors(inputs):
    return [inputs[k] for k in sorted(k for k in inputs if k.startswith("indices"))]


def run(device, inputs):
    status, _ = run_index_check(device, inputs["bounds"], _tensors(inputs))
    return {"status": status}


def expected(device, inputs):
    return {"status": expected_status(inputs["bounds"], _tensors(inputs))}


_SOURCE = "hicann/ops-nn@e5c3fa93 index/index_check/op_kernel/index_check.h"
KERNELS = [
    KernelSpec("index_check", "IndexCheck over four int32 index tensors (negative indices shifted by ShiftRight 31 / "
               "Muls / Sub, Cast to float, count-form ReduceMin >= 0 and ReduceMax(x - bound) < 0 per UB batch; a "
               "share under 32 bytes by GM GetValue; 8 cores)", _make_inputs("int32"), run, expected,
               default_size=100003, devices=DEVICES, source=_SOURCE),
    KernelSpec("index_check_int64", "IndexCheck over int64 indices (Cast int64 -> int32 CAST_NONE first)",
               _make_inputs("int64"), run, expected, default_size=50003, devices=DEVICES, source=_SOURCE),
    KernelSpec("index_check_out_of_range", "IndexCheck with one index of dimension 1 at its bound: the ReduceMax "
               "check's ascendc_assert stops the core", _make_inputs("int32", bad_dim=1), run, expected,
               default_size=20011, devices=DEVICES, source=_SOURCE),
]
