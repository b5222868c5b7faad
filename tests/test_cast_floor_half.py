"""Cast float -> half CAST_FLOOR runs through a fast path (the RNE conversion stepped towards -inf); it must give the
bits of the general routine (convert_bits) for every float: the edges exhaustively, the rest sampled."""
import numpy as np
import pytest

from ascend_jit.jit.convert import MODE_FLOOR, convert_bits, convert_run
from ascend_jit.jit.numerics import KIND_FLOAT, KIND_HALF


def _edges():
    """Every float around each half's value (the rounding boundaries), the overflow edge, zeros, infinities, NaNs."""
    halves = np.arange(0, 0x7C01, dtype=np.uint16).view(np.float16).astype(np.float32)
    near = halves.view(np.uint32)[:, None] + np.arange(-3, 4, dtype=np.int64)[None, :]
    mids = (halves[:-1].astype(np.float64) + halves[1:]) / 2
    extra = np.array([0x7F800000, 0x7FC00000, 0x7F800001, 0x477FF000, 0x477FE000, 0x477FEFFF, 0x00000001],
                     np.uint32)
    pos = np.concatenate([near.reshape(-1).clip(0, 0x7FFFFFFF).astype(np.uint32), mids.astype(np.float32).view(
        np.uint32), extra])
    return np.concatenate([pos, pos | np.uint32(0x80000000)])


@pytest.mark.parametrize("sat", [False, True])
def test_floor_fast_path_matches_the_general_routine(sat):
    rng = np.random.default_rng(5)
    bits = np.concatenate([_edges(), rng.integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(np.uint32)])
    d = np.empty(bits.size, np.uint16)
    convert_run(KIND_FLOAT, KIND_HALF, MODE_FLOOR, False, sat, d.view(np.uint8), bits.view(np.uint8), bits.size)
    want = np.array([convert_bits(KIND_FLOAT, KIND_HALF, MODE_FLOOR, False, sat, np.uint64(b)) for b in
                     bits[::97]], np.uint16)
    assert np.array_equal(d[::97], want)
    edges = _edges()
    want = np.array([convert_bits(KIND_FLOAT, KIND_HALF, MODE_FLOOR, False, sat, np.uint64(b)) for b in edges],
                    np.uint16)
    assert np.array_equal(d[:edges.size], want)
