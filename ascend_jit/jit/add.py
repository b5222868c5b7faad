"""Add kernels: one element-wise loop family over packed byte runs, used by every interface form.

`add_run` does the arithmetic on three packed runs (the count form passes UB slices; the strided form passes the
gathered lanes of one repeat, i.e. the register the vector unit would hold). A count call is the contiguous case
of the same scheme, not a second implementation.
"""
import numpy as np
from numba import njit

from .addressing import active_lanes, copy_lanes
from .numerics import (KIND_BF16, KIND_FLOAT, KIND_HALF, KIND_INT16, KIND_INT32, KIND_INT64, KIND_INT8, KIND_UINT16,
                       KIND_UINT32, KIND_UINT8, bf16_bits_to_f32, f32_to_bf16_bits, float_store_bits,
                       half_bits_to_f32, half_store_bits, kind_size, round_half)

@njit(cache=True, inline="always")
def _clamp(v, lo, hi):
    return min(max(v, lo), hi)


CHUNK = 2048  # elements per pass: the float32 sums of one chunk stay in L1


@njit(cache=True)
def add_run(kind, sat_half, sat_int, d, a, b, n):
    """d[:n] = a[:n] + b[:n] on packed byte arrays of element kind `kind` (SPEC 5: RNE, overflow modes).

    Float kinds run in two passes per chunk through a private float32 buffer: the sums first, then the rounding
    and store. dst may be the very same bytes as a source (100% overlap is legal); the private buffer lets LLVM
    vectorise both passes anyway, where a single fused loop would fall back to scalar code on that aliasing."""
    if kind == KIND_HALF or kind == KIND_FLOAT or kind == KIND_BF16:
        size = kind_size(kind)
        sums = np.empty(min(n, CHUNK), np.float32)
        for c0 in range(0, n, CHUNK):
            m = min(CHUNK, n - c0)
            lo, hi = c0 * size, (c0 + m) * size
            _float_chunk(kind, sat_half, d[lo:hi], a[lo:hi], b[lo:hi], m, sums)
    elif kind == KIND_INT16:
        _add_signed(d.view(np.int16), a.view(np.int16), b.view(np.int16), n, -32768, 32767, sat_int)
    elif kind == KIND_INT32:
        _add_signed(d.view(np.int32), a.view(np.int32), b.view(np.int32), n, -2147483648, 2147483647, sat_int)
    elif kind == KIND_UINT16:
        _add_wrap(d.view(np.uint16), a.view(np.uint16), b.view(np.uint16), n)
    elif kind == KIND_UINT32:
        _add_wrap(d.view(np.uint32), a.view(np.uint32), b.view(np.uint32), n)
    elif kind == KIND_INT8:
        _add_wrap(d.view(np.int8), a.view(np.int8), b.view(np.int8), n)
    elif kind == KIND_UINT8:
        _add_wrap(d, a, b, n)
    elif kind == KIND_INT64:
        _add_wrap(d.view(np.int64), a.view(np.int64), b.view(np.int64), n)
    else:
        _add_wrap(d.view(np.uint64), a.view(np.uint64), b.view(np.uint64), n)


@njit(cache=True, inline="always")
def _float_chunk(kind, sat_half, d, a, b, m, sums):
    if kind == KIND_HALF:
        av, bv, dv = a.view(np.uint16), b.view(np.uint16), d.view(np.uint16)
        for i in range(m):
            sums[i] = half_bits_to_f32(av[i]) + half_bits_to_f32(bv[i])
        if sat_half:
            for i in range(m):
                dv[i] = half_store_bits(round_half(sums[i], True))
        else:
            for i in range(m):
                dv[i] = half_store_bits(round_half(sums[i], False))
    elif kind == KIND_FLOAT:
        av, bv, dv = a.view(np.float32), b.view(np.float32), d.view(np.uint32)
        for i in range(m):
            sums[i] = av[i] + bv[i]
        for i in range(m):
            dv[i] = float_store_bits(sums[i])
    else:
        av, bv, dv = a.view(np.uint16), b.view(np.uint16), d.view(np.uint16)
        for i in range(m):
            sums[i] = bf16_bits_to_f32(av[i]) + bf16_bits_to_f32(bv[i])
        for i in range(m):
            dv[i] = f32_to_bf16_bits(sums[i])


@njit(cache=True, inline="always")
def _add_signed(dv, av, bv, n, lo, hi, saturate):
    """int16/int32 (D6): the exact sum clamped to [lo, hi] when CTRL[53] saturates, else wrapped by the store."""
    if saturate:
        for i in range(n):
            dv[i] = _clamp(np.int64(av[i]) + np.int64(bv[i]), lo, hi)
    else:
        mask = hi - lo  # 2**bits - 1: two's-complement wrap written out, the same compiled and in plain Python
        for i in range(n):
            dv[i] = ((np.int64(av[i]) + np.int64(bv[i]) - lo) & mask) + lo


@njit(cache=True, inline="always")
def _add_wrap(dv, av, bv, n):
    """D21: the 8-bit, unsigned 16/32-bit and 64-bit 950 types always wrap (storing truncates)."""
    for i in range(n):
        dv[i] = av[i] + bv[i]


@njit(cache=True, nogil=True)
def add_contiguous(ub, kind, sat_half, sat_int, dst, src0, src1, n):
    """The count form (counter mode, default strides): n consecutive elements."""
    nb = n * kind_size(kind)
    add_run(kind, sat_half, sat_int, ub[dst:dst + nb], ub[src0:src0 + nb], ub[src1:src1 + nb], n)


@njit(cache=True, nogil=True)
def add_strided(ub, kind, sat_half, sat_int, dst, src0, src1, dblk, s0blk, s1blk, drep, s0rep, s1rep,
                repeat, mask_lo, mask_hi, last_lanes):
    """The high-dim form: per repeat, gather the active lanes of both sources (the vector register), add, scatter.
    last_lanes >= 0 is counter mode: the last repeat takes only its first last_lanes lanes (SPEC 2.6)."""
    size = kind_size(kind)
    lanes = active_lanes(mask_lo, mask_hi, 256 // size)
    a = np.empty(256, np.uint8)
    b = np.empty(256, np.uint8)
    d = np.empty(256, np.uint8)
    for i in range(repeat):
        n = lanes.size if (last_lanes < 0 or i < repeat - 1) else last_lanes
        copy_lanes(ub, src0 + i * s0rep * 32, s0blk, lanes, n, size, a, False)
        copy_lanes(ub, src1 + i * s1rep * 32, s1blk, lanes, n, size, b, False)
        add_run(kind, sat_half, sat_int, d, a, b, n)
        copy_lanes(ub, dst + i * drep * 32, dblk, lanes, n, size, d, True)
