"""Audit 37: an independent model of the reductions, written from the SPEC text alone.

SPEC.md section 4 (ReduceSum: TREE-SEQ, TREE-TREE, the 310B/310P/910 count form with its tail, the 950 dispatch with
VADD-TREE and the three-level tree, 64-bit integer sums), section 6 (ReducePairElem), section 2.4 (masked lanes in
reductions), D1-D26; SPEC-2.md section 8 (ReduceRepeat and its old names, ReduceDataBlock and BlockReduce*,
ReduceMax/ReduceMin with the non-950 level algorithm and the 950 per-lane algorithm, GetReduceRepeatMaxMinSpr),
D30/D41/D50-D55; docs/decisions.md where the SPECs are silent ("Reductions in place", the ReduceSum sharedTmpBuffer
table, canonical NaN patterns, counter-mode counts).

The model shares no code with ascend_jit.reference or ascend_jit.jit. Arithmetic: a half add is the exact float64
sum of two halves (exact: 11-bit significands spanning at most 2**-24..2**16) rounded once to half by numpy (RNE,
overflow to inf, subnormals kept), then the saturation map when the half overflow mode is saturating; a float add is
numpy's float32 add (IEEE RNE, never saturated); integer sums are exact Python integers reduced modulo 2**bits.
Every comparison is byte for byte over the whole UB, except the sharedTmpBuffer entries the SPEC leaves unspecified.
"""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit import errors as E

D950, A3, A2, B310, P310, T910 = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2",
                                  "atlas-inference-aicore", "atlas-training")
ALL = (D950, A3, A2, B310, P310, T910)
NON950 = (A3, A2, B310, P310, T910)
FAM = {D950: "950", A3: "a2", A2: "a2", B310: "310b", P310: "310p", T910: "910"}
UB_BYTES = {D950: 253952, A3: 196608, A2: 196608, B310: 253952, P310: 262144, T910: 262144}
# SPEC D6 / D4: which half overflow modes a device can be put in
SAT_MODES = {D950: (False, True), A3: (False, True), A2: (False, True), B310: (False,), P310: (True,),
             T910: (True,)}

NP = {"half": np.float16, "float": np.float32, "int16": np.int16, "uint16": np.uint16, "int32": np.int32,
      "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64}
SZ = {k: np.dtype(v).itemsize for k, v in NP.items()}
UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}
CANON = {"half": 0x7E00, "float": 0x7FC00000}
FLOATS = ("half", "float")
MAXT, MINT, SUMT = aj.ReduceType.MAX, aj.ReduceType.MIN, aj.ReduceType.SUM
VI, IV, OV, OI = (aj.ReduceOrder.ORDER_VALUE_INDEX, aj.ReduceOrder.ORDER_INDEX_VALUE,
                  aj.ReduceOrder.ORDER_ONLY_VALUE, aj.ReduceOrder.ORDER_ONLY_INDEX)
FULL = 2**64 - 1

# SPEC 4.5 / 8.1 ReduceSum dtypes; SPEC-2 8.1-8.3 tables
REDUCE_SUM_DTYPES = {D950: ("half", "float", "int32", "uint32", "int64", "uint64"), A3: ("half", "float"),
                     A2: ("half", "float"), B310: ("half", "float"), P310: ("half", "float"), T910: ("half",)}
RR_SUM_PAIRS = {D950: (("half", "half"), ("float", "float"), ("int32", "int16"), ("int32", "int32"),
                       ("uint32", "uint16"), ("uint32", "uint32"))}
RR_MAXMIN = {D950: ("int16", "uint16", "half", "int32", "uint32", "float")}
RR_ORDERS = {D950: (VI, IV, OV, OI), A3: (VI, IV, OV, OI), A2: (VI, IV, OV, OI), B310: (VI, OV), P310: (VI, IV),
             T910: (VI,)}
RM_DTYPES = {D950: ("int16", "uint16", "half", "int32", "uint32", "float", "int64", "uint64")}
for _d in NON950:
    RR_SUM_PAIRS[_d] = (("half", "half"),) if _d == T910 else (("half", "half"), ("float", "float"))
    RR_MAXMIN[_d] = ("half",) if _d == T910 else ("half", "float")
    RM_DTYPES[_d] = ("half",) if _d == T910 else ("half", "float")


# ----------------------------------------------------------------------------------------------------------------
# numerics
# ----------------------------------------------------------------------------------------------------------------
def is_float(dt):
    return dt in FLOATS


def sat_map(r, dt, sat):
    """SPEC 5.2 / SPEC-2 D35: in saturation mode a half result inf -> +-65504, NaN -> +0; float never."""
    if dt != "half" or not sat:
        return r
    r = np.asarray(r, np.float16)
    r = np.where(np.isinf(r), np.copysign(np.float16(65504), r), r).astype(np.float16)
    return np.where(np.isnan(r), np.float16(0), r).astype(np.float16)


def fadd(a, b, dt, sat):
    """One correctly rounded add in T (SPEC 4.1 INFERRED, 5.1) followed by the overflow mode."""
    with np.errstate(all="ignore"):
        if dt == "half":
            r = (np.asarray(a, np.float16).astype(np.float64) + np.asarray(b, np.float16).astype(np.float64))
            r = r.astype(np.float16)
        else:
            r = np.asarray(a, np.float32) + np.asarray(b, np.float32)
    return sat_map(r, dt, sat)


def zeros(dt, n):
    return np.zeros(n, NP[dt])          # +0 (SPEC D2)


def tree(v, dt, sat, width):
    """SPEC 4.1: adjacent-pair tree over `width` lanes (v padded with +0)."""
    v = np.asarray(v, NP[dt])
    assert v.size <= width
    v = np.concatenate([v, zeros(dt, width - v.size)])
    while v.size > 1:
        v = fadd(v[0::2], v[1::2], dt, sat)
    return NP[dt](v[0])


def masked_tree(v, active, dt, sat):
    v = np.where(active, np.asarray(v, NP[dt]), zeros(dt, len(v)))
    return tree(v, dt, sat, len(v))


def int_wrap(total, dt):
    bits = 8 * SZ[dt]
    total %= 1 << bits
    if dt.startswith("int") and total >= 1 << (bits - 1):
        total -= 1 << bits
    return NP[dt](total)


def int_sum(vals, dt):
    return int_wrap(sum(int(x) for x in vals), dt)


def key(x, dt):
    """SPEC-2 D41 total order key (non-NaN): -inf < negatives < -0 < +0 < positives < +inf."""
    if is_float(dt):
        return (float(x), 0 if np.signbit(x) else 1)
    return int(x)


def isnan(x, dt):
    return is_float(dt) and bool(np.isnan(x))


def better(a, b, op, dt):
    """a strictly better than b under D41 (NaN beats everything, NaN does not beat NaN)."""
    if isnan(a, dt):
        return not isnan(b, dt)
    if isnan(b, dt):
        return False
    return key(a, dt) > key(b, dt) if op == MAXT else key(a, dt) < key(b, dt)


def same(a, b, dt):
    """Equal under D41 (NaN equals NaN, -0 differs from +0)."""
    if isnan(a, dt) or isnan(b, dt):
        return isnan(a, dt) and isnan(b, dt)
    return key(a, dt) == key(b, dt)


def extreme(vals, active, op, dt):
    """SPEC-2 D50: (value, lane) of the active lanes; ties -> smallest lane; NaN -> the first NaN lane."""
    best, at = None, None
    for j in np.nonzero(active)[0]:
        x = vals[j]
        if best is None or better(x, best, op, dt):
            best, at = x, int(j)
    return NP[dt](best), at


def ext2(a, b, op, dt):
    """Reg Max/Min of two values under D41 (NaN operand -> NaN)."""
    if isnan(a, dt) or isnan(b, dt):
        return NP[dt](np.nan)
    return a if (key(a, dt) >= key(b, dt)) == (op == MAXT) else b


# ----------------------------------------------------------------------------------------------------------------
# UB helpers
# ----------------------------------------------------------------------------------------------------------------
def as_bits(vals, dt):
    """Bytes a kernel stores: floats with every NaN canonical (decisions.md)."""
    vals = np.atleast_1d(np.asarray(vals, NP[dt]))
    if is_float(dt):
        bits = vals.view(UINT[SZ[dt]]).copy()
        bits[np.isnan(vals)] = CANON[dt]
        return bits.view(np.uint8)
    return vals.view(np.uint8)


def store(ub, dt, addr, vals):
    b = as_bits(vals, dt)
    ub[addr:addr + b.size] = b


def store_uint(ub, nbytes, addr, value):
    ub[addr:addr + nbytes] = np.array([value], UINT[nbytes]).view(np.uint8)


def load(ub, dt, addr, n):
    return ub[addr:addr + n * SZ[dt]].copy().view(NP[dt])


def lanes(ub, dt, base, i, rep, blk, L):
    """SPEC 1.2: lane j of repeat i at base + i*rep*32 + (j // epb)*blk*32 + (j % epb)*size."""
    sz = SZ[dt]
    epb = 32 // sz
    j = np.arange(L)
    a = base + i * rep * 32 + (j // epb) * blk * 32 + (j % epb) * sz
    return ub[a[:, None] + np.arange(sz)].reshape(-1).copy().view(NP[dt])


def mask_lanes(mask, L):
    if isinstance(mask, (list, tuple)):
        words = list(mask) + [0] * (2 - len(mask))
        return np.array([(words[j // 64] >> (j % 64)) & 1 for j in range(L)], bool)
    return np.arange(L) < min(mask, L)


def gen(rng, dt, n, kind="normal"):
    """Input values (as the dtype's array)."""
    if not is_float(dt):
        info = np.iinfo(NP[dt])
        if kind == "small":
            return rng.integers(max(info.min, -50), 50, n).astype(NP[dt])
        return rng.integers(info.min, info.max, n, dtype=NP[dt], endpoint=True)
    if kind == "bits":
        return rng.integers(0, 2 ** (8 * SZ[dt]), n, dtype=UINT[SZ[dt]]).view(NP[dt])
    if kind == "small":
        return rng.integers(-6, 7, n).astype(NP[dt])
    if kind == "big":
        big = 30000.0 if dt == "half" else 1.5e38
        return (rng.choice([-1.0, 1.0], n) * rng.uniform(0.5, 1.0, n) * big).astype(NP[dt])
    scale = rng.choice([1.0, 100.0, 3000.0]) if dt == "half" else rng.choice([1.0, 1e6, 1e-30])
    x = (rng.standard_normal(n) * scale).astype(NP[dt])
    if kind == "mixed":
        specials = ([np.inf, -np.inf, np.nan, 0.0, -0.0, 65504.0, -65504.0, 6e-8, -6e-8, 1e-5] if dt == "half" else
                    [np.inf, -np.inf, np.nan, 0.0, -0.0, 3.4e38, -3.4e38, 1e-45, -1e-45, 1e-40])
        k = rng.integers(0, n, max(1, n // 40))
        x[k] = np.array(specials, NP[dt])[rng.integers(0, len(specials), k.size)]
    return x


class Bench:
    """A core whose UB is random bytes, and the model's copy of it."""

    def __init__(self, device, sat=None, seed=0, bounds="tensor"):
        self.device = device
        self.core = aj.Core(device, bounds=bounds)
        if sat is None:
            sat = SAT_MODES[device][0]
        self.sat = sat
        if device in (D950, A2, A3):
            self.core.SetCtrlSpr(48, 48, 0 if sat else 1)
        else:
            assert sat in SAT_MODES[device]
        self.rng = np.random.default_rng(seed)
        self.core.ub[:] = self.rng.integers(0, 256, self.core.ub.size, dtype=np.uint8)
        self.core.ub_written_by_host()
        self.skip = []

    def put(self, dt, addr, vals, n=None):
        """Write vals at addr and return a tensor of n (default len(vals)) elements there."""
        vals = np.asarray(vals, NP[dt])
        self.core.ub[addr:addr + vals.nbytes] = vals.view(np.uint8)
        self.core.ub_written_by_host()
        return self.core.local_tensor(dt, n if n is not None else vals.size, addr=addr)

    def tensor(self, dt, addr, n):
        return self.core.local_tensor(dt, n, addr=addr)

    def snapshot(self):
        self.exp = self.core.ub.copy()
        return self.exp

    def check(self, what=""):
        got, exp = self.core.ub.copy(), self.exp.copy()
        for a, b in self.skip:
            got[a:b] = 0
            exp[a:b] = 0
        bad = np.nonzero(got != exp)[0]
        if bad.size:
            k = int(bad[0])
            lo = k - k % 8
            raise AssertionError(f"{self.device} {what}: {bad.size} bytes differ, first at {k}: got "
                                 f"{self.core.ub[lo:lo + 8].tolist()} want {self.exp[lo:lo + 8].tolist()}")


def refused(bench, call, cls=E.AscendJitError, match=None):
    """SPEC D10, SPEC-2 1.5/1.8: a refused call raises before anything is written."""
    before = bench.core.ub.copy()
    with pytest.raises(cls, match=match):
        call()
    assert isinstance(cls, type) and issubclass(cls, E.AscendJitError)
    assert np.array_equal(before, bench.core.ub), "a refused call changed the UB"


def ceil_div(a, b):
    return -(-a // b)


def roundup(a, b):
    return ceil_div(a, b) * b


# ----------------------------------------------------------------------------------------------------------------
# ReduceSum model (SPEC 4)
# ----------------------------------------------------------------------------------------------------------------
def tree_tree(t, dt, sat, L):
    """SPEC 4.2 high-dim steps 2-3 (every non-950 device): groups of L repeat results, zero-padded, then the group
    results; one repeat: its tree; one group: its tree (scalar copy)."""
    if len(t) == 1:
        return t[0]
    g = [tree(t[k * L:(k + 1) * L], dt, sat, L) for k in range(ceil_div(len(t), L))]
    return g[0] if len(g) == 1 else tree(g, dt, sat, L)


def vadd_dispatch_950(rep, N, dt, sat, L):
    """SPEC 4.4 DispatchReduceSumCounterMode: rep(k) gives the L lanes of 256-byte repeat k."""
    def part(k):
        return masked_tree(rep(k), np.arange(L) < N - k * L, dt, sat)
    if N <= L:
        return part(0)
    if N <= 2 * L:
        v, k = rep(0).copy(), N - L
        v[:k] = fadd(v[:k], rep(1)[:k], dt, sat)       # MERGING: the other lanes keep repeat 0 exactly
        return tree(v, dt, sat, L)
    if N <= 3 * L:
        v, k = fadd(rep(0), rep(1), dt, sat), N - 2 * L
        v[:k] = fadd(v[:k], rep(2)[:k], dt, sat)
        return tree(v, dt, sat, L)
    if N <= 4 * L:
        v = fadd(rep(0), rep(1), dt, sat)
        w, k = rep(2).copy(), N - 3 * L
        w[:k] = fadd(w[:k], rep(3)[:k], dt, sat)
        return tree(fadd(v, w, dt, sat), dt, sat, L)
    t = [part(g) for g in range(ceil_div(N, L))]
    if N <= L * L:
        return tree(t, dt, sat, L)
    t2 = [tree(t[h * L:(h + 1) * L], dt, sat, L) for h in range(ceil_div(len(t), L))]
    return tree(t2, dt, sat, L)


def reduce_sum_count_model(device, dt, x, sat):
    n, L = len(x), 256 // SZ[dt]
    if not is_float(dt):
        return int_sum(x, dt)                            # wraps (SPEC D21; 64-bit exact mod 2**64)
    fam = FAM[device]

    def part(v):
        return tree(v, dt, sat, L)
    if fam == "a2":                                      # TREE-SEQ, D1: rounded to T after every repeat
        acc = part(x[:L])
        for r in range(1, ceil_div(n, L)):
            acc = fadd(acc, part(x[r * L:(r + 1) * L]), dt, sat)
        return NP[dt](acc)
    if fam in ("310b", "310p", "910"):                   # SPEC 4.3: body TREE-TREE, tail added last
        R, t = divmod(n, L)
        if R == 0:
            return part(x)
        body = tree_tree([part(x[r * L:(r + 1) * L]) for r in range(R)], dt, sat, L)
        if t == 0:
            return body
        return tree([body, part(x[R * L:])], dt, sat, L)

    def rep(k):
        v = np.asarray(x[k * L:(k + 1) * L], NP[dt])
        return np.concatenate([v, zeros(dt, L - v.size)])
    return vadd_dispatch_950(rep, n, dt, sat, L)


def reduce_sum_high_model(device, dt, ub, src, mask, R, rep, sat):
    L = 256 // SZ[dt]
    act = mask_lanes(mask, L)
    if FAM[device] == "950":
        R = max(R, 1)                                    # SPEC 4.4: repeat <= 1 is one repeat (D7)
    rows = [lanes(ub, dt, src, i, rep, 1, L) for i in range(R)]
    if not is_float(dt):
        return int_sum(np.concatenate([r[act] for r in rows]), dt)
    t = [masked_tree(r, act, dt, sat) for r in rows]
    if FAM[device] != "950":
        return tree_tree(t, dt, sat, L)
    if R == 1:
        return t[0]
    if R <= L:
        return tree(t, dt, sat, L)
    return tree([tree(t[g * L:(g + 1) * L], dt, sat, L) for g in range(ceil_div(R, L))], dt, sat, L)


def reduce_sum_tmp_min(device, dt, count=None, repeat=None, counter=None):
    """decisions.md "ReduceSum sharedTmpBuffer minimum" (D11/D18)."""
    L, epb = 256 // SZ[dt], 32 // SZ[dt]
    if counter is not None:
        return roundup(ceil_div(counter, L), epb)
    if repeat is not None:
        return roundup(repeat, epb)
    fam = FAM[device]
    if fam == "a2":
        return 0
    if fam == "950":
        return roundup(ceil_div(count, L), epb)
    return roundup(max(count // L, 1), epb)


COUNTS = {"half": [1, 77, 128, 200, 256, 300, 384, 450, 512, 640, 1000, 2049, 128 * 130 + 5],
          "float": [1, 50, 64, 100, 128, 150, 192, 230, 256, 300, 1000, 4096, 64 * 70 + 7],
          "int32": [1, 64, 100, 200, 300, 5000], "uint32": [1, 64, 100, 200, 300, 5000],
          "int64": [1, 20, 32, 50, 100, 1000], "uint64": [1, 20, 32, 50, 100, 1000]}
KINDS = ["normal", "mixed", "small", "big", "normal", "bits"]


def _sum_combos():
    for d in ALL:
        for dt in REDUCE_SUM_DTYPES[d]:
            for sat in (SAT_MODES[d] if is_float(dt) else SAT_MODES[d][:1]):   # float: never saturated (D6)
                yield d, dt, sat


@pytest.mark.parametrize("device,dt,sat", list(_sum_combos()))
def test_reduce_sum_count_form(device, dt, sat):
    for k, n in enumerate(COUNTS[dt]):
        b = Bench(device, sat, seed=1000 + k)
        x = gen(b.rng, dt, n, KINDS[k % len(KINDS)] if is_float(dt) else "full")
        if k == 2 and is_float(dt):
            x[:] = -0.0                                  # D2 consequence: padding decides the sign
        sz = SZ[dt]
        src = b.put(dt, 512, x)
        dst_addr = roundup(512 + n * sz, 32) + 3 * sz    # dst: element alignment only (SPEC 4.5)
        dst = b.tensor(dt, dst_addr, 13)
        tmin = reduce_sum_tmp_min(device, dt, count=n)
        tmp_addr = roundup(dst_addr + 13 * sz, 32)
        tmp = b.tensor(dt, tmp_addr, tmin + 32 // sz)    # one block more than the minimum: it stays untouched
        exp = b.snapshot()
        store(exp, dt, dst_addr, reduce_sum_count_model(device, dt, x, sat))
        b.skip = [(tmp_addr, tmp_addr + tmin * sz)]      # D18: unspecified (empty on A2/A3: untouched)
        aj.ReduceSum(dst, src, tmp, n)
        b.check(f"ReduceSum {dt} count {n} sat={sat}")


def _high_configs(dt):
    L = 256 // SZ[dt]
    rng = np.random.default_rng(7)
    lo = int(rng.integers(1, 2**63))
    hi = int(rng.integers(1, 2**63)) if L == 128 else 0
    cfg = [(L, 1, 8), (L // 2 + 13, 1, 8), ([lo, hi], 3, 8), (L, 65, 8), (L - 28, 2 * L + 2, 8), (64, 5, 0),
           (L, 4, 3), ([lo, hi], 2, 16), (L, 0, 8), (0, 3, 8), ([0, 0], 2, 8), (1, 2, 8)]
    return cfg


@pytest.mark.parametrize("device,dt,sat", [c for c in _sum_combos() if c[1] not in ("int64", "uint64")])
def test_reduce_sum_high_dim(device, dt, sat):
    sz = SZ[dt]
    for k, (mask, R, rep) in enumerate(_high_configs(dt)):
        b = Bench(device, sat, seed=2000 + k)
        span = (max(R, 1) - 1) * rep * 32 + 256
        x = gen(b.rng, dt, span // sz, KINDS[k % len(KINDS)] if is_float(dt) else "full")
        src = b.put(dt, 256, x)
        dst_addr = roundup(256 + span, 32) + sz
        dst = b.tensor(dt, dst_addr, 4)
        tmin = reduce_sum_tmp_min(device, dt, repeat=R)
        tmp_addr = roundup(dst_addr + 4 * sz, 32)
        tmp = b.tensor(dt, tmp_addr, tmin + 32 // sz)
        exp = b.snapshot()
        zero_mask = mask == 0 or mask == [0, 0]
        call = lambda: aj.ReduceSum(dst, src, tmp, mask, R, rep)  # noqa: E731
        if zero_mask and device == D950:
            refused(b, call, E.ParameterError)           # SPEC D14: mask 0 refused on the 950
            continue
        if zero_mask:
            pass                                         # D14: NOP (310B too: only repeat 0 writes)
        elif R == 0 and device == B310:
            store(exp, dt, dst_addr, zeros(dt, 1))       # D14: the 310B writes +0 to dst[0]
        elif R == 0 and device != D950:
            pass                                         # D14: NOP
        else:
            store(exp, dt, dst_addr, reduce_sum_high_model(device, dt, exp, 256, mask, R, rep, sat))
        b.skip = [(tmp_addr, tmp_addr + tmin * sz)]
        call()
        b.check(f"ReduceSum {dt} mask {mask} R {R} rep {rep} sat={sat}")


def _sum_call(b, dt, x, form, dst_addr=None, tmp_addr=None, src_addr=512):
    """Place x, run ReduceSum (count form, or one high-dim call over whole repeats), return (dst addr, value)."""
    L, sz, n = 256 // SZ[dt], SZ[dt], len(x)
    src = b.put(dt, src_addr, x)
    dst_addr = roundup(src_addr + n * sz, 32) if dst_addr is None else dst_addr
    dst = b.tensor(dt, dst_addr, 16)
    R = ceil_div(n, L)
    tmin = reduce_sum_tmp_min(b.device, dt, count=n) if form == "count" else reduce_sum_tmp_min(b.device, dt,
                                                                                                 repeat=R)
    tmp_addr = roundup(dst_addr + 16 * sz, 32) if tmp_addr is None else tmp_addr
    tmp = b.tensor(dt, tmp_addr, max(tmin, 16))
    if form == "count":
        aj.ReduceSum(dst, src, tmp, n)
    else:
        aj.ReduceSum(dst, src, tmp, L, R, 8)
    return load(b.core.ub, dt, dst_addr, 16)


def _bits(v, dt="half"):
    return int(np.asarray(v, NP[dt]).view(UINT[SZ[dt]]))


@pytest.mark.parametrize("device", ALL)
def test_reduce_sum_seed_goldens(device):
    """SPEC 9: 8320 ones high-dim (mask 128, repeat 65) -> [8320, 0 x 15]; 288 ones count -> [288, 0 x 15];
    D12 [60000, 60000, -30000, 100]: saturation 35584, INF/NaN +inf."""
    for mask in (128, [FULL, FULL]):
        b = Bench(device, seed=1)
        src = b.put("half", 0, np.ones(8320, np.float16))
        dst = b.put("half", 8320 * 2, np.zeros(16, np.float16))
        tmp = b.tensor("half", 8320 * 2 + 32, 80)
        aj.ReduceSum(dst, src, tmp, mask, 65, 8)
        assert load(b.core.ub, "half", 8320 * 2, 16).tolist() == [8320] + [0] * 15
    b = Bench(device, seed=2)
    src = b.put("half", 0, np.ones(288, np.float16))
    dst = b.put("half", 1024, np.zeros(16, np.float16))
    aj.ReduceSum(dst, src, b.tensor("half", 2048, 16), 288)
    assert load(b.core.ub, "half", 1024, 16).tolist() == [288] + [0] * 15
    for sat in SAT_MODES[device]:
        b = Bench(device, sat, seed=3)
        got = _sum_call(b, "half", np.array([60000, 60000, -30000, 100], np.float16), "count")
        assert _bits(got[0]) == (_bits(35584) if sat else 0x7C00)


TABLE_41 = [([-0.0] * 256, -0.0, -0.0), ([np.nan] * 256, np.nan, 0.0), ([np.inf, -np.inf, np.nan] + [1] * 253,
                                                                         np.nan, 252.0),
            ([np.inf, -np.inf] + [1] * 254, np.nan, 254.0), ([np.inf, np.nan] + [1] * 254, np.nan, 254.0),
            ([np.inf] + [1] * 255, np.inf, 65504.0), ([-np.inf] + [1] * 255, -np.inf, -65248.0),
            ([np.nan] + [1] * 255, np.nan, 254.0)]
TABLE_38 = [([-np.inf] + [1] * 127, -np.inf, -65376.0), ([np.nan] + [1] * 127, np.nan, 126.0),
            ([np.inf] + [1] * 127, np.inf, 65504.0)]


@pytest.mark.parametrize("device", ALL)
def test_reduce_sum_boundary_tables(device):
    """SPEC 9 Table 41 (A2/A3, count form, 256 halves) and Table 38 (one repeat, every device, both forms), per mode;
    the model gives the same answers on every other device (each asserted against the model)."""
    for sat in SAT_MODES[device]:
        for rows, forms in ((TABLE_41, ("count", "high")), (TABLE_38, ("count", "high"))):
            for values, inf_v, sat_v in rows:
                x = np.array(values, np.float16)
                for form in forms:
                    b = Bench(device, sat, seed=4)
                    got = _sum_call(b, "half", x, form)[0]
                    want = reduce_sum_count_model(device, "half", x, sat) if form == "count" else \
                        tree_tree([tree(x[i * 128:(i + 1) * 128], "half", sat, 128) for i in range(len(x) // 128)],
                                  "half", sat, 128)
                    assert _bits(got) == _bits(as_bits(want, "half").view(np.float16)[0]), (form, values[:3])
                    if rows is TABLE_38 or (FAM[device] == "a2" and form == "count"):
                        golden = np.float16(sat_v if sat else inf_v)
                        assert _bits(as_bits(golden, "half").view(np.float16)[0]) == _bits(got), (values[:3], sat)
    # float rows: IEEE in both modes, all MAX -> +inf
    if "float" in REDUCE_SUM_DTYPES[device]:
        for sat in SAT_MODES[device]:
            b = Bench(device, sat, seed=5)
            got = _sum_call(b, "float", np.full(64, np.finfo(np.float32).max, np.float32), "count")[0]
            assert got == np.inf


@pytest.mark.parametrize("device", ALL)
def test_reduce_sum_in_place_and_dst_over_tmp(device):
    """decisions.md "Reductions in place": ReduceSum(t, t, tmp, n) and the high-dim form with dst at src's address
    write t[0] = the out-of-place sum, t[1..] unchanged; SPEC 4.5: dst may overlap sharedTmpBuffer."""
    for dt in REDUCE_SUM_DTYPES[device]:
        L, sz = 256 // SZ[dt], SZ[dt]
        forms = ("count",) if dt in ("int64", "uint64") else ("count", "high")
        for n in (L // 2 + 3, 3 * L, 5 * L + 7):
            for form in forms:
                if form == "high" and n % L:
                    continue
                b = Bench(device, seed=n)
                x = gen(b.rng, dt, n, "normal" if is_float(dt) else "full")
                t = b.put(dt, 1024, x)
                tmin = (reduce_sum_tmp_min(device, dt, count=n) if form == "count" else
                        reduce_sum_tmp_min(device, dt, repeat=n // L))
                tmp_addr = roundup(1024 + n * sz, 32)
                tmp = b.tensor(dt, tmp_addr, tmin + 32 // sz)
                exp = b.snapshot()
                if form == "count":
                    store(exp, dt, 1024, reduce_sum_count_model(device, dt, x, b.sat))
                    b.skip = [(tmp_addr, tmp_addr + tmin * sz)]
                    aj.ReduceSum(t, t, tmp, n)
                else:
                    store(exp, dt, 1024, reduce_sum_high_model(device, dt, exp, 1024, L, n // L, 8, b.sat))
                    b.skip = [(tmp_addr, tmp_addr + tmin * sz)]
                    aj.ReduceSum(t, t, tmp, L, n // L, 8)
                b.check(f"in place {form} {dt} {n}")
        # dst is sharedTmpBuffer's element 0 (count form; tmp holds at least the minimum)
        n = 3 * L + 5
        b = Bench(device, seed=9)
        x = gen(b.rng, dt, n, "normal" if is_float(dt) else "full")
        src = b.put(dt, 1024, x)
        tmin = max(reduce_sum_tmp_min(device, dt, count=n), 32 // sz)
        tmp_addr = roundup(1024 + n * sz, 32)
        tmp = b.tensor(dt, tmp_addr, tmin)
        dst = b.tensor(dt, tmp_addr, 1)
        exp = b.snapshot()
        want = reduce_sum_count_model(device, dt, x, b.sat)
        store(exp, dt, tmp_addr, want)
        b.skip = [(tmp_addr + sz, tmp_addr + tmin * sz)] if reduce_sum_tmp_min(device, dt, count=n) else []
        aj.ReduceSum(dst, src, tmp, n)
        b.check(f"dst over tmp {dt}")


@pytest.mark.parametrize("dt", ["half", "float", "int32", "uint32"])
def test_reduce_sum_950_counter_mode_high_dim(dt):
    """D23 / SPEC 4.4: in counter mode the 950's high-dim ReduceSum takes the element count from the mask argument,
    ignores repeatTime, reads repeat k at k*srcRepStride blocks and runs the count dispatch (VADD-TREE included)."""
    L, sz = 256 // SZ[dt], SZ[dt]
    for k, (N, rep) in enumerate([(L - 5, 8), (L + 9, 8), (2 * L + 1, 16), (3 * L + 30, 9), (4 * L, 8),
                                  (7 * L + 3, 12), ([3 * L + 1, 77], 8), (2**32 + L + 9, 8)]):
        for sat in (SAT_MODES[D950] if dt == "half" else (False,)):
            b = Bench(D950, sat, seed=300 + k)
            count = N[0] if isinstance(N, list) else N % 2**32      # D23: the low 32 bits
            nrep = ceil_div(count, L)
            span = (nrep - 1) * rep * 32 + 256
            x = gen(b.rng, dt, span // sz, "mixed" if is_float(dt) else "full")
            src = b.put(dt, 256, x)
            dst_addr = roundup(256 + span, 32)
            dst = b.tensor(dt, dst_addr, 8)
            tmin = reduce_sum_tmp_min(D950, dt, counter=count)
            tmp_addr = dst_addr + 64
            tmp = b.tensor(dt, tmp_addr, tmin + 32 // sz)
            exp = b.snapshot()

            def rep_lanes(j):
                return load(exp, dt, 256 + j * rep * 32, L)
            if is_float(dt):
                want = vadd_dispatch_950(rep_lanes, count, dt, sat, L)
            else:
                want = int_sum(np.concatenate([rep_lanes(j)[:count - j * L] for j in range(nrep)]), dt)
            store(exp, dt, dst_addr, want)
            b.skip = [(tmp_addr, tmp_addr + tmin * sz)]
            b.core.SetMaskCount()
            aj.ReduceSum(dst, src, tmp, N, 7, rep)
            b.core.SetMaskNorm()
            b.check(f"950 counter {dt} N={N} rep={rep}")


def test_reduce_sum_a2_count_form_register_count():
    """decisions.md / SPEC 4.2: the A2/A3 count form with is_set_mask=False takes the count from the counter-mode
    mask register (the count argument is ignored)."""
    for device in (A2, A3):
        b = Bench(device, seed=11)
        x = gen(b.rng, "half", 600, "normal")
        src = b.put("half", 0, x)
        dst = b.tensor("half", 2048, 4)
        tmp = b.tensor("half", 4096, 16)
        exp = b.snapshot()
        store(exp, "half", 2048, reduce_sum_count_model(device, "half", x[:333], False))
        b.core.SetMaskCount()
        b.core.SetVectorMask(333)
        aj.ReduceSum(dst, src, tmp, 1, is_set_mask=False)
        b.check("is_set_mask=False")


@pytest.mark.parametrize("device", ALL)
def test_reduce_sum_refusals(device):
    b = Bench(device, seed=12)
    dt = "half"
    src = b.put(dt, 0, gen(b.rng, dt, 1024))
    dst = b.tensor(dt, 4096, 16)
    tmp = b.tensor(dt, 8192, 64)
    refused(b, lambda: aj.ReduceSum(dst, src, tmp, 0), E.ParameterError)             # D16
    refused(b, lambda: aj.ReduceSum(dst, src, tmp, 1025), E.OutOfBoundsError)         # count past the tensor
    refused(b, lambda: aj.ReduceSum(src[3:], src, tmp, 600), E.OverlapError)          # dst inside src
    refused(b, lambda: aj.ReduceSum(dst, src, tmp, 128, 2, 8, is_set_mask=False), E.AscendJitError)
    refused(b, lambda: aj.ReduceSum(dst, src[8:], tmp, 128, 2, 8), E.AlignmentError)   # src 32-B aligned
    small = b.tensor(dt, 8192, 16)
    refused(b, lambda: aj.ReduceSum(dst, src, small, 128, 17, 0), E.ParameterError, "32")   # D11: states 32
    if FAM[device] != "a2":
        refused(b, lambda: aj.ReduceSum(dst, src, b.tensor(dt, 8192, 1), 300), E.ParameterError)  # D11 count form
    # D17: more than L*L repeat results (half: srcRepStride 0, 16385 repeats)
    big_tmp = b.tensor(dt, 16384, 16400)
    refused(b, lambda: aj.ReduceSum(dst, src, big_tmp, 128, 128 * 128 + 1, 0), E.ParameterError)
    ftmp = b.tensor("float", 16384, 4104)
    fsrc, fdst = b.tensor("float", 0, 256), b.tensor("float", 4096, 8)
    if "float" in REDUCE_SUM_DTYPES[device]:
        refused(b, lambda: aj.ReduceSum(fdst, fsrc, ftmp, 64, 64 * 64 + 1, 0), E.ParameterError)
        refused(b, lambda: aj.ReduceSum(fdst, fsrc, ftmp, [1, 1], 1, 8), E.ParameterError)  # SPEC 2.1: hi must be 0
    else:
        refused(b, lambda: aj.ReduceSum(fdst, fsrc, ftmp, 64), E.UnsupportedDTypeError)
    if device != D950:
        refused(b, lambda: aj.ReduceSum(b.tensor("int32", 4096, 8), b.tensor("int32", 0, 256),
                                        b.tensor("int32", 8192, 64), 64), E.UnsupportedDTypeError)
        b.core.SetMaskCount()
        refused(b, lambda: aj.ReduceSum(dst, src, tmp, 128, 1, 8), E.StateError)   # decisions.md
        b.core.SetMaskNorm()
    else:
        i64 = b.tensor("int64", 0, 128)
        refused(b, lambda: aj.ReduceSum(b.tensor("int64", 4096, 4), i64, b.tensor("int64", 8192, 8), 32, 1, 8),
                E.AscendJitError)                                                   # 64-bit: count form only
        # 950 count > 4L writes tmp entries: a tmp inside src at another address is an overlap, and so is a tmp
        # at src's address in the high-dim form (decisions.md "Reductions in place": the count form only, session 67)
        refused(b, lambda: aj.ReduceSum(dst, src, src[16:], 1000), E.OverlapError)
        refused(b, lambda: aj.ReduceSum(dst, src, src, 128, 2, 8), E.OverlapError)
    # half dst at an odd byte address: element alignment (SPEC 4.5)
    refused(b, lambda: aj.ReduceSum(b.core.local_tensor(dt, 2, addr=4097), src, tmp, 100), E.AlignmentError)


def test_reduce_sum_tmp_may_be_src_where_nothing_is_written():
    """decisions.md table: the A2/A3 count form and the 950 count form up to 4L write no tmp entry."""
    for device, n in ((A2, 1000), (A3, 77), (D950, 400)):
        b = Bench(device, seed=13)
        x = gen(b.rng, "half", n)
        src = b.put("half", 0, x)
        dst = b.tensor("half", 4096, 2)
        exp = b.snapshot()
        store(exp, "half", 4096, reduce_sum_count_model(device, "half", x, False))
        aj.ReduceSum(dst, src, src, n)
        b.check("tmp == src")


def test_vector_core_is_refused():
    core = aj.Core("atlas-inference-vectorcore")
    src, dst, tmp = core.local_tensor("half", 256), core.local_tensor("half", 16), core.local_tensor("half", 16)
    for call in (lambda: aj.ReduceSum(dst, src, tmp, 256),
                 lambda: aj.ReducePairElem(dst, src, 128, 1, 1, 1, 8),
                 lambda: aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, reduce_type=SUMT),
                 lambda: aj.ReduceDataBlock(dst, src, 128, 1, 1, 1, 8, reduce_type=MAXT),
                 lambda: aj.ReduceMax(dst, src, tmp, 256)):
        with pytest.raises(E.UnsupportedDeviceError):
            call()


# ----------------------------------------------------------------------------------------------------------------
# ReducePairElem (SPEC 6, 2.4, D14, D19, D24)
# ----------------------------------------------------------------------------------------------------------------
def pair_model(exp, device, dt, dst, src, mask, R, dst_rep, src_blk, src_rep, sat, counter=None):
    L, sz = 256 // SZ[dt], SZ[dt]
    zero_fill = FAM[device] in ("950", "310b")          # both lanes masked: 0 (950, 310B) or skipped
    nrep = ceil_div(counter, L) if counter is not None else R
    for i in range(nrep):
        act = np.arange(L) < counter - i * L if counter is not None else mask_lanes(mask, L)
        v = np.where(act, lanes(exp, dt, src, i, src_rep, src_blk, L), zeros(dt, L))
        s = fadd(v[0::2], v[1::2], dt, sat)              # one lane masked: x + (+0) (D19)
        write = act[0::2] | act[1::2] | zero_fill
        base = dst + i * dst_rep * (L // 2) * sz         # dstRepStride unit: 128 B
        for p in np.nonzero(write)[0]:
            store(exp, dt, base + p * sz, s[p])


def _pair_dtypes(device):
    return ("half",) if device == T910 else ("half", "float")


@pytest.mark.parametrize("device", ALL)
def test_reduce_pair_elem(device):
    for dt in _pair_dtypes(device):
        L, sz = 256 // SZ[dt], SZ[dt]
        rng = np.random.default_rng(17)
        w = [int(rng.integers(1, 2**63)), int(rng.integers(1, 2**63)) if L == 128 else 0]
        odd = [0xAAAAAAAAAAAAAAAA, 0x5555555555555555 if L == 128 else 0]
        cfgs = [(L, 2, 1, 1, 8), (L // 2 + 13, 3, 1, 1, 8), (w, 2, 2, 2, 16), (odd, 2, 1, 1, 8), (L, 0, 1, 1, 8),
                (0, 2, 1, 1, 8), ([0, 0], 2, 1, 1, 8), (w, 3, 0, 1, 8), (L, 3, 1, 0, 0), (w, 2, 3, 1, 4)]
        for k, (mask, R, dst_rep, blk, rep) in enumerate(cfgs):
            for sat in (SAT_MODES[device] if dt == "half" else SAT_MODES[device][:1]):
                b = Bench(device, sat, seed=400 + k)
                span = (max(R, 1) - 1) * rep * 32 + 7 * blk * 32 + 32
                src = b.put(dt, 0, gen(b.rng, dt, span // sz, "mixed"))
                dst_addr = roundup(span, 32) + 64
                dst = b.tensor(dt, dst_addr, max(R, 1) * max(dst_rep, 1) * L // 2)
                exp = b.snapshot()
                call = lambda: aj.ReducePairElem(dst, src, mask, R, dst_rep, blk, rep)  # noqa: E731
                zero_mask = mask == 0 or mask == [0, 0]
                if zero_mask and device == D950:
                    refused(b, call, E.ParameterError)   # D14
                    continue
                if dst_rep == 0 and device == T910:
                    refused(b, call, E.ParameterError)   # SPEC 6: 910 does not support dstRepStride 0
                    continue
                if not (zero_mask and device != B310):
                    pair_model(exp, device, dt, dst_addr, 0, mask, R, dst_rep, blk, rep, sat)
                call()
                b.check(f"ReducePairElem {dt} cfg {k} sat={sat}")


@pytest.mark.parametrize("device", ALL)
def test_reduce_pair_elem_counter_mode(device):
    """SPEC 2.6 counter mode; D24: pairs past the count in the last repeat are 0 on the 950 (and the 310B,
    decisions.md), skipped elsewhere; dstRepStride 0 in counter mode refused there."""
    for dt in _pair_dtypes(device):
        L = 256 // SZ[dt]
        for N in (L + 37, 2 * L):
            b = Bench(device, seed=N)
            src = b.put(dt, 0, gen(b.rng, dt, 3 * L, "mixed"))
            dst = b.tensor(dt, 2048, 2 * L)
            exp = b.snapshot()
            pair_model(exp, device, dt, 2048, 0, None, 0, 1, 1, 8, b.sat, counter=N)
            b.core.SetMaskCount()
            aj.ReducePairElem(dst, src, N, 9, 1, 1, 8)
            b.check(f"counter {dt} {N}")
            if FAM[device] in ("950", "310b"):
                refused(b, lambda: aj.ReducePairElem(dst, src, N, 9, 0, 1, 8), E.ParameterError)
            b.core.SetMaskNorm()


def test_reduce_pair_elem_golden_and_refusals():
    """SPEC 9 (S2): [1,1,1,-1,2,2,-1,2,3,3,3,-1,4,4,-2,4, ...] -> [2,0,4,1,6,2,8,2, ...] on every device."""
    x = np.array([1, 1, 1, -1, 2, 2, -1, 2, 3, 3, 3, -1, 4, 4, -2, 4] * 8, np.float16)
    for device in ALL:
        b = Bench(device, seed=1)
        src = b.put("half", 0, x)
        dst = b.tensor("half", 512, 64)
        aj.ReducePairElem(dst, src, 128, 1, 1, 1, 8)
        assert load(b.core.ub, "half", 512, 8).tolist() == [2, 0, 4, 1, 6, 2, 8, 2]
        # in place: dst over the first half of its own repeat's source is a partial overlap (element-wise rule)
        refused(b, lambda: aj.ReducePairElem(src, src, 128, 1, 1, 1, 8), E.OverlapError)
        refused(b, lambda: aj.ReducePairElem(dst, src, 128, 256, 1, 1, 0), E.ParameterError)  # repeat 0..255
        refused(b, lambda: aj.ReducePairElem(dst, src, -1, 1, 1, 1, 8), E.ParameterError)     # negative mask
        if device == T910:
            fs, fd = b.tensor("float", 0, 64), b.tensor("float", 512, 32)
            refused(b, lambda: aj.ReducePairElem(fd, fs, 64, 1, 1, 1, 8), E.UnsupportedDTypeError)


# ----------------------------------------------------------------------------------------------------------------
# ReduceRepeat (SPEC-2 8.1, D41, D50) and GetReduceRepeatMaxMinSpr (8.4, D55)
# ----------------------------------------------------------------------------------------------------------------
def rr_model(exp, device, op, dt, st, order, dst, src, mask, R, dst_rep, blk, rep, sat, counter=None):
    """Returns the per-repeat (value, lane) list of MAX/MIN (unsaturated) for the D55 register."""
    L = 256 // SZ[st]
    nrep = ceil_div(counter, L) if counter is not None else R
    per = []
    for i in range(nrep):
        act = np.arange(L) < counter - i * L if counter is not None else mask_lanes(mask, L)
        v = lanes(exp, st, src, i, rep, blk, L)
        if op == SUMT:
            val = masked_tree(v, act, st, sat) if is_float(st) else int_sum(v[act], dt)   # widened, wraps (D50)
            store(exp, dt, dst + i * dst_rep * SZ[dt], val)
            continue
        val, j = extreme(v, act, op, st)
        per.append((val, j))
        val = sat_map(val, st, sat)
        sz = SZ[st]
        if order == VI:
            a = dst + i * dst_rep * 2 * sz
            store(exp, st, a, val)
            store_uint(exp, sz, a + sz, j)
        elif order == IV:
            a = dst + i * dst_rep * 2 * sz
            store_uint(exp, sz, a, j)
            store(exp, st, a + sz, val)
        elif order == OV:
            store(exp, st, dst + i * dst_rep * sz, val)
        else:
            store_uint(exp, 4, dst + i * dst_rep * 4, j)
    return per


def _rr_cases(device):
    for dt, st in RR_SUM_PAIRS[device]:
        yield SUMT, dt, st
    for st in RR_MAXMIN[device]:
        yield MAXT, st, st
        yield MINT, st, st


@pytest.mark.parametrize("device", ALL)
def test_reduce_repeat(device):
    orders = RR_ORDERS[device]
    for c, (op, dt, st) in enumerate(_rr_cases(device)):
        L, sz = 256 // SZ[st], SZ[st]
        rng = np.random.default_rng(c)
        w = [int(rng.integers(1, 2**63)), int(rng.integers(1, 2**63)) if L == 128 else 0]
        cfgs = [(L, 3, 1, 1, 8, False), (L // 2 + 13, 2, 2, 1, 8, False), (w, 4, 1, 2, 16, False),
                (L, 2, 0, 1, 8, False), (L, 3, 1, 1, 0, False), (L, 0, 1, 1, 8, False), (0, 2, 1, 1, 8, False),
                (L, 3, 1, 1, 8, True), (w, 2, 3, 1, 4, False)]
        for k, (mask, R, dst_rep, blk, rep, inplace) in enumerate(cfgs):
            order = orders[(k + c) % len(orders)]
            sats = SAT_MODES[device] if is_float(st) else SAT_MODES[device][:1]
            sat = sats[k % len(sats)]
            b = Bench(device, sat, seed=500 + 10 * c + k)
            kind = ["mixed", "small", "normal", "bits"][k % 4] if is_float(st) else ("small" if k % 2 else "full")
            span = (max(R, 1) - 1) * rep * 32 + 7 * blk * 32 + 32
            src = b.put(st, 0, gen(b.rng, st, span // sz, kind))
            dst_addr = 0 if inplace else roundup(span, 32) + 64
            dst = b.tensor(dt, dst_addr, max(R, 1) * max(dst_rep, 1) * 8 // SZ[dt] + 8)
            exp = b.snapshot()
            call = lambda: aj.ReduceRepeat(dst, src, mask, R, dst_rep, blk, rep, order, reduce_type=op)  # noqa: E731
            zero_mask = mask == 0
            if zero_mask and device in (D950, B310):
                refused(b, call, E.ParameterError)         # D30
                continue
            if dst_rep == 0 and device == T910:
                refused(b, call, E.ParameterError)         # 8.1: 910 does not support 0
                continue
            per = []
            if not zero_mask:
                per = rr_model(exp, device, op, dt, st, order, dst_addr, 0, mask, R, dst_rep, blk, rep, sat)
            call()
            b.check(f"ReduceRepeat {op.name} {st}->{dt} order {order.name} cfg {k} sat={sat}")
            # D55: the register after a contiguous MAX/MIN call (A2/A3: value and index; 310P: value)
            if op != SUMT and device in (A2, A3, P310) and per and blk == 1 and rep == 8:
                best, at = None, None
                for i, (v, j) in enumerate(per):
                    if best is None or better(v, best, op, st):
                        best, at = v, i * L + j
                b.core.PipeBarrier(aj.PIPE_ALL)
                got = aj.GetReduceRepeatMaxMinSpr(st, core=b.core)
                want_v = as_bits(sat_map(best, st, sat), st).view(UINT[sz])[0]
                if device == P310:
                    assert as_bits(got, st).view(UINT[sz])[0] == want_v
                else:
                    assert as_bits(got[0], st).view(UINT[sz])[0] == want_v
                    assert np.asarray(got[1]).view(UINT[sz]) == at


@pytest.mark.parametrize("device", ALL)
def test_reduce_repeat_counter_mode(device):
    """SPEC-2 1.4: in counter mode the mask argument is the element count, repeat_time is ignored."""
    for op, dt, st in _rr_cases(device):
        if op == MINT:
            continue
        L = 256 // SZ[st]
        N = 2 * L + 37
        b = Bench(device, seed=77)
        src = b.put(st, 0, gen(b.rng, st, 3 * L, "mixed" if is_float(st) else "full"))
        dst = b.tensor(dt, 4096, 64)
        exp = b.snapshot()
        rr_model(exp, device, op, dt, st, VI, 4096, 0, None, 0, 1, 1, 8, b.sat, counter=N)
        b.core.SetMaskCount()
        aj.ReduceRepeat(dst, src, N, 1, 1, 1, 8, VI, reduce_type=op)
        b.core.SetMaskNorm()
        b.check(f"counter {op.name} {st}")


R1_WANT = {VI: [0x4980, 52, 0x4A00, 100, 0x4880, 7, 0x4A80, 19], IV: [52, 0x4980, 100, 0x4A00, 7, 0x4880, 19, 0x4A80],
           OV: [0x4980, 0x4A00, 0x4880, 0x4A80], OI: [52, 0, 100, 0, 7, 0, 19, 0]}


def _r1(base, peaks, at):
    x = np.repeat(np.asarray(base, np.float16), 128)
    for r in range(4):
        x[r * 128 + at[r]] = peaks[r]
    return x


@pytest.mark.parametrize("device", ALL)
def test_reduce_repeat_goldens(device):
    """SPEC-2 12.4 R-1 (every order; unsupported orders refused), R-2, R-4 (MemBV-T36/T37/T38 per mode)."""
    x = _r1((1, 2, 5, 3), (11, 12, 9, 13), (52, 100, 7, 19))
    for mask in (128, [FULL, FULL]):
        for order, words in R1_WANT.items():
            b = Bench(device, seed=1)
            src = b.put("half", 0, x)
            dst = b.put("half", 1024, np.full(16, 0x5555, np.uint16).view(np.float16))
            call = lambda: aj.ReduceRepeat(dst, src, mask, 4, 1, 1, 8, order, reduce_type=MAXT)  # noqa: E731
            if order not in RR_ORDERS[device]:
                refused(b, call, E.ParameterError)
                continue
            call()
            got = b.core.ub[1024:1056].view(np.uint16)
            assert got[:len(words)].tolist() == words and (got[len(words):] == 0x5555).all()
    b = Bench(device, seed=2)
    src = b.put("half", 0, _r1((10, 20, 25, 30), (1, 2, 4, 3), (52, 100, 0, 19)))
    dst = b.tensor("half", 1024, 16)
    aj.WholeReduceMin(dst, src, 128, 4, 1, 1, 8)
    assert b.core.ub[1024:1040].view(np.uint16).tolist() == [0x3C00, 52, 0x4000, 100, 0x4400, 0, 0x4200, 19]
    ones = np.ones(128, np.float16)
    minv = np.full(128, -65504, np.float16)
    alt = np.tile(np.array([np.inf, -np.inf], np.float16), 64)
    rows = [(SUMT, -np.inf, 0xFC00, 0xFBFB), (SUMT, np.nan, 0x7E00, 0x57E0), (SUMT, np.inf, 0x7C00, 0x7BFF),
            (MAXT, -np.inf, 0x3C00, 0x3C00), (MAXT, np.nan, 0x7E00, 0x0000), (MINT, np.inf, 0x3C00, 0x3C00)]
    for sat in SAT_MODES[device]:
        for op, special, inf_w, sat_w in rows:
            for lane in (0, 77):
                v = ones.copy()
                v[lane] = special
                b = Bench(device, sat, seed=3)
                src = b.put("half", 0, v)
                dst = b.tensor("half", 1024, 16)
                aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, VI, reduce_type=op)
                assert b.core.ub[1024:1026].view(np.uint16)[0] == (sat_w if sat else inf_w), (op, special, sat)
        for op, v, inf_w, sat_w in [(SUMT, minv, 0xFC00, 0xFBFF), (SUMT, alt, 0x7E00, 0x0000),
                                    (MAXT, alt, 0x7C00, 0x7BFF), (MAXT, np.full(128, -0.0, np.float16), 0x8000, 0x8000),
                                    (MINT, alt, 0xFC00, 0xFBFF)]:
            b = Bench(device, sat, seed=4)
            src = b.put("half", 0, v)
            dst = b.tensor("half", 1024, 16)
            aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, VI, reduce_type=op)
            assert b.core.ub[1024:1026].view(np.uint16)[0] == (sat_w if sat else inf_w), (op, v[:2], sat)
        if "float" in RR_MAXMIN[device]:
            b = Bench(device, sat, seed=5)
            src = b.put("float", 0, np.full(64, np.finfo(np.float32).max, np.float32))
            dst = b.tensor("float", 1024, 8)
            aj.ReduceRepeat(dst, src, 64, 1, 1, 1, 8, reduce_type=SUMT)
            assert b.core.ub[1024:1028].view(np.uint32)[0] == 0x7F800000


@pytest.mark.parametrize("device", ALL)
def test_reduce_repeat_old_names_and_refusals(device):
    """The old names are thin aliases with their own argument order (8.1); refusals of 8.1 / D30 / D34."""
    b = Bench(device, seed=6)
    x = gen(b.rng, "half", 4 * 128, "mixed")
    src = b.put("half", 0, x)
    dst = b.tensor("half", 2048, 64)
    for new, old in ((lambda: aj.ReduceRepeat(dst, src, 100, 3, 2, 1, 8, reduce_type=SUMT),
                      lambda: aj.WholeReduceSum(dst, src, 100, 3, 2, 1, 8)),
                     (lambda: aj.ReduceRepeat(dst, src, [5, 7], 3, 1, 1, 8, reduce_type=MAXT),
                      lambda: aj.WholeReduceMax(dst, src, [5, 7], 3, 1, 1, 8)),
                     (lambda: aj.ReduceRepeat(dst, src, 128, 4, 1, 1, 8, VI, reduce_type=MINT),
                      lambda: aj.WholeReduceMin(dst, src, 128, 4, 1, 1, 8, VI)),
                     (lambda: aj.ReduceRepeat(dst, src, 99, 2, 3, 1, 8, reduce_type=SUMT),
                      lambda: aj.RepeatReduceSum(dst, src, 2, 99, 65535, 1, 3, 8))):
        b.core.ub[2048:2176] = 0x33
        new()
        want = b.core.ub.copy()
        b.core.ub[2048:2176] = 0x33
        if device == B310 and "RepeatReduceSum" in str(old.__code__.co_names):
            refused(b, old, E.UnsupportedDeviceError)    # SPEC-2 1.9
            continue
        old()
        assert np.array_equal(want, b.core.ub)
    refused(b, lambda: aj.ReduceRepeat(dst, src, 128, 256, 1, 1, 0, reduce_type=SUMT), E.ParameterError)
    refused(b, lambda: aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8), E.ParameterError)   # reduce_type required
    refused(b, lambda: aj.ReduceRepeat(dst, src, 128, 1, 65536, 1, 8, reduce_type=SUMT), E.ParameterError)
    refused(b, lambda: aj.ReduceRepeat(src[2:], src, 128, 2, 1, 1, 8, reduce_type=SUMT), E.OverlapError)
    refused(b, lambda: aj.ReduceRepeat(src, src, 128, 2, 1, 1, 0, reduce_type=MAXT), E.OverlapError)
    refused(b, lambda: aj.ReduceRepeat(b.core.local_tensor("half", 8, addr=2050), src, 128, 1, 1, 1, 8, VI,
                                       reduce_type=MAXT), E.AlignmentError)       # VALUE_INDEX: 4-byte dst
    if device == T910:
        fs, fd = b.tensor("float", 0, 64), b.tensor("float", 2048, 8)
        refused(b, lambda: aj.ReduceRepeat(fd, fs, 64, 1, 1, 1, 8, reduce_type=SUMT), E.UnsupportedDTypeError)
    if device != D950:
        i16 = b.tensor("int16", 0, 128)
        refused(b, lambda: aj.ReduceRepeat(b.tensor("int16", 2048, 8), i16, 128, 1, 1, 1, 8, reduce_type=MAXT),
                E.UnsupportedDTypeError)


# ----------------------------------------------------------------------------------------------------------------
# ReduceDataBlock (SPEC-2 8.2, SPEC 2.4, SPEC-2 D51)
# ----------------------------------------------------------------------------------------------------------------
def rdb_model(exp, device, op, dt, dst, src, mask, R, dst_rep, blk, rep, sat, counter=None):
    L, sz = 256 // SZ[dt], SZ[dt]
    epb = 32 // sz
    nrep = ceil_div(counter, L) if counter is not None else R
    fam = FAM[device]
    for i in range(nrep):
        act = np.arange(L) < counter - i * L if counter is not None else mask_lanes(mask, L)
        v = lanes(exp, dt, src, i, rep, blk, L)
        for k in range(8):
            a, x = act[k * epb:(k + 1) * epb], v[k * epb:(k + 1) * epb]
            addr = dst + i * dst_rep * 8 * sz + k * sz
            if not a.any():                              # a fully masked DataBlock (8.2 table)
                if fam in ("a2", "310p", "910"):
                    continue
                if op == SUMT:
                    val = zeros(dt, 1)[0]
                elif fam == "310b" and dt == "half":
                    val = NP[dt](-65504 if op == MAXT else 65504)
                else:
                    val = NP[dt](-np.inf if op == MAXT else np.inf)
            elif op == SUMT:
                val = masked_tree(x, a, dt, sat)
            else:
                val = extreme(x, a, op, dt)[0]
            store(exp, dt, addr, sat_map(val, dt, sat))


@pytest.mark.parametrize("device", ALL)
def test_reduce_data_block(device):
    for c, dt in enumerate(_pair_dtypes(device)):          # 8.2: half, float (910: half)
        L, sz = 256 // SZ[dt], SZ[dt]
        epb = 32 // sz
        rng = np.random.default_rng(c)
        blocky = 0                                        # lanes of blocks 0, 2, 5 only, partially
        for k in (0, 2, 5):
            blocky |= int(rng.integers(1, 2 ** epb)) << (k * epb)
        bm = [blocky & (2**64 - 1), blocky >> 64]
        w = [int(rng.integers(1, 2**63)), int(rng.integers(1, 2**63)) if L == 128 else 0]
        cfgs = [(L, 3, 1, 1, 8, False), (L // 2 + 3, 2, 2, 1, 8, False), (bm, 3, 1, 2, 16, False),
                (w, 2, 0, 1, 8, False), (L, 3, 1, 1, 0, False), (L, 0, 1, 1, 8, False), (0, 2, 1, 1, 8, False),
                (L, 4, 1, 1, 8, True), (epb + 1, 2, 1, 1, 8, False), (bm, 2, 3, 1, 4, False)]
        for op in (SUMT, MAXT, MINT):
            for k, (mask, R, dst_rep, blk, rep, inplace) in enumerate(cfgs):
                sats = SAT_MODES[device]
                sat = sats[(k + int(op)) % len(sats)]
                b = Bench(device, sat, seed=600 + 10 * c + k + 100 * int(op))
                span = (max(R, 1) - 1) * rep * 32 + 7 * blk * 32 + 32
                src = b.put(dt, 0, gen(b.rng, dt, span // sz, ["mixed", "small", "normal", "bits"][k % 4]))
                dst_addr = 0 if inplace else roundup(span, 32) + 64
                dst = b.tensor(dt, dst_addr, max(R, 1) * max(dst_rep, 1) * 8 + 8)
                exp = b.snapshot()
                call = lambda: aj.ReduceDataBlock(dst, src, mask, R, dst_rep, blk, rep, reduce_type=op)  # noqa
                if mask == 0 and device in (D950, B310):
                    refused(b, call, E.ParameterError)   # D30
                    continue
                if dst_rep == 0 and device == T910:
                    refused(b, call, E.ParameterError)   # 8.2
                    continue
                if mask != 0:
                    rdb_model(exp, device, op, dt, dst_addr, 0, mask, R, dst_rep, blk, rep, sat)
                call()
                b.check(f"ReduceDataBlock {op.name} {dt} cfg {k} sat={sat}")
        # counter mode: blocks past the count in the last repeat are fully masked
        for op in (SUMT, MAXT):
            b = Bench(device, seed=99)
            src = b.put(dt, 0, gen(b.rng, dt, 3 * L, "mixed"))
            dst = b.tensor(dt, 4096, 64)
            exp = b.snapshot()
            rdb_model(exp, device, op, dt, 4096, 0, None, 0, 1, 1, 8, b.sat, counter=2 * L + 3 * epb + 1)
            b.core.SetMaskCount()
            aj.ReduceDataBlock(dst, src, 2 * L + 3 * epb + 1, 1, 1, 1, 8, reduce_type=op)
            b.core.SetMaskNorm()
            b.check(f"ReduceDataBlock counter {op.name} {dt}")


@pytest.mark.parametrize("device", ALL)
def test_reduce_data_block_goldens_and_refusals(device):
    """SPEC-2 12.4 R-3 and R-4 (MemBV-T33/T34/T35, D5: 15 ones + inf saturates to 65504), H-9 / D51."""
    x = np.ones(128, np.float16)
    x[10], x[29], x[115] = 2, 3, 4
    b = Bench(device, seed=1)
    aj.ReduceDataBlock(b.tensor("half", 1024, 16), b.put("half", 0, x), 128, 1, 1, 1, 8, reduce_type=MAXT)
    assert load(b.core.ub, "half", 1024, 8).tolist() == [2, 3, 1, 1, 1, 1, 1, 4]
    x = np.full(128, 10, np.float16)
    x[11], x[29], x[121] = 2, -3, 4
    aj.BlockReduceMin(b.tensor("half", 1024, 16), b.put("half", 0, x), 1, [FULL, FULL], 1, 1, 8)
    assert load(b.core.ub, "half", 1024, 8).tolist() == [2, -3, 10, 10, 10, 10, 10, 4]
    x = np.repeat(np.array([1, 2, 5, 6, 7, 8, 9, 3], np.float16), 16)
    aj.BlockReduceSum(b.tensor("half", 1024, 16), b.put("half", 0, x), 1, 128, 1, 1, 8)
    assert load(b.core.ub, "half", 1024, 8).tolist() == [16, 32, 80, 96, 112, 128, 144, 48]
    ones = np.ones(16, np.float16)
    alt = np.tile(np.array([np.inf, -np.inf], np.float16), 8)
    rows = [(SUMT, np.r_[ones[:15], np.nan], 0x7E00, 0x4B00), (SUMT, np.r_[ones[:15], np.inf], 0x7C00, 0x7BFF),
            (SUMT, np.full(16, -65504, np.float16), 0xFC00, 0xFBFF), (MAXT, np.r_[ones[:15], -np.inf], 0x3C00, 0x3C00),
            (MAXT, np.full(16, np.nan, np.float16), 0x7E00, 0x0000), (MAXT, alt, 0x7C00, 0x7BFF),
            (MINT, alt, 0xFC00, 0xFBFF), (MINT, np.full(16, np.nan, np.float16), 0x7E00, 0x0000)]
    for sat in SAT_MODES[device]:
        for op, v, inf_w, sat_w in rows:
            b = Bench(device, sat, seed=2)
            src = b.put("half", 0, np.tile(v, 8))
            aj.ReduceDataBlock(b.tensor("half", 1024, 16), src, 128, 1, 1, 1, 8, reduce_type=op)
            assert (b.core.ub[1024:1040].view(np.uint16) == (sat_w if sat else inf_w)).all(), (op, v[:2], sat)
    if device != T910:                                   # float rows: never saturated
        for sat in SAT_MODES[device]:
            b = Bench(device, sat, seed=2)
            src = b.put("float", 0, np.full(64, np.finfo(np.float32).max, np.float32))
            aj.ReduceDataBlock(b.tensor("float", 1024, 8), src, 64, 1, 1, 1, 8, reduce_type=SUMT)
            assert (b.core.ub[1024:1056].view(np.uint32) == 0x7F800000).all()
    # H-9: SUM, mask 16 (block 0 only), dst pre-filled 0x5555
    b = Bench(device, seed=3)
    src = b.put("half", 0, np.ones(128, np.float16))
    dst = b.put("half", 1024, np.full(16, 0x5555, np.uint16).view(np.float16))
    aj.ReduceDataBlock(dst, src, 16, 1, 1, 1, 8, reduce_type=SUMT)
    got = b.core.ub[1024:1040].view(np.uint16)
    assert got[0] == 0x4C00
    assert (got[1:8] == (0x5555 if FAM[device] in ("a2", "310p", "910") else 0)).all()
    # refusals
    b = Bench(device, seed=4)
    src = b.put("half", 0, np.ones(512, np.float16))
    dst = b.tensor("half", 2048, 64)
    refused(b, lambda: aj.ReduceDataBlock(dst, src, 128, 256, 1, 1, 0, reduce_type=SUMT), E.ParameterError)
    refused(b, lambda: aj.ReduceDataBlock(dst, src, 128, 1, 1, 1, 8), E.ParameterError)   # reduce_type required
    refused(b, lambda: aj.ReduceDataBlock(b.core.local_tensor("half", 8, addr=2056), src, 128, 1, 1, 1, 8,
                                          reduce_type=SUMT), E.AlignmentError)          # dst 16-B aligned
    refused(b, lambda: aj.ReduceDataBlock(src[8:], src, 128, 2, 1, 1, 8, reduce_type=MAXT), E.OverlapError)
    refused(b, lambda: aj.BlockReduceMax(src, src, 2, 128, 1, 1, 0), E.OverlapError)   # a later repeat reads it
    if device == T910:
        refused(b, lambda: aj.ReduceDataBlock(b.tensor("float", 2048, 8), b.tensor("float", 0, 64), 64, 1, 1, 1,
                                              8, reduce_type=SUMT), E.UnsupportedDTypeError)


# ----------------------------------------------------------------------------------------------------------------
# ReduceMax / ReduceMin (SPEC-2 8.3, D52-D54)
# ----------------------------------------------------------------------------------------------------------------
def rm_tmp_min(device, dt, cal_index, count=None, repeat=None):
    """8.3.1 / D54 (non-950); the 950 has no minimum."""
    if device == D950:
        return 0
    L, epb = 256 // SZ[dt], 32 // SZ[dt]
    R1 = repeat if repeat is not None else max(1, count // L)
    if not cal_index:
        return roundup(2 * R1, epb)
    levels = [2 * R1]
    while True:
        levels.append(2 * ceil_div(levels[-1], L))
        if levels[-1] <= 2:
            break
    return sum(roundup(i, epb) for i in levels)


def rm_non950(exp, op, dt, src, sat, count=None, mask=None, R=None, rep=None):
    """8.3.2: per-repeat (value, lane), saturated per repeat, extreme over repeats (ties -> earliest), then the
    count form's tail compared last (ties keep the body)."""
    L = 256 // SZ[dt]
    if count is not None:
        R, rep, act = max(1, count // L), 8, mask_lanes(min(count, L), L)
    else:
        act = mask_lanes(mask, L)
    s = rep * 32 // SZ[dt]
    value, index = None, None
    for r in range(R):
        v, j = extreme(lanes(exp, dt, src, r, rep, 1, L), act, op, dt)
        v = sat_map(v, dt, sat)
        if value is None or better(v, value, op, dt):
            value, index = v, r * s + j
    if count is not None and count % L and count >= L:
        t = count % L
        tail = load(exp, dt, src + R * L * SZ[dt], t)
        v, j = extreme(tail, np.ones(t, bool), op, dt)
        v = sat_map(v, dt, sat)
        if better(v, value, op, dt):
            value, index = v, R * L + j
    return NP[dt](value), index


SEED_950 = {("half", MAXT): np.uint16(0xFBFF).view(np.float16), ("half", MINT): np.uint16(0x7BFF).view(np.float16),
            ("float", MAXT): np.uint32(0xFF7FFFFF).view(np.float32),
            ("float", MINT): np.uint32(0x7F7FFFFF).view(np.float32)}


def rm_950(exp, op, dt, src, sat, count=None, mask=None, R=None, rep=None, counter=None):
    """8.3.3: per-lane accumulators seeded with the finite extreme, idx updated when the value changes (IEEE !=)."""
    V = 64 if SZ[dt] == 8 else 256 // SZ[dt]
    if is_float(dt):
        seed = SEED_950[(dt, op)]
    else:
        info = np.iinfo(NP[dt])
        seed = NP[dt](info.min if op == MAXT else info.max)
    acc, idx = [seed] * V, list(range(V))
    if counter is not None or count is not None:
        n = counter if counter is not None else count
        nrep, step = ceil_div(n, V), V

        def active(r):
            return np.arange(V) < n - r * V

        def row(r):
            base = src + (r * rep * 32 if counter is not None else r * V * SZ[dt])
            m = min(V, n - r * V)
            return np.concatenate([load(exp, dt, base, m), zeros(dt, V - m)])
        P = np.ones(V, bool)
    else:
        nrep, step, P = R, rep * 32 // SZ[dt], mask_lanes(mask, V)

        def active(r):
            return P

        def row(r):
            return lanes(exp, dt, src, r, rep, 1, V)
    for r in range(nrep):
        x, a = row(r), active(r)
        for j in np.nonzero(a)[0]:
            new = sat_map(ext2(acc[j], x[j], op, dt), dt, sat)
            if is_float(dt):
                changed = bool(np.isnan(new) or np.isnan(acc[j]) or new != acc[j])
            else:
                changed = int(new) != int(acc[j])
            if changed:
                idx[j] = r * step + j
            acc[j] = NP[dt](new)
    value = None
    for j in np.nonzero(P)[0]:
        value = acc[j] if value is None else ext2(value, acc[j], op, dt)
    value = NP[dt](sat_map(value, dt, sat))
    hits = [idx[j] for j in np.nonzero(P)[0] if (acc[j] == value if is_float(dt) else int(acc[j]) == int(value))]
    if hits:
        return value, min(hits)
    return value, 0xFFFE if SZ[dt] == 2 else 0xFFFFFFFE


def rm_store(exp, dt, dst, value, index, cal_index, device):
    sz = SZ[dt]
    store(exp, dt, dst, value)
    if cal_index:
        if sz == 8:
            store_uint(exp, 8, dst + 8, index)           # a uint32 followed by 4 zero bytes
        else:
            store_uint(exp, sz, dst + sz, index)


def _rm_combos():
    for d in ALL:
        for dt in RM_DTYPES[d]:
            for sat in (SAT_MODES[d] if is_float(dt) else SAT_MODES[d][:1]):
                yield d, dt, sat


@pytest.mark.parametrize("device,dt,sat", list(_rm_combos()))
def test_reduce_max_min(device, dt, sat):
    sz = SZ[dt]
    L = 64 if sz == 8 else 256 // sz
    rng = np.random.default_rng(5)
    w = [int(rng.integers(1, 2**63)), int(rng.integers(1, 2**63)) if L == 128 else 0]
    counts = [1, 50, L, L + 1, 2 * L, 3 * L + 17, 5 * L, 600]
    highs = [] if sz == 8 else [(L, 1, 8), (77, 3, 8), (w, 4, 16), (L, 5, 0), (L, 3, 2), (L, 0, 8), (0, 2, 8)]
    cases = [("count", n) for n in counts] + [("high", h) for h in highs]
    for k, (form, arg) in enumerate(cases):
        op = (MAXT, MINT)[k % 2]
        cal = bool((k // 2) % 2) or form == "high" and k % 3 == 0
        b = Bench(device, sat, seed=800 + k)
        kind = ["small", "mixed", "small", "normal", "bits"][k % 5] if is_float(dt) else ("small" if k % 2 else "full")
        if form == "count":
            n = arg
            span = n * sz
        else:
            mask, R, rep = arg
            span = (max(R, 1) - 1) * rep * 32 + 256
        x = gen(b.rng, dt, span // sz, kind)
        src = b.put(dt, 0, x)
        dst_addr = roundup(span, 32) + 32
        dst = b.tensor(dt, dst_addr, 8)
        tmin = (rm_tmp_min(device, dt, cal, count=arg) if form == "count" else
                rm_tmp_min(device, dt, cal, repeat=arg[1]))
        tmp_addr = dst_addr + 64
        tmp = b.tensor(dt, tmp_addr, tmin + 32 // sz)
        exp = b.snapshot()
        fn = aj.ReduceMax if op == MAXT else aj.ReduceMin
        if form == "count":
            call = lambda: fn(dst, src, tmp, n, cal)     # noqa: E731
            if device == D950:
                value, index = rm_950(exp, op, dt, 0, sat, count=n)
            else:
                value, index = rm_non950(exp, op, dt, 0, sat, count=n)
        else:
            call = lambda: fn(dst, src, tmp, mask, R, rep, cal)  # noqa: E731
            if mask == 0 and device in (D950, B310):
                refused(b, call, E.ParameterError)       # D30
                continue
            if mask == 0 or R == 0:
                value = None                             # D30: NOP
            elif device == D950:
                value, index = rm_950(exp, op, dt, 0, sat, mask=mask, R=R, rep=rep)
            else:
                value, index = rm_non950(exp, op, dt, 0, sat, mask=mask, R=R, rep=rep)
        if value is not None:
            rm_store(exp, dt, dst_addr, value, index, cal, device)
        b.skip = [(tmp_addr, tmp_addr + tmin * sz)]
        call()
        b.check(f"{op.name} {dt} {form} {arg} cal_index={cal} sat={sat}")
        # D55 after a contiguous ReduceMax: the written value, index all ones
        if device in (A2, A3, P310) and value is not None and (form == "count" or arg[2] == 8):
            b.core.PipeBarrier(aj.PIPE_ALL)
            got = aj.GetReduceRepeatMaxMinSpr(dt, core=b.core)
            v = got if device == P310 else got[0]
            assert as_bits(v, dt).tolist() == as_bits(value, dt).tolist()
            if device != P310:
                assert int(np.asarray(got[1]).view(UINT[sz])) == (1 << 8 * sz) - 1


@pytest.mark.parametrize("dt", ["half", "float", "int16", "uint32"])
def test_reduce_max_950_counter_mode_high_dim(dt):
    """D53: the count is the low 32 bits of the mask argument; repeat r is read at r*srcRepStride blocks while idx
    advances by V per repeat; tmp is never touched (it may be src itself)."""
    V, sz = 256 // SZ[dt], SZ[dt]
    for k, (N, rep) in enumerate([(V + 40, 16), (3 * V + 5, 9), ([2 * V + 1, 5], 8), (2**32 + 130, 12)]):
        for sat in (SAT_MODES[D950] if dt == "half" else (False,)):
            b = Bench(D950, sat, seed=900 + k)
            n = N[0] if isinstance(N, list) else N % 2**32
            span = (ceil_div(n, V) - 1) * rep * 32 + 256
            src = b.put(dt, 0, gen(b.rng, dt, span // sz, "small" if k % 2 else "mixed" if is_float(dt) else "full"))
            dst = b.tensor(dt, roundup(span, 32), 4)
            for op, fn in ((MAXT, aj.ReduceMax), (MINT, aj.ReduceMin)):
                exp = b.snapshot()
                value, index = rm_950(exp, op, dt, 0, sat, rep=rep, counter=n)
                rm_store(exp, dt, roundup(span, 32), value, index, True, D950)
                b.core.SetMaskCount()
                fn(dst, src, src, N, 7, rep, True)
                b.core.SetMaskNorm()
                b.check(f"950 counter {op.name} {dt} N={N}")


def test_reduce_max_min_goldens():
    """SPEC-2 12.4 R-5 (MemBV-T39/T40 on the A2 family, both modes; the 950's D53 values), H-5, R-7."""
    rows = [([np.inf, -np.inf, np.nan] + [1] * 253, (0x7E00, 0x3C00), (0x7E00, 0x0000)),
            ([np.inf, np.nan] + [1] * 254, (0x7E00, 0x3C00), (0x7E00, 0x0000)),
            ([np.inf, -np.inf] + [1] * 254, (0x7C00, 0x7BFF), (0xFC00, 0xFBFF)),
            ([1] * 255 + [np.nan], (0x7E00, 0x3C00), (0x7E00, 0x0000)),
            ([-np.inf] * 256, (0xFC00, 0xFBFF), (0xFC00, 0xFBFF))]
    for device in NON950:
        for sat in SAT_MODES[device]:
            for values, want_max, want_min in rows:
                for fn, want in ((aj.ReduceMax, want_max), (aj.ReduceMin, want_min)):
                    b = Bench(device, sat, seed=1)
                    src = b.put("half", 0, np.array(values, np.float16))
                    fn(b.tensor("half", 1024, 16), src, b.tensor("half", 2048, 64), 256)
                    assert b.core.ub[1024:1026].view(np.uint16)[0] == want[1 if sat else 0], (device, values[:3])
    b = Bench(D950, False, seed=2)
    src = b.put("half", 0, np.full(256, -np.inf, np.float16))
    dst = b.tensor("half", 1024, 16)
    aj.ReduceMax(dst, src, src, 128, True)                               # H-5
    assert b.core.ub[1024:1028].view(np.uint16).tolist() == [0xFBFF, 0]
    b.core.ub[14:16] = np.array([0x7E00], np.uint16).view(np.uint8)      # lane 7 = NaN
    aj.ReduceMax(dst, src, src, 128, True)
    assert b.core.ub[1024:1028].view(np.uint16).tolist() == [0x7E00, 0xFFFE]
    x = np.array([np.inf, -np.inf, np.nan] + [1] * 253, np.float16)
    for sat, want in ((True, [0x7BFF, 0]), (False, [0x7E00, 0xFFFE])):
        b = Bench(D950, sat, seed=3)
        src = b.put("half", 0, x)
        aj.ReduceMax(b.tensor("half", 1024, 4), src, src, 256, True)
        assert b.core.ub[1024:1028].view(np.uint16).tolist() == want
    # R-7
    for kw, want in ((dict(repeat_time=65, cal_index=True), 176), (dict(repeat_time=255, cal_index=True), 544),
                     (dict(count=65408, cal_index=True), 1056), (dict(count=65408), 1024),
                     (dict(repeat_time=4, cal_index=True), 32)):
        assert aj.GetReduceMaxMinTmpSize(A2, "half", **kw) == want
        assert rm_tmp_min(A2, "half", kw.get("cal_index", False), count=kw.get("count"),
                          repeat=kw.get("repeat_time")) == want
    assert aj.GetReduceMaxMinTmpSize(A2, "float", repeat_time=130, cal_index=True) == 288


@pytest.mark.parametrize("device", ALL)
def test_reduce_max_min_refusals(device):
    b = Bench(device, seed=4)
    src = b.put("half", 0, gen(b.rng, "half", 1024))
    dst = b.tensor("half", 4096, 16)
    tmp = b.tensor("half", 8192, 128)
    refused(b, lambda: aj.ReduceMax(dst, src, tmp, 0), E.ParameterError)              # D30
    refused(b, lambda: aj.ReduceMin(dst, src, tmp, 1025), E.OutOfBoundsError)
    refused(b, lambda: aj.ReduceMax(dst, src, tmp, 128, 2, 8, 5), E.ParameterError)   # 7th positional not a bool
    refused(b, lambda: aj.ReduceMax(src[16:], src, tmp, 512, True), E.OverlapError)   # D34: src over dst
    # D34: dst may overlap tmp (tmp still holds the minimum)
    exp = b.snapshot()
    tmin = rm_tmp_min(device, "half", True, count=300)
    value, index = (rm_950 if device == D950 else rm_non950)(exp, MAXT, "half", 0, b.sat, count=300)
    rm_store(exp, "half", 8192, value, index, True, device)
    b.skip = [(8192 + 4, 8192 + tmin * 2)] if tmin else []
    aj.ReduceMax(b.tensor("half", 8192, 2), src, tmp, 300, True)
    b.check("dst over tmp")
    b.skip = []
    if device != D950:
        refused(b, lambda: aj.ReduceMax(dst, src, src[256:], 512, True), E.OverlapError)   # src over tmp
        refused(b, lambda: aj.ReduceMax(dst, src, b.tensor("half", 8192, 16), 1024, True), E.ParameterError)  # D54
        b.core.SetMaskCount()
        refused(b, lambda: aj.ReduceMax(dst, src, tmp, 128, 1, 8), E.StateError)          # D52
        b.core.SetMaskNorm()
        refused(b, lambda: aj.GetReduceRepeatMaxMinSpr("half", core=aj.Core(device)),
                E.StateError if device in (A2, A3, P310) else E.UnsupportedDeviceError)  # D55
    else:
        i64 = b.tensor("int64", 0, 64)
        refused(b, lambda: aj.ReduceMax(b.tensor("int64", 4096, 2), i64, i64, 32, 1, 8), E.AscendJitError)
        refused(b, lambda: aj.GetReduceRepeatMaxMinSpr("half", core=b.core), E.UnsupportedDeviceError)
    # index limits (D52: half index > 65535 off the 950; D53: 16-bit index > 65534 on the 950)
    big = b.put("half", 0, np.zeros(66000, np.float16))
    t2 = b.tensor("half", 132096, max(rm_tmp_min(device, "half", True, count=66000), 16))
    refused(b, lambda: aj.ReduceMax(b.tensor("half", 132032, 4), big, t2, 66000, True), E.ParameterError)
    if device == D950:
        refused(b, lambda: aj.ReduceMax(b.tensor("half", 132032, 4), big, t2, 65536, True), E.ParameterError)
        aj.ReduceMax(b.tensor("half", 132032, 4), big, t2, 65535, True)
    else:
        aj.ReduceMax(b.tensor("half", 132032, 4), big, t2, 65536, True)


# ----------------------------------------------------------------------------------------------------------------
# targeted corners
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", ALL)
def test_pair_one_lane_masked_is_a_rounded_add_of_zero(device):
    """D19: one lane of a pair masked -> x + (+0): -0 becomes +0, and saturation applies (inf -> 65504, NaN -> 0)."""
    for sat in SAT_MODES[device]:
        b = Bench(device, sat, seed=1)
        x = np.tile(np.array([-0.0, 5.0, np.inf, 7.0, np.nan, 1.0, -np.inf, 2.0], np.float16), 16)
        src = b.put("half", 0, x)
        dst = b.tensor("half", 1024, 64)
        aj.ReducePairElem(dst, src, [0x5555555555555555] * 2, 1, 1, 1, 8)   # even lanes only
        got = b.core.ub[1024:1032].view(np.uint16).tolist()
        assert got == ([0x0000, 0x7BFF, 0x0000, 0xFBFF] if sat else [0x0000, 0x7C00, 0x7E00, 0xFC00])


@pytest.mark.parametrize("device", ALL)
def test_max_min_signed_zero_nan_index_and_masked_lanes(device):
    """D41 (max(-0,+0) = +0, min = -0), H-4 (NaN -> the first NaN lane), H-21 (masked lanes never win, the index is
    the lane number whatever the block stride)."""
    b = Bench(device, seed=2)
    x = np.full(128, -1.0, np.float16)
    x[3], x[9] = 0.0, -0.0
    src = b.put("half", 0, x)
    dst = b.tensor("half", 1024, 16)
    aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, VI, reduce_type=MAXT)
    assert b.core.ub[1024:1028].view(np.uint16).tolist() == [0x0000, 3]
    x[:] = 1.0
    x[3], x[9] = -0.0, 0.0
    src = b.put("half", 0, x)
    aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, VI, reduce_type=MINT)
    assert b.core.ub[1024:1028].view(np.uint16).tolist() == [0x8000, 3]
    x[:] = 1.0
    x[5], x[9] = np.nan, np.nan
    src = b.put("half", 0, x)
    aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, VI, reduce_type=MAXT)
    want_v = 0x0000 if SAT_MODES[device][0] else 0x7E00
    assert b.core.ub[1024:1028].view(np.uint16).tolist() == [want_v, 5]
    x = np.r_[np.ones(64), np.full(192, 100.0)].astype(np.float16)
    src = b.put("half", 0, x)
    aj.ReduceRepeat(dst, src, 64, 1, 1, 1, 8, VI, reduce_type=MAXT)
    assert b.core.ub[1024:1028].view(np.uint16).tolist() == [0x3C00, 0]
    aj.ReduceRepeat(dst, src, [1 << 40, 0], 1, 1, 2, 8, VI, reduce_type=MAXT)   # lane 40 = element 72 (stride 2)
    assert b.core.ub[1024:1028].view(np.uint16).tolist() == [0x5640, 40]


def test_950_reduce_max_zero_signs_and_seeds():
    """8.3.3: a +0 result may carry the index of a -0 element (IEEE ==); all -0 -> -0 index 0; ReduceMin in INF/NaN
    mode reaches -inf from the +65504 seed; all +inf ReduceMin -> 65504 (seed)."""
    b = Bench(D950, False, seed=3)
    x = np.full(128, -1.0, np.float16)
    x[0], x[1] = -0.0, 0.0
    src = b.put("half", 0, x)
    dst = b.tensor("half", 1024, 4)
    aj.ReduceMax(dst, src, src, 128, True)
    assert b.core.ub[1024:1028].view(np.uint16).tolist() == [0x0000, 0]
    src = b.put("half", 0, np.full(128, -0.0, np.float16))
    aj.ReduceMax(dst, src, src, 128, True)
    assert b.core.ub[1024:1028].view(np.uint16).tolist() == [0x8000, 0]
    x = np.ones(128, np.float16)
    x[77] = -np.inf
    src = b.put("half", 0, x)
    aj.ReduceMin(dst, src, src, 128, True)
    assert b.core.ub[1024:1028].view(np.uint16).tolist() == [0xFC00, 77]
    src = b.put("half", 0, np.full(128, np.inf, np.float16))
    aj.ReduceMin(dst, src, src, 100, True)
    assert b.core.ub[1024:1028].view(np.uint16).tolist() == [0x7BFF, 0]
    f = b.put("float", 0, np.full(64, -np.inf, np.float32))
    fd = b.tensor("float", 1024, 4)
    aj.ReduceMax(fd, f, f, 64, True)
    assert b.core.ub[1024:1032].view(np.uint32).tolist() == [0xFF7FFFFF, 0]


def test_950_fully_masked_block_saturates_in_saturation_mode():
    """8.2: the 950's -inf / +inf fills go through SAT (half, saturation mode -> -65504 / +65504); float never."""
    for sat in (False, True):
        for op, inf_w, sat_w in ((MAXT, 0xFC00, 0xFBFF), (MINT, 0x7C00, 0x7BFF), (SUMT, 0, 0)):
            b = Bench(D950, sat, seed=4)
            src = b.put("half", 0, np.ones(128, np.float16))
            aj.ReduceDataBlock(b.tensor("half", 1024, 8), src, 16, 1, 1, 1, 8, reduce_type=op)
            got = b.core.ub[1024:1040].view(np.uint16)
            assert got[0] == (0x4C00 if op == SUMT else 0x3C00)
            assert (got[1:] == (sat_w if sat else inf_w)).all()
        b = Bench(D950, sat, seed=5)
        aj.ReduceDataBlock(b.tensor("float", 1024, 8), b.put("float", 0, np.ones(64, np.float32)), 8, 1, 1, 1, 8,
                           reduce_type=MAXT)
        assert (b.core.ub[1028:1056].view(np.uint32) == 0xFF800000).all()


def test_950_integer_sums_wrap_even_with_integer_saturation_on():
    """SPEC D21 (integer ReduceSum always wraps) and SPEC-2 D50 (950 int16/int32 SUM wraps modulo 2**32, extending
    D21), with CTRL[53] = 1."""
    b = Bench(D950, seed=6)
    b.core.SetCtrlSpr(53, 53, 1)
    x = np.full(64, 2**31 - 1, np.int32)
    src = b.put("int32", 0, x)
    dst = b.tensor("int32", 1024, 8)
    aj.ReduceSum(dst, src, b.tensor("int32", 2048, 16), 64)
    assert load(b.core.ub, "int32", 1024, 1)[0] == int_wrap(64 * (2**31 - 1), "int32")
    aj.ReduceSum(dst, src, b.tensor("int32", 2048, 16), 64, 1, 8)
    assert load(b.core.ub, "int32", 1024, 1)[0] == int_wrap(64 * (2**31 - 1), "int32")
    aj.ReduceRepeat(dst, src, 64, 1, 1, 1, 8, reduce_type=SUMT)
    assert load(b.core.ub, "int32", 1024, 1)[0] == int_wrap(64 * (2**31 - 1), "int32")
    s16 = b.put("int16", 0, np.full(128, 32767, np.int16))
    aj.ReduceRepeat(dst, s16, 128, 1, 1, 1, 8, reduce_type=SUMT)
    assert load(b.core.ub, "int32", 1024, 1)[0] == 128 * 32767
    u64 = b.put("uint64", 0, np.full(40, 2**64 - 1, np.uint64))
    aj.ReduceSum(b.tensor("uint64", 1024, 4), u64, b.tensor("uint64", 2048, 8), 40)
    assert load(b.core.ub, "uint64", 1024, 1)[0] == 2**64 - 40


@pytest.mark.parametrize("device", ALL)
def test_mask_register_and_is_set_mask(device):
    """SPEC D22 / SPEC-2 D31: ReduceRepeat with is_set_mask=False runs on the register SetVectorMask wrote; after a
    non-950 high-dim ReduceSum or ReduceMax the register is undefined (StateError); SPEC 4.5: is_set_mask has no
    effect on the count-form ReduceSum of 950/310B/310P/910."""
    b = Bench(device, seed=7)
    x = gen(b.rng, "half", 512)
    src = b.put("half", 0, x)
    dst = b.tensor("half", 2048, 16)
    exp = b.snapshot()
    rr_model(exp, device, SUMT, "half", "half", VI, 2048, 0, [0xF0F0, 3], 2, 1, 1, 8, b.sat)
    b.core.SetVectorMask(3, 0xF0F0)
    aj.ReduceRepeat(dst, src, aj.MASK_PLACEHOLDER, 2, 1, 1, 8, reduce_type=SUMT, is_set_mask=False)
    b.check("is_set_mask=False")
    tmp = b.tensor("half", 4096, 64)
    if device != D950:
        aj.ReduceSum(dst, src, tmp, 128, 2, 8)
        refused(b, lambda: aj.ReduceRepeat(dst, src, aj.MASK_PLACEHOLDER, 1, 1, 1, 8, reduce_type=SUMT,
                                           is_set_mask=False), E.StateError)
        b.core.ResetMask()
        aj.ReduceMax(dst, src, tmp, 256)
        refused(b, lambda: aj.ReduceRepeat(dst, src, aj.MASK_PLACEHOLDER, 1, 1, 1, 8, reduce_type=SUMT,
                                           is_set_mask=False), E.StateError)
    if FAM[device] != "a2":
        exp = b.snapshot()
        store(exp, "half", 2048, reduce_sum_count_model(device, "half", x[:300], b.sat))
        b.skip = [(4096, 4096 + 128)]
        aj.ReduceSum(dst, src, tmp, 300, is_set_mask=False)
        b.check("count form, is_set_mask ignored")


@pytest.mark.parametrize("device", ALL)
def test_get_reduce_repeat_sum_spr(device):
    """decisions.md: GetReduceRepeatSumSpr returns the last count-form ReduceSum's value on 950/A3/A2; refused on
    310B/310P/910 (UnsupportedDeviceError)."""
    b = Bench(device, seed=8)
    x = gen(b.rng, "half", 1000)
    aj.ReduceSum(b.tensor("half", 4096, 4), b.put("half", 0, x), b.tensor("half", 8192, 16), 1000)
    b.core.PipeBarrier(aj.PIPE_ALL)
    if device in (D950, A2, A3):
        assert as_bits(b.core.GetReduceRepeatSumSpr(), "half").tolist() == \
            as_bits(reduce_sum_count_model(device, "half", x, b.sat), "half").tolist()
    else:
        with pytest.raises(E.UnsupportedDeviceError):
            b.core.GetReduceRepeatSumSpr()


@pytest.mark.parametrize("device", ALL)
def test_more_parameter_refusals(device):
    b = Bench(device, seed=9)
    src = b.put("half", 0, np.ones(512, np.float16))
    dst = b.tensor("half", 2048, 64)
    fsrc, fdst = b.tensor("float", 0, 256), b.tensor("float", 2048, 32)
    refused(b, lambda: aj.ReduceRepeat(dst, src, -1, 1, 1, 1, 8, reduce_type=SUMT), E.ParameterError)
    refused(b, lambda: aj.ReduceDataBlock(dst, src, -5, 1, 1, 1, 8, reduce_type=SUMT), E.ParameterError)
    refused(b, lambda: aj.ReduceSum(dst, src, b.tensor("half", 4096, 16), -1, 1, 8), E.ParameterError)
    if device != T910:
        refused(b, lambda: aj.ReduceRepeat(fdst, fsrc, [1, 1], 1, 1, 1, 8, reduce_type=MAXT), E.ParameterError)
        refused(b, lambda: aj.ReduceDataBlock(fdst, fsrc, [1, 1], 1, 1, 1, 8, reduce_type=SUMT), E.ParameterError)
        refused(b, lambda: aj.ReducePairElem(fdst, fsrc, [1, 1], 1, 1, 1, 8), E.ParameterError)
        refused(b, lambda: aj.ReduceMax(fdst, fsrc, b.tensor("float", 4096, 64), [1, 1], 1, 8), E.ParameterError)
    if device != B310:
        refused(b, lambda: aj.RepeatReduceSum(dst, src, 1, 128, 65536, 1, 1, 8), E.ParameterError)
    refused(b, lambda: aj.ReduceRepeat(dst, src, 128, 1, 1, 65536, 8, reduce_type=SUMT), E.ParameterError)
    refused(b, lambda: aj.ReduceDataBlock(dst, src, 128, 1, 1, 1, 65536, reduce_type=SUMT), E.ParameterError)
    # D17 does not apply to a mask-0 NOP off the 950 (decisions.md); the 950 refuses mask 0 (D14)
    call = lambda: aj.ReduceSum(dst, src, b.tensor("half", 4096, 16400), 0, 128 * 128 + 1, 0)  # noqa: E731
    if device == D950:
        refused(b, call, E.ParameterError)
    else:
        before = b.core.ub.copy()
        call()
        assert np.array_equal(before, b.core.ub)


def _probe_call(b, src, dst):
    aj.ReduceRepeat(dst, src, aj.MASK_PLACEHOLDER, 1, 1, 1, 8, reduce_type=SUMT, is_set_mask=False)


def _probe_lanes(b, src, dst):
    """Lanes the mask register enables now (ReduceRepeat SUM with is_set_mask=False over 128 ones)."""
    b.core.ub[dst.addr:dst.addr + 2] = np.array([0xBC00], np.uint16).view(np.uint8)   # -1.0: not a lane count
    _probe_call(b, src, dst)
    return float(load(b.core.ub, "half", dst.addr, 1)[0])


@pytest.mark.parametrize("device", ALL)
def test_mask_register_after_reductions(device):
    """SPEC D22 and SPEC-2 D31: what each reduction leaves in the vector mask register, seen by a later
    is_set_mask=False call (A2/A3/310P/910: high-dim calls leave their own mask; 950: bit-mask calls overwrite it,
    continuous ones do not; 310B: untouched; A2/A3 count ReduceSum restores all ones; 910/310P count ReduceSum and
    non-950 ReduceMax leave it undefined; 950 ReduceMax leaves it untouched)."""
    b = Bench(device, seed=10)
    src = b.put("half", 0, np.ones(512, np.float16))
    dst, d2 = b.tensor("half", 2048, 16), b.tensor("half", 2560, 64)
    tmp = b.tensor("half", 4096, 64)
    fam = FAM[device]
    # 1: continuous-mask ReduceRepeat / ReduceDataBlock / ReducePairElem
    for call in (lambda: aj.ReduceRepeat(d2, src, 100, 1, 1, 1, 8, reduce_type=MAXT),
                 lambda: aj.ReduceDataBlock(d2, src, 100, 1, 1, 1, 8, reduce_type=SUMT)):
        b.core.SetVectorMask(0, 0xF)
        call()
        assert _probe_lanes(b, src, dst) == (4 if fam in ("950", "310b") else 100)
    # ReducePairElem is SPEC.md's: D22's generic "a high-dim call leaves its own mask" (no 310B exception there;
    # decisions.md "Mask register after high-dim element-wise calls on the 310B" keeps it for Add / ReducePairElem,
    # although SPEC-2 D31's parenthetical paraphrases D22 as "310B: untouched": reported as a SPEC ambiguity)
    b.core.SetVectorMask(0, 0xF)
    aj.ReducePairElem(d2, src, 100, 1, 1, 1, 8)
    assert _probe_lanes(b, src, dst) == (4 if fam == "950" else 100)
    # 2: bit-mask forms
    for call in (lambda: aj.ReduceRepeat(d2, src, [0xFF, 1], 1, 1, 1, 8, reduce_type=SUMT),
                 lambda: aj.ReduceDataBlock(d2, src, [0xFF, 1], 1, 1, 1, 8, reduce_type=MINT)):
        b.core.SetVectorMask(0, 0xF)
        call()
        assert _probe_lanes(b, src, dst) == (4 if fam == "310b" else 9)
    # 3: count-form ReduceSum
    b.core.SetVectorMask(0, 0xF)
    aj.ReduceSum(d2, src, tmp, 300)
    if fam == "a2":
        assert _probe_lanes(b, src, dst) == 128 and not b.core.counter_mode
    elif fam in ("950", "310b"):
        assert _probe_lanes(b, src, dst) == 4
    else:
        refused(b, lambda: _probe_call(b, src, dst), E.StateError)
    # 4: ReduceMax
    b.core.SetVectorMask(0, 0xF)
    aj.ReduceMax(d2, src, tmp, 300)
    if fam == "950":
        assert _probe_lanes(b, src, dst) == 4
    else:
        refused(b, lambda: _probe_call(b, src, dst), E.StateError)


@pytest.mark.parametrize("device", ALL)
def test_reductions_alignment_rules(device):
    """SPEC 4.5 / 6 / 8.2 and SPEC-2 8.1-8.3: src and tmp 32-B aligned; ReduceSum dst element-aligned; ReducePairElem
    dst 32 B; ReduceDataBlock dst 16 B (half) / 32 B (float); ReduceRepeat dst per order; ReduceMax dst 2*sizeof(T)
    with cal_index, sizeof(T) without."""
    b = Bench(device, seed=11)
    src = b.put("half", 0, np.ones(512, np.float16))
    tmp = b.tensor("half", 4096, 64)

    def at(addr, n=8, dt="half"):
        return b.core.local_tensor(dt, n, addr=addr)
    refused(b, lambda: aj.ReduceSum(at(2048), src, at(4112, 32), 300), E.AlignmentError)   # tmp at 16 B
    refused(b, lambda: aj.ReducePairElem(at(2064, 64), src, 128, 1, 1, 1, 8), E.AlignmentError)
    refused(b, lambda: aj.ReduceDataBlock(at(2056), src, 128, 1, 1, 1, 8, reduce_type=SUMT), E.AlignmentError)
    refused(b, lambda: aj.ReduceRepeat(at(2050), src, 128, 1, 1, 1, 8, VI, reduce_type=MINT), E.AlignmentError)
    refused(b, lambda: aj.ReduceMax(at(2050), src, tmp, 300, True), E.AlignmentError)
    refused(b, lambda: aj.ReduceMax(at(2048), src, at(4112, 64), 300, True), E.AlignmentError)
    refused(b, lambda: aj.ReduceMax(at(2048), src[1:], tmp, 300), E.AlignmentError)
    aj.ReduceMax(at(2050), src, tmp, 300)
    aj.ReduceRepeat(at(2050), src, 128, 1, 1, 1, 8, reduce_type=SUMT)
    if device in (D950, A2, A3):
        refused(b, lambda: aj.ReduceRepeat(at(2050), src, 128, 1, 1, 1, 8, OI, reduce_type=MAXT), E.AlignmentError)
        aj.ReduceRepeat(at(2052), src, 128, 1, 1, 1, 8, OI, reduce_type=MAXT)
    if device != T910:
        fs = b.put("float", 0, np.ones(64, np.float32))
        refused(b, lambda: aj.ReduceDataBlock(at(2064, 8, "float"), fs, 64, 1, 1, 1, 8, reduce_type=SUMT),
                E.AlignmentError)
        aj.ReduceSum(at(2052, 2, "float"), fs, b.tensor("float", 4096, 16), 64)


def test_a2_count_form_accepts_any_tmp_and_non950_max_min_deep_levels():
    """SPEC 4.5: the A2/A3 count form accepts a sharedTmpBuffer of any size; SPEC-2 8.3.2 with many repeats
    (levels 2 and 3 of the index tree) and overlapping repeats."""
    for device in (A2, A3):
        b = Bench(device, seed=12)
        x = gen(b.rng, "half", 1000)
        src = b.put("half", 0, x)
        exp = b.snapshot()
        store(exp, "half", 4096, reduce_sum_count_model(device, "half", x, False))
        aj.ReduceSum(b.tensor("half", 4096, 2), src, b.tensor("half", 8192, 1), 1000)
        b.check("tmp of one element")
    for device in NON950:
        for dt in RM_DTYPES[device]:
            L, sz = 256 // SZ[dt], SZ[dt]
            for op, fn in ((MAXT, aj.ReduceMax), (MINT, aj.ReduceMin)):
                b = Bench(device, seed=13)
                R = 300
                span = (R - 1) * 32 + 256
                src = b.put(dt, 0, gen(b.rng, dt, span // sz, "small"))
                tmin = rm_tmp_min(device, dt, True, repeat=R)
                dst_addr = roundup(span, 32)
                exp = b.snapshot()
                value, index = rm_non950(exp, op, dt, 0, b.sat, mask=L, R=R, rep=1)
                rm_store(exp, dt, dst_addr, value, index, True, device)
                b.skip = [(dst_addr + 64, dst_addr + 64 + tmin * sz)]
                fn(b.tensor(dt, dst_addr, 4), src, b.tensor(dt, dst_addr + 64, tmin), L, R, 1, True)
                b.check(f"{op.name} {dt} R=300 rep 1")


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync,dcache", reason="one-element tensors on a bounds=\"ub\" "
                             "core: the strided calls reach past them on purpose")
@pytest.mark.parametrize("device", ALL)
def test_random_strided_calls_on_a_ub_bounded_core(device):
    """Random masks, repeat counts and strides (block strides 0..3, repeat strides 0..20, dst in the unread gaps of
    src), on a bounds="ub" core, for ReduceRepeat, ReduceDataBlock, ReducePairElem and the high-dim ReduceSum, with
    subnormal-heavy and special inputs; whole-UB comparison."""
    rng = np.random.default_rng(sum(map(ord, device)))
    done = 0
    while done < 24:
        api = ("rr", "rdb", "pair", "sum")[done % 4]
        dt = ("half", "float")[rng.integers(0, 2)] if device != T910 else "half"
        L, sz = 256 // SZ[dt], SZ[dt]
        R = int(rng.integers(1, 6))
        blk = int(rng.integers(0, 4)) if api != "sum" else 1
        rep = int(rng.integers(0, 21))
        mask = ([int(rng.integers(1, 2**64, dtype=np.uint64)),
                 int(rng.integers(0, 2**64, dtype=np.uint64)) if L == 128 else 0]
                if rng.integers(0, 2) else int(rng.integers(1, L + 20)))
        op = (SUMT, MAXT, MINT)[rng.integers(0, 3)]
        order = RR_ORDERS[device][rng.integers(0, len(RR_ORDERS[device]))]
        sat = SAT_MODES[device][rng.integers(0, len(SAT_MODES[device]))] if dt == "half" else SAT_MODES[device][0]
        b = Bench(device, sat, seed=int(rng.integers(0, 2**31)), bounds="ub")
        kind = ("sub", "mixed", "bits", "small")[done % 4]
        n = 8192 // sz
        if kind == "sub":
            x = (rng.integers(0, 1024, n) | (rng.integers(0, 2, n) << (8 * sz - 1))).astype(UINT[sz]).view(NP[dt])
            if dt == "float":
                x = (rng.integers(0, 2**23, n) | (rng.integers(0, 2, n) << 31)).astype(np.uint32).view(np.float32)
        else:
            x = gen(rng, dt, n, kind)
        b.put(dt, 0, x)
        src = b.tensor(dt, 0, 1)
        # dst: a random place that no repeat reads (skip draws that would overlap)
        reads = set()
        act = mask_lanes(mask, L)
        for i in range(R):
            j = np.nonzero(act)[0]
            a = i * rep * 32 + (j // (32 // sz)) * blk * 32 + (j % (32 // sz)) * sz
            for k in range(sz):
                reads.update((a + k).tolist())
        dst_addr = int(rng.integers(0, 16)) * 512 + 32
        span = {"rr": R * max(1, rep) * 8 + 64, "rdb": R * 8 * sz * 4 + 64, "pair": R * 128 * 4 + 64,
                "sum": 64}[api]
        if any(a in reads for a in range(dst_addr, dst_addr + span)):
            continue
        dst = b.tensor(dt, dst_addr, 1)
        exp = b.snapshot()
        if api == "rr":
            dst_rep = int(rng.integers(1, 4))
            rr_model(exp, device, op, dt, dt, order, dst_addr, 0, mask, R, dst_rep, blk, rep, sat)
            aj.ReduceRepeat(dst, src, mask, R, dst_rep, blk, rep, order, reduce_type=op)
        elif api == "rdb":
            dst_rep = int(rng.integers(1, 4))
            rdb_model(exp, device, op, dt, dst_addr, 0, mask, R, dst_rep, blk, rep, sat)
            aj.ReduceDataBlock(dst, src, mask, R, dst_rep, blk, rep, reduce_type=op)
        elif api == "pair":
            dst_rep = int(rng.integers(1, 4))
            pair_model(exp, device, dt, dst_addr, 0, mask, R, dst_rep, blk, rep, sat)
            aj.ReducePairElem(dst, src, mask, R, dst_rep, blk, rep)
        else:
            tmp_addr = 16384
            store(exp, dt, dst_addr, reduce_sum_high_model(device, dt, exp, 0, mask, R, rep, sat))
            b.skip = [(tmp_addr, tmp_addr + 64)]
            aj.ReduceSum(dst, src, b.tensor(dt, tmp_addr, 16), mask, R, rep)
        b.check(f"{api} {dt} mask {mask} R {R} blk {blk} rep {rep} op {op.name} sat {sat}")
        done += 1


@pytest.mark.parametrize("device,dt", [(d, dt) for d in (D950, A2, P310) for dt in ("half", "float")] +
                         [(T910, "half"), (B310, "float")])
def test_reduce_sum_big_boundaries(device, dt):
    """950 dispatch boundaries N = L*L and L*L + 1 (two and three levels), and the high-dim form at the D17 limit
    R = L*L (accepted)."""
    L, sz = 256 // SZ[dt], SZ[dt]
    for n in (L * L, L * L + 1):
        b = Bench(device, seed=n)
        x = gen(b.rng, dt, n, "small")
        src = b.put(dt, 0, x)
        tmin = reduce_sum_tmp_min(device, dt, count=n)
        dst_addr = roundup(n * sz, 32)
        exp = b.snapshot()
        store(exp, dt, dst_addr, reduce_sum_count_model(device, dt, x, b.sat))
        b.skip = [(dst_addr + 32, dst_addr + 32 + tmin * sz)]
        aj.ReduceSum(b.tensor(dt, dst_addr, 1), src, b.tensor(dt, dst_addr + 32, max(tmin, 8)), n)
        b.check(f"count {n}")
    if dt == "float":
        R = L * L
        b = Bench(device, seed=5)
        span = (R - 1) * 32 + 256
        src = b.put(dt, 0, gen(b.rng, dt, span // sz, "normal"))
        exp = b.snapshot()
        store(exp, dt, span, reduce_sum_high_model(device, dt, exp, 0, 50, R, 1, b.sat))
        b.skip = [(span + 32, span + 32 + R * sz)]
        aj.ReduceSum(b.tensor(dt, span, 1), src, b.tensor(dt, span + 32, R), 50, R, 1)
        b.check("high-dim R = L*L")


def test_count_form_mode_restoration_and_spr_refusals():
    """SPEC D22 / SPEC-audit 1a: an A2/A3 count ReduceSum with is_set_mask true leaves Normal mode (all ones), with
    is_set_mask false it leaves counter mode and the register as they were; 950/310B count calls never touch them.
    D55 refusals: counter-mode call, srcBlkStride != 1, another dtype. 8.3: a non-bool 5th positional."""
    for device in ALL:
        b = Bench(device, seed=1)
        src = b.put("half", 0, np.ones(512, np.float16))
        dst, tmp = b.tensor("half", 2048, 8), b.tensor("half", 4096, 64)
        b.core.SetMaskCount()
        b.core.SetVectorMask(300)
        aj.ReduceSum(dst, src, tmp, 300)
        if FAM[device] == "a2":
            assert not b.core.counter_mode
            b.core.SetMaskCount()
            b.core.SetVectorMask(200)
            aj.ReduceSum(dst, src, tmp, 1, is_set_mask=False)
            assert b.core.counter_mode and b.core.mask_low == 200
            assert load(b.core.ub, "half", 2048, 1)[0] == 200
        elif FAM[device] in ("950", "310b"):
            assert b.core.counter_mode and b.core.mask_low == 300
        b.core.SetMaskNorm()
        b.core.ResetMask()
        refused(b, lambda: aj.ReduceMax(dst, src, tmp, 256, 5), E.ParameterError)
    for device in (A2, A3, P310):
        b = Bench(device, seed=2)
        src = b.put("half", 0, np.ones(512, np.float16))
        dst = b.tensor("half", 2048, 64)
        for setup in (lambda: aj.ReduceRepeat(dst, src, 128, 2, 1, 2, 8, reduce_type=MAXT),
                      lambda: (b.core.SetMaskCount(), aj.ReduceRepeat(dst, src, 200, 1, 1, 1, 8, reduce_type=MAXT),
                               b.core.SetMaskNorm()),
                      lambda: aj.ReduceRepeat(b.tensor("float", 2048, 16), b.tensor("float", 0, 64), 64, 1, 1, 1, 8,
                                              reduce_type=MINT)):
            setup()
            b.core.PipeBarrier(aj.PIPE_ALL)
            refused(b, lambda: aj.GetReduceRepeatMaxMinSpr("half", core=b.core), E.StateError)


@pytest.mark.parametrize("device", NON950)
def test_non950_reduce_max_nan_in_body_and_tail(device):
    """8.3.2: the tail wins only strictly (NaN does not beat NaN: the body's first NaN lane stays); a NaN tail beats a
    finite body; in saturation mode the NaNs are +0 per repeat."""
    for sat in SAT_MODES[device]:
        for body_nan, tail_nan in ((True, True), (False, True), (True, False)):
            b = Bench(device, sat, seed=3)
            x = np.ones(300, np.float16)
            if body_nan:
                x[133] = np.nan
            if tail_nan:
                x[280] = np.nan
            src = b.put("half", 0, x)
            exp = b.snapshot()
            value, index = rm_non950(exp, MAXT, "half", 0, sat, count=300)
            aj.ReduceMax(b.tensor("half", 1024, 4), src, b.tensor("half", 2048, 64), 300, True)
            got = b.core.ub[1024:1028].view(np.uint16).tolist()
            assert got == [as_bits(value, "half").view(np.uint16)[0], index]
            if not sat:
                assert got == [0x7E00, 133 if body_nan else 280]
            else:
                assert got == [0x3C00, 0]


@pytest.mark.parametrize("device", ALL)
def test_more_in_place_forms_and_register_counts(device):
    """decisions.md "Reductions in place": a repeat's result at the first byte of its own source (dst_rep_stride
    one repeat apart) runs; a result in bytes a later repeat reads is an OverlapError. SPEC 4.5: high-dim ReduceSum
    with dst over sharedTmpBuffer. SPEC-2 1.4: counter mode with is_set_mask=False takes the count from the register."""
    b = Bench(device, seed=21)
    x = gen(b.rng, "half", 3 * 128, "normal")
    for api, dst_rep in (("rr", 128), ("rdb", 16)):
        t = b.put("half", 0, x)
        exp = b.snapshot()
        if api == "rr":
            rr_model(exp, device, SUMT, "half", "half", VI, 0, 0, 128, 3, dst_rep, 1, 8, b.sat)
            aj.WholeReduceSum(t, t, 128, 3, dst_rep, 1, 8)
        else:
            rdb_model(exp, device, MAXT, "half", 0, 0, 128, 3, dst_rep, 1, 8, b.sat)
            aj.BlockReduceMax(t, t, 3, 128, dst_rep, 1, 8)
        b.check(f"in place {api} dst_rep {dst_rep}")
    t = b.put("half", 0, x)
    refused(b, lambda: aj.WholeReduceSum(t[128:], t, 128, 3, 1, 1, 8), E.OverlapError)
    refused(b, lambda: aj.BlockReduceSum(t[128:], t, 3, 128, 1, 1, 8), E.OverlapError)
    # high-dim ReduceSum, dst = sharedTmpBuffer[0]
    src = b.put("half", 0, x)
    exp = b.snapshot()
    store(exp, "half", 1024, reduce_sum_high_model(device, "half", exp, 0, 100, 3, 8, b.sat))
    b.skip = [(1026, 1024 + 32)]
    aj.ReduceSum(b.tensor("half", 1024, 1), src, b.tensor("half", 1024, 16), 100, 3, 8)
    b.check("high-dim dst over tmp")
    b.skip = []
    # counter mode, is_set_mask=False: the register's count
    dst = b.tensor("half", 2048, 64)
    exp = b.snapshot()
    rr_model(exp, device, MAXT, "half", "half", VI, 2048, 0, None, 0, 1, 1, 8, b.sat, counter=200)
    b.core.SetMaskCount()
    b.core.SetVectorMask(200)
    aj.WholeReduceMax(dst, src, aj.MASK_PLACEHOLDER, 9, 1, 1, 8, VI, is_set_mask=False)
    b.core.SetMaskNorm()
    b.check("counter mode from the register")


@pytest.mark.parametrize("device", ALL)
def test_mask_register_after_nops(device):
    """SPEC D14: a mask-0 NOP with is_set_mask true still puts 0 in the register (A2/A3/310P/910, and the 310B "the
    same"); SPEC-2 D30: repeat_time 0 is a NOP and the register still receives the mask (as D31 says per device)."""
    b = Bench(device, seed=22)
    src = b.put("half", 0, np.ones(512, np.float16))
    dst, d2 = b.tensor("half", 2048, 16), b.tensor("half", 2560, 64)
    fam = FAM[device]
    b.core.SetVectorMask(0, 0xF)
    aj.ReduceRepeat(d2, src, 100, 0, 1, 1, 8, reduce_type=MAXT)
    assert _probe_lanes(b, src, dst) == (4 if fam in ("950", "310b") else 100)
    b.core.SetVectorMask(0, 0xF)
    aj.ReduceDataBlock(d2, src, [0xFF, 1], 0, 1, 1, 8, reduce_type=MAXT)
    assert _probe_lanes(b, src, dst) == (4 if fam == "310b" else 9)
    if fam != "950":
        for call in (lambda: aj.ReduceSum(d2, src, b.tensor("half", 4096, 16), 0, 2, 8),
                     lambda: aj.ReducePairElem(d2, src, [0, 0], 1, 1, 1, 8)):
            b.core.SetVectorMask(0, 0xF)
            call()
            if fam == "310b":      # the register holds 0, which the 310B's ReduceRepeat refuses (D30)
                refused(b, lambda: _probe_call(b, src, dst), E.ParameterError)
            else:                  # a 0 register makes the probe a NOP: dst keeps the sentinel
                assert _probe_lanes(b, src, dst) == -1.0


@pytest.mark.parametrize("device", (D950, A2, T910))
def test_keyword_forms_and_range_refusals(device):
    """SPEC-2 1.1: parameters by keyword (snake_case) give the positional call's bytes; SPEC 1.3/1.4, 2.5 ranges."""
    b = Bench(device, seed=31)
    src = b.put("half", 0, gen(b.rng, "half", 1024, "mixed"))
    dst, tmp = b.tensor("half", 4096, 64), b.tensor("half", 8192, 64)
    for pos, kw in ((lambda: aj.ReduceSum(dst, src, tmp, 300), lambda: aj.ReduceSum(dst, src, tmp, count=300)),
                    (lambda: aj.ReduceSum(dst, src, tmp, 100, 3, 8),
                     lambda: aj.ReduceSum(dst, src, tmp, mask=100, repeat_time=3, src_rep_stride=8)),
                    (lambda: aj.ReduceMax(dst, src, tmp, 300, True),
                     lambda: aj.ReduceMax(dst, src, tmp, count=300, cal_index=True)),
                    (lambda: aj.ReduceRepeat(dst, src, 77, 2, 1, 1, 8, reduce_type=MAXT),
                     lambda: aj.ReduceRepeat(dst=dst, src=src, mask=77, repeat_time=2, dst_rep_stride=1,
                                             src_blk_stride=1, src_rep_stride=8, reduce_type=MAXT))):
        b.core.ub[4096:4224] = 0x5A
        pos()
        want = b.core.ub.copy()
        b.core.ub[4096:4224] = 0x5A
        kw()
        assert np.array_equal(want, b.core.ub)
    refused(b, lambda: aj.ReduceSum(dst, src, tmp, 128, 2**31, 0), E.ParameterError)        # int32 repeatTime
    refused(b, lambda: aj.ReduceSum(dst, src, tmp, 128, 2, 65536), E.ParameterError)         # srcRepStride
    refused(b, lambda: aj.ReducePairElem(dst, src, 128, 1, 65536, 1, 8), E.ParameterError)   # dstRepStride
    refused(b, lambda: aj.ReduceMax(dst, src, tmp, 128, 2, 65536), E.ParameterError)
    refused(b, lambda: aj.ReduceRepeat(dst, src, 100, 1, 1, 1, 8, reduce_type=SUMT, is_set_mask=False),
            E.ParameterError)                                                                # SPEC 2.5
    refused(b, lambda: aj.ReducePairElem(dst, src, aj.MASK_PLACEHOLDER, 1, 1, 1, 8), E.ParameterError)
    if device == A2:
        refused(b, lambda: aj.ReduceSum(dst, src, tmp, 300, is_set_mask=False), E.StateError)  # not in counter mode
