"""Audit 44f: the fidelity table and the MODELLED instructions' rounding.

What it audits, against which sections:

- `aj.FIDELITY` / `aj.fidelity(...)` row by row against SPEC-2 0.3 (and D69: one entry per (api, device) the device
  offers, 1.9), every instruction of the registry has a row, and the gallery's fidelity column (`ascend-jit run
  --list`, kernels' `fidelity`) names MODELLED where a kernel's instructions are MODELLED.
- The MODELLED instructions (SPEC-2 0.3, D37-D40, D48, D75) against an independent reference written here: the exact
  result (fractions.Fraction for Div, Reciprocal; mpmath at 200 bits for Exp, Ln, Sqrt, Rsqrt) rounded ONCE to the
  destination type with round-to-nearest-even (SPEC-2 1.6 `RN_T`), then the special-value table of 4.3 / MemBV-T12
  (2.3), the 950's DAZ/FTZ (D38, per algorithm of 2.3 / 4.3), the half saturation map (D35 `SAT`), the canonical NaN.
  The 950's Rsqrt INTRINSIC is the two-stage Div(1, Sqrt(x)) of D40 (each stage rounded and flushed), with D75's
  specials; every other Rsqrt algorithm is the correctly rounded 1/sqrt(x) (docs/decisions.md "950 Rsqrt").
  Nothing from ascend_jit/reference/ is used.
  Half: every one of the 65536 patterns (Exp, Ln, Sqrt, Rsqrt, Reciprocal; the count form on every device and each
  950 algorithm; the 950 Reg API in a `@aj.Reg.simd_vf` VF for Exp, Ln, Sqrt, Div); Div: every pattern of one
  operand against a few hundred structured values of the other (specials, subnormals, powers of two, values near
  overflow), both ways round. Float: sampled (random bit patterns, values whose exact result lies within a tiny
  distance of a float32 rounding midpoint, subnormal inputs and results). The D39 multiply-adds off the 950 (exact
  product, one rounding; half and float) and the 950 FusedMulAdd bf16 (one rounding) are sampled; the 950's integer
  Div / Reciprocal (D48), Reg.Arange and the first register of CreateVecIndex (half/float: one rounding, fidelity.py)
  and the high-dim form are spot-checked. Slow: a float64 sweep of every float32 finds the inputs whose Exp, Ln,
  Rsqrt lie within 2e-7 of a quantum from a float32 midpoint; those are checked exactly everywhere.
The default run takes a subset (a stride through the patterns on A2 and the 950); the exhaustive sweeps over every
device and algorithm are marked slow. No rounding bit differed. Tests named test_found_* (aj.fidelity lookups)
failed on the code audited (7130b5b) and pass since session 44 fixed them.
"""
import functools
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import ascend_jit as aj

R = aj.Reg
D950, A3, A2, B310, P310, T910 = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore",
                                  "atlas-training")
ALL = (D950, A3, A2, B310, P310, T910)
NOT_950 = (A3, A2, B310, P310, T910)

# ------------------------------------------------------------------------------------------------------------------
# the reference: exact value, one RNE rounding, then the SPEC's special rules
# ------------------------------------------------------------------------------------------------------------------
FMT = {"half": (5, 10), "bfloat16": (8, 7), "float": (8, 23)}
UINT = {"half": np.uint16, "bfloat16": np.uint16, "float": np.uint32}
CANON_NAN = {"half": 0x7E00, "bfloat16": 0x7FC0, "float": 0x7FC00000}
NAN = "nan"


class Inf:
    """An infinity of a sign (the exact result of a special case)."""
    def __init__(self, neg):
        self.neg = neg


class Zero:
    def __init__(self, neg):
        self.neg = neg


def decode(bits, dtype):
    """A bit pattern as NAN, Inf, Zero or an exact Fraction."""
    e, m = FMT[dtype]
    bits = int(bits)
    neg = bits >> (e + m) & 1
    ex = bits >> m & ((1 << e) - 1)
    man = bits & ((1 << m) - 1)
    if ex == (1 << e) - 1:
        return NAN if man else Inf(neg)
    if ex == 0 and man == 0:
        return Zero(neg)
    bias = (1 << (e - 1)) - 1
    v = Fraction(man if ex == 0 else man | 1 << m) * Fraction(2) ** ((1 if ex == 0 else ex) - bias - m)
    return -v if neg else v


def is_subnormal(bits, dtype):
    e, m = FMT[dtype]
    return (int(bits) >> m) & ((1 << e) - 1) == 0 and int(bits) & ((1 << m) - 1) != 0


def sign_bit(dtype):
    e, m = FMT[dtype]
    return 1 << (e + m)


def to_fraction(x):
    """An mpmath mpf (exact binary) as a Fraction."""
    sign, man, exp, _ = x._mpf_
    v = Fraction(int(man)) * Fraction(2) ** int(exp)
    return -v if sign else v


class Ambiguous(Exception):
    pass


def rne(q, dtype, tol=None):
    """The bits of RN_T(q): q a Fraction (exact) or an mpf approximation (then it must not lie within `tol`, in units
    of the destination quantum, of a rounding midpoint); IEEE overflow to inf, gradual underflow."""
    e, m = FMT[dtype]
    bias = (1 << (e - 1)) - 1
    emin = 1 - bias
    if not isinstance(q, Fraction):
        mag = int(mpmath.mag(q)) if q else 0   # 2^(mag-1) <= |q| < 2^mag: far out of range needs no Fraction
        if mag > bias + 2:
            return (sign_bit(dtype) if q < 0 else 0) | (((1 << e) - 1) << m)
        if mag < emin - m - 2:
            return sign_bit(dtype) if q < 0 else 0
        q = to_fraction(q)
        tol = Fraction(1, 2 ** 60) if tol is None else tol
    neg = q < 0
    a = -q if neg else q
    s = sign_bit(dtype) if neg else 0
    if a == 0:
        return s
    ex = a.numerator.bit_length() - a.denominator.bit_length()
    if a < Fraction(2) ** ex:
        ex -= 1
    ex = max(ex, emin)
    n = a / Fraction(2) ** (ex - m)
    fl = n.numerator // n.denominator
    if tol is not None and abs(n - fl - Fraction(1, 2)) < tol:
        raise Ambiguous(q)
    r = round(n)   # Fraction rounds half to even
    if r == 1 << (m + 1):
        r >>= 1
        ex += 1
    if ex > bias:
        return s | (((1 << e) - 1) << m)
    if r < 1 << m:   # subnormal (ex == emin)
        return s | r
    return s | ((ex + bias) << m) | (r - (1 << m))


def special_bits(v, dtype):
    if v is NAN:
        return CANON_NAN[dtype]
    e, m = FMT[dtype]
    if isinstance(v, Inf):
        return (sign_bit(dtype) if v.neg else 0) | (((1 << e) - 1) << m)
    if isinstance(v, Zero):
        return sign_bit(dtype) if v.neg else 0
    raise TypeError(v)


def finish(bits, dtype, ftz, sat):
    """D38 FTZ on the rounded result, then D35 SAT (half only here), NaN canonical."""
    e, m = FMT[dtype]
    expmask = ((1 << e) - 1) << m
    if (bits & expmask) == expmask and bits & ((1 << m) - 1):
        bits = CANON_NAN[dtype]
    if ftz and is_subnormal(bits, dtype):
        bits &= sign_bit(dtype)
    if sat and dtype in ("half", "bfloat16"):
        if (bits & expmask) == expmask:
            bits = 0 if bits & ((1 << m) - 1) else (bits & sign_bit(dtype)) | (expmask - (1 << m)) | ((1 << m) - 1)
    return bits


def _mp(v):
    return mpmath.mpf(v.numerator) / v.denominator


def exact_unary(op, v):
    """op(v) before rounding: a Fraction, an mpf approximation (200 bits), or a special (SPEC-2 4.3's table)."""
    if v is NAN:
        return NAN
    if op == "Exp":
        if isinstance(v, Zero):
            return Fraction(1)
        if isinstance(v, Inf):
            return Zero(False) if v.neg else Inf(False)
        return mpmath.exp(_mp(v))
    if op == "Ln":
        if isinstance(v, Zero):
            return Inf(True)
        if isinstance(v, Inf):
            return NAN if v.neg else Inf(False)
        if v < 0:
            return NAN
        return Fraction(0) if v == 1 else mpmath.log(_mp(v))
    if op == "Sqrt":
        if isinstance(v, Zero):
            return v
        if isinstance(v, Inf):
            return NAN if v.neg else v
        return NAN if v < 0 else mpmath.sqrt(_mp(v))
    if op == "Rsqrt":
        if isinstance(v, Zero):
            return Inf(v.neg)
        if isinstance(v, Inf):
            return NAN if v.neg else Zero(False)
        return NAN if v < 0 else 1 / mpmath.sqrt(_mp(v))
    if op == "Reciprocal":
        if isinstance(v, Zero):
            return Inf(v.neg)
        if isinstance(v, Inf):
            return Zero(v.neg)
        return 1 / v
    raise ValueError(op)


def exact_div(x, y):
    """x / y with MemBV-T12's IEEE specials (D48)."""
    if x is NAN or y is NAN:
        return NAN
    nx = x.neg if isinstance(x, (Inf, Zero)) else x < 0
    ny = y.neg if isinstance(y, (Inf, Zero)) else y < 0
    neg = bool(nx) != bool(ny)
    if isinstance(x, Inf):
        return NAN if isinstance(y, Inf) else Inf(neg)
    if isinstance(x, Zero):
        return NAN if isinstance(y, Zero) else Zero(neg)
    if isinstance(y, Zero):
        return Inf(neg)
    if isinstance(y, Inf):
        return Zero(neg)
    return x / y


def round_value(v, dtype, ftz, sat):
    raw = special_bits(v, dtype) if v is NAN or isinstance(v, (Inf, Zero)) else rne(v, dtype)
    return finish(raw, dtype, ftz, sat)


def daz(bits, dtype, on):
    return int(bits) & sign_bit(dtype) if on and is_subnormal(bits, dtype) else int(bits)


def ref_unary(op, dtype, bits, ftz, sat, composed_rsqrt=False):
    """Expected bits of op over the input patterns `bits`: DAZ/FTZ when ftz (D38); the 950 Rsqrt INTRINSIC as
    Div(1, Sqrt(x)) for finite x > 0 (D40, D75)."""
    out = np.empty(len(bits), np.uint64)
    for i, b in enumerate(bits):
        v = decode(daz(b, dtype, ftz), dtype)
        if composed_rsqrt and isinstance(v, Fraction) and v > 0:
            s = finish(rne(mpmath.sqrt(_mp(v)), dtype), dtype, ftz, sat)
            out[i] = round_value(exact_div(Fraction(1), decode(s, dtype)), dtype, ftz, sat)
        else:
            out[i] = round_value(exact_unary(op, v), dtype, ftz, sat)
    return out.astype(UINT[dtype])


mpmath.mp.prec = 200


@functools.lru_cache(maxsize=None)
def _half_exact(op):
    """The exact-ish value for every half pattern (cached: the same values serve every device and mode)."""
    return [exact_unary(op, decode(b, "half")) for b in range(65536)]


def ref_half_all(op, ftz, sat, composed_rsqrt=False):
    """ref_unary over all 65536 half patterns, sharing the cached exact values."""
    if composed_rsqrt:
        return ref_unary(op, "half", np.arange(65536), ftz, sat, composed_rsqrt)
    ex = _half_exact(op)
    out = np.empty(65536, np.uint16)
    for b, v in enumerate(ex):
        if ftz and is_subnormal(b, "half"):
            v = exact_unary(op, Zero(b >> 15))
        out[b] = round_value(v, "half", ftz, sat)
    return out


# ------------------------------------------------------------------------------------------------------------------
# the emulator, through the public API
# ------------------------------------------------------------------------------------------------------------------
CHUNK = 8192


def make_core(device, sat=None):
    """A core of the device in the requested half overflow mode (None: the device's default); None if the device
    cannot be put in it (SPEC D4/D6)."""
    core = aj.Core(device)
    if sat is not None:
        if core.spec.half_saturation_switchable:
            core.SetCtrlSpr(48, 48, 0 if sat else 1)
        elif core.spec.half_saturating_default != sat:
            return None
    return core


def default_sat(device):
    return aj.Core(device).spec.half_saturating_default


def _put(t, dtype, bits):
    """Host bits into the tensor's first elements (a same-dtype copy keeps every bit, NaN payloads included)."""
    bits = np.asarray(bits, UINT[dtype])
    t[0:len(bits)] = bits.view(t.dtype.np_dtype)


def run_unary(op, device, dtype, bits, config=None, sat=None):
    core = make_core(device, sat)
    bits = np.asarray(bits, UINT[dtype])
    s, d = core.local_tensor(dtype, CHUNK), core.local_tensor(dtype, CHUNK)
    kw = {} if config is None else {"config": config}
    out = []
    for k in range(0, len(bits), CHUNK):
        part = bits[k:k + CHUNK]
        _put(s, dtype, part)
        getattr(aj, op)(d, s, len(part), **kw)
        out.append(d.numpy().view(UINT[dtype])[:len(part)].copy())
    return np.concatenate(out)


def run_div(device, dtype, xb, yb, config=None, sat=None):
    core = make_core(device, sat)
    xb, yb = np.asarray(xb, UINT[dtype]), np.asarray(yb, UINT[dtype])
    a, b, d = (core.local_tensor(dtype, CHUNK) for _ in range(3))
    kw = {} if config is None else {"config": config}
    out = []
    for k in range(0, len(xb), CHUNK):
        _put(a, dtype, xb[k:k + CHUNK])
        _put(b, dtype, yb[k:k + CHUNK])
        n = len(xb[k:k + CHUNK])
        aj.Div(d, a, b, n, **kw)
        out.append(d.numpy().view(UINT[dtype])[:n].copy())
    return np.concatenate(out)


def diffs(inputs, want, got, dtype, limit=8):
    bad = np.nonzero(np.asarray(want).astype(np.uint64) != np.asarray(got).astype(np.uint64))[0]
    w = 4 if dtype != "float" else 8
    return len(bad), [tuple(f"0x{int(v):0{w}X}" for v in (*(x[i] for x in inputs), want[i], got[i]))
                      for i in bad[:limit]]


# ------------------------------------------------------------------------------------------------------------------
# vectorised reference for many values: one correctly rounded float64 operation, then our own RNE
# ------------------------------------------------------------------------------------------------------------------
# Division and square root of p-bit operands rounded to float64 and then to p bits give the correctly rounded p-bit
# result whenever 53 >= 2p + 2 (double rounding is innocuous: Figueroa, "When is double rounding innocuous?", 1995);
# p = 11 (half) and p = 24 (float) qualify, subnormal destinations included (fewer bits). The RNE below is exact
# double arithmetic (scaling by powers of two and np.rint's ties-to-even).
def rne_f64(d, dtype, ftz=False, sat=False):
    """Bits of RN_T(d) for float64 values d (NaN, +-inf, +-0 as such), then FTZ, SAT, the canonical NaN."""
    e, m = FMT[dtype]
    bias = (1 << (e - 1)) - 1
    emin = 1 - bias
    d = np.asarray(d, np.float64)
    sign = np.signbit(d).astype(np.int64) << (e + m)
    a = np.abs(d)
    fin = np.isfinite(a) & (a > 0)
    af = np.where(fin, a, 1.0)
    _, k = np.frexp(af)
    ex = np.maximum(k.astype(np.int64) - 1, emin)
    r = np.rint(np.ldexp(af, (m - ex).astype(np.int32))).astype(np.int64)
    carry = r == (1 << (m + 1))
    r = np.where(carry, r >> 1, r)
    ex = ex + carry
    normal = r >= (1 << m)
    body = np.where(normal, ((ex + bias) << m) | (r - (1 << m)), r)
    inf = ((1 << e) - 1) << m
    body = np.where(ex > bias, inf, body)
    bits = np.where(fin, body, np.where(np.isinf(a), inf, 0)) | sign
    bits = np.where(np.isnan(d), CANON_NAN[dtype], bits)
    if ftz:
        sub = ((bits & inf) == 0) & ((bits & ((1 << m) - 1)) != 0)
        bits = np.where(sub, bits & (1 << (e + m)), bits)
    if sat and dtype in ("half", "bfloat16"):
        isinf = (bits & ((1 << (e + m)) - 1)) == inf
        bits = np.where(isinf, (bits & (1 << (e + m))) | (inf - 1), bits)
        bits = np.where(bits == CANON_NAN[dtype], 0, bits)
    return bits.astype(UINT[dtype])


def midpoint_distance(d, dtype):
    """How far (in units of the destination quantum) the float64 d lies from a RN_T rounding midpoint."""
    e, m = FMT[dtype]
    emin = 2 - (1 << (e - 1))
    a = np.abs(np.asarray(d, np.float64))
    af = np.where(np.isfinite(a) & (a > 0), a, 1.0)
    _, k = np.frexp(af)
    n = np.ldexp(af, (m - np.maximum(k.astype(np.int64) - 1, emin)).astype(np.int32))
    return np.abs(n - np.floor(n) - 0.5)


@np.errstate(invalid="ignore")   # NaN patterns widen as NaN (the payload is not compared)
def as_f64(bits, dtype):
    bits = np.asarray(bits, UINT[dtype])
    if dtype == "half":
        return bits.view(np.float16).astype(np.float64)
    if dtype == "float":
        return bits.view(np.float32).astype(np.float64)
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def daz_f64(bits, dtype, on):
    bits = np.asarray(bits, UINT[dtype]).astype(np.int64)
    if on:
        e, m = FMT[dtype]
        sub = ((bits >> m) & ((1 << e) - 1) == 0) & ((bits & ((1 << m) - 1)) != 0)
        bits = np.where(sub, bits & (1 << (e + m)), bits)
    return as_f64(bits.astype(UINT[dtype]), dtype)


def ref_div_vec(xb, yb, dtype, ftz, sat):
    """RN_T(x / y) by one float64 division (IEEE specials of MemBV-T12 come out of IEEE float64 itself), DAZ/FTZ."""
    with np.errstate(all="ignore"):
        q = daz_f64(xb, dtype, ftz) / daz_f64(yb, dtype, ftz)
    return rne_f64(q, dtype, ftz, sat)


def structured(dtype, n_random, seed):
    """Specials, subnormals, powers of two, values near overflow and 1, small integers, random patterns."""
    rng = np.random.default_rng(seed)
    if dtype == "half":
        v = [0x0000, 0x7C00, 0x7E00, 0x7C01, 0x7FFF, 0x0001, 0x0002, 0x0003, 0x0155, 0x01FF, 0x0200, 0x0201,
             0x03FF, 0x0400, 0x0401, 0x07FF, 0x3C00, 0x3C01, 0x3BFF, 0x3E00, 0x4200, 0x4500, 0x4700, 0x4900,
             0x5A40, 0x7BFF, 0x7BFE, 0x7800, 0x77FF, 0x3555, 0x2E66, 0x1400, 0x0800]
        v += [ex << 10 for ex in range(1, 31)]
        width = 16
    else:
        v = [0x00000000, 0x7F800000, 0x7FC00000, 0x7F800001, 0x00000001, 0x00000002, 0x00000003, 0x00400000,
             0x007FFFFF, 0x00800000, 0x00800001, 0x3F800000, 0x3F800001, 0x3F7FFFFF, 0x40400000, 0x40A00000,
             0x40E00000, 0x7F7FFFFF, 0x7F7FFFFE, 0x7F000000, 0x7EFFFFFF, 0x3EAAAAAB, 0x3DCCCCCD, 0x0014440B,
             0x0053E3CF, 0x0036A794]
        v += [ex << 23 for ex in range(1, 255, 3)]
        width = 32
    v = v + [x | (1 << (width - 1)) for x in v]
    v += rng.integers(0, 1 << width, n_random).tolist()
    return np.unique(np.array(v, np.uint64)).astype(UINT[dtype])


def half_div_ftz(device, config):
    return device == D950 and (config is None or config.algo.name in ("INTRINSIC", "PRECISION_1ULP_FTZ_TRUE"))


F64_OP = {"Exp": np.exp, "Ln": np.log, "Sqrt": np.sqrt, "Rsqrt": lambda x: 1.0 / np.sqrt(x),
          "Reciprocal": lambda x: 1.0 / x}
EXACT_IN_F64 = ("Sqrt", "Reciprocal")   # innocuous double rounding (see above); the others settled by mpmath


def ref_unary_vec(op, dtype, bits, ftz=False, sat=False, composed_rsqrt=False, fast_inverse=False):
    """Expected bits for many inputs: a float64 evaluation, with every value whose float64 lies within 1e-6 of a
    quantum from a midpoint (Exp, Ln, Rsqrt; the float64 is within ~2 double ulps, 2^-28 of a float32 quantum)
    recomputed exactly (mpmath, 200 bits; Ambiguous if even that cannot decide)."""
    bits = np.asarray(bits, UINT[dtype])
    x = daz_f64(bits, dtype, ftz)
    with np.errstate(all="ignore"):
        if composed_rsqrt:   # D40 / D75: Div(1, Sqrt(x)) for finite x > 0, each stage rounded and flushed
            s = as_f64(rne_f64(np.sqrt(x), dtype, ftz, sat), dtype)
            y = np.where(np.isfinite(x) & (x > 0), 1.0 / s, 1.0 / np.sqrt(x))
            return rne_f64(y, dtype, ftz, sat)
        y = F64_OP[op](x)
    out = rne_f64(y, dtype, ftz, sat)
    if op not in EXACT_IN_F64:
        near = np.nonzero(np.isfinite(y) & (y != 0) & (midpoint_distance(y, dtype) < 1e-6))[0]
        for i in near:
            v = decode(daz(bits[i], dtype, ftz), dtype)
            out[i] = round_value(exact_unary(op, v), dtype, ftz, sat)
    if fast_inverse:   # D49: finite x > 2^126 -> Sqrt +0, Rsqrt +inf
        big = np.isfinite(x) & (x > 2.0 ** 126)
        out = np.where(big, 0 if op == "Sqrt" else 0x7F800000, out).astype(UINT[dtype])
    return out


def near_midpoints(op, n, seed):
    """float32 inputs whose exact op result lies very close to a float32 rounding midpoint."""
    rng = np.random.default_rng(seed)
    # midpoints m = (2k+1) 2^(e-24) with e over a range of binades
    k = rng.integers(1 << 23, 1 << 24, n)
    e = rng.integers(-60, 60, n)
    m = np.ldexp((2 * k + 1).astype(np.float64), (e - 24).astype(np.int32))
    with np.errstate(all="ignore"):
        if op == "Sqrt":
            x = m * m
        elif op == "Reciprocal":
            x = 1.0 / m
        elif op == "Rsqrt":
            x = 1.0 / (m * m)
        elif op == "Exp":
            x = np.log(m / np.ldexp(1.0, (e + 60).astype(np.int32) // 2))   # results spread over the exp range
        else:
            x = np.exp(rng.uniform(-80, 80, n))
    xb = x.astype(np.float32).view(np.uint32).astype(np.int64)
    cand = np.concatenate([xb + d for d in (-2, -1, 0, 1, 2)])
    cand = cand[(cand > 0) & (cand < 0x7F800000)].astype(np.uint32)
    if op in ("Exp", "Ln"):   # keep the closest of a wide scan
        scan = np.concatenate([cand, rng.integers(0x00000001, 0x7F800000, 4 * n).astype(np.uint32),
                               (rng.integers(0, 1 << 31, 4 * n) | (1 << 31)).astype(np.uint32)])
        if op == "Exp":
            scan = np.concatenate([scan, rng.uniform(-104, 89, 8 * n).astype(np.float32).view(np.uint32)])
        with np.errstate(all="ignore"):
            y = F64_OP[op](scan.view(np.float32).astype(np.float64))
        dist = np.where(np.isfinite(y) & (y != 0), midpoint_distance(y, "float"), 1.0)
        cand = scan[np.argsort(dist)[:n]]
    return cand


def float_inputs(op, n, seed):
    """Random patterns, the op's interesting ranges (subnormal inputs and results), near-midpoint inputs."""
    rng = np.random.default_rng(seed)
    parts = [structured("float", n // 4, seed), rng.integers(0, 1 << 32, n // 4, dtype=np.uint64).astype(np.uint32),
             rng.integers(1, 0x00800000, n // 16).astype(np.uint32), near_midpoints(op, n // 4, seed + 1)]
    if op == "Exp":
        parts.append(rng.uniform(-104, -85, n // 8).astype(np.float32).view(np.uint32))
        parts.append(rng.uniform(-20, 89, n // 8).astype(np.float32).view(np.uint32))
    if op == "Reciprocal":
        parts.append(rng.integers(0x7E000000, 0x7F800000, n // 8).astype(np.uint32))
    # results next to the smallest normal 2^-126 (FTZ keeps what rounds up to it, D38 / decisions.md "950 FTZ")
    edge = {"Exp": np.float32(np.log(2.0 ** -126)).view(np.uint32), "Reciprocal": np.uint32(0x7E800000),
            "Rsqrt": np.uint32(0x7F7FFFFF), "Sqrt": np.uint32(0x00000001), "Ln": np.uint32(0x3F800001)}[op]
    parts.append((int(edge) + np.arange(-64, 65)).astype(np.uint32))
    parts.append((int(edge) + np.arange(-64, 65)).astype(np.uint32) | np.uint32(0x80000000))
    if op in ("Sqrt", "Rsqrt"):
        parts.append(rng.integers(0x7E7FFFF0, 0x7E800010, 64).astype(np.uint32))
    return np.concatenate(parts).astype(np.uint32)


FTZ_ALGOS = ("INTRINSIC", "PRECISION_1ULP_FTZ_TRUE", "DIFF_COMPENSATION", "PRECISION_0ULP_FTZ_TRUE")


def unary_cases(op, dtype):
    """(device, config, ftz, composed_rsqrt, fast_inverse) for every device and 950 algorithm taking dtype."""
    out = []
    for dev in ALL:
        algos = [None]
        if dev == D950:
            algos += [a for a in getattr(aj, op + "Algo") if a.name != "INTRINSIC"
                      and not (dtype == "half" and a.name in ("FAST_INVERSE", "PRECISION_0ULP_FTZ_FALSE"))]
        for a in algos:
            name = "INTRINSIC" if a is None else a.name
            cfg = None if a is None else getattr(aj, op + "Config")(a)
            ftz = dev == D950 and name in FTZ_ALGOS
            comp = dev == D950 and op == "Rsqrt" and name == "INTRINSIC"
            fast = dev == D950 and name in ("FAST_INVERSE", "PRECISION_0ULP_FTZ_FALSE")
            out.append((dev, cfg, ftz, comp, fast))
    return out


def div_cases(dtype):
    out = []
    for dev in ALL:
        algos = [None] + ([a for a in aj.DivAlgo if a.name != "INTRINSIC" and (dtype == "float" or a.name in (
            "PRECISION_1ULP_FTZ_TRUE", "PRECISION_1ULP_FTZ_FALSE"))] if dev == D950 else [])
        for a in algos:
            name = "INTRINSIC" if a is None else a.name
            out.append((dev, None if a is None else aj.DivConfig(a), dev == D950 and name in FTZ_ALGOS))
    return out


# ------------------------------------------------------------------------------------------------------------------
# the 950 Reg API in a VF (SPEC-2 11; docs/decisions.md "Reg API", "Reg Div modes")
# ------------------------------------------------------------------------------------------------------------------
REG_UNARY = ("Exp", "Ln", "Log", "Sqrt")


def _vf_unary(dst, src, T, op, n):
    L = 256 // (2 if T == "half" else 4)
    m = R.CreateMask(T)
    rs, rd = R.RegTensor(T), R.RegTensor(T)
    for i in range(n // L):
        R.LoadAlign(rs, src, i * L)
        if op == 0:
            R.Exp(rd, rs, m)
        elif op == 1:
            R.Ln(rd, rs, m)
        elif op == 2:
            R.Log(rd, rs, m)
        else:
            R.Sqrt(rd, rs, m)
        R.StoreAlign(dst, rd, m, i * L)


def _vf_div(dst, a, b, T, mode, n):
    L = 256 // (2 if T == "half" else 4)
    m = R.CreateMask(T)
    ra, rb, rd = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    for i in range(n // L):
        R.LoadAlign(ra, a, i * L)
        R.LoadAlign(rb, b, i * L)
        R.Div(rd, ra, rb, m, mode)
        R.StoreAlign(dst, rd, m, i * L)


VF_UNARY, VF_DIV = R.simd_vf(_vf_unary), R.simd_vf(_vf_div)


def _pad(bits, dtype, lanes):
    bits = np.asarray(bits, UINT[dtype])
    return np.concatenate([bits, np.zeros((-len(bits)) % lanes, UINT[dtype])])


def run_reg_unary(op, dtype, bits, sat=False, compiled=True):
    core = make_core(D950, sat)
    n0 = len(bits)
    bits = _pad(bits, dtype, 256 // np.dtype(UINT[dtype]).itemsize)
    s, d = core.local_tensor(dtype, CHUNK), core.local_tensor(dtype, CHUNK)
    out = []
    vf = VF_UNARY if compiled else VF_UNARY.py_func
    for k in range(0, len(bits), CHUNK):
        part = bits[k:k + CHUNK]
        _put(s, dtype, part)
        with core:
            vf(d, s, dtype, REG_UNARY.index(op), len(part))
        out.append(d.numpy().view(UINT[dtype])[:len(part)].copy())
    return np.concatenate(out)[:n0]


def run_reg_div(dtype, xb, yb, mode, sat=False):
    core = make_core(D950, sat)
    n0 = len(xb)
    lanes = 256 // np.dtype(UINT[dtype]).itemsize
    xb, yb = _pad(xb, dtype, lanes), _pad(yb, dtype, lanes)
    a, b, d = (core.local_tensor(dtype, CHUNK) for _ in range(3))
    out = []
    for k in range(0, len(xb), CHUNK):
        _put(a, dtype, xb[k:k + CHUNK])
        _put(b, dtype, yb[k:k + CHUNK])
        n = len(xb[k:k + CHUNK])
        with core:
            VF_DIV(d, a, b, dtype, mode, n)
        out.append(d.numpy().view(UINT[dtype])[:n].copy())
    return np.concatenate(out)[:n0]


# ------------------------------------------------------------------------------------------------------------------
# multiply-adds: D39 off the 950 (exact product unless it overflows / is NaN, one rounding of the sum), the 950's
# one-rounding fma (6.3), 950 FusedMulAdd bfloat16 (MODELLED, one rounding)
# ------------------------------------------------------------------------------------------------------------------
def _round_to_odd_sum(p, c):
    """p + c rounded to odd in float64 (exact TwoSum error as the sticky bit): one RNE from it to any format of at
    most 51 bits is the correctly rounded p + c."""
    with np.errstate(all="ignore"):
        s = p + c
        bp = s - c
        err = (p - bp) + (c - (s - bp))
    ok = np.isfinite(s) & (err != 0)
    si = s.view(np.int64)
    even = (si & 1) == 0
    # move s one ulp toward the true sum: magnitude up if err has s's sign, else down
    step = np.where(np.signbit(err) == np.signbit(s), 1, -1)
    fixed = np.where(ok & even, si + step, si).view(np.float64)
    return np.where(ok, fixed, s)


def ref_madd_vec(a, b, c, dtype, sat, d39):
    """Bits of a*b + c (half/float/bfloat16 inputs as bits): d39 - the stage-1 product kept exact unless RN_T(p)
    overflows (then +-inf, or +-MAX when saturating) or is NaN (NaN, or +0 when saturating); otherwise one rounding.
    Then RN_T, SAT (half), canonical NaN."""
    x, y, z = as_f64(a, dtype), as_f64(b, dtype), as_f64(c, dtype)
    with np.errstate(all="ignore"):
        p = x * y   # exact: at most 2 x 24 significant bits, no float64 overflow for these types
    if d39:
        e, m = FMT[dtype]
        big = (2.0 - 2.0 ** (-m - 1)) * 2.0 ** ((1 << (e - 1)) - 1)   # RN_T(p) is inf iff |p| >= big
        over = np.isfinite(p) & (np.abs(p) >= big) | np.isinf(p)
        mx = as_f64(np.array([(((1 << e) - 1) << m) - 1], np.uint64).astype(UINT[dtype]), dtype)[0]
        p = np.where(over, np.copysign(mx if sat else np.inf, p), p)
        if sat:
            p = np.where(np.isnan(p), 0.0, p)
    return rne_f64(_round_to_odd_sum(p, z), dtype, False, sat)


def run_madd(op, device, dtype, a, b, c, sat=None):
    """MulAddDst dst=a*b+dst (src0=a, src1=b, dst=c); FusedMulAdd dst=src0*dst+src1 (src0=a, dst=b, src1=c); Axpy
    dst=scalar*src+dst (scalar=a[0], src=b, dst=c): a, b, c as bits of equal length (Axpy: a constant)."""
    core = make_core(device, sat)
    t0, t1, t2 = (core.local_tensor(dtype, CHUNK) for _ in range(3))
    out = []
    for k in range(0, len(a), CHUNK):
        pa, pb, pc = a[k:k + CHUNK], b[k:k + CHUNK], c[k:k + CHUNK]
        n = len(pa)
        if op == "MulAddDst":
            _put(t0, dtype, pa), _put(t1, dtype, pb), _put(t2, dtype, pc)
            aj.MulAddDst(t2, t0, t1, n)
            res = t2
        elif op == "FusedMulAdd":
            _put(t0, dtype, pa), _put(t2, dtype, pb), _put(t1, dtype, pc)
            aj.FusedMulAdd(t2, t0, t1, n)
            res = t2
        else:
            _put(t1, dtype, pb), _put(t2, dtype, pc)
            aj.Axpy(t2, t1, np.asarray(pa[:1], UINT[dtype]).view(t1.dtype.np_dtype)[0], n)
            res = t2
        out.append(res.numpy().view(UINT[dtype])[:n].copy())
    return np.concatenate(out)


MADD_DEVICES = {"MulAddDst": (D950, A3, A2, B310, P310), "FusedMulAdd": (D950, A3, A2, B310, P310),
                "Axpy": ALL}


def madd_operands(dtype, op, nb, nc, seed):
    """(a, b, c) bit arrays: every half pattern (float / bf16: a sample) as the free operand against nb x nc structured
    values of the others; Axpy's scalar runs over the structured values, the source over every pattern."""
    rng = np.random.default_rng(seed)
    if dtype == "float":
        free = np.concatenate([structured("float", 3000, seed), rng.integers(0, 1 << 32, 4000, dtype=np.uint64)
                               .astype(np.uint32)])
    else:
        free = np.arange(65536).astype(np.uint16)
    S = structured(dtype, 0, seed)
    bs = np.concatenate([S[rng.permutation(len(S))[:nb - 4]], rng.integers(0, 1 << (8 * S.itemsize), 4)
                         .astype(S.dtype)])
    cs = np.concatenate([S[rng.permutation(len(S))[:nc - 3]], rng.integers(0, 1 << (8 * S.itemsize), 3)
                         .astype(S.dtype)])
    B, C = np.repeat(bs, len(cs)), np.tile(cs, len(bs))
    if op == "Axpy":   # scalar a = B (one per call block), src = free, dst = C
        return B, C, free
    return np.tile(free, len(B)), np.repeat(B, len(free)), np.repeat(C, len(free))


# ==================================================================================================================
# 1. aj.FIDELITY / aj.fidelity against SPEC-2 0.3 (availability 1.9), the registry, the gallery
# ==================================================================================================================
BE, MO = aj.Fidelity.BIT_EXACT, aj.Fidelity.MODELLED
# (api, device, dtype, config, level), transcribed from SPEC-2 0.3 row by row
SPEC_0_3 = (
    [(api, dev, None, None, BE) for api in ("Sub", "Max", "Min", "Adds", "Abs", "Relu", "And", "Or", "Duplicate",
                                            "Mul", "Muls", "Cast", "Compare", "Select", "ReduceRepeat",
                                            "ReduceDataBlock", "ReduceMax", "ReduceMin", "PipeBarrier")
     for dev in ALL]
    + [(api, dev, None, None, BE) for api in ("Maxs", "Mins", "LeakyRelu", "AddRelu", "SubRelu", "Compares", "Gather",
                                              "GatherMask") for dev in (D950, A3, A2, B310, P310)]
    + [("Brcb", dev, None, None, BE) for dev in (D950, A3, A2, P310)]
    + [("DataCopyPad", dev, None, None, BE) for dev in (D950, A3, A2, B310)]
    + [("GetReduceRepeatMaxMinSpr", dev, None, None, BE) for dev in (A3, A2, P310)]
    + [("SetFlag", dev, None, None, BE) for dev in (D950, A3, A2, P310, T910)]
    + [("Sub", D950, "bfloat16", None, BE), ("Adds", D950, "bfloat16", None, BE)]
    # Div
    + [("Div", D950, "float", a, BE) for a in ("DIFF_COMPENSATION", "PRECISION_0ULP_FTZ_TRUE",
                                               "PRECISION_0ULP_FTZ_FALSE")]
    + [("Div", D950, "float", a, MO) for a in ("INTRINSIC", "PRECISION_1ULP_FTZ_TRUE", "PRECISION_1ULP_FTZ_FALSE")]
    + [("Div", D950, "float", None, MO)]
    + [("Div", D950, "half", a, MO) for a in (None, "INTRINSIC", "PRECISION_1ULP_FTZ_TRUE",
                                              "PRECISION_1ULP_FTZ_FALSE")]
    + [("Div", D950, t, None, MO) for t in ("int16", "uint16", "int32", "uint32", "int64", "uint64")]
    + [("Div", dev, t, None, MO) for dev in NOT_950 for t in ("half", "float")]
    # Exp, Ln, Reciprocal, Rsqrt: MODELLED everywhere, every algorithm
    + [(api, dev, t, None, MO) for api in ("Exp", "Ln", "Reciprocal", "Rsqrt", "Sqrt") for dev in ALL
       for t in ("half", "float")]
    + [(api, D950, t, a.name, MO) for api in ("Exp", "Ln", "Reciprocal", "Rsqrt") for t in ("half", "float")
       for a in getattr(aj, api + "Algo") if not (t == "half" and a.name in ("FAST_INVERSE",
                                                                             "PRECISION_0ULP_FTZ_FALSE"))]
    # Sqrt
    + [("Sqrt", D950, "float", a, BE) for a in ("FAST_INVERSE", "PRECISION_0ULP_FTZ_FALSE")]
    + [("Sqrt", D950, t, a, MO) for t in ("half", "float") for a in ("INTRINSIC", "PRECISION_1ULP_FTZ_TRUE",
                                                                      "PRECISION_1ULP_FTZ_FALSE")]
    # multiply-adds
    + [(api, D950, t, None, BE) for api in ("MulAddDst", "FusedMulAdd", "Axpy") for t in ("half", "float")]
    + [(api, dev, t, None, MO) for api in ("MulAddDst", "FusedMulAdd") for dev in (A3, A2, B310, P310)
       for t in ("half", "float")]
    + [("Axpy", dev, t, None, MO) for dev in NOT_950 for t in ("half", "float")]
    + [("MulAddDst", dev, "half->float", None, BE) for dev in (D950, A3, A2, P310)]
    + [("Axpy", dev, "half->float", None, BE) for dev in ALL]
    + [("MulAddDst", D950, t, None, BE) for t in ("int64", "uint64")]
    + [("Axpy", D950, t, None, BE) for t in ("bfloat16", "int64", "uint64")]
    + [("FusedMulAdd", D950, "bfloat16", None, MO)]
    + [("MulAddDst", B310, t, None, BE) for t in ("int16", "uint16", "int32", "uint32")]
    # the Reg API of SPEC-2 11
    + [(f"Reg.{n}", D950, None, None, BE) for n in ("Add", "Sub", "Mul", "Duplicate", "Reduce", "Cast", "LoadAlign",
                                                    "StoreAlign", "UpdateMask", "CreateMask", "Pack", "UnPack")]
)
# SPEC-2 1.9 / 0.3: an API absent on a device has no entry
ABSENT = ([(api, T910) for api in ("Maxs", "Mins", "LeakyRelu", "AddRelu", "SubRelu", "MulAddDst", "FusedMulAdd",
                                   "Gather", "GatherMask", "Compares", "Brcb", "DataCopyPad",
                                   "GetReduceRepeatMaxMinSpr")]
          + [("Brcb", B310), ("DataCopyPad", P310), ("GetReduceRepeatMaxMinSpr", D950), ("SetFlag", B310),
             ("GetReduceRepeatMaxMinSpr", B310), ("RepeatReduceSum", B310)]
          + [(f"Reg.{n}", dev) for n in ("Add", "Div", "Exp") for dev in NOT_950])


@pytest.mark.parametrize("api,device,dtype,config,level", SPEC_0_3)
def test_fidelity_matches_spec2_0_3(api, device, dtype, config, level):
    assert (api, device) in aj.FIDELITY
    assert aj.fidelity(api, device, dtype, config) is level


def test_fidelity_has_no_row_where_the_device_does_not_offer_the_api():
    for api, device in ABSENT:
        assert (api, device) not in aj.FIDELITY, (api, device)
        with pytest.raises(aj.UnsupportedDeviceError, match=f"does not offer {api}"):   # SPEC-2 1.8 row 1
            aj.fidelity(api, device)


def test_every_registered_instruction_has_a_row_on_every_device_offering_it():
    """SPEC-2 D69 / README "Fidelity": a row per instruction a device offers (registry names; Reg on the 950)."""
    from ascend_jit.api.registry import INSTRUCTIONS
    from ascend_jit.devices import get_device
    missing = []
    for inst in INSTRUCTIONS:
        name = inst.name.replace(" (registers)", "")
        for dev in ((D950,) if name.startswith("Reg.") else ALL):
            spec = get_device(dev)
            if inst.offered(spec) and inst.dtypes(spec) and (name, dev) not in aj.FIDELITY:
                missing.append((name, dev))
    assert not missing


def test_modelled_docstrings_say_so():
    """D69: "Docstrings of MODELLED instructions say so"."""
    for name in ("Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal", "Div", "FusedMulAdd"):
        assert "MODELLED" in (getattr(aj, name).__doc__ or ""), name
    for name in ("Exp", "Ln", "Sqrt", "Div"):
        assert "MODELLED" in (getattr(R, name).__doc__ or ""), name


@pytest.mark.parametrize("api", ["CompareScalar", "Reg.ReduceMin"])
def test_found_public_instruction_without_a_fidelity_row(api):
    """README "Fidelity": "`aj.FIDELITY[(api, device)]` and `aj.fidelity(api, device, dtype, config)` say, for every
    instruction, device, dtype and algorithm, whether results are BIT-EXACT ... or MODELLED"; SPEC-2 D69: one entry
    per (api, device) the device offers. `aj.CompareScalar` is SPEC-2 9.4's old name of Compares (the old reduce
    names WholeReduceSum... and GetReduceMaxMinCount have rows), `aj.Reg.ReduceMin` is the twin of Reg.ReduceMax /
    Reg.ReduceSum (which have rows). Both run on the 950, yet aj.fidelity says "the device does not offer this
    instruction (SPEC-2 1.9)"."""
    assert callable(eval("aj." + api))
    assert (api, D950) in aj.FIDELITY
    assert aj.fidelity(api, D950) is BE


def test_found_fidelity_answers_for_a_mixed_shape_the_device_refuses():
    """SPEC-2 0.3, row "MulAddDst, Axpy: half inputs, float dst": 310B "BIT-EXACT (Axpy only)" (6.2: the 310B
    MulAddDst is same-type only), and D69: aj.fidelity "returns the level for one call shape". The call refuses the
    shape (UnsupportedDTypeError), and aj.fidelity refuses a plain dtype a device refuses (fidelity.py: "the
    instruction refuses the dtype there: no fidelity to report"), but for "half->float" it answers MODELLED."""
    core = aj.Core(B310)
    d, s0, s1 = core.local_tensor("float", 64), core.local_tensor("half", 64), core.local_tensor("half", 64)
    with pytest.raises(aj.UnsupportedDTypeError):
        aj.MulAddDst(d, s0, s1, 64)
    with pytest.raises(aj.UnsupportedDTypeError):
        aj.fidelity("MulAddDst", B310, "half->float")


_MODELLED_CALL = (r"\b(?:aj\.|R\.|Reg\.|MicroAPI\.)?"
                  r"(Exp|Ln|Log|Sqrt|Rsqrt|Reciprocal|Div|MulAddDst|FusedMulAdd|Axpy)\s*\(")


def test_gallery_kernels_calling_modelled_instructions_say_why_when_listed_bit_exact():
    """`ascend-jit run --list` labels a kernel BIT-EXACT when its check is bit for bit (KernelSpec.fidelity); a
    kernel whose file calls a MODELLED instruction must then say so in its file (MODELLED or "bit for bit" against
    the model) or in its README row."""
    import re
    from pathlib import Path
    from ascend_jit.kernels import gallery_dir, load_file
    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text()
    silent = []
    for path in sorted(gallery_dir(root).glob("*.py")):
        if path.name.startswith("_"):
            continue
        src = path.read_text()
        calls = set(re.findall(_MODELLED_CALL, src))
        if not calls:
            continue
        for k in load_file(path):
            if k.fidelity != "BIT-EXACT":
                continue
            if tuple(k.devices) == (D950,) and calls <= {"MulAddDst", "FusedMulAdd", "Axpy"}:
                continue   # the 950's same-type multiply-adds are BIT-EXACT (0.3); bf16 FusedMulAdd aside
            row = next((ln for ln in readme.splitlines() if f"`{k.name}`" in ln), "")
            if "MODELLED" not in src and "MODELLED" not in row:
                silent.append(k.name)
    assert not silent


# ==================================================================================================================
# 2. MODELLED rounding against the independent reference
# ==================================================================================================================
UNARY = ("Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal")
_SPECIAL_HALF = np.array([0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x3C00, 0xBC00, 0x7BFF,
                          0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0x4C00, 0x4A00, 0xCA00, 0x4B00, 0xCB00],
                         np.uint16)


def half_subset(step):
    """Every `step`-th half pattern, every subnormal, the specials and the overflow edges of Exp."""
    idx = np.concatenate([np.arange(0, 65536, step), np.arange(1, 0x400), np.arange(0x8001, 0x8400),
                          _SPECIAL_HALF, np.arange(0x4970, 0x4990), np.arange(0xCC00, 0xCC80)])
    return np.unique(idx).astype(np.uint16)


def _check_half_unary(op, device, cfg, ftz, comp, sat, patterns):
    if make_core(device, sat) is None:
        pytest.skip("the device has no such overflow mode")
    got = run_unary(op, device, "half", patterns, cfg, sat)
    if len(patterns) == 65536:
        want = ref_half_all(op, ftz, sat, comp)
    else:
        want = ref_unary(op, "half", patterns, ftz, sat, comp)
    n, examples = diffs([patterns], want, got, "half")
    assert n == 0, (op, device, cfg, sat, n, examples)


def _ids(case):
    dev, cfg = case[0], case[1]
    return f"{dev}-{'default' if cfg is None else cfg.algo.name}"


_HALF_UNARY_ALL = [(op, *case) for op in UNARY for case in unary_cases(op, "half")]
_HALF_UNARY_QUICK = [c for c in _HALF_UNARY_ALL if c[1] in (A2, D950) and c[2] is None]


@pytest.mark.parametrize("op,device,cfg,ftz,comp,fast", _HALF_UNARY_QUICK,
                         ids=[f"{c[0]}-{_ids(c[1:])}" for c in _HALF_UNARY_QUICK])
def test_half_unary_subset(op, device, cfg, ftz, comp, fast):
    for sat in (False, True):
        _check_half_unary(op, device, cfg, ftz, comp, sat, half_subset(13))


@pytest.mark.slow
@pytest.mark.parametrize("sat", [False, True])
@pytest.mark.parametrize("op,device,cfg,ftz,comp,fast", _HALF_UNARY_ALL,
                         ids=[f"{c[0]}-{_ids(c[1:])}" for c in _HALF_UNARY_ALL])
def test_half_unary_exhaustive(op, device, cfg, ftz, comp, fast, sat):
    _check_half_unary(op, device, cfg, ftz, comp, sat, np.arange(65536).astype(np.uint16))


def _check_half_div(device, cfg, sat, n_y, free):
    if make_core(device, sat) is None:
        pytest.skip("the device has no such overflow mode")
    ftz = device == D950 and (cfg is None or cfg.algo.name in FTZ_ALGOS)
    ys = structured("half", n_y, 7)
    xs, yy = np.tile(free, len(ys)), np.repeat(ys, len(free))
    for a, b in ((xs, yy), (yy, xs)):
        want = ref_div_vec(a, b, "half", ftz, sat)
        n, examples = diffs([a, b], want, run_div(device, "half", a, b, cfg, sat), "half")
        assert n == 0, (device, cfg, sat, n, examples)


_HALF_DIV = div_cases("half")


@pytest.mark.parametrize("device,cfg,ftz", [c for c in _HALF_DIV if c[0] in (A2, D950) and c[1] is None])
def test_half_div_subset(device, cfg, ftz):
    for sat in (False, True):
        _check_half_div(device, cfg, sat, 10, half_subset(7))


@pytest.mark.slow
@pytest.mark.parametrize("sat", [False, True])
@pytest.mark.parametrize("device,cfg,ftz", _HALF_DIV, ids=[_ids(c) for c in _HALF_DIV])
def test_half_div_every_pattern_against_structured_values(device, cfg, ftz, sat):
    _check_half_div(device, cfg, sat, 250, np.arange(65536).astype(np.uint16))


def test_the_reference_agrees_with_itself():
    """The vectorised reference (float64 + our RNE, round-to-odd sums) equals the Fraction / mpmath one."""
    rng = np.random.default_rng(1)
    for dt, w in (("half", 16), ("float", 32)):
        xb, yb = (rng.integers(0, 1 << w, 3000, dtype=np.uint64).astype(UINT[dt]) for _ in range(2))
        for ftz in (False, True):
            exact = [round_value(exact_div(decode(daz(a, dt, ftz), dt), decode(daz(b, dt, ftz), dt)), dt, ftz, False)
                     for a, b in zip(xb, yb)]
            assert np.array_equal(ref_div_vec(xb, yb, dt, ftz, False), np.array(exact, np.uint64).astype(UINT[dt]))
    sub = float_inputs("Ln", 4000, 2)[::4]
    for op in UNARY:
        assert np.array_equal(ref_unary_vec(op, "float", sub), ref_unary(op, "float", sub, False, False)), op
    for dt, w in (("half", 16), ("float", 32), ("bfloat16", 16)):
        a, b, c = (rng.integers(0, 1 << w, 3000, dtype=np.uint64).astype(UINT[dt]) for _ in range(3))
        vec = ref_madd_vec(a, b, c, dt, False, False)
        for x, y, z, v in zip(a, b, c, vec):
            X, Y, Z = decode(x, dt), decode(y, dt), decode(z, dt)
            if all(isinstance(t, Fraction) for t in (X, Y, Z)):
                assert rne(X * Y + Z, dt) == v
    assert rne(Fraction(1, 2 ** 25), "half") == 0 and rne(Fraction(3, 2 ** 25), "half") == 2   # ties to even
    assert rne(Fraction(65520), "half") == 0x7C00 and rne(Fraction(65519), "half") == 0x7BFF


def _check_float_unary(op, device, cfg, ftz, comp, fast, n, seed):
    xb = float_inputs(op, n, seed)
    if op == "Exp":
        xb = np.concatenate([xb, np.array([0xC16912CD, 0xBBF0EDF1, 0x377EFF81, 0xBAE0E25C, 0x4288942B], np.uint32)])
    if op == "Ln":
        xb = np.concatenate([xb, np.array([0x41178FEB], np.uint32)])
    want = ref_unary_vec(op, "float", xb, ftz, False, comp, fast)
    count, examples = diffs([xb], want, run_unary(op, device, "float", xb, cfg), "float")
    assert count == 0, (op, device, cfg, count, examples)


_FLOAT_UNARY_ALL = [(op, *case) for op in UNARY for case in unary_cases(op, "float")]
_FLOAT_UNARY_QUICK = [c for c in _FLOAT_UNARY_ALL if c[1] in (A2, D950) and c[2] is None]


@pytest.mark.parametrize("op,device,cfg,ftz,comp,fast", _FLOAT_UNARY_QUICK,
                         ids=[f"{c[0]}-{_ids(c[1:])}" for c in _FLOAT_UNARY_QUICK])
def test_float_unary_sampled(op, device, cfg, ftz, comp, fast):
    _check_float_unary(op, device, cfg, ftz, comp, fast, 16000, 21)


@pytest.mark.slow
@pytest.mark.parametrize("op,device,cfg,ftz,comp,fast", _FLOAT_UNARY_ALL,
                         ids=[f"{c[0]}-{_ids(c[1:])}" for c in _FLOAT_UNARY_ALL])
def test_float_unary_sampled_every_device_and_algorithm(op, device, cfg, ftz, comp, fast):
    _check_float_unary(op, device, cfg, ftz, comp, fast, 300000, 31)


def float_div_operands(n_x, n_y, n_mid, seed):
    rng = np.random.default_rng(seed)
    ys = structured("float", n_y, seed)
    xs = np.concatenate([rng.integers(0, 1 << 32, n_x, dtype=np.uint64).astype(np.uint32),
                         structured("float", 8, seed + 1)])
    a, b = np.tile(xs, len(ys)), np.repeat(ys, len(xs))
    k = rng.integers(1 << 23, 1 << 24, n_mid)
    ee = rng.integers(-150, 120, n_mid)
    m = np.ldexp((2 * k + 1).astype(np.float64), (ee - 24).astype(np.int32))   # float32 midpoints (and subnormal)
    yv = rng.integers(1, 0x7F800000, n_mid).astype(np.uint32)
    with np.errstate(all="ignore"):
        xv = (m * yv.view(np.float32).astype(np.float64)).astype(np.float32)
    ok = np.isfinite(xv)
    xm = xv[ok].view(np.uint32).astype(np.int64)
    xm = np.concatenate([xm + d for d in (-1, 0, 1)]).astype(np.uint32)
    return np.concatenate([a, xm]), np.concatenate([b, np.tile(yv[ok], 3)])


def _check_float_div(device, cfg, ftz, n_x, n_y, n_mid, seed):
    a, b = float_div_operands(n_x, n_y, n_mid, seed)
    for x, y in ((a, b), (b, a)):
        want = ref_div_vec(x, y, "float", ftz, False)
        count, examples = diffs([x, y], want, run_div(device, "float", x, y, cfg), "float")
        assert count == 0, (device, cfg, count, examples)


_FLOAT_DIV = div_cases("float")


@pytest.mark.parametrize("device,cfg,ftz", [c for c in _FLOAT_DIV if c[0] in (A2, D950) and c[1] is None])
def test_float_div_sampled(device, cfg, ftz):
    _check_float_div(device, cfg, ftz, 500, 60, 20000, 5)


@pytest.mark.slow
@pytest.mark.parametrize("device,cfg,ftz", _FLOAT_DIV, ids=[_ids(c) for c in _FLOAT_DIV])
def test_float_div_sampled_every_device_and_algorithm(device, cfg, ftz):
    _check_float_div(device, cfg, ftz, 3000, 200, 100000, 6)


# --- the 950 Reg API in a compiled VF (INTRINSIC: DAZ/FTZ, D38; Reg Div per docs/decisions.md "Reg Div modes") -----
def _check_reg_half_unary(op, sat, patterns):
    base = "Ln" if op == "Log" else op
    got = run_reg_unary(op, "half", patterns, sat)
    want = ref_half_all(base, True, sat) if len(patterns) == 65536 else ref_unary(base, "half", patterns, True, sat)
    n, examples = diffs([patterns], want, got, "half")
    assert n == 0, (op, sat, n, examples)


@pytest.mark.parametrize("op", REG_UNARY)
def test_reg_half_unary_subset(op):
    for sat in (False, True):
        _check_reg_half_unary(op, sat, half_subset(17))


@pytest.mark.slow
@pytest.mark.parametrize("sat", [False, True])
@pytest.mark.parametrize("op", REG_UNARY)
def test_reg_half_unary_exhaustive(op, sat):
    _check_reg_half_unary(op, sat, np.arange(65536).astype(np.uint16))


@pytest.mark.parametrize("op", REG_UNARY)
def test_reg_float_unary_sampled(op):
    base = "Ln" if op == "Log" else op
    xb = float_inputs(base, 12000, 41)
    n, examples = diffs([xb], ref_unary_vec(base, "float", xb, True), run_reg_unary(op, "float", xb), "float")
    assert n == 0, (op, n, examples)


def _reg_div_modes(dtype):
    """(mode, ftz): the MaskMergeMode form (INTRINSIC) and every DivSpecificMode the dtype takes; subnormals kept
    only by the IEEE code (PRECISION_0ULP_FTZ_FALSE; PRECISION_1ULP_FTZ_FALSE without precisionMode)."""
    out = [(R.MaskMergeMode.ZEROING, True)]
    for pm in ((False, True) if dtype == "float" else (False,)):
        for al in aj.DivAlgo:
            if dtype == "half" and al.name not in ("INTRINSIC", "PRECISION_1ULP_FTZ_TRUE", "PRECISION_1ULP_FTZ_FALSE"):
                continue
            keep = al.name == "PRECISION_0ULP_FTZ_FALSE" or (al.name == "PRECISION_1ULP_FTZ_FALSE" and not pm)
            out.append((R.DivSpecificMode(R.MaskMergeMode.ZEROING, pm, al), not keep))
    return out


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_reg_div_every_mode(dtype):
    if dtype == "half":
        free = half_subset(11)
        ys = structured("half", 12, 3)
    else:
        free, ys = float_div_operands(300, 30, 4000, 8)
        ys = ys[:0]
    for mode, ftz in _reg_div_modes(dtype):
        for sat in ((False, True) if dtype == "half" else (False,)):
            if len(ys):
                a, b = np.tile(free, len(ys)), np.repeat(ys, len(free))
            else:
                a, b = float_div_operands(300, 30, 4000, 8)
            for x, y in ((a, b), (b, a)):
                want = ref_div_vec(x, y, dtype, ftz, sat)
                n, examples = diffs([x, y], want, run_reg_div(dtype, x, y, mode, sat), dtype)
                assert n == 0, (dtype, mode, sat, n, examples)


@pytest.mark.slow
@pytest.mark.parametrize("sat", [False, True])
def test_reg_half_div_every_pattern(sat):
    free, ys = np.arange(65536).astype(np.uint16), structured("half", 120, 4)
    a, b = np.tile(free, len(ys)), np.repeat(ys, len(free))
    for mode, ftz in _reg_div_modes("half"):
        for x, y in ((a, b), (b, a)):
            want = ref_div_vec(x, y, "half", ftz, sat)
            n, examples = diffs([x, y], want, run_reg_div("half", x, y, mode, sat), "half")
            assert n == 0, (mode, sat, n, examples)


# --- multiply-adds (SPEC-2 6.3, D39; 950 fma; 950 FusedMulAdd bf16 MODELLED) ----------------------------------------
def _check_madd(op, device, dtype, sat, nb, nc, seed):
    if make_core(device, sat) is None:
        pytest.skip("the device has no such overflow mode")
    x, y, z = madd_operands(dtype, op, nb, nc, seed)
    d39 = device != D950
    if op == "Axpy":
        free = z
        for s_, c_ in zip(x, y):
            A, C = np.full(len(free), s_, UINT[dtype]), np.full(len(free), c_, UINT[dtype])
            want = ref_madd_vec(A, free, C, dtype, sat, d39)
            n, examples = diffs([A, free, C], want, run_madd(op, device, dtype, A, free, C, sat), dtype)
            assert n == 0, (op, device, dtype, sat, n, examples)
    else:
        want = ref_madd_vec(x, y, z, dtype, sat, d39)
        n, examples = diffs([x, y, z], want, run_madd(op, device, dtype, x, y, z, sat), dtype)
        assert n == 0, (op, device, dtype, sat, n, examples)


_MADD_ALL = [(op, dev, dt, sat) for op in ("MulAddDst", "FusedMulAdd", "Axpy") for dev in MADD_DEVICES[op]
             for dt in ("half", "float") for sat in ((False, True) if dt == "half" else (None,))]


@pytest.mark.parametrize("op", ["MulAddDst", "FusedMulAdd", "Axpy"])
def test_d39_multiply_add_half_subset(op):
    for sat in (False, True):
        _check_madd(op, A2, "half", sat, 5, 4, 12)


@pytest.mark.slow
@pytest.mark.parametrize("op,device,dtype,sat", _MADD_ALL)
def test_multiply_adds_every_device(op, device, dtype, sat):
    _check_madd(op, device, dtype, sat, 14, 10, 13)


@pytest.mark.parametrize("sat", [False, True])
def test_950_fused_mul_add_bfloat16_rounds_once(sat):
    """SPEC-2 6.3: 950 FusedMulAdd bf16 = RN_bf16(a*b + c), one rounding, MODELLED; bf16 stages never saturate
    (D35), so the overflow mode changes nothing."""
    x, y, z = madd_operands("bfloat16", "FusedMulAdd", 16, 8, 5)
    want = ref_madd_vec(x, y, z, "bfloat16", False, False)
    n, examples = diffs([x, y, z], want, run_madd("FusedMulAdd", D950, "bfloat16", x, y, z, sat), "bfloat16")
    assert n == 0, (n, examples)


# --- Reg.Div's fidelity per mode (docs/decisions.md "Reg Div modes", "Fidelity") -------------------------------------
def test_reg_div_fidelity_follows_the_code_each_mode_runs():
    """BIT-EXACT only where the code is DivPrecisionImpl on float: precisionMode true (any algo but
    PRECISION_0ULP_FTZ_FALSE, which runs the IEEE code) or algo PRECISION_0ULP_FTZ_TRUE; MODELLED elsewhere."""
    Z = R.MaskMergeMode.ZEROING
    for pm in (False, True):
        for al in aj.DivAlgo:
            precise = (pm and al.name != "PRECISION_0ULP_FTZ_FALSE") or al.name == "PRECISION_0ULP_FTZ_TRUE"
            got = aj.fidelity("Reg.Div", D950, "float", R.DivSpecificMode(Z, pm, al))
            assert got is (BE if precise else MO), (pm, al)
    assert aj.fidelity("Reg.Div", D950, "half", R.DivSpecificMode(Z, False, aj.DivAlgo.INTRINSIC)) is MO


def test_found_reg_div_fidelity_refuses_the_merge_mode_form():
    """docs/decisions.md "Reg Div modes": "`R.Div(dst, src0, src1, mask, mode)`: `mode` is a MaskMergeMode (as before)
    or `R.DivSpecificMode(...)`"; fidelity.py `_config_name`: the config is refused only "as the call refuses it"
    (D69: the level of one call shape). The call takes MaskMergeMode.ZEROING (INTRINSIC, MODELLED), but
    aj.fidelity("Reg.Div", "ascend950", "float", R.MaskMergeMode.ZEROING) raises ParameterError "Reg.Div takes no
    such config"."""
    core = aj.Core(D950)
    a = core.local_tensor("float", 64)
    a[:] = np.ones(64, np.float32)
    with core:
        ra, rd = R.RegTensor("float"), R.RegTensor("float")
        R.LoadAlign(ra, a, 0)
        R.Div(rd, ra, ra, R.CreateMask("float"), R.MaskMergeMode.ZEROING)   # the call accepts it
        R.StoreAlign(a, rd, R.CreateMask("float"), 0)
    assert np.all(a.numpy() == 1.0)
    assert aj.fidelity("Reg.Div", D950, "float", R.MaskMergeMode.ZEROING) is MO


# --- 950 integer Div and Reciprocal (MODELLED, D48; SPEC-2 4.3) -------------------------------------------------------
INT_TYPES = {"int16": np.int16, "uint16": np.uint16, "int32": np.int32, "uint32": np.uint32, "int64": np.int64,
             "uint64": np.uint64}


def _int_values(nt, n, seed):
    info = np.iinfo(nt)
    rng = np.random.default_rng(seed)
    edge = [0, 1, 2, 3, 7, info.max, info.max - 1, info.min, info.min + 1, -1, -2, -7]
    edge = [v for v in edge if info.min <= v <= info.max]
    rnd = rng.integers(info.min, info.max, n, dtype=nt, endpoint=True).tolist()
    small = [v for v in rng.integers(-300, 300, n // 4).tolist() if info.min <= v <= info.max]
    return edge + rnd + small


def _trunc_div(x, y, nt):
    info = np.iinfo(nt)
    if y == 0:
        return info.max if info.min == 0 else -1
    q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
    return info.min if q > info.max else q   # INT_MIN / -1 wraps to INT_MIN


@pytest.mark.parametrize("dtype", list(INT_TYPES))
def test_950_integer_div(dtype):
    nt = INT_TYPES[dtype]
    xs, ys = _int_values(nt, 120, 1), _int_values(nt, 25, 2)
    pairs = [(x, y) for x in xs for y in ys] + [(y, x) for x in xs[:40] for y in ys]
    core = aj.Core(D950)
    n = len(pairs)
    a, b, d = (core.local_tensor(dtype, n) for _ in range(3))
    a[:] = np.array([p[0] for p in pairs], nt)
    b[:] = np.array([p[1] for p in pairs], nt)
    aj.Div(d, a, b, n)
    got = d.numpy().tolist()
    want = [_trunc_div(x, y, nt) for x, y in pairs]
    bad = [(p, w, g) for p, w, g in zip(pairs, want, got) if w != g]
    assert not bad, bad[:6]


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_950_integer_reciprocal(dtype):
    nt = INT_TYPES[dtype]
    xs = _int_values(nt, 400, 3)
    core = aj.Core(D950)
    s, d = core.local_tensor(dtype, len(xs)), core.local_tensor(dtype, len(xs))
    s[:] = np.array(xs, nt)
    aj.Reciprocal(d, s, len(xs))
    want = [_trunc_div(1, x, nt) for x in xs]
    assert d.numpy().tolist() == want


# --- the high-dim form computes the same lanes (SPEC-2 4.1 / 2.1: only the addressing differs) ----------------------
@pytest.mark.parametrize("device", [A2, D950, P310])
@pytest.mark.parametrize("op", UNARY + ("Div",))
def test_high_dim_form_rounds_as_the_count_form(device, op):
    core = aj.Core(device)
    sat = core.spec.half_saturating_default
    pats = half_subset(5)
    pats = _pad(pats, "half", 128)
    n = len(pats)
    ys = np.resize(structured("half", 40, 9), n)
    s0, s1, d = (core.local_tensor("half", n) for _ in range(3))
    _put(s0, "half", pats)
    _put(s1, "half", ys)
    if op == "Div":
        aj.Div(d, s0, s1, 128, n // 128, aj.BinaryRepeatParams())
        want = ref_div_vec(pats, ys, "half", device == D950, sat)
    else:
        getattr(aj, op)(d, s0, 128, n // 128, aj.UnaryRepeatParams())
        want = ref_unary(op, "half", pats, device == D950, sat, op == "Rsqrt" and device == D950)
    got = d.numpy().view(np.uint16)
    count, examples = diffs([pats], want, got, "half")
    assert count == 0, (op, device, count, examples)


# --- Reg.Arange half/float: "the exact sum rounded once" (fidelity.py row, docs/decisions.md "Reg Arange") ---------
def _arange_scalars(dtype):
    if dtype == "half":
        return [0x7BF0, 0x7BFF, 0x6800, 0x67FF, 0x63FF, 0x5BFF, 0x3C00, 0x2E66, 0x0001, 0x8001, 0x8000, 0x0000, 0xE3FF,
                0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xD800, 0x57F8]
    return [0x4B800000, 0x4B7FFFFF, 0x4C000001, 0x3DCCCCCD, 0x00000001, 0x80000000, 0xCB800000, 0x7F7FFFFF,
            0x7F800000, 0xFF800000, 0x7FC00000, 0x4F000000, 0xCB000001]


@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("sat", [False, True])
def test_reg_arange_rounds_the_exact_sum_once(dtype, sat):
    core = make_core(D950, sat)
    lanes = 128 if dtype == "half" else 64
    out = core.local_tensor(dtype, lanes)
    for sb in _arange_scalars(dtype):
        scalar = np.array([sb], UINT[dtype]).view(out.dtype.np_dtype)[0]   # exact dtype: used bit for bit (D29)
        with core:
            r = R.RegTensor(dtype)
            R.Arange(r, scalar)
            R.StoreAlign(out, r, R.CreateMask(dtype), 0)
        v = decode(sb, dtype)
        want = []
        for j in range(lanes):
            if v is NAN or isinstance(v, Inf):
                want.append(round_value(v, dtype, False, sat))
            else:
                want.append(round_value(Fraction(j) + (0 if isinstance(v, Zero) else v), dtype, False, sat))
        got = out.numpy().view(UINT[dtype]).tolist()
        assert got == want, (hex(sb), [(j, hex(w), hex(g)) for j, (w, g) in enumerate(zip(want, got)) if w != g][:4])


@pytest.mark.parametrize("op", REG_UNARY)
def test_reg_unary_plain_python_rounds_as_the_vf(op):
    """SPEC-2 11.1: every Reg function gives identical results in plain Python (the VF's py_func) and compiled."""
    base = "Ln" if op == "Log" else op
    for dtype, bits in (("half", half_subset(97)), ("float", float_inputs(base, 1500, 51))):
        got = run_reg_unary(op, dtype, bits, compiled=False)
        want = ref_unary(base, dtype, bits, True, False)
        n, examples = diffs([bits], want, got, dtype)
        assert n == 0, (op, dtype, n, examples)


# --- every float32 input swept in float64 (numpy's exp/log, independent of the emulator's libm), those within
# 2e-7 of a quantum from a midpoint (some hundreds) checked exactly on every device, algorithm and the Reg API ------
def _sweep_hard_inputs(op):
    f = F64_OP[op]
    if op == "Ln":
        ranges = [(0x00000001, 0x7F800000)]
    elif op == "Exp":
        ranges = [(0x00000000, int(np.float32(89.0).view(np.uint32))),
                  (0x80000000, int(np.float32(-104.0).view(np.uint32)))]
    else:   # Rsqrt: [1, 4), carried to every binade by 1/sqrt(4x) = 1/sqrt(x) / 2
        ranges = [(0x3F800000, 0x40800000)]
    found = []
    for lo, hi in ranges:
        for s in range(lo, hi, 1 << 23):
            bits = np.arange(s, min(s + (1 << 23), hi), dtype=np.uint64).astype(np.uint32)
            with np.errstate(all="ignore"):
                y = f(bits.view(np.float32).astype(np.float64))
            d = np.where(np.isfinite(y) & (y != 0), midpoint_distance(y, "float"), 1.0)
            found.extend(bits[d < 2e-7].tolist())
    xb = np.array(found, np.uint32)
    if op == "Rsqrt":
        xb = np.concatenate([((xb.astype(np.int64) + (k << 24)) & 0xFFFFFFFF).astype(np.uint32)
                             for k in range(-63, 62)])
        xb = xb[(xb > 0) & (xb < 0x7E800001)]
    return xb


@pytest.mark.slow
@pytest.mark.parametrize("op", ["Exp", "Ln", "Rsqrt"])
def test_float_hard_cases_of_a_full_sweep(op):
    xb = _sweep_hard_inputs(op)
    assert len(xb) > 0
    for dev, cfg, ftz, comp, fast in unary_cases(op, "float"):
        want = ref_unary(op, "float", xb, ftz, False, comp)
        if fast:
            want = np.where(xb.view(np.float32) > 2.0 ** 126, 0x7F800000, want).astype(np.uint32)
        n, examples = diffs([xb], want, run_unary(op, dev, "float", xb, cfg), "float")
        assert n == 0, (op, dev, cfg, n, examples)
    if op != "Rsqrt":
        want = ref_unary(op, "float", xb, True, False)
        n, examples = diffs([xb], want, run_reg_unary(op, "float", xb), "float")
        assert n == 0, ("Reg", op, n, examples)


@pytest.mark.parametrize("device,dtype", [(D950, "half"), (D950, "float"), (B310, "half"), (B310, "float")])
def test_create_vec_index_first_register_rounds_once(device, dtype):
    """fidelity.py: CreateVecIndex half/float on the 950 and 310B is MODELLED, "the register's first + j (950
    Reg::Arange, 310B vci) is the exact sum rounded once" (later registers add the step: not asserted here)."""
    for sat in (False, True):
        core = make_core(device, sat)
        if core is None:
            continue
        out = core.local_tensor(dtype, 256)
        for sb in _arange_scalars(dtype):
            v = decode(sb, dtype)
            if v is NAN or isinstance(v, Inf):
                continue
            aj.CreateVecIndex(out, np.array([sb], UINT[dtype]).view(out.dtype.np_dtype)[0], 64)
            want = [round_value(Fraction(j) + (0 if isinstance(v, Zero) else v), dtype, False, sat) for j in range(64)]
            assert out.numpy().view(UINT[dtype])[:64].tolist() == want, (device, dtype, sat, hex(sb))
