"""Accumulation-order sweeps (issue 19): grid, tasks, determinism in-process and on Dask, resume, summary, outputs."""
import csv
import math
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import ascend_jit as aj
from ascend_jit import cli, study, summing, sweeps
from ascend_jit.jit.orders import sequential_sum
from ascend_jit.kernels import atomic_sum, tiled_reduce_sum

# The small grid every execution test shares: two sizes, two distributions, two devices with different ReduceSum
# orders, five APIs (one two-stage pattern, one what-if), 5 trials in blocks of 2 (so points span several tasks).
GRID = dict(sizes="128,1Ki", dists="normal,cancel", dtypes="half", devices="atlas-a2,ascend950",
            apis="reduce-sum-count,reduce-sum-highdim,block-reduce-sum-whole-reduce-sum,tiled-gm,whatif-pairwise",
            trials=5, seed=11,
            task_trials=2, plots=False, table_format="csv")


def bits_of(table):
    """The table with floats as their bit patterns, for bit-for-bit comparison (NaN == NaN)."""
    return {c: (v.view(np.uint64) if v.dtype.kind == "f" else v) for c, v in table.items()}


def assert_tables_identical(a, b):
    a, b = bits_of(a), bits_of(b)
    assert list(a) == list(b)
    for c in a:
        assert np.array_equal(a[c], b[c]), c


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The small grid, in-process and uninterrupted."""
    return aj.sweep(out=tmp_path_factory.mktemp("reference"), **GRID)


# --- the grid ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, n", [("8320", 8320), ("64Ki", 65536), ("1Mi", 1 << 20), ("16mi", 1 << 24),
                                     (" 2 Ki ", 2048), (300, 300)])
def test_sizes(text, n):
    assert sweeps.parse_size(text) == n


@pytest.mark.parametrize("kwargs", [dict(sizes="12x"), dict(sizes="0"), dict(sizes="all"), dict(sizes=""),
                                    dict(sizes="17Mi"), dict(dists="cauchy"),
                                    dict(dtypes="int16"), dict(devices="nosuch"), dict(apis="nosuch"),
                                    dict(trials=0), dict(seed=-1), dict(workers=0), dict(workers=2, scheduler="x"),
                                    dict(cdf_size=999), dict(table_format="xls"), dict(task_elements=0),
                                    dict(task_elements="4Q"), dict(task_trials=0),
                                    dict(sizes="1Mi", apis="reduce-sum-count")])
def test_refusals_write_nothing(tmp_path, kwargs):
    out = tmp_path / "out"
    with pytest.raises(aj.AscendJitError):
        aj.sweep(**{**GRID, "out": out, **kwargs})
    assert not out.exists()


def test_tasks_are_bounded_and_cover_every_trial():
    grid = sweeps.Grid.parse([8320, "16Mi"], "normal", "half", "atlas-a2", "all", 1000, 0)
    tasks = grid.tasks()
    assert len({t.key for t in tasks}) == len(tasks)
    for t in tasks:
        assert (t.stop - t.start) * t.size <= sweeps.TASK_ELEMENTS or t.stop - t.start == 1
    big = [t for t in tasks if t.size == 1 << 24]
    assert big and all(t.stop - t.start == 1 for t in big)  # a 16 Mi point is never one huge task
    assert {t.api for t in big} == {"tiled-gm", "multi-block-gm", "whatif-sequential", "whatif-pairwise",
                                    "whatif-wide"}  # ReduceSum does not take 16 Mi elements in one UB
    for key in {(t.api, t.device, t.size) for t in tasks}:
        covered = sorted((t.start, t.stop) for t in tasks if (t.api, t.device, t.size) == key)
        assert covered[0][0] == 0 and covered[-1][1] == 1000
        assert all(a[1] == b[0] for a, b in zip(covered, covered[1:]))


# --- shared machinery (exact sums and depths) ---------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(st.sampled_from([np.float16, np.float32]), st.data(), st.integers(0, 2 ** 24))
def test_exact_sum_is_fsum(np_t, data, weight):
    width = 16 if np_t is np.float16 else 32
    x = data.draw(arrays(np_t, st.integers(1, 300),
                         elements=st.floats(width=width, allow_nan=False, allow_infinity=False)))
    x64 = x.astype(np.float64)
    assert study.exact_sum(x) == math.fsum(x64.tolist())
    weights = np.arange(x.size, dtype=np.int64) * 7919 % (weight + 1)
    assert study.exact_sum(x, weights, absolute=True) == math.fsum((np.abs(x64) * weights).tolist())


def test_exact_sum_of_non_finite_values_and_other_dtypes():
    assert study.exact_sum(np.array([np.inf, 1, 2], np.float16)) == np.inf
    assert math.isnan(study.exact_sum(np.array([np.inf, -np.inf, 1], np.float32)))
    assert study.exact_sum(np.array([np.inf, -np.inf], np.float32), absolute=True) == np.inf
    with pytest.raises(aj.ParameterError):
        study.exact_sum(np.ones(3))  # float64 values are not what the study sums


def _pairwise_depths_by_groups(n):
    """The adjacent-pair tree built as explicit groups (the obvious model of jit/orders.pairwise_sum)."""
    depths, groups = np.zeros(n, np.int64), [[i] for i in range(n)]
    while len(groups) > 1:
        merged = [groups[k] + groups[k + 1] for k in range(0, len(groups) - 1, 2)]
        for g in merged:
            depths[g] += 1
        groups = merged + ([groups[-1]] if len(groups) % 2 else [])
    return depths


@pytest.mark.parametrize("n", [1, 2, 3, 5, 64, 127, 1000, 8321])
def test_what_if_depths(n):
    assert np.array_equal(summing.pairwise_depths(n), _pairwise_depths_by_groups(n))
    expected = [n - 1] + [n - i for i in range(1, n)] if n > 1 else [0]
    assert summing.sequential_depths(n).tolist() == expected


@pytest.mark.parametrize("n", [100, tiled_reduce_sum.TILE, 2 * tiled_reduce_sum.TILE + 5])
def test_tiled_depths_compose_the_tile_and_final_trees(n):
    tiles = tiled_reduce_sum.tile_plan(n)
    final = summing.depth_array(aj.explain_reduce_order("atlas-a2", "count", "half", count=len(tiles)), len(tiles))
    depths = summing.tiled_depths("atlas-a2", n)
    for t, (start, count) in enumerate(tiles):
        tile = summing.depth_array(aj.explain_reduce_order("atlas-a2", "count", "half", count=count), count)
        assert np.array_equal(depths[start:start + count], tile + final[t])


# --- rows ---------------------------------------------------------------------------------------------------------
def test_rows_come_from_the_emulator_and_respect_the_bound(reference):
    table = reference.table()
    d = aj.get_device("atlas-a2")
    for api, n, dist, trial in (("reduce-sum-count", 1024, "cancel", 3), ("tiled-gm", 128, "normal", 1),
                                ("whatif-pairwise", 1024, "normal", 4)):
        device = "-" if api.startswith("whatif") else d.name
        row = np.flatnonzero((table["api"] == api) & (table["device"] == device) & (table["size"] == n)
                             & (table["dist"] == dist) & (table["trial"] == trial))
        assert row.size == 1
        x = study.draw_inputs(sweeps.trial_rng(11, aj.dtypes.HALF, n, dist, trial), n, dist, np.float16)
        assert np.array_equal(sweeps.trial_input(11, "half", n, dist, trial), x)   # the documented way
        if api == "reduce-sum-count":
            core = aj.Core(d.name)
            src, dst, tmp = core.local_tensor("half", n), core.local_tensor("half", 16), core.local_tensor("half", 256)
            src[:] = x
            aj.ReduceSum(dst, src, tmp, n)
            want = float(dst.numpy()[0])
        elif api == "tiled-gm":
            want = float(tiled_reduce_sum.expected_sums(d.name, x)[1][0])
        else:
            want = float(summing.SUMMING_APIS[api].make_runner("-", aj.dtypes.HALF, n, False)(x))
        assert table["result"][row[0]] == want
        assert table["exact"][row[0]] == math.fsum(x.astype(np.float64).tolist())
    # every row's error lies within its order's first-order bound (a wrong depth function breaks this); no sum of
    # the grid leaves the half range
    assert np.all(np.abs(table["result"] - table["exact"]) <= table["bound"])
    assert not table["out_of_range"].any() and not reference.summary["out_of_range_fraction"].any()
    assert np.array_equal(table["result_bits"], table["result"].astype(np.float16).view(np.uint16))


def test_float_atomic_sum_kernel_rows_and_skipped_points(tmp_path):
    result = aj.sweep(sizes="1000,1Ki", dtypes="float", devices="atlas-a2,atlas-training", apis="atomic-sum-gm",
                      trials=3, out=tmp_path, plots=False, table_format="csv")
    assert ("float", "normal", 1000, "atomic-sum-gm", "atlas-a2",
            "n=1000: the atomic_sum kernel takes a multiple of 64 up to 131072") in result.skipped
    assert {s[4] for s in result.skipped if s[2] == 1024} == {"atlas-training"}  # not in its device list
    table = result.table()
    assert table["size"].tolist() == [1024] * 3 and np.all(np.abs(table["result"] - table["exact"]) <= table["bound"])
    for row in range(3):
        x = study.draw_inputs(sweeps.trial_rng(0, aj.dtypes.FLOAT, 1024, "normal", row), 1024, "normal", np.float32)
        assert table["result"][row] == float(atomic_sum.expected("atlas-a2", {"x": x})["sum"][0])


def test_same_inputs_for_every_variant_and_block_size(reference, tmp_path):
    """Trial t's input depends on (seed, dtype, size, dist, t) only: other blocks give the same table."""
    other = aj.sweep(out=tmp_path, **{**GRID, "task_trials": 3})
    assert_tables_identical(other.table(), reference.table())
    seq = aj.sweep(out=tmp_path / "seq", **{**GRID, "apis": "whatif-sequential", "sizes": "128"})
    x = study.draw_inputs(sweeps.trial_rng(11, aj.dtypes.HALF, 128, "normal", 2), 128, "normal", np.float16)
    t = seq.table()
    row = (t["dist"] == "normal") & (t["trial"] == 2)
    assert t["result"][row][0] == float(sequential_sum(x.astype(np.float32), 0, False))


# --- summary --------------------------------------------------------------------------------------------------------
def _read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def test_summary_matches_numpy_on_the_written_rows(reference):
    rows = _read_csv(reference.files["table"])
    summary = _read_csv(reference.files["summary"])
    assert len(rows) == 2 * 2 * (4 * 2 + 1) * 5 and len(summary) == 2 * 2 * 9
    for s in summary:
        mine = [r for r in rows if all(r[k] == s[k] for k in ("size", "dist", "dtype", "device", "api"))]
        assert int(s["trials"]) == len(mine) == 5
        for column in ("err_ulp", "err_rel"):
            v = np.array([float(r[column]) for r in mine])
            assert float(s[f"{column}_mean"]) == np.mean(v) and float(s[f"{column}_max"]) == np.max(v)
            for p in (50, 90, 99, 99.9):
                assert float(s[f"{column}_p{p:g}"]) == np.percentile(v, p)
        assert float(s["bound_ulp_mean"]) == np.mean([float(r["bound_ulp"]) for r in mine])
        assert float(s["exact_fraction"]) == np.mean([float(r["err_ulp"]) == 0 for r in mine])
        point = [r for r in rows if (r["size"], r["dist"]) == (s["size"], s["dist"]) and r["device"] != "-"]
        by_trial = {}
        for r in point:
            by_trial.setdefault(r["trial"], set()).add(r["result_bits"])
        assert float(s["variants_disagree"]) == np.mean([len(b) > 1 for b in by_trial.values()])


def test_variants_do_disagree_somewhere(reference):
    """A2's tree-seq count form and the 950's orders differ at 1024 elements: the statistic is not always 0."""
    assert np.nanmax(reference.summary["variants_disagree"]) > 0


# --- resume -----------------------------------------------------------------------------------------------------------
class Interrupt(Exception):
    pass


def test_resume_after_an_interruption_gives_the_same_table(reference, tmp_path):
    def stop_after_seven(done, total):
        if done == 7:
            raise Interrupt
    with pytest.raises(Interrupt):
        aj.sweep(out=tmp_path, progress=stop_after_seven, **GRID)
    (tmp_path / "tasks" / "junk.partial").write_bytes(b"half-written")  # an interrupted write is not a result
    seen = []
    resumed = aj.sweep(out=tmp_path, progress=lambda done, total: seen.append(done), **GRID)
    assert resumed.tasks_reused == 7 and resumed.tasks_run == len(resumed.tasks) - 7
    assert seen[0] == 7 and seen[-1] == len(resumed.tasks)
    assert_tables_identical(resumed.table(), reference.table())
    assert (tmp_path / "table.csv").read_bytes() == reference.files["table"].read_bytes()
    again = aj.sweep(out=tmp_path, **GRID)
    assert again.tasks_run == 0


def test_a_folder_of_another_seed_is_refused(reference):
    with pytest.raises(aj.ParameterError, match="same seed"):
        aj.sweep(out=reference.out, **{**GRID, "seed": 12})


# --- outputs --------------------------------------------------------------------------------------------------------
def test_parquet_table_holds_the_same_bits(reference, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    result = aj.sweep(out=tmp_path, **{**GRID, "table_format": "auto"})
    assert result.files["table"].name == "table.parquet"
    read = pq.read_table(result.files["table"]).to_pydict()
    assert_tables_identical({c: np.array(read[c]) for c in sweeps.TABLE_COLUMNS}, reference.table())


def test_plots(tmp_path):
    pytest.importorskip("matplotlib")
    result = aj.sweep(out=tmp_path, **{**GRID, "plots": True, "cdf_size": "1Ki"})
    names = sorted(p.name for k, p in result.files.items() if k not in ("table", "summary"))
    assert names == ["cdf_half_cancel_n1024.png", "cdf_half_normal_n1024.png", "error_vs_n_half_cancel.png",
                     "error_vs_n_half_normal.png"]
    assert all((tmp_path / n).stat().st_size > 10000 for n in names)


def test_without_matplotlib_there_are_no_plots(tmp_path, monkeypatch):
    """... and the run says so (port64d: the default run drew nothing and said nothing)."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = aj.sweep(out=tmp_path, **{**GRID, "plots": True})
    assert set(result.files) == {"table", "summary"}
    assert result.notes == ["no plots drawn: matplotlib is not installed (pip install 'ascend_jit[plot]')"]


# --- Dask -------------------------------------------------------------------------------------------------------
def test_missing_dask_names_the_extra(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now raises ImportError
    with pytest.raises(aj.ParameterError, match=r"pip install 'ascend_jit\[distributed\]'"):
        aj.sweep(out=tmp_path / "a", workers=2, **GRID)
    assert cli.main(["sweep", "--scheduler", "tcp://127.0.0.1:1", "--out", str(tmp_path / "b")]) == 2
    assert "pip install 'ascend_jit[distributed]'" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local:
        yield local


def test_two_dask_workers_give_the_same_table_bit_for_bit(reference, cluster, tmp_path):
    result = aj.sweep(out=tmp_path, scheduler=cluster.scheduler_address, **GRID)
    assert result.tasks_run == len(reference.tasks)
    assert_tables_identical(result.table(), reference.table())
    assert result.files["table"].read_bytes() == reference.files["table"].read_bytes()
    assert result.files["summary"].read_bytes() == reference.files["summary"].read_bytes()


def test_workers_start_and_close_a_local_cluster(reference, cluster, tmp_path, monkeypatch):
    """workers=2 asks LocalCluster for two one-thread worker processes and closes it; the module's cluster stands
    in for the new one (starting another costs seconds)."""
    import distributed
    calls = []

    class StandIn:
        def __init__(self, **kwargs):
            calls.append(kwargs)

        def __getattr__(self, name):
            return getattr(cluster, name)

        def __await__(self):
            return cluster.__await__()

        def close(self):
            calls.append("closed")

    monkeypatch.setattr(distributed, "LocalCluster", StandIn)
    result = aj.sweep(out=tmp_path, workers=2, **GRID)
    assert calls == [dict(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, memory_limit=0),
                     "closed"]
    assert_tables_identical(result.table(), reference.table())


# --- the command line -----------------------------------------------------------------------------------------------
def test_cli_sweep(tmp_path, capsys):
    args = ["sweep", "--sizes", "128,1Ki", "--devices", "910B", "--apis", "reduce-sum-count,whatif-wide",
            "--trials", "4", "--out", str(tmp_path), "--no-plots", "--format", "csv", "--task-elements", "1Ki"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out  # 128: one 4-trial block; 1Ki: four one-trial blocks; two variants each
    assert "10 tasks (10 run, 0 reused" in out and "whatif-wide" in out and "table: " in out
    assert cli.main(args) == 0 and "(0 run, 10 reused" in capsys.readouterr().out


def test_cli_sweep_lists_why_points_are_skipped(tmp_path, capsys):
    """port64d: the command line printed only a count, and a half-only kernel's reason read "float not summed on
    atlas-a2", whose ReduceSum sums float."""
    args = ["sweep", "--sizes", "128", "--dtypes", "float", "--devices", "910B", "--apis", "reduce-sum-count,tiled-gm",
            "--trials", "2", "--out", str(tmp_path), "--no-plots", "--format", "csv"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "1 variant points skipped (unsupported size or dtype):\n  tiled-gm on atlas-a2: tiled-gm does not sum " \
           "float on atlas-a2 (1 point)\n" in out


# --- Dask units of work ---------------------------------------------------------------------------------------------
def test_dask_units_keep_a_blocks_variants_together():
    grid = sweeps.Grid.parse("128,1Ki", "normal", "half", "atlas-a2,ascend950", "reduce-sum-count,whatif-pairwise",
                             20, 0)
    tasks = grid.tasks(task_trials=4)          # 2 sizes x 5 blocks, 3 variants each (pairwise is device-free)
    units = sweeps.batches(tasks, threads=2)
    assert [t for u in units for t in u] == tasks
    assert len(units) == 10 and all(len({t[2:] for t in u}) == 1 for u in units)
    few = sweeps.batches(grid.tasks(task_trials=20), threads=2)   # 2 blocks < 2 per thread: blocks are split
    assert len(few) == 4 and [t for u in few for t in u] == grid.tasks(task_trials=20)


def test_workers_auto_is_every_core(monkeypatch, tmp_path):
    import os
    assert sweeps.default_workers() == len(os.sched_getaffinity(0))
    with pytest.raises(aj.ParameterError, match="auto"):
        aj.sweep(out=tmp_path, workers=0, **GRID)
