"""What-if summation orders for the study (not device behaviour): sequential, pairwise, and a wide accumulator
rounded once. Inputs are float32 arrays holding values of the element type; each add is rounded to the type."""
import numpy as np
from numba import njit

from .numerics import KIND_HALF, round_half


@njit(cache=True, inline="always")
def _add(x, y, kind, sat):
    s = x + y
    if kind == KIND_HALF:
        return round_half(s, sat)
    return s


@njit(cache=True)
def sequential_sum(vals, kind, sat):
    """((x0 + x1) + x2) + ... with one rounding per add."""
    acc = vals[0]
    for i in range(1, vals.size):
        acc = _add(acc, vals[i], kind, sat)
    return acc


@njit(cache=True)
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


@njit(cache=True)
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
