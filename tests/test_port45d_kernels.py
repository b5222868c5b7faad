"""The session-45d ports of ops-math Memory-API kernels (A2 / A3): kernels/floor_div.py (FloorDiv: Casts int8 /
uint8 -> half -> float and int32 / half / bfloat16 -> float, Div, the advanced Floor as Cast CAST_FLOOR, Casts
float -> half -> int8 and float -> T with CAST_FLOOR), kernels/onehot.py (Onehot: per index SetValue lane numbers,
GetValue, a high-dimensional int32 CompareScalar EQ into a bit mask, tensor-scalar Select, Cast CAST_CEIL, one-row
DataCopyPad) and kernels/maximum_v2.py (MaximumV2: integer and float Max, bfloat16 / int8 through float / half
TBufs). Each against a numpy model bit for bit (Div is MODELLED: the exact quotient rounded once, D37, i.e. numpy's
float32 division), over several tiles a core, big and small cores and short tails; the host tilings; each of the
original's behaviours the port changes, run in the original's form and refused or reported."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import sanitizer_reports as _reports, bits as _bits, spec_and_module as _spec_and_module

A2_A3 = ["atlas-a2", "atlas-a3"]
BF16 = ml_dtypes.bfloat16


def _same(out, want):
    return out.dtype == want.dtype and np.array_equal(_bits(out), _bits(want))


# kernels/floor_div.py

def test_floor_div_tiling_32_byte_blocks_and_per_type_tiles():
    _, m = _spec_and_module("floor_div")
    # UB / 32 / (6, 8, 18, 10) blocks a tile: 8192 floats, 6144 int32, 10912 int8, 9824 halves
    tiles = {d: m.tiling("atlas-a2", 100003, d)[1]["tileDataNum"] for d in ("float", "int32", "int8", "half")}
    assert tiles == {"float": 8192, "int32": 6144, "int8": 10912, "half": 9824}
    used, t = m.tiling("atlas-a2", 100003, "int32")           # 12501 blocks: 5 big cores of 1563 blocks
    assert used == 8 and (t["tailBlockNum"], t["bigCoreDataNum"], t["smallCoreDataNum"]) == (5, 12504, 12496)
    assert (t["finalBigTileNum"], t["bigTailDataNum"], t["smallTailDataNum"]) == (3, 216, 208)
    # a tile holds the whole input: one core (the original's rule), even with 8 blocks or more
    assert m.tiling("atlas-a2", 8000, "float")[0] == 1 and m.tiling("atlas-a2", 9000, "float")[0] == 8
    assert m.tiling("atlas-a2", 5, "int8") == (1, m.tiling("atlas-a2", 5, "int8")[1])


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("name, n", [("floor_div", 100003), ("floor_div", 5), ("floor_div_int32", 100003),
                                     ("floor_div_int8", 100003), ("floor_div_uint8", 33), ("floor_div_half", 60001),
                                     ("floor_div_bf16", 20001), ("floor_div_int8", 1)])
def test_floor_div_is_the_numpy_model(device, name, n):
    """Several tiles a core (100003 elements: 2-3 tiles on each of 8 cores, big and small), one short core, one
    element; bit for bit against the float chain."""
    k, m = _spec_and_module(name)
    inputs = k.make_inputs(n, n + 7)
    out = m.run_floor_div(device, inputs["x"], inputs["y"])
    assert _same(out, m.floor_div_model(inputs["x"], inputs["y"]))


def test_floor_div_integers_are_pythons_floor_division_where_float_is_exact():
    """8-bit operands divide exactly enough in float that floor(fl(x / y)) is x // y; int32 within 2**24 the same
    (numpy's floor_divide); outside, the int32 operands round to float first (2**24 + 1 -> 2**24)."""
    _, m = _spec_and_module("floor_div")
    a = np.arange(-128, 128)
    x8, y8 = np.repeat(a, 256).astype(np.int8), np.tile(a, 256).astype(np.int8)
    keep = (y8 != 0) & ~((x8 == -128) & (y8 == -1))
    x8, y8 = x8[keep], y8[keep]
    assert np.array_equal(m.run_floor_div("atlas-a2", x8, y8), np.floor_divide(x8, y8))
    u = np.arange(256)
    xu, yu = np.repeat(u, 255).astype(np.uint8), np.tile(u[1:], 256).astype(np.uint8)
    assert np.array_equal(m.run_floor_div("atlas-a3", xu, yu), np.floor_divide(xu, yu))
    rng = np.random.default_rng(1)
    x = rng.integers(-2 ** 24, 2 ** 24, 5000).astype(np.int32)
    y = rng.integers(1, 5000, 5000).astype(np.int32) * rng.choice([-1, 1], 5000).astype(np.int32)
    assert np.array_equal(m.run_floor_div("atlas-a2", x, y), np.floor_divide(x, y))
    big = np.array([2 ** 24 + 1, -(2 ** 24) - 1, 2 ** 31 - 1], np.int32)
    ones = np.array([1, 1, 1], np.int32)      # 2**31 - 1 rounds to 2**31, saturated back by CAST_FLOOR
    assert m.run_floor_div("atlas-a2", big, ones).tolist() == [2 ** 24, -(2 ** 24), 2 ** 31 - 1]


def test_floor_div_specials_and_saturation():
    """A zero divisor: +-inf / NaN in float (D48), +-inf kept by float -> half CAST_FLOOR (the A2/A3's INF/NaN half
    mode, SPEC D6), NaN -> 0 and +-inf -> MAX / MIN in the integer Casts (D45); -128 // -1 saturates to 127 and
    INT_MIN // -1 to INT_MAX (D46, saturation by default); floor(-0.5) = -1, a zero quotient is +0 (7.3 step 5)."""
    _, m = _spec_and_module("floor_div")
    xf = np.array([1.0, -1.0, 0.0, -0.5, -0.0, 7.0, np.inf, np.nan], np.float32)
    yf = np.array([0.0, 0.0, 0.0, 1.0, 3.0, -2.0, 2.0, 1.0], np.float32)
    for dtype in (np.float32, np.float16, BF16):
        out = m.run_floor_div("atlas-a2", xf.astype(dtype), yf.astype(dtype))
        assert _same(out, m.floor_div_model(xf.astype(dtype), yf.astype(dtype))), dtype
        f = out.astype(np.float32)
        assert f[0] == np.inf and f[1] == -np.inf and np.isnan(f[2]) and f[3] == -1.0 and f[5] == -4.0
        assert _bits(np.float32(f[4])) == 0 and f[6] == np.inf and np.isnan(f[7])
    x8 = np.array([1, -1, 0, -128, -128, 127, -7], np.int8)
    y8 = np.array([0, 0, 0, -1, 1, -1, 2], np.int8)
    assert m.run_floor_div("atlas-a3", x8, y8).tolist() == [127, -128, 0, 127, -128, -127, -4]
    xu, yu = np.array([5, 0, 255], np.uint8), np.array([0, 0, 2], np.uint8)
    assert m.run_floor_div("atlas-a3", xu, yu).tolist() == [255, 0, 127]
    x32 = np.array([-2 ** 31, 5, 0, -2 ** 31], np.int32)
    y32 = np.array([-1, 0, 0, 1], np.int32)
    assert m.run_floor_div("atlas-a2", x32, y32).tolist() == [2 ** 31 - 1, 2 ** 31 - 1, 0, -2 ** 31]


def test_floor_div_narrow_floor_rounds_toward_minus_infinity():
    """float -> half / bfloat16 CAST_FLOOR of a floored quotient past the narrow type's integers (steps of 2 from
    2048): 3074 / 1.5 floors to 2049, which becomes 2048; 2564 / 1.25 floors to 2051, which becomes 2050 (RNE would
    give 2052); -3076 / 1.5 floors to -2051 and becomes -2052; a finite quotient past 65504 gives 65504 (D45: FLOOR
    gives +MAX), below -65504 -inf."""
    _, m = _spec_and_module("floor_div")
    x = np.array([3074, 2564, -3076, 60000, -60000], np.float16)
    y = np.array([1.5, 1.25, 1.5, 0.5, 0.5], np.float16)
    out = m.run_floor_div("atlas-a2", x, y)
    assert out.tolist() == [2048.0, 2050.0, -2052.0, 65504.0, -np.inf]
    assert _same(out, m.floor_div_model(x, y))
    xb = np.array([257, -257], BF16)     # 257 is not a bfloat16: it is 256; 257 / 1 stays 256
    yb = np.array([1, 1], BF16)
    assert _same(m.run_floor_div("atlas-a2", xb, yb), m.floor_div_model(xb, yb))


def test_floor_div_default_sizes_run_clean_under_the_sanitizer():
    for name in ("floor_div", "floor_div_int32", "floor_div_int8", "floor_div_uint8", "floor_div_half",
                 "floor_div_bf16"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("atlas-a2", k.make_inputs(20003, 0))) == [], name
    k, _ = _spec_and_module("floor_div_int8")
    assert _reports(lambda: k.run("atlas-a3", k.make_inputs(50003, 0)), "device-sync") == []


# kernels/onehot.py

def test_onehot_tiling():
    _, m = _spec_and_module("onehot")
    used, t = m.tiling("atlas-a2", 203, 10)                   # 26 blocks of 8 indices: 2 big cores of 4 blocks
    assert used == 8 and t["tileDataNum"] == 196608 // 32 // 2 // 3 * 8
    assert (t["tailBlockNum"], t["bigCoreDataNum"], t["smallCoreDataNum"], t["depth"]) == (2, 32, 24, 10)
    assert m.tiling("atlas-a2", 5, 3)[0] == 1


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("n, depth", [(203, 10), (37, 1), (70, 33), (101, 64), (1, 5)])
def test_onehot_is_the_numpy_model(device, n, depth):
    """Indices in [-2, depth + 2): inside a one, outside (negative or too large) a zero row; rows of depth int32
    DataCopyPad'ed one by one, including the padding's rows of the last core (never returned)."""
    _, m = _spec_and_module("onehot")
    x = np.random.default_rng(n * depth).integers(-2, depth + 2, n).astype(np.int32)
    z = m.run_onehot(device, x, depth)
    assert z.dtype == np.int32 and np.array_equal(z, m.onehot_model(x, depth))
    assert (z.sum(axis=1) == ((x >= 0) & (x < depth))).all()


def test_onehot_original_scalar_lane_numbers_race_and_the_ports_flags():
    """The original writes dLocal by SetValue and CompareScalar reads it with no flag (S -> V RAW), and the next
    index's SetValues follow the CompareScalar with none (V -> S WAR): the sanitizer reports both, on every core.
    The port's S_V / V_S pairs (original_sync=False) leave nothing to report; the values are the same."""
    _, m = _spec_and_module("onehot")
    x = np.arange(-3, 40, dtype=np.int32)
    outs = {}

    def run(original):
        outs[original] = m.run_onehot("atlas-a2", x, 10, original_sync=original)
    original = _reports(lambda: run(True))
    kinds = {(r.kind, r.instruction.api, r.earlier.api) for r in original}
    assert {r.check for r in original} == {"race"}
    assert kinds == {("RAW", "Compares", "SetValue"), ("WAR", "SetValue", "Compares")}, kinds
    assert {r.block for r in original} == set(range(6))      # 43 indices: 6 blocks of 8
    assert _reports(lambda: run(False)) == []
    assert np.array_equal(outs[True], outs[False]) and np.array_equal(outs[False], m.onehot_model(x, 10))


def test_onehot_original_lane_buffer_is_read_past_its_end(monkeypatch):
    """The A2/A3 high-dimensional Compare ignores its mask and compares a whole 256-byte repeat (SPEC-2 D44): with
    the original's dLocal of depthAlign int32 the read runs past the TBuf and is refused (OutOfBoundsError naming
    src0), with nothing written to GM; depth 64 fills the repeat and needs no change."""
    _, m = _spec_and_module("onehot")
    monkeypatch.setattr(m, "REPEAT_LANES", 0)                  # dBuf sized as the original: depthAlign lanes
    x = np.array([1, 2, 3], np.int32)
    z = np.zeros(8 * 10, np.int32)
    _, t = m.tiling("atlas-a2", 3, 10)
    gm_x = np.zeros(8, np.int32)
    gm_x[:3] = x
    with pytest.raises(aj.OutOfBoundsError, match="src0"):
        aj.launch(m.onehot, 1, "atlas-a2", gm_x, z, None, t)
    assert not z.any()
    assert np.array_equal(m.run_onehot("atlas-a2", np.arange(64, dtype=np.int32), 64), np.eye(64, dtype=np.int32))


def test_onehot_depth_past_one_repeat_reads_mask_bits_never_written():
    """depth 65: one compare repeat writes 8 bytes of bits (64 lanes); the Select of 65 lanes reads a ninth byte the
    kernel never wrote (the sanitizer's init check): an original limit, kept (the row of index 64 is undefined)."""
    _, m = _spec_and_module("onehot")
    x = np.array([0, 63, 64, 3], np.int32)
    reports = _reports(lambda: m.run_onehot("atlas-a2", x, 65))
    assert reports and {(r.check, r.instruction.api, r.operand) for r in reports} == {("init", "Select", "sel_mask")}


def test_onehot_default_sizes_run_clean_under_the_sanitizer():
    for name in ("onehot", "onehot_depth64"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("atlas-a3", k.make_inputs(k.default_size, 2))) == [], name
    k, _ = _spec_and_module("onehot")
    assert _reports(lambda: k.run("atlas-a2", k.make_inputs(45, 2)), "device-sync") == []


# kernels/maximum_v2.py

def test_maximum_v2_tiling():
    _, m = _spec_and_module("maximum_v2")
    # UB / 32 / 2 / (3 or 5) blocks: 1024 blocks (8192 floats) or 614 (9824 bfloat16, 19648 int8)
    assert [m.tiling("atlas-a2", 100003, d)[1]["tileDataNum"] for d in ("float", "int16", "bfloat16", "int8")] == \
        [8192, 16384, 9824, 19648]
    used, t = m.tiling("atlas-a2", 100003, "float")
    assert used == 8 and (t["finalBigTileNum"], t["bigTailDataNum"], t["tailBlockNum"]) == (2, 4312, 5)
    assert m.tiling("atlas-a2", 9, "int8")[0] == 1


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("name, n", [("maximum_v2", 100003), ("maximum_v2_int32", 100003),
                                     ("maximum_v2_int16", 200003), ("maximum_v2_half", 3), ("maximum_v2_bf16", 100003),
                                     ("maximum_v2_int8", 200003), ("maximum_v2_int8", 31)])
def test_maximum_v2_is_the_numpy_model(device, name, n):
    """Two tiles a core, big and small cores (the bfloat16 and int8 tiles longer than half a tile, which the
    original's TBufs cannot hold); integer extremes; +-inf, NaN and signed zeros for the float types."""
    k, m = _spec_and_module(name)
    inputs = k.make_inputs(n, n)
    assert _same(m.run_maximum_v2(device, inputs["x"], inputs["y"]), m.maximum_v2_model(inputs["x"], inputs["y"]))


def test_maximum_v2_signed_zero_nan_and_integer_extremes():
    """D41: max(-0, +0) = +0 in either order, a NaN operand gives NaN; integers compare as signed."""
    _, m = _spec_and_module("maximum_v2")
    x = np.array([-0.0, 0.0, np.nan, 1.0, -np.inf, 3.0], np.float32)
    y = np.array([0.0, -0.0, 1.0, np.nan, -1e4, np.inf], np.float32)
    for dtype in (np.float32, np.float16, BF16):
        out = m.run_maximum_v2("atlas-a2", x.astype(dtype), y.astype(dtype)).astype(np.float32)
        assert _bits(out[:2]).tolist() == [0, 0] and np.isnan(out[2:4]).all() and out[5] == np.inf, dtype
    for dtype in (np.int8, np.int16, np.int32):
        info = np.iinfo(dtype)
        xi = np.array([info.min, info.max, -1, 0], dtype)
        yi = np.array([info.max, info.min, 0, -1], dtype)
        assert m.run_maximum_v2("atlas-a3", xi, yi).tolist() == [info.max, info.max, 0, 0], dtype


def test_maximum_v2_original_buffers_are_refused():
    """original_buffers=True: float / half / int16 / int32 allocate 8 tiles of UB / 6 bytes, past the UB
    (OutOfBoundsError at InitBuffer, nothing written); bfloat16 / int8 view T-sized TBufs as float / half, so a tile
    longer than half of tileDataNum makes the first Cast run past tmpBuf0 (OutOfBoundsError naming Cast's count);
    shorter tiles fit and give the model's values."""
    _, m = _spec_and_module("maximum_v2")
    for dtype in (np.float32, np.float16, np.int16, np.int32):
        x = np.arange(100, dtype=dtype)
        z = np.zeros(104, dtype)
        _, t = m.tiling("atlas-a2", 100, m._dtype_name(x))
        with pytest.raises(aj.OutOfBoundsError, match="InitBuffer"):
            aj.launch(m.maximum_v2, 1, "atlas-a2", np.resize(x, 104), np.resize(x, 104), z, None, t,
                      m._dtype_name(x), True)
        assert not z.any()
    for dtype, n in ((BF16, 8 * 4913), (np.int8, 8 * 9825)):
        x = np.linspace(-100, 100, n).astype(dtype)
        y = x[::-1].copy()
        with pytest.raises(aj.OutOfBoundsError, match="Cast: parameter 'count'"):
            m.run_maximum_v2("atlas-a2", x, y, original_buffers=True)
        short = m.run_maximum_v2("atlas-a2", x[:8 * 4000], y[:8 * 4000], original_buffers=True)
        assert _same(short, m.maximum_v2_model(x[:8 * 4000], y[:8 * 4000]))


def test_maximum_v2_default_sizes_run_clean_under_the_sanitizer():
    for name in ("maximum_v2", "maximum_v2_int32", "maximum_v2_int16", "maximum_v2_half", "maximum_v2_bf16",
                 "maximum_v2_int8"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("atlas-a2", k.make_inputs(20003, 3))) == [], name
    k, _ = _spec_and_module("maximum_v2_bf16")
    assert _reports(lambda: k.run("atlas-a3", k.make_inputs(30001, 3)), "device-sync") == []
