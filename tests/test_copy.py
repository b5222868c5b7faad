"""Copy (UB -> UB through the vector unit): the devkit pages "Copy（UBToUB掩码式高维数据搬运）" and
"Copy（UBToUB连续数据搬运）" (the SPECs are silent; docs/decisions.md "Copy"). The page's three printed scenarios on
every device offering the mask forms, whole-UB property tests of kernel against reference, NaN payloads and every
other bit pattern kept, the counter-mode block walk, the mask register, the sanitizer, refusals."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.api import elementwise as E
from ascend_jit.reference import elementwise as R
from ascend_jit.reference import model as ref_model
from ascend_jit.reference import numerics as ref

ROW = E.COPY
MASK_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")  # the page's 产品支持情况 (Kirin ignored)
P = aj.CopyRepeatParams


def _state(core):
    return core.ub.copy(), core.mask_high, core.mask_low, core.mask_defined, core.ctrl


def _assert_unchanged(core, before):
    after = _state(core)
    assert np.array_equal(after[0], before[0]) and after[1:] == before[1:]


def _high_dim_dtypes(device):
    return [d for d in ROW.dtypes[device] if d not in ROW.count_only.get(device, ())]


# --- the page's 调用示例 (int32 elements), every device offering the mask forms ----------------------------------------
def _rows_18x64(core):
    src = core.local_tensor("int32", 1152)
    dst = core.local_tensor("int32", 144)
    src[:] = np.arange(1152, dtype=np.int32) * 3 - 1000
    dst[:] = np.full(144, -7, np.int32)
    return dst, src, (src.numpy().reshape(18, 64)[:, :8]).reshape(-1)


@pytest.mark.parametrize("device", MASK_DEVICES)
def test_page_scenario_1_whole_512_elements(device):
    core = aj.Core(device)
    src, dst = core.local_tensor("int32", 512), core.local_tensor("int32", 512)
    src[:] = np.arange(512, dtype=np.int32) - 256
    aj.Copy(dst, src, 64, 8, P(1, 1, 8, 8))
    np.testing.assert_array_equal(dst.numpy(), src.numpy())


@pytest.mark.parametrize("device", MASK_DEVICES)
def test_page_scenario_2_eight_of_each_row(device):
    core = aj.Core(device)
    dst, src, want = _rows_18x64(core)
    aj.Copy(dst, src, 8, 18, P(1, 1, 1, 8))
    np.testing.assert_array_equal(dst.numpy(), want)


@pytest.mark.parametrize("device", MASK_DEVICES)
@pytest.mark.parametrize("from_register", [True, False])
def test_page_scenario_3_counter_mode_144_elements_in_one_repeat(device, from_register):
    """SetMaskCount; SetVectorMask(144); Copy(dst, src, MASK_PLACEHOLDER, 1, {1, 8, 8, 8}): one repeat of 144 int32,
    18 DataBlocks 8 blocks apart in src (each row's first block), packed in dst: the page's counter-mode rule (the
    mask counts each repeat's elements, repeat_time counts). The mask argument gives the same count."""
    core = aj.Core(device)
    dst, src, want = _rows_18x64(core)
    core.SetMaskCount()
    if from_register:
        core.SetVectorMask(144)
        aj.Copy(dst, src, aj.MASK_PLACEHOLDER, 1, P(1, 8, 8, 8), is_set_mask=False)
    else:
        aj.Copy(dst, src, 144, 1, P(1, 8, 8, 8))
    core.SetMaskNorm()
    core.ResetMask()
    np.testing.assert_array_equal(dst.numpy(), want)


def test_count_form_page_example_on_the_950_every_dtype():
    """Copy(dstLocal, srcLocal, 512) (the 连续 page, 950 only): every dtype of its 数据类型 the emulator has."""
    core = aj.Core("ascend950")
    rng = np.random.default_rng(7)
    for name in ROW.dtypes["ascend950"]:
        src, dst = core.local_tensor(name, 600), core.local_tensor(name, 600)
        raw = rng.integers(0, 256, 600 * src.dtype.size, dtype=np.uint8)
        core.ub[src.addr:src.addr + raw.size] = raw
        core.ub[dst.addr:dst.addr + raw.size] = 0xA5
        core.ub_written_by_host(src.addr, 2 * raw.size)   # raw UB bytes (src and dst): initialised for the sanitizer
        aj.Copy(dst, src, 512)
        n = 512 * src.dtype.size
        assert bytes(core.ub[dst.addr:dst.addr + n]) == bytes(raw[:n]), name
        assert (core.ub[dst.addr + n:dst.addr + raw.size] == 0xA5).all(), name


# --- bits, never values ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device, form", [("ascend950", "count"), ("ascend950", "high"), ("atlas-a2", "high"),
                                          ("atlas-200i-500-a2", "counter")])
@pytest.mark.parametrize("dtype", ["half", "bfloat16", "int16", "uint16"])
def test_every_16_bit_pattern_is_copied_unchanged(device, form, dtype):
    """All 65536 patterns (NaN payloads, signalling NaNs, -0, subnormals) land bit for bit, whatever the dtype (in
    two halves: the UB holds two tensors of 32768 elements)."""
    core = aj.Core(device)
    src, dst = core.local_tensor(dtype, 32768), core.local_tensor(dtype, 32768)
    if form == "counter":
        core.SetMaskCount()
    for part in range(2):
        core.ub[src.addr:src.addr + 65536].view(np.uint16)[:] = np.arange(32768 * part, 32768 * (part + 1),
                                                                          dtype=np.uint16)[::-1]
        core.ub_written_by_host(src.addr, 65536)   # raw UB bytes: initialised for the sanitizer
        if form == "count":
            aj.Copy(dst, src, 32768)
        elif form == "high":
            for k in range(2):  # repeat_time <= 255: 2 x 128 repeats of 128 lanes
                aj.Copy(dst[16384 * k], src[16384 * k], 128, 128, P(1, 1, 8, 8))
        else:  # two repeats of 16384 elements, 1024 DataBlocks each
            aj.Copy(dst, src, 16384, 2, P(1, 1, 1024, 1024))
        assert bytes(core.ub[dst.addr:dst.addr + 65536]) == bytes(core.ub[src.addr:src.addr + 65536])


_FLOAT_SPECIALS = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FBFFFFF, 0x7FC12345, 0x80000000, 0x00000000,
                   0x00000001, 0x807FFFFF, 0x7F800000, 0xFF800000, 0x7F7FFFFF]


@pytest.mark.parametrize("device", MASK_DEVICES)
@pytest.mark.parametrize("dtype", ["float", "int32", "uint32"])
def test_32_bit_patterns_with_nan_payloads_are_copied_unchanged(device, dtype):
    core = aj.Core(device)
    rng = np.random.default_rng(5)
    bits = np.concatenate([np.array(_FLOAT_SPECIALS, np.uint32), rng.integers(0, 2**32, 4083, dtype=np.uint32)])
    src, dst = core.local_tensor(dtype, 4096), core.local_tensor(dtype, 4096)
    core.ub[src.addr:src.addr + 16384].view(np.uint32)[:] = bits
    core.ub_written_by_host(src.addr, 16384)   # raw UB bytes: initialised for the sanitizer
    aj.Copy(dst, src, 64, 64, P(1, 1, 8, 8))
    assert bytes(core.ub[dst.addr:dst.addr + 16384]) == bits.tobytes()
    if device == "ascend950":
        dst2 = core.local_tensor(dtype, 4096)
        aj.Copy(dst2, src, 4096)
        assert bytes(core.ub[dst2.addr:dst2.addr + 16384]) == bits.tobytes()


# --- whole-UB property tests: kernel against reference ----------------------------------------------------------------
def _random_ub(core, rng):
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)


def _high_dim_case(seed):
    rng = np.random.default_rng(seed)
    device = MASK_DEVICES[rng.integers(len(MASK_DEVICES))]
    dtypes = _high_dim_dtypes(device)
    dtype = dtypes[rng.integers(len(dtypes))]
    core = aj.Core(device, bounds="ub")  # one-element tensors: the strides address past them on purpose
    _random_ub(core, rng)
    size = ref.SIZES[dtype]
    L = 256 // size
    counter = None
    mode = rng.random()
    if mode < 0.3:  # counter mode: the count of each repeat, up to several registers' worth
        core.SetMaskCount()
        mask = counter = int(rng.integers(0, 4 * L))
        lanes = list(range(L))
    elif mode < 0.65:
        mask = int(rng.integers(0, L + 10))
        lanes = ref_model.continuous_lanes(mask, L)
    else:
        lo = int(rng.integers(0, 2**63)) * 2 + int(rng.integers(2))
        hi = int(rng.integers(0, 2**63)) * 2 + int(rng.integers(2)) if L == 128 else 0
        mask = [lo, hi] if L == 128 else [lo]
        lanes = ref_model.lanes_of_mask(lo, hi, L)
    repeat = int(rng.integers(0, 7))
    strides = (int(rng.integers(0 if rng.random() < 0.05 else 1, 4)), int(rng.integers(0, 4)),
               int(rng.integers(0, 20)), int(rng.integers(0, 20)))
    region = core.spec.ub_bytes // 3 // 32 * 32
    dst_addr, src_addr = (int(k) * region for k in rng.permutation(3)[:2])
    overlap = rng.random()
    if overlap < 0.15:
        src_addr = dst_addr                                    # in place: 100% overlap in every repeat
    elif overlap < 0.25:
        src_addr = dst_addr + 32 * int(rng.integers(1, 16))    # partial: refused unless no byte is shared
    dst, src = core.local_tensor(dtype, 1, addr=dst_addr), core.local_tensor(dtype, 1, addr=src_addr)
    core.ub_written_by_host()   # the random UB bytes (the tensors made them undefined): initialised for the sanitizer
    register = rng.random() < 0.2
    if register:
        if counter is not None:
            core.SetVectorMask(counter)
        elif isinstance(mask, list):
            core.SetVectorMask(mask[1] if L == 128 else 0, mask[0])
        else:
            core.SetVectorMask(mask)
    before = _state(core)
    try:
        if register:
            aj.Copy(dst, src, aj.MASK_PLACEHOLDER, repeat, P(*strides), is_set_mask=False)
        else:
            aj.Copy(dst, src, mask, repeat, P(*strides))
    except aj.AscendJitError:
        _assert_unchanged(core, before)
        return None, None
    expected = before[0]
    if counter is not None:
        R.copy_high_dim(expected, dtype, dst_addr, src_addr, None, repeat, strides[0], strides[1], strides[2],
                        strides[3], counter=counter)
    else:
        R.copy_high_dim(expected, dtype, dst_addr, src_addr, lanes, repeat, *strides)
    return core.ub, expected


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync", reason="one-element tensors on a bounds=\"ub\" core: the "
                             "strides address past them on purpose, which the memory check reports")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_high_dim_forms_match_the_reference_over_the_whole_ub(seed):
    got, expected = _high_dim_case(seed)
    if got is not None:
        assert np.array_equal(got, expected)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), in_place=st.booleans())
def test_count_form_matches_the_reference_over_the_whole_ub(seed, in_place):
    rng = np.random.default_rng(seed)
    core = aj.Core("ascend950")
    _random_ub(core, rng)
    names = ROW.dtypes["ascend950"]
    dtype = names[rng.integers(len(names))]
    count = int(rng.integers(0, 700))
    dst_addr = 32 * int(rng.integers(0, 2000))
    src_addr = dst_addr if in_place else 100000 + 32 * int(rng.integers(0, 2000))
    dst = core.local_tensor(dtype, max(count, 1), addr=dst_addr)
    src = core.local_tensor(dtype, max(count, 1), addr=src_addr)
    core.ub_written_by_host()   # the random UB bytes (the tensors made them undefined): initialised for the sanitizer
    expected = core.ub.copy()
    aj.Copy(dst, src, count)
    R.copy_count(expected, dtype, dst_addr, src_addr, count)
    assert np.array_equal(core.ub, expected)


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync", reason="one-element tensors on a bounds=\"ub\" core: the "
                             "repeats address past them on purpose, which the memory check reports")
def test_counter_mode_repeats_that_overlap_land_in_repeat_order():
    """dstRepeatSize 1 with 18-block repeats: every dst block is written by several repeats; the last one wins, as
    the device's in-order repeats leave it (and as the reference's walk)."""
    core = aj.Core("atlas-a2", bounds="ub")
    rng = np.random.default_rng(3)
    _random_ub(core, rng)
    dst, src = core.local_tensor("float", 1, addr=0), core.local_tensor("float", 1, addr=65536)
    core.ub_written_by_host()   # the random UB bytes (the tensors made them undefined): initialised for the sanitizer
    expected = core.ub.copy()
    core.SetMaskCount()
    aj.Copy(dst, src, 140, 5, P(1, 2, 1, 3))
    R.copy_high_dim(expected, "float", 0, 65536, None, 5, 1, 2, 1, 3, counter=140)
    assert np.array_equal(core.ub, expected)


# --- the mask register (SPEC-2 D31 as the other high-dim element-wise calls) ---------------------------------------
@pytest.mark.parametrize("device", MASK_DEVICES)
def test_mask_register_after_copy(device):
    core = aj.Core(device)
    src, dst = core.local_tensor("half", 256), core.local_tensor("half", 256)
    src[:] = np.ones(256, np.float16)   # the values do not matter here; a kernel writes what it copies
    core.SetVectorMask(0, 0x3)
    aj.Copy(dst, src, 5, 1, P(1, 1, 8, 8))                         # continuous
    continuous = (core.mask_high, core.mask_low)
    aj.Copy(dst, src, [0xF0, 1], 1, P(1, 1, 8, 8))                 # bit mode
    bits = (core.mask_high, core.mask_low)
    core.SetMaskCount()
    aj.Copy(dst, src, 100, 1, P(1, 1, 8, 8))                       # counter mode: the count of the repeat
    assert (core.mask_high, core.mask_low) == ((1, 0xF0) if device == "ascend950" else
                                               (0, 0x3) if device == "atlas-200i-500-a2" else (0, 100))
    aj.Copy(dst, src, 200, 1, P(1, 1, 8, 8))                       # more than one register's lanes
    counter = (core.mask_high, core.mask_low)
    if device == "atlas-200i-500-a2":   # D31: the 310B's register is untouched by the new high-dim calls
        assert continuous == bits == counter == (0, 0x3)
    elif device == "ascend950":         # D22: bit-mask calls overwrite it, continuous (and counter) calls do not
        assert continuous == (0, 0x3) and bits == counter == (1, 0xF0)
    else:
        assert continuous == (0, 0x1F) and bits == (1, 0xF0) and counter == (0, 200)


def test_counter_mode_count_zero_and_repeat_zero_write_nothing():
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("half", 512), core.local_tensor("half", 512)
    src[:] = np.ones(512, np.float16)
    before = core.ub.copy()
    aj.Copy(dst, src, 64, 0, P(1, 1, 8, 8))       # repeat 0: SPEC-2 D30 (the page's "not guaranteed NOP" resolved)
    core.SetMaskCount()
    aj.Copy(dst, src, 0, 3, P(1, 1, 8, 8))
    aj.Copy(dst, src, 300, 0, P(1, 1, 8, 8))
    assert np.array_equal(core.ub, before)


# --- the sanitizer: PIPE_V, exactly the bytes of the active lanes (SPEC-2 10.4) -------------------------------------
def test_sanitizer_sees_the_counter_mode_block_walk():
    with aj.Core("atlas-a2", sanitize="report") as core:
        dst, src, _ = _rows_18x64(core)
        core.ub_written_by_host(src.addr, 1152 * 4)
        core.SetMaskCount()
        aj.Copy(dst, src, 144, 1, P(1, 8, 8, 8))
        assert core.sanitizer.reports == []
        fresh = core.local_tensor("int32", 1152)
        aj.Copy(dst, fresh, 144, 1, P(1, 8, 8, 8))
    [report] = core.sanitizer.reports
    assert (report.check, report.instruction.api, report.instruction.pipe) == ("init", "Copy", "PIPE_V")
    assert (report.address, report.nbytes) == (fresh.addr, 32 * 18)    # the 18 blocks read, not the rows between


# --- refusals: nothing written, mask register and CTRL unchanged ---------------------------------------------------
def _refusal(device, call, error, match, counter=False):
    core = aj.Core(device)
    tensors = {name: core.local_tensor(dtype, 1024) for name, dtype in
               (("d16", "half"), ("s16", "half"), ("d8", "int8"), ("s8", "int8"), ("d32", "float"),
                ("i32", "int32"))}
    tensors["s16"][:] = np.ones(1024, np.float16)
    if counter:
        core.SetMaskCount()
    before = _state(core)
    with pytest.raises(error, match=match) as info:
        call(core, tensors)
    _assert_unchanged(core, before)
    assert "Copy" in str(info.value) and device in str(info.value)


REFUSALS = [
    ("atlas-a2", lambda c, t: aj.Copy(t["d16"], t["s16"], 128), aj.UnsupportedDeviceError, "count form"),
    ("atlas-inference-aicore", lambda c, t: aj.Copy(t["d16"], t["s16"], 128, 1, P(1, 1, 8, 8)),
     aj.UnsupportedDeviceError, "does not offer"),
    ("atlas-training", lambda c, t: aj.Copy(t["d16"], t["s16"], 128), aj.UnsupportedDeviceError, "does not offer"),
    ("atlas-a2", lambda c, t: aj.Copy(t["d8"], t["s8"], 128, 1, P(1, 1, 8, 8)), aj.UnsupportedDTypeError, "int8"),
    ("ascend950", lambda c, t: aj.Copy(t["d8"], t["s8"], 128, 1, P(1, 1, 8, 8)), aj.UnsupportedDTypeError,
     "count form"),
    ("atlas-a2", lambda c, t: aj.Copy(t["d32"], t["i32"], 64, 1, P(1, 1, 8, 8)), aj.UnsupportedDTypeError, "int32"),
    ("atlas-a2", lambda c, t: aj.Copy(t["d16"], t["s16"], 128, 256, P(1, 1, 8, 8)), aj.ParameterError,
     "repeat_time"),
    ("atlas-a2", lambda c, t: aj.Copy(t["d16"], t["s16"], 128, 1, P(0, 1, 8, 8)), aj.ParameterError, "dstStride"),
    ("atlas-a2", lambda c, t: aj.Copy(t["d16"], t["s16"], 128, 1, P(1, 65536, 8, 8)), aj.ParameterError,
     "srcStride"),
    ("atlas-a2", lambda c, t: aj.Copy(t["d16"], t["s16"], 128, 1, P(1, 1, 4096, 8)), aj.ParameterError,
     "dstRepeatSize"),
    ("atlas-a2", lambda c, t: aj.Copy(t["d16"], t["s16"], 128, 1, P(1, 1, 8, -1)), aj.ParameterError,
     "srcRepeatSize"),
    ("atlas-a2", lambda c, t: aj.Copy(t["d16"][8], t["s16"], 64, 1, P(1, 1, 8, 8)), aj.AlignmentError, "dst"),
    ("ascend950", lambda c, t: aj.Copy(t["d16"], t["s16"][1], 64), aj.AlignmentError, "src"),
    ("atlas-a2", lambda c, t: aj.Copy(t["d16"], t["d16"][16], 128, 2, P(1, 1, 8, 8)), aj.OverlapError, "dst/src"),
    ("ascend950", lambda c, t: aj.Copy(t["d16"], t["d16"][16], 128), aj.OverlapError, "dst/src"),
    ("ascend950", lambda c, t: aj.Copy(t["d16"], t["s16"], 0, 1, P(1, 1, 8, 8)), aj.ParameterError, "mask"),
    ("atlas-a2", lambda c, t: aj.Copy(t["d16"], t["s16"], 128, 9, P(1, 1, 8, 8)), aj.OutOfBoundsError, "dst"),
    ("atlas-a2", lambda c, t: aj.Copy(t["d16"], t["s16"], 128, 2, P(1, 1, 8, 4095)), aj.OutOfBoundsError, "src"),
    ("ascend950", lambda c, t: aj.Copy(t["d16"], t["s16"], 1025), aj.OutOfBoundsError, "count"),
    ("atlas-a2", lambda c, t: aj.Copy(t["d16"], t["s16"], 64, 1, (1, 1, 8)), aj.ParameterError, "repeat_params"),
]


@pytest.mark.parametrize("device, call, error, match", REFUSALS)
def test_refusals_leave_everything_unchanged(device, call, error, match):
    _refusal(device, call, error, match)


@pytest.mark.parametrize("call, match", [
    (lambda c, t: aj.Copy(t["d16"], t["s16"], 1025, 1, P(1, 1, 8, 8)), "dst"),             # 1025 halves past dst
    (lambda c, t: aj.Copy(t["d16"], t["s16"], 200, 2, P(1, 1, 60, 8)), "dst"),              # repeat 1 past dst
    (lambda c, t: aj.Copy(t["d16"], t["d16"][128], 300, 1, P(1, 1, 8, 8)), "dst/src"),      # partial, one repeat
    (lambda c, t: aj.Copy(t["d16"], t["s16"], 200, 2, P(0, 1, 8, 8)), "dstStride"),
])
def test_counter_mode_refusals_leave_everything_unchanged(call, match):
    _refusal("atlas-a2", call, (aj.OutOfBoundsError, aj.OverlapError, aj.ParameterError), match, counter=True)


def test_copy_repeat_params_follow_the_devkit_header():
    assert aj.CopyRepeatParams() == aj.CopyRepeatParams(0, 0, 8, 8)   # DEFAULT_DATA_COPY_STRIDE, DEFAULT_REPEAT_STRIDE
    p = aj.CopyRepeatParams()
    p.dstStride, p.srcStride = 1, 1
    core = aj.Core("atlas-a3")
    src, dst = core.local_tensor("uint16", 128), core.local_tensor("uint16", 128)
    src[:] = np.arange(128, dtype=np.uint16)
    aj.Copy(dst, src, mask=128, repeat_time=1, repeat_params=p)
    np.testing.assert_array_equal(dst.numpy(), src.numpy())
    dst[:] = np.zeros(128, np.uint16)
    aj.Copy(dst, src, 32, 2, (1, 1, 2, 4))                          # the C++ brace list {1, 1, 2, 4}
    np.testing.assert_array_equal(dst.numpy(), np.r_[src.numpy()[:32], src.numpy()[64:96], np.zeros(64, np.uint16)])


def test_count_form_keywords_and_its_ineffective_is_set_mask():
    """The 950 count page: Copy<T, isSetMask>(dst, src, count), "isSetMask参数不生效": accepted (a flag), ignored."""
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("half", 256), core.local_tensor("half", 256)
    src[:] = np.arange(256, dtype=np.float16)
    core.SetVectorMask(0, 1)
    aj.Copy(dst, src, count=200, is_set_mask=False)
    np.testing.assert_array_equal(dst.numpy()[:200], src.numpy()[:200])
    assert (core.mask_high, core.mask_low) == (0, 1)
    with pytest.raises(aj.ParameterError, match="is_set_mask"):
        aj.Copy(dst, src, 200, is_set_mask="yes")
    assert aj.fidelity("Copy", "atlas-a2", "half") is aj.Fidelity.BIT_EXACT
    assert ("Copy", "atlas-inference-aicore") not in aj.FIDELITY


def test_a_datacopy_of_two_element_sizes_names_each_side_and_the_globaltensors_dtype():
    """port53g: "'dtype' = ('float', 'half') (legal: src and dst of the same size)" said neither which side was which
    nor that a GlobalTensor takes its host array's dtype unless given one."""
    def kernel(x):
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x)
        pipe, que = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(que, 1, 256)
        tile = que.AllocTensor("half")
        with pytest.raises(aj.ParameterError, match=r"'dtype' = 'src float, dst half' a GlobalTensor's dtype is the "
                                                    r"one it was given \(GlobalTensor\(\"half\"\)"):
            aj.DataCopy(tile, g, 64)
        que.FreeTensor(tile)
    aj.launch(kernel, 1, "atlas-a2", np.zeros(64, np.float32))
