"""Reg Exp / Ln / Log / Sqrt with a SpecificMode (DK R/基础算术/{Exp,Ln,Log,Sqrt}.md; docs/decisions.md "Reg Exp,
Ln, Log and Sqrt modes"): compiled and plain VFs against the 950 Memory-API instruction of the algorithm the mode's
code is, byte for byte over the whole UB (every half pattern), against the reference model (float, subnormals and
D49's domain included), the combinations the pages and the Impls refuse (state unchanged, compiled too), aj.fidelity
of the modes, and the kernels' specialisations shared with the MaskMergeMode form."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.reference import reg as ref
from test_reg_div_mode import _float_operands as _div_operands

R = aj.Reg
E, L, S = aj.ExpAlgo, aj.LnAlgo, aj.SqrtAlgo
D950 = "ascend950"
Z, M = R.MaskMergeMode.ZEROING, R.MaskMergeMode.MERGING
APIS = ("Exp", "Ln", "Log", "Sqrt")
CANONICAL = {"half": 0x7E00, "float": 0x7FC00000}  # D35: every NaN written is the canonical NaN
UINT = {"half": np.uint16, "float": np.uint32}
FLOAT = {"half": np.float16, "float": np.float32}


def _unary_vf(dst, x, count, vl, which, exp_mode, ln_mode, log_mode, sqrt_mode, dtype):
    ra, rd = R.RegTensor(dtype), R.RegTensor(dtype)
    for i in range((count + vl - 1) // vl):
        mask, count = R.UpdateMask(dtype, count)
        R.LoadAlign(ra, x, i * vl)
        if which == 0:
            R.Exp(rd, ra, mask, exp_mode)
        elif which == 1:
            R.Ln(rd, ra, mask, ln_mode)
        elif which == 2:
            R.Log(rd, ra, mask, log_mode)
        else:
            R.Sqrt(rd, ra, mask, sqrt_mode)
        R.StoreAlign(dst, rd, mask, i * vl)


UNARY_VF = R.simd_vf(_unary_vf)
DEFAULT_MODES = (R.ExpSpecificMode(), R.LnSpecificMode(), R.LogSpecificMode(), R.SqrtSpecificMode())


def _modes(api, mode):
    """The VF's four mode arguments: `mode` in api's place, the structs' defaults elsewhere (one VF type for all)."""
    modes = list(DEFAULT_MODES)
    modes[APIS.index(api)] = mode
    return modes


def _struct(api, precision, algo):
    return R.SqrtSpecificMode(Z, precision, algo) if api == "Sqrt" else \
        {"Exp": R.ExpSpecificMode, "Ln": R.LnSpecificMode, "Log": R.LogSpecificMode}[api](Z, algo)


def _memory_bits(dtype, api, bits, algo_name):
    """The 950 Memory-API instruction (Log: Ln) of the named algorithm on `bits`, as stored bit patterns."""
    name = "Ln" if api == "Log" else api
    algos = {"Exp": E, "Ln": L, "Sqrt": S}[name]
    out = []
    for start in range(0, bits.size, 16384):
        chunk = bits[start:start + 16384]
        core = aj.Core(D950)
        x, dst = core.local_tensor(dtype, chunk.size), core.local_tensor(dtype, chunk.size)
        x[:] = chunk.astype(UINT[dtype]).view(FLOAT[dtype])
        with core:
            getattr(aj, name)(dst, x, chunk.size, config=algos[algo_name])
        out.append(dst.numpy().view(UINT[dtype]).copy())
    return np.concatenate(out)


def _run_whole_ub(dtype, api, bits, mode, compiled, want_bits):
    """Chunks of 32 KB: x at UB byte 0, dst at 65536, the rest of the UB random: the VF changes exactly dst's bytes,
    to want_bits."""
    size = np.dtype(UINT[dtype]).itemsize
    vl = 256 // size
    for start in range(0, bits.size, 32768 // size):
        chunk = bits[start:start + 32768 // size].astype(UINT[dtype])
        n = chunk.size
        core = aj.Core(D950)
        core.ub[:] = np.random.default_rng(start).integers(0, 256, core.ub.size, dtype=np.uint8)
        x, dst = core.local_tensor(dtype, n, addr=0), core.local_tensor(dtype, n, addr=65536)
        core.ub[0:n * size] = chunk.view(np.uint8)
        want = core.ub.copy()
        want[65536:65536 + n * size] = want_bits[start:start + n].astype(UINT[dtype]).view(np.uint8)
        with core:
            (UNARY_VF if compiled else UNARY_VF.py_func)(dst, x, n, vl, APIS.index(api), *_modes(api, mode), dtype)
        assert np.array_equal(core.ub, want), (dtype, api, mode, start)


HALF_CASES = [("Exp", False, E.INTRINSIC), ("Exp", False, E.PRECISION_1ULP_FTZ_TRUE),
              ("Exp", False, E.PRECISION_1ULP_FTZ_FALSE), ("Ln", False, L.PRECISION_1ULP_FTZ_FALSE),
              ("Log", False, L.PRECISION_1ULP_FTZ_FALSE), ("Log", False, L.INTRINSIC),
              ("Sqrt", False, S.PRECISION_1ULP_FTZ_TRUE), ("Sqrt", False, S.PRECISION_1ULP_FTZ_FALSE)]


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("api,precision,algo", HALF_CASES)
def test_half_every_pattern_is_the_memory_api_algorithm(api, precision, algo, compiled):
    """Every half pattern: the whole UB after the VF holds the 950 Memory-API instruction of the algorithm the mode's
    code is (ref.mode_algorithm; that instruction's own tests hold it to the reference model), so subnormal inputs and
    results are kept exactly where the mode's code keeps them."""
    bits = np.arange(65536, dtype=np.uint32)
    if not compiled:  # plain Python runs the same kernels: a sample is enough there
        bits = bits[::16]
    want = _memory_bits("half", api, bits, ref.mode_algorithm(api, precision, algo.name))
    _run_whole_ub("half", api, bits, _struct(api, precision, algo), compiled, want)


def _float_operands(rng, n):
    """Reg Div's operands (random normals over the whole exponent range, subnormals of both signs, the specials) with
    D49's boundary, exp's overflow and its subnormal range in place of some of Div's own specials."""
    bits = _div_operands(rng, n)
    bits[16:21] = [0x7E800000, 0x7E800001, 0xC2C80000, 0xC2AE0000, 0x42B17218]
    return bits


FLOAT_CASES = [("Exp", False, E.INTRINSIC), ("Exp", False, E.PRECISION_1ULP_FTZ_FALSE),
               ("Ln", False, L.PRECISION_1ULP_FTZ_FALSE), ("Log", False, L.PRECISION_1ULP_FTZ_TRUE),
               ("Sqrt", True, S.INTRINSIC), ("Sqrt", True, S.PRECISION_1ULP_FTZ_FALSE),
               ("Sqrt", False, S.FAST_INVERSE), ("Sqrt", False, S.PRECISION_0ULP_FTZ_FALSE),
               ("Sqrt", False, S.PRECISION_1ULP_FTZ_FALSE)]


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("api,precision,algo", FLOAT_CASES)
def test_float_modes_against_the_reference_model(api, precision, algo, compiled):
    """Float lanes (subnormals, D49's boundary 2**126, exp's subnormal range) against the reference model's lanes of
    the mode (ref.specific_mode, mpmath at 200 bits), over the whole UB."""
    rng = np.random.default_rng(sum(map(ord, api + algo.name)) + precision)
    bits = _float_operands(rng, 512 if compiled else 128)
    with np.errstate(invalid="ignore"):
        values = bits.view(np.float32).astype(np.float64)
    lanes = np.asarray(ref.specific_mode(api, "float", values, [True] * bits.size, precision, algo.name), np.float64)
    with np.errstate(all="ignore"):
        want = lanes.astype(np.float32).view(np.uint32).copy()
    want[np.isnan(lanes)] = CANONICAL["float"]
    _run_whole_ub("float", api, bits, _struct(api, precision, algo), compiled, want)


def test_subnormals_kept_or_flushed_as_the_code_runs():
    """Golden lanes: the smallest half subnormal 2**-24 through Ln and Sqrt, exp(-12) (a half subnormal result) and
    float Sqrt beyond D49's bound. Kept by PRECISION_1ULP_FTZ_FALSE (and the fast-inverse Sqrt), flushed by INTRINSIC
    and PRECISION_1ULP_FTZ_TRUE; SqrtAlgo FAST_INVERSE without precisionMode runs vsqrt (SqrtImpl), so flushes."""
    def lane(dtype, api, bits, mode):
        core = aj.Core(D950)
        x, dst = core.local_tensor(dtype, 128), core.local_tensor(dtype, 128)
        x[:] = np.full(128, bits, UINT[dtype]).view(FLOAT[dtype])
        for vf in (UNARY_VF, UNARY_VF.py_func):
            with core:
                vf(dst, x, 1, 256 // x.numpy().itemsize, APIS.index(api), *_modes(api, mode), dtype)
            yield int(dst.numpy().view(UINT[dtype])[0])
    keep_ln = R.LnSpecificMode(Z, L.PRECISION_1ULP_FTZ_FALSE)
    keep_exp = R.ExpSpecificMode(Z, E.PRECISION_1ULP_FTZ_FALSE)
    assert set(lane("half", "Ln", 0x0001, keep_ln)) == {0xCC29}             # RN(ln 2**-24) = -16.640625
    assert set(lane("half", "Log", 0x0001, keep_ln)) == {0xCC29}            # Log takes an LnSpecificMode too
    assert set(lane("half", "Ln", 0x0001, R.LnSpecificMode(Z, L.PRECISION_1ULP_FTZ_TRUE))) == {0xFC00}   # -inf
    assert set(lane("half", "Exp", 0xCA00, keep_exp)) == {0x0067}           # RN(e**-12) = 103 * 2**-24
    assert set(lane("half", "Exp", 0xCA00, R.ExpSpecificMode())) == {0x0000}
    # DK Reg Exp.md table 3's rows that are RN (its other two are not: decisions.md)
    assert set(lane("half", "Exp", 0xCC29, keep_exp)) == {0x0001}          # -16.640625
    assert set(lane("float", "Exp", 0xC2CE8ED0, keep_exp)) == {0x00000001}  # -103.2789306640625
    assert set(lane("half", "Sqrt", 0x0001, R.SqrtSpecificMode(Z, False, S.PRECISION_1ULP_FTZ_FALSE))) == {0x0C00}
    assert set(lane("float", "Sqrt", 0x00000001, R.SqrtSpecificMode(Z, True))) == {0x1A3504F3}  # RN(2**-74.5)
    assert set(lane("float", "Sqrt", 0x00000001, R.SqrtSpecificMode(Z, False, S.FAST_INVERSE))) == {0}
    assert set(lane("float", "Sqrt", 0x7E800001, R.SqrtSpecificMode(Z, True))) == {0}  # D49: x > 2**126 reads +0
    assert set(lane("float", "Sqrt", 0x7E800001, R.SqrtSpecificMode())) == {0x5F000000}
    # DK Reg Sqrt.md table 3: the fast-inverse code's 0x1FF7402B for 0x00776672; the page gives PRECISION_1ULP_FTZ_FALSE
    # 0x1FF7402C (one ulp above RN, within its documented 1 ulp), where the MODELLED lane is RN (decisions.md)
    for mode in (R.SqrtSpecificMode(Z, True), R.SqrtSpecificMode(Z, False, S.PRECISION_0ULP_FTZ_FALSE),
                 R.SqrtSpecificMode(Z, False, S.PRECISION_1ULP_FTZ_FALSE)):
        assert set(lane("float", "Sqrt", 0x00776672, mode)) == {0x1FF7402B}


REFUSED = [  # (api, dtype, mode, error class, parameter named)
    ("Exp", "float", R.ExpSpecificMode(M, E.INTRINSIC), aj.ParameterError, "mode.mrgMode' = 'MERGING'.*table 2"),
    ("Ln", "half", R.LnSpecificMode(M, L.PRECISION_1ULP_FTZ_FALSE), aj.ParameterError, "mode.mrgMode' = 'MERGING'"),
    ("Sqrt", "float", R.SqrtSpecificMode(M), aj.ParameterError, "mode.mrgMode' = 'MERGING'"),
    ("Log", "float", R.LogSpecificMode(R.MaskMergeMode.UNKNOWN), aj.ParameterError, "mode.mrgMode"),
    ("Exp", "half", R.ExpSpecificMode(Z, 3), aj.ParameterError, "Exp: parameter 'mode.algo' = 3.*ExpAlgo"),
    ("Sqrt", "float", R.SqrtSpecificMode(Z, False, 5), aj.ParameterError, "mode.algo.*SqrtAlgo.FAST_INVERSE \\(1\\)"),
    ("Sqrt", "half", R.SqrtSpecificMode(Z, True), aj.ParameterError, "mode.precisionMode' = 'True'.*Sqrt.md"),
    ("Sqrt", "half", R.SqrtSpecificMode(Z, False, S.FAST_INVERSE), aj.ParameterError, "mode.algo.*float only"),
    ("Sqrt", "half", R.SqrtSpecificMode(Z, False, S.PRECISION_0ULP_FTZ_FALSE), aj.ParameterError, "float only"),
    ("Sqrt", "float", R.SqrtSpecificMode(Z, 1), aj.ParameterError, "mode.precisionMode"),
    ("Exp", "float", R.ExpSpecificMode(Z, S.FAST_INVERSE), aj.ParameterError, "Exp: parameter 'mode.algo'"),
    ("Ln", "float", R.LnSpecificMode(E.INTRINSIC), aj.ParameterError, "mode.mrgMode"),
    # another instruction's struct of the same length (each Impl static_asserts the struct's type; review 58)
    ("Exp", "float", R.LnSpecificMode(Z, L.PRECISION_1ULP_FTZ_FALSE), aj.ParameterError, "Exp: parameter 'mode' ="),
    ("Exp", "half", R.LogSpecificMode(), aj.ParameterError, "Exp: parameter 'mode' ="),
    ("Sqrt", "float", R.DivSpecificMode(Z, True, 0), aj.ParameterError, "Sqrt: parameter 'mode' ="),
]


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("api,dtype,mode,error,name", REFUSED)
def test_refusals_name_the_field_and_change_nothing(api, dtype, mode, error, name, compiled):
    core = aj.Core(D950)
    size = {"half": 2, "float": 4}[dtype]
    x, dst = core.local_tensor(dtype, 256 // size), core.local_tensor(dtype, 256 // size)
    core.ub[:] = np.random.default_rng(size).integers(0, 256, core.ub.size, dtype=np.uint8)
    before = core.ub.copy()
    with core, pytest.raises(error, match=name) as info:
        (UNARY_VF if compiled else UNARY_VF.py_func)(dst, x, 256 // size, 256 // size, APIS.index(api),
                                                     *_modes(api, mode), dtype)
    assert "ascend950" in str(info.value)
    assert np.array_equal(core.ub, before)


def _sqrt_mixed(dst, src, mode):
    R.Sqrt(dst, src, R.CreateMask("float"), mode)


SQRT_MIXED = R.simd_vf(_sqrt_mixed)


def test_a_struct_of_another_instruction_and_mixed_dtypes_refuse_alike_both_ways():
    """Review 58: Div refuses a SqrtSpecificMode (both three fields long) plain and compiled; a half dst with a float
    source and a mode the call refuses names the mode both ways (the mode is checked against the source's type,
    then the kernel checks dst's)."""
    core = aj.Core(D950)
    with core:
        f, h = R.RegTensor("float"), R.RegTensor("half")
        for vf in (SQRT_MIXED, SQRT_MIXED.py_func):
            with pytest.raises(aj.ParameterError, match="Sqrt: parameter 'mode.mrgMode' = 'MERGING'"):
                vf(h, f, R.SqrtSpecificMode(M))
            with pytest.raises(aj.UnsupportedDTypeError, match="Sqrt: parameter 'dst"):
                vf(h, f, R.SqrtSpecificMode(Z, True))
        with pytest.raises(aj.ParameterError, match="Div: parameter 'mode' ="):
            R.Div(f, f, f, R.CreateMask("float"), R.SqrtSpecificMode(Z, False, 2))


def test_a_type_the_instruction_does_not_take_is_named_first():
    """An int32 register with a mode (a field out of range too): the dtype's UnsupportedDTypeError, as plain Python
    checks the dtype first; a struct of another instruction, or of the wrong length, is a refused 'mode'."""
    core = aj.Core(D950)
    with core:
        i, f, mask = R.RegTensor("int32"), R.RegTensor("float"), R.CreateMask("float")
        for api, mode in (("Exp", R.ExpSpecificMode(Z, 9)), ("Sqrt", R.SqrtSpecificMode(Z, True)),
                          ("Log", R.LogSpecificMode(M))):
            with pytest.raises(aj.UnsupportedDTypeError, match=api):
                getattr(R, api)(i, i, mask, mode)
        R.Duplicate(f, 4.0)
        before = f.data.copy()
        for api, mode in (("Exp", R.SqrtSpecificMode()), ("Sqrt", R.ExpSpecificMode()), ("Ln", (Z, False, 0)),
                          ("Exp", R.CastTrait())):
            with pytest.raises(aj.ParameterError, match=f"{api}: parameter 'mode'.*SpecificMode"):
                getattr(R, api)(f, f, mask, mode)
        assert np.array_equal(f.data, before)


def test_fidelity_follows_the_code_the_mode_runs():
    def level(api, dtype, mode):
        return aj.fidelity(api, D950, dtype, mode)
    assert level("Reg.Sqrt", "float", R.SqrtSpecificMode(Z, True)) == aj.Fidelity.BIT_EXACT   # D49, fast inverse
    assert level("Reg.Sqrt", "float", R.SqrtSpecificMode(Z, False, S.PRECISION_0ULP_FTZ_FALSE)) == aj.Fidelity.BIT_EXACT
    assert level("Reg.Sqrt", "float", R.SqrtSpecificMode(Z, False, S.FAST_INVERSE)) == aj.Fidelity.MODELLED  # vsqrt
    assert level("Reg.Sqrt", "float", S.FAST_INVERSE) == aj.Fidelity.MODELLED   # the struct of that algo: vsqrt
    assert level("Reg.Sqrt", "half", R.SqrtSpecificMode(Z, False, S.PRECISION_1ULP_FTZ_FALSE)) == aj.Fidelity.MODELLED
    assert level("Reg.Exp", "half", R.ExpSpecificMode(Z, E.PRECISION_1ULP_FTZ_FALSE)) == aj.Fidelity.MODELLED
    assert level("Reg.Log", "float", R.LnSpecificMode(Z, L.PRECISION_1ULP_FTZ_FALSE)) == aj.Fidelity.MODELLED
    assert level("Reg.Ln", "float", Z) == aj.Fidelity.MODELLED
    assert level("Reg.Sqrt", "float", (Z, True, 0)) == aj.Fidelity.BIT_EXACT   # a plain tuple, as the call takes
    # the table agrees with aj.fidelity for every algorithm given bare (review 58: it had keyed the code's name)
    for algo in S:
        assert aj.FIDELITY[("Reg.Sqrt", D950)].level("float", R.SqrtSpecificMode(algo=algo)) == \
            level("Reg.Sqrt", "float", algo), algo
    # every mode the call refuses has no level (review 58: MERGING, a non-bool precisionMode, another enum's
    # member or another instruction's struct had answered one)
    for api, dtype, mode in (("Reg.Sqrt", "half", R.SqrtSpecificMode(Z, True)),
                             ("Reg.Sqrt", "half", R.SqrtSpecificMode(Z, False, S.FAST_INVERSE)),
                             ("Reg.Exp", "half", S.FAST_INVERSE), ("Reg.Exp", "float", R.ExpSpecificMode(Z, 7)),
                             ("Reg.Sqrt", "float", R.SqrtSpecificMode(M, True)),
                             ("Reg.Sqrt", "float", R.SqrtSpecificMode(Z, 1, 0)),
                             ("Reg.Sqrt", "float", R.SqrtSpecificMode(Z, True, aj.DivAlgo.INTRINSIC)),
                             ("Reg.Exp", "float", M), ("Reg.Div", "float", R.MaskMergeMode.UNKNOWN),
                             ("Reg.Exp", "float", R.LnSpecificMode(Z, 2)),
                             ("Reg.Div", "float", R.SqrtSpecificMode(Z, False, 2))):
        with pytest.raises(aj.ParameterError, match="config"):
            level(api, dtype, mode)


def test_modes_share_the_kernels_specialisations():
    """Issue 20: a mode's fields reach the kernels as run-time values, so after the MaskMergeMode calls no mode value
    compiles engine_unary or unary again."""
    from ascend_jit.jit import reg_ops
    core = aj.Core(D950)
    x, dst = core.local_tensor("float", 64), core.local_tensor("float", 64)
    x[:] = 2.0
    with core:
        for which in range(4):
            UNARY_VF(dst, x, 64, 64, which, Z, Z, Z, Z, "float")
        before = len(reg_ops.engine_unary.signatures), len(reg_ops.unary.signatures)
        for which in range(4):
            for precision, algo in ((False, 0), (True, 0), (False, 2), (False, 3)):
                modes = (R.ExpSpecificMode(Z, E(min(algo, 2))), R.LnSpecificMode(Z, L(min(algo, 2))),
                         R.LogSpecificMode(Z, L(min(algo, 2))), R.SqrtSpecificMode(Z, precision, S(algo)))
                UNARY_VF(dst, x, 64, 64, which, *modes, "float")
    assert (len(reg_ops.engine_unary.signatures), len(reg_ops.unary.signatures)) == before


@settings(max_examples=40, deadline=None)
@given(case=st.sampled_from(FLOAT_CASES), bits=st.lists(st.integers(0, 2**32 - 1), min_size=64, max_size=64),
       lanes=st.integers(1, 64))
def test_random_float_lanes_and_masks_match_the_reference_model(case, bits, lanes):
    """Property: any 64 float bit patterns under a mask of `lanes` lanes through the compiled VF are the reference
    model's lanes of the mode (inactive lanes left as the store leaves them), byte for byte over the whole UB."""
    api, precision, algo = case
    operands = np.array(bits, np.uint32)
    with np.errstate(invalid="ignore"):
        values = operands.view(np.float32).astype(np.float64)
    active = [j < lanes for j in range(64)]
    ref_lanes = np.asarray(ref.specific_mode(api, "float", values, active, precision, algo.name), np.float64)
    with np.errstate(all="ignore"):
        want = ref_lanes.astype(np.float32).view(np.uint32).copy()
    want[np.isnan(ref_lanes)] = CANONICAL["float"]
    core = aj.Core(D950)
    core.ub[:] = np.random.default_rng(lanes).integers(0, 256, core.ub.size, dtype=np.uint8)
    x, dst = core.local_tensor("float", 64, addr=0), core.local_tensor("float", 64, addr=65536)
    core.ub[0:256] = operands.view(np.uint8)
    expected = core.ub.copy()
    expected[65536:65536 + 4 * lanes] = want[:lanes].view(np.uint8)
    with core:
        UNARY_VF(dst, x, lanes, 64, APIS.index(api), *_modes(api, _struct(api, precision, algo)), "float")
    assert np.array_equal(core.ub, expected), (api, precision, algo, lanes)
