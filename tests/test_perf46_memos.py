"""Session 46's per-call memos (BENCHMARKS.md "Session 46"): each remembered path must compute what the full path
computes, bit for bit, and every refusal must still come before any byte is written.

- The group reductions called with is_set_mask=False and aj.MASK_PLACEHOLDER (api/reductions.py
  _register_group_key): the register's words, the counter mode and whether the register is defined are part of
  the key, so a call after SetVectorMask / SetMaskCount / SetMaskNorm or an undefining call is validated again.
"""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.api import reductions

PLACE = aj.MASK_PLACEHOLDER


def _register_calls(core, src, dst):
    """(name, call) pairs of group reductions reading the mask register."""
    return [
        ("BlockReduceMax", lambda: aj.BlockReduceMax(dst, src, 2, PLACE, 1, 1, 8, is_set_mask=False)),
        ("BlockReduceSum", lambda: aj.BlockReduceSum(dst, src, 2, PLACE, 1, 1, 8, is_set_mask=False)),
        ("WholeReduceMax", lambda: aj.WholeReduceMax(dst, src, PLACE, 2, 1, 1, 8, is_set_mask=False)),
        ("WholeReduceSum", lambda: aj.WholeReduceSum(dst, src, PLACE, 2, 1, 1, 8, is_set_mask=False)),
    ]


def _run_sequence(device, dtype, settings, clear):
    """Every register call after each register setting; with `clear`, the memo is emptied before each call (the
    full path every time). Returns the UB after each call and the mask words."""
    core = aj.Core(device)
    n = 256 if dtype == "half" else 128
    src, dst = core.local_tensor(dtype, n), core.local_tensor(dtype, 64)
    rng = np.random.default_rng(46)
    src[:] = (rng.standard_normal(n) * 8).astype(dtype)
    seen = []
    with core:
        for counter, words in settings:
            for _, call in _register_calls(core, src, dst):
                if counter:
                    aj.SetMaskCount()
                    aj.SetVectorMask(0, words[1], dtype=dtype)
                else:
                    aj.SetMaskNorm()
                    aj.SetVectorMask(*words, dtype=dtype)
                if clear:
                    reductions._GROUP_CALLS.clear()
                call()
                seen.append((core.ub.copy(), core.mask_high, core.mask_low, core.counter_mode))
    return seen


@pytest.mark.parametrize("device,dtype", [("atlas-a2", "float"), ("atlas-a2", "half"), ("ascend950", "float"),
                                          ("atlas-training", "half")])
def test_register_mask_group_calls_remembered_bit_for_bit(device, dtype):
    """Counter-mode counts and normal-mode words that change between calls (and repeat, so the memo hits):
    the remembered calls give the full path's UB and mask register after every call."""
    settings = [(True, (0, 100)), (True, (0, 37)), (True, (0, 100)), (False, (0, 2**40 - 1)),
                (False, (2**63, 0xF0F0)), (False, (0, 2**40 - 1)), (True, (0, 37))]
    if device == "atlas-training":
        settings = [s for s in settings if not s[0]]   # keep to the normal mode on the 910 (no counter change)
    fast = _run_sequence(device, dtype, settings, clear=False)
    full = _run_sequence(device, dtype, settings, clear=True)
    assert len(fast) == len(full)
    for i, (a, b) in enumerate(zip(fast, full)):
        assert np.array_equal(a[0], b[0]), f"call {i}: UB differs"
        assert a[1:] == b[1:], f"call {i}: register {a[1:]} != {b[1:]}"


def test_register_mask_memo_still_refuses_an_undefined_register():
    """A remembered register call, after a call that leaves the register undefined (a non-950 ReduceSum, D22), is
    refused with nothing written, as the full path refuses it."""
    core = aj.Core("atlas-a2")
    src, dst = core.local_tensor("float", 128), core.local_tensor("float", 64)
    work = core.local_tensor("float", 128)
    src[:] = np.arange(128, dtype=np.float32)
    with core:
        aj.SetMaskCount()
        aj.SetVectorMask(0, 100, dtype="float")
        for _ in range(3):
            aj.WholeReduceSum(dst, src, PLACE, 2, 1, 1, 8, is_set_mask=False)
        aj.SetMaskNorm()
        aj.ReduceSum(dst, src, work, 64, 2, 8)   # D22: the register is undefined after a high-dim one on the A2
        assert not core.mask_defined
        aj.SetMaskCount()
        before = core.ub.copy()
        with pytest.raises(aj.StateError, match="mask register"):
            aj.WholeReduceSum(dst, src, PLACE, 2, 1, 1, 8, is_set_mask=False)
        assert np.array_equal(core.ub, before)


def test_register_mask_memo_keeps_counter_mode_bounds():
    """A counter-mode count too large for the source is refused after the same shape was remembered with a
    smaller count (the count is in the key: each new count is proven again)."""
    core = aj.Core("atlas-a2")
    src, dst = core.local_tensor("float", 128), core.local_tensor("float", 64)
    src[:] = np.arange(128, dtype=np.float32)
    with core:
        aj.SetMaskCount()
        aj.SetVectorMask(0, 128, dtype="float")
        for _ in range(2):
            aj.BlockReduceSum(dst, src, 2, PLACE, 1, 1, 8, is_set_mask=False)
        aj.SetVectorMask(0, 129, dtype="float")
        before = core.ub.copy()
        with pytest.raises(aj.OutOfBoundsError):
            aj.BlockReduceSum(dst, src, 2, PLACE, 1, 1, 8, is_set_mask=False)
        assert np.array_equal(core.ub, before)


# --- SetVectorMask's fast path and the derived modes kept per (device, CTRL) (core.py) ------------------------------
def _register(core):
    return core.mask_high, core.mask_low, core.mask_defined


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950", "atlas-training"])
def test_set_vector_mask_fast_path_matches_the_checked_path(device):
    """SetVectorMask(len) and (high, low) with plain ints take the fast path; the keyword form (len=, mask_high=)
    takes the checked one: the register ends the same for every value, dtype and mode."""
    values = [0, 1, 63, 64, 65, 127, 128, 129, 255, 256, 2**32, 2**64 - 1]
    for counter in (False, True):
        fast, checked = aj.Core(device), aj.Core(device)
        for core in (fast, checked):
            core.SetMaskCount() if counter else core.SetMaskNorm()
        for dtype in ("half", "float", "int16", aj.dtypes.resolve("float")):
            for v in values:
                fast.SetVectorMask(v, dtype=dtype)
                checked.SetVectorMask(len=v, dtype=dtype)
                assert _register(fast) == _register(checked), (counter, dtype, v)
                fast.SetVectorMask(v, values[-1 - values.index(v)], dtype=dtype)
                checked.SetVectorMask(mask_high=v, mask_low=values[-1 - values.index(v)], dtype=dtype)
                assert _register(fast) == _register(checked), (counter, dtype, v)


@pytest.mark.parametrize("call,error", [
    (lambda c: c.SetVectorMask(2**64), aj.ParameterError),
    (lambda c: c.SetVectorMask(-1), aj.ParameterError),
    (lambda c: c.SetVectorMask(True), aj.ParameterError),
    (lambda c: c.SetVectorMask(0, 2**64), aj.ParameterError),
    (lambda c: c.SetVectorMask(-1, 0), aj.ParameterError),
    (lambda c: c.SetVectorMask(64, dtype="float128"), aj.UnsupportedDTypeError),
    (lambda c: c.SetVectorMask(64, dtype="Float"), None),          # resolve lower-cases names: accepted
    (lambda c: c.SetVectorMask(64, mode=aj.MaskMode.COUNTER), None),
    (lambda c: c.SetVectorMask(64, mode=5), aj.ParameterError),
    (lambda c: c.SetVectorMask(64, 1, 2), aj.ParameterError),
])
def test_set_vector_mask_refusals_unchanged(call, error):
    core = aj.Core("atlas-a2")
    core.SetVectorMask(0, 0x1234)
    if error is None:
        call(core)
        return
    with pytest.raises(error):
        call(core)
    assert _register(core) == (0, 0x1234, True)   # a refused call leaves the register alone


def test_set_vector_mask_refused_on_the_vector_core():
    core = aj.Core("atlas-inference-vectorcore")
    with pytest.raises(aj.UnsupportedDeviceError):
        core.SetVectorMask(64)


def test_derived_modes_follow_device_and_ctrl():
    """Cores of several devices switching counter mode and the overflow bits, interleaved: after every change the
    modes the kernels read are those computed afresh from the device and CTRL (the cache is keyed on both)."""
    cores = [aj.Core(d) for d in ("atlas-a2", "ascend950", "atlas-training", "atlas-inference-aicore",
                                  "atlas-200i-500-a2")]
    names = ("half_saturating", "int_saturating", "counter_mode", "overflow_flags", "cast_truncating",
             "cast_half_saturating")
    rng = np.random.default_rng(46)
    for _ in range(200):
        core = cores[rng.integers(len(cores))]
        step = rng.integers(4)
        try:
            if step == 0:
                core.SetMaskCount()
            elif step == 1:
                core.SetMaskNorm()
            else:
                core.SetCtrlSpr(*[(48, 48), (53, 53), (59, 59), (60, 60)][rng.integers(4)], int(rng.integers(2)))
        except aj.AscendJitError:
            pass   # a bit or call the device does not offer
        assert tuple(getattr(core, n) for n in names) == core._compute_modes()


# --- DataCopy's memo key of a DataCopyParams of plain ints (pipe.py _count_key) -----------------------------------
def test_data_copy_params_key_follows_mutation_and_field_types():
    """A DataCopyParams changed between calls is proven again (its fields are the key, not the object), fields of
    other types equal in value key apart (True or np.int64 are refused or validated on their own), and the copies
    equal numpy's."""
    core = aj.Core("atlas-a2")
    src, dst = core.local_tensor("float", 1024), core.local_tensor("float", 1024)
    src[:] = np.arange(1024, dtype=np.float32)
    p = aj.DataCopyParams(4, 2, 1, 3)
    for count, length, sgap, dgap in [(4, 2, 1, 3), (4, 2, 1, 3), (2, 4, 0, 0), (4, 2, 1, 3), (8, 1, 7, 7)]:
        p.blockCount, p.blockLen, p.srcStride, p.dstStride = count, length, sgap, dgap
        dst[:] = np.zeros(1024, np.float32)
        aj.DataCopy(dst, src, p)
        want = np.zeros(1024, np.float32)
        for i in range(count):
            s, d = i * (length + sgap) * 8, i * (length + dgap) * 8
            want[d:d + length * 8] = np.arange(s, s + length * 8, dtype=np.float32)
        assert np.array_equal(dst.numpy(), want), (count, length, sgap, dgap)
    # too long for dst once the fields grow: refused although the object was remembered, nothing written
    p.blockCount, p.blockLen, p.srcStride, p.dstStride = 4, 32, 0, 0
    aj.DataCopy(dst, src, p)
    p.blockLen = 33
    before = core.ub.copy()
    with pytest.raises(aj.OutOfBoundsError):
        aj.DataCopy(dst, src, p)
    assert np.array_equal(core.ub, before)
    p.blockLen = 32
    p.blockCount = True   # a bool is no block count (refused) although True == 1
    with pytest.raises(aj.ParameterError):
        aj.DataCopy(dst, src, p)
    assert np.array_equal(core.ub, before)
    p.blockCount = np.int64(4)   # numpy ints compute what the plain int computes (issue 12)
    aj.DataCopy(dst, src, p)
    assert np.array_equal(dst.numpy()[:1024], src.numpy()[:1024])


# --- the module-level SetFlag / WaitFlag / PipeBarrier and FetchEventID fast paths (sync.py) -----------------------
def test_flag_fast_path_keeps_state_and_refusals():
    """aj.SetFlag / aj.WaitFlag in the kernels' form update the same flags as Core.SetFlag / WaitFlag; a second
    SetFlag, a WaitFlag without SetFlag, an id out of range and the other forms are refused as before."""
    core = aj.Core("atlas-a2")
    ev = aj.HardEvent.V_S
    with core:
        aj.SetFlag(1, event=ev)
        assert core.pending_flags() == [(aj.PIPE_V, aj.PIPE_S, 1)]
        with pytest.raises(aj.StateError, match="already set"):
            aj.SetFlag(1, event=ev)
        aj.WaitFlag(1, event=ev)
        assert core.pending_flags() == []
        with pytest.raises(aj.StateError, match="WaitFlag without a pending SetFlag"):
            aj.WaitFlag(1, event=ev)
        with pytest.raises(aj.ParameterError, match="event_id"):
            aj.SetFlag(core.spec.event_ids, event=ev)
        with pytest.raises(aj.ParameterError, match="keyword-only"):
            aj.SetFlag(ev, 0)
        with pytest.raises(aj.ParameterError):
            aj.SetFlag(0, event=5.0)
        aj.SetFlag(event=ev, event_id=np.int64(2))   # the keyword id and numpy ints: the checked path
        aj.WaitFlag(np.int64(2), event=int(ev))
        assert core.pending_flags() == []
    with aj.Core("atlas-200i-500-a2"):
        with pytest.raises(aj.UnsupportedDeviceError, match="ISASI"):
            aj.SetFlag(0, event=ev)


def test_pipe_barrier_fast_path_keeps_refusals_and_sanitizer():
    with aj.Core("atlas-a2"):
        aj.PipeBarrier(aj.PIPE_V)
        aj.PipeBarrier(aj.PIPE_ALL)
        with pytest.raises(aj.ParameterError, match="PIPE_S"):
            aj.PipeBarrier(aj.PIPE_S)
        with pytest.raises(aj.ParameterError):
            aj.PipeBarrier(99)
    with aj.Core("atlas-inference-vectorcore"):
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.PipeBarrier(aj.PIPE_V)
    seen = []
    core = aj.Core("atlas-a2")
    core.sync_hooks.append(lambda c, kind, detail: seen.append((kind, detail["pipe"])))
    with core:
        aj.PipeBarrier(aj.PIPE_V)
    assert seen == [("PipeBarrier", aj.PIPE_V)]   # a hook still sees the barrier


def test_fetch_event_id_fast_path_matches_allocation_state():
    with aj.Core("atlas-a2"):
        pipe = aj.TPipe()
        ev = aj.HardEvent.MTE2_V
        assert pipe.FetchEventID(ev) == 0
        first = pipe.AllocEventID(ev)
        assert first == 0 and pipe.FetchEventID(ev) == 1
        pipe.ReleaseEventID(first, ev)
        assert pipe.FetchEventID(ev) == 0
        with pytest.raises(aj.ParameterError):
            pipe.FetchEventID("MTE2_V")
    with aj.Core("atlas-200i-500-a2"):
        pipe = aj.TPipe()
        with pytest.raises(aj.UnsupportedDeviceError):
            pipe.FetchEventID(aj.HardEvent.MTE2_V)


# --- the scalar entries' inline bits of an exact numpy half / float scalar (api/elementwise.py) ---------------------
def _edge_scalars(dtype):
    bits = [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01,
            0xFE01, 0x3555] if dtype == "half" else \
        [0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x00800000, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0x7F800000,
         0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC00123, 0x3EAAAAAB]
    t = np.uint16 if dtype == "half" else np.uint32
    return [np.array([b], t).view(np.float16 if dtype == "half" else np.float32)[0] for b in bits]


@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("op", ["Adds", "Muls", "Maxs", "Mins", "LeakyRelu"])
def test_exact_numpy_scalar_bits_inline_match_the_full_path(dtype, op):
    """Every edge scalar (signed zeros, subnormals, the largest finite, infinities, NaNs with payloads) through a
    remembered call on fresh sub-tensors (the memo of call shapes, the kernels' case) and through the keyword form
    (the full path): the same UB bytes."""
    core = aj.Core("atlas-a2")
    n = 256 if dtype == "half" else 128
    src, out_fast, out_full = (core.local_tensor(dtype, n) for _ in range(3))
    rng = np.random.default_rng(4646)
    src[:] = (rng.standard_normal(n) * 100).astype(dtype)
    fn = getattr(aj, op)
    for s in _edge_scalars(dtype):
        fn(out_fast[0], src[0], s, n)       # a new shape the first time, remembered afterwards
        fn(out_fast[0], src[0], s, n)
        fn(out_full, src, s, count=n)       # a keyword: the full path on every call
        assert np.array_equal(out_fast.numpy().view(np.uint8), out_full.numpy().view(np.uint8)), (op, s)


# --- DataCopyPad's older structs converted once per shape (api/data_copy_pad.py _from_older_structs) -------------
def _fields(struct):
    if struct is None:
        return None
    return tuple((type(getattr(struct, f)), np.asarray(getattr(struct, f)).tobytes())
                 for f in type(struct).__dataclass_fields__)


def test_older_struct_conversion_remembered_per_fields_and_dtype():
    """The remembered conversion gives the fresh conversion's Ext structs for every field set, pad struct and
    destination dtype (the pad value's bits are the dtype's), and a field out of its C++ range is refused after a
    neighbouring shape was remembered."""
    from ascend_jit.api import data_copy_pad as dcp
    core = aj.Core("atlas-a2")
    gm = aj.GlobalTensor(np.zeros(4096, np.float32))
    cases = [(aj.DataCopyParams(2, 64, 0, 0), None),
             (aj.DataCopyParams(2, 64, 0, 0), aj.DataCopyPadParams(True, 1, 2, 7)),
             (aj.DataCopyParams(1, 30, 4, 1), aj.DataCopyPadParams(1, 0, 3, 0x3C)),
             (aj.DataCopyParams(1, 30, 4, 1), aj.DataCopyPadParams(0, 0, 3, 0x3C)),
             (aj.DataCopyParams(3, 8, 0, 2), aj.DataCopyPadParams(False, 0, 0, 0xFF))]
    for dtype in ("half", "float", "int16", "uint8"):
        ub = core.local_tensor(dtype, 64)
        for _ in range(2):   # the second round from the memo
            for copy, pad in cases:
                got = dcp._from_older_structs(ub, gm, copy, pad)
                want = dcp._convert_older_structs(ub, gm, copy, pad)
                assert [_fields(s) for s in got] == [_fields(s) for s in want], (dtype, copy, pad)
    ub = core.local_tensor("half", 64)
    dcp._from_older_structs(ub, gm, aj.DataCopyParams(1, 65535, 0, 0), None)
    with pytest.raises(aj.ParameterError, match="blockLen"):
        dcp._from_older_structs(ub, gm, aj.DataCopyParams(1, 65536, 0, 0), None)
    dcp._from_older_structs(ub, gm, aj.DataCopyParams(1, 32, 0, 0), aj.DataCopyPadParams(True, 255, 0, 0))
    with pytest.raises(aj.ParameterError, match="leftPadding"):
        dcp._from_older_structs(ub, gm, aj.DataCopyParams(1, 32, 0, 0), aj.DataCopyPadParams(True, 256, 0, 0))
    wide = aj.DataCopyPadParams(True, 0, 0, 0x3C00)
    dcp._from_older_structs(ub, gm, aj.DataCopyParams(1, 32, 0, 0), wide)      # a half's 1.0
    with pytest.raises(aj.ParameterError, match="paddingValue"):   # the same fields into a uint8 tile: too wide
        dcp._from_older_structs(core.local_tensor("uint8", 64), gm, aj.DataCopyParams(1, 32, 0, 0), wide)
    with pytest.raises(aj.ParameterError, match="paddingValue"):   # 0x10000 does not fit a half's 16 bits
        dcp._from_older_structs(ub, gm, aj.DataCopyParams(1, 32, 0, 0), aj.DataCopyPadParams(True, 0, 0, 0x10000))


def test_older_pad_struct_keys_tell_field_types_apart():
    """DataCopyPadParams of a bool and plain ints keys by its values; an int isPad (C++ converts it) or a bool
    padding keys typed: structs that compare equal field by field but validate differently never share a key."""
    plain = aj.DataCopyPadParams(False, 0, 0, 0)
    assert plain == aj.DataCopyPadParams(False, 0, 0, 0) and hash(plain) == hash(aj.DataCopyPadParams(False, 0, 0, 0))
    assert plain != aj.DataCopyPadParams(0, 0, 0, 0)
    assert plain != aj.DataCopyPadParams(False, 0, 0, False)
    assert aj.DataCopyPadParams(True, 1, 2, 3) != aj.DataCopyPadParams(True, 1, 2, np.int64(3))
    p = aj.DataCopyPadParams(False, 0, 0, 0)
    p.rightPadding = 2            # assigning a field makes the key again
    assert p == aj.DataCopyPadParams(False, 0, 2, 0) and p != plain
