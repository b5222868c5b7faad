"""The devkit's two examples in which one block waits for another through a flag in GM: data_sync_barrier and
gm_by_dcache. Both spin on the flag; the emulator's blocks meet only at SyncAll (docs/decisions.md "Atomics across
blocks": "a kernel that spins on GM must be rewritten to it"), so each port replaces the spin loop by a SyncAll that
every block reaches, then reads the flag once and checks it holds what the spin waited for (a StateError through
aj.ascendc_assert otherwise). Everything else is the original's sequence.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/:
- 05_sync_control/data_sync_barrier/data_sync_barrier.asc (`kernel_data_sync_barrier<int32_t, 8>`, 2 blocks) and
  scripts/gen_data.py (x ones; golden zeros but golden[0] = 2 * DATA_VALUE = 14): block 0 writes DATA_VALUE 7 to
  src[1] by WriteGmByPassDCache, DataSyncBarrier<DDR> (the data reaches GM before the flag), writes SYNC_FLAG 6 to
  src[0]; block 1 waits for src[0] == 6, reads src[1] and writes 2 * 7 to dst[0]. Both ReadGmByPassDCache /
  WriteGmByPassDCache of int32.
- 09_utils/gm_by_dcache/gm_by_dcache.asc (`gm_by_dcache_custom<float, 4, 1024>`, 4 blocks; the host's x[i] =
  (i % 100) * 0.1f, golden sum(x) within 1e-3): each block ReduceRepeat<SUM> of its 1024 floats into 16 sums,
  copies them into a GM workspace, MTE3_S, writes its index into its 64-byte flag slot by GlobalTensor SetValue and
  DataCacheCleanAndInvalid<SINGLE_CACHE_LINE, CACHELINE_OUT>; block 0 waits until every slot i holds i (flushing
  each line before GetValue), copies the 64 sums back (MTE3_MTE2, MTE2_V), ReduceRepeat of one 64-float repeat,
  and writes the total to z[0] by SetValue.

Deviations: the spin loops become SyncAll (above; the flags are still written, flushed and checked). gm_by_dcache
reads the final ReduceRepeat's result with dstLocal.GetValue(0) after only an MTE3_S flag: nothing orders the scalar
read after the vector write (SPEC-2 10.4; `ascend-jit run gm_by_dcache --sanitize` of the original sequence reports
the race), so the port adds the V_S pair (as kernels/onehot.py adds the flags its original lacks).

Sizes: data_sync_barrier the example's 8 int32 (any multiple of 8 up to 8192: only elements 0 and 1 are used);
gm_by_dcache the example's 4 tiles of 1024 floats only (its second ReduceRepeat reads one whole 64-float repeat:
with shorter tiles the lanes past the block sums would be stale UB data). Devices: the READMEs' 950, A3 and A2 (SyncAll,
DataSyncBarrier, the GM bypass reads; DataCacheCleanAndInvalid's dcciDst form).
Fidelity: BIT-EXACT (integer moves; the float sums in ReduceRepeat's documented tree, then one 64-lane tree over
the block sums: explain_reduce_order's "ReduceRepeat->ReduceRepeat" pattern).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec
from ascend_jit.order import explain_reduce_order

DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
SOURCE = "mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/"
SYNC_FLAG = 6
DATA_VALUE = 7
TILE_NUM = 4


# ---- data_sync_barrier

def kernel_data_sync_barrier(srcGm, dstGm):
    aj.InitSocState()
    blockIdx = aj.GetBlockIdx()
    srcGlobal = aj.GlobalTensor("int32")
    srcGlobal.SetGlobalBuffer(srcGm)
    dstGlobal = aj.GlobalTensor("int32")
    dstGlobal.SetGlobalBuffer(dstGm)
    if blockIdx == 0:
        aj.WriteGmByPassDCache(srcGlobal[1], DATA_VALUE)
        aj.DataSyncBarrier(aj.MemDsbT.DDR)             # the data reaches GM before the flag does
        aj.WriteGmByPassDCache(srcGlobal[0], SYNC_FLAG)
    aj.SyncAll()                                       # the original: block 1 polls src[0] until it reads SYNC_FLAG
    if blockIdx == 1:
        flagValue = aj.ReadGmByPassDCache(srcGlobal)
        aj.ascendc_assert(flagValue == SYNC_FLAG, "flag %d\n", flagValue)
        dataValue = aj.ReadGmByPassDCache(srcGlobal[1])
        aj.WriteGmByPassDCache(dstGlobal, 2 * dataValue)
        return
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs_dsb(size, seed):
    """gen_data.py: x ones (seed 0); a later seed draws random int32 (elements 0 and 1 are overwritten)."""
    if seed == 0:
        return {"x": np.ones(size, np.int32)}
    return {"x": np.random.default_rng(seed).integers(-2**31, 2**31 - 1, size, dtype=np.int64).astype(np.int32)}


def run_dsb(device, inputs):
    x = inputs["x"].copy()                             # the kernel writes src[0..1]
    z = np.zeros(x.size, np.int32)
    aj.launch(kernel_data_sync_barrier, 2, device, x, z)
    return {"z": z, "x": x}


def expected_dsb(device, inputs):
    z = np.zeros(inputs["x"].size, np.int32)
    z[0] = 2 * DATA_VALUE
    x = inputs["x"].copy()
    x[:2] = [SYNC_FLAG, DATA_VALUE]
    return {"z": z, "x": x}


# ---- gm_by_dcache

def gm_by_dcache_custom(x, workspace, z, tileLength, vs_flag=True):
    """`vs_flag=False` runs the original's flags alone (the tests show the sanitizer's report)."""
    aj.InitSocState()
    blockIdx = aj.GetBlockIdx()
    repeatLength = 256 // 4
    repeatTimes = tileLength // repeatLength
    # int32_t* arithmetic on the workspace: the sums first (repeatTimes floats a block), then the 64-byte flag slots
    flagWorkspace = workspace[TILE_NUM * repeatTimes:]
    xGm, reduceTmpGm, flagGm = aj.GlobalTensor("float"), aj.GlobalTensor("float"), aj.GlobalTensor("int32")
    xGm.SetGlobalBuffer(x[blockIdx * tileLength:])
    reduceTmpGm.SetGlobalBuffer(workspace[blockIdx * repeatTimes:].view(np.float32))
    flagGm.SetGlobalBuffer(flagWorkspace[blockIdx * 64 // 4:])
    ubAllocator = aj.LocalMemAllocator()
    srcLocal = ubAllocator.Alloc("float", tileLength)
    dstLocal = ubAllocator.Alloc("float", repeatTimes)
    aj.DataCopy(srcLocal, xGm, tileLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.ReduceRepeat(dstLocal, srcLocal, repeatLength, repeatTimes, 1, 1, 8, reduce_type=aj.ReduceType.SUM)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(reduceTmpGm, dstLocal, repeatTimes)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_S)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_S)
    flagGm.SetValue(0, blockIdx)
    aj.DataCacheCleanAndInvalid(flagGm, entire_type=aj.CacheLine.SINGLE_CACHE_LINE, dcci_dst=aj.DcciDst.CACHELINE_OUT)
    aj.SyncAll()                                       # the original: block 0 polls the flags (WaitBlocksReady)
    if blockIdx > 0:
        return
    WaitBlocksReady(flagWorkspace)
    zGm = aj.GlobalTensor("float")
    zGm.SetGlobalBuffer(z)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_MTE2)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_MTE2)
    aj.DataCopy(srcLocal, reduceTmpGm, TILE_NUM * repeatTimes)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.ReduceRepeat(dstLocal, srcLocal, repeatLength, 1, 1, 1, 8, reduce_type=aj.ReduceType.SUM)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_S)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_S)
    if vs_flag:   # the port's addition: the scalar read after the vector write
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
    zGm.SetValue(0, dstLocal.GetValue(0))
    aj.PipeBarrier(aj.PIPE_ALL)


def WaitBlocksReady(flagWorkspace):
    """The original's loop, run once after the SyncAll: every slot i must already hold i."""
    flagGm = aj.GlobalTensor("int32")
    flagGm.SetGlobalBuffer(flagWorkspace)
    for i in range(TILE_NUM):
        index = i * 64 // 4
        aj.DataCacheCleanAndInvalid(flagGm[index], entire_type=aj.CacheLine.SINGLE_CACHE_LINE,
                                    dcci_dst=aj.DcciDst.CACHELINE_OUT)
        flag = flagGm.GetValue(index)
        aj.ascendc_assert(flag == i, "block %d not ready: flag %d\n", i, flag)


def make_inputs_dcache(size, seed):
    """The host's x[i] = (i % 100) * 0.1f (seed 0); a later seed draws normals scaled by 1e3."""
    if seed == 0:
        return {"x": (np.arange(size) % 100).astype(np.float32) * np.float32(0.1)}
    return {"x": (np.random.default_rng(seed).standard_normal(size) * 1e3).astype(np.float32)}


def run_dcache(device, inputs, vs_flag=True):
    x = inputs["x"]
    tile = x.size // TILE_NUM
    workspace = np.zeros(TILE_NUM * (tile * 4 // 256) + TILE_NUM * 64, np.int32)   # the host's workspaceGMLength
    z = np.zeros(1, np.float32)
    aj.launch(gm_by_dcache_custom, TILE_NUM, device, x, workspace, z, tile, vs_flag)
    return {"z": z}


def expected_dcache(device, inputs):
    """Per block ReduceRepeat (a 64-float tree per repeat), then one 64-lane ReduceRepeat over the 4 x 16 block
    sums: the "ReduceRepeat->ReduceRepeat" pattern over 4096 contiguous floats (block b's repeats are repeats
    16b..16b+15)."""
    x = inputs["x"]
    if x.size != TILE_NUM * 1024:
        raise ValueError("the model covers 4 * TILE_LENGTH = 4096 (the second repeat's 64 lanes all block sums)")
    tree = explain_reduce_order(device, "ReduceRepeat->ReduceRepeat", "float", count=x.size)
    return {"z": np.array([tree.evaluate(x)], np.float32)}


KERNELS = [
    KernelSpec("data_sync_barrier", "devkit data_sync_barrier example (2 blocks: GM data, DataSyncBarrier<DDR>, a "
               "GM flag by WriteGmByPassDCache; the reader's spin loop as SyncAll)", make_inputs_dsb, run_dsb,
               expected_dsb, default_size=8, devices=DEVICES, size_rule="a multiple of 8 int32, at most 8192",
               size_ok=lambda n: 0 < n <= 8192 and n % 8 == 0,
               source=SOURCE + "05_sync_control/data_sync_barrier/data_sync_barrier.asc"),
    KernelSpec("gm_by_dcache", "devkit gm_by_dcache example (4 blocks: ReduceRepeat SUM, sums and flags in a GM "
               "workspace, DataCacheCleanAndInvalid, block 0 sums the sums; its spin loop as SyncAll)",
               make_inputs_dcache, run_dcache, expected_dcache, default_size=TILE_NUM * 1024, devices=DEVICES,
               size_rule="4 * 1024 floats (the example's; the second ReduceRepeat reads 64 block sums)",
               size_ok=lambda n: n == TILE_NUM * 1024, source=SOURCE + "09_utils/gm_by_dcache/gm_by_dcache.asc"),
]
