"""The accumulation-order study: the same inputs through ReduceSum on every device and API form, the two-stage
patterns of the other summing reductions (ReduceRepeat -> ReduceRepeat, BlockReduceSum -> WholeReduceSum), plus
what-if orders, against the exact sum (math.fsum's correctly rounded answer, computed in linear time by exact_sum).
Reports errors in ulps of the result type and relative terms, how often variants disagree bit for bit, and each
order's deterministic error bound (u * sum |x_i| * depth_i). The distributions, exact sum, bound and error
measures here are shared with the sweep (sweeps.py); the variants come from the summing registry (summing.py)."""
import json
import math
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .devices import SUPPORTED_NAMES, get_device
from .dtypes import resolve
from .errors import ParameterError
from .launch import host_cores
from .summing import NO_DEVICE, PATTERN_APIS, get_api, run_pattern  # noqa: F401 (run_pattern: the study's API)

DISTRIBUTIONS = ("normal", "uniform", "lognormal", "cancel")
STUDY_PATTERNS = ("ReduceRepeat->ReduceRepeat", "BlockReduceSum->WholeReduceSum")
APIS = ("ReduceSum",) + STUDY_PATTERNS  # what `--api` may name (comma-separated), or "all"
STUDY_CHUNK = 32  # trials drawn and held at once (the variants' threads share them), progress reported per chunk
UNIT_ROUNDOFF = {"half": 2.0 ** -11, "float": 2.0 ** -24}
WIDE_ROUNDOFF = {"half": 2.0 ** -24, "float": 2.0 ** -53}  # the what-if accumulator: fp32 for half, fp64 for float


def draw_inputs(rng, n, dist, np_t):
    if dist == "normal":
        x = rng.standard_normal(n)
    elif dist == "uniform":
        x = rng.random(n)
    elif dist == "lognormal":
        x = rng.lognormal(0.0, 1.0, n)
    elif dist == "cancel":  # +-pairs of large values shuffled among small ones: heavy cancellation
        big = rng.standard_normal(n // 2) * 100
        x = np.concatenate([big, -big, rng.standard_normal(n - 2 * (n // 2)) * 0.01])
        x += rng.standard_normal(n) * 0.01
        rng.shuffle(x)
    else:
        raise ParameterError("study", "dist", dist, legal=", ".join(DISTRIBUTIONS))
    return x.astype(np_t)


def ulp_of(value, np_t):
    """The ulp of the type at |value| (ulps_of for one value)."""
    return float(ulps_of(np.array([value], np.float64), np_t)[0])


def ulps_of(values, np_t):
    """The ulp of type np_t in the binade holding each |value| (float64 values, e.g. exact sums): the smallest
    subnormal below the normals, and past the largest finite value the largest binade's ulp. Taken from the value's
    own exponent, not from the value rounded to the type: rounding an exact sum just below a power of two up to it
    doubled its ulp and halved every error there, and np.spacing of the largest half (a sum past 65504) is inf, which
    reported a saturated 65504 as exact (audit 44s)."""
    info = np.finfo(np_t)
    digits = info.nmant + 1
    magnitude = np.abs(np.asarray(values, np.float64))
    _, exponent = np.frexp(magnitude)  # magnitude = m * 2**exponent, 0.5 <= m < 1: its binade is 2**(exponent - 1)
    binade = np.where(np.isinf(magnitude), info.maxexp - 1,   # frexp gives 0, 0 and inf, 0: named here
                      np.where(magnitude == 0, info.minexp, np.clip(exponent - 1, info.minexp, info.maxexp - 1)))
    ulp = np.ldexp(1.0, (binade - digits + 1).astype(np.int64))
    return np.where(np.isnan(magnitude), np.nan, ulp)


def percentile(values, q):
    """np.percentile's linear interpolation of the order statistics, with an infinite one kept infinite: numpy's
    a + (b - a) * t is NaN (and a RuntimeWarning) where b is inf, as a sweep's half sums past 65504 give."""
    values = np.asarray(values, np.float64)
    with np.errstate(invalid="ignore"):
        result = float(np.percentile(values, q))
    if math.isnan(result) and not np.isnan(values).any():
        ordered = np.sort(values)
        position = q / 100 * (ordered.size - 1)
        k = int(math.floor(position))
        result = float(ordered[k]) if position == k or ordered[k] == ordered[k + 1] else math.inf
    return result


_UNWEIGHTED = np.zeros(0, np.int64)


_FIELDS = {np.dtype(np.float16): (np.uint16, 10, 0x1F, 15), np.dtype(np.float32): (np.uint32, 23, 0xFF, 127)}


def exact_sum(x, weights=None, absolute=False):
    """sum_i x_i (* weights_i) of a half or float array (|x_i| with absolute), exactly, rounded once to float64
    (math.fsum's answer), in time linear in n: integer partial sums per exponent (jit/orders.exponent_bucket_sums)
    read straight from the bit patterns, combined as one Python integer. weights: non-negative int64 up to 2**24
    (the bound's depths). Infinities and NaNs give the IEEE sum of the non-finite elements."""
    from .jit.orders import exponent_bucket_sums
    x = np.ascontiguousarray(x)
    if x.dtype not in _FIELDS:
        raise ParameterError("exact_sum", "x.dtype", str(x.dtype), legal="float16, float32")
    uint, man_bits, exp_mask, bias = _FIELDS[x.dtype]
    lo, hi = exponent_bucket_sums(x.view(uint), man_bits, exp_mask,
                                  _UNWEIGHTED if weights is None else np.ascontiguousarray(weights, np.int64), absolute)
    if lo[exp_mask]:
        values = np.abs(x) if absolute else x
        with np.errstate(invalid="ignore"):  # inf + -inf is NaN, as IEEE says
            return float(np.sum(values[~np.isfinite(values)], dtype=np.float64))
    total = 0
    for e in np.flatnonzero(lo[:exp_mask] | hi[:exp_mask]):
        total += ((int(hi[e]) << 32) + int(lo[e])) << (int(e) - 1)
    return math.ldexp(float(total), 1 - bias - man_bits)  # float(int) rounds once (RNE); the scaling is exact


def order_bound(api, d, x, depths, exact):
    """The first-order error bound of one order on one input (Higham): u * sum_i |x_i| * depth_i, with the
    wide accumulator's adds at the wide unit roundoff plus its one final rounding u * |exact|. The weighted sum
    is exact, so the bound's bits depend on nothing but the inputs."""
    weighted = exact_sum(x, depths, absolute=True)
    if api.wide:
        return WIDE_ROUNDOFF[d.name] * weighted + UNIT_ROUNDOFF[d.name] * abs(exact)
    return UNIT_ROUNDOFF[d.name] * weighted


def result_bits(value, d):
    """The bit pattern of a result of type d (given as a Python float holding its exact value)."""
    return int(np.array(value, d.np_dtype).view(np.uint16 if d.size == 2 else np.uint32))


def error_measures(results, exact, np_t):
    """|result - exact| in ulps of the type at the exact sum and relative to it (inf for a non-zero error on a
    zero sum, 0 for none); results broadcast against exact."""
    with np.errstate(all="ignore"):
        ulp = ulps_of(exact, np_t)
        abs_err = np.where(results == exact, 0.0, np.abs(results - exact))  # an infinite sum met exactly: no error
        ulp_err = abs_err / ulp
        rel_err = np.where(exact != 0, abs_err / np.abs(exact), np.where(abs_err == 0, 0, np.inf))
    return abs_err, ulp_err, rel_err, ulp


class Variant:
    """One way of summing in the study: a summing API on a device (or a device-independent what-if order)."""

    def __init__(self, api, device, dtype):
        self.api, self.device = api, device
        self.label = api.label(device, dtype)
        self.kind = "device" if api.per_device else "what-if"
        self.form = api.form


def parse_apis(apis):
    """`--api`: "all" (ReduceSum and every pattern) or a comma-separated subset of APIS."""
    if apis in ("all", None):
        return APIS
    names = tuple(a.strip() for a in str(apis).split(","))
    for a in names:
        if a not in APIS:
            raise ParameterError("study", "api", a, legal="all, or a comma-separated list of " + ", ".join(APIS))
    return names


def build_variants(devices, dtype, apis=APIS):
    variants = []
    if "ReduceSum" in apis:
        variants += [Variant(get_api(name), device, dtype) for device in devices
                     for name in ("reduce-sum-count", "reduce-sum-highdim")
                     if dtype.name in get_device(device).reduce_sum_dtypes]
    for pattern in STUDY_PATTERNS:
        # the pattern's tree is the same on every device (SPEC-2 8.1, 8.2): one row, on the first device offering it
        api = get_api(PATTERN_APIS[pattern])
        offering = [n for n in devices if dtype.name in api.dtypes(get_device(n))]
        if pattern in apis and offering:
            variants.append(Variant(api, offering[0], dtype))
    return variants + [Variant(get_api(f"whatif-{order}"), NO_DEVICE, dtype)
                       for order in ("sequential", "pairwise", "wide")]


def run_study(dtype="half", n=8320, trials=200, devices="all", dist="normal", seed=0, saturate=False, progress=None,
              api="all", threads=None):
    """Run the study; returns a dict (the JSON form) with per-variant statistics and raw errors. `api`: "all"
    (ReduceSum and the two-stage patterns) or a comma-separated subset of APIS.

    The variants are spread over `threads` threads (default: one per host core, aj.launch's host_cores), each
    variant on its own emulated core: the reductions' kernels release the GIL, and every variant's results depend
    on its inputs alone, so the report is the same bit for bit whatever the thread count."""
    d = resolve(dtype, "study")
    apis = parse_apis(api)
    if d.name not in UNIT_ROUNDOFF:
        raise ParameterError("study", "dtype", d.name, legal="half, float")
    # aliases of one device ("a2,910B") name it once: repeated, its variants had repeated and their ulp_errors collapsed
    names = SUPPORTED_NAMES if devices in ("all", None) else \
        tuple(dict.fromkeys(get_device(x).name for x in devices.split(",")))
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ParameterError("study", "n", n, legal="an integer >= 2")
    n = int(n)
    for name in names:
        get_device(name).require_supported("study")
    # one refusal naming the smallest limit over the chosen devices and APIs (port60h was refused device by device,
    # and the patterns' 255-repeat first stage had failed in the middle of a run)
    bounded = [(v.api.largest(get_device(v.device), d), v) for v in build_variants(names, d, apis)
               if v.api.largest is not None]
    if bounded:
        most, first = min(bounded, key=lambda b: b[0])
        if n > most:
            raise ParameterError("study", "n", n, device=first.device,
                                 legal=f"<= {most} elements, the most every chosen device and API sums in one core's "
                                       f"UB ({first.label} holds no more)")
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1:
        raise ParameterError("study", "trials", trials, legal="an integer >= 1")
    trials = int(trials)
    if not isinstance(saturate, (bool, np.bool_)):  # a truthy "no" had run the devices saturating
        raise ParameterError("study", "saturate", saturate, legal="True or False")
    saturate = bool(saturate)
    # as the sweep's: numpy's own refusal of a negative seed named neither the study nor the seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError("study", "seed", seed, legal="an integer >= 0")
    np_t = d.np_dtype.type
    variants = build_variants(names, d, apis)
    runners = [v.api.make_runner(v.device, d, n, saturate) for v in variants]
    depths = [v.api.depths(v.device, d, n) for v in variants]
    rng = np.random.default_rng(seed)
    results = np.zeros((trials, len(variants)))
    bits = np.zeros((trials, len(variants)), np.uint64)
    exact = np.zeros(trials)
    bound = np.zeros((trials, len(variants)))
    threads = min(host_cores() if threads is None else threads, len(variants))
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
    try:
        for t0 in range(0, trials, STUDY_CHUNK):  # inputs in the seed's order, a chunk at a time
            t1 = min(t0 + STUDY_CHUNK, trials)
            xs = np.empty((t1 - t0, n), np_t)
            for t in range(t0, t1):
                xs[t - t0] = draw_inputs(rng, n, dist, np_t)
                exact[t] = exact_sum(xs[t - t0])

            def run_variant(k, t0=t0, t1=t1, xs=xs):
                for t in range(t0, t1):
                    results[t, k] = runners[k](xs[t - t0])
                    bits[t, k] = result_bits(results[t, k], d)
                    bound[t, k] = order_bound(variants[k].api, d, xs[t - t0], depths[k], exact[t])

            if pool is None:
                for k in range(len(variants)):
                    run_variant(k)
            else:
                list(pool.map(run_variant, range(len(variants))))
            if progress:
                progress(t1, trials)
    finally:
        if pool is not None:
            pool.shutdown()
    # a chosen device whose ReduceSum takes no such dtype has no row: said, not dropped (port61d: `--dtype float
    # --devices atlas-training` printed the what-ifs alone and "disagree in 0.0% of trials")
    without = [name for name in names if d.name not in get_device(name).reduce_sum_dtypes] \
        if "ReduceSum" in apis else []
    # the same for a two-stage pattern no chosen device offers for the dtype (its one row had vanished unsaid)
    patterns_without = [p for p in STUDY_PATTERNS if p in apis and
                        not any(d.name in get_api(PATTERN_APIS[p]).dtypes(get_device(x)) for x in names)]
    return _summarise(variants, results, bits, exact, bound, np_t,
                      dict(dtype=d.name, n=n, trials=trials, dist=dist, seed=seed, saturate=saturate,
                           devices=list(names), apis=list(apis), devices_without_dtype=without,
                           patterns_without_dtype=patterns_without))


def _summarise(variants, results, bits, exact, bound, np_t, params):
    summary = []
    abs_err, ulp_err, rel_err, ulp = error_measures(results, exact[:, None], np_t)
    bound_ulp = bound / ulp
    for k, v in enumerate(variants):
        e = ulp_err[:, k]
        summary.append({"variant": v.label, "kind": v.kind, "device": v.device if v.api.per_device else None,
                        "form": v.form,
                        "ulp_mean": float(np.mean(e)), "ulp_p50": percentile(e, 50),
                        "ulp_p90": percentile(e, 90), "ulp_p99": percentile(e, 99),
                        "ulp_max": float(np.max(e)), "rel_mean": float(np.mean(rel_err[:, k])),
                        "rel_p50": percentile(rel_err[:, k], 50),
                        "rel_p90": percentile(rel_err[:, k], 90),
                        "rel_p99": percentile(rel_err[:, k], 99),
                        "rel_max": float(np.max(rel_err[:, k])), "bound_ulp_mean": float(np.mean(bound_ulp[:, k])),
                        "exact_fraction": float(np.mean(abs_err[:, k] == 0))})
    dev = [k for k, v in enumerate(variants) if v.kind == "device"]
    disagree = np.zeros((len(variants), len(variants)))
    for i in range(len(variants)):
        for j in range(len(variants)):
            disagree[i, j] = float(np.mean(bits[:, i] != bits[:, j]))
    any_disagree = float(np.mean([len(set(row[dev].tolist())) > 1 for row in bits])) if dev else 0.0
    return {"params": params, "variants": summary, "disagreement": disagree.tolist(),
            "device_variants_disagree_fraction": any_disagree,
            "ulp_errors": {v.label: ulp_err[:, k].tolist() for k, v in enumerate(variants)},
            "exact": exact.tolist()}


def format_table(report):
    p = report["params"]
    head = (f"ReduceSum accumulation-order study: {p['trials']} trials of {p['n']} {p['dtype']} values "
            f"({p['dist']}), {'saturation' if p['saturate'] else 'INF/NaN'} mode; errors against math.fsum")
    cols = ("variant", "ulp mean", "p50", "p90", "p99", "max", "rel mean", "rel p99", "bound (ulp)", "exact")
    rows = [cols]
    for s in report["variants"]:
        rows.append((s["variant"], f"{s['ulp_mean']:.3f}", f"{s['ulp_p50']:.2f}", f"{s['ulp_p90']:.2f}",
                     f"{s['ulp_p99']:.2f}", f"{s['ulp_max']:.2f}", f"{s['rel_mean']:.2e}", f"{s['rel_p99']:.2e}",
                     f"{s['bound_ulp_mean']:.1f}", f"{100 * s['exact_fraction']:.0f}%"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(cols))]
    lines = [head, ""]
    for k, r in enumerate(rows):
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append("")
    without = p.get("devices_without_dtype")
    if without:
        lines.append(f"no row for {', '.join(without)}: ReduceSum there takes no {p['dtype']} (`ascend-jit devices` "
                     "lists each device's types)")
    for pattern in p.get("patterns_without_dtype", ()):
        lines.append(f"no row for {pattern}: it takes no {p['dtype']} on {', '.join(p['devices'])} (`ascend-jit "
                     "devices` lists each device's types)")
    if any(s["kind"] == "device" for s in report["variants"]):
        lines.append(f"device/API variants disagree bit for bit in "
                     f"{100 * report['device_variants_disagree_fraction']:.1f}% of trials")
    else:
        lines.append("no device/API variant ran: nothing to compare bit for bit")
    labels = [s["variant"] for s in report["variants"]]
    dis = np.array(report["disagreement"])
    dev = [i for i, s in enumerate(report["variants"]) if s["kind"] == "device"]
    pairs = sorted(((dis[i, j], labels[i], labels[j]) for i in dev for j in dev if i < j), reverse=True)
    if pairs:
        lines.append("most different pairs (fraction of trials with different bits):")
        for frac, a, b in pairs[:4]:
            lines.append(f"  {100 * frac:5.1f}%  {a}  vs  {b}")
    lines.append("bound: u * sum|x_i| * (rounded adds above x_i), in ulps of the exact sum (Higham, first order)")
    return "\n".join(lines)


def write_json(report, path):
    with open(path, "w") as f:
        json.dump(report, f, indent=1)


def plot(report, path):
    """Box plots of the ulp error per variant (matplotlib, the `plot` extra)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ParameterError("study", "--plot", path, legal="install the plot extra: pip install 'ascend_jit[plot]'") from exc
    p = report["params"]
    labels = [s["variant"] for s in report["variants"]]
    data = [report["ulp_errors"][label] for label in labels]
    fig, ax = plt.subplots(figsize=(11, 0.45 * len(labels) + 2))
    algos = sorted({label.split("(")[-1].rstrip(")") if "(" in label else label for label in labels})
    palette = plt.get_cmap("tab10")
    color_of = {a: palette(i % 10) for i, a in enumerate(algos)}
    box = ax.boxplot(data, vert=False, patch_artist=True, showmeans=True, whis=(1, 99), flierprops={"markersize": 3})
    for patch, label in zip(box["boxes"], labels):
        patch.set_facecolor(color_of[label.split("(")[-1].rstrip(")") if "(" in label else label])
        patch.set_alpha(0.6)
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_yticks(range(1, len(labels) + 1))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"|result - exact sum| in ulps of {p['dtype']} at the exact sum (symlog; whiskers p1-p99, "
                  "triangle = mean)")
    ax.set_title(f"ReduceSum accumulation order per device and API form: {p['trials']} trials of "
                 f"{p['n']} {p['dtype']} values ({p['dist']})")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def progress_bar(stream=sys.stderr, unit="trials"):
    """A minimal progress bar on a terminal (no dependency); silent when not a TTY."""
    if not stream.isatty():
        return None

    def update(done, total):
        width = 30
        filled = int(width * done / total)
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {unit}")
        if done == total:
            stream.write("\n")
        stream.flush()
    return update

