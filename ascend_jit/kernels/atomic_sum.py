"""Multi-block GM sum with SetAtomicAdd: each of 8 blocks reduces its slice of a float GM tensor with the count-form
ReduceSum and adds its partial into one zero-initialised GM result with an atomic DataCopy (UB -> GM), as Ascend C
kernels combine blocks without a second launch. The GM result is the block partials added in the launch's atomic
order (block-index order unless `atomic_order="shuffle"`): the expectation replays each block's documented
reduction order and then those float32 adds, independently."""
import numpy as np

import ascend_jit as aj

from ._base import KernelSpec
from ..order import explain_reduce_order

BLOCK_DIM = 8
OUT = 8          # one 32-byte block of floats: DataCopy moves whole DataBlocks; only element 0 is the sum
MAX_SIZE = 8 * 16384


def atomic_sum_kernel(x, out, blockLength):
    core = aj.current_core("atomic_sum_kernel")
    xGm, outGm = aj.GlobalTensor(), aj.GlobalTensor()
    xGm.SetGlobalBuffer(x[blockLength * aj.GetBlockIdx():], blockLength)
    outGm.SetGlobalBuffer(out, OUT)
    allocator = aj.LocalMemAllocator()
    xLocal = allocator.Alloc("float", blockLength)
    sumLocal = allocator.Alloc("float", OUT)
    tmpLocal = allocator.Alloc("float", max(aj.GetReduceSumTmpSize(core.device, "float", count=blockLength), 8))
    aj.DataCopy(xLocal, xGm, blockLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    sumLocal[:] = 0
    aj.ReduceSum(sumLocal, xLocal, tmpLocal, blockLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.SetAtomicAdd("float")
    aj.DataCopy(outGm, sumLocal, OUT)
    aj.SetAtomicNone()


def run(device, inputs, atomic_order="block", seed=0):
    x = inputs["x"]
    out = np.zeros(OUT, np.float32)
    aj.launch(atomic_sum_kernel, BLOCK_DIM, device, x, out, x.size // BLOCK_DIM, atomic_order=atomic_order, seed=seed)
    return {"sum": out[:1].copy()}


def block_sums(device, x):
    per = x.size // BLOCK_DIM
    order = explain_reduce_order(device, "count", "float", count=per)
    return order.evaluate_batch(x.reshape(BLOCK_DIM, per), False).astype(np.float32)


def expected(device, inputs, order=range(BLOCK_DIM)):
    partials = block_sums(device, inputs["x"])
    total = np.float32(0)
    for b in order:
        total = np.float32(total + partials[b])
    return {"sum": np.array([total], np.float32)}


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    return {"x": (rng.standard_normal(size) * 1000).astype(np.float32)}


KERNEL = KernelSpec("atomic_sum", f"{BLOCK_DIM}-block float GM sum combined with SetAtomicAdd (atomic DataCopy)",
                    make_inputs, run, expected, default_size=BLOCK_DIM * 1024,
                    devices=tuple(n for n, d in aj.DEVICES.items() if "float" in d.atomic_add_dtypes
                                  and d.isasi_flags and "float" in d.reduce_sum_dtypes),
                    size_rule=f"a multiple of {BLOCK_DIM * 8} up to {MAX_SIZE}",
                    size_ok=lambda n: 0 < n <= MAX_SIZE and n % (BLOCK_DIM * 8) == 0)
