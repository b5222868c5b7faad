"""An independent conversion model for audit 45c (SPEC-2 7.3, D45, D46, D71; 11.5 for the Reg Cast).

Written from the SPEC text only: no ascend_jit code is imported. Values are held exactly as sign, integer magnitude
M and exponent E (value = (-1)^sign * M * 2^E), in numpy int64 arrays for 8/16-bit and float32 sources and numpy
object arrays (Python ints) for int32/int64 sources, and rounded on the integer tail (SPEC-2 7.3 step 2, PC table 1).
"""
import numpy as np

MODES = ("RINT", "FLOOR", "CEIL", "ROUND", "TRUNC", "ODD")
FLOATS = {"half": (5, 10), "bfloat16": (8, 7), "float": (8, 23)}  # (exponent bits, mantissa bits)
INTS = {"int8": (8, True), "uint8": (8, False), "int16": (16, True), "uint16": (16, False), "int32": (32, True),
        "uint32": (32, False), "int64": (64, True), "uint64": (64, False)}
SIZE = {"half": 2, "bfloat16": 2, "float": 4, **{k: v[0] // 8 for k, v in INTS.items()}}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
CANON_NAN = {"half": 0x7E00, "bfloat16": 0x7FC0, "float": 0x7FC00000}


def _decode_float(name, bits):
    """bits (uint array) -> (sign bool, M int64, E int64, is_inf, is_nan)."""
    eb, mb = FLOATS[name]
    b = bits.astype(np.int64)
    sign = (b >> (eb + mb)) & 1 == 1
    e = (b >> mb) & ((1 << eb) - 1)
    f = b & ((1 << mb) - 1)
    bias = (1 << (eb - 1)) - 1
    top = (1 << eb) - 1
    normal = e != 0
    m = np.where(normal, f | (1 << mb), f)
    ex = np.where(normal, e, 1) - bias - mb
    return sign, m, ex, (e == top) & (f == 0), (e == top) & (f != 0)


def _decode_int(name, bits):
    width, signed = INTS[name]
    vals = [int(v) for v in bits.astype(np.uint64)]
    if signed:
        vals = [v - (1 << width) if v >> (width - 1) else v for v in vals]
    obj = np.array(vals + [None], dtype=object)[:-1]
    sign = np.array([v < 0 for v in vals], bool)
    mag = np.array([abs(v) for v in vals] + [None], dtype=object)[:-1]
    zeros = np.zeros(len(vals), bool)
    return sign, mag, np.zeros(len(vals), np.int64), zeros, zeros.copy(), obj


def _round_to_quantum(sign, m, e, q, mode):
    """Round |x| = m * 2^e to a multiple of 2^q by mode (sign-magnitude tail, PC table 1): returns kept such that
    the result magnitude is kept * 2^q (kept is int64 or object like m)."""
    n = len(m)
    kept = np.empty(n, dtype=object)
    for i in range(n):  # Python ints: exact for every width (d up to a few hundred)
        mi, d = int(m[i]), int(q[i]) - int(e[i])
        if d <= 0:
            kept[i] = mi << -d
            continue
        k, rem, half = mi >> d, mi & ((1 << d) - 1), 1 << (d - 1)
        neg = bool(sign[i])
        if mode == "RINT":
            up = rem > half or (rem == half and k & 1)
        elif mode == "FLOOR":
            up = neg and rem > 0
        elif mode == "CEIL":
            up = (not neg) and rem > 0
        elif mode == "ROUND":
            up = rem >= half
        elif mode == "TRUNC":
            up = False
        elif mode == "ODD":
            up = False
            if rem:
                k |= 1
        else:
            raise ValueError(mode)
        kept[i] = k + (1 if up else 0)
    return kept


def _bitlen(m):
    return np.array([int(v).bit_length() for v in m], np.int64)


def _to_float(dst, sign, m, e, is_inf, is_nan, mode, saturate, pass_specials=False, integral=False):
    """Exact value -> dst float bits (SPEC-2 7.3 steps 1-3, 5; D45 directed overflow; D46/D35 saturation)."""
    eb, mb = FLOATS[dst]
    bias = (1 << (eb - 1)) - 1
    emin = 1 - bias
    top = (1 << eb) - 1
    n = len(m)
    if integral:  # float -> float round to integral (7.3 step 5)
        q = np.zeros(n, np.int64)
    else:
        msb = _bitlen(m) - 1 + e  # exponent of the leading bit
        q = np.maximum(msb, emin) - mb
    kept = _round_to_quantum(sign, m, e, q, mode)
    out = np.zeros(n, np.uint64)
    maxbits = ((top - 1) << mb) | ((1 << mb) - 1)
    for i in range(n):
        s = int(bool(sign[i])) << (eb + mb)
        if is_nan[i]:
            out[i] = 0 if (saturate and not pass_specials) else CANON_NAN[dst]
            continue
        if is_inf[i]:
            out[i] = s | (maxbits if (saturate and not pass_specials) else top << mb)
            continue
        k, qi = int(kept[i]), int(q[i])
        if k == 0:
            out[i] = 0 if integral else s
            continue
        if integral:  # re-normalise an integer value k * 2^0 to dst (float32 integers <= 2^24 or exact already)
            sh = k.bit_length() - 1 - mb
            assert sh <= 0 or k == (k >> sh) << sh
            k, qi = (k >> sh, sh) if sh > 0 else (k << -sh, sh)
        if k >> (mb + 1):  # carried into the next binade (k == 2^(mb+1))
            k, qi = k >> 1, qi + 1
        if k >> mb:
            ef = qi + mb + bias
            fr = k - (1 << mb)
        else:
            ef, fr = 0, k
        if ef >= top:  # finite overflow: D45 directed rounding, then saturation (D46)
            neg = bool(sign[i])
            to_inf = {"RINT": True, "ROUND": True, "TRUNC": False, "ODD": False,
                      "FLOOR": neg, "CEIL": not neg}[mode]
            if to_inf and not saturate:
                out[i] = s | (top << mb)
            else:
                out[i] = s | maxbits
            continue
        out[i] = s | (ef << mb) | fr
    return out


def _to_int(dst, sign, m, e, is_inf, is_nan, mode, saturate):
    """Exact value -> dst integer bits (SPEC-2 7.3 steps 1, 2, 4; D45)."""
    width, signed = INTS[dst]
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    kept = _round_to_quantum(sign, m, e, np.zeros(len(m), np.int64), mode)
    out = np.zeros(len(m), np.uint64)
    for i in range(len(m)):
        if is_nan[i]:
            v = 0
        elif is_inf[i]:
            v = lo if sign[i] else hi
        else:
            v = -int(kept[i]) if sign[i] else int(kept[i])
            if saturate:
                v = min(max(v, lo), hi)
        out[i] = v & ((1 << width) - 1)
    return out


def convert(src, dst, bits, mode, sat_int, sat_float, d71=False):
    """Model of one conversion of every pattern in bits (a uint array of src's width).

    mode: one of MODES or "NONE" (RINT on lossy pairs, no rounding on exact ones: the same bits, D45).
    sat_int: the integer saturation in force (7.3 step 4); the pair's fixed rules (half -> int16 and narrow ->
    wider unsigned always saturate, D45 / 7.3 step 6) are applied here. sat_float: the half/bf16 overflow mode in
    force (D46). d71: half -> bfloat16 specials pass in both modes (950, D71)."""
    mode = "RINT" if mode in ("NONE", "UNKNOWN") else mode
    if src in FLOATS:
        sign, m, e, inf, nan = _decode_float(src, bits)
    else:
        sign, m, e, inf, nan, _ = _decode_int(src, bits)
    if dst in FLOATS:
        sat = sat_float and dst in ("half", "bfloat16")
        return _to_float(dst, sign, m, e, inf, nan, mode, sat, pass_specials=d71,
                         integral=(src == "float" and dst == "float"))
    fixed = (src == "half" and dst == "int16") or (
        src in INTS and not INTS[dst][1] and SIZE[dst] > SIZE[src])
    return _to_int(dst, sign, m, e, inf, nan, mode, sat_int or fixed)
