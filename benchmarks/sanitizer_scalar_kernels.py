"""The sanitizer on gallery kernels that walk rows by the scalar unit (session 41): best of a few sanitized runs
(report mode) of ReduceMinV2's running minimum per row and Logdet's blocked LU, with the kernels' own
synchronisation and with Logdet's original (which races: about 108,000 reports), and a second `registry()` call.
Compare two trees by PYTHONPATH, from a checkout's root (the gallery is found from the current directory):

    PYTHONPATH=<tree> python benchmarks/sanitizer_scalar_kernels.py
"""
import inspect
import time

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels import registry


def _module(name):
    return inspect.getmodule(registry()[name].run)


def _best(fn, mode, rounds):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        with aj.sanitize_session(mode) as session:
            fn()
        times.append(time.perf_counter() - start)
    return min(times), len(session.reports)


def main():
    reduce_min, logdet = _module("reduce_min_v2"), _module("logdet")
    x = (np.random.default_rng(1).standard_normal((1501, 48)) * 50).astype(np.float16)
    a = logdet.make_batch(209, 1, 3)
    reduce_min.run_reduce_min("atlas-a2", x, 1)   # compiles and first-call caches out of the timings
    logdet.run_logdet("atlas-a2", a)
    cases = [("ReduceMinV2 (1501, 48) half, axis 1", lambda: reduce_min.run_reduce_min("atlas-a2", x, 1), 3),
             ("Logdet n = 209, BLOCKED (atlas-a2)", lambda: logdet.run_logdet("atlas-a2", a), 3)]
    for name, fn, rounds in cases:
        print("%s, sanitized: %.2f s (%d reports)" % ((name,) + _best(fn, "report", rounds)))
    original, logdet.ORIGINAL_SYNC = logdet.ORIGINAL_SYNC, True
    try:
        print("Logdet n = 209, the original's sync, sanitized: %.2f s (%d reports)"
              % _best(lambda: logdet.run_logdet("atlas-a2", a), "report", 2))
    finally:
        logdet.ORIGINAL_SYNC = original
    start = time.perf_counter()
    registry()
    print("registry() again: %.3f s" % (time.perf_counter() - start))


if __name__ == "__main__":
    main()
