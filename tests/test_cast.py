"""Cast (SPEC-2 7): every 16-bit pattern through every pair, mode, device and overflow setting against the reference;
float32/int32/int64 sources on rounding-boundary grids; the golden vectors of SPEC-2 7.4 / 12.3 and the hardware
checklist; round trips; the high-dim forms (D33) over the whole UB; refusals."""
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.reference import convert as ref
from ascend_jit.reference import model as ref_model

R = aj.RoundMode
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
SIZE = {"half": 2, "float": 4, "bfloat16": 2, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4,
        "uint32": 4, "int64": 8, "uint64": 8}


def settings_of(device):
    """Every overflow setting a device can be put in: (CTRL[59], half saturating, CTRL[60])."""
    spec = aj.get_device(device)
    truncs = (0, 1) if spec.cast_trunc_switch else (0,)
    sats = (False, True) if spec.half_saturation_switchable else (spec.half_saturating_default,)
    out = [(t, s, 1) for t in truncs for s in sats]
    if spec.cast_ctrl60:
        out.append((1, False, 0))  # CTRL[60] = 0 forces the SAT trait whatever CTRL[59] / CTRL[48] say
    return out


DEVICE_SETTINGS = [(d, s) for d in aj.SUPPORTED_NAMES for s in settings_of(d)]


def make_core(device, setting, bounds="tensor"):
    ctrl59, sat, ctrl60 = setting
    core = aj.Core(device, bounds=bounds)
    if core.spec.half_saturation_switchable:
        core.SetCtrlSpr(48, 48, 0 if sat else 1)
    if core.spec.cast_trunc_switch:
        core.SetCtrlSpr(59, 59, ctrl59)
    if core.spec.cast_ctrl60:
        core.SetCtrlSpr(60, 60, ctrl60)
    return core


@lru_cache(maxsize=None)
def _ref_table(src, dst, mode, truncate, saturate, key):
    return ref.convert(src, dst, mode, _GRIDS[key], truncate, saturate)


class _Grids(dict):
    """Source bit patterns by grid name. The float32 and integer grids are built at their first use, not when
    pytest collects this file (numpy's unique over them takes about a second in every collecting process)."""

    def __missing__(self, key):
        if key not in _LAZY_GRIDS:
            raise KeyError(key)
        _build_lazy_grids(self)
        return dict.__getitem__(self, key)


_GRIDS = _Grids()


def expected(device, setting, src, dst, mode, key):
    truncate, saturate = ref.overflow_rules(device, src, dst, setting[0], setting[1], setting[2])
    return _ref_table(src, dst, mode, truncate, saturate, key)


def run_count(core, src, dst, mode, bits, chunk=8192):
    """Convert the bit patterns through the count form, chunk by chunk."""
    s = core.local_tensor(src, chunk)
    d = core.local_tensor(dst, chunk)
    out = np.empty(bits.size, np.uint64)
    for k in range(0, bits.size, chunk):
        part = bits[k:k + chunk]
        s[:part.size] = part.astype(UINT[SIZE[src]]).view(s.dtype.np_dtype)
        aj.Cast(d, s, R[mode], part.size)
        out[k:k + part.size] = d.numpy()[:part.size].view(UINT[SIZE[dst]])
    core.free(s.addr)
    core.free(d.addr)
    return out


def assert_same_bits(got, want, bits, label):
    bad = np.nonzero(got != want)[0]
    if bad.size:
        rows = ", ".join(f"{int(bits[i]):#x}: got {int(got[i]):#x} want {int(want[i]):#x}" for i in bad[:5])
        pytest.fail(f"{label}: {bad.size} of {bits.size} differ ({rows})")


_GRIDS["all16"] = np.arange(65536, dtype=np.uint64)


@pytest.mark.parametrize("device,setting", DEVICE_SETTINGS, ids=[f"{d}-{s}" for d, s in DEVICE_SETTINGS])
def test_every_16bit_pattern_every_pair_and_mode(device, setting):
    core = make_core(device, setting)
    pairs = [(p, m) for p, modes in core.spec.cast_pairs.items() if SIZE[p[0]] == 2 for m in modes]
    assert pairs
    for (src, dst), mode in pairs:
        got = run_count(core, src, dst, mode, _GRIDS["all16"], chunk=16384)
        assert_same_bits(got, expected(device, setting, src, dst, mode, "all16"), _GRIDS["all16"],
                         f"{device} {setting} {src}->{dst} {mode}")


def _float32_grids():
    """float32 sources: for a half destination every half value (as a float32) and every midpoint between
    neighbouring halves, each +-1 float ulp (every rounding boundary and the overflow threshold); for bfloat16 every
    bf16 pattern shifted into a float32 and offset by the bf16 half-ulp +-1 and +-1; for integer and float->float
    destinations integers and half-integers +-1 ulp around every integer limit and small values, and the specials."""
    h = np.arange(65536, dtype=np.int64)
    half = h.astype(np.uint16).view(np.float16).astype(np.float32).view(np.uint32).astype(np.int64)
    nxt = np.minimum(h + 1, 0xFFFF).astype(np.uint16).view(np.float16).astype(np.float64)
    with np.errstate(all="ignore"):
        mid = ((half.astype(np.uint32).view(np.float32).astype(np.float64) + nxt) / 2).astype(np.float32)
    mid = mid.view(np.uint32).astype(np.int64)
    half_grid = np.concatenate([(v[:, None] + np.array([-1, 0, 1])).ravel() for v in (half, mid)])
    bf16 = h << 16
    bf16_grid = (bf16[:, None] + np.array([-0x8001, -0x8000, -0x7FFF, -1, 0, 1])).ravel()
    around = []
    for c in (0, 1, 2, 3, 127, 128, 255, 256, 32767, 32768, 65535, 65536, 2**22, 2**23, 2**24, 2**31, 2**32, 2**63,
              2**64):
        for frac in np.arange(-2, 2.25, 0.25):
            for sign in (1, -1):
                v = int(np.float32(sign * (c + frac)).view(np.uint32))
                around += [v - 1, v, v + 1]
    around += [0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x80000000, 1, 0x80000001,
               0x00800000, 0x0D800000, 0x8D800000]
    clean = lambda g: np.unique(g[(g >= 0) & (g < 2**32)]).astype(np.uint64)  # noqa: E731
    return clean(half_grid), clean(bf16_grid), clean(np.array(around, np.int64))


_LAZY_GRIDS = ("f32-half", "f32-bf16", "f32-int", "i32", "i64")


def _build_lazy_grids(grids):
    grids["f32-half"], grids["f32-bf16"], grids["f32-int"] = _float32_grids()
    rng = np.random.default_rng(14)
    grids["i32"] = np.unique(np.concatenate([
        rng.integers(0, 2**32, 4000), np.arange(-4100, 4100) & 0xFFFFFFFF,
        np.array([v + k for v in (2**15, 2**16, 2**24, 2**25, 2**31, 2**32 - 2**15, 2**32 - 2**24, 2**32 - 2**31)
                  for k in range(-3, 4)]) & 0xFFFFFFFF]).astype(np.uint64))
    grids["i64"] = np.unique(np.concatenate([
        rng.integers(0, 2**63, 2000, dtype=np.uint64), np.arange(-3000, 3000).astype(np.int64).view(np.uint64),
        np.array([(v + k) % 2**64 for v in (2**31, 2**35 + 2**12 + 2**11, 2**40 + 2**16, 2**63, 2**64 - 2**31,
                                             2**64 - 2**40 - 2**16) for k in range(-3, 4)], np.uint64)]))


def grid_of(src, dst):
    if src == "float":
        return {"half": "f32-half", "bfloat16": "f32-bf16"}.get(dst, "f32-int")
    return "i64" if src == "int64" else "i32"


@pytest.mark.parametrize("device", ["ascend950", "atlas-200i-500-a2"])
def test_wide_sources_on_boundary_grids(device):
    """float32/int32/uint32/int64 sources: every pair and mode of the device (the 950's table holds every wide pair
    but 310B's int32 -> half) in every overflow setting that changes the flags of the pair."""
    seen = set()
    for setting in settings_of(device):
        core = make_core(device, setting)
        for (src, dst), modes in core.spec.cast_pairs.items():
            if SIZE[src] < 4:
                continue
            for mode in modes:
                flags = ref.overflow_rules(device, src, dst, *setting)
                if (src, dst, mode, flags) in seen:
                    continue
                seen.add((src, dst, mode, flags))
                key = grid_of(src, dst)
                got = run_count(core, src, dst, mode, _GRIDS[key], chunk=16384)
                assert_same_bits(got, expected(device, setting, src, dst, mode, key), _GRIDS[key],
                                 f"{device} {setting} {src}->{dst} {mode}")
    assert len(seen) >= 8


def _random_patterns_of_every_wide_pair(device_setting, data):
    device, setting = device_setting
    core = make_core(device, setting)
    pairs = sorted((p, m) for p, modes in core.spec.cast_pairs.items() for m in modes)
    (src, dst), mode = data.draw(st.sampled_from(pairs))
    bits = np.array(data.draw(st.lists(st.integers(0, 2**(8 * SIZE[src]) - 1), min_size=1, max_size=64)), np.uint64)
    got = run_count(core, src, dst, mode, bits, chunk=64)
    truncate, saturate = ref.overflow_rules(device, src, dst, *setting)
    assert_same_bits(got, ref.convert(src, dst, mode, bits, truncate, saturate), bits, f"{src}->{dst} {mode}")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(DEVICE_SETTINGS), st.data())
def test_random_patterns_of_every_wide_pair(device_setting, data):
    _random_patterns_of_every_wide_pair(device_setting, data)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(DEVICE_SETTINGS), st.data())
def test_random_patterns_of_every_wide_pair_sweep(device_setting, data):
    _random_patterns_of_every_wide_pair(device_setting, data)


# --- golden vectors (SPEC-2 12.3) ----------------------------------------------------------------------------------
MODES5 = ("CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC")
GOLDEN = [  # (pair, input bits, {mode: output}) PC worked examples C-1..C-14, saturating conversion mode
    ("float", "half", 0x3F001000, (0x3800, 0x3800, 0x3801, 0x3801, 0x3800), 0x3801),
    ("float", "bfloat16", 0x3F00A000, (0x3F01, 0x3F00, 0x3F01, 0x3F01, 0x3F00), None),
    ("int16", "half", 4098, (0x6C00, 0x6C00, 0x6C01, 0x6C01, 0x6C00), None),
    ("int32", "float", 2**25 + 3, (0x4C000001, 0x4C000000, 0x4C000001, 0x4C000001, 0x4C000000), None),
    ("int64", "float", 2**35 + 2**12 + 2**11, (0x51000002, 0x51000001, 0x51000002, 0x51000002, 0x51000001), None),
    ("half", "int32", 0xBE00, (-2, -2, -1, -2, -1), None),
    ("half", "int8", 0x57F8, (127, 127, 127, 127, 127), None),
    ("half", "int16", 0x57F8, (128, 127, 128, 128, 127), None),
    ("half", "uint8", 0x3F00, (2, 1, 2, 2, 1), None),
    ("bfloat16", "int32", 0x4281, (64, 64, 65, 65, 64), None),
    ("float", "int32", 0x4A800001, (4194304, 4194304, 4194305, 4194305, 4194304), None),
    ("float", "int64", 0x4A800001, (4194304, 4194304, 4194305, 4194305, 4194304), None),
    ("float", "float", 0x3F000000, (0, 0, 0x3F800000, 0x3F800000, 0), None),
    ("float", "int16", 0x4A800001, (32767,) * 5, None),
    ("bfloat16", "half", 0x3643, (0x0031, 0x0030, 0x0031, 0x0031, 0x0030), None),
]


def cast_one(core, src, dst, mode, bits):
    return int(run_count(core, src, dst, mode, np.array([bits], np.uint64), chunk=16)[0])


def as_bits(value, dtype):
    return int(np.array([value]).astype(np.int64).astype(UINT[SIZE[dtype]])[0]) if isinstance(value, int) else value


@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_pc_worked_examples(device):
    core = aj.Core(device)
    checked = 0
    for src, dst, x, outs, odd in GOLDEN:
        modes = core.spec.cast_pairs.get((src, dst), ())
        for mode, want in list(zip(MODES5, outs)) + [("CAST_ODD", odd)]:
            if mode in modes:
                want_bits = want & (2**(8 * SIZE[dst]) - 1)
                assert cast_one(core, src, dst, mode, x) == want_bits, (src, dst, mode)
                checked += 1
    assert checked >= 8


def test_pc_examples_in_truncation_mode_keep_the_low_bits():
    for device in ("ascend950", "atlas-a2"):
        core = make_core(device, (1, False, 1))
        assert cast_one(core, "half", "int8", "CAST_RINT", 0x57F8) == 0x80       # 127.5 -> 128 -> -128
        assert cast_one(core, "float", "int16", "CAST_RINT", 0x4A800001) == 0    # 2**22 + 0.5 -> 2**22 -> 0


C15 = [  # (src, dst, input, saturating result, 950 truncation result or None)
    ("int8", "half", -1, 0xBC00, None), ("int8", "int16", 127, 127, None), ("int8", "int32", 127, 127, None),
    ("uint8", "half", 1, 0x3C00, None), ("uint8", "uint16", 255, 255, None), ("uint8", "uint32", 255, 255, None),
    ("int16", "uint8", 32767, 255, None), ("int16", "uint32", 32767, 32767, None), ("int16", "int32", 32767, 32767, None),
    ("int16", "float", 32767, 0x46FFFE00, None), ("uint16", "uint8", 65535, 255, None),
    ("uint16", "uint32", 65535, 65535, None), ("half", "float", 0x3DFF, 0x3FBFE000, None),
    ("bfloat16", "float", 0x3FBF, 0x3FBF0000, None), ("int32", "uint8", 2**31 - 1, 255, None),
    ("int32", "uint16", 2**31 - 1, 65535, None), ("int32", "int16", 2**31 - 1, 32767, 0xFFFF),
    ("int32", "int64", 2**31 - 1, 2**31 - 1, None), ("uint32", "uint8", 2**32 - 1, 255, None),
    ("uint32", "uint16", 2**32 - 1, 65535, None), ("uint32", "int16", 2**32 - 1, 32767, 0xFFFF),
    ("int64", "int32", 2**31, 2**31 - 1, 0x80000000)]


def test_cast_none_pairs_c15_on_the_950():
    sat, trunc = aj.Core("ascend950"), make_core("ascend950", (1, False, 1))
    for src, dst, x, want, want_trunc in C15:
        x_bits = as_bits(x, src)
        assert cast_one(sat, src, dst, "CAST_NONE", x_bits) == want, (src, dst)
        assert cast_one(trunc, src, dst, "CAST_NONE", x_bits) == (want if want_trunc is None else want_trunc), (src, dst)


BOUNDARY_A2 = [  # MemBV-T32 rows (A2/A3, saturating conversion; RINT)
    ("half", "int8", [(0x7BFF, 127), (0xFBFF, 0x80), (0x0000, 0), (0x8000, 0), (0x7E00, 0), (0x7C00, 127),
                      (0xFC00, 0x80)]),
    ("half", "uint8", [(0x7BFF, 255), (0xFBFF, 0), (0x7E00, 0), (0xFC00, 0)]),
    ("half", "int16", [(0x7E00, 0), (0x0000, 0), (0x7BFF, 32767), (0xFBFF, 0x8000)]),
    ("half", "int32", [(0x7BFF, 65504), (0x7C00, 2**31 - 1), (0xFC00, 2**31), (0x7E00, 0)]),
    ("int16", "half", [(0x7FFF, 0x7800), (0x8000, 0xF800)]),
    ("bfloat16", "int32", [(0x7F7F, 2**31 - 1), (0x7F80, 2**31 - 1), (0xFF7F, 2**31), (0xFF80, 2**31), (0x7FC0, 0)]),
    ("int32", "int16", [(0x7FFFFFFF, 32767), (0x80000000, 0x8000)]),
    ("int32", "float", [(0x80000000, 0xCF000000), (0x7FFFFFFF, 0x4F000000)]),                       # H-23
    ("float", "int16", [(0x7F7FFFFF, 32767), (0x7F800000, 32767), (0xFF800000, 0x8000), (0x7FC00000, 0)]),
    ("float", "int32", [(0x7F7FFFFF, 2**31 - 1), (0xFF800000, 2**31), (0x7FC00000, 0)]),
    ("float", "int64", [(0x7F7FFFFF, 2**63 - 1), (0xFF800000, 2**63), (0x7FC00000, 0)]),
    ("float", "float", [(0x80000000, 0), (0x7F7FFFFF, 0x7F7FFFFF), (0x7F800000, 0x7F800000), (0xFF800000, 0xFF800000),
                        (0x7FC00000, 0x7FC00000)]),
    ("int64", "int32", [(2**63 - 1, 2**31 - 1), (2**63, 2**31)]),
    ("int64", "float", [(2**63 - 1, 0x5F000000)]),
]


def plain_mode(core, src, dst):
    """The boundary tables' mode: CAST_NONE where the pair offers it, else CAST_RINT."""
    return "CAST_NONE" if "CAST_NONE" in core.spec.cast_pairs[(src, dst)] else "CAST_RINT"


@pytest.mark.parametrize("sat", [False, True])
def test_membv_t32_rows_on_a2(sat):
    core = make_core("atlas-a2", (0, sat, 1))
    for src, dst, rows in BOUNDARY_A2:
        for x, want in rows:
            assert cast_one(core, src, dst, plain_mode(core, src, dst), x) == want, (src, dst, hex(x))
    specials = {("float", "half"): [(0x7F7FFFFF, 0x7BFF if sat else 0x7C00), (0x7F800000, 0x7BFF if sat else 0x7C00),
                                    (0x7FC00000, 0 if sat else 0x7E00)],
                ("float", "bfloat16"): [(0x7F7FFFFF, 0x7F7F if sat else 0x7F80), (0x7FC00000, 0 if sat else 0x7FC0),
                                        (0x80000000, 0x8000)]}
    for (src, dst), rows in specials.items():
        for x, want in rows:
            assert cast_one(core, src, dst, "CAST_RINT", x) == want, (src, dst, hex(x))
    assert cast_one(core, "int32", "float", "CAST_FLOOR", 0x7FFFFFFF) == 0x4EFFFFFF   # MemBV-T32 2147483520
    assert cast_one(core, "int32", "float", "CAST_NONE", 0x7FFFFFFF) == 0x4F000000    # H-23
    assert cast_one(core, "int64", "float", "CAST_TRUNC", 2**63 - 1) == 0x5EFFFFFF


REGBV_T34 = [  # (src, dst, input, truncation, saturation), RINT
    ("half", "int8", 0xFBFF, 32, 0x80), ("half", "int8", 0x7BFF, 0xE0, 127), ("half", "int8", 0x7C00, 127, 127),
    ("half", "int8", 0xFC00, 0x80, 0x80), ("half", "int8", 0x7E00, 0, 0), ("half", "uint8", 0xFBFF, 32, 0),
    ("half", "uint8", 0x7BFF, 224, 255), ("half", "uint8", 0x7C00, 255, 255), ("half", "uint8", 0xFC00, 0, 0),
    ("half", "int16", 0x7BFF, 32767, 32767),                                                             # H-15
    ("bfloat16", "int32", 0xFF7F, 0, 2**31), ("bfloat16", "int32", 0x7F7F, 0, 2**31 - 1),
    ("float", "int32", 0xFF7FFFFF, 0, 2**31), ("float", "int32", 0x7F7FFFFF, 0, 2**31 - 1),
    ("float", "int32", 0x7F800000, 2**31 - 1, 2**31 - 1), ("float", "int16", 0xFF7FFFFF, 0, 0x8000),
    ("float", "int16", 0x7F7FFFFF, 0, 32767), ("float", "int16", 0xFF800000, 0x8000, 0x8000),
    ("int32", "int16", 0x80000000, 0, 0x8000), ("int32", "int16", 0x7FFFFFFF, 0xFFFF, 32767),
    ("int64", "int32", 2**63, 0, 2**31), ("int64", "int32", 2**63 - 1, 0xFFFFFFFF, 2**31 - 1),
    ("uint32", "int16", 2**32 - 1, 0xFFFF, 32767), ("int16", "uint32", 0x8000, 0, 0)]


def test_regbv_t34_rows_on_the_950():
    cores = {False: make_core("ascend950", (1, False, 1)), True: aj.Core("ascend950")}
    for src, dst, x, trunc, sat in REGBV_T34:
        mode = plain_mode(cores[True], src, dst)
        assert cast_one(cores[False], src, dst, mode, x) == trunc, (src, dst, hex(x), "trunc")
        assert cast_one(cores[True], src, dst, mode, x) == sat, (src, dst, hex(x), "sat")
    forced = make_core("ascend950", (1, False, 0))                 # CTRL[60] = 0: the Memory Cast saturates
    assert cast_one(forced, "int32", "int16", "CAST_NONE", 0x7FFFFFFF) == 32767
    assert cast_one(forced, "float", "half", "CAST_RINT", 0x7F7FFFFF) == 0x7BFF


@pytest.mark.parametrize("sat", [False, True])
def test_950_half_bf16_specials_pass_but_other_half_destinations_saturate(sat):
    core = make_core("ascend950", (0, sat, 1))
    assert cast_one(core, "half", "bfloat16", "CAST_RINT", 0x7C00) == 0x7F80      # H-24, D71
    assert cast_one(core, "half", "bfloat16", "CAST_RINT", 0x7E00) == 0x7FC0
    assert cast_one(core, "bfloat16", "half", "CAST_RINT", 0x7F7F) == (0x7BFF if sat else 0x7C00)
    assert cast_one(core, "bfloat16", "half", "CAST_RINT", 0x7FC0) == (0 if sat else 0x7E00)


def test_directed_overflow_of_float_to_half_h14():
    core = aj.Core("atlas-a2")                         # INF/NaN mode by default
    x = 0x4788B800                                     # 70000.0
    want = {"CAST_RINT": (0x7C00, 0xFC00), "CAST_ROUND": (0x7C00, 0xFC00), "CAST_TRUNC": (0x7BFF, 0xFBFF),
            "CAST_ODD": (0x7BFF, 0xFBFF), "CAST_FLOOR": (0x7BFF, 0xFC00), "CAST_CEIL": (0x7C00, 0xFBFF)}
    for mode, (pos, neg) in want.items():
        assert cast_one(core, "float", "half", mode, x) == pos, mode
        assert cast_one(core, "float", "half", mode, x | 0x80000000) == neg, mode


def test_h3_default_saturates_and_set_saturation_flag_cast_switches():
    core = aj.Core("atlas-a2")
    assert cast_one(core, "float", "int16", "CAST_RINT", 0x4788B800) == 32767
    core.SetSaturationFlag(False, aj.SaturationMode.CAST)
    assert not core.GetSaturationFlag(aj.SaturationMode.CAST)
    assert cast_one(core, "float", "int16", "CAST_RINT", 0x4788B800) == 4464
    assert cast_one(core, "half", "int16", "CAST_RINT", 0x7BFF) == 32767   # D45: half -> int16 always saturates


def test_cast_none_is_rint_h2():
    for device in aj.SUPPORTED_NAMES:   # every device whose table offers CAST_NONE for the pairs (not the 950)
        core = aj.Core(device)
        if "CAST_NONE" in core.spec.cast_pairs[("half", "int8")]:
            assert cast_one(core, "half", "int8", "CAST_NONE", 0x4100) == 2
            assert cast_one(core, "half", "int8", "CAST_NONE", 0x3E00) == 2
        assert cast_one(core, "float", "half", "CAST_NONE", 0x3F001000) == 0x3800


def test_cast_md_example_c16_c17_every_form():
    core = aj.Core("atlas-a2")
    src, dst = core.local_tensor("half", 512), core.local_tensor("int32", 512)
    vals = np.resize(np.array([1.4, 1.5, 1.6, 2.4, 2.5, 2.6], np.float16), 512)
    src[:] = vals
    want = {"CAST_CEIL": [2, 2, 2, 3, 3, 3], "CAST_RINT": [1, 2, 2, 2, 2, 3], "CAST_FLOOR": [1, 1, 1, 2, 2, 2],
            "CAST_ROUND": [1, 2, 2, 2, 3, 3], "CAST_TRUNC": [1, 1, 1, 2, 2, 2]}
    for mode, first in want.items():
        aj.Cast(dst, src, R[mode], 512)
        assert dst.numpy()[:6].tolist() == first
        dst[:] = np.zeros(512, np.int32)
        aj.Cast(dst, src, R[mode], 64, 8, aj.UnaryRepeatParams(1, 1, 8, 4))
        assert dst.numpy()[:6].tolist() == first
    dst[:] = np.full(512, 0x5555AAAA, np.int64).astype(np.int32)
    aj.Cast(dst, src, R.CAST_CEIL, 32, 8, (1, 1, 8, 4))              # C-17: mask 32 of 64 lanes
    out = dst.numpy().reshape(8, 64)
    assert np.array_equal(out[:, :32], np.ceil(vals.astype(np.float64)).reshape(8, 64)[:, :32])
    assert (out[:, 32:] == np.int32(0x5555AAAA)).all()


# --- round trips ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_half_to_float_to_half_is_the_identity(device):
    core = aj.Core(device)
    bits = np.arange(65536, dtype=np.uint64)
    wide = run_count(core, "half", "float", "CAST_NONE", bits, chunk=16384)
    back = run_count(core, "float", "half", "CAST_NONE", wide, chunk=16384)
    is_nan = ((bits & 0x7C00) == 0x7C00) & ((bits & 0x3FF) != 0)
    finite_or_inf = ~is_nan
    if core.half_saturating:   # saturation mode: inf -> MAX, NaN -> +0 on the way back (D46)
        finite_or_inf &= (bits & 0x7FFF) != 0x7C00
    assert np.array_equal(back[finite_or_inf], bits[finite_or_inf])
    assert set(back[is_nan].tolist()) == ({0} if core.half_saturating else {0x7E00})


def test_cast_odd_is_sticky():
    """CAST_ODD: an exact result is kept; an inexact one is the neighbour with an odd significand, so a second
    rounding of the half to a narrower format never double-rounds (the property round-to-odd exists for)."""
    core = aj.Core("atlas-a2")
    g = _GRIDS["f32-half"]
    x = g.astype(np.uint32).view(np.float32)
    finite = np.isfinite(x) & (np.abs(x) <= 65504)
    odd = run_count(core, "float", "half", "CAST_ODD", g)[finite].astype(np.uint16)
    x = x[finite].astype(np.float64)
    y = odd.view(np.float16).astype(np.float64)
    floor = run_count(core, "float", "half", "CAST_FLOOR", g)[finite].astype(np.uint16).view(np.float16)
    ceil = run_count(core, "float", "half", "CAST_CEIL", g)[finite].astype(np.uint16).view(np.float16)
    exact = y == x
    assert ((odd[~exact] & 1) == 1).all()
    assert ((y == floor.astype(np.float64)) | (y == ceil.astype(np.float64))).all()
    assert exact.any() and (~exact).any()


# --- high-dim forms (D33) over the whole UB ---------------------------------------------------------------------
def _high_dim_whole_ub_matches_reference(device, data):
    core = aj.Core(device, bounds="ub")
    pairs = sorted((p, m) for p, modes in core.spec.cast_pairs.items() for m in modes)
    (src, dst), mode = data.draw(st.sampled_from(pairs))
    wide = max(SIZE[src], SIZE[dst])
    lanes = 256 // wide
    if data.draw(st.booleans()):
        mask = data.draw(st.integers(1, lanes))
        active = list(range(mask))
    else:
        words = [data.draw(st.integers(1, 2**min(lanes, 64) - 1))]
        if lanes == 128:
            words.append(data.draw(st.integers(0, 2**64 - 1)))
        mask = words
        active = ref_model.lanes_of_mask(words[0], words[1] if len(words) == 2 else 0, lanes)
    repeat = data.draw(st.integers(0, 6))
    params = aj.UnaryRepeatParams(data.draw(st.integers(1, 4)), data.draw(st.integers(0, 4)),
                                  data.draw(st.integers(0, 16)), data.draw(st.integers(0, 16)))
    ub = core.spec.ub_bytes
    dst_addr = 32 * data.draw(st.integers(0, 1000))
    src_addr = ub // 2 + 32 * data.draw(st.integers(0, 1000))
    core.ub[:] = np.frombuffer(np.random.default_rng(data.draw(st.integers(0, 2**32))).bytes(ub), np.uint8)
    core.ub_written_by_host()   # raw UB bytes: initialised for the sanitizer
    # bounds="ub": the strides may reach anywhere in the UB, so the tensors (address handles here) run to its end
    d = core.local_tensor(dst, (ub - dst_addr) // SIZE[dst], addr=dst_addr)
    s = core.local_tensor(src, (ub - src_addr) // SIZE[src], addr=src_addr)
    want = core.ub.copy()
    truncate, saturate = ref.overflow_rules(device, src, dst, 0, core.half_saturating)
    ref.cast_high_dim(want, src, dst, mode, dst_addr, src_addr, active, repeat,
                      (params.dstBlkStride, params.srcBlkStride, params.dstRepStride, params.srcRepStride),
                      truncate, saturate)
    aj.Cast(d, s, R[mode], mask, repeat, params)
    assert np.array_equal(core.ub, want)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(aj.SUPPORTED_NAMES), st.data())
def test_high_dim_whole_ub_matches_reference(device, data):
    _high_dim_whole_ub_matches_reference(device, data)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(aj.SUPPORTED_NAMES), st.data())
def test_high_dim_whole_ub_matches_reference_sweep(device, data):
    _high_dim_whole_ub_matches_reference(device, data)


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950", "atlas-training"])
def test_high_dim_counter_mode_uses_the_mask_as_element_count(device):
    core = aj.Core(device)
    s, d = core.local_tensor("half", 256), core.local_tensor("float", 256)
    s[:] = np.arange(256, dtype=np.float16)
    d[:] = np.full(256, -1, np.float32)
    core.SetMaskCount()
    aj.Cast(d, s, R.CAST_NONE, 100, 255, (1, 1, 8, 4))
    out = d.numpy()
    assert np.array_equal(out[:100], np.arange(100, dtype=np.float32)) and (out[100:] == -1).all()


@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_high_dim_counter_mode_with_strides_matches_reference(device):
    """SPEC-2 1.4 / D33: in counter mode the element count (the mask argument, or the register with
    is_set_mask=False) counts lanes of the wider type; repeats are full but the last, repeat_time is ignored, and
    each operand keeps its own strides: two random pairs per device over the whole UB against the reference."""
    rng = np.random.default_rng(sum(map(ord, device)))
    core = aj.Core(device, bounds="ub")
    pairs = sorted((p, m) for p, modes in core.spec.cast_pairs.items() for m in modes)
    ub = core.spec.ub_bytes
    for trial in range(2):
        (src, dst), mode = pairs[rng.integers(len(pairs))]
        lanes = 256 // max(SIZE[src], SIZE[dst])
        count = int(rng.integers(1, 6 * lanes))
        params = tuple(int(v) for v in (rng.integers(1, 4), rng.integers(0, 4), rng.integers(1, 16),
                                        rng.integers(1, 16)))
        core.ub[:] = rng.integers(0, 256, ub, dtype=np.uint8)
        d = core.local_tensor(dst, (ub // 2) // SIZE[dst], addr=0)
        s = core.local_tensor(src, (ub // 2) // SIZE[src], addr=ub // 2)
        core.ub_written_by_host()   # the random UB bytes (the tensors made them undefined): initialised
        want = core.ub.copy()
        truncate, saturate = ref.overflow_rules(device, src, dst, 0, core.half_saturating)
        repeat = -(-count // lanes)
        ref.cast_high_dim(want, src, dst, mode, 0, ub // 2, list(range(lanes)), repeat, params, truncate, saturate,
                          last_lanes=count - (repeat - 1) * lanes)
        core.SetMaskCount()
        if trial:
            aj.Cast(d, s, R[mode], count, 7, params)
        else:
            core.SetVectorMask(0, count)
            aj.Cast(d, s, R[mode], aj.MASK_PLACEHOLDER, 7, params, is_set_mask=False)
        core.SetMaskNorm()
        assert np.array_equal(core.ub, want), (src, dst, mode, count, params)


def test_count_form_mask_register_effect_and_count_zero():
    core = aj.Core("atlas-training")   # 910: the count form leaves the tail repeat's mask (SPEC D22)
    s, d = core.local_tensor("half", 256), core.local_tensor("float", 256)
    s[:] = np.zeros(256, np.float16)
    aj.Cast(d, s, R.CAST_NONE, 100)
    assert (core.mask_high, core.mask_low) == (0, 2**36 - 1)
    before = core.ub.copy()
    core.SetVectorMask(0, 5)
    aj.Cast(d, s, R.CAST_NONE, 0)
    assert np.array_equal(core.ub, before) and core.mask_low == 5


# --- refusals: right class, UB unchanged ------------------------------------------------------------------------
def _refused(core, error, call, *words):
    before = core.ub.copy()
    mask = (core.mask_high, core.mask_low, core.mask_defined)
    with pytest.raises(error) as info:
        call()
    assert np.array_equal(core.ub, before) and (core.mask_high, core.mask_low, core.mask_defined) == mask
    for w in words:
        assert w in str(info.value)


def test_refusals():
    core = aj.Core("atlas-a2")
    h, f, i32 = core.local_tensor("half", 256), core.local_tensor("float", 256), core.local_tensor("int32", 256)
    _refused(core, aj.UnsupportedDTypeError, lambda: aj.Cast(h, i32, R.CAST_RINT, 64), "D47", "atlas-a2")
    core910 = aj.Core("atlas-training")  # no int32 -> half row at all (SPEC-2 7.2 "—"), not D47's SetDeqScale case
    h9, i9 = core910.local_tensor("half", 256), core910.local_tensor("int32", 256)
    _refused(core910, aj.UnsupportedDTypeError, lambda: aj.Cast(h9, i9, R.CAST_RINT, 64), "not in this device's table")
    _refused(core, aj.UnsupportedDTypeError, lambda: aj.Cast(f, h, R.CAST_HYBRID, 64), "D28")
    _refused(core, aj.UnsupportedDTypeError, lambda: aj.Cast(f, h, R.CAST_RINT, 64), "CAST_NONE")
    _refused(core, aj.UnsupportedDTypeError, lambda: aj.Cast(i32, h, R.CAST_NONE, 64), "D72")
    bf = core.local_tensor("bfloat16", 256)
    _refused(core, aj.UnsupportedDTypeError, lambda: aj.Cast(bf, h, R.CAST_RINT, 64), "half -> bfloat16")
    _refused(core, aj.ParameterError, lambda: aj.Cast(f, h, 9, 64))
    _refused(core, aj.ParameterError, lambda: aj.Cast(f, h, R.CAST_NONE, 64, 1), "arguments", "atlas-a2")
    _refused(core, aj.OutOfBoundsError, lambda: aj.Cast(f, h, R.CAST_NONE, 257))
    odd = core.local_tensor("half", 64, addr=h.addr + 2)
    _refused(core, aj.AlignmentError, lambda: aj.Cast(f, odd, R.CAST_NONE, 64))
    over = core.local_tensor("float", 64, addr=h.addr + 64)
    _refused(core, aj.OverlapError, lambda: aj.Cast(over, h, R.CAST_NONE, 64), "a copy of the source")
    # H-22: a bit mask for 32-bit lanes uses mask[0] only
    _refused(core, aj.ParameterError, lambda: aj.Cast(i32, h, R.CAST_CEIL, [0, 2**64 - 1], 1, (1, 1, 8, 4)))
    _refused(core, aj.ParameterError, lambda: aj.Cast(f, h, R.CAST_NONE, 64, 256, (1, 1, 8, 4)))
    _refused(core, aj.ParameterError, lambda: aj.Cast(f, h, R.CAST_NONE, 64, 1, (0, 1, 8, 4)))
    _refused(core, aj.OutOfBoundsError, lambda: aj.Cast(f, h, R.CAST_NONE, 64, 5, (1, 1, 8, 4)), "dst")
    _refused(core, aj.OverlapError, lambda: aj.Cast(over, h, R.CAST_NONE, 64, 1, (1, 1, 8, 4)),
             "a copy of the source")
    core950 = aj.Core("ascend950")
    a, b = core950.local_tensor("half", 128), core950.local_tensor("float", 128)
    _refused(core950, aj.ParameterError, lambda: aj.Cast(b, a, R.CAST_NONE, 0, 1, (1, 1, 8, 4)))
    # SPEC-2 1.8: a pair the device lacks is refused as such even with a mask illegal for its lanes
    i64 = core.local_tensor("int64", 64)
    _refused(core, aj.UnsupportedDTypeError, lambda: aj.Cast(h, i64, R.CAST_RINT, [2**64 - 1, 1], 1, (1, 1, 8, 8)))


def test_round_mode_as_its_integer_value_python_or_numpy():
    """decisions.md (Cast `round_mode`): an aj.RoundMode member or its integer value, also as a numpy integer (the
    audit's numpy-scalar arguments); a bool, a float or a value outside the enum stays a ParameterError."""
    core = aj.Core("atlas-a2")
    s, d = core.local_tensor("half", 16), core.local_tensor("int32", 16)
    s[:] = np.full(16, 1.5, np.float16)
    for mode in (R.CAST_CEIL, 3, np.int64(3), np.uint8(3), np.int32(3)):
        d[:] = np.zeros(16, np.int32)
        aj.Cast(d, s, mode, 16)
        assert (d.numpy() == 2).all(), mode
        aj.Cast(d, s, mode, 16, 1, (1, 1, 8, 4))
    for bad in (np.bool_(True), True, np.float32(3.0), np.int64(99), "CAST_CEIL"):
        _refused(core, aj.ParameterError, lambda: aj.Cast(d, s, bad, 16), "round_mode")


def test_310b_accepts_int32_to_half_d47():
    core = aj.Core("310b")
    assert cast_one(core, "int32", "half", "CAST_NONE", 4098) == 0x6C00
    assert cast_one(core, "int32", "half", "CAST_TRUNC", 2**31 - 1) == 0x7BFF
    assert cast_one(core, "int32", "half", "CAST_RINT", 2**31 - 1) == 0x7C00


def test_high_dim_mask_register_use_and_effect():
    """is_set_mask=False reads the register (SPEC 2.5); a bit-mask call leaves its mask there (D31/D22)."""
    core = aj.Core("ascend950")
    s, d = core.local_tensor("half", 128), core.local_tensor("float", 128)
    s[:] = np.arange(128, dtype=np.float16)
    d[:] = np.full(128, -1, np.float32)
    aj.Cast(d, s, R.CAST_NONE, [0b1011], 1, (1, 1, 8, 4))
    assert core.mask_low == 0b1011
    assert d.numpy()[:5].tolist() == [0, 1, -1, 3, -1]
    core.SetVectorMask(0, 0b110000)
    aj.Cast(d, s, R.CAST_NONE, aj.MASK_PLACEHOLDER, 1, (1, 1, 8, 4), is_set_mask=False)
    assert d.numpy()[:6].tolist() == [0, 1, -1, 3, 4, 5]
    b310 = aj.Core("310b")
    s, d = b310.local_tensor("half", 128), b310.local_tensor("float", 128)
    before = b310.ub.copy()
    aj.Cast(d, s, R.CAST_NONE, 0, 1, (1, 1, 8, 4))       # D30: mask 0 is a NOP off the 950
    assert np.array_equal(b310.ub, before)


def test_310b_high_dim_calls_leave_the_mask_register_untouched_d31():
    core = aj.Core("310b")
    s, d = core.local_tensor("half", 128), core.local_tensor("float", 128)
    s[:] = np.zeros(128, np.float16)
    core.SetVectorMask(0, 0b111)
    aj.Cast(d, s, R.CAST_NONE, [0b1], 1, (1, 1, 8, 4))
    sel = core.local_tensor("uint8", 32)
    a, b, x = (core.local_tensor("half", 128) for _ in range(3))
    sel[:], a[:], b[:] = np.zeros(32, np.uint8), np.zeros(128, np.float16), np.zeros(128, np.float16)
    aj.Select(x, sel, a, b, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, 16, 1, (1, 1, 1, 8, 8, 8))
    assert (core.mask_high, core.mask_low) == (0, 0b111)


def test_count_form_memo_keys_hold_everything_validation_reads():
    """Issue 21: Cast's remembered count-form call shapes (api/cast.py _count_key): each part of the key changed on
    its own is validated again (refused, or run with its own result); the overflow flags are read on every call."""
    core = aj.Core("atlas-a2")
    src, dst = core.local_tensor("float", 64), core.local_tensor("half", 64)
    k = np.arange(64)
    src[:] = (1 + (k + 0.5) * 2.0**-10).astype(np.float32)   # halfway between two halves: FLOOR and CEIL differ
    down, up = (1 + k * 2.0**-10).astype(np.float16), (1 + (k + 1) * 2.0**-10).astype(np.float16)
    for _ in range(2):   # the second call is remembered
        dst[:] = 0
        aj.Cast(dst, src, aj.RoundMode.CAST_FLOOR, 64)
        assert np.array_equal(dst.numpy(), down)
    for bad, err in ((lambda: aj.Cast(dst, src, aj.RoundMode.CAST_FLOOR, 65), aj.OutOfBoundsError),   # count
                     (lambda: aj.Cast(dst, src, aj.RoundMode.CAST_FLOOR, True), aj.ParameterError),    # its type
                     (lambda: aj.Cast(dst[0:32], src, aj.RoundMode.CAST_FLOOR, 64), aj.OutOfBoundsError),
                     (lambda: aj.Cast(dst, src[0:32], aj.RoundMode.CAST_FLOOR, 64), aj.OutOfBoundsError),
                     (lambda: aj.Cast(dst, src, aj.RoundMode.CAST_HYBRID, 64), aj.UnsupportedDTypeError),
                     (lambda: aj.Cast(dst, src.ReinterpretCast("int32"), aj.RoundMode.CAST_FLOOR, 64),
                      aj.UnsupportedDTypeError),
                     (lambda: aj.Cast(dst, core.local_tensor("float", 64, addr=dst.addr), aj.RoundMode.CAST_FLOOR,
                                      64), aj.OverlapError)):
        before = core.ub.copy()
        with pytest.raises(err, match="Cast"):
            bad()
        assert np.array_equal(core.ub, before)
    aj.Cast(dst, src, aj.RoundMode.CAST_CEIL, 64)                       # another mode: its own rounding
    assert np.array_equal(dst.numpy(), up)
    aj.Cast(dst, src, aj.RoundMode.CAST_FLOOR, 32)                      # another count: its own elements
    assert np.array_equal(dst.numpy(), np.concatenate([down[:32], up[32:]]))
    src[:] = np.float32(1e6)                                            # past half's range: the CTRL bits decide
    aj.Cast(dst, src, aj.RoundMode.CAST_CEIL, 64)                       # (remembered above)
    saturated = dst.numpy().copy()
    with core:
        aj.SetCtrlSpr(48, 48, 1 - aj.GetCtrlSpr(48, 48))                # flip the half saturation mode (D46)
        aj.Cast(dst, src, aj.RoundMode.CAST_CEIL, 64)
    assert not np.array_equal(dst.numpy().view(np.uint16), saturated.view(np.uint16))
    with aj.Core("atlas-a2", sanitize="report") as checked:             # the same facts on a sanitizing core
        aj.Cast(checked.local_tensor("half", 64, addr=dst.addr), checked.local_tensor("float", 64, addr=src.addr),
                aj.RoundMode.CAST_FLOOR, 64)                            # src never written: reported
    assert any("Cast" in str(r) for r in checked.sanitizer.reports)
    pipe, q = aj.TPipe(core), aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(q, 1, 128)
    t = q.AllocTensor("half")
    aj.Cast(t, src, aj.RoundMode.CAST_FLOOR, 64)
    q.FreeTensor(t)
    with pytest.raises(aj.StateError, match="freed"):
        aj.Cast(t, src, aj.RoundMode.CAST_FLOOR, 64)


def test_high_dim_values_by_keyword_and_position_mixed():
    """SPEC-2 1.1: `Cast(dst, src, mode, mask, repeat_time=, repeat_params=)` is the high-dim call (it ran as the
    count form with repeat_time and repeat_params dropped); a count given twice is refused."""
    core = aj.Core("atlas-a2")
    h, f = core.local_tensor("half", 256), core.local_tensor("float", 256)
    h[:] = np.arange(256).astype(np.float16)
    P = aj.UnaryRepeatParams(1, 1, 8, 4)
    f[:] = np.full(256, -1, np.float32)
    aj.Cast(f, h, aj.RoundMode.CAST_NONE, 32, 2, P)
    want = core.ub.copy()
    for call in (lambda: aj.Cast(f, h, aj.RoundMode.CAST_NONE, 32, repeat_time=2, repeat_params=P),
                 lambda: aj.Cast(f, h, aj.RoundMode.CAST_NONE, 32, 2, repeat_params=P)):
        f[:] = np.full(256, -1, np.float32)
        call()
        assert np.array_equal(core.ub, want)
    with pytest.raises(aj.ParameterError, match="arguments"):
        aj.Cast(f, h, aj.RoundMode.CAST_NONE, 32, count=32)
    assert np.array_equal(core.ub, want)
