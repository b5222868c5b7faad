"""TraceV2 from the CANN math operators: y = sum_i x[i, i], the trace of a row-major matrix (float and half), its
diagonal split over the cores, each core gathering its diagonal elements by one strided DataCopyPad, reducing them
with ReduceSum and adding the partial sum into the one GM result with an atomic add.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/trace_v2/op_kernel/trace_v2.h
(`NsTraceV2::TraceV2<T>`: depth-2 VECIN queue for the gathered diagonal, a depth-2 VECIN queue used as ReduceSum's
work tensor (AllocTensor / FreeTensor, never queued), a depth-2 VECOUT queue; a core whose share of the diagonal is
empty returns at once; CopyIn: the core's first diagonal element at diagStart * (columnLength + 1), one
`DataCopyPad(xLocal, xGm[offset], DataCopyExtParams{matrixOrder, sizeof(T), columnLength * sizeof(T), 0, 0},
DataCopyPadExtParams<T>{true, 0, 0, 0})` whose blocks are single elements a row plus one apart; Compute:
`ReduceSum<T>(yLocal, xLocal, workLocal, matrixOrder)`; CopyOut: `SetFlag/WaitFlag<HardEvent::MTE2_MTE3>(0)`,
`SetAtomicAdd<T>()`, DataCopy of yLocal to y, `SetAtomicNone()`) and trace_v2.cpp (REGISTER_TILING_DEFAULT,
GET_TILING_DATA_WITH_STRUCT), with the host tiling of experimental/math/trace_v2/op_host/trace_v2_tiling.cpp
(`TraceV2TilingFunc`: diagLen = min(rows, columns); min(coreNum, diagLen) cores (1 for an empty diagonal); the first
diagLen % cores of them one element more; the workspace WS_SYS_SIZE + the library's).

Deviations (each a defect of the original that the emulator refuses or reports; tests/test_port38_kernels.py runs
the original's sequences and shows them):
- The UB layout of a DataCopyPad GM -> UB whose blockLen (sizeof(T)) is not a multiple of 32 bytes: every block
  lands at the start of its own 32-byte block (the rest are dummy bytes), so matrixOrder elements take matrixOrder
  x 32 bytes. The original sizes its queues to matrixOrder * sizeof(T) rounded up to 32 bytes (an overrun into the
  next buffers whenever a core gets two or more elements: OutOfBoundsError here), and ReduceSum then adds
  matrixOrder contiguous elements: the first diagonal element and its dummy copies (docs/decisions.md "DataCopyPad
  fill order": they repeat the block's first element), not the diagonal. The original is right only when every core
  gets one element (its example: a 40 x 40 matrix on 40 or more cores). The port sizes the input queue to
  matrixOrder blocks and compacts the blocks' first elements in place before the ReduceSum, with
  `WholeReduceSum(xLocal, xLocal, 1, repeat, 1, 1, 1)` (mask 1: the sum of one element is the element, but for a
  -0, which the masked lanes' +0 (SPEC D2) turns into +0; repeat i writes element i after reading block i; at most
  255 repeats a call), so the original's ReduceSum runs unchanged.
  `ORIGINAL_LAYOUT = True` runs the original's queue size and contiguous ReduceSum.
- The original's atomic `DataCopy(yGm, yLocal, 32)` adds 32 elements of a buffer whose ReduceSum wrote one into a
  one-element GM tensor: 31 unwritten lanes (and, for a short queue buffer, bytes past it) added past y. The port adds
  the one element with `DataCopyPad(yGm, yLocal, DataCopyExtParams{1, sizeof(T), 0, 0, 0})` under the same atomic
  add (OutOfBoundsError on the one-element window otherwise).
- The core count is the launch's 8 (GetCoreNumAiv would give the device's). y is accumulated into, never cleared:
  the caller zeroes it, as the original's example does.

Devices: the original is built for the A2 (ascend910b); the port runs on the 950, A3 and A2. DataCopyPad is not
offered on the 310P and 910 (SPEC-2 1.9), and the host tiling's GetLibApiWorkSpaceSize not on the 310B (DK
GetUserWorkspace.md).

Fidelity: BIT-EXACT (DataCopyPad, WholeReduceSum of one element, ReduceSum and the atomic add are BIT-EXACT,
SPEC-2 0.3): checked bit for bit against numpy: each core's diagonal slice summed by the device's ReduceSum tree
(aj.explain_reduce_order, "count"), then added into a zero of type T core by core (the launch's atomic order,
docs/decisions.md "Atomics across blocks"), each addition rounded once to T.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8
WS_SYS_SIZE = 512
MAX_REPEAT = 255
ORIGINAL_LAYOUT = False
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
TYPE_SIZE = {"float": 4, "half": 2}
_NP = {"float": np.float32, "half": np.float16}

TraceV2TilingData = np.dtype([(name, np.uint64) for name in (
    "alignNum", "typeSize", "matrixOrder", "rowLength", "columnLength", "diagLen", "fullBlockLength",
    "tailBlockLength", "fullBlockNum", "tailBlockNum")], align=True)


def tiling(device, shape, dtype):
    """TraceV2TilingFunc: (block dim, the packed TraceV2TilingData, workspace bytes)."""
    core_num = CORE_NUM
    type_size = TYPE_SIZE[dtype]
    row_length, column_length = shape
    diag_len = min(row_length, column_length)
    usable = 1 if diag_len == 0 else min(core_num, diag_len)
    tail_block_length = diag_len // usable
    full_block_num = diag_len % usable
    t = np.zeros(1, TraceV2TilingData)
    for name, value in (("alignNum", BLOCK_SIZE // type_size), ("typeSize", type_size), ("matrixOrder", 0),
                        ("rowLength", row_length), ("columnLength", column_length), ("diagLen", diag_len),
                        ("fullBlockLength", tail_block_length + 1), ("tailBlockLength", tail_block_length),
                        ("fullBlockNum", full_block_num), ("tailBlockNum", usable - full_block_num)):
        t[name] = value
    return usable, t.view(np.uint8).copy(), WS_SYS_SIZE + aj.GetLibApiWorkSpaceSize(device)


class TraceV2:
    def __init__(self, T):
        self.T = T

    def Init(self, x, y, tilingData):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        self.tiling = tilingData
        self.blockIdx = aj.GetBlockIdx()
        self.matrixOrder = int(tilingData.tailBlockLength if self.blockIdx >= tilingData.fullBlockNum
                               else tilingData.fullBlockLength)
        if self.matrixOrder == 0:
            return
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x, int(tilingData.rowLength * tilingData.columnLength))
        self.yGm.SetGlobalBuffer(y, 1)
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.tmpQueue = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        bufSize = self.matrixOrder * TYPE_SIZE[self.T]
        alignSize = 32
        allocSize = (bufSize + alignSize - 1) // alignSize * alignSize
        # deviation: one 32-byte block per gathered element (the original: allocSize)
        inSize = allocSize if ORIGINAL_LAYOUT else self.matrixOrder * BLOCK_SIZE
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, inSize)
        self.pipe.InitBuffer(self.tmpQueue, BUFFER_NUM, allocSize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, allocSize)

    def CopyIn(self):
        t = self.tiling
        xLocal = self.inQueueX.AllocTensor(self.T)
        idx = aj.GetBlockIdx()
        if idx < t.fullBlockNum:
            diagStart = idx * int(t.fullBlockLength)
        else:
            diagStart = int(t.fullBlockNum * t.fullBlockLength) + (idx - int(t.fullBlockNum)) * int(t.tailBlockLength)
        globalOffset = diagStart * (int(t.columnLength) + 1)
        size = TYPE_SIZE[self.T]
        copyParams = aj.DataCopyExtParams(self.matrixOrder, size, int(t.columnLength) * size, 0, 0)
        padParams = aj.DataCopyPadExtParams(True, 0, 0, 0)
        aj.DataCopyPad(xLocal, self.xGm[globalOffset], copyParams, padParams)
        self.inQueueX.EnQue(xLocal)

    def CopyOut(self):
        yLocal = self.outQueueY.DeQue(self.T)
        aj.SetFlag(0, event=aj.HardEvent.MTE2_MTE3)
        aj.WaitFlag(0, event=aj.HardEvent.MTE2_MTE3)
        aj.SetAtomicAdd(self.T)
        # deviation: the one element (the original: DataCopy(yGm, yLocal, 32))
        aj.DataCopyPad(self.yGm, yLocal, aj.DataCopyExtParams(1, TYPE_SIZE[self.T], 0, 0, 0))
        aj.SetAtomicNone()
        self.outQueueY.FreeTensor(yLocal)

    def Compute(self):
        xLocal = self.inQueueX.DeQue(self.T)
        yLocal = self.outQueueY.AllocTensor(self.T)
        workLocal = self.tmpQueue.AllocTensor(self.T)
        if not ORIGINAL_LAYOUT:
            # deviation: each gathered element opens its own 32-byte block; pack the blocks' first elements
            blockElems = BLOCK_SIZE // TYPE_SIZE[self.T]
            for first in range(0, self.matrixOrder, MAX_REPEAT):
                repeat = min(MAX_REPEAT, self.matrixOrder - first)
                aj.WholeReduceSum(xLocal[first], xLocal[first * blockElems], 1, repeat, 1, 1, 1)
        aj.ReduceSum(yLocal, xLocal, workLocal, self.matrixOrder)
        self.outQueueY.EnQue(self.T, yLocal)
        self.inQueueX.FreeTensor(xLocal)
        self.tmpQueue.FreeTensor(workLocal)

    def Process(self):
        if self.matrixOrder > 0:
            self.CopyIn()
            self.Compute()
            self.CopyOut()


aj.REGISTER_TILING_DEFAULT(TraceV2TilingData)


def trace_v2(x, y, workspace, tiling, DTYPE_X):
    """The kernel entry (schMode unused); DTYPE_X is the build's type, a macro in C++."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(TraceV2TilingData, tiling)
    op = TraceV2(DTYPE_X)
    op.Init(x, y, tilingData)
    op.Process()


def shape_of(size):
    """The gallery's size is the diagonal's length: a matrix of size rows and size + 5 columns (a row stride that
    is not a multiple of the block)."""
    return size, size + 5


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        return {"x": rng.uniform(-4, 4, shape_of(size)).astype(_NP[dtype])}
    return make_inputs


def _run(dtype, bounds="tensor"):
    def run(device, inputs):
        x = inputs["x"]
        block_dim, tiling_bytes, ws_bytes = tiling(device, x.shape, dtype)
        gm_x = np.ascontiguousarray(x).reshape(-1)
        gm_y = np.zeros(BLOCK_SIZE // x.itemsize, x.dtype)   # zeroed by the caller (one element; GM padded to 32 B)
        workspace = np.zeros(ws_bytes, np.uint8)
        aj.launch(trace_v2, block_dim, device, gm_x, gm_y, workspace, tiling_bytes, dtype, bounds=bounds)
        return {"y": gm_y[:1]}
    return run


def core_slices(shape):
    """[(first, count)] of the diagonal, core by core, as the tiling splits it."""
    diag = min(shape)
    usable = 1 if diag == 0 else min(CORE_NUM, diag)
    base, full = diag // usable, diag % usable
    out, first = [], 0
    for core in range(usable):
        n = base + 1 if core < full else base
        out.append((first, n))
        first += n
    return out


def expected(device, inputs):
    x = inputs["x"]
    T = x.dtype.type
    diag = np.diagonal(x)
    total = T(0)
    for first, n in core_slices(x.shape):
        if n == 0:
            continue
        tree = aj.explain_reduce_order(device, "count", "float" if T is np.float32 else "half", count=n)
        total = T(total + T(tree.evaluate(diag[first:first + n])))
    return {"y": np.array([total], T)}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/trace_v2/op_kernel/trace_v2.h"
KERNELS = [
    KernelSpec("trace_v2", "Trace of a float matrix: a strided DataCopyPad (DataCopyExtParams, one element a row "
               "plus one) per core, WholeReduceSum compaction, ReduceSum, SetAtomicAdd into the one GM result",
               _make_inputs("float"), _run("float"), expected, default_size=300, devices=DEVICES,
               size_rule="the diagonal's length (the matrix is size x (size + 5)), at least 1",
               source=_SOURCE),
    KernelSpec("trace_v2_half", "Trace of a half matrix (half ReduceSum, half atomic add)", _make_inputs("half"),
               _run("half"), expected, default_size=300, devices=DEVICES,
               size_rule="the diagonal's length (the matrix is size x (size + 5)), at least 1", source=_SOURCE),
]
