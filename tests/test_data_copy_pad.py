"""DataCopyPad and SetPadValue (SPEC-2 9.1, 12.5, D56): doc vectors, whole-UB / whole-GM property tests against the
reference in both directions, per-device availability, refusals."""
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.reference import movement as ref

OFFERING = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
SIZE = {"half": 2, "float": 4, "bfloat16": 2, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4,
        "uint32": 4, "int64": 8, "uint64": 8}


@pytest.mark.parametrize("device", ["ascend950", "atlas-a3", "atlas-a2"])
def test_d1_set_pad_value(device):
    core = aj.Core(device)
    with core:
        gm = aj.GlobalTensor(np.arange(1, 41, dtype=np.float16))
        ub = core.local_tensor("half", 64)
        ub[:] = np.full(64, 9, np.float16)
        aj.SetPadValue(1.0, "half")
        aj.DataCopyPad(ub, gm, aj.DataCopyExtParams(1, 40, 0, 0, 0), aj.DataCopyPadExtParams(False, 0, 12, 0))
    out = ub.numpy()
    assert np.array_equal(out[:20], np.arange(1, 21, dtype=np.float16))
    assert (out[20:32].view(np.uint16) == 0x3C00).all() and (out[32:] == 9).all()


@pytest.mark.parametrize("device", OFFERING)
def test_d2_rows_with_right_padding_and_d4_back(device):
    core = aj.Core(device)
    data = np.random.default_rng(2).standard_normal(32 * 59).astype(np.float32)
    gm = aj.GlobalTensor(data.copy())
    ub = core.local_tensor("float", 32 * 64)
    aj.DataCopyPad(ub, gm, aj.DataCopyExtParams(32, 236, 0, 0, 0), aj.DataCopyPadExtParams(True, 0, 5, 0))
    rows = ub.numpy().reshape(32, 64)
    assert np.array_equal(rows[:, :59], data.reshape(32, 59)) and (rows[:, 59:].view(np.uint32) == 0).all()
    out = aj.GlobalTensor(np.full(32 * 59 + 7, -1, np.float32))
    core.PipeBarrier(aj.PIPE_ALL)         # the copy-out waits for the copy-in (MTE2 -> MTE3)
    aj.DataCopyPad(out, ub, aj.DataCopyExtParams(32, 236, 0, 0, 0))     # the UB dummy bytes are dropped
    assert np.array_equal(out.numpy()[:32 * 59], data) and (out.numpy()[32 * 59:] == -1).all()


def test_d3_compact_on_the_950():
    core = aj.Core("ascend950")
    data = np.arange(1, 73, dtype=np.float16)
    ub = core.local_tensor("half", 128)
    for mode, used in ((aj.PaddingMode.Compact, 160), (aj.PaddingMode.Normal, 192)):
        ub[:] = np.full(128, 5, np.float16)
        aj.DataCopyPad(ub, aj.GlobalTensor(data), aj.DataCopyExtParams(3, 48, 0, 0, 0),
                       aj.DataCopyPadExtParams(True, 0, 8, 0), mode=mode)
        out = ub.numpy()
        if mode == aj.PaddingMode.Compact:
            assert np.array_equal(out[:72], data) and (out[72:80] == 0).all()
        else:
            assert np.array_equal(out.reshape(-1, 32)[:3, :24], data.reshape(3, 24))
            assert (out.reshape(-1, 32)[:3, 24:] == 0).all()
        assert (out[used // 2:] == 5).all()


@pytest.mark.parametrize("device", OFFERING)
def test_h13_dummy_repeats_the_first_element(device):
    """H-13 (SPEC-2 0.4, 12.9 decision vector): half blockLen 6 B, isPad true, paddingValue 7, no pads -> the dummy
    bytes repeat the first element; on the 950 a UB -> GM Compact copy reads its UB blocks back to back (D56)."""
    core = aj.Core(device)
    ub = core.local_tensor("half", 16)
    gm = aj.GlobalTensor(np.array([3, 4, 5], np.float16))
    aj.DataCopyPad(ub, gm, aj.DataCopyExtParams(1, 6, 0, 0, 0), aj.DataCopyPadExtParams(True, 0, 0, 7))
    assert ub.numpy().tolist() == [3, 4, 5] + [3] * 13
    if device == "ascend950":
        ub[:] = np.arange(16, dtype=np.float16)
        out = aj.GlobalTensor(np.full(8, -1, np.float16))
        core.PipeBarrier(aj.PIPE_ALL)
        aj.DataCopyPad(out, ub, aj.DataCopyExtParams(2, 6, 1, 2, 0), mode=aj.PaddingMode.Compact)
        assert out.numpy().tolist() == [0, 1, 2, -1, 3, 4, 5, -1]    # srcStride ignored, GM gap 2 B as Normal


# --- property tests ---------------------------------------------------------------------------------------------
def _gm_to_ub_whole_ub_matches_reference(device, data):
    core = aj.Core(device)
    dtype = data.draw(st.sampled_from(core.spec.pad_dtypes))
    s = SIZE[dtype]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32)))
    count = data.draw(st.integers(0, 5))
    block_len = s * data.draw(st.integers(0, 100 // s + 3))
    compact = core.spec.pad_stride_950 and data.draw(st.booleans())
    lo_stride = -block_len if core.spec.pad_stride_950 else 0
    src_stride = data.draw(st.integers(lo_stride, 64))
    dst_stride = data.draw(st.integers(0, 3))
    left, right = data.draw(st.integers(0, 32 // s)), data.draw(st.integers(0, 32 // s))
    is_pad = data.draw(st.booleans())
    value = 0 if s == 8 else int(rng.integers(0, 100))
    set_value = core.spec.set_pad_value and data.draw(st.booleans())
    n = (count * (block_len + max(src_stride, 0)) + 64) // s + 1
    gm = aj.GlobalTensor(rng.integers(0, 256, n * s, dtype=np.uint8), dtype=dtype)
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    core.ub_written_by_host()   # raw UB bytes: initialised for the sanitizer
    if set_value:
        core.SetPadValue(3, dtype)
    dst = core.local_tensor(dtype, 4096 // s, addr=32 * data.draw(st.integers(0, 100)))
    want = core.ub.copy()
    pad = None
    if is_pad:
        pad = list(np.array([value]).astype(dst.dtype.np_dtype).view(np.uint8))
    elif set_value:
        pad = list(np.array([3]).astype(dst.dtype.np_dtype).view(np.uint8))
    gm_before = gm.numpy().view(np.uint8).copy()
    params = aj.DataCopyExtParams(count, block_len, src_stride, dst_stride, 0)
    ref.data_copy_pad_gm_to_ub(want, gm_before, s, dst.addr, count if block_len else 0, block_len, src_stride,
                               dst_stride, left, right, pad, compact)
    aj.DataCopyPad(dst, gm, params, aj.DataCopyPadExtParams(is_pad, left, right, value),
                   mode=aj.PaddingMode.Compact if compact else aj.PaddingMode.Normal)
    poison = 0xCD if not is_pad and not set_value and (left or right) else None
    if poison is None:
        assert np.array_equal(core.ub, want)
    else:   # D56 poison bytes are not claimed: compare everything else
        differs = core.ub != want
        assert (core.ub[differs] == poison).all()
    assert np.array_equal(gm.numpy().view(np.uint8), gm_before)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(OFFERING), st.data())
def test_gm_to_ub_whole_ub_matches_reference(device, data):
    _gm_to_ub_whole_ub_matches_reference(device, data)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(OFFERING), st.data())
def test_gm_to_ub_whole_ub_matches_reference_sweep(device, data):
    _gm_to_ub_whole_ub_matches_reference(device, data)


def _ub_to_gm_whole_gm_matches_reference(device, data):
    core = aj.Core(device)
    dtype = data.draw(st.sampled_from(core.spec.pad_dtypes))
    s = SIZE[dtype]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32)))
    count = data.draw(st.integers(0, 5))
    block_len = s * data.draw(st.integers(0, 100 // s + 3))
    compact = core.spec.pad_stride_950 and data.draw(st.booleans())
    src_stride, dst_stride = data.draw(st.integers(0, 3)), data.draw(st.integers(0, 64))
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    core.ub_written_by_host()   # raw UB bytes: initialised for the sanitizer
    src = core.local_tensor(dtype, 4096 // s, addr=32 * data.draw(st.integers(0, 100)))
    n = (count * (block_len + dst_stride) + 64) // s + 1
    gm = aj.GlobalTensor(rng.integers(0, 256, n * s, dtype=np.uint8), dtype=dtype)
    want = gm.numpy().view(np.uint8).copy()
    ub_before = core.ub.copy()
    ref.data_copy_pad_ub_to_gm(want, ub_before, src.addr, count if block_len else 0, block_len, src_stride,
                               dst_stride, compact)
    aj.DataCopyPad(gm, src, aj.DataCopyExtParams(count, block_len, src_stride, dst_stride, 0),
                   mode=aj.PaddingMode.Compact if compact else aj.PaddingMode.Normal)
    assert np.array_equal(gm.numpy().view(np.uint8), want) and np.array_equal(core.ub, ub_before)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(OFFERING), st.data())
def test_ub_to_gm_whole_gm_matches_reference(device, data):
    _ub_to_gm_whole_gm_matches_reference(device, data)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(OFFERING), st.data())
def test_ub_to_gm_whole_gm_matches_reference_sweep(device, data):
    _ub_to_gm_whole_gm_matches_reference(device, data)


# --- availability and refusals ----------------------------------------------------------------------------------
def _refused(core, error, call, *words, gm=None):
    before = core.ub.copy()
    gm_before = None if gm is None else gm.numpy().copy()
    with pytest.raises(error) as info:
        call()
    assert np.array_equal(core.ub, before)
    if gm is not None:
        assert np.array_equal(gm.numpy(), gm_before)
    for w in words:
        assert w in str(info.value)


def test_availability():
    for device in ("atlas-inference-aicore", "atlas-training"):
        core = aj.Core(device)
        ub = core.local_tensor("half", 16)
        gm = aj.GlobalTensor(np.zeros(16, np.float16))
        _refused(core, aj.UnsupportedDeviceError, lambda: aj.DataCopyPad(ub, gm, (1, 32, 0, 0, 0), (False, 0, 0, 0)))
        _refused(core, aj.UnsupportedDeviceError, lambda: aj.DataCopyPad(gm, ub, (1, 32, 0, 0, 0)), gm=gm)
    core = aj.Core("310b")
    with pytest.raises(aj.UnsupportedDeviceError):
        core.SetPadValue(1.0, "half")
    ub = core.local_tensor("half", 16)
    gm = aj.GlobalTensor(np.zeros(16, np.float16))
    _refused(core, aj.UnsupportedDeviceError, lambda: aj.DataCopyPad(ub, gm, (1, 32, 0, 0, 0), (False, 0, 0, 0),
                                                                     mode=aj.PaddingMode.Compact), "950")
    u64 = core.local_tensor("uint64", 4)
    _refused(core, aj.UnsupportedDTypeError, lambda: aj.DataCopyPad(
        u64, aj.GlobalTensor(np.zeros(4, np.uint64)), (1, 32, 0, 0, 0), (False, 0, 0, 0)), "uint64")


def test_refusals():
    core = aj.Core("atlas-a2")
    ub = core.local_tensor("half", 64)
    gm = aj.GlobalTensor(np.arange(64, dtype=np.float16))
    pad = aj.DataCopyPadExtParams(False, 0, 0, 0)
    _refused(core, aj.ParameterError, lambda: aj.DataCopyPad(ub, gm, (1, 33, 0, 0, 0), pad), "blockLen")
    _refused(core, aj.ParameterError, lambda: aj.DataCopyPad(ub, gm, (4096, 2, 0, 0, 0), pad), "blockCount")
    _refused(core, aj.ParameterError, lambda: aj.DataCopyPad(ub, gm, (1, 32, 0, 0, 0), (True, 17, 0, 0)),
             "leftPadding")
    _refused(core, aj.ParameterError, lambda: aj.DataCopyPad(ub, gm, (1, 32, -2, 0, 0), pad), "srcStride")
    _refused(core, aj.ParameterError, lambda: aj.DataCopyPad(ub, gm, (1, 32, 0, 0, -1), pad), "rsv")
    _refused(core, aj.ParameterError, lambda: aj.DataCopyPad(gm, ub, (1, 32, 0, 0, 2**32)), "rsv", gm=gm)
    _refused(core, aj.OutOfBoundsError, lambda: aj.DataCopyPad(ub, gm, (1, 130, 0, 0, 0), pad), "src")
    _refused(core, aj.OutOfBoundsError, lambda: aj.DataCopyPad(ub, gm, (2, 64, 0, 2, 0), pad), "dst")
    shifted = core.local_tensor("half", 32, addr=ub.addr + 2)
    _refused(core, aj.AlignmentError, lambda: aj.DataCopyPad(shifted, gm, (1, 32, 0, 0, 0), pad))
    _refused(core, aj.AlignmentError, lambda: aj.DataCopyPad(gm, shifted, (1, 32, 0, 0, 0)), gm=gm)
    _refused(core, aj.OutOfBoundsError, lambda: aj.DataCopyPad(gm, ub, (3, 64, 0, 0, 0)), gm=gm)
    _refused(core, aj.UnsupportedDTypeError, lambda: aj.DataCopyPad(
        ub, aj.GlobalTensor(np.zeros(8, np.float32)), (1, 32, 0, 0, 0), pad))
    i64 = core.local_tensor("int64", 8)
    _refused(core, aj.ParameterError, lambda: aj.DataCopyPad(
        i64, aj.GlobalTensor(np.zeros(8, np.int64)), (1, 16, 0, 0, 0), (True, 0, 1, 5)), "paddingValue")
    core.SetPadValue(2, "float")
    _refused(core, aj.StateError, lambda: aj.DataCopyPad(ub, gm, (1, 32, 0, 0, 0), (False, 0, 1, 0)), "float")
    before = core.ub.copy()
    aj.DataCopyPad(ub, gm, (0, 32, 0, 0, 0), (True, 0, 1, 0))     # blockCount 0: a NOP
    aj.DataCopyPad(ub, gm, (3, 0, 0, 0, 0), (True, 0, 1, 0))      # blockLen 0: a NOP
    assert np.array_equal(core.ub, before)


def test_950_negative_src_stride_rereads_gm():
    core = aj.Core("ascend950")
    ub = core.local_tensor("int32", 24)
    gm = aj.GlobalTensor(np.arange(8, dtype=np.int32))
    aj.DataCopyPad(ub, gm, aj.DataCopyExtParams(3, 16, -8, 0, 0), aj.DataCopyPadExtParams(True, 0, 0, 0))
    assert ub.numpy().reshape(3, 8)[:, :4].tolist() == [[0, 1, 2, 3], [2, 3, 4, 5], [4, 5, 6, 7]]


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_ub_to_gm_honours_set_atomic_add(device):
    """UB -> GM under SetAtomicAdd combines with GM through the one atomic path (pipe.atomic_copy); the UB dummy
    bytes of each block are still dropped."""
    core = aj.Core(device)
    ub = core.local_tensor("float", 32)
    ub[:] = np.arange(32, dtype=np.float32)
    gm = aj.GlobalTensor(np.full(15, 100, np.float32))
    core.SetAtomicAdd("float")
    aj.DataCopyPad(gm, ub, aj.DataCopyExtParams(3, 20, 0, 0, 0))   # 5 floats per block, blocks 8 floats apart in UB
    core.SetAtomicNone()
    want = 100 + np.concatenate([np.arange(5), np.arange(8, 13), np.arange(16, 21)]).astype(np.float32)
    assert np.array_equal(gm.numpy(), want)


def test_sanitizer_sees_every_byte_datacopypad_touches():
    """A sanitizing core: a GM -> UB DataCopyPad (PIPE_MTE2) writes the data, the pads and the dummy bytes; reading
    the padded row back to GM (PIPE_MTE3) races with it unless a barrier orders them."""
    def run(barrier):
        core = aj.Core("atlas-a2", sanitize="strict")
        with core:
            ub = core.local_tensor("half", 16)
            gm = aj.GlobalTensor(np.arange(1, 4, dtype=np.float16))
            aj.DataCopyPad(ub, gm, aj.DataCopyExtParams(1, 6, 0, 0, 0), aj.DataCopyPadExtParams(True, 1, 2, 0))
            if barrier:
                aj.PipeBarrier(aj.PIPE_ALL)
            out = aj.GlobalTensor(np.zeros(16, np.float16))
            aj.DataCopyPad(out, ub, aj.DataCopyExtParams(1, 32, 0, 0, 0))
        return core, out
    with pytest.raises(aj.SanitizerError, match="RAW"):
        run(False)
    core, out = run(True)
    assert out.numpy().tolist() == [0, 1, 2, 3] + [0] * 12
    assert [i.api for i in core.sanitizer.log].count("DataCopyPad") == 3


@pytest.mark.parametrize("dtype", ["double", "bool", "complex64", np.float64, "int4b_t", "hifloat8_t"])
def test_d28_types_are_refused_by_name(dtype):
    """SPEC-2 D28: an out-of-scope element type is an UnsupportedDTypeError naming D28, the API and the device
    (SetPadValue, whose page lists double and bool, and the tensors themselves)."""
    core = aj.Core("ascend950")
    for call, api in ((lambda: core.SetPadValue(0, dtype), "SetPadValue"),
                      (lambda: core.local_tensor(dtype, 8), "local_tensor")):
        with pytest.raises(aj.UnsupportedDTypeError) as info:
            call()
        assert all(w in str(info.value) for w in ("D28", api, "ascend950"))
        assert core.pad_value is None


def test_copy_params_by_the_cxx_keyword():
    """SPEC-2 1.1: every parameter is also a keyword with the snake_case of the C++ name: dataCopyParams ->
    data_copy_params (both directions), beside the SPEC's copy_params; given twice or not at all is a TypeError."""
    core = aj.Core("atlas-a2")
    gm = aj.GlobalTensor(np.arange(64, dtype=np.float16))
    out = aj.GlobalTensor(np.zeros(64, np.float16))
    ub = core.local_tensor("half", 64)
    aj.DataCopyPad(ub, gm, data_copy_params=aj.DataCopyExtParams(1, 20, 0, 0, 0),
                   pad_params=aj.DataCopyPadExtParams(True, 0, 6, 0))
    assert ub.numpy()[:16].tolist() == list(range(10)) + [0] * 6
    core.PipeBarrier(aj.PIPE_ALL)   # SPEC-2 10.4: the UB -> GM copy reads what the GM -> UB copy wrote
    aj.DataCopyPad(dst=out, src=ub, data_copy_params=aj.DataCopyExtParams(1, 20, 0, 0, 0))
    assert out.numpy()[:11].tolist() == list(range(10)) + [0]
    for call in (lambda: aj.DataCopyPad(out, ub, aj.DataCopyExtParams(1, 20, 0, 0, 0),
                                        data_copy_params=aj.DataCopyExtParams(1, 20, 0, 0, 0)),
                 lambda: aj.DataCopyPad(out, ub)):
        with pytest.raises(TypeError, match="data_copy_params"):
            call()


def test_set_pad_value_by_the_cxx_keyword():
    """SPEC-2 1.1: SetPadValue's value is also `padding_value=` (C++ paddingValue), module level and on the core;
    twice or missing is a TypeError and stores nothing."""
    core = aj.Core("atlas-a2")
    with core:
        aj.SetPadValue(padding_value=1.0, dtype="half")
        assert core.pad_value == (aj.Core("atlas-a2").local_tensor("half", 1).dtype, 0x3C00)
        core.SetPadValue(padding_value=np.int16(-2))
        assert core.pad_value[1] == 0xFFFE
        for call in (lambda: aj.SetPadValue(1.0, "half", padding_value=2.0), lambda: core.SetPadValue(dtype="half")):
            with pytest.raises(TypeError, match="padding_value"):
                call()
        assert core.pad_value[1] == 0xFFFE


def test_a_gm_window_refusal_of_a_sub_tensor_says_where_it_starts():
    """port53d: "GM bytes [0, 212) ... inside the GlobalTensor's 208 bytes" of a 400-byte buffer's g[48] read as a
    contradiction; the sub-tensor now names its first element and the buffer's size."""
    def kernel(y):
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(y, 100)
        pipe, que = aj.TPipe(), aj.TQue(aj.TPosition.VECOUT, 1)
        pipe.InitBuffer(que, 1, 256)
        tile = que.AllocTensor("float")
        with pytest.raises(aj.OutOfBoundsError, match=re.escape(
                "'GM bytes [0, 212) from the start of GlobalTensor(float, size=52, from element 48 of 100)'")):
            aj.DataCopyPad(g[48], tile, aj.DataCopyExtParams(1, 53 * 4, 0, 0, 0))
        window = "GlobalTensor(float, size=52, from element 48 of 100) "
        with pytest.raises(aj.OutOfBoundsError, match=re.escape(window)):
            aj.DataCopy(g[48], tile, 64)
        assert repr(g) == "GlobalTensor(float, size=100)"
        que.FreeTensor(tile)
    aj.launch(kernel, 1, "atlas-a2", np.zeros(100, np.float32))
