"""The first call of one element-wise instruction per dtype class, each in a fresh process on an empty numba cache
(issue 20: at most 5 s), CPU seconds (user + system of the process, so the neighbours on a shared machine do not
count). One row per kernel dtype class (jit/elementwise.py binary_count_kernel, unary_count_kernel,
ternary_count_kernel):

    python benchmarks/first_calls_elementwise.py [--root CHECKOUT]
"""
import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CASES = [  # (name, device, dtype, instruction call on tensors t[0], t[1], t[2])
    ("Add (binary half class)", "atlas-a2", "half", "aj.Add(t[0], t[1], t[2], 256)"),
    ("Add (binary float class)", "atlas-a2", "float", "aj.Add(t[0], t[1], t[2], 256)"),
    ("Add (binary float class)", "ascend950", "bfloat16", "aj.Add(t[0], t[1], t[2], 256)"),
    ("Div FTZ (binary half FTZ class)", "ascend950", "half", "aj.Div(t[0], t[1], t[2], 256)"),
    ("Exp (unary half class)", "atlas-a2", "half", "aj.Exp(t[0], t[1], 256)"),
    ("Exp (unary float class)", "atlas-a2", "float", "aj.Exp(t[0], t[1], 256)"),
    ("Relu (unary int class)", "atlas-a2", "int32", "aj.Relu(t[0], t[1], 256)"),
    ("And (binary int class, 2 bytes)", "atlas-a2", "int16", "aj.And(t[0], t[1], t[2], 256)"),
    ("Div (binary int class, 8 bytes)", "ascend950", "uint64", "aj.Div(t[0], t[1], t[2], 256)"),
    ("MulAddDst (multiply-add half class)", "atlas-a2", "half", "aj.MulAddDst(t[0], t[1], t[2], 256)"),
    ("MulAddDst (multiply-add float class)", "atlas-a2", "float", "aj.MulAddDst(t[0], t[1], t[2], 256)"),
    ("Axpy (multiply-add mixed class)", "atlas-a2", "half",
     "aj.Axpy(core.local_tensor('float', 256), t[1], 0.5, 256)"),
    ("ShiftLeft (binary int class, 2 bytes)", "atlas-a2", "int16", "aj.ShiftLeft(t[0], t[1], 3, 256)"),
    ("ShiftRight high-dim (binary int, 4 B)", "atlas-a2", "int32",
     "aj.ShiftRight(t[0], t[1], 3, 64, 4, aj.UnaryRepeatParams(), True)"),
    ("Not (unary int class, 2 bytes)", "atlas-a2", "int16", "aj.Not(t[0], t[1], 256)"),
    ("Not half (unary int class, 2 bytes)", "ascend950", "half", "aj.Not(t[0], t[1], 256)"),
    ("ArithProgression (binary float class)", "atlas-a2", "float", "aj.ArithProgression(t[0], 0.5, 0.25, 256)"),
    ("ArithProgression (binary half class)", "ascend950", "half", "aj.ArithProgression(t[0], 0.5, 0.25, 256)"),
    ("And then ShiftLeft (int class, 2 B)", "atlas-a2", "int16",
     "aj.And(t[0], t[1], t[2], 256); c1 = usage(); aj.ShiftLeft(t[0], t[1], 3, 256); print(usage() - c1)"),
]

CHILD = r"""
import resource, sys
import ascend_jit as aj
device, dtype, call = sys.argv[1:4]
core = aj.Core(device)
t = [core.local_tensor(dtype, 256) for _ in range(3)]
usage = lambda: sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
c0 = usage()
exec(call)
print(usage() - c0)
"""


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", default=str(Path(__file__).resolve().parent.parent), help="checkout to measure")
    p.add_argument("--match", default="", help="only the cases whose name contains this text")
    args = p.parse_args()
    root = args.root
    print(f"{'first call, empty cache':38s} {'device, dtype':22s} {'CPU s':>6s}")
    for name, device, dtype, call in CASES:
        if args.match not in name:
            continue
        with tempfile.TemporaryDirectory() as cache_dir:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, NUMBA_NUM_THREADS="1", PYTHONPATH=root)
            env.pop("NUMBA_DISABLE_JIT", None)
            out = subprocess.run([sys.executable, "-c", CHILD, device, dtype, call], env=env, cwd=root,
                                 capture_output=True, text=True, check=True).stdout
        figures = out.split()  # (a case may print the CPU of a later call first)
        print(f"{name:38s} {device + ', ' + dtype:22s} {float(figures[-1]):6.2f}" +
              (f"  (the second call: {float(figures[0]):.2f})" if len(figures) > 1 else ""))


if __name__ == "__main__":
    main()
