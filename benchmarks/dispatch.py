"""Per-call cost of ReduceSum and ReducePairElem against numpy, in interleaved rounds (issue 21), one call of each
instruction family with numpy's add of as many elements beside it (session 38), one element read or written by
GetValue / SetValue beside numpy's element access (session 39), and launches of an empty kernel (session 40). Run by
hand:

    python benchmarks/dispatch.py [--rounds 200] [--only GROUP-SUBSTRING] [--json out/dispatch.json]

Every case runs `number` calls per round and the rounds are interleaved (case A, B, C, A, B, C, ...), so a slow
phase of a shared machine hits every case alike and the ratios inside a group hold even when absolute times drift.
Reported: the fastest and the median per-call time over the rounds, and per group the ratio of the fastest rounds to
the group's baseline (a numpy case on the same data, or the emulated case named): on a shared machine the noise
only ever adds time, so the fastest round is the steadiest estimate; the medians are there to show the spread.
"""
import argparse
import json
import statistics
import sys
import timeit

import numpy as np

import ascend_jit as aj

COUNTS_950 = (64, 127, 128, 129, 192, 255, 256, 257, 384, 511, 512, 513, 640, 1023, 1024, 1025)


def half_data(core, n, rng):
    t = core.local_tensor("half", n)
    t[:] = (rng.standard_normal(n) * 100).astype(np.float16)
    return t


def build_cases():
    """[(group, name, callable, calls per round, baseline name or None)]"""
    rng = np.random.default_rng(0)
    cases = []
    a2 = aj.Core("atlas-a2")
    src = half_data(a2, 8320, rng)
    dst, tmp = a2.local_tensor("half", 16), a2.local_tensor("half", 128)
    x128 = rng.standard_normal(128).astype(np.float32)
    base = "np.sum float32 (128)"
    cases += [("one-repeat ReduceSum", base, lambda: np.sum(x128), 400, None),
              ("one-repeat ReduceSum", "ReduceSum count 128 (atlas-a2)", lambda: aj.ReduceSum(dst, src, tmp, 128), 400,
               base),
              ("one-repeat ReduceSum", "ReduceSum high-dim 128x1 (atlas-a2)",
               lambda: aj.ReduceSum(dst, src, tmp, 128, 1, 8), 400, base)]
    for device in ("ascend950", "atlas-training"):
        core = aj.Core(device)
        s, d, t = half_data(core, 128, rng), core.local_tensor("half", 16), core.local_tensor("half", 128)
        cases.append(("one-repeat ReduceSum", f"ReduceSum count 128 ({device})",
                      lambda s=s, d=d, t=t: aj.ReduceSum(d, s, t, 128), 400, base))

    psrc = half_data(a2, 255 * 128, rng)
    pdst = a2.local_tensor("half", 255 * 64)
    a = rng.standard_normal(255 * 128).astype(np.float32)
    pbase = "numpy a[0::2] + a[1::2] float32"
    cases += [("ReducePairElem 255 repeats", pbase, lambda: a[0::2] + a[1::2], 50, None),
              ("ReducePairElem 255 repeats", "ReducePairElem half (atlas-a2)",
               lambda: aj.ReducePairElem(pdst, psrc, 128, 255, 1, 1, 8), 50, pbase)]

    full = "full mask 128, 65 repeats"
    alt = [0x5555555555555555, 0x5555555555555555]
    cases += [("masked high-dim ReduceSum (atlas-a2)", full, lambda: aj.ReduceSum(dst, src, tmp, 128, 65, 8), 60, None),
              ("masked high-dim ReduceSum (atlas-a2)", "bit mask, every other lane, 65 repeats",
               lambda: aj.ReduceSum(dst, src, tmp, alt, 65, 8), 60, full),
              ("masked high-dim ReduceSum (atlas-a2)", "continuous mask 100, 65 repeats",
               lambda: aj.ReduceSum(dst, src, tmp, 100, 65, 8), 60, full),
              ("masked high-dim ReduceSum (atlas-a2)", "full mask, srcRepStride 16, 32 repeats",
               lambda: aj.ReduceSum(dst, src, tmp, 128, 32, 16), 60, full)]

    c950 = aj.Core("ascend950")
    s950, d950, t950 = half_data(c950, 8320, rng), c950.local_tensor("half", 16), c950.local_tensor("half", 128)
    for n in COUNTS_950:
        cases.append(("ReduceSum count (ascend950) by count", f"count {n}",
                      lambda n=n: aj.ReduceSum(d950, s950, t950, n), 200, None))
    x8320 = rng.standard_normal(8320).astype(np.float32)
    cases.append(("ReduceSum count 8320", "np.sum float32 (8320)", lambda: np.sum(x8320), 200, None))
    for device in aj.SUPPORTED_NAMES:
        core = aj.Core(device)
        s, d, t = half_data(core, 8320, rng), core.local_tensor("half", 16), core.local_tensor("half", 128)
        cases.append(("ReduceSum count 8320", f"ReduceSum {device}", lambda s=s, d=d, t=t: aj.ReduceSum(d, s, t, 8320),
                      200, "np.sum float32 (8320)"))
    return cases + family_cases(rng) + scalar_access_cases(rng) + launch_cases()


FAMILY = "one call of each family, 128 lanes (atlas-a2)"


def family_cases(rng):
    """A remembered call (the same tensors and arguments as the call before) of each family's common forms, the
    sizes a tiled kernel's per-tile calls have; the baseline numpy's float32 add of 128 elements."""
    core = aj.Core("atlas-a2")
    d, a, b, tmp = (half_data(core, 256, rng) for _ in range(4))
    f = core.local_tensor("float", 256)
    bits = core.local_tensor("uint8", 256)
    bits[:] = rng.integers(0, 256, 256).astype(np.uint8)
    offsets = core.local_tensor("uint32", 256)
    offsets[:] = (rng.integers(0, 256, 256) * 2).astype(np.uint32)
    gm = aj.GlobalTensor(np.zeros(4096, np.float16))
    pipe, que = aj.TPipe(core), aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(que, 1, 512)
    bp, up, h = aj.BinaryRepeatParams(), aj.UnaryRepeatParams(), np.float16(0.5)
    cast_params = aj.UnaryRepeatParams(1, 1, 8, 4)
    x, y, out = (rng.standard_normal(128).astype(np.float32) for _ in range(3))
    base = "np.add float32 (128)"

    def que_round():
        t = que.AllocTensor("half")
        que.EnQue(t)
        que.FreeTensor(que.DeQue("half"))
    calls = {
        "Add count": lambda: aj.Add(d, a, b, 128),
        "Add high-dim": lambda: aj.Add(d, a, b, 128, 1, bp),
        "Adds high-dim": lambda: aj.Adds(d, a, h, 128, 1, up),
        "Duplicate count": lambda: aj.Duplicate(d, h, 128),
        "Duplicate high-dim": lambda: aj.Duplicate(d, h, 128, 1, 1, 8),
        "Cast half->float count": lambda: aj.Cast(f, a, aj.RoundMode.CAST_NONE, 128),
        "Cast half->float high-dim": lambda: aj.Cast(f, a, aj.RoundMode.CAST_NONE, 64, 1, cast_params),
        "Compare count": lambda: aj.Compare(bits, a, b, aj.CMPMODE.LT, 128),
        "Compare high-dim": lambda: aj.Compare(bits, a, b, aj.CMPMODE.LT, 128, 1, bp),
        "Compares count": lambda: aj.Compares(bits, a, h, aj.CMPMODE.LT, 128),
        "Select count": lambda: aj.Select(d, bits, a, b, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, 128),
        "Select scalar count": lambda: aj.Select(d, bits, a, h, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 128),
        "Select high-dim": lambda: aj.Select(d, bits, a, b, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, 128, 1, bp),
        "Select scalar high-dim": lambda: aj.Select(d, bits, a, h, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 128, 1, bp),
        "WholeReduceSum": lambda: aj.WholeReduceSum(d, a, 128, 1, 1, 1, 8),
        "BlockReduceSum": lambda: aj.BlockReduceSum(d, a, 1, 128, 1, 1, 8),
        "ReduceSum count": lambda: aj.ReduceSum(d, a, tmp, 128),
        "ReduceMax count": lambda: aj.ReduceMax(d, a, tmp, 128),
        "Gather count": lambda: aj.Gather(d, a, offsets, 0, 128),
        "DataCopy GM -> UB": lambda: aj.DataCopy(d, gm, 128),
        "TQue round (Alloc, EnQue, DeQue, Free)": que_round,
    }
    return [(FAMILY, base, lambda: np.add(x, y, out=out), 400, None)] + \
        [(FAMILY, name, fn, 400, base) for name, fn in calls.items()]


SCALAR = "one element by the scalar unit (atlas-a2)"


def scalar_access_cases(rng):
    """GetValue / SetValue, the per-element calls of kernels that walk a row by the scalar unit (session 39): on a
    LocalTensor and a GlobalTensor, with a numpy scalar of the dtype and with a Python float or int (SPEC-2 D29's
    conversion); numpy's own element read and write beside them."""
    core = aj.Core("atlas-a2")
    t, h = core.local_tensor("float", 256), core.local_tensor("half", 256)
    g = aj.GlobalTensor(np.zeros(256, np.float32))
    a = rng.standard_normal(256).astype(np.float32)
    v = np.float32(2.5)

    def write():
        a[5] = v
    with core:
        calls = {
            "LocalTensor.GetValue": lambda: t.GetValue(5),
            "LocalTensor.SetValue (np.float32)": lambda: t.SetValue(5, v),
            "LocalTensor.SetValue (Python float)": lambda: t.SetValue(5, 2.5),
            "LocalTensor.SetValue (Python int)": lambda: t.SetValue(5, 3),
            "LocalTensor.SetValue half (Python float)": lambda: h.SetValue(5, 2.5),
            "GlobalTensor.GetValue": lambda: g.GetValue(5),
            "GlobalTensor.SetValue (Python float)": lambda: g.SetValue(5, 2.5),
        }
    return [(SCALAR, "numpy a[5]", lambda: a[5], 2000, None), (SCALAR, "numpy a[5] = v", write, 2000, None)] + \
        [(SCALAR, name, fn, 2000, "numpy a[5]" if "Get" in name else "numpy a[5] = v") for name, fn in calls.items()]


LAUNCH = "aj.launch of a kernel that returns at once (atlas-a2)"


def _returns_at_once(x):
    return None


def launch_cases():
    """What a launch costs before its kernel's first instruction (session 40): the blocks' cores, their threads, the
    end-of-kernel checks; 1, 8 and 48 blocks, in block threads and one after another. Baseline: one block."""
    x = np.zeros(16, np.float32)
    base = "1 block"
    cases = [(LAUNCH, base, lambda: aj.launch(_returns_at_once, 1, "atlas-a2", x), 20, None)]
    for blocks in (8, 48):
        for parallel in (True, False):
            cases.append((LAUNCH, f"{blocks} blocks, {'block threads' if parallel else 'one after another'}",
                          lambda b=blocks, p=parallel: aj.launch(_returns_at_once, b, "atlas-a2", x, parallel=p),
                          20, base))
    return cases


def run(rounds, only=None):
    cases = [c for c in build_cases() if only is None or only in c[0]]
    for _, _, fn, _, _ in cases:
        fn()  # compile / load, fill the validation caches
    samples = {name: [] for _, name, _, _, _ in cases}
    for _ in range(rounds):
        for _, name, fn, number, _ in cases:
            samples[name].append(timeit.timeit(fn, number=number) / number)
    med = {name: statistics.median(v) for name, v in samples.items()}
    best = {name: min(v) for name, v in samples.items()}
    rows = []
    for group, name, _, _, baseline in cases:
        rows.append({"group": group, "case": name, "min_us": best[name] * 1e6, "median_us": med[name] * 1e6,
                     "ratio": best[name] / best[baseline] if baseline else None, "baseline": baseline})
    counts = [r for r in rows if r["group"].startswith("ReduceSum count (ascend950)")]
    for i, r in enumerate(counts):  # the larger of the ratios to the previous and the next count in the list
        near = [counts[j]["min_us"] for j in (i - 1, i + 1) if 0 <= j < len(counts)]
        r["ratio"] = max(r["min_us"] / v for v in near)
        r["baseline"] = "its neighbours in the list (worst ratio)"
    return rows


def table(rows, rounds):
    out = [f"Interleaved rounds: {rounds}; per call: fastest round, median round.\n",
           "| group | case | fastest | median | ratio (fastest) | to |", "|---|---|---|---|---|---|"]
    for r in rows:
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] is not None else "(baseline)"
        out.append(f"| {r['group']} | {r['case']} | {r['min_us']:.2f} us | {r['median_us']:.2f} us | {ratio} | "
                   f"{r['baseline'] or ''} |")
    return "\n".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=200)
    p.add_argument("--only", help="run the groups whose name contains this text")
    p.add_argument("--json")
    args = p.parse_args(argv)
    rows = run(args.rounds, args.only)
    print(table(rows, args.rounds))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
