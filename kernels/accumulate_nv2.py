"""AccumulateNv2 from the CANN math operators: y = x_0 + x_1 + ... + x_{N-1} over a list of N same-shaped tensors,
float, int32, half (summed in float), int8 and uint8 (summed in half).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/accumulate_nv2:
- op_kernel/accumulate_nv2.h (`MyAccumulateNv2::AccumulateNv2<TYPE_X, TYPE_C>`: big/small cores; the tensors'
  addresses from the list's pointer table (`GetTensorAddr`); one TQueBind<VECIN, VECOUT, 1> buffer a tile, never
  enqueued, carved into sub-tensors by `operator[]` at processDataNum (x1Local, x2Local, x3Local), with x2Local
  reinterpreted as TYPE_C (xCast, over x2Local and x3Local) and a TBuf of TYPE_C (yCast) for the 8- and 16-bit
  types. 32-bit types: y = x_0 in the second third, each x_i copied into the first and added, V_MTE2 / MTE2_V flag
  pairs (FetchEventID'd) between the copies and Adds, V_MTE3 before the DataCopy out. 8- / 16-bit types: x_0 and
  x_1 Cast CAST_NONE into yCast / xCast, then per further tensor a copy into x1Local, Add of the previous one, Cast
  of the new one, the last Add, Cast TYPE_C -> TYPE_X CAST_NONE into x1Local and the copy out. N = 1: Duplicate 0
  and one Add);
- op_kernel/accumulate_nv2.cpp (the entry: TYPE_C is half for int8 / uint8, float for half, TYPE_X otherwise) and
  op_host/accumulate_nv2_tiling.cpp (`AccumulateNv2TilingFunc`: blocks of 32 bytes (512 for the 8- and 16-bit
  types); single-buffered tiles of UB / block / (2, or 5 for 8- / 16-bit) blocks; cores = ceil(total / 1024)
  (2048 for 8-bit) at most the AIV count; the big/small split of ascend_jit.kernels._base.big_small_core_tiling).

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original). Cores copy whole blocks:
the host pads each GM tensor to the block (zeros, never returned). The tensor list is a Python list of GM arrays
(docs/decisions.md "Kernel utilities": the original reads a pointer table at the GM address). The 8- / 16-bit
path's second tensor: the original copies x_1 into x3Local and Casts it into xCast, which covers x2Local and
x3Local, so the wider destination overlaps its own source; SPEC-2 D34 allows no overlap for a Cast between types of
different sizes (OverlapError before anything is written: `original_overlap=True` runs the original's form and
tests/test_port46m_kernels.py shows the refusal), so the port copies x_1 into x1Local, free until the third tensor,
and orders that tensor's copy into x1Local after the Cast by a V_MTE2 flag pair, as the later tensors' copies are.
The sums are the same: the Cast reads the same values.

Devices: the original is built for the ascend910b (A2 / A3); the port runs on the A3 and A2.

Fidelity: BIT-EXACT (DataCopy, Add, Duplicate, Cast; SPEC-2 0.3): sequential sums x_0 + x_1 + ... in TYPE_C,
rounded (float, half: RNE; int32 wrapping) at every step, then Cast CAST_NONE (RINT; half -> int8 / uint8
saturating, SPEC-2 7.3 / D45). N = 1 adds a +0, which makes -0 +0.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
TYPE_SIZE = {"float": 4, "int32": 4, "half": 2, "int8": 1, "uint8": 1}
COMPUTE_TYPE = {"int8": "half", "uint8": "half", "half": "float", "float": "float", "int32": "int32"}
_NP = {"float": np.float32, "int32": np.int32, "half": np.float16, "int8": np.int8, "uint8": np.uint8}
DEVICES = ("atlas-a3", "atlas-a2")


def _align(dtype):
    return 512 if dtype in ("half", "int8", "uint8") else 32


def tiling(device, total, dtype, num):
    """AccumulateNv2TilingFunc (bufferNum is always 1): (core count, tiling data)."""
    size, align = TYPE_SIZE[dtype], _align(dtype)
    ub_data_number = 5 if align == 512 else 2
    tile_block_num = aj.get_device(device).ub_bytes // 1 // align // ub_data_number
    tile_data_num = tile_block_num * align // size
    unit = 2048 if size == 1 else 1024
    core_num = max(1, min(CORE_NUM, -(-total // unit)))
    small, big, tail_block_num = big_small_core_tiling(total, size, tile_data_num, core_num, block=align)
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num, tileDataNum=tile_data_num,
                          smallTailDataNum=small.tail_data_num, bigTailDataNum=big.tail_data_num,
                          finalSmallTileNum=small.tile_num, finalBigTileNum=big.tile_num,
                          tailBlockNum=tail_block_num, num=num)


class AccumulateNv2:
    """`AccumulateNv2<TYPE_X, TYPE_C>`."""

    def __init__(self, X, original_overlap=False):
        self.X, self.C, self.original_overlap = X, COMPUTE_TYPE[X], original_overlap

    def Init(self, x, y, tilingData, pipeIn):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        X, C = self.X, self.C
        coreNum = aj.GetBlockIdx()
        self.globalBufferIndex = tilingData["bigCoreDataNum"] * coreNum
        self.tileDataNum = tilingData["tileDataNum"]
        self.pipe = pipeIn
        self.tensorList = x                            # deviation: the list itself, not its pointer table
        if coreNum < tilingData["tailBlockNum"]:
            self.coreDataNum = tilingData["bigCoreDataNum"]
            self.tileNum = tilingData["finalBigTileNum"]
            self.tailDataNum = tilingData["bigTailDataNum"]
        else:
            self.coreDataNum = tilingData["smallCoreDataNum"]
            self.tileNum = tilingData["finalSmallTileNum"]
            self.tailDataNum = tilingData["smallTailDataNum"]
            self.globalBufferIndex -= (tilingData["bigCoreDataNum"] - tilingData["smallCoreDataNum"]) * \
                (coreNum - tilingData["tailBlockNum"])
        self.num = tilingData["num"]
        self.yGm = aj.GlobalTensor(X)
        self.yGm.SetGlobalBuffer(y[self.globalBufferIndex:], self.coreDataNum)
        self.xGm, self.x1Gm, self.x2Gm = aj.GlobalTensor(X), aj.GlobalTensor(X), aj.GlobalTensor(X)
        self.queBind = aj.TQueBind(aj.TPosition.VECIN, aj.TPosition.VECOUT, 1)
        self.castTmp = aj.TBuf(aj.QuePosition.VECCALC)
        size = TYPE_SIZE[X]
        if X != C:                                      # int8 / uint8 in half, half in float
            self.pipe.InitBuffer(self.queBind, 1, self.tileDataNum * size * 3)
            self.pipe.InitBuffer(self.castTmp, self.tileDataNum * TYPE_SIZE[C])
        else:
            self.pipe.InitBuffer(self.queBind, 1, self.tileDataNum * size * 2)

    def GetTensorAddr(self, index):
        return self.tensorList[index]

    def Process(self):
        loopCount = self.tileNum - 1
        self.processDataNum = self.tileDataNum
        offset = 0
        for _ in range(loopCount):
            self.TotalStage(offset)
            offset += self.tileDataNum
        self.processDataNum = self.tailDataNum
        self.TotalStage(offset)

    def TotalStage(self, offset):
        if self.X != self.C:
            self.TotalStageN32B(offset)
        else:
            self.TotalStage32B(offset)

    def _events(self):
        p = aj.GetTPipePtr()
        return (p.FetchEventID(aj.HardEvent.MTE2_V), p.FetchEventID(aj.HardEvent.V_MTE2),
                p.FetchEventID(aj.HardEvent.V_MTE3))

    def TotalStage32B(self, offset):
        eventIDMTE2ToV, eventIDVToMTE2, eventIDVToMTE3 = self._events()
        xLocal = self.queBind.AllocTensor(self.X)
        yLocal = xLocal[self.processDataNum]
        if self.num == 1:
            self.HandleNumOne32B(offset, yLocal, xLocal, eventIDMTE2ToV)
        else:
            self.InitFirstTwo32B(offset, yLocal, xLocal, eventIDMTE2ToV)
            for i in range(2, self.num):
                self.LoadAndAddOne32B(offset, i, xLocal, yLocal, eventIDVToMTE2, eventIDMTE2ToV)
        aj.SetFlag(eventIDVToMTE3, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(eventIDVToMTE3, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(self.yGm[offset], yLocal, self.processDataNum)
        self.queBind.FreeTensor(xLocal)

    def HandleNumOne32B(self, offset, yLocal, xLocal, eventIDMTE2ToV):
        self.xGm.SetGlobalBuffer(self.GetTensorAddr(0)[self.globalBufferIndex:])
        aj.DataCopy(xLocal, self.xGm[offset], self.processDataNum)
        aj.SetFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.Duplicate(yLocal, _NP[self.X](0), self.processDataNum)
        aj.Add(yLocal, xLocal, yLocal, self.processDataNum)

    def InitFirstTwo32B(self, offset, yLocal, xLocal, eventIDMTE2ToV):
        self.x1Gm.SetGlobalBuffer(self.GetTensorAddr(0)[self.globalBufferIndex:])
        self.x2Gm.SetGlobalBuffer(self.GetTensorAddr(1)[self.globalBufferIndex:])
        aj.DataCopy(yLocal, self.x1Gm[offset], self.processDataNum)
        aj.DataCopy(xLocal, self.x2Gm[offset], self.processDataNum)
        aj.SetFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.Add(yLocal, yLocal, xLocal, self.processDataNum)

    def LoadAndAddOne32B(self, offset, idx, xLocal, yLocal, eventIDVToMTE2, eventIDMTE2ToV):
        self.xGm.SetGlobalBuffer(self.GetTensorAddr(idx)[self.globalBufferIndex:])
        aj.SetFlag(eventIDVToMTE2, event=aj.HardEvent.V_MTE2)
        aj.WaitFlag(eventIDVToMTE2, event=aj.HardEvent.V_MTE2)
        aj.DataCopy(xLocal, self.xGm[offset], self.processDataNum)
        aj.SetFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.Add(yLocal, yLocal, xLocal, self.processDataNum)

    def TotalStageN32B(self, offset):
        eventIDMTE2ToV, eventIDVToMTE2, eventIDVToMTE3 = self._events()
        x1Local = self.queBind.AllocTensor(self.X)
        x2Local = x1Local[self.processDataNum]
        x3Local = x2Local[self.processDataNum]
        xCast = x2Local.ReinterpretCast(self.C)
        yCast = self.castTmp.Get(self.C)
        n = self.processDataNum
        if self.num == 1:
            self.HandleNumOneN32B(offset, x1Local, xCast, yCast, eventIDMTE2ToV)
        else:
            self.InitFirstTwoN32B(offset, x1Local, x2Local, x3Local, xCast, yCast, eventIDMTE2ToV)
            if self.num > 2:
                self.HandleThirdN32B(offset, x1Local, xCast, yCast, eventIDVToMTE2, eventIDMTE2ToV)
            for i in range(3, self.num):
                self.LoadCastAndAddOneN32B(offset, i, x1Local, xCast, yCast, eventIDVToMTE2, eventIDMTE2ToV)
            aj.Add(yCast, yCast, xCast, n)
        aj.Cast(x1Local, yCast, aj.RoundMode.CAST_NONE, n)
        aj.SetFlag(eventIDVToMTE3, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(eventIDVToMTE3, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(self.yGm[offset], x1Local, n)
        self.queBind.FreeTensor(x1Local)

    def HandleNumOneN32B(self, offset, x1Local, xCast, yCast, eventIDMTE2ToV):
        n = self.processDataNum
        self.xGm.SetGlobalBuffer(self.GetTensorAddr(0)[self.globalBufferIndex:])
        aj.DataCopy(x1Local, self.xGm[offset], n)
        aj.SetFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.Cast(xCast, x1Local, aj.RoundMode.CAST_NONE, n)
        aj.Duplicate(yCast, _NP[self.C](0.0), n)
        aj.Add(yCast, xCast, yCast, n)

    def InitFirstTwoN32B(self, offset, x1Local, x2Local, x3Local, xCast, yCast, eventIDMTE2ToV):
        n = self.processDataNum
        self.x1Gm.SetGlobalBuffer(self.GetTensorAddr(0)[self.globalBufferIndex:])
        self.x2Gm.SetGlobalBuffer(self.GetTensorAddr(1)[self.globalBufferIndex:])
        aj.DataCopy(x2Local, self.x1Gm[offset], n)
        aj.SetFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.Cast(yCast, x2Local, aj.RoundMode.CAST_NONE, n)
        # deviation: x_1 through x1Local (the original's x3Local lies inside xCast: an overlapping widening Cast)
        second = x3Local if self.original_overlap else x1Local
        aj.DataCopy(second, self.x2Gm[offset], n)
        aj.SetFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.Cast(xCast, second, aj.RoundMode.CAST_NONE, n)

    def HandleThirdN32B(self, offset, x1Local, xCast, yCast, eventIDVToMTE2, eventIDMTE2ToV):
        n = self.processDataNum
        self.xGm.SetGlobalBuffer(self.GetTensorAddr(2)[self.globalBufferIndex:])
        if not self.original_overlap:                  # deviation: x1Local was the Cast's source just before
            aj.SetFlag(eventIDVToMTE2, event=aj.HardEvent.V_MTE2)
            aj.WaitFlag(eventIDVToMTE2, event=aj.HardEvent.V_MTE2)
        aj.DataCopy(x1Local, self.xGm[offset], n)
        aj.Add(yCast, yCast, xCast, n)
        aj.SetFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.Cast(xCast, x1Local, aj.RoundMode.CAST_NONE, n)

    def LoadCastAndAddOneN32B(self, offset, idx, x1Local, xCast, yCast, eventIDVToMTE2, eventIDMTE2ToV):
        n = self.processDataNum
        self.xGm.SetGlobalBuffer(self.GetTensorAddr(idx)[self.globalBufferIndex:])
        aj.SetFlag(eventIDVToMTE2, event=aj.HardEvent.V_MTE2)
        aj.WaitFlag(eventIDVToMTE2, event=aj.HardEvent.V_MTE2)
        aj.DataCopy(x1Local, self.xGm[offset], n)
        aj.Add(yCast, yCast, xCast, n)
        aj.SetFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.Cast(xCast, x1Local, aj.RoundMode.CAST_NONE, n)


def accumulate_nv2(x, y, workspace, tilingData, dtype, original_overlap=False):
    """The kernel entry (accumulate_nv2.cpp): a TPipe made by the entry and handed to Init."""
    pipe = aj.TPipe()
    op = AccumulateNv2(dtype, original_overlap)
    op.Init(x, y, tilingData, pipe)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_accumulate_nv2(device, xs, original_overlap=False):
    dtype = _dtype_name(xs[0])
    total = xs[0].size
    block_dim, t = tiling(device, total, dtype, len(xs))
    elems = _align(dtype) // TYPE_SIZE[dtype]
    padded = -(-total // elems) * elems                     # deviation: GM padded to the tiling's block
    gms = []
    for x in xs:
        g = np.zeros(padded, x.dtype)
        g[:total] = x
        gms.append(g)
    y = np.zeros(padded, xs[0].dtype)
    aj.launch(accumulate_nv2, block_dim, device, gms, y, None, t, dtype, original_overlap)
    return y[:total]


def accumulate_nv2_model(xs):
    """Sequential sums in the compute type (the first tensor plus +0 when N = 1), then CAST_NONE back (RINT; half ->
    int8 / uint8 saturating)."""
    dtype = _dtype_name(xs[0])
    C = _NP[COMPUTE_TYPE[dtype]]
    with np.errstate(all="ignore"):
        acc = xs[0].astype(C)
        if len(xs) == 1:
            acc = (acc + C(0)).astype(C)
        for x in xs[1:]:
            acc = (acc + x.astype(C)).astype(C)
        if dtype in ("int8", "uint8"):
            lo, hi = (-128, 127) if dtype == "int8" else (0, 255)
            a = acc.astype(np.float64)
            return np.where(np.isnan(a), 0, np.clip(np.rint(a), lo, hi)).astype(_NP[dtype])
        return acc.astype(_NP[dtype])


def _make_inputs(dtype, num):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        out = {}
        for i in range(num):
            if dtype in ("int8", "uint8"):
                v = rng.integers(-40, 40, size) if dtype == "int8" else rng.integers(0, 80, size)
            elif dtype == "int32":
                v = rng.integers(-2 ** 31, 2 ** 31, size)
            else:
                v = rng.standard_normal(size) * 10
            out[f"x{i}"] = v.astype(_NP[dtype])
        return out
    return make_inputs


def _xs(inputs):
    return [inputs[f"x{i}"] for i in range(len(inputs))]


def _run(device, inputs):
    return {"y": run_accumulate_nv2(device, _xs(inputs))}


def _expected(device, inputs):
    return {"y": accumulate_nv2_model(_xs(inputs))}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/accumulate_nv2/op_kernel/accumulate_nv2.h"
KERNELS = [
    KernelSpec(f"accumulate_nv2{suffix}", description, _make_inputs(dtype, num), _run, _expected,
               default_size=size, devices=DEVICES, source=_SOURCE)
    for suffix, dtype, num, size, description in (
        ("", "float", 4, 100003, "AccumulateNv2 of 4 float tensors (one TQueBind tile carved in two, DataCopy and "
         "Add per tensor between FetchEventID'd MTE2_V / V_MTE2 flags, V_MTE3 before the copy out)"),
        ("_half", "half", 5, 50003, "AccumulateNv2 of 5 half tensors in float (the tile in thirds, the last two "
         "reinterpreted as float; Casts CAST_NONE in and out)"),
        ("_int8", "int8", 3, 50003, "AccumulateNv2 of 3 int8 tensors in half (Cast half -> int8 CAST_NONE "
         "saturating)"),
        ("_int32_single", "int32", 1, 30001, "AccumulateNv2 of one int32 tensor (Duplicate 0 and one Add)"))
]
