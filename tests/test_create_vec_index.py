"""CreateVecIndex (devkit 基础API/Memory矢量计算/数据填充/CreateVecIndex.md and its implementations' order of
operations; the SPECs are silent; docs/decisions.md "CreateVecIndex"): the page's example, every count up to past two
repeats against the reference model on every device and dtype (the whole UB: exactly count elements written), the
order of the half additions, the 310P's float path for int32, the sanitizer's view, counter mode, refusals."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.api.create_vec_index import DTYPES
from ascend_jit.reference import create_vec_index as R
from ascend_jit.reference import model as ref_model
from ascend_jit.reference import numerics as ref
from ascend_jit.reference.elementwise import Env
from conftest import set_int_sat, set_sat_mode

CASES = [(d, t) for d, ts in DTYPES.items() for t in ts]


def _state(core):
    return core.ub.copy(), core.mask_high, core.mask_low, core.mask_defined, core.ctrl


def _unchanged(core, before):
    after = _state(core)
    assert np.array_equal(after[0], before[0]) and after[1:] == before[1:]


def _reference(core, dtype, first, count):
    env = Env(core.spec.name, core.half_saturating, core.int_saturating)
    return R.create_vec_index(dtype, env, float(first) if ref.is_float(dtype) else int(first), count)


def _expected_ub(before, dtype, addr, values):
    want = before.copy()
    for k, v in enumerate(values):
        ref_model.write(want, dtype, addr + k * ref.SIZES[dtype], v)
    return want


# --- the page's example ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", list(DTYPES))
def test_devkit_example(device):
    """CreateVecIndex(dstLocal, (int16_t)0, 128): [0 1 2 ... 127] (the page's 结果示例), on every device offering it."""
    core = aj.Core(device)
    dst = core.local_tensor("int16", 128)
    aj.CreateVecIndex(dst, np.int16(0), 128)
    assert np.array_equal(dst.numpy(), np.arange(128, dtype=np.int16))


# --- every count against the reference, the whole UB ----------------------------------------------------------------
@pytest.mark.parametrize("device,dtype", CASES, ids=[f"{d}-{t}" for d, t in CASES])
def test_every_count_matches_the_reference_and_writes_exactly_count_elements(device, dtype):
    """Every count from 0 to two repeats and a block and a half past them (the scalar block, the block Adds with
    their partial tail, whole repeats, the tail repeat; on the register devices one to three registers), dst at an
    offset inside a filled UB: the elements [0, count) are the reference's (an element's value does not depend on
    count: the reference is run once) and no other byte changes. Two first values per dtype: one where every value
    is exact, one where half / float round (the order of the additions decides the bits)."""
    size = ref.SIZES[dtype]
    repeat, block = 256 // size, 32 // size
    top = 2 * repeat + block + block // 2 + 1
    firsts = {"half": (-37.0, 1000.7), "float": (-37.0, 16777000.5), "int8": (-100, 77),
              "int16": (-37, 32700), "int32": (-37, 2**31 - 100), "int64": (-37, 2**63 - 100)}[dtype]
    for first in firsts:
        core = aj.Core(device)
        core.ub[:] = np.random.default_rng(13).integers(0, 256, core.ub.size, dtype=np.uint8)
        dst = core.local_tensor(dtype, top + block)
        value = np.dtype(dst.dtype.np_dtype).type(first)
        values = _reference(core, dtype, value, top)
        for count in range(top + 1):
            before = core.ub.copy()
            aj.CreateVecIndex(dst, value, count)
            assert np.array_equal(core.ub, _expected_ub(before, dtype, dst.addr, values[:count])), (first, count)


@pytest.mark.parametrize("device,dtype", [(d, t) for d, t in CASES if t in ("int16", "int32", "half")])
def test_overflow_modes(device, dtype):
    """Past T's top under each overflow mode the device can be put in: the Adds stages saturate or wrap as aj.Adds
    does (D35) and the reference's lanes do."""
    for saturating in (False, True):
        core = aj.Core(device)
        if not (set_sat_mode(core, saturating) if dtype == "half" else set_int_sat(core, saturating)):
            continue
        first = {"half": 65000.0, "int16": 32700, "int32": 2**31 - 300}[dtype]
        dst = core.local_tensor(dtype, 600)
        value = np.dtype(dst.dtype.np_dtype).type(first)
        before = core.ub.copy()
        aj.CreateVecIndex(dst, value, 600)
        assert np.array_equal(core.ub, _expected_ub(before, dtype, dst.addr, _reference(core, dtype, value, 600)))


def test_the_order_of_the_additions_decides_the_half_bits():
    """half from 0.3 (0.2998..., 11 bits): the A2 adds +16 per block to the scalar unit's RN(first + i) and +128 per
    repeat; the 950 adds +128 per register to RN(first + j). Each addition rounds, so the values are not np.arange
    rounded once: 512 of 2048 differ (the repeated adds carry an earlier rounding). Each device's bits are its
    reference's; the first block (one rounding each) is np.arange's."""
    first = np.float16(0.3)
    once = (float(first) + np.arange(2048)).astype(np.float16)
    for device in ("atlas-a2", "ascend950"):
        core = aj.Core(device)
        dst = core.local_tensor("half", 2048)
        aj.CreateVecIndex(dst, first, 2048)
        got = dst.numpy()
        assert np.array_equal(got.astype(np.float64), _reference(core, "half", first, 2048))
        assert np.count_nonzero(got != once) == 512 and np.array_equal(got[:16], once[:16])


def test_310p_int32_goes_through_float():
    """dav_m200 SetValue(i, float(first) + float(i)): past 2**24 the first block is float32-rounded (2**24 + 1 + i
    becomes even), the Adds after it are exact; the A2 (dav_c220, int64) is exact. Past int32's range after the
    rounding the C++ conversion is undefined: refused, nothing written."""
    first = 2**24 + 1
    out = {}
    for device in ("atlas-inference-aicore", "atlas-a2"):
        core = aj.Core(device)
        dst = core.local_tensor("int32", 64)
        aj.CreateVecIndex(dst, first, 64)
        out[device] = dst.numpy().copy()
        assert list(out[device]) == _reference(core, "int32", first, 64)
    assert np.array_equal(out["atlas-a2"], first + np.arange(64))
    assert out["atlas-inference-aicore"][0] == 2**24 and out["atlas-inference-aicore"][8] == 2**24 + 8
    core = aj.Core("atlas-inference-aicore")
    dst = core.local_tensor("int32", 64)
    before = _state(core)
    with pytest.raises(aj.ParameterError, match="CreateVecIndex.*first_value.*atlas-inference-aicore"):
        aj.CreateVecIndex(dst, 2**31 - 10, 8)
    _unchanged(core, before)


def test_counter_mode_gives_the_same_values():
    """Off the register devices the implementation's Adds are high-dim calls with one repeat; in counter mode their
    mask is read as the element count, which is the same lanes: the values are those of normal mode."""
    core = aj.Core("atlas-a2")
    core.SetMaskCount()
    dst = core.local_tensor("float", 256)
    aj.CreateVecIndex(dst, 0.5, 200)
    assert np.array_equal(dst.numpy()[:200], 0.5 + np.arange(200, dtype=np.float32))


# --- the sanitizer ----------------------------------------------------------------------------------------------------
def test_sanitizer_sees_the_scalar_block_and_the_vector_adds():
    """A2: the first DataBlock is the scalar unit's (PIPE_S), the rest the vector unit's; the implementation's own
    S_V flag orders its block before its Adds and a vector reader after the call. It has no V_S before: a vector
    write of dst just before it is a WAW race the kernel must order (SetFlag/WaitFlag V_S)."""
    with aj.Core("atlas-a2", sanitize="report") as core:
        dst, other = core.local_tensor("float", 128), core.local_tensor("float", 128)
        aj.CreateVecIndex(dst, 0.0, 100)
        aj.Adds(other, dst, 1.0, 100)
        assert core.sanitizer.reports == []
        dst.GetValue(99)   # S reads what V wrote, no V->S flag
        assert [r.instruction.api for r in core.sanitizer.reports] == ["GetValue"]
    with aj.Core("atlas-a2", sanitize="report") as core:
        dst = core.local_tensor("float", 128)
        aj.Duplicate(dst, 0.0, 128)
        aj.CreateVecIndex(dst, 0.0, 100)
        assert [(r.instruction.api, r.kind) for r in core.sanitizer.reports] == [("CreateVecIndex", "WAW")]
    with aj.Core("atlas-a2", sanitize="report") as core:
        dst = core.local_tensor("float", 128)
        aj.Duplicate(dst, 0.0, 128)
        aj.SetFlag(0, event=aj.HardEvent.V_S)
        aj.WaitFlag(0, event=aj.HardEvent.V_S)
        aj.CreateVecIndex(dst, 0.0, 100)
        assert dst.GetValue(7) == 7.0   # the scalar block: S after S
        assert core.sanitizer.reports == []


def test_sanitizer_on_the_register_devices_sees_a_vector_write():
    """950 / 310B: a VF (or vector-register loop) only: after a Duplicate nothing to order; a scalar read after it
    needs V_S."""
    for device in ("ascend950", "atlas-200i-500-a2"):
        with aj.Core(device, sanitize="report") as core:
            dst = core.local_tensor("half", 256)
            aj.Duplicate(dst, 0.0, 256)
            aj.CreateVecIndex(dst, 0.0, 200)
            assert core.sanitizer.reports == []
            dst.GetValue(3)
            assert [r.instruction.api for r in core.sanitizer.reports] == ["GetValue"]


# --- refusals: nothing written ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", ["atlas-training"])
def test_not_offered(device):
    core = aj.Core(device)
    dst = core.local_tensor("float", 64)
    before = _state(core)
    with pytest.raises(aj.UnsupportedDeviceError, match=f"CreateVecIndex.*{device}"):
        aj.CreateVecIndex(dst, 1.0, 64)
    _unchanged(core, before)


@pytest.mark.parametrize("args,error,match", [
    (("float", 1.0, -1), aj.ParameterError, "count"),
    (("float", 1.0, 2**32), aj.ParameterError, "count"),
    (("float", 1.0, 65), aj.OutOfBoundsError, "count"),
    (("int32", 1.5, 8), aj.ParameterError, "first_value"),
    (("int16", 40000, 8), aj.ParameterError, "first_value"),
    (("uint16", 1, 8), aj.UnsupportedDTypeError, "dtype.*uint16"),
])
def test_refusals(args, error, match):
    dtype, first, count = args
    for device in DTYPES:
        core = aj.Core(device)
        dst = core.local_tensor(dtype, 64)
        before = _state(core)
        with pytest.raises(error, match=f"CreateVecIndex.*{match}.*{device}"):
            aj.CreateVecIndex(dst, first, count)
        _unchanged(core, before)


def test_unaligned_dst_is_refused():
    core = aj.Core("atlas-a2")
    dst = core.local_tensor("float", 64)[1:]
    before = _state(core)
    with pytest.raises(aj.AlignmentError, match="CreateVecIndex.*dst.*atlas-a2"):
        aj.CreateVecIndex(dst, 1.0, 8)
    _unchanged(core, before)


def test_count_zero_is_a_nop_everywhere():
    """SPEC-2 D30 (which settles the 950 page's 不保证NOP): nothing written, the mask register untouched."""
    for device in DTYPES:
        core = aj.Core(device)
        dst = core.local_tensor("float", 64)
        before = _state(core)
        aj.CreateVecIndex(dst, 1.0, 0)
        _unchanged(core, before)
