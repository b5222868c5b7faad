"""`ascend-jit warmup` (issue 20): the family table resolves, each family warms every device, bad names are refused."""
import io

import pytest

import ascend_jit as aj
from ascend_jit import warmup
from ascend_jit.cli import main


def test_every_family_resolves_to_a_function():
    assert set(warmup.FAMILIES) >= {"elementwise", "reduce_sum", "reduce_pair", "reg", "study", "registry"}
    for family in warmup.FAMILIES:
        assert callable(warmup.warmup_function(family))


def test_warmup_runs_every_family_and_reports_seconds():
    steps = []
    seconds = warmup.run_warmup(devices=["atlas-a2", "ascend950", "910"],
                                progress=lambda done, total, label: steps.append((done, total, label)))
    assert list(seconds) == list(warmup.FAMILIES) and all(s >= 0 for s in seconds.values())
    total = 3 * len(warmup.FAMILIES)
    assert [s[0] for s in steps] == list(range(total + 1)) and steps[0][2] == "elementwise on atlas-a2"


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


def test_progress_bar_is_silent_off_a_terminal():
    assert warmup.progress_bar(io.StringIO()) is None
