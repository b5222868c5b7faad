"""Reference model of the reduction family, lane by lane, straight from SPEC-2 section 8 (D30, D41, D50-D55).

Values are Python numbers (reference/numerics.py); every written result is encoded through `write`, so NaN is the
canonical pattern. `lanes` is the list of active lanes of a repeat, `last_lanes` the lane count of the last repeat
in counter mode (None otherwise), as in reference/model.py.
"""
import math

from .model import lane_address, read, repeat_lanes, tree, write, zero
from .numerics import INT_RANGE, SIZES, is_float

HALF_MAX = 65504.0
ORDER_VALUE_INDEX, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX = 0, 1, 2, 3


def sat(dtype, v, sat_half):
    """D35: half results in saturation mode: NaN -> +0, +-inf -> +-65504."""
    if dtype == "half" and sat_half:
        if v != v:
            return 0.0
        if math.isinf(v):
            return math.copysign(HALF_MAX, v)
    return v


def _key(v):
    """D41 total order; NaN above everything (it always wins)."""
    if isinstance(v, float):
        if v != v:
            return (2, 0.0)
        return (1, v, math.copysign(1.0, v))  # -0 < +0
    return (1, v, 1.0)


def better(op, a, b):
    """a strictly better than b for op "max"/"min" under D41; a NaN beats every number and ties with a NaN."""
    ka, kb = _key(a), _key(b)
    if ka[0] != kb[0]:
        return ka[0] > kb[0]
    if ka[0] == 2:
        return False
    return ka[1:] > kb[1:] if op == "max" else ka[1:] < kb[1:]


def extreme(op, values):
    """(value, position) of the best of values: ties -> first position, the first NaN wins (D50)."""
    best, at = None, -1
    for k, v in enumerate(values):
        if at < 0 or better(op, v, best):
            best, at = v, k
    return best, at


def _write_int(ub, addr, nbytes, value):
    ub[addr:addr + nbytes] = list(int(value).to_bytes(nbytes, "little"))


def _same_value(a, b):
    """IEEE ==."""
    return a == b


# --- ReduceRepeat (SPEC-2 8.1) ---------------------------------------------------------------------------------------
def reduce_repeat(ub, spec, op, src_dtype, dst_dtype, dst, src, lanes, repeat, dst_rep, src_blk, src_rep, order,
                  sat_half, last_lanes=None):
    """op "sum"/"max"/"min". Returns the D55 (value, i*L + j) of the best element over all repeats (MAX/MIN)."""
    size = SIZES[src_dtype]
    L = 256 // size
    best = None
    for i in range(repeat):
        act = repeat_lanes(lanes, i, repeat, last_lanes)
        vals = {j: read(ub, src_dtype, lane_address(src, size, i, j, src_blk, src_rep)) for j in act}
        if op == "sum":
            dsize = SIZES[dst_dtype]
            r = tree(dst_dtype, [vals.get(j, zero(dst_dtype)) for j in range(L)], L, sat_half)
            write(ub, dst_dtype, dst + i * dst_rep * dsize, r)
            continue
        v, k = extreme(op, [vals[j] for j in act])
        j = act[k]
        if best is None or better(op, v, best[0]):
            best = (v, i * L + j)
        value = sat(src_dtype, v, sat_half)
        unit = {ORDER_VALUE_INDEX: 2 * size, ORDER_INDEX_VALUE: 2 * size, ORDER_ONLY_VALUE: size,
                ORDER_ONLY_INDEX: 4}[order]
        a = dst + i * dst_rep * unit
        if order == ORDER_VALUE_INDEX:
            write(ub, src_dtype, a, value)
            _write_int(ub, a + size, size, j)
        elif order == ORDER_INDEX_VALUE:
            _write_int(ub, a, size, j)
            write(ub, src_dtype, a + size, value)
        elif order == ORDER_ONLY_VALUE:
            write(ub, src_dtype, a, value)
        else:
            _write_int(ub, a, 4, j)
    if best is not None:
        return sat(src_dtype, best[0], sat_half), best[1]
    return None


# --- ReduceDataBlock (SPEC-2 8.2) -------------------------------------------------------------------------------------
def block_fill(spec, op, dtype):
    """The value a fully masked DataBlock receives, or None when it is not written (SPEC-2 8.2, D51)."""
    if spec.name == "atlas-200i-500-a2":
        return {"sum": 0.0, "max": -HALF_MAX if dtype == "half" else -math.inf,
                "min": HALF_MAX if dtype == "half" else math.inf}[op]
    if spec.name == "ascend950":
        return {"sum": 0.0, "max": -math.inf, "min": math.inf}[op]
    return None


def reduce_data_block(ub, spec, op, dtype, dst, src, lanes, repeat, dst_rep, src_blk, src_rep, sat_half,
                      last_lanes=None):
    size = SIZES[dtype]
    epb = 32 // size
    for i in range(repeat):
        act = set(repeat_lanes(lanes, i, repeat, last_lanes))
        for b in range(8):
            block = [j for j in range(b * epb, (b + 1) * epb) if j in act]
            addr = dst + i * dst_rep * 8 * size + b * size
            if not block:
                fill = block_fill(spec, op, dtype)
                if fill is not None:
                    write(ub, dtype, addr, sat(dtype, fill, sat_half))
                continue
            vals = [read(ub, dtype, lane_address(src, size, i, j, src_blk, src_rep)) if j in act else zero(dtype)
                    for j in range(b * epb, (b + 1) * epb)]
            if op == "sum":
                r = tree(dtype, vals, epb, sat_half)
            else:
                r = sat(dtype, extreme(op, [vals[j - b * epb] for j in block])[0], sat_half)
            write(ub, dtype, addr, r)


# --- ReduceMax / ReduceMin (SPEC-2 8.3) -------------------------------------------------------------------------------
def max_min_tmp_size(spec, dtype, count=None, repeat_time=None, cal_index=False):
    """D54 / SPEC-2 8.3.1."""
    if spec.name == "ascend950":
        return 0
    size = SIZES[dtype]
    L, epb = 256 // size, 32 // size
    r1 = repeat_time if repeat_time is not None else max(1, count // L)

    def roundup(a):
        return -(-a // epb) * epb
    if not cal_index:
        return roundup(2 * r1)
    levels = [2 * r1]
    while len(levels) < 2 or levels[-1] > 2:
        levels.append(2 * -(-levels[-1] // L))
    return sum(roundup(i) for i in levels)


def reduce_max_min_levels(ub, op, dtype, dst, src, lanes, repeat, src_rep, cal_index, sat_half, count=None):
    """SPEC-2 8.3.2 (non-950, D52). count: the count form (lanes/repeat/src_rep are then derived)."""
    size = SIZES[dtype]
    L = 256 // size
    tail = 0
    if count is not None:
        repeat = max(1, count // L)
        lanes = list(range(min(count, L)))
        src_rep = 8
        tail = count % L if count >= L else 0
    s = src_rep * 32 // size
    per = []
    for r in range(repeat):
        v, k = extreme(op, [read(ub, dtype, src + r * src_rep * 32 + j * size) for j in lanes])
        per.append((sat(dtype, v, sat_half), lanes[k]))
    r_star = extreme(op, [v for v, _ in per])[1]
    value, index = per[r_star][0], r_star * s + per[r_star][1]
    if tail:
        base = repeat * L
        v, j = extreme(op, [read(ub, dtype, src + (base + k) * size) for k in range(tail)])
        v = sat(dtype, v, sat_half)
        if better(op, v, value):
            value, index = v, base + j
    write(ub, dtype, dst, value)
    if cal_index:
        _write_int(ub, dst + size, size, index)
    return value


SEEDS = {  # SPEC-2 8.3.3: MAX from the finite lowest, MIN from the finite highest
    "max": {"half": -HALF_MAX, "float": -3.4028234663852886e38},
    "min": {"half": HALF_MAX, "float": 3.4028234663852886e38}}


def reduce_max_min_950(ub, op, dtype, dst, src, cal_index, sat_half, count=None, lanes=None, repeat=None,
                       src_rep=None, counter_count=None):
    """SPEC-2 8.3.3 (D53): count form (count), high-dim (lanes, repeat, src_rep) or high-dim in counter mode
    (counter_count elements, repeat r read at r*src_rep blocks, indices advancing by V)."""
    size = SIZES[dtype]
    V = 256 // size if size < 8 else 64
    if is_float(dtype):
        seed = SEEDS[op][dtype]
    else:
        lo, hi = INT_RANGE[dtype]
        seed = lo if op == "max" else hi
    acc = [seed] * V
    idx = list(range(V))
    if count is not None or counter_count is not None:
        n = count if count is not None else counter_count
        nrep, step = -(-n // V), V
        rep_bytes = V * size if count is not None else src_rep * 32
        active = [[r * V + j < n for j in range(V)] for r in range(nrep)]
        P = list(range(V))
    else:
        nrep, step, rep_bytes = repeat, src_rep * 32 // size, src_rep * 32
        active = [[j in lanes for j in range(V)] for _ in range(nrep)]
        P = list(lanes)
    for r in range(nrep):
        for j in range(V):
            if active[r][j]:
                x = read(ub, dtype, src + r * rep_bytes + j * size)
                new = sat(dtype, x if better(op, x, acc[j]) else acc[j], sat_half)
                if not _same_value(new, acc[j]):
                    idx[j] = r * step + j
                acc[j] = new
    value = sat(dtype, extreme(op, [acc[j] for j in P])[0], sat_half)
    hits = [idx[j] for j in P if _same_value(acc[j], value)]
    index = min(hits) if hits else (0xFFFE if size == 2 else 0xFFFFFFFE)
    write(ub, dtype, dst, value)
    if cal_index:
        _write_int(ub, dst + size, size, index)
    return value

