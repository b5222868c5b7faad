"""Regressions of the common-machinery audit (session 8): tensors, scaffolding, device refusals (SPEC D13,
SPEC-2 1.8, D29). Cheap: no instruction kernels beyond DataCopy."""
import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj


def _bits(tensor):
    return int(tensor.numpy().view({2: np.uint16, 4: np.uint32, 8: np.uint64}[tensor.dtype.size])[0])


def test_set_value_rounds_a_python_float_once_into_bfloat16():
    """SPEC-2 D29: one RNE rounding. 1 + 2^-8 + 2^-40 is just above the bfloat16 tie 1 + 2^-8: it rounds up to
    0x3F81; a detour through float32 (ml_dtypes' conversion) drops 2^-40 and ties to even, 0x3F80."""
    core = aj.Core("ascend950")
    t = core.local_tensor(ml_dtypes.bfloat16, 16)
    t.SetValue(0, 1 + 2**-8 + 2**-40)
    assert _bits(t) == 0x3F81
    t.SetValue(0, float("-nan"))
    assert _bits(t) == 0x7FC0          # the canonical NaN (decisions.md)
    t.SetValue(0, ml_dtypes.bfloat16(-0.0))
    assert _bits(t) == 0x8000          # the exact dtype: bit for bit


@pytest.mark.parametrize("dtype, value, expected", [
    (np.int64, 2**63 - 1, 2**63 - 1), (np.uint64, 2**64 - 1, 2**64 - 1), (np.int64, -2**63, 2**63),
    (np.float16, 1 + 2**-11 + 2**-40, 0x3C01), (np.float32, 2**60 + 1, 0x5D800000),
    (np.int32, np.int64(-5), 2**32 - 5)])
def test_set_value_stores_the_d29_value(dtype, value, expected):
    t = aj.Core("ascend950").local_tensor(dtype, 8)
    t.SetValue(0, value)
    assert _bits(t) == expected


@pytest.mark.parametrize("dtype, value", [
    (np.int8, 300), (np.uint32, -1), (np.int64, 2**63), (np.int16, 1.5), (np.int32, float("nan")),
    (np.float16, True), (ml_dtypes.bfloat16, 2**64 - 1 + 0.5j)])
def test_set_value_refusals_are_parameter_errors_and_write_nothing(dtype, value):
    """Out-of-range integers, floats into integer tensors, bool and non-numbers: ParameterError (an AscendJitError,
    not numpy's OverflowError / ValueError / TypeError), and the element keeps its bytes."""
    core = aj.Core("ascend950")
    t = core.local_tensor(dtype, 8)
    t[:] = np.arange(8).astype(dtype)
    before = core.ub.copy()
    with pytest.raises(aj.ParameterError, match="SetValue"):
        t.SetValue(0, value)
    assert np.array_equal(core.ub, before)


def test_the_vector_core_refuses_data_copy_sync_and_ctrl_reads():
    """SPEC D13 / SPEC-2 0.1: the inference Vector Core is refused by every API (UnsupportedDeviceError naming the
    API and the device), DataCopy, PipeBarrier, SetFlag/WaitFlag, TQueSync and the CTRL reads included; nothing
    moves."""
    core = aj.Core("atlas-inference-vectorcore")
    gm = np.arange(64, dtype=np.float16)
    g = aj.GlobalTensor(gm)
    t = core.local_tensor(np.float16, 64)
    calls = {
        "DataCopy": (lambda: aj.DataCopy(t, g, 64), lambda: aj.DataCopy(g, t, aj.DataCopyParams(1, 4, 0, 0))),
        "PipeBarrier": (lambda: aj.PipeBarrier(aj.PIPE_V),),
        "SetFlag": (lambda: aj.SetFlag(0, event=aj.HardEvent.V_S),),
        "WaitFlag": (lambda: aj.WaitFlag(0, event=aj.HardEvent.V_S),),
        "TQueSync.SetFlag": (lambda: aj.TQueSync(aj.PIPE_V, aj.PIPE_S).SetFlag(0),),
        "GetCtrlSpr": (lambda: aj.GetCtrlSpr(48, 48),),
        "GetSaturationFlag": (lambda: aj.GetSaturationFlag(),),
        "SetAtomicNone": (lambda: aj.SetAtomicNone(),),
    }
    before = core.ub.copy()
    with core:
        for api, forms in calls.items():
            for call in forms:
                with pytest.raises(aj.UnsupportedDeviceError, match=f"{api}.*atlas-inference-vectorcore"):
                    call()
    assert np.array_equal(core.ub, before) and np.array_equal(gm, np.arange(64, dtype=np.float16))
    assert core.flags == {} or not any(core.flags.values())


def test_global_tensor_set_value_follows_d29_too():
    g = aj.GlobalTensor(np.zeros(4, ml_dtypes.bfloat16))
    g.SetValue(1, 1 + 2**-8 + 2**-40)
    assert int(g.numpy().view(np.uint16)[1]) == 0x3F81
    ints = np.zeros(4, np.int8)
    with pytest.raises(aj.ParameterError, match="GlobalTensor.SetValue"):
        aj.GlobalTensor(ints).SetValue(0, 300)
    assert not ints.any()


def test_data_copy_takes_its_third_argument_by_keyword():
    """SPEC-2 1.1: every parameter also by the snake_case of its C++ name (`count`, `repeatParams`)."""
    core = aj.Core("atlas-a2")
    gm = np.arange(64, dtype=np.float16)
    t = core.local_tensor(np.float16, 64)
    aj.DataCopy(t, aj.GlobalTensor(gm), count=32)
    assert np.array_equal(t.numpy()[:32], gm[:32]) and not t.numpy()[32:].any()
    aj.DataCopy(dst=t, src=aj.GlobalTensor(gm[::-1].copy()), repeat_params=aj.DataCopyParams(1, 4, 0, 0))
    assert np.array_equal(t.numpy(), gm[::-1])
    with pytest.raises(aj.ParameterError, match="one of count or repeat_params"):
        aj.DataCopy(t, aj.GlobalTensor(gm), 16, count=16)


@pytest.mark.parametrize("name, device", [("Ascend910B", "atlas-a2"), ("Ascend910C", "atlas-a3"),
                                          ("Ascend310P", "atlas-inference-aicore"), ("Ascend310B", "atlas-200i-500-a2"),
                                          ("Ascend910", "atlas-training"), ("Ascend950PR", "ascend950")])
def test_soc_spellings_of_the_d13_aliases(name, device):
    assert aj.Core(name).device == device


def test_init_buffer_refusals_name_the_free_bytes_and_leave_the_allocator():
    core = aj.Core("atlas-a2")
    with core:
        pipe = aj.TPipe()
        free = list(core._free)
        with pytest.raises(aj.OutOfBoundsError, match=r"within the 196608 free UB bytes \(these need 240128 B;"):
            pipe.InitBuffer(aj.TQue(aj.TPosition.VECIN, 1), 4, 60001)
        assert core._free == free
        pipe.InitBuffer(aj.TBuf(aj.TPosition.VECCALC), 100000)   # 100000 B of the UB taken, 96608 B left
        with pytest.raises(aj.OutOfBoundsError) as refused:   # the product and what holds the UB (port52a)
            pipe.InitBuffer(aj.TQue(aj.TPosition.VECOUT, 2), 2, 50000)
        for words in ("'2 x 50000 B for a TQue(VECOUT)'", "96608 free UB bytes (these need 100032 B",  # DataBlocks
                      "this TPipe's 1 earlier buffers hold 100000 B of the 196608 B UB"):
            assert words in str(refused.value)
        assert "earlier TPipe" not in str(refused.value)


def test_init_buffer_refusal_names_an_earlier_tpipe_still_holding_the_ub():
    """port57f (ops-cv Rasterizer: a C++ TPipe ends with its scope, ~TPipe calling Destroy, before the next takes
    184 KiB): in Python `del` frees nothing, so the refusal names the earlier pipe's bytes and how to end it."""
    with aj.Core("atlas-a2"):
        first = aj.TPipe()
        first.InitBuffer(aj.TBuf(aj.TPosition.VECCALC), 150 * 1024)
        del first
        second = aj.TPipe()
        with pytest.raises(aj.OutOfBoundsError, match=r"153600 B are an earlier TPipe's, which holds them until its "
                                                      r"Destroy\(\).*with aj.TPipe\(\) as pipe:"):
            second.InitBuffer(aj.TBuf(aj.TPosition.VECCALC), 150 * 1024)
    with aj.Core("atlas-a2"):
        with aj.TPipe() as first:
            first.InitBuffer(aj.TBuf(aj.TPosition.VECCALC), 150 * 1024)
        aj.TPipe().InitBuffer(aj.TBuf(aj.TPosition.VECCALC), 150 * 1024)   # the block ended the first


def test_launch_block_dim_refusal_names_the_device():
    with pytest.raises(aj.ParameterError, match=r"block_dim.*\[1, 65535\].*on device atlas-a2"):
        aj.launch(lambda: None, 0, "910B")


def test_data_copy_params_is_a_struct_and_a_tuple_stands_for_it():
    """SPEC-2 1.1: parameter structs are dataclasses with the C++ field names and order (value equality, a repr);
    a plain tuple of the same length is accepted wherever the struct is, typed as the struct's fields are."""
    assert aj.DataCopyParams(2, 3, 4, 5) == aj.DataCopyParams(blockCount=2, blockLen=3, srcStride=4, dstStride=5)
    assert "blockLen=3" in repr(aj.DataCopyParams(2, 3))
    core = aj.Core("atlas-a2")
    gm = np.arange(128, dtype=np.float16)
    t = core.local_tensor(np.float16, 64)
    aj.DataCopy(t, aj.GlobalTensor(gm), (2, 2, 2, 0))            # rows 0..31 and 64..95 of GM
    assert np.array_equal(t.numpy(), np.concatenate([gm[:32], gm[64:96]]))
    aj.DataCopy(t, aj.GlobalTensor(gm), repeat_params=(1, 4, 0, 0))
    assert np.array_equal(t.numpy(), gm[:64])
    for bad in ((True, 4, 0, 0), (1, 4, 0), (1, 4.0, 0, 0)):
        with pytest.raises(aj.ParameterError):
            aj.DataCopy(t, aj.GlobalTensor(gm), bad)


@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_ctrl_reads_exist_where_the_devkit_offers_them(device):
    """DK GetCtrlSpr(ISASI).md: 950, A3, A2; GetSaturationFlag(ISASI).md: A3, A2 (as SetSaturationFlag, D21)."""
    core = aj.Core(device)
    if device in ("ascend950", "atlas-a3", "atlas-a2"):
        assert core.GetCtrlSpr(48, 48) == 1                  # INF/NaN by default (SPEC D6)
    else:
        with pytest.raises(aj.UnsupportedDeviceError, match=f"GetCtrlSpr.*{device}"):
            core.GetCtrlSpr(48, 48)
    if device in ("atlas-a3", "atlas-a2"):
        assert core.GetSaturationFlag() is False
    else:
        with pytest.raises(aj.UnsupportedDeviceError, match=f"GetSaturationFlag.*{device}"):
            core.GetSaturationFlag()


def test_local_tensor_length_and_position():
    core = aj.Core("atlas-a2")
    with core:
        pipe, que = aj.TPipe(), aj.TQue(aj.TPosition.VECOUT, 1)
        pipe.InitBuffer(que, 1, 100)                # rounded up to 128 bytes (decisions.md "Buffer lengths")
        t = que.AllocTensor(np.float32)
        assert (t.GetSize(), t.GetLength(), t.GetPosition()) == (32, 128, aj.TPosition.VECOUT)
        assert (t[5].GetLength(), t[5].GetPosition()) == (108, aj.TPosition.VECOUT)
        assert core.local_tensor(np.float16, 7).GetPosition() is aj.TPosition.VECCALC


def test_set_vector_mask_by_keyword():
    """SPEC-2 1.1: parameters also by the snake_case of their C++ names (`len`, `maskHigh`, `maskLow`)."""
    core = aj.Core("atlas-a2")
    core.SetVectorMask(len=100)
    assert (core.mask_high, core.mask_low) == ((1 << 36) - 1, 2**64 - 1)
    core.SetVectorMask(mask_high=1, mask_low=2)
    assert (core.mask_high, core.mask_low) == (1, 2)
    with pytest.raises(aj.ParameterError, match="mask_high, mask_low"):
        core.SetVectorMask(mask_low=2)
    assert (core.mask_high, core.mask_low) == (1, 2)
