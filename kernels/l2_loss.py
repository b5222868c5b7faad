"""L2Loss from the CANN NN operators: y = sum(x * x) / 2 over float, half and bfloat16 (computed in float as
sum((x / sqrt 2)^2)), on one core or on several merged through a GM workspace cleared by InitGlobalMemory.

Ported (structure and instruction sequence; written in our own words) from hicann/ops-nn @ e5c3fa932,
experimental/loss/l2_loss/op_kernel/l2_loss.h (`NsL2Loss::L2Loss<T, schMode>`: a double-buffered VECIN queue of one
tile, a float TBuf for the widened tile unless T is float, a 16-float staging TBuf and a 16-float ReduceSum result
TBuf; schMode 1 (several cores): core 0 clears the 16-float workspace slot by `InitGlobalMemory(workGm, 16, 0.0f)`
and every core waits at `SyncAll<true>()` (`aj.SyncAll(is_aiv_only=True)`); the tile loop prefetches the next tile
(DataCopy, or for the last tile DataCopyPad of the valid bytes with DataCopyPadExtParams<T>{true, 0, 0, 0}), widens
it (Cast CAST_NONE) unless T is float (then the queue tensor ReinterpretCast to float), Muls by 0.70710678f, Mul by
itself, ReduceSum into the result TBuf with a sharedTmpBuffer, and adds its GetValue(0) to a float on the scalar
unit; then Duplicate 0 over the staging TBuf, SetValue(0, sum), and either (one core) DataCopyPad of the float or of
its Cast to T (CAST_ROUND, 16 lanes) to y, or SetAtomicAdd<float>, DataCopy of the 16 floats to the workspace,
SetAtomicNone, DataCacheCleanAndInvalid of the slot, SyncAll<true>(), and core 0 reads the slot by GetValue,
SetValue's it into the staging TBuf and copies it (or its Cast) to y) with the host tiling of
experimental/loss/l2_loss/op_host/l2_loss_tiling.cpp (`L2LossTilingFunc`: tiles of (UB - 128) / 8 bytes in whole
32-byte blocks; one core when a tile holds the input, else the element-count table's cores (float: 2 up to 32 Ki
elements, 12 up to 1 Mi; half/bf16: 4, then 12) capped by the cores and the blocks; the big/small core split of
ascend_jit.kernels._base.big_small_core_tiling).

Deviations: the core count is capped at the launch's 8 (GetCoreNumAiv would give the device's). The original reads
ReduceSum's result by GetValue straight after the ReduceSum, writes the staging TBuf by SetValue straight after a
Duplicate, and copies or Casts it straight after the SetValue, with no V -> S, V -> S and S -> MTE3 / S -> V
synchronisation (races the sanitizer reports; the device needs them too): the port adds SetFlag/WaitFlag pairs with
ids fetched from the pipe (V_S before each GetValue and before the SetValue, S_MTE3 or S_V after it), the devkit's
own idiom (its InitGlobalMemory fetches its V_MTE3 id the same way).

Devices: the A2 and A3. The original's ReduceSum sharedTmpBuffer is the 16-float staging TBuf (float) or the very
float tile it reduces (half, bfloat16); the A2/A3 count-form ReduceSum never touches it (docs/decisions.md
"ReduceSum sharedTmpBuffer minimum"), but the 950's needs ceil(count / 64) floats there, rounded to a block (200 for
a 12504-float tile: refused, D11/D18) and the 310B's may not overlap its source (refused, SPEC 4.5): not portable
there as written. Besides, InitGlobalMemory is built for the 950, A2, A3 and 310P, the hard SyncAll for the 950, A2
and A3, and DataCopyPad leaves out the 310P. The port's flags are TQueSync pairs where the ISASI SetFlag is missing
(the 310B, unused).

The last tile's DataCopyPad pads with isPad true but no left or right padding; the original's comment expects zeros
in the lanes up to the 32-byte boundary, but the emulator's dummy bytes then repeat the copy's first element
(docs/decisions.md "DataCopyPad fill order", hardware question H-13), so at a size that leaves a core's data short
of a whole block the sum counts that element once more per dummy lane. The port keeps the original; its expectation
is the emulator's (a hardware-checklist question, not a deviation).

Fidelity: BIT-EXACT (Cast, Muls, Mul, ReduceSum, Duplicate, DataCopyPad and the atomic float add are BIT-EXACT,
SPEC-2 0.3; the scalar sum is float32 addition in order): checked bit for bit against the same float operations
composed from the reference model, each tile's ReduceSum by the device's tree (aj.explain_reduce_order), the
partials added into the zeroed slot in the launch's atomic order (block by block, docs/decisions.md "Atomics across
blocks"), and the narrowing Cast with CAST_ROUND.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

BUFFER_NUM = 2
BLOCK_SIZE = 32
CORE_NUM = 8
SLOT_STRIDE = 64 // 4
FIXED_UB_BYTES = 2 * SLOT_STRIDE * 4
INV_SQRT2 = np.float32(0.70710678118654752)
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
# (upper element count, cores) per the tiling's scan tables
_BUCKETS = {True: ((32 << 10, 2), (1 << 20, 12), (2 << 20, 16), (4 << 20, 24), (8 << 20, 28), (32 << 20, 32)),
            False: ((32 << 10, 4), (1 << 20, 12), (4 << 20, 20), (8 << 20, 24), (16 << 20, 32), (32 << 20, 40))}
DEVICES = ("atlas-a3", "atlas-a2")


def tiling(device, total, dtype):
    """L2LossTilingFunc: (coreNum, tiling data)."""
    size = TYPE_SIZE[dtype]
    per_elem = BUFFER_NUM * size + (0 if dtype == "float" else 4)
    tile = (aj.get_device(device).ub_bytes - FIXED_UB_BYTES) // per_elem // (BLOCK_SIZE // size) * (BLOCK_SIZE // size)
    blocks = -(-total * size // BLOCK_SIZE)
    if tile >= total:
        core_num = 1
    else:
        requested = next((c for upper, c in _BUCKETS[dtype == "float"] if total <= upper), 40)
        core_num = max(1, min(CORE_NUM, blocks, requested))
    small, big, tail_block_num = big_small_core_tiling(total, size, tile, core_num)
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num, tileDataNum=tile,
                          smallTailDataNum=small.tail_data_num, bigTailDataNum=big.tail_data_num,
                          finalSmallTileNum=small.tile_num, finalBigTileNum=big.tile_num,
                          tailBlockNum=tail_block_num, inputNum=total, blockNum=core_num)


class L2Loss:
    def __init__(self, T, schMode):
        self.T, self.schMode = T, schMode

    def _flag(self, event):
        """The port's ordering (module docstring): a fetched id of `event`, set and waited at once."""
        if self.isasi:
            event_id = self.pipe.FetchEventID(event)
            aj.SetFlag(event_id, event=event)
            aj.WaitFlag(event_id, event=event)
        else:
            sync = aj.TQueSync(*event.pipes)
            sync.SetFlag(0)
            sync.WaitFlag(0)

    def Init(self, x, z, workspace, tilingData):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        self.blockIdx, self.blockNum = aj.GetBlockIdx(), aj.GetBlockNum()
        globalBufferIndex = tilingData["bigCoreDataNum"] * self.blockIdx
        self.tileDataNum = tilingData["tileDataNum"]
        if self.blockIdx < tilingData["tailBlockNum"]:
            self.coreDataNum = tilingData["bigCoreDataNum"]
            self.tileNum = tilingData["finalBigTileNum"]
            self.tailDataNum = tilingData["bigTailDataNum"]
        else:
            self.coreDataNum = tilingData["smallCoreDataNum"]
            self.tileNum = tilingData["finalSmallTileNum"]
            self.tailDataNum = tilingData["smallTailDataNum"]
            globalBufferIndex -= (tilingData["bigCoreDataNum"] - tilingData["smallCoreDataNum"]) * \
                (self.blockIdx - tilingData["tailBlockNum"])
        inputNum = tilingData["inputNum"]
        self.validCoreDataNum = min(max(inputNum - globalBufferIndex, 0), self.coreDataNum)
        self.xGm, self.zGm, self.workGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.zGm.SetGlobalBuffer(z, 1)
        workGmSize = SLOT_STRIDE
        if self.T == "float" and self.schMode == 0:
            self.workGm.SetGlobalBuffer(z.view(np.float32), 1)     # never used: one core writes through zGm
        else:
            self.workGm.SetGlobalBuffer(workspace, workGmSize)
        self.pipe = aj.TPipe()
        self.isasi = aj.get_device(self.pipe.core.device).isasi_flags
        if self.schMode != 0:
            if aj.GetBlockIdx() == 0:
                aj.InitGlobalMemory(self.workGm, workGmSize, np.float32(0.0))
            aj.SyncAll(is_aiv_only=True)
        self.inQueueInput = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.tmpFloat, self.tmpBuffer, self.tileSumBuf = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(3))
        self.pipe.InitBuffer(self.inQueueInput, BUFFER_NUM, self.tileDataNum * TYPE_SIZE[self.T])
        if self.T != "float":
            self.pipe.InitBuffer(self.tmpFloat, self.tileDataNum * 4)
        self.pipe.InitBuffer(self.tmpBuffer, workGmSize * 4)
        self.pipe.InitBuffer(self.tileSumBuf, SLOT_STRIDE * 4)
        processedBeforeLastTile = (self.tileNum - 1) * self.tileDataNum
        self.lastTileValidLen = max(self.validCoreDataNum - processedBeforeLastTile, 0)

    def CopyIn(self, progress):
        gmOffset = progress * self.tileDataNum
        xLocal = self.inQueueInput.AllocTensor(self.T)
        if progress == self.tileNum - 1:
            copyParams = aj.DataCopyExtParams(1, self.lastTileValidLen * TYPE_SIZE[self.T], 0, 0, 0)
            padParams = aj.DataCopyPadExtParams(True, 0, 0, _NP[self.T](0))
            aj.DataCopyPad(xLocal, self.xGm[gmOffset], copyParams, padParams)
        else:
            aj.DataCopy(xLocal, self.xGm[gmOffset], self.tileDataNum)
        self.inQueueInput.EnQue(xLocal)

    def _tile_sum(self, n, tileSumTensor, reduceWork):
        tileLocal = self.inQueueInput.DeQue(self.T)
        if self.T == "float":
            tileFloat = tileLocal.ReinterpretCast("float")
        else:
            tileFloat = self.tmpFloat.Get("float")
            aj.Cast(tileFloat, tileLocal, aj.RoundMode.CAST_NONE, n)
        aj.Muls(tileFloat, tileFloat, INV_SQRT2, n)
        aj.Mul(tileFloat, tileFloat, tileFloat, n)
        aj.ReduceSum(tileSumTensor, tileFloat, reduceWork, n)
        self._flag(aj.HardEvent.V_S)                   # deviation: the GetValue reads the ReduceSum's result
        value = tileSumTensor.GetValue(0)
        self.inQueueInput.FreeTensor(tileLocal)
        return value

    def _store(self, src):
        """Copy the float at src[0] (or its Cast to T) to y."""
        if self.T == "float":
            self._flag(aj.HardEvent.S_MTE3)            # deviation: the copy reads the SetValue
            aj.DataCopyPad(self.zGm, src, aj.DataCopyExtParams(1, 4, 0, 0, 0))
        else:
            self._flag(aj.HardEvent.S_V)               # deviation: the Cast reads the SetValue
            dstBuf = self.tileSumBuf.Get(self.T)
            aj.Cast(dstBuf, src, aj.RoundMode.CAST_ROUND, 16)
            self._flag(aj.HardEvent.V_MTE3)            # deviation: the copy reads the Cast
            aj.DataCopyPad(self.zGm, dstBuf, aj.DataCopyExtParams(1, TYPE_SIZE[self.T], 0, 0, 0))

    def Process(self):
        tileSumTensor = self.tileSumBuf.Get("float")
        reduceWork = self.tmpBuffer.Get("float") if self.T == "float" else self.tmpFloat.Get("float")
        localSum = np.float32(0.0)
        self.CopyIn(0)
        for t in range(self.tileNum - 1):
            self.CopyIn(t + 1)
            localSum = np.float32(localSum + self._tile_sum(self.tileDataNum, tileSumTensor, reduceWork))
        localSum = np.float32(localSum + self._tile_sum(self.tailDataNum, tileSumTensor, reduceWork))
        tmpBuf = self.tmpBuffer.Get("float")
        aj.Duplicate(tmpBuf, np.float32(0.0), SLOT_STRIDE)
        self._flag(aj.HardEvent.V_S)                   # deviation: the SetValue writes over the Duplicate
        tmpBuf.SetValue(0, localSum)
        if self.schMode == 0:
            self._store(tmpBuf)
            return
        self._flag(aj.HardEvent.S_MTE3)                # deviation: the atomic copy reads the SetValue
        aj.SetAtomicAdd("float")
        aj.DataCopy(self.workGm, tmpBuf, SLOT_STRIDE)
        aj.SetAtomicNone()
        aj.DataCacheCleanAndInvalid(self.workGm[0], entire_type=aj.CacheLine.SINGLE_CACHE_LINE,
                                    dcci_dst=aj.DcciDst.CACHELINE_OUT)
        aj.SyncAll(is_aiv_only=True)
        if self.blockIdx == 0:
            globalSum = self.workGm.GetValue(0)
            srcBuf = self.tmpBuffer.Get("float")
            srcBuf.SetValue(0, globalSum)
            self._store(srcBuf)


def l2_loss(x, z, workspace, tiling_data, dtype, sch_mode):
    op = L2Loss(dtype, sch_mode)
    op.Init(x, z, workspace, tiling_data)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        return {"x": (rng.standard_normal(size) * 0.5).astype(np.float32).astype(_NP[dtype])}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        padded = -(-x.size * x.itemsize // BLOCK_SIZE) * BLOCK_SIZE // x.itemsize
        gm_x = np.zeros(padded, x.dtype)
        gm_x[:x.size] = x
        z = np.zeros(SLOT_STRIDE, x.dtype)          # y: one element, in a 32-byte allocation
        workspace = np.full(SLOT_STRIDE, 7.0, np.float32)    # stale: InitGlobalMemory must clear it
        block_dim, tiling_data = tiling(device, x.size, dtype)
        aj.launch(l2_loss, block_dim, device, gm_x, z, workspace, tiling_data, dtype, 0 if block_dim == 1 else 1)
        return {"y": z[:1]}
    return run


def _expected(dtype):
    def expected(device, inputs):
        """Muls and Mul in float through the reference model; per tile the device's ReduceSum tree, added in float;
        the per-core sums added into a zero in block order; CAST_ROUND to half / bfloat16."""
        from ascend_jit.reference import elementwise as ref
        from ascend_jit.reference import convert
        core = aj.Core(device)
        env = ref.Env(device, sat_half=core.half_saturating, sat_int=core.int_saturating)
        x = inputs["x"]
        xf = np.asarray(x.astype(np.float32), np.float64)
        scaled = np.asarray(ref.mul("float", env, xf, float(INV_SQRT2)), np.float64)
        sq = np.asarray(ref.mul("float", env, scaled, scaled), np.float32)
        block_num, t = tiling(device, x.size, dtype)
        total, offset = np.float32(0.0), 0
        for block in range(block_num):
            big = block < t["tailBlockNum"]
            data = t["bigCoreDataNum"] if big else t["smallCoreDataNum"]
            chunk = np.zeros(data, np.float32)
            valid = sq[offset:offset + data]
            chunk[:valid.size] = valid
            # the last tile's DataCopyPad (isPad, no left or right padding) fills its dummy lanes with the copy's
            # first element (docs/decisions.md "DataCopyPad fill order", H-13): they are reduced with the rest
            last_start = (-(-data // t["tileDataNum"]) - 1) * t["tileDataNum"]
            if valid.size < data:
                chunk[valid.size:] = chunk[last_start]
            partial = np.float32(0.0)
            for start in range(0, data, t["tileDataNum"]):
                tile = chunk[start:start + t["tileDataNum"]]
                tree = aj.explain_reduce_order(device, "count", "float", count=tile.size)
                partial = np.float32(partial + np.float32(tree.evaluate_batch(tile[None, :])[0]))
            total = np.float32(total + partial)
            offset += data
        if dtype == "float":
            return {"y": np.array([total], np.float32)}
        bits = convert.convert("float", dtype, "CAST_ROUND", np.array([total], np.float32).view(np.uint32), False,
                               core.half_saturating)
        return {"y": np.asarray(bits, np.uint16).view(_NP[dtype])}
    return expected


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/loss/l2_loss/op_kernel/l2_loss.h"
KERNELS = [
    KernelSpec("l2_loss", "L2Loss over floats on 8 cores (two tiles each): InitGlobalMemory clears the workspace "
               "slot, SyncAll; per tile Muls 1/sqrt2, Mul, ReduceSum, a scalar float sum; SetAtomicAdd of the "
               "partials, DataCacheCleanAndInvalid, SyncAll, core 0 copies the slot out", _make_inputs("float"),
               _run("float"), _expected("float"), default_size=300000, devices=DEVICES, source=_SOURCE),
    KernelSpec("l2_loss_half", "L2Loss over halves (Cast to float; the result Cast back with CAST_ROUND)",
               _make_inputs("half"), _run("half"), _expected("half"), default_size=300000,
               devices=DEVICES, source=_SOURCE),
    KernelSpec("l2_loss_single_bf16", "L2Loss over bfloat16 on one core (no workspace: the sum Cast with "
               "CAST_ROUND and copied out by DataCopyPad)", _make_inputs("bfloat16"), _run("bfloat16"),
               _expected("bfloat16"), default_size=5000, size_rule="1 to the UB tile (one core)",
               size_ok=lambda n: 0 < n <= 24560, devices=DEVICES,
               source=_SOURCE),
]
