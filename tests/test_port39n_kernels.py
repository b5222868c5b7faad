"""The session-39 ports (port39n) of hicann/ops-nn kernels: kernels/rms_norm_quant.py (norm), kernels/clipped_swiglu.py
(activation) and kernels/dynamic_block_quant.py (quant). Each against an expectation computed with numpy alone; the
host tilings' choices; each deviation's reason (the original's sequence run and refused or reported); and the
sanitizer on shapes the gallery's defaults do not reach."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry
from ported import module as _module


def _fields(raw, struct):
    return np.frombuffer(raw.tobytes(), struct)[0]


# kernels/rms_norm_quant.py

def test_rms_norm_quant_tiling_keys_cores_and_slices():
    m = _module("rms_norm_quant")
    key, dim, raw = m.tiling((37, 1000), (1000,), "half", True)
    t = _fields(raw, m.NormCommonTilingData1)
    assert (key, dim, int(t["numRow"]), int(t["numCol"]), int(t["quantMin"])) == (257, 8, 37, 1000, -128)
    assert np.float32(t["avgFactor"]) == np.float32(1.0 / 1000)
    assert m.tiling((3, 9000), (9000,), "half", False)[0] == 65           # slice, no beta
    assert m.tiling((21, 333), (333,), "bfloat16", False)[0] == 27
    assert m.tiling((9, 64), (64,), "half", False)[1] == 5                  # ceil(9 / ceil(9 / 8)) cores
    with pytest.raises(NotImplementedError, match="int4"):
        m.tiling((4, 64), (64,), "half", False, dst_type=m.DT_INT4)


@pytest.mark.parametrize("rows, cols", [(5, 20), (2, 48), (9, 16), (11, 1000)])
@pytest.mark.parametrize("device", ["atlas-a2", "atlas-inference-aicore"])
def test_rms_norm_quant_small_rows_and_310p_scalar_tails_are_bit_exact_and_clean(rows, cols, device):
    """Rows under 32 bytes of int8 on the 310P take the GM SetValue loop; others the rewritten last block."""
    m = _module("rms_norm_quant")
    rng = np.random.default_rng(rows * cols)
    inputs = {"x": (rng.standard_normal((rows, cols)) * 3).astype(np.float16),
              "gamma": rng.uniform(0.5, 1.5, cols).astype(np.float16),
              "beta": rng.uniform(-0.2, 0.2, cols).astype(np.float16),
              "scale": np.array([0.05], np.float16), "offset": np.array([-2], np.int8)}
    with aj.sanitize_session("report") as session:
        y = m._run(device, inputs)["y"]
    assert session.reports == [], aj.format_reports(session.reports)
    assert y.tobytes() == m._expected("rms_norm_quant")(device, inputs)["y"].tobytes()
    assert y.min() >= -128 and y.max() <= 127 and np.any(y != 0)


@pytest.mark.parametrize("name", ["rms_norm_quant", "rms_norm_quant_bf16", "rms_norm_quant_slice"])
def test_rms_norm_quant_is_within_one_step_of_the_float64_formula(name):
    """Independent of the port's expectation: round(clamp((x / rms * gamma + beta) / scale + offset))."""
    k = registry()[name]
    inputs = k.make_inputs(k.default_size, 3)
    y = k.run("atlas-a2", inputs)["y"].astype(np.int32)
    x, g = inputs["x"].astype(np.float64), inputs["gamma"].astype(np.float64)
    v = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * g
    if "beta" in inputs:
        v = v + inputs["beta"].astype(np.float64)
    v = v / inputs["scale"].astype(np.float64)[0] + inputs["offset"][0]
    d = np.abs(y - np.clip(np.rint(v), -128, 127))
    assert d.max() <= 1 and (d > 0).mean() < 0.03


def test_rms_norm_quant_quant_min_env_gives_minus_127(monkeypatch):
    m = _module("rms_norm_quant")
    monkeypatch.setenv("ASDOPS_QUANT_MIN_NEG_127", "1")
    x = np.full((2, 64), -30.0, np.float16)
    inputs = {"x": x, "gamma": np.ones(64, np.float16), "scale": np.array([0.001], np.float16),
              "offset": np.array([0], np.int8)}
    y = m._run("atlas-a2", inputs)["y"]
    assert (y == -127).all()
    assert y.tobytes() == m._expected("rms_norm_quant")("atlas-a2", inputs)["y"].tobytes()


def test_rms_norm_quant_deviation_2_the_in_place_bf16_scale_cast_is_refused():
    """GetScaleAndOffset's bfloat16 branch: Cast(tmpFp32, scale_buffer, CAST_NONE, 1), both buf.Get()."""
    core = aj.Core("atlas-a2")
    with core:
        buf = core.local_tensor("bfloat16", 16)
        buf[:] = np.full(16, 0.5, ml_dtypes.bfloat16)
        with pytest.raises(aj.OverlapError, match="D34"):
            aj.Cast(buf.ReinterpretCast("float"), buf, aj.RoundMode.CAST_NONE, 1)


def test_rms_norm_quant_deviation_4_a_scalar_wait_orders_the_scalar_pipe_only_by_spec():
    """The pattern the port adds a V -> MTE2 pair for: a vector write, SetFlag/WaitFlag<V_S>, a scalar read, then
    an MTE2 copy over the same bytes. SPEC-2 10.4's wait orders its destination pipe only, so the sanitizer reports
    it; the scalar unit issues the copy after its wait, and the "device-sync" option orders it (docs/decisions.md
    "The device's synchronisation"). Without the wait it is a race in both."""
    for mode, wait, reports in (("report", True, [("race", "WAW")]), ("device-sync,report", True, []),
                                ("device-sync,report", False, [("race", "WAW")])):
        core = aj.Core("atlas-a2", sanitize=mode)
        with core:
            a = core.local_tensor("float", 64)
            a[:] = np.ones(64, np.float32)
            g = aj.GlobalTensor()
            g.SetGlobalBuffer(np.zeros(64, np.float32))
            aj.Adds(a, a, np.float32(1), 64)
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
            if wait:
                aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
                assert a.GetValue(0) == 2
            aj.DataCopy(a, g, 64)
            if not wait:
                aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        assert [(r.check, r.kind) for r in core.sanitizer.reports] == reports, mode


def test_rms_norm_quant_310b_refuses_the_kernels_setflag():
    m = _module("rms_norm_quant")
    inputs = registry()["rms_norm_quant"].make_inputs(2000, 0)
    with pytest.raises(aj.UnsupportedDeviceError, match="SetFlag"):
        m._run("atlas-200i-500-a2", inputs)


# kernels/clipped_swiglu.py

def test_clipped_swiglu_tiling_ub_pairs_and_long_rows():
    m = _module("clipped_swiglu")
    dim, raw = m.tiling("atlas-a2", (61, 384), "float")
    t = _fields(raw, m.ClippedSwigluTilingData)
    # (196608 - 1024) / 18 = 10865 -> 10848 bytes -> 10817 / 2
    assert (dim, int(t["ubMaxPair"]), int(t["isLongH"]), int(t["isInterleaved"])) == (8, 5408, 0, 1)
    assert np.float32(t["gluAlpha"]) == np.float32(1.702) and np.float32(t["gluLimit"]) == 7
    t = _fields(m.tiling("atlas-a2", (3, 12000), "float", interleaved=False)[1], m.ClippedSwigluTilingData)
    assert int(t["isLongH"]) == 1
    t = _fields(m.tiling("atlas-a2", (40, 6, 32), "half", dim=1, group_num=4)[1], m.ClippedSwigluTilingData)
    assert (int(t["dimBatchSize"]), int(t["dim2H"]), int(t["isGroup"]), int(t["ubMaxPair"])) == (40, 192, 1, 5408)
    with pytest.raises(ValueError, match="divisible by 2"):
        m.tiling("atlas-a2", (4, 7), "float")


@pytest.mark.parametrize("shape, dtype, interleaved, group, dim", [
    ((3, 12000), "float", False, None, -1),                 # long rows: two UB steps a batch
    ((2, 4, 24000), "float", True, None, -1),               # interleaved pairs over several steps a core
    ((40, 6, 32), "float", False, None, 1),                 # dim 1: batch 40, dim2H 192
    ((40, 192), "half", False, [3, 0, 5, 2], -1),            # group_index: 10 of 40 rows
    ((40, 192), "float", True, [30, 20], -1),                # a group sum past the batch: every row
    ((5, 64), "bfloat16", False, [0], -1),                   # no row at all: y untouched
])
def test_clipped_swiglu_paths_match_the_float64_formula_and_are_clean(shape, dtype, interleaved, group, dim):
    m = _module("clipped_swiglu")
    rng = np.random.default_rng(len(shape) + shape[-1])
    x = (rng.standard_normal(shape) * 4).astype(np.float32).astype(m._NP[dtype])
    g = None if group is None else np.array(group, np.int64)
    with aj.sanitize_session("report") as session:
        y = m.clipped_swiglu_host("atlas-a2", x, dim, g, interleaved=interleaved)
    assert session.reports == [], aj.format_reports(session.reports)
    want = m.reference(x, dim, g, interleaved=interleaved)
    got = y.astype(np.float64).reshape(want.shape)
    tol, tiny = m._TOL[dtype], float(ml_dtypes.finfo(m._NP[dtype]).smallest_subnormal)
    assert np.all(np.abs(got - want) <= tol * np.abs(want) + tiny), np.max(np.abs(got - want))


def test_clipped_swiglu_float_short_halves_not_16_floats_read_unwritten_lanes():
    """dimH 4 floats: the step counts 16 floats a batch, DataCopyPad lays batches 8 floats apart; y stays right."""
    m = _module("clipped_swiglu")
    x = (np.random.default_rng(1).standard_normal((10, 8)) * 4).astype(np.float32)
    with aj.sanitize_session("report") as session:
        y = m.clipped_swiglu_host("atlas-a2", x, interleaved=False)
    assert {(r.check, r.instruction.api) for r in session.reports} == {("init", "Copy")}
    want = m.reference(x, interleaved=False)
    assert np.all(np.abs(y - want) <= 1e-5 * np.abs(want) + 1e-30)


def test_clipped_swiglu_16_bit_steps_past_half_the_ub_are_refused_as_written():
    """Long rows of half: the b half's Cast writes floats from byte 21632 over the half source at 32448 (D34)."""
    m = _module("clipped_swiglu")
    x = np.ones((3, 12000), np.float16)
    with pytest.raises(aj.OverlapError, match="D34"):
        m.clipped_swiglu_host("atlas-a2", x, interleaved=False)


def test_clipped_swiglu_deviation_2_in_place_int64_and_narrowing_casts_are_refused():
    core = aj.Core("atlas-a2")
    with core:
        g = core.local_tensor("int64", 8)
        g[:] = np.arange(8)
        with pytest.raises(aj.OverlapError, match="D34"):
            aj.Cast(g.ReinterpretCast("float"), g, aj.RoundMode.CAST_RINT, 8)
        f = core.local_tensor("float", 64)
        f[:] = np.ones(64, np.float32)
        with pytest.raises(aj.OverlapError, match="D34"):
            aj.Cast(f.ReinterpretCast("bfloat16"), f, aj.RoundMode.CAST_RINT, 64)


# kernels/dynamic_block_quant.py

def test_dynamic_block_quant_tiling_spreads_tail_rows_over_cores():
    m = _module("dynamic_block_quant")
    key, dim, raw = m.tiling("atlas-a2", (37, 1000), "half")
    t = _fields(raw, m.DynamicBlockQuantTilingData)
    assert (key, dim, int(t["perCoreRowNum"])) == (0, 8, 4)
    # 5 tail rows of 8 blocks over 8 cores: rows 32..34 get two cores (4 + 4 blocks), rows 35, 36 one
    assert list(t["tailRowList"][:8]) == [32, 32, 33, 33, 34, 34, 35, 36]
    assert list(t["tailColBlockStartList"][:8]) == [0, 4, 0, 4, 0, 4, 0, 0]
    assert list(t["tailColBlockEndList"][:8]) == [4, 8, 4, 8, 4, 8, 8, 8]
    key, dim, raw = m.tiling("atlas-a2", (1, 300), "bfloat16")          # 3 blocks, no whole row a core
    t = _fields(raw, m.DynamicBlockQuantTilingData)
    assert (key, dim, list(t["tailColBlockStartList"][:3])) == (10, 3, [0, 1, 2])
    with pytest.raises(ValueError, match="col_block_size"):
        m.tiling("atlas-a2", (4, 256), "half", col_block_size=64)


@pytest.mark.parametrize("shape, dtype, min_scale", [
    ((1, 300), "bfloat16", 0.0), ((3, 5, 200), "half", 0.0), ((19, 256), "half", 2.0), ((9, 2000), "bfloat16", 0.0),
    ((70, 128), "half", 0.0), ((17, 160), "half", 0.0)])
def test_dynamic_block_quant_shapes_are_bit_exact_and_clean(shape, dtype, min_scale):
    m = _module("dynamic_block_quant")
    rng = np.random.default_rng(shape[-1])
    x = (rng.standard_normal(shape) * rng.uniform(0.1, 10)).astype(np.float32).astype(m._NP[dtype])
    with aj.sanitize_session("report") as session:
        y, scale = m.dynamic_block_quant_host("atlas-a3", x, min_scale)
    assert session.reports == [], aj.format_reports(session.reports)
    want_y, want_scale = m.reference(x, min_scale)
    assert y.tobytes() == want_y.tobytes() and scale.tobytes() == want_scale.tobytes()
    if min_scale == 0:     # dequantised y is within one step of x
        back = y.astype(np.float32) * np.repeat(scale, 128, axis=-1)[..., :shape[-1]]
        assert np.all(np.abs(back - x.astype(np.float32)) <= np.repeat(scale, 128, axis=-1)[..., :shape[-1]])


def test_dynamic_block_quant_half_steps_over_64_blocks_are_refused_as_written():
    """8 rows a core of 9 blocks (72 scales a step): the half scales' Cast to float overlaps its source (D34)."""
    m = _module("dynamic_block_quant")
    x = np.ones((64, 1100), np.float16)
    with pytest.raises(aj.OverlapError, match="D34"):
        m.dynamic_block_quant_host("atlas-a2", x)


def test_dynamic_block_quant_deviation_5_the_dense_in_place_pair_max_is_refused():
    core = aj.Core("atlas-a2")
    with core:
        t = core.local_tensor("float", 256)
        t[:] = np.arange(256, dtype=np.float32)
        with pytest.raises(aj.OverlapError, match="8.2"):
            aj.Max(t, t, t[8], 64, 2, aj.BinaryRepeatParams(1, 2, 2, 8, 16, 16))
        aj.Max(t, t, t[8], 64, 2, aj.BinaryRepeatParams(2, 2, 2, 16, 16, 16))      # the port's form
        d = core.local_tensor("float", 8)
        aj.WholeReduceMax(d, t, 64, 2, 1, 2, 16, aj.ReduceOrder.ORDER_ONLY_VALUE)
        assert list(d.numpy()[:2]) == [127.0, 255.0]
