"""Tiled GM workloads end to end, and multi-block launches serial against parallel (issue 21).

    NUMBA_NUM_THREADS=1 python benchmarks/tiled_throughput.py [--rounds 7] [--size 16Mi] [--device atlas-a2]

Reported, not asserted (the figures go into BENCHMARKS.md). Rounds are interleaved: each round runs every case
once, in the same order, so a change in the machine's load hits every case of a round alike; the table gives
each case's best and median round. Per case: wall time, CPU time of the whole process (all threads) and
elements/s from the wall time; numpy float32 `np.sum` / `np.add` on the same number of elements are the
baselines measured in the same rounds.

Cases:
- tiled_reduce_sum / tiled_add: the package's kernels (ascend_jit/kernels/), one core, KernelSpec.run
  (GM arrays in, GM arrays out: the padding copies and output allocation included);
- multi_block serial / threads: multi_block_reduce_sum.run with aj.launch(parallel=False) and parallel=True
  (8 blocks); the ratio serial / threads is the speed-up the launch gets from the machine's cores.

Then, once: the share of a serial multi-block launch spent inside compiled kernels, which run without the GIL
(every call through jit/direct.py's EntryTable timed). With a share f outside the GIL, N threads can run at most
min(N, 1 / (1 - f)) times the serial rate: the bound a loaded machine cannot show in wall time.
"""
import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's ascend_jit

import numpy as np  # noqa: E402

from ascend_jit.kernels import multi_block_reduce_sum as mb, tiled_add as ta, tiled_reduce_sum as tr  # noqa: E402
from ascend_jit.sweeps import parse_size  # noqa: E402


def cases(device, n):
    x16 = tr.make_inputs(n, 1)
    add_in = ta.make_inputs(n, 1)
    x32 = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    y32 = np.random.default_rng(2).standard_normal(n).astype(np.float32)
    return {
        "tiled_reduce_sum": lambda: tr.run(device, x16),
        "np.sum float32": lambda: np.sum(x32),
        "tiled_add": lambda: ta.run(device, add_in),
        "np.add float32": lambda: np.add(x32, y32),  # a fresh output, as the kernel's run allocates z
        "multi_block serial": lambda: mb.run(device, x16, parallel=False),
        "multi_block threads": lambda: mb.run(device, x16, parallel=True),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--size", default="16Mi")
    parser.add_argument("--device", default="atlas-a2")
    args = parser.parse_args()
    n = parse_size(args.size)
    work = cases(args.device, n)
    for fn in work.values():  # compile or load every kernel, fill the validation memos
        fn()
    wall = {k: [] for k in work}
    cpu = {k: [] for k in work}
    for _ in range(args.rounds):
        for name, fn in work.items():
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
    print(f"{n} elements, {args.device}, {args.rounds} interleaved rounds; os.cpu_count() = {os.cpu_count()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'case':22s} {'best wall':>10s} {'median':>10s} {'CPU (best)':>10s} {'elements/s (best)':>18s}")
    for name in work:
        best, med = min(wall[name]), statistics.median(wall[name])
        print(f"{name:22s} {best * 1e3:8.1f}ms {med * 1e3:8.1f}ms {min(cpu[name]) * 1e3:8.1f}ms {n / best:18.3e}")
    for a, b in (("tiled_reduce_sum", "np.sum float32"), ("tiled_add", "np.add float32")):
        ratios = [x / y for x, y in zip(wall[a], wall[b])]
        print(f"{a} / {b}: {statistics.median(ratios):.2f}x (median of per-round ratios)")
    ratios = [s / p for s, p in zip(wall["multi_block serial"], wall["multi_block threads"])]
    cpu_ratio = [c / w for c, w in zip(cpu["multi_block threads"], wall["multi_block threads"])]
    print(f"multi_block threads speed-up over serial: median {statistics.median(ratios):.2f}x, per round "
          + ", ".join(f"{r:.2f}" for r in ratios) + f"; threads' CPU / wall: {statistics.median(cpu_ratio):.2f} "
          "(cores kept busy)")
    report_nogil(work)
    report_tiled_add(work)


def nogil_share(fn, also=()):
    """(share of fn's wall time inside EntryTable calls, calls): the compiled kernels, which release the GIL.
    `also`: names of ascend_jit functions whose whole calls are timed too (shares of the wall time, in order)."""
    import ascend_jit
    from ascend_jit.jit import direct
    inside, calls, original = [0.0], [0], direct.EntryTable.__call__
    extra = {name: [0.0] for name in also}
    saved = {name: getattr(ascend_jit, name) for name in also}

    def timed_call(self, key, kernel, *args):
        t0 = time.perf_counter()
        try:
            return original(self, key, kernel, *args)
        finally:
            inside[0] += time.perf_counter() - t0
            calls[0] += 1

    def timed(name):
        def call(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return saved[name](*args, **kwargs)
            finally:
                extra[name][0] += time.perf_counter() - t0
        return call

    direct.EntryTable.__call__ = timed_call
    for name in also:
        setattr(ascend_jit, name, timed(name))
    try:
        t0 = time.perf_counter()
        fn()
        total = time.perf_counter() - t0
    finally:
        direct.EntryTable.__call__ = original
        for name in also:
            setattr(ascend_jit, name, saved[name])
    if also:
        return inside[0] / total, calls[0], [extra[name][0] / total for name in also]
    return inside[0] / total, calls[0]


def report_tiled_add(work):
    """Where the tiled add's time goes: the copies' kernels, the Add calls (dispatch and kernel), the rest."""
    runs = [nogil_share(work["tiled_add"], also=("Add",)) for _ in range(3)]
    copies, _, (add,) = min(runs, key=lambda r: r[0] + r[2][0])
    print(f"tiled_add: {copies:.0%} of the time in the DataCopy kernels, {add:.0%} in the Add calls (dispatch and "
          f"kernel), {1 - copies - add:.0%} in the rest (queue operations, sub-tensors, DataCopy's Python)")


def report_nogil(work):
    shares = [nogil_share(work["multi_block serial"]) for _ in range(3)]
    f, calls = max(shares)
    print(f"serial multi_block: {f:.0%} of the time inside {calls} compiled-kernel calls (GIL released): "
          f"2 threads at most {min(2.0, 1 / (1 - f)):.2f}x serial, {os.cpu_count()} cores at most "
          f"{min(float(os.cpu_count()), 1 / (1 - f)):.2f}x")


if __name__ == "__main__":
    main()
