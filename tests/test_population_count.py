"""kernels/population_count.py (ops-math PopulationCount, 950): why the original masks the high byte before its
Cast, the tiling's single-buffer regime and a core past the input."""
import inspect

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels import registry

K = registry()["population_count"]
M = inspect.getmodule(K.run)


def test_without_the_mask_every_count_of_a_high_byte_saturates(monkeypatch):
    """The original's comment: without `Ands(u, u, 0x00FF)` every non-zero count came out 0xFF on the NPU. After the
    fourth SWAR step the high byte holds the high byte's own count, and the 950's Cast uint16 -> uint8 CAST_NONE
    saturates (SPEC-2 12.3), so every element whose high byte is not 0 gives 255; the others their count."""
    ands = aj.Ands
    monkeypatch.setattr(aj, "Ands", lambda dst, src, scalar, count: None if scalar == 0x00FF else
                        ands(dst, src, scalar, count))
    inputs = K.make_inputs(5000, 3)
    y = K.run("ascend950", inputs)["y"]
    high = inputs["x"].view(np.uint16) >> 8 != 0
    assert (y[high] == 255).all() and high.any() and (~high).any()
    np.testing.assert_array_equal(y[~high], K.expected("ascend950", inputs)["y"][~high])


def test_the_tiling_regimes():
    """Up to 1024 elements one buffer a queue (5 bytes an element), past it two (8); 32-element core blocks (1025:
    7 cores of 160, the last 65), so 37 elements run on 2 cores."""
    blocks, double, t = M.tiling("ascend950", 1024)
    t = t.view(M.PopulationCountTilingData)[0]
    assert (blocks, double, t["blockFactor"], t["ubFactor"]) == (8, 0, 128, 253952 // 5 // 32 * 32)
    blocks, double, t = M.tiling("ascend950", 1025)
    t = t.view(M.PopulationCountTilingData)[0]
    assert (blocks, double, t["blockFactor"], t["ubFactor"]) == (7, 1, 160, 253952 // 8)
    assert M.tiling("ascend950", 37)[0] == 2
