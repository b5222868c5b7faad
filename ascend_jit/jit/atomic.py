"""DataCopy atomics (SetAtomicAdd / SetAtomicMax / SetAtomicMin): each GM element combined with the copied element.

One rounding in the element type (half and bfloat16 through float32: exact operands, one float32 operation, one
rounding to the type, as the vector Add), then the core's overflow mode (SPEC-2 D35: half saturation maps +-inf to
+-65504 and NaN to +0; int16/int32 clamp when integer saturation is on, other integers wrap). MAX/MIN: a NaN operand
gives NaN; ties keep the GM value (docs/decisions.md "Atomics").
"""
import numpy as np
from numba import njit

from .ubview import ub_as
from .numerics import (KIND_BF16, KIND_FLOAT, KIND_HALF, KIND_INT16, KIND_INT32, KIND_INT8, bf16_bits_to_f32,
                       f32_to_bf16_bits, float_store_bits, half_bits_to_f32, half_store_bits, round_half)
from .lowered import larger, smaller

OP_ADD, OP_MAX, OP_MIN = 0, 1, 2
ATOMIC_OPS = {"add": OP_ADD, "max": OP_MAX, "min": OP_MIN}


@njit(cache=True, inline="always")
def _float_op(op, g, u):
    if op == OP_ADD:
        return g + u
    if g != g or u != u:
        return np.float32(np.nan)
    if op == OP_MAX:
        return u if u > g else g
    return u if u < g else g


@njit(cache=True, inline="always")
def _int_op(op, g, u, lo, hi, saturate):
    if op == OP_MAX:
        return larger(g, u)
    if op == OP_MIN:
        return smaller(g, u)
    s = g + u
    if saturate:
        return smaller(larger(s, lo), hi)
    return (s - lo) % (hi - lo + 1) + lo


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def atomic_combine(gm, ub, n, kind, op, sat_half, sat_int):
    """gm[:n] = gm[:n] (op) ub[:n] on packed byte runs of element kind `kind`."""
    if kind == KIND_HALF:
        g, u = ub_as(gm, np.uint16), ub_as(ub, np.uint16)
        for i in range(n):
            r = round_half(_float_op(op, half_bits_to_f32(g[i]), half_bits_to_f32(u[i])), sat_half)
            g[i] = half_store_bits(r)
    elif kind == KIND_BF16:
        g, u = ub_as(gm, np.uint16), ub_as(ub, np.uint16)
        for i in range(n):
            g[i] = f32_to_bf16_bits(_float_op(op, bf16_bits_to_f32(g[i]), bf16_bits_to_f32(u[i])))
    elif kind == KIND_FLOAT:
        gf, uf, gb = ub_as(gm, np.float32), ub_as(ub, np.float32), ub_as(gm, np.uint32)
        for i in range(n):
            gb[i] = float_store_bits(_float_op(op, gf[i], uf[i]))
    elif kind == KIND_INT8:
        g8, u8 = ub_as(gm, np.int8), ub_as(ub, np.int8)
        for i in range(n):
            g8[i] = np.int8(_int_op(op, np.int64(g8[i]), np.int64(u8[i]), -128, 127, False))
    elif kind == KIND_INT16:
        g16, u16 = ub_as(gm, np.int16), ub_as(ub, np.int16)
        for i in range(n):
            g16[i] = np.int16(_int_op(op, np.int64(g16[i]), np.int64(u16[i]), -32768, 32767, sat_int))
    elif kind == KIND_INT32:
        g32, u32 = ub_as(gm, np.int32), ub_as(ub, np.int32)
        for i in range(n):
            g32[i] = np.int32(_int_op(op, np.int64(g32[i]), np.int64(u32[i]), -2147483648, 2147483647, sat_int))
