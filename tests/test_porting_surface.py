"""Porting-surface gaps found by porting public kernels into kernels/ (session 7, port2; session 8, port3; session 9,
port4 and port5), each with its regression: parameter structs set field by field as C++ kernels do, the 950's
Compares/Select overload taking the scalar as a LocalTensor element (`src1Local[0]`), the older DataCopyPad
prototype (DataCopyParams + DataCopyPadParams), Compare's operator form on 32-B aligned sources; ToBfloat16,
TPosition.LCM, InitBuffer again on the same pipe and GlobalTensor's operator(); EnQue/DeQue with their C++ template
arguments, TBuf's queue calls and a brace-list DataCopyPadParams beside a DataCopyParams; session 38 (port38,
audit38): GlobalTensor<T> with T positional, TQue's GetTensorCountInQue / HasIdleBuffer / FreeAllEvent, TBuf::Get's
`len`, FreeTensor of a tensor still enqueued, the bounds hint inside a launch, HardEvent an IntEnum."""
import re

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj


# --- parameter structs: `DataCopyPadExtParams<T> p; p.rightPadding = 24;` ---------------------------------------------
@pytest.mark.parametrize("cls, field, value, made", [
    (aj.DataCopyExtParams, "blockLen", 8, lambda: aj.DataCopyExtParams(1, 8, 0, 0, 0)),
    (aj.DataCopyPadExtParams, "rightPadding", 24, lambda: aj.DataCopyPadExtParams(False, 0, 24, 0)),
    (aj.BinaryRepeatParams, "dstRepStride", 4, lambda: aj.BinaryRepeatParams(1, 1, 1, 4, 8, 8)),
    (aj.UnaryRepeatParams, "srcRepStride", 4, lambda: aj.UnaryRepeatParams(1, 1, 8, 4)),
    (aj.BrcbRepeatParams, "dstRepStride", 2, lambda: aj.BrcbRepeatParams(1, 2)),
    (aj.GatherMaskParams, "repeatTimes", 3, lambda: aj.GatherMaskParams(1, 3, 8, 8)),
])
def test_a_default_made_struct_takes_field_assignments_like_its_cpp_original(cls, field, value, made):
    p = cls()
    setattr(p, field, value)
    assert p == made() and hash(p) == hash(made()) and getattr(p, field) == value
    with pytest.raises(AttributeError):
        p.noSuchField = 1


def test_data_copy_pad_validates_a_struct_again_after_a_field_changes():
    """The validation memo keys on the struct's values: a struct proven once and then changed to an illegal
    value is refused, and the UB stays as it was."""
    gm = np.arange(64, dtype=np.uint8)
    with aj.Core("atlas-a2") as core:
        t = aj.LocalMemAllocator().Alloc("uint8", 64)
        copy = aj.DataCopyExtParams()
        copy.blockLen = 8
        pad = aj.DataCopyPadExtParams()
        pad.rightPadding = 24
        aj.DataCopyPad(t, aj.GlobalTensor(gm), copy, pad)
        assert list(t.numpy()[:8]) == list(range(8))
        before = core.ub.copy()
        pad.rightPadding = 40    # more than 32 bytes of padding (SPEC-2 1.1)
        with pytest.raises(aj.AscendJitError):
            aj.DataCopyPad(t, aj.GlobalTensor(gm), copy, pad)
        assert np.array_equal(core.ub, before)


def test_binary_repeat_params_set_field_by_field_drive_the_high_dim_form():
    with aj.Core("ascend950"):
        alloc = aj.LocalMemAllocator()
        dst, a = alloc.Alloc("float", 256), alloc.Alloc("float", 256)
        a[:] = np.arange(256, dtype=np.float32)
        dst[:] = np.zeros(256, np.float32)
        params = aj.BinaryRepeatParams()
        params.dstRepStride = 16
        params.src0RepStride = params.src1RepStride = 16
        aj.Add(dst, a, a, 64, 2, params)
        want = np.zeros(256, np.float32)
        want[:64], want[128:192] = 2 * a.numpy()[:64], 2 * a.numpy()[128:192]
        assert np.array_equal(dst.numpy(), want)


# --- the 950's scalar given as a LocalTensor element ------------------------------------------------------------------
def _operands(device):
    alloc = aj.LocalMemAllocator()
    x, y = alloc.Alloc("float", 256), alloc.Alloc("float", 16)
    bits, sel, z = alloc.Alloc("uint8", 32), alloc.Alloc("uint8", 32), alloc.Alloc("float", 256)
    x[:] = np.array([np.nan, -0.0, 0.0, np.inf] + list(np.linspace(-5, 5, 252)), np.float32)
    y[:] = np.arange(16, dtype=np.float32) - 1.5
    sel[:] = np.arange(32, dtype=np.uint8) * 37
    bits[:] = np.zeros(32, np.uint8)
    z[:] = np.zeros(256, np.float32)
    return x, y, bits, sel, z


@pytest.mark.parametrize("mode", [aj.CMPMODE.LT, aj.CMPMODE.NE])
def test_compares_with_a_tensor_element_equals_compares_with_its_value_on_the_950(mode):
    with aj.Core("ascend950"):
        x, y, bits, _, _ = _operands("ascend950")
        aj.Compares(bits, x, y[3], mode, 256)
        by_element = bits.numpy().copy()
        aj.Compares(bits, x, y.GetValue(3), mode, 256)
        assert np.array_equal(by_element, bits.numpy()) and by_element.any()
        aj.Compares(bits, x, y[3], mode, 64, 4, aj.UnaryRepeatParams())   # the high-dim form takes it too
        assert np.array_equal(by_element, bits.numpy())


def test_select_with_a_tensor_element_equals_select_with_its_value_on_the_950():
    with aj.Core("ascend950"):
        x, y, _, sel, z = _operands("ascend950")
        aj.Select(z, sel, x, y[5], aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 256)
        by_element = z.numpy().copy()
        aj.Select(z, sel, x, np.float32(3.5), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 256)
        assert by_element.tobytes() == z.numpy().tobytes() and (by_element == 3.5).any()


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-inference-aicore"])
def test_a_tensor_element_scalar_is_refused_off_the_950_before_anything_is_written(device):
    with aj.Core(device) as core:
        x, y, bits, sel, z = _operands(device)
        before = core.ub.copy()
        with pytest.raises(aj.UnsupportedDeviceError, match="ascend950"):
            aj.Compares(bits, x, y[0], aj.CMPMODE.LT, 256)
        with pytest.raises(aj.UnsupportedDeviceError, match="src1"):
            aj.Select(z, sel, x, y[0], aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 256)
        assert np.array_equal(core.ub, before)


def test_a_tensor_element_scalar_of_another_dtype_is_refused():
    with aj.Core("ascend950"):
        x, _, bits, sel, z = _operands("ascend950")
        halves = aj.LocalTensor(x.core, "half", 8192, 16)
        with pytest.raises(aj.UnsupportedDTypeError, match="scalar.dtype"):
            aj.Compares(bits, x, halves[0], aj.CMPMODE.LT, 256)
        with pytest.raises(aj.UnsupportedDTypeError, match="src1.dtype"):
            aj.Select(z, sel, x, halves[0], aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 256)


def test_the_sanitizer_sees_the_tensor_element_read_by_the_vector_unit():
    """The element is read by the vector pipe: an element the kernel never wrote is an uninitialised read."""
    with aj.Core("ascend950", sanitize="report") as core:
        alloc = aj.LocalMemAllocator()
        x, y, bits = alloc.Alloc("float", 64), alloc.Alloc("float", 8), alloc.Alloc("uint8", 32)
        aj.Duplicate(x, 1.0, 64)
        aj.Compares(bits, x, y[0], aj.CMPMODE.LT, 64)
    assert [(r.check, r.operand) for r in core.sanitizer.reports] == [("init", "scalar")]


# --- SetPadValue((uint8_t)0): T deduced from the argument ------------------------------------------------------------
def test_set_pad_value_takes_its_type_from_a_numpy_scalar():
    gm = np.arange(1, 9, dtype=np.uint8)
    with aj.Core("atlas-a2") as core:
        t = aj.LocalMemAllocator().Alloc("uint8", 32)
        aj.SetPadValue(np.uint8(7))
        assert core.pad_value[0].name == "uint8"
        aj.DataCopyPad(t, aj.GlobalTensor(gm), aj.DataCopyExtParams(1, 8, 0, 0, 0),
                       aj.DataCopyPadExtParams(False, 0, 24, 0))
        assert list(t.numpy()) == list(range(1, 9)) + [7] * 24
        with pytest.raises(aj.ParameterError, match="dtype"):
            aj.SetPadValue(7)          # a Python int names no type: the dtype is needed
        assert core.pad_value[0].name == "uint8"


# --- aj.launch(..., bounds="ub"): whole-vector loads past a kernel's last buffer ------------------------------------
def _read_past(x, z):
    """Reads 32 halves through a 16-half tensor (the second half of the read lies in the next allocation)."""
    alloc = aj.LocalMemAllocator()
    a, after, b = alloc.Alloc("half", 16), alloc.Alloc("half", 16), alloc.Alloc("half", 32)
    aj.Duplicate(after, 7.0, 16)
    aj.DataCopy(a, aj.GlobalTensor(x), 16)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.Adds(b, a, 1.0, 32, 1, aj.UnaryRepeatParams())   # the high-dim form: one repeat of 32 lanes
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(aj.GlobalTensor(z), b, 32)


@pytest.mark.ascend_sanitize(checks="race,init,sync", reason="runs the bounds=\"ub\" escape hatch, which the memory "
                             "check reports by design; every block writes the same GM on purpose")
def test_launch_passes_its_bounds_rule_to_every_block():
    x, z = np.arange(16, dtype=np.float16), np.zeros(32, np.float16)
    with pytest.raises(aj.OutOfBoundsError):
        aj.launch(_read_past, 2, "atlas-a2", x, z)
    aj.launch(_read_past, 2, "atlas-a2", x, z, bounds="ub")
    assert list(z) == list(np.arange(1, 17)) + [8] * 16
    with pytest.raises(aj.ParameterError, match="bounds"):
        aj.launch(_read_past, 1, "atlas-a2", x, z, bounds="none")
    with pytest.raises(aj.ParameterError, match="bounds"):
        aj.launch(_read_past, 1, "atlas-a2", x, z, bounds="ub", parallel="processes")


# --- AscendC::ToFloat(bfloat16_t) -------------------------------------------------------------------------------------
def test_to_float_widens_a_bfloat16_scalar_exactly():
    bf16 = np.dtype(ml_dtypes.bfloat16)   # (numpy knows the name only once ml_dtypes is imported)
    bits = np.array([0x3FC0, 0x0001, 0xFF80, 0x7F7F, 0x8000], np.uint16)   # 1.5, a subnormal, -inf, MAX, -0
    for b in bits:
        value = aj.GlobalTensor(np.array([b], np.uint16).view(bf16)).GetValue(0)
        f = aj.ToFloat(value)
        assert type(f) is np.float32 and int(np.array(f).view(np.uint32)) == int(b) << 16
    for wrong in (1.5, np.float32(1.5), np.array([1, 2], np.uint16).view(bf16)):
        with pytest.raises(aj.ParameterError, match="bfloat16"):
            aj.ToFloat(wrong)


def test_to_bfloat16_rounds_a_float_scalar_once_to_nearest_even():
    """`paddingValue = ToBfloat16(0)`, `outGm(i) = ToBfloat16(0.f)` (ops-nn BatchNormGradV3 and kin): ToFloat's
    inverse, one RNE rounding as SPEC-2 D29 rounds every float scalar; the result is SetValue's bfloat16 exactly."""
    bf16 = np.dtype(ml_dtypes.bfloat16)   # (numpy knows the name only once ml_dtypes is imported)
    cases = [(0.0, 0x0000), (-0.0, 0x8000), (3.0, 0x4040), (1 + 3 / 256, 0x3F82), (1 + 1 / 256, 0x3F80),
             (np.float32(1 + 5 / 256), 0x3F82), (1e39, 0x7F80), (-1e39, 0xFF80), (float("nan"), 0x7FC0),
             (np.float32(2 ** -133), 0x0001), (7, 0x40E0)]
    for value, bits in cases:
        b = aj.ToBfloat16(value)
        assert b.dtype == bf16 and int(np.array(b).view(np.uint16)) == bits, (value, hex(bits))
    assert aj.ToFloat(aj.ToBfloat16(np.float32(1.5))) == np.float32(1.5)
    with aj.Core("atlas-a2") as core:
        t = core.local_tensor("bfloat16", 16)
        t.SetValue(3, aj.ToBfloat16(-2.5))
        assert t.GetValue(3) == -2.5
    for wrong in (True, "1.0", None):
        with pytest.raises(aj.ParameterError, match="ToBfloat16"):
            aj.ToBfloat16(wrong)


def test_tposition_lcm_is_veccalc():
    """`TBuf<QuePosition::LCM> workspace_buf_;` (KsanaLLM's argmax kernel): the devkit's enum has `LCM = VECCALC`,
    one position under two names."""
    assert aj.TPosition.LCM is aj.TPosition.VECCALC and aj.QuePosition.LCM is aj.TPosition.VECCALC
    with aj.Core("atlas-a2"):
        pipe, buf = aj.TPipe(), aj.TBuf(aj.QuePosition.LCM)
        pipe.InitBuffer(buf, 256)
        assert buf.Get("float").GetPosition() is aj.TPosition.VECCALC


def test_init_buffer_again_on_the_same_pipe_rebinds_to_new_buffers():
    """KsanaLLM's rotary embedding runs Init (InitBuffer of the same queues and TBuf) twice on one TPipe: the devkit's
    TPipe::InitBuffer carves new buffers after the pipe's others and leaves the old ones allocated."""
    with aj.Core("atlas-a2") as core:
        pipe, que, buf = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 1), aj.TBuf(aj.TPosition.LCM)
        pipe.InitBuffer(que, 1, 64)
        pipe.InitBuffer(buf, 96)
        t = que.AllocTensor("half")
        with pytest.raises(aj.StateError, match="still allocated"):     # its buffer would be orphaned
            pipe.InitBuffer(que, 1, 128)
        que.EnQue(t)
        with pytest.raises(aj.StateError, match="enqueued"):
            pipe.InitBuffer(que, 1, 128)
        que.FreeTensor(que.DeQue("half"))
        old = buf.Get("half")
        pipe.InitBuffer(que, 2, 128)
        pipe.InitBuffer(buf, 96)
        a, b = que.AllocTensor("half"), que.AllocTensor("half")
        assert a.GetSize() == 64 and b.addr == a.addr + 128 and a.addr >= old.addr + 96 and t.addr < old.addr
        assert buf.Get("half").addr >= b.addr + 128
        old.SetValue(0, 2.0)                            # the old TBuf bytes stay allocated to the pipe
        assert old.GetValue(0) == 2.0
        que.FreeTensor(a)
        que.FreeTensor(b)
        with pytest.raises(aj.StateError, match="another TPipe"):
            aj.TPipe().InitBuffer(que, 1, 64)
        pipe.Reset()
        assert sum(size for _, size in core._free) == core.spec.ub_bytes


def test_an_index_at_the_end_names_the_slice_that_is_the_empty_view():
    """Port 58c: ops-cv UpsampleNearest3d forms `gm[size]` for a block without tail rows and copies nothing from it;
    the index rule stays [0, size) for both tensor kinds (decisions.md "Indexing") and the refusal names `[size:]`."""
    g = aj.GlobalTensor(np.arange(64, dtype=np.float32))
    with pytest.raises(aj.OutOfBoundsError, match=r"'index' = 64 .*the slice \[64:\].*\(legal: \[0, 64\)\)"):
        g[64]
    assert g[64:].GetSize() == 0
    with aj.Core("atlas-a2") as core:
        t = core.local_tensor("float", 64)
        with pytest.raises(aj.OutOfBoundsError, match=r"the slice \[64:\]"):
            t[64]
        with pytest.raises(aj.OutOfBoundsError) as info:
            t[65]
        assert "slice" not in str(info.value)


def test_global_tensor_call_reads_an_element_like_local_tensor_call():
    """`scale = scaleGm(i);`: GlobalTensor's operator() is GetValue, as LocalTensor's is."""
    g = aj.GlobalTensor(np.array([1.5, -2.0, 3.25], np.float32))
    assert g(1) == np.float32(-2.0) and type(g(2)) is np.float32 and g[1](1) == np.float32(3.25)
    with pytest.raises(aj.OutOfBoundsError):
        g(3)
    with pytest.raises(aj.StateError):
        aj.GlobalTensor()(0)


def test_deque_as_another_dtype_reinterprets_the_enqueued_tile():
    """ops-math BitwiseAnd's int32 kernel: `AllocTensor<int16_t>`, And on int16 lanes, `EnQue<int16_t>`, and the copy-out
    `DeQue<int32_t>()`: the same bytes, half the elements."""
    with aj.Core("atlas-a2"):
        pipe, que = aj.TPipe(), aj.TQue(aj.TPosition.VECOUT, 1)
        pipe.InitBuffer(que, 1, 64)
        t = que.AllocTensor("int16")
        t[:] = np.arange(32, dtype=np.int16)
        que.EnQue(t)
        wide = que.DeQue("int32")
        assert wide.dtype.name == "int32" and wide.GetSize() == 16 and wide.addr == t.addr
        assert wide.numpy().tolist() == np.arange(32, dtype=np.int16).view(np.int32).tolist()
        que.FreeTensor(wide)


# --- LocalTensor.SetSize ---------------------------------------------------------------------------------------------
@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync", reason="checks bounds on tensors whose values do not "
                             "matter")
def test_set_size_changes_the_bounds_later_calls_check():
    with aj.Core("atlas-a2") as core:
        pipe, que = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(que, 1, 512)
        t = que.AllocTensor("half")
        assert t.GetSize() == 256
        t.SetSize(128)
        assert t.GetSize() == 128 and len(t) == 128
        dst = core.local_tensor("half", 256, addr=4096)
        with pytest.raises(aj.OutOfBoundsError):
            aj.Adds(dst, t, 1.0, 256)              # 256 elements through a tensor now of 128
        t.SetSize(256)
        aj.Adds(dst, t, 1.0, 256)
        before = core.ub.copy()
        for wrong in (257, -1, 2.0, True):      # past the queue buffer, negative, not an int
            with pytest.raises(aj.ParameterError):
                t.SetSize(wrong)
        assert t.GetSize() == 256 and np.array_equal(core.ub, before)
        que.FreeTensor(t)
        with pytest.raises(aj.StateError):
            t.SetSize(16)


_REMEMBERED_CALLS = {  # one count-form call of each element-wise entry kind (binary, scalar, unary, ternary, fill)
    "Sub": lambda d, a, b, n: aj.Sub(d, a, b, n), "Adds": lambda d, a, b, n: aj.Adds(d, a, 1.0, n),
    "Axpy": lambda d, a, b, n: aj.Axpy(d, a, 1.0, n), "Exp": lambda d, a, b, n: aj.Exp(d, a, n),
    "MulAddDst": lambda d, a, b, n: aj.MulAddDst(d, a, b, n), "Duplicate": lambda d, a, b, n: aj.Duplicate(d, 1.0, n)}


@pytest.mark.parametrize("api", list(_REMEMBERED_CALLS))
@pytest.mark.parametrize("shrunk", ["dst", "src"])
def test_set_size_reaches_a_call_the_same_tensors_made_before(api, shrunk):
    """The element-wise entries remember their last call by its tensor objects (decisions.md "The recent call"):
    after SetSize the same call is validated again, so a count past the new GetSize() is refused (independent check:
    it was accepted and wrote past dst's new end)."""
    if api == "Duplicate" and shrunk == "src":
        pytest.skip("Duplicate's count form has no source tensor")
    core = aj.Core("atlas-a2")
    a, b, d = (core.local_tensor("half", 512) for _ in range(3))
    for t in (a, b, d):
        core.ub_written_by_host(t.addr, t.nbytes)  # zeros, as written (clean under --ascend-sanitize)
    _REMEMBERED_CALLS[api](d, a, b, 512)
    _REMEMBERED_CALLS[api](d, a, b, 512)  # now the entry's recent call
    (d if shrunk == "dst" else a).SetSize(256)
    before = core.ub.copy()
    with pytest.raises(aj.OutOfBoundsError, match="512"):
        _REMEMBERED_CALLS[api](d, a, b, 512)
    assert np.array_equal(core.ub, before)
    (d if shrunk == "dst" else a).SetSize(512)
    _REMEMBERED_CALLS[api](d, a, b, 512)


@aj.Reg.simd_vf
def _store_two_vectors(dst, src):
    mask = aj.Reg.CreateMask("half")
    r = aj.Reg.RegTensor("half")
    aj.Reg.LoadAlign(r, src, 0)
    aj.Reg.StoreAlign(dst, r, mask, 0)
    aj.Reg.StoreAlign(dst, r, mask, 128)


def test_set_size_reaches_a_vf_that_addressed_the_tensor_before():
    """A compiled VF's tensor handles (reg.py, memoised per core) hold the tensor's extent: after SetSize the next
    call addresses the new one, as the plain run does."""
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 256)
    core.ub_written_by_host(src.addr, src.nbytes)
    _store_two_vectors(dst, src)
    dst.SetSize(128)
    before = core.ub.copy()
    with pytest.raises(aj.OutOfBoundsError):
        _store_two_vectors(dst, src)
    assert np.array_equal(core.ub, before)


# --- TBuf.GetWithOffset<T>(size, bufOffset) --------------------------------------------------------------------------
def test_get_with_offset_carves_a_tensor_inside_the_tbuf():
    with aj.Core("atlas-a2"):
        pipe, buf = aj.TPipe(), aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(buf, 1024)
        whole = buf.Get("int32")
        part = buf.GetWithOffset("int32", 128, 64)          # the DK example: 128 int32 from byte 64
        assert (part.addr, part.GetSize(), part.dtype.name) == (whole.addr + 64, 128, "int32")
        aj.Duplicate(whole, np.int32(0), 256)
        aj.Duplicate(part, np.int32(7), 128)
        assert list(np.flatnonzero(whole.numpy())) == list(range(16, 144))
        assert buf.GetWithOffset("half", 0, 1024).GetSize() == 0
        with pytest.raises(aj.AlignmentError):
            buf.GetWithOffset("int32", 8, 48)
        for size, offset in ((241, 64), (1, 1056)):        # past the buffer's 1024 bytes
            with pytest.raises(aj.ParameterError):
                buf.GetWithOffset("int32", size, offset)
    with pytest.raises(aj.StateError):
        aj.TBuf().GetWithOffset("half", 1, 0)


@pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync", reason="sets the scalar element between calls as host "
                             "code would, without kernel synchronisation")
def test_the_950_leaky_relu_takes_a_single_point_tensor():
    """The 950's LeakyRelu accepts `src1Local[0]` (devkit include/basic_api: "one of src0/src1 should be scalar or
    single point LocalTensor"); the element is read at each call, so a changed element is seen even when the same
    sub-tensor object is passed again (no memoised value)."""
    op = aj.LeakyRelu
    with aj.Core("ascend950"):
        x, y, _, _, z = _operands("ascend950")
        element = y[3]
        op(z, x, element, 256)
        by_element = z.numpy().copy()
        op(z, x, y.GetValue(3), 256)
        assert by_element.tobytes() == z.numpy().tobytes()
        y.SetValue(3, np.float32(-0.25))
        op(z, x, element, 256)
        again = z.numpy().copy()
        op(z, x, np.float32(-0.25), 256)
        assert again.tobytes() == z.numpy().tobytes() and again.tobytes() != by_element.tobytes()
        op(z, x, element, 64, 4, aj.UnaryRepeatParams())           # the high-dim form too
        assert again.tobytes() == z.numpy().tobytes()


@pytest.mark.parametrize("api", ["Adds", "Muls", "Maxs", "Mins", "Axpy"])
def test_the_950_flexible_scalar_position_variants_are_not_offered(api):
    """SPEC-2 14: Adds/Muls/Maxs/Mins with the scalar as a tensor element (the 950's 灵活标量位置 pages) are not
    offered; a ParameterError naming the scalar, in both forms, with nothing written."""
    op = getattr(aj, api)
    with aj.Core("ascend950") as core:
        x, y, _, _, z = _operands("ascend950")
        before = core.ub.copy()
        for call in (lambda: op(z, x, y[3], 256), lambda: op(z, x, y[3], 64, 4, aj.UnaryRepeatParams())):
            with pytest.raises(aj.ParameterError, match="scalar.*SPEC-2 14"):
                call()
        assert np.array_equal(core.ub, before)


def test_the_tensor_scalar_family_refuses_a_single_point_tensor_off_the_950():
    with aj.Core("atlas-a2") as core:
        x, y, _, _, z = _operands("atlas-a2")
        before = core.ub.copy()
        with pytest.raises(aj.UnsupportedDeviceError, match="ascend950"):
            aj.LeakyRelu(z, x, y[0], 256)
        for op in (aj.Adds, aj.Muls, aj.Maxs, aj.Mins):
            with pytest.raises(aj.ParameterError, match="SPEC-2 14"):
                op(z, x, y[0], 256)
        assert np.array_equal(core.ub, before)


def test_the_sanitizer_sees_the_tensor_scalar_read_of_leaky_relu():
    with aj.Core("ascend950", sanitize="report") as core:
        alloc = aj.LocalMemAllocator()
        x, y, z = alloc.Alloc("float", 64), alloc.Alloc("float", 8), alloc.Alloc("float", 64)
        aj.Duplicate(x, 1.0, 64)
        aj.LeakyRelu(z, x, y[0], 64)
    assert [(r.check, r.operand) for r in core.sanitizer.reports] == [("init", "scalar")]


# --- GlobalTensor.SetL2CacheHint(CacheMode) ------------------------------------------------------------------------
def test_set_l2_cache_hint_is_checked_and_changes_no_value():
    gm = aj.GlobalTensor(np.arange(16, dtype=np.float16))
    with aj.Core("atlas-a2"):
        gm.SetL2CacheHint(aj.CacheMode.CACHE_MODE_DISABLE)
        gm.SetL2CacheHint(aj.CacheMode.CACHE_MODE_NORMAL, aj.CacheRwMode.READ)
        gm.SetL2CacheHint(0, 1)   # CACHE_MODE_DISABLE's and READ's values (decisions.md "Integer parameters")
        for mode in (aj.CacheMode.CACHE_MODE_PERSISTENT, aj.CacheMode.CACHE_MODE_LAST, 2, 3, True):
            with pytest.raises(aj.ParameterError, match="mode"):
                gm.SetL2CacheHint(mode)
        with pytest.raises(aj.ParameterError, match="rw_mode"):
            gm.SetL2CacheHint(0, 0)
        assert list(gm.numpy()) == list(range(16))
    for device in ("atlas-200i-500-a2", "atlas-inference-aicore", "atlas-training"):
        with aj.Core(device), pytest.raises(aj.UnsupportedDeviceError, match="SetL2CacheHint"):
            gm.SetL2CacheHint(aj.CacheMode.CACHE_MODE_DISABLE)


# --- the older DataCopyPad prototype: DataCopyParams + DataCopyPadParams -----------------------------------------------
@pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync", reason="compares two call shapes back to back, without "
                             "kernel synchronisation")
def test_data_copy_pad_takes_the_older_structs_as_the_ext_ones():
    """`DataCopyPad(ub, gm, DataCopyParams{2, 20, 4, 1}, DataCopyPadParams{true, 0, 6, 0})` (devkit cumsum/fmod
    examples, the unaligned-copy best practice) copies as its DataCopyExtParams / DataCopyPadExtParams twin, GM -> UB
    and UB -> GM; a default-made struct set field by field (srcGap: the devkit's newer name of srcStride) too."""
    gm = np.arange(1, 80, dtype=np.float16)
    with aj.Core("atlas-a2"):
        t = aj.LocalMemAllocator().Alloc("half", 128)
        aj.DataCopyPad(t, aj.GlobalTensor(gm), aj.DataCopyExtParams(2, 20, 4, 1, 0),
                       aj.DataCopyPadExtParams(True, 0, 6, 0))
        want = t.numpy().copy()
        t[:] = np.zeros(128, np.float16)
        p = aj.DataCopyParams()
        p.blockCount, p.blockLen, p.srcGap, p.dstGap = 2, 20, 4, 1
        assert (p.srcStride, p.dstStride) == (4, 1)
        aj.DataCopyPad(t, aj.GlobalTensor(gm), p, aj.DataCopyPadParams(True, 0, 6, 0))
        assert t.numpy().tobytes() == want.tobytes()
        t[:] = np.zeros(128, np.float16)
        aj.DataCopyPad(t, aj.GlobalTensor(gm), (2, 20, 4, 1), aj.DataCopyPadParams(True, 0, 6, 0))  # a brace list
        assert t.numpy().tobytes() == want.tobytes()
        out, twin = np.zeros(40, np.float16), np.zeros(40, np.float16)
        aj.DataCopyPad(aj.GlobalTensor(out), t, aj.DataCopyParams(2, 20, 0, 2))
        aj.DataCopyPad(aj.GlobalTensor(twin), t, aj.DataCopyExtParams(2, 20, 0, 2, 0))
        assert out.tobytes() == twin.tobytes() and out[:10].tolist() == list(range(1, 11))


@pytest.mark.parametrize("copy, pad, match", [
    (aj.DataCopyParams(1, 65536, 0, 0), aj.DataCopyPadParams(), "blockLen"),           # uint16_t
    (aj.DataCopyParams(1, 8, 70000, 0), aj.DataCopyPadParams(), "srcStride"),
    (aj.DataCopyParams(1, 8, 0, 0), aj.DataCopyPadParams(True, 0, 256, 0), "rightPadding"),   # uint8_t
    (aj.DataCopyParams(1, 8, 0, 0), aj.DataCopyPadParams(True, 0, 4, 0x10000), "paddingValue"),   # > 16 bits
    (aj.DataCopyParams(1, 8, 0, 0), aj.DataCopyPadParams(True, 0, 4, 0.0), "paddingValue"),      # not an integer
    (aj.DataCopyParams(1, 8, 0, 0), aj.DataCopyPadParams(True, 0, 4, -1), "paddingValue"),
    (aj.DataCopyParams(1, 8, 0, 0), aj.DataCopyPadExtParams(True, 0, 4, 0), "pad_params"),  # no such C++ overload
    (aj.DataCopyExtParams(1, 8, 0, 0, 0), aj.DataCopyPadParams(), "pad_params"),
    (aj.DataCopyParams(1, 8, 0, 0), aj.DataCopyPadParams(True, 0, 17, 0), "rightPadding"),  # > 32 bytes of half
])
def test_the_older_structs_are_checked_before_anything_moves(copy, pad, match):
    gm = np.arange(64, dtype=np.float16)
    with aj.Core("atlas-a2") as core:
        t = aj.LocalMemAllocator().Alloc("half", 64)
        before = core.ub.copy()
        with pytest.raises(aj.ParameterError, match=match):
            aj.DataCopyPad(t, aj.GlobalTensor(gm), copy, pad)
        assert np.array_equal(core.ub, before)


@pytest.mark.parametrize("dtype, value, bits", [("half", 1, 0x0001), ("float", 1, 0x00000001),
                                                ("half", 0x3C00, 0x3C00), ("int16", 0xFFFF, 0xFFFF)])
def test_the_older_pad_value_is_the_pad_elements_bit_pattern(dtype, value, bits):
    """ops-nn's GeGluV2 sets `DataCopyPadParams.paddingValue = 1` (a uint64_t): the devkit hands it to
    set_mov_pad_val as it is, so the pad elements hold the bits 1 (the smallest subnormal of half or float), where
    DataCopyPadExtParams<T>{..., 1} would pad with the value 1.0."""
    d = np.dtype(aj.dtypes.resolve(dtype).np_dtype)
    gm = np.arange(1, 17).astype(d)
    with aj.Core("atlas-a2"):
        t = aj.LocalMemAllocator().Alloc(dtype, 32 // d.itemsize * 2)
        aj.DataCopyPad(t, aj.GlobalTensor(gm), aj.DataCopyParams(1, 3 * d.itemsize, 0, 0),
                       aj.DataCopyPadParams(True, 0, 2, value))
        raw = t.numpy()[:32 // d.itemsize].view(f"u{d.itemsize}")
        assert raw[:3].tobytes() == gm[:3].tobytes() and list(raw[3:5]) == [bits, bits]


def test_the_older_structs_follow_data_copy_pad_device_rules():
    gm = np.arange(64, dtype=np.float16)
    with aj.Core("atlas-inference-aicore"):
        t = aj.LocalMemAllocator().Alloc("half", 64)
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.DataCopyPad(t, aj.GlobalTensor(gm), aj.DataCopyParams(1, 8, 0, 0), aj.DataCopyPadParams())


# --- Compare's operator form: 256-byte aligned sources (SPEC-2 9.4) ---------------------------------------------------
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_the_compare_operator_needs_256_byte_aligned_sources(device):
    """`dst = src0 < src1` (SPEC-2 9.4): sources at 256-B boundaries compare as the count form; a source 32 B past
    one (a queue buffer after an odd one) is an AlignmentError naming it, nothing written (the count form takes it)."""
    x = np.linspace(-2, 2, 64, dtype=np.float32)
    y = np.float32(0.5) * x[::-1]
    with aj.Core(device):
        pipe, q = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, 32 + 4 * 256)
        whole = q.AllocTensor("float")
        a, b, shifted = whole[64:128], whole[128:192], whole[200:264]   # 256, 512 and 800 B into the buffer
        a[:], b[:], shifted[:] = x, y, x
        bits = aj.LocalTensor(aj.TPosition.VECCALC, 8192, 32, dtype="uint8")
        bits[:] = a < b
        assert np.array_equal(bits.numpy()[:8], np.packbits(x < y, bitorder="little"))
        before = bits.numpy().copy()
        with pytest.raises(aj.AlignmentError, match="src0 address"):
            bits[:] = shifted > b
        assert np.array_equal(bits.numpy(), before)
        aj.Compare(bits, shifted, b, aj.CMPMODE.GT, 64)   # the count form: 32-B alignment
        assert np.array_equal(bits.numpy()[:8], np.packbits(x > y, bitorder="little"))


# --- DataCopy(dst, src, {blockCount, blockLen, srcStride, dstStride}) -------------------------------------------------
def test_data_copy_takes_the_params_brace_list():
    gm = np.arange(256, dtype=np.float16)
    with aj.Core("atlas-a2") as core:
        alloc = aj.LocalMemAllocator()
        a, b = alloc.Alloc("half", 128), alloc.Alloc("half", 128)
        aj.DataCopy(a, aj.GlobalTensor(gm), aj.DataCopyParams(2, 2, 1, 1))
        aj.DataCopy(b, aj.GlobalTensor(gm), (2, 2, 1, 1))
        assert a.numpy()[:96].tobytes() == b.numpy()[:96].tobytes() and b.numpy()[48:64].tolist() == list(range(48, 64))
        before = core.ub.copy()
        for wrong in ((0, 2, 1, 1), (2, 2, 1), (2, 2.0, 1, 1)):     # blockCount 0; 3 values; a float
            with pytest.raises(aj.ParameterError):
                aj.DataCopy(b, aj.GlobalTensor(gm), wrong)
        assert np.array_equal(core.ub, before)


# --- QuePosition (the devkit's alias of TPosition) --------------------------------------------------------------------
def test_que_position_is_tposition():
    """`TQue<QuePosition::VECIN, 2>` / `TBuf<QuePosition::VECCALC>` in operator kernels (cann-ops)."""
    assert aj.QuePosition is aj.TPosition and aj.QuePosition.VECIN is aj.TPosition.VECIN
    with aj.Core("atlas-a2"):
        pipe, q, buf = aj.TPipe(), aj.TQue(aj.QuePosition.VECIN, 2), aj.TBuf(aj.QuePosition.VECCALC)
        pipe.InitBuffer(q, 2, 256)
        pipe.InitBuffer(buf, 256)
        assert q.AllocTensor("half").GetSize() == 128 and buf.Get("float").position is aj.TPosition.VECCALC


# --- TQueBind<src, dst, depth> -----------------------------------------------------------------------------------------
def test_tque_bind_is_a_queue_from_one_position_to_another():
    """`TQueBind<TPosition::VECIN, TPosition::VECOUT, 2>` (copy-only kernels: cann-ops Reshape, Gather, Cast): the
    devkit's TQue is TQueBind<pos, pos, depth>; tensors sit at the source position; EnQue/DeQue hand them over."""
    x = np.arange(64, dtype=np.float32)
    y = np.zeros(64, np.float32)
    with aj.Core("atlas-a2", sanitize="report") as core:
        pipe, q = aj.TPipe(), aj.TQueBind(aj.TPosition.VECIN, aj.TPosition.VECOUT, 2)
        assert isinstance(q, aj.TQue) and q.dst_position is aj.TPosition.VECOUT
        pipe.InitBuffer(q, 2, 128)
        for half in (0, 32):
            t = q.AllocTensor("float")
            assert t.position is aj.TPosition.VECIN
            aj.DataCopy(t, aj.GlobalTensor(x)[half], 32)
            q.EnQue(t)
            t = q.DeQue("float")
            aj.DataCopy(aj.GlobalTensor(y)[half], t, 32)
            q.FreeTensor(t)
    assert y.tolist() == x.tolist() and core.sanitizer.reports == []
    with pytest.raises(aj.ParameterError, match="position"):
        aj.TQueBind(aj.TPosition.VECIN, 2)


# --- PairReduceSum (the deprecated name of ReducePairElem, repeatTime before mask) --------------------------------------
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_pair_reduce_sum_is_reduce_pair_elem_with_repeat_first(device):
    """cann-ops Isamax's complex path: `PairReduceSum(dst, src, repeat, mask, 1, 1, 8)`."""
    x = np.random.default_rng(3).standard_normal(256).astype(np.float32)
    with aj.Core(device):
        alloc = aj.LocalMemAllocator()
        src, a, b = alloc.Alloc("float", 256), alloc.Alloc("float", 128), alloc.Alloc("float", 128)
        src[:] = x
        aj.ReducePairElem(a, src, 64, 4, 1, 1, 8)
        aj.PairReduceSum(b, src, 4, 64, 1, 1, 8)
        assert a.numpy().tobytes() == b.numpy().tobytes() and b.numpy()[0] == x[0] + x[1]
        with pytest.raises(aj.ParameterError):
            aj.PairReduceSum(b, src, 256, 64, 1, 1, 8)       # repeat_time past 255, in its old position


# --- TBufPool and TPipe.Reset -----------------------------------------------------------------------------------------
def test_tbufpool_carves_in_order_and_a_shared_pool_reuses_the_range():
    with aj.Core("atlas-a2"):
        pipe = aj.TPipe()
        p1, p2, sub = aj.TBufPool(aj.TPosition.VECCALC), aj.TBufPool(aj.TPosition.VECCALC), aj.TBufPool()
        q1, q2, b = aj.TQue(aj.TPosition.VECIN, 2), aj.TQue(aj.TPosition.VECOUT, 1), aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBufPool(p1, 1000)                         # rounded up to 1024
        pipe.InitBufPool(p2, 512, p1)                      # over p1's range
        p1.InitBuffer(q1, 2, 100)                          # two buffers of 128 bytes, GetSize() counting them
        p1.InitBufPool(sub, 256)
        sub.InitBuffer(b, 64)
        t0, t1 = q1.AllocTensor("half"), q1.AllocTensor("half")
        assert (t1.addr - t0.addr, t0.GetSize(), b.Get("half").addr - t0.addr) == (128, 64, 256)
        with pytest.raises(aj.OutOfBoundsError):
            p1.InitBuffer(q2, 1, 1024)                     # past the pool's remaining 512 bytes
        q1.FreeTensor(t0)
        p1.Reset()                                         # t1 still allocated: it dies (session 66, as the devkit)
        with pytest.raises(aj.StateError, match="TBufPool.Reset"):
            t1.SetValue(0, 1.0)
        with pytest.raises(aj.StateError):
            q1.AllocTensor("half")                         # carved from a reset pool: unbound
        with pytest.raises(aj.StateError):
            b.Get("half")
        p2.InitBuffer(q2, 1, 128)
        assert q2.AllocTensor("half").addr == t0.addr      # the same bytes again
        with pytest.raises(aj.ParameterError, match="len"):
            pipe.InitBufPool(aj.TBufPool(), 2048, p1)      # longer than the shared pool


def test_tpipe_reset_releases_every_buffer():
    with aj.Core("atlas-a2") as core:
        pipe, q, pool = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 1), aj.TBufPool()
        pipe.InitBuffer(q, 1, 4096)
        pipe.InitBufPool(pool, core.spec.ub_bytes - 4096)  # the UB is full
        t = q.AllocTensor("float")
        pipe.Reset()   # t still allocated: it dies, as the devkit's Reset skips its buffer (session 66)
        with pytest.raises(aj.StateError, match="TPipe.Reset"):
            t.GetValue(0)
        with pytest.raises(aj.StateError):
            q.AllocTensor("float")
        pipe.InitBufPool(aj.TBufPool(), core.spec.ub_bytes)   # the whole UB is free again


# --- SyncAll orders the core's pipes (its PipeBarrier<PIPE_ALL>) -------------------------------------------------------
def _copy_out_then_reuse(y):
    """cann-ops Sasum's Init: a UB word copied out by MTE3, SyncAll, then the vector unit writes the same word."""
    t = aj.LocalMemAllocator().Alloc("float", 8)
    aj.Duplicate(t, 0.0, 8)
    aj.PipeBarrier(aj.PIPE_ALL)
    aj.DataCopy(aj.GlobalTensor(y)[8 * aj.GetBlockIdx()], t, 8)
    aj.SyncAll()
    aj.Duplicate(t, 1.0, 8)


def test_sync_all_is_a_pipe_all_barrier_for_the_sanitizer():
    """The devkit's SyncAllImpl (and SoftSyncAllImpl) begin with PipeBarrier<PIPE_ALL>: an MTE3 read before it and a
    vector write after it are ordered (the sanitizer reported a WAR race)."""
    y = np.zeros(16, np.float32)
    with aj.sanitize_session("report") as session:
        aj.launch(_copy_out_then_reuse, 2, "atlas-a2", y)
    assert session.reports == [], aj.format_reports(session.reports)


# --- session 9, port5: EnQue/DeQue with their C++ template arguments; TBuf's queue calls ------------------------------
def test_enque_deque_take_the_user_positions_and_dtype_before_the_tensor():
    """ops-nn ReluGradV3: `xzQueue.EnQue<QuePosition::GM, QuePosition::VECIN, T>(x)` and
    `DeQue<QuePosition::VECOUT, QuePosition::GM, T>()` on a TQueBind; `EnQue<T>(y)` (ops-nn Selu). The template
    arguments come first, as AllocTensor("float") does; the hand-off is the plain one."""
    with aj.Core("atlas-a2"):
        pipe, q = aj.TPipe(), aj.TQueBind(aj.TPosition.VECIN, aj.TPosition.VECOUT, 2)
        pipe.InitBuffer(q, 2, 256)
        x, y = q.AllocTensor("float"), q.AllocTensor("float")
        assert q.EnQue(aj.QuePosition.GM, aj.QuePosition.VECIN, "float", x)
        assert q.EnQue("float", y)
        assert q.DeQue(aj.QuePosition.GM, aj.QuePosition.VECIN, "float").addr == x.addr
        assert q.DeQue(aj.QuePosition.VECOUT, aj.QuePosition.GM).dtype.name == "float"   # T optional
        q.EnQue(aj.QuePosition.VECOUT, aj.QuePosition.GM, x)
        assert q.DeQue(aj.QuePosition.VECOUT, aj.QuePosition.GM, "int32").dtype.name == "int32"   # reinterprets
        with pytest.raises(aj.ParameterError, match="T"):
            q.EnQue(aj.QuePosition.GM, aj.QuePosition.VECIN, "half", x)      # T is the tensor's dtype
        with pytest.raises(aj.ParameterError, match="template"):
            q.EnQue(aj.QuePosition.GM, x)                                     # one position: a misplaced argument
        with pytest.raises(aj.ParameterError, match="template"):
            q.DeQue("float", aj.QuePosition.GM)
        assert not q.HasTensorInQue()
        # FreeTensor<T>(t) likewise (port59d: a bare TypeError): T first, and it is the tensor's dtype
        with pytest.raises(aj.ParameterError, match="FreeTensor<T>'s T"):
            q.FreeTensor("half", x)
        q.FreeTensor("float", x)
        q.FreeTensor(y)
        assert q.VacantInQue() and q.AllocTensor("float").addr in (x.addr, y.addr)


def test_tbuf_alloc_free_enque_deque_are_its_get_and_no_ops():
    """The devkit's kernel_tbuf_impl.h: TBuf::AllocTensor / DeQue return Get<T>(), EnQue / FreeTensor do nothing
    (ops-nn ReluGradV3 ends each tile with `bufXFloat.FreeTensor(xHalf)`); a tensor of another buffer is refused."""
    with aj.Core("atlas-a2"):
        pipe, b, other = aj.TPipe(), aj.TBuf(), aj.TBuf()
        pipe.InitBuffer(b, 512)
        pipe.InitBuffer(other, 512)
        t = b.AllocTensor("half")
        assert t.addr == b.Get("half").addr and t.GetSize() == 256
        b.EnQue(t)
        assert b.DeQue("float").GetSize() == 128
        b.FreeTensor(t)
        b.FreeTensor(t)                     # a no-op, as in the devkit: no double-free state on a TBuf
        with pytest.raises(aj.StateError, match="not a tensor of this TBuf"):
            b.FreeTensor(other.Get("half"))


def test_data_copy_pad_takes_a_brace_list_pad_struct_beside_data_copy_params():
    """ops-nn Selu / CeluV3 / HardSwishGrad: `DataCopyPad(x, g[off], copyParams, {false, 0, 0, 0})` with a
    DataCopyParams: the brace list is the older DataCopyPadParams, as C++ deduces it (the Ext pair takes its own)."""
    gm = np.arange(40, dtype=np.float32)
    with aj.Core("atlas-a2"):
        t = aj.LocalMemAllocator().Alloc("float", 16)
        copy = aj.DataCopyParams()
        copy.blockCount, copy.blockLen = 1, 13 * 4
        aj.DataCopyPad(t, aj.GlobalTensor(gm)[3], copy, (False, 0, 0, 0))
        assert t.numpy()[:13].tolist() == list(range(3, 16))
        with pytest.raises(aj.ParameterError, match="rightPadding"):
            aj.DataCopyPad(t, aj.GlobalTensor(gm), copy, (True, 0, 256, 0))     # a uint8_t field, checked as such


# --- DataCacheCleanAndInvalid per device (ops-nn SyncBatchNormGatherStats' 310P scalar kernel) ------------------------
def _flush_after_set_value(y, dcci_dst):
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(y)
    g.SetValue(aj.GetBlockIdx(), np.float32(aj.GetBlockIdx() + 1))
    aj.PipeBarrier(aj.PIPE_ALL)
    if dcci_dst is None:
        aj.DataCacheCleanAndInvalid(g, entire_type=aj.CacheLine.ENTIRE_DATA_CACHE)
    else:
        aj.DataCacheCleanAndInvalid(g[aj.GetBlockIdx()], entire_type=aj.CacheLine.SINGLE_CACHE_LINE,
                                    dcci_dst=dcci_dst)


@pytest.mark.parametrize("device", ["ascend950", "atlas-a2", "atlas-inference-aicore"])
def test_data_cache_clean_and_invalid_is_checked_and_changes_no_value(device):
    """`DataCacheCleanAndInvalid<T, CacheLine::ENTIRE_DATA_CACHE>(gm)` after scalar SetValues in a launch: no data
    cache here, so the values are already in GM; the page's device rules are checked: the 310P takes only the
    prototype without dcciDst, CACHELINE_ATOMIC is the 950's."""
    y = np.zeros(16, np.float32)
    aj.launch(_flush_after_set_value, 4, device, y, None)
    assert y[:4].tolist() == [1, 2, 3, 4]
    if device == "atlas-inference-aicore":
        with pytest.raises(aj.ParameterError, match="dcci_dst"):
            aj.launch(_flush_after_set_value, 1, device, y, aj.DcciDst.CACHELINE_OUT)
    else:
        aj.launch(_flush_after_set_value, 2, device, y, aj.DcciDst.CACHELINE_OUT)
    if device == "atlas-a2":
        with pytest.raises(aj.UnsupportedDeviceError, match="CACHELINE_ATOMIC"):
            aj.launch(_flush_after_set_value, 1, device, y, aj.DcciDst.CACHELINE_ATOMIC)
    with aj.Core(device):
        aj.DataCacheCleanAndInvalid(aj.GlobalTensor(y), entire_type=1)   # ENTIRE_DATA_CACHE's value
        with pytest.raises(aj.ParameterError, match="entire_type"):
            aj.DataCacheCleanAndInvalid(aj.GlobalTensor(y), entire_type=2)
        with pytest.raises(aj.ParameterError, match="dcci_dst"):
            aj.DataCacheCleanAndInvalid(aj.LocalMemAllocator().Alloc("float", 8),
                                        entire_type=aj.CacheLine.SINGLE_CACHE_LINE)


def test_data_cache_clean_and_invalid_is_not_offered_on_the_910():
    with aj.Core("atlas-training"):
        with pytest.raises(aj.UnsupportedDeviceError, match="DataCacheCleanAndInvalid"):
            aj.DataCacheCleanAndInvalid(aj.GlobalTensor(np.zeros(8, np.float32)),
                                        entire_type=aj.CacheLine.ENTIRE_DATA_CACHE)
# --- DataCacheCleanAndInvalid<T, CacheLine, DcciDst>(gm) ------------------------------------------------------------
def test_data_cache_clean_and_invalid_checks_its_arguments_and_changes_nothing():
    """Kernels that write GM through the scalar unit and hand it to other cores (SyncAll) flush the data cache; the
    emulator has none, so the call changes nothing, but its arguments are checked as the C++ templates would be."""
    host = np.arange(8, dtype=np.uint64)
    gm = aj.GlobalTensor(host)
    with aj.Core("atlas-a2") as core:
        ub = core.local_tensor("uint64", 8)
        ub[:] = np.arange(8, dtype=np.uint64)
        before = core.ub.copy()
        aj.DataCacheCleanAndInvalid(gm[3], entire_type=aj.CacheLine.SINGLE_CACHE_LINE,
                                    dcci_dst=aj.DcciDst.CACHELINE_OUT)
        aj.DataCacheCleanAndInvalid(gm, entire_type=aj.CacheLine.ENTIRE_DATA_CACHE)
        aj.DataCacheCleanAndInvalid(ub, entire_type=aj.CacheLine.SINGLE_CACHE_LINE, dcci_dst=aj.DcciDst.CACHELINE_UB)
        assert np.array_equal(core.ub, before) and np.array_equal(host, np.arange(8, dtype=np.uint64))
        aj.DataCacheCleanAndInvalid(gm, entire_type=0, dcci_dst=2)   # the members' integer values
        for bad, name in ((dict(entire_type=2), "entire_type"), (dict(entire_type="SINGLE_CACHE_LINE"), "entire_type"),
                          (dict(entire_type=aj.CacheLine.SINGLE_CACHE_LINE, dcci_dst=4), "dcci_dst")):
            with pytest.raises(aj.ParameterError, match=name):
                aj.DataCacheCleanAndInvalid(gm, **bad)
        with pytest.raises(aj.ParameterError, match="dcci_dst"):   # the LocalTensor form has no default
            aj.DataCacheCleanAndInvalid(ub, entire_type=aj.CacheLine.SINGLE_CACHE_LINE)
        with pytest.raises(aj.ParameterError, match="dst"):
            aj.DataCacheCleanAndInvalid(host, entire_type=aj.CacheLine.SINGLE_CACHE_LINE)


# --- session 9, port6: ArithProgression's own S/V synchronisation -----------------------------------------------------
@pytest.mark.parametrize("device", ["atlas-a2", "atlas-a3", "atlas-inference-aicore"])
def test_a_short_arith_progression_is_ordered_before_the_vector_unit_reads_it(device):
    """ops-math Arange: a core of at most one DataBlock builds its ramp with ArithProgression (count <= 32 /
    sizeof(T): the scalar unit's SetValue only) and Adds it at once. The devkit's ArithProgressionImpl brackets those
    scalar writes with SetFlag/WaitFlag V_S before and S_V after, so the Add that follows is ordered (the sanitizer
    reported a RAW race S -> V), and an earlier vector write to dst is ordered before them (no WAW)."""
    with aj.Core(device, sanitize="report") as core:
        alloc = aj.LocalMemAllocator()
        ramp, acc, out = alloc.Alloc("float", 8), alloc.Alloc("float", 8), alloc.Alloc("float", 8)
        aj.Duplicate(ramp, 0.0, 8)          # a vector write of dst before the scalar ones
        aj.Duplicate(acc, 0.5, 8)
        aj.ArithProgression(ramp, 1.0, 2.0, 5)
        aj.Add(out, ramp, acc, 5)
        assert out.numpy()[:5].tolist() == [1.5, 3.5, 5.5, 7.5, 9.5]
    assert core.sanitizer.reports == [], aj.format_reports(core.sanitizer.reports)


def test_global_tensor_keeps_the_dtype_it_was_declared_with():
    """`GlobalTensor<half> g; g.SetGlobalBuffer((__gm__ half*)ptr)`: GlobalTensor(dtype="half") then
    SetGlobalBuffer(float32 array) views the array's bytes as half (it became a float tensor, the declared dtype
    dropped); without a declared dtype the array's own is the tensor's."""
    gm = aj.GlobalTensor(dtype="half")
    gm.SetGlobalBuffer(np.zeros(8, np.float32))
    assert (gm.dtype.name, gm.GetSize()) == ("half", 16)
    assert aj.GlobalTensor(np.zeros(8, np.float32)).dtype.name == "float"
    assert aj.GlobalTensor().SetGlobalBuffer(np.zeros(8, np.int32)).dtype.name == "int32"


# --- session 25, port6 / port7: the refusals of two literal-port mistakes say what to write instead --------------------
def test_a_tensor_expression_rebound_as_a_name_is_refused_with_the_assignment_to_write():
    """C++ `cLocal = aLocal + bLocal;` ported literally rebinds the name to the unevaluated expression; the next
    instruction that takes it names the mistake and `c[:] = a + b`, as dst or as a source, and writes nothing."""
    core = aj.Core("atlas-a2")
    with core:
        a, b, c = (core.local_tensor("half", 64) for _ in range(3))
        a[:], b[:], c[:] = 1, 2, 7
        before = core.ub.copy()
        for call in (lambda e: aj.Div(c, e, b, 64), lambda e: aj.Add(e, a, b, 64), lambda e: aj.Exp(c, a < b, 64)):
            with pytest.raises(aj.ParameterError, match=r"unassigned tensor expression: C\+\+ `c = a \+ b;` is "
                                                        r"`c\[:\] = a \+ b` here"):
                call(a + b)
        assert np.array_equal(core.ub, before)


@pytest.mark.parametrize("dtype", ["bool", np.bool_])
def test_bool_data_is_refused_naming_uint8_as_the_same_bytes(dtype):
    core = aj.Core("ascend950")
    with pytest.raises(aj.UnsupportedDTypeError, match=r"no emulator dtype for it \(SPEC-2 D28\): use \"uint8\", "
                                                       r"the same bytes"):
        core.local_tensor(dtype, 32)
    with pytest.raises(aj.UnsupportedDTypeError, match=r"\(SPEC-2 D28\)$|\(SPEC-2 D28\) \("):
        core.local_tensor("float64", 32)


def test_an_in_place_reduce_sum_runs_and_a_dst_elsewhere_in_src_is_refused():
    """`ReduceSum<float>(t, t, t, n)` (MseLoss- and SoftMarginLoss-style kernels): a dst at src's own address is the
    full overlap SPEC 3.3 allows a count API; the sum lands in t[0] and the rest of t is unchanged. The A2 writes no
    tmp, so tmp over src is legal there; the 950 writes tmp entries past four repeats, which src must not hold
    (SPEC 4.5). A dst inside
    src at another address is refused, nothing written, and the message says where the sum may go."""
    core = aj.Core("atlas-a2")
    t, tmp = core.local_tensor("float", 256), core.local_tensor("float", 64)
    t[:] = 1
    aj.ReduceSum(t, t, t, 256)
    assert t.numpy()[0] == 256 and np.all(t.numpy()[1:] == 1)
    before = core.ub.copy()
    with pytest.raises(aj.OverlapError, match="dst may share sharedTmpBuffer's bytes, or src's first element "
                                              "\\(the same address\\), not other bytes of src"):
        aj.ReduceSum(t[8], t, tmp, 256)
    assert np.array_equal(core.ub, before)
    core = aj.Core("ascend950")
    t = core.local_tensor("float", 1024)
    t[:] = 1
    before = core.ub.copy()
    with pytest.raises(aj.OverlapError, match="src/sharedTmpBuffer"):  # tmp written past 4 repeats, inside src
        aj.ReduceSum(t, t, t[8:], 1024)                                  # at another address (SPEC 4.5, 8.2)
    assert np.array_equal(core.ub, before)
    aj.ReduceSum(t, t, t, 1024)   # at src's own address: the in-place form since session 67 (ops-nn IFMR)
    assert t.GetValue(0) == 1024


# --- session 38 (port38: ops-math TraceV2, LogicalAnd, Bincount; audit38) ------------------------------------------
def test_global_tensor_takes_its_template_type_positionally():
    """`GlobalTensor<int8_t> x1Gm;` is `aj.GlobalTensor("int8")` (as TQue's AllocTensor takes T); the later
    SetGlobalBuffer views the array's bytes as T."""
    for t in ("int8", np.int8, np.dtype(np.int8)):
        g = aj.GlobalTensor(t)
        g.SetGlobalBuffer(np.arange(8, dtype=np.uint8))
        assert g.dtype.name == "int8" and g.GetSize() == 8
    with pytest.raises(aj.ParameterError, match="numpy array"):   # host data is still no buffer
        aj.GlobalTensor([1, 2, 3])


def test_tque_counts_its_tensors_and_buffers():
    """DK TQue GetTensorCountInQue (tensors enqueued), HasIdleBuffer (a free buffer for AllocTensor) and
    FreeAllEvent; each refused on a depth-0 queue, as the devkit's static_asserts refuse it."""
    core = aj.Core("atlas-a2")
    pipe, q = aj.TPipe(core), aj.TQue(aj.TPosition.VECIN, 2)
    assert not q.HasIdleBuffer() and q.GetTensorCountInQue() == 0   # no buffers yet
    pipe.InitBuffer(q, 2, 64)
    assert q.HasIdleBuffer()
    a = q.AllocTensor("half")
    assert q.HasIdleBuffer()
    b = q.AllocTensor("half")
    assert not q.HasIdleBuffer()
    q.EnQue(a)
    q.EnQue(b)
    assert q.GetTensorCountInQue() == 2
    q.FreeTensor(q.DeQue("half"))
    assert q.GetTensorCountInQue() == 1 and q.HasIdleBuffer()
    q.FreeAllEvent()
    zero = aj.TQue(aj.TPosition.VECIN, 0)
    for method in ("GetTensorCountInQue", "HasIdleBuffer", "FreeAllEvent"):
        with pytest.raises(aj.ParameterError, match=f"{method}: parameter 'depth' = 0"):
            getattr(zero, method)()


def test_free_tensor_of_an_enqueued_tensor_is_refused_and_changes_nothing():
    """The devkit's buffer goes ENQUE -> DEQUE -> FREE: a FreeTensor between EnQue and DeQue had freed the buffer
    while the queue still held it (its DeQue then returned a dead handle). Refused; the tensor stays queued."""
    core = aj.Core("atlas-a2")
    pipe, q = aj.TPipe(core), aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(q, 1, 64)
    t = q.AllocTensor("half")
    t[:] = np.arange(32, dtype=np.float16)
    q.EnQue(t)
    with pytest.raises(aj.StateError, match="FreeTensor: parameter 'tensor'.*enqueued and not yet dequeued"):
        q.FreeTensor(t)
    assert not q.HasIdleBuffer() and q.GetTensorCountInQue() == 1
    u = q.DeQue("half")
    assert np.array_equal(u.numpy(), np.arange(32, dtype=np.float16))   # alive, its data kept
    q.FreeTensor(u)
    assert q.HasIdleBuffer()


def test_tbuf_get_takes_len_by_its_cpp_name():
    """`Get<T>(uint32_t len)`: `len=` (SPEC-2 1.1: every parameter by its C++ name), positional, or `count=`."""
    core = aj.Core("atlas-a2")
    pipe, buf = aj.TPipe(core), aj.TBuf(aj.TPosition.VECCALC)
    pipe.InitBuffer(buf, 64)
    assert buf.Get("float", len=8).size == buf.Get("float", 8).size == buf.Get("float", count=8).size == 8
    assert buf.Get("float").size == 16
    with pytest.raises(aj.OutOfBoundsError, match="parameter 'len' = 17"):
        buf.Get("float", 17)
    with pytest.raises(TypeError, match="twice"):
        buf.Get("float", 8, count=8)


def test_the_bounds_hint_names_the_launch_switch():
    """A stride past a tensor inside aj.launch: the refusal names aj.launch's bounds="ub" (the user makes no core
    there), as well as the Core's."""
    def kernel(gm):
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, 32)
        t = q.AllocTensor("float")
        aj.DataCopyPad(t, gm, aj.DataCopyExtParams(2, 4, 32, 1, 0), aj.DataCopyPadExtParams(False, 0, 0, 0))
    with pytest.raises(aj.OutOfBoundsError, match=r'aj\.launch\(\.\.\., bounds="ub"\)'):
        aj.launch(kernel, 1, "atlas-a2", aj.GlobalTensor(np.zeros(64, np.float32)), parallel=False)


def test_hard_event_members_are_ints_and_no_event_id():
    """SPEC-2 1.1: aj.HardEvent is an IntEnum (its values the devkit's, MTE2_MTE1 = 0 ...); a member is still no
    event id (an integer parameter refuses enum members)."""
    assert isinstance(aj.HardEvent.MTE2_V, int) and int(aj.HardEvent.MTE2_MTE1) == 0
    core = aj.Core("atlas-a2")
    with core:
        aj.SetFlag(1, event=int(aj.HardEvent.MTE2_V))   # the integer value names the member
        aj.WaitFlag(1, event=aj.HardEvent.MTE2_V)
        with pytest.raises(aj.ParameterError, match="event_id"):
            aj.SetFlag(aj.HardEvent.MTE1_MTE2, event=aj.HardEvent.MTE2_V)   # MTE1_MTE2 == 1, but no id


def test_cpp_fundamental_type_names_have_their_ai_core_widths():
    """nn38 (ops-nn linear_index.h: `Get<int>()`, `GlobalTensor<int>`): "int" had been numpy's int64, so a TBuf's
    Get("int") held half the elements and a GlobalTensor over an int32 array was refused. The C++ names are their
    AI Core widths; plain char, whose signedness is the compiler's, is refused naming the two that are not."""
    core = aj.Core("atlas-a2")
    pipe, buf = aj.TPipe(core), aj.TBuf(aj.TPosition.VECCALC)
    pipe.InitBuffer(buf, 32)
    assert buf.Get("int").size == 8 and buf.Get("int").dtype.name == "int32"
    g = aj.GlobalTensor(dtype="int")
    g.SetGlobalBuffer(np.arange(8, dtype=np.int32))
    assert g.GetSize() == 8 and g.GetValue(7) == 7
    for name, want in (("unsigned int", "uint32"), ("short", "int16"), ("unsigned short", "uint16"),
                       ("signed char", "int8"), ("unsigned char", "uint8"), ("long long", "int64"),
                       ("unsigned long long", "uint64"), ("int32_t", "int32")):
        assert aj.IsSameType(name, want), name
    with pytest.raises(aj.UnsupportedDTypeError, match="int8_t .signed char. or uint8_t"):
        buf.Get("char")


def test_a_tensor_expression_used_as_a_tensor_says_how_to_assign_it():
    """Session 56 (port56a): C++ `save = save + result;` ported literally rebinds `save` to the unevaluated
    expression; `save(0)` and `save.GetValue(0)` had been Python's bare TypeError / AttributeError about the
    expression class. They are StateErrors saying `c[:] = a + b`; lookups of other names (numpy's probes,
    validation's `getattr(x, "dtype", None)`) stay plain AttributeErrors."""
    core = aj.Core("atlas-a2")
    with core:
        a, b = core.local_tensor("float", 64), core.local_tensor("float", 64)
        a[:] = np.zeros(64, np.float32)
        b[:] = np.ones(64, np.float32)
        for expression, symbol, section in ((a + b, "+", "SPEC-2 1.1"), (a < b, "<", "SPEC-2 9.4")):
            for use in (lambda e: e(0), lambda e: e.GetValue(0), lambda e: e.SetValue(0, 1.0)):
                with pytest.raises(aj.StateError, match=re.escape(f"C++ `c = a {symbol} b;` is `c[:] = a {symbol} b` "
                                                                  f"here ({section})")):
                    use(expression)
            assert getattr(expression, "dtype", None) is None and not hasattr(expression, "__array__")
            assert not hasattr(expression, "GetValue")   # the refusal is an AttributeError too
        assert (a.numpy() == 0).all()


@pytest.mark.parametrize("api", ["ReduceSum", "ReduceMax", "ReduceMin"])
def test_the_advanced_reduction_form_is_refused_naming_its_shape(api):
    """Session 56 (port56b, ops-nn arch35 L2NormalizeGrad and CrossEntropySumExpAndIndexLogit):
    `ReduceSum<float, Pattern::Reduce::AR>(dst, src, [tmp,] srcShape, srcInnerPad)` ported under the basic name had been
    refused as "sharedTmpBuffer = 'list' is host data" or by its argument count, and aj.Pattern was a bare
    AttributeError. Both now name the advanced form and the basic one to write; nothing is written."""
    with pytest.raises(aj.NotOfferedError, match=r"Pattern: .*ReduceSum<T, Pattern::Reduce::AR>"):
        aj.Pattern
    assert not hasattr(aj, "Pattern")
    core = aj.Core("ascend950")
    with core:
        src, dst = core.local_tensor("float", 256), core.local_tensor("float", 64)
        tmp = core.local_tensor("float", 256)
        src[:] = np.ones(256, np.float32)
        before = core.ub.copy()
        for args in ((dst, src, [2, 128], False), (dst, src, tmp, (2, 128), True),
                     (dst, src, tmp, np.array([2, 128], np.uint32), np.bool_(False))):
            with pytest.raises(aj.ParameterError, match=re.escape(f"{api}: parameter 'srcShape' = [2, 128] is the "
                                                                  f"advanced {api}<T, Pattern::Reduce::...>")):
                getattr(aj, api)(*args)
        assert np.array_equal(core.ub, before)
        getattr(aj, api)(dst, src, tmp, 256)   # the basic form still runs
        assert dst.numpy()[0] == (256 if api == "ReduceSum" else 1)
        # a high-dim call with the mask as a list and the rest by keyword is no advanced form (ReduceMax / ReduceMin
        # with calIndex positional after the mask: `(dst, src, tmp, [m, 0], True, repeat_time=1, ...)`)
        tail = (True,) if api != "ReduceSum" else ()
        getattr(aj, api)(dst, src, tmp, [2 ** 64 - 1, 0], *tail, repeat_time=1, src_rep_stride=8)
        assert dst.numpy()[0] == (64 if api == "ReduceSum" else 1)
