"""Reference model of the Ascend 950 Reg ReduceDataBlock (SPEC 7.5; D3, D20, D25), lane by lane.

Inputs are plain lists: `values` the source lanes (Python numbers), `active` a list of booleans per lane."""
import math

from .numerics import INT_RANGE, add, is_float

SUM_PAIRS = {("half", "half"), ("float", "float"), ("int32", "int32"), ("int32", "int16"), ("uint32", "uint32"),
             ("uint32", "uint16"), ("int16", "int16"), ("uint16", "uint16")}
MINMAX_TYPES = {"half", "float", "int16", "uint16", "int32", "uint32"}
HALF_MAX = 65504.0


def supported(op, dst_dtype, src_dtype):
    if op == "sum":
        return (dst_dtype, src_dtype) in SUM_PAIRS
    return dst_dtype == src_dtype and src_dtype in MINMAX_TYPES


def _tree(dtype, vals, sat):
    while len(vals) > 1:
        vals = [add(dtype, vals[2 * k], vals[2 * k + 1], sat_half=sat) for k in range(len(vals) // 2)]
    return vals[0]


def _fmax(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b:  # max(-0, +0) = +0
        return b if math.copysign(1, a) < 0 else a
    return max(a, b)


def _fmin(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b:  # min(-0, +0) = -0
        return a if math.copysign(1, a) < 0 else b
    return min(a, b)


def reduce_data_block(op, dst_dtype, src_dtype, values, active, sat=False):
    """The 8 block results (Python numbers) of dst lanes 0..7; lanes 8.. are 0 (D3)."""
    lanes = len(values)
    epb = lanes // 8
    results = []
    for b in range(8):
        block = [(values[b * epb + k], active[b * epb + k]) for k in range(epb)]
        if is_float(src_dtype):
            if op == "sum":
                r = _tree(src_dtype, [v if on else 0.0 for v, on in block], sat)
            else:
                fill, fn = (-math.inf, _fmax) if op == "max" else (math.inf, _fmin)
                r = fill
                for v, on in block:
                    r = fn(r, v if on else fill)
            if src_dtype == "half" and sat:  # D20
                r = 0.0 if math.isnan(r) else max(-HALF_MAX, min(HALF_MAX, r))
        else:
            lo, hi = INT_RANGE[src_dtype]
            vals = [v for v, on in block if on]
            if op == "sum":
                dlo, dhi = INT_RANGE[dst_dtype]
                r = (sum(vals) - dlo) % (dhi - dlo + 1) + dlo  # exact, wrapped to the dst type
            elif op == "max":
                r = max(vals, default=lo)
            else:
                r = min(vals, default=hi)
        results.append(r)
    return results
