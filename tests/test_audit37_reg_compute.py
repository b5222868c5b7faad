"""Audit 37: the Ascend 950 Reg API's compute instructions against an independent model of SPEC.md section 7 and
SPEC-2.md sections 11.1-11.5 (Add/Sub/Mul and their carry forms, Duplicate, Reduce, ReduceDataBlock,
PairReduceElem, Cast, UpdateMask), with the golden vectors of SPEC.md 9 and SPEC-2.md 12.

The model below shares no code with ascend_jit.reference or ascend_jit.jit: float values are decoded from their bits
into exact fractions, every operation is computed exactly and rounded once to its format by this file's own rounding
function (RNE or the Cast round modes, gradual underflow, IEEE overflow), then the SPEC's overflow rules (D35, D45,
D46, D71) are applied. The package is used only to make cores, tensors and registers, run the instructions and read
the Unified Buffer. Every case runs the instruction twice (in a compiled VF and as plain Python, `vf.py_func`)
and compares the whole UB byte for byte with the model's; refusals must raise in both runs with the UB unchanged.
"""
import math
import zlib
from fractions import Fraction

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.errors import AscendJitError, ParameterError, UnsupportedDeviceError, UnsupportedDTypeError

R = aj.Reg
Z, M = R.MaskMergeMode.ZEROING, R.MaskMergeMode.MERGING
RM = aj.RoundMode

# ---------------------------------------------------------------------------------------------------------------
# The independent model
# ---------------------------------------------------------------------------------------------------------------
SIZE = {"half": 2, "bfloat16": 2, "float": 4, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4,
        "uint32": 4, "int64": 8, "uint64": 8}
FLOATS = {"half": (11, 5), "bfloat16": (8, 8), "float": (24, 8)}  # significand bits (with the hidden one), exponent
CANON_NAN = {"half": 0x7E00, "bfloat16": 0x7FC0, "float": 0x7FC00000}  # docs/decisions.md "NaN bit patterns"
ALL_TYPES = tuple(SIZE)
INTS = tuple(t for t in ALL_TYPES if t not in FLOATS)


def is_float(t):
    return t in FLOATS


def signed(t):
    return t.startswith("int")


def int_range(t):
    bits = 8 * SIZE[t]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed(t) else (0, (1 << bits) - 1)


def lanes_of(t):
    return 256 // SIZE[t]


def fparams(t):
    p, e = FLOATS[t]
    bias = (1 << (e - 1)) - 1
    return p, e, bias, 1 - bias, bias  # p, exponent bits, bias, emin, emax


# A float value: ("nan",), ("inf", sign) or ("fin", sign, Fraction magnitude)
def decode(t, bits):
    p, e, bias, emin, _ = fparams(t)
    width = p + e
    sign = (bits >> (width - 1)) & 1
    ex = (bits >> (p - 1)) & ((1 << e) - 1)
    man = bits & ((1 << (p - 1)) - 1)
    if ex == (1 << e) - 1:
        return ("nan",) if man else ("inf", sign)
    if ex == 0:
        return ("fin", sign, Fraction(man, 1) * Fraction(2) ** (emin - p + 1))
    return ("fin", sign, Fraction(man + (1 << (p - 1))) * Fraction(2) ** (ex - bias - p + 1))


def max_bits(t, sign):
    p, e, _, _, _ = fparams(t)
    return (sign << (p + e - 1)) | ((((1 << e) - 2) << (p - 1)) | ((1 << (p - 1)) - 1))


def inf_bits(t, sign):
    p, e, _, _, _ = fparams(t)
    return (sign << (p + e - 1)) | (((1 << e) - 1) << (p - 1))


def floor_log2(q):
    k = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** k > q:
        k -= 1
    elif Fraction(2) ** (k + 1) <= q:
        k += 1
    return k


def round_int(q, sign, mode):
    """Round a non-negative magnitude q (the value is (-1)**sign * q) to an integer magnitude by `mode`."""
    n, rest = divmod(q.numerator, q.denominator)
    if rest == 0:
        return n
    frac = Fraction(rest, q.denominator)
    if mode == "rint":
        return n + (1 if frac > Fraction(1, 2) or (frac == Fraction(1, 2) and n % 2 == 1) else 0)
    if mode == "round":
        return n + (1 if frac >= Fraction(1, 2) else 0)
    if mode == "trunc":
        return n
    if mode == "floor":
        return n + (1 if sign else 0)
    if mode == "ceil":
        return n + (0 if sign else 1)
    if mode == "odd":
        return n | 1
    raise ValueError(mode)


def encode(t, v, mode="rint"):
    """The bits of value v rounded to float type t by `mode` (SPEC-2 7.3 / D45: gradual underflow; a finite
    overflow gives inf for RINT/ROUND, MAX for TRUNC/ODD, +MAX/-inf for FLOOR, +inf/-MAX for CEIL)."""
    if v[0] == "nan":
        return CANON_NAN[t]
    if v[0] == "inf":
        return inf_bits(t, v[1])
    _, sign, q = v
    p, e, bias, emin, emax = fparams(t)
    width = p + e
    if q == 0:
        return sign << (width - 1)
    k = max(floor_log2(q), emin)
    quantum = Fraction(2) ** (k - p + 1)
    n = round_int(q / quantum, sign, mode)
    r = n * quantum
    if r > decode(t, max_bits(t, 0))[2]:
        to_inf = {"rint": True, "round": True, "trunc": False, "odd": False, "floor": sign == 1,
                  "ceil": sign == 0}[mode]
        return inf_bits(t, sign) if to_inf else max_bits(t, sign)
    if r == 0:
        return sign << (width - 1)
    if r < Fraction(2) ** emin:
        return (sign << (width - 1)) | int(r / Fraction(2) ** (emin - p + 1))
    k = floor_log2(r)
    man = int(r / Fraction(2) ** (k - p + 1)) - (1 << (p - 1))
    return (sign << (width - 1)) | ((k + bias) << (p - 1)) | man


def sat_half(bits):
    """SPEC 5.2, SPEC-2 D35 saturation of a stored half: +-inf -> +-65504, NaN -> +0."""
    if bits & 0x7C00 == 0x7C00:
        return 0 if bits & 0x3FF else (0x7BFF | (bits & 0x8000))
    return bits


def neg(v):
    if v[0] == "nan":
        return v
    return (v[0], 1 - v[1]) + v[2:]


def exact_add(x, y):
    if x[0] == "nan" or y[0] == "nan":
        return ("nan",)
    if x[0] == "inf" and y[0] == "inf":
        return x if x[1] == y[1] else ("nan",)
    if x[0] == "inf":
        return x
    if y[0] == "inf":
        return y
    s = (-x[2] if x[1] else x[2]) + (-y[2] if y[1] else y[2])
    if s == 0:
        return ("fin", 1 if (x[1] and y[1]) else 0, Fraction(0))
    return ("fin", 1 if s < 0 else 0, abs(s))


def exact_mul(x, y):
    if x[0] == "nan" or y[0] == "nan":
        return ("nan",)
    sign = x[1] ^ y[1]
    if x[0] == "inf" or y[0] == "inf":
        other = y if x[0] == "inf" else x
        if other[0] == "fin" and other[2] == 0:
            return ("nan",)
        return ("inf", sign)
    return ("fin", sign, x[2] * y[2])


def exact_op(op, x, y):
    return exact_add(x, y) if op == "add" else exact_add(x, neg(y)) if op == "sub" else exact_mul(x, y)


def to_signed(t, bits):
    lo, hi = int_range(t)
    return bits - (1 << (8 * SIZE[t])) if signed(t) and bits > hi else bits


def to_bits(t, v):
    return v & ((1 << (8 * SIZE[t])) - 1)


def float_lane_op(t, op, a, b, sat):
    """Add/Sub/Mul of one float lane (SPEC-2 11.2, 2.3): half and float one rounding of the exact result (0 ulp,
    subnormals kept), then SAT for half in saturation mode; bfloat16 RN_bf16(RN_float(x op y)), never saturated
    (SPEC-2 11.1, docs/decisions.md: bf16 Add is IEEE whatever CTRL[48] says)."""
    v = exact_op(op, decode(t, a), decode(t, b))
    if t == "bfloat16":
        return encode("bfloat16", decode("float", encode("float", v)))
    r = encode(t, v)
    return sat_half(r) if (t == "half" and sat) else r


def int_lane_op(t, op, a, b, int_sat):
    x, y = to_signed(t, a), to_signed(t, b)
    r = x + y if op == "add" else x - y if op == "sub" else x * y
    lo, hi = int_range(t)
    if int_sat and t in ("int16", "int32"):  # D35: only int16/int32 clamp
        return to_bits(t, min(max(r, lo), hi))
    return to_bits(t, r)


def lane_op(t, op, a, b, sat=False, int_sat=False):
    return float_lane_op(t, op, a, b, sat) if is_float(t) else int_lane_op(t, op, a, b, int_sat)


def pack(t, lane_bits):
    s = SIZE[t]
    return b"".join(int(v).to_bytes(s, "little") for v in lane_bits)


def unpack(t, raw):
    s = SIZE[t]
    return [int.from_bytes(raw[i:i + s], "little") for i in range(0, len(raw), s)]


def mask_bits(words):
    return sum(int(w) << (64 * i) for i, w in enumerate(words))


def active(bits, t, j):
    """SPEC-2 11.1: lane j of type t is active iff mask bit j*sizeof(T) is set."""
    return (bits >> (j * SIZE[t])) & 1 == 1


def mask_words(lanes, t, only_lowest=False):
    """A MaskReg that activates `lanes` of type t, every bit of a lane (as UpdateMask builds them) or its lowest."""
    bits = 0
    for j in lanes:
        bits |= (1 if only_lowest else (1 << SIZE[t]) - 1) << (j * SIZE[t])
    return tuple((bits >> (64 * i)) & (2**64 - 1) for i in range(4))


def model_binary(t, op, a, b, prev, mask, merging, sat, int_sat):
    bits = mask_bits(mask)
    out = []
    for j in range(lanes_of(t)):
        if active(bits, t, j):
            out.append(lane_op(t, op, a[j], b[j], sat, int_sat))
        else:
            out.append(prev[j] if merging else 0)
    return out


def model_carry(t, op, a, b, mask):
    """SPEC-2 11.2 carry forms: modular dst, carry bit 4k (Add: x + y >= 2**32; Sub: x >= y unsigned)."""
    bits = mask_bits(mask)
    out, carry = [], 0
    for j in range(64):
        if active(bits, t, j):
            x, y = a[j], b[j]
            if op == "add":
                out.append((x + y) & 0xFFFFFFFF)
                c = x + y >= 2**32
            else:
                out.append((x - y) & 0xFFFFFFFF)
                c = x >= y
            carry |= int(c) << (4 * j)
        else:
            out.append(0)
    return out, tuple((carry >> (64 * i)) & (2**64 - 1) for i in range(4))


# --- D41 ordering for MAX/MIN -----------------------------------------------------------------------------------
def order_key(t, bits):
    """A sort key of the D41 total order: -inf < negatives < -0 < +0 < positives < +inf (NaN handled apart)."""
    if not is_float(t):
        return to_signed(t, bits)
    v = decode(t, bits)
    if v[0] == "inf":
        return (2, 0) if v[1] == 0 else (-2, 0)
    _, sign, q = v
    if q == 0:
        return (0, 1) if sign == 0 else (0, -1)
    return (1, q) if sign == 0 else (-1, -q)


def fkey(t, bits):
    """A comparable key for floats: maps D41's order onto a single tuple ordering."""
    k = order_key(t, bits)
    if not is_float(t):
        return (k,)
    cls, q = k
    # cls: -2 -inf, -1 negative (q = -|x|), 0 zero (q = sign marker), 1 positive, 2 +inf
    return (cls, q)


def is_nan(t, bits):
    return is_float(t) and decode(t, bits)[0] == "nan"


def extreme(t, lane_bits, want_max):
    """Value and first index of the D41 extreme of (index, bits) pairs; a NaN wins at its first lane."""
    for j, v in lane_bits:
        if is_nan(t, v):
            return CANON_NAN[t], j
    best = None
    for j, v in lane_bits:
        if best is None or (fkey(t, v) > fkey(t, best[1]) if want_max else fkey(t, v) < fkey(t, best[1])):
            best = (j, v)
    return best[1], best[0]


def identity(t, want_max):
    """A fully masked MAX/MIN: -inf/+inf for floats, the type's MIN/MAX for integers (SPEC 7.5, SPEC-2 D66)."""
    if is_float(t):
        return inf_bits(t, 1 if want_max else 0)
    lo, hi = int_range(t)
    return to_bits(t, lo if want_max else hi)


def tree_sum(t, values, sat):
    """The adjacent-pair tree (SPEC 7.5, 7.7, SPEC-2 11.4): each level adds lanes 2i and 2i+1, each add rounded
    (half: SAT(RN) in saturation mode), integers exact (wrapped by the caller)."""
    level = list(values)
    while len(level) > 1:
        if is_float(t):
            level = [lane_op(t, "add", level[i], level[i + 1], sat) for i in range(0, len(level), 2)]
        else:
            level = [level[i] + level[i + 1] for i in range(0, len(level), 2)]
    return level[0]


REDUCE_SUM_DST = {"half": "half", "float": "float", "int16": "int32", "uint16": "uint32", "int32": "int32",
                  "uint32": "uint32", "int64": "int64", "uint64": "uint64"}
REDUCE_EXTREME = ("int16", "uint16", "half", "int32", "uint32", "float", "int64", "uint64")


def model_reduce(ts, td, src, mask, kind, sat):
    """SPEC-2 11.4 / D66: SUM into lane 0; MAX/MIN value in lane 0 (through SAT), first index in lane 1."""
    bits = mask_bits(mask)
    n = lanes_of(ts)
    out = [0] * lanes_of(td)
    if kind == "sum":
        if is_float(ts):
            vals = [src[j] if active(bits, ts, j) else 0 for j in range(n)]  # +0 for inactive lanes (D2, D66)
            out[0] = tree_sum(ts, vals, sat)
        else:
            vals = [to_signed(ts, src[j]) if active(bits, ts, j) else 0 for j in range(n)]
            out[0] = to_bits(td, tree_sum(ts, vals, False))
        return out
    act = [(j, src[j]) for j in range(n) if active(bits, ts, j)]
    if act:
        v, idx = extreme(ts, act, kind == "max")
    else:
        v, idx = identity(ts, kind == "max"), 0
    out[0] = sat_half(v) if (ts == "half" and sat) else v
    out[1] = idx
    return out


def model_reduce_block(ts, td, src, mask, kind, sat):
    """SPEC 7.5 (D3, D20, D25): block b's SUM/MAX/MIN into dst lane b, lanes 8.. 0."""
    bits = mask_bits(mask)
    per = 32 // SIZE[ts]
    out = [0] * lanes_of(td)
    for blk in range(8):
        idx = range(blk * per, (blk + 1) * per)
        if kind == "sum":
            if is_float(ts):
                out[blk] = tree_sum(ts, [src[j] if active(bits, ts, j) else 0 for j in idx], sat)
            else:
                vals = [to_signed(ts, src[j]) if active(bits, ts, j) else 0 for j in idx]
                out[blk] = to_bits(td, tree_sum(ts, vals, False))
        else:
            act = [(j, src[j]) for j in idx if active(bits, ts, j)]
            v = extreme(ts, act, kind == "max")[0] if act else identity(ts, kind == "max")
            out[blk] = sat_half(v) if (ts == "half" and sat) else v
    return out


def model_pair(t, src, mask, sat):
    """SPEC 7.6 / decisions.md: dst lane i < L/2 = one rounded add of lanes 2i, 2i+1 (inactive: +0); the rest 0."""
    bits = mask_bits(mask)
    n = lanes_of(t)
    out = [0] * n
    for i in range(n // 2):
        x = src[2 * i] if active(bits, t, 2 * i) else 0
        y = src[2 * i + 1] if active(bits, t, 2 * i + 1) else 0
        out[i] = lane_op(t, "add", x, y, sat)
    return out


# --- Cast (SPEC-2 7.3, 11.5, D45, D46, D65, D71) -------------------------------------------------------------
ROUND_NAMES = {RM.CAST_RINT: "rint", RM.CAST_FLOOR: "floor", RM.CAST_CEIL: "ceil", RM.CAST_ROUND: "round",
               RM.CAST_TRUNC: "trunc", RM.CAST_ODD: "odd", RM.UNKNOWN: "rint"}


def convert(ts, td, x, mode, saturate):
    """One value of type ts (bits x) to td; `saturate`: the overflow rule that applies (True: clamp / SAT)."""
    if is_float(ts):
        v = decode(ts, x)
        if not is_float(td):
            lo, hi = int_range(td)
            if v[0] == "nan":
                return 0
            if v[0] == "inf":
                return to_bits(td, hi if v[1] == 0 else lo)
            _, sign, q = v
            n = round_int(q, sign, mode)
            n = -n if sign else n
            if ts == "half" and td == "int16":  # D45: always saturates
                saturate = True
            return to_bits(td, min(max(n, lo), hi) if saturate else n)
        if ts == "half" and td == "bfloat16":  # D71: +-inf and NaN pass in both modes
            return encode(td, v, mode)
        r = encode(td, v, mode)
        return sat_any(td, r) if saturate else r
    n = to_signed(ts, x)
    if is_float(td):
        return encode(td, ("fin", 1 if n < 0 else 0, Fraction(abs(n))), mode)
    lo, hi = int_range(td)
    if ts == "int16" and td == "uint32":  # SPEC-2 7.3 step 6: signed -> wider unsigned clamps negatives
        return to_bits(td, max(n, 0))
    return to_bits(td, min(max(n, lo), hi) if saturate else n)


def sat_any(t, bits):
    """D35/D46 saturation of a half or bfloat16 result: +-inf -> +-MAX, NaN -> +0."""
    v = decode(t, bits)
    if v[0] == "nan":
        return 0
    if v[0] == "inf":
        return max_bits(t, v[1])
    return bits


def cast_saturates(ts, td, sat_mode, ctrl):
    """Which overflow rule a Reg Cast lane uses (SPEC-2 11.5): the global bits when CTRL[60] = 1 or the trait's
    satMode is UNKNOWN (CTRL[59] for integer destinations, 0 = saturate; CTRL[48] for half/bf16, 0 = saturate;
    float never), else the trait's SAT / NO_SAT."""
    if td == "float":
        return False
    if ctrl.get(60, 1) == 1 or sat_mode == R.SatMode.UNKNOWN:
        if is_float(td):
            return ctrl.get(48, 1) == 0
        return ctrl.get(59, 0) == 0
    return sat_mode == R.SatMode.SAT


def model_cast(ts, td, src, prev_unused, mask, trait, ctrl):
    layout, sat_mode, _, rnd = trait
    mode = ROUND_NAMES[rnd]
    saturate = cast_saturates(ts, td, sat_mode, ctrl)
    bits = mask_bits(mask)
    ss, ds = SIZE[ts], SIZE[td]
    out = [0] * lanes_of(td)
    k = max(int(layout) - int(R.RegLayout.ZERO), 0)
    if ss == ds:
        for j in range(lanes_of(ts)):
            if active(bits, ts, j):
                out[j] = convert(ts, td, src[j], mode, saturate)
    elif ds > ss:
        r = ds // ss
        for j in range(lanes_of(td)):
            i = r * j + k
            if active(bits, ts, i):
                out[j] = convert(ts, td, src[i], mode, saturate)
    else:
        r = ss // ds
        for j in range(lanes_of(ts)):
            if active(bits, ts, j):
                out[r * j + k] = convert(ts, td, src[j], mode, saturate)
    return out


# ---------------------------------------------------------------------------------------------------------------
# Harness: cores, tensors, the two runs, the whole-UB comparison
# ---------------------------------------------------------------------------------------------------------------
def seed_of(*parts):
    """A deterministic seed (Python's str hash is salted per process)."""
    return zlib.crc32(repr(parts).encode())


def make_core(sat=False, int_sat=False, ctrl=None, device="ascend950"):
    core = aj.Core(device)
    if device == "ascend950":
        core.SetCtrlSpr(48, 48, 0 if sat else 1)
        core.SetCtrlSpr(53, 53, 1 if int_sat else 0)
        for bit, v in (ctrl or {}).items():
            core.SetCtrlSpr(bit, bit, v)
    return core


def tensor(core, t, lane_bits=None, raw=None):
    x = core.local_tensor(t, lanes_of(t))
    data = pack(t, lane_bits) if raw is None else raw
    a = x.GetPhyAddr()
    core.ub[a:a + 256] = np.frombuffer(data, np.uint8)
    core.ub_written_by_host(a, 256)
    return x


def read(core, x):
    a = x.GetPhyAddr()
    return bytes(core.ub[a:a + 256])


def garbage(t, rng):
    return [int(v) for v in rng.integers(0, 1 << (8 * SIZE[t]), lanes_of(t), dtype=np.uint64)]


def _describe(core, got, want, outs):
    diff = np.nonzero(got != want)[0]
    lines = [f"{len(diff)} bytes differ, first at UB byte {diff[0]}"]
    for x, t in outs:
        a = x.GetPhyAddr()
        g, w = unpack(t, bytes(got[a:a + 256])), unpack(t, bytes(want[a:a + 256]))
        bad = [j for j in range(len(g)) if g[j] != w[j]]
        if bad:
            lines.append(f"  {t} tensor @{a}: {len(bad)} lanes differ; first lanes " +
                         ", ".join(f"[{j}] got {g[j]:#x} want {w[j]:#x}" for j in bad[:6]))
    return "\n".join(lines)


def run_both(core, invoke, expected, label=""):
    """invoke(compiled) runs the instruction; expected: [(tensor, dtype, lane bits)]. Both runs must leave the UB
    equal, byte for byte, to the model's UB (the snapshot with the expected tensors replaced)."""
    snap = core.ub.copy()
    want = snap.copy()
    for x, t, lanes in expected:
        a = x.GetPhyAddr()
        want[a:a + 256] = np.frombuffer(pack(t, lanes), np.uint8)
    results = []
    for compiled in (True, False):
        core.ub[:] = snap
        with core:
            r = invoke(compiled)
        got = core.ub.copy()
        if not np.array_equal(got, want):
            raise AssertionError(f"{label} {'compiled VF' if compiled else 'plain Python'} differs from the "
                                 f"model:\n" + _describe(core, got, want, [(x, t) for x, t, _ in expected]))
        results.append(r)
    return results


def refuses(core, invoke, cls, label=""):
    """Both runs raise `cls` (an AscendJitError subclass) and leave the UB unchanged."""
    assert issubclass(cls, AscendJitError)
    snap = core.ub.copy()
    for compiled in (True, False):
        with core:
            with pytest.raises(cls):
                invoke(compiled)
        assert np.array_equal(core.ub, snap), f"{label}: UB changed by a refused call ({compiled=})"


# ---------------------------------------------------------------------------------------------------------------
# The VFs (dtype names as arguments: one VF per dtype class serves many dtypes)
# ---------------------------------------------------------------------------------------------------------------
def _vf_bin(out, a, b, T, op, mask, mode, alias):
    rd, ra, rb = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    R.LoadAlign(rd, out)
    R.LoadAlign(ra, a)
    R.LoadAlign(rb, b)
    d, x, y = rd, ra, rb
    if alias == 1:  # dst is src0
        d = ra
    elif alias == 2:  # dst is src1
        d = rb
    elif alias == 3:  # both sources one register
        y = ra
    elif alias == 4:  # all three one register
        d = ra
        y = ra
    if op == 0:
        R.Add(d, x, y, mask, mode)
    elif op == 1:
        R.Sub(d, x, y, mask, mode)
    else:
        R.Mul(d, x, y, mask, mode)
    R.StoreAlign(out, d, R.CreateMask(T))


def _vf_half(out, a, b, op, count, alias):
    """Literal half registers and an UpdateMask mask, as the benchmark's add-mul VF."""
    rd, ra, rb = R.RegTensor("half"), R.RegTensor("half"), R.RegTensor("half")
    R.LoadAlign(rd, out)
    R.LoadAlign(ra, a)
    R.LoadAlign(rb, b)
    mask, rest = R.UpdateMask("half", count)
    d, x, y = rd, ra, rb
    if alias == 1:
        d = ra
    elif alias == 4:
        d = ra
        y = ra
    if op == 0:
        R.Add(d, x, y, mask)
    elif op == 1:
        R.Sub(d, x, y, mask)
    else:
        R.Mul(d, x, y, mask)
    R.StoreAlign(out, d, R.CreateMask("half"))
    return rest


def _vf_regs(rd, ra, rb, op, mask, mode):
    """Registers passed in as arguments: their dtype is known only at run time."""
    if op == 0:
        R.Add(rd, ra, rb, mask, mode)
    elif op == 1:
        R.Sub(rd, ra, rb, mask, mode)
    else:
        R.Mul(rd, ra, rb, mask, mode)


def _vf_mixed(out, a, b, Td, T0, T1, op, mask, mode):
    rd, ra, rb = R.RegTensor(Td), R.RegTensor(T0), R.RegTensor(T1)
    R.LoadAlign(rd, out)
    R.LoadAlign(ra, a)
    R.LoadAlign(rb, b)
    if op == 0:
        R.Add(rd, ra, rb, mask, mode)
    elif op == 1:
        R.Sub(rd, ra, rb, mask, mode)
    else:
        R.Mul(rd, ra, rb, mask, mode)
    R.StoreAlign(out, rd, R.CreateMask(Td))


def _vf_carry(out, a, b, T, T1, op, mask, carry):
    rd, ra, rb = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T1)
    R.LoadAlign(rd, out)
    R.LoadAlign(ra, a)
    R.LoadAlign(rb, b)
    if op == 0:
        R.Add(carry, rd, ra, rb, mask)
    else:
        R.Sub(carry, rd, ra, rb, mask)
    R.StoreAlign(out, rd, R.CreateMask(T))


def _vf_dup(out, src, T, value, mask, mode, form):
    rd, rs = R.RegTensor(T), R.RegTensor(T)
    R.LoadAlign(rd, out)
    R.LoadAlign(rs, src)
    if form == 0:
        R.Duplicate(rd, value)
    elif form == 1:
        R.Duplicate(rd, value, mask, mode)
    elif form == 2:
        R.Duplicate(rd, rs, mask, mode)
    else:  # sources made and filled in the VF (no load): they carry the VF core's modes (SPEC-2 11.1)
        rx = R.RegTensor(T)
        R.Duplicate(rx, value)
        R.Add(rd, rx, rx, mask, mode)
    R.StoreAlign(out, rd, R.CreateMask(T))


def _vf_red(out, a, Ts, Td, which, rtype, mask, mode):
    rs, rd = R.RegTensor(Ts), R.RegTensor(Td)
    R.LoadAlign(rd, out)
    R.LoadAlign(rs, a)
    if which == 0:
        R.Reduce(rd, rs, mask, rtype, mode)
    elif which == 1:
        R.ReduceDataBlock(rd, rs, mask, rtype, mode)
    else:
        R.PairReduceElem(rd, rs, mask, mode)
    R.StoreAlign(out, rd, R.CreateMask(Td))


def _vf_cast(out, a, Ts, Td, mask, trait):
    rs, rd = R.RegTensor(Ts), R.RegTensor(Td)
    R.LoadAlign(rd, out)
    R.LoadAlign(rs, a)
    R.Cast(rd, rs, mask, trait)
    R.StoreAlign(out, rd, R.CreateMask(Td))


def _vf_any(out, a, b, T0, T1, pick, op, mask, mode):
    """A dtype name of two classes in one variable: its registers' dtype is known only at run time."""
    T = T0
    if pick == 1:
        T = T1
    rd, ra, rb = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    R.LoadAlign(rd, out)
    R.LoadAlign(ra, a)
    R.LoadAlign(rb, b)
    if op == 0:
        R.Add(rd, ra, rb, mask, mode)
    elif op == 1:
        R.Sub(ra, ra, rb, mask, mode)
        R.Add(rd, ra, rd, mask, mode)
    else:
        R.Mul(rd, ra, ra, mask, mode)
    R.StoreAlign(out, rd, R.CreateMask(T))


def _vf_update(out, T, value, n):
    """UpdateMask (SPEC 7.2) as a store mask: StoreAlign writes the active lanes only (SPEC 7.3)."""
    rd = R.RegTensor(T)
    mask, rest = R.UpdateMask(T, n)
    R.Duplicate(rd, value)
    R.StoreAlign(out, rd, mask)
    return rest


def _vf_block_loop(dst, src, count, one_repeat, repeats, T):
    """SPEC 9's Reg ReduceDataBlock example (DK examples/.../reduce_block): LoadAlign, UpdateMask,
    ReduceDataBlock<SUM>, StoreAlign per repeat."""
    src_reg, dst_reg = R.RegTensor(T), R.RegTensor(T)
    for i in range(repeats):
        R.LoadAlign(src_reg, src, i * one_repeat)
        mask, count = R.UpdateMask(T, count)
        R.ReduceDataBlock(dst_reg, src_reg, mask)
        R.StoreAlign(dst, dst_reg, mask, i * one_repeat)


def _vf_pattern(out, out2, a, T, pattern):
    """A CreateMask pattern mask (made in the VF) on Add MERGING, Reduce MAX and as a store mask."""
    rd, ra, rr = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    mask = R.CreateMask(T, pattern)
    R.LoadAlign(rd, out)
    R.LoadAlign(ra, a)
    R.Add(rd, ra, ra, mask, R.MaskMergeMode.MERGING)
    R.StoreAlign(out, rd, R.CreateMask(T))
    R.Reduce(rr, ra, mask, R.ReduceType.MAX)
    R.StoreAlign(out2, rr, mask)


BIN, HALF, REGS, MIXED, CARRY, DUP, RED, CAST, ANY, UPDATE, BLOCK_LOOP, PATTERN = (R.simd_vf(f) for f in (
    _vf_bin, _vf_half, _vf_regs, _vf_mixed, _vf_carry, _vf_dup, _vf_red, _vf_cast, _vf_any, _vf_update,
    _vf_block_loop, _vf_pattern))


def call(vf, compiled, *args):
    return (vf if compiled else vf.py_func)(*args)


# ---------------------------------------------------------------------------------------------------------------
# Inputs: specials (NaN payloads, infinities, subnormals, signed zeros, extremes) mixed with random lanes
# ---------------------------------------------------------------------------------------------------------------
SPECIALS = {
    "half": [0x0000, 0x8000, 0x0001, 0x8001, 0x0200, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x3C00, 0xBC00, 0x3C01,
             0x3BFF, 0x4000, 0x6800, 0x3E00, 0x7BFF, 0xFBFF, 0x7BFE, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01,
             0xFC01, 0x7FFF, 0x7D00, 0x1400, 0x0C00, 0x5BFF, 0x7800, 0xF800, 0x6801, 0x3800, 0x1000, 0x8C00],
    "bfloat16": [0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x3F80, 0xBF80, 0x3F81, 0x7F7F, 0xFF7F, 0x7F80,
                 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0x7FFF, 0x4B00, 0x4B01, 0x3B80, 0x2000, 0x0100],
    "float": [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, 0x3F800000, 0xBF800000,
              0x3F800001, 0x3F7FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
              0x7F800001, 0x7FBFFFFF, 0x4B000000, 0x4B000001, 0x33800000, 0x34000000, 0x1F800000, 0x5F000000,
              0x4F000000, 0xCF000000, 0x477FE000, 0x477FF000, 0x4A800001, 0x3F001000],
}


def int_specials(t):
    lo, hi = int_range(t)
    vals = [0, 1, 2, 3, -1, -2, lo, lo + 1, hi, hi - 1, hi // 2, lo // 2, 127, -128, 255, 256, 32767, -32768,
            65535, 2**31 - 1, -2**31, 2**32 - 1]
    return [to_bits(t, v) for v in vals if lo <= v <= hi]


def gen(t, rng, n=None, special_share=0.35):
    """n lanes of type t: specials, random bit patterns and (floats) random moderate values."""
    n = lanes_of(t) if n is None else n
    pool = SPECIALS[t] if is_float(t) else int_specials(t)
    out = []
    for _ in range(n):
        u = rng.random()
        if u < special_share:
            out.append(int(pool[rng.integers(len(pool))]))
        elif u < 0.65 or not is_float(t):
            out.append(int(rng.integers(0, 1 << (8 * SIZE[t]), dtype=np.uint64)))
        else:
            v = float(rng.normal(0, 1) * 2.0 ** int(rng.integers(-12, 12)))
            if t == "half":
                out.append(int(np.float16(v).view(np.uint16)))
            elif t == "float":
                out.append(int(np.float32(v).view(np.uint32)))
            else:
                out.append(int(np.float32(v).view(np.uint32)) >> 16)
    return out


def random_mask(t, rng, p=0.7):
    return mask_words([j for j in range(lanes_of(t)) if rng.random() < p], t)


def full_mask(t):
    return mask_words(range(lanes_of(t)), t)


def mask_named(t, kind, rng):
    n = lanes_of(t)
    if kind == "all":
        return full_mask(t)
    if kind == "one_off":  # exactly one lane off (every bit of it)
        return mask_words([j for j in range(n) if j != 77 % n], t)
    if kind == "lowbit_off":  # only the significant (lowest) bit of lane 5 cleared: lane 5 inactive (SPEC 7.1)
        return mask_words([j for j in range(n) if j != 5], t) if SIZE[t] == 1 else \
            tuple(w & ~(1 << (5 * SIZE[t])) & (2**64 - 1) if i == 0 else w
                  for i, w in enumerate(full_mask(t)))
    if kind == "lowest_only":  # every lane active by its lowest bit alone (the other bits 0)
        return mask_words(range(n), t, only_lowest=True)
    if kind == "random":
        return random_mask(t, rng)
    if kind == "none":
        return (0, 0, 0, 0)
    raise ValueError(kind)


def mreg(words):
    return R.MaskReg(list(words))


# ---------------------------------------------------------------------------------------------------------------
# Add / Sub / Mul (SPEC-2 11.2, D35, D67; SPEC 5): the hot half path and the general engine
# ---------------------------------------------------------------------------------------------------------------
OPS = ("add", "sub", "mul")


def alias_operands(alias, a, b, prev):
    """(dst's previous lanes, src0, src1) as the instruction sees them for an aliasing pattern of _vf_bin."""
    return {0: (prev, a, b), 1: (a, a, b), 2: (b, a, b), 3: (prev, a, a), 4: (a, a, a)}[alias]


def check_binary(t, op, alias, mask, mode=Z, sat=False, int_sat=False, seed=0, a=None, b=None):
    rng = np.random.default_rng(seed)
    core = make_core(sat, int_sat)
    a = gen(t, rng) if a is None else a
    b = gen(t, rng) if b is None else b
    prev = garbage(t, rng)
    ta, tb, to = tensor(core, t, a), tensor(core, t, b), tensor(core, t, prev)
    dprev, x, y = alias_operands(alias, a, b, prev)
    want = model_binary(t, op, x, y, dprev, mask, mode == M, sat, int_sat)
    run_both(core, lambda c: call(BIN, c, to, ta, tb, t, OPS.index(op), mreg(mask), mode, alias),
             [(to, t, want)], label=f"{op} {t} alias={alias} sat={sat} int_sat={int_sat} mode={mode.name}")


HALF_CASES = [(op, sat, alias, mk) for op in OPS for sat in (False, True) for alias in range(5)
              for mk in (("all", "one_off", "lowbit_off", "lowest_only", "random") if alias == 0 else
                         ("all", "one_off"))]


@pytest.mark.parametrize("op,sat,alias,mk", HALF_CASES)
def test_half_binary_hot_boundary(op, sat, alias, mk):
    """Half Add/Sub/Mul on the hot path (all lanes, ZEROING) and just off it (one lane off, only the significant
    bit of a lane cleared, only significant bits set), aliasing, both half overflow modes, special payloads."""
    rng = np.random.default_rng(seed_of(op, sat, alias, mk))
    check_binary("half", op, alias, mask_named("half", mk, rng), Z, sat=sat, seed=int(rng.integers(1 << 30)))


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("sat", (False, True))
def test_half_hot_special_cross_product(op, sat):
    """Every pair of the half specials (NaN payloads, +-inf, subnormals, +-0, extremes, ties) and random pairs over
    the whole 16-bit space, on the hot path (all lanes, ZEROING), 128 pairs per call."""
    rng = np.random.default_rng(OPS.index(op) * 2 + sat)
    pool = SPECIALS["half"]
    pairs = [(x, y) for x in pool for y in pool]
    pairs += [(int(x), int(y)) for x, y in rng.integers(0, 65536, (1024, 2))]
    pairs += [(0x6800 + int(k), int(v)) for k, v in zip(rng.integers(0, 8, 256), rng.integers(0x3C00, 0x4800, 256))]
    pairs += [(0, 0)] * (-len(pairs) % 128)
    for i in range(0, len(pairs), 128):
        chunk = pairs[i:i + 128]
        check_binary("half", op, 0, full_mask("half"), Z, sat=sat, a=[x for x, _ in chunk], b=[y for _, y in chunk],
                     seed=i)


@pytest.mark.parametrize("sat", (False, True))
@pytest.mark.parametrize("alias", range(5))
@pytest.mark.parametrize("mk", ("all", "one_off", "random"))
def test_half_add_merging(sat, alias, mk):
    """Add with MERGING (SPEC-2 11.1/D67): inactive lanes keep dst's previous contents, also when dst aliases."""
    rng = np.random.default_rng(1000 + 10 * alias + sat)
    check_binary("half", "add", alias, mask_named("half", mk, rng), M, sat=sat, seed=alias)


OTHER_CASES = [(t, op, mk) for t in ALL_TYPES if t != "half" for op in OPS
               if not (op == "mul" and SIZE[t] == 1) for mk in ("all", "random")]


@pytest.mark.parametrize("t,op,mk", OTHER_CASES)
def test_binary_other_dtypes(t, op, mk):
    """The general engine on every other dtype. flag: integer saturation (CTRL[53]=1) for integers (only int16 and
    int32 clamp, D35), the half saturation mode for float/bfloat16 (which never saturate, SPEC D6)."""
    for flag in (False, True):
        rng = np.random.default_rng(seed_of(t, op, mk, flag))
        mask = mask_named(t, mk, rng)
        check_binary(t, op, int(rng.integers(5)), mask, Z, sat=flag and is_float(t),
                     int_sat=flag and not is_float(t), seed=int(rng.integers(1 << 30)))


@pytest.mark.parametrize("t", [t for t in ALL_TYPES if t != "half"])
def test_add_merging_other_dtypes(t):
    rng = np.random.default_rng(SIZE[t] * 7 + len(t))
    check_binary(t, "add", int(rng.integers(5)), random_mask(t, rng), M, int_sat=True, seed=3)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("sat", (False, True))
@pytest.mark.parametrize("alias", (0, 4))
@pytest.mark.parametrize("count", (128, 127, 0, 300))
def test_half_literal_vf_update_mask(op, sat, alias, count):
    """The benchmark's shape: literal half registers, an UpdateMask mask (SPEC 7.2: the lowest min(n, 128) lanes,
    n decremented in place; returned by the VF)."""
    rng = np.random.default_rng(count * 31 + alias * 7 + sat + OPS.index(op) * 1000)
    core = make_core(sat)
    a, b, prev = gen("half", rng), gen("half", rng), garbage("half", rng)
    ta, tb, to = tensor(core, "half", a), tensor(core, "half", b), tensor(core, "half", prev)
    dprev, x, y = alias_operands(alias, a, b, prev)
    want = model_binary("half", op, x, y, dprev, mask_words(range(min(count, 128)), "half"), False, sat, False)
    rests = run_both(core, lambda c: call(HALF, c, to, ta, tb, OPS.index(op), count, alias), [(to, "half", want)],
                     label=f"literal half {op} count={count} alias={alias} sat={sat}")
    assert rests == [max(count - 128, 0)] * 2


@pytest.mark.parametrize("t,other", (("half", "float"), ("float", "half"), ("int32", "half"), ("half", "int8"),
                                     ("bfloat16", "half")))
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("mk", ("all", "one_off"))
def test_runtime_dtype_of_two_classes(t, other, op, mk):
    """A VF whose dtype-name variable may hold two classes: Add(d, a, b); Sub(a, a, b) then Add(d, a, d);
    Mul(d, a, a)."""
    for sat in (False, True):
        _two_classes(t, other, op, mk, sat)


def _two_classes(t, other, op, mk, sat):
    rng = np.random.default_rng(seed_of(t, other, op, mk, sat))
    core = make_core(sat=sat, int_sat=sat)
    a, b, prev = gen(t, rng), gen(t, rng), garbage(t, rng)
    ta, tb, to = tensor(core, t, a), tensor(core, t, b), tensor(core, t, prev)
    mask = mask_named(t, mk, rng)
    if op == "add":
        want = model_binary(t, "add", a, b, prev, mask, False, sat, sat)
    elif op == "sub":
        diff = model_binary(t, "sub", a, b, a, mask, False, sat, sat)
        want = model_binary(t, "add", diff, prev, prev, mask, False, sat, sat)
    else:
        want = model_binary(t, "mul", a, a, prev, mask, False, sat, sat)
    pick, names = (1, (other, t)) if len(t) % 2 else (0, (t, other))
    run_both(core, lambda c: call(ANY, c, to, ta, tb, *names, pick, OPS.index(op), mreg(mask), Z), [(to, t, want)],
             label=f"two-class dtype name {t} {op}")


def test_registers_loaded_under_other_modes():
    """docs/decisions.md "Reg API": a register keeps the modes of the core it was loaded from and a result takes its
    first source's; the VF runs under a third core. 65504 + 65504 with a saturating src0 -> 65504, with an
    INF/NaN src0 -> +inf, on the hot path and off it."""
    sat_core, inf_core, run_core = make_core(sat=True), make_core(sat=False), make_core(sat=False)
    ts = tensor(sat_core, "half", [HMAX] * 128)
    ti = tensor(inf_core, "half", [HMAX] * 128)
    for mk in ("all", "one_off"):
        mask = mask_named("half", mk, None)
        on = mask_bits(mask)
        for first_sat in (True, False):
            got = []
            for compiled in (True, False):
                with run_core:
                    rs, ri, rd = R.RegTensor("half"), R.RegTensor("half"), R.RegTensor("half")
                    R.LoadAlign(rs, ts)
                    R.LoadAlign(ri, ti)
                    call(REGS, compiled, rd, *((rs, ri) if first_sat else (ri, rs)), 0, mreg(mask), Z)
                    got.append(unpack("half", pack("half", [int(v) for v in rd.numpy().view(np.uint16)])))
            want = [(HMAX if first_sat else HINF) if active(on, "half", j) else 0 for j in range(128)]
            assert got == [want, want], (mk, first_sat)


@pytest.mark.parametrize("t", ("half", "float", "int16", "bfloat16"))
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("mk", ("all", "one_off"))
def test_registers_as_vf_arguments(t, op, mk):
    """Registers passed to a VF (their dtype known only at run time), aliased dst = src0 = src1 too, under the
    saturating modes: compiled equals plain equals the model."""
    rng = np.random.default_rng(seed_of(t, op, mk))
    core = make_core(sat=True, int_sat=True)
    a, b, prev = gen(t, rng), gen(t, rng), garbage(t, rng)
    ta, tb, to, to2 = tensor(core, t, a), tensor(core, t, b), tensor(core, t, prev), tensor(core, t, prev)
    mask = mask_named(t, mk, rng)

    def invoke(compiled):
        rd, ra, rb = R.RegTensor(t), R.RegTensor(t), R.RegTensor(t)
        R.LoadAlign(rd, to)
        R.LoadAlign(ra, ta)
        R.LoadAlign(rb, tb)
        call(REGS, compiled, rd, ra, rb, OPS.index(op), mreg(mask), Z)
        R.StoreAlign(to, rd, R.CreateMask(t))
        call(REGS, compiled, ra, ra, ra, OPS.index(op), mreg(mask), Z)  # dst = src0 = src1
        R.StoreAlign(to2, ra, R.CreateMask(t))

    want = model_binary(t, op, a, b, prev, mask, False, True, True)
    want2 = model_binary(t, op, a, a, a, mask, False, True, True)
    run_both(core, invoke, [(to, t, want), (to2, t, want2)], label=f"register arguments {t} {op}")


# ---------------------------------------------------------------------------------------------------------------
# Carry forms (SPEC-2 11.2, D67, G-3)
# ---------------------------------------------------------------------------------------------------------------
def check_carry(t, op, a, b, mask, seed=0):
    rng = np.random.default_rng(seed)
    core = make_core(int_sat=True)  # carry forms are modular whatever CTRL[53] says
    prev = garbage(t, rng)
    ta, tb, to = tensor(core, t, a), tensor(core, t, b), tensor(core, t, prev)
    want, want_carry = model_carry(t, op, a, b, mask)
    carries = []

    def invoke(compiled):
        carry = R.MaskReg([0xA5A5A5A5A5A5A5A5, 2**64 - 1, 0x123456789, 7])  # every bit must be rewritten
        call(CARRY, compiled, to, ta, tb, t, t, OPS.index(op), mreg(mask), carry)
        carries.append(tuple(int(w) for w in carry.words))

    run_both(core, invoke, [(to, t, want)], label=f"carry {op} {t}")
    assert carries == [want_carry, want_carry], (carries, want_carry)


@pytest.mark.parametrize("t", ("int32", "uint32"))
@pytest.mark.parametrize("op", ("add", "sub"))
@pytest.mark.parametrize("mk", ("all", "random", "lowbit_off"))
def test_carry_forms(t, op, mk):
    rng = np.random.default_rng(seed_of(t, op, mk))
    a, b = gen(t, rng), gen(t, rng)
    b[:8] = a[:8]  # x == y: Sub's carry (no borrow) is 1
    check_carry(t, op, a, b, mask_named(t, mk, rng), seed=5)


@pytest.mark.parametrize("t", ("int32", "uint32"))
def test_carry_golden_g3(t):
    """G-3: Add 0xFFFFFFFF + 1 -> 0, carry 1; 0x7FFFFFFF + 1 -> 0x80000000, carry 0; Sub 7-5 -> 2, carry 1;
    5-7 -> 0xFFFFFFFE, carry 0; 5-5 -> 0, carry 1; carry of lane k is bit 4k."""
    a = [0xFFFFFFFF, 0x7FFFFFFF] + [0] * 62
    b = [1, 1] + [0] * 62
    want, carry = model_carry(t, "add", a, b, full_mask(t))
    assert want[:2] == [0, 0x80000000] and carry[0] & 0xFF == 0x01
    check_carry(t, "add", a, b, full_mask(t))
    a = [7, 5, 5] + [1] * 61
    b = [5, 7, 5] + [2] * 61
    want, carry = model_carry(t, "sub", a, b, full_mask(t))
    assert want[:3] == [2, 0xFFFFFFFE, 0] and carry[0] & 0xFFF == 0x101
    check_carry(t, "sub", a, b, full_mask(t))


# ---------------------------------------------------------------------------------------------------------------
# Duplicate (SPEC-2 11.3, D29)
# ---------------------------------------------------------------------------------------------------------------
def scalar_bits_model(t, value):
    """D29: a numpy scalar of exactly the type bit for bit; a Python float (or int for a float type) rounded once
    RNE (overflow to inf, never saturated; NaN canonical); a Python int for an integer type in range."""
    if isinstance(value, np.generic):
        return int(np.asarray(value).view(f"u{np.asarray(value).itemsize}"))
    if is_float(t):
        if isinstance(value, float) and math.isnan(value):
            return CANON_NAN[t]
        if isinstance(value, float) and math.isinf(value):
            return inf_bits(t, 1 if value < 0 else 0)
        q = Fraction(value)
        return encode(t, ("fin", 1 if (q < 0 or (q == 0 and math.copysign(1.0, value) < 0)) else 0, abs(q)))
    return to_bits(t, value)


DUP_VALUES = {"half": (2.5, 65519.0, 65520.0, -1e9, -0.0, 1e-8, float("nan"), 70000),
              "bfloat16": (1.00390625, 3.4e38, -0.0, 2**200 * 1.0, float("nan")),
              "float": (0.1, 1e39, 2**53 + 2**29 + 1, -0.0, float("-inf"), 1e-46),
              "int8": (-128, 127), "uint8": (255,), "int16": (-32768, 12345), "uint16": (65535,),
              "int32": (-2**31, 2**31 - 1), "uint32": (2**32 - 1,), "int64": (-2**63, 2**63 - 1),
              "uint64": (2**64 - 1, 2**63 + 5)}


@pytest.mark.parametrize("t", ALL_TYPES)
@pytest.mark.parametrize("form,mode", ((0, Z), (1, Z), (1, M), (2, Z), (2, M)))
def test_duplicate(t, form, mode):
    """Duplicate of a scalar (every lane, or masked) and of lane 0 of a register, ZEROING and MERGING; values are
    copied bit for bit (no saturation: the core is in saturation mode)."""
    rng = np.random.default_rng(seed_of(t, form, mode))
    for value in DUP_VALUES[t][:None if form != 2 else 1]:
        core = make_core(sat=True, int_sat=True)
        src, prev = gen(t, rng), garbage(t, rng)
        src[0] = {"half": 0xFC01, "float": 0x7F800001, "bfloat16": 0xFF81}.get(t, src[0])  # bits copied as they are
        ts, to = tensor(core, t, src), tensor(core, t, prev)
        mask = random_mask(t, rng) if form else full_mask(t)
        bits = src[0] if form == 2 else scalar_bits_model(t, value)
        on = mask_bits(mask)
        want = [bits if active(on, t, j) else (prev[j] if mode == M else 0) for j in range(lanes_of(t))]
        run_both(core, lambda c: call(DUP, c, to, ts, t, value, mreg(mask), mode, form), [(to, t, want)],
                 label=f"Duplicate {t} form={form} value={value!r}")


NUMPY_SCALARS = [("half", np.float16(-3.5), None), ("half", np.uint16(0x7C01).view(np.float16), None),
                 ("float", np.float32(1.5), None), ("float", np.uint32(0x7F800001).view(np.float32), None),
                 ("half", np.uint16(0xFE00).view(np.float16), None), ("int16", np.int16(-7), None),
                 # another width: one RNE rounding (D29), NaN canonical
                 ("half", np.float32(1 + 2**-11 + 2**-20), 0x3C01), ("half", np.float64(65519.999), 0x7BFF),
                 ("half", np.float64(65520.0), 0x7C00), ("float", np.float64(2**53 + 2**30 + 1), 0x5A000001),
                 ("bfloat16", np.float32(1 + 2**-8), 0x3F80), ("bfloat16", np.float32(1 + 2**-8 + 2**-20), 0x3F81),
                 ("float", np.uint16(0x7C01).view(np.float16), 0x7FC00000),
                 ("half", np.uint32(0x7F800001).view(np.float32), 0x7E00)]


@pytest.mark.parametrize("t,value,bits", NUMPY_SCALARS)
def test_duplicate_numpy_scalars(t, value, bits):
    """D29: a numpy scalar of exactly the operand type is used bit for bit, NaN payloads included; a numpy float of
    another width is rounded once (RNE), a NaN becoming the canonical NaN."""
    rng = np.random.default_rng(11)
    core = make_core(sat=True)
    ts, to = tensor(core, t, gen(t, rng)), tensor(core, t, garbage(t, rng))
    want = [scalar_bits_model(t, value) if bits is None else bits] * lanes_of(t)
    run_both(core, lambda c: call(DUP, c, to, ts, t, value, mreg(full_mask(t)), Z, 0), [(to, t, want)],
             label=f"Duplicate numpy {t} {value!r}")


@pytest.mark.parametrize("sat", (False, True))
@pytest.mark.parametrize("mk", ("all", "one_off"))
def test_duplicate_made_registers_carry_core_modes(sat, mk):
    """Sources made in the VF and filled by Duplicate only carry the VF core's modes (SPEC-2 11.1): 65504 + 65504
    is +inf in INF/NaN mode, 65504 in saturation mode, on the hot path (all lanes) and off it."""
    core = make_core(sat=sat)
    rng = np.random.default_rng(2)
    ts, to = tensor(core, "half", gen("half", rng)), tensor(core, "half", garbage("half", rng))
    mask = mask_named("half", mk, rng)
    on = mask_bits(mask)
    want = [(0x7BFF if sat else 0x7C00) if active(on, "half", j) else 0 for j in range(128)]
    run_both(core, lambda c: call(DUP, c, to, ts, "half", 65504.0, mreg(mask), Z, 3), [(to, "half", want)],
             label="Duplicate-made sources")
    # the VF's core is its first LocalTensor's (decisions.md "Reg API"), whatever core is current, if any
    other = make_core(sat=not sat)
    for current in (other, None):
        for compiled in (True, False):
            to_prev = read(core, to)
            core.ub[to.GetPhyAddr():to.GetPhyAddr() + 256] = 0
            if current is None:
                call(DUP, compiled, to, ts, "half", 65504.0, mreg(mask), Z, 3)
            else:
                with current:
                    call(DUP, compiled, to, ts, "half", 65504.0, mreg(mask), Z, 3)
            assert unpack("half", read(core, to)) == want and to_prev == pack("half", want), (current, compiled)


# ---------------------------------------------------------------------------------------------------------------
# Reduce (SPEC-2 11.4, D66, SPEC 7.7), ReduceDataBlock (SPEC 7.5, D3, D20, D25), PairReduceElem (SPEC 7.6)
# ---------------------------------------------------------------------------------------------------------------
RT = {"sum": R.ReduceType.SUM, "max": R.ReduceType.MAX, "min": R.ReduceType.MIN}


def check_reduce(which, kind, ts, td, src, mask, sat=False, seed=0, label=""):
    rng = np.random.default_rng(seed)
    core = make_core(sat=sat, int_sat=True)  # integer sums wrap whatever CTRL[53] says (D66)
    prev = garbage(td, rng)
    ta, to = tensor(core, ts, src), tensor(core, td, prev)
    if which == 0:
        want = model_reduce(ts, td, src, mask, kind, sat)
    elif which == 1:
        want = model_reduce_block(ts, td, src, mask, kind, sat)
    else:
        want = model_pair(ts, src, mask, sat)
    run_both(core, lambda c: call(RED, c, to, ta, ts, td, which, RT[kind], mreg(mask), Z), [(to, td, want)],
             label=label or f"reduce which={which} {kind} {ts}->{td} sat={sat}")
    return want


def reduce_input(t, rng, style):
    n = lanes_of(t)
    if style == "random":
        return gen(t, rng)
    if style == "moderate":  # finite values whose sums round (no NaN/inf): exercises the tree order
        if t == "half":
            return [int(np.float16(v).view(np.uint16)) for v in rng.normal(0, 300, n)]
        if t == "float":
            return [int(np.float32(v).view(np.uint32)) for v in rng.normal(0, 1, n) * 2.0 ** rng.integers(-30, 30, n)]
        return [to_bits(t, int(v)) for v in rng.integers(*int_range(t), n, endpoint=True, dtype=np.int64)] \
            if SIZE[t] < 8 else [int(v) for v in rng.integers(0, 2**64, n, dtype=np.uint64)]
    if style == "zeros":  # signed zeros only: the sign rules of MAX/MIN (D41) and SUM (+0 padding, D2)
        return [int(v) * (0x8000 if t == "half" else 0x80000000) for v in rng.integers(0, 2, n)] if is_float(t) \
            else [0] * n
    raise ValueError(style)


SUM_CASES = [(ts, style, mk, sat) for ts in REDUCE_SUM_DST
             for style in (("random", "moderate", "zeros") if is_float(ts) else ("random", "moderate"))
             for mk in ("all", "random") for sat in ((False, True) if ts == "half" else (False,))]


@pytest.mark.parametrize("ts,style,mk,sat", SUM_CASES)
def test_reduce_sum(ts, style, mk, sat):
    rng = np.random.default_rng(seed_of(ts, style, mk, sat))
    check_reduce(0, "sum", ts, REDUCE_SUM_DST[ts], reduce_input(ts, rng, style), mask_named(ts, mk, rng), sat)


EXT_CASES = [(t, kind, style, mk) for t in REDUCE_EXTREME for kind in ("max", "min")
             for style, mk in (("random", "all"), ("random", "random"), ("moderate", "random"), ("zeros", "random"),
                               ("random", "none"))]


@pytest.mark.parametrize("t,kind,style,mk", EXT_CASES)
def test_reduce_max_min(t, kind, style, mk):
    rng = np.random.default_rng(seed_of(t, kind, style, mk))
    for sat in ((False, True) if t == "half" else (False,)):
        check_reduce(0, kind, t, t, reduce_input(t, rng, style), mask_named(t, mk, rng), sat)


@pytest.mark.parametrize("t", ("half", "float"))
@pytest.mark.parametrize("kind", ("max", "min"))
def test_reduce_extreme_index_rules(t, kind):
    """D66/decisions.md: ties -> first lane; between -0 and +0 MAX picks +0's lane, MIN -0's; a NaN wins at its
    first active lane (an inactive NaN does not count)."""
    n = lanes_of(t)
    z, nz = 0, (0x8000 if t == "half" else 0x80000000)
    one = 0x3C00 if t == "half" else 0x3F800000
    nan = 0x7E01 if t == "half" else 0x7F800005
    cases = [([nz, z, nz, z] * (n // 4), full_mask(t)),
             ([one] * n, full_mask(t)),
             ([one] * 9 + [nan] + [one] * 10 + [nan] + [one] * (n - 21), full_mask(t)),
             ([one] * 9 + [nan] + [one] * 10 + [nan] + [one] * (n - 21), mask_words([j for j in range(n) if j != 9],
                                                                                     t))]
    for i, (src, mask) in enumerate(cases):
        want = check_reduce(0, kind, t, t, src, mask, label=f"index rule {t} {kind} case {i}")
        if i == 0:
            assert want[:2] == ([z, 1] if kind == "max" else [nz, 0])
        elif i == 2:
            assert want[:2] == [CANON_NAN[t], 9]
        elif i == 3:
            assert want[:2] == [CANON_NAN[t], 20]


BLOCK_SUM = (("half", "half"), ("float", "float"), ("int16", "int32"), ("uint16", "uint32"), ("int32", "int32"),
             ("uint32", "uint32"), ("int16", "int16"), ("uint16", "uint16"))
BLOCK_EXT = ("half", "int16", "uint16", "int32", "uint32", "float")


def block_mask(t, rng):
    """Random lanes, with block 2 fully off and block 5 fully on."""
    per = 32 // SIZE[t]
    lanes = [j for j in range(lanes_of(t)) if (rng.random() < 0.6 and j // per != 2) or j // per == 5]
    return mask_words(lanes, t)


@pytest.mark.parametrize("ts,td", BLOCK_SUM)
@pytest.mark.parametrize("style", ("random", "moderate"))
def test_reduce_data_block_sum(ts, td, style):
    rng = np.random.default_rng(seed_of(ts, td, style))
    for mask in (full_mask(ts), block_mask(ts, rng)):
        for sat in ((False, True) if ts == "half" else (False,)):
            check_reduce(1, "sum", ts, td, reduce_input(ts, rng, style), mask, sat)


@pytest.mark.parametrize("t", BLOCK_EXT)
@pytest.mark.parametrize("kind", ("max", "min"))
def test_reduce_data_block_max_min(t, kind):
    rng = np.random.default_rng(seed_of(t, kind))
    for style in ("random", "moderate", "zeros"):
        for sat in ((False, True) if t == "half" else (False,)):
            check_reduce(1, kind, t, t, reduce_input(t, rng, style), block_mask(t, rng), sat)


@pytest.mark.parametrize("t", ("half", "float"))
@pytest.mark.parametrize("mk", ("all", "random", "one_off"))
def test_pair_reduce_elem(t, mk):
    rng = np.random.default_rng(seed_of(t, mk))
    for style in ("random", "moderate", "zeros"):
        for sat in ((False, True) if t == "half" else (False,)):
            check_reduce(2, "sum", t, t, reduce_input(t, rng, style), mask_named(t, mk, rng), sat)


# ---------------------------------------------------------------------------------------------------------------
# Cast (SPEC-2 11.5, 7.3, D45, D46, D65, D71)
# ---------------------------------------------------------------------------------------------------------------
CAST_PAIRS = {"int8": ("int16", "half", "int32"), "uint8": ("uint16", "half", "uint32"),
              "int16": ("uint8", "half", "int32", "uint32", "float"), "uint16": ("uint8", "uint32"),
              "half": ("int8", "uint8", "int16", "bfloat16", "int32", "float"),
              "bfloat16": ("half", "int32", "float"), "int32": ("uint8", "int16", "float", "int64"),
              "uint32": ("uint8", "int16", "uint16"), "float": ("int16", "half", "bfloat16", "int32", "int64"),
              "int64": ("int32", "float")}
PAIRS = [(s, d) for s, ds in CAST_PAIRS.items() for d in ds]
RFCRT = (RM.CAST_RINT, RM.CAST_FLOOR, RM.CAST_CEIL, RM.CAST_ROUND, RM.CAST_TRUNC)


def lossy(ts, td):
    """Pairs whose conversion rounds (a round mode applies): float -> int, float -> narrower float, int -> float
    that may be inexact (SPEC-2 11.5: exact widening pairs take roundMode UNKNOWN)."""
    if is_float(ts):
        return not is_float(td) or (ts, td) in (("float", "half"), ("float", "bfloat16"), ("half", "bfloat16"),
                                                ("bfloat16", "half"))
    return is_float(td) and (ts, td) in (("int16", "half"), ("int32", "float"), ("int64", "float"))


def round_modes(ts, td):
    if not lossy(ts, td):
        return (RM.UNKNOWN,)
    return RFCRT + ((RM.CAST_ODD,) if (ts, td) == ("float", "half") else ())


def can_overflow(ts, td):
    """Whether a finite source value can leave the destination's range: those pairs take satMode SAT or NO_SAT
    (SPEC-2 11.5's example half->int8), the others UNKNOWN (e.g. half->int32). int16->uint32 clamps negatives
    always (7.3 step 6: "saturating only")."""
    if is_float(ts) and is_float(td):
        return (ts, td) in (("float", "half"), ("float", "bfloat16"), ("bfloat16", "half"))
    if is_float(ts):
        return decode(ts, max_bits(ts, 0))[2] > int_range(td)[1]
    if is_float(td) or (ts, td) == ("int16", "uint32"):
        return False
    (lo, hi), (dlo, dhi) = int_range(ts), int_range(td)
    return lo < dlo or hi > dhi


def sat_modes(ts, td):
    return (R.SatMode.SAT, R.SatMode.NO_SAT) if can_overflow(ts, td) else (R.SatMode.UNKNOWN,)


def layouts(ts, td):
    r = max(SIZE[ts], SIZE[td]) // min(SIZE[ts], SIZE[td])
    return (R.RegLayout.UNKNOWN,) if r == 1 else (R.RegLayout.ZERO, R.RegLayout.ONE, R.RegLayout.TWO,
                                                   R.RegLayout.THREE)[:r]


CAST_EXTRA = {
    "half": [0x57F8, 0x3F00, 0xBE00, 0x4100, 0x3800, 0xB800, 0x5BFC, 0xDBFC, 0x7800, 0xF800, 0x5800, 0x3D9A, 0x3E66,
             0x40CD, 0x4133, 0xC100, 0x2C00, 0x0001],
    "float": [0x4A800001, 0x4F000000, 0xCF000000, 0x4EFFFFFF, 0x5F000000, 0xDF000000, 0x477FF000, 0x477FE000,
              0x46FFFF00, 0xC7000080, 0x3F001000, 0x3F00A000, 0x3FC00000, 0xBFC00000, 0x40200000, 0x477FEFFF,
              0x33000000, 0x33000001, 0x387FC000, 0x38800000],
    "bfloat16": [0x4281, 0x3643, 0x3FC0, 0xBFC0, 0x4F00, 0xCF00, 0x477F, 0x4780, 0x3F00, 0x3300, 0x3380],
}


def cast_input(ts, rng):
    src = gen(ts, rng)
    for j, v in enumerate(CAST_EXTRA.get(ts, ())):
        src[(7 * j + 3) % len(src)] = v
    return src


def run_cast(ts, td, trait, mask, src, ctrl=None, seed=0, label=""):
    rng = np.random.default_rng(seed)
    ctrl = dict(ctrl or {})
    core = make_core(sat=ctrl.get(48, 1) == 0, ctrl={k: v for k, v in ctrl.items() if k != 48})
    prev = garbage(td, rng)
    ta, to = tensor(core, ts, src), tensor(core, td, prev)
    want = model_cast(ts, td, src, prev, mask, trait, ctrl)
    run_both(core, lambda c: call(CAST, c, to, ta, ts, td, mreg(mask), trait), [(to, td, want)],
             label=label or f"Cast {ts}->{td} {trait} ctrl={ctrl}")
    return want


def trait_of(layout=R.RegLayout.UNKNOWN, sat=R.SatMode.UNKNOWN, rnd=RM.UNKNOWN, mrg=Z):
    return R.CastTrait(layout, sat, mrg, rnd)


@pytest.mark.parametrize("ts,td", PAIRS)
def test_cast_round_modes(ts, td):
    """Every round mode of the pair (first layout), a random source-width mask (D65), default modes (CTRL[48]=1:
    INF/NaN for half/bf16 destinations; CTRL[59]=0: saturating integer destinations)."""
    rng = np.random.default_rng(seed_of(ts, td))
    for rnd in round_modes(ts, td):
        run_cast(ts, td, trait_of(layouts(ts, td)[0], sat_modes(ts, td)[0], rnd), random_mask(ts, rng),
                 cast_input(ts, rng), seed=int(rnd))


@pytest.mark.parametrize("ts,td", [p for p in PAIRS if SIZE[p[0]] != SIZE[p[1]]])
def test_cast_layouts(ts, td):
    """RegLayout k picks sub-lane k of each wide slot (D65); inactive source lanes give 0."""
    rng = np.random.default_rng(seed_of(td, ts))
    for layout in layouts(ts, td)[1:]:
        run_cast(ts, td, trait_of(layout, sat_modes(ts, td)[-1], round_modes(ts, td)[0]), random_mask(ts, rng),
                 cast_input(ts, rng))


@pytest.mark.parametrize("ts,td", [p for p in PAIRS if p[1] != "float" and not (not is_float(p[0]) and
                                                                             is_float(p[1]))])
def test_cast_global_overflow_modes(ts, td):
    """The other global setting (SPEC-2 11.5, D46): integer destinations in truncation mode (CTRL[59]=1), half and
    bfloat16 destinations in saturation mode (CTRL[48]=0); half->int16 always saturates and half->bf16 passes
    +-inf/NaN (D45, D71)."""
    rng = np.random.default_rng(seed_of(ts, td, 59))
    ctrl = {48: 0} if is_float(td) else {59: 1}
    for rnd in round_modes(ts, td)[:2]:
        run_cast(ts, td, trait_of(layouts(ts, td)[0], sat_modes(ts, td)[0], rnd), random_mask(ts, rng),
                 cast_input(ts, rng), ctrl)


SAT_TRAIT_PAIRS = [("half", "int8"), ("half", "uint8"), ("half", "int16"), ("float", "half"), ("float", "bfloat16"),
                   ("float", "int32"), ("float", "int16"), ("bfloat16", "half"), ("bfloat16", "int32"),
                   ("int32", "int16"), ("uint32", "uint8"), ("int64", "int32"), ("int16", "uint8"),
                   ("float", "int64")]


def test_cast_merge_mode_unknown_is_zeroing():
    """SPEC-2 11.5: mrgMode UNKNOWN means ZEROING."""
    rng = np.random.default_rng(9)
    for ts, td in (("half", "float"), ("float", "half"), ("int32", "int16")):
        run_cast(ts, td, trait_of(layouts(ts, td)[0], sat_modes(ts, td)[0], round_modes(ts, td)[0],
                                  R.MaskMergeMode.UNKNOWN), random_mask(ts, rng), cast_input(ts, rng))


@pytest.mark.parametrize("ts,td", SAT_TRAIT_PAIRS)
@pytest.mark.parametrize("sat_mode", (R.SatMode.SAT, R.SatMode.NO_SAT))
@pytest.mark.parametrize("ctrl60", (0, 1))
def test_cast_trait_sat_mode(ts, td, sat_mode, ctrl60):
    """CTRL[60]=0: the trait's SAT/NO_SAT decide; CTRL[60]=1: the global bits (set against the trait here)."""
    rng = np.random.default_rng(seed_of(ts, td, int(sat_mode), ctrl60))
    ctrl = {60: ctrl60, 59: 0 if sat_mode == R.SatMode.NO_SAT else 1, 48: 0 if sat_mode == R.SatMode.NO_SAT else 1}
    run_cast(ts, td, trait_of(layouts(ts, td)[0], sat=sat_mode, rnd=round_modes(ts, td)[0]), random_mask(ts, rng),
             cast_input(ts, rng), ctrl)


# ---------------------------------------------------------------------------------------------------------------
# Golden vectors (SPEC 9; SPEC-2 12.2, 12.3, 12.4 R-8, 12.8): asserted on the model and on the package
# ---------------------------------------------------------------------------------------------------------------
HMAX, HMIN, HINF, HNINF, HNAN, HNZ = 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x8000
FMAX, FINF, FNINF, FNAN = 0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000


def golden_binary(t, op, rows, sat, int_sat):
    """rows: (x, y, expected) bit patterns; lane k holds row k (rows repeat over the register)."""
    n = lanes_of(t)
    a = [rows[j % len(rows)][0] for j in range(n)]
    b = [rows[j % len(rows)][1] for j in range(n)]
    expect = [rows[j % len(rows)][2] for j in range(n)]
    assert model_binary(t, op, a, b, [0] * n, full_mask(t), False, sat, int_sat) == expect  # the model agrees
    for alias in (0, 1):
        check_binary(t, op, alias, full_mask(t), Z, sat, int_sat, a=a, b=b)
    check_binary(t, op, 0, mask_named(t, "one_off", None), Z, sat, int_sat, a=a, b=b)  # off the hot path


I16 = lambda v: to_bits("int16", v)  # noqa: E731
I32 = lambda v: to_bits("int32", v)  # noqa: E731
GOLDEN_BINARY = [
    # SPEC 9 "Add boundary values" (Reg appendix Table 11): (dtype, op, rows INF/NaN or wrap, rows sat or clamp)
    ("half", "add", [(HMAX, HMAX, HINF), (HMIN, HMIN, HNINF), (HMIN, HMAX, 0), (0x3C00, HNAN, HNAN),
                     (HINF, HNINF, HNAN), (0, HINF, HINF), (HNZ, HNZ, HNZ)],
     [(HMAX, HMAX, HMAX), (HMIN, HMIN, HMIN), (HMIN, HMAX, 0), (0x3C00, HNAN, 0), (HINF, HNINF, 0),
      (0, HINF, HMAX), (HNZ, HNZ, HNZ)]),
    ("float", "add", [(FINF, FNINF, FNAN), (FMAX, FMAX, FINF)], [(FINF, FNINF, FNAN), (FMAX, FMAX, FINF)]),
    ("int16", "add", [(I16(32767), I16(32767), I16(-2)), (I16(-32768), I16(-32768), 0),
                      (I16(-32768), I16(32767), I16(-1))],
     [(I16(32767), I16(32767), I16(32767)), (I16(-32768), I16(-32768), I16(-32768)),
      (I16(-32768), I16(32767), I16(-1))]),
    ("int32", "add", [(I32(2**31 - 1), I32(2**31 - 1), I32(-2)), (I32(-2**31), I32(-2**31), 0)],
     [(I32(2**31 - 1), I32(2**31 - 1), I32(2**31 - 1)), (I32(-2**31), I32(-2**31), I32(-2**31))]),
    # SPEC-2 12.2 B-1..B-5 (Sub), B-6..B-8 (Mul; D67)
    ("half", "sub", [(HMIN, HMAX, HNINF), (HNZ, 0, HNZ), (HNZ, HNZ, 0), (0, HNZ, 0), (HINF, HINF, HNAN),
                     (HNAN, 0x3C00, HNAN)],
     [(HMIN, HMAX, HMIN), (HNZ, 0, HNZ), (HNZ, HNZ, 0), (0, HNZ, 0), (HINF, HINF, 0), (HNAN, 0x3C00, 0)]),
    ("int16", "sub", [(I16(-32768), I16(32767), 1), (I16(32767), I16(-32768), I16(-1))],
     [(I16(-32768), I16(32767), I16(-32768)), (I16(32767), I16(-32768), I16(32767))]),
    ("int32", "sub", [(I32(-2**31), I32(2**31 - 1), 1), (I32(2**31 - 1), I32(-2**31), I32(-1))],
     [(I32(-2**31), I32(2**31 - 1), I32(-2**31)), (I32(2**31 - 1), I32(-2**31), I32(2**31 - 1))]),
    ("float", "sub", [(0xFF7FFFFF, FMAX, FNINF)], [(0xFF7FFFFF, FMAX, FNINF)]),
    ("half", "mul", [(HMIN, HMIN, HINF), (HMIN, 0, HNZ), (HMAX, HNZ, HNZ), (0, HINF, HNAN)],
     [(HMIN, HMIN, HMAX), (HMIN, 0, HNZ), (HMAX, HNZ, HNZ), (0, HINF, 0)]),
    ("int16", "mul", [(I16(32767), I16(32767), 1), (I16(-32768), I16(-32768), 0),
                      (I16(-32768), I16(32767), I16(-32768))],
     [(I16(32767), I16(32767), I16(32767)), (I16(-32768), I16(-32768), I16(32767)),
      (I16(-32768), I16(32767), I16(-32768))]),
    ("int32", "mul", [(I32(2**31 - 1), I32(2**31 - 1), 1), (I32(-2**31), I32(-2**31), 0)],
     [(I32(2**31 - 1), I32(2**31 - 1), I32(2**31 - 1)), (I32(-2**31), I32(-2**31), I32(2**31 - 1))]),
]


@pytest.mark.parametrize("t,op,rows_off,rows_on", GOLDEN_BINARY, ids=[f"{g[0]}-{g[1]}" for g in GOLDEN_BINARY])
def test_golden_add_sub_mul(t, op, rows_off, rows_on):
    golden_binary(t, op, rows_off, False, False)
    golden_binary(t, op, rows_on, is_float(t), not is_float(t))


@pytest.mark.parametrize("t", ("half", "int16", "int32", "float"))
def test_golden_add_s4(t):
    """SPEC 9 (S4): src0 = 1.., src1 = 513.. -> dst[i] = 514 + 2i, here one register's lanes."""
    n = lanes_of(t)
    enc = (lambda v: h16(v)) if t == "half" else (lambda v: f32(v)) if t == "float" else (lambda v: v)
    a, b = [enc(1 + i) for i in range(n)], [enc(513 + i) for i in range(n)]
    golden_binary(t, "add", [(a[i], b[i], enc(514 + 2 * i)) for i in range(n)], False, False)


@pytest.mark.parametrize("count", (256, 250, 64))
def test_golden_reg_reduce_data_block_example(count):
    """SPEC 9 "Reg ReduceDataBlock": float inputs in [1, 2), 4 repeats of 64; each repeat's lanes 0..7 hold its
    8-element block sums (adjacent-pair tree, D3: lanes 8.. written 0 where the store mask reaches)."""
    rng = np.random.default_rng(count)
    core = make_core()
    x = [f32(v) for v in rng.uniform(1, 2, 256)]
    src = core.local_tensor("float", 256)
    dst = core.local_tensor("float", 256)
    core.ub[src.GetPhyAddr():src.GetPhyAddr() + 1024] = np.frombuffer(pack("float", x), np.uint8)
    prev = garbage("float", rng) * 4
    core.ub[dst.GetPhyAddr():dst.GetPhyAddr() + 1024] = np.frombuffer(pack("float", prev), np.uint8)
    want = list(prev)
    for r in range(4):
        active_lanes = range(min(max(count - 64 * r, 0), 64))
        sums = model_reduce_block("float", "float", x[64 * r:64 * r + 64], mask_words(active_lanes, "float"),
                                  "sum", False)
        for j in active_lanes:
            want[64 * r + j] = sums[j]
        if count >= 64 * (r + 1):  # a whole repeat: each block's sum of 8 (ulp-level tree order aside)
            assert all(abs(decode("float", sums[b])[2] - sum(decode("float", v)[2] for v in
                                                               x[64 * r + 8 * b:64 * r + 8 * b + 8])) < 1e-5
                       for b in range(8))
    snap = core.ub.copy()
    expect = snap.copy()
    expect[dst.GetPhyAddr():dst.GetPhyAddr() + 1024] = np.frombuffer(pack("float", want), np.uint8)
    for compiled in (True, False):
        core.ub[:] = snap
        with core:
            call(BLOCK_LOOP, compiled, dst, src, count, 64, 4, "float")
        assert np.array_equal(core.ub, expect), (compiled, _describe(core, core.ub, expect, []))


def test_golden_half_add_ties_and_subnormals():
    """RNE ties and gradual underflow (SPEC 5.1): 2048+1 -> 2048, 2048+3 -> 2052, 0x0001+0x0001 -> 0x0002,
    0x03FF+0x0001 -> 0x0400 (subnormal to normal), 2**-24 * 0.5 -> +0 (tie to even), -(2**-24) * 0.75 -> -2**-24,
    2**-14 * 2**-10 -> 2**-24."""
    rows = [(0x6800, 0x3C00, 0x6800), (0x6800, 0x4200, 0x6802), (0x0001, 0x0001, 0x0002), (0x03FF, 0x0001, 0x0400)]
    golden_binary("half", "add", rows, False, False)
    rows = [(0x0001, 0x3800, 0x0000), (0x8001, 0x3A00, 0x8001), (0x0400, 0x1400, 0x0001), (0x8001, 0x3800, 0x8000)]
    golden_binary("half", "mul", rows, True, False)


@pytest.mark.parametrize("sat", (False, True))
def test_golden_reduce_r8(sat):
    """R-8 (RegBV-T35): every active lane v; MAX/MIN -> SAT(v), index 0; SUM half all MIN -> -inf / -65504, all
    MAX -> +inf / 65504, all NaN -> NaN / +0; SUM float all MAX -> +inf in both modes; other lanes 0."""
    for t, v, kind, want0 in (("half", HMIN, "sum", HMIN if sat else HNINF),
                              ("half", HMAX, "sum", HMAX if sat else HINF),
                              ("half", HNAN, "sum", 0 if sat else HNAN), ("float", FMAX, "sum", FINF),
                              ("half", HINF, "max", HMAX if sat else HINF), ("half", HNAN, "min", 0 if sat else HNAN),
                              ("half", HNINF, "min", HMIN if sat else HNINF), ("float", FNINF, "max", FNINF),
                              ("float", FNAN, "max", FNAN), ("int16", I16(-5), "min", I16(-5)),
                              ("int32", I32(7), "max", 7)):
        n = lanes_of(t)
        want = model_reduce(t, REDUCE_SUM_DST[t] if kind == "sum" else t, [v] * n, full_mask(t), kind, sat)
        assert want[0] == want0 and all(x == 0 for x in want[1:]), (t, v, kind, want[:4])
        check_reduce(0, kind, t, REDUCE_SUM_DST[t] if kind == "sum" else t, [v] * n, full_mask(t), sat)


@pytest.mark.parametrize("sat", (False, True))
def test_golden_reduce_data_block(sat):
    """SPEC 9 / SPEC-2 R-4 rows for one block of 16 halves (SUM all 65504 -> inf / 65504; 15 ones + NaN -> NaN /
    14.0; 15 ones + inf -> inf / 65504 (D5: not 65344); MAX inf/-inf alternating -> inf / 65504; MAX 15 ones + -inf
    -> 1.0; MIN alternating -> -inf / -65504; MAX/MIN all NaN -> NaN / +0), D12's [60000, 60000, -30000, 100] ->
    35584 (sat) / +inf, and a fully masked MAX block -> -inf / -65504 (D20)."""
    one = 0x3C00
    blocks = [("sum", [HMAX] * 16, HMAX if sat else HINF), ("sum", [HNAN] + [one] * 15, 0x4B00 if sat else HNAN),
              ("sum", [HINF] + [one] * 15, HMAX if sat else HINF), ("max", [HINF, HNINF] * 8, HMAX if sat else HINF),
              ("max", [HNINF] + [one] * 15, one), ("min", [HINF, HNINF] * 8, HMIN if sat else HNINF),
              ("max", [HNAN] * 16, 0 if sat else HNAN), ("min", [HNAN] * 16, 0 if sat else HNAN),
              ("sum", [0x7B53, 0x7B53, 0xF753, 0x5640] + [0] * 12, 0x7858 if sat else HINF)]
    for kind, block, want0 in blocks:
        src = block * 8
        mask = mask_words(range(16 * 7), "half")  # block 7 fully masked
        want = model_reduce_block("half", "half", src, mask, kind, sat)
        fill = {"sum": 0, "max": HMIN if sat else HNINF, "min": HMAX if sat else HINF}[kind]
        assert want[:8] == [want0] * 7 + [fill] and all(x == 0 for x in want[8:]), (kind, want[:8])
        check_reduce(1, kind, "half", "half", src, mask, sat)


def test_golden_pair_reduce_elem():
    """S2's vector on a Reg register: [1,1,1,-1,2,2,-1,2,3,3,3,-1,4,4,-2,4,...] -> [2,0,4,1,6,2,8,2,...]."""
    base = [1, 1, 1, -1, 2, 2, -1, 2, 3, 3, 3, -1, 4, 4, -2, 4]
    src = [int(np.float16(v).view(np.uint16)) for v in base * 8]
    want = check_reduce(2, "sum", "half", "half", src, full_mask("half"))
    assert [float(np.uint16(v).view(np.float16)) for v in want[:8]] == [2, 0, 4, 1, 6, 2, 8, 2]
    assert all(v == 0 for v in want[64:])


def test_golden_duplicate_e15():
    """E-15: Duplicate half 18.0 -> 0x4C80 in every lane; the register form with src[0] = 18.0 too."""
    core = make_core()
    src = [int(np.float16(v).view(np.uint16)) for v in [18.0] + list(range(1, 128))]
    ts, to = tensor(core, "half", src), tensor(core, "half", [0x1234] * 128)
    for form in (0, 2):
        run_both(core, lambda c: call(DUP, c, to, ts, "half", 18.0, mreg(full_mask("half")), Z, form),
                 [(to, "half", [0x4C80] * 128)], label=f"E-15 form {form}")


def f32(v):
    return int(np.float32(v).view(np.uint32))


def h16(v):
    return int(np.float16(v).view(np.uint16))


# (src, dst, src bits, {round mode: expected bits}) — SPEC-2 12.3 C-1..C-14 (Reg pairs), C-16
GOLDEN_CAST = [
    ("float", "half", 0x3F001000, {RM.CAST_RINT: 0x3800, RM.CAST_FLOOR: 0x3800, RM.CAST_CEIL: 0x3801,
                                   RM.CAST_ROUND: 0x3801, RM.CAST_TRUNC: 0x3800, RM.CAST_ODD: 0x3801}),
    ("float", "bfloat16", 0x3F00A000, {RM.CAST_RINT: 0x3F01, RM.CAST_FLOOR: 0x3F00, RM.CAST_CEIL: 0x3F01,
                                       RM.CAST_ROUND: 0x3F01, RM.CAST_TRUNC: 0x3F00}),
    ("int16", "half", 4098, {RM.CAST_RINT: 0x6C00, RM.CAST_FLOOR: 0x6C00, RM.CAST_CEIL: 0x6C01, RM.CAST_ROUND: 0x6C01,
                             RM.CAST_TRUNC: 0x6C00}),
    ("int32", "float", 2**25 + 3, {RM.CAST_RINT: 0x4C000001, RM.CAST_FLOOR: 0x4C000000, RM.CAST_CEIL: 0x4C000001,
                                   RM.CAST_ROUND: 0x4C000001, RM.CAST_TRUNC: 0x4C000000}),
    ("int64", "float", 2**35 + 2**12 + 2**11, {RM.CAST_RINT: 0x51000002, RM.CAST_FLOOR: 0x51000001,
                                               RM.CAST_CEIL: 0x51000002, RM.CAST_ROUND: 0x51000002,
                                               RM.CAST_TRUNC: 0x51000001}),
    ("half", "int32", 0xBE00, {RM.CAST_RINT: I32(-2), RM.CAST_FLOOR: I32(-2), RM.CAST_CEIL: I32(-1),
                               RM.CAST_ROUND: I32(-2), RM.CAST_TRUNC: I32(-1)}),
    ("half", "int8", 0x57F8, {m: 127 for m in RFCRT}),
    ("half", "int16", 0x57F8, {RM.CAST_RINT: 128, RM.CAST_FLOOR: 127, RM.CAST_CEIL: 128, RM.CAST_ROUND: 128,
                               RM.CAST_TRUNC: 127}),
    ("half", "uint8", 0x3F00, {RM.CAST_RINT: 2, RM.CAST_FLOOR: 1, RM.CAST_CEIL: 2, RM.CAST_ROUND: 2, RM.CAST_TRUNC: 1}),
    ("bfloat16", "int32", 0x4281, {RM.CAST_RINT: 64, RM.CAST_FLOOR: 64, RM.CAST_CEIL: 65, RM.CAST_ROUND: 65,
                                   RM.CAST_TRUNC: 64}),
    ("float", "int32", 0x4A800001, {RM.CAST_RINT: 4194304, RM.CAST_FLOOR: 4194304, RM.CAST_CEIL: 4194305,
                                    RM.CAST_ROUND: 4194305, RM.CAST_TRUNC: 4194304}),
    ("float", "int64", 0x4A800001, {RM.CAST_RINT: 4194304, RM.CAST_FLOOR: 4194304, RM.CAST_CEIL: 4194305,
                                    RM.CAST_ROUND: 4194305, RM.CAST_TRUNC: 4194304}),
    ("float", "int16", 0x4A800001, {m: 32767 for m in RFCRT}),
    ("bfloat16", "half", 0x3643, {RM.CAST_RINT: 0x0031, RM.CAST_FLOOR: 0x0030, RM.CAST_CEIL: 0x0031,
                                  RM.CAST_ROUND: 0x0031, RM.CAST_TRUNC: 0x0030}),
]


def cast_golden(ts, td, src_bits, rnd, expected, ctrl=None, sat_mode=None):
    """One golden value in every active source lane (all lanes), checked on the model and the package."""
    src = [src_bits] * lanes_of(ts)
    sm = sat_modes(ts, td)[0] if sat_mode is None else sat_mode
    trait = trait_of(layouts(ts, td)[0], sm, rnd)
    want = model_cast(ts, td, src, None, full_mask(ts), trait, dict(ctrl or {}))
    r = max(SIZE[ts] // SIZE[td], 1)
    assert want[0] == expected and (r == 1 or all(v == 0 for v in want[1:r])), (ts, td, rnd, want[:4], expected)
    run_cast(ts, td, trait, full_mask(ts), src, ctrl)


@pytest.mark.parametrize("ts,td,src_bits,per_mode", GOLDEN_CAST, ids=[f"{g[0]}-{g[1]}" for g in GOLDEN_CAST])
def test_golden_cast_c1_c14(ts, td, src_bits, per_mode):
    for rnd, expected in per_mode.items():
        cast_golden(ts, td, src_bits, rnd, expected)


def test_golden_cast_c16():
    """C-16: half -> int32 of [1.4, 1.5, 1.6, 2.4, 2.5, 2.6] per mode."""
    src = [0x3D9A, 0x3E00, 0x3E66, 0x40CD, 0x4100, 0x4133] * 22
    for rnd, want6 in ((RM.CAST_CEIL, [2, 2, 2, 3, 3, 3]), (RM.CAST_RINT, [1, 2, 2, 2, 2, 3]),
                       (RM.CAST_FLOOR, [1, 1, 1, 2, 2, 2]), (RM.CAST_ROUND, [1, 2, 2, 2, 3, 3]),
                       (RM.CAST_TRUNC, [1, 1, 1, 2, 2, 2])):
        want = run_cast("half", "int32", trait_of(R.RegLayout.ZERO, R.SatMode.UNKNOWN, rnd), full_mask("half"),
                        src[:128])
        assert want[:3] == [want6[0], want6[2], want6[4]] and want[3:6] == [want6[0], want6[2], want6[4]]
        want = run_cast("half", "int32", trait_of(R.RegLayout.ONE, R.SatMode.UNKNOWN, rnd), full_mask("half"),
                        src[:128])
        assert want[:3] == [want6[1], want6[3], want6[5]]


# C-15 (CAST_NONE pairs = Reg roundMode UNKNOWN), saturating; then the truncation-mode rows
GOLDEN_C15 = [("int8", "half", 0xFF, 0xBC00), ("int8", "int16", 127, 127), ("int8", "int32", 127, 127),
              ("uint8", "half", 1, 0x3C00), ("uint8", "uint16", 255, 255), ("uint8", "uint32", 255, 255),
              ("int16", "uint8", 32767, 255), ("int16", "uint32", 32767, 32767), ("int16", "int32", 32767, 32767),
              ("int16", "float", 32767, f32(32767)), ("uint16", "uint8", 65535, 255),
              ("uint16", "uint32", 65535, 65535), ("half", "float", 0x3DFF, f32(1.5 - 2**-10)),
              ("bfloat16", "float", 0x3FBE, f32(1.5 - 2**-6)), ("int32", "uint8", 2**31 - 1, 255),
              ("int32", "int16", 2**31 - 1, 32767), ("int32", "int64", 2**31 - 1, 2**31 - 1),
              ("uint32", "uint8", 2**32 - 1, 255), ("uint32", "uint16", 2**32 - 1, 65535),
              ("uint32", "int16", 2**32 - 1, 32767), ("int64", "int32", 2**31, 2**31 - 1)]


@pytest.mark.parametrize("ts,td,x,want", GOLDEN_C15, ids=[f"{g[0]}-{g[1]}" for g in GOLDEN_C15])
def test_golden_cast_c15(ts, td, x, want):
    cast_golden(ts, td, x, RM.UNKNOWN, want)


@pytest.mark.parametrize("ts,td,x,want", [("int32", "int16", 2**31 - 1, I16(-1)), ("uint32", "int16", 2**32 - 1,
                                                                                I16(-1)),
                                          ("int64", "int32", 2**31, I32(-2**31))])
def test_golden_cast_c15_truncation(ts, td, x, want):
    cast_golden(ts, td, x, RM.UNKNOWN, want, ctrl={59: 1})


I8 = lambda v: to_bits("int8", v)  # noqa: E731
# RegBV-T34 (SPEC-2 12.3, the 950): (src, dst, input bits, truncation / INF-NaN column, saturating column)
GOLDEN_T34 = [("half", "int8", HMIN, 32, I8(-128)), ("half", "int8", HMAX, I8(-32), 127),
              ("half", "int8", HINF, 127, 127), ("half", "int8", HNINF, I8(-128), I8(-128)),
              ("half", "int8", HNAN, 0, 0),
              ("half", "uint8", HMIN, 32, 0), ("half", "uint8", HMAX, 224, 255), ("half", "uint8", HINF, 255, 255),
              ("half", "uint8", HNINF, 0, 0), ("half", "int16", HMAX, 32767, 32767),
              ("half", "int16", HINF, 32767, 32767), ("half", "int16", HNINF, I16(-32768), I16(-32768)),
              ("bfloat16", "int32", 0xFF7F, 0, I32(-2**31)), ("bfloat16", "int32", 0x7F7F, 0, 2**31 - 1),
              ("bfloat16", "int32", 0x7F80, 2**31 - 1, 2**31 - 1), ("bfloat16", "int32", 0x7FC0, 0, 0),
              ("float", "int32", 0xFF7FFFFF, 0, I32(-2**31)), ("float", "int32", FMAX, 0, 2**31 - 1),
              ("float", "int32", FNINF, I32(-2**31), I32(-2**31)), ("float", "int32", FNAN, 0, 0),
              ("float", "int16", 0xFF7FFFFF, 0, I16(-32768)), ("float", "int16", FMAX, 0, 32767),
              ("float", "int16", FINF, 32767, 32767), ("int32", "int16", I32(-2**31), 0, I16(-32768)),
              ("int32", "int16", 2**31 - 1, I16(-1), 32767), ("int64", "int32", to_bits("int64", -2**63), 0,
                                                                 I32(-2**31)),
              ("int64", "int32", 2**63 - 1, I32(-1), 2**31 - 1), ("uint32", "int16", 2**32 - 1, I16(-1), 32767),
              ("int16", "uint32", I16(-32768), 0, 0), ("float", "half", FMAX, HINF, HMAX),
              ("float", "half", FNAN, HNAN, 0), ("bfloat16", "half", 0x7F7F, HINF, HMAX),
              ("bfloat16", "half", 0x7FC0, HNAN, 0), ("float", "bfloat16", FMAX, 0x7F80, 0x7F7F),
              ("float", "bfloat16", FNAN, 0x7FC0, 0), ("half", "bfloat16", HINF, 0x7F80, 0x7F80),
              ("half", "bfloat16", HNAN, 0x7FC0, 0x7FC0)]


@pytest.mark.parametrize("ts,td,x,trunc,sat", GOLDEN_T34, ids=[f"{g[0]}-{g[1]}-{g[2]:#x}" for g in GOLDEN_T34])
def test_golden_cast_regbv_t34(ts, td, x, trunc, sat):
    rnd = round_modes(ts, td)[0]
    other = {48: 1} if is_float(td) else {59: 1}
    cast_golden(ts, td, x, rnd, trunc, ctrl=other)
    cast_golden(ts, td, x, rnd, sat, ctrl={48: 0} if is_float(td) else {59: 0})


# ---------------------------------------------------------------------------------------------------------------
# Refusals: an AscendJitError subclass in the compiled VF and in plain Python, the UB unchanged
# ---------------------------------------------------------------------------------------------------------------
def _tensors(core, *types):
    rng = np.random.default_rng(len(types))
    return [tensor(core, t, gen(t, rng)) for t in types]


BINARY_REFUSALS = [  # (dst, src0, src1, op, mode, error): SPEC-2 11.1/11.2, D67
    ("half", "half", "half", 1, M, ParameterError), ("half", "half", "half", 2, M, ParameterError),
    ("float", "float", "float", 1, M, ParameterError), ("int32", "int32", "int32", 2, M, ParameterError),
    ("int8", "int8", "int8", 2, Z, UnsupportedDTypeError), ("uint8", "uint8", "uint8", 2, Z, UnsupportedDTypeError),
    ("half", "half", "float", 0, Z, UnsupportedDTypeError), ("float", "half", "half", 0, Z, UnsupportedDTypeError),
    ("half", "float", "half", 1, Z, UnsupportedDTypeError), ("bfloat16", "half", "half", 2, Z, UnsupportedDTypeError),
    ("float", "float", "bfloat16", 0, Z, UnsupportedDTypeError), ("int16", "int16", "int32", 2, Z,
                                                                  UnsupportedDTypeError),
    ("half", "int16", "half", 0, Z, UnsupportedDTypeError), ("uint16", "int16", "int16", 0, Z,
                                                              UnsupportedDTypeError),
    ("half", "half", "half", 0, R.MaskMergeMode.UNKNOWN, ParameterError),
    ("half", "half", "half", 0, R.ReduceType.MAX, ParameterError), ("half", "half", "half", 0, True, ParameterError),
    ("half", "half", "half", 1, 7, ParameterError),
]


@pytest.mark.parametrize("td,t0,t1,op,mode,err", BINARY_REFUSALS)
@pytest.mark.parametrize("mk", ("all", "one_off"))
def test_binary_refusals(td, t0, t1, op, mode, err, mk):
    core = make_core()
    to, ta, tb = _tensors(core, td, t0, t1)
    mask = mask_named(t0, mk, None)
    refuses(core, lambda c: call(MIXED, c, to, ta, tb, td, t0, t1, op, mreg(mask), mode), err,
            label=f"{td}<-{t0},{t1} op={op} mode={mode!r}")


@pytest.mark.parametrize("t0,t1", (("int16", "int16"), ("half", "half"), ("float", "float"), ("int32", "uint32"),
                                   ("int64", "int64")))
def test_carry_refusals(t0, t1):
    """Carry forms take int32 or uint32, one type for dst/src0/src1 (SPEC-2 11.2)."""
    core = make_core()
    to, ta, tb = _tensors(core, t0, t0, t1)

    for op in (0, 1):
        refuses(core, lambda c: call(CARRY, c, to, ta, tb, t0, t1, op, mreg(full_mask(t0)), R.MaskReg([1, 2, 3, 4])),
                UnsupportedDTypeError, label=f"carry {t0}/{t1}")


RED_REFUSALS = [  # (which, kind, src, dst, mode, error): SPEC-2 11.4, SPEC 7.4-7.6, D25
    (0, "sum", "half", "half", M, ParameterError), (0, "max", "float", "float", M, ParameterError),
    (0, "sum", "int8", "int32", Z, UnsupportedDTypeError), (0, "sum", "bfloat16", "bfloat16", Z, UnsupportedDTypeError),
    (0, "sum", "int16", "int16", Z, UnsupportedDTypeError), (0, "sum", "half", "float", Z, UnsupportedDTypeError),
    (0, "max", "bfloat16", "bfloat16", Z, UnsupportedDTypeError), (0, "min", "int8", "int8", Z, UnsupportedDTypeError),
    (0, "max", "uint8", "uint8", Z, UnsupportedDTypeError),
    (1, "sum", "half", "half", M, ParameterError), (1, "sum", "int64", "int64", Z, UnsupportedDTypeError),
    (1, "sum", "int8", "int8", Z, UnsupportedDTypeError), (1, "sum", "bfloat16", "bfloat16", Z, UnsupportedDTypeError),
    (1, "max", "int64", "int64", Z, UnsupportedDTypeError), (1, "min", "bfloat16", "bfloat16", Z,
                                                              UnsupportedDTypeError),
    (1, "max", "int8", "int8", Z, UnsupportedDTypeError),
    (2, "sum", "half", "half", M, ParameterError), (2, "sum", "int16", "int16", Z, UnsupportedDTypeError),
    (2, "sum", "half", "float", Z, UnsupportedDTypeError), (2, "sum", "bfloat16", "bfloat16", Z,
                                                             UnsupportedDTypeError),
]


RED_REFUSALS += [(w, "sum", "half", "half", R.MaskMergeMode.UNKNOWN, ParameterError) for w in (0, 1, 2)]
RED_REFUSALS += [(w, rt, "half", "half", Z, ParameterError) for w in (0, 1) for rt in (aj.ReduceType.MAX, 3, True)]


@pytest.mark.parametrize("which,kind,ts,td,mode,err", RED_REFUSALS)
def test_reduce_refusals(which, kind, ts, td, mode, err):
    """Types outside SPEC-2 11.4 / SPEC 7.5-7.6 tables, MERGING or UNKNOWN modes (ZEROING only, SPEC 7.4), a
    reduce type that is not an aj.Reg.ReduceType member or value (decisions.md "Reg API")."""
    core = make_core()
    to, ta = _tensors(core, td, ts)
    rtype = RT[kind] if isinstance(kind, str) else kind
    refuses(core, lambda c: call(RED, c, to, ta, ts, td, which, rtype, mreg(full_mask(ts)), mode), err,
            label=f"reduce {which} {kind!r} {ts}->{td}")


@pytest.mark.parametrize("t,value", (("int8", 128), ("uint8", -1), ("int16", 40000), ("uint32", 2**32),
                                     ("int64", 2**63), ("half", True), ("int32", False)))
def test_duplicate_refusals(t, value):
    """D29: an integer scalar outside the integer type's range, or a bool, is a ParameterError."""
    core = make_core()
    to, ts = _tensors(core, t, t)
    refuses(core, lambda c: call(DUP, c, to, ts, t, value, mreg(full_mask(t)), Z, 1), ParameterError,
            label=f"Duplicate {t} {value!r}")


CAST_REFUSALS = [  # (src, dst, trait, error): SPEC-2 11.5
    ("int32", "uint16", trait_of(R.RegLayout.ZERO), UnsupportedDTypeError),
    ("half", "uint16", trait_of(rnd=RM.CAST_RINT), UnsupportedDTypeError),
    ("float", "float", trait_of(rnd=RM.CAST_RINT), UnsupportedDTypeError),
    ("int8", "float", trait_of(R.RegLayout.ZERO), UnsupportedDTypeError),
    ("uint64", "float", trait_of(R.RegLayout.ZERO, rnd=RM.CAST_RINT), UnsupportedDTypeError),
    ("half", "int8", trait_of(R.RegLayout.ZERO, R.SatMode.SAT, RM.CAST_NONE), ParameterError),
    ("half", "int8", trait_of(R.RegLayout.TWO, R.SatMode.SAT, RM.CAST_RINT), ParameterError),
    ("half", "int8", trait_of(R.RegLayout.ZERO, R.SatMode.SAT, RM.CAST_ODD), ParameterError),
    ("half", "int8", trait_of(R.RegLayout.ZERO, R.SatMode.SAT, RM.UNKNOWN), ParameterError),
    ("half", "int8", trait_of(R.RegLayout.ZERO, R.SatMode.SAT, RM.CAST_RINT, M), ParameterError),
    ("half", "int32", trait_of(R.RegLayout.ZERO, R.SatMode.SAT, RM.CAST_RINT), ParameterError),
    ("half", "float", trait_of(R.RegLayout.ZERO, R.SatMode.UNKNOWN, RM.CAST_RINT), ParameterError),
    ("float", "half", trait_of(R.RegLayout.ZERO, R.SatMode.SAT, RM.CAST_NONE), ParameterError),
    ("int8", "int32", trait_of(R.RegLayout.ZERO, R.SatMode.UNKNOWN, RM.CAST_RINT), ParameterError),
]


@pytest.mark.parametrize("ts,td,trait,err", CAST_REFUSALS, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in
                                                                enumerate(CAST_REFUSALS)])
def test_cast_refusals(ts, td, trait, err):
    core = make_core()
    to, ta = _tensors(core, td, ts)
    refuses(core, lambda c: call(CAST, c, to, ta, ts, td, mreg(full_mask(ts)), trait), err,
            label=f"Cast {ts}->{td} {trait}")


@pytest.mark.parametrize("device", ("atlas-a2", "atlas-training"))
def test_non_950_core_refused(device):
    """SPEC-2 11.1: every Reg function refuses a non-950 core (UnsupportedDeviceError), plain and compiled."""
    core = make_core(device=device)
    rng = np.random.default_rng(0)
    to, ta, tb = (tensor(core, "half", gen("half", rng)) for _ in range(3))
    m = mreg(full_mask("half"))
    refuses(core, lambda c: call(BIN, c, to, ta, tb, "half", 0, m, Z, 0), UnsupportedDeviceError, label="Add")
    refuses(core, lambda c: call(RED, c, to, ta, "half", "half", 1, RT["max"], m, Z), UnsupportedDeviceError)
    refuses(core, lambda c: call(CAST, c, to, ta, "half", "half", m, trait_of()), UnsupportedDeviceError)
    refuses(core, lambda c: call(UPDATE, c, to, "half", 1, 5), UnsupportedDeviceError)
    regs = [R.RegTensor("half") for _ in range(3)]
    calls = [lambda: R.Add(*regs, m), lambda: R.Sub(*regs, m), lambda: R.Mul(*regs, m),
             lambda: R.Add(R.MaskReg(), R.RegTensor("int32"), R.RegTensor("int32"), R.RegTensor("int32"), m),
             lambda: R.Duplicate(regs[0], 1.0), lambda: R.Duplicate(regs[0], regs[1], m),
             lambda: R.Reduce(regs[0], regs[1], m), lambda: R.ReduceDataBlock(regs[0], regs[1], m),
             lambda: R.PairReduceElem(regs[0], regs[1], m),
             lambda: R.Cast(R.RegTensor("float"), regs[0], m, trait_of(R.RegLayout.ZERO)),
             lambda: R.UpdateMask("half", 5), lambda: R.CreateMask("half"),
             lambda: call(REGS, True, *regs, 0, m, Z)]
    snap = core.ub.copy()
    with core:
        for i, f in enumerate(calls):
            with pytest.raises(UnsupportedDeviceError):
                f()
    assert np.array_equal(core.ub, snap)


# ---------------------------------------------------------------------------------------------------------------
# UpdateMask (SPEC 7.2), StoreAlign's mask (SPEC 7.3), register sizes (SPEC 7.1)
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("t", ALL_TYPES)
def test_update_mask(t):
    """mask, n = UpdateMask(T, n): the lowest min(n, 256/sizeof(T)) lanes (every bit of a lane, decisions.md), n
    decremented by 256/sizeof(T) down to 0; as a StoreAlign mask only those lanes are written."""
    n_lanes = lanes_of(t)
    rng = np.random.default_rng(SIZE[t])
    for n in (0, 1, n_lanes - 1, n_lanes, n_lanes + 5, 2**32 - 1):
        core = make_core()
        with core:
            mask, rest = R.UpdateMask(t, n)
        assert tuple(int(w) for w in mask.words) == mask_words(range(min(n, n_lanes)), t), (t, n)
        assert rest == max(n - n_lanes, 0)
        prev = garbage(t, rng)
        to = tensor(core, t, prev)
        bits = scalar_bits_model(t, 3)
        want = [bits if j < n else prev[j] for j in range(n_lanes)]
        rests = run_both(core, lambda c: call(UPDATE, c, to, t, 3, n), [(to, t, want)], label=f"UpdateMask {t} {n}")
        assert rests == [max(n - n_lanes, 0)] * 2


@pytest.mark.parametrize("n", (-1, 2**32))
def test_update_mask_refuses_counts_outside_uint32(n):
    core = make_core()
    to = tensor(core, "half", [0] * 128)
    refuses(core, lambda c: call(UPDATE, c, to, "half", 3, n), ParameterError, label=f"UpdateMask {n}")


@pytest.mark.parametrize("t", ALL_TYPES)
def test_register_sizes(t):
    """SPEC 7.1 / SPEC-2 11.1: a register holds 256 bytes, 256/sizeof(T) lanes."""
    core = make_core()
    with core:
        assert R.RegTensor(t).numpy().nbytes == 256 and len(R.RegTensor(t).numpy()) == lanes_of(t)
        assert R.GetVecLen() == 256


# ---------------------------------------------------------------------------------------------------------------
# SPEC 5.2: on the 950 CTRL[48] is effective only while CTRL[60] = 1 (docs/decisions.md "The 950 with CTRL[60] = 0")
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("which", ("add", "reduce"))
def test_ctrl48_not_effective_while_ctrl60_is_0(which):
    got = {}
    for c48 in (0, 1):
        core = make_core(sat=c48 == 0, ctrl={60: 0})
        ta, to = tensor(core, "half", [HMAX] * 128), tensor(core, "half", [0] * 128)
        for compiled in (True, False):
            with core:
                if which == "add":
                    call(BIN, compiled, to, ta, ta, "half", 0, mreg(full_mask("half")), Z, 0)
                else:
                    call(RED, compiled, to, ta, "half", "half", 0, RT["sum"], mreg(full_mask("half")), Z)
            got[c48, compiled] = read(core, to)[:2]
    assert got[0, True] == got[1, True] and got[0, False] == got[1, False], got
    assert bytes(got[0, True]) == bytes(got[0, False]) == b"\x00\x7c", got  # +inf: INF/NaN mode


# ---------------------------------------------------------------------------------------------------------------
# Masks at the edges: no lane, a lane whose significant bit alone is cleared, significant bits alone (SPEC 7.1,
# SPEC-2 11.1), across the other instructions
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mk", ("none", "lowbit_off", "lowest_only"))
def test_odd_masks_across_instructions(mk):
    rng = np.random.default_rng(("none", "lowbit_off", "lowest_only").index(mk))
    for t in ("half", "float", "int32"):
        mask = mask_named(t, mk, rng)
        kind = "sum" if t != "int32" else "max"
        check_reduce(0, "sum", t, REDUCE_SUM_DST[t], gen(t, rng), mask, sat=True)
        check_reduce(0, "max", t, t, gen(t, rng), mask, sat=True)
        check_reduce(1, kind, t, t, gen(t, rng), mask, sat=True)
        if t != "int32":
            check_reduce(2, "sum", t, t, gen(t, rng), mask, sat=True)
        for td in CAST_PAIRS["half" if t == "half" else "float" if t == "float" else "int32"][:3]:
            run_cast(t, td, trait_of(layouts(t, td)[-1], sat_modes(t, td)[0], round_modes(t, td)[-1]), mask,
                     cast_input(t, rng))
        src, prev = gen(t, rng), garbage(t, rng)
        on = mask_bits(mask)
        for mode in (Z, M):
            core = make_core()
            ts, to = tensor(core, t, src), tensor(core, t, prev)
            want = [src[0] if active(on, t, j) else (prev[j] if mode == M else 0) for j in range(lanes_of(t))]
            run_both(core, lambda c: call(DUP, c, to, ts, t, 0, mreg(mask), mode, 2), [(to, t, want)],
                     label=f"Duplicate {t} {mk}")
        check_binary(t, "add", 0, mask, M, seed=4)
        check_binary(t, "mul", 0, mask, Z, seed=5)


def test_cast_mask_by_source_width_h7():
    """H-7 / D65: half -> float (layout ZERO) with a half-granularity mask that activates only odd half lanes: every
    float lane 0 (its source lane 2j is inactive); layout ONE reads exactly those lanes."""
    src = [0x3C00 + j for j in range(128)]
    mask = mask_words(range(1, 128, 2), "half")
    want = run_cast("half", "float", trait_of(R.RegLayout.ZERO), mask, src)
    assert want == [0] * 64
    want = run_cast("half", "float", trait_of(R.RegLayout.ONE), mask, src)
    assert want == [f32(float(np.uint16(0x3C01 + 2 * j).view(np.float16))) for j in range(64)]


PATTERN_LANES = {  # SPEC 7.2 names; docs/decisions.md "Reg API" their lanes (n: the register's lane count)
    "ALL": lambda n: range(n), "VL1": lambda n: range(1), "VL2": lambda n: range(2), "VL3": lambda n: range(3),
    "VL4": lambda n: range(4), "VL8": lambda n: range(8), "VL16": lambda n: range(min(16, n)),
    "VL32": lambda n: range(min(32, n)), "VL64": lambda n: range(min(64, n)), "VL128": lambda n: range(min(128, n)),
    "M3": lambda n: range(0, n, 3), "M4": lambda n: range(0, n, 4), "H": lambda n: range(n // 2),
    "Q": lambda n: range(n // 4), "ALLF": lambda n: range(0)}


@pytest.mark.parametrize("t", ("half", "float", "int64", "uint16"))
def test_create_mask_patterns(t):
    """CreateMask patterns (SPEC 7.2), masks made inside the VF: Add MERGING over them, Reduce MAX of their lanes,
    and StoreAlign writing only their lanes (SPEC 7.3)."""
    rng = np.random.default_rng(seed_of(t, "pattern"))
    n = lanes_of(t)
    for name, lanes in PATTERN_LANES.items():
        core = make_core()
        a, prev, prev2 = gen(t, rng), garbage(t, rng), garbage(t, rng)
        ta, to, to2 = tensor(core, t, a), tensor(core, t, prev), tensor(core, t, prev2)
        mask = mask_words(lanes(n), t)
        with core:
            made = R.CreateMask(t, getattr(R.MaskPattern, name))
        assert tuple(int(w) for w in made.words) == mask, name
        want = model_binary(t, "add", a, a, prev, mask, True, False, False)
        red = model_reduce(t, t, a, mask, "max", False)
        want2 = [red[j] if j in lanes(n) else prev2[j] for j in range(n)]
        run_both(core, lambda c: call(PATTERN, c, to, to2, ta, t, getattr(R.MaskPattern, name)),
                 [(to, t, want), (to2, t, want2)], label=f"CreateMask {t} {name}")
