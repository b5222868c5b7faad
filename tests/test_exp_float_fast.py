"""Exp on float lanes runs through a vectorised pass (jit/lanes.py exp_float_run); it must give exactly the bits of
the lane function (exp_lane rounded to float32) for every float32: sampled by default, exhaustively when slow."""
import numpy as np
import pytest
from numba import njit

from ascend_jit.jit.lanes import _exp_near_tie, exp_float_run, exp_lane, narrow
from ascend_jit.jit.numerics import KIND_FLOAT

CHUNK = 1024


@njit(cache=True)
def _lane_by_lane(x, r):
    for i in range(x.size):
        r[i] = narrow(KIND_FLOAT, exp_lane(x[i]))


@njit(cache=True)
def _vectorised(x, r):
    for c0 in range(0, x.size, CHUNK):
        m = min(CHUNK, x.size - c0)
        exp_float_run(x[c0:c0 + m], r[c0:c0 + m], m)


def _same_bits(bits):
    x = bits.astype(np.uint32).view(np.float32)
    want, got = np.empty_like(x), np.empty_like(x)
    _lane_by_lane(x, want)
    _vectorised(x, got)
    bad = np.flatnonzero(want.view(np.uint32) != got.view(np.uint32))
    assert bad.size == 0, f"{bad.size} lanes differ, first x = {x[bad[0]]!r}: {got[bad[0]]!r} vs {want[bad[0]]!r}"


# Inputs inside the fast range whose fast double lies within the guard of a float32 rounding midpoint (all 34 of
# them, found by the exhaustive run): they take exp_lane's exact path.
NEAR_TIES = [0x337FFFFF, 0x33800000, 0x343FFFFF, 0x34DFFFFD, 0x356FFFF9, 0x35F7FFF1, 0x367BFFE1, 0x36FDFFC1,
             0x377EFF81, 0x383A3EF1, 0x38AD9E29, 0x38E69CC1, 0x39C6BE5B, 0x39E5BB1D, 0x3A7BCD08, 0x3C608A0E,
             0x3C971AAA, 0x3CAFFE2E, 0x3D1A274E, 0x3FE67199, 0x4001B249, 0x40315B33, 0x4034D02B, 0x41CBF87B,
             0x4288942B, 0xB3000000, 0xBAE0E25C, 0xBBB70EE8, 0xBBF0EDF1, 0xBC2A461A, 0xBCB8F40F, 0xC0781533,
             0xC13D6631, 0xC16912CD]


def test_near_ties_take_the_exact_path():
    x = np.array(NEAR_TIES, np.uint32).view(np.float32)
    assert all(_exp_near_tie(np.float64(v)) for v in x)
    _same_bits(np.array(NEAR_TIES, np.uint64))


def test_sampled_floats_and_the_edges():
    rng = np.random.default_rng(11)
    edges = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x42B00000, 0x42B17217,
                      0x42B17218, 0xC2AE0000, 0xC2AEAC4F, 0xC2AEAC50, 0xC2CFF1B4, 0xC2CFF1B5, 0x3F800000, 1,
                      0x80000001], np.uint64)
    edges = np.concatenate([edges, np.array(NEAR_TIES, np.uint64)])
    near = (edges[:, None].astype(np.int64) + np.arange(-64, 65)[None, :]).reshape(-1) % (1 << 32)
    softmax_range = (-np.abs(rng.standard_normal(1 << 20) * 8)).astype(np.float32).view(np.uint32)
    _same_bits(np.concatenate([near.astype(np.uint64), rng.integers(0, 1 << 32, 1 << 21, dtype=np.uint64),
                               softmax_range.astype(np.uint64)]))


@pytest.mark.slow
def test_every_float32():
    step = 1 << 24
    for start in range(0, 1 << 32, step):
        _same_bits(np.arange(start, start + step, dtype=np.uint64))
