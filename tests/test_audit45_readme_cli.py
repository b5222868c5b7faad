"""Audit 45: a new user's pass over README.md and the `ascend-jit` command line, every command and example tried as
written; the mistakes a new user makes must end in one clear line naming the option and a non-zero exit, before any
work is done (docs/decisions.md: every refusal names API, parameter, value and legal range).

The CLI is called in-process through `cli.main` (as tests/test_cli.py does for its refusals): every case here is
refused before a kernel runs, except the golden check, which runs the seed `add` kernel on two devices."""
import re
from pathlib import Path

import pytest

from ascend_jit import cli

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["reduce_sum_count", "add"])
def test_found_run_negative_seed_is_refused_by_name(name, capsys):
    # study and sweep refuse --seed -1 by name; run said numpy's "expected non-negative integer" (reduce_sum_count)
    # or ran and printed "seed -1" (add, whose seed picks nothing)
    assert cli.main(["run", name, "--seed", "-1"]) == 2
    captured = capsys.readouterr()
    assert "parameter '--seed' = -1" in captured.err and ">= 0" in captured.err
    assert not captured.out


@pytest.mark.parametrize("argv", [["study", "--trials", "1", "--n", "128", "--json", "{dir}"],
                                  ["run", "add", "--sanitize", "--sanitize-json", "{dir}"]])
def test_found_output_path_that_is_a_folder_is_refused_before_the_work(argv, tmp_path, capsys):
    # was "[Errno 21] Is a directory" after the whole study (or the sanitized run and its report) had run
    argv = [a.format(dir=tmp_path) for a in argv]
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert re.search(r"parameter '--(json|sanitize-json)'", captured.err) and "is a folder" in captured.err
    assert not captured.out   # neither the study table nor "sanitizer: no reports"


def test_found_gallery_kernel_outside_a_checkout_says_where_the_gallery_is(tmp_path, monkeypatch, capsys):
    # README: `ascend-jit run add_custom`; outside the checkout the refusal listed the nine built-in kernels and
    # said nothing of the gallery, which is found from the current directory (README "Kernels")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["run", "add_custom"]) == 2
    err = capsys.readouterr().err
    assert "parameter 'NAME' = 'add_custom'" in err and "inside the checkout" in err
    monkeypatch.chdir(ROOT)   # inside it, a misspelt name is just that: no word of checkouts
    assert cli.main(["run", "add_custm"]) == 2
    err = capsys.readouterr().err
    assert "parameter 'NAME' = 'add_custm'" in err and "checkout" not in err


def test_found_golden_check_names_the_cli_command_for_a_missing_golden(tmp_path, capsys):
    # the hint was check_golden's "(record it with --update-goldens or record_golden)": a pytest option and a
    # Python function, neither of them something `ascend-jit golden check` takes
    assert cli.main(["golden", "record", str(tmp_path), "--kernels", "add", "--devices", "a2"]) == 0
    capsys.readouterr()
    assert cli.main(["golden", "check", str(tmp_path), "--kernels", "add", "--devices", "a2,a3"]) == 1
    out = capsys.readouterr().out
    assert "FAIL add.atlas-a3." in out and "FAIL add.atlas-a2." not in out
    assert f"ascend-jit golden record {tmp_path} --kernels add --devices atlas-a3" in out
    assert "--update-goldens" not in out
    passed, failed = map(int, re.search(r"(\d+) passed, (\d+) failed", out).groups())
    assert passed > 0 and failed == passed   # the same outputs on both devices: half recorded, half missing


@pytest.mark.parametrize("devices,words", [("atlas-inference-vectorcore", "Vector Core does not offer"),
                                           ("a2,310p-vectorcore", "Vector Core does not offer"),
                                           ("", "parameter 'device' = ''")])
def test_found_warmup_refuses_a_device_it_cannot_warm(devices, words, capsys):
    # the Vector Core (refused by every API, D13) was "warmed" in 0.0 s with exit 0; an empty --devices warmed every
    # device, where study and sweep refuse the empty name
    assert cli.main(["warmup", "--devices", devices, "--families", "reduce_pair"]) == 2
    captured = capsys.readouterr()
    assert words in captured.err and "family" not in captured.out


def test_found_warmup_refuses_an_empty_family_list(capsys):
    # --families "" warmed every family on every device (a minute and more of compiling), not the empty name
    assert cli.main(["warmup", "--families", "", "--devices", "a2"]) == 2
    assert "parameter 'family' = ''" in capsys.readouterr().err


def test_found_sweep_refuses_more_local_workers_than_it_can_start(tmp_path, capsys):
    # --workers 9999 started local Dask worker processes until the file descriptors ran out: tens of thousands of
    # traceback lines and no end; it is now refused before any cluster starts, naming the range
    assert cli.main(["sweep", "--workers", "9999", "--sizes", "128", "--trials", "1", "--out",
                     str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "parameter 'workers' = 9999" in err and "--scheduler" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def _readme_gallery_names():
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Kernels: a gallery"):text.index("## Sweeps")]
    names = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            names.update(re.findall(r"`(\w+)`", line.split("|")[1]))
    return names


def test_found_readme_gallery_table_names_every_gallery_kernel():
    # the table is the README's list of the gallery (`ascend-jit run --list` inside the checkout); gelu_reg,
    # softmax_reg and the Reg muls / abs / select examples ran but were in no row
    from ascend_jit.kernels import _MODULES, registry
    kernels = registry(ROOT)
    built_in = {m.KERNEL.name for m in map(__import__("importlib").import_module,
                                           (f"ascend_jit.kernels.{m}" for m in _MODULES))}
    names = _readme_gallery_names()
    assert not names - set(kernels), "README rows naming no kernel"
    assert not set(kernels) - built_in - names, "gallery kernels in no README row"


@pytest.mark.parametrize("option,words", [("--kernels", "parameter '--kernels' = ''"),
                                          ("--devices", "parameter 'device' = ''")])
def test_found_golden_refuses_an_empty_kernel_or_device_list(option, words, tmp_path, capsys):
    # an empty value read as "all": `golden record DIR --kernels ""` recorded every kernel on every device
    assert cli.main(["golden", "record", str(tmp_path), option, ""]) == 2
    assert words in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("form, dtype, n", [("count", "half", 98305), ("highdim", "float", 10**8)])
def test_explain_refuses_more_elements_than_the_ub_holds(form, dtype, n, capsys):
    # a tree of 1e8 leaves had run for minutes and gigabytes (audit 45r's open question); no call reduces more than
    # the UB holds (atlas-a2: 196608 bytes)
    assert cli.main(["explain", "--device", "A2", "--form", form, "--dtype", dtype, "--n", str(n)]) == 2
    captured = capsys.readouterr()
    assert "parameter '--n'" in captured.err and f"at most {196608 // (2 if dtype == 'half' else 4)}" in captured.err
    assert not captured.out
