"""The `ascend-jit` command line: devices, run, study, explain, golden, warmup."""
import argparse
import sys
from pathlib import Path

from .errors import AscendJitError

EPILOG = """examples:
  ascend-jit devices
  ascend-jit run tiled_reduce_sum --device atlas-a2 --size 16777216
  ascend-jit study --plot study.png --json study.json
  ascend-jit explain --device 910B --form count --dtype half --n 300
  ascend-jit golden record goldens/ && ascend-jit golden check goldens/
  ascend-jit warmup --devices atlas-a2,ascend950 --families reduce_sum,add"""


def _devices(args):
    from .devices import format_table
    print(format_table())
    return 0


def _run(args):
    from .kernels import registry
    kernels = registry()
    if args.name not in kernels:
        raise AscendJitError("run", "NAME", args.name, legal=", ".join(kernels))
    k = kernels[args.name]
    ok, lines, _, rate = k.execute(args.device, args.size, args.seed)
    size = k.default_size if args.size is None else args.size
    from .devices import get_device
    print(f"{k.name} on {get_device(args.device).name} ({size} elements, seed {args.seed}): {'PASS' if ok else 'FAIL'}")
    for line in lines:
        print("  " + line.replace("\n", "\n  "))
    print(f"  emulation speed: {rate:.3g} elements/s")
    return 0 if ok else 1


def _study(args):
    from . import study
    report = study.run_study(dtype=args.dtype, n=args.n, trials=args.trials, devices=args.devices, dist=args.dist,
                             seed=args.seed, saturate=args.saturate, progress=study.progress_bar())
    print(study.format_table(report))
    if args.json:
        study.write_json(report, args.json)
        print(f"JSON written to {args.json}")
    if args.plot:
        study.plot(report, args.plot)
        print(f"plot written to {args.plot}")
    return 0


def _explain(args):
    from .order import explain_reduce_order
    kw = {"count": args.n} if args.form == "count" else {"mask": args.mask, "repeat_time": -(-args.n // args.mask)}
    order = explain_reduce_order(args.device, args.form, args.dtype, **kw)
    print({"text": order.to_text, "json": order.to_json, "dot": order.to_dot}[args.format]())
    return 0


def _warmup(args):
    import os

    from numba.core import config

    from .warmup import FAMILIES, progress_bar, run_warmup
    devices = args.devices.split(",") if args.devices else None
    families = args.families.split(",") if args.families else None
    seconds = run_warmup(devices, families, progress_bar(sys.stderr))
    width = max(len(f) for f in FAMILIES)
    for family, s in seconds.items():
        print(f"{family:{width}s} {s:8.1f} s")
    print(f"{'total':{width}s} {sum(seconds.values()):8.1f} s")
    where = config.CACHE_DIR or os.environ.get("NUMBA_CACHE_DIR") or "beside the package sources (__pycache__)"
    print(f"numba cache: {where}")
    return 0


def _golden(args):
    import numpy as np

    from .devices import SUPPORTED_NAMES, get_device
    from .kernels import registry
    from .testing import check_golden, record_golden
    kernels = registry()
    names = args.kernels.split(",") if args.kernels else list(kernels)
    devices = [get_device(d).name for d in args.devices.split(",")] if args.devices else list(SUPPORTED_NAMES)
    failures = checked = 0
    for name in names:
        if name not in kernels:
            raise AscendJitError("golden", "--kernels", name, legal=", ".join(kernels))
        k = kernels[name]
        for device in devices:
            if not k.supports(device):
                continue
            outputs = k.run(device, k.make_inputs(k.default_size, 0))
            for key, value in sorted(outputs.items()):
                golden_name = f"{name}.{device}.{key}"
                if args.action == "record":
                    record_golden(golden_name, np.asarray(value), args.dir, device=device, metadata={"kernel": name})
                else:
                    checked += 1
                    try:
                        check_golden(golden_name, np.asarray(value), args.dir)
                    except AssertionError as err:
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
    p = _Parser(prog="ascend-jit", description="Bit-exact CPU emulator of Ascend C vector "
                                "instructions (Add, ReduceSum, ReducePairElem, Reg ReduceDataBlock).",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="verb", required=True, metavar="VERB", parser_class=_Parser)
    d = sub.add_parser("devices", help="the device table: UB size, overflow mode, ReduceSum algorithms, dtypes")
    d.set_defaults(fn=_devices)
    r = sub.add_parser("run", help="run an example kernel, check it bit for bit, report the emulation speed")
    r.add_argument("name", help="kernel name (see `ascend-jit run --list`)", nargs="?")
    r.add_argument("--list", action="store_true", help="list the kernels")
    r.add_argument("--device", default="atlas-a2", help="device name or alias (default atlas-a2)")
    r.add_argument("--size", type=int, default=None, help="elements (default: the kernel's own)")
    r.add_argument("--seed", type=int, default=0, help="input seed (0 = the seed example's data where it has some)")
    r.set_defaults(fn=_run)
    s = sub.add_parser("study", help="accumulation-order study of ReduceSum across devices and API forms")
    s.add_argument("--dtype", default="half", choices=("half", "float"))
    s.add_argument("--n", type=int, default=8320, help="elements per trial (default 8320)")
    s.add_argument("--trials", type=int, default=200, help="random inputs (default 200)")
    s.add_argument("--devices", default="all", help="comma-separated device names, or all")
    s.add_argument("--dist", default="normal", choices=("normal", "uniform", "lognormal", "cancel"))
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--saturate", action="store_true", help="saturation mode where the device can switch to it")
    s.add_argument("--plot", metavar="FILE.png", help="write box plots of the ulp errors (needs matplotlib)")
    s.add_argument("--json", metavar="FILE", help="write the full report as JSON")
    s.set_defaults(fn=_study)
    e = sub.add_parser("explain", help="print the reduction tree ReduceSum uses on a device")
    e.add_argument("--device", required=True)
    e.add_argument("--form", choices=("count", "highdim"), default="count")
    e.add_argument("--dtype", choices=("half", "float"), default="half")
    e.add_argument("--n", type=int, required=True, help="elements (count form) or elements covered by full repeats")
    e.add_argument("--mask", type=int, default=128, help="continuous mask for --form highdim (default 128)")
    e.add_argument("--format", choices=("text", "json", "dot"), default="text")
    e.set_defaults(fn=_explain)
    g = sub.add_parser("golden", help="record or check the example kernels' outputs as golden files")
    g.add_argument("action", choices=("record", "check"))
    g.add_argument("dir", help="folder of the golden files")
    g.add_argument("--kernels", help="comma-separated kernel names (default: all)")
    g.add_argument("--devices", help="comma-separated devices (default: all supported)")
    g.set_defaults(fn=_golden)
    w = sub.add_parser("warmup", help="compile every instruction family into the numba cache, seconds per family")
    w.add_argument("--devices", help="comma-separated devices (default: all supported)")
    w.add_argument("--families", help="comma-separated families (default: all; see ascend_jit.warmup.FAMILIES)")
    w.set_defaults(fn=_warmup)
    return p


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.verb == "run" and (args.list or not args.name):
        from .kernels import registry
        for name, k in registry().items():
            print(f"{name:26s} {k.description}")
        return 0
    try:
        return args.fn(args)
    except AscendJitError as err:
        print(f"ascend-jit: error: {err}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as err:
        print(f"ascend-jit: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ascend-jit: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
