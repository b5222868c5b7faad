"""kernels/non_finite_check.py (ops-math NonFiniteCheck): the tiling's walk covers every element once, the flag
follows each kind of non-finite value wherever it is, and the bfloat16 path's in-place widening Cast is refused
(SPEC-2 D34) once a chunk passes half the buffer."""
import inspect

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry

K = registry()["non_finite_check"]
M = inspect.getmodule(K.run)


def _ranges(counts, dtype):
    """Each core's (tensor, start, end) pieces as Process walks them."""
    blocks, _, raw = M.tiling("atlas-a2", counts, dtype)
    t = raw.view(M.NonFiniteCheckTilingData)[0]
    pieces = []
    for c in range(blocks):
        for i in range(t["tensorStartList"][c], t["tensorEndList"][c] + 1):
            start = t["tensorStartOffsetList"][c] if i == t["tensorStartList"][c] else 0
            end = counts[i] - 1
            if i == t["tensorEndList"][c] and t["tensorEndOffsetList"][c] < end:
                end = t["tensorEndOffsetList"][c]
            pieces.append((i, int(start), int(end)))
    return blocks, pieces


@pytest.mark.parametrize("counts", [[1], [5, 3], [81999, 20, 60000, 57980, 1], [16, 16, 16, 16, 16, 16, 16, 16, 8]])
@pytest.mark.parametrize("dtype", ["float", "half"])
def test_every_element_checked_once(counts, dtype):
    blocks, pieces = _ranges(counts, dtype)
    seen = [np.zeros(n, int) for n in counts]
    for i, start, end in pieces:
        seen[i][start:end + 1] += 1
    assert all((s == 1).all() for s in seen) and blocks == min(8, sum(-(-n * 2 // 32) if dtype == "half" else
                                                                       -(-n * 4 // 32) for n in counts))


def test_the_ub_split():
    """DivideUbMemory on the A2 (196608 bytes): 96768 bytes a buffer (24192 floats, 48384 halves' worth for half:
    97504 bytes, 48752 halves) and the ReduceMax result (3040 / 1536 bytes)."""
    t = M.tiling("atlas-a2", [100], "float")[2].view(M.NonFiniteCheckTilingData)[0]
    assert (t["maxProcCount"], t["tempValUbSize"]) == (24192, 3040)
    t = M.tiling("atlas-a2", [100], "half")[2].view(M.NonFiniteCheckTilingData)[0]
    assert (t["maxProcCount"], t["tempValUbSize"]) == (48752, 1536)


@pytest.mark.parametrize("dtype", ["float", "half", "bfloat16"])
@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan, None])
def test_the_flag_wherever_the_value_is(dtype, value):
    """One non-finite value in the first, a middle or the last tensor (the first, a middle, the last core), or none;
    the largest finite value of the type is not one."""
    k = registry()[{"float": "non_finite_check", "half": "non_finite_check_half",
                    "bfloat16": "non_finite_check_bf16"}[dtype]]
    base = M._make_inputs(dtype, None)(30011, 1)
    for where in ("x0", "x2", "x4"):
        inputs = {key: x.copy() for key, x in base.items()}
        inputs["x1"][0] = np.finfo(np.float16).max if dtype == "half" else np.float32(3e38)
        if value is not None:
            inputs[where][len(inputs[where]) // 2] = value
        assert k.run("atlas-a2", inputs)["found_flag"][0] == (0.0 if value is None else 1.0)


def test_the_bf16_in_place_widening_cast_is_refused_past_half_the_buffer():
    """A chunk of n bfloat16 sits at float maxProcCount / 2 of its buffer; Cast writes 4n bytes from its start, so
    past n = maxProcCount / 2 its destination reaches its source: an OverlapError (D34), not a result."""
    k = registry()["non_finite_check_bf16"]
    assert k.execute("atlas-a2", 90000, 0)[0]           # 8 cores of at most 11264 elements: within 24192 / 2
    with pytest.raises(aj.OverlapError):
        k.run("atlas-a2", k.make_inputs(8 * 12096 + 8 * 16, 0))   # 8 cores of 12112
