"""Compile-time benchmark (issue 20): run by hand, never a timed test; the figures go to BENCHMARKS.md.

    python benchmarks/compile_times.py                  # first calls and families, cold then warm
    python benchmarks/compile_times.py --suite          # plus the default test suite, cold then warm
    python benchmarks/compile_times.py --root /work/main --no-families   # the same first calls on another checkout
    python benchmarks/compile_times.py --only none --suite                # the default suite alone
    python benchmarks/compile_times.py --no-families --only "Reduce,Cast,Compare,Select,DataCopyPad,Gather,Reg VF"
                                                      # every instruction outside the element-wise family
    python benchmarks/compile_times.py --no-families --only ReduceMax --root /work/main --against /work/base
                                                      # the same cases on two checkouts, alternating
    python benchmarks/compile_times.py --no-families --every-device --exclude Reg   # every device offering each

Every measurement runs in a fresh Python process with NUMBA_NUM_THREADS=1. "cold": NUMBA_CACHE_DIR is a new empty
directory; "warm": a second process with the same directory. A first call is timed alone (tensors are made before
the clock starts). CPU seconds (the process's own time) stand beside wall seconds because on a shared machine the
wall time depends on the neighbours. "specialisations" counts the compiled signatures of every numba dispatcher whose
function lives in the package (kernels and the @overload helpers they pulled in), then of all dispatchers (numba's
internal ones included), after the call.

First calls: each registered instruction's minimal example (so new instructions are measured without editing this
file) plus the other forms below, one device and dtype each. Families: `run_warmup(families=[f])` over every
supported device, one row per entry of ascend_jit.warmup.FAMILIES.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

REDUCE_SETUP = ("core = aj.Core({device!r})\nsrc = core.local_tensor({dtype!r}, 4096)\n"
                "dst = core.local_tensor({dtype!r}, 16)\ntmp = core.local_tensor({dtype!r}, 64)\n")
VF_SETUP = ("try:\n    from ascend_jit.kernels import reduce_data_block_seed as seed\nexcept ImportError:\n"
            "    from kernels import reduce_data_block_seed as seed\ninputs = seed.make_inputs(8320, 1)\n")
# A VF in a module of its own, under a new name in every process: the "warm" run then times what a user developing a
# VF pays on every edit once the library is cached (the VF and the per-process Reg overloads, no library kernel).
NEW_VF_SOURCE = """import ascend_jit as aj
R = aj.Reg


@R.simd_vf
def vf(dst, a, b, n, dtype):
    x, y, z = R.RegTensor(dtype), R.RegTensor(dtype), R.RegTensor(dtype)
    for i in range(2):
        mask, n = R.UpdateMask(dtype, n)
        R.LoadAlign(x, a, i * 128)
        R.LoadAlign(y, b, i * 128)
        R.Add(z, x, y, mask)
        R.Mul(z, z, y, mask)
        R.Exp(z, z, mask)
        R.StoreAlign(dst, z, mask, i * 128)
"""
NEW_VF_SETUP = ("import importlib, os, sys, tempfile, uuid\n"
                "vf_dir, vf_name = tempfile.mkdtemp(), 'vf_' + uuid.uuid4().hex[:12]\n"
                f"open(os.path.join(vf_dir, vf_name + '.py'), 'w').write({NEW_VF_SOURCE!r})\n"
                "sys.path.insert(0, vf_dir)\nvf = importlib.import_module(vf_name).vf\n"
                "core = aj.Core({device!r})\na, b, out = (core.local_tensor({dtype!r}, 256) for _ in range(3))\n")


def _forms_vf_source():
    """tests/test_reg_direct_calls.py's VF of every direct-call form (about 45 Reg calls), as module source: the
    same text for both checkouts of --against, read from this one."""
    import ast
    text = (HERE.parent / "tests" / "test_reg_direct_calls.py").read_text()
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == "_forms_vf")
    return "import ascend_jit as aj\nR = aj.Reg\n\n\n" + ast.get_source_segment(text, node) + "\n"


FORMS_VF_SETUP = ("import importlib, os, sys, tempfile, uuid\n"
                  "vf_dir, vf_name = tempfile.mkdtemp(), 'vf_' + uuid.uuid4().hex[:12]\n"
                  f"open(os.path.join(vf_dir, vf_name + '.py'), 'w').write({_forms_vf_source()!r})\n"
                  "sys.path.insert(0, vf_dir)\nvf = aj.Reg.simd_vf(importlib.import_module(vf_name)._forms_vf)\n"
                  "core = aj.Core({device!r})\nsrc, out = core.local_tensor({dtype!r}, 1024), "
                  "core.local_tensor({dtype!r}, 1024)\nbits = core.local_tensor('uint8', 64)\n")
EXTRA_CASES = [
    ("ReduceSum high-dim", "atlas-a2", "half", REDUCE_SETUP, "aj.ReduceSum(dst, src, tmp, 128, 4, 8)"),
    ("ReduceSum count", "atlas-training", "half", REDUCE_SETUP, "aj.ReduceSum(dst, src, tmp, 1000)"),
    ("ReduceSum count", "ascend950", "half", REDUCE_SETUP, "aj.ReduceSum(dst, src, tmp, 1000)"),
    ("ReduceSum high-dim", "ascend950", "half", REDUCE_SETUP, "aj.ReduceSum(dst, src, tmp, 128, 4, 8)"),
    ("ReduceSum count", "ascend950", "int32", REDUCE_SETUP, "aj.ReduceSum(dst, src, tmp, 1000)"),
    ("ReduceSum count", "ascend950", "int64", REDUCE_SETUP, "aj.ReduceSum(dst, src, tmp, 300)"),
    ("ReduceMax count", "ascend950", "half", REDUCE_SETUP, "aj.ReduceMax(dst, src, tmp, 1000, True)"),
    ("ReduceMax count", "atlas-a2", "float", REDUCE_SETUP, "aj.ReduceMax(dst, src, tmp, 1000, True)"),
    ("WholeReduceMax high-dim", "atlas-a2", "float", REDUCE_SETUP, "aj.WholeReduceMax(dst, src, 64, 4, 1, 1, 8)"),
    ("Add high-dim", "atlas-a2", "half",
     "core = aj.Core({device!r})\na, b, c = (core.local_tensor({dtype!r}, 512) for _ in range(3))\n",
     "aj.Add(c, a, b, 128, 4, aj.BinaryRepeatParams())"),
    ("Reg VF (simd_vf)", "ascend950", "half", VF_SETUP, "seed.run({device!r}, inputs)"),
    ("a new Reg VF: Add, Mul, Exp (warm: the library cached, the VF new)", "ascend950", "half", NEW_VF_SETUP,
     "with core:\n    vf(out, a, b, 200, 'half')"),
    ("a new Reg VF of every direct-call form (warm: the library cached, the VF new)", "ascend950", "half",
     FORMS_VF_SETUP, "with core:\n    vf(out, src, bits, 2.5, 'half')"),
]

DRIVER = r"""
import gc, json, sys, time
t0 = time.perf_counter()
import numpy as np
import ascend_jit as aj
import_s = time.perf_counter() - t0
case = json.loads(sys.argv[1])
ns = {"aj": aj, "np": np}
exec(case["setup"], ns)
w0, c0 = time.perf_counter(), time.process_time()
exec(case["call"], ns)
wall, cpu = time.perf_counter() - w0, time.process_time() - c0
from numba.core.dispatcher import Dispatcher
own = every = 0
for o in gc.get_objects():
    try:
        is_dispatcher = isinstance(o, Dispatcher)
    except ReferenceError:  # a dead weak proxy
        continue
    if is_dispatcher:
        n = len(o.overloads)
        every += n
        if getattr(o.py_func, "__module__", "").startswith("ascend_jit"):
            own += n
print(json.dumps({"import_s": import_s, "wall": wall, "cpu": cpu, "own": own, "all": every}))
"""

REGISTRY_CASES = r"""
import json, sys
import ascend_jit as aj
from ascend_jit.api.registry import INSTRUCTIONS
every_device = sys.argv[1] == "every"
cases = []
for inst in INSTRUCTIONS:
    for device in (aj.SUPPORTED_NAMES if every_device else ("atlas-a2", "ascend950")):
        spec = aj.get_device(device)
        dtypes = inst.dtypes(spec) if inst.offered(spec) else ()
        if dtypes:
            dtype = "half" if "half" in dtypes else dtypes[0]
            cases.append((inst.name, device, dtype))
            if not every_device:
                break
print(json.dumps(cases))
"""


def _env(root, cache_dir):
    env = dict(os.environ, PYTHONPATH=str(root), NUMBA_CACHE_DIR=str(cache_dir), NUMBA_NUM_THREADS="1")
    env.pop("NUMBA_DISABLE_JIT", None)
    return env


def _child(root, cache_dir, case):
    r = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(case)], capture_output=True, text=True,
                       env=_env(root, cache_dir), cwd=root, timeout=3600)
    if r.returncode:
        raise RuntimeError(f"{case['name']}: {r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def cases(root, families, every_device=False):
    r = subprocess.run([sys.executable, "-c", REGISTRY_CASES, "every" if every_device else "first"],
                       capture_output=True, text=True, cwd=root,
                       env=_env(root, tempfile.mkdtemp(prefix="aj-ct-")), check=True)
    out = []
    for name, device, dtype in json.loads(r.stdout):
        setup = ("from ascend_jit.api.registry import INSTRUCTIONS\n"
                 f"inst = next(i for i in INSTRUCTIONS if i.name == {name!r})\n"
                 f"tensors, call = inst.example(aj.Core({device!r}), {dtype!r})\n")
        out.append({"name": f"{name} (registry example)", "device": device, "dtype": dtype, "setup": setup,
                    "call": "call(*tensors)"})
    for name, device, dtype, setup, call in EXTRA_CASES:
        out.append({"name": name, "device": device, "dtype": dtype,
                    "setup": setup.format(device=device, dtype=dtype), "call": call.format(device=device)})
    if families:
        from_table = subprocess.run([sys.executable, "-c", "import json; from ascend_jit.warmup import FAMILIES; "
                                     "print(json.dumps(list(FAMILIES)))"], capture_output=True, text=True, cwd=root,
                                    env=_env(root, tempfile.mkdtemp(prefix="aj-ct-")), check=True)
        for family in json.loads(from_table.stdout):
            out.append({"name": f"family {family} (warmup, every device)", "device": "all", "dtype": "all",
                        "setup": "from ascend_jit.warmup import run_warmup\n",
                        "call": f"run_warmup(families=[{family!r}])"})
    return out


def measure(root, case):
    with tempfile.TemporaryDirectory(prefix="aj-numba-cache-") as cache_dir:
        cold = _child(root, cache_dir, case)
        warm = _child(root, cache_dir, case)
    return {**case, "cold": cold, "warm": warm}


def suite(root):
    """The default test suite (the README's command) cold, then warm: wall and CPU seconds of the child processes."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="aj-numba-cache-") as cache_dir:
        for phase in ("cold", "warm"):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"], cwd=root,
                               env=_env(root, cache_dir), capture_output=True, text=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            out[phase] = {"wall": time.perf_counter() - t0, "cpu": (after.ru_utime + after.ru_stime)
                          - (before.ru_utime + before.ru_stime), "result": r.stdout.strip().splitlines()[-1],
                          "rc": r.returncode}
    return out


def against(base, root, todo, rounds):
    """Each case's cold first call on `base` and `root`, alternating which goes first, `rounds` times: CPU medians."""
    lines = [f"| first call | device, dtype | {base.name} cold CPU | {root.name} cold CPU |", "|---|---|---|---|"]
    for case in todo:
        cpu = {base: [], root: []}
        for r in range(rounds):
            for checkout in ((base, root) if r % 2 == 0 else (root, base)):
                with tempfile.TemporaryDirectory(prefix="aj-numba-cache-") as cache_dir:
                    cpu[checkout].append(_child(checkout, cache_dir, case)["cpu"])
        lines.append(f"| {case['name']} | {case['device']}, {case['dtype']} | {statistics.median(cpu[base]):.2f} s | "
                     f"{statistics.median(cpu[root]):.2f} s |")
        print(lines[-1], file=sys.stderr, flush=True)
    print("\n".join(lines))
    return 0


def table(results):
    lines = ["| first call | device, dtype | cold wall | cold CPU | specialisations (package / all) | warm wall | "
             "warm CPU |", "|---|---|---|---|---|---|---|"]
    for r in results:
        c, w = r["cold"], r["warm"]
        lines.append(f"| {r['name']} | {r['device']}, {r['dtype']} | {c['wall']:.2f} s | {c['cpu']:.2f} s | "
                     f"{c['own']} / {c['all']} | {w['wall']:.2f} s | {w['cpu']:.2f} s |")
    imports = [r["warm"]["import_s"] for r in results]
    lines.append(f"\n`import ascend_jit`: {min(imports):.2f}-{max(imports):.2f} s (warm processes).")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", default=str(HERE.parent), help="checkout to measure (default: this one)")
    p.add_argument("--no-families", action="store_true", help="first calls only")
    p.add_argument("--only", help="comma-separated substrings: measure the cases whose name contains one")
    p.add_argument("--exclude", help="comma-separated substrings: skip the cases whose name contains one")
    p.add_argument("--suite", action="store_true", help="also the default test suite, cold then warm")
    p.add_argument("--json", help="write every figure as JSON")
    p.add_argument("--against", help="another checkout: each case's cold first call on both, alternating (the "
                   "machine's phases hit both alike), --rounds times; prints the CPU medians")
    p.add_argument("--rounds", type=int, default=2, help="rounds of --against (default 2)")
    p.add_argument("--every-device", action="store_true", help="each registered instruction on every device that "
                   "offers it (default: its first of the A2 and the 950)")
    args = p.parse_args(argv)
    root = Path(args.root).resolve()
    todo = cases(root, not args.no_families, args.every_device)
    if args.only:
        todo = [c for c in todo if any(s in c["name"] for s in args.only.split(","))]
    if args.exclude:
        todo = [c for c in todo if not any(s in c["name"] for s in args.exclude.split(","))]
    if args.against:
        return against(Path(args.against).resolve(), root, todo, args.rounds)
    results = []
    for case in todo:
        results.append(measure(root, case))
        r = results[-1]
        print(f"{r['name']} [{r['device']}, {r['dtype']}]: cold {r['cold']['wall']:.1f} s wall / "
              f"{r['cold']['cpu']:.1f} s CPU, {r['cold']['own']} specialisations; warm {r['warm']['wall']:.2f} s",
              file=sys.stderr, flush=True)
    if results:
        print(table(results))
    report = {"root": str(root), "first_calls": results}
    if args.suite:
        report["suite"] = suite(root)
        for phase, s in report["suite"].items():
            print(f"\ndefault suite {phase}: {s['wall']:.0f} s wall, {s['cpu']:.0f} s CPU ({s['result']})")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
