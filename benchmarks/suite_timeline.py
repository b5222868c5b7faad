"""Where the default test suite's wall time goes under the README's test command, worker by worker and file by file
(issue 20: the suite cold at most 1.3x warm).

suite_compile_profile.py counts compile seconds in one process; this runs the real command (pytest-xdist, one worker
per core) and records when each test started and ended on which worker, so that a cold run and a warm run on the same
clone and cache can be set side by side: whether the workers end together (an idle core at the end is wall time no
compile cut removes) and which files the cold run's extra seconds fall in. Not a test and no conftest: run it by
hand, cold then warm, and compare:

    export NUMBA_CACHE_DIR=$(mktemp -d)
    python benchmarks/suite_timeline.py --json out/cold.json
    python benchmarks/suite_timeline.py --json out/warm.json --against out/cold.json  # the cold run's extra s

Arguments after `--` go to pytest (default: the README's `-q -n auto --dist loadfile` and `-p no:cacheprovider`).
pytest runs in a child process with this file loaded as a plugin (`-p suite_timeline`) in every worker.
"""
import argparse
import collections
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
ROWS_DIR = "ASCEND_JIT_SUITE_TIMELINE_DIR"  # where each pytest process writes its rows (set by main())
_rows = []


# --- the plugin (imported by name in the pytest processes) ---------------------------------------------------------
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start, cpu = time.time(), time.process_time()
    yield
    _rows.append((item.nodeid, start, time.time(), time.process_time() - cpu))


def pytest_sessionfinish(session):
    folder = os.environ.get(ROWS_DIR)
    if folder and _rows:
        name = os.environ.get("PYTEST_XDIST_WORKER", "main")
        pathlib.Path(folder, f"{name}.json").write_text(json.dumps(_rows))


# --- the report ----------------------------------------------------------------------------------------------------
def summarise(rows_by_worker, wall):
    """{worker: [(nodeid, start, end, CPU s)]} and the pytest command's wall seconds -> the JSON the report reads."""
    start = min(r[1] for rows in rows_by_worker.values() for r in rows)
    workers = {}
    files = collections.defaultdict(lambda: {"seconds": 0.0, "cpu": 0.0, "tests": 0, "worker": None})
    for worker, rows in sorted(rows_by_worker.items()):
        workers[worker] = {"tests": len(rows), "busy": sum(r[2] - r[1] for r in rows),
                           "first": min(r[1] for r in rows) - start, "last": max(r[2] for r in rows) - start}
        for nodeid, begin, end, cpu in rows:
            entry = files[nodeid.split("::")[0]]
            entry["seconds"] += end - begin
            entry["cpu"] += cpu
            entry["tests"] += 1
            entry["worker"] = worker
    return {"wall": wall, "workers": workers, "files": dict(files)}


def report(run, against=None, top=30):
    lines = [f"pytest wall {run['wall']:.1f} s"]
    if against:
        lines[0] += f"; the other run {against['wall']:.1f} s, {against['wall'] / run['wall']:.2f}x this one"
    end = max(w["last"] for w in run["workers"].values())
    for name, w in run["workers"].items():
        lines.append(f"  {name}: {w['tests']} tests, busy {w['busy']:.1f} s, first test at {w['first']:.1f} s, "
                     f"last ends at {w['last']:.1f} s (idle {end - w['last']:.1f} s before the last worker ends)")
    lines.append(f"  before the first test and after the last: {run['wall'] - end:.1f} s")
    files = run["files"]
    if against is None:
        lines += ["", f"{'test file':56} {'worker':>6} {'tests':>6} {'seconds':>8} {'CPU s':>8}"]
        for name, f in sorted(files.items(), key=lambda kv: -kv[1]["seconds"])[:top]:
            lines.append(f"{name:56} {f['worker']:>6} {f['tests']:6d} {f['seconds']:8.1f} {f['cpu']:8.1f}")
        return "\n".join(lines)
    other = against["files"]
    gaps = {name: other.get(name, {}).get("seconds", 0.0) - files.get(name, {}).get("seconds", 0.0)
            for name in set(files) | set(other)}
    lines += ["", f"per file, the other run's test seconds over this one's: {sum(gaps.values()):+.1f} s in all",
              f"{'test file':56} {'this s':>8} {'other s':>8} {'other - this':>12}"]
    for name, gap in sorted(gaps.items(), key=lambda kv: -abs(kv[1]))[:top]:
        lines.append(f"{name:56} {files.get(name, {}).get('seconds', 0.0):8.1f} "
                     f"{other.get(name, {}).get('seconds', 0.0):8.1f} {gap:+12.1f}")
    return "\n".join(lines)


def main():
    argv = sys.argv[1:]
    pytest_args = ["-q", "-n", "auto", "--dist", "loadfile", "-p", "no:cacheprovider"]
    if "--" in argv:
        at = argv.index("--")
        argv, pytest_args = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the summary here (for a later --against)")
    parser.add_argument("--against", help="a summary written by an earlier run: per-file differences")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, **{ROWS_DIR: folder})
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE), env.get("PYTHONPATH")) if p)
        started = time.perf_counter()
        status = subprocess.call([sys.executable, "-m", "pytest", *pytest_args, "-p", "suite_timeline"], cwd=ROOT,
                                 env=env)
        wall = time.perf_counter() - started
        rows = {p.stem: json.loads(p.read_text()) for p in pathlib.Path(folder).glob("*.json")}
    if not rows:
        print("no test ran", file=sys.stderr)
        return status or 1
    run = summarise(rows, wall)
    print(report(run, json.loads(pathlib.Path(args.against).read_text()) if args.against else None, args.top))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(run, indent=1))
    return status


if __name__ == "__main__":
    sys.exit(main())
