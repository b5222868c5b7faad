"""Ascend C-style operator kernels written with ascend_jit, each runnable as `ascend-jit run NAME`.

Each module defines a `KERNEL = KernelSpec(...)`: how to make inputs, how to run the kernel on a device, and the
independent expectation its outputs are checked against bit for bit.
(They live inside the package, not in a top-level `kernels/`, so an installed `ascend-jit` finds them.)
"""
from importlib import import_module

_MODULES = ("add_seed", "reduce_sum_highdim_seed", "reduce_sum_count_seed", "reduce_pair_seed", "reduce_data_block_seed",
            "tiled_reduce_sum", "tiled_add", "multi_block_reduce_sum", "add_custom", "atomic_sum",
            "reduce_computation", "reduce_pair_elem")


def registry():
    """name -> KernelSpec, in a stable order."""
    specs = [import_module(f"{__name__}.{m}").KERNEL for m in _MODULES]
    return {k.name: k for k in specs}
