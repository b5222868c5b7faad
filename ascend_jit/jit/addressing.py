"""The one iteration scheme over repeat/block-stride operands (SPEC 1.2):

    byte(i, j) = base + i * repStride * 32 + (j // epb) * blkStride * 32 + (j % epb) * sizeof(T)

Masks arrive as two int64 words (the uint64 words reinterpreted, so one compiled signature serves every mask).
Gather/scatter move whole elements through an unsigned view of the element's width, so they are dtype-agnostic.
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
def _gather_w(view, base, blk, lanes, n, size, out):
    for t in range(n):
        out[t] = view[(base + lane_offset(lanes[t], size, blk)) // size]


@njit(cache=True)
def _scatter_w(view, base, blk, lanes, n, size, src):
    for t in range(n):
        view[(base + lane_offset(lanes[t], size, blk)) // size] = src[t]


@njit(cache=True)
def gather(ub, base, blk, lanes, n, size, out):
    """Copy the elements of lanes[:n] of the repeat at byte `base` into out (bytes, packed in lane order)."""
    if size == 2:
        _gather_w(ub.view(np.uint16), base, blk, lanes, n, size, out.view(np.uint16))
    elif size == 4:
        _gather_w(ub.view(np.uint32), base, blk, lanes, n, size, out.view(np.uint32))
    elif size == 8:
        _gather_w(ub.view(np.uint64), base, blk, lanes, n, size, out.view(np.uint64))
    else:
        _gather_w(ub, base, blk, lanes, n, size, out)


@njit(cache=True)
def scatter(ub, base, blk, lanes, n, size, src):
    """Inverse of gather: write packed elements to the lanes lanes[:n] of the repeat at byte `base`."""
    if size == 2:
        _scatter_w(ub.view(np.uint16), base, blk, lanes, n, size, src.view(np.uint16))
    elif size == 4:
        _scatter_w(ub.view(np.uint32), base, blk, lanes, n, size, src.view(np.uint32))
    elif size == 8:
        _scatter_w(ub.view(np.uint64), base, blk, lanes, n, size, src.view(np.uint64))
    else:
        _scatter_w(ub, base, blk, lanes, n, size, src)
