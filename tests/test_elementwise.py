"""The element-wise family engine: every instruction and form against the reference model over the whole UB,
the SPEC-2 12.1 / 12.2 golden rows per device and overflow mode, the half grid, refusals."""
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.api import elementwise as E
from ascend_jit.dtypes import resolve
from ascend_jit.reference import elementwise as R
from ascend_jit.reference import model as ref_model
from ascend_jit.reference import numerics as ref
from conftest import DEVICES, set_int_sat, set_sat_mode

# Duplicate / Brcb: below; Copy: tests/test_copy.py; ShiftLeft/ShiftRight/Not (amounts in range, Not's float bits):
# tests/test_shift_not.py
ROWS = [r for r in E.OPS.values() if r.arity not in ("fill", "brcb", "copy") and not (r.shift or r.bitwise)]
ROW_IDS = [r.name for r in ROWS]


def env_of(core, algo="INTRINSIC"):
    return R.Env(core.spec.name, core.half_saturating, core.int_saturating, algo)


def reference_lanes(row, dtype, env, cols, scalar=None, mixed=False):
    """The reference result of one call's lanes; cols = [dst, sources...] values."""
    f = row.reference
    if scalar is not None:  # a broadcast column of the scalar
        scalar = np.full(len(cols[0]), scalar, dtype=object if isinstance(scalar, int) else np.float64)
    if row.arity == "binary":
        return f(dtype, env, cols[1], cols[2])
    if row.arity == "scalar":
        return f(dtype, env, cols[1], scalar)
    if row.arity == "unary":
        return f(dtype, env, cols[1])
    if row.arity == "ternary":
        return R.mixed_mul_add(env, cols[1], cols[2], cols[0]) if mixed else f(dtype, env, cols[1], cols[2], cols[0])
    if mixed:
        return R.mixed_mul_add(env, cols[1], scalar, cols[0])
    return f(dtype, env, cols[1], scalar, cols[0])


def random_ub(core, seed, dtype=None):
    rng = np.random.default_rng(seed)
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    core.ub_written_by_host()   # raw UB bytes: initialised for the sanitizer
    if dtype in ("half", "float"):  # sprinkle specials and small integers
        bits = {"half": [0x7C00, 0xFC00, 0x7E00, 0x0001, 0x8001, 0x0000, 0x8000, 0x7BFF, 0xFBFF, 0x3C00, 0x4000],
                "float": [0x7F800000, 0xFF800000, 0x7FC00000, 1, 0x80000001, 0, 0x80000000, 0x7F7FFFFF, 0x3F800000]}
        view = core.ub.view(np.uint16 if dtype == "half" else np.uint32)
        idx = rng.integers(0, view.size, view.size // 6)
        view[idx] = rng.choice(np.array(bits[dtype], view.dtype), idx.size)


def _pairs(row, device):
    """(dst dtype, src dtype) call shapes of a row on a device."""
    same = [(d, d) for d in row.dtypes.get(device, ())]
    return same + [(d, s) for s, d in (row.mixed or {}).get(device, ())]


def _scalar_of(core, dtype, rng):
    raw = rng.integers(0, 256, 8, dtype=np.uint8)
    if rng.random() < 0.5:
        raw[:] = 0
        raw[:2] = rng.integers(0, 4, 2)
    return raw[:ref.SIZES[dtype]].view(np.dtype(ref.NP_TYPES[dtype]))[0]


def _python_value(dtype, v):
    return float(v) if ref.is_float(dtype) else int(v)


def _set_modes(core, rng):
    set_sat_mode(core, bool(rng.integers(2)))
    set_int_sat(core, bool(rng.integers(2)))


def _algo(row, core, dtype, rng):
    """A random config valid for the call (950 only), as (config, algo name)."""
    if row.config is None or core.spec.name != "ascend950":
        return None, "INTRINSIC"
    algos = [a for a in row.config.__dataclass_fields__["algo"].type]
    if not aj.get_device("ascend950") or dtype != "float":
        algos = [a for a in algos if a.name not in E._FLOAT_ONLY_ALGOS]
    if dtype not in ("half", "float"):
        algos = [a for a in algos if a.name in ("INTRINSIC", "PRECISION_1ULP_FTZ_TRUE")]
    algo = algos[rng.integers(len(algos))]
    return row.config(algo), algo.name


def _call(row, tensors, tail, scalar, config, **kw):
    entry = E.ENTRIES[row.name]
    if config is not None:
        kw["config"] = config
    if row.arity in ("scalar", "axpy"):
        return entry(tensors[0], tensors[1], scalar, *tail, **kw)
    return entry(*tensors, *tail, **kw)


# --- whole-UB property tests: count form --------------------------------------------------------------------------------
def _count_case(row, seed, in_place):
    rng = np.random.default_rng(seed)
    devices = [d for d in DEVICES if row.dtypes.get(d)]
    device = devices[rng.integers(len(devices))]
    pairs = _pairs(row, device)
    dtype, sdtype = pairs[rng.integers(len(pairs))]
    core = aj.Core(device)
    _set_modes(core, rng)
    random_ub(core, seed, sdtype)
    count = int(rng.integers(0, 300))
    names = E._TENSORS[row.arity]
    sizes = [ref.SIZES[dtype]] + [ref.SIZES[sdtype]] * (len(names) - 1)
    addrs = [k * 20480 for k in range(len(names))]
    if in_place and dtype == sdtype:
        addrs[1] = addrs[0]
    tensors = [core.local_tensor(dt, max(count, 1), addr=a) for dt, a in zip([dtype] + [sdtype] * 2, addrs)]
    scalar = _scalar_of(core, sdtype, rng)
    config, algo = _algo(row, core, dtype, rng)
    before = core.ub.copy()
    _call(row, tensors, (count,), scalar, config)
    env = env_of(core, algo)
    mixed = dtype != sdtype

    def fn(cols):
        return reference_lanes(row, dtype, env, cols, _python_value(sdtype, scalar), mixed)
    dts = [dtype] + [sdtype] * (len(names) - 1)
    R.run_count(before, fn, dts, addrs, count)
    return core.ub, before, sizes


@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), in_place=st.booleans())
def test_count_form_matches_reference(row, seed, in_place):
    got, expected, _ = _count_case(row, seed, in_place)
    assert np.array_equal(got, expected)


# --- whole-UB property tests: high-dim forms ----------------------------------------------------------------------------
def _high_dim_case(row, seed, strides_max=4, rep_max=20, repeat_max=8):
    rng = np.random.default_rng(seed)
    devices = [d for d in DEVICES if row.dtypes.get(d)]
    device = devices[rng.integers(len(devices))]
    spec = aj.get_device(device)
    pairs = [p for p in _pairs(row, device) if p[0] not in row.count_only.get(device, ())]
    dtype, sdtype = pairs[rng.integers(len(pairs))]
    core = aj.Core(device, bounds="ub")  # one-element tensors: the strides address past them on purpose
    _set_modes(core, rng)
    random_ub(core, seed, sdtype)
    L = 256 // ref.SIZES[dtype]
    counter = None
    if rng.random() < 0.2:  # counter mode: the mask argument is the element count (decisions.md, SPEC-2 1.4)
        core.SetMaskCount()
        mask = int(rng.integers(0, 3 * L))
        lanes = list(range(L))
        counter = mask
    elif rng.random() < 0.5:
        mask = int(rng.integers(0, L + 10))
        lanes = ref_model.continuous_lanes(mask, L)
    else:
        lo = int(rng.integers(0, 2**63)) * 2 + int(rng.integers(2))
        hi = int(rng.integers(0, 2**63)) * 2 + int(rng.integers(2)) if L == 128 else 0
        mask = [lo, hi] if L == 128 else [lo]
        lanes = ref_model.lanes_of_mask(lo, hi, L)
    repeat = int(rng.integers(0, repeat_max + 1))
    n_ops = len(E._TENSORS[row.arity])
    blks = [int(rng.integers(1, strides_max + 1))] + [int(rng.integers(0, strides_max + 1)) for _ in range(n_ops - 1)]
    reps = [int(rng.integers(0, rep_max + 1)) for _ in range(n_ops)]
    region = spec.ub_bytes // 3 // 32 * 32
    addrs = [int(k) * region for k in rng.permutation(3)[:n_ops]]
    dts = [dtype] + [sdtype] * (n_ops - 1)
    tensors = [core.local_tensor(dt, 1, addr=a) for dt, a in zip(dts, addrs)]
    core.ub_written_by_host()   # the random UB bytes (the tensors made them undefined): initialised for the sanitizer
    params = (E.BinaryRepeatParams(blks[0], blks[1], blks[2], reps[0], reps[1], reps[2]) if n_ops == 3
              else E.UnaryRepeatParams(blks[0], blks[1], reps[0], reps[1]))
    scalar = _scalar_of(core, sdtype, rng)
    config, algo = _algo(row, core, dtype, rng)
    before = core.ub.copy()
    try:
        _call(row, tensors, (mask, repeat, params), scalar, config)
    except aj.AscendJitError:
        return core.ub, before  # refused: nothing written
    env = env_of(core, algo)

    def fn(cols):
        return reference_lanes(row, dtype, env, cols, _python_value(sdtype, scalar), dtype != sdtype)
    if counter is not None:
        repeat = -(-counter // L)
        if repeat:
            R.run_high_dim(before, fn, dts, addrs, lanes, repeat, blks, reps, last_lanes=counter - (repeat - 1) * L)
    elif lanes:
        R.run_high_dim(before, fn, dts, addrs, lanes, repeat, blks, reps)
    return core.ub, before


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync",
                             reason="one-element tensors on a bounds=\"ub\" core: the strides address past them on "
                                    "purpose, which the memory check reports")
@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_high_dim_form_matches_reference(row, seed):
    got, expected = _high_dim_case(row, seed)
    assert np.array_equal(got, expected)


@pytest.mark.slow
@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync",
                             reason="one-element tensors on a bounds=\"ub\" core: the strides address past them on "
                                    "purpose, which the memory check reports")
@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_high_dim_full_ranges_sweep(row, seed):
    """The full documented ranges: repeat and repeat strides 0..255, block strides up to 255 (most are refused as
    past the UB; the rest must match the reference)."""
    got, expected = _high_dim_case(row, seed, strides_max=255, rep_max=255, repeat_max=255)
    assert np.array_equal(got, expected)


# --- SPEC-2 12.1 doc examples, every device offering the call, every form -------------------------------------------
def _example_forms(row, core, dtype, tensors, scalar, n=512):
    L = 256 // ref.SIZES[dtype]
    forms = {"count": (n,)}
    if dtype not in row.count_only.get(core.spec.name, ()):
        params = E.BinaryRepeatParams() if len(tensors) == 3 else E.UnaryRepeatParams()
        forms["continuous"] = (L, n // L, params)
        forms["bits"] = ([2**64 - 1, 2**64 - 1] if L == 128 else [2**64 - 1], n // L, params)
    return forms


E_ROWS = [  # (row, dtypes, src0(i), src1(i) or scalar, expected(i))  SPEC-2 12.1
    ("Sub", ("int16", "half"), lambda i: i + 1, lambda i: 513 + i, lambda i: -512 + 0 * i),
    ("Mul", ("int16", "half"), lambda i: i + 1, lambda i: 2 + 0 * i, lambda i: 2 * i + 2),
    ("Div", ("half",), lambda i: i + 1, lambda i: 2 + 0 * i, lambda i: (i + 1) / 2),
    ("Max", ("int16", "half"), lambda i: i + 1, lambda i: 513 - i, lambda i: np.maximum(i + 1, 513 - i)),
    ("Min", ("int16", "half"), lambda i: i + 1, lambda i: 513 - i, lambda i: np.minimum(i + 1, 513 - i)),
    ("And", ("int16", "uint16"), lambda i: i + 1, lambda i: 513 - i, lambda i: (i + 1) & (513 - i)),
    ("Or", ("int16", "uint16"), lambda i: i + 1, lambda i: 513 - i, lambda i: (i + 1) | (513 - i)),
    ("Adds", ("int16",), lambda i: i + 1, 2, lambda i: i + 3),
    ("Muls", ("int16",), lambda i: i + 1, 2, lambda i: 2 * i + 2),
    ("Maxs", ("int16",), lambda i: i + 1, 2, lambda i: np.maximum(i + 1, 2)),
    ("Mins", ("int16",), lambda i: i + 1, 2, lambda i: np.minimum(i + 1, 2)),
    ("Abs", ("half", "float"), lambda i: np.where(i % 2, -i, i), None, lambda i: i),
]


@pytest.mark.parametrize("name,dtypes,x,y,want", E_ROWS, ids=[r[0] for r in E_ROWS])
def test_doc_examples(device, name, dtypes, x, y, want):
    row = E.OPS[name]
    i = np.arange(512)
    ran = 0
    for dtype in dtypes:
        if dtype not in row.dtypes.get(device, ()):
            continue
        core = aj.Core(device)
        n_ops = len(E._TENSORS[row.arity])
        tensors = [core.local_tensor(dtype, 512) for _ in range(n_ops)]
        tensors[1][:] = x(i)
        if row.arity == "binary":
            tensors[2][:] = y(i)
        scalar = np.dtype(ref.NP_TYPES[dtype]).type(y) if row.arity == "scalar" else None
        for form, tail in _example_forms(row, core, dtype, tensors, scalar).items():
            tensors[0][:] = 0
            _call(row, tensors, tail, scalar, None)
            aj.testing.assert_bit_equal(tensors[0].numpy(), want(i).astype(ref.NP_TYPES[dtype]))
            ran += 1
    if not ran:
        pytest.skip(f"{name} {dtypes} not offered on {device}")


def test_doc_examples_relu_leaky_relu_div_config():
    """E-13 (Relu: negatives give +0), E-14 (LeakyRelu derived bits), E-3 with a 950 config."""
    for device in DEVICES:
        core = aj.Core(device)
        d, s = core.local_tensor("half", 512), core.local_tensor("half", 512)
        s[:] = np.array([6.938, -8.86, -0.2263, 1.971] * 128, np.float16)
        aj.Relu(d, s, 128, 4, aj.UnaryRepeatParams(1, 1, 8, 8))
        assert list(d.numpy()[:4].view(np.uint16)) == [0x46F0, 0, 0, int(np.float16(1.971).view(np.uint16))]
        if "LeakyRelu" in [n for n in E.OPS if E.OPS[n].dtypes.get(device)]:
            x = np.array([-287, 246, -438, 177, 596, -950, -293, 322] * 64, np.float16)
            x[511] = -900  # E-14's last element
            s[:] = x
            aj.LeakyRelu(d, s, 0.001, 128, 4, (1, 1, 8, 8))
            assert list(d.numpy()[:8].view(np.uint16)) == [0xB498, 0x5BB0, 0xB703, 0x5988, 0x60A8, 0xBB9A, 0xB4B1,
                                                             0x5D08]
            assert d.numpy()[511:].view(np.uint16).tolist() == [0xBB34]
    core = aj.Core("ascend950")
    d, a, b = (core.local_tensor("half", 512) for _ in range(3))
    a[:] = np.arange(1, 513)
    b[:] = 2
    aj.Div(d, a, b, 512, config=aj.DivConfig(aj.DivAlgo.PRECISION_1ULP_FTZ_FALSE))
    assert np.array_equal(d.numpy(), (np.arange(1, 513) / 2).astype(np.float16))


# --- Duplicate and Brcb (SPEC-2 5) ------------------------------------------------------------------------------------
def test_doc_examples_duplicate_and_brcb(device):
    """E-15 and E-16."""
    core = aj.Core(device)
    d = core.local_tensor("half", 256)
    aj.Duplicate(d, 18.0, 256)
    assert (d.numpy().view(np.uint16) == 0x4C80).all()
    if device == "ascend950":
        src = core.local_tensor("half", 256)
        src[:] = np.concatenate([[18.0], np.arange(1, 256)])
        d[:] = 0
        aj.Duplicate(d, src, 256)
        assert (d.numpy().view(np.uint16) == 0x4C80).all()
    else:
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.Duplicate(d, core.local_tensor("half", 16), 256)
    if E.BRCB.dtypes.get(device):
        src = core.local_tensor("half", 16)
        src[:] = np.arange(1, 17)
        aj.Brcb(d, src, 2, aj.BrcbRepeatParams(1, 8))
        assert np.array_equal(d.numpy(), np.repeat(np.arange(1, 17), 16).astype(np.float16))
    else:
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.Brcb(d, core.local_tensor("half", 16), 2, (1, 8))


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync",
                             reason="a one-element dst on a bounds=\"ub\" core: the strides address past them on "
                                    "purpose, which the memory check reports")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_duplicate_matches_reference_on_whole_ub(seed):
    rng = np.random.default_rng(seed)
    device = DEVICES[rng.integers(len(DEVICES))]
    offered = E.DUPLICATE.dtypes[device]
    dtype = offered[rng.integers(len(offered))]
    core = aj.Core(device, bounds="ub")
    random_ub(core, seed)
    L = 256 // ref.SIZES[dtype]
    value = _scalar_of(core, dtype, rng)
    before = core.ub.copy()
    dst = core.local_tensor(dtype, 1, addr=int(rng.integers(0, 64)) * 32)
    if rng.random() < 0.4 or dtype in E.DUPLICATE.count_only[device]:
        count = int(rng.integers(0, 400))
        dst = core.local_tensor(dtype, max(count, 1), addr=dst.addr)
        aj.Duplicate(dst, value, count)
        R.fill_count(before, dtype, dst.addr, value.tobytes(), count)
    else:
        mask = int(rng.integers(0, L + 5))
        repeat, blk, rep = int(rng.integers(0, 9)), int(rng.integers(1, 5)), int(rng.integers(0, 20))
        try:
            aj.Duplicate(dst, value, mask, repeat, blk, rep)
        except aj.AscendJitError:
            assert np.array_equal(core.ub, before)
            return
        R.fill_high_dim(before, dtype, dst.addr, value.tobytes(), ref_model.continuous_lanes(mask, L), repeat, blk, rep)
    assert np.array_equal(core.ub, before)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_brcb_matches_reference_on_whole_ub(seed):
    rng = np.random.default_rng(seed)
    devices = [d for d in DEVICES if E.BRCB.dtypes.get(d)]
    device = devices[rng.integers(len(devices))]
    offered = E.BRCB.dtypes[device]
    dtype = offered[rng.integers(len(offered))]
    core = aj.Core(device, bounds="ub")
    random_ub(core, seed)
    repeat, blk, rep = int(rng.integers(0, 12)), int(rng.integers(0, 6)), int(rng.integers(0, 20))
    src = core.local_tensor(dtype, 8 * 12, addr=65536)
    dst_addr = int(rng.integers(0, 32)) * 32   # bounds="ub": dst (an address handle) runs to the UB's end
    dst = core.local_tensor(dtype, (core.spec.ub_bytes - dst_addr) // resolve(dtype).size, addr=dst_addr)
    before = core.ub.copy()
    try:
        aj.Brcb(dst, src, repeat, (blk, rep))
    except aj.AscendJitError:
        assert np.array_equal(core.ub, before) and blk == 0
        return
    R.brcb(before, dtype, dst.addr, src.addr, repeat, blk, rep)
    assert np.array_equal(core.ub, before)


def test_brcb_refusals():
    core = aj.Core("atlas-a2")
    src, dst = core.local_tensor("half", 16), core.local_tensor("half", 256)
    random_ub(core, 3)
    before = core.ub.copy()
    for call, err in ((lambda: aj.Brcb(dst, src, 2, (0, 8)), aj.ParameterError),           # D61
                      (lambda: aj.Brcb(dst, src, 3, (1, 8)), aj.OutOfBoundsError),         # src too short
                      (lambda: aj.Brcb(dst, src, 2, (1, 16)), aj.OutOfBoundsError),        # past dst's tensor
                      (lambda: aj.Brcb(dst, core.local_tensor("half", 8, addr=dst.addr), 1, (1, 8)),
                       aj.OverlapError),                                                    # D34
                      (lambda: aj.Brcb(dst, src, 256, (1, 8)), aj.ParameterError),
                      (lambda: aj.Brcb(dst, src, 2), aj.ParameterError)):    # no default (SPEC-2 5.2, audit 45a)
        with pytest.raises(err, match="Brcb"):
            call()
        assert np.array_equal(core.ub, before)


# --- SPEC-2 12.2 boundary rows, per device and overflow mode ----------------------------------------------------------
MAXH, MINH, INF, NAN = 65504.0, -65504.0, math.inf, math.nan
I16, I32 = (-32768, 32767), (-2**31, 2**31 - 1)
# (row, dtype, tensor values [dst, src0, src1] (dst first; None = 0), scalar, INF/NaN or wrap result, sat or clamp
# result, devices: "all" | "950" | "non950")
B_ROWS = [
    ("B-1", "Sub", "half", [None, MINH, MAXH], None, -INF, MINH, "all"),
    ("B-2a", "Sub", "half", [None, -0.0, 0.0], None, -0.0, -0.0, "all"),
    ("B-2b", "Sub", "half", [None, -0.0, -0.0], None, 0.0, 0.0, "all"),
    ("B-2c", "Sub", "half", [None, 0.0, -0.0], None, 0.0, 0.0, "all"),
    ("B-3a", "Sub", "half", [None, INF, INF], None, NAN, 0.0, "all"),
    ("B-3b", "Sub", "half", [None, NAN, 1.0], None, NAN, 0.0, "all"),
    ("B-4a", "Sub", "int16", [None, I16[0], I16[1]], None, 1, I16[0], "all"),
    ("B-4b", "Sub", "int16", [None, I16[1], I16[0]], None, -1, I16[1], "all"),
    ("B-4c", "Sub", "int32", [None, I32[0], I32[1]], None, 1, I32[0], "all"),
    ("B-4d", "Sub", "int32", [None, I32[1], I32[0]], None, -1, I32[1], "all"),
    ("B-5", "Sub", "float", [None, -3.4028234663852886e38, 3.4028234663852886e38], None, -INF, -INF, "all"),
    ("B-6a", "Mul", "half", [None, MINH, MINH], None, INF, MAXH, "all"),
    ("B-6b", "Mul", "half", [None, MINH, 0.0], None, -0.0, -0.0, "all"),
    ("B-6c", "Mul", "half", [None, MAXH, -0.0], None, -0.0, -0.0, "all"),
    ("B-6d", "Mul", "half", [None, 0.0, INF], None, NAN, 0.0, "all"),
    ("B-7a", "Mul", "int16", [None, 32767, 32767], None, 1, 32767, "all"),
    ("B-7b", "Mul", "int16", [None, -32768, -32768], None, 0, 32767, "all"),
    ("B-7c", "Mul", "int16", [None, -32768, 32767], None, -32768, -32768, "all"),
    ("B-8a", "Mul", "int32", [None, I32[1], I32[1]], None, 1, I32[1], "all"),
    ("B-8b", "Mul", "int32", [None, I32[0], I32[0]], None, 0, I32[1], "all"),
    ("B-9a", "Div", "half", [None, MINH, 0.0], None, -INF, MINH, "all"),
    ("B-9b", "Div", "half", [None, MINH, -0.0], None, INF, MAXH, "all"),
    ("B-9c", "Div", "half", [None, 0.0, MINH], None, -0.0, -0.0, "all"),
    ("B-9d", "Div", "half", [None, -0.0, MAXH], None, -0.0, -0.0, "all"),
    ("B-9e", "Div", "half", [None, 0.0, 0.0], None, NAN, 0.0, "all"),
    ("B-9f", "Div", "half", [None, MINH, INF], None, -0.0, -0.0, "all"),
    ("B-9g", "Div", "half", [None, MAXH, MAXH], None, 1.0, 1.0, "all"),
    ("B-10a", "Max", "half", [None, MINH, -0.0], None, -0.0, -0.0, "all"),
    ("B-10b", "Max", "half", [None, 0.0, -0.0], None, 0.0, 0.0, "all"),
    ("B-10c", "Max", "half", [None, -0.0, 0.0], None, 0.0, 0.0, "all"),
    ("B-10d", "Max", "half", [None, -0.0, -0.0], None, -0.0, -0.0, "all"),
    ("B-10e", "Max", "half", [None, 3.0, NAN], None, NAN, 0.0, "all"),
    ("B-10f", "Max", "half", [None, INF, -INF], None, INF, MAXH, "all"),
    ("B-11a", "Min", "half", [None, 0.0, -0.0], None, -0.0, -0.0, "all"),
    ("B-11b", "Min", "half", [None, -0.0, 0.0], None, -0.0, -0.0, "all"),
    ("B-11c", "Min", "half", [None, MAXH, -0.0], None, -0.0, -0.0, "all"),
    ("B-11d", "Min", "half", [None, INF, -INF], None, -INF, MINH, "all"),
    ("B-11e", "Min", "half", [None, MINH, NAN], None, NAN, 0.0, "all"),
    ("B-12a", "Adds", "half", [None, MINH], MINH, -INF, MINH, "all"),
    ("B-12b", "Adds", "half", [None, -0.0], -0.0, -0.0, -0.0, "all"),
    ("B-12c", "Adds", "half", [None, 0.0], -0.0, 0.0, 0.0, "all"),
    ("B-12d", "Adds", "half", [None, INF], -INF, NAN, 0.0, "all"),
    ("B-13a", "Adds", "int16", [None, -32768], -32768, 0, -32768, "all"),
    ("B-13b", "Adds", "int16", [None, 32767], 32767, -2, 32767, "all"),
    ("B-14a", "Maxs", "half", [None, 0.0], -0.0, 0.0, 0.0, "all"),
    ("B-14b", "Maxs", "half", [None, INF], -INF, INF, MAXH, "all"),
    ("B-14c", "Mins", "half", [None, -0.0], 0.0, -0.0, -0.0, "all"),
    ("B-14d", "Mins", "half", [None, MINH], NAN, NAN, 0.0, "all"),
    ("B-15a", "LeakyRelu", "half", [None, -0.0], MINH, 0.0, 0.0, "all"),
    ("B-15b", "LeakyRelu", "half", [None, -0.0], MAXH, -0.0, -0.0, "all"),
    ("B-15c", "LeakyRelu", "half", [None, -0.0], INF, NAN, 0.0, "all"),
    ("B-15d", "LeakyRelu", "half", [None, 0.0], NAN, 0.0, 0.0, "all"),
    ("B-15e", "LeakyRelu", "half", [None, -INF], 0.0, NAN, 0.0, "all"),
    ("B-15f", "LeakyRelu", "half", [None, MINH], MINH, INF, MAXH, "all"),
    ("B-15g", "LeakyRelu", "half", [None, INF], 0.5, INF, MAXH, "all"),
    ("B-16a", "Abs", "half", [None, -0.0], None, 0.0, 0.0, "all"),
    ("B-16b", "Abs", "half", [None, -INF], None, INF, MAXH, "all"),
    ("B-16c", "Abs", "half", [None, NAN], None, NAN, 0.0, "all"),
    ("B-17a", "Relu", "half", [None, -0.0], None, 0.0, 0.0, "all"),
    ("B-17b", "Relu", "half", [None, -INF], None, 0.0, 0.0, "all"),
    ("B-17c", "Relu", "half", [None, NAN], None, NAN, 0.0, "all"),
    ("B-17d", "Relu", "int32", [None, I32[0]], None, 0, 0, "all"),
    ("B-18a", "Exp", "half", [None, -INF], None, 0.0, 0.0, "all"),
    ("B-18b", "Exp", "half", [None, MAXH], None, INF, MAXH, "all"),
    ("B-18c", "Ln", "half", [None, 0.0], None, -INF, MINH, "all"),
    ("B-18d", "Ln", "half", [None, -0.0], None, -INF, MINH, "all"),
    ("B-18e", "Ln", "half", [None, MINH], None, NAN, 0.0, "all"),
    ("B-18f", "Sqrt", "half", [None, -0.0], None, -0.0, -0.0, "all"),
    ("B-18g", "Sqrt", "half", [None, -INF], None, NAN, 0.0, "all"),
    ("B-18h", "Rsqrt", "half", [None, -0.0], None, -INF, MINH, "all"),
    ("B-18i", "Reciprocal", "half", [None, 0.0], None, INF, MAXH, "all"),
    ("B-18j", "Reciprocal", "half", [None, -INF], None, -0.0, -0.0, "all"),
    ("B-19a", "AddRelu", "half", [None, -0.0, -0.0], None, 0.0, 0.0, "all"),
    ("B-19b", "AddRelu", "half", [None, MINH, MINH], None, 0.0, 0.0, "all"),
    ("B-19c", "AddRelu", "half", [None, NAN, 1.0], None, NAN, 0.0, "all"),
    ("B-19d", "AddRelu", "half", [None, MAXH, MAXH], None, INF, MAXH, "all"),
    ("B-20a", "SubRelu", "half", [None, -0.0, 0.0], None, 0.0, 0.0, "all"),
    ("B-20b", "SubRelu", "half", [None, MAXH, MINH], None, INF, MAXH, "all"),
    ("B-20c", "SubRelu", "half", [None, INF, INF], None, NAN, 0.0, "all"),
    ("B-21", "Axpy", "half", [MINH, MAXH], MAXH, INF, 0.0, "non950"),
    ("B-22", "Axpy", "half", [MINH, MAXH], MAXH, INF, MAXH, "950"),
    ("B-23", "Axpy", "half", [-INF, MAXH], INF, NAN, MINH, "non950"),
    ("B-23-950", "Axpy", "half", [-INF, MAXH], INF, NAN, 0.0, "950"),       # D74
    ("B-24", "Axpy", "half", [INF, INF], 0.0, NAN, MAXH, "non950"),
    ("B-24-950", "Axpy", "half", [INF, INF], 0.0, NAN, 0.0, "950"),        # D74
    ("B-25", "Axpy", "half", [MINH, MAXH], 1.0, 0.0, 0.0, "all"),
    ("B-26", "Axpy", "half", [-0.0, 1.0], 0.0, 0.0, 0.0, "all"),
    # MemBV-T20/T21/T22 "product = MAX, addend MAX": the tables print MAX in the INF/NaN column, against their own
    # note (IEEE 754) and the mirror row "product = MIN, addend MIN" -> -inf; D39 / 6.3 give +inf (decisions.md)
    ("T20-MAX", "Axpy", "half", [MAXH, MAXH], 1.0, INF, MAXH, "all"),
    ("T20-MIN", "Axpy", "half", [MINH, MINH], 1.0, -INF, MINH, "all"),
    ("T21-MAX", "MulAddDst", "half", [MAXH, MAXH, 1.0], None, INF, MAXH, "all"),
    ("T22-MAX", "FusedMulAdd", "half", [1.0, MAXH, MAXH], None, INF, MAXH, "all"),
    ("H-1", "MulAddDst", "half", [np.uint16(0xBC02), np.uint16(0x3C01), np.uint16(0x3C01)], None, 2.0**-20, None,
     "all"),
    ("H-17", "FusedMulAdd", "half", [0.0, 0.0, -0.0], None, None, 0.0, "all"),
    ("H-18", "LeakyRelu", "half", [None, MINH], INF, None, MINH, "all"),
    ("D73-sqrt", "Sqrt", "half", [None, MAXH], None, 255.875, 255.875, "all"),  # 0x5BFF (D73)
    ("D75-rsqrt", "Rsqrt", "half", [None, -2.0], None, NAN, 0.0, "all"),
]


def _as(dtype, v):
    if isinstance(v, np.uint16):
        return np.array([v]).view(np.float16)[0]
    return np.dtype(ref.NP_TYPES[dtype]).type(0 if v is None else v)


def _boundary_lane(device, saturating, name, dtype, values, scalar, config=None):
    core = aj.Core(device)
    if not (set_sat_mode(core, saturating) if ref.is_float(dtype) else set_int_sat(core, saturating)):
        return None
    row = E.OPS[name]
    tensors = [core.local_tensor(dtype, 16) for _ in values]
    for t, v in zip(tensors, values):
        t[:] = np.full(16, _as(dtype, v))
    _call(row, tensors, (16,), None if scalar is None else _as(dtype, scalar), config)
    return tensors[0].numpy()[0]


def _same_value(got, want):
    if isinstance(want, float) and math.isnan(want):
        return math.isnan(float(got))
    return float(got) == want and math.copysign(1, float(got)) == math.copysign(1, want)


@pytest.mark.parametrize("saturating", [False, True], ids=["inf-nan", "sat"])
@pytest.mark.parametrize("case", B_ROWS, ids=[r[0] for r in B_ROWS])
def test_boundary_rows(device, saturating, case):
    _, name, dtype, values, scalar, inf_mode, sat_mode, where = case
    want = sat_mode if saturating else inf_mode
    if want is None or (where == "950") != (device == "ascend950") and where != "all":
        pytest.skip("row not for this device or mode")
    if dtype not in E.OPS[name].dtypes.get(device, ()):
        pytest.skip(f"{name} {dtype} not offered on {device}")
    got = _boundary_lane(device, saturating, name, dtype, values, scalar)
    if got is None:
        pytest.skip(f"{device} has no such mode")
    assert _same_value(got, want), (got, want)


# MemBV-T20/T21/T22 (Axpy, MulAddDst, FusedMulAdd) and T24/T25 (AddRelu, SubRelu), every row (SPEC-2 12.0: A2/A3
# rows; the INF/NaN column also holds on the 310B, the sat column on the 310P/910). Factor pairs -> the product's
# group; per addend (+0, -0, +inf, -inf, MAX, MIN, nan) the (INF/NaN, sat) result. D36 rows are replaced by the
# model's value ("*"), and the "product MAX + addend MAX" rows by D39's +inf (decisions.md).
_SPECIAL_HALF = {"+0": 0x0000, "-0": 0x8000, "+inf": 0x7C00, "-inf": 0xFC00, "MAX": 0x7BFF, "MIN": 0xFBFF,
                 "nan": 0x7E00, "1": 0x3C00}
_SPECIAL_FLOAT = {"+0": 0, "-0": 0x80000000, "+inf": 0x7F800000, "-inf": 0xFF800000, "MAX": 0x7F7FFFFF,
                  "MIN": 0xFF7FFFFF, "nan": 0x7FC00000}
_ADDENDS = ("+0", "-0", "+inf", "-inf", "MAX", "MIN", "nan")
_T20_GROUPS = [  # (factor pairs, pairs only for same-type shapes, per-addend (INF/NaN, sat))
    ([("+0", "+0"), ("-0", "-0"), ("+0", "MAX"), ("-0", "MIN")], [],
     [("+0", "+0"), ("+0", "+0*"), ("+inf", "MAX"), ("-inf", "MIN"), ("MAX", "MAX"), ("MIN", "MIN"), ("nan", "+0")]),
    ([("+0", "-0"), ("+0", "MIN"), ("-0", "MAX")], [],
     [("+0", "+0"), ("-0", "-0"), ("+inf", "MAX*"), ("-inf", "MIN*"), ("MAX", "MAX"), ("MIN", "MIN"), ("nan", "+0")]),
    ([("+inf", "+inf"), ("+inf", "MAX"), ("-inf", "MIN")], [("MAX", "MAX"), ("MIN", "MIN")],
     [("+inf", "MAX"), ("+inf", "MAX"), ("+inf", "MAX"), ("nan", "MIN"), ("+inf", "MAX"), ("+inf", "+0"),
      ("nan", "+0")]),
    ([("+inf", "-inf"), ("+inf", "MIN"), ("-inf", "MAX")], [("MAX", "MIN")],
     [("-inf", "MIN"), ("-inf", "MIN"), ("nan", "MAX"), ("-inf", "MIN"), ("-inf", "+0"), ("-inf", "MIN"),
      ("nan", "+0")]),
    ([], [("MAX", "1")],
     [("MAX", "MAX"), ("MAX", "MAX"), ("+inf", "MAX"), ("-inf", "MIN"), ("+inf*", "MAX"), ("+0", "+0"), ("nan", "+0")]),
    ([], [("MIN", "1")],
     [("MIN", "MIN"), ("MIN", "MIN"), ("+inf", "MAX"), ("-inf", "MIN"), ("+0", "+0"), ("-inf", "MIN"), ("nan", "+0")]),
    ([("nan", "1"), ("nan", "MAX"), ("+0", "+inf"), ("+0", "-inf"), ("-0", "+inf"), ("-0", "-inf")], [],
     [("nan", "+0"), ("nan", "+0"), ("nan", "MAX"), ("nan", "MIN"), ("nan", "MAX"), ("nan", "MIN"), ("nan", "+0")]),
]
_T24_T25 = {  # (src0, src1) -> (INF/NaN, sat), None: the exact rows (+0; MAX +- 0 = MAX); D36's misfiled pairs out
    "AddRelu": [([("+0", "+0"), ("+0", "-0"), ("-0", "-0"), ("MAX", "+0")], None),
                ([("+inf", "+inf"), ("+inf", "MAX"), ("+inf", "MIN"), ("+0", "+inf"), ("-0", "+inf"), ("MAX", "MAX")],
                 ("+inf", "MAX")),
                ([("-inf", "-inf"), ("-inf", "MAX"), ("-inf", "MIN"), ("+0", "-inf"), ("MIN", "MIN"), ("MIN", "+0")],
                 ("+0", "+0")),
                ([("nan", "1"), ("nan", "MAX"), ("+inf", "-inf")], ("nan", "+0"))],
    "SubRelu": [([("+0", "+0"), ("+0", "-0"), ("-0", "+0"), ("MAX", "+0")], None),
                ([("+inf", "-inf"), ("+inf", "MAX"), ("+inf", "MIN"), ("+0", "-inf"), ("-0", "-inf"), ("MAX", "MIN"),
                  ("MAX", "-inf"), ("MIN", "-inf")], ("+inf", "MAX")),
                ([("-inf", "MAX"), ("-inf", "MIN"), ("-0", "+inf"), ("MIN", "+0")], ("+0", "+0")),
                ([("nan", "1"), ("nan", "MAX"), ("+inf", "+inf"), ("-inf", "-inf")], ("nan", "+0"))],
}


def _membv_multiply_add_rows(mixed):
    """(factor a, factor b, addend, INF/NaN result, sat result) of MemBV-T20/T21/T22."""
    rows = []
    for pairs, same_only, results in _T20_GROUPS:
        for a, b in pairs + ([] if mixed else same_only):
            for addend, (inf_nan, sat) in zip(_ADDENDS, results):
                rows.append((a, b, addend, inf_nan.rstrip("*"), sat.rstrip("*")))
    return rows


def _assert_special(got, want, table, bits, label):
    if want == "nan":
        assert (int(got) & ~(1 << (bits - 1))) > table["+inf"], label
    else:
        assert int(got) == table[want], (label, hex(int(got)))


@pytest.mark.parametrize("saturating", [False, True], ids=["inf-nan", "sat"])
def test_every_row_of_membv_t20_to_t25(device, saturating):
    """SPEC-2 12.0 / 12.2 (B-19 ... B-27): every row of the composite tables, one lane a row, on the devices whose
    mode the column describes (the 950 follows RegBV and D74 instead: B-22 ... B-24 there). Mixed half -> float
    shapes take the INF/NaN column (a float dst is never saturated)."""
    core = aj.Core(device)
    if device == "ascend950" or not set_sat_mode(core, saturating):
        pytest.skip("MemBV describes the A2 class; this device has no such mode")
    for name, mixed in (("Axpy", False), ("Axpy", True), ("MulAddDst", False), ("MulAddDst", True),
                        ("FusedMulAdd", False)):
        if (("float", "half") if mixed else ("half", "half")) not in _pairs(E.OPS[name], device):
            continue
        rows = _membv_multiply_add_rows(mixed)
        dt, table, u = ("float", _SPECIAL_FLOAT, np.uint32) if mixed else ("half", _SPECIAL_HALF, np.uint16)
        n = len(rows)
        a, b = (np.array([_SPECIAL_HALF[r[k]] for r in rows], np.uint16).view(np.float16) for k in (0, 1))
        c = np.array([table[r[2]] for r in rows], u).view(np.float32 if mixed else np.float16)
        dst, s0, s1 = core.local_tensor(dt, n), core.local_tensor("half", n), core.local_tensor("half", n)
        if name == "FusedMulAdd":      # dst = src0 * dst + src1
            s0[:], dst[:], s1[:] = a, b, c
            aj.FusedMulAdd(dst, s0, s1, n)
            got = dst.numpy().view(u)
        elif name == "MulAddDst":      # dst = src0 * src1 + dst
            s0[:], s1[:], dst[:] = a, b, c
            aj.MulAddDst(dst, s0, s1, n)
            got = dst.numpy().view(u)
        else:                          # dst = scalar * src + dst, one scalar a call
            got = np.empty(n, u)
            for k in range(n):
                s0[:1], dst[:1] = b[k:k + 1], c[k:k + 1]
                aj.Axpy(dst, s0, a[k], 1)
                got[k] = dst.numpy().view(u)[0]
        for k, row in enumerate(rows):
            _assert_special(got[k], row[4] if saturating and not mixed else row[3], table, 8 * np.dtype(u).itemsize,
                            (name, mixed, row))
        for t in (dst, s0, s1):
            core.free(t.addr)
    if ("half", "half") not in _pairs(E.OPS["AddRelu"], device):
        return
    for name, groups in _T24_T25.items():
        cases = [(x, y, res) for pairs, res in groups for x, y in pairs]
        n = len(cases)
        dst, s0, s1 = (core.local_tensor("half", n) for _ in range(3))
        s0[:] = np.array([_SPECIAL_HALF[x] for x, _, _ in cases], np.uint16).view(np.float16)
        s1[:] = np.array([_SPECIAL_HALF[y] for _, y, _ in cases], np.uint16).view(np.float16)
        getattr(aj, name)(dst, s0, s1, n)
        for k, (x, y, res) in enumerate(cases):
            want = ("MAX" if x == "MAX" else "+0") if res is None else res[1 if saturating else 0]
            _assert_special(dst.numpy().view(np.uint16)[k], want, _SPECIAL_HALF, 16, (name, x, y))
        for t in (dst, s0, s1):
            core.free(t.addr)


@pytest.mark.parametrize("saturating", [False, True], ids=["inf-nan", "sat"])
@pytest.mark.parametrize("dtype", ["half", "float"])
def test_every_row_of_regbv_t25_axpy_on_the_950(dtype, saturating):
    """SPEC-2 12.0 / 12.2 B-22 / 6.3: RegBV-T25 (950 Axpy) lists (src, scalar, dst) triples of the seven specials
    +-0, +-MAX, +-inf, NaN; its note says IEEE 754: every triple is the fma of the exact product, rounded once, then
    SAT for half in saturation mode (float never). All 343 triples, each scalar in one call."""
    specials = _SPECIAL_HALF if dtype == "half" else _SPECIAL_FLOAT
    u, np_type = (np.uint16, np.float16) if dtype == "half" else (np.uint32, np.float32)
    values = np.array([specials[k] for k in _ADDENDS], u).view(np_type)
    core = aj.Core("ascend950")
    set_sat_mode(core, saturating)
    src, dst = (core.local_tensor(dtype, 64) for _ in range(2))
    x, c = np.repeat(values, 7), np.tile(values, 7)   # every (src, dst) pair
    for scalar in values:
        src[:49], dst[:49] = x, c
        aj.Axpy(dst, src, scalar, 49)
        with np.errstate(all="ignore"):
            want = (np.float64(scalar) * x.astype(np.float64) + c.astype(np.float64)).astype(np_type)
        if saturating and dtype == "half":
            want = np.where(np.isnan(want), np_type(0), np.clip(want, -65504, 65504)).astype(np_type)
        got = dst.numpy()[:49]
        same = (got.view(u) == want.view(u)) | (np.isnan(got) & np.isnan(want))
        assert same.all(), (scalar, x[~same], c[~same], got[~same], want[~same])


def test_float_multiply_adds_round_the_exact_value_once(device):
    """SPEC-2 6.3, D37/D39 (spec2-audit): float32 MulAddDst / FusedMulAdd / Axpy round the exact a*b + c once. Two
    inputs where float64 arithmetic would round twice: (1+2^-12)^2 + 2^-80 lies just above a float32 tie that the
    float64 sum lands on (RN64 drops 2^-80: 0x3F801000 instead of 0x3F801001, on every device: D39 keeps a finite
    product exact); 18631*2^60 * 1801*2^43 is float32's overflow midpoint MAX + 2^103, so minus 2^-100 it is the
    950's fma MAX (float64 gives the tie, i.e. +inf), while D39's stage 1 on the other devices is RN(p) = +inf already.
    The overflow row skips 310P/910, whose fixed saturation mode D39 names for stage 1 (a float stage: D35 says never
    saturated; the SPEC leaves that pairing open)."""
    f32 = lambda bits: np.array([bits], np.uint32).view(np.float32)[0]  # noqa: E731
    rows = [(f32(0x3F800800), f32(0x3F800800), f32(0x17800000), 0x3F801001)]
    if device == "ascend950":
        rows.append((np.float32(18631 * 2.0 ** 60), np.float32(1801 * 2.0 ** 43), np.float32(-2.0 ** -100), 0x7F7FFFFF))
    elif not aj.Core(device).half_saturating:
        rows.append((np.float32(18631 * 2.0 ** 60), np.float32(1801 * 2.0 ** 43), np.float32(-2.0 ** -100), 0x7F800000))
    core = aj.Core(device)
    dst, s0, s1 = (core.local_tensor("float", 8) for _ in range(3))
    for name in ("MulAddDst", "FusedMulAdd", "Axpy"):
        if ("float", "float") not in _pairs(E.OPS[name], device):
            continue
        for a, b, c, want in rows:
            if name == "MulAddDst":       # dst = src0 * src1 + dst
                s0[:], s1[:], dst[:] = np.full(8, a), np.full(8, b), np.full(8, c)
                aj.MulAddDst(dst, s0, s1, 8)
            elif name == "FusedMulAdd":   # dst = src0 * dst + src1
                s0[:], dst[:], s1[:] = np.full(8, a), np.full(8, b), np.full(8, c)
                aj.FusedMulAdd(dst, s0, s1, 8)
            else:                         # dst = scalar * src + dst
                s0[:], dst[:] = np.full(8, b), np.full(8, c)
                aj.Axpy(dst, s0, a, 8)
            assert (dst.numpy().view(np.uint32) == want).all(), (name, a, b, c, hex(want), dst.numpy()[:1])


def _f32_of_exact(q):
    """The float32 nearest the rational q, ties to even, past the overflow midpoint +-inf (the reference of a single
    rounding, computed on the exact value)."""
    if q == 0:
        return 0.0
    sign, q = (-1.0 if q < 0 else 1.0), abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    e += 1 if Fraction(2) ** (e + 1) <= q else (-1 if Fraction(2) ** e > q else 0)
    step = Fraction(2) ** (max(e, -126) - 23)          # the float32 spacing at q (the subnormal one below 2**-126)
    n, rest = divmod(q / step, 1)
    n += rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1)
    value = n * step
    return sign * math.inf if value >= Fraction(2) ** 128 else sign * float(value)


@pytest.mark.parametrize("device", ["ascend950", "atlas-a2"])
def test_float_mul_add_dst_rounds_the_exact_value_once_over_random_and_tie_lanes(device):
    """SPEC-2 6.3 (D37/D39): float32 MulAddDst against the exact a*b + c rounded once, over 4096 lanes of random
    magnitudes, cancellations and sums built to land on and beside float32 ties and in the subnormal range (the
    lanes' branch-free round-to-odd, jit/lanes.py float_fma_lane; D39 keeps a finite product exact on the A2)."""
    rng = np.random.default_rng(65)
    n = 4096
    e = rng.integers(-140, 60, n).astype(np.float64)
    a = (rng.standard_normal(n) * 2.0 ** (e / 2)).astype(np.float32)
    b = (rng.standard_normal(n) * 2.0 ** (e / 2)).astype(np.float32)
    c = (rng.standard_normal(n) * 2.0 ** e).astype(np.float32)
    c[::4] = -(a[::4].astype(np.float64) * b[::4]).astype(np.float32)            # cancellation
    # products of 13-bit integers: 25 or 26 significant bits, often a float32 midpoint, which a tiny c moves off
    # (float64's sum drops c there and rounds the tie to even: twice rounded)
    ints = rng.integers(2 ** 12, 2 ** 13, (2, n // 4)) * rng.choice([-1, 1], (2, n // 4))
    scale = 2.0 ** rng.integers(-30, 30, (2, n // 4))
    a[1::4], b[1::4] = (ints * scale).astype(np.float32)
    c[1::4] = (a[1::4].astype(np.float64) * b[1::4] * 2.0 ** -70 * rng.choice([-1, 1], n // 4)).astype(np.float32)
    core = aj.Core(device)
    dst, s0, s1 = (core.local_tensor("float", n) for _ in range(3))
    s0[:], s1[:], dst[:] = a, b, c
    aj.MulAddDst(dst, s0, s1, n)
    want = np.array([_f32_of_exact(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
                     for x, y, z in zip(a, b, c)], np.float32)
    got = dst.numpy()
    same = (got.view(np.uint32) == want.view(np.uint32)) | ((got == 0) & (want == 0))   # an exact 0's sign: D37
    assert same.all(), (a[~same][:4], b[~same][:4], c[~same][:4], got[~same][:4], want[~same][:4])


def test_decision_vectors_950():
    """H-16 (integer Div), H-20 (Reciprocal FTZ sign), H-6 (DAZ of Ln/Sqrt INTRINSIC), D49 domain."""
    core = aj.Core("ascend950")
    d, a, b = (core.local_tensor("int32", 8) for _ in range(3))
    a[:] = [-7, 7, -2**31, 9, 0, 0, 0, 0]
    b[:] = [2, 0, -1, -4, 1, 1, 1, 1]
    aj.Div(d, a, b, 8)
    assert list(d.numpy()[:4]) == [-3, -1, -2**31, -2]
    f = core.local_tensor("float", 8)

    def src(*bits):
        t = core.local_tensor("float", 8)
        t[:] = np.array(list(bits) + [0] * (8 - len(bits)), np.uint32).view(np.float32)
        return t
    aj.Reciprocal(f, src(0xFF000000), 1)
    assert f.numpy().view(np.uint32)[0] == 0x80000000
    aj.Ln(f, src(0x00000001, 0x00800000), 2)
    assert f.numpy()[0] == -np.inf and abs(f.numpy()[1] - np.log(np.float64(2.0**-126))) < 1e-4
    aj.Sqrt(f, src(0x00000004), 1)
    assert f.numpy().view(np.uint32)[0] == 0
    aj.Sqrt(f, src(0x00000004, 0x7F000000), 2, config=aj.SqrtConfig(aj.SqrtAlgo.FAST_INVERSE))  # D49
    assert f.numpy()[0] == np.sqrt(np.array([4], np.uint32).view(np.float32))[0] and f.numpy().view(np.uint32)[1] == 0


# --- every half against a 512-partner grid, bit for bit (BIT-EXACT binary and tensor-scalar lanes) --------------------
def half_partner_grid():
    """512 partners: signed zeros, subnormals, values around rounding boundaries, the largest finite values, the
    infinities, NaN, then random halves."""
    special = [0x0000, 0x8000, 0x0001, 0x8001, 0x0002, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x0401, 0x3C00, 0xBC00,
               0x3C01, 0xBC01, 0x3BFF, 0x3800, 0x3E00, 0x4000, 0x4001, 0x6400, 0x6401, 0x6800, 0x67FF, 0x1400,
               0x1001, 0x7BFF, 0xFBFF, 0x7BFE, 0xFBFE, 0x7800, 0x5BFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE00]
    rng = np.random.default_rng(512)
    extra = rng.integers(0, 1 << 16, 512 - len(special), dtype=np.uint32)
    return np.concatenate([np.array(special, np.uint32), extra]).astype(np.uint16)


GRID_OPS = ["Add", "Sub", "Mul", "Div", "Max", "Min", "AddRelu", "SubRelu", "Adds", "Muls", "Maxs", "Mins",
            "LeakyRelu"]


def _half_bits(values):
    with np.errstate(all="ignore"):
        bits = np.asarray(values, np.float64).astype(np.float16).view(np.uint16).copy()
    bits[np.isnan(values)] = 0x7E00
    return bits


def _grid(device, saturating, name, partners=512):
    core = aj.Core(device)
    if not set_sat_mode(core, saturating):
        pytest.skip(f"{device} has no such mode")
    row = E.OPS[name]
    if "half" not in row.dtypes.get(device, ()):
        pytest.skip(f"{name} half not on {device}")
    env = env_of(core)
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    n = 1 << 15
    dst, a, b = (core.local_tensor("half", n) for _ in range(3))
    for partner in half_partner_grid()[:partners]:
        pv = float(np.array([partner]).view(np.float16)[0])
        b[:] = np.full(n, partner, np.uint16).view(np.float16)
        for part in (every[:n], every[n:]):
            a[:] = part.view(np.float16)
            if row.arity == "binary":
                E.ENTRIES[name](dst, a, b, n)
                want = row.reference("half", env, part.view(np.float16).astype(np.float64), np.full(n, pv))
            else:
                E.ENTRIES[name](dst, a, np.float16(pv), n)
                want = row.reference("half", env, part.view(np.float16).astype(np.float64), np.full(n, pv))
            got = dst.numpy().view(np.uint16)
            expected = _half_bits(want)
            if not np.array_equal(got, expected):
                k = int(np.argmax(got != expected))
                raise AssertionError(f"{name} on {device}: {hex(part[k])} op {hex(partner)} gave {hex(got[k])}, "
                                     f"reference {hex(expected[k])}")


@pytest.mark.parametrize("saturating", [False, True], ids=["inf-nan", "sat"])
@pytest.mark.parametrize("name", GRID_OPS)
def test_every_half_against_the_partner_grid(saturating, name):
    """The default run: every special partner and 28 random ones; the full 512 on every device is marked slow."""
    _grid("atlas-a2", saturating, name, partners=64)


@pytest.mark.slow
@pytest.mark.parametrize("saturating", [False, True], ids=["inf-nan", "sat"])
@pytest.mark.parametrize("name", GRID_OPS)
@pytest.mark.parametrize("device", [d for d in DEVICES if d != "atlas-a2"])
def test_every_half_against_the_partner_grid_every_device(device, saturating, name):
    _grid(device, saturating, name)


def test_950_div_ftz_half_grid_sample():
    """The 950's default Div algorithm flushes subnormal halves (D38): a sample of the grid on the 950."""
    core = aj.Core("ascend950")
    env = env_of(core)
    n = 1 << 14
    dst, a, b = (core.local_tensor("half", n) for _ in range(3))
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    for partner in half_partner_grid()[:40]:
        b[:] = np.full(n, partner, np.uint16).view(np.float16)
        for k in range(4):
            part = every[k * n:(k + 1) * n]
            a[:] = part.view(np.float16)
            aj.Div(dst, a, b, n)
            want = R.div("half", env, part.view(np.float16).astype(np.float64),
                         np.full(n, float(np.array([partner]).view(np.float16)[0])))
            assert np.array_equal(dst.numpy().view(np.uint16), _half_bits(want))


# --- refusals (SPEC-2 1.8, 2.4, D29, D32, D48, D60): right class, API named, UB and mask register unchanged ------------
def _refuses(core, call, error, *words):
    core.SetVectorMask(0, 0x1234)
    before = core.ub.copy()
    with pytest.raises(error) as info:
        call()
    assert np.array_equal(core.ub, before)
    assert (core.mask_high, core.mask_low) == (0, 0x1234)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_refusals(device):
    core = aj.Core(device)
    random_ub(core, 11)
    h = [core.local_tensor("half", 256) for _ in range(3)]
    i16 = [core.local_tensor("int16", 256) for _ in range(2)]
    f = core.local_tensor("float", 256)
    is950 = device == "ascend950"
    if "int16" in E.ADDS.dtypes[device]:
        _refuses(core, lambda: aj.Adds(i16[0], i16[1], 40000, 16), aj.ParameterError, "Adds", "scalar", "32767")
        _refuses(core, lambda: aj.Adds(i16[0], i16[1], True, 16), aj.ParameterError, "bool")
        _refuses(core, lambda: aj.Muls(i16[0], i16[1], 1.5, 16), aj.ParameterError, "Muls")
    else:
        _refuses(core, lambda: aj.Adds(i16[0], i16[1], 2, 16), aj.UnsupportedDTypeError, "int16", device)
    _refuses(core, lambda: aj.Adds(h[0], h[1], False, 16), aj.ParameterError, "bool")
    _refuses(core, lambda: aj.Sub(h[0], f, h[1], 16), aj.UnsupportedDTypeError, "Sub", "src0.dtype", device)
    _refuses(core, lambda: aj.And(h[0], h[1], h[2], 16), aj.UnsupportedDTypeError, "And", "half")
    _refuses(core, lambda: aj.Or(h[0], h[1], h[2], 16), aj.UnsupportedDTypeError, "Or")
    _refuses(core, lambda: aj.Sub(h[0], h[1], h[2], 128, 256, aj.BinaryRepeatParams()), aj.ParameterError,
             "repeat_time", "[0, 255]")
    _refuses(core, lambda: aj.Sub(h[0], h[1], h[2], 128, 1, (0, 1, 1, 8, 8, 8)), aj.ParameterError, "dstBlkStride")
    _refuses(core, lambda: aj.Abs(h[0], h[1], 128, 1, (1, 65536, 8, 8)), aj.ParameterError, "srcBlkStride")
    _refuses(core, lambda: aj.Sub(h[0], h[1], h[2], 128, 2, (1, 1, 1, 16, 8, 8)), aj.OutOfBoundsError, "dst")
    _refuses(core, lambda: aj.Sub(h[0], h[1], h[2], 300), aj.OutOfBoundsError, "count")
    _refuses(core, lambda: aj.Sub(h[0], h[1], h[2], 16, is_set_mask=False), TypeError)
    _refuses(core, lambda: aj.Exp(h[0], h[1], 16, is_set_mask=True), TypeError)
    part = core.local_tensor("half", 128, addr=h[1].addr + 64)
    _refuses(core, lambda: aj.Mul(part, h[1], h[2], 128), aj.OverlapError)
    i32 = [core.local_tensor("int32", 64) for _ in range(3)]
    for t in i32:
        t[:] = np.arange(64, dtype=np.int32)
    if is950:
        aj.And(*i32, 64)
        _refuses(core, lambda: aj.Div(h[0], h[1], h[2], 16, config=aj.DivConfig(aj.DivAlgo.DIFF_COMPENSATION)),
                 aj.ParameterError, "config")
        _refuses(core, lambda: aj.Sub(*[core.local_tensor("int8", 256) for _ in range(3)], 256, 1,
                                      aj.BinaryRepeatParams()), aj.UnsupportedDTypeError, "count form")
        _refuses(core, lambda: aj.Sub(h[0], h[1], h[2], 0, 1, aj.BinaryRepeatParams()), aj.ParameterError, "mask")
    else:
        _refuses(core, lambda: aj.And(*i32, 64), aj.UnsupportedDTypeError, "D60", "ReinterpretCast")
        bf = [core.local_tensor("bfloat16", 64) for _ in range(3)]
        _refuses(core, lambda: aj.Sub(*bf, 64), aj.UnsupportedDTypeError, "bfloat16", device)
        _refuses(core, lambda: aj.Div(*i32, 64), aj.UnsupportedDTypeError, "Div")
        _refuses(core, lambda: aj.Exp(h[0], h[1], 16, config=aj.ExpConfig(aj.ExpAlgo.PRECISION_1ULP_FTZ_FALSE)),
                 aj.UnsupportedDeviceError, "config")
        if not core.counter_mode and core.spec.name != "atlas-training":
            _refuses(core, lambda: aj.Adds(h[0], h[1], 1.0, 16, is_set_mask=False), aj.StateError, "SetMaskCount")
    if device == "atlas-training":
        _refuses(core, lambda: aj.Maxs(h[0], h[1], 1.0, 16), aj.UnsupportedDeviceError, "Maxs")
    mixed_dst = core.local_tensor("float", 64, addr=h[1].addr)
    if ("half", "float") in (E.MUL_ADD_DST.mixed or {}).get(device, ()):
        _refuses(core, lambda: aj.MulAddDst(mixed_dst, h[1], h[2], 64), aj.OverlapError, "D34")


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_multiply_adds_refuse_a_later_repeat_reading_an_earlier_repeats_dst(device):
    """SPEC 8.2: an earlier iteration's dst must not be a later iteration's src, and the multiply-adds read dst
    (SPEC-2 6.3). Repeats whose dst bytes meet, dstRepStride 0 or a stride shorter than a repeat, were accepted and
    ran in sequence (audit14b); repeats apart still run."""
    core = aj.Core(device)
    d, a, b = (core.local_tensor("half", 512) for _ in range(3))
    random_ub(core, 5)
    with core:
        for dst_rep in (0, 4):
            params = aj.BinaryRepeatParams(1, 1, 1, dst_rep, 8, 8)
            _refuses(core, lambda: aj.FusedMulAdd(d, a, b, 128, 2, params), aj.OverlapError, "repeat 0 writes")
            _refuses(core, lambda: aj.MulAddDst(d, a, b, 128, 2, params), aj.OverlapError, "SPEC 8.2")
        _refuses(core, lambda: aj.Axpy(d, a, 2.0, 128, 3, aj.UnaryRepeatParams(1, 1, 0, 8)), aj.OverlapError,
                 "repeat 2 reads")
        aj.FusedMulAdd(d, a, b, 128, 2, aj.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
        aj.Axpy(d, a, 2.0, 128, 1, aj.UnaryRepeatParams(1, 1, 0, 8))   # one repeat reads only its own dst


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync", reason="runs the bounds=\"ub\" escape hatch, which the "
                             "memory check reports by design")
def test_tensor_bounds_rule_and_the_ub_escape_hatch():
    """Every byte through an operand inside its tensor (bounds="tensor"), only the UB with bounds="ub"."""
    for bounds, ok in (("tensor", False), ("ub", True)):
        core = aj.Core("atlas-a2", bounds=bounds)
        d, a, b = (core.local_tensor("half", 128) for _ in range(3))
        big = core.local_tensor("half", 4096)
        for t in (a, b, big):
            t[:] = np.ones(t.size, np.float16)
        call = lambda: aj.Sub(d, a, b, 128, 2, aj.BinaryRepeatParams(1, 1, 1, 8, 8, 8))  # noqa: E731
        if ok:
            call()
        else:
            _refuses(core, call, aj.OutOfBoundsError, "dst", "bounds")
        del big


def test_operators_and_expressions():
    core = aj.Core("atlas-a2")
    d, a, b = (core.local_tensor("int16", 256) for _ in range(3))
    a[:] = np.arange(1, 257)
    b[:] = 7
    for expr, want in ((lambda: a - b, np.arange(1, 257) - 7), (lambda: a * b, np.arange(1, 257) * 7),
                       (lambda: a & b, np.arange(1, 257) & 7), (lambda: a | b, np.arange(1, 257) | 7),
                       (lambda: a + b, np.arange(1, 257) + 7)):
        d[:] = expr()
        assert np.array_equal(d.numpy(), want.astype(np.int16))
    h, x, y = (core.local_tensor("half", 128) for _ in range(3))
    x[:] = 3
    y[:] = 2
    h[:] = x / y
    assert (h.numpy() == 1.5).all()
    with pytest.raises(TypeError):
        bool(a - b)
    with pytest.raises(TypeError):
        if a * b:
            pass
    assert hash(a) != hash(b) and {a: 1}[a] == 1  # identity hashing kept
    short = core.local_tensor("int16", 10)

    def assign():
        d[:] = short - a
    _refuses(core, assign, aj.OutOfBoundsError, "operator-")


def test_counter_mode_and_is_set_mask():
    """D32: tensor-scalar count forms read the counter-mode register with is_set_mask=False (non-950); high-dim
    forms in counter mode take the mask argument (or the register) as the element count."""
    core = aj.Core("atlas-a2")
    d, s = core.local_tensor("half", 512), core.local_tensor("half", 512)
    s[:] = 1
    with core:
        aj.SetMaskCount()
        aj.SetVectorMask(130)
        aj.Adds(d, s, 2.0, 1, is_set_mask=False)  # count 1 is ignored: the register holds 130
        assert (d.numpy()[:130] == 3).all() and (d.numpy()[130:] == 0).all()
        d[:] = 0
        aj.SetMaskCount()
        aj.Exp(d, s, 200, 5, aj.UnaryRepeatParams())  # mask = 200 elements, repeat_time ignored
        assert (d.numpy()[:200] != 0).all() and (d.numpy()[200:] == 0).all()
        aj.SetMaskNorm()


@pytest.mark.parametrize("dtype", ["half", "float", "int32"])
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_a_bit_mask_in_counter_mode_counts_mask0_and_ignores_mask1_for_every_width(device, dtype):
    """SPEC-2 1.4: in counter mode a bit-form mask's count is mask[0]; mask[1] is ignored for every width (SPEC
    2.1's `mask[1] = 0` for 32-bit types is the normal mode's layout: it refused [100, 1] for float and int32 while
    half ran it; audit18e). ReduceSum on the 950 reads it alike."""
    core = aj.Core(device)
    d, s = core.local_tensor(dtype, 256), core.local_tensor(dtype, 256)
    s[:] = np.ones(256, d.numpy().dtype)
    with core:
        aj.SetMaskCount()
        aj.Adds(d, s, 2, [100, 1], 4, aj.UnaryRepeatParams())
        aj.SetMaskNorm()
    assert (d.numpy()[:100] == 3).all() and (d.numpy()[100:] == 0).all()
    if device == "ascend950" and dtype != "int32":
        tmp = core.local_tensor(dtype, 256)
        with core:
            aj.SetMaskCount()
            aj.ReduceSum(d, s, tmp, [100, 2**63], 4, 8)
            aj.SetMaskNorm()
        assert d.numpy()[0] == 100


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-inference-aicore", "atlas-training"])
def test_count_form_reading_the_register_refuses_what_the_high_dim_form_refuses(device):
    """D32's count forms with is_set_mask=False read the same counter-mode register as the high-dim forms, so they
    refuse the same registers (audit14b): an undefined one (D31: after a non-950 ReduceMax the count they had used
    was the stale 100) and a count past the UB (decisions.md "Counter-mode counts": SetVectorMask(2**32 + 5) had
    run 5 elements, the low 32 bits, where the high-dim form refuses the whole register, SPEC 2.6)."""
    core = aj.Core(device)
    d, s, tmp = core.local_tensor("half", 512), core.local_tensor("half", 512), core.local_tensor("half", 1024)
    s[:] = np.ones(512, np.float16)
    core.SetMaskCount()
    core.SetVectorMask(100, dtype="half")
    aj.ReduceMax(d, s, tmp, 256, True)  # D31: leaves the register undefined off the 950
    assert not core.mask_defined
    before = core.ub.copy()
    with pytest.raises(aj.StateError, match="mask register") as info:
        aj.Muls(d, s, 3.0, 1, is_set_mask=False)
    assert info.value.legal and info.value.device == device  # errors.py: every refusal names the legal state
    assert np.array_equal(core.ub, before)
    core.SetMaskNorm()
    with pytest.raises(aj.StateError, match="SetMaskCount") as info:
        aj.Muls(d, s, 3.0, 1, is_set_mask=False)
    assert info.value.legal
    core.SetMaskCount()
    core.SetVectorMask(2**32 + 5, dtype="half")
    with pytest.raises(aj.ParameterError, match=r"mask register \(counter-mode count\)' = 4294967301"):
        aj.Muls(d, s, 3.0, 1, is_set_mask=False)
    assert np.array_equal(core.ub, before)
    assert (core.mask_low, core.counter_mode) == (2**32 + 5, True)


def test_mask_register_after_calls():
    """D31: count forms as count Add; high-dim forms leave their own mask (950: bit-mask calls only)."""
    for device, after_count in (("atlas-a2", (2**64 - 1, 2**64 - 1)), ("ascend950", (0, 5))):
        core = aj.Core(device)
        d, a, b = (core.local_tensor("float", 128) for _ in range(3))
        a[:], b[:] = np.ones(128, np.float32), np.ones(128, np.float32)
        core.SetVectorMask(0, 5)
        aj.Mul(d, a, b, 100)
        assert (core.mask_high, core.mask_low) == after_count
        aj.Sub(d, a, b, [0xFF], 1, aj.BinaryRepeatParams())
        assert (core.mask_high, core.mask_low) == (0, 0xFF)
        aj.Relu(d, a, 16, 0, aj.UnaryRepeatParams())  # repeat 0: a NOP that still sets the mask (D30)
        assert (core.mask_high, core.mask_low) == ((0, 0xFFFF) if device == "atlas-a2" else (0, 0xFF))


def test_mask_register_after_high_dim_calls_on_the_310b():
    """SPEC-2 D31: on the 310B the high-dim element-wise calls and Duplicate leave the register untouched (as Cast,
    Select and Gather there); SPEC.md's Add keeps SPEC D22's rule (its own mask)."""
    core = aj.Core("atlas-200i-500-a2")
    d, a, b = (core.local_tensor("half", 256) for _ in range(3))
    a[:], b[:] = np.ones(256, np.float16), np.ones(256, np.float16)   # the calls read them
    calls = [lambda m: aj.Sub(d, a, b, m, 2, aj.BinaryRepeatParams()),
             lambda m: aj.Muls(d, a, 2.0, m, 2, aj.UnaryRepeatParams()),
             lambda m: aj.Exp(d, a, m, 2, aj.UnaryRepeatParams()),
             lambda m: aj.FusedMulAdd(d, a, b, m, 2, aj.BinaryRepeatParams()),
             lambda m: aj.Duplicate(d, 1.0, m, 2, 1, 8)]
    for call in calls:
        for mask in (100, [5, 7], 0):
            core.SetVectorMask(0x1234, 0x5678)
            call(mask)
            assert (core.mask_high, core.mask_low) == (0x1234, 0x5678)
    aj.Add(d, a, b, [5, 7], 2, aj.BinaryRepeatParams())
    assert (core.mask_high, core.mask_low) == (7, 5)


def test_an_instruction_the_device_lacks_is_refused_as_such_first():
    """SPEC-2 1.8/1.9: UnsupportedDeviceError names the missing instruction even when other arguments are wrong too
    (they raised ParameterError first)."""
    core = aj.Core("atlas-training")
    d, s = core.local_tensor("half", 256), core.local_tensor("half", 256)
    for call in (lambda: aj.Maxs(d, s, 1.0, [1, 1, 1], 1, aj.UnaryRepeatParams()),
                 lambda: aj.LeakyRelu(d, s, 1.0, -1),
                 lambda: aj.AddRelu(d, s, s, 128, 256, aj.BinaryRepeatParams()),
                 lambda: aj.Brcb(d, s, 256, (0, 8))):
        with pytest.raises(aj.UnsupportedDeviceError, match="does not offer"):
            call()
    core = aj.Core("atlas-a2")  # a dtype the device lacks, with a mask only legal for 16/32-bit lanes
    t = [core.local_tensor("int64", 64) for _ in range(3)]
    for call in (lambda: aj.Sub(*t, [2**64 - 1], 1, aj.BinaryRepeatParams()),
                 lambda: aj.Duplicate(t[0], 1, [2**64 - 1], 1, 1, 8)):
        with pytest.raises(aj.UnsupportedDTypeError):
            call()


def test_scalar_conversion_d29():
    core = aj.Core("atlas-a2")
    d, s = core.local_tensor("half", 16), core.local_tensor("half", 16)
    s[:] = 0
    aj.Adds(d, s, 0.1, 16)  # one RNE rounding of the double 0.1
    assert d.numpy().view(np.uint16)[0] == np.float16(0.1).view(np.uint16)
    aj.Adds(d, s, 1e6, 16)  # overflow to inf, never saturated (then the add: inf)
    assert np.isinf(d.numpy()[0])
    aj.Adds(d, s, np.float16(-0.0), 16)
    assert d.numpy().view(np.uint16)[0] == 0x0000  # +0 + -0 = +0


def test_wrong_arity_names_the_device():
    """DESIGN.md 2 / SPEC-2 1.8: a call fitting neither form is a ParameterError naming API, value, legal forms and
    the device (it named no device)."""
    core = aj.Core("atlas-inference-aicore")
    h, f = core.local_tensor("half", 128), core.local_tensor("float", 128)
    before = core.ub.copy()
    for call in (lambda: aj.MulAddDst(h, h, h, 128, 1), lambda: aj.AddRelu(h, h, h, 128, 1, None, 3),
                 lambda: aj.Axpy(f, h, 1.0, 64, 1), lambda: aj.Abs(h, h, 128, 1),
                 lambda: aj.Cast(f, h, aj.RoundMode.CAST_NONE, 64, 1)):
        with pytest.raises(aj.ParameterError, match="arguments.*atlas-inference-aicore"):
            call()
    assert np.array_equal(core.ub, before)


def test_high_dim_values_mix_positional_and_keyword():
    """SPEC-2 1.1: positional arguments follow the C++ order and every parameter is also a keyword. A high-dim call
    may give its leading values positionally and the rest by keyword (`Adds(d, s, 1.0, 128, repeat_time=2,
    repeat_params=p)` ran the count form over 128 elements, ignoring repeat_time and repeat_params; `Sub(d, a, b,
    128, 2, repeat_params=p)` was refused); a value given twice, a missing one or count= with the high-dim values is
    a ParameterError and writes nothing."""
    core = aj.Core("atlas-a2")
    s, b, d = (core.local_tensor("half", 512) for _ in range(3))
    s[:] = np.full(512, 2.0, np.float16)
    b[:] = np.zeros(512, np.float16)   # Sub reads it: s - 0
    calls = {"Adds": (lambda *a, **k: aj.Adds(d, s, 1.0, *a, **k), aj.UnaryRepeatParams(1, 1, 16, 8), 3.0),
             "Sub": (lambda *a, **k: aj.Sub(d, s, b, *a, **k), aj.BinaryRepeatParams(1, 1, 1, 16, 8, 8), 2.0),
             "Exp": (lambda *a, **k: aj.Exp(d, s, *a, **k), aj.UnaryRepeatParams(1, 1, 16, 8), None)}
    # Duplicate's high-dim values are mask, repeat_time, dst_block_stride, dst_repeat_stride (SPEC-2 5.1)
    duplicate = {"dst_block_stride": 1, "dst_repeat_stride": 16}
    want_at = np.concatenate([np.arange(128), np.arange(256, 384)])   # two repeats, dstRepStride 16 blocks
    for name, (call, params, value) in calls.items():
        for args, kw in (((128,), {"repeat_time": 2, "repeat_params": params}),
                         ((128, 2), {"repeat_params": params}),
                         ((), {"mask": 128, "repeat_time": 2, "repeat_params": params})):
            d[:] = np.zeros(512, np.float16)
            call(*args, **kw)
            got = d.numpy()
            assert np.array_equal(np.nonzero(got)[0], want_at), (name, args, kw)
            if value is not None:
                assert (got[want_at] == value).all(), (name, args, kw)
        before = core.ub.copy()
        for args, kw, why in (((128, 2, params), {"repeat_time": 2}, "repeat_time given both"),
                              ((128,), {"repeat_time": 2}, "lacks repeat_params"),
                              ((128,), {"count": 12}, "count= together"),
                              ((), {"mask": 128, "repeat_time": 2, "repeat_params": params, "count": 12},
                               "count= together")):
            with pytest.raises(aj.ParameterError, match=why):
                call(*args, **kw)
        assert np.array_equal(core.ub, before), name
    for args, kw in (((128,), {"repeat_time": 2, **duplicate}), ((128, 2, 1), {"dst_repeat_stride": 16}),
                     ((), {"mask": 128, "repeat_time": 2, **duplicate})):
        d[:] = np.zeros(512, np.float16)
        aj.Duplicate(d, 5.0, *args, **kw)
        assert np.array_equal(np.nonzero(d.numpy())[0], want_at), ("Duplicate", args, kw)
    before = core.ub.copy()
    for args, kw, why in (((128, 2, 1, 16), {"repeat_time": 2}, "repeat_time given both"),
                          ((128,), {"repeat_time": 2}, "lacks dst_block_stride, dst_repeat_stride"),
                          ((128,), {"count": 12}, "count= together")):
        with pytest.raises(aj.ParameterError, match=why):
            aj.Duplicate(d, 5.0, *args, **kw)
    assert np.array_equal(core.ub, before)


def test_scalar_keyword_is_the_snake_case_of_scalar_value():
    """SPEC-2 1.1: every parameter is also a keyword with the snake_case of its C++ name; the scalar of Adds, Muls,
    Maxs, Mins, LeakyRelu, Axpy and Duplicate is `scalarValue` (DK prototypes), Duplicate's tensor source `src`."""
    core = aj.Core("ascend950")
    d, s = core.local_tensor("half", 128), core.local_tensor("half", 128)
    s[:] = np.ones(128, np.float16)
    for name in ("Adds", "Muls", "Maxs", "Mins", "LeakyRelu", "Axpy"):
        d[:] = np.zeros(128, np.float16)
        getattr(aj, name)(d, s, scalar_value=3.0, count=128)
        by_keyword = d.numpy().copy()
        d[:] = np.zeros(128, np.float16)
        getattr(aj, name)(d, s, 3.0, 128)
        assert np.array_equal(by_keyword.view(np.uint16), d.numpy().view(np.uint16)), name
        getattr(aj, name)(d, s, scalar_value=3.0, mask=128, repeat_time=1, repeat_params=aj.UnaryRepeatParams())
        with pytest.raises(TypeError, match="scalar twice"):
            getattr(aj, name)(d, s, 3.0, scalar_value=3.0, count=128)
    aj.Duplicate(d, scalar_value=7.0, count=128)
    assert (d.numpy() == 7).all()
    aj.Duplicate(d, scalar_value=5.0, mask=64, repeat_time=1, dst_block_stride=1, dst_repeat_stride=8)
    assert (d.numpy()[:64] == 5).all() and (d.numpy()[64:] == 7).all()
    aj.Duplicate(d, src=s, count=128)
    assert (d.numpy() == 1).all()
    aj.Duplicate(d, scalar=4.0, count=128)   # SPEC-2 5.1's call shape names it `scalar`, as Adds/Axpy take it
    assert (d.numpy() == 4).all()
    aj.Duplicate(d, scalar=6.0, mask=64, repeat_time=1, dst_block_stride=1, dst_repeat_stride=8)
    assert (d.numpy()[:64] == 6).all() and (d.numpy()[64:] == 4).all()
    with pytest.raises(TypeError, match="scalar twice"):
        aj.Duplicate(d, scalar=1.0, scalar_value=1.0, count=128)


# --- MODELLED instructions (SPEC-2 0.3, D37, D73): the 950's 1-ulp modes within 1 ulp, determinism ----------------
def _ulp_distance(a, b, dtype):
    u = np.uint16 if dtype == "half" else np.uint32
    s = np.int64(1 << (16 if dtype == "half" else 32) - 1)
    ia, ib = a.view(u).astype(np.int64), b.view(u).astype(np.int64)
    ia = np.where(ia >= s, s - ia, ia)
    ib = np.where(ib >= s, s - ib, ib)
    return np.abs(ia - ib)


@pytest.mark.parametrize("name", ["Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal", "Div"])
@pytest.mark.parametrize("dtype", ["half", "float"])
def test_950_one_ulp_modes_within_one_ulp(name, dtype):
    """Every half (or 4096 random floats) through the 950's 1-ulp algorithms: within 1 ulp of the exact result
    rounded once (the reference), the special values exactly."""
    core = aj.Core("ascend950")
    row = E.OPS[name]
    if dtype == "half":
        bits = np.arange(0, 1 << 16, 7, dtype=np.uint32).astype(np.uint16)
    else:
        bits = np.random.default_rng(5).integers(0, 1 << 32, 2048, dtype=np.uint64).astype(np.uint32)
    vals = bits.view(np.float16 if dtype == "half" else np.float32)
    n = vals.size
    d, s, t = (core.local_tensor(dtype, n) for _ in range(3))
    s[:] = vals
    t[:] = np.float32(1.5)
    algo = row.config.__dataclass_fields__["algo"].type.PRECISION_1ULP_FTZ_FALSE
    if name == "Div":
        aj.Div(d, s, t, n, config=row.config(algo))
        want = R.div(dtype, R.Env("ascend950", algo="PRECISION_1ULP_FTZ_FALSE"), vals.astype(np.float64),
                     np.full(n, 1.5))
    else:
        E.ENTRIES[name](d, s, n, config=row.config(algo))
        want = row.reference(dtype, R.Env("ascend950", algo="PRECISION_1ULP_FTZ_FALSE"), vals.astype(np.float64))
    got = d.numpy()
    want = want.astype(got.dtype)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    special = ~nan & (np.isinf(want) | (want == 0))
    assert np.array_equal(got[special].view(np.uint32 if dtype == "float" else np.uint16),
                          want[special].view(np.uint32 if dtype == "float" else np.uint16))
    assert _ulp_distance(got[~nan], want[~nan], dtype).max() <= 1


@pytest.mark.skipif(__import__("os").environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled")
def test_half_binary_forms_share_one_compiled_half_run():
    """Issue 20: the count and high-dim forms of every half binary and tensor-scalar instruction run one compiled
    half_binary_run (a literal argument at one call site would compile a second specialisation). A kernel loaded
    from the numba cache compiles no helper (0 signatures); a cold cache, as in CI, compiles exactly one."""
    from ascend_jit.jit import elementwise as K
    core = aj.Core("atlas-a2")
    d, a, b = (core.local_tensor("half", 512) for _ in range(3))
    a[:], b[:] = np.ones(512, np.float16), np.ones(512, np.float16)   # the calls read them
    aj.Add(d, a, b, 256)
    aj.Sub(d, a, b, [2**64 - 1, 1], 2, aj.BinaryRepeatParams())
    aj.Adds(d, a, 1.5, 256)
    aj.Muls(d, a, 1.5, [7, 7], 2, aj.UnaryRepeatParams())
    aj.Add(d, d, b, 256)  # in place
    aj.Max(d, a, b, 256)
    aj.Mins(d, a, 0.5, [7, 7], 2, aj.UnaryRepeatParams())
    aj.LeakyRelu(d, a, 0.5, 256)
    assert len(K.half_binary_run.signatures) <= 1


def test_every_call_shape_has_one_dtype_class_marker():
    """Issue 20: the binary and unary kernels run only the code of the dtype class whose marker is not None, so a
    call whose markers named no class would leave dst unwritten, and two classes would run twice. Every row
    (ShiftRight's rounding row too), device, dtype pair and FTZ / Rsqrt-through-Div setting: exactly one class, and
    no marker beyond the kernel's classes (every op of a class shares its specialisation)."""
    from ascend_jit.jit import elementwise as K
    for row in [*E.OPS.values(), E.SHIFT_RIGHT_ROUND]:
        if row.arity not in ("binary", "scalar", "unary", "copy"):
            continue
        for device in aj.SUPPORTED_NAMES:
            for name in row.dtypes.get(device, ()):
                dtype = resolve(name)
                for flags in (0, K.FTZ, K.RSQRT_VIA_DIV):
                    classes = E._classes(row, dtype, flags, dtype.kind)
                    assert len(classes) == (4 if row.arity in ("binary", "scalar") else 3), (row, name)
                    assert sum(c is not None for c in classes) == 1, (row, name)


@pytest.mark.skipif(__import__("os").environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled")
def test_a_dtype_class_compiles_its_own_widths_only(tmp_path):
    """Issue 20: the integer class is split by element width and the multiply-add's half class has no float path:
    in a fresh process on an empty cache (so every helper the kernels pull in is compiled, and listed), the int16
    And/Or/Adds count and high-dim forms compile the 2-byte integer lanes alone (no int8/int32/int64 view), one
    signature of each binary kernel, and a half MulAddDst compiles no float/bfloat16 decode or store. A count call
    compiles no high-dim kernel and no lane gather (the forms are kernels of their own); a half Add compiles the
    half class alone (one signature of the count kernel and of half_binary_run), a half Exp the unary float lanes
    of the half class alone (float_class None: no float-only vectorised Exp)."""
    import os
    import subprocess
    import sys
    script = (
        "import ascend_jit as aj\n"
        "from ascend_jit.jit import elementwise as K\n"
        "core = aj.Core('atlas-a2')\n"
        "d, a, b = (core.local_tensor('int16', 256) for _ in range(3))\n"
        "aj.And(d, a, b, 256)\n"
        "from ascend_jit.jit import addressing\n"
        "print(len(K.binary_repeat_kernel.signatures), len(addressing.copy_lanes.signatures))\n"
        "aj.Or(d, a, b, [2**64 - 1, 1], 2, aj.BinaryRepeatParams())\n"
        "aj.Adds(d, a, 3, 256)\n"
        "h = [core.local_tensor('half', 256) for _ in range(3)]\n"
        "aj.MulAddDst(*h, 256)\n"
        "aj.Axpy(h[0], h[1], 0.5, [9, 9], 2, aj.UnaryRepeatParams())\n"
        "ints = lambda *fs, at=-1: sorted({str(sig[at]) for f in fs for sig in f.signatures})\n"
        "print(ints(K.binary_count_kernel, K.binary_repeat_kernel), ints(K.load_ints), ints(K.store_ints),\n"
        "      len(K.ternary_count_kernel.signatures), len(K.ternary_repeat_kernel.signatures),\n"
        "      len(K.load_wide.signatures), len(K.store_wide.signatures))\n"
        "aj.Add(*h, 256)\n"
        "halves = [sig for sig in K.binary_count_kernel.signatures if str(sig[-4]) != 'none']\n"
        "print(*(str(sig[-4:]).replace(' ', '') for sig in halves), len(K.half_binary_run.signatures))\n"
        "aj.Exp(h[0], h[1], 256)\n"
        "print(*(str(sig[-1]) for sig in K._unary_float_chunk.signatures))\n")
    env = dict(os.environ, PYTHONPATH=os.getcwd(), NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True).stdout
    assert out.split() == ["0", "0"] + ["['uint16']"] * 3 + ["1", "1", "0", "0"] + \
        ["(int64,none,none,none)", "1", "none"]


def test_modelled_results_are_identical_without_the_jit(tmp_path):
    """The same input gives the same bits with NUMBA_DISABLE_JIT=1 (another process): the compiled half
    transcendentals read their lookup table, the plain ones compute the call's elements (the path that made it)."""
    import os
    import subprocess
    import sys
    script = tmp_path / "run.py"
    script.write_text(
        "import numpy as np, ascend_jit as aj\n"
        "out = []\n"
        "for dev in ('atlas-a2', 'ascend950'):\n"
        "    core = aj.Core(dev)\n"
        "    for dtype in ('half', 'float'):\n"
        "        d, s, t = (core.local_tensor(dtype, 96) for _ in range(3))\n"
        "        rng = np.random.default_rng(1)\n"
        "        s[:] = (rng.standard_normal(96) * 4).astype(dtype)\n"
        "        t[:] = (rng.standard_normal(96) * 4).astype(dtype)\n"
        "        for op in (aj.Exp, aj.Ln, aj.Sqrt, aj.Rsqrt, aj.Reciprocal):\n"
        "            op(d, s, 96)\n"
        "            out.append(d.numpy().tobytes().hex())\n"
        "        aj.Div(d, s, t, 96); out.append(d.numpy().tobytes().hex())\n"
        "        aj.FusedMulAdd(d, s, t, 96); out.append(d.numpy().tobytes().hex())\n"
        "core = aj.Core('ascend950')\n"
        "for dtype in ('int16', 'uint64'):\n"  # the integer lanes of one width (jit/ubview.py int_lanes)
        "    d, s, t = (core.local_tensor(dtype, 96) for _ in range(3))\n"
        "    info = np.iinfo(dtype)\n"
        "    s[:] = rng.integers(info.min, info.max, 96, dtype=dtype, endpoint=True)\n"
        "    t[:] = rng.integers(info.min, info.max, 96, dtype=dtype, endpoint=True)\n"
        "    for op in (aj.Div, aj.Max, aj.And):\n"
        "        op(d, s, t, 96); out.append(d.numpy().tobytes().hex())\n"
        "print(','.join(out))\n"
        "from ascend_jit.api import elementwise\n"
        "print(len(elementwise._HALF_TABLES))\n")
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    runs = [subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=dict(env, **extra),
                           check=True).stdout.split() for extra in ({}, {"NUMBA_DISABLE_JIT": "1"})]
    assert runs[0][0] == runs[1][0] and runs[0][0].count(",") == 33
    # compiled, the half transcendentals read a table of all 65536 results; without the JIT each call computes its
    # own elements (65536 plain-Python evaluations per op and flags cost about a second)
    assert int(runs[0][1]) > 0 and runs[1][1] == "0"


# --- fidelity as data (D69) ---------------------------------------------------------------------------------------------
def test_fidelity_table_covers_the_family_and_docstrings_say_modelled():
    for name, row in E.OPS.items():
        for device, dtypes in row.dtypes.items():
            if dtypes:
                assert (name, device) in aj.FIDELITY, (name, device)
        levels = {rule.default for (api, _), rule in aj.FIDELITY.items() if api == name}
        levels |= {c.level for (api, _), rule in aj.FIDELITY.items() if api == name for c in rule.conditions}
        assert ("MODELLED" in E.ENTRIES[name].__doc__) == (aj.Fidelity.MODELLED in levels), name
    assert aj.fidelity("Div", "ascend950", "float", aj.DivConfig(aj.DivAlgo.DIFF_COMPENSATION)) is aj.Fidelity.BIT_EXACT
    assert aj.fidelity("Div", "ascend950", "half") is aj.Fidelity.MODELLED
    assert aj.fidelity("Sub", "atlas-a2", "half") is aj.Fidelity.BIT_EXACT
    assert isinstance(aj.FIDELITY[("Exp", "atlas-a2")], aj.FidelityRule)


def test_cli_devices_fidelity():
    import os
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "ascend_jit.cli", "devices", "--fidelity"], capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=os.getcwd()), timeout=300)
    assert r.returncode == 0 and "MODELLED" in r.stdout and "exact result rounded once" in r.stdout
    assert any(line.split()[:3] == ["Rsqrt", "atlas-a2", "MODELLED"] for line in r.stdout.splitlines())


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal"])
def test_half_transcendentals_exhaustive(name):
    """All 65536 halves: the kernel's float64-then-round evaluation equals the reference's exact rounding (mpmath at
    200 bits) bit for bit (decisions.md: where float64-then-round could double-round)."""
    core = aj.Core("atlas-a2", bounds="ub")
    n = 1 << 15
    d, s = core.local_tensor("half", n), core.local_tensor("half", n, addr=65536)
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    for part in (every[:n], every[n:]):
        s[:] = part.view(np.float16)
        E.ENTRIES[name](d, s, n)
        want = E.OPS[name].reference("half", R.Env("atlas-a2"), part.view(np.float16).astype(np.float64))
        assert np.array_equal(d.numpy().view(np.uint16), _half_bits(want))


_LN_NEAR_MIDPOINT = {0x3C413D3A: 0xC08E158F, 0x41178FEB: 0x400FE5E7, 0x4C5D65A5: 0x418F034B, 0x65D890D3: 0x4254D1F9,
                     0x6F31A8EC: 0x42845A89}
_LN_DEVICES = [("atlas-a2", None), ("atlas-training", None), ("atlas-200i-500-a2", None),
               ("ascend950", aj.LnAlgo.PRECISION_1ULP_FTZ_FALSE), ("ascend950", None)]


def _float_ln(device, config, bits):
    core = aj.Core(device)
    s, d = core.local_tensor("float", bits.size), core.local_tensor("float", bits.size)
    s[:] = bits.view(np.float32)
    aj.Ln(d, s, bits.size, **({} if config is None else {"config": config}))
    return d.numpy().view(np.uint32)


@pytest.mark.parametrize("device,config", _LN_DEVICES)
def test_float_ln_is_correctly_rounded_next_to_float32_midpoints(device, config):
    """SPEC-2 D37 (num13): float Ln whose exact value lies within a double ulp of a float32 rounding midpoint. float64
    log then round-to-nearest-even landed on the midpoint and took the wrong (even) side, e.g. ln(0x41178FEB =
    9.472636) gave 0x400FE5E8 instead of 0x400FE5E7 (mpmath at 300 bits)."""
    bits = np.array(list(_LN_NEAR_MIDPOINT), np.uint32)
    assert dict(zip(bits.tolist(), _float_ln(device, config, bits).tolist())) == _LN_NEAR_MIDPOINT


@pytest.mark.parametrize("device,config", _LN_DEVICES)
def test_float_ln_hard_case_table_against_the_reference(device, config):
    """Every input of lanes._LN_HARD_X (logarithm within 4 double ulps of a float32 midpoint) equals the reference's
    exact rounding; none of them is a half, so half results never take the table."""
    from ascend_jit.jit.lanes import _LN_HARD_X
    got = _float_ln(device, config, _LN_HARD_X)
    want = E.OPS["Ln"].reference("float", R.Env(device), _LN_HARD_X.view(np.float32).astype(np.float64))
    assert np.array_equal(got, np.asarray(want, np.float32).view(np.uint32))
    with np.errstate(over="ignore"):
        x = _LN_HARD_X.view(np.float32)
        assert not np.any(x.astype(np.float16).astype(np.float32) == x)


@pytest.mark.parametrize("op", ["Add", "Sub", "Muls", "Exp"])
def test_a_forgotten_count_says_what_is_missing(op):
    """Issue 11 section 5: `aj.Add(c, a, b)` names the missing count, not `mask = None`."""
    core = aj.Core("atlas-a2")
    t = [core.local_tensor("half", 64) for _ in range(3)]
    args = {"Add": t, "Sub": t, "Muls": [t[0], t[1], 2.0], "Exp": t[:2]}[op]
    with pytest.raises(aj.ParameterError, match="the count .* is missing"):
        getattr(aj, op)(*args)


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync", reason="runs the bounds=\"ub\" escape hatch, which the "
                             "memory check reports by design")
def test_high_dim_plan_memo_keys_hold_everything_validation_reads():
    """Issue 21: a high-dim call's mask plan and validation are memoised; an entry is only reused for arguments of
    exactly the same values and types on a core in the same state (hostile-input rules: True, 1.0 and
    np.int64 never share an entry with 1; counter mode, tensor sizes and the bounds rule are part of the key)."""
    core = aj.Core("atlas-a2")
    d, a, b = (core.local_tensor("half", 256) for _ in range(3))
    a[:] = 1
    b[:] = 2
    p = aj.BinaryRepeatParams()
    aj.Add(d, a, b, 64, 2, p)  # continuous mask: 64 lanes of each of 2 repeats
    assert (d.numpy()[:64] == 3).all() and (d.numpy()[64:128] == 0).all() and (d.numpy()[128:192] == 3).all()
    for bad in (aj.BinaryRepeatParams(True, 1, 1, 8, 8, 8), aj.BinaryRepeatParams(1.0, 1, 1, 8, 8, 8)):
        _refuses(core, lambda: aj.Add(d, a, b, 64, 2, bad), aj.ParameterError, "dstBlkStride")
    _refuses(core, lambda: aj.Add(d, a, b, 64, True, p), aj.ParameterError, "repeat_time")
    _refuses(core, lambda: aj.Add(d, a, b, [True], 2, p), aj.ParameterError, "mask")
    d[:] = 0
    with core:  # the same arguments in counter mode: 64 elements in all
        aj.SetMaskCount()
        aj.Add(d, a, b, 64, 2, p)
        aj.SetMaskNorm()
    assert (d.numpy()[:64] == 3).all() and (d.numpy()[64:] == 0).all()
    short = d[0:100]  # the same address, a smaller tensor: the second repeat leaves it
    _refuses(core, lambda: aj.Add(short, a, b, 64, 2, p), aj.OutOfBoundsError, "dst")
    loose = aj.Core("atlas-a2", bounds="ub")  # the same facts on a core with the UB-only rule
    ld, la, lb = (loose.local_tensor("half", 256) for _ in range(3))
    la[:] = np.ones(256, np.float16)
    lb[:] = np.ones(256, np.float16)
    aj.Add(ld[0:100], la, lb, 64, 2, p)
    _refuses(core, lambda: aj.Duplicate(short, 1.0, 64, 2, 1, 8), aj.OutOfBoundsError, "dst")
    aj.Duplicate(d, 1.0, 64, 2, 1, 8)
    _refuses(core, lambda: aj.Duplicate(d, 1.0, 64, 2, True, 8), aj.ParameterError, "dst_block_stride")


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync", reason="runs the bounds=\"ub\" escape hatch, which the "
                             "memory check reports by design")
def test_brcb_memo_keys_hold_everything_validation_reads():
    """Issue 21: Brcb's validated call shapes are remembered (_BRCB_CALLS); each part of the key changed on its own
    is validated again (refused, or run with its own effect), never served from the memo."""
    core = aj.Core("atlas-a2")
    src, dst = core.local_tensor("half", 16), core.local_tensor("half", 256)
    src[:] = np.arange(1, 17)
    expected = np.repeat(np.arange(1, 17), 16).astype(np.float16)
    for params in (aj.BrcbRepeatParams(1, 8), (1, 8), (1, 8)):   # the first call validates, the others are memoised
        dst[:] = 0
        aj.Brcb(dst, src, 2, params)
        assert np.array_equal(dst.numpy(), expected)
    # exact types: equal values of other types are validated (and refused), the UB and mask untouched
    _refuses(core, lambda: aj.Brcb(dst, src, True, (1, 8)), aj.ParameterError, "repeat_time")
    _refuses(core, lambda: aj.Brcb(dst, src, 2, (1.0, 8)), aj.ParameterError, "dstBlkStride")
    _refuses(core, lambda: aj.Brcb(dst, src, 2, aj.BrcbRepeatParams(1, True)), aj.ParameterError, "dstRepStride")
    # each fact of the key: repeat, strides, dst size, src address and size, dtype, device, bounds rule
    _refuses(core, lambda: aj.Brcb(dst, src, 3, (1, 8)), aj.OutOfBoundsError, "src")
    _refuses(core, lambda: aj.Brcb(dst, src, 2, (0, 8)), aj.ParameterError, "dstBlkStride")
    _refuses(core, lambda: aj.Brcb(dst, src, 2, (1, 16)), aj.OutOfBoundsError, "dst")
    _refuses(core, lambda: aj.Brcb(dst[0:128], src, 2, (1, 8)), aj.OutOfBoundsError, "dst")
    _refuses(core, lambda: aj.Brcb(dst, src[0:8], 2, (1, 8)), aj.OutOfBoundsError, "src")
    _refuses(core, lambda: aj.Brcb(dst, core.local_tensor("half", 16, addr=dst.addr + 32), 2, (1, 8)),
             aj.OverlapError, "dst/src")
    dst[:] = 0
    aj.Brcb(dst, src, 1, (1, 8))                          # another repeat count: its own blocks only
    assert np.array_equal(dst.numpy(), np.where(np.arange(256) < 128, expected, 0).astype(np.float16))
    dst[:] = 0
    aj.Brcb(dst, src, 1, (2, 16))                         # other strides: every other block
    blocks = dst.numpy().reshape(16, 16)
    assert np.array_equal(blocks[::2], expected.reshape(16, 16)[:8]) and not blocks[1::2].any()
    as_float = dst.ReinterpretCast("float")               # the same bytes as float: 8 floats a block
    s32 = core.local_tensor("float", 16, addr=core.spec.ub_bytes // 2)
    s32[:] = np.arange(1, 17, dtype=np.float32)
    aj.Brcb(as_float, s32, 2, (1, 8))
    assert np.array_equal(as_float.numpy(), np.repeat(np.arange(1, 17), 8).astype(np.float32))
    with pytest.raises(aj.UnsupportedDeviceError, match="Brcb"):   # another device with the same facts
        other = aj.Core("atlas-200i-500-a2")
        aj.Brcb(other.local_tensor("half", 256, addr=dst.addr), other.local_tensor("half", 16, addr=src.addr), 2,
                (1, 8))
    loose = aj.Core("atlas-a2", bounds="ub")              # the same facts under the UB-only rule: admitted
    ls, ld = loose.local_tensor("half", 16, addr=src.addr), loose.local_tensor("half", 256, addr=dst.addr)
    ls[:] = np.arange(1, 17)
    aj.Brcb(ld, ls, 2, (1, 16))
    assert np.array_equal(loose.ub[ld.addr:ld.addr + 1024].view(np.float16).reshape(2, 16, 16)[:, :8].reshape(16, 16),
                          expected.reshape(16, 16))
    _refuses(core, lambda: aj.Brcb(dst, src, 2, (1, 16)), aj.OutOfBoundsError, "dst")   # remembered under "ub" only
    with aj.Core("atlas-a2", sanitize="report") as checked:   # a sanitizer sees the remembered shape's call
        cs, cd = checked.local_tensor("half", 16, addr=src.addr), checked.local_tensor("half", 256, addr=dst.addr)
        aj.Brcb(cd, cs, 2, (1, 8))                        # src never written: the init check reports it
    assert any("Brcb" in str(r) for r in checked.sanitizer.reports)
    pipe, q = aj.TPipe(core), aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(q, 1, 512)
    t = q.AllocTensor("half")
    aj.Brcb(t, src, 2, (1, 8))
    q.FreeTensor(t)
    with pytest.raises(aj.StateError, match="freed"):     # the memo never skips the liveness check
        aj.Brcb(t, src, 2, (1, 8))
    with pytest.raises(aj.ParameterError, match="another core"):
        aj.Brcb(dst, loose.local_tensor("half", 16, addr=src.addr), 2, (1, 8))


def _recent_call(entry):
    """The entry's remembered last count-form call (api/elementwise.py _make `recent`)."""
    return entry.__closure__[entry.__code__.co_freevars.index("recent")].cell_contents


@pytest.mark.parametrize("name", ["Add", "Adds", "Exp"])
def test_recent_call_memo_reads_everything_a_call_may_change(name, monkeypatch):
    """Issue 21: a call on the same tensor objects and count object as the instruction's last remembered count-form
    call skips the memo key; it still tells the count and the form apart, takes keywords to the full path, reads
    the overflow mode, leaves the mask effect and tests the sanitizer and liveness on every call."""
    core = aj.Core("atlas-a2", sanitize=False)
    pipe, q = aj.TPipe(core), aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(q, 1, 512)
    dst = q.AllocTensor("half")  # 256 halves of a queue buffer: a lease to outlive
    src = [core.local_tensor("half", 256) for _ in range(2 if name == "Add" else 1)]
    for s in src:
        s[:] = 12 if name == "Exp" else 60000  # every result overflows half
    entry = getattr(aj, name)
    tensors = (dst, *src, 60000.0) if name == "Adds" else (dst, *src)
    params = aj.BinaryRepeatParams() if name == "Add" else aj.UnaryRepeatParams()
    count = 128

    def written():
        return int(np.count_nonzero(dst.numpy()))

    for _ in range(2):
        entry(*tensors, count)
    assert all(a is b for a, b in zip(_recent_call(entry), (dst, *src, count)))  # remembered: the recent call
    dst[:] = 0
    entry(*tensors, 64)                                    # another count on the same tensors: its own plan
    assert written() == 64
    entry(*tensors, count)
    if name == "Adds":                                     # another scalar object: its own bits
        entry(dst, src[0], -30000.0, count)
        assert np.array_equal(dst.numpy()[:count], np.full(count, 30000, np.float16))
    dst[:] = 0
    entry(*tensors, count, 0, params)                      # the same int as a high-dim mask, 0 repeats: a NOP
    assert written() == 0
    with pytest.raises((TypeError, aj.StateError)):       # keywords take the full path (here: refused)
        entry(*tensors, count, is_set_mask=False)
    for saturate, want in ((True, 65504), (False, np.inf)):  # the overflow mode is read per call
        core.SetSaturationFlag(saturate)
        entry(*tensors, count)
        assert np.array_equal(dst.numpy()[:count], np.full(count, want, np.float16))
    core.SetMaskCount()
    core.SetVectorMask(7)
    entry(*tensors, count)                                 # D22: A2 count calls restore Normal mode, all ones
    assert not core.counter_mode and (core.mask_high, core.mask_low) == (2**64 - 1, 2**64 - 1)
    seen = []
    monkeypatch.setattr(E, "_sanitize", lambda *args: seen.append(args))
    core.sanitize = True
    entry(*tensors, count)
    core.sanitize = False
    assert len(seen) == 1                                  # a sanitizer sees the remembered call
    q.FreeTensor(dst)
    with pytest.raises(aj.StateError, match="freed"):      # liveness is tested on every call
        entry(*tensors, count)
    with pytest.raises(aj.StateError, match="freed"):      # a new object of the freed buffer: the facts' memo
        entry(dst[0:256], *tensors[1:], count)


def test_duplicate_recent_call_reads_everything_a_call_may_change(monkeypatch):
    """Duplicate's count form keeps its last remembered call as _make's entries do (E._DUPLICATE_RECENT): the same
    tensor and count objects skip the key; another count or value, a sanitizer and a freed tensor are still seen."""
    core = aj.Core("atlas-a2", sanitize=False)
    pipe, q = aj.TPipe(core), aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(q, 1, 512)
    dst = q.AllocTensor("half")
    count, value = 128, 3.0
    for _ in range(2):
        aj.Duplicate(dst, value, count)
    assert all(a is b for a, b in zip(E._DUPLICATE_RECENT, (dst, count)))
    dst[:] = 0
    aj.Duplicate(dst, value, 64)                           # another count: its own plan
    assert np.count_nonzero(dst.numpy()) == 64
    aj.Duplicate(dst, value, count)
    aj.Duplicate(dst, -2.0, count)                         # another value object: its own bits
    assert np.array_equal(dst.numpy()[:count], np.full(count, -2, np.float16))
    core.SetMaskCount()
    aj.Duplicate(dst, value, count)                        # D22: A2 count calls restore Normal mode
    assert not core.counter_mode
    seen = []
    monkeypatch.setattr(E, "vector_access", lambda *args, **kw: seen.append(args))
    core.sanitize = True
    aj.Duplicate(dst, value, count)
    core.sanitize = False
    assert len(seen) == 1                                  # a sanitizer sees the remembered call
    q.FreeTensor(dst)
    with pytest.raises(aj.StateError, match="freed"):      # liveness is tested on every call
        aj.Duplicate(dst, value, count)
