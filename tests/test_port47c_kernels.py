"""The session-47c ports of hicann/cann-ops-competitions entries (contest code by outside kernel developers):
kernels/is_nan.py (IsNan, A2 / A3: Compare EQ of x with itself over 128-rounded counts, a tensor-scalar Select of
half zeros against 1.0 written over the input tile, Cast half -> int8 CAST_ROUND), kernels/celu.py (Celu, A2 / A3: a
benchmark-tuned host tiling, vector schedules single or double buffered, balanced or pipelined, and scalar-unit
schedules with a hand-written exp polynomial), kernels/hard_swish.py (HardSwish, A2 / A3: tiles copied in one ahead,
a scalar one-element path, a 15-element path in hand-placed LocalTensors), kernels/scale.py (Scale, A2 / A3: three
tiling keys by where the scale's axes sit, per-row GM GetValue scalars), kernels/gelu_v2.py (GeluV2, 310B: a
64-segment table polynomial by Gather and FusedMulAdd, the tanh form by Exp and Div) and kernels/unpack.py (Unpack,
A2 / A3: no TPipe, strided / gather / scatter data movement under SetFlag / WaitFlag). Each against its numpy model
bit for bit on every device it runs on, against a float64 formula within the types' rounding (the polynomials within
their own error); the host tilings; each of the original's behaviours the port changes, run in the original's form
and refused or reported."""

import numpy as np
import pytest

import ascend_jit as aj
from ported import sanitizer_reports as _reports, bits as _bits, same_bits as _same, spec_and_module as _spec_and_module

A2_A3 = ["atlas-a2", "atlas-a3"]


# kernels/is_nan.py

def test_is_nan_tiling_rounds_cores_and_tiles_to_256_elements():
    _, m = _spec_and_module("is_nan")
    # 100003 / 8 = 12501 -> 12544 a core, 8 cores; float tiles of 12288 (two a core), half tiles the core's 12544
    assert m.tiling(100003, "float") == (8, 1, dict(totalLength=100003, blockLength=12544, tileLength=12288,
                                                    tileNum=2))
    assert m.tiling(100003, "half")[2]["tileLength"] == 12544
    assert m.tiling(100003, "bfloat16")[:2] == (8, 2)
    # few elements: one 256-element core; 3001: 376 rounded up to 512 a core, so 6 cores, the last 441
    assert m.tiling(5, "half") == (1, 0, dict(totalLength=5, blockLength=256, tileLength=256, tileNum=1))
    b, _, t = m.tiling(3001, "float")
    assert (b, t["blockLength"]) == (6, 512) and 3001 - 5 * 512 == 441
    # the original's fallback without platform info: 40 cores
    assert m.tiling(100003, "float", core_num=40)[0] == 40


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("name, n", [("is_nan", 3001), ("is_nan_half", 5), ("is_nan_bf16", 3001)])
def test_is_nan_is_the_numpy_model(device, name, n):
    """Short tiles by DataCopyPad (441 elements on the last of 6 cores, 5 on one core), the 128-rounded Compare."""
    k, m = _spec_and_module(name)
    x = k.make_inputs(n, n)["x"]
    y = m.run_is_nan(device, x)
    assert y.dtype == np.int8 and np.array_equal(y, m.is_nan_model(x))
    assert 0 < y.sum() < n


def test_is_nan_full_and_short_tiles_of_a_core():
    """100003 floats: two tiles a core (a 12288 DataCopy tile, a 256 DataCopyPad one; the last core 12195)."""
    k, m = _spec_and_module("is_nan")
    x = k.make_inputs(100003, 4)["x"]
    assert np.array_equal(m.run_is_nan("atlas-a2", x), np.isnan(x).astype(np.int8))


def test_is_nan_specials_every_nan_payload_and_no_other_value():
    """NaN of either sign and any payload -> 1; +-inf, +-0, subnormals, the largest finite -> 0 (Compare EQ of x
    with itself is false only for NaN; bfloat16 widens exactly)."""
    _, m = _spec_and_module("is_nan")
    f32 = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF, 0x7F800000, 0xFF800000, 0,
                    0x80000000, 1, 0x807FFFFF, 0x7F7FFFFF, 0x3F800000], np.uint32)
    want = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0], np.int8)
    assert np.array_equal(m.run_is_nan("atlas-a3", np.tile(f32, 31).view(np.float32)), np.tile(want, 31))
    h16 = np.array([0x7E00, 0xFE00, 0x7C01, 0xFC01, 0x7FFF, 0x7C00, 0xFC00, 0, 0x8000, 1, 0x83FF, 0x7BFF, 0x3C00],
                   np.uint16)
    assert np.array_equal(m.run_is_nan("atlas-a3", np.tile(h16, 31).view(np.float16)), np.tile(want, 31))
    b16 = np.array([0x7FC0, 0xFFC0, 0x7F81, 0xFF81, 0x7FFF, 0x7F80, 0xFF80, 0, 0x8000, 1, 0x807F, 0x7F7F, 0x3F80],
                   np.uint16)
    import ml_dtypes
    assert np.array_equal(m.run_is_nan("atlas-a3", np.tile(b16, 31).view(ml_dtypes.bfloat16)), np.tile(want, 31))


@pytest.mark.parametrize("name", ["is_nan", "is_nan_half", "is_nan_bf16"])
def test_is_nan_original_compares_uninitialised_lanes_of_the_short_tile(name):
    """The original's form (zero_tail=False): Compare (bfloat16: the Cast) reads the lanes past DataCopyPad's
    32-byte rounded bytes up to the 128-lane rounding: the sanitizer's init report on the buffer's first use; the
    port zeroes them first: clean, the same result (those lanes are never copied out). float and half: the
    Compare's bits of those lanes are uninitialised and the Select over the same rounded count reads them, reported
    at the Select with the Compare as the earlier instruction (docs/decisions.md "Sanitizer": a count-form Compare's
    never-written lanes are followed to what reads their bits); bfloat16: the Cast reads them directly."""
    k, m = _spec_and_module(name)
    x = k.make_inputs(3001, 1)["x"]
    outs = {}

    def run(zero_tail):
        outs[zero_tail] = m.run_is_nan("atlas-a2", x, zero_tail=zero_tail)
    original = _reports(lambda: run(False))
    want = ("Cast", "src", None) if name == "is_nan_bf16" else ("Select", "sel_mask", "Compare")
    assert original and {(r.check, r.instruction.api, r.operand, r.earlier and r.earlier.api) for r in original} == \
        {("init", *want)}
    assert all(r.fix.startswith("these mask bits were computed from lanes of ") for r in original
               if r.operand == "sel_mask")
    assert _reports(lambda: run(True)) == []
    assert np.array_equal(outs[True], outs[False])


# kernels/celu.py

def _celu_tiling(m, shape, dtype, alpha, device="atlas-a2", core_num=40):
    b, mode, raw = m.tiling(device, shape, dtype, alpha, core_num)
    t = m.CeluTilingData.from_buffer_copy(raw.tobytes())
    return b, mode, {f: getattr(t, f) for f, _ in m.CeluTilingData._fields_}


def test_celu_tiling_picks_the_schedule_from_the_benchmark_shapes():
    _, m = _spec_and_module("celu")
    # 100003 floats, alpha 1: 16 cores (the 131072 threshold), blocks of 6256, double buffered (UB 176 KiB / 16 =
    # 11264 floats, under the 32768 limit): mode 5; alpha 0.5 single buffered: mode 1; half: mode 0
    b, mode, t = _celu_tiling(m, (100003,), "float", 1.0)
    assert (b, mode, t["blockFactor"], t["ubFactor"], t["reserved"]) == (16, 5, 6256, 6256, 0)
    b, mode, t = _celu_tiling(m, (100003,), "float", 0.5)
    assert (b, mode, t["ubFactor"]) == (16, 1, 6256)
    assert _celu_tiling(m, (500, 1000), "float", 0.5)[:2] == (32, 1)
    b, mode, t = _celu_tiling(m, (3000, 1000), "float", 1.0)
    assert (b, mode, t["ubFactor"]) == (40, 5, 11264)
    assert _celu_tiling(m, (100003,), "half", 2.0)[1] == 0
    # one element: the scalar polynomial (alpha 1) or one-lane vector instructions; 2-16 floats: mode 12
    assert _celu_tiling(m, (), "float", 1.0)[1] == 4
    assert _celu_tiling(m, (1,), "float", 0.5)[1] == 2
    b, mode, t = _celu_tiling(m, (5,), "float", 0.5)
    assert (b, mode, t["blockFactor"], t["ubFactor"]) == (8, 12, 16, 16)
    # the contest's 6 Mi floats, alpha 1: the pipeline on 40 cores, tiles balanced: 8192 scores best (768 tiles,
    # 19 a core and one more for 8 of them)
    b, mode, t = _celu_tiling(m, (3, 2097152), "float", 1.0)
    assert (b, mode, t["ubFactor"], t["baseTileNum"], t["extraTileNum"], t["reserved"]) == (40, 7, 8192, 19, 8, 3)
    assert t["blockFactor"] == 20 * 8192
    # 64 Mi floats in 5 dims: single buffered and balanced (mode 3); in 4 dims pipelined (mode 7); 80 Mi and over,
    # alpha != 1: tiles of 4096 floats
    assert _celu_tiling(m, (2, 2, 4, 4, 1048576), "float", 1.0)[1] == 3
    assert _celu_tiling(m, (4, 4, 4, 1048576), "float", 1.0)[1] == 7
    b, mode, t = _celu_tiling(m, (100, 1048576), "float", 0.5)
    assert (mode, t["ubFactor"], t["reserved"]) == (7, 4096, 3)
    # the 8-core form never balances (balancing asks for 40 cores)
    assert _celu_tiling(m, (3, 2097152), "float", 1.0, core_num=8)[1] == 5
    with pytest.raises(AssertionError):
        m.tiling("atlas-a2", (8,), "float", 0.0)


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("name, n", [("celu", 3001), ("celu_alpha", 3001), ("celu_half", 1003), ("celu", 17)])
def test_celu_vector_schedules_are_the_numpy_model(device, name, n):
    """8 cores of 376 floats (the last 369: DataCopyPad of an unaligned count) or 128 halves; 17 floats: 8 cores of
    8, the third core's one element."""
    k, _ = _spec_and_module(name)
    inputs = k.make_inputs(n, n + 1)
    assert _same(k.run(device, inputs)["y"], k.expected(device, inputs)["y"])


def test_celu_against_the_formula():
    """Within the type's rounding of max(0, x) + min(0, alpha * expm1(x / alpha)): exp rounded once, then
    Adds -1 cancels near 0 (absolute error of one exp rounding), Muls and Add one rounding each."""
    _, m = _spec_and_module("celu")
    rng = np.random.default_rng(7)
    x = rng.uniform(-12, 6, 4001).astype(np.float32)
    for alpha, dtype, eps in ((1.0, np.float32, 2 ** -23), (0.5, np.float32, 2 ** -23), (2.0, np.float16, 2 ** -10)):
        xs = x.astype(dtype)
        y = m.run_celu("atlas-a2", xs, alpha).astype(np.float64)
        f = m.celu_formula(xs, alpha)
        assert np.all(np.abs(y - f) <= 4 * eps * (np.abs(f) + alpha)), (alpha, dtype)
    y = m.run_celu("atlas-a2", np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 100.0, -100.0] * 3, np.float32))
    assert np.isnan(y[0]) and y[1:7].tolist() == [-1.0, np.inf, 0.0, 0.0, 100.0, -1.0]


def _run_mode(m, x, mode, tb, block_dim):
    return m.run_celu("atlas-a2", x, mode=mode, tiling_bytes=tb, block_dim=block_dim)


@pytest.mark.parametrize("mode, alpha", [(7, 1.0), (10, 0.5), (6, 1.0), (3, 0.5), (8, 1.0)])
def test_celu_schedules_of_the_large_shapes_on_small_inputs(mode, alpha):
    """The tiling picks these only at 6 Mi elements and more: here by hand, 11 tiles of 64 floats over 3 cores
    (balanced: 4, 4, 3 tiles; the pipeline copies tile i + 1 in before computing tile i); mode 8 is the
    double-buffered schedule with depth-1 queues, 704 + 5 floats over 3 element blocks (the last short)."""
    k, m = _spec_and_module("celu")
    if mode == 8:
        x = k.make_inputs(709, 3)["x"]
        tb = m.make_tiling(709, 240, 64, alpha)
    else:
        x = k.make_inputs(704, 3)["x"]
        tb = m.make_tiling(704, 0, 64, alpha, 3, 3, 3, 2)
    y = _run_mode(m, x, mode, tb, 3)
    assert _same(y, m.celu_model(x, alpha))


def test_celu_scalar_schedules_are_the_float32_model_and_the_polynomial_is_close():
    """Modes 4 (one element, alpha 1), 12 (2-16 floats), 9 (core 0 loops over all) and 11 (each core its block) on
    the scalar unit: the float32 model bit for bit; ExpNegApprox within 1e-4 relative of exp on (-10, 0] and 0 at
    and below -10; mode 2 (one element, alpha != 1) is the vector chain."""
    k, m = _spec_and_module("celu")
    for v in (-0.5, -3.0, -9.99, -10.0, -30.0, 0.0, 2.5, np.nan):
        x = np.array([v], np.float32)
        y = m.run_celu("atlas-a3", x, 1.0)
        assert _same(y, m.celu_model(x, 1.0, 4)), v
        if v == v and v <= 0:
            assert abs(y[0] - np.expm1(v)) <= (1e-4 if v > -10 else 5e-5), v
        assert _same(m.run_celu("atlas-a3", x, 0.5), m.celu_model(x, 0.5, 2)), v
    x = k.make_inputs(13, 2)["x"]
    assert _same(m.run_celu("atlas-a2", x, 0.25), m.celu_model(x, 0.25, 12))
    x = k.make_inputs(40, 5)["x"]
    y9 = _run_mode(m, x, 9, m.make_tiling(40, 16, 16, 0.75), 8)
    y11 = _run_mode(m, x, 11, m.make_tiling(40, 16, 16, 0.75), 8)
    assert _same(y9, m.celu_model(x, 0.75, 9)) and _same(y11, y9)
    r = np.linspace(-9.99, 0, 2001).astype(np.float32)
    e = np.array([m.exp_neg_approx(v) for v in r], np.float64)
    assert np.all(np.abs(e / np.exp(r.astype(np.float64)) - 1) < 1e-4)


def test_celu_original_tiny_schedule_uses_literal_count_and_alpha():
    """Mode 12's entry passes 15 and 0.5f, not the tiling's count and alpha: on 5 floats the original reads past
    the input (GM GetValue out of bounds: refused); on 15 floats with alpha 1 it computes alpha 0.5's function.
    The port passes the tiling's values."""
    k, m = _spec_and_module("celu")
    x = k.make_inputs(5, 2)["x"]
    with pytest.raises(aj.OutOfBoundsError):
        m.run_celu("atlas-a2", x, 1.0, tiny_literals=True)
    x = k.make_inputs(15, 2)["x"]
    neg = x < 0
    orig = m.run_celu("atlas-a2", x, 1.0, tiny_literals=True)
    port = m.run_celu("atlas-a2", x, 1.0)
    assert _same(orig, m.celu_model(x, 0.5, 12)) and _same(port, m.celu_model(x, 1.0, 12))
    assert not np.array_equal(_bits(orig[neg]), _bits(port[neg]))


# kernels/hard_swish.py

def _hs_tiling(m, n, core_num=40):
    b, mode, raw = m.tiling("atlas-a2", n, core_num)
    t = m.HardSwishTilingData.from_buffer_copy(raw.tobytes())
    return b, mode, (t.totalNum, t.blockFactor, t.ubFactor)


def test_hard_swish_tiling_targets_elements_per_core():
    _, m = _spec_and_module("hard_swish")
    # 1 and 15 elements: their own schedules on one core; up to 1024 one core of the whole count (not rounded)
    assert _hs_tiling(m, 1)[:2] == (1, 1) and _hs_tiling(m, 15)[:2] == (1, 2)
    assert _hs_tiling(m, 1003) == (1, 0, (1003, 1003, 1008))
    # 3001: 512-element targets, 6 cores of 504 (rounded up to 8), the last 481; 100003: 128-element targets, so
    # all 40 cores, 2504 each (the last 2347), one UB tile each (UB tiles up to 12032 floats)
    assert _hs_tiling(m, 3001) == (6, 0, (3001, 504, 504))
    assert _hs_tiling(m, 100003) == (40, 0, (100003, 2504, 2504))
    assert _hs_tiling(m, 2000003)[2][2] == 12032
    # 20000: 192-element targets, 105 cores wanted, 8 in the 8-core form
    assert _hs_tiling(m, 20000, core_num=8) == (8, 0, (20000, 2504, 2504))


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("n", [1, 15, 16, 3001])
def test_hard_swish_is_the_numpy_model(device, n):
    """One element on the scalar unit, 15 in the hand-placed tiles, 16 one core by DataCopy, 3001 six cores (the
    last 481 floats by DataCopyPad)."""
    k, m = _spec_and_module("hard_swish")
    x = k.make_inputs(n, n + 3)["x"]
    assert _same(m.run_hard_swish(device, x), m.hard_swish_model(x))


def test_hard_swish_tiles_copied_in_one_ahead():
    """2000003 floats over 8 cores: 250008 a core, 20 tiles of 12032 and a short one, each copied in before the
    tile before it is computed (depth-2 queues)."""
    k, m = _spec_and_module("hard_swish")
    x = k.make_inputs(2000003, 1)["x"]
    assert _hs_tiling(m, 2000003, core_num=8) == (8, 0, (2000003, 250008, 12032))
    assert _same(m.run_hard_swish("atlas-a2", x, core_num=8), m.hard_swish_model(x))


def test_hard_swish_against_the_formula_and_specials():
    _, m = _spec_and_module("hard_swish")
    x = np.random.default_rng(3).uniform(-8, 8, 4001).astype(np.float32)
    y, f = m.run_hard_swish("atlas-a3", x).astype(np.float64), m.hard_swish_formula(x)
    assert np.all(np.abs(y - f) <= 2 ** -21 * np.abs(f) + 1e-45)
    s = np.array([np.nan, -np.inf, np.inf, -3.0, 3.0, -0.0, 6.0, -1.5] * 3, np.float32)
    y = m.run_hard_swish("atlas-a3", s)
    assert np.isnan(y[:2]).all() and y[2] == np.inf and y[3:5].tolist() == [0.0, 3.0]
    assert y[6] == np.float32(np.float32(36.0) * m.SIXTH) and y[7] == np.float32(np.float32(-2.25) * m.SIXTH)
    # the scalar path: x >= 3 returns x itself; below, left to right in float32
    for v in (5.0, 3.0, 2.9999998, -2.0, -4.0, np.nan):
        y = m.run_hard_swish("atlas-a3", np.array([v], np.float32))
        assert _same(y, np.array([m.hard_swish_scalar(v)], np.float32)), v


def test_hard_swish_original_tiny_schedule_writes_past_y():
    """Mode 2's DataCopy writes 16 floats to the 15-float y: its GlobalTensor of 16 is refused; with y padded to
    16 floats (a 64-byte allocation) it runs: its first 15 outputs are the port's, the 16th computed from the
    copy's dummy lane, x[0] repeated (SPEC-2 D56)."""
    k, m = _spec_and_module("hard_swish")
    x = k.make_inputs(15, 9)["x"]
    with pytest.raises(aj.OutOfBoundsError):
        m.run_hard_swish("atlas-a2", x, tiny_original=True)
    _, mode, tb = m.tiling("atlas-a2", 15)
    y = np.zeros(16, np.float32)
    aj.launch(m.hard_swish, 1, "atlas-a2", x.copy(), y, None, tb, mode, True)
    assert _same(y[:15], m.run_hard_swish("atlas-a2", x)) and _same(y[15:], m.hard_swish_model(x[0:2])[:1])


# kernels/scale.py

def test_scale_tiling_keys_strides_and_cores():
    _, m = _spec_and_module("scale")
    # key 0: x's shape; tiles of 196608 / 32 / 4 blocks (12288 floats); 100003 = 8 x 12500 + 3
    assert m.tiling("atlas-a2", (100003,), (100003,), "float", 0, -1) == (8, 0, dict(
        tileDataNum=12288, innerStride=1, outerStride=1, bigCoreNum=3, bigCoreProcessNum=12501,
        smallCoreProcessNum=12500))
    # key 1: scale over the trailing axes (rows of x.shape[:axis]); bfloat16 tiles / 10 (9824)
    b, key, t = m.tiling("atlas-a2", (5, 7, 30), (7, 30), "bfloat16", 1, -1)
    assert (b, key, t["tileDataNum"], t["innerStride"], t["bigCoreProcessNum"]) == (5, 1, 9824, 210, 1)
    # key 2: scale over a middle axis; float tiles / 3 (16384), bfloat16 / 4 (24576); scale_from_blob false takes
    # the scale's rank
    b, key, t = m.tiling("atlas-a2", (3, 5, 1000), (5,), "float", 1, 1)
    assert (b, key, t["tileDataNum"], t["innerStride"], t["outerStride"], t["bigCoreNum"]) == (8, 2, 16384, 1000,
                                                                                            5, 7)
    assert m.tiling("atlas-a2", (3, 5, 1000), (5,), "bfloat16", -2, 7, False)[2]["tileDataNum"] == 24576


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("name, n", [("scale", 3001), ("scale_trailing_half", 9000), ("scale_middle_bf16", 6000)])
def test_scale_is_the_numpy_model(device, name, n):
    k, _ = _spec_and_module(name)
    inputs = k.make_inputs(n, n)
    assert _same(k.run(device, inputs)["y"], k.expected(device, inputs)["y"])


def test_scale_every_key_and_type_and_the_formula():
    """Each key in each type: key 1 with rows of 30000 (2-4 tiles a row by type), key 2 with rows shorter than a
    tile (the original's Broadcast branch, run through its per-row branch), key 0 over one and several cores;
    within the type's rounding of x * s + b (bfloat16: two roundings)."""
    _, m = _spec_and_module("scale")
    rng = np.random.default_rng(11)
    import ml_dtypes
    cases = [((2, 30000), (30000,), 1), ((4, 3, 37), (3,), 1), ((13, 17), (13, 17), 0), ((2, 20001), (2, 20001), 0)]
    for dt, eps in ((np.float32, 2 ** -23), (np.float16, 2 ** -10), (ml_dtypes.bfloat16, 2 ** -7)):
        for xs, ss, axis in cases:
            x = rng.uniform(-4, 4, xs).astype(np.float32).astype(dt)
            s = rng.uniform(-2, 2, ss).astype(np.float32).astype(dt)
            b = rng.uniform(-1, 1, ss).astype(np.float32).astype(dt)
            num_axes = -1 if len(ss) + axis == len(xs) else len(ss)
            y = m.run_scale("atlas-a2", x, s, b, axis, num_axes)
            assert _same(y, m.scale_model(x, s, b, axis)), (dt, xs)
            f = m.scale_formula(x, s, b, axis)
            err = np.abs(y.astype(np.float64) - f)
            assert np.all(err <= 2 * eps * (np.abs(x.astype(np.float64) * m._broadcast_shape(xs, s, axis)) + 1)), dt


def test_scale_original_last_tile_of_zero_elements():
    """When a core's count is whole tiles the original's last tile is count % tile = 0 elements: 0-byte
    DataCopyPads and 0-count Mul / Add, NOPs (SPEC-2 D30), so that tile of y is left as it was; the port takes a
    full tile."""
    _, m = _spec_and_module("scale")
    rng = np.random.default_rng(2)
    x = rng.standard_normal(8 * 12288).astype(np.float32)
    s, b = rng.standard_normal(x.size).astype(np.float32), np.ones(x.size, np.float32)
    orig = m.run_scale("atlas-a2", x, s, b, 0, -1, zero_tail=True)
    port = m.run_scale("atlas-a2", x, s, b, 0, -1)
    assert _same(port, m.scale_model(x, s, b, 0))
    assert np.all(orig == 0)                            # every core's one tile was its "last": nothing written


# kernels/gelu_v2.py

B310 = "atlas-200i-500-a2"


@pytest.mark.parametrize("name, n", [("gelu_v2", 5000), ("gelu_v2_tanh", 5000), ("gelu_v2_half", 64),
                                     ("gelu_v2", 4096), ("gelu_v2_half", 9000)])
def test_gelu_v2_is_the_numpy_model(name, n):
    """One core: a 4096-element tile copied in ahead of the next; the short last tile (904: not whole 64-lane
    repeats, so Duplicate + Compare; 64: CompareScalar) by DataCopyPad with zero right padding."""
    k, m = _spec_and_module(name)
    inputs = k.make_inputs(n, n)
    assert _same(k.run(B310, inputs)["y"], k.expected(B310, inputs)["y"])


def test_gelu_v2_table_polynomial_and_the_formulas():
    """The 64-segment table is within 1e-4 of the erf GELU over [-8, 8] (past |x| = 4.1: max(x, 0)); the tanh form
    within float rounding of x * sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)); NaN stays NaN, +-inf -> inf / 0."""
    _, m = _spec_and_module("gelu_v2")
    x = np.linspace(-8, 8, 20001).astype(np.float32)
    y = m.run_gelu_v2(B310, x).astype(np.float64)
    assert np.max(np.abs(y - m.gelu_formula(x))) < 1e-4
    assert np.array_equal(y[np.abs(x) > 4.1], np.maximum(x[np.abs(x) > 4.1], 0))
    y = m.run_gelu_v2(B310, x, 1).astype(np.float64)
    f = m.gelu_formula(x, 1)
    assert np.all(np.abs(y - f) <= 2 ** -20 * np.abs(f) + 1e-6)
    s = np.array([np.nan, np.inf, -np.inf, 0.0] * 16, np.float32)
    y = m.run_gelu_v2(B310, s)
    assert np.isnan(y[0]) and y[1] == np.inf and y[2] == 0 and y[3] == 0


def test_gelu_v2_model_fma_rounds_once():
    """_fma32 rounds a * b + c once (a float32 midpoint broken by the two-sum's error term)."""
    _, m = _spec_and_module("gelu_v2")
    a = np.float32(1 + 2 ** -12)                    # a * a = 1 + 2^-11 + 2^-24: a float32 midpoint
    assert m._fma32(a, a, np.float32(0)) == np.float32(1 + 2 ** -11)                     # the tie to even
    assert m._fma32(a, a, np.float32(2 ** -70)) == np.float32(1 + 2 ** -11 + 2 ** -23)   # just above it: up
    assert m._fma32(a, a, np.float32(-(2 ** -70))) == np.float32(1 + 2 ** -11)
    assert m._fma32(np.float32(3), np.float32(5), np.float32(-15)) == 0


def test_gelu_v2_original_forms():
    """The original's short-tile Compare of a count that is not whole 64-lane repeats is refused (SPEC-2 D44); its
    FetchEventID / ISASI flags are not offered on the 310B; its SetValue'd tables read by Gather after
    PipeBarrier<PIPE_V> only: the sanitizer's race report. The port's forms run clean."""
    k, m = _spec_and_module("gelu_v2")
    x = k.make_inputs(5000, 0)["x"]
    with pytest.raises(aj.ParameterError):
        m.run_gelu_v2(B310, x, orig_compare=True)
    with pytest.raises(aj.UnsupportedDeviceError):
        m.run_gelu_v2(B310, x, orig_flags=True)
    reports = _reports(lambda: m.run_gelu_v2(B310, x[:4096], orig_sync=True))
    assert reports and {(r.check, r.instruction.api) for r in reports} == {("race", "Gather")}
    assert _reports(lambda: m.run_gelu_v2(B310, x)) == []


# kernels/unpack.py

def test_unpack_tiling_modes_and_row_tiles():
    _, m = _spec_and_module("unpack")
    # L <= 2048: pack; L * size < 32: gather; rows a tile from the UB less 128 bytes over a row's bytes
    b, t = m.tiling("atlas-a2", (167, 6, 100), "float", 1)
    assert (b, t["pack_mode"], t["pack_tile_m"], t["tile_length"]) == (8, 1, 167, 104)
    assert m.tiling("atlas-a2", (5000, 6, 100), "float", 1)[1]["pack_tile_m"] == (196608 - 128) // 416
    b, t = m.tiling("atlas-a2", (5003, 4, 5), "half", 1)
    assert (t["pack_mode"], t["pack_tile_m"]) == (2, min(5003, (196608 - 128) // (40 + 10 + 20)))
    # rows of exactly 32 bytes (8 floats) take the strided pack
    assert m.tiling("atlas-a2", (5000, 3, 8), "float", 1)[1]["pack_mode"] == 1
    # L > 2048: scatter, 8192-element tiles and a residue rounded to 32 bytes; cores = min(cores, iterations)
    b, t = m.tiling("atlas-a2", (1, 3, 10001), "int32", -2)
    assert (b, t["pack_mode"], t["iter_per_row"], t["real_residue"], t["pad_residue"]) == (6, 0, 2, 1809, 1816)


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("name, n", [("unpack", 5400), ("unpack_gather_half", 740), ("unpack_scatter_int32", 30003)])
def test_unpack_is_the_numpy_model(device, name, n):
    k, _ = _spec_and_module(name)
    inputs = k.make_inputs(n, n)
    out, want = k.run(device, inputs), k.expected(device, inputs)
    assert all(np.array_equal(_bits(out[q]), _bits(want[q])) for q in want)


def test_unpack_several_row_tiles_a_core_and_other_axes():
    """One core: 1000 rows in tiles of 472 floats (strided: 472, 472, 56) or 457 halves (gather, K = 40: 457, 457,
    86), the flags between tiles and columns; axis 0 and a negative axis; int8 rows through the strided pack."""
    _, m = _spec_and_module("unpack")
    rng = np.random.default_rng(4)
    cases = [(rng.standard_normal((1000, 2, 100)).astype(np.float32), 1),
             (rng.standard_normal((1000, 40, 5)).astype(np.float16), 1),
             (rng.standard_normal((3, 7, 40)).astype(np.float32), 0),
             (rng.integers(-128, 128, (9, 5, 64), dtype=np.int64).astype(np.int8), -2)]
    for x, axis in cases:
        ys = m.run_unpack("atlas-a2", x, axis, core_num=1)
        assert all(np.array_equal(y, w) for y, w in zip(ys, m.unpack_model(x, axis))), (x.dtype, x.shape)


def test_unpack_original_slab_declaration_is_refused():
    """The gather pack's slab as the original declares it (packed_elems): its DataCopyPad's dummy bytes up to the
    32-byte block end land past the tensor: refused; the port's rounded declaration runs."""
    _, m = _spec_and_module("unpack")
    x = np.arange(4 * 5, dtype=np.float16).reshape(1, 4, 5)         # one row: a 40-byte slab
    with pytest.raises(aj.OutOfBoundsError):
        m.run_unpack("atlas-a2", x, 1, orig_slab=True)
    assert all(np.array_equal(y, w) for y, w in zip(m.run_unpack("atlas-a2", x, 1), m.unpack_model(x, 1)))
