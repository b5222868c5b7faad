"""The one iteration scheme over repeat/block-stride operands (SPEC 1.2):

    byte(i, j) = base + i * repStride * 32 + (j // epb) * blkStride * 32 + (j % epb) * sizeof(T)

Masks arrive as two int64 words (the uint64 words reinterpreted, so one compiled signature serves every mask).
Gather/scatter move the bytes of whole elements, so they are dtype-agnostic.
"""
import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def lane_active(lo, hi, j):
    if j < 64:
        return (lo >> j) & 1
    return (hi >> (j - 64)) & 1


@njit(cache=True)
def active_lanes(lo, hi, lanes):
    """Indices of the active lanes (bit j of the 128-bit mask, SPEC 2.1) among the first `lanes` lanes."""
    out = np.empty(lanes, np.int64)
    n = 0
    for j in range(min(lanes, 128)):
        if lane_active(lo, hi, j):
            out[n] = j
            n += 1
    return out[:n]


@njit(cache=True, inline="always")
def lane_offset(j, size, blk_stride):
    epb = 32 // size
    return (j // epb) * blk_stride * 32 + (j % epb) * size


@njit(cache=True)
def copy_lanes(ub, base, blk, lanes, n, size, buf, to_ub):
    """Move the elements of lanes[:n] of the repeat at byte `base` between the UB and buf (uint8, packed in lane
    order): gather (to_ub False) or scatter (to_ub True), byte by byte: one compiled signature for every element
    width (a view per width compiled four copies, issue 20)."""
    for t in range(n):
        k = base + lane_offset(lanes[t], size, blk)
        at = t * size
        if to_ub:
            for c in range(size):
                ub[k + c] = buf[at + c]
        else:
            for c in range(size):
                buf[at + c] = ub[k + c]
