"""The gallery's speed targets (issue 18): softmax over a 1024 x 1024 half matrix (the Memory-API kernel on two
devices, and the Reg API one on the 950) and RMSNorm over 1024 rows of 4096 halves, end to end through the kernel on
one core (one block), each next to its numpy float32 formula on the same data in the same run.

    python -m pytest benchmarks/test_bench_gallery.py --benchmark-enable --benchmark-timer=time.process_time
    python -m pytest benchmarks/test_bench_gallery.py --benchmark-enable        # wall clock

elements/s = 1024 * 1024 (softmax) or 1024 * 4096 (RMSNorm) / the benchmark's time. process_time counts the CPU
time of the process, so a machine shared with other jobs measures the kernel, not the queue for a core.
"""
import numpy as np
import pytest

from ascend_jit.kernels import registry

KERNELS = registry()
SOFTMAX_ROWS, SOFTMAX_COLS = 1024, 1024
RMS_ROWS, RMS_COLS = 1024, 4096


@pytest.fixture(scope="module")
def softmax_inputs():
    return KERNELS["softmax"].make_inputs(SOFTMAX_ROWS * SOFTMAX_COLS, 0)


@pytest.fixture(scope="module")
def rms_inputs():
    return KERNELS["rmsnorm"].make_inputs(RMS_ROWS * RMS_COLS, 0)


@pytest.mark.benchmark(group="softmax-1024x1024", min_rounds=3, warmup=True)
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_softmax_1024x1024_emu(benchmark, device, softmax_inputs):
    k = KERNELS["softmax"]
    out = benchmark(k.run, device, softmax_inputs)
    assert out["y"].shape == (SOFTMAX_ROWS, SOFTMAX_COLS)


@pytest.mark.benchmark(group="softmax-1024x1024", min_rounds=3, warmup=True)
def test_softmax_reg_1024x1024_emu(benchmark, softmax_inputs):
    """The Reg API softmax (one VF per tile of 8 rows, float lanes: Cast, Max, Sub, Exp, Add, Div) on the same rows."""
    k = KERNELS["softmax_reg"]
    out = benchmark(k.run, "ascend950", softmax_inputs)
    assert out["y"].shape == (SOFTMAX_ROWS, SOFTMAX_COLS)


@pytest.mark.benchmark(group="softmax-1024x1024")
def test_softmax_1024x1024_np_float32(benchmark, softmax_inputs):
    x = softmax_inputs["x"]

    def softmax():
        v = x.astype(np.float32)
        e = np.exp(v - v.max(axis=1, keepdims=True))
        return (e / e.sum(axis=1, keepdims=True)).astype(np.float16)
    benchmark(softmax)


@pytest.mark.benchmark(group="rmsnorm-1024x4096", min_rounds=3, warmup=True)
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_rmsnorm_1024x4096_one_block_emu(benchmark, device, rms_inputs):
    k = KERNELS["rmsnorm"]
    out = benchmark(k.run, device, rms_inputs, blocks=1)
    assert out["y"].shape == (RMS_ROWS, RMS_COLS)


@pytest.mark.benchmark(group="rmsnorm-1024x4096")
def test_rmsnorm_1024x4096_np_float32(benchmark, rms_inputs):
    x, gamma = rms_inputs["x"], rms_inputs["gamma"]

    def rmsnorm():
        v = x.astype(np.float32)
        rstd = np.float32(1) / np.sqrt((v * v).mean(axis=1, keepdims=True) + np.float32(1e-6))
        return (v * rstd * gamma).astype(np.float16)
    benchmark(rmsnorm)
