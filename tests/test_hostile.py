"""Issue 12, hostile input: one regression test (or more) per defect. The principle: a refused call raises an
AscendJitError subclass before anything is written (UB, GM, mask register, CTRL, allocator state); an accepted call
computes exactly what the same call with plain Python ints computes."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.reference import model as ref

P = aj.BinaryRepeatParams
NUMPY_INTS = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)


def _state(core):
    return (core.ub.tobytes(), core.mask_high, core.mask_low, core.mask_defined, core.ctrl, core.acc_val,
            tuple(core._free))


def _outcome(device, call, counter=False, seed=3):
    """Run call(core, tensors) on a fresh core with a random UB: ("ok", state) or ("refused", error type, whether the
    state is unchanged)."""
    core = aj.Core(device)
    core.ub[:] = np.random.default_rng(seed).integers(0, 256, core.ub.size, dtype=np.uint8)
    core.ub.view(np.uint16)[:] &= 0x3BFF  # finite, moderate halves: sums stay exact enough to compare bits
    core.ub_written_by_host()   # raw UB bytes: initialised for the sanitizer
    if counter:
        core.SetMaskCount()
    t = {name: core.local_tensor(dt, n, addr=addr) for name, (dt, n, addr) in {
        "a": ("half", 16384, 0), "b": ("half", 4096, 32768), "c": ("half", 4096, 40960), "dst": ("half", 16, 49152),
        "tmp": ("half", 512, 49408), "f": ("float", 1024, 50432)}.items()}
    before = _state(core)
    try:
        call(core, t)
    except aj.AscendJitError as e:
        return "refused", type(e), _state(core) == before
    return "ok", _state(core)


# --- defect 1: numpy fixed-width integers -------------------------------------------------------------------------
CALLS_WITH_INTS = {  # name -> (device, counter mode, call with the integer arguments as a tuple)
    "reduce_sum_high_dim_stride": ("atlas-a2", False,
                                   lambda c, t, v: aj.ReduceSum(t["dst"], t["a"], t["tmp"], v[0], v[1], v[2]),
                                   (128, 65, 8)),
    "reduce_sum_count": ("ascend950", False, lambda c, t, v: aj.ReduceSum(t["dst"], t["a"], t["tmp"], v[0]), (3000,)),
    "add_count": ("atlas-a2", False, lambda c, t, v: aj.Add(t["c"], t["a"], t["b"], v[0]), (16,)),
    "add_count_910_mask_register": ("atlas-training", False, lambda c, t, v: aj.Add(t["c"], t["a"], t["b"], v[0]),
                                    (200,)),
    "add_high_dim_strides": ("atlas-a2", False, lambda c, t, v: aj.Add(t["c"], t["a"], t["b"], v[0], v[1],
                                                                         P(v[2], 1, 1, v[3], 8, 8)), (100, 3, 2, 16)),
    "add_partial_overlap_stride": ("atlas-a2", False, lambda c, t, v: aj.Add(  # refused: repeat 1 overlaps partly
        c.local_tensor("half", 256, addr=6208), t["a"], t["b"], v[0], v[1], P(1, 1, 1, 8, v[2], 8)), (128, 2, 200)),
    "reduce_pair": ("atlas-a2", False, lambda c, t, v: aj.ReducePairElem(t["c"], t["a"], v[0], v[1], v[2], v[3], v[4]),
                    (100, 3, 1, 2, 16)),
    "add_counter_mode": ("atlas-a3", True, lambda c, t, v: aj.Add(t["c"], t["a"], t["b"], v[0], v[1], P()), (300, 1)),
    "set_vector_mask": ("atlas-a2", False, lambda c, t, v: c.SetVectorMask(v[0], v[1]), (5, 2**40)),
}


@pytest.mark.parametrize("np_int", NUMPY_INTS, ids=lambda t: t.__name__)
@pytest.mark.parametrize("name", sorted(CALLS_WITH_INTS))
def test_numpy_integers_behave_as_python_ints(name, np_int):
    device, counter, call, values = CALLS_WITH_INTS[name]
    expected = _outcome(device, lambda c, t: call(c, t, values), counter)
    assert expected[0] == "ok" or expected[:2] == ("refused", aj.OverlapError)
    for k, v in enumerate(values):
        if not np.can_cast(np.min_scalar_type(v), np_int):
            continue  # not representable in this width
        hostile = tuple(np_int(x) if i == k else x for i, x in enumerate(values))
        got = _outcome(device, lambda c, t: call(c, t, hostile), counter)
        assert got == expected, (name, np_int.__name__, k)


def test_numpy_uint8_stride_is_not_multiplied_in_8_bits():
    """np.uint8(8) * 32 == 0 in numpy: the 65 repeats must still be 256 halves apart."""
    got = _outcome("atlas-a2", lambda c, t: aj.ReduceSum(t["dst"], t["a"], t["tmp"], 128, 32, np.uint8(8)))
    plain = _outcome("atlas-a2", lambda c, t: aj.ReduceSum(t["dst"], t["a"], t["tmp"], 128, 32, 8))
    wrapped = _outcome("atlas-a2", lambda c, t: aj.ReduceSum(t["dst"], t["a"], t["tmp"], 128, 32, 0))
    assert got == plain != wrapped


def test_numpy_bool_and_float_integers_are_refused():
    for bad in (True, np.bool_(True), 16.0, np.float32(16), "16", None, 2**70, -1):
        got = _outcome("atlas-a2", lambda c, t: aj.Add(t["c"], t["a"], t["b"], bad))
        assert got[0] == "refused" and got[1] is aj.ParameterError and got[2], bad


# --- defect 2: memo keys and state commits ------------------------------------------------------------------------
def test_equal_values_of_other_types_never_share_a_cache_entry():
    core = aj.Core("atlas-a2")
    a, b, c = (core.local_tensor("half", 512) for _ in range(3))
    a[:], b[:] = np.ones(512, np.float16), np.ones(512, np.float16)
    aj.Add(c, a, b, 128, 2, P())
    aj.Add(c, a, b, 512)
    before = _state(core)
    for call in (lambda: aj.Add(c, a, b, 128, 2.0, P()), lambda: aj.Add(c, a, b, 512.0),
                 lambda: aj.Add(c, a, b, 128, 2, P(1, 1, 1, 8.0, 8, 8)), lambda: aj.Add(c, a, b, 128.0, 2, P()),
                 lambda: aj.Add(c, a, b, [2.0**64 - 1], 2, P()), lambda: aj.Add(c, a, b, True)):
        with pytest.raises(aj.ParameterError):
            call()
        assert _state(core) == before


def test_a_refused_high_dim_call_leaves_the_mask_register():
    for device in ("atlas-a2", "ascend950"):
        core = aj.Core(device)
        a, b, c = (core.local_tensor("half", 512) for _ in range(3))
        core.SetVectorMask(0, 5)
        before = _state(core)
        part = core.local_tensor("half", 256, addr=a.addr + 64)
        full = [2**64 - 1, 2**64 - 1]
        for call in (lambda: aj.Add(part, a, b, full, 2, P()), lambda: aj.Add(c, a, b, full, 2, P(0, 1, 1, 8, 8, 8)),
                     lambda: aj.ReducePairElem(a, a[32:], full, 2, 1, 1, 8)):
            with pytest.raises(aj.AscendJitError):
                call()
            assert _state(core) == before


# --- defect 3: is_set_mask=False on count forms (SPEC 2.5 as SPEC-2 D32 makes it concrete) -----------------------
@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_count_form_with_is_set_mask_false_uses_the_counter_register(device):
    """SPEC-2 D32: a tensor-scalar count form with is_set_mask=False takes the counter-mode register's count (128)
    and leaves the register and the mode alone; on the 950 the flag has no effect (count 1)."""
    core = aj.Core(device)
    a, c = core.local_tensor("half", 256), core.local_tensor("half", 256)
    a[:], c[:] = 1, 0
    core.SetMaskCount()
    core.SetVectorMask(128)
    aj.Adds(c, a, 2, 1, is_set_mask=False)
    n = 1 if device == "ascend950" else 128
    assert (c.numpy()[:n] == 3).all() and (c.numpy()[n:] == 0).all()
    if device != "ascend950":
        assert core.counter_mode and (core.mask_high, core.mask_low) == (0, 128)


def test_count_forms_never_ignore_is_set_mask_silently():
    """Add's count prototype has no isSetMask (SPEC-2 D32): the keyword is refused, never ignored; outside counter
    mode a count form with is_set_mask=False is a StateError, before anything is written."""
    core = aj.Core("atlas-a2")
    a, b, c = (core.local_tensor("half", 256) for _ in range(3))
    before = _state(core)
    with pytest.raises(TypeError, match="is_set_mask"):
        aj.Add(c, a, b, 1, is_set_mask=False)
    with pytest.raises(aj.StateError, match="counter"):
        aj.Adds(c, a, 2, 1, is_set_mask=False)
    assert _state(core) == before


# --- defect 4: absurd sizes are refused by range checks, not enumerated -------------------------------------------
def test_absurd_sizes_are_refused_promptly():
    code = """
import numpy as np, ascend_jit as aj
core = aj.Core("atlas-a2")
a, b, c = (core.local_tensor("half", 512) for _ in range(3))
core.SetMaskCount()
for call in (lambda: aj.ReducePairElem(c, a, [2**40], 0, 0, 2, 0),
             lambda: aj.Add(c, a, b, 2**40, 1, aj.BinaryRepeatParams(1, 1, 1, 0, 0, 0)),
             lambda: aj.Add(c, a, b, [2**40], 1, aj.BinaryRepeatParams(1, 1, 1, 0, 0, 0))):
    try:
        call()
    except aj.ParameterError:
        pass
core.SetMaskNorm()
try:
    aj.DataCopy(a, aj.GlobalTensor(np.zeros(4096, np.float16)), aj.DataCopyParams(2**40, 0, 1, 1))
except aj.ParameterError:
    pass
try:
    aj.DataCopy(a, aj.GlobalTensor(np.zeros(4096, np.float16)), aj.DataCopyParams(4095, 65535, 65535, 65535))
except aj.OutOfBoundsError:
    print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=os.getcwd()))
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


def test_counter_mode_counts_are_bounded_by_the_ub():
    core = aj.Core("atlas-a2")
    a, b, c = (core.local_tensor("half", 512) for _ in range(3))
    core.SetMaskCount()
    with pytest.raises(aj.ParameterError, match="counter-mode count"):
        aj.Add(c, a, b, core.spec.ub_bytes // 2 + 1, 1, P(1, 1, 1, 0, 0, 0))
    core.SetVectorMask(2**40)
    with pytest.raises(aj.ParameterError, match="mask register"):
        aj.Add(c, a, b, aj.MASK_PLACEHOLDER, 1, P(1, 1, 1, 0, 0, 0), is_set_mask=False)


# --- defect 5: hand-made tensors --------------------------------------------------------------------------------
def test_hand_made_tensors_are_checked_when_made_and_read_only():
    core = aj.Core("atlas-a2")
    ub = core.spec.ub_bytes
    with pytest.raises(aj.OutOfBoundsError):
        aj.LocalTensor(core, "half", ub - 32, 4096)
    for args in ((core, "half", -32, 16), (core, "half", 1.5, 16), (core, "half", 0, np.float64(3)),
                 (core, "half", 0, -1), ("core", "half", 0, 16), (core, "half", 0, 16, "VECIN"),
                 (core, "half", 0, True)):
        with pytest.raises(aj.AscendJitError):
            aj.LocalTensor(*args)
    t = aj.LocalTensor(core, "half", 0, 16)
    assert t.size == 16 and t.addr == 0
    for name, value in (("size", 65536), ("addr", ub - 32), ("dtype", "float"), ("core", aj.Core("ascend950")),
                        ("position", aj.TPosition.VECIN), ("anything", 1)):
        with pytest.raises(aj.ReadOnlyError):
            setattr(t, name, value)
        with pytest.raises(AttributeError):  # the Python convention, too
            setattr(t, name, value)
    assert (t.size, t.addr, t.dtype.name) == (16, 0, "half")
    u = aj.LocalTensor(core, "half", np.int64(64), np.uint16(16))
    assert type(u.addr) is int and type(u.size) is int


# --- defect 6: freed handles stay dead ----------------------------------------------------------------------------
def test_a_freed_queue_tensor_stays_dead_after_its_buffer_is_reallocated():
    core = aj.Core("atlas-a2")
    with core:
        pipe = aj.TPipe()
        que = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(que, 1, 512)
        t0 = que.AllocTensor("half")
        que.FreeTensor(t0)
        t1 = que.AllocTensor("half")
        src, dst = core.local_tensor("half", 256), core.local_tensor("half", 256)
        src[:], dst[:] = np.ones(256, np.float16), np.ones(256, np.float16)
        with pytest.raises(aj.StateError, match="freed"):
            aj.Add(t0, src, dst, 256)
        with pytest.raises(aj.StateError):
            t0.numpy()
        with pytest.raises(aj.StateError):
            que.FreeTensor(t0)
        aj.Add(t1, src, dst, 256)  # t1 is still allocated: t0's FreeTensor did not free it
        with pytest.raises(aj.StateError):
            que.AllocTensor("half")
        que.FreeTensor(t1)
        que.AllocTensor("half")


# --- defect 7: exact overlap sets for ReduceSum ------------------------------------------------------------------
@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_reduce_sum_accepts_dst_and_tmp_in_the_gaps_of_a_strided_src(device):
    core = aj.Core(device)
    rng = np.random.default_rng(7)
    core.ub[:4096] = rng.integers(0, 256, 4096, dtype=np.uint8)
    core.ub[:4096].view(np.uint16)[:] &= 0x3BFF
    core.ub_written_by_host(0, 4096)   # raw UB bytes: initialised for the sanitizer
    src = core.local_tensor("half", 1024, addr=0)
    dst = core.local_tensor("half", 16, addr=256)   # inside the unread half of repeat 0's 512-byte stride
    tmp = core.local_tensor("half", 16, addr=768)   # inside the gap after repeat 1
    expected = core.ub.copy()
    ref.reduce_sum_high_dim(expected, core.spec, "half", 256, 0, 768, list(range(128)), 4, 16,
                            core.half_saturating)
    aj.ReduceSum(dst, src, tmp, 128, 4, 16)
    assert np.array_equal(core.ub, expected)
    for bad_dst in (core.local_tensor("half", 16, addr=766), core.local_tensor("half", 16, addr=1536)):
        with pytest.raises(aj.OverlapError, match="repeat"):
            aj.ReduceSum(bad_dst, src, tmp, 128, 4, 16)
    partial = core.local_tensor("half", 16, addr=64)  # a bit mask that skips block 2 (lanes 32-47): the gap is legal
    aj.ReduceSum(partial, src, tmp, [0xFFFF0000FFFFFFFF, 2**64 - 1], 1, 8)


def test_reduce_sum_count_form_overlap_still_refused():
    core = aj.Core("atlas-training")
    src = core.local_tensor("half", 1024, addr=0)
    tmp = core.local_tensor("half", 64, addr=4096)
    src[:] = np.ones(1024, np.float16)
    with pytest.raises(aj.OverlapError):
        aj.ReduceSum(core.local_tensor("half", 16, addr=2046), src, tmp, 1024)
    aj.ReduceSum(core.local_tensor("half", 16, addr=2048), src, tmp, 1024)


# --- defect 8: exception types ------------------------------------------------------------------------------------
def test_malformed_arguments_raise_ascend_jit_errors():
    core = aj.Core("atlas-a2")
    a, b, c = (core.local_tensor("half", 512) for _ in range(3))
    calls = [lambda: aj.Add(c, a, b, [float("nan")], 1, P()), lambda: aj.Add(c, a, b, [None, 0], 1, P()),
             lambda: aj.Add(c, a, b, np.array(5, np.uint64), 1, P()),
             lambda: aj.Add(c, a, b, np.ones((2, 1), np.uint64), 1, P()),
             lambda: aj.Add(c, a, b, [], 1, P()), lambda: aj.Add(c, a, b, "128", 1, P()),
             lambda: aj.Add(c, a, b, 128, 1, P(None)), lambda: aj.Add(c, a, b, 128, 1, "P"),
             lambda: core.SetVectorMask(None), lambda: core.SetVectorMask(1, 2, 3),
             lambda: core.SetVectorMask(5, mode="COUNTER"),
             lambda: core.SetSaturationFlag(True, 5), lambda: core.SetSaturationFlag("yes"),
             lambda: core.SetCtrlSpr(48.0, 48, 1), lambda: core.SetCtrlSpr(48, 48, 1.0),
             lambda: core.SetCtrlSpr(48, 48, True), lambda: core.GetCtrlSpr(None, 2),
             lambda: aj.ReduceSum(c, a, b, 128, 1, 8, is_set_mask=False), lambda: aj.ReduceSum(None, a, b, 64),
             lambda: aj.ReducePairElem(c, a, 128, 1, 1, 1, 8, reduce_type=5),
             lambda: aj.DataCopy(c, None, 64), lambda: aj.DataCopy(c, aj.GlobalTensor(), 64),
             lambda: aj.DataCopy(c, a, aj.DataCopyParams(1.0, 1, 0, 0)),
             lambda: aj.TQue(depth=1.0), lambda: aj.TQue("VECIN"), lambda: aj.TBuf(None),
             lambda: aj.GetReduceSumTmpSize("atlas-a2", "half", count=1.5),
             # an object with a non-numpy `.dtype` (a tensor passed for its type): numpy's ValueError before
             lambda: a.ReinterpretCast(b), lambda: a.ReinterpretCast(aj.GlobalTensor(np.zeros(4, np.float32)))]
    for i, call in enumerate(calls):
        before = _state(core)
        with pytest.raises(aj.AscendJitError):
            call()
        assert _state(core) == before, i


def test_reg_api_malformed_arguments_raise_ascend_jit_errors():
    core = aj.Core("ascend950")
    t = core.local_tensor("half", 512)
    t[:] = np.ones(512, np.float16)
    R = aj.Reg
    r, r2 = R.RegTensor("half"), R.RegTensor("half")
    m = R.CreateMask("half")
    calls = [lambda: R.CreateMask("half", 14), lambda: R.CreateMask("half", 2.0), lambda: R.CreateMask("half", True),
             lambda: R.ReduceDataBlock(r2, r, m, reduce_type=5), lambda: R.ReduceDataBlock(r2, r, m, aj.ReduceType.SUM),
             lambda: R.ReduceDataBlock(r2, r, m, mode=7), lambda: R.MaskReg((1, 0, 0)),
             lambda: R.MaskReg((1.5, 0, 0, 0)), lambda: R.MaskReg((2**64, 0, 0, 0)), lambda: R.MaskReg(None),
             lambda: R.LoadAlign(r, t, 2**62), lambda: R.StoreAlign(t, r, m, 2**62), lambda: R.LoadAlign(r, t, 2**64),
             lambda: R.StoreAlign(t, r, m, -2**63), lambda: R.LoadAlign(r, t, 1.0), lambda: R.UpdateMask("half", True),
             lambda: R.UpdateMask("half", 3.0)]
    for i, call in enumerate(calls):
        before = _state(core)
        with pytest.raises(aj.AscendJitError):
            call()
        assert _state(core) == before, i
    R.ReduceDataBlock(r2, r, m, R.ReduceType.MAX, R.MaskMergeMode.ZEROING)
    R.LoadAlign(r, t, np.uint8(128))


# --- defect 9: silent coercions -----------------------------------------------------------------------------------
def test_silent_coercions_are_refused():
    core = aj.Core("atlas-a2")
    a, b, c = (core.local_tensor("half", 512) for _ in range(3))
    with core:
        pipe = aj.TPipe()
        buf = aj.TBuf()
        pipe.InitBuffer(buf, 1024)
    for call in (lambda: aj.Add(c, a, b, [1.5], 1, P()), lambda: aj.Add(c, a, b, ["3"], 1, P()),
                 lambda: aj.Add(c, a, b, [3.0, 0], 1, P()), lambda: core.SetVectorMask(1.5),
                 lambda: core.SetVectorMask(1.0, 0), lambda: core.local_tensor("half", 1.5),
                 lambda: core.local_tensor("half", 16, addr=32.0), lambda: buf.Get("half", 1.5),
                 lambda: pipe.InitBuffer(aj.TQue(), 1, 512.0)):
        before = _state(core)
        with pytest.raises(aj.ParameterError):
            call()
        assert _state(core) == before


def test_host_arrays_in_an_instruction_expression_are_refused():
    core = aj.Core("atlas-a2")
    a, c = core.local_tensor("half", 64), core.local_tensor("half", 64)
    host = np.ones(64, np.float16)
    for expr in (lambda: host + a, lambda: a + host, lambda: 1 + a, lambda: a + 1.0):
        before = _state(core)
        with pytest.raises(aj.ParameterError, match="copy host data in first"):
            c[:] = expr()
        assert _state(core) == before
    # `x + offset`, a C++ pointer moved by elements, is named as tensor[offset] (session 51's Reg port wrote
    # `R.LoadAlign(r, src + 64)`); another operator or a float is not pointer arithmetic
    with pytest.raises(aj.ParameterError, match=r"write tensor\[offset\]"):
        a + 64
    for expr in (lambda: a * 64, lambda: a + 1.0, lambda: a + True):
        with pytest.raises(aj.ParameterError) as info:
            expr()
        assert "tensor[offset]" not in str(info.value)


# --- defect 10: smaller inconsistencies (decisions.md "Hostile input") -------------------------------------------
def test_vector_core_refuses_every_state_api():
    core = aj.Core("atlas-inference-vectorcore")
    before = _state(core)
    for call in (core.SetMaskCount, core.SetMaskNorm, core.ResetMask, core.GetReduceRepeatSumSpr,
                 lambda: core.SetVectorMask(5)):
        with pytest.raises(aj.UnsupportedDeviceError):
            call()
    assert _state(core) == before


def test_950_counter_mode_reduce_sum_takes_one_or_two_mask_words():
    core = aj.Core("ascend950")
    src, dst, tmp = core.local_tensor("half", 512), core.local_tensor("half", 16), core.local_tensor("half", 64)
    src[:] = np.ones(512, np.float16)
    core.SetMaskCount()
    for bad in ([300, 0, 0], [], [300.0], np.array([[300]], np.uint64)):
        with pytest.raises(aj.ParameterError):
            aj.ReduceSum(dst, src, tmp, bad, 1, 8)
    aj.ReduceSum(dst, src, tmp, [300, 0], 1, 8)


def test_310b_counter_mode_pair_with_dst_rep_stride_zero_is_refused_as_on_the_950():
    for device in ("atlas-200i-500-a2", "ascend950"):
        core = aj.Core(device)
        src, dst = core.local_tensor("half", 512), core.local_tensor("half", 256)
        core.SetMaskCount()
        with pytest.raises(aj.ParameterError, match="D24"):
            aj.ReducePairElem(dst, src, 200, 1, 0, 1, 8)


def test_store_align_without_active_lanes():
    """decisions.md: the address must be 32-byte aligned whatever the mask; with no active lane nothing is written,
    so no byte needs to lie inside the UB."""
    core = aj.Core("ascend950")
    t = core.local_tensor("half", 512)
    r = aj.Reg.RegTensor("half")
    none = aj.Reg.CreateMask("half", aj.Reg.MaskPattern.ALLF)
    before = _state(core)
    with pytest.raises(aj.AlignmentError):
        aj.Reg.StoreAlign(t, r, none, 1)
    aj.Reg.StoreAlign(core.local_tensor("half", 16, addr=core.spec.ub_bytes - 32), r, none, 0)
    assert _state(core) == before


# --- session 13 black-box report (hostile13): released memory, compiled VF argument ranges, unbounded trees --------
def test_a_tensor_of_a_freed_allocation_is_dead():
    """core.free(addr) hands the bytes out again: the freed tensor (and its sub-tensors) must not write the new
    owner's data (it overwrote it)."""
    core = aj.Core("atlas-a2")
    t = core.local_tensor("half", 128)
    sub = t[16]
    core.free(t.addr)
    u = core.local_tensor("half", 128)
    assert u.addr == t.addr
    u[:] = np.zeros(128, np.float16)
    before = _state(core)
    for call in (lambda: aj.Duplicate(t, 7.0, 128), lambda: aj.Duplicate(sub, 7.0, 16), lambda: t.SetValue(0, 1.0),
                 lambda: t.GetValue(0), t.numpy):
        with pytest.raises(aj.StateError, match="freed"):
            call()
    assert _state(core) == before
    aj.Duplicate(u, 1.0, 128)  # the new owner is unaffected
    with pytest.raises(aj.StateError):
        core.free(t.addr + 32)  # not an allocation


@pytest.mark.parametrize("release", ["Destroy", "Reset"])
def test_tensors_of_a_destroyed_pipe_are_dead(release):
    """TPipe.Destroy with a queue tensor still allocated gave the bytes to the next TPipe and left the tensor
    usable; TBuf tensors survived Destroy and Reset too. The queues and TBufs are unbound as well."""
    core = aj.Core("atlas-a2")
    with core:
        pipe = aj.TPipe()
        q, b = aj.TQue(aj.TPosition.VECIN, 1), aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(q, 1, 256)
        pipe.InitBuffer(b, 256)
        t = q.AllocTensor("half") if release == "Destroy" else None
        w = b.Get("half")
        if t is None:
            getattr(pipe, release)()
        else:
            pipe.Destroy()
        pipe2 = aj.TPipe()
        q2 = aj.TQue(aj.TPosition.VECIN, 1)
        pipe2.InitBuffer(q2, 2, 256)
        u = q2.AllocTensor("half")
        u[:] = np.zeros(128, np.float16)
        before = _state(core)
        for stale in [w] + ([t] if t is not None else []):
            with pytest.raises(aj.StateError, match="freed"):
                aj.Duplicate(stale, 7.0, 128)
        with pytest.raises(aj.StateError):
            q.AllocTensor("half")  # the old queue has no buffers any more
        assert _state(core) == before


R_ = aj.Reg


@R_.simd_vf
def _copy_vf(dst, src, off_in, off_out):
    r = R_.RegTensor("half")
    m = R_.CreateMask("half", R_.MaskPattern.ALL)
    R_.LoadAlign(r, src, off_in)
    R_.StoreAlign(dst, r, m, off_out)


@R_.simd_vf
def _blocks_vf(dst, src, block_stride):
    r = R_.RegTensor("half")
    m = R_.CreateMask("half", R_.MaskPattern.ALL)
    R_.LoadAlign(r, src, 0, data_block_stride=block_stride, mask=m)
    R_.StoreAlign(dst, r, m, 0)


@R_.simd_vf
def _masks_vf(dst, n, pattern):
    o = R_.RegTensor("half")
    m, n = R_.UpdateMask("half", n)
    R_.Duplicate(o, 1.0, m)
    R_.StoreAlign(dst, o, R_.CreateMask("half", pattern), 0)


@pytest.mark.ascend_sanitize(checks="", reason="a compiled VF against its plain run: a sanitizing core runs every VF "
                             "plain (and the test reads dst by GetValue straight after the VF's store)")
def test_compiled_vf_refuses_what_plain_python_refuses():
    """A compiled VF took offsets outside int32 when offset * sizeof(T) wrapped into the tensor (-2**63 + 128 loaded
    element 128), DATA_BLOCK_COPY strides past int32, a float UpdateMask count and a None CreateMask pattern; the
    same VF run as plain Python (py_func) refuses each."""
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("half", 256), core.local_tensor("half", 256)
    src[:] = np.arange(256, dtype=np.float16)
    dst[:] = np.zeros(256, np.float16)
    cases = [(_copy_vf, (dst, src, -2**63 + 128, 0)), (_copy_vf, (dst, src, 0, -2**63)),
             (_copy_vf, (dst, src, np.uint64(2**63 + 128), 0)), (_copy_vf, (dst, src, 2**31, 0)),
             (_blocks_vf, (dst, src, 2**59)), (_masks_vf, (dst, 1.5, R_.MaskPattern.ALL)),
             (_masks_vf, (dst, 128, None))]
    with core:
        for vf, args in cases:
            before = _state(core)
            with pytest.raises(aj.ParameterError):
                vf.py_func(*args)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", aj.UncompiledVFWarning)
                with pytest.raises(aj.ParameterError):
                    vf(*args)
            assert _state(core) == before
        _copy_vf(dst, src, 128, 0)
        assert dst.GetValue(0) == 128


def test_reg_ternary_refuses_none_as_src1():
    core = aj.Core("ascend950")
    with core:
        a, d = aj.Reg.RegTensor("half"), aj.Reg.RegTensor("half")
        m = aj.Reg.MaskReg([2**64 - 1] * 4)
        for op in (aj.Reg.MulAddDst, aj.Reg.AbsSub):
            with pytest.raises(aj.ParameterError, match="src1"):
                op(d, a, None, m)


def test_ceil_division_refuses_integers_past_int64():
    for args in ((2**64, 1), (1, 2**64), (-2**63 - 1, 1)):
        with pytest.raises(aj.ParameterError):
            aj.CeilDivision(*args)
    assert aj.CeilDivision(np.uint64(2**40), 2**40) == 1 and aj.CeilDivision(np.int8(-128), 3) == -42


@pytest.mark.parametrize("kw", [dict(form="count", count=2**40), dict(form="count", count=2**64),
                                dict(form="count", count=8320.0), dict(form="highdim", mask=128, repeat_time=2**31),
                                dict(form="highdim", mask=None, repeat_time=1), dict(form="highdim", mask=2**64,
                                                                                    repeat_time=1),
                                dict(form="ReduceRepeat", mask=128, repeat_time=256),
                                dict(form="ReduceRepeat->ReduceRepeat", count=2**40)])
def test_explain_reduce_order_refuses_counts_past_their_types_at_once(kw):
    """A count of 2**40 or 2**64 built its tree node by node for minutes (gigabytes) before anything was refused."""
    form = kw.pop("form")
    with pytest.raises(aj.ParameterError):
        aj.explain_reduce_order("atlas-a2", form, "half", **kw)


def test_host_copies_take_real_numbers_only_and_never_a_read_only_gm():
    """t[:] = None wrote NaN, a complex array lost its imaginary part, a string or object array raised numpy's
    ValueError / TypeError; SetValue or g[:] = x into a read-only GM buffer raised numpy's ValueError (DataCopy
    refuses it as a ParameterError)."""
    core = aj.Core("atlas-a2")
    t = core.local_tensor("half", 128)
    host = np.arange(128, dtype=np.float16)
    g = aj.GlobalTensor(dtype="half")
    g.SetGlobalBuffer(host, 128)
    ro = np.zeros(128, np.float16)
    ro.flags.writeable = False
    gro = aj.GlobalTensor(dtype="half")
    gro.SetGlobalBuffer(ro, 128)
    before, gm_before = _state(core), host.copy()
    for target in (t, g):
        for value in ("abc", None, np.ones(128, np.complex64), np.array([object()] * 128)):
            with pytest.raises(aj.ParameterError, match="real numbers"):
                target[:] = value
    with pytest.raises(aj.ParameterError, match="read-only"):
        gro.SetValue(0, 1.0)
    with pytest.raises(aj.ParameterError, match="read-only"):
        gro[:] = np.ones(128, np.float16)
    assert _state(core) == before and np.array_equal(host, gm_before) and not ro.any()
    t[:] = [1] * 128   # lists, bools and numbers stay host data
    t[0:2] = np.array([True, False])
    assert t.GetValue(0) == 1 and t.GetValue(1) == 0


def test_global_tensor_checks_its_dtype_and_size_types():
    with pytest.raises(aj.UnsupportedDTypeError):
        aj.GlobalTensor(dtype="float17")   # was dropped silently
    for size in (1.0, True, "4"):
        with pytest.raises(aj.ParameterError):   # an OutOfBoundsError said [0, 16] held 1.0
            aj.GlobalTensor().SetGlobalBuffer(np.zeros(16, np.float16), size)


def test_a_local_tensor_cannot_lie_in_gm():
    """A LocalTensor with TPosition.GM (or a TQue / TBuf at GM) was accepted and Add / DataCopy wrote it as UB."""
    core = aj.Core("atlas-a2")
    before = _state(core)
    with core:
        for call in (lambda: core.local_tensor("half", 16, position=aj.TPosition.GM),
                     lambda: aj.LocalTensor(aj.TPosition.GM, 0, 16, dtype="half"),
                     lambda: aj.TQue(aj.TPosition.GM, 2), lambda: aj.TBuf(aj.TPosition.GM)):
            with pytest.raises(aj.ParameterError, match="in the UB"):
                call()
    assert _state(core) == before


def test_refusals_without_an_operand_name_the_current_core():
    """errors.py: every refusal names the device; SetAtomicAdd, TQue, ReinterpretCast and GetReduceRepeatSumSpr
    refusals inside `with core:` named none."""
    core = aj.Core("atlas-a3")
    t = core.local_tensor("half", 16)
    with core:
        for call in (lambda: aj.SetAtomicAdd("bogus"), lambda: aj.TQue(aj.TPosition.VECIN, -1),
                     lambda: t.ReinterpretCast("float17"), lambda: aj.GetReduceRepeatSumSpr("float17")):
            with pytest.raises(aj.AscendJitError, match="on device atlas-a3"):
                call()


def test_launch_checks_its_kernel_and_parallel_before_any_block():
    for kwargs, kernel in ((dict(), None), (dict(), "kernel"), (dict(parallel=2), lambda: None),
                           (dict(parallel="yes"), lambda: None)):
        with pytest.raises(aj.ParameterError, match="on device atlas-a2"):
            aj.launch(kernel, 2, "atlas-a2", **kwargs)


def test_enque_takes_only_this_queues_tensors():
    """EnQue of a tensor the queue did not allocate (core.local_tensor, another queue's) was accepted and DeQue
    handed it back as this queue's; FreeTensor then refused it. EnQue refuses it as FreeTensor does."""
    core = aj.Core("atlas-a2")
    with core:
        pipe = aj.TPipe()
        q, other = aj.TQue(aj.TPosition.VECIN, 2), aj.TQue(aj.TPosition.VECOUT, 1)
        pipe.InitBuffer(q, 2, 256)
        pipe.InitBuffer(other, 1, 256)
        for foreign in (core.local_tensor("half", 16), other.AllocTensor("half")):
            with pytest.raises(aj.StateError, match="not allocated by this queue"):
                q.EnQue(foreign)
        assert not q.HasTensorInQue()
        t = q.AllocTensor("half")
        q.EnQue(t[16])   # its own tensor, a sub-tensor or a reinterpretation of it, is queued as before
        q.FreeTensor(q.DeQue("half"))


def test_sanitize_config_checks_must_be_a_tuple_of_names():
    for checks in (1, "race", None):
        with pytest.raises(aj.ParameterError, match="checks"):
            aj.SanitizeConfig(checks=checks)


# --- session 17 hostile-input audit (audit17h): SPEC-2 1.5 "a refused call writes nothing and changes no core state",
# SPEC-2 1.8 (every refusal an AscendJitError naming API, parameter, value, legal range and device) ---------------
def _queue_with_one_tensor(core):
    pipe = aj.TPipe(core)
    que = aj.TQue(aj.TPosition.VECIN, 2)
    pipe.InitBuffer(que, 2, 512)
    que.EnQue(que.AllocTensor("half"))
    return pipe, que


@pytest.mark.parametrize("call", [
    lambda c, q: q.DeQue(True), lambda c, q: q.DeQue("float17"), lambda c, q: q.DeQue(1.0),
    lambda c, q: q.DeQue(aj.TPosition.VECIN, aj.TPosition.VECOUT, "float17"),
    lambda c, q: c.free(False), lambda c, q: c.free(0.0), lambda c, q: c.free([0]),
    lambda c, q: c.free(q._buffers[1].addr),
    lambda c, q: aj.SyncAll(aj.GlobalTensor(np.zeros(8, np.int32)), c.local_tensor("int32", 8, addr=4096), True),
    lambda c, q: aj.SyncAll(aj.GlobalTensor(np.zeros(8, np.int32)), c.local_tensor("int32", 8, addr=4096), 1.0)],
    ids=["DeQue-bool", "DeQue-name", "DeQue-float", "DeQue-template", "free-False", "free-0.0", "free-list",
         "free-queue-buffer", "SyncAll-True", "SyncAll-1.0"])
def test_refusals_leave_queues_and_allocations_alone(call):
    """A DeQue with a bad dtype popped the tensor before refusing it (the queue lost it); core.free(False) or
    free(0.0) freed the allocation at address 0 (equal dict keys) and free([0]) raised Python's TypeError; freeing a
    queue's buffer left it in the queue (its tensors aliased the next allocation, which the pipe's Destroy then
    freed); SyncAll took True or 1.0 as used_cores."""
    core = aj.Core("atlas-a2")
    core.local_tensor("half", 16)   # the allocation at address 0
    pipe, que = _queue_with_one_tensor(core)
    before = (_state(core), sorted(core._allocated.items()), len(que._queue))
    with core:
        with pytest.raises(aj.AscendJitError):
            call(core, que)
    assert (_state(core), sorted(core._allocated.items()), len(que._queue)) == before
    que.FreeTensor(que.DeQue("half"))


def test_a_shared_pool_of_another_core_or_pipe_is_refused():
    """InitBufPool(pool, len, share) laid the pool over another core's range: on an A2 pipe a 950 pool's range lies
    past the A2's UB, and a queue tensor carved from it was written past the UB (heap corruption, an abort). A pool
    of another TPipe of the same core kept carving that pipe's memory after its Destroy handed it to a new owner."""
    big = aj.Core("ascend950")
    big.local_tensor("uint8", 200000)
    share = aj.TBufPool()
    aj.TPipe(big).InitBufPool(share, 32768)
    core = aj.Core("atlas-a2")
    pipe, pool = aj.TPipe(core), aj.TBufPool()
    before = _state(core)
    with pytest.raises(aj.ParameterError, match="another core"):
        pipe.InitBufPool(pool, 64, share)
    assert pool.pipe is None and _state(core) == before
    local = aj.TBufPool()
    pipe.InitBufPool(local, 1024)
    with pytest.raises(aj.ParameterError, match="another TPipe"):
        aj.TPipe(core).InitBufPool(aj.TBufPool(), 64, local)
    assert pipe.InitBufPool(pool, 64, local)   # this pipe's own pool is shared as before


@pytest.mark.parametrize("call", [
    lambda c, t: t.GetPhyAddr(None), lambda c, t: t.GetPhyAddr("1"), lambda c, t: t.GetPhyAddr(1.5),
    lambda c, t: t.GetPhyAddr(2**32), lambda c, t: aj.GlobalTensor(np.zeros(4, np.float16)).GetPhyAddr(None),
    lambda c, t: t[0:4:1.0], lambda c, t: t[0:4:np.True_], lambda c, t: t[0:4:complex(1, 0)],
    lambda c, t: aj.LocalTensor(c, "half", 0, 16, aj.TPosition.VECIN, "lease"),
    lambda c, t: aj.LocalTensor(c, "half", 0, 16, aj.TPosition.VECIN, None, "extra")],
    ids=["phy-None", "phy-str", "phy-float", "phy-2**32", "gm-phy-None", "step-1.0", "step-np.True_", "step-complex",
         "lease-str", "extra-arg"])
def test_tensor_methods_refuse_what_is_no_integer(call):
    """GetPhyAddr(None) raised Python's TypeError and GetPhyAddr(1.5) gave the address 3.0; a slice step of 1.0,
    np.True_ or 1+0j was taken as 1; a hand-made tensor with a string as its lease raised AttributeError on its
    first use."""
    core = aj.Core("atlas-a2")
    t = core.local_tensor("half", 64)
    with pytest.raises(aj.ParameterError):
        call(core, t)
    assert t.GetPhyAddr(np.uint8(2)) == t.addr + 4


def test_dtype_refusals_name_the_device_outside_a_core():
    """An unknown dtype given to a queue, a TBuf, a hand-made tensor, ReinterpretCast, SetAtomicAdd, SetVectorMask
    or GetReduceRepeatMaxMinSpr named no device outside `with core:` although the call's core was known."""
    core = aj.Core("atlas-a3")
    pipe = aj.TPipe(core)
    que, buf = aj.TQue(aj.TPosition.VECIN, 1), aj.TBuf()
    pipe.InitBuffer(que, 1, 256)
    pipe.InitBuffer(buf, 256)
    t = core.local_tensor("half", 16)
    for call in (lambda: que.AllocTensor("float17"), lambda: buf.Get("float17"),
                 lambda: buf.GetWithOffset("float17", 16, 0), lambda: aj.LocalTensor(core, "float17", 0, 16),
                 lambda: t.ReinterpretCast("float17"), lambda: core.SetAtomicAdd("float17"),
                 lambda: core.SetVectorMask(5, dtype="float17"),
                 lambda: aj.GetReduceRepeatMaxMinSpr("float17", core=core),
                 lambda: aj.GetReduceMaxMinTmpSize("atlas-a3", "float17", count=128)):
        with pytest.raises(aj.UnsupportedDTypeError) as e:
            call()
        assert e.value.device == "atlas-a3", e.value


@pytest.mark.parametrize("call", [
    lambda: aj.gm_empty(1.5), lambda: aj.gm_empty(None), lambda: aj.gm_empty("abc"), lambda: aj.gm_empty((2, 2.0)),
    lambda: aj.gm_empty((2**32, 2**32)), lambda: aj.gm_empty((2**62,)), lambda: aj.gm_empty(4, object),
    lambda: aj.gm_empty(4, "bogus"), lambda: aj.gm_array([1, 2], "bogus"), lambda: aj.gm_array([object()]),
    lambda: aj.gm_array([[1], [1, 2]]), lambda: aj.fidelity(["Add"], "atlas-a2"),
    lambda: aj.GlobalTensor(np.zeros(3, np.uint8), dtype="half"),
    lambda: aj.GlobalTensor(dtype="half").SetGlobalBuffer(np.zeros(3, object))],
    ids=["float", "None", "str", "float-dim", "int64-wrap", "2**62", "object", "bogus", "array-bogus", "array-object",
         "ragged", "fidelity-list", "odd-bytes", "object-gm"])
def test_gm_helpers_refuse_hostile_shapes_and_dtypes(call):
    """gm_empty / gm_array raised numpy's TypeError / ValueError / OverflowError (and an int64 product of the shape
    wrapped to 0 elements); SetGlobalBuffer raised numpy's errors for an object array or a byte count the dtype does
    not divide; aj.fidelity with a list as the API name raised TypeError (unhashable)."""
    with pytest.raises(aj.ParameterError):
        call()


@pytest.mark.parametrize("args", [("int16", 100), ("int16", 0, 2**16 - 1), ("half",)])
def test_set_vector_mask_with_the_dtype_written_first_names_the_keyword(args):
    """`SetVectorMask("int16", n)`, the C++ template order SetVectorMask<int16_t>(len) written as a first argument,
    is refused naming the call with `dtype=` (it was a maskHigh = 'int16' range error), nothing set (SPEC-2 1.8)."""
    core = aj.Core("atlas-a2")
    before = (core.mask_high, core.mask_low)
    with pytest.raises(aj.ParameterError, match=f"dtype='{args[0]}'") as info:
        core.SetVectorMask(*args)
    assert "'len'" in str(info.value) if len(args) < 3 else "'maskHigh'" in str(info.value)
    assert (core.mask_high, core.mask_low) == before


def test_data_copy_pad_ext_params_with_the_type_written_first_names_the_defaults_call():
    """`aj.DataCopyPadExtParams("float")`, the C++ `DataCopyPadExtParams<float>` with its template argument written
    as the first field (port18b, porting ops-nn Sigmoid), is refused at the DataCopyPad naming
    `aj.DataCopyPadExtParams()` (it said only that isPad must be True or False), nothing copied (SPEC-2 1.8)."""
    x = np.arange(64, dtype=np.float32)

    def kernel(x):
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x)
        pipe, que = aj.TPipe(), aj.TQue(aj.QuePosition.VECIN, 1)
        pipe.InitBuffer(que, 1, 256)
        t = que.AllocTensor("float")
        aj.Duplicate(t, np.float32(7), 64)
        aj.PipeBarrier(aj.PIPE_ALL)
        with pytest.raises(aj.ParameterError, match=r"aj\.DataCopyPadExtParams\(\) for DataCopyPadExtParams<float>"):
            aj.DataCopyPad(t, g, aj.DataCopyExtParams(1, 100, 0, 0, 0), aj.DataCopyPadExtParams("float"))
        assert (t.numpy() == 7).all()
        que.FreeTensor(t)
    aj.launch(kernel, 1, "atlas-a2", x)
