"""Reference model of the Ascend 950 Reg API (SPEC 7.5; SPEC-2 11), lane by lane and byte by byte, written from
the SPECs alone: ReduceDataBlock (D3, D20, D25), PairReduceElem (SPEC 7.6), Add/Sub/Mul and carry forms, Reduce (D66), Cast (7.3, D45, D46,
D65, D71), the load/store distributions (11.6, D68) and the MaskReg operations (11.7, D64); and, from the devkit's
Reg pages where the SPECs are silent, Adds/Muls/Maxs/Mins/LeakyRelu, Prelu, Abs/Relu/Neg/Ln/Log/Sqrt, Select on
data registers, ShiftLefts/ShiftRights, MulAddDst/MulDstAdd/Axpy/AbsSub.

Inputs are plain lists: `values` the source lanes (Python numbers), `active` a list of booleans per lane; memory is
bytes; a MaskReg is a 256-bit Python int."""
import math
from fractions import Fraction

import numpy as np

from . import elementwise as ref_ew
from .numerics import INT_RANGE, SIZES, add, is_float, round_to

SUM_PAIRS = {("half", "half"), ("float", "float"), ("int32", "int32"), ("int32", "int16"), ("uint32", "uint32"),
             ("uint32", "uint16"), ("int16", "int16"), ("uint16", "uint16")}
MINMAX_TYPES = {"half", "float", "int16", "uint16", "int32", "uint32"}
HALF_MAX = 65504.0


def supported(op, dst_dtype, src_dtype):
    if op == "sum":
        return (dst_dtype, src_dtype) in SUM_PAIRS
    return dst_dtype == src_dtype and src_dtype in MINMAX_TYPES


def _tree(dtype, vals, sat):
    while len(vals) > 1:
        vals = [add(dtype, vals[2 * k], vals[2 * k + 1], sat_half=sat) for k in range(len(vals) // 2)]
    return vals[0]


def pair_reduce(dtype, values, active, sat=False):
    """Reg PairReduceElem (SPEC 7.6): lane i < L/2 = values[2i] + values[2i+1] with an inactive lane as +0, one
    rounded add (half: SAT in saturation mode); lanes L/2.. are 0."""
    half = len(values) // 2
    sums = [add(dtype, values[2 * i] if active[2 * i] else 0.0, values[2 * i + 1] if active[2 * i + 1] else 0.0,
                sat_half=sat) for i in range(half)]
    return sums + [0.0] * half


def _fmax(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b:  # max(-0, +0) = +0
        return b if math.copysign(1, a) < 0 else a
    return max(a, b)


def _fmin(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b:  # min(-0, +0) = -0
        return a if math.copysign(1, a) < 0 else b
    return min(a, b)


def reduce_data_block(op, dst_dtype, src_dtype, values, active, sat=False):
    """The 8 block results (Python numbers) of dst lanes 0..7; lanes 8.. are 0 (D3)."""
    lanes = len(values)
    epb = lanes // 8
    results = []
    for b in range(8):
        block = [(values[b * epb + k], active[b * epb + k]) for k in range(epb)]
        if is_float(src_dtype):
            if op == "sum":
                r = _tree(src_dtype, [v if on else 0.0 for v, on in block], sat)
            else:
                fill, fn = (-math.inf, _fmax) if op == "max" else (math.inf, _fmin)
                r = fill
                for v, on in block:
                    r = fn(r, v if on else fill)
            if src_dtype == "half" and sat:  # D20
                r = 0.0 if math.isnan(r) else max(-HALF_MAX, min(HALF_MAX, r))
        else:
            lo, hi = INT_RANGE[src_dtype]
            vals = [v for v, on in block if on]
            if op == "sum":
                dlo, dhi = INT_RANGE[dst_dtype]
                r = (sum(vals) - dlo) % (dhi - dlo + 1) + dlo  # exact, wrapped to the dst type
            elif op == "max":
                r = max(vals, default=lo)
            else:
                r = min(vals, default=hi)
        results.append(r)
    return results


# --- SPEC-2 section 11: Add/Sub/Mul, carry forms, Duplicate, Reduce (values are Python numbers per lane) ------------
BINARY_TYPES = {"add": ("int8", "uint8", "int16", "uint16", "half", "bfloat16", "int32", "uint32", "float", "int64",
                        "uint64")}
BINARY_TYPES["sub"] = BINARY_TYPES["add"]
BINARY_TYPES["mul"] = tuple(t for t in BINARY_TYPES["add"] if t not in ("int8", "uint8"))
REDUCE_SUM_PAIRS = {("half", "half"), ("float", "float"), ("int32", "int16"), ("uint32", "uint16"),
                    ("int32", "int32"), ("uint32", "uint32"), ("int64", "int64"), ("uint64", "uint64")}
REDUCE_MINMAX_TYPES = ("int16", "uint16", "half", "int32", "uint32", "float", "int64", "uint64")


def _exact(op, x, y):
    """The exact result (a double holds products of two floats and, rounded once, the sum's correct rounding)."""
    if op == "add":
        return x + y
    if op == "sub":
        return x - y
    return x * y


def lane_op(op, dtype, x, y, sat_half=False, sat_int=False):
    """One active lane of Reg Add/Sub/Mul (SPEC-2 11.2, D35, D67)."""
    if is_float(dtype):
        if dtype == "bfloat16":  # SPEC-2 1.6: float32 result rounded to bfloat16
            return round_to("bfloat16", round_to("float", _exact(op, x, y)))
        return _sat_half(dtype, round_to(dtype, _exact(op, x, y)), sat_half)
    lo, hi = INT_RANGE[dtype]
    r = _exact(op, x, y)
    if sat_int and dtype in ("int16", "int32"):
        return min(max(r, lo), hi)
    return (r - lo) % (hi - lo + 1) + lo


def binary(op, dtype, xs, ys, active, before, merging=False, sat_half=False, sat_int=False):
    """dst lanes of Reg Add/Sub/Mul: active lanes computed, inactive 0 (ZEROING) or kept (MERGING)."""
    return [lane_op(op, dtype, x, y, sat_half, sat_int) if on else (b if merging else 0)
            for x, y, on, b in zip(xs, ys, active, before)]


# --- tensor-scalar and unary instructions of the devkit's Reg pages (not in SPEC-2 11; docs/decisions.md) --------
HALF_MIN_NORMAL, FLOAT_MIN_NORMAL = 2.0 ** -14, 2.0 ** -126


# --- Reg Div with a DivSpecificMode (DK R/基础算术/Div.md; not in SPEC-2 11; docs/decisions.md "Reg Div modes") ----
def div_keeps_subnormals(precision, algo):
    """Whether Reg Div's DivSpecificMode{precisionMode, algo} runs subnormal-keeping code: DK
    `impl/basic_api/reg_compute/dav_3510/kernel_reg_compute_vec_binary_impl.h` DivImpl calls DivIEEE754FloatImpl /
    DivIEEE754HalfImpl for PRECISION_0ULP_FTZ_FALSE, and for PRECISION_1ULP_FTZ_FALSE without precisionMode; every
    other mode vdiv or DivPrecisionImpl, which flush (D38). algo: a DivAlgo name."""
    return algo == "PRECISION_0ULP_FTZ_FALSE" or (algo == "PRECISION_1ULP_FTZ_FALSE" and not precision)


def div(dtype, xs, ys, active, precision=False, algo="INTRINSIC", sat_half=False):
    """dst lanes of Reg Div: active lanes SPEC-2 2.3's 950 Div (D48: IEEE specials, RN, DAZ/FTZ unless the mode keeps
    subnormals, then SAT for half; integers truncate, x/0 all ones), inactive 0 (ZEROING, Div's only mode)."""
    env = ref_ew.Env("ascend950", sat_half=sat_half,
                     algo="PRECISION_0ULP_FTZ_FALSE" if div_keeps_subnormals(precision, algo) else "INTRINSIC")
    lanes = list(ref_ew.div(dtype, env, np.asarray(xs, np.float64 if is_float(dtype) else object),
                            np.asarray(ys, np.float64 if is_float(dtype) else object)))
    return [r if on else 0 for r, on in zip(lanes, active)]


# --- Reg Exp / Ln / Log / Sqrt with a SpecificMode (DK R/基础算术/{Exp,Ln,Log,Sqrt}.md; docs/decisions.md "Reg Exp, Ln,
# Log and Sqrt modes") ------------------------------------------------------------------------------------------------
def mode_algorithm(api, precision, algo):
    """The 950 Memory-API algorithm whose code a Reg SpecificMode{precisionMode, algo} runs (DK
    `impl/basic_api/reg_compute/dav_3510/kernel_reg_compute_vec_unary_impl.h`): Sqrt's fast-inverse code for
    precisionMode or PRECISION_0ULP_FTZ_FALSE (SqrtFastInverseImpl), the subnormal-scaling code of
    PRECISION_1ULP_FTZ_FALSE, else the one instruction (vexp, vln, vsqrt) with DAZ/FTZ. algo: the algo's name."""
    if api == "Sqrt" and (precision or algo == "PRECISION_0ULP_FTZ_FALSE"):
        return "FAST_INVERSE"
    return "PRECISION_1ULP_FTZ_FALSE" if algo == "PRECISION_1ULP_FTZ_FALSE" else "INTRINSIC"


def specific_mode(api, dtype, xs, active, precision=False, algo="INTRINSIC", sat_half=False):
    """dst lanes of Reg Exp / Ln / Log / Sqrt with a SpecificMode: active lanes the 950 Memory-API instruction of the
    algorithm the mode's code is (SPEC-2 4.3: the documented specials, RN of the exact function, DAZ/FTZ unless the
    algorithm keeps subnormals, D49's domain for the fast-inverse Sqrt, then SAT for half), inactive 0 (ZEROING)."""
    env = ref_ew.Env("ascend950", sat_half=sat_half, algo=mode_algorithm(api, precision, algo))
    lanes = list(ref_ew.transcendental("Ln" if api == "Log" else api, dtype, env, np.asarray(xs, np.float64)))
    return [r if on else 0 for r, on in zip(lanes, active)]


def _d41_max(x, y):
    """max under D41: NaN wins, -0 < +0 (Maxs(-0, +0) = +0, DK R/基础算术/Maxs.md)."""
    if math.isnan(x) or math.isnan(y):
        return math.nan
    return max((x, y), key=_order_key)


def _d41_min(x, y):
    if math.isnan(x) or math.isnan(y):
        return math.nan
    return min((x, y), key=_order_key)


def _sat_half(dtype, r, sat_half):
    """SAT of a half result in saturation mode (D35, RegBV note): +-inf -> +-65504, NaN -> +0."""
    if dtype == "half" and sat_half:
        if math.isnan(r):
            return 0.0
        if math.isinf(r):
            return math.copysign(HALF_MAX, r)
    return r


def tensor_scalar(op, dtype, xs, scalar, active, sat_half=False, sat_int=False):
    """dst lanes of Reg Adds / Muls / Maxs / Mins / LeakyRelu (DK R/基础算术/*.md, RegBV-T12/T21/T22/T23/T24):
    active lane = x op s with s the scalar already converted to dtype (SPEC-2 D29); inactive lanes 0 (ZEROING only,
    RegMerge). Adds/Muls are Add/Mul's lanes with s as the second operand (RegPrec: 0 ulp; bf16 via float)."""
    if op in ("adds", "muls"):
        return binary("add" if op == "adds" else "mul", dtype, xs, [scalar] * len(xs), active, [0] * len(xs),
                      False, sat_half, sat_int)
    if op == "leakyrelu":  # D42: the product path iff x's sign bit is set; both paths through SAT (RegBV-T24)
        return [_sat_half(dtype, round_to(dtype, scalar * x) if math.copysign(1, x) < 0 else x, sat_half)
                if on else 0 for x, on in zip(xs, active)]
    pick_float, pick_int = (_d41_max, max) if op == "maxs" else (_d41_min, min)
    out = []
    for x, on in zip(xs, active):
        if not on:
            out.append(0)
        elif is_float(dtype):
            out.append(_sat_half(dtype, pick_float(x, scalar), sat_half))
        else:
            out.append(pick_int(x, scalar))
    return out


def prelu(dtype, xs, ys, active, sat_half=False):
    """dst lanes of Reg Prelu (DK R/基础算术/Prelu.md, RegBV-T10): x where its sign bit is clear, else x * y rounded
    once (the sign bit decides -0, as D42; -0 x MAX = -0, -0 x MIN = +0 in the table), then SAT; inactive lanes 0."""
    return [_sat_half(dtype, round_to(dtype, x * y) if math.copysign(1, x) < 0 else x, sat_half) if on else 0
            for x, y, on in zip(xs, ys, active)]


def ternary(op, dtype, xs, ys, ds, active, sat_half=False, sat_int=False):
    """dst lanes of Reg MulAddDst (x*y + d), MulDstAdd (d*x + y), Axpy (ys all the scalar: y*x + d) and AbsSub
    (|x - y|) (DK R/复合计算/*.md; RegPrec: the multiply-adds equal an FMA, one rounding of the exact result;
    AbsSub = Abs(Sub): the difference rounded once). Floats: exact in Fractions, one rounding, SAT for half;
    bfloat16 rounds once too (RegPrec "同比Fma"). Integers: exact, then D35 (int16/int32 clamp under saturation,
    64-bit modulo 2**64). Inactive lanes 0."""
    def one(x, y, d):
        if op == "abssub":
            if is_float(dtype):
                r = abs(round_to(dtype, x - y))
            else:
                lo, hi = INT_RANGE[dtype]  # int64: Sub wraps, then Abs wraps (|MIN| = MIN), the two in series
                diff = (x - y - lo) % (hi - lo + 1) + lo
                r = (abs(diff) - lo) % (hi - lo + 1) + lo
            return _sat_half(dtype, r, sat_half)
        a, b, c = (x, y, d) if op in ("muladddst", "axpy") else (d, x, y)
        if is_float(dtype):
            if any(math.isnan(v) or math.isinf(v) for v in (a, b, c)):
                r = a * b + c  # IEEE specials (an inf product with an opposite inf addend: NaN)
            else:
                exact = Fraction(a) * Fraction(b) + Fraction(c)
                if exact == 0:  # IEEE: -0 only for a -0 product plus -0; an exact cancellation is +0 (RN)
                    negative_product = math.copysign(1, a) * math.copysign(1, b) < 0
                    both_zero = (a == 0 or b == 0) and c == 0
                    r = -0.0 if both_zero and negative_product and math.copysign(1, c) < 0 else 0.0
                else:
                    r = _round_fraction(dtype, exact)
            return _sat_half(dtype, r, sat_half)
        lo, hi = INT_RANGE[dtype]
        r = a * b + c
        if sat_int and dtype in ("int16", "int32"):
            return min(max(r, lo), hi)
        return (r - lo) % (hi - lo + 1) + lo
    return [one(x, y, d) if on else 0 for x, y, d, on in zip(xs, ys, ds, active)]


def _round_fraction(dtype, q):
    """An exact rational rounded once to dtype (RNE; overflow to inf): through float64 only when that is exact."""
    f = float(q)
    if Fraction(f) == q:
        return round_to(dtype, f)
    # the double nearest q; if the rounding to dtype of f differs from that of q, it is by a tie that f broke:
    # step f one double ulp towards q (an odd-rounded double then rounds to dtype as q does)
    towards = math.nextafter(f, math.inf if Fraction(f) < q else -math.inf)
    return round_to(dtype, f if int.from_bytes(np.float64(f).tobytes(), "little") & 1 else towards)


def _flush(dtype, x):
    """D38 (the INTRINSIC algorithm of Ln/Log/Sqrt): a subnormal of the type becomes a zero of its sign."""
    tiny = HALF_MIN_NORMAL if dtype == "half" else FLOAT_MIN_NORMAL
    return math.copysign(0.0, x) if abs(x) < tiny else x


def _unary_lane(op, dtype, x, sat_half, sat_int):
    if not is_float(dtype):
        lo, hi = INT_RANGE[dtype]
        r = {"abs": abs(x), "relu": max(0, x), "neg": -x}[op]
        if sat_int and dtype in ("int16", "int32"):
            return min(max(r, lo), hi)
        return (r - lo) % (hi - lo + 1) + lo
    if op == "abs":  # the sign cleared (SPEC-2 4.3)
        r = abs(x)
    elif op == "relu":  # max(+0, x) under D41: Relu(-0) = +0, NaN stays NaN (RegBV-T9)
        r = x if math.isnan(x) or x > 0 else 0.0
    elif op == "neg":  # RegPrec: the sign bit flipped
        r = -x
    else:  # ln / log, sqrt: the documented specials (SPEC-2 4.3 table, RegBV-T2/T8), else f(x) rounded once; DAZ/FTZ
        x = _flush(dtype, x)
        if math.isnan(x) or x < 0:
            r = math.nan
        elif x == 0:
            r = -math.inf if op in ("ln", "log") else x
        elif math.isinf(x):
            r = math.inf
        else:
            r = _flush(dtype, round_to(dtype, math.log(x) if op in ("ln", "log") else math.sqrt(x)))
    return _sat_half(dtype, r, sat_half)


def unary(op, dtype, xs, active, sat_half=False, sat_int=False):
    """dst lanes of Reg Abs / Relu / Neg / Ln / Log / Sqrt (DK R/基础算术/*.md; inactive lanes 0, ZEROING only).
    Floats: Abs, Relu and Neg are exact (then SAT for half); Ln/Log/Sqrt are the INTRINSIC algorithm (D37: the
    exact function rounded once, evaluated in float64 and rounded to the type: correct except where the double lies
    within half a double ulp of a rounding boundary, which the tests' data avoid; D38: inputs and results
    flushed). Integers: exact, then WRAP, or CLAMP for int16/int32 in integer saturation mode (D35)."""
    return [_unary_lane(op, dtype, x, sat_half, sat_int) if on else 0 for x, on in zip(xs, active)]


def select(xs, ys, mask_bits, size):
    """dst lanes of Reg Select on data registers (DK R/比较与选择/Select.md): lane j of xs where bit j*size of the
    mask is set, else of ys (values copied)."""
    return [x if (mask_bits >> (j * size)) & 1 else y for j, (x, y) in enumerate(zip(xs, ys))]


def shift(op, dtype, xs, active, amount):
    """dst lane bit patterns (unsigned ints) of Reg ShiftLefts/ShiftRights (op "shiftlefts" or "shiftrights"; DK
    R/逻辑计算/*.md): xs the lanes' bit patterns; inactive lanes 0 (ZEROING only). Unsigned types shift logically;
    signed ShiftLefts keep the sign bit (the page's 1010101010101010 << 1 = 1101010101010100), signed ShiftRights
    replicate it; an amount of the width or more gives 0 (ShiftRights of a negative signed lane: -1)."""
    width = 8 * SIZES[dtype]
    ones, sign = (1 << width) - 1, 1 << (width - 1)
    signed = dtype in ("int8", "int16", "int32", "int64")
    out = []
    for x, on in zip(xs, active):
        if not on:
            out.append(0)
        elif op == "shiftlefts":
            r = 0 if amount >= width else (x << amount) & ones
            out.append((r & (ones >> 1)) | (x & sign) if signed and amount < width else r)
        else:  # shiftrights: the signed value's floor division by 2**amount, as bits
            value = x - (1 << width) if signed and x & sign else x
            out.append((value >> min(amount, width)) & ones)
    return out


def duplicate(value, active, before, merging=False):
    """dst lanes of Reg Duplicate (SPEC-2 11.3): the scalar's pattern in active lanes, inactive 0 or kept."""
    return [value if on else (b if merging else 0) for on, b in zip(active, before)]


def arange(dtype, scalar, lanes, sat_half=False, sat_int=False, decrease=False):
    """The lanes of Reg Arange (DK R/索引操作/Arange.md, docs/decisions.md "Reg Arange"): lane j = j + scalar (the
    scalar already converted to dtype, SPEC-2 D29) as one Add lane: integers wrap (int16/int32 clamp under
    saturation, D35), floats round once. Every lane is written (no mask). DECREASE_ORDER (`decrease`): the index
    counts down to 0 in the last lane, but not for int64, whose devkit code passes the order on to nothing."""
    down = decrease and dtype != "int64"
    return [lane_op("add", dtype, lanes - 1 - j if down else j, scalar, sat_half, sat_int) for j in range(lanes)]


def carry(op, xs, ys, active):
    """Carry forms on 32-bit patterns (xs, ys unsigned): (dst patterns, carry per lane) (SPEC-2 11.2, D67)."""
    dst, carries = [], []
    for x, y, on in zip(xs, ys, active):
        if not on:
            dst.append(0)
            carries.append(0)
        elif op == "add":
            dst.append((x + y) % 2**32)
            carries.append(int(x + y >= 2**32))
        else:
            dst.append((x - y) % 2**32)
            carries.append(int(x >= y))
    return dst, carries


def _order_key(v):
    """D41 total order with -0 < +0."""
    return (v, math.copysign(1.0, v)) if isinstance(v, float) else (v, 0)


def reduce(op, dst_dtype, src_dtype, values, active, sat=False):
    """Reg Reduce (SPEC-2 11.4, D66): (value, index) for MAX/MIN, (value, None) for SUM."""
    if op == "sum":
        vals = [v if on else (0.0 if is_float(src_dtype) else 0) for v, on in zip(values, active)]
        if is_float(src_dtype):
            return _tree(src_dtype, vals, sat), None
        lo, hi = INT_RANGE[dst_dtype]
        return (sum(vals) - lo) % (hi - lo + 1) + lo, None
    live = [(v, j) for j, (v, on) in enumerate(zip(values, active)) if on]
    if is_float(src_dtype):
        nans = [j for v, j in live if math.isnan(v)]
        if nans:
            value, index = math.nan, nans[0]
        elif not live:
            value, index = (-math.inf if op == "max" else math.inf), 0
        else:
            pick = max if op == "max" else min
            best = pick(live, key=lambda p: (_order_key(p[0]), -p[1] if op == "max" else p[1]))
            value, index = best
        if src_dtype == "half" and sat:  # written through SAT (D66)
            value = 0.0 if math.isnan(value) else max(-HALF_MAX, min(HALF_MAX, value))
        return value, index
    lo, hi = INT_RANGE[src_dtype]
    if not live:
        return (lo if op == "max" else hi), 0
    pick = max if op == "max" else min
    return pick(live, key=lambda p: (p[0], -p[1] if op == "max" else p[1]))


# --- SPEC-2 11.6: loads and stores on bytes (mem: a bytes-like UB image; a register is 256 bytes) ------------------
LOAD_DISTS = {  # name: (lane width or None for the register's own, bytes read, alignment)
    "DIST_NORM": (None, 256, 32), "DIST_BRC_B8": (1, 1, 1), "DIST_BRC_B16": (2, 2, 2), "DIST_BRC_B32": (4, 4, 4),
    "DIST_US_B8": (1, 128, 32), "DIST_US_B16": (2, 128, 32), "DIST_DS_B8": (1, 512, 32), "DIST_DS_B16": (2, 512, 32),
    "DIST_UNPACK_B8": (1, 128, 32), "DIST_UNPACK_B16": (2, 128, 32), "DIST_UNPACK_B32": (4, 128, 32),
    "DIST_UNPACK4_B8": (1, 64, 32), "DIST_BLK": (None, 32, 32), "DIST_E2B_B16": (2, 16, 16),
    "DIST_E2B_B32": (4, 32, 32)}


def load(dist, mem, addr, reg_size):
    """The 256 register bytes a single-register LoadAlign produces (SPEC-2 11.6 table)."""
    width, nbytes, _ = LOAD_DISTS[dist]
    w = width or reg_size
    src = bytes(mem[addr:addr + nbytes])
    elems = [src[k * w:(k + 1) * w] for k in range(len(src) // w)]
    lanes = 256 // w
    if dist == "DIST_NORM":
        return src
    if dist == "DIST_BLK":
        return src * 8
    if dist.startswith("DIST_E2B"):
        return b"".join(elems[k] * (32 // w) for k in range(8))
    out = []
    for i in range(lanes):
        if dist.startswith("DIST_BRC"):
            out.append(elems[0])
        elif dist.startswith("DIST_US"):
            out.append(elems[i // 2])
        elif dist.startswith("DIST_DS"):
            out.append(elems[2 * i])
        elif dist.startswith("DIST_UNPACK4"):
            out.append(elems[i // 4] if i % 4 == 0 else bytes(w))
        else:  # DIST_UNPACK_Bn
            out.append(elems[i // 2] if i % 2 == 0 else bytes(w))
    return b"".join(out)


def load_dual(mem, addr, w):
    """DIST_DINTLV_Bn: (reg0, reg1) bytes: even elements, odd elements."""
    src = bytes(mem[addr:addr + 512])
    elems = [src[k * w:(k + 1) * w] for k in range(512 // w)]
    return b"".join(elems[0::2]), b"".join(elems[1::2])


STORE_DISTS = {  # name: (lane width or None, output bytes per lane or None for the lane width, mask used)
    "DIST_NORM": (None, None, True), "DIST_NORM_B8": (1, None, True), "DIST_NORM_B16": (2, None, True),
    "DIST_NORM_B32": (4, None, True), "DIST_FIRST_ELEMENT_B8": (1, None, False),
    "DIST_FIRST_ELEMENT_B16": (2, None, False), "DIST_FIRST_ELEMENT_B32": (4, None, False),
    "DIST_PACK_B16": (2, 1, True), "DIST_PACK_B32": (4, 2, True), "DIST_PACK_B64": (8, 4, True),
    "DIST_PACK4_B32": (4, 1, True)}


def store(dist, mem, addr, reg, reg_size, active_bytes):
    """Writes what StoreAlign(dist) writes into the bytearray mem. active_bytes(i): mask bit of register byte i."""
    width, out_w, masked = STORE_DISTS[dist]
    w = width or reg_size
    out_w = out_w or w
    lanes = 1 if dist.startswith("DIST_FIRST") else 256 // w
    for i in range(lanes):
        if not masked or active_bytes(i * w):
            mem[addr + i * out_w:addr + (i + 1) * out_w] = reg[i * w:i * w + out_w]


def store_dual(mem, addr, reg0, reg1, w):
    for i in range(256 // w):
        mem[addr + 2 * i * w:addr + (2 * i + 1) * w] = reg0[i * w:(i + 1) * w]
        mem[addr + (2 * i + 1) * w:addr + (2 * i + 2) * w] = reg1[i * w:(i + 1) * w]


def block_copy_load(mem, addr, block_stride, reg_size, active_bytes):
    """DATA_BLOCK_COPY: block b from addr + b*stride*32 if any of its lanes is active, else zeros (D68)."""
    out = b""
    for b in range(8):
        live = any(active_bytes(b * 32 + k) for k in range(0, 32, reg_size))
        out += bytes(mem[addr + b * block_stride * 32:addr + b * block_stride * 32 + 32]) if live else bytes(32)
    return out


def block_copy_store(mem, addr, block_stride, reg, reg_size, active_bytes):
    for b in range(8):
        for k in range(0, 32, reg_size):
            if active_bytes(b * 32 + k):
                a = addr + b * block_stride * 32 + k
                mem[a:a + reg_size] = reg[b * 32 + k:b * 32 + k + reg_size]


# --- SPEC-2 11.6 / 11.7 MaskReg: a mask is a Python int of 256 bits ---------------------------------------------
def mask_load(dist, mem, addr):
    src = int.from_bytes(bytes(mem[addr:addr + {"DIST_NORM": 32, "DIST_US": 16, "DIST_DS": 64}[dist]]), "little")
    if dist == "DIST_NORM":
        return src
    if dist == "DIST_US":
        return sum(((src >> (i // 2)) & 1) << i for i in range(256))
    return sum(((src >> (2 * i)) & 1) << i for i in range(256))


def mask_store(dist, mask):
    """The bytes a MaskReg StoreAlign writes."""
    if dist == "DIST_NORM":
        return mask.to_bytes(32, "little")
    return sum(((mask >> (2 * k)) & 1) << k for k in range(128)).to_bytes(16, "little")


FULL = 2**256 - 1


def mask_logic(op, a, b, m):
    return {"and": a & b & m, "or": (a | b) & m, "xor": (a ^ b) & m, "not": ~a & FULL & m, "move": a & m,
            "select": (a & m) | (b & ~m & FULL)}[op]


def pack(src, highest):
    packed = sum(((src >> (2 * k)) & 1) << k for k in range(128))
    return packed << 128 if highest else packed


def unpack(src, highest):
    half = (src >> 128) if highest else src & (2**128 - 1)
    return sum(((half >> k) & 1) << (2 * k) for k in range(128))


def _groups(mask, g):
    return [(mask >> (i * g)) & ((1 << g) - 1) for i in range(256 // g)]


def _join(groups, g):
    return sum(v << (i * g) for i, v in enumerate(groups))


def interleave(src0, src1, g):
    a, b = _groups(src0, g), _groups(src1, g)
    seq = [x for pair in zip(a, b) for x in pair]
    n = 256 // g
    return _join(seq[:n], g), _join(seq[n:], g)


def deinterleave(src0, src1, g):
    seq = _groups(src0, g) + _groups(src1, g)
    return _join(seq[0::2], g), _join(seq[1::2], g)


def move_mask(size, lo, hi):
    """MoveMask: lane i of a b16/b32 type takes bit i of the mask register (lo: bits 0..63, hi: 64..127)."""
    reg = lo | (hi << 64)
    out = 0
    for i in range(256 // size):
        if (reg >> i) & 1:
            out |= ((1 << size) - 1) << (i * size)
    return out


# --- SPEC-2 11.5 / 7.3: Reg Cast of one value (exact arithmetic on Fractions) ---------------------------------------
FLOAT_FORMATS = {"half": (10, -14, 65504.0), "bfloat16": (7, -126, 3.3895313892515355e38),
                 "float": (23, -126, 3.4028234663852886e38)}


def _round_int(q, mode):
    """Fraction q -> integer by RoundMode name (RINT ties even, ROUND ties away, ODD sticky)."""
    f = math.floor(q)
    if f == q:
        return f
    frac = q - f
    if mode == "CAST_FLOOR":
        return f
    if mode == "CAST_CEIL":
        return f + 1
    if mode == "CAST_TRUNC":
        return f if q > 0 else f + 1
    if mode == "CAST_ROUND":
        return (f + 1 if frac >= Fraction(1, 2) else f) if q > 0 else (f if frac <= Fraction(1, 2) else f + 1)
    if mode == "CAST_ODD":
        return f if f % 2 else f + 1
    return f + 1 if frac > Fraction(1, 2) or (frac == Fraction(1, 2) and f % 2) else f


def _round_float(q, dtype, mode):
    """Fraction q (non-zero) rounded to dtype by mode, D45 overflow; returns a Python float."""
    frac_bits, emin, max_value = FLOAT_FORMATS[dtype]
    e = math.floor(math.log2(abs(q)))
    while Fraction(2) ** e > abs(q):
        e -= 1
    while Fraction(2) ** (e + 1) <= abs(q):
        e += 1
    ulp = Fraction(2) ** (max(e, emin) - frac_bits)
    r = _round_int(q / ulp, mode) * ulp
    if abs(r) > Fraction(max_value):
        directed_max = mode in ("CAST_TRUNC", "CAST_ODD") or (mode == "CAST_FLOOR" and r > 0) or \
            (mode == "CAST_CEIL" and r < 0)
        return math.copysign(max_value if directed_max else math.inf, r)
    return float(r) if r != 0 else math.copysign(0.0, q)


def cast_value(src_dtype, dst_dtype, x, mode, sat_int, sat_float):
    """The destination value (Python number) of one active lane (SPEC-2 7.3, D45, D46, D71)."""
    if is_float(src_dtype):
        if not is_float(dst_dtype):
            lo, hi = INT_RANGE[dst_dtype]
            if math.isnan(x):
                return 0
            if math.isinf(x):
                return hi if x > 0 else lo
            v = _round_int(Fraction(x), mode)
            saturate = sat_int or (src_dtype == "half" and dst_dtype == "int16")  # D45
            return min(max(v, lo), hi) if saturate else (v - lo) % (hi - lo + 1) + lo
        if math.isnan(x) or math.isinf(x):
            r = x
        elif x == 0 or mode == "UNKNOWN":
            r = x
        else:
            r = _round_float(Fraction(x), dst_dtype, mode)
        if dst_dtype != "float" and sat_float and not (src_dtype == "half" and dst_dtype == "bfloat16"):
            if math.isnan(r):
                return 0.0
            if math.isinf(r):
                return math.copysign(FLOAT_FORMATS[dst_dtype][2], r)
        return r
    if is_float(dst_dtype):
        return float(x) if x == 0 else _round_float(Fraction(x), dst_dtype, "CAST_RINT" if mode == "UNKNOWN" else mode)
    lo, hi = INT_RANGE[dst_dtype]
    saturate = sat_int or (lo == 0 and SIZES[dst_dtype] > SIZES[src_dtype])  # narrow -> wider unsigned (7.3 step 6)
    return min(max(x, lo), hi) if saturate else (x - lo) % (hi - lo + 1) + lo


def cast_lanes(src_dtype, dst_dtype, values, active, layout, mode, sat_int, sat_float):
    """Destination lanes (None = 0) of Reg Cast under D65: layout k, mask by source lane."""
    ss, ds = SIZES[src_dtype], SIZES[dst_dtype]
    out = [None] * (256 // ds)
    if ds >= ss:
        r = ds // ss
        for j in range(256 // ds):
            if active[r * j + layout]:
                out[j] = cast_value(src_dtype, dst_dtype, values[r * j + layout], mode, sat_int, sat_float)
    else:
        r = ss // ds
        for j in range(256 // ss):
            if active[j]:
                out[r * j + layout] = cast_value(src_dtype, dst_dtype, values[j], mode, sat_int, sat_float)
    return out
