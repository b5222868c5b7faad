"""Ascend 950 Reg arithmetic: Add, Sub, Mul (and their carry forms), Duplicate, Reduce (SPEC-2 11.2-11.4); Max, Min,
Div, Exp on the element-wise engine's lanes; and the devkit Reg pages' instructions SPEC-2 11 does not list
(docs/decisions.md "Reg API"): the tensor-scalar forms, the unary instructions, Select on data registers, the
shifts, the fused multiply-adds and AbsSub.

Registers and masks are those of jit/reg.py (a register is 256 data bytes, scratch and a header holding its element
kind and the overflow modes it carries; a MaskReg is four uint64 words, bit i predicating register byte i). One
binary engine serves Add/Sub/Mul with the op code as an argument; lane numerics follow SPEC-2 D35: half results are
rounded once from the float32 result (exact for Mul; correct for Add/Sub since float32 has 24 >= 2*11+2 bits) and
then saturated when the half overflow mode says so, bfloat16 is computed in float32 and rounded (SPEC-2 1.6), int16
and int32 clamp when integer saturation is on, every other integer wraps, and 64-bit lanes wrap modulo 2**64.

Like every Reg kernel module (jit/reg.py REG_KERNEL_MODULES), its kernels are optimised twice when they compile,
and compiled VFs call the larger ones through pointers (docs/decisions.md "Kernels called through a pointer").
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import overload

from ..dtypes import ALL
from ..enums import DivAlgo, ExpAlgo, LnAlgo, LogAlgo, SqrtAlgo
from ..errors import ParameterError, UnsupportedDTypeError, row_table
from . import elementwise as ew
from .lanes import (abs_lane, div_lane, exp_float_run, exp_lane, float_fma_lane, fma_lane, int_abs_lane, int_div_lane,
                    int_max_lane, int_min_lane, int_relu_lane, int_stage, leaky_relu_lane, ln_lane, max_lane, min_lane,
                    narrow, relu_lane, sqrt_lane, uint64_div_lane)
from .ubview import ub_as
from .numerics import (BF16_NAN, KIND_BF16, KIND_FLOAT, KIND_HALF, KIND_INT8, KIND_INT16, KIND_INT32, KIND_INT64,
                       KIND_UINT8, KIND_UINT16, KIND_UINT32, KIND_UINT64, bf16_bits_to_f32, f32_bits, f32_from_bits,
                       f32_to_bf16_bits, float_store_bits, half_bits_to_f32, half_rne_bits, half_store_bits, kind_size,
                       round_half)
from .reg import (ALL_LANES, H_CTRL, H_KIND, M_HALF_SAT, M_INT_SAT, M_KNOWN, REG_BYTES, VL, int_range, internal,
                  all_active, data_of, lane_access, lane_on, set_u8, set_u16, set_u32, u8_at, u16_at, u32_at)
from .reg_move import copy_bytes
from .lowered import empty_array, larger, lowered, scratch_array, smaller, uint8_vector, zeroed_array

ADD, SUB, MUL = 0, 1, 2
SUM, MAX, MIN = 0, 1, 2
_OP_NAMES = row_table("Reg Add/Sub/Mul API", ("Add", "Sub", "Mul"))  # by op (a row table, errors.py)
DEVICE = "ascend950"


@njit(cache=True, inline="always")
def merged_modes(a_modes, b_modes):
    """The overflow modes a result carries: those of its first source that was loaded from a tensor (the sources'
    H_CTRL bytes). Takes the bytes, not the registers: an array handed to an inlined function with a branch costs
    reference-count updates on every call, more than a whole 128-lane Add."""
    return a_modes if a_modes & M_KNOWN else b_modes


@njit(cache=True, inline="always")
def wrap_or_clamp(v, lo, hi, clamp):
    """An exact integer result in the lane type: clamped (int16/int32 with saturation on) or two's-complement
    wrapped, written out so compiled and plain-Python runs agree (SPEC-2 D35)."""
    if clamp:
        return smaller(larger(v, lo), hi)
    return (v - lo) % (hi - lo + 1) + lo


@njit(cache=True, inline="always")
def _arith_lane(x, y, op):
    """Add, Sub or Mul of two lanes in their own type (numba specialises it per integer or float type)."""
    if op == ADD:
        return x + y
    if op == SUB:
        return x - y
    return x * y


def int_lane(reg, j, size, signed):
    """Lane j of a 1-, 2- or 4-byte integer register as an int64 (sign-extended when signed), read through its
    bytes: a typed view per integer type would be a compiled specialisation each (compile time, issue 20)."""
    if size == 1:
        v = np.int64(reg[j])
        bits = 8
    elif size == 2:
        v = np.int64(u16_at(reg, j))
        bits = 16
    else:
        v = np.int64(u32_at(reg, j))
        bits = 32
    if signed and v >= (1 << (bits - 1)):
        v -= 1 << bits
    return v


def set_int_lane(reg, j, size, v):
    """Lane j of a 1-, 2- or 4-byte integer register = the low bytes of v (two's complement)."""
    if size == 1:
        reg[j] = np.uint8(v & 0xFF)
    elif size == 2:
        set_u16(reg, j, np.uint16(v & 0xFFFF))
    else:
        set_u32(reg, j, np.uint32(v & 0xFFFFFFFF))


def _int_lane_access(store):
    """Codegen of int_lane (args: register, j, size, signed) or set_int_lane (register, j, size, value): a branch
    per lane width, each one load or store through a typed pointer into the register's bytes (contiguous, as for
    every lane access of jit/reg.py). They were inline="always" functions whose three-way body numba inlined, typed
    and lowered again at each of a dozen call sites (issue 20)."""
    def codegen(context, builder, sig, args):
        register, j, size = args[:3]
        i64 = ir.IntType(64)
        result = None if store else cgutils.alloca_once(builder, i64)

        def access(width):  # jit/reg.py's typed lane access of that width
            if store:
                lane_access(width, width // 8, True)(context, builder, sig,
                                                     (register, j, builder.trunc(args[3], ir.IntType(width))))
            else:
                v = lane_access(width, width // 8, False)(context, builder, sig, (register, j))
                builder.store(builder.select(args[3], builder.sext(v, i64), builder.zext(v, i64)), result)

        with builder.if_else(builder.icmp_signed("==", size, ir.Constant(i64, 1))) as (one, wider):
            with one:
                access(8)
            with wider:
                with builder.if_else(builder.icmp_signed("==", size, ir.Constant(i64, 2))) as (two, four):
                    with two:
                        access(16)
                    with four:
                        access(32)
        return context.get_dummy_value() if store else builder.load(result)
    return codegen


lowered(int_lane, (uint8_vector, types.int64, types.int64, types.boolean), types.int64, _int_lane_access(False))
lowered(set_int_lane, (uint8_vector, types.int64, types.int64, types.int64), types.none, _int_lane_access(True))


def u64_at(reg, j):
    return np.uint64(u32_at(reg, 2 * j)) | (np.uint64(u32_at(reg, 2 * j + 1)) << np.uint64(32))


def i64_at(reg, j):
    """Lane j of an int64 register, from its two 32-bit halves (no uint64 -> int64 cast: plain Python refuses it
    for patterns >= 2**63)."""
    high = np.int64(u32_at(reg, 2 * j + 1))
    return (high - ((high >> 31) << 32)) * 4294967296 + np.int64(u32_at(reg, 2 * j))


def set_u64(reg, j, v):
    set_u32(reg, 2 * j, np.uint32(v & np.uint64(0xFFFFFFFF)))
    set_u32(reg, 2 * j + 1, np.uint32(v >> np.uint64(32)))


# compiled: one 64-bit load or store, as jit/reg.py's 16- and 32-bit lanes (issue 20)
lowered(u64_at, (uint8_vector, types.intp), types.uint64, lane_access(64, 8, False))
lowered(i64_at, (uint8_vector, types.intp), types.int64, lane_access(64, 8, False))
lowered(set_u64, (uint8_vector, types.intp, types.uint64), types.none, lane_access(64, 8, True))


# The all-lanes half loops: each loop body is straight code (typed lane loads and stores around one call of a
# small lane function), so numba leaves no reference counting inside it and LLVM inlines the lane function and
# vectorises the loop; the lane functions hold the branches (selects), as their own numba functions. One function
# for the three ops (the op chosen outside the loops): one compile serves Add, Sub and Mul.
@internal
def _half_add_bits(x, y):
    return half_rne_bits(half_bits_to_f32(x) + half_bits_to_f32(y))


@internal
def _half_sub_bits(x, y):
    return half_rne_bits(half_bits_to_f32(x) - half_bits_to_f32(y))


@internal
def _half_mul_bits(x, y):
    return half_rne_bits(half_bits_to_f32(x) * half_bits_to_f32(y))


@internal
def _saturated_bits(h):
    """D35's saturation on stored half bits: +-inf -> +-65504, the canonical NaN -> +0 (what round_half(x, True)
    then half_store_bits give)."""
    h = np.uint16(0x7BFF) if h == np.uint16(0x7C00) else h
    h = np.uint16(0xFBFF) if h == np.uint16(0xFC00) else h
    return np.uint16(0) if h == np.uint16(0x7E00) else h


@internal
def _half_lanes(dst, a, b, modes, op):
    """Every lane of a half Add/Sub/Mul into dst's scratch bytes (lanes 128..255), saturated when `modes` says so:
    dst may then be a source (Add(r, r, s)). dst, a, b: the registers' data pointers (data_of)."""
    if op == ADD:
        for j in range(128):
            set_u16(dst, 128 + j, _half_add_bits(u16_at(a, j), u16_at(b, j)))
    elif op == SUB:
        for j in range(128):
            set_u16(dst, 128 + j, _half_sub_bits(u16_at(a, j), u16_at(b, j)))
    else:
        for j in range(128):
            set_u16(dst, 128 + j, _half_mul_bits(u16_at(a, j), u16_at(b, j)))
    if (modes & M_HALF_SAT) != 0:
        for j in range(128, 256):
            set_u16(dst, j, _saturated_bits(u16_at(dst, j)))


@njit(cache=True, no_cfunc_wrapper=True)
def half_binary_hot(dst, src0, src1, words, op, merging):
    """Add/Sub/Mul's hot case in a VF, on the registers' data pointers: three half registers, every lane active,
    ZEROING (from the header bytes): done, True; anything else False (the VF then calls binary)."""
    if (merging or u8_at(dst, H_KIND) != KIND_HALF or u8_at(src0, H_KIND) != KIND_HALF or
            u8_at(src1, H_KIND) != KIND_HALF or not all_active(words)):
        return False
    modes = merged_modes(u8_at(src0, H_CTRL), u8_at(src1, H_CTRL))
    _half_lanes(dst, src0, src1, modes, op)
    copy_bytes(dst, 0, dst, VL, VL)
    set_u8(dst, H_CTRL, modes)
    return True


# port64k: ops-cv BoundingBoxDecode's Mul<float>(d, s, (RegTensor<float>&)int_reg, m) had no way forward named
_ONE_TYPE_LEGAL = ("one element type for dst, src0 and src1 (SPEC-2 11.2); a C++ (RegTensor<T>&) cast of another "
                   "type's register is a store of it into a tensor of T and a load back after "
                   "LocalMemBar(VEC_STORE, VEC_LOAD)")


@internal
def _check_binary(dk, k0, k1, op, merging):
    # src0's dtype first, as plain Python checks it before the kernel runs
    if op == MUL and (k0 == KIND_INT8 or k0 == KIND_UINT8):
        raise UnsupportedDTypeError("Mul", "kind", k0, "half, float, bfloat16, int16, uint16, int32, uint32, int64, "
                                    "uint64 (SPEC-2 11.2)", DEVICE)  # plain Python's list (reg.py ARITH_DTYPES)
    if dk != k0 or dk != k1:
        raise UnsupportedDTypeError((_OP_NAMES, op), "dst/src0/src1 kinds", (dk, k0, k1), _ONE_TYPE_LEGAL, DEVICE)
    if merging and op != ADD:
        raise ParameterError((_OP_NAMES, op), "mode", "MERGING", "MaskMergeMode.ZEROING (SPEC-2 D67)", DEVICE)


@njit(cache=True, no_cfunc_wrapper=True)
def binary(dst, src0, src1, words, op, merging, half_class, wide_class, int_class):
    """Reg Add/Sub/Mul (SPEC-2 11.2): active lanes get src0 op src1; inactive lanes 0 (ZEROING) or kept (MERGING,
    Add only). Every lane is computed into dst's scratch bytes, then the mask picks the lanes that land (one masked
    copy for every type: fewer loop variants to compile than a mask test in each type's loop); lanes are read and
    written through the register's bytes, not typed views (one compiled function for every type).
    half_class, wide_class (float, bfloat16), int_class (every integer width): dtype-class markers as
    engine_binary's (0 or None: numba compiles a class's lanes only under a marker that is not None): a plain call
    and a VF register of a literal dtype pass their class alone (issue 20), a register of a run-time dtype all."""
    kind = np.int64(src0[H_KIND])
    _check_binary(np.int64(dst[H_KIND]), kind, np.int64(src1[H_KIND]), op, merging)
    modes = merged_modes(src0[H_CTRL], src1[H_CTRL])
    size = kind_size(kind)
    if half_class is not None:
        if kind == KIND_HALF:
            _half_lanes(data_of(dst), data_of(src0), data_of(src1), modes, op)
    if wide_class is not None:
        if kind == KIND_FLOAT:
            for j in range(64):
                r = _arith_lane(f32_from_bits(u32_at(src0, j)), f32_from_bits(u32_at(src1, j)), op)
                set_u32(dst, 64 + j, float_store_bits(r))
        elif kind == KIND_BF16:
            for j in range(128):
                r = _arith_lane(bf16_bits_to_f32(u16_at(src0, j)), bf16_bits_to_f32(u16_at(src1, j)), op)
                set_u16(dst, 128 + j, f32_to_bf16_bits(r))
    if int_class is not None:
        if kind == KIND_INT64 or kind == KIND_UINT64:  # uint64 patterns: +, -, * modulo 2**64 are sign-blind
            for j in range(32):
                set_u64(dst, 32 + j, _arith_lane(u64_at(src0, j), u64_at(src1, j), op))
        elif kind > KIND_BF16:
            lo, hi = int_range(kind)
            clamp = (modes & M_INT_SAT) != 0 and (kind == KIND_INT16 or kind == KIND_INT32)
            lanes = VL // size
            for j in range(lanes):
                x, y = int_lane(src0, j, size, lo < 0), int_lane(src1, j, size, lo < 0)
                set_int_lane(dst, lanes + j, size, wrap_or_clamp(_arith_lane(x, y, op), lo, hi, clamp))
    _merge_lanes(dst, words, size, merging)
    dst[H_CTRL] = modes


@njit(cache=True, no_cfunc_wrapper=True)
def binary_carry(carry, dst, src0, src1, words, op):
    """Add/Sub carry forms, int32/uint32 (SPEC-2 11.2, D67): modular results; carry bit 4k of lane k is the carry
    out of x + y (Add) or "no borrow", x >= y unsigned (Sub); inactive lanes give dst 0 and carry 0."""
    kind = np.int64(src0[H_KIND])
    if not (kind == KIND_INT32 or kind == KIND_UINT32) or dst[H_KIND] != kind or src1[H_KIND] != kind:
        raise UnsupportedDTypeError((_OP_NAMES, op), "dst/src0/src1 kinds", (dst[H_KIND], kind, src1[H_KIND]),
                                    "int32 or uint32, the same for all three (carry form, SPEC-2 11.2)", DEVICE)
    d, a, b = ub_as(dst[:VL], np.uint32), ub_as(src0[:VL], np.uint32), ub_as(src1[:VL], np.uint32)
    out = zeroed_array(4, np.uint64)
    for j in range(64):
        if lane_on(words, 4 * j):
            x, y = np.int64(a[j]), np.int64(b[j])
            if op == ADD:
                r, c = x + y, x + y >= 4294967296
            else:
                r, c = x - y, x >= y
            d[j] = np.uint32(r & 0xFFFFFFFF)
            if c:
                out[(4 * j) >> 6] |= np.uint64(1) << np.uint64((4 * j) & 63)
        else:
            d[j] = 0
    for w in range(4):
        carry[w] = out[w]
    dst[H_CTRL] = merged_modes(src0[H_CTRL], src1[H_CTRL])


@njit(cache=True, no_cfunc_wrapper=True)
def duplicate_bits(dst, bits, words, merging):
    """Duplicate of a scalar already converted to the register's bit pattern (SPEC-2 11.3, D29)."""
    size = kind_size(dst[H_KIND])
    for j in range(VL // size):
        if lane_on(words, j * size):
            for k in range(size):
                dst[j * size + k] = np.uint8((bits >> np.uint64(8 * k)) & np.uint64(0xFF))
        elif not merging:
            for k in range(size):
                dst[j * size + k] = 0


@njit(cache=True, no_cfunc_wrapper=True)
def duplicate_lane0(dst, src, words, merging):
    """Duplicate of lane 0 of src (HighLowPart LOWEST, SPEC-2 11.3)."""
    if dst[H_KIND] != src[H_KIND]:
        raise UnsupportedDTypeError("Duplicate", "dst/src kinds", (dst[H_KIND], src[H_KIND]),
                                    "one element type for dst and src (SPEC-2 11.3)", DEVICE)
    size = kind_size(dst[H_KIND])
    bits = np.uint64(0)
    for k in range(size):
        bits |= np.uint64(src[k]) << np.uint64(8 * k)
    duplicate_bits(dst, bits, words, merging)
    dst[H_CTRL] = src[H_CTRL]


# --- D29 scalar conversion in compiled code (the plain-Python path uses api/_scalar.py, same bits) ---------------
@internal
def _round_odd_f32(x):
    """float64 -> float32 rounded to odd: a later RNE to <= 22 significand bits then rounds the double once."""
    f = np.float32(x)
    if np.float64(f) != x and np.isfinite(f):
        u = f32_bits(f)
        if u & np.uint32(1) == 0:  # the even neighbour: take the odd one on x's side
            toward_zero = abs(np.float64(f)) > abs(x)
            u = u - np.uint32(1) if toward_zero else u + np.uint32(1)
            f = f32_from_bits(u)
    return f


@internal
def scalar_float_bits(kind, x):
    """D29 for a float register: one RNE rounding of the double x; NaN canonical; overflow to inf."""
    if kind == KIND_FLOAT:
        return np.uint64(float_store_bits(np.float32(x)))
    if x != x:
        return np.uint64(0x7E00) if kind == KIND_HALF else np.uint64(BF16_NAN)
    f = _round_odd_f32(x)
    if kind == KIND_HALF:
        return np.uint64(half_store_bits(round_half(f, False)))
    return np.uint64(f32_to_bf16_bits(f))


# D29's legal range of an integer register's scalar, by kind (the plain-Python refusal's text): raised as (table,
# kind), so the compiled refusal names the numbers without formatting or picking strings at run time (errors.py
# ROW_TABLES)
_INT_SCALAR_LEGAL = row_table("Reg integer scalar range by kind", (
    "", "", "",  # (half, float, bfloat16: no integer range)
    "[-128, 127] for int8 (no implicit wrap, SPEC-2 D29)",
    "[0, 255] for uint8 (no implicit wrap, SPEC-2 D29)",
    "[-32768, 32767] for int16 (no implicit wrap, SPEC-2 D29)",
    "[0, 65535] for uint16 (no implicit wrap, SPEC-2 D29)",
    "[-2147483648, 2147483647] for int32 (no implicit wrap, SPEC-2 D29)",
    "[0, 4294967295] for uint32 (no implicit wrap, SPEC-2 D29)",
    "[-9223372036854775808, 9223372036854775807] for int64 (no implicit wrap, SPEC-2 D29)",
    "[0, 18446744073709551615] for uint64 (no implicit wrap, SPEC-2 D29)"))


# plain Python's D29 refusals of a float for an integer register and of a bool (api/_scalar.py scalar_bits), by the
# register's kind: a compiled VF names the same legal range, raised as (table, kind) as above
INT_FLOAT_LEGAL = row_table("Reg float scalar for an integer register by kind", (
    f"an integer in the range of {d.name} (SPEC-2 D29: floats and other types are refused for integer operands)"
    for d in ALL))
BOOL_LEGAL = row_table("Reg bool scalar by kind", (f"a {d.name} value (bool is refused, SPEC-2 D29)"
                                                   for d in ALL))


@internal
def scalar_int_bits(api, kind, v):
    """D29 for an integer register: the value must lie in the type's range (no implicit wrap); its bit pattern."""
    if kind == KIND_INT64 or kind == KIND_UINT64:
        if kind == KIND_UINT64 and v < 0:
            raise ParameterError(api, "scalar", v, (_INT_SCALAR_LEGAL, kind), DEVICE)
        if v < 0:  # two's complement of a negative int64, without a signed-to-unsigned cast
            return np.uint64(v + 9223372036854775807 + 1) + np.uint64(9223372036854775808)
        # a VF argument in [2**63, 2**64) arrives as uint64: past int64's range (compared as uint64, exactly: a mixed
        # int64/uint64 comparison is a float64 one, where 2**63 equals INT64_MAX)
        if kind == KIND_INT64 and np.uint64(v) > np.uint64(9223372036854775807):
            raise ParameterError(api, "scalar", v, (_INT_SCALAR_LEGAL, kind), DEVICE)
        return np.uint64(v)
    lo, hi = int_range(kind)
    if v < lo or v > hi:
        raise ParameterError(api, "scalar", v, (_INT_SCALAR_LEGAL, kind), DEVICE)
    return np.uint64(v & ((1 << (8 * kind_size(kind))) - 1))


@internal
def _int_to_f64_odd(v):
    """An int64 or uint64 as a double rounded to odd: scalar_float_bits' RNE to float, half or bfloat16 then rounds
    the exact integer once (D29). np.float64(v) rounds to nearest at 53 bits first, a double rounding that sent
    2**53 + 2**29 + 1 to the float tie 2**53 + 2**29 and from there to 2**53 instead of 2**53 + 2**30."""
    negative = v < 0
    mag = np.uint64(-(v + 1)) + np.uint64(1) if negative else np.uint64(v)  # |INT64_MIN| too, without overflow
    sticky = np.uint64(0)
    shift = 0
    while mag >= np.uint64(9007199254740992):  # 2**53: shift the excess bits out, keeping whether any was set
        sticky |= mag & np.uint64(1)
        mag >>= np.uint64(1)
        shift += 1
    f = np.float64(mag | sticky) * 2.0 ** shift  # exact: fewer than 54 significant bits, times a power of two
    return -f if negative else f


@internal
def scalar_bits(api, kind, fvalue, ivalue, is_float_arg):
    """A VF's scalar argument as the register's bit pattern (D29): floats round once to a float register and are
    refused for integer registers; ints must fit an integer register. `api` names the instruction in refusals
    (Duplicate, or a tensor-scalar instruction)."""
    if kind == KIND_HALF or kind == KIND_FLOAT or kind == KIND_BF16:
        return scalar_float_bits(kind, fvalue if is_float_arg else _int_to_f64_odd(ivalue))
    if is_float_arg:
        raise ParameterError(api, "scalar", fvalue, (INT_FLOAT_LEGAL, kind), DEVICE)
    return scalar_int_bits(api, kind, ivalue)


@internal
def interleave_group(kind, inverse):
    """Mask bits per element of a b8/b16/b32 type (Interleave / DeInterleave, D64). The refusal names the API
    called (`inverse`: DeInterleave), as plain Python's does; one flag, not a literal name, so one signature."""
    size = kind_size(kind)
    if size == 8:
        if inverse:
            raise UnsupportedDTypeError("DeInterleave", "kind", kind, "a b8, b16 or b32 type (SPEC-2 11.7)", DEVICE)
        raise UnsupportedDTypeError("Interleave", "kind", kind, "a b8, b16 or b32 type (SPEC-2 11.7)", DEVICE)
    return size


# --- Reduce --------------------------------------------------------------------------------------------------
@internal  # a function of its own, not inlined: compiled once for every dtype class of reduce (issue 20)
def _check_reduce(op, dk, sk):
    # plain Python's order and words (reg.py Reduce): the source's dtype against the op's table, then SUM's dst
    # dtype against the one its source sums into; MAX/MIN with another dst dtype is this kernel's refusal in both
    sk_ok = sk == KIND_HALF or sk == KIND_FLOAT or sk == KIND_INT16 or sk == KIND_UINT16 or sk == KIND_INT32 or \
        sk == KIND_UINT32 or sk == KIND_INT64 or sk == KIND_UINT64
    if not sk_ok:
        if op == SUM:
            raise UnsupportedDTypeError("Reduce", "kind", sk, "half, float, int16, uint16, int32, uint32, int64, "
                                        "uint64 (SPEC-2 11.4)", DEVICE)
        raise UnsupportedDTypeError("Reduce", "kind", sk, "int16, uint16, half, int32, uint32, float, int64, uint64 "
                                    "(SPEC-2 11.4)", DEVICE)
    if op == SUM:
        sums_into = KIND_INT32 if sk == KIND_INT16 else (KIND_UINT32 if sk == KIND_UINT16 else sk)
        if dk != sums_into:  # the legal range names both dtypes, as kind codes (errors.py _named_legal)
            raise UnsupportedDTypeError("Reduce", "dst kind", dk, (sums_into, " for a ", sk, " source (SPEC-2 11.4)"),
                                        DEVICE)
    ok = op == SUM or dk == sk
    if not ok:
        raise UnsupportedDTypeError("Reduce", "dst/src kinds", (dk, sk),
                                    "SUM: half, float, int32<-int16|int32, uint32<-uint16|uint32, int64, uint64; "
                                    "MAX/MIN: one of int16, uint16, half, int32, uint32, float, int64, uint64 "
                                    "(SPEC-2 11.4)", DEVICE)


@njit(cache=True, inline="always")
def _sign(x):
    return (f32_bits(x) >> np.uint32(31)) == 1


@njit(cache=True, inline="always")
def _beats(v, best, op):
    """v strictly beyond best in the D41 total order (-0 < +0)."""
    if v == best:
        return v == 0 and (_sign(best) and not _sign(v) if op == MAX else _sign(v) and not _sign(best))
    return v > best if op == MAX else v < best


@njit(cache=True, inline="always")
def _float_extreme(vals, words, size, op):
    """Value and first index of the D41 extreme of the active lanes; NaN wins at its first lane (SPEC-2 D66)."""
    best = np.float32(-np.inf) if op == MAX else np.float32(np.inf)
    index, found = 0, False
    for j in range(vals.size):
        if lane_on(words, j * size):
            v = vals[j]
            if v != v:
                return v, j
            if not found or _beats(v, best, op):
                best, index, found = v, j, True
    return best, index


@njit(cache=True, inline="always")
def _int_extreme(vals, words, size, op, lo, hi, unsigned):
    """Value and first index of the MAX/MIN of the active lanes (int64 values; `unsigned`: uint64 bit patterns,
    compared as unsigned); (lo or hi, 0) when no lane is active (SPEC-2 D66)."""
    best = lo if op == MAX else hi
    bias = np.int64(-9223372036854775807 - 1) if unsigned else np.int64(0)  # x ^ MIN orders patterns unsigned
    index, found = 0, False
    for j in range(vals.size):
        if lane_on(words, j * size):
            v = vals[j]
            if not found or ((v ^ bias) > (best ^ bias) if op == MAX else (v ^ bias) < (best ^ bias)):
                best, index, found = v, j, True
    return best, index


@njit(cache=True, inline="always")
def _put(dst, lane, size, bits):
    """Lane `lane` of a size-byte type = the low bytes of the uint64 `bits`."""
    for k in range(size):
        dst[lane * size + k] = np.uint8((bits >> np.uint64(8 * k)) & np.uint64(0xFF))


@njit(cache=True, no_cfunc_wrapper=True)
def reduce(dst, src, words, op, merging, float_class, int_class):
    """Reg Reduce (SPEC-2 11.4, D66): SUM by the adjacent-pair tree over all lanes (inactive lanes +0) into lane 0;
    MAX/MIN value into lane 0 and the first index attaining it into lane 1; every other lane 0. ZEROING only.
    float_class / int_class: dtype-class markers (0 or None, as engine_binary's): a plain call or a VF register of a
    literal dtype passes the source's class alone (its first call compiles that class only, issue 20), a register of
    a run-time dtype both (the class then from the kind)."""
    if merging:
        raise ParameterError("Reduce", "mode", "MERGING", "MaskMergeMode.ZEROING (SPEC-2 11.4)", DEVICE)
    if op < SUM or op > MIN:
        raise ParameterError("Reduce", "reduce_type", op, "a ReduceType: SUM, MAX or MIN (SPEC-2 11.4)", DEVICE)
    dk, sk = np.int64(dst[H_KIND]), np.int64(src[H_KIND])
    _check_reduce(op, dk, sk)
    modes = src[H_CTRL]
    sat = (modes & M_HALF_SAT) != 0
    ssize, dsize = kind_size(sk), kind_size(dk)
    lanes = VL // ssize
    value_bits = np.uint64(0)
    index = 0
    is_float = sk == KIND_HALF or sk == KIND_FLOAT
    if float_class is not None:
        if is_float:
            value_bits, index = _reduce_floats(src, words, op, sk, ssize, lanes, sat)
    if int_class is not None:
        if not is_float:
            value_bits, index = _reduce_ints(src, words, op, sk, ssize, lanes)
    for i in range(VL):
        dst[i] = 0
    _put(dst, 0, dsize, value_bits)
    if op != SUM:
        _put(dst, 1, dsize, np.uint64(index))
    dst[H_CTRL] = modes


@njit(cache=True, inline="always")
def _reduce_floats(src, words, op, sk, ssize, lanes, sat):
    """(value bits, index) of a half/float Reduce."""
    index = 0
    vals = empty_array(lanes, np.float32)  # lanes read through the register's bytes (no view per type)
    if sk == KIND_HALF:
        for j in range(lanes):
            vals[j] = half_bits_to_f32(u16_at(src, j))
    else:
        for j in range(lanes):
            vals[j] = f32_from_bits(u32_at(src, j))
    if op == SUM:
        for j in range(lanes):
            if not lane_on(words, j * ssize):
                vals[j] = np.float32(0.0)
        width = lanes
        while width > 1:
            width //= 2
            for k in range(width):
                s = vals[2 * k] + vals[2 * k + 1]
                vals[k] = round_half(s, sat) if sk == KIND_HALF else s
        r = vals[0]
    else:
        r, index = _float_extreme(vals, words, ssize, op)
        if sk == KIND_HALF:
            r = round_half(r, sat)  # the value written through SAT (D66)
    value_bits = np.uint64(half_store_bits(r)) if sk == KIND_HALF else np.uint64(float_store_bits(r))
    return value_bits, index


@njit(cache=True, inline="always")
def _reduce_ints(src, words, op, sk, ssize, lanes):
    """(value bits, index) of an integer Reduce: the exact sum (the caller stores its dst-width low bytes) or the
    MAX/MIN and its index."""
    index = 0
    if (sk == KIND_INT64 or sk == KIND_UINT64) and op == SUM:  # modulo 2**64 (SPEC-2 11.4)
        acc = np.uint64(0)
        for j in range(32):
            if lane_on(words, 8 * j):
                acc += u64_at(src, j)
        value_bits = acc
    else:  # integer lanes as int64 values (uint64: their bit patterns), read through the register's bytes
        vals_i = empty_array(lanes, np.int64)
        if ssize == 8:
            lo = np.int64(-9223372036854775807 - 1) if sk == KIND_INT64 else np.int64(0)
            hi = np.int64(9223372036854775807) if sk == KIND_INT64 else np.int64(-1)  # uint64: all ones
            for j in range(lanes):
                vals_i[j] = i64_at(src, j)
        else:
            lo, hi = int_range(sk)
            for j in range(lanes):
                vals_i[j] = int_lane(src, j, ssize, lo < 0)
        if op == SUM:
            acc_i = np.int64(0)
            for j in range(lanes):
                if lane_on(words, j * ssize):
                    acc_i += vals_i[j]  # exact, then wrapped to the dst width (SPEC-2 11.4, D66)
            v = acc_i
        else:
            v, index = _int_extreme(vals_i, words, ssize, op, np.int64(lo), np.int64(hi), sk == KIND_UINT64)
        # v's two's complement pattern (no signed-to-unsigned cast: plain Python refuses it for negative values)
        value_bits = np.uint64(v & 0x7FFFFFFFFFFFFFFF) | (np.uint64(1) << np.uint64(63) if v < 0 else np.uint64(0))
    return value_bits, index


# --- Max, Min, Div, Exp: the 950 Memory-API element-wise numerics on a register ----------------------------------
# SPEC-2 11 has no Reg Max/Min/Div/Exp; the devkit's Reg softmax uses them (docs/decisions.md "Reg API"). They run
# through the element-wise engine itself (jit/elementwise.py binary_run / unary_run) on the register's 256 bytes,
# so every lane is computed exactly as the 950 Memory-API instruction with its default algorithm computes it
# (INTRINSIC: DAZ/FTZ for Div and Exp, D38), then the mask merges the lanes (ZEROING; MERGING for Max and Min).
ENGINE_NAMES = {ew.MAX: "Max", ew.MIN: "Min", ew.DIV: "Div", ew.EXP: "Exp"}
PRELU = 47  # Reg Prelu (DK R/基础算术/Prelu.md): the LeakyRelu lane with a per-lane slope (the engine has no code)
# Reg Div with a DivSpecificMode whose code keeps subnormals (DivAlgo PRECISION_*_FTZ_FALSE): Div's lane without
# D38's DAZ/FTZ, as the Memory-API Div of those algorithms computes it (SPEC-2 2.3 Div table)
DIV_SUBNORMALS = 48
# Reg Exp / Ln / Log / Sqrt with a SpecificMode whose code keeps subnormals (the PRECISION_1ULP_FTZ_FALSE code, and
# Sqrt's SqrtFastInverseImpl with D49's domain): the lanes of the Memory-API instruction of that algorithm (codes
# apart from every other op code of this module: engine_unary and unary tell them from ew's and their own)
EXP_SUBNORMALS, LN_SUBNORMALS, LOG_SUBNORMALS, SQRT_SUBNORMALS, SQRT_INVERSE_IMPL = range(60, 65)

# DivAlgo's values (DK include/basic_api/reg_compute/kernel_reg_compute_utils.h; aj.DivAlgo)
ALGO_INTRINSIC, ALGO_DIFF_COMPENSATION, ALGO_1ULP_FTZ_TRUE, ALGO_0ULP_FTZ_TRUE, ALGO_0ULP_FTZ_FALSE, \
    ALGO_1ULP_FTZ_FALSE = range(6)
# The code Reg Div runs for a legal DivSpecificMode (DK I/reg_compute/dav_3510/kernel_reg_compute_vec_binary_impl.h
# DivImpl's dispatch), named by the Memory-API algorithm that runs the same code (its dav_3510 DivImpl passes these
# modes to Reg Div): vdiv alone (INTRINSIC), DivPrecisionImpl (PRECISION_0ULP_FTZ_TRUE), DivIEEE754*Impl with
# is0ULP (PRECISION_0ULP_FTZ_FALSE) or with vdiv (PRECISION_1ULP_FTZ_FALSE)
DIV_PATH_NAMES = ("INTRINSIC", "PRECISION_0ULP_FTZ_TRUE", "PRECISION_0ULP_FTZ_FALSE", "PRECISION_1ULP_FTZ_FALSE")


@njit(cache=True, no_cfunc_wrapper=True)
def div_path(precision, algo):
    """DivImpl's dispatch for a legal (precisionMode, algo): an index of DIV_PATH_NAMES. precisionMode routes every
    algorithm but PRECISION_0ULP_FTZ_FALSE to DivPrecisionImpl (PRECISION_1ULP_FTZ_FALSE too, which then flushes:
    the code, not the page's "only ..._FTZ_FALSE keep subnormals", decides what runs); without it DIFF_COMPENSATION
    is vdiv alone."""
    if algo == ALGO_0ULP_FTZ_FALSE:
        return 2
    if precision != 0 or algo == ALGO_0ULP_FTZ_TRUE:
        return 1
    if algo == ALGO_1ULP_FTZ_FALSE:
        return 3
    return 0


# SqrtAlgo's values (aj.SqrtAlgo, the devkit's) and the code Reg Sqrt runs for a legal SqrtSpecificMode (DK
# dav_3510 kernel_reg_compute_vec_unary_impl.h SqrtImpl), named by a Memory-API algorithm running the same code
# (its dav_3510 SqrtImpl passes these modes to Reg Sqrt): vsqrt (INTRINSIC), SqrtFastInverseImpl
# (PRECISION_0ULP_FTZ_FALSE, which the Memory API's FAST_INVERSE runs too, with precisionMode; without it the algo
# FAST_INVERSE is vsqrt), the scaled vsqrt of PRECISION_1ULP_FTZ_FALSE
SQRT_ALGO_FAST_INVERSE, SQRT_ALGO_0ULP_FTZ_FALSE, SQRT_ALGO_1ULP_FTZ_FALSE = 1, 3, 4
SQRT_PATH_NAMES = ("INTRINSIC", "PRECISION_0ULP_FTZ_FALSE", "PRECISION_1ULP_FTZ_FALSE")


@njit(cache=True, no_cfunc_wrapper=True)
def sqrt_path(precision, algo):
    """SqrtImpl's dispatch for a legal (precisionMode, algo): an index of SQRT_PATH_NAMES. precisionMode runs the
    fast-inverse code whatever the algo; without it algo FAST_INVERSE runs plain vsqrt (the code, not the page, which
    names FAST_INVERSE the fast-inverse algorithm: the Memory API's FAST_INVERSE passes precisionMode = true)."""
    if precision != 0 or algo == SQRT_ALGO_0ULP_FTZ_FALSE:
        return 1
    if algo == SQRT_ALGO_1ULP_FTZ_FALSE:
        return 2
    return 0


# The Reg instructions taking a SpecificMode struct (DK include/basic_api/reg_compute/kernel_reg_compute_utils.h):
# rows of the refusal texts, indexed by the api code specific_mode_op takes
MODE_APIS = ("Div", "Exp", "Ln", "Log", "Sqrt")
MODE_DIV, MODE_EXP, MODE_LN, MODE_LOG, MODE_SQRT = range(5)
_MODE_ALGO_ENUMS = (DivAlgo, ExpAlgo, LnAlgo, LogAlgo, SqrtAlgo)
_MODE_ALGO_MAX = tuple(int(max(e)) for e in _MODE_ALGO_ENUMS)  # each enum's values run 0..max
_MODE_API = row_table("Reg mode API", MODE_APIS)
# as_enum's words for a field that is no member of its enum (api/_common.py enum_legal), so a compiled VF, whose
# fields reach specific_mode_op unchecked, refuses as plain Python's _specific_mode does
_MRG_MEMBERS = "MaskMergeMode.ZEROING (0), MaskMergeMode.MERGING (1), MaskMergeMode.UNKNOWN (2)"
_MODE_ALGOS = row_table("Reg mode algos", (", ".join(f"{e.__name__}.{m.name} ({m.value})" for m in e)
                                           for e in _MODE_ALGO_ENUMS))
# (rows by api code: Exp, Ln and Log have neither a precisionMode nor a float-only algo, so their rows are never read)
_MODE_PRECISION = row_table("Reg mode precision", (
    f"False for every type but float (DK R/基础算术/{api}.md: precisionMode serves float)" for api in MODE_APIS))
_MODE_FLOAT_ALGOS = row_table("Reg mode float algos", (
    "INTRINSIC (0) or PRECISION_1ULP_FTZ_TRUE (2), or for half PRECISION_1ULP_FTZ_FALSE (5): DIFF_COMPENSATION (1) "
    "and PRECISION_0ULP_* (3, 4) are float only (DK R/基础算术/Div.md 数据类型)", "", "", "",
    "INTRINSIC (0), PRECISION_1ULP_FTZ_TRUE (2) or PRECISION_1ULP_FTZ_FALSE (4): FAST_INVERSE (1) and "
    "PRECISION_0ULP_FTZ_FALSE (3) are float only (DK R/基础算术/Sqrt.md)"))


@njit(cache=True, inline="always")
def _float_only_algo(api, algo):
    """The algorithms a mode takes for float alone (DK R/基础算术/Div.md 数据类型, Sqrt.md's algo list)."""
    if api == MODE_DIV:
        return algo == ALGO_DIFF_COMPENSATION or algo == ALGO_0ULP_FTZ_TRUE or algo == ALGO_0ULP_FTZ_FALSE
    return api == MODE_SQRT and (algo == SQRT_ALGO_FAST_INVERSE or algo == SQRT_ALGO_0ULP_FTZ_FALSE)


@njit(cache=True, no_cfunc_wrapper=True)
def specific_mode_op(src, allowed, api, mrg, precision, algo):
    """A Reg SpecificMode{mrgMode, precisionMode, algo} (Exp, Ln and Log have no precisionMode: 0) of the MODE_APIS
    instruction `api`, checked against src's type (DK R/基础算术/<api>.md 数据类型 and the Impl static_asserts; a
    type the instruction does not take is left unchecked to its kernel's UnsupportedDTypeError, as the plain call
    checks the dtype first); returns the kernel's op: the default algorithm's (DAZ/FTZ, D38) or the one of the code
    the mode runs (div_path, sqrt_path; PRECISION_1ULP_FTZ_FALSE keeps subnormals). Plain Python runs this function's
    Python (reg.py _specific_mode), so both paths refuse alike."""
    kind = np.int64(src[H_KIND])
    if (allowed >> kind) & 1:
        if mrg < 0 or mrg > 2:  # no MaskMergeMode: plain Python's as_enum words (reg.py _specific_mode)
            raise ParameterError((_MODE_API, api), "mode.mrgMode", mrg, _MRG_MEMBERS, DEVICE)
        if mrg == 2:
            raise ParameterError((_MODE_API, api), "mode.mrgMode", mrg, "MaskMergeMode.ZEROING (0) or MERGING (1)",
                                 DEVICE)
        if mrg == 1:  # DK RegMerge table 2: ZEROING only (each Impl static_asserts it for both mode forms)
            raise ParameterError((_MODE_API, api), "mode.mrgMode", "MERGING",
                                 "MaskMergeMode.ZEROING (DK Reg MergeMode table 2)", DEVICE)
        if precision < 0 or precision > 1:
            raise ParameterError((_MODE_API, api), "mode.precisionMode", precision, "True or False", DEVICE)
        if algo < 0 or algo > _MODE_ALGO_MAX[api]:
            raise ParameterError((_MODE_API, api), "mode.algo", algo, (_MODE_ALGOS, api), DEVICE)
        if precision == 1 and kind != KIND_FLOAT:
            raise ParameterError((_MODE_API, api), "mode.precisionMode", "True", (_MODE_PRECISION, api), DEVICE)
        if _float_only_algo(api, algo) and kind != KIND_FLOAT:
            raise ParameterError((_MODE_API, api), "mode.algo", algo, (_MODE_FLOAT_ALGOS, api), DEVICE)
        if api == MODE_DIV and algo == ALGO_1ULP_FTZ_FALSE and kind != KIND_FLOAT and kind != KIND_HALF:
            raise ParameterError("Div", "mode.algo", algo, "INTRINSIC (0) or PRECISION_1ULP_FTZ_TRUE (2) for an "
                                 "integer type (DK R/基础算术/Div.md 数据类型)", DEVICE)
    if api == MODE_DIV:
        return DIV_SUBNORMALS if div_path(precision, algo) >= 2 else ew.DIV
    if api == MODE_SQRT:
        path = sqrt_path(precision, algo)
        return SQRT_INVERSE_IMPL if path == 1 else (SQRT_SUBNORMALS if path == 2 else ew.SQRT)
    keep = algo == 2  # ExpAlgo / LnAlgo PRECISION_1ULP_FTZ_FALSE: the only code of the three keeping subnormals
    if api == MODE_EXP:
        return EXP_SUBNORMALS if keep else ew.EXP
    if api == MODE_LN:
        return LN_SUBNORMALS if keep else ew.LN
    return LOG_SUBNORMALS if keep else LOG


@njit(cache=True, inline="always")
def _engine_flags(modes, ew_op):
    flags = ew.FTZ if ew_op == ew.DIV or ew_op == ew.EXP else 0  # the 950 default algorithm (INTRINSIC, D38)
    if modes & M_HALF_SAT:
        flags |= ew.SAT_HALF
    if (modes & M_INT_SAT) and ew_op != ew.DIV and ew_op != DIV_SUBNORMALS:  # Div never saturates (D48)
        flags |= ew.SAT_INT
    return flags


@njit(cache=True, inline="always")
def _merge_lanes(dst, words, size, merging):
    """dst lanes <- the scratch results where the mask is set; elsewhere 0 (ZEROING) or unchanged (MERGING). Every
    lane active (the usual mask): one copy."""
    if all_active(words):
        copy_bytes(dst, 0, dst, VL, VL)
        return
    for i in range(VL):
        if lane_on(words, i - i % size):
            dst[i] = dst[VL + i]
        elif not merging:
            dst[i] = 0


# The dtype tables of the engine's Reg ops (reg.py _engine checks dst, then each source, against them) and the legal
# range plain Python names, indexed as ENGINE_APIS, so a compiled VF refuses a dtype in plain Python's words (the
# names picked from tuples by index: a string built or compared at run time compiles numba's unicode functions)
ENGINE_DTYPES = {"Max": tuple(d.name for d in ALL), "Min": tuple(d.name for d in ALL),
                 "Div": ("int16", "uint16", "half", "int32", "uint32", "float", "int64", "uint64"),
                 "Exp": ("half", "float"), "LeakyRelu": ("half", "float"), "Prelu": ("half", "float")}
ENGINE_APIS = ("Max", "Min", "Div", "LeakyRelu", "Prelu", "Exp")
_ENGINE_API = row_table("Reg engine API", ENGINE_APIS)
_ENGINE_LEGAL = row_table("Reg engine legal", (f"{', '.join(ENGINE_DTYPES[api])} (the 950 Memory-API table; "
                                               "docs/decisions.md)" for api in ENGINE_APIS))


@njit(cache=True, inline="always")
def _engine_api_index(ew_op):
    if ew_op == ew.MAX:
        return 0
    if ew_op == ew.MIN:
        return 1
    if ew_op == ew.DIV or ew_op == DIV_SUBNORMALS:
        return 2
    if ew_op == ew.LEAKY_RELU:
        return 3
    if ew_op == PRELU:
        return 4
    return 5  # EXP


# the legal range of a call whose dtypes are each in the op's table but differ, indexed as ENGINE_APIS
_ENGINE_ONE_TYPE = row_table("Reg engine one type", (
    "one type of the 950 Max table (SPEC-2 2.2)", "one type of the 950 Min table (SPEC-2 2.2)",
    "one type of the 950 Div table (SPEC-2 2.2)",
    "half or float, the same for dst and src (DK R/基础算术/LeakyRelu.md)",
    "half or float, one type for dst, src0 and src1 (DK R/基础算术/Prelu.md)",
    "half or float, the same for dst and src (SPEC-2 4.2)"))


# Not inlined: compiled once for engine_binary's and engine_unary's classes; two raise sites, the API and the legal
# range picked by row (a raise of run-time values compiles about 60 ms of code per site, issue 20)
@internal
def _check_engine_kinds(ew_op, dk, k0, k1, allowed):
    api = _engine_api_index(ew_op)
    for k in (dk, k0, k1):  # plain Python's order: dst, then the sources, each against the op's table
        if not (allowed >> k) & 1:
            raise UnsupportedDTypeError((_ENGINE_API, api), "kind", k, (_ENGINE_LEGAL, api), DEVICE)
    if dk != k0 or dk != k1:  # types of the table that differ: plain Python's kernel call raises this too
        raise UnsupportedDTypeError((_ENGINE_API, api), "dst/src kinds", (dk, k0, k1), (_ENGINE_ONE_TYPE, api),
                                    DEVICE)


@internal
def _half_extreme_lanes(dst, a, b, modes, is_max):
    """Half Max/Min of every lane into dst's scratch: the lanes of the engine's fused half pass for these two ops
    (ew.half_binary_run: max_lane/min_lane, one RNE store, then D35's saturation pass), without compiling that
    pass's other ops (issue 20: a first Reg Max compiles its own lanes only)."""
    if is_max:
        for j in range(128):
            r = max_lane(half_bits_to_f32(u16_at(a, j)), half_bits_to_f32(u16_at(b, j)))
            set_u16(dst, 128 + j, half_rne_bits(r))
    else:
        for j in range(128):
            r = min_lane(half_bits_to_f32(u16_at(a, j)), half_bits_to_f32(u16_at(b, j)))
            set_u16(dst, 128 + j, half_rne_bits(r))
    if (modes & M_HALF_SAT) != 0:
        for j in range(128, 256):
            set_u16(dst, j, _saturated_bits(u16_at(dst, j)))


@njit(cache=True, inline="always")
def _int_engine_lanes(dst, a, b, kind, ew_op):
    """The engine's integer lanes (jit/elementwise.py _binary_int_chunk) for Reg's Max, Min and Div alone, into dst's
    scratch bytes: the same lane functions on the exact int64 values, Div's result wrapped to the type by int_stage
    (D48: Div never saturates; Max and Min cannot overflow); uint64 compares and divides as unsigned."""
    size = kind_size(kind)
    n = VL // size
    if size == 8:  # the lanes' bit patterns through the register's bytes (no view per type)
        for j in range(n):
            if kind == KIND_UINT64:
                x, y = u64_at(a, j), u64_at(b, j)
                if ew_op == ew.DIV:
                    r = uint64_div_lane(x, y)
                else:  # x, y are uint64 values here: a plain unsigned compare (the engine biases the sign bit instead)
                    r = x if (y < x) == (ew_op == ew.MAX) else y
                set_u64(dst, n + j, r)
            else:
                xi, yi = i64_at(a, j), i64_at(b, j)
                if ew_op == ew.DIV:
                    ri = int_div_lane(xi, yi)
                else:
                    ri = int_max_lane(xi, yi) if ew_op == ew.MAX else int_min_lane(xi, yi)
                set_u32(dst, 2 * (n + j), np.uint32(ri & 0xFFFFFFFF))  # two's complement, without a signed cast
                set_u32(dst, 2 * (n + j) + 1, np.uint32((ri >> 32) & 0xFFFFFFFF))
        return
    lo, hi = int_range(kind)
    for j in range(n):
        x, y = int_lane(a, j, size, lo < 0), int_lane(b, j, size, lo < 0)
        if ew_op == ew.DIV:
            r = int_stage(kind, int_div_lane(x, y), False)
        else:
            r = int_max_lane(x, y) if ew_op == ew.MAX else int_min_lane(x, y)
        set_int_lane(dst, n + j, size, r)


@njit(cache=True, no_cfunc_wrapper=True)
def engine_binary(dst, src0, src1, words, ew_op, allowed, merging, half_class, halves_class, wide_class, int_class):
    """Reg Max/Min/Div: the element-wise engine's lanes over all lanes into dst's scratch, then the mask.
    half_class, halves_class, wide_class, int_class: dtype-class markers (as jit/elementwise.py binary_count_kernel's: 0
    or None; numba compiles the code under a marker only when it is not None). A plain-Python call passes one, chosen
    from the register dtype, so its first call compiles that class's lanes only (issue 20): half Max/Min the fused
    half lanes (_half_extreme_lanes); half Div (FTZ, D38) the engine's float32 decode and store of halves
    (ew.load_halves / store_halves) around the op's lane; float and bfloat16 the same with the wide decode and store
    (ew.load_wide / store_wide); the integers _int_engine_lanes. A VF register of a literal dtype passes the same
    marker (jit/reg.py KindRegister); one of a run-time dtype passes every marker but half_class (one
    specialisation for all dtypes: half Max/Min then take the halves path, the same bits) and the class is picked
    here from the kind."""
    kind = np.int64(src0[H_KIND])
    _check_engine_kinds(ew_op, np.int64(dst[H_KIND]), kind, np.int64(src1[H_KIND]), allowed)
    modes = merged_modes(src0[H_CTRL], src1[H_CTRL])
    size = kind_size(kind)
    n = VL // size
    flags = _engine_flags(modes, ew_op)
    zero = n - n  # the engine's run offset as an int64 value: a literal 0 compiles its decode/store once more
    fused = False
    if half_class is not None:
        if kind == KIND_HALF and (ew_op == ew.MAX or ew_op == ew.MIN):
            _half_extreme_lanes(dst, src0, src1, modes, ew_op == ew.MAX)
            fused = True
    if halves_class is not None or wide_class is not None:  # the engine's float path (binary_run) for Reg's ops
        if not fused and kind <= KIND_BF16:
            x, y, r = scratch_array(128, np.float32), scratch_array(128, np.float32), scratch_array(128, np.float32)
            if halves_class is not None:
                if kind == KIND_HALF:
                    ew.load_halves(flags, src0[:VL], zero, n, x)
                    ew.load_halves(flags, src1[:VL], zero, n, y)
            if wide_class is not None:
                if kind != KIND_HALF:
                    ew.load_wide(kind, flags, src0[:VL], zero, n, x)
                    ew.load_wide(kind, flags, src1[:VL], zero, n, y)
            if ew_op == ew.DIV or ew_op == DIV_SUBNORMALS:  # the flags decide DAZ/FTZ (decode and store)
                for j in range(n):
                    r[j] = div_lane(x[j], y[j])
            elif ew_op == ew.MAX:
                for j in range(n):
                    r[j] = max_lane(x[j], y[j])
            elif ew_op == ew.MIN:
                for j in range(n):
                    r[j] = min_lane(x[j], y[j])
            else:  # LEAKY_RELU (y: the scalar's register) and PRELU (y: src1): D42, the product rounded by the store
                for j in range(n):
                    r[j] = leaky_relu_lane(x[j], y[j])
            if halves_class is not None:
                if kind == KIND_HALF:
                    ew.store_halves(flags, r, dst[VL:2 * VL], zero, n)
            if wide_class is not None:
                if kind != KIND_HALF:
                    ew.store_wide(kind, flags, r, dst[VL:2 * VL], zero, n)
    if int_class is not None:
        if kind > KIND_BF16:
            _int_engine_lanes(dst, src0, src1, kind, ew_op)
    _merge_lanes(dst, words, size, merging)
    dst[H_CTRL] = modes


@njit(cache=True, no_cfunc_wrapper=True)
def engine_unary(dst, src, words, ew_op, allowed, merging, half_class, float_class):
    """Reg Exp: as engine_binary, one source: the engine's float decode, Exp lanes and store of the register's width
    (unary_run's float path for Exp alone: a first Reg Exp compiles none of the engine's other unary ops, issue
    20), with DAZ/FTZ for ew.EXP (the default algorithm, D38), none for EXP_SUBNORMALS (an ExpSpecificMode's
    PRECISION_1ULP_FTZ_FALSE). half_class / float_class: markers as engine_binary's; a plain-Python call or a VF
    register of a literal dtype passes one (Exp: half or float, checked first), a register of a run-time dtype both
    (the class then from the kind)."""
    kind = np.int64(src[H_KIND])
    _check_engine_kinds(ew_op, np.int64(dst[H_KIND]), kind, kind, allowed)
    modes = src[H_CTRL]
    size = kind_size(kind)
    n = VL // size
    flags = _engine_flags(modes, ew_op)
    zero = n - n  # as in engine_binary
    x, r = scratch_array(128, np.float32), scratch_array(128, np.float32)
    if half_class is not None:
        if kind == KIND_HALF:
            ew.load_halves(flags, src[:VL], zero, n, x)
            for j in range(n):
                r[j] = narrow(kind, exp_lane(x[j]))
            ew.store_halves(flags, r, dst[VL:2 * VL], zero, n)
    if float_class is not None:
        if kind != KIND_HALF:
            ew.load_wide(kind, flags, src[:VL], zero, n, x)
            exp_float_run(x, r, n)
            ew.store_wide(kind, flags, r, dst[VL:2 * VL], zero, n)
    _merge_lanes(dst, words, size, merging)
    dst[H_CTRL] = modes


# --- Abs, Relu, Neg, Ln, Log, Sqrt: one kernel for the devkit Reg pages' unary instructions ----------------------
# Not in SPEC-2 11 (docs/decisions.md "Reg API"): DK `R/基础算术/{Abs,Relu,Neg,Ln,Log,Sqrt}.md`. Each lane is the 950
# Memory-API instruction's (SPEC-2 4.3: Abs clears the sign, Relu is max(+0, x) under D41, Ln and Sqrt of the
# algorithm a SpecificMode's code is, by default INTRINSIC with DAZ/FTZ, D37/D38), through the engine's decode, lane
# functions and store; Neg (no Memory API) negates exactly (RegPrec "符号位取反"). Integers: D35 (SPEC-2 11.1). The
# op code is a value: one compiled kernel for the six instructions, its dtype classes pruned by markers as
# engine_unary's (Exp keeps its own kernel, so a first Exp compiles none of these lanes).
NEG, LOG = 48, 49  # Neg (the element-wise engine has none) and Log (DK: Ln under the C library's name)


# The unary ops' dtype tables (DK R/基础算术/<op>.md) and plain Python's refusal texts (reg.py _same_dtype: the
# source's dtype against the table, then dst's against the source's), indexed as UNARY_APIS
UNARY_DTYPES = {"Abs": ("int8", "int16", "half", "int32", "float", "int64"),
                "Relu": ("half", "int32", "float", "int64"),
                "Neg": ("int8", "int16", "half", "int32", "float", "int64"), "Ln": ("half", "float"),
                "Log": ("half", "float"), "Sqrt": ("half", "float")}
UNARY_APIS = ("Abs", "Relu", "Neg", "Ln", "Log", "Sqrt")
# (row tables, errors.py: the kernels raise with rows, not strings picked at run time)
_UNARY_API = row_table("Reg unary API", UNARY_APIS)
_UNARY_LEGAL = row_table("Reg unary legal", (f"{', '.join(UNARY_DTYPES[api])} (DK R/基础算术/{api}.md)"
                                             for api in UNARY_APIS))
_UNARY_SOURCE = row_table("Reg unary source", (f", the source's (DK R/基础算术/{api}.md)"  # after the source's dtype
                                               for api in UNARY_APIS))


@internal  # not inlined: compiled once for every dtype class of unary (issue 20)
def _check_unary_kinds(op, dk, sk, allowed):
    if dk != sk or not (allowed >> sk) & 1:
        api = 0 if op == ew.ABS else (1 if op == ew.RELU else (2 if op == NEG else (
            3 if op == ew.LN or op == LN_SUBNORMALS else (4 if op == LOG or op == LOG_SUBNORMALS else 5))))
        if not (allowed >> sk) & 1:
            raise UnsupportedDTypeError((_UNARY_API, api), "kind", sk, (_UNARY_LEGAL, api), DEVICE)
        # the legal range names the source's dtype, given as its kind code (errors.py _named_legal)
        raise UnsupportedDTypeError((_UNARY_API, api), "dst kind", dk, (sk, (_UNARY_SOURCE, api)), DEVICE)


@njit(cache=True, inline="always")
def _float_unary_lanes(op, kind, x, r, n):
    """The op's lane over decoded float32 values (the engine's lane functions, SPEC-2 4.3); the store rounds. Every
    op of a dtype class compiles together, as the element-wise engine's (jit/elementwise.py, the binary section)."""
    if op == ew.ABS:
        for j in range(n):
            r[j] = abs_lane(x[j])
    elif op == ew.RELU:
        for j in range(n):
            r[j] = relu_lane(x[j])
    elif op == NEG:
        for j in range(n):
            r[j] = -x[j]
    elif op == ew.LN or op == LOG or op == LN_SUBNORMALS or op == LOG_SUBNORMALS:
        for j in range(n):
            r[j] = narrow(kind, ln_lane(x[j]))
    else:  # SQRT and SQRT_SUBNORMALS: no D49 domain rule; SQRT_INVERSE_IMPL (the fast-inverse code) has it
        d49 = op == SQRT_INVERSE_IMPL  # a run-time bool (a literal would compile sqrt_lane once more, issue 20)
        for j in range(n):
            r[j] = narrow(kind, sqrt_lane(x[j], d49))


@njit(cache=True, inline="always")
def _int_unary_lanes(dst, src, kind, op, saturate):
    """Abs / Relu / Neg of integer lanes into dst's scratch: exact on int64 values, then D35 (int16/int32 clamp when
    `saturate`, every other width wraps: |MIN| and -MIN are MIN); 64-bit lanes wrap (MIN stays MIN)."""
    size = kind_size(kind)
    n = VL // size
    if size == 8:
        low = np.int64(-9223372036854775807 - 1)
        for j in range(n):
            x = i64_at(src, j)
            if op == ew.RELU:
                r = int_relu_lane(x)
            elif x == low:  # -MIN and |MIN| wrap to MIN
                r = x
            else:
                r = int_abs_lane(x) if op == ew.ABS else -x
            set_u32(dst, 2 * (n + j), np.uint32(r & 0xFFFFFFFF))  # two's complement, without a signed cast
            set_u32(dst, 2 * (n + j) + 1, np.uint32((r >> 32) & 0xFFFFFFFF))
        return
    for j in range(n):
        x = int_lane(src, j, size, True)  # the Reg unary integers are all signed (Abs, Relu, Neg tables)
        if op == ew.RELU:
            r = int_relu_lane(x)
        else:
            r = int_abs_lane(x) if op == ew.ABS else -x
        set_int_lane(dst, n + j, size, int_stage(kind, r, saturate))


@njit(cache=True, no_cfunc_wrapper=True)
def unary(dst, src, words, op, allowed, merging, half_class, float_class, int_class):
    """Reg Abs/Relu/Neg/Ln/Log/Sqrt: every lane into dst's scratch, then the mask
    (`merging` is False: the API refuses MERGING for these, DK RegMerge tables 2 and 5).
    half_class / float_class / int_class: dtype-class markers (0 or None, as engine_binary's): a plain call and a VF
    register of a literal dtype pass their class alone, a register of a run-time dtype all three (the integer lanes
    are Abs/Relu/Neg's, under int_class). Ln, Log and Sqrt read and write with DAZ/FTZ (their INTRINSIC default,
    D38) unless `op` is the code of a SpecificMode keeping subnormals (specific_mode_op: LN_SUBNORMALS,
    LOG_SUBNORMALS, SQRT_SUBNORMALS, SQRT_INVERSE_IMPL with D49's domain); Abs, Relu and Neg keep subnormals (no
    config: the 950 Memory API's flags); the half store applies the overflow mode (D35)."""
    kind = np.int64(src[H_KIND])
    _check_unary_kinds(op, np.int64(dst[H_KIND]), kind, allowed)
    modes = src[H_CTRL]
    size = kind_size(kind)
    n = VL // size
    flags = ew.FTZ if op == ew.LN or op == LOG or op == ew.SQRT else 0
    if modes & M_HALF_SAT:
        flags |= ew.SAT_HALF
    zero = n - n  # the engine's run offset as an int64 value (as engine_binary)
    if half_class is not None:
        if kind == KIND_HALF:
            x, r = scratch_array(128, np.float32), scratch_array(128, np.float32)
            ew.load_halves(flags, src[:VL], zero, n, x)
            _float_unary_lanes(op, kind, x, r, n)
            ew.store_halves(flags, r, dst[VL:2 * VL], zero, n)
    if float_class is not None:
        if kind == KIND_FLOAT:
            x, r = scratch_array(128, np.float32), scratch_array(128, np.float32)
            ew.load_wide(kind, flags, src[:VL], zero, n, x)
            _float_unary_lanes(op, kind, x, r, n)
            ew.store_wide(kind, flags, r, dst[VL:2 * VL], zero, n)
    if int_class is not None:
        if kind > KIND_BF16:
            _int_unary_lanes(dst, src, kind, op, (modes & M_INT_SAT) != 0)
    _merge_lanes(dst, words, size, merging)
    dst[H_CTRL] = modes


# --- Adds, Muls, Maxs, Mins, LeakyRelu: the binary kernels with a broadcast register ----------------------------
# DK `R/基础算术/{Adds,Muls,Maxs,Mins,LeakyRelu}.md`: dst = src op scalar per active lane, ZEROING only (RegMerge
# table 2; LeakyRelu: x, or scalar * x where x's sign bit is set, D42, as the 950 Memory-API LeakyRelu). The
# scalar is converted by SPEC-2 D29 and duplicated into a register of src's type and modes (scalar_register, a small
# kernel); Adds/Muls then run `binary` (Add/Mul's lanes: RegPrec "Adds/Muls half/float: 0ulp"), Maxs/Mins/LeakyRelu
# `engine_binary` (Max/Min's lanes, D41; the engine's LeakyRelu lane): in a VF both are direct calls (jit/reg.py CALL
# operand), no kernel of their own.
SCALAR_OPS = ("Adds", "Muls", "Maxs", "Mins", "LeakyRelu")
AXPY = 5  # scalar_register's index for Axpy (after SCALAR_OPS)
DUPLICATE, ARANGE = 6, 7  # scalar_bits_of's and arange's indexes for Duplicate and Arange
# the tensor-scalar ops' dtype tables (DK R/基础算术/<op>.md) and plain Python's refusal texts (reg.py _same_dtype),
# indexed as SCALAR_OPS
SCALAR_DTYPES = {"Adds": tuple(d.name for d in ALL), "Maxs": tuple(d.name for d in ALL),
                 "Mins": tuple(d.name for d in ALL),
                 "Muls": ("int16", "uint16", "half", "int32", "uint32", "float", "int64", "uint64"),
                 "LeakyRelu": ("half", "float")}
_SCALAR_API = row_table("Reg tensor-scalar API", SCALAR_OPS)
_SCALAR_LEGAL = row_table("Reg tensor-scalar legal", (f"{', '.join(SCALAR_DTYPES[api])} (DK R/基础算术/{api}.md)"
                                                      for api in SCALAR_OPS))
_SCALAR_SOURCE = row_table("Reg tensor-scalar source", (f", the source's (DK R/基础算术/{api}.md)"  # after its dtype
                                                        for api in SCALAR_OPS))


@internal
def scalar_api(index):
    """The name of tensor-scalar instruction `index` (SCALAR_OPS), for refusals."""
    if index == 0:
        return "Adds"
    if index == 1:
        return "Muls"
    if index == AXPY:
        return "Axpy"
    if index == DUPLICATE:
        return "Duplicate"
    if index == ARANGE:
        return "Arange"
    if index == 4:
        return "LeakyRelu"
    return "Maxs" if index == 2 else "Mins"


def scalar_pattern(index, kind, scalar):
    """The scalar's bit pattern in a `kind` register (D29), refusals naming tensor-scalar instruction `index` (as
    plain Python; compiled code takes the overload below)."""
    if isinstance(scalar, (bool, np.bool_)):
        raise ParameterError(scalar_api(index), "scalar", scalar, (BOOL_LEGAL, kind), DEVICE)
    if isinstance(scalar, (float, np.floating)):
        return scalar_bits(scalar_api(index), kind, np.float64(scalar), 0, True)
    return scalar_bits(scalar_api(index), kind, 0.0, scalar, False)


@overload(scalar_pattern, inline="always")
def _ol_scalar_pattern(index, kind, scalar):
    """The float and the int paths of scalar_bits chosen by the scalar's type, with a literal flag: a first call
    compiles its own path only (issue 20), as Duplicate's compiled calls do."""
    if isinstance(scalar, types.Boolean):  # refused as plain Python refuses it (SPEC-2 D29)
        def refuse(index, kind, scalar):  # plain Python's words (api/_scalar.py), the dtype by the kind
            raise ParameterError(scalar_api(index), "scalar", scalar, (BOOL_LEGAL, kind), DEVICE)
        return refuse
    if isinstance(scalar, types.Float):
        return lambda index, kind, scalar: scalar_bits(scalar_api(index), kind, np.float64(scalar), np.int64(0), True)
    return lambda index, kind, scalar: scalar_bits(scalar_api(index), kind, 0.0, scalar, False)


@njit(cache=True, no_cfunc_wrapper=True)
def scalar_bits_of(index, reg, scalar):
    """The bit pattern of a VF's scalar in reg's kind (D29), refusals naming instruction `index` (scalar_api)."""
    return scalar_pattern(index, reg[H_KIND], scalar)


@njit(cache=True, no_cfunc_wrapper=True)
def scalar_register(index, allowed, dst, src, scalar):
    """The second source of tensor-scalar instruction `index` (SCALAR_OPS, or AXPY) in a VF:
    dst's and src's kinds checked (naming the instruction), the scalar converted (D29) and duplicated into a
    register of src's kind and modes."""
    check_scalar_kinds(index, np.int64(dst[H_KIND]), np.int64(src[H_KIND]), allowed)
    return broadcast_register(src, scalar_pattern(index, src[H_KIND], scalar))


@internal
def check_scalar_kinds(api_index, dk, sk, allowed):
    """The tensor-scalar form's own dtype check (the binary kernels' refusals would name Add/Mul/Max/Min), naming
    the instruction, the parameter and the legal range as plain Python's _same_dtype does: src's dtype outside the
    table, else dst's differing from src's (Axpy: its page's types, the same for dst and src)."""
    if dk != sk or not (allowed >> sk) & 1:
        ok = (allowed >> sk) & 1
        if api_index == AXPY:  # plain Python's _ternary_checks words (Axpy is TERNARY_APIS[3])
            if not ok:
                raise UnsupportedDTypeError("Axpy", "kind", sk, (_TERNARY_LEGAL, 3), DEVICE)
            raise UnsupportedDTypeError("Axpy", "dst kind", dk, (sk, (_TERNARY_SOURCE, 3)), DEVICE)
        if not ok:
            raise UnsupportedDTypeError((_SCALAR_API, api_index), "kind", sk, (_SCALAR_LEGAL, api_index), DEVICE)
        # the legal range names the source's dtype, given as its kind code (errors.py _named_legal)
        raise UnsupportedDTypeError((_SCALAR_API, api_index), "dst kind", dk, (sk, (_SCALAR_SOURCE, api_index)),
                                    DEVICE)


@njit(cache=True, no_cfunc_wrapper=True)
def broadcast_register(src, bits):
    """A register of src's kind and overflow modes with every lane = the scalar's bit pattern."""
    tmp = zeroed_array(REG_BYTES, np.uint8)
    tmp[H_KIND] = src[H_KIND]
    tmp[H_CTRL] = src[H_CTRL]
    size = kind_size(src[H_KIND])
    for j in range(VL // size):
        for k in range(size):
            tmp[j * size + k] = np.uint8((bits >> np.uint64(8 * k)) & np.uint64(0xFF))
    return tmp


@njit(cache=True, no_cfunc_wrapper=True)
def arange(dst, allowed, decrease, scalar, half_class, wide_class, int_class):
    """Reg Arange in a VF (DK R/索引操作/Arange.md): dst's kind checked against `allowed` (arange_register), then
    the index register (`decrease`: DECREASE_ORDER's) + the scalar (converted by D29, refusals naming Arange) by
    Add's engine on every lane; the class markers as binary's."""
    index = arange_register(dst, allowed, decrease)
    # the op and the flag as run-time values: literals would compile binary once more (0.4-1.3 s)
    binary(dst, index, broadcast_register(index, scalar_pattern(ARANGE, index[H_KIND], scalar)), ALL_LANES,
           np.int64(ADD), np.bool_(False), half_class, wide_class, int_class)


@njit(cache=True, no_cfunc_wrapper=True)
def arange_register(dst, allowed, decrease):
    """The index register of Reg Arange (DK R/索引操作/Arange.md): dst's kind and overflow modes, lane j = j (an
    integer lane j mod 2**bits, the wrap the page describes; a float lane the exact j: j < 128), or with `decrease`
    (IndexOrder.DECREASE_ORDER) lanes - 1 - j, so that the scalar lands in the last lane (cann-samples scene7's
    recorded output); int64 counts up in either order: the devkit's one-register int64 Arange calls its two-register
    helper without the order (kernel_reg_compute_vec_arange_impl.h; docs/decisions.md "Reg Arange"). dst's kind
    must be in the bitmask `allowed` (the page's int8/int16/int32/half/float/int64); Arange adds its scalar to this
    register."""
    kind = np.int64(dst[H_KIND])
    if not (allowed >> kind) & 1:
        raise UnsupportedDTypeError("Arange", "dst kind", kind, "int8, int16, int32, half, float, int64 "
                                    "(DK R/索引操作/Arange.md)", DEVICE)
    tmp = zeroed_array(REG_BYTES, np.uint8)
    tmp[H_KIND] = dst[H_KIND]
    tmp[H_CTRL] = dst[H_CTRL]
    size = kind_size(kind)
    is_float = kind == KIND_HALF or kind == KIND_FLOAT
    lanes = VL // size
    down = decrease and size != 8
    for j in range(lanes):
        index = lanes - 1 - j if down else j
        bits = scalar_float_bits(kind, np.float64(index)) if is_float else np.uint64(index)
        for k in range(size):
            tmp[j * size + k] = np.uint8((bits >> np.uint64(8 * k)) & np.uint64(0xFF))
    return tmp


# --- Select on data registers (DK R/比较与选择/Select.md) -----------------------------------------------------------
# Select copies lane j of src0 where the lowest mask bit of lane j is set, else of src1 (bits, no arithmetic).
# (Reg Compare/Compares are not offered: SPEC-2 14.)
SELECT_LEGAL = "one element type for dstReg, srcReg0, srcReg1 (DK R/比较与选择/Select.md)"  # plain Select's too


@njit(cache=True, no_cfunc_wrapper=True)
def select(dst, src0, src1, words):
    """Reg Select on data registers: lane j of src0 where the mask's bit of lane j is set, else of src1 (dst may be
    either source: the lanes are assembled in dst's scratch first)."""
    k = np.int64(dst[H_KIND])
    if k != src0[H_KIND] or k != src1[H_KIND]:
        raise UnsupportedDTypeError("Select", "dstReg/srcReg0/srcReg1 kinds", (k, src0[H_KIND], src1[H_KIND]),
                                    SELECT_LEGAL, DEVICE)
    size = kind_size(k)
    for i in range(VL):
        dst[VL + i] = src0[i] if lane_on(words, i - i % size) else src1[i]
    for i in range(VL):
        dst[i] = dst[VL + i]
    dst[H_CTRL] = merged_modes(src0[H_CTRL], src1[H_CTRL])


# --- ShiftLefts, ShiftRights (DK R/逻辑计算/*.md) -----------------------------------------------------------------
# ZEROING only (RegMerge table 3), on each lane's bit pattern: unsigned types shift logically, signed ones
# arithmetically (ShiftLefts keeps the sign bit and drops the bit below it, the page's example 1010101010101010 << 1
# = 1101010101010100); an amount of the lane width or more gives 0, and for ShiftRights of a negative signed lane -1
# (the pages' constraints). (Reg And/Or/Xor/Not on data registers are not offered: SPEC-2 14.)
SHIFT_LEFT, SHIFT_RIGHT = range(2)
# the shifts' dtype table (DK R/逻辑计算/*.md; bool: D28) and plain Python's refusal texts (reg.py _same_dtype: the
# source's dtype against the table, then dst's against the source's), indexed by the op code (SHIFT_LEFT, SHIFT_RIGHT)
_INTEGERS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
SHIFT_DTYPES = {"ShiftLefts": _INTEGERS, "ShiftRights": _INTEGERS}
SHIFT_APIS = ("ShiftLefts", "ShiftRights")
_SHIFT_API = row_table("Reg shift API", SHIFT_APIS)
_SHIFT_LEGAL = row_table("Reg shift legal", (f"{', '.join(SHIFT_DTYPES[api])} (DK R/逻辑计算/{api}.md)"
                                             for api in SHIFT_APIS))
_SHIFT_SOURCE = row_table("Reg shift source", (f", the source's (DK R/逻辑计算/{api}.md)" for api in SHIFT_APIS))


@njit(cache=True, inline="always")
def _check_shift(op, dk, sk, allowed):
    # plain Python's order and words, the texts picked by the op code (no strings compared at run time)
    if dk != sk or not (allowed >> sk) & 1:
        if not (allowed >> sk) & 1:
            raise UnsupportedDTypeError((_SHIFT_API, op), "kind", sk, (_SHIFT_LEGAL, op), DEVICE)
        # the legal range names the source's dtype, given as its kind code (errors.py _named_legal)
        raise UnsupportedDTypeError((_SHIFT_API, op), "dst kind", dk, (sk, (_SHIFT_SOURCE, op)), DEVICE)


@njit(cache=True, inline="always")
def _lane_bits(reg, j, size):
    if size == 1:
        return np.uint64(reg[j])
    if size == 2:
        return np.uint64(u16_at(reg, j))
    if size == 4:
        return np.uint64(u32_at(reg, j))
    return u64_at(reg, j)


@njit(cache=True, inline="always")
def _shifted(b, amount, width, signed, left):
    """One lane's shifted bit pattern (b: the lane's bits, zero-extended; width in bits)."""
    ones = np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(64 - width)
    sign = np.uint64(1) << np.uint64(width - 1)
    negative = signed and (b & sign) != 0
    if amount >= width:
        return ones if negative and not left else np.uint64(0)
    s = np.uint64(amount)
    if left:
        r = (b << s) & ones
        return (r & (ones >> np.uint64(1))) | (b & sign) if signed else r
    r = b >> s
    return (r | (ones ^ (ones >> s))) & ones if negative else r


@njit(cache=True, no_cfunc_wrapper=True)
def shift(dst, src, words, op, allowed, amount, merging):
    """Reg ShiftLefts/ShiftRights by `amount`: every lane into dst's scratch, then the mask (`merging` is False: the
    API refuses MERGING)."""
    kind = np.int64(src[H_KIND])
    _check_shift(op, np.int64(dst[H_KIND]), kind, allowed)
    size = kind_size(kind)
    signed = kind == KIND_INT8 or kind == KIND_INT16 or kind == KIND_INT32 or kind == KIND_INT64
    for j in range(VL // size):
        r = _shifted(_lane_bits(src, j, size), amount, 8 * size, signed, op == SHIFT_LEFT)
        for k in range(size):
            dst[VL + j * size + k] = np.uint8((r >> np.uint64(8 * k)) & np.uint64(0xFF))
    _merge_lanes(dst, words, size, merging)
    dst[H_CTRL] = src[H_CTRL]


@njit(cache=True, no_cfunc_wrapper=True)
def shift_amount(left, amount):
    """A shift's scalar in a VF: an int16 value (the pages' scalarValue type) that is not negative (a negative
    amount is undefined on the device: refused)."""
    if amount < 0 or amount > 32767:
        raise ParameterError("ShiftLefts" if left else "ShiftRights", "scalar", amount,
                             "an int16 shift amount >= 0 (a negative one is undefined, DK R/逻辑计算)", DEVICE)
    return np.int64(amount)


# --- MulAddDst, MulDstAdd, Axpy, AbsSub (DK R/复合计算/*.md; RegPrec: the multiply-adds "等效于 Fma", AbsSub serial) --
# One kernel, the op code a value: MulAddDst d = a*b + d, MulDstAdd d = d*a + b (ew.FUSED_MUL_ADD), Axpy d = s*a + d
# (MulAddDst with the scalar's register as b), AbsSub d = |a - b|. Floats: one rounding of the exact result (the 950's
# fused multiply-add lanes, jit/lanes.py fma_lane; AbsSub: Sub rounded, then Abs), then the half overflow mode (D35);
# integers exact, then D35 (int16/int32 clamp under CTRL[53], the others wrap; 64-bit modulo 2**64).
ABS_SUB = 50  # AbsSub's op code (the engine has none)


# The ternary ops' dtype tables (DK R/复合计算/*.md; MulDstAdd's half -> float form is not offered) and plain
# Python's refusal texts (reg.py _ternary_checks: src0's dtype against the table, dst's against src0's, then src1's),
# indexed as TERNARY_APIS (Axpy's dst and src: scalar_register checks them first, naming Axpy)
TERNARY_DTYPES = {"MulAddDst": ("int16", "uint16", "half", "bfloat16", "int32", "uint32", "float", "int64", "uint64"),
                  "MulDstAdd": ("bfloat16", "float"), "AbsSub": ("half", "float", "int64"),
                  "Axpy": ("half", "float", "int64", "uint64")}
TERNARY_APIS = ("MulAddDst", "MulDstAdd", "AbsSub", "Axpy")
_TERNARY_API = row_table("Reg ternary API", TERNARY_APIS)
_TERNARY_LEGAL = row_table("Reg ternary legal", (f"{', '.join(TERNARY_DTYPES[api])} (DK R/复合计算/{api}.md)"
                                                 for api in TERNARY_APIS))
_TERNARY_SOURCE = row_table("Reg ternary source", (f", the source's (DK R/复合计算/{api}.md)" for api in TERNARY_APIS))


@njit(cache=True, inline="always")
def _check_ternary(op, dk, k0, k1, allowed):
    # plain Python's order and words; the API and texts picked from tuples by index (comparing or building strings
    # at run time compiled numba's unicode functions with every specialisation: 1.8 s of a first Axpy's 7 s)
    if not (allowed >> k0) & 1 or dk != k0 or k1 != k0:
        api = 0 if op == ew.MUL_ADD_DST else (1 if op == ew.FUSED_MUL_ADD else 2)
        if not (allowed >> k0) & 1:
            raise UnsupportedDTypeError((_TERNARY_API, api), "kind", k0, (_TERNARY_LEGAL, api), DEVICE)
        if dk != k0:  # the legal range names src0's dtype, as its kind code (errors.py _named_legal)
            raise UnsupportedDTypeError((_TERNARY_API, api), "dst kind", dk, (k0, (_TERNARY_SOURCE, api)), DEVICE)
        raise UnsupportedDTypeError((_TERNARY_API, api), "src1 kind", k1, (k0, ", src0's"), DEVICE)


@njit(cache=True, no_cfunc_wrapper=True)
def ternary(dst, src0, src1, words, op, allowed, merging, half_class, wide_class, int_class):
    """Reg MulAddDst / MulDstAdd / Axpy / AbsSub: every lane into dst's scratch (dst read first), then the mask
    (`merging` is False: the API refuses MERGING, DK RegMerge table 4). Class markers as engine_binary's: half,
    wide (float, bfloat16), int; every op of a class compiles together (_float_unary_lanes)."""
    kind = np.int64(src0[H_KIND])
    _check_ternary(op, np.int64(dst[H_KIND]), kind, np.int64(src1[H_KIND]), allowed)
    modes = merged_modes(src0[H_CTRL], src1[H_CTRL])
    size = kind_size(kind)
    n = VL // size
    flags = ew.SAT_HALF if modes & M_HALF_SAT else 0
    sat = (modes & M_HALF_SAT) != 0
    zero = n - n  # the engine's run offset as an int64 value (as engine_binary)
    if half_class is not None or wide_class is not None:
        if kind <= KIND_BF16:
            x, y, c = scratch_array(128, np.float32), scratch_array(128, np.float32), scratch_array(128, np.float32)
            if half_class is not None:
                if kind == KIND_HALF:
                    ew.load_halves(zero, src0[:VL], zero, n, x)
                    ew.load_halves(zero, src1[:VL], zero, n, y)
                    ew.load_halves(zero, dst[:VL], zero, n, c)
            if wide_class is not None:
                if kind != KIND_HALF:
                    ew.load_wide(kind, zero, src0[:VL], zero, n, x)
                    ew.load_wide(kind, zero, src1[:VL], zero, n, y)
                    ew.load_wide(kind, zero, dst[:VL], zero, n, c)
            fused = n > 0  # True typed bool (the 950's fused multiply-add), not a literal
            # fma_lane tests the kind in every lane; the float loops compile in the wide class only
            if wide_class is not None and op == ew.MUL_ADD_DST and kind == KIND_FLOAT:
                for j in range(n):
                    c[j] = float_fma_lane(x[j], y[j], c[j], fused)
            elif op == ew.MUL_ADD_DST:
                for j in range(n):
                    c[j] = fma_lane(kind, x[j], y[j], c[j], fused, sat)
            elif wide_class is not None and op == ew.FUSED_MUL_ADD and kind == KIND_FLOAT:
                for j in range(n):
                    c[j] = float_fma_lane(c[j], x[j], y[j], fused)
            elif op == ew.FUSED_MUL_ADD:
                for j in range(n):
                    c[j] = fma_lane(kind, c[j], x[j], y[j], fused, sat)
            else:  # ABS_SUB: the difference rounded once (exact in float64), its magnitude; the store rounds
                for j in range(n):
                    c[j] = abs(narrow(kind, np.float64(x[j]) - np.float64(y[j])))
            if half_class is not None:
                if kind == KIND_HALF:
                    ew.store_halves(flags, c, dst[VL:2 * VL], zero, n)
            if wide_class is not None:
                if kind != KIND_HALF:
                    ew.store_wide(kind, flags, c, dst[VL:2 * VL], zero, n)
    if int_class is not None:
        if kind > KIND_BF16:
            if size == 8:  # modulo 2**64 on the bit patterns (sign-blind for +, -, *; AbsSub by the int64 sign)
                for j in range(n):
                    a, b, d = u64_at(src0, j), u64_at(src1, j), u64_at(dst, j)
                    if op == ew.MUL_ADD_DST:
                        r = a * b + d
                    else:
                        r = a - b
                        if kind == KIND_INT64 and (r >> np.uint64(63)) != 0:
                            r = ~r + np.uint64(1)
                    set_u64(dst, n + j, r)
            else:
                lo, hi = int_range(kind)
                saturate = (modes & M_INT_SAT) != 0
                for j in range(n):
                    a, b = int_lane(src0, j, size, lo < 0), int_lane(src1, j, size, lo < 0)
                    d = int_lane(dst, j, size, lo < 0)
                    set_int_lane(dst, n + j, size, int_stage(kind, a * b + d, saturate))
    _merge_lanes(dst, words, size, merging)
    dst[H_CTRL] = modes
