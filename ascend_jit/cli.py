"""The `ascend-jit` command line: devices, run, study, sweep, explain, golden, warmup."""
import argparse
import os
import sys
import time
from pathlib import Path

from .errors import AscendJitError, ParameterError

EPILOG = """examples:
  ascend-jit devices
  ascend-jit run tiled_reduce_sum --device atlas-a2 --size 16777216
  ascend-jit run softmax --compare-devices --plot softmax-devices.png
  ascend-jit study --plot study.png --json study.json
  ascend-jit sweep --sizes 128,8320,1Mi,16Mi --dists normal,cancel --trials 1000 --workers 2
  ascend-jit explain --device 910B --form count --dtype half --n 300
  ascend-jit golden record goldens/ && ascend-jit golden check goldens/
  ascend-jit warmup --devices atlas-a2,ascend950 --families reduce_sum,elementwise
  ascend-jit warmup --jobs 2"""


def _devices(args):
    if args.fidelity:
        from .fidelity import format_table as fidelity_table
        print(fidelity_table())
        return 0
    from .devices import format_table
    print(format_table())
    return 0


def _load_kernel_file(path):
    """The KernelSpecs of a user's kernel file, its own folder first on the import path, as `python my_kernel.py`
    puts it: a port that imports its sibling module (its VF or tiling in another file) had ended in
    ModuleNotFoundError (port61c)."""
    from .kernels import load_file
    folder = str(Path(path).resolve().parent)
    if sys.path[:1] != [folder]:
        if folder in sys.path:
            sys.path.remove(folder)
        sys.path.insert(0, folder)
    return load_file(path)


def _no_gallery():
    """Outside a checkout only the built-in kernels exist: the README's `ascend-jit run add_custom` (audit45) and
    `golden record ... --kernels add_custom` (port64i) then listed them with no word of the gallery."""
    from .kernels import gallery_dir
    if gallery_dir() is not None:
        return None
    return ("is no built-in kernel, and no gallery was found: the gallery's kernels (a checkout's kernels/ folder) "
            "are found from the current directory, so run ascend-jit inside the checkout")


def _run(args):
    from .kernels import registry
    note = None
    if args.seed < 0:  # study and sweep refuse it by name; run said numpy's "expected non-negative integer" (audit45)
        raise ParameterError("run", "--seed", args.seed, legal="an integer >= 0")
    if args.name and args.name.endswith(".py"):   # `ascend-jit run path/to/my_kernel.py`: any file defining a KERNEL
        specs = _load_kernel_file(args.name)
        kernels, name = {k.name: k for k in specs}, args.kernel or specs[0].name
        if len(specs) > 1 and args.kernel is None:  # said, not silent: the file's other kernels had gone unnoticed
            note = (f"{args.name} defines {len(specs)} kernels; running the first, {name} (the others: "
                    f"{', '.join(k.name for k in specs[1:])}; pick one with --kernel NAME)")
    elif args.kernel is not None:
        raise ParameterError("run", "--kernel", args.kernel, legal="with a .py file NAME",
                             detail="picks one of a file's kernels; a registered kernel is run by its name")
    else:
        kernels, name = registry(), args.name
    if args.list or not name:
        for kname, k in kernels.items():
            print(f"{kname:26s} {k.fidelity:9s} {k.description}")
        return 0
    if name not in kernels:
        raise ParameterError("run", "--kernel" if args.kernel else "NAME", name, legal=", ".join(kernels),
                             detail=None if args.name.endswith(".py") else _no_gallery())
    if note:
        print(note)
    k = kernels[name]
    device, size = k.check_call(k.devices[0] if args.device is None else args.device, args.size)  # default: first
    if args.plot and not args.compare_devices:
        raise ParameterError("run", "--plot", args.plot, legal="with --compare-devices",
                             detail="the plot shows how the outputs differ across devices")
    for option, value in (("--sanitize-json", args.sanitize_json), ("--sanitize-checks", args.sanitize_checks)):
        if value is not None and not args.sanitize:  # refused like --plot: silently ignored, no file appeared
            raise ParameterError("run", option, value, legal="with --sanitize",
                                 detail="configures the sanitized run, which only --sanitize starts")
    if args.plot:
        _require_matplotlib("run", args.plot)
    _require_folders("run", (("--plot", args.plot), ("--sanitize-json", args.sanitize_json)))
    status = 0
    if args.sanitize:
        status = _sanitized_run(k, device, size, args)
    ok, lines, _, rate = k.execute(device, size, args.seed)
    print(f"{k.name} on {device} ({size} elements, seed {args.seed}): {'PASS' if ok else 'FAIL'} ({k.fidelity})")
    for line in lines:
        print("  " + line.replace("\n", "\n  "))
    print(f"  emulation speed: {rate.wall:.3g} elements/s by the wall clock, {rate.cpu:.3g} by CPU time")
    if args.compare_devices:
        diffs = _compare_devices(k, size, args.seed)
        if args.plot:
            _plot_device_differences(k, size, diffs, args.plot)
            print(f"plot written to {args.plot}")
    return 1 if not ok or status else 0


def _require_folders(verb, options):
    """Output files' folders checked before any work: a missing one failed after the whole run."""
    for option, path in options:
        if path and not Path(path).resolve().parent.is_dir():
            raise ParameterError(verb, option, path, legal="a file in an existing folder",
                                 detail="its folder does not exist")
        if path and Path(path).is_dir():  # else "[Errno 21] Is a directory" after the whole study or run (audit45)
            raise ParameterError(verb, option, path, legal="a file in an existing folder",
                                 detail="is a folder, not a file")


def _require_matplotlib(verb, path):
    try:  # checked before any work, not after
        import matplotlib  # noqa: F401
    except ImportError:
        raise ParameterError(verb, "--plot", path, legal="matplotlib installed (pip install 'ascend_jit[plot]')",
                             detail="needs matplotlib, which is not installed") from None


def _sanitized_run(k, device, size, args):
    """One run of the kernel with every check of the sanitizer collecting reports (issue 17)."""
    import dataclasses
    import json

    from .errors import ParameterError
    from .sanitizer import format_reports, resolve_config, sanitize_session
    # the user's words, refused under their own name (they were read as part of "report,<words>", whose refusal
    # named sanitize_session's value); the run always collects reports, whatever mode the words name
    given = resolve_config(args.sanitize_checks or True, f"run {k.name}", "--sanitize-checks")
    if given is None:
        raise ParameterError(f"run {k.name}", "--sanitize-checks", args.sanitize_checks,
                             legal="check names (race, init, memory, blocks, sync, dcache), optionally 'strict' "
                                   "and 'device-sync'", detail="turns the sanitizer off: drop --sanitize instead")
    # every option the words name (strict, device-sync) is kept; device-sync had been dropped, so the run ordered by
    # SPEC-2 10.4's model and reported nothing where the device's synchronisation races
    with sanitize_session(dataclasses.replace(given, mode="report")) as session:
        k.run(device, k.make_inputs(size, args.seed))
    print(format_reports(session.reports))
    if args.sanitize_json:
        Path(args.sanitize_json).write_text(json.dumps([r.to_dict() for r in session.reports], indent=1))
        print(f"sanitizer reports written to {args.sanitize_json}")
    return 1 if session.reports else 0


def _compare_devices(k, size, seed):
    """The same inputs through the kernel on every device it supports: how each output differs from the first
    device's (max ulp, fraction of elements whose bits differ), the accumulation-order effect on a real operator.
    Returns {device: {output: per-element ulp differences (None for a non-float output)}}."""
    import numpy as np

    from .testing import bit_mismatches, ulp_diff
    inputs = k.make_inputs(size, seed)
    outputs = {d: k.run(d, inputs) for d in k.devices}
    base = k.devices[0]
    diffs = {}
    print(f"  outputs against {base}:")
    for d in k.devices[1:]:
        parts = []
        diffs[d] = {}
        for key, ref in outputs[base].items():
            got = np.asarray(outputs[d][key])
            bad = bit_mismatches(got, ref).size
            try:
                ulps = np.asarray(ulp_diff(got, np.asarray(ref))).reshape(-1)
                diffs[d][key] = ulps
                parts.append(f"{key}: {bad / max(got.size, 1):.2%} differ, max {int(ulps.max()) if bad else 0} ulp")
            except TypeError:
                diffs[d][key] = None
                parts.append(f"{key}: {bad / max(got.size, 1):.2%} differ")
        print(f"    {d:26s} " + "; ".join(parts))
    return diffs


def _plot_device_differences(k, size, diffs, path):
    """One panel per output: for each device, the fraction of elements that differ from the reference device by
    more than x ulp (a complementary CDF; linear x up to 32 ulp, symmetric-log beyond; a device equal to the
    reference is a flat zero line, and a panel where every device is equal says so)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    import numpy as np

    keys = [key for key in next(iter(diffs.values()), {}) if any(diffs[d][key] is not None for d in diffs)]
    fig, axes = plt.subplots(1, max(1, len(keys)), figsize=(5.5 * max(1, len(keys)), 3.8), squeeze=False)
    for ax, key in zip(axes[0], keys):
        top = 1
        for device, per_key in diffs.items():
            ulps = per_key[key]
            if ulps is None:
                continue
            values = np.sort(ulps.astype(np.float64))
            top = max(top, values[-1] if values.size else 1)
            xs = np.unique(np.concatenate([[0.0], values]))
            frac = 1.0 - np.searchsorted(values, xs, side="right") / max(values.size, 1)
            ax.step(np.append(xs, xs[-1] + 1), np.append(frac, 0.0), where="post",
                    label=f"{device} (max {int(values[-1]) if values.size else 0} ulp, "
                          f"{np.count_nonzero(values) / max(values.size, 1):.2%} differ)")
        if all(per_key[key] is None or not per_key[key].any() for per_key in diffs.values()):
            ax.text(0.5, 0.5, f"bit-identical to {k.devices[0]}\non every device", ha="center", va="center",
                    transform=ax.transAxes)
        if top > 32:
            ax.set_xscale("symlog", linthresh=1)
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True) if top <= 32 else
                                   matplotlib.ticker.SymmetricalLogLocator(base=10, linthresh=1))
        ax.set_xlim(0, top + 1)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("ulp difference from the reference device")
        ax.set_ylabel("fraction of elements beyond")
        ax.set_title(f"{k.name}: {key}")
        ax.legend(fontsize=7, loc="upper right")
    fig.suptitle(f"{k.name}, {size} elements: outputs against {k.devices[0]}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _study(args):
    from . import study
    if args.plot:
        _require_matplotlib("study", args.plot)
    _require_folders("study", (("--json", args.json), ("--plot", args.plot)))
    report = study.run_study(dtype=args.dtype, n=args.n, trials=args.trials, devices=args.devices, dist=args.dist,
                             seed=args.seed, saturate=args.saturate, progress=study.progress_bar(), api=args.api)
    print(study.format_table(report))
    if args.json:
        study.write_json(report, args.json)
        print(f"JSON written to {args.json}")
    if args.plot:
        study.plot(report, args.plot)
        print(f"plot written to {args.plot}")
    return 0


def _workers(text):
    """--workers: a count, or "auto" (sweeps.default_workers)."""
    return text if text.strip().lower() == "auto" else int(text)


_workers.__name__ = "workers"  # argparse names a rejected value by its type's name: "invalid workers value: 'x'"


def _sweep(args):
    from . import study, sweeps
    result = sweeps.sweep(sizes=args.sizes, dists=args.dists, dtypes=args.dtypes, devices=args.devices,
                         apis=args.apis, trials=args.trials, seed=args.seed, out=args.out, workers=args.workers,
                         scheduler=args.scheduler, table_format=args.format, plots=not args.no_plots,
                         cdf_size=args.cdf_size, task_elements=args.task_elements, task_trials=args.task_trials,
                         progress=study.progress_bar(unit="tasks"))
    print(f"{len(result.tasks)} tasks ({result.tasks_run} run, {result.tasks_reused} reused from {result.out}); "
          f"{len(result.skipped)} variant points skipped (unsupported size or dtype)" +
          (":" if result.skipped else ""))
    for line in sweeps.format_skipped(result):
        print(line)
    print(sweeps.format_summary(result))
    for name, path in result.files.items():
        print(f"{name}: {path}")
    for note in result.notes:
        print(note)
    return 0


def _explain(args):
    from .devices import get_device
    from .errors import UnsupportedDTypeError
    from .order import GROUP_FORMS, PATTERNS, explain_reduce_order
    spec = get_device(args.device)
    if args.form in ("count", "highdim"):
        spec.require_supported("ReduceSum")
        if args.dtype not in spec.reduce_sum_dtypes:  # explain what ReduceSum runs, refuse what it refuses
            raise UnsupportedDTypeError("ReduceSum", "dtype", args.dtype, legal=", ".join(spec.reduce_sum_dtypes),
                                        device=spec.name)
    from .dtypes import resolve
    most = spec.ub_bytes // resolve(args.dtype).size
    if args.n > most:   # a tree of 1e8 leaves took minutes and gigabytes to print (audit 45r); no call reduces more
        raise ParameterError("explain", "--n", args.n, device=spec.name,
                             legal=f"at most {most}: the {args.dtype} elements this device's UB holds")
    if args.form == "count" or args.form in PATTERNS:
        kw = {"count": args.n}
    else:
        lanes = resolve(args.dtype).lanes_per_repeat
        if args.mask < 1:  # n / mask repeats: mask 0 was a ZeroDivisionError traceback, a negative one a bad repeat
            raise ParameterError("explain", "--mask", args.mask,
                                 legal=f">= 1 (a mask above {lanes} counts as {lanes}, D15)")
        if args.n < 0:
            raise ParameterError("explain", "--n", args.n, legal=">= 0")
        # a mask past the lanes is clamped to them (D15), so a repeat covers min(mask, lanes) elements: with mask//lanes
        # the float default (128 on 64 lanes) explained 192 of 300 elements
        kw = {"mask": args.mask, "repeat_time": -(-args.n // min(args.mask, lanes))}
    result = explain_reduce_order(args.device, args.form, args.dtype, **kw)
    trees = result if args.form in GROUP_FORMS else [result]  # ReduceRepeat / ReduceDataBlock: one tree per result
    for k, order in enumerate(trees):
        if len(trees) > 1:
            print(f"--- dst[{k}]")
        if order is None:
            print("(not written: every lane of the DataBlock is masked, D51)")
            continue
        print({"text": order.to_text, "json": order.to_json, "dot": order.to_dot}[args.format]())
    return 0


def _warmup(args):
    from numba.core import config

    from .warmup import FAMILIES, progress_bar, run_warmup
    # `is not None`: an empty value (--devices "") had warmed every device, where study and sweep refuse it (audit45)
    devices = args.devices.split(",") if args.devices is not None else None
    families = args.families.split(",") if args.families is not None else None
    cpu = {}
    start = time.perf_counter()
    seconds = run_warmup(devices, families, progress_bar(sys.stderr), cpu, jobs=args.jobs)
    width = max(len(f) for f in FAMILIES)
    print(f"{'family':{width}s} {'wall':>8s}   {'CPU':>8s}")
    for family, s in seconds.items():
        print(f"{family:{width}s} {s:8.1f} s {cpu[family]:8.1f} s")
    print(f"{'total':{width}s} {sum(seconds.values()):8.1f} s {sum(cpu.values()):8.1f} s")
    if args.jobs > 1:   # the families overlapped: their wall seconds add up to more than the run took
        print(f"elapsed: {time.perf_counter() - start:.1f} s with {args.jobs} worker processes")
    where = config.CACHE_DIR or os.environ.get("NUMBA_CACHE_DIR") or "beside the package sources (__pycache__)"
    print(f"numba cache: {where}")
    return 0


def _golden(args):
    import numpy as np

    from .devices import SUPPORTED_NAMES, get_device
    from .kernels import registry
    from .testing import GoldenFileError, check_golden, record_golden
    record_first = f"a folder of golden files (record them first: ascend-jit golden record {args.dir})"
    if args.action == "check" and args.force:   # it had been taken and ignored (review 62)
        raise ParameterError("golden check", "--force", True, legal="with golden record",
                             detail="records a kernel that fails its own check; check records nothing")
    if args.action == "check" and not Path(args.dir).is_dir():
        raise ParameterError("golden check", "dir", args.dir, detail="does not exist", legal=record_first)
    if args.action == "check" and not any(Path(args.dir).glob("*.npz")):  # else one "no golden" per output
        raise ParameterError("golden check", "dir", args.dir, detail="holds no golden files", legal=record_first)
    kernels = registry()
    # `is not None`: an empty --kernels / --devices had meant every kernel / device, the longest run there is (audit45)
    names = args.kernels.split(",") if args.kernels is not None else list(kernels)
    given = {}   # kernel name -> the --kernels entry that named it (a .py file: every kernel it defines)
    for entry in names:
        if entry.endswith(".py"):   # a user's own kernel file, as `run` takes it (port61g pinned one only in pytest)
            for spec in _load_kernel_file(entry):
                if spec.name in kernels and kernels[spec.name] is not spec:   # its goldens would be the other's
                    raise ParameterError("golden", "--kernels", entry, legal="kernels named apart from the "
                                         "registered ones", detail=f"defines {spec.name!r}, a registered kernel's name")
                kernels[spec.name] = spec
                given[spec.name] = entry
        else:
            given[entry] = entry
    names = list(given)
    for name in names:  # all refused before any kernel runs or any file is written
        if name not in kernels:
            raise ParameterError("golden", "--kernels", name, legal=", ".join(kernels) + ", or a kernel file "
                                 "(path/to/my_kernel.py, defining KERNEL)",
                                 detail=None if name.endswith(".py") else _no_gallery())
    devices = ([get_device(d).name for d in args.devices.split(",")] if args.devices is not None
               else list(SUPPORTED_NAMES))
    pairs = [(name, device) for name in names for device in devices if kernels[name].supports(device)]
    if not pairs:  # else "recorded goldens" (or "0 passed, 0 failed"), exit 0, with nothing pinned
        raise ParameterError(f"golden {args.action}", "--devices", ",".join(devices),
                             detail=f"none of them runs {', '.join(names)}",
                             legal="; ".join(f"{n}: {', '.join(d for d in SUPPORTED_NAMES if kernels[n].supports(d))}"
                                             for n in names))
    failures = checked = 0

    def run(name, device):
        k = kernels[name]
        inputs = k.make_inputs(k.default_size, 0)
        return name, device, inputs, k.run(device, inputs)
    runs = (run(name, device) for name, device in pairs)
    if args.action == "record":
        # a golden pins what the kernel computes: one that fails its own check (`ascend-jit run`'s FAIL) would pin a
        # wrong result (port62d recorded a kernel adding 2.0 for 1.0), so every pair is checked before any file
        runs = list(runs)
        for name, device, inputs, outputs in runs:
            ok, lines = kernels[name].check_outputs(device, inputs, outputs)
            if not ok:
                failures += 1
                print(f"{'WARNING' if args.force else 'FAIL'} {name} on {device} fails its own check:\n  " +
                      "\n  ".join(line.replace("\n", "\n  ") for line in lines))
        if failures and not args.force:
            print(f"recorded nothing: {failures} kernel run{'s' if failures > 1 else ''} failed the kernel's own "
                  "check (fix the kernel, or pin what it computes anyway with --force)")
            return 1
    for name, device, _, outputs in runs:
        for key, value in sorted(outputs.items()):
            golden_name = f"{name}.{device}.{key}"
            if args.action == "record":
                record_golden(golden_name, np.asarray(value), args.dir, device=device, metadata={"kernel": name})
            else:
                checked += 1
                if not (Path(args.dir) / f"{golden_name}.npz").exists():
                    # check_golden's hint names pytest's --update-goldens, no option of this command (audit45)
                    failures += 1
                    print(f"FAIL {golden_name}\nno golden {Path(args.dir) / (golden_name + '.npz')} (record it with "
                          f"ascend-jit golden record {args.dir} --kernels {given[name]} --devices {device})")
                    continue
                try:
                    check_golden(golden_name, np.asarray(value), args.dir)
                except (AssertionError, GoldenFileError) as err:  # a damaged golden fails, and the rest run
                    failures += 1
                    print(f"FAIL {golden_name}\n{err}")
    if args.action == "record":
        print(f"recorded goldens in {Path(args.dir)}")
        return 0
    print(f"{checked - failures} passed, {failures} failed")
    return 1 if failures else 0


class _Parser(argparse.ArgumentParser):
    """Usage mistakes end with one line (and a pointer to --help), not the whole usage block."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser():
    p = _Parser(prog="ascend-jit", description="Bit-exact CPU emulator of Ascend C vector instructions (the "
                                "element-wise family, Cast, Compare/Select, data movement, the reductions, the "
                                "synchronisation model and the Ascend 950 Reg API; `devices --fidelity` says which "
                                "are BIT-EXACT and which MODELLED).",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="verb", required=True, metavar="VERB", parser_class=_Parser)
    d = sub.add_parser("devices", help="the device table: UB size, overflow mode, ReduceSum algorithms, dtypes")
    d.add_argument("--fidelity", action="store_true",
                   help="print the fidelity table (SPEC-2 0.3): BIT-EXACT or MODELLED per instruction and device")
    d.set_defaults(fn=_devices)
    r = sub.add_parser("run", help="run an example kernel, check it bit for bit, report the emulation speed")
    r.add_argument("name", help="kernel name (see `ascend-jit run --list`) or a .py file defining a KERNEL",
                   nargs="?")
    r.add_argument("--list", action="store_true", help="list the kernels (of the file, with a .py NAME)")
    r.add_argument("--kernel", metavar="KERNEL", help="with a .py file NAME: which of its kernels to run (default: "
                   "the first it defines)")
    r.add_argument("--device", default=None, help="device name or alias (default: the kernel's first supported "
                   "device)")
    r.add_argument("--size", type=int, default=None, help="elements (default: the kernel's own)")
    r.add_argument("--seed", type=int, default=0, help="input seed (0 = the seed example's data where it has some)")
    r.add_argument("--sanitize", action="store_true", help="also run once under the sanitizer and print its reports "
                   "(races, uninitialised reads, out-of-tensor and cross-block GM accesses, sync); exit 1 on any")
    r.add_argument("--sanitize-checks", metavar="CHECKS", help="comma-separated checks for --sanitize (race, init, "
                   "memory, blocks, sync; default all; dcache: the scalar unit's data cache), optionally with strict "
                   "(also same-pipe vector pairs, and a Reg VF's store -> load without LocalMemBar) and device-sync "
                   "(the device's own synchronisation, and dcache with the default checks)")
    r.add_argument("--sanitize-json", metavar="FILE", help="write the sanitizer reports as JSON (with --sanitize)")
    r.add_argument("--compare-devices", action="store_true", help="run the same inputs on every device the kernel "
                   "supports and report how the outputs differ (max ulp, fraction of elements)")
    r.add_argument("--plot", metavar="FILE.png", help="with --compare-devices: write a plot of the per-device ulp "
                   "differences from the first device (needs matplotlib)")
    r.set_defaults(fn=_run)
    s = sub.add_parser("study", help="accumulation-order study of ReduceSum (and the two-stage reduction patterns) "
                       "across devices and API forms")
    s.add_argument("--dtype", default="half", choices=("half", "float"), help="element type (default half)")
    s.add_argument("--n", type=int, default=8320, help="elements per trial (default 8320)")
    s.add_argument("--trials", type=int, default=200, help="random inputs (default 200)")
    s.add_argument("--devices", default="all", help="comma-separated device names, or all")
    s.add_argument("--dist", default="normal", choices=("normal", "uniform", "lognormal", "cancel"),
                   help="input distribution (cancel: large values that cancel; default normal)")
    s.add_argument("--seed", type=int, default=0, help="random seed of the inputs (default 0)")
    s.add_argument("--saturate", action="store_true", help="saturation mode where the device can switch to it")
    s.add_argument("--api", default="all", help="all (default), or a comma-separated list of ReduceSum, "
                   "ReduceRepeat->ReduceRepeat, BlockReduceSum->WholeReduceSum")
    s.add_argument("--plot", metavar="FILE.png", help="write box plots of the ulp errors (needs matplotlib)")
    s.add_argument("--json", metavar="FILE", help="write the full report as JSON")
    s.set_defaults(fn=_study)
    w = sub.add_parser("sweep", help="accumulation-order sweep over sizes, distributions, dtypes, devices and "
                       "summing APIs; in-process or on Dask (--workers/--scheduler), resumable")
    from .study import DISTRIBUTIONS
    from .summing import SUMMING_APIS
    from .sweeps import TASK_ELEMENTS, TASK_TRIALS
    w.add_argument("--sizes", default="128,8320", help="comma-separated element counts, Ki/Mi suffixes allowed "
                   "(e.g. 128,8320,65536,1Mi,16Mi; default 128,8320)")
    w.add_argument("--dists", default="normal", help=f"comma-separated: {', '.join(DISTRIBUTIONS)}, or all")
    w.add_argument("--dtypes", default="half", help="comma-separated: half, float, or all (default half)")
    w.add_argument("--devices", default="all", help="comma-separated device names, or all")
    w.add_argument("--apis", default="all", help=f"comma-separated: {', '.join(SUMMING_APIS)}, or all")
    w.add_argument("--trials", type=int, default=100, help="random inputs per grid point (default 100)")
    w.add_argument("--seed", type=int, default=0, help="base seed of every trial's input (default 0)")
    w.add_argument("--out", default="sweep-out", help="output folder; a rerun skips its finished tasks "
                   "(default sweep-out/)")
    w.add_argument("--workers", type=_workers, help="start a local Dask cluster of N worker processes, or "
                   "'auto': one per core of this machine (pip install 'ascend_jit[distributed]')")
    w.add_argument("--scheduler", metavar="ADDRESS", help="submit to a running Dask scheduler, e.g. tcp://host:8786")
    w.add_argument("--format", choices=("auto", "csv", "parquet"), default="auto",
                   help="table format (auto: Parquet when pyarrow is installed, else CSV)")
    w.add_argument("--cdf-size", help="the size of the error-CDF plot (default: the largest size)")
    w.add_argument("--no-plots", action="store_true", help="skip the plots (they need matplotlib)")
    w.add_argument("--task-elements", default=TASK_ELEMENTS, help="summed elements per task at most, Ki/Mi "
                   f"suffixes allowed (default {TASK_ELEMENTS // (1 << 20)}Mi)")
    w.add_argument("--task-trials", type=int, default=TASK_TRIALS,
                   help=f"trials per task at most (default {TASK_TRIALS})")
    w.set_defaults(fn=_sweep)
    e = sub.add_parser("explain", help="print the reduction tree a summing reduction uses on a device")
    e.add_argument("--device", required=True, help="device name or alias")
    e.add_argument("--form", choices=("count", "highdim", "ReduceRepeat", "WholeReduceSum", "RepeatReduceSum",
                                      "ReduceDataBlock", "BlockReduceSum", "ReduceRepeat->ReduceRepeat",
                                      "BlockReduceSum->WholeReduceSum"), default="count",
                   help="ReduceSum's count or highdim form (default count), another summing reduction, or a "
                        "two-stage pattern")
    e.add_argument("--dtype", choices=("half", "float"), default="half",
                   help="element type (default half); refused where the reduction refuses it")
    e.add_argument("--n", type=int, required=True, help="elements (count form) or elements covered by full repeats")
    e.add_argument("--mask", type=int, default=128, help="continuous mask for --form highdim and the group forms "
                   "(default 128; above the dtype's lanes, 128 half / 64 float, it is clamped to them, SPEC D15)")
    e.add_argument("--format", choices=("text", "json", "dot"), default="text",
                   help="output: an indented tree, JSON or Graphviz dot (default text)")
    e.set_defaults(fn=_explain)
    g = sub.add_parser("golden", help="record or check the example kernels' outputs as golden files")
    g.add_argument("action", choices=("record", "check"), help="record the outputs, or check them against the files")
    g.add_argument("dir", help="folder of the golden files")
    g.add_argument("--kernels", help="comma-separated kernel names or kernel files (my_kernel.py: every KERNEL it "
                   "defines; default: every registered kernel)")
    g.add_argument("--devices", help="comma-separated devices (default: all supported)")
    g.add_argument("--force", action="store_true", help="record even the outputs of a kernel that fails its own "
                   "check (expected(): what `ascend-jit run` reports as FAIL); without it nothing is recorded then")
    g.set_defaults(fn=_golden)
    w = sub.add_parser("warmup", help="compile every instruction family into the numba cache, seconds per family")
    w.add_argument("--devices", help="comma-separated devices (default: all supported)")
    w.add_argument("--families", help="comma-separated families (default: all; see ascend_jit.warmup.FAMILIES)")
    w.add_argument("--jobs", type=int, default=1,
                   help="worker processes warming whole families at once (default 1; e.g. the number of cores)")
    w.set_defaults(fn=_warmup)
    return p


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args.fn(args)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler, not at interpreter exit
        return status
    except BrokenPipeError:
        # the reader closed stdout (`ascend-jit run ... | head -1`): stop quietly, as a SIGPIPE'd tool does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + 13
    except AscendJitError as err:
        print(f"ascend-jit: error: {err}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as err:
        print(f"ascend-jit: error: {err}", file=sys.stderr)
        return 2
    except MemoryError as err:  # a --size the host cannot hold (kernels whose size rule has no upper bound)
        print(f"ascend-jit: error: out of host memory ({err}); try a smaller --size", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ascend-jit: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
