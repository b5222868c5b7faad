"""Ascend 950 Reg Cast (SPEC-2 11.5, 7.3; D45, D46, D65, D71).

One value converts through the Memory Cast's conversion kernel (jit/convert.py), with the Reg pair rules as its
flags. Lane mapping and masks follow D65: the mask selects source lanes; RegLayout k picks sub-lane k of each wide
slot; every destination lane not written is 0 (ZEROING).

The trait table (which layouts, saturation modes and round modes a pair accepts) is DK `R/类型转换/Cast.md` tables
6-9, stored as bit sets per (src kind, dst kind).

Like every Reg kernel module (jit/reg.py REG_KERNEL_MODULES), its kernels are optimised twice when they compile,
and compiled VFs call the larger ones through pointers (docs/decisions.md "Kernels called through a pointer").
"""
import math

import numpy as np
from numba import njit

from ..enums import RoundMode
from ..errors import ParameterError, UnsupportedDTypeError, row_table
from .convert import convert_bits, round_to_integral
from .numerics import (KIND_BF16, KIND_FLOAT, KIND_HALF, KIND_INT8, KIND_INT16, KIND_INT32, KIND_INT64, KIND_UINT8,
                       KIND_UINT16, KIND_UINT32, bf16_bits_to_f32, f32_from_bits, f32_to_bf16_bits, float_store_bits,
                       half_bits_to_f32, half_store_bits, kind_size, round_half)
from .reg import (H_CTRL, H_KIND, M_CAST_TRUNC, M_HALF_SAT, M_TRAIT_SAT, VL, internal, lane_on, set_u32, u16_at_byte,
                  u32_at)
from .reg_move import copy_bytes
from .lowered import larger

DEVICE = "ascend950"
# RegLayout, SatMode and RoundMode codes (aj.Reg.RegLayout / SatMode, aj.RoundMode)
LAYOUT_UNKNOWN, LAYOUT_ZERO, LAYOUT_ONE, LAYOUT_TWO, LAYOUT_THREE = 0, 1, 2, 3, 4
SAT_UNKNOWN, SAT_SAT, SAT_NO_SAT = 0, 1, 2
RINT, FLOOR, CEIL, ROUND, TRUNC, ODD, HYBRID, ROUND_UNKNOWN = 1, 2, 3, 4, 5, 6, 7, 8
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
    (_I32, _I16): (_LAYOUT_01, _SAT_BOTH, _ROUND_NONE),  # no int32 -> uint16: not in SPEC-2 11.5 (DK table 3)
    (_I32, _I64): (_LAYOUT_01, _SAT_NONE, _ROUND_NONE), (_U32, _U8): (_LAYOUT_0123, _SAT_BOTH, _ROUND_NONE),
    (_U32, _I16): (_LAYOUT_01, _SAT_BOTH, _ROUND_NONE), (_U32, _U16): (_LAYOUT_01, _SAT_BOTH, _ROUND_NONE),
    (_I64, _I32): (_LAYOUT_01, _SAT_BOTH, _ROUND_NONE)}
TRAITS = np.zeros((11, 11, 3), np.int64)  # 0: not a Reg Cast pair
for (_s, _d), _row in _PAIRS.items():
    TRAITS[_s, _d] = _row
PAIRS = tuple(sorted(_PAIRS))

# What a refused trait field may be for each pair (index src kind * 11 + dst kind), by member name: SPEC-2 11.5's
# ParameterError names the allowed values. Made here once, so the compiled check picks a constant string.
_FIELD_NAMES = (("RegLayout", ("UNKNOWN", "ZERO", "ONE", "TWO", "THREE")), ("SatMode", ("UNKNOWN", "SAT", "NO_SAT")),
                ("RoundMode", tuple(member.name for member in sorted(RoundMode))))


_KIND_NAMES = ("half", "float", "bfloat16", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")


def _field_legal(field, s, d, cast_none=False):
    """The values the (src kind s, dst kind d) row allows for a trait field, the pair named: a VF of several Casts
    says which one it refused (port52c: "the pair's row" left three Casts to tell apart). `cast_none`: the refused
    round mode is CAST_NONE, which no Reg row lists (SPEC-2 11.5)."""
    enum_name, names = _FIELD_NAMES[field]
    mask = TRAITS[s, d, field]
    members = " or ".join(f"{enum_name}.{name}" for value, name in enumerate(names) if (mask >> value) & 1)
    text = f"{members}: the {_KIND_NAMES[s]} -> {_KIND_NAMES[d]} row of DK Cast.md tables 6-9 (SPEC-2 11.5)"
    if field == 2 and mask == 1 << ROUND_UNKNOWN:   # port53d: a port's CAST_NONE or CAST_RINT on u8 -> half
        text += "; an exact conversion, which rounds nothing: the devkit's code reads no round mode for it"
    elif field < 2 and mask == 1:   # port57d: ops-nn's int32 -> float {ZERO, SAT}, the devkit's digamma {ZERO, NO_SAT}
        text += (f"; the devkit's Cast of this pair reads no {('layoutMode', 'satMode')[field]} (its CastImpl takes "
                 "the other fields, kernel_reg_compute_vec_vconv_impl.h), so UNKNOWN gives the bits a port naming "
                 "one computes")
    elif cast_none and mask & (1 << RINT):
        text += "; CAST_NONE is not a Reg round mode: name the rounding, e.g. CAST_RINT"
    return text


# Raised as (table, row): errors.py ROW_TABLES (a run-time index into 121 strings compiled a branch for each)
LEGAL_LAYOUT, LEGAL_SAT, LEGAL_ROUND = (row_table(f"Reg Cast legal {name} by pair", (
    _field_legal(field, s, d) for s in range(11) for d in range(11)))
    for field, name in enumerate(("layoutMode", "satMode", "roundMode")))
LEGAL_ROUND_FOR_NONE = row_table("Reg Cast legal roundMode by pair, CAST_NONE given", (
    _field_legal(2, s, d, cast_none=True) for s in range(11) for d in range(11)))
# plain Python's words (reg.py Cast and _trait, SPEC-2 11.1: a compiled VF refuses in the same words), picked by index:
# a pair that is not a Reg Cast pair, named "src -> dst" (index src kind * 11 + dst kind); a trait field that is no
# member of its enum, with as_enum's list of the members and their values (index: the field, CastTrait's order)
PAIR_TEXT = row_table("Reg Cast pair", (f"{_KIND_NAMES[s]} -> {_KIND_NAMES[d]}" for s in range(11) for d in range(11)))
PAIR_LEGAL = "a pair of SPEC-2 11.5"
_TRAIT_ENUMS = _FIELD_NAMES[:2] + (("MaskMergeMode", ("ZEROING", "MERGING", "UNKNOWN")), _FIELD_NAMES[2])
# A refused field's value by member name (a port reads `SatMode.NO_SAT`, not 2)
VALUE_LAYOUT, VALUE_SAT, VALUE_MRG, VALUE_ROUND = (row_table(f"Reg Cast {enum_name} members", (
    f"{enum_name}.{name}" for name in names)) for enum_name, names in _TRAIT_ENUMS)
TRAIT_FIELDS = ("trait.layoutMode", "trait.satMode", "trait.mrgMode", "trait.roundMode")
TRAIT_MEMBERS = tuple(", ".join(f"{enum_name}.{name} ({value})" for value, name in enumerate(names))
                      for enum_name, names in _TRAIT_ENUMS)
TRAIT_TOP = tuple(len(names) - 1 for _, names in _TRAIT_ENUMS)  # each enum's values are 0..TOP


@njit(cache=True, inline="always")
def trait_allowed(sk, dk, layout, sat, mrg, rnd):
    """Whether (src kind, dst kind) is a Reg Cast pair and the trait's fields are among its row's values (DK
    Cast.md tables 6-9); _check_trait names the first that is not."""
    return (TRAITS[sk, dk, 0] != 0 and 0 <= layout <= 4 and (TRAITS[sk, dk, 0] >> layout) & 1 != 0 and
            0 <= sat <= 2 and (TRAITS[sk, dk, 1] >> sat) & 1 != 0 and 0 <= mrg <= 2 and mrg != MERGING and
            0 <= rnd <= 8 and (TRAITS[sk, dk, 2] >> rnd) & 1 != 0)


@internal
def _check_trait(sk, dk, layout, sat, mrg, rnd):
    if trait_allowed(sk, dk, layout, sat, mrg, rnd):
        return
    row = TRAITS[sk, dk]
    if row[0] == 0:
        raise UnsupportedDTypeError("Cast", "src/dst dtypes", (PAIR_TEXT, sk * 11 + dk), PAIR_LEGAL, DEVICE)
    fields = (layout, sat, mrg, rnd)
    for k in range(4):  # plain Python's _trait: each field a member of its enum, before the pair's row
        if fields[k] < 0 or fields[k] > TRAIT_TOP[k]:
            raise ParameterError("Cast", TRAIT_FIELDS[k], fields[k], TRAIT_MEMBERS[k], DEVICE)
    if rnd == HYBRID:  # SPEC-2 D47 (naming it) / D28: the fp8/hifloat8 round mode is out of scope, as in the Memory
        # Cast; the value named as the other round-mode refusals name theirs (audit63c: it read 7)
        raise UnsupportedDTypeError("Cast", "trait.roundMode", (VALUE_ROUND, rnd), "a RoundMode the pair's row of DK "
                                    "Cast.md tables 6-9 lists (CAST_HYBRID serves the fp8/hifloat8 types, out of "
                                    "scope: SPEC-2 D47, D28)", DEVICE)
    pair = sk * 11 + dk
    if layout < 0 or layout > 4 or not (row[0] >> layout) & 1:
        raise ParameterError("Cast", "trait.layoutMode", (VALUE_LAYOUT, layout), (LEGAL_LAYOUT, pair), DEVICE)
    if sat < 0 or sat > 2 or not (row[1] >> sat) & 1:
        raise ParameterError("Cast", "trait.satMode", (VALUE_SAT, sat), (LEGAL_SAT, pair), DEVICE)
    if mrg == MERGING or mrg < 0 or mrg > 2:
        raise ParameterError("Cast", "trait.mrgMode", (VALUE_MRG, mrg), "MaskMergeMode.ZEROING or UNKNOWN (SPEC-2 11.5)",
                             DEVICE)
    if rnd == 0:  # CAST_NONE is not a Reg round mode: the refusal says so
        raise ParameterError("Cast", "trait.roundMode", (VALUE_ROUND, rnd), (LEGAL_ROUND_FOR_NONE, pair), DEVICE)
    if rnd < 0 or rnd > 8 or not (row[2] >> rnd) & 1:
        raise ParameterError("Cast", "trait.roundMode", (VALUE_ROUND, rnd), (LEGAL_ROUND, pair), DEVICE)


@njit(cache=True, inline="always")
def _conversion_flags(sk, dk, sat_int, sat_float):
    """The Reg pair rules as the shared conversion's two flags (jit/convert.py, SPEC-2 7.3): integer results keep
    their low bits unless saturating, except half->int16 and narrow->wider unsigned, which always saturate (D45, 7.3
    step 6); half/bf16 results saturate with the mode, except half->bf16, whose specials pass (D71)."""
    widening_unsigned = (not (sk == KIND_HALF or sk == KIND_FLOAT or sk == KIND_BF16) and
                         (dk == KIND_UINT16 or dk == KIND_UINT32) and kind_size(dk) > kind_size(sk))
    trunc = not (sat_int or (sk == KIND_HALF and dk == KIND_INT16) or widening_unsigned)
    sat = sat_float and (dk == KIND_HALF or dk == KIND_BF16) and not (sk == KIND_HALF and dk == KIND_BF16)
    return trunc, sat


@njit(cache=True, no_cfunc_wrapper=True)
def cast(dst, src, words, layout, sat_mode, mrg, rnd, widening):
    """Reg Cast (SPEC-2 11.5, D65): the mask selects source lanes; layout k picks sub-lane k of each wide slot.
    The hot case (half/bfloat16 -> float with a trait the pair accepts, decided on ints) first, in its own loop.
    widening: 0, or None when the caller knows the pair is not half/bfloat16 -> float (a plain call, or a VF's
    registers of literal dtypes: the hot case's loop is not compiled, issue 20); a caller that knows it is that
    pair calls cast_widening instead."""
    sk, dk = np.int64(src[H_KIND]), np.int64(dst[H_KIND])
    if widening is not None:
        if widen_to_float_case(sk, dk, layout, sat_mode, mrg, rnd):
            cast_widen_to_float(dst, src, words, layout)
            return
    _cast_general(dst, src, words, layout, sat_mode, mrg, rnd)


@njit(cache=True, no_cfunc_wrapper=True)
def cast_widening(dst, src, words, layout, sat_mode, mrg, rnd):
    """Reg Cast of a pair the caller knows is half/bfloat16 -> float (a plain call, or a VF's registers of literal
    dtypes): the widening loop alone, none of the general conversion compiled (issue 20); a trait the pair refuses
    is refused naming its field. A kernel of its own rather than a marker in cast: the refusal in cast's frame made
    a VF's hot widening loop 13% slower (LLVM's code for the VF), this shape is as fast as cast."""
    sk, dk = np.int64(src[H_KIND]), np.int64(dst[H_KIND])
    if not widen_to_float_case(sk, dk, layout, sat_mode, mrg, rnd):
        _check_trait(sk, dk, layout, sat_mode, mrg, rnd)
    cast_widen_to_float(dst, src, words, layout)


@njit(cache=True, inline="always")
def _lane_bits(reg, lane, size):
    bits = np.uint64(0)
    for b in range(size):
        bits |= np.uint64(reg[lane * size + b]) << np.uint64(8 * b)
    return bits


@njit(cache=True, inline="always")
def _put(reg, at, size, bits):
    for b in range(size):
        reg[at + b] = np.uint8((bits >> np.uint64(8 * b)) & np.uint64(0xFF))


@internal  # a function of its own: cast's frame stays small for the hot case (a VF calls cast per Reg Cast)
def _cast_general(dst, src, words, layout, sat_mode, mrg, rnd):
    sk, dk = np.int64(src[H_KIND]), np.int64(dst[H_KIND])
    _check_trait(sk, dk, layout, sat_mode, mrg, rnd)
    modes = src[H_CTRL]
    if (modes & M_TRAIT_SAT) != 0 and sat_mode != SAT_UNKNOWN:  # CTRL[60] = 0: the trait decides (DK table 5)
        sat_int = sat_mode == SAT_SAT
        sat_float = sat_mode == SAT_SAT
    else:  # the global bits: CTRL[59] for integer destinations, CTRL[48] for half/bf16 destinations (D46)
        sat_int = (modes & M_CAST_TRUNC) == 0
        sat_float = (modes & M_HALF_SAT) != 0
    if sk == KIND_FLOAT and (dk == KIND_HALF or dk == KIND_BF16) and rnd == RINT and layout <= LAYOUT_ONE:
        cast_narrow(dst, src, words, layout, sat_float, dk == KIND_BF16)
        return
    mode = RINT if rnd == ROUND_UNKNOWN else rnd
    if sk == KIND_HALF and dk == KIND_INT32 and RINT <= mode <= TRUNC:   # layout ZERO / ONE (the pair's row)
        cast_to_int32(dst, src, words, mode, sat_int, layout - LAYOUT_ZERO)
        return
    if ((sk == KIND_INT8 or sk == KIND_UINT8) and dk == KIND_HALF or
            sk == KIND_HALF and (dk == KIND_INT8 or dk == KIND_UINT8) and RINT <= mode <= TRUNC):
        cast_bytes_half(dst, src, words, layout - LAYOUT_ZERO, mode, _conversion_flags(sk, dk, sat_int, sat_float)[0])
        return
    if layout <= LAYOUT_ZERO and RINT <= mode <= TRUNC:   # the same-width int32 pairs, lane j to lane j
        if sk == KIND_FLOAT and dk == KIND_INT32:
            cast_to_int32(dst, src, words, mode, sat_int, -1)
            return
        if sk == KIND_INT32 and dk == KIND_FLOAT and mode == RINT:
            cast_int32_to_float(dst, src, words)
            return
    trunc, sat = _conversion_flags(sk, dk, sat_int, sat_float)
    ss, ds = kind_size(sk), kind_size(dk)
    k = larger(layout - LAYOUT_ZERO, 0)
    # every other pair and mode lane by lane through the element routine (some 0.85 us a call): the typed lanes of
    # the Memory Cast (convert.typed_run) here would compile into every first Reg Cast, the float -> half RINT of a
    # softmax VF included (2.6 -> 5.4 s CPU on an empty cache, review 67); the quantisation kernels' pairs have
    # loops of their own above
    for i in range(VL, 2 * VL):  # results are assembled in dst's scratch bytes (dst may be src)
        dst[i] = 0
    if ds >= ss:  # widening or same width: dst lane j <- src lane r*j + k
        r = ds // ss
        for j in range(VL // ds):
            lane = r * j + k
            if lane_on(words, lane * ss):
                _put(dst, VL + j * ds, ds, convert_bits(sk, dk, mode, trunc, sat, _lane_bits(src, lane, ss)))
    else:  # narrowing: dst lane r*j + k <- src lane j, other narrow lanes 0
        r = ss // ds
        for j in range(VL // ss):
            if lane_on(words, j * ss):
                _put(dst, VL + (r * j + k) * ds, ds, convert_bits(sk, dk, mode, trunc, sat, _lane_bits(src, j, ss)))
    copy_bytes(dst, 0, dst, VL, VL)
    dst[H_CTRL] = modes


@njit(cache=True, inline="always")
def widen_to_float_case(sk, dk, layout, sat, mrg, rnd):
    """Reg Cast's hot case (the devkit's half -> float pattern): half or bfloat16 to float, with a trait the pair
    accepts. Decided on ints (see cast_widen_to_float)."""
    return (sk == KIND_HALF or sk == KIND_BF16) and dk == KIND_FLOAT and trait_allowed(sk, dk, layout, sat, mrg, rnd)


@internal
def cast_widen_to_float(dst, src, words, layout):
    """Half or bfloat16 -> float (exact; D65): dst lane j <- src lane 2j + k (k from RegLayout ZERO/ONE) when that
    source lane is active, else 0. A small function of its own with a straight loop of typed lanes (cast()'s frame
    costs more than this case's work); results through the scratch bytes, since dst may be src."""
    k = layout - LAYOUT_ZERO
    half = src[H_KIND] == KIND_HALF
    for j in range(64):
        byte = 4 * j + 2 * k
        h = u16_at_byte(src, byte)
        f = half_bits_to_f32(h) if half else bf16_bits_to_f32(h)
        on = lane_on(words, byte) != 0
        set_u32(dst, VL // 4 + j, float_store_bits(f) if on else np.uint32(0))
    copy_bytes(dst, 0, dst, VL, VL)
    dst[H_CTRL] = src[H_CTRL]


@internal
def cast_narrow(dst, src, words, layout, sat, bf16):
    """Float -> half (bf16 False) or bfloat16 CAST_RINT, the devkit's store pattern after a float computation: dst
    lane 2j + k (k from RegLayout ZERO/ONE) <- src lane j when that lane is active, every other dst lane 0 (D65).
    The hardware conversion in one vectorised loop, the lane of the Memory Cast's vector_run (jit/convert.py), the
    same bits as convert_bits: RNE with gradual underflow, overflow +-inf, NaN the canonical 0x7E00 / 0x7FC0;
    saturating, +-MAX and +0 (D46). The general path converted each lane in integer arithmetic: half of the
    gallery's Reg softmax, 49 -> 26 ms (session 37); bfloat16 since port67f (every bf16 output path of the 950's
    cast kernels: 0.9 us a call through the general path)."""
    shift = np.uint32(16 * larger(layout - LAYOUT_ZERO, 0))
    for j in range(64):
        x = f32_from_bits(u32_at(src, j))
        if bf16:
            b = f32_to_bf16_bits(x)
            if sat:   # NaN +0, an infinite result the largest finite of its sign (D46)
                b = np.uint16(0) if x != x else (
                    (b & np.uint16(0x8000)) | np.uint16(0x7F7F) if (b & np.uint16(0x7F80)) == np.uint16(0x7F80) else b)
            h = np.uint32(b)
        else:
            h = np.uint32(half_store_bits(round_half(x, sat)))
        set_u32(dst, VL // 4 + j, h << shift if lane_on(words, 4 * j) != 0 else np.uint32(0))
    copy_bytes(dst, 0, dst, VL, VL)
    dst[H_CTRL] = src[H_CTRL]


@njit(cache=True, inline="always")
def _integer_result(r, lo, hi, trunc):
    """An integer destination's value for r, a source value rounded to an integral one (D45, D46; the bits
    convert_bits gives): NaN 0; in [lo, hi] r; +-inf the extremes; out of range the extremes, or with `trunc` the
    exact integer's low bits (a float32 of magnitude 2**63 or more is a multiple of 2**40: its low 32 bits are 0)."""
    if r != r:
        return np.int64(0)
    if lo <= r <= hi or (trunc and not math.isinf(r)):
        return np.int64(r) if abs(r) < 2.0 ** 63 else np.int64(0)
    return np.int64(lo) if r < lo else np.int64(hi)


@internal
def cast_to_int32(dst, src, words, mode, saturate, half_k):
    """Float (half_k < 0: src lane j) or half (src lane 2j + half_k, RegLayout ZERO/ONE) -> int32 (SPEC-2 7.3, the
    bits convert_bits gives): each active lane rounded by `mode` (RINT to TRUNC, exact in float64), NaN 0, +-inf
    the int32 extremes, a value out of range the extremes when saturating, else the exact integer's low 32 bits (a
    float32 of magnitude 2**63 or more is a multiple of 2**40: low bits 0); inactive lanes 0. Typed lanes in one
    loop, where the element routine walked each lane's bits (0.85 us a call: port65j, ops-nn DequantBias's VF;
    half -> int32, the 950 quantise kernels' Cast, since port67f)."""
    for j in range(64):
        if half_k < 0:
            byte = 4 * j
            x = np.float64(f32_from_bits(u32_at(src, j)))
        else:
            byte = 4 * j + 2 * half_k
            x = np.float64(half_bits_to_f32(u16_at_byte(src, byte)))
        w = _integer_result(round_to_integral(x, mode), -2.0 ** 31, 2.0 ** 31 - 1, not saturate)
        on = lane_on(words, byte) != 0
        set_u32(dst, VL // 4 + j, np.uint32(w & 0xFFFFFFFF) if on else np.uint32(0))
    copy_bytes(dst, 0, dst, VL, VL)
    dst[H_CTRL] = src[H_CTRL]


@internal
def cast_bytes_half(dst, src, words, k, mode, trunc):
    """int8 / uint8 <-> half, the quantisation kernels' pair (port67j: ActsULQInputGrad's masks in, AddRmsNormQuant's
    y out; 0.6 us a call through the general path): int8 / uint8 -> half, exact, dst lane j <- src lane 2j + k; half
    -> int8 / uint8, dst lane 2j + k <- src lane j rounded by `mode` (RINT to TRUNC, exact in float64), NaN 0, +-inf
    the extremes, out of range the extremes or, with `trunc`, the exact integer's low 8 bits (the bits convert_bits
    gives, D45, D46); inactive lanes and the other narrow lanes 0 (D65). Typed lanes in one loop."""
    to_half = dst[H_KIND] == KIND_HALF
    kind = src[H_KIND] if to_half else dst[H_KIND]
    lo, hi = (-128.0, 127.0) if kind == KIND_INT8 else (0.0, 255.0)
    for i in range(VL, 2 * VL):
        dst[i] = 0
    for j in range(128):
        if to_half:
            byte = 2 * j + k
            v = src[byte]
            x = np.float32(np.int64(v) - 256 if kind == KIND_INT8 and v >= 128 else np.int64(v))
            if lane_on(words, byte) != 0:
                h = half_store_bits(x)
                dst[VL + 2 * j] = np.uint8(h & 0xFF)
                dst[VL + 2 * j + 1] = np.uint8(h >> 8)
        elif lane_on(words, 2 * j) != 0:
            w = _integer_result(round_to_integral(np.float64(half_bits_to_f32(u16_at_byte(src, 2 * j))), mode), lo,
                                hi, trunc)
            dst[VL + 2 * j + k] = np.uint8(w & 0xFF)
    copy_bytes(dst, 0, dst, VL, VL)
    dst[H_CTRL] = src[H_CTRL]


@internal
def cast_int32_to_float(dst, src, words):
    """Int32 -> float CAST_RINT (SPEC-2 7.3: round to nearest even, the host conversion's rounding): one typed loop
    for the active lanes, inactive lanes 0 (port65j, as cast_to_int32)."""
    for j in range(64):
        u = u32_at(src, j)
        v = np.int64(u) - (np.int64(u >> np.uint32(31)) << 32)   # the lane's int32 value
        on = lane_on(words, 4 * j) != 0
        set_u32(dst, VL // 4 + j, float_store_bits(np.float32(v)) if on else np.uint32(0))
    copy_bytes(dst, 0, dst, VL, VL)
    dst[H_CTRL] = src[H_CTRL]
