"""Sweep throughput: rows/s in-process and on a local Dask cluster, and the per-task overhead (issue 19).

    NUMBA_NUM_THREADS=1 python benchmarks/sweep_scaling.py [--workers 2] [--trials 4000] [--rounds 3]

Reported, not asserted (the figures go into BENCHMARKS.md). The grid: 8320-element half ReduceSums, count and
high-dim forms on every supported device (12 variants), one distribution. What is measured is a sweep's steady
state: the cluster is started (sweeps.local_cluster, the configuration `--workers N` uses) and every process has
loaded its numba kernels before the clock starts, since a long sweep pays those once; then each round times one
in-process sweep and one Dask sweep, interleaved, each into a fresh folder, from the call to sweep() to its return
(tasks, stored task files, table and summary). Per round: the wall-time ratio, and the CPU seconds of the
in-process run, of each worker process and of this (client + scheduler) process. On otherwise idle cores the
Dask wall time is at least the busiest worker's CPU time and at least all Dask processes' CPU time shared over
the cores, so in-process CPU over each of those bounds the speed-up idle cores show even when a loaded machine
hides it in wall time (the smaller one is the honest projection). Once, at the end: the same grid end to end as a
user runs it, `aj.sweep(..., workers=N)`, with the cluster's start and the workers' first kernel loads.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's ascend_jit, also for the workers
os.environ["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])

import ascend_jit as aj  # noqa: E402
from ascend_jit import sweeps  # noqa: E402

GRID = dict(sizes="8320", dists="normal", dtypes="half", devices="all", apis="reduce-sum-count,reduce-sum-highdim",
            plots=False)  # the default table format: Parquet when pyarrow imports
TINY = dict(sizes="128", dists="normal", dtypes="half", devices="atlas-a2", apis="reduce-sum-count", plots=False,
            table_format="csv", task_trials=1)


def timed(folder, client=None, **kwargs):
    """(wall s, rows, tasks, CPU s of this process, CPU s of each worker) of one sweep into a fresh folder."""
    workers_before = client.run(time.process_time) if client else {}
    cpu, start = time.process_time(), time.perf_counter()
    result = aj.sweep(out=folder, client=client, **kwargs)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    workers = {k: v - workers_before[k] for k, v in client.run(time.process_time).items()} if client else {}
    rows = sum(t.stop - t.start for t in result.tasks)
    return elapsed, rows, len(result.tasks), cpu, workers


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--trials", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tiny-tasks", type=int, default=400)
    args = parser.parse_args()
    import distributed
    tmp = Path(tempfile.mkdtemp(prefix="sweep-bench-"))
    timed(tmp / "warm", trials=2, **GRID)  # compile or load the kernels in this process
    with sweeps.local_cluster(distributed, args.workers) as cluster, distributed.Client(cluster) as client:
        timed(tmp / "warm-dask", trials=8 * args.workers, client=client, **{**GRID, "task_trials": 1})
        rounds = []
        for r in range(args.rounds):
            inproc, rows, tasks, inproc_cpu, _ = timed(tmp / f"inproc-{r}", trials=args.trials, **GRID)
            dask, _, _, client_cpu, worker_cpu = timed(tmp / f"dask-{r}", trials=args.trials, client=client, **GRID)
            rounds.append((inproc, dask, inproc_cpu, client_cpu, sorted(worker_cpu.values())))
        tiny_in, tiny_rows, _, tiny_in_cpu, _ = timed(tmp / "tiny-inproc", trials=args.tiny_tasks, **TINY)
        big_128, rows_128, _, big_128_cpu, _ = timed(tmp / "big-128", trials=args.tiny_tasks,
                                                     **{**TINY, "task_trials": 2048})
        tiny_dask, _, _, tiny_client_cpu, tiny_worker_cpu = timed(tmp / "tiny-dask", trials=args.tiny_tasks,
                                                                   client=client, **TINY)
    start = time.perf_counter()  # end to end, cold: `--workers N` as a user runs it (cluster start, cache loads)
    aj.sweep(out=tmp / "cold-dask", trials=args.trials, workers=args.workers, **GRID)
    cold = time.perf_counter() - start
    units = len(sweeps.batches(aj.sweeps.Grid.parse(GRID["sizes"], GRID["dists"], GRID["dtypes"], GRID["devices"],
                                                    GRID["apis"], args.trials, 0).tasks(), args.workers))
    print(f"grid: {rows} rows (12 variants x {args.trials} trials of 8320 halves) in {tasks} tasks of up to "
          f"{aj.sweeps.TASK_ELEMENTS // 8320} trials, {units} Dask units (a block's variants together)")
    cores = min(os.cpu_count() or 1, args.workers + 1)
    print("round | in-process wall, rows/s | Dask wall, rows/s | wall ratio | CPU s in-process | CPU s per worker "
          f"(+ client/scheduler) | in-process CPU / busiest worker | in-process CPU / (all Dask CPU / {cores} cores)")
    for r, (inproc, dask, inproc_cpu, client_cpu, workers) in enumerate(rounds, 1):
        print(f"{r} | {inproc:.2f} s, {rows / inproc:,.0f} | {dask:.2f} s, {rows / dask:,.0f} | "
              f"{inproc / dask:.2f}x | {inproc_cpu:.2f} | {', '.join(f'{w:.2f}' for w in workers)} "
              f"(+{client_cpu:.2f}) | {inproc_cpu / max(workers):.2f}x | "
              f"{inproc_cpu / ((sum(workers) + client_cpu) / cores):.2f}x")
    print(f"median wall ratio {statistics.median(r[0] / r[1] for r in rounds):.2f}x; median CPU-time ratios "
          f"{statistics.median(r[2] / max(r[4]) for r in rounds):.2f}x (busiest worker), "
          f"{statistics.median(r[2] * cores / (sum(r[4]) + r[3]) for r in rounds):.2f}x (all Dask CPU spread over "
          f"{cores} cores)")
    print(f"end to end with the cluster's start and the workers' first kernel loads (aj.sweep(workers="
          f"{args.workers}), once): {cold:.2f} s, {rows / cold:,.0f} rows/s")
    per_row_128 = big_128_cpu / rows_128
    print(f"per-task overhead, CPU time ({tiny_rows} one-trial tasks of 128 halves, each its own Dask unit; a row "
          f"costing {per_row_128 * 1e6:.0f} us in big tasks): in-process {(tiny_in_cpu / tiny_rows - per_row_128) * 1e3:.2f}"
          f" ms/task; Dask {(sum(tiny_worker_cpu.values()) / tiny_rows - per_row_128) * 1e3:.2f} ms/task on the "
          f"workers + {tiny_client_cpu / tiny_rows * 1e3:.2f} ms/task in the client/scheduler process "
          f"(wall: {tiny_rows / tiny_in:.0f} tasks/s in-process, {tiny_rows / tiny_dask:.0f} tasks/s on Dask)")
    print(f"os.cpu_count() = {os.cpu_count()}, load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
