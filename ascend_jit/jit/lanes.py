"""Lane functions of the element-wise family (SPEC-2 sections 2-6): one function per instruction, on decoded values.

Float lanes take float32 values (every half, bfloat16 and float value is exact in float32) and return a float32
that the store rounds once more to the element type. That second rounding is innocuous because each lane returns
either the correctly rounded float32 of a single basic operation of two values of a type with at most 11
significant bits (float32 has 24 >= 2*11+2 bits: Figueroa's double-rounding bound, as SPEC.md's Add), or a value
rounded to odd (`to_f32_odd`), which a later round-to-nearest-even to half/bfloat16 turns into the correctly rounded
result of the exact value. Integer lanes take and return int64 (the exact result); `int_stage` wraps or clamps it
to the element type (SPEC-2 D35).

Float Div divides the float32 values in float32 (one IEEE rounding). Float Sqrt and Reciprocal compute in float64 and
the store rounds to float32: innocuous too (53 >= 2*24+2, Figueroa's bound for division and square root). Directly:
let a, b be float32 values (A 2**p, B 2**q with integers A, B < 2**24) and m = M 2**e (M odd, M < 2**25) a float32
rounding midpoint, of the normal or the subnormal grid or the overflow threshold. A nonzero a - m b is a multiple of
2**min(p, e + q), so a/b is either m (then exact in float64) or at least 2**-50 (relative) from it: 1/A > 2**-24,
1/(M B) > 2**-49. A nonzero a - m*m (always: M*M is odd with 49 or more bits) likewise puts sqrt(a) more than
2**-52 from m. float64's single rounding (2**-53 relative) never crosses m, so the float32 rounding of the double is
the exact value's. Rsqrt rounds twice and needs more: see `rsqrt_lane`.
"""
import decimal
import math

import numpy as np
from numba import njit

from .numerics import (KIND_FLOAT, KIND_HALF, KIND_INT16, KIND_INT32, KIND_INT8, KIND_INT64, KIND_UINT64,
                       bf16_bits_to_f32, f32_bits, f32_from_bits, f32_to_bf16_bits, f64_bits, f64_from_bits, internal,
                       kind_size, round_half)
from .lowered import larger, smaller

HALF_MIN_NORMAL = np.float32(2.0 ** -14)
F32_MIN_NORMAL = np.float32(2.0 ** -126)
SQRT_DOMAIN_LIMIT = np.float32(2.0 ** 126)  # SPEC-2 D49: "input > bound" means x > 2**126


# --- roundings -----------------------------------------------------------------------------------------------------
@internal(error_model="numpy")
def to_f32_odd(x):
    """float64 -> float32 rounded to odd (exact values unchanged; overflow to MAX): a later RNE to a type with at
    most 22 significant bits then rounds the original value once."""
    r = np.float32(x)
    if x != x or np.float64(r) == x:
        return r
    b = f32_bits(r)
    if abs(np.float64(r)) > abs(x):  # rounded away from zero (possibly to inf): step back towards zero
        b -= np.uint32(1)
    return f32_from_bits(b | np.uint32(1))


@internal(error_model="numpy")
def sum_to_f32_odd(s, err):
    """to_f32_odd of the exact s + err, where s = RN64(exact) and err the exact remainder (|err| <= ulp64(s)/2).
    Most lanes return at the first test (s off the float32 grid), which the half / bfloat16 multiply-add lanes,
    unvectorised either way, keep (review65: their round-to-odd in float64 first made them 40-55 % slower)."""
    r = to_f32_odd(s)
    if err == 0 or np.float64(r) != s:
        return r  # s off the float32 grid: the exact value lies in the same float32 interval as s
    b = f32_bits(r)
    if (err > 0) == (s > 0):  # exact is further from zero than the grid point s
        return f32_from_bits(b | np.uint32(1))
    return f32_from_bits((b - np.uint32(1)) | np.uint32(1))


@internal(error_model="numpy")
def sum_to_odd(s, err):
    """The exact s + err rounded to odd in float64 (s = RN64(exact), err the exact remainder): s when exact or odd,
    else its neighbour on err's side. Rounding that to float32 (np.float32: 53 >= 24 + 2 bits) rounds the exact
    value once (round-to-odd, Boldo and Melquiond), with no branch on the float32 grid: the float multiply-add loops
    vectorise (a float32 tie, the overflow midpoint and a subnormal result need no case of their own: the odd
    float64 stays on the exact value's side of every float32 rounding boundary)."""
    b = f64_bits(s)
    step = np.int64(1) if (err > 0) == (s > 0) else np.int64(-1)   # away from zero when err has s's sign
    return f64_from_bits(b + step) if err != 0 and (b & 1) == 0 else s


@internal(error_model="numpy")
def two_sum(a, b):
    """Knuth's TwoSum: s = RN64(a + b) and the exact error a + b - s."""
    s = a + b
    if s - s != 0:  # inf or NaN: no error term
        return s, 0.0
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    return s, err


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def narrow(kind, x):
    """A float64 result -> the float32 the store rounds to `kind` (RNE for float, odd for half/bfloat16)."""
    if kind == KIND_FLOAT:
        return np.float32(x)
    return to_f32_odd(x)


@internal(error_model="numpy")
def stage_round(kind, x, sat_half):
    """Round a float32 to the stage type (half: RNE + overflow mode, SPEC-2 D35; bfloat16: RNE; float: as is)."""
    if kind == KIND_HALF:
        return round_half(x, sat_half)
    if kind == KIND_FLOAT:
        return x
    return bf16_bits_to_f32(f32_to_bf16_bits(x))


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def flush(kind, x):
    """SPEC-2 D38: a subnormal of the element type becomes a zero of the same sign."""
    tiny = F32_MIN_NORMAL if kind == KIND_FLOAT else (HALF_MIN_NORMAL if kind == KIND_HALF else F32_MIN_NORMAL)
    if abs(x) < tiny:
        return np.float32(math.copysign(0.0, x))
    return x


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def signbit(x):
    return math.copysign(1.0, x) < 0


@internal(error_model="numpy")
def int_stage(kind, v, saturate):
    """SPEC-2 D35: wrap the exact integer to the type, or clamp it when saturation is on (int16/int32 only). The
    type's facts are arithmetic on its width, not a branch per type: a loop over this lane compiles one body
    (issue 20)."""
    bits = 8 * kind_size(kind)
    if bits == 64:
        return v  # 64-bit: int64 arithmetic already wrapped
    top = np.int64(1) << (bits - 1)
    if kind == KIND_INT8 or kind == KIND_INT16 or kind == KIND_INT32:
        if saturate and bits > 8:
            return smaller(larger(v, -top), top - 1)
        return ((v + top) & (2 * top - 1)) - top
    return v & (2 * top - 1)


# --- binary and tensor-scalar lanes (SPEC-2 2.3, 3.3, 6.3) ----------------------------------------------------------
@internal(error_model="numpy")
def add_lane(x, y):
    return x + y


@internal(error_model="numpy")
def sub_lane(x, y):
    return x - y


@internal(error_model="numpy")
def mul_lane(x, y):
    return x * y


@internal(error_model="numpy")
def div_lane(x, y):
    """IEEE division (D48): x/+-0 = +-inf by the XOR sign, 0/0 = NaN, x/+-inf = +-0, inf/inf = NaN."""
    return x / y


@internal(error_model="numpy")
def max_lane(x, y):
    """D41: NaN if either is NaN; max(-0, +0) = +0 in either order. Non-short-circuit operators and selects, so
    the loops calling it vectorise."""
    pick_x = (x > y) | ((x == y) & (math.copysign(1.0, y) < 0))
    r = x if pick_x else y
    return x + y if (x != x) | (y != y) else r


@internal(error_model="numpy")
def min_lane(x, y):
    """D41: NaN if either is NaN; min(-0, +0) = -0 in either order (selects, as max_lane)."""
    pick_x = (x < y) | ((x == y) & (math.copysign(1.0, x) < 0))
    r = x if pick_x else y
    return x + y if (x != x) | (y != y) else r


@internal(error_model="numpy")
def relu_lane(x):
    """D41: max(+0, x): Relu(-0) = +0, Relu(NaN) = NaN."""
    if x > 0 or x != x:
        return x
    return np.float32(0.0)


@internal(error_model="numpy")
def leaky_relu_lane(x, s):
    """D42: the multiply path iff the sign bit of x is set."""
    return s * x if signbit(x) else x


@internal(error_model="numpy")
def int_max_lane(x, y):
    return larger(x, y)


@internal(error_model="numpy")
def int_min_lane(x, y):
    return smaller(x, y)


@internal(error_model="numpy")
def unsigned_bias(kind):
    """What uint64 bit patterns held in int64 are xor-ed with to compare as signed values in their unsigned order
    (the sign bit flipped); 0 for every other kind."""
    return np.int64(-9223372036854775808) if kind == KIND_UINT64 else np.int64(0)


@internal(error_model="numpy")
def int_div_lane(x, y):
    """D48 (950): truncated quotient; x/0 = all ones; MIN/-1 = MIN (the negation wraps in the stage)."""
    if y == 0:
        return -1
    if y == -1:
        return 0 - x
    q = x // y
    if q < 0 and q * y != x:
        q += 1
    return q


@internal(error_model="numpy")
def uint64_div_lane(x, y):
    """D48 for uint64 (on the unsigned values): x/0 = MAX."""
    if y == 0:
        return np.uint64(0xFFFFFFFFFFFFFFFF)
    return x // y


@internal(error_model="numpy")
def shift_lane(x, s, bits, signed, right, rounding):
    """ShiftLeft / ShiftRight (devkit M/逻辑计算/ShiftLeft.md, ShiftRight.md) of the int64 value x of a `bits`-wide
    lane by s >= 0 (one lane function for both, a single compile unit, issue 20). Left: unsigned lanes shift
    logically; a signed lane keeps its sign bit and drops the bit below it (the page's int16 1010101010101010 << 1 =
    1101010101010100); s >= bits gives 0. Right: signed lanes shift arithmetically (the sign replicated: -1 or 0 once
    s reaches the width), unsigned lanes logically (a uint64 lane's x is its bit pattern); `rounding` (roundEn, signed
    int16/int32) adds bit s-1 of x: x / 2**s rounded half up (the page's 17 >> 5 = 1). docs/decisions.md."""
    t = smaller(s, np.int64(63))
    if right and signed:
        r = x >> t
        return r + ((x >> (t - 1)) & 1) if rounding and t > 0 else r
    if s >= bits:
        return np.int64(0)
    if right:
        return np.int64(np.uint64(x) >> np.uint64(s))
    r = x << s
    if signed:
        high = np.int64(-1) << (bits - 1)  # the sign bit and the sign extension above it
        return (r & ~high) | (x & high)
    return r


# --- unary lanes (SPEC-2 4.3): float64 results, special values of the 4.3 table ------------------------------------
@internal(error_model="numpy")
def abs_lane(x):
    return abs(x)


# SPEC-2 D37 wants Exp and Ln correctly rounded from the exact value. The C library's exp and log are within 1
# double ulp, so their double rounds to the correct float32 unless the exact value lies within a few double ulps of a
# float32 rounding midpoint: there the double can land on the other side (or on the midpoint, where round-to-nearest-
# even takes the even side), e.g. glibc's ln(9.472636, 0x41178FEB) gave 0x400FE5E8, the correct result is 0x400FE5E7.
# The inputs whose exact value lies within 4 double ulps of a float32 midpoint are tabled (sorted float32 bits, and
# their correctly rounded float32 results); a lane whose double lies within _MIDPOINT_GUARD = 8 double ulps of a
# midpoint looks its input up (`hard_case_or`). With any exp/log less than 4 ulps off, every other lane rounds
# correctly: a double more than 8 ulps from each midpoint has the exact value on its side, and an untabled input's
# exact value is more than 4 ulps from each midpoint. So the results do not depend on the machine's libm. The tables
# come from a float64 sweep of every float32 input (numpy's exp/log; midpoints at low 29 significand bits of 2**28,
# and for exp below 2**-126 the subnormal float32 grid, odd multiples of 2**-150) keeping the inputs within 64
# double ulps of a midpoint, then mpmath at 300 bits on those. Ln (session 13; session 14's sweep re-derived it): 486
# candidates, 35 within 4. Exp (session 14): 122 candidates, 5 within 4, the nearest 1.27 ulps (exp(-14.56709,
# 0xC16912CD)); none with an overflowing result, and none with a subnormal one, whose grid the guard test does not
# see (the nearest is 39 ulps away, so those lanes round correctly without a lookup). No half value is tabled (each
# has more than 11 significant bits), and half results need no table: over all 65536 halves the exact exp, log and
# 1/sqrt lie at least 5e7 double ulps from every half rounding midpoint (mpmath), so the double rounded to odd then
# to half is correct.
_MIDPOINT_GUARD = 8


@njit(cache=True, error_model="numpy", inline="always")
def near_f32_midpoint(y, guard):
    """The double y lies within `guard` double ulps of a float32 rounding midpoint (float32-normal y: the midpoints
    are the doubles whose low 29 significand bits are 2**28)."""
    return abs((f64_bits(y) & ((1 << 29) - 1)) - (1 << 28)) <= guard


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def hard_case_or(x, y, hard_x, hard_y):
    """y, the double of f(x) from the C library, or x's correctly rounded float32 when y is near a float32 midpoint
    and x is one of the tabled inputs hard_x (see above)."""
    if near_f32_midpoint(y, _MIDPOINT_GUARD):
        bits = f32_bits(np.float32(x))
        for k in range(hard_x.size):  # a scan of the few tabled inputs: np.searchsorted compiled numba's generic
            if hard_x[k] == bits:      # sort comparisons into every first Exp/Ln call (0.46 s; issue 20)
                return np.float64(f32_from_bits(hard_y[k]))
    return y


_EXP_HARD_X = np.array([0x377EFF81, 0xB3000000, 0xBAE0E25C, 0xBBF0EDF1, 0xC16912CD], np.uint32)
_EXP_HARD_Y = np.array([0x3F800080, 0x3F800000, 0x3F7F8FA7, 0x3F7E1FE9, 0x34FD331B], np.uint32)


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def exp_lane(x):
    if x != x:
        return np.float64(x)
    if x > 709.0:  # near or past float64's range (and every element type's): plain Python's math.exp would raise
        return math.inf
    if math.isinf(x):
        return 0.0
    return hard_case_or(x, math.exp(np.float64(x)), _EXP_HARD_X, _EXP_HARD_Y)


# exp_lane over a chunk of float32 lanes, vectorised (table-driven, as fdlibm-style expf): x = (64 e + j) ln2/64 + t,
# k = 64 e + j = round(64 x / ln 2) (the 1.5 * 2**52 shifter leaves k in the low bits of a double), t = x - k ln2/64
# by Cody-Waite (_EXP_LN2_64_HI keeps 32 significant bits, so k * hi is exact for |k| < 2**21 and x - k * hi is
# exact), so |t| <= ln2/128 and exp(x) = 2**e * T[j] * exp(t), T[j] = 2**(j/64) correctly rounded, exp(t) = 1 + s by
# its Taylor polynomial of degree 5. Error of the double p against exp(x), in ulps of p: truncation
# t**6/720 * e**|t| < 3.5e-17 relative (0.32 ulp), T[j] 0.5 ulp relative to T (at most 1 ulp of p), the sum T + T*s
# 0.5 ulp, the reduction and the polynomial's roundings < 0.03 ulp: under 2 ulps. So p rounds to the correctly
# rounded float32, which exp_lane returns, unless p lies within 2 double ulps of a float32 rounding midpoint (low 29
# significand bits near 2**28): those lanes (guard 16 ulps, probability ~6e-8), and x outside the normal-result
# range, take exp_lane itself. One loop of plain arithmetic, the bits through bitcasts, T by a gather: LLVM
# vectorises it. tests/test_exp_float_fast.py compares the two over millions of lanes by default and over every
# float32 when slow.
def _exp_table():
    """ln2/64 as hi (32 significant bits) + lo, and 2**(j/64) correctly rounded, from 60-digit decimals."""
    context = decimal.Context(prec=60)
    ln2_64 = context.divide(context.ln(decimal.Decimal(2)), 64)
    hi = float(f64_from_bits(f64_bits(float(ln2_64)) & ~((1 << 21) - 1)))
    lo = float(context.subtract(ln2_64, decimal.Decimal(hi)))
    table = np.array([float(context.power(2, context.divide(j, 64))) for j in range(64)])
    return hi, lo, table


_EXP_LN2_64_HI, _EXP_LN2_64_LO, _EXP_2_J64 = _exp_table()
_EXP_64_OVER_LN2 = 64.0 / math.log(2.0)
_SHIFTER = 6755399441055744.0  # 1.5 * 2**52: v + _SHIFTER rounds v to an integer held in the low significand bits
_SHIFTER_BITS = 0x4338000000000000
_EXP_GUARD = 16
_EXP_LO, _EXP_HI = -87.0, 88.0  # results stay normal float32, away from overflow


@njit(cache=True, error_model="numpy", inline="always")
def _exp_table_double(v):
    """exp(v) within 2 double ulps for -87 < v < 88 (see above)."""
    kd = v * _EXP_64_OVER_LN2 + _SHIFTER
    k_bits = f64_bits(kd) - _SHIFTER_BITS   # k
    k = kd - _SHIFTER
    t = (v - k * _EXP_LN2_64_HI) - k * _EXP_LN2_64_LO
    s = t + t * t * (0.5 + t * (1.0 / 6.0 + t * (1.0 / 24.0 + t * (1.0 / 120.0))))
    table = _EXP_2_J64[k_bits & 63]
    return (table + table * s) * f64_from_bits(((k_bits >> 6) + 1023) << 52)


@njit(cache=True, error_model="numpy", inline="always")
def _exp_near_tie(v):
    """True where the fast double of exp(v) cannot be trusted to round like exp_lane (or v is out of its range)."""
    inside = v > _EXP_LO and v < _EXP_HI
    low = f64_bits(_exp_table_double(v if inside else 0.0)) & ((1 << 29) - 1)
    return (not inside) or abs(low - (1 << 28)) <= _EXP_GUARD


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def exp_float_run(x, r, m):
    """r[i] = narrow(KIND_FLOAT, exp_lane(x[i])) for i < m."""
    near_ties = 0
    for i in range(m):
        v = np.float64(x[i])
        inside = v > _EXP_LO and v < _EXP_HI
        p = _exp_table_double(v if inside else 0.0)
        near_ties += (not inside) or abs((f64_bits(p) & ((1 << 29) - 1)) - (1 << 28)) <= _EXP_GUARD
        r[i] = np.float32(p)
    if near_ties:  # rare (and every out-of-range lane): find them again, take the exact lane
        for i in range(m):
            if _exp_near_tie(np.float64(x[i])):
                r[i] = np.float32(exp_lane(x[i]))


_LN_HARD_X = np.array([
    0x064CB44B, 0x07C060FA, 0x0DC8BBA4, 0x0F61FF63, 0x111C87F8, 0x145CB6D4, 0x16C5EE7A, 0x1A8446CB, 0x1F116AB8,
    0x2423C085, 0x28E3FA26, 0x29E6126B, 0x29FD22F8, 0x2C4C24B7, 0x2E492984, 0x38DCBE38, 0x3BF86EF0, 0x3C413D3A,
    0x41178FEB, 0x464D5B2B, 0x4665A9A6, 0x4C5D65A5, 0x4D604EBE, 0x4E85F412, 0x54AF989D, 0x5D800341, 0x5EE8984E,
    0x5F64C24A, 0x62B467BA, 0x65D890D3, 0x66A8C860, 0x66ABBD63, 0x6D1F23EB, 0x6F31A8EC, 0x79E7EC37], np.uint32)
_LN_HARD_Y = np.array([
    0xC29E7C1A, 0xC29A733A, 0xC289BAC4, 0xC2855565, 0xC28085DF, 0xC26F092F, 0xC2619BD4, 0xC24D0A45, 0xC233B53E,
    0xC21781D1, 0xC1FA75E0, 0xC1EF4C02, 0xC1EE8859, 0xC1D48710, 0xC1BE76EE, 0xC1128BA4, 0xC09C399E, 0xC08E158F,
    0x400FE5E7, 0x4117BCF1, 0x41198725, 0x418F034B, 0x419A352C, 0x41A6B811, 0x41EB6D3C, 0x42265B10, 0x422E4A21,
    0x4230FEE2, 0x42437434, 0x4254D1F9, 0x42595E46, 0x4259700E, 0x427D2D35, 0x42845A89, 0x42A1FFB7], np.uint32)


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def ln_lane(x):
    if x != x or x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    if math.isinf(x):
        return math.inf
    return hard_case_or(x, math.log(np.float64(x)), _LN_HARD_X, _LN_HARD_Y)


@internal(error_model="numpy")
def sqrt_lane(x, d49):
    """+-0 -> +-0, x < 0 or NaN -> NaN, +inf -> +inf; D49: finite x > 2**126 -> +0."""
    if x != x or x < 0:
        return math.nan
    if x == 0 or math.isinf(x):
        return np.float64(x)
    if d49 and x > SQRT_DOMAIN_LIMIT:
        return 0.0
    return math.sqrt(np.float64(x))


@internal(error_model="numpy")
def rsqrt_special(x, d49):
    """The 4.3 table (and D49) for Rsqrt; NaN-free finite positive inputs return -1 (compute them)."""
    if x != x or x < 0:
        return math.nan
    if x == 0:
        return -math.inf if signbit(x) else math.inf
    if math.isinf(x):
        return 0.0
    if d49 and x > SQRT_DOMAIN_LIMIT:
        return math.inf
    return -1.0


# Rsqrt: y = 1.0 / sqrt(x) in float64 rounds twice (sqrt, then the division), so |y - x**-0.5| < 2 double ulps, and
# the exact value, unlike a quotient's or a square root's (module docstring), can lie arbitrarily close to a float32
# rounding midpoint m (1 - m*m*x is a 74-bit dyadic). A y within _MIDPOINT_GUARD double ulps of m is settled exactly:
# x**-0.5 > m iff m*m*x < 1. m has 25 significant bits, so m*m is exact (50 bits; with y in [2**-64, 2**75) no
# overflow or underflow); its top 29 bits hi times x (24 bits) is exact, as is (m*m - hi) * x (at most 21 + 24 bits);
# hi * x lies in [1/2, 2], so 1 - hi * x is exact (Sterbenz), and the rounded difference of the two exact terms has
# the sign of 1 - m*m*x, never zero (m*m*x = 1 would need the odd 25-bit significand of m squared times x's to be a
# power of two). The lane returns the double next to m on the exact value's side: the store's round-to-nearest gives
# the correct float32, and a half result's round-to-odd, which only sees y's float32 interval, is unchanged. Every
# other y is more than 8 ulps from each midpoint and within 2 of the exact value: it rounds correctly. For the record
# (float64 sweep of the float32 inputs in [1, 4), candidates within 64 double ulps of a midpoint, mpmath at 300 bits;
# y(4x) = y(x)/2 exactly and subnormal inputs have a normal one's significand, so [1, 4) shows every input): one
# input class lies within 4 double ulps of a midpoint, x = 0x403A18E3 (2.907769) times 4**k, 1.41 ulps below it
# (y is 1 ulp below, so even the plain double rounded correctly); the next is 11 ulps away.
@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def rsqrt_lane(x, d49):
    """Correctly rounded 1/sqrt(x) (D37; the composed 950 INTRINSIC form is handled by the caller, D40/D75)."""
    s = rsqrt_special(x, d49)
    if s != -1.0:
        return s
    return settle_rsqrt(np.float64(x), 1.0 / math.sqrt(np.float64(x)))


@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def settle_rsqrt(v, y):
    """y, a double within 2 ulps of v**-0.5 (v a positive float32 value), or, when y lies near a float32 rounding
    midpoint, the double next to that midpoint on the exact value's side (see above)."""
    if not near_f32_midpoint(y, _MIDPOINT_GUARD):
        return y
    mid_bits = (f64_bits(y) & ~((1 << 29) - 1)) | (1 << 28)
    mid = f64_from_bits(mid_bits)
    square = mid * mid
    hi = f64_from_bits(f64_bits(square) & ~((1 << 24) - 1))
    below_one = (1.0 - hi * v) - (square - hi) * v  # the sign of 1 - mid*mid*v
    return f64_from_bits(mid_bits + 1 if below_one > 0 else mid_bits - 1)


@internal(error_model="numpy")
def reciprocal_lane(x):
    """+-0 -> +-inf, +-inf -> +-0, NaN -> NaN, else 1/x (one basic operation: float64 then the store's rounding)."""
    return 1.0 / np.float64(x) if x != 0 else math.copysign(math.inf, x)


@internal(error_model="numpy")
def int_abs_lane(x):
    return -x if x < 0 else x


@internal(error_model="numpy")
def int_relu_lane(x):
    return x if x > 0 else 0


@internal(error_model="numpy")
def int_reciprocal_lane(kind, x):
    """950 int64/uint64 Reciprocal = Div(1, x) under D48."""
    if x == 1:
        return 1
    if x == 0:
        return -1
    if x == -1 and kind == KIND_INT64:
        return -1
    return 0


# --- multiply-add lanes (SPEC-2 6.3, D39) ---------------------------------------------------------------------------
@internal(error_model="numpy")
def fma_lane(kind, a, b, c, fused, sat_half):
    """a*b + c rounded once to `kind` (returned as the float32 the store rounds). fused: the 950's fma; otherwise
    D39: an overflowing or NaN product first becomes +-inf/NaN (INF/NaN mode) or +-MAX/+0 (saturation)."""
    if kind == KIND_FLOAT:
        return float_fma_lane(a, b, c, fused)
    p = np.float64(a) * np.float64(b)  # exact: at most 48 significant bits
    if not fused:
        rp = stage_round(kind, narrow(kind, p), fused)  # fused is False here (a variable: one specialisation)
        if rp != rp or math.isinf(rp):
            p = np.float64(stage_round(kind, rp, sat_half))
    s, err = two_sum(p, np.float64(c))
    return sum_to_f32_odd(s, err)


@internal(error_model="numpy")
def float_fma_lane(a, b, c, fused):
    """fma_lane of float32 values, written with selects instead of branches: callers loop over it apart from
    fma_lane, whose per-lane tests of the kind and the fused flag kept the loop from vectorising (20 us -> 4.7 us a
    950 MulAddDst of 8192 floats). Not fused, a float product that overflows or is NaN is that float32 (D39)."""
    p = np.float64(a) * np.float64(b)  # exact: at most 48 significant bits
    rounded = np.float32(p)
    p = p if fused or rounded - rounded == 0 else np.float64(rounded)
    s, err = two_sum(p, np.float64(c))
    return np.float32(sum_to_odd(s, err))
