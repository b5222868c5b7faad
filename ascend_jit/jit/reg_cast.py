"""Ascend 950 Reg Cast (SPEC-2 11.5, 7.3; D45, D46, D65, D71).

One conversion function per destination class (integer, float) works on the exact source value; the rounding of
SPEC-2 7.3 is done on a float64 holding that value exactly (every in-scope source except int64 fits a double; int64
sources round on integers). Lane mapping and masks follow D65: the mask selects source lanes; RegLayout k picks
sub-lane k of each wide slot; every destination lane not written is 0 (ZEROING).

The trait table (which layouts, saturation modes and round modes a pair accepts) is DK `R/类型转换/Cast.md` tables
6-9, stored as bit sets per (src kind, dst kind).
"""
import numpy as np
from numba import njit

from ..errors import ParameterError, UnsupportedDTypeError
from .numerics import (KIND_BF16, KIND_FLOAT, KIND_HALF, KIND_INT8, KIND_INT16, KIND_INT32, KIND_INT64, KIND_UINT8,
                       KIND_UINT16, KIND_UINT32, bf16_bits_to_f32, f32_bits, f32_from_bits, f32_to_half_bits,
                       float_store_bits, half_bits_to_f32, kind_size)
from .reg import H_CTRL, H_KIND, M_CAST_TRUNC, M_HALF_SAT, M_TRAIT_SAT, VL, lane_on

DEVICE = "ascend950"
# RegLayout, SatMode and RoundMode codes (aj.Reg.RegLayout / SatMode, aj.RoundMode)
LAYOUT_UNKNOWN, LAYOUT_ZERO, LAYOUT_ONE, LAYOUT_TWO, LAYOUT_THREE = 0, 1, 2, 3, 4
SAT_UNKNOWN, SAT_SAT, SAT_NO_SAT = 0, 1, 2
RINT, FLOOR, CEIL, ROUND, TRUNC, ODD, ROUND_UNKNOWN = 1, 2, 3, 4, 5, 6, 8
ZEROING, MERGING, MRG_UNKNOWN = 0, 1, 2

_H, _F, _B = KIND_HALF, KIND_FLOAT, KIND_BF16
_I8, _U8, _I16, _U16, _I32, _U32, _I64 = KIND_INT8, KIND_UINT8, KIND_INT16, KIND_UINT16, KIND_INT32, KIND_UINT32, \
    KIND_INT64
_LAYOUT_01 = (1 << LAYOUT_ZERO) | (1 << LAYOUT_ONE)
_LAYOUT_0123 = _LAYOUT_01 | (1 << LAYOUT_TWO) | (1 << LAYOUT_THREE)
_LAYOUT_NONE = 1 << LAYOUT_UNKNOWN
_SAT_BOTH = (1 << SAT_SAT) | (1 << SAT_NO_SAT)
_SAT_NONE = 1 << SAT_UNKNOWN
_ROUND_5 = (1 << RINT) | (1 << FLOOR) | (1 << CEIL) | (1 << ROUND) | (1 << TRUNC)
_ROUND_NONE = 1 << ROUND_UNKNOWN
# (src, dst): (layouts, sat modes, round modes), DK Cast.md tables 6-9 (the pairs SPEC-2 11.5 keeps in scope)
_PAIRS = {
    (_H, _I8): (_LAYOUT_01, _SAT_BOTH, _ROUND_5), (_H, _U8): (_LAYOUT_01, _SAT_BOTH, _ROUND_5),
    (_H, _I16): (_LAYOUT_NONE, _SAT_BOTH, _ROUND_5), (_H, _I32): (_LAYOUT_01, _SAT_NONE, _ROUND_5),
    (_B, _I32): (_LAYOUT_01, _SAT_BOTH, _ROUND_5), (_F, _I16): (_LAYOUT_01, _SAT_BOTH, _ROUND_5),
    (_F, _I32): (_LAYOUT_NONE, _SAT_BOTH, _ROUND_5), (_F, KIND_INT64): (_LAYOUT_01, _SAT_BOTH, _ROUND_5),
    (_H, _B): (_LAYOUT_NONE, _SAT_NONE, _ROUND_5), (_B, _H): (_LAYOUT_NONE, _SAT_BOTH, _ROUND_5),
    (_B, _F): (_LAYOUT_01, _SAT_NONE, _ROUND_NONE), (_H, _F): (_LAYOUT_01, _SAT_NONE, _ROUND_NONE),
    (_F, _H): (_LAYOUT_01, _SAT_BOTH, _ROUND_5 | (1 << ODD)), (_F, _B): (_LAYOUT_01, _SAT_BOTH, _ROUND_5),
    (_I8, _H): (_LAYOUT_01, _SAT_NONE, _ROUND_NONE), (_U8, _H): (_LAYOUT_01, _SAT_NONE, _ROUND_NONE),
    (_I16, _H): (_LAYOUT_NONE, _SAT_NONE, _ROUND_5), (_I16, _F): (_LAYOUT_01, _SAT_NONE, _ROUND_NONE),
    (_I32, _F): (_LAYOUT_NONE, _SAT_NONE, _ROUND_5), (_I64, _F): (_LAYOUT_01, _SAT_NONE, _ROUND_5),
    (_I8, _I16): (_LAYOUT_01, _SAT_NONE, _ROUND_NONE), (_I8, _I32): (_LAYOUT_0123, _SAT_NONE, _ROUND_NONE),
    (_U8, _U16): (_LAYOUT_01, _SAT_NONE, _ROUND_NONE), (_U8, _U32): (_LAYOUT_0123, _SAT_NONE, _ROUND_NONE),
    (_I16, _U8): (_LAYOUT_01, _SAT_BOTH, _ROUND_NONE), (_I16, _I32): (_LAYOUT_01, _SAT_NONE, _ROUND_NONE),
    (_I16, _U32): (_LAYOUT_01, _SAT_NONE, _ROUND_NONE), (_U16, _U8): (_LAYOUT_01, _SAT_BOTH, _ROUND_NONE),
    (_U16, _U32): (_LAYOUT_01, _SAT_NONE, _ROUND_NONE), (_I32, _U8): (_LAYOUT_0123, _SAT_BOTH, _ROUND_NONE),
    (_I32, _I16): (_LAYOUT_01, _SAT_BOTH, _ROUND_NONE), (_I32, _U16): (_LAYOUT_01, _SAT_BOTH, _ROUND_NONE),
    (_I32, _I64): (_LAYOUT_01, _SAT_NONE, _ROUND_NONE), (_U32, _U8): (_LAYOUT_0123, _SAT_BOTH, _ROUND_NONE),
    (_U32, _I16): (_LAYOUT_01, _SAT_BOTH, _ROUND_NONE), (_U32, _U16): (_LAYOUT_01, _SAT_BOTH, _ROUND_NONE),
    (_I64, _I32): (_LAYOUT_01, _SAT_BOTH, _ROUND_NONE)}
TRAITS = np.zeros((11, 11, 3), np.int64)  # 0: not a Reg Cast pair
for (_s, _d), _row in _PAIRS.items():
    TRAITS[_s, _d] = _row
PAIRS = tuple(sorted(_PAIRS))


@njit(cache=True)
def _check_trait(sk, dk, layout, sat, mrg, rnd):
    row = TRAITS[sk, dk]
    if row[0] == 0:
        raise UnsupportedDTypeError("Cast", "src/dst kinds", (sk, dk), "a pair of SPEC-2 11.5 (DK Cast.md tables "
                                    "3, 6-9)", DEVICE)
    if layout < 0 or layout > 4 or not (row[0] >> layout) & 1:
        raise ParameterError("Cast", "trait.layoutMode", layout, "a RegLayout the pair's row of DK Cast.md tables "
                             "6-9 lists (SPEC-2 11.5)", DEVICE)
    if sat < 0 or sat > 2 or not (row[1] >> sat) & 1:
        raise ParameterError("Cast", "trait.satMode", sat, "a SatMode the pair's row of DK Cast.md tables 6-9 "
                             "lists (SPEC-2 11.5)", DEVICE)
    if mrg == MERGING or mrg < 0 or mrg > 2:
        raise ParameterError("Cast", "trait.mrgMode", mrg, "MaskMergeMode.ZEROING or UNKNOWN (SPEC-2 11.5)", DEVICE)
    if rnd < 0 or rnd > 8 or not (row[2] >> rnd) & 1:
        raise ParameterError("Cast", "trait.roundMode", rnd, "a RoundMode the pair's row of DK Cast.md tables 6-9 "
                             "lists (CAST_NONE is not a Reg round mode; SPEC-2 11.5)", DEVICE)


# --- exact source values ----------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _lane_bits(reg, lane, size):
    bits = np.uint64(0)
    for b in range(size):
        bits |= np.uint64(reg[lane * size + b]) << np.uint64(8 * b)
    return bits


@njit(cache=True)
def _float_value(kind, bits):
    """Exact value of a half / bfloat16 / float lane as float64."""
    if kind == KIND_HALF:
        return np.float64(half_bits_to_f32(np.uint16(bits)))
    if kind == KIND_BF16:
        return np.float64(bf16_bits_to_f32(np.uint16(bits)))
    return np.float64(f32_from_bits(np.uint32(bits)))


@njit(cache=True)
def _int_value(kind, bits):
    """Exact value of an integer lane (sign-extended for signed kinds)."""
    size = kind_size(kind)
    signed = kind == KIND_INT8 or kind == KIND_INT16 or kind == KIND_INT32 or kind == KIND_INT64
    if size == 8:  # int64: two's complement without a checked unsigned-to-signed cast
        if bits >= np.uint64(1 << 63):
            return -np.int64(~bits) - 1
        return np.int64(bits)
    v = np.int64(bits)
    if signed and v >= (np.int64(1) << np.int64(8 * size - 1)):
        v -= np.int64(1) << np.int64(8 * size)
    return v


# --- rounding (SPEC-2 7.3 step 2, D45) ---------------------------------------------------------------------------
@njit(cache=True)
def _round_integral(m, mode, negative):
    """Round a non-negative magnitude m to an integer by `mode` for a value of the given sign."""
    f = np.floor(m)
    frac = m - f
    if frac == 0:
        return f
    if mode == TRUNC:
        return f
    if mode == FLOOR:
        return f + 1 if negative else f
    if mode == CEIL:
        return f if negative else f + 1
    if mode == ROUND:
        return f + 1 if frac >= 0.5 else f
    if mode == ODD:
        return f if f % 2 == 1 else f + 1
    if frac > 0.5 or (frac == 0.5 and f % 2 == 1):  # RINT: ties to even
        return f + 1
    return f


@njit(cache=True)
def round_to_float(x, frac_bits, emin, max_value, mode):
    """x (finite, exact) rounded to a binary format with frac_bits fraction bits, minimum normal exponent emin and
    largest finite max_value; D45's directed-rounding overflow: RINT/ROUND -> inf, TRUNC/ODD -> MAX, FLOOR -> +MAX /
    -inf, CEIL -> +inf / -MAX."""
    if x == 0:
        return x
    negative = x < 0
    m = -x if negative else x
    e = np.int64(np.floor(np.log2(m)))
    if 2.0 ** e > m:  # log2 rounding near powers of two
        e -= 1
    elif 2.0 ** (e + 1) <= m:
        e += 1
    ulp = 2.0 ** (max(e, emin) - frac_bits)
    r = _round_integral(m / ulp, mode, negative) * ulp
    if r > max_value:
        if mode == TRUNC or mode == ODD or (mode == FLOOR and not negative) or (mode == CEIL and negative):
            r = max_value
        else:
            r = np.inf
    return -r if negative else r


@njit(cache=True)
def _int64_to_f32(v, mode):
    """int64 -> float32 value by `mode`, rounded on integers (a double cannot hold every int64)."""
    negative = v < 0
    u = np.uint64(-(v + 1)) + np.uint64(1) if negative else np.uint64(v)
    if u < np.uint64(1 << 53):
        return round_to_float(np.float64(-np.float64(u) if negative else np.float64(u)), 23, -126,
                              3.4028234663852886e38, mode)
    shift = np.uint64(0)
    while (u >> shift) >= np.uint64(1 << 24):
        shift += np.uint64(1)
    q = u >> shift
    rem = u - (q << shift)
    half = np.uint64(1) << (shift - np.uint64(1))
    up = False
    if rem != 0:
        if mode == ROUND:
            up = rem >= half
        elif mode == RINT:
            up = rem > half or (rem == half and q % np.uint64(2) == 1)
        elif mode == FLOOR:
            up = negative
        elif mode == CEIL:
            up = not negative
        elif mode == ODD:
            up = q % np.uint64(2) == 0
    if up:
        q += np.uint64(1)
    r = np.float64(q) * 2.0 ** np.float64(shift)
    return -r if negative else r


# --- destination encodings -----------------------------------------------------------------------------------------
HALF_MAX_F64, BF16_MAX_F64, FLOAT_MAX_F64 = 65504.0, 3.3895313892515355e38, 3.4028234663852886e38


@njit(cache=True)
def _float_bits(dk, v, sat, specials_pass):
    """Bits of a float destination holding the (already rounded) value v, NaN canonical; half/bf16 saturated
    (+-inf -> +-MAX, NaN -> +0) when sat and the pair does not pass specials (D46, D71)."""
    if dk == KIND_FLOAT:
        return np.uint64(float_store_bits(np.float32(v)))
    if sat and not specials_pass:
        if v != v:
            v = 0.0
        elif v == np.inf or v == -np.inf:
            v = (HALF_MAX_F64 if dk == KIND_HALF else BF16_MAX_F64) * (1.0 if v > 0 else -1.0)
    if dk == KIND_HALF:
        if v != v:
            return np.uint64(0x7E00)
        return np.uint64(f32_to_half_bits(np.float32(v)))
    if v != v:
        return np.uint64(0x7FC0)
    return np.uint64(f32_bits(np.float32(v)) >> np.uint32(16))


@njit(cache=True)
def _int_result(v, lo, hi, size, sat):
    """An integer result in [lo, hi]: clamped (saturation) or its low bits (truncation), as a bit pattern."""
    if sat:
        v = min(max(v, lo), hi)
    if size < 8:
        return np.uint64(v & ((np.int64(1) << np.int64(8 * size)) - 1))
    if v < 0:
        return np.uint64(v + 9223372036854775807 + 1) + np.uint64(9223372036854775808)
    return np.uint64(v)


@njit(cache=True)
def _int_range(kind):
    if kind == KIND_INT8:
        return -128, 127
    if kind == KIND_UINT8:
        return 0, 255
    if kind == KIND_INT16:
        return -32768, 32767
    if kind == KIND_UINT16:
        return 0, 65535
    if kind == KIND_INT32:
        return -2147483648, 2147483647
    if kind == KIND_UINT32:
        return 0, 4294967295
    return -9223372036854775807 - 1, 9223372036854775807


@njit(cache=True)
def _float_to_int_bits(x, dk, mode, sat):
    """SPEC-2 7.3 steps 1, 2, 4 for an integer destination: NaN -> 0, +-inf -> MAX/MIN, rounded by mode, then
    clamped (saturation) or reduced to its low bits (truncation)."""
    size = kind_size(dk)
    lo, hi = _int_range(dk)
    if x != x:
        return np.uint64(0)
    if x == np.inf or x == -np.inf:
        return _int_result(hi if x > 0 else lo, lo, hi, size, True)
    r = _round_integral(abs(x), mode, x < 0)
    r = -r if x < 0 else r
    if sat:
        if r >= 9.223372036854775807e18:
            return _int_result(hi, lo, hi, size, True)
        if r < -9.223372036854775807e18:
            return _int_result(lo, lo, hi, size, True)
        return _int_result(np.int64(r), lo, hi, size, True)
    low = np.fmod(r, 2.0 ** (8 * size))  # exact: the low bits of a (possibly huge) integral double
    if size == 8:  # into [-2**63, 2**63) before the (then exact) conversion to int64
        if low >= 9.223372036854775807e18:
            low -= 1.8446744073709552e19
        elif low < -9.223372036854775807e18:
            low += 1.8446744073709552e19
    return _int_result(np.int64(low), lo, hi, size, False)


@njit(cache=True)
def convert(sk, dk, bits, mode, sat_int, sat_float):
    """One lane of Reg Cast: source bit pattern -> destination bit pattern (SPEC-2 7.3, D45, D46, D71)."""
    src_float = sk == KIND_HALF or sk == KIND_FLOAT or sk == KIND_BF16
    dst_float = dk == KIND_HALF or dk == KIND_FLOAT or dk == KIND_BF16
    if src_float:
        x = _float_value(sk, bits)
        if not dst_float:
            return _float_to_int_bits(x, dk, mode, sat_int or (sk == KIND_HALF and dk == KIND_INT16))
        if x == x and x != np.inf and x != -np.inf:
            if dk == KIND_HALF:
                x = round_to_float(x, 10, -14, HALF_MAX_F64, mode)
            elif dk == KIND_BF16:
                x = round_to_float(x, 7, -126, BF16_MAX_F64, mode)
            elif mode != ROUND_UNKNOWN:
                x = round_to_float(x, 23, -126, FLOAT_MAX_F64, mode)
        return _float_bits(dk, x, sat_float, sk == KIND_HALF and dk == KIND_BF16)
    v = _int_value(sk, bits)
    if dst_float:  # integer -> float: exact or rounded by mode, never overflowing (D45)
        if sk == KIND_INT64:
            x = _int64_to_f32(v, mode)
        elif dk == KIND_HALF:
            x = round_to_float(np.float64(v), 10, -14, HALF_MAX_F64, RINT if mode == ROUND_UNKNOWN else mode)
        else:
            x = round_to_float(np.float64(v), 23, -126, FLOAT_MAX_F64, RINT if mode == ROUND_UNKNOWN else mode)
        return _float_bits(dk, x, True, False)
    lo, hi = _int_range(dk)
    widening_unsigned = kind_size(dk) > kind_size(sk) and lo == 0  # narrow -> wider unsigned: saturating only
    return _int_result(v, lo, hi, kind_size(dk), sat_int or widening_unsigned)


@njit(cache=True)
def cast(dst, src, words, layout, sat_mode, mrg, rnd):
    """Reg Cast (SPEC-2 11.5, D65): the mask selects source lanes; layout k picks sub-lane k of each wide slot."""
    sk, dk = np.int64(src[H_KIND]), np.int64(dst[H_KIND])
    _check_trait(sk, dk, layout, sat_mode, mrg, rnd)
    modes = src[H_CTRL]
    if (modes & M_TRAIT_SAT) != 0 and sat_mode != SAT_UNKNOWN:  # CTRL[60] = 0: the trait decides (DK table 5)
        sat_int = sat_mode == SAT_SAT
        sat_float = sat_mode == SAT_SAT
    else:  # the global bits: CTRL[59] for integer destinations, CTRL[48] for half/bf16 destinations (D46)
        sat_int = (modes & M_CAST_TRUNC) == 0
        sat_float = (modes & M_HALF_SAT) != 0
    ss, ds = kind_size(sk), kind_size(dk)
    k = max(layout - LAYOUT_ZERO, 0)
    for i in range(VL, 2 * VL):  # results are assembled in dst's scratch bytes (dst may be src)
        dst[i] = 0
    if (sk == KIND_HALF or sk == KIND_BF16) and dk == KIND_FLOAT:  # exact widening (the common case): direct
        for j in range(64):
            lane = 2 * j + k
            if lane_on(words, lane * 2):
                h = np.uint16(src[2 * lane]) | (np.uint16(src[2 * lane + 1]) << np.uint16(8))
                f = half_bits_to_f32(h) if sk == KIND_HALF else bf16_bits_to_f32(h)
                _put(dst, VL + 4 * j, 4, np.uint64(float_store_bits(f)))
    elif ds >= ss:  # widening or same width: dst lane j <- src lane r*j + k
        r = ds // ss
        for j in range(VL // ds):
            lane = r * j + k
            if lane_on(words, lane * ss):
                _put(dst, VL + j * ds, ds, convert(sk, dk, _lane_bits(src, lane, ss), rnd, sat_int, sat_float))
    else:  # narrowing: dst lane r*j + k <- src lane j, other narrow lanes 0
        r = ss // ds
        for j in range(VL // ss):
            if lane_on(words, j * ss):
                _put(dst, VL + (r * j + k) * ds, ds, convert(sk, dk, _lane_bits(src, j, ss), rnd, sat_int,
                                                             sat_float))
    for i in range(VL):
        dst[i] = dst[VL + i]
    dst[H_CTRL] = modes


@njit(cache=True, inline="always")
def _put(reg, at, size, bits):
    for b in range(size):
        reg[at + b] = np.uint8((bits >> np.uint64(8 * b)) & np.uint64(0xFF))
