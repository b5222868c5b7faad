"""Reference model of CreateVecIndex (count form), written from the devkit page
`基础API/Memory矢量计算/数据填充/CreateVecIndex.md` and the order of operations of its implementations
(`impl/basic_api/{dav_c220,dav_m200,dav_m300,dav_3510}/kernel_operator_vec_createvecindex_impl.h`; docs/decisions.md
"CreateVecIndex"); it shares no code with ascend_jit/jit/ or ascend_jit/api/. Written element by element as a
recurrence: element k is element k - B plus B inside the first repeat (k >= B), element k - R plus R after it
(A2/A3/310P), or element k - L plus L (950 / 310B registers); each addition is the reference's own Adds lane
(elementwise.add: D35).
"""
import numpy as np

from .elementwise import add, round_exact
from .numerics import INT_RANGE, SIZES, is_float

REGISTER_DEVICES = ("ascend950", "atlas-200i-500-a2")


def _to_t(dtype, v):
    """An exact value converted to T: integers modulo 2**bits, floats RNE (overflow to inf)."""
    if is_float(dtype):
        return round_exact(dtype, v)
    lo, hi = INT_RANGE[dtype]
    return (int(v) - lo) % (hi - lo + 1) + lo


def _adds(dtype, env, x, scalar):
    """x + scalar through one Adds lane (float64 or Python-int columns, as the elementwise reference takes them)."""
    if is_float(dtype):
        return float(add(dtype, env, np.array([x], np.float64), scalar)[0])
    return int(add(dtype, env, np.array([int(x)], dtype=object), int(scalar))[0])


def _scalar_unit(dtype, device, first, i):
    """SetValue(i, firstValue + i) on the scalar unit: A2/A3 integers exact (int64) then T; half/float (and every
    type on the 310P, dav_m200) float32(float32(first) + i) converted to T (the 310P integers truncated, the
    caller's value inside T's range)."""
    if not is_float(dtype) and device != "atlas-inference-aicore":
        return _to_t(dtype, first + i)
    s = round_exact("float", round_exact("float", first) + i)
    return round_exact(dtype, s) if is_float(dtype) else int(s)


def create_vec_index(dtype, env, first, count):
    """The count values the device writes from dst's element 0 on. first: the operand's exact value (int/float)."""
    size = SIZES[dtype]
    out = []
    if env.device in REGISTER_DEVICES:
        lanes = 64 if size == 8 else 256 // size
        step = _to_t(dtype, lanes)   # the Adds scalar in T (int8: 256 -> 0)
        for k in range(count):
            # the register's lane j = first + j (Arange / vci: one Adds-like stage), then + L per register
            out.append(_adds(dtype, env, _to_t(dtype, k), first) if k < lanes
                       else _adds(dtype, env, out[k - lanes], step))
        return out
    block, repeat = 32 // size, 256 // size
    for k in range(count):
        if k < block:
            out.append(_scalar_unit(dtype, env.device, first, k))
        elif k < repeat:
            out.append(_adds(dtype, env, out[k - block], _to_t(dtype, block)))
        else:
            out.append(_adds(dtype, env, out[k - repeat], _to_t(dtype, repeat)))
    return out


__all__ = ["create_vec_index"]
