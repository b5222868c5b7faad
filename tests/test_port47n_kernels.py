"""The session-47n ports of ops-nn kernels: kernels/hard_sigmoid_v2.py (HardSigmoidV2, A2 / A3: Adds / Relu / Mins /
Muls in place in one TQueBind<VECIN, VECOUT> tile with the positional EnQue / DeQue forms, CAST_ROUND back for the
16-bit types, an int32 form), kernels/hard_shrink.py (HardShrink, the 950: tensor-tensor Compare GT / LT into bit
masks against Duplicate'd lambd tensors, Select tensor-scalar then tensor-tensor), kernels/apply_rms_prop.py
(ApplyRMSProp, the 950: Sqrt and Reciprocal, seven queues, three outputs), kernels/relu_v3.py (ReluV3, A2 / A3:
Relu / Maxs and the Compare GT bit mask copied to GM), kernels/hard_shrink_grad.py (HardShrinkGrad, A2 / A3: Abs,
Compare GT, tensor-tensor Select over the whole tile buffer) and kernels/hard_sigmoid_grad_v2.py (HardSigmoidGradV2,
A2 / A3: two Compares into bit masks, their And, Muls, tensor-scalar Select); and of ops-math kernels:
kernels/transposev.py (Transposev, A2 / A3: perm by a padded DataCopyPad, ArithProgression and an int32 / float index
chain, a scalar gather) and kernels/cosh.py (Cosh, A2 / A3: Exp in place, Reciprocal, Add, Muls between
PipeBarriers). Each against its numpy model bit for bit on every device it runs on (the MODELLED Sqrt / Reciprocal /
Exp / Div are the exact value rounded once, D37), against a float64 formula within the types' rounding; the host
tilings; each of the original's behaviours the port changes, run in the original's form and refused or reported."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import sanitizer_reports as _reports, same_bits as _same, spec_and_module as _spec_and_module

A2_A3 = ["atlas-a2", "atlas-a3"]
BF16 = ml_dtypes.bfloat16


# kernels/hard_sigmoid_v2.py

def _hsig_tiling(m, device, n, dtype):
    used, raw = m.tiling(device, n, dtype)
    t = m.HardSigmoidV2TilingData.from_buffer_copy(raw.tobytes())
    return used, (t.formerNum, t.formerLength, t.tailLength, t.tileLength)


def test_hard_sigmoid_v2_tiling_cache_line_cores_and_ub_eighth_tiles():
    _, m = _spec_and_module("hard_sigmoid_v2")
    # 800012 bytes / 16 KiB -> 49 cores wanted, 8 used; ceil(200003 / 8) = 25001 rounded up to 128 floats (512 bytes)
    assert _hsig_tiling(m, "atlas-a2", 200003, "float") == (8, (7, 25088, 24387, 24576))
    # int32: 64 KiB a core -> 7 cores of 14336, the last 13987
    assert _hsig_tiling(m, "atlas-a3", 100003, "int32") == (7, (6, 14336, 13987, 24576))
    # under 16 KiB one core; the 16-bit tile is the same 24576 elements (UB / 8)
    assert _hsig_tiling(m, "atlas-a2", 1000, "float") == (1, (0, 1024, 1000, 24576))
    assert _hsig_tiling(m, "atlas-a2", 100003, "half") == (8, (7, 12544, 12195, 24576))
    for n in (1, 129, 4097, 70001, 300007):
        used, (former, length, tail, _) = _hsig_tiling(m, "atlas-a2", n, "bfloat16")
        assert former == used - 1 and former * length + tail == n and 0 < tail <= length


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, n", [(np.float32, 60011), (np.float16, 30011), (BF16, 9001), (np.int32, 20011),
                                      (np.float32, 3)])
def test_hard_sigmoid_v2_is_the_numpy_model(device, dtype, n):
    """Several cores from 512-byte aligned starts, a short last core, three elements on one core."""
    _, m = _spec_and_module("hard_sigmoid_v2")
    rng = np.random.default_rng(n)
    if dtype == np.int32:
        x = rng.integers(-20, 20, n).astype(np.int32)
    else:
        x = rng.uniform(-5, 5, n).astype(np.float32).astype(dtype)
    y = m.run_hard_sigmoid_v2(device, x)
    assert y.dtype == x.dtype and _same(y, m.hard_sigmoid_v2_model(x))


def test_hard_sigmoid_v2_two_ub_tiles_a_core():
    """200003 floats: 25088 a core, a 24576-float tile (the UB's eighth) and a 512-float one through the same
    TQueBind buffers."""
    _, m = _spec_and_module("hard_sigmoid_v2")
    x = np.random.default_rng(3).uniform(-4, 4, 200003).astype(np.float32)
    assert _same(m.run_hard_sigmoid_v2("atlas-a2", x), m.hard_sigmoid_v2_model(x))


def test_hard_sigmoid_v2_specials_round_half_away_and_the_formula():
    """NaN stays NaN (Relu, Mins: D41), +inf -> 1, -inf and -3 -> 0, 3 -> 1; the 16-bit results round half away
    from zero (CAST_ROUND): every half / bfloat16 input whose float result is a tie gives the larger magnitude,
    not RNE's even neighbour. Against float64 within the float chain's rounding."""
    _, m = _spec_and_module("hard_sigmoid_v2")
    x = np.tile(np.array([np.nan, np.inf, -np.inf, -3.0, 3.0, -0.0, 0.0, 100.0], np.float32), 5)
    for dtype in (np.float32, np.float16, BF16):
        y = m.run_hard_sigmoid_v2("atlas-a2", x.astype(dtype)).astype(np.float32)[:8]
        assert np.isnan(y[0]) and y[1:].tolist() == [1.0, 0.0, 0.0, 1.0, 0.5, 0.5, 1.0], dtype
    for dtype in (np.float16, BF16):
        allx = np.arange(65536, dtype=np.uint16).view(dtype)
        allx = allx[np.isfinite(allx.astype(np.float32))]
        r = (np.clip(allx.astype(np.float32) + np.float32(3), 0, 6) * m.SCALE_VALUE).astype(np.float32)
        ties = m.round_half_away(r, dtype).view(np.uint16) != r.astype(dtype).view(np.uint16)
        assert ties.sum() > 10, dtype
        xs = allx[ties]
        y = m.run_hard_sigmoid_v2("atlas-a3", xs)
        assert _same(y, m.round_half_away(r[ties], dtype)), dtype
        assert np.all(np.abs(y.astype(np.float32)) > np.abs(r[ties].astype(dtype).astype(np.float32))), dtype
    xs = np.random.default_rng(9).uniform(-4, 4, 5000).astype(np.float32)
    out = m.run_hard_sigmoid_v2("atlas-a2", xs).astype(np.float64)
    want = np.clip(xs.astype(np.float64) + 3.0, 0.0, 6.0) / 6.0
    assert np.all(np.abs(out - want) <= 2 ** -22 * np.maximum(want, 2 ** -20))
    xi = np.arange(-10, 10, dtype=np.int32)
    assert m.run_hard_sigmoid_v2("atlas-a2", xi).tolist() == [0] * 13 + [1] * 7


# kernels/hard_shrink.py

def _shrink_tiling(m, n, dtype, lambd=0.5):
    used, mode, is_bf16, raw = m.tiling("ascend950", n, dtype, lambd)
    t = m.HardShrinkTilingData.from_buffer_copy(raw.tobytes())
    return used, mode, is_bf16, t.blockFactor, t.ubFactor


def test_hard_shrink_tiling_element_cores_and_ub_factor():
    _, m = _spec_and_module("hard_shrink")
    # float, double-buffered: 28 bytes an element; (253952 - 1024) * 8 / 225 = 8992 -> 8960 (64-float repeats)
    assert _shrink_tiling(m, 300001, "float") == (8, 1, 0, 37501, 8960)
    # half, 1024 or fewer: single-buffered, 10 bytes an element -> 24980 -> 24960 (128-half repeats)
    assert _shrink_tiling(m, 1000, "half") == (8, 0, 0, 125, 24960)
    # bfloat16: 2 * 2 * 2 + 4 * 4 = 24 bytes -> 10484 -> 10432; IS_BF16
    assert _shrink_tiling(m, 100003, "bfloat16") == (8, 1, 1, 12501, 10432)
    assert _shrink_tiling(m, 5, "float")[:1] == (5,) and _shrink_tiling(m, 1025, "half")[1] == 1
    t = m.HardShrinkTilingData.from_buffer_copy(m.tiling("ascend950", 9, "float", 0.3)[3].tobytes())
    assert t.lambd == np.float32(0.3) and t.totalNum == 9


@pytest.mark.parametrize("dtype, n", [(np.float32, 40009), (np.float16, 1000), (np.float16, 30011),
                                      (BF16, 20011), (BF16, 777), (np.float32, 1)])
def test_hard_shrink_is_the_numpy_model(dtype, n):
    """Double- and single-buffered runs, cores whose tile is not whole repeats, one element. The half lambd is
    rounded (0.3 -> 0.2998...): x equal to it is not kept."""
    _, m = _spec_and_module("hard_shrink")
    rng = np.random.default_rng(n)
    x = rng.uniform(-1, 1, n).astype(np.float32)
    x[::53] = 0.3
    x[1::53] = -0.3
    x = x.astype(dtype)
    x[2::53] = np.float16(0.3) if dtype == np.float16 else x[2::53]
    y = m.run_hard_shrink("ascend950", x, 0.3)
    assert y.dtype == x.dtype and _same(y, m.hard_shrink_model(x, 0.3))
    if dtype == np.float16 and n > 2:
        assert y[2] == 0 and y[0] == 0


def test_hard_shrink_several_tiles_a_core():
    """300001 floats: 37501 a core, four 8960-float tiles and a short one."""
    _, m = _spec_and_module("hard_shrink")
    x = np.random.default_rng(4).uniform(-1, 1, 300001).astype(np.float32)
    assert _same(m.run_hard_shrink("ascend950", x, 0.5), m.hard_shrink_model(x, 0.5))


def test_hard_shrink_specials_and_the_formula():
    """NaN compares false both ways (D43): 0; +-inf kept; +-lambd exactly and -0 give +0; a negative lambd keeps
    every number. Against float64: y = x where |x| > lambd."""
    _, m = _spec_and_module("hard_shrink")
    x = np.tile(np.array([np.nan, np.inf, -np.inf, 0.5, -0.5, -0.0, 0.75, -2.0], np.float32), 9)
    for dtype in (np.float32, np.float16, BF16):
        y = m.run_hard_shrink("ascend950", x.astype(dtype), 0.5)
        f = y.astype(np.float32)[:8]
        assert f.tolist() == [0.0, np.inf, -np.inf, 0.0, 0.0, 0.0, 0.75, -2.0], dtype
        assert not np.signbit(f[[0, 3, 4, 5]]).any(), dtype
        yn = m.run_hard_shrink("ascend950", x.astype(dtype), -1.0).astype(np.float32)[:8]
        assert yn[0] == 0 and yn[1:].tolist() == x[1:8].tolist(), dtype
    xs = np.random.default_rng(6).standard_normal(3000).astype(np.float32)
    out = m.run_hard_shrink("ascend950", xs, 0.7).astype(np.float64)
    assert np.array_equal(out, np.where(np.abs(xs.astype(np.float64)) > np.float64(np.float32(0.7)), xs, 0.0))


def test_hard_shrink_rounded_compare_reads_lanes_past_the_copy_and_the_cast(monkeypatch):
    """The original's form (ORIGINAL_TAIL): the Compares and Selects over n rounded up to a repeat read input lanes
    (float, half) or float-temporary lanes (bfloat16) nothing wrote; the values copied out are the same. Each Select
    reads them through its Compare's mask bits (sel_mask, reported at the Select with the Compare as the earlier
    instruction: docs/decisions.md "Sanitizer": a count-form Compare's never-written lanes are followed to what
    reads their bits); its src0 lanes are followed to dst, which the copy-out does not read ("The init check
    through a Select")."""
    _, m = _spec_and_module("hard_shrink")
    for dtype in (np.float32, BF16):
        x = np.random.default_rng(1).uniform(-1, 1, 1001).astype(np.float32).astype(dtype)
        outs = {}
        monkeypatch.setattr(m, "ORIGINAL_TAIL", True)
        original = _reports(lambda: outs.setdefault(True, m.run_hard_shrink("ascend950", x)))
        want = {("init", "Select", "sel_mask", "Compare")}
        assert {(r.check, r.instruction.api, r.operand, r.earlier and r.earlier.api) for r in original} == want, dtype
        assert all(r.fix.startswith("these mask bits were computed from lanes of ") for r in original
                   if r.operand == "sel_mask")
        monkeypatch.setattr(m, "ORIGINAL_TAIL", False)
        assert _reports(lambda: outs.setdefault(False, m.run_hard_shrink("ascend950", x))) == [], dtype
        assert _same(outs[True], outs[False])


# kernels/apply_rms_prop.py

def _rms_tiling(m, n, dtype):
    used, raw = m.tiling("ascend950", n, dtype, 0.01, 0.9, 0.9, 1e-6)
    return used, m.ApplyRmsPropTilingData.from_buffer_copy(raw.tobytes())


def test_apply_rms_prop_tiling_block_aligned_cores_and_tiles():
    _, m = _spec_and_module("apply_rms_prop")
    # ceil(100003 / 8) = 12501 -> 12504 (8 floats); 253952 / 44 bytes -> 5768 floats a tile; 3 tiles, the last 968
    used, t = _rms_tiling(m, 100003, "float")
    assert (used, t.blockLength, t.lastBlockLength, t.tileLength, t.tileNum, t.lastTileLength) == (
        8, 12504, 12475, 5768, 3, 968)
    assert (t.lastBlockTileNum, t.lastBlockLastTileLength) == (3, 939)
    # 16-bit: 7 * 2 + 8 * 4 = 46 bytes -> 5520; 50003 -> 6256 a core (16 halves)
    used, t = _rms_tiling(m, 50003, "half")
    assert (used, t.blockLength, t.tileLength, t.tileNum, t.lastTileLength) == (8, 6256, 5520, 2, 736)
    # one short core: the tile is the block rounded up, the last tile the 7 elements
    used, t = _rms_tiling(m, 7, "bfloat16")
    assert (used, t.tileLength, t.lastBlockLastTileLength) == (1, 16, 7)
    # rho1m is 1 - rho in float (host); every element covered once
    assert t.rho1m == np.float32(1.0) - np.float32(0.9) and t.eps == np.float32(1e-6)
    for n in (1, 9, 4097, 46145, 200003):
        used, t = _rms_tiling(m, n, "float")
        assert (used - 1) * t.blockLength + t.lastBlockLength == n
        assert (t.lastBlockTileNum - 1) * t.tileLength + t.lastBlockLastTileLength == t.lastBlockLength


def _rms_inputs(n, dtype, seed):
    rng = np.random.default_rng(seed)
    return [a.astype(np.float32).astype(dtype) for a in (
        rng.uniform(-2, 2, n), rng.uniform(0, 1, n), rng.uniform(-0.5, 0.5, n), rng.standard_normal(n) * 0.3)]


@pytest.mark.parametrize("dtype, n", [(np.float32, 100003), (np.float32, 5), (np.float16, 30011), (BF16, 12011)])
def test_apply_rms_prop_is_the_numpy_model(dtype, n):
    """Three tiles a core (100003 floats), a short last core, one core; all three outputs."""
    _, m = _spec_and_module("apply_rms_prop")
    ins = _rms_inputs(n, dtype, n)
    outs = m.run_apply_rms_prop("ascend950", *ins)
    for out, want in zip(outs, m.apply_rms_prop_model(*ins)):
        assert out.dtype == ins[0].dtype and _same(out, want)


def test_apply_rms_prop_specials_and_the_formula():
    """ms' + eps = +0 (eps 0, grad 0, ms 0): Sqrt +0, Reciprocal +inf, inf * 0 = NaN into mom' and var'; a negative
    ms': Sqrt NaN. Against float64 within a few float roundings (relative to the terms' size)."""
    _, m = _spec_and_module("apply_rms_prop")
    var = np.array([1.0, 1.0, 1.0, 2.0] * 4, np.float32)
    ms = np.array([0.0, -4.0, 1.0, 0.25] * 4, np.float32)
    mom = np.zeros(16, np.float32)
    grad = np.array([0.0, 0.0, 1.0, -1.0] * 4, np.float32)
    v, s, mo = m.run_apply_rms_prop("ascend950", var, ms, mom, grad, lr=0.5, rho=0.5, momentum=0.0, epsilon=0.0)
    wv, ws, wm = m.apply_rms_prop_model(var, ms, mom, grad, lr=0.5, rho=0.5, momentum=0.0, epsilon=0.0)
    assert _same(v, wv) and _same(s, ws) and _same(mo, wm)
    assert np.isnan(mo[:2]).all() and np.isnan(v[:2]).all() and s[:2].tolist() == [0.0, -2.0]
    assert s[2] == 1.0 and mo[2] == 0.5 and v[2] == 0.5
    ins = _rms_inputs(4001, np.float32, 2)
    outs = m.run_apply_rms_prop("ascend950", *ins)
    v64, s64, m64, g64 = (a.astype(np.float64) for a in ins)
    ws = s64 + (g64 * g64 - s64) * (1 - 0.9)
    wm = m64 * 0.9 + 0.01 * g64 / np.sqrt(ws + 1e-6)
    for out, want, scale in ((outs[1], ws, 1.0), (outs[2], wm, 1.0), (outs[0], v64 - wm, 2.0)):
        assert np.all(np.abs(out.astype(np.float64) - want) <= 2 ** -20 * scale), scale


# kernels/relu_v3.py

def test_relu_v3_tiling_cores_by_data_size_and_the_last_dim_rule():
    _, m = _spec_and_module("relu_v3")
    assert m.tiling("atlas-a2", (1000,), "float")[0] == 1            # under 32 KiB
    assert m.tiling("atlas-a2", (100, 104), "float")[0] == 4         # under 4 MiB: half the cores
    assert m.tiling("atlas-a3", (2 ** 21,), "half")[0] == 8
    assert m.ReluV3TilingData.from_buffer_copy(m.tiling("atlas-a2", (37, 24), "half")[1].tobytes()).size == 888
    with pytest.raises(ValueError, match="multiple of 8"):
        m.tiling("atlas-a2", (8, 13), "float")


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, shape", [(np.float32, (37, 24)), (np.float16, (7, 4288)), (np.int32, (1251, 8)),
                                          (np.float32, (8,))])
def test_relu_v3_is_the_numpy_model(device, dtype, shape):
    """One core (888 elements), four cores of 512-element blocks with a short last tile (30016 halves), int32 through
    float for the mask, 8 elements. y and the mask bytes (count / 8 of them)."""
    _, m = _spec_and_module("relu_v3")
    rng = np.random.default_rng(int(np.prod(shape)))
    if dtype == np.int32:
        x = rng.integers(-50, 50, shape).astype(np.int32)
    else:
        x = rng.uniform(-2, 2, shape).astype(dtype)
    y, mask = m.run_relu_v3(device, x)
    wy, wmask = m.relu_v3_model(x)
    assert y.shape == x.shape and _same(y, wy) and mask.size == x.size // 8 and np.array_equal(mask, wmask)


def test_relu_v3_several_tiles_a_core():
    """200008 floats on 4 cores: 97-98 blocks of 512 a core, six 7680-float (30 KiB) tiles and a short one."""
    _, m = _spec_and_module("relu_v3")
    x = np.random.default_rng(8).standard_normal(200008).astype(np.float32)
    y, mask = m.run_relu_v3("atlas-a2", x)
    wy, wmask = m.relu_v3_model(x)
    assert _same(y, wy) and np.array_equal(mask, wmask)


def test_relu_v3_mask_bits_lsb_first_and_specials():
    """Bit k of byte b is element 8b + k (D44); NaN > 0 is false (D43) and Relu / Maxs keep the NaN (D41); -0 gives
    +0 and bit 0; +inf bit 1. int32 extremes keep their sign through the float conversion."""
    _, m = _spec_and_module("relu_v3")
    x = np.array([1.0, -1.0, 0.0, 2.0, np.nan, -0.0, np.inf, -np.inf] * 3, np.float32)
    for dtype in (np.float32, np.float16):
        y, mask = m.run_relu_v3("atlas-a3", x.astype(dtype))
        assert mask.tolist() == [0b01001001] * 3, dtype
        f = y.astype(np.float32)[:8]
        assert np.isnan(f[4]) and f[[0, 1, 2, 3, 5, 6, 7]].tolist() == [1, 0, 0, 2, 0, np.inf, 0], dtype
        assert not np.signbit(f[5]), dtype
    xi = np.array([2 ** 31 - 1, -2 ** 31, 1, -1, 0, 16777217, -16777217, 5] * 2, np.int32)
    y, mask = m.run_relu_v3("atlas-a2", xi)
    assert y[:8].tolist() == [2 ** 31 - 1, 0, 1, 0, 0, 16777217, 0, 5] and mask.tolist() == [0b10100101] * 2


def test_relu_v3_original_compare_over_its_zeros_is_refused(monkeypatch):
    """The deviation's reason: the original Duplicates zeros over the mask buffer and Compares into the same bytes
    (dst inside src1 within repeat 0): a partial overlap, refused before anything is written (SPEC 8.2, SPEC-2 D34)."""
    _, m = _spec_and_module("relu_v3")
    monkeypatch.setattr(m, "ORIGINAL_COMPARE", True)
    with pytest.raises(aj.OverlapError, match="Compare"):
        m.run_relu_v3("atlas-a2", np.linspace(-1, 1, 64).astype(np.float32))


def test_relu_v3_original_tail_reads_lanes_nothing_wrote(monkeypatch):
    """The original's form (ORIGINAL_TAIL): the last tile's rounded Compare reads x lanes past the copy and the
    rounded copy-out moves y lanes / mask bytes past the results (into the GM padding); the outputs are the same.
    The Compare's bits of those lanes are followed to the copy-out that reads them (session 66: the high-dim form
    as the count form), so both reports are the DataCopy's, one naming the Compare."""
    _, m = _spec_and_module("relu_v3")
    x = np.random.default_rng(2).uniform(-1, 1, 1000).astype(np.float16)
    outs = {}
    monkeypatch.setattr(m, "ORIGINAL_TAIL", True)
    original = _reports(lambda: outs.setdefault(True, m.run_relu_v3("atlas-a2", x)))
    assert {(r.check, r.instruction.api) for r in original} == {("init", "DataCopy")}
    assert [r.earlier.api for r in original if r.earlier is not None] == ["Compare"]
    monkeypatch.setattr(m, "ORIGINAL_TAIL", False)
    assert _reports(lambda: outs.setdefault(False, m.run_relu_v3("atlas-a2", x))) == []
    assert _same(outs[True][0], outs[False][0]) and np.array_equal(outs[True][1], outs[False][1])


def test_the_ports_run_clean_under_the_sanitizer_in_device_sync_mode():
    for name, n in (("hard_sigmoid_v2_half", 20011), ("hard_shrink_bf16", 3001), ("apply_rms_prop_half", 3001),
                    ("relu_v3_int32", 10008), ("transposev", 960), ("cosh_half", 3001),
                    ("hard_shrink_grad_bf16", 3001)):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run(k.devices[0], k.make_inputs(n, 0)), "device-sync") == [], name


# kernels/transposev.py (ops-math)

def _tv_tiling(m, shape, dtype):
    used, raw = m.tiling("atlas-a2", shape, dtype)
    t = m.TransposevTilingData.from_buffer_copy(raw.tobytes())
    return used, (t.smallCoreDataNum, t.bigCoreDataNum, t.tailBlockNum, t.tileDataNum, t.finalSmallTileNum,
                  t.smallTailDataNum)


def test_transposev_tiling_32_byte_block_cores_and_tiles():
    _, m = _spec_and_module("transposev")
    # 28800 floats = 3600 blocks: 450 a core (3600 floats); (196608 - 512) / 32 / 2 / 7 = 437 blocks = 3496 floats
    assert _tv_tiling(m, (30, 40, 24), "float") == (8, (3600, 3608, 0, 3496, 2, 104))
    # 1152 int8 = 36 blocks: 4 a core, the first 4 cores 5; 3064 / 25 = 122 blocks = 3904 a tile
    assert _tv_tiling(m, (32, 36), "int8") == (8, (128, 160, 4, 3904, 1, 128))
    # fewer blocks than cores: one core a block
    assert _tv_tiling(m, (2, 8), "half")[0] == 1
    t = m.TransposevTilingData.from_buffer_copy(m.tiling("atlas-a3", (3, 8, 10, 16), "half")[1].tobytes())
    assert t.dims == 4 and list(t.shape)[:5] == [3, 8, 10, 16, 0] and t.totalnumber == 3840


def test_transposev_offset_chain_is_the_transpose_permutation():
    """The float Div / CAST_FLOOR decomposition gives numpy's transpose indices (counts far below 2**24)."""
    _, m = _spec_and_module("transposev")
    for shape, perm in (((30, 40, 24), (2, 0, 1)), ((3, 5, 7, 2), (3, 0, 2, 1)), ((64, 48), (1, 0))):
        want = np.arange(int(np.prod(shape))).reshape(shape).transpose(perm).reshape(-1)
        assert np.array_equal(m.transposev_offsets(shape, perm), want)


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, shape, perm, perm_dtype", [
    (np.float32, (30, 40, 24), (2, 0, 1), np.int32),       # two tiles a core: the index progression continues
    (np.float16, (4, 6, 2, 8), (3, 2, 1, 0), np.int64),    # int64 perm (its padded copy: two 32-byte blocks)
    (np.int8, (16, 2, 3, 4, 2, 2), (5, 0, 4, 1, 3, 2), np.int32),   # six dims: the most an int32 perm copy fits
    (np.int64, (8, 4), (0, 1), np.int32)])                 # identity, 8-byte elements
def test_transposev_is_numpys_transpose(device, dtype, shape, perm, perm_dtype):
    _, m = _spec_and_module("transposev")
    x = (np.random.default_rng(len(shape)).standard_normal(shape) * 50).astype(dtype)
    out = m.run_transposev(device, x, perm, perm_dtype)
    assert out.shape == x.transpose(perm).shape and _same(out, np.ascontiguousarray(x.transpose(perm)))
    assert _same(out, m.transposev_model(x, perm))


def test_transposev_original_forms_refused_or_reported(monkeypatch):
    """(1) Sub(p6, p6, p6) reads a TBuf nothing wrote (init report; the values the same); (2) without the flags the
    scalar reads race the copy and the vector writes; (3) a byte size not whole 32-byte blocks runs the last core
    past the arrays (refused); the kept limit: an int32 perm of 7 dims pads past its 8-element tile (refused)."""
    _, m = _spec_and_module("transposev")
    x = np.random.default_rng(0).standard_normal((4, 5, 8)).astype(np.float32)
    want = np.ascontiguousarray(x.transpose(1, 2, 0))
    monkeypatch.setattr(m, "ORIGINAL_ZERO", True)
    outs = []
    reports = _reports(lambda: outs.append(m.run_transposev("atlas-a2", x, (1, 2, 0))))
    assert {(r.check, r.instruction.api) for r in reports} == {("init", "Sub")} and _same(outs[0], want)
    monkeypatch.setattr(m, "ORIGINAL_ZERO", False)
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    reports = _reports(lambda: m.run_transposev("atlas-a2", x, (1, 2, 0)))
    assert {(r.check, r.kind, r.instruction.api) for r in reports} == {("race", "RAW", "GetValue")}
    assert {r.earlier.api for r in reports} == {"DataCopyPad", "Add"}
    monkeypatch.setattr(m, "ORIGINAL_SYNC", False)
    with pytest.raises(aj.OutOfBoundsError, match="SetGlobalBuffer"):
        m.run_transposev("atlas-a2", np.zeros((3, 5, 7), np.float32), (2, 0, 1))
    with pytest.raises(aj.OutOfBoundsError, match="DataCopyPad"):
        m.run_transposev("atlas-a2", np.zeros((2,) * 7, np.float32), tuple(range(6, -1, -1)))


# kernels/cosh.py (ops-math)

def test_cosh_tiling_block_cores_and_ub_third_tiles():
    _, m = _spec_and_module("cosh")
    t = m.CoshTilingData.from_buffer_copy(m.tiling("atlas-a2", 100003, "float")[1].tobytes())
    # 12501 blocks (the last 3 floats of one rounded up): 1562 a core, the first 5 cores 1563; 196608 / 32 / 2 / 3 =
    # 1024 blocks = 8192 floats a tile: one full tile and 4304 / 4312
    assert (t.smallCoreDataNum, t.bigCoreDataNum, t.tailBlockNum, t.tileDataNum) == (12496, 12504, 5, 8192)
    assert (t.finalSmallTileNum, t.smallTailDataNum, t.bigTailDataNum) == (2, 4304, 4312)
    assert m.tiling("atlas-a3", 7, "half")[0] == 1 and m.tiling("atlas-a3", 33, "half")[0] == 3


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, n", [(np.float32, 100003), (np.float16, 20011), (np.float32, 3)])
def test_cosh_is_the_numpy_model(device, dtype, n):
    """Two tiles a core and big / small cores (100003 floats), halves, a GM padded past three elements."""
    _, m = _spec_and_module("cosh")
    hi = 10.0 if dtype == np.float16 else 80.0
    x = np.random.default_rng(n).uniform(-hi, hi, n).astype(dtype)
    assert _same(m.run_cosh(device, x), m.cosh_model(x))


def test_cosh_specials_and_the_formula():
    """cosh(0) = 1, NaN stays NaN, +-inf -> +inf; exp overflows past 88.7 (+inf), and below -88.7 the reciprocal of
    a tiny exp overflows too (x = -89: true cosh 2.2e38, the kernel +inf); half overflows past 11.1. Against float64
    within a few float roundings."""
    _, m = _spec_and_module("cosh")
    x = np.array([0.0, np.nan, np.inf, -np.inf, 89.0, -89.0, 1.0, -1.0] * 2, np.float32)
    z = m.run_cosh("atlas-a2", x)
    assert _same(z, m.cosh_model(x))
    assert z[0] == 1.0 and np.isnan(z[1]) and z[2:6].tolist() == [np.inf] * 4 and z[6] == z[7]
    assert m.run_cosh("atlas-a3", np.array([11.5, -11.5, 2.0, 0.0] * 4, np.float16))[:2].tolist() == [np.inf] * 2
    xs = np.random.default_rng(1).uniform(-80, 80, 5000).astype(np.float32)
    out = m.run_cosh("atlas-a2", xs).astype(np.float64)
    want = np.cosh(xs.astype(np.float64))
    assert np.all(np.abs(out - want) <= 3 * 2 ** -24 * want)


def test_cosh_int32_has_no_exp_on_the_a2():
    """The operator lists int32 / int16 / bfloat16; Exp and Reciprocal take half and float only on the A2 / A3
    (SPEC-2 4.2): the original's template cannot be built for them, the emulator refuses the Exp."""
    _, m = _spec_and_module("cosh")
    with pytest.raises(aj.UnsupportedDTypeError, match="Exp"):
        m.run_cosh("atlas-a2", np.arange(64, dtype=np.int32))


# kernels/hard_shrink_grad.py

def _hsg_tiling(m, device, n, dtype):
    used, mode, raw = m.tiling(device, n, dtype, 0.5)
    t = m.HardShrinkGradTilingData.from_buffer_copy(raw.tobytes())
    return used, mode, t.blockFactor, t.ubFactor


def test_hard_shrink_grad_tiling_and_the_mask_that_does_not_fit(monkeypatch):
    """(196608 - 256) / 36 bytes (double-buffered) -> 5440; float single-buffered / 24 -> 8128; 16-bit
    single-buffered / 30 -> 6528 in the original, whose 1024-byte mask leaves the UB: the port 6464."""
    _, m = _spec_and_module("hard_shrink_grad")
    assert _hsg_tiling(m, "atlas-a2", 100003, "float") == (8, 1, 12501, 5440)
    assert _hsg_tiling(m, "atlas-a3", 5000, "bfloat16") == (8, 1, 625, 5440)
    assert _hsg_tiling(m, "atlas-a2", 1000, "float") == (8, 0, 125, 8128)
    assert _hsg_tiling(m, "atlas-a2", 1000, "half") == (8, 0, 125, 6464)
    assert _hsg_tiling(m, "atlas-a2", 3, "half")[:3] == (3, 0, 1)
    monkeypatch.setattr(m, "ORIGINAL_MASK", True)
    assert _hsg_tiling(m, "atlas-a2", 1000, "half")[3] == 6528
    with pytest.raises(aj.OutOfBoundsError, match="InitBuffer"):
        m.run_hard_shrink_grad("atlas-a2", np.ones(1000, np.float16), np.ones(1000, np.float16))
    x = np.linspace(-1, 1, 1000).astype(np.float32)
    assert _same(m.run_hard_shrink_grad("atlas-a2", x, x), m.hard_shrink_grad_model(x, x))


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, n", [(np.float32, 40009), (np.float16, 1000), (BF16, 20011), (np.float16, 5)])
def test_hard_shrink_grad_is_the_numpy_model(device, dtype, n):
    """Double-buffered tiles, single-buffered 16-bit cores (the reduced ubFactor), five elements."""
    _, m = _spec_and_module("hard_shrink_grad")
    rng = np.random.default_rng(n)
    x = rng.uniform(-1, 1, n).astype(np.float32)
    x[::41] = 0.5
    x = x.astype(dtype)
    g = rng.standard_normal(n).astype(np.float32).astype(dtype)
    assert _same(m.run_hard_shrink_grad(device, g, x, 0.5), m.hard_shrink_grad_model(g, x, 0.5))


def test_hard_shrink_grad_specials_and_the_formula():
    """|NaN| > lambd is false: 0; |+-inf| passes the grad; |x| = lambd and -0 give +0; a NaN grad passes where
    |x| > lambd. Against float64: grad where |x| > lambd."""
    _, m = _spec_and_module("hard_shrink_grad")
    x = np.tile(np.array([np.nan, np.inf, -np.inf, 0.5, -0.5, -0.0, 0.75, -2.0], np.float32), 9)
    g = np.tile(np.array([3.0, 4.0, 5.0, 6.0, 7.0, 8.0, np.nan, -1.5], np.float32), 9)
    for dtype in (np.float32, np.float16, BF16):
        y = m.run_hard_shrink_grad("atlas-a2", g.astype(dtype), x.astype(dtype), 0.5).astype(np.float32)[:8]
        assert y[[0, 1, 2, 3, 4, 5, 7]].tolist() == [0.0, 4.0, 5.0, 0.0, 0.0, 0.0, -1.5] and np.isnan(y[6]), dtype
        assert not np.signbit(y[[0, 3, 4, 5]]).any(), dtype
    xs = np.random.default_rng(6).standard_normal(3000).astype(np.float32)
    gs = np.random.default_rng(7).standard_normal(3000).astype(np.float32)
    out = m.run_hard_shrink_grad("atlas-a3", gs, xs, 0.7).astype(np.float64)
    assert np.array_equal(out, np.where(np.abs(xs.astype(np.float64)) > np.float64(np.float32(0.7)), gs, 0.0))


def test_hard_shrink_grad_whole_buffer_compute_reads_lanes_past_the_copy(monkeypatch):
    """The original's form (ORIGINAL_TAIL): Abs / Cast / Compare / Select over the whole ubFactor read lanes of the
    input tiles no copy wrote; the values copied out are the same."""
    _, m = _spec_and_module("hard_shrink_grad")
    for dtype in (np.float32, BF16):
        x = np.random.default_rng(1).uniform(-1, 1, 1001).astype(np.float32).astype(dtype)
        outs = {}
        monkeypatch.setattr(m, "ORIGINAL_TAIL", True)
        original = _reports(lambda: outs.setdefault(True, m.run_hard_shrink_grad("atlas-a2", x, x)))
        first = "Cast" if dtype == BF16 else "Abs"
        assert ("init", first) in {(r.check, r.instruction.api) for r in original}, dtype
        monkeypatch.setattr(m, "ORIGINAL_TAIL", False)
        assert _reports(lambda: outs.setdefault(False, m.run_hard_shrink_grad("atlas-a2", x, x))) == [], dtype
        assert _same(outs[True], outs[False])


# kernels/hard_sigmoid_grad_v2.py

def test_hard_sigmoid_grad_v2_tiling():
    """float double-buffered: 196608 / 25 -> 7808 (64-float repeats); half single-buffered / 7 -> 28032 (128);
    bfloat16 double-buffered / 21 -> 9344."""
    _, m = _spec_and_module("hard_sigmoid_grad_v2")

    def t(n, dtype):
        used, mode, raw = m.tiling("atlas-a2", n, dtype)
        d = m.HardSigmoidGradV2TilingData.from_buffer_copy(raw.tobytes())
        return used, mode, d.blockFactor, d.ubFactor
    assert t(100003, "float") == (8, 1, 12501, 7808)
    assert t(1000, "half") == (8, 0, 125, 28032)
    assert t(50003, "bfloat16") == (8, 1, 6251, 9344)
    assert t(3, "float")[:3] == (3, 0, 1)


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, n", [(np.float32, 40009), (np.float16, 1000), (BF16, 20011), (np.float32, 5)])
def test_hard_sigmoid_grad_v2_is_the_numpy_model(device, dtype, n):
    _, m = _spec_and_module("hard_sigmoid_grad_v2")
    rng = np.random.default_rng(n)
    x = rng.uniform(-5, 5, n).astype(np.float32)
    x[::37] = 3.0
    x[1::37] = -3.0
    x = x.astype(dtype)
    g = rng.standard_normal(n).astype(np.float32).astype(dtype)
    assert _same(m.run_hard_sigmoid_grad_v2(device, g, x), m.hard_sigmoid_grad_v2_model(g, x))


def test_hard_sigmoid_grad_v2_specials_and_the_formula():
    """x = +-3, +-inf, NaN give 0 (NaN compares false, D43); inside, grad / 6 with 1/6 in the compute type (half:
    0.1666259765625). Against float64 within one rounding of the product."""
    _, m = _spec_and_module("hard_sigmoid_grad_v2")
    x = np.tile(np.array([np.nan, np.inf, -np.inf, 3.0, -3.0, 2.9, -0.0, 1.0], np.float32), 9)
    g = np.full(72, 1.0, np.float32)
    sixth32 = np.float32(1.0) / np.float32(6.0)
    for dtype, sixth in ((np.float32, float(sixth32)), (np.float16, 0.1666259765625), (BF16, float(BF16(sixth32)))):
        y = m.run_hard_sigmoid_grad_v2("atlas-a2", g.astype(dtype), x.astype(dtype)).astype(np.float64)[:8]
        assert y[:5].tolist() == [0.0] * 5 and y[5:].tolist() == [sixth] * 3, dtype
    xs = np.random.default_rng(3).uniform(-4, 4, 3000).astype(np.float32)
    gs = np.random.default_rng(4).standard_normal(3000).astype(np.float32)
    out = m.run_hard_sigmoid_grad_v2("atlas-a3", gs, xs).astype(np.float64)
    want = np.where(np.abs(xs.astype(np.float64)) < 3.0, gs.astype(np.float64) / 6.0, 0.0)
    assert np.all(np.abs(out - want) <= 2 ** -23 * np.abs(want))


def test_hard_sigmoid_grad_v2_original_and_and_tail(monkeypatch):
    """(1) The original Ands the uint8 masks: the A2 / A3 And has no uint8 form (refused before anything is
    written); (2) the whole-buffer Compares read input lanes past the copy (the same outputs): their mask bits of
    those lanes are uninitialised and the uint16 And of the two masks reads them, reported at the And with each
    CompareScalar as the earlier instruction (docs/decisions.md "Sanitizer": a count-form Compare's never-written
    lanes are followed to what reads their bits); the Muls reads the grad lanes past the copy directly."""
    _, m = _spec_and_module("hard_sigmoid_grad_v2")
    monkeypatch.setattr(m, "ORIGINAL_AND", True)
    with pytest.raises(aj.UnsupportedDTypeError, match="And"):
        m.run_hard_sigmoid_grad_v2("atlas-a2", np.ones(64, np.float32), np.ones(64, np.float32))
    monkeypatch.setattr(m, "ORIGINAL_AND", False)
    x = np.random.default_rng(1).uniform(-5, 5, 1001).astype(np.float32)
    outs = {}
    monkeypatch.setattr(m, "ORIGINAL_TAIL", True)
    original = _reports(lambda: outs.setdefault(True, m.run_hard_sigmoid_grad_v2("atlas-a2", x, x)))
    assert {(r.check, r.instruction.api, r.operand, r.earlier and r.earlier.api) for r in original} == \
        {("init", "And", "src0", "Compares"), ("init", "And", "src1", "Compares"), ("init", "Muls", "src", None)}
    assert all(r.fix.startswith("these mask bits were computed from lanes of ") for r in original
               if r.instruction.api == "And")
    monkeypatch.setattr(m, "ORIGINAL_TAIL", False)
    assert _reports(lambda: outs.setdefault(False, m.run_hard_sigmoid_grad_v2("atlas-a2", x, x))) == []
    assert _same(outs[True], outs[False])
