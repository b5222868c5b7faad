"""What each process of the parallel test suite compiles, cold against warm (issue 20: cold at most 1.3x warm).

`suite_compile_profile.py` runs the suite in one process; CI runs it on every core (`-n auto --dist loadfile`), where
two workers may compile the same kernel at once, cache writes add to the compile, and the child processes that the
CLI, plugin and cache tests start compile or load on their own. This file is a pytest plugin that each worker loads:
a numba compile-event listener (fired only on a cache miss) records every compile (function, signature, CPU seconds
exclusive of the compiles nested in it), and numba's cache writes and loads are timed; at the end each process writes
its figures, with its own and its children's CPU seconds (`RUSAGE_CHILDREN`), as JSON. Not a test: run it by hand,
cold (empty cache) and then warm (the same cache), from a checkout:

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
import resource
import sys
import time

import numba.core.event as numba_event
from numba.core import caching


class _Profile(numba_event.Listener):
    def __init__(self):
        self.stack = []  # open compiles: [function, signature, CPU at start, nested compiles' CPU]
        self.compiles = []  # (function, signature, CPU s exclusive of nested compiles)
        self.cache_seconds = {"save": 0.0, "load": 0.0}
        self.cache_calls = {"save": 0, "load": 0, "load_hit": 0}

    def on_start(self, event):
        py_func = getattr(event.data.get("dispatcher"), "py_func", None)
        name = f"{getattr(py_func, '__module__', None)}.{getattr(py_func, '__qualname__', '?')}"
        self.stack.append([name, str(event.data.get("args")), time.process_time(), 0.0])

    def on_end(self, event):
        name, signature, cpu_start, nested = self.stack.pop()
        cpu = time.process_time() - cpu_start
        if self.stack:
            self.stack[-1][3] += cpu
        self.compiles.append((name, signature, round(cpu - nested, 4)))

    def time_cache(self, method, kind):
        """Wrap numba's Cache.save_overload / load_overload: their CPU seconds outside any compile (a nested
        compile's cache traffic is already inside its caller's compile seconds)."""
        def timed(cache, *args, **kwargs):
            start = time.process_time()
            result = method(cache, *args, **kwargs)
            if not self.stack:
                self.cache_seconds[kind] += time.process_time() - start
            self.cache_calls[kind] += 1
            if kind == "load" and result is not None:
                self.cache_calls["load_hit"] += 1
            return result
        return timed


_PROFILE = _Profile()
numba_event.register("numba:compile", _PROFILE)
caching.Cache.save_overload = _PROFILE.time_cache(caching.Cache.save_overload, "save")
caching.Cache.load_overload = _PROFILE.time_cache(caching.Cache.load_overload, "load")


def pytest_sessionfinish(session):
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    figures = dict(process_cpu=time.process_time(), children_cpu=children.ru_utime + children.ru_stime,
                   cache_seconds=_PROFILE.cache_seconds, cache_calls=_PROFILE.cache_calls, compiles=_PROFILE.compiles)
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
