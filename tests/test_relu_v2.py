"""kernels/relu_v2.py (ops-nn ReluV2, the A2/A3 kernel): the int64 kernel's scalar path for blocks of 256 elements
or fewer, where the port adds the MTE2 -> S and S -> MTE3 ordering the original leaves out."""
import inspect

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels import registry


def test_int64_scalar_path_needs_the_ports_flags(monkeypatch):
    """1544 int64 elements: 3 cores of 448 (the Gather path) and a last core of 200 (the scalar path). With the
    port's flag pairs the run is clean; without them the sanitizer reports the scalar unit's unordered reads of the
    copied-in tile and the copy-out's unordered reads of what it stored; the results agree (program order)."""
    k = registry()["relu_v2_int64"]
    m = inspect.getmodule(k.run)
    block_dim, raw = m.tiling("atlas-a2", 1544, "int64")
    t = np.frombuffer(raw.tobytes(), m.ReluV2TilingData)[0]
    assert (block_dim, int(t["formerLength"]), int(t["tailLength"])) == (4, 448, 200)
    inputs = k.make_inputs(1544, 1)
    with aj.sanitize_session("report") as session:
        want = k.run("atlas-a2", inputs)["y"]
    assert session.reports == [], aj.format_reports(session.reports)
    assert want.tobytes() == k.expected("atlas-a2", inputs)["y"].tobytes()
    monkeypatch.setattr(m.KernelReluV2VectorInt64, "Fence", lambda self, event: None)
    with aj.sanitize_session("report") as session:
        y = k.run("atlas-a2", inputs)["y"]
    assert y.tobytes() == want.tobytes()
    assert session.reports and {r.check for r in session.reports} == {"race"}


def test_tiling_cuts_tiles_to_a_quarter_core_of_16_kib_or_more():
    """float 100000 on the A2: 8 cores of 12544 (whole 128-float cache lines), the UB's 196608 / 20 tile of 9824
    floats cut to the quarter core rounded up to 16 KiB: 4096."""
    m = inspect.getmodule(registry()["relu_v2"].run)
    block_dim, raw = m.tiling("atlas-a2", 100000, "float")
    t = np.frombuffer(raw.tobytes(), m.ReluV2TilingData)[0]
    assert (block_dim, int(t["formerNum"]), int(t["formerLength"]), int(t["tailLength"]), int(t["tileLength"])) == \
        (8, 7, 12544, 12192, 4096)
