"""ArithProgression / Arange (devkit 高阶API/索引计算/Arange-94.md and its implementations' order of operations; the
SPECs are silent; docs/decisions.md "ArithProgression"): the devkit sample's data, whole-UB property tests against
the reference model on every device, dtype and overflow mode, the mask register each path leaves, the DataBlock
footprint, the sanitizer, refusals."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.api.arith_progression import DTYPES
from ascend_jit.reference import arith_progression as R
from ascend_jit.reference import model as ref_model
from ascend_jit.reference import numerics as ref
from conftest import set_int_sat, set_sat_mode

DEVICES = tuple(DTYPES)


def _state(core):
    return core.ub.copy(), core.mask_high, core.mask_low, core.mask_defined, core.ctrl


def _unchanged(core, before):
    after = _state(core)
    assert np.array_equal(after[0], before[0]) and after[1:] == before[1:]


def _value(dtype, v):
    return float(v) if ref.is_float(dtype) else int(v)


def _expected_ub(core, before, dtype, addr, first, diff, count):
    env = R.Env(core.spec.name, core.half_saturating, core.int_saturating)
    values = R.arith_progression(dtype, env, _value(dtype, first), _value(dtype, diff), count)
    for k, v in enumerate(values):
        ref_model.write(before, dtype, addr + k * ref.SIZES[dtype], v)
    return before, len(values)


# --- the devkit sample (examples/01_simd_cpp_api/04_advanced_api/06_index/arange) ------------------------------------
@pytest.mark.parametrize("device", ["ascend950", "atlas-a3", "atlas-a2"])
def test_devkit_sample(device):
    """Arange<float>(dst, 1.234f, 5.678f, 104) (gen_data.py: length (100 + 7) // 8 * 8): within float rounding of
    the sample's np.linspace golden, and bit for bit the reference's chain."""
    core = aj.Core(device)
    dst = core.local_tensor("float", 104)
    first, diff = np.float32(1.234), np.float32(5.678)
    before = core.ub.copy()
    aj.Arange(dst, first, diff, 104)
    golden = np.linspace(first, first + diff * np.float32(103), 104, dtype=np.float32)
    np.testing.assert_allclose(dst.numpy(), golden, rtol=1e-6)
    want, _ = _expected_ub(core, before, "float", dst.addr, first, diff, 104)
    assert np.array_equal(core.ub, want)


def test_the_order_of_operations_decides_the_half_bits():
    """half 0.1 + i * 0.3: A2 builds block on block with RN(16 * diff) and repeat on repeat with RN(128 * diff); the
    950 adds RN(128 * diff) to RN(RN(j * diff) + first). Element 127 differs (38.22 against 38.19); each device's
    bits are its reference's."""
    got = {}
    for device in ("atlas-a2", "ascend950"):
        core = aj.Core(device)
        dst = core.local_tensor("half", 1024)
        before = core.ub.copy()
        aj.ArithProgression(dst, 0.1, 0.3, 1000)
        want, _ = _expected_ub(core, before, "half", dst.addr, np.float16(0.1), np.float16(0.3), 1000)
        assert np.array_equal(core.ub, want)
        got[device] = dst.numpy()
    assert got["atlas-a2"][127] == np.float16(38.22) and got["ascend950"][127] == np.float16(38.19)
    assert got["atlas-a2"][128] == got["ascend950"][128]


# --- whole-UB property test ----------------------------------------------------------------------------------------
def _operand(rng, dtype):
    np_type = np.dtype(ref.NP_TYPES[dtype]).type
    if ref.is_float(dtype):
        scale = 10.0 ** int(rng.integers(-4, 5))
        first = np_type(rng.normal() * scale)
        diff = np_type(abs(rng.normal()) * scale) if rng.random() < 0.9 else np_type(np.finfo(np_type).max)
        return first, diff
    info = np.iinfo(np_type)
    first = np_type(rng.integers(info.min, info.max, endpoint=True))
    diff = np_type(rng.integers(0, info.max // 64 if rng.random() < 0.5 else 100, endpoint=True))
    return first, diff


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_matches_reference_over_the_whole_ub(seed):
    """Random device, dtype, count (the scalar-only, block and repeat paths, with and without a tail), operands
    (overflowing half and int16/int32 chains included) and overflow modes: every byte of the UB is the reference's,
    nothing past the footprint written."""
    rng = np.random.default_rng(seed)
    device = DEVICES[rng.integers(len(DEVICES))]
    dtype = DTYPES[device][rng.integers(len(DTYPES[device]))]
    core = aj.Core(device)
    set_sat_mode(core, bool(rng.integers(2)))
    set_int_sat(core, bool(rng.integers(2)))
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    count = int(rng.choice([rng.integers(1, 40), rng.integers(1, 300), rng.integers(1, 5000)]))
    size = ref.SIZES[dtype]
    dst = core.local_tensor(dtype, -(-count * size // 32) * 32 // size, addr=int(rng.integers(0, 64)) * 32)
    first, diff = _operand(rng, dtype)
    before = core.ub.copy()
    with np.errstate(all="ignore"):
        aj.ArithProgression(dst, first, diff, count)
        want, written = _expected_ub(core, before, dtype, dst.addr, first, diff, count)
    assert written == (count if device == "ascend950" or count <= 32 // size else -(-count * size // 32) * 32 // size)
    assert np.array_equal(core.ub, want)


# --- the mask register ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("device", ["atlas-a2", "atlas-inference-aicore", "ascend950"])
def test_mask_register_as_the_implementation_leaves_it(device, dtype):
    """count <= B: untouched (scalar writes only); B < count <= R: SetVectorMask(0, 2**B - 1); count > R with a tail:
    SetVectorMask(tail rounded up to blocks); without one: ResetMask. The 950 (a VF with its own MaskRegs):
    untouched."""
    block, lanes = 32 // ref.SIZES[dtype], 256 // ref.SIZES[dtype]
    ones = 2**64 - 1
    tail = aj.Core(device)
    tail.SetVectorMask(2 * block, dtype=dtype)  # 2 * lanes + block + 1 elements: a tail of two blocks
    cases = [(block, (0, 5)), (block + 1, (0, (1 << block) - 1)), (lanes, (0, (1 << block) - 1)),
             (3 * lanes, (ones, ones)), (2 * lanes + block + 1, (tail.mask_high, tail.mask_low))]
    for count, words in cases:
        core = aj.Core(device)
        core.SetVectorMask(0, 5)
        dst = core.local_tensor(dtype, 3 * lanes)
        aj.ArithProgression(dst, 1, 1, count)
        assert (core.mask_high, core.mask_low) == ((0, 5) if device == "ascend950" else words), count


# --- the footprint: whole DataBlocks off the 950 ---------------------------------------------------------------------
def test_adds_write_whole_data_blocks_off_the_950():
    """count 100 half (> 16): the device's Adds write ceil(100 / 16) * 16 = 112 elements, the last DataBlock's padding
    included; the 950 writes exactly 100. A TQue buffer of 200 bytes holds 224 and its tensor's GetSize() is 112
    (docs/decisions.md "Buffer lengths"), so the 112 land inside it; a tensor of exactly 100 halves is refused off the
    950 under the tensor bounds rule (issue 11, as DataCopyPad's dummy bytes), nothing written, and a bounds="ub" core
    takes the 112. The sanitizer sees the 112 written (a later read of them is initialised)."""
    for device, written, bounds, queued in (("atlas-a2", 112, "tensor", True), ("atlas-a2", 112, "ub", False),
                                            ("ascend950", 100, "tensor", True)):
        with aj.Core(device, bounds=bounds, sanitize="report") as core:
            if queued:
                pipe, que = aj.TPipe(), aj.TQue(aj.TPosition.VECOUT, 1)
                pipe.InitBuffer(que, 1, 200)
                dst = que.AllocTensor("half")
            else:
                dst = core.local_tensor("half", 100)
            core.ub[dst.addr:dst.addr + 256] = 0xFF
            aj.ArithProgression(dst, 0, 1, 100)
            values = core.ub[dst.addr:dst.addr + 256].view(np.float16)
            np.testing.assert_array_equal(values[:written], np.arange(written, dtype=np.float16))
            assert (core.ub[dst.addr + 2 * written:dst.addr + 256].view(np.uint16) == 0xFFFF).all()
        # the escape hatch's writes past the tensor are the memory check's to report, by design
        assert [r.check for r in core.sanitizer.reports] == (["memory"] if bounds == "ub" else [])
    with aj.Core("atlas-a2") as core:
        dst = core.local_tensor("half", 100)
        before = core.ub.copy()
        with pytest.raises(aj.OutOfBoundsError, match="whole 32-byte DataBlocks"):
            aj.ArithProgression(dst, 0, 1, 100)
        assert np.array_equal(core.ub, before)


# --- the sanitizer ----------------------------------------------------------------------------------------------------
def test_sanitizer_sees_one_write_of_the_footprint():
    """One access per call: a PIPE_V write of the footprint (a vector reader needs no sync, a scalar one does), or,
    when count <= B off the 950, a PIPE_S write (GetValue after it needs none)."""
    with aj.Core("atlas-a2", sanitize="report") as core:
        dst, other = core.local_tensor("float", 64), core.local_tensor("float", 64)
        aj.ArithProgression(dst, 0.5, 0.25, 64)
        aj.Adds(other, dst, 1.0, 64)
        assert core.sanitizer.reports == []
        dst.GetValue(63)  # S reads what V wrote, no V->S flag: a race
        assert [r.instruction.api for r in core.sanitizer.reports] == ["GetValue"]
    with aj.Core("atlas-a2", sanitize="report") as core:
        dst = core.local_tensor("int32", 8)
        aj.ArithProgression(dst, 3, 4, 8)
        assert dst.GetValue(7) == 31
    assert core.sanitizer.reports == []


# --- refusals: nothing written ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", ["atlas-200i-500-a2", "atlas-training"])
def test_not_offered(device):
    core = aj.Core(device)
    dst = core.local_tensor("float", 64)
    before = _state(core)
    with pytest.raises(aj.UnsupportedDeviceError, match=f"ArithProgression.*{device}"):
        aj.ArithProgression(dst, 1.0, 1.0, 64)
    _unchanged(core, before)


@pytest.mark.parametrize("args,error,match", [
    (("uint16", 1, 1, 64), aj.UnsupportedDTypeError, "dtype.*uint16"),
    (("bfloat16", 1.0, 1.0, 64), aj.UnsupportedDTypeError, "dtype.*bfloat16"),
    (("float", 1.0, 1.0, 0), aj.ParameterError, "count"),
    (("float", 1.0, 1.0, -5), aj.ParameterError, "count"),
    (("float", 1.0, 1.0, 65), aj.OutOfBoundsError, "count"),
    (("float", 1.0, -1.0, 64), aj.ParameterError, "diff_value"),
    (("float", 1.0, float("nan"), 64), aj.ParameterError, "diff_value"),
    (("int32", 1.5, 1, 64), aj.ParameterError, "first_value"),
    (("int16", 1, 40000, 64), aj.ParameterError, "diff_value"),
])
def test_refusals(args, error, match):
    dtype, first, diff, count = args
    for device in DEVICES:
        core = aj.Core(device)
        dst = core.local_tensor(dtype, 64)
        before = _state(core)
        with pytest.raises(error, match=f"ArithProgression.*{match}.*{device}"):
            aj.ArithProgression(dst, first, diff, count)
        _unchanged(core, before)


def test_counter_mode_is_refused_where_the_implementation_sets_lane_masks():
    core = aj.Core("atlas-a2")
    dst = core.local_tensor("half", 256)
    core.SetMaskCount()
    before = _state(core)
    with pytest.raises(aj.StateError, match="ArithProgression.*counter"):
        aj.ArithProgression(dst, 0, 1, 256)
    _unchanged(core, before)
    aj.ArithProgression(dst, 0, 1, 16)  # the scalar path sets no mask
    core = aj.Core("ascend950")
    dst = core.local_tensor("half", 256)
    core.SetMaskCount()
    aj.ArithProgression(dst, 0, 1, 256)  # the 950's VF uses its own MaskRegs
    np.testing.assert_array_equal(dst.numpy(), np.arange(256, dtype=np.float16))
