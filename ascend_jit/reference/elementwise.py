"""Reference model of the element-wise family, written from SPEC-2 sections 2-6 and decisions D29-D43, D48, D49,
D73-D75 alone (it shares no code with ascend_jit/jit/).

Values: float types are numpy float64 arrays holding exact values of the element type; integer types are numpy
object arrays of Python ints. Every lane function takes (dtype, env, operands...) and returns the stored values.

How results are computed (SPEC-2 1.6, D35, D37):
- "exact, rounded once": `round_exact` rounds an exact rational (fractions.Fraction) to the element type with
  round-to-nearest-even, IEEE overflow to inf and gradual underflow, using integer arithmetic only.
- Sums, differences and products of two halves or two bfloat16 are exact in float64; the float64 result of one basic
  operation (+, -, *, /) on two float32 or two halves, rounded once more to the type, equals the correctly rounded
  result (53 >= 2*24+2, Figueroa's bound), so those lanes use float64 and one numpy cast. Everything else
  (multiply-add, transcendentals) goes through Fraction / mpmath and `round_exact`.
- Transcendentals are evaluated with mpmath at 200 bits and rounded once (`round_exact`); the 4.3 table gives every
  special value.
"""
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .model import lane_address, read, write
from .numerics import INT_RANGE, NP_TYPES, SIZES, is_float

HALF_MAX = 65504.0
_FORMATS = {"half": (11, -14, 15), "float": (24, -126, 127), "bfloat16": (8, -126, 127)}  # (precision, emin, emax)
_MAX = {"half": 65504.0, "float": float(np.finfo(np.float32).max), "bfloat16": 3.3895313892515355e38}


@dataclass(frozen=True)
class Env:
    """The call's mode facts, named as SPEC-2 names them."""
    device: str = "atlas-a2"
    sat_half: bool = False        # CTRL[48] = 0 or a device fixed saturating (SPEC D6)
    sat_int: bool = False         # CTRL[53] = 1 on A2/A3/950 (D35)
    algo: str = "INTRINSIC"       # 950 config algorithm (2.3, 4.3)

    @property
    def is_950(self):
        return self.device == "ascend950"

    @property
    def ftz(self):
        """D38: the 950's FTZ algorithms flush subnormal inputs and results."""
        return self.is_950 and self.algo in ("INTRINSIC", "PRECISION_1ULP_FTZ_TRUE", "DIFF_COMPENSATION",
                                             "PRECISION_0ULP_FTZ_TRUE")


# --- rounding ---------------------------------------------------------------------------------------------------------
def round_exact(dtype, q):
    """RN_T of an exact rational (or +-inf / NaN as float): one rounding, ties to even, overflow to +-inf."""
    if isinstance(q, float):
        if math.isnan(q) or math.isinf(q):
            return q
        q = Fraction(q)
    p, emin, emax = _FORMATS[dtype]
    if q == 0:
        return 0.0
    sign = -1.0 if q < 0 else 1.0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    quantum = Fraction(2) ** (e - p + 1)
    n, rem = divmod(a, quantum)
    n = int(n)
    if rem * 2 > quantum or (rem * 2 == quantum and n % 2 == 1):
        n += 1
    r = n * quantum
    if r >= Fraction(2) ** (emax + 1):
        return sign * math.inf
    return sign * float(r)


def _to_type(dtype, values):
    """One numpy cast of float64 values to the type (RNE, overflow to inf), back as float64."""
    with np.errstate(all="ignore"):
        return np.asarray(values, np.float64).astype(NP_TYPES[dtype]).astype(np.float64)


def sat(dtype, env, r):
    """D35: in the saturating half mode +-inf becomes +-65504 and NaN +0 (half only: float and bf16 never)."""
    r = np.asarray(r, np.float64)
    if dtype == "half" and env.sat_half:
        r = np.where(np.isnan(r), 0.0, np.clip(r, -HALF_MAX, HALF_MAX))
    return r


def flush(dtype, env, r):
    """D38 on the 950's FTZ algorithms: a subnormal becomes a zero of the same sign."""
    r = np.asarray(r, np.float64)
    if not env.ftz:
        return r
    tiny = 2.0 ** _FORMATS[dtype][1]
    return np.where(np.abs(r) < tiny, np.copysign(0.0, r), r)


def int_result(dtype, env, v, saturable=True):
    """D35: the exact integer wrapped to the type, or clamped for int16/int32 when CTRL[53] saturates."""
    lo, hi = INT_RANGE[dtype]
    if saturable and env.sat_int and dtype in ("int16", "int32"):
        return np.array([min(max(int(x), lo), hi) for x in np.ravel(v)], dtype=object)
    return np.array([(int(x) - lo) % (hi - lo + 1) + lo for x in np.ravel(v)], dtype=object)


def _basic(dtype, env, r64):
    """A basic operation's float64 value -> the element type: bf16 via float32 (SPEC-2 1.6), RN, D35."""
    if dtype == "bfloat16":
        return _to_type("bfloat16", _to_type("float", r64))
    return sat(dtype, env, _to_type(dtype, r64))


# --- binary and tensor-scalar (SPEC-2 2.3, 3.3) -----------------------------------------------------------------------
def add(dtype, env, x, y):
    if is_float(dtype):
        return _basic(dtype, env, np.asarray(x, np.float64) + y)
    return int_result(dtype, env, x + y)


def sub(dtype, env, x, y):
    if is_float(dtype):
        return _basic(dtype, env, np.asarray(x, np.float64) - y)
    return int_result(dtype, env, x - y)


def mul(dtype, env, x, y):
    if is_float(dtype):
        with np.errstate(all="ignore"):
            return _basic(dtype, env, np.asarray(x, np.float64) * y)
    return int_result(dtype, env, x * y)


def div(dtype, env, x, y):
    """D48: IEEE specials then RN (D37), DAZ/FTZ on the 950's FTZ algorithms (D38); 950 integers truncate,
    x/0 = all ones, MIN/-1 wraps, never saturated."""
    if is_float(dtype):
        x, y = flush(dtype, env, x), flush(dtype, env, y)
        with np.errstate(all="ignore"):
            q = np.asarray(x, np.float64) / y
        return sat(dtype, env, flush(dtype, env, _to_type(dtype, q)))
    out = []
    lo, hi = INT_RANGE[dtype]
    for a, b in zip(np.ravel(x), np.ravel(y)):
        a, b = int(a), int(b)
        if b == 0:
            out.append(-1 if lo < 0 else hi)
        else:
            q = abs(a) // abs(b)
            out.append(q if (a < 0) == (b < 0) else -q)
    return int_result(dtype, env, np.array(out, dtype=object), saturable=False)


def _ordered(x, y, want_max):
    """D41: NaN wins; -0 < +0; otherwise the numeric max/min."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    key_x = np.where(x == 0, np.where(np.signbit(x), -0.5, 0.5) * 1e-300, x)
    key_y = np.where(y == 0, np.where(np.signbit(y), -0.5, 0.5) * 1e-300, y)
    pick_x = key_x >= key_y if want_max else key_x <= key_y
    r = np.where(pick_x, x, y)
    return np.where(np.isnan(x) | np.isnan(y), np.nan, r)


def max_(dtype, env, x, y):
    if is_float(dtype):
        return sat(dtype, env, _ordered(x, y, True))
    return np.array([max(int(a), int(b)) for a, b in zip(np.ravel(x), np.ravel(y))], dtype=object)


def min_(dtype, env, x, y):
    if is_float(dtype):
        return sat(dtype, env, _ordered(x, y, False))
    return np.array([min(int(a), int(b)) for a, b in zip(np.ravel(x), np.ravel(y))], dtype=object)


def and_(dtype, env, x, y):
    lo, hi = INT_RANGE[dtype]
    m = hi - lo
    return int_result(dtype, env, np.array([(int(a) & m) & (int(b) & m) for a, b in zip(np.ravel(x), np.ravel(y))],
                                           dtype=object), saturable=False)


def or_(dtype, env, x, y):
    lo, hi = INT_RANGE[dtype]
    m = hi - lo
    return int_result(dtype, env, np.array([(int(a) & m) | (int(b) & m) for a, b in zip(np.ravel(x), np.ravel(y))],
                                           dtype=object), saturable=False)


def relu(dtype, env, x):
    """D41: max(+0, x); integers max(0, x); uint64 the identity."""
    if is_float(dtype):
        return sat(dtype, env, _ordered(np.zeros_like(np.asarray(x, np.float64)), x, True))
    return np.array([max(int(a), 0) for a in np.ravel(x)], dtype=object)


def add_relu(dtype, env, x, y):
    """SPEC-2 6.3: stage 1 Add (with D35), stage 2 Relu."""
    return relu(dtype, env, add(dtype, env, x, y))


def sub_relu(dtype, env, x, y):
    return relu(dtype, env, sub(dtype, env, x, y))


def leaky_relu(dtype, env, x, s):
    """D42: s*x iff the sign bit of x is set; the identity path also passes SAT."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        prod = _to_type(dtype, x * s)
    return sat(dtype, env, np.where(np.signbit(x), prod, x))


# --- unary (SPEC-2 4.3) -------------------------------------------------------------------------------------------------
def abs_(dtype, env, x):
    if is_float(dtype):
        return sat(dtype, env, np.abs(np.asarray(x, np.float64)))
    return int_result(dtype, env, np.array([abs(int(a)) for a in np.ravel(x)], dtype=object))


_TABLE = {  # SPEC-2 4.3: x -> result for +0, -0, +inf, -inf, negative finite, NaN (None: compute)
    "Exp": (1.0, 1.0, math.inf, 0.0, None, math.nan),
    "Ln": (-math.inf, -math.inf, math.inf, math.nan, math.nan, math.nan),
    "Sqrt": (0.0, -0.0, math.inf, math.nan, math.nan, math.nan),
    "Rsqrt": (math.inf, -math.inf, 0.0, math.nan, math.nan, math.nan),
    "Reciprocal": (math.inf, -math.inf, 0.0, -0.0, None, math.nan),
}


def _special(name, x):
    if math.isnan(x):
        return _TABLE[name][5]
    if x == 0:
        return _TABLE[name][1 if math.copysign(1, x) < 0 else 0]
    if math.isinf(x):
        return _TABLE[name][2 if x > 0 else 3]
    if x < 0:
        return _TABLE[name][4]
    return None


def _exact_fn(name, x):
    """The exact value (200-bit mpmath, then exact Fraction) of f at a finite x with no table entry."""
    if name == "Reciprocal":
        return 1 / Fraction(x)
    if name == "Exp" and abs(x) > 200:  # beyond every type's range: a stand-in that rounds to inf / +0 alike
        return Fraction(2) ** 300 if x > 0 else Fraction(1, 2 ** 300)
    import mpmath  # the oracle's arbitrary precision (test extra); imported here so `import ascend_jit` never needs it
    with mpmath.workprec(200):
        v = {"Exp": mpmath.exp, "Ln": mpmath.log, "Sqrt": mpmath.sqrt,
             "Rsqrt": lambda t: 1 / mpmath.sqrt(t)}[name](mpmath.mpf(x))
    sign, man, exp, _ = v._mpf_
    q = Fraction(int(man)) * Fraction(2) ** int(exp)
    return -q if sign else q


def transcendental(name, dtype, env, x):
    """D37: documented specials, else the exact result rounded once; D38 flush on the 950's FTZ algorithms; D49
    domain of FAST_INVERSE / PRECISION_0ULP_FTZ_FALSE; D40/D75 Rsqrt INTRINSIC on the 950 = Div(1, Sqrt(x))."""
    x = flush(dtype, env, x)
    d49 = env.is_950 and env.algo in ("FAST_INVERSE", "PRECISION_0ULP_FTZ_FALSE")
    out = []
    for v in np.ravel(x):
        v = float(v)
        s = _special(name, v)
        if s is not None:
            out.append(s)
        elif d49 and name in ("Sqrt", "Rsqrt") and v > 2.0 ** 126:
            out.append(0.0 if name == "Sqrt" else math.inf)
        elif name == "Rsqrt" and env.is_950 and env.algo == "INTRINSIC":
            root = float(flush(dtype, env, round_exact(dtype, _exact_fn("Sqrt", v))))
            out.append(round_exact(dtype, 1 / Fraction(root)) if root != 0 else math.inf)
        else:
            out.append(round_exact(dtype, _exact_fn(name, v)))
    return sat(dtype, env, flush(dtype, env, np.array(out, np.float64)))


def exp(dtype, env, x):
    return transcendental("Exp", dtype, env, x)


def ln(dtype, env, x):
    return transcendental("Ln", dtype, env, x)


def sqrt(dtype, env, x):
    return transcendental("Sqrt", dtype, env, x)


def rsqrt(dtype, env, x):
    return transcendental("Rsqrt", dtype, env, x)


def reciprocal(dtype, env, x):
    """Floats: the 4.3 table and 1/x rounded once; 950 int64/uint64: Div(1, x) under D48."""
    if is_float(dtype):
        return transcendental("Reciprocal", dtype, env, x)
    return div(dtype, env, np.array([1] * np.size(x), dtype=object), x)


# --- multiply-add (SPEC-2 6.3, D39, D40) --------------------------------------------------------------------------------
def _fma_one(dtype, env, a, b, c, fused):
    """a*b + c with IEEE specials; fused: one rounding of the exact value; otherwise D39's stage 1 first."""
    a, b, c = float(a), float(b), float(c)
    product_negative = (math.copysign(1.0, a) < 0) != (math.copysign(1.0, b) < 0)
    if math.isnan(a) or math.isnan(b) or ((math.isinf(a) or math.isinf(b)) and (a == 0 or b == 0)):
        p = math.nan
    elif math.isinf(a) or math.isinf(b):
        p = math.copysign(math.inf, a) * math.copysign(1.0, b)
    else:
        p = Fraction(a) * Fraction(b)
        if not fused and math.isinf(round_exact(dtype, p)):
            p = round_exact(dtype, p)
    if not fused and dtype == "half" and env.sat_half and isinstance(p, float):
        product_negative = False if math.isnan(p) else p < 0  # NaN -> +0, +-inf -> +-MAX
        p = Fraction(0) if math.isnan(p) else Fraction(math.copysign(HALF_MAX, p))
    if isinstance(p, float) or math.isinf(c) or math.isnan(c):
        return float(p) + c
    if p == 0 and c == 0:  # IEEE: -0 only when both the product and the addend are -0
        return -0.0 if product_negative and math.copysign(1.0, c) < 0 else 0.0
    return round_exact(dtype, p + Fraction(c))


def _fma(dtype, env, a, b, c, fused):
    with np.errstate(all="ignore"):
        r = np.array([_fma_one(dtype, env, x, y, z, fused)
                      for x, y, z in zip(np.ravel(a), np.ravel(b), np.ravel(c))], np.float64)
    return sat(dtype, env, r)


def _int_fma(dtype, env, a, b, c):
    return int_result(dtype, env, np.array([int(x) * int(y) + int(z) for x, y, z in
                                            zip(np.ravel(a), np.ravel(b), np.ravel(c))], dtype=object),
                      saturable=False)


def mul_add_dst(dtype, env, src0, src1, dst):
    """dst = src0*src1 + dst: 950 one rounding (fma); elsewhere D39; a half source with a float dst is always one
    rounding (the product is exact); integers wrap."""
    if not is_float(dtype):
        return _int_fma(dtype, env, src0, src1, dst)
    return _fma(dtype, env, src0, src1, dst, env.is_950)


def fused_mul_add(dtype, env, src0, src1, dst):
    """dst = src0*dst + src1 (same type)."""
    if not is_float(dtype):
        return _int_fma(dtype, env, src0, dst, src1)
    return _fma(dtype, env, src0, dst, src1, env.is_950)


def axpy(dtype, env, src, scalar, dst):
    """dst = scalar*src + dst; 950 bfloat16: Mul then Add, each RN_bf16(RN_float(.)) (D40)."""
    if not is_float(dtype):
        return _int_fma(dtype, env, src, scalar, dst)
    if dtype == "bfloat16":
        with np.errstate(all="ignore"):
            prod = _basic("bfloat16", env, np.asarray(src, np.float64) * scalar)
            return _basic("bfloat16", env, prod + np.asarray(dst, np.float64))
    return _fma(dtype, env, src, scalar, dst, env.is_950)


def mixed_mul_add(env, a, b, c):
    """Half factors, float addend and dst (MulAddDst, Axpy; SPEC-2 6.3): RN_float(a*b + c), never saturated."""
    return _fma("float", Env(env.device), a, b, c, True)


# --- walkers: where each lane lives (SPEC-2 1.3, D33) ------------------------------------------------------------------
def _read_values(ub, dtype, addrs):
    vals = [read(ub, dtype, a) for a in addrs]
    return np.array(vals, np.float64) if is_float(dtype) else np.array(vals, dtype=object)


def _write_values(ub, dtype, addrs, values):
    for a, v in zip(addrs, np.ravel(values)):
        write(ub, dtype, a, float(v) if is_float(dtype) else int(v))


def run_count(ub, fn, dtypes, addrs, count, scalar=None):
    """Elements 0..count-1 of every operand; dtypes/addrs list dst first. fn(values of the sources in order,
    [scalar], [dst values when dst is read]) -> dst values. `scalar` is a Python value of the source type."""
    cols = [_read_values(ub, d, [a + k * SIZES[d] for k in range(count)]) for d, a in zip(dtypes, addrs)]
    out = fn(cols)
    _write_values(ub, dtypes[0], [addrs[0] + k * SIZES[dtypes[0]] for k in range(count)], out)


def run_high_dim(ub, fn, dtypes, addrs, lanes, repeat, blks, reps, last_lanes=None):
    """Per repeat: every active lane of every operand read (the register), fn, then the dst lanes written;
    lanes count by the wider type (D33); masked lanes untouched (SPEC 2.3)."""
    for i in range(repeat):
        act = list(range(last_lanes)) if (last_lanes is not None and i == repeat - 1) else list(lanes)
        cols = [_read_values(ub, d, [lane_address(a, SIZES[d], i, j, b, r) for j in act])
                for d, a, b, r in zip(dtypes, addrs, blks, reps)]
        out = fn(cols)
        _write_values(ub, dtypes[0], [lane_address(addrs[0], SIZES[dtypes[0]], i, j, blks[0], reps[0]) for j in act],
                      out)


def fill_count(ub, dtype, dst, raw, count):
    """Duplicate count form (SPEC-2 5.1): elements 0..count-1 receive the bytes `raw` of one element (bit copies: no
    arithmetic, no saturation, a NaN keeps its payload)."""
    size = SIZES[dtype]
    for k in range(count):
        ub[dst + k * size:dst + (k + 1) * size] = np.frombuffer(raw, np.uint8)


def fill_high_dim(ub, dtype, dst, raw, lanes, repeat, blk, rep):
    """Duplicate high-dim form: every active lane of every repeat receives the bytes `raw`."""
    size = SIZES[dtype]
    for i in range(repeat):
        for j in lanes:
            a = lane_address(dst, size, i, j, blk, rep)
            ub[a:a + size] = np.frombuffer(raw, np.uint8)


def brcb(ub, dtype, dst, src, repeat, dst_blk, dst_rep):
    """SPEC-2 5.2: block (i, j) at dst + (i*dstRep + j*dstBlk)*32 B holds 32/sizeof(T) copies of src[8i + j]."""
    size = SIZES[dtype]
    for i in range(repeat):
        for j in range(8):
            raw = bytes(ub[src + (8 * i + j) * size: src + (8 * i + j + 1) * size])
            base = dst + (i * dst_rep + j * dst_blk) * 32
            ub[base:base + 32] = np.frombuffer(raw * (32 // size), np.uint8)


# --- Copy (not in the SPECs: the devkit pages "Copy（UBToUB掩码式高维数据搬运）" and "Copy（UBToUB连续数据搬运）") ---------
def copy_count(ub, dtype, dst, src, count):
    """The 950's count form: elements 0..count-1 of src to dst, "格式和内容保持不变": their bytes, never a value."""
    size = SIZES[dtype]
    raw = bytes(ub[src:src + count * size])
    ub[dst:dst + count * size] = np.frombuffer(raw, np.uint8)


def copy_high_dim(ub, dtype, dst, src, lanes, repeat, dst_stride, src_stride, dst_repeat_size, src_repeat_size,
                  counter=None):
    """The mask forms: per repeat, the bytes of every active lane of src (block strides srcStride, repeat i at
    i * srcRepeatSize blocks) are read, then written to the same lanes of dst (dstStride, dstRepeatSize); masked
    lanes keep dst. counter: counter mode, where the page's mask is the element count of each repeat and the repeat
    count applies: elements 0..counter-1 of every repeat, ceil(counter * sizeof(T) / 32) blocks of it (more than 8
    when the count passes 256 bytes), element e in block e // (32 / sizeof(T))."""
    size = SIZES[dtype]
    active = list(range(counter)) if counter is not None else list(lanes)
    for i in range(repeat):
        raws = [bytes(ub[a:a + size]) for a in
                (lane_address(src, size, i, j, src_stride, src_repeat_size) for j in active)]
        for j, raw in zip(active, raws):
            a = lane_address(dst, size, i, j, dst_stride, dst_repeat_size)
            ub[a:a + size] = np.frombuffer(raw, np.uint8)


# --- ShiftLeft, ShiftRight, Not (not in the SPECs: the devkit pages M/逻辑计算/ShiftLeft.md, ShiftRight.md, Not.md) --
def _width_and_sign(dtype):
    lo, hi = INT_RANGE[dtype]
    return (hi - lo).bit_length(), lo < 0


def shift_left(dtype, env, x, s):
    """ShiftLeft.md: unsigned types shift logically (the top bits dropped, zeros in); signed types keep the sign bit
    and drop the bit below it ("次高位被丢弃": int16 1010101010101010 << 1 = 1101010101010100); an amount of the width
    or more gives 0 (the 950 page; docs/decisions.md)."""
    width, signed = _width_and_sign(dtype)
    out = []
    for a, n in zip(np.ravel(x), np.ravel(s)):
        a, n = int(a), int(n)
        if n >= width:
            out.append(0)
            continue
        pattern = (a << n) % (1 << width)
        if signed:
            pattern = pattern % (1 << (width - 1)) + ((1 << (width - 1)) if a < 0 else 0)
        out.append(pattern - (1 << width) if signed and pattern >> (width - 1) else pattern)
    return np.array(out, dtype=object)


def shift_right(dtype, env, x, s):
    """ShiftRight.md: signed types shift arithmetically (floor division by 2**n: -1 or 0 once n reaches the width),
    unsigned types logically (0 once n reaches the width)."""
    return np.array([int(a) >> int(n) for a, n in zip(np.ravel(x), np.ravel(s))], dtype=object)


def shift_right_round(dtype, env, x, s):
    """ShiftRight.md roundEn (A2/A3, int16/int32): the arithmetic shift plus bit n-1 of the element (the page's
    17 >> 5 = 0 + 1), i.e. x / 2**n rounded half up; n = 0 leaves x."""
    out = []
    for a, n in zip(np.ravel(x), np.ravel(s)):
        a, n = int(a), int(n)
        out.append(a if n == 0 else (a >> n) + ((a >> (n - 1)) & 1))
    return np.array(out, dtype=object)


def not_count(ub, dtype, dst, src, count):
    """Not.md, count form: elements 0..count-1 of dst get the bitwise complement of src's (a half or float element's
    bits too: a NaN's payload inverted like any other bits)."""
    size = SIZES[dtype]
    raw = bytes(255 - b for b in ub[src:src + count * size])
    ub[dst:dst + count * size] = np.frombuffer(raw, np.uint8)


def not_high_dim(ub, dtype, dst, src, lanes, repeat, dst_blk, src_blk, dst_rep, src_rep, last_lanes=None):
    """Not.md, high-dim forms: per repeat every active lane of src is read (the register), then the complemented
    bytes are written to the same lanes of dst; masked lanes keep dst. last_lanes: counter mode's last repeat."""
    size = SIZES[dtype]
    for i in range(repeat):
        act = list(range(last_lanes)) if (last_lanes is not None and i == repeat - 1) else list(lanes)
        raws = [bytes(255 - b for b in ub[a:a + size]) for a in
                (lane_address(src, size, i, j, src_blk, src_rep) for j in act)]
        for j, raw in zip(act, raws):
            a = lane_address(dst, size, i, j, dst_blk, dst_rep)
            ub[a:a + size] = np.frombuffer(raw, np.uint8)
