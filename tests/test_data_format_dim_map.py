"""kernels/data_format_dim_map.py (ops-nn DataFormatDimMap): its Compares take a tile's plain count, so a core
whose tile is not whole 64-float groups is refused at the Compares (SPEC-2 D44), on the 950 too, whose own
CompareScalar would compare the partial group (docs/decisions.md, session-18 port18b); the advanced Floor runs as
the 950's Truncate and the A2's Cast."""
import inspect

import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry


def _module():
    return inspect.getmodule(registry()["data_format_dim_map"].run)


@pytest.mark.parametrize("device", ["ascend950", "atlas-a2"])
def test_a_core_short_of_whole_groups_is_refused_at_the_compares(device):
    m = _module()
    assert m.tiling(device, 1000, "int32")[0] == 8          # 8 cores of 128 elements, the last 104
    with pytest.raises(aj.ParameterError, match="D44"):
        m._run("int32")(device, m._make_inputs("int32")(1000, 1))


def test_the_tables_other_formats():
    """NCHW -> NHWC through the same kernel: 0 -> 0, 1 -> 3, 2 -> 1, 3 -> 2; negative indices wrap."""
    import numpy as np
    m = _module()
    x = np.resize(np.arange(-4, 4, dtype=np.int32), 512)
    block_dim, raw = m.tiling("ascend950", x.size, "int32", "NCHW", "NHWC")
    y = np.zeros_like(x)
    aj.launch(m.data_format_dim_map, block_dim, "ascend950", x, y, np.zeros(32, np.uint8), raw, "int32")
    assert y[:8].tolist() == [0, 3, 1, 2, 0, 3, 1, 2]
