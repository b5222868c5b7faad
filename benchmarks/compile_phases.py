"""Where numba's compile time goes, by phase, for a pytest run in this process (issue 20: the cold suite's gap to the
warm one is cacheable compile; this splits it by what numba does rather than by what it compiles).

Each phase's CPU seconds are exclusive of the phases nested in it (typing a call compiles the callee: that callee's
phases count as its own), so the rows add up to the compile total:

- typing: numba's type inference pass (`NopythonTypeInference`);
- lowering: numba IR to LLVM IR (`NativeLowering`), the CPython wrapper included;
- LLVM function passes / module passes: numba's per-function and whole-module optimisation (`_optimize_functions`,
  `_optimize_final_module`: the cheap and the full pipeline, run twice for the Reg kernels, jit/reg.py);
- machine code: LLVM's code generation for the finished module (`JITCodeLibrary._finalize_specific`);
- cache save / load: numba's on-disk cache;
- front end, the rest: everything else inside `compile_extra` (bytecode analysis, SSA, the untyped rewrites, the
  inlining of `inline="always"` helpers, which is also shown alone below).

Not a test; run by hand on an empty cache, e.g.

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/compile_phases.py -- -q -p no:cacheprovider tests/test_reg_ops.py

Arguments after `--` go to pytest (default: tests/test_reg_ops.py tests/test_reg_move.py).
"""
import argparse
import collections
import functools
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's ascend_jit, not an installed one (python puts benchmarks/ first)

import pytest  # noqa: E402
from numba.core import caching, codegen, compiler, inline_closurecall, typed_passes  # noqa: E402

PHASES = (  # (owner, method, row); nested calls are charged to the innermost wrapped phase
    (compiler.CompilerBase, "compile_extra", "front end, the rest"),
    (typed_passes.NopythonTypeInference, "run_pass", "typing"),
    (typed_passes.NativeLowering, "run_pass", "lowering"),
    (codegen.CPUCodeLibrary, "_optimize_functions", "LLVM function passes"),
    (codegen.CPUCodeLibrary, "_optimize_final_module", "LLVM module passes"),
    (codegen.JITCodeLibrary, "_finalize_specific", "machine code"),
    (caching.Cache, "save_overload", "cache save"),
    (caching.Cache, "load_overload", "cache load"),
)


class PhaseTimer:
    def __init__(self):
        self.seconds = collections.defaultdict(float)
        self.calls = collections.Counter()
        self.nested = []  # per open phase: the CPU seconds of the phases inside it
        self.inline_seconds = 0.0
        self.inlines = 0

    def wrap(self, owner, method, row):
        original = getattr(owner, method)

        @functools.wraps(original)
        def timed(*args, **kwargs):
            start = time.process_time()
            self.nested.append(0.0)
            try:
                return original(*args, **kwargs)
            finally:
                inner = self.nested.pop()
                spent = time.process_time() - start
                self.seconds[row] += spent - inner
                self.calls[row] += 1
                if self.nested:
                    self.nested[-1] += spent
        setattr(owner, method, timed)

    def wrap_inlining(self):
        """inline="always": numba copies the callee's IR into each call site (inclusive time; part of the front
        end's row)."""
        original = inline_closurecall.InlineWorker.inline_function

        @functools.wraps(original)
        def timed(worker, *args, **kwargs):
            start = time.process_time()
            try:
                return original(worker, *args, **kwargs)
            finally:
                self.inline_seconds += time.process_time() - start
                self.inlines += 1
        inline_closurecall.InlineWorker.inline_function = timed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args()
    timer = PhaseTimer()
    for owner, method, row in PHASES:
        timer.wrap(owner, method, row)
    timer.wrap_inlining()
    start = time.process_time()
    status = pytest.main(args.pytest_args or ["-q", "-p", "no:cacheprovider", "tests/test_reg_ops.py",
                                              "tests/test_reg_move.py"])
    total = time.process_time() - start
    compiled = sum(timer.seconds.values())
    print(f"\ncompile phases (CPU s, exclusive), {compiled:.1f} s of the run's {total:.1f} s:")
    for row, seconds in sorted(timer.seconds.items(), key=lambda item: -item[1]):
        print(f"  {row:24s} {seconds:7.1f} s {100 * seconds / max(compiled, 1e-9):5.1f} %  ({timer.calls[row]} calls)")
    print(f"  of the front end: inlining inline=\"always\" helpers {timer.inline_seconds:.1f} s ({timer.inlines} "
          "call sites)")
    return status


if __name__ == "__main__":
    sys.exit(main())
