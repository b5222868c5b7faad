"""Real from the CANN math operators: y = the real parts of a complex64 or complex32 tensor (read as float or half
pairs) by GatherMask's built-in pattern 1 (even lanes), in place in whole 256-byte repeats or, for a single core
whose input is not whole repeats, into an output queue in counter mode; float and half inputs are copied through.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/real/op_kernel/real_kernel.h and
real.cpp (`RealNs::RealKernel<S, T>` on a caller-made TPipe, by tiling key: complex32 <int32_t, half>, complex64
<int64_t, float>, float16 <half, half>, float <float, float>; the complex input's GlobalTensor is T pairs.
`ProcessComplexTiling`: a double-buffered VECIN queue of ubPartDataNum pairs, the next tile's DataCopyPad
(DataCopyExtParams, DataCopyPadExtParams<T>{false, 0, 0, 0}) issued before the current tile's in-place
`GatherMask(src, src, 1, false, 0, {1, 4, 8, 0} with repeatTimes = 2n * sizeof(T) / 256, rsvdCnt)` and
PipeBarrier<PIPE_V>, then DataCopyPad of n elements out of the same tile; `ProcessComplexNonInplace`: per tile
DataCopyPad in, `GatherMask(dst, src, 1, true, 2n, params with repeatTimes 1, rsvdCnt)` into a VECOUT queue,
DataCopyPad out; `ProcessRealIdentity`: a double-buffered TQueBind<VECIN, VECOUT> prefetching the next tile, each
tile copied GM -> UB -> GM by DataCopyPad) with the host tiling of experimental/math/real/op_host/real_tiling.cpp
(`CalcRealTilingParam`: (UB - 256) / (4 complex, 2 real) / 2 bytes a tile in 128-byte (complex) or 32-byte blocks;
one core when a tile holds the input, else the big/small core split over those blocks; `SetSingleCore`: a complex
input of fewer than 256 bytes or not whole 256 bytes takes the non-inplace path with tiles of (UB - 256) / 6 / 2).

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv would give the device's). The multi-core split
counts the input in 128-byte blocks, so the last core reads and writes up to 127 bytes past the data: the host pads
GM to them, past the 32 bytes device allocations are rounded to. The in-place path copies each tile out straight
after its GatherMask with no V -> MTE3 synchronisation (the VECIN queue's DeQue orders MTE2 -> V only): a RAW race
on the tile (the sanitizer reports it), so the port adds a TQueSync<PIPE_V, PIPE_MTE3> SetFlag/WaitFlag pair after
the PipeBarrier (TQueSync rather than the ISASI SetFlag<V_MTE3>, which the 310B does not offer).

Not portable as written: a single-core complex input of more elements than the non-inplace path's tile (A2/A3:
4065 to 6112 complex64 elements whose bytes are not whole 256-byte repeats; 310B: to 7904) is copied in whole into
a queue buffer sized for that smaller tile (SetSingleCore shrinks the tile but keeps one tile of the whole input):
the DataCopyPad would write past the buffer (on the device, into the next buffer), which the emulator refuses; the
kernels refuse those sizes (size_rule).

Devices: GatherMask leaves out the 910, DataCopyPad the 310P and 910 (SPEC-2 1.9), and the operator's tiling
declines the 950 (IsCapable: a regbase SoC takes another implementation): the A2, A3 and 310B.

Fidelity: BIT-EXACT (GatherMask and DataCopyPad move bits, SPEC-2 0.3): checked bit for bit against the even
elements of the pairs.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

REAL_BLOCK_SIZE = 32
REAL_BUFFER_NUM = 2
RESERVED_UB_SIZE = 256
GATHER_MASK_ALIGN_BYTES = 128
COMPLEX_COEFFICIENT = 2
DEPTH_NUM = 1
CORE_NUM = 8
DEVICES = ("atlas-a3", "atlas-a2", "atlas-200i-500-a2")
TYPE_SIZE = {"float": 4, "half": 2}


def tiling(device, total, dtype, complex_input):
    """CalcRealTilingParam: (totalUsedCoreNum, tiling data)."""
    size = TYPE_SIZE[dtype]
    align = GATHER_MASK_ALIGN_BYTES if complex_input else REAL_BLOCK_SIZE
    ub_available = max(1, aj.get_device(device).ub_bytes - RESERVED_UB_SIZE)
    ub_part_data_num = ub_available // (4 if complex_input else 2) // REAL_BUFFER_NUM // align * align // size
    total_blocks = -(-total * size // align)
    core_num = min(CORE_NUM, total_blocks) if ub_part_data_num < total else 1
    data = dict(tailBlockNum=0, bigCoreDataNum=0, bigCoreLoopNum=0, bigCoreTailDataNum=0, useNonInplace=0)
    if core_num == 1:       # SetSingleCore
        source_bytes = total * COMPLEX_COEFFICIENT * size
        if complex_input and (source_bytes < 256 or source_bytes % 256 != 0):
            data["useNonInplace"] = 1
            ub_part_data_num = ub_available // 6 // REAL_BUFFER_NUM // align * align // size
        data.update(ubPartDataNum=ub_part_data_num, smallCoreDataNum=total, smallCoreLoopNum=1,
                    smallCoreTailDataNum=total)
        return 1, data

    def split(core_blocks):
        core_data = core_blocks * align // size
        loops = -(-core_data // ub_part_data_num)
        return core_data, loops, core_data - ub_part_data_num * (loops - 1) or ub_part_data_num

    every, tail_block_num = divmod(total_blocks, core_num)
    data.update(ubPartDataNum=ub_part_data_num, tailBlockNum=tail_block_num)
    data["smallCoreDataNum"], data["smallCoreLoopNum"], data["smallCoreTailDataNum"] = split(every)
    if tail_block_num:
        data["bigCoreDataNum"], data["bigCoreLoopNum"], data["bigCoreTailDataNum"] = split(every + 1)
    return core_num, data


def size_ok(dtype, complex_input):
    """The sizes the original handles: not a single-core non-inplace input larger than that path's tile."""
    def ok(n):
        if n <= 0:
            return False
        return all(n <= data["ubPartDataNum"] or core_num > 1
                   for core_num, data in (tiling(d, n, dtype, complex_input) for d in DEVICES))
    return ok


class RealKernel:
    def __init__(self, S, T):
        self.S, self.T = S, T

    def ExtractRealPart(self, src, count):
        GATHER_MASK_MODE_ONE = 1
        params = aj.GatherMaskParams(1, 4, 8, 0)
        params.repeatTimes = count * COMPLEX_COEFFICIENT * TYPE_SIZE[self.T] // 256
        mask = 0
        aj.GatherMask(src, src, GATHER_MASK_MODE_ONE, False, mask, params)
        aj.PipeBarrier(aj.PIPE_V)

    def ExtractRealPartNonInplace(self, dst, src, count):
        GATHER_MASK_MODE_ONE = 1
        params = aj.GatherMaskParams()
        params.repeatTimes = 1
        mask = count * COMPLEX_COEFFICIENT
        aj.GatherMask(dst, src, GATHER_MASK_MODE_ONE, True, mask, params)
        aj.PipeBarrier(aj.PIPE_V)

    def Init(self, x, y, tilingData, pipeIn):
        self.pipe_ = pipeIn
        self.blockIdx_ = aj.GetBlockIdx()
        globalOffset = tilingData["bigCoreDataNum"] * self.blockIdx_
        if tilingData["tailBlockNum"] > 0 and self.blockIdx_ < tilingData["tailBlockNum"]:
            self.blockLength = tilingData["bigCoreDataNum"]
            self.loopOfCore = tilingData["bigCoreLoopNum"]
            self.tailOfCore = tilingData["bigCoreTailDataNum"]
        else:
            self.blockLength = tilingData["smallCoreDataNum"]
            self.loopOfCore = tilingData["smallCoreLoopNum"]
            self.tailOfCore = tilingData["smallCoreTailDataNum"]
            if tilingData["bigCoreDataNum"] > 0:
                globalOffset -= (tilingData["bigCoreDataNum"] - tilingData["smallCoreDataNum"]) * \
                    (self.blockIdx_ - tilingData["tailBlockNum"])
        self.perOfCore = tilingData["ubPartDataNum"]
        self.useNonInplace_ = tilingData["useNonInplace"]
        self.blockOffset = globalOffset
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        if self.S == self.T:
            self.xGm.SetGlobalBuffer(x[self.blockOffset:], self.blockLength)
        else:
            self.xGm.SetGlobalBuffer(x[self.blockOffset * COMPLEX_COEFFICIENT:],
                                     self.blockLength * COMPLEX_COEFFICIENT)
        self.yGm.SetGlobalBuffer(y[self.blockOffset:], self.blockLength)
        self.inQueue = aj.TQue(aj.QuePosition.VECIN, DEPTH_NUM)
        self.outQueue = aj.TQue(aj.QuePosition.VECOUT, DEPTH_NUM)
        self.ioQueue = aj.TQueBind(aj.QuePosition.VECIN, aj.QuePosition.VECOUT, DEPTH_NUM)
        self.vToMte3 = aj.TQueSync(aj.PIPE_V, aj.PIPE_MTE3)     # the port's addition (module docstring)

    def _copy_params(self, n):
        return aj.DataCopyExtParams(1, n * TYPE_SIZE[self.T], 0, 0, 0)

    def ProcessComplexTiling(self):
        T, size = self.T, TYPE_SIZE[self.T]
        self.pipe_.InitBuffer(self.inQueue, REAL_BUFFER_NUM, self.perOfCore * size * COMPLEX_COEFFICIENT)
        currentOffset = 0
        padParams = aj.DataCopyPadExtParams(False, 0, 0, 0)
        firstTileLen = self.perOfCore if self.loopOfCore > 1 else self.tailOfCore
        xLocal = self.inQueue.AllocTensor(T)
        aj.DataCopyPad(xLocal, self.xGm[0], self._copy_params(firstTileLen * COMPLEX_COEFFICIENT), padParams)
        self.inQueue.EnQue(xLocal)
        for loopIdx in range(self.loopOfCore):
            curLen = self.perOfCore if loopIdx < self.loopOfCore - 1 else self.tailOfCore
            inputLocal = self.inQueue.DeQue(T)
            if loopIdx + 1 < self.loopOfCore:
                nextLen = self.perOfCore if loopIdx + 1 < self.loopOfCore - 1 else self.tailOfCore
                nextBuf = self.inQueue.AllocTensor(T)
                aj.DataCopyPad(nextBuf, self.xGm[(currentOffset + curLen) * COMPLEX_COEFFICIENT],
                               self._copy_params(nextLen * COMPLEX_COEFFICIENT), padParams)
                self.inQueue.EnQue(nextBuf)
            self.ExtractRealPart(inputLocal, curLen)
            # deviation (module docstring): the copy-out reads what the GatherMask wrote
            self.vToMte3.SetFlag(0)
            self.vToMte3.WaitFlag(0)
            aj.DataCopyPad(self.yGm[currentOffset], inputLocal, self._copy_params(curLen))
            self.inQueue.FreeTensor(inputLocal)
            currentOffset += curLen

    def ProcessComplexNonInplace(self):
        T, size = self.T, TYPE_SIZE[self.T]
        self.pipe_.InitBuffer(self.inQueue, REAL_BUFFER_NUM, self.perOfCore * size * COMPLEX_COEFFICIENT)
        self.pipe_.InitBuffer(self.outQueue, REAL_BUFFER_NUM, self.perOfCore * size)
        currentOffset = 0
        padParams = aj.DataCopyPadExtParams(False, 0, 0, 0)
        for loopIdx in range(self.loopOfCore):
            curLen = self.perOfCore if loopIdx < self.loopOfCore - 1 else self.tailOfCore
            complexTileLen = curLen * COMPLEX_COEFFICIENT
            xLocal = self.inQueue.AllocTensor(T)
            aj.DataCopyPad(xLocal, self.xGm[currentOffset * COMPLEX_COEFFICIENT], self._copy_params(complexTileLen),
                           padParams)
            self.inQueue.EnQue(xLocal)
            inputLocal = self.inQueue.DeQue(T)
            result = self.outQueue.AllocTensor(T)
            self.ExtractRealPartNonInplace(result, inputLocal, curLen)
            self.outQueue.EnQue(result)
            self.inQueue.FreeTensor(inputLocal)
            output = self.outQueue.DeQue(T)
            aj.DataCopyPad(self.yGm[currentOffset], output, self._copy_params(curLen))
            self.outQueue.FreeTensor(output)
            currentOffset += curLen

    def ProcessRealIdentity(self):
        T = self.T
        self.pipe_.InitBuffer(self.ioQueue, REAL_BUFFER_NUM, self.perOfCore * TYPE_SIZE[T])
        currentOffset = 0
        padParams = aj.DataCopyPadExtParams(False, 0, 0, 0)
        firstTileLen = self.perOfCore if self.loopOfCore > 1 else self.tailOfCore
        firstBuf = self.ioQueue.AllocTensor(T)
        aj.DataCopyPad(firstBuf, self.xGm[0], self._copy_params(firstTileLen), padParams)
        self.ioQueue.EnQue(firstBuf)
        for loopIdx in range(self.loopOfCore):
            curLen = self.perOfCore if loopIdx < self.loopOfCore - 1 else self.tailOfCore
            inputLocal = self.ioQueue.DeQue(T)
            if loopIdx + 1 < self.loopOfCore:
                nextLen = self.perOfCore if loopIdx + 1 < self.loopOfCore - 1 else self.tailOfCore
                nextBuf = self.ioQueue.AllocTensor(T)
                aj.DataCopyPad(nextBuf, self.xGm[currentOffset + curLen], self._copy_params(nextLen), padParams)
                self.ioQueue.EnQue(nextBuf)
            aj.DataCopyPad(self.yGm[currentOffset], inputLocal, self._copy_params(curLen))
            self.ioQueue.FreeTensor(inputLocal)
            currentOffset += curLen

    def Process(self):
        if self.S == self.T:
            self.ProcessRealIdentity()
        elif self.useNonInplace_:
            self.ProcessComplexNonInplace()
        else:
            self.ProcessComplexTiling()


# tiling key -> (S, T): the complex types' S is an integer of the pair's size, as the original's template list has it
_MODES = {"complex32": ("int32", "half"), "complex64": ("int64", "float"), "float16": ("half", "half"),
          "float": ("float", "float")}


def real(x, y, tiling_data, mode):
    pipe = aj.TPipe()
    op = RealKernel(*_MODES[mode])
    op.Init(x, y, tiling_data, pipe)
    op.Process()


def _make_inputs(mode):
    def make_inputs(size, seed):
        """Pairs (complex inputs) or values of the output type, random normal with a few infinities and NaNs."""
        rng = np.random.default_rng(seed)
        T = _MODES[mode][1]
        n = size * (COMPLEX_COEFFICIENT if mode.startswith("complex") else 1)
        x = (rng.standard_normal(n) * 10).astype(np.float32)
        pick = rng.random(n)
        x[pick < 0.01] = np.inf
        x[(pick >= 0.01) & (pick < 0.02)] = np.nan
        x = x.astype(np.float16 if T == "half" else np.float32)
        # complex64 data is handed over as numpy's complex64; complex32 (no numpy type) as half pairs
        return {"x": x.view(np.complex64) if mode == "complex64" else x}
    return make_inputs


def _run(mode):
    S, T = _MODES[mode]
    complex_input = S != T

    def run(device, inputs):
        pairs = inputs["x"].view(np.float32) if mode == "complex64" else inputs["x"]
        total = pairs.size // (COMPLEX_COEFFICIENT if complex_input else 1)
        size = TYPE_SIZE[T]
        align = GATHER_MASK_ALIGN_BYTES if complex_input else REAL_BLOCK_SIZE
        padded = -(-total * size // align) * align // size       # the last core's whole blocks
        gm_x = np.zeros(padded * (COMPLEX_COEFFICIENT if complex_input else 1), pairs.dtype)
        gm_x[:pairs.size] = pairs
        gm_y = np.zeros(padded, pairs.dtype)
        block_dim, tiling_data = tiling(device, total, T, complex_input)
        aj.launch(real, block_dim, device, gm_x, gm_y, tiling_data, mode)
        return {"y": gm_y[:total]}
    return run


def _expected(mode):
    def expected(device, inputs):
        x = inputs["x"]
        if mode == "complex64":
            return {"y": x.real.copy()}
        return {"y": x[0::2].copy() if mode == "complex32" else x.copy()}
    return expected


_SOURCE = "hicann/ops-math@c4193324 experimental/math/real/op_kernel/real_kernel.h"
_RULES = {"complex64": "any positive size but 4065 to 7903 complex64 elements not a multiple of 32 (one core, the "
                       "non-inplace tile smaller than the input: up to 6112 on the A2/A3, 7904 on the 310B)",
          "complex32": "any positive size but 8129 to 15807 complex32 elements not a multiple of 64 (one core, the "
                       "non-inplace tile smaller than the input)",
          "float": "any positive size"}
KERNELS = [
    KernelSpec(name, description, _make_inputs(mode), _run(mode), _expected(mode), default_size=size,
               devices=DEVICES, source=_SOURCE, size_rule=_RULES[mode],
               size_ok=size_ok(_MODES[mode][1], _MODES[mode][0] != _MODES[mode][1]))
    for name, mode, size, description in (
        ("real_complex64", "complex64", 100000, "Real of complex64 (float pairs): in-place GatherMask pattern 1 in "
         "whole 256-byte repeats, a brace-built GatherMaskParams, the next tile prefetched, 8 cores"),
        ("real_complex32", "complex32", 100000, "Real of complex32 (half pairs): the same in-place GatherMask on "
         "halves"),
        ("real_complex64_single", "complex64", 1001, "Real of a short complex64 input on one core: GatherMask in "
         "counter mode (reduceMode true, mask = 2n) into a VECOUT queue"),
        ("real_float", "float", 100000, "Real of floats: a prefetching TQueBind<VECIN, VECOUT> copy through the UB"))
]
