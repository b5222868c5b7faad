"""NonFiniteCheck from the CANN math operators: found_flag = 1.0 when any element of a list of tensors (float, half
or bfloat16, sizes of their own) is inf or NaN, else 0.0.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c4193324, math/non_finite_check/op_kernel/non_finite_check.cpp (the entry: GET_TILING_DATA,
TILING_KEY_IS 101 / 201 / 301 for half / bfloat16 / float), op_kernel/non_finite_check_n_d.h (`NonFiniteCheckND<T>`:
each core takes the tensors tensorStartList[core]..tensorEndList[core] from tensorStartOffsetList[core] to
tensorEndOffsetList[core]; core 0 Duplicates a 0 and DataCopyPads it to the flag behind a FetchEventID'd V_MTE3 flag,
then SyncAll; per tensor chunks of maxProcCount elements through a depth-2 VECIN queue: S_MTE2 and V_MTE2 flags, a
DataCopy of whole DataBlocks or a DataCopyPad with isPad and rightPadding zeros to the next DataBlock (bfloat16:
into the buffer's second half, MTE2_V flag, Cast CAST_NONE to float over the whole buffer); then, until the core has
found one, a count-form ReduceMax into the TBuf that is also its sharedTmpBuffer, V_S flag, GetValue, the exponent
test on the bits, and on a hit `foundFlagGM.SetValue(0, 1.0)` and DataCacheCleanAndInvalid CACHELINE_OUT; else the
same with ReduceMin) and op_host/non_finite_check_tiling.cpp (`NonFiniteCheckTiling`: the tensors rounded up to
DataBlocks, one core per DataBlock up to the core count, the blocks split evenly with the first cores one more,
the cores' ranges walked over the tensors (`AssignDataToEachCore`); maxProcCount from the UB as two buffers and
the ReduceMax result, `DivideUbMemory`, `GetReduceRetValSize`).

Deviations: the core count is the launch's 8 (GetCoreNum in the original). The tensor list is a Python list of GM
arrays (docs/decisions.md "Kernel utilities": ListTensorDesc is not offered; the original reads a pointer table at
the GM address, `GetTensorAddr`).

The bfloat16 path's Cast widens the data in place, from the buffer's second half to the whole buffer: Cast between
types of different sizes allows no overlap (SPEC-2 D34, from the Cast page), so the emulator refuses it
(OverlapError) when a chunk is longer than half maxProcCount (its float destination then reaches its source); the
device's repeat order happens to read each repeat's source before any write reaches it. The gallery's bfloat16
sizes (at most 90000 elements over 8 cores) keep every chunk within half (tests/test_non_finite_check.py shows the
refusal past it); the port itself is unchanged.

Fidelity: BIT-EXACT (DataCopy, DataCopyPad, Duplicate, Cast, ReduceMax, ReduceMin: SPEC-2 0.3). The expectation is
numpy's isfinite over every tensor.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                          # deviation: the launch's cores (GetCoreNum in the original)
MAX_TENSOR_COUNT = 256
MAX_CORE_COUNT = 64
BYTE_BLOCK = 32
BYTE_REPEAT = 256
COEFFICIENT_1 = 128
BUFFER_NUM = 2
TILING_KEY = {"half": 101, "bfloat16": 201, "float": 301}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
_SIZE = {"float": 4, "half": 2, "bfloat16": 2}

NonFiniteCheckTilingData = np.dtype([
    ("maxProcCount", np.uint32), ("tempValUbSize", np.uint32),
    ("tensorDataCountList", np.int64, MAX_TENSOR_COUNT), ("tensorStartList", np.uint16, MAX_CORE_COUNT),
    ("tensorEndList", np.uint16, MAX_CORE_COUNT), ("tensorStartOffsetList", np.int64, MAX_CORE_COUNT),
    ("tensorEndOffsetList", np.int64, MAX_CORE_COUNT)], align=True)


def tiling(device, counts, dtype):
    """Tiling4NonFiniteCheck: (block dim, tiling key, the packed NonFiniteCheckTilingData)."""
    t = np.zeros(1, NonFiniteCheckTilingData)[0]
    per_block = BYTE_BLOCK // _SIZE[dtype]
    aligned = [aj.AlignUp(n, per_block) for n in counts]
    t["tensorDataCountList"][:len(counts)] = counts
    # CalcNeedCoreNum, AssignDataToEachCore
    block_count = sum(aligned) // per_block
    need = min(block_count, CORE_NUM)
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
        cursor += cmp_count - data
        t["tensorEndOffsetList"][core] = cursor - 1
        data = 0
        core += 1
        if cursor < aligned[i]:
            t["tensorStartList"][core], t["tensorStartOffsetList"][core] = i, cursor
            continue                            # the same tensor again
        if core != need:
            t["tensorStartList"][core], t["tensorStartOffsetList"][core] = i + 1, 0
            cursor = 0
        i += 1
    if data != 0:
        t["tensorEndList"][core] = len(counts) - 1
        t["tensorEndOffsetList"][core] = aligned[-1] - 1
    # DivideUbMemory, GetReduceRetValSize (float arithmetic as the C++)
    usable = aj.get_device(device).ub_bytes // BYTE_BLOCK * BYTE_BLOCK
    size = 4 if dtype == "bfloat16" else _SIZE[dtype]
    predict = int((usable - BYTE_BLOCK) * COEFFICIENT_1 * 1.0 / (BYTE_REPEAT + size))
    max_data = predict // BYTE_BLOCK * BYTE_BLOCK
    t["maxProcCount"] = max_data // size
    iter1 = int(np.ceil(2 * 1.0 * max_data / BYTE_REPEAT))
    t["tempValUbSize"] = aj.AlignUp(iter1, BYTE_BLOCK // size) * size
    return need, TILING_KEY[dtype], np.frombuffer(t.tobytes(), np.uint8).copy()


class NonFiniteCheckND:
    def __init__(self, T):
        self.T = T
        self.haveFoundInf = False

    def Init(self, tensor_list, found_flag, tilingData):
        self.blockIdx = aj.GetBlockIdx()
        self.tensorListPtr = tensor_list
        self.maxProcCount = int(tilingData.maxProcCount)
        self.tempValUbSize = int(tilingData.tempValUbSize)
        self.tensorDataCountList = tilingData.tensorDataCountList
        self.tensorStart = int(tilingData.tensorStartList[self.blockIdx])
        self.tensorEnd = int(tilingData.tensorEndList[self.blockIdx])
        self.tensorStartOffset = int(tilingData.tensorStartOffsetList[self.blockIdx])
        self.tensorEndOffset = int(tilingData.tensorEndOffsetList[self.blockIdx])
        self.foundFlagGM = aj.GlobalTensor()
        self.foundFlagGM.SetGlobalBuffer(found_flag, 1)
        self.pipe = aj.TPipe()
        self.copyInQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.tempValBuf = aj.TBuf(aj.QuePosition.VECCALC)
        # ORIG_DTYPE_TENSOR_LIST == DT_FLOAT16: half buffers; float and bfloat16 (widened in place): float ones
        self.pipe.InitBuffer(self.copyInQueue, BUFFER_NUM, self.maxProcCount * (2 if self.T == "half" else 4))
        self.pipe.InitBuffer(self.tempValBuf, self.tempValUbSize)
        self.perBlockCount = BYTE_BLOCK // _SIZE[self.T]
        self.tensorListGM = aj.GlobalTensor()

    def Process(self):
        if self.blockIdx == 0:
            dupLT = self.tempValBuf.Get("float")
            aj.Duplicate(dupLT, np.float32(0.0), BYTE_BLOCK // 4)
            eventID1 = self.pipe.FetchEventID(aj.HardEvent.V_MTE3)
            aj.SetFlag(eventID1, event=aj.HardEvent.V_MTE3)
            aj.WaitFlag(eventID1, event=aj.HardEvent.V_MTE3)
            aj.DataCopyPad(self.foundFlagGM, dupLT, aj.DataCopyExtParams(1, 4, 0, 0, 0))
        aj.SyncAll()
        for i in range(self.tensorStart, self.tensorEnd + 1):
            cursorStart, cursorEnd = 0, int(self.tensorDataCountList[i]) - 1
            if i == self.tensorStart:
                cursorStart = self.tensorStartOffset
            if i == self.tensorEnd and self.tensorEndOffset < cursorEnd:
                cursorEnd = self.tensorEndOffset
            self.tensorListGM.SetGlobalBuffer(self.GetTensorAddr(i)[cursorStart:])
            self.SingleTensorProcess(cursorEnd - cursorStart + 1)

    def SingleTensorProcess(self, dataCount):
        copyTimes = aj.CeilDivision(dataCount, self.maxProcCount)
        for i in range(copyTimes):
            tempCount = self.maxProcCount
            if i + 1 == copyTimes and dataCount % self.maxProcCount:
                tempCount = dataCount % self.maxProcCount
            self.CopyIn(i, tempCount)
            realProcCount = aj.AlignUp(tempCount, self.perBlockCount)
            self.Compute("half" if self.T == "half" else "float", realProcCount)

    def CopyIn(self, index, dataCount):
        if self.T == "bfloat16":
            copyInLTFloat = self.copyInQueue.AllocTensor("float")
            copyInLT = copyInLTFloat.ReinterpretCast(self.T)[self.maxProcCount]
        else:
            copyInLT = self.copyInQueue.AllocTensor(self.T)
        eventID1 = self.pipe.FetchEventID(aj.HardEvent.S_MTE2)
        aj.SetFlag(eventID1, event=aj.HardEvent.S_MTE2)
        aj.WaitFlag(eventID1, event=aj.HardEvent.S_MTE2)
        eventID2 = self.pipe.FetchEventID(aj.HardEvent.V_MTE2)
        aj.SetFlag(eventID2, event=aj.HardEvent.V_MTE2)
        aj.WaitFlag(eventID2, event=aj.HardEvent.V_MTE2)
        if dataCount % self.perBlockCount:
            copyParams = aj.DataCopyExtParams(1, dataCount * _SIZE[self.T], 0, 0, 0)
            padParams = aj.DataCopyPadExtParams(True, 0, aj.AlignUp(dataCount, self.perBlockCount) - dataCount,
                                                _NP[self.T](0))
            aj.DataCopyPad(copyInLT, self.tensorListGM[index * self.maxProcCount], copyParams, padParams)
        else:
            aj.DataCopy(copyInLT, self.tensorListGM[index * self.maxProcCount], dataCount)
        if self.T == "bfloat16":
            eventID3 = self.pipe.FetchEventID(aj.HardEvent.MTE2_V)
            aj.SetFlag(eventID3, event=aj.HardEvent.MTE2_V)
            aj.WaitFlag(eventID3, event=aj.HardEvent.MTE2_V)
            aj.Cast(copyInLTFloat, copyInLT, aj.RoundMode.CAST_NONE, aj.AlignUp(dataCount, self.perBlockCount))
            self.copyInQueue.EnQue(copyInLTFloat)
        else:
            self.copyInQueue.EnQue(copyInLT)

    def Compute(self, T2, dataCount):
        computeInLT = self.copyInQueue.DeQue(T2)
        if not self.haveFoundInf:           # once a core has found one, it only drains its chunks
            workLocal = self.tempValBuf.Get(T2)
            aj.ReduceMax(workLocal, computeInLT, workLocal, dataCount, False)
            eventID1 = self.pipe.FetchEventID(aj.HardEvent.V_S)
            aj.SetFlag(eventID1, event=aj.HardEvent.V_S)
            aj.WaitFlag(eventID1, event=aj.HardEvent.V_S)
            if self.IsNonFinite(workLocal.GetValue(0)):
                self.FlagFound()
            if not self.haveFoundInf:
                aj.ReduceMin(workLocal, computeInLT, workLocal, dataCount, False)
                eventID2 = self.pipe.FetchEventID(aj.HardEvent.V_S)
                aj.SetFlag(eventID2, event=aj.HardEvent.V_S)
                aj.WaitFlag(eventID2, event=aj.HardEvent.V_S)
                if self.IsNonFinite(workLocal.GetValue(0)):
                    self.FlagFound()
        self.copyInQueue.FreeTensor(computeInLT)

    def FlagFound(self):
        self.foundFlagGM.SetValue(0, np.float32(1.0))
        aj.DataCacheCleanAndInvalid(self.foundFlagGM, entire_type=aj.CacheLine.SINGLE_CACHE_LINE,
                                    dcci_dst=aj.DcciDst.CACHELINE_OUT)
        self.haveFoundInf = True

    @staticmethod
    def IsNonFinite(value):
        """The exponent all ones, read from the value's bits (float: 8 bits from bit 23; half: 5 from bit 10)."""
        if isinstance(value, np.float16):
            return (int(value.view(np.uint16)) & 0x7FFF) >> 10 == 0x1F
        return (int(np.float32(value).view(np.uint32)) & 0x7FFFFFFF) >> 23 == 0xFF

    def GetTensorAddr(self, index):
        """The list's index-th GM tensor (deviation: the original reads it from the pointer table)."""
        return self.tensorListPtr[index]


aj.REGISTER_TILING_DEFAULT(NonFiniteCheckTilingData)


def non_finite_check(tensor_list, found_flag, workspace, tiling_bytes, tiling_key):
    """The kernel entry; tiling_key is the tiling's key (TILING_KEY_IS branches in C++)."""
    tilingData = aj.GET_TILING_DATA(tiling_bytes)
    T = {101: "half", 201: "bfloat16", 301: "float"}[tiling_key]
    op = NonFiniteCheckND(T)
    op.Init(tensor_list, found_flag, tilingData)
    op.Process()


# the gallery's list: five tensors of uneven shares of the size (some shorter than a DataBlock)
_SHARES = (0.41, 0.0001, 0.3, 0.2899, 0.0)


def _counts(size):
    """The five sizes, summing to `size` (at least 5), none empty."""
    counts = [max(1, int(size * s)) for s in _SHARES[:-1]]
    while sum(counts) >= size:
        counts[counts.index(max(counts))] -= 1
    return counts + [size - sum(counts)]


def _make_inputs(dtype, special):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        inputs = {}
        for k, n in enumerate(_counts(size)):
            inputs[f"x{k}"] = (rng.standard_normal(n) * 1e3).astype(np.float32).astype(_NP[dtype])
        if special is not None:   # one non-finite value, in the last tensor's last element (the last core's)
            last = inputs[f"x{len(_SHARES) - 1}"]
            last[-1] = special
        return inputs
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        tensors = [inputs[f"x{k}"] for k in range(len(inputs))]
        found = np.full(1, 7.0, np.float32)          # core 0 clears it first
        block_dim, key, tiling_bytes = tiling(device, [t.size for t in tensors], dtype)
        workspace = np.zeros(32, np.uint8)           # the tiling asks for 1 byte
        aj.launch(non_finite_check, block_dim, device, tensors, found, workspace, tiling_bytes, key)
        return {"found_flag": found}
    return run


def expected(device, inputs):
    finite = all(np.isfinite(x.astype(np.float32)).all() for x in inputs.values())
    return {"found_flag": np.array([0.0 if finite else 1.0], np.float32)}


def _size_ok(n):
    return 5 <= n <= 1 << 24


_SOURCE = "hicann/ops-math@c4193324 math/non_finite_check/op_kernel/non_finite_check_n_d.h"
_DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
KERNELS = [
    KernelSpec("non_finite_check", "NonFiniteCheck over a list of five float tensors, one inf in the last: the "
               "tensors' DataBlocks split over 8 cores by AssignDataToEachCore, DataCopy or DataCopyPad with "
               "rightPadding zeros, count-form ReduceMax / ReduceMin into their own sharedTmpBuffer, V_S flag, "
               "GetValue and the exponent bits, GM SetValue + DataCacheCleanAndInvalid; the flag cleared by core 0 "
               "before SyncAll", _make_inputs("float", np.inf), _run("float"), expected, default_size=200000,
               devices=_DEVICES, size_rule="5 to 16Mi elements", size_ok=_size_ok, source=_SOURCE),
    KernelSpec("non_finite_check_half", "NonFiniteCheck over five half tensors, all finite (the flag stays 0)",
               _make_inputs("half", None), _run("half"), expected, default_size=200000, devices=_DEVICES,
               size_rule="5 to 16Mi elements", size_ok=_size_ok, source=_SOURCE),
    KernelSpec("non_finite_check_bf16", "NonFiniteCheck over five bfloat16 tensors, a NaN in the last: DataCopy into "
               "the float buffer's second half, Cast CAST_NONE in place to float (chunks within half the buffer: "
               "the module docstring)", _make_inputs("bfloat16", np.nan), _run("bfloat16"), expected,
               default_size=50000, devices=_DEVICES, size_rule="5 to 90000 elements (SPEC-2 D34, the docstring)",
               size_ok=lambda n: 5 <= n <= 90000, source=_SOURCE),
]
