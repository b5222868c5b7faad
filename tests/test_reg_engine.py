"""Reg Max, Min, Div, Exp (docs/decisions.md "Reg API": not in SPEC-2 11; the 950 Memory-API instruction's numerics on
a register), ReduceMax/ReduceSum and LocalMemBar: compiled, plain and the Memory API give the same bits lane for lane;
masks select lanes (ZEROING, or MERGING for Max and Min: Div and Exp refuse it, DK RegMerge table 2); refusals
leave everything unchanged."""
import numpy as np
import pytest

import ascend_jit as aj

R = aj.Reg
D950 = "ascend950"


def _vf_binary(dst, a, b, prev, n, op, merging, kind):
    ra, rb, rd = R.RegTensor(kind), R.RegTensor(kind), R.RegTensor(kind)
    mask, n = R.UpdateMask(kind, n)
    R.LoadAlign(ra, a, 0)
    R.LoadAlign(rb, b, 0)
    R.LoadAlign(rd, prev, 0)
    mode = R.MaskMergeMode.MERGING if merging else R.MaskMergeMode.ZEROING
    if op == 0:
        R.Max(rd, ra, rb, mask, mode)
    elif op == 1:
        R.Min(rd, ra, rb, mask, mode)
    elif op == 2:
        R.Div(rd, ra, rb, mask, mode)
    else:
        R.Exp(rd, ra, mask, mode)
    R.StoreAlign(dst, rd, R.CreateMask(kind), 0)
    R.LocalMemBar(R.MemType.VEC_STORE, R.MemType.VEC_LOAD)


BINARY = R.simd_vf(_vf_binary)
OPS = ("Max", "Min", "Div", "Exp")


def _np(dtype):
    return np.dtype({"half": np.float16, "float": np.float32}.get(dtype, dtype))


def _values(dtype, rng, n):
    if dtype in ("half", "float"):
        v = rng.standard_normal(n) * 4
        v[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30]
        return v.astype(_np(dtype))
    info = np.iinfo(np.dtype(dtype))
    return rng.integers(info.min, info.max, n, endpoint=True).astype(dtype)


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("op,dtype", [("Max", "half"), ("Max", "int16"), ("Min", "float"), ("Min", "uint32"),
                                      ("Div", "half"), ("Div", "float"), ("Div", "int32"), ("Exp", "half"),
                                      ("Exp", "float")])
def test_lanes_are_the_memory_api_instruction_and_the_mask_merges(op, dtype, compiled):
    rng = np.random.default_rng(hash((op, dtype)) % 2**32)
    core = aj.Core(D950)
    lanes = 256 // _np(dtype).itemsize
    a, b, prev, dst, mem = (core.local_tensor(dtype, lanes) for _ in range(5))
    a[:] = _values(dtype, rng, lanes)
    b[:] = _values(dtype, rng, lanes)
    if op == "Div" and dtype == "int32":
        b[:] = np.where(b.numpy() == 0, 7, b.numpy())
    prev[:] = _values(dtype, rng, lanes)
    active = lanes - 5
    with core:
        if op == "Exp":
            aj.Exp(mem, a, lanes)
        else:
            getattr(aj, op)(mem, a, b, lanes)
    want_all = mem.numpy().view(np.uint8).reshape(lanes, -1)
    for merging in (False, True):
        if merging and op in ("Div", "Exp"):   # ZEROING only (DK RegMerge table 2): refused, nothing written
            before = core.ub.copy()
            with core, pytest.raises(aj.ParameterError, match=f"{op}: parameter 'mode' = 'MERGING'.*table 2"):
                (BINARY if compiled else BINARY.py_func)(dst, a, b, prev, active, OPS.index(op), merging, dtype)
            assert np.array_equal(core.ub, before)
            continue
        with core:
            (BINARY if compiled else BINARY.py_func)(dst, a, b, prev, active, OPS.index(op), merging, dtype)
        got = dst.numpy().view(np.uint8).reshape(lanes, -1)
        assert np.array_equal(got[:active], want_all[:active])
        rest = prev.numpy().view(np.uint8).reshape(lanes, -1)[active:] if merging else 0
        assert np.array_equal(got[active:], np.zeros_like(got[active:]) + rest)


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"])
def test_integer_lanes_of_every_width_are_the_memory_api_instruction(dtype, compiled):
    """Reg's own integer lanes (jit/reg_ops.py _int_engine_lanes): the type's extremes, -1 and 0 among the operands
    (MIN / -1 wraps, x / 0 is all ones, uint64 compares and divides unsigned; D48)."""
    rng = np.random.default_rng(sum(map(ord, dtype)))
    core = aj.Core(D950)
    info = np.iinfo(np.dtype(dtype))
    lanes = 256 // np.dtype(dtype).itemsize
    a, b, prev, dst, mem = (core.local_tensor(dtype, lanes) for _ in range(5))
    edges = [info.min, info.max, 0, 1, info.max - 1, info.min + 1]
    edges += [-1, -1] if info.min < 0 else [info.max, 2]
    def draw(n):
        return rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)
    a[:] = np.concatenate([np.array(edges, dtype), draw(lanes - 8)])
    b[:] = np.concatenate([np.array(edges[::-1], dtype), draw(lanes - 8)])
    prev[:] = draw(lanes)
    for op in ("Max", "Min", "Div"):
        if dtype not in R.ENGINE_DTYPES[op]:
            continue
        with core:
            getattr(aj, op)(mem, a, b, lanes)
        with core:
            (BINARY if compiled else BINARY.py_func)(dst, a, b, prev, lanes, OPS.index(op), False, dtype)
        assert np.array_equal(dst.numpy().view(np.uint8), mem.numpy().view(np.uint8)), op


@R.simd_vf
def _short_reduces(out, t):
    """ReduceMax, ReduceMin, ReduceSum of t's 64 floats, then Reduce with MAX, MIN, SUM: six results of two lanes."""
    src, r = R.RegTensor("float"), R.RegTensor("float")
    mask = R.CreateMask("float")
    R.LoadAlign(src, t, 0)
    R.ReduceMax(r, src, mask)
    R.StoreAlign(out, r, R.CreateMask("float", R.MaskPattern.VL2), 0)
    R.ReduceMin(r, src, mask)
    R.StoreAlign(out, r, R.CreateMask("float", R.MaskPattern.VL2), 8)
    R.ReduceSum(r, src, mask)
    R.StoreAlign(out, r, R.CreateMask("float", R.MaskPattern.VL2), 16)
    R.Reduce(r, src, mask, R.ReduceType.MAX)
    R.StoreAlign(out, r, R.CreateMask("float", R.MaskPattern.VL2), 24)
    R.Reduce(r, src, mask, R.ReduceType.MIN)
    R.StoreAlign(out, r, R.CreateMask("float", R.MaskPattern.VL2), 32)
    R.Reduce(r, src, mask, R.ReduceType.SUM)
    R.StoreAlign(out, r, R.CreateMask("float", R.MaskPattern.VL2), 40)


@pytest.mark.parametrize("compiled", [True, False])
def test_reduce_max_min_and_sum_are_reduce(compiled):
    """ReduceMax / ReduceMin (reg38: ops-nn arch35 kernels call it; it was missing) / ReduceSum are Reduce with
    MAX / MIN / SUM, compiled and plain: the value in lane 0, the first index in lane 1."""
    core = aj.Core(D950)
    t, out = core.local_tensor("float", 64), core.local_tensor("float", 64)
    x = np.arange(64, dtype=np.float32) - 20
    x[[7, 40]] = 99.0
    x[[3, 50]] = -30.0
    t[:] = x
    with core:
        (_short_reduces if compiled else _short_reduces.py_func)(out, t)
    got = out.numpy()[:48].reshape(6, 8)[:, :2]
    assert np.array_equal(got[:3].view(np.uint32), got[3:].view(np.uint32))
    assert got[0, 0] == 99 and got[0, 1:2].view(np.uint32)[0] == 7
    assert got[1, 0] == -30 and got[1, 1:2].view(np.uint32)[0] == 3
    assert got[2, 0] == np.float32(x.sum())


def test_refusals_leave_the_registers_unchanged():
    core = aj.Core(D950)
    with core:
        h, f, out = R.RegTensor("half"), R.RegTensor("float"), R.RegTensor("float")
        R.Duplicate(out, 3.0)
        before = out.data.copy()
        with pytest.raises(aj.UnsupportedDTypeError, match="Exp"):
            R.Exp(R.RegTensor("int32"), R.RegTensor("int32"), R.CreateMask("int32"))
        with pytest.raises(aj.UnsupportedDTypeError, match="Max"):
            R.Max(out, f, h, R.CreateMask("float"))
        with pytest.raises(aj.ParameterError, match="mode"):
            R.Div(out, f, f, R.CreateMask("float"), 7)
        assert np.array_equal(out.data, before)
    with aj.Core("atlas-a2"), pytest.raises(aj.UnsupportedDeviceError, match="LocalMemBar"):
        R.LocalMemBar()


def test_pack_b32_stores_a_half_register_after_a_narrowing_cast():
    """The devkit softmax's `StoreAlign<half, DIST_PACK_B32>`: float -> half (layout ZERO) puts each result in the
    low half of its 32-bit slot, DIST_PACK_B32 packs those halves (docs/decisions.md)."""
    core = aj.Core(D950)
    src, dst = core.local_tensor("float", 64), core.local_tensor("half", 128)
    src[:] = np.arange(64, dtype=np.float32) / 8
    trait = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_RINT)
    with core:
        f, h = R.RegTensor("float"), R.RegTensor("half")
        R.LoadAlign(f, src, 0)
        mask, _ = R.UpdateMask("float", 40)
        R.Cast(h, f, mask, trait)
        R.StoreAlign(dst, h, mask, 0, dist=R.StoreDist.DIST_PACK_B32)
    assert np.array_equal(dst.numpy()[:40], (np.arange(40) / 8).astype(np.float16))
    assert not dst.numpy()[40:].any()
