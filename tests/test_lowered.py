"""The helpers compiled through jit/lowered.py: each compiled call gives what its plain Python function (the
NUMBA_DISABLE_JIT path) gives, bit for bit, over edge values of every argument type the kernels pass."""
import itertools

import numpy as np
import pytest
from numba import njit

from ascend_jit.jit import addressing as ad
from ascend_jit.jit import lowered as lw
from ascend_jit.jit import numerics as nm
from ascend_jit.jit import reg as rk
from ascend_jit.jit import reg_move as mv
from ascend_jit.jit import reg_ops as ro
from ascend_jit.jit import ubview


def _bits(x):
    """A scalar's type and bit pattern (-0.0 and 0.0 differ, NaN equals NaN)."""
    x = np.asarray(x)
    return x.dtype, x.tobytes()


@njit
def _smaller(a, b):
    return lw.smaller(a, b)


@njit
def _larger(a, b):
    return lw.larger(a, b)


@njit
def _builtin_min(a, b):
    return min(a, b)


@njit
def _builtin_max(a, b):
    return max(a, b)


_FLOATS = (np.nan, -np.inf, -65504.0, -1.5, -0.0, 0.0, 1e-45, 2.5, np.inf)
_INTS = (-2**63, -2**31, -5, -1, 0, 1, 63, 200, 2**31 - 1, 2**32 - 1, 2**63 - 1, 2**64 - 1)


def _values(dtype):
    """Edge values of a numpy scalar type: its floats, or the ints it holds."""
    if np.dtype(dtype).kind == "f":
        return [dtype(v) for v in _FLOATS]
    info = np.iinfo(dtype)
    return [dtype(v) for v in _INTS if info.min <= v <= info.max]


# one compiled signature per pair of types (each pair compiles four functions): the kernels' pairs and the unifying
# ones (uint64 with int64 is float64 in numba, as for the builtins)
TYPE_PAIRS = [(np.float32, np.float32), (np.float64, np.float32), (np.float64, np.float64), (np.int64, np.int64),
              (np.int32, np.int64), (np.uint32, np.int64), (np.uint64, np.uint64), (np.uint8, np.int32),
              (np.uint64, np.int64)]


@pytest.mark.parametrize("ta, tb", TYPE_PAIRS, ids=lambda t: np.dtype(t).name)
def test_smaller_and_larger_are_pythons_min_and_max_as_numba_types_them(ta, tb):
    """The first argument unless the second compares less (greater): a NaN first argument is kept, min(-0.0, 0.0)
    is -0.0; the result has numba's unified type of the two (numba's builtin min/max, which they replace)."""
    for a, b in itertools.product(_values(ta), _values(tb)):
        for compiled, builtin, plain in ((_smaller, _builtin_min, min), (_larger, _builtin_max, max)):
            got = compiled(a, b)
            assert _bits(got) == _bits(builtin(a, b))
            if ta is tb:  # numba returns a float32 as a Python float: compared in the plain result's type
                want = plain(a, b)
                assert _bits(np.asarray(got).astype(np.asarray(want).dtype)) == _bits(want)


@njit
def _new_arrays(n, witness):
    return lw.zeroed_array(n, np.uint8), lw.empty_array((2, n), np.float32), lw.zeroed_array(np.uint32(n), type(witness))


def test_new_arrays_have_the_shape_dtype_and_zeros_numpy_gives():
    zeros, empty, typed = _new_arrays(5, np.int64(1))
    assert zeros.dtype == np.uint8 and zeros.shape == (5,) and not zeros.any() and zeros.flags.c_contiguous
    assert empty.dtype == np.float32 and empty.shape == (2, 5)
    assert typed.dtype == np.int64 and typed.shape == (5,) and not typed.any()
    plain = lw.zeroed_array(5, np.uint8), lw.empty_array((2, 5), np.float32)
    assert plain[0].dtype == zeros.dtype and plain[1].shape == empty.shape


def test_a_negative_extent_is_numpys_error_compiled_and_plain():
    with pytest.raises(ValueError, match="negative dimensions"):
        _new_arrays(-1, np.int64(1))
    with pytest.raises(ValueError, match="negative dimensions"):
        lw.zeroed_array(-1, np.uint8)


@njit
def _scratch_sums(n, rounds):
    """Two scratch arrays filled and read in a loop: each is its own stack slot, reused by every round."""
    total = 0.0
    for k in range(rounds):
        x, y = lw.scratch_array(128, np.float32), lw.scratch_array(128, np.float32)
        for i in range(n):
            x[i] = np.float32(i + k)
            y[i] = x[i] * np.float32(2)
        for i in range(n):
            total += y[i] - x[i]
    return total, x.shape, y.itemsize, x.flags.c_contiguous


def test_a_scratch_array_has_its_literal_length_and_holds_what_is_written():
    total, shape, itemsize, contiguous = _scratch_sums(100, 7)
    assert total == sum(i + k for k in range(7) for i in range(100))
    assert shape == (128,) and itemsize == 4 and contiguous
    plain = lw.scratch_array(128, np.float32)
    assert plain.shape == (128,) and plain.dtype == np.float32


def test_a_scratch_array_of_a_run_time_length_is_a_typing_error():
    @njit
    def run_time(n):
        return lw.scratch_array(n, np.float32)
    with pytest.raises(Exception, match="scratch_array"):
        run_time(8)


@njit
def _through_pointers(reg, j, v):
    p = rk.data_of(reg)
    rk.set_u16(p, j, v)
    rk.set_u8(p, 2 * j + 5, rk.u8_at(p, 2 * j) ^ np.uint8(0xFF))
    mv.copy_bytes(p, 32, p, 2 * j, 4)
    return rk.u16_at(p, j), rk.u32_at(p, 8)


def test_the_lane_accessors_take_a_data_pointer_as_they_take_the_array():
    for j, v in ((0, 0xBEEF), (3, 0x1234), (7, 0xFFFF)):
        compiled, plain = np.arange(64, dtype=np.uint8), np.arange(64, dtype=np.uint8)
        got = _through_pointers(compiled, j, np.uint16(v))
        p = rk.data_of(plain)  # plain Python: the register itself
        rk.set_u16(p, j, v)
        rk.set_u8(p, 2 * j + 5, rk.u8_at(p, 2 * j) ^ np.uint8(0xFF))
        mv.copy_bytes(p, 32, p, 2 * j, 4)
        assert [int(x) for x in got] == [int(rk.u16_at(p, j)), int(rk.u32_at(p, 8))]
        assert compiled.tobytes() == plain.tobytes()


@njit
def _lanes_on(words):
    bits = np.zeros(256, np.uint8)
    for i in range(256):
        bits[i] = rk.lane_on(words, i)
    return bits


def test_lane_on_reads_every_bit_of_the_four_words():
    rng = np.random.default_rng(37)
    for _ in range(4):
        words = tuple(np.uint64(w) for w in rng.integers(0, 2**63, 4, dtype=np.uint64) * np.uint64(2) + np.uint64(1))
        want = np.array([(int(words[i >> 6]) >> (i & 63)) & 1 for i in range(256)], np.uint8)
        assert np.array_equal(_lanes_on(words), want)
        assert np.array_equal(_lanes_on(np.array(words, np.uint64)), want)


@njit
def _conversions(h, f, u, d, i):
    return (nm.half_bits_to_f32(h), nm.f32_to_half_bits(f), nm.f32_bits(f), nm.f32_from_bits(u), nm.f64_bits(d),
            nm.f64_from_bits(i))


@pytest.mark.parametrize("seed", range(4))
def test_bit_conversions_compiled_equal_plain(seed):
    rng = np.random.default_rng(seed)
    for _ in range(64):
        h = np.uint16(rng.integers(0, 2**16))
        u = np.uint32(rng.integers(0, 2**32))
        f = np.array(u, np.uint32).view(np.float32)[()]
        i = np.int64(rng.integers(-2**63, 2**63 - 1))
        d = np.array(i, np.int64).view(np.float64)[()]
        got = _conversions(h, f, u, d, i)
        want = (nm.half_bits_to_f32(h), nm.f32_to_half_bits(f), nm.f32_bits(f), nm.f32_from_bits(u),
                nm.f64_bits(d), nm.f64_from_bits(i))
        for g, w in zip(got, want):  # numba returns a float32 as a Python float: compared in the plain result's type
            w = np.asarray(w)
            g = np.asarray(g).astype(w.dtype)
            if w.dtype.kind == "f" and np.isnan(w):  # a NaN's payload may be quieted by the float conversion
                assert np.isnan(g)
            else:
                assert _bits(g) == _bits(w)


@njit
def _lanes(reg, j, v16, v32):
    rk.set_u16(reg, j, v16)
    a = rk.u16_at(reg, j)
    b = rk.u16_at_byte(reg, 2 * j + 1)
    rk.set_u32(reg, j + 1, v32)
    return a, b, rk.u32_at(reg, j + 1)


def test_register_lane_access_compiled_equals_plain():
    for j, v16, v32 in ((0, 0xBEEF, 0x12345678), (5, 1, 0xFFFFFFFF), (np.uint64(3), 0x8000, 0)):
        compiled, plain = np.zeros(64, np.uint8), np.zeros(64, np.uint8)
        got = _lanes(compiled, j, np.uint16(v16), np.uint32(v32))
        rk.set_u16(plain, j, v16)
        want = rk.u16_at(plain, j), rk.u16_at_byte(plain, 2 * j + 1), None
        rk.set_u32(plain, j + 1, v32)
        want = want[:2] + (rk.u32_at(plain, j + 1),)
        assert [int(x) for x in got] == [int(x) for x in want]
        assert compiled.tobytes() == plain.tobytes()


@njit
def _copy(dst, d0, src, s0, n):
    mv.copy_bytes(dst, d0, src, s0, n)


def test_copy_bytes_compiled_equals_plain_overlapping_too():
    src = np.arange(64, dtype=np.uint8)
    for d0, s0, n in ((0, 0, 64), (3, 10, 20), (8, 4, 30), (4, 8, 30)):
        compiled, plain = src.copy(), src.copy()
        _copy(compiled, d0, compiled, s0, n)
        mv.copy_bytes(plain, d0, plain, s0, n)
        assert compiled.tobytes() == plain.tobytes()


@njit
def _outside(offset):
    return mv._outside_int32(offset)


@pytest.mark.parametrize("offset", [np.int64(-2**31 - 1), np.int64(-2**31), np.int64(2**31 - 1), np.int64(2**31),
                                    np.int64(-2**63), np.int64(2**63 - 1), np.int32(-2**31), np.uint32(2**31 - 1),
                                    np.uint32(2**31), np.uint64(2**64 - 64), np.int16(-1), True, False])
def test_the_int32_offset_check_compiled_equals_plain(offset):
    assert _outside(offset) is mv._outside_int32(offset)


@njit
def _views(ub, width):
    return ubview.ub_as(ub, np.float32), ubview.int_lanes(ub, width)


@pytest.mark.parametrize("width", list(ubview.INT_WIDTHS.values()))
def test_ub_views_compiled_equal_plain(width):
    ub = np.arange(64, dtype=np.uint8)
    floats, ints = _views(ub, width)
    assert floats.tobytes() == ubview.ub_as(ub, np.float32).tobytes() and floats.dtype == np.float32
    want = ubview.int_lanes(ub, width)
    assert ints.dtype == want.dtype and ints.tobytes() == want.tobytes()
    ints[0] = 0  # a view of the UB, not a copy
    assert not ub[:ints.itemsize].any()


# --- the helpers lowered in session 35 (kind_size, the rounding and stored-bit helpers, mask bits, integer lanes) --
@njit
def _rounding(bits, sat):
    x = nm.f32_from_bits(bits)  # from the bits: unboxing a float32 argument would quiet a signalling NaN
    return (nm.f32_bits(nm.round_half(x, sat)), nm.half_store_bits(x), nm.half_rne_bits(x), nm.float_store_bits(x),
            nm.f32_to_bf16_bits(x))


_F32_EDGES = np.array([0.0, -0.0, 1.0, -1.0, 65504.0, 65519.99, 65520.0, -65520.0, 1e-8, -6e-8, 2.98e-8, 1.5, 3e38,
                       np.inf, -np.inf, np.nan, 1.00390625, 1.0039062, 1.0117188, 5.96e-8, -3.4028235e38],
                      np.float32)


@pytest.mark.parametrize("sat", [False, True])
def test_rounding_and_stored_bits_compiled_equal_plain(sat):
    bits = np.concatenate([_F32_EDGES.view(np.uint32), np.array([0x7FC00001, 0xFFC00000, 0x7F800001, 0x00000001,
                                                                  0x80000001, 0x477FF000, 0x477FEFFF, 0x3F808000,
                                                                  0x3F818000, 0x3F817FFF], np.uint32)])
    for b, x in zip(bits, bits.view(np.float32)):
        with np.errstate(over="ignore", invalid="ignore"):
            want = [nm.f32_bits(nm.round_half(x, sat)), nm.half_store_bits(x), nm.half_rne_bits(x),
                    nm.float_store_bits(x), nm.f32_to_bf16_bits(x)]
        got = [np.asarray(v, np.asarray(w).dtype) for v, w in zip(_rounding(b, sat), want)]  # boxed as Python ints
        if x != x and not sat:  # a NaN's payload through half differs (LLVM's fptrunc quiets it; numpy keeps a
            got[0] = want[0] = np.uint32(0x7FC00000)  # signalling one); it never reaches the UB: stores canonicalise
        assert [_bits(v) for v in got] == [_bits(v) for v in want]


@njit
def _sizes_and_bf16(kind, h):
    return nm.kind_size(kind), nm.bf16_bits_to_f32(h)


def test_kind_size_and_bf16_decode_compiled_equal_plain():
    for kind in range(11):
        for h in (np.uint16(0), np.uint16(0x8000), np.uint16(0x7F80), np.uint16(0x3F80)):
            got, want = _sizes_and_bf16(kind, h), (nm.kind_size(kind), nm.bf16_bits_to_f32(h))
            # numba boxes a float32 result as a Python float (exact for these non-NaN values): compare in the plain type
            got = [np.asarray(v, np.asarray(w).dtype) for v, w in zip(got, want)]
            assert [_bits(v) for v in got] == [_bits(v) for v in want]


@njit
def _mask_bits(words, array_words, lo, hi, i):
    return rk.lane_on(words, i), rk.lane_on(array_words, i), ad.lane_active(lo, hi, i % 128)


def test_mask_bits_compiled_equal_plain():
    words = (np.uint64(0x8000000000000001), np.uint64(0x0123456789ABCDEF), np.uint64(0), np.uint64(2**64 - 1))
    lo, hi = np.int64(-0x7FFFFFFFFFFFFFFF), np.int64(0x00F0F0F0F0F0F0F0)
    for i in range(256):
        got = _mask_bits(words, np.array(words, np.uint64), lo, hi, i)
        want = rk.lane_on(words, i), rk.lane_on(np.array(words, np.uint64), i), ad.lane_active(lo, hi, i % 128)
        assert [int(v) for v in got] == [int(v) for v in want]


@njit
def _int_lanes(reg, j, size, signed, v):
    before = ro.int_lane(reg, j, size, signed)
    ro.set_int_lane(reg, j + 1, size, v)
    ro.set_u64(reg, 8, np.uint64(v))
    return before, ro.int_lane(reg, j + 1, size, signed), ro.u64_at(reg, 8), ro.i64_at(reg, 8)


def test_integer_lanes_compiled_equal_plain():
    rng = np.random.default_rng(35)
    for size in (1, 2, 4):
        for signed in (False, True):
            for v in (0, -1, 127, 128, -129, 0x7FFF, 0x8000, -0x8001, 0x7FFFFFFF, -0x80000000, 2**40 + 5, -2**63):
                start = rng.integers(0, 256, 96, dtype=np.uint8)
                compiled, plain = start.copy(), start.copy()
                got = _int_lanes(compiled, 3, size, signed, np.int64(v))
                before = ro.int_lane(plain, 3, size, signed)
                ro.set_int_lane(plain, 4, size, np.int64(v))
                ro.set_u64(plain, 8, np.uint64(v & (2**64 - 1)))
                want = before, ro.int_lane(plain, 4, size, signed), ro.u64_at(plain, 8), ro.i64_at(plain, 8)
                assert [int(x) for x in got] == [int(x) for x in want]
                assert compiled.tobytes() == plain.tobytes()
