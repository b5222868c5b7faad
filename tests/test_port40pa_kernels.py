"""The session-40 ports (port40pa) of hicann/ops-math kernels: kernels/rsqrt.py (element-wise, eight input types),
kernels/reduce_min_v2.py (a reduction across cores by atomic min) and kernels/logdet.py (LU with partial pivoting).
Each against an expectation computed with numpy alone, on the A2 and the A3; the host tilings' choices; each
deviation's reason (the original's sequence run and refused or reported); the sanitizer on shapes the gallery's
defaults do not reach."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import one_device_each, sanitizer_reports as _reports, spec_and_module as _spec_and_module

DEVICES = ["atlas-a2", "atlas-a3"]


# kernels/rsqrt.py

def test_rsqrt_tiling_buffers_tiles_and_cores():
    _, m = _spec_and_module("rsqrt")
    block_dim, buffers, raw = m.tiling("atlas-a2", 100000, "float")
    t = np.frombuffer(raw.tobytes(), m.RsqrtTilingData)[0]
    # (192 KiB - 1 KiB) / 32 / 3 blocks of 8 floats: 16296 a tile; 3125 blocks over 8 cores, 5 of them one more
    assert (block_dim, buffers, int(t["tileDataNum"]), int(t["smallCoreDataNum"]), int(t["bigCoreDataNum"]),
            int(t["tailBlockNum"]), int(t["finalBigTileNum"])) == (8, 1, 16296, 12496, 12504, 4, 1)
    block_dim, buffers, raw = m.tiling("atlas-a2", 200003, "float")    # past the cores' UBs: double-buffered
    t = np.frombuffer(raw.tobytes(), m.RsqrtTilingData)[0]
    assert (buffers, int(t["tileDataNum"]), int(t["finalSmallTileNum"]), int(t["smallTailDataNum"])) == \
        (2, 8144, 4, 568)
    assert m.tiling("atlas-a2", 3000, "int8")[0] == 3                    # ceil(n / 1024) cores


@pytest.mark.parametrize("name, size", [("rsqrt", 200003), ("rsqrt_half", 300003), ("rsqrt_bf16", 150003),
                                        ("rsqrt_int32", 200003), ("rsqrt_int16", 5003), ("rsqrt_int8", 300003),
                                        ("rsqrt_uint8", 70001), ("rsqrt_bool", 4099)])
@pytest.mark.parametrize("device", DEVICES)
def test_rsqrt_is_the_numpy_model(name, size, device):
    k, _ = _spec_and_module(name)
    inputs = k.make_inputs(size, 5)
    y = k.run(device, inputs)["y"]
    aj.testing.assert_bit_equal(y, k.expected(device, inputs)["y"])


def test_rsqrt_float_results_are_one_over_sqrt_within_the_stated_room():
    """Against numpy's float64 1 / sqrt(x) (the formula, not the model): within 3e-7 (float), 1e-3 (half), 8e-3
    (bfloat16) over positive finite inputs; +0 -> +inf, -0 -> -inf, negative -> NaN, +inf -> 0."""
    for name, np_t, rtol in (("rsqrt", np.float32, 3e-7), ("rsqrt_half", np.float16, 1e-3),
                             ("rsqrt_bf16", ml_dtypes.bfloat16, 8e-3)):
        k, _ = _spec_and_module(name)
        x = np.concatenate([np.exp(np.linspace(-8, 8, 4000)), [0.0, -0.0, -2.0, np.inf, 4.0, 1.0]]).astype(np_t)
        y = k.run("atlas-a2", {"x": x})["y"].astype(np.float64)
        xf = x.astype(np.float64)
        assert np.allclose(y[:4000], 1 / np.sqrt(xf[:4000]), rtol=rtol, atol=0), name
        assert y[4000] == np.inf and y[4001] == -np.inf and np.isnan(y[4002]) and y[4003] == 0, name
        assert y[4004] == 0.5 and y[4005] == 1.0, name


@pytest.mark.parametrize("dtype, want", [
    # x = 0, 1, 2, 3, 4, 5, 100, -1
    ("int8", [-1, 1, 1, 1, 0, 0, 0, 0]),          # rsqrt(0) = inf -> min 2 -> 2 - 3 = -1; negatives NaN -> 0
    ("int16", [-1, 1, 1, 1, 0, 0, 0, 0]),
    ("int32", [2 ** 31 - 1, 1, 1, 1, 0, 0, 0, 0]),  # no correction: +inf -> INT32_MAX
    ("uint8", [255, 1, 1, 1, 0, 0, 0, 0])])         # +inf -> 255 (uint8 has no -1 input)
def test_rsqrt_integer_paths_pin_the_corrections_and_specials(dtype, want):
    """The integer sequences' results on the edge inputs: 0.5 (x = 4) rounds to even 0 by CAST_RINT."""
    k, m = _spec_and_module(f"rsqrt_{dtype}")
    base = np.array([0, 1, 2, 3, 4, 5, 100, -1 if dtype != "uint8" else 7], np.int64)
    x = np.tile(base, 12).astype(m._NP[dtype])
    for device in DEVICES:
        y = k.run(device, {"x": x})["y"]
        assert y[:8].tolist() == want and np.array_equal(y, np.tile(y[:8], 12)), device


def test_rsqrt_bool_is_all_true_and_the_tiles_run_clean():
    k, _ = _spec_and_module("rsqrt_bool")
    x = np.zeros(800003, np.bool_)
    y = None

    def run():
        nonlocal y
        y = k.run("atlas-a2", {"x": x})["y"]
    assert _reports(run) == []
    assert y.dtype == np.bool_ and y.all()


@pytest.mark.parametrize("name, size", [("rsqrt_int32", 200003), ("rsqrt_int16", 400003), ("rsqrt_half", 300003)])
def test_rsqrt_in_place_reinterpreted_tiles_run_clean(name, size):
    """int32 / int16 compute in the queues' own tiles reinterpreted as float / half; double-buffered sizes."""
    k, _ = _spec_and_module(name)
    inputs = k.make_inputs(size, 9)
    for mode in ("report", "device-sync,report"):
        assert _reports(lambda: k.run("atlas-a3", inputs), mode) == [], mode


# kernels/reduce_min_v2.py

def _min_of(x, axes):
    xf = x.astype(np.float32)
    return (xf.min(axis=axes).reshape(-1) if axes in (0, 1) else np.array([xf.min()], np.float32)).astype(x.dtype)


def test_reduce_min_v2_tiling_cores_tiles_and_attributes():
    _, m = _spec_and_module("reduce_min_v2")
    block_dim, raw, ws = m.tiling("atlas-a2", 901, 100, "float")
    t = np.frombuffer(raw.tobytes(), m.ReduceMinV2TilingData)[0]
    # (192 KiB / 2 / 32) / 6 = 512 blocks: 4096 floats a tile; 11263 blocks over 8 cores, 7 of them one more
    assert (block_dim, int(t["tileDataNum"]), int(t["smallCoreDataNum"]), int(t["tailBlockNum"]),
            int(t["finalBigTileNum"]), int(t["bigTailDataNum"]), int(t["axes"]), int(t["dataTypeId"]), ws) == \
        (8, 4096, 11256, 7, 3, 3072, 0xFFFFFFFF, 0, 16 << 20)
    assert m.tiling("atlas-a2", 40, 100, "half")[0] == 1                # a tile holds the input
    assert np.frombuffer(m.tiling("atlas-a2", 3, 5, "half", 1)[1].tobytes(), m.ReduceMinV2TilingData)[0]["axes"] == 1


_MIN_CASES = [((301, 37), -1, np.float32), ((901, 100), -1, np.float16), ((33, 301), 0, np.float32),
              ((300, 7), 0, np.float16), ((501, 13), 1, np.float32), ((1501, 48), 1, np.float16),
              ((3, 5), -1, np.float32), ((1, 1), 0, np.float16)]


# each case on one device by default (22 s warm on all three): a min is the same bits in any order, so the devices
# differ only in their UB size (the tiling)
@pytest.mark.parametrize("shape, axes, dtype, device", one_device_each(_MIN_CASES, DEVICES + ["ascend950"]))
def test_reduce_min_v2_is_numpy_min_and_runs_clean(shape, axes, dtype, device):
    """Every axis and type, inputs not whole 32-byte blocks included; infinities among them."""
    _, m = _spec_and_module("reduce_min_v2")
    rng = np.random.default_rng(sum(shape))
    x = (rng.standard_normal(shape) * 50).astype(dtype)
    x[rng.random(shape) < 0.02] = np.inf
    x[rng.random(shape) < 0.002] = -np.inf
    z = None

    def run():
        nonlocal z
        z = m.run_reduce_min(device, x, axes)
    assert _reports(run) == [] and _reports(run, "device-sync,report") == []
    aj.testing.assert_bit_equal(z, _min_of(x, axes))


def test_reduce_min_v2_atomic_order_does_not_move_the_minimum():
    """The cores' atomic mins committed in shuffled orders: the same bits."""
    _, m = _spec_and_module("reduce_min_v2")
    x = np.random.default_rng(4).standard_normal((101, 300)).astype(np.float32)
    for axes in (0, -1):
        for seed in (1, 2):
            z = m.run_reduce_min("atlas-a2", x, axes, atomic_order="shuffle", seed=seed)
            aj.testing.assert_bit_equal(z, _min_of(x, axes))


def test_reduce_min_v2_original_window_is_refused(monkeypatch):
    """The last core's GlobalTensor is bound to the real elements; its last tile copies the whole 32-byte block."""
    _, m = _spec_and_module("reduce_min_v2")
    monkeypatch.setattr(m, "ORIGINAL_WINDOW", True)
    assert m.run_reduce_min("atlas-a2", np.ones((8, 4), np.float32)).tolist() == [1.0]   # whole blocks: the same
    with pytest.raises(aj.OutOfBoundsError, match="DataCopy.*'src'"):
        m.run_reduce_min("atlas-a2", np.ones((301, 37), np.float32))


def test_reduce_min_v2_all_axes_counts_the_padding_past_the_input():
    """The original's AxesAll minimum reads the last block's lanes past the input: what GM holds there counts."""
    _, m = _spec_and_module("reduce_min_v2")
    x = np.full((3, 5), 2.5, np.float32)                               # 15 floats: one lane of padding
    assert m.run_reduce_min("atlas-a2", x, -1).tolist() == [2.5]
    assert m.run_reduce_min("atlas-a2", x, -1, pad=0.0).tolist() == [0.0]
    assert m.run_reduce_min("atlas-a2", x, 0, pad=0.0).tolist() == [2.5] * 5   # the axis paths skip it


@pytest.mark.parametrize("axes, dtype, pairs", [
    (-1, np.float32, {("SetValue", "Duplicate"), ("DataCopy", "SetValue")}),
    (0, np.float32, {("SetValue", "Duplicate"), ("DataCopy", "SetValue"), ("GetValue", "DataCopy")}),
    (1, np.float16, {("GetValue", "Cast"), ("SetValue", "Duplicate"), ("DataCopy", "SetValue"),
                     ("GetValue", "DataCopy")})])
def test_reduce_min_v2_original_scalar_accesses_race(monkeypatch, axes, dtype, pairs):
    _, m = _spec_and_module("reduce_min_v2")
    x = np.random.default_rng(2).standard_normal((301, 37)).astype(dtype)
    run = lambda: m.run_reduce_min("atlas-a2", x, axes)                # noqa: E731
    assert _reports(run) == []
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    reports = _reports(run)
    assert {r.check for r in reports} == {"race"}
    assert pairs <= {(r.instruction.api, r.earlier.api) for r in reports}


def test_reduce_min_v2_original_float_copy_races_the_queue_hand_off_on_the_device(monkeypatch):
    """The float tile's scalar copy reads the DeQue'd tensor: under the device's own hand-off (MTE2_V) an MTE2 -> S
    race; the port's MTE2_S pair orders it."""
    _, m = _spec_and_module("reduce_min_v2")
    x = np.random.default_rng(2).standard_normal((50, 37)).astype(np.float32)
    run = lambda: m.run_reduce_min("atlas-a2", x, 0)                   # noqa: E731
    assert _reports(run, "device-sync,report") == []
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    found = {(r.earlier.pipe, r.instruction.pipe) for r in _reports(run, "device-sync,report")}
    assert ("PIPE_MTE2", "PIPE_S") in found


def test_reduce_min_v2_original_all_axes_path_lacks_the_syncall(monkeypatch):
    """Without a SyncAll, core 0's InitGlobalMemory and the other cores' atomic copies into the slot are unordered
    (the blocks check), and InitGlobalMemory's Duplicate over the stack buffer races the later SetValues there."""
    _, m = _spec_and_module("reduce_min_v2")
    x = np.random.default_rng(2).standard_normal((301, 37)).astype(np.float32)
    z = None

    def run():
        nonlocal z
        z = m.run_reduce_min("atlas-a2", x, -1)
    monkeypatch.setattr(m, "ORIGINAL_NO_SYNCALL", True)
    reports = _reports(run)
    assert {r.check for r in reports} == {"race", "blocks"}
    # (the sanitizer names InitGlobalMemory's own instructions with it)
    assert ("SetValue", "InitGlobalMemory: Duplicate") in {(r.instruction.api, r.earlier.api) for r in reports
                                                           if r.check == "race"}
    aj.testing.assert_bit_equal(z, _min_of(x, -1))                     # the emulator's blocks run in order


def test_reduce_min_v2_rows_past_the_ub_are_refused_at_init_buffer():
    """Axis 1 keeps 16 floats of slot and one float per row in the UB: 2000 rows of half do not fit 192 KiB."""
    _, m = _spec_and_module("reduce_min_v2")
    with pytest.raises(aj.OutOfBoundsError, match="InitBuffer"):
        m.run_reduce_min("atlas-a2", np.ones((2000, 48), np.float16), 1)


# kernels/logdet.py

def _slogdet64(a):
    sign, logabs = np.linalg.slogdet(a.astype(np.float64))
    return np.where(sign > 0, logabs, np.where(sign < 0, np.nan, -np.inf))


def test_logdet_tiling_resident_max_strategy_and_workspace():
    _, m = _spec_and_module("logdet")
    assert m.resolve_resident_max(aj.get_device("atlas-a2").ub_bytes) == 208
    block_dim, strategy, raw, ws = m.tiling("atlas-a2", 208, 3)
    t = np.frombuffer(raw.tobytes(), m.LogdetTilingData)[0]
    assert m.LogdetTilingData.itemsize == 32 and m.LogdetTilingData.fields["matrixNumCount"][1] == 8
    assert (block_dim, strategy, int(t["matSizeN"]), int(t["matrixNumCount"]), int(t["blockSize"]), ws) == \
        (3, 0, 208, 3, 208, 16 << 20)
    assert np.float32(t["epsSingular"]) == np.float32(1e-38)
    block_dim, strategy, raw, ws = m.tiling("atlas-a2", 209, 3)
    assert (block_dim, strategy, int(np.frombuffer(raw.tobytes(), m.LogdetTilingData)[0]["blockSize"])) == (1, 1, 64)
    assert m.tiling("atlas-a2", 2100, 1)[3] == 2100 * 2104 * 4                   # the slot past 16 MiB
    with pytest.raises(ValueError):
        m.tiling("atlas-a2", 4096, 1)


# each size on one device by default (9 s warm on all three); 209 lands on the A2, BLOCKED
@pytest.mark.parametrize("n, batch, device", one_device_each([(1, 9), (9, 11), (16, 13), (63, 3), (65, 2), (130, 1),
                                                              (209, 1)], DEVICES + ["ascend950"]))
def test_logdet_is_the_numpy_lu_bit_for_bit_and_close_to_slogdet(n, batch, device):
    """Positive determinants, negative ones (NaN), singular ones (-inf), pivots that move rows; FULL, and BLOCKED
    at 209 (the A2 / A3; the 950 keeps it resident); columns of more than one 64-element ReduceMax segment at 65
    and 130."""
    _, m = _spec_and_module("logdet")
    a = m.make_batch(n, batch, n)
    y, strategy = m.run_logdet(device, a)
    assert strategy == (1 if n > m.resolve_resident_max(aj.get_device(device).ub_bytes) else 0)
    want = np.array([m.logdet_reference(x) for x in a], np.float32)
    aj.testing.assert_bit_equal(y, want)
    ref = _slogdet64(a)
    assert np.array_equal(np.isnan(y), np.isnan(ref)) and np.array_equal(np.isinf(y), np.isinf(ref))
    fin = np.isfinite(ref)
    assert np.all(np.abs(y[fin] - ref[fin]) <= 2e-4 * np.maximum(1.0, np.abs(ref[fin])))


def test_logdet_second_segment_pivot_and_ties():
    """The largest |u| in the second 64-element segment, and a tie between segments (the strict > keeps the first)."""
    _, m = _spec_and_module("logdet")
    n = 100
    a = np.eye(n, dtype=np.float32)
    a[0, 0] = 0.5
    a[90, 0], a[30, 0] = -3.0, 2.0                    # pivot row 90 (second segment)
    b = np.eye(n, dtype=np.float32)
    b[0, 0], b[10, 0], b[70, 0] = 0.25, 4.0, -4.0      # a tie: row 10 wins
    batch = np.stack([a, b])
    y, _ = m.run_logdet("atlas-a2", batch)
    aj.testing.assert_bit_equal(y, np.array([m.logdet_reference(x) for x in batch], np.float32))
    assert np.allclose(y, np.log([0.5, 0.25]), rtol=1e-6)                  # lower-triangular but for the swaps


def test_logdet_log_scalar_against_numpy_log():
    _, m = _spec_and_module("logdet")
    x = np.exp(np.linspace(-80, 80, 2001)).astype(np.float32)
    got = np.array([m.log_scalar(v) for v in x], np.float64)
    assert np.all(np.abs(got - np.log(x.astype(np.float64))) <= 2e-6 * np.maximum(1.0, np.abs(np.log(x))))
    assert m.log_scalar(np.float32(0)) == -np.inf


def test_logdet_original_reduce_max_buffer_is_refused_below_nine(monkeypatch):
    """One padded row of sharedTmpBuffer: 8 floats for n <= 8, under the emulator's D54 minimum of 16 (the devkit's
    single-repeat ReduceMax with an index does not use it); the same bits from n = 9 on."""
    _, m = _spec_and_module("logdet")
    small, big = m.make_batch(8, 2, 1), m.make_batch(9, 2, 1)
    want = m.run_logdet("atlas-a2", big)[0]
    monkeypatch.setattr(m, "ORIGINAL_RED_TMP", True)
    with pytest.raises(aj.ParameterError, match="sharedTmpBuffer"):
        m.run_logdet("atlas-a2", small)
    aj.testing.assert_bit_equal(m.run_logdet("atlas-a2", big)[0], want)
    assert aj.GetReduceMaxMinTmpSize("atlas-a2", "float", count=8, cal_index=True) == 16


@pytest.mark.parametrize("n, batch, pairs", [
    (16, 10, {("DataCopyPad", "Axpy")}),                                         # FULL: a core's second matrix
    pytest.param(209, 1, {("Axpy", "DataCopyPad"), ("DataCopyPad", "Axpy"), ("DataCopyPad", "DataCopyPad")},
                 marks=pytest.mark.slow)])   # BLOCKED (23 s warm: a 209 x 209 matrix through the scalar unit)
def test_logdet_original_orders_through_the_scalar_unit(monkeypatch, n, batch, pairs):
    """The original's MTE2_S / V_S / MTE3_S waits order its pipes on the device ("device-sync": no report); SPEC-2
    10.4's rule does not count them (the default: races), so the port adds the contract's pairs."""
    _, m = _spec_and_module("logdet")
    a = m.make_batch(n, batch, 3)
    run = lambda: m.run_logdet("atlas-a2", a)                           # noqa: E731
    assert _reports(run) == []
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    assert _reports(run, "device-sync,report") == []
    reports = _reports(run)
    assert {r.check for r in reports} == {"race"}
    assert pairs <= {(r.instruction.api, r.earlier.api) for r in reports}


def test_logdet_runs_clean_under_the_strict_sanitizer():
    """"strict" adds same-pipe pairs (PIPE_V RAW, overlapping MTE2 / MTE3 destinations); the default and
    "device-sync" modes are checked above."""
    _, m = _spec_and_module("logdet")
    for a in (m.make_batch(210, 1, 4), m.make_batch(16, 10, 4)):
        assert _reports(lambda: m.run_logdet("atlas-a3", a), "strict,report") == []


def test_logdet_fma32_is_one_rounding():
    """The expectation's fused multiply-add against exact rationals, midpoint cases included."""
    from fractions import Fraction
    _, m = _spec_and_module("logdet")
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(2000).astype(np.float32) for _ in range(3))
    one_ulp = np.float32(2.0 ** -24)
    a[:3], b[:3], c[:3] = np.float32(1) + 2 * one_ulp, np.float32(1) + 2 * one_ulp, np.float32(-1)
    a[3], b[3], c[3] = np.float32(1 + 2 ** -12), np.float32(1 + 2 ** -12), np.float32(2.0 ** -60)
    got = m.fma32(a, b, c)
    for i in range(a.size):
        exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
        lo = np.float32(float(exact))
        cands = [lo, np.nextafter(lo, np.float32(np.inf)), np.nextafter(lo, np.float32(-np.inf))]
        best = min(cands, key=lambda v: (abs(Fraction(float(v)) - exact), int(np.float32(v).view(np.uint32)) & 1))
        assert got[i] == best, i
