"""ReducePairElem kernel (SPEC 6): per repeat, the L/2 adjacent-pair sums of the gathered lanes, one rounded add
each; a masked lane counts as +0 (D19); a pair with both lanes masked is kept or written 0 per device (SPEC 2.4)."""
import numpy as np
from numba import njit

from .addressing import lane_active, lane_offset
from .numerics import KIND_HALF, half_bits_to_f32, half_store_bits, internal, kind_size, round_half
from .ubview import ub_as
from .values import combine, load, store
from .lowered import empty_array, zeroed_array


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def pair_kernel(ub, kind, sat, zero_both, dst, src, src_blk, src_rep, dst_rep, repeat, mask_lo, mask_hi, last_lanes):
    """dst_rep is in 128-byte units (one halved repeat, SPEC 1.2); last_lanes >= 0 is counter mode."""
    size = kind_size(kind)
    lanes = 256 // size
    pairs = lanes // 2
    witness = np.float32(0.0)
    vals = empty_array(lanes, np.float32)
    act = zeroed_array(lanes, np.bool_)
    out = empty_array(pairs, np.float32)
    full = True
    for j in range(lanes):
        if not lane_active(mask_lo, mask_hi, j):
            full = False
    first = 0
    if full and src_blk == 1 and src_rep == 8 and dst_rep == 1 and kind == KIND_HALF:
        # back-to-back repeats in and out: one vectorised run over every full repeat
        first = repeat if last_lanes < 0 or last_lanes == lanes else repeat - 1
        _half_pairs_run(ub, dst, src, first * pairs, sat)
    for i in range(first, repeat):
        base = src + i * src_rep * 32
        obase = dst + i * dst_rep * 128
        n = lanes if (last_lanes < 0 or i < repeat - 1) else last_lanes
        for j in range(lanes):
            act[j] = j < n and lane_active(mask_lo, mask_hi, j)
            vals[j] = load(ub, base + lane_offset(j, size, src_blk), kind, witness) if act[j] else witness
        for p in range(pairs):
            out[p] = combine(vals[2 * p], vals[2 * p + 1], kind, sat)
        for p in range(pairs):  # the whole register is read before any store (in-place calls)
            if act[2 * p] or act[2 * p + 1]:
                store(ub, obase + p * size, kind, out[p])
            elif zero_both:
                store(ub, obase + p * size, kind, witness)


@internal
def _half_pairs_run(ub, dst, src, npairs, sat):
    u16 = ub_as(ub, np.uint16)  # src and dst are 32-byte aligned (the API's checks)
    h, o = u16[src >> 1:(src >> 1) + 2 * npairs], u16[dst >> 1:(dst >> 1) + npairs]
    if sat:
        for p in range(npairs):
            o[p] = half_store_bits(round_half(half_bits_to_f32(h[2 * p]) + half_bits_to_f32(h[2 * p + 1]), True))
    else:
        for p in range(npairs):
            o[p] = half_store_bits(round_half(half_bits_to_f32(h[2 * p]) + half_bits_to_f32(h[2 * p + 1]), False))
