"""Cast kernels: one conversion function over element bit patterns, one run loop, one strided repeat walk.

A source element is decoded to an exact (sign, integer magnitude m, exponent e) triple, value = +-m * 2**e, for
every source type (floats from their fields, integers with e = 0). Rounding to an integer or to a float format is
then one integer routine on the discarded tail (SPEC-2 7.3, D45): RINT ties to even, FLOOR, CEIL, ROUND ties away
from zero, TRUNC, ODD sticky. The overflow rules arrive as two flags the API layer derives per pair (D45, D46):
`trunc` (integer destinations keep the low bits) and `sat` (half/bf16 destinations map +-inf to +-MAX and NaN to +0).
The common widenings and float->half/bf16 RINT take vectorised loops with the same bits (vector_run); the count
form compiles them as a kernel of their own. Every other pair of at most 32 bits converts in typed lanes (typed_run),
handing the lanes it cannot convert exactly (specials, overflow, ties it does not decide) to the element routine.
"""
import numpy as np
from numba import njit

from .addressing import active_lanes, copy_lanes
from .ubview import ub_as
from .numerics import (BF16_NAN, FLOAT_NAN_BITS, HALF_NAN, KIND_BF16, KIND_FLOAT, KIND_HALF, KIND_INT8, KIND_INT16,
                       KIND_INT32, KIND_UINT8, KIND_UINT16, bf16_bits_to_f32, f32_bits, f32_to_bf16_bits,
                       f32_to_half_bits, float_store_bits, half_bits_to_f32, half_store_bits, internal, kind_size,
                       round_half)
from .lowered import empty_array, larger, smaller

# aj.RoundMode values (CAST_NONE arrives as CAST_RINT: SPEC-2 D45)
MODE_RINT, MODE_FLOOR, MODE_CEIL, MODE_ROUND, MODE_TRUNC, MODE_ODD = 1, 2, 3, 4, 5, 6

# per kind: significand field bits and exponent field bits (float kinds; 0 for integers)
_MANT_BITS = np.array([10, 23, 7, 0, 0, 0, 0, 0, 0, 0, 0], np.int64)
_EXP_BITS = np.array([5, 8, 8, 0, 0, 0, 0, 0, 0, 0, 0], np.int64)
_SIGNED = np.array([1, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0], np.int64)
_U64 = np.uint64


@njit(cache=True, inline="always")
def _is_float(kind):
    return kind <= KIND_BF16


@internal
def _bit_length(m):
    n = 0
    for step in (32, 16, 8, 4, 2, 1):
        if (m >> _U64(step)) != _U64(0):
            m >>= _U64(step)
            n += step
    return n + (1 if m != _U64(0) else 0)


@njit(cache=True, inline="always")
def _round_up(mode, neg, odd, rem, half):
    """Whether the kept magnitude is incremented for a non-zero discarded tail `rem` (half = its midpoint)."""
    if rem == _U64(0):
        return False
    if mode == MODE_RINT:
        return rem > half or (rem == half and odd)
    if mode == MODE_ROUND:
        return rem >= half
    if mode == MODE_FLOOR:
        return neg
    if mode == MODE_CEIL:
        return not neg
    return False  # TRUNC, and ODD (which forces the LSB instead)


@internal
def _to_float_bits(neg, m, e, mb, eb, mode):
    """+-m * 2**e (m > 0) rounded to the format with mb significand and eb exponent field bits; overflow per D45."""
    bias = (1 << (eb - 1)) - 1
    emin = 1 - bias
    top = e + _bit_length(m) - 1
    q = larger(top, emin) - mb            # exponent of the result's last significand bit
    shift = q - e
    if shift <= 0:
        kept = m << _U64(-shift)
    elif shift > 63:
        kept = _U64(1) if (mode == MODE_ODD or (mode == MODE_FLOOR and neg) or (mode == MODE_CEIL and not neg)) \
            else _U64(0)
    else:
        kept = m >> _U64(shift)
        rem = m & ((_U64(1) << _U64(shift)) - _U64(1))
        half = _U64(1) << _U64(shift - 1)
        if _round_up(mode, neg, (kept & _U64(1)) == _U64(1), rem, half):
            kept += _U64(1)
        elif mode == MODE_ODD and rem != _U64(0):
            kept |= _U64(1)
    out = (_U64(larger(top, emin) - emin) << _U64(mb)) + kept  # a carry into the exponent field is the right answer
    inf_bits = _U64((1 << eb) - 1) << _U64(mb)
    if out >= inf_bits:  # D45: directed rounding decides between +-inf and +-MAX
        away = mode == MODE_RINT or mode == MODE_ROUND or (mode == MODE_FLOOR and neg) or (mode == MODE_CEIL and not neg)
        out = inf_bits if away else inf_bits - _U64(1)
    if neg:
        out |= _U64(1) << _U64(mb + eb)
    return out


@internal
def _round_integral(neg, m, e, mode):
    """(magnitude rounded to an integer, truncated to 64 bits; True when the true magnitude is >= 2**64)."""
    if e >= 0:
        if e >= 64:
            return _U64(0), m != _U64(0)
        big = e > 0 and (m >> _U64(64 - e)) != _U64(0)
        return m << _U64(e), big
    shift = -e
    if m == _U64(0):
        return _U64(0), False
    if shift > 63:  # |x| < 2**-40 (a float source): only the directed modes leave zero
        return _U64(1) if ((mode == MODE_FLOOR and neg) or (mode == MODE_CEIL and not neg)) else _U64(0), False
    kept = m >> _U64(shift)
    rem = m & ((_U64(1) << _U64(shift)) - _U64(1))
    half = _U64(1) << _U64(shift - 1)
    if _round_up(mode, neg, (kept & _U64(1)) == _U64(1), rem, half):
        kept += _U64(1)
    return kept, False


@njit(cache=True, no_cfunc_wrapper=True)
def convert_bits(sk, dk, mode, trunc, sat, bits):
    """The bit pattern (uint64) of one element `bits` of kind sk converted to kind dk (SPEC-2 7.3)."""
    nan = False
    inf = False
    if _is_float(sk):
        mb, eb = _MANT_BITS[sk], _EXP_BITS[sk]
        neg = (bits >> _U64(mb + eb)) & _U64(1) == _U64(1)
        field = np.int64((bits >> _U64(mb)) & _U64((1 << eb) - 1))
        m = bits & _U64((1 << mb) - 1)
        bias = (1 << (eb - 1)) - 1
        if field == (1 << eb) - 1:
            nan = m != _U64(0)
            inf = not nan
            e = 0
        elif field == 0:
            e = 1 - bias - mb
        else:
            m |= _U64(1) << _U64(mb)
            e = field - bias - mb
    else:
        size = kind_size(sk) * 8
        if _SIGNED[sk] and (bits >> _U64(size - 1)) & _U64(1) == _U64(1):
            neg = True
            m = (~bits + _U64(1)) & (_U64(0xFFFFFFFFFFFFFFFF) >> _U64(64 - size))  # INT64_MIN gives 2**63
        else:
            neg = False
            m = bits
        e = 0
    if _is_float(dk):
        mb, eb = _MANT_BITS[dk], _EXP_BITS[dk]
        sign = _U64(1) << _U64(mb + eb)
        inf_bits = _U64((1 << eb) - 1) << _U64(mb)
        if nan:
            if sat:
                return _U64(0)
            return _U64(HALF_NAN) if dk == KIND_HALF else (_U64(BF16_NAN) if dk == KIND_BF16 else _U64(FLOAT_NAN_BITS))
        if inf:
            out = inf_bits - _U64(1) if sat else inf_bits
            return out | sign if neg else out
        if m == _U64(0):
            return _U64(0) if (sk == dk or not neg) else sign  # float->float round-to-integral: +0 (D45)
        if sk == dk:  # float -> float: round to an integral value, zero results +0 (D45)
            if e >= 0:
                return bits
            kept, big = _round_integral(neg, m, e, mode)
            if kept == _U64(0):
                return _U64(0)
            return _to_float_bits(neg, kept, np.int64(0), mb, eb, mode)  # int64, not a literal: one signature
        out = _to_float_bits(neg, m, e, mb, eb, mode)
        if sat and (out & ~sign) == inf_bits:
            out -= _U64(1)
        return out
    # integer destination
    size = kind_size(dk) * 8
    width_mask = _U64(0xFFFFFFFFFFFFFFFF) >> _U64(64 - size)
    signed = _SIGNED[dk] == 1
    max_mag = (width_mask >> _U64(1)) if signed else width_mask
    min_word = (_U64(1) << _U64(size - 1)) if signed else _U64(0)  # the MIN pattern
    if nan:
        return _U64(0)
    if inf:
        return min_word if neg else max_mag
    mag, big = _round_integral(neg, m, e, mode)
    if neg:
        in_range = not big and (mag <= max_mag + _U64(1) if signed else mag == _U64(0))
    else:
        in_range = not big and mag <= max_mag
    if in_range or trunc:
        word = (~mag + _U64(1)) if (neg and mag != _U64(0)) else mag  # two's complement: the exact integer's low bits
        return word & width_mask
    return min_word if neg else max_mag


@njit(cache=True, inline="always")
def _load(s, size, i):
    v = _U64(0)
    for k in range(size):
        v |= _U64(s[i * size + k]) << _U64(8 * k)
    return v


@njit(cache=True, inline="always")
def _store(d, size, i, v):
    for k in range(size):
        d[i * size + k] = np.uint8((v >> _U64(8 * k)) & _U64(0xFF))


@njit(cache=True, inline="always")
def _floor_half_run(sk, dk, mode, sv, dv, bits, sat, n):
    """float -> half CAST_FLOOR: the hardware's RNE conversion, stepped one half ulp towards -inf where it rounded
    up (a finite half is exact in float32, so `value > x` is exact); a branch-free pass that vectorises. Results
    that are not finite halves (NaN, overflow: D45/D46 decide) are redone by convert_bits, the general routine."""
    special = False
    for i in range(n):
        x = sv[i]
        h = f32_to_half_bits(x)
        step = np.uint16(1) if half_bits_to_f32(h) > x else np.uint16(0)
        h = h + step if (h & np.uint16(0x8000)) != 0 else h - step
        dv[i] = h
        special |= (h & np.uint16(0x7C00)) == np.uint16(0x7C00)
    if special:
        for i in range(n):
            if (dv[i] & np.uint16(0x7C00)) == np.uint16(0x7C00):
                # (sk, dk, mode: float, half, CAST_FLOOR as the caller's int64 values; n < 0: False typed bool.
                # Literal arguments would compile convert_bits a second time, about 1.5 s of every first Cast.)
                dv[i] = np.uint16(convert_bits(sk, dk, mode, n < 0, sat, _U64(bits[i])))


@njit(cache=True, inline="always")
def vector_pair(sk, dk, mode, sat):
    """Whether the pair and mode take one of vector_run's vectorised loops (the API asks the plain function,
    count_kernel, to pick the count form's kernel, so both sides name the same pairs)."""
    if dk == KIND_FLOAT:
        return sk == KIND_HALF or sk == KIND_BF16  # exact widenings
    if sk == KIND_FLOAT and mode == MODE_RINT:
        return dk == KIND_HALF or (dk == KIND_BF16 and not sat)
    return False


@internal
def vector_run(sk, dk, sat, d, s, n):
    """d[:n] = convert(s[:n]) for a vector_pair: one vectorised loop, the same bits as convert_bits."""
    if dk == KIND_FLOAT:
        sv, dv = ub_as(s, np.uint16), ub_as(d, np.uint32)
        if sk == KIND_HALF:
            for i in range(n):
                dv[i] = float_store_bits(half_bits_to_f32(sv[i]))
        else:
            for i in range(n):
                dv[i] = float_store_bits(bf16_bits_to_f32(sv[i]))
    else:
        sv, dv = ub_as(s, np.float32), ub_as(d, np.uint16)
        if dk == KIND_HALF:  # RNE: the hardware conversion
            for i in range(n):
                dv[i] = half_store_bits(round_half(sv[i], sat))
        else:
            for i in range(n):
                dv[i] = f32_to_bf16_bits(sv[i])


@internal
def _decode(sk, s, x, n):
    """x[:n] = the values of the n packed elements of kind sk (any kind but the 64-bit ones: each value is exact in
    float64, NaN and +-inf included). A loop per kind over a typed view: one loop decoding each element's bytes by
    its kind made the typed Casts 3x slower (20-36 against 7-10 us over 12288 elements)."""
    if sk == KIND_HALF:
        hv = ub_as(s, np.uint16)
        for i in range(n):
            x[i] = half_bits_to_f32(hv[i])
    elif sk == KIND_FLOAT:
        fv = ub_as(s, np.float32)
        for i in range(n):
            x[i] = fv[i]
    elif sk == KIND_BF16:
        bv = ub_as(s, np.uint16)
        for i in range(n):
            x[i] = bf16_bits_to_f32(np.uint32(bv[i]))
    elif sk == KIND_INT8:
        i8 = ub_as(s, np.int8)
        for i in range(n):
            x[i] = i8[i]
    elif sk == KIND_UINT8:
        for i in range(n):
            x[i] = s[i]
    elif sk == KIND_INT16:
        i16 = ub_as(s, np.int16)
        for i in range(n):
            x[i] = i16[i]
    elif sk == KIND_UINT16:
        u16 = ub_as(s, np.uint16)
        for i in range(n):
            x[i] = u16[i]
    elif sk == KIND_INT32:
        i32 = ub_as(s, np.int32)
        for i in range(n):
            x[i] = i32[i]
    else:
        u32 = ub_as(s, np.uint32)
        for i in range(n):
            x[i] = u32[i]


@njit(cache=True, inline="always")
def round_to_integral(x, mode):
    """x (float64, a float32's or an integer's exact value) rounded to an integral value by `mode` (exact in
    float64); ODD and unknown modes give NaN (the caller's lane then goes through convert_bits)."""
    if mode == MODE_RINT:
        return np.rint(x)
    if mode == MODE_FLOOR:
        return np.floor(x)
    if mode == MODE_CEIL:
        return np.ceil(x)
    if mode == MODE_TRUNC:
        return np.trunc(x)
    if mode == MODE_ROUND:  # ties away from zero (x - trunc(x) is exact)
        t = np.trunc(x)
        return t + np.copysign(1.0, x) if abs(x - t) >= 0.5 else t
    return np.nan


@internal
def _encode_integer(dk, mode, x, d, n):
    """d[:n] = x[:n] rounded by `mode` as integers of kind dk (8 to 32 bits) where the result is in dk's range; every
    other lane (NaN, +-inf, out of range: the trunc / saturation rules) has x[i] set to NaN for convert_bits."""
    size = kind_size(dk)
    signed = dk == KIND_INT8 or dk == KIND_INT16 or dk == KIND_INT32
    hi = np.float64((1 << (8 * size - 1)) - 1) if signed else np.float64((1 << (8 * size)) - 1)
    lo = -hi - 1.0 if signed else 0.0
    if size == 1:
        for i in range(n):
            r = round_to_integral(x[i], mode)
            if lo <= r <= hi:
                d[i] = np.uint8(np.int64(r) & 0xFF)
            else:
                x[i] = np.nan
    elif size == 2:
        dv = ub_as(d, np.uint16)
        for i in range(n):
            r = round_to_integral(x[i], mode)
            if lo <= r <= hi:
                dv[i] = np.uint16(np.int64(r) & 0xFFFF)
            else:
                x[i] = np.nan
    else:
        dv = ub_as(d, np.uint32)
        for i in range(n):
            r = round_to_integral(x[i], mode)
            if lo <= r <= hi:
                dv[i] = np.uint32(np.int64(r) & 0xFFFFFFFF)
            else:
                x[i] = np.nan


@njit(cache=True, inline="always")
def _narrow_value(b, half):
    return half_bits_to_f32(b) if half else bf16_bits_to_f32(np.uint32(b))


@internal
def _encode_narrow_float(dk, mode, x, d, n):
    """d[:n] = x[:n] as half or bfloat16 (dk) rounded by `mode`, for values exact in float32: the hardware's RNE
    conversion, then one step towards the value's side where a directed mode asks for it (a half or bfloat16 is
    exact in float32, so the comparisons are exact), ODD as TRUNC with the last bit set when inexact. Lanes left to
    convert_bits (x[i] set to NaN): a value not exact in float32, NaN, a result the RNE conversion made +-inf (D45,
    D46 decide overflow), and a ROUND tie, where RNE and ties-away differ."""
    half = dk == KIND_HALF
    dv = ub_as(d, np.uint16)
    exponent = np.uint16(0x7C00) if half else np.uint16(0x7F80)
    for i in range(n):
        f = np.float32(x[i])
        if np.float64(f) != x[i]:   # not exact in float32 (an int32 / uint32 source), or NaN
            x[i] = np.nan
            continue
        b = f32_to_half_bits(f) if half else f32_to_bf16_bits(f)
        if (b & exponent) == exponent:
            x[i] = np.nan
            continue
        v = _narrow_value(b, half)
        if v == f or mode == MODE_RINT:
            dv[i] = b
            continue
        negative = (b & np.uint16(0x8000)) != 0 or f < 0
        if mode == MODE_ROUND:   # RNE unless f lies halfway between b and its neighbour on f's side
            other = np.uint16(b + 1) if (v < f) != negative else np.uint16(b - 1)
            if np.float64(f) - np.float64(v) == np.float64(_narrow_value(other, half)) - np.float64(f):
                x[i] = np.nan
                continue
            dv[i] = b
            continue
        # FLOOR: towards -inf; CEIL: towards +inf; TRUNC and ODD: towards zero
        down = mode == MODE_FLOOR or ((mode == MODE_TRUNC or mode == MODE_ODD) and not negative)
        if (v > f) if down else (v < f):   # RNE went past f: one step back (bits grow away from zero)
            b = np.uint16(b + 1) if (down == negative) else np.uint16(b - 1)
            if (b & exponent) == exponent:   # stepped past +-MAX: D45 / D46 decide
                x[i] = np.nan
                continue
        if mode == MODE_ODD:
            b = np.uint16(b | 1)
        elif mode != MODE_FLOOR and mode != MODE_CEIL and mode != MODE_TRUNC:
            x[i] = np.nan
            continue
        dv[i] = b


@internal
def _encode_float(dk, sk, mode, x, d, n):
    """d[:n] = x[:n] as kind dk (half, float, bfloat16): a float source of the same kind rounds to an integral value
    (D45: a zero result is +0); any other source converts by `mode` (_encode_narrow_float for half and bfloat16; a
    float32 destination takes RNE from float64 or the value when exact). Lanes left to convert_bits get x[i] = NaN:
    NaN and +-inf (D45, D46), a float32 result that is inexact in a directed mode."""
    if sk == dk:
        dv = ub_as(d, np.uint16)
        fv = ub_as(d, np.uint32)
        for i in range(n):
            if not np.isfinite(x[i]):
                x[i] = np.nan
                continue
            r = round_to_integral(x[i], mode)
            if r != r:
                x[i] = np.nan
                continue
            f = np.float32(r) + np.float32(0.0)   # exact: an integral value of a finite x; -0 becomes +0
            if dk == KIND_FLOAT:
                fv[i] = f32_bits(f)
            elif dk == KIND_HALF:
                dv[i] = f32_to_half_bits(f)
            else:
                dv[i] = f32_to_bf16_bits(f)
    elif dk == KIND_FLOAT:
        fv = ub_as(d, np.uint32)
        for i in range(n):
            f = np.float32(x[i])   # RNE, one rounding of the exact value
            if np.isfinite(f) and (mode == MODE_RINT or np.float64(f) == x[i]):
                fv[i] = f32_bits(f)
            else:
                x[i] = np.nan
    else:
        _encode_narrow_float(dk, mode, x, d, n)


@internal
def typed_run(sk, dk, mode, trunc, sat, d, s, n):
    """d[:n] = convert(s[:n]) for every pair outside vector_run's (float -> half CAST_FLOOR: _floor_half_run): the
    values decoded to float64 (exact), converted in typed arithmetic where that gives convert_bits' bits, and each
    other lane (specials, out of range, the cases the typed arithmetic leaves: the _encode_* docstrings) through
    convert_bits; the 64-bit kinds element by element through it. The element routine alone cost some 10 ns a lane
    (port67a: an int8 -> half Cast of 12288 elements 140 us, numpy 24 us; 7 us now); tests/test_cast_typed.py
    compares the two over every 8- and 16-bit source pattern. One function with its helpers apart: each level of
    nesting links and optimises the level below again (a layer between cost a first Cast 0.3 s)."""
    if sk == KIND_FLOAT and dk == KIND_HALF and mode == MODE_FLOOR:  # softmax's final cast: see _floor_half_run
        _floor_half_run(sk, dk, mode, ub_as(s, np.float32), ub_as(d, np.uint16), ub_as(s, np.uint32), sat, n)
        return
    ss, ds = kind_size(sk), kind_size(dk)
    if ss == 8 or ds == 8:
        for i in range(n):
            _store(d, ds, i, convert_bits(sk, dk, mode, trunc, sat, _load(s, ss, i)))
        return
    # the results go to `out`, copied to d at the end: the lanes left to convert_bits read s again, and a same-size
    # call's d may lie over s (a high-dim call with dst a repeat behind src: SPEC 8.2 lets a repeat write bytes an
    # earlier repeat read; review 67)
    x = empty_array(n, np.float64)
    out = empty_array(n * ds, np.uint8)
    _decode(sk, s, x, n)
    if _is_float(dk):
        _encode_float(dk, sk, mode, x, out, n)
    else:
        _encode_integer(dk, mode, x, out, n)
    for i in range(n):
        if x[i] != x[i]:
            _store(out, ds, i, convert_bits(sk, dk, mode, trunc, sat, _load(s, ss, i)))
    for i in range(n * ds):   # a loop, not `d[:n * ds] = out`: numba's slice assignment compiled 1.7 s more
        d[i] = out[i]


@njit(cache=True, no_cfunc_wrapper=True)
def convert_run(sk, dk, mode, trunc, sat, d, s, n):
    """d[:n] = convert(s[:n]) on packed byte arrays (dst and src overlap only in a same-size call, D34; typed_run
    reads every source byte before it writes)."""
    if vector_pair(sk, dk, mode, sat):
        vector_run(sk, dk, sat, d, s, n)
    else:
        typed_run(sk, dk, mode, trunc, sat, d, s, n)


# The count form's two kernels (the API picks one with vector_pair): a first Cast compiles either the vectorised
# loops or the element routine, not both (issue 20: together 3.3 s of a first half -> float Cast). Either gives the
# same bits for every pair; the choice is speed.
@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def cast_contiguous(ub, sk, dk, mode, trunc, sat, dst, src, n):
    """The count form (and default-stride high-dim calls): n consecutive elements (typed_run)."""
    typed_run(sk, dk, mode, trunc, sat, ub[dst:dst + n * kind_size(dk)], ub[src:src + n * kind_size(sk)], n)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def cast_contiguous_vector(ub, sk, dk, mode, trunc, sat, dst, src, n):
    """cast_contiguous for a vector_pair: one vectorised loop."""
    vector_run(sk, dk, sat, ub[dst:dst + n * kind_size(dk)], ub[src:src + n * kind_size(sk)], n)


_VECTOR_PAIR = getattr(vector_pair, "py_func", vector_pair)  # plain Python (vector_pair itself without the JIT)


def count_kernel(sk, dk, mode, sat):
    """The count form's kernel for the pair, mode and saturation flag."""
    return cast_contiguous_vector if _VECTOR_PAIR(sk, dk, mode, sat) else cast_contiguous


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def cast_strided(ub, sk, dk, mode, trunc, sat, dst, src, dblk, sblk, drep, srep, repeat, mask_lo, mask_hi,
                 last_lanes):
    """The high-dim form (SPEC-2 D33): L = lanes of the wider type; each operand's lane j addressed with its own
    element size and strides. Per repeat: gather the active source lanes, convert, scatter."""
    ss, ds = kind_size(sk), kind_size(dk)
    lanes = active_lanes(mask_lo, mask_hi, 256 // larger(ss, ds))
    a = empty_array(256, np.uint8)
    d = empty_array(256, np.uint8)
    for i in range(repeat):
        n = lanes.size if (last_lanes < 0 or i < repeat - 1) else smaller(last_lanes, lanes.size)
        copy_lanes(ub, src + i * srep * 32, sblk, lanes, n, ss, a, bool(False))
        convert_run(sk, dk, mode, trunc, sat, d, a, n)
        copy_lanes(ub, dst + i * drep * 32, dblk, lanes, n, ds, d, bool(True))
