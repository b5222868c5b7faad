"""kernels/softmax_reg.py (issue 16, issue 18 item 8): the devkit's Reg-API softmax VF against the Memory-API softmax
(kernels/softmax.py) on the same inputs: the max and the subtraction bit for bit, Exp within SPEC-2 0.3's 1 ulp, the
result within the two kernels' stated tolerances; compiled and plain VF runs give the same bits."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import gallery_dir, load_file
from ascend_jit.kernels._base import within_tolerance

D950 = "ascend950"


def _gallery_module(stem):
    """The gallery file's module, loaded as `ascend-jit run` loads it (so its VF is the disk-cached one)."""
    import sys
    return sys.modules[load_file(gallery_dir() / f"{stem}.py")[0].run.__module__]


@pytest.fixture(scope="module")
def S():
    return _gallery_module("softmax_reg")


@pytest.fixture(scope="module")
def reg_softmax(S):
    return S.KERNEL


@pytest.fixture(scope="module")
def mem_softmax():
    return _gallery_module("softmax").KERNEL


def _rows(n, dtype, seed=3):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, 1024)) * 3).astype(dtype)


def _reg_stage(S, x, stop_after):
    """The Reg VF run up to `stop_after` on one tile (x has at most 8 rows): the exp tile as float rows."""
    rows, r_dim = x.shape
    dtype = "half" if x.dtype == np.float16 else "float"
    with aj.Core(D950):
        exp_t, _ = S.softmax_kernel(x.reshape(-1), np.zeros_like(x).reshape(-1), rows, r_dim, dtype, rows,
                                    stop_after=stop_after)
        return exp_t.numpy().reshape(rows, r_dim)


def _memory_stages(x):
    """The first instructions kernels/softmax.py's custom_softmax runs on the 950 (Cast for half, ReduceMax with its
    source as tmp, Duplicate of the max, Sub, Exp), on the same rows: (max per row, x - max, exp)."""
    rows, n = x.shape
    core = aj.Core(D950)
    src = core.local_tensor("half" if x.dtype == np.float16 else "float", n)
    f, m, e = (core.local_tensor("float", n) for _ in range(3))
    maxima, subs, exps = [], [], []
    with core:
        for row in x:
            src[:] = row
            if x.dtype == np.float16:
                aj.Cast(f, src, aj.RoundMode.CAST_NONE, n)
            else:
                aj.Duplicate(f, 0.0, n)
                aj.Add(f, f, src, n)   # an exact copy (x + 0 = x for every finite x but -0, absent here)
            aj.ReduceMax(m, f, f, n)
            maxima.append(m.numpy()[0])
            aj.Duplicate(m, m, n)
            aj.Sub(e, f, m, n)
            subs.append(e.numpy().copy())
            aj.Exp(e, e, n)
            exps.append(e.numpy().copy())
    return np.array(maxima, np.float32), np.array(subs), np.array(exps)


@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync",
                             reason="stops the VF early (the kernel's stop_after test hook): the kernel then copies "
                                    "out a y tile nothing wrote; only its exp tile is checked")
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_max_and_subtraction_are_the_memory_api_softmax_bit_for_bit(S, dtype):
    x = _rows(8, dtype)
    maxima, subs, exps = _memory_stages(x)
    reg_max = _reg_stage(S, x, S.STOP_AFTER_MAX)[:, 0]
    assert np.array_equal(reg_max.view(np.uint32), maxima.view(np.uint32))
    reg_sub = _reg_stage(S, x, S.STOP_AFTER_SUB)
    assert np.array_equal(reg_sub.view(np.uint32), subs.view(np.uint32))
    reg_exp = _reg_stage(S, x, S.STOP_AFTER_EXP)   # MODELLED: SPEC-2 0.3's 1 ulp for the 950's Exp
    ulps = np.abs(reg_exp.view(np.int32).astype(np.int64) - exps.view(np.int32).astype(np.int64))
    assert ulps.max() <= 1


def test_result_matches_the_memory_api_softmax_with_a_tail_tile(reg_softmax, mem_softmax):
    """13 rows: a full tile of 8 and a tail of 5; one row entirely below FLT_MIN (the original's max seed is then
    the shift: the result is still a softmax)."""
    x = _rows(13, np.float16)
    x[4] = -np.abs(x[4]) - 1
    inputs = {"x": x}
    reg = reg_softmax.run(D950, inputs)["y"]
    mem = mem_softmax.run(D950, inputs)["y"]
    # each within its own tolerance of float64 (2**-10 and 2**-9), so within 2**-9 of each other (FLOOR vs RINT)
    assert within_tolerance(reg, reg_softmax.expected(D950, inputs)["y"], reg_softmax.tolerance)[0]
    assert within_tolerance(reg, mem.astype(np.float64), 2.0 ** -9)[0]


def test_compiled_and_plain_vf_give_the_same_bits(reg_softmax):
    inputs = {"x": _rows(9, np.float16, seed=5)}
    compiled = reg_softmax.run(D950, inputs)["y"]
    plain = reg_softmax.run(D950, inputs, compiled=False)["y"]
    assert np.array_equal(compiled.view(np.uint16), plain.view(np.uint16))


def test_the_reg_softmax_runs_on_the_950_only(reg_softmax):
    assert reg_softmax.devices == (D950,) and reg_softmax.fidelity == "MODELLED"
    with pytest.raises(aj.UnsupportedDeviceError):
        reg_softmax.execute("atlas-a2")
