"""Audit 44s (user group 2, numerics people; DESIGN.md section 1): the accumulation-order study (`aj.study`,
`ascend-jit study`), the sweeps (`aj.sweep`, in-process and on dask.distributed, `ascend-jit sweep`) and
`aj.explain_reduce_order` / `ascend-jit explain`, audited through the public API and the CLI against README.md
("Sweeps", the CLI section's `study` paragraph, the API bullet on explain_reduce_order), docs/decisions.md ("Study",
"Sweeps (issue 19)", "Reductions (SPEC-2 8)"), docs/scaling.md, and the accumulation orders of docs/SPEC.md
sections 4 and 6 and docs/SPEC-2.md section 8.

What is checked: every row of a sweep equals the same reduction run directly on the emulator (every device, dtype
and API form the sweep offers), or an independent numpy model for the what-if orders; the exact column is the
correctly rounded exact sum (fractions.Fraction over the values as the dtype holds them); the ulp error is taken
in ulps of the type at the exact sum; determinism (same sweep twice, other blocks, 1 and 2 Dask workers, a killed
worker, two sweeps sharing a scheduler); failure handling; hostile parameters in the library and the CLI; the CSV
and JSON outputs parse back to the same bits; the trees explain_reduce_order and `ascend-jit explain` print,
evaluated by an evaluator written here with the dtype's rounding, reproduce the emulator bit for bit on every device.

Tests named test_found_* failed on the code audited (0e82139) and pass since session 44 fixed the defects: each
quotes the documented promise it holds the code to (docs/decisions.md "Study" and "Sweeps" name the fixes).
"""
import csv
import json
import math
import os
import signal
import subprocess
import sys
import threading
from fractions import Fraction

import numpy as np
import pytest

import ascend_jit as aj

HALF_OR_FLOAT = {"half": np.float16, "float": np.float32}
CLI = [sys.executable, "-m", "ascend_jit.cli"]


def cli(*args, timeout=120):
    env = {**os.environ}
    return subprocess.run(CLI + [str(a) for a in args], capture_output=True, text=True, timeout=timeout, env=env)


def bits(table):
    return {c: (v.view(np.uint64) if v.dtype.kind == "f" else v) for c, v in table.items()}


def assert_same_table(a, b):
    a, b = bits(a), bits(b)
    assert list(a) == list(b)
    for c in a:
        assert np.array_equal(a[c], b[c]), c


def inputs_of(seed, dtype, n, dist, trial):
    """Trial t's input, as docs/decisions.md "Sweeps" defines it: default_rng([seed, dtype kind, size, distribution
    index, t]) through the study's draws (sweeps.trial_rng and study.draw_inputs are the shared definition)."""
    d = aj.dtypes.resolve(dtype)
    return aj.study.draw_inputs(aj.sweeps.trial_rng(seed, d, n, dist, trial), n, dist, HALF_OR_FLOAT[dtype])


def fraction_sum(x):
    return sum((Fraction(float(v)) for v in x), Fraction(0))


def true_ulp(value, np_t):
    """The ulp of the type at |value| (the binade holding it; the smallest subnormal below the normals; the
    largest binade's ulp at and past the largest finite value)."""
    fi = np.finfo(np_t)
    p, emin = fi.nmant + 1, fi.minexp
    a = Fraction(abs(float(value)))
    if a < Fraction(2) ** emin:
        return 2.0 ** (emin - p + 1)
    k = math.floor(math.log2(a))
    while Fraction(2) ** k > a:
        k -= 1
    while Fraction(2) ** (k + 1) <= a:
        k += 1
    return 2.0 ** (min(k, fi.maxexp - 1) - p + 1)


# --- independent models of what each sweep entry runs ----------------------------------------------------------------
def _core_tensors(device, dtype, n_src, tmp_n):
    core = aj.Core(device)
    return core, core.local_tensor(dtype, n_src), core.local_tensor(dtype, 16), core.local_tensor(dtype, tmp_n)


def direct_reduce_sum_count(device, dtype, x):
    n = x.size
    _, src, dst, tmp = _core_tensors(device, dtype, n, max(aj.GetReduceSumTmpSize(device, dtype, count=n), 16))
    src[:] = x
    aj.ReduceSum(dst, src, tmp, n)
    return float(dst.numpy()[0])


def direct_reduce_sum_highdim(device, dtype, x):
    lanes = 128 if dtype == "half" else 64
    reps = -(-x.size // lanes)
    tmp_n = max(aj.GetReduceSumTmpSize(device, dtype, repeat_time=reps), 16)
    _, src, dst, tmp = _core_tensors(device, dtype, reps * lanes, tmp_n)
    src[:] = np.concatenate([x, np.zeros(reps * lanes - x.size, x.dtype)])
    aj.ReduceSum(dst, src, tmp, lanes, reps, 8)
    return float(dst.numpy()[0])


def direct_pattern(device, dtype, x, block_first):
    """docs/decisions.md "Sweeps" / explain_reduce_order: stage 1 over whole repeats of +0-padded src, then
    WholeReduceSum level by level (at least once), values past the last of a level +0."""
    lanes = 128 if dtype == "half" else 64
    reps = -(-x.size // lanes)
    core = aj.Core(device)
    src = core.local_tensor(dtype, reps * lanes)
    src[:] = np.concatenate([x, np.zeros(reps * lanes - x.size, x.dtype)])
    work = -(-8 * reps // lanes) * lanes
    a, b = core.local_tensor(dtype, work), core.local_tensor(dtype, work)
    if block_first:
        aj.BlockReduceSum(a, src, reps, lanes, 1, 1, 8)
        m = 8 * reps
    else:
        aj.WholeReduceSum(a, src, lanes, reps, 1, 1, 8)
        m = reps
    levels = 0
    while m > 1 or levels == 0:
        r = -(-m // lanes)
        a[m:r * lanes] = 0
        aj.WholeReduceSum(b, a, lanes, r, 1, 1, 8)
        a, b, m, levels = b, a, r, levels + 1
    return float(a.numpy()[0])


def direct_gallery(name, output, device, x):
    from ascend_jit.kernels import registry
    return float(registry()[name].run(device, {"x": x})[output][0])


def model_sequential(x):
    acc = x[0]
    for v in x[1:]:
        acc = x.dtype.type(acc + v)  # numpy rounds a half or float add once (exact in the wider type, then RNE)
    return float(acc)


def model_pairwise(x):
    level = list(x)
    while len(level) > 1:
        level = [x.dtype.type(level[k] + level[k + 1]) for k in range(0, len(level) - 1, 2)] + (
            [level[-1]] if len(level) % 2 else [])
    return float(level[0])


def model_wide(x):
    wide = np.float32 if x.dtype == np.float16 else np.float64
    acc = wide(0)
    for v in x:
        acc = wide(acc + wide(v))
    return float(x.dtype.type(acc))


def direct(api, device, dtype, x):
    return {"reduce-sum-count": lambda: direct_reduce_sum_count(device, dtype, x),
            "reduce-sum-highdim": lambda: direct_reduce_sum_highdim(device, dtype, x),
            "reduce-repeat-reduce-repeat": lambda: direct_pattern(device, dtype, x, False),
            "block-reduce-sum-whole-reduce-sum": lambda: direct_pattern(device, dtype, x, True),
            "tiled-gm": lambda: direct_gallery("tiled_reduce_sum", "total", device, x),
            "multi-block-gm": lambda: direct_gallery("multi_block_reduce_sum", "total", device, x),
            "atomic-sum-gm": lambda: direct_gallery("atomic_sum", "sum", device, x),
            "whatif-sequential": lambda: model_sequential(x),
            "whatif-pairwise": lambda: model_pairwise(x),
            "whatif-wide": lambda: model_wide(x)}[api]()


# --- one sweep over every device, dtype and API --------------------------------------------------------------------
EVERYTHING = dict(sizes="300,1Ki", dists="normal,cancel", dtypes="half,float", devices="all", apis="all", trials=2,
                  seed=44, task_trials=1, plots=False, table_format="csv")


@pytest.fixture(scope="module")
def everything(tmp_path_factory):
    return aj.sweep(out=tmp_path_factory.mktemp("everything"), **EVERYTHING)


def test_every_row_equals_a_direct_call_of_the_emulator(everything):
    table = everything.table()
    seen = set()
    inputs = {}
    for i in range(table["size"].size):
        api, device, dtype = str(table["api"][i]), str(table["device"][i]), str(table["dtype"][i])
        n, dist, trial = int(table["size"][i]), str(table["dist"][i]), int(table["trial"][i])
        key = (dtype, n, dist, trial)
        if key not in inputs:
            inputs[key] = inputs_of(44, dtype, n, dist, trial)
        x = inputs[key]
        got = table["result"][i]
        want = direct(api, device, dtype, x)
        assert np.float64(got).tobytes() == np.float64(want).tobytes(), (api, device, dtype, n, dist, trial, got, want)
        seen.add((api, device, dtype))
    apis = set(aj.summing.SUMMING_APIS)
    assert {s[0] for s in seen} == apis  # every entry ran somewhere in this grid
    for device in aj.SUPPORTED_NAMES:  # every ReduceSum form on every device that offers the dtype
        for dtype in aj.get_device(device).reduce_sum_dtypes:
            if dtype in HALF_OR_FLOAT:
                assert ("reduce-sum-count", device, dtype) in seen and ("reduce-sum-highdim", device, dtype) in seen
    # what was not run is listed as skipped with a reason, never silently missing
    expected_rows = sum(len(v) for *_, v, _ in everything.grid.points()) * 2
    assert table["size"].size == expected_rows
    assert all(reason for *_, reason in everything.skipped)


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_study_variants_equal_direct_calls_on_every_device_and_form(dtype):
    """The study's device rows (both ReduceSum forms on every device, the patterns on the first device offering
    them) and what-if rows come from the same sums as direct calls: their ulp errors agree exactly (measured the
    study's way, aj.study.ulp_of, so that this test is independent of the ulp findings)."""
    np_t = HALF_OR_FLOAT[dtype]
    r = aj.study.run_study(dtype=dtype, n=300, trials=2, devices="all", dist="cancel", seed=12, threads=1)
    rng = np.random.default_rng(12)
    names = {v["variant"]: v for v in r["variants"]}
    checked = set()
    for t in range(2):
        x = aj.study.draw_inputs(rng, 300, "cancel", np_t)
        exact = r["exact"][t]
        assert exact == float(fraction_sum(x))
        for label, v in names.items():
            if v["kind"] == "what-if":
                fn = {"sequential": model_sequential, "pairwise": model_pairwise}.get(label.split()[-1], model_wide)
                got = fn(x)
            elif v["form"] == "count":
                got = direct_reduce_sum_count(v["device"], dtype, x)
            elif v["form"] == "highdim":
                got = direct_reduce_sum_highdim(v["device"], dtype, x)
            else:
                got = direct_pattern(v["device"], dtype, x, v["form"].startswith("Block"))
            want = abs(got - exact) / aj.study.ulp_of(exact, np_t)
            assert r["ulp_errors"][label][t] == want, (label, t)
            checked.add((v["device"], v["form"]))
    for device in aj.SUPPORTED_NAMES:
        if dtype in aj.get_device(device).reduce_sum_dtypes:
            assert (device, "count") in checked and (device, "highdim") in checked


def test_exact_column_is_the_correctly_rounded_exact_sum_and_bits_match(everything):
    table = everything.table()
    for i in np.flatnonzero(table["trial"] == 1):
        dtype = str(table["dtype"][i])
        x = inputs_of(44, dtype, int(table["size"][i]), str(table["dist"][i]), 1)
        assert table["exact"][i] == float(fraction_sum(x))  # float(Fraction) rounds once, to nearest even
        np_t = HALF_OR_FLOAT[dtype]
        assert table["result_bits"][i] == int(np.array(table["result"][i], np_t).view(
            np.uint16 if np_t is np.float16 else np.uint32))
        err = abs(Fraction(table["result"][i]) - Fraction(table["exact"][i]))
        assert table["err_rel"][i] == float(err / abs(Fraction(table["exact"][i])))


def test_rows_are_ordered_by_point_variant_trial(everything):
    """docs/decisions.md "Sweeps": rows ordered by grid point (dtype, dist, size), then variant, then trial."""
    t = everything.table()
    dtypes, dists, sizes = ["half", "float"], ["normal", "cancel"], [300, 1024]
    point = [(dtypes.index(a), dists.index(b), sizes.index(c)) for a, b, c in zip(t["dtype"], t["dist"], t["size"])]
    assert point == sorted(point)
    starts = {}
    for i, p in enumerate(point):
        starts.setdefault(p, []).append(i)
    for rows in starts.values():
        variants = [(t["api"][i], t["device"][i]) for i in rows]
        order = list(dict.fromkeys(variants))
        assert variants == [v for v in order for _ in range(2)]  # each variant's rows in one run of 2 trials
        assert [int(t["trial"][i]) for i in rows] == [0, 1] * len(order)


def test_summary_and_table_csv_parse_back_to_the_same_bits(everything):
    with open(everything.files["table"]) as f:
        rows = list(csv.DictReader(f))
    table = everything.table()
    assert len(rows) == table["size"].size
    for c in aj.sweeps.TABLE_COLUMNS:
        col = table[c]
        if col.dtype.kind == "f":
            parsed = np.array([float(r[c]) for r in rows])
            assert np.array_equal(parsed.view(np.uint64), col.view(np.uint64)), c
        elif col.dtype.kind in "iu":
            assert [int(r[c]) for r in rows] == col.tolist(), c
        else:
            assert [r[c] for r in rows] == [str(v) for v in col], c
    with open(everything.files["summary"]) as f:
        summary = list(csv.DictReader(f))
    s = everything.summary
    assert len(summary) == s["size"].size
    for c, col in s.items():
        if col.dtype.kind == "f":
            parsed = np.array([float(r[c]) for r in summary])
            assert np.array_equal(parsed.view(np.uint64), col.view(np.uint64)), c
        else:
            assert [r[c] for r in summary] == [str(v) for v in col], c


# --- errors in ulps ------------------------------------------------------------------------------------------------
def test_err_ulp_matches_the_ulp_at_the_exact_sum_away_from_binade_edges(everything):
    t = everything.table()
    for i in range(t["size"].size):
        np_t = HALF_OR_FLOAT[str(t["dtype"][i])]
        e = t["exact"][i]
        ulp = true_ulp(e, np_t)
        rounded = float(np_t(min(abs(e), float(np.finfo(np_t).max))))
        if true_ulp(rounded, np_t) != ulp:
            continue  # the binade edge is test_found_err_ulp_uses_the_ulp_of_the_rounded_exact_sum's subject
        assert t["err_ulp"][i] == abs(t["result"][i] - e) / ulp
        assert t["bound_ulp"][i] == t["bound"][i] / ulp


def _edge_rows(table, np_t):
    """Rows whose exact sum lies just below a power of two: the type's ulp there is half the ulp above it."""
    out = []
    for i in range(table["size"].size):
        e = table["exact"][i]
        if true_ulp(e, np_t) != true_ulp(float(np_t(abs(e))), np_t):
            out.append(i)
    return out


def test_found_err_ulp_uses_the_ulp_of_the_rounded_exact_sum(tmp_path):
    # README "Sweeps": the table holds the "error in ulps"; sweeps.py / study.py error_measures: "|result - exact|
    # in ulps of the type at the exact sum"; README study paragraph: "reports errors in ulps against math.fsum".
    # At an exact sum just below a power of two (63.989 in half: binade [32, 64), ulp 2**-5) the code takes the ulp
    # of the exact sum *rounded to the type* (64.0, ulp 2**-4) and halves the error: a result one grid step off
    # (63.96875 against a correctly rounded 64.0, 0.66 ulp) is reported as 0.33 ulp, below the 0.5 of a correctly
    # rounded answer.
    result = aj.sweep(sizes="128", dists="uniform", dtypes="half", devices="atlas-a2", apis="whatif-pairwise",
                      trials=800, seed=0, out=tmp_path, plots=False, table_format="csv")
    t = result.table()
    edge = _edge_rows(t, np.float16)
    assert edge, "the grid was chosen to hold sums just below 64"
    for i in edge:
        want = abs(t["result"][i] - t["exact"][i]) / true_ulp(t["exact"][i], np.float16)
        assert t["err_ulp"][i] == want, (t["trial"][i], t["exact"][i], t["result"][i], t["err_ulp"][i], want)


def test_found_study_ulp_errors_use_the_ulp_of_the_rounded_exact_sum():
    # study.py (aj.study) module doc: "Reports errors in ulps of the result type"; error_measures: "in ulps of the
    # type at the exact sum"; decisions.md "Study": the bound column is "in ulps of the exact sum". As in the
    # sweep, an exact sum just below a power of two is measured in the ulp of the binade above it.
    r = aj.study.run_study(dtype="half", n=128, trials=800, devices="atlas-a2", dist="uniform", seed=0,
                           api="ReduceSum", threads=1)
    exact = np.array(r["exact"])
    errors = r["ulp_errors"]["what-if pairwise"]
    rng = np.random.default_rng(0)
    checked = 0
    for t in range(800):
        x = aj.study.draw_inputs(rng, 128, "uniform", np.float16)
        if true_ulp(exact[t], np.float16) == true_ulp(float(np.float16(exact[t])), np.float16):
            continue
        checked += 1
        want = abs(model_pairwise(x) - exact[t]) / true_ulp(exact[t], np.float16)
        assert errors[t] == want, (t, exact[t], errors[t], want)
    assert checked


def test_found_half_overflow_is_reported_as_exact(tmp_path):
    # README "Sweeps": "summary.csv: per grid point, error mean / p50 / p90 / p99 / p99.9 / max"; study.py
    # error_measures: "|result - exact| in ulps of the type at the exact sum", ulp_of: "Spacing of the type at
    # |value|"; the summary's exact_fraction is the fraction of trials with no error. A half sum past 65504 (65536
    # lognormal halves sum to about 108000: README's own grid has 65536 and 1Mi) is measured in np.spacing(65504),
    # which numpy gives as inf: the 910's saturated 65504 against an exact 108091.6 shows err_ulp 0 and
    # exact_fraction 1.0 (every trial "exact"), and every inf result (A2, the what-if orders) err_ulp NaN, so the
    # summary's error mean and max are NaN.
    result = aj.sweep(sizes="64Ki", dists="lognormal", dtypes="half", devices="atlas-a2,atlas-training",
                      apis="tiled-gm,whatif-wide", trials=2, seed=0, out=tmp_path, plots=False, table_format="csv")
    t = result.table()
    assert np.all(t["exact"] > 65504)
    for i in range(t["size"].size):
        assert t["result"][i] != t["exact"][i]
        assert t["err_ulp"][i] > 0, (t["device"][i], t["api"][i], t["result"][i], t["exact"][i], t["err_ulp"][i])
        assert t["bound_ulp"][i] > 0
    s = result.summary
    assert np.all(s["exact_fraction"] == 0) and not np.any(np.isnan(s["err_ulp_mean"]))
    # port64d: such rows exceed their first-order bound, which assumes no partial sum leaves the range; they say so
    assert t["out_of_range"].all() and np.all(s["out_of_range_fraction"] == 1)


def test_found_study_half_sums_past_65504_show_zero_ulp_error():
    # README study paragraph: the study "reports errors in ulps against `math.fsum`"; study.py: "Reports errors in
    # ulps of the result type"; decisions.md "Study": the bound "in ulps of the exact sum". 61440 lognormal halves
    # (inside the 910's UB limit) sum to about 101000: the ulp at the exact sum is taken as np.spacing(65504) = inf,
    # so the 910's ReduceSum (saturated to 65504) and the stagnating what-if sequential sum (about 30000, off by
    # 70 %) show 0.000 ulp error, p99 and max 0.00, and a bound of 0.0 ulps, beside a relative error of 0.35-0.7.
    r = aj.study.run_study(dtype="half", n=61440, trials=1, devices="atlas-training", dist="lognormal",
                           api="ReduceSum", threads=1)
    assert r["exact"][0] > 65504
    for v in r["variants"]:
        assert v["rel_max"] > 0.01
        assert v["ulp_max"] > 1000, (v["variant"], v["ulp_max"], v["rel_max"])
        assert v["bound_ulp_mean"] > 0, v["variant"]


def test_err_ulp_at_zero_subnormals_signs_and_nan():
    """Error measures at the edges: a zero exact sum is measured in the smallest subnormal, a NaN result has a NaN
    error, signs do not matter (the overflow edge: test_found_half_overflow_is_reported_as_exact)."""
    half = np.float16
    abs_err, ulp_err, rel_err, ulp = aj.study.error_measures(np.array([0.0, 2.0 ** -24, -2.0 ** -24, np.inf, np.nan]),
                                                             np.array([0.0, 0.0, 0.0, 70000.0, 1.0]), half)
    assert ulp.tolist()[:3] == [2.0 ** -24] * 3
    assert ulp_err.tolist()[:3] == [0.0, 1.0, 1.0]
    assert rel_err.tolist()[:3] == [0.0, np.inf, np.inf]
    assert math.isnan(ulp_err[4]) and math.isnan(rel_err[4])
    _, neg, _, _ = aj.study.error_measures(np.array([-3.0]), np.array([-3.001]), half)
    _, pos, _, _ = aj.study.error_measures(np.array([3.0]), np.array([3.001]), half)
    assert neg.tolist() == pos.tolist()
    # subnormal exact sums: the subnormal ulp, not the spacing of the smallest normal
    _, sub, _, u = aj.study.error_measures(np.array([3 * 2.0 ** -24]), np.array([2 * 2.0 ** -24]), half)
    assert u[0] == 2.0 ** -24 and sub[0] == 1.0


# --- determinism -------------------------------------------------------------------------------------------------
SMALL = dict(sizes="128,1Ki", dists="normal,lognormal", dtypes="half", devices="atlas-a2,ascend950,atlas-training",
             apis="reduce-sum-count,reduce-repeat-reduce-repeat,whatif-sequential,whatif-wide", trials=6, seed=5,
             task_trials=2, plots=False, table_format="csv")


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    return aj.sweep(out=tmp_path_factory.mktemp("small"), **SMALL)


def test_same_sweep_twice_and_other_blocks_are_identical_and_the_seed_is_honoured(small, tmp_path):
    again = aj.sweep(out=tmp_path / "again", **SMALL)
    assert again.tasks_run == len(again.tasks)
    assert_same_table(again.table(), small.table())
    assert again.files["summary"].read_bytes() == small.files["summary"].read_bytes()
    blocks = aj.sweep(out=tmp_path / "blocks", **{**SMALL, "task_trials": 4, "task_elements": 1000})
    assert_same_table(blocks.table(), small.table())
    other = aj.sweep(out=tmp_path / "other", **{**SMALL, "seed": 6}).table()
    assert not np.array_equal(other["exact"], small.table()["exact"])  # another seed, other inputs
    # fewer trials are a prefix of more: trial t's input does not depend on the trial count
    fewer = aj.sweep(out=tmp_path / "fewer", **{**SMALL, "trials": 3}).table()
    t = small.table()
    keep = t["trial"] < 3
    assert_same_table(fewer, {c: v[keep] for c, v in t.items()})


def test_study_seed_is_honoured_and_threads_do_not_matter():
    a = aj.study.run_study(n=300, trials=3, devices="atlas-a2,ascend950", seed=3, threads=1)
    b = aj.study.run_study(n=300, trials=3, devices="atlas-a2,ascend950", seed=3, threads=2)
    c = aj.study.run_study(n=300, trials=3, devices="atlas-a2,ascend950", seed=4, threads=1)
    assert a == b and a["exact"] != c["exact"]
    rng = np.random.default_rng(3)
    for t in range(3):  # decisions.md "Study": inputs drawn in the seed's order
        x = aj.study.draw_inputs(rng, 300, "normal", np.float16)
        assert a["exact"][t] == float(fraction_sum(x))


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local:
        yield local


def _in_thread(fn, timeout):
    """Run fn in a thread; fail (not hang) when it does not finish in time."""
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 (re-raised in the test's thread)
            box["error"] = exc
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"no answer in {timeout} s"
    if "error" in box:
        raise box["error"]
    return box["value"]


def test_killed_workers_lose_no_row(small, cluster, tmp_path):
    """Both worker processes killed mid-sweep (their nannies restart them): the table is complete and identical."""
    import distributed
    with distributed.Client(cluster) as client:
        pids = list(client.run(os.getpid).values())
        killed = []

        def kill_all_once(done, total):
            if done == 3 and not killed:
                for pid in pids:
                    os.kill(pid, signal.SIGKILL)  # worker processes this test's cluster started
                killed.append(done)
        result = _in_thread(lambda: aj.sweep(out=tmp_path / "killed", client=client, progress=kill_all_once,
                                             **SMALL), 120)
        assert killed
        assert_same_table(result.table(), small.table())  # no row lost, none duplicated
        assert len(list((tmp_path / "killed" / "tasks").glob("*.npy"))) == len(result.tasks)


_FAIL_AT_1024 = ("import ascend_jit.sweeps as s\n"
                 "if not hasattr(s, '_audit_run_task'):\n"
                 "    s._audit_run_task = s.run_task\n"
                 "def _failing(task, seed):\n"
                 "    if task.size == 1024:\n"
                 "        raise RuntimeError('audit: failure at ' + task.key)\n"
                 "    return s._audit_run_task(task, seed)\n"
                 "s.run_task = _failing\n")
_RESTORE = "import ascend_jit.sweeps as s\ns.run_task = getattr(s, '_audit_run_task', s.run_task)\n"


def test_a_point_that_raises_on_a_worker_propagates_and_a_rerun_completes(small, cluster, tmp_path):
    """A worker-side failure at one grid point (size 1024, injected on the workers): the sweep raises it (no hang,
    no table or summary with rows missing); a later rerun on a fresh client resumes and completes the table."""
    import distributed
    with distributed.Client(cluster) as client:
        client.run(exec, _FAIL_AT_1024, {})
        try:
            with pytest.raises(RuntimeError, match="audit: failure at .*1024") as raised:
                _in_thread(lambda: aj.sweep(out=tmp_path, client=client, **SMALL), 120)
        finally:
            client.run(exec, _RESTORE, {})
    assert not (tmp_path / "summary.csv").exists() and not (tmp_path / "table.csv").exists()
    # the error names the grid point whose unit raised (session 44: it had come back as the worker's bare error)
    notes = getattr(raised.value, "__notes__", [])
    assert any("ascend_jit sweep: the unit of" in n and ".1024." in n for n in notes), notes
    stored = len(list((tmp_path / "tasks").glob("*.npy")))
    with distributed.Client(cluster) as client:
        resumed = _in_thread(lambda: aj.sweep(out=tmp_path, client=client, **SMALL), 120)
    assert resumed.tasks_reused == stored
    assert_same_table(resumed.table(), small.table())


def test_found_a_retry_on_the_same_client_gets_the_old_failure_back(small, cluster, tmp_path):
    # sweep() doc: "`client=` an existing dask Client"; README "Sweeps": "rerunning the same command skips them
    # (resume after an interrupt)". A retry of a failed sweep on the same client while the failure is still held
    # (the usual `except ...: retry`, a notebook's last exception, pytest.raises) is handed the failed unit again:
    # the unit's Dask key is fixed by (seed, first task, length), not unique per submission (pure=False is passed,
    # then overridden by key=), so Dask returns the erred future of the first attempt instead of running the unit.
    import distributed
    with distributed.Client(cluster) as client:
        client.run(exec, _FAIL_AT_1024, {})
        try:
            with pytest.raises(RuntimeError, match="audit: failure at") as first:
                _in_thread(lambda: aj.sweep(out=tmp_path, client=client, **SMALL), 120)
        finally:
            client.run(exec, _RESTORE, {})  # the cause is gone: every point runs again
        assert first.value is not None
        resumed = _in_thread(lambda: aj.sweep(out=tmp_path, client=client, **SMALL), 120)
        assert_same_table(resumed.table(), small.table())


@pytest.mark.slow
def test_one_worker_local_cluster_gives_the_same_table(small, tmp_path):
    pytest.importorskip("distributed")
    result = _in_thread(lambda: aj.sweep(out=tmp_path, workers=1, **SMALL), 150)
    assert_same_table(result.table(), small.table())


def test_found_two_sweeps_sharing_a_scheduler_swap_rows(cluster, tmp_path):
    # README "Sweeps": "`--scheduler tcp://host:8786` uses a running one ... The tables are bit-identical however
    # the work is spread." (also docs/scaling.md "neither the block size nor the worker count changes a single bit
    # of the table"). The Dask key of a unit of work is f"ascend-jit-sweep-{seed}-{first task key}+{unit length}"
    # (sweeps._run_on_dask), not the unit's tasks: two sweeps on one scheduler whose units start with the same task
    # and have the same length (same seed, another second API) share keys, and Dask hands each the other's rows,
    # stored under its own API's name.
    grid = dict(sizes="128,1Ki", dists="normal", dtypes="half", devices="atlas-a2", trials=80, seed=3, task_trials=4,
                plots=False, table_format="csv")
    apis = {"a": "reduce-sum-count,whatif-pairwise", "b": "reduce-sum-count,whatif-sequential"}
    alone = {k: aj.sweep(out=tmp_path / f"alone-{k}", apis=v, **grid).table() for k, v in apis.items()}
    shared = {}

    def run(k):
        shared[k] = aj.sweep(out=tmp_path / f"shared-{k}", apis=apis[k], scheduler=cluster.scheduler_address, **grid)
    threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in apis]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads) and set(shared) == set(apis)
    for k in apis:
        assert_same_table(shared[k].table(), alone[k])


# --- hostile parameters -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [dict(sizes="0"), dict(sizes="-128"), dict(sizes="128.5"), dict(sizes=1.5),
                                    dict(sizes="16Mi,17Mi"), dict(sizes="1Gi"), dict(devices="nosuch"),
                                    dict(devices=""), dict(dtypes="int8"), dict(dtypes="double"),
                                    dict(apis="ReduceSum"),
                                    dict(dists="gauss"), dict(trials=-1), dict(trials=2.5), dict(seed=-3),
                                    dict(seed=2.0), dict(workers=-1), dict(task_trials=-2), dict(cdf_size="2Ki")])
def test_sweep_refuses_hostile_parameters_naming_them(kwargs, tmp_path):
    out = tmp_path / "out"
    with pytest.raises(aj.AscendJitError) as info:
        aj.sweep(out=out, **{**SMALL, **kwargs})
    name = next(iter(kwargs))
    assert name.rstrip("s") in str(info.value) or "device" in str(info.value), str(info.value)
    assert not out.exists()


@pytest.mark.parametrize("kwargs", [dict(n=1), dict(n=-5), dict(n=10 ** 9), dict(trials=0), dict(trials=-1),
                                    dict(dtype="int16"), dict(dist="gauss"), dict(devices="nosuch"),
                                    dict(api="ReduceMax"), dict(seed=-1), dict(seed=0.5)])
def test_study_refuses_hostile_parameters(kwargs):
    with pytest.raises(aj.AscendJitError):
        aj.study.run_study(**{"n": 300, "trials": 2, "devices": "atlas-a2", **kwargs})


@pytest.mark.parametrize("trials", [2.5, "3", True])
def test_found_study_non_integer_trials_is_not_a_parameter_error(trials):
    # README "Every refusal is an `aj.AscendJitError` (`ParameterError`, ...) naming the API, parameter, value,
    # legal range and device". run_study checks `trials < 1` only: 2.5 and True reach range() and numpy
    # (TypeError), "3" fails the comparison (TypeError). aj.sweep refuses the same values as ParameterErrors naming
    # 'trials', and run_study's own seed check says it follows the sweep's.
    with pytest.raises(aj.ParameterError, match="trials"):
        aj.study.run_study(n=300, trials=trials, devices="atlas-a2", api="ReduceSum")


def test_found_study_non_bool_saturate_fails_inside_numba():
    # README "Every refusal is an `aj.AscendJitError` ... naming the API, parameter, value, legal range". A saturate
    # that is not a bool (a config file's "no", 1.0) is not checked: the emulated variants take the truthy "no" as
    # saturation mode, and the what-if orders hand it to a jitted sum, where numba raises a TypingError from its
    # nopython frontend.
    with pytest.raises(aj.AscendJitError, match="saturate"):
        aj.study.run_study(n=300, trials=1, devices="atlas-a2", api="ReduceSum", saturate="no")


def test_found_study_refuses_a_numpy_integer_n_as_out_of_its_own_range():
    # README: a refusal names "the API, parameter, value, legal range"; the sweep takes numpy integers for sizes
    # (parse_size) and run_study takes them for the seed. run_study(n=np.int64(300)) is refused with
    # "parameter 'n' = np.int64(300) (legal: >= 2)": the value lies inside the legal range the message gives.
    report = aj.study.run_study(n=np.int64(300), trials=1, devices="atlas-a2", api="ReduceSum")
    assert report["params"]["n"] == 300


@pytest.mark.parametrize("args, parameter", [
    (("sweep", "--sizes", "-4"), "sizes"), (("sweep", "--devices", "nosuch"), "device"),
    (("sweep", "--apis", "nope"), "api"), (("sweep", "--trials", "1.5"), "trials"),
    (("sweep", "--workers", "0"), "workers"),
    (("sweep", "--sizes", "128", "--cdf-size", "7"), "cdf_size"), (("study", "--trials", "-2"), "trials"),
    (("explain", "--device", "a2", "--n", "-3"), "count"),
    (("explain", "--device", "a2", "--n", "3", "--form", "up"), "form")])
def test_cli_hostile_parameters_are_one_line_errors_with_exit_code_2(args, parameter, tmp_path, cli_in_process):
    r = cli_in_process(*args, *(("--out", tmp_path / "out") if args[0] == "sweep" else ()))
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0] and parameter in lines[0], r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "out").exists()


# --- CLI outputs --------------------------------------------------------------------------------------------------
@pytest.mark.child_processes(seconds=2)
def test_cli_sweep_summary_text_matches_the_summary_csv(tmp_path):
    out = tmp_path / "out"
    r = cli("sweep", "--sizes", "300", "--devices", "atlas-a2,ascend950", "--apis", "reduce-sum-count,whatif-pairwise",
            "--trials", "3", "--seed", "7", "--out", out, "--no-plots", "--format", "csv")
    assert r.returncode == 0, r.stderr
    with open(out / "summary.csv") as f:
        summary = list(csv.DictReader(f))
    lines = [ln for ln in r.stdout.splitlines() if ln.strip().startswith("300 ")]
    assert len(lines) == len(summary) == 3
    for line, row in zip(lines, summary):
        cells = line.split()
        assert cells[:5] == [row["size"], row["dist"], row["dtype"], row["device"], row["api"]]
        assert float(cells[5]) == float(f"{float(row['err_ulp_mean']):.3g}")
        assert float(cells[8]) == float(f"{float(row['err_ulp_max']):.3g}")
    assert f"table: {out / 'table.csv'}" in r.stdout and f"summary: {out / 'summary.csv'}" in r.stdout
    lib = aj.sweep(sizes="300", devices="atlas-a2,ascend950", apis="reduce-sum-count,whatif-pairwise", trials=3,
                   seed=7, out=tmp_path / "lib", plots=False, table_format="csv")
    assert (out / "table.csv").read_bytes() == lib.files["table"].read_bytes()


@pytest.mark.child_processes(seconds=2)
def test_cli_study_json_parses_back_to_the_library_report(tmp_path):
    path = tmp_path / "s.json"
    r = cli("study", "--n", "300", "--trials", "3", "--devices", "atlas-a2,atlas-training", "--seed", "2",
            "--dist", "lognormal", "--json", path)
    assert r.returncode == 0, r.stderr
    report = json.loads(path.read_text())
    lib = aj.study.run_study(n=300, trials=3, devices="atlas-a2,atlas-training", seed=2, dist="lognormal")
    assert report == json.loads(json.dumps(lib))
    rng = np.random.default_rng(2)
    for t in range(3):
        x = aj.study.draw_inputs(rng, 300, "lognormal", np.float16)
        assert report["exact"][t] == float(fraction_sum(x))
        assert report["ulp_errors"]["atlas-training count (tree-tree+tail)"][t] == (
            abs(direct_reduce_sum_count("atlas-training", "half", x) - report["exact"][t])
            / true_ulp(report["exact"][t], np.float16))


@pytest.mark.slow
@pytest.mark.child_processes(seconds=20)
def test_cli_sweep_on_two_local_workers_writes_the_in_process_files(tmp_path):
    pytest.importorskip("distributed")
    args = ["sweep", "--sizes", "128,1Ki", "--devices", "atlas-a2,ascend950", "--apis",
            "reduce-sum-count,reduce-sum-highdim,whatif-pairwise", "--trials", "5", "--seed", "9", "--no-plots",
            "--format", "csv", "--task-trials", "2"]
    one = cli(*args, "--out", tmp_path / "one")
    two = cli(*args, "--out", tmp_path / "two", "--workers", "2", timeout=300)
    assert one.returncode == 0 and two.returncode == 0, (one.stderr, two.stderr)
    for name in ("table.csv", "summary.csv"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


# --- explain: the printed tree is the kernel's order --------------------------------------------------------------
def evaluate_json_tree(node, x):
    """Evaluate explain's JSON tree ("+0" a zero lane, [a, b] one add) with one rounding per add in x's dtype."""
    t = x.dtype.type
    stack = [(node, False)]
    values = []
    while stack:
        n, expanded = stack.pop()
        if isinstance(n, list):
            if expanded:
                b, a = values.pop(), values.pop()
                with np.errstate(over="ignore", invalid="ignore"):
                    values.append(t(a + b))
            else:
                stack += [(n, True), (n[1], False), (n[0], False)]
        else:
            values.append(t(0) if n == "+0" else x[n])
    return values[0]


def parse_text_tree(text):
    """explain's text tree (an indented pre-order of '+', 'x[i]', '+0') back into the JSON nesting."""
    lines = text.splitlines()[2:]
    pos = [0]

    def node(indent):
        line = lines[pos[0]]
        assert len(line) - len(line.lstrip()) == 2 * indent, line
        pos[0] += 1
        item = line.strip()
        if item == "+":
            return [node(indent + 1), node(indent + 1)]
        return "+0" if item == "+0" else int(item[2:-1])
    tree = node(0)
    assert pos[0] == len(lines)
    return tree


def _values(dtype, n, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * np.exp(rng.uniform(-6, 6, n))).astype(HALF_OR_FLOAT[dtype])
    return x


COUNTS = {"half": (1, 2, 127, 129, 300, 513, 1100, 16513), "float": (1, 63, 65, 300, 1100, 8257)}


@pytest.mark.parametrize("device", [d for d in aj.SUPPORTED_NAMES])
def test_explained_count_and_highdim_trees_reproduce_reduce_sum(device):
    for dtype in aj.get_device(device).reduce_sum_dtypes:
        if dtype not in HALF_OR_FLOAT:
            continue
        lanes = 128 if dtype == "half" else 64
        for n in COUNTS[dtype]:
            x = _values(dtype, n, n)
            tree = json.loads(aj.explain_reduce_order(device, "count", dtype, count=n).to_json())["tree"]
            want = evaluate_json_tree(tree, x)
            got = direct_reduce_sum_count(device, dtype, x)
            assert np.array(got, x.dtype).tobytes() == want.tobytes(), (device, dtype, n, got, want)
            reps = -(-n // lanes)
            padded = np.concatenate([x, np.zeros(reps * lanes - n, x.dtype)])
            tree = json.loads(aj.explain_reduce_order(device, "highdim", dtype, mask=lanes,
                                                      repeat_time=reps).to_json())["tree"]
            want = evaluate_json_tree(tree, padded)
            got = direct_reduce_sum_highdim(device, dtype, padded)
            assert np.array(got, x.dtype).tobytes() == want.tobytes(), (device, dtype, n, "highdim", got, want)


@pytest.mark.child_processes(seconds=10)
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950", pytest.param("atlas-training", marks=pytest.mark.slow),
                                    pytest.param("atlas-200i-500-a2", marks=pytest.mark.slow)])
def test_cli_explain_text_and_json_trees_reproduce_the_emulator(device):
    """The CLI's printed tree (text and JSON), evaluated here, gives the emulator's bits: count form, a partial
    high-dim mask and a two-stage pattern."""
    n = 300
    x = _values("half", n, 7)
    r = cli("explain", "--device", device, "--n", n, "--format", "json")
    assert r.returncode == 0, r.stderr
    tree = json.loads(r.stdout)["tree"]
    assert evaluate_json_tree(tree, x).tobytes() == np.float16(direct_reduce_sum_count(device, "half", x)).tobytes()
    small = cli("explain", "--device", device, "--n", 50, "--format", "json")  # the text form prints 200 lines at most
    r = cli("explain", "--device", device, "--n", 50)
    assert r.returncode == 0 and parse_text_tree(r.stdout) == json.loads(small.stdout)["tree"]
    # high-dim with mask 100: repeats of 100 lanes, the rest of each repeat masked off
    r = cli("explain", "--device", device, "--n", n, "--form", "highdim", "--mask", "100", "--format", "json")
    assert r.returncode == 0, r.stderr
    tree = json.loads(r.stdout)["tree"]
    reps = -(-n // 100)
    src_vals = _values("half", reps * 128, 8)
    _, src, dst, tmp = _core_tensors(device, "half", reps * 128,
                                     max(aj.GetReduceSumTmpSize(device, "half", repeat_time=reps), 16))
    src[:] = src_vals
    aj.ReduceSum(dst, src, tmp, 100, reps, 8)
    assert evaluate_json_tree(tree, src_vals).tobytes() == dst.numpy()[:1].tobytes()
    r = cli("explain", "--device", device, "--n", n, "--form", "BlockReduceSum->WholeReduceSum", "--format", "json")
    assert r.returncode == 0, r.stderr
    got = direct_pattern(device, "half", x, True)
    assert evaluate_json_tree(json.loads(r.stdout)["tree"], x).tobytes() == np.float16(got).tobytes()


@pytest.mark.parametrize("device", [d for d in aj.SUPPORTED_NAMES])
def test_explained_pattern_trees_reproduce_the_two_stage_calls(device):
    spec = aj.get_device(device)
    for dtype in ("half", "float"):
        if (dtype, dtype) not in spec.reduce_repeat_sum_pairs:
            continue
        lanes = 128 if dtype == "half" else 64
        for n in (1, lanes + 1, 8 * lanes + 3, 255 * lanes):
            x = _values(dtype, n, 3 * n)
            for pattern, block in (("ReduceRepeat->ReduceRepeat", False), ("BlockReduceSum->WholeReduceSum", True)):
                tree = json.loads(aj.explain_reduce_order(device, pattern, dtype, count=n).to_json())["tree"]
                got = direct_pattern(device, dtype, x, block)
                assert np.array(got, x.dtype).tobytes() == evaluate_json_tree(tree, x).tobytes(), (pattern, n)


def test_950_high_dim_repeat_zero_is_explained_as_one_repeat():
    """SPEC D7: on the 950 high-dim ReduceSum with repeat 0 behaves as repeat 1; explain and the kernel agree."""
    x = _values("half", 128, 1)
    tree = json.loads(aj.explain_reduce_order("ascend950", "highdim", "half", mask=128, repeat_time=0).to_json())
    _, src, dst, tmp = _core_tensors("ascend950", "half", 128, 256)
    src[:] = x
    aj.ReduceSum(dst, src, tmp, 128, 0, 8)
    assert evaluate_json_tree(tree["tree"], x).tobytes() == dst.numpy()[:1].tobytes()


@pytest.mark.parametrize("device", [d for d in aj.SUPPORTED_NAMES])
def test_explained_count_tree_reproduces_overflowing_sums_in_both_modes(device):
    """Large halves of both signs whose partial sums overflow: in INF/NaN mode (numpy's IEEE half adds on the
    printed tree) and in saturation mode (ReduceTree.evaluate(saturate=True), SPEC 5.2) the tree gives the kernel's
    bits, on every device and in every mode it offers (SPEC D6)."""
    spec = aj.get_device(device)
    for n in (300, 1100, 5000):
        rng = np.random.default_rng(n)
        x = (rng.choice([-1, 1], n) * rng.uniform(20000, 65504, n)).astype(np.float16)
        x[::7] = np.abs(x[::7])
        tree = aj.explain_reduce_order(device, "count", "half", count=n)
        core = aj.Core(device)
        src, dst = core.local_tensor("half", n), core.local_tensor("half", 16)
        tmp = core.local_tensor("half", max(aj.GetReduceSumTmpSize(device, "half", count=n), 16))
        src[:] = x
        if spec.half_saturation_switchable or not spec.half_saturating_default:
            aj.ReduceSum(dst, src, tmp, n)
            got, want = dst.numpy()[0], evaluate_json_tree(json.loads(tree.to_json())["tree"], x)
            assert got.tobytes() == want.tobytes() or (np.isnan(got) and np.isnan(want)), (n, got, want)
        if spec.half_saturation_switchable:
            core.SetCtrlSpr(48, 48, 0)
        if spec.half_saturation_switchable or spec.half_saturating_default:
            aj.ReduceSum(dst, src, tmp, n)
            assert dst.numpy()[:1].tobytes() == np.float16(tree.evaluate(x, saturate=True)).tobytes(), n


def test_a_folder_without_finished_tasks_pins_no_seed(tmp_path):
    """A sweep that stopped before its first result (an unreachable --scheduler) leaves OUT/sweep.json; a rerun into
    that folder with another seed runs (it had been refused, though nothing was computed), while a folder that holds
    finished tasks still refuses another seed (session 44)."""
    out = tmp_path / "out"
    (out / "tasks").mkdir(parents=True)
    (out / "sweep.json").write_text(json.dumps({"format": 1, "seed": 99}))
    grid = dict(sizes="128", dists="normal", dtypes="half", devices="atlas-a2", apis="reduce-sum-count", trials=2,
                plots=False, table_format="csv")
    aj.sweep(out=out, seed=5, **grid)
    assert json.loads((out / "sweep.json").read_text())["seed"] == 5
    with pytest.raises(aj.ParameterError, match="finished tasks are only reused for the same seed"):
        aj.sweep(out=out, seed=6, **grid)
