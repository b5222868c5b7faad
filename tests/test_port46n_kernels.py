"""The session-46n ports of ops-nn kernels: kernels/hinge_loss.py (HingeLoss, A2 / A3: Mul / Muls / Adds / Maxs, the
16-bit types in float; element-split cores from unaligned GM starts, DataCopyPad tiles), kernels/threshold_v2.py
(ThresholdV2, the 950 Memory API: Compares GT and tensor-scalar Select in the input type over 256-byte rounded counts,
single or double buffering, the bfloat16 scalars truncated) and kernels/gaussian_nll_loss.py (GaussianNllLoss, A2 /
A3: Maxs / Sub / Mul / Div / counter-mode Ln / Add / Muls, broadcast inputs by GM GetValue / SetValue, ReduceSum in
place per tile, 8-float partials through a GM workspace and SyncAll). Each against its numpy model bit for bit on
every device it runs on (the MODELLED Div and Ln are the exact value rounded once, D37), against a float64 formula
within the types' rounding; the host tilings; each of the original's behaviours the port changes, run in the
original's form and refused or reported."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import sanitizer_reports as _reports, bits as _bits, same_bits as _same, spec_and_module as _spec_and_module

A2_A3 = ["atlas-a2", "atlas-a3"]
BF16 = ml_dtypes.bfloat16


# kernels/hinge_loss.py

def _hinge_tiling(m, device, n, dtype):
    used, raw = m.tiling(device, n, dtype)
    t = m.HingeLossTilingData.from_buffer_copy(raw.tobytes())
    return used, {f: getattr(t, f) for f, _ in m.HingeLossTilingData._fields_}


def test_hinge_loss_tiling_splits_elements_over_cores_and_ub_blocks_over_tiles():
    _, m = _spec_and_module("hinge_loss")
    # float: 196608 / 32 = 6144 blocks, / 15 = 409 blocks a tile (3272 floats); 100003 = 8 x 12500 + 3
    used, t = _hinge_tiling(m, "atlas-a2", 100003, "float")
    assert used == 8 and t["tileDataNum"] == 3272 and t["tailBlockNum"] == 3
    assert (t["smallCoreDataNum"], t["bigCoreDataNum"], t["finalBigTileNum"], t["bigTailDataNum"]) == (
        12500, 12501, 4, 12501 - 3 * 3272)
    # 16-bit: / 25 = 245 blocks (3920 elements); fewer elements than cores: one element a core
    assert _hinge_tiling(m, "atlas-a2", 100003, "half")[1]["tileDataNum"] == 3920
    used, t = _hinge_tiling(m, "atlas-a3", 5, "bfloat16")
    assert used == 5 and (t["smallCoreDataNum"], t["tailBlockNum"], t["finalSmallTileNum"]) == (1, 0, 1)
    # every element covered exactly once: the per-core counts add up, each core's tiles cover its count
    for n in (1, 7, 8, 9, 3271, 26177, 100003):
        used, t = _hinge_tiling(m, "atlas-a2", n, "float")
        counts = [t["bigCoreDataNum"] if c < t["tailBlockNum"] else t["smallCoreDataNum"] for c in range(used)]
        assert sum(counts) == n
        for count, tiles, tail in ((t["bigCoreDataNum"], t["finalBigTileNum"], t["bigTailDataNum"]),
                                   (t["smallCoreDataNum"], t["finalSmallTileNum"], t["smallTailDataNum"])):
            if count:
                assert (tiles - 1) * t["tileDataNum"] + tail == count and 0 < tail <= t["tileDataNum"]


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, n", [(np.float32, 30011), (np.float16, 9001), (BF16, 8003), (np.float32, 5)])
def test_hinge_loss_is_the_numpy_model(device, dtype, n):
    """Several tiles a core (30011 floats: 3752 a core, two tiles), big and small cores from unaligned GM starts,
    fewer elements than cores."""
    _, m = _spec_and_module("hinge_loss")
    rng = np.random.default_rng(n)
    p = rng.uniform(-3, 3, n).astype(np.float32).astype(dtype)
    t = rng.uniform(-2, 2, n).astype(np.float32).astype(dtype)
    y = m.run_hinge_loss(device, p, t)
    assert y.dtype == p.dtype and _same(y, m.hinge_loss_model(p, t))


def test_hinge_loss_specials_and_the_formula():
    """A NaN operand stays NaN through Maxs (D41); inf * -1 + 1 = -inf -> 0; inf * 0 = NaN; a margin of exactly 1
    gives +0. Against float64 within one float rounding of the product (and the type's RNE)."""
    _, m = _spec_and_module("hinge_loss")
    p = np.tile(np.array([np.nan, np.inf, np.inf, 1.0, 0.5, -2.0, 0.0, 3.0], np.float32), 17)
    t = np.tile(np.array([1.0, 1.0, 0.0, 1.0, -1.0, 1.0, -1.0, -1.0], np.float32), 17)
    for dtype in (np.float32, np.float16, BF16):
        y = m.run_hinge_loss("atlas-a2", p.astype(dtype), t.astype(dtype))
        assert _same(y, m.hinge_loss_model(p.astype(dtype), t.astype(dtype))), dtype
        f = y.astype(np.float32)[:8]
        assert np.isnan(f[[0, 2]]).all() and f[1] == 0.0 and _bits(np.float32(f[3])) == 0
        assert f[4:].tolist() == [1.5, 3.0, 1.0, 4.0]
    for dtype, rtol in ((np.float32, 2 ** -23), (np.float16, 2 ** -10), (BF16, 2 ** -7)):
        rng = np.random.default_rng(5)
        ps = rng.uniform(-3, 3, 4001).astype(np.float32).astype(dtype)
        ts = rng.uniform(-2, 2, 4001).astype(np.float32).astype(dtype)
        out = m.run_hinge_loss("atlas-a3", ps, ts).astype(np.float64)
        want = np.maximum(0.0, 1.0 - ps.astype(np.float64) * ts.astype(np.float64))
        assert np.all(np.abs(out - want) <= rtol * np.maximum(np.abs(want), 1.0)), dtype


def test_hinge_loss_runs_clean_under_the_sanitizer():
    for name in ("hinge_loss", "hinge_loss_half", "hinge_loss_bf16"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("atlas-a2", k.make_inputs(10007, 0))) == [], name
        assert _reports(lambda: k.run("atlas-a3", k.make_inputs(10007, 0)), "device-sync") == [], name


# kernels/threshold_v2.py

def _threshold_tiling(m, n, dtype):
    used, mode, raw = m.tiling("ascend950", n, dtype, 0.3, -2.5)
    return used, mode, m.ThresholdV2TilingData.from_buffer_copy(raw.tobytes())


def test_threshold_v2_tiling_32_element_core_blocks_and_buffering():
    _, m = _spec_and_module("threshold_v2")
    # ceil(300032 / 8) = 37504 (a multiple of 32); (253952 - 4096) / 4 / 4 buffers = 15616 floats a tile
    used, mode, t = _threshold_tiling(m, 300032, "float")
    assert (used, mode, t.blockFactor, t.ubFactor) == (8, 1, 37504, 15616)
    # 100003: 12501 rounded up to 12512 elements (32 elements, not bytes); 16-bit double-buffered 31232
    used, mode, t = _threshold_tiling(m, 100003, "bfloat16")
    assert (used, mode, t.blockFactor, t.ubFactor) == (8, 1, 12512, 31232)
    # 1024 or fewer: single buffering (two buffers): 62464 halves a tile; 1000 -> 8 cores of 128, the last 104
    used, mode, t = _threshold_tiling(m, 1000, "half")
    assert (used, mode, t.blockFactor, t.ubFactor) == (8, 0, 128, 62464)
    assert _threshold_tiling(m, 40, "float")[0] == 2 and _threshold_tiling(m, 1025, "float")[1] == 1
    # the float scalars as the struct stores them
    assert t.thresholdVal == np.float32(0.3) and t.valueVal == -2.5


def test_threshold_v2_scalars_convert_as_float_to_t():
    """static_cast for float / half (RNE); bfloat16 keeps the float's high half (truncation, not RNE)."""
    _, m = _spec_and_module("threshold_v2")
    v = np.float32(1.0 + 2 ** -8 + 2 ** -9)                    # RNE rounds up in bfloat16, truncation down
    assert _bits(np.array([m.FloatToT("bfloat16", v)]))[0] == 0x3F80
    assert _bits(np.array([BF16(v)]))[0] == 0x3F81
    assert m.FloatToT("half", v) == np.float16(v) and m.FloatToT("float", 0.3) == np.float32(0.3)


@pytest.mark.parametrize("dtype, n", [(np.float32, 300032), (np.float32, 100003), (np.float16, 1000),
                                      (np.float16, 70001), (BF16, 1000), (BF16, 50003), (np.float32, 1)])
def test_threshold_v2_is_the_numpy_model(dtype, n):
    """Three tiles a core (300032 floats), a short last core whose tile is not whole repeats, single-buffered runs
    (1000), one element. The threshold's bfloat16 truncation shows: x equal to the truncated threshold is not > it."""
    _, m = _spec_and_module("threshold_v2")
    rng = np.random.default_rng(n)
    x = rng.uniform(-2, 2, n).astype(np.float32)
    x[::89] = 0.3
    x = x.astype(dtype)
    th = 1.0 + 2 ** -8 + 2 ** -9 if dtype == BF16 else 0.3
    x[1::89] = np.array([m.FloatToT(m._dtype_name(x), th)], dtype)[0] if n > 1 else x[1::89]
    y = m.run_threshold_v2("ascend950", x, th, -2.5)
    assert y.dtype == x.dtype and _same(y, m.threshold_v2_model(x, th, -2.5))
    if dtype == BF16 and n > 1:
        assert y[1] == BF16(-2.5)                              # equal to the truncated threshold: value


def test_threshold_v2_specials_and_the_formula():
    """NaN > threshold is false (D43): value; +inf passes, -inf is replaced; -0 against threshold 0 is not > 0."""
    _, m = _spec_and_module("threshold_v2")
    x = np.tile(np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-30, 5.0, -5.0], np.float32), 33)
    for dtype in (np.float32, np.float16, BF16):
        y = m.run_threshold_v2("ascend950", x.astype(dtype), 0.0, 7.0).astype(np.float32)[:8]
        want = [7.0, np.inf, 7.0, 7.0, 7.0, 1e-30 if dtype == np.float32 else 7.0, 5.0, 7.0]
        if dtype == BF16:
            want[5] = np.float32(BF16(1e-30))
        assert y.tolist() == [np.float32(w) for w in want], dtype
    xs = np.random.default_rng(2).standard_normal(5000).astype(np.float32)
    out = m.run_threshold_v2("ascend950", xs, 0.25, -1.0).astype(np.float64)
    assert np.array_equal(out, np.where(xs.astype(np.float64) > np.float64(np.float32(0.25)), xs, -1.0))


def test_threshold_v2_original_mask_tbuf_overruns_the_ub_single_buffered(monkeypatch):
    """The deviation's reason: single-buffered 16-bit tiles of 62464 elements want a 7808-byte mask TBuf where the
    tiling left 4096 bytes: InitBuffer refuses it before anything is copied. The float kernel fits either way."""
    _, m = _spec_and_module("threshold_v2")
    monkeypatch.setattr(m, "ORIGINAL_MASK", True)
    x = np.linspace(-1, 1, 1000).astype(np.float16)
    with pytest.raises(aj.OutOfBoundsError, match="InitBuffer"):
        m.run_threshold_v2("ascend950", x, 0.3, -2.5)
    xf = np.linspace(-1, 1, 1000).astype(np.float32)
    assert _same(m.run_threshold_v2("ascend950", xf, 0.3, -2.5), m.threshold_v2_model(xf, 0.3, -2.5))


def test_threshold_v2_rounded_compare_reads_lanes_past_the_copy(monkeypatch):
    """The original's form (ORIGINAL_TAIL): the compare and select over the count rounded up to a repeat read input
    lanes no copy wrote, on the cores whose tile is not whole repeats; the values are the same. The Select reads
    them through the CompareScalar's mask bits (sel_mask, reported at the Select with the CompareScalar as the
    earlier instruction: docs/decisions.md "Sanitizer": a count-form Compare's never-written lanes are followed to
    what reads their bits); its src0 lanes are followed to dst, which the copy-out does not read ("The init check
    through a Select")."""
    _, m = _spec_and_module("threshold_v2")
    x = np.random.default_rng(1).uniform(-1, 1, 1001).astype(np.float32)
    monkeypatch.setattr(m, "ORIGINAL_TAIL", True)
    outs = {}
    original = _reports(lambda: outs.setdefault(True, m.run_threshold_v2("ascend950", x, 0.3, -2.5)))
    assert {(r.check, r.instruction.api, r.operand, r.earlier and r.earlier.api) for r in original} == \
        {("init", "Select", "sel_mask", "Compares")}
    assert all(r.fix.startswith("these mask bits were computed from lanes of ") for r in original
               if r.operand == "sel_mask")
    monkeypatch.setattr(m, "ORIGINAL_TAIL", False)
    assert _reports(lambda: outs.setdefault(False, m.run_threshold_v2("ascend950", x, 0.3, -2.5))) == []
    assert _same(outs[True], outs[False])


def test_threshold_v2_runs_clean_under_the_sanitizer():
    for name, n in (("threshold_v2", 40003), ("threshold_v2_half", 1000), ("threshold_v2_bf16", 3001)):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("ascend950", k.make_inputs(n, 0))) == [], name
        assert _reports(lambda: k.run("ascend950", k.make_inputs(n, 0)), "device-sync") == [], name


# kernels/gaussian_nll_loss.py

def _gnll_tiling(m, device, shape, dtype, reduction, tshape=None, vshape=None):
    used, raw = m.tiling(device, shape, tshape or shape, vshape if vshape is not None else shape, dtype, reduction)
    return used, m.GaussianNllLossTilingData.from_buffer_copy(raw.tobytes())


def test_gaussian_nll_loss_tiling_and_broadcast_classification():
    _, m = _spec_and_module("gaussian_nll_loss")
    # float: 4 queues x 2 x 4 + 2 float buffers x 4 = 40 bytes an element; (196608 - 8 x 4 - 8 x 8 x 4) / 40 = 4908,
    # rounded down to 8 floats; "none" keeps no reduction scratch; half: 16 + 5 x 4 = 36 bytes
    used, t = _gnll_tiling(m, "atlas-a2", (100003,), "float", "mean")
    assert used == 8 and t.tileDataNum == 4904 and t.tailBlockNum == 3 and t.bigCoreDataNum == 12501
    assert (t.finalBigTileNum, t.bigTailDataNum) == (3, 12501 - 2 * 4904)
    assert t.meanScale == np.float32(1.0) / np.float32(100003) and t.fullConstant == 0.0
    assert _gnll_tiling(m, "atlas-a2", (100003,), "float", "none")[1].tileDataNum == 196608 // 40 // 8 * 8
    assert _gnll_tiling(m, "atlas-a2", (50003,), "half", "none")[1].tileDataNum == 196608 // 36 // 16 * 16
    assert _gnll_tiling(m, "atlas-a2", (3,), "half", "sum")[0] == 3
    # target broadcasting axis 1 of (4, 5, 6): span 30, inner 6; var (4, 5, 1) or (4, 5): trailing, inner 6
    _, t = _gnll_tiling(m, "atlas-a2", (4, 5, 6), "float", "sum", (4, 1, 6), (4, 5, 1))
    assert (t.targetBroadcastMode, t.targetAxisSpan, t.targetInnerSize, t.targetElementCount) == (1, 30, 6, 24)
    assert (t.varBroadcastMode, t.varInnerSize, t.varElementCount) == (1, 6, 20)
    assert _gnll_tiling(m, "atlas-a2", (4, 5, 6), "float", "sum", None, (4, 5))[1].varBroadcastMode == 1
    assert _gnll_tiling(m, "atlas-a2", (4, 5, 6), "float", "sum", None, ())[1].varBroadcastMode == 2
    with pytest.raises(ValueError):
        _gnll_tiling(m, "atlas-a2", (4, 5, 6), "float", "sum", (1, 1, 6))


@pytest.mark.parametrize("dtype, n, reduction", [
    (np.float32, 30011, "mean"), (np.float32, 3001, "sum"), (np.float32, 30011, "none"), (np.float32, 5, "mean"),
    (np.float16, 9001, "none"), (np.float16, 12003, "mean"), (BF16, 8003, "sum"), (BF16, 101, "none")])
def test_gaussian_nll_loss_is_the_numpy_model_in_the_kernels_order(dtype, n, reduction):
    """"none" element by element; "sum" / "mean" bit for bit against the device's ReduceSum tree per tile, the
    1-element Add into the partial, the slots' tree on core 0 (several tiles a core at 30011 floats; 5 cores of one
    element each at 5)."""
    _, m = _spec_and_module("gaussian_nll_loss")
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32).astype(dtype)
    t = rng.standard_normal(n).astype(np.float32).astype(dtype)
    v = rng.uniform(0.0, 2.0, n).astype(np.float32).astype(dtype)
    for device in A2_A3:
        for full in (False, True):
            out = m.run_gaussian_nll_loss(device, x, t, v, reduction, full)
            want = m.gaussian_nll_loss_model(device, x, t, v, reduction, full)
            assert out.dtype == want.dtype and _same(out, want), (device, full, out[:4], want[:4])


def test_gaussian_nll_loss_broadcasts_by_the_scalar_unit():
    """A target broadcast along axis 1 and a var along the last axis (trailing 1, or omitted) or a scalar, read
    element by element from GM: the same as numpy's broadcasting."""
    _, m = _spec_and_module("gaussian_nll_loss")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 7, 50)).astype(np.float32)
    t = rng.standard_normal((6, 1, 50)).astype(np.float32)
    for v in (rng.uniform(0.5, 2, (6, 7, 1)).astype(np.float32), rng.uniform(0.5, 2, (6, 7)).astype(np.float32),
              np.array(1.5, np.float32)):
        for reduction in ("none", "sum"):
            out = m.run_gaussian_nll_loss("atlas-a2", x, t, v, reduction)
            assert _same(out, m.gaussian_nll_loss_model("atlas-a2", x, t, v, reduction)), (v.shape, reduction)
    out = m.run_gaussian_nll_loss("atlas-a3", x, t, np.array(1.5, np.float32), "none").reshape(x.shape)
    d = x.astype(np.float64) - t
    assert np.allclose(out, 0.5 * (np.log(1.5) + d * d / 1.5), rtol=1e-6, atol=1e-7)


def test_gaussian_nll_loss_is_the_formula_within_rounding():
    """Against float64: var clamped to eps (var 0 -> eps), full adds 0.5 ln(2 pi). "none" within a few float
    roundings (and the type's RNE); "mean" within 1e-5 relative (var in [0.5, 2] keeps |ln var| below the quotient's
    typical size and the eps-clamped terms dominate positively: no cancellation in the sum)."""
    _, m = _spec_and_module("gaussian_nll_loss")
    rng = np.random.default_rng(11)
    x = rng.standard_normal(20000).astype(np.float32)
    t = (x + rng.standard_normal(20000)).astype(np.float32)
    v = rng.uniform(0.5, 2.0, 20000).astype(np.float32)
    v[::97] = 0.0
    vv = np.maximum(v.astype(np.float64), np.float64(np.float32(1e-6)))
    d = x.astype(np.float64) - t
    for full in (False, True):
        want = 0.5 * (np.log(vv) + d * d / vv) + (0.5 * np.log(2 * np.pi) if full else 0.0)
        for dtype, tol in ((np.float32, 1e-6), (np.float16, 2 ** -11 + 1e-5), (BF16, 2 ** -8 + 1e-5)):
            xs, ts, vs = x.astype(dtype), t.astype(dtype), v.astype(dtype)
            if dtype == np.float16:
                vs[v == 0] = 0.5                               # 0.5 / eps overflows half: inf, tested in float
            xd, td = xs.astype(np.float64), ts.astype(np.float64)
            vd = np.maximum(vs.astype(np.float64), np.float64(np.float32(1e-6)))
            w = 0.5 * (np.log(vd) + (xd - td) ** 2 / vd) + (0.5 * np.log(2 * np.pi) if full else 0.0)
            out = m.run_gaussian_nll_loss("atlas-a2", xs, ts, vs, "none", full).astype(np.float64)
            assert np.all(np.abs(out - w) <= tol * np.abs(w) + 1e-5), (dtype, full)
        mean = m.run_gaussian_nll_loss("atlas-a2", x, t, v, "mean", full)[0]
        assert abs(mean - want.mean()) <= 1e-5 * abs(want.mean()), full


def test_gaussian_nll_loss_specials():
    """NaN var stays NaN through Maxs (D41); var 0 -> eps; an infinite difference gives inf; NaN makes the sum NaN."""
    _, m = _spec_and_module("gaussian_nll_loss")
    x = np.tile(np.array([0.0, 1.0, np.inf, 2.0, np.nan, 0.0, 1.0, -1.0], np.float32), 11)
    t = np.zeros_like(x)
    v = np.tile(np.array([np.nan, 0.0, 1.0, 1.0, 1.0, 1.0, 4.0, -3.0], np.float32), 11)
    out = m.run_gaussian_nll_loss("atlas-a2", x, t, v, "none")
    assert _same(out, m.gaussian_nll_loss_model("atlas-a2", x, t, v, "none"))
    f = out[:8]
    assert np.isnan(f[[0, 4]]).all() and f[2] == np.inf and f[3] == 2.0 and _bits(f[5]) == 0
    assert f[1] == np.float32(0.5) * (np.float32(np.log(np.float32(1e-6))) + np.float32(1) / np.float32(1e-6))
    assert np.isnan(m.run_gaussian_nll_loss("atlas-a3", x, t, v, "sum")[0])


def test_gaussian_nll_loss_original_broadcast_sync_races_on_the_device(monkeypatch):
    """ORIGINAL_SYNC: the broadcast var's SetValues into the VECIN tile are ordered before its Cast only by the
    queue (MTE2_V on the device): device-sync reports the S -> V RAW (and, once a buffer is recycled, the V -> S WAR
    of the previous tile's Cast: test_gaussian_nll_loss_recycled_broadcast_buffers_need_the_v_s_pair); the port's
    V_S / S_V pairs leave none. The values are the same."""
    _, m = _spec_and_module("gaussian_nll_loss")
    rng = np.random.default_rng(4)
    x = rng.standard_normal(4003).astype(np.float16)
    t = rng.standard_normal(4003).astype(np.float16)
    v = np.array(0.75, np.float16)
    outs = {}
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    original = _reports(lambda: outs.setdefault(True, m.run_gaussian_nll_loss("atlas-a2", x, t, v, "mean")),
                        "report,device-sync")
    assert original and {r.check for r in original} == {"race"}
    assert ("Cast", "SetValue") in {(r.instruction.api, r.earlier.api) for r in original}
    assert _reports(lambda: m.run_gaussian_nll_loss("atlas-a2", x, t, v, "mean")) == []   # SPEC-2 10.4's hand-off
    monkeypatch.setattr(m, "ORIGINAL_SYNC", False)
    assert _reports(lambda: outs.setdefault(False, m.run_gaussian_nll_loss("atlas-a2", x, t, v, "mean")),
                    "device-sync") == []
    assert _same(outs[True], outs[False])


@pytest.mark.slow   # three 5456-half tiles a core, every broadcast element by SetValue under the sanitizer: ~25 s
def test_gaussian_nll_loss_recycled_broadcast_buffers_need_the_v_s_pair(monkeypatch):
    """From a core's third tile on, the broadcast var's SetValues write a VECIN buffer the Cast of two tiles before
    read: the queue's free / alloc event is V_MTE2 on the device, so device-sync reports the V -> S WAR in the
    original's form; the port's V_S pair before the SetValues leaves nothing."""
    _, m = _spec_and_module("gaussian_nll_loss")
    rng = np.random.default_rng(4)
    n = 8 * (2 * 5456 + 100)
    x, t = rng.standard_normal(n).astype(np.float16), rng.standard_normal(n).astype(np.float16)
    v = np.array(0.75, np.float16)
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    original = _reports(lambda: m.run_gaussian_nll_loss("atlas-a2", x, t, v, "mean"), "report,device-sync")
    assert {(r.kind, r.instruction.api, r.earlier.api) for r in original} == {
        ("RAW", "Cast", "SetValue"), ("WAR", "SetValue", "Cast")}
    monkeypatch.setattr(m, "ORIGINAL_SYNC", False)
    assert _reports(lambda: m.run_gaussian_nll_loss("atlas-a2", x, t, v, "mean"), "report,device-sync") == []


def test_gaussian_nll_loss_runs_clean_under_the_sanitizer():
    for name, n in (("gaussian_nll_loss", 20011), ("gaussian_nll_loss_none_half", 5003),
                    ("gaussian_nll_loss_sum_bf16_scalar_var", 3001)):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("atlas-a2", k.make_inputs(n, 0))) == [], name
        assert _reports(lambda: k.run("atlas-a3", k.make_inputs(n, 0)), "device-sync") == [], name


# kernels/threshold_grad_v2_d.py

def _tgrad_tiling(m, device, n, dtype):
    used, raw = m.tiling(device, n, dtype, 0.5)
    t = m.ThresholdGradV2DTilingData.from_buffer_copy(raw.tobytes())
    return used, t


def test_threshold_grad_v2_d_tiling_256_byte_blocks_per_type():
    _, m = _spec_and_module("threshold_grad_v2_d")
    # 768 UB blocks of 256 bytes: / 7 = 109 (float: 6976 a tile), / 14 = 54 (int8: 13824), / 8 = 96 (int32: 6144)
    tiles = {d: _tgrad_tiling(m, "atlas-a2", 100003, d)[1].tileDataNum for d in ("float", "half", "bfloat16",
                                                                               "int32", "int8")}
    assert tiles == {"float": 6976, "half": 13952, "bfloat16": 76 * 128, "int32": 6144, "int8": 13824}
    # 100003 floats = 1563 blocks: 8 cores of 195, the first 3 one more; a core 2 tiles (109 + 86 or 87 blocks)
    used, t = _tgrad_tiling(m, "atlas-a2", 100003, "float")
    assert (used, t.tailBlockNum, t.smallCoreDataNum, t.bigCoreDataNum) == (8, 3, 195 * 64, 196 * 64)
    assert (t.finalSmallTileNum, t.smallTailDataNum, t.bigTailDataNum) == (2, 86 * 64, 87 * 64)
    # a tile holds the input: one core; whole blocks cover every element
    used, t = _tgrad_tiling(m, "atlas-a3", 5000, "int8")
    assert used == 1 and t.finalSmallTileNum == 1 and t.smallCoreDataNum == 5120 and t.threshold == 0.5
    for n in (1, 64, 65, 6977, 100003):
        used, t = _tgrad_tiling(m, "atlas-a2", n, "float")
        covered = sum(t.bigCoreDataNum if c < t.tailBlockNum else t.smallCoreDataNum for c in range(used))
        assert covered == -(-n // 64) * 64


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, n", [(np.float32, 30011), (np.float16, 9001), (BF16, 5003), (np.int32, 20011),
                                      (np.int8, 120011), (np.uint8, 30011), (np.float32, 1)])
def test_threshold_grad_v2_d_is_the_numpy_model(device, dtype, n):
    """Several tiles a core (int8 120011: 8 cores of 15104 or 14848 elements, a 13824-element tile (past half the
    original's float temporary) and a short one),
    big and small cores, one element; int32 gradients past 2**24 rounded through float."""
    _, m = _spec_and_module("threshold_grad_v2_d")
    rng = np.random.default_rng(n)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        g = rng.integers(info.min, int(info.max) + 1, n).astype(dtype)
        f = rng.integers(max(info.min, -3), min(info.max, 3) + 1, n).astype(dtype)
    else:
        g = rng.standard_normal(n).astype(np.float32).astype(dtype)
        f = rng.uniform(-1, 2, n).astype(np.float32).astype(dtype)
    y = m.run_threshold_grad_v2_d(device, g, f, 0.5)
    assert y.dtype == g.dtype and _same(y, m.threshold_grad_v2_d_model(g, f, 0.5))


def test_threshold_grad_v2_d_specials_and_the_formula():
    """NaN feature: 0 (D43); -0 gradient kept where selected; half rounds the threshold 0.1 to half first; int32
    2**24 + 1 comes back as 2**24 (float's RNE, then truncation)."""
    _, m = _spec_and_module("threshold_grad_v2_d")
    f = np.tile(np.array([np.nan, 1.0, 0.5, np.inf, -np.inf, 2.0, 0.1, 0.0999], np.float32), 16)
    g = np.tile(np.array([3.0, -0.0, 7.0, 5.0, 6.0, np.nan, 8.0, 9.0], np.float32), 16)
    for dtype in (np.float32, np.float16, BF16):
        th = 0.1 if dtype == np.float16 else 0.5
        y = m.run_threshold_grad_v2_d("atlas-a2", g.astype(dtype), f.astype(dtype), th).astype(np.float32)[:8]
        assert _same(y, m.threshold_grad_v2_d_model(g.astype(dtype), f.astype(dtype), th).astype(np.float32)[:8])
        assert y[0] == 0 and _bits(y[1:2])[0] == 0x80000000 and y[3] == 5.0 and y[4] == 0 and np.isnan(y[5])
    yh = m.run_threshold_grad_v2_d("atlas-a2", g.astype(np.float16), f.astype(np.float16), 0.1)
    assert yh[6] == 0 and yh[2] == 7                        # half(0.1) is not > half(0.1); 0.5 > 0.1
    gi = np.full(300, 2 ** 24 + 1, np.int32)
    gi[1::2] = -(2 ** 31)
    yi = m.run_threshold_grad_v2_d("atlas-a3", gi, np.ones(300, np.int32), 0.5)
    assert yi[0] == 2 ** 24 and yi[1] == -(2 ** 31)
    xs = np.random.default_rng(6).standard_normal(7000).astype(np.float32)
    gs = np.random.default_rng(7).standard_normal(7000).astype(np.float32)
    out = m.run_threshold_grad_v2_d("atlas-a3", gs, xs, -0.25).astype(np.float64)
    assert np.array_equal(out, np.where(xs.astype(np.float64) > -0.25, gs, 0.0))


def test_threshold_grad_v2_d_original_half_sized_float_temporary_is_refused(monkeypatch):
    """The deviation's reason: int8 / uint8 take the second temporary (tileDataNum halves of bytes) as float; a tile
    of more than tileDataNum / 2 elements Casts past it (OutOfBoundsError); a short one fits and matches."""
    _, m = _spec_and_module("threshold_grad_v2_d")
    monkeypatch.setattr(m, "ORIGINAL_TMP2", True)
    rng = np.random.default_rng(8)
    g, f = rng.integers(-128, 128, 110000).astype(np.int8), rng.integers(-2, 3, 110000).astype(np.int8)
    with pytest.raises(aj.OutOfBoundsError, match="Cast"):
        m.run_threshold_grad_v2_d("atlas-a2", g, f, 0.5)
    assert _same(m.run_threshold_grad_v2_d("atlas-a2", g[:5000], f[:5000], 0.5),
                 m.threshold_grad_v2_d_model(g[:5000], f[:5000], 0.5))


def test_threshold_grad_v2_d_runs_clean_under_the_sanitizer():
    for suffix in ("", "_half", "_bf16", "_int32", "_int8", "_uint8"):
        k, _ = _spec_and_module("threshold_grad_v2_d" + suffix)
        assert _reports(lambda: k.run("atlas-a2", k.make_inputs(30011, 0)), "report,device-sync") == [], suffix


# kernels/foreach_div_scalar.py

def test_foreach_div_scalar_tiling_whole_vector_chunks_and_core_ranges():
    """Unary: UB / (2 + 2 buffers) = 15872 floats or 31744 halves a chunk, whole 256-byte vectors already; the
    cores' tensor ranges (4096-byte blocks) cover every element once, a core's range ending inside a tensor."""
    _, m = _spec_and_module("foreach_div_scalar")
    for dtype, chunk in (("float", 15872), ("half", 31744), ("bfloat16", 31744)):
        blocks, key, raw = m.tiling("ascend950", [100000], dtype)
        t = np.frombuffer(raw.tobytes(), m.ForeachSoloTilingDataRegbase)[0]
        assert t["inputsTensorUbSize"] == chunk and chunk * m._SIZE[dtype] % 256 == 0 and blocks == 8
        assert key == m._KEY[dtype]
    counts = [41000, 10, 30000, 28990, 1]
    blocks, _, raw = m.tiling("ascend950", counts, "float")
    t = np.frombuffer(raw.tobytes(), m.ForeachSoloTilingDataRegbase)[0]
    seen = np.zeros(sum(counts), int)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    for c in range(blocks):
        for i in range(t["tensorStartList"][c], t["tensorEndList"][c] + 1):
            lo = t["tensorStartOffsetList"][c] if i == t["tensorStartList"][c] else 0
            hi = t["tensorEndOffsetList"][c] if i == t["tensorEndList"][c] else counts[i] - 1
            seen[starts[i] + lo:starts[i] + hi + 1] += 1
    assert blocks == 8 and (seen == 1).all()


def test_foreach_div_scalar_reciprocal_on_the_scalar_unit():
    """+-0 -> +-inf, +-inf -> +-0, NaN stays NaN; a float scalar's reciprocal takes one Newton step, each operation
    rounded once (docs/decisions.md); a half scalar's is 1.0f / s alone."""
    _, m = _spec_and_module("foreach_div_scalar")
    assert m.reciprocal(0.0, "float") == np.inf and m.reciprocal(-0.0, "half") == -np.inf
    assert _bits(np.array([m.reciprocal(np.inf, "float"), m.reciprocal(-np.inf, "float")])).tolist() == [
        0, 0x80000000]
    assert np.isnan(m.reciprocal(np.nan, "float"))
    s = np.float32(3.0)
    inv = np.float32(1) / s
    assert m.reciprocal(s, "float") == np.float32(inv * np.float32(np.float32(2) - np.float32(s * inv)))
    assert m.reciprocal(np.float16(-0.7), "half") == np.float32(1) / np.float32(np.float16(-0.7))
    # over many scalars the refined reciprocal is within an ulp of 1 / s
    ss = np.random.default_rng(0).uniform(0.01, 100, 2000).astype(np.float32)
    got = np.array([m.reciprocal(v, "float") for v in ss], np.float64)
    assert np.all(np.abs(got - 1 / ss.astype(np.float64)) <= 2 ** -23 * np.abs(1 / ss.astype(np.float64)))


@pytest.mark.parametrize("dtype, scalar", [(np.float32, 3.0), (np.float32, -0.1), (np.float16, -0.7),
                                           (np.float16, 7.0), (BF16, 1e-3), (BF16, -3.0)])
def test_foreach_div_scalar_is_the_numpy_model(dtype, scalar):
    """Lists with a tensor longer than a chunk (40001 floats: 15872 + 15872 + 8257; halves one chunk), tensors
    shorter than a vector or a DataBlock, core ranges cut inside tensors."""
    _, m = _spec_and_module("foreach_div_scalar")
    rng = np.random.default_rng(int(abs(scalar) * 1000))
    xs = [(rng.standard_normal(n) * 10).astype(dtype) for n in (40001, 3, 17, 9000, 64, 1)]
    outs = m.run_div_scalar("ascend950", xs, scalar)
    for x, y in zip(xs, outs):
        assert y.dtype == x.dtype and _same(y, m.div_scalar_model(x, scalar)), x.size


def test_foreach_div_scalar_specials_and_the_formula():
    """Division by +-0 gives +-inf (0 * inf: NaN), by inf gives +-0; against float64 x / s within an ulp and a half
    (the reciprocal's and the product's roundings) and the type's RNE."""
    _, m = _spec_and_module("foreach_div_scalar")
    x = np.tile(np.array([1.0, -2.0, 0.0, np.nan, np.inf], np.float32), 30)
    y = m.run_div_scalar("ascend950", [x], 0.0)[0][:5]
    assert y[0] == np.inf and y[1] == -np.inf and np.isnan(y[2:4]).all() and y[4] == np.inf
    y = m.run_div_scalar("ascend950", [x], -np.inf)[0][:5]
    assert _bits(y[:3]).tolist() == [0x80000000, 0, 0x80000000] and np.isnan(y[3:]).all()
    for dtype, rtol in ((np.float32, 1.5 * 2 ** -23), (np.float16, 2 ** -11 + 2 ** -22), (BF16, 2 ** -8 + 2 ** -22)):
        xs = (np.random.default_rng(2).standard_normal(5000) * 100).astype(dtype)
        for s in (3.0, -0.37, 0.05):
            sq = np.float64(np.float32(np.float16(s))) if dtype == np.float16 else np.float64(np.float32(s))
            out = m.run_div_scalar("ascend950", [xs], s)[0].astype(np.float64)
            want = xs.astype(np.float64) / sq
            assert np.all(np.abs(out - want) <= rtol * np.abs(want) + 1e-30), (dtype, s)


def test_foreach_div_scalar_whole_vector_loads_read_past_a_short_chunk(monkeypatch):
    """The original's form (ZERO_TAIL False): the last vector's load reads input-buffer lanes no copy wrote (outside
    the UpdateMask: the same outputs); the port's Duplicate leaves nothing to report, on the device's order too.
    Session 54: the lanes carry the init check; the original's tail lanes never reach a store, so it (reported
    before) runs clean as well."""
    k, m = _spec_and_module("foreach_div_scalar")
    inputs = k.make_inputs(20011, 0)
    monkeypatch.setattr(m, "ZERO_TAIL", False)
    outs = {}
    assert _reports(lambda: outs.setdefault(False, k.run("ascend950", inputs)), "report,device-sync") == []
    monkeypatch.setattr(m, "ZERO_TAIL", True)
    assert _reports(lambda: outs.setdefault(True, k.run("ascend950", inputs)), "report,device-sync") == []
    assert all(_same(outs[True][key], outs[False][key]) for key in outs[True])


def test_foreach_div_scalar_runs_clean_under_the_sanitizer():
    for name in ("foreach_div_scalar_half", "foreach_div_scalar_bf16"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("ascend950", k.make_inputs(20011, 0)), "report,device-sync") == [], name
