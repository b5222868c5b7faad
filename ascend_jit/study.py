"""The accumulation-order study: the same inputs through ReduceSum on every device and API form, the two-stage
patterns of the other summing reductions (ReduceRepeat -> ReduceRepeat, BlockReduceSum -> WholeReduceSum), plus
what-if orders, against the exact sum (math.fsum). Reports errors in ulps of the result type and relative terms, how
often variants disagree bit for bit, and each order's deterministic error bound (u * sum |x_i| * depth_i)."""
import json
import math
import sys

import numpy as np

from .api.reduce_sum import GetReduceSumTmpSize, ReduceSum
from .core import Core
from .devices import SUPPORTED_NAMES, get_device
from .dtypes import resolve
from .errors import ParameterError
from .jit.orders import pairwise_sum, sequential_sum, wide_sum
from .order import PATTERNS, explain_reduce_order

DISTRIBUTIONS = ("normal", "uniform", "lognormal", "cancel")
STUDY_PATTERNS = ("ReduceRepeat->ReduceRepeat", "BlockReduceSum->WholeReduceSum")
APIS = ("ReduceSum",) + STUDY_PATTERNS  # what `--api` may name (comma-separated), or "all"
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
    """Spacing of the type at |value| (the smallest subnormal at 0)."""
    v = np_t(min(abs(value), float(np.finfo(np_t).max)))
    return float(np.spacing(v))


class Variant:
    """One way of summing: a device and API form (emulated) or a what-if order."""

    def __init__(self, label, kind, device=None, form=None, what_if=None):
        self.label, self.kind, self.device, self.form, self.what_if = label, kind, device, form, what_if


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
        for name in devices:
            spec = get_device(name)
            if dtype.name not in spec.reduce_sum_dtypes:
                continue
            variants.append(Variant(f"{name} count ({spec.reduce_sum_count_algorithm})", "device", name, "count"))
            variants.append(Variant(f"{name} high-dim ({spec.reduce_sum_highdim_algorithm})", "device", name,
                                    "highdim"))
    for pattern in STUDY_PATTERNS:
        # the pattern's tree is the same on every device (SPEC-2 8.1, 8.2): one row, on the first device offering it
        offering = [n for n in devices if dtype.name in get_device(n).reduce_data_block_dtypes]
        if pattern in apis and offering:
            variants.append(Variant(f"{offering[0]} {pattern}", "device", offering[0], pattern))
    wide = "fp32" if dtype.name == "half" else "fp64"
    variants += [Variant("what-if sequential", "what-if", what_if="sequential"),
                 Variant("what-if pairwise", "what-if", what_if="pairwise"),
                 Variant(f"what-if {wide} accumulator", "what-if", what_if="wide")]
    return variants


def _depths(variant, n, dtype):
    """Per-element number of rounded adds (the error multiplier of the bound)."""
    if variant.kind == "device":
        lanes = dtype.lanes_per_repeat
        if variant.form == "count" or variant.form in PATTERNS:
            order = explain_reduce_order(variant.device, variant.form, dtype.name, count=n)
        else:
            order = explain_reduce_order(variant.device, "highdim", dtype.name, mask=lanes, repeat_time=-(-n // lanes))
        d = order.leaf_depths()
        return np.array([d.get(i, 0) for i in range(n)], np.float64)
    if variant.what_if == "sequential" or variant.what_if == "wide":
        d = np.arange(n, 0, -1, dtype=np.float64)
        d[0] = n - 1
        return d
    depths = np.zeros(n)
    groups = [[i] for i in range(n)]
    while len(groups) > 1:
        nxt = []
        for k in range(0, len(groups) - 1, 2):
            merged = groups[k] + groups[k + 1]
            depths[merged] += 1
            nxt.append(merged)
        if len(groups) % 2:
            nxt.append(groups[-1])
        groups = nxt
    return depths


class _Runner:
    """Emulated cores, one per device, with src/dst/tmp allocated once."""

    def __init__(self, variants, n, dtype, saturate):
        self.n, self.dtype, self.saturate = n, dtype, saturate
        lanes = dtype.lanes_per_repeat
        self.padded = -(-n // lanes) * lanes
        self.cores = {}
        for v in variants:
            if v.kind == "device" and v.device not in self.cores:
                core = Core(v.device)
                if saturate and core.spec.half_saturation_switchable:
                    core.SetCtrlSpr(48, 48, 0)
                tmp_n = max(GetReduceSumTmpSize(v.device, dtype, count=n),
                            GetReduceSumTmpSize(v.device, dtype, repeat_time=self.padded // lanes), 16)
                work_n = -(-8 * (self.padded // lanes) // lanes) * lanes
                self.cores[v.device] = (core, core.local_tensor(dtype, self.padded), core.local_tensor(dtype, 16),
                                        core.local_tensor(dtype, tmp_n),
                                        (core.local_tensor(dtype, work_n), core.local_tensor(dtype, work_n)))

    def run(self, variant, x):
        if variant.kind == "what-if":
            vals = x.astype(np.float32)
            fn = {"sequential": sequential_sum, "pairwise": pairwise_sum, "wide": wide_sum}[variant.what_if]
            return float(fn(vals, self.dtype.kind, self.saturate))
        core, src, dst, tmp, work = self.cores[variant.device]
        src[:self.n] = x
        src[self.n:] = 0  # +0 padding lanes behave as masked lanes (D2)
        if variant.form in PATTERNS:
            return float(run_pattern(variant.form, src, work, self.n))
        if variant.form == "count":
            ReduceSum(dst, src, tmp, self.n)
        else:
            lanes = self.dtype.lanes_per_repeat
            ReduceSum(dst, src, tmp, lanes, self.padded // lanes, 8)
        return float(dst.GetValue(0))


def run_pattern(form, src, work, n):
    """A two-stage pattern of explain_reduce_order on the emulator: `src` holds n values and +0 up to whole repeats;
    `work` is two tensors of at least 8*ceil(n/L) elements rounded up to whole repeats. Stage 1 (WholeReduceSum or
    BlockReduceSum over the repeats), then WholeReduceSum level by level (at least once) until one value is left;
    results past the last of a level are set to +0 (what a kernel's mask does). Returns the value."""
    from .api.reductions import BlockReduceSum, WholeReduceSum
    lanes = src.dtype.lanes_per_repeat
    reps = -(-n // lanes)
    cur, other = work
    if PATTERNS[form] == "repeat":
        WholeReduceSum(cur, src, lanes, reps, 1, 1, 8)
        m = reps
    else:
        BlockReduceSum(cur, src, reps, lanes, 1, 1, 8)
        m = 8 * reps
    first = True
    while m > 1 or first:
        first = False
        r = -(-m // lanes)
        cur[m:r * lanes] = 0
        WholeReduceSum(other, cur, lanes, r, 1, 1, 8)
        cur, other, m = other, cur, r
    return cur.GetValue(0)


def run_study(dtype="half", n=8320, trials=200, devices="all", dist="normal", seed=0, saturate=False, progress=None,
              api="all"):
    """Run the study; returns a dict (the JSON form) with per-variant statistics and raw errors. `api`: "all"
    (ReduceSum and the two-stage patterns) or a comma-separated subset of APIS."""
    d = resolve(dtype, "study")
    apis = parse_apis(api)
    if d.name not in UNIT_ROUNDOFF:
        raise ParameterError("study", "dtype", d.name, legal="half, float")
    names = SUPPORTED_NAMES if devices in ("all", None) else tuple(get_device(x).name for x in devices.split(","))
    if not isinstance(n, int) or n < 2:
        raise ParameterError("study", "n", n, legal=">= 2")
    for name in names:
        get_device(name).require_supported("study")
        limit = get_device(name).ub_bytes // (2 * d.size) - 4096
        if n > limit:
            raise ParameterError("study", "n", n, legal=f"<= {limit} elements so src and tmp fit the UB", device=name)
    if trials < 1:
        raise ParameterError("study", "trials", trials, legal=">= 1")
    np_t = d.np_dtype.type
    variants = build_variants(names, d, apis)
    runner = _Runner(variants, n, d, saturate)
    depths = {v.label: _depths(v, n, d) for v in variants}
    rng = np.random.default_rng(seed)
    results = np.zeros((trials, len(variants)))
    bits = np.zeros((trials, len(variants)), np.uint64)
    exact = np.zeros(trials)
    bound = np.zeros((trials, len(variants)))
    u = UNIT_ROUNDOFF[d.name]
    for t in range(trials):
        x = draw_inputs(rng, n, dist, np_t)
        exact[t] = math.fsum(x.astype(np.float64).tolist())
        ax = np.abs(x.astype(np.float64))
        for k, v in enumerate(variants):
            r = runner.run(v, x)
            results[t, k] = r
            bits[t, k] = int(np.array(r, np_t).view(np.uint16 if d.size == 2 else np.uint32))
            if v.what_if == "wide":  # adds rounded to the wide type, then one rounding to T
                bound[t, k] = WIDE_ROUNDOFF[d.name] * float(ax @ depths[v.label]) + u * abs(exact[t])
            else:
                bound[t, k] = u * float(ax @ depths[v.label])
        if progress:
            progress(t + 1, trials)
    return _summarise(variants, results, bits, exact, bound, np_t,
                      dict(dtype=d.name, n=n, trials=trials, dist=dist, seed=seed, saturate=saturate,
                           devices=list(names), apis=list(apis)))


def _summarise(variants, results, bits, exact, bound, np_t, params):
    summary = []
    with np.errstate(all="ignore"):
        ulp = np.array([ulp_of(e, np_t) for e in exact])
        abs_err = np.abs(results - exact[:, None])
        ulp_err = abs_err / ulp[:, None]
        rel_err = np.where(exact[:, None] != 0, abs_err / np.abs(exact[:, None]), np.where(abs_err == 0, 0, np.inf))
        bound_ulp = bound / ulp[:, None]
    for k, v in enumerate(variants):
        e = ulp_err[:, k]
        summary.append({"variant": v.label, "kind": v.kind, "device": v.device, "form": v.form,
                        "ulp_mean": float(np.mean(e)), "ulp_p50": float(np.percentile(e, 50)),
                        "ulp_p90": float(np.percentile(e, 90)), "ulp_p99": float(np.percentile(e, 99)),
                        "ulp_max": float(np.max(e)), "rel_mean": float(np.mean(rel_err[:, k])),
                        "rel_p50": float(np.percentile(rel_err[:, k], 50)),
                        "rel_p90": float(np.percentile(rel_err[:, k], 90)),
                        "rel_p99": float(np.percentile(rel_err[:, k], 99)),
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
    lines.append(f"device/API variants disagree bit for bit in {100 * report['device_variants_disagree_fraction']:.1f}% "
                 "of trials")
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


def progress_bar(stream=sys.stderr):
    """A minimal progress bar on a terminal (no dependency); silent when not a TTY."""
    if not stream.isatty():
        return None

    def update(done, total):
        width = 30
        filled = int(width * done / total)
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} trials")
        if done == total:
            stream.write("\n")
        stream.flush()
    return update

