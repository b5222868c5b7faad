"""Ascend 950 Reg API: RegTensor, MaskReg, UpdateMask, CreateMask, LoadAlign, StoreAlign, ReduceDataBlock."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.reference import reg as ref

R = aj.Reg
INF, NAN = math.inf, math.nan


def _reduce(values, dtype, op=R.ReduceType.SUM, dst_dtype=None, mask=None, saturating=False):
    core = aj.Core("ascend950")
    if saturating:
        core.SetCtrlSpr(48, 48, 0)
    src_t = core.local_tensor(dtype, 256 // np.dtype(aj.dtypes.resolve(dtype).np_dtype).itemsize)
    src_t[:] = np.resize(np.asarray(values, dtype=aj.dtypes.resolve(dtype).np_dtype), src_t.size)
    src, dst = R.RegTensor(dtype), R.RegTensor(dst_dtype or dtype)
    with core:
        R.LoadAlign(src, src_t)
        R.ReduceDataBlock(dst, src, mask if mask is not None else R.CreateMask(dtype), op)
    return dst.numpy()


def _same(got, want):
    if isinstance(want, float) and math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1, got) == math.copysign(1, want)


BLOCK_TABLE = [  # SPEC 9 ReduceDataBlock rows (one 16-half block), (op, values, INF mode, sat mode); not 65344 (D5)
    (R.ReduceType.MAX, [INF, -INF] * 8, INF, 65504.0), (R.ReduceType.MAX, [1.0] * 15 + [-INF], 1.0, 1.0),
    (R.ReduceType.MIN, [INF, -INF] * 8, -INF, -65504.0), (R.ReduceType.SUM, [65504.0] * 16, INF, 65504.0),
    (R.ReduceType.SUM, [1.0] * 15 + [NAN], NAN, 14.0), (R.ReduceType.SUM, [1.0] * 15 + [INF], INF, None)]


@pytest.mark.parametrize("saturating", [False, True])
@pytest.mark.parametrize("op,values,inf_mode,sat_mode", BLOCK_TABLE)
def test_spec_9_block_rows(saturating, op, values, inf_mode, sat_mode):
    if saturating and sat_mode is None:
        pytest.skip("D5: the doc's 65344 is not a test vector")
    got = _reduce(values, "half", op, saturating=saturating)
    assert _same(float(got[0]), sat_mode if saturating else inf_mode)
    assert (got[8:] == 0).all()  # D3


def test_official_float_example_and_seed_vf_compiled_equals_python():
    from ascend_jit.kernels import reduce_data_block_seed as k
    for size, seed in ((256, 0), (8320, 1), (1000, 2)):
        inputs = k.make_inputs(size, seed)
        compiled = k.run("ascend950", inputs, compiled=True)["block_sums"]
        python = k.run("ascend950", inputs, compiled=False)["block_sums"]
        assert compiled.tobytes() == python.tobytes()
        assert compiled.tobytes() == k.expected("ascend950", inputs)["block_sums"].tobytes()


def test_widening_sums_do_not_overflow_16_bits():
    got = _reduce([30000] * 16, "int16", dst_dtype="int32")
    assert got[:8].tolist() == [480000] * 8 and got.dtype == np.int32
    got = _reduce([65535] * 16, "uint16", dst_dtype="uint32")
    assert got[:8].tolist() == [1048560] * 8
    assert _reduce([30000] * 16, "int16")[:8].tolist() == [(480000 + 32768) % 65536 - 32768] * 8  # D25 wraps
    assert _reduce([2**31 - 1, 1, 0, 0, 0, 0, 0, 0], "int32")[0] == -2**31  # int32 sums wrap


def test_max_min_nan_and_signed_zero():
    assert math.isnan(_reduce([1.0] * 7 + [NAN] + [0.0] * 8, "half", R.ReduceType.MAX)[0])
    assert math.isnan(_reduce([NAN] + [1.0] * 7, "float", R.ReduceType.MIN)[0])
    zmax = _reduce([-0.0, 0.0] * 8, "half", R.ReduceType.MAX)[0]
    zmin = _reduce([0.0, -0.0] * 8, "half", R.ReduceType.MIN)[0]
    assert zmax == 0 and math.copysign(1, zmax) == 1 and math.copysign(1, zmin) == -1
    none = R.CreateMask("float", R.MaskPattern.ALLF)
    assert _reduce([1.0] * 64, "float", R.ReduceType.MAX, mask=none)[0] == -INF  # identities of empty blocks
    assert _reduce([1.0] * 64, "float", R.ReduceType.MIN, mask=none)[0] == INF
    assert _reduce([1.0] * 64, "float", R.ReduceType.SUM, mask=none)[0] == 0
    assert _reduce([5] * 128, "int16", R.ReduceType.MAX, mask=R.CreateMask("int16", R.MaskPattern.ALLF))[0] == -32768
    assert _reduce([1.0] * 128, "half", R.ReduceType.MAX, mask=R.CreateMask("half", R.MaskPattern.ALLF),
                   saturating=True)[0] == -65504  # D20


def test_update_mask_and_create_mask():
    m, n = R.UpdateMask("half", 300)
    assert n == 172 and m.lanes("half") == list(range(128))
    m, n = R.UpdateMask("float", 10)
    assert n == 0 and m.lanes("float") == list(range(10))
    assert int(m.words[0]) == (1 << 40) - 1  # 4 bits per b32 lane (SPEC 7.1)
    assert R.CreateMask("half", R.MaskPattern.H).lanes("half") == list(range(64))
    assert R.CreateMask("float", R.MaskPattern.Q).lanes("float") == list(range(16))
    assert R.CreateMask("half", R.MaskPattern.VL3).lanes("half") == [0, 1, 2]
    assert R.CreateMask("float", R.MaskPattern.M4).lanes("float") == list(range(0, 64, 4))
    assert R.CreateMask("float", R.MaskPattern.VL128).lanes("float") == list(range(64))
    assert R.CreateMask("half", R.MaskPattern.ALLF).lanes("half") == []


def test_store_writes_active_lanes_only():
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 128)
    src[:] = np.arange(128)
    dst[:] = -1
    reg = R.RegTensor("half")
    with core:
        R.LoadAlign(reg, src)
        R.StoreAlign(dst, reg, R.CreateMask("half", R.MaskPattern.M3))
    got = dst.numpy()
    assert all(got[j] == (j if j % 3 == 0 else -1) for j in range(128))


def _one_block(o, s, dst_t, src_t, kind_op, m):
    sr, dr = R.RegTensor(src_t), R.RegTensor(dst_t)
    R.LoadAlign(sr, s, 0)
    R.ReduceDataBlock(dr, sr, m, kind_op)
    R.StoreAlign(o, dr, R.CreateMask(dst_t, 0), 0)


_ONE_BLOCK_VF = R.simd_vf(_one_block)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(ref.SUM_PAIRS | {(t, t) for t in ref.MINMAX_TYPES})),
       st.sampled_from([R.ReduceType.SUM, R.ReduceType.MAX, R.ReduceType.MIN]),
       st.lists(st.integers(0, 2**64 - 1), min_size=4, max_size=4), st.integers(0, 2**32 - 1), st.booleans(),
       st.booleans())
def test_reduce_data_block_matches_reference(pair, op, words, seed, saturating, compiled):
    dst_dtype, src_dtype = pair
    name = {R.ReduceType.SUM: "sum", R.ReduceType.MAX: "max", R.ReduceType.MIN: "min"}[op]
    if not ref.supported(name, dst_dtype, src_dtype):
        return
    d = aj.dtypes.resolve(src_dtype)
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 256, 256, dtype=np.uint8)
    if d.name == "half":  # sprinkle specials
        h = raw.view(np.uint16)
        h[rng.integers(0, 128, 12)] = rng.choice(np.array([0x7C00, 0xFC00, 0x7E00, 0x8000, 0, 0x7BFF], np.uint16), 12)
    values = raw.view(d.np_dtype)
    mask = R.MaskReg(words)
    core = aj.Core("ascend950")
    if saturating:
        core.SetCtrlSpr(48, 48, 0)
    t = core.local_tensor(src_dtype, values.size)
    t[:] = values
    out = core.local_tensor(dst_dtype, 256 // aj.dtypes.resolve(dst_dtype).size)
    with core:
        if compiled:
            _ONE_BLOCK_VF(out, t, dst_dtype, src_dtype, int(op), mask.words)
        else:
            _one_block(out, t, dst_dtype, src_dtype, op, mask)
    got = out.numpy()
    active = [bool(R.jit_lane_on(mask.words, j * d.size)) for j in range(values.size)]
    pyvals = [float(v) if d.is_float else int(v) for v in values]
    want = ref.reduce_data_block(name, dst_dtype, src_dtype, pyvals, active, sat=core.half_saturating)
    for b in range(8):
        assert _same(float(got[b]), float(want[b])) if d.is_float else int(got[b]) == want[b]
    assert (got[8:] == 0).all()


def _unchanged(core, fn, error, *words):
    before = core.ub.copy()
    with pytest.raises(error) as info:
        fn()
    assert np.array_equal(before, core.ub)
    for w in words:
        assert w in str(info.value)


def test_refusals():
    core = aj.Core("ascend950")
    t = core.local_tensor("half", 256)
    reg = R.RegTensor("half")
    _unchanged(core, lambda: R.LoadAlign(reg, t, 1), aj.AlignmentError, "LoadAlign", "32")
    _unchanged(core, lambda: R.StoreAlign(t, reg, R.CreateMask("half"), 8), aj.AlignmentError, "StoreAlign")
    end = core.local_tensor("half", 16, addr=core.spec.ub_bytes - 32)
    _unchanged(core, lambda: R.StoreAlign(end, reg, R.CreateMask("half")), aj.OutOfBoundsError, "StoreAlign")
    R.StoreAlign(end, reg, R.CreateMask("half", R.MaskPattern.VL16))  # the active lanes fit
    _unchanged(core, lambda: R.LoadAlign(reg, end), aj.OutOfBoundsError, "LoadAlign")
    f32 = R.RegTensor("float")
    _unchanged(core, lambda: R.ReduceDataBlock(f32, reg, R.CreateMask("half")), aj.UnsupportedDTypeError,
               "ReduceDataBlock")
    i16, i32 = R.RegTensor("int16"), R.RegTensor("int32")
    _unchanged(core, lambda: R.ReduceDataBlock(i32, i16, R.CreateMask("int16"), R.ReduceType.MAX),
               aj.UnsupportedDTypeError)
    _unchanged(core, lambda: R.ReduceDataBlock(reg, reg, R.CreateMask("half"), R.ReduceType.SUM,
                                               R.MaskMergeMode.MERGING), aj.ParameterError, "MERGING")
    a2 = aj.Core("atlas-a2")
    a2t = a2.local_tensor("half", 256)
    _unchanged(a2, lambda: R.LoadAlign(reg, a2t), aj.UnsupportedDeviceError, "atlas-a2", "950")
    with a2:
        _unchanged(a2, lambda: R.ReduceDataBlock(reg, reg, R.CreateMask("half")), aj.UnsupportedDeviceError)
    from ascend_jit.kernels.reduce_data_block_seed import ReduceDataBlockVF_compiled
    _unchanged(a2, lambda: ReduceDataBlockVF_compiled(a2t, a2t, 256, 128, 2, "half"), aj.UnsupportedDeviceError)
    mis = core.local_tensor("half", 256, addr=t.addr + 2)
    from ascend_jit.kernels.reduce_data_block_seed import ReduceDataBlockVF_compiled as vf
    _unchanged(core, lambda: vf(t, mis, 128, 128, 1, "half"), aj.AlignmentError, "LoadAlign")
