"""kernels/shrink.py (ops-nn Shrink, the 950 arch35 kernel): the host tiling's ubFactor bounds, and the port's one
deviation: without the Duplicate of a short tile's lanes up to the 256-byte rounded Compares count, the Compares read
queue bytes nothing wrote; their mask bits stay uninitialised, and the Selects of the tile's count never read them
(docs/decisions.md "Sanitizer": a count-form Compare's never-written lanes are followed to what reads their bits):
the sanitizer reports nothing either way, and the results are the same."""
import inspect

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry


def _module():
    return inspect.getmodule(registry()["shrink"].run)


@pytest.mark.parametrize("dtype, total, want", [
    # (253952 - 48 KB) / (5 tiles * 4 bytes), 256-byte aligned: 10240 floats (under the uint16 blockLen's 16383)
    ("float", 300003, (8, 1, 37501, 10240)),
    # one buffer up to 1024 elements; the factor no more than the input rounded up to 128 halves
    ("half", 1000, (8, 0, 125, 1024)),
])
def test_tiling_follows_the_host_formulas(dtype, total, want):
    m = _module()
    block_dim, mode, raw = m.tiling("ascend950", total, dtype, -1.0, 0.25)
    t = np.frombuffer(raw.tobytes(), m.ShrinkTilingData)[0]
    assert (block_dim, mode, int(t["blockFactor"]), int(t["ubFactor"])) == want
    assert t["lambd"] == 0.0        # a negative lambd is clamped to 0


@pytest.mark.parametrize("dtype, size", [("float", 3001), ("half", 2400)])
def test_the_original_rounded_compares_pad_bits_are_never_read(monkeypatch, dtype, size):
    """8 cores of 376 floats (copied as 376, compared as 384) or 300 halves (copied as 304, compared as 384): the
    Compares compare lanes nothing wrote, and the Selects of 376 / 300 elements read mask bytes 0-46 / 0-37, all of
    copied lanes: no report (it was reported at the Compares)."""
    m = _module()
    inputs = m._make_inputs(dtype)(size, 3)
    want = m._run(dtype)("ascend950", inputs)["y"]
    real = aj.Duplicate
    # the kernel's own Duplicate of zeros into midLocal stays; only the CopyIn one (into the VECIN queue) goes
    monkeypatch.setattr(aj, "Duplicate", lambda dst, *a: None if dst.GetPosition() == aj.TPosition.VECIN
                        else real(dst, *a))
    with aj.sanitize_session("report") as session:
        y = m._run(dtype)("ascend950", inputs)["y"]
    assert y.tobytes() == want.tobytes()
    assert session.reports == []
