"""Accumulation-order sweeps: the study (study.py) over a grid of sizes x distributions x dtypes x devices x
summing APIs (summing.py), in-process or on a Dask cluster, resumable, with a tidy table, a summary per grid point
and plots.

Work is split into tasks of one variant (API x device) x size x distribution x dtype x block of trials, bounded
by `task_elements` summed elements and `task_trials` trials. Trial t of a point draws its input from a generator
seeded by (seed, dtype, size, distribution, t) alone: every variant sums the same inputs (so their bits can be
compared), and the rows do not depend on the blocks, the workers, the scheduler or the order tasks finish in.
Tasks are listed block by block (all variants of one block of trials in a row) and each executing thread keeps
its last input blocks, so the inputs of a block are drawn once per process that runs its variants (on Dask the
variants of a block travel together as one unit of work, `batches`). A task runs on the executing process's own
emulated cores and returns only its rows (four numbers per trial); the process that called sweep() stores each
finished task as one small file under OUT/tasks/, so a rerun with the same folder skips them. The table, summary
and plots are assembled from those files at the end.
"""
import json
import os
import re
import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .devices import SUPPORTED_NAMES, get_device
from .dtypes import resolve
from .errors import ParameterError, StateError
from .study import DISTRIBUTIONS, UNIT_ROUNDOFF, draw_inputs, error_measures, exact_sum, order_bound, percentile
from .summing import NO_DEVICE, SUMMING_APIS, get_api

API = "sweep"
MAX_SIZE = 1 << 24      # exact_sum's integer partial sums are proven free of overflow up to 2**24 elements
TASK_ELEMENTS = 1 << 23  # summed elements per task: a 16 Mi-element point is one trial per task
TASK_TRIALS = 2048       # trials per task at most (small sizes)
FORMAT = 2               # the task-file layout; a folder written with another layout is refused
# what a task ships back, per trial: `magnitude` is sum |x_i|, which bounds every partial sum of every order
ROW_FIELDS = ("trial", "result", "exact", "bound", "magnitude")
ROW_DTYPE = np.dtype([(name, np.int64 if name == "trial" else np.float64) for name in ROW_FIELDS])
TABLE_COLUMNS = ("size", "dist", "dtype", "device", "api", "trial", "result_bits", "result", "exact", "err_ulp",
                 "err_rel", "bound", "bound_ulp", "out_of_range")
PERCENTILES = (50, 90, 99, 99.9)
MISSING_DASK = "pip install 'ascend_jit[distributed]'"


class Task(NamedTuple):
    """One unit of work: trials [start, stop) of one variant at one grid point."""
    api: str
    device: str
    dtype: str
    size: int
    dist: str
    start: int
    stop: int

    @property
    def key(self):
        return f"{self.api}.{self.device}.{self.dtype}.{self.size}.{self.dist}.{self.start}-{self.stop}"


# --- the grid -----------------------------------------------------------------------------------------------------
_SIZE = re.compile(r"^\s*(\d+)\s*(ki|mi|gi)?\s*$", re.IGNORECASE)
_SUFFIX = {None: 1, "ki": 1 << 10, "mi": 1 << 20, "gi": 1 << 30}


def parse_size(text, parameter="sizes"):
    """'8320', '64Ki', '1Mi', '16Mi' (binary suffixes, case-insensitive) -> elements."""
    if isinstance(text, (int, np.integer)) and not isinstance(text, bool):
        return int(text)
    match = _SIZE.match(str(text))
    if not match:
        raise ParameterError(API, parameter, text, legal="integers with an optional Ki/Mi/Gi suffix, e.g. 128,1Mi")
    suffix = match.group(2).lower() if match.group(2) else None
    return int(match.group(1)) * _SUFFIX[suffix]


def _names(value, everything, what):
    """'all' (when `everything` is given), a comma-separated string, one item or a sequence -> a tuple without
    duplicates (order kept)."""
    if everything is not None and (value is None or (isinstance(value, str) and value.strip().lower() == "all")):
        return tuple(everything)
    items = value.split(",") if isinstance(value, str) else list(value) if isinstance(value, (list, tuple)) else [value]
    out = tuple(dict.fromkeys(item.strip() if isinstance(item, str) else item for item in items))
    if not out:
        raise ParameterError(API, what, value, legal="at least one")
    return out


@dataclass
class Grid:
    sizes: tuple
    dists: tuple
    dtypes: tuple   # DType objects
    devices: tuple  # canonical device names
    apis: tuple     # SummingApi entries
    trials: int
    seed: int

    @classmethod
    def parse(cls, sizes, dists, dtypes, devices, apis, trials, seed):
        sizes = tuple(dict.fromkeys(parse_size(s) for s in _names(sizes, None, "sizes")))
        for n in sizes:
            if not 1 <= n <= MAX_SIZE:
                raise ParameterError(API, "sizes", n, legal=f"1 .. {MAX_SIZE} (16Mi)")
        dists = _names(dists, DISTRIBUTIONS, "dists")
        for dist in dists:
            if dist not in DISTRIBUTIONS:
                raise ParameterError(API, "dists", dist, legal=", ".join(DISTRIBUTIONS))
        dtypes = tuple(resolve(t, API) for t in _names(dtypes, UNIT_ROUNDOFF, "dtypes"))
        for d in dtypes:
            if d.name not in UNIT_ROUNDOFF:
                raise ParameterError(API, "dtypes", d.name, legal=", ".join(UNIT_ROUNDOFF))
        devices = tuple(get_device(x).name for x in _names(devices, SUPPORTED_NAMES, "devices"))
        for name in devices:
            get_device(name).require_supported(API)
        apis = tuple(get_api(a) for a in _names(apis, SUMMING_APIS, "apis"))
        if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1:
            raise ParameterError(API, "trials", trials, legal=">= 1")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ParameterError(API, "seed", seed, legal="an integer >= 0")
        return cls(sizes, dists, dtypes, tuple(dict.fromkeys(devices)), apis, int(trials), int(seed))

    def points(self):
        """(dtype, dist, size) groups, each with its variants (api, device) and the variants skipped with why."""
        for d in self.dtypes:
            for dist in self.dists:
                for n in self.sizes:
                    variants, skipped = [], []
                    for api in self.apis:
                        for device in (self.devices if api.per_device else (NO_DEVICE,)):
                            reason = api.supports(device, d, n)
                            (skipped if reason else variants).append((api.name, device, reason))
                    yield d, dist, n, [v[:2] for v in variants], skipped

    def tasks(self, task_elements=TASK_ELEMENTS, task_trials=TASK_TRIALS):
        """Block-major: the variants of one block of trials follow each other, so a process running several of
        them draws the block's inputs once (run_task's input cache)."""
        tasks = []
        for d, dist, n, variants, _ in self.points():
            block = max(1, min(task_trials, task_elements // n))
            for start in range(0, self.trials, block):
                stop = min(start + block, self.trials)
                tasks += [Task(api, device, d.name, n, dist, start, stop) for api, device in variants]
        return tasks


# --- one task -----------------------------------------------------------------------------------------------------
def trial_rng(seed, d, n, dist, trial):
    """The generator of one trial's input: a function of (seed, dtype, size, distribution, trial) only. `d` a
    dtype or its name."""
    return np.random.default_rng([seed, resolve(d, API).kind, n, DISTRIBUTIONS.index(dist), trial])


def trial_input(seed, dtype, size, dist, trial):
    """The input of trial `trial` at one grid point of a sweep run with `seed`: the array every variant summed
    (its table rows' `trial`), to replay a row, e.g. through `aj.explain_reduce_order(...).evaluate`."""
    d = resolve(dtype, API)
    if dist not in DISTRIBUTIONS:
        raise ParameterError(API, "dist", dist, legal=", ".join(DISTRIBUTIONS))
    return draw_inputs(trial_rng(seed, d, size, dist, trial), size, dist, d.np_dtype.type)


_local = threading.local()  # per executing thread: its own emulated cores (runners), depths and input blocks


KEPT_ELEMENTS = 1 << 25  # per kind and thread: 256 MiB of int64 depths, 64 MiB of float inputs at most


def _kept(kind, key, make, elements):
    """make() once per key; a thread keeps its latest results of each kind for its next tasks, up to
    KEPT_ELEMENTS summed elements (always the latest one)."""
    caches = getattr(_local, "caches", None)
    if caches is None:
        caches = _local.caches = {}
    cache = caches.setdefault(kind, OrderedDict())
    if key in cache:
        cache.move_to_end(key)
    else:
        cache[key] = (make(), elements)
        while len(cache) > 1 and sum(e for _, e in cache.values()) > KEPT_ELEMENTS:
            cache.popitem(last=False)
    return cache[key][0]


def _input_block(seed, d, n, dist, start, stop):
    """Trials [start, stop) of a point: inputs (one row each), exact sums and exact sums of magnitudes."""
    xs = np.empty((stop - start, n), d.np_dtype)
    exact, magnitude = np.empty(stop - start), np.empty(stop - start)
    for i in range(stop - start):
        xs[i] = draw_inputs(trial_rng(seed, d, n, dist, start + i), n, dist, d.np_dtype.type)
        exact[i] = exact_sum(xs[i])
        magnitude[i] = exact_sum(xs[i], absolute=True)
    return xs, exact, magnitude


def run_task(task, seed):
    """Sum the task's trials; returns its rows as arrays (ROW_FIELDS). Runs wherever it is called (a worker)."""
    api, d, n = get_api(task.api), resolve(task.dtype), task.size
    runner, depths = _kept("variant", (api.name, task.device, d.name, n),
                           lambda: (api.make_runner(task.device, d, n, False), api.depths(task.device, d, n)), n)
    xs, exact, magnitude = _kept("inputs", (seed, d.name, n, task.dist, task.start, task.stop),
                      lambda: _input_block(seed, d, n, task.dist, task.start, task.stop),
                      n * (task.stop - task.start))
    rows = {"trial": np.arange(task.start, task.stop, dtype=np.int64), "result": np.zeros(len(xs)),
            "exact": exact.copy(), "bound": np.zeros(len(xs)), "magnitude": magnitude.copy()}
    for i, x in enumerate(xs):
        rows["result"][i] = runner(x)
        rows["bound"][i] = order_bound(api, d, x, depths, exact[i])
    return rows


# --- the output folder ----------------------------------------------------------------------------------------------
class _Store:
    """OUT/sweep.json (format, seed) and OUT/tasks/<task key>.npy (the rows as one structured array), each written
    whole or not at all."""

    def __init__(self, out, seed):
        self.root = Path(out)
        self.tasks = self.root / "tasks"
        manifest = self.root / "sweep.json"
        if manifest.exists():
            found = json.loads(manifest.read_text())
            # a folder with no finished task pins no seed (a sweep that stopped before its first result: an
            # unreachable --scheduler had left one that refused every other seed, audit 44s)
            if (found.get("format") != FORMAT or found.get("seed") != seed) and any(self.tasks.glob("*.npy")):
                raise ParameterError(API, "out", str(out), detail=f"holds a sweep with {found} (this one: format "
                                     f"{FORMAT}, seed {seed}); finished tasks are only reused for the same seed",
                                     legal="another folder, or the same seed")
        self.tasks.mkdir(parents=True, exist_ok=True)
        manifest.write_text(json.dumps({"format": FORMAT, "seed": seed}))

    def done(self):
        return {p.name[:-4] for p in self.tasks.glob("*.npy")}

    def save(self, task, rows):
        records = np.empty(rows["trial"].size, ROW_DTYPE)
        for name in ROW_FIELDS:
            records[name] = rows[name]
        partial = self.tasks / f"{task.key}.partial"
        with open(partial, "wb") as f:
            np.save(f, records)
        os.replace(partial, self.tasks / f"{task.key}.npy")  # atomic: an interrupted write leaves no finished file

    def load(self, task):
        records = np.load(self.tasks / f"{task.key}.npy")
        return {name: records[name] for name in ROW_FIELDS}


# --- execution ------------------------------------------------------------------------------------------------------
def _distributed(parameter, value):
    try:
        import distributed
    except ImportError as exc:
        raise ParameterError(API, parameter, value, detail="needs Dask (dask.distributed), which is not installed",
                             legal=f"{MISSING_DASK}, or leave out --workers/--scheduler to sweep in-process") from exc
    return distributed


def _run_in_process(todo, seed, finished):
    for task in todo:
        finished(task, run_task(task, seed))


def run_batch(tasks, seed):
    """Several tasks of one block of trials (the variants of one (dtype, dist, size, trials) block), one after
    another on the executing worker: the block's inputs are drawn once; returns each task's rows, in order."""
    return [run_task(task, seed) for task in tasks]


def batches(todo, threads):
    """The tasks grouped into Dask's units of work: the variants of one block go together (one worker draws the
    block's inputs once and Dask schedules one unit instead of one per variant); a block is split into more
    units only when there are fewer blocks than 2 per worker thread (otherwise some threads would idle)."""
    blocks = []
    for task in todo:
        if blocks and blocks[-1][0][2:] == task[2:]:
            blocks[-1].append(task)
        else:
            blocks.append([task])
    split = max(1, -(-2 * threads // max(len(blocks), 1)))
    units = []
    for block in blocks:
        per = -(-len(block) // min(split, len(block)))
        units += [block[i:i + per] for i in range(0, len(block), per)]
    return units


# Dask's own periodic work, turned down for a sweep's local cluster: on a small machine the event-loop tick
# (every 20 ms), the statistical profiler sampling each busy worker thread (every 10 ms), the system monitors and
# the nanny's memory polling take CPU from the workers (docs/scaling.md "Local clusters").
QUIET_DASK = {"distributed.admin.tick.interval": "1s", "distributed.worker.profile.enabled": False,
              "distributed.admin.system-monitor.interval": "5s", "distributed.worker.memory.monitor-interval": "1s"}


# a local cluster's worker processes import the script that started them (multiprocessing's spawn): a sweep at the
# script's top level runs again there, while the process is still starting, and cannot start processes (port64d:
# 440 lines of tracebacks ending in "Nanny failed to start")
_MAIN_GUARD = ("a script that starts local workers (aj.sweep(workers=...)) must run the sweep under "
               "`if __name__ == \"__main__\":`: each worker process imports the script again")


def local_cluster(distributed, workers):
    """A local dask.distributed cluster of `workers` one-thread processes with QUIET_DASK and no memory limit
    (the sweep bounds its own memory: KEPT_ELEMENTS per kind and task)."""
    import multiprocessing.process
    if getattr(multiprocessing.process.current_process(), "_inheriting", False):   # multiprocessing's own test
        raise StateError(API, "workers", workers, legal="a sweep under the script's main guard", detail=_MAIN_GUARD)
    import dask
    try:
        with dask.config.set(QUIET_DASK):  # the nannies hand this configuration to their worker processes
            return distributed.LocalCluster(n_workers=int(workers), threads_per_worker=1, processes=True,
                                            dashboard_address=None, memory_limit=0)
    except RuntimeError as exc:
        raise StateError(API, "workers", workers, legal="worker processes that start",
                         detail=f"the local cluster's workers did not start ({exc}); if the script calls aj.sweep "
                                f"at its top level, that is why: {_MAIN_GUARD}") from exc


def _run_on_dask(client, todo, seed, finished):
    """Submit a window of batches at a time (bounded scheduler state for millions of tasks); store as they
    finish. Only the rows come back: four numbers per trial, as numpy arrays."""
    from distributed import as_completed
    threads = sum(client.nthreads().values()) or 1
    units = iter(batches(todo, threads))
    by_key = {}
    # a key of this call's own: named by the unit's first task and length alone, two sweeps sharing a scheduler had
    # been handed each other's rows, and a retry on the same client the first attempt's failure (audit 44s)
    run = uuid.uuid4().hex[:16]

    def submit(unit):
        future = client.submit(run_batch, unit, seed, key=f"ascend-jit-sweep-{seed}-{run}-{unit[0].key}+{len(unit)}",
                               pure=False)
        by_key[future.key] = unit
        return future

    window = 2 * threads + 2  # every thread has its next unit queued, so none waits for a round trip
    first = [submit(u) for _, u in zip(range(window), units)]  # range first: zip drops nothing
    # results arrive with the completions (no extra round trip); the client's own loop, not the process's default
    # client's: a second sweep's client closing (or none made default) had left this one waiting forever (audit 44s)
    queue = as_completed(first, loop=client.loop, with_results=True, raise_errors=False)
    try:
        for future, results in queue:
            unit = by_key.pop(future.key)
            if future.status != "finished":  # the worker's error, named by the grid point it ran (audit 44s)
                point = f"ascend_jit sweep: the unit of {len(unit)} task(s) from {unit[0].key}"
                if future.status == "error":
                    _, error, traceback = results
                    error.add_note(f"{point} raised this on a Dask worker")
                    raise error.with_traceback(traceback)
                raise RuntimeError(f"{point} ended {future.status} on the Dask scheduler")
            for task, rows in zip(unit, results):
                finished(task, rows)
            future.release()
            nxt = next(units, None)
            if nxt is not None:
                queue.add(submit(nxt))
    finally:
        client.cancel(list(queue.futures))


MAX_LOCAL_WORKERS = 64   # a local cluster's largest size (or the machine's cores, if more): sweep's workers


def default_workers():
    """The cores this process may run on: `workers="auto"` starts that many."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@dataclass
class SweepResult:
    """What sweep() returns: the summary rows, the files written and the task counts."""
    out: Path
    grid: Grid
    tasks: list
    summary: dict                # column -> array, one row per (size, dist, dtype, device, api)
    files: dict = field(default_factory=dict)
    tasks_run: int = 0
    tasks_reused: int = 0
    skipped: list = field(default_factory=list)  # (dtype, dist, size, api, device, reason)
    notes: list = field(default_factory=list)    # what the run left out and why (plots without matplotlib)

    def table(self):
        """The whole table (column -> array) assembled again from the task files."""
        parts = [group for group, _ in _groups(self.tasks, _Store(self.out, self.grid.seed))]
        return {c: np.concatenate([p[c] for p in parts]) for c in TABLE_COLUMNS}


def sweep(sizes="128,8320", dists="normal", dtypes="half", devices="all", apis="all", trials=100, seed=0,
          out="sweep-out", workers=None, scheduler=None, client=None, table_format="auto", plots=True,
          cdf_size=None, task_elements=TASK_ELEMENTS, task_trials=TASK_TRIALS, progress=None):
    """Run an accumulation-order sweep (see the module doc); returns a SweepResult.

    In-process by default; `workers=N` starts a local dask.distributed cluster of N processes for the run
    (`workers="auto"`: one per core of this machine),
    `scheduler=ADDRESS` uses an existing cluster, `client=` an existing dask Client. `table_format`: "auto"
    (Parquet when pyarrow imports, else CSV), "csv" or "parquet". `progress(done, total)` is called per task."""
    grid = Grid.parse(sizes, dists, dtypes, devices, apis, trials, seed)
    if table_format not in ("auto", "csv", "parquet"):
        raise ParameterError(API, "table_format", table_format, legal="auto, csv, parquet")
    task_elements = parse_size(task_elements, "task_elements")
    for name, value in (("task_elements", task_elements), ("task_trials", task_trials)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ParameterError(API, name, value, legal=">= 1")
    if sum(x is not None for x in (workers, scheduler, client)) > 1:
        raise ParameterError(API, "workers/scheduler/client", (workers, scheduler, client), legal="at most one")
    if isinstance(workers, str) and workers.strip().lower() == "auto":
        workers = default_workers()
    # a local cluster is processes on this machine: --workers 9999 had started processes until the descriptors ran
    # out, flooding tracebacks without ending (audit45); as warmup's --jobs, at most 64 (or this machine's cores)
    most = max(MAX_LOCAL_WORKERS, default_workers())
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, (int, np.integer))
                                or not 1 <= workers <= most):
        raise ParameterError(API, "workers", workers, legal=f"1 .. {most} local worker processes, or \"auto\" (every "
                             "core of this machine); a larger cluster: start it and pass --scheduler")
    if cdf_size is not None and parse_size(cdf_size, "cdf_size") not in grid.sizes:
        raise ParameterError(API, "cdf_size", cdf_size, legal="one of the sizes " + ", ".join(map(str, grid.sizes)))
    distributed = _distributed("workers" if workers is not None else "scheduler",
                               workers if workers is not None else scheduler) \
        if workers is not None or scheduler is not None else None
    if table_format == "parquet":
        _parquet(required=True)
    tasks = grid.tasks(int(task_elements), int(task_trials))
    skipped = [(d.name, dist, n, api, device, reason) for d, dist, n, _, sk in grid.points()
               for api, device, reason in sk]
    if not tasks:
        raise ParameterError(API, "grid", "no variant runs at any point", legal="a grid where some variant runs",
                             detail="; ".join(f"{api} {device}: {reason}" for *_, api, device, reason in skipped[:6]))
    store = _Store(out, grid.seed)
    done = store.done()
    todo = [t for t in tasks if t.key not in done]
    count = [len(tasks) - len(todo)]

    def finished(task, rows):
        store.save(task, rows)
        count[0] += 1
        if progress:
            progress(count[0], len(tasks))

    if progress and count[0]:
        progress(count[0], len(tasks))
    if todo and distributed is None and client is None:
        _run_in_process(todo, grid.seed, finished)
    elif todo:
        own_cluster = own_client = None
        try:
            if client is None:
                if workers is not None:
                    own_cluster = local_cluster(distributed, workers)
                # not made the process's default client: a sweep leaves the caller's own default as it was
                own_client = client = distributed.Client(own_cluster if own_cluster is not None else scheduler,
                                                         set_as_default=False)
            _run_on_dask(client, todo, grid.seed, finished)
        finally:
            if own_client is not None:
                own_client.close()
            if own_cluster is not None:
                own_cluster.close()
    result = SweepResult(Path(out), grid, tasks, {}, tasks_run=len(todo), tasks_reused=len(tasks) - len(todo),
                         skipped=skipped)
    _write_outputs(result, store, table_format, plots,
                   parse_size(cdf_size) if cdf_size is not None else max(grid.sizes))
    return result


# --- assembly: table, summary, plots --------------------------------------------------------------------------------
def _groups(tasks, store):
    """Per (dtype, dist, size) in grid order: the table rows of every variant, and the variants' order."""
    by_point = OrderedDict()
    for task in tasks:
        by_point.setdefault((task.dtype, task.dist, task.size), []).append(task)
    for (dtype, dist, n), point_tasks in by_point.items():
        rank = {variant: k for k, variant in enumerate(dict.fromkeys((t.api, t.device) for t in point_tasks))}
        point_tasks.sort(key=lambda t: (rank[(t.api, t.device)], t.start))  # rows: variant by variant, trial order
        d = resolve(dtype)
        parts = []
        for task in point_tasks:
            rows = store.load(task)
            k = rows["trial"].size
            _, err_ulp, err_rel, ulp = error_measures(rows["result"], rows["exact"], d.np_dtype.type)
            out_of_range = left_range(rows["result"], rows["exact"], rows["bound"], rows["magnitude"], d.np_dtype)
            bits = rows["result"].astype(d.np_dtype).view(np.uint16 if d.size == 2 else np.uint32)
            parts.append({"size": np.full(k, n, np.int64), "dist": np.full(k, dist), "dtype": np.full(k, dtype),
                          "device": np.full(k, task.device), "api": np.full(k, task.api), "trial": rows["trial"],
                          "result_bits": bits.astype(np.int64), "result": rows["result"], "exact": rows["exact"],
                          "err_ulp": err_ulp, "err_rel": err_rel, "bound": rows["bound"],
                          "bound_ulp": rows["bound"] / ulp, "out_of_range": out_of_range})
        yield {c: np.concatenate([p[c] for p in parts]) for c in TABLE_COLUMNS}, point_tasks


def left_range(results, exact, bounds, magnitudes, np_dtype):
    """Per row, whether its result is off by more than the first-order bound, which assumes no partial sum leaves the
    type's finite range, because one may have (port64d: half sums past 65504 saturate or overflow, 3,200 rows of a
    1 Mi sweep over their bound): the result is not finite, or it misses its bound while the sum of the inputs'
    magnitudes, which bounds every partial sum of any order, reaches the overflow threshold (the largest value plus
    half its ulp: 65520 for half; review64: a partial sum saturated at 65504 and pulled back by later terms leaves a
    finite result)."""
    finfo = np.finfo(np_dtype)
    threshold = float(finfo.max) + 2.0 ** (finfo.maxexp - 1 - finfo.nmant) / 2
    with np.errstate(invalid="ignore"):
        missed = np.abs(results - exact) > bounds
    return ~np.isfinite(results) | (missed & (magnitudes >= threshold))


def summarise_group(group, trials):
    """Summary rows of one (dtype, dist, size) group: per variant, the error statistics; for the group, the
    fraction of trials in which the emulated variants (not the what-if orders) disagree bit for bit."""
    selections = _variant_rows(group)
    emulated = [v for v in selections if v[1] != NO_DEVICE]
    if len(emulated) > 1:
        bits = np.stack([_by_trial(group, selections[v], "result_bits", trials) for v in emulated])
        disagree = float(np.mean(np.any(bits != bits[0], axis=0)))
    else:
        disagree = float("nan")
    rows = []
    for (api, device), sel in selections.items():
        row = {"size": int(group["size"][0]), "dist": str(group["dist"][0]), "dtype": str(group["dtype"][0]),
               "device": device, "api": api, "trials": int(np.count_nonzero(sel))}
        for column in ("err_ulp", "err_rel"):
            values = group[column][sel]
            row[f"{column}_mean"] = float(np.mean(values))
            for p in PERCENTILES:
                row[f"{column}_p{p:g}"] = percentile(values, p)
            row[f"{column}_max"] = float(np.max(values))
        row["bound_ulp_mean"] = float(np.mean(group["bound_ulp"][sel]))
        row["bound_ulp_max"] = float(np.max(group["bound_ulp"][sel]))
        row["exact_fraction"] = float(np.mean(group["err_ulp"][sel] == 0))
        row["out_of_range_fraction"] = float(np.mean(group["out_of_range"][sel]))
        row["variants_disagree"] = disagree
        rows.append(row)
    return rows


def _variant_rows(group):
    """{(api, device): boolean row selection}, variants in order of first appearance. Rows come in runs of one
    variant (the table is written variant by variant): the strings are compared once, at run boundaries."""
    api, device = group["api"], group["device"]
    starts = np.flatnonzero(np.concatenate(([True], (api[1:] != api[:-1]) | (device[1:] != device[:-1]))))
    ends = np.append(starts[1:], api.size)
    selections = {}
    for start, end in zip(starts.tolist(), ends.tolist()):
        key = (str(api[start]), str(device[start]))
        if key not in selections:
            selections[key] = np.zeros(api.size, bool)
        selections[key][start:end] = True
    return selections


def _by_trial(group, sel, column, trials):
    out = np.empty(trials, group[column].dtype)
    out[group["trial"][sel]] = group[column][sel]
    return out


def _parquet(required=False):
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as exc:
        if required:
            raise ParameterError(API, "table_format", "parquet", legal="csv, or install pyarrow") from exc
        return None
    return pyarrow


class _TableWriter:
    def __init__(self, root, table_format):
        self.pa = _parquet() if table_format != "csv" else None
        self.path = root / ("table.parquet" if self.pa else "table.csv")
        self.writer = None
        if self.pa is None:
            self.file = open(self.path, "w")
            self.file.write(",".join(TABLE_COLUMNS) + "\n")

    def write(self, group):
        if self.pa is not None:
            table = self.pa.table({c: group[c] for c in TABLE_COLUMNS})
            if self.writer is None:
                self.writer = self.pa.parquet.ParquetWriter(self.path, table.schema)
            self.writer.write_table(table)
        else:  # repr of a float round-trips: the CSV holds the same bits as the Parquet file
            columns = [map(repr, group[c].tolist()) if group[c].dtype.kind == "f" else map(str, group[c].tolist())
                       for c in TABLE_COLUMNS]
            self.file.writelines(",".join(row) + "\n" for row in zip(*columns))

    def close(self):
        if self.pa is None:
            self.file.close()
        elif self.writer is not None:
            self.writer.close()


def _write_outputs(result, store, table_format, plots, cdf_size):
    writer = _TableWriter(result.out, table_format)
    rows, cdf = [], {}
    try:
        for group, _ in _groups(result.tasks, store):
            writer.write(group)
            rows += summarise_group(group, result.grid.trials)
            if group["size"][0] == cdf_size:
                cdf[(str(group["dtype"][0]), str(group["dist"][0]))] = {
                    key: group["err_ulp"][sel] for key, sel in _variant_rows(group).items()}
    finally:
        writer.close()
    result.summary = {c: np.array([r[c] for r in rows]) for c in rows[0]}
    result.files["table"] = writer.path
    summary_path = result.out / "summary.csv"
    with open(summary_path, "w") as f:
        f.write(",".join(rows[0]) + "\n")
        f.writelines(",".join(repr(v) if isinstance(v, float) else str(v) for v in r.values()) + "\n" for r in rows)
    result.files["summary"] = summary_path
    if plots:
        result.files.update(_plots(result, cdf, cdf_size))


def _plots(result, cdf, cdf_size):
    """error_vs_n_<dtype>_<dist>.png and cdf_<dtype>_<dist>_n<size>.png when matplotlib imports, else none and a
    note saying so (port64d: the default run drew nothing and said nothing)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        result.notes.append("no plots drawn: matplotlib is not installed (pip install 'ascend_jit[plot]')")
        return {}
    s, files = result.summary, {}
    for d in result.grid.dtypes:
        for dist in result.grid.dists:
            at = (s["dtype"] == d.name) & (s["dist"] == dist)
            devices = list(dict.fromkeys(s["device"][at].tolist()))
            fig, axes = plt.subplots(1, len(devices), figsize=(4.2 * len(devices), 3.8), squeeze=False,
                                     sharey=True)
            for ax, device in zip(axes[0], devices):
                here = at & (s["device"] == device)
                for k, api in enumerate(dict.fromkeys(s["api"][here].tolist())):
                    sel = here & (s["api"] == api)
                    color = plt.get_cmap("tab10")(k % 10)
                    ax.loglog(s["size"][sel], s["err_ulp_mean"][sel], "o-", color=color, label=f"{api} mean")
                    ax.loglog(s["size"][sel], s["err_ulp_p99"][sel], ":", color=color, label=f"{api} p99")
                    ax.loglog(s["size"][sel], s["bound_ulp_mean"][sel], "--", color=color, alpha=0.6,
                              label=f"{api} bound")
                ax.set_title("what-if orders" if device == NO_DEVICE else device, fontsize=9)
                ax.set_xlabel("n (elements)")
                ax.grid(alpha=0.3, which="both")
                ax.legend(fontsize=6)
            axes[0][0].set_ylabel(f"|error| in ulps of {d.name} (mean, p99; dashed: bound)")
            fig.suptitle(f"Error versus n, {d.name}, {dist} inputs, {result.grid.trials} trials per point")
            fig.tight_layout()
            path = result.out / f"error_vs_n_{d.name}_{dist}.png"
            fig.savefig(path, dpi=110)
            plt.close(fig)
            files[f"error_vs_n_{d.name}_{dist}"] = path
            if (d.name, dist) not in cdf:
                continue
            fig, ax = plt.subplots(figsize=(8, 5))
            for (api, device), errors in cdf[(d.name, dist)].items():
                xs = np.sort(errors)
                ax.step(xs, np.arange(1, xs.size + 1) / xs.size, where="post",
                        label=api if device == NO_DEVICE else f"{device} {api}")
            ax.set_xscale("symlog", linthresh=1.0)
            ax.set_xlabel(f"|error| in ulps of {d.name} (symlog)")
            ax.set_ylabel("fraction of trials")
            ax.set_title(f"Error CDF at n = {cdf_size}, {d.name}, {dist} inputs")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=6, loc="lower right")
            fig.tight_layout()
            path = result.out / f"cdf_{d.name}_{dist}_n{cdf_size}.png"
            fig.savefig(path, dpi=110)
            plt.close(fig)
            files[f"cdf_{d.name}_{dist}"] = path
    return files


def format_skipped(result, most=12):
    """The skipped variant points as lines, one per (api, device, reason) with how many grid points it covers."""
    counts = OrderedDict()
    for *_, api, device, reason in result.skipped:
        key = (api, device, reason)
        counts[key] = counts.get(key, 0) + 1
    lines = [f"  {api}{'' if device == NO_DEVICE else ' on ' + device}: {reason} ({k} point{'s' if k > 1 else ''})"
             for (api, device, reason), k in counts.items()]
    return lines[:most] + ([f"  ... {len(lines) - most} more (SweepResult.skipped)"] if len(lines) > most else [])


def format_summary(result):
    """The summary as a text table (the CLI's output)."""
    s = result.summary
    cols = ("size", "dist", "dtype", "device", "api", "ulp mean", "p99", "p99.9", "max", "bound", "disagree",
            "out of range")
    rows = [cols]
    for i in range(s["size"].size):
        rows.append((str(s["size"][i]), s["dist"][i], s["dtype"][i], s["device"][i], s["api"][i],
                     f"{s['err_ulp_mean'][i]:.3g}", f"{s['err_ulp_p99'][i]:.3g}", f"{s['err_ulp_p99.9'][i]:.3g}",
                     f"{s['err_ulp_max'][i]:.3g}", f"{s['bound_ulp_mean'][i]:.3g}",
                     "-" if np.isnan(s["variants_disagree"][i]) else f"{100 * s['variants_disagree'][i]:.1f}%",
                     f"{100 * s['out_of_range_fraction'][i]:.0f}%"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(cols))]
    lines = ["  ".join(c.rjust(w) if k in (0,) or k >= 5 else c.ljust(w) for k, (c, w) in enumerate(zip(r, widths)))
             for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)

