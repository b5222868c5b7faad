"""The sanitizer's cost (issue 17): each call with the sanitizer off (the default: one attribute test) and on (every
check, report mode so the loop keeps going), in the same run.

    python -m pytest benchmarks/test_bench_sanitizer.py --benchmark-enable --benchmark-json=out/san.json
    python benchmarks/report.py out/san.json
"""
import pytest

import ascend_jit as aj
from conftest import half_tensors

N = 8320


def _core(sanitize):
    core = aj.Core("atlas-a2", sanitize="report" if sanitize else False)
    if sanitize:
        core.sanitizer.host_write(0, core.spec.ub_bytes)   # a warmed-up kernel: every byte written once
    return core


@pytest.mark.benchmark(group="sanitizer-add-8320")
@pytest.mark.parametrize("sanitize", [False, True], ids=["off", "on"])
def test_add_8320(benchmark, sanitize, rng):
    core = _core(sanitize)
    d, a, b = half_tensors(core, N, 3, rng)
    benchmark(aj.Add, d, a, b, N)


@pytest.mark.benchmark(group="sanitizer-reducesum-8320")
@pytest.mark.parametrize("sanitize", [False, True], ids=["off", "on"])
def test_reduce_sum_8320(benchmark, sanitize, rng):
    core = _core(sanitize)
    dst, src, tmp = half_tensors(core, 16, 1, rng) + half_tensors(core, N, 1, rng) + half_tensors(core, 128, 1, rng)
    benchmark(aj.ReduceSum, dst, src, tmp, N)


@pytest.mark.benchmark(group="sanitizer-tiled-sum-1mi")
@pytest.mark.parametrize("sanitize", [False, True], ids=["off", "on"])
def test_tiled_reduce_sum_1mi(benchmark, sanitize):
    from ascend_jit.kernels import tiled_reduce_sum as tr
    inputs = tr.make_inputs(1 << 20, 1)

    def run():
        with aj.sanitize_session("report" if sanitize else False):
            return tr.run("atlas-a2", inputs)
    benchmark.pedantic(run, rounds=3, warmup_rounds=1)
