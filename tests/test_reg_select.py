"""Reg Select on data registers (not in SPEC-2 11: DK `R/比较与选择/Select.md`, docs/decisions.md "Reg API"):
compiled = plain = the reference lane by lane; refusals; the ported devkit Reg examples (kernels/select_reg.py,
reg_basic_examples.py) uncompiled. (Reg Compare/Compares are not offered, SPEC-2 14: tests/test_reg_not_offered.py.)"""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.reference import numerics as rnum
from ascend_jit.reference import reg as ref

R = aj.Reg
D950 = "ascend950"


def _vf_select(out, a, b, sel, dtype):
    ra, rb = R.RegTensor(dtype), R.RegTensor(dtype)
    m = R.MaskReg()
    R.LoadAlign(ra, a, 0)
    R.LoadAlign(rb, b, 0)
    R.LoadAlign(m, sel, 0)
    R.Select(ra, ra, rb, m)  # dst is a source: the lanes are assembled before they land
    R.StoreAlign(out, ra, R.CreateMask(dtype), 0)


SELECT_VF = R.simd_vf(_vf_select)


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
        R.Duplicate(h, 1.0)
        before = h.data.copy()
        with pytest.raises(aj.UnsupportedDTypeError, match="Select"):
            R.Select(h, h, f, m)
        with pytest.raises(aj.ParameterError, match="Select.*src1"):
            R.Select(h, h, m, m)
        assert m.words == tuple(np.uint64(w) for w in (1, 2, 3, 4))
        assert np.array_equal(h.data, before)
    with aj.Core("atlas-a2"), pytest.raises(aj.UnsupportedDeviceError, match="Select"):
        R.Select(h, h, h, m)


@pytest.mark.parametrize("name", ["select_reg", "muls_reg", "abs_reg"])
def test_ported_examples_run_uncompiled_with_the_same_bits(name):
    """kernels/select_reg.py's and kernels/reg_basic_examples.py's VFs as plain Python give the compiled
    run's bits and the reference's (the gallery test runs them compiled, at their default size)."""
    from ascend_jit.kernels import registry
    k = registry()[name]
    inputs = k.make_inputs(512, 11)
    (key, want), = k.expected(D950, inputs).items()
    plain = k.run(D950, inputs, compiled=False)[key]
    assert plain.tobytes() == k.run(D950, inputs)[key].tobytes() == want.tobytes()
