"""Reg Compare / Compares into a MaskReg and Select on data registers (not in SPEC-2 11: DK
`R/比较与选择/{Compare,Compares,Select}.md`, docs/decisions.md "Reg API"): compiled = plain = the 950 Memory-API
Compare's bits = the reference, every mode, specials included (RegBV-T31/T32: IEEE); Select lane by lane; refusals;
the ported devkit Reg examples (kernels/compare_select_reg.py, reg_basic_examples.py) uncompiled."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.reference import numerics as rnum
from ascend_jit.reference import reg as ref

R = aj.Reg
D950 = "ascend950"
MODES = list(aj.CMPMODE)


def _vf_compare(out, a, b, dtype, mode, scalar, n, use_scalar):
    ra, rb = R.RegTensor(dtype), R.RegTensor(dtype)
    mask, n = R.UpdateMask(dtype, n)
    m = R.MaskReg()
    R.LoadAlign(ra, a, 0)
    R.LoadAlign(rb, b, 0)
    if use_scalar:
        R.Compares(m, ra, scalar, mask, mode)
    else:
        R.Compare(m, ra, rb, mask, mode)
    R.StoreAlign(out, m, 0)


def _vf_select(out, a, b, sel, dtype):
    ra, rb = R.RegTensor(dtype), R.RegTensor(dtype)
    m = R.MaskReg()
    R.LoadAlign(ra, a, 0)
    R.LoadAlign(rb, b, 0)
    R.LoadAlign(m, sel, 0)
    R.Select(ra, ra, rb, m)  # dst is a source: the lanes are assembled before they land
    R.StoreAlign(out, ra, R.CreateMask(dtype), 0)


COMPARE_VF, SELECT_VF = R.simd_vf(_vf_compare), R.simd_vf(_vf_select)


def _lanes(dtype):
    return 256 // rnum.SIZES[dtype]


def _values(dtype, rng, n):
    if rnum.is_float(dtype):
        v = np.round(rng.standard_normal(n) * 2).astype(np.float32)  # small integers: many equal pairs
        v[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, -65504.0, 1.0]
        return v.astype(rnum.NP_TYPES[dtype])
    info = np.iinfo(np.dtype(dtype))
    v = rng.integers(0 if info.min == 0 else -3, 4, n).astype(np.dtype(dtype))  # small values: equal pairs
    v[:4] = [info.min, info.max, 0, info.max - 1]
    return v


def _bits_of(tensor):
    return int.from_bytes(tensor.numpy().tobytes()[:32], "little")


@pytest.mark.parametrize("dtype", ["half", "float", "bfloat16", "int8", "uint16", "int32", "uint64", "int64"])
def test_compare_and_compares_are_the_memory_api_compare(dtype):
    """Every mode, the specials among the lanes (NaN, +-0, +-inf, the type's extremes), a partial mask; compiled and
    plain against the 950 Memory-API Compare / Compares (bit j of its uint8 dst = MaskReg bit j * sizeof(T)) and
    the reference."""
    rng = np.random.default_rng(sum(map(ord, dtype)))
    core = aj.Core(D950)
    n = _lanes(dtype)
    size = rnum.SIZES[dtype]
    a, b = core.local_tensor(dtype, n), core.local_tensor(dtype, n)
    a[:] = _values(dtype, rng, n)
    b[:] = np.roll(_values(dtype, rng, n), 3)
    mem, out = core.local_tensor("uint8", 32), core.local_tensor("uint64", 4)
    active = n - 5
    xs = [float(v) if rnum.is_float(dtype) else int(v) for v in a.numpy()]
    ys = [float(v) if rnum.is_float(dtype) else int(v) for v in b.numpy()]
    scalar = ys[9]
    on = [j < active for j in range(n)]
    for mode in MODES:
        for use_scalar in (False, True):
            with core:
                if use_scalar:
                    aj.Compares(mem, a, scalar, mode, n)
                else:
                    aj.Compare(mem, a, b, mode, n)
            memory_bits = int.from_bytes(mem.numpy().tobytes()[:n // 8], "little")
            want = sum(((1 << size) - 1) << (j * size) for j in range(active) if (memory_bits >> j) & 1)
            assert want == ref.compare(mode.name, dtype, xs, [scalar] * n if use_scalar else ys, on)
            with core:
                COMPARE_VF(out, a, b, dtype, mode, scalar, active, use_scalar)
            assert _bits_of(out) == want, (mode, use_scalar, "compiled")
            with core:
                m = R.MaskReg()
                ra, rb = R.RegTensor(dtype), R.RegTensor(dtype)
                R.LoadAlign(ra, a, 0)
                R.LoadAlign(rb, b, 0)
                mask, _ = R.UpdateMask(dtype, active)
                if use_scalar:
                    R.Compares(m, ra, scalar, mask, mode)
                else:
                    R.Compare(m, ra, rb, mask, mode)
            assert m.bits() == want, (mode, use_scalar, "plain")


@pytest.mark.parametrize("dtype", ["half", "int8", "uint32", "int64"])
def test_select_on_registers_takes_src0_where_the_mask_is_set(dtype):
    rng = np.random.default_rng(5)
    core = aj.Core(D950)
    n = _lanes(dtype)
    a, b, out = (core.local_tensor(dtype, n) for _ in range(3))
    a[:] = _values(dtype, rng, n)
    b[:] = _values(dtype, rng, n)
    sel = core.local_tensor("uint64", 4)
    sel[:] = rng.integers(0, 2**63, 4, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    bits = _bits_of(sel)
    size = rnum.SIZES[dtype]
    want = ref.select(list(a.numpy()), list(b.numpy()), bits, size)
    with core:
        SELECT_VF(out, a, b, sel, dtype)
    assert out.numpy().tobytes() == np.array(want, a.numpy().dtype).tobytes()
    with core:
        ra, rb, m = R.RegTensor(dtype), R.RegTensor(dtype), R.MaskReg()
        R.LoadAlign(ra, a, 0)
        R.LoadAlign(rb, b, 0)
        R.LoadAlign(m, sel, 0)
        R.Select(rb, ra, rb, m)
    assert rb.numpy().tobytes() == out.numpy().tobytes()


def test_refusals():
    core = aj.Core(D950)
    with core:
        h, f, m = R.RegTensor("half"), R.RegTensor("float"), R.MaskReg((1, 2, 3, 4))
        with pytest.raises(aj.UnsupportedDTypeError, match="Compare"):
            R.Compare(m, h, f, R.CreateMask("half"))
        with pytest.raises(aj.ParameterError, match="mode"):
            R.Compare(m, h, h, R.CreateMask("half"), R.MaskMergeMode.ZEROING)
        with pytest.raises(aj.ParameterError, match="Compares"):
            R.Compares(m, R.RegTensor("int8"), 300, R.CreateMask("int8"))
        with pytest.raises(aj.UnsupportedDTypeError, match="Select"):
            R.Select(h, h, f, m)
        assert m.words == tuple(np.uint64(w) for w in (1, 2, 3, 4))
    with aj.Core("atlas-a2"), pytest.raises(aj.UnsupportedDeviceError, match="Compare"):
        R.Compare(m, h, h, m)
    a = core.local_tensor("half", 128)
    out = core.local_tensor("uint64", 4)
    with core, pytest.raises(aj.ParameterError, match="Compare.*mode"):
        COMPARE_VF(out, a, a, "half", 9, 0.0, 128, False)


@pytest.mark.parametrize("name", ["compare_reg", "compares_reg", "select_reg", "muls_reg", "abs_reg", "truncate_reg"])
def test_ported_examples_run_uncompiled_with_the_same_bits(name):
    """kernels/compare_select_reg.py's and kernels/reg_basic_examples.py's VFs as plain Python give the compiled
    run's bits and the reference's (the gallery test runs them compiled, at their default size)."""
    from ascend_jit.kernels import registry
    k = registry()[name]
    inputs = k.make_inputs(512, 11)
    (key, want), = k.expected(D950, inputs).items()
    plain = k.run(D950, inputs, compiled=False)[key]
    assert plain.tobytes() == k.run(D950, inputs)[key].tobytes() == want.tobytes()
