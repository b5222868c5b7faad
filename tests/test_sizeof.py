"""`aj.sizeof(T)`, C++'s sizeof of an element type: in host code and compiled inside a `@simd_vf`, where ports write
`VECTOR_REG_WIDTH / sizeof(T)` for the elements of one repeat (numpy's np.dtype(T).itemsize did not compile, and
reads "float" as float64's 8 bytes)."""
import os

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.errors import UnsupportedDTypeError

pytestmark = pytest.mark.ascend_sanitize(
    checks="", reason="compiled-VF behaviour against the plain run: a sanitizing core runs every VF plain")

R = aj.Reg
NO_JIT = os.environ.get("NUMBA_DISABLE_JIT") == "1"


@pytest.mark.parametrize("dtype, size", [("half", 2), ("float", 4), ("float32", 4), ("bfloat16", 2), ("int8", 1),
                                         ("uint8", 1), ("int16", 2), ("uint16", 2), ("int32_t", 4), ("uint32", 4),
                                         ("int64", 8), ("uint64", 8), (np.float16, 2), (np.dtype(np.int32), 4),
                                         (ml_dtypes.bfloat16, 2), (aj.dtypes.resolve("float"), 4)])
def test_the_bytes_of_one_element(dtype, size):
    assert aj.sizeof(dtype) == size and type(aj.sizeof(dtype)) is int


def test_a_type_the_emulator_has_not_is_refused_naming_sizeof():
    with pytest.raises(UnsupportedDTypeError, match="sizeof.*'dtype' = 'double'"):
        aj.sizeof("double")


def _vf_add_one_per_repeat(dst, src, count, T):
    """The devkit's loop: one repeat is VECTOR_REG_WIDTH / sizeof(T) elements."""
    per_repeat = aj.VECTOR_REG_WIDTH // aj.sizeof(T)
    reg = R.RegTensor(T)
    for i in range((count + per_repeat - 1) // per_repeat):
        mask, count = R.UpdateMask(T, count)
        R.LoadAlign(reg, src[i * per_repeat])
        R.Adds(reg, reg, 1, mask)
        R.StoreAlign(dst[i * per_repeat], reg, mask)
    R.Duplicate(reg, aj.sizeof("int64") + aj.sizeof(T), R.CreateMask(T))
    R.StoreAlign(dst[1024], reg, R.CreateMask(T))


@pytest.mark.parametrize("dtype", ["half", "float", "int32", "uint8"])
def test_sizeof_compiles_in_a_vf_and_gives_the_plain_runs_bytes(dtype):
    """The VF compiles (the suite turns UncompiledVFWarning into an error) and writes what its plain run writes."""
    vf = R.simd_vf(_vf_add_one_per_repeat)
    n = 700
    rng = np.random.default_rng(3)
    src_values = rng.integers(0, 100, 1024 + 256).astype(aj.dtypes.resolve(dtype).np_dtype)
    ubs = []
    for run in (vf, _vf_add_one_per_repeat):
        with aj.Core("ascend950") as core:
            src = core.local_tensor(dtype, 1024 + 256)
            dst = core.local_tensor(dtype, 1024 + 256)
            src[:] = src_values
            dst[:] = np.zeros_like(src_values)
            run(dst, src, n, dtype)
            ubs.append(core.ub.copy())
            out = dst.numpy()
    assert ubs[0].tobytes() == ubs[1].tobytes()
    per_repeat = 256 // aj.sizeof(dtype)
    whole = -(-n // per_repeat) * per_repeat
    np.testing.assert_array_equal(out[:n], src_values[:n] + 1)
    assert (out[n:whole] == 0).all()
    np.testing.assert_array_equal(out[1024:1024 + per_repeat], np.full(per_repeat, 8 + aj.sizeof(dtype)))


def _vf_numpy_itemsize(dst, src, T):
    reg = R.RegTensor(T)
    R.LoadAlign(reg, src)
    R.StoreAlign(dst[aj.VECTOR_REG_WIDTH // np.dtype(T).itemsize], reg, R.CreateMask(T))


@pytest.mark.skipif(NO_JIT, reason="with the JIT disabled every VF runs plain, without the warning")
def test_numpys_itemsize_in_a_vf_runs_plain_and_the_warning_names_sizeof():
    vf = R.simd_vf(_vf_numpy_itemsize)
    with aj.Core("ascend950") as core:
        src, dst = core.local_tensor("half", 256), core.local_tensor("half", 256)
        src[:] = np.ones(256, np.float16)
        with pytest.warns(aj.UncompiledVFWarning, match=r"for C\+\+'s sizeof\(T\) write aj.sizeof\(T\)"):
            vf(dst, src, "half")
