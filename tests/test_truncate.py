"""Truncate (the 950's Memory-API Truncate<T, roundMode>, devkit M/类型转换/Truncate(ISASI).md; docs/decisions.md
"Truncate"): each mode against numpy over half, float and bfloat16 (zero results +0, SPEC-2 7.3 step 5), in place,
the refusals, the sanitizer's view of its accesses; ops-math Floor's 950 build (kernels/floor.py) calls it."""
import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj

_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
_REF = {"CAST_RINT": np.rint, "CAST_FLOOR": np.floor, "CAST_CEIL": np.ceil, "CAST_TRUNC": np.trunc,
        "CAST_ROUND": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5)}
_BITS = {"float": (np.uint32, 0x7FC00000), "half": (np.uint16, 0x7E00), "bfloat16": (np.uint16, 0x7FC0)}


def _values(dtype, n=1000):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(n) * 100).astype(np.float32)
    x[:14] = [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, np.inf, -np.inf, np.nan, -0.0, 1e-30, -1e-30, 3e38, -0.49]
    x[14:64] = np.round(x[14:64]) + 0.5                     # ties
    with np.errstate(over="ignore"):                        # 3e38 is inf in half
        return x.astype(_NP[dtype])


@pytest.mark.parametrize("dtype", ["float", "half", "bfloat16"])
@pytest.mark.parametrize("mode", sorted(_REF))
def test_each_mode_rounds_to_an_integral_value_of_the_type(dtype, mode):
    x = _values(dtype)
    core = aj.Core("ascend950")
    src, dst = core.local_tensor(dtype, 1024), core.local_tensor(dtype, 1024)
    src[:] = np.concatenate([x, np.zeros(24, x.dtype)])
    dst[:] = np.full(1024, 7, x.dtype)
    with core:
        aj.Truncate(dst, src, getattr(aj.RoundMode, mode), 999)
    want = _REF[mode](x.astype(np.float64)).astype(np.float32)
    want[want == 0] = 0.0                                   # zero results are +0 (SPEC-2 7.3 step 5)
    want = want.astype(x.dtype)
    uint, nan = _BITS[dtype]
    want.view(uint)[np.isnan(x.astype(np.float32))] = nan
    got = dst.numpy()
    assert got[:999].view(uint).tolist() == want[:999].view(uint).tolist()
    assert got[999:].astype(np.float32).tolist() == [7.0] * 25      # past the count: untouched


def test_in_place_and_the_floor_kernel_on_the_950():
    from ascend_jit.kernels import registry
    x = _values("float", 256)
    core = aj.Core("ascend950")
    t = core.local_tensor("float", 256)
    t[:] = x
    with core:
        aj.Truncate(t, t, aj.RoundMode.CAST_CEIL, 256)
    assert np.array_equal(t.numpy()[np.isfinite(x)], np.ceil(x[np.isfinite(x)]) + 0.0)
    ok, lines, _, _ = registry()["floor"].execute("ascend950", 4099, 2)
    assert ok, "\n".join(lines)


@pytest.mark.parametrize("device, src, dst, mode, count, error", [
    ("atlas-a2", "float", "float", "CAST_FLOOR", 64, aj.UnsupportedDeviceError),      # the 950 alone
    ("ascend950", "int32", "int32", "CAST_FLOOR", 64, aj.UnsupportedDTypeError),
    ("ascend950", "float", "half", "CAST_FLOOR", 64, aj.UnsupportedDTypeError),       # one type for both
    ("ascend950", "half", "half", "CAST_NONE", 64, aj.UnsupportedDTypeError),         # the page's five modes
    ("ascend950", "half", "half", "CAST_ODD", 64, aj.UnsupportedDTypeError),
    ("ascend950", "float", "float", "CAST_RINT", 0, aj.ParameterError),               # count 0: no NOP promised
    ("ascend950", "float", "float", "CAST_RINT", 65, aj.OutOfBoundsError),
])
def test_refusals_write_nothing(device, src, dst, mode, count, error):
    core = aj.Core(device)
    s, d = core.local_tensor(src, 64), core.local_tensor(dst, 64)
    s[:] = np.full(64, 1.5, s.numpy().dtype)
    d[:] = np.zeros(64, d.numpy().dtype)
    with core, pytest.raises(error):
        aj.Truncate(d, s, getattr(aj.RoundMode, mode), count)
    assert not d.numpy().any()


def test_a_partial_overlap_is_refused():
    core = aj.Core("ascend950")
    t = core.local_tensor("float", 128)
    t[:] = np.full(128, 1.5, np.float32)
    with core, pytest.raises(aj.OverlapError):
        aj.Truncate(t[0:64], t[8:72], aj.RoundMode.CAST_RINT, 64)


def test_the_sanitizer_sees_its_reads():
    """A read of bytes nothing wrote is reported (init), as any vector instruction's."""
    core = aj.Core("ascend950", sanitize="report")
    s, d = core.local_tensor("float", 64), core.local_tensor("float", 64)
    with core:
        aj.Truncate(d, s, aj.RoundMode.CAST_TRUNC, 64)
    assert {r.check for r in core.sanitizer.reports} == {"init"}


def test_fidelity_is_bit_exact_on_the_950():
    assert aj.fidelity("Truncate", "ascend950") == aj.Fidelity.BIT_EXACT
