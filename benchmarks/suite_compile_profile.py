"""Where the default test suite spends its compile time (issue 20: the suite cold at most 1.3x warm).

Runs pytest in this process with a numba compile-event listener (`numba.core.event`, "numba:compile", fired only on
a cache miss) and sums the CPU and wall seconds of every outermost compile per test nodeid and per test file, and
per module that defined each compiled function (the library, a test file, a gallery kernel), exclusive of the
functions it compiled in turn. Child processes (the CLI and fuzzer tests) are counted apart, as the CPU seconds
their children used during each test (`RUSAGE_CHILDREN`). Not a test and no conftest: run it by hand, cold (empty
cache) and warm (the same cache again), or after `ascend-jit warmup` to see what the tests compile beyond it:

    export NUMBA_CACHE_DIR=$(mktemp -d)
    python benchmarks/suite_compile_profile.py --json out/cold.json -- -q -p no:cacheprovider
    python benchmarks/suite_compile_profile.py --json out/warm.json -- -q -p no:cacheprovider

Arguments after `--` go to pytest (default: the default suite, `-q -p no:cacheprovider`). The JSON holds every
compile (test, function, signature, CPU s).
"""
import argparse
import collections
import json
import pathlib
import resource
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's ascend_jit, not an installed one (python puts benchmarks/ first)

import numba.core.event as numba_event


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class CompileProfile(numba_event.Listener):
    """A numba event listener and a pytest plugin at once: compile seconds keyed on the running test."""

    def __init__(self):
        self.current = "collection"
        self.stack = []
        self.by_test = collections.defaultdict(lambda: [0.0, 0.0, 0])  # nodeid -> [CPU s, wall s, compiles]
        self.by_origin = collections.defaultdict(lambda: [0.0, 0])  # (test file, defining module) -> [CPU s, n]
        self.children = collections.defaultdict(float)  # nodeid -> child processes' CPU s
        self.compiles = []  # every compile: (nodeid, function, signature, CPU s exclusive of nested compiles)

    # numba.core.event.Listener
    def on_start(self, event):
        py_func = getattr(event.data.get("dispatcher"), "py_func", None)
        name = f"{getattr(py_func, '__module__', None)}.{getattr(py_func, '__qualname__', '?')}"
        # [module that defined the compiled function, CPU at start, wall at start, nested compiles' CPU s, name, sig]
        self.stack.append([getattr(py_func, "__module__", None) or "?", time.process_time(), time.perf_counter(), 0.0,
                           name, str(event.data.get("args"))])

    def on_end(self, event):
        origin, cpu_start, wall_start, nested, name, signature = self.stack.pop()
        cpu = time.process_time() - cpu_start
        wall = time.perf_counter() - wall_start
        self.compiles.append((self.current, name, signature, round(cpu - nested, 3)))
        entry = self.by_origin[(self.current.split("::")[0], origin)]  # exclusive of nested compiles
        entry[0] += cpu - nested
        entry[1] += 1
        if self.stack:
            self.stack[-1][3] += cpu
            return
        entry = self.by_test[self.current]
        entry[0] += cpu
        entry[1] += wall
        entry[2] += 1

    # pytest hooks
    def pytest_runtest_protocol(self, item, nextitem):
        self.current = item.nodeid
        self._children_before = _children_cpu()

    def pytest_runtest_logfinish(self, nodeid, location):
        spent = _children_cpu() - self._children_before
        if spent > 0:
            self.children[nodeid] += spent
        self.current = "teardown/collection"

    def report(self, top):
        per_file = collections.defaultdict(lambda: [0.0, 0.0, 0, 0.0])
        for nodeid, (cpu, wall, n) in self.by_test.items():
            entry = per_file[nodeid.split("::")[0]]
            entry[0] += cpu
            entry[1] += wall
            entry[2] += n
        for nodeid, cpu in self.children.items():
            per_file[nodeid.split("::")[0]][3] += cpu
        total = [sum(v[i] for v in per_file.values()) for i in range(4)]
        lines = [f"compile in this process: {total[0]:.1f} s CPU, {total[1]:.1f} s wall, {total[2]} compiles; "
                 f"child processes: {total[3]:.1f} s CPU",
                 "", f"{'test file':48} {'compile CPU s':>13} {'wall s':>8} {'compiles':>8} {'children CPU s':>14}"]
        for name, (cpu, wall, n, child) in sorted(per_file.items(), key=lambda kv: -(kv[1][0] + kv[1][3]))[:top]:
            lines.append(f"{name:48} {cpu:13.1f} {wall:8.1f} {n:8d} {child:14.1f}")
        lines += ["", "compile CPU s by the module defining the compiled function, exclusive of the nested compiles:",
                  f"{'test file':40} {'defining module':36} {'CPU s':>7} {'compiles':>8}"]
        for (name, origin), (cpu, n) in sorted(self.by_origin.items(), key=lambda kv: -kv[1][0])[:top]:
            lines.append(f"{name:40} {origin:36} {cpu:7.1f} {n:8d}")
        lines += ["", f"{'test':90} {'CPU s':>7}"]
        for nodeid, (cpu, _wall, _n) in sorted(self.by_test.items(), key=lambda kv: -kv[1][0])[:top]:
            lines.append(f"{nodeid[:90]:90} {cpu:7.1f}")
        return "\n".join(lines)

    def as_json(self):
        return {"by_test": dict(self.by_test), "children": dict(self.children), "compiles": self.compiles,
                "by_origin": {f"{a} | {b}": v for (a, b), v in self.by_origin.items()}}


def main():
    argv = sys.argv[1:]
    pytest_args = ["-q", "-p", "no:cacheprovider"]
    if "--" in argv:
        at = argv.index("--")
        argv, pytest_args = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the raw tables here")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)

    import pytest

    profile = CompileProfile()
    numba_event.register("numba:compile", profile)
    started = time.process_time(), time.perf_counter()
    status = pytest.main(pytest_args, plugins=[profile])
    cpu, wall = time.process_time() - started[0], time.perf_counter() - started[1]
    print(f"\npytest {' '.join(pytest_args)}: exit {int(status)}, {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"(this process) + {_children_cpu():.1f} s CPU (children)\n")
    print(profile.report(args.top))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(profile.as_json(), out, indent=1)
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
