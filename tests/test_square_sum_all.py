"""kernels/square_sum_all.py (ops-math SquareSumAll, 950): the tiling's core counts, and the sums within float
rounding of float64's at sizes that take each path (one core, the merge's tail vector; eight cores, whole vectors)."""
import inspect

import numpy as np
import pytest

from ascend_jit.kernels import registry

K = registry()["square_sum_all"]
M = inspect.getmodule(K.run)


def test_the_tiling():
    """One core per 4096 elements, at most 8; tiles of 4096 on the 950 (its UB holds more: the cap); the remainder
    one element more on the first cores; two 32-byte slots a core of user workspace."""
    for total, used in ((37, 1), (8191, 1), (8192, 2), (100003, 8)):
        blocks, t, user = M.tiling("ascend950", total)
        t = t.view(M.SquareSumAllTilingData)[0]
        assert blocks == used == t["usedCoreNum"] and user == used * 64 and t["tileElements"] == 4096
        assert t["baseCoreElements"] * used + t["extraCoreCount"] == total and t["extraCoreCount"] < used


@pytest.mark.parametrize("size", [1, 37, 20011, 8 * 4096])
def test_within_float_rounding_of_float64(size):
    inputs = K.make_inputs(size, 5)
    out = K.run("ascend950", inputs)
    for y, x in (("y1", "x1"), ("y2", "x2")):
        want = np.sum(inputs[x].astype(np.float64) ** 2)
        assert abs(float(out[y][0]) - want) <= 2 * size * 2.0**-24 * want + 1e-45
        assert out[y].tobytes() == K.expected("ascend950", inputs)[y].tobytes()
