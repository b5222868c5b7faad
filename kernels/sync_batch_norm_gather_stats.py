"""SyncBatchNormGatherStats from the CANN NN operators, the 310P scalar kernel: per channel c, from the per-rank sums
and square sums of N ranks and their sample counts, the batch mean and 1/sqrt(var + eps) and the momentum-updated
running mean and (unbiased) running variance; float statistics, int32 counts.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-nn @ e3349dbf5e6a08a8ddc8d5469127bb57286d8fe1, experimental/norm/sync_batch_norm_gather_stats/op_kernel/
arch20/sync_batch_norm_gather_stats_kernel.h (`SyncBatchNormGatherStatsScalar<T, CountT>`: the scalar unit alone,
GlobalTensor GetValue / SetValue on GM windows set without a size; the total count summed in float; fewer than 32
ranks: channel by channel, PipeBarrier<PIPE_ALL> and `DataCacheCleanAndInvalid<T, CacheLine::ENTIRE_DATA_CACHE>`
after every 8 channels (a 32-byte run) and at the end; 32 ranks or more: 8 channels at a time, rank by rank, flushed
after each chunk) with the base class's tiling parse (common/sync_batch_norm_gather_stats_kernel_base.h) and the
host tiling of experimental/norm/sync_batch_norm_gather_stats/op_host/sync_batch_norm_gather_stats_tiling.cpp for
the 310P, N fully loaded (`DoOpTiling`: the channel tile from the UB, 32-byte aligned; `RebalanceBlocksForHalfCore`
over half the cores, `AlignPerCoreToCacheLine` to 64 bytes a core, `CheckArch20CacheLineInvariant`: each core's
channels whole 64-byte GM cache lines, since the scalar unit writes GM back a cache line at a time).

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's). The original dispatches this
scalar kernel on the 310P only (the 910B build has a vector kernel); the port runs it, with the 310P tiling, on every
device that offers DataCacheCleanAndInvalid. The emulator has no data cache: a scalar SetValue reaches GM at once,
so the flushes change nothing here (they are checked as the device checks them).

Devices: DataCacheCleanAndInvalid decides: the 950, A3, A2, 310B and 310P (not the 910).

Fidelity: MODELLED in the sense of issue 18: no vector instruction runs, but the scalar unit's float arithmetic is
the port's numpy float32 (IEEE, round to nearest even, no contraction into fused multiply-adds, a correctly rounded
sqrt), which the device's compiler and scalar unit need not match bit for bit. Against the float64 formulas: within
1e-5 relative (a few float32 roundings over at most 40 ranks; inputs keep the means near 2 and the running
statistics positive, so no sum cancels, and the variance about a fifth of the mean square's).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

SCALAR_COUNT_N_MAX = 32
SCALAR_C_CHUNK = 8
UBSIZE_RSV = 96
CACL_UBSIZE_SAMPLE_COUNT_TYPE32 = 3
INPUT_SIZE_TYPE32 = 14
BIG_INPUT_SIZE_TYPE32 = 4
ALIGN_DIM_LEN_LINE = 32
ALIGN_FACTOR_BASE_BYTE_LEN = 128
HALF_CORE_NUM = 2
PER_CORE_MIN_C_BYTE = 64
CORE_NUM = 8
MOMENTUM, EPS = np.float32(0.1), np.float32(1e-5)
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")


def tiling(device, n_len, c_len):
    """DoOpTiling for float statistics on the 310P, N fully loaded: (blockNum, tiling data)."""
    d = 4
    c_tile = ((aj.get_device(device).ub_bytes - UBSIZE_RSV) // d - CACL_UBSIZE_SAMPLE_COUNT_TYPE32 * n_len) // (
        INPUT_SIZE_TYPE32 + BIG_INPUT_SIZE_TYPE32 * n_len)
    c_tile = c_tile // (ALIGN_DIM_LEN_LINE // d) * (ALIGN_DIM_LEN_LINE // d)
    assert c_tile > 0 and c_tile * d >= ALIGN_FACTOR_BASE_BYTE_LEN, "the N-not-full-load schedule, not ported"

    def split(tile):
        ub_outer = -(-c_len // tile)
        ub_tail = c_len % tile or tile
        block_former = -(-ub_outer // CORE_NUM)
        block_tail = ub_outer % block_former or block_former
        return tile, ub_tail, block_former, block_tail, -(-ub_outer // block_former)

    c_tile, ub_tail, block_former, block_tail, block_num = split(c_tile)
    if block_num < CORE_NUM // HALF_CORE_NUM:                         # RebalanceBlocksForHalfCore
        per_core = -(-c_len // (CORE_NUM // HALF_CORE_NUM))
        aligned = -(-per_core * d // ALIGN_DIM_LEN_LINE) * ALIGN_DIM_LEN_LINE // d
        aligned = max(aligned, PER_CORE_MIN_C_BYTE // d)
        if aligned < c_tile:
            c_tile, ub_tail, block_former, block_tail, block_num = split(aligned)
    per_line = PER_CORE_MIN_C_BYTE // d                               # AlignPerCoreToCacheLine
    if c_tile % per_line:
        c_tile, ub_tail, block_former, block_tail, block_num = split(c_tile // per_line * per_line or per_line)
    if block_num > 1:                                                 # CheckArch20CacheLineInvariant
        assert c_tile * d >= PER_CORE_MIN_C_BYTE and c_tile * d % PER_CORE_MIN_C_BYTE == 0
    return block_num, dict(blockDim=block_num, blockFormer=block_former, blockTail=block_tail, nLen=n_len,
                           cLen=c_len, ubFormer=c_tile, ubTail=ub_tail, momentum=MOMENTUM, eps=EPS)


class SyncBatchNormGatherStatsScalar:
    def InitGm(self, totalSum, totalSquareSum, sampleCount, runningMean, runningVar, batchMean, batchInvstd,
               runningMeanUpdate, runningVarUpdate):
        (self.totalSumGm, self.totalSquareSumGm, self.sampleCountGm, self.runningMeanGm, self.runningVarGm,
         self.batchMeanGm, self.batchInvstdGm, self.runningMeanUpdateGm, self.runningVarUpdateGm) = (
            aj.GlobalTensor() for _ in range(9))
        self.totalSumGm.SetGlobalBuffer(totalSum)
        self.totalSquareSumGm.SetGlobalBuffer(totalSquareSum)
        self.sampleCountGm.SetGlobalBuffer(sampleCount)
        self.runningMeanGm.SetGlobalBuffer(runningMean)
        self.runningVarGm.SetGlobalBuffer(runningVar)
        self.batchMeanGm.SetGlobalBuffer(batchMean)
        self.batchInvstdGm.SetGlobalBuffer(batchInvstd)
        self.runningMeanUpdateGm.SetGlobalBuffer(runningMeanUpdate)
        self.runningVarUpdateGm.SetGlobalBuffer(runningVarUpdate)

    def InitFull(self, tilingData):
        """SetFullTiling (the base class)."""
        self.blockDim = tilingData["blockDim"]
        self.nTotal = tilingData["nLen"]
        self.cLen = tilingData["cLen"]
        self.cFactor = tilingData["ubFormer"]
        self.momentum, self.eps = tilingData["momentum"], tilingData["eps"]
        blockIdx = aj.GetBlockIdx()
        self.cBase = tilingData["blockFormer"] * tilingData["ubFormer"] * blockIdx
        if blockIdx == self.blockDim - 1:
            self.cLoop, self.cTail = tilingData["blockTail"], tilingData["ubTail"]
        else:
            self.cLoop, self.cTail = tilingData["blockFormer"], tilingData["ubFormer"]

    def Process(self):
        if aj.GetBlockIdx() >= self.blockDim or self.nTotal == 0 or self.cLen == 0 or self.cLoop == 0:
            return
        self.ProcessScalarGeneric()

    def ProcessScalarGeneric(self):
        f32 = np.float32
        countAll = f32(0.0)
        for i in range(self.nTotal):
            countAll = f32(countAll + f32(self.sampleCountGm.GetValue(i)))
        reciprocalCount = f32(0.0) if countAll == 0 else f32(1.0) / countAll
        oneSubMomentum = f32(1.0) - self.momentum
        unbiasedMomentum = (countAll / (countAll - f32(1.0)) * self.momentum) if countAll > 1 else self.momentum
        cCount = (self.cLoop - 1) * self.cFactor + self.cTail
        if self.cBase + cCount > self.cLen:
            cCount = self.cLen - self.cBase
        if self.nTotal < SCALAR_COUNT_N_MAX:
            self.ProcessSmallN(cCount, reciprocalCount, oneSubMomentum, unbiasedMomentum)
        else:
            self.ProcessChunkedC(cCount, reciprocalCount, oneSubMomentum, unbiasedMomentum)

    def ProcessSmallN(self, cCount, reciprocalCount, oneSubMomentum, unbiasedMomentum):
        flushStrideElems = 32 // 4
        for i in range(cCount):
            c = self.cBase + i
            total, squareSum = np.float32(0.0), np.float32(0.0)
            for n in range(self.nTotal):
                total = np.float32(total + self.totalSumGm.GetValue(n * self.cLen + c))
                squareSum = np.float32(squareSum + self.totalSquareSumGm.GetValue(n * self.cLen + c))
            self.WriteChannel(c, total, squareSum, reciprocalCount, oneSubMomentum, unbiasedMomentum)
            if (i + 1) % flushStrideElems == 0:
                self.FlushOutputs()
        self.FlushOutputs()

    def ProcessChunkedC(self, cCount, reciprocalCount, oneSubMomentum, unbiasedMomentum):
        for cOffset in range(0, cCount, SCALAR_C_CHUNK):
            currentC = min(SCALAR_C_CHUNK, cCount - cOffset)
            sums = np.zeros(SCALAR_C_CHUNK, np.float32)
            squareSums = np.zeros(SCALAR_C_CHUNK, np.float32)
            for n in range(self.nTotal):
                gmBase = n * self.cLen + self.cBase + cOffset
                for j in range(currentC):
                    sums[j] = np.float32(sums[j] + self.totalSumGm.GetValue(gmBase + j))
                    squareSums[j] = np.float32(squareSums[j] + self.totalSquareSumGm.GetValue(gmBase + j))
            for j in range(currentC):
                self.WriteChannel(self.cBase + cOffset + j, sums[j], squareSums[j], reciprocalCount, oneSubMomentum,
                                  unbiasedMomentum)
            self.FlushOutputs()
        self.FlushOutputs()

    def WriteChannel(self, c, total, squareSum, reciprocalCount, oneSubMomentum, unbiasedMomentum):
        f32 = np.float32
        bMean = f32(total * reciprocalCount)
        bVar = f32(f32(squareSum * reciprocalCount) - f32(bMean * bMean))
        bInvstd = f32(1.0) / np.sqrt(f32(bVar + self.eps))
        rMean = f32(f32(self.runningMeanGm.GetValue(c) * oneSubMomentum) + f32(self.momentum * bMean))
        rVar = f32(f32(self.runningVarGm.GetValue(c) * oneSubMomentum) + f32(unbiasedMomentum * bVar))
        self.batchMeanGm.SetValue(c, bMean)
        self.batchInvstdGm.SetValue(c, bInvstd)
        self.runningMeanUpdateGm.SetValue(c, rMean)
        self.runningVarUpdateGm.SetValue(c, rVar)

    def FlushOutputs(self):
        aj.PipeBarrier(aj.PIPE_ALL)
        aj.DataCacheCleanAndInvalid(self.batchMeanGm, entire_type=aj.CacheLine.ENTIRE_DATA_CACHE)


def sync_batch_norm_gather_stats(gm, tiling_data):
    op = SyncBatchNormGatherStatsScalar()
    op.InitGm(gm["total_sum"], gm["total_square_sum"], gm["sample_count"], gm["running_mean"], gm["running_var"],
              gm["batch_mean"], gm["batch_invstd"], gm["running_mean_update"], gm["running_var_update"])
    op.InitFull(tiling_data)
    op.Process()


def _make_inputs(n_len):
    def make_inputs(size, seed):
        """size channels over n_len ranks: each rank's sum and square sum from its own mean and variance."""
        rng = np.random.default_rng(seed)
        counts = rng.integers(100, 200, n_len).astype(np.int32)
        means = rng.normal(2.0, 0.5, (n_len, size))       # away from 0: no cancellation in the sums
        variances = rng.uniform(0.5, 2.0, (n_len, size))
        return {"total_sum": (counts[:, None] * means).astype(np.float32).reshape(-1),
                "total_square_sum": (counts[:, None] * (variances + means ** 2)).astype(np.float32).reshape(-1),
                "sample_count": counts, "running_mean": rng.uniform(0.5, 2.0, size).astype(np.float32),
                "running_var": rng.uniform(0.5, 2.0, size).astype(np.float32)}
    return make_inputs


OUTPUTS = ("batch_mean", "batch_invstd", "running_mean_update", "running_var_update")


def run(device, inputs):
    c_len = inputs["running_mean"].size
    n_len = inputs["sample_count"].size
    gm = {k: v.copy() for k, v in inputs.items()}
    gm.update({k: np.zeros(c_len, np.float32) for k in OUTPUTS})
    block_dim, tiling_data = tiling(device, n_len, c_len)
    aj.launch(sync_batch_norm_gather_stats, block_dim, device, gm, tiling_data)
    return {k: gm[k] for k in OUTPUTS}


def expected(device, inputs):
    n_len = inputs["sample_count"].size
    count = float(inputs["sample_count"].astype(np.float64).sum())
    total = inputs["total_sum"].astype(np.float64).reshape(n_len, -1).sum(axis=0)
    square = inputs["total_square_sum"].astype(np.float64).reshape(n_len, -1).sum(axis=0)
    mean = total / count
    var = square / count - mean ** 2
    m = float(MOMENTUM)
    return {"batch_mean": mean, "batch_invstd": 1.0 / np.sqrt(var + float(EPS)),
            "running_mean_update": inputs["running_mean"].astype(np.float64) * (1 - m) + m * mean,
            "running_var_update": inputs["running_var"].astype(np.float64) * (1 - m) + count / (count - 1) * m * var}


_SOURCE = ("hicann/ops-nn@e3349dbf experimental/norm/sync_batch_norm_gather_stats/op_kernel/arch20/"
           "sync_batch_norm_gather_stats_kernel.h")
KERNELS = [
    KernelSpec("sync_batch_norm_gather_stats", "SyncBatchNormGatherStats, the 310P scalar kernel over 8 ranks: GM "
               "GetValue/SetValue loops, float32 scalar math, PipeBarrier<PIPE_ALL> + DataCacheCleanAndInvalid every "
               "8 channels; channels split in 64-byte cache lines over half the cores", _make_inputs(8), run,
               expected, default_size=1000, devices=DEVICES, tolerance=1e-5, source=_SOURCE),
    KernelSpec("sync_batch_norm_gather_stats_chunked", "SyncBatchNormGatherStats over 40 ranks: channels 8 at a time, "
               "rank by rank, a flush after each chunk", _make_inputs(40), run, expected, default_size=500,
               devices=DEVICES, tolerance=1e-5, source=_SOURCE),
]
