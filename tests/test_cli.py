"""The ascend-jit command line, through subprocess like a user runs it."""
import json
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.child_processes(seconds=45)


def cli(*args):
    return subprocess.run([sys.executable, "-m", "ascend_jit.cli", *args], capture_output=True, text=True,
                          timeout=600)


def test_devices():
    r = cli("devices")
    assert r.returncode == 0 and "atlas-a2" in r.stdout and "tree-seq" in r.stdout and "refused" in r.stdout


def test_run_list_and_kernels():
    r = cli("run", "--list")
    assert r.returncode == 0 and "tiled_reduce_sum" in r.stdout
    r = cli("run", "reduce_sum_count", "--device", "910B")
    assert r.returncode == 0 and "PASS" in r.stdout and "atlas-a2" in r.stdout and "elements/s" in r.stdout
    r = cli("run", "tiled_add", "--device", "310P", "--size", "5000", "--seed", "3")
    assert r.returncode == 0 and "bit-exact" in r.stdout


def test_study_table_json_and_plot(tmp_path):
    out = tmp_path / "s.json"
    args = ["study", "--trials", "20", "--json", str(out)]
    try:
        import matplotlib  # noqa: F401
        args += ["--plot", str(tmp_path / "s.png")]
    except ImportError:
        pass
    r = cli(*args)
    assert r.returncode == 0, r.stderr
    assert "atlas-a2 count (tree-seq)" in r.stdout and "what-if sequential" in r.stdout
    report = json.loads(out.read_text())
    labels = [v["variant"] for v in report["variants"]]
    a2 = report["variants"][labels.index("atlas-a2 count (tree-seq)")]
    tt = report["variants"][labels.index("atlas-training count (tree-tree+tail)")]
    assert a2["ulp_mean"] != tt["ulp_mean"]  # the A2/A3 count form visibly differs from the tree-tree devices
    if "--plot" in args:
        assert (tmp_path / "s.png").stat().st_size > 10_000


def test_explain_formats():
    r = cli("explain", "--device", "a2", "--n", "300")
    assert r.returncode == 0 and "x[0]" in r.stdout
    r = cli("explain", "--device", "950", "--n", "300", "--format", "json")
    assert json.loads(r.stdout)["adds"] > 0
    r = cli("explain", "--device", "910", "--n", "40", "--format", "dot")
    assert r.stdout.startswith("digraph")


def test_golden_record_and_check(tmp_path):
    r = cli("golden", "record", str(tmp_path), "--kernels", "reduce_sum_count,add", "--devices", "a2,950")
    assert r.returncode == 0, r.stderr
    r = cli("golden", "check", str(tmp_path), "--kernels", "reduce_sum_count,add", "--devices", "a2,950")
    assert r.returncode == 0 and "0 failed" in r.stdout
    import numpy as np
    from ascend_jit.testing import load_golden, record_golden
    arr, meta = load_golden("reduce_sum_count.atlas-a2.dst", tmp_path)
    arr = arr.copy()
    arr[0] = np.float16(289)
    record_golden("reduce_sum_count.atlas-a2.dst", arr, tmp_path, device="atlas-a2")
    r = cli("golden", "check", str(tmp_path), "--kernels", "reduce_sum_count", "--devices", "a2")
    assert r.returncode == 1 and "FAIL reduce_sum_count.atlas-a2.dst" in r.stdout and "ulp" in r.stdout


@pytest.mark.parametrize("args,needle", [(("run", "nosuch"), "NAME"), (("run", "add", "--device", "tpu"), "device"),
                                         (("study", "--n", "99999999"), "n"), (("study", "--dtype", "int8"), "dtype"),
                                         (("explain", "--device", "a2", "--n", "0"), "count"),
                                         (("run", "tiled_add", "--size", "-4"), "size"),
                                         (("run", "sasum", "--device", "atlas-training", "--sanitize"),
                                          "'device' = 'atlas-training' (legal: ascend950, atlas-a3, atlas-a2)")])
def test_user_errors_are_one_line(args, needle, cli_in_process):
    r = cli_in_process(*args)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert needle in r.stderr
    assert len(r.stderr.strip().splitlines()) <= 3


@pytest.mark.parametrize("body", ["KERNEL = 5\n", "KERNELS = [None]\n"])
def test_a_kernel_file_without_kernel_specs_is_one_line(tmp_path, body):
    """audit17h (SPEC-2 1.8): `KERNEL = 5` ended `ascend-jit run file.py` in an AttributeError traceback."""
    path = tmp_path / "not_a_kernel.py"
    path.write_text(body)
    r = cli("run", str(path))
    assert r.returncode == 2 and "Traceback" not in r.stderr and "kernel file" in r.stderr, r.stderr


@pytest.mark.skipif(open("/proc/sys/vm/overcommit_memory").read().strip() == "1",
                    reason="the 7 TiB input would be granted and filled, not refused")
def test_a_size_the_host_cannot_hold_is_one_line():
    # softmax_grad's size rule (whole rows) has no upper bound: its 7 TiB of input was numpy's MemoryError traceback
    r = cli("run", "softmax_grad", "--size", str(1001 * 10**9))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "out of host memory" in r.stderr and "--size" in r.stderr
    assert len(r.stderr.strip().splitlines()) <= 3


# --- regressions of issue 11, section 6 -------------------------------------------------------------------------------
def test_run_defaults_to_the_kernels_first_supported_device():
    r = cli("run", "reduce_data_block")
    assert r.returncode == 0 and "on ascend950" in r.stdout and "PASS" in r.stdout


def test_a_closed_stdout_ends_quietly():
    p = subprocess.Popen([sys.executable, "-m", "ascend_jit.cli", "run", "--list"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdout.close()  # the reader is gone before anything is written, as with `| head -1` on a long output
    err = p.stderr.read()
    assert p.wait(timeout=600) == 141 and err == b""


def test_golden_check_of_a_missing_folder(tmp_path):
    r = cli("golden", "check", str(tmp_path / "nope"))
    assert r.returncode == 2 and "does not exist" in r.stderr and "ascend-jit golden record" in r.stderr
    assert "FAIL" not in r.stdout


def test_study_plot_checks_matplotlib_before_the_study(tmp_path):
    fake = tmp_path / "matplotlib"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('no matplotlib here')\n")
    import os
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{os.getcwd()}")
    r = subprocess.run([sys.executable, "-m", "ascend_jit.cli", "study", "--trials", "100000", "--plot",
                        str(tmp_path / "s.png")], capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 2 and "matplotlib" in r.stderr and r.stdout == ""


def test_explain_refuses_what_reduce_sum_refuses():
    r = cli("explain", "--device", "atlas-training", "--dtype", "float", "--n", "300")
    assert r.returncode == 2 and "ReduceSum" in r.stderr and "float" in r.stderr and "atlas-training" in r.stderr


def test_every_option_has_a_help_line():
    import argparse

    from ascend_jit.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for verb, p in sub.choices.items():
        for action in p._actions:
            assert action.help and action.help != argparse.SUPPRESS, f"{verb} {action.option_strings or action.dest}"


# --- session 17 regression audit: options that did nothing, and a golden folder with no goldens -------------------
@pytest.mark.parametrize("option,value", [("--sanitize-json", "reports.json"), ("--sanitize-checks", "race")])
def test_sanitizer_options_without_sanitize_are_refused(option, value, tmp_path, capsys):
    from ascend_jit import cli as main_cli
    # they were silently ignored: no sanitized run, no JSON file, exit 0 (--plot without --compare-devices is refused)
    target = str(tmp_path / value) if option == "--sanitize-json" else value
    assert main_cli.main(["run", "add", option, target]) == 2
    captured = capsys.readouterr()
    assert f"parameter '{option}'" in captured.err and "with --sanitize" in captured.err and not captured.out
    assert not (tmp_path / "reports.json").exists()


def test_golden_check_of_a_folder_without_goldens_says_so(tmp_path, capsys):
    from ascend_jit import cli as main_cli
    # it ran every kernel and printed one "no golden ... --update-goldens or record_golden" failure per output
    assert main_cli.main(["golden", "check", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert "holds no golden files" in captured.err and "ascend-jit golden record" in captured.err
    assert not captured.out


def test_golden_refuses_an_unknown_kernel_before_recording_any(tmp_path, capsys):
    from ascend_jit import cli as main_cli
    assert main_cli.main(["golden", "record", str(tmp_path), "--kernels", "add,nosuch", "--devices", "a2"]) == 2
    assert "'--kernels' = 'nosuch'" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # add's goldens were written before the refusal


def test_a_bad_worker_count_is_named_as_the_option(capsys):
    from ascend_jit import cli as main_cli
    with pytest.raises(SystemExit) as info:
        main_cli.main(["sweep", "--workers", "abc"])
    assert info.value.code == 2 and "invalid workers value: 'abc'" in capsys.readouterr().err


@pytest.mark.parametrize("dtype,mask", [("float", "128"), ("half", "200")])
def test_explain_highdim_covers_n_elements_when_the_mask_is_clamped(dtype, mask, capsys):
    from ascend_jit import cli as main_cli
    # a mask above the lanes counts as the lanes (D15): repeats were ceil(n / mask), so float's default mask 128 on
    # 64 lanes explained elements 0..191 of 300, and half's mask 200 elements 0..255
    assert main_cli.main(["explain", "--device", "a2", "--form", "highdim", "--dtype", dtype, "--n", "300",
                          "--mask", mask, "--format", "json"]) == 0
    tree = json.loads(capsys.readouterr().out)["tree"]
    assert max(int(i) for i in re.findall(r"\d+", json.dumps(tree))) >= 299


@pytest.mark.parametrize("mask", ["0", "-3"])
def test_explain_refuses_a_mask_below_one_in_one_line(mask, capsys):
    from ascend_jit import cli as main_cli
    # mask 0 was a ZeroDivisionError traceback; -3 was refused as "repeat_time = -100"
    assert main_cli.main(["explain", "--device", "a2", "--form", "highdim", "--n", "300", "--mask", mask]) == 2
    err = capsys.readouterr().err
    assert f"parameter '--mask' = {mask}" in err and len(err.strip().splitlines()) == 1


def test_study_refuses_a_negative_seed_and_a_missing_output_folder_before_running(tmp_path, capsys):
    from ascend_jit import cli as main_cli
    # the seed was numpy's "expected non-negative integer"; a --json in a missing folder failed after the whole study
    assert main_cli.main(["study", "--seed", "-1", "--trials", "2"]) == 2
    assert "study: parameter 'seed' = -1" in capsys.readouterr().err
    assert main_cli.main(["study", "--trials", "2", "--json", str(tmp_path / "no" / "s.json")]) == 2
    captured = capsys.readouterr()
    assert "parameter '--json'" in captured.err and "folder does not exist" in captured.err and not captured.out


def test_run_refuses_a_sanitizer_report_path_in_a_missing_folder_before_running(tmp_path, capsys):
    from ascend_jit import cli as main_cli
    assert main_cli.main(["run", "add", "--sanitize", "--sanitize-json", str(tmp_path / "no" / "r.json")]) == 2
    captured = capsys.readouterr()
    assert "parameter '--sanitize-json'" in captured.err and not captured.out  # was: the runs, then Errno 2


def test_run_of_a_file_with_several_kernels_says_so_and_takes_kernel(tmp_path, capsys):
    """reg38: `ascend-jit run file.py` ran the first of the file's KERNELS without a word; it now says which it
    ran and what else the file defines, and --kernel NAME picks one (refused without a file, or naming none)."""
    from ascend_jit import cli as main_cli
    path = tmp_path / "two.py"
    path.write_text("from ascend_jit.kernels import registry\n_r = registry()\n"
                    "KERNELS = [_r['add_custom'], _r['leaky_relu']]\n")
    assert main_cli.main(["run", str(path)]) == 0
    out = capsys.readouterr().out
    assert "defines 2 kernels; running the first, add_custom (the others: leaky_relu" in out
    assert "add_custom on" in out and "PASS" in out
    assert main_cli.main(["run", str(path), "--kernel", "leaky_relu"]) == 0
    out = capsys.readouterr().out
    assert "defines" not in out and "leaky_relu on" in out and "PASS" in out
    assert main_cli.main(["run", str(path), "--kernel", "nosuch"]) == 2
    assert "'--kernel' = 'nosuch'" in capsys.readouterr().err
    assert main_cli.main(["run", "add_custom", "--kernel", "add_custom"]) == 2
    assert "with a .py file NAME" in capsys.readouterr().err


DEVICE_SYNC_KERNEL = '''
import numpy as np
import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec


def make_inputs(size, seed):
    return {"x": np.arange(size, dtype=np.float32)}


def run(device, inputs):
    with aj.Core(device):
        pipe, q = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, inputs["x"].nbytes)
        g = aj.GlobalTensor("float")
        g.SetGlobalBuffer(inputs["x"].copy())
        t = q.AllocTensor("float")
        aj.DataCopy(t, g, inputs["x"].size)
        q.EnQue(t)
        t = q.DeQue("float")
        first = t.GetValue(0)   # a scalar read the queue's MTE2 -> V event does not order on the device
        q.FreeTensor(t)
    return {"first": np.array([first], np.float32)}


def expected(device, inputs):
    return {"first": inputs["x"][:1].copy()}


KERNEL = KernelSpec("dequeued_scalar_read", "a GetValue of a dequeued VECIN tile", make_inputs, run, expected,
                    default_size=64, devices=("atlas-a2",))
'''


def test_run_sanitize_checks_keeps_device_sync(tmp_path, capsys):
    """`--sanitize-checks device-sync` was accepted and dropped (the run rebuilt the config without it), so a scalar
    read of a dequeued tile, a race under the device's synchronisation, passed as "no reports" (session 51)."""
    from ascend_jit import cli as main_cli
    path = tmp_path / "dequeued_scalar_read.py"
    path.write_text(DEVICE_SYNC_KERNEL)
    assert main_cli.main(["run", str(path), "--sanitize"]) == 0
    assert "no reports" in capsys.readouterr().out
    assert main_cli.main(["run", str(path), "--sanitize", "--sanitize-checks", "race,device-sync"]) == 1
    out = capsys.readouterr().out
    assert "GetValue" in out and "PIPE_MTE2" in out and "PIPE_S" in out
