"""The sanitizer's cost (issue 17: at most 20x with it on, no change with it off), in interleaved rounds. By hand:

    python benchmarks/sanitizer_cost.py [--rounds 7] [--size 16777216] [--json out/sanitizer_cost.json]
    python benchmarks/sanitizer_cost.py --off     # the sanitizer off only: compare two trees via PYTHONPATH

Cases: the count-form Add and ReduceSum on 8320 halves (A2; 10 calls per round, 40 rounds per --rounds, on a core
whose UB was written once), a scalar-unit GetValue and SetValue (100 calls per round; session 41) and the tiled GM
ReduceSum of `--size` halves end to end (ascend_jit.kernels.tiled_reduce_sum, 16 Mi by default; one call per round),
each with the sanitizer off (the default) and on (every check, report mode). The rounds are interleaved (off, on,
off, on, ...) in one process, so a slow phase of the shared machine hits both alike; reported per case: the fastest
and the median time per call, and on / off from the fastest rounds (noise on a shared machine only ever adds time, so
the fastest round is the steadiest estimate; rounds of the short cases stay well under a scheduler time slice, so a
preemption cannot hide in every one of them).
"""
import argparse
import json
import statistics
import sys
import timeit

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels import tiled_reduce_sum as tiled

N = 8320


def _core(sanitize):
    core = aj.Core("atlas-a2", sanitize="report" if sanitize else False)
    core.ub_written_by_host()   # a warmed-up kernel: every byte written once (no init reports to collect)
    return core


def _half(core, n, rng):
    t = core.local_tensor("half", n)
    t[:] = rng.standard_normal(n).astype(np.float16)
    return t


def build_cases(size):
    """[(case, mode, callable, calls per round)]"""
    rng = np.random.default_rng(0)
    cases = []
    for sanitize in (False, True):
        mode = "on" if sanitize else "off"
        core = _core(sanitize)
        d, a, b = (_half(core, N, rng) for _ in range(3))
        cases.append((f"Add, {N} halves, count form", mode, lambda d=d, a=a, b=b: aj.Add(d, a, b, N), 10))
        core = _core(sanitize)
        dst, src, tmp = _half(core, 16, rng), _half(core, N, rng), _half(core, 128, rng)
        cases.append((f"ReduceSum, {N} halves, count form (A2)", mode,
                      lambda dst=dst, src=src, tmp=tmp: aj.ReduceSum(dst, src, tmp, N), 10))
        core = _core(sanitize)
        t = core.local_tensor("float", 256)
        t[:] = np.ones(256, np.float32)
        cases.append(("GetValue then SetValue, one float each (the scalar unit)", mode,
                      lambda t=t: t.SetValue(5, t.GetValue(7)), 100))
    inputs = tiled.make_inputs(size, 1)

    def run_tiled(sanitize):
        with aj.sanitize_session("report" if sanitize else False) as session:
            tiled.run("atlas-a2", inputs)
        assert session.reports == [], aj.format_reports(session.reports)
    for sanitize in (False, True):
        cases.append((f"tiled GM ReduceSum, {size} halves, end to end", "on" if sanitize else "off",
                      lambda s=sanitize: run_tiled(s), 1))
    return cases


def off_cases():
    """Calls that pass a sanitizer hook, with no sanitizer: Add, ReduceSum, Gather, a `@simd_vf` call."""
    R = aj.Reg

    def _copy_vf(out, src, T):
        reg = R.RegTensor(T)
        R.LoadAlign(reg, src)
        R.StoreAlign(out, reg, R.CreateMask(T))
    vf = R.simd_vf(_copy_vf)
    c950 = aj.Core("ascend950")
    s9, o9 = c950.local_tensor("half", 128), c950.local_tensor("half", 128)
    s9[:] = np.ones(128, np.float16)
    core = aj.Core("atlas-a2")
    d, a, b = (core.local_tensor("half", N) for _ in range(3))
    a[:], b[:] = np.ones(N, np.float16), np.ones(N, np.float16)
    dst, tmp = core.local_tensor("half", 16), core.local_tensor("half", 128)
    gd, gs, go = core.local_tensor("half", 128), core.local_tensor("half", 128), core.local_tensor("uint32", 128)
    gs[:], go[:] = np.ones(128, np.float16), np.arange(128, dtype=np.uint32) * 2
    return {f"Add {N}": lambda: aj.Add(d, a, b, N), f"ReduceSum {N}": lambda: aj.ReduceSum(dst, a, tmp, N),
            "Gather 128": lambda: aj.Gather(gd, gs, go, 0, 128), "simd_vf call": lambda: vf(o9, s9, "half")}


def measure_off(rounds):
    """Fastest of rounds * 40 rounds of 20 calls, per case, in microseconds per call."""
    cases = off_cases()
    for fn in cases.values():
        fn()
    return {name: min(timeit.repeat(fn, number=20, repeat=rounds * 40)) / 20 * 1e6 for name, fn in cases.items()}


def measure(cases, rounds):
    times = {(c, m): [] for c, m, _, _ in cases}
    for _, _, fn, number in cases:   # warm-up: compiles and first-call caches out of the rounds
        fn()
    for r in range(rounds * 40):
        for case, mode, fn, number in cases:
            if number > 1 or r % 40 == 0:   # the end-to-end case: one call per --rounds
                times[(case, mode)].append(timeit.timeit(fn, number=number) / number)
    return times


def report(times):
    rows = []
    for case in dict.fromkeys(c for c, _ in times):
        off, on = times[(case, "off")], times[(case, "on")]
        rows.append({"case": case, "off_min_s": min(off), "off_median_s": statistics.median(off),
                     "on_min_s": min(on), "on_median_s": statistics.median(on), "ratio": min(on) / min(off)})
    return rows


def _fmt(seconds):
    return f"{seconds * 1e3:.1f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} us"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--size", type=int, default=tiled.MAX_SIZE)
    parser.add_argument("--json", default=None)
    parser.add_argument("--off", action="store_true", help="only the calls with the sanitizer off")
    args = parser.parse_args(argv)
    if args.off:
        print(" | ".join(f"{name} {us:.2f} us" for name, us in measure_off(args.rounds).items()))
        return 0
    rows = report(measure(build_cases(args.size), args.rounds))
    print("| case | off (fastest / median) | on (fastest / median) | on / off |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {_fmt(r['off_min_s'])} / {_fmt(r['off_median_s'])} | {_fmt(r['on_min_s'])} / "
              f"{_fmt(r['on_median_s'])} | {r['ratio']:.1f}x |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
