"""Cold compile time of the element-wise family's first calls (issue 13), one process for the whole family
(benchmarks/compile_times.py measures every instruction's first call in a process of its own).

    python benchmarks/compile_times_elementwise.py

Runs two fresh processes on one empty NUMBA_CACHE_DIR: the first compiles (cold), the second loads the cache
(warm). Each process times the first call of every arity (binary, tensor-scalar, unary, multiply-add, fill) and then
of every other instruction and form, and prints the per-call and total seconds, wall and CPU (user + system; on a
shared machine the wall time also counts other processes' turns, the CPU time does not).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, resource, time
import numpy as np
cpu = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_utime + resource.getrusage(resource.RUSAGE_SELF).ru_stime
t0, c0 = time.perf_counter(), cpu()
import ascend_jit as aj
timings = {"import": (time.perf_counter() - t0, cpu() - c0)}
core = aj.Core("atlas-a2")
h = [core.local_tensor("half", 256) for _ in range(3)]
f = core.local_tensor("float", 256)
P, U = aj.BinaryRepeatParams(), aj.UnaryRepeatParams()
calls = [
    ("binary count (Add)", lambda: aj.Add(*h, 256)),
    ("binary high-dim (Sub)", lambda: aj.Sub(h[0], h[1], h[2], [2**64 - 1, 1], 2, P)),
    ("tensor-scalar count (Adds)", lambda: aj.Adds(h[0], h[1], 1.5, 256)),
    ("tensor-scalar high-dim (Muls)", lambda: aj.Muls(h[0], h[1], 1.5, [7, 7], 2, U)),
    ("unary count (Exp)", lambda: aj.Exp(h[0], h[1], 256)),
    ("unary high-dim (Sqrt)", lambda: aj.Sqrt(h[0], h[1], [3, 3], 2, U)),
    ("unary float (Ln)", lambda: aj.Ln(f, f, 64)),
    ("multiply-add count (MulAddDst)", lambda: aj.MulAddDst(*h, 256)),
    ("multiply-add high-dim (Axpy)", lambda: aj.Axpy(h[0], h[1], 0.5, [9, 9], 2, U)),
    ("fill (Duplicate)", lambda: aj.Duplicate(h[0], 1.0, 256)),
    ("fill high-dim (Duplicate)", lambda: aj.Duplicate(h[0], 1.0, [5, 5], 2, 1, 8)),
    ("Brcb", lambda: aj.Brcb(h[0], h[1], 2, (1, 8))),
    ("every other instruction", lambda: [aj.Mul(*h, 256), aj.Div(*h, 256), aj.Max(*h, 256), aj.Rsqrt(h[0], h[1], 256),
                                         aj.Reciprocal(h[0], h[1], 256), aj.FusedMulAdd(*h, 256)]),
]
for name, call in calls:
    t, c = time.perf_counter(), cpu()
    call()
    timings[name] = (time.perf_counter() - t, cpu() - c)
timings["the whole process"] = (time.perf_counter() - t0, cpu())
print(json.dumps(timings))
"""


def run(cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, NUMBA_NUM_THREADS="1",
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out), time.perf_counter() - t


def main():
    with tempfile.TemporaryDirectory() as cache_dir:
        cold, cold_wall = run(cache_dir)
        warm, warm_wall = run(cache_dir)
    print(f"{'first call (seconds)':34s} {'cold wall':>9s} {'cold cpu':>9s} {'warm wall':>9s} {'warm cpu':>9s}")
    for name in cold:
        print(f"{name:34s} {cold[name][0]:9.2f} {cold[name][1]:9.2f} {warm[name][0]:9.2f} {warm[name][1]:9.2f}")
    calls = [k for k in cold if k not in ("import", "the whole process")]
    family = [sum(t[k][i] for k in calls) for t in (cold, warm) for i in (0, 1)]
    print(f"{'whole family (calls only)':34s} {family[0]:9.2f} {family[1]:9.2f} {family[2]:9.2f} {family[3]:9.2f}")
    print(f"{'process (python start included)':34s} {cold_wall:9.2f} {'':9s} {warm_wall:9.2f}")


if __name__ == "__main__":
    main()
