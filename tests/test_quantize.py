"""kernels/quantize.py (ops-nn Quantize): the host tiling's two splits, the zero points read by their runtime dtype
whatever the build's Z, and the int8 / uint8 outputs the port cannot run (their CastOut converts int32 -> half under
SetDeqScale, SPEC-2 D47)."""
import inspect

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry


def _module():
    return inspect.getmodule(registry()["quantize"].run)


def test_tiling_splits_elements_or_rows():
    m = _module()
    block_dim, key, raw = m.tiling("atlas-a2", (300007,), 0, 1, "float", "int32", "int8")
    t = np.frombuffer(raw.tobytes(), m.QuantizeTilingData)[0]
    # (196608 - 16384) B over 2 * (4 + 4) + 4 bytes an element, 9011, rounded down to 64: 8960
    assert (block_dim, key, int(t["blockFactor"]), int(t["blockTailFactor"]), int(t["baseLen"])) == \
        (8, m.QUANTIZE_PER_TENSOR, 37501, 37500, 8960)
    assert int(t["zpDtype"]) == 2 and int(t["hasZeroPoint"]) == 1
    block_dim, key, raw = m.tiling("atlas-a2", (3, 6, 1001), 1, 6, "bfloat16", "int32", "int32")
    t = np.frombuffer(raw.tobytes(), m.QuantizeTilingData)[0]
    assert (block_dim, key, int(t["totalRows"]), int(t["rowLen"]), int(t["blockFactor"]),
            int(t["blockTailFactor"])) == (6, m.QUANTIZE_PER_CHANNEL, 18, 1001, 3, 3)


@pytest.mark.parametrize("zp_dtype", ["uint8", "half", "float"])
def test_zero_points_are_read_by_their_runtime_dtype(zp_dtype):
    """The binary is built for int32 zero points (DTYPE_ZERO_POINTS); tiling.zpDtype makes ReadOffsetFp32 read the
    buffer as what it holds, so per-channel offsets past the first are right."""
    m = _module()
    x = np.linspace(-40, 40, 4 * 6 * 50).astype(np.float32)
    scales = np.array([0.5, 0.25, 2.0, 1.0, 0.125, 4.0], np.float32)
    zp = np.array([0, 7, 200, 3, 250, 9]).astype(m._NP[zp_dtype])
    block_dim, key, raw = m.tiling("atlas-a2", (4, 6, 50), 1, 6, "float", "int32", zp_dtype)
    y = np.zeros(x.size, np.int32)
    aj.launch(m.quantize, block_dim, "atlas-a2", x, scales, zp, y, np.zeros(32, np.uint8), raw, key, "float",
              "float", "int32", "int32")
    want = np.rint((x.reshape(4, 6, 50) * (np.float32(1) / scales).reshape(1, 6, 1)).astype(np.float32)
                   + zp.astype(np.float32).reshape(1, 6, 1)).astype(np.int32).reshape(-1)
    assert y.tolist() == want.tolist()


def test_int8_output_needs_the_refused_int32_to_half_cast():
    m = _module()
    x = np.linspace(-5, 5, 1000).astype(np.float32)
    block_dim, key, raw = m.tiling("atlas-a2", (1000,), 0, 1, "float", "int8", None)
    with pytest.raises(aj.UnsupportedDTypeError, match="D47"):
        aj.launch(m.quantize, block_dim, "atlas-a2", x, np.array([0.5], np.float32), np.zeros(1, np.int32),
                  np.zeros(1000, np.int8), np.zeros(32, np.uint8), raw, key, "float", "float", "int32", "int8")
