"""Reg Arange (DK R/索引操作/Arange.md; docs/decisions.md "Reg Arange"; session 14, apigap14): lane j = scalar + j
as Add's lane, against the reference model for every page dtype, compiled VF = plain Python bit for bit, and the
DECREASE_ORDER (cann-samples scene7's recorded lanes), the refusals (bool, dtypes off the page, other devices)."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.reference import reg as ref

R = aj.Reg
LANES = {"int8": 256, "int16": 128, "int32": 64, "int64": 32, "half": 128, "float": 64}
SCALARS = {"int8": [0, -3, 127, -128], "int16": [5, -200, 32767], "int32": [0, 2**31 - 1, -7], "int64": [2**62, -1],
           "half": [0.0, 1.5, 2000.0, -0.25, 65504.0], "float": [0.0, 1.5, 16777215.0, -3.25, 3.0e38]}


def _expected(dtype, scalar, decrease=False):
    np_dtype = aj.dtypes.resolve(dtype).np_dtype
    converted = np_dtype.type(scalar)           # D29: exact for these scalars
    lanes = ref.arange(dtype, converted.item(), LANES[dtype], decrease=decrease)
    return np.array(lanes, dtype=np.float64 if dtype in ("half", "float") else object).astype(np_dtype)


def _bits(a):
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


@pytest.mark.parametrize("dtype", list(LANES))
def test_lanes_are_scalar_plus_index_as_the_reference(dtype):
    with aj.Core("ascend950"):
        for scalar in SCALARS[dtype]:
            r = R.RegTensor(dtype)
            R.Arange(r, scalar)
            assert np.array_equal(_bits(r.numpy()), _bits(_expected(dtype, scalar))), (dtype, scalar)


def test_integer_lanes_wrap_as_the_page_says():
    with aj.Core("ascend950"):
        r = R.RegTensor("int8")
        R.Arange(r, 120)
        assert list(r.numpy()[6:10]) == [126, 127, -128, -127]
        r = R.RegTensor("int16")
        R.Arange(r, 32767, order=R.IndexOrder.INCREASE_ORDER)
        assert list(r.numpy()[:3]) == [32767, -32768, -32767]


@R.simd_vf
def _arange_vf(dst, first, T):
    reg = R.RegTensor(T)
    R.Arange(reg, first)
    R.StoreAlign(dst, reg, R.CreateMask(T), 0)


@pytest.mark.parametrize("dtype, first", [("float", 1.5), ("half", -0.25), ("int32", 7), ("int8", -100),
                                          ("int64", 2**40)])
def test_a_compiled_vf_gives_the_plain_bits(dtype, first):
    with aj.Core("ascend950") as core:
        compiled, plain = core.local_tensor(dtype, LANES[dtype]), core.local_tensor(dtype, LANES[dtype])
        with warnings.catch_warnings():
            warnings.simplefilter("error", aj.UncompiledVFWarning)   # it compiles (no plain fallback)
            _arange_vf(compiled, first, dtype)
        _arange_vf.py_func(plain, first, dtype)
        assert np.array_equal(_bits(compiled.numpy()), _bits(plain.numpy()))
        assert np.array_equal(_bits(plain.numpy()), _bits(_expected(dtype, first)))


@R.simd_vf
def _decreasing_vf(dst, first, T):
    reg = R.RegTensor(T)
    R.Arange(reg, first, R.IndexOrder.DECREASE_ORDER)
    R.StoreAlign(dst, reg, R.CreateMask(T), 0)


def test_decrease_order_ends_in_the_scalar_as_the_device_recorded():
    """cann-samples reg_data_movement scene7 (Arange<int32_t, DECREASE_ORDER>(idx, 0), its guide's device output
    idx[i] = 63 - i): the scalar is the last lane's and the lanes count down to it; int64 counts up in either order,
    as the devkit's one-register int64 Arange calls its two-register helper without the order (review 57: it had
    taken the other branch's 63 - j + scalar). Plain, compiled and the reference model agree bit for bit, every page
    dtype."""
    with aj.Core("ascend950") as core:
        r = R.RegTensor("int32")
        R.Arange(r, 0, order=R.IndexOrder.DECREASE_ORDER)
        assert list(r.numpy()) == list(range(63, -1, -1))
        for dtype, first in (("int8", -3), ("int16", 5), ("int32", 7), ("int64", 2**40), ("half", -0.25),
                             ("float", 1.5)):
            compiled, plain = core.local_tensor(dtype, LANES[dtype]), core.local_tensor(dtype, LANES[dtype])
            _decreasing_vf(compiled, first, dtype)
            _decreasing_vf.py_func(plain, first, dtype)
            assert np.array_equal(_bits(compiled.numpy()), _bits(plain.numpy())), dtype
            assert np.array_equal(_bits(plain.numpy()), _bits(_expected(dtype, first, decrease=True))), dtype
        assert plain.numpy()[-1] == np.float32(1.5) and compiled.numpy()[0] == np.float32(64.5)
        wide = core.local_tensor("int64", 32)
        _decreasing_vf(wide, 2**40, "int64")
        assert list(wide.numpy()) == [2**40 + j for j in range(32)]


@R.simd_vf
def _bool_vf(dst, T):
    reg = R.RegTensor(T)
    R.Arange(reg, True)
    R.StoreAlign(dst, reg, R.CreateMask(T), 0)


@R.simd_vf
def _uint16_vf(dst, T):
    reg = R.RegTensor(T)
    R.Arange(reg, 1)
    R.StoreAlign(dst, reg, R.CreateMask(T), 0)


def test_refusals_plain_and_compiled():
    with aj.Core("ascend950") as core:
        for dtype in ("uint16", "bfloat16", "uint32"):
            with pytest.raises(aj.UnsupportedDTypeError, match="Arange"):
                R.Arange(R.RegTensor(dtype), 1)
        with pytest.raises(aj.ParameterError, match="order"):
            R.Arange(R.RegTensor("int32"), 0, 2)
        with pytest.raises(aj.ParameterError, match="Arange"):
            R.Arange(R.RegTensor("int32"), True)
        with pytest.raises(aj.ParameterError, match="Arange"):
            R.Arange(R.RegTensor("int8"), 1.5)                         # D29: no fraction for an integer register
        with pytest.raises(aj.ParameterError, match="Arange"):
            R.Arange(core.local_tensor("int32", 64), 0)                 # not a register
        t = core.local_tensor("int32", 64)
        u = core.local_tensor("uint16", 128)
        t[:] = np.zeros(64, np.int32)
        before = core.ub.copy()
        with pytest.raises(aj.ParameterError, match="Arange"):
            _bool_vf(t, "int32")
        with pytest.raises(aj.UnsupportedDTypeError, match="Arange"):
            _uint16_vf(u, "uint16")
        assert np.array_equal(core.ub, before)
    with aj.Core("atlas-a2"), pytest.raises(aj.UnsupportedDeviceError, match="Arange"):
        R.Arange(R.RegTensor("int32"), 0)


def test_fidelity_row():
    assert aj.fidelity("Reg.Arange", "ascend950", "int32") is aj.Fidelity.BIT_EXACT
    assert aj.fidelity("Reg.Arange", "ascend950", "half") is aj.Fidelity.MODELLED


@R.simd_vf
def _int64_vf(dst, first):
    reg = R.RegTensor("int64")
    R.Arange(reg, first)
    R.StoreAlign(dst, reg, R.CreateMask("int64"), 0)


@R.simd_vf
def _order_vf(dst, order):
    reg = R.RegTensor("int32")
    R.Arange(reg, 0, order)
    R.StoreAlign(dst, reg, R.CreateMask("int32"), 0)


@pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync,dcache", reason="reads the VF's output by GetValue right "
                                                                             "after it, with no V_S flag between them")
def test_a_compiled_vf_refuses_what_plain_refuses():
    """hostile14: an int64 scalar in [2**63, 2**64) reaches a VF as uint64 and wrapped (Arange(reg, 2**63) gave
    -2**63 + j where plain refuses it; Duplicate and the other scalar forms share scalar_int_bits); an order of 2
    had been refused as 'DECREASE_ORDER', now by its value."""
    with aj.Core("ascend950") as core:
        t = core.local_tensor("int64", 32)
        t[:] = np.zeros(32, np.int64)
        for first in (2**63, np.uint64(2**64 - 1)):
            with pytest.raises(aj.ParameterError, match="Arange: parameter 'scalar'"):
                R.Arange(R.RegTensor("int64"), first)
            with pytest.raises(aj.ParameterError, match="Arange: parameter 'scalar'"):
                _int64_vf(t, first)
        assert not t.numpy().any()
        _int64_vf(t, 2**63 - 1)
        assert t.GetValue(0) == 2**63 - 1
        u = core.local_tensor("int32", 64)
        with pytest.raises(aj.ParameterError, match="parameter 'order' = 2"):
            _order_vf(u, 2)


_INT_RANGES = {d: (int(np.iinfo(d).min), int(np.iinfo(d).max)) for d in ("int8", "int16", "int32", "int64")}


@st.composite
def _arange_case(draw):
    dtype = draw(st.sampled_from(list(LANES)))
    if dtype in _INT_RANGES:
        scalar = draw(st.integers(*_INT_RANGES[dtype]))
    else:   # a finite value of the type (the D29 conversion exact), its bit patterns drawn whole
        width = 16 if dtype == "half" else 32
        scalar = draw(st.floats(width=width, allow_nan=False, allow_infinity=False))
    return dtype, scalar, draw(st.booleans()), draw(st.booleans())


@settings(max_examples=150, deadline=None)
@given(_arange_case())
def test_every_lane_is_the_reference_models_in_both_orders_and_overflow_modes(case):
    """Random scalars of every page dtype, INCREASE and DECREASE order, the half (CTRL[48]) and integer (CTRL[53])
    saturation switches: plain Arange's register equals the reference model's lanes bit for bit."""
    dtype, scalar, decrease, saturating = case
    core = aj.Core("ascend950")
    core.SetCtrlSpr(48, 48, 0 if saturating else 1)
    core.SetCtrlSpr(53, 53, 1 if saturating else 0)
    np_t = aj.dtypes.resolve(dtype).np_dtype
    order = R.IndexOrder.DECREASE_ORDER if decrease else R.IndexOrder.INCREASE_ORDER
    with core:
        r = R.RegTensor(dtype)
        R.Arange(r, np_t.type(scalar), order)
    want = ref.arange(dtype, np_t.type(scalar).item(), LANES[dtype], sat_half=saturating, sat_int=saturating,
                      decrease=decrease)
    want = np.array(want, np.float64 if dtype in ("half", "float") else object).astype(np_t)
    assert np.array_equal(_bits(r.numpy()), _bits(want)), (dtype, scalar, decrease, saturating)
