"""The session-40 port probe (port40pb) of hicann/ops-nn kernels: kernels/apply_adagrad.py (optim, the 950 arch35 Reg
API kernel), kernels/cross_v2.py (loss) and kernels/deep_norm.py (norm, the D <= 500 kernel). Each against an
expectation computed with numpy alone; the host tilings' choices; each deviation's reason (the original's sequence
run and reported); the sanitizer on shapes the gallery's defaults do not reach."""

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry
from ported import module as _module, one_device_each


def _fields(raw, struct):
    return np.frombuffer(raw.tobytes(), struct)[0]


def _bits_equal(a, b):
    return a.tobytes() == b.tobytes()


# kernels/apply_adagrad.py

def test_apply_adagrad_tiling_cores_blocks_and_tiles():
    m = _module("apply_adagrad")
    key, dim, raw = m.tiling("ascend950", 100003, "float")
    t = _fields(raw, m.ApplyAdagradTilingDataStruct)
    ub = aj.get_device("ascend950").ub_bytes
    assert key == (0, 1, 2) and dim == 8
    assert int(t["blockFactor"]) == 12800 and int(t["blockFactor"]) % 512 == 0          # ceil(100003 / 8) -> 512s
    assert int(t["ubFactor"]) == (ub - 256) // 28 // 64 * 64
    key, dim, raw = m.tiling("ascend950", 1000, "half", update_slots=False)
    t = _fields(raw, m.ApplyAdagradTilingDataStruct)
    assert key == (0, 0, 0) and dim == 1 and int(t["blockFactor"]) == 1024              # 16000 bits: one core
    assert int(t["ubFactor"]) == (ub - 256) // 38 // 128 * 128
    assert m.tiling("ascend950", 0, "bfloat16")[1] == 1


@pytest.mark.parametrize("dtype, update", [("float", True), ("half", True), ("bfloat16", True), ("float", False)])
@pytest.mark.parametrize("n", [1, 63, 4097, 20011])
def test_apply_adagrad_against_numpy_and_clean(dtype, update, n):
    m = _module("apply_adagrad")
    inputs = m._make_inputs(dtype)(n, n)
    with aj.sanitize_session("report") as session:
        out = m.run_adagrad("ascend950", inputs, update)
    assert session.reports == [], aj.format_reports(session.reports)
    want = m.expected_adagrad(inputs, update)
    assert _bits_equal(out["var"], want["var"]) and _bits_equal(out["accum"], want["accum"])
    if not update:
        assert _bits_equal(out["accum"], inputs["accum"])


def test_apply_adagrad_within_four_ulp_of_float64():
    """Independent of the port's replay: var - lr g / sqrt(accum + g^2) in float64."""
    m = _module("apply_adagrad")
    inputs = m._make_inputs("float")(5000, 3)
    out = m.run_adagrad("ascend950", inputs)
    v, a, g = (inputs[k].astype(np.float64) for k in ("var", "accum", "grad"))
    step = np.float64(np.float32(0.01)) * g / np.sqrt(a + g * g)
    want = v - step
    ulp = np.spacing(np.maximum(np.abs(v), np.abs(step)).astype(np.float32)).astype(np.float64)
    assert np.all(np.abs(out["var"] - want) <= 4 * ulp)


def test_apply_adagrad_zero_accum_and_grad_give_nan():
    m = _module("apply_adagrad")
    inputs = m._make_inputs("float")(70, 0)
    inputs["accum"][5], inputs["grad"][5] = 0.0, 0.0                      # 0 / sqrt(0): NaN
    out = m.run_adagrad("ascend950", inputs)
    assert np.isnan(out["var"][5]) and np.sum(np.isnan(out["var"])) == 1


def test_apply_adagrad_original_whole_vector_loads_run_clean_through_the_lanes(monkeypatch):
    """Session 54: the lanes carry the init check; the original's tail lanes (var, accum, grad of the one tile, 3
    init reports before) stay outside UpdateMask in every operation and never reach a store."""
    m = _module("apply_adagrad")
    monkeypatch.setattr(m, "ORIGINAL_UNINIT_LOADS", True)
    inputs = m._make_inputs("half")(1001, 1)
    with aj.sanitize_session("report") as session:
        out = m.run_adagrad("ascend950", inputs)
    assert session.reports == []
    assert _bits_equal(out["var"], m.expected_adagrad(inputs)["var"])


def test_apply_adagrad_refuses_other_devices():
    m = _module("apply_adagrad")
    with pytest.raises(aj.UnsupportedDeviceError):
        m.run_adagrad("atlas-a2", m._make_inputs("float")(64, 0))


# kernels/cross_v2.py

def test_cross_v2_tiling_keys_and_splits():
    m = _module("cross_v2")
    key, dim, raw = m.tiling("atlas-a2", (2, 3, 3001), "float", 1)
    t = _fields(raw, m.CrossV2TilingData)
    assert (key, dim) == (1, 8)
    assert tuple(int(t[f]) for f in m.CrossV2TilingData.names) == (3001, 10, 5, 744, 25)
    key, dim, raw = m.tiling("atlas-a2", (5003, 3), "uint8", -1)
    t = _fields(raw, m.CrossV2TilingData)
    assert (key, dim, int(t["tileDataNum"]), int(t["tailDataNum"])) == (0, 8, 512, 395)   # 256-byte units
    key, dim, raw = m.tiling("atlas-a2", (100000, 3), "half", -1)
    t = _fields(raw, m.CrossV2TilingData)
    assert int(t["tileDataNum"]) == 196608 // 32 // 2 // 30 * 16                           # (UB / 64 / 30) blocks
    assert m.dim_process((4, 3, 5), m.DEFAULT_DIM) == 1 and m.dim_process((3, 3), -1) == 1


def _cross_inputs(dtype, shape, seed):
    m = _module("cross_v2")
    rng = np.random.default_rng(seed)
    if dtype in ("float", "half", "bfloat16"):
        return {k: rng.uniform(-4, 4, shape).astype(m._NP[dtype]) for k in ("x1", "x2")}
    info = np.iinfo(m._NP[dtype])
    return {k: rng.integers(info.min, info.max, shape, endpoint=True).astype(m._NP[dtype]) for k in ("x1", "x2")}


@pytest.mark.parametrize("dtype", ["float", "half", "bfloat16", "int32", "int16", "int8", "uint8"])
@pytest.mark.parametrize("shape, dim", [((2, 3, 777), 1), ((3, 4, 3, 5), -2), ((1001, 3), -1), ((4, 3), 1)])
def test_cross_v2_every_type_and_layout_against_numpy(dtype, shape, dim):
    m = _module("cross_v2")
    inputs = _cross_inputs(dtype, shape, len(shape) * 7 + abs(dim))
    with aj.sanitize_session("report") as session:
        y = m.run_cross("atlas-a2", inputs, dim)["y"]
    assert session.reports == [], aj.format_reports(session.reports)
    assert _bits_equal(y, m.expected_cross(inputs, dim)["y"])


@pytest.mark.parametrize("device", ["atlas-a3", "atlas-a2"])
def test_cross_v2_float_is_numpy_cross_within_rounding(device):
    """Independent of the replay: np.cross in float64, each component two roundings off at most."""
    m = _module("cross_v2")
    for shape, dim in (((2, 3, 500), 1), ((700, 3), -1)):
        inputs = _cross_inputs("float", shape, 5)
        y = m.run_cross(device, inputs, dim)["y"].astype(np.float64)
        want = np.cross(inputs["x1"].astype(np.float64), inputs["x2"].astype(np.float64), axis=dim)
        assert np.all(np.abs(y - want) <= 2 * 32 * 2.0 ** -24)                  # |products| < 16


def test_cross_v2_uint8_wraps_like_the_original_and_saturates_past_it():
    """The original's uint8 sequence: a negative result + 256, then a saturating Cast (small vectors wrap as uint8
    arithmetic would; large products leave the half-exact range and clamp)."""
    m = _module("cross_v2")
    x1 = np.array([[1, 0, 0], [200, 250, 3]], np.uint8)
    x2 = np.array([[0, 1, 0], [3, 5, 255]], np.uint8)
    y = m.run_cross("atlas-a3", {"x1": x1, "x2": x2}, -1)["y"]
    assert y[0].tolist() == [0, 0, 1]
    assert _bits_equal(y, m.expected_cross({"x1": x1, "x2": x2}, -1)["y"])
    # 250 * 255 - 5 * 3 in half: 63744 -> 255; 3 * 3 - 200 * 255 + 256 still negative -> 0; 1000 - 750 = 250
    assert y[1].tolist() == [255, 0, 250]


def test_cross_v2_original_scalar_handoffs_are_reported(monkeypatch):
    """ORIGINAL_NO_SCALAR_SYNC: the patterns' SetValues before the first GatherMask (S -> V), GetValue after the Sub
    (V -> S) and the Cast of the interleaved tensor (S -> V) have no flag in the original."""
    m = _module("cross_v2")
    monkeypatch.setattr(m, "ORIGINAL_NO_SCALAR_SYNC", True)
    inputs = _cross_inputs("half", (100, 3), 2)
    with aj.sanitize_session("report") as session:
        y = m.run_cross("atlas-a2", inputs, -1)["y"]
    assert _bits_equal(y, m.expected_cross(inputs, -1)["y"])
    text = aj.format_reports(session.reports)
    assert {(r.check, r.kind) for r in session.reports} == {("race", "RAW")}
    for a, b in (("GatherMask", "SetValue"), ("GetValue", "Sub"), ("Cast", "SetValue")):
        assert f"RAW: {a} [PIPE_" in text and f"after {b} [PIPE_" in text, (a, b)


def test_cross_v2_original_rounded_reads_are_uninitialised(monkeypatch):
    """ORIGINAL_UNINIT_READS: a core whose only tile is short. Both rounded reads are followed to what reads their
    results (docs/decisions.md "Sanitizer": a count-form Compare's never-written lanes are followed to what reads
    their bits; a normal-mode GatherMask's elements gathered from never-written bytes likewise). half: the
    GatherMasks over tileDataNum gather the float TBuf past the Cast's count, and the Muls read only the n elements
    gathered from the Cast's: no report. uint8: the CompareScalar over the 256-byte rounded count compares the lanes
    past the Sub's 201; the Select of 201 reads mask byte 25, whose lanes 201-207 nothing wrote, but takes only its
    bit 200, a written lane's: no report (session 64, port64j: a Select reads only its lanes' bits; it had been
    reported, the shadow per byte). The kernel's results are the same either way."""
    m = _module("cross_v2")
    monkeypatch.setattr(m, "ORIGINAL_UNINIT_READS", True)
    for dtype, shape, dim, want in (("half", (100, 3), -1, set()), ("uint8", (2, 3, 201), 1, set())):
        inputs = _cross_inputs(dtype, shape, 4)
        with aj.sanitize_session("report") as session:
            y = m.run_cross("atlas-a2", inputs, dim)["y"]
        assert _bits_equal(y, m.expected_cross(inputs, dim)["y"])
        got = {(r.check, r.instruction.api, r.operand, r.earlier.api, r.nbytes) for r in session.reports}
        assert got == want, dtype


# kernels/deep_norm.py

def test_deep_norm_tiling_keys_and_row_tiles():
    m = _module("deep_norm")
    key, dim, raw = m.tiling("atlas-a2", 1003, 200, "float")
    t = _fields(raw, m.DeepNormTilingData)
    assert (key, dim) == (18, 8)
    assert (int(t["nl_firstdim_per_core"]), int(t["l_firstdim_per_core"]), int(t["first_dim_per_times"])) == \
        (126, 121, 63)
    assert np.uint32(t["ave_str"]).view(np.float32) == np.float32(1.0 / 200)
    assert np.uint32(t["alpha_str"]).view(np.float32) == np.float32(0.3)
    assert m.tiling("atlas-a2", 13, 333, "bfloat16")[:2] == (16, 7)
    assert m.tiling("atlas-a2", 5000, 64, "half")[0] == 17
    key, _, raw = m.tiling("atlas-a2", 9000, 500, "half")
    assert int(_fields(raw, m.DeepNormTilingData)["first_dim_per_times"]) <= 255
    assert m.tiling("atlas-a2", 8, 600, "float")[0] == 2                   # D > 500: a kernel not ported
    with pytest.raises(NotImplementedError, match="not ported"):
        m.run_deep_norm("atlas-a2", {"x": np.ones((8, 600), np.float32), "gx": np.ones((8, 600), np.float32),
                                     "beta": np.zeros(600, np.float32), "gamma": np.ones(600, np.float32)})


# each shape on one device by default (11 s warm on all three)
@pytest.mark.parametrize("dtype, rows, cols, device", one_device_each(
    [("float", 37, 7), ("float", 300, 500), ("half", 9, 16), ("half", 1003, 100), ("bfloat16", 263, 333),
     ("float", 1, 1), ("half", 17, 21)], ["atlas-a3", "atlas-a2", "atlas-inference-aicore"]))
def test_deep_norm_against_numpy_and_clean(dtype, rows, cols, device):
    """On the 310P mean and rstd stay zero and rows under a block (float 7, 1) are not written: the original."""
    m = _module("deep_norm")
    if dtype == "bfloat16" and device == "atlas-inference-aicore":
        pytest.skip("the 310P build has no bfloat16")
    rng = np.random.default_rng(rows + cols)
    t = m._NP[dtype]
    inputs = {"x": rng.standard_normal((rows, cols)).astype(np.float32).astype(t),
              "gx": (rng.standard_normal((rows, cols)) * 2).astype(np.float32).astype(t),
              "beta": rng.uniform(-1, 1, cols).astype(np.float32).astype(t),
              "gamma": rng.uniform(0.5, 2, cols).astype(np.float32).astype(t)}
    with aj.sanitize_session("report") as session:
        out = m.run_deep_norm(device, inputs)
    assert session.reports == [], aj.format_reports(session.reports)
    want = m.expected_deep_norm(inputs, device=device)
    for key in ("mean", "rstd", "y"):
        assert _bits_equal(out[key], want[key]), key


@pytest.mark.parametrize("name", ["deep_norm", "deep_norm_half", "deep_norm_bf16"])
def test_deep_norm_within_rounding_of_the_float64_formula(name):
    k = registry()[name]
    inputs = k.make_inputs(k.default_size, 5)
    out = k.run("atlas-a2", inputs)
    x, gx = inputs["x"].astype(np.float64), inputs["gx"].astype(np.float64)
    z = 0.3 * x + gx
    mean = z.mean(axis=1)
    rstd = 1 / np.sqrt(((z - mean[:, None]) ** 2).mean(axis=1) + 1e-6)
    y = (z - mean[:, None]) * rstd[:, None] * inputs["gamma"].astype(np.float64) + inputs["beta"].astype(np.float64)
    assert np.allclose(out["mean"], mean, rtol=1e-5, atol=1e-5)
    assert np.allclose(out["rstd"], rstd, rtol=2e-5)
    eps = {"deep_norm": 2e-5, "deep_norm_half": 2.0 ** -10, "deep_norm_bf16": 2.0 ** -7}[name]
    assert np.allclose(out["y"].astype(np.float64), y, rtol=eps, atol=eps * 4)


def test_deep_norm_axpy_is_one_rounding():
    """The expectation's Axpy (D39: the exact x * alpha + gx rounded once) differs from two roundings on some
    inputs, and the emulator agrees with the one rounding."""
    m = _module("deep_norm")
    rng = np.random.default_rng(11)
    x = rng.standard_normal(4096).astype(np.float32)
    gx = rng.standard_normal(4096).astype(np.float32)
    a = np.full_like(x, np.float32(0.3))
    once = m._fma_f32(x, a, gx)
    twice = ((x * a).astype(np.float32) + gx).astype(np.float32)
    assert np.any(once != twice)
    core = aj.Core("atlas-a2")
    with core:
        d, s = core.local_tensor("float", 4096), core.local_tensor("float", 4096)
        d[:], s[:] = gx, x
        aj.Axpy(d, s, np.float32(0.3), 4096)
        assert _bits_equal(d.numpy(), once)


def test_deep_norm_310p_original_windows_are_refused(monkeypatch):
    """The 310P's DataCopy rows read a block past the SetGlobalBuffer windows, which the emulator keeps
    (docs/decisions.md "Scaffolding"); the port widens them."""
    m = _module("deep_norm")
    inputs = m._make_inputs("deep_norm_half")(30 * 100, 0)
    out = m.run_deep_norm("atlas-inference-aicore", inputs)
    assert _bits_equal(out["y"], m.expected_deep_norm(inputs, device="atlas-inference-aicore")["y"])
    assert not out["mean"].any() and not out["rstd"].any()
    monkeypatch.setattr(m, "ORIGINAL_GM_WINDOWS", True)
    with pytest.raises(aj.AscendJitError, match="DataCopy.*at most 200 bytes"):
        m.run_deep_norm("atlas-inference-aicore", inputs)
