"""The session-46m ports of ops-math Memory-API kernels (A2 / A3): kernels/truncate_div.py (TruncateDiv: mixed input
types through Casts and a UB -> UB DataCopy, DataCopyPad with DataCopyExtParams, Div, Mins / Maxs, the advanced Ceil
as counter-mode high-dim Casts over a PopStackBuffer'd chunk size and Floor as a count-form Cast; int64 on the scalar
unit), kernels/dot_v2.py (DotV2: InitGlobalMemory, SyncAll, per-tile Mul and count-form ReduceSum, the scalar
unit's accumulation, SetAtomicAdd of one 32-byte block) and kernels/accumulate_nv2.py (AccumulateNv2: a tensor list,
one TQueBind tile carved by operator[] and ReinterpretCast to the wider type, FetchEventID'd flag pairs). Each
against its numpy model bit for bit on both devices, against a float64 formula within the types' rounding, the host
tilings, tails, and each deviation's reason (the original's form run and reported by the sanitizer or refused)."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import sanitizer_reports as _reports, bits as _bits, same_bits as _same, spec_and_module as _spec_and_module

A2_A3 = ["atlas-a2", "atlas-a3"]
BF16 = ml_dtypes.bfloat16


# kernels/truncate_div.py

def test_truncate_div_tiling_cores_of_64_and_tiles_by_bytes_per_element():
    _, m = _spec_and_module("truncate_div")
    # 100003 elements: 8 cores of ceil(100003 / 8) = 12501 rounded up to 12544; (196608 - 8192) / 26 bytes = 7246
    # float elements rounded down to 64: 7232
    cores, t = m.tiling("atlas-a2", 100003, "float", "float")
    assert cores == 8 and t["coreLength"] == 12544 and t["tileLength"] == 7232
    # int8: 1 + 1 + 1 + 12 + 2 = 17 bytes an element: 11083 -> 11072; 3000 elements: 3 cores of 1024, the last 952
    assert m.tiling("atlas-a2", 100003, "int8", "int8")[1]["tileLength"] == 11072
    assert m.tiling("atlas-a2", 3000, "half", "float")[:1] == (3,) and \
        m.tiling("atlas-a2", 3000, "half", "float")[1]["coreLength"] == 1024
    # a core's work smaller than a tile: the tile is the core's length; below 1024 elements one core
    assert m.tiling("atlas-a2", 1000, "int32", "int32") == (1, dict(coreNum=1, totalLength=1000, coreLength=1024,
                                                                     tileLength=1024))
    # 8 cores but the rounding to 64 leaves the last empty: coreNum again = ceil(total / coreLength)
    assert m.tiling("atlas-a2", 8 * 1024 + 8, "float", "float")[0] == 8
    assert m.tiling("atlas-a2", 7 * 64 + 1, "float", "float")[0] == 1


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("x1, x2, n", [
    (np.float32, np.float32, 100003), (np.float16, np.float32, 3001), (np.float32, np.float16, 999),
    (np.float32, np.int32, 20011), (np.int32, np.float32, 77), (np.int32, np.int32, 50003),
    (np.float16, np.float16, 30001), (BF16, BF16, 1), (np.uint8, np.uint8, 40003), (np.int8, np.int8, 70001),
    (np.int16, np.int16, 9000), (np.int64, np.int64, 2049)])
def test_truncate_div_is_the_numpy_model(device, x1, x2, n):
    """Every combination of the tiling, several tiles a core (100003 floats: two tiles a core, the last short;
    70001 int8), a short single core, one element."""
    _, m = _spec_and_module("truncate_div")
    names = {np.dtype(v): k for k, v in m._NP.items()}
    inputs = m._make_inputs(names[np.dtype(x1)], names[np.dtype(x2)])(n, n)
    out = m.run_truncate_div(device, inputs["x1"], inputs["x2"])
    want = m.truncate_div_model(inputs["x1"], inputs["x2"])
    assert out.dtype == want.dtype and _same(out, want)


def test_truncate_div_is_the_formula_within_rounding():
    """Against float64 trunc(x1 / x2): exact for 8- and 16-bit integers, for int32 within 2**24 and wherever float
    division cannot cross an integer (|q| not within float rounding of one); half / bf16 within their rounding."""
    _, m = _spec_and_module("truncate_div")
    a = np.arange(-128, 128)
    x8, y8 = np.repeat(a, 256).astype(np.int8), np.tile(a, 256).astype(np.int8)
    keep = (y8 != 0) & ~((x8 == -128) & (y8 == -1))
    out = m.run_truncate_div("atlas-a2", x8[keep], y8[keep])
    assert np.array_equal(out, np.trunc(x8[keep] / y8[keep].astype(np.float64)).astype(np.int8))
    rng = np.random.default_rng(1)
    x = rng.integers(-2 ** 24, 2 ** 24, 5000).astype(np.int32)
    y = (rng.integers(1, 5000, 5000) * rng.choice([-1, 1], 5000)).astype(np.int32)
    assert np.array_equal(m.run_truncate_div("atlas-a3", x, y), (np.abs(x) // np.abs(y) * np.sign(x) * np.sign(y)))
    xf = rng.uniform(-1e4, 1e4, 20000).astype(np.float32)
    yf = rng.uniform(0.5, 30, 20000).astype(np.float32) * rng.choice([-1, 1], 20000).astype(np.float32)
    q = xf.astype(np.float64) / yf
    far = np.abs(q - np.rint(q)) > 1e-5 * np.maximum(1, np.abs(q))
    assert np.array_equal(m.run_truncate_div("atlas-a2", xf, yf)[far], np.trunc(q[far]).astype(np.float32))
    for dtype, rtol in ((np.float16, 2 ** -11), (BF16, 2 ** -8)):
        out = m.run_truncate_div("atlas-a2", xf.astype(dtype), yf.astype(dtype)).astype(np.float64)
        want = np.trunc(xf.astype(dtype).astype(np.float64) / yf.astype(dtype).astype(np.float64))
        assert np.all(np.abs(out - want) <= rtol * np.abs(want) + 1), dtype


def test_truncate_div_specials_signed_zeros_and_saturation():
    """0 divisors: +-inf, NaN in float (NaN -> 0 and +-inf -> MAX / MIN for integers, D45); a zero quotient is +0
    (ceil(-0.5) = -0 rounds to +0 by SPEC-2 7.3 step 5, min(-0, +0) = -0 by D41, and -0 + +0 = +0);
    -128 / -1 saturates to 127 (through half, CAST_RINT); int32 MIN / -1 to MAX; int64 0 for a zero divisor."""
    _, m = _spec_and_module("truncate_div")
    x = np.array([1.0, -1.0, 0.0, -0.5, -0.0, 7.0, -7.0, np.inf, np.nan, 2.5], np.float32)
    y = np.array([0.0, 0.0, 0.0, 1.0, 3.0, -2.0, 2.0, 2.0, 1.0, -np.inf], np.float32)
    out = m.run_truncate_div("atlas-a2", x, y)
    assert _same(out, m.truncate_div_model(x, y))
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2]) and np.isnan(out[8])
    assert _bits(out[[3, 4, 9]]).tolist() == [0, 0, 0] and out[5] == -3.0 and out[6] == -3.0 and out[7] == np.inf
    x8, y8 = np.array([1, -1, 0, -128, 127, -7], np.int8), np.array([0, 0, 0, -1, -1, 2], np.int8)
    assert m.run_truncate_div("atlas-a3", x8, y8).tolist() == [127, -128, 0, 127, -127, -3]
    x32 = np.array([-2 ** 31, 5, 0, -7], np.int32)
    y32 = np.array([-1, 0, 0, 2], np.int32)
    assert m.run_truncate_div("atlas-a2", x32, y32).tolist() == [2 ** 31 - 1, 2 ** 31 - 1, 0, -3]
    x64 = np.array([2 ** 62 + 1, -7, 7, 5, -2 ** 63], np.int64)
    y64 = np.array([3, 2, -2, 0, -1], np.int64)
    assert m.run_truncate_div("atlas-a2", x64, y64).tolist() == [(2 ** 62 + 1) // 3, -3, -3, 0, -2 ** 63]


def test_truncate_div_ceil_runs_in_stack_buffer_chunks():
    """The advanced Ceil's chunk: the stack buffer past the TPipe's buffers / 4, rounded down to 32 floats: a
    7232-float tile on the A2 leaves 188416 - 7232 * 26 bytes (and the 8192 reserve) for it, so each full tile's
    Ceil runs in more than one counter-mode chunk and a tail; every chunk's lanes are ceiled (model above)."""
    _, m = _spec_and_module("truncate_div")
    core = aj.Core("atlas-a2")
    with core:
        pipe = aj.TPipe()
        buf = aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(buf, 7232 * 26)
        ok, stack = aj.PopStackBuffer("uint8", aj.TPosition.LCM)
    split = stack.GetSize() // 4 // 32 * 32
    assert ok and 0 < split < 7232 and 7232 % split
    x = np.linspace(-5000.0, 5000.0, 7232 * 3).astype(np.float32)
    y = np.full(x.size, 7.0, np.float32)
    out = m.run_truncate_div("atlas-a2", x, y)
    assert _same(out, m.truncate_div_model(x, y))


def test_truncate_div_original_reads_lanes_past_the_copy():
    """The deviation's reason: the original converts clen = len rounded up to 64 lanes where DataCopyPad wrote len
    elements (rounded to 32 bytes): on a buffer's first use the rest is uninitialised (the sanitizer's init reports,
    one per input, at the Div that uses what the float path's UB -> UB DataCopy copied: session 64 follows a copy's
    uninitialised bytes to their use); the port's Duplicate'd zeros leave no report and the same outputs."""
    _, m = _spec_and_module("truncate_div")
    x = np.linspace(-9, 9, 1001).astype(np.float32)
    y = np.full(1001, 2.0, np.float32)
    outs = {}

    def run(zero_tail):
        outs[zero_tail] = m.run_truncate_div("atlas-a2", x, y, zero_tail=zero_tail)
    original = _reports(lambda: run(False))
    found = {(r.check, r.instruction.api, r.earlier.api) for r in original}
    assert original and found == {("init", "Div", "DataCopy")}
    assert len(original) == 2 and {r.operand for r in original} == {"src0", "src1"}
    assert _reports(lambda: run(True)) == []
    assert _same(outs[True], outs[False])


def test_truncate_div_default_sizes_run_clean_under_the_sanitizer():
    for name in ("truncate_div", "truncate_div_half_float", "truncate_div_int8", "truncate_div_int64"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("atlas-a2", k.make_inputs(3001, 0))) == [], name
    k, _ = _spec_and_module("truncate_div_bf16")
    assert _reports(lambda: k.run("atlas-a3", k.make_inputs(20001, 0)), "device-sync") == []


# kernels/dot_v2.py

def test_dot_v2_tiling_32_byte_blocks_and_tiles_of_a_tenth_of_the_ub():
    _, m = _spec_and_module("dot_v2")
    # 196608 / 32 / 2 / 5 = 614 blocks: 4912 floats, 9824 halves; 100003 floats = 12501 blocks, 5 big cores
    cores, t = m.tiling("atlas-a2", 100003, "float")
    assert cores == 8 and t["tileDataNum"] == 4912 and t["workGmSize"] == 8
    assert (t["tailBlockNum"], t["bigCoreDataNum"], t["smallCoreDataNum"]) == (5, 12504, 12496)
    assert (t["finalBigTileNum"], t["bigTailDataNum"]) == (3, 12504 - 2 * 4912)
    cores, t = m.tiling("atlas-a2", 50, "half")                 # 4 blocks: 4 cores of one block
    assert cores == 4 and t["smallCoreDataNum"] == 16 and t["workGmSize"] == 16 and t["finalSmallTileNum"] == 1
    tiles = m.core_tiles(100003, "float", *m.tiling("atlas-a2", 100003, "float")[::-1])
    assert sum(n for core in tiles for _, n in core) == 100008 and tiles[7][-1][0] + tiles[7][-1][1] == 100008


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, n", [(np.float32, 100003), (np.float32, 7), (np.float16, 50003),
                                      (np.float16, 1), (np.float32, 39297)])
def test_dot_v2_is_the_numpy_model(device, dtype, n):
    """Per tile the device's count-form ReduceSum tree, the scalar accumulation, the atomic adds in block order:
    several tiles a core, big and small cores, one short block, one element."""
    _, m = _spec_and_module("dot_v2")
    rng = np.random.default_rng(n)
    x, y = rng.uniform(-2, 2, n).astype(dtype), rng.uniform(-2, 2, n).astype(dtype)
    out = m.run_dot_v2(device, x, y)
    assert out.dtype == dtype and _same(out, m.dot_v2_model(device, x, y))


def test_dot_v2_is_the_formula_within_rounding():
    """Against the float64 dot product: float within a few float roundings of the sum of |x * y|; half within
    the half roundings of the per-tile sums and the additions of the tile and core partials."""
    _, m = _spec_and_module("dot_v2")
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal(60000).astype(np.float32), rng.standard_normal(60000).astype(np.float32)
    want = np.dot(x.astype(np.float64), y.astype(np.float64))
    scale = np.abs(x.astype(np.float64) * y).sum()
    assert abs(float(m.run_dot_v2("atlas-a2", x, y)[0]) - want) <= 2e-6 * scale
    xh, yh = rng.uniform(0, 1, 3000).astype(np.float16), rng.uniform(0, 1, 3000).astype(np.float16)
    want = np.dot(xh.astype(np.float64), yh.astype(np.float64))
    assert abs(float(m.run_dot_v2("atlas-a3", xh, yh)[0]) - want) <= 2 ** -7 * want
    # every product an integer: the sum is exact in every order
    xi, yi = rng.integers(-8, 8, 30000).astype(np.float32), rng.integers(-8, 8, 30000).astype(np.float32)
    assert m.run_dot_v2("atlas-a2", xi, yi)[0] == np.dot(xi.astype(np.int64), yi.astype(np.int64))


def test_dot_v2_clears_a_stale_workspace_and_sums_in_block_order():
    """Core 0's InitGlobalMemory clears the workspace the cores add into (stale 7.0 in run_dot_v2, 1e9 here) before
    the first SyncAll: the result does not depend on it, and the workspace ends holding the sum."""
    _, m = _spec_and_module("dot_v2")
    x = np.ones(20001, np.float32)
    assert m.run_dot_v2("atlas-a2", x, x)[0] == 20001.0
    ws = np.full(8, 1e9, np.float32)
    assert m.run_dot_v2("atlas-a2", x, x, workspace=ws)[0] == 20001.0 and ws[0] == 20001.0


def test_dot_v2_original_scalar_reads_and_copy_race():
    """The deviation's reason: the original's GetValues follow PipeBarrier<PIPE_V> only (V -> S RAW after ReduceSum
    and the accumulator's Duplicate, a WAW by SetValue), and the atomic copy of the SetValue'd accumulator follows an
    MTE2_MTE3 flag only (S -> MTE3 RAW; V -> MTE3 for its Duplicate'd lanes): the sanitizer reports them on every
    core; the port's V_S and S_MTE3 pairs leave no report; the result is the same."""
    _, m = _spec_and_module("dot_v2")
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(20001).astype(np.float32), rng.standard_normal(20001).astype(np.float32)
    outs = {}

    def run(original):
        outs[original] = m.run_dot_v2("atlas-a2", x, y, original_sync=original)
    original = _reports(lambda: run(True))
    pairs = {(r.instruction.api, r.earlier.api) for r in original}
    assert {r.check for r in original} == {"race"}
    assert pairs == {("GetValue", "ReduceSum"), ("GetValue", "Duplicate"), ("SetValue", "Duplicate"),
                     ("DataCopy", "SetValue"), ("DataCopy", "Duplicate")}, pairs
    assert {r.block for r in original} == set(range(8))
    assert _reports(lambda: run(False)) == []
    assert _same(outs[True], outs[False])


def test_dot_v2_default_sizes_run_clean_under_the_sanitizer():
    for name in ("dot_v2", "dot_v2_half"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("atlas-a3", k.make_inputs(k.default_size, 1))) == [], name
    k, _ = _spec_and_module("dot_v2_half")
    assert _reports(lambda: k.run("atlas-a2", k.make_inputs(30011, 1)), "device-sync") == []


# kernels/accumulate_nv2.py

def test_accumulate_nv2_tiling_blocks_and_cores():
    _, m = _spec_and_module("accumulate_nv2")
    # 32-bit: UB / 32 / 2 = 3072 blocks a tile (24576 floats); 100003 floats over ceil(100003 / 1024) = 98 -> 8 cores
    cores, t = m.tiling("atlas-a2", 100003, "float", 4)
    assert cores == 8 and t["tileDataNum"] == 24576 and t["num"] == 4
    assert (t["tailBlockNum"], t["bigCoreDataNum"], t["smallCoreDataNum"]) == (5, 12504, 12496)
    # 16-bit: 512-byte blocks, UB / 512 / 5 = 76 blocks (19456 halves); int8 2048 elements a core unit
    cores, t = m.tiling("atlas-a2", 50003, "half", 5)
    assert t["tileDataNum"] == 19456 and (t["bigCoreDataNum"], t["smallCoreDataNum"]) == (6400, 6144)
    assert m.tiling("atlas-a2", 5000, "int8", 3)[0] == 3 and m.tiling("atlas-a2", 5000, "float", 3)[0] == 5


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, num, n", [(np.float32, 4, 100003), (np.float32, 2, 31), (np.int32, 3, 20011),
                                           (np.float16, 5, 50003), (np.float16, 2, 1), (np.float16, 1, 777),
                                           (np.int8, 3, 50003), (np.uint8, 4, 4097), (np.int32, 1, 30001)])
def test_accumulate_nv2_is_the_numpy_model(device, dtype, num, n):
    """N = 1, 2 and more tensors, every type, several cores, short tiles and single elements."""
    _, m = _spec_and_module("accumulate_nv2")
    names = {np.dtype(v): k for k, v in m._NP.items()}
    inputs = m._make_inputs(names[np.dtype(dtype)], num)(n, n + num)
    xs = m._xs(inputs)
    out = m.run_accumulate_nv2(device, xs)
    assert out.dtype == dtype and _same(out, m.accumulate_nv2_model(xs))


def test_accumulate_nv2_is_the_formula_within_rounding_and_saturates_int8():
    """float within N float roundings of the float64 sum; half summed in float, so within one half rounding of
    it (plus the float roundings); int32 wraps; int8 sums in half exactly and saturates on the Cast back."""
    _, m = _spec_and_module("accumulate_nv2")
    rng = np.random.default_rng(2)
    xs = [rng.standard_normal(20000).astype(np.float32) for _ in range(6)]
    want = np.sum([x.astype(np.float64) for x in xs], axis=0)
    scale = np.sum([np.abs(x.astype(np.float64)) for x in xs], axis=0)
    assert np.all(np.abs(m.run_accumulate_nv2("atlas-a2", xs) - want) <= 6 * 2 ** -24 * scale)
    hs = [x.astype(np.float16) for x in xs]
    want = np.sum([h.astype(np.float64) for h in hs], axis=0)
    out = m.run_accumulate_nv2("atlas-a3", hs).astype(np.float64)
    assert np.all(np.abs(out - want) <= 2 ** -11 * np.abs(want) + 1e-6 * scale + 2 ** -24)
    big = [np.full(64, 2 ** 30, np.int32)] * 3
    assert m.run_accumulate_nv2("atlas-a2", big).tolist() == [-2 ** 30] * 64          # 3 * 2**30 wraps
    i8 = [np.array([100, -100, 50, 127] * 16, np.int8)] * 3
    assert m.run_accumulate_nv2("atlas-a2", i8).tolist() == [127, -128, 127, 127] * 16
    u8 = [np.array([200, 10] * 32, np.uint8)] * 2
    assert m.run_accumulate_nv2("atlas-a2", u8).tolist() == [255, 20] * 32


def test_accumulate_nv2_single_tensor_adds_a_plus_zero():
    """N = 1: Duplicate 0 and Add(y, x, 0): -0 + +0 = +0, so the copy is not bit for bit; NaN stays NaN."""
    _, m = _spec_and_module("accumulate_nv2")
    for dtype in (np.float32, np.float16):
        x = np.array([-0.0, 1.5, np.nan, -np.inf] * 16, dtype)
        out = m.run_accumulate_nv2("atlas-a2", [x])
        assert _bits(out[:1])[0] == 0 and out[1] == 1.5 and np.isnan(out[2]) and out[3] == -np.inf


def test_accumulate_nv2_original_widening_cast_over_its_own_source_is_refused():
    """The deviation's reason: the original's second tensor is copied into x3Local and Cast into xCast, which covers
    x2Local and x3Local: a half -> float (int8 -> half) Cast whose destination overlaps its source, an OverlapError
    by SPEC-2 D34 before anything is written. The 32-bit path casts nothing and runs in both forms."""
    _, m = _spec_and_module("accumulate_nv2")
    for dtype in (np.float16, np.int8):
        xs = [np.ones(3000, dtype)] * 3
        with pytest.raises(aj.OverlapError, match="Cast"):
            m.run_accumulate_nv2("atlas-a2", xs, original_overlap=True)
    xs = [np.ones(3000, np.float32)] * 3                        # the 32-bit path has no Cast: both forms run
    assert m.run_accumulate_nv2("atlas-a2", xs, original_overlap=True).tolist() == [3.0] * 3000


def test_accumulate_nv2_default_sizes_run_clean_under_the_sanitizer():
    for name in ("accumulate_nv2", "accumulate_nv2_half", "accumulate_nv2_int8", "accumulate_nv2_int32_single"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("atlas-a2", k.make_inputs(20011, 1))) == [], name
    k, _ = _spec_and_module("accumulate_nv2_half")
    assert _reports(lambda: k.run("atlas-a3", k.make_inputs(50003, 1)), "device-sync") == []


# kernels/sign.py

def test_sign_tiling_tiles_of_a_fifth_of_the_ub():
    _, m = _spec_and_module("sign")
    # 196608 / 32 / 5 = 1228 blocks: 9824 floats, 19648 halves; bfloat16 / 9: 682 blocks, 10912 elements
    cores, t = m.tiling("atlas-a2", 50003, "float")
    assert cores == 8 and t["tileDataNum"] == 9824 and (t["tailBlockNum"], t["smallCoreDataNum"]) == (3, 6248)
    assert m.tiling("atlas-a2", 50003, "bfloat16")[1]["tileDataNum"] == 10912
    assert m.tiling("atlas-a2", 19648, "half")[0] == 1 and m.tiling("atlas-a2", 19649, "half")[0] == 8
    cores, t = m.tiling("atlas-a2", 80000, "float")             # a full tile and a short one a core
    assert (t["finalSmallTileNum"], t["smallTailDataNum"]) == (2, 10000 - 9824)


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("name, n", [("sign", 80000), ("sign", 77), ("sign_half", 160000), ("sign_half", 1),
                                     ("sign_bf16", 100003), ("sign_int32", 50003), ("sign_int16", 3)])
def test_sign_is_the_numpy_model(device, name, n):
    """Full tiles whose Sign runs in several counter-mode chunks and a tail chunk (80000 floats: 3 chunks of 3200
    and one of 224 a full tile; 160000 halves), short tiles, one element; zeros, -0, NaN, +-inf, subnormals."""
    k, m = _spec_and_module(name)
    x = k.make_inputs(n, n)["x"]
    out = m.run_sign(device, x)
    assert out.dtype == x.dtype and _same(out, m.sign_model(x))


def test_sign_is_the_formula_and_zero_nan_give_plus_zero():
    """numpy's sign wherever it is defined the same way; -0, +0 and NaN give +0 (both compares false: 1 + -1);
    subnormals and +-inf their sign; integers clamp."""
    _, m = _spec_and_module("sign")
    x = np.array([-0.0, 0.0, np.nan, np.inf, -np.inf, 1e-45, -1e-45, 3.0, -2.5] * 8, np.float32)
    for dtype in (np.float32, np.float16, BF16):
        out = m.run_sign("atlas-a2", x.astype(dtype))
        f = out.astype(np.float32)[:9]
        assert _bits(out[:3]).tolist() == [0, 0, 0], dtype
        want = [1.0, -1.0] + ([1.0, -1.0] if dtype == np.float32 else [0.0, 0.0]) + [1.0, -1.0]
        assert f[3:].tolist() == want, dtype                # 1e-45 is 0 in half and bfloat16
    rng = np.random.default_rng(0)
    xf = rng.standard_normal(30000).astype(np.float32)
    assert np.array_equal(m.run_sign("atlas-a3", xf), np.sign(xf))
    xi = rng.integers(-2 ** 31, 2 ** 31, 30000).astype(np.int32)
    assert np.array_equal(m.run_sign("atlas-a3", xi), np.sign(xi))


def test_sign_original_mask_sequence_is_refused_by_d31():
    """Deviation 2: SPEC-2 D31 leaves the mask register undefined after an A2 / A3 Compare, so the original's second
    Compare with isSetMask false is a StateError naming D31 (the devkit's A2 Compare touches no mask register)."""
    _, m = _spec_and_module("sign")
    for device in A2_A3:
        with pytest.raises(aj.StateError, match="D31"):
            m.run_sign(device, np.linspace(-3, 3, 1001).astype(np.float32), original_mask=True)


def test_sign_original_buffers_compare_past_the_tile():
    """Deviation 3: with the original's buffers a full float tile's last chunk (32 floats) is compared as a whole
    64-float repeat, 128 bytes past the input tile (OutOfBoundsError naming Compare); a short tile's repeats read
    lanes nothing wrote, whose bits no Select uses (session 66: followed to the bits, as the count form's, no
    report; the init reports at both Compares before); the port's longer, zeroed buffers give the same outputs."""
    _, m = _spec_and_module("sign")
    x = np.linspace(-3, 3, 80000).astype(np.float32)
    with pytest.raises(aj.OutOfBoundsError, match="Compare"):
        m.run_sign("atlas-a2", x, original_buffers=True)
    h = np.linspace(-3, 3, 1001).astype(np.float16)
    outs = {}

    def run(original):
        outs[original] = m.run_sign("atlas-a2", h, original_buffers=original)
    original = _reports(lambda: run(True))
    assert original == []
    assert _reports(lambda: run(False)) == []
    assert _same(outs[True], outs[False])


def test_sign_default_sizes_run_clean_under_the_sanitizer():
    for name in ("sign", "sign_half", "sign_bf16", "sign_int32", "sign_int16"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("atlas-a2", k.make_inputs(20011, 0))) == [], name
    k, _ = _spec_and_module("sign")
    assert _reports(lambda: k.run("atlas-a3", k.make_inputs(80000, 0)), "device-sync") == []


# kernels/log_add_exp.py

def test_log_add_exp_tiling_ub_factor_rows_and_strides():
    _, m = _spec_and_module("log_add_exp")
    # float: 196608 / 4 / 9 = 5461 -> 5456 (the original's / 8: 6144, nine buffers of it past the UB); 16-bit / 10
    used, t = m.tiling("atlas-a2", (100003,), (100003,), "float")
    assert used == 8 and t["ubFactor"] == 5456 and t["blockFactor"] == 12501 and t["needBroadcast"] == 0
    assert m.tiling("atlas-a2", (10,), (10,), "float", original_ub=True)[1]["ubFactor"] == 6144
    assert m.tiling("atlas-a2", (10,), (10,), "half")[1]["ubFactor"] == 4912
    # (M, N) against (1, N): blockFactor rounded up to whole rows; y the row -> expandSrcIsX 0
    used, t = m.tiling("atlas-a2", (1001, 48), (1, 48), "bfloat16")
    assert (t["useBinaryDoubling"], t["expandSrcIsX"], t["innerSize"]) == (1, 0, 48)
    assert t["blockFactor"] == 126 * 48 and used == 8
    assert m.tiling("atlas-a2", (1, 48), (7, 48), "float")[1]["expandSrcIsX"] == 1
    # the general path: (M, 1) + (1, N) and a 3-D broadcast, strides 0 along broadcast dimensions
    _, t = m.tiling("atlas-a2", (301, 1), (1, 48), "float")
    assert (t["useBinaryDoubling"], t["needBroadcast"]) == (0, 1)
    assert t["xStrides"][:2] == [1, 0] and t["yStrides"][:2] == [0, 1] and t["outStrides"][:2] == [48, 1]
    _, t = m.tiling("atlas-a2", (2, 1, 5), (3, 1), "float")
    assert t["dimNum"] == 3 and t["xStrides"][:3] == [5, 0, 1] and t["yStrides"][:3] == [0, 1, 0]


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, xs, ys", [
    (np.float32, (100003,), (100003,)), (np.float16, (77,), (77,)), (BF16, (30001,), (30001,)),
    (BF16, (1001, 48), (1, 48)), (np.float32, (1, 64), (301, 64)), (np.float16, (9, 16), (1, 16)),
    (np.float32, (301, 1), (1, 48)), (np.float16, (2, 1, 5), (3, 1)), (np.float32, (3, 7), (7,))])
def test_log_add_exp_is_the_numpy_model(device, dtype, xs, ys):
    """The three CopyIn paths: no broadcast (several tiles a core at 100003 floats), a (1, N) row against (M, N) on
    either side (the row's wrapped pieces: rows of 48 over tiles of 4912 or 5456 elements), the general per-element
    path ((M, 1) + (1, N), a 3-D broadcast, and (3, 7) + (7,), which the (1, N) path does not take: x has 2 dims,
    y one, right-aligned to (1, 7) -> it does)."""
    _, m = _spec_and_module("log_add_exp")
    rng = np.random.default_rng(len(xs) + xs[0])
    x = (rng.standard_normal(xs) * 4).astype(dtype)
    y = (rng.standard_normal(ys) * 4).astype(dtype)
    out = m.run_log_add_exp(device, x, y)
    want = m.log_add_exp_model(x, y)
    assert out.shape == want.shape and _same(out, want)


def test_log_add_exp_is_the_formula_within_rounding_and_specials():
    """Against numpy's float64 logaddexp: float within a few float roundings, the 16-bit types within their own
    rounding. Specials: x = y = +-inf gives +-inf in float (the fix loop) and NaN in half / bfloat16 (no loop); +inf
    and -inf give +inf; a NaN gives NaN; x = y gives x + ln 2."""
    _, m = _spec_and_module("log_add_exp")
    rng = np.random.default_rng(4)
    x, y = (rng.standard_normal(20000) * 8).astype(np.float32), (rng.standard_normal(20000) * 8).astype(np.float32)
    want = np.logaddexp(x.astype(np.float64), y.astype(np.float64))
    assert np.allclose(m.run_log_add_exp("atlas-a2", x, y), want, rtol=4 * 2 ** -24, atol=2 ** -22)
    for dtype, rtol in ((np.float16, 2 ** -11), (BF16, 2 ** -8)):
        xd, yd = x.astype(dtype), y.astype(dtype)
        want = np.logaddexp(xd.astype(np.float64), yd.astype(np.float64))
        out = m.run_log_add_exp("atlas-a3", xd, yd).astype(np.float64)
        assert np.allclose(out, want, rtol=rtol + 2 ** -20, atol=2 ** -20), dtype
    sx = np.array([np.inf, -np.inf, np.inf, np.nan, 1.5, 0.0, -0.0, 3.0] * 8, np.float32)
    sy = np.array([np.inf, -np.inf, -np.inf, 1.0, 1.5, -0.0, -0.0, -100.0] * 8, np.float32)
    for dtype in (np.float32, np.float16, BF16):
        out = m.run_log_add_exp("atlas-a2", sx.astype(dtype), sy.astype(dtype))
        assert _same(out, m.log_add_exp_model(sx.astype(dtype), sy.astype(dtype))), dtype
        f = out.astype(np.float32)
        if dtype == np.float32:
            assert f[0] == np.inf and f[1] == -np.inf
            assert f[4] == np.float32(1.5 + np.float32(np.log(2.0))) and f[7] == 3.0
        else:
            assert np.isnan(f[0]) and np.isnan(f[1])
        assert f[2] == np.inf and np.isnan(f[3])


def test_log_add_exp_original_float_tiling_overflows_the_ub():
    """Deviation 1: the original's ubFactor (UB / 4 / 8) for the nine float buffers Init places: the last TBuf's
    InitBuffer is refused (OutOfBoundsError naming InitBuffer)."""
    _, m = _spec_and_module("log_add_exp")
    x = np.ones(100, np.float32)
    with pytest.raises(aj.OutOfBoundsError, match="InitBuffer"):
        m.run_log_add_exp("atlas-a2", x, x, original_ub=True)


def test_log_add_exp_original_scalar_accesses_race():
    """Deviation 2: the fix loop's GetValues after Max and Add with no flag (V -> S RAW on every element) and its
    SetValues after Add (WAW) under SPEC-2 10.4; under the device's synchronisation also the general path's
    SetValues before Max (S -> V) and the fix loop's SetValues before the copy-out (S -> MTE3, where a loop writes);
    the port's pairs leave neither."""
    _, m = _spec_and_module("log_add_exp")
    x = np.random.default_rng(1).standard_normal(1001).astype(np.float32)
    y = x.copy()
    x[::7], y[::7] = np.inf, np.inf
    reports = _reports(lambda: m.run_log_add_exp("atlas-a2", x, y, original_sync=True))
    assert {(r.check, r.instruction.api, r.earlier.api) for r in reports} == {
        ("race", "GetValue", "Max"), ("race", "GetValue", "Add"), ("race", "SetValue", "Add")}
    reports = _reports(lambda: m.run_log_add_exp("atlas-a2", x, y, original_sync=True), "report,device-sync")
    assert ("SetValue", "DataCopyPad") in {(r.earlier.api, r.instruction.api) for r in reports}
    xo = np.random.default_rng(2).standard_normal((21, 1)).astype(np.float32)
    yo = np.random.default_rng(3).standard_normal((1, 48)).astype(np.float32)
    reports = _reports(lambda: m.run_log_add_exp("atlas-a2", xo, yo, original_sync=True), "report,device-sync")
    assert ("SetValue", "Max") in {(r.earlier.api, r.instruction.api) for r in reports}
    for a, b in ((x, y), (xo, yo)):
        assert _reports(lambda: m.run_log_add_exp("atlas-a3", a, b), "report,device-sync") == []


def test_log_add_exp_row_path_needs_32_byte_rows():
    """Deviation 3 (not patched): the (1, N) path DataCopyPads the row's pieces to UB addresses filled * sizeof(T)
    bytes in; a row of 20 floats puts the second piece 80 bytes in: AlignmentError (SPEC-2 9.1), as the device's
    DataCopyPad needs a 32-byte aligned UB address."""
    _, m = _spec_and_module("log_add_exp")
    x, y = np.ones((30, 20), np.float32), np.ones((1, 20), np.float32)
    with pytest.raises(aj.AlignmentError, match="DataCopyPad"):
        m.run_log_add_exp("atlas-a2", x, y)


def test_log_add_exp_default_sizes_run_clean_under_the_sanitizer():
    for name in ("log_add_exp", "log_add_exp_half", "log_add_exp_bf16_row", "log_add_exp_outer"):
        k, _ = _spec_and_module(name)
        inputs = k.make_inputs(48 * 41, 1)
        assert _reports(lambda: k.run("atlas-a2", inputs)) == [], name
        assert _reports(lambda: k.run("atlas-a3", inputs), "report,device-sync") == [], name
