"""Heaviside from a CANN operator collection: out = 0 where input < 0, values where input == 0, 1 where input > 0,
as a masked fill on the vector unit (CompareScalar into a bit mask, Select of a tensor and a scalar), 512-byte
blocks spread over up to 40 cores, the first `formerNum` cores one block more.

Ported (structure and instruction sequence; written in our own words) from
Hayden727/cann-ops @ fd1e257cee42a8ba666e864860cbe5f37100a2a3, src/math/heaviside/op_kernel/heaviside.cpp with the
host tiling of src/math/heaviside/op_host/heaviside.cpp (`TilingFunc`: blocks of 512 bytes, aivNum = min(40,
blocks), smallSize / incSize / formerNum; the tiling keys by per-core size and the values' count):
- `heaviside` (values of the input's shape, tiling key 1: `KernelHeaviside<true, false>`): per core one pass through
  depth-1 queues: values and input copied in (EnQue/DeQue), CompareScalar EQ 0 then Select(values, mask, values,
  1.0) (values where input == 0, else 1), CompareScalar GE 0 then Select(out, mask, values, 0.0), PipeBarrier<PIPE_V>
  between the vector steps, the result copied out through a queue.
- `heaviside_scalar` (one value, tiling key 3: `KernelHeaviside_smallData_and_scalar`, all of it in Init): TBufs of
  the core's size plus 32 bytes, the value read from GM by GetValue, Duplicate(out, 1.0), the core's data in two
  halves: the second half's copy in flies while the first half computes (CompareScalar NE 0, Select with the value,
  CompareScalar GE 0, Select with 0.0) and is copied out, each step ordered by TQueSync<PIPE_MTE2, PIPE_V> and
  TQueSync<PIPE_V, PIPE_MTE3> flags on event ids 0 and 1; the second half's masks sit `singleSize` bytes into the
  mask buffers (`selMaskLocal0[singleSize]`).
Not ported: keys 2 and 4 (the same classes with 51200-byte tiles, for more than 160000 bytes per core: over 40 x
26 Ki halves) and key 5 (broadcast shapes, a scalar GetValue/SetValue loop on GM).

Deviations: none in the kernels; the host side pads GM to the 512-byte blocks the tiling hands out (the original
relies on the device allocation's rounding; the last core reads and writes up to 511 bytes past the input).

Devices: CompareScalar is not offered on the 910 (SPEC-2 9.4): both kernels run on the 950, A3, A2, 310B and
310P.

Fidelity: BIT-EXACT (Compares, Select, Duplicate are BIT-EXACT, SPEC-2 0.3). The expectation is the Heaviside rule on
the host: 1 for input > 0, the value (its bits, -0.0 and NaN included) for input == +-0, 0 otherwise; a NaN input
gives 0 on every device (key 1: EQ and GE are false; key 3: NE is 1 on the 950 and 310B and 0 elsewhere, D43,
but GE is false, so the last Select writes 0 either way).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BLOCK_SIZE = 512         # the tiling's block, in bytes
AIV_NUM = 40
BUFFER_NUM = 1
UB_LIMIT = 160000        # (smallSize + incSize) * sizeof * 3 <= this: keys 1 and 3


def tiling(total, itemsize, values_count):
    """TilingFunc for same-shape or single values: (block_dim, tiling key, smallSize, incSize, formerNum)."""
    block_num = -(-total * itemsize // BLOCK_SIZE)
    aiv_num = max(1, min(AIV_NUM, block_num))
    small_size = block_num // aiv_num * BLOCK_SIZE // itemsize
    inc_size = BLOCK_SIZE // itemsize
    former_num = block_num % aiv_num
    if (small_size + inc_size) * itemsize * 3 > UB_LIMIT:
        raise aj.ParameterError("heaviside tiling", "size", total, legal=f"at most {UB_LIMIT // 3} bytes per core "
                                "(tiling keys 1 and 3; keys 2 and 4 are not ported)")
    return aiv_num, 3 if values_count == 1 else 1, small_size, inc_size, former_num


def _core_window(smallSize, incSize, formerNum):
    if aj.GetBlockIdx() < formerNum:
        size = smallSize + incSize
        return size, size * aj.GetBlockIdx()
    return smallSize, smallSize * aj.GetBlockIdx() + formerNum * incSize


class KernelHeaviside:
    """`KernelHeaviside<true, false>` (one pass per core through depth-1 queues; the values a tensor: the
    valuesCountIsOne branches serve tiling key 4, not ported)."""

    def __init__(self, dtype):
        self.dtype = dtype

    def Init(self, input, values, out, smallSize, incSize, formerNum, pipe):
        self.pipe = pipe
        self.size, beginIndex = _core_window(smallSize, incSize, formerNum)
        self.inputGm, self.valuesGm, self.outGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGm.SetGlobalBuffer(input[beginIndex:], self.size)
        self.outGm.SetGlobalBuffer(out[beginIndex:], self.size)
        self.valuesGm.SetGlobalBuffer(values[beginIndex:], self.size)
        itemsize = 2 if self.dtype == "half" else 4
        spaceSize = self.size * itemsize // BUFFER_NUM
        self.inQueueInput, self.inQueueValues = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM), aj.TQue(
            aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY, self.selMaskQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM), aj.TQue(
            aj.QuePosition.VECCALC, BUFFER_NUM)
        self.pipe.InitBuffer(self.inQueueInput, BUFFER_NUM, spaceSize)
        self.pipe.InitBuffer(self.inQueueValues, BUFFER_NUM, spaceSize)
        self.pipe.InitBuffer(self.selMaskQueue, BUFFER_NUM, self.size >> 3)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, spaceSize)

    def Process_iter(self, beginIndex, iterSize):
        T = self.dtype
        valuesLocal = self.inQueueValues.AllocTensor(T)
        aj.DataCopy(valuesLocal, self.valuesGm[beginIndex], iterSize)
        self.inQueueValues.EnQue(valuesLocal)
        valuesLocal = self.inQueueValues.DeQue(T)
        inputLocal = self.inQueueInput.AllocTensor(T)
        aj.DataCopy(inputLocal, self.inputGm[beginIndex], iterSize)
        self.inQueueInput.EnQue(inputLocal)
        inputLocal = self.inQueueInput.DeQue(T)
        outLocal = self.outQueueY.AllocTensor(T)
        selMaskLocal = self.selMaskQueue.AllocTensor("uint8")
        aj.PipeBarrier(aj.PIPE_V)
        # equal to 0: from valuesLocal, else 1
        aj.CompareScalar(selMaskLocal, inputLocal, 0.0, aj.CMPMODE.EQ, iterSize)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Select(valuesLocal, selMaskLocal, valuesLocal, 1.0, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, iterSize)
        aj.PipeBarrier(aj.PIPE_V)
        # at least 0: from valuesLocal, else 0
        aj.CompareScalar(selMaskLocal, inputLocal, 0.0, aj.CMPMODE.GE, iterSize)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Select(outLocal, selMaskLocal, valuesLocal, 0.0, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, iterSize)
        self.inQueueInput.FreeTensor(inputLocal)
        self.inQueueValues.FreeTensor(valuesLocal)
        self.selMaskQueue.FreeTensor(selMaskLocal)
        self.outQueueY.EnQue(outLocal)
        outLocal = self.outQueueY.DeQue(T)
        aj.DataCopy(self.outGm[beginIndex], outLocal, iterSize)
        self.outQueueY.FreeTensor(outLocal)

    def Process(self):
        self.Process_iter(0, self.size)


class KernelHeavisideSmallDataAndScalar:
    """`KernelHeaviside_smallData_and_scalar`: everything in Init, the core's data in two halves."""

    def __init__(self, dtype):
        self.dtype = dtype

    def Init(self, input, values, out, smallSize, incSize, formerNum, pipe):
        T = self.dtype
        inputGm, valuesGm, outGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        inQueueInput, outQueueY = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        selMaskQueue0, selMaskQueue1 = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        size, beginIndex = _core_window(smallSize, incSize, formerNum)
        inputGm.SetGlobalBuffer(input[beginIndex:], size)
        outGm.SetGlobalBuffer(out[beginIndex:], size)
        valuesGm.SetGlobalBuffer(values, 1)
        spaceSize = size * (2 if T == "half" else 4)
        singleSize = size >> 1
        pipe.InitBuffer(inQueueInput, spaceSize + 32)
        pipe.InitBuffer(outQueueY, spaceSize + 32)
        pipe.InitBuffer(selMaskQueue0, size + 32)
        pipe.InitBuffer(selMaskQueue1, size)
        inputLocal = inQueueInput.Get(T)
        aj.DataCopy(inputLocal, inputGm, singleSize)
        value = valuesGm.GetValue(0)
        outLocal = outQueueY.Get(T)
        aj.Duplicate(outLocal, 1.0, size)                           # copy 1
        selMaskLocal0, selMaskLocal1 = selMaskQueue0.Get("uint8"), selMaskQueue1.Get("uint8")
        sync1 = aj.TQueSync(aj.PIPE_MTE2, aj.PIPE_V)
        sync1.SetFlag(0)
        sync1.WaitFlag(0)
        aj.DataCopy(inputLocal[singleSize], inputGm[singleSize], singleSize)   # the next copy in starts at once
        # not 0: from value, else 1
        aj.CompareScalar(selMaskLocal0, inputLocal, 0.0, aj.CMPMODE.NE, singleSize)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Select(outLocal, selMaskLocal0, outLocal, value, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, singleSize)
        # at least 0: from outLocal, else 0
        aj.CompareScalar(selMaskLocal1, inputLocal, 0.0, aj.CMPMODE.GE, singleSize)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Select(outLocal, selMaskLocal1, outLocal, 0.0, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, singleSize)
        sync2 = aj.TQueSync(aj.PIPE_V, aj.PIPE_MTE3)
        sync2.SetFlag(0)
        sync2.WaitFlag(0)
        aj.DataCopy(outGm, outLocal, singleSize)                   # the first copy out
        sync1.SetFlag(1)                                            # the second copy in has landed: compute
        sync1.WaitFlag(1)
        aj.CompareScalar(selMaskLocal0[singleSize], inputLocal[singleSize], 0.0, aj.CMPMODE.NE, singleSize)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Select(outLocal[singleSize], selMaskLocal0[singleSize], outLocal[singleSize], value,
                  aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, singleSize)
        aj.CompareScalar(selMaskLocal1[singleSize], inputLocal[singleSize], 0.0, aj.CMPMODE.GE, singleSize)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Select(outLocal[singleSize], selMaskLocal1[singleSize], outLocal[singleSize], 0.0,
                  aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, singleSize)
        sync2.SetFlag(1)
        sync2.WaitFlag(1)
        aj.DataCopy(outGm[singleSize], outLocal[singleSize], singleSize)   # the second copy out


def heaviside(input, values, out, tiling_key, smallSize, incSize, formerNum, dtype):
    pipe = aj.TPipe()
    if tiling_key == 1:
        op = KernelHeaviside(dtype)
        op.Init(input, values, out, smallSize, incSize, formerNum, pipe)
        op.Process()
    else:   # tiling key 3
        KernelHeavisideSmallDataAndScalar(dtype).Init(input, values, out, smallSize, incSize, formerNum, pipe)


def _make_inputs(np_dtype, scalar):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.standard_normal(size).astype(np_dtype)
        x[rng.random(size) < 0.2] = 0                    # zeros of both signs take the values
        x[rng.random(size) < 0.05] = -0.0
        special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, np.finfo(np_dtype).smallest_subnormal], np_dtype)
        x[:min(size, special.size)] = special[:size]
        values = (rng.standard_normal(1 if scalar else size) * 4).astype(np_dtype)
        if not scalar:
            values[3:5] = np.array([-0.0, np.nan], np_dtype)[:max(0, min(2, size - 3))]
        return {"input": x, "values": values}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x, values = inputs["input"], inputs["values"]
        block_dim, key, small, inc, former = tiling(x.size, x.itemsize, values.size)
        padded = -(-x.size * x.itemsize // BLOCK_SIZE) * BLOCK_SIZE // x.itemsize   # whole 512-byte blocks
        gm_input, out = np.ones(padded, x.dtype), np.zeros(padded, x.dtype)
        gm_input[:x.size] = x
        if values.size == 1:
            gm_values = values.copy()
        else:
            gm_values = np.zeros(padded, x.dtype)
            gm_values[:x.size] = values
        aj.launch(heaviside, block_dim, device, gm_input, gm_values, out, key, small, inc, former, dtype)
        return {"out": out[:x.size]}
    return run


def expected(device, inputs):
    x, values = inputs["input"], inputs["values"]
    out = np.zeros(x.size, x.dtype)
    out[x > 0] = 1
    zero = x == 0
    out[zero] = np.broadcast_to(values, x.shape)[zero]     # bit copies: -0.0 and NaN values kept
    return {"out": out}


_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")
_SOURCE = "Hayden727/cann-ops@fd1e257c src/math/heaviside/op_kernel/heaviside.cpp"
KERNELS = [
    KernelSpec("heaviside", "Heaviside with a values tensor (tiling key 1): CompareScalar EQ/GE and Select mode 1 "
               "through depth-1 queues, 512-byte blocks over up to 40 cores", _make_inputs(np.float16, False),
               _run("half"), expected, default_size=16 * 256,
               devices=_DEVICES, source=_SOURCE, size_rule="up to 40 x 26 Ki halves", size_ok=lambda n: 0 < n <= 40 * 26000),
    KernelSpec("heaviside_scalar", "Heaviside with one value (tiling key 3): the value by GM GetValue, two halves "
               "per core with the second copy in overlapping the first half's compute (TQueSync flags)",
               _make_inputs(np.float32, True), _run("float"), expected, default_size=12 * 128,
               devices=_DEVICES, source=_SOURCE,
               size_rule="up to 40 x 13 Ki floats", size_ok=lambda n: 0 < n <= 40 * 13000),
]
