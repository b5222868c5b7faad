"""The session-45e ports of ops-nn per-group / per-row statistics kernels (A2 / A3, one also on the 950):
kernels/group_norm_swish.py (GroupNormSwish small float groups: ReduceSumCustom by WholeReduceSum / BlockReduceSum
passes into two partial sums, V_S, scalar mean / rstd, per-channel Muls / Adds, swish), kernels/
group_normalization_grad.py (GroupNormalizationGrad: per-tile count-form ReduceSum and scalar sums over multi-tile
planes, float / half / bfloat16) and kernels/log_softmax_v2.py (LogSoftmaxV2 2-D: counter-mode BlockReduceMax /
WholeReduceMax and BlockReduceSum / WholeReduceSum passes, Exp, Ln; float a row a step, half in strided multi-row
tiles). Each against a numpy model replaying the kernel's float32 steps on the devices' reduction trees
(aj.explain_reduce_order) bit for bit, and against a float64 formula within the types' rounding; the host tilings;
each deviation's reason (the original's form run and reported by the sanitizer or refused)."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import sanitizer_reports as _reports, same_bits as _same, spec_and_module as _spec_and_module

A2_A3 = ["atlas-a2", "atlas-a3"]
BF16 = ml_dtypes.bfloat16


# kernels/group_norm_swish.py

def _gns_inputs(shape, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(0.5, 2.0, shape).astype(np.float32)
    return x, rng.uniform(0.5, 1.5, shape[1]).astype(np.float32), rng.uniform(-1, 1, shape[1]).astype(np.float32)


def test_group_norm_swish_tiling_keys_and_core_split():
    _, m = _spec_and_module("group_norm_swish")
    used, key, t = m.tiling((10, 32, 9, 16), 8)
    t = np.frombuffer(t.tobytes(), m.GroupNormSwishTilingData)[0]
    # 80 groups over 8 cores; numPerGroup 4 x 144 = 576; C = 32 aligned to 8
    assert (used, key) == (8, 212) and (t["groupPerCore"], t["groupLastCore"], t["numPerGroup"]) == (10, 10, 576)
    assert t["groupPerCoreAlign"] == 16 and t["shapeCAlign"] == 32 and t["numTailLoop"] == 576
    used, key, t = m.tiling((3, 6, 5), 3)                 # 9 groups: 2 a core, 5 cores, the last 1
    t = np.frombuffer(t.tobytes(), m.GroupNormSwishTilingData)[0]
    assert (used, key, t["groupPerCore"], t["groupLastCore"]) == (5, 212, 2, 1)
    assert m.tiling((2, 4, 1), 2)[1] == 211                # H x W == 1
    assert m.tiling((2, 2, 8193), 1)[1] == 213              # a group over 8192
    assert m.tiling((1, 8000, 2), 4000)[1] == 214           # C + groups a core over 4088
    with pytest.raises(aj.ParameterError, match="tiling key 212"):
        m.run_group_norm_swish("atlas-a2", *_gns_inputs((2, 2, 8193), 0), 1)


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("shape, groups, swish", [
    ((3, 12, 30, 20), 2, True),     # 3600 a group: 56 repeats + a 16-float tail; 6 groups on 6 cores
    ((2, 6, 1000), 1, False),       # 6000: BlockReduceSum of the first 4096, the rest by ReduceSumCustomSmall
    ((2, 2, 4096), 1, True),        # 8192: the doubleRNum path (BlockReduceSum 128 / 16, WholeReduceSum 2)
    ((9, 4, 1000), 2, True),        # 2000 (31 repeats + 16), 18 groups: 3 a core, the last core none
    ((5, 6, 7), 3, True),           # H x W = 7: ComputeMulLoop, channels from unaligned GM starts
    ((4, 10, 13), 5, False),        # ComputeMulLoop without swish, 20 groups of 26
    ((1, 8, 601), 1, True),         # ComputeMulLoop over a 4808-float group (the BlockReduceSum + small split)
])
def test_group_norm_swish_is_the_numpy_model(device, shape, groups, swish):
    _, m = _spec_and_module("group_norm_swish")
    x, g, b = _gns_inputs(shape, sum(shape))
    out = m.run_group_norm_swish(device, x, g, b, groups, eps=1e-5, activate_swish=swish, swish_scale=1.5)
    want = m.group_norm_swish_model(x, g, b, groups, eps=1e-5, activate_swish=swish, swish_scale=1.5, device=device)
    for o, w in zip(out, want):
        assert o.shape == w.shape and _same(o, w)


def test_group_norm_swish_the_formula_and_the_shared_trees():
    """Against float64 GroupNorm + swish; the A2 and A3 share the trees ReduceSumCustom uses (so one model)."""
    _, m = _spec_and_module("group_norm_swish")
    x, g, b = _gns_inputs((3, 12, 30, 20), 4)
    y, mean, rstd = m.run_group_norm_swish("atlas-a2", x, g, b, 2, activate_swish=True, swish_scale=1.0)
    xs = x.astype(np.float64).reshape(6, -1)
    mu, var = xs.mean(axis=1), xs.var(axis=1)
    assert np.allclose(mean, mu, rtol=1e-5, atol=1e-6) and np.allclose(rstd, 1 / np.sqrt(var + 1e-5), rtol=1e-5)
    z = ((xs - mu[:, None]) / np.sqrt(var[:, None] + 1e-5)).reshape(x.shape) * g[None, :, None, None] \
        + b[None, :, None, None]
    assert np.allclose(y, z / (1 + np.exp(-z)), rtol=1e-4, atol=1e-5)
    for form, mask, rep in (("WholeReduceSum", 64, 3), ("WholeReduceSum", 17, 1), ("BlockReduceSum", 64, 2)):
        a2, a3 = (aj.explain_reduce_order(d, form, "float", mask=mask, repeat_time=rep) for d in A2_A3)
        assert [t.postorder() for t in a2] == [t.postorder() for t in a3]
    w = np.random.default_rng(1).normal(0, 1, 5000).astype(np.float32)
    s = m.reduce_sum_custom("atlas-a2", w)
    assert abs(float(s[0]) + float(s[1]) - w.astype(np.float64).sum()) < 1e-3


def test_group_norm_swish_statistics_copy_out_races_on_the_device(monkeypatch):
    """The deviation's reason: mean / rstd SetValue'd into VECOUT tiles and copied out after EnQue / DeQue only are
    ordered under SPEC-2 10.4 but race on the device (device-sync: S -> MTE3)."""
    _, m = _spec_and_module("group_norm_swish")
    x, g, b = _gns_inputs((2, 4, 16), 0)
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    assert _reports(lambda: m.run_group_norm_swish("atlas-a2", x, g, b, 2)) == []
    reports = _reports(lambda: m.run_group_norm_swish("atlas-a2", x, g, b, 2), "report,device-sync")
    assert reports and all("[race]" in str(r) and "S_MTE3" in str(r) for r in reports)
    monkeypatch.setattr(m, "ORIGINAL_SYNC", False)
    assert _reports(lambda: m.run_group_norm_swish("atlas-a2", x, g, b, 2), "device-sync") == []


def test_group_norm_swish_default_sizes_run_clean_under_the_sanitizer():
    for name in ("group_norm_swish", "group_norm_swish_odd_hw", "group_norm_swish_8192"):
        k, _ = _spec_and_module(name)
        inputs = k.make_inputs(k.default_size, 0)
        assert _reports(lambda: k.run("atlas-a2", inputs)) == [], name
        assert _reports(lambda: k.run("atlas-a3", inputs), "device-sync") == [], name
        out, want = k.run("atlas-a3", inputs), k.expected("atlas-a3", inputs)
        assert all(_same(out[key], want[key]) for key in out), name


# kernels/group_normalization_grad.py

def _gng_inputs(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(0.3, 1.5, shape).astype(np.float32)
    planes = x.reshape(shape[0] * shape[1], -1).astype(np.float64)
    mean = planes.mean(axis=1).astype(np.float32)
    rstd = (1 / np.sqrt(planes.var(axis=1) + 1e-5)).astype(np.float32)
    dy = rng.normal(0, 1, shape).astype(np.float32)
    gamma = rng.uniform(0.5, 1.5, shape).astype(np.float32)
    return [a.astype(dtype) for a in (x, dy, gamma, mean, rstd)]


def test_group_normalization_grad_tiling():
    _, m = _spec_and_module("group_normalization_grad")
    for device in ("atlas-a2", "ascend950"):
        ub = aj.get_device(device).ub_bytes
        for dtype, size in (("float", 4), ("half", 2)):
            cores, t = m.tiling(device, (4, 3, 100, 100), dtype)
            t = np.frombuffer(t.tobytes(), m.GroupNormalizationGradTilingData)[0]
            tile, per = int(t["tileDataNum"]), 4 * 2 * size + 9 * 4
            assert tile * size % 32 == 0 and tile * per <= ub - 32 < (tile + 32 // size) * per
            assert t["finalGroupTileNum"] == -(-10000 // tile) and t["tailDataNum"] == 10000 - (10000 // tile) * tile
            assert cores == 8 and (t["smallCoreGroupNum"], t["bigCoreGroupNum"], t["tailBlockNum"]) == (1, 2, 4)
    cores, t = m.tiling("atlas-a2", (1, 3, 7), "bfloat16")
    t = np.frombuffer(t.tobytes(), m.GroupNormalizationGradTilingData)[0]
    assert cores == 3 and (t["tileDataNum"], t["alignedTileDataNum"], t["finalGroupTileNum"]) == (7, 16, 1)
    assert t["groupElemNumReciprocal"] == np.float32(1) / np.float32(7)


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-a3", "ascend950"])
@pytest.mark.parametrize("dtype, shape", [(np.float32, (2, 3, 4000)), (np.float16, (3, 5, 77)),
                                          (BF16, (2, 2, 9001)), (np.float32, (1, 3, 9))])
def test_group_normalization_grad_is_the_numpy_model(device, dtype, shape):
    """Multi-tile planes with a tail tile (4000 / 9001 elements: two or three tiles), 15 planes over 8 cores (big
    and small), planes shorter than a DataBlock."""
    _, m = _spec_and_module("group_normalization_grad")
    args = _gng_inputs(shape, dtype, shape[-1])
    dx = m.run_group_normalization_grad(device, *args)
    assert dx.dtype == dtype and _same(dx, m.group_normalization_grad_model(*args, device=device))


def test_group_normalization_grad_devices_sum_in_different_orders():
    """The count-form ReduceSum trees of the A2 and the 950 differ past 64 elements, and so do the outputs; each
    device's output is its own model's. Against the float64 formula within float rounding."""
    _, m = _spec_and_module("group_normalization_grad")
    t2, t9 = (aj.explain_reduce_order(d, "count", "float", count=1000).postorder() for d in ("atlas-a2", "ascend950"))
    assert t2 != t9
    args = _gng_inputs((2, 4, 3000), np.float32, 11)
    a2 = m.run_group_normalization_grad("atlas-a2", *args)
    d950 = m.run_group_normalization_grad("ascend950", *args)
    assert not _same(a2, d950)
    assert _same(a2, m.group_normalization_grad_model(*args, device="atlas-a2"))
    assert _same(d950, m.group_normalization_grad_model(*args, device="ascend950"))
    x, dy, g, mean, rstd = (a.astype(np.float64) for a in args)
    xs, dys, gs = (a.reshape(8, -1) for a in (x, dy, g))
    xhat = (xs - mean[:, None]) * rstd[:, None]
    s1, s2 = (dys * gs).sum(axis=1), (dys * gs * xhat).sum(axis=1)
    want = rstd[:, None] / 3000 * gs * (3000 * dys - s1[:, None] - xhat * s2[:, None])
    assert np.allclose(a2.reshape(8, -1), want, rtol=1e-3, atol=1e-4)


def test_group_normalization_grad_original_sync_races_and_inplace_cast(monkeypatch):
    """Deviation (1): the original's GetValue after PipeBarrier<PIPE_V> only is a V -> S race (and the bfloat16
    ReadScalar's copy a V -> MTE2 one); deviation (4): its in-place bfloat16 -> float Cast is refused (D34)."""
    k, m = _spec_and_module("group_normalization_grad")
    args = _gng_inputs((1, 2, 100), np.float32, 3)
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    reports = _reports(lambda: m.run_group_normalization_grad("atlas-a2", *args))
    assert reports and all("[race]" in str(r) for r in reports)
    assert any("GetValue" in str(r) and "V_S" in str(r) for r in reports)
    monkeypatch.setattr(m, "ORIGINAL_SYNC", False)
    assert _reports(lambda: m.run_group_normalization_grad("atlas-a2", *args)) == []
    bf = _gng_inputs((1, 2, 100), BF16, 3)
    monkeypatch.setattr(m, "ORIGINAL_INPLACE_CAST", True)
    with pytest.raises(aj.OverlapError, match="Cast"):
        m.run_group_normalization_grad("atlas-a2", *bf)


def test_group_normalization_grad_default_sizes_run_clean_under_the_sanitizer():
    for name in ("group_normalization_grad", "group_normalization_grad_half", "group_normalization_grad_bf16"):
        k, _ = _spec_and_module(name)
        inputs = k.make_inputs(k.default_size, 0)
        assert _reports(lambda: k.run("atlas-a2", inputs)) == [], name
        assert _reports(lambda: k.run("ascend950", inputs), "device-sync") == [], name


# kernels/log_softmax_v2.py

def test_log_softmax_v2_lengths_and_tiling():
    _, m = _spec_and_module("log_softmax_v2")
    assert m._lengths(1000, 64, 8) == ([1000, 125, 16], 2)
    assert m._lengths(64, 64, 8) == ([64], 0) and m._lengths(8192, 64, 8) == ([8192, 1024, 128, 16], 3)
    assert m._lengths(300, 128, 16) == ([300, 19], 1) and m._lengths(2049, 128, 16) == ([2049, 129, 9], 2)
    used, t = m.tiling((3, 5, 70))
    t = np.frombuffer(t.tobytes(), m.LogSoftmaxV2TilingData)[0]
    assert used == 8 and (t["dims"], t["axis"]) == (2, 1) and list(t["shape"][:2]) == [15, 70]
    assert m.tiling((2, 100))[0] == 4                       # 2 M cores at most


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, rows, n", [
    (np.float32, 11, 1000),       # 1000 -> 125 -> 16: two BlockReduce passes, a partial last repeat
    (np.float32, 5, 64),          # WholeReduce only; 5 rows over 8 cores (three cores idle)
    (np.float32, 3, 8192),        # the longest row the 32 KB queue holds: three passes
    (np.float32, 9, 37),          # DataCopyPad out (n % 8)
    (np.float16, 70, 300),        # 27 rows a tile, one tile a core
    (np.float16, 70, 1000),       # 8 rows a tile: two tiles on some cores (the first takes the remainder)
    (np.float16, 9, 2049),        # 2049 -> 129 -> 9 half max passes; 4 rows a tile; align 2112
    (np.float16, 6, 64),          # no gap lanes
])
def test_log_softmax_v2_is_the_numpy_model(device, dtype, rows, n):
    _, m = _spec_and_module("log_softmax_v2")
    x = np.random.default_rng(n + rows).normal(0, 4, (rows, n)).astype(dtype)
    y = m.run_log_softmax_v2(device, x)
    assert y.dtype == dtype and _same(y, m.log_softmax_v2_model(x, device))


def test_log_softmax_v2_the_formula():
    _, m = _spec_and_module("log_softmax_v2")
    for dtype, n, tol in ((np.float32, 1000, 2e-5), (np.float16, 300, 2e-3)):
        x = np.random.default_rng(2).normal(0, 3, (12, n)).astype(dtype)
        xf = x.astype(np.float64)
        mx = xf.max(axis=1, keepdims=True)
        want = xf - mx - np.log(np.exp(xf - mx).sum(axis=1, keepdims=True))
        y = m.run_log_softmax_v2("atlas-a2", x).astype(np.float64)
        assert np.allclose(y, want, rtol=tol, atol=tol * 8), dtype


@pytest.mark.parametrize("dtype, big", [(np.float32, 1e30), (np.float16, 60000)])
def test_log_softmax_v2_specials(dtype, big):
    """A NaN or +inf in a row makes the row NaN (WholeReduceMax's NaN, D50; inf - inf); an all -inf row is NaN; a
    lone -inf lane gives -inf; a huge lane leaves the others at about -big; equal lanes give -ln(n)."""
    _, m = _spec_and_module("log_softmax_v2")
    x = np.random.default_rng(0).normal(0, 2, (6, 200)).astype(dtype)
    x[0, 5], x[1, 7], x[2, :], x[3, 9], x[4, 199], x[5, :] = np.nan, np.inf, -np.inf, -np.inf, big, 0
    with np.errstate(all="ignore"):
        y = m.run_log_softmax_v2("atlas-a2", x)
        assert _same(y, m.log_softmax_v2_model(x))
    assert np.isnan(y[:3]).all() and y[3, 9] == -np.inf and not np.isnan(y[3:]).any()
    assert y[4, 199] == 0 and y[5, 0] == dtype(-np.log(np.float32(200)))


def test_log_softmax_v2_the_originals_forms(monkeypatch):
    """Deviation (1): V -> S races; (2): the half tile's unwritten gap lanes (init reads, results unchanged);
    (5): WholeReduce*'s swapped (mask, repeatTime) refused (SPEC 2.5)."""
    _, m = _spec_and_module("log_softmax_v2")
    xf = np.random.default_rng(0).normal(0, 2, (4, 200)).astype(np.float32)
    xh = xf.astype(np.float16)
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    reports = _reports(lambda: m.run_log_softmax_v2("atlas-a2", xf))
    assert reports and all("[race]" in str(r) and "V_S" in str(r) for r in reports)
    monkeypatch.setattr(m, "ORIGINAL_SYNC", False)
    monkeypatch.setattr(m, "ORIGINAL_TILE_WIDE", True)
    with aj.sanitize_session("report") as session:
        y = m.run_log_softmax_v2("atlas-a2", xh)
    assert session.reports and all("[init]" in str(r) for r in session.reports)
    assert _same(y, m.log_softmax_v2_model(xh))
    monkeypatch.setattr(m, "ORIGINAL_TILE_WIDE", False)
    assert _reports(lambda: m.run_log_softmax_v2("atlas-a2", xh)) == []
    monkeypatch.setattr(m, "ORIGINAL_WHOLE_ARGS", True)
    with pytest.raises(aj.ParameterError, match="MASK_PLACEHOLDER"):
        m.run_log_softmax_v2("atlas-a2", xf)


def test_log_softmax_v2_default_sizes_run_clean_under_the_sanitizer():
    for name in ("log_softmax_v2", "log_softmax_v2_half"):
        k, _ = _spec_and_module(name)
        inputs = k.make_inputs(k.default_size, 0)
        assert _reports(lambda: k.run("atlas-a2", inputs)) == [], name
        assert _reports(lambda: k.run("atlas-a3", inputs), "device-sync") == [], name
