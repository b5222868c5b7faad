"""LpNormV3 from the CANN NN operators (experimental), the infinity norms: y = x / (max |x| + eps) for p = +inf and
y = x / (min |x| + eps) for p = -inf, over the whole tensor (axis -1) or per row / per column of a 2-D x (axis 0 /
1, the kernel's LP_NORM_AXIS_0 / _1 indexing rows / columns). Each core runs over its 32-byte-block share in UB tiles:
|x| by Abs (half: Cast to float first), then a running max / min per norm by the scalar unit (GetValue / SetValue
into a UB vector of norms Duplicated with -p); the per-core norms + eps go to one 64-byte GM workspace slot each by
an atomic DataCopy under SetAtomicMax<float> / SetAtomicMin<float>, SyncAll, core 0 flushes the slots
(DataCacheCleanAndInvalid), SyncAll; then a second pass divides: axis -1 by Duplicate of the norm and Div, axes 0 / 1
by the scalar unit (GM GetValue of the row's or column's slot, a float division, SetValue).

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/norm/lp_norm_v3/op_kernel/lp_norm_v3.h
(`LpNormV3<T, schMode>`: Init (big / small cores, workGm of 16 floats a norm, depth-2 queues, the VECCALC TBufs,
localSum Duplicated with -p), CopyIn / CopyOut by DataCopy, ReduceInf, SumAndSyncAllInf, Normalization,
InfProcess) and lp_norm_v3.cpp (schMode the template argument), with the host tiling of
experimental/norm/lp_norm_v3/op_host/lp_norm_v3_tiling.cpp (`LpNormV3TilingFunc`: tiles of UB / 2 / 32 / 10 blocks,
one core when a tile holds the input, else one core per 32-byte block up to the core count, big and small cores by
blocks; workspace 16 floats a norm) and lp_norm_v3_tiling_data.h.

Not ported: finite p (NormalProcess), which raises |x| to p by the advanced API's Power (not offered by the
emulator); `lp_norm_v3` refuses it. Sizes: rows x cols a whole number of 32-byte blocks (the original's last core
copies its share rounded up to 32 bytes and folds the padding into the norms: into the max / min for axis -1, into
columns 0.. for axis 1, and past the UB vector of norms for axis 0).

Deviations:
- SumAndSyncAllInf axis -1 calls `SetAtomicMax<float>()` (or Min) and then `SetAtomicAdd<float>()` before its
  DataCopy: the add mode replaces the max / min mode, so the slot receives the sum of the cores' norms (each + eps).
  The port leaves out the SetAtomicAdd, so the slot is the max / min as the other axes and the operator's formula
  compute; `ORIGINAL_ATOMIC_ADD = True` keeps it (tests/test_port39t_kernels.py shows the sum it gives).
- tmp_base is allocated `workGmSize` bytes, but holds workGmSize floats (16 a norm, copied out whole): for axes 0 / 1
  the SetValue at r * 16 and the DataCopy of rows * 16 floats pass the buffer (into localSum and past the pipe's
  buffers on the device; an OutOfBoundsError here). The port allocates workGmSize * sizeof(float) bytes;
  `ORIGINAL_BASE_BYTES = True` allocates the original's size and shows the refusal.
- The axes 0 / 1 copy-out of tmp_base carries 15 floats between the norms that no instruction wrote (the sanitizer's
  uninitialised read; their slots are never read back). The port Duplicates 0 over tmp_base first (axis -1 already
  does, 8 floats). `ORIGINAL_BASE_GAPS = True` runs without it.
- The scalar unit reads what the vector unit wrote, and the MTE3 copy what the scalar unit wrote, with no flag between
  (localSum after its Duplicate, |x| after Abs, tmp_base's SetValue over its Duplicate, the atomic copy of tmp_base
  after SetValue; the sanitizer reports the races, SPEC-2 10.4): the port adds SetFlag / WaitFlag pairs (V_S after
  the Duplicates and after Abs, S_MTE3 before the atomic copy). `ORIGINAL_SYNC = True` runs without them.
- For p = -inf the atomic minimum includes the workspace's prior contents, which the original never initialises
  (the framework's allocation): a zero there gives a zero norm. The port's host fills the norm slots with +inf
  (with 0 for p = +inf, below every |x| + eps), as the atomic identity.
- The core count is the launch's 8 (GetCoreNum would give the device's).

Devices: the operator's one config is the A2 (ascend910b); the port runs on the A2 and A3 (SetAtomicMax /
SetAtomicMin float: the 950, A2, A3; the 950 refuses nothing here either, but the operator is not configured there).

Fidelity: the norms are BIT-EXACT (Abs, Cast half -> float, the scalar max / min, a float + eps, atomic max / min).
axis -1 divides by Div (MODELLED: the quotient rounded once, as numpy's IEEE division); axes 0 / 1 by the scalar
unit's float division (numpy float32 semantics, BIT-EXACT); the expectation is numpy's division, checked bit for
bit (axis -1 declares tolerance 0: MODELLED by its Div, equal to numpy's correctly rounded quotient).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
DATA_CACHE_CLEAN_NEED = 64
SLOT_STRIDE = DATA_CACHE_CLEAN_NEED // 4
UB_DATA_NUMBER_FLOAT = 10
BLOCK_SIZE = 32
CORE_NUM = 8
LP_NORM_AXIS_NONE, LP_NORM_AXIS_0, LP_NORM_AXIS_1 = 0, 1, 2
EPSILON = np.float32(1e-6)
ORIGINAL_ATOMIC_ADD = False
ORIGINAL_BASE_BYTES = False
ORIGINAL_BASE_GAPS = False
ORIGINAL_SYNC = False
DEVICES = ("atlas-a3", "atlas-a2")
_SIZE = {"float": 4, "half": 2}
_NP = {"float": np.float32, "half": np.float16}

LpNormV3TilingData = np.dtype([(n, np.uint32) for n in (
    "smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum", "tileDataNum", "smallTailDataNum",
    "bigTailDataNum", "tailBlockNum")] + [("p", np.float32), ("cols", np.uint32), ("rows", np.uint32)])


def tiling(device, shape, dtype, p, axis):
    """LpNormV3TilingFunc: (block dim, schMode, the packed LpNormV3TilingData, workspace floats)."""
    ub_size = aj.get_device(device).ub_bytes
    input_num = int(np.prod(shape))
    input_bytes = _SIZE[dtype]
    tile_block_num = ub_size // BUFFER_NUM // BLOCK_SIZE // UB_DATA_NUMBER_FLOAT
    tile_data_num = tile_block_num * BLOCK_SIZE // input_bytes
    align32 = (input_num * input_bytes + BLOCK_SIZE - 1) // BLOCK_SIZE * BLOCK_SIZE
    rows, cols = (shape[0], shape[1]) if len(shape) > 1 else (shape[0], 0)
    core_num = 1 if tile_data_num >= input_num else min(CORE_NUM, align32 // BLOCK_SIZE)
    every = align32 // BLOCK_SIZE // core_num
    t = np.zeros(1, LpNormV3TilingData)
    t["tailBlockNum"] = align32 // BLOCK_SIZE % core_num
    for prefix, blocks in (("small", every), ("big", every + 1)):
        data = blocks * BLOCK_SIZE // input_bytes
        tiles = blocks // tile_block_num
        t[f"{prefix}CoreDataNum"] = data
        t[f"final{prefix.capitalize()}TileNum"] = tiles + (blocks % tile_block_num != 0)
        t[f"{prefix}TailDataNum"] = data - tile_data_num * tiles or tile_data_num
    t["tileDataNum"], t["p"], t["rows"], t["cols"] = tile_data_num, p, rows, cols
    mode = {-1: LP_NORM_AXIS_NONE, 0: LP_NORM_AXIS_0, 1: LP_NORM_AXIS_1}[axis]
    norms = {LP_NORM_AXIS_NONE: 1, LP_NORM_AXIS_0: rows, LP_NORM_AXIS_1: cols}[mode]
    return core_num, mode, t.view(np.uint8).copy(), norms * SLOT_STRIDE


class LpNormV3:
    def __init__(self, T, schMode):
        self.T, self.schMode = T, schMode
        self.epsilon = EPSILON

    def Init(self, x, y, workspace, tilingData):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        coreNum = aj.GetBlockIdx()
        self.globalBufferIndex = int(tilingData.bigCoreDataNum) * aj.GetBlockIdx()
        self.tileDataNum = int(tilingData.tileDataNum)
        self.p = np.float32(tilingData.p)
        self.rows, self.cols = int(tilingData.rows), int(tilingData.cols)
        self.isposinf = self.IsPosInf(self.p)
        self.isneginf = self.IsNegInf(self.p)
        if coreNum < int(tilingData.tailBlockNum):
            self.coreDataNum = int(tilingData.bigCoreDataNum)
            self.tileNum = int(tilingData.finalBigTileNum)
            self.tailDataNum = int(tilingData.bigTailDataNum)
        else:
            self.coreDataNum = int(tilingData.smallCoreDataNum)
            self.tileNum = int(tilingData.finalSmallTileNum)
            self.tailDataNum = int(tilingData.smallTailDataNum)
            self.globalBufferIndex -= (int(tilingData.bigCoreDataNum) - int(tilingData.smallCoreDataNum)) * \
                (aj.GetBlockIdx() - int(tilingData.tailBlockNum))
        T = self.T
        self.xGm, self.yGm, self.workGm = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor("float")
        self.xGm.SetGlobalBuffer(x[self.globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[self.globalBufferIndex:], self.coreDataNum)
        workGmSize = {LP_NORM_AXIS_NONE: 1, LP_NORM_AXIS_0: self.rows, LP_NORM_AXIS_1: self.cols}[self.schMode] \
            * SLOT_STRIDE
        self.workGm.SetGlobalBuffer(workspace, workGmSize)
        self.pipe = aj.TPipe()
        self.inQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.poweredBuf, self.tmp_norm, self.tmp_base, self.row_base, self.col_base, self.all_base = (
            aj.TBuf(aj.TPosition.VECCALC) for _ in range(6))
        self.pipe.InitBuffer(self.inQueue, BUFFER_NUM, self.tileDataNum * _SIZE[T])
        self.pipe.InitBuffer(self.outQueue, BUFFER_NUM, self.tileDataNum * _SIZE[T])
        self.pipe.InitBuffer(self.poweredBuf, self.tileDataNum * 4)
        if self.schMode == LP_NORM_AXIS_NONE:
            self.pipe.InitBuffer(self.tmp_norm, self.tileDataNum * _SIZE[T])
        else:
            self.pipe.InitBuffer(self.tmp_norm, self.tileDataNum * 4)
        # deviation (module docstring): workGmSize floats, not bytes
        self.pipe.InitBuffer(self.tmp_base, workGmSize if ORIGINAL_BASE_BYTES else workGmSize * 4)
        init = np.float32(-1 * self.p) if (self.isposinf or self.isneginf) else np.float32(0.0)
        if self.schMode == LP_NORM_AXIS_0:
            self.pipe.InitBuffer(self.row_base, self.rows * 4)
            self.localSum = self.row_base.Get("float")
            aj.Duplicate(self.localSum, init, self.rows)
        elif self.schMode == LP_NORM_AXIS_1:
            self.pipe.InitBuffer(self.col_base, self.cols * 4)
            self.localSum = self.col_base.Get("float")
            aj.Duplicate(self.localSum, init, self.cols)
        else:
            self.pipe.InitBuffer(self.all_base, 8 * 4)
            self.localSum = self.all_base.Get("float")
            aj.Duplicate(self.localSum, init, 1)
        self._sync(aj.HardEvent.V_S)                 # deviation: the scalar loops read localSum

    @staticmethod
    def IsPosInf(val):
        return np.float32(val).view(np.uint32) == 0x7F800000

    @staticmethod
    def IsNegInf(val):
        return np.float32(val).view(np.uint32) == 0xFF800000

    @staticmethod
    def _sync(event):
        """Deviation (module docstring): a flag pair the original leaves out."""
        if not ORIGINAL_SYNC:
            aj.SetFlag(aj.EVENT_ID0, event=event)
            aj.WaitFlag(aj.EVENT_ID0, event=event)

    def CopyIn(self, progress):
        xLocal = self.inQueue.AllocTensor(self.T)
        aj.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueue.EnQue(xLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueue.DeQue(self.T)
        aj.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueue.FreeTensor(yLocal)

    def ReduceInf(self, progress):
        tileLocal = self.inQueue.DeQue(self.T)
        tileFloat = self.poweredBuf.Get("float")
        if self.T == "half":
            aj.Cast(tileFloat, tileLocal, aj.RoundMode.CAST_NONE, self.processDataNum)
        else:
            tileFloat = tileLocal.ReinterpretCast("float")
        aj.Abs(tileFloat, tileFloat, self.processDataNum)
        self._sync(aj.HardEvent.V_S)                 # deviation: the scalar loop reads |x|
        n, localSum = self.processDataNum, self.localSum
        if self.schMode == LP_NORM_AXIS_NONE:
            if self.isposinf:
                tileSum = np.uint32(0xFF800000).view(np.float32)
                for i in range(n):
                    if tileFloat.GetValue(i) > tileSum:
                        tileSum = tileFloat.GetValue(i)
                localSum.SetValue(0, tileSum if tileSum > localSum.GetValue(0) else localSum.GetValue(0))
            else:
                tileSum = np.uint32(0x7F800000).view(np.float32)
                for i in range(n):
                    if tileFloat.GetValue(i) < tileSum:
                        tileSum = tileFloat.GetValue(i)
                localSum.SetValue(0, tileSum if tileSum < localSum.GetValue(0) else localSum.GetValue(0))
        else:
            base = self.globalBufferIndex + progress * self.tileDataNum
            for i in range(n):
                globalIdx = base + i
                Idx = globalIdx // self.cols if self.schMode == LP_NORM_AXIS_0 else globalIdx % self.cols
                prev = localSum.GetValue(Idx)
                v = tileFloat.GetValue(i)
                if self.isposinf:
                    localSum.SetValue(Idx, prev if prev > v else v)
                else:
                    localSum.SetValue(Idx, prev if prev < v else v)
        self.inQueue.FreeTensor(tileLocal)

    def _atomic_mode(self):
        if self.isposinf:
            aj.SetAtomicMax("float")
        else:
            aj.SetAtomicMin("float")

    def SumAndSyncAllInf(self):
        base = self.tmp_base.Get("float")
        totalWorkSize = SLOT_STRIDE
        if self.schMode == LP_NORM_AXIS_NONE:
            aj.Duplicate(base, np.float32(0.0), 8)
            self._sync(aj.HardEvent.V_S)             # deviation: SetValue over the Duplicate
            base.SetValue(0, np.float32(self.localSum.GetValue(0) + self.epsilon))
            self._atomic_mode()
            if ORIGINAL_ATOMIC_ADD:                  # deviation (module docstring): left out by default
                aj.SetAtomicAdd("float")
            self._sync(aj.HardEvent.S_MTE3)          # deviation: the copy reads what SetValue wrote
            aj.DataCopy(self.workGm[0], base, 8)
            aj.SetAtomicNone()
        else:
            count = self.rows if self.schMode == LP_NORM_AXIS_0 else self.cols
            totalWorkSize *= count
            if not ORIGINAL_BASE_GAPS:
                aj.Duplicate(base, np.float32(0.0), totalWorkSize)    # deviation: the gaps between the norms
                self._sync(aj.HardEvent.V_S)
            for r in range(count):
                base.SetValue(r * SLOT_STRIDE, np.float32(self.localSum.GetValue(r) + self.epsilon))
            self._atomic_mode()
            self._sync(aj.HardEvent.S_MTE3)
            aj.DataCopy(self.workGm, base, totalWorkSize)
            aj.SetAtomicNone()
        aj.SyncAll()
        aj.PipeBarrier(aj.PIPE_V)
        if aj.GetBlockIdx() == 0:
            slots = 1 if self.schMode == LP_NORM_AXIS_NONE else totalWorkSize // SLOT_STRIDE
            for r in range(slots):
                aj.DataCacheCleanAndInvalid(self.workGm[r * SLOT_STRIDE], entire_type=aj.CacheLine.SINGLE_CACHE_LINE,
                                            dcci_dst=aj.DcciDst.CACHELINE_OUT)
        aj.PipeBarrier(aj.PIPE_V)
        aj.SyncAll()

    def Normalization(self, progress):
        T = self.T
        tileLocal = self.inQueue.DeQue(T)
        tileOut = self.outQueue.AllocTensor(T)
        if self.schMode == LP_NORM_AXIS_NONE:
            normTensor = self.tmp_norm.Get(T)
            aj.Duplicate(normTensor, _NP[T](self.workGm.GetValue(0)), self.processDataNum)
            aj.Div(tileOut, tileLocal, normTensor, self.processDataNum)
        else:
            base = self.globalBufferIndex + progress * self.tileDataNum
            for i in range(self.processDataNum):
                globalIdx = base + i
                Idx = globalIdx // self.cols if self.schMode == LP_NORM_AXIS_0 else globalIdx % self.cols
                norm = np.float32(self.workGm.GetValue(Idx * SLOT_STRIDE))
                with np.errstate(over="ignore"):        # static_cast<half> of a float past 65504: inf
                    tileOut.SetValue(i, _NP[T](np.float32(tileLocal.GetValue(i)) / norm))
        self.outQueue.EnQue(tileOut)
        self.inQueue.FreeTensor(tileLocal)

    def InfProcess(self):
        loopCount = self.tileNum
        self.processDataNum = self.tileDataNum
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.ReduceInf(i)
        self.processDataNum = self.tailDataNum
        self.CopyIn(loopCount - 1)
        self.ReduceInf(loopCount - 1)
        self.SumAndSyncAllInf()
        self.processDataNum = self.tileDataNum
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.Normalization(i)
            self.CopyOut(i)
        self.processDataNum = self.tailDataNum
        self.CopyIn(loopCount - 1)
        self.Normalization(loopCount - 1)
        self.CopyOut(loopCount - 1)

    def Process(self):
        if not self.isposinf and not self.isneginf:
            raise NotImplementedError("LpNormV3 with a finite p (NormalProcess: the advanced API's Power) is not "
                                      "ported")
        self.InfProcess()


aj.REGISTER_TILING_DEFAULT(LpNormV3TilingData)


def lp_norm_v3(x, y, workspace, tiling, DTYPE_X, schMode):
    """The kernel entry; DTYPE_X and schMode are the build's type and template argument."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(LpNormV3TilingData, tiling)
    op = LpNormV3(DTYPE_X, schMode)
    op.Init(x, y, workspace, tilingData)
    op.Process()


def run_lp_norm(device, x, p, axis, workspace_fill=None):
    """workspace_fill: the norm slots' prior contents (default: the atomic identity, a deviation)."""
    dtype = "float" if x.dtype == np.float32 else "half"
    if (x.size * x.itemsize) % BLOCK_SIZE:
        raise ValueError("the port takes x of whole 32-byte blocks (module docstring)")
    block_dim, mode, tiling_bytes, work_floats = tiling(device, x.shape, dtype, p, axis)
    if workspace_fill is None:
        workspace_fill = np.inf if p < 0 else 0.0                     # deviation: the atomic identity
    workspace = np.full(work_floats, workspace_fill, np.float32)
    y = np.zeros(x.size, x.dtype)
    aj.launch(lp_norm_v3, block_dim, device, np.ascontiguousarray(x).reshape(-1), y, workspace, tiling_bytes,
              dtype, mode)
    return y.reshape(x.shape)


def reference(x, p, axis):
    a = np.abs(x.astype(np.float32))
    red = np.max if p > 0 else np.min
    if axis == -1:
        norm = red(a) + EPSILON
    elif axis == 0:
        norm = (red(a, axis=1) + EPSILON)[:, None]
    else:
        norm = (red(a, axis=0) + EPSILON)[None, :]
    norm = np.float32(norm) if axis == -1 else norm.astype(np.float32)
    if axis == -1:
        return (x / x.dtype.type(norm)).astype(x.dtype)   # Duplicate of static_cast<T>(norm), then Div in T
    return (x.astype(np.float32) / norm).astype(x.dtype)


_SHAPES = {}


def _make_inputs(dtype, cols):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        rows = max(1, size // cols)
        x = (rng.standard_normal((rows, cols)) * rng.choice([0.01, 1.0, 30.0], (rows, 1))).astype(_NP[dtype])
        x[rng.random((rows, cols)) < 0.02] = 0
        return {"x": x}
    return make_inputs


def _run(p, axis):
    def run(device, inputs):
        return {"y": run_lp_norm(device, inputs["x"], p, axis)}
    return run


def _expected(p, axis):
    def expected(device, inputs):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return {"y": reference(inputs["x"], p, axis)}
    return expected


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/norm/lp_norm_v3/op_kernel/lp_norm_v3.h"
_RULE = "rows of the kernel's column count (x in whole 32-byte blocks)"
KERNELS = [
    KernelSpec("lp_norm_v3", "LpNormV3, p = +inf over the whole tensor (Abs, scalar running max, per-core norms "
               "combined by SetAtomicMax into a 64-byte GM slot, SyncAll, Duplicate + Div; 8 cores)",
               _make_inputs("float", 64), _run(np.inf, -1), _expected(np.inf, -1), default_size=20000,
               devices=DEVICES, tolerance=0.0, size_rule=_RULE, size_ok=lambda n: n >= 64, source=_SOURCE),
    KernelSpec("lp_norm_v3_min_rows_half", "LpNormV3, p = -inf per row, half (Cast to float, Abs, scalar running "
               "min per row, SetAtomicMin per 64-byte row slot, SyncAll, scalar division)",
               _make_inputs("half", 48), _run(-np.inf, 0), _expected(-np.inf, 0), default_size=4800,
               devices=DEVICES, size_rule=_RULE, size_ok=lambda n: n >= 48, source=_SOURCE),
    KernelSpec("lp_norm_v3_max_cols", "LpNormV3, p = +inf per column (scalar running max per column, SetAtomicMax "
               "per 64-byte column slot, SyncAll, scalar division)", _make_inputs("float", 40),
               _run(np.inf, 1), _expected(np.inf, 1), default_size=4000, devices=DEVICES, size_rule=_RULE,
               size_ok=lambda n: n >= 40, source=_SOURCE),
]
