"""Reg ShiftLefts/ShiftRights (not in SPEC-2 11: DK `R/逻辑计算/*.md`, docs/decisions.md "Reg API"): the pages'
worked examples, compiled = plain = the reference over every integer type and the edge amounts, and the refusals.
(And/Or/Xor/Not on data registers are not offered, SPEC-2 14: tests/test_reg_not_offered.py.)"""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.reference import numerics as rnum
from ascend_jit.reference import reg as ref

R = aj.Reg
D950 = "ascend950"
OPS = ("ShiftLefts", "ShiftRights")
INTEGERS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")


def _vf_shift(out, a, dtype, op, amount, n):
    """The shift in place (dst = src: the lanes are assembled in the register's scratch first)."""
    reg = R.RegTensor(dtype)
    R.LoadAlign(reg, a, 0)
    if op == 0:
        R.ShiftLefts(reg, reg, amount, R.UpdateMask(dtype, n)[0])
    else:
        R.ShiftRights(reg, reg, amount, R.UpdateMask(dtype, n)[0], R.MaskMergeMode.ZEROING)
    R.StoreAlign(out, reg, R.CreateMask(dtype), 0)


SHIFT_VF = R.simd_vf(_vf_shift)


def _unsigned(dtype):
    return np.dtype(f"u{rnum.SIZES[dtype]}")


def _plain(core, op, dtype, a, amount, n):
    with core:
        ra, rd = R.RegTensor(dtype), R.RegTensor(dtype)
        R.LoadAlign(ra, a, 0)
        mask, _ = R.UpdateMask(dtype, n)
        getattr(R, op)(rd, ra, amount, mask)
    return rd.numpy().view(_unsigned(dtype))


def test_the_pages_examples():
    """DK ShiftLefts.md / ShiftRights.md: int16 1010101010101010 << 1 = 1101010101010100, << 3 = 1101010101010000,
    >> 1 = 1101010101010101, >> 3 = 1111010101010101; uint16 << 1 = 0101010101010100, >> 1 = 0101010101010101;
    amounts past the width: 0, or -1 for a negative signed lane shifted right."""
    core = aj.Core(D950)
    for dtype, op, amount, want in (("int16", "ShiftLefts", 1, 0b1101010101010100),
                                    ("int16", "ShiftLefts", 3, 0b1101010101010000),
                                    ("int16", "ShiftRights", 1, 0b1101010101010101),
                                    ("int16", "ShiftRights", 3, 0b1111010101010101),
                                    ("uint16", "ShiftLefts", 1, 0b0101010101010100),
                                    ("uint16", "ShiftRights", 1, 0b0101010101010101),
                                    ("int16", "ShiftRights", 17, 0xFFFF), ("int16", "ShiftLefts", 17, 0),
                                    ("uint16", "ShiftRights", 16, 0)):
        a = core.local_tensor(dtype, 128)
        a[:] = np.full(128, 0b1010101010101010, np.uint16).view(dtype)
        assert int(_plain(core, op, dtype, a, amount, 128)[0]) == want, (dtype, op, amount)


@pytest.mark.parametrize("dtype", INTEGERS)
def test_compiled_and_plain_match_the_reference(dtype):
    rng = np.random.default_rng(sum(map(ord, dtype)))
    core = aj.Core(D950)
    n = 256 // rnum.SIZES[dtype]
    width = 8 * rnum.SIZES[dtype]
    u = _unsigned(dtype)
    a, out = core.local_tensor(dtype, n), core.local_tensor(dtype, n)
    raw = rng.integers(0, 2**63, n, dtype=np.uint64).astype(u)
    raw[:4] = [0, np.iinfo(u).max, np.iinfo(u).max >> 1, (np.iinfo(u).max >> 1) + 1]
    a[:] = raw.view(dtype)
    active = n - 3
    on = [j < active for j in range(n)]
    xs = [int(v) for v in raw]
    for op in OPS:
        for amount in (0, 1, width - 1, width, width + 5):
            want = np.array(ref.shift(op.lower(), dtype, xs, on, amount), u)
            with core:
                SHIFT_VF(out, a, dtype, OPS.index(op), amount, active)
            assert np.array_equal(out.numpy().view(u), want), (op, amount, "compiled")
            assert np.array_equal(_plain(core, op, dtype, a, amount, active), want), (op, amount, "plain")


def test_refusals():
    core = aj.Core(D950)
    with core:
        h, i16, out = R.RegTensor("half"), R.RegTensor("int16"), R.RegTensor("int16")
        m = R.CreateMask("int16")
        R.Duplicate(out, 5)
        before = out.data.copy()
        for call, error, match in ((lambda: R.ShiftLefts(h, h, 1, m), aj.UnsupportedDTypeError, "ShiftLefts.*half"),
                                   (lambda: R.ShiftRights(out, R.RegTensor("uint16"), 1, m), aj.UnsupportedDTypeError,
                                    "ShiftRights"),
                                   (lambda: R.ShiftLefts(out, i16, 1, m, R.MaskMergeMode.MERGING), aj.ParameterError,
                                    "ShiftLefts.*MERGING"),
                                   (lambda: R.ShiftLefts(out, i16, -1, m), aj.ParameterError, "ShiftLefts"),
                                   (lambda: R.ShiftRights(out, i16, True, m), aj.ParameterError, "ShiftRights"),
                                   (lambda: R.ShiftRights(out, i16, 1.0, m), aj.ParameterError, "ShiftRights")):
            with pytest.raises(error, match=match):
                call()
        assert np.array_equal(out.data, before)
    a = core.local_tensor("int16", 128)
    a[:] = np.arange(128, dtype=np.int16)   # the VF loads it before the refused shift
    dst = core.local_tensor("int16", 128)
    with core, pytest.raises(aj.ParameterError, match="ShiftRights"):
        SHIFT_VF(dst, a, "int16", 1, -2, 128)
    with aj.Core("atlas-a2"), pytest.raises(aj.UnsupportedDeviceError, match="ShiftLefts"):
        R.ShiftLefts(out, i16, 1, m)
