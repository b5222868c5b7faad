"""What each process of the parallel test suite compiles, cold against warm (issue 20: cold at most 1.3x warm).

`suite_compile_profile.py` runs the suite in one process; CI runs it on every core (`-n auto --dist loadfile`), where
two workers may compile the same kernel at once, cache writes add to the compile, and the child processes that the
CLI, plugin and cache tests start compile or load on their own. This file is a pytest plugin that each worker loads:
suite_compile_profile's numba compile-event listener (fired only on a cache miss) records every compile (function,
signature, CPU seconds exclusive of the compiles nested in it), numba's cache writes and loads are timed, and so is
LLVM's share of the compiles (its optimisation passes and its machine-code generation); at the end each process
writes its figures, with its own and its children's CPU seconds (`RUSAGE_CHILDREN`), as JSON. Not a
test: run it by hand, cold (empty cache) and then warm (the same cache), from a checkout:

    export NUMBA_CACHE_DIR=$(mktemp -d)
    PYTHONPATH=benchmarks PROFILE_OUT=out/cold python -m pytest -q -n auto --dist loadfile -p suite_workers_profile \
        -p no:cacheprovider
    PYTHONPATH=benchmarks PROFILE_OUT=out/warm python -m pytest -q -n auto --dist loadfile -p suite_workers_profile \
        -p no:cacheprovider
    python benchmarks/suite_workers_profile.py out/cold out/warm
"""
import collections
import json
import os
import pathlib
import sys
import time

import numba.core.event as numba_event
from llvmlite.binding import newpassmanagers
from numba.core import caching, codegen

from suite_compile_profile import CompileProfile, _children_cpu   # its compile listener; the test keys unused

_PROFILE = CompileProfile()
numba_event.register("numba:compile", _PROFILE)
_CACHE_SECONDS = {"save": 0.0, "load": 0.0}
_CACHE_CALLS = {"save": 0, "load": 0, "load_hit": 0}


def _time_cache(method, kind):
    """Wrap numba's Cache.save_overload / load_overload: their CPU seconds outside any compile (a nested compile's
    cache traffic is already inside its caller's compile seconds)."""
    def timed(cache, *args, **kwargs):
        start = time.process_time()
        result = method(cache, *args, **kwargs)
        if not _PROFILE.stack:
            _CACHE_SECONDS[kind] += time.process_time() - start
        _CACHE_CALLS[kind] += 1
        if kind == "load" and result is not None:
            _CACHE_CALLS["load_hit"] += 1
        return result
    return timed


caching.Cache.save_overload = _time_cache(caching.Cache.save_overload, "save")
caching.Cache.load_overload = _time_cache(caching.Cache.load_overload, "load")

# LLVM's part of the compiles: numba runs function passes on each new module, module passes on each library's final
# module (the function with every jitted callee it links), then has LLVM generate its machine code (numba's
# _finalize_specific, which a cache load also runs: only the seconds inside a compile count). The rest of a compile is
# numba's own Python: typing, lowering to LLVM IR, wrappers, caching.
_LLVM_SECONDS = {"function passes": 0.0, "module passes": 0.0, "machine code": 0.0}


def _time_llvm(owner, name, kind):
    method = getattr(owner, name, None)
    if method is None:  # another numba or llvmlite: that part goes unmeasured
        return

    def timed(*args, **kwargs):
        start = time.process_time()
        try:
            return method(*args, **kwargs)
        finally:
            if _PROFILE.stack:
                _LLVM_SECONDS[kind] += time.process_time() - start
    setattr(owner, name, timed)


_time_llvm(newpassmanagers.FunctionPassManager, "run", "function passes")
_time_llvm(newpassmanagers.ModulePassManager, "run", "module passes")
_time_llvm(codegen.JITCodeLibrary, "_finalize_specific", "machine code")


def pytest_sessionfinish(session):
    compiles = [(function, signature, round(cpu, 4)) for _test, function, signature, cpu in _PROFILE.compiles]
    figures = dict(process_cpu=time.process_time(), children_cpu=_children_cpu(), cache_seconds=_CACHE_SECONDS,
                   cache_calls=_CACHE_CALLS, llvm_seconds=_LLVM_SECONDS, compiles=compiles)
    out = pathlib.Path(os.environ.get("PROFILE_OUT", "suite_workers_profile"))
    out.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "controller")
    (out / f"{worker}-{os.getpid()}.json").write_text(json.dumps(figures))


def _category(function):
    if function.startswith("ascend_jit_user_kernel"):
        return "gallery kernels' VFs"
    if function.startswith("ascend_jit."):
        return "library"
    if function.startswith("test_"):
        return "test files' VFs and helpers"
    if function.startswith("None."):
        return "exec-defined (never cached)"
    return "numba and other"


def _summarise(directory):
    runs = {path.stem.split("-")[0]: json.loads(path.read_text()) for path in pathlib.Path(directory).glob("*.json")}
    workers = sorted(name for name in runs if name != "controller")
    print(f"{directory}:")
    for name in workers:
        run = runs[name]
        compile_cpu = sum(row[2] for row in run["compiles"])
        cache = run["cache_seconds"]
        print(f"  {name}: process {run['process_cpu']:.1f} s CPU, compiles {compile_cpu:.1f} s"
              f" ({len(run['compiles'])}), cache writes {cache['save']:.1f} s, loads {cache['load']:.1f} s"
              f" ({run['cache_calls']['load_hit']} hits), children {run['children_cpu']:.1f} s CPU")
        llvm = run.get("llvm_seconds", {})
        print(f"      LLVM {sum(llvm.values()):.1f} s of it: " + ", ".join(f"{k} {v:.1f}" for k, v in llvm.items()))
    by_category = collections.Counter()
    for name in workers:
        for function, _, cpu in runs[name]["compiles"]:
            by_category[_category(function)] += cpu
    print("  compile CPU s by what was compiled: " + ", ".join(f"{k} {v:.1f}" for k, v in by_category.most_common()))
    if len(workers) == 2:
        costs = [collections.defaultdict(float) for _ in workers]
        for cost, name in zip(costs, workers):
            for function, signature, cpu in runs[name]["compiles"]:
                cost[(function, signature)] += cpu
        both = set(costs[0]) & set(costs[1])
        print(f"  compiled in both workers: {len(both)} (function, signature) pairs, "
              f"{sum(min(costs[0][k], costs[1][k]) for k in both):.1f} s CPU the second time")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for directory in sys.argv[1:]:
        _summarise(directory)
