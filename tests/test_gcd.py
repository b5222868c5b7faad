"""kernels/gcd.py (ops-math experimental Gcd, int32): the original's unsynchronised tile reuse is what the port's
added flags fix (the sanitizer's race reports without them), and a core range that is not whole 64-float blocks is
refused at the Compares (SPEC-2 D44) instead of selecting by stale bits."""
import inspect

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry

K = registry()["gcd_int32"]
M = inspect.getmodule(K.run)


def test_the_literal_sequence_races_and_the_port_does_not(monkeypatch):
    """On a smaller kernel of the same sequence (tiles of 512, two Euclid rounds, the vector path at any size), so
    that the two sanitized runs stay short: 8 cores of two tiles each."""
    monkeypatch.setattr(M, "GCD_INT32_VECTOR_TILE", 512)
    monkeypatch.setattr(M, "GCD_INT32_VECTOR_MAX_ITER", 2)
    monkeypatch.setattr(M, "GCD_INT32_VECTOR_MIN_ELEMENTS", 0)
    inputs = {k: np.abs(x) % 1000 for k, x in K.make_inputs(8192, 2).items()}
    with aj.sanitize_session("report") as session:
        want = K.run("atlas-a2", inputs)["y"]
    assert session.reports == [], aj.format_reports(session.reports)
    monkeypatch.setattr(M.GcdKernelInt32, "OrderTileStart", lambda self: None)
    with aj.sanitize_session("report") as session:
        out = K.run("atlas-a2", inputs)
    kinds = {(r.check, r.instruction.api) for r in session.reports}
    assert ("race", "DataCopyPad") in kinds and ("race", "Cast") in kinds, kinds
    np.testing.assert_array_equal(out["y"], want)      # run in order, the values are the same


def test_a_core_range_short_of_a_block_is_refused():
    """100000 elements: 8 cores of 12512 (16-element rounding), the last tile 224 = 3.5 blocks of 64 floats: the
    original's Compares leaves the last half block's bits unwritten (D44), so the emulator refuses it."""
    assert not K.size_ok(100000)
    with pytest.raises(aj.ParameterError, match="D44"):
        K.run("atlas-a2", K.make_inputs(100000, 0))


def test_small_inputs_take_the_scalar_path():
    """Below 65536 elements the kernel never enters the vector path: GM GetValue/SetValue only, any size."""
    inputs = K.make_inputs(1001, 4)
    np.testing.assert_array_equal(K.run("atlas-a3", inputs)["y"], K.expected("atlas-a3", inputs)["y"])
