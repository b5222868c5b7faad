"""The devkit's sync_all example: 8 blocks each double their 32-float slice, publish it to a GM workspace, meet at
SyncAll, then add every other block's slice to their own in block order.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
05_sync_control/sync_all/sync_all.asc (`KernelSyncAll`, `sync_all_custom`, TOTAL_LENGTH 256, TILE_LENGTH 32,
numBlocks = TOTAL_LENGTH / TILE_LENGTH = 8) and scripts/gen_data.py (x all ones, golden x * 2 * 8).

Each block: InitSocState; a LocalMemAllocator's two 32-float tiles; DataCopy its slice in, MTE2_V; Muls by 2.0,
PipeBarrier<PIPE_V>; V_MTE3 and DataCopy into workGlobal[blockIdx * 32]; SyncAll; for every other block i in
order: V_MTE2, DataCopy workGlobal[i * 32] in, MTE2_V, Add into the accumulator, PipeBarrier<PIPE_V>; V_MTE3 and
DataCopy out; PipeBarrier<PIPE_ALL>. The original's syncGm argument (the software SyncAll's GM flags, 8 int32 a
block) is passed and unused, as SyncAll's hard form needs none (SPEC-2 14: cross-core synchronisation is the
launch's barrier here).

Sizes: 8 blocks of TILE_LENGTH floats; TILE_LENGTH = size / 8 any multiple of 8 (whole 32-byte DataBlocks) up to
8192. Devices: the README's 950, A3 and A2 (SyncAll, docs/decisions.md "Synchronisation and kernel boilerplate").
Fidelity: BIT-EXACT: block b's result is ((2 x_b + 2 x_0) + 2 x_1) + ... (block b skipped) in float32, the order of
the kernel's loop; with gen_data.py's ones every order gives 16.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

NUM_BLOCKS = 8
DEFAULT_SYNCALL_NEED_SIZE = 8
SOURCE = ("mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/05_sync_control/sync_all/"
          "sync_all.asc")


class KernelSyncAll:
    def Init(self, srcGm, dstGm, workGm, syncGm, tileLength):
        self.tileLength = tileLength
        self.blockNum = aj.GetBlockNum()
        self.blockIdx = aj.GetBlockIdx()
        self.srcGlobal, self.dstGlobal = aj.GlobalTensor("float"), aj.GlobalTensor("float")
        self.workGlobal, self.syncGlobal = aj.GlobalTensor("float"), aj.GlobalTensor("int32")
        self.srcGlobal.SetGlobalBuffer(srcGm[self.blockIdx * tileLength:], tileLength)
        self.dstGlobal.SetGlobalBuffer(dstGm[self.blockIdx * tileLength:], tileLength)
        self.workGlobal.SetGlobalBuffer(workGm, self.blockNum * tileLength)
        self.syncGlobal.SetGlobalBuffer(syncGm, self.blockNum * DEFAULT_SYNCALL_NEED_SIZE)

    def Process(self):
        ubAllocator = aj.LocalMemAllocator()
        srcLocal1 = ubAllocator.Alloc("float", self.tileLength)
        dstLocal = ubAllocator.Alloc("float", self.tileLength)
        aj.DataCopy(srcLocal1, self.srcGlobal, self.tileLength)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        self.FirstCompute(srcLocal1, dstLocal)
        self.CopyToWorkGlobal(dstLocal)   # this block's doubled slice, for the others
        aj.SyncAll()
        for i in range(self.blockNum):
            if i != self.blockIdx:
                self.CopyFromOtherCore(i, srcLocal1)
                self.Accumulate(dstLocal, srcLocal1)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(self.dstGlobal, dstLocal, self.tileLength)

    def CopyToWorkGlobal(self, dstLocal):
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(self.workGlobal[self.blockIdx * self.tileLength], dstLocal, self.tileLength)

    def CopyFromOtherCore(self, index, srcLocal):
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)   # the last Add has read srcLocal
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)
        aj.DataCopy(srcLocal, self.workGlobal[index * self.tileLength], self.tileLength)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)

    def Accumulate(self, dstLocal, srcLocal):
        aj.Add(dstLocal, dstLocal, srcLocal, self.tileLength)
        aj.PipeBarrier(aj.PIPE_V)

    def FirstCompute(self, srcLocal1, dstLocal):
        scalarValue = np.float32(2.0)
        aj.Muls(dstLocal, srcLocal1, scalarValue, self.tileLength)
        aj.PipeBarrier(aj.PIPE_V)


def sync_all_custom(srcGm, dstGm, workGm, syncGm, tileLength):
    aj.InitSocState()
    op = KernelSyncAll()
    op.Init(srcGm, dstGm, workGm, syncGm, tileLength)
    op.Process()
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    """gen_data.py: ones; a later seed draws standard normals (with a few specials) so the order of the adds shows."""
    if seed == 0:
        return {"x": np.ones(size, np.float32)}
    x = (np.random.default_rng(seed).standard_normal(size) * 1e3).astype(np.float32)
    x[:3] = [np.inf, -0.0, 3e38]
    return {"x": x}


def run(device, inputs):
    x = inputs["x"]
    z = np.zeros_like(x)
    work = np.zeros_like(x)
    sync = np.zeros(NUM_BLOCKS * DEFAULT_SYNCALL_NEED_SIZE, np.int32)
    aj.launch(sync_all_custom, NUM_BLOCKS, device, x, z, work, sync, x.size // NUM_BLOCKS)
    return {"z": z}


def expected(device, inputs):
    """Block b: acc = 2 x_b, then acc += 2 x_i for i = 0..7, i != b, each a float32 rounding (Muls by 2 is exact
    below the overflow); NaN canonical (SPEC-2 D35)."""
    x = inputs["x"]
    t = x.size // NUM_BLOCKS
    with np.errstate(over="ignore", invalid="ignore"):
        doubled = [x[i * t:(i + 1) * t] * np.float32(2) for i in range(NUM_BLOCKS)]
        out = []
        for b in range(NUM_BLOCKS):
            acc = doubled[b].copy()
            for i in range(NUM_BLOCKS):
                if i != b:
                    acc = acc + doubled[i]
            out.append(acc)
    z = np.concatenate(out)
    z[np.isnan(z)] = np.float32(np.nan)
    return {"z": z}


KERNEL = KernelSpec("sync_all", "devkit sync_all example (8 blocks: Muls, a GM workspace slot each, SyncAll, every "
                    "other block's slot added in block order)", make_inputs, run, expected, default_size=256,
                    devices=("ascend950", "atlas-a3", "atlas-a2"),
                    size_rule="8 tiles of a multiple of 8 floats: a multiple of 64, at most 65536",
                    size_ok=lambda n: 0 < n <= NUM_BLOCKS * 8192 and n % (NUM_BLOCKS * 8) == 0, source=SOURCE)
