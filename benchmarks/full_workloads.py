"""Full-size gallery workloads end to end, next to numpy on the same data, and where each kernel's time goes
(session 46). Run by hand; reported, not asserted (the figures go into BENCHMARKS.md):

    NUMBA_NUM_THREADS=1 python benchmarks/full_workloads.py [--rounds 7] [--only NAME] [--shares]

Every case runs the gallery kernel's KernelSpec.run (GM arrays in, GM arrays out) on one host thread: launches are
made serial (aj.launch(parallel=False)), so a case's CPU time is the sum of its blocks' and does not depend on how
many cores the machine lends the launch's block threads. Rounds are interleaved (every case once per round, in the
same order), so a slow phase of a shared machine hits every case alike; the table gives each case's best and
median round of CPU time (time.process_time) and elements per CPU second. numpy's float32 formulas of softmax,
RMSNorm and LayerNorm and a half add run on the same inputs in the same rounds.

--shares (a fresh process: every compiled-kernel entry is timed from its first fetch, as tiled_throughput.py
--shares does): per case, the time inside compiled kernels (they run without the GIL), the number of compiled calls
and the rest, the Python of the instructions, queues, sub-tensors and the kernel's own loop, per compiled call:
the per-call Python cost against the compiled work per element.
"""
import argparse
import functools
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's ascend_jit

import numpy as np  # noqa: E402

import ascend_jit as aj  # noqa: E402

# (gallery kernel, device, elements, run keywords): the gallery benchmark's sizes (softmax 1024 x 1024 halves,
# RMSNorm 1024 x 4096 halves on one block), LayerNorm over 1024 rows of 1024 halves, add_custom over 1 Mi halves,
# and three larger recent ports at sizes of the same order
CASES = [("softmax", "atlas-a2", 1024 * 1024, {}), ("softmax", "ascend950", 1024 * 1024, {}),
         ("rmsnorm", "atlas-a2", 1024 * 4096, {"blocks": 1}), ("rmsnorm", "ascend950", 1024 * 4096, {"blocks": 1}),
         ("layernorm", "atlas-a2", 1024 * 1024, {}), ("layernorm", "ascend950", 1024 * 1024, {}),
         ("add_custom", "atlas-a2", 8 * 2048 * 64, {}), ("add_custom", "ascend950", 8 * 2048 * 64, {}),
         ("group_norm_swish", "atlas-a2", 100 * 32 * 144, {}), ("log_softmax_v2", "atlas-a2", 1000 * 1000, {}),
         ("apply_adam_w", "atlas-a2", 1000003, {})]


def serial_launches():
    """aj.launch with parallel=False unless the kernel asks otherwise (the gallery's run() calls aj.launch)."""
    launch = aj.launch

    @functools.wraps(launch)
    def serial(*args, **kwargs):
        if kwargs.get("parallel", True) is True:
            kwargs["parallel"] = False
        return launch(*args, **kwargs)
    aj.launch = serial


def numpy_cases(registry):
    """numpy float32 formulas on the emulated cases' own inputs."""
    x = registry["softmax"].make_inputs(1024 * 1024, 0)["x"]
    rms = registry["rmsnorm"].make_inputs(1024 * 4096, 0)
    ln = registry["layernorm"].make_inputs(1024 * 1024, 0)
    add = registry["add_custom"].make_inputs(8 * 2048 * 64, 0)
    a, b = (add[k] for k in list(add)[:2])

    def softmax():
        v = x.astype(np.float32)
        e = np.exp(v - v.max(axis=1, keepdims=True))
        return (e / e.sum(axis=1, keepdims=True)).astype(np.float16)

    def rmsnorm():
        v = rms["x"].astype(np.float32)
        rstd = np.float32(1) / np.sqrt((v * v).mean(axis=1, keepdims=True) + np.float32(1e-6))
        return (v * rstd * rms["gamma"]).astype(np.float16)

    def layernorm():
        v = ln["x"].astype(np.float32)
        mean = v.mean(axis=1, keepdims=True)
        d = v - mean
        rstd = np.float32(1) / np.sqrt((d * d).mean(axis=1, keepdims=True) + np.float32(1e-5))
        return (d * rstd * ln["gamma"] + ln["beta"]).astype(np.float16)

    return [("numpy softmax 1024x1024 (float32)", softmax, 1024 * 1024),
            ("numpy RMSNorm 1024x4096 (float32)", rmsnorm, 1024 * 4096),
            ("numpy LayerNorm 1024x1024 (float32)", layernorm, 1024 * 1024),
            ("numpy add 1 Mi halves", lambda: a + b, a.size)]


def emulated_cases(registry, only=None):
    out = []
    for name, device, size, kw in CASES:
        if only and only not in name:
            continue
        spec = registry[name]
        inputs = spec.make_inputs(size, 0)
        out.append((f"{name} {device}", functools.partial(spec.run, device, inputs, **kw), size))
    return out


def measure(cases, rounds):
    for _, fn, _ in cases:
        fn()   # compile / load and warm every case first
    times = {name: [] for name, _, _ in cases}
    for _ in range(rounds):
        for name, fn, _ in cases:
            c0 = time.process_time()
            fn()
            times[name].append(time.process_time() - c0)
    return times


def shares(cases, rounds=5):
    """Per case: (CPU seconds of the least preempted run, seconds inside compiled kernels, compiled calls)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from tiled_throughput import time_kernel_entries   # wraps jit/direct.py compiled_entry
    spent, _ = time_kernel_entries()
    found = {}
    for name, fn, size in cases:
        fn()
        best = None
        for _ in range(rounds):
            before = {k: tuple(v) for k, v in spent.items()}
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            inside = sum(v[0] - before.get(k, (0.0, 0))[0] for k, v in spent.items())
            calls = sum(v[1] - before.get(k, (0.0, 0))[1] for k, v in spent.items())
            if best is None or wall / cpu < best[0]:
                best = (wall / cpu, wall, inside, calls)
        found[name] = best[1:] + (size,)
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", help="the emulated cases whose kernel name contains this text")
    parser.add_argument("--shares", action="store_true", help="where each case's time goes (a fresh process)")
    args = parser.parse_args()
    os.chdir(ROOT)   # the gallery is found from the current directory
    from ascend_jit.kernels import registry
    kernels = registry()
    serial_launches()
    emulated = emulated_cases(kernels, args.only)
    if args.shares:
        print("| case | wall (least preempted of 5) | inside compiled kernels | compiled calls | "
              "outside per call | inside per element |")
        print("|---|---|---|---|---|---|")
        for name, (wall, inside, calls, size) in shares(emulated).items():
            print(f"| {name} | {wall * 1e3:.1f} ms | {inside * 1e3:.1f} ms ({inside / wall:.0%}) | {calls} | "
                  f"{(wall - inside) / max(calls, 1) * 1e6:.2f} us | {inside / size * 1e9:.2f} ns |")
        return
    cases = emulated + (numpy_cases(kernels) if not args.only else [])
    times = measure(cases, args.rounds)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{args.rounds} interleaved rounds, CPU time (time.process_time), serial launches; load average {load:.1f}")
    print("| case | best | median | elements / CPU s (best) |")
    print("|---|---|---|---|")
    for name, _, size in cases:
        t = times[name]
        print(f"| {name} | {min(t) * 1e3:.2f} ms | {statistics.median(t) * 1e3:.2f} ms | {size / min(t):.2e} |")


if __name__ == "__main__":
    main()
