"""Multi-block GM sum in one launch with a SyncAll and a second-stage reduction: each of 8 blocks reduces its slice
of a float GM tensor with the count-form ReduceSum and writes its partial into its own 32-byte slot of a GM
workspace; every block waits at SyncAll; block 0 then copies the 8 partials back and reduces them with a second
count-form ReduceSum into the result. The deterministic counterpart of the SetAtomicAdd sum (`atomic_sum`): the
bits do not depend on the order in which blocks finish.

Written for this gallery in the structure of the devkit's multi-core atomic example (mirror-cann/asc-devkit @
82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/06_atomic/
set_atomic_deterministic_computation/, whose "deterministic" scenario serialises blocks through GM flags), with the
hard SyncAll() of the A2/A3/950 (SPEC-2 section 10; the 310P and 910 offer only the workspace form, the 310B none).

Fidelity: BIT-EXACT; the expectation replays each block's documented count-form order and then the second
ReduceSum's order over the 8 partials (explain_reduce_order), independently of the kernels.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BLOCK_DIM = 8
SLOT = 8         # floats per workspace slot: one 32-byte DataBlock, DataCopy's unit
MAX_SIZE = 8 * 16384
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")   # the hard SyncAll() and ISASI flags


def syncall_sum_kernel(x, workspace, out, block_length):
    core = aj.current_core()
    block = aj.GetBlockIdx()
    x_gm, ws_gm, out_gm = aj.GlobalTensor(), aj.GlobalTensor(workspace), aj.GlobalTensor(out)
    x_gm.SetGlobalBuffer(x[block_length * block:], block_length)
    allocator = aj.LocalMemAllocator()
    x_local = allocator.Alloc("float", block_length)
    part = allocator.Alloc("float", SLOT * BLOCK_DIM)
    tmp = allocator.Alloc("float", max(aj.GetReduceSumTmpSize(core.device, "float", count=block_length), SLOT))
    aj.Duplicate(part, 0.0, SLOT)                        # the slot's other 7 floats go to GM too
    aj.DataCopy(x_local, x_gm, block_length)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.ReduceSum(part, x_local, tmp, block_length)       # stage 1: this block's partial in part[0]
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(ws_gm[block * SLOT], part, SLOT)
    aj.SyncAll()                                         # every partial is in GM
    if block != 0:
        return
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_MTE2)   # part's copy-out is done before it is refilled
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_MTE2)
    aj.DataCopy(part, ws_gm, SLOT * BLOCK_DIM)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    total = allocator.Alloc("float", SLOT)
    aj.Duplicate(total, 0.0, SLOT)
    # stage 2: the partials sit one per 32-byte slot, so the high-dim ReduceSum reads lane 0 of each DataBlock
    # (a bit mask with every 8th bit set) in one repeat
    aj.ReduceSum(total, part, tmp, [sum(1 << (SLOT * b) for b in range(BLOCK_DIM))], 1, 8)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(out_gm, total, SLOT)


def run(device, inputs):
    x = inputs["x"]
    workspace = np.zeros(SLOT * BLOCK_DIM, np.float32)
    out = np.zeros(SLOT, np.float32)
    aj.launch(syncall_sum_kernel, BLOCK_DIM, device, x, workspace, out, x.size // BLOCK_DIM)
    return {"sum": out[:1].copy(), "partials": workspace[::SLOT].copy()}


def expected(device, inputs):
    x = inputs["x"]
    per = x.size // BLOCK_DIM
    stage1 = aj.explain_reduce_order(device, "count", "float", count=per)
    partials = stage1.evaluate_batch(x.reshape(BLOCK_DIM, per)).astype(np.float32)
    mask_lane0 = sum(1 << (SLOT * b) for b in range(BLOCK_DIM))
    stage2 = aj.explain_reduce_order(device, "highdim", "float", mask=[mask_lane0], repeat_time=1)
    lanes = np.zeros(64, np.float32)
    lanes[::SLOT] = partials
    total = np.float32(stage2.evaluate(lanes))
    return {"sum": np.array([total], np.float32), "partials": partials}


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    return {"x": (rng.standard_normal(size) * 1000).astype(np.float32)}


KERNEL = KernelSpec("syncall_sum", f"{BLOCK_DIM}-block float GM sum in one launch: ReduceSum per block, SyncAll, "
                    "block 0 reduces the partials (deterministic, no atomics)", make_inputs, run, expected,
                    default_size=BLOCK_DIM * 1024, devices=DEVICES,
                    size_rule=f"a multiple of {BLOCK_DIM * 8} up to {MAX_SIZE}",
                    size_ok=lambda n: 0 < n <= MAX_SIZE and n % (BLOCK_DIM * 8) == 0,
                    source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/06_atomic/"
                           "set_atomic_deterministic_computation/ (structure; written for this gallery)")
