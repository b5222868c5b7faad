"""Reference model of the DataCopy atomics (SetAtomicAdd / SetAtomicMax / SetAtomicMin), element by element.

ADD is one rounded add of the vector unit (reference numerics `add`: exact sum, one rounding to the type, the
overflow mode). MAX/MIN compare exact values: a NaN operand gives NaN (canonical; +0 in half saturation mode), ties
keep the GM value; half saturation maps +-inf to +-65504 (SPEC-2 D35).
"""
import math

from .numerics import HALF_MAX, SIZES, add, decode, encode, is_float


def _saturate_half(v):
    if v != v:
        return 0.0
    if math.isinf(v):
        return math.copysign(HALF_MAX, v)
    return v


def combine(dtype, op, gm_value, ub_value, sat_half, sat_int):
    """The value an atomic copy leaves in GM."""
    if op == "add":
        return add(dtype, gm_value, ub_value, sat_half, sat_int)
    if is_float(dtype) and (gm_value != gm_value or ub_value != ub_value):
        r = math.nan
    elif op == "max":
        r = ub_value if ub_value > gm_value else gm_value
    else:
        r = ub_value if ub_value < gm_value else gm_value
    return _saturate_half(r) if dtype == "half" and sat_half else r


def atomic_copy(gm_bytes, ub_bytes, dtype, op, sat_half, sat_int):
    """gm_bytes (a uint8 array, modified in place) combined element by element with ub_bytes of the same length."""
    size = SIZES[dtype]
    for o in range(0, len(gm_bytes), size):
        g = decode(dtype, gm_bytes[o:o + size])
        u = decode(dtype, ub_bytes[o:o + size])
        gm_bytes[o:o + size] = list(encode(dtype, combine(dtype, op, g, u, sat_half, sat_int)))
