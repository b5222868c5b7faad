"""Compare/Compares and Select kernels (SPEC-2 9.4, 9.5, D43, D44, D59).

Compare turns one repeat of L lanes into L/8 bytes of bits (bit k of byte b = lane 8b+k); lanes outside the mask
give 0 bits. Values are compared exactly: every kind but the 64-bit integers widens to float64 without rounding, the
64-bit integers to int64 (uint64 with its top bit flipped), so one comparison loop per value type serves them. Select copies element bit patterns (no arithmetic) through an unsigned view.
"""
import numpy as np
from numba import njit

from .addressing import active_lanes, copy_lanes
from .ubview import ub_as
from .numerics import (KIND_BF16, KIND_FLOAT, KIND_HALF, KIND_INT16, KIND_INT32, KIND_INT64, KIND_INT8, KIND_UINT64,
                       KIND_UINT8, bf16_bits_to_f32, f32_from_bits, half_bits_to_f32, internal, kind_size)
from .lowered import empty_array, larger, smaller, zeroed_array

# aj.CMPMODE values
CMP_LT, CMP_GT, CMP_EQ, CMP_LE, CMP_GE, CMP_NE = 0, 1, 2, 3, 4, 5


@njit(cache=True, inline="always")
def _le(raw, at, n):
    """The n little-endian bytes raw[at:at + n] as an int64 (zero-extended; 8 bytes wrap into the sign bit). Bytes,
    not typed views of the row: each view type is a compile of its own (issue 20)."""
    v = np.int64(0)
    for c in range(n):
        v |= np.int64(raw[at + c]) << np.int64(8 * c)
    return v


@internal
def _widen(kind, raw, n, out):
    """out[:n] = exact values of the n packed elements of `raw` (every kind but int64/uint64)."""
    if kind == KIND_HALF:
        for i in range(n):
            out[i] = half_bits_to_f32(np.uint16(_le(raw, 2 * i, 2)))
    elif kind == KIND_BF16:
        for i in range(n):
            out[i] = bf16_bits_to_f32(np.uint16(_le(raw, 2 * i, 2)))
    elif kind == KIND_FLOAT:
        for i in range(n):
            out[i] = f32_from_bits(np.uint32(_le(raw, 4 * i, 4)))
    elif kind == KIND_INT8:
        for i in range(n):
            out[i] = np.int64(raw[i]) - ((np.int64(raw[i]) & 0x80) << np.int64(1))
    elif kind == KIND_UINT8:
        for i in range(n):
            out[i] = raw[i]
    elif kind == KIND_INT16:
        for i in range(n):
            v = _le(raw, 2 * i, 2)
            out[i] = v - ((v & 0x8000) << np.int64(1))
    elif kind == KIND_INT32:
        for i in range(n):
            v = _le(raw, 4 * i, 4)
            out[i] = v - ((v & 0x80000000) << np.int64(1))
    else:  # uint16, uint32
        size = kind_size(kind)
        for i in range(n):
            out[i] = _le(raw, size * i, size)


TOP_BIT = np.int64(-(1 << 63))


@internal
def _widen64(unsigned, raw, n, out):
    """out[:n] = the n packed 64-bit integers as int64, uint64 with the top bit flipped: the flip maps the unsigned
    order onto the signed one (and keeps equality), so one comparison loop serves both."""
    for i in range(n):
        v = _le(raw, 8 * i, 8)
        out[i] = v ^ TOP_BIT if unsigned else v


@njit(cache=True, inline="always")
def _cmp(mode, ne_nan, x, y):
    if mode == CMP_LT:
        return x < y
    if mode == CMP_GT:
        return x > y
    if mode == CMP_EQ:
        return x == y
    if mode == CMP_LE:
        return x <= y
    if mode == CMP_GE:
        return x >= y
    if x != x or y != y:   # NE with a NaN operand: per device (D43)
        return ne_nan == 1
    return x != y


@internal
def _cmp_values(mode, ne_nan, a, b, b_step, n, out):
    for i in range(n):
        out[i] = _cmp(mode, ne_nan, a[i], b[i * b_step])


@internal
def compare_run(kind, mode, ne_nan, a, b, b_step, n, fa, fb, out):
    """out[:n] = 1/0 for a[i] cmp b[i * b_step] on packed element bytes (b_step 0: Compares' scalar). fa, fb:
    float64 scratch of at least n (and 1) elements."""
    if kind == KIND_INT64 or kind == KIND_UINT64:
        ia, ib = empty_array(n, np.int64), empty_array(larger(n, 1), np.int64)
        _widen64(kind == KIND_UINT64, a, n, ia)
        _widen64(kind == KIND_UINT64, b, n if b_step else 1, ib)
        _cmp_values(mode, ne_nan, ia, ib, b_step, n, out)
    else:
        _widen(kind, a, n, fa)
        _widen(kind, b, n if b_step else 1, fb)
        _cmp_values(mode, ne_nan, fa, fb, b_step, n, out)


@njit(cache=True, inline="always")
def _pack(flags, nbytes, ub, at):
    """Bytes of bits, LSB first (D44), written at ub[at:at + nbytes]."""
    for k in range(nbytes):
        byte = 0
        for t in range(8):
            byte |= flags[8 * k + t] << t
        ub[at + k] = byte


CHUNK = 2048  # elements per pass of the count form (a multiple of every L)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def compare_contiguous(ub, kind, mode, ne_nan, dst, src0, bbuf, src1, b_step, n):
    """The count form: n elements (whole repeats) of src0 vs those at bbuf[src1:] (bbuf is the UB, or Compares'
    scalar bytes with b_step 0)."""
    size = kind_size(kind)
    m = smaller(n, CHUNK)
    fa = empty_array(m, np.float64)
    fb = empty_array(m, np.float64)
    flags = empty_array(m, np.uint8)
    for c0 in range(0, n, CHUNK):
        c = smaller(CHUNK, n - c0)
        b0 = src1 + c0 * size * b_step
        compare_run(kind, mode, ne_nan, ub[src0 + c0 * size:src0 + (c0 + c) * size],
                    bbuf[b0:b0 + (c if b_step else 1) * size], b_step, c, fa, fb, flags)
        _pack(flags, c // 8, ub, dst + c0 // 8)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def compare_strided(ub, kind, mode, ne_nan, dst, src0, bbuf, src1, b_scalar, s0blk, s1blk, s0rep, s1rep, repeat,
                    mask_lo, mask_hi, last_lanes):
    """High-dim form: repeat i compares its active lanes and writes L/8 bytes at dst + i*L/8; inactive lanes give
    0 bits (D44). b_scalar: bbuf[src1:] is one element (Compares' scalar)."""
    size = kind_size(kind)
    L = 256 // size
    lanes = active_lanes(mask_lo, mask_hi, L)
    a = empty_array(256, np.uint8)
    b = empty_array(256, np.uint8)
    fa = empty_array(L, np.float64)
    fb = empty_array(L, np.float64)
    res = empty_array(L, np.uint8)
    flags = zeroed_array(L, np.uint8)
    for i in range(repeat):
        n = lanes.size if (last_lanes < 0 or i < repeat - 1) else smaller(last_lanes, lanes.size)
        copy_lanes(ub, src0 + i * s0rep * 32, s0blk, lanes, n, size, a, bool(False))
        if b_scalar:
            b[:size] = bbuf[src1:src1 + size]
        else:
            copy_lanes(bbuf, src1 + i * s1rep * 32, s1blk, lanes, n, size, b, bool(False))
        compare_run(kind, mode, ne_nan, a, b, 0 if b_scalar else 1, n, fa, fb, res)
        flags[:] = 0
        for t in range(n):
            flags[lanes[t]] = res[t]
        _pack(flags, L // 8, ub, dst + i * (L // 8))


@njit(cache=True, inline="always")
def _select_elems(dv, av, bv, b_step, ub, sel, bit0, mode0_lanes, n):
    for i in range(n):
        k = bit0 + i
        if mode0_lanes > 0:
            k = i % mode0_lanes
        if (ub[sel + (k >> 3)] >> (k & 7)) & 1:
            dv[i] = av[i]
        else:
            dv[i] = bv[i * b_step]


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def select_contiguous(ub, size, dst, sel, src0, bbuf, src1, b_step, mode0_lanes, n):
    """The count form: element k takes src0 where selMask bit k (mode 0: bit k mod L) is 1, else the element at
    bbuf[src1:] (the UB, or the scalar's bytes with b_step 0). Bit copies through an unsigned view (D59)."""
    nb = n * size
    d, a = ub[dst:dst + nb], ub[src0:src0 + nb]
    b = bbuf[src1:src1 + (nb if b_step else size)]
    if size == 2:
        _select_elems(ub_as(d, np.uint16), ub_as(a, np.uint16), ub_as(b, np.uint16), b_step, ub, sel, 0, mode0_lanes,
                      n)
    elif size == 4:
        _select_elems(ub_as(d, np.uint32), ub_as(a, np.uint32), ub_as(b, np.uint32), b_step, ub, sel, 0, mode0_lanes,
                      n)
    elif size == 8:
        _select_elems(ub_as(d, np.uint64), ub_as(a, np.uint64), ub_as(b, np.uint64), b_step, ub, sel, 0, mode0_lanes,
                      n)
    else:
        _select_elems(d, a, b, b_step, ub, sel, 0, mode0_lanes, n)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def select_strided(ub, size, dst, sel, src0, bbuf, src1, b_scalar, mode0, dblk, s0blk, s1blk, drep, s0rep, s1rep, repeat,
                   mask_lo, mask_hi, last_lanes):
    """High-dim form: lane j of repeat i uses selMask bit j (mode 0) or i*L + j (modes 1, 2); lanes outside the mask
    keep dst (D59). Every source is read before dst is written (register semantics)."""
    L = 256 // size
    lanes = active_lanes(mask_lo, mask_hi, L)
    a = empty_array(256, np.uint8)
    b = empty_array(256, np.uint8)
    d = empty_array(256, np.uint8)
    picks = empty_array(L, np.uint8)
    for i in range(repeat):
        n = lanes.size if (last_lanes < 0 or i < repeat - 1) else smaller(last_lanes, lanes.size)
        copy_lanes(ub, src0 + i * s0rep * 32, s0blk, lanes, n, size, a, bool(False))
        if b_scalar:
            for t in range(n):
                b[t * size:(t + 1) * size] = bbuf[src1:src1 + size]
        else:
            copy_lanes(bbuf, src1 + i * s1rep * 32, s1blk, lanes, n, size, b, bool(False))
        base = 0 if mode0 else i * L
        for t in range(n):
            k = base + lanes[t]
            picks[t] = (ub[sel + (k >> 3)] >> (k & 7)) & 1
        for t in range(n):
            src = a if picks[t] else b
            d[t * size:(t + 1) * size] = src[t * size:(t + 1) * size]
        copy_lanes(ub, dst + i * drep * 32, dblk, lanes, n, size, d, bool(True))
