"""Sweep throughput: rows/s in-process and on a local Dask cluster, and the per-task overhead (issue 19).

    NUMBA_NUM_THREADS=1 python benchmarks/sweep_scaling.py [--workers 2] [--trials 2000]

Reported, not asserted (the figures go into BENCHMARKS.md). The grid: 8320-element half ReduceSums, count and
high-dim forms on every supported device (12 variants), one distribution. Each run writes a fresh folder; the
time of a run is sweep() from call to return (tasks, stores, table and summary), with clusters started and
workers warmed (numba caches loaded) beforehand, since a long sweep pays those once.
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's ascend_jit, also for the workers
os.environ["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])

import ascend_jit as aj  # noqa: E402

GRID = dict(sizes="8320", dists="normal", dtypes="half", devices="all", apis="reduce-sum-count,reduce-sum-highdim",
            plots=False, table_format="csv")
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
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--tiny-tasks", type=int, default=400)
    args = parser.parse_args()
    import distributed
    tmp = Path(tempfile.mkdtemp(prefix="sweep-bench-"))
    timed(tmp / "warm", trials=2, **GRID)  # compile or load the kernels in this process
    inproc, rows, tasks, inproc_cpu, _ = timed(tmp / "inproc", trials=args.trials, **GRID)
    tiny_in, tiny_rows, _, tiny_in_cpu, _ = timed(tmp / "tiny-inproc", trials=args.tiny_tasks, **TINY)
    big_128, rows_128, _, big_128_cpu, _ = timed(tmp / "big-128", trials=args.tiny_tasks,
                                                 **{**TINY, "task_trials": 2048})
    with distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        timed(tmp / "warm-dask", trials=4 * args.workers, client=client, **{**GRID, "task_trials": 1})
        dask, _, _, client_cpu, worker_cpu = timed(tmp / "dask", trials=args.trials, client=client, **GRID)
        tiny_dask, _, _, tiny_client_cpu, tiny_worker_cpu = timed(tmp / "tiny-dask", trials=args.tiny_tasks,
                                                                   client=client, **TINY)
    per_row_128 = big_128_cpu / rows_128
    print(f"grid: {rows} rows (12 variants x {args.trials} trials of 8320 halves) in {tasks} tasks "
          f"of up to {aj.sweeps.TASK_ELEMENTS // 8320} trials")
    print(f"in-process: {inproc:.2f} s, {rows / inproc:.0f} rows/s")
    print(f"{args.workers} Dask workers: {dask:.2f} s, {rows / dask:.0f} rows/s, {inproc / dask:.2f}x in-process")
    busiest = max(worker_cpu.values())
    print(f"CPU seconds: in-process {inproc_cpu:.2f}; Dask workers {', '.join(f'{v:.2f}' for v in worker_cpu.values())}"
          f" + client/scheduler process {client_cpu:.2f}; on otherwise idle cores the wall time is the busiest "
          f"worker's CPU time: {inproc_cpu / busiest:.2f}x in-process")
    print(f"per-task overhead, CPU time ({tiny_rows} one-trial tasks of 128 halves, a row costing "
          f"{per_row_128 * 1e6:.0f} us in big tasks): in-process {(tiny_in_cpu / tiny_rows - per_row_128) * 1e3:.2f} "
          f"ms/task; Dask {(sum(tiny_worker_cpu.values()) / tiny_rows - per_row_128) * 1e3:.2f} ms/task on the "
          f"workers + {tiny_client_cpu / tiny_rows * 1e3:.2f} ms/task in the client/scheduler process "
          f"(wall: {tiny_rows / tiny_in:.0f} tasks/s in-process, {tiny_rows / tiny_dask:.0f} tasks/s on Dask)")
    print(f"os.cpu_count() = {os.cpu_count()}, load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
