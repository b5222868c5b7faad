"""Multi-block GM sum: BLOCK_DIM blocks, each on its own Core, reduce their own slice of GM (GetBlockIdx picks
it) with the tiled kernel and write their partial to a GM workspace; a second one-block launch reduces the
partials, as an Ascend C kernel combines blocks through GM. The bits never depend on the schedule (the tests run
it serially, in threads and in processes).

How the blocks run on the host (`run(..., parallel=None)`, the default, chooses by measurement, BENCHMARKS.md
"Multi-block launches"): when every block has at least PARALLEL_MIN_TILES tiles and the host has more than one core,
in processes (aj.launch's parallel="processes": a block's Python, 5-6 us per tile between its two GIL-free kernels,
holds the GIL, so threads reach only 0.93x serial on 2 cores, worker processes 1.9x), with its GM in shared memory
(the workspace made there; an input outside shared memory is handed over read-only, so the launch copies it
in once and not back); else one after the other. A block's
fixed cost (its TPipe, buffers and final reduction, about 0.1 ms of Python) and a process launch's hand-over (about
0.2 ms) make blocks of a few tiles cheaper serially. With the sanitizer on, processes are refused: threads then, as
before. The kernel never synchronises its blocks, so running them serially or in processes is legal; aj.launch
itself cannot choose so (docs/decisions.md "Run slots")."""
import numpy as np

import ascend_jit as aj

from ..launch import host_cores
from ..sanitizer import default_config
from ._base import KernelSpec, ones_or_random
from .tiled_reduce_sum import expected_sums, reduce_kernel, tile_count

BLOCK_DIM = 8
MAX_SIZE = 16 * 1024 * 1024
PARALLEL_MIN_TILES = 4  # tiles per block from which processes (or, sanitized, threads) pay (module docstring)


def block_slice(n, block_dim, block):
    """(start, count) of `block`'s slice of n elements; each slice starts on a 32-byte boundary."""
    per = -(-n // block_dim)
    per = -(-per // 16) * 16
    return block * per, max(0, min(per, n - block * per))


def block_slices(n, block_dim):
    return [block_slice(n, block_dim, b) for b in range(block_dim)]


def block_kernel(x_gm, workspace_gm, n, block_dim):
    block = aj.GetBlockIdx()
    start, count = block_slice(n, block_dim, block)
    if count == 0:
        workspace_gm[block] = 0
        return
    partials = np.zeros(-(-tile_count(count) // 16) * 16, np.float16)
    total = workspace_gm[block:block + 1]
    reduce_kernel(x_gm[start:start + -(-count // 16) * 16], partials, total, count)


def combine_kernel(workspace_gm, total_gm, block_dim):
    core = aj.current_core("combine_kernel")
    src = core.local_tensor("half", 16)
    dst = core.local_tensor("half", 16)
    tmp = core.local_tensor("half", max(aj.GetReduceSumTmpSize(core.device, "half", count=block_dim), 16))
    aj.DataCopy(src, aj.GlobalTensor(workspace_gm), 16)
    mte2_to_v, v_to_s = aj.TQueSync(aj.PIPE_MTE2, aj.PIPE_V), aj.TQueSync(aj.PIPE_V, aj.PIPE_S)
    mte2_to_v.SetFlag(0)
    mte2_to_v.WaitFlag(0)
    aj.ReduceSum(dst, src, tmp, block_dim)
    v_to_s.SetFlag(0)
    v_to_s.WaitFlag(0)
    total_gm[0] = dst.GetValue(0)


def parallel_pays(n, block_dim=BLOCK_DIM):
    """Whether the blocks of an n-element sum are long enough to run at once (module docstring)."""
    return tile_count(block_slice(n, block_dim, 0)[1]) >= PARALLEL_MIN_TILES


def choose_parallel(n):
    """aj.launch's parallel= for an n-element sum (module docstring)."""
    if not parallel_pays(n) or host_cores() < 2:
        return False
    return True if default_config() is not None else "processes"


def run(device, inputs, parallel=None):
    """parallel: True (threads), False (one block after the other), "processes" or None: choose_parallel."""
    x = inputs["x"]
    if parallel is None:
        parallel = choose_parallel(x.size)
    in_processes = parallel == "processes"
    if x.size % 16 == 0 and x.flags.c_contiguous:  # whole DataBlocks: the host array is the GM buffer
        padded = x
        if in_processes and not aj.is_shared_gm(x):  # read-only: copied in for the workers, never copied back
            padded = x.view()
            padded.flags.writeable = False
    else:  # every block reads its slice rounded up to whole DataBlocks, never past the padded end
        padded = (aj.gm_zeros if in_processes else np.zeros)(-(-x.size // 16) * 16, np.float16)
        padded[:x.size] = x.reshape(-1)
    workspace = (aj.gm_zeros if in_processes else np.zeros)(16, np.float16)
    total = np.zeros(1, np.float16)
    aj.launch(block_kernel, BLOCK_DIM, device, padded, workspace, x.size, BLOCK_DIM, parallel=parallel)
    aj.launch(combine_kernel, 1, device, workspace, total, BLOCK_DIM)
    return {"block_sums": np.array(workspace[:BLOCK_DIM]), "total": total}


def make_inputs(size, seed):
    return {"x": ones_or_random(size, seed)}


def expected(device, inputs):
    x = inputs["x"]
    sums = np.zeros(BLOCK_DIM, np.float16)
    for b, (start, count) in enumerate(block_slices(x.size, BLOCK_DIM)):
        if count:
            sums[b] = expected_sums(device, x[start:start + count])[1][0]
    from ..order import explain_reduce_order
    total = explain_reduce_order(device, "count", "half", count=BLOCK_DIM).evaluate_batch(sums[None, :],
                                                                                          aj.Core(device).half_saturating)
    return {"block_sums": sums, "total": total.astype(np.float16)}


KERNEL = KernelSpec("multi_block_reduce_sum", f"{BLOCK_DIM}-block GM sum combined through a GM workspace",
                    make_inputs, run, expected, default_size=1 << 20, size_rule=f"1 .. {MAX_SIZE}",
                    size_ok=lambda n: 0 < n <= MAX_SIZE)
