"""`ascend-jit warmup`: compile every instruction family into the numba cache up front (issue 20), for CI images
and for users who would rather pay the compile cost once than on each family's first call.

`FAMILIES` is the one table: family name -> "module:function" of its warmup function. A warmup function takes a
device name and makes the calls that compile the family's kernels for that device (each dtype it offers, each
form), doing nothing on devices without the family. Functions are imported only when run, so the table itself
compiles nothing. A new family adds a row and a `warmup(device)` beside its API; the "registry" row runs every
registered instruction's minimal example, so an instruction whose family has no row yet is still compiled.
"""
import importlib
import time

import numpy as np

from . import reg as R
from .api.utils import AlignUp, ConstCeil, DivCeil

FAMILIES = {
    "elementwise": "ascend_jit.warmup:warm_elementwise",
    "reduce_sum": "ascend_jit.api.reduce_sum:warmup",
    "reduce_pair": "ascend_jit.api.reduce_pair:warmup",
    "group_reductions": "ascend_jit.warmup:warm_group_reductions",
    "reg": "ascend_jit.warmup:warm_reg",
    "study": "ascend_jit.warmup:warm_study",
    "registry": "ascend_jit.warmup:warm_registry",
}


def warmup_function(family):
    module, _, name = FAMILIES[family].partition(":")
    return getattr(importlib.import_module(module), name)


# single-process CPU seconds per family on every device (session 18, idle): only the order in which `jobs` worker
# processes take the families, the longest first, so that the last one to finish started early
_SECONDS = {"registry": 78, "elementwise": 52, "reg": 26, "reduce_sum": 15}


def run_warmup(devices=None, families=None, progress=None, cpu=None, jobs=1):
    """Warm `families` (default all) on `devices` (default every supported one); returns {family: seconds}.
    progress(done, total, label) is called before each step (with jobs > 1: as it starts, `done` the steps started
    before it) and once at the end. A dict `cpu` receives the CPU
    seconds per family (the steadier figure on a shared machine, where the wall time follows the neighbours).
    jobs > 1 warms whole families in that many worker processes at once (one family's devices share its kernels, so
    a family stays in one process); the seconds are then each family's own, in its worker."""
    from .devices import SUPPORTED_NAMES, get_device
    from .errors import ParameterError
    specs = [get_device(d) for d in (devices or SUPPORTED_NAMES)]
    for spec in specs:  # the Vector Core runs no API: warming it had done nothing and said "total 0.0 s" (audit45)
        spec.require_supported("warmup")
    devices = [spec.name for spec in specs]
    families = list(families or FAMILIES)
    for f in families:
        if f not in FAMILIES:
            raise ParameterError("warmup", "family", f, legal=", ".join(FAMILIES))
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or not 1 <= jobs <= 64:
        raise ParameterError("warmup", "jobs", jobs, legal="an integer in [1, 64] (worker processes)")
    if jobs > 1 and len(families) > 1:
        return _run_parallel(devices, families, int(jobs), progress, cpu)
    steps = [(f, d) for f in families for d in devices]
    seconds = dict.fromkeys(families, 0.0)
    for i, (family, device) in enumerate(steps):
        if progress:
            progress(i, len(steps), f"{family} on {device}")
        wall, used = _warm_step(family, device)
        seconds[family] += wall
        if cpu is not None:
            cpu[family] = cpu.get(family, 0.0) + used
    if progress:
        progress(len(steps), len(steps), "done")
    return seconds


def _warm_step(family, device):
    """One family on one device; returns (wall, CPU) seconds."""
    from .sanitizer import sanitize_session
    t0, c0 = time.perf_counter(), time.process_time()
    # warmup compiles; its calls on never-written operands are not a kernel, and a sanitizing core would run the Reg
    # VFs uncompiled (issue 17): its cores never sanitize, whatever session or ASCEND_JIT_SANITIZE says
    with sanitize_session(False):
        warmup_function(family)(device)
    return time.perf_counter() - t0, time.process_time() - c0


def _warm_family(family, devices, events):
    """A worker process's task: `family` on every device, each step announced on the `events` queue."""
    wall = used = 0.0
    for device in devices:
        events.put(f"{family} on {device}")
        w, c = _warm_step(family, device)
        wall, used = wall + w, used + c
    return family, wall, used


def _run_parallel(devices, families, jobs, progress, cpu):
    """run_warmup's families in `jobs` spawned worker processes (numba's cache takes concurrent writers: each entry
    is written to a temporary file and renamed; tests/test_cache_location.py). Fresh interpreters, not forks: the
    parent may already hold compiled code and numba's threads."""
    import multiprocessing
    import queue
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    context = multiprocessing.get_context("spawn")
    total, started = len(families) * len(devices), 0
    seconds = {}
    with context.Manager() as manager, ProcessPoolExecutor(min(jobs, len(families)), mp_context=context) as pool:
        events = manager.Queue()
        pending = {pool.submit(_warm_family, f, devices, events)
                   for f in sorted(families, key=lambda f: -_SECONDS.get(f, 0))}
        while pending:
            done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in done:
                family, wall, used = future.result()   # a worker's exception is raised here
                seconds[family] = wall
                if cpu is not None:
                    cpu[family] = cpu.get(family, 0.0) + used
            try:
                while True:
                    label = events.get_nowait()
                    if progress:
                        progress(started, total, label)
                    started += 1
            except queue.Empty:
                pass
    if progress:
        progress(total, total, "done")
    return {f: seconds[f] for f in families}


def progress_bar(stream):
    """A minimal progress bar on a terminal (no dependency); None (silent) when the stream is not a TTY."""
    if not stream.isatty():
        return None

    def update(done, total, label):
        filled = int(30 * done / total)
        stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total} {label:40.40s}")
        if done == total:
            stream.write("\n")
        stream.flush()
    return update


# --- families whose API module belongs to another part of the code: their warmup lives here --------------------------
def warm_elementwise(device):
    """The element-wise engine's high-dim walks: every row's high-dim form on every dtype the op table gives the
    device (a lane mask of half the lanes, so the walk is the repeat kernel: a full mask with the default strides
    runs as the count form), and the mixed-width calls (half sources, float dst, D33) in both forms. The repeat
    kernels have a compiled specialisation per dtype class (every op of a class shares it), so the later rows of a
    class cost a call each, no compile; the count forms of the one-dtype calls come with the "registry" row (each
    instruction's minimal example)."""
    from .api.elementwise import _TENSORS, ENTRIES, OPS, BinaryRepeatParams, CopyRepeatParams
    from .api._common import UnaryRepeatParams
    from .core import Core
    from .devices import get_device
    name = get_device(device).name
    params = {"binary": BinaryRepeatParams(), "ternary": BinaryRepeatParams(), "copy": CopyRepeatParams(1, 1, 8, 8)}
    for row in OPS.values():
        if row.arity in ("fill", "brcb"):  # one kernel for both forms (the registry row compiles it)
            continue
        entry = ENTRIES[row.name]
        pairs = [(d, d) for d in row.dtypes.get(name, ())] + [(d, s) for s, d in (row.mixed or {}).get(name, ())]
        for dst_dtype, src_dtype in pairs:
            core = Core(device)
            dst = core.local_tensor(dst_dtype, 256)
            srcs = [core.local_tensor(src_dtype, 256) for _ in _TENSORS[row.arity][1:]]
            scalar = (1,) if row.arity in ("scalar", "axpy") else ()
            if dst_dtype != src_dtype:
                entry(dst, *srcs[:1], *scalar, *srcs[1:], 64)
            if dst_dtype not in row.count_only.get(name, ()):
                tail = (256 // dst.dtype.size // 2, 2, params.get(row.arity, UnaryRepeatParams()))
                entry(dst, *srcs[:1], *scalar, *srcs[1:], *tail)


def _block_sums_vf(dst, src, count, one_repeat, repeats, dtype):
    """The seed's ReduceDataBlock VF: per repeat LoadAlign, UpdateMask, ReduceDataBlock, StoreAlign."""
    src_reg, dst_reg = R.RegTensor(dtype), R.RegTensor(dtype)
    for i in range(repeats):
        R.LoadAlign(src_reg, src, i * one_repeat)
        mask, count = R.UpdateMask(dtype, count)
        R.ReduceDataBlock(dst_reg, src_reg, mask)
        R.StoreAlign(dst, dst_reg, mask, i * one_repeat)


def _add_vf(dst, src, dtype):
    """Add in a VF: its hot-path kernel (reg_ops.half_binary_hot) is the VF path's alone."""
    reg = R.RegTensor(dtype)
    mask = R.CreateMask(dtype)
    R.LoadAlign(reg, src, 0)
    R.Add(reg, reg, reg, mask)
    R.StoreAlign(dst, reg, mask, 0)


def _moves_vf(dst, src):
    """The loads and stores of forms other than DIST_NORM (a dist, two registers, data blocks, unaligned, a MaskReg)
    and a MaskReg Interleave: their kernels take the dtype at run time, so half compiles them for every dtype."""
    a, b, every, m = R.RegTensor("half"), R.RegTensor("half"), R.CreateMask("half"), R.MaskReg()
    R.LoadAlign(a, src, 0, dist=R.LoadDist.DIST_BRC_B16)
    R.StoreAlign(dst, a, every, 0, dist=R.StoreDist.DIST_NORM_B16)
    R.LoadAlign(a, b, src, 0, dist=R.LoadDist.DIST_DINTLV_B16)
    R.StoreAlign(dst, a, b, every, 0, dist=R.StoreDist.DIST_INTLV_B16)
    R.LoadAlign(a, src, 0, data_block_stride=1, mask=every)
    R.StoreAlign(dst, a, 0, data_block_stride=1, mask=every)
    load_state, store_state = R.UnalignRegForLoad(), R.UnalignRegForStore()
    R.LoadUnAlignPre(load_state, src, 1)
    R.LoadUnAlign(a, load_state, src, 1)
    R.StoreUnAlignPost(dst, store_state, R.StoreUnAlign(dst, a, store_state, 1, 100))
    R.LoadAlign(m, src, 0)
    R.StoreAlign(dst, m, 0)
    R.Interleave(m, R.MaskReg(), every, m, "half")


def _sizes_vf(dst, src, count):
    """DivCeil / ConstCeil / AlignUp sizing a VF's loop: their kernel (reg.py _uint32_ceil) is the VF path's alone."""
    a, every = R.RegTensor("half"), R.CreateMask("half")
    for i in range(DivCeil(count, 128) + ConstCeil(count, 128) - AlignUp(count, 128) // 128):
        R.LoadAlign(a, src, i * 128)
        R.StoreAlign(dst, a, every, i * 128)


def warm_reg(device):
    """The Reg API (Ascend 950 only), half and float: a VF compiled with simd_vf, and the same calls in plain
    Python (they run the library's compiled implementations); the other load and store forms in a VF, and Add in a
    VF for each dtype class (its kernel is the VF path's own; plain Reg calls compile the other kernels a VF's calls
    reach: the registry family)."""
    from .core import Core
    from .devices import get_device
    if get_device(device).name != R.DEVICE:
        return
    core = Core(device)
    for dtype in ("half", "float"):
        src, dst = core.local_tensor(dtype, 512), core.local_tensor(dtype, 512)
        lanes = 256 // src.dtype.size
        with core:
            R.simd_vf(_block_sums_vf)(dst, src, 2 * lanes, lanes, 2, dtype)
            _block_sums_vf(dst, src, 2 * lanes, lanes, 2, dtype)
    src, dst = core.local_tensor("half", 1024), core.local_tensor("half", 1024)
    with core:
        R.simd_vf(_moves_vf)(dst, src)
        R.simd_vf(_sizes_vf)(dst, src, 256)
    add_vf = R.simd_vf(_add_vf)
    for dtype in ("half", "float", "int32"):
        src, dst = core.local_tensor(dtype, 128), core.local_tensor(dtype, 128)
        with core:
            add_vf(dst, src, dtype)


def warm_study(device):
    """The study's what-if summation orders (device independent: compiled on the first device only)."""
    from .jit.numerics import KIND_HALF
    from .jit.orders import pairwise_sum, sequential_sum, wide_sum
    vals = np.ones(4, np.float32)
    for order in (sequential_sum, pairwise_sum, wide_sum):
        order(vals, KIND_HALF, False)


def warm_group_reductions(device):
    """The group reductions' masked calls: the registry row's examples (every lane, contiguous) compile the SUM
    kernel without its repeat walk (jit/reductions.py group_sum_kernel, `strided`) and float MAX/MIN's row scan
    only; a lane masked compiles the rest (WholeReduceSum/Max share their kernels with the other group reductions)."""
    from .api.registry import INSTRUCTIONS
    from .core import Core
    from .devices import get_device
    spec = get_device(device)
    for inst in INSTRUCTIONS:
        if inst.name in ("WholeReduceSum", "WholeReduceMax") and inst.offered(spec):
            for dtype in inst.dtypes(spec):
                (dst, src), _ = inst.example(Core(device), dtype)
                inst.entry(dst, src, src.dtype.lanes_per_repeat - 1, 1, 1, 1, 8)


def warm_registry(device):
    """Every registered instruction's minimal example, each dtype the device offers (instructions the device does not
    offer are skipped)."""
    from .api.registry import INSTRUCTIONS
    from .core import Core
    from .devices import get_device
    spec = get_device(device)
    for inst in INSTRUCTIONS:
        if not inst.offered(spec):
            continue
        for dtype in inst.dtypes(spec):
            tensors, call = inst.example(Core(device), dtype)
            call(*tensors)
