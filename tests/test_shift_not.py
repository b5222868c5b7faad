"""ShiftLeft, ShiftRight and Not (the devkit pages M/逻辑计算/ShiftLeft.md, ShiftRight.md, Not.md; the SPECs are
silent; docs/decisions.md "ShiftLeft, ShiftRight, Not"): the pages' 调用示例 and bit-pattern examples on every device
offering them, every 16-bit input pattern against the reference, whole-UB property tests of every form (counter mode
included) against the reference, the amount's range, roundEn, is_set_mask, refusals."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.api import elementwise as E
from ascend_jit.reference import elementwise as R
from ascend_jit.reference import model as ref_model
from ascend_jit.reference import numerics as ref
from conftest import set_int_sat, set_sat_mode
from test_elementwise import env_of, random_ub

SHIFT_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")  # the pages' 产品支持情况
ENTRY = {"ShiftLeft": aj.ShiftLeft, "ShiftRight": aj.ShiftRight, "Not": aj.Not}
U = aj.UnaryRepeatParams


def _state(core):
    return core.ub.copy(), core.mask_high, core.mask_low, core.mask_defined, core.ctrl


def _unchanged(core, before):
    after = _state(core)
    assert np.array_equal(after[0], before[0]) and after[1:] == before[1:]


def _forms(n=512, lanes=128):
    """The pages' three 调用示例: count, mask 连续 (128 lanes, 4 repeats), mask 逐bit."""
    return {"count": (n,), "continuous": (lanes, n // lanes, U(1, 1, 8, 8)),
            "bits": ([2**64 - 1, 2**64 - 1], n // lanes, U(1, 1, 8, 8))}


# --- the pages' 调用示例 and their printed results -----------------------------------------------------------------------
@pytest.mark.parametrize("device", SHIFT_DEVICES)
@pytest.mark.parametrize("name,want", [("ShiftLeft", lambda i: 4 * (i + 1)), ("ShiftRight", lambda i: (i + 1) >> 2)])
def test_shift_page_examples(device, name, want):
    """src [1 2 3 ... 512], scalar 2: ShiftLeft gives [4 8 12 ... 2048], ShiftRight [0 0 0 1 1 1 1 ... 128] (the
    high-dim ShiftRight example passes roundEn false)."""
    core = aj.Core(device)
    dst, src = core.local_tensor("int16", 512), core.local_tensor("int16", 512)
    src[:] = np.arange(1, 513)
    i = np.arange(512)
    for form, tail in _forms().items():
        dst[:] = np.full(512, -1, np.int16)
        kw = {"round_en": False} if name == "ShiftRight" and form != "count" else {}
        ENTRY[name](dst, src, np.int16(2), *tail, **kw)
        np.testing.assert_array_equal(dst.numpy(), want(i).astype(np.int16))
    if name == "ShiftRight":
        assert list(dst.numpy()[:7]) == [0, 0, 0, 1, 1, 1, 1] and dst.numpy()[-1] == 128


@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_not_page_examples(device):
    """src [9 -2 8 ... 9 0] -> dst [-10 1 -9 ... -10 -1], every form (Not is offered on every device)."""
    core = aj.Core(device)
    dst, src = core.local_tensor("int16", 512), core.local_tensor("int16", 512)
    src[:] = np.array([9, -2, 8] * 170 + [9, 0], np.int16)
    for tail in _forms().values():
        dst[:] = np.zeros(512, np.int16)
        aj.Not(dst, src, *tail)
        np.testing.assert_array_equal(dst.numpy(), ~src.numpy())
        assert list(dst.numpy()[:3]) == [-10, 1, -9] and list(dst.numpy()[-2:]) == [-10, -1]


@pytest.mark.parametrize("device", SHIFT_DEVICES)
def test_the_pages_bit_patterns(device):
    """功能说明: 1010101010101010 as uint16 << 1 = 0101010101010100 and >> 1 = 0101010101010101 (logical); as int16
    << 1 = 1101010101010100, << 3 = 1101010101010000 (the sign bit kept), >> 1 = 1101010101010101, >> 3 =
    1111010101010101 (arithmetic)."""
    core = aj.Core(device)
    cases = [("uint16", "ShiftLeft", 1, 0b0101010101010100), ("uint16", "ShiftRight", 1, 0b0101010101010101),
             ("int16", "ShiftLeft", 1, 0b1101010101010100), ("int16", "ShiftLeft", 3, 0b1101010101010000),
             ("int16", "ShiftRight", 1, 0b1101010101010101), ("int16", "ShiftRight", 3, 0b1111010101010101)]
    for dtype, name, amount, want in cases:
        dst, src = core.local_tensor(dtype, 128), core.local_tensor(dtype, 128)
        src[:] = np.full(128, 0b1010101010101010, np.uint16).view(dtype)
        ENTRY[name](dst, src, amount, 128)
        assert (dst.numpy().view(np.uint16) == want).all(), (dtype, name, amount)


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-a3"])
def test_round_en_page_example(device):
    """roundEn: int16 17 >> 5 with bit 4 set = 0 + 1 = 1; on uint16 the flag has no effect (17 >> 5 = 0)."""
    core = aj.Core(device)
    for dtype, want in (("int16", 1), ("int32", 1), ("uint16", 0), ("uint32", 0)):
        dst, src = core.local_tensor(dtype, 256), core.local_tensor(dtype, 256)
        src[:] = np.full(256, 17)
        L = 256 // dst.dtype.size
        aj.ShiftRight(dst, src, 5, L, 256 // L, U(1, 1, 8, 8), True)
        assert (dst.numpy() == want).all(), dtype
        dst[:] = np.zeros(256)
        aj.ShiftRight(dst, src, 5, mask=L, repeat_time=256 // L, repeat_params=U(1, 1, 8, 8), round_en=True)
        assert (dst.numpy() == want).all(), dtype


# --- every 16-bit pattern ---------------------------------------------------------------------------------------------
ALL16 = np.arange(65536, dtype=np.uint32).astype(np.uint16)


def _exhaustive(core, dtype, call):
    """call(dst, src) in place over one tensor holding every pattern (two 128 KB tensors exceed the 310B's UB)."""
    t = core.local_tensor(dtype, 65536, addr=0)
    t[:] = ALL16.view(dtype)
    call(t, t)
    return ALL16.view(dtype), t.numpy()


@pytest.mark.parametrize("dtype", ["int16", "uint16"])
def test_every_16_bit_pattern_shifts(dtype):
    """Every input of both 16-bit types, amounts 0, 1, 7, 15, 16 (A2) and 17, 40 (the 950: past the width), both
    shifts, against the reference; A2's roundEn on int16 too."""
    env = R.Env("atlas-a2")
    for device, amounts in (("atlas-a2", (0, 1, 7, 15, 16)), ("ascend950", (17, 40))):
        core = aj.Core(device)
        for name, fn in (("ShiftLeft", R.shift_left), ("ShiftRight", R.shift_right)):
            for s in amounts:
                x, got = _exhaustive(core, dtype, lambda d, a: ENTRY[name](d, a, s, 65536))
                want = fn(dtype, env, x.astype(object), np.full(65536, s, dtype=object))
                np.testing.assert_array_equal(got.astype(np.int64), want.astype(np.int64), err_msg=f"{name} {s}")
    if dtype == "int16":
        core = aj.Core("atlas-a2")
        for s in (0, 1, 5, 16):
            def rounded(d, a):  # four calls of 128 repeats (repeat_time <= 255)
                for k in range(0, 65536, 16384):
                    aj.ShiftRight(d[k], a[k], s, 128, 128, U(1, 1, 8, 8), True)
            x, got = _exhaustive(core, dtype, rounded)
            want = R.shift_right_round(dtype, env, x.astype(object), np.full(65536, s, dtype=object))
            np.testing.assert_array_equal(got.astype(np.int64), want.astype(np.int64))


@pytest.mark.parametrize("dtype", ["int16", "uint16", "half"])
def test_every_16_bit_pattern_not(dtype):
    """Not of every 16-bit pattern is its complement, NaN payloads included (half: the 950)."""
    core = aj.Core("ascend950" if dtype == "half" else "atlas-a2")
    x, got = _exhaustive(core, dtype, lambda d, a: aj.Not(d, a, 65536))
    assert np.array_equal(got.view(np.uint16), ~x.view(np.uint16))


# --- whole-UB property tests: kernel against reference, every form ----------------------------------------------------
def _amount(rng, row, device, dtype):
    width = 8 * ref.SIZES[dtype]
    top = width + 8 if device == "ascend950" else width
    return int(rng.integers(0, top + 1))


def _case(name, seed, high_dim):
    """One random call of `name` on a random device and dtype over a random UB; returns (UB after, reference UB)."""
    rng = np.random.default_rng(seed)
    row = E.OPS[name]
    devices = [d for d in aj.SUPPORTED_NAMES if row.dtypes.get(d)]
    device = devices[rng.integers(len(devices))]
    dtypes = [d for d in row.dtypes[device] if not high_dim or d not in row.count_only.get(device, ())]
    dtype = dtypes[rng.integers(len(dtypes))]
    rounding = (name == "ShiftRight" and high_dim and device in ("atlas-a2", "atlas-a3") and rng.random() < 0.5)
    core = aj.Core(device, bounds="ub")
    set_sat_mode(core, bool(rng.integers(2)))
    set_int_sat(core, bool(rng.integers(2)))
    random_ub(core, seed)
    amount = _amount(rng, row, device, dtype) if row.shift else None
    args = () if amount is None else (amount,)
    kw = {"round_en": True} if rounding else {}
    fn = R.shift_right_round if rounding and dtype in ("int16", "int32") else row.reference
    env = env_of(core)
    if not high_dim:
        count = int(rng.integers(0, 600))
        addrs = [int(k) * 40960 for k in rng.permutation(4)[:2]]
        if rng.random() < 0.3:
            addrs[1] = addrs[0]  # in place
        dst, src = (core.local_tensor(dtype, max(count, 1), addr=a) for a in addrs)
        core.ub_written_by_host()   # the random UB bytes (the tensors made them undefined): initialised
        before = core.ub.copy()
        ENTRY[name](dst, src, *args, count)
        if name == "Not":
            R.not_count(before, dtype, addrs[0], addrs[1], count)
        else:
            R.run_count(before, lambda cols: fn(dtype, env, cols[1], np.full(len(cols[1]), amount, dtype=object)),
                        [dtype, dtype], addrs, count)
        return core.ub, before
    L = 256 // ref.SIZES[dtype]
    last = None
    if rng.random() < 0.25:  # counter mode: the mask is the element count
        core.SetMaskCount()
        mask = int(rng.integers(0, 3 * L))
        lanes, last = list(range(L)), mask
    elif rng.random() < 0.5:
        mask = int(rng.integers(1, L + 1))
        lanes = ref_model.continuous_lanes(mask, L)
    else:
        lo = int(rng.integers(0, 2**63)) * 2 + 1
        hi = int(rng.integers(0, 2**63)) * 2 + int(rng.integers(2)) if L == 128 else 0
        mask = [lo, hi] if L == 128 else [lo]
        lanes = ref_model.lanes_of_mask(lo, hi, L)
    repeat = int(rng.integers(0, 6))
    blks = [int(rng.integers(1, 4)), int(rng.integers(0, 4))]
    reps = [int(rng.integers(0, 20)), int(rng.integers(0, 20))]
    addrs = [int(k) * 65536 for k in rng.permutation(3)[:2]]
    dst, src = (core.local_tensor(dtype, 1, addr=a) for a in addrs)
    core.ub_written_by_host()   # the random UB bytes (the tensors made them undefined): initialised for the sanitizer
    before = core.ub.copy()
    try:
        ENTRY[name](dst, src, *args, mask, repeat, U(blks[0], blks[1], reps[0], reps[1]), **kw)
    except aj.AscendJitError:
        assert np.array_equal(core.ub, before)  # refused: nothing written
        return core.ub, before
    if last is not None:
        repeat = -(-last // L)
        last = last - (repeat - 1) * L if repeat else None
    if name == "Not":
        R.not_high_dim(before, dtype, addrs[0], addrs[1], lanes, repeat, blks[0], blks[1], reps[0], reps[1], last)
    elif repeat:
        R.run_high_dim(before, lambda cols: fn(dtype, env, cols[1], np.full(len(cols[1]), amount, dtype=object)),
                       [dtype, dtype], addrs, lanes, repeat, blks, reps, last_lanes=last)
    return core.ub, before


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync",
                             reason="one-element tensors on a bounds=\"ub\" core: the strides address past them on "
                                    "purpose, which the memory check reports")
@pytest.mark.parametrize("name", ["ShiftLeft", "ShiftRight", "Not"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), high_dim=st.booleans())
def test_matches_reference_over_the_whole_ub(name, seed, high_dim):
    got, want = _case(name, seed, high_dim)
    assert np.array_equal(got, want)


# --- the amount, roundEn, is_set_mask, devices, dtypes ---------------------------------------------------------------
@pytest.mark.parametrize("device", SHIFT_DEVICES)
@pytest.mark.parametrize("name", ["ShiftLeft", "ShiftRight"])
def test_amount_range_is_refused_outside_the_page_range(device, name):
    """A2/A3/310B: [0, 16] for 16-bit, [0, 32] for 32-bit types; the 950: >= 0 (at most 32767: the implementation's
    int16 amount). Refused with ParameterError before anything is written, in every form."""
    core = aj.Core(device)
    for dtype, width in (("int16", 16), ("uint16", 16), ("int32", 32), ("uint32", 32)):
        dst, src = core.local_tensor(dtype, 256), core.local_tensor(dtype, 256)
        src[:] = np.zeros(256, dtype)   # the zeros of a fresh UB, written: the accepted call below reads src
        top = 32767 if device == "ascend950" else width
        bad = [-1, top + 1] if dtype.startswith("int") else [top + 1]
        if dtype == "int16" and top == 32767:
            bad = [-1]
        for amount in bad:
            for tail in ((256,), (64, 1, U())):
                before = _state(core)
                with pytest.raises(aj.ParameterError, match=f"{name}.*scalar.*{device}"):
                    ENTRY[name](dst, src, amount, *tail)
                _unchanged(core, before)
        ENTRY[name](dst, src, top, 256)  # the top of the range is accepted
        assert (dst.numpy() == 0).all() or name == "ShiftRight"


def test_a_float_amount_is_refused():
    core = aj.Core("atlas-a2")
    dst, src = core.local_tensor("int16", 128), core.local_tensor("int16", 128)
    with pytest.raises(aj.ParameterError):
        aj.ShiftLeft(dst, src, 2.0, 128)


@pytest.mark.parametrize("device", ["ascend950", "atlas-200i-500-a2"])
def test_round_en_true_is_refused_where_the_page_says_false_only(device):
    core = aj.Core(device)
    dst, src = core.local_tensor("int16", 128), core.local_tensor("int16", 128)
    src[:] = np.arange(128, dtype=np.int16)   # the accepted call below reads src
    before = _state(core)
    with pytest.raises(aj.UnsupportedDeviceError, match=f"ShiftRight.*round_en.*{device}"):
        aj.ShiftRight(dst, src, 1, 128, 1, U(), True)
    _unchanged(core, before)
    aj.ShiftRight(dst, src, 1, 128, 1, U(), False)


def test_round_en_only_in_the_high_dim_forms_and_only_a_bool():
    core = aj.Core("atlas-a2")
    dst, src = core.local_tensor("int16", 128), core.local_tensor("int16", 128)
    with pytest.raises(TypeError, match="round_en"):
        aj.ShiftRight(dst, src, 1, 128, round_en=True)
    with pytest.raises(aj.ParameterError, match="round_en"):
        aj.ShiftRight(dst, src, 1, 128, 1, U(), 1)
    with pytest.raises(TypeError):
        aj.ShiftRight(dst, src, 1, 128, 1, U(), True, round_en=True)


@pytest.mark.parametrize("device", ["ascend950", "atlas-200i-500-a2", "atlas-a2"])
def test_count_form_is_set_mask(device):
    """The shift pages: on the 950 and the 310B the count form's isSetMask has no effect (count is used); on A2/A3
    False reads the counter-mode mask register (SPEC-2 D32)."""
    core = aj.Core(device)
    dst, src = core.local_tensor("int16", 256), core.local_tensor("int16", 256)
    src[:] = np.arange(256)
    core.SetMaskCount()
    core.SetVectorMask(100)
    aj.ShiftLeft(dst, src, 1, 200, is_set_mask=False)
    n = 100 if device == "atlas-a2" else 200
    np.testing.assert_array_equal(dst.numpy()[:n], (2 * np.arange(n)).astype(np.int16))
    assert (dst.numpy()[n:] == 0).all()


@pytest.mark.parametrize("device", ["atlas-inference-aicore", "atlas-training"])
def test_shifts_are_not_offered_on_the_310p_and_the_910(device):
    core = aj.Core(device)
    dst, src = core.local_tensor("int16", 128), core.local_tensor("int16", 128)
    src[:] = np.arange(128, dtype=np.int16)   # the Not below reads src
    for name in ("ShiftLeft", "ShiftRight"):
        with pytest.raises(aj.UnsupportedDeviceError, match=f"{name}.*{device}"):
            ENTRY[name](dst, src, 1, 128)
    aj.Not(dst, src, 128)


def test_not_half_and_float_only_on_the_950():
    for device in aj.SUPPORTED_NAMES:
        core = aj.Core(device)
        dst, src = core.local_tensor("float", 64), core.local_tensor("float", 64)
        src[:] = np.array([1.5, -0.0, np.inf, np.nan] * 16, np.float32)
        if device == "ascend950":
            aj.Not(dst, src, 64, 1, U())
            assert np.array_equal(dst.numpy().view(np.uint32), ~src.numpy().view(np.uint32))
        else:
            with pytest.raises(aj.UnsupportedDTypeError, match=f"Not.*float.*{device}"):
                aj.Not(dst, src, 64)


def test_950_8_and_64_bit_types_count_form_only():
    core = aj.Core("ascend950")
    for dtype in ("int8", "uint8", "int64", "uint64"):
        dst, src = core.local_tensor(dtype, 256), core.local_tensor(dtype, 256)
        src[:] = np.arange(256).astype(dtype)
        aj.ShiftLeft(dst, src, 1, 256)
        np.testing.assert_array_equal(dst.numpy(), (src.numpy() << 1).astype(dtype) if dtype[0] == "u" else
                                      R.shift_left(dtype, None, src.numpy().astype(object),
                                                   np.ones(256, dtype=object)).astype(dtype))
        aj.Not(dst, src, 256)
        np.testing.assert_array_equal(dst.numpy(), ~src.numpy())
        with pytest.raises(aj.UnsupportedDTypeError, match="count form"):
            aj.ShiftRight(dst, src, 1, 256 // dst.dtype.size, 1, U())


# --- compile budget (issue 20) -------------------------------------------------------------------------------------------
@pytest.mark.skipif(__import__("os").environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without JIT")
def test_the_new_rows_compile_nothing_beyond_their_dtype_class():
    """After And, Adds and Copy on int16 (the binary kernel's and the unary walk's 2-byte integer classes), every form
    of ShiftLeft, ShiftRight (roundEn too, a numpy amount too), Not and ArithProgression on int16 adds no compiled
    signature to the package's kernels."""
    import importlib
    import pkgutil
    from numba.core.dispatcher import Dispatcher
    import ascend_jit.jit as jit_package

    def compiled():
        # not the sanitizer's shadow walks (jit/shadow.py): under --ascend-sanitize they compile their one signature
        # at the first strided footprint, whichever instruction that is; without a sanitizer they never run
        modules = [importlib.import_module(f"{jit_package.__name__}.{m.name}")
                   for m in pkgutil.iter_modules(jit_package.__path__) if m.name != "shadow"]
        return sum(len(v.overloads) for m in modules for v in vars(m).values() if isinstance(v, Dispatcher))
    core = aj.Core("atlas-a2")
    t = [core.local_tensor("int16", 256) for _ in range(3)]
    for k in (1, 2):   # the calls read t[1] and t[2]
        t[k][:] = np.arange(256, dtype=np.int16)
    aj.And(t[0], t[1], t[2], 256)
    aj.Adds(t[0], t[1], np.int16(1), 128, 2, U())
    aj.Copy(t[0], t[1], 128, 2, aj.CopyRepeatParams(1, 1, 8, 8))
    before = compiled()
    aj.ShiftLeft(t[0], t[1], 3, 256)
    aj.ShiftLeft(t[0], t[1], np.int16(3), [2**64 - 1, 1], 2, U())
    aj.ShiftRight(t[0], t[1], 3, 128, 2, U(), True)
    aj.ShiftRight(t[0], t[1], np.int16(3), 256)
    aj.Not(t[0], t[1], 256)
    aj.Not(t[0], t[1], 100, 2, U(1, 1, 8, 8))
    aj.ArithProgression(t[0], 1, 2, 256)
    assert compiled() == before
