"""The session-38 ports of ops-nn kernels (nn38): kernels/logit.py, kernels/linear_index.py and
kernels/avg_pool3d_grad.py. Each against an expectation computed with numpy alone, on two devices; the host tilings'
choices; and each deviation: the original's sequence run and refused or reported as the port's docstring says."""

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels._base import within_tolerance
from ported import spec_and_module as _spec_and_module


def _fields(raw, struct):
    return np.frombuffer(raw.tobytes(), struct)[0]


# kernels/logit.py

def test_logit_tiling_cores_key_and_eps():
    _, m = _spec_and_module("logit")
    block_dim, key, raw, ws = m.tiling("atlas-a2", 70003, "float")
    t = _fields(raw, m.LogitTilingData)
    assert (block_dim, key, int(t["elementNum"]), int(t["needCoreNum"]), ws) == (8, 2, 70003, 8, 16 << 20)
    assert t["eps"] == np.float32(1e-6)
    assert m.tiling("atlas-a2", 20011, "half")[:2] == (3, 1)          # ceil(20011 / 8192) cores
    assert m.tiling("ascend950", 5, "bfloat16")[:2] == (1, 3)
    assert m.tiling("atlas-a2", 0, "float")[0] == 1                  # at least one core


def _logit_numpy(x, eps):
    x = x.astype(np.float32)
    if eps >= 0:
        lo, hi = np.float32(eps), np.float32(1) - np.float32(eps)
        x = np.where(np.isnan(x), x, np.clip(x, lo, hi))
    x = x.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x / (1 - x))


@pytest.mark.parametrize("name, size", [("logit", 70003), ("logit", 63), ("logit_half", 20011),
                                        ("logit_bf16", 9000)])
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_logit_matches_numpy_within_its_tolerance(name, size, device):
    k, _ = _spec_and_module(name)
    inputs = k.make_inputs(size, 4)
    y = k.run(device, inputs)["y"]
    ok, line = within_tolerance(y, _logit_numpy(inputs["x"], 1e-6), k.tolerance)
    assert ok, line


@pytest.mark.parametrize("device", ["atlas-a3", "ascend950"])
def test_logit_keeps_nan_and_clamps_the_ends(device):
    _, m = _spec_and_module("logit")
    x = np.array([np.nan, 0.0, 1.0, -3.0, 7.0, 0.3] * 11, np.float32)
    y = m._run("float")(device, {"x": x})["y"]
    assert np.isnan(y[0::6]).all()
    lo, hi = np.float32(1e-6), np.float32(1) - np.float32(1e-6)
    for i, v in ((1, lo), (2, hi), (3, lo), (4, hi)):
        want = np.log(float(v) / (1 - float(v)))
        assert abs(float(y[i]) - want) <= 1e-5 * abs(want)


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_logit_negative_eps_skips_the_clamp(device):
    _, m = _spec_and_module("logit")
    x = np.random.default_rng(2).uniform(0.05, 0.45, 3000).astype(np.float32)
    y = m._run("float", eps=-1.0)(device, {"x": x})["y"]
    ok, line = within_tolerance(y, _logit_numpy(x, -1.0), 2e-5)
    assert ok, line


def test_logit_950_eps_above_half_takes_the_compare_select_branch():
    """On the 950 eps > 0.5 clamps by CompareScalar / Select from the unclamped x (the A2/A3 branch): every x goes
    to eps or 1 - eps: below eps to eps, at least eps to 1 - eps (x <= 1 - eps < eps keeps x first, then eps)."""
    _, m = _spec_and_module("logit")
    x = np.array([0.1, 0.45, 0.55, 0.7, 0.9] * 13, np.float32)
    eps = np.float32(0.6)
    for device in ("ascend950", "atlas-a2"):
        y = m._run("float", eps=0.6)(device, {"x": x})["y"]
        hi = np.float32(1) - eps
        clamped = np.where(x >= eps, hi, eps).astype(np.float64)
        assert np.allclose(y, np.log(clamped / (1 - clamped)), rtol=1e-5), device


def test_logit_original_layout_cast_overlap_is_refused(monkeypatch):
    """The original widens the 16-bit tile sitting in the upper half of its float tile (and narrows in place):
    ascend_jit refuses Cast between sizes with any overlap (SPEC-2 D34); the port moves the 16-bit tiles."""
    k, m = _spec_and_module("logit_half")
    monkeypatch.setattr(m, "ORIGINAL_LAYOUT", True)
    with pytest.raises(aj.OverlapError, match="Cast"):
        k.run("atlas-a2", k.make_inputs(1000, 0))


def test_logit_without_the_zeroed_tail_the_rounded_compares_pad_bits_are_never_read(monkeypatch):
    """One core of 1001 floats: the DataCopyPad writes 1008 lanes (whole 32-byte blocks), the Compare and the two
    CompareScalars compare 1024 and the Selects take 1001. The 16 pad lanes nothing wrote leave mask bytes 126-127
    uninitialised, and no instruction reads them (the Selects read bytes 0-125, then Muls overwrites the NaN mask):
    no report (docs/decisions.md "Sanitizer": a count-form Compare's never-written lanes are followed to what reads
    their bits; they were reported at the Compare and the CompareScalars)."""
    k, m = _spec_and_module("logit")
    monkeypatch.setattr(m, "DEVIATION_ZERO_TAIL", False)
    with aj.sanitize_session("report") as session:
        y = k.run("atlas-a2", k.make_inputs(1001, 0))["y"]
    assert session.reports == []
    ok, _ = within_tolerance(y, k.expected("atlas-a2", k.make_inputs(1001, 0))["y"], k.tolerance)
    assert ok


# kernels/linear_index.py

def test_linear_index_tiling_keys_pieces_and_alignment():
    _, m = _spec_and_module("linear_index")
    block_dim, key, raw, ws = m.tiling("atlas-a2", (200003,), "int32", (50, 13, 9), 1, False)
    t = _fields(raw, m.LinearIndexTilingData)
    # max_ub 184320 (9 x 20480), 8 bytes an index: pieces of 23040; 25001 a core -> 23040 + 1961
    assert (block_dim, key, int(t["maxSize"]), int(t["eachCount"]), int(t["eachLoop"]), int(t["eachTail"]),
            int(t["lastCount"]), int(t["indicesAlign"]), int(t["target"])) == \
        (8, 1, 23040, 25001, 2, 1961, 200003 - 7 * 25001, 23040, 13)
    _, key, raw, _ = m.tiling("atlas-a2", (100, 7), "int64", (50, 13, 9), 0, True)
    t = _fields(raw, m.LinearIndexTilingData)
    assert (key, int(t["maxSize"]), int(t["selfStride"]), int(t["indicesStride"]), int(t["target"])) == \
        (12, 184320 // 24, 13, 7, 50)
    _, key, raw, _ = m.tiling("atlas-a2", (13, 7), "int64", (50, 13, 9), -2, True)
    t = _fields(raw, m.LinearIndexTilingData)
    assert (key, int(t["usedCoreNum"]), int(t["eachCount"]), int(t["lastCount"]), int(t["indicesAlign"])) == \
        (22, 3, 31, 29, 32)
    assert m.tiling("atlas-a2", (40,), "int32", (9,), 0, True)[1] == 1     # combine on a 1-D var: key 1


def _linear_index_numpy(name, idx):
    """Integer arithmetic only (no float replay)."""
    bound = {"linear_index": 13, "linear_index_int64": 50, "linear_index_dim0": 50,
             "linear_index_dim1_int64": 13}[name]
    fixed = np.where(idx < 0, idx + bound, idx).astype(np.int64)
    pos = np.arange(idx.size)
    if name == "linear_index_dim0":
        fixed = fixed * 13 + pos % 7
    elif name == "linear_index_dim1_int64":
        fixed = fixed + 13 * (pos // 7)
    return fixed.astype(np.int32)


@pytest.mark.parametrize("name, size", [("linear_index", 200003), ("linear_index", 5), ("linear_index_int64", 100003),
                                        ("linear_index_dim0", 7 * 3001), ("linear_index_dim1_int64", 7 * 1701)])
@pytest.mark.parametrize("device", ["atlas-a2", "atlas-a3"])
def test_linear_index_matches_integer_numpy_bit_for_bit(name, size, device):
    k, _ = _spec_and_module(name)
    inputs = k.make_inputs(size, 7)
    out = k.run(device, inputs)["index"]
    want = _linear_index_numpy(name, inputs["indices"])
    assert out.dtype == np.int32
    aj.testing.assert_bit_equal(out, want)
    aj.testing.assert_bit_equal(out, k.expected(device, inputs)["index"])


def test_linear_index_int64_without_the_zeroed_tail_the_sanitizer_reports_the_cast(monkeypatch):
    k, m = _spec_and_module("linear_index_int64")
    monkeypatch.setattr(m, "DEVIATION_ZERO_TAIL", False)
    inputs = k.make_inputs(3001, 1)
    with aj.sanitize_session("report") as session:
        out = k.run("atlas-a2", inputs)["index"]
    assert {(r.check, r.instruction.api) for r in session.reports} == {("init", "Cast")}
    aj.testing.assert_bit_equal(out, _linear_index_numpy("linear_index_int64", inputs["indices"]))


# kernels/avg_pool3d_grad.py

def test_avg_pool3d_grad_tiling_planes_chunks_and_cast_copy():
    _, m = _spec_and_module("avg_pool3d_grad")
    block_dim, key, raw, ws = m.tiling("atlas-a2", (2, 3, 5, 1, 4000), (2, 9, 1, 4000), (3, 1, 1), (2, 1, 1),
                                       (1, 0, 0), True, 0, "float")
    t = _fields(raw, m.AvgPool3dGradTilingParam)
    hw = t["hwParam"]
    # (192 KiB - 20 KiB) / 2 rounded to 32 bytes: 22016 floats a part; 5 planes of 4000 a group; 30 lines on 8 cores
    assert (block_dim, key, ws) == (8, 3000, 16 << 20)
    assert (int(hw["hwAlign"]), int(hw["hwNum"]), int(hw["nLine"]), int(hw["normalCoreHWNum"]),
            int(hw["lastCoreHWNum"])) == (4000, 1, 5, 3, 9)
    assert int(t["attrParam"]["isOverLap"]) == 1 and int(t["attrParam"]["countIncludePad"]) == 1
    block_dim, key, raw, ws = m.tiling("atlas-a2", (2, 3, 5, 1, 30011), (2, 9, 1, 30011), (3, 1, 1), (2, 1, 1),
                                       (1, 0, 0), True, 0, "half")
    t = _fields(raw, m.AvgPool3dGradTilingParam)
    hw, cc = t["hwParam"], t["castCopyParam"]
    # 16-bit, overlapping: three parts, 58688 bytes: 29344 halves; the plane in two chunks
    assert (key, int(hw["hwCount"]), int(hw["hwNum"]), int(hw["hwTail"]), int(hw["nLine"])) == \
        (4000, 29344, 2, 30011 - 29344, 1)
    assert ws == (16 << 20) + 2 * 3 * 9 * 30011 * 4
    total = 2 * 3 * 9 * 30011
    assert (int(cc["maxDataNumInUb"]), int(cc["normalCoreNum"]), int(cc["normalCoreDataNum"]),
            int(cc["tailCoreDataNum"])) == ((196608 - 20480) // 2 // 3, total % 8, -(-total // 8), total // 8)
    with pytest.raises(NotImplementedError):
        m.tiling("atlas-a2", (1, 1, 4, 2, 2), (1, 9, 2, 2), (3, 2, 1), (2, 1, 1), (1, 0, 0), True, 0, "float")


def _avg_pool_numpy(g, in_d, k, s, p, include_pad, divisor):
    """float32, each input depth's terms added in window order."""
    acc = np.zeros(g.shape[:2] + (in_d,) + g.shape[3:], np.float32)
    for od in range(g.shape[2]):
        lo, hi = od * s - p, min(od * s - p + k, in_d + p)
        pool, lo, hi = hi - lo, max(lo, 0), min(hi, in_d)
        factor = np.float32(1) / np.float32(divisor or (pool if include_pad else hi - lo))
        for d in range(lo, hi):
            acc[:, :, d] += g[:, :, od].astype(np.float32) * factor
    return acc.astype(g.dtype)


@pytest.mark.parametrize("dtype, case, include_pad, divisor, plane", [
    ("float", "overlap", True, 0, 4000), ("float", "overlap", False, 0, 30011), ("float", "disjoint", True, 5, 777),
    ("half", "overlap", True, 0, 30011), ("bfloat16", "overlap", False, 0, 999),
    ("bfloat16", "disjoint", False, 0, 4000), ("half", "triple", True, 0, 513)])
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_avg_pool3d_grad_matches_numpy_bit_for_bit(dtype, case, include_pad, divisor, plane, device):
    _, m = _spec_and_module("avg_pool3d_grad")
    make_inputs, run, _ = m._case(dtype, case=case, count_include_pad=include_pad, divisor_override=divisor)
    inputs = make_inputs(plane, 11)
    y = run(device, inputs)["y"]
    cfg = m.CASES[case]
    want = _avg_pool_numpy(inputs["grads"], cfg["in_d"], cfg["ksize"][0], cfg["strides"][0], cfg["pads"][0],
                           include_pad, divisor)
    aj.testing.assert_bit_equal(y, want)


def test_avg_pool3d_grad_three_overlapping_windows_depend_on_the_atomic_order():
    """Stride 1, window 3: three atomic adds an input depth. In block order the bits are numpy's replay; shuffled
    block orders move some results by a float ulp or two, never more."""
    _, m = _spec_and_module("avg_pool3d_grad")
    make_inputs, run, expected = m._case("float", case="triple")
    inputs = make_inputs(1000, 3)
    want = expected("atlas-a2", inputs)["y"]
    aj.testing.assert_bit_equal(run("atlas-a2", inputs)["y"], want)
    moved = 0
    for seed in range(3):
        y = run("atlas-a2", inputs, atomic_order="shuffle", seed=seed)["y"]
        moved += int((y != want).sum())
        assert np.allclose(y, want, rtol=0, atol=4e-7)
    assert moved > 0


def test_avg_pool3d_grad_half_two_pipes_run_clean_under_the_sanitizer():
    """Key 4000 overlapping: atomics into the workspace, SyncAll, pipe.Destroy() and a second TPipe."""
    k, _ = _spec_and_module("avg_pool3d_grad_half")
    inputs = k.make_inputs(2000, 5)
    with aj.sanitize_session("report") as session:
        y = k.run("atlas-a3", inputs)["y"]
    assert not session.reports
    aj.testing.assert_bit_equal(y, k.expected("atlas-a3", inputs)["y"])
    assert y.dtype == np.float16
