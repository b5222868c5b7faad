"""Reference model of the instructions, lane by lane, straight from SPEC.md sections 1, 2, 4 and 6.

Every function takes a UB (numpy uint8 array, modified in place) and fully resolved parameters. Masks are given
as the list of active lanes of a repeat (`lanes`), with `last_lanes` the number of lanes of the last repeat in
counter mode (None in normal mode).
"""

from .numerics import SIZES, add, decode, encode, is_float


def lanes_of_mask(lo, hi, nlanes):
    """SPEC 2.1: bit k of lo is lane k, bit k of hi is lane 64 + k."""
    return [j for j in range(min(nlanes, 128)) if ((lo >> j) & 1 if j < 64 else (hi >> (j - 64)) & 1)]


def continuous_lanes(m, nlanes):
    """SPEC 2.2 / D15: the lowest min(m, nlanes) lanes."""
    return list(range(min(m, nlanes)))


def lane_address(base, size, i, j, blk, rep):
    """SPEC 1.2."""
    epb = 32 // size
    return base + i * rep * 32 + (j // epb) * blk * 32 + (j % epb) * size


def repeat_lanes(lanes, i, repeat, last_lanes):
    if last_lanes is not None and i == repeat - 1:
        return [j for j in range(last_lanes)]
    return lanes


def read(ub, dtype, addr):
    return decode(dtype, ub[addr:addr + SIZES[dtype]])


def write(ub, dtype, addr, value):
    ub[addr:addr + SIZES[dtype]] = list(encode(dtype, value))


def walk(base, dtype, lanes, repeat, blk, rep, last_lanes=None):
    """Every (repeat, lane, byte address) an operand touches: the reference footprint."""
    size = SIZES[dtype]
    for i in range(repeat):
        for j in repeat_lanes(lanes, i, repeat, last_lanes):
            yield i, j, lane_address(base, size, i, j, blk, rep)


# --- Add (SPEC 3) ------------------------------------------------------------------------------------------------
def add_high_dim(ub, dtype, dst, src0, src1, lanes, repeat, strides, sat_half, sat_int, last_lanes=None):
    """strides = (dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep). Each repeat reads both sources fully (the
    vector register), then writes the active dst lanes; masked lanes are untouched (SPEC 2.3)."""
    size = SIZES[dtype]
    db, ab, bb, dr, ar, br = strides
    for i in range(repeat):
        act = repeat_lanes(lanes, i, repeat, last_lanes)
        results = []
        for j in act:
            x = read(ub, dtype, lane_address(src0, size, i, j, ab, ar))
            y = read(ub, dtype, lane_address(src1, size, i, j, bb, br))
            results.append((j, add(dtype, x, y, sat_half, sat_int)))
        for j, r in results:
            write(ub, dtype, lane_address(dst, size, i, j, db, dr), r)


def add_count(ub, dtype, dst, src0, src1, count, sat_half, sat_int):
    """SPEC 3.1: dst[j] = src0[j] + src1[j] for j < count."""
    size = SIZES[dtype]
    for j in range(count):
        r = add(dtype, read(ub, dtype, src0 + j * size), read(ub, dtype, src1 + j * size), sat_half, sat_int)
        write(ub, dtype, dst + j * size, r)


# --- trees (SPEC 4.1) --------------------------------------------------------------------------------------------
def zero(dtype):
    return 0.0 if is_float(dtype) else 0


def tree(dtype, values, nlanes, sat_half):
    """Adjacent-pair tree over one repeat of nlanes lanes; missing lanes are +0 (D2)."""
    level = list(values) + [zero(dtype)] * (nlanes - len(values))
    while len(level) > 1:
        level = [add(dtype, level[2 * k], level[2 * k + 1], sat_half) for k in range(len(level) // 2)]
    return level[0]


# --- ReduceSum (SPEC 4) ------------------------------------------------------------------------------------------
def _repeat_values(ub, dtype, base, lanes_active, nlanes):
    """One repeat read with blkStride 1: active lanes' values, masked lanes +0 (D2)."""
    size = SIZES[dtype]
    return [read(ub, dtype, base + j * size) if j in lanes_active else zero(dtype) for j in range(nlanes)]


def _write_all(ub, dtype, addr, values):
    for k, v in enumerate(values):
        write(ub, dtype, addr + k * SIZES[dtype], v)


def _groups(dtype, values, nlanes, sat):
    """tree over each group of nlanes values, the last group padded with +0."""
    return [tree(dtype, values[g:g + nlanes], nlanes, sat) for g in range(0, len(values), nlanes)]


def _high_dim_tree_tree(ub, dtype, dst, src, tmp, lanes_active, repeat, rep_bytes, sat, last_lanes=None):
    """SPEC 4.2 high-dim steps 1-3 (also the body of SPEC 4.3)."""
    nlanes = 256 // SIZES[dtype]
    per = []
    for i in range(repeat):
        act = set(range(last_lanes)) if (last_lanes is not None and i == repeat - 1) else set(lanes_active)
        per.append(tree(dtype, _repeat_values(ub, dtype, src + i * rep_bytes, act, nlanes), nlanes, sat))
    _write_all(ub, dtype, tmp, per)                 # step 1: tmp[i] = R(repeat i)
    if repeat == 1:
        result = per[0]                             # scalar copy tmp[0] -> dst[0]
    else:
        groups = _groups(dtype, per, nlanes, sat)   # step 2, in place
        _write_all(ub, dtype, tmp, groups)
        result = groups[0] if len(groups) == 1 else tree(dtype, groups, nlanes, sat)  # step 3
    write(ub, dtype, dst, result)
    return result


def reduce_sum_count(ub, spec, dtype, dst, src, tmp, count, sat):
    """The count form on device `spec` (a DeviceSpec): SPEC 4.2 (A2/A3), 4.3 (910/310P/310B), 4.4 (950)."""
    size = SIZES[dtype]
    nlanes = 256 // size
    algo = spec.reduce_sum_count_algorithm
    if dtype in ("int64", "uint64"):            # SPEC 4.4: exact modulo 2**64
        total = sum(read(ub, dtype, src + j * size) for j in range(count))
        write(ub, dtype, dst, add(dtype, total, 0))
        return
    if algo == "tree-seq":                      # SPEC 4.2, D1
        acc = None
        for r in range(-(-count // nlanes)):
            n = min(nlanes, count - r * nlanes)
            v = tree(dtype, _repeat_values(ub, dtype, src + r * 256, set(range(n)), nlanes), nlanes, sat)
            acc = v if acc is None else add(dtype, acc, v, sat)
        write(ub, dtype, dst, acc)
    elif algo == "tree-tree+tail":              # SPEC 4.3 / audit 2
        body_repeats, tail = divmod(count, nlanes)
        if body_repeats == 0:
            _high_dim_tree_tree(ub, dtype, dst, src, tmp, set(range(count)), 1, 256, sat)
            return
        body = _high_dim_tree_tree(ub, dtype, dst, src, tmp, set(range(nlanes)), body_repeats, 256, sat)
        if tail:
            t = _high_dim_tree_tree(ub, dtype, dst, src + body_repeats * 256, tmp, set(range(tail)), 1, 256, sat)
            _write_all(ub, dtype, tmp, [body, t])
            result = tree(dtype, [body, t], nlanes, sat)
            write(ub, dtype, tmp, result)
            write(ub, dtype, dst, result)
    else:
        reduce_sum_950_counter(ub, dtype, dst, src, tmp, count, 8, sat)


def _upper_levels_950(ub, dtype, tmp, level, L, sat):
    """SPEC 4.4: per-repeat results to tmp; more than L of them get a third level in place; then one tree."""
    _write_all(ub, dtype, tmp, level)
    if len(level) > L:
        level = _groups(dtype, level, L, sat)
        _write_all(ub, dtype, tmp, level)
    return tree(dtype, level, L, sat)


def reduce_sum_950_counter(ub, dtype, dst, src, tmp, count, src_rep_stride, sat):
    """SPEC 4.4 table (audit 3): the 950 count form, and the high-dim form in counter mode (D23)."""
    size = SIZES[dtype]
    L = 256 // size
    step = src_rep_stride * 32

    def rep(k):  # lanes past the count are never used: read them as +0 rather than past the footprint
        return [read(ub, dtype, src + k * step + j * size) if k * L + j < count else zero(dtype) for j in range(L)]

    if count <= L:
        result = tree(dtype, rep(0)[:count], L, sat)
    elif count <= 2 * L:
        r0, r1 = rep(0), rep(1)
        v = [add(dtype, r0[k], r1[k], sat) if k < count - L else r0[k] for k in range(L)]
        result = tree(dtype, v, L, sat)
    elif count <= 3 * L:
        r0, r1, r2 = rep(0), rep(1), rep(2)
        v = [add(dtype, r0[k], r1[k], sat) for k in range(L)]
        v = [add(dtype, v[k], r2[k], sat) if k < count - 2 * L else v[k] for k in range(L)]
        result = tree(dtype, v, L, sat)
    elif count <= 4 * L:
        r0, r1, r2, r3 = rep(0), rep(1), rep(2), rep(3)
        v = [add(dtype, r0[k], r1[k], sat) for k in range(L)]
        w = [add(dtype, r2[k], r3[k], sat) if k < count - 3 * L else r2[k] for k in range(L)]
        result = tree(dtype, [add(dtype, v[k], w[k], sat) for k in range(L)], L, sat)
    else:
        level = [tree(dtype, rep(g)[:min(L, count - g * L)], L, sat) for g in range(-(-count // L))]
        result = _upper_levels_950(ub, dtype, tmp, level, L, sat)
    write(ub, dtype, dst, result)


def reduce_sum_high_dim(ub, spec, dtype, dst, src, tmp, lanes_active, repeat, src_rep_stride, sat):
    """High-dim form in normal mode: SPEC 4.2/4.3 (TREE-TREE) or 4.4 (950); repeat 0 per D7/D14."""
    nlanes = 256 // SIZES[dtype]
    step = src_rep_stride * 32
    if spec.reduce_sum_highdim_algorithm == "tree-tree-950":
        repeat = max(repeat, 1)                # D7: repeat <= 1 runs one repeat
        per = [tree(dtype, _repeat_values(ub, dtype, src + i * step, set(lanes_active), nlanes), nlanes, sat)
               for i in range(repeat)]
        result = per[0] if repeat == 1 else _upper_levels_950(ub, dtype, tmp, per, nlanes, sat)
        write(ub, dtype, dst, result)
        return
    if repeat == 0:
        if spec.reduce_sum_highdim_repeat0 == "zero":  # D14: the 310B writes +0
            write(ub, dtype, dst, zero(dtype))
        return
    _high_dim_tree_tree(ub, dtype, dst, src, tmp, set(lanes_active), repeat, step, sat)


# --- ReducePairElem (SPEC 6) ----------------------------------------------------------------------------------------
def reduce_pair(ub, spec, dtype, dst, src, lanes_active, repeat, dst_rep, src_blk, src_rep, sat, last_lanes=None):
    """Output p of repeat i at dst + i*dst_rep*128 B: lane 2p + lane 2p+1, masked lanes +0 (D19); a pair with both
    lanes masked keeps dst (A2/A3/310P/910) or is written 0 (950/310B) (SPEC 2.4)."""
    size = SIZES[dtype]
    nlanes = 256 // size
    for i in range(repeat):
        act = set(repeat_lanes(lanes_active, i, repeat, last_lanes))
        v = [read(ub, dtype, lane_address(src, size, i, j, src_blk, src_rep)) if j in act else zero(dtype)
             for j in range(nlanes)]
        outs = []
        for p in range(nlanes // 2):
            if 2 * p in act or 2 * p + 1 in act:
                outs.append((p, add(dtype, v[2 * p], v[2 * p + 1], sat)))
            elif spec.pair_both_masked_zero:
                outs.append((p, zero(dtype)))
        for p, value in outs:
            write(ub, dtype, dst + i * dst_rep * 128 + p * size, value)
