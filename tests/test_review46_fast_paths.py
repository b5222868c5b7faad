"""Review 46: session 46's dispatch fast paths against the full paths they skip (commits 035432d, f694fe8, 3c28e32,
c24c29e, 21806a7, 09fba1d, 2ed7d4b; docs/decisions.md "Session 46's fast paths"), and aj.fidelity's refusal of an
instruction another device offers (91208d2, SPEC-2 1.8 row 1).

Each fast path claims to run only where every check it skips would pass and to leave exactly the state the full
path leaves. Every test drives the same calls through the fast path and through the full path (a memo cleared
before each call, a spelling the fast path does not take, or the checked method itself) over generated states and
arguments, and compares the result: UB / GM bytes, the mask register, CTRL and its derived modes, flags, event ids,
sync-hook records, and a refusal's class and message.
"""
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_jit as aj
from ascend_jit import pipe as pipe_mod
from ascend_jit.api import data_copy_pad as dcp
from ascend_jit.api import reductions
from ascend_jit.core import ALL_ONES, CTRL_COUNTER_MODE
from ascend_jit.sync import EventIdPool, _check_hard_event

PLACE = aj.MASK_PLACEHOLDER
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore", "atlas-training")
ALL = DEVICES + ("atlas-inference-vectorcore",)
# AJ_REVIEW46_EXAMPLES=500 searches wider (random seeds); the default suite runs 40 fixed examples per test
_WIDE = int(os.environ.get("AJ_REVIEW46_EXAMPLES", "0"))
QUICK = settings(max_examples=_WIDE or 40, deadline=None, suppress_health_check=list(HealthCheck),
                 derandomize=not _WIDE, database=None)


def _outcome(fn):
    """('ok', value) or (error class name, message with object addresses blanked)."""
    try:
        return "ok", fn()
    except Exception as e:   # noqa: BLE001 - the class and message are what is compared
        return type(e).__name__, re.sub(r"0x[0-9a-f]+", "0x?", str(e))


def _mask_state(core):
    return core.mask_high, core.mask_low, core.mask_defined, core.ctrl, core.counter_mode


# ints a kernel may pass and the ones it may slip: bools, numpy ints, negatives, past 64 bits
_INTS = st.one_of(st.integers(0, 200), st.integers(0, ALL_ONES), st.integers(-3, -1), st.integers(ALL_ONES + 1, 2**70),
                  st.booleans(), st.integers(0, 200).map(np.int64), st.integers(0, 2**63).map(np.uint64))


# --- f694fe8: SetVectorMask's plain-int call -----------------------------------------------------------------------
@QUICK
@given(device=st.sampled_from(ALL), counter=st.booleans(), undefined=st.booleans(),
       args=st.lists(_INTS, min_size=1, max_size=3), dtype=st.sampled_from(["half", "float", "int32", "uint8"]))
def test_set_vector_mask_fast_call_equals_the_checked_call(device, counter, undefined, args, dtype):
    """aj.SetVectorMask(*args, dtype=name) (the fast path when the ints are in range) against the same call with the
    dtype spelled as an alias (`float16`, not a BY_NAME key: always the checked path): the same register, CTRL
    and refusal, on every device (the Vector Core refuses), in either mask mode, from a defined or undefined
    register."""
    alias = {"half": "float16", "float": "float32", "int32": "int32_t", "uint8": "uint8_t"}[dtype]
    seen = []
    for name in (dtype, alias):
        core = aj.Core(device)
        core._set_bit(CTRL_COUNTER_MODE, counter)   # directly: SetMaskCount itself is refused on the Vector Core
        core.mask_defined = not undefined
        with core:
            got = _outcome(lambda: aj.SetVectorMask(*args, dtype=name))
        seen.append((got, _mask_state(core)))
    assert seen[0] == seen[1]


@QUICK
@given(ctrls=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=6))
def test_derived_modes_memo_equals_a_fresh_derivation_for_any_ctrl(ctrls):
    """_derive_modes looks the six modes up by (device, CTRL): for any 64-bit CTRL on every device, through a
    memo another core (of the same or another device) filled, the modes equal _compute_modes' fresh ones."""
    cores = [aj.Core(d) for d in DEVICES]
    for ctrl in ctrls:
        for core in cores + cores[::-1]:   # each (device, CTRL) met twice: the second time from the memo
            core.ctrl = ctrl
            core._derive_modes()
            assert (core.half_saturating, core.int_saturating, core.counter_mode, core.overflow_flags,
                    core.cast_truncating, core.cast_half_saturating) == core._compute_modes(), (core.device, ctrl)


# --- 035432d: group reductions reading the mask register ------------------------------------------------------------
def _group_call(op, dst, src, repeat, src_rep):
    if op == "plain":   # the mask as an argument: its own memo, and on some devices it writes the register (D31)
        return lambda: aj.WholeReduceSum(dst, src, 37, repeat, 1, 1, src_rep)
    if op.startswith("Block"):
        return lambda: getattr(aj, op)(dst, src, repeat, PLACE, 1, 1, src_rep, is_set_mask=False)
    return lambda: getattr(aj, op)(dst, src, PLACE, repeat, 1, 1, src_rep, is_set_mask=False)


_GROUP_OP = st.tuples(
    st.sampled_from(["BlockReduceMax", "BlockReduceSum", "WholeReduceMax", "WholeReduceMin", "WholeReduceSum",
                     "undefine", "free", "plain"]),
    st.sampled_from([1, 2]), st.sampled_from([8, 0, 4]))                  # repeat, src_rep_stride
_REGISTER = st.tuples(
    st.booleans(),                                                       # counter mode
    st.one_of(st.integers(0, 300), st.sampled_from([0, 1, 64, 127, 128, 2**40 - 1, 2**63, ALL_ONES])),   # low word
    st.sampled_from([0, 1, 2**63, ALL_ONES]))                            # high word


def _group_run(device, dtype, steps, sanitize, clear, pass_len):
    """The steps on two cores of the device sharing the memo, `pass_len` steps each in turn: bounds "tensor" and
    "ub"."""
    n = 256 if dtype == "half" else 128
    cores = []
    for bounds in ("tensor", "ub"):
        core = aj.Core(device, bounds=bounds, sanitize=sanitize)   # sanitizer first: the host writes initialise src
        src, dst = core.local_tensor(dtype, n), core.local_tensor(dtype, 64)
        src[:] = (np.random.default_rng(46).standard_normal(n) * 8).astype(dtype)
        dst[:] = np.zeros(64, dtype)
        cores.append([core, src, dst, False])
    seen = []
    for i, (op, repeat, src_rep, counter, low, high) in enumerate(steps):
        state = cores[i // pass_len % 2]
        core, src, dst, undefined = state
        if op == "undefine":   # the next call finds the register undefined (D22: a non-950 ReduceSum, say)
            state[3] = True
            continue
        stale = None
        if op == "free":       # the next call writes a freed destination (its lease dead), then a new one
            core.free(dst.addr)
            stale, state[2] = dst, core.local_tensor(dtype, 64)
            op = "WholeReduceMax"
        with core:
            if counter != core.counter_mode:
                (aj.SetMaskCount if counter else aj.SetMaskNorm)()
            core.mask_high, core.mask_low, core.mask_defined = high, low, not undefined   # the register as given
            state[3] = False
            if clear:
                reductions._GROUP_CALLS.clear()
            got = _outcome(_group_call(op, stale if stale is not None else dst, src, repeat, src_rep))
        seen.append((op, got, core.ub.tobytes(), _mask_state(core), repr(core.max_min_spr)))
    return seen


@QUICK
@given(device=st.sampled_from(["atlas-a2", "ascend950", "atlas-training", "atlas-200i-500-a2",
                               "atlas-inference-aicore"]),
       dtype=st.sampled_from(["half", "float"]), sanitize=st.sampled_from([False, False, True]),
       ops=st.lists(_GROUP_OP, min_size=1, max_size=3), registers=st.lists(_REGISTER, min_size=2, max_size=3))
def test_register_group_calls_remembered_equal_the_full_path(device, dtype, sanitize, ops, registers):
    """Group reductions reading the register (is_set_mask=False, MASK_PLACEHOLDER) with the memo kept (every step
    repeated, so the second half hits) against the memo cleared before each call: the same UB, register, CTRL,
    SPR state and refusal, with counts past the UB, zero words, an undefined register, a freed and reallocated
    destination, the sanitizer on or off and two cores of either bounds rule sharing the memo."""
    one = [op + register for op in ops for register in registers]   # each shape with each register
    steps = one * 4   # on one core, the other, then both again (from the memo)
    fast = _group_run(device, dtype, steps, sanitize, False, len(one))
    full = _group_run(device, dtype, steps, sanitize, True, len(one))
    assert len(fast) == len(full)
    for i, (a, b) in enumerate(zip(fast, full)):
        assert a[:2] == b[:2], f"step {i}"
        assert a[2] == b[2], f"step {i} ({a[0]}): UB differs"
        assert a[3:] == b[3:], f"step {i} ({a[0]}): state differs"


def test_register_group_memo_shared_by_two_cores():
    """Two cores of one device share the memo: a shape one core validated runs on the other only with the other's
    own register, counter mode and saturation mode, as its full path would."""
    a, b = aj.Core("atlas-a2"), aj.Core("atlas-a2")
    outs = []
    for core, clear in ((a, False), (b, False), (a, True)):
        src, dst = core.local_tensor("half", 256), core.local_tensor("half", 64)
        src[:] = np.full(256, 60000, np.float16)
        with core:
            aj.SetSaturationFlag(False)          # CTRL[48]: INF/NaN mode (D6)
            aj.SetMaskCount()
            aj.SetVectorMask(0, 200, dtype="half")
            if clear:
                reductions._GROUP_CALLS.clear()
            aj.WholeReduceSum(dst, src, PLACE, 2, 1, 1, 8, is_set_mask=False)
            outs.append((dst.numpy().tobytes(), _mask_state(core)))
        core.free(src.addr)
        core.free(dst.addr)
    assert outs[0] == outs[1] == outs[2]


@pytest.mark.ascend_sanitize(checks="race,blocks,sync,dcache", reason="reads past its source tensor into never-written "
                             "UB on purpose, through the bounds=\"ub\" escape hatch")
def test_register_group_memo_keeps_the_bounds_rule_apart():
    """A register-reading call past its source tensor, remembered on a bounds="ub" core, is still refused on a
    bounds="tensor" core of the same device with the same addresses (decisions.md "Tensor bounds")."""
    outs = []
    for bounds in ("ub", "tensor", "ub", "tensor"):
        core = aj.Core("atlas-a2", bounds=bounds)
        dst, src = core.local_tensor("float", 64), core.local_tensor("float", 128)   # free UB past src
        src[:] = np.arange(128, dtype=np.float32)
        with core:
            aj.SetVectorMask(0, 2**40 - 1, dtype="float")
            outs.append(_outcome(lambda: aj.WholeReduceSum(dst, src, PLACE, 2, 1, 1, 16, is_set_mask=False))[0])
    assert outs == ["ok", "OutOfBoundsError", "ok", "OutOfBoundsError"]


# --- 3c28e32: DataCopy's DataCopyParams of four plain ints ---------------------------------------------------------
_FIELD = st.one_of(st.integers(0, 4), st.integers(-2, 70000), st.sampled_from([True, False, 2**64, 1.0]),
                   st.integers(0, 4).map(np.int32))


class _Params(aj.DataCopyParams):
    """A kernel's own subclass of the struct."""


def _data_copy_run(direction, structs, mutate, clear):
    core = aj.Core("atlas-a2")
    a, b = core.local_tensor("float", 512), core.local_tensor("float", 512)
    a[:] = np.arange(512, dtype=np.float32)
    gm = aj.GlobalTensor(np.arange(2048, dtype=np.float32) * -1)
    dst, src = {"ub": (b, a), "gm_ub": (b, gm), "ub_gm": (gm, a)}[direction]
    seen = []
    for i, fields in enumerate(structs + structs):   # every struct twice: the second round from the memo
        # the struct, its brace list and a subclass instance (typed key) in turn
        params = (aj.DataCopyParams, tuple, _Params)[i % 3](*fields) if i % 3 != 1 else tuple(fields)
        for step in range(2):
            if step == 1:
                if mutate is None:
                    break
                if type(params) is tuple:
                    params = params[:1] + (mutate,) + params[2:]
                else:
                    params.blockLen = mutate   # the same struct changed after a call
            if clear:
                pipe_mod._PLANS.clear()
            got = _outcome(lambda: aj.DataCopy(dst, src, params))
            seen.append((got, core.ub.tobytes(), gm.numpy().tobytes()))
    return seen


@QUICK
@given(direction=st.sampled_from(["ub", "gm_ub", "ub_gm"]),
       base=st.tuples(st.integers(1, 2), st.integers(1, 4), st.integers(0, 2), st.integers(0, 2)),
       changes=st.lists(st.tuples(st.integers(0, 3), _FIELD), max_size=4), mutate=st.one_of(st.none(), _FIELD))
def test_data_copy_params_key_equals_the_full_path(direction, base, changes, mutate):
    """DataCopy with DataCopyParams structs that differ field by field, each twice (the memo hits), one changed
    after a call, against the memo cleared before each call: the same bytes and refusals for plain ints, bools,
    floats, numpy ints, negative and huge fields."""
    structs = [base] + [base[:i] + (v,) + base[i + 1:] for i, v in changes]   # a valid copy and its neighbours
    pipe_mod._PLANS.clear()
    assert _data_copy_run(direction, structs, mutate, False) == _data_copy_run(direction, structs, mutate, True)


# --- c24c29e: aj.SetFlag / aj.WaitFlag / aj.PipeBarrier / FetchEventID ----------------------------------------------
_IDS = st.one_of(st.integers(0, 8), st.sampled_from([-1, 2**64, True, np.int64(1), np.uint8(2), aj.HardEvent.V_S]))
_EVENTS = st.sampled_from([aj.HardEvent.MTE2_V, aj.HardEvent.V_MTE3, aj.HardEvent.S_V, aj.HardEvent.FIX_FIX,
                           int(aj.HardEvent.MTE2_V), "MTE2_V", None])


def _flag_run(device, steps, sanitize, hooked, fast):
    core = aj.Core(device)
    core.sanitize = sanitize
    log = []
    if hooked:
        core.sync_hooks.append(lambda c, kind, detail: log.append((kind, sorted(detail.items()))))
    seen = []
    with core:
        for op, event_id, event in steps:
            # Core.SetFlag / WaitFlag: the checked method the module functions skip; one call line for both, which
            # a second SetFlag's refusal names when sanitized
            calls = {"set": aj.SetFlag, "wait": aj.WaitFlag} if fast else {"set": core.SetFlag, "wait": core.WaitFlag}
            fn = calls[op]
            got = _outcome(lambda: fn(event_id, event=event))
            seen.append((got, sorted(core.flags.items())))
    return seen, log


@QUICK
@given(device=st.sampled_from(ALL), sanitize=st.booleans(), hooked=st.booleans(),
       steps=st.lists(st.tuples(st.sampled_from(["set", "wait"]), _IDS, _EVENTS), min_size=1, max_size=8))
def test_flag_module_functions_equal_the_core_methods(device, sanitize, hooked, steps):
    """aj.SetFlag / aj.WaitFlag (the fast path) against Core.SetFlag / Core.WaitFlag over sequences of ids (bools,
    numpy ints, out of range, a HardEvent as the id) and events on every device (the 310B and the Vector Core
    refuse; the 910 has 4 ids), with a sync hook and the sanitizer: the same flags, hook records and refusals."""
    assert _flag_run(device, steps, sanitize, hooked, True) == _flag_run(device, steps, sanitize, hooked, False)


@QUICK
@given(device=st.sampled_from(ALL), hooked=st.booleans(),
       pipes=st.lists(st.sampled_from(list(aj.Pipe) + [2, 1, 99, "PIPE_V", None, True]), min_size=1, max_size=5))
def test_pipe_barrier_module_function_equals_the_core_method(device, hooked, pipes):
    """aj.PipeBarrier (its fast return) against Core.PipeBarrier for every Pipe, PIPE_S, integer values, junk and
    every device: the same refusals and sync-hook records."""
    runs = []
    for fast in (True, False):
        core = aj.Core(device)
        log = []
        if hooked:
            core.sync_hooks.append(lambda c, kind, detail: log.append((kind, sorted(detail.items()))))
        with core:
            got = [_outcome(lambda: (aj.PipeBarrier if fast else core.PipeBarrier)(p)) for p in pipes]
        runs.append((got, log))
    assert runs[0] == runs[1]


def _full_fetch(pool, event):
    """EventIdPool.FetchEventID as it was before c24c29e (the checked path)."""
    pool._require("FetchEventID")
    return pool._lowest_free("FetchEventID", _check_hard_event("FetchEventID", pool.core.spec, event))


@QUICK
@given(device=st.sampled_from(ALL),
       steps=st.lists(st.tuples(st.sampled_from(["fetch", "alloc", "release"]),
                                st.sampled_from(list(aj.HardEvent)[:3] + [0, 99, "V_S"]), st.integers(-1, 8)),
                      min_size=1, max_size=12))
def test_fetch_event_id_equals_the_checked_lookup(device, steps):
    """TPipe.FetchEventID against the checked lookup it skips, over allocations, releases and exhaustion of ids
    (4 on the 910), integer events and junk, on every device (the 310B refuses): the same ids, refusals and
    occupied ids."""
    runs = []
    for fast in (True, False):
        core = aj.Core(device)
        with core:
            pipe = aj.TPipe()
            seen = []
            for op, event, event_id in steps:
                if op == "fetch":
                    got = _outcome(lambda: pipe.FetchEventID(event) if fast else _full_fetch(pipe, event))
                elif op == "alloc":
                    got = _outcome(lambda: pipe.AllocEventID(event))
                else:
                    got = _outcome(lambda: pipe.ReleaseEventID(event_id, event))
                # an empty set left by the checked lookup's setdefault is no occupied id
                seen.append((got, sorted((int(k), sorted(v)) for k, v in pipe.occupied.items() if v)))
            runs.append(seen)
    assert runs[0] == runs[1]


def test_fetch_event_id_fast_path_is_an_event_id_pool_method():
    """The fast return lives on EventIdPool, so every pool (TPipe, GetTPipePtr()) takes it."""
    assert aj.TPipe.FetchEventID is EventIdPool.FetchEventID


# --- 21806a7: an exact numpy half / float scalar inline -------------------------------------------------------------
@QUICK
@given(device=st.sampled_from(DEVICES), dtype=st.sampled_from(["half", "float"]),
       op=st.sampled_from(["Adds", "Muls", "Maxs", "Mins", "LeakyRelu", "Axpy"]),
       bits=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=6), saturating=st.booleans())
def test_exact_scalar_inline_equals_the_keyword_form(device, dtype, op, bits, saturating):
    """Any bit pattern of the operand's type (NaN payloads, subnormals, -0.0, infinities) as a numpy scalar, on the
    remembered call (the inline bits) and the keyword form (the full path), on every device (the 950 flushes
    subnormals, D38), in either half overflow mode where it switches (CTRL[48], D6, D21): the same UB bytes or
    the same refusal."""
    core = aj.Core(device)
    n = 256 if dtype == "half" else 128
    src, out_fast, out_full = (core.local_tensor(dtype, n) for _ in range(3))
    src[:] = (np.random.default_rng(4646).standard_normal(n) * 100).astype(dtype)
    start = (np.random.default_rng(47).standard_normal(n) * 100).astype(dtype)
    utype, ftype = (np.uint16, np.float16) if dtype == "half" else (np.uint32, np.float32)
    fn = getattr(aj, op)
    with core:
        if device in ("atlas-a2", "atlas-a3"):
            aj.SetSaturationFlag(saturating)
        for b in bits:
            s = np.array([b & np.iinfo(utype).max], utype).view(ftype)[0]
            got = []
            for out, form in ((out_fast, {}), (out_fast, {}), (out_full, {"count": n})):
                out[:] = start               # Axpy reads dst: every call from the same start
                # the second call is the remembered one; a keyword takes the full path
                got.append((_outcome(lambda: fn(out, src, s, **form) if form else fn(out, src, s, n))[0],
                            out.numpy().tobytes()))
            assert got[0] == got[1] == got[2], (op, hex(b))


# --- 09fba1d / 2ed7d4b: the older DataCopyPad structs ---------------------------------------------------------------
_PAD_FIELD = st.one_of(st.integers(0, 3), st.sampled_from([True, False, 255, 256, -1, 0x3C00, 2**64, 1.5]),
                       st.integers(0, 3).map(np.int64))


_NP = {"half": np.float16, "float": np.float32, "uint8": np.uint8}


def _older_run(steps, direction, clear):
    core = aj.Core("atlas-a2")
    ubs = {d: core.local_tensor(d, 2048 // np.dtype(t).itemsize) for d, t in _NP.items()}
    gms = {d: aj.GlobalTensor(np.arange(4096, dtype=np.uint8).view(t).copy()) for d, t in _NP.items()}
    for d, t in _NP.items():
        ubs[d][:] = np.zeros(ubs[d].size, t)
    seen = []
    for dtype, copy_fields, pad_fields in [(d, c, p) for _, c, p in steps for d in _NP] * 2:   # the 2nd: memo
        if clear:
            dcp._OLDER.clear()
        ub, gm = ubs[dtype], gms[dtype]
        copy = aj.DataCopyParams(*copy_fields)
        pad = None if pad_fields is None else aj.DataCopyPadParams(*pad_fields)
        with core:
            if direction == "gm_ub":
                got = _outcome(lambda: aj.DataCopyPad(ub, gm, copy, pad))
            else:
                got = _outcome(lambda: aj.DataCopyPad(gm, ub, copy, pad))
        seen.append((got, core.ub.tobytes(), b"".join(g.numpy().tobytes() for g in gms.values())))
    return seen


_OLDER_STEP = st.tuples(st.none(),   # (each step runs into a tile of every dtype)
                        st.tuples(st.integers(0, 2), st.sampled_from([0, 1, 30, 64, 65536, True]),
                                  st.sampled_from([0, 2, 32]), st.sampled_from([0, 1, -1])),
                        st.one_of(st.none(), st.tuples(_PAD_FIELD, _PAD_FIELD, _PAD_FIELD, _PAD_FIELD),
                                  st.tuples(st.booleans(), st.integers(0, 3), st.integers(0, 3),
                                            st.sampled_from([0, 1, 0xFF, 0x3C00, 0x3F800000]))))


@QUICK
@given(direction=st.sampled_from(["gm_ub", "ub_gm"]), steps=st.lists(_OLDER_STEP, min_size=1, max_size=4))
def test_older_struct_memo_equals_the_conversion(direction, steps):
    """DataCopyPad with the older DataCopyParams / DataCopyPadParams into tiles of several dtypes, every call twice
    (the conversion remembered) against the conversion's memo cleared before each call: the same bytes and
    refusals for bool / int / numpy / float fields, out-of-range paddings and pad values too wide for the dtype,
    both directions (a pad struct UB -> GM is refused)."""
    dcp._OLDER.clear()
    assert _older_run(steps, direction, False) == _older_run(steps, direction, True)


def _twin(value):
    """A value that compares equal to `value` but is another type (C++ would convert it; the key must not)."""
    if type(value) is bool:
        return int(value)
    if type(value) is int:
        return np.int64(value) if value % 2 else (bool(value) if value in (0, 1) else float(value))
    return int(value) if value == int(value) else value


@QUICK
@given(a=st.tuples(st.one_of(st.booleans(), _PAD_FIELD), *[st.one_of(st.integers(0, 3), _PAD_FIELD)] * 3),
       b=st.one_of(st.tuples(_PAD_FIELD, _PAD_FIELD, _PAD_FIELD, _PAD_FIELD), st.integers(0, 3)))
def test_older_pad_struct_plain_key_partitions_as_the_typed_key(a, b):
    """DataCopyPadParams' plain key (a bool and three ints) tells two structs apart exactly where the typed key
    it replaced (dcp._struct_key) does, so equality, hashing and every memo keyed by it are unchanged."""
    if type(b) is int:   # a's twin in field b (True and 1, 1 and np.int64(1), 2 and 2.0)
        b = a[:b] + (_twin(a[b]),) + a[b + 1:]
    p, q = aj.DataCopyPadParams(*a), aj.DataCopyPadParams(*b)
    assert (p == q) == (dcp._struct_key(a) == dcp._struct_key(b)), (a, b)
    if p == q:
        assert hash(p) == hash(q)


# --- 91208d2: aj.fidelity of an instruction another device offers ---------------------------------------------------
def test_fidelity_refuses_as_the_call_is_refused():
    """For every registered instruction and device, aj.fidelity answers exactly where the device offers it
    (Instruction.offered and a dtype), UnsupportedDeviceError elsewhere (as the call itself, SPEC-2 1.8 row 1);
    a name no device offers is a ParameterError."""
    from ascend_jit.api.registry import INSTRUCTIONS
    from ascend_jit.devices import get_device
    from ascend_jit.fidelity import FIDELITY
    names = {a for a, _ in FIDELITY}
    for inst in INSTRUCTIONS:
        if inst.name not in names:
            continue
        for device in DEVICES:
            spec = get_device(device)
            offered = inst.offered(spec) and bool(inst.dtypes(spec))
            got = _outcome(lambda: aj.fidelity(inst.name, device))
            assert (got[0] == "ok") == offered, (inst.name, device, got)
            if not offered:
                assert got[0] == "UnsupportedDeviceError", (inst.name, device, got)
    assert _outcome(lambda: aj.fidelity("NoSuchOp", "atlas-a2"))[0] == "ParameterError"
    assert _outcome(lambda: aj.fidelity("Add", "atlas-inference-vectorcore"))[0] == "UnsupportedDeviceError"


def test_found_event_ids_are_refused_on_the_vector_core():
    """SPEC D13: the inference Vector Core offers no instruction, so no SetFlag / WaitFlag for an event id to serve;
    TPipe's Fetch / Alloc / ReleaseEventID had handed ids out there (review 46), fast path and checked path alike."""
    core = aj.Core("atlas-inference-vectorcore")
    with core:
        pipe = aj.TPipe()
        for call in (lambda: pipe.FetchEventID(aj.HardEvent.V_MTE3), lambda: pipe.AllocEventID(aj.HardEvent.V_MTE3),
                     lambda: pipe.ReleaseEventID(0, aj.HardEvent.V_MTE3)):
            with pytest.raises(aj.UnsupportedDeviceError, match="Vector Core does not offer"):
                call()
