"""The gallery softmax's kernel-level hotspots (issue 18), each call as the softmax makes it on atlas-a2 (15 rows of
1024 floats a tile), next to numpy float32 on the same elements in the same run:

    python -m pytest benchmarks/test_bench_hotspots.py --benchmark-enable --benchmark-timer=time.process_time \\
        --benchmark-json=out/hotspots.json
    python benchmarks/report.py out/hotspots.json

Exp of 15,360 floats (table-driven vectorised pass, jit/lanes.py exp_float_run), Brcb of 15 repeats (uint64 block
stores), WholeReduceMax/Min over 240 whole repeats (int32 key scans), WholeReduceSum under a 16-lane mask (prefix
decode), and a high-dim Sub whose src1 broadcasts one block per repeat (block stride 0: runs in copy_lanes).
"""
import numpy as np
import pytest

import ascend_jit as aj

N = 15 * 1024


@pytest.fixture
def floats(rng):
    core = aj.Core("atlas-a2")
    x = core.local_tensor("float", N, addr=0)
    y = core.local_tensor("float", N, addr=65536)
    x[:] = -np.abs(rng.standard_normal(N).astype(np.float32)) * 4   # softmax's x - max: at most 0
    small = core.local_tensor("float", 512, addr=131072)
    small[:] = rng.standard_normal(512).astype(np.float32)
    return core, x, y, small


@pytest.mark.benchmark(group="hotspot-exp")
def test_exp_float_15360_emu(benchmark, floats):
    core, x, y, _ = floats
    benchmark(aj.Exp, y, x, N)


@pytest.mark.benchmark(group="hotspot-exp")
def test_exp_float_15360_np_float32(benchmark, rng):
    x = -np.abs(rng.standard_normal(N).astype(np.float32)) * 4
    benchmark(np.exp, x)


@pytest.mark.benchmark(group="hotspot-brcb")
def test_brcb_15_repeats_emu(benchmark, floats):
    core, x, y, small = floats
    benchmark(aj.Brcb, x, small, 15, aj.BrcbRepeatParams(1, 128))


@pytest.mark.benchmark(group="hotspot-brcb")
def test_brcb_15_repeats_np_float32(benchmark, rng):
    v = rng.standard_normal(120).astype(np.float32)
    benchmark(np.repeat, v, 8)


@pytest.mark.benchmark(group="hotspot-whole-reduce-max")
@pytest.mark.parametrize("api", ["WholeReduceMax", "WholeReduceMin"])
def test_whole_reduce_extreme_240_repeats_emu(benchmark, floats, api):
    core, x, y, small = floats
    benchmark(getattr(aj, api), small, x, 64, 240, 1, 1, 8, aj.ReduceOrder.ORDER_ONLY_VALUE)


@pytest.mark.benchmark(group="hotspot-whole-reduce-max")
def test_whole_reduce_extreme_240_repeats_np_float32(benchmark, rng):
    x = rng.standard_normal((240, 64)).astype(np.float32)
    benchmark(np.max, x, axis=1)


@pytest.mark.benchmark(group="hotspot-whole-reduce-sum-mask16")
def test_whole_reduce_sum_mask16_15_repeats_emu(benchmark, floats):
    core, x, y, small = floats
    benchmark(aj.WholeReduceSum, small, x, 16, 15, 1, 1, 2)


@pytest.mark.benchmark(group="hotspot-whole-reduce-sum-mask16")
def test_whole_reduce_sum_mask16_15_repeats_np_float32(benchmark, rng):
    x = rng.standard_normal((15, 16)).astype(np.float32)
    benchmark(np.sum, x, axis=1)


@pytest.mark.benchmark(group="hotspot-sub-broadcast-block")
def test_sub_broadcast_block_240_repeats_emu(benchmark, floats):
    core, x, y, small = floats
    benchmark(aj.Sub, y, x, small, 64, 240, aj.BinaryRepeatParams(1, 1, 0, 8, 8, 0))


@pytest.mark.benchmark(group="hotspot-sub-broadcast-block")
def test_sub_broadcast_block_240_repeats_np_float32(benchmark, rng):
    x, b = rng.standard_normal((240, 8, 8)).astype(np.float32), rng.standard_normal((240, 1, 8)).astype(np.float32)
    benchmark(np.subtract, x, b)
