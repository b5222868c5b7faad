"""kernels/sigmoid_regbase.py (ops-nn Sigmoid, the 950 arch35 kernels): the split's fields, and the port's one
deviation: without the Duplicate of a short tile's last-vector lanes the VF's whole-vector load reads queue bytes
nothing wrote (the sanitizer's init report); the stored results are the same either way."""
import inspect

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry


def _module():
    return inspect.getmodule(registry()["sigmoid_regbase"].run)


def test_tiling_splits_whole_vectors_over_the_cores():
    m = _module()
    block_dim, raw = m.tiling("ascend950", 300003, "half")
    t = np.frombuffer(raw.tobytes(), m.SigmoidTilingData)[0]
    # four buffers of 16-bit elements fill the 950's 248 KB: 31744 elements a tile; 8 cores of 37504
    assert block_dim == 8 and int(t["elemNum"]) == int(t["ubFormer"]) == 31744
    assert (int(t["blockFormer"]), int(t["ubLoopOfFormerBlock"]), int(t["ubTailOfFormerBlock"])) == (37504, 2, 5760)
    assert (int(t["ubLoopOfTailBlock"]), int(t["ubTailOfTailBlock"])) == (2, 5731)


@pytest.mark.parametrize("dtype", ["float", "bfloat16"])
def test_the_original_short_tile_load_runs_clean_through_the_lanes(monkeypatch, dtype):
    """Session 54: the lanes carry the init check; the original's (no Duplicate) tail lanes past the copy, reported
    before, stay outside UpdateMask and never reach a store: nothing reported, the same bits."""
    m = _module()
    inputs = m._make_inputs(dtype)(77, 3)
    want = m._run(dtype)("ascend950", inputs)["y"]
    monkeypatch.setattr(aj, "Duplicate", lambda *args: None, raising=True)
    with aj.sanitize_session("report") as session:
        y = m._run(dtype)("ascend950", inputs)["y"]
    assert y.tobytes() == want.tobytes()
    assert session.reports == []


@pytest.mark.parametrize("dtype", ["float", "half", "bfloat16"])
def test_vf_compiled_and_plain_agree_on_extremes(dtype):
    """A 200-element tile (a partial last vector) of zeros, infinities, NaN, subnormals and values whose exp
    overflows or flushes: the compiled VF (which the gallery runs) and its plain-Python function write the same
    UB bytes (Exp and Div with DAZ/FTZ, D38)."""
    import ml_dtypes
    m = _module()
    np_t = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}[dtype]
    values = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 88.0, -88.0, 89.0, -89.0, 104.0, -104.0,
                       20.0, -20.0, 6e-5, -6e-8, 65504.0, -65504.0, 0.5], np.float32)
    x = np.resize(values, 200).astype(np_t)
    results = []
    for compiled in (True, False):
        core = aj.Core("ascend950")
        src, dst = core.local_tensor(dtype, 256), core.local_tensor(dtype, 256)
        src[:] = np.concatenate([x, np.zeros(56, np_t)])
        with core:
            (m.SIGMOID_VF if compiled else m.SIGMOID_VF.py_func)(dst, src, x.size, dtype)
        results.append(dst.numpy()[:x.size].view(np.uint16 if dtype != "float" else np.uint32).tolist())
    assert results[0] == results[1]
