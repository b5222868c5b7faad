"""Ascend C-style operator kernels written with ascend_jit, each runnable as `ascend-jit run NAME`.

Each module defines `KERNEL = KernelSpec(...)` (or a list `KERNELS`): how to make inputs, how to run the kernel on a
device, and the independent expectation its outputs are checked against.

Two places hold kernels (docs/decisions.md "Kernel gallery"): this package keeps a small built-in set, the seeds'
examples and the tiled / multi-block / atomic workloads that the CLI, the study and the sweep use, so an installed
`ascend-jit` lists and runs them; the gallery of ported public operator kernels lives in the top-level `kernels/`
folder of a checkout, found from the current directory (or any parent holding a pyproject.toml beside a `kernels/`
folder), and `ascend-jit run path/to/file.py` runs any file that defines a KERNEL.
"""
import hashlib
import importlib.util
import sys
from importlib import import_module
from pathlib import Path

from ..errors import ParameterError

_MODULES = ("add_seed", "reduce_sum_highdim_seed", "reduce_sum_count_seed", "reduce_pair_seed", "reduce_data_block_seed",
            "tiled_reduce_sum", "tiled_add", "multi_block_reduce_sum", "atomic_sum")


def gallery_dir(start=None):
    """The checkout's top-level `kernels/` folder seen from `start` (default: the current directory), or None."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "kernels").is_dir() and (folder / "pyproject.toml").is_file():
            return folder / "kernels"
    return None


# resolved path -> (sha256 of its bytes, module, its KernelSpecs): the files load_file has run in this process
_LOADED = {}


def load_file(path):
    """The KernelSpecs a Python file defines (KERNEL and/or KERNELS), imported under a private module name. A file
    whose bytes are those this process last ran (its module still registered) gives the same specs and module again:
    a registry() call runs every gallery file, about a second for a gallery of 150 files, and tests and notebooks
    call it again and again; an edited file is run afresh. The bytes, not the modification time and size: a same-size
    edit within one timestamp tick, or a copy that keeps the time (cp -p, rsync -t), moves neither (audit41)."""
    path = Path(path).resolve()
    if not path.is_file():
        raise ParameterError("run", "kernel file", str(path), legal="an existing .py file defining KERNEL")
    # a name stable across processes and registered in sys.modules: numba's on-disk cache of a VF defined in the file
    # (@aj.Reg.simd_vf) records the module by name and imports it again when a later process loads the VF
    name = f"ascend_jit_user_kernel_{path.stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:16]}"
    stamp = hashlib.sha256(path.read_bytes()).digest()   # 150 files: a few milliseconds
    loaded = _LOADED.get(path)
    if loaded is not None and loaded[0] == stamp and sys.modules.get(name) is loaded[1]:
        return list(loaded[2])
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        if sys.modules.get(name) is module:   # another thread loading the same file may have removed or replaced it
            del sys.modules[name]
        raise
    found = ([module.KERNEL] if hasattr(module, "KERNEL") else []) + list(getattr(module, "KERNELS", ()))
    from ._base import KernelSpec
    # KERNEL = 5 (or a KERNELS entry that is no KernelSpec) had ended `ascend-jit run` in an AttributeError
    # traceback (audit17h)
    if not found or not all(isinstance(k, KernelSpec) for k in found):
        raise ParameterError("run", "kernel file", str(path), legal="a file defining KERNEL = KernelSpec(...) or "
                             "KERNELS = [...] (of KernelSpecs)")
    _LOADED[path] = (stamp, module, found)
    return list(found)


def registry(start=None):
    """name -> KernelSpec, in a stable order: the built-in set, then the checkout's gallery (file name order)."""
    specs = [import_module(f"{__name__}.{m}").KERNEL for m in _MODULES]
    folder = gallery_dir(start)
    if folder is not None:
        for path in sorted(folder.glob("*.py")):
            if not path.name.startswith("_"):
                specs.extend(load_file(path))
    return {k.name: k for k in specs}
