"""Multi-block launch: `launch(kernel, block_dim, device, *args)` runs the kernel once per block, each block on
its own Core (own UB, CTRL and mask register) with GetBlockIdx() = its index, as `<<<blockDim>>>` would.

Blocks communicate only through GM (the host arrays passed in), so the result cannot depend on how blocks are
scheduled: run them serially or in threads (the kernels release the GIL) and get the same bits.
"""
import os
from concurrent.futures import ThreadPoolExecutor

from .core import Core
from .errors import ParameterError


def launch(kernel, block_dim, device, *args, parallel=True, **kwargs):
    """Run `kernel(*args, **kwargs)` on `block_dim` fresh cores of `device`; returns the per-block return values."""
    if not isinstance(block_dim, int) or not 1 <= block_dim <= 65535:
        raise ParameterError("launch", "block_dim", block_dim, legal="[1, 65535]")
    cores = [Core(device) for _ in range(block_dim)]
    for i, core in enumerate(cores):
        core.block_idx, core.block_num = i, block_dim

    def run_block(core):
        with core:
            return kernel(*args, **kwargs)

    workers = min(block_dim, os.cpu_count() or 1)
    if not parallel or workers == 1:
        return [run_block(c) for c in cores]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(run_block, cores))
