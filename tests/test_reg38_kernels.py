"""Session 38's Reg ports (kernels/reg_load_store_align.py, reg_data_relayout.py, reg_merge_mode.py): each against an
independent numpy expectation written here (not the kernel's own `expected`), compiled (the suite makes
UncompiledVFWarning an error, so a VF falling back to plain Python fails) and plain; the gaps the ports worked
around, pinned as what ascend_jit does today."""

import numpy as np
import pytest

import ascend_jit as aj
from ported import module as _module

R = aj.Reg
D950 = "ascend950"


def _bits(a):
    return a.view(np.uint8).tobytes()


# ---- reg_load_store_align: five addressing scenarios of z = x + y over half

def _half_inputs(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(np.float16)
    y = rng.standard_normal(n).astype(np.float16)
    x[:6] = [np.inf, -np.inf, np.nan, 65504, -0.0, 6e-8]
    y[:6] = [1.0, 2.0, 3.0, 65504, -0.0, 6e-8]
    return {"x": x, "y": y}


def _align_want(scenario, x, y):
    with np.errstate(over="ignore"):                                        # 65504 + 65504: inf (INF/NaN mode)
        z = (x.astype(np.float32) + y.astype(np.float32)).astype(np.float16)  # exact in float32, one RNE to half
    if scenario == 4:                                                       # blocks 0, 2, 4, ... of 16 halves
        return np.concatenate([z[b * 16:(b + 1) * 16] for b in range(0, z.size // 16, 2)])
    if scenario == 5:                                                       # lane 0 of each 128-half step
        return np.array([z[(i // 128) * 128] for i in range(z.size)], np.float16)
    if scenario == 6:                                                       # z[i // 2]
        return z[np.arange(2 * z.size) // 2]
    return z


ALIGN = {2: "reg_align_post_update", 3: "reg_align_addr_reg", 4: "reg_align_data_block", 5: "reg_align_broadcast",
         6: "reg_align_upsample"}


@pytest.mark.parametrize("scenario", sorted(ALIGN))
@pytest.mark.parametrize("n", [1024, 1280])
def test_reg_load_store_align_scenarios_bit_exact(scenario, n):
    m = _module(ALIGN[scenario])
    inputs = _half_inputs(n, scenario)
    want = _align_want(scenario, inputs["x"], inputs["y"])
    got = m.run_scenario(scenario, D950, inputs)["z"]
    assert _bits(got) == _bits(want)


def test_reg_load_store_align_example_data_matches_gen_data_goldens():
    """gen_data.py: x = y = arange(1024) as half."""
    m = _module("reg_align_post_update")
    inputs = m.make_inputs(1024, 0)
    z = np.arange(1024, dtype=np.float32) * 2
    goldens = {2: z, 3: z, 4: z.reshape(32, 32)[:, :16].ravel(), 5: np.repeat(z[::128], 128), 6: np.repeat(z, 2)}
    for scenario, golden in goldens.items():
        got = m.run_scenario(scenario, D950, inputs)["z"]
        assert np.array_equal(got.astype(np.float32), golden), scenario


def test_reg_load_store_align_plain_vfs_agree():
    m = _module("reg_align_post_update")
    inputs = _half_inputs(512, 9)
    for scenario in ALIGN:
        assert _bits(m.run_scenario(scenario, D950, inputs, compiled=False)["z"]) == \
            _bits(m.run_scenario(scenario, D950, inputs)["z"])


# ---- reg_data_relayout: Interleave and Pack (worked around: data-register forms not offered)

@pytest.mark.parametrize("n", [128, 384])
def test_reg_interleave(n):
    m = _module("reg_interleave")
    rng = np.random.default_rng(n)
    x = rng.integers(0, 65536, n, dtype=np.uint16)
    y = rng.integers(0, 65536, n, dtype=np.uint16)
    want0, want1 = np.empty(n, np.uint16), np.empty(n, np.uint16)
    for s in range(n // 128):
        lo, hi = slice(s * 128, s * 128 + 64), slice(s * 128 + 64, s * 128 + 128)
        want0[s * 128:(s + 1) * 128:2], want0[s * 128 + 1:(s + 1) * 128:2] = x[lo], y[lo]
        want1[s * 128:(s + 1) * 128:2], want1[s * 128 + 1:(s + 1) * 128:2] = x[hi], y[hi]
    for compiled in (True, False):
        got = m.run_interleave(D950, {"x": x, "y": y}, compiled=compiled)
        assert np.array_equal(got["dst0"], want0) and np.array_equal(got["dst1"], want1)


@pytest.mark.parametrize("n", [128, 192])
def test_reg_pack(n):
    m = _module("reg_pack")
    x = np.random.default_rng(n).integers(0, 2**32, n, dtype=np.uint32)
    want = np.array([v % 65536 for v in x.tolist()], np.uint16)
    for compiled in (True, False):
        assert np.array_equal(m.run_pack(D950, {"x": x}, compiled=compiled)["dst"], want)


def test_data_register_interleave_and_pack_are_not_offered():
    """The gap the port works around (devkit R/数据重排/Interleave.md, R/数据压缩/Pack.md): R.Interleave / R.Pack
    take MaskRegs only."""
    core = aj.Core(D950)
    with core:
        a, b, c, d = (R.RegTensor("uint16") for _ in range(4))
        with pytest.raises(aj.ParameterError, match="MaskReg"):
            R.Interleave(c, d, a, b, "uint16")
        with pytest.raises(aj.ParameterError, match="MaskReg"):
            R.Pack(c, R.RegTensor("uint32"), R.HighLowPart.LOWEST)


# ---- reg_merge_mode: Max MERGING, Reduce MAX accumulated by Max

def _merge_want(x):
    n = x.size
    vec = 64
    y = np.full(-(-n // vec) * vec, 2.0, np.float32)
    y[:n] = np.maximum(x, x)
    best_val, best_idx = -np.inf, 0
    for v in range(y.size // vec):
        lanes = y[v * vec:(v + 1) * vec]
        k = int(np.flatnonzero(lanes == lanes.max())[0])                  # first lane attaining the max
        best_val, best_idx = max(best_val, float(lanes[k])), max(best_idx, k)
    out = np.zeros(8, np.float32)
    out[0] = best_val
    out.view(np.uint32)[1] = best_idx
    return out


@pytest.mark.parametrize("n", [200, 456, 512])
def test_reg_merge_mode(n):
    m = _module("reg_merge_mode")
    x = np.random.default_rng(n).uniform(-100, -1, n).astype(np.float32)
    want = _merge_want(x)
    for compiled in (True, False):
        assert _bits(m.run(D950, {"x": x}, compiled=compiled)["y"]) == _bits(want)


def test_reg_merge_mode_example_lane_one_is_the_index_pattern():
    """The example's golden prints lane 1 as 0; the device writes Reduce's index there (the largest first-argmax lane
    of the four vectors' Reduces, accumulated by Max), a subnormal within the example's 1e-4 check."""
    m = _module("reg_merge_mode")
    x = m.make_inputs(200, 0)["x"]
    y = m.run(D950, {"x": x})["y"]
    vectors = np.concatenate([x, np.full(56, 2.0, np.float32)]).reshape(4, 64)
    assert y[0] == 2.0 and y.view(np.uint32)[1] == vectors.argmax(axis=1).max() and not y[2:].any()
    assert 0 < abs(float(y[1])) <= 1e-4


def test_divceil_in_a_vf_compiles():
    """The gap reg_merge_mode works around (it calls CeilDivision): aj.DivCeil inside a VF had run the VF plain; it
    compiles since session 38 (the suite makes UncompiledVFWarning an error)."""
    def vf(dst, n):
        r = R.RegTensor("float")
        for i in range(aj.DivCeil(n, 64)):
            R.Duplicate(r, 1.0)
            R.StoreAlign(dst[i * 64], r, R.CreateMask("float"))
    core = aj.Core(D950)
    dst = core.local_tensor("float", 192)
    R.simd_vf(vf)(dst, 130)
    assert (dst.numpy() == 1.0).all()
