"""Reference model of ArithProgression (Arange), written from the devkit page `高阶API/索引计算/Arange-94.md` (its
three steps: up to 8 / one DataBlock by the scalar unit, then Adds of blocks up to one repeat, then Adds of repeats)
and the order of operations of its implementations (docs/decisions.md "ArithProgression"); it shares no code with
ascend_jit/jit/ or ascend_jit/api/. Each vector stage is the reference's own Adds / Muls lane (elementwise.add,
elementwise.mul: D35); the scalar stages round each float operation once (float32) as C++ on the scalar unit.
"""
import numpy as np

from .elementwise import Env, add, mul, round_exact
from .numerics import INT_RANGE, SIZES, is_float


def _wrap(dtype, v):
    lo, hi = INT_RANGE[dtype]
    return (int(v) - lo) % (hi - lo + 1) + lo


def _scalar_value(dtype, first, diff, i):
    """first + diff * i on the scalar unit: integers exact then converted to T (modular); float: the product then
    the sum each rounded to float32 (the float64 product and sum of float32 values round to float32 correctly,
    53 >= 2 * 24 + 2); half: the same in float32, then converted to half (RNE)."""
    if not is_float(dtype):
        return _wrap(dtype, first + diff * i)
    total = round_exact("float", first + round_exact("float", diff * i))
    return total if dtype == "float" else round_exact("half", total)


def _scalar_step(dtype, diff, n):
    """diff * n: int64 then T (integers); float32 then T (half, float)."""
    if not is_float(dtype):
        return _wrap(dtype, diff * n)
    p = round_exact("float", diff * n)
    return p if dtype == "float" else round_exact("half", p)


def _lanes(dtype, values):
    return [int(v) if not is_float(dtype) else float(v) for v in values]


def arith_progression(dtype, env, first, diff, count):
    """The values the device writes from dst's element 0 on: `count` of them on the 950; on A2/A3/310P count of them
    when count <= B = 32 / sizeof(T), else ceil(count / B) * B (its Adds write whole DataBlocks). first / diff: the
    operands' exact values (Python int or float)."""
    size = SIZES[dtype]
    if env.is_950:
        lanes = 64 if size == 8 else 256 // size
        ramp = list(range(lanes))
        register = _lanes(dtype, add(dtype, env, mul(dtype, env, _vector(dtype, ramp), _vector(dtype, [diff] * lanes)),
                                     _vector(dtype, [first] * lanes)))
        step = _lanes(dtype, mul(dtype, env, _vector(dtype, [lanes]), _vector(dtype, [diff])))[0]
        out = []
        while len(out) < count:
            out += register[:count - len(out)]
            register = _lanes(dtype, add(dtype, env, _vector(dtype, register), _vector(dtype, [step] * lanes)))
        return out
    block, repeat = 32 // size, 256 // size
    out = [_scalar_value(dtype, first, diff, i) for i in range(min(count, block))]
    if count <= block:
        return out
    step = _scalar_step(dtype, diff, block)
    for b in range(1, -(-min(count, repeat) // block)):
        out += _lanes(dtype, add(dtype, env, _vector(dtype, out[(b - 1) * block:b * block]),
                                 _vector(dtype, [step] * block)))
    if count <= repeat:
        return out
    step = _scalar_step(dtype, diff, repeat)
    repeats, tail = divmod(count, repeat)
    for r in range(1, repeats):
        out += _lanes(dtype, add(dtype, env, _vector(dtype, out[(r - 1) * repeat:r * repeat]),
                                 _vector(dtype, [step] * repeat)))
    if tail:
        n = -(-tail // block) * block
        start = (repeats - 1) * repeat
        out += _lanes(dtype, add(dtype, env, _vector(dtype, out[start:start + n]), _vector(dtype, [step] * n)))
    return out


def _vector(dtype, values):
    """A column of lane values as the elementwise reference takes them (float64, or Python ints)."""
    if is_float(dtype):
        return np.array(values, np.float64)
    return np.array([int(v) for v in values], dtype=object)


__all__ = ["Env", "arith_progression"]
