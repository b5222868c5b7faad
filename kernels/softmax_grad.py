"""SoftmaxGrad from the CANN NN operators: per row i of [N, C], dot_i = sum_j dy[i, j] * y[i, j] and
dx[i, j] = y[i, j] * (dy[i, j] - dot_i), over float, half and bfloat16 (the 16-bit types computed in float).

Ported (structure and instruction sequence; written in our own words) from hicann/ops-nn @
e5c3fa9327ea95ba26d06227e746923580d10921, experimental/loss/softmax_grad/op_kernel/softmax_grad.h
(`NsSoftmaxGrad::SoftmaxGrad<T>`: a row a step, no cross-core traffic; depth-1 VECIN queues for y and dy and a VECOUT
queue for dx, each of two buffers of CPadded elements; each row copied in by DataCopyPad with DataCopyExtParams of
the row's C * sizeof(T) bytes and `DataCopyPadExtParams<T>{true, 0, CPadded - C, 0}` (the row padded with zeros to a
DataBlock); 16-bit types: Cast CAST_NONE of both rows to float TBufs, Mul, a count-form `ReduceSum<float>(r, t, r,
CPadded)` whose dst is its own work buffer, a V_S flag fetched by `GetTPipePtr()->FetchEventID`, the dot read by
GetValue, Adds of -dot, Mul, Cast CAST_RINT into the dx tile; float: the same on the queue tiles with two float
TBufs; DataCopyPad of the row's C elements out) and softmax_grad.cpp (REGISTER_TILING_DEFAULT /
GET_TILING_DATA_WITH_STRUCT of softmax_grad_tiling_data.h's six uint64 fields), with the host tiling of
op_host/softmax_grad_tiling.cpp (`SoftmaxGradTilingFunc`: CPadded = C rounded up to 32 / sizeof(T); usedCoreNum =
min(N, cores), rowsPerCore = N / usedCoreNum, the first N % usedCoreNum cores one row more; a row must fit (UB / 32 /
6 or / 9) DataBlocks).

Deviations: none in the kernel. The core count is the launch's 8 (GetCoreNumAiv would give the device's); GM is
padded to 32 bytes, as device allocations are. Kept from the original: the host tiling's row limit counts 6 (float)
or 9 (16-bit) row buffers, but the kernel allocates 3 queues of 2 buffers and 2 (float) or 5 (16-bit, four of them
float) TBufs: 7 float rows and the reduce buffer, or 6 half rows, 4 float rows and the reduce buffer. A row between
the two bounds (a float row of 8000 on the A2) passes the tiling and makes InitBuffer run past the UB, which the
emulator refuses (OutOfBoundsError; `test_softmax_grad_rows_the_tiling_accepts_can_overflow_the_ub`).

Devices: the 950, A3 and A2 (the operator's config is the A2, ascend910b): DataCopyPad leaves out the 310P and 910,
and TPipe event ids (FetchEventID, DK `TPipe/AllocEventID.md`) the 310B.

Fidelity: BIT-EXACT (DataCopyPad, Cast, Mul, ReduceSum, Adds are BIT-EXACT, SPEC-2 0.3): checked bit for bit
against the same float operations composed from the package's reference model (products and sums rounded once to
float) and the device's ReduceSum tree over the zero-padded row (`aj.explain_reduce_order`).
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
QUE_DEPTH = 1
UB_BLOCK_BYTES = 32
UB_NUM_FLOAT, UB_NUM_OTHER = 6, 9
CORE_NUM = 8
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}


class SoftmaxGradTilingData(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in ("N", "C", "CPadded", "rowsPerCore", "tailCoreRows",
                                                       "usedCoreNum")]


def tiling(device, n, c, dtype):
    """SoftmaxGradTilingFunc: (block dim, packed SoftmaxGradTilingData); a ParameterError where the original's
    tiling fails (a row past its UB bound)."""
    ub_size = aj.get_device(device).ub_bytes
    align = UB_BLOCK_BYTES // TYPE_SIZE[dtype]
    c_padded = -(-c // align) * align
    ub_data_number = UB_NUM_FLOAT if dtype == "float" else UB_NUM_OTHER
    ub_part = ub_size // UB_BLOCK_BYTES // ub_data_number * UB_BLOCK_BYTES // TYPE_SIZE[dtype]
    if c_padded > ub_part:
        raise aj.ParameterError("SoftmaxGradTilingFunc", "C", c, legal=f"CPadded <= {ub_part}", device=device)
    used = min(n, CORE_NUM)
    t = SoftmaxGradTilingData(N=n, C=c, CPadded=c_padded, rowsPerCore=n // used, tailCoreRows=n % used,
                              usedCoreNum=used)
    return used, np.frombuffer(bytes(t), np.uint8).copy()


class SoftmaxGrad:
    def __init__(self, T):
        self.T = T

    def Init(self, y, dy, dx, tilingData):
        T = self.T
        self.N, self.C, self.CPadded = tilingData.N, tilingData.C, tilingData.CPadded
        aj.ascendc_assert(aj.GetBlockNum() != 0, "block dim can not be zero!\n")
        coreIdx = aj.GetBlockIdx()
        if coreIdx < tilingData.tailCoreRows:
            self.coreRows = tilingData.rowsPerCore + 1
            self.startRow = coreIdx * (tilingData.rowsPerCore + 1)
        else:
            self.coreRows = tilingData.rowsPerCore
            self.startRow = (tilingData.tailCoreRows * (tilingData.rowsPerCore + 1)
                             + (coreIdx - tilingData.tailCoreRows) * tilingData.rowsPerCore)
        self.yGm, self.dyGm, self.dxGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.yGm.SetGlobalBuffer(y, self.N * self.C)
        self.dyGm.SetGlobalBuffer(dy, self.N * self.C)
        self.dxGm.SetGlobalBuffer(dx, self.N * self.C)
        self.pipe = aj.TPipe()
        self.inQueueY = aj.TQue(aj.QuePosition.VECIN, QUE_DEPTH)
        self.inQueueDy = aj.TQue(aj.QuePosition.VECIN, QUE_DEPTH)
        self.outQueueDx = aj.TQue(aj.QuePosition.VECOUT, QUE_DEPTH)
        size = TYPE_SIZE[T]
        self.pipe.InitBuffer(self.inQueueY, BUFFER_NUM, self.CPadded * size)
        self.pipe.InitBuffer(self.inQueueDy, BUFFER_NUM, self.CPadded * size)
        self.pipe.InitBuffer(self.outQueueDx, BUFFER_NUM, self.CPadded * size)
        # ReduceSum's work buffer: one entry a repeat of the first pass, rounded up to a DataBlock
        elemPerRepeat, elemPerBlock = 256 // size, 32 // size
        firstRepeats = (self.CPadded + elemPerRepeat - 1) // elemPerRepeat
        alignedElems = (firstRepeats + elemPerBlock - 1) // elemPerBlock * elemPerBlock
        if T != "float":
            self.castYFloat, self.castDyFloat, self.castTmpFloat, self.castReduceFloat, self.castDxFloat = (
                aj.TBuf(aj.TPosition.VECCALC) for _ in range(5))
            self.pipe.InitBuffer(self.castYFloat, self.CPadded * 4)
            self.pipe.InitBuffer(self.castDyFloat, self.CPadded * 4)
            self.pipe.InitBuffer(self.castTmpFloat, self.CPadded * 4)
            self.pipe.InitBuffer(self.castReduceFloat, alignedElems * 4)
            self.pipe.InitBuffer(self.castDxFloat, self.CPadded * 4)
        else:
            self.tmpBuf, self.reduceBuf = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
            self.pipe.InitBuffer(self.tmpBuf, self.CPadded * size)
            self.pipe.InitBuffer(self.reduceBuf, alignedElems * size)

    def Process(self):
        for i in range(self.coreRows):
            self.ProcessRow(self.startRow + i)

    def ProcessRow(self, rowIdx):
        T = self.T
        offset = rowIdx * self.C          # GM rows are C apart; only the UB rows are padded
        yLocal = self.inQueueY.AllocTensor(T)
        dyLocal = self.inQueueDy.AllocTensor(T)
        dataBytes = self.C * TYPE_SIZE[T]
        padElems = self.CPadded - self.C
        copyParams = aj.DataCopyExtParams(1, dataBytes, 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(True, 0, padElems, 0)
        aj.DataCopyPad(yLocal, self.yGm[offset], copyParams, padParams)
        aj.DataCopyPad(dyLocal, self.dyGm[offset], copyParams, padParams)
        self.inQueueY.EnQue(yLocal)
        self.inQueueDy.EnQue(dyLocal)
        yLocal = self.inQueueY.DeQue(T)
        dyLocal = self.inQueueDy.DeQue(T)
        n = self.CPadded
        if T != "float":
            yFloat = self.castYFloat.Get("float")
            dyFloat = self.castDyFloat.Get("float")
            tmpFloat = self.castTmpFloat.Get("float")
            reduceFloat = self.castReduceFloat.Get("float")
            dxFloat = self.castDxFloat.Get("float")
            aj.Cast(yFloat, yLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(dyFloat, dyLocal, aj.RoundMode.CAST_NONE, n)
            aj.Mul(tmpFloat, yFloat, dyFloat, n)          # the zero padding adds nothing to the dot
            aj.ReduceSum(reduceFloat, tmpFloat, reduceFloat, n)
            vsEvt = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_S)
            aj.SetFlag(vsEvt, event=aj.HardEvent.V_S)
            aj.WaitFlag(vsEvt, event=aj.HardEvent.V_S)
            dot = np.float32(reduceFloat.GetValue(0))
            aj.Adds(tmpFloat, dyFloat, -dot, n)
            aj.Mul(dxFloat, yFloat, tmpFloat, n)
            dxLocal = self.outQueueDx.AllocTensor(T)
            aj.Cast(dxLocal, dxFloat, aj.RoundMode.CAST_RINT, n)
        else:
            tmpLocal = self.tmpBuf.Get(T)
            reduceLocal = self.reduceBuf.Get(T)
            aj.Mul(tmpLocal, yLocal, dyLocal, n)
            aj.ReduceSum(reduceLocal, tmpLocal, reduceLocal, n)
            vsEvt = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_S)
            aj.SetFlag(vsEvt, event=aj.HardEvent.V_S)
            aj.WaitFlag(vsEvt, event=aj.HardEvent.V_S)
            dot = np.float32(reduceLocal.GetValue(0))
            aj.Adds(tmpLocal, dyLocal, -dot, n)
            dxLocal = self.outQueueDx.AllocTensor(T)
            aj.Mul(dxLocal, yLocal, tmpLocal, n)
        self.outQueueDx.EnQue(T, dxLocal)
        dxLocal = self.outQueueDx.DeQue(T)
        aj.DataCopyPad(self.dxGm[offset], dxLocal, aj.DataCopyExtParams(1, dataBytes, 0, 0, 0))
        self.outQueueDx.FreeTensor(dxLocal)
        self.inQueueY.FreeTensor(yLocal)
        self.inQueueDy.FreeTensor(dyLocal)


aj.REGISTER_TILING_DEFAULT(SoftmaxGradTilingData)


def softmax_grad(y, dy, dx, workspace, tiling, DTYPE_Y):
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(SoftmaxGradTilingData, tiling)
    op = SoftmaxGrad(DTYPE_Y)
    op.Init(y, dy, dx, tilingData)
    op.Process()


def _make_inputs(dtype, c):
    def make_inputs(size, seed):
        """y a softmax of N(0, 2) logits per row (the operator's input), dy N(0, 1)."""
        rng = np.random.default_rng(seed)
        logits = rng.standard_normal((size // c, c)) * 2
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        y = (e / e.sum(axis=1, keepdims=True)).astype(np.float32).astype(_NP[dtype])
        dy = rng.standard_normal(size).astype(np.float32).astype(_NP[dtype])
        return {"y": y.reshape(-1), "dy": dy}
    return make_inputs


def _gm(a):
    """A device allocation: the array padded with zeros to 32 bytes."""
    out = np.zeros(-(-a.size * a.itemsize // 32) * 32 // a.itemsize, a.dtype)
    out[:a.size] = a
    return out


def _run(dtype, c):
    def run(device, inputs, n_cols=c):
        y, dy = inputs["y"], inputs["dy"]
        block_dim, tiling_bytes = tiling(device, y.size // n_cols, n_cols, dtype)
        dx = _gm(np.zeros(y.size, y.dtype))
        aj.launch(softmax_grad, block_dim, device, _gm(y), _gm(dy), dx, np.zeros(0, np.uint8), tiling_bytes,
                  dtype)
        return {"dx": dx[:y.size]}
    return run


def _expected(dtype, c):
    def expected(device, inputs, n_cols=c):
        """Float products through the reference model, each row's dot by the device's count-form ReduceSum tree over
        the row padded with zeros to CPadded, dy - dot and y * (dy - dot) rounded once to float, then RNE to T."""
        from ascend_jit.reference import elementwise as ref
        core = aj.Core(device)
        env = ref.Env(device, sat_half=core.half_saturating, sat_int=core.int_saturating)
        align = UB_BLOCK_BYTES // TYPE_SIZE[dtype]
        c_padded = -(-n_cols // align) * align
        y = np.zeros((inputs["y"].size // n_cols, c_padded), np.float64)
        dy = np.zeros_like(y)
        y[:, :n_cols] = inputs["y"].astype(np.float32).reshape(-1, n_cols)
        dy[:, :n_cols] = inputs["dy"].astype(np.float32).reshape(-1, n_cols)
        prod = np.asarray(ref.mul("float", env, y, dy), np.float32)
        tree = aj.explain_reduce_order(device, "count", "float", count=c_padded)
        dot = np.asarray(tree.evaluate_batch(prod), np.float32)
        diff = np.asarray(ref.add("float", env, dy, -dot.astype(np.float64)[:, None]), np.float32)
        dx = np.asarray(ref.mul("float", env, y, diff.astype(np.float64)), np.float32)
        return {"dx": dx[:, :n_cols].reshape(-1).astype(_NP[dtype])}
    return expected


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/loss/softmax_grad/op_kernel/softmax_grad.h"
KERNELS = [
    KernelSpec(f"softmax_grad{suffix}", description, _make_inputs(dtype, c), _run(dtype, c), _expected(dtype, c),
               default_size=rows * c, devices=DEVICES, source=_SOURCE,
               size_rule=f"whole rows of {c} elements", size_ok=lambda n, c=c: n > 0 and n % c == 0)
    for suffix, dtype, c, rows, description in (
        ("", "float", 1001, 24,
         "SoftmaxGrad over float rows of 1001 (DataCopyPad with rightPadding zeros to 1008, Mul, ReduceSum into its "
         "own work buffer, V_S flag by FetchEventID, GetValue, Adds -dot, Mul; a row a step over 8 cores)"),
        ("_half", "half", 1001, 24,
         "SoftmaxGrad over half rows of 1001 in float (Cast CAST_NONE, Mul, ReduceSum, Adds, Mul, Cast CAST_RINT)"),
        ("_bf16", "bfloat16", 77, 40,
         "SoftmaxGrad over bfloat16 rows of 77 in float (rows padded to 80; a ReduceSum of one partial repeat)"))
]
