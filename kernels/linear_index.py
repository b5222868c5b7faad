"""LinearIndex from the CANN NN operators: indices (int32 or int64) into one axis of var made int32 and
non-negative (a negative index plus the axis length), and, with `combine`, folded with their position into a linear
index over two axes of a 3-D var -- all in integer and float vector arithmetic.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, index/linear_index/op_kernel/linear_index.h
(`KernelLinearIndex<T, MODE>`: the indices split into eachCount a core (the last core lastCount), each core's share
in eachLoop pieces of eachNum (the last eachTail); TBufs for the int32 indices and a temporary, a depth-1 VECIN queue
for int64 indices (its tensor allocated once in Init, freed after the loop); per piece: an MTE3_MTE2 flag pair
(ids fetched from the pipe), DataCopyPad in (int64: `DataCopyPadGm2UBImpl` on uint32 views, then an MTE2_V flag
pair and Cast int64 -> int32 CAST_NONE over indicesAlign), ShiftRight by 31 (-1 for a negative index, 0 otherwise),
Muls by the axis length, Sub; MODE 1 (3-D var, dim 0): ArithProgression of the positions in float, Cast CAST_FLOOR
to int32, Muls by 1 / indicesStride, Cast CAST_FLOOR, Muls by indicesStride, Sub (the position modulo
indicesStride), Muls by selfStride, Add; MODE 2 (dim 1): ArithProgression, Muls by 1 / indicesStride, Cast
CAST_FLOOR, Muls by selfStride, Add; a V_MTE3 flag pair and DataCopyPad out) and linear_index.cpp (GET_TILING_DATA;
TILING_KEY_IS 1 / 2 / 11 / 12 / 21 / 22 pick <int, 0>, <int64_t, 0>, <int, 1>, ...; a TPipe made by the entry), with
the host tiling of index/linear_index/op_host/linear_index_tiling.cpp (`LinearIndexTiling::Init`: max_ub the UB
rounded down to 20480 bytes; bytes an index: 8, + 8 for int64, + 8 (MODE 1) or + 4 (MODE 2); cores = min(cores,
ceil(n / 32)), then ceil(n / eachCount); pieces of at most max_ub / bytes; indicesAlign = eachNum rounded up to 8;
the tiling key 10 * MODE + 1 (int32) or + 2 (int64); target = var's shape[dim], selfStride = shape[1],
indicesStride = indices' shape[1]).

Deviations: the core count is the launch's 8 (the compile info's totalCoreNum). TILING_KEY_IS is not offered: the
entry branches on the host tiling's key. `DataCopyPadGm2UBImpl` (an implementation function under the DataCopyPad
API) ports as the DataCopyPad it implements, on a uint32 GlobalTensor over the same host array (GlobalTensor
ReinterpretCast is offered on the 950 only) and `indicesLocal.ReinterpretCast<uint32_t>()`. The original's
`Get<int>()` is spelled `Get("int32")`: ascend_jit reads the dtype name "int" as numpy does (int64), not as C++'s
32-bit int.

Deviation 2 (the sanitizer's init check; DEVIATION_ZERO_TAIL): every vector instruction runs over indicesAlign
elements, the piece's count rounded up to 8 -- at the last (shorter) piece of a core, past what its DataCopyPad
wrote. Those lanes never reach GM (the copy out moves currentNum). The port Duplicates 0 over the index tile(s) once
before the loop.

Devices: the operator's README lists the A3 and A2 (and two Kirin SoCs, not emulated).

Fidelity: BIT-EXACT (ShiftRight, Muls, Sub, Add, ArithProgression, Cast and the copies are BIT-EXACT). The
expectation is numpy integer arithmetic for the sign fix and, for the combined modes, numpy's float32 replay of the
kernel's division (position * float32(1 / indicesStride), floor): checked bit for bit.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 1
INT32_OFFSET = 31
TWO_DIM, THREE_DIM = 2, 3
SIZE_OF_INT32, SIZE_OF_INT64, SIZE_OF_FLOAT = 4, 8, 4
DT_INT32_TYPE, DT_INT64_TYPE = 1, 2
COMBINE_DIM0, COMBINE_DIM1 = 10, 20
DATA_ALIGN = 32
MAX_UB_STEP = 20480
WORKSPACE_SIZE = 16 * 1024 * 1024
CORE_NUM = 8
DEVIATION_ZERO_TAIL = True
DEVICES = ("atlas-a3", "atlas-a2")
_NP = {"int32": np.int32, "int64": np.int64}
KEYS = {1: ("int32", 0), 2: ("int64", 0), 11: ("int32", 1), 12: ("int64", 1), 21: ("int32", 2), 22: ("int64", 2)}

LinearIndexTilingData = np.dtype([(name, np.uint64) for name in (
    "usedCoreNum", "eachCount", "lastCount", "indicesCount", "indicesAlign", "maxSize", "eachNum", "eachLoop",
    "eachTail", "lastNum", "lastLoop", "lastTail", "target", "selfStride", "indicesStride")])


def tiling(device, indices_shape, indices_dtype, var_shape, dim, combine):
    """LinearIndexTiling::Init and RunKernelTiling: (block dim, tiling key, the packed tiling data, workspace)."""
    core_num = CORE_NUM
    ub_size = aj.get_device(device).ub_bytes
    max_ub = ub_size // MAX_UB_STEP * MAX_UB_STEP // BUFFER_NUM
    key, indices_size, target, self_stride, indices_stride = 0, 8, 0, 0, 0
    var_size = len(var_shape)
    if dim < 0:
        dim += var_size
    if var_size > dim:
        target = var_shape[dim]
    if combine:
        if var_size >= TWO_DIM:
            self_stride = var_shape[1]
        if var_size == THREE_DIM and dim == 0:
            key += COMBINE_DIM0
            indices_stride = indices_shape[1]
            indices_size += SIZE_OF_FLOAT + SIZE_OF_INT32
        elif var_size == THREE_DIM and dim == 1:
            key += COMBINE_DIM1
            indices_stride = indices_shape[1]
            indices_size += SIZE_OF_FLOAT
    if indices_dtype == "int32":
        key += DT_INT32_TYPE
    else:
        key += DT_INT64_TYPE
        indices_size += SIZE_OF_INT64
    count = int(np.prod(indices_shape))
    times = (count + DATA_ALIGN - 1) // DATA_ALIGN
    used = min(times, core_num)
    max_ub = ub_size // max_ub * max_ub // BUFFER_NUM       # as the original: computed a second time
    max_size = max_ub // indices_size
    each_count = (count + used - 1) // used
    used = (count + each_count - 1) // each_count
    last_count = count - each_count * (used - 1)

    def pieces(n):
        if n > max_size:
            loop = (n + max_size - 1) // max_size
            return max_size, loop, n - (loop - 1) * max_size
        return n, 1, n

    each_num, each_loop, each_tail = pieces(each_count)
    last_num, last_loop, last_tail = pieces(last_count)
    align = DATA_ALIGN // SIZE_OF_INT32
    indices_align = (each_num + align - 1) // align * align
    t = np.zeros(1, LinearIndexTilingData)
    for name, value in (("usedCoreNum", used), ("eachCount", each_count), ("lastCount", last_count),
                        ("indicesCount", count), ("indicesAlign", indices_align), ("maxSize", max_size),
                        ("eachNum", each_num), ("eachLoop", each_loop), ("eachTail", each_tail),
                        ("lastNum", last_num), ("lastLoop", last_loop), ("lastTail", last_tail), ("target", target),
                        ("selfStride", self_stride), ("indicesStride", indices_stride)):
        t[name] = value
    return used, key, t.view(np.uint8).copy(), WORKSPACE_SIZE


class KernelLinearIndex:
    def __init__(self, T, MODE):
        self.T, self.MODE = T, MODE
        self.IS_CAST_INT = T == "int64"

    def Init(self, tiling_data, tmpPipe, indices, output):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        t = tiling_data
        self.pipe = tmpPipe
        self.coreId = aj.GetBlockIdx()
        self.usedCoreNum = int(t.usedCoreNum)
        self.indicesCount, self.indicesAlign = int(t.indicesCount), int(t.indicesAlign)
        self.eachCount, self.lastCount = int(t.eachCount), int(t.lastCount)
        self.target = int(t.target)
        self.selfStride, self.indicesStride = int(t.selfStride), int(t.indicesStride)
        last = self.coreId == self.usedCoreNum - 1
        self.currentEach = int(t.lastNum if last else t.eachNum)
        self.currentLoop = int(t.lastLoop if last else t.eachLoop)
        self.currentTail = int(t.lastTail if last else t.eachTail)
        self.indicesGm, self.outputGm = aj.GlobalTensor(dtype=self.T), aj.GlobalTensor(dtype="int32")
        self.indicesGm.SetGlobalBuffer(indices, self.indicesCount)
        self.outputGm.SetGlobalBuffer(output, self.indicesCount)
        if self.IS_CAST_INT:
            # the (__gm__ uint32_t*) view DataCopyPadGm2UBImpl is given (deviation: a second GlobalTensor)
            self.indicesGmU32 = aj.GlobalTensor(dtype="uint32")
            self.indicesGmU32.SetGlobalBuffer(indices.view(np.uint32), self.indicesCount * 2)
        self.calcIndices32Buf, self.calcIndicesBuf = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        self.arangeBuffer, self.arangeIntBuffer = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        self.inQueueIndics = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.pipe.InitBuffer(self.calcIndices32Buf, self.indicesAlign * 4)
        self.pipe.InitBuffer(self.calcIndicesBuf, self.indicesAlign * 4)
        if self.IS_CAST_INT:
            self.pipe.InitBuffer(self.inQueueIndics, BUFFER_NUM, self.indicesAlign * 8)
            self.indicesLocal = self.inQueueIndics.AllocTensor(self.T)
        self.indices32Local = self.calcIndices32Buf.Get("int32")
        self.indicesTemp = self.calcIndicesBuf.Get("int32")
        if self.MODE == 1:
            self.pipe.InitBuffer(self.arangeBuffer, self.indicesAlign * 4)
            self.pipe.InitBuffer(self.arangeIntBuffer, self.indicesAlign * 4)
            self.arangeLocal = self.arangeBuffer.Get("float")
            self.arangeIntLocal = self.arangeIntBuffer.Get("int32")
        if self.MODE == 2:
            self.pipe.InitBuffer(self.arangeBuffer, self.indicesAlign * 4)
            self.arangeLocal = self.arangeBuffer.Get("float")
        self.padParams = aj.DataCopyPadExtParams(False, 0, 0, 0)       # DataCopyPadExtParams<uint32_t>
        self.tPadParams = aj.DataCopyPadExtParams(False, 0, 0, _NP[self.T](0))

    def ZeroTail(self):
        """Deviation 2 (docstring): the index tiles' lanes past a short piece, zeroed once."""
        if self.IS_CAST_INT:
            aj.Duplicate(self.indicesLocal.ReinterpretCast("int32"), np.int32(0), self.indicesAlign * 2)
        else:
            aj.Duplicate(self.indices32Local, np.int32(0), self.indicesAlign)
        event = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_MTE2)
        aj.SetFlag(event, event=aj.HardEvent.V_MTE2)
        aj.WaitFlag(event, event=aj.HardEvent.V_MTE2)

    def Process(self):
        if DEVIATION_ZERO_TAIL:
            self.ZeroTail()
        sz = np.dtype(_NP[self.T]).itemsize
        for i in range(self.currentLoop):
            indicesOffset = self.eachCount * self.coreId + i * self.currentEach
            offset = int(np.int32(indicesOffset))
            currentNum = self.currentTail if i == self.currentLoop - 1 else self.currentEach
            indicesExtParams = aj.DataCopyExtParams(1, currentNum * sz, 0, 0, 0)
            outExtParams = aj.DataCopyExtParams(1, currentNum * 4, 0, 0, 0)
            eventIDMTE3ToMTE2 = aj.GetTPipePtr().FetchEventID(aj.HardEvent.MTE3_MTE2)
            aj.SetFlag(eventIDMTE3ToMTE2, event=aj.HardEvent.MTE3_MTE2)
            aj.WaitFlag(eventIDMTE3ToMTE2, event=aj.HardEvent.MTE3_MTE2)
            if self.IS_CAST_INT:
                # DataCopyPadGm2UBImpl((__ubuf__ uint32_t*)..., (__gm__ uint32_t*)..., indicesExtParams, padParams)
                aj.DataCopyPad(self.indicesLocal.ReinterpretCast("uint32"), self.indicesGmU32[indicesOffset * 2],
                               indicesExtParams, self.padParams)
            else:
                aj.DataCopyPad(self.indices32Local, self.indicesGm[indicesOffset], indicesExtParams, self.tPadParams)
            eventIDMTE2ToV = aj.GetTPipePtr().FetchEventID(aj.HardEvent.MTE2_V)
            aj.SetFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
            aj.WaitFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
            n = self.indicesAlign
            if self.IS_CAST_INT:
                aj.Cast(self.indices32Local, self.indicesLocal, aj.RoundMode.CAST_NONE, n)
                aj.PipeBarrier(aj.PIPE_V)
            # a negative index made positive: >> 31 is -1 for it, 0 otherwise; times the bound; subtracted
            aj.ShiftRight(self.indicesTemp, self.indices32Local, INT32_OFFSET, n)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Muls(self.indicesTemp, self.indicesTemp, np.int32(self.target), n)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Sub(self.indices32Local, self.indices32Local, self.indicesTemp, n)
            if self.MODE == 1:           # 3-D, dim 0: the position modulo indicesStride
                aj.ArithProgression(self.arangeLocal, np.float32(offset), np.float32(1), n)
                aj.PipeBarrier(aj.PIPE_V)
                aj.Cast(self.arangeIntLocal, self.arangeLocal, aj.RoundMode.CAST_FLOOR, n)
                aj.Muls(self.arangeLocal, self.arangeLocal, np.float32(1) / np.float32(self.indicesStride), n)
                aj.PipeBarrier(aj.PIPE_V)
                aj.Cast(self.indicesTemp, self.arangeLocal, aj.RoundMode.CAST_FLOOR, n)
                aj.PipeBarrier(aj.PIPE_V)
                aj.Muls(self.indicesTemp, self.indicesTemp, np.int32(self.indicesStride), n)
                aj.PipeBarrier(aj.PIPE_V)
                aj.Sub(self.indicesTemp, self.arangeIntLocal, self.indicesTemp, n)
                aj.Muls(self.indices32Local, self.indices32Local, np.int32(self.selfStride), n)
                aj.PipeBarrier(aj.PIPE_V)
                aj.Add(self.indices32Local, self.indices32Local, self.indicesTemp, n)
            if self.MODE == 2:           # 3-D, dim 1: selfStride times the position over indicesStride
                aj.ArithProgression(self.arangeLocal, np.float32(offset), np.float32(1), n)
                aj.PipeBarrier(aj.PIPE_V)
                aj.Muls(self.arangeLocal, self.arangeLocal, np.float32(1) / np.float32(self.indicesStride), n)
                aj.PipeBarrier(aj.PIPE_V)
                aj.Cast(self.indicesTemp, self.arangeLocal, aj.RoundMode.CAST_FLOOR, n)
                aj.PipeBarrier(aj.PIPE_V)
                aj.Muls(self.indicesTemp, self.indicesTemp, np.int32(self.selfStride), n)
                aj.PipeBarrier(aj.PIPE_V)
                aj.Add(self.indices32Local, self.indicesTemp, self.indices32Local, n)
            eventIDVToMTE3 = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_MTE3)
            aj.SetFlag(eventIDVToMTE3, event=aj.HardEvent.V_MTE3)
            aj.WaitFlag(eventIDVToMTE3, event=aj.HardEvent.V_MTE3)
            aj.DataCopyPad(self.outputGm[indicesOffset], self.indices32Local, outExtParams)
        if self.IS_CAST_INT:
            self.inQueueIndics.FreeTensor(self.indicesLocal)


aj.REGISTER_TILING_DEFAULT(LinearIndexTilingData)


def linear_index(indices, var, output, workspace, tiling, tiling_key):
    """The kernel entry; tiling_key stands for TILING_KEY_IS (not offered). var (the shape tensor) is unused."""
    tiling_data = aj.GET_TILING_DATA(tiling)
    pipe = aj.TPipe()
    if tiling_key not in KEYS:
        return
    op = KernelLinearIndex(*KEYS[tiling_key])
    op.Init(tiling_data, pipe, indices, output)
    op.Process()


VAR_SHAPE = (50, 13, 9)
INDICES_STRIDE = 7


def _case(dtype, dim, combine):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        bound = VAR_SHAPE[dim]
        idx = rng.integers(-bound, bound, size).astype(_NP[dtype])
        idx[:min(size, 4)] = np.array([-bound, bound - 1, -1, 0])[:size]
        return {"indices": idx}

    def shape(size):
        return (size // INDICES_STRIDE, INDICES_STRIDE) if combine else (size,)

    def run(device, inputs):
        idx = inputs["indices"]
        out = np.zeros(idx.size, np.int32)
        var = np.array(VAR_SHAPE, np.int32)
        block_dim, key, raw, ws = tiling(device, shape(idx.size), dtype, VAR_SHAPE, dim, combine)
        aj.launch(linear_index, block_dim, device, idx, var, out, np.zeros(ws, np.uint8), raw, key)
        return {"index": out}

    def expected(device, inputs):
        idx = inputs["indices"].astype(np.int64)
        bound = VAR_SHAPE[dim]
        fixed = np.where(idx < 0, idx + bound, idx)
        if combine:
            pos = np.arange(idx.size, dtype=np.float32)
            q = np.floor(pos * (np.float32(1) / np.float32(INDICES_STRIDE))).astype(np.int64)
            if dim == 0:
                fixed = fixed * VAR_SHAPE[1] + (np.arange(idx.size) - q * INDICES_STRIDE)
            else:
                fixed = fixed + VAR_SHAPE[1] * q
        return {"index": fixed.astype(np.int32)}

    return make_inputs, run, expected


def _spec(name, dtype, dim, combine, description, size):
    make_inputs, run, expected = _case(dtype, dim, combine)
    if combine:
        return KernelSpec(name, description, make_inputs, run, expected, default_size=size, devices=DEVICES,
                          size_rule=f"a multiple of {INDICES_STRIDE}", size_ok=lambda n: n > 0 and
                          n % INDICES_STRIDE == 0, source=_SOURCE)
    return KernelSpec(name, description, make_inputs, run, expected, default_size=size, devices=DEVICES,
                      source=_SOURCE)


_SOURCE = "hicann/ops-nn@e5c3fa93 index/linear_index/op_kernel/linear_index.h"
KERNELS = [
    _spec("linear_index", "int32", 1, False, "LinearIndex of int32 indices: ShiftRight 31, Muls by the bound, Sub "
          "(negative indices made positive); FetchEventID flag pairs, DataCopyPad", 200003),
    _spec("linear_index_int64", "int64", 0, False, "LinearIndex of int64 indices: DataCopyPad of uint32 views, Cast "
          "int64 -> int32 CAST_NONE, then the int32 chain", 100003),
    _spec("linear_index_dim0", "int32", 0, True, "LinearIndex combined, 3-D var, dim 0: ArithProgression of the "
          "positions, Muls 1/stride, Cast CAST_FLOOR, the position modulo the stride", 70007),
    _spec("linear_index_dim1_int64", "int64", 1, True, "LinearIndex combined, 3-D var, dim 1, int64 indices: "
          "selfStride times floor(position / stride) added", 70007),
]
