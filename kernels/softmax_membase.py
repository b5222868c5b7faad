"""Row softmax, the cann-samples softmax story's Memory-API baseline: y = exp(x - max(x)) / sum(exp(x - max(x))) along
the last axis of a [M, N] float matrix, a row at a time: count-form ReduceMax, the maximum read on the scalar unit,
Adds of its negation, Exp, count-form ReduceSum, the sum read on the scalar unit, Muls by its reciprocal.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/cann-samples @ a934ed961db39999427f80612f6dd4c821822811, Samples/2_Performance/softmax_regbase_story:
- src/0_membase.asc (`KernelSoftmaxMemBase<totalM, totalN, singleCoreM, singleCoreN, tileLen>`: InitSocState; a
  TPipe with x / y ping and pong TBufs of tileLen floats, a work TBuf of singleCoreN floats and a 32-byte reduce TBuf;
  the blocks split M into singleCoreM-row blocks (blockIdx % mIndex) and N into singleCoreN-column blocks (blockIdx /
  mIndex); tiles of tileLen / singleCoreN rows, ping-pong by tile parity on pre-armed V_MTE2 and MTE3_V flags (set
  twice before the loop, awaited twice after it); per tile WaitFlag V_MTE2, DataCopyPad of the tile's rows
  (DataCopyExtParams {rows, N * 4, (totalN - N) * 4, 0, 0}), MTE2_V flag, WaitFlag MTE3_V, per row ComputeMemBase
  (ReduceMax into the reduce buffer with the work buffer, PipeBarrier<PIPE_V>, the maximum read through GetPhyAddr,
  Adds -max in place, PipeBarrier, Exp into the y row, PipeBarrier, ReduceSum, PipeBarrier, the sum read, Muls by
  1.0f / sum), SetFlag V_MTE2, V_MTE3 flag, DataCopyPad out, SetFlag MTE3_V; PipeBarrier<PIPE_ALL> at the end);
- include/sample_common.h (TOTAL_M = 256, TOTAL_N = 2048, SINGLE_CORE_M = 8, SINGLE_CORE_N = 2048, TILE_LEN = 2 *
  SINGLE_CORE_N: 32 blocks of 8 rows, tiles of 2 rows).

Sizes: M rows of the sample's 2048 floats (size = M, any positive; ceil(M / 8) blocks). The kernel takes the
template parameters; a row length must be a multiple of 8 floats (the rows are copied to consecutive 32-byte blocks
but computed at a pitch of N floats) and singleCoreN = totalN (a softmax of part of a row is not a softmax), as in the
sample.

Deviation: the original reads the maximum and the sum on the scalar unit (`*(__ubuf__ float*)reduce.GetPhyAddr()`)
after a PipeBarrier<PIPE_V> only, which does not order the scalar unit after the vector pipe: the read races the
ReduceMax / ReduceSum that writes the value (the sanitizer's device-sync report; `original_sync=True` runs the
original's form, tests/test_port47l_kernels.py shows it). The port adds a V_S SetFlag / WaitFlag pair before each
read; the value is read with GetValue(0).

Devices: the sample is built for the 950; the Memory API it uses is on the A2 / A3 too: the port runs on the 950,
A3 and A2 (the count-form ReduceSum sums in each device's order, SPEC 4.2 and 4.4).

Fidelity: MODELLED (Exp, SPEC-2 D37: the exact value rounded once to float); ReduceMax, ReduceSum, Adds, Muls and
DataCopyPad are BIT-EXACT, so the model (the row maximum, x + (-max) in float32, exp in float64 rounded to float32,
the device's count-form ReduceSum tree from aj.explain_reduce_order, 1 / sum in float32 and the product) is checked
bit for bit; against a float64 softmax within 2e-6 relative (one rounding each for the difference, Exp, the
reciprocal and the product, and the sum's 2048 terms in a tree of 11 levels).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

TOTAL_N = 2048                     # the sample's row length
SINGLE_CORE_M = 8
SINGLE_CORE_N = 2048
TILE_LEN = 2 * SINGLE_CORE_N
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")


class KernelSoftmaxMemBase:
    """`KernelSoftmaxMemBase<totalM, totalN, singleCoreM, singleCoreN, tileLen>`."""

    def __init__(self, totalM, totalN, singleCoreM, singleCoreN, tileLen, original_sync=False):
        self.totalM, self.totalN = totalM, totalN
        self.singleCoreM, self.singleCoreN, self.tileLen = singleCoreM, singleCoreN, tileLen
        self.original_sync = original_sync

    def Init(self, x, y):
        aj.InitSocState()
        self.xGm, self.yGm = aj.GlobalTensor("float"), aj.GlobalTensor("float")
        self.xGm.SetGlobalBuffer(x)
        self.yGm.SetGlobalBuffer(y)
        self.InitGMOffsets()
        self.pipe = aj.TPipe()
        self.xPingBuf, self.xPongBuf, self.yPingBuf, self.yPongBuf, self.workBuf, self.reduceBuf = (
            aj.TBuf(aj.TPosition.VECCALC) for _ in range(6))
        for buf in (self.xPingBuf, self.xPongBuf, self.yPingBuf, self.yPongBuf):
            self.pipe.InitBuffer(buf, self.tileLen * 4)
        self.pipe.InitBuffer(self.workBuf, self.singleCoreN * 4)
        self.pipe.InitBuffer(self.reduceBuf, 32)

    def InitGMOffsets(self):
        blockIdx = aj.GetBlockIdx()
        mIndex = (self.totalM + self.singleCoreM - 1) // self.singleCoreM
        nIndex = (self.totalN + self.singleCoreN - 1) // self.singleCoreN
        tailM = self.totalM - (mIndex - 1) * self.singleCoreM
        tailN = self.totalN - (nIndex - 1) * self.singleCoreN
        mIdx, nIdx = blockIdx % mIndex, blockIdx // mIndex
        self.actualSingleCoreM = tailM if mIdx == mIndex - 1 else self.singleCoreM
        self.actualSingleCoreN = tailN if nIdx == nIndex - 1 else self.singleCoreN
        off = mIdx * self.singleCoreM * self.totalN + nIdx * self.singleCoreN
        self.xGm = self.xGm[off]
        self.yGm = self.yGm[off]

    def _read_scalar(self, reduce):
        """The original's `*(__ubuf__ float*)reduce.GetPhyAddr()`; the port orders it after the vector pipe."""
        if not self.original_sync:
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        return np.float32(reduce.GetValue(0))

    def ComputeMemBase(self, xRow, yRow, n):
        work = self.workBuf.Get("float")
        reduce = self.reduceBuf.Get("float")
        aj.ReduceMax(reduce, xRow, work, n)
        aj.PipeBarrier(aj.PIPE_V)
        maxScalar = self._read_scalar(reduce)
        aj.Adds(xRow, xRow, -maxScalar, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Exp(yRow, xRow, n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.ReduceSum(reduce, yRow, work, n)
        aj.PipeBarrier(aj.PIPE_V)
        sumScalar = self._read_scalar(reduce)
        aj.Muls(yRow, yRow, np.float32(1.0) / sumScalar, n)

    def Process(self):
        tileRow = self.tileLen // self.singleCoreN
        tiles = (self.actualSingleCoreM + tileRow - 1) // tileRow
        tailRow = self.actualSingleCoreM - (tiles - 1) * tileRow
        E = aj.HardEvent
        aj.SetFlag(aj.EVENT_ID0, event=E.V_MTE2)
        aj.SetFlag(aj.EVENT_ID1, event=E.V_MTE2)
        aj.SetFlag(aj.EVENT_ID0, event=E.MTE3_V)
        aj.SetFlag(aj.EVENT_ID1, event=E.MTE3_V)
        N = self.actualSingleCoreN
        for t in range(tiles):
            rows = tailRow if t == tiles - 1 else tileRow
            ev = aj.EVENT_ID1 if t & 1 else aj.EVENT_ID0
            xLocal = (self.xPongBuf if t & 1 else self.xPingBuf).Get("float")
            yLocal = (self.yPongBuf if t & 1 else self.yPingBuf).Get("float")
            aj.WaitFlag(ev, event=E.V_MTE2)
            blockLen = N * 4
            srcStride = (self.totalN - N) * 4
            cpIn = aj.DataCopyExtParams(rows, blockLen, srcStride, 0, 0)
            aj.DataCopyPad(xLocal, self.xGm[t * tileRow * self.totalN], cpIn,
                           aj.DataCopyPadExtParams(False, 0, 0, np.float32(0.0)))
            aj.SetFlag(ev, event=E.MTE2_V)
            aj.WaitFlag(ev, event=E.MTE2_V)
            aj.WaitFlag(ev, event=E.MTE3_V)
            for row in range(rows):
                self.ComputeMemBase(xLocal[row * N], yLocal[row * N], N)
            aj.SetFlag(ev, event=E.V_MTE2)
            aj.SetFlag(ev, event=E.V_MTE3)
            aj.WaitFlag(ev, event=E.V_MTE3)
            cpOut = aj.DataCopyExtParams(rows, blockLen, 0, srcStride, 0)
            aj.DataCopyPad(self.yGm[t * tileRow * self.totalN], yLocal, cpOut)
            aj.SetFlag(ev, event=E.MTE3_V)
        aj.WaitFlag(aj.EVENT_ID0, event=E.V_MTE2)
        aj.WaitFlag(aj.EVENT_ID1, event=E.V_MTE2)
        aj.WaitFlag(aj.EVENT_ID0, event=E.MTE3_V)
        aj.WaitFlag(aj.EVENT_ID1, event=E.MTE3_V)


def softmax_regbase_kernel(x, y, params, original_sync=False):
    """The kernel entry (softmax_regbase_kernel)."""
    op = KernelSoftmaxMemBase(*params, original_sync=original_sync)
    op.Init(x, y)
    op.Process()
    aj.PipeBarrier(aj.PIPE_ALL)


def block_count(totalM, totalN, singleCoreM, singleCoreN):
    return -(-totalM // singleCoreM) * -(-totalN // singleCoreN)


def run_softmax_membase(device, x, singleCoreM=SINGLE_CORE_M, tileRows=2, original_sync=False):
    """x: a (M, N) float matrix, N a multiple of 8; singleCoreN = N, tileLen = tileRows * N."""
    m, n = x.shape
    assert n % 8 == 0, "rows of whole 32-byte blocks (the kernel's row pitch is N)"
    params = (m, n, singleCoreM, n, tileRows * n)
    y = np.zeros(m * n, np.float32)
    aj.launch(softmax_regbase_kernel, block_count(m, n, singleCoreM, n), device,
              np.ascontiguousarray(x, np.float32).reshape(-1), y, params, original_sync)
    return y.reshape(m, n)


def softmax_membase_model(device, x):
    """The kernel's float32 chain (see the docstring)."""
    x = x.astype(np.float32)
    mx = x.max(axis=1, keepdims=True)
    d = (x + (-mx)).astype(np.float32)
    e = np.exp(d.astype(np.float64)).astype(np.float32)
    tree = aj.explain_reduce_order(device, "count", "float", count=x.shape[1])
    s = np.asarray(tree.evaluate_batch(e), np.float32).reshape(-1, 1)
    return (e * (np.float32(1.0) / s)).astype(np.float32)


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    return {"x": rng.uniform(-3.0, 3.0, size * TOTAL_N).astype(np.float32)}


def _run(device, inputs):
    return {"y": run_softmax_membase(device, inputs["x"].reshape(-1, TOTAL_N)).reshape(-1)}


def _expected(device, inputs):
    return {"y": softmax_membase_model(device, inputs["x"].reshape(-1, TOTAL_N)).reshape(-1)}


KERNEL = KernelSpec("softmax_membase", "cann-samples softmax story, Memory-API baseline (per row count-form "
                    "ReduceMax, a scalar read, Adds -max, Exp, ReduceSum, a scalar read, Muls 1 / sum; blocks of 8 "
                    "rows of 2048 floats, ping-pong tiles of 2 rows on pre-armed flags; V_S flags the original lacks)",
                    make_inputs, _run, _expected, default_size=256, devices=DEVICES,
                    size_rule="the number of rows of 2048 floats (1 to 1024)", size_ok=lambda n: 0 < n <= 1024,
                    source="hicann/cann-samples@a934ed96 Samples/2_Performance/softmax_regbase_story/src/0_membase.asc")
