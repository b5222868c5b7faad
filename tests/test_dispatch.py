"""Thin dispatch for ReduceSum and ReducePairElem (issue 21): the side result comes from the kernel and equals the
stored dst[0] for every value class, memoised validation keys on argument types, the mask-plan memo gives the same
plans as plan_mask, and the compiled entry is reused."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.api import _common
from ascend_jit.api._common import as_enum, plan_mask, repeat_params, split_forms
from ascend_jit.api.reduce_sum import _ENTRIES

INF, NAN = float("inf"), float("nan")


@pytest.mark.parametrize("device", [n for n in aj.SUPPORTED_NAMES if aj.DEVICES[n].reduce_repeat_sum_spr])
@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("values", [[1.5, 2.25, -0.0], [-0.0, -0.0], [INF, 1.0], [INF, -INF], [NAN, 1.0],
                                    [60000.0, 60000.0]])
def test_side_result_is_the_stored_value(device, dtype, values):
    core = aj.Core(device)
    if dtype not in core.spec.reduce_sum_dtypes:
        pytest.skip("dtype not offered")
    src, dst, tmp = (core.local_tensor(dtype, n) for n in (256, 16, 64))
    src[:] = np.resize(np.array(values, src.dtype.np_dtype), 256)
    aj.ReduceSum(dst, src, tmp, 256)
    core.PipeBarrier(aj.PIPE_ALL)                       # the scalar read waits for the vector pipe
    spr = core.GetReduceRepeatSumSpr()
    assert type(spr) is src.dtype.np_dtype.type       # GetReduceRepeatSumSpr returns a T
    assert np.array(spr).tobytes() == dst.numpy()[:1].tobytes()  # bit for bit what dst[0] holds


def test_memoised_validation_keys_on_types():
    core = aj.Core("atlas-a2")
    src, dst, tmp = (core.local_tensor("half", n) for n in (1024, 16, 64))
    src[:] = np.ones(1024, np.float16)
    aj.ReduceSum(dst, src, tmp, 128, 2, 8)
    with pytest.raises(aj.ParameterError, match="repeat_time"):
        aj.ReduceSum(dst, src, tmp, 128, 2.0, 8)   # equal to 2, but a float: refused as on a cold cache
    with pytest.raises(aj.ParameterError, match="count"):
        aj.ReduceSum(dst, src, tmp, 128.0)
    pdst = core.local_tensor("half", 128)
    aj.ReducePairElem(pdst, src, 128, 2, 1, 1, 8)
    with pytest.raises(aj.ParameterError, match="src_rep_stride"):
        aj.ReducePairElem(pdst, src, 128, 2, 1, 1, 8.0)


def test_numpy_integers_reach_the_kernel_as_python_ints():
    """The validators return the kernel's arguments normalised: np.uint8(8) * 32 does not wrap to 0."""
    core = aj.Core("atlas-a2")
    src, dst, tmp = (core.local_tensor("half", n) for n in (1024, 16, 64))
    src[:] = np.ones(1024, np.float16)
    src[:] = np.arange(1024) % 7
    aj.ReduceSum(dst, src, tmp, 128, 4, 8)
    expected = dst.numpy()[0]
    dst[:] = 0
    aj.ReduceSum(dst, src, tmp, 128, 4, np.uint8(8))
    assert dst.numpy()[0] == expected


@pytest.mark.parametrize("mask", [128, 64, 0, 200, [2**64 - 1, 3], (5,), [1, 2]])
@pytest.mark.parametrize("counter", [False, True])
def test_plan_memo_matches_plan_mask(mask, counter):
    core = aj.Core("ascend950")
    if counter:
        core.SetMaskCount()
    d = core.local_tensor("half", 16).dtype
    def outcome(plan):  # a counter-mode count past the UB is refused by both (decisions.md "Counter-mode counts")
        try:
            return plan("T", core, d, mask, True)
        except aj.ParameterError as e:
            return type(e)
    for _ in range(2):  # the second call comes from the memo
        assert outcome(plan_mask) == outcome(_common._plan_mask)


def test_plan_memo_keys_on_the_device_a_count_is_bounded_by():
    """A counter-mode count is bounded by the device's UB: one the 950 takes is refused on the A2 whatever the memo
    holds (the memo had keyed on dtype, mask and mode alone)."""
    count = 120000                                   # halves: <= 253952 / 2 on the 950, > 196608 / 2 on the A2
    for device, ok in (("ascend950", True), ("atlas-a2", False), ("ascend950", True)):
        core = aj.Core(device)
        core.SetMaskCount()
        d = core.local_tensor("half", 16).dtype
        if ok:
            assert plan_mask("T", core, d, count, True).counter == count
        else:
            with pytest.raises(aj.ParameterError, match="counter-mode count"):
                plan_mask("T", core, d, count, True)


def test_plan_memo_never_stores_a_refusal_and_keys_on_type():
    core = aj.Core("atlas-a2")
    d = core.local_tensor("half", 16).dtype
    for _ in range(2):
        with pytest.raises(aj.ParameterError):
            plan_mask("T", core, d, -1, True)
    with pytest.raises(aj.ParameterError):
        plan_mask("T", core, d, True, True)   # bool is not an int mask, whatever the cache holds
    plan_mask("T", core, d, 1, True)
    with pytest.raises(aj.ParameterError):
        plan_mask("T", core, d, 1.0, True)     # equal to the cached 1, still refused


def test_one_compiled_entry_per_algorithm_and_value_type():
    """Keys (algorithm, value type is float, whole repeats back to back: count forms always are)."""
    core = aj.Core("atlas-a2")
    src, dst, tmp = (core.local_tensor("half", n) for n in (1024, 16, 64))
    src[:] = np.ones(1024, np.float16)
    for n in (1, 100, 1000):
        aj.ReduceSum(dst, src, tmp, n)
    entries = dict(_ENTRIES._entries)
    aj.ReduceSum(dst, src, tmp, 512)
    assert _ENTRIES._entries == entries and (0, True, True) in entries


def _core_state(core):
    return (core.ub.tobytes(), core.mask_high, core.mask_low, core.mask_defined, core.ctrl, repr(core.acc_val),
            core.acc_val.dtype)


def _reduce_sum_calls(core):
    """Each ReduceSum form with int arguments on `core`: the count form (a repeat and a tail), the high-dim form with a
    continuous mask and with a bit mask (the 950 writes that to the mask register), and zero repeats."""
    lanes = 128
    src, dst, tmp = (core.local_tensor("half", n) for n in (1024, 16, 64))
    src[:] = (np.arange(1024) % 13 - 6).astype(np.float16) * np.float16(0.37)
    return [lambda: aj.ReduceSum(dst, src, tmp, 200), lambda: aj.ReduceSum(dst, src, tmp, lanes, 3, 8),
            lambda: aj.ReduceSum(dst, src, tmp, [0x5555, 7], 2, 16), lambda: aj.ReduceSum(dst, src, tmp, 100, 0, 8)]


@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_hot_path_calls_leave_the_state_of_validated_calls(device, monkeypatch):
    """A call shape's second call skips validation (the memo) and leaves exactly what its first call left: UB,
    mask register, CTRL, ACC_VAL."""
    from ascend_jit.api import reduce_sum
    # no sanitizer even under --ascend-sanitize: a sanitizing core never takes the hot path (ReduceSum), whose
    # memoised calls are what this test checks
    cold, hot = aj.Core(device, sanitize=False), aj.Core(device, sanitize=False)
    cold.SetVectorMask(7)
    hot.SetVectorMask(7)
    cold_calls, hot_calls = _reduce_sum_calls(cold), _reduce_sum_calls(hot)
    states = []
    for call in cold_calls:
        call()
        states.append(_core_state(cold))

    def refuse(*args, **kw):
        raise AssertionError("validated again")
    monkeypatch.setattr(reduce_sum, "reduce_sum_count", refuse)
    monkeypatch.setattr(reduce_sum, "reduce_sum_high_dim", refuse)
    for call, state in zip(hot_calls, states):
        call()
        assert _core_state(hot) == state


@pytest.mark.ascend_sanitize(checks="race,blocks,sync",
                             reason="reads a fresh tensor and past it through the bounds=\"ub\" escape hatch (only "
                                    "that the memo re-checks bounds matters), which the memory and init checks report")
def test_hot_path_rechecks_liveness_types_bounds_and_sanitizer(monkeypatch):
    from ascend_jit.api import reduce_sum
    core = aj.Core("atlas-a2")
    src, dst, tmp = (core.local_tensor("half", n) for n in (256, 16, 64))
    src[:] = np.ones(256, np.float16)
    aj.ReduceSum(dst, src, tmp, 1)
    with pytest.raises(aj.ParameterError, match="count"):
        aj.ReduceSum(dst, src, tmp, True)          # equal to the memoised 1, but a bool
    aj.ReduceSum(dst, src, tmp, [1, 0], 1, 8)
    with pytest.raises(aj.ParameterError, match="mask"):
        aj.ReduceSum(dst, src, tmp, [1.0, 0], 1, 8)
    pipe = aj.TPipe(core)
    q = aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(q, 1, 512)
    t = q.AllocTensor("half")
    t[:] = np.ones(256, np.float16)
    aj.ReduceSum(dst, t, tmp, 256)
    q.FreeTensor(t)
    with pytest.raises(aj.StateError, match="freed"):
        aj.ReduceSum(dst, t, tmp, 256)             # the memo never skips the liveness check
    short = core.local_tensor("half", 64)          # the high-dim form reads 128 elements: past it, inside the UB
    core.bounds = "ub"
    aj.ReduceSum(dst, short, tmp, 128, 1, 8)
    core.bounds = "tensor"
    with pytest.raises(aj.OutOfBoundsError):
        aj.ReduceSum(dst, short, tmp, 128, 1, 8)
    seen = []
    monkeypatch.setattr(reduce_sum, "_sanitize", lambda *args, **kw: seen.append(args))
    core.sanitize = True
    aj.ReduceSum(dst, src, tmp, 1)
    aj.ReduceSum(dst, src, tmp, [1, 0], 1, 8)
    assert len(seen) == 2                          # memoised shapes still go through the sanitizer


@pytest.mark.parametrize("dtype", ["half", "float", "int8"])
def test_the_continuous_mask_memo_gives_the_plan_of_its_mask(dtype):
    """plan_mask's memoised continuous masks (normal mode, is_set_mask True, an exact int): lanes
    [0, min(mask, L)) active (D15), the register keeps the unclamped length (SPEC 1.5); anything else is validated
    as before (D14: negative and over-wide masks, bools and floats refused)."""
    core = aj.Core("atlas-a2")
    d = core.local_tensor(dtype, 256).dtype
    lanes = d.lanes_per_repeat
    for mask in (0, 1, 63, 64, 65, 127, 128, 129, 255, 256, 2**63, 2**64 - 1):
        n = min(mask, lanes)
        want_lo, want_hi = (1 << min(n, 64)) - 1, (1 << min(max(n - 64, 0), 64)) - 1  # two 64-bit words
        for _ in range(2):   # the second plan comes from the memo
            plan = plan_mask("T", core, d, mask, True)
            assert (plan.lo, plan.hi, plan.counter, plan.from_register, plan.bit_mode) == \
                (want_lo, want_hi, -1, False, False), mask
        assert plan_mask("T", core, d, np.uint64(mask), True) == plan   # a numpy integer: the same plan
    for bad in (-1, 2**64, True, 1.0, np.int64(-1)):
        with pytest.raises(aj.ParameterError, match="mask"):
            plan_mask("T", core, d, bad, True)
    core.SetMaskCount()   # counter mode: the mask is a count, never the memo's plan
    assert plan_mask("T", core, d, 100, True).counter == 100


def test_the_common_helpers_fast_paths_refuse_what_they_refused():
    """_common's fast paths (positional values only, a member itself, repeat params of plain ints) take only calls
    the general code accepts: a None among the high-dim values, a member outside `members`, a field out of range
    or of another type are refused as before."""
    assert split_forms("X", (128,), None, dict(mask=None, repeat_time=None), 3, "atlas-a2", "f") == ("count", (128,))
    assert split_forms("X", (128, 2), None, dict(mask=None, repeat_time=None), 3, "atlas-a2", "f") == \
        ("high", (128, 2))
    with pytest.raises(aj.ParameterError, match="lacks repeat_time"):
        split_forms("X", (128, None), None, dict(mask=None, repeat_time=None), 3, "atlas-a2", "f")
    assert as_enum("X", None, "m", aj.CMPMODE.EQ, aj.CMPMODE) is aj.CMPMODE.EQ
    with pytest.raises(aj.ParameterError, match="CMPMODE.LT"):
        as_enum("X", None, "m", aj.CMPMODE.EQ, aj.CMPMODE, members=(aj.CMPMODE.LT,))
    with pytest.raises(aj.ParameterError):
        as_enum("X", None, "m", aj.SELMODE.VSEL_CMPMASK_SPR, aj.CMPMODE)   # another enum's member
    params = aj.BinaryRepeatParams()
    made = repeat_params("X", None, params, aj.BinaryRepeatParams)   # one object per value, never the caller's
    assert made == params and made is not params and repeat_params("X", None, (1, 1, 1, 8, 8, 8),
                                                                   aj.BinaryRepeatParams) is made
    for field, bad in (("src0RepStride", 256), ("dstBlkStride", -1), ("src1BlkStride", True)):
        kept = getattr(params, field)
        setattr(params, field, bad)
        with pytest.raises(aj.ParameterError, match=field):
            repeat_params("X", None, params, aj.BinaryRepeatParams)
        setattr(params, field, kept)
    params.dstRepStride = np.int64(8)
    made = repeat_params("X", None, params, aj.BinaryRepeatParams)
    assert made is not params and made == aj.BinaryRepeatParams() and type(made.dstRepStride) is int
