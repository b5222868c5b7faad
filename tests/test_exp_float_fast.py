"""Exp on float lanes runs through a vectorised pass (jit/lanes.py exp_float_run); it must give exactly the bits of
the lane function (exp_lane rounded to float32) for every float32: sampled by default, exhaustively when slow."""
import numpy as np
import pytest
from numba import njit

from ascend_jit.jit.lanes import exp_float_run, exp_lane, narrow
from ascend_jit.jit.numerics import KIND_FLOAT

CHUNK = 1024


@njit(cache=True)
def _lane_by_lane(x, r):
    for i in range(x.size):
        r[i] = narrow(KIND_FLOAT, exp_lane(x[i]))


@njit(cache=True)
def _vectorised(x, r):
    scratch, slow = np.empty((3, CHUNK)), np.empty(CHUNK, np.bool_)
    for c0 in range(0, x.size, CHUNK):
        m = min(CHUNK, x.size - c0)
        exp_float_run(x[c0:c0 + m], r[c0:c0 + m], m, scratch, slow)


def _same_bits(bits):
    x = bits.astype(np.uint32).view(np.float32)
    want, got = np.empty_like(x), np.empty_like(x)
    _lane_by_lane(x, want)
    _vectorised(x, got)
    bad = np.flatnonzero(want.view(np.uint32) != got.view(np.uint32))
    assert bad.size == 0, f"{bad.size} lanes differ, first x = {x[bad[0]]!r}: {got[bad[0]]!r} vs {want[bad[0]]!r}"


def test_sampled_floats_and_the_edges():
    rng = np.random.default_rng(11)
    edges = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x42B00000, 0x42B17217,
                      0x42B17218, 0xC2AE0000, 0xC2AEAC4F, 0xC2AEAC50, 0xC2CFF1B4, 0xC2CFF1B5, 0x3F800000, 1,
                      0x80000001], np.uint64)
    near = (edges[:, None].astype(np.int64) + np.arange(-64, 65)[None, :]).reshape(-1) % (1 << 32)
    softmax_range = (-np.abs(rng.standard_normal(1 << 20) * 8)).astype(np.float32).view(np.uint32)
    _same_bits(np.concatenate([near.astype(np.uint64), rng.integers(0, 1 << 32, 1 << 21, dtype=np.uint64),
                               softmax_range.astype(np.uint64)]))


@pytest.mark.slow
def test_every_float32():
    step = 1 << 24
    for start in range(0, 1 << 32, step):
        _same_bits(np.arange(start, start + step, dtype=np.uint64))
