"""Gather and GatherMask kernels (SPEC-2 9.2, 9.3, D57, D58): element copies through an unsigned view of the
element width, addresses proven by the API layer."""
import numpy as np
from numba import njit

from .lowered import larger, smaller


@njit(cache=True, inline="always")
def _copy(ub, to, frm, size):
    for b in range(size):
        ub[to + b] = ub[frm + b]


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def gather(ub, size, dst, src, offsets, lanes, lanes_per_repeat, dst_rep_bytes, repeat, last_lanes):
    """Active lane j (in `lanes`) of repeat i: dst + i*dst_rep_bytes + j*size <- src + offset[i*L' + j] (offsets:
    uint32 words at byte address `offsets`; src already includes srcBaseAddr). The count form is one repeat whose
    lanes are 0..count-1. Lanes outside the mask neither read nor write (D57)."""
    for i in range(repeat):
        n = lanes.size if (last_lanes < 0 or i < repeat - 1) else smaller(last_lanes, lanes.size)
        for t in range(n):
            j = lanes[t]
            at = offsets + 4 * (i * lanes_per_repeat + j)
            # int() first: uint8 shifts stay uint8 (and overflow) under NUMBA_DISABLE_JIT (issue 12, defect 11)
            off = int(ub[at]) | (int(ub[at + 1]) << 8) | (int(ub[at + 2]) << 16) | (int(ub[at + 3]) << 24)
            _copy(ub, dst + i * dst_rep_bytes + j * size, src + off, size)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def offset_faults(offsets, limit, start, size, lo, hi, dst_bytes, active):
    """Gather's checks of its used offsets (D57) in one pass: the first index over `limit` (-1: none; limit < 0:
    unlimited), the first whose element at start + offset is not `size`-aligned, the first whose element leaves
    [lo, hi); and the byte ranges the overlap check needs: the lowest and highest element address read, dst element
    address written and offset index used."""
    over = misaligned = outside = -1
    read_lo, read_hi = hi, lo
    for i in range(offsets.size):
        o = np.int64(offsets[i])
        a = start + o
        if over < 0 and 0 <= limit < o:
            over = i
        if misaligned < 0 and a % size != 0:
            misaligned = i
        if outside < 0 and (a < lo or a + size > hi):
            outside = i
        read_lo, read_hi = smaller(read_lo, a), larger(read_hi, a)
    write_lo, write_hi = dst_bytes[0], dst_bytes[0]
    for i in range(dst_bytes.size):
        write_lo, write_hi = smaller(write_lo, dst_bytes[i]), larger(write_hi, dst_bytes[i])
    used_lo, used_hi = active[0], active[0]
    for i in range(active.size):
        used_lo, used_hi = smaller(used_lo, active[i]), larger(used_hi, active[i])
    return over, misaligned, outside, read_lo, read_hi, write_lo, write_hi, used_lo, used_hi


@njit(cache=True, inline="always")
def builtin_bit(pattern, e):
    """SPEC-2 9.3 built-in patterns: 1 even, 2 odd, 3..6 lanes = 0..3 (mod 4), 7 every lane."""
    if pattern == 1:
        return e % 2 == 0
    if pattern == 2:
        return e % 2 == 1
    if pattern == 7:
        return True
    return e % 4 == pattern - 3


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def gather_mask(ub, size, dst, src, blk, rep, user, pattern_addr, pattern, pattern_rep_bytes, outer, elems,
                last_elems):
    """Element e of outer repeat i sits at src + i*rep*32 + (e // epb)*blk*32 + (e % epb)*size; it is kept when
    its pattern bit (user pattern: bit e of the bytes at pattern_addr + i*pattern_rep_bytes) is 1. Kept elements are
    packed from dst in (repeat, element) order (D58); returns their number. In-place use (dst == src with dense
    strides) is safe because the API refuses the calls whose packed output would reach a later outer repeat's first
    src byte (reduce mode with more than L elements per repeat, SPEC 8.2): the write index never passes the read
    index."""
    epb = 32 // size
    k = 0
    for i in range(outer):
        n = last_elems if i == outer - 1 else elems
        base = src + i * rep * 32
        pbase = pattern_addr + i * pattern_rep_bytes
        for e in range(n):
            if user:
                keep = (ub[pbase + (e >> 3)] >> (e & 7)) & 1 == 1
            else:
                keep = builtin_bit(pattern, e)
            if keep:
                _copy(ub, dst + k * size, base + (e // epb) * blk * 32 + (e % epb) * size, size)
                k += 1
    return k
