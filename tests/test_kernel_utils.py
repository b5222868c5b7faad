"""Kernel utilities the ops-math / ops-nn vector kernels call (session 14, apigap14; docs/decisions.md "Kernel
utilities"): the devkit's constants, DivCeil/AlignUp/ConstCeil, IsSameType, the scalar unit's bit queries and their
older names, GetUintDivMagicAndShift, NumericLimits, GetTaskRation/GetSubBlockNum/GetDataBlockSizeInBytes,
SetSysWorkspace/GetSysWorkSpacePtr, InitOutput, PopStackBuffer, GlobalTensor.ReinterpretCast, KERNEL_TASK_TYPE_DEFAULT
and ASCEND_IS_AIV/AIC, the debug APIs, the tiling macros, the MicroAPI namespace and the event-id type names. Each
test fails without its API (an AttributeError on aj)."""
import ctypes

import numpy as np
import pytest

import ascend_jit as aj

SCALAR_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore")


# --- constants (impl/basic_api/utils/kernel_utils_constants.h) -------------------------------------------------------
@pytest.mark.parametrize("name, value", [
    ("ONE_BLK_SIZE", 32), ("ONE_BLOCK_SIZE", 32), ("DEFAULT_BLK_NUM", 8), ("DEFAULT_BLK_STRIDE", 1),
    ("DEFAULT_REPEAT_STRIDE", 8), ("HALF_DEFAULT_REPEAT_STRIDE", 4), ("ONE_FOURTH_DEFAULT_REPEAT_STRIDE", 2),
    ("MAX_REPEAT_TIMES", 255), ("ONE_REPEAT_BYTE_SIZE", 256), ("FULL_MASK", 2**64 - 1), ("B8_BYTE_SIZE", 1),
    ("B16_BYTE_SIZE", 2), ("B32_BYTE_SIZE", 4), ("B64_BYTE_SIZE", 8), ("B16_DATA_NUM_PER_BLOCK", 16),
    ("B32_DATA_NUM_PER_BLOCK", 8), ("B16_DATA_NUM_PER_REPEAT", 128), ("B32_DATA_NUM_PER_REPEAT", 64),
    ("ONE_BLK_HALF_NUM", 16), ("ONE_BLK_FLOAT_NUM", 8), ("BRCB_BROADCAST_NUMBER", 8),
    ("VECTOR_REG_WIDTH_2XVL", 512), ("BLOCK_CUBE", 16)])
def test_devkit_constants(name, value):
    assert getattr(aj, name) == value and name in aj.__all__


def test_constants_size_a_high_dim_call_as_kernels_write_it():
    with aj.Core("atlas-a2") as core:
        a, d = core.local_tensor("float", 128), core.local_tensor("float", 128)
        a[:] = np.arange(128, dtype=np.float32)
        per_repeat = aj.ONE_REPEAT_BYTE_SIZE // aj.B32_BYTE_SIZE
        aj.Adds(d, a, 1.0, per_repeat, 128 // per_repeat,
                aj.UnaryRepeatParams(aj.DEFAULT_BLK_STRIDE, aj.DEFAULT_BLK_STRIDE, aj.DEFAULT_REPEAT_STRIDE,
                                     aj.DEFAULT_REPEAT_STRIDE))
        assert np.array_equal(d.numpy(), np.arange(128, dtype=np.float32) + 1)


# --- DivCeil, AlignUp, ConstCeil (kernel_utils_ceil_oom_que.h: uint32_t arithmetic) ----------------------------------
def test_div_ceil_align_up_const_ceil():
    assert [aj.DivCeil(a, 32) for a in (0, 1, 32, 33)] == [0, 1, 1, 2]
    assert [aj.AlignUp(a, 32) for a in (0, 1, 32, 33)] == [0, 32, 32, 64]
    assert aj.ConstCeil(100, 7) == 15 and aj.DivCeil(np.uint32(100), np.int64(7)) == 15


def test_div_ceil_wraps_as_uint32_arithmetic_does():
    """(a + b - 1) overflows uint32_t: the C++ result, not the mathematical ceiling."""
    assert aj.DivCeil(0xFFFFFFFF, 2) == 0 and aj.ConstCeil(0xFFFFFFFF, 2) == 0
    assert aj.AlignUp(0xFFFFFFF0, 0x20) == 0


@pytest.mark.parametrize("fn", ["DivCeil", "AlignUp", "ConstCeil"])
@pytest.mark.parametrize("a, b", [(1, 0), (-1, 2), (2**32, 2), (1.0, 2), (True, 2), (1, None)])
def test_div_ceil_family_refuses_what_is_no_uint32_or_a_zero_divisor(fn, a, b):
    with pytest.raises(aj.ParameterError, match=fn):
        getattr(aj, fn)(a, b)


# --- IsSameType ----------------------------------------------------------------------------------------------------
def test_is_same_type_compares_dtypes_however_spelled():
    assert aj.IsSameType("half", np.float16) and aj.IsSameType("float", "float32") and aj.IsSameType("int32_t",
                                                                                                      np.int32)
    assert not aj.IsSameType("half", "bfloat16") and not aj.IsSameType(np.int16, np.uint16)
    with pytest.raises(aj.UnsupportedDTypeError, match="IsSameType"):
        aj.IsSameType("half", "not_a_type")


# --- the scalar unit's bit queries (DK 标量计算 pages; their examples) ------------------------------------------------
@pytest.mark.parametrize("device", SCALAR_DEVICES)
def test_scalar_bit_queries_give_the_pages_examples(device):
    with aj.Core(device):
        assert aj.GetBitCount(0xFFFF, count_value=1) == 16 and aj.GetBitCount(0xFFFF, count_value=0) == 48
        assert aj.ScalarGetCountOfValue(0xFFFF, count_value=1) == 16
        assert [aj.CountLeadingZero(v) for v in (0x0100000000000020, 0xFFFF, 0, 2**64 - 1)] == [7, 48, 64, 0]
        assert aj.ScalarCountLeadingZero(0xFFFF) == 48
        assert aj.GetSFFValue(0x1000000000000100, count_value=1) == 8
        assert aj.GetSFFValue(2**64 - 1, count_value=0) == -1 and aj.GetSFFValue(0, count_value=1) == -1
        assert [aj.GetSFFValue(0xFF00, count_value=c) for c in (0, 1)] == [0, 8]
        assert [aj.ScalarGetSFFValue(0x00FF, count_value=c) for c in (0, 1)] == [8, 0]
        assert [aj.CountBitsCntSameAsSignBit(v) for v in
                (0x0100000000000020, 0, -1, 2**63 - 1, -2**63, 1, 0x00F0000000000000)] == [6, -1, -1, 0, 0, 62, 7]


@pytest.mark.parametrize("device", ["atlas-200i-500-a2", "atlas-training"])
def test_scalar_bit_queries_are_refused_where_the_pages_say_not_supported(device):
    with aj.Core(device):
        for call in (lambda: aj.GetBitCount(1, count_value=1), lambda: aj.CountLeadingZero(1),
                     lambda: aj.GetSFFValue(1, count_value=0), lambda: aj.CountBitsCntSameAsSignBit(1)):
            with pytest.raises(aj.UnsupportedDeviceError):
                call()


def test_scalar_bit_queries_refuse_bad_arguments():
    with aj.Core("atlas-a2"):
        for call in (lambda: aj.GetBitCount(1, count_value=2), lambda: aj.GetBitCount(1, count_value=True),
                     lambda: aj.GetBitCount(-1, count_value=1), lambda: aj.CountLeadingZero(2**64),
                     lambda: aj.GetSFFValue(1.0, count_value=1), lambda: aj.CountBitsCntSameAsSignBit(2**63)):
            with pytest.raises(aj.ParameterError):
                call()
        with pytest.raises(TypeError):      # the template argument is a keyword, required
            aj.GetBitCount(1, 0xFF)
    with pytest.raises(aj.StateError):      # no current core: no device to check
        aj.CountLeadingZero(1)


# --- GetUintDivMagicAndShift (950; kernel_scalar.h) -----------------------------------------------------------------
def _fast_div(n, magic, shift, bits):
    return (((n * magic) >> bits) + n) >> shift


@pytest.mark.parametrize("dtype, bits", [("uint32", 32), ("uint64", 64)])
def test_magic_and_shift_divide_exactly(dtype, bits):
    rng = np.random.default_rng(14)
    with aj.Core("ascend950"):
        top = 2**(bits - 1) - 1
        divisors = [1, 2, 3, 7, 10, 64, 255, 1000003, top] + [int(d) for d in rng.integers(1, top, 40, dtype=np.uint64)]
        for d in divisors:
            magic, shift = aj.GetUintDivMagicAndShift(np.dtype(dtype).type(d))
            assert magic.dtype == np.dtype(dtype) and shift.dtype == np.dtype(dtype)
            # the fast division the kernels build from them (numerators below 2**(bits - 1), the kernels' indices)
            for n in [0, 1, d - 1, d, d + 1, 2**(bits - 1) - 1] + [int(x) for x in rng.integers(0, 2**(bits - 1), 50,
                                                                                                  dtype=np.uint64)]:
                assert _fast_div(n, int(magic), int(shift), bits) == n // d, (dtype, d, n)


def test_magic_and_shift_values_and_refusals():
    with aj.Core("ascend950"):
        assert aj.GetUintDivMagicAndShift(7, dtype="uint32") == (613566757, 3)
        assert aj.GetUintDivMagicAndShift(8, dtype="uint32") == (1, 3)     # a power of two: 2**shift == divisor
        for call, error in ((lambda: aj.GetUintDivMagicAndShift(7), aj.ParameterError),
                            (lambda: aj.GetUintDivMagicAndShift(0, dtype="uint32"), aj.ParameterError),
                            (lambda: aj.GetUintDivMagicAndShift(2**31, dtype="uint32"), aj.ParameterError),
                            (lambda: aj.GetUintDivMagicAndShift(np.int32(7)), aj.ParameterError),
                            (lambda: aj.GetUintDivMagicAndShift(7, dtype="int32"), aj.UnsupportedDTypeError)):
            with pytest.raises(error, match="GetUintDivMagicAndShift"):
                call()
    with aj.Core("atlas-a2"), pytest.raises(aj.UnsupportedDeviceError):
        aj.GetUintDivMagicAndShift(np.uint32(7))


# --- NumericLimits (950) -------------------------------------------------------------------------------------------
FLOAT_BITS = {"half": (0x7BFF, 0xFBFF, 0x0400, 0x7C00, 0xFC00, 0x7E00, 0x7D00, 0x0001),
              "float": (0x7F7FFFFF, 0xFF7FFFFF, 0x00800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FA00000, 1),
              "bfloat16": (0x7F7F, 0xFF7F, 0x0080, 0x7F80, 0xFF80, 0x7FC0, 0x7FA0, 0x0001)}
MEMBERS = ("Max", "Lowest", "Min", "Infinity", "NegativeInfinity", "QuietNaN", "SignalingNaN", "DeNormMin")
UINT = {2: np.uint16, 4: np.uint32}


@pytest.mark.parametrize("dtype", list(FLOAT_BITS))
def test_numeric_limits_float_members_bit_for_bit_scalar_and_tensor(dtype):
    with aj.Core("ascend950") as core:
        limits = aj.NumericLimits(dtype)
        dst = core.local_tensor(dtype, 64)
        for member, bits in zip(MEMBERS, FLOAT_BITS[dtype]):
            value = getattr(limits, member)()
            assert int(np.asarray(value).view(UINT[value.dtype.itemsize])) == bits, member
            dst[:] = np.zeros(64, dst.numpy().dtype)
            getattr(limits, member)(dst, 40)
            got = dst.numpy().view(UINT[value.dtype.itemsize])
            assert (got[:40] == bits).all() and (got[40:] == 0).all(), member


@pytest.mark.parametrize("dtype, high, low", [("int8", 127, -128), ("uint8", 255, 0), ("int16", 32767, -32768),
                                              ("uint16", 65535, 0), ("int32", 2**31 - 1, -2**31),
                                              ("uint32", 2**32 - 1, 0)])
def test_numeric_limits_integer_members(dtype, high, low):
    with aj.Core("ascend950"):
        limits = aj.NumericLimits(dtype)
        assert (limits.Max(), limits.Lowest(), limits.Min()) == (high, low, low)
        assert limits.Max().dtype == np.dtype(dtype)
        with pytest.raises(aj.UnsupportedDTypeError, match="NumericLimits.Infinity"):
            limits.Infinity()


def test_numeric_limits_refusals():
    with aj.Core("atlas-a2"), pytest.raises(aj.UnsupportedDeviceError, match="NumericLimits"):
        aj.NumericLimits("float")
    with aj.Core("ascend950") as core:
        with pytest.raises(aj.UnsupportedDTypeError):
            aj.NumericLimits("int64")
        dst = core.local_tensor("half", 64)
        dst[:] = np.zeros(64, np.float16)
        before = core.ub.copy()
        for call in (lambda: aj.NumericLimits("float").Max(dst, 64), lambda: aj.NumericLimits("half").Max(dst)):
            with pytest.raises(aj.ParameterError):
                call()
        assert np.array_equal(core.ub, before)


# --- GetTaskRation, GetSubBlockNum, GetDataBlockSizeInBytes --------------------------------------------------------
def test_vector_only_launch_task_ratio_and_sub_block_num():
    seen = np.zeros(4, np.int64)

    def kernel(seen):
        i = aj.GetBlockIdx()
        seen[i] = aj.GetTaskRation() * 100 + aj.GetTaskRatio() * 10 + aj.GetSubBlockNum()

    aj.launch(kernel, 4, "atlas-a2", seen)
    assert (seen == 111).all()


def test_sub_block_num_and_data_block_size_follow_their_pages_product_lists():
    for device in ("ascend950", "atlas-a3", "atlas-a2"):
        with aj.Core(device):
            assert aj.GetSubBlockNum() == 1 and aj.GetDataBlockSizeInBytes() == 32
    for device in ("atlas-inference-aicore", "atlas-training", "atlas-200i-500-a2"):
        with aj.Core(device), pytest.raises(aj.UnsupportedDeviceError, match="GetSubBlockNum"):
            aj.GetSubBlockNum()
    with aj.Core("atlas-inference-aicore"):
        assert aj.GetDataBlockSizeInBytes() == 32
    with aj.Core("atlas-200i-500-a2"), pytest.raises(aj.UnsupportedDeviceError, match="GetDataBlockSizeInBytes"):
        aj.GetDataBlockSizeInBytes()
    with aj.Core("atlas-inference-vectorcore"), pytest.raises(aj.UnsupportedDeviceError, match="GetTaskRation"):
        aj.GetTaskRation()


# --- SetSysWorkspace, GetSysWorkSpacePtr ---------------------------------------------------------------------------
def test_sys_workspace_is_the_first_workspace_set():
    ws, other = np.zeros(aj.GetLibApiWorkSpaceSize("atlas-a2") + 64, np.uint8), np.zeros(64, np.uint8)
    with aj.Core("atlas-a2"):
        with pytest.raises(aj.StateError, match="GetSysWorkSpacePtr"):
            aj.GetSysWorkSpacePtr()
        aj.SetSysWorkspace(ws)
        aj.SetSysWorkspace(other)           # the devkit sets it only while it is nullptr
        assert aj.GetSysWorkSpacePtr() is ws
        user = aj.GetUserWorkspace(ws)
        assert user.size == 64 and np.shares_memory(user, ws)


def test_sys_workspace_refusals():
    with aj.Core("atlas-a2"):
        for bad in (None, [0] * 8, np.zeros((2, 4), np.uint8)):
            with pytest.raises(aj.ParameterError, match="SetSysWorkspace"):
                aj.SetSysWorkspace(bad)
    with aj.Core("atlas-200i-500-a2"):
        with pytest.raises(aj.UnsupportedDeviceError, match="SetSysWorkSpace"):
            aj.SetSysWorkspace(np.zeros(8, np.uint8))
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.GetSysWorkSpacePtr()


# --- InitOutput (deprecated InitGlobalMemory twin: value defaults to 0, no closing barrier) -------------------------
def _init_output(device, dtype, n, *value):
    g = np.full(n + 16, 99, dtype)
    barriers = []

    def kernel(g):
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, 1024)
        pipe.core.sync_hooks.append(lambda core, kind, detail: barriers.append(kind) if kind == "PipeBarrier"
                                    else None)
        gt = aj.GlobalTensor()
        gt.SetGlobalBuffer(g, n)
        aj.InitOutput(gt, n, *value)

    aj.launch(kernel, 1, device, g)
    return g, barriers


@pytest.mark.parametrize("device", ["ascend950", "atlas-a3", "atlas-a2"])
def test_init_output_fills_size_elements_value_defaulting_to_zero(device):
    n = 255 * 256 // 4 + 37         # a whole run and a tail
    g, barriers = _init_output(device, np.float32, n)
    assert (g[:n] == 0).all() and (g[n:] == 99).all() and barriers == []
    g, _ = _init_output(device, np.int32, 300, -5)
    assert (g[:300] == -5).all() and (g[300:] == 99).all()


def test_init_output_takes_what_duplicate_takes():
    g, _ = _init_output("ascend950", np.int8, 100, np.int8(-3))      # int8: the 950's count-form Duplicate
    assert (g[:100] == -3).all() and (g[100:] == 99).all()
    with pytest.raises(aj.UnsupportedDTypeError, match="InitOutput"):
        _init_output("atlas-a2", np.int8, 100, np.int8(-3))


@pytest.mark.parametrize("device", ["atlas-inference-aicore", "atlas-200i-500-a2", "atlas-training"])
def test_init_output_is_refused_where_its_body_is_empty(device):
    with pytest.raises(aj.UnsupportedDeviceError, match="InitOutput"):
        _init_output(device, np.float32, 64)


# --- names: MicroAPI, TEventID / event_t --------------------------------------------------------------------------
def test_microapi_is_the_reg_namespace_and_event_ids_are_ints():
    assert aj.MicroAPI is aj.Reg and aj.MicroAPI.LoadAlign is aj.Reg.LoadAlign
    with aj.Core("atlas-a2"):
        pipe = aj.TPipe()
        event_id = aj.event_t(pipe.FetchEventID(aj.HardEvent.V_S))
        assert aj.TEventID is aj.event_t is int and isinstance(event_id, int)
        aj.SetFlag(event_id, event=aj.HardEvent.V_S)
        aj.WaitFlag(event_id, event=aj.HardEvent.V_S)


# --- PopStackBuffer (the free UB past the TPipe's buffers, as InitGlobalMemory's stack buffer) ----------------------
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950", "atlas-inference-aicore"])
def test_pop_stack_buffer_is_the_ub_past_the_pipes_buffers(device):
    with aj.Core(device) as core:
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, 1024)
        t = q.AllocTensor("half")
        ok, pop = aj.PopStackBuffer("int16", aj.TPosition.LCM)
        end = t.GetPhyAddr() + 1024
        assert ok is True and pop.GetPhyAddr() == end and pop.GetSize() == (core.spec.ub_bytes - end) // 2
        assert pop.dtype.name == "int16" and pop.GetPosition() is aj.TPosition.VECCALC
        aj.Duplicate(pop, np.int16(-2), 256)                    # usable scratch
        assert (pop.numpy()[:256] == -2).all()
        free_before = list(core._free)
        aj.PopStackBuffer("float", aj.TPosition.VECCALC)          # allocates nothing
        assert core._free == free_before


def test_pop_stack_buffer_refusals():
    with aj.Core("atlas-a2") as core:
        with pytest.raises(aj.StateError, match="PopStackBuffer"):
            aj.PopStackBuffer("half", aj.TPosition.VECCALC)      # no TPipe
        pipe = aj.TPipe()
        with pytest.raises(aj.ParameterError, match="PopStackBuffer"):
            aj.PopStackBuffer("half", aj.TPosition.GM)
        b = aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(b, core.spec.ub_bytes)                     # the pipe holds the whole UB
        with pytest.raises(aj.OutOfBoundsError, match="PopStackBuffer"):
            aj.PopStackBuffer("half", aj.TPosition.VECCALC)


# --- GlobalTensor.ReinterpretCast (950) ------------------------------------------------------------------------------
def test_global_tensor_reinterpret_cast_is_the_same_memory():
    x = np.arange(16, dtype=np.int32)
    with aj.Core("ascend950") as core:
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x, 16)
        h = g.ReinterpretCast("int16")          # the page's example
        assert h.GetSize() == 32 and list(h.numpy()[:6]) == [0, 0, 1, 0, 2, 0]
        h.SetValue(2, np.int16(7))
        assert x[1] == 7
        sub = g[3].ReinterpretCast("uint8")     # a sub-tensor keeps its offset
        assert sub.GetSize() == 13 * 4 and sub.GetValue(0) == 3
        with pytest.raises(aj.ParameterError, match="ReinterpretCast"):
            h[1].ReinterpretCast("float")       # starts 2 bytes into a float
        assert aj.GlobalTensor(np.zeros(3, np.int16)).ReinterpretCast("int32").GetSize() == 1   # rounds down
        t = core.local_tensor("int16", 32)
        aj.DataCopy(t, h, 32)                   # the copy engines address the cast tensor's bytes
        assert np.array_equal(t.numpy(), x.view(np.int16))
    with aj.Core("atlas-a2"), pytest.raises(aj.UnsupportedDeviceError, match="ReinterpretCast"):
        aj.GlobalTensor(x).ReinterpretCast("int16")


# --- KERNEL_TASK_TYPE_DEFAULT, ASCEND_IS_AIV / ASCEND_IS_AIC ---------------------------------------------------------
def test_kernel_task_type_default_takes_the_vector_only_types_of_each_device():
    assert [aj.KERNEL_TYPE_AIV_ONLY, aj.KERNEL_TYPE_MIX_AIV_1_0, aj.KERNEL_TYPE_AICORE, aj.KERNEL_TYPE_MAX] == \
        [0, 2, 6, 10] and aj.KERNEL_TYPE_AIV_ONLY is aj.KernelMetaType.KERNEL_TYPE_AIV_ONLY
    for device in ("ascend950", "atlas-a3", "atlas-a2"):
        with aj.Core(device):
            aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
            aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_MIX_AIV_1_0)
            for cube in (aj.KERNEL_TYPE_AIC_ONLY, aj.KERNEL_TYPE_MIX_AIC_1_2, aj.KERNEL_TYPE_AICORE, 99):
                with pytest.raises(aj.ParameterError, match="KERNEL_TASK_TYPE_DEFAULT"):
                    aj.KERNEL_TASK_TYPE_DEFAULT(cube)
    with aj.Core("atlas-inference-aicore"):
        aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AICORE)
        with pytest.raises(aj.ParameterError, match="Vector Core is not modelled"):
            aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_MIX_VECTOR_CORE)
    for device in ("atlas-200i-500-a2", "atlas-training"):
        with aj.Core(device), pytest.raises(aj.UnsupportedDeviceError, match="KERNEL_TASK_TYPE_DEFAULT"):
            aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)


def test_ascend_is_aiv_follows_g_core_type_per_build():
    """g_coreType is AIV on the split-core builds (950, A2, A3) and MIX elsewhere (impl/utils/sys_macros.h)."""
    for device, aiv in (("ascend950", True), ("atlas-a3", True), ("atlas-a2", True),
                        ("atlas-inference-aicore", False), ("atlas-200i-500-a2", False), ("atlas-training", False)):
        with aj.Core(device):
            assert aj.ASCEND_IS_AIV() is aiv and aj.ASCEND_IS_AIC() is False
    with aj.Core("atlas-inference-vectorcore"), pytest.raises(aj.UnsupportedDeviceError):
        aj.ASCEND_IS_AIV()


# --- debug APIs: printf / PRINTF, DumpTensor, ascendc_assert, Trap ---------------------------------------------------
def test_printf_prefixes_the_block_and_formats_c_conversions(capsys):
    def kernel(x):
        aj.printf("fmt string int: %d, uint %u, long %ld, float %f, hex %x, str %s\n", 0x123, 7, 2**40,
                  np.float32(3.14), 255, "s")
        aj.PRINTF("half %.2f\n", np.float16(1.5))

    aj.launch(kernel, 2, "atlas-a2", np.zeros(4), parallel=False)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "[AIV Block 0/2] fmt string int: 291, uint 7, long 1099511627776, float 3.140000, hex ff, str s"
    assert out[1] == "[AIV Block 0/2] half 1.50" and out[2].startswith("[AIV Block 1/2] fmt")
    with aj.Core("atlas-a2"):
        with pytest.raises(aj.ParameterError, match="printf"):
            aj.printf("%d %d\n", 1)
        # integers as C reads them: the conversion's length in bits, unsigned or signed (printed -1, -1, -1, 4294967295)
        aj.printf("%u %x %lu %d %hd %*d %%d\n", -1, np.int32(-1), -1, 2**32 - 1, 70000, 3, -7)
    assert capsys.readouterr().out == "[AIV Block 0/1] 4294967295 ffffffff 18446744073709551615 -1 4464  -7 %d\n"
    with aj.Core("atlas-inference-aicore"), pytest.raises(aj.UnsupportedDeviceError, match="printf"):
        aj.printf("x\n")


def test_dump_tensor_prints_the_pages_header_and_values(capsys):
    with aj.Core("atlas-inference-aicore") as core:
        t = core.local_tensor("half", 32)
        t[:] = np.arange(32, dtype=np.float16)
        aj.DumpTensor(t, 5, 4)
        aj.DumpTensor(aj.GlobalTensor(np.arange(8, dtype=np.int32)), 1, 3)
        out = capsys.readouterr().out.splitlines()
        assert out[0] == f"DumpTensor: desc=5, addr={t.GetPhyAddr()}, data_type=float16, position=UB, dump_size=4"
        assert out[1] == "[0.000000, 1.000000, 2.000000, 3.000000]"
        assert out[2].endswith("data_type=int32, position=GM, dump_size=3") and out[3] == "[0, 1, 2]"
        with pytest.raises(aj.OutOfBoundsError, match="DumpTensor"):
            aj.DumpTensor(t, 5, 33)
        with pytest.raises(aj.ParameterError, match="DumpTensor"):
            aj.DumpTensor(np.zeros(4), 5, 4)
    with aj.Core("atlas-training"), pytest.raises(aj.UnsupportedDeviceError, match="DumpTensor"):
        aj.DumpTensor(aj.GlobalTensor(np.zeros(4, np.float32)), 0, 1)


def test_ascendc_assert_and_trap_stop_the_kernel():
    with aj.Core("atlas-a2"):
        aj.ascendc_assert(True)
        aj.ascendc_assert(10 == 10, "The assertFlag value is %d.\n", 10)
        with pytest.raises(aj.StateError, match="The assertFlag value is 10"):
            aj.ascendc_assert(10 != 10, "The assertFlag value is %d.\n", 10)
        with pytest.raises(aj.StateError, match="Trap"):
            aj.Trap()

    def kernel(x):
        if aj.GetBlockIdx() == 1:
            aj.Trap()

    with pytest.raises(aj.StateError, match="block 1 of 2: Trap"):
        aj.launch(kernel, 2, "ascend950", np.zeros(4))
    with aj.Core("atlas-200i-500-a2"), pytest.raises(aj.UnsupportedDeviceError, match="Trap"):
        aj.Trap()


# --- tiling macros: REGISTER_TILING_DEFAULT, GET_TILING_DATA[_WITH_STRUCT / _PTR_WITH_STRUCT / _MEMBER] ---------------
class _Tiling(ctypes.Structure):
    _fields_ = [("totalLength", ctypes.c_uint32), ("tileNum", ctypes.c_uint16), ("scale", ctypes.c_float),
                ("big", ctypes.c_int64)]


_TILING_DTYPE = np.dtype([("totalLength", np.uint32), ("tileNum", np.uint16), ("scale", np.float32),
                          ("big", np.int64)], align=True)     # the same C layout: 24 bytes with padding


def _packed_tiling():
    return np.frombuffer(bytes(_Tiling(8192, 8, 0.5, -3)), np.uint8).copy()


@pytest.mark.parametrize("struct", [_Tiling, _TILING_DTYPE], ids=["ctypes", "numpy"])
def test_tiling_macros_read_the_hosts_struct(struct, monkeypatch):
    import ascend_jit.tiling as tiling_module
    monkeypatch.setattr(tiling_module, "_DEFAULT", {})
    tiling = _packed_tiling()
    seen = np.zeros(4, np.float64)

    def kernel(tiling, seen):
        t = aj.GET_TILING_DATA_WITH_STRUCT(struct, tiling)
        seen[:] = t.totalLength, t.tileNum, t.scale, t.big

    aj.launch(kernel, 1, "atlas-a2", tiling, seen)
    assert list(seen) == [8192, 8, 0.5, -3]
    with aj.Core("ascend950"):
        with pytest.raises(aj.StateError, match="REGISTER_TILING_DEFAULT"):
            aj.GET_TILING_DATA(tiling)
        aj.REGISTER_TILING_DEFAULT(struct)
        assert aj.GET_TILING_DATA(tiling).tileNum == 8
        assert aj.GET_TILING_DATA_MEMBER(struct, "scale", tiling) == 0.5
        copy, ptr = aj.GET_TILING_DATA_WITH_STRUCT(struct, tiling), aj.GET_TILING_DATA_PTR_WITH_STRUCT(struct, tiling)
        tiling[4] = 9                            # tileNum's low byte, in GM
        assert copy.tileNum == 8 and ptr.tileNum == 9


def test_register_tiling_default_is_per_module_as_file_scope_is(monkeypatch):
    """Two kernel files each registering their TilingData (the gallery imports both into one process): each file's
    GET_TILING_DATA reads its own struct, not the last one registered; a module that registered none is refused."""
    import types

    import ascend_jit.tiling as tiling_module
    monkeypatch.setattr(tiling_module, "_DEFAULT", {})
    source = ("import ascend_jit as aj\n"
              "aj.REGISTER_TILING_DEFAULT(STRUCT)\n"
              "def kernel(tiling, seen):\n"
              "    seen[0] = aj.GET_TILING_DATA(tiling).{field}\n")
    small = type("Small", (ctypes.Structure,), {"_fields_": [("first", ctypes.c_uint8)]})
    files = []
    for name, struct, field in (("kernel_file_a", _Tiling, "tileNum"), ("kernel_file_b", small, "first")):
        module = types.ModuleType(name)
        module.STRUCT = struct
        exec(source.format(field=field), module.__dict__)
        files.append(module)
    tiling, seen = _packed_tiling(), np.zeros(1, np.float64)
    aj.launch(files[0].kernel, 1, "atlas-a2", tiling, seen)
    assert seen[0] == 8                          # _Tiling.tileNum, though kernel_file_b registered last
    aj.launch(files[1].kernel, 1, "atlas-a2", tiling, seen)
    assert seen[0] == 0                          # Small.first: totalLength's low byte (8192 = 0x2000)
    with aj.Core("atlas-a2"), pytest.raises(aj.StateError, match="no TilingData registered in module"):
        aj.GET_TILING_DATA(tiling)               # this test module registered none


def test_numpy_tiling_fields_named_like_numpy_attributes_read_the_field():
    """C TilingData fields named `base` (ops-math Exp, Log), `max` / `min` (ops-nn HardtanhGrad), `shape`, `size`:
    a numpy structured dtype's record answered those with its own attributes (np.record's lookup order), so the
    kernel silently read `t.max` as a method and `t.shape` as (); each must read its field, nested structs too, and
    the PTR form stays a view of the tiling's bytes."""
    limits = np.dtype([("max", np.float32), ("min", np.float32)])
    struct = np.dtype([("base", np.float32), ("size", np.int64), ("shape", np.uint64, (4,)), ("limits", limits)],
                      align=True)
    host = np.zeros(1, struct)
    host["base"], host["size"], host["shape"][0], host["limits"] = 2.0, 12345, [3, 5, 7, 9], (6.0, -6.0)
    tiling = host.view(np.uint8).copy()
    with aj.Core("atlas-a2"):
        t = aj.GET_TILING_DATA_WITH_STRUCT(struct, tiling)
        assert (t.base, t.size, list(t.shape), t.limits.max, t.limits.min) == (2.0, 12345, [3, 5, 7, 9], 6.0, -6.0)
        assert aj.GET_TILING_DATA_MEMBER(struct, "size", tiling) == 12345
        ptr = aj.GET_TILING_DATA_PTR_WITH_STRUCT(struct, tiling)
        tiling[16] = 4                                               # shape[0]'s low byte, in GM
        assert ptr.shape[0] == 4 and t.shape[0] == 3


def test_tiling_macros_refusals():
    tiling = _packed_tiling()
    with aj.Core("atlas-a2"):
        with pytest.raises(aj.OutOfBoundsError, match="GET_TILING_DATA_WITH_STRUCT"):
            aj.GET_TILING_DATA_WITH_STRUCT(_Tiling, tiling[:20])
        with pytest.raises(aj.ParameterError, match="struct"):
            aj.GET_TILING_DATA_WITH_STRUCT(np.float32, tiling)
        with pytest.raises(aj.ParameterError, match="tiling"):
            aj.GET_TILING_DATA_WITH_STRUCT(_Tiling, bytes(tiling))
        with pytest.raises(aj.ParameterError, match="member"):
            aj.GET_TILING_DATA_MEMBER(_Tiling, "nope", tiling)
        with pytest.raises(aj.ParameterError, match="REGISTER_TILING_DEFAULT"):
            aj.REGISTER_TILING_DEFAULT(dict)
    with aj.Core("atlas-training"), pytest.raises(aj.UnsupportedDeviceError, match="GET_TILING_DATA") as refused:
        aj.GET_TILING_DATA_WITH_STRUCT(_Tiling, tiling)
    assert "from_buffer_copy(tiling.tobytes())" in str(refused.value)   # what to write instead (port52d)
    assert _Tiling.from_buffer_copy(tiling.tobytes()).__class__ is _Tiling
    # ... and for a numpy structured dtype, which the macros take too (port56f: from_buffer_copy is no dtype's)
    # its fields as attributes, as GET_TILING_DATA's struct has them (port59a: `[0]` alone is a numpy.void)
    assert "np.frombuffer(tiling.tobytes(), dtype, count=1).view(np.recarray)[0]" in str(refused.value)
    record = np.frombuffer(tiling.tobytes(), _TILING_DTYPE, count=1).view(np.recarray)[0]
    assert all(getattr(record, name) == getattr(_Tiling.from_buffer_copy(tiling.tobytes()), name)
               for name in _TILING_DTYPE.names)


# --- hostile14: what these utilities let through before they refused it -----------------------------------------------
def test_count_value_is_an_integer_parameter():
    """count_value was checked by `not in (0, 1)`: an array raised numpy's ValueError, a complex Python's TypeError,
    and 1.0 / np.array(1) ran; as_int's rule now refuses all of them by name."""
    with aj.Core("atlas-a2"):
        for bad in (np.array([1, 0]), 1 + 0j, 1.0, np.array(1), np.float64(0)):
            with pytest.raises(aj.ParameterError, match="count_value"):
                aj.GetBitCount(5, count_value=bad)
            with pytest.raises(aj.ParameterError, match="count_value"):
                aj.GetSFFValue(5, count_value=bad)
        assert aj.GetBitCount(5, count_value=np.uint8(1)) == 2


class _PointerTiling(ctypes.Structure):
    _fields_ = [("n", ctypes.c_uint32), ("name", ctypes.c_char_p)]


class _NestedPointerTiling(ctypes.Structure):
    _fields_ = [("inner", _PointerTiling * 2)]


def test_tiling_structs_and_arrays_of_pointers_or_objects_are_refused():
    """A tiling struct is read from arbitrary bytes: a c_char_p field dereferenced them (a segmentation fault on
    nonzero bytes; zeros read as NULL here), a numpy object field or object tiling array raised numpy's TypeError, a
    numpy str field a SystemError on bytes past U+10FFFF, and a malformed dtype spec numpy's ValueError or
    SyntaxError."""
    zeros = np.zeros(64, np.uint8)
    with aj.Core("atlas-a2"):
        for struct, field in ((_PointerTiling, "name"), (_NestedPointerTiling, "inner.name"),
                              (np.dtype([("a", "u4"), ("p", "O")]), "p"), (np.dtype([("s", "U1")]), "s"),
                              (np.dtype([("x", [("y", "O")])]), "x.y")):
            with pytest.raises(aj.ParameterError, match=f"struct field {field}"):
                aj.GET_TILING_DATA_WITH_STRUCT(struct, zeros)
            with pytest.raises(aj.ParameterError, match="REGISTER_TILING_DEFAULT"):
                aj.REGISTER_TILING_DEFAULT(struct)
        for spec in ("u4,,", [("a", "u1", (2**31,))], {"names": ["a"]}, np.dtype([]), [("a", [])]):   # 0 bytes
            with pytest.raises(aj.ParameterError, match="struct"):
                aj.GET_TILING_DATA_WITH_STRUCT(spec, zeros)
        with pytest.raises(aj.ParameterError, match="tiling"):
            aj.GET_TILING_DATA_WITH_STRUCT(_Tiling, np.array([None] * 32, dtype=object))
        # plain fields still read: char, bool, bit fields, nested arrays, c_void_p (an integer)
        class Plain(ctypes.Structure):
            _fields_ = [("c", ctypes.c_char), ("b", ctypes.c_bool), ("bits", ctypes.c_uint32, 3),
                        ("arr", ctypes.c_uint16 * 2), ("p", ctypes.c_void_p)]
        assert aj.GET_TILING_DATA_WITH_STRUCT(Plain, zeros).c == b"\x00"


def test_printf_refuses_huge_fields_and_values_c_cannot_print():
    """%999999999d built a gigabyte string (a field wider than one core's 1 MiB print space cannot print on the
    device), `*` widths too; %c past U+10FFFF and %f of an int past double raised Python's OverflowError; an
    ascendc_assert on an array raised numpy's ValueError."""
    with aj.Core("atlas-a2"):
        for fmt, args in (("%999999999d\n", (1,)), ("%.999999999f\n", (1.0,)), ("%*d\n", (10**9, 1)),
                          ("%d %.*f\n", (1, 10**8, 1.0)), ("%c\n", (2**30,)), ("%c\n", (-1,)),
                          ("%f\n", (2**2000,))):
            with pytest.raises(aj.ParameterError, match="printf"):
                aj.printf(fmt, *args)
        for expr in (np.array([1, 0]), np.array([])):
            with pytest.raises(aj.ParameterError, match="ascendc_assert: parameter 'expr'"):
                aj.ascendc_assert(expr)
        aj.ascendc_assert(np.array([True]))
        aj.printf("%%%5d|%-*d|%.*f\n", 1, 4, 2, 1, 1.0)


def test_gm_made_read_only_later_is_refused_through_casts_and_views():
    """GM read-only is judged at each call (decisions.md, DataCopy), but on the tensor's own numpy view: the host
    array made read-only after the GlobalTensor (numpy keeps views of it writable) was written by SetValue,
    DataCopy and DataCopyPad, through the tensor and through its ReinterpretCasts."""
    with aj.Core("ascend950") as core:
        x = np.zeros(16, np.int32)
        g = aj.GlobalTensor(x)
        cast = g.ReinterpretCast("int64")
        cast8 = cast[1].ReinterpretCast("int8")     # a view of a view
        x.flags.writeable = False                   # the host's GM buffer
        t = core.local_tensor("int64", 8)
        t[:] = np.arange(8)
        for write in (lambda: cast.SetValue(0, 5), lambda: aj.DataCopy(cast, t, 8), lambda: cast8.SetValue(0, 1),
                      lambda: aj.DataCopyPad(cast, t, aj.DataCopyExtParams(1, 16, 0, 0, 0)),
                      lambda: g.SetValue(3, 1), lambda: aj.DataCopy(g[2], t.ReinterpretCast("int32"), 8)):
            with pytest.raises(aj.ParameterError, match="read-only"):
                write()
        assert not x.any()
        assert cast.GetValue(0) == 0                # reading stays allowed


def test_numpy_ptr_struct_fields_are_written_field_first_and_read_only_tilings_give_a_copy():
    """hostile14: np.record refused `ptr.dtype = 3` (its own attribute) with an AttributeError, and a read-only tiling
    gave a read-only view (a field write raised numpy's ValueError) where the ctypes form gives a copy."""
    dt = np.dtype([("dtype", np.int32), ("max", np.int32), ("inner", [("dtype", np.uint16), ("x", np.uint16)])],
                  align=True)
    tiling = np.zeros(16, np.uint8)
    with aj.Core("atlas-a2"):
        ptr = aj.GET_TILING_DATA_PTR_WITH_STRUCT(dt, tiling)
        ptr.dtype, ptr.max, ptr.inner.dtype = 3, 4, 5
        assert ptr.dtype == 3 and list(tiling[:10]) == [3, 0, 0, 0, 4, 0, 0, 0, 5, 0]
        read_only = tiling.copy()
        read_only.flags.writeable = False
        local = aj.GET_TILING_DATA_PTR_WITH_STRUCT(dt, read_only)
        local.dtype = 7
        assert local.dtype == 7 and read_only[0] == 3
