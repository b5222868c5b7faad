"""What-if summation orders for the study and the sweep (not device behaviour): sequential, pairwise, and a wide
accumulator rounded once. Inputs are float32 arrays holding values of the element type; each add is rounded to the
type. Also the exact-sum kernel both use (exponent_bucket_sums)."""
import numpy as np
from numba import njit

from .numerics import KIND_HALF, round_half
from .lowered import zeroed_array


@njit(cache=True, inline="always")
def _add(x, y, kind, sat):
    s = x + y
    if kind == KIND_HALF:
        return round_half(s, sat)
    return s


@njit(cache=True, no_cfunc_wrapper=True)
def sequential_sum(vals, kind, sat):
    """((x0 + x1) + x2) + ... with one rounding per add."""
    acc = vals[0]
    for i in range(1, vals.size):
        acc = _add(acc, vals[i], kind, sat)
    return acc


@njit(cache=True, no_cfunc_wrapper=True)
def pairwise_sum(vals, kind, sat):
    """Adjacent-pair tree over exactly n values (an odd element is carried up a level unchanged)."""
    level = vals.copy()
    n = level.size
    while n > 1:
        half = n // 2
        for k in range(half):
            level[k] = _add(level[2 * k], level[2 * k + 1], kind, sat)
        if n % 2:
            level[half] = level[n - 1]
            half += 1
        n = half
    return level[0]


@njit(cache=True, no_cfunc_wrapper=True)
def wide_sum(vals, kind, sat):
    """A wider accumulator (float32 for half, float64 for float) rounded to the type once at the end: the
    alternative reading of the A2/A3 count form that D1 keeps as a study option only."""
    if kind == KIND_HALF:
        acc32 = np.float32(0.0)
        for i in range(vals.size):
            acc32 += vals[i]
        return round_half(acc32, sat)
    acc = 0.0
    for i in range(vals.size):
        acc += np.float64(vals[i])
    return np.float32(acc)


@njit(cache=True, no_cfunc_wrapper=True)
def exponent_bucket_sums(bits, man_bits, exp_mask, weights, absolute):
    """Exact integer partial sums of sum_i x_i * w_i, one per exponent. bits: the IEEE patterns of half (uint16;
    man_bits 10, exp_mask 0x1F) or float (uint32; 23, 0xFF) values; weights int64 in [0, 2**24] (an empty array
    means every weight is 1); absolute: sum |x_i|. Element i adds its signed significand m_i (implicit bit
    included) times w_i to the bucket of its biased exponent e_i (subnormals share bucket 1), so
    x_i * w_i = m_i * w_i * 2**(e_i - bias - man_bits). Each product (< 2**48) is split into 32-bit halves
    accumulated separately: no int64 overflows for up to 2**24 elements. lo[exp_mask] counts the infinities and
    NaNs (they are not summed). Integer adds are associative: the result does not depend on any order."""
    lo = zeroed_array(exp_mask + 1, np.int64)
    hi = zeroed_array(exp_mask + 1, np.int64)
    weighted = weights.size > 0
    man_mask = (1 << man_bits) - 1
    sign_shift = man_bits + (8 if exp_mask == 0xFF else 5)
    for i in range(bits.size):
        b = np.int64(bits[i])
        e = (b >> man_bits) & exp_mask
        if e == exp_mask:
            lo[exp_mask] += 1
            continue
        m = b & man_mask
        if e == 0:
            e = 1
        else:
            m += man_mask + 1
        if weighted:
            m *= weights[i]
        if not absolute and (b >> sign_shift) & 1:
            m = -m
        lo[e] += m & 0xFFFFFFFF
        hi[e] += m >> 32
    return lo, hi
