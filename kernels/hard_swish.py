"""HardSwish, a competition entry: y = x * min(max(x + 3, 0), 6) / 6 over float, with three schedules picked by the
element count: a double-buffered vector pipeline that copies the next tile in before computing the current one, a
scalar-unit path for one element, and, for exactly 15 elements (a benchmark case), a path without a TPipe: two
LocalTensors placed by hand at UB addresses 0 and 64, SetFlag / WaitFlag between the copies and the vector
instructions, 16 lanes computed.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/cann-ops-competitions @ db87d20128fce9522da65fedd04d32726a7d00c0,
01_official/cann-ops-ladder-2026/June/Hardwish/submissions/mtzz34/code:
- op_kernel/hard_swish.h (`HardSwish<float, false>`: cores of blockFactor elements from blockIdx * blockFactor, the
  last core the rest; depth-2 VECIN / VECOUT queues of ubFactor floats; Process copies the first tile in, then per
  tile copies the next one in before Compute and CopyOut of the current one; a count that is a multiple of 8
  floats moves by DataCopy, any other by DataCopyPad (DataCopyExtParams, no padding); Compute: Adds 3, Maxs 0,
  Mins 6, Mul by x, Muls 0.16666666666666666f);
- op_kernel/hard_swish.cpp (the entry: mode 0 a caller-made TPipe and `HardSwish<float, false>`; modes 1 and 3
  `ProcessHardSwishScalarMode0`: GetValue, for x < 3 the clamp and x * relu6 * (1 / 6) on the scalar unit, else x,
  SetValue; mode 2 `ProcessHardSwishTinyDirect`: LocalTensor(VECIN, 0, 16) and LocalTensor(VECCALC, 64, 16), a
  60-byte DataCopyPad in, SetFlag / WaitFlag MTE2_V, the five vector instructions over 16 lanes, SetFlag / WaitFlag
  V_MTE3, DataCopy of 16 floats out);
- op_host/hard_swish_tiling.cpp (`HardSwishTilingFunc`: 1 element -> mode 1, 15 -> mode 2, else mode 0; up to 1024
  elements one core, else ceil(total / a per-core target of 1024, 512, 192 or 128 elements by size) cores at most
  the AIV count; blockFactor = ceil(total / cores) rounded up to 8 floats when more than one core, cores again =
  ceil(total / blockFactor); ubFactor = (UB - 4 KiB) / (4 bytes x 4 buffers) rounded down to 8, at most blockFactor
  rounded up to 8).

Deviations: the platform's AIV count is taken as 40 (GetCoreNumAiv in the original; `tiling(..., core_num=8)` gives
the 8-core form). Mode 2 computes 16 lanes where DataCopyPad brought 15 floats (60 bytes) in (lane 15 is the copy's
dummy, its first element repeated by SPEC-2 D56: defined) and its DataCopy writes all 16 floats to the 15-float y,
one past its end: refused here as out of bounds (`tiny_original=True` runs the original's form and
tests/test_port47c_kernels.py shows the refusal). The port writes the 15 floats back by DataCopyPad (60 bytes).

Devices: the submission is built for the ascend910b: the port runs on the A3 and A2.

Fidelity: BIT-EXACT (Adds, Maxs, Mins, Mul, Muls, Duplicate, DataCopy, DataCopyPad; SPEC-2 0.3). The scalar path is
numpy float32 one operation at a time (decisions.md, the scalar float32 note), its own model. NaN: Maxs / Mins keep
a NaN (D41), so NaN -> NaN; -inf + 3 clamps to 0 and -inf * 0 is NaN; +inf gives +inf.
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 40                      # deviation: the 910B3's AIV count (GetCoreNumAiv in the original)
TYPE_SIZE = 4
BUFFER_NUM = 2
ALIGN_NUM = 8
SMALL_TENSOR_THRESHOLD, MEDIUM_TENSOR_THRESHOLD, FULL_CORE_TENSOR_THRESHOLD = 1024, 2048, 8192
MID_CORE_TARGET, MEDIUM_CORE_TARGET, LARGE_CORE_TARGET = 1024, 512, 192
HUGE_TENSOR_THRESHOLD, HUGE_CORE_TARGET = 49152, 128
UB_RESERVED_BYTES = 4096
BLOCK_BYTES = 32
SCALAR_TENSOR_NUM, TINY_QUEUE_TENSOR_NUM = 1, 15
TINY_DIRECT_NUM, TINY_DIRECT_CALC_NUM = 15, 16
SIXTH = np.float32(0.16666666666666666)
DEVICES = ("atlas-a3", "atlas-a2")


class HardSwishTilingData(ctypes.Structure):
    _fields_ = [("totalNum", ctypes.c_int64), ("blockFactor", ctypes.c_int64), ("ubFactor", ctypes.c_int64)]


def _ceil_div(a, b):
    return -(-a // b)


def _select_core_target(total):
    if total >= HUGE_TENSOR_THRESHOLD:
        return HUGE_CORE_TARGET
    if MEDIUM_TENSOR_THRESHOLD <= total < FULL_CORE_TENSOR_THRESHOLD:
        return MEDIUM_CORE_TARGET
    return LARGE_CORE_TARGET if total >= FULL_CORE_TENSOR_THRESHOLD else MID_CORE_TARGET


def tiling(device, total, core_num=CORE_NUM):
    """HardSwishTilingFunc: (block dim, schMode, the tiling bytes)."""
    assert total > 0, "totalNum must be positive"
    align = BLOCK_BYTES // TYPE_SIZE
    if total == SCALAR_TENSOR_NUM:
        return 1, 1, np.zeros(ctypes.sizeof(HardSwishTilingData), np.uint8)
    if total == TINY_QUEUE_TENSOR_NUM:
        return 1, 2, np.zeros(ctypes.sizeof(HardSwishTilingData), np.uint8)
    block_dim = 1 if total <= SMALL_TENSOR_THRESHOLD else min(core_num, _ceil_div(total, _select_core_target(total)))
    block_factor = _ceil_div(total, block_dim)
    if block_dim > 1:
        block_factor = _ceil_div(block_factor, align) * align
    block_dim = _ceil_div(total, block_factor)
    ub = aj.get_device(device).ub_bytes
    usable = ub - UB_RESERVED_BYTES if ub > UB_RESERVED_BYTES else ub
    max_ub = max(align, usable // (TYPE_SIZE * 2 * BUFFER_NUM) // align * align)
    ub_factor = min(max_ub, _ceil_div(block_factor, align) * align)
    t = HardSwishTilingData(totalNum=total, blockFactor=block_factor, ubFactor=ub_factor)
    return block_dim, 0, np.frombuffer(bytes(t), np.uint8).copy()


class HardSwish:
    """`HardSwish<float, ALIGNED_COPY = false>`."""

    def Init(self, x, y, t, pipe):
        self.pipe = pipe
        startOffset = aj.GetBlockIdx() * t.blockFactor
        self.blockLength = 0
        if startOffset < t.totalNum:
            self.blockLength = min(t.totalNum - startOffset, t.blockFactor)
        self.ubLength = t.ubFactor if t.ubFactor > 0 else 1
        self.inputGMX, self.outputGMY = aj.GlobalTensor("float"), aj.GlobalTensor("float")
        self.inputGMX.SetGlobalBuffer(x[startOffset:], self.blockLength)
        self.outputGMY.SetGlobalBuffer(y[startOffset:], self.blockLength)
        self.inputQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outputQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        pipe.InitBuffer(self.inputQueueX, BUFFER_NUM, self.ubLength * TYPE_SIZE)
        pipe.InitBuffer(self.outputQueueY, BUFFER_NUM, self.ubLength * TYPE_SIZE)

    def CopyIn(self, progress, num):
        xLocal = self.inputQueueX.AllocTensor("float")
        if num & (ALIGN_NUM - 1) == 0:
            aj.DataCopy(xLocal, self.inputGMX[progress], num)
        else:
            aj.DataCopyPad(xLocal, self.inputGMX[progress], aj.DataCopyExtParams(1, num * TYPE_SIZE, 0, 0, 0),
                           aj.DataCopyPadExtParams(False, 0, 0, np.float32(0)))
        self.inputQueueX.EnQue(xLocal)

    def Compute(self, num):
        xLocal = self.inputQueueX.DeQue("float")
        yLocal = self.outputQueueY.AllocTensor("float")
        _hard_swish_vector(yLocal, xLocal, num)
        self.outputQueueY.EnQue(yLocal)
        self.inputQueueX.FreeTensor(xLocal)

    def CopyOut(self, progress, num):
        yLocal = self.outputQueueY.DeQue("float")
        if num & (ALIGN_NUM - 1) == 0:
            aj.DataCopy(self.outputGMY[progress], yLocal, num)
        else:
            aj.DataCopyPad(self.outputGMY[progress], yLocal, aj.DataCopyExtParams(1, num * TYPE_SIZE, 0, 0, 0))
        self.outputQueueY.FreeTensor(yLocal)

    def Process(self):
        if self.blockLength <= 0:
            return
        progress, current = 0, min(self.ubLength, self.blockLength)
        self.CopyIn(progress, current)
        while progress < self.blockLength:
            nxt, nxtNum = progress + current, 0
            if nxt < self.blockLength:
                nxtNum = min(self.ubLength, self.blockLength - nxt)
                self.CopyIn(nxt, nxtNum)               # the next tile in before the current one is computed
            self.Compute(current)
            self.CopyOut(progress, current)
            progress, current = nxt, nxtNum


def _hard_swish_vector(yLocal, xLocal, num):
    aj.Adds(yLocal, xLocal, np.float32(3.0), num)
    aj.Maxs(yLocal, yLocal, np.float32(0.0), num)
    aj.Mins(yLocal, yLocal, np.float32(6.0), num)
    aj.Mul(yLocal, yLocal, xLocal, num)
    aj.Muls(yLocal, yLocal, SIXTH, num)


def hard_swish_scalar(xVal):
    """`ProcessHardSwishScalarMode0`'s arithmetic on the scalar unit, one float32 operation at a time."""
    xVal = np.float32(xVal)
    if not xVal < np.float32(3.0):
        return xVal
    relu6 = xVal + np.float32(3.0)
    if relu6 < np.float32(0.0):
        relu6 = np.float32(0.0)
    return xVal * relu6 * SIXTH


def process_scalar_mode0(x, y):
    gx, gy = aj.GlobalTensor("float"), aj.GlobalTensor("float")
    gx.SetGlobalBuffer(x, 1)
    gy.SetGlobalBuffer(y, 1)
    gy.SetValue(0, hard_swish_scalar(gx.GetValue(0)))


def process_tiny_direct(x, y, tiny_original=False):
    """`ProcessHardSwishTinyDirect`: no TPipe, two hand-placed LocalTensors, flags between the pipes."""
    gx, gy = aj.GlobalTensor("float"), aj.GlobalTensor("float")
    gx.SetGlobalBuffer(x, TINY_DIRECT_NUM)
    gy.SetGlobalBuffer(y, TINY_DIRECT_CALC_NUM if tiny_original else TINY_DIRECT_NUM)
    xLocal = aj.LocalTensor(aj.TPosition.VECIN, 0, TINY_DIRECT_CALC_NUM, dtype="float")
    yLocal = aj.LocalTensor(aj.TPosition.VECCALC, TINY_DIRECT_CALC_NUM * TYPE_SIZE, TINY_DIRECT_CALC_NUM,
                            dtype="float")
    params = aj.DataCopyExtParams(1, TINY_DIRECT_NUM * TYPE_SIZE, 0, 0, 0)
    aj.DataCopyPad(xLocal, gx[0], params, aj.DataCopyPadExtParams(False, 0, 0, np.float32(0)))
    aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
    _hard_swish_vector(yLocal, xLocal, TINY_DIRECT_CALC_NUM)
    aj.SetFlag(1, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(1, event=aj.HardEvent.V_MTE3)
    if tiny_original:
        aj.DataCopy(gy[0], yLocal, TINY_DIRECT_CALC_NUM)   # 16 floats into a 15-float y
    else:
        aj.DataCopyPad(gy[0], yLocal, params)               # deviation: the 15 floats


aj.REGISTER_TILING_DEFAULT(HardSwishTilingData)


def hard_swish(x, y, workspace, tiling_bytes, schMode, tiny_original=False):
    """The kernel entry (hard_swish.cpp): schMode is the template key."""
    if schMode == 0:
        t = aj.GET_TILING_DATA_WITH_STRUCT(HardSwishTilingData, tiling_bytes)
        pipe = aj.TPipe()
        op = HardSwish()
        op.Init(x, y, t, pipe)
        op.Process()
    elif schMode in (1, 3):
        process_scalar_mode0(x, y)
    elif schMode == 2:
        process_tiny_direct(x, y, tiny_original)


def run_hard_swish(device, x, core_num=CORE_NUM, tiny_original=False):
    block_dim, mode, tb = tiling(device, x.size, core_num)
    y = np.zeros(x.size, np.float32)
    aj.launch(hard_swish, block_dim, device, np.ascontiguousarray(x, np.float32).reshape(-1), y, None, tb, mode,
              tiny_original)
    return y.reshape(x.shape)


def hard_swish_model(x):
    """The vector chain in float32 (Adds, Maxs / Mins by D41: NaN kept, Mul, Muls by 1/6 rounded), or the scalar
    path's arithmetic for one element."""
    x = np.asarray(x, np.float32)
    if x.size == 1:
        return np.array([hard_swish_scalar(x.reshape(-1)[0])], np.float32).reshape(x.shape)
    with np.errstate(all="ignore"):
        r = x + np.float32(3.0)
        r = np.where(np.isnan(r) | (r > 0), r, np.float32(0.0)).astype(np.float32)
        r = np.where(np.isnan(r) | (r < 6), r, np.float32(6.0)).astype(np.float32)
        return ((r * x).astype(np.float32) * SIXTH).astype(np.float32)


def hard_swish_formula(x):
    x = np.asarray(x, np.float64)
    return x * np.clip(x + 3.0, 0.0, 6.0) / 6.0


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    x = (rng.uniform(-6.0, 6.0, size) * rng.choice([1.0, 100.0, 1e-3], size)).astype(np.float32)
    x[3::101] = np.nan
    x[5::211] = -3.0
    x[7::307] = 3.0
    return {"x": x}


def _run(device, inputs):
    return {"y": run_hard_swish(device, inputs["x"])}


def _expected(device, inputs):
    return {"y": hard_swish_model(inputs["x"])}


KERNELS = [
    KernelSpec("hard_swish", "HardSwish over floats (competition entry): cores of 128-element targets on up to 40 "
               "AIVs, double-buffered tiles copied in one ahead (DataCopy for multiples of 8 floats, DataCopyPad "
               "otherwise), Adds 3, Maxs 0, Mins 6, Mul, Muls 1/6; one element on the scalar unit, 15 elements "
               "in hand-placed LocalTensors", make_inputs, _run, _expected, default_size=100003, devices=DEVICES,
               source="hicann/cann-ops-competitions@db87d201 01_official/cann-ops-ladder-2026/June/Hardwish/"
               "submissions/mtzz34/code/op_kernel/hard_swish.h")
]
