"""`ascend-jit warmup` (issue 20): the family table resolves, each family warms every device, bad names are refused."""
import io
import warnings

import pytest

import ascend_jit as aj
from ascend_jit import warmup
from ascend_jit.cli import main


def test_every_family_resolves_to_a_function():
    assert set(warmup.FAMILIES) >= {"elementwise", "reduce_sum", "reduce_pair", "reg", "study", "registry"}
    for family in warmup.FAMILIES:
        assert callable(warmup.warmup_function(family))


def test_warmup_steps_through_every_family_on_every_device_in_order(monkeypatch):
    """The orchestration alone (no compile): each family's function runs once per device, family by family, with
    the progress steps and a seconds entry per family. The real compile of every family is the slow test below;
    the default suite runs warmup's element-wise entries with the compile stubbed (test_warmup_compiles_every_
    elementwise_walk) and two small families for real (test_cli_prints_seconds_per_family)."""
    calls, steps = [], []
    monkeypatch.setattr(warmup, "warmup_function", lambda family: lambda device: calls.append((family, device)))
    devices = ["atlas-a2", "ascend950", "910"]
    seconds = warmup.run_warmup(devices=devices, progress=lambda done, total, label: steps.append((done, total, label)))
    assert calls == [(f, aj.get_device(d).name) for f in warmup.FAMILIES for d in devices]
    assert list(seconds) == list(warmup.FAMILIES) and all(s >= 0 for s in seconds.values())
    total = 3 * len(warmup.FAMILIES)
    assert [s[0] for s in steps] == list(range(total + 1)) and steps[0][2] == "elementwise on atlas-a2"
    assert steps[-1] == (total, total, "done")


@pytest.mark.slow
def test_warmup_runs_every_family_and_reports_seconds():
    """Every family compiled for real on three devices (several minutes on an empty cache: a compile sweep, run
    with `-m slow`)."""
    steps = []
    seconds = warmup.run_warmup(devices=["atlas-a2", "ascend950", "910"],
                                progress=lambda done, total, label: steps.append((done, total, label)))
    assert list(seconds) == list(warmup.FAMILIES) and all(s >= 0 for s in seconds.values())
    total = 3 * len(warmup.FAMILIES)
    assert [s[0] for s in steps] == list(range(total + 1)) and steps[0][2] == "elementwise on atlas-a2"


def test_the_reg_family_compiles_its_vfs():
    """The reg family warms the kernels VFs reach by compiling VFs of its own; one numba cannot compile runs plain
    (with an UncompiledVFWarning) and warms nothing (its MaskReg Interleave once named a CreateMask result as a
    destination: the whole VF ran plain, its 19 s of compile spent for nothing)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", aj.UncompiledVFWarning)
        warmup.warm_reg("ascend950")


def test_unknown_family_or_device_is_refused():
    with pytest.raises(aj.ParameterError, match="family"):
        warmup.run_warmup(families=["nope"])
    with pytest.raises(aj.AscendJitError):
        warmup.run_warmup(devices=["no-such-device"], families=["reduce_pair"])


def test_cli_prints_seconds_per_family(capsys):
    assert main(["warmup", "--devices", "atlas-a2", "--families", "reduce_pair,study"]) == 0
    out = capsys.readouterr().out
    assert "reduce_pair" in out and "study" in out and "total" in out and "numba cache" in out
    assert main(["warmup", "--families", "nope"]) == 2


def test_jobs_warm_whole_families_in_worker_processes():
    """--jobs: each family runs in a spawned worker process, all its devices there; every step is announced once,
    seconds and CPU seconds come back per family in the caller's order, the last progress call is "done"."""
    steps, cpu = [], {}
    seconds = warmup.run_warmup(devices=["atlas-a2", "910"], families=["study", "reduce_pair"], cpu=cpu, jobs=2,
                                progress=lambda done, total, label: steps.append((done, total, label)))
    assert list(seconds) == ["study", "reduce_pair"] and set(cpu) == {"study", "reduce_pair"}
    assert all(s > 0 for s in seconds.values())
    assert sorted(s[2] for s in steps[:-1]) == sorted(f"{f} on {d}" for f in ("study", "reduce_pair")
                                                      for d in ("atlas-a2", "atlas-training"))
    assert [s[0] for s in steps] == [0, 1, 2, 3, 4] and steps[-1] == (4, 4, "done")


@pytest.mark.parametrize("jobs", [0, 65, True, 1.5, "2"])
def test_bad_jobs_are_refused_before_any_work(jobs):
    with pytest.raises(aj.ParameterError, match="jobs"):
        warmup.run_warmup(families=["study"], jobs=jobs)
    assert main(["warmup", "--jobs", "0", "--families", "study"]) == 2


def test_progress_bar_is_silent_off_a_terminal():
    assert warmup.progress_bar(io.StringIO()) is None


_ENTRY_KEYS = """
import sys
from numba import typeof
import ascend_jit as aj
from ascend_jit import warmup
from ascend_jit.api import elementwise as E
from ascend_jit.api.registry import Instruction
from ascend_jit.jit import direct
seen = set()

def record(kernel, args):  # the entry's kernel and argument types, and a stub in place of compiling it
    seen.add((kernel.py_func.__name__,) + tuple(str(typeof(a)) for a in args))
    return lambda *a: None

direct.compiled_entry = record
device = sys.argv[1]
warmup.warm_elementwise(device)
spec = aj.get_device(device)
for inst in E.elementwise_instructions(Instruction):  # the "registry" row's element-wise instructions
    for dtype in inst.dtypes(spec):
        tensors, call = inst.example(aj.Core(device), dtype)
        call(*tensors)
warmed, seen = seen, set()
for row in E.OPS.values():
    if row.arity in ("fill", "brcb"):
        continue
    entry = E.ENTRIES[row.name]
    pairs = [(d, d) for d in row.dtypes.get(spec.name, ())] + [(d, s) for s, d in (row.mixed or {}).get(spec.name, ())]
    for dst_dtype, src_dtype in pairs:
        core = aj.Core(device, bounds="ub")
        dst = core.local_tensor(dst_dtype, 512, addr=0)
        srcs = [core.local_tensor(src_dtype, 512, addr=65536 * k) for k in (1, 2)[:len(E._TENSORS[row.arity]) - 1]]
        scalar = (2,) if row.arity in ("scalar", "axpy") else ()
        lanes = 256 // dst.dtype.size
        params = {"binary": E.BinaryRepeatParams(2, 1, 1, 16, 8, 8), "ternary": E.BinaryRepeatParams(2, 1, 1, 16, 8, 8),
                  "copy": E.CopyRepeatParams(2, 1, 16, 8)}.get(row.arity, E.UnaryRepeatParams(2, 1, 16, 8))
        if row.count_devices is None or spec.name in row.count_devices:
            entry(dst, *srcs[:1], *scalar, *srcs[1:], 100)
        if dst_dtype not in row.count_only.get(spec.name, ()):
            entry(dst, *srcs[:1], *scalar, *srcs[1:], [2**64 - 1] * (2 if lanes == 128 else 1), 3, params)
print(sorted(seen - warmed))
"""


@pytest.mark.parametrize("device", ["ascend950", "atlas-a2"])
def test_warmup_compiles_every_elementwise_walk(device):
    """Issue 20: after the "elementwise" and "registry" rows, a count or strided high-dim call of any element-wise
    row and dtype (default config) finds its kernel entry warmed: the same kernel and argument types (dtype class
    markers included). Run with the compile replaced by a recording stub, so nothing compiles."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    out = subprocess.run([sys.executable, "-c", _ENTRY_KEYS, device], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["[]"]
