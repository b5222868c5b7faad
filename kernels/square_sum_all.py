"""SquareSumAll from the CANN math operators, the Ascend 950 (arch35) kernel: y1 = sum(x1 ** 2), y2 = sum(x2 ** 2)
over two float tensors of one shape, each a single float.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c4193324, math/square_sum_all/op_kernel/arch35/square_sum_all.cpp (the entry: nothing on a cube
core or without a workspace, KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY), SetSysWorkspace, GetUserWorkspace,
GET_TILING_DATA_WITH_STRUCT, a TPipe destroyed at the end), op_kernel/arch35/square_sum_all.h
(`SquareSumAllKernel`: the elements split over the cores, the first `extraCoreCount` cores one more, so the cores
start at unaligned GM elements; depth-2 VECIN queues for x1 and x2 of tileElements floats, a depth-1 VECOUT result
queue of two DataBlocks (y1's running sum at float 0, y2's at float 8), a depth-1 VECIN queue for the merge. Per
tile: a short tile's last vector Duplicated to 0 and ordered before the copy by a FetchEventID'd V_MTE2 flag, the two
DataCopyPads in, and one VF: per whole vector LoadAlign, Mul by itself, Add into a 64-lane accumulator; the tail
vector squared and Reduce SUM'd under its UpdateMask; Reduce SUM of each accumulator plus its tail sum on lane 0
(a CreateMask VL1 mask), plus the tile before's sum read back by a DIST_BRC_B32 LoadAlign, stored by a
DIST_FIRST_ELEMENT_B32 StoreAlign. Then each core's two sums by 4-byte DataCopyPads into a 32-byte slot of two GM
workspace regions, SyncAll, and core 0 reads each region back by one DataCopyPad of usedCoreNum blocks (a 28-byte
source stride, 7 pad floats of 0 a block) and sums it in a second VF (whole vectors added, the tail vector added under
its mask into a zeroed register, Reduce SUM), then DataCopyPads y1 and y2 out), op_kernel/arch35/
square_sum_all_tiling_data.h and op_host/arch35/square_sum_all_tiling.cpp (`FillTiling`: one core per 4096
elements, at most the core count; tiles of at most 4096 elements, whole vectors, within the UB less 8 KB, the result
block and the merge buffer).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). The merge VF's tail vector loads whole
64 floats of the merge buffer, past the usedCoreNum blocks the DataCopyPad writes when fewer than 8 cores run
(the buffer is rounded up to a vector): harmless on the device (the Add's tail mask keeps those lanes out), an
uninitialised read for the sanitizer before session 54 (docs/decisions.md "Sanitizer"; clean with the lane tracking).
The port zeroes them by a Duplicate before the copy (`MergeOneRegion`; kept from before, no longer needed for the
init check); the sums are the original's.

Fidelity: BIT-EXACT (Reg LoadAlign/StoreAlign, Mul, Add, Duplicate and Reduce SUM on float are BIT-EXACT, SPEC-2 0.3;
Reduce SUM's adjacent-pair tree, SPEC-2 11.4). The expectation replays the kernel's float32 order in numpy: per core
and tile, the 64 lane sums of squares vector by vector, their pair tree, plus the tail's pair tree, plus the tiles
before; the cores' sums in the merge's order.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
CORE_NUM = 8                          # deviation: the launch's cores (GetCoreNumAiv in the original)
VECTOR_ELEMENTS = 64                  # VECTOR_REG_WIDTH / sizeof(float)
MAX_TILE_ELEMENTS = 4096
INPUT_QUEUE_COUNT = 2
DOUBLE_BUFFER = 2
UB_RESERVED_BYTES = 8 * 1024
BLOCK_BYTES = 32
FLOATS_PER_BLOCK = BLOCK_BYTES // 4
RESULT_LOCAL_BYTES = 2 * BLOCK_BYTES
WORKSPACE_SLOT_BYTES = 32
WORKSPACE_REGIONS = 2
Y1_LOCAL_OFFSET = 0
Y2_LOCAL_OFFSET = FLOATS_PER_BLOCK

SquareSumAllTilingData = np.dtype([("totalElements", np.int64), ("usedCoreNum", np.int64),
                                   ("baseCoreElements", np.int64), ("extraCoreCount", np.int64),
                                   ("tileElements", np.int64)])


def tiling(device, total):
    """TilingForSquareSumAll / FillTiling: (block dim, the packed tiling data, user workspace bytes)."""
    used = min(max(1, total // MAX_TILE_ELEMENTS), CORE_NUM)
    merge_bytes = aj.CeilDivision(used * WORKSPACE_SLOT_BYTES, VECTOR_ELEMENTS * 4) * VECTOR_ELEMENTS * 4
    fixed = UB_RESERVED_BYTES + RESULT_LOCAL_BYTES + merge_bytes
    tile = min((aj.get_device(device).ub_bytes - fixed) // (INPUT_QUEUE_COUNT * DOUBLE_BUFFER * 4), MAX_TILE_ELEMENTS)
    tile = tile // VECTOR_ELEMENTS * VECTOR_ELEMENTS
    t = np.zeros(1, SquareSumAllTilingData)
    t["totalElements"], t["usedCoreNum"], t["tileElements"] = total, used, tile
    t["baseCoreElements"], t["extraCoreCount"] = total // used, total % used
    return used, t.view(np.uint8).copy(), used * WORKSPACE_SLOT_BYTES * WORKSPACE_REGIONS


def compute_tile_vf(x1Address, x2Address, resultAddress, elementCount, isFirstTile):
    """ComputeTile's __VEC_SCOPE__: this tile's sums of squares added to the running sums at floats 0 and 8."""
    x1Reg, x2Reg, squareReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    accumulator1, accumulator2 = R.RegTensor("float"), R.RegTensor("float")
    reduced1, reduced2 = R.RegTensor("float"), R.RegTensor("float")
    tailReduced1, tailReduced2 = R.RegTensor("float"), R.RegTensor("float")
    previous = R.RegTensor("float")
    fullVectorLoops = elementCount // VECTOR_ELEMENTS
    tailElements = elementCount % VECTOR_ELEMENTS
    allMask = R.CreateMask("float", R.MaskPattern.ALL)
    oneMask = R.CreateMask("float", R.MaskPattern.VL1)
    R.Duplicate(accumulator1, np.float32(0.0), allMask)
    R.Duplicate(accumulator2, np.float32(0.0), allMask)
    R.Duplicate(tailReduced1, np.float32(0.0), allMask)
    R.Duplicate(tailReduced2, np.float32(0.0), allMask)
    for i in range(fullVectorLoops):
        R.LoadAlign(x1Reg, x1Address[i * VECTOR_ELEMENTS], dist=R.LoadDist.DIST_NORM)
        R.Mul(squareReg, x1Reg, x1Reg, allMask)
        R.Add(accumulator1, accumulator1, squareReg, allMask)
        R.LoadAlign(x2Reg, x2Address[i * VECTOR_ELEMENTS], dist=R.LoadDist.DIST_NORM)
        R.Mul(squareReg, x2Reg, x2Reg, allMask)
        R.Add(accumulator2, accumulator2, squareReg, allMask)
    if tailElements > 0:
        tailMask, _ = R.UpdateMask("float", tailElements)
        tailOffset = fullVectorLoops * VECTOR_ELEMENTS
        R.LoadAlign(x1Reg, x1Address[tailOffset], dist=R.LoadDist.DIST_NORM)
        R.Mul(squareReg, x1Reg, x1Reg, tailMask)
        R.Reduce(tailReduced1, squareReg, tailMask, R.ReduceType.SUM)
        R.LoadAlign(x2Reg, x2Address[tailOffset], dist=R.LoadDist.DIST_NORM)
        R.Mul(squareReg, x2Reg, x2Reg, tailMask)
        R.Reduce(tailReduced2, squareReg, tailMask, R.ReduceType.SUM)
    R.Reduce(reduced1, accumulator1, allMask, R.ReduceType.SUM)
    R.Reduce(reduced2, accumulator2, allMask, R.ReduceType.SUM)
    R.Add(reduced1, reduced1, tailReduced1, oneMask)
    R.Add(reduced2, reduced2, tailReduced2, oneMask)
    if not isFirstTile:
        R.LoadAlign(previous, resultAddress[Y1_LOCAL_OFFSET], dist=R.LoadDist.DIST_BRC_B32)
        R.Add(reduced1, reduced1, previous, oneMask)
        R.LoadAlign(previous, resultAddress[Y2_LOCAL_OFFSET], dist=R.LoadDist.DIST_BRC_B32)
        R.Add(reduced2, reduced2, previous, oneMask)
    R.StoreAlign(resultAddress[Y1_LOCAL_OFFSET], reduced1, oneMask, dist=R.StoreDist.DIST_FIRST_ELEMENT_B32)
    R.StoreAlign(resultAddress[Y2_LOCAL_OFFSET], reduced2, oneMask, dist=R.StoreDist.DIST_FIRST_ELEMENT_B32)


def reduce_partials_vf(partialAddress, finalAddress, finalOffset, partialElements):
    """ReducePartials' __VEC_SCOPE__: the cores' sums (one a DataBlock, zeros between) into one float."""
    total, current = R.RegTensor("float"), R.RegTensor("float")
    tailCurrent, reduced = R.RegTensor("float"), R.RegTensor("float")
    fullVectorLoops = partialElements // VECTOR_ELEMENTS
    tailElements = partialElements % VECTOR_ELEMENTS
    allMask = R.CreateMask("float", R.MaskPattern.ALL)
    oneMask = R.CreateMask("float", R.MaskPattern.VL1)
    R.Duplicate(total, np.float32(0.0), allMask)
    for i in range(fullVectorLoops):
        R.LoadAlign(current, partialAddress[i * VECTOR_ELEMENTS], dist=R.LoadDist.DIST_NORM)
        R.Add(total, total, current, allMask)
    if tailElements != 0:
        tailMask, _ = R.UpdateMask("float", tailElements)
        R.Duplicate(tailCurrent, np.float32(0.0), allMask)
        R.LoadAlign(current, partialAddress[fullVectorLoops * VECTOR_ELEMENTS], dist=R.LoadDist.DIST_NORM)
        R.Add(tailCurrent, tailCurrent, current, tailMask)
        R.Add(total, total, tailCurrent, allMask)
    R.Reduce(reduced, total, allMask, R.ReduceType.SUM)
    R.StoreAlign(finalAddress[finalOffset], reduced, oneMask, dist=R.StoreDist.DIST_FIRST_ELEMENT_B32)


COMPUTE_TILE_VF = R.simd_vf(compute_tile_vf)
REDUCE_PARTIALS_VF = R.simd_vf(reduce_partials_vf)


class SquareSumAllKernel:
    def Init(self, x1, x2, y1, y2, userWorkspace, tilingData, pipe):
        self.pipe_ = pipe
        self.blockIdx_ = aj.GetBlockIdx()
        self.usedCoreNum_ = int(tilingData.usedCoreNum)
        self.tileElements_ = int(tilingData.tileElements)
        extra = int(tilingData.extraCoreCount)
        prefixExtra = self.blockIdx_ if self.blockIdx_ < extra else extra
        self.coreStart_ = self.blockIdx_ * int(tilingData.baseCoreElements) + prefixExtra
        self.coreElements_ = int(tilingData.baseCoreElements) + (1 if self.blockIdx_ < extra else 0)
        total = int(tilingData.totalElements)
        self.x1Gm_, self.x2Gm_ = aj.GlobalTensor(), aj.GlobalTensor()
        self.y1Gm_, self.y2Gm_ = aj.GlobalTensor(), aj.GlobalTensor()
        self.x1Gm_.SetGlobalBuffer(x1, total)
        self.x2Gm_.SetGlobalBuffer(x2, total)
        self.y1Gm_.SetGlobalBuffer(y1, 1)
        self.y2Gm_.SetGlobalBuffer(y2, 1)
        region = self.usedCoreNum_ * FLOATS_PER_BLOCK
        self.partial1Gm_, self.partial2Gm_ = aj.GlobalTensor(), aj.GlobalTensor()
        self.partial1Gm_.SetGlobalBuffer(userWorkspace, region, dtype="float")
        self.partial2Gm_.SetGlobalBuffer(userWorkspace[region * 4:], region, dtype="float")
        self.x1Queue_ = aj.TQue(aj.QuePosition.VECIN, DOUBLE_BUFFER)
        self.x2Queue_ = aj.TQue(aj.QuePosition.VECIN, DOUBLE_BUFFER)
        self.resultQueue_ = aj.TQue(aj.QuePosition.VECOUT, 1)
        self.partialQueue_ = aj.TQue(aj.QuePosition.VECIN, 1)
        self.pipe_.InitBuffer(self.x1Queue_, DOUBLE_BUFFER, self.tileElements_ * 4)
        self.pipe_.InitBuffer(self.x2Queue_, DOUBLE_BUFFER, self.tileElements_ * 4)
        self.pipe_.InitBuffer(self.resultQueue_, 1, RESULT_LOCAL_BYTES)
        self.partialBufferElements_ = aj.CeilDivision(region, VECTOR_ELEMENTS) * VECTOR_ELEMENTS
        self.pipe_.InitBuffer(self.partialQueue_, 1, self.partialBufferElements_ * 4)

    def Process(self):
        resultLocal = self.resultQueue_.AllocTensor("float")
        loopCount = aj.CeilDivision(self.coreElements_, self.tileElements_)
        for loopIndex in range(loopCount):
            tileOffset = loopIndex * self.tileElements_
            currentElements = min(self.coreElements_ - tileOffset, self.tileElements_)
            self.CopyIn(self.coreStart_ + tileOffset, currentElements)
            x1Local = self.x1Queue_.DeQue("float")
            x2Local = self.x2Queue_.DeQue("float")
            aj.Reg.asc_vf_call(COMPUTE_TILE_VF, x1Local, x2Local, resultLocal, currentElements, loopIndex == 0)
            self.x1Queue_.FreeTensor(x1Local)
            self.x2Queue_.FreeTensor(x2Local)
        self.resultQueue_.EnQue(resultLocal)
        resultLocal = self.resultQueue_.DeQue("float")
        self.WriteCorePartials(resultLocal)
        self.resultQueue_.FreeTensor(resultLocal)
        aj.SyncAll()
        if self.blockIdx_ == 0:
            finalLocal = self.resultQueue_.AllocTensor("float")
            self.MergeOneRegion(self.partial1Gm_, finalLocal, Y1_LOCAL_OFFSET)
            self.MergeOneRegion(self.partial2Gm_, finalLocal, Y2_LOCAL_OFFSET)
            self.resultQueue_.EnQue(finalLocal)
            finalLocal = self.resultQueue_.DeQue("float")
            self.CopyOut(finalLocal)
            self.resultQueue_.FreeTensor(finalLocal)

    def CopyIn(self, gmOffset, elementCount):
        x1Local = self.x1Queue_.AllocTensor("float")
        x2Local = self.x2Queue_.AllocTensor("float")
        tailElements = elementCount % VECTOR_ELEMENTS
        if tailElements != 0:
            tailOffset = elementCount - tailElements
            aj.Duplicate(x1Local[tailOffset], np.float32(0.0), VECTOR_ELEMENTS)
            aj.Duplicate(x2Local[tailOffset], np.float32(0.0), VECTOR_ELEMENTS)
            eventId = self.pipe_.FetchEventID(aj.HardEvent.V_MTE2)
            aj.SetFlag(eventId, event=aj.HardEvent.V_MTE2)
            aj.WaitFlag(eventId, event=aj.HardEvent.V_MTE2)
        copyParams = aj.DataCopyExtParams(1, elementCount * 4, 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(False, 0, 0, np.float32(0.0))
        aj.DataCopyPad(x1Local, self.x1Gm_[gmOffset], copyParams, padParams)
        aj.DataCopyPad(x2Local, self.x2Gm_[gmOffset], copyParams, padParams)
        self.x1Queue_.EnQue(x1Local)
        self.x2Queue_.EnQue(x2Local)

    def WriteCorePartials(self, resultLocal):
        copyParams = aj.DataCopyExtParams(1, 4, 0, 0, 0)
        workspaceOffset = self.blockIdx_ * FLOATS_PER_BLOCK
        aj.DataCopyPad(self.partial1Gm_[workspaceOffset], resultLocal[Y1_LOCAL_OFFSET], copyParams)
        aj.DataCopyPad(self.partial2Gm_[workspaceOffset], resultLocal[Y2_LOCAL_OFFSET], copyParams)

    def MergeOneRegion(self, partialGm, finalLocal, finalOffset):
        partialLocal = self.partialQueue_.AllocTensor("float")
        written = self.usedCoreNum_ * FLOATS_PER_BLOCK
        if self.partialBufferElements_ > written:
            # not in the original: the merge VF's tail vector reads the buffer past the copied blocks (docstring);
            # those bytes are not the copy's, so the Duplicate needs no flag before the DataCopyPad
            aj.Duplicate(partialLocal[written], np.float32(0.0), self.partialBufferElements_ - written)
        copyParams = aj.DataCopyExtParams(self.usedCoreNum_, 4, BLOCK_BYTES - 4, 0, 0)
        padParams = aj.DataCopyPadExtParams(True, 0, FLOATS_PER_BLOCK - 1, np.float32(0.0))
        aj.DataCopyPad(partialLocal, partialGm, copyParams, padParams)
        self.partialQueue_.EnQue(partialLocal)
        partialLocal = self.partialQueue_.DeQue("float")
        aj.Reg.asc_vf_call(REDUCE_PARTIALS_VF, partialLocal, finalLocal, finalOffset, written)
        self.partialQueue_.FreeTensor(partialLocal)

    def CopyOut(self, finalLocal):
        copyParams = aj.DataCopyExtParams(1, 4, 0, 0, 0)
        aj.DataCopyPad(self.y1Gm_, finalLocal[Y1_LOCAL_OFFSET], copyParams)
        aj.DataCopyPad(self.y2Gm_, finalLocal[Y2_LOCAL_OFFSET], copyParams)


aj.REGISTER_TILING_DEFAULT(SquareSumAllTilingData)


def square_sum_all(x1, x2, y1, y2, workspace, tiling_bytes):
    """The kernel entry."""
    if aj.ASCEND_IS_AIC() or workspace is None:
        return
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    aj.SetSysWorkspace(workspace)
    userWorkspace = aj.GetUserWorkspace(workspace)
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(SquareSumAllTilingData, tiling_bytes)
    pipe = aj.TPipe()
    op = SquareSumAllKernel()
    op.Init(x1, x2, y1, y2, userWorkspace, tilingData, pipe)
    op.Process()
    pipe.Destroy()


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    return {"x1": rng.uniform(-2.0, 2.0, size).astype(np.float32),
            "x2": rng.standard_normal(size).astype(np.float32) * np.float32(1e-3)}


def run(device, inputs):
    x1, x2 = inputs["x1"], inputs["x2"]
    y1, y2 = np.zeros(1, np.float32), np.zeros(1, np.float32)
    block_dim, tiling_bytes, user_bytes = tiling(device, x1.size)
    workspace = np.zeros(aj.GetLibApiWorkSpaceSize(device) + user_bytes, np.uint8)
    aj.launch(square_sum_all, block_dim, device, x1, x2, y1, y2, workspace, tiling_bytes)
    return {"y1": y1, "y2": y2}


def _pair_tree(lanes):
    """Reg Reduce SUM over 64 float lanes: adjacent pairs, level by level, each add rounded to float."""
    v = lanes.astype(np.float32)
    while v.size > 1:
        v = v[0::2] + v[1::2]
    return v[0]


def _core_sum(x, tile):
    """One core's ComputeTile sequence over its elements: the running float sum after its last tile."""
    running = np.float32(0.0)
    for t0 in range(0, x.size, tile):
        part = x[t0:t0 + tile]
        full = part.size // VECTOR_ELEMENTS * VECTOR_ELEMENTS
        acc = np.zeros(VECTOR_ELEMENTS, np.float32)
        for v in part[:full].reshape(-1, VECTOR_ELEMENTS):
            acc = acc + v * v
        tail = np.zeros(VECTOR_ELEMENTS, np.float32)
        tail[:part.size - full] = part[full:] * part[full:]
        s = np.float32(_pair_tree(acc) + _pair_tree(tail) if part.size > full else _pair_tree(acc) + np.float32(0))
        running = s if t0 == 0 else np.float32(s + running)
    return running


def expected(device, inputs):
    out = {}
    for name, key in (("y1", "x1"), ("y2", "x2")):
        x = inputs[key]
        used, tiling_bytes, _ = tiling(device, x.size)
        t = tiling_bytes.view(SquareSumAllTilingData)[0]
        base, extra, tile = int(t["baseCoreElements"]), int(t["extraCoreCount"]), int(t["tileElements"])
        partials = np.zeros(aj.CeilDivision(used * FLOATS_PER_BLOCK, VECTOR_ELEMENTS) * VECTOR_ELEMENTS, np.float32)
        start = 0
        for c in range(used):
            n = base + (1 if c < extra else 0)
            partials[c * FLOATS_PER_BLOCK] = _core_sum(x[start:start + n], tile)
            start += n
        total = np.zeros(VECTOR_ELEMENTS, np.float32)
        for v in partials.reshape(-1, VECTOR_ELEMENTS):
            total = total + v            # the merge's tail vector: + 0 past the copied blocks, as the mask gives
        out[name] = np.array([_pair_tree(total)], np.float32)
    return out


def _size_ok(n):
    return 0 < n <= 1 << 24


KERNELS = [
    KernelSpec("square_sum_all", "SquareSumAll, 950 RegBase: per tile a VF of LoadAlign, Mul, Add into 64 lanes, "
               "Reduce SUM of the accumulator and of the UpdateMask'd tail, a running sum by DIST_BRC_B32 load and "
               "DIST_FIRST_ELEMENT_B32 store; unaligned core starts, per-core sums through GM workspace slots, "
               "SyncAll, core 0's strided padded DataCopyPad and merge VF", make_inputs, run, expected,
               default_size=100000, devices=("ascend950",), size_rule="1 to 16Mi elements", size_ok=_size_ok,
               source="hicann/ops-math@c4193324 math/square_sum_all/op_kernel/arch35/square_sum_all.h"),
]
