"""kernels/drop_out_v3_grad.py (ops-math DropOutV3Grad, the 950 kernel): its host tiling against the original's
formulas, and the mask bit order it reads (element i: bit i % 8 of byte i // 8) at a size whose last core's mask
copy ends 16 bytes into a 32-byte block."""
import inspect

import numpy as np
import pytest

from ascend_jit.kernels import registry


def _module():
    return inspect.getmodule(registry()["drop_out_v3_grad"].run)


@pytest.mark.parametrize("dtype, n, want", [
    # ubFactor (248 KB - 8 KB - 32) / 2 * 8 / (16 * sizeof(T) + 1), down to 256; blocks ceil(n / 8) up to 256, >= 2048
    ("float", 130003, dict(usedCoreNum=8, normBlockData=16384, tailBlockData=15315, ubFactor=15104, normBlockLoop=2,
                           normBlockTail=1280, tailBlockLoop=2, tailBlockTail=211)),
    ("half", 2148, dict(usedCoreNum=2, normBlockData=2048, tailBlockData=100, ubFactor=29696, normBlockLoop=1,
                        normBlockTail=2048, tailBlockLoop=1, tailBlockTail=100)),
])
def test_tiling_follows_the_host_formulas(dtype, n, want):
    m = _module()
    block_dim, key, raw = m.tiling("ascend950", n, dtype)
    t = np.frombuffer(raw.tobytes(), m.DropOutV3GradTilingData)[0]
    assert (block_dim, key) == (want["usedCoreNum"], 100)
    assert {k: int(t[k]) for k in want} == want


def test_one_kept_element_a_byte_lands_on_its_bit():
    """Bit 3 of every mask byte: only elements 8k + 3 keep their gradient (scaled), every other one is 0."""
    k = registry()["drop_out_v3_grad"]
    n = 2148
    inputs = {"grad_y": np.arange(1, n + 1, dtype=np.float32),
              "mask": np.full(-(-n // 128) * 16, 0b1000, np.uint8)}
    got = k.run("ascend950", inputs)["grad_x"]
    want = np.where(np.arange(n) % 8 == 3, np.arange(1, n + 1, dtype=np.float32) * np.float32(1.25), 0)
    assert got.tolist() == want.astype(np.float32).tolist()
