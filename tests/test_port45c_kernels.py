"""The session-45c ports of Ascend 950 (arch35) Reg-API kernels from ops-nn's foreach family:
kernels/foreach_lerp_scalar.py (Sub, Axpy in two forms chosen by the weight), kernels/foreach_addcmul_scalar.py
(Mul, Axpy; int32 Mul / Muls / Add) and kernels/foreach_norm.py (Abs / Mul, Add / Max lanes, Reduce SUM / MAX,
DIST_FIRST_ELEMENT_B32 / DIST_BRC_B32 slots, partials through the workspace, SyncAll, Select, Sqrt). Each against a
numpy model bit for bit (every instruction BIT-EXACT, Sqrt's rounding reproduced) and a float64 formula within the
types' rounding; the host tilings; each deviation's reason (the original's form run: refused or reported)."""

import inspect

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import module as _module
from ported import bits as _bits, same_bits as _same

BF16 = ml_dtypes.bfloat16
D950 = "ascend950"


def _covered(m, t, counts, blocks):
    """Every element of every tensor in exactly one core's range (the tiling's start / end lists)."""
    seen = [np.zeros(n, np.int32) for n in counts]
    for core in range(blocks):
        s, e = int(t["tensorStartList"][core]), int(t["tensorEndList"][core])
        for k in range(s, e + 1):
            c0 = int(t["tensorStartOffsetList"][core]) if k == s else 0
            c1 = int(np.int64(np.uint64(t["tensorEndOffsetList"][core]))) if k == e else counts[k] - 1
            seen[k][c0:c1 + 1] += 1
    return all((v == 1).all() for v in seen)


# kernels/foreach_lerp_scalar.py

LERP = "foreach_lerp_scalar"


def test_lerp_tiling_blocks_ranges_and_chunks():
    """DoOpTiling: cores min(8, ceil(total / 1024 floats)); AssignDataToEachCore covers every element once, ranges
    starting and ending inside tensors; inputsTensorUbSize UB / 24 floored to 32 bytes in the original (10576
    floats), to 256 in the port (10560)."""
    m = _module(LERP)
    ub = aj.get_device(D950).ub_bytes
    counts = [41000, 10, 30000, 28990, 1]
    blocks, key, raw = m.tiling(D950, counts, "float")
    t = raw.view(m.ForeachSoloTilingDataRegbase)[0]
    assert (blocks, key) == (8, m.FOREACH_TILING_KEY_FLOAT) and _covered(m, t, counts, blocks)
    assert t["inputsTensorUbSize"] == ub // 24 // 64 * 64 == 10560
    original = m.tiling(D950, counts, "float", align=32)[2].view(m.ForeachSoloTilingDataRegbase)[0]
    assert original["inputsTensorUbSize"] == ub // 24 * 4 // 32 * 32 // 4 == 10576
    # 100001 floats = 98 blocks of 1024: the first two cores take 13 blocks, the rest 12
    blocks, _, raw = m.tiling(D950, [100001], "float")
    t = raw.view(m.ForeachSoloTilingDataRegbase)[0]
    assert list(t["tensorEndOffsetList"][:3]) == [13 * 1024 - 1, 26 * 1024 - 1, 38 * 1024 - 1]
    assert t["tensorEndOffsetList"][7] == 100000
    blocks, key, raw = m.tiling(D950, [5, 3], "half")
    assert (blocks, key) == (1, m.FOREACH_TILING_KEY_HALF)
    assert raw.view(m.ForeachSoloTilingDataRegbase)[0]["inputsTensorUbSize"] == ub // 12 * 2 // 256 * 256 // 2
    with pytest.raises(ValueError):
        m.tiling(D950, [1] * 257, "float")


@pytest.mark.parametrize("dtype, weight", [(np.float32, 0.3), (np.float32, 0.5), (np.float16, -0.5),
                                           (np.float16, 0.49), (BF16, 1.7), (BF16, -0.25)])
def test_lerp_is_the_numpy_model_bit_for_bit(dtype, weight):
    """Both branches (|w| < 0.5: x1 + w * d; else x2 + (w - 1) * d; 0.5 and -0.5 take the second), a tensor of
    several chunks a core (100003 floats), tensors shorter than a DataBlock and a vector, one element."""
    m = _module(LERP)
    rng = np.random.default_rng(int(abs(weight) * 100))
    counts = [100003, 1, 15, 70, 1000] if dtype == np.float32 else [30001, 1, 15, 70, 1000]
    x1 = [(rng.standard_normal(n) * 10).astype(dtype) for n in counts]
    x2 = [(rng.standard_normal(n) * 10).astype(dtype) for n in counts]
    out = m.run_lerp(D950, x1, x2, weight)
    for a, b, y in zip(x1, x2, out):
        assert _same(y, m.lerp_model(a, b, weight)), (dtype, weight, a.size)


def test_lerp_forms_are_exact_at_their_ends_and_one_rounding():
    """The two forms are PyTorch's: weight 0 returns x1 and weight 1 returns x2 bit for bit; against float64
    x1 + w (x2 - x1) within the difference's and the fused step's rounding; Axpy is fused (an unfused
    multiply-then-add differs on some elements, the fused model on none)."""
    m = _module(LERP)
    rng = np.random.default_rng(3)
    x1 = [rng.standard_normal(5000).astype(np.float32)]
    x2 = [rng.standard_normal(5000).astype(np.float32)]
    assert _bits(m.run_lerp(D950, x1, x2, 0.0)[0]).tolist() == _bits(x1[0]).tolist()
    assert _bits(m.run_lerp(D950, x1, x2, 1.0)[0]).tolist() == _bits(x2[0]).tolist()
    w = np.float32(0.3)
    y = m.run_lerp(D950, x1, x2, w)[0]
    a, b = x1[0].astype(np.float64), x2[0].astype(np.float64)
    assert np.allclose(y, a + np.float64(w) * (b - a), rtol=0, atol=4 * 2 ** -24 * (np.abs(a) + np.abs(b)).max())
    d = (x2[0] - x1[0]).astype(np.float32)
    unfused = (x1[0] + (w * d).astype(np.float32)).astype(np.float32)
    assert (_bits(unfused) != _bits(y)).any() and _same(y, m.lerp_model(x1[0], x2[0], w))


def test_lerp_specials():
    """inf and NaN lanes: inf - inf = NaN, x + w * inf = inf; the model's IEEE float chain."""
    m = _module(LERP)
    x1 = [np.array([np.inf, 1.0, np.nan, -np.inf, 3e38, -0.0] * 12, np.float32)]
    x2 = [np.array([np.inf, np.inf, 2.0, 1.0, -3e38, -0.0] * 12, np.float32)]
    for w in (0.25, 0.75):
        y = m.run_lerp(D950, x1, x2, w)[0]
        assert _same(y, m.lerp_model(x1[0], x2[0], w)) and np.isnan(y[0]) and np.isnan(y[2])


def test_lerp_runs_clean_under_the_sanitizer_and_the_deviations_reasons(monkeypatch):
    """The port (default inputs of every gallery entry) reports nothing. Without the port's zeroing of a short
    chunk's last vector the VF's whole-vector loads read never-written queue bytes, which the sanitizer reported
    before session 54; now the lanes carry the init check and those lanes never reach a store: nothing reported,
    the results the same. With the original's 32-byte floor of inputsTensorUbSize a full chunk's last vector reads
    past its buffer, which a default core refuses, naming the bounds="ub" rule."""
    m = _module(LERP)
    rng = np.random.default_rng(5)
    x1 = [rng.standard_normal(n).astype(np.float32) for n in (100, 3)]
    x2 = [rng.standard_normal(n).astype(np.float32) for n in (100, 3)]
    with aj.sanitize_session("report") as session:
        for name in (LERP, LERP + "_half", LERP + "_bf16"):
            spec = aj.kernels.registry()[name]
            inputs = spec.make_inputs(3000, 1)
            outs, want = spec.run(D950, inputs), spec.expected(D950, inputs)
            assert all(_same(outs[k], want[k]) for k in want)
    assert session.reports == []
    monkeypatch.setattr(m, "ZERO_TAIL", False)
    with aj.sanitize_session("report") as session:
        y = m.run_lerp(D950, x1, x2, 0.3)
    assert all(_same(a, m.lerp_model(b, c, 0.3)) for a, b, c in zip(y, x1, x2))
    assert session.reports == []
    monkeypatch.setattr(m, "UB_ALIGN", 32)
    big = [rng.standard_normal(100000).astype(np.float32)]
    with pytest.raises(aj.OutOfBoundsError, match='bounds="ub"'):
        m.run_lerp(D950, big, big, 0.3)


# kernels/foreach_addcmul_scalar.py

ADDC = "foreach_addcmul_scalar"


def test_addcmul_tiling():
    """Three inputs: inputsTensorUbSize = UB / 32 floats (7936, already whole vectors), halves UB / 16 floored to
    256 bytes in the port; the int32 key 10003."""
    m = _module(ADDC)
    ub = aj.get_device(D950).ub_bytes
    blocks, key, raw = m.tiling(D950, [5000, 7, 300000], "int32")
    t = raw.view(m.ForeachSoloTilingDataRegbase)[0]
    assert (blocks, key) == (8, m.FOREACH_TILING_KEY_INT) and _covered(m, t, [5000, 7, 300000], blocks)
    assert t["inputsTensorUbSize"] == ub // 32 == 7936
    t = m.tiling(D950, [5], "half")[2].view(m.ForeachSoloTilingDataRegbase)[0]
    assert t["inputsTensorUbSize"] == ub // 16 * 2 // 256 * 256 // 2


@pytest.mark.parametrize("dtype, scalar", [(np.float32, np.float32(0.5)), (np.float16, np.float16(-1.25)),
                                           (np.float16, np.float32(0.1)), (BF16, np.float32(3.0)),
                                           (np.int32, np.int32(7))])
def test_addcmul_is_the_numpy_model_bit_for_bit(dtype, scalar):
    """Every dtype the original builds (half with a half or a float value: DTYPE_SCALAR), several chunks a core
    (int32 / float 70001), short tensors, one element."""
    m = _module(ADDC)
    rng = np.random.default_rng(11)
    counts = [70001, 1, 9, 130, 2000]
    if dtype == np.int32:
        lists = [[rng.integers(-3000, 3000, n).astype(np.int32) for n in counts] for _ in range(3)]
    else:
        lists = [[(rng.standard_normal(n) * 4).astype(dtype) for n in counts] for _ in range(3)]
    out = m.run_addcmul(D950, *lists, np.array([scalar]))
    for k, y in enumerate(out):
        want = m.addcmul_model(lists[0][k], lists[1][k], lists[2][k], scalar)
        assert y.dtype == dtype and _same(y, want), (dtype, counts[k])


def test_addcmul_int32_wraps_and_float_is_fused():
    """int32: products and sums wrap (CTRL[53] 0 at kernel entry, SPEC-2 D35 / SPEC 5: truncation); float: the Axpy
    rounds value * p + x once (differs from an unfused chain on some elements, never from the fused model); against
    float64 x + v t1 t2 within two float roundings."""
    m = _module(ADDC)
    x = [np.array([2 ** 30, -2 ** 30, 5, 2 ** 31 - 1] * 20, np.int32)]
    a = [np.array([2, 3, 1, 1] * 20, np.int32)]
    b = [np.array([1, 1, 2 ** 31 - 1, 1] * 20, np.int32)]
    y = m.run_addcmul(D950, x, a, b, np.array([np.int32(1)]))[0]
    assert y[:4].tolist() == [2 ** 30 + 2, -2 ** 30 + 3, -2 ** 31 + 4, -2 ** 31]
    rng = np.random.default_rng(2)
    xs = [rng.standard_normal(4000).astype(np.float32) for _ in range(3)]
    v = np.float32(0.7)
    y = m.run_addcmul(D950, [xs[0]], [xs[1]], [xs[2]], np.array([v]))[0]
    p = (xs[1] * xs[2]).astype(np.float32)
    unfused = (xs[0] + (v * p).astype(np.float32)).astype(np.float32)
    assert (_bits(unfused) != _bits(y)).any() and _same(y, m.addcmul_model(xs[0], xs[1], xs[2], v))
    exact = xs[0].astype(np.float64) + np.float64(v) * xs[1].astype(np.float64) * xs[2].astype(np.float64)
    scale = np.abs(xs[0]) + np.abs(v * xs[1] * xs[2])
    assert (np.abs(y - exact) <= 2 ** -23 * scale + 1e-45).all()


def test_addcmul_runs_clean_under_the_sanitizer():
    with aj.sanitize_session("report") as session:
        for name in (ADDC, ADDC + "_half", ADDC + "_bf16", ADDC + "_int32"):
            spec = aj.kernels.registry()[name]
            inputs = spec.make_inputs(2000, 3)
            outs, want = spec.run(D950, inputs), spec.expected(D950, inputs)
            assert all(_same(outs[k], want[k]) for k in want), name
    assert session.reports == []


# kernels/foreach_norm.py

NORM = "foreach_norm"


def test_norm_tiling_partials():
    """AssignTensorMiddleCountList: a tensor's partial count is the number of cores whose range touches it, the
    partials of consecutive cores sit together (coreMiddleOffset), and each tensor's run starts where the cores put
    it; maxTensorNumPerCore rounded up to 8 floats; inputsTensorUbSize (UB - its bytes) / 2 floored."""
    m = _module(NORM)
    ub = aj.get_device(D950).ub_bytes
    counts = [41000, 10, 30000, 0, 28990, 1, 7]
    blocks, key, raw, ws = m.tiling(D950, counts, "float")
    t = raw.view(m.ForeachReduceTilingDataRegbase)[0]
    assert (blocks, key, t["needCoreNum"], t["totalTensorCount"]) == (8, m.FOREACH_TILING_KEY_FLOAT, 8, 7)
    assert ws == 16 * 1024 * 1024 + (80 + 256) * 4 and _covered(m, t, counts, blocks)
    slots = {}
    for core in range(blocks):
        s, e = int(t["tensorStartList"][core]), int(t["tensorEndList"][core])
        for j, k in enumerate(range(s, e + 1)):
            slots.setdefault(k, []).append(int(t["coreMiddleOffsetList"][core]) + j)
    for k, where in slots.items():
        assert t["tensorMiddleCountList"][k] == len(where)
        start = int(t["tensorMiddleStartList"][k])
        assert where == list(range(start, start + len(where)))
    most = max(len(range(int(t["tensorStartList"][c]), int(t["tensorEndList"][c]) + 1)) for c in range(blocks))
    assert t["maxTensorNumPerCore"] == -(-most // 8) * 8
    slot_bytes = int(t["maxTensorNumPerCore"]) * 4
    assert t["inputsTensorUbSize"] == (ub - slot_bytes) // 2 // 256 * 256 // 4
    original = m.tiling(D950, counts, "float", align=32)[2].view(m.ForeachReduceTilingDataRegbase)[0]
    assert original["inputsTensorUbSize"] == (ub - slot_bytes) // 2 // 32 * 32 // 4


@pytest.mark.parametrize("dtype, p", [(np.float32, 2.0), (np.float32, 1.0), (np.float32, np.inf), (np.float16, 2.0),
                                      (np.float16, np.inf), (BF16, 1.0), (BF16, 2.0)])
def test_norm_is_the_numpy_model_bit_for_bit(dtype, p):
    """Each norm and dtype over a list with a tensor of several chunks on one core (float: 400000 over 8 cores =
    50000 a core, chunks of 31680: the BRC-load + Add / Max slot path), tensors split between cores (partials
    Selected, added, pair-tree reduced), short tensors and one element (ReduceComputeImpl<false>)."""
    m = _module(NORM)
    rng = np.random.default_rng(int(p if np.isfinite(p) else 9) + 1)
    counts = [400000, 1, 33, 65, 7000] if dtype == np.float32 else [90001, 1, 33, 65, 7000]
    xs = [(rng.standard_normal(n) * 3).astype(dtype) for n in counts]
    out = m.run_norm(D950, xs, p)
    want = m.norm_model(xs, p)
    for k, (y, w) in enumerate(zip(out, want)):
        assert y.dtype == dtype and y.shape == (1,) and _same(y, w), (dtype, p, counts[k], y, w)


def test_norm_against_the_formula_many_tensors_and_p_quirks():
    """Against float64 norms within float accumulation error; 20 tensors over 8 cores (stage 2 round robin, core 0
    takes tensors 0, 8, 16); p = 1.5 truncates to the 1-norm and 3 gives the 2-norm (the original's (int)p); an
    int64 p = 1 the 1-norm."""
    m = _module(NORM)
    rng = np.random.default_rng(4)
    xs = [rng.standard_normal(n).astype(np.float32) for n in rng.integers(1, 9000, 20)]
    x64 = [a.astype(np.float64) for a in xs]
    l2 = m.run_norm(D950, xs, 2.0)
    l1 = m.run_norm(D950, xs, 1.5)
    inf = m.run_norm(D950, xs, np.inf)
    assert all(_same(a, b) for a, b in zip(l1, m.run_norm(D950, xs, np.int64(1))))
    assert all(_same(a, b) for a, b in zip(l2, m.run_norm(D950, xs, 3.0)))
    for k, a in enumerate(x64):
        assert abs(l2[k][0] - np.sqrt((a * a).sum())) <= 1e-5 * np.sqrt((a * a).sum())
        assert abs(l1[k][0] - np.abs(a).sum()) <= 1e-5 * np.abs(a).sum()
        assert inf[k][0] == np.float32(np.abs(a).max())
    assert all(_same(a, b) for a, b in zip(l1, m.norm_model(xs, 1.0)))


def test_norm_empty_tensors_output_zero_and_their_slot_is_never_written():
    """An empty tensor's norm is 0 (OutputZero's Duplicate + DataCopyPad). Its stage-1 slot is never computed, yet
    the core's DataCopyPad of its slots copies it to the workspace: the sanitizer reports that uninitialised UB read
    (the original's; stage 2 never reads that partial, so no output depends on it). The default lists have no empty
    tensor and report nothing."""
    m = _module(NORM)
    rng = np.random.default_rng(6)
    xs = [rng.standard_normal(n).astype(np.float32) for n in (300, 0, 5000, 0)]
    with aj.sanitize_session("report") as session:
        out = m.run_norm(D950, xs, 2.0)
    assert all(_same(a, b) for a, b in zip(out, m.norm_model(xs, 2.0)))
    assert out[1][0] == 0 and out[3][0] == 0
    # only empty tensors: a 0-byte output buffer (taken, as the device build takes it), which the copy-out reads
    with pytest.raises(aj.OutOfBoundsError, match="DataCopyPad"):
        m.run_norm(D950, [np.zeros(0, np.float16)] * 3, 2.0)
    assert {r.check for r in session.reports} == {"init"}
    lines, first = inspect.getsourcelines(m.ForeachNormNDRegbase.Process)
    at = next(i for i, s in enumerate(lines) if "aj.DataCopyPad(self.workTensorGM_" in s)
    copy = f"foreach_norm.py:{first + at}"
    assert {r.instruction.where for r in session.reports} == {copy}
    with aj.sanitize_session("report") as session:
        for name in (NORM, NORM + "_half_l1", NORM + "_bf16_inf"):
            spec = aj.kernels.registry()[name]
            inputs = spec.make_inputs(5000, 2)
            outs, want = spec.run(D950, inputs), spec.expected(D950, inputs)
            assert all(_same(outs[k], want[k]) for k in want), name
    assert session.reports == []


def test_norm_deviations_reasons(monkeypatch):
    """The original's output buffer (maxTensorNumPerCore floats: 32 bytes here) takes stage 2's whole-vector store:
    a default core refuses it (bounds="ub" named), and under bounds="ub" the sanitizer reports the store alone, once
    per stage-2 tensor, with the same outputs. Without the port's zeroing, stage 2's partials load (and stage 1's
    short chunks) read never-written bytes, "init" reports at the load before session 54; now the lanes carry the
    init check and nothing is reported: stage 1's ZEROING Abs / Mul and stage 2's Select drop those lanes."""
    m = _module(NORM)
    rng = np.random.default_rng(8)
    xs = [rng.standard_normal(n).astype(np.float32) for n in (300, 17, 5000)]
    port = m.run_norm(D950, xs, 2.0)
    monkeypatch.setattr(m, "ROUND_OUT_BUFFER", False)
    with pytest.raises(aj.OutOfBoundsError, match='bounds="ub"'):
        m.run_norm(D950, xs, 2.0)
    with aj.sanitize_session("report") as session:
        original = m.run_norm(D950, xs, 2.0, bounds="ub")
    assert all(a.tobytes() == b.tobytes() for a, b in zip(port, original))
    lines, first = inspect.getsourcelines(m.store_one_tensor_for_dtype_t)
    store = f"foreach_norm.py:{first + next(i for i, s in enumerate(lines) if 'R.DataCopy(output' in s)}"
    assert {r.check for r in session.reports} == {"memory"} and len(session.reports) == 3
    assert {r.instruction.where for r in session.reports} == {store}
    monkeypatch.setattr(m, "ROUND_OUT_BUFFER", True)
    monkeypatch.setattr(m, "ZERO_TAIL", False)
    with aj.sanitize_session("report") as session:
        again = m.run_norm(D950, xs, 2.0)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(port, again))
    assert session.reports == []


@pytest.mark.parametrize("p", [1.0, 2.0, np.inf])
def test_norm_nan_and_inf_inputs(p):
    """A NaN makes every norm NaN (Max of a NaN is NaN, SPEC-2 D41), an inf of either sign makes it +inf; the other
    tensors are untouched (the model agrees bit for bit)."""
    m = _module(NORM)
    rng = np.random.default_rng(12)
    for bad in (np.nan, np.inf, -np.inf):
        xs = [rng.standard_normal(n).astype(np.float32) for n in (300, 17, 5000)]
        xs[0][100] = bad
        xs[2][4000] = bad
        out = m.run_norm(D950, xs, p)
        assert all(_same(a, b) for a, b in zip(out, m.norm_model(xs, p)))
        assert (np.isnan(out[0][0]) if np.isnan(bad) else out[0][0] == np.inf) and np.isfinite(out[1][0])
