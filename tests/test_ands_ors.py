"""Ands and Ors, the 950's tensor-scalar And / Or (the devkit pages M/逻辑计算/Ands.md, Ors.md; the SPECs are silent;
docs/decisions.md "Ands, Ors"): the pages' 调用示例 forms, every type against numpy, masked lanes, the count-only
64-bit types, in place, the refusals. ops-math PopulationCount (kernels/population_count.py) could not be ported
without Ands."""
import numpy as np
import pytest

import ascend_jit as aj

U = aj.UnaryRepeatParams
NP_OP = {"Ands": np.bitwise_and, "Ors": np.bitwise_or}
ENTRY = {"Ands": lambda *a, **k: aj.Ands(*a, **k), "Ors": lambda *a, **k: aj.Ors(*a, **k)}


def _random(dtype, n, seed):
    info = np.iinfo(dtype)
    return np.random.default_rng(seed).integers(info.min, info.max, n, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("name", ["Ands", "Ors"])
@pytest.mark.parametrize("dtype", ["int16", "uint16"])
def test_every_form_against_numpy(name, dtype):
    """The pages' three 调用示例 (count 512; 128 lanes a repeat, 4 repeats, continuous and bit masks)."""
    core = aj.Core("ascend950")
    dst, src = core.local_tensor(dtype, 512), core.local_tensor(dtype, 512)
    x = _random(np.dtype(dtype), 512, 1)
    src[:] = x
    scalar = np.dtype(dtype).type(0x5A5A if dtype == "uint16" else -0x3C3D)
    want = NP_OP[name](x, scalar)
    for tail in ((512,), (128, 4, U(1, 1, 8, 8)), ([2**64 - 1, 2**64 - 1], 4, U(1, 1, 8, 8))):
        dst[:] = np.zeros(512, dtype)
        ENTRY[name](dst, src, scalar, *tail)
        np.testing.assert_array_equal(dst.numpy(), want)


def test_the_pages_example_and_masked_lanes_keep_dst():
    """Ands.md: src [1 2 3 ... 512] & 0 = zeros; a 64-lane continuous mask leaves lanes 64..127 of each repeat as
    they were (the Memory API's masked lanes: dst untouched)."""
    core = aj.Core("ascend950")
    dst, src = core.local_tensor("int16", 512), core.local_tensor("int16", 512)
    src[:] = np.arange(1, 513, dtype=np.int16)
    aj.Ands(dst, src, np.int16(0), 512)
    assert not dst.numpy().any()
    dst[:] = np.full(512, 7, np.int16)
    aj.Ors(dst, src, np.int16(0x100), 64, 4, U(1, 1, 8, 8))
    lanes = np.arange(512) % 128 < 64
    np.testing.assert_array_equal(dst.numpy()[lanes], src.numpy()[lanes] | 0x100)
    assert (dst.numpy()[~lanes] == 7).all()


@pytest.mark.parametrize("name", ["Ands", "Ors"])
@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_64_bit_types_in_the_count_form_only(name, dtype):
    core = aj.Core("ascend950")
    dst, src = core.local_tensor(dtype, 100), core.local_tensor(dtype, 100)
    x = _random(np.dtype(dtype), 100, 2)
    src[:] = x
    scalar = np.dtype(dtype).type(0x0F0F_0F0F_F0F0_F0F0)
    ENTRY[name](dst, src, scalar, 100)
    np.testing.assert_array_equal(dst.numpy(), NP_OP[name](x, scalar))
    with pytest.raises(aj.UnsupportedDTypeError):
        ENTRY[name](dst, src, scalar, 32, 1, U(1, 1, 8, 8))


def test_in_place_with_a_python_int():
    """PopulationCount's `Ands(u, u, static_cast<uint16_t>(0x3333), count)`: dst the source, a count that is not whole
    repeats."""
    core = aj.Core("ascend950")
    u = core.local_tensor("uint16", 1000)
    x = _random(np.dtype("uint16"), 1000, 3)
    u[:] = x
    aj.Ands(u, u, 0x3333, 999)
    np.testing.assert_array_equal(u.numpy()[:999], x[:999] & 0x3333)
    assert u.numpy()[999] == x[999]


@pytest.mark.parametrize("device", ["atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore",
                                    "atlas-training"])
def test_refused_off_the_950(device):
    """产品支持情况: the 950 alone."""
    core = aj.Core(device)
    dst, src = core.local_tensor("int16", 128), core.local_tensor("int16", 128)
    for entry in (aj.Ands, aj.Ors):
        with pytest.raises(aj.AscendJitError):
            entry(dst, src, np.int16(1), 128)


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint32", "half", "float"])
def test_other_types_refused(dtype):
    """数据类型: int16, uint16, int64, uint64 only (And itself takes 8- and 32-bit types too)."""
    core = aj.Core("ascend950")
    dst, src = core.local_tensor(dtype, 128), core.local_tensor(dtype, 128)
    with pytest.raises(aj.UnsupportedDTypeError):
        aj.Ands(dst, src, 1, 128)


def test_registered_and_bit_exact():
    assert aj.FIDELITY[("Ands", "ascend950")].default.name == "BIT_EXACT"
    assert aj.FIDELITY[("Ors", "ascend950")].default.name == "BIT_EXACT"
