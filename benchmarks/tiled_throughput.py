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
- multi_block serial / threads / processes: multi_block_reduce_sum.run with aj.launch(parallel=False), parallel=True
  and parallel="processes" (8 blocks); serial / threads and serial / processes are the speed-ups the launch gets from
  the machine's cores. "processes" reads its input from shared GM (aj.gm_array, made once before the rounds);
  "processes, numpy in" is handed the plain numpy input, which run() copies into shared GM on every call (the
  copy-in cost a caller pays for GM outside shared memory). The CPU column of a process case is the launching
  process's; the workers' CPU (from /proc, 10 ms ticks, summed over the rounds) is printed after the table;
- ceiling serial / threads: the same 8 blocks' memory traffic (copy each tile into a buffer, read it once) as one
  GIL-free numba call per block, blocks serial or spread over one thread per host core: the speed-up this
  machine gives GIL-free work in this run (on a shared KVM guest anywhere from 1.0x to 2.0x), the ceiling a
  launch's speed-up is read against.

Then, once, in a fresh process (`--shares`) whose every compiled-kernel entry is timed (jit/direct.py's
compiled_entry wrapped before the first call, so the entries the APIs keep in their memos are the timed ones): the
share of a serial multi-block launch spent inside compiled kernels, which run without the GIL, and where the tiled
add's time goes. With a share f outside the GIL, N threads can run at most min(N, 1 / (1 - f)) times the serial
rate: the bound a loaded machine cannot show in wall time. (The timing wrapper adds about 0.3 us per call to
the total, so the shares are slight underestimates.) And for threaded launches: how many compiled-kernel returns
waited over 20 us to take the GIL back (wall minus the thread's CPU time of the call), with the switch interval
the launch set (`--switch-interval 0.005` runs the launches with Python's default, the behaviour before).
"""
import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's ascend_jit

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

import ascend_jit as aj  # noqa: E402

from ascend_jit.kernels import multi_block_reduce_sum as mb, tiled_add as ta, tiled_reduce_sum as tr  # noqa: E402
from ascend_jit.sweeps import parse_size  # noqa: E402


@njit(cache=True, nogil=True)
def _ceiling_block(gm, buffer, start, count):
    """One block of the multi-block sum with no Python at all: each tile copied into the block's buffer, then read
    once (integer sum of the 16-bit words), the memory traffic of DataCopy + ReduceSum without their arithmetic."""
    total = 0
    for at in range(start, start + count, buffer.size):
        n = min(buffer.size, start + count - at)
        buffer[:n] = gm[at:at + n]
        for i in range(n):
            total += buffer[i]
    return total


def ceiling(words, parallel, block_dim=mb.BLOCK_DIM):
    """The multi-block sum's memory pattern as one GIL-free call per block, blocks serial or spread over one thread per
    host core: serial / threads is the speed-up this machine gives GIL-free block work right now (the ceiling of a
    launch's), measured in the same rounds as the launches."""
    per = -(-words.size // block_dim)
    buffers = [np.zeros(tr.TILE, np.uint16) for _ in range(os.cpu_count() or 1)]

    def blocks(k, step):
        for b in range(k, block_dim, step):
            _ceiling_block(words, buffers[k], b * per, max(0, min(per, words.size - b * per)))
    if not parallel:
        blocks(0, 1)
        return
    workers = [threading.Thread(target=blocks, args=(k, len(buffers))) for k in range(len(buffers))]
    for w in workers:
        w.start()
    for w in workers:
        w.join()


def cases(device, n):
    x16 = tr.make_inputs(n, 1)
    x16_shared = {"x": aj.gm_array(x16["x"])}
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
        "multi_block processes": lambda: mb.run(device, x16_shared, parallel="processes"),
        "processes, numpy in": lambda: mb.run(device, x16, parallel="processes"),
        "ceiling serial": lambda: ceiling(x16["x"].view(np.uint16), False),
        "ceiling threads": lambda: ceiling(x16["x"].view(np.uint16), True),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--size", default="16Mi")
    parser.add_argument("--device", default="atlas-a2")
    parser.add_argument("--shares", action="store_true", help="only the kernel shares (run in a fresh process)")
    parser.add_argument("--switch-interval", type=float, default=None,
                        help="seconds: replaces launch.LAUNCH_SWITCH_INTERVAL (0.005, Python's default, is the "
                             "behaviour before issue 21's change)")
    args = parser.parse_args()
    n = parse_size(args.size)
    if args.switch_interval is not None:
        _launch_module().LAUNCH_SWITCH_INTERVAL = args.switch_interval
    if args.shares:
        report_shares(args.device, n)
        return
    work = cases(args.device, n)
    for fn in work.values():  # compile or load every kernel, fill the validation memos
        fn()
    wall = {k: [] for k in work}
    cpu = {k: [] for k in work}
    worker_cpu = {k: 0.0 for k in work}
    for _ in range(args.rounds):
        for name, fn in work.items():
            w0 = workers_cpu()
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
            worker_cpu[name] += workers_cpu() - w0
    print(f"{n} elements, {args.device}, {args.rounds} interleaved rounds; os.cpu_count() = {os.cpu_count()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'case':22s} {'best wall':>10s} {'median':>10s} {'CPU (best)':>10s} {'elements/s (best)':>18s} "
          f"{'from CPU':>10s}")
    for name in work:
        best, med, best_cpu = min(wall[name]), statistics.median(wall[name]), min(cpu[name])
        print(f"{name:22s} {best * 1e3:8.1f}ms {med * 1e3:8.1f}ms {best_cpu * 1e3:8.1f}ms {n / best:18.3e} "
              f"{n / best_cpu:10.3e}")
    for a, b in (("tiled_reduce_sum", "np.sum float32"), ("tiled_add", "np.add float32")):
        ratios = [x / y for x, y in zip(wall[a], wall[b])]
        print(f"{a} / {b}: {statistics.median(ratios):.2f}x (median of per-round ratios)")
    ratios = [s / p for s, p in zip(wall["multi_block serial"], wall["multi_block threads"])]
    cpu_ratio = [c / w for c, w in zip(cpu["multi_block threads"], wall["multi_block threads"])]
    print(f"multi_block threads speed-up over serial: median {statistics.median(ratios):.2f}x, per round "
          + ", ".join(f"{r:.2f}" for r in ratios) + f"; threads' CPU / wall: {statistics.median(cpu_ratio):.2f} "
          "(cores kept busy)")
    for name in ("multi_block processes", "processes, numpy in"):
        ratios = [s / p for s, p in zip(wall["multi_block serial"], wall[name])]
        total_cpu = sum(cpu[name]) + worker_cpu[name]
        print(f"{name} speed-up over serial: median {statistics.median(ratios):.2f}x, per round "
              + ", ".join(f"{r:.2f}" for r in ratios) + f"; CPU of all its processes / wall: "
              f"{total_cpu / sum(wall[name]):.2f} (launching process {sum(cpu[name]) / sum(wall[name]):.2f}); "
              f"serial's CPU / wall {sum(cpu['multi_block serial']) / sum(wall['multi_block serial']):.2f}")
    ceiling_ratios = [s / p for s, p in zip(wall["ceiling serial"], wall["ceiling threads"])]
    print(f"ceiling (the same blocks' memory traffic, GIL-free, no Python) threads over serial: median "
          f"{statistics.median(ceiling_ratios):.2f}x, per round " + ", ".join(f"{r:.2f}" for r in ceiling_ratios)
          + "; the launch's speed-up over the ceiling's: median "
          f"{statistics.median(r / c for r, c in zip(ratios, ceiling_ratios)):.2f}")
    sys.stdout.flush()
    subprocess.run([sys.executable, __file__, "--shares", "--size", args.size, "--device", args.device]
                   + ([] if args.switch_interval is None else ["--switch-interval", str(args.switch_interval)]),
                   check=True)


def workers_cpu():
    """CPU seconds (user + system) the worker processes of aj.launch(parallel="processes") have used so far."""
    from ascend_jit import processes
    total = 0.0
    pool = processes._pool
    for w in (pool.workers if pool is not None else ()):
        try:
            with open(f"/proc/{w.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
    return total


def time_kernel_entries():
    """Wrap every compiled-kernel entry the APIs will fetch (jit/direct.py compiled_entry) so that each call adds its
    time to spent[kernel name]; must run before the first instruction call of the process. While `waits` (returned
    too) holds a list under "calls", every call also appends (its wall time - its thread's CPU time): on a core of
    its own, the time the thread waited to take the GIL back after the kernel (time.thread_time does not advance
    while it sleeps on the GIL)."""
    from ascend_jit.jit import direct
    original, spent, waits = direct.compiled_entry, {}, {"calls": None}

    def timed_compiled_entry(kernel, args):
        entry, name = original(kernel, args), getattr(kernel, "__name__", repr(kernel))
        spent.setdefault(name, [0.0, 0])
        total = spent[name]

        def call(*a):
            record = waits["calls"]
            c0, t0 = (time.thread_time() if record is not None else 0.0), time.perf_counter()
            try:
                return entry(*a)
            finally:
                wall = time.perf_counter() - t0
                total[0] += wall
                total[1] += 1
                if record is not None:
                    record.append(wall - (time.thread_time() - c0))
        return call

    direct.compiled_entry = timed_compiled_entry
    return spent, waits


def kernel_shares(fn, spent, rounds=9):
    """The least preempted of `rounds` runs of fn (smallest wall / CPU time: the kernel timers read the wall clock,
    so a run another process interrupted would count its pause wherever it fell): (wall seconds, wall / CPU,
    {kernel: (seconds, calls)})."""
    best = None
    for _ in range(rounds):
        before = {k: tuple(v) for k, v in spent.items()}
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        inside = {k: (v[0] - before.get(k, (0.0, 0))[0], v[1] - before.get(k, (0.0, 0))[1]) for k, v in spent.items()}
        inside = {k: v for k, v in inside.items() if v[1]}
        if best is None or wall / cpu < best[1]:
            best = (wall, wall / cpu, inside)
    return best


def report_shares(device, n):
    spent, waits = time_kernel_entries()
    work = cases(device, n)
    for name in ("multi_block serial", "multi_block threads", "tiled_add", "tiled_reduce_sum"):
        work[name]()  # fetch (and so wrap) every entry the workload uses
    wall, preempted, inside = kernel_shares(work["multi_block serial"], spent)
    f = sum(t for t, _ in inside.values()) / wall
    calls = sum(c for _, c in inside.values())
    print(f"serial multi_block: {f:.0%} of the time inside {calls} compiled-kernel calls (GIL released): "
          f"2 threads at most {min(2.0, 1 / (1 - f)):.2f}x serial, {os.cpu_count()} cores at most "
          f"{min(float(os.cpu_count()), 1 / (1 - f)):.2f}x (least preempted run: wall {preempted:.2f}x its CPU time)")
    report_gil_waits(work["multi_block threads"], waits)
    for name in ("tiled_add", "tiled_reduce_sum"):
        wall, preempted, inside = kernel_shares(work[name], spent)
        ranked = sorted(inside.items(), key=lambda kv: -kv[1][0])
        parts = ", ".join(f"{k} {t / wall:.0%} ({c} calls)" for k, (t, c) in ranked)
        rest = 1 - sum(t for t, _ in inside.values()) / wall
        print(f"{name}: {wall * 1e3:.1f} ms with timed entries (wall {preempted:.2f}x CPU); inside kernels: {parts}; "
              f"outside (the Python of the instructions, queues, sub-tensors and the kernel's loop): {rest:.0%}")


def report_gil_waits(fn, waits, rounds=9):
    """Threaded multi-block launches: how often a thread coming back from a compiled kernel waited for the GIL
    (wall - thread CPU of the call over 20 us; on a loaded machine preemption counts too), and the threads' CPU /
    wall (the cores kept busy). Medians over `rounds` launches."""
    long_waits, waited, busy, calls = [], [], [], 0
    for _ in range(rounds):
        waits["calls"] = record = []
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        busy.append((time.process_time() - c0) / (time.perf_counter() - t0))
        waits["calls"] = None
        long_waits.append(sum(w > 20e-6 for w in record))
        waited.append(sum(w for w in record if w > 20e-6))
        calls = len(record)
    print(f"threaded multi_block: {calls} compiled-kernel calls per launch; returns that waited over 20 us for the GIL: "
          f"median {statistics.median(long_waits):.0f} per launch ({min(long_waits)}-{max(long_waits)}), "
          f"{statistics.median(waited) * 1e3:.1f} ms in all; threads' CPU / wall median {statistics.median(busy):.2f} "
          f"(switch interval during the launch: {_launch_module().LAUNCH_SWITCH_INTERVAL * 1e6:.0f} us)")


def _launch_module():
    import importlib
    return importlib.import_module("ascend_jit.launch")  # aj.launch is the function


if __name__ == "__main__":
    main()
