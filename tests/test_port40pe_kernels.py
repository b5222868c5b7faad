"""Session 40pe's port probe of three 950 (arch35) Reg API kernels: kernels/softmax_v2.py (ops-nn SoftmaxV2, the AR
full-load template), kernels/in_infer_v2.py (ops-nn INInferV2) and kernels/triu.py (ops-math Triu / Tril: the tiny,
medium and all-zero / all-input templates). Each against an expectation written here with numpy alone (not the
kernel's own `expected`): the softmax and instance-norm float32 sequences replayed step by step (Exp, Sqrt and Div
are MODELLED as the exact result rounded once with subnormals flushed, so the replay is bit for bit over inputs
without subnormals), numpy's triu / tril bit for bit. Compiled (the suite makes UncompiledVFWarning an error) and
under the sanitizer (which runs the VFs uncompiled: the same bits, no reports); the originals' sequences behind the
ports' flags, and the gaps the ports worked around, pinned as what ascend_jit does today."""
import warnings

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import module as _module

R = aj.Reg
D950 = "ascend950"
NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


def _sanitized(run):
    """(result, reports) of run() under a reporting sanitizer session."""
    with aj.sanitize_session("report") as session:
        out = run()
    return out, list(session.reports)


@pytest.fixture
def flags(monkeypatch):
    """Set a module flag for one test."""
    return lambda m, name, value: monkeypatch.setattr(m, name, value)


# ---- softmax_v2: y = exp(x - max) / sum(exp(x - max)) per row

def _tree(v):
    """Reg Reduce SUM of float32 lanes: adjacent pairs, one RNE an add."""
    v = np.asarray(v, np.float32)
    while v.shape[-1] > 1:
        v = (v[..., ::2] + v[..., 1::2]).astype(np.float32)
    return v[..., 0]


def _softmax_want(x, y_dtype):
    """The kernel's float32 sequence: max, exp(x - max) (float64 exp rounded to float32), partial sums of vector j
    and j + fold (fold the largest power of two below the vector count) reduced by the pair tree, their sum by the
    tree (two 64-lane halves added first when fold is 128), one RNE division, RNE to y's type."""
    xf = x.astype(np.float32)
    rows, r = xf.shape
    e = np.exp((xf - xf.max(axis=1, keepdims=True)).astype(np.float32).astype(np.float64)).astype(np.float32)
    nv = -(-r // 64)
    vec = np.zeros((rows, nv * 64), np.float32)
    vec[:, :r] = e
    vec = vec.reshape(rows, nv, 64)
    if nv == 1:
        s = _tree(vec[:, 0])
    elif nv == 2:
        s = _tree(vec[:, 0] + vec[:, 1])
    else:
        fold = 1 << ((nv - 1).bit_length() - 1)
        parts = np.stack([_tree(vec[:, j] + vec[:, j + fold]) if j + fold < nv else _tree(vec[:, j])
                          for j in range(fold)], axis=1)
        lanes = np.zeros((rows, max(64, fold)), np.float32)
        lanes[:, :fold] = parts
        s = _tree(lanes[:, :64] + lanes[:, 64:]) if fold == 128 else _tree(lanes)
    return (e / s[:, None]).astype(np.float32).astype(NP[y_dtype])


@pytest.mark.parametrize("x_dtype, y_dtype, rows, r", [
    ("float", "float", 19, 17), ("float", "float", 9, 64), ("float", "float", 9, 65), ("float", "float", 9, 128),
    ("float", "float", 9, 129), ("float", "float", 9, 200), ("float", "float", 5, 1000), ("float", "float", 3, 8193),
    ("half", "half", 41, 100), ("bfloat16", "bfloat16", 13, 37), ("half", "float", 3, 9000),
    ("half", "half", 2, 16384), ("float", "float", 40, 16)])
def test_softmax_v2_bit_exact_compiled_and_sanitized(x_dtype, y_dtype, rows, r):
    m = _module("softmax_v2")
    x = np.random.default_rng(r).uniform(-5, 5, (rows, r)).astype(NP[x_dtype])
    x[0, :3] = [4.0, -5.0, 0.0]
    want = _softmax_want(x, y_dtype)
    assert _bits(m.run_softmax_v2(D950, {"x": x}, y_dtype)["y"]) == _bits(want)
    if rows * r <= 30000:
        got, reports = _sanitized(lambda: m.run_softmax_v2(D950, {"x": x}, y_dtype)["y"])
        assert _bits(got) == _bits(want) and not reports, aj.format_reports(reports)


def test_softmax_v2_within_float_rounding_of_float64():
    m = _module("softmax_v2")
    x = np.random.default_rng(1).uniform(-5, 5, (16, 3000)).astype(np.float32)
    y = m.run_softmax_v2(D950, {"x": x})["y"].astype(np.float64)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    assert np.max(np.abs(y - want) / want) < 2e-6


def test_softmax_v2_tiling_picks_and_refuses_templates():
    m = _module("softmax_v2")
    assert [m.find_nearest_power2(v) for v in (1, 2, 3, 4, 5, 8, 9, 129, 256)] == [0, 1, 2, 2, 4, 4, 8, 128, 128]
    key, cores, raw = m.tiling(D950, 101, 1000, "float", "float")
    t = raw.view(m.SoftmaxV2ARTilingData)[0]
    assert (key, cores, t["rAligned"], t["ubFactor"], t["aBlockFactor"], t["rLoopCount"], t["binaryTmpSize"]) == \
        (1000, 8, 1000, 12, 13, 16, 12 * 8 * 4)
    assert m.tiling(D950, 40, 16, "float", "float")[0] == 1000             # r <= 16 inside [5, 160] x cores: AR
    for a, r, x_dtype, y_dtype in ((3, 1, "float", "float"), (7, 16, "float", "float"),
                                   (2, 16385, "half", "half"), (2, 16384, "float", "float")):
        with pytest.raises(aj.ParameterError, match="not ported"):
            m.tiling(D950, a, r, x_dtype, y_dtype)


def test_softmax_v2_original_whole_vector_loads_read_past_the_buffers(flags):
    """Without the port's slack and zeroing (bounds="ub", the original's buffer sizes): the same bits, and no report
    (before session 66 the loads past the x buffer / TBuf were memory reports, and before session 54 their
    uninitialised bytes init reports: the lanes now carry both checks, and those lanes never reach a store)."""
    m = _module("softmax_v2")
    flags(m, "ORIGINAL_WHOLE_VECTOR_LOADS", True)
    x = np.random.default_rng(2).uniform(-5, 5, (7, 100)).astype(np.float32)
    got, reports = _sanitized(lambda: m.run_softmax_v2(D950, {"x": x})["y"])
    assert _bits(got) == _bits(_softmax_want(x, "float"))
    assert reports == []
    with pytest.raises(aj.OutOfBoundsError):                               # a default core refuses them
        aj.launch(m.softmax_v2, 7, D950, x.reshape(-1), np.zeros(700, np.float32), np.zeros(32, np.uint8),
                  m.tiling(D950, 7, 100, "float", "float")[2], 1000, "float", "float")


def test_softmax_v2_view_at_the_tensor_end_is_refused_as_the_devkit_asserts():
    """ProcessUB's tmpLocalTensor[ubFactor * rAligned] when the TBuf ends there (r <= 128, no partial sums): the
    devkit's LocalTensor::operator[] asserts dataLen > offset * sizeof(T) (a debug build's check); ascend_jit refuses
    the view (the port makes none, docstring)."""
    core = aj.Core(D950)
    with core:
        t = core.local_tensor("float", 64)
        assert t[63].GetSize() == 1
        with pytest.raises(aj.OutOfBoundsError, match=r"LocalTensor\[\].*legal: \[0, 64\)"):
            t[64]


# ---- in_infer_v2: (x - mean) * gamma / sqrt(var + eps) + beta, or (x - mean) / sqrt(var + eps)

def _in_infer_want(x, mean, var, gamma=None, beta=None, eps=1e-5):
    planes = mean.size
    xf = x.reshape(planes, -1).astype(np.float32)
    sq = np.sqrt((var + np.float32(eps)).astype(np.float32)).astype(np.float32)
    d = (xf - mean[:, None]).astype(np.float32)
    if gamma is None:
        y = (d / sq[:, None]).astype(np.float32)
    else:
        y = ((d * (gamma / sq).astype(np.float32)[:, None]).astype(np.float32) + beta[:, None]).astype(np.float32)
    return y.astype(x.dtype).reshape(x.shape)


def _in_infer_inputs(shape, dtype, gb, seed=0):
    rng = np.random.default_rng(seed)
    planes = shape[0] * shape[1]
    out = {"x": rng.uniform(-3, 5, shape).astype(NP[dtype]), "mean": rng.uniform(-1, 2, planes).astype(np.float32),
           "variance": rng.uniform(0.01, 4, planes).astype(np.float32)}
    if gb:
        out["gamma"] = rng.uniform(0.5, 2, planes).astype(np.float32)
        out["beta"] = rng.uniform(-1, 1, planes).astype(np.float32)
    return out


@pytest.mark.parametrize("shape, dtype, gb", [((1, 2, 1000), "float", True), ((1, 2, 1000), "half", False),
                                              ((3, 5), "float", True), ((4, 150, 7), "float", True),
                                              ((2, 70, 3, 33), "half", False), ((1, 1, 100003), "float", False),
                                              ((1, 3, 40000), "half", True)])
def test_in_infer_v2_bit_exact_compiled_and_sanitized(shape, dtype, gb):
    m = _module("in_infer_v2")
    inputs = _in_infer_inputs(shape, dtype, gb)
    want = _in_infer_want(inputs["x"], inputs["mean"], inputs["variance"], inputs.get("gamma"), inputs.get("beta"))
    out = m.run_in_infer_v2(D950, inputs)
    assert _bits(out["y"]) == _bits(want)
    assert _bits(out["batch_mean"]) == _bits(inputs["mean"]) and _bits(out["batch_variance"]) == \
        _bits(inputs["variance"])
    if inputs["x"].size <= 30000:
        got, reports = _sanitized(lambda: m.run_in_infer_v2(D950, inputs, batch_outputs=False)["y"])
        assert _bits(got) == _bits(want) and not reports, aj.format_reports(reports)


def test_in_infer_v2_tiling_splits_planes_and_r():
    m = _module("in_infer_v2")
    view = lambda raw: raw.view(m.INInferV2TilingData)[0]
    cores, raw = m.tiling(D950, (1, 2, 30011), "float")
    t = view(raw)
    assert (cores, t["unitCores"], t["innerCores"], t["innerPerCore"], t["ubTileSize"]) == (8, 2, 4, 7503, 15104)
    cores, raw = m.tiling(D950, (4, 150, 7), "half", 1e-3, False)
    t = view(raw)
    assert (cores, t["innerCores"], t["formerCoreNum"], t["formerUnits"], t["latterUnits"], t["ubTileSize"],
            t["hasGammaBeta"]) == (8, 1, 0, 75, 75, 30208, 0)
    assert np.float32(t["epsilon"]) == np.float32(1e-3)


def test_in_infer_v2_original_whole_vector_loads_run_clean_through_the_lanes(flags):
    """Session 54: the lanes carry the init check; the original's tail lanes (init reports before) stay outside
    the VFs' UpdateMasks and never reach a store."""
    m = _module("in_infer_v2")
    flags(m, "ORIGINAL_UNINIT_LOADS", True)
    inputs = _in_infer_inputs((4, 150, 7), "float", True)
    got, reports = _sanitized(lambda: m.run_in_infer_v2(D950, inputs)["y"])
    assert _bits(got) == _bits(_in_infer_want(inputs["x"], inputs["mean"], inputs["variance"], inputs["gamma"],
                                              inputs["beta"]))
    assert reports == []


@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_vf_given_none_for_an_unused_tensor_runs_as_plain_python():
    """Gap: INInferV2 passes null gamma / beta pointers to its VFs without gamma / beta (the branches reading them
    are compiled out, `if constexpr`). A VF given None for a tensor argument it never reads at run time does not
    compile: numba types the dead `if flag:` branch (LoadAlign(RegTensor, none)); the call runs as plain Python with
    an UncompiledVFWarning (same bits). The port passes another tensor instead."""
    def vf(dst, src, unused, flag):
        r = R.RegTensor("float")
        R.LoadAlign(r, src)
        if flag:
            R.LoadAlign(r, unused)
        R.StoreAlign(dst, r, R.CreateMask("float"))
    VF = R.simd_vf(vf)
    core = aj.Core(D950)
    with core:
        src, dst = core.local_tensor("float", 64), core.local_tensor("float", 64)
        src[:] = np.arange(64, dtype=np.float32)
        with warnings.catch_warnings():
            warnings.simplefilter("error", aj.UncompiledVFWarning)
            VF(dst, src, src, False)
            assert dst.numpy().tolist() == list(range(64))
        with pytest.warns(aj.UncompiledVFWarning, match=r"LoadAlign\(RegTensor\(kind=1\), none\)"):
            VF(dst, src, None, False)
        assert dst.numpy().tolist() == list(range(64))


# ---- triu / tril

def _triu_run(m, x, k, upper):
    return m.run_triangulator(D950, {"x": x}, k, upper)["y"]


@pytest.mark.parametrize("shape, dtype", [((30, 8, 8), np.float32), ((40, 5, 5), np.float32), ((30, 11, 11),
                                          np.float16), ((30, 16, 16), np.int8), ((40, 3, 5), np.int8),
                                          ((30, 5, 6), np.int64), ((5, 40, 70), np.float32),
                                          ((5, 100, 30), np.float16), ((3, 2, 40, 300), np.int8),
                                          ((5, 9, 5), np.int16), ((300, 9, 5), np.uint16)])
@pytest.mark.parametrize("k", [-3, 0, 2, 6])
@pytest.mark.parametrize("upper", [True, False])
def test_triu_tril_bit_exact(shape, dtype, k, upper):
    m = _module("triu")
    x = np.random.default_rng(k + 10).integers(-100, 100, shape).astype(dtype)
    want = (np.triu if upper else np.tril)(x, k)
    assert _bits(_triu_run(m, x, k, upper)) == _bits(want)


@pytest.mark.parametrize("shape, dtype, k, upper, key", [((3, 2, 8, 8), np.float32, 0, True, 34),
                                                          ((40, 5, 5), np.float32, 1, True, 34),
                                                          ((30, 11, 11), np.float16, -1, False, 32),
                                                          ((30, 5, 6), np.int64, -1, True, 38),
                                                          ((40, 3, 5), np.int8, 1, False, 31),
                                                          ((5, 40, 70), np.float32, 3, True, 44),
                                                          ((5, 100, 30), np.float16, -5, False, 42),
                                                          ((5, 9, 5), np.float32, 5, True, 4),
                                                          ((300, 9, 5), np.int16, 4, False, 12)])
def test_triu_tril_templates_sanitized(shape, dtype, k, upper, key):
    m = _module("triu")
    assert m.tiling(D950, shape, np.dtype(dtype).itemsize, k, upper)[0] == key
    x = np.random.default_rng(5).integers(-100, 100, shape).astype(dtype)
    got, reports = _sanitized(lambda: _triu_run(m, x, k, upper))
    assert _bits(got) == _bits((np.triu if upper else np.tril)(x, k)) and not reports, aj.format_reports(reports)


def test_triu_tiny_mask_and_group_tiling():
    m = _module("triu")
    key, cores, raw = m.tiling(D950, (5003, 8, 8), 4, 0, True)
    t = raw.view(m.TriangulatorTinyTilingData)[0]
    assert (key, cores, t["planeArea"], t["highInner"], t["highOuter"], t["highTail"], t["normalCoreProcessNum"],
            t["tailCoreProcessNum"]) == (34, 8, 64, 239, 21, 223, 2, 5)
    keep = np.triu(np.ones((8, 8), bool)).reshape(-1)
    assert int(t["highMask"][0]) == sum(1 << i for i in range(64) if keep[i])
    with pytest.raises(aj.ParameterError, match="normal template"):
        m.tiling(D950, (2, 150, 300), 2, 100, False)


def test_triu_original_mask_setvalues_race_the_vf_load(flags):
    """The tiny template's Init SetValues the keep mask (PIPE_S) and the first VF loads it into a MaskReg (PIPE_V)
    with no flag between them: the sanitizer reports the read-after-write race; the bits agree (serial emulation)."""
    m = _module("triu")
    flags(m, "ORIGINAL_SETVALUE_RACE", True)
    x = np.arange(3 * 64, dtype=np.float32).reshape(3, 8, 8)
    got, reports = _sanitized(lambda: _triu_run(m, x, 0, True))
    assert _bits(got) == _bits(np.triu(x))
    assert reports and all(r.check == "race" and r.kind == "RAW" and "S_V" in str(r) for r in reports)


def test_triu_original_whole_vector_loads_run_clean_through_the_lanes(flags):
    """70-float rows are padded to 128 in the UB and the row's last chunk is stored under the full row mask, so the
    lanes past the copy's 72 floats are stored into the output buffer's padding, which the copy-out skips: those
    bytes stay uninitialised and nothing reads them (session 54: 200 init reports of 224 bytes each before)."""
    m = _module("triu")
    flags(m, "ORIGINAL_UNINIT_LOADS", True)
    x = np.random.default_rng(3).integers(-9, 9, (5, 40, 70)).astype(np.float32)
    got, reports = _sanitized(lambda: _triu_run(m, x, 3, True))
    assert _bits(got) == _bits(np.triu(x, 3))
    assert reports == []


def _lanes_vf(expr):
    """A VF storing GetVecLen() // (expr) lanes of its source, T its dtype name (defined in this file: cacheable)."""
    def vf_np(dst, src, T):
        n = R.GetVecLen() // np.dtype(T).itemsize
        r = R.RegTensor(T)
        R.LoadAlign(r, src)
        mask, _ = R.UpdateMask(T, n)
        R.StoreAlign(dst, r, mask)

    def vf_same(dst, src, T):
        n = R.GetVecLen() // (4 if aj.IsSameType(T, "float") else 2)
        r = R.RegTensor(T)
        R.LoadAlign(r, src)
        mask, _ = R.UpdateMask(T, n)
        R.StoreAlign(dst, r, mask)

    def vf_eq(dst, src, T):
        n = R.GetVecLen() // (4 if T == "float" else 2)
        r = R.RegTensor(T)
        R.LoadAlign(r, src)
        mask, _ = R.UpdateMask(T, n)
        R.StoreAlign(dst, r, mask)
    return R.simd_vf({"np": vf_np, "same": vf_same, "eq": vf_eq}[expr])


@pytest.mark.parametrize("expr, lanes, compiles", [("eq", 64, True), ("same", 64, False), ("np", 32, False)])
@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_vf_sizeof_of_a_dtype_name(expr, lanes, compiles):
    """Gap: `GetVRegSize() / sizeof(T)` has no compiled spelling for a dtype-name argument. `T == "float"` compiles;
    aj.IsSameType(T, "float") (the README's port of IsSameType) runs the VF as plain Python with an
    UncompiledVFWarning; np.dtype(T).itemsize does too and, numpy's "float" being float64, gives 8: 32 lanes, not 64,
    with no error."""
    VF = _lanes_vf(expr)
    core = aj.Core(D950)
    with core:
        src, dst = core.local_tensor("float", 64), core.local_tensor("float", 64)
        src[:] = np.arange(1, 65, dtype=np.float32)
        dst[:] = np.zeros(64, np.float32)
        if compiles:
            VF(dst, src, "float")
        else:
            with pytest.warns(aj.UncompiledVFWarning):
                VF(dst, src, "float")
        assert int((dst.numpy() != 0).sum()) == lanes


@pytest.mark.parametrize("name", ["ShiftRight", "ShiftLeft", "ReduceMaxWithDataBlock"])
def test_devkit_reg_names_the_arch35_kernels_call_say_why_they_are_not_offered(name):
    """Devkit Reg functions the arch35 kernels call (ShiftRight / ShiftLeft by a register of amounts,
    include/basic_api/reg_compute/kernel_reg_compute_vec_binary_intf.h; ReduceMaxWithDataBlock,
    impl/basic_api/reg_compute/kernel_reg_compute_vec_reduce_intf_impl.h) had been a bare AttributeError; reported by
    this probe, they are a NotOfferedError as the other devkit names ascend_jit leaves out are."""
    with pytest.raises(aj.NotOfferedError, match="SPEC-2 14|ReduceDataBlock"):
        getattr(R, name)
