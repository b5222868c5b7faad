"""Reference model of the instructions, lane by lane, straight from SPEC.md sections 1, 2, 4 and 6.

Every function takes a UB (numpy uint8 array, modified in place) and fully resolved parameters. Masks are given
as the list of active lanes of a repeat (`lanes`), with `last_lanes` the number of lanes of the last repeat in
counter mode (None in normal mode).
"""
import math

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
