"""The one iteration scheme over repeat/block-stride operands (SPEC 1.2):

    byte(i, j) = base + i * repStride * 32 + (j // epb) * blkStride * 32 + (j % epb) * sizeof(T)

Masks arrive as two int64 words (the uint64 words reinterpreted, so one compiled signature serves every mask).
Gather/scatter move the bytes of whole elements, so they are dtype-agnostic.
"""
import numpy as np
from llvmlite import ir
from numba import njit, types

from .numerics import internal
from .reg_move import copy_bytes
from .lowered import empty_array, lowered, smaller


def lane_active(lo, hi, j):
    """Bit j (0..127) of the mask whose words are lo (bits 0-63) and hi (bits 64-127), as 0 or 1."""
    if j < 64:
        return (lo >> j) & 1
    return (hi >> (j - 64)) & 1


def _lane_active_codegen(context, builder, sig, args):
    """lane_active in the caller (jit/lowered.py; issue 20: an inline="always" body at fourteen call sites): the
    word by a select, then the bit (j < 128)."""
    lo, hi, j = args
    i64 = ir.IntType(64)
    word = builder.select(builder.icmp_signed("<", j, ir.Constant(i64, 64)), lo, hi)
    return builder.and_(builder.lshr(word, builder.and_(j, ir.Constant(i64, 63))), ir.Constant(i64, 1))


lowered(lane_active, (types.int64, types.int64, types.int64), types.int64, _lane_active_codegen)


@internal
def active_lanes(lo, hi, lanes):
    """Indices of the active lanes (bit j of the 128-bit mask, SPEC 2.1) among the first `lanes` lanes."""
    out = empty_array(lanes, np.int64)
    n = 0
    for j in range(smaller(lanes, 128)):
        if lane_active(lo, hi, j):
            out[n] = j
            n += 1
    return out[:n]


@njit(cache=True, inline="always")
def lane_offset(j, size, blk_stride):
    """Byte offset of lane j in its repeat: block (j*size) // 32 at the block stride, (j*size) % 32 inside it (size
    divides 32: a shift and a mask, no divisions in the lane walks)."""
    at = j * size
    return (at >> 5) * blk_stride * 32 + (at & 31)


@njit(cache=True, no_cfunc_wrapper=True)
def copy_lanes(ub, base, blk, lanes, n, size, buf, to_ub):
    """Move the elements of lanes[:n] of the repeat at byte `base` between the UB and buf (uint8, packed in lane
    order): gather (to_ub False) or scatter (to_ub True), byte by byte: one compiled signature for every element
    width (a view per width compiled four copies, issue 20). Lanes that lie back to back in the UB (in one block, or
    across blocks at block stride 1) move as one run of bytes, in lane order: at block stride 0 the runs of a
    scatter land on the same bytes and the last lane's win, as lane by lane. (A byte loop of run-time length per
    lane cost about 6 ns a lane; a 64-lane float repeat is now one to eight copies.) Callers pass to_ub as a run-time bool
    (`bool(True)`): a literal True or False compiled a specialisation of its own (issue 20)."""
    t = 0
    while t < n:
        u = t + 1
        while u < n and lanes[u] == lanes[u - 1] + 1 and (blk == 1 or (lanes[u] * size) & 31 != 0):
            u += 1
        k = base + lane_offset(lanes[t], size, blk)
        if to_ub:
            copy_bytes(ub, k, buf, t * size, (u - t) * size)
        else:
            copy_bytes(buf, t * size, ub, k, (u - t) * size)
        t = u
