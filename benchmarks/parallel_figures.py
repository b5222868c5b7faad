"""Every figure of issues 19 and 21 (tiled workloads, multi-block launches, DataCopy per call, Dask sweep
scaling) in one command, for an otherwise idle machine (a few minutes on 2 cores):

    python benchmarks/parallel_figures.py

Runs, one after the other, each in its own process with NUMBA_NUM_THREADS=1:
  benchmarks/tiled_throughput.py --rounds 9
  benchmarks/sweep_scaling.py --trials 16000 --rounds 3
  pytest benchmarks/test_bench.py -k "datacopy" (DataCopy GM -> UB and a tile's copy-in round vs numpy's copy)
"""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = (
    [sys.executable, "benchmarks/tiled_throughput.py", "--rounds", "9"],
    [sys.executable, "benchmarks/sweep_scaling.py", "--trials", "16000", "--rounds", "3"],
    [sys.executable, "-m", "pytest", "benchmarks/test_bench.py", "-q", "-k",
     "data_copy_gm or tile_round or data_copy_16ki_np", "--benchmark-enable", "--benchmark-min-rounds=2000",
     "--benchmark-columns=min,median,mean"],
)


def main():
    env = {**os.environ, "NUMBA_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    print(f"load average before: {os.getloadavg()}", flush=True)
    for command in COMMANDS:
        print("\n$ " + " ".join(command[1:]), flush=True)
        subprocess.run(command, cwd=ROOT, env=env, check=True)
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
