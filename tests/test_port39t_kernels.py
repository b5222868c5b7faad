"""The session-39 ports (port39t): kernels/index_check.py (ops-nn IndexCheck: count-form ReduceMin / ReduceMax,
Cast int64 -> int32, ShiftRight, ascendc_assert) and kernels/cast_v3.py (ops-math CastV3 on the 310P: GatherMask in
the 310P's reduce-mode configuration, counter-mode And with isSetMask false, CompareScalar / Select, a DataCopy and
GM SetValue copy-out). Each against numpy; the host tilings; each deviation's reason (the original's call run and
refused or reported); the sanitizer on shapes the defaults do not reach."""
import numpy as np
import pytest

import ascend_jit as aj
from ported import sanitizer_reports as _reports, spec_and_module as _spec_and_module


# kernels/index_check.py

def test_index_check_tiling_batches_and_cores():
    _, m = _spec_and_module("index_check")
    key, dim, raw = m.tiling("atlas-a2", [100003, 5, 7], "int32")
    t = m.IndexCheckTilingData.from_buffer_copy(raw.tobytes())
    # (196608 - 20480) / 24 = 7338 -> 7336; int64: / 28 = 6290 -> 6288
    assert (key, dim, t.params.usedCoreNum, t.params.tensorId, t.params.maxBatchSize) == (1, 8, 8, 3, 7336)
    assert list(t.params.tensorLens)[:4] == [100003, 5, 7, 0]
    key, dim, raw = m.tiling("atlas-a2", [3], "int64")
    t = m.IndexCheckTilingData.from_buffer_copy(raw.tobytes())
    assert (key, dim, t.params.maxBatchSize) == (0, 3, 6288)
    with pytest.raises(ValueError, match="int32 or int64"):
        m.tiling("atlas-a2", [4], "int16")


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_index_check_several_batches_a_core_and_scalar_shares_pass_in_range(dtype):
    """8 cores of two or three UB batches each (the last short), a 3-element tensor split over 3 cores (the scalar
    path), a tensor of 5 whose cores take under one block."""
    _, m = _spec_and_module("index_check")
    rng = np.random.default_rng(5)
    bounds = [60000, 7, 3]
    tensors = [rng.integers(-60000, 60000, 8 * 15000 + 13), np.array([-7, 6, 0]), np.array([2, -3, 1, 0, -1])]
    tensors = [t.astype(dtype) for t in tensors]
    status, err = m.run_index_check("atlas-a2", bounds, tensors)
    assert err is None and status.tolist() == [1, -1]


@pytest.mark.parametrize("dtype, bad, where, message", [
    ("int32", -60001, 20000, "too negative"),        # a batch: ReduceMin < 0
    ("int32", 60000, 119999, "exceeds bounds"),       # the last core's batch: ReduceMax >= 0
    ("int64", -60001, 3, "too negative"),
    ("int64", 2**40, 50000, "exceeds bounds"),         # saturated by the Cast to 2**31 - 1
])
def test_index_check_an_index_out_of_range_stops_the_core_with_the_assert(dtype, bad, where, message):
    _, m = _spec_and_module("index_check")
    t = np.zeros(120003, dtype)
    t[where] = bad
    status, err = m.run_index_check("atlas-a2", [5, 60000], [np.zeros(9, dtype), t])
    assert status.tolist() == [0, 1]
    assert "ascendc_assert" in str(err) and message in str(err) and "dimension 1" in str(err)
    assert m.expected_status([5, 60000], [np.zeros(9, dtype), t]).tolist() == [0, 1]


@pytest.mark.parametrize("value, message", [(-4, "too negative"), (3, "exceeds bounds")])
def test_index_check_scalar_share_asserts_by_gm_getvalue(value, message):
    _, m = _spec_and_module("index_check")
    status, err = m.run_index_check("atlas-a3", [3], [np.array([0, value, 1], np.int32)])
    assert status.tolist() == [0, 0] and message in str(err) and "index value %d" % value in str(err)


def test_index_check_deviation_1_the_in_place_reduce_min_is_refused(monkeypatch):
    """ReduceMin(floatLocal, floatLocal, workLocal, count, false): dst over src (SPEC-2 D34)."""
    k, m = _spec_and_module("index_check")
    monkeypatch.setattr(m, "ORIGINAL_IN_PLACE_REDUCE", True)
    with pytest.raises(aj.OverlapError, match="ReduceMin"):
        k.run("atlas-a2", k.make_inputs(1000, 1))


def test_index_check_deviation_2_the_950_refuses_int32_to_float_cast_none(monkeypatch):
    """The operator is configured for the ascend950 with this kernel; the 950's Cast table has no CAST_NONE for
    int32 -> float (SPEC-2 7.2). CAST_RINT gives the A2's values."""
    k, m = _spec_and_module("index_check")
    inputs = k.make_inputs(1000, 1)
    assert k.run("ascend950", inputs)["status"].tolist() == [1, -1]
    monkeypatch.setattr(m, "ORIGINAL_950_CAST_NONE", True)
    assert k.run("atlas-a2", inputs)["status"].tolist() == [1, -1]
    with pytest.raises(aj.UnsupportedDTypeError, match="CAST_NONE"):
        k.run("ascend950", inputs)


@pytest.mark.parametrize("name", ["index_check", "index_check_int64", "index_check_out_of_range"])
def test_index_check_is_sanitizer_clean_at_a_short_size(name):
    k, _ = _spec_and_module(name)
    inputs = k.make_inputs(1003, 4)
    out = {}
    assert _reports(lambda: out.update(k.run("atlas-a3", inputs))) == []
    assert out["status"].tolist() == k.expected("atlas-a3", inputs)["status"].tolist()


# kernels/cast_v3.py

def test_cast_v3_tiling_keys_and_tiles():
    _, m = _spec_and_module("cast_v3")
    dim, raw = m.tiling("atlas-inference-aicore", 100003, "int32", "int16")
    t = m.CastTilingData.from_buffer_copy(raw.tobytes())
    # 1562 units of 64 int32 over 8 cores: 195 units a core, the last core the rest; 262144 / 12 -> 21760
    assert (dim, t.formerBatchSize, t.formerCoreNum, t.tailBatchSize, t.ubProcessNum, t.tilingKey) == \
        (8, 12480, 7, 12643, 21760, 6)
    t = m.CastTilingData.from_buffer_copy(m.tiling("atlas-inference-aicore", 100, "half", "int8")[1].tobytes())
    assert (t.formerBatchSize, t.formerCoreNum, t.tailBatchSize, t.ubProcessNum) == (0, 0, 100, 26112)   # 262144 / 10
    assert m.CastTilingData.from_buffer_copy(m.tiling("atlas-inference-aicore", 99, "half", "int16")[1]
                                             .tobytes()).tilingKey == 1
    with pytest.raises(NotImplementedError, match="key 1"):
        m.run_cast("atlas-inference-aicore", np.zeros(64, np.float16), "int16")


@pytest.mark.parametrize("x_dtype, y_dtype", [("int32", "int16"), ("half", "uint8"), ("half", "int8"),
                                              ("half", "bool"), ("half", "int32"), ("int32", "float"),
                                              ("half", "float"), ("float", "half")])
@pytest.mark.parametrize("size", [5, 16, 333, 3 * 8 * 21760 + 77])
def test_cast_v3_generic_pairs_are_bit_exact(x_dtype, y_dtype, size):
    """Sizes: under one block (scalar copy-out only), one block, one core, 8 cores of 3-4 tiles (last tile short)."""
    _, m = _spec_and_module("cast_v3")
    rng = np.random.default_rng(size)
    if x_dtype == "int32":
        x = rng.integers(-2**31, 2**31, size, dtype=np.int64).astype(np.int32)
    else:
        x = (rng.standard_normal(size) * 300).astype(np.float32).astype(m._NP[x_dtype])
        x[::9] = 0
    y = m.run_cast("atlas-inference-aicore", x, y_dtype)
    assert y.tobytes() == m.reference(x, y_dtype).tobytes()


@pytest.mark.parametrize("y_dtype", ["int16", "int8"])
def test_cast_v3_float_to_integer_pairs_are_refused_on_the_310p(y_dtype):
    """The generic kernel's float -> int16 / int8 / uint8 / int32 start with Cast float -> int32 CAST_TRUNC; SPEC-2
    7.2's 310P row has no float -> int32 (the operator is 310P-only)."""
    _, m = _spec_and_module("cast_v3")
    with pytest.raises(aj.UnsupportedDTypeError, match="float -> int32"):
        m.run_cast("atlas-inference-aicore", np.ones(64, np.float32), y_dtype)


def test_cast_v3_int32_to_half_needs_set_deq_scale_which_is_not_offered():
    _, m = _spec_and_module("cast_v3")
    with pytest.raises(aj.NotOfferedError, match="SetDeqScale"):
        m.run_cast("atlas-inference-aicore", np.ones(64, np.int32), "half")


def test_cast_v3_deviation_1_original_deq_cast_is_not_offered(monkeypatch):
    k, m = _spec_and_module("cast_v3_half_uint8")
    monkeypatch.setattr(m, "ORIGINAL_DEQ_CAST", True)
    with pytest.raises(aj.NotOfferedError, match="SetDeqScale"):
        k.run("atlas-inference-aicore", k.make_inputs(1000, 1))


def test_cast_v3_deviation_1_the_in_place_narrowing_cast_overlaps():
    """Cast(halfView, src, CAST_NONE) with halfView = src.ReinterpretCast<half>(): the same start, different sizes
    (SPEC-2 D34). Shown with float -> half, the 310P pair nearest to the original's int32 -> half."""
    core = aj.Core("atlas-inference-aicore")
    with core:
        src = core.local_tensor("float", 64)
        src[:] = np.arange(64, dtype=np.float32)
        with pytest.raises(aj.OverlapError, match="D34"):
            aj.Cast(src.ReinterpretCast("half"), src, aj.RoundMode.CAST_NONE, 64)


def test_cast_v3_deviation_2_unaligned_copy_out_count_is_refused(monkeypatch):
    k, m = _spec_and_module("cast_v3")
    monkeypatch.setattr(m, "ORIGINAL_UNALIGNED_COPY_OUT", True)
    assert k.run("atlas-inference-aicore", k.make_inputs(64 * 8, 1))["y"].size == 512    # whole blocks: no change
    with pytest.raises(aj.AlignmentError, match="whole DataBlocks"):
        k.run("atlas-inference-aicore", k.make_inputs(1003, 1))


def test_cast_v3_deviation_3_original_rounded_bool_compare_reads_lanes_past_the_copy(monkeypatch):
    """A tile of 77 halves: copied as 80, compared and selected as 128."""
    k, m = _spec_and_module("cast_v3_half_bool")
    inputs = k.make_inputs(77, 2)
    assert not _reports(lambda: k.run("atlas-inference-aicore", inputs))
    monkeypatch.setattr(m, "ORIGINAL_ROUNDED_READS", True)
    out = {}
    reports = _reports(lambda: out.update(k.run("atlas-inference-aicore", inputs)))
    assert reports and {r.check for r in reports} == {"init"}
    assert {r.instruction.api for r in reports} <= {"CompareScalar", "Compares", "Select"}
    assert np.array_equal(out["y"], inputs["x"] != 0)


def test_cast_v3_gather_mask_repeat_times_zero_moves_nothing_off_the_310p():
    """The kernel's GatherMask(dst, src, 1, true, 2 * n, {1, 0, 8, 0}): on the 310P mask is the total count; on the
    A2 (configuration one) each of repeatTimes = 0 repeats handles mask elements: nothing (SPEC-2 D58)."""
    for device, want in (("atlas-inference-aicore", 64), ("atlas-a2", 0)):
        core = aj.Core(device)
        with core:
            src = core.local_tensor("int32", 64)
            dst = core.local_tensor("int16", 64)
            src[:] = np.arange(64, dtype=np.int32) - 5
            dst[:] = np.full(64, 7, np.int16)
            cnt = aj.GatherMask(dst, src.ReinterpretCast("int16"), 1, True, 128, aj.GatherMaskParams(1, 0, 8, 0))
            core.PipeBarrier(aj.PIPE_ALL)
            assert cnt == want
            assert dst.numpy().tolist() == (list(range(-5, 59)) if want else [7] * 64)


@pytest.mark.parametrize("name", ["cast_v3", "cast_v3_half_uint8", "cast_v3_half_int8", "cast_v3_half_bool"])
def test_cast_v3_is_sanitizer_clean_with_tails(name):
    k, _ = _spec_and_module(name)
    inputs = k.make_inputs(2 * 8 * 21760 // 2 + 45, 3)
    out = {}
    assert _reports(lambda: out.update(k.run("atlas-inference-aicore", inputs))) == []
    assert out["y"].tobytes() == k.expected("atlas-inference-aicore", inputs)["y"].tobytes()


# kernels/lp_norm_v3.py

def _core_shares(m, n, dtype):
    """(start, count) of each core's share from the tiling (big cores first)."""
    dim, _, raw, _ = m.tiling("atlas-a2", (n,), dtype, np.inf, -1)
    t = np.frombuffer(raw.tobytes(), m.LpNormV3TilingData)[0]
    shares, start = [], 0
    for b in range(dim):
        count = int(t["bigCoreDataNum"] if b < int(t["tailBlockNum"]) else t["smallCoreDataNum"])
        shares.append((start, count))
        start += count
    return shares


def test_lp_norm_v3_tiling_tiles_cores_and_workspace():
    _, m = _spec_and_module("lp_norm_v3")
    dim, mode, raw, work = m.tiling("atlas-a2", (312, 64), "float", np.inf, -1)
    t = np.frombuffer(raw.tobytes(), m.LpNormV3TilingData)[0]
    # 196608 / 2 / 32 / 10 = 307 blocks a tile (2456 floats); 2496 blocks over 8 cores: 312 each
    assert (dim, mode, work, int(t["tileDataNum"]), int(t["smallCoreDataNum"]), int(t["tailBlockNum"])) == \
        (8, 0, 16, 2456, 2496, 0)
    assert (int(t["finalSmallTileNum"]), int(t["smallTailDataNum"])) == (2, 40)
    dim, mode, raw, work = m.tiling("atlas-a2", (10, 48), "half", -np.inf, 0)
    t = np.frombuffer(raw.tobytes(), m.LpNormV3TilingData)[0]
    assert (dim, mode, work, int(t["rows"]), int(t["cols"]), float(t["p"])) == (1, 1, 160, 10, 48, -np.inf)
    assert m.tiling("atlas-a2", (10, 40), "float", np.inf, 1)[1:4:2] == (2, 640)


@pytest.mark.parametrize("shape, dtype, p, axis", [
    ((313, 64), "float", -np.inf, -1), ((157, 32), "half", np.inf, -1), ((130, 48), "float", np.inf, 0),
    ((64, 40), "half", -np.inf, 1), ((1, 8), "float", np.inf, 1), ((16, 1), "half", -np.inf, 0)])
def test_lp_norm_v3_infinity_norms_are_bit_exact(shape, dtype, p, axis):
    _, m = _spec_and_module("lp_norm_v3")
    rng = np.random.default_rng(sum(shape))
    x = (rng.standard_normal(shape) * 4).astype(m._NP[dtype])
    y = m.run_lp_norm("atlas-a2", x, p, axis)
    with np.errstate(over="ignore"):
        assert y.tobytes() == m.reference(x, p, axis).tobytes()


def test_lp_norm_v3_finite_p_is_not_ported():
    _, m = _spec_and_module("lp_norm_v3")
    with pytest.raises(NotImplementedError, match="Power"):
        m.run_lp_norm("atlas-a2", np.ones((4, 8), np.float32), 2.0, -1)


def test_lp_norm_v3_deviation_1_original_atomic_add_sums_the_cores_maxima(monkeypatch):
    """SetAtomicMax then SetAtomicAdd: the slot receives sum over cores of (core max + eps)."""
    k, m = _spec_and_module("lp_norm_v3")
    inputs = k.make_inputs(20000, 3)
    x = inputs["x"]
    monkeypatch.setattr(m, "ORIGINAL_ATOMIC_ADD", True)
    y = k.run("atlas-a2", inputs)["y"]
    flat = np.abs(x.reshape(-1))
    parts = [np.float32(flat[s:s + c].max()) + m.EPSILON for s, c in _core_shares(m, x.size, "float")]
    assert len(parts) == 8
    total = np.float32(0)
    for v in parts:                       # blocks commit in block order (aj.launch atomic_order="block")
        total = np.float32(total + v)
    assert y.tobytes() == (x / total).astype(np.float32).tobytes()
    assert not np.array_equal(y, k.expected("atlas-a2", inputs)["y"])


def test_lp_norm_v3_deviation_2_original_tmp_base_in_bytes_overruns(monkeypatch):
    k, m = _spec_and_module("lp_norm_v3_max_cols")
    monkeypatch.setattr(m, "ORIGINAL_BASE_BYTES", True)
    monkeypatch.setattr(m, "ORIGINAL_BASE_GAPS", True)
    with pytest.raises(aj.OutOfBoundsError, match="SetValue|DataCopy"):
        k.run("atlas-a2", k.make_inputs(400, 1))


@pytest.mark.parametrize("flag, checks, apis", [
    ("ORIGINAL_BASE_GAPS", {("init", "DataCopy")}, None),
    ("ORIGINAL_SYNC", {("race", "GetValue"), ("race", "SetValue"), ("race", "DataCopy")}, None)])
def test_lp_norm_v3_deviations_3_4_original_reports_with_the_same_outputs(monkeypatch, flag, checks, apis):
    k, m = _spec_and_module("lp_norm_v3_max_cols")
    inputs = k.make_inputs(4000, 2)
    monkeypatch.setattr(m, flag, True)
    out = {}
    reports = _reports(lambda: out.update(k.run("atlas-a2", inputs)))
    assert {(r.check, r.instruction.api) for r in reports} == checks
    assert out["y"].tobytes() == k.expected("atlas-a2", inputs)["y"].tobytes()


def test_lp_norm_v3_deviation_5_min_norm_over_a_zeroed_workspace_is_zero():
    """Without the host's +inf, SetAtomicMin takes the workspace's 0: every norm 0, y = x / 0."""
    _, m = _spec_and_module("lp_norm_v3")
    x = np.arange(1, 65, dtype=np.float32).reshape(8, 8)
    with np.errstate(divide="ignore"):
        y = m.run_lp_norm("atlas-a2", x, -np.inf, 0, workspace_fill=0.0)
    assert np.isposinf(y).all()
    assert np.array_equal(m.run_lp_norm("atlas-a2", x, -np.inf, 0), m.reference(x, -np.inf, 0))


@pytest.mark.parametrize("name", ["lp_norm_v3", pytest.param("lp_norm_v3_min_rows_half", marks=pytest.mark.slow),
                                  "lp_norm_v3_max_cols"])   # (min_rows_half: 4 s warm, 42000 halves)
def test_lp_norm_v3_is_sanitizer_clean_over_several_cores_and_tiles(name):
    k, _ = _spec_and_module(name)
    inputs = k.make_inputs({"lp_norm_v3": 20000, "lp_norm_v3_min_rows_half": 42000}.get(name, 22000), 5)
    out = {}
    assert _reports(lambda: out.update(k.run("atlas-a3", inputs))) == []
    with np.errstate(over="ignore"):
        assert out["y"].tobytes() == k.expected("atlas-a3", inputs)["y"].tobytes()
