"""SPEC-2 D29 scalar conversion and the D69 fidelity table (the shared pieces every new family uses)."""
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ascend_jit as aj
from ascend_jit import dtypes as dt
from ascend_jit.api._scalar import scalar_bits, scalar_value
from ascend_jit.errors import ParameterError
from ascend_jit.fidelity import FIDELITY, Fidelity, fidelity, table_rows

SPEC = aj.get_device("atlas-a2")


def _nearest_even(x, dtype):
    """The RNE neighbour of the exact rational x among every finite value of a 16-bit float type (brute force)."""
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    with np.errstate(invalid="ignore"):
        vals = bits.view(dtype.np_dtype).astype(np.float64)
    finite = np.isfinite(vals)
    target = Fraction(x)
    best = None
    for b, v in zip(bits[finite], vals[finite]):
        d = abs(Fraction(float(v)) - target)
        key = (d, int(b) & 1)
        if best is None or key < best[0]:
            best = (key, int(b))
    return best[1]


@pytest.mark.parametrize("dtype", [dt.HALF, dt.BFLOAT16])
@pytest.mark.parametrize("x", [1.0, -2.5, 1 + 2 ** -8, 1 + 2 ** -8 + 2 ** -40, 3 * 2 ** -26, 65519.0, 1e-7])
def test_float_scalars_round_once_to_nearest_even(dtype, x):
    assert scalar_bits("Adds", SPEC, dtype, x) == _nearest_even(x, dtype)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_bfloat16_from_double_has_no_double_rounding(x):
    """bf16 via float32 would round twice; D29 asks for one rounding of the exact value."""
    got = scalar_bits("Adds", SPEC, dt.BFLOAT16, x)
    v = float(np.array(got, np.uint16).view(ml_dtypes.bfloat16))
    if np.isinf(v):
        assert abs(x) >= float(np.array(0x7F7F, np.uint16).view(ml_dtypes.bfloat16)) * (1 + 2 ** -9)
        return
    lo, hi = (got - 1) & 0xFFFF, (got + 1) & 0xFFFF
    for nb in (lo, hi):
        n = float(np.array(nb, np.uint16).view(ml_dtypes.bfloat16))
        if np.isfinite(n) and (np.sign(n) == np.sign(v) or v == 0):
            assert abs(Fraction(v) - Fraction(x)) <= abs(Fraction(n) - Fraction(x))


def test_special_values_and_exact_dtype_scalars():
    assert scalar_bits("Adds", SPEC, dt.HALF, 70000.0) == 0x7C00          # overflow to inf, never saturated
    assert scalar_bits("Adds", SPEC, dt.HALF, float("nan")) == 0x7E00     # canonical NaN
    assert scalar_bits("Adds", SPEC, dt.FLOAT, float("-nan")) == 0x7FC00000
    assert scalar_bits("Adds", SPEC, dt.HALF, 2.0 ** -24) == 0x0001      # subnormals kept
    payload = np.array(0x7E01, np.uint16).view(np.float16)[()]
    assert scalar_bits("Adds", SPEC, dt.HALF, payload) == 0x7E01          # exact dtype: bit for bit
    assert scalar_bits("Adds", SPEC, dt.FLOAT, 2 ** 80 + 2 ** 56 + 1) == 0x67800001  # int rounded once
    assert scalar_bits("Adds", SPEC, dt.FLOAT, np.float16(0.5)) == 0x3F000000
    assert scalar_value("Adds", SPEC, dt.INT16, -5) == np.int16(-5)
    assert scalar_bits("Adds", SPEC, dt.UINT8, np.int64(255)) == 255


@pytest.mark.parametrize("dtype", [dt.HALF, dt.FLOAT, dt.BFLOAT16])
@pytest.mark.parametrize("value", [2 ** 1024 - 2 ** 970, 2 ** 1024, 2 ** 1100, 2 ** 5000],
                         ids=["2^1024-2^970", "2^1024", "2^1100", "2^5000"])
def test_python_ints_past_every_double_overflow_to_inf(dtype, value):
    """D29: a Python int for a float operand rounds once, overflow to +-inf: an int past float64's range included
    (it raised OverflowError, a non-AscendJitError, before)."""
    inf = {"half": 0x7C00, "float": 0x7F800000, "bfloat16": 0x7F80}[dtype.name]
    sign = {"half": 0x8000, "float": 0x80000000, "bfloat16": 0x8000}[dtype.name]
    assert scalar_bits("Adds", SPEC, dtype, value) == inf
    assert scalar_bits("Adds", SPEC, dtype, -value) == inf | sign
    core = aj.Core("atlas-a2")
    dst = core.local_tensor(dtype.np_dtype, 16)
    aj.Duplicate(dst, -value, 16)
    assert int(dst.numpy().view(np.uint16 if dtype.size == 2 else np.uint32)[0]) == inf | sign


def test_longdouble_scalars_round_once():
    """D29: a numpy float of another width (np.longdouble included) is converted with one RNE rounding of its exact
    value; it was refused (ParameterError) before."""
    L = np.longdouble
    if np.finfo(L).bits <= 64:
        pytest.skip("np.longdouble is a double on this platform")
    above_tie = L(1) + L(2) ** -11 + L(2) ** -60  # a double would drop the 2**-60 and land on the half tie
    assert scalar_bits("Adds", SPEC, dt.HALF, above_tie) == 0x3C01
    assert scalar_bits("Adds", SPEC, dt.HALF, -above_tie) == 0xBC01
    assert scalar_bits("Adds", SPEC, dt.BFLOAT16, L(1) + L(2) ** -8 + L(2) ** -60) == 0x3F81
    assert scalar_bits("Adds", SPEC, dt.FLOAT, L(2) ** -149 * (1 + L(2) ** -40)) == 0x00000001
    assert scalar_bits("Adds", SPEC, dt.FLOAT, L(2) ** 2000) == 0x7F800000
    assert scalar_bits("Adds", SPEC, dt.HALF, L(-0.0)) == 0x8000
    assert scalar_bits("Adds", SPEC, dt.HALF, L("nan")) == 0x7E00


@pytest.mark.parametrize("dtype, value", [(dt.INT16, 32768), (dt.INT16, 1.0), (dt.UINT16, -1), (dt.HALF, True),
                                          (dt.INT32, np.bool_(True)), (dt.FLOAT, "1.0"), (dt.HALF, None),
                                          (dt.INT32, np.float32(2.0)), (dt.FLOAT, 1j)])
def test_scalar_refusals_are_parameter_errors(dtype, value):
    with pytest.raises(ParameterError, match="Adds"):
        scalar_bits("Adds", SPEC, dtype, value)


def test_fidelity_table_follows_spec2():
    assert fidelity("Add", "atlas-a2") is Fidelity.BIT_EXACT
    assert fidelity("Div", "ascend950", "float", "DIFF_COMPENSATION") is Fidelity.BIT_EXACT
    with pytest.raises(ParameterError, match="refuses this algorithm for half"):   # the call refuses it (D69)
        fidelity("Div", "ascend950", "half", "DIFF_COMPENSATION")
    assert fidelity("Div", "ascend950", "float", "INTRINSIC") is Fidelity.MODELLED
    assert fidelity("Sqrt", "950", "float", "FAST_INVERSE") is Fidelity.BIT_EXACT
    assert fidelity("Exp", "910") is Fidelity.MODELLED
    assert fidelity("Axpy", "atlas-a2", "half->float") is Fidelity.BIT_EXACT
    assert fidelity("Axpy", "atlas-a2", "half") is Fidelity.MODELLED
    for pair in (("half", "float"), ("float", "half"), (np.float32, np.float16)):   # (dst, src) = MulAddDst<T, U>
        assert fidelity("MulAddDst", "atlas-a2", pair) is Fidelity.BIT_EXACT, pair
    assert fidelity("MulAddDst", "atlas-a2", ("half", "half")) is Fidelity.MODELLED
    assert ("Maxs", "atlas-training") not in FIDELITY            # SPEC-2 1.9: not offered on the 910
    assert ("Reg.Add", "atlas-a2") not in FIDELITY
    with pytest.raises(aj.UnsupportedDeviceError, match="does not offer Brcb"):   # as the call (SPEC-2 1.8)
        fidelity("Brcb", "atlas-200i-500-a2")
    with pytest.raises(ParameterError, match="no instruction of this name"):
        fidelity("Brcbs", "atlas-a2")
    with pytest.raises(TypeError):
        FIDELITY[("Add", "x")] = None                          # read-only
    rows = dict(table_rows())
    assert rows["Rsqrt"]["atlas-a2"].startswith("MODELLED")


def test_fidelity_has_a_row_per_spec2_name_and_reads_dtype_aliases():
    """SPEC-2 0.3 / D69 audit: every Reg name of 11.2-11.7 and the ordering events of the table's last row have their
    own (api, device) entry, and a dtype spelled as numpy spells it selects the same condition as its name."""
    reg_names = ("Add", "Sub", "Mul", "Duplicate", "Reduce", "Cast", "LoadAlign", "StoreAlign", "LoadUnAlignPre",
                 "LoadUnAlign", "StoreUnAlign", "StoreUnAlignPost", "Load", "Store", "UpdateMask", "CreateMask",
                 "MoveMask", "Move", "Select", "Pack", "UnPack", "Interleave", "DeInterleave", "And", "Or", "Xor",
                 "Not")
    for name in reg_names:
        assert fidelity(f"Reg.{name}", "ascend950") is Fidelity.BIT_EXACT, name
        assert (f"Reg.{name}", "atlas-a2") not in FIDELITY
    for device in ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore",
                   "atlas-training"):
        assert (("PipeBarrier", device) in FIDELITY) and (("SetFlag", device) in FIDELITY) == \
            (device != "atlas-200i-500-a2") == (("WaitFlag", device) in FIDELITY)
    for spelling in ("float32", np.float32, np.dtype(np.float32)):
        assert fidelity("Div", "ascend950", spelling, "DIFF_COMPENSATION") is Fidelity.BIT_EXACT, spelling
    assert fidelity("Sqrt", "ascend950", np.float16, "PRECISION_1ULP_FTZ_TRUE") is Fidelity.MODELLED
    assert fidelity("FusedMulAdd", "ascend950", "bfloat16") is Fidelity.MODELLED
    assert fidelity("MulAddDst", "ascend950", "half") is Fidelity.BIT_EXACT


@pytest.mark.parametrize("api,device,dtype", [("Sqrt", "atlas-a2", "int64"), ("ReduceSum", "atlas-a2", "int32"),
                                              ("Exp", "atlas-training", "int16")])
def test_fidelity_of_a_dtype_the_device_refuses_is_refused(api, device, dtype):
    """A dtype the instruction refuses on the device has no fidelity: UnsupportedDTypeError naming it, the legal
    dtypes and the device (it used to answer MODELLED / BIT-EXACT for a call that cannot run)."""
    with pytest.raises(aj.UnsupportedDTypeError, match=f"'{dtype}'.*{device}"):
        aj.fidelity(api, device, dtype)


@pytest.mark.parametrize("api,config", [("Div", aj.DivConfig(aj.DivAlgo.DIFF_COMPENSATION)),
                                        ("Div", "PRECISION_1ULP_FTZ_TRUE"), ("Sqrt", aj.SqrtAlgo.FAST_INVERSE)])
@pytest.mark.parametrize("device", ["atlas-a2", "atlas-inference-aicore"])
def test_fidelity_of_an_algorithm_config_off_the_950_is_refused(api, config, device):
    """An algorithm config other than INTRINSIC off the 950 has no fidelity, as the call refuses it (D48): the same
    UnsupportedDeviceError naming it and the device (it answered MODELLED for a call that cannot run; audit18e).
    INTRINSIC, the default, is every device's."""
    with pytest.raises(aj.UnsupportedDeviceError, match=f"'config'.*950 only.*{device}"):
        aj.fidelity(api, device, "float", config)
    assert aj.fidelity(api, device, "float", getattr(aj, f"{api}Algo").INTRINSIC) is aj.Fidelity.MODELLED


@pytest.mark.parametrize("api,config", [("Div", "junk"), ("Div", 12345), ("Div", aj.SqrtAlgo.FAST_INVERSE),
                                        ("Add", "INTRINSIC"), ("Reg.Div", aj.Reg.DivSpecificMode(0, True, 99))])
def test_fidelity_of_a_junk_config_on_the_950_is_refused(api, config):
    """A config the call itself refuses (not a member or name of the instruction's algo enum, another instruction's
    algo, any config for an instruction without one) has no fidelity on the 950 either: ParameterError naming it,
    as the call's (D48, D69; it answered the default level there, review18)."""
    with pytest.raises(aj.ParameterError, match="'config'.*ascend950"):
        aj.fidelity(api, "ascend950", "float", config)


@pytest.mark.parametrize("dtype", [dt.HALF, dt.FLOAT])
def test_float_scalars_round_as_numpys_cast_at_every_boundary(dtype):
    """D29's half and float scalars (converted by CPython's IEEE packing) equal numpy's one rounding of the double,
    bit for bit, at every finite value of the type (half: all of them; float: 2**16 drawn), its neighbouring doubles,
    the midpoints between neighbours and theirs (the ties), and past the largest finite value (overflow to inf)."""
    rng = np.random.default_rng(29)
    with np.errstate(invalid="ignore", over="ignore"):   # the NaN patterns, and the spacing past the largest value
        if dtype is dt.HALF:
            values = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float64)
        else:
            values = rng.integers(0, 1 << 32, 1 << 16, dtype=np.uint64).astype(np.uint32).view(np.float32)
            values = values.astype(np.float64)
        largest = float(np.finfo(dtype.np_dtype).max)
        beyond = largest + float(np.spacing(dtype.np_dtype.type(largest)))   # the next step, 2**16 or 2**128
    values = np.unique(values[np.isfinite(values)])
    values = np.concatenate([values, [largest, (largest + beyond) / 2, beyond, 1e300, 5e-324]])
    mids = (values[:-1] + values[1:]) / 2
    edges = np.concatenate([values, mids, -values, -mids])
    edges = np.concatenate([edges, np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf)])
    with np.errstate(over="ignore"):
        want = edges.astype(dtype.np_dtype).view(np.uint16 if dtype is dt.HALF else np.uint32)
    got = [scalar_bits("Adds", SPEC, dtype, x) for x in edges.tolist()]
    assert np.array_equal(np.array(got, np.uint64), want.astype(np.uint64))
