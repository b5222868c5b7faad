"""Per-call cost of the one-repeat ReduceSum (issue 21: at most 2x numpy float32's sum of the same 128 elements),
count form and high-dim form, next to numpy in the same run:

    python -m pytest benchmarks/test_bench_reductions.py --benchmark-enable --benchmark-min-rounds=500 \\
        [--benchmark-timer=time.process_time] --benchmark-json=out/reductions.json
    python benchmarks/report.py out/reductions.json
The other issue 21 reduction targets (ReducePairElem, masked high-dim, the 950 counts) are in benchmarks/dispatch.py.
"""
import numpy as np
import pytest

import ascend_jit as aj
from conftest import half_tensors


@pytest.mark.benchmark(group="reducesum-one-repeat")
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950", "atlas-training"])
def test_reduce_sum_half_one_repeat_count_emu(benchmark, device, rng):
    core = aj.Core(device)
    (src,) = half_tensors(core, 128, 1, rng)
    dst, tmp = core.local_tensor("half", 16), core.local_tensor("half", 128)
    benchmark(aj.ReduceSum, dst, src, tmp, 128)


@pytest.mark.benchmark(group="reducesum-one-repeat")
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950", "atlas-training"])
def test_reduce_sum_half_one_repeat_high_dim_emu(benchmark, device, rng):
    core = aj.Core(device)
    (src,) = half_tensors(core, 128, 1, rng)
    dst, tmp = core.local_tensor("half", 16), core.local_tensor("half", 128)
    benchmark(aj.ReduceSum, dst, src, tmp, 128, 1, 8)


@pytest.mark.benchmark(group="reducesum-one-repeat")
def test_reduce_sum_one_repeat_np_float32(benchmark, rng):
    x = rng.standard_normal(128).astype(np.float32)
    benchmark(np.sum, x)
