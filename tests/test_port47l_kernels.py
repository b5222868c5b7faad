"""The session-47l ports from hicann/cann-samples and hicann/cann-learning-hub: kernels/simd_vf_story.py (the SIMD VF
story's baseline VFs on the 950: AXPY and the four [rows, 250] reductions, ReduceSum / ReduceMax along either axis),
kernels/simd_vf_broadcast.py (its broadcast adds along the head, middle and tail axes), kernels/square_diff.py (the
learning hub's SquareDiff, A2 / A3: Mul, Mul, Sub over 32-byte blocks on big / small cores), kernels/rope_simd.py
(the learning hub's RoPE over host-split pairs, A2 / A3), kernels/softmax_membase.py (the softmax story's Memory-API
baseline: a row at a time, count-form ReduceMax / ReduceSum read on the scalar unit), kernels/sigmoid_custom.py (the
learning hub's SigmoidCustom, A2 / A3: the advanced Sigmoid in counter-mode chunks of a popped stack buffer),
kernels/kv_rms_norm_rope_cache.py (KvRmsNormRopeCache, bfloat16 RMSNorm + interleaved RoPE + cache scatter) and
kernels/rms_norm_quant_story.py (the RmsNormQuant story's multi-core Memory-API step, half in, int8 out, on the
950). Each against its numpy model bit for bit on every device it runs on, against a float64 formula within
rounding; the host tilings; each of the original's behaviours the port changes, run in the original's form and
refused or reported."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import sanitizer_reports as _reports, same_bits as _same, spec_and_module as _spec_and_module

BF16 = ml_dtypes.bfloat16
A2_A3 = ["atlas-a2", "atlas-a3"]
ALL3 = ["ascend950", "atlas-a3", "atlas-a2"]


# kernels/simd_vf_story.py

@pytest.mark.parametrize("n", [4000, 64, 1, 100])
def test_vf_axpy_is_the_model_and_the_formula(n):
    """62 vectors and a 32-lane tail, one vector, a 1-lane UpdateMask tail, a 36-lane tail; z = 2x + y rounds once
    after the exact 2x."""
    _, m = _spec_and_module("vf_axpy")
    rng = np.random.default_rng(n)
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = rng.uniform(-1, 1, n).astype(np.float32)
    z = m.run_axpy(x, y)
    assert _same(z, m.axpy_model(x, y))
    want = 2.0 * x.astype(np.float64) + y.astype(np.float64)
    assert np.all(np.abs(z - want) <= 2 ** -24 * np.abs(want) + 1e-45)


def test_vf_axpy_original_loads_lanes_past_the_copy():
    """The VF's unmasked last LoadAlign reads the 16 floats past the copy's 32-byte rounding (1001 -> 1008 of
    1024): never written; the port zeroes them. Session 54: the lanes carry the init check; the original's tail
    lanes never reach a store (UpdateMask), so its form (reported before) runs clean too, with the same z."""
    _, m = _spec_and_module("vf_axpy")
    x = np.ones(1001, np.float32)
    z = {}
    assert _reports(lambda: z.setdefault(False, m.run_axpy(x, x, zero_tail=False))) == []
    assert _reports(lambda: z.setdefault(True, m.run_axpy(x, x))) == []
    assert _same(z[False], z[True])


@pytest.mark.parametrize("op, axis", [("sum", "ar"), ("max", "ar"), ("sum", "ra"), ("max", "ra"), ("sum_binary", "ar")])
@pytest.mark.parametrize("rows", [78, 3])
def test_vf_reduce_is_the_model_and_the_formula(op, axis, rows):
    _, m = _spec_and_module(f"vf_reduce_{op}_{axis}")
    x = np.random.default_rng(rows).uniform(-1, 1, (rows, m.D1)).astype(np.float32)
    z = m.run_reduce(x, op, axis)
    assert z.shape == (rows if axis == "ar" else m.D1,) and _same(z, m.reduce_model(x, op, axis))
    ax = 1 if axis == "ar" else 0
    if op == "max":
        assert np.array_equal(z, x.max(axis=ax))
    else:
        want = x.astype(np.float64).sum(axis=ax)
        assert np.all(np.abs(z - want) <= 1e-5 * (np.abs(x).sum(axis=ax)))


def test_vf_reduce_sum_ar_folds_chunks_then_pairs():
    """A row's 64-column chunks fold lane by lane first: 2**24 (column 0) and -2**24 (column 64) cancel in lane 0
    before the 1.0 of column 1 joins; a left-to-right sum would lose the 1.0 (2**24 + 1 rounds to 2**24)."""
    _, m = _spec_and_module("vf_reduce_sum_ar")
    x = np.zeros((2, m.D1), np.float32)
    x[:, 0], x[:, 1], x[:, 64] = 2.0 ** 24, 1.0, -(2.0 ** 24)
    assert m.run_reduce(x, "sum", "ar").tolist() == [1.0, 1.0]
    # the binary VF folds (c0 + c2) + (c1 + c3) lane by lane: lane 0 cancels before the tree as well
    assert m.run_reduce(x, "sum_binary", "ar").tolist() == [1.0, 1.0]
    seq = np.float32(0)
    for v in x[0]:
        seq = np.float32(seq + v)
    assert seq == 0.0


@pytest.mark.parametrize("axis", ["ar", "ra"])
def test_vf_reduce_max_starts_from_minus_flt_max(axis):
    """The accumulator starts at -3.4028235e38 (-FLT_MAX), not -inf: an all -inf row or column gives -FLT_MAX."""
    _, m = _spec_and_module(f"vf_reduce_max_{axis}")
    x = np.full((4, m.D1), -np.inf, np.float32)
    x[1:, :] = np.random.default_rng(0).uniform(-1, 1, (3, m.D1))
    if axis == "ra":
        x[:, 7] = -np.inf
    z = m.run_reduce(x, "max", axis)
    assert z[0 if axis == "ar" else 7] == np.float32(-3.4028235e38) and _same(z, m.reduce_model(x, "max", axis))


def test_vf_story_runs_clean_under_the_sanitizer():
    for name, size in (("vf_axpy", 3001), ("vf_reduce_sum_ar", 2500), ("vf_reduce_max_ar", 2500),
                       ("vf_reduce_sum_ra", 2500), ("vf_reduce_max_ra", 2500), ("vf_reduce_sum_binary_ar", 2500)):
        k, _ = _spec_and_module(name)
        inputs = k.make_inputs(size, 1)
        assert _reports(lambda: k.run("ascend950", inputs)) == [], name
        assert _reports(lambda: k.run("ascend950", inputs), "device-sync") == [], name


# kernels/square_diff.py

def _square_diff_tiling(m, device, n, dtype):
    used, raw = m.tiling(device, n, dtype)
    t = m.SquareDiffTilingData.from_buffer_copy(raw.tobytes())
    return used, {f: getattr(t, f) for f, _ in m.SquareDiffTilingData._fields_}


def test_square_diff_tiling_32_byte_blocks_over_big_and_small_cores():
    _, m = _spec_and_module("square_diff")
    # 100003 floats: 400032 bytes, 12501 blocks over 8 cores: 1562 each, 5 cores one more; 196608 / 32 / 2 / 3 =
    # 1024 blocks a tile (8192 floats): two tiles a core
    used, t = _square_diff_tiling(m, "atlas-a2", 100003, "float")
    assert used == 8 and t["tailBlockNum"] == 5 and t["tileDataNum"] == 8192
    assert (t["smallCoreDataNum"], t["finalSmallTileNum"], t["smallTailDataNum"]) == (12496, 2, 12496 - 8192)
    assert (t["bigCoreDataNum"], t["finalBigTileNum"], t["bigTailDataNum"]) == (12504, 2, 12504 - 8192)
    assert _square_diff_tiling(m, "atlas-a3", 100003, "half")[1]["tileDataNum"] == 16384
    # fewer blocks than cores: one block a core; every element of the padded input covered once
    for dtype, n in (("float", 5), ("float", 17), ("half", 33), ("half", 100003), ("float", 8192 * 8)):
        used, t = _square_diff_tiling(m, "atlas-a2", n, dtype)
        per_block = 32 // m.TYPE_SIZE[dtype]
        counts = [t["bigCoreDataNum"] if c < t["tailBlockNum"] else t["smallCoreDataNum"] for c in range(used)]
        assert sum(counts) == -(-n // per_block) * per_block
        for count, tiles, tail in ((t["bigCoreDataNum"], t["finalBigTileNum"], t["bigTailDataNum"]),
                                   (t["smallCoreDataNum"], t["finalSmallTileNum"], t["smallTailDataNum"])):
            if count and count in counts:
                assert (tiles - 1) * t["tileDataNum"] + tail == count and 0 < tail <= t["tileDataNum"]


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, n", [(np.float32, 100003), (np.float16, 70001), (np.float32, 5), (np.float16, 16)])
def test_square_diff_is_the_numpy_model(device, dtype, n):
    _, m = _spec_and_module("square_diff")
    rng = np.random.default_rng(n)
    x = rng.uniform(-100, 100, n).astype(dtype)
    y = rng.uniform(-100, 100, n).astype(dtype)
    z = m.run_square_diff(device, x, y)
    assert z.dtype == x.dtype and z.size == n and _same(z, m.square_diff_model(x, y))


def test_square_diff_is_the_formula_within_rounding_and_specials():
    _, m = _spec_and_module("square_diff")
    for dtype, ulp in ((np.float32, 2 ** -24), (np.float16, 2 ** -11)):
        rng = np.random.default_rng(3)
        x = rng.uniform(-50, 50, 4001).astype(dtype)
        y = rng.uniform(-50, 50, 4001).astype(dtype)
        z = m.run_square_diff("atlas-a2", x, y).astype(np.float64)
        xs, ys = x.astype(np.float64) ** 2, y.astype(np.float64) ** 2
        assert np.all(np.abs(z - (xs - ys)) <= ulp * (2 * (xs + ys) + np.abs(xs - ys)))
    x = np.array([np.inf, np.inf, np.nan, 3.0, -3.0, 0.0, 1e20, 2.0], np.float32)
    y = np.array([np.inf, 1.0, 0.0, -3.0, 4.0, -0.0, 1.0, 1e20], np.float32)
    z = m.run_square_diff("atlas-a3", x, y)
    assert _same(z, m.square_diff_model(x, y))
    assert np.isnan(z[[0, 2]]).all() and z[1] == np.inf and z[3:6].tolist() == [0.0, -7.0, 0.0]
    assert z[6] == np.inf and z[7] == -np.inf


def test_square_diff_original_whole_blocks_pass_the_gm_end():
    """Unpadded GM of 1001 floats: the last core's DataCopies move whole 32-byte blocks, past the end of x."""
    _, m = _spec_and_module("square_diff")
    x = np.ones(1001, np.float32)
    with pytest.raises(aj.OutOfBoundsError, match="SetGlobalBuffer"):
        m.run_square_diff("atlas-a2", x, x, pad_gm=False)
    assert _same(m.run_square_diff("atlas-a2", x, x), np.zeros(1001, np.float32))


def test_square_diff_runs_clean_under_the_sanitizer():
    for name in ("square_diff", "square_diff_half"):
        k, _ = _spec_and_module(name)
        inputs = k.make_inputs(20011, 0)
        assert _reports(lambda: k.run("atlas-a2", inputs)) == [], name
        assert _reports(lambda: k.run("atlas-a3", inputs), "device-sync") == [], name


# kernels/softmax_membase.py

def test_softmax_membase_blocks_and_tiles():
    _, m = _spec_and_module("softmax_membase")
    assert m.block_count(256, 2048, 8, 2048) == 32 and m.block_count(37, 2048, 8, 2048) == 5
    assert m.block_count(37, 64, 3, 64) == 13


@pytest.mark.parametrize("device", ALL3)
def test_softmax_membase_is_the_numpy_model(device):
    """37 rows of 2048: five blocks, the last of 5 rows (tiles of 2, 2, 1); and 13 rows of 72 in blocks of 3 rows,
    tiles of 2: the count-form ReduceSum tree of each device."""
    _, m = _spec_and_module("softmax_membase")
    rng = np.random.default_rng(7)
    for shape, core_m in (((37, 2048), 8), ((13, 72), 3)):
        x = rng.uniform(-3, 3, shape).astype(np.float32)
        y = m.run_softmax_membase(device, x, singleCoreM=core_m)
        assert _same(y, m.softmax_membase_model(device, x)), (device, shape)


def test_softmax_membase_is_the_formula_within_rounding():
    _, m = _spec_and_module("softmax_membase")
    x = np.random.default_rng(1).uniform(-8, 8, (9, 2048)).astype(np.float32)
    x[0, :5] = [80.0, 79.0, -80.0, 0.0, 80.0]                     # large values: the max shift keeps exp finite
    y = m.run_softmax_membase("ascend950", x).astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    assert np.all(np.abs(y - want) <= 2e-6 * want + 1e-37)
    assert np.allclose(y.sum(axis=1), 1.0, atol=1e-5)


def test_softmax_membase_original_scalar_reads_race_the_reductions():
    """The original reads the max and the sum from the UB after PipeBarrier<PIPE_V> only: the scalar unit is not
    ordered after the vector pipe (two RAW reports a row); the port's V_S pairs make it clean."""
    _, m = _spec_and_module("softmax_membase")
    x = np.random.default_rng(2).uniform(-1, 1, (3, 64)).astype(np.float32)
    reports = [str(r) for r in _reports(lambda: m.run_softmax_membase("ascend950", x, original_sync=True))]
    assert reports and all("RAW: GetValue [PIPE_S]" in r and "V_S" in r for r in reports)
    assert any("after ReduceMax" in r for r in reports) and any("after ReduceSum" in r for r in reports)
    assert _reports(lambda: m.run_softmax_membase("ascend950", x), "device-sync") == []


def test_softmax_membase_runs_clean_under_the_sanitizer():
    k, _ = _spec_and_module("softmax_membase")
    inputs = k.make_inputs(11, 0)
    for device in ("ascend950", "atlas-a2"):
        assert _reports(lambda: k.run(device, inputs)) == [], device
        assert _reports(lambda: k.run(device, inputs), "device-sync") == [], device


# kernels/kv_rms_norm_rope_cache.py

def test_kv_rms_norm_rope_cache_tiling():
    _, m = _spec_and_module("kv_rms_norm_rope_cache")
    blocks, t = m.build_tiling(8, 128)
    assert blocks == 8 and (int(t["blockFactor"]), int(t["ubFactor"]), int(t["cacheLength"])) == (128, 8, 128)
    assert t["reciprocal"] == np.float32(2.0 ** -9) and t["epsilon"] == np.float32(1e-5)
    blocks, t = m.build_tiling(1, 61)                               # 8 rows a block, the last block 5
    assert blocks == 8 and int(t["blockFactor"]) == 8
    blocks, t = m.build_tiling(1, 3)                                # fewer rows than cores: a row a block
    assert blocks == 3 and int(t["ubFactor"]) == 1


@pytest.mark.parametrize("device", ALL3)
@pytest.mark.parametrize("batch, seq", [(8, 20), (1, 61)])
def test_kv_rms_norm_rope_cache_is_the_numpy_model(device, batch, seq):
    """160 rows: blocks of 20 rows in tiles of 8, 8, 4; 61 rows: blocks of 8 (the last 5); 10% of the tokens not
    cached (index -1)."""
    k, m = _spec_and_module("kv_rms_norm_rope_cache")
    inputs = m.make_inputs_bs(batch, seq, seq)
    out = m.run_kv_rms_norm_rope_cache(device, inputs)
    want = m.kv_rms_norm_rope_cache_model(device, inputs)
    for name in ("k_out", "v_out", "k_cache", "v_cache"):
        assert out[name].dtype == BF16 and _same(out[name], want[name]), (device, name)


def test_kv_rms_norm_rope_cache_is_the_formula_and_scatters_by_index():
    """Against the sample's gen_data.py golden in float64 within bfloat16's rounding; the cache rows of tokens with
    index -1 keep their old values, the others hold the token's outputs at its slot."""
    _, m = _spec_and_module("kv_rms_norm_rope_cache")
    inputs = m.make_inputs_bs(2, 40, 5, skip=0.25)
    out = m.run_kv_rms_norm_rope_cache("ascend950", inputs)
    kv = inputs["kv"].astype(np.float64)
    x, r = kv[..., :m.DV], kv[..., m.DV:]
    v = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-5) * inputs["gamma"].astype(np.float64)
    real, imag = r[..., 0::2], r[..., 1::2]
    cos, sin = inputs["cos"].astype(np.float64), inputs["sin"].astype(np.float64)
    k = np.concatenate([real, imag], -1) * cos + np.concatenate([-imag, real], -1) * sin
    for got, want in ((out["v_out"], v), (out["k_out"], k)):
        g = got.astype(np.float64)
        assert np.all(np.abs(g - want) <= 2 ** -8 * np.abs(want) + 1e-5)
    index = inputs["index"]
    for b in range(2):
        cached = set(index[b][index[b] >= 0].tolist())
        for slot in range(40):
            if slot not in cached:
                assert _same(out["k_cache"][b, slot], inputs["k_cache"][b, slot])
                assert _same(out["v_cache"][b, slot], inputs["v_cache"][b, slot])
        for s in np.nonzero(index[b] >= 0)[0]:
            assert _same(out["k_cache"][b, index[b, s]], out["k_out"][b, s])
            assert _same(out["v_cache"][b, index[b, s]], out["v_out"][b, s])


def test_kv_rms_norm_rope_cache_original_float_mask_high_word_is_refused():
    """The original's {UINT64_MAX, UINT64_MAX} mask on the float Adds / Divs: SPEC 2.1 (maskHigh 0 for 32-bit)."""
    _, m = _spec_and_module("kv_rms_norm_rope_cache")
    inputs = m.make_inputs_bs(1, 16, 0)
    for device in ("ascend950", "atlas-a2"):
        with pytest.raises(aj.ParameterError, match=r"mask\[1\]"):
            m.run_kv_rms_norm_rope_cache(device, inputs, original_mask=True)


def test_kv_rms_norm_rope_cache_runs_clean_under_the_sanitizer():
    k, _ = _spec_and_module("kv_rms_norm_rope_cache")
    inputs = k.make_inputs(5, 0)
    assert _reports(lambda: k.run("ascend950", inputs)) == []
    assert _reports(lambda: k.run("atlas-a3", inputs), "device-sync") == []


# kernels/rms_norm_quant_story.py

def test_rms_norm_quant_story_tiling():
    _, m = _spec_and_module("rms_norm_quant_story")
    blocks, t = m.calc_tiling(4096, 8192)                           # the sample's shape: 8 blocks of 512 rows
    assert blocks == 8 and (int(t["blockFactor"]), int(t["blockTail"])) == (512, 512)
    blocks, t = m.calc_tiling(37, 8192)                             # 8 blocks of 5 rows, the last 2
    assert blocks == 8 and (int(t["blockFactor"]), int(t["blockTail"])) == (5, 2)
    blocks, t = m.calc_tiling(3, 8192)
    assert blocks == 3 and (int(t["blockFactor"]), int(t["blockTail"])) == (1, 1)


@pytest.mark.parametrize("rows, scale_range", [(37, 0.5), (9, 10.0)])
def test_rms_norm_quant_story_is_the_numpy_model(rows, scale_range):
    """37 rows: blocks of 5 and a last block of 2; gen_data.py's scale range (up to 10) saturates part of the int8
    output at -128 / 127."""
    _, m = _spec_and_module("rms_norm_quant_story")
    inputs = m.make_inputs_ar(rows, m.R_DIM, rows, scale_range=scale_range)
    y = m.run_rms_norm_quant_story("ascend950", **inputs)
    assert y.dtype == np.int8 and np.array_equal(y, m.rms_norm_quant_story_model("ascend950", **inputs))
    if scale_range > 1:
        assert ((y == 127) | (y == -128)).any()


def test_rms_norm_quant_story_is_the_formula_within_one_step():
    _, m = _spec_and_module("rms_norm_quant_story")
    inputs = m.make_inputs_ar(5, m.R_DIM, 3, scale_range=0.5)
    y = m.run_rms_norm_quant_story("ascend950", **inputs).astype(np.int64)
    x = inputs["x"].astype(np.float64)
    v = x / np.sqrt(np.mean(x * x, axis=1, keepdims=True) + 1e-6) * inputs["gamma"].astype(np.float64)
    v = v * float(inputs["scale"][0]) + float(inputs["offset"][0])
    assert np.all(np.abs(y - np.clip(v, -128, 127)) <= 1.0) and np.abs(v).max() < 127


def test_rms_norm_quant_story_original_in_place_narrowing_cast_is_refused():
    """Cast(rmsLocal as half, rmsLocal, CAST_NONE): overlapping source and destination of different sizes (SPEC-2
    D34)."""
    _, m = _spec_and_module("rms_norm_quant_story")
    inputs = m.make_inputs_ar(2, m.R_DIM, 0)
    with pytest.raises(aj.OverlapError, match="D34"):
        m.run_rms_norm_quant_story("ascend950", **inputs, original_cast=True)


def test_rms_norm_quant_story_runs_clean_under_the_sanitizer():
    k, _ = _spec_and_module("rms_norm_quant_story")
    inputs = k.make_inputs(11, 0)
    assert _reports(lambda: k.run("ascend950", inputs)) == []
    assert _reports(lambda: k.run("ascend950", inputs), "device-sync") == []


# kernels/sigmoid_custom.py

def test_sigmoid_custom_tiling_leaves_the_stack_buffer_its_8_kb():
    _, m = _spec_and_module("sigmoid_custom")
    used, raw = m.tiling("atlas-a2", 100003, "float")
    t = m.SigmoidCustomTilingData.from_buffer_copy(raw.tobytes())
    # (196608 - 8192) / 32 / 2 / 2 = 1472 blocks: 11776 floats a tile; four buffers leave 8192 bytes
    assert used == 8 and t.tileDataNum == 11776 and 4 * t.tileDataNum * 4 == 196608 - 8192
    _, raw = m.tiling("atlas-a2", 100003, "float", original_tiling=True)
    t = m.SigmoidCustomTilingData.from_buffer_copy(raw.tobytes())
    assert 4 * t.tileDataNum * 4 == 196608                         # the original's: the whole UB


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, n", [(np.float32, 100003), (np.float16, 50003), (np.float32, 5)])
def test_sigmoid_custom_is_the_numpy_model(device, dtype, n):
    """Tiles of several 2048-float (4096-half) counter-mode chunks and a tail chunk; one block."""
    _, m = _spec_and_module("sigmoid_custom")
    lim = 20.0 if dtype == np.float32 else 8.0
    x = np.random.default_rng(n).uniform(-lim, lim, n).astype(dtype)
    y = m.run_sigmoid_custom(device, x)
    assert y.dtype == x.dtype and _same(y, m.sigmoid_custom_model(x))


def test_sigmoid_custom_is_the_formula_within_rounding():
    _, m = _spec_and_module("sigmoid_custom")
    for dtype, rtol in ((np.float32, 4e-7), (np.float16, 2e-3)):
        x = np.random.default_rng(4).uniform(-8, 8, 3001).astype(dtype)
        x[:4] = [0.0, -0.0, 8.0, -8.0]
        y = m.run_sigmoid_custom("atlas-a3", x).astype(np.float64)
        want = 1.0 / (1.0 + np.exp(-x.astype(np.float64)))
        assert np.all(np.abs(y - want) <= rtol * want) and y[0] == 0.5 and y[1] == 0.5


def test_sigmoid_custom_original_tiling_leaves_no_stack_buffer():
    """The original's tiling hands the queues the whole UB: the advanced Sigmoid's PopStackBuffer finds none."""
    _, m = _spec_and_module("sigmoid_custom")
    x = np.zeros(1000, np.float32)
    with pytest.raises(aj.OutOfBoundsError, match="PopStackBuffer"):
        m.run_sigmoid_custom("atlas-a2", x, original_tiling=True)


def test_sigmoid_custom_runs_clean_under_the_sanitizer():
    for name in ("sigmoid_custom", "sigmoid_custom_half"):
        k, _ = _spec_and_module(name)
        inputs = k.make_inputs(5003, 0)
        assert _reports(lambda: k.run("atlas-a2", inputs)) == [], name
        assert _reports(lambda: k.run("atlas-a3", inputs), "device-sync") == [], name


# kernels/simd_vf_broadcast.py

@pytest.mark.parametrize("case, rows", [("head", 17), ("mid", 8), ("tail", 17), ("distbrc", 17), ("head", 1),
                                        ("mid", 2), ("tail", 3), ("distbrc", 9)])
def test_vf_broadcast_is_the_model_and_the_formula(case, rows):
    """653-float rows (10 whole vectors and a 13-lane UpdateMask tail) at a 656-float UB pitch."""
    _, m = _spec_and_module(f"vf_broadcast_{case}")
    inputs = m.make_case_inputs(case, rows, rows)
    y = m.run_broadcast(case, inputs["x"], inputs["a"])
    assert y.shape == inputs["x"].shape and _same(y, m.broadcast_model(case, inputs["x"], inputs["a"]))
    x, a = inputs["x"].astype(np.float64), inputs["a"].astype(np.float64)
    want = x + (a[:, None, :] if case == "mid" else a if case == "head" else a[:, None])
    assert np.all(np.abs(y - want) <= 2 ** -24 * np.abs(want) + 1e-45)


@pytest.mark.parametrize("case", ["head", "mid", "tail", "distbrc"])
def test_vf_broadcast_original_whole_vector_loads_pass_the_buffers(case):
    """Without the port's vector of slack the last row's last LoadAlign (floats 640-703 of a 656-float row) leaves
    the x tensor (and, in the head case, a's 656 floats too): refused as out of the operand's tensor."""
    _, m = _spec_and_module(f"vf_broadcast_{case}")
    inputs = m.make_case_inputs(case, 3, 0)
    with pytest.raises(aj.OutOfBoundsError, match="LoadAlign"):
        m.run_broadcast(case, inputs["x"], inputs["a"], slack=False)


def test_vf_broadcast_tail_original_getvalue_races_the_copy_on_the_device():
    """GetValue right after the VECIN DeQue: the queue's MTE2_V event does not order the scalar unit."""
    _, m = _spec_and_module("vf_broadcast_tail")
    inputs = m.make_case_inputs("tail", 3, 0)
    run = (lambda sync: lambda: m.run_broadcast("tail", inputs["x"], inputs["a"], original_sync=sync))
    reports = [str(r) for r in _reports(run(True), "report,device-sync")]
    assert len(reports) == 3 and all("RAW: GetValue [PIPE_S]" in r and "MTE2_S" in r for r in reports)
    assert _reports(run(False), "report,device-sync") == []


def test_vf_broadcast_runs_clean_under_the_sanitizer():
    for case in ("head", "mid", "tail", "distbrc"):
        k, _ = _spec_and_module(f"vf_broadcast_{case}")
        inputs = k.make_inputs(3, 2)
        assert _reports(lambda: k.run("ascend950", inputs)) == [], case
        assert _reports(lambda: k.run("ascend950", inputs), "report,device-sync") == [], case


# kernels/rope_simd.py

@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("pairs", [384, 8, 4096])
def test_rope_simd_is_the_numpy_model(device, pairs):
    _, m = _spec_and_module("rope_simd")
    inputs = m.make_inputs(pairs, pairs)
    out_even, out_odd = m.run_rope_simd(device, inputs["x_even"], inputs["x_odd"], inputs["cos"], inputs["sin"])
    want_even, want_odd = m.rope_simd_model(inputs["x_even"], inputs["x_odd"], inputs["cos"], inputs["sin"])
    assert _same(out_even, want_even) and _same(out_odd, want_odd)


def test_rope_simd_rotates_the_host_split_pairs():
    """The host splits a [12, 64] tensor's interleaved pairs; each output pair is the pair rotated by its angle
    (within the products' and the sum's roundings), so its length is kept."""
    _, m = _spec_and_module("rope_simd")
    x = np.random.default_rng(9).uniform(-2, 2, (12, 64)).astype(np.float32)
    x_even, x_odd = m.split_pairs(x)
    assert np.array_equal(x_even, x.reshape(-1)[0::2]) and x_even.size == m.TOTAL_PAIRS
    theta = np.linspace(-np.pi, np.pi, m.TOTAL_PAIRS)
    cos, sin = np.cos(theta).astype(np.float32), np.sin(theta).astype(np.float32)
    out_even, out_odd = m.run_rope_simd("atlas-a2", x_even, x_odd, cos, sin)
    c, s = cos.astype(np.float64), sin.astype(np.float64)
    xe, xo = x_even.astype(np.float64), x_odd.astype(np.float64)
    bound = 2 ** -23 * (np.abs(xe) + np.abs(xo)) * 2
    assert np.all(np.abs(out_even - (xe * c - xo * s)) <= bound)
    assert np.all(np.abs(out_odd - (xe * s + xo * c)) <= bound)
    assert np.allclose(np.hypot(out_even, out_odd), np.hypot(xe, xo), rtol=1e-6)


def test_rope_simd_runs_clean_under_the_sanitizer():
    k, _ = _spec_and_module("rope_simd")
    inputs = k.make_inputs(384, 0)
    assert _reports(lambda: k.run("atlas-a2", inputs)) == []
    assert _reports(lambda: k.run("atlas-a3", inputs), "report,device-sync") == []


# kernels/as_strided.py

def _as_strided_head(m, t):
    return np.frombuffer(t[:m.AsStridedTilingData.itemsize].tobytes(), m.AsStridedTilingData)[0]


def test_as_strided_tiling_paths_and_the_appended_table():
    _, m = _spec_and_module("as_strided")
    # 100 floats: Path A; (188416 - 416) / 12 = 15666 -> 15664 elements a tile; the 20 byte offsets appended
    block_dim, t = m.tiling(100, "float", (4, 5), (10, 1), 3)
    h = _as_strided_head(m, t)
    assert block_dim == 8 and (int(h["pathFlag"]), int(h["tileSize"]), int(h["offsetTableInTiling"])) == (0, 15664, 1)
    assert list(h["dimStride"]) == [5, 1, 1, 1] and t.size == m.AsStridedTilingData.itemsize + 20 * 4
    assert t[m.AsStridedTilingData.itemsize:].view(np.uint32)[:3].tolist() == [12, 16, 20]     # (3 + j) * 4 bytes
    # an input past the UB budget: Path B, index table, (188416 - 32) / 6 -> 31392 elements a tile
    h = _as_strided_head(m, m.tiling(100000, "half", (8,), (2,), 0)[1])
    assert (int(h["pathFlag"]), int(h["tileSize"])) == (1, 31392)
    # a table past the tiling buffer's capacity: computed on the scalar unit
    assert int(_as_strided_head(m, m.tiling(20000, "float", (2500, 4), (1, 2), 2)[1])["offsetTableInTiling"]) == 0


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("view", [((4, 5), (10, 1), 3), ((3, 4), (-5, 7), 40), ((2, 3, 4), (30, 10, 1), 0),
                                  ((2, 2, 2, 3), (40, -9, 5, 2), 30)])
@pytest.mark.parametrize("path, capacity", [(None, 16384), (None, 0), (1, 16384), (1, 0)])
def test_as_strided_is_the_numpy_model(device, view, path, capacity):
    """Both paths, with the host's table and with the scalar unit's offsets, up to 4 dimensions, negative strides."""
    _, m = _spec_and_module("as_strided")
    x = np.random.default_rng(1).uniform(-9, 9, 100).astype(np.float32)
    y = m.run_as_strided(device, x, *view, capacity=capacity, force_path=path)
    assert _same(y, m.as_strided_model(x, *view, capacity=capacity, force_path=path))
    size, stride, off = view
    for i in np.ndindex(*size):                       # the formula: every index inside the input here
        assert y[i] == x[off + sum(a * b for a, b in zip(i, stride))]


def test_as_strided_on_the_fly_offsets_carry_on_after_a_reset():
    """A view leaving the input: the host's table reads x[0] for each index past the end; the kernel's incremental
    state resets to 0 and advances from there (the original's behaviour, both paths)."""
    _, m = _spec_and_module("as_strided")
    x = np.arange(100, dtype=np.int32)
    for path in (None, 1):
        table = m.run_as_strided("atlas-a2", x, (50,), (3,), 1, force_path=path)
        fly = m.run_as_strided("atlas-a2", x, (50,), (3,), 1, capacity=0, force_path=path)
        assert table[33:].tolist() == [0] * 17                   # 1 + 3 * 33 = 100: past the input
        # cores of 7 elements: core 4 (28-34) resets at 33 and goes on to 3; core 5 starts at 106 -> 0, then 3, 6
        assert fly[33:35].tolist() == [0, 3] and fly[35:38].tolist() == [0, 3, 6]
        assert _same(fly, m.as_strided_model(x, (50,), (3,), 1, capacity=0, force_path=path))


def test_as_strided_original_path_b_scalar_accesses_race_on_the_device():
    """Path B's GetValue after the VECIN DeQue and SetValue before the VECOUT EnQue: the queues' events order the
    vector pipe, not the scalar unit (12 elements: 12 MTE2 -> S reads and the copy-outs after the writes)."""
    _, m = _spec_and_module("as_strided")
    x = np.arange(100, dtype=np.float32)
    run = (lambda sync: lambda: m.run_as_strided("atlas-a2", x, (3, 4), (-5, 7), 40, force_path=1,
                                                  original_sync=sync))
    reports = [str(r) for r in _reports(run(True), "report,device-sync")]
    assert any("GetValue [PIPE_S]" in r and "MTE2_S" in r for r in reports)
    assert any("DataCopyPad [PIPE_MTE3]" in r and "S_MTE3" in r for r in reports)
    assert _reports(run(False), "report,device-sync") == []


def test_as_strided_runs_clean_under_the_sanitizer():
    for name in ("as_strided", "as_strided_int32", "as_strided_half"):
        k, _ = _spec_and_module(name)
        inputs = k.make_inputs(5001, 0)
        assert _reports(lambda: k.run("atlas-a2", inputs), "report,device-sync") == [], name


@pytest.mark.parametrize("capacity, writer", [(16384, "DataCopyPad"), (0, "SetValue")])
def test_as_strided_original_path_a_gather_races_its_veccalc_offsets_on_the_device(capacity, writer):
    """Session 63 (port63k): the offset tables go through a TQue<VECCALC>, whose device events are UB -> UB's
    MTE2_MTE3 / MTE3_MTE2: its EnQue/DeQue does not order path A's Gather after the offsets' DataCopyPad (the table
    from the tiling) or SetValues (computed on the scalar unit); the port's MTE2_V / S_V pairs do."""
    _, m = _spec_and_module("as_strided")
    x = np.arange(3000, dtype=np.float32)
    run = (lambda sync: lambda: m.run_as_strided("atlas-a2", x, (40, 30), (31, 2), 5, force_path=0,
                                                  capacity=capacity, original_sync=sync))
    kinds = {(r.kind, r.instruction.api, r.earlier.api) for r in _reports(run(True), "report,device-sync")}
    assert kinds == {("RAW", "Gather", writer)}
    assert _reports(run(False), "report,device-sync") == []
    assert _reports(run(True)) == []   # SPEC-2 10.4: the queue's EnQue/DeQue is a hand-off


@pytest.mark.parametrize("path, capacity", [(0, 16384), (0, 0), (1, 16384), (1, 0)])
def test_as_strided_flag_pairs_hold_over_several_tiles_a_core(path, capacity):
    """Review of session 63: the port's refill pairs (V_MTE2 / V_S / S_MTE2, path B's MTE3_S) act from a core's second
    tile on, which the gallery sizes never reach (one tile a core): a tiling of 8-element tiles on one core runs five
    tiles; device-sync is clean with the port's pairs and reports the original's races without them."""
    _, m = _spec_and_module("as_strided")
    x = np.arange(300, dtype=np.float32)
    size, stride, offset = (8, 5), (7, 3), 2
    _, t = m.tiling(x.size, "float", size, stride, offset, capacity, path)
    n = m.AsStridedTilingData.itemsize
    head = np.frombuffer(t[:n].tobytes(), m.AsStridedTilingData).copy()
    head["tileSize"], head["blockDim"] = 8, 1
    t = np.concatenate([np.frombuffer(head.tobytes(), np.uint8), t[n:]])
    for sync, mode in ((False, "report,device-sync"), (True, "report,device-sync"), (True, "report")):
        out = np.zeros(40, np.float32)
        reports = _reports(lambda: aj.launch(m.as_strided, 1, "atlas-a2", x, out, None, t, "float", sync), mode)
        assert _same(out.reshape(size), m.as_strided_model(x, size, stride, offset, capacity, path))
        assert (reports != []) == (sync and "device-sync" in mode), (sync, mode, reports[:2])
