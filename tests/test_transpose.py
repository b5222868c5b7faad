"""Transpose (docs/decisions.md "Transpose"): both forms against the reference model
(ascend_jit/reference/transpose.py) byte for byte over the whole UB, on every device and dtype the page offers, and
every refusal leaving the UB as it was."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.api.transpose import _B16_ENHANCED, _BASIC, _FORMAT_ENHANCED, transpose_tmp_bytes
from ascend_jit.dtypes import resolve
from ascend_jit.reference import transpose as ref

T = aj.TransposeType
NCHW, NHWC, B16 = T.TRANSPOSE_NCHW2NHWC, T.TRANSPOSE_NHWC2NCHW, T.TRANSPOSE_ND2ND_B16


def _random_ub(core, seed):
    core.ub[:] = np.random.default_rng(seed).integers(0, 256, core.ub.size, dtype=np.uint8)
    core.ub_written_by_host()
    return bytearray(core.ub.tobytes())


@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_16x16_against_the_reference_in_place_and_apart(device):
    for k, dtype in enumerate(_BASIC[device]):
        core = aj.Core(device)
        size = resolve(dtype).size
        with core:
            for dst_at, src_at in ((1024, 4096), (2048, 2048)):
                model = _random_ub(core, k)
                dst = core.local_tensor(dtype, 256, addr=dst_at) if dst_at != src_at else None
                src = core.local_tensor(dtype, 256, addr=src_at)
                aj.Transpose(dst if dst is not None else src, src)
                ref.transpose_16x16(model, size, dst_at, src_at)
                assert core.ub.tobytes() == bytes(model), (device, dtype, dst_at, src_at)


def test_16x16_is_the_page_example():
    core = aj.Core("atlas-a2")
    with core:
        src, dst = core.local_tensor("half", 256), core.local_tensor("half", 256)
        src[:] = np.arange(256).astype(np.float16)
        aj.Transpose(dst, src)
        assert np.array_equal(dst.numpy().reshape(16, 16), np.arange(256).reshape(16, 16).T.astype(np.float16))


@pytest.mark.parametrize("device", sorted(_B16_ENHANCED))
def test_enhanced_16x16_takes_the_page_dtypes_and_h_w_16(device):
    core = aj.Core(device)
    with core:
        tmp = core.local_tensor("uint8", 32)
        for dtype in ("int16", "uint16", "half"):
            t = core.local_tensor(dtype, 256)
            model = _random_ub(core, 3)
            call = (lambda h=16, w=16: aj.Transpose(t, t, tmp, aj.TransposeParamsExt(7, 9, h, w, B16)))
            if dtype not in _B16_ENHANCED[device]:
                with pytest.raises(aj.UnsupportedDTypeError, match=f"Transpose.*{dtype}.*{device}"):
                    call()
                assert core.ub.tobytes() == bytes(model)
                continue
            with pytest.raises(aj.ParameterError, match=r"hSize' = 8 \(legal: 16 \(TRANSPOSE_ND2ND_B16"):
                call(h=8)
            call()
            ref.transpose_16x16(model, 2, t.addr, t.addr)
            assert core.ub.tobytes() == bytes(model)


@pytest.mark.parametrize("device", sorted(_FORMAT_ENHANCED))
@pytest.mark.parametrize("kind", [NCHW, NHWC])
def test_format_conversions_against_the_reference(device, kind):
    rng = np.random.default_rng(7)
    for dtype in _FORMAT_ENHANCED[device]:
        size = resolve(dtype).size
        for _ in range(3):
            n, c = int(rng.integers(1, 4)), int(rng.integers(1, 6))
            hw_unit = 32 // size                   # h * w * sizeof(T) a multiple of 32 bytes
            h, w = int(rng.integers(1, 4)), hw_unit * int(rng.integers(1, 3))
            elements = n * c * h * w
            core = aj.Core(device)
            with core:
                need = transpose_tmp_bytes(device, resolve(dtype), c, kind)
                src = core.local_tensor(dtype, elements)
                dst = core.local_tensor(dtype, elements)
                tmp = core.local_tensor("uint8", max(need, 32))
                model = _random_ub(core, elements)
                aj.Transpose(dst, src, tmp, aj.TransposeParamsExt(n, c, h, w, kind))
                ref.transpose_format(model, size, dst.addr, src.addr, n, c, h, w, kind == NCHW)
                assert core.ub.tobytes() == bytes(model), (device, dtype, n, c, h, w)  # tmp's bytes as they were


def test_format_conversion_is_numpys_transpose():
    core = aj.Core("ascend950")
    with core:
        x = np.arange(2 * 3 * 4 * 16, dtype=np.float32)
        src, dst = core.local_tensor("float", x.size), core.local_tensor("float", x.size)
        tmp = core.local_tensor("uint8", transpose_tmp_bytes("ascend950", resolve("float"), 3, NHWC))  # the larger
        src[:] = x
        aj.Transpose(dst, src, tmp, aj.TransposeParamsExt(2, 3, 4, 16, NCHW))
        assert np.array_equal(dst.numpy(), x.reshape(2, 3, 4, 16).transpose(0, 2, 3, 1).ravel())
        aj.Transpose(src, dst, tmp, aj.TransposeParamsExt(2, 3, 4, 16, NHWC))
        assert np.array_equal(src.numpy(), x)


def test_tmp_minimum_is_the_pages_table():
    half, int8, f32 = resolve("half"), resolve("int8"), resolve("float")
    assert transpose_tmp_bytes("atlas-a2", half, 3, NCHW) == 5 * 16 * 16 * 2
    assert transpose_tmp_bytes("atlas-a2", half, 3, NHWC) == 7 * 16 * 16 * 2
    assert transpose_tmp_bytes("ascend950", int8, 2, NCHW) == 4 * 32 * 32
    assert transpose_tmp_bytes("atlas-a3", f32, 1, NHWC) == 3 * 16 * 8 * 4
    assert transpose_tmp_bytes("atlas-inference-aicore", f32, 100, NCHW) == 0  # the 310P needs no buffer
    core = aj.Core("atlas-a2")
    with core:
        src, dst = core.local_tensor("half", 96), core.local_tensor("half", 96)
        tmp = core.local_tensor("uint8", 2528)
        before = core.ub.copy()
        with pytest.raises(aj.ParameterError, match=r"sharedTmpBuffer.GetSize\(\)' = 2528 .*>= 2560 bytes for cSize 3"):
            aj.Transpose(dst, src, tmp, aj.TransposeParamsExt(1, 3, 4, 8, NCHW))
        assert np.array_equal(core.ub, before)


def test_a_zero_size_or_type_none_writes_nothing():
    core = aj.Core("atlas-a2")
    with core:
        src, dst, tmp = core.local_tensor("half", 96), core.local_tensor("half", 96), core.local_tensor("uint8", 32)
        model = _random_ub(core, 1)
        aj.Transpose(dst, src, tmp, aj.TransposeParamsExt(0, 3, 4, 8, NCHW))
        aj.Transpose(dst, src, tmp, aj.TransposeParamsExt(1, 3, 4, 8, T.TRANSPOSE_TYPE_NONE))
        assert core.ub.tobytes() == bytes(model)


def _refusals(core):
    a, b = core.local_tensor("half", 256), core.local_tensor("half", 256)
    tmp = core.local_tensor("uint8", 4096)
    part = core.local_tensor("half", 256, addr=a.addr + 64)
    odd = core.local_tensor("half", 256, addr=b.addr + 512 + 16)
    short = core.local_tensor("half", 255)
    p = aj.TransposeParamsExt
    return [
        (lambda: aj.Transpose(part, a), aj.OverlapError, r"the same address \(100% overlap\) or disjoint"),
        (lambda: aj.Transpose(odd, a), aj.AlignmentError, "dst address"),
        (lambda: aj.Transpose(short, a), aj.OutOfBoundsError, r"256 elements.*<= dst.GetSize\(\) = 255"),
        (lambda: aj.Transpose(a, core.local_tensor("float", 256)), aj.UnsupportedDTypeError, "src.dtype"),
        (lambda: aj.Transpose(core.local_tensor("float", 256), core.local_tensor("float", 256)),
         aj.UnsupportedDTypeError, "int16, uint16, half"),
        (lambda: aj.Transpose(a, b, tmp), aj.ParameterError, "transposeParams"),
        (lambda: aj.Transpose(a, b, tmp, (1, 1, 16, 16, 10)), aj.ParameterError, "TransposeParamsExt"),
        (lambda: aj.Transpose(a, b, tmp, p(1, 1, 16, 16, T.TRANSPOSE_NZ2ND_0213)), aj.ParameterError, "当前不支持"),
        (lambda: aj.Transpose(a, b, a, p(1, 1, 16, 16, B16)), aj.UnsupportedDTypeError, "sharedTmpBuffer.dtype"),
        (lambda: aj.Transpose(a, a, tmp, p(1, 2, 4, 16, NCHW)), aj.OverlapError, "no reuse of src and dst"),
        (lambda: aj.Transpose(a, b, tmp, p(1, 4096, 1, 16, NCHW)), aj.ParameterError, "cSize"),
        (lambda: aj.Transpose(a, b, tmp, p(1, 1, 3, 5, NCHW)), aj.ParameterError, "a multiple of 32 bytes"),
        (lambda: aj.Transpose(a, b, tmp, p(70000, 1, 1, 16, NCHW)), aj.ParameterError, "C\\+\\+ would store 4464"),
        (lambda: aj.Transpose(a, b, tmp, p(2, 3, 4, 16, NCHW)), aj.OutOfBoundsError, "384 elements"),
    ]


def test_refusals_name_the_parameter_and_write_nothing():
    core = aj.Core("atlas-a2")
    with core:
        for call, error, text in _refusals(core):
            before = core.ub.copy()
            with pytest.raises(error, match=text):
                call()
            assert np.array_equal(core.ub, before)


@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync,dcache", reason="transposes fresh tensors: it checks "
                             "which device offers which form, not the values")
def test_devices_that_do_not_offer_a_form():
    """The 310B has no format conversion, the training device no enhanced form (the page's dtype lists)."""
    for device, params in (("atlas-200i-500-a2", aj.TransposeParamsExt(1, 2, 4, 16, NCHW)),
                           ("atlas-training", aj.TransposeParamsExt(1, 1, 16, 16, B16))):
        core = aj.Core(device)
        with core:
            a, b, tmp = core.local_tensor("uint16", 256), core.local_tensor("uint16", 256), core.local_tensor(
                "uint8", 4096)
            with pytest.raises(aj.UnsupportedDeviceError, match=f"Transpose.*{device}"):
                aj.Transpose(a, b, tmp, params)
            aj.Transpose(a, b)  # the basic form everywhere


def test_sanitizer_sees_the_vector_read_write_and_the_tmp_scratch():
    core = aj.Core("atlas-a2", sanitize="report")
    with core:
        src, dst = core.local_tensor("half", 128), core.local_tensor("half", 128)
        tmp = core.local_tensor("uint8", 2560)
        aj.DataCopy(src, aj.GlobalTensor(np.ones(128, np.float16)), 128)   # no MTE2 -> V flag
        aj.Transpose(dst, src, tmp, aj.TransposeParamsExt(1, 2, 4, 16, NCHW))
        aj.PipeBarrier(aj.PIPE_ALL)
        aj.Add(dst, dst, core.local_tensor("half", 128, addr=tmp.addr), 128)  # tmp: written (unspecified), not uninit
    kinds = [(r.check, r.kind, r.instruction.api, r.operand) for r in core.sanitizer.reports]
    assert kinds == [("race", "RAW", "Transpose", "src")], kinds


def test_nchw2nhwc_channels_past_255_refused_where_the_devkit_counts_them_in_a_byte():
    """The devkit's A2/A3/950 NCHW2NHWC repeats its TransDataTo5HD cSize times in a uint8_t: 256 channels would
    transpose as none (port40pd's replay). The 310P's path and NHWC2NCHW take the page's 4095."""
    for device, refused in (("atlas-a2", True), ("ascend950", True), ("atlas-inference-aicore", False)):
        core = aj.Core(device)
        with core:
            src, dst = core.local_tensor("uint16", 4096), core.local_tensor("uint16", 4096)
            tmp = core.local_tensor("uint8", 32 if device == "atlas-inference-aicore" else 258 * 512)
            params = aj.TransposeParamsExt(1, 256, 1, 16, NCHW)
            if refused:
                with pytest.raises(aj.ParameterError,
                                   match=r"cSize' = 256 .*uint8_t repeatTimes: 256 wraps to 0.*\[0, 255\]"):
                    aj.Transpose(dst, src, tmp, params)
                continue
            src[:] = np.arange(4096, dtype=np.uint16)
            aj.Transpose(dst, src, tmp, params)
            assert np.array_equal(dst.numpy(), np.arange(4096, dtype=np.uint16).reshape(256, 16).T.ravel())


def test_the_950_builds_other_layouts_are_refused():
    core = aj.Core("ascend950")
    with core:
        a, b, tmp = core.local_tensor("half", 256), core.local_tensor("half", 256), core.local_tensor("uint8", 32)
        with pytest.raises(aj.ParameterError, match="the 950 build's layout of other APIs"):
            aj.Transpose(a, b, tmp, aj.TransposeParamsExt(1, 1, 16, 16, T.TRANSPOSE_ND2ND_021))
