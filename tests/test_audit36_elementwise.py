"""Session-36 independent-model audit of the element-wise family (SPEC.md Add; SPEC-2 sections 1-4 and 6).

The model below is written from the SPEC text alone and shares no code with ascend_jit.reference or ascend_jit.jit:
exact arithmetic in Fractions (mpmath for the transcendentals), one round-to-nearest-even into the destination
format (SPEC-2 1.6 RN_T, D35, D37), then the device's subnormal rule (D38) and the half saturation map (D35), the
integer wrap/clamp (D35), D41's MAX/MIN order, D42's LeakyRelu, D39's non-950 multiply-add, the repeat/block
addressing of SPEC 1.2 / SPEC-2 1.3 (D33 for mixed widths), masks (SPEC 2, SPEC-2 1.4) and counter mode (SPEC 2.6).
Every call is compared byte for byte over the whole UB: bytes outside the active lanes must be unchanged (SPEC-2 1.7).
"""
import math
import zlib
from fractions import Fraction

import ml_dtypes
import mpmath
import numpy as np
import pytest

import ascend_jit as aj

# ---------------------------------------------------------------------------------------------------------------
# formats
FMT = {"half": (5, 10), "float": (8, 23), "bfloat16": (8, 7)}           # exponent bits, mantissa bits
QNAN = {"half": 0x7E00, "float": 0x7FC00000, "bfloat16": 0x7FC0}        # decisions.md "NaN bit patterns"
INTS = {"int8": (8, True), "uint8": (8, False), "int16": (16, True), "uint16": (16, False),
        "int32": (32, True), "uint32": (32, False), "int64": (64, True), "uint64": (64, False)}
SIZE = {"half": 2, "bfloat16": 2, "float": 4, **{k: v[0] // 8 for k, v in INTS.items()}}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
NP_SCALAR = {"half": np.float16, "float": np.float32, "bfloat16": ml_dtypes.bfloat16, "int8": np.int8,
             "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16, "int32": np.int32, "uint32": np.uint32,
             "int64": np.int64, "uint64": np.uint64}
IS_FLOAT = set(FMT)


def width(dt):
    e, m = FMT[dt]
    return 1 + e + m


def maxbits(dt, sign=0):
    e, m = FMT[dt]
    return (sign << (e + m)) | ((((1 << e) - 2) << m) | ((1 << m) - 1))


def infbits(dt, sign=0):
    e, m = FMT[dt]
    return (sign << (e + m)) | (((1 << e) - 1) << m)


def decode(b, dt):
    """bits -> exact Python float (every half/bf16/float32 value is a float64)."""
    e, m = FMT[dt]
    bias = (1 << (e - 1)) - 1
    s, ex, man = b >> (e + m), (b >> m) & ((1 << e) - 1), b & ((1 << m) - 1)
    if ex == (1 << e) - 1:
        v = math.nan if man else math.inf
    elif ex == 0:
        v = math.ldexp(man, 1 - bias - m)
    else:
        v = math.ldexp(man | (1 << m), ex - bias - m)
    return -v if s else v


def is_sub(b, dt):
    e, m = FMT[dt]
    return ((b >> m) & ((1 << e) - 1)) == 0 and (b & ((1 << m) - 1)) != 0


def rn(v, dt):
    """RN_T: the exact value v (a float special / signed zero, or a nonzero Fraction/float) rounded once (RNE,
    IEEE overflow to inf, gradual underflow) to the bits of dt."""
    e, m = FMT[dt]
    bias = (1 << (e - 1)) - 1
    if isinstance(v, float):
        if math.isnan(v):
            return QNAN[dt]
        if math.isinf(v):
            return infbits(dt, v < 0)
        if v == 0:
            return (1 << (e + m)) if math.copysign(1, v) < 0 else 0
        v = Fraction(v)
    assert v != 0
    sign = 1 if v < 0 else 0
    a = abs(v)
    E = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** E > a:
        E -= 1
    q = max(E, 1 - bias) - m                      # exponent of one unit in the last place
    scaled = a / (Fraction(2) ** q)
    n = scaled.numerator // scaled.denominator
    rem = scaled - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n & 1):
        n += 1
    if n == 1 << (m + 1):
        n >>= 1
        q += 1
    if n < (1 << m):                               # subnormal (or rounded to zero)
        return (sign << (e + m)) | n
    ex = q + m + bias
    if ex >= (1 << e) - 1:
        return infbits(dt, sign)
    return (sign << (e + m)) | (ex << m) | (n - (1 << m))


class Env:
    def __init__(self, device, sat_half=False, sat_int=False, ftz=False):
        self.device, self.sat_half, self.sat_int, self.ftz = device, sat_half, sat_int, ftz

    @property
    def is950(self):
        return self.device == "ascend950"


def finish(b, dt, env, ftz=None):
    """D38 FTZ (if the algorithm has it), then D35's half saturation; NaN canonical."""
    e, m = FMT[dt]
    if (env.ftz if ftz is None else ftz) and is_sub(b, dt):
        b &= 1 << (e + m)
    if ((b >> m) & ((1 << e) - 1)) == (1 << e) - 1:
        if b & ((1 << m) - 1):
            b = QNAN[dt]
            if env.sat_half and dt == "half":
                b = 0
        elif env.sat_half and dt == "half":
            b = maxbits(dt, b >> (e + m))
    return b


# exact operations on exact floats; results: float special/zero, or nonzero Fraction
def x_add(x, y):
    if not (math.isfinite(x) and math.isfinite(y)):
        return x + y
    r = Fraction(x) + Fraction(y)
    return x + y if r == 0 else r


def x_mul(x, y):
    if not (math.isfinite(x) and math.isfinite(y)):
        return x * y
    r = Fraction(x) * Fraction(y)
    return x * y if r == 0 else r


def x_div(x, y):
    with np.errstate(all="ignore"):
        if not (math.isfinite(x) and math.isfinite(y)) or y == 0 or x == 0:
            return float(np.float64(x) / np.float64(y))
    return Fraction(x) / Fraction(y)


def x_fma(a, b, c):
    """exact a*b + c, IEEE specials and zero signs on the exact expression."""
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    r = Fraction(a) * Fraction(b) + Fraction(c)
    return (a * b) + c if r == 0 else r      # a*b is exact in float64 for these formats


def signbit(x):
    return math.copysign(1, x) < 0


def daz(x, dt, env):
    return math.copysign(0.0, x) if env.ftz and x != 0 and abs(x) < math.ldexp(1, 2 - (1 << (FMT[dt][0] - 1))) else x


# ---- floating lane functions (bits in, bits out)
def f_arith(op, dt, env, bx, by):
    x, y = decode(bx, dt), decode(by, dt)
    if op == "Div":
        x, y = daz(x, dt, env), daz(y, dt, env)
    v = {"Add": x_add, "Sub": lambda p, q: x_add(p, -q), "Mul": x_mul, "Div": x_div}[op](x, y)
    if dt == "bfloat16" and op != "Div":          # SPEC-2 1.6: bf16 via float32, two roundings
        return finish(rn(decode(rn(v, "float"), "float"), "bfloat16"), dt, env, ftz=False)
    return finish(rn(v, dt), dt, env, ftz=env.ftz if op == "Div" else False)


def order_key(x):
    return (x, 0 if signbit(x) else 1)


def f_maxmin(op, dt, env, bx, by):
    x, y = decode(bx, dt), decode(by, dt)
    if math.isnan(x) or math.isnan(y):
        return finish(QNAN[dt], dt, env, ftz=False)
    pick = (max if op == "Max" else min)((x, bx), (y, by), key=lambda t: order_key(t[0]))
    return finish(pick[1], dt, env, ftz=False)


def f_relu(dt, env, bx):
    return f_maxmin("Max", dt, env, 0, bx)


def f_leaky(dt, env, bx, bs):
    e, m = FMT[dt]
    if not bx >> (e + m):
        return finish(bx, dt, env, ftz=False)
    return finish(rn(x_mul(decode(bs, dt), decode(bx, dt)), dt), dt, env, ftz=False)


def f_abs(dt, env, bx):
    e, m = FMT[dt]
    return finish(bx & ~(1 << (e + m)), dt, env, ftz=False)


def mp_to_frac(v):
    sign, man, exp, _ = v._mpf_
    r = Fraction(int(man)) * (Fraction(2) ** int(exp))
    return -r if sign else r


def f_trans(op, dt, env, bx):
    x = daz(decode(bx, dt), dt, env)
    if math.isnan(x):
        return finish(QNAN[dt], dt, env)
    neg = signbit(x)
    if x == 0:
        v = {"Exp": Fraction(1), "Ln": -math.inf, "Sqrt": x, "Rsqrt": math.copysign(math.inf, x),
             "Reciprocal": math.copysign(math.inf, x)}[op]
    elif math.isinf(x):
        v = {"Exp": (math.inf if not neg else 0.0), "Ln": (math.inf if not neg else math.nan),
             "Sqrt": (math.inf if not neg else math.nan), "Rsqrt": (0.0 if not neg else math.nan),
             "Reciprocal": math.copysign(0.0, x)}[op]
    elif neg and op in ("Ln", "Sqrt", "Rsqrt"):
        v = math.nan
    elif op == "Reciprocal":
        v = 1 / Fraction(x)
    elif op == "Exp" and x > 200:
        v = math.inf
    elif op == "Exp" and x < -200:
        v = 0.0
    elif op == "Ln" and x == 1:
        v = 0.0
    elif op == "Rsqrt" and env.is950 and env.ftz:       # D40: INTRINSIC = Div(1, Sqrt(x)), each stage rounded
        with mpmath.workprec(300):
            s = finish(rn(mp_to_frac(mpmath.sqrt(mpmath.mpf(x))), dt), dt, env)
        return finish(rn(1 / Fraction(decode(s, dt)), dt), dt, env)
    else:
        with mpmath.workprec(300):
            f = {"Exp": mpmath.exp, "Ln": mpmath.log, "Sqrt": mpmath.sqrt,
                 "Rsqrt": lambda t: 1 / mpmath.sqrt(t)}[op]
            v = mp_to_frac(f(mpmath.mpf(x)))
    return finish(rn(v, dt), dt, env)


def f_fma(dt, env, ba, bb, bc, src_dt=None):
    """a*b + c. src_dt: the factors' type of a mixed half->float call."""
    sdt = src_dt or dt
    a, b, c = decode(ba, sdt), decode(bb, sdt), decode(bc, dt)
    if src_dt is not None and src_dt != dt:                       # SPEC-2 6.3 mixed: one float rounding, no SAT
        return finish(rn(x_fma(a, b, c), dt), dt, Env(env.device), ftz=False)
    if env.is950:
        return finish(rn(x_fma(a, b, c), dt), dt, env, ftz=False)
    p = x_mul(a, b)                                                # D39 stage 1
    sat = env.sat_half and dt == "half"
    if isinstance(p, float) and math.isnan(p):
        p = 0.0 if sat else math.nan
    elif isinstance(p, float) and math.isinf(p):
        p = math.copysign(decode(maxbits(dt), dt), p) if sat else p
    elif isinstance(p, Fraction):
        pb = rn(p, dt)
        e, m = FMT[dt]
        if ((pb >> m) & ((1 << e) - 1)) == (1 << e) - 1:             # RN_T(p) overflows: +-inf or +-MAX
            p = decode(maxbits(dt, pb >> (e + m)) if sat else pb, dt)
    return finish(rn(x_add_any(p, c), dt), dt, env, ftz=False)      # stage 2: one rounding of p + c


def x_add_any(p, c):
    """exact p + c where p may be a Fraction (exact product) and c a float."""
    if isinstance(p, float):
        return x_add(p, c)
    if not math.isfinite(c):
        return c
    r = p + Fraction(c)
    return 0.0 if r == 0 else r


def f_axpy_bf16(env, bs, bx, bc):
    t = rn(decode(rn(x_mul(decode(bs, "bfloat16"), decode(bx, "bfloat16")), "float"), "float"), "bfloat16")
    u = rn(decode(rn(x_add(decode(t, "bfloat16"), decode(bc, "bfloat16")), "float"), "float"), "bfloat16")
    return finish(u, "bfloat16", env, ftz=False)


# ---- integer lane functions
def idec(b, dt):
    bits, signed = INTS[dt]
    return b - (1 << bits) if signed and b >> (bits - 1) else b


def ienc(v, dt, env):
    bits, signed = INTS[dt]
    if env.sat_int and dt in ("int16", "int32"):
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        v = min(max(v, lo), hi)
    return v & ((1 << bits) - 1)


def i_binary(op, dt, env, bx, by):
    x, y = idec(bx, dt), idec(by, dt)
    bits = INTS[dt][0]
    if op in ("Add", "Sub", "Mul", "AddRelu", "SubRelu"):
        v = x + y if op in ("Add", "AddRelu") else x - y if op in ("Sub", "SubRelu") else x * y
        r = ienc(v, dt, env)
        if op in ("AddRelu", "SubRelu"):
            r = ienc(max(0, idec(r, dt)), dt, env)
        return r
    if op == "Div":
        if y == 0:
            return (1 << bits) - 1
        q = abs(x) // abs(y)
        return ((-q if (x < 0) != (y < 0) else q)) & ((1 << bits) - 1)
    if op == "Max":
        return max(x, y) & ((1 << bits) - 1)
    if op == "Min":
        return min(x, y) & ((1 << bits) - 1)
    if op == "And":
        return bx & by
    if op == "Or":
        return bx | by
    raise KeyError(op)


def i_unary(op, dt, env, bx):
    x = idec(bx, dt)
    if op == "Abs":
        return ienc(abs(x), dt, env)
    if op == "Relu":
        return max(0, x) & ((1 << INTS[dt][0]) - 1)
    if op == "Reciprocal":          # SPEC-2 4.3: Div(1, x) under D48
        return i_binary("Div", dt, env, 1, bx)
    raise KeyError(op)


BINARY = ("Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or", "AddRelu", "SubRelu")
SCALAR = {"Adds": "Add", "Muls": "Mul", "Maxs": "Max", "Mins": "Min", "LeakyRelu": "LeakyRelu"}
UNARY = ("Abs", "Relu", "Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal")
TERNARY = ("MulAddDst", "FusedMulAdd")


def lane_fn(op, dt, env, src_dt=None):
    """f(dst_bits, *source_bits) -> new dst bits."""
    fl = dt in IS_FLOAT
    if op in BINARY or op in SCALAR:
        base = SCALAR.get(op, op)
        if base == "LeakyRelu":
            return lambda d, x, s: f_leaky(dt, env, x, s)
        if not fl:
            return lambda d, x, y: i_binary(base, dt, env, x, y)
        if base in ("Max", "Min"):
            return lambda d, x, y: f_maxmin(base, dt, env, x, y)
        if base in ("AddRelu", "SubRelu"):
            inner = "Add" if base == "AddRelu" else "Sub"
            return lambda d, x, y: f_relu(dt, env, f_arith(inner, dt, env, x, y))
        return lambda d, x, y: f_arith(base, dt, env, x, y)
    if op in UNARY:
        if not fl:
            return lambda d, x: i_unary(op, dt, env, x)
        if op == "Abs":
            return lambda d, x: f_abs(dt, env, x)
        if op == "Relu":
            return lambda d, x: f_relu(dt, env, x)
        return lambda d, x: f_trans(op, dt, env, x)
    if op == "MulAddDst":           # dst = src0*src1 + dst
        if not fl:
            return lambda d, a, b: ienc(idec(a, dt) * idec(b, dt) + idec(d, dt), dt, Env(env.device))
        return lambda d, a, b: f_fma(dt, env, a, b, d, src_dt)
    if op == "FusedMulAdd":         # dst = src0*dst + src1
        if not fl:
            return lambda d, a, b: ienc(idec(a, dt) * idec(d, dt) + idec(b, dt), dt, Env(env.device))
        if dt == "bfloat16":
            return lambda d, a, b: finish(rn(x_fma(decode(a, dt), decode(d, dt), decode(b, dt)), dt), dt, env, ftz=False)
        return lambda d, a, b: f_fma(dt, env, a, d, b)
    if op == "Axpy":                # dst = s*src + dst
        if dt == "bfloat16":
            return lambda d, x, s: f_axpy_bf16(env, s, x, d)
        if not fl:
            return lambda d, x, s: ienc(idec(s, dt) * idec(x, dt) + idec(d, dt), dt, Env(env.device))
        return lambda d, x, s: f_fma(dt, env, s, x, d, src_dt)
    raise KeyError(op)


# ---------------------------------------------------------------------------------------------------------------
# the vector unit (SPEC 1.2, 2, 3; SPEC-2 1.3, 1.4, D33)
def rd(ub, addr, size):
    return int.from_bytes(ub[addr:addr + size].tobytes(), "little")


def wr(ub, addr, size, v):
    ub[addr:addr + size] = np.frombuffer(int(v).to_bytes(size, "little"), np.uint8)


def lanes_of(mask, L, repeat, counter):
    """list of active-lane lists, one per executed repeat."""
    if counter:
        n = mask if isinstance(mask, int) else mask[0]
        reps = -(-n // L)
        return [list(range(min(L, n - i * L))) for i in range(reps)]
    if isinstance(mask, int):
        act = list(range(min(mask, L)))
    else:
        words = list(mask) + [0]
        act = [j for j in range(L) if (words[j // 64] >> (j % 64)) & 1]
    return [act] * repeat


def model_highdim(ub, fn, L, dst, srcs, mask, repeat, counter=False, dst_read=False):
    """dst/srcs: (addr, elem size, blk stride, rep stride); srcs may hold ('scalar', bits)."""
    for i, act in enumerate(lanes_of(mask, L, repeat, counter)):
        def addr(op, j):
            a, s, blk, rep = op
            epb = 32 // s
            return a + i * rep * 32 + (j // epb) * blk * 32 + (j % epb) * s
        vals = []
        for j in act:              # a repeat reads all its sources before it writes (decisions.md register rule)
            ins = [rd(ub, addr(dst, j), dst[1]) if dst_read else 0]
            ins += [op[1] if op[0] == "scalar" else rd(ub, addr(op, j), op[1]) for op in srcs]
            vals.append(fn(*ins))
        for j, v in zip(act, vals):
            wr(ub, addr(dst, j), dst[1], v)


def model_count(ub, fn, count, dst, srcs, dst_read=False):
    """dst/srcs: (addr, elem size) or ('scalar', bits)."""
    vals = []
    for k in range(count):
        ins = [rd(ub, dst[0] + k * dst[1], dst[1]) if dst_read else 0]
        ins += [op[1] if op[0] == "scalar" else rd(ub, op[0] + k * op[1], op[1]) for op in srcs]
        vals.append(fn(*ins))
    for k, v in enumerate(vals):
        wr(ub, dst[0] + k * dst[1], dst[1], v)


# ---------------------------------------------------------------------------------------------------------------
# inputs
def pool(dt):
    if dt in IS_FLOAT:
        e, m = FMT[dt]
        s = 1 << (e + m)
        one = ((1 << (e - 1)) - 1) << m
        base = [0, 1, 2, (1 << m) - 1, 1 << m, one, one + 1, one | (1 << (m - 1)), maxbits(dt), maxbits(dt) - 1,
                infbits(dt), QNAN[dt], infbits(dt) | 1, one + (2 << m), (one + (1 << m)) | 1]
        return base + [b | s for b in base]
    bits, signed = INTS[dt]
    lo = 1 << (bits - 1) if signed else 0
    return [0, 1, (1 << bits) - 1, lo, lo - 1 & ((1 << bits) - 1), lo + 1, 2, (1 << bits) - 2, 0x7F, 0x80]


def fill(core, rng, dt, addr, n):
    """random elements (half from a special pool, half uniform bits) written at addr."""
    s = SIZE[dt]
    p = np.array(pool(dt), dtype=np.uint64)
    bits = rng.integers(0, 2 ** 63, n, dtype=np.uint64) ^ (rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63))
    bits &= np.uint64((1 << (8 * s)) - 1)
    pick = rng.random(n) < 0.4
    bits[pick] = p[rng.integers(0, len(p), int(pick.sum()))]
    if dt in ("half", "bfloat16", "float"):
        e, m = FMT[dt]
        small = rng.random(n) < 0.3            # values near one another to make cancellation / ties likely
        bits[small] = (np.uint64(((1 << (e - 1)) - 1) << m) + rng.integers(0, 4 << m, int(small.sum()))
                       .astype(np.uint64)) | (rng.integers(0, 2, int(small.sum())).astype(np.uint64) << np.uint64(e + m))
    core.ub[addr:addr + n * s] = bits.astype(UINT[s]).view(np.uint8)


def make_core(device, sat_half=False, sat_int=False):
    core = aj.Core(device, bounds="ub")
    sw = core.spec
    if sw.half_saturation_switchable:
        core.SetCtrlSpr(48, 48, 0 if sat_half else 1)
    else:
        assert sw.half_saturating_default == sat_half, (device, sat_half)
    if sat_int:
        core.SetCtrlSpr(53, 53, 1)
    return core


def scalar_obj(dt, bits):
    return np.array([bits], dtype=UINT[SIZE[dt]]).view(NP_SCALAR[dt])[0]


def call_lib(op, core, dst_t, src_ts, scalar, *form, **kw):
    args = [dst_t] + src_ts
    if scalar is not None:
        args.append(scalar)
    getattr(aj, op)(*args, *form, **kw)


# ---------------------------------------------------------------------------------------------------------------
# the cases: every instruction, every device at least once, every overflow mode the SPECs name
FTZ_OPS = {"Div", "Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal"}
CASES = [
    # op, device, dtype, sat_half, sat_int, [src dtype of a mixed call]
    ("Add", "atlas-a2", "half", False, False), ("Add", "atlas-training", "half", True, False),
    ("Add", "ascend950", "bfloat16", False, False), ("Add", "atlas-a3", "int16", False, True),
    ("Add", "ascend950", "int32", False, False), ("Add", "ascend950", "float", True, False),
    ("Sub", "atlas-a3", "half", True, False), ("Sub", "ascend950", "bfloat16", False, False),
    ("Sub", "atlas-200i-500-a2", "int32", False, False), ("Sub", "ascend950", "int16", False, True),
    ("Mul", "atlas-inference-aicore", "half", True, False), ("Mul", "atlas-a2", "int32", False, True),
    ("Mul", "ascend950", "bfloat16", False, False), ("Mul", "atlas-a2", "float", False, False),
    ("Mul", "ascend950", "int16", False, True),
    ("Div", "atlas-a2", "half", False, False), ("Div", "ascend950", "half", False, False),
    ("Div", "ascend950", "float", True, False), ("Div", "ascend950", "int32", False, False),
    ("Div", "atlas-training", "float", True, False),
    ("Max", "atlas-a2", "half", True, False), ("Max", "ascend950", "bfloat16", False, False),
    ("Min", "atlas-200i-500-a2", "half", False, False), ("Min", "atlas-training", "int32", True, False),
    ("Max", "atlas-inference-aicore", "int16", True, False), ("Min", "ascend950", "uint16", False, False),
    ("And", "atlas-a2", "int16", False, False), ("Or", "ascend950", "uint32", False, False),
    ("Or", "atlas-training", "uint16", True, False),
    ("Adds", "atlas-a2", "half", True, False), ("Adds", "atlas-a3", "int16", False, True),
    ("Adds", "ascend950", "bfloat16", False, False), ("Adds", "atlas-training", "float", True, False),
    ("Muls", "atlas-200i-500-a2", "half", False, False), ("Muls", "ascend950", "int32", False, True),
    ("Muls", "ascend950", "bfloat16", False, False),
    ("Maxs", "atlas-inference-aicore", "half", True, False), ("Mins", "ascend950", "float", False, False),
    ("Maxs", "atlas-a2", "int32", False, False),
    ("LeakyRelu", "atlas-a2", "half", True, False), ("LeakyRelu", "ascend950", "float", False, False),
    ("Abs", "atlas-a2", "half", True, False), ("Abs", "ascend950", "int16", False, True),
    ("Abs", "atlas-200i-500-a2", "int16", False, False), ("Abs", "atlas-training", "float", True, False),
    ("Relu", "atlas-a3", "half", False, False), ("Relu", "atlas-inference-aicore", "int32", True, False),
    ("Relu", "atlas-training", "half", True, False),
    ("Exp", "atlas-a2", "half", True, False), ("Exp", "ascend950", "float", False, False),
    ("Ln", "atlas-200i-500-a2", "half", False, False), ("Ln", "ascend950", "half", True, False),
    ("Sqrt", "atlas-inference-aicore", "float", True, False), ("Sqrt", "ascend950", "half", False, False),
    ("Rsqrt", "atlas-a2", "half", False, False), ("Rsqrt", "ascend950", "float", False, False),
    ("Rsqrt", "ascend950", "half", True, False),
    ("Reciprocal", "atlas-training", "half", True, False), ("Reciprocal", "ascend950", "float", False, False),
    ("AddRelu", "atlas-a2", "half", True, False), ("AddRelu", "ascend950", "int16", False, True),
    ("SubRelu", "atlas-inference-aicore", "int16", True, False), ("SubRelu", "ascend950", "float", False, False),
    ("MulAddDst", "atlas-a2", "half", False, False), ("MulAddDst", "ascend950", "half", True, False),
    ("MulAddDst", "atlas-200i-500-a2", "int32", False, False), ("MulAddDst", "atlas-a3", "float", False, False, "half"),
    ("FusedMulAdd", "atlas-inference-aicore", "half", True, False), ("FusedMulAdd", "ascend950", "float", False, False),
    ("FusedMulAdd", "ascend950", "bfloat16", False, False),
    ("Axpy", "atlas-training", "half", True, False), ("Axpy", "ascend950", "half", False, False),
    ("Axpy", "ascend950", "bfloat16", False, False), ("Axpy", "atlas-200i-500-a2", "float", False, False, "half"),
    ("Axpy", "atlas-a2", "float", False, False),
    # bfloat16 is never saturated (SPEC-2 1.6, D35); uint16/uint32 and CTRL[53] (D35: only int16/int32 clamp)
    ("Add", "ascend950", "bfloat16", True, False), ("Max", "ascend950", "bfloat16", True, False),
    ("Muls", "ascend950", "bfloat16", True, False), ("Axpy", "ascend950", "bfloat16", True, False),
    ("FusedMulAdd", "ascend950", "bfloat16", True, False), ("Mul", "ascend950", "uint16", False, True),
    ("Sub", "ascend950", "uint32", False, True), ("Abs", "ascend950", "int32", False, True),
    ("Adds", "ascend950", "int32", False, True), ("Muls", "atlas-a2", "int16", False, True),
    ("Relu", "ascend950", "int32", False, True), ("Min", "atlas-a3", "float", True, False),
    # more devices per instruction
    ("Div", "atlas-inference-aicore", "half", True, False), ("Div", "atlas-200i-500-a2", "float", False, False),
    ("Exp", "atlas-training", "half", True, False), ("Exp", "atlas-200i-500-a2", "float", False, False),
    ("Ln", "atlas-a3", "float", True, False), ("Sqrt", "atlas-training", "half", True, False),
    ("Rsqrt", "atlas-inference-aicore", "float", True, False), ("Reciprocal", "atlas-a2", "half", True, False),
    ("Reciprocal", "atlas-200i-500-a2", "float", False, False), ("LeakyRelu", "atlas-inference-aicore", "half", True, False),
    ("LeakyRelu", "atlas-200i-500-a2", "float", False, False), ("Mins", "atlas-200i-500-a2", "int16", False, False),
    ("AddRelu", "atlas-200i-500-a2", "half", False, False), ("SubRelu", "atlas-a3", "half", True, False),
    ("AddRelu", "atlas-inference-aicore", "float", True, False),
    ("MulAddDst", "atlas-inference-aicore", "float", True, False, "half"), ("MulAddDst", "ascend950", "float", True, False, "half"),
    ("MulAddDst", "atlas-200i-500-a2", "uint16", False, False), ("MulAddDst", "atlas-a3", "half", True, False),
    ("FusedMulAdd", "atlas-200i-500-a2", "half", False, False), ("FusedMulAdd", "atlas-a2", "float", True, False),
    ("Axpy", "atlas-inference-aicore", "float", True, False, "half"), ("Axpy", "atlas-training", "float", True, False, "half"),
    ("Axpy", "ascend950", "float", True, False, "half"), ("Axpy", "atlas-a3", "half", True, False),
    ("And", "atlas-inference-aicore", "uint16", True, False), ("Or", "atlas-200i-500-a2", "int16", False, False),
    ("Max", "atlas-training", "float", True, False), ("Sub", "atlas-training", "int32", True, False),
    ("Div", "ascend950", "int16", False, True), ("Div", "ascend950", "uint16", False, False),
]


def kind(op):
    if op in BINARY:
        return "binary"
    if op in SCALAR or op == "Axpy":
        return "scalar"
    if op in UNARY:
        return "unary"
    return "ternary"


def env_for(op, device, dt, sat_half, sat_int):
    ftz = device == "ascend950" and op in FTZ_OPS and dt in IS_FLOAT
    return Env(device, sat_half, sat_int, ftz)


def run_case(case, seed):
    op, device, dt, sat_half, sat_int = case[:5]
    src_dt = case[5] if len(case) > 5 else dt
    rng = np.random.default_rng(seed)
    core = make_core(device, sat_half, sat_int)
    env = env_for(op, device, dt, sat_half, sat_int)
    fn = lane_fn(op, dt, env, src_dt if src_dt != dt else None)
    k = kind(op)
    nsrc = {"binary": 2, "scalar": 1, "unary": 1, "ternary": 2}[k]
    dst_read = op in ("MulAddDst", "FusedMulAdd", "Axpy")
    ds, ss = SIZE[dt], SIZE[src_dt]
    L = 256 // max(ds, ss)
    region = 16384
    addrs = [4096 + r * region for r in range(nsrc + 1)]
    n_dst, n_src = region // ds, region // ss
    dst_t = core.local_tensor(dt, n_dst, addr=addrs[0])
    src_ts = [core.local_tensor(src_dt, n_src, addr=a) for a in addrs[1:]]

    def fresh():
        core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
        fill(core, rng, dt, addrs[0], n_dst)
        for a in addrs[1:]:
            fill(core, rng, src_dt, a, n_src)
        core.ub_written_by_host()

    scalar_bits = None
    scalar = None
    if k == "scalar":
        scalar_bits = int(rng.choice(pool(src_dt))) if seed % 2 else rd(rng.integers(0, 256, 8, dtype=np.uint8), 0, ss)
        if op == "LeakyRelu":
            scalar_bits = 0x1419 if dt == "half" else 0x3A83126F  # 0.001 rounded; NaN/inf scalars: golden tests
        if src_dt in INTS:   # integer scalars must be in range: keep them small (wrap tested via elements)
            scalar_bits = int(rng.integers(-300, 300)) & ((1 << (8 * ss)) - 1)
        scalar = scalar_obj(src_dt, scalar_bits)
    srcs_c = [(a, ss) for a in addrs[1:]] + ([("scalar", scalar_bits)] if k == "scalar" else [])

    def check(what):
        got = core.ub
        bad = np.nonzero(got != expect)[0]
        assert bad.size == 0, (f"{case} {what}: {bad.size} bytes differ, first at UB byte {bad[0]} "
                               f"(lib {got[bad[0]:bad[0] + 4].tolist()} model {expect[bad[0]:bad[0] + 4].tolist()})")

    # 1. count form, a partial last repeat
    fresh()
    count = 2 * L + 37
    expect = core.ub.copy()
    model_count(expect, fn, count, (addrs[0], ds), srcs_c, dst_read)
    call_lib(op, core, dst_t, src_ts, scalar, count)
    check("count form")

    # 2. high-dim, bit mask with holes, block strides 0 / 2 / 1, repeat strides 0 and > 8
    fresh()
    if L == 128:
        mask = [int(rng.integers(0, 2 ** 63)) | 1 | (1 << 63), int(rng.integers(0, 2 ** 63)) | (1 << 40)]
    else:
        mask = [int(rng.integers(0, 2 ** 63)) | (1 << 60) | 3]
        if L == 32:
            mask = [mask[0] & 0xFFFFFFFF]
    repeat = 3
    if k in ("binary", "ternary"):
        sp = [(2, 12), (0, 9), (1, 0)] if k == "binary" else [(1, 8), (0, 9), (2, 17)]
        if op in ("MulAddDst",) and src_dt != dt:
            sp = [(1, 8), (1, 4), (0, 3)]
        params = aj.BinaryRepeatParams(sp[0][0], sp[1][0], sp[2][0], sp[0][1], sp[1][1], sp[2][1])
    else:
        sp = [(2, 20), (0, 1)] if not dst_read else [(1, 8), (3, 5)]
        if op == "Axpy" and src_dt != dt:
            sp = [(1, 8), (2, 3)]
        params = aj.UnaryRepeatParams(sp[0][0], sp[1][0], sp[0][1], sp[1][1])
    expect = core.ub.copy()
    ops = [(addrs[0], ds, *sp[0])] + [(a, ss, *spp) for a, spp in zip(addrs[1:], sp[1:])]
    model_highdim(expect, fn, L, ops[0], ops[1:] + ([("scalar", scalar_bits)] if k == "scalar" else []),
                  mask, repeat, False, dst_read)
    call_lib(op, core, dst_t, src_ts, scalar, mask, repeat, params)
    check("high-dim bit mask")

    # 3. continuous mask, in counter mode: the mask argument is the element count (decisions.md; SPEC 2.6)
    fresh()
    core.SetMaskCount()
    n = L + L // 2 + 3
    expect = core.ub.copy()
    model_highdim(expect, fn, L, ops[0], ops[1:] + ([("scalar", scalar_bits)] if k == "scalar" else []),
                  n, 200, True, dst_read)
    call_lib(op, core, dst_t, src_ts, scalar, n, 200, params)
    core.SetMaskNorm()
    check("counter mode")

    # 4. continuous mask above the lane count (D15: clamped), then is_set_mask=False reading a register set here
    fresh()
    expect = core.ub.copy()
    model_highdim(expect, fn, L, ops[0], ops[1:] + ([("scalar", scalar_bits)] if k == "scalar" else []),
                  L if seed % 2 else L - 5, 2, False, dst_read)
    call_lib(op, core, dst_t, src_ts, scalar, 1000 if seed % 2 else L - 5, 2, params)
    check("continuous mask")
    fresh()
    core.SetVectorMask(0, 0b1011 << 20 | 1)
    expect = core.ub.copy()
    model_highdim(expect, fn, L, ops[0], ops[1:] + ([("scalar", scalar_bits)] if k == "scalar" else []),
                  [0b1011 << 20 | 1, 0], 2, False, dst_read)
    call_lib(op, core, dst_t, src_ts, scalar, aj.MASK_PLACEHOLDER, 2, params, is_set_mask=False)
    check("is_set_mask=False")


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(str(x) for x in c))
def test_random_calls_match_the_model(case):
    run_case(case, seed=zlib.crc32(repr(case).encode()))


# ---------------------------------------------------------------------------------------------------------------
# golden vectors (SPEC 9 Add table; SPEC-2 12.1 / 12.2) and the decisions' probes; each asserted against the SPEC's
# printed value AND the model above (so the model is checked too)
DEVICE_MODES = {  # SPEC-2 12.0: MemBV INF/NaN column on A2/A3/310B, sat column on A2/A3/310P/910; RegBV on the 950
    "atlas-a2": (False, True), "atlas-a3": (False, True), "ascend950": (False, True),
    "atlas-200i-500-a2": (False,), "atlas-inference-aicore": (True,), "atlas-training": (True,)}


def offered(op, device, dt):
    row = aj.api.elementwise.OPS[op]      # only to know which (device, dtype) pairs exist (SPEC-2 1.9 / 2.2 tables)
    return dt in row.dtypes.get(device, ())


_LIB_ONE_SETVALUE = pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync,dcache",
                                                reason="lib_one sets the inputs by SetValue as host code would, with "
                                                       "no S_V flag before the call")


def lib_one(op, device, dt, x, y=None, d=None, sat_half=False, sat_int=False, src_dt=None, config=None):
    """one lane through the library's count form; x, y, d are bit patterns (y the scalar of a scalar op)."""
    src_dt = src_dt or dt
    core = make_core(device, sat_half, sat_int)
    k = kind(op)
    dst_t = core.local_tensor(dt, 16)
    srcs = [core.local_tensor(src_dt, 16)]
    if k in ("binary", "ternary"):
        srcs.append(core.local_tensor(src_dt, 16))
    core.ub[:] = 0x5A
    core.ub_written_by_host()
    srcs[0].SetValue(0, scalar_obj(src_dt, x))
    if k in ("binary", "ternary"):
        srcs[1].SetValue(0, scalar_obj(src_dt, y))
    dst_t.SetValue(0, scalar_obj(dt, 0 if d is None else d))
    before = core.ub.copy()
    kw = {} if config is None else {"config": config}
    call_lib(op, core, dst_t, srcs, scalar_obj(src_dt, y) if k == "scalar" else None, 1, **kw)
    s = SIZE[dt]
    changed = np.nonzero(before != core.ub)[0]          # only dst[0] may change
    assert changed.size == 0 or (changed.min() >= _addr(dst_t) and changed.max() < _addr(dst_t) + s)
    return int(dst_t.numpy()[:1].view(UINT[s])[0])


def model_one(op, device, dt, x, y=None, d=None, sat_half=False, sat_int=False, src_dt=None, ftz=None):
    env = env_for(op, device, dt, sat_half, sat_int)
    if ftz is not None:
        env.ftz = ftz
    fn = lane_fn(op, dt, env, src_dt if src_dt and src_dt != dt else None)
    k = kind(op)
    if k == "unary":
        return fn(d or 0, x)
    return fn(d or 0, x, y)


H = {"MAX": 0x7BFF, "MIN": 0xFBFF, "inf": 0x7C00, "-inf": 0xFC00, "nan": 0x7E00, "0": 0x0000, "-0": 0x8000,
     "1": 0x3C00, "x": 0x4500, "sat0": 0x0000}
I16 = {"MAX": 0x7FFF, "MIN": 0x8000}
I32 = {"MAX": 0x7FFFFFFF, "MIN": 0x80000000}
F32 = {"MAX": 0x7F7FFFFF, "MIN": 0xFF7FFFFF, "inf": 0x7F800000, "-inf": 0xFF800000, "nan": 0x7FC00000}

# (op, dtype, src0, src1/scalar, dst-in, INF/NaN result, saturation result, devices ('all', 'non950', '950'))
GOLD = [
    # SPEC 9 Add table
    ("Add", "half", "MAX", "MAX", None, "inf", "MAX", "all"), ("Add", "half", "MIN", "MIN", None, "-inf", "MIN", "all"),
    ("Add", "half", "MIN", "MAX", None, "0", "0", "all"), ("Add", "half", "x", "nan", None, "nan", "sat0", "all"),
    ("Add", "half", "inf", "-inf", None, "nan", "sat0", "all"), ("Add", "half", "0", "inf", None, "inf", "MAX", "all"),
    ("Add", "half", "-0", "-0", None, "-0", "-0", "all"),
    ("Add", "float", F32["inf"], F32["-inf"], None, F32["nan"], F32["nan"], "all"),
    ("Add", "float", F32["MAX"], F32["MAX"], None, F32["inf"], F32["inf"], "all"),
    ("Add", "int16", 0x7FFF, 0x7FFF, None, 0xFFFE, 0x7FFF, "all"), ("Add", "int16", 0x8000, 0x8000, None, 0, 0x8000, "all"),
    ("Add", "int16", 0x8000, 0x7FFF, None, 0xFFFF, 0xFFFF, "all"),
    ("Add", "int32", I32["MAX"], I32["MAX"], None, 0xFFFFFFFE, I32["MAX"], "all"),
    ("Add", "int32", I32["MIN"], I32["MIN"], None, 0, I32["MIN"], "all"),
    # B-1 .. B-11
    ("Sub", "half", "MIN", "MAX", None, "-inf", "MIN", "all"), ("Sub", "half", "-0", "0", None, "-0", "-0", "all"),
    ("Sub", "half", "-0", "-0", None, "0", "0", "all"), ("Sub", "half", "0", "-0", None, "0", "0", "all"),
    ("Sub", "half", "inf", "inf", None, "nan", "sat0", "all"), ("Sub", "half", "nan", "x", None, "nan", "sat0", "all"),
    ("Sub", "int16", 0x8000, 0x7FFF, None, 1, 0x8000, "all"), ("Sub", "int16", 0x7FFF, 0x8000, None, 0xFFFF, 0x7FFF, "all"),
    ("Sub", "int32", I32["MIN"], I32["MAX"], None, 1, I32["MIN"], "all"),
    ("Sub", "int32", I32["MAX"], I32["MIN"], None, 0xFFFFFFFF, I32["MAX"], "all"),
    ("Sub", "float", F32["MIN"], F32["MAX"], None, F32["-inf"], F32["-inf"], "all"),
    ("Mul", "half", "MIN", "MIN", None, "inf", "MAX", "all"), ("Mul", "half", "MIN", "0", None, "-0", "-0", "all"),
    ("Mul", "half", "MAX", "-0", None, "-0", "-0", "all"), ("Mul", "half", "0", "inf", None, "nan", "sat0", "all"),
    ("Mul", "int16", 0x7FFF, 0x7FFF, None, 1, 0x7FFF, "all"), ("Mul", "int16", 0x8000, 0x8000, None, 0, 0x7FFF, "all"),
    ("Mul", "int16", 0x8000, 0x7FFF, None, 0x8000, 0x8000, "all"),
    ("Mul", "int32", I32["MAX"], I32["MAX"], None, 1, I32["MAX"], "all"),
    ("Mul", "int32", I32["MIN"], I32["MIN"], None, 0, I32["MAX"], "all"),
    ("Div", "half", "MIN", "0", None, "-inf", "MIN", "all"), ("Div", "half", "MIN", "-0", None, "inf", "MAX", "all"),
    ("Div", "half", "0", "MIN", None, "-0", "-0", "all"), ("Div", "half", "-0", "MAX", None, "-0", "-0", "all"),
    ("Div", "half", "0", "0", None, "nan", "sat0", "all"), ("Div", "half", "MIN", "inf", None, "-0", "-0", "all"),
    ("Div", "half", "MAX", "MAX", None, "1", "1", "all"),
    ("Max", "half", "MIN", "-0", None, "-0", "-0", "all"), ("Max", "half", "0", "-0", None, "0", "0", "all"),
    ("Max", "half", "-0", "0", None, "0", "0", "all"), ("Max", "half", "-0", "-0", None, "-0", "-0", "all"),
    ("Max", "half", "x", "nan", None, "nan", "sat0", "all"), ("Max", "half", "inf", "-inf", None, "inf", "MAX", "all"),
    ("Min", "half", "0", "-0", None, "-0", "-0", "all"), ("Min", "half", "-0", "0", None, "-0", "-0", "all"),
    ("Min", "half", "MAX", "-0", None, "-0", "-0", "all"), ("Min", "half", "inf", "-inf", None, "-inf", "MIN", "all"),
    ("Min", "half", "MIN", "nan", None, "nan", "sat0", "all"),
    # B-12 .. B-20
    ("Adds", "half", "MIN", "MIN", None, "-inf", "MIN", "all"), ("Adds", "half", "-0", "-0", None, "-0", "-0", "all"),
    ("Adds", "half", "0", "-0", None, "0", "0", "all"), ("Adds", "half", "inf", "-inf", None, "nan", "sat0", "all"),
    ("Adds", "int16", 0x8000, 0x8000, None, 0, 0x8000, "all"), ("Adds", "int16", 0x7FFF, 0x7FFF, None, 0xFFFE, 0x7FFF, "all"),
    ("Maxs", "half", "0", "-0", None, "0", "0", "all"), ("Maxs", "half", "x", "nan", None, "nan", "sat0", "all"),
    ("Mins", "half", "-0", "0", None, "-0", "-0", "all"), ("Mins", "half", "inf", "-inf", None, "-inf", "MIN", "all"),
    ("LeakyRelu", "half", "-0", "MIN", None, "0", "0", "all"), ("LeakyRelu", "half", "-0", "MAX", None, "-0", "-0", "all"),
    ("LeakyRelu", "half", "-0", "inf", None, "nan", "sat0", "all"), ("LeakyRelu", "half", "0", "nan", None, "0", "0", "all"),
    ("LeakyRelu", "half", "-inf", "0", None, "nan", "sat0", "all"), ("LeakyRelu", "half", "MIN", "MIN", None, "inf", "MAX", "all"),
    ("LeakyRelu", "half", "inf", "x", None, "inf", "MAX", "all"),
    ("LeakyRelu", "half", "MIN", "inf", None, "-inf", "MIN", "all"),         # H-18
    ("Abs", "half", "-0", None, None, "0", "0", "all"), ("Abs", "half", "-inf", None, None, "inf", "MAX", "all"),
    ("Abs", "half", "nan", None, None, "nan", "sat0", "all"),
    ("Relu", "half", "-0", None, None, "0", "0", "all"), ("Relu", "half", "-inf", None, None, "0", "0", "all"),
    ("Relu", "half", "nan", None, None, "nan", "sat0", "all"), ("Relu", "int32", I32["MIN"], None, None, 0, 0, "all"),
    ("Exp", "half", "-inf", None, None, "0", "0", "all"), ("Exp", "half", "MAX", None, None, "inf", "MAX", "all"),
    ("Ln", "half", "0", None, None, "-inf", "MIN", "all"), ("Ln", "half", "-0", None, None, "-inf", "MIN", "all"),
    ("Ln", "half", "MIN", None, None, "nan", "sat0", "all"), ("Sqrt", "half", "-0", None, None, "-0", "-0", "all"),
    ("Sqrt", "half", "-inf", None, None, "nan", "sat0", "all"), ("Rsqrt", "half", "-0", None, None, "-inf", "MIN", "all"),
    ("Rsqrt", "half", "MIN", None, None, "nan", "sat0", "all"),                # D75
    ("Reciprocal", "half", "0", None, None, "inf", "MAX", "all"),
    ("Reciprocal", "half", "-inf", None, None, "-0", "-0", "all"),
    ("AddRelu", "half", "-0", "-0", None, "0", "0", "all"), ("AddRelu", "half", "MIN", "MIN", None, "0", "0", "all"),
    ("AddRelu", "half", "nan", "x", None, "nan", "sat0", "all"), ("AddRelu", "half", "MAX", "MAX", None, "inf", "MAX", "all"),
    ("SubRelu", "half", "-0", "0", None, "0", "0", "all"), ("SubRelu", "half", "MAX", "MIN", None, "inf", "MAX", "all"),
    ("SubRelu", "half", "inf", "inf", None, "nan", "sat0", "all"),
    # B-21 .. B-26 (Axpy: src0 = src, src1 = scalar, dst), H-1, H-17
    ("Axpy", "half", "MAX", "MAX", "MIN", "inf", "0", "non950"), ("Axpy", "half", "MAX", "MAX", "MIN", "inf", "MAX", "950"),
    ("Axpy", "half", "MAX", "inf", "-inf", "nan", "MIN", "non950"), ("Axpy", "half", "MAX", "inf", "-inf", "nan", "sat0", "950"),
    ("Axpy", "half", "inf", "0", "inf", "nan", "MAX", "non950"), ("Axpy", "half", "inf", "0", "inf", "nan", "sat0", "950"),
    ("Axpy", "half", "MAX", "1", "MIN", "0", "0", "all"), ("Axpy", "half", "0", "1", "-0", "0", "0", "all"),
    ("MulAddDst", "half", 0x3C01, 0x3C01, 0xBC02, 0x0010, 0x0010, "all"),                     # H-1 (fused, D39)
    ("FusedMulAdd", "half", "0", "-0", "0", "0", "0", "all"),                                   # H-17: src0*dst + src1
]


def _b(v, dt):
    if v is None or isinstance(v, int):
        return v
    return {"half": H, "int16": I16, "int32": I32, "float": F32}[dt][v]


def _gold_runs():
    for g in GOLD:
        op, dt, a, b, d, inf_r, sat_r, where = g
        for dev, modes in DEVICE_MODES.items():
            if where == "non950" and dev == "ascend950" or where == "950" and dev != "ascend950":
                continue
            if not offered(op, dev, dt):
                continue
            for sat in modes:
                if dt in ("int16", "int32"):
                    if sat and dev not in ("atlas-a2", "atlas-a3", "ascend950"):
                        continue
                    yield pytest.param(g, dev, False, sat, id=f"{op}-{dt}-{a}-{b}-{d}-{dev}-{'isat' if sat else 'wrap'}")
                elif dt == "float" and sat:
                    yield pytest.param(g, dev, True, False, id=f"{op}-{dt}-{a}-{b}-{dev}-sat")
                else:
                    yield pytest.param(g, dev, sat, False, id=f"{op}-{dt}-{a}-{b}-{d}-{dev}-{'sat' if sat else 'inf'}")


GOLD_RUNS = list(_gold_runs())


@_LIB_ONE_SETVALUE
def test_golden_rows():
    """every GOLD row on every device offering it, in each overflow mode the device has (one test: fast)."""
    failures = []
    for p in GOLD_RUNS:
        g, dev, sat_half, sat_int = p.values
        op, dt, a, b, d, inf_r, sat_r, where = g
        want = _b(sat_r if (sat_half or sat_int) else inf_r, dt)
        if dt == "float":
            want = _b(inf_r, dt)                  # float: never saturated (SPEC 5.2)
        x, y, dd = _b(a, dt), _b(b, dt), _b(d, dt)
        got = lib_one(op, dev, dt, x, y, dd, sat_half, sat_int)
        mod = model_one(op, dev, dt, x, y, dd, sat_half, sat_int)
        if got != want or mod != want:
            failures.append(f"{p.id}: SPEC {want:#x} library {got:#x} model {mod:#x}")
    assert not failures, "\n".join(failures)


def _hv(bits):
    return np.array(bits, np.uint16).view(np.float16)


def run_vec(op, device, dt, srcs, count=None, highdim=None, scalar=None, dst_init=None):
    """E-rows: sources as numpy arrays of dt; returns dst as bits after the call."""
    core = make_core(device, device in ("atlas-training", "atlas-inference-aicore"))
    n = len(srcs[0])
    dst_t = core.local_tensor(dt, n)
    ts = []
    for s in srcs:
        t = core.local_tensor(dt, n)
        t[:] = s
        ts.append(t)
    dst_t[:] = np.zeros(n, NP_SCALAR[dt]) if dst_init is None else dst_init
    args = [dst_t] + ts + ([scalar] if scalar is not None else [])
    if highdim is None:
        getattr(aj, op)(*args, n if count is None else count)
    else:
        getattr(aj, op)(*args, *highdim)
    return dst_t.numpy()


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950", "atlas-training"])
def test_doc_examples_e1_to_e14(device):
    i = np.arange(512)
    full16 = [2 ** 64 - 1, 2 ** 64 - 1]
    shapes = [None, (128, 4, (1, 1, 1, 8, 8, 8)), (full16, 4, (1, 1, 1, 8, 8, 8))]
    for dt in ("int16", "half"):
        if dt == "int16" and device == "atlas-training":
            continue
        a = (i + 1).astype(NP_SCALAR[dt])
        for hd in shapes:
            assert (run_vec("Sub", device, dt, [a, (513 + i).astype(NP_SCALAR[dt])], highdim=hd) == -512).all()
            assert (run_vec("Mul", device, dt, [a, np.full(512, 2, NP_SCALAR[dt])], highdim=hd) == 2 * i + 2).all()
            b = (513 - i).astype(NP_SCALAR[dt])
            assert (run_vec("Max", device, dt, [a, b], highdim=hd) == np.maximum(i + 1, 513 - i)).all()
            assert (run_vec("Min", device, dt, [a, b], highdim=hd) == np.minimum(i + 1, 513 - i)).all()
            if dt == "int16":
                assert (run_vec("And", device, dt, [a, b], highdim=hd) == ((i + 1) & (513 - i))).all()
                assert (run_vec("Or", device, dt, [a, b], highdim=hd) == ((i + 1) | (513 - i))).all()
        if dt == "half":   # E-3: exact quotients, bit for bit on every device
            for hd in shapes:
                r = run_vec("Div", device, dt, [a, np.full(512, 2.0, np.float16)], highdim=hd)
                assert (r == (i + 1) / 2).all()
    if device != "atlas-training":    # E-8..E-11 (int16 scalars; Maxs/Mins not on the 910)
        a = (i + 1).astype(np.int16)
        for hd in [None, (128, 4, (1, 1, 8, 8)), (full16, 4, (1, 1, 8, 8))]:
            assert (run_vec("Adds", device, "int16", [a], scalar=np.int16(2), highdim=hd) == i + 3).all()
            assert (run_vec("Muls", device, "int16", [a], scalar=np.int16(2), highdim=hd) == 2 * i + 2).all()
            assert (run_vec("Maxs", device, "int16", [a], scalar=np.int16(2), highdim=hd) == np.maximum(i + 1, 2)).all()
            assert (run_vec("Mins", device, "int16", [a], scalar=np.int16(2), highdim=hd) == np.minimum(i + 1, 2)).all()
    # E-12 Abs: half count form, float high-dim
    alt = np.where(i % 2, -1.0, 1.0) * i
    assert (run_vec("Abs", device, "half", [alt.astype(np.float16)]) == i).all()
    assert (run_vec("Abs", device, "float", [alt.astype(np.float32)], highdim=(64, 8, (1, 1, 8, 8))) == i).all()
    # E-13 Relu: negatives give +0 bits
    r = run_vec("Relu", device, "half", [_hv([0x46F0, 0xC86E, 0xB33E] * 170 + [0x3FE2, 0x3F1D])],
                highdim=(128, 4, (1, 1, 8, 8))).view(np.uint16)
    assert r[:3].tolist() == [0x46F0, 0, 0] and r[-2:].tolist() == [0x3FE2, 0x3F1D]
    # E-14 LeakyRelu, scalar Python float 0.001 (D29: one RNE rounding -> 0x1419); not on the 910
    if device != "atlas-training":
        src = np.array([-287, 246, -438, 177, 596, -950, -293, 322] * 64, np.float16)
        src[-1] = -900
        r = run_vec("LeakyRelu", device, "half", [src], scalar=0.001, highdim=(128, 4, (1, 1, 8, 8))).view(np.uint16)
        assert r[:8].tolist() == [0xB498, 0x5BB0, 0xB703, 0x5988, 0x60A8, 0xBB9A, 0xB4B1, 0x5D08]
        assert r[-1] == 0xBB34


# ---------------------------------------------------------------------------------------------------------------
# the 950's algorithms (SPEC-2 2.3 Div table, 4.3 tables, D38, D40, D49, D75)
FTZ_ALGOS = {"INTRINSIC", "DIFF_COMPENSATION", "PRECISION_1ULP_FTZ_TRUE", "PRECISION_0ULP_FTZ_TRUE"}
FLOAT_ONLY = {"DIFF_COMPENSATION", "PRECISION_0ULP_FTZ_TRUE", "PRECISION_0ULP_FTZ_FALSE", "FAST_INVERSE"}  # D49
ALGO_CASES = [(op, algo.name) for op, enum_ in (("Div", aj.DivAlgo), ("Exp", aj.ExpAlgo), ("Ln", aj.LnAlgo),
                                                 ("Sqrt", aj.SqrtAlgo), ("Rsqrt", aj.RsqrtAlgo),
                                                 ("Reciprocal", aj.ReciprocalAlgo)) for algo in enum_]


def algo_model(op, dt, algo, sat_half):
    env = Env("ascend950", sat_half, False, algo in FTZ_ALGOS)
    if op == "Rsqrt" and algo != "INTRINSIC":      # correctly rounded 1/sqrt (D40; decisions.md "950 Rsqrt")
        env_c = Env("atlas-a2", sat_half, False, env.ftz)
        fn = lane_fn(op, dt, env_c)
    else:
        fn = lane_fn(op, dt, env)
    if op in ("Sqrt", "Rsqrt") and algo in ("FAST_INVERSE", "PRECISION_0ULP_FTZ_FALSE"):   # D49 domain
        def fn2(d, x, _fn=fn):
            v = decode(x, dt)
            if math.isfinite(v) and v > 2.0 ** 126:
                return 0 if op == "Sqrt" else infbits(dt)
            return _fn(d, x)
        return fn2
    return fn


@pytest.mark.parametrize("op,algo", ALGO_CASES)
def test_950_algorithms(op, algo):
    rng = np.random.default_rng(zlib.crc32(f"{op}{algo}".encode()))
    cfg = getattr(aj, op + "Algo")[algo]
    for dt in ("half", "float"):
        core = make_core("ascend950", sat_half=(dt == "half" and algo.endswith("FALSE")))
        n = 300
        d = core.local_tensor(dt, n)
        a = core.local_tensor(dt, n)
        b = core.local_tensor(dt, n)
        core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
        for t in (d, a, b):
            fill(core, rng, dt, _addr(t), n)
        if dt == "float":      # around D49's bound and subnormal results of a quotient
            view = core.ub[_addr(a):_addr(a) + 4 * n].view(np.uint32)
            view[:6] = [0x7E800000, 0x7E800001, 0x7F000000, 0x00000004, 0x00800000, 0x80000003]
        core.ub_written_by_host()
        srcs = [a, b] if op == "Div" else [a]
        if dt == "half" and algo in FLOAT_ONLY:
            before = core.ub.copy()
            with pytest.raises(aj.ParameterError):
                getattr(aj, op)(d, *srcs, n, config=cfg)
            assert (core.ub == before).all()
            continue
        expect = core.ub.copy()
        fn = algo_model(op, dt, algo, core.half_saturating)
        model_count(expect, fn, n, (_addr(d), SIZE[dt]), [(_addr(t), SIZE[dt]) for t in srcs])
        getattr(aj, op)(d, *srcs, n, config=cfg)
        bad = np.nonzero(core.ub != expect)[0]
        assert bad.size == 0, (op, algo, dt, bad[:4], core.ub[bad[0] & ~3:(bad[0] & ~3) + 4],
                               expect[bad[0] & ~3:(bad[0] & ~3) + 4])


def _addr(t):
    for name in ("GetPhyAddr", "addr"):
        v = getattr(t, name, None)
        if v is not None:
            return v() if callable(v) else v
    raise AttributeError


@_LIB_ONE_SETVALUE
def test_readme_daz_example():
    """README / D38: half Div(-1e-4, 100) is -0 on the 950 (INTRINSIC) and the subnormal 0x8011 on the A2."""
    for device, want in (("ascend950", 0x8000), ("atlas-a2", 0x8011)):
        got = lib_one("Div", device, "half", int(np.float16(-1e-4).view(np.uint16)), int(np.float16(100).view(np.uint16)))
        assert got == want == model_one("Div", device, "half", int(np.float16(-1e-4).view(np.uint16)),
                                        int(np.float16(100).view(np.uint16)))


# ---------------------------------------------------------------------------------------------------------------
# the 950's count-only types (SPEC 3.4, SPEC-2 2.2/3.2/4.2/6.2): 8-bit and 64-bit integers; always wrap (D35)
COUNT_ONLY = [("Add", "int8"), ("Sub", "uint8"), ("Max", "int8"), ("Min", "uint64"), ("And", "uint8"), ("Or", "int64"),
              ("Mul", "int64"), ("Div", "uint64"), ("Div", "int64"), ("Adds", "int8"), ("Maxs", "uint8"), ("Muls", "uint64"),
              ("Mins", "int64"), ("Abs", "int8"), ("Abs", "int64"), ("Relu", "int64"), ("Reciprocal", "int64"),
              ("Reciprocal", "uint64"), ("AddRelu", "int64"), ("SubRelu", "uint64"), ("MulAddDst", "uint64"),
              ("FusedMulAdd", "int64"), ("Axpy", "int64")]


@pytest.mark.parametrize("op,dt", COUNT_ONLY)
def test_950_count_only_integer_types(op, dt):
    run_case_count_only(op, dt)


def run_case_count_only(op, dt):
    rng = np.random.default_rng(zlib.crc32(f"{op}{dt}".encode()))
    core = make_core("ascend950", sat_int=True)            # CTRL[53] does not touch these types (D35)
    env = Env("ascend950", False, True)
    fn = lane_fn(op, dt, env)
    k = kind(op)
    n = 200
    d = core.local_tensor(dt, n)
    srcs = [core.local_tensor(dt, n) for _ in range(2 if k in ("binary", "ternary") else 1)]
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    for t in [d] + srcs:
        fill(core, rng, dt, _addr(t), n)
    core.ub_written_by_host()
    scalar = None
    sc = []
    if k == "scalar":
        bits, signed = INTS[dt]
        v = int(rng.integers(-100, 100)) if signed else int(rng.integers(0, 200))
        scalar = NP_SCALAR[dt](v)
        sc = [("scalar", v & ((1 << bits) - 1))]
    expect = core.ub.copy()
    model_count(expect, fn, n, (_addr(d), SIZE[dt]), [(_addr(t), SIZE[dt]) for t in srcs] + sc,
                dst_read=op in ("MulAddDst", "FusedMulAdd", "Axpy"))
    call_lib(op, core, d, srcs, scalar, n)
    assert (core.ub == expect).all(), np.nonzero(core.ub != expect)[0][:8]
    with pytest.raises(aj.UnsupportedDTypeError):          # high-dim form refused for these types
        call_lib(op, core, d, srcs, scalar, 8, 1, (1, 1, 1, 8, 8, 8) if k in ("binary", "ternary") else (1, 1, 8, 8))


# ---------------------------------------------------------------------------------------------------------------
# zero parameters (SPEC D14, SPEC-2 D30), refusals (SPEC-2 1.2, 1.8, D60), overlap (SPEC 8.2, SPEC-2 D34)
ALL_DEVICES = ["ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore", "atlas-training"]


def _setup(device, dt="half", n=512, sat=None):
    core = make_core(device, device in ("atlas-training", "atlas-inference-aicore") if sat is None else sat)
    ts = [core.local_tensor(dt, n) for _ in range(3)]
    rng = np.random.default_rng(7)
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    core.ub_written_by_host()
    return core, ts


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_zero_parameters(device):
    core, (d, a, b) = _setup(device)
    before = core.ub.copy()
    aj.Sub(d, a, b, 0)                                       # count 0: NOP everywhere (D30)
    aj.Adds(d, a, np.float16(1), 0)
    aj.Sub(d, a, b, 128, 0, aj.BinaryRepeatParams())         # repeat 0: NOP (D30)
    aj.Exp(d, a, 128, 0, aj.UnaryRepeatParams())
    assert (core.ub == before).all()
    for mask in (0, [0, 0]):                                 # mask 0: 950 refused, the others NOP (D30, D14)
        if device == "ascend950":
            with pytest.raises(aj.ParameterError):
                aj.Sub(d, a, b, mask, 1, aj.BinaryRepeatParams())
        else:
            aj.Sub(d, a, b, mask, 1, aj.BinaryRepeatParams())
        assert (core.ub == before).all()
    for bad in (lambda: aj.Sub(d, a, b, -1), lambda: aj.Sub(d, a, b, -1, 1, aj.BinaryRepeatParams()),
                lambda: aj.Sub(d, a, b, 128, 256, aj.BinaryRepeatParams()),           # repeat 0..255 (SPEC-2 1.2)
                lambda: aj.Sub(d, a, b, 128, 1, aj.BinaryRepeatParams(0, 1, 1, 8, 8, 8)),   # dstBlkStride 0
                lambda: aj.Abs(d, a, 128, 1, aj.UnaryRepeatParams(0, 1, 8, 8)),
                lambda: aj.Sub(d, a, b, 128, 1, aj.BinaryRepeatParams(1, 1, 1, 256, 8, 8))):  # uint8 stride
        with pytest.raises(aj.ParameterError):
            bad()
        assert (core.ub == before).all()
    with pytest.raises(aj.OutOfBoundsError):                 # a count past a tensor
        aj.Sub(d, a, b, 513)
    f = core.local_tensor("float", 64)
    with pytest.raises(aj.ParameterError):                   # 32-bit lanes: mask[1] must be 0 (SPEC 2.1)
        aj.Sub(f, f, f, [1, 1], 1, aj.BinaryRepeatParams())
    assert (core.ub == before).all()


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_refusals_by_device_and_dtype(device):
    core, (d, a, b) = _setup(device, "int32", 64)
    if device != "ascend950":                                # D60
        with pytest.raises(aj.UnsupportedDTypeError):
            aj.And(d, a, b, 64)
    else:
        aj.And(d, a, b, 64)
    if device == "atlas-training":                           # SPEC-2 1.9
        h = [core.local_tensor("half", 128) for _ in range(3)]
        for call in (lambda: aj.Maxs(h[0], h[1], np.float16(1), 128), lambda: aj.Mins(h[0], h[1], np.float16(1), 128),
                     lambda: aj.LeakyRelu(h[0], h[1], np.float16(1), 128), lambda: aj.AddRelu(*h, 128),
                     lambda: aj.SubRelu(*h, 128), lambda: aj.MulAddDst(*h, 128), lambda: aj.FusedMulAdd(*h, 128)):
            with pytest.raises(aj.UnsupportedDeviceError):
                call()
        with pytest.raises(aj.UnsupportedDTypeError):       # Add/Sub int16 not on the 910
            i16 = [core.local_tensor("int16", 128) for _ in range(3)]
            aj.Sub(*i16, 128)
    if device != "ascend950":
        with pytest.raises(aj.UnsupportedDeviceError):      # config= off the 950 (D48)
            h = [core.local_tensor("half", 128) for _ in range(3)]
            aj.Div(*h, 128, config=aj.DivConfig(aj.DivAlgo.PRECISION_1ULP_FTZ_FALSE))
    with pytest.raises(TypeError):                          # D32: Sub's count form has no isSetMask
        aj.Sub(d, a, b, 64, is_set_mask=False)


def test_vector_core_is_refused():
    core = aj.Core("atlas-inference-vectorcore")
    h = [core.local_tensor("half", 128) for _ in range(3)]
    with pytest.raises(aj.UnsupportedDeviceError):
        aj.Sub(*h, 128)


@pytest.mark.parametrize("device,dt", [("atlas-a2", "half"), ("ascend950", "float"), ("atlas-training", "int32")])
def test_src1_accumulate_exception_and_in_place(device, dt):
    """SPEC 8.2, SPEC-2 D34: dst over src1 with src1RepStride 0 (the accumulation pattern) for Sub/Mul/Max/Min;
    in-place count forms; what is refused."""
    core, (d, a, b) = _setup(device, dt, 1024)
    ds = SIZE[dt]
    L = 256 // ds
    env = env_for("Sub", device, dt, core.half_saturating, False)
    for op in ("Sub", "Mul", "Max", "Min"):
        # dst == src1 (same address), src1RepStride 0, dstRepStride 0: every repeat reads the previous result
        core.ub[:] = np.random.default_rng(1).integers(0, 256, core.ub.size, dtype=np.uint8)
        fill(core, np.random.default_rng(2), dt, _addr(a), 1024)
        fill(core, np.random.default_rng(3), dt, _addr(d), 1024)
        core.ub_written_by_host()
        expect = core.ub.copy()
        fn = lane_fn(op, dt, env)
        model_highdim(expect, fn, L, (_addr(d), ds, 1, 0), [(_addr(a), ds, 1, 8), (_addr(d), ds, 1, 0)], L, 4)
        getattr(aj, op)(d, a, d, L, 4, aj.BinaryRepeatParams(1, 1, 1, 0, 8, 0))
        assert (core.ub == expect).all(), op
        # in place count form: dst is src0
        expect = core.ub.copy()
        model_count(expect, fn, 300, (_addr(a), ds), [(_addr(a), ds), (_addr(b), ds)])
        getattr(aj, op)(a, a, b, 300)
        assert (core.ub == expect).all(), op
    before = core.ub.copy()
    with pytest.raises(aj.OverlapError):                    # partial overlap of a count form (SPEC 3.3)
        aj.Sub(a[32 // ds], a, b, 64)
    with pytest.raises(aj.OverlapError):                    # the exception is dst over src1 only, not src0
        aj.Sub(d, d, b, L, 4, aj.BinaryRepeatParams(1, 1, 1, 0, 0, 8))
    if dt != "int32":
        with pytest.raises(aj.OverlapError):                # Div is not in D34's exception list
            aj.Div(d, a, d, L, 4, aj.BinaryRepeatParams(1, 1, 1, 0, 8, 0))
    assert (core.ub == before).all()


def test_src1_exception_not_for_int16_and_mixed_multiply_add_overlap():
    core, (d, a, b) = _setup("atlas-a2", "int16", 1024)
    before = core.ub.copy()
    with pytest.raises(aj.OverlapError):                    # D34: half, int32, float only
        aj.Sub(d, a, d, 128, 4, aj.BinaryRepeatParams(1, 1, 1, 0, 8, 0))
    f = core.local_tensor("float", 256)
    h = core.local_tensor("half", 512)
    with pytest.raises(aj.OverlapError):                    # D34: mixed half->float forms allow no overlap at all
        aj.MulAddDst(f, h, f.ReinterpretCast("half"), 64)
    assert (core.ub == before).all()


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_mask_register_after_calls(device):
    """SPEC D22 / SPEC-2 D31 (+ decisions.md: 310B untouched by SPEC-2 high-dim calls, 310P count calls as A2)."""
    L = 128
    p_hi, p_lo = 0x00F0, 0x0F0F0F0F0F0F0F0F
    cont37 = (0, (1 << 37) - 1)
    full = (2 ** 64 - 1, 2 ** 64 - 1)
    bitmask = [0x1234, 0x8000000000000001]
    cases = [("Sub", "cont", {"ascend950": (p_hi, p_lo), "atlas-200i-500-a2": (p_hi, p_lo)}, cont37),
             ("Sub", "bits", {"atlas-200i-500-a2": (p_hi, p_lo)}, (bitmask[1], bitmask[0])),
             ("Add", "cont", {"ascend950": (p_hi, p_lo)}, cont37),
             ("Sub", "count", {"ascend950": (p_hi, p_lo), "atlas-200i-500-a2": (p_hi, p_lo),
                               "atlas-training": cont37}, full),
             ("Sub", "rep0", {"ascend950": (p_hi, p_lo), "atlas-200i-500-a2": (p_hi, p_lo)}, cont37),   # D30
             ("Sub", "rep0bits", {"atlas-200i-500-a2": (p_hi, p_lo)}, (bitmask[1], bitmask[0])),
             ("Sub", "mask0", {"atlas-200i-500-a2": (p_hi, p_lo)}, (0, 0)),                        # D14, D30
             ("Add", "count", {"ascend950": (p_hi, p_lo), "atlas-200i-500-a2": (p_hi, p_lo),
                               "atlas-training": full}, full)]
    for op, form, special, generic in cases:
        core, (d, a, b) = _setup(device, "half", 1024)
        core.SetVectorMask(p_hi, p_lo)
        if form == "mask0" and device == "ascend950":
            continue
        if form in ("rep0", "rep0bits", "mask0"):
            before = core.ub.copy()
            getattr(aj, op)(d, a, b, {"rep0": 37, "rep0bits": bitmask, "mask0": [0, 0]}[form],
                            0 if form != "mask0" else 2, aj.BinaryRepeatParams())
            assert (core.ub == before).all()
        elif form == "count" and op == "Add":
            getattr(aj, op)(d, a, b, 3 * L)           # the 910 leaves the full mask for a multiple of L (D22)
        elif form == "cont":
            getattr(aj, op)(d, a, b, 37, 2, aj.BinaryRepeatParams())
        elif form == "bits":
            getattr(aj, op)(d, a, b, bitmask, 2, aj.BinaryRepeatParams())
        else:
            getattr(aj, op)(d, a, b, 2 * L + 37)
        hi, lo = special.get(device, generic)
        # probe: a high-dim call with is_set_mask=False runs on the register's lanes
        fill(core, np.random.default_rng(5), "half", _addr(a), 1024)
        fill(core, np.random.default_rng(6), "half", _addr(d), 1024)
        core.ub_written_by_host()
        expect = core.ub.copy()
        env = env_for("Mul", device, "half", core.half_saturating, False)
        model_highdim(expect, lane_fn("Mul", "half", env), L, (_addr(d), 2, 1, 8), [(_addr(a), 2, 1, 8),
                      (_addr(b), 2, 1, 8)], [lo, hi], 2)
        aj.Mul(d, a, b, aj.MASK_PLACEHOLDER, 2, aj.BinaryRepeatParams(), is_set_mask=False)
        assert (core.ub == expect).all(), (device, op, form, hex(hi), hex(lo))


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950", "atlas-inference-aicore"])
def test_scalar_count_form_is_set_mask_false(device):
    """SPEC-2 D32: non-950 count forms with is_set_mask=False need counter mode and take the register's count; the
    950 ignores the flag and uses `count`."""
    core, (d, a, b) = _setup(device, "half", 512)
    if device != "ascend950":
        with pytest.raises(aj.StateError):
            aj.Adds(d, a, np.float16(1.5), 100, is_set_mask=False)
    core.SetMaskCount()
    core.SetVectorMask(300)
    expect = core.ub.copy()
    env = env_for("Adds", device, "half", core.half_saturating, False)
    n = 100 if device == "ascend950" else 300
    model_count(expect, lane_fn("Adds", "half", env), n, (_addr(d), 2), [(_addr(a), 2), ("scalar", 0x3E00)])
    aj.Adds(d, a, np.float16(1.5), 100, is_set_mask=False)
    core.SetMaskNorm()
    assert (core.ub == expect).all()


def test_scalar_conversion_d29():
    core, (d, a, b) = _setup("atlas-a2", "half", 128, sat=True)
    ha = np.arange(128).astype(np.float16)
    a[:] = ha
    aj.Adds(d, a, 1e6, 128)                  # 1e6 -> +inf (not saturated), x + inf = inf -> SAT 65504
    assert (d.numpy().view(np.uint16) == 0x7BFF).all()
    aj.Muls(d, a, 0.1, 128)                  # 0.1 -> 0x2E66 by one RNE, then RN(x * 0x2E66)
    want = [model_one("Muls", "atlas-a2", "half", int(v), 0x2E66, sat_half=True) for v in ha.view(np.uint16)]
    assert d.numpy().view(np.uint16).tolist() == want
    aj.Muls(d, a, np.float32(0.1), 128)      # a numpy float of another width: the same one rounding
    assert d.numpy().view(np.uint16).tolist() == want
    aj.Maxs(d, a, -0.0, 128)                 # -0.0 keeps its sign: max(+0, -0) = +0, others x
    assert d.numpy().view(np.uint16)[0] == 0
    i16 = [core.local_tensor("int16", 128) for _ in range(2)]
    for bad in (70000, True, 2.0, np.bool_(True)):
        with pytest.raises(aj.ParameterError):
            aj.Adds(i16[0], i16[1], bad, 128)


def test_operator_forms():
    core = make_core("atlas-a2")
    n = 96
    ts = {dt: [core.local_tensor(dt, n) for _ in range(3)] for dt in ("half", "int16")}
    rng = np.random.default_rng(11)
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    core.ub_written_by_host()
    for sym, op, dt in (("-", "Sub", "half"), ("*", "Mul", "half"), ("/", "Div", "half"), ("&", "And", "int16"),
                        ("|", "Or", "int16"), ("+", "Add", "half")):
        d, a, b = ts[dt]
        expect = core.ub.copy()
        model_count(expect, lane_fn(op, dt, env_for(op, "atlas-a2", dt, False, False)), n,
                    (_addr(d), SIZE[dt]), [(_addr(a), SIZE[dt]), (_addr(b), SIZE[dt])])
        d[:] = {"-": a - b, "*": a * b, "/": a / b, "&": a & b, "|": a | b, "+": a + b}[sym]
        assert (core.ub == expect).all(), sym
    d, a, b = ts["half"]
    short = core.local_tensor("half", n - 16)
    with pytest.raises(aj.OutOfBoundsError):                 # count = dst.GetSize(); shorter source
        d[:] = a - short


def test_axpy_mixed_scalar_has_the_source_type():
    """SPEC-2 6.1 / D29: Axpy's scalar has the src type U (half for half->float): a Python 0.1 rounds to 0x2E66."""
    for device in ("atlas-a2", "ascend950", "atlas-training"):
        core = make_core(device, device == "atlas-training")
        n = 64
        f = core.local_tensor("float", n)
        h = core.local_tensor("half", n)
        rng = np.random.default_rng(3)
        core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
        fill(core, rng, "half", _addr(h), n)
        fill(core, rng, "float", _addr(f), n)
        core.ub_written_by_host()
        expect = core.ub.copy()
        model_count(expect, lane_fn("Axpy", "float", env_for("Axpy", device, "float", False, False), "half"), n,
                    (_addr(f), 4), [(_addr(h), 2), ("scalar", 0x2E66)], dst_read=True)
        aj.Axpy(f, h, 0.1, n)
        assert (core.ub == expect).all(), device


def test_mixed_multiply_add_lanes_and_masks():
    """D33: 64 lanes per repeat, half operands addressed with their own element size; bit mask mask[0] only;
    continuous mask above 64 clamps (D15); the 310B has no mixed MulAddDst (SPEC-2 6.2)."""
    core = make_core("atlas-a2")
    f = core.local_tensor("float", 1024)
    h0, h1 = core.local_tensor("half", 2048), core.local_tensor("half", 2048)
    rng = np.random.default_rng(9)
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    for t, dt, n in ((f, "float", 1024), (h0, "half", 2048), (h1, "half", 2048)):
        fill(core, rng, dt, _addr(t), n)
    core.ub_written_by_host()
    fn = lane_fn("MulAddDst", "float", env_for("MulAddDst", "atlas-a2", "float", False, False), "half")
    for mask in (100, [0xF0F0F0F0F0F0F0F1]):
        expect = core.ub.copy()
        model_highdim(expect, fn, 64, (_addr(f), 4, 2, 17), [(_addr(h0), 2, 1, 4), (_addr(h1), 2, 3, 0)],
                      mask, 3, dst_read=True)
        aj.MulAddDst(f, h0, h1, mask, 3, aj.BinaryRepeatParams(2, 1, 3, 17, 4, 0))
        assert (core.ub == expect).all(), mask
    with pytest.raises(aj.ParameterError):
        aj.MulAddDst(f, h0, h1, [1, 1], 1, aj.BinaryRepeatParams(1, 1, 1, 8, 4, 4))
    c310 = make_core("atlas-200i-500-a2")
    with pytest.raises(aj.UnsupportedDTypeError):
        aj.MulAddDst(c310.local_tensor("float", 64), c310.local_tensor("half", 64), c310.local_tensor("half", 64), 64)


def test_counter_mode_corners():
    """SPEC 2.6 / SPEC-2 1.4 and decisions.md: bit form [count, word] in counter mode, is_set_mask=False reading the
    register's count, count 0 on the 950 a NOP, the register's count on a later call."""
    for device in ("atlas-a2", "ascend950", "atlas-training", "atlas-200i-500-a2"):
        core, (d, a, b) = _setup(device, "float", 1024)
        env = env_for("Max", device, "float", core.half_saturating, False)
        fn = lane_fn("Max", "float", env)
        ops = [(_addr(d), 4, 2, 9), (_addr(a), 4, 0, 3), (_addr(b), 4, 1, 8)]
        core.SetMaskCount()
        expect = core.ub.copy()
        model_highdim(expect, fn, 64, ops[0], ops[1:], 150, 0, counter=True)
        aj.Max(d, a, b, [150, 7], 1, aj.BinaryRepeatParams(2, 0, 1, 9, 3, 8))
        assert (core.ub == expect).all(), device
        core.SetVectorMask(70)
        expect = core.ub.copy()
        model_highdim(expect, fn, 64, ops[0], ops[1:], 70, 0, counter=True)
        aj.Max(d, a, b, aj.MASK_PLACEHOLDER, 5, aj.BinaryRepeatParams(2, 0, 1, 9, 3, 8), is_set_mask=False)
        assert (core.ub == expect).all(), device
        before = core.ub.copy()
        aj.Max(d, a, b, 0, 3, aj.BinaryRepeatParams(2, 0, 1, 9, 3, 8))    # count 0: NOP (decisions.md, D30)
        assert (core.ub == before).all()
        core.SetMaskNorm()


@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync,dcache", reason="runs the calls on fresh tensors: it "
                             "checks their footprints, not their values")
def test_tensor_bounds_follow_the_active_lanes():
    """decisions.md 'Tensor bounds': every byte touched lies in the operand's tensor; a bit mask that skips the
    last blocks makes a smaller footprint."""
    core = aj.Core("atlas-a2")
    d = core.local_tensor("half", 128 + 2 * 64)        # repeat 1 at element 128 with dstBlkStride 1... see below
    a = core.local_tensor("half", 256)
    b = core.local_tensor("half", 256)
    # repeat 0 and 1, contiguous, only the first 4 blocks active: the touched bytes end at 128+64 halves
    aj.Sub(d, a, b, [(1 << 64) - 1, 0], 2, aj.BinaryRepeatParams())
    small = core.local_tensor("half", 128 + 63)
    with pytest.raises(aj.OutOfBoundsError):
        aj.Sub(small, a, b, [(1 << 64) - 1, 0], 2, aj.BinaryRepeatParams())


def _tie_operands(rng, dt, sdt, n, region, same_a=False):
    """a, b (type sdt) and c (type dt) such that a*b + c is a rounding midpoint of dt (s = 0) or lies within
    2^-s of one (s = 1..6): a*b = odd * 2^(q-1-s), c = K * 2^q, |a*b + c| in dt's binade of ulp 2^q."""
    e, m = FMT[dt]
    p, bias = m + 1, (1 << (e - 1)) - 1
    se, sm = FMT[sdt]
    s_min = 2 - (1 << (se - 1)) - sm                    # exponent of sdt's smallest subnormal
    hb = max(2, min((p + 1) // 2, sm + 1))
    q = (1 - bias - m) if region == "subnormal" else -(p - 1) + int(rng.integers(-2, 3))
    out = []
    a0 = None
    for _ in range(n):
        sft = int(rng.integers(0, 7)) if rng.random() < 0.5 else 0
        tot = q - 1 - sft
        oa = int(rng.integers(0, 1 << (hb - 1))) * 2 + 1
        ob = int(rng.integers(0, 1 << (hb - 1))) * 2 + 1
        xa = max(tot // 2, s_min)
        xb = tot - xa
        if same_a:
            if a0 is None:
                a0 = (oa, xa)
            oa, xa = a0
            xb = tot - xa
        a = math.ldexp(oa, xa) * (-1 if rng.random() < 0.5 else 1)
        b = math.ldexp(ob, xb) * (-1 if rng.random() < 0.5 else 1)
        lo = 0 if region == "subnormal" else 1 << (p - 1)
        k = int(rng.integers(lo, 1 << p)) * (-1 if rng.random() < 0.5 else 1)
        c = math.ldexp(k, q) - math.ldexp(round(a * b / math.ldexp(1, q)), q)
        if not (abs(c) < math.ldexp(1, q + p)):
            c = math.ldexp(k, q)
        out.append((a, b, c))
    return [np.array(col) for col in zip(*out)]


FMA_TIE_CASES = [("FusedMulAdd", "ascend950", "float", None), ("MulAddDst", "atlas-a2", "float", None),
                 ("Axpy", "atlas-200i-500-a2", "float", None), ("FusedMulAdd", "ascend950", "half", None),
                 ("MulAddDst", "atlas-a3", "half", None), ("Axpy", "ascend950", "half", None),
                 ("FusedMulAdd", "ascend950", "bfloat16", None), ("MulAddDst", "ascend950", "float", "half"),
                 ("Axpy", "atlas-training", "float", "half"), ("Axpy", "ascend950", "bfloat16", None)]


@pytest.mark.parametrize("op,device,dt,src_dt", FMA_TIE_CASES)
def test_multiply_add_rounding_ties_and_subnormals(op, device, dt, src_dt):
    """Operands with few significant bits so that a*b + c lands on (or next to) rounding midpoints, in the normal
    and the subnormal range of the destination (one rounding: SPEC-2 6.3, D39)."""
    sdt = src_dt or dt
    rng = np.random.default_rng(zlib.crc32(f"{op}{device}{dt}{sdt}".encode()))
    n = 1024
    core = make_core(device, device in ("atlas-training", "atlas-inference-aicore"))
    d = core.local_tensor(dt, n)
    s0 = core.local_tensor(sdt, n)
    s1 = core.local_tensor(sdt, n)
    for region in ("normal", "subnormal") if sdt == dt else ("normal",):
        a, b, c = _tie_operands(rng, dt, sdt, n, region, same_a=(op == "Axpy"))
        for arr, t in ((a, sdt), (b, sdt), (c, dt)):        # every operand exact in its type
            assert (arr.astype(NP_SCALAR[t]).astype(np.float64) == arr).all(), (region, t)
        core.ub[:] = 0
        if op == "FusedMulAdd":        # dst = src0 * dst + src1
            d[:] = a.astype(d.numpy().dtype); s0[:] = b.astype(s0.numpy().dtype); s1[:] = c.astype(s1.numpy().dtype)
        elif op == "MulAddDst":        # dst = src0 * src1 + dst
            d[:] = c.astype(d.numpy().dtype); s0[:] = a.astype(s0.numpy().dtype); s1[:] = b.astype(s1.numpy().dtype)
        else:                          # dst = scalar * src + dst, one scalar: use a[0]
            d[:] = c.astype(d.numpy().dtype); s0[:] = b.astype(s0.numpy().dtype)
        env = env_for(op, device, dt, core.half_saturating, False)
        fn = lane_fn(op, dt, env, src_dt)
        expect = core.ub.copy()
        if op == "Axpy":
            sc = NP_SCALAR[sdt](a[0])
            scb = int(np.array([sc]).view(UINT[SIZE[sdt]])[0])
            model_count(expect, fn, n, (_addr(d), SIZE[dt]), [(_addr(s0), SIZE[sdt]), ("scalar", scb)], dst_read=True)
            aj.Axpy(d, s0, sc, n)
        else:
            model_count(expect, fn, n, (_addr(d), SIZE[dt]), [(_addr(s0), SIZE[sdt]), (_addr(s1), SIZE[sdt])],
                        dst_read=True)
            getattr(aj, op)(d, s0, s1, n)
        bad = np.nonzero(core.ub != expect)[0]
        assert bad.size == 0, (region, bad[:4])


def test_scalar_conversion_exact_ints():
    """D29: a Python int for a float operand is rounded once from its exact value (no detour through a double)."""
    core = make_core("ascend950")
    for dt, value, want in (("float", 2 ** 60 + 2 ** 36 + 1, 0x5D800001), ("bfloat16", 2 ** 60 + 2 ** 52 + 1, 0x5D81),
                            ("float", 2 ** 1100, 0x7F800000), ("half", 65520, 0x7C00), ("half", 65519, 0x7BFF)):
        d, a = core.local_tensor(dt, 16), core.local_tensor(dt, 16)
        a[:] = np.zeros(16, NP_SCALAR[dt])
        aj.Adds(d, a, value, 16)                     # +0 + s = s
        assert int(d.numpy()[:1].view(UINT[SIZE[dt]])[0]) == want == rn(Fraction(value), dt), (dt, value)


@pytest.mark.parametrize("params", [(1, 1, 1, 8, 8, 0), (2, 1, 1, 0, 8, 0), (1, 2, 1, 0, 8, 0), (1, 1, 1, 0, 8, 8)])
def test_src1_exception_variants(params):
    """SPEC 8.2 exception (dst over src1 with src1RepStride or dstRepStride 0; decisions.md: waives the dst/src1
    check): each later repeat reads what the earlier ones wrote; a repeat reads before it writes."""
    core, (d, a, b) = _setup("atlas-a2", "half", 2048)
    fill(core, np.random.default_rng(4), "half", _addr(a), 2048)
    fill(core, np.random.default_rng(5), "half", _addr(d), 2048)
    core.ub_written_by_host()
    expect = core.ub.copy()
    fn = lane_fn("Add", "half", env_for("Add", "atlas-a2", "half", False, False))
    db, s0b, s1b, dr, s0r, s1r = params
    model_highdim(expect, fn, 128, (_addr(d), 2, db, dr), [(_addr(a), 2, s0b, s0r), (_addr(d), 2, s1b, s1r)],
                  [0xFFFF0000FFFF00FF, 0x00FF00FF00FF00FF], 4)
    aj.Add(d, a, d, [0xFFFF0000FFFF00FF, 0x00FF00FF00FF00FF], 4, aj.BinaryRepeatParams(*params))
    assert (core.ub == expect).all()


@pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync,dcache", reason="sets the H-16 inputs by SetValue "
                             "right after a Div, as host code would, with no V_S flag between them")
def test_950_operators_on_count_only_types_and_integer_div_configs():
    core = make_core("ascend950")
    rng = np.random.default_rng(21)
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    core.ub_written_by_host()
    n = 80
    for sym, op, dt in (("-", "Sub", "int8"), ("*", "Mul", "uint64"), ("/", "Div", "int64"), ("&", "And", "uint8"),
                        ("|", "Or", "int64"), ("+", "Add", "uint8")):
        d, a, b = (core.local_tensor(dt, n) for _ in range(3))
        for t in (a, b):   # they hold the random bytes written above (a new tensor's count as uninitialised)
            core.ub_written_by_host(_addr(t), n * SIZE[dt])
        expect = core.ub.copy()
        model_count(expect, lane_fn(op, dt, Env("ascend950")), n, (_addr(d), SIZE[dt]),
                    [(_addr(a), SIZE[dt]), (_addr(b), SIZE[dt])])
        d[:] = {"-": a - b, "*": a * b, "/": a / b, "&": a & b, "|": a | b, "+": a + b}[sym]
        assert (core.ub == expect).all(), (sym, dt)
    d, a, b = (core.local_tensor("int32", n) for _ in range(3))
    for t in (a, b):
        core.ub_written_by_host(_addr(t), 4 * n)
    expect = core.ub.copy()
    model_count(expect, lane_fn("Div", "int32", Env("ascend950")), n, (_addr(d), 4), [(_addr(a), 4), (_addr(b), 4)])
    aj.Div(d, a, b, n, config=aj.DivConfig(aj.DivAlgo.PRECISION_1ULP_FTZ_TRUE))
    assert (core.ub == expect).all()
    for algo in ("DIFF_COMPENSATION", "PRECISION_0ULP_FTZ_TRUE", "PRECISION_0ULP_FTZ_FALSE", "PRECISION_1ULP_FTZ_FALSE"):
        with pytest.raises(aj.ParameterError):
            aj.Div(d, a, b, n, config=aj.DivAlgo[algo])
    assert (core.ub == expect).all()
    # H-16: -7/2, 7/0, INT_MIN/-1
    a.SetValue(0, np.int32(-7)); b.SetValue(0, np.int32(2))
    a.SetValue(1, np.int32(7)); b.SetValue(1, np.int32(0))
    a.SetValue(2, np.int32(-2 ** 31)); b.SetValue(2, np.int32(-1))
    aj.Div(d, a, b, 3)
    assert d.numpy()[:3].tolist() == [-3, -1, -2 ** 31]


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync,dcache", reason="strides 1000 blocks past a 16-element "
                             "tensor on purpose, through the bounds=\"ub\" escape hatch")
def test_unary_wide_block_strides():
    """UnaryRepeatParams block strides are uint16 (SPEC-2 1.1 table): 300 and 1000 are legal."""
    core = make_core("atlas-a2")
    rng = np.random.default_rng(8)
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    core.ub_written_by_host()
    d = core.local_tensor("half", 16, addr=0)
    s = core.local_tensor("half", 16, addr=65536)
    expect = core.ub.copy()
    fn = lane_fn("Exp", "half", env_for("Exp", "atlas-a2", "half", False, False))
    model_highdim(expect, fn, 128, (0, 2, 300, 3), [(65536, 2, 1000, 0)], [0x8001000100010001, 0x1], 2)
    aj.Exp(d, s, [0x8001000100010001, 0x1], 2, aj.UnaryRepeatParams(300, 1000, 3, 0))
    assert (core.ub == expect).all()


@_LIB_ONE_SETVALUE
def test_modelled_illustrations_and_unclamped_register():
    """SPEC-2 12.1 MODELLED illustrations (the model's bits, A2); decisions.md: a continuous mask above the lanes is
    computed clamped (D15) but recorded as given (a float mask 100 leaves 100 lanes for a later half call)."""
    rows = {"Exp": ([0x0000, 0x3C00, 0x4000, 0x4200], [0x3C00, 0x4170, 0x4764, 0x4D05]),
            "Sqrt": ([0x3C00, 0x4000, 0x4200, 0x4400], [0x3C00, 0x3DA8, 0x3EEE, 0x4000]),
            "Ln": ([0x3C00, 0x4000, 0x4200, 0x4400], [0x0000, 0x398C, 0x3C65, 0x3D8C])}
    for op, (xs, want) in rows.items():
        got = [lib_one(op, "atlas-a2", "half", x) for x in xs]
        mod = [model_one(op, "atlas-a2", "half", x) for x in xs]
        assert got == want == mod, op
    core, (d, a, b) = _setup("atlas-a2", "half", 1024)
    f = [core.local_tensor("float", 256) for _ in range(3)]
    for t in f:   # they hold _setup's random bytes (a new tensor's count as uninitialised)
        core.ub_written_by_host(_addr(t), 1024)
    expect = core.ub.copy()
    fn = lane_fn("Sub", "float", env_for("Sub", "atlas-a2", "float", False, False))
    model_highdim(expect, fn, 64, (_addr(f[0]), 4, 1, 8), [(_addr(f[1]), 4, 1, 8), (_addr(f[2]), 4, 1, 8)], 100, 2)
    aj.Sub(*f, 100, 2, aj.BinaryRepeatParams())
    assert (core.ub == expect).all()
    fnh = lane_fn("Add", "half", env_for("Add", "atlas-a2", "half", False, False))
    model_highdim(expect, fnh, 128, (_addr(d), 2, 1, 8), [(_addr(a), 2, 1, 8), (_addr(b), 2, 1, 8)], 100, 2)
    aj.Add(d, a, b, aj.MASK_PLACEHOLDER, 2, aj.BinaryRepeatParams(), is_set_mask=False)
    assert (core.ub == expect).all()


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_counter_mode_register_after_high_dim_calls(device):
    """SPEC-2 D31 + decisions.md 'Counter-mode high-dim calls and the register': the count goes to the register
    (continuous or bit form) where the device's high-dim calls write it; the 950 writes it for bit-form calls only;
    the 310B's SPEC-2 calls leave it alone. A later is_set_mask=False call in counter mode uses it as its count."""
    for form in ("cont", "bits"):
        core, (d, a, b) = _setup(device, "half", 1024)
        core.SetMaskCount()
        core.SetVectorMask(77)
        if form == "cont":
            aj.Sub(d, a, b, 150, 1, aj.BinaryRepeatParams())
        else:
            aj.Sub(d, a, b, [150, 0], 1, aj.BinaryRepeatParams())
        untouched = device == "atlas-200i-500-a2" or (device == "ascend950" and form == "cont")
        n = 77 if untouched else 150
        fill(core, np.random.default_rng(1), "half", _addr(a), 1024)
        core.ub_written_by_host()
        expect = core.ub.copy()
        fn = lane_fn("Mul", "half", env_for("Mul", device, "half", core.half_saturating, False))
        model_highdim(expect, fn, 128, (_addr(d), 2, 1, 8), [(_addr(a), 2, 1, 8), (_addr(b), 2, 1, 8)], n, 0,
                      counter=True)
        aj.Mul(d, a, b, aj.MASK_PLACEHOLDER, 1, aj.BinaryRepeatParams(), is_set_mask=False)
        core.SetMaskNorm()
        assert (core.ub == expect).all(), (device, form)


@pytest.mark.parametrize("dt", ["half", "float"])
def test_overlap_across_repeats_and_long_in_place_runs(dt):
    """SPEC 8.2: a later repeat may write what an earlier one read (dst one repeat below src0), not read what an
    earlier one wrote; in-place count forms over many elements (decisions.md: chunked in-place half runs)."""
    core, (d, a, b) = _setup("atlas-a2", dt, 8192)
    ds = SIZE[dt]
    L = 256 // ds
    rng = np.random.default_rng(12)
    fill(core, rng, dt, _addr(a), 8192)
    fill(core, rng, dt, _addr(b), 8192)
    core.ub_written_by_host()
    env = env_for("Sub", "atlas-a2", dt, False, False)
    fn = lane_fn("Sub", dt, env)
    expect = core.ub.copy()
    model_highdim(expect, fn, L, (_addr(a), ds, 1, 8), [(_addr(a) + 256, ds, 1, 8), (_addr(b), ds, 1, 8)], L, 5)
    aj.Sub(a, a[L], b, L, 5, aj.BinaryRepeatParams())
    assert (core.ub == expect).all()
    before = core.ub.copy()
    with pytest.raises(aj.OverlapError):
        aj.Sub(a[L], a, b, L, 5, aj.BinaryRepeatParams())
    assert (core.ub == before).all()
    for op, dst_is in (("Sub", 0), ("Mul", 1), ("AddRelu", 1), ("Div", 0)):
        n = 5000
        expect = core.ub.copy()
        srcs = [(_addr(a), ds), (_addr(b), ds)]
        model_count(expect, lane_fn(op, dt, env), n, srcs[dst_is], srcs)
        getattr(aj, op)((a, b)[dst_is], a, b, n)
        assert (core.ub == expect).all(), op
    expect = core.ub.copy()
    model_count(expect, lane_fn("Exp", dt, env), n, (_addr(a), ds), [(_addr(a), ds)])
    aj.Exp(a, a, n)
    assert (core.ub == expect).all()
    expect = core.ub.copy()
    model_count(expect, lane_fn("MulAddDst", dt, env), n, (_addr(a), ds), [(_addr(a), ds), (_addr(a), ds)],
                dst_read=True)
    aj.MulAddDst(a, a, a, n)
    assert (core.ub == expect).all()


@_LIB_ONE_SETVALUE
def test_hardware_probes_h6_h20():
    """SPEC-2 0.4 H-6 (950 DAZ: Ln float of 0x00000001 -> -inf, of 0x00800000 ~ -87.34; Sqrt of 0x00000004 -> +0)
    and H-20 (950 Reciprocal float of -2^127 -> -0 by FTZ); the A2 keeps subnormals (D8)."""
    assert lib_one("Ln", "ascend950", "float", 0x00000001) == 0xFF800000 == model_one("Ln", "ascend950", "float", 1)
    got = lib_one("Ln", "ascend950", "float", 0x00800000)
    assert got == model_one("Ln", "ascend950", "float", 0x00800000) and abs(decode(got, "float") + 87.3365) < 1e-3
    assert lib_one("Sqrt", "ascend950", "float", 4) == 0 == model_one("Sqrt", "ascend950", "float", 4)
    assert lib_one("Reciprocal", "ascend950", "float", 0xFF000000) == 0x80000000 == \
        model_one("Reciprocal", "ascend950", "float", 0xFF000000)
    assert lib_one("Reciprocal", "atlas-a2", "float", 0xFF000000) == 0x80400000 == \
        model_one("Reciprocal", "atlas-a2", "float", 0xFF000000)
    assert lib_one("Sqrt", "atlas-a2", "float", 4) == model_one("Sqrt", "atlas-a2", "float", 4) != 0


def test_undefined_register_refuses_is_set_mask_false():
    """SPEC D22 / SPEC-2 D31: after a non-950 high-dim ReduceSum the register is undefined; an element-wise call
    with is_set_mask=False is then refused (StateError) and writes nothing."""
    core, (d, a, b) = _setup("atlas-a2", "half", 1024)
    tmp = core.local_tensor("half", 128)
    aj.ReduceSum(d, a, tmp, 128, 2, 8)
    before = core.ub.copy()
    with pytest.raises(aj.StateError):
        aj.Sub(d, a, b, aj.MASK_PLACEHOLDER, 1, aj.BinaryRepeatParams(), is_set_mask=False)
    assert (core.ub == before).all()
    core.ResetMask()
    aj.Sub(d, a, b, aj.MASK_PLACEHOLDER, 1, aj.BinaryRepeatParams(), is_set_mask=False)
