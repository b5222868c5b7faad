"""Compare, Compares, the comparison operators and Select (SPEC-2 9.4, 9.5, 12.6, 12.7): golden vectors per device,
whole-UB property tests against the reference, mask-register effects, refusals."""
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.reference import compare as ref
from ascend_jit.reference import model as ref_model
from ascend_jit.reference.numerics import decode

C, S = aj.CMPMODE, aj.SELMODE
MASK_IGNORED = ("atlas-a2", "atlas-a3", "atlas-inference-aicore", "atlas-training")
SRC0 = np.repeat([2, 3, 5, 7, 11, 13, 17, 19], 8).astype(np.float32)
SRC1 = np.repeat([2, 4, 6, 8, 10, 12, 14, 16], 8).astype(np.float32)


def _inputs_a(core):
    a, b, d = core.local_tensor("float", 64), core.local_tensor("float", 64), core.local_tensor("uint8", 32)
    a[:], b[:] = SRC0, SRC1
    return d, a, b


K2 = {C.LT: [0, 255, 255, 255, 0, 0, 0, 0], C.GT: [0, 0, 0, 0, 255, 255, 255, 255],
      C.GE: [255, 0, 0, 0, 255, 255, 255, 255], C.LE: [255, 255, 255, 255, 0, 0, 0, 0],
      C.EQ: [255, 0, 0, 0, 0, 0, 0, 0], C.NE: [0, 255, 255, 255, 255, 255, 255, 255]}


@pytest.mark.parametrize("mode", list(C))
def test_k1_k2_count_and_high_dim(device, mode):
    core = aj.Core(device)
    d, a, b = _inputs_a(core)
    aj.Compare(d, a, b, mode, 64)
    assert d.numpy()[:8].tolist() == K2[mode]
    d[:] = np.zeros(32, np.uint8)
    aj.Compare(d, a, b, mode, 64, 1, aj.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    assert d.numpy()[:8].tolist() == K2[mode]


def test_k3_k4_masks_per_device(device):
    core = aj.Core(device)
    d, a, b = _inputs_a(core)
    aj.Compare(d, a, b, C.LE, [0x33333333, 0], 1, (1, 1, 1, 1, 8, 8))
    k3 = d.numpy()[:8].tolist()
    d[:] = np.full(32, 7, np.uint8)
    aj.Compare(d, a, b, C.LE, 28, 1, (1, 1, 1, 1, 8, 8))
    k4 = d.numpy()[:8].tolist()
    if device in MASK_IGNORED:   # D44: the mask is ignored
        assert k3 == k4 == [255, 255, 255, 255, 0, 0, 0, 0]
    else:
        assert k3 == [51, 51, 51, 51, 0, 0, 0, 0] and k4 == [255, 255, 255, 15, 0, 0, 0, 0]


def test_mask_0_writes_nothing_or_is_refused(device):
    """SPEC-2 D30, mask 0 (continuous 0 or all-zero words), high-dim Compare and Compares: refused on the 950
    (ParameterError), a NOP elsewhere, also on A2/A3/310P/910 whose other masks D44 ignores (decisions.md)."""
    core = aj.Core(device)
    d, a, b = _inputs_a(core)
    calls = [lambda m: aj.Compare(d, a, b, C.LE, m, 1, (1, 1, 1, 1, 8, 8))]
    if core.spec.compares_dtypes:
        calls.append(lambda m: aj.Compares(d, a, 0.5, C.LE, m, 1, aj.UnaryRepeatParams()))
    for call in calls:
        for mask in (0, [0, 0]):
            d[:] = np.full(32, 7, np.uint8)
            if device == "ascend950":
                with pytest.raises(aj.ParameterError, match="mask"):
                    call(mask)
            else:
                call(mask)
            assert (d.numpy() == 7).all()


def test_k5_bit_order(device):
    core = aj.Core(device)
    d, a, b = _inputs_a(core)
    a[:] = np.resize(np.array([2, 3, 5, 7, 11, 13, 17, 19], np.float32), 64)
    b[:] = np.resize(np.array([2, 4, 6, 8, 10, 12, 14, 16], np.float32), 64)
    for mode, byte in ((C.GT, 0xF0), (C.GE, 0xF1), (C.LE, 0x0F), (C.EQ, 1), (C.NE, 0xFE), (C.LT, 0x0E)):
        aj.Compare(d, a, b, mode, 64)
        assert d.numpy()[0] == byte, mode


def test_k7_boundary_rows(device):
    core = aj.Core(device)
    for dtype in ("half", "float"):
        n = 256 // np.dtype(np.float16 if dtype == "half" else np.float32).itemsize
        d, a, b = core.local_tensor("uint8", 32), core.local_tensor(dtype, n), core.local_tensor(dtype, n)
        x = np.zeros(n)
        y = np.zeros(n)
        x[0], y[0] = 0.0, -0.0            # +0 vs -0
        x[8], y[8] = np.nan, 1.0          # NaN vs 1
        x[16], y[16] = 1.0, np.nan
        x[24], y[24] = np.inf, np.inf
        a[:], b[:] = x, y
        for mode in C:
            aj.Compare(d, a, b, mode, n)
            bits = np.unpackbits(d.numpy()[:n // 8], bitorder="little")
            eq = mode in (C.EQ, C.LE, C.GE)
            assert bits[0] == eq and bits[24] == eq, mode          # +0 == -0, inf == inf
            nan_bit = (1 if device in ("ascend950", "atlas-200i-500-a2") else 0) if mode == C.NE else 0
            assert bits[8] == bits[16] == nan_bit, (mode, device)   # D43, H-8
    if device in ("atlas-a2", "atlas-a3"):
        d, a, b = core.local_tensor("uint8", 32), core.local_tensor("int32", 64), core.local_tensor("int32", 64)
        a[:] = np.full(64, -2**31, np.int32)
        b[:] = np.full(64, 2**31 - 1, np.int32)
        aj.Compare(d, a, b, C.EQ, 64)
        assert not d.numpy()[:8].any()



BOUNDARY_ROWS = [line.split() for line in (Path(__file__).parent / "goldens" / "compare_boundary_rows.txt")
                 .read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
_SPECIALS = {"half": (np.float16, -65504.0, 65504.0), "float": (np.float32, -3.4028235e38, 3.4028235e38),
             "int32": (np.int32, -2**31, 2**31 - 1)}


def _boundary_values(dtype):
    """The src1/scalar column order of the tables: MIN/MAX/+0/-0/nan/+inf/-inf (MIN/MAX for int32)."""
    np_type, lo, hi = _SPECIALS[dtype]
    names = ("MIN", "MAX") if dtype == "int32" else ("MIN", "MAX", "+0", "-0", "nan", "+inf", "-inf")
    values = {"MIN": lo, "MAX": hi, "+0": 0.0, "-0": -0.0, "nan": np.nan, "+inf": np.inf, "-inf": -np.inf}
    return names, np.array([values[n] for n in names], np_type)


@pytest.mark.parametrize("overflow_mode", ["inf_nan", "saturating"])
def test_k7_every_boundary_row(device, overflow_mode):
    """K-7 (SPEC-2 12.6): every row of MemBV-T30/T31 on A2/A3 (310P/910 too, D43) and RegBV-T31/T32 on the 950
    (310B too, D43), Compare and Compares, count form, in both half overflow modes where the device switches them
    (Compare ignores the mode; D36 for the two saturation cells the table misprints)."""
    core = aj.Core(device)
    if core.spec.half_saturation_switchable:
        core.SetCtrlSpr(48, 48, 1 if overflow_mode == "inf_nan" else 0)
    elif overflow_mode == "saturating":
        pytest.skip("fixed overflow mode")
    tables = ("RegBV-T31", "RegBV-T32") if core.spec.compare_ne_nan else ("MemBV-T30", "MemBV-T31")
    checked = 0
    for table, api, dtype, mode, src0_name, bits in BOUNDARY_ROWS:
        offered = core.spec.compare_dtypes if api == "Compare" else core.spec.compares_dtypes
        if table not in tables or dtype not in offered:
            continue
        names, values = _boundary_values(dtype)
        n = 256 // values.itemsize
        x = values[names.index(src0_name)]
        a, d = core.local_tensor(dtype, n), core.local_tensor("uint8", n // 8)
        if api == "Compare":     # one call: element k compares src0 with the k-th src1 value
            b = core.local_tensor(dtype, n)
            a[:], b[:] = np.full(n, x), np.resize(values, n)
            aj.Compare(d, a, b, C[mode], n)
            got = np.unpackbits(d.numpy(), bitorder="little")[:len(names)]
        else:                    # one call per scalar
            a[:] = np.full(n, x)
            got = []
            for y in values:
                aj.Compares(d, a, y, C[mode], n)
                got.append(int(d.numpy()[0] & 1))
        assert "".join(str(int(v)) for v in got) == bits, (table, api, dtype, mode, src0_name)
        checked += 1
    assert checked >= 2 * 84 if core.spec.compares_dtypes else checked >= 84

K6_SRC0 = np.array([w for line in (Path(__file__).parent / "goldens" / "compares_k6_src0.txt").read_text().splitlines()
                    if not line.startswith("#") for w in line.split()], np.float32)
K6_OUT = [0, 0, 0, 0, 0, 8, 0, 0, 0, 4, 0, 0, 16, 32, 0, 0, 0, 0, 0, 0, 32, 0, 4, 16, 0, 0, 0, 0, 0, 0, 0, 0]


def test_compares_k6_doc_example_every_form(device):
    """K-6: the printed src0 of DK Compares.md against the scalar -95.16087 (LT), count form and both high-dim forms
    of the page (mask 64 and bit mask {UINT64_MAX, 0}, repeat 4, (1, 1, 8, 8))."""
    core = aj.Core(device)
    if not core.spec.compares_dtypes:
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.Compares(core.local_tensor("uint8", 32), core.local_tensor("float", 256), 0.0, C.LT, 256)
        return
    d, a = core.local_tensor("uint8", 32), core.local_tensor("float", 256)
    a[:] = K6_SRC0
    for call in (lambda: aj.Compares(d, a, -95.16087, C.LT, 256),
                 lambda: aj.Compares(d, a, np.float32(-95.16087), C.LT, 64, 4, aj.UnaryRepeatParams(1, 1, 8, 8)),
                 lambda: aj.Compares(d, a, -95.16087, C.LT, [2**64 - 1, 0], 4, (1, 1, 8, 8)),
                 lambda: aj.CompareScalar(d, a, -95.16087, C.LT, 256)):  # the older name (SPEC-2 9.4)
        d[:] = np.full(32, 0x77, np.uint8)
        call()
        assert d.numpy().tolist() == K6_OUT


def test_operators_and_truth_values():
    core = aj.Core("ascend950")
    a, b = core.local_tensor("half", 128), core.local_tensor("half", 128)
    d = core.local_tensor("uint8", 16)
    x = np.random.default_rng(1).standard_normal(128).astype(np.float16)
    y = np.random.default_rng(2).standard_normal(128).astype(np.float16)
    x[5] = y[5]
    a[:], b[:] = x, y
    for expr, want in ((lambda: a < b, x < y), (lambda: a > b, x > y), (lambda: a <= b, x <= y),
                       (lambda: a >= b, x >= y), (lambda: a == b, x == y), (lambda: a != b, x != y)):
        d[:] = expr()
        assert np.array_equal(d.numpy(), np.packbits(want, bitorder="little"))
    with pytest.raises(TypeError):
        bool(a < b)
    with pytest.raises(TypeError):
        if a == b:
            pass
    assert len({a, b, a}) == 2     # identity hashing
    aligned = core.local_tensor("half", 128, addr=4096)
    aligned[:] = x
    d[:] = aligned < b
    assert np.array_equal(d.numpy(), np.packbits(x < y, bitorder="little"))
    for offset in (32, 16):   # SPEC-2 9.4: the operator's sources 256-B aligned (the count form's 32 B is not enough)
        with pytest.raises(aj.AlignmentError):
            d[:] = core.local_tensor("half", 128, addr=4096 + offset) < b
    b310 = aj.Core("310b")
    p, q, r = b310.local_tensor("half", 128), b310.local_tensor("half", 128), b310.local_tensor("uint8", 16)
    with pytest.raises(aj.UnsupportedDeviceError):
        r[:] = p < q


def test_mask_register_after_compare():
    core = aj.Core("atlas-a2")
    d, a, b = _inputs_a(core)
    aj.Compare(d, a, b, C.LT, 64, 1, (1, 1, 1, 8, 8, 8))
    with pytest.raises(aj.StateError):      # D31: undefined on the devices that ignore the mask
        aj.Compare(d, a, b, C.LT, aj.MASK_PLACEHOLDER, 1, (1, 1, 1, 8, 8, 8), is_set_mask=False)
    core950 = aj.Core("ascend950")
    d, a, b = _inputs_a(core950)
    aj.Compare(d, a, b, C.LT, [0xFFFF, 0], 1, (1, 1, 1, 8, 8, 8))
    assert core950.mask_low == 0xFFFF
    d[:] = np.full(32, 9, np.uint8)
    aj.Compare(d, a, b, C.LT, aj.MASK_PLACEHOLDER, 1, (1, 1, 1, 8, 8, 8), is_set_mask=False)
    assert d.numpy()[:9].tolist() == [0, 255, 0, 0, 0, 0, 0, 0, 9]


# --- property tests: whole UB against the reference ------------------------------------------------------------
SIZE = {"half": 2, "float": 4, "bfloat16": 2, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4,
        "uint32": 4, "int64": 8, "uint64": 8}


def _random_ub(core, seed):
    core.ub[:] = np.frombuffer(np.random.default_rng(seed).bytes(core.ub.size), np.uint8)
    core.ub_written_by_host()   # raw UB bytes: initialised for the sanitizer
    # plant NaNs, zeros and equal pairs often enough to matter
    return core.ub.copy()


def _mask_strategy(data, lanes):
    if data.draw(st.booleans()):
        m = data.draw(st.integers(1, lanes))
        return m, list(range(m))
    lo = data.draw(st.integers(1, 2**min(lanes, 64) - 1))
    hi = data.draw(st.integers(0, 2**64 - 1)) if lanes == 128 else 0
    return ([lo, hi] if lanes == 128 else [lo]), ref_model.lanes_of_mask(lo, hi, lanes)


def _compare_whole_ub_matches_reference(device, scalar, count_form, data):
    core = aj.Core(device, bounds="ub")
    api = aj.Compares if scalar else aj.Compare
    offered = core.spec.compares_dtypes if scalar else core.spec.compare_dtypes
    if not count_form:
        offered = [t for t in offered if t not in core.spec.memory_count_only_dtypes]
    if not offered:
        return
    dtype = data.draw(st.sampled_from(sorted(offered)))
    mode = data.draw(st.sampled_from([C.EQ] if dtype in core.spec.compare_eq_only_dtypes else list(C)))
    size = SIZE[dtype]
    lanes = 256 // size
    _random_ub(core, data.draw(st.integers(0, 2**32)))
    dst_addr = 32 * data.draw(st.integers(0, 200))
    a_addr = 32 * data.draw(st.integers(400, 1600))
    b_addr = 32 * data.draw(st.integers(2000, 3000))
    if data.draw(st.booleans()):   # equal values and specials in some lanes
        core.ub[b_addr:b_addr + 512] = core.ub[a_addr:a_addr + 512]
    # bounds="ub": the strides may reach anywhere in the UB, so the tensors (address handles here) run to its end
    d = core.local_tensor("uint8", core.spec.ub_bytes - dst_addr, addr=dst_addr)
    a = core.local_tensor(dtype, (core.spec.ub_bytes - a_addr) // size, addr=a_addr)
    b = core.local_tensor(dtype, (core.spec.ub_bytes - b_addr) // size, addr=b_addr)
    scalar_value = decode(dtype, core.ub[b_addr:b_addr + size])
    scalar_arg = np.frombuffer(bytes(core.ub[b_addr:b_addr + size]), a.dtype.np_dtype)[0]
    want = core.ub.copy()
    ne_nan = core.spec.compare_ne_nan
    if count_form:
        count = lanes * data.draw(st.integers(0, 4))
        ref.compare_count(want, dtype, mode.name, dst_addr, a_addr, None if scalar else b_addr, count, ne_nan,
                          scalar_value)
        api(d, a, scalar_arg if scalar else b, mode, count) if scalar else api(d, a, b, mode, count)
    else:
        mask, active = _mask_strategy(data, lanes)
        repeat = data.draw(st.integers(0, 4))
        blk0, blk1, rep0, rep1 = (data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3)),
                                  data.draw(st.integers(0, 12)), data.draw(st.integers(0, 12)))
        last = None
        if data.draw(st.booleans()):   # counter mode (SPEC-2 1.4, D44): the count, unless the device ignores masks
            core.SetMaskCount()
            mask = data.draw(st.integers(1, 4 * lanes))
            if not core.spec.compare_mask_ignored:
                active, repeat, last = list(range(lanes)), -(-mask // lanes), mask % lanes or lanes
        if core.spec.compare_mask_ignored:
            active = list(range(lanes))
        ref.compare_high_dim(want, dtype, mode.name, dst_addr, a_addr, None if scalar else b_addr, active, repeat,
                             (blk0, blk1, rep0, rep1), ne_nan, scalar_value, last_lanes=last)
        if scalar:
            aj.Compares(d, a, scalar_arg, mode, mask, repeat, aj.UnaryRepeatParams(1, blk0, 8, rep0))
        else:
            aj.Compare(d, a, b, mode, mask, repeat, aj.BinaryRepeatParams(1, blk0, blk1, 8, rep0, rep1))
    assert np.array_equal(core.ub, want)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(aj.SUPPORTED_NAMES), st.booleans(), st.booleans(), st.data())
def test_compare_whole_ub_matches_reference(device, scalar, count_form, data):
    _compare_whole_ub_matches_reference(device, scalar, count_form, data)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(aj.SUPPORTED_NAMES), st.booleans(), st.booleans(), st.data())
def test_compare_whole_ub_matches_reference_sweep(device, scalar, count_form, data):
    _compare_whole_ub_matches_reference(device, scalar, count_form, data)


def _select_whole_ub_matches_reference(device, count_form, data):
    core = aj.Core(device, bounds="ub")
    offered = core.spec.select_dtypes
    if not count_form:
        offered = [t for t in offered if t not in core.spec.memory_count_only_dtypes]
    dtype = data.draw(st.sampled_from(sorted(offered)))
    mode = data.draw(st.sampled_from(core.spec.select_modes))
    size = SIZE[dtype]
    lanes = 256 // size
    _random_ub(core, data.draw(st.integers(0, 2**32)))
    dst_addr = 32 * data.draw(st.integers(0, 300))
    sel_addr = 32 * data.draw(st.integers(400, 500))
    a_addr = 32 * data.draw(st.integers(600, 1600))
    b_addr = 32 * data.draw(st.integers(2000, 3000))
    sel_dtype = data.draw(st.sampled_from(["uint8", "uint16", "uint32", "uint64"]))
    # bounds="ub": the strides may reach anywhere in the UB, so the tensors (address handles here) run to its end
    ub = core.spec.ub_bytes
    d = core.local_tensor(dtype, (ub - dst_addr) // size, addr=dst_addr)
    m = core.local_tensor(sel_dtype, (ub - sel_addr) // SIZE[sel_dtype], addr=sel_addr)
    a = core.local_tensor(dtype, (ub - a_addr) // size, addr=a_addr)
    b = core.local_tensor(dtype, (ub - b_addr) // size, addr=b_addr)
    scalar = mode == 1
    scalar_bytes = bytes(core.ub[b_addr:b_addr + size])
    src1 = np.frombuffer(scalar_bytes, a.dtype.np_dtype)[0] if scalar else b
    want = core.ub.copy()
    if count_form:
        count = data.draw(st.integers(0, 4 * lanes))
        ref.select_count(want, dtype, mode, dst_addr, sel_addr, a_addr, None if scalar else b_addr, count,
                         scalar_bytes)
        aj.Select(d, m, a, src1, S(mode), count)
    else:
        mask, active = _mask_strategy(data, lanes)
        repeat = data.draw(st.integers(0, 4))
        st_ = [data.draw(st.integers(1, 3)), data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3)),
               data.draw(st.integers(8, 12)), data.draw(st.integers(0, 12)), data.draw(st.integers(0, 12))]
        last = None
        if data.draw(st.booleans()):   # counter mode (SPEC-2 1.4): mask is the count, the last repeat partial
            core.SetMaskCount()
            mask = data.draw(st.integers(1, 4 * lanes))
            active, repeat, last = list(range(lanes)), -(-mask // lanes), mask % lanes or lanes
        ref.select_high_dim(want, dtype, mode, dst_addr, sel_addr, a_addr, None if scalar else b_addr, active,
                            repeat, st_, scalar_bytes, last_lanes=last)
        aj.Select(d, m, a, src1, S(mode), mask, repeat, aj.BinaryRepeatParams(*st_))
    assert np.array_equal(core.ub, want)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(aj.SUPPORTED_NAMES), st.booleans(), st.data())
def test_select_whole_ub_matches_reference(device, count_form, data):
    _select_whole_ub_matches_reference(device, count_form, data)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(aj.SUPPORTED_NAMES), st.booleans(), st.data())
def test_select_whole_ub_matches_reference_sweep(device, count_form, data):
    _select_whole_ub_matches_reference(device, count_form, data)


def test_select_doc_examples_s1_s2_s3():
    """S-1..S-3 (SPEC-2 12.7) on their documented selMask bytes: mode 2 with mask 64 over 4 repeats, mode 1 with a
    +0.0 scalar, mode 0 reusing bytes 0..7 in every repeat."""
    core = aj.Core("atlas-a2")
    rng = np.random.default_rng(7)
    x, y = rng.uniform(-100, 100, 256).astype(np.float32), rng.uniform(-100, 100, 256).astype(np.float32)
    a, b, d = (core.local_tensor("float", 256) for _ in range(3))
    sel = core.local_tensor("uint8", 128)
    a[:], b[:] = x, y
    sel_bytes = rng.integers(0, 256, 128).astype(np.uint8)
    sel_bytes[:8] = [60, 32, 10, 7, 42, 52, 38, 26]
    sel[:] = sel_bytes
    bits = np.unpackbits(sel_bytes, bitorder="little").astype(bool)
    aj.Select(d, sel, a, b, S.VSEL_TENSOR_TENSOR_MODE, 64, 4, (1, 1, 1, 8, 8, 8))
    assert np.array_equal(d.numpy(), np.where(bits[:256], x, y))
    assert d.numpy()[:8].tolist() == [y[0], y[1], x[2], x[3], x[4], x[5], y[6], y[7]]
    aj.Select(d, sel, a, 0.0, S.VSEL_TENSOR_SCALAR_MODE, 256)
    assert np.array_equal(d.numpy(), np.where(bits[:256], x, np.float32(0)))
    for call in (lambda: aj.Select(d, sel, a, b, S.VSEL_CMPMASK_SPR, 256),
                 lambda: aj.Select(d, sel, a, b, S.VSEL_CMPMASK_SPR, 64, 4, (1, 1, 1, 8, 8, 8)),
                 lambda: aj.Select(d, sel, a, b, S.VSEL_CMPMASK_SPR, [2**64 - 1, 0], 4, (1, 1, 1, 8, 8, 8))):
        d[:] = np.zeros(256, np.float32)
        call()
        assert np.array_equal(d.numpy(), np.where(np.tile(bits[:64], 4), x, y))


def test_select_keeps_masked_lanes_and_copies_bits():
    core = aj.Core("ascend950")
    a, b, d = (core.local_tensor("half", 128) for _ in range(3))
    sel = core.local_tensor("uint16", 16)
    a[:] = np.full(128, 0x7E01, np.uint16).view(np.float16)   # a NaN payload is copied, not canonicalised
    b[:] = np.ones(128, np.float16)
    d[:] = np.full(128, 5, np.float16)
    sel[:] = np.full(16, 0xFFFF, np.uint16)
    aj.Select(d, sel, a, b, S.VSEL_TENSOR_TENSOR_MODE, 16, 1, (1, 1, 1, 8, 8, 8))
    out = d.numpy().view(np.uint16)
    assert (out[:16] == 0x7E01).all() and (out[16:] == np.float16(5).view(np.uint16)).all()


# --- refusals ---------------------------------------------------------------------------------------------------
def _refused(core, error, call, *words):
    before = core.ub.copy()
    with pytest.raises(error) as info:
        call()
    assert np.array_equal(core.ub, before)
    for w in words:
        assert w in str(info.value)


def test_refusals():
    core = aj.Core("atlas-a2")
    d, a, b = _inputs_a(core)
    _refused(core, aj.ParameterError, lambda: aj.Compare(d, a, b, C.LT, 32), "D44")
    i32 = core.local_tensor("int32", 64)
    _refused(core, aj.UnsupportedDTypeError, lambda: aj.Compare(d, i32, i32, C.LT, 64), "EQ")
    h = core.local_tensor("half", 128)
    _refused(core, aj.UnsupportedDTypeError, lambda: aj.Compare(d, a, h, C.LT, 64))
    _refused(core, aj.UnsupportedDTypeError, lambda: aj.Compare(a, a, b, C.LT, 64), "dst")
    small = core.local_tensor("uint8", 4)
    _refused(core, aj.OutOfBoundsError, lambda: aj.Compare(small, a, b, C.LT, 64))
    _refused(core, aj.ParameterError, lambda: aj.Compare(d, a, b, 9, 64))
    _refused(core, aj.ParameterError, lambda: aj.Compare(d, a, b, C.LT, 64, 256, (1, 1, 1, 8, 8, 8)))
    over = core.local_tensor("uint8", 32, addr=a.addr)
    _refused(core, aj.OverlapError, lambda: aj.Compare(over, a, b, C.LT, 64))
    _refused(core, aj.ParameterError, lambda: aj.Compares(d, a, True, C.LT, 64))
    sel = core.local_tensor("uint8", 32)
    _refused(core, aj.ParameterError, lambda: aj.Select(a, sel, a, 0.0, S.VSEL_TENSOR_TENSOR_MODE, 64))
    _refused(core, aj.UnsupportedDTypeError, lambda: aj.Select(a, a, a, b, S.VSEL_CMPMASK_SPR, 64))
    tiny = core.local_tensor("uint8", 2)
    _refused(core, aj.OutOfBoundsError, lambda: aj.Select(a, tiny, a, b, S.VSEL_TENSOR_TENSOR_MODE, 64))
    t910 = aj.Core("atlas-training")
    x, y, z = (t910.local_tensor("half", 128) for _ in range(3))
    m = t910.local_tensor("uint8", 32)
    _refused(t910, aj.ParameterError, lambda: aj.Select(z, m, x, y, S.VSEL_TENSOR_TENSOR_MODE, 128), "VSEL_CMPMASK_SPR")
    _refused(t910, aj.UnsupportedDeviceError, lambda: aj.Compares(m, x, 1.0, C.LT, 128))
    c950 = aj.Core("ascend950")
    e, f, g = c950.local_tensor("uint8", 32), c950.local_tensor("int64", 32), c950.local_tensor("int64", 32)
    _refused(c950, aj.UnsupportedDTypeError, lambda: aj.Compare(e, f, g, C.LT, 32, 1, (1, 1, 1, 8, 8, 8)), "count")
    _refused(c950, aj.ParameterError, lambda: aj.Compare(e, f.ReinterpretCast("float"), g.ReinterpretCast("float"),
                                                         C.LT, 0, 1, (1, 1, 1, 8, 8, 8)))


# S-1..S-3 with the values DK Select.md prints (float, elements 0..15 and 64..79 of its 256; selMask bytes as printed)
_S_SRC0 = {0: [-80.4933, 52.2499, -50.6124, -72.3737, -33.7107, -83.4001, 34.3954, 61.3188, 96.5484, 27.1321, -56.8153,
               9.80549, 9.11199, -53.1848, -77.2548, -0.0681466],
           64: [79.6631, 66.8743, 18.1016, -27.7082, -67.0339, -11.9576, 52.0373, -11.5452, -73.8953, -63.5915, 99.4875,
                -46.2296, 75.453, -67.2079, 89.8868, -19.9666]}
_S_SRC1 = {0: [35.8789, 44.0334, 54.9997, 44.8567, -30.8579, -53.714, -59.8013, 71.1663, 46.3484, 8.56818, -59.4716,
               6.07412, -39.0137, 64.5595, 17.0849, 45.2641],
           64: [-74.3328, 77.2781, 52.7964, -0.932984, 70.8957, -68.1249, 85.895, 25.4119, 71.9202, -73.1287, 63.6916,
                21.4303, 66.0614, 66.1438, -22.2332, 84.0665]}
_S_OUT = {  # (mode, first element) -> printed dst
    (2, 0): [35.8789, 44.0334, -50.6124, -72.3737, -33.7107, -83.4001, -59.8013, 71.1663, 46.3484, 8.56818, -59.4716,
             6.07412, -39.0137, -53.1848, 17.0849, 45.2641],
    (2, 64): [79.6631, 66.8743, 52.7964, -0.932984, -67.0339, -68.1249, 85.895, 25.4119, -73.8953, -63.5915, 99.4875,
              -46.2296, 66.0614, 66.1438, -22.2332, 84.0665],
    (1, 0): [0, 0, -50.6124, -72.3737, -33.7107, -83.4001, 0, 0, 0, 0, 0, 0, 0, -53.1848, 0, 0],
    (0, 64): [-74.3328, 77.2781, 18.1016, -27.7082, -67.0339, -11.9576, 85.895, 25.4119, 71.9202, -73.1287, 63.6916,
              21.4303, 66.0614, -67.2079, -22.2332, 84.0665]}
_S_MASK = [60, 32, 10, 7, 42, 52, 38, 26, 19, 15, 18, 83, 41, 43, 91, 30]


def test_select_doc_printouts(device):
    """S-1..S-3 as printed, on every device offering the mode (SPEC-2 12.0: API examples hold on every device that
    offers the call)."""
    core = aj.Core(device)
    a, b, d = (core.local_tensor("float", 128) for _ in range(3))
    sel = core.local_tensor("uint8", 32)
    x, y = np.zeros(128, np.float32), np.zeros(128, np.float32)
    for start in (0, 64):
        x[start:start + 16], y[start:start + 16] = _S_SRC0[start], _S_SRC1[start]
    a[:], b[:] = x, y
    sel[:] = np.array(_S_MASK + [0] * 16, np.uint8)
    calls = {2: lambda: aj.Select(d, sel, a, b, S.VSEL_TENSOR_TENSOR_MODE, 64, 2, (1, 1, 1, 8, 8, 8)),
             1: lambda: aj.Select(d, sel, a, 0.0, S.VSEL_TENSOR_SCALAR_MODE, 128),
             0: lambda: aj.Select(d, sel, a, b, S.VSEL_CMPMASK_SPR, 128)}
    for (mode, start), want in _S_OUT.items():
        if mode not in core.spec.select_modes:
            continue
        calls[mode]()
        assert np.array_equal(d.numpy()[start:start + 16], np.array(want, np.float32)), (mode, start)


def test_count_forms_refuse_is_set_mask_d32():
    core = aj.Core("atlas-a2")
    d, a, b = _inputs_a(core)
    sel = core.local_tensor("uint8", 32)
    h, f = core.local_tensor("half", 64), core.local_tensor("float", 64)
    offs = core.local_tensor("uint32", 64)
    for call in (lambda: aj.Compare(d, a, b, C.LT, 64, is_set_mask=True),
                 lambda: aj.Compares(d, a, 1.0, C.LT, 64, is_set_mask=False),
                 lambda: aj.Select(a, sel, a, b, S.VSEL_TENSOR_TENSOR_MODE, 64, is_set_mask=True),
                 lambda: aj.Cast(f, h, aj.RoundMode.CAST_NONE, 64, is_set_mask=True),
                 lambda: aj.Gather(h, h[32:], offs, 0, 16, is_set_mask=True)):
        with pytest.raises(TypeError, match="is_set_mask"):
            call()


def test_high_dim_values_by_keyword_and_position_mixed():
    """SPEC-2 1.1: every parameter is also a keyword. `Compare(..., mask, repeat_time=, repeat_params=)` is the
    high-dim call (it ran as the count form, its repeat_time and repeat_params silently dropped), `(..., mask,
    repeat_time, repeat_params=)` too (it was refused as 6 arguments); a count given twice, or with high-dim values,
    is refused before anything is written. The same for Compares, Select and Gather."""
    core = aj.Core("ascend950")
    a, b = core.local_tensor("half", 512), core.local_tensor("half", 512)
    a[:], b[:] = np.zeros(512, np.float16), np.ones(512, np.float16)
    d, h, sel = core.local_tensor("uint8", 64), core.local_tensor("half", 512), core.local_tensor("uint8", 64)
    offs = core.local_tensor("uint32", 512)
    offs[:] = np.arange(512, dtype=np.uint32) * 2
    sel[:] = np.full(64, 0x0F, np.uint8)
    P = aj.BinaryRepeatParams()
    cases = [  # (the all-positional high-dim call, equivalent mixed calls): same bytes everywhere
        (lambda: aj.Compare(d, a, b, C.LT, 64, 2, P),
         [lambda: aj.Compare(d, a, b, C.LT, 64, 2, repeat_params=P),
          lambda: aj.Compare(d, a, b, C.LT, 64, repeat_time=2, repeat_params=P),
          lambda: aj.Compare(d, a, b, cmp_mode=C.LT, mask=64, repeat_time=2, repeat_params=P)]),
        (lambda: aj.Compares(d, a, 0.5, C.LT, 64, 2, aj.UnaryRepeatParams()),
         [lambda: aj.Compares(d, a, 0.5, C.LT, 64, repeat_time=2, repeat_params=aj.UnaryRepeatParams())]),
        (lambda: aj.Select(h, sel, a, b, S.VSEL_TENSOR_TENSOR_MODE, 64, 2, P),
         [lambda: aj.Select(h, sel, a, b, S.VSEL_TENSOR_TENSOR_MODE, 64, repeat_time=2, repeat_params=P)]),
        (lambda: aj.Gather(h, a, offs, 0, 64, 2, 8),
         [lambda: aj.Gather(h, a, offs, 0, 64, repeat_time=2, dst_rep_stride=8),
          lambda: aj.Gather(h, a, offs, 0, 64, 2, dst_rep_stride=8)]),
    ]
    for positional, mixed in cases:
        for call in mixed:
            core.ub[d.addr:d.addr + 64] = 0x55
            h[:] = np.full(512, -1, np.float16)
            positional()
            want = core.ub.copy()
            core.ub[d.addr:d.addr + 64] = 0x55
            h[:] = np.full(512, -1, np.float16)
            call()
            assert np.array_equal(core.ub, want)
    for call in (lambda: aj.Compare(d, a, b, C.LT, 128, count=128),
                 lambda: aj.Compare(d, a, b, C.LT, count=128, repeat_time=1),
                 lambda: aj.Compares(d, a, 0.5, C.LT, 64, 2),
                 lambda: aj.Select(h, sel, a, b, S.VSEL_TENSOR_TENSOR_MODE, 128, count=128),
                 lambda: aj.Gather(h, a, offs, 0, 64, repeat_time=2),
                 lambda: aj.Gather(h, a, offs, 0, 64, count=64)):
        before = core.ub.copy()
        with pytest.raises(aj.ParameterError, match="arguments"):
            call()
        assert np.array_equal(core.ub, before)


def test_select_high_dim_sel_mask_bound_is_the_last_bit_read():
    """D59: selMask bytes a high-dim Select reads end at the last bit an active lane uses, as in the count form: in
    counter mode the last repeat has count % L lanes (modes 1/2 read count bits), with a bit mask only the active
    lanes' bits (mode 0: the highest active lane's). An exactly sized selMask was refused (its bound took whole
    repeats of L bits); one byte less is refused, nothing written."""
    core = aj.Core("ascend950")
    a, b, d = (core.local_tensor("half", 256) for _ in range(3))
    a[:], b[:] = np.ones(256, np.float16), np.zeros(256, np.float16)
    P = aj.BinaryRepeatParams()
    sel, short = core.local_tensor("uint8", 25), core.local_tensor("uint8", 24)
    sel[:], short[:] = np.full(25, 0xAA, np.uint8), np.full(24, 0xAA, np.uint8)
    core.SetMaskCount()
    d[:] = np.full(256, 7, np.float16)
    aj.Select(d, sel, a, b, S.VSEL_TENSOR_TENSOR_MODE, 200, 1, P)          # counter mode: 200 bits = 25 bytes
    assert np.array_equal(d.numpy(), np.r_[np.tile([0, 1], 100), np.full(56, 7)].astype(np.float16))
    with pytest.raises(aj.OutOfBoundsError, match="sel_mask"):
        aj.Select(d, short, a, b, S.VSEL_TENSOR_TENSOR_MODE, 200, 1, P)
    core.SetMaskNorm()
    one = core.local_tensor("uint8", 1)
    one[:] = np.array([0x0F], np.uint8)
    d[:] = np.full(256, 7, np.float16)
    aj.Select(d, one, a, b, S.VSEL_CMPMASK_SPR, [0xFF, 0], 2, P)            # lanes 0..7 of each repeat: bits 0..7
    assert np.array_equal(d.numpy()[[0, 3, 4, 7, 8, 128, 131, 132, 136]], np.array([1, 1, 0, 0, 7, 1, 1, 0, 7],
                                                                                      np.float16))


def test_compares_scalar_by_the_cxx_keyword():
    """SPEC-2 1.1: the scalar is also `src1_scalar=` (C++ src1Scalar) beside the SPEC's `scalar`; twice or missing
    is a TypeError."""
    core = aj.Core("atlas-a2")
    a, d = core.local_tensor("half", 128), core.local_tensor("uint8", 16)
    a[:] = np.arange(128).astype(np.float16)
    aj.Compares(d, a, cmp_mode=C.LT, count=128, src1_scalar=3.0)
    assert d.numpy()[:2].tolist() == [7, 0]
    aj.Compares(dst=d, src0=a, scalar=9.0, cmp_mode=C.LT, count=128)
    assert d.numpy()[:2].tolist() == [255, 1]
    for call in (lambda: aj.Compares(d, a, 1.0, C.LT, 128, src1_scalar=1.0), lambda: aj.Compares(d, a, cmp_mode=C.LT,
                                                                                               count=128)):
        with pytest.raises(TypeError, match="src1_scalar"):
            call()


@pytest.mark.ascend_sanitize(checks="", reason="checks the count forms' memo, which a sanitizing core bypasses "
                             "(it takes the full path)")
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_remembered_count_calls_take_each_calls_values_and_validate_each_key_part(device):
    """The count forms' memo (api/compare.py _count_key): a remembered call computes from the UB and the scalar of
    its own call and leaves the mask register as the full path does; each part of the key changed on its own is
    validated again; the sanitizer, a freed tensor and the 950's src1Local[0] overload take the full path."""
    from ascend_jit.api import compare as api
    rng = np.random.default_rng(38)
    core = aj.Core(device)
    a, b, d = (core.local_tensor("half", 256) for _ in range(3))
    bits = core.local_tensor("uint8", 32)

    def packed(cond):
        return np.packbits(cond, bitorder="little")

    calls = {
        "Compare": (lambda s: aj.Compare(bits, a, b, C.LT, 256), lambda x, y, s: packed(x < y), bits),
        "Compares": (lambda s: aj.Compares(bits, a, s, C.EQ, 256), lambda x, y, s: packed(x == s), bits),
        "Select": (lambda s: aj.Select(d, bits, a, b, S.VSEL_TENSOR_TENSOR_MODE, 256),
                   lambda x, y, s: np.where(np.unpackbits(bits.numpy(), bitorder="little")[:256] == 1, x, y), d),
        "Select scalar": (lambda s: aj.Select(d, bits, a, s, S.VSEL_TENSOR_SCALAR_MODE, 256),
                          lambda x, y, s: np.where(np.unpackbits(bits.numpy(), bitorder="little")[:256] == 1, x,
                                                   np.float16(s)), d),
    }
    for name, (call, want, out) in calls.items():
        states = set()
        for scalar in (0.5, -0.0, 0.0, 2.0):   # the first call validates, the others are remembered
            x = rng.integers(-3, 4, 256).astype(np.float16) / np.float16(2)
            x[:4] = (-0.0, 0.0, 0.5, 2.0)
            y = rng.integers(-3, 4, 256).astype(np.float16) / np.float16(2)
            a[:], b[:] = x, y
            if name.startswith("Select"):
                bits[:] = rng.integers(0, 256, 32).astype(np.uint8)
            expected = want(x, y, np.float16(scalar))
            core.SetVectorMask(0, 0x1234)
            call(scalar)
            got = out.numpy()
            assert np.array_equal(got.view(np.uint8), np.asarray(expected).view(np.uint8)), (name, scalar)
            states.add((core.mask_defined, core.mask_high, core.mask_low, core.counter_mode))
        assert len(states) == 1, (name, states)   # the full path's register state on every remembered call
    assert any(key[2] == "Select" for key in api._COUNT_CALLS) and any(key[2] == "Compares" for key in
                                                                        api._COUNT_CALLS)   # (device, bounds, api, ...)
    before = core.ub.copy()
    for call, error in ((lambda: aj.Compare(bits, a, b, C.LT, 192), aj.ParameterError),       # count: blocks
                        (lambda: aj.Compare(bits, a, b, C.LT, 512), aj.OutOfBoundsError),      # past the sources
                        (lambda: aj.Compare(bits[0:8], a, b, C.LT, 256), aj.OutOfBoundsError),  # dst too small
                        (lambda: aj.Compare(bits, a, b, 9, 256), aj.ParameterError),           # mode
                        (lambda: aj.Compare(bits, a, b, C.LT, True), aj.ParameterError),       # an exact int
                        (lambda: aj.Compares(bits, a, True, C.EQ, 256), aj.ParameterError),      # the scalar (D29)
                        (lambda: aj.Select(d, bits, a, b, S.VSEL_TENSOR_TENSOR_MODE, 512), aj.OutOfBoundsError)):
        with pytest.raises(error):
            call()
        assert np.array_equal(core.ub, before)
    aj.Compare(bits, a, b, C.GT, 256)                                      # another mode: its own result
    assert np.array_equal(bits.numpy(), packed(a.numpy() > b.numpy()))
    pipe, q = aj.TPipe(core), aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(q, 1, 32)
    t = q.AllocTensor("uint8")
    aj.Compare(t, a, b, C.LT, 256)
    aj.Compare(t, a, b, C.LT, 256)
    q.FreeTensor(t)
    with pytest.raises(aj.StateError, match="freed"):
        aj.Compare(t, a, b, C.LT, 256)
    if device == "ascend950":   # src1Local[0]: the element read when the call runs, never remembered
        one = core.local_tensor("half", 16)
        for v in (1.0, -0.5):
            one[:] = np.full(16, v, np.float16)
            aj.Compares(bits, a, one[0], C.EQ, 256)
            assert np.array_equal(bits.numpy(), packed(a.numpy() == np.float16(v)))
    checked = aj.Core(device, sanitize="report")                          # the same facts on a sanitizing core
    ca, cb = (checked.local_tensor("half", 256, addr=t.addr) for t in (a, b))
    cbits = checked.local_tensor("uint8", 32, addr=bits.addr)
    aj.Compare(cbits, ca, cb, C.LT, 256)                                  # sources never written:
    assert not checked.sanitizer.initialised[cbits.addr:cbits.addr + 32].any()   # its bits stay uninitialised
    aj.Select(ca, cbits, ca, cb, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, 8)   # and their reader is reported
    assert any(r.operand == "sel_mask" and r.earlier.api == "Compare" for r in checked.sanitizer.reports)


def test_the_cmpmask_register_forms_are_refused_as_not_offered():
    """The dst-less Compare (results into the CMPMASK register) and the Select reading it (VSEL_CMPMASK_SPR with no
    selMask tensor), ops-math NotEqual's float path (port54b): a ParameterError saying they are not offered and
    naming the form to use, as SetCmpMask's refusal does, where they had been a TypeError about is_set_mask or a
    refusal of a CMPMODE as src1."""
    with aj.Core("atlas-a2") as core:
        x1, x2, y = (core.local_tensor("float", 64) for _ in range(3))
        for call in (lambda: aj.Compare(x1, x2, aj.CMPMODE.EQ, aj.MASK_PLACEHOLDER, aj.BinaryRepeatParams(),
                                        is_set_mask=False),
                     lambda: aj.Compare(x1, x2, aj.CMPMODE.LT, 64, 1, aj.BinaryRepeatParams())):
            with pytest.raises(aj.ParameterError, match=r"Compare: parameter 'dst'.*not offered.*Compare\(dst, src0"):
                call()
        with pytest.raises(aj.ParameterError, match=r"Select: parameter 'sel_mask'.*not offered.*Compare's dst tensor"):
            aj.Select(y, x1, x2, aj.SELMODE.VSEL_CMPMASK_SPR, 1, aj.BinaryRepeatParams())
        # its mode as C++'s template argument, left out (port57e): had been "the count is missing"
        with pytest.raises(aj.ParameterError, match=r"Select: parameter 'sel_mask'.*not offered.*Compare's dst tensor"):
            aj.Select(y, x1, x2, 1, aj.BinaryRepeatParams())
        bits = core.local_tensor("uint8", 32)   # a selMask given and the mode forgotten: not taken for that form
        with pytest.raises(aj.AscendJitError) as refused:
            aj.Select(y, bits, x1, x2, aj.BinaryRepeatParams())
        assert "CMPMASK" not in str(refused.value)
