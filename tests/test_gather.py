"""Gather (SPEC-2 9.2, D57) and GatherMask (SPEC-2 9.3, D58): whole-UB property tests against the reference,
built-in and user patterns, rsvdCnt, the state GatherMask leaves, refusals."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.reference import gather as ref
from ascend_jit.reference import model as ref_model

OFFERING = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")
SIZE = {"half": 2, "float": 4, "bfloat16": 2, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4,
        "uint32": 4, "int64": 8, "uint64": 8}


def _random_ub(core, seed):
    core.ub[:] = np.frombuffer(np.random.default_rng(seed).bytes(core.ub.size), np.uint8)
    core.ub_written_by_host()   # raw UB bytes: initialised for the sanitizer


def _gather_whole_ub_matches_reference(device, count_form, data):
    core = aj.Core(device)
    spec = core.spec
    offered = [t for t in spec.gather_dtypes if count_form or t not in spec.gather_count_only_dtypes]
    dtype = data.draw(st.sampled_from(sorted(offered)))
    size = SIZE[dtype]
    _random_ub(core, data.draw(st.integers(0, 2**32)))
    src_elems = 1024 // size
    src = core.local_tensor(dtype, src_elems, addr=32 * data.draw(st.integers(0, 100)))
    base = size * data.draw(st.integers(0, 64))
    offs_t = core.local_tensor("uint32", 1024, addr=8192 + 32 * data.draw(st.integers(0, 10)))
    dst = core.local_tensor(dtype, 4096 // size, addr=16384 + 32 * data.draw(st.integers(0, 100)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32)))
    offs_t[:] = (rng.integers(0, src_elems - base // size, 1024) * size).astype(np.uint32)
    want = core.ub.copy()
    if count_form:
        count = data.draw(st.integers(0, 300))
        ref.gather(want, dtype, dst.addr, src.addr, offs_t.addr, base, list(range(count)), 1, count, 0)
        aj.Gather(dst, src, offs_t, base, count)
    else:
        lanes = (128 if size == 1 and spec.gather_offset_limited else 256 // size)
        if data.draw(st.booleans()):
            mask = data.draw(st.integers(1, lanes))
            active = list(range(mask))
        else:
            lo = data.draw(st.integers(1, 2**min(lanes, 64) - 1))
            hi = data.draw(st.integers(0, 2**64 - 1)) if lanes == 128 else 0
            mask = [lo, hi] if lanes == 128 else [lo]
            active = ref_model.lanes_of_mask(lo, hi, lanes)
        repeat = data.draw(st.integers(0, 4))
        rep = data.draw(st.integers(0, 10))
        if data.draw(st.booleans()):   # counter mode (SPEC-2 1.4): mask is the count, the last repeat partial
            count = data.draw(st.integers(1, 3 * lanes))
            core.SetMaskCount()
            ref.gather(want, dtype, dst.addr, src.addr, offs_t.addr, base, list(range(lanes)), -(-count // lanes),
                       lanes, rep, last_lanes=count % lanes or lanes)
            aj.Gather(dst, src, offs_t, base, count, repeat, rep)
        else:
            ref.gather(want, dtype, dst.addr, src.addr, offs_t.addr, base, active, repeat, lanes, rep)
            aj.Gather(dst, src, offs_t, base, mask, repeat, rep)
    assert np.array_equal(core.ub, want)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(OFFERING), st.booleans(), st.data())
def test_gather_whole_ub_matches_reference(device, count_form, data):
    _gather_whole_ub_matches_reference(device, count_form, data)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(OFFERING), st.booleans(), st.data())
def test_gather_whole_ub_matches_reference_sweep(device, count_form, data):
    _gather_whole_ub_matches_reference(device, count_form, data)


def test_gather_picks_by_byte_offset():
    core = aj.Core("atlas-a2")
    src = core.local_tensor("half", 128)
    src[:] = np.arange(128, dtype=np.float16)
    offs = core.local_tensor("uint32", 64)
    offs[:] = (np.arange(64)[::-1] * 2).astype(np.uint32)
    dst = core.local_tensor("half", 64)
    aj.Gather(dst, src, offs, 16, 64)     # base 16 bytes = element 8
    assert np.array_equal(dst.numpy(), np.arange(63, -1, -1) + 8)


def _refused(core, error, call, *words):
    before = core.ub.copy()
    with pytest.raises(error) as info:
        call()
    assert np.array_equal(core.ub, before)
    for w in words:
        assert w in str(info.value)


def test_gather_overlap_check_at_the_edges_of_the_read_range():
    """The overlap check skips its byte intersection when the read and written byte ranges are disjoint (port19: it
    was most of a large Gather's time): a dst starting on the byte after the last one read, or ending on the byte
    before the first, is accepted; one whose first element is the last one read is refused."""
    core = aj.Core("atlas-a2")
    src = core.local_tensor("half", 256)
    src[:] = np.arange(256).astype(np.float16)
    offs = core.local_tensor("uint32", 16)
    offs[:] = np.append(np.arange(15) * 4, 62).astype(np.uint32)   # src bytes up to 63: elements 0, 2, ..., 28, 31
    after = core.local_tensor("half", 16, addr=src.addr + 64)       # writes from byte 64 on
    aj.Gather(after, src, offs, 0, 16)
    assert after.numpy().tolist() == list(range(0, 30, 2)) + [31]
    offs[:] = (96 + np.arange(16) * 2).astype(np.uint32)          # elements 48..63: reads from byte 96 on
    aj.Gather(after, src, offs, 0, 16)                             # writes bytes [64, 96)
    assert after.numpy().tolist() == list(range(48, 64))
    offs[:] = np.append(np.arange(15) * 2, 32).astype(np.uint32)   # elements 0..14 and 16: bytes 32-33 last
    last = core.local_tensor("half", 16, addr=src.addr + 32)        # its first element is the last one read
    _refused(core, aj.OverlapError, lambda: aj.Gather(last, src, offs, 0, 16), "'dst/src'", "byte 32")


def test_gather_refusals():
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 64)
    offs = core.local_tensor("uint32", 64)
    offs[:] = np.full(64, 3, np.uint32)
    _refused(core, aj.AlignmentError, lambda: aj.Gather(dst, src, offs, 0, 64), "src_offset[0]")
    offs[:] = np.full(64, 2**17, np.uint32)
    _refused(core, aj.ParameterError, lambda: aj.Gather(dst, src, offs, 0, 64), "131071")
    offs[:] = np.full(64, 256, np.uint32)
    _refused(core, aj.OutOfBoundsError, lambda: aj.Gather(dst, src, offs, 0, 64), "src_offset")
    offs[:] = np.zeros(64, np.uint32)
    _refused(core, aj.OutOfBoundsError, lambda: aj.Gather(dst, src, offs, 0, 65))
    _refused(core, aj.OutOfBoundsError, lambda: aj.Gather(dst, src, offs, 0, 128, 1, 8), "src_offset")
    over = core.local_tensor("half", 64, addr=src.addr)
    _refused(core, aj.OverlapError, lambda: aj.Gather(over, src, offs, 0, 64), "'dst/src'")
    on_offsets = core.local_tensor("half", 64, addr=offs.addr)  # dst over the offsets: the pair names src_offset
    _refused(core, aj.OverlapError, lambda: aj.Gather(on_offsets, src, offs, 0, 64), "dst/src_offset")
    i8, s8 = core.local_tensor("int8", 64), core.local_tensor("int8", 64)
    _refused(core, aj.UnsupportedDTypeError, lambda: aj.Gather(i8, s8, offs, 0, 64, 1, 8), "count")
    t910 = aj.Core("atlas-training")
    a, b, o = t910.local_tensor("half", 64), t910.local_tensor("half", 64), t910.local_tensor("uint32", 64)
    _refused(t910, aj.UnsupportedDeviceError, lambda: aj.Gather(a, b, o, 0, 64))
    a2 = aj.Core("atlas-a2")
    a, b, o = a2.local_tensor("half", 64), a2.local_tensor("half", 64), a2.local_tensor("int32", 64)
    _refused(a2, aj.UnsupportedDTypeError, lambda: aj.Gather(a, b, o, 0, 64), "ReinterpretCast('uint32')")



@pytest.mark.parametrize("bounds", ["tensor", "ub"])
@pytest.mark.ascend_sanitize(checks="init,blocks,sync", reason="offsets set by SetValue with no S_V flag before each "
                             "Gather, and the bounds=\"ub\" escape hatch on purpose: a refusal test")
def test_gather_offset_out_of_bounds_names_the_legal_offsets(bounds):
    """An offset whose element lies outside src's tensor (or the UB with bounds="ub") is refused with the legal range
    in the frame of the value named, the byte offset from src + src_base_addr (D57), element-aligned; not in
    absolute UB addresses."""
    core = aj.Core("atlas-a2", **({"bounds": "ub"} if bounds == "ub" else {}))
    dst, src = core.local_tensor("half", 64, addr=0), core.local_tensor("half", 64, addr=1024)
    offs = core.local_tensor("uint32", 64, addr=2048)
    offs[:] = np.zeros(64, np.uint32)
    core.ub_written_by_host()   # the accepted Gathers read src, or past it with bounds="ub" (--ascend-sanitize)
    far = 128 if bounds == "tensor" else core.spec.ub_bytes
    offs.SetValue(0, far)
    top = (126 if bounds == "tensor" else core.spec.ub_bytes - 1024 - 2)
    _refused(core, aj.OutOfBoundsError, lambda: aj.Gather(dst, src, offs, 0, 16),
             f"src_offset[0]' = {far} ",
             f"legal: [0, {top}], a multiple of 2 (bytes from src + src_base_addr (1024 + 0)")
    offs.SetValue(0, top)
    aj.Gather(dst, src, offs, 0, 16)  # the last legal offset
    if bounds == "tensor":
        offs.SetValue(0, 30)
        _refused(core, aj.OutOfBoundsError, lambda: aj.Gather(dst, src, offs, 100, 16), "legal: [0, 26]")
        offs.SetValue(0, 0)
        _refused(core, aj.OutOfBoundsError, lambda: aj.Gather(dst, src, offs, 130, 16), "legal: none")


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_gather_refused_on_its_offsets_leaves_the_mask_register(device):
    """SPEC-2 1.5 / DESIGN: a refused call changes no core state. The high-dim Gather's offset checks read the
    offset tensor (data-dependent); a refusal there must not have put the call's mask into the register (D31 writes
    it only for a call that runs). repeat 0 still records it (D30)."""
    core = aj.Core(device)
    src, dst, offs = core.local_tensor("half", 128), core.local_tensor("half", 128), core.local_tensor("uint32", 128)
    offs[:] = np.zeros(128, np.uint32)
    offs.SetValue(5, 1)                      # lane 5 is active under [0xF0]: a misaligned half offset
    core.SetVectorMask(0, 0xFF)
    state = (core.mask_high, core.mask_low, core.mask_defined, core.ctrl)
    _refused(core, aj.AlignmentError, lambda: aj.Gather(dst, src, offs, 0, [0xF0, 0], 1, 8), "src_offset[5]")
    assert (core.mask_high, core.mask_low, core.mask_defined, core.ctrl) == state
    aj.Gather(dst, src, offs, 0, [0xF0, 0], 0, 8)      # repeat 0: a NOP that still records the mask (D30)
    assert core.mask_low == 0xF0

# --- GatherMask -------------------------------------------------------------------------------------------------
def _reduce_repeats(spec, reduce_mode, mask, times, lanes):
    if not reduce_mode:
        return [lanes] * times
    if spec.gather_mask_total_count:
        outer = -(-mask // lanes)
        return [lanes] * (outer - 1) + [mask - (outer - 1) * lanes]
    return [mask] * times


def _gather_mask_whole_ub_matches_reference(device, data):
    core = aj.Core(device)
    spec = core.spec
    dtype = data.draw(st.sampled_from(sorted(spec.gather_mask_dtypes)))
    size = SIZE[dtype]
    lanes = 256 // size
    _random_ub(core, data.draw(st.integers(0, 2**32)))
    user = data.draw(st.booleans())
    reduce_mode = data.draw(st.booleans())
    mask = data.draw(st.integers(1, 3 * lanes)) if reduce_mode else data.draw(st.integers(0, 100))
    times = data.draw(st.integers(0, 3))
    params = aj.GatherMaskParams(data.draw(st.integers(1, 3)), times, data.draw(st.integers(0, 40)),
                                 data.draw(st.integers(0, 4)))
    src = core.local_tensor(dtype, 32768 // size, addr=32 * data.draw(st.integers(0, 100)))
    dst = core.local_tensor(dtype, 8192 // size, addr=40960 + 32 * data.draw(st.integers(0, 100)))
    pattern = core.local_tensor({1: "uint8", 2: "uint16", 4: "uint32"}[size], 2048 // size,
                                addr=65536 + 32 * data.draw(st.integers(0, 10))) if user else \
        data.draw(st.integers(1, spec.gather_mask_max_pattern))
    repeats = _reduce_repeats(spec, reduce_mode, mask, times, lanes)
    want = core.ub.copy()
    expected = ref.gather_mask(want, dtype, dst.addr, src.addr, None if user else pattern,
                               pattern.addr if user else 0, repeats, params.src0BlockStride, params.src0RepeatStride,
                               params.src1RepeatStride)
    core.SetMaskCount()
    got = aj.GatherMask(dst, src, pattern, reduce_mode, mask, params)
    assert got == expected
    assert np.array_equal(core.ub, want)
    assert not core.counter_mode and not core.mask_defined     # D31


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(OFFERING), st.data())
def test_gather_mask_whole_ub_matches_reference(device, data):
    _gather_mask_whole_ub_matches_reference(device, data)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(OFFERING), st.data())
def test_gather_mask_whole_ub_matches_reference_sweep(device, data):
    _gather_mask_whole_ub_matches_reference(device, data)


@pytest.mark.parametrize("device", OFFERING)
def test_builtin_patterns_and_h12(device):
    core = aj.Core(device)
    src, dst = core.local_tensor("float", 64), core.local_tensor("float", 64)
    src[:] = np.arange(64, dtype=np.float32)
    lanes = np.arange(64)
    picks = {1: lanes % 2 == 0, 2: lanes % 2 == 1, 3: lanes % 4 == 0, 4: lanes % 4 == 1, 5: lanes % 4 == 2,
             6: lanes % 4 == 3, 7: lanes >= 0}
    for pattern in range(1, core.spec.gather_mask_max_pattern + 1):
        dst[:] = np.full(64, 0xAAAAAAAA, np.uint32).view(np.float32)
        n = aj.GatherMask(dst, src, pattern, False, 0, aj.GatherMaskParams(1, 1, 8, 8))
        want = lanes[picks[pattern]]
        assert n == want.size
        assert np.array_equal(dst.numpy()[:n], want.astype(np.float32))
        assert (dst.numpy()[n:].view(np.uint32) == 0xAAAAAAAA).all()      # H-12, D58
    if core.spec.gather_mask_max_pattern == 6:
        with pytest.raises(aj.ParameterError):
            aj.GatherMask(dst, src, 7, False, 0, aj.GatherMaskParams(1, 1, 8, 8))


def test_gather_mask_in_place_and_user_pattern():
    core = aj.Core("atlas-a2")
    src = core.local_tensor("half", 256)
    src[:] = np.arange(256, dtype=np.float16)
    pattern = core.local_tensor("uint16", 32)
    bits = np.random.default_rng(3).integers(0, 2, 256).astype(bool)
    packed = np.zeros(64, np.uint8)
    packed[:16], packed[32:48] = np.packbits(bits[:128], bitorder="little"), np.packbits(bits[128:], bitorder="little")
    pattern[:] = packed.view(np.uint16)     # repeat i's bits start src1RepeatStride * 32 bytes further (D58)
    n = aj.GatherMask(src, src, pattern, False, 0, aj.GatherMaskParams(1, 2, 8, 1))
    assert n == bits.sum() and np.array_equal(src.numpy()[:n], np.arange(256)[bits].astype(np.float16))


def test_gather_mask_refusals():
    core = aj.Core("atlas-a2")
    src, dst = core.local_tensor("half", 256), core.local_tensor("half", 256)
    wrong = core.local_tensor("uint32", 16)
    p = aj.GatherMaskParams(1, 1, 8, 8)
    _refused(core, aj.UnsupportedDTypeError, lambda: aj.GatherMask(dst, src, wrong, False, 0, p), "uint16")
    _refused(core, aj.ParameterError, lambda: aj.GatherMask(dst, src, 8, False, 0, p))
    _refused(core, aj.ParameterError, lambda: aj.GatherMask(dst, src, 1, True, 0, p), "mask")
    _refused(core, aj.ParameterError, lambda: aj.GatherMask(dst, src, 1, False, 0, (1, 256, 8, 8)), "repeatTimes")
    _refused(core, aj.OverlapError, lambda: aj.GatherMask(src, src, 1, False, 0, (2, 1, 8, 8)))
    small = core.local_tensor("half", 8)
    _refused(core, aj.OutOfBoundsError, lambda: aj.GatherMask(small, src, 7, False, 0, p), "dst")
    _refused(core, aj.OutOfBoundsError, lambda: aj.GatherMask(dst, src, 7, False, 0, (1, 2, 16, 8)), "src0")
    t910 = aj.Core("atlas-training")
    a, b = t910.local_tensor("half", 128), t910.local_tensor("half", 128)
    _refused(t910, aj.UnsupportedDeviceError, lambda: aj.GatherMask(a, b, 1, False, 0, p))


def test_gather_mask_with_the_cpp_out_parameter_is_refused_by_name():
    """The C++ `GatherMask(dst, src0, 1, false, 0, params, rsvdCnt)` writes rsvdCnt through a reference; in Python
    the count is the return value, so a seventh argument is a ParameterError naming rsvdCnt and the legal call (not a
    bare TypeError, and never silently ignored: the caller would read a stale count); nothing is written."""
    core = aj.Core("atlas-a2")
    src, dst = core.local_tensor("half", 256), core.local_tensor("half", 256)
    src[:] = np.arange(256, dtype=np.float16)
    p = aj.GatherMaskParams(1, 1, 8, 8)
    _refused(core, aj.ParameterError, lambda: aj.GatherMask(dst, src, 1, False, 0, p, 0), "rsvdCnt",
             "rsvdCnt = aj.GatherMask(", "SPEC-2 9.3", "7 arguments")
    _refused(core, aj.ParameterError, lambda: aj.GatherMask(dst, src, 1, False, 0, p, 0, 0), "8 arguments")
    assert aj.GatherMask(dst, src, 1, False, 0, p) == 64
    assert np.array_equal(dst.numpy()[:64], np.arange(0, 128, 2, dtype=np.float16))


@pytest.mark.parametrize("device", OFFERING)
def test_gather_doc_example_every_form(device):
    """DK Gather.md: src = 128 halves 0..127, offsets 254, 252, ..., 0 (bytes), 512 elements (4 repeats of 128):
    dst = 127, 126, ..., 0 in every form."""
    core = aj.Core(device)
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 512)
    offs = core.local_tensor("uint32", 512)
    src[:] = np.arange(128, dtype=np.float16)
    offs[:] = np.tile(np.arange(254, -1, -2, dtype=np.uint32), 4)
    want = np.tile(np.arange(127, -1, -1), 4).astype(np.float16)
    for call in (lambda: aj.Gather(dst, src, offs, 0, 128, 4, 8),
                 lambda: aj.Gather(dst, src, offs, 0, [2**64 - 1, 2**64 - 1], 4, 8),
                 lambda: aj.Gather(dst, src, offs, 0, 512)):
        dst[:] = np.zeros(512, np.float16)
        call()
        assert np.array_equal(dst.numpy(), want)


@pytest.mark.parametrize("device", OFFERING)
def test_gather_mask_doc_example(device):
    """DK GatherMask.md built-in example: src0 = 1..256 (32-bit), pattern 2, normal mode, {1, 4, 8, 0}, in place:
    dst = 2, 4, ..., 256 and rsvdCnt 128; dst[128..255] keep 129 ... 256 (SPEC-2 E-18, D58)."""
    core = aj.Core(device)
    for dtype in ("uint32", "float"):
        src = core.local_tensor(dtype, 256)
        src[:] = np.arange(1, 257)
        assert aj.GatherMask(src, src, 2, False, 0, aj.GatherMaskParams(1, 4, 8, 0)) == 128
        assert np.array_equal(src.numpy()[:128], np.arange(2, 257, 2))
        assert np.array_equal(src.numpy()[128:], np.arange(129, 257))


@pytest.mark.parametrize("device", ["ascend950", "atlas-a2"])
def test_gather_counter_mode_dst_bound_is_the_last_lane_written(device):
    """Issue 11 / SPEC-2 1.5: in counter mode the last repeat writes only its count % L lanes (SPEC-2 1.4), so a dst
    holding exactly the count elements is legal (it was refused: the bound took every lane of the last repeat); one
    element less is refused, nothing written."""
    core = aj.Core(device)
    src, offs = core.local_tensor("half", 512), core.local_tensor("uint32", 200)
    src[:] = np.arange(512).astype(np.float16)
    offs[:] = np.arange(200, dtype=np.uint32)[::-1] * 2
    dst = core.local_tensor("half", 200)
    core.SetMaskCount()
    aj.Gather(dst, src, offs, 0, 200, 1, 8)
    assert np.array_equal(dst.numpy(), np.arange(200)[::-1].astype(np.float16))
    short = core.local_tensor("half", 199)
    _refused(core, aj.OutOfBoundsError, lambda: aj.Gather(short, src, offs, 0, 200, 1, 8), "dst")


def test_gather_mask_310p_total_count_bounds_end_at_the_last_element():
    """D58 310P ("配置方式二"): mask is the total count, the last repeat handles mask % L elements, so src0 and the
    user pattern need only that far (a src0 of exactly `mask` elements was refused, its bound taking a full last
    repeat); one element less is refused."""
    core = aj.Core("atlas-inference-aicore")
    src, dst = core.local_tensor("half", 200), core.local_tensor("half", 200)
    src[:] = np.arange(200).astype(np.float16)
    assert aj.GatherMask(dst, src, 2, True, 200, aj.GatherMaskParams(1, 0, 8, 8)) == 100
    assert np.array_equal(dst.numpy()[:100], np.arange(1, 200, 2).astype(np.float16))
    pattern = core.local_tensor("uint16", 16 + 5)   # repeat 1's 72 bits start 32 B in: 32 + 9 bytes
    pattern[:] = np.full(21, 0xFFFF, np.uint16)
    assert aj.GatherMask(dst, src, pattern, True, 200, aj.GatherMaskParams(1, 0, 8, 1)) == 200
    assert np.array_equal(dst.numpy(), np.arange(200).astype(np.float16))
    short = core.local_tensor("half", 199)
    _refused(core, aj.OutOfBoundsError, lambda: aj.GatherMask(dst, short, 2, True, 200, aj.GatherMaskParams(1, 0, 8, 8)),
             "src0")


@pytest.mark.parametrize("device", ["ascend950", "atlas-a2", "atlas-200i-500-a2"])
def test_gather_mask_in_place_refuses_a_later_repeat_reading_packed_output(device):
    """audit16m: in place (dst == src0, src0BlockStride 1, src0RepeatStride 8, the D34 exception), reduce mode with
    more than L elements per outer repeat (D58 "配置方式一") makes outer repeats read overlapping 256-B windows: here
    outer repeat 0 packs 255 of its 256 halves into dst[0..254], bytes outer repeat 1 (elements 128..383) reads
    afterwards. SPEC 8.2's general rule, which D34 keeps for every high-dim API ("an earlier iteration's dst must not
    be a later iteration's src"), makes that an OverlapError before anything is written (the kernel had run the
    repeats in order and outer repeat 1 had read the shifted copy); the mask register stays as it was. The same
    call with at most L elements per outer repeat never lets the packed output pass the next repeat's start and
    still runs in place."""
    core = aj.Core(device)
    src = core.local_tensor("half", 512)
    src[:] = np.arange(512, dtype=np.float16)
    pattern = core.local_tensor("uint16", 32)
    bits = np.ones(512, np.uint8)
    bits[0] = 0                                  # outer repeat 0 keeps elements 1..255
    pattern[:] = np.packbits(bits, bitorder="little").view(np.uint16)
    core.SetVectorMask(0x1234, 0x5678)
    _refused(core, aj.OverlapError, lambda: aj.GatherMask(src, src, pattern, True, 256, (1, 2, 8, 0)), "dst",
             "src0", "SPEC 8.2")
    assert (core.mask_defined, core.mask_high, core.mask_low) == (True, 0x1234, 0x5678)
    n = aj.GatherMask(src, src, pattern, True, 128, (1, 2, 8, 0))     # both repeats drop their element 0
    want = np.concatenate([np.arange(1, 128), np.arange(129, 256)]).astype(np.float16)
    assert n == 254 and np.array_equal(src.numpy()[:254], want)


@pytest.mark.parametrize("device", ["ascend950", "atlas-a2"])
@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync,dcache", reason="gathers from a fresh src: it checks "
                                                                             "which offset each refusal names, not the "
                                                                             "values")
def test_gather_offset_checks_name_the_first_offset_each_check_refuses_in_their_order(device):
    """D57's checks of the used offsets (one compiled pass since session 38): the device's range first (the 950's
    2**17 - 1 for 16-bit types), then alignment, then bounds, each naming the first offset that fails it, whatever
    offsets fail the later checks before it; offsets past the count or in masked-off lanes are never checked."""
    core = aj.Core(device)
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 64)
    offs = core.local_tensor("uint32", 64)
    base = np.arange(64, dtype=np.uint32) * 2
    cases = [({40: 2**17, 7: 3, 5: 1000}, aj.ParameterError, "src_offset[40]")] if device == "ascend950" else []
    cases += [({40: 3, 9: 1000, 50: 5}, aj.AlignmentError, "src_offset[40]"),
              ({33: 1000, 60: 1002}, aj.OutOfBoundsError, "src_offset[33]")]
    for faults, error, name in cases:
        o = base.copy()
        for i, v in faults.items():
            o[i] = v
        offs[:] = o
        _refused(core, error, lambda: aj.Gather(dst, src, offs, 0, 64), name)
        offs[:] = np.where(np.arange(64) < min(faults), o, base)   # the same offsets past the count: no refusal
        aj.Gather(dst, src, offs, 0, min(faults))
    o = base.copy()
    o[3] = 3                                                        # lane 3 masked off: its offset unused
    offs[:] = o
    aj.Gather(dst, src, offs, 0, [0xFFFFFFFFFFFFFFF7, 0], 1, 8)
    o[4] = 5
    offs[:] = o
    _refused(core, aj.AlignmentError, lambda: aj.Gather(dst, src, offs, 0, [0xFFFFFFFFFFFFFFF7, 0], 1, 8),
             "src_offset[4]")
