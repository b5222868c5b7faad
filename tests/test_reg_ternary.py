"""Reg MulAddDst, MulDstAdd, Axpy, AbsSub (not in SPEC-2 11: DK `R/复合计算/*.md`, RegPrec "等效于 Fma",
docs/decisions.md "Reg API"): compiled = plain = the reference (one rounding of the exact result) over random lanes
with the specials and partial masks in both overflow modes, = the 950 Memory-API MulAddDst / FusedMulAdd / Axpy where
those exist; refusals."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.reference import numerics as rnum
from ascend_jit.reference import reg as ref

R = aj.Reg
D950 = "ascend950"
OPS = ("MulAddDst", "MulDstAdd", "Axpy", "AbsSub")


def _vf_ternary(out, a, b, d, dtype, op, scalar, n, mode):
    ra, rb, rd = R.RegTensor(dtype), R.RegTensor(dtype), R.RegTensor(dtype)
    mask, n = R.UpdateMask(dtype, n)
    R.LoadAlign(ra, a, 0)
    R.LoadAlign(rb, b, 0)
    R.LoadAlign(rd, d, 0)
    if op == 0:
        R.MulAddDst(rd, ra, rb, mask, mode)
    elif op == 1:
        R.MulDstAdd(rd, ra, rb, mask, mode)
    elif op == 2:
        R.Axpy(rd, ra, scalar, mask, mode)
    else:
        R.AbsSub(rd, ra, rb, mask, mode)
    R.StoreAlign(out, rd, R.CreateMask(dtype), 0)


TERNARY_VF = R.simd_vf(_vf_ternary)
ZEROING = R.MaskMergeMode.ZEROING


def _core(sat):
    core = aj.Core(D950)
    core.SetCtrlSpr(48, 48, 0 if sat else 1)
    core.SetCtrlSpr(53, 53, 1 if sat else 0)
    return core


def _values(dtype, rng, n):
    if rnum.is_float(dtype):
        v = (rng.standard_normal(n) * 300).astype(np.float32)
        v[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, -65504.0, 6e-5]
        return v.astype(rnum.NP_TYPES[dtype])
    info = np.iinfo(np.dtype(dtype))
    v = rng.integers(info.min, info.max, n, endpoint=True, dtype=np.dtype(dtype))
    v[:4] = [info.min, info.max, 0, 1]
    return v


def _py(dtype, arr):
    return [float(v) if rnum.is_float(dtype) else int(v) for v in arr]


def _bits(dtype, values):
    return np.frombuffer(b"".join(rnum.encode(dtype, v) for v in values), np.dtype(f"u{rnum.SIZES[dtype]}"))


@pytest.mark.parametrize("op", OPS)
def test_compiled_plain_and_reference_agree(op):
    rng = np.random.default_rng(sum(map(ord, op)))
    for dtype in R.TERNARY_DTYPES[op]:
        n = 256 // rnum.SIZES[dtype]
        for sat in (False, True):
            core = _core(sat)
            a, b, d, out = (core.local_tensor(dtype, n) for _ in range(4))
            a[:], b[:], d[:] = _values(dtype, rng, n), np.roll(_values(dtype, rng, n), 5), _values(dtype, rng, n)
            scalar = _py(dtype, b.numpy())[9]
            if dtype == "uint64":  # (one VF specialisation for every integer scalar: int64's range)
                scalar %= 2**63
            active = n - 3
            ys = [scalar] * n if op == "Axpy" else _py(dtype, b.numpy())
            want = _bits(dtype, ref.ternary(op.lower(), dtype, _py(dtype, a.numpy()), ys, _py(dtype, d.numpy()),
                                            [j < active for j in range(n)], sat, sat))
            with core:
                TERNARY_VF(out, a, b, d, dtype, OPS.index(op), scalar, active, ZEROING)
            unsigned = np.dtype(f"u{rnum.SIZES[dtype]}")
            assert np.array_equal(out.numpy().view(unsigned), want), (dtype, sat, "compiled")
            with core:
                ra, rb, rd = R.RegTensor(dtype), R.RegTensor(dtype), R.RegTensor(dtype)
                R.LoadAlign(ra, a, 0)
                R.LoadAlign(rb, b, 0)
                R.LoadAlign(rd, d, 0)
                mask, _ = R.UpdateMask(dtype, active)
                getattr(R, op)(rd, ra, scalar if op == "Axpy" else rb, mask)
            assert np.array_equal(rd.numpy().view(unsigned), want), (dtype, sat, "plain")


@pytest.mark.parametrize("op,memory,dtype", [("MulAddDst", "MulAddDst", "half"), ("MulAddDst", "MulAddDst", "float"),
                                             ("MulAddDst", "MulAddDst", "uint64"),
                                             ("MulDstAdd", "FusedMulAdd", "float"), ("Axpy", "Axpy", "half"),
                                             ("Axpy", "Axpy", "float")])
def test_the_950_memory_api_instructions_give_the_same_lanes(op, memory, dtype):
    rng = np.random.default_rng(4)
    core = _core(False)
    n = 256 // rnum.SIZES[dtype]
    a, b, d, mem = (core.local_tensor(dtype, n) for _ in range(4))
    a[:], b[:], d[:] = _values(dtype, rng, n), _values(dtype, rng, n), _values(dtype, rng, n)
    mem[:] = d.numpy()
    scalar = _py(dtype, b.numpy())[20]
    with core:
        if memory == "Axpy":
            aj.Axpy(mem, a, scalar, n)
        else:
            getattr(aj, memory)(mem, a, b, n)
        ra, rb, rd = R.RegTensor(dtype), R.RegTensor(dtype), R.RegTensor(dtype)
        R.LoadAlign(ra, a, 0)
        R.LoadAlign(rb, b, 0)
        R.LoadAlign(rd, d, 0)
        getattr(R, op)(rd, ra, scalar if op == "Axpy" else rb, R.CreateMask(dtype))
    assert rd.numpy().tobytes() == mem.numpy().tobytes()


def test_refusals():
    core = _core(False)
    with core:
        h, f, out = R.RegTensor("half"), R.RegTensor("float"), R.RegTensor("float")
        m = R.CreateMask("float")
        R.Duplicate(out, 2.0)
        before = out.data.copy()
        for call, error, match in ((lambda: R.MulDstAdd(h, h, h, m), aj.UnsupportedDTypeError, "MulDstAdd.*half"),
                                   (lambda: R.MulAddDst(out, f, h, m), aj.UnsupportedDTypeError, "MulAddDst"),
                                   (lambda: R.Axpy(out, f, True, m), aj.ParameterError, "Axpy"),
                                   (lambda: R.AbsSub(out, f, f, m, R.MaskMergeMode.MERGING), aj.ParameterError,
                                    "AbsSub.*MERGING"),
                                   (lambda: R.AbsSub(R.RegTensor("int32"), R.RegTensor("int32"), R.RegTensor("int32"),
                                                     m), aj.UnsupportedDTypeError, "AbsSub")):
            with pytest.raises(error, match=match):
                call()
        assert np.array_equal(out.data, before)
    t = core.local_tensor("half", 128)
    t[:] = np.ones(128, np.float16)   # the VF loads it before the refused call
    with core, pytest.raises(aj.UnsupportedDTypeError, match="MulDstAdd"):
        TERNARY_VF(t, t, t, t, "half", 1, 0.0, 128, ZEROING)
    with core, pytest.raises(aj.ParameterError, match="Axpy.*mode"):
        TERNARY_VF(t, t, t, t, "half", 2, 0.0, 128, R.MaskMergeMode.MERGING)
