"""The accumulation-order study as a library."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit import study


def test_report_structure_and_progress():
    calls = []
    r = study.run_study(n=1000, trials=6, devices="atlas-a2,atlas-training,950", dist="lognormal",
                        progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (6, 6) and [c[0] for c in calls] == sorted({c[0] for c in calls})  # chunks of trials
    labels = [v["variant"] for v in r["variants"]]
    assert "atlas-a2 count (tree-seq)" in labels and "what-if fp32 accumulator" in labels
    assert len(r["disagreement"]) == len(labels) and all(len(e) == 6 for e in r["ulp_errors"].values())
    for v in r["variants"]:
        assert 0 <= v["ulp_p50"] <= v["ulp_p99"] <= v["ulp_max"] and v["bound_ulp_mean"] >= 0
        assert 0 <= v["rel_p50"] <= v["rel_p90"] <= v["rel_p99"] <= v["rel_max"]
    assert "most different pairs" in study.format_table(r) or r["device_variants_disagree_fraction"] == 0


def test_threads_give_the_same_report_bit_for_bit():
    """The variants run in threads (one per host core by default): the report does not depend on how many."""
    one, two, three = (study.run_study(n=1000, trials=5, devices="atlas-a2,950", dist="cancel", seed=4, threads=k)
                       for k in (1, 2, 3))
    for r in (two, three):
        assert r["ulp_errors"] == one["ulp_errors"] and r["variants"] == one["variants"]


def test_emulated_variants_match_the_api():
    """The study's numbers come from the emulator: re-run one trial through the public API."""
    r = study.run_study(n=700, trials=1, devices="atlas-a2", seed=9)
    x = study.draw_inputs(np.random.default_rng(9), 700, "normal", np.float16)
    core = aj.Core("atlas-a2")
    src, dst, tmp = core.local_tensor("half", 768), core.local_tensor("half", 16), core.local_tensor("half", 64)
    src[:] = np.concatenate([x, np.zeros(68, np.float16)])
    aj.ReduceSum(dst, src, tmp, 700)
    err = abs(float(dst.numpy()[0]) - r["exact"][0]) / study.ulp_of(r["exact"][0], np.float16)
    assert err == pytest.approx(r["ulp_errors"]["atlas-a2 count (tree-seq)"][0])


def test_cancel_distribution_and_float():
    r = study.run_study(dtype="float", n=2000, trials=3, dist="cancel", devices="ascend950")
    assert {v["variant"] for v in r["variants"]} >= {"what-if fp64 accumulator", "ascend950 count (vadd-tree)"}


@pytest.mark.parametrize("kwargs", [dict(dist="cauchy"), dict(n=1), dict(trials=0), dict(dtype="int16"),
                                    dict(devices="nosuch"), dict(n=10**7)])
def test_refusals(kwargs):
    with pytest.raises(aj.AscendJitError):
        study.run_study(**{"trials": 2, **kwargs})
