"""Bit-level numerics shared by every kernel (SPEC 5).

Half arithmetic works on uint16 bits: decode to float32 (exact), one float32 add (the correctly rounded half result
survives the double rounding because float32 has 24 >= 2*11+2 significand bits), round to half with RNE, then the
overflow mode. The conversions are LLVM `fpext`/`fptrunc` on `half`, which x86 F16C and AArch64 execute natively and
which LLVM vectorises. Each helper is a plain Python function (numpy, used when NUMBA_DISABLE_JIT=1) whose compiled
form is that instruction (jit/lowered.py), so both paths produce the same bits.

NaN results are stored as one canonical quiet NaN per type (docs/decisions.md): the hardware's NaN payload is not
public and SPEC 5.2 says its sign is not distinguished.
"""
import functools

import numpy as np
from llvmlite import ir
from numba import njit, types

from .lowered import larger, lowered, smaller

# Kernels only compiled code calls (the lanes, the engines' loads and stores, the Reg kernels' helpers): numba builds
# a CPython wrapper and a C-callable wrapper for every compiled function and optimises them with it, about a tenth of
# the compile of a first VF on an empty cache and 0.03-0.07 s of each lane function's (issue 20); these need neither.
# The entry kernels (`@njit(cache=True, no_cfunc_wrapper=True, ...)`, and every VF) keep their CPython wrapper and
# drop the C-callable one: nothing takes a kernel's address as a C function (the Reg kernels called through a pointer
# use the native entry, jit/reg.py KernelBinding), and building it cost a first call about 0.025 s per entry.
internal = functools.partial(njit, cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)

# Kernel kind codes (keep in step with dtypes.py).
KIND_HALF, KIND_FLOAT, KIND_BF16 = 0, 1, 2
KIND_INT8, KIND_UINT8, KIND_INT16, KIND_UINT16 = 3, 4, 5, 6
KIND_INT32, KIND_UINT32, KIND_INT64, KIND_UINT64 = 7, 8, 9, 10

_KIND_SIZES = np.array([2, 4, 2, 1, 1, 2, 2, 4, 4, 8, 8], np.int64)  # bytes per element, indexed by kind code

HALF_NAN = np.uint16(0x7E00)
FLOAT_NAN_BITS = np.uint32(0x7FC00000)
BF16_NAN = np.uint16(0x7FC0)
HALF_MAX = np.float32(65504.0)

_F16 = np.float16
_F32 = np.float32


# --- conversions: Python versions (the NUMBA_DISABLE_JIT path) -------------------------------------------------
def half_bits_to_f32(h):
    """Exact value of the half with bit pattern h, as float32."""
    return _F32(np.array(h, np.uint16).view(_F16))


def f32_to_half_bits(f):
    """Round a float32 to the nearest half, ties to even (IEEE; overflow to inf, subnormals kept)."""
    with np.errstate(over="ignore"):
        return np.array(_F32(f), _F32).astype(_F16).view(np.uint16)[()]


def f32_bits(f):
    return np.array(_F32(f), _F32).view(np.uint32)[()]


def f32_from_bits(u):
    return np.array(u, np.uint32).view(_F32)[()]


def f64_bits(f):
    """The bits of a float64 as an int64 (two's complement view)."""
    return np.array(np.float64(f), np.float64).view(np.int64)[()]


def f64_from_bits(u):
    return np.array(u, np.int64).view(np.float64)[()]


# --- the same, as LLVM instructions in compiled code (jit/lowered.py: no compiled function per helper) -----------
lowered(half_bits_to_f32, (types.uint16,), types.float32,
        lambda context, builder, sig, args: builder.fpext(builder.bitcast(args[0], ir.HalfType()), ir.FloatType()))


_I16, _I32, _I64 = ir.IntType(16), ir.IntType(32), ir.IntType(64)


def _half_bits(builder, x):
    """The bits of float32 x rounded to half (RNE: LLVM's fptrunc)."""
    return builder.bitcast(builder.fptrunc(x, ir.HalfType()), _I16)


lowered(f32_to_half_bits, (types.float32,), types.uint16,
        lambda context, builder, sig, args: _half_bits(builder, args[0]))


def _bitcast(to_ir):
    """Codegen reinterpreting the argument's bits as the LLVM type `to_ir` (one bitcast, no conversion)."""
    return lambda context, builder, sig, args: builder.bitcast(args[0], to_ir)


lowered(f32_bits, (types.float32,), types.uint32, _bitcast(ir.IntType(32)))
lowered(f32_from_bits, (types.uint32,), types.float32, _bitcast(ir.FloatType()))
lowered(f64_bits, (types.float64,), types.int64, _bitcast(ir.IntType(64)))
lowered(f64_from_bits, (types.int64,), types.float64, _bitcast(ir.DoubleType()))


# --- element sizes, rounding with the overflow modes and the stored bits (SPEC 5.2, D6, D20) ------------------------
# Plain Python functions whose compiled form is a few LLVM instructions in the caller (jit/lowered.py), as the
# conversions above: each was an inline="always" jitted function whose body numba inlined, typed and lowered again
# at every call site (kind_size has some eighty), a share of every kernel's first compile (issue 20).
def kind_size(kind):
    """Bytes of one element of kernel kind `kind`."""
    return _KIND_SIZES[kind]


def round_half(x, saturate):
    """float32 -> value of the nearest half (RNE), then saturation mode: inf -> +-65504, NaN -> +0.
    Compiled as selects (no branches) so the loops that call it vectorise."""
    r = half_bits_to_f32(f32_to_half_bits(x))
    if saturate:
        r = np.float32(0.0) if r != r else r
        r = smaller(larger(r, -HALF_MAX), HALF_MAX)
    return r


def half_store_bits(x):
    """Bits stored for a float32 that already holds a half value; NaN becomes the canonical quiet NaN.
    (A select, not a branch, so store loops vectorise.)"""
    bits = f32_to_half_bits(x)
    return HALF_NAN if x != x else bits


def half_rne_bits(x):
    """Bits stored for a float32 rounded to half (RNE, overflow to inf): half_store_bits(round_half(x, False)) with
    one conversion instead of three (issue 21); NaN becomes the canonical quiet NaN. A select, so loops vectorise."""
    bits = f32_to_half_bits(x)
    return HALF_NAN if x != x else bits


def float_store_bits(x):
    bits = f32_bits(x)
    return FLOAT_NAN_BITS if x != x else bits


def bf16_bits_to_f32(h):
    return f32_from_bits(np.uint32(h) << np.uint32(16))


def f32_to_bf16_bits(x):
    """Round a float32 to bfloat16, ties to even (SPEC 5.1: bf16 Add = round-to-bf16 of the fp32 add)."""
    if x != x:
        return BF16_NAN
    u = f32_bits(x)
    rounded = u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))
    return np.uint16(rounded >> np.uint32(16))


# kind_size as arithmetic: log2 of each kind's size in two bits of one constant (no table in the module)
_LOG2_SIZES = sum(int(size).bit_length() - 1 << 2 * kind for kind, size in enumerate(_KIND_SIZES))


def _kind_size_codegen(context, builder, sig, args):
    shift = builder.and_(builder.shl(args[0], ir.Constant(_I64, 1)), ir.Constant(_I64, 63))
    log2 = builder.and_(builder.lshr(ir.Constant(_I64, _LOG2_SIZES), shift), ir.Constant(_I64, 3))
    return builder.shl(ir.Constant(_I64, 1), log2)


def _is_nan(builder, x):
    return builder.fcmp_unordered("uno", x, x)


def _round_half_codegen(context, builder, sig, args):
    x, saturate = args
    f32 = ir.FloatType()
    r = builder.fpext(builder.fptrunc(x, ir.HalfType()), f32)
    zeroed = builder.select(_is_nan(builder, r), ir.Constant(f32, 0.0), r)
    low, high = ir.Constant(f32, -float(HALF_MAX)), ir.Constant(f32, float(HALF_MAX))
    # larger(r, -HALF_MAX) then smaller(., HALF_MAX), as Python's max and min order a pair (r is not NaN here)
    raised = builder.select(builder.fcmp_ordered(">", low, zeroed), low, zeroed)
    clamped = builder.select(builder.fcmp_ordered("<", high, raised), high, raised)
    return builder.select(saturate, clamped, r)


def _nan_select(bits, nan):
    """Codegen of `nan if x != x else bits(x)` for a float32 x."""
    def codegen(context, builder, sig, args):
        value = bits(builder, args[0])
        return builder.select(_is_nan(builder, args[0]), ir.Constant(value.type, int(nan)), value)
    return codegen


def _bf16_rne(builder, x):
    u = builder.bitcast(x, _I32)
    odd = builder.and_(builder.lshr(u, ir.Constant(_I32, 16)), ir.Constant(_I32, 1))
    rounded = builder.add(builder.add(u, ir.Constant(_I32, 0x7FFF)), odd)
    return builder.trunc(builder.lshr(rounded, ir.Constant(_I32, 16)), _I16)


lowered(kind_size, (types.int64,), types.int64, _kind_size_codegen)
lowered(round_half, (types.float32, types.boolean), types.float32, _round_half_codegen)
lowered(half_store_bits, (types.float32,), types.uint16, _nan_select(_half_bits, HALF_NAN))
lowered(half_rne_bits, (types.float32,), types.uint16, _nan_select(_half_bits, HALF_NAN))
lowered(float_store_bits, (types.float32,), types.uint32,
        _nan_select(lambda builder, x: builder.bitcast(x, _I32), FLOAT_NAN_BITS))
lowered(bf16_bits_to_f32, (types.uint32,), types.float32,
        lambda context, builder, sig, args: builder.bitcast(builder.shl(args[0], ir.Constant(_I32, 16)),
                                                            ir.FloatType()))
lowered(f32_to_bf16_bits, (types.float32,), types.uint16, _nan_select(_bf16_rne, BF16_NAN))
