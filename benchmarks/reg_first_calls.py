"""Compile-time benchmark of the Reg API inside VFs (issue 20): run by hand, never a timed test.

    python benchmarks/reg_first_calls.py                     # every instruction's first VF, then the VF sequence
    python benchmarks/reg_first_calls.py --only Cast,Max     # some instructions
    python benchmarks/reg_first_calls.py --root /work/main   # another checkout, same VFs

First call: a fresh process with an empty NUMBA_CACHE_DIR calls one new `@aj.Reg.simd_vf` VF (RegTensor, CreateMask,
LoadAlign, the instruction, StoreAlign; one device and dtype) and reports its CPU seconds (the process's own time:
on a shared machine wall time depends on the neighbours). `compile_times.py` times the same instructions' plain-Python
registry examples. Sequence: in one fresh process, three new VFs of the same body one after another (the second
and third pay only their own compile: they call the kernels the first compiled through pointers, docs/decisions.md
"Kernels called through a pointer"), then a second process with the same cache calls the first VF again (loaded
from the cache) and one more new VF (the kernels loaded from the cache, the VF compiled). Each VF lives in a module
file of its own under a temporary directory, so numba caches it.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
_CAST_WIDE = "R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, aj.RoundMode.UNKNOWN)"
_CAST_NARROW = "R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_RINT)"
_CAST_I32 = "R.CastTrait(R.RegLayout.UNKNOWN, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_RINT)"
_MASK_OP = "n = R.MaskReg()\n    R.{}\n    b = a"
# name: (source dtype, destination dtype, body between the loads and the store; `a` holds the loaded src)
BODIES = {
    "LoadAlign": ("half", "half", "b = a"),
    "Add": ("half", "half", "R.Add(b, a, a, m)"),
    "Sub": ("half", "half", "R.Sub(b, a, a, m)"),
    "Mul": ("half", "half", "R.Mul(b, a, a, m)"),
    "Max": ("half", "half", "R.Max(b, a, a, m)"),
    "Min": ("half", "half", "R.Min(b, a, a, m)"),
    "Div": ("half", "half", "R.Div(b, a, a, m)"),
    "Exp": ("half", "half", "R.Exp(b, a, m)"),
    "Muls": ("half", "half", "R.Muls(b, a, 1.5, m)"),
    "Adds float": ("float", "float", "R.Adds(b, a, 1.5, m)"),
    "Maxs": ("half", "half", "R.Maxs(b, a, 0.0, m)"),
    "Mins int32": ("int32", "int32", "R.Mins(b, a, 7, m)"),
    "Duplicate+Min int32": ("int32", "int32", "R.Duplicate(b, 7)\n    R.Min(b, a, b, m)"),
    "LeakyRelu": ("half", "half", "R.LeakyRelu(b, a, 0.1, m)"),
    "Prelu float": ("float", "float", "R.Prelu(b, a, a, m)"),
    "MulAddDst": ("half", "half", "R.MulAddDst(b, a, a, m)"),
    "Axpy float": ("float", "float", "R.Axpy(b, a, 0.5, m)"),
    "MulAddDst float": ("float", "float", "R.MulAddDst(b, a, a, m)"),
    "Abs": ("half", "half", "R.Abs(b, a, m)"),
    "Relu float": ("float", "float", "R.Relu(b, a, m)"),
    "Neg int16": ("int16", "int16", "R.Neg(b, a, m)"),
    "Ln": ("half", "half", "R.Ln(b, a, m)"),
    "Sqrt float": ("float", "float", "R.Sqrt(b, a, m)"),
    "Select registers": ("half", "half", "R.Select(b, a, b, m)"),
    "ShiftRights int32": ("int32", "int32", "R.ShiftRights(b, a, 3, m)"),
    "Duplicate": ("half", "half", "R.Duplicate(b, 1.5)"),
    "Duplicate lane 0": ("half", "half", "R.Duplicate(b, a, m)"),
    "Reduce": ("half", "half", "R.Reduce(b, a, m)"),
    "ReduceMax": ("half", "half", "R.ReduceMax(b, a, m)"),
    "ReduceDataBlock": ("half", "half", "R.ReduceDataBlock(b, a, m)"),
    "ReduceDataBlock MAX": ("half", "half", "R.ReduceDataBlock(b, a, m, R.ReduceType.MAX)"),
    "Cast": ("half", "float", f"R.Cast(b, a, m, {_CAST_WIDE})"),
    "Cast float->half": ("float", "half", f"R.Cast(b, a, m, {_CAST_NARROW})"),
    "Cast int32->float": ("int32", "float", f"R.Cast(b, a, m, {_CAST_I32})"),
    "Add float": ("float", "float", "R.Add(b, a, a, m)"),
    "Max float": ("float", "float", "R.Max(b, a, a, m)"),
    "Div float": ("float", "float", "R.Div(b, a, a, m)"),
    "Exp float": ("float", "float", "R.Exp(b, a, m)"),
    "Reduce float": ("float", "float", "R.Reduce(b, a, m)"),
    "Add int32": ("int32", "int32", "R.Add(b, a, a, m)"),
    "Mul int32": ("int32", "int32", "R.Mul(b, a, a, m)"),
    "Max int32": ("int32", "int32", "R.Max(b, a, a, m)"),
    "Div int32": ("int32", "int32", "R.Div(b, a, a, m)"),
    "Reduce int32": ("int32", "int32", "R.Reduce(b, a, m)"),
    "Add carry int32": ("int32", "int32", "n = R.MaskReg()\n    R.Add(n, b, a, a, m)"),
    "LoadAlign DINTLV": ("half", "half", "R.LoadAlign(a, b, src, 0, dist=R.LoadDist.DIST_DINTLV_B16)"),
    "Load/Store unaligned": ("half", "half", "R.Load(b, src, 0)\n    R.Store(dst, b, 0)"),
    "Pack": ("half", "half", _MASK_OP.format("Pack(n, m)")),
    "Interleave": ("half", "half", _MASK_OP.format("Interleave(n, R.MaskReg(), m, m, \"half\")")),
    "And": ("half", "half", _MASK_OP.format("And(n, m, m, m)")),
    "Select": ("half", "half", _MASK_OP.format("Select(n, m, m, m)")),
    "Not": ("half", "half", _MASK_OP.format("Not(n, m, m)")),
}
MODULE = """import ascend_jit as aj
R = aj.Reg


@R.simd_vf
def {name}(dst, src):
    a = R.RegTensor("{s}")
    b = R.RegTensor("{d}")
    m = R.CreateMask("{s}")
    R.LoadAlign(a, src, 0)
    {body}
    R.StoreAlign(dst, b, R.CreateMask("{d}"), 0)
"""
CHILD = r"""
import importlib, json, sys, time
sys.path.insert(0, sys.argv[1])
import ascend_jit as aj
core = aj.Core("ascend950")
out = []
for name, s, d in json.loads(sys.argv[2]):
    src, dst = core.local_tensor(s, 256), core.local_tensor(d, 256)
    vf = getattr(importlib.import_module(name), name)
    c0 = time.process_time()
    with core:
        vf(dst, src)
    out.append(time.process_time() - c0)
print(json.dumps(out))
"""


def _run(root, vfs, module_dir, cache_dir):
    """CPU seconds of each VF's first call, in order, in one fresh process. vfs: [(module name, BODIES key)]."""
    for name, op in vfs:
        s, d, body = BODIES[op]
        (Path(module_dir) / f"{name}.py").write_text(MODULE.format(name=name, s=s, d=d, body=body))
    env = dict(os.environ, PYTHONPATH=str(root), NUMBA_CACHE_DIR=str(cache_dir), NUMBA_NUM_THREADS="1")
    env.pop("NUMBA_DISABLE_JIT", None)
    args = json.dumps([(name, BODIES[op][0], BODIES[op][1]) for name, op in vfs])
    r = subprocess.run([sys.executable, "-c", CHILD, str(module_dir), args], capture_output=True, text=True, env=env,
                       cwd=root, timeout=3600)
    if r.returncode:
        raise RuntimeError(r.stderr[-2000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


def first_call(root, op):
    with tempfile.TemporaryDirectory(prefix="aj-reg-") as tmp:
        (Path(tmp) / "m").mkdir()
        return _run(root, [("vf_first", op)], Path(tmp) / "m", Path(tmp) / "cache")[0]


def sequence(root, op):
    """(first, second, third new VF in one process; the first again in a new process; a new VF there)."""
    with tempfile.TemporaryDirectory(prefix="aj-reg-") as tmp:
        modules, cache = Path(tmp) / "m", Path(tmp) / "cache"
        modules.mkdir()
        three = _run(root, [(f"vf_seq{i}", op) for i in range(3)], modules, cache)
        again = _run(root, [("vf_seq0", op), ("vf_seq_new", op)], modules, cache)
    return three + again


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", default=str(HERE.parent), help="checkout to measure (default: this one)")
    p.add_argument("--only", help="comma-separated instruction names (default: all)")
    p.add_argument("--sequence", default="ReduceDataBlock", help="the VF body of the sequence ('' to skip)")
    args = p.parse_args(argv)
    root = Path(args.root).resolve()
    for op in (args.only.split(",") if args.only else BODIES):
        print(f"| {op} | {BODIES[op][0]} -> {BODIES[op][1]} | {first_call(root, op):.2f} s |", flush=True)
    if args.sequence:
        t = sequence(root, args.sequence)
        print(f"\n{args.sequence} VFs in one process: first {t[0]:.2f} s, second {t[1]:.2f} s, third {t[2]:.2f} s CPU; "
              f"a new process: the first VF from the cache {t[3]:.2f} s, a new VF {t[4]:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
