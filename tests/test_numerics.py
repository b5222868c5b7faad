"""Exhaustive bit-level tests of the 16-bit helpers (DESIGN 3): all 65536 patterns, every rounding midpoint."""
import ml_dtypes
import numpy as np
import pytest
from numba import njit

from ascend_jit.jit import numerics as nm
from ascend_jit.reference import numerics as ref

ALL16 = np.arange(65536, dtype=np.uint32).astype(np.uint16)
HALVES = ALL16.view(np.float16)
FINITE = ~np.isnan(HALVES) & ~np.isinf(HALVES)


@njit
def _decode_all(bits, out):
    for i in range(bits.size):
        out[i] = nm.half_bits_to_f32(bits[i])


@njit
def _encode_all(vals, out):
    for i in range(vals.size):
        out[i] = nm.f32_to_half_bits(vals[i])


@njit
def _round_all(vals, sat, out):
    for i in range(vals.size):
        out[i] = nm.half_store_bits(nm.round_half(vals[i], sat))


@njit
def _bf16_encode_all(vals, out):
    for i in range(vals.size):
        out[i] = nm.f32_to_bf16_bits(vals[i])


@njit
def _bf16_decode_all(bits, out):
    for i in range(bits.size):
        out[i] = nm.bf16_bits_to_f32(bits[i])


def bits_equal(a, b, nan_equal=True):
    """Bitwise equality distinguishing -0/+0; NaN positions compared on their own."""
    a, b = np.asarray(a), np.asarray(b)
    an, bn = np.isnan(a), np.isnan(b)
    assert np.array_equal(an, bn)
    ua = a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint16)
    ub = b.view(np.uint32 if b.dtype.itemsize == 4 else np.uint16)
    assert np.array_equal(ua[~an], ub[~bn])


def test_decode_every_half_pattern():
    out = np.empty(65536, np.float32)
    _decode_all(ALL16, out)
    bits_equal(out, HALVES.astype(np.float32))
    assert out.view(np.uint32)[0x8000] == 0x80000000  # -0 stays -0
    assert out[0x0001] == np.float32(2.0 ** -24)       # smallest subnormal kept (D8)


def test_python_fallback_matches_compiled_on_every_pattern():
    compiled = np.empty(65536, np.float32)
    _decode_all(ALL16, compiled)
    python = np.array([nm.half_bits_to_f32(b) for b in ALL16[::97]], np.float32)
    bits_equal(python, compiled[::97])


def test_encode_round_trips_every_half():
    vals = HALVES.astype(np.float32)
    out = np.empty(65536, np.uint16)
    _encode_all(vals, out)
    assert np.array_equal(out[FINITE | np.isinf(HALVES)], ALL16[FINITE | np.isinf(HALVES)])
    assert np.isnan(out[np.isnan(HALVES)].view(np.float16)).all()


def _midpoints():
    """Every midpoint between adjacent finite halves (exact in float32), and its float32 neighbours."""
    pos = np.arange(0, 0x7C00, dtype=np.uint16).view(np.float16).astype(np.float64)
    mids = (pos[:-1] + pos[1:]) / 2
    mids = np.concatenate([mids, [65520.0]]).astype(np.float32)  # 65520 = MAX + half-ulp: ties away to inf
    assert np.array_equal(mids.astype(np.float64)[:-1], (pos[:-1] + pos[1:]) / 2)
    around = np.concatenate([mids, np.nextafter(mids, np.float32(np.inf)), np.nextafter(mids, np.float32(0))])
    return np.concatenate([around, -around])


def test_encode_every_rounding_midpoint_ties_to_even():
    vals = _midpoints()
    out = np.empty(vals.size, np.uint16)
    _encode_all(vals, out)
    with np.errstate(over="ignore"):
        expected = vals.astype(np.float16).view(np.uint16)  # numpy: RNE, IEEE overflow
    assert np.array_equal(out, expected)
    encoded = out[: vals.size // 6]
    finite = ~np.isinf(encoded.view(np.float16))
    assert (encoded[finite] & 1 == 0).all()  # ties go to the even mantissa


def test_encode_random_float32_against_ml_dtypes():
    rng = np.random.default_rng(1)
    bits = rng.integers(0, 2**32, 400_000, dtype=np.uint64).astype(np.uint32)
    vals = bits.view(np.float32)
    vals = vals[~np.isnan(vals)]
    out = np.empty(vals.size, np.uint16)
    _encode_all(vals, out)
    with np.errstate(over="ignore"):
        assert np.array_equal(out, vals.astype(np.float16).view(np.uint16))


@pytest.mark.parametrize("sat", [False, True])
def test_round_half_overflow_modes_every_pattern(sat):
    vals = np.concatenate([HALVES.astype(np.float32), _midpoints()])
    out = np.empty(vals.size, np.uint16)
    _round_all(vals, sat, out)
    with np.errstate(over="ignore"):
        r = vals.astype(np.float16)
    if sat:  # SPEC 5.2: inf -> +-65504, NaN -> +0
        r = np.where(np.isnan(r), np.float16(0), r)
        r = np.clip(r, np.float16(-65504), np.float16(65504))
        assert not np.isnan(out.view(np.float16)).any()
    else:
        r = np.where(np.isnan(r), np.float16(np.nan), r)
        assert (out[np.isnan(out.view(np.float16))] == 0x7E00).all()  # canonical NaN
    bits_equal(out.view(np.float16), r)


def add_run(kind, sat_half, sat_int, out, a, b, n):
    """The element-wise engine's binary lane walk with the Add op code, on packed runs."""
    from ascend_jit.jit import elementwise as K
    flags = (K.SAT_HALF if sat_half else 0) | (K.SAT_INT if sat_int else 0)
    classes = ((0, None, None) if kind == K.KIND_HALF else (None, 0, None) if kind in (K.KIND_FLOAT, K.KIND_BF16)
               else (None, None, K.INT_WIDTHS[out.size // n]))  # the kernels' dtype-class markers (half: the chunk
    # path on halves; an integer kind: its element width's marker)
    K.binary_run(K.ADD, kind, flags, out, a, b, 0, n, np.empty((3, K.CHUNK), np.float32),
                 np.empty((3, K.CHUNK), np.int64), *classes)


def test_half_add_against_reference_and_numpy_pairs():
    """Every half against 48 partners (specials included), bits compared with numpy's float16 add."""
    rng = np.random.default_rng(7)
    partners = np.concatenate([rng.integers(0, 65536, 40), [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7BFF, 0xFBFF, 0x0001,
                                                            0x7E00]]).astype(np.uint16)
    a = np.repeat(ALL16, partners.size)
    b = np.tile(partners, 65536)
    out = np.empty(a.size, np.uint16)
    add_run(0, False, False, out.view(np.uint8), a.view(np.uint8), b.view(np.uint8), a.size)
    with np.errstate(all="ignore"):
        expected = (a.view(np.float16) + b.view(np.float16))
    bits_equal(out.view(np.float16), expected)
    sample = rng.integers(0, a.size, 3000)
    for k in sample:
        r = ref.add("half", float(a.view(np.float16)[k]), float(b.view(np.float16)[k]))
        assert ref.encode("half", r) == out[k].tobytes()


def test_bfloat16_every_pattern():
    out = np.empty(65536, np.float32)
    _bf16_decode_all(ALL16, out)
    bits_equal(out, ALL16.view(ml_dtypes.bfloat16).astype(np.float32))
    rng = np.random.default_rng(3)
    vals = np.concatenate([out[~np.isnan(out)], rng.standard_normal(100_000).astype(np.float32) * 1e30])
    enc = np.empty(vals.size, np.uint16)
    _bf16_encode_all(vals, enc)
    assert np.array_equal(enc, vals.astype(ml_dtypes.bfloat16).view(np.uint16))


@pytest.mark.parametrize("dtype,sat,a,b,expected", [
    ("int16", False, 32767, 32767, -2), ("int16", True, 32767, 32767, 32767), ("int16", False, -32768, -32768, 0),
    ("int16", True, -32768, -32768, -32768), ("int32", False, 2**31 - 1, 2**31 - 1, -2),
    ("int32", True, -2**31, -2**31, -2**31), ("uint16", False, 65535, 1, 0), ("int8", False, 127, 1, -128),
    ("uint64", False, 2**64 - 1, 2, 1), ("int64", False, 2**63 - 1, 1, -2**63)])
def test_integer_wrap_and_clamp(dtype, sat, a, b, expected):
    from ascend_jit import dtypes
    d = dtypes.resolve(dtype)
    x = np.array([a], d.np_dtype)
    y = np.array([b], d.np_dtype)
    out = np.zeros(1, d.np_dtype)
    add_run(d.kind, False, sat, out.view(np.uint8), x.view(np.uint8), y.view(np.uint8), 1)
    assert int(out[0]) == expected == ref.add(dtype, a, b, sat_int=sat)
