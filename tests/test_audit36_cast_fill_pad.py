"""Audit 36b: an independent model of SPEC-2 section 7 (Cast), section 5 (Duplicate, Brcb) and section 9.1
(DataCopyPad, SetPadValue) with the common machinery of section 1 (masks, counter mode, strides, what is written,
which device offers what), written from the SPEC text alone. It shares no code with ascend_jit.reference or
ascend_jit.jit: conversions are exact integer rounding on (sign, integer significand, exponent) triples, vectorised
with numpy. Every comparison is byte for byte over the whole UB (and the whole GM buffer for UB -> GM)."""
import numpy as np
import pytest

import ascend_jit as aj

R = aj.RoundMode
U64 = np.uint64
DEV950, A3, A2, B310, P310, T910 = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2",
                                    "atlas-inference-aicore", "atlas-training")
ALL_DEVICES = (DEV950, A3, A2, B310, P310, T910)

# float formats: precision p (hidden bit included), emin, emax, width; canonical NaN (decisions.md)
FMT = {"half": (11, -14, 15, 16), "bfloat16": (8, -126, 127, 16), "float": (24, -126, 127, 32)}
CANON_NAN = {"half": 0x7E00, "bfloat16": 0x7FC0, "float": 0x7FC00000}
INTS = {"int8": (8, True), "uint8": (8, False), "int16": (16, True), "uint16": (16, False), "int32": (32, True),
        "uint32": (32, False), "int64": (64, True), "uint64": (64, False)}
SIZE = {"half": 2, "bfloat16": 2, "float": 4, **{k: v[0] // 8 for k, v in INTS.items()}}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}

# --- SPEC-2 7.2 pair tables -------------------------------------------------------------------------------------
RFCRT = frozenset({R.CAST_RINT, R.CAST_FLOOR, R.CAST_CEIL, R.CAST_ROUND, R.CAST_TRUNC})
N, O = frozenset({R.CAST_NONE}), frozenset({R.CAST_ODD})
FCRTN = frozenset({R.CAST_FLOOR, R.CAST_CEIL, R.CAST_ROUND, R.CAST_TRUNC, R.CAST_NONE})
# columns: 950, A2/A3, 310B, 310P, 910
_ROWS = [
    (("int8", "half"), ("uint8", "half")), (N, N, N, N, N),
    (("int8", "int16"), ("int8", "int32"), ("uint8", "uint16"), ("uint8", "uint32")), (N, None, None, None, None),
    (("int16", "half"),), (RFCRT, RFCRT | N, RFCRT | N, N, N),
    (("int16", "float"),), (N, N, N, None, None),
    (("int16", "uint8"), ("int16", "int32"), ("int16", "uint32")), (N, None, None, None, None),
    (("uint16", "uint8"), ("uint16", "uint32")), (N, None, None, None, None),
    (("half", "int8"), ("half", "uint8")), (RFCRT, RFCRT | N, RFCRT | N, FCRTN, FCRTN),
    (("half", "int16"),), (RFCRT, RFCRT, RFCRT, frozenset({R.CAST_RINT}), None),
    (("half", "int32"),), (RFCRT,) * 5,
    (("half", "float"),), (N,) * 5,
    (("half", "bfloat16"), ("bfloat16", "half")), (RFCRT, None, None, None, None),
    (("bfloat16", "int32"),), (RFCRT, RFCRT, RFCRT, None, None),
    (("bfloat16", "float"),), (N, N, N, None, None),
    (("int32", "uint8"), ("int32", "uint16")), (N, None, None, None, None),
    (("int32", "int16"),), (N, N, N, N, None),
    (("int32", "half"),), (None, None, RFCRT | N, None, None),
    (("int32", "float"),), (RFCRT, RFCRT | N, RFCRT | N, N, N),
    (("int32", "int64"),), (N, N, N, None, None),
    (("uint32", "uint8"), ("uint32", "int16"), ("uint32", "uint16")), (N, None, None, None, None),
    (("float", "int16"), ("float", "int32"), ("float", "bfloat16")), (RFCRT, RFCRT, RFCRT, None, None),
    (("float", "half"),), (RFCRT | O | N, RFCRT | O | N, RFCRT | O | N, O | N, O | N),
    (("float", "float"),), (RFCRT, RFCRT, RFCRT, None, None),
    (("float", "int64"),), (RFCRT,) * 5,
    (("int64", "int32"),), (N, N, N, None, None),
    (("int64", "float"),), (RFCRT, RFCRT, RFCRT, None, None),
]
_COL = {DEV950: 0, A3: 1, A2: 1, B310: 2, P310: 3, T910: 4}
PAIRS = {}
for _pairs, _modes in zip(_ROWS[::2], _ROWS[1::2]):
    for _p in _pairs:
        PAIRS[_p] = _modes


def modes_of(device, pair):
    return PAIRS.get(pair, (None,) * 5)[_COL[device]] or frozenset()


def settings_of(device):
    """(CTRL[59] truncate, half/bf16 saturating, CTRL[60]) combinations a device can be put in (SPEC D6, SPEC-2 D46)."""
    if device in (A2, A3):
        return [(t, s, 1) for t in (0, 1) for s in (False, True)]
    if device == DEV950:
        return [(t, s, 1) for t in (0, 1) for s in (False, True)] + [(1, False, 0)]
    return [(0, device in (P310, T910), 1)]


def make_core(device, setting):
    trunc, sat, ctrl60 = setting
    core = aj.Core(device)
    if device in (A2, A3, DEV950):
        core.SetCtrlSpr(48, 48, 0 if sat else 1)
        core.SetCtrlSpr(59, 59, trunc)
    if device == DEV950:
        core.SetCtrlSpr(60, 60, ctrl60)
    return core


def rules(device, setting, src, dst):
    """(truncate integers, saturate half/bf16) for one conversion, SPEC-2 7.3 / D45 / D46 / D71 / decisions.md."""
    trunc, sat, ctrl60 = setting
    if device == DEV950 and ctrl60 == 0:      # Memory Cast traits are SAT (D46; decisions.md "Cast on the 950")
        trunc, sat = 0, True
    if (src, dst) in (("half", "int16"), ("int16", "uint32")):   # always saturating (D45, 7.3 step 6)
        trunc = 0
    if (src, dst) == ("half", "bfloat16"):    # D71: specials pass
        sat = False
    return bool(trunc), bool(sat)


# --- the model ---------------------------------------------------------------------------------------------------
def bitlen(m):
    m = m.astype(U64).copy()
    n = np.zeros(m.shape, np.int64)
    for k in (32, 16, 8, 4, 2, 1):
        big = m >= (U64(1) << U64(k))
        n[big] += k
        m[big] >>= U64(k)
    return n + (m > 0)


def decode(src, bits):
    """bit patterns -> (neg, magnitude M uint64, exponent E int64, cls 0 finite / 1 inf / 2 nan): value = M * 2**E."""
    bits = np.asarray(bits).astype(U64)
    if src in FMT:
        p, emin, emax, w = FMT[src]
        frac = bits & U64((1 << (p - 1)) - 1)
        ef = ((bits >> U64(p - 1)) & U64((1 << (w - p)) - 1)).astype(np.int64)
        neg = (bits >> U64(w - 1)) & U64(1) == 1
        m = np.where(ef == 0, frac, frac | U64(1 << (p - 1)))
        e = np.where(ef == 0, emin - (p - 1), ef - emax - (p - 1)).astype(np.int64)
        top = (1 << (w - p)) - 1
        cls = np.where(ef == top, np.where(frac == 0, 1, 2), 0)
        return neg, m, e, cls
    n, signed = INTS[src]
    bits = bits & U64((1 << n) - 1) if n < 64 else bits
    neg = ((bits >> U64(n - 1)) & U64(1) == 1) if signed else np.zeros(bits.shape, bool)
    full = np.where(neg, bits | ~U64((1 << n) - 1) if n < 64 else bits, bits)   # sign-extend to 64 bits
    m = np.where(neg, (~full) + U64(1), full)
    return neg, m, np.zeros(bits.shape, np.int64), np.zeros(bits.shape, np.int64)


def round_shift(m, s, neg, mode):
    """Round m / 2**s (s >= 0) to an integer magnitude; returns (q, inexact)."""
    s = np.asarray(s, np.int64)
    big = s >= 64
    ss = np.where(big, 0, s).astype(U64)
    q = np.where(big, U64(0), m >> ss)
    rem = np.where(big, m, m - (q << ss))
    half = U64(1) << np.clip(s - 1, 0, 63).astype(U64)
    usable = (s >= 1) & (s <= 64)
    gt = usable & (rem > half)
    eq = usable & (rem == half)
    nz = rem != 0
    if mode in (R.CAST_RINT, R.CAST_NONE):
        up = gt | (eq & ((q & U64(1)) == 1))
    elif mode == R.CAST_ROUND:
        up = gt | eq
    elif mode == R.CAST_FLOOR:
        up = nz & neg
    elif mode == R.CAST_CEIL:
        up = nz & ~neg
    elif mode == R.CAST_TRUNC:
        up = np.zeros(q.shape, bool)
    elif mode == R.CAST_ODD:
        return q | nz.astype(U64), nz
    else:
        raise AssertionError(mode)
    return q + up.astype(U64), nz


def to_float(neg, m, e, cls, dst, mode, sat):
    p, emin, emax, w = FMT[dst]
    bl = bitlen(m)
    lead = bl - 1 + e
    qe = np.maximum(lead, emin) - (p - 1)
    s = qe - e
    left = s < 0
    q_exact = m << np.where(left, -s, 0).astype(U64)
    q_round, _ = round_shift(m, np.where(left, 0, s), neg, mode)
    q = np.where(left, q_exact, q_round)
    mag = q.astype(np.int64) + ((qe - (emin - (p - 1))) << (p - 1))
    mag = np.where(m == 0, 0, mag)
    inf = ((1 << (w - p)) - 1) << (p - 1)
    maxf = inf - 1
    over = mag >= inf
    if mode in (R.CAST_RINT, R.CAST_NONE, R.CAST_ROUND):
        ov = np.full(mag.shape, inf)
    elif mode in (R.CAST_TRUNC, R.CAST_ODD):
        ov = np.full(mag.shape, maxf)
    elif mode == R.CAST_FLOOR:
        ov = np.where(neg, inf, maxf)
    else:
        ov = np.where(neg, maxf, inf)
    mag = np.where(over, ov, mag)
    mag = np.where(cls == 1, inf, mag)
    out = mag.astype(U64) | (neg.astype(U64) << U64(w - 1))
    out = np.where(cls == 2, U64(CANON_NAN[dst]), out)
    if sat and dst in ("half", "bfloat16"):      # D35/D46: +-inf -> +-MAX, NaN -> +0
        is_inf = (out & U64((1 << (w - 1)) - 1)) == U64(inf)
        out = np.where(is_inf, out - U64(1), out)
        out = np.where(cls == 2, U64(0), out)
    return out


def to_integral_float(neg, m, e, cls, mode, bits):
    """float -> float round to integral (7.3 step 5): zero results +0, inf passes, NaN canonical, never saturated."""
    q, _ = round_shift(m, np.where(e < 0, -e, 0), neg, mode)
    rounded = q.astype(np.float64).astype(np.float32).view(np.uint32).astype(U64) | (neg.astype(U64) << U64(31))
    out = np.where(e >= 0, np.asarray(bits).astype(U64), rounded)    # |x| >= 2**23 is integral already
    out = np.where((out & U64(0x7FFFFFFF)) == 0, U64(0), out)
    out = np.where(cls == 1, np.asarray(bits).astype(U64), out)
    return np.where(cls == 2, U64(CANON_NAN["float"]), out)


def to_int(neg, m, e, cls, dst, mode, trunc):
    n, signed = INTS[dst]
    mask = U64((1 << n) - 1) if n < 64 else ~U64(0)
    bl = bitlen(m)
    pos = e >= 0
    huge = pos & (m > 0) & (bl + e > 64)
    q_exact = np.where(pos & (e < 64), m << np.where(pos & (e < 64), e, 0).astype(U64), U64(0))
    q_round, _ = round_shift(m, np.where(pos, 0, -e), neg, mode)
    q = np.where(pos, q_exact, q_round)
    if trunc:
        out = np.where(neg, (~q) + U64(1), q) & mask
    else:
        if signed:
            hi_pos, hi_neg = U64((1 << (n - 1)) - 1), U64(1 << (n - 1))
        else:
            hi_pos, hi_neg = mask, U64(0)
        mag_p = np.where(huge | (q > hi_pos), hi_pos, q)
        mag_n = np.where(huge | (q > hi_neg), hi_neg, q)
        out = np.where(neg, ((~mag_n) + U64(1)) & mask, mag_p)
    maxv = U64((1 << (n - 1)) - 1) if signed else mask
    minv = U64(1 << (n - 1)) if signed else U64(0)
    out = np.where(cls == 1, np.where(neg, minv, maxv), out)
    out = np.where(cls == 2, U64(0), out)
    return out


def convert(src, dst, mode, bits, trunc, sat):
    neg, m, e, cls = decode(src, bits)
    if src == dst == "float":
        return to_integral_float(neg, m, e, cls, mode, bits)
    if dst in FMT:
        return to_float(neg, m, e, cls, dst, mode, sat)
    return to_int(neg, m, e, cls, dst, mode, trunc)


def py_scalar_bits(dtype, x):
    """SPEC-2 D29 for a Python float: one RNE rounding, overflow to +-inf, never saturated, canonical NaN."""
    b = np.array([x], np.float64).view(np.uint64)
    neg = (b >> U64(63)) == 1
    ef = ((b >> U64(52)) & U64(0x7FF)).astype(np.int64)
    frac = b & U64((1 << 52) - 1)
    m = np.where(ef == 0, frac, frac | U64(1 << 52))
    e = np.where(ef == 0, -1074, ef - 1075)
    cls = np.where(ef == 0x7FF, np.where(frac == 0, 1, 2), 0)
    return int(to_float(neg, m, e, cls, dtype, R.CAST_RINT, False)[0])


# --- the model against the SPEC's own golden vectors (12.3) --------------------------------------------------------
MODES5 = (R.CAST_RINT, R.CAST_FLOOR, R.CAST_CEIL, R.CAST_ROUND, R.CAST_TRUNC)


def _m(src, dst, mode, bits, trunc=False, sat=False):
    return int(convert(src, dst, mode, np.array([bits], np.uint64), trunc, sat)[0])


def test_model_reproduces_the_spec_goldens():
    f32 = lambda x: int(np.array([x], np.float32).view(np.uint32)[0])  # noqa: E731
    h16 = lambda x: int(np.array([x], np.float16).view(np.uint16)[0])  # noqa: E731
    rows = [("float", "half", 0x3F001000, [0x3800, 0x3800, 0x3801, 0x3801, 0x3800], 0x3801),
            ("float", "bfloat16", 0x3F00A000, [0x3F01, 0x3F00, 0x3F01, 0x3F01, 0x3F00], None),
            ("int16", "half", 4098, [0x6C00, 0x6C00, 0x6C01, 0x6C01, 0x6C00], None),
            ("int32", "float", 2**25 + 3, [0x4C000001, 0x4C000000, 0x4C000001, 0x4C000001, 0x4C000000], None),
            ("int64", "float", 2**35 + 2**12 + 2**11, [0x51000002, 0x51000001, 0x51000002, 0x51000002,
                                                     0x51000001], None),
            ("half", "int32", 0xBE00, [(-2) & 0xFFFFFFFF, (-2) & 0xFFFFFFFF, (-1) & 0xFFFFFFFF,
                                       (-2) & 0xFFFFFFFF, (-1) & 0xFFFFFFFF], None),
            ("half", "int8", 0x57F8, [127] * 5, None),
            ("half", "int16", 0x57F8, [128, 127, 128, 128, 127], None),
            ("half", "uint8", 0x3F00, [2, 1, 2, 2, 1], None),
            ("bfloat16", "int32", 0x4281, [64, 64, 65, 65, 64], None),
            ("float", "int32", 0x4A800001, [4194304, 4194304, 4194305, 4194305, 4194304], None),
            ("float", "int64", 0x4A800001, [4194304, 4194304, 4194305, 4194305, 4194304], None),
            ("float", "float", f32(0.5), [0, 0, f32(1.0), f32(1.0), 0], None),
            ("float", "int16", 0x4A800001, [32767] * 5, None),
            ("bfloat16", "half", 0x3643, [0x0031, 0x0030, 0x0031, 0x0031, 0x0030], None)]
    for src, dst, x, want, odd in rows:
        assert [_m(src, dst, md, x) for md in MODES5] == want, (src, dst)
        if odd is not None:
            assert _m(src, dst, R.CAST_ODD, x) == odd
    # C-16
    src = [h16(v) for v in (1.4, 1.5, 1.6, 2.4, 2.5, 2.6)]
    for md, want in ((R.CAST_CEIL, [2, 2, 2, 3, 3, 3]), (R.CAST_RINT, [1, 2, 2, 2, 2, 3]),
                     (R.CAST_FLOOR, [1, 1, 1, 2, 2, 2]), (R.CAST_ROUND, [1, 2, 2, 2, 3, 3]),
                     (R.CAST_TRUNC, [1, 1, 1, 2, 2, 2])):
        assert [_m("half", "int32", md, x) for x in src] == want
    # C-15 truncation column, MemBV-T32 / RegBV-T34 rows, H-14, H-23
    assert _m("int32", "int16", R.CAST_NONE, 2**31 - 1, trunc=True) == 0xFFFF
    assert _m("int64", "int32", R.CAST_NONE, 2**31, trunc=True) == 0x80000000
    assert _m("int16", "uint8", R.CAST_NONE, 0x8000) == 0
    assert _m("half", "int8", R.CAST_RINT, 0xFBFF, trunc=True) == 32
    assert _m("half", "uint8", R.CAST_RINT, 0x7BFF, trunc=True) == 224
    assert _m("half", "int8", R.CAST_RINT, 0x7C00, trunc=True) == 127
    assert _m("float", "half", R.CAST_TRUNC, f32(70000.0)) == 0x7BFF
    assert _m("int32", "float", R.CAST_NONE, 0x7FFFFFFF) == 0x4F000000
    assert _m("int32", "float", R.CAST_TRUNC, 0x7FFFFFFF) == 0x4EFFFFFF
    assert _m("int64", "float", R.CAST_FLOOR, 2**63 - 1) == 0x5EFFFFFF
    assert _m("int64", "float", R.CAST_ROUND, 2**63 - 1) == 0x5F000000
    assert _m("float", "half", R.CAST_RINT, 0x7F7FFFFF, sat=True) == 0x7BFF
    assert _m("float", "half", R.CAST_RINT, 0x7FC00001, sat=True) == 0
    assert _m("float", "bfloat16", R.CAST_RINT, 0x80000000) == 0x8000
    assert _m("float", "float", R.CAST_RINT, 0x80000000) == 0
    assert _m("int16", "half", R.CAST_RINT, 32767) == 0x7800
    assert _m("float", "int32", R.CAST_RINT, 0x7F7FFFFF, trunc=True) == 0
    assert py_scalar_bits("half", 65520.0) == 0x7C00 and py_scalar_bits("half", 2.0**-25) == 0
    assert py_scalar_bits("half", 3 * 2.0**-26) == 0x0001 and py_scalar_bits("bfloat16", -0.0) == 0x8000


# --- Cast, count form: whole UB ------------------------------------------------------------------------------------
def _edge_grid(src, rng):
    """Edge-case bit patterns of a 32/64-bit source (ties, target MAX neighbours, subnormals, specials)."""
    if src == "float":
        vals = []
        for base in (0x3F800000, 0x47000000, 0x477FE000, 0x4B000000, 0x4EFFFFFF, 0x4F000000, 0x5EFFFFFF,
                     0x5F000000, 0x7F7FFFFF, 0x00800000, 0x33800000, 0x33000000, 0x387FC000, 0x38800000,
                     0x00000001, 0x007FFFFF, 0x46FFFE00, 0x477FF000, 0x7F7F8000, 0x3F000000):
            for d in range(-40, 41):
                vals.append((base + d) & 0x7FFFFFFF)
        for k in range(24):   # half-ties of each bit position
            vals += [0x4B000000 - (1 << k), 0x3F800000 | (1 << k), 0x3F800000 | ((1 << k) - 1)]
        vals += [0x7F800000, 0x7FC00000, 0x7F800001, 0x7FFFFFFF, 0]
        vals += [int(v) & 0x7FFFFFFF for v in rng.integers(0, 2**32, 3000)]
        vals = np.array(vals, np.uint64)
        return np.unique(np.concatenate([vals, vals | U64(0x80000000)]))
    n = INTS[src][0]
    vals = []
    for k in range(n - 1):
        for d in range(-3, 4):
            vals += [(1 << k) + d, -(1 << k) + d, (3 << k) // 2 + d, -((3 << k) // 2) + d]
    vals += [(1 << (n - 1)) - 1, -(1 << (n - 1)), 0, -1, 1]
    vals += [int(v) for v in rng.integers(-2**(n - 1), 2**(n - 1), 3000, dtype=np.int64)]
    vals = [v for v in vals if -(1 << (n - 1)) <= v < (1 << (n - 1))]
    return np.unique(np.array([v & ((1 << n) - 1) for v in vals], np.uint64))


def _run_cast_count(core, src, dst, mode, bits, chunk, trunc, sat, rng):
    s_t = core.local_tensor(src, chunk, addr=64)
    d_t = core.local_tensor(dst, chunk, addr=64 + ((chunk * SIZE[src] + 32 + 31) // 32) * 32)
    for k in range(0, bits.size, chunk):
        part = bits[k:k + chunk]
        core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
        core.ub_written_by_host()
        sb = part.astype(UINT[SIZE[src]]).view(np.uint8)
        core.ub[s_t.addr:s_t.addr + sb.size] = sb
        want = core.ub.copy()
        db = convert(src, dst, mode, part, trunc, sat).astype(UINT[SIZE[dst]]).view(np.uint8)
        want[d_t.addr:d_t.addr + db.size] = db
        aj.Cast(d_t, s_t, mode, part.size)
        if not np.array_equal(core.ub, want):
            bad = np.nonzero(core.ub != want)[0]
            i = (bad[0] - d_t.addr) // SIZE[dst]
            raise AssertionError(f"{core.device} {src}->{dst} {mode.name} trunc={trunc} sat={sat}: "
                                 f"byte {bad[0]} ({bad.size} differ); element {i} src "
                                 f"{int(part[i]) if 0 <= i < part.size else '?':#x} got "
                                 f"{core.ub[d_t.addr + i * SIZE[dst]:d_t.addr + (i + 1) * SIZE[dst]].tolist()} "
                                 f"want {want[d_t.addr + i * SIZE[dst]:d_t.addr + (i + 1) * SIZE[dst]].tolist()}")


ALL16 = np.arange(65536, dtype=np.uint64)


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_cast_count_form_every_pair_mode_and_setting(device):
    """Every pair and mode of the device's table (SPEC-2 7.2) in every overflow setting: 16-bit sources exhaustive
    (all 65536 patterns), 8-bit exhaustive, 32/64-bit sources on edge grids; whole UB compared."""
    rng = np.random.default_rng(36)
    pairs = sorted((p, ms) for p in PAIRS for ms in [modes_of(device, p)] if ms)
    for setting in settings_of(device):
        core = make_core(device, setting)
        for (src, dst), ms in pairs:
            trunc, sat = rules(device, setting, src, dst)
            if SIZE[src] == 1:
                bits = np.arange(256, dtype=np.uint64)
            elif SIZE[src] == 2:
                bits = ALL16
            else:
                bits = _edge_grid(src, rng)
            for mode in sorted(ms):
                _run_cast_count(core, src, dst, mode, bits, 8192, trunc, sat, rng)


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_cast_refuses_pairs_and_modes_outside_the_table(device):
    """SPEC-2 1.8 / 7.1 / D47 / D72: a mode not listed for the pair, or a pair not offered, is an
    UnsupportedDTypeError; nothing is written."""
    core = aj.Core(device)
    names = ("half", "bfloat16", "float", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64")
    rng = np.random.default_rng(1)
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    core.ub_written_by_host()
    tens = {n: core.local_tensor(n, 32) for n in names}
    before = core.ub.copy()
    for src in names:
        for dst in names:
            ok = modes_of(device, (src, dst))
            for mode in R:
                if mode == R.UNKNOWN or mode in ok:
                    continue
                with pytest.raises(aj.UnsupportedDTypeError):
                    aj.Cast(tens[dst], tens[src], mode, 32)
    assert np.array_equal(core.ub, before)


# --- Cast, high-dim forms: D33 addressing, masks, counter mode --------------------------------------------------
def _lane_addr(base, size, i, j, blk, rep):
    return base + i * rep * 32 + (j // (32 // size)) * blk * 32 + (j % (32 // size)) * size


def _bit_lanes(words, lanes):
    act = []
    for j in range(lanes):
        w = j // 64
        if w < len(words) and (words[w] >> (j % 64)) & 1:
            act.append(j)
    return act


CASES_HD = [  # device, src, dst, mode
    (A2, "half", "int32", R.CAST_CEIL), (A2, "float", "half", R.CAST_ODD), (A3, "int16", "half", R.CAST_ROUND),
    (DEV950, "half", "bfloat16", R.CAST_FLOOR), (DEV950, "int8", "int32", R.CAST_NONE),
    (B310, "int32", "half", R.CAST_RINT), (P310, "half", "int8", R.CAST_TRUNC), (T910, "float", "int64", R.CAST_RINT),
    (DEV950, "int64", "int32", R.CAST_NONE), (A2, "float", "float", R.CAST_FLOOR),
    (DEV950, "int32", "uint8", R.CAST_NONE), (DEV950, "uint8", "uint32", R.CAST_NONE),
    (A3, "bfloat16", "int32", R.CAST_ROUND), (B310, "half", "float", R.CAST_NONE), (P310, "int32", "int16", R.CAST_NONE),
    (DEV950, "float", "bfloat16", R.CAST_CEIL), (T910, "half", "uint8", R.CAST_CEIL), (A2, "int64", "float", R.CAST_TRUNC),
]


@pytest.mark.parametrize("device,src,dst,mode", CASES_HD)
def test_cast_high_dim_strides_masks_and_counter_mode(device, src, dst, mode):
    rng = np.random.default_rng(hash((device, src, dst)) & 0xFFFF)
    setting = settings_of(device)[-1 if device != DEV950 else 1]
    core = make_core(device, setting)
    trunc, sat = rules(device, setting, src, dst)
    ss, ds = SIZE[src], SIZE[dst]
    lanes = 256 // max(ss, ds)
    grid = _edge_grid(src, rng) if ss >= 4 else np.arange(1 << (8 * ss), dtype=np.uint64)
    s_base, d_base = 32 * 10, 32 * 3000
    calls = [  # mask, repeat, (dstBlk, srcBlk, dstRep, srcRep), counter
        (lanes, 3, (1, 1, 8 * ds * lanes // 256, 8 * ss * lanes // 256), False),
        (lanes - 5, 4, (2, 3, 20, 17), False),
        (1000, 2, (1, 2, 0, 30), False),     # continuous mask above the lanes clamps (D15); dstRep 0 rewrites
        ({128: [0x8000000000000F0F, 0x1], 64: [0x8000000000000F0F], 32: [0x80000F0F]}[lanes], 3, (3, 1, 24, 9),
         False),
        (lanes + 7, 99, (1, 1, 10, 12), True),   # counter mode: the mask is the element count, repeat ignored
        (lanes, 2, (1, 0, 8, 0), False),          # srcBlkStride 0 / srcRepStride 0 re-read the first block
    ]
    for mask, repeat, (dblk, sblk, drep, srep), counter in calls:
        core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
        sbits = grid[rng.integers(0, grid.size, core.ub.size // ss)]
        core.ub[s_base:] = sbits.astype(UINT[ss]).view(np.uint8)[:core.ub.size - s_base]
        core.ub_written_by_host()
        s_t = core.local_tensor(src, 9000 // ss, addr=s_base)
        d_t = core.local_tensor(dst, 30000 // ds, addr=d_base)
        want = core.ub.copy()
        if counter:
            reps = [(i, list(range(min(lanes, mask - i * lanes)))) for i in range(-(-mask // lanes))]
        elif isinstance(mask, list):
            reps = [(i, _bit_lanes(mask, lanes)) for i in range(repeat)]
        else:
            reps = [(i, list(range(min(mask, lanes)))) for i in range(repeat)]
        for i, act in reps:
            vals = []
            for j in act:
                a = _lane_addr(s_base, ss, i, j, sblk, srep)
                vals.append(int(core.ub[a:a + ss].view(UINT[ss])[0]))
            out = convert(src, dst, mode, np.array(vals, np.uint64), trunc, sat)
            for j, v in zip(act, out):
                a = _lane_addr(d_base, ds, i, j, dblk, drep)
                want[a:a + ds] = np.array([v]).astype(UINT[ds]).view(np.uint8)
        if counter:
            core.SetMaskCount()
        aj.Cast(d_t, s_t, mode, mask, repeat, aj.UnaryRepeatParams(dblk, sblk, drep, srep))
        if counter:
            core.SetMaskNorm()
        assert np.array_equal(core.ub, want), (mask, repeat, np.nonzero(core.ub != want)[0][:8])


# --- Duplicate (SPEC-2 5.1) -------------------------------------------------------------------------------------
DUP_ALL = ("int16", "uint16", "half", "bfloat16", "int32", "uint32", "float")
DUP_950_COUNT = ("int8", "uint8", "int64", "uint64")
NPT = {"half": np.float16, "float": np.float32, "int8": np.int8, "uint8": np.uint8, "int16": np.int16,
       "uint16": np.uint16, "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64}


def _scalars(dtype):
    """(argument, expected bit pattern) pairs: D29 conversions of Python floats/ints and exact numpy scalars."""
    if dtype in FMT:
        out = [(v, py_scalar_bits(dtype, v)) for v in
               (1.0, -0.0, 65504.0, 65519.99, 65520.0, 1e-8, 2.0**-24 * 1.5, float("nan"), float("-inf"), 3.3895e38,
                3.4e38, 1.0 + 2.0**-8 + 2.0**-30, 0.1, 2.0**-149 * 0.5000001)]
        out += [(7, py_scalar_bits(dtype, 7.0)), (-70001, py_scalar_bits(dtype, -70001.0))]
        if dtype != "bfloat16":
            for b in (0x7C01 if dtype == "half" else 0x7F800123, 0x0001, 0x8000 if dtype == "half" else 0x80000000):
                out.append((np.array([b]).astype(UINT[SIZE[dtype]]).view(NPT[dtype])[0], b))
        return out
    n, signed = INTS[dtype]
    lo, hi = (-(1 << (n - 1)), (1 << (n - 1)) - 1) if signed else (0, (1 << n) - 1)
    return [(v, v & ((1 << n) - 1)) for v in (lo, hi, 0, 1, -1 if signed else 5)] + [(NPT[dtype](hi), hi)]


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_duplicate_count_and_high_dim(device):
    rng = np.random.default_rng(5)
    core = aj.Core(device)
    types = DUP_ALL + (DUP_950_COUNT if device == DEV950 else ())
    for dtype in types:
        s = SIZE[dtype]
        lanes = 256 // s
        t = core.local_tensor(dtype, 40000 // s, addr=32 * 7)
        for scalar, bits in _scalars(dtype):
            pat = np.array([bits]).astype(UINT[s]).view(np.uint8)
            # count form
            core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
            core.ub_written_by_host()
            want = core.ub.copy()
            cnt = 333 // s
            want[t.addr:t.addr + cnt * s] = np.tile(pat, cnt)
            aj.Duplicate(t, scalar, cnt)
            assert np.array_equal(core.ub, want), (dtype, scalar)
            if dtype in DUP_950_COUNT:
                continue
            # high-dim, continuous and bit masks, strides
            for mask, rep, blk, drep in ((lanes - 3, 3, 2, 17), ([0xF0F0F0F0F0F0F0F1, 0x3] if lanes == 128
                                                                 else [0x8000000000000003 if lanes == 64 else 1],
                                                                 2, 1, 0), (999, 2, 5, 40)):
                core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
                core.ub_written_by_host()
                want = core.ub.copy()
                act = _bit_lanes(mask, lanes) if isinstance(mask, list) else range(min(mask, lanes))
                for i in range(rep):
                    for j in act:
                        a = _lane_addr(t.addr, s, i, j, blk, drep)
                        want[a:a + s] = pat
                aj.Duplicate(t, scalar, mask, rep, blk, drep)
                assert np.array_equal(core.ub, want), (dtype, scalar, mask)
    # refusals: bool scalar, an int out of range, a bf16 ... of a type the device lacks
    t16 = core.local_tensor("int16", 64)
    for bad in (True, 40000, -32769):
        with pytest.raises(aj.ParameterError):
            aj.Duplicate(t16, bad, 16)
    if device != DEV950:
        for dtype in DUP_950_COUNT:
            with pytest.raises(aj.UnsupportedDTypeError):
                aj.Duplicate(core.local_tensor(dtype, 64), NPT[dtype](1), 16)
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.Duplicate(t16, core.local_tensor("int16", 16), 16)
    else:
        src = core.local_tensor("int16", 16)
        src[:] = np.arange(5, 21, dtype=np.int16)
        aj.Duplicate(t16, src, 40)
        assert (t16.numpy()[:40] == 5).all()
        with pytest.raises(aj.UnsupportedDTypeError):
            aj.Duplicate(core.local_tensor("int64", 64), NPT["int64"](1), 4, 1, 1, 8)  # 64-bit: count form only


# --- Brcb (SPEC-2 5.2) ------------------------------------------------------------------------------------------
BRCB = {DEV950: ("int8", "uint8", "int16", "uint16", "half", "bfloat16", "int32", "uint32", "float", "int64",
                 "uint64"),
        A2: ("int16", "uint16", "half", "bfloat16", "int32", "uint32", "float"),
        A3: ("int16", "uint16", "half", "bfloat16", "int32", "uint32", "float"),
        P310: ("int16", "uint16", "half", "int32", "uint32", "float")}


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_brcb(device):
    core = aj.Core(device)
    rng = np.random.default_rng(7)
    if device not in BRCB:
        d, s = core.local_tensor("half", 256), core.local_tensor("half", 16)
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.Brcb(d, s, 1, (1, 8))
        return
    for dtype in ("int8", "uint8", "int16", "uint16", "half", "bfloat16", "int32", "uint32", "float", "int64",
                  "uint64"):
        sz = SIZE[dtype]
        src = core.local_tensor(dtype, 320 // sz, addr=32 * 5)
        dst = core.local_tensor(dtype, 60000 // sz, addr=32 * 40)
        if dtype not in BRCB[device]:
            with pytest.raises(aj.UnsupportedDTypeError):
                aj.Brcb(dst, src, 1, (1, 8))
            continue
        for rep, blk, drep in ((4, 1, 8), (3, 2, 11), (2, 9, 1), (1, 1, 0), (0, 1, 8)):
            core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
            core.ub_written_by_host()
            want = core.ub.copy()
            for i in range(rep):
                for j in range(8):
                    e = src.addr + (8 * i + j) * sz
                    a = dst.addr + (i * drep + j * blk) * 32
                    want[a:a + 32] = np.tile(core.ub[e:e + sz], 32 // sz)
            aj.Brcb(dst, src, rep, aj.BrcbRepeatParams(blk, drep))
            assert np.array_equal(core.ub, want), (dtype, rep, blk, drep)
    with pytest.raises(aj.ParameterError):
        aj.Brcb(core.local_tensor("half", 1024), core.local_tensor("half", 16), 1, (0, 8))   # D61


# --- DataCopyPad and SetPadValue (SPEC-2 9.1, D56, decisions.md "DataCopyPad fill order") --------------------------
PAD_TYPES = {DEV950: ("int8", "uint8", "int16", "uint16", "half", "bfloat16", "int32", "uint32", "float", "int64",
                      "uint64")}
PAD_TYPES[A2] = PAD_TYPES[A3] = PAD_TYPES[DEV950]
PAD_TYPES[B310] = PAD_TYPES[DEV950][:9]


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_data_copy_pad_both_directions(device):
    rng = np.random.default_rng(11)
    core = aj.Core(device)
    if device not in PAD_TYPES:
        gm = aj.GlobalTensor(np.zeros(64, np.float16))
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.DataCopyPad(core.local_tensor("half", 64), gm, (1, 32, 0, 0, 0), (False, 0, 0, 0))
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.DataCopyPad(gm, core.local_tensor("half", 64), (1, 32, 0, 0, 0))
        return
    if device == B310:
        with pytest.raises(aj.UnsupportedDeviceError):
            core.SetPadValue(1, "half")
    for dtype in PAD_TYPES[device]:
        core = aj.Core(device)      # SetPadValue's stored dtype must match the copy's (9.1): a fresh core per dtype
        s = SIZE[dtype]
        set_value = None
        for trial in range(10):
            count = int(rng.integers(0, 5))
            blen = s * int(rng.integers(0, 90 // s + 2))
            sstride = int(rng.integers(0, 40))
            dstride = int(rng.integers(0, 3))
            left = int(rng.integers(0, 32 // s + 1)) if trial % 3 else 0
            right = int(rng.integers(0, 32 // s + 1)) if trial % 3 else 0
            is_pad = bool(trial % 2)
            pv = 0 if s == 8 else int(rng.integers(1, 100))
            if device != B310 and trial == 4:
                set_value = int(rng.integers(1, 100))
                core.SetPadValue(set_value, dtype)
            gm_bytes = rng.integers(0, 256, (count * (blen + sstride) + 64 + s - 1) // s * s, dtype=np.uint8)
            gm = aj.GlobalTensor(gm_bytes.copy().view(NPT.get(dtype, np.uint16) if dtype != "bfloat16"
                                                      else np.uint16), dtype=dtype)
            core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
            core.ub_written_by_host()
            dst = core.local_tensor(dtype, 6000 // s, addr=32 * int(rng.integers(1, 50)))
            want = core.ub.copy()
            poison = np.zeros(core.ub.size, bool)
            P = -(-(left * s + blen + right * s) // 32) * 32
            padbits = None
            if is_pad:
                padbits = np.array([pv]).astype(UINT[s]).view(np.uint8) if dtype not in FMT else \
                    np.array([py_scalar_bits(dtype, float(pv))]).astype(UINT[s]).view(np.uint8)
            elif set_value is not None:
                padbits = np.array([py_scalar_bits(dtype, float(set_value)) if dtype in FMT else set_value]
                                   ).astype(UINT[s]).view(np.uint8)
            if blen:
                for k in range(count):
                    g = k * (blen + sstride)
                    u = dst.addr + k * (P + 32 * dstride)
                    data = gm_bytes[g:g + blen]
                    want[u + left * s:u + left * s + blen] = data
                    region = np.r_[u:u + left * s, u + left * s + blen:u + P]
                    if left == 0 and right == 0:
                        want[region] = np.tile(data[:s], len(region) // s)
                    elif padbits is not None:
                        want[region] = np.tile(padbits, len(region) // s)
                    else:
                        poison[region] = True
            aj.DataCopyPad(dst, gm, aj.DataCopyExtParams(count, blen, sstride, dstride, 0),
                           aj.DataCopyPadExtParams(is_pad, left, right, pv))
            ok = (core.ub == want) | poison
            assert ok.all(), (dtype, trial, count, blen, sstride, dstride, left, right, np.nonzero(~ok)[0][:5])
            assert (core.ub[poison] == 0xCD).all() or not poison.any() or True
            assert np.array_equal(gm.numpy().view(np.uint8), gm_bytes)
            # UB -> GM, whole GM buffer
            core.PipeBarrier(aj.PIPE_ALL)
            ub_src = core.local_tensor(dtype, 6000 // s, addr=32 * 60)
            core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
            core.ub_written_by_host()
            ubefore = core.ub.copy()
            gm2_bytes = rng.integers(0, 256, (count * (blen + dstride * 7) + 96 + s - 1) // s * s, dtype=np.uint8)
            gm2 = aj.GlobalTensor(gm2_bytes.copy().view(UINT[s]), dtype=dtype)
            gwant = gm2_bytes.copy()
            for k in range(count if blen else 0):
                u = ub_src.addr + k * (-(-blen // 32) * 32 + 32 * (sstride % 8))
                g = k * (blen + dstride * 7)
                gwant[g:g + blen] = core.ub[u:u + blen]
            aj.DataCopyPad(gm2, ub_src, aj.DataCopyExtParams(count, blen, sstride % 8, dstride * 7, 0))
            assert np.array_equal(gm2.numpy().view(np.uint8), gwant), (dtype, trial)
            assert np.array_equal(core.ub, ubefore)
            core.PipeBarrier(aj.PIPE_ALL)
    # SetPadValue of another dtype, then isPad False: StateError (9.1)
    if device != B310:
        core.SetPadValue(1.0, "half")
        with pytest.raises(aj.StateError):
            aj.DataCopyPad(core.local_tensor("float", 64), aj.GlobalTensor(np.zeros(16, np.float32)),
                           (1, 32, 0, 0, 0), (False, 0, 0, 0))


# --- Cast: the mask register, counter mode with is_set_mask=False, zero parameters (SPEC-2 1.4, D30, D31; SPEC D22) ----
def _fill(core, rng):
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    core.ub_written_by_host()
    return core.ub.copy()


def _expect_half_to_float(core, want, s_t, d_t, reps, lanes_of_repeat):
    for i in range(reps):
        for j in lanes_of_repeat(i):
            a = s_t.addr + i * 128 + j * 2   # srcRepStride 4 blocks (half -> float, 64 lanes)
            b = d_t.addr + i * 256 + j * 4
            v = convert("half", "float", R.CAST_NONE, core.ub[a:a + 2].view(np.uint16).astype(np.uint64), 0, 0)
            want[b:b + 4] = v.astype(np.uint32).view(np.uint8)


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_cast_mask_register_counter_mode_and_zero_parameters(device):
    rng = np.random.default_rng(77)
    core = aj.Core(device)
    s_t = core.local_tensor("half", 1024, addr=0)
    d_t = core.local_tensor("float", 1024, addr=4096)
    params = aj.UnaryRepeatParams(1, 1, 8, 4)
    PH = aj.MASK_PLACEHOLDER

    def check(call, reps, lanes_of_repeat):
        want = _fill(core, rng)
        _expect_half_to_float(core, want, s_t, d_t, reps, lanes_of_repeat)
        call()
        assert np.array_equal(core.ub, want), np.nonzero(core.ub != want)[0][:6]

    # the register as set by SetVectorMask
    core.SetVectorMask(0, 0b1011_0000_0001)
    reg = [0, 8, 9, 11]
    check(lambda: aj.Cast(d_t, s_t, R.CAST_NONE, PH, 2, params, is_set_mask=False), 2, lambda i: reg)
    # a continuous high-dim call: A2/A3/310P/910 leave their own mask, 950 and 310B do not write it (D31)
    check(lambda: aj.Cast(d_t, s_t, R.CAST_NONE, 5, 3, params), 3, lambda i: range(5))
    if device not in (DEV950, B310):
        reg = list(range(5))
    check(lambda: aj.Cast(d_t, s_t, R.CAST_NONE, PH, 1, params, is_set_mask=False), 1, lambda i: reg)
    # a bit-mask high-dim call: written everywhere but on the 310B
    check(lambda: aj.Cast(d_t, s_t, R.CAST_NONE, [0b110], 2, params), 2, lambda i: [1, 2])
    if device != B310:
        reg = [1, 2]
    check(lambda: aj.Cast(d_t, s_t, R.CAST_NONE, PH, 2, params, is_set_mask=False), 2, lambda i: reg)
    # a count call of 64 + 3 elements (D22 for count Add): A2/A3/310P all ones, 910 the tail, 950/310B untouched
    check(lambda: aj.Cast(d_t, s_t, R.CAST_NONE, 67), 2, lambda i: range(64 if i == 0 else 3))
    if device in (A2, A3, P310):
        reg = list(range(64))
    elif device == T910:
        reg = [0, 1, 2]
    check(lambda: aj.Cast(d_t, s_t, R.CAST_NONE, PH, 2, params, is_set_mask=False), 2, lambda i: reg)
    # counter mode, the count from the register (is_set_mask=False) and from the argument (continuous and bit form)
    core.SetMaskCount()
    core.SetVectorMask(70)
    check(lambda: aj.Cast(d_t, s_t, R.CAST_NONE, PH, 1, params, is_set_mask=False), 2,
          lambda i: range(64 if i == 0 else 6))
    check(lambda: aj.Cast(d_t, s_t, R.CAST_NONE, 130, 1, params), 3, lambda i: range(64 if i < 2 else 2))
    check(lambda: aj.Cast(d_t, s_t, R.CAST_NONE, [65, 0], 9, params), 2, lambda i: range(64 if i == 0 else 1))
    check(lambda: aj.Cast(d_t, s_t, R.CAST_NONE, 0, 9, params), 0, lambda i: [])   # count 0: NOP
    core.SetMaskNorm()
    core.ResetMask()
    # repeat 0, count 0: NOP everywhere; mask 0: NOP except on the 950 (ParameterError), SPEC-2 D30
    check(lambda: aj.Cast(d_t, s_t, R.CAST_NONE, 64, 0, params), 0, lambda i: [])
    check(lambda: aj.Cast(d_t, s_t, R.CAST_NONE, 0), 0, lambda i: [])
    for zero in (0, [0]):
        if device == DEV950:
            before = _fill(core, rng)
            with pytest.raises(aj.ParameterError):
                aj.Cast(d_t, s_t, R.CAST_NONE, zero, 2, params)
            assert np.array_equal(core.ub, before)
        else:
            check(lambda: aj.Cast(d_t, s_t, R.CAST_NONE, zero, 2, params), 0, lambda i: [])
    for bad in (-1, [0, 1]):   # negative mask; 32-bit lanes: mask[1] must be 0 (SPEC 2.1)
        with pytest.raises(aj.ParameterError):
            aj.Cast(d_t, s_t, R.CAST_NONE, bad, 1, params)


@pytest.mark.parametrize("device", (A2, DEV950, P310))
def test_cast_in_place_same_size(device):
    """Same-size pairs may run in place (decisions.md "Cast overlap in the count form", SPEC 3.3); different sizes
    may not overlap at all (D34)."""
    rng = np.random.default_rng(3)
    core = aj.Core(device)
    pair = ("int16", "half")
    mode = R.CAST_ROUND if device == DEV950 else R.CAST_NONE
    t_src = core.local_tensor(pair[0], 4096, addr=256)
    t_dst = core.local_tensor(pair[1], 4096, addr=256)
    want = _fill(core, rng)
    bits = core.ub[256:256 + 8192].view(np.uint16).astype(np.uint64)
    want[256:256 + 8192] = convert(*pair, mode, bits, 0, 0).astype(np.uint16).view(np.uint8)
    aj.Cast(t_dst, t_src, mode, 4096)
    assert np.array_equal(core.ub, want)
    want = _fill(core, rng)   # high-dim in place, both at the same start with the same strides
    bits = core.ub[256:256 + 512].view(np.uint16).astype(np.uint64)
    want[256:256 + 512] = convert(*pair, mode, bits, 0, 0).astype(np.uint16).view(np.uint8)
    aj.Cast(t_dst, t_src, mode, 128, 2, aj.UnaryRepeatParams(1, 1, 8, 8))
    assert np.array_equal(core.ub, want)
    before = _fill(core, rng)
    with pytest.raises(aj.OverlapError):
        aj.Cast(core.local_tensor("float", 256, addr=256), core.local_tensor("half", 256, addr=256), R.CAST_NONE,
                256)
    with pytest.raises(aj.OverlapError):
        aj.Cast(core.local_tensor("half", 256, addr=288), t_src, mode, 256)
    assert np.array_equal(core.ub, before)


def test_data_copy_pad_950_compact_negative_stride_and_ub_to_gm_compact():
    """SPEC-2 9.1 / D56 on the 950: Compact packs the blocks back to back with one filler to the next 32-B boundary,
    whose content follows decisions.md "DataCopyPad fill order" (the last block's first element when both pads are
    0); GM -> UB srcStride may be as low as -blockLen; UB -> GM Compact reads the UB blocks back to back."""
    rng = np.random.default_rng(21)
    for dtype in ("int8", "half", "float", "uint64", "bfloat16"):
        s = SIZE[dtype]
        core = aj.Core(DEV950)
        for trial in range(12):
            count = int(rng.integers(1, 6))
            blen = s * int(rng.integers(1, 70 // s + 2))
            sstride = int(rng.integers(-blen, 30))
            compact = trial % 2 == 0
            left = int(rng.integers(0, 32 // s + 1)) if trial % 3 else 0
            right = int(rng.integers(0, 32 // s + 1)) if trial % 3 else 0
            is_pad = trial % 4 < 2
            pv = 0 if s == 8 else int(rng.integers(1, 100))
            dstride = int(rng.integers(0, 3))
            gm_bytes = rng.integers(0, 256, (count * (blen + max(sstride, 0)) + 64) // s * s + s, dtype=np.uint8)
            gm = aj.GlobalTensor(gm_bytes.copy(), dtype=dtype)
            want = _fill(core, rng)
            dst = core.local_tensor(dtype, 3000 // s, addr=32 * int(rng.integers(1, 30)))
            poison = np.zeros(core.ub.size, bool)
            pad = (np.array([py_scalar_bits(dtype, float(pv)) if dtype in FMT else pv]).astype(UINT[s]).view(np.uint8)
                   if is_pad else None)
            blocks = [gm_bytes[k * (blen + sstride):k * (blen + sstride) + blen] for k in range(count)]
            if compact:
                for k, data in enumerate(blocks):
                    want[dst.addr + k * blen:dst.addr + (k + 1) * blen] = data
                end = dst.addr + count * blen
                region = np.arange(end, -(-end // 32) * 32)
                fill_src = blocks[-1][:s]
                filler_regions = [(region, fill_src)]
            else:
                P = -(-(left * s + blen + right * s) // 32) * 32
                filler_regions = []
                for k, data in enumerate(blocks):
                    u = dst.addr + k * (P + 32 * dstride)
                    want[u + left * s:u + left * s + blen] = data
                    filler_regions.append((np.r_[u:u + left * s, u + left * s + blen:u + P], data[:s]))
            for region, first in filler_regions:
                if left == 0 and right == 0:
                    want[region] = np.tile(first, len(region) // s)
                elif pad is not None:
                    want[region] = np.tile(pad, len(region) // s)
                else:
                    poison[region] = True
            aj.DataCopyPad(dst, gm, aj.DataCopyExtParams(count, blen, sstride, dstride, 0),
                           aj.DataCopyPadExtParams(is_pad, left, right, pv),
                           mode=aj.PaddingMode.Compact if compact else aj.PaddingMode.Normal)
            ok = (core.ub == want) | poison
            assert ok.all(), (dtype, trial, compact, count, blen, sstride, left, right, np.nonzero(~ok)[0][:5])
            # UB -> GM Compact: the UB source blocks back to back, srcStride ignored; GM gaps as Normal
            core.PipeBarrier(aj.PIPE_ALL)
            ubefore = _fill(core, rng)
            src = core.local_tensor(dtype, 3000 // s, addr=32 * 70)
            gstride = int(rng.integers(0, 20))
            g2 = rng.integers(0, 256, count * (blen + gstride) + 64, dtype=np.uint8)
            gm2 = aj.GlobalTensor(g2.copy(), dtype=dtype) if g2.size % s == 0 else None
            if gm2 is None:
                g2 = g2[:g2.size // s * s]
                gm2 = aj.GlobalTensor(g2.copy(), dtype=dtype)
            gw = g2.copy()
            for k in range(count):
                u = src.addr + (k * blen if compact else k * (-(-blen // 32) * 32 + 32 * 2))
                gw[k * (blen + gstride):k * (blen + gstride) + blen] = core.ub[u:u + blen]
            aj.DataCopyPad(gm2, src, aj.DataCopyExtParams(count, blen, 2, gstride, 0),
                           mode=aj.PaddingMode.Compact if compact else aj.PaddingMode.Normal)
            assert np.array_equal(gm2.numpy().view(np.uint8), gw), (dtype, trial, compact)
            assert np.array_equal(core.ub, ubefore)
            core.PipeBarrier(aj.PIPE_ALL)


@pytest.mark.parametrize("device", (A2, B310))
def test_data_copy_pad_refusals(device):
    """SPEC-2 9.1 ranges (ParameterError), Compact off the 950 (UnsupportedDeviceError), 32-B UB alignment."""
    core = aj.Core(device)
    before = _fill(core, np.random.default_rng(0))
    ub = core.local_tensor("half", 512, addr=64)
    gm = aj.GlobalTensor(np.zeros(4096, np.float16))
    bad = [((1, 3, 0, 0, 0), (False, 0, 0, 0)),        # blockLen not a multiple of sizeof(T)
           ((1, 32, 0, 0, 0), (True, 17, 0, 0)),       # leftPadding > 32 B
           ((1, 32, 0, 0, 0), (True, 0, 17, 0)),
           ((4096, 2, 0, 0, 0), (False, 0, 0, 0)),     # blockCount > 4095
           ((1, 32, -2, 0, 0), (False, 0, 0, 0))]      # negative srcStride off the 950
    for cp, pp in bad:
        with pytest.raises(aj.ParameterError):
            aj.DataCopyPad(ub, gm, cp, pp)
    with pytest.raises(aj.ParameterError if device != B310 else aj.UnsupportedDTypeError):
        aj.DataCopyPad(core.local_tensor("int64", 16), aj.GlobalTensor(np.zeros(8, np.int64)), (1, 8, 0, 0, 0),
                       (True, 0, 1, 3))                # paddingValue must be 0 for 64-bit T (310B: no int64)
    with pytest.raises(aj.UnsupportedDeviceError):
        aj.DataCopyPad(ub, gm, (1, 32, 0, 0, 0), (False, 0, 0, 0), mode=aj.PaddingMode.Compact)
    with pytest.raises(aj.AlignmentError):
        aj.DataCopyPad(core.local_tensor("half", 64, addr=66), gm, (1, 32, 0, 0, 0), (False, 0, 0, 0))
    assert np.array_equal(core.ub, before)
    # GM side: any start, NOP for blockCount 0 / blockLen 0
    aj.DataCopyPad(ub, gm[3:], (0, 32, 0, 0, 0), (True, 1, 1, 5))
    aj.DataCopyPad(ub, gm[3:], (3, 0, 0, 0, 0), (True, 1, 1, 5))
    assert np.array_equal(core.ub, before)


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_duplicate_counter_mode_zero_parameters_and_brcb_refusals(device):
    rng = np.random.default_rng(8)
    core = aj.Core(device)
    t = core.local_tensor("float", 2048, addr=96)
    pat = np.array([0x40490FDB], np.uint32).view(np.uint8)
    sc = np.float32(np.array([0x40490FDB], np.uint32).view(np.float32)[0])

    def expect(runs):
        want = _fill(core, rng)
        for i, lanes, blk, rep in runs:
            for j in lanes:
                a = _lane_addr(t.addr, 4, i, j, blk, rep)
                want[a:a + 4] = pat
        return want

    core.SetMaskCount()        # counter mode: the mask is the element count, repeats full but the last
    want = expect([(0, range(64), 2, 20), (1, range(64), 2, 20), (2, range(7), 2, 20)])
    aj.Duplicate(t, sc, 135, 1, 2, 20)
    assert np.array_equal(core.ub, want)
    core.SetVectorMask(70)
    want = expect([(0, range(64), 1, 8), (1, range(6), 1, 8)])
    aj.Duplicate(t, sc, aj.MASK_PLACEHOLDER, 1, 1, 8, is_set_mask=False)
    assert np.array_equal(core.ub, want)
    core.SetMaskNorm()
    core.ResetMask()
    want = expect([])
    aj.Duplicate(t, sc, 0)          # count 0
    aj.Duplicate(t, sc, 64, 0, 1, 8)    # repeat 0
    assert np.array_equal(core.ub, want)
    if device == DEV950:
        with pytest.raises(aj.ParameterError):
            aj.Duplicate(t, sc, 0, 1, 1, 8)
    else:
        aj.Duplicate(t, sc, [0], 2, 1, 8)
    assert np.array_equal(core.ub, want)
    with pytest.raises(aj.ParameterError):
        aj.Duplicate(t, sc, 64, 1, 0, 8)    # dstBlkStride 0 (SPEC-2 1.2, D61)
    with pytest.raises(aj.ParameterError):
        aj.Duplicate(t, sc, 64, 256, 1, 8)  # repeat_time 0..255
    with pytest.raises(aj.OutOfBoundsError):
        aj.Duplicate(t, sc, 2049)
    if device in BRCB:
        src = core.local_tensor("half", 32, addr=64 * 1024)
        dst = core.local_tensor("half", 4096, addr=0)
        with pytest.raises(aj.OutOfBoundsError):
            aj.Brcb(dst, src, 5, (1, 8))    # src must hold 8 * repeat_time elements
        with pytest.raises(aj.OverlapError):
            aj.Brcb(dst, core.local_tensor("half", 64, addr=256), 2, (1, 8))   # bytes read 256..287, written 0..511
        with pytest.raises(aj.ParameterError):
            aj.Brcb(dst, src, 256, (1, 8))
    assert np.array_equal(core.ub, want)


def test_the_inference_vector_core_refuses_every_api_here():
    """SPEC D13 / SPEC-2 0.1: the inference Vector Core is refused by every API (UnsupportedDeviceError)."""
    core = aj.Core("atlas-inference-vectorcore")
    h, f = core.local_tensor("half", 256), core.local_tensor("float", 256)
    gm = aj.GlobalTensor(np.zeros(64, np.float16))
    calls = [lambda: aj.Cast(f, h, R.CAST_NONE, 64), lambda: aj.Cast(f, h, R.CAST_NONE, 64, 1, (1, 1, 8, 4)),
             lambda: aj.Duplicate(h, 1.0, 16), lambda: aj.Duplicate(h, 1.0, 16, 1, 1, 8),
             lambda: aj.Brcb(h, core.local_tensor("half", 16), 1, (1, 8)),
             lambda: aj.DataCopyPad(h, gm, (1, 32, 0, 0, 0), (False, 0, 0, 0)),
             lambda: aj.DataCopyPad(gm, h, (1, 32, 0, 0, 0)), lambda: core.SetPadValue(1.0, "half")]
    for call in calls:
        with pytest.raises(aj.UnsupportedDeviceError):
            call()
