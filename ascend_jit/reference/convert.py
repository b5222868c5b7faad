"""Reference model of Cast (SPEC-2 7, D33, D45-D47, D71), vectorised over arrays of source bit patterns.

Written from SPEC-2 alone and sharing nothing with ascend_jit/jit: every source value is taken exactly (a float64
holds every half, bfloat16, float and integer of up to 32 bits; int64 sources are Python ints), a result is chosen
between the two destination values that bracket it (its neighbours in the destination type), and the overflow,
saturation and special-value rules are applied in the order SPEC-2 7.3 lists them.
"""
import numpy as np

from .model import lane_address
from .numerics import INT_RANGE, NAN_BITS, NP_TYPES as _NP, SIZES

FLOATS = ("half", "float", "bfloat16")
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_SIGN = {"half": 0x8000, "float": 0x80000000, "bfloat16": 0x8000}
_INF = {"half": 0x7C00, "float": 0x7F800000, "bfloat16": 0x7F80}
_TRUNCATION_DEVICES = ("ascend950", "atlas-a2", "atlas-a3")  # D46: CTRL[59] exists here only


def overflow_rules(device, src, dst, ctrl59, half_saturating, ctrl60=1):
    """(integer destinations keep the low bits?, half/bf16 destinations saturate?) for one call (D45, D46, D71)."""
    forced_sat = device == "ascend950" and ctrl60 == 0        # D46: the Memory Cast's SAT trait
    truncate = device in _TRUNCATION_DEVICES and ctrl59 == 1 and not forced_sat
    if (src, dst) == ("half", "int16"):
        truncate = False                                      # D45: always saturates
    if (src not in FLOATS and dst not in FLOATS and INT_RANGE[src][0] < 0 and INT_RANGE[dst][0] == 0
            and SIZES[dst] > SIZES[src]):
        truncate = False                                      # 7.3 step 6: signed -> wider unsigned clamps
    saturate = dst in ("half", "bfloat16") and (half_saturating or forced_sat) and (src, dst) != ("half", "bfloat16")
    return truncate, saturate


def convert(src, dst, mode, bits, truncate, saturate):
    """Destination bit patterns (uint64 array) of the source bit patterns `bits` (SPEC-2 7.3).
    mode: a RoundMode name; CAST_NONE is CAST_RINT (D45)."""
    with np.errstate(all="ignore"):   # NaN and inf inputs are handled explicitly below
        return _convert(src, dst, mode, bits, truncate, saturate)


def _convert(src, dst, mode, bits, truncate, saturate):
    mode = "CAST_RINT" if mode == "CAST_NONE" else mode
    raw = np.asarray(bits, np.uint64).astype(_UINT[SIZES[src]]).view(_NP[src])
    if dst in FLOATS:
        if src in FLOATS and src == dst:
            out = _round_integral_float(raw.astype(np.float64), dst, mode)
        elif src == "int64":
            out = np.array([_int64_to_float_bits(int(v), dst, mode) for v in raw], np.uint64)
        else:
            out = _to_float(raw.astype(np.float64), dst, mode)
        if saturate:                                         # D46 / D35: inf -> +-MAX, NaN -> +0
            mag = out & np.uint64(~_SIGN[dst] & 0xFFFFFFFF)
            out = np.where(mag == _INF[dst], out - np.uint64(1), out)
            out = np.where(mag > _INF[dst], np.uint64(0), out)
        return out
    return _to_integer(raw, src, dst, mode, truncate)


# --- float destinations -----------------------------------------------------------------------------------------
def _bits_of(values, dst):
    with np.errstate(all="ignore"):
        if dst == "bfloat16":
            values = values.astype(np.float32)  # exact here: every value is already a bfloat16 value
        return values.astype(_NP[dst]).view(_UINT[SIZES[dst]]).astype(np.int64)


def _value_of(bits, dst):
    return bits.astype(_UINT[SIZES[dst]]).view(_NP[dst]).astype(np.float64)


def _step(bits, dst, up):
    """The next destination value above (up) or below a bit pattern, on the ordered line of the type."""
    sign = _SIGN[dst]
    key = np.where(bits & sign, -(bits & (sign - 1)), bits)
    key = key + (1 if up else -1)
    return np.where(key < 0, sign | -key, key)


def _to_float(x, dst, mode):
    nan, finite = np.isnan(x), np.isfinite(x)
    rn = _bits_of(x, dst)                       # RN_T(x): IEEE roundTiesToEven, overflow to inf
    rn_val = _value_of(rn, dst)
    above = rn_val > x
    lo = np.where(above, _step(rn, dst, False), rn)
    hi = np.where(above, rn, np.where(rn_val < x, _step(rn, dst, True), rn))
    lo_val, hi_val = _value_of(lo, dst), _value_of(hi, dst)
    if mode == "CAST_RINT":
        pick = rn
    elif mode == "CAST_FLOOR":
        pick = lo
    elif mode == "CAST_CEIL":
        pick = hi
    elif mode == "CAST_TRUNC":
        pick = np.where(x > 0, lo, hi)
    elif mode == "CAST_ODD":                    # sticky: an inexact result takes the odd neighbour
        pick = np.where(lo_val == x, lo, np.where(lo & 1, lo, hi))
    else:                                       # CAST_ROUND: nearest, ties away from zero; beyond MAX as IEEE
        with np.errstate(all="ignore"):
            hi_dist_val = np.where(np.isinf(hi_val), 2 * lo_val - _value_of(_step(lo, dst, False), dst), hi_val)
            lo_dist_val = np.where(np.isinf(lo_val), 2 * hi_val - _value_of(_step(hi, dst, True), dst), lo_val)
            d_lo, d_hi = x - lo_dist_val, hi_dist_val - x
        pick = np.where(d_lo < d_hi, lo, np.where(d_hi < d_lo, hi, np.where(x > 0, hi, lo)))
    pick = np.where(finite, pick, rn)           # +-inf stay +-inf
    zero = _value_of(pick, dst) == 0            # a zero result keeps the sign of the source
    pick = np.where(zero, np.where(np.signbit(x), _SIGN[dst], 0), pick)
    pick = np.where(nan, NAN_BITS[dst], pick)
    return pick.astype(np.uint64)


def _round_integral_float(x, dst, mode):
    """float -> float: round to an integral value (7.3 step 5): zero results +0, +-inf and NaN pass."""
    r = _integral(x, mode)
    r = np.where(r == 0, 0.0, r)
    out = _bits_of(r, dst)
    return np.where(np.isnan(x), NAN_BITS[dst], out).astype(np.uint64)


def _int64_to_float_bits(n, dst, mode):
    """Scalar: an int64 value rounded to float by mode (the neighbours are exact Python integers)."""
    if n == 0:
        return 0
    p = {"half": 11, "float": 24, "bfloat16": 8}[dst]
    a = abs(n)
    k = max(a.bit_length() - p, 0)
    lo = (a >> k) << k
    hi = lo if lo == a else lo + (1 << k)
    if n < 0:
        lo, hi = -hi, -lo
    candidates = {"CAST_FLOOR": lo, "CAST_CEIL": hi, "CAST_TRUNC": lo if n > 0 else hi}
    if mode in candidates:
        r = candidates[mode]
    elif lo == hi:
        r = lo
    elif abs(n - lo) != abs(hi - n):
        r = lo if abs(n - lo) < abs(hi - n) else hi
    elif mode == "CAST_ROUND":
        r = hi if n > 0 else lo
    else:   # RINT: the even significand
        r = lo if (abs(lo) >> k) % 2 == 0 else hi
    return int(_bits_of(np.array([float(r)]), dst)[0])


# --- integer destinations ---------------------------------------------------------------------------------------
def _integral(x, mode):
    if mode == "CAST_RINT":
        return np.rint(x)
    if mode == "CAST_FLOOR":
        return np.floor(x)
    if mode == "CAST_CEIL":
        return np.ceil(x)
    if mode == "CAST_TRUNC":
        return np.trunc(x)
    a = np.abs(x)
    f = np.floor(a)
    return np.copysign(np.where(a - f >= 0.5, f + 1, f), x)   # CAST_ROUND: half away from zero


def _to_integer(raw, src, dst, mode, truncate):
    lo, hi = INT_RANGE[dst]
    if src in FLOATS:
        x = raw.astype(np.float64)
        nan, posinf, neginf = np.isnan(x), np.isposinf(x), np.isneginf(x)
        r = _integral(np.where(np.isfinite(x), x, 0.0), mode)
        ints = [int(v) for v in r]              # exact: every integral float64 is an integer
    else:
        nan = posinf = neginf = np.zeros(raw.size, bool)
        ints = [int(v) for v in raw]
    if truncate:   # keep the low bits of the two's-complement integer (D46)
        vals = [(v - lo) % (hi - lo + 1) + lo for v in ints]
    else:          # saturate; negative to unsigned gives 0
        vals = [min(max(v, lo), hi) for v in ints]
    out = np.array(vals, dtype=object)
    out[nan] = 0
    out[posinf] = hi        # 7.3 step 1: +-inf -> MAX/MIN in both modes
    out[neginf] = lo
    return np.array(list(out), dtype=_NP[dst]).view(_UINT[SIZES[dst]]).astype(np.uint64)


# --- forms ------------------------------------------------------------------------------------------------------
def _read_bits(ub, addr, size):
    return int.from_bytes(bytes(ub[addr:addr + size]), "little")


def _write_bits(ub, addr, size, value):
    ub[addr:addr + size] = np.frombuffer(int(value).to_bytes(size, "little"), np.uint8)


def cast_count(ub, src, dst, mode, dst_addr, src_addr, count, truncate, saturate):
    """Count form: element k of each operand at base + k*size (SPEC-2 1.3)."""
    ss, ds = SIZES[src], SIZES[dst]
    bits = [_read_bits(ub, src_addr + k * ss, ss) for k in range(count)]
    for k, v in enumerate(convert(src, dst, mode, np.array(bits, np.uint64), truncate, saturate)):
        _write_bits(ub, dst_addr + k * ds, ds, v)


def cast_high_dim(ub, src, dst, mode, dst_addr, src_addr, lanes, repeat, strides, truncate, saturate,
                  last_lanes=None):
    """High-dim form (D33): L = lanes of the wider type; `lanes` the active lane indices; strides = (dstBlk,
    srcBlk, dstRep, srcRep); each operand's lane j at lane_address with its own element size."""
    ss, ds = SIZES[src], SIZES[dst]
    db, sb, dr, sr = strides
    for i in range(repeat):
        act = list(range(last_lanes)) if (last_lanes is not None and i == repeat - 1) else list(lanes)
        bits = [_read_bits(ub, lane_address(src_addr, ss, i, j, sb, sr), ss) for j in act]
        out = convert(src, dst, mode, np.array(bits, np.uint64), truncate, saturate)
        for j, v in zip(act, out):
            _write_bits(ub, lane_address(dst_addr, ds, i, j, db, dr), ds, v)

