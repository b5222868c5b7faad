"""kernels/index_fill_d.py (ops-nn IndexFillD): the host tiling's core split and buffer modes, and the two kernels
that cannot run as written: int32 (its tiles fill the UB before the mask TBuf every type initialises) and int8 /
bool (a Cast into the half view of the x and assist1 tiles overlaps its own source, SPEC-2 D34)."""
import inspect

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry


def _module():
    return inspect.getmodule(registry()["index_fill_d"].run)


@pytest.mark.parametrize("dtype, n, want", [
    # 256-byte blocks (1563; 23438) over min(8, ceil(n / 1024)) cores, big cores first; tiles of UB / bufferNum /
    # 256 blocks * typeLength / DATA_NUM; one buffer while the whole input's buffers fit 8 UBs
    ("float", 100000, (8, 1, dict(smallCoreDataNum=12480, bigCoreDataNum=12544, tileDataNum=15104, tailBlockNum=3,
                                  finalSmallTileNum=1, finalBigTileNum=1))),
    ("bfloat16", 3000000, (8, 0, dict(smallCoreDataNum=374912, bigCoreDataNum=375040, tileDataNum=8832,
                                      tailBlockNum=6, finalSmallTileNum=43, finalBigTileNum=43))),
])
def test_tiling_follows_the_host_formulas(dtype, n, want):
    m = _module()
    block_dim, sch_mode, raw = m.tiling("atlas-a2", n, dtype)
    t = np.frombuffer(raw.tobytes(), m.IndexFillDTilingData)[0]
    assert (block_dim, sch_mode) == want[:2]
    assert {k: int(t[k]) for k in want[2]} == want[2]


@pytest.mark.parametrize("device, n", [("atlas-a2", 1000), ("atlas-a2", 3000000), ("ascend950", 1000)])
def test_int32_kernel_passes_the_ub_by_its_mask_buffer(device, n):
    """DATA_NUM_I32 = 12 bytes an element is the three int32 tiles alone: with the mask TBuf the buffers need
    tileDataNum bytes more than the UB holds, in either buffer mode (the A2's single buffer: 196608 + 16384)."""
    m = _module()
    _, _, raw = m.tiling(device, n, "int32")
    tile = int(np.frombuffer(raw.tobytes(), m.IndexFillDTilingData)[0]["tileDataNum"])
    assert 3 * tile * 4 * (2 if n > 100000 else 1) + tile > aj.get_device(device).ub_bytes
    with pytest.raises(aj.OutOfBoundsError, match="InitBuffer"):
        m._run("int32")(device, m._make_inputs("int32")(n, 1))


def test_int8_kernel_casts_into_its_own_source():
    """Cast(x tile as half, assist1 tile, CAST_NONE): the half destination's bytes [0, 2n) cover the int8 source at
    [n, 2n); different sizes allow no overlap at all (SPEC-2 D34), refused before anything is written."""
    m = _module()
    with pytest.raises(aj.OverlapError, match="D34"):
        m._run("int8")("atlas-a2", m._make_inputs("int8")(1000, 1))
