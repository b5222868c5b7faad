"""Audit 39 (session 39's changes, 54997f9..HEAD): independent models of SPEC-2 D29 (scalar conversion), SPEC-2 10
(flags, barriers, the intrinsics) and 10.4 (the sanitizer, with docs/decisions.md "The device's synchronisation"),
and the refusal contract (SPEC-2 1.5). Every expectation is derived from the SPEC / decisions text with a model
written here (fractions.Fraction rounding, a happens-before graph), never from the implementation. Only the public
API `import ascend_jit as aj` is used."""
import math
import random
import warnings
from fractions import Fraction

import numpy as np
import pytest

import ascend_jit as aj

pytestmark = pytest.mark.ascend_sanitize(checks="", reason="each test sets its own sanitizer mode")

A2, A950 = "atlas-a2", "ascend950"

# --- an independent model of D29: one RNE rounding of the exact value -------------------------------------------

FORMATS = {"half": (5, 10), "bfloat16": (8, 7), "float": (8, 23)}
CANONICAL_NAN = {"half": 0x7E00, "bfloat16": 0x7FC0, "float": 0x7FC00000}
UINT = {"half": np.uint16, "bfloat16": np.uint16, "float": np.uint32}


def rne_bits(x, fmt):
    """The bits of the exact value x (int, float or Fraction) rounded once to nearest even in `fmt`, gradual
    underflow, overflow to inf, NaN canonical."""
    ebits, mbits = FORMATS[fmt]
    width = 1 + ebits + mbits
    if isinstance(x, float) and math.isnan(x):
        return CANONICAL_NAN[fmt]
    if isinstance(x, float) and math.isinf(x):
        return ((1 << (width - 1)) if x < 0 else 0) | (((1 << ebits) - 1) << mbits)
    sign = 1 if (x < 0 or (isinstance(x, float) and x == 0 and math.copysign(1, x) < 0)) else 0
    ax = abs(Fraction(x))
    s = sign << (width - 1)
    if ax == 0:
        return s
    bias = (1 << (ebits - 1)) - 1
    emin, emax = 1 - bias, bias
    e = ax.numerator.bit_length() - ax.denominator.bit_length()
    if Fraction(2) ** e > ax:
        e -= 1
    if Fraction(2) ** (e + 1) <= ax:
        e += 1
    e = max(e, emin)
    q = ax / Fraction(2) ** (e - mbits)
    n = q.numerator // q.denominator
    rem = q - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1):
        n += 1
    if n == 1 << (mbits + 1):
        n >>= 1
        e += 1
    if e > emax:
        return s | (((1 << ebits) - 1) << mbits)
    if n < (1 << mbits):           # subnormal (or zero after rounding)
        return s | n
    return s | ((e + bias) << mbits) | (n - (1 << mbits))


def bits_value(b, fmt):
    """Exact value of finite bits (a Fraction) or None for inf/NaN."""
    ebits, mbits = FORMATS[fmt]
    width = 1 + ebits + mbits
    sign = -1 if b >> (width - 1) else 1
    ef = (b >> mbits) & ((1 << ebits) - 1)
    m = b & ((1 << mbits) - 1)
    bias = (1 << (ebits - 1)) - 1
    if ef == (1 << ebits) - 1:
        return None
    if ef == 0:
        return sign * Fraction(m) * Fraction(2) ** (1 - bias - mbits)
    return sign * Fraction((1 << mbits) + m) * Fraction(2) ** (ef - bias - mbits)


def test_model_sanity():
    assert rne_bits(1.0, "half") == 0x3C00 and rne_bits(65504.0, "half") == 0x7BFF
    assert rne_bits(65520.0, "half") == 0x7C00 and rne_bits(65519.99, "half") == 0x7BFF
    assert rne_bits(2.0 ** -24, "half") == 1 and rne_bits(2.0 ** -25, "half") == 0
    assert rne_bits(1 + 2 ** -8 + 2 ** -40, "bfloat16") == 0x3F81      # decisions.md "SetValue" example
    assert rne_bits(-0.0, "float") == 0x80000000
    for fmt in FORMATS:
        for b in (0x0001, 0x0400, 0x3C00, 0x1234):
            assert rne_bits(bits_value(b, fmt), fmt) == b


def _edge_values(fmt, step=1):
    """Every finite positive value's midpoint with its successor, just below and above it (doubles), and edges."""
    ebits, mbits = FORMATS[fmt]
    top = ((1 << ebits) - 1) << mbits
    vals = []
    for b in range(0, top, step):
        v, w = bits_value(b, fmt), bits_value(b + 1, fmt)
        mid = float((v + w) / 2) if w is not None else float(v + (v - bits_value(b - 1, fmt)) / 2)
        assert Fraction(mid) == ((v + w) / 2 if w is not None else Fraction(mid))
        vals += [float(v), mid, math.nextafter(mid, 0), math.nextafter(mid, math.inf)]
    vals += [float("inf"), float("nan"), 1e308, 5e-324, 1e-300, -0.0, 0.0]
    return vals + [-v for v in vals]


def _set_values_local(device, dtype, values, via="local"):
    n = 1024
    out = []
    with aj.Core(device) as core:
        t = core.local_tensor(dtype, n)
        g = aj.GlobalTensor(dtype)
        g.SetGlobalBuffer(np.zeros(n, dtype=t.numpy().dtype))
        for start in range(0, len(values), n):
            chunk = values[start:start + n]
            for i, v in enumerate(chunk):
                (t if via == "local" else g).SetValue(i, v)
            arr = (t.numpy() if via == "local" else np.asarray(g.array))[:len(chunk)]
            out += [int(x) for x in np.asarray(arr).view(UINT[dtype])]
    return out


# each type through one tensor kind by default (20 s warm for all four): both kinds convert by the same D29 code
@pytest.mark.parametrize("dtype, via", [("half", "local"), ("bfloat16", "global"),
                                        pytest.param("half", "global", marks=pytest.mark.slow),
                                        pytest.param("bfloat16", "local", marks=pytest.mark.slow)])
def test_d29_every_midpoint_16bit(dtype, via):
    values = _edge_values(dtype)
    got = _set_values_local(A2, dtype, values, via)
    bad = [(v, hex(g), hex(rne_bits(v, dtype))) for v, g in zip(values, got) if g != rne_bits(v, dtype)]
    assert not bad[:10], f"{len(bad)} disagreements"


@pytest.mark.parametrize("via", ["local", "global"])
def test_d29_float32_random_and_edges(via):
    rng = random.Random(39)
    values = []
    for _ in range(3000):   # midpoints between random neighbouring floats, every exponent (subnormals too)
        b = rng.randrange(0, 0x7F7FFFFF)
        v, w = bits_value(b, "float"), bits_value(b + 1, "float")
        mid = float((v + w) / 2)
        values += [mid, math.nextafter(mid, 0), math.nextafter(mid, 1e300), rng.uniform(-1e38, 1e38),
                   rng.uniform(-1, 1) * 2.0 ** rng.randrange(-160, 130)]
    fmax = float(bits_value(0x7F7FFFFF, "float"))
    half_ulp = 2.0 ** 103
    values += [fmax, fmax + half_ulp, math.nextafter(fmax + half_ulp, 0), math.nextafter(fmax + half_ulp, 1e309),
               2.0 ** -149, 2.0 ** -150, math.nextafter(2.0 ** -150, 1), 3 * 2.0 ** -151, float("nan"), float("inf"),
               2.0 ** 128, 1e39]
    values += [-v for v in values]
    got = _set_values_local(A2, "float", values, via)
    bad = [(v, hex(g), hex(rne_bits(v, "float"))) for v, g in zip(values, got) if g != rne_bits(v, "float")]
    assert not bad[:10], f"{len(bad)} disagreements"


@pytest.mark.parametrize("dtype", ["half", "bfloat16", "float"])
def test_d29_python_ints_into_float_tensors(dtype):
    rng = random.Random(7)
    values = [0, 1, -1, 65504, 65519, 65520, 65536, 2 ** 24 + 1, 2 ** 53, 2 ** 53 + 1, -(2 ** 53) - 1, 2 ** 60 + 1,
              2 ** 64 - 1, 2 ** 127 + 2 ** 103, 2 ** 128 - 2 ** 103, 2 ** 128 - 2 ** 103 - 1, 2 ** 128, 10 ** 40,
              -(10 ** 40), 2 ** 1100]
    values += [rng.randrange(-2 ** 70, 2 ** 70) for _ in range(300)]
    values += [(2 ** 24 + 2 * k + 1) << rng.randrange(0, 40) for k in range(100)]   # float midpoints, big
    values += [(2 ** 53 + 2 * k + 1) for k in range(50)] + [2 ** 54 + 2, 2 ** 54 + 6]
    for via in ("local", "global"):
        got = _set_values_local(A2, dtype, values, via)
        bad = [(v, hex(g), hex(rne_bits(v, dtype))) for v, g in zip(values, got) if g != rne_bits(v, dtype)]
        assert not bad[:10], f"{via}: {len(bad)} disagreements"


def test_d29_numpy_floats_of_another_width():
    """D29: a numpy float of another width is rounded once from its own exact value."""
    rng = np.random.default_rng(3)
    f32 = rng.standard_normal(500).astype(np.float32) * np.float32(2.0) ** rng.integers(-30, 20, 500).astype(np.float32)
    f64 = rng.standard_normal(500) * 2.0 ** rng.integers(-30, 20, 500)
    cases = [("half", list(f32) + list(f64) + [np.float32(1.0004883)]), ("bfloat16", list(f32) + list(f64)),
             ("float", list(f64) + [np.float16(1.5), np.float16(2 ** -24)])]
    for dtype, values in cases:
        got = _set_values_local(A2, dtype, values)
        want = [rne_bits(float(v), dtype) for v in values]
        bad = [(v, hex(g), hex(w)) for v, g, w in zip(values, got, want) if g != w]
        assert not bad[:10], f"{dtype}: {len(bad)}"


INT_RANGES = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767), "uint16": (0, 65535),
              "int32": (-2 ** 31, 2 ** 31 - 1), "uint32": (0, 2 ** 32 - 1), "int64": (-2 ** 63, 2 ** 63 - 1),
              "uint64": (0, 2 ** 64 - 1)}


@pytest.mark.parametrize("dtype", list(INT_RANGES))
@pytest.mark.parametrize("via", ["local", "global"])
def test_d29_integers_range_checked_and_state_unchanged(dtype, via):
    lo, hi = INT_RANGES[dtype]
    npd = np.dtype(dtype if dtype != "float" else "float32")
    with aj.Core(A2) as core:
        t = core.local_tensor(dtype, 8)
        g = aj.GlobalTensor(dtype)
        g.SetGlobalBuffer(np.zeros(8, npd))
        target = t if via == "local" else g
        for i, v in enumerate((lo, hi, 0, 1, np.int64(max(lo, -5)), np.uint8(7))):
            target.SetValue(i, v)
        arr = t.numpy() if via == "local" else np.asarray(g.array)
        assert [int(x) for x in arr[:6]] == [lo, hi, 0, 1, max(lo, -5), 7]
        before = arr.copy()
        for bad in (lo - 1, hi + 1, 2 ** 64, -(2 ** 64), True, False, np.bool_(True), 1.0, 0.5, float("nan"),
                    np.float32(1.0), "1", None, Fraction(1, 1) if False else 1.5):
            with pytest.raises(aj.AscendJitError) as e:
                target.SetValue(0, bad)
            assert "SetValue" in str(e.value)
            after = t.numpy() if via == "local" else np.asarray(g.array)
            assert np.array_equal(after, before), bad
        if lo < 0:
            with pytest.raises(aj.ParameterError, match=str(lo - 1)):
                target.SetValue(0, lo - 1)


@pytest.mark.parametrize("dtype", ["half", "bfloat16", "float"])
def test_d29_bool_refused_for_float_tensors(dtype):
    with aj.Core(A2) as core:
        t = core.local_tensor(dtype, 8)
        t.SetValue(0, 2.0)
        before = t.numpy().view(UINT[dtype]).copy()
        for bad in (True, False, np.bool_(False)):
            with pytest.raises(aj.ParameterError):
                t.SetValue(0, bad)
            with pytest.raises(aj.ParameterError):
                aj.Duplicate(t, bad, 8)
        assert np.array_equal(t.numpy().view(UINT[dtype]), before)


def _dup_bits(device, dtype, values, api="Duplicate"):
    n = 256 // (2 if dtype != "float" else 4) * 1
    out = []
    with aj.Core(device) as core:
        d = core.local_tensor(dtype, n)
        s = core.local_tensor(dtype, n)
        one = {"half": np.float16(1), "float": np.float32(1)}.get(dtype)
        zero = {"half": np.float16(0), "float": np.float32(0)}.get(dtype)
        for v in values:
            if api == "Duplicate":
                aj.Duplicate(d, v, n)
            elif api == "Muls":
                aj.Duplicate(s, one, n)
                aj.Muls(d, s, v, n)
            elif api == "Adds":
                aj.Duplicate(s, zero, n)
                aj.Adds(d, s, v, n)
            arr = d.numpy().view(UINT[dtype])
            assert len(set(arr.tolist())) == 1
            out.append(int(arr[0]))
    return out


@pytest.mark.parametrize("dtype", ["half", "bfloat16", "float"])
def test_d29_duplicate_scalar_same_conversion(dtype):
    rng = random.Random(11)
    values = _edge_values(dtype, step=97) if dtype != "float" else []
    if dtype == "float":
        for _ in range(400):
            b = rng.randrange(0, 0x7F7FFFFF)
            v, w = bits_value(b, "float"), bits_value(b + 1, "float")
            mid = float((v + w) / 2)
            values += [mid, math.nextafter(mid, 0), math.nextafter(mid, 1e300)]
        values += [2.0 ** -150, 3 * 2.0 ** -151, 1e39, float("nan"), -float("nan")]
    values += [2 ** 60 + 1, 65520, 65519, -(2 ** 70) - 1, np.float32(1.0004883), np.float64(1 + 2 ** -8 + 2 ** -40)]
    got = _dup_bits(A2, dtype, values)
    want = [rne_bits(float(v) if isinstance(v, np.floating) else v, dtype) for v in values]
    bad = [(v, hex(g), hex(w)) for v, g, w in zip(values, got, want) if g != w]
    assert not bad[:10], f"{len(bad)}"


@pytest.mark.parametrize("api", ["Muls", "Adds"])
@pytest.mark.parametrize("dtype", ["half", "float"])
def test_d29_adds_muls_scalar_same_conversion(api, dtype):
    """x * 1 and x + 0 are exact, so the result is the converted scalar (normal values, NaN canonical, inf)."""
    rng = random.Random(5)
    ebits, mbits = FORMATS[dtype]
    values = []
    for _ in range(150):
        b = rng.randrange(1 << mbits, ((1 << ebits) - 2) << mbits)   # normal values only (no FTZ question)
        v, w = bits_value(b, dtype), bits_value(b + 1, dtype)
        mid = float((v + w) / 2)
        values += [mid, math.nextafter(mid, 0), math.nextafter(mid, 1e300), -mid]
    values += [float("inf"), -float("inf"), float("nan"), 2 ** 40 + 1, 65520.0 if dtype == "half" else 1e39]
    got = _dup_bits(A2, dtype, values, api)
    want = [rne_bits(v, dtype) for v in values]
    bad = [(v, hex(g), hex(w)) for v, g, w in zip(values, got, want) if g != w]
    assert not bad[:10], f"{len(bad)}"


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_d29_compares_scalar_same_conversion(dtype):
    """Compares EQ of a tensor holding q against a scalar s: true iff D29(s) == q."""
    n = 256 // (2 if dtype == "half" else 4)
    rng = random.Random(9)
    ebits, mbits = FORMATS[dtype]
    npt = {"half": np.float16, "float": np.float32}[dtype]
    with aj.Core(A2) as core:
        src = core.local_tensor(dtype, n)
        dst = core.local_tensor("uint8", 32)
        for _ in range(120):
            b = rng.randrange(1, ((1 << ebits) - 2) << mbits)
            v, w = bits_value(b, dtype), bits_value(b + 1, dtype)
            mid = float((v + w) / 2)
            for s in (mid, math.nextafter(mid, 0), math.nextafter(mid, 1e300)):
                q = rne_bits(s, dtype)
                stored = np.array([q], UINT[dtype]).view(npt)[0]
                aj.Duplicate(src, stored, n)
                aj.Compares(dst, src, s, aj.CMPMODE.EQ, n)
                bits = np.unpackbits(dst.numpy()[:n // 8], bitorder="little")
                assert bits.all(), (s, hex(q))
                other = np.array([b if q == b + 1 else b + 1], UINT[dtype]).view(npt)[0]
                aj.Duplicate(src, other, n)
                aj.Compares(dst, src, s, aj.CMPMODE.EQ, n)
                assert not np.unpackbits(dst.numpy()[:n // 8]).any(), s


# --- an independent happens-before model of SPEC-2 10.4 and decisions.md "The device's synchronisation" ------------
# Four 16-float tiles: A of a TQue<VECIN>, B of a TQue<VECOUT>, C of a TQueBind<VECIN, VECOUT>, D of a TBuf. Each tile
# is two regions (element 0, which GetValue / SetValue touch, and the rest). Ordering is reachability in a graph whose
# nodes are the program's events on their pipes (accesses; SetFlag on its source pipe, WaitFlag on its destination
# pipe; PipeBarrier<P> on P; PipeBarrier<PIPE_ALL> on every pipe), with edges along each pipe's program order and
# from each SetFlag to its WaitFlag. Queue hand-offs: by default SPEC-2 10.4 (a DeQue orders, for the tensor's bytes,
# every access before its EnQue with every access after it; an AllocTensor orders every earlier access of the buffer);
# "device-sync": the devkit's GetQueEvt pair as a SetFlag at EnQue / WaitFlag at DeQue (free: SetFlag at FreeTensor,
# WaitFlag at the next AllocTensor), and a WaitFlag whose destination is PIPE_S orders every later event of every
# pipe. Reported: per later access and region, RAW / WAW against the last write, WAR against each other pipe's (not
# PIPE_S's) last read since the last write (decisions.md "Sanitizer": a scalar read never starts a WAR); "strict"
# adds same-pipe PIPE_V RAW and PIPE_MTE2 WAW unless a path with a barrier or a flag joins them.

PIPES = ("PIPE_S", "PIPE_V", "PIPE_MTE2", "PIPE_MTE3")
QUEUE_PAIRS = {"A": (("PIPE_MTE2", "PIPE_V"), ("PIPE_V", "PIPE_MTE2")),
               "B": (("PIPE_V", "PIPE_MTE3"), ("PIPE_MTE3", "PIPE_V")),
               "C": (("PIPE_MTE2", "PIPE_MTE3"), ("PIPE_MTE3", "PIPE_MTE2"))}
FLAG_PAIRS = [(s, d) for s in PIPES for d in PIPES if s != d]
EV_NAME = {"PIPE_S": "S", "PIPE_V": "V", "PIPE_MTE2": "MTE2", "PIPE_MTE3": "MTE3"}


def _random_program(rng, n_ops, flag_weight=1.0):
    state = {"A": "free", "B": "free", "C": "free"}
    live = {"D"}
    prog, pending, user_pos = [], [], {}
    for _ in range(n_ops):
        r = rng.random()
        q = rng.choice("ABC")
        if r < 0.22:
            if state[q] == "free":
                prog.append(("alloc", q)); state[q] = "alloc"; live.add(q)
            elif state[q] == "alloc" and rng.random() < 0.7:
                up = rng.random() < 0.3
                prog.append(("enque", q, up)); state[q] = "enq"; live.discard(q); user_pos[q] = up
            elif state[q] == "enq":
                prog.append(("deque", q, user_pos[q])); state[q] = "deq"; live.add(q)
            else:
                prog.append(("free", q)); state[q] = "free"; live.discard(q)
            continue
        if r < 0.22 + 0.14 * flag_weight:
            free_ids = [(s, d, i) for s, d in FLAG_PAIRS for i in range(2) if (s, d, i) not in pending]
            s, d, i = rng.choice(free_ids)
            pending.append((s, d, i))
            prog.append(("set", s, d, i, rng.random() < 0.5))
            continue
        if r < 0.22 + 0.24 * flag_weight and pending:
            s, d, i = pending.pop(rng.randrange(len(pending)))
            prog.append(("wait", s, d, i, rng.random() < 0.5))
            continue
        if r < 0.50:
            prog.append(("barrier", rng.choice(["PIPE_ALL", "PIPE_V", "PIPE_MTE2", "PIPE_MTE3"]), rng.random() < 0.5))
            continue
        tiles = sorted(live)
        kind = rng.choice(["in", "out", "adds", "adds", "get", "sv"])
        x, y = rng.choice(tiles), rng.choice(tiles)
        prog.append((kind, x, y))
    for s, d, i in pending:
        prog.append(("wait", s, d, i, rng.random() < 0.5))
    return prog


def _run_program(prog, strict, device_sync, fixes=False):
    config = aj.SanitizeConfig(checks=("race",), mode="report", strict=strict, device_sync=device_sync)
    n_out = sum(1 for op in prog if op[0] == "out")
    with aj.Core(A2, sanitize=config) as core:
        pipe = aj.TPipe()
        qs = {"A": aj.TQue(aj.TPosition.VECIN, 1), "B": aj.TQue(aj.TPosition.VECOUT, 1),
              "C": aj.TQueBind(aj.TPosition.VECIN, aj.TPosition.VECOUT, 1)}
        for q in qs.values():
            pipe.InitBuffer(q, 1, 64)
        tbuf = aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(tbuf, 64)
        tiles = {"D": tbuf.Get("float")}
        g = aj.GlobalTensor("float")
        g.SetGlobalBuffer(np.ones(16, np.float32))
        y = aj.GlobalTensor("float")
        y.SetGlobalBuffer(np.zeros(16 * max(n_out, 1), np.float32))
        outs = 0
        for op in prog:
            k = op[0]
            if k == "alloc":
                tiles[op[1]] = qs[op[1]].AllocTensor("float")
            elif k == "enque":
                if op[2]:
                    qs[op[1]].EnQue(aj.TPosition.VECIN, aj.TPosition.VECOUT, tiles[op[1]])
                else:
                    qs[op[1]].EnQue(tiles[op[1]])
            elif k == "deque":
                tiles[op[1]] = (qs[op[1]].DeQue(aj.TPosition.VECIN, aj.TPosition.VECOUT, "float") if op[2]
                                else qs[op[1]].DeQue("float"))
            elif k == "free":
                qs[op[1]].FreeTensor(tiles[op[1]])
            elif k == "set":
                _, s, d, i, intrinsic = op
                if intrinsic:
                    aj.set_flag(getattr(aj, s), getattr(aj, d), i)
                else:
                    aj.SetFlag(i, event=getattr(aj.HardEvent, f"{EV_NAME[s]}_{EV_NAME[d]}"))
            elif k == "wait":
                _, s, d, i, intrinsic = op
                if intrinsic:
                    aj.wait_flag(getattr(aj, s), getattr(aj, d), i)
                else:
                    aj.WaitFlag(i, event=getattr(aj.HardEvent, f"{EV_NAME[s]}_{EV_NAME[d]}"))
            elif k == "barrier":
                (aj.pipe_barrier if op[2] else aj.PipeBarrier)(getattr(aj, op[1]))
            elif k == "in":
                aj.DataCopy(tiles[op[1]], g, 16)
            elif k == "out":
                aj.DataCopy(y[16 * outs], tiles[op[1]], 16)
                outs += 1
            elif k == "adds":
                aj.Adds(tiles[op[2]], tiles[op[1]], 1.0, 16)
            elif k == "get":
                tiles[op[1]].GetValue(0)
            elif k == "sv":
                tiles[op[1]].SetValue(0, 2.0)
        if fixes:
            return {(r.instruction.seq, r.earlier.seq, r.kind): r.fix for r in core.sanitizer.reports}
        reports = {(r.instruction.seq, r.earlier.seq, r.kind) for r in core.sanitizer.reports}
    return reports


def _model(prog, strict, device_sync):
    preds = []                 # preds[n]: [(earlier node, is a synchronisation edge)]
    last_on = {p: None for p in PIPES}
    extra = {p: [] for p in PIPES}   # device-sync: a PIPE_S wait precedes the next event of every pipe
    # "strict" alone: it orders the pipe's own earlier instructions it saw complete before that event (port63e)
    extra_same_pipe = {p: [] for p in PIPES}
    barrier_nodes = set()
    anc, anc_sync = [], []

    def node(pipes, barrier=False, flag_src=None):
        n = len(preds)
        ps, same_pipe_only = [], []
        for p in pipes:
            if last_on[p] is not None:
                ps.append((last_on[p], barrier or last_on[p] in barrier_nodes))
            ps += [(e, True) for e in extra[p]]
            same_pipe_only += extra_same_pipe[p]
            extra[p], extra_same_pipe[p] = [], []
            last_on[p] = n
        if flag_src is not None:
            ps.append((flag_src, True))
        preds.append(ps)
        if barrier:
            barrier_nodes.add(n)
        a, s = set(), set()
        for p, sync_edge in ps:
            a |= anc[p] | {p}
            s |= anc_sync[p]
            if sync_edge:
                s |= anc[p] | {p}
        for p in same_pipe_only:
            s |= anc[p] | {p}
        anc.append(a)
        anc_sync.append(s)
        return n

    flag_nodes = {}

    def set_flag(s, d, key):
        flag_nodes[key] = node((s,))

    def wait_flag(s, d, key):
        n = node((d,), flag_src=flag_nodes.pop(key, None))
        if d == "PIPE_S":
            for p in PIPES:
                if p != "PIPE_S":
                    (extra if device_sync else extra_same_pipe)[p].append(n)

    access_node, access_pipe = [], []
    region_state, handoff_mark, expected = {}, {}, set()

    def st_of(reg):
        return region_state.setdefault(reg, {"w": None, "reads": {}, "h": -1})

    idx = 0
    for op in prog:
        k = op[0]
        if k == "alloc":
            q = op[1]
            if device_sync:
                wait_flag(*QUEUE_PAIRS[q][1], ("free", q))
            else:
                for r in (0, 1):
                    st_of((q, r))["h"] = idx - 1
        elif k == "enque":
            q = op[1]
            if device_sync:
                handoff_mark[q] = QUEUE_PAIRS["C" if op[2] else q][0]
                set_flag(*handoff_mark[q], ("q", q))
            else:
                handoff_mark[q] = idx - 1
        elif k == "deque":
            q = op[1]
            if device_sync:
                wait_flag(*handoff_mark[q], ("q", q))
            else:
                for r in (0, 1):
                    st = st_of((q, r))
                    st["h"] = max(st["h"], handoff_mark[q])
        elif k == "free":
            if device_sync:
                set_flag(*QUEUE_PAIRS[op[1]][1], ("free", op[1]))
        elif k == "set":
            set_flag(op[1], op[2], ("u", op[1], op[2], op[3]))
        elif k == "wait":
            wait_flag(op[1], op[2], ("u", op[1], op[2], op[3]))
        elif k == "barrier":
            node(PIPES if op[1] == "PIPE_ALL" else (op[1],), barrier=True)
        else:
            accs = {"in": [("PIPE_MTE2", op[1], True)], "out": [("PIPE_MTE3", op[1], False)],
                    "adds": [("PIPE_V", op[1], False), ("PIPE_V", op[2], True)],
                    "get": [("PIPE_S", op[1], False)], "sv": [("PIPE_S", op[1], True)]}[k]
            pipe = accs[0][0]
            n = node((pipe,))
            access_node.append(n)
            access_pipe.append(pipe)
            regs = (0,) if k in ("get", "sv") else (0, 1)
            for write in (False, True):
                for _, tile, w in accs:
                    if w != write:
                        continue
                    for r in regs:
                        st = st_of((tile, r))
                        lw = st["w"] if st["w"] is not None and st["w"] > st["h"] else None
                        if lw is not None:
                            same = access_pipe[lw] == pipe
                            kind = "WAW" if write else "RAW"
                            strict_same = strict and same and (pipe == "PIPE_V" if kind == "RAW"
                                                               else pipe in ("PIPE_MTE2", "PIPE_MTE3"))
                            if (not same and access_node[lw] not in anc[n]) or \
                                    (strict_same and access_node[lw] not in anc_sync[n]):
                                expected.add((idx, lw, kind))
                        if write:
                            for qp, rd in st["reads"].items():
                                if qp in (pipe, "PIPE_S") or rd <= st["h"]:
                                    continue
                                if access_node[rd] not in anc[n]:
                                    expected.add((idx, rd, "WAR"))
            for _, tile, w in accs:
                for r in regs:
                    st = st_of((tile, r))
                    if w:
                        st["w"], st["reads"] = idx, {}
                    else:
                        st["reads"][pipe] = idx
            idx += 1
    return expected


MODES = [(False, False), (True, False), (False, True), (True, True)]


@pytest.mark.parametrize("strict,device_sync", MODES, ids=["default", "strict", "device-sync", "strict+device-sync"])
def test_sanitizer_random_programs_match_happens_before_model(strict, device_sync):
    rng = random.Random(390 + 2 * strict + device_sync)
    mismatches = []
    for trial in range(240):
        prog = _random_program(rng, rng.randrange(10, 45), flag_weight=1.0 if trial % 2 else 1.9)
        got = _run_program(prog, strict, device_sync)
        want = _model(prog, strict, device_sync)
        if got != want:
            mismatches.append((trial, prog, sorted(got - want), sorted(want - got)))
    assert not mismatches, mismatches[:2]


def _dsync_kernel(core, scalar_pipe_first):
    alloc = aj.LocalMemAllocator()
    t = alloc.Alloc("float", 16)
    g = aj.GlobalTensor("float")
    g.SetGlobalBuffer(np.ones(16, np.float32))
    y = aj.GlobalTensor("float")
    y.SetGlobalBuffer(np.zeros(16, np.float32))
    if scalar_pipe_first:
        aj.DataCopy(t, g, 16)                       # 0 MTE2 write
        aj.DataCopy(y, t, 16)                       # 1 MTE3 read (S knows nothing of it)
    aj.Duplicate(t, np.float32(1), 16)              # V write
    aj.SetFlag(0, event=aj.HardEvent.V_S)
    aj.WaitFlag(0, event=aj.HardEvent.V_S)
    t.GetValue(3)
    aj.DataCopy(t, g, 16)                           # MTE2 write after the scalar wait


def _kinds(core):
    return sorted((r.kind, r.earlier.pipe, r.instruction.pipe) for r in core.sanitizer.reports)


def test_device_sync_scalar_wait_orders_later_instructions_only_after_what_s_knows():
    """decisions.md "The device's synchronisation": a WaitFlag into PIPE_S orders every later instruction
    (default / strict: SPEC-2 10.4 orders only PIPE_S). What the scalar unit had not waited for stays unordered."""
    for mode, want in (("report", [("WAW", "PIPE_V", "PIPE_MTE2")]), ("strict,report", [("WAW", "PIPE_V", "PIPE_MTE2")]),
                       ("device-sync,report", []), ("strict,device-sync,report", [])):
        with aj.Core(A2, sanitize=mode) as core:
            _dsync_kernel(core, False)
        assert _kinds(core) == want, mode
    base = [("RAW", "PIPE_MTE2", "PIPE_MTE3"), ("WAR", "PIPE_MTE3", "PIPE_V"), ("WAW", "PIPE_MTE2", "PIPE_V")]
    for mode, want in (("report", sorted(base + [("WAW", "PIPE_V", "PIPE_MTE2")])), ("device-sync,report", base)):
        with aj.Core(A2, sanitize=mode) as core:
            _dsync_kernel(core, True)
        assert _kinds(core) == want, mode   # the copy-out the scalar unit never waited for stays unordered


def test_a_pair_only_a_scalar_wait_orders_names_device_sync_in_its_fix():
    """A cross-pipe pair that a scalar WaitFlag between them orders on the device (the scalar unit issues the later
    access after its wait returned), though SPEC-2 10.4 reports it, says so and names 'device-sync' (port52c: a
    vector read, V_S, then a DataCopy over the bytes); a pair "device-sync" reports too does not."""
    for scalar_pipe_first in (False, True):
        reports = {}
        for mode in ("report", "device-sync,report"):
            with aj.Core(A2, sanitize=mode) as core:
                _dsync_kernel(core, scalar_pipe_first)
            reports[mode] = {(r.kind, r.earlier.pipe, r.instruction.pipe): r.fix for r in core.sanitizer.reports}
        assert reports["report"]
        for key, fix in reports["report"].items():
            assert ("'device-sync'" in fix) == (key not in reports["device-sync,report"]), (key, fix)
    hinted = 0
    rng = random.Random(5252)
    for trial in range(120):   # queues too: there "device-sync" may order more (the device's events), never less
        prog = _random_program(rng, rng.randrange(10, 45), flag_weight=1.0 if trial % 2 else 1.9)
        for strict in (False, True):
            device = _run_program(prog, strict, True)
            for key, fix in _run_program(prog, strict, False, fixes=True).items():
                if "'device-sync'" in fix:
                    hinted += 1
                    assert key not in device, (trial, prog, key)
    assert hinted


def _queue_covers_another_tensor(core, by_free, copy_after_enque=False):
    """Two copies in on the in-order MTE2 pipe, the second into a VECIN queue's tensor; that queue's hand-off (its
    EnQue/DeQue, or with `by_free` a FreeTensor/AllocTensor of its buffer) stands between the first copy and the Add
    that reads it: port53a's t_q. With `copy_after_enque` the first copy comes after the EnQue instead."""
    g = aj.GlobalTensor("half")
    g.SetGlobalBuffer(np.ones(256, np.float16))
    pipe, plain, que = aj.TPipe(), aj.TBuf(), aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(plain, 256)
    pipe.InitBuffer(que, 1, 256)
    a = plain.Get("half")
    if not copy_after_enque:
        aj.DataCopy(a, g, 128)                      # MTE2 into a plain TBuf tensor
    b = que.AllocTensor("half")
    aj.DataCopy(b, g[128], 128)                     # MTE2 into the queue's tensor
    if by_free:
        aj.PipeBarrier(aj.PIPE_ALL)
        aj.Add(a, a, a, 128)                        # V
        que.FreeTensor(b)                           # the device: SetFlag V_MTE2 after the Add ...
        b = que.AllocTensor("half")                 # ... WaitFlag V_MTE2
        aj.DataCopy(a, g, 128)                      # MTE2 over the Add's bytes
    else:
        que.EnQue(b)                                # the device: SetFlag/WaitFlag MTE2_V after both copies
        if copy_after_enque:
            aj.DataCopy(a, g, 128)                  # after the EnQue's SetFlag
        b = que.DeQue("half")
        aj.Add(b, a, b, 128)                        # reads a


def test_a_copy_after_the_enque_gets_no_device_sync_note():
    """The negative of the next test: a copy issued after the EnQue is after the device's SetFlag too, so the
    hand-off orders it on the device neither; the report (in both modes) names no 'device-sync'."""
    for mode in ("report", "device-sync,report"):
        with aj.Core(A2, sanitize=mode) as core:
            _queue_covers_another_tensor(core, False, copy_after_enque=True)
        (report,) = core.sanitizer.reports
        assert (report.kind, report.earlier.pipe, report.instruction.pipe) == ("RAW", "PIPE_MTE2", "PIPE_V"), mode
        assert "'device-sync'" not in report.fix, (mode, report.fix)


@pytest.mark.parametrize("by_free", [False, True], ids=["EnQue-DeQue", "FreeTensor-AllocTensor"])
def test_a_queue_hand_off_that_orders_another_tensor_on_the_device_names_device_sync_in_the_fix(by_free):
    """SPEC-2 10.4: a TQue hand-off orders its own tensor's bytes, so an earlier copy into another tensor stays
    unordered with a later access; on the device the hand-off is its event's SetFlag/WaitFlag (pipe.py
    _queue_pipes), which orders every earlier access of the source pipe, and "device-sync" accepts it. The default
    report says so and names 'device-sync' in its fix."""
    fixes = {}
    for mode in ("report", "device-sync,report"):
        with aj.Core(A2, sanitize=mode) as core:
            _queue_covers_another_tensor(core, by_free)
        fixes[mode] = [(r.kind, r.earlier.pipe, r.instruction.pipe, r.fix) for r in core.sanitizer.reports]
    assert fixes["device-sync,report"] == []
    event = "V_MTE2" if by_free else "MTE2_V"
    calls = "FreeTensor/AllocTensor" if by_free else "EnQue/DeQue"
    (kind, earlier, later, fix), = fixes["report"]
    assert (kind, earlier, later) == (("WAW", "PIPE_V", "PIPE_MTE2") if by_free else ("RAW", "PIPE_MTE2", "PIPE_V"))
    assert f"the TQue {calls} between them is SetFlag/WaitFlag {event} on the device" in fix, fix
    assert "sanitize with 'device-sync' to accept it" in fix, fix


# --- GlobalTensor.GetValue: every index form, in a process that never sanitized (the fast path) and after ----------

_GETVALUE_SCRIPT = r'''
import json, sys
import numpy as np
import ascend_jit as aj
phase = sys.argv[1]
if phase == "after":
    with aj.Core("atlas-a2", sanitize="report"):
        pass
out = []
host = np.arange(10, dtype=np.float32) * 1.5
def probe(label, fn):
    try:
        v = fn()
        out.append([label, "ok", type(v).__name__, float(v)])
    except aj.AscendJitError as e:
        out.append([label, type(e).__name__, str(e)[:300]])
    except Exception as e:
        out.append([label, "FOREIGN " + type(e).__name__, str(e)[:300]])
with aj.Core("atlas-a2"):
    g = aj.GlobalTensor("float"); g.SetGlobalBuffer(host)
    for i in (0, 9, np.int64(3), np.uint32(4), np.int8(2), True, False, -1, 10, 2 ** 64, 2.0, None, "1"):
        probe(f"g[{int(i) if isinstance(i, np.integer) else i!r}]", lambda i=i: g.GetValue(i))
    s = g[4]
    for i in (0, 5, 6, -1):
        probe(f"g[4].GetValue({i})", lambda i=i: s.GetValue(i))
    w = g[2:5]
    for i in (0, 2, 3):
        probe(f"g[2:5].GetValue({i})", lambda i=i: w.GetValue(i))
    probe("g(7)", lambda: g(7))
    h = aj.GlobalTensor("float"); h.SetGlobalBuffer(host, 3)
    probe("sized.GetValue(3)", lambda: h.GetValue(3))
    probe("sized.GetValue(2)", lambda: h.GetValue(2))
    n = aj.GlobalTensor("float")
    probe("nobuf.GetValue(0)", lambda: n.GetValue(0))
    g.SetValue(1, 100.0)
    probe("after SetValue", lambda: g.GetValue(1))
    u = aj.GlobalTensor("uint16"); u.SetGlobalBuffer(host)   # the float bytes as uint16 (C++'s cast)
    probe("u16.GetValue(1)", lambda: u.GetValue(1))
    gg = aj.GlobalTensor("float"); gg.SetGlobalBuffer(host.copy()); gg.array = None
    probe("array=None", lambda: gg.GetValue(0))
with aj.Core("ascend950"):
    c = g[1].ReinterpretCast("uint16")
    probe("cast.GetValue(1)", lambda: c.GetValue(1))
    probe("cast.GetValue(18)", lambda: c.GetValue(18))
def kernel(x, sync):
    gt = aj.GlobalTensor("float"); gt.SetGlobalBuffer(x)
    if aj.GetBlockIdx() == 0:
        gt.SetValue(3, 2.0)
    if sync:
        aj.SyncAll()
    if aj.GetBlockIdx() == 1:
        gt.GetValue(3)
blocks = []
for sync in (False, True):
    with aj.sanitize_session("blocks,report") as session:
        aj.launch(kernel, 2, "atlas-a2", np.zeros(8, np.float32), sync)
    blocks.append([(r.check, r.block, r.instruction.api, r.address, r.nbytes) for r in session.reports])
print(json.dumps({"probes": out, "blocks": blocks}))
'''


def _getvalue_expectations():
    host = np.arange(10, dtype=np.float32) * 1.5
    ok = lambda v: ["ok", "float32", float(v)]
    host1 = host.copy(); host1[1] = 100.0
    return {
        "g[0]": ok(0), "g[9]": ok(13.5), "g[3]": ok(4.5), "g[4]": ok(6.0), "g[2]": ok(3.0),
        "g[True]": "ParameterError", "g[False]": "ParameterError", "g[-1]": "OutOfBoundsError",
        "g[10]": "OutOfBoundsError", f"g[{2 ** 64}]": "OutOfBoundsError", "g[2.0]": "ParameterError",
        "g[None]": "ParameterError", "g['1']": "ParameterError",
        "g[4].GetValue(0)": ok(6.0), "g[4].GetValue(5)": ok(13.5), "g[4].GetValue(6)": "OutOfBoundsError",
        "g[4].GetValue(-1)": "OutOfBoundsError", "g[2:5].GetValue(0)": ok(3.0), "g[2:5].GetValue(2)": ok(6.0),
        "g[2:5].GetValue(3)": "OutOfBoundsError", "g(7)": ok(10.5), "sized.GetValue(3)": "OutOfBoundsError",
        "sized.GetValue(2)": ok(3.0), "nobuf.GetValue(0)": "StateError", "after SetValue": ok(100.0),
        "u16.GetValue(1)": ["ok", "uint16", float(host1.view(np.uint16)[1])], "array=None": "StateError",
        "cast.GetValue(1)": ["ok", "uint16", float(host1[1:].view(np.uint16)[1])],
        "cast.GetValue(18)": "OutOfBoundsError",
    }


@pytest.mark.parametrize("phase", ["fast", "after"])
def test_global_getvalue_index_forms(phase):
    import json
    import os
    import subprocess
    import sys
    env = dict(os.environ)
    env.pop("ASCEND_JIT_SANITIZE", None)
    res = subprocess.run([sys.executable, "-c", _GETVALUE_SCRIPT, phase], capture_output=True, text=True, env=env,
                         timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    data = json.loads(res.stdout.strip().splitlines()[-1])
    want = _getvalue_expectations()
    got = {p[0]: (p[1:] if p[1] == "ok" else p[1]) for p in data["probes"]}
    assert set(got) == set(want)
    bad = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
    assert not bad, bad
    for p in data["probes"]:
        if p[1] != "ok":   # a refusal names the API and the index parameter
            assert "GetValue" in p[2] and "index" in p[2] or p[1] == "StateError", p
    assert [list(map(tuple, b)) for b in data["blocks"]] == [[("blocks", 1, "GetValue", 12, 4)], []]


# --- the CCE intrinsics, the 950's UB queries, LocalTensor's positional dtype, the core-type macros ---------------

def test_intrinsic_flags_are_the_hardevent_flags_both_ways():
    with aj.Core(A2) as core:
        aj.set_flag(aj.PIPE_V, aj.PIPE_MTE3, aj.EVENT_ID2)
        assert [(int(s), int(d), i) for s, d, i in core.pending_flags()] == [(int(aj.PIPE_V), int(aj.PIPE_MTE3), 2)]
        with pytest.raises(aj.StateError):            # D62: a second SetFlag on a set flag, any spelling
            aj.SetFlag(2, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(2, event=aj.HardEvent.V_MTE3)
        assert core.pending_flags() == []
        aj.SetFlag(5, event=aj.HardEvent.MTE2_S)
        aj.wait_flag(aj.PIPE_MTE2, aj.PIPE_S, 5)
        aj.TQueSync(aj.PIPE_S, aj.PIPE_V).SetFlag(1)
        aj.wait_flag(aj.PIPE_S, aj.PIPE_V, 1)
        assert core.pending_flags() == []
        with pytest.raises(aj.StateError, match="wait_flag"):
            aj.wait_flag(aj.PIPE_V, aj.PIPE_S, 0)
        for bad in ((aj.PIPE_ALL, aj.PIPE_V, 0), (aj.PIPE_V, aj.PIPE_ALL, 0), (aj.PIPE_V, aj.PIPE_S, 8),
                    (aj.PIPE_V, aj.PIPE_S, -1), (aj.PIPE_V, aj.PIPE_S, True), ("PIPE_V", aj.PIPE_S, 0)):
            for fn, name in ((aj.set_flag, "set_flag"), (aj.wait_flag, "wait_flag")):
                with pytest.raises(aj.ParameterError) as e:
                    fn(*bad)
                assert str(e.value).startswith(name) and "atlas-a2" in str(e.value) and "legal" in str(e.value)
                assert core.pending_flags() == []
        aj.pipe_barrier(aj.PIPE_ALL)
        aj.pipe_barrier(aj.PIPE_V)


def test_intrinsic_flag_left_set_fails_the_launch():
    def kernel(x):
        aj.set_flag(aj.PIPE_MTE2, aj.PIPE_V, 3)
    with pytest.raises(aj.StateError, match="MTE2_V|PIPE_MTE2"):
        aj.launch(kernel, 1, A2, np.zeros(8, np.float32))


def test_intrinsics_on_the_devices_tquesync_runs_on():
    """decisions.md: the intrinsics run on every device TQueSync runs on (the 310B too, where SetFlag<HardEvent> is
    refused); the 910's ids are 0..3 (SPEC-2 10.1)."""
    for device, top in (("atlas-200i-500-a2", 7), ("atlas-inference-aicore", 7), ("atlas-training", 3), (A950, 7)):
        with aj.Core(device) as core:
            aj.set_flag(aj.PIPE_V, aj.PIPE_MTE3, top)
            aj.wait_flag(aj.PIPE_V, aj.PIPE_MTE3, top)
            with pytest.raises(aj.ParameterError, match=r"\[0, %d\]" % top):
                aj.set_flag(aj.PIPE_V, aj.PIPE_MTE3, top + 1)
            assert core.pending_flags() == []


def test_pipe_barrier_refusal_names_the_intrinsic():
    with aj.Core(A2):
        with pytest.raises(aj.ParameterError) as e:
            aj.pipe_barrier(aj.PIPE_S)
        assert str(e.value).startswith("pipe_barrier")


def test_pipe_barrier_refuses_pipe_s_per_d62():
    with aj.Core(A2) as core:
        for bad in (aj.PIPE_S, "PIPE_V", None):
            with pytest.raises(aj.ParameterError) as e:
                aj.pipe_barrier(bad)
            assert "pipe" in str(e.value) and "atlas-a2" in str(e.value)
        assert core.pending_flags() == []


def test_ub_size_queries_950_only():
    with aj.Core(A950):
        assert aj.GetUBSizeInBytes() == aj.GetRuntimeUBSize() == 253952 == aj.get_device(A950).ub_bytes
    for device in (A2, "atlas-a3", "atlas-200i-500-a2", "atlas-inference-aicore", "atlas-training"):
        with aj.Core(device):
            for fn in (aj.GetUBSizeInBytes, aj.GetRuntimeUBSize):
                with pytest.raises(aj.UnsupportedDeviceError) as e:
                    fn()
                assert str(e.value).startswith(fn.__name__) and device in str(e.value) and "ascend950" in str(e.value)
    with pytest.raises(aj.AscendJitError):
        aj.GetUBSizeInBytes()     # no current core


def test_local_tensor_dtype_positional():
    with aj.Core(A2) as core:
        a = aj.LocalTensor(aj.TPosition.VECCALC, 256, 64, "half")
        b = aj.LocalTensor(aj.TPosition.VECCALC, 256, 64, dtype="half")
        c = aj.LocalTensor(aj.TPosition.VECCALC, 256, 64, np.float16)
        for t in (a, b, c):
            assert (t.addr if hasattr(t, "addr") else t.GetPhyAddr(), t.GetSize(), str(t.dtype)) == \
                (256, 64, str(b.dtype))
        a.SetValue(3, 1.5)
        assert float(b.GetValue(3)) == 1.5
        ub = core.ub.copy()
        for args, kw in (((aj.TPosition.VECCALC, 256, 64, "half", "float"), {}),
                         ((aj.TPosition.VECCALC, 256, 64, "half"), {"dtype": "float"}),
                         ((aj.TPosition.VECCALC, 256, 64, "halff"), {}),
                         ((aj.TPosition.VECCALC, 256, 64), {}),
                         ((aj.TPosition.VECCALC, 1 << 20, 64, "half"), {}),
                         ((aj.TPosition.VECCALC, 256, 64, True), {})):
            with pytest.raises(aj.AscendJitError) as e:
                aj.LocalTensor(*args, **kw)
            assert "LocalTensor" in str(e.value) and "atlas-a2" in str(e.value), str(e.value)
        assert np.array_equal(core.ub, ub)


@pytest.mark.parametrize("device, aiv", [(A950, True), ("atlas-a3", True), (A2, True), ("atlas-200i-500-a2", False),
                                         ("atlas-inference-aicore", False), ("atlas-training", False)])
def test_core_type_macros_bool_and_call(device, aiv):
    with aj.Core(device):
        assert bool(aj.ASCEND_IS_AIV) is aiv and aj.ASCEND_IS_AIV() is aiv
        assert bool(aj.ASCEND_IS_AIC) is False and aj.ASCEND_IS_AIC() is False
        assert (not aj.ASCEND_IS_AIV) is (not aiv)
        ran = []

        def body():
            if aj.ASCEND_IS_AIC:
                return
            ran.append(1)
        body()
        assert ran == [1]

    def kernel(y):
        if aj.ASCEND_IS_AIC:
            return
        g = aj.GlobalTensor("float")
        g.SetGlobalBuffer(y)
        g.SetValue(aj.GetBlockIdx(), 1.0 if aj.ASCEND_IS_AIV else 2.0)
    y = np.zeros(8, np.float32)
    aj.launch(kernel, 2, device, y)
    assert y[:2].tolist() == [1.0 if aiv else 2.0] * 2


def test_core_type_macros_outside_a_core_and_on_the_vector_core():
    with pytest.raises(aj.AscendJitError):
        bool(aj.ASCEND_IS_AIV)
    with aj.Core("atlas-inference-vectorcore"):
        with pytest.raises(aj.UnsupportedDeviceError):
            bool(aj.ASCEND_IS_AIC)


@pytest.mark.parametrize("name", ["Interleave", "DeInterleave", "SetCmpMask", "GetCmpMask", "CastDequant",
                                  "SetDeqScale", "MulAddRelu", "Neg", "Subs", "Divs", "SetLoopModePara",
                                  "CrossCoreSetFlag", "CrossCoreWaitFlag", "Prelu"])
def test_not_offered_names_on_aj(name):
    with pytest.raises(aj.NotOfferedError) as e:
        getattr(aj, name)
    assert isinstance(e.value, aj.AscendJitError) and isinstance(e.value, AttributeError)
    assert name in str(e.value) and "not offered" in str(e.value)
    assert not hasattr(aj, name)
    with pytest.raises(ImportError):
        exec(f"from ascend_jit import {name}", {})


def test_missing_names_stay_attribute_errors():
    for mod in (aj, aj.Reg):
        with pytest.raises(AttributeError) as e:
            getattr(mod, "NoSuchThing39")
        assert type(e.value) is AttributeError
    assert callable(aj.Reg.Interleave)     # the Reg register op of that name is offered


# --- refusals: AscendJitError naming API, parameter, value, legal range and device; nothing changed -------------

def _refusal_state(core, gms):
    return (core.ub.copy(), [np.asarray(g.array).copy() for g in gms], list(core.pending_flags()),
            (core.mask_high, core.mask_low))


def _assert_refusal(core, gms, fn, exc, api, param, value, device=A2, extra=()):
    before = _refusal_state(core, gms)
    with pytest.raises(exc) as e:
        fn()
    text = str(e.value)
    assert isinstance(e.value, aj.AscendJitError)
    assert text.startswith(api), text
    assert f"'{param}'" in text and value in text and "legal" in text and device in text, text
    for want in extra:
        assert want in text, (want, text)
    after = _refusal_state(core, gms)
    assert np.array_equal(before[0], after[0]) and all(np.array_equal(a, b) for a, b in zip(before[1], after[1]))
    assert before[2:] == after[2:]
    return text


def _setup(core):
    d, a, b = (core.local_tensor("float", 64) for _ in range(3))
    for t in (d, a, b):
        t[:] = np.arange(64, dtype=np.float32)
    g = aj.GlobalTensor("float")
    g.SetGlobalBuffer(np.arange(4096, dtype=np.float32))
    m8 = core.local_tensor("int8", 32)
    m8[:] = np.zeros(32, np.int8)
    return d, a, b, g, m8


@pytest.mark.parametrize("api", ["Add", "Adds", "Duplicate", "Exp", "ReduceSum", "Mul", "Abs"])
def test_template_dtype_written_first(api):
    with aj.Core(A2) as core:
        d, a, b, g, m8 = _setup(core)
        args = {"Add": (d, a, b, 64), "Mul": (d, a, b, 64), "Adds": (d, a, 1.0, 64), "Duplicate": (d, 1.0, 64),
                "Exp": (d, a, 64), "Abs": (d, a, 64), "ReduceSum": (d, a, b, 64)}[api]
        _assert_refusal(core, [g], lambda: getattr(aj, api)("float", *args), aj.ParameterError, api, "dst", "float",
                        extra=(f"{api}<float>(dst, ...)", f"aj.{api}(dst, ...)"))


@pytest.mark.parametrize("api", ["Cast", "Compares", "Select", "DataCopy", "DataCopyPad"])
def test_template_dtype_written_first_other_apis(api):
    with aj.Core(A2) as core:
        d, a, b, g, m8 = _setup(core)
        u8 = m8.ReinterpretCast("uint8")
        args = {"Cast": (d, a, aj.RoundMode.CAST_NONE, 64), "Compares": (u8, a, 1.0, aj.CMPMODE.EQ, 64),
                "Select": (d, u8, a, 1.0, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 64), "DataCopy": (d, g, 64),
                "DataCopyPad": (d, g, aj.DataCopyExtParams(1, 32, 0, 0, 0), aj.DataCopyPadExtParams(False, 0, 0, 0))
                }[api]
        before = _refusal_state(core, [g])
        with pytest.raises(aj.AscendJitError) as e:
            getattr(aj, api)("float", *args)
        assert "'float'" in str(e.value) and f"aj.{api}(" in str(e.value), str(e.value)
        assert np.array_equal(before[0], core.ub)


def test_brace_sets_are_named():
    with aj.Core(A2) as core:
        d, a, b, g, m8 = _setup(core)
        hint = "a Python set"
        _assert_refusal(core, [g], lambda: aj.Add(d, a, b, 64, 1, {1, 1, 1, 8, 8, 8}), aj.ParameterError, "Add",
                        "repeat_params", "{", extra=(hint, "tuple"))
        _assert_refusal(core, [g], lambda: aj.DataCopyPad(d, g, {1, 32, 0, 0}, {False, 0, 0, 0}), aj.ParameterError,
                        "DataCopyPad", "copy_params", "{", extra=(hint,))
        _assert_refusal(core, [g], lambda: aj.DataCopyPad(d, g, aj.DataCopyExtParams(1, 32, 0, 0, 0),
                                                          {False, 0, 0, 0}),
                        aj.ParameterError, "DataCopyPad", "pad_params", "{False}", extra=(hint,))
        _assert_refusal(core, [g], lambda: aj.DataCopyPad(d, g, aj.DataCopyParams(1, 32, 0, 0), {False, 0, 0, 0}),
                        aj.ParameterError, "DataCopyPad", "copy_params, pad_params", "set", extra=(hint,))
        _assert_refusal(core, [g], lambda: aj.DataCopy(d, g, {1, 2, 0, 0}), aj.ParameterError, "DataCopy", "count",
                        "{", extra=(hint,))
        _assert_refusal(core, [g], lambda: aj.DataCopy(g, d, {1, 2, 0, 0}), aj.ParameterError, "DataCopy", "count",
                        "{", extra=(hint,))


@pytest.mark.parametrize("field, value", [("blockLen", 65536), ("blockLen", 70000), ("srcStride", 65536),
                                          ("srcStride", 94976), ("dstStride", 2 ** 20 + 5), ("blockLen", 2 ** 40 + 3)])
@pytest.mark.parametrize("direction", ["in", "out", "pad_in"])
def test_uint16_fields_past_65535(field, value, direction):
    with aj.Core(A2) as core:
        d, a, b, g, m8 = _setup(core)
        kw = {"blockCount": 1, "blockLen": 1, "srcStride": 0, "dstStride": 0}
        kw[field] = value
        p = aj.DataCopyParams(kw["blockCount"], kw["blockLen"], kw["srcStride"], kw["dstStride"])
        fn = {"in": lambda: aj.DataCopy(d, g, p), "out": lambda: aj.DataCopy(g, d, p),
              "pad_in": lambda: aj.DataCopyPad(d, g, p, aj.DataCopyPadParams(False, 0, 0, 0))}[direction]
        api = "DataCopyPad" if direction == "pad_in" else "DataCopy"
        param = f"DataCopyParams.{field}" if direction == "pad_in" else field
        lo = 1 if field == "blockLen" and direction != "pad_in" else 0
        _assert_refusal(core, [g], fn, aj.ParameterError, api, param, str(value),
                        extra=(f"C++ would store {value & 0xFFFF}", f"[{lo}, 65535]"))
        for ok in (65535, np.uint16(65535)):   # the edge itself is legal (a run past the UB is another refusal)
            kw2 = dict(kw)
            kw2[field] = ok
            p2 = aj.DataCopyParams(kw2["blockCount"], kw2["blockLen"], kw2["srcStride"], kw2["dstStride"])
            try:
                aj.DataCopy(d, g, p2)
            except aj.AscendJitError as e:
                assert "uint16" not in str(e) and "65535]" not in str(e), str(e)


def test_select_int8_mask_and_set_vector_mask_trailing_dtype():
    with aj.Core(A2) as core:
        d, a, b, g, m8 = _setup(core)
        _assert_refusal(core, [g], lambda: aj.Select(d, m8, a, 1.0, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 64),
                        aj.UnsupportedDTypeError, "Select", "sel_mask.dtype", "int8",
                        extra=("ReinterpretCast('uint8')", "uint8, uint16, uint32 or uint64"))
        aj.SetVectorMask(0, 0xFFFF)
        for args, param in (((128, "half"), "maskLow"), ((0, 128, "half"), "maskLow"), (("half", 128), "len"),
                            (("half", 0, 128), "maskHigh"), (("half",), "len"), ((64, "float"), "maskLow")):
            _assert_refusal(core, [g], lambda: aj.SetVectorMask(*args), aj.ParameterError, "SetVectorMask", param,
                            repr(args[0] if isinstance(args[0], str) else args[-1]), extra=("dtype=",))
        assert (core.mask_high, core.mask_low) == (0, 0xFFFF)


def test_reg_cast_trait_refusal_names_members_plain_and_compiled():
    R = aj.Reg

    def vf(dst, src):
        a, h = R.RegTensor("int16"), R.RegTensor("half")
        m = R.CreateMask("int16")
        R.LoadAlign(a, src)
        R.Cast(h, a, m, R.CastTrait(R.RegLayout.UNKNOWN, R.SatMode.NO_SAT, R.MaskMergeMode.ZEROING,
                                    aj.RoundMode.CAST_RINT))
        R.StoreAlign(dst, h, m)
    with aj.Core(A950) as core:
        src = core.local_tensor("int16", 128)
        src[:] = np.arange(128, dtype=np.int16)
        dst = core.local_tensor("half", 128)
        dst[:] = np.full(128, 7, np.float16)
        for run in (vf, R.simd_vf(vf)):
            before = core.ub.copy()
            with warnings.catch_warnings():
                warnings.simplefilter("error", aj.UncompiledVFWarning)
                with pytest.raises(aj.ParameterError) as e:
                    run(dst, src)
            text = str(e.value)
            assert text.startswith("Cast") and "'trait.satMode' = 'SatMode.NO_SAT'" in text, text
            assert "SatMode.UNKNOWN" in text and "ascend950" in text and "legal" in text
            assert np.array_equal(core.ub, before)


# --- Reg VFs: DivSpecificMode / CastTrait with trailing fields left out -------------------------------------------

R = aj.Reg
_ZE, _ME = R.MaskMergeMode.ZEROING, R.MaskMergeMode.MERGING
# each VF is made from source (the struct written inline, as a port writes it): numba compiles the call itself
DIV_FORMS = [  # (short form, the same struct written in full)
    ("R.DivSpecificMode()", "R.DivSpecificMode(_ZE, False, aj.DivAlgo.INTRINSIC)"),
    ("R.DivSpecificMode(_ZE)", "R.DivSpecificMode(_ZE, False, aj.DivAlgo.INTRINSIC)"),
    ("R.DivSpecificMode(_ZE, True)", "R.DivSpecificMode(_ZE, True, aj.DivAlgo.INTRINSIC)"),
    ("R.DivSpecificMode(_ZE, False, aj.DivAlgo.PRECISION_0ULP_FTZ_FALSE)",
     "R.DivSpecificMode(_ZE, False, aj.DivAlgo.PRECISION_0ULP_FTZ_FALSE)"),
]


def test_div_specific_mode_merging_short_form_is_refused_compiled_and_plain():
    """Div is ZEROING only (DK RegMerge table 2): `DivSpecificMode(_ME)` with its trailing fields left out is refused
    by the compiled VF as by plain Python, nothing written (review 57: the short forms had lost their MERGING case)."""
    vf = _make_div_vf("R.DivSpecificMode(_ME)")
    with aj.Core(A950) as core:
        xs, ys, prev, dst = _div_inputs(core)
        before = core.ub.copy()
        for run in (vf, R.simd_vf(vf)):
            with pytest.raises(aj.ParameterError, match="Div: parameter 'mode.mrgMode' = 'MERGING'"):
                run(dst, xs, ys, prev)
        assert np.array_equal(core.ub, before)


def _div_inputs(core):
    rng = np.random.default_rng(39)
    x = rng.standard_normal(64).astype(np.float32) * np.float32(1e3)
    y = rng.standard_normal(64).astype(np.float32)
    x[:6] = [0.0, 1.0, np.inf, np.nan, 1e-40, -3.0]
    y[:6] = [0.0, 0.0, 2.0, 1.0, 3.0, 1e-39]
    ts = [core.local_tensor("float", 64) for _ in range(4)]
    ts[0][:] = x
    ts[1][:] = y
    ts[2][:] = np.full(64, 9.0, np.float32)   # the dst register's previous lanes (ZEROING clears them)
    return ts


def _vf_from_source(body, **names):
    scope = {"R": R, "aj": aj, "np": np, "_ZE": _ZE, "_ME": _ME, **names}
    exec(body, scope)
    return scope["vf"]


def _make_div_vf(expr):
    return _vf_from_source(f"""
def vf(dst, xs, ys, prev):
    a, b, o = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    m, n = R.UpdateMask("float", 37)
    R.LoadAlign(a, xs)
    R.LoadAlign(b, ys)
    R.LoadAlign(o, prev)
    R.Div(o, a, b, m, {expr})
    R.StoreAlign(dst, o, R.CreateMask("float"))
""")


@pytest.mark.parametrize("k", range(len(DIV_FORMS)))
def test_div_specific_mode_short_forms_compile_with_full_form_bits(k):
    short, full = DIV_FORMS[k]
    short_vf, full_vf = _make_div_vf(short), _make_div_vf(full)
    with aj.Core(A950) as core:
        xs, ys, prev, dst = _div_inputs(core)
        results = []
        for fn in (full_vf, short_vf):
            dst[:] = np.zeros(64, np.float32)
            fn(dst, xs, ys, prev)                              # plain Python
            results.append(dst.numpy().view(np.uint32).copy())
        with warnings.catch_warnings():
            warnings.simplefilter("error", aj.UncompiledVFWarning)
            for fn in (short_vf, full_vf):
                dst[:] = np.zeros(64, np.float32)
                R.simd_vf(fn)(dst, xs, ys, prev)
                results.append(dst.numpy().view(np.uint32).copy())
    assert all(np.array_equal(results[0], r) for r in results[1:])
    assert (results[0][37:] == 0).all()   # ZEROING, Div's only mode (DK RegMerge table 2)


@pytest.mark.parametrize("expr", ["R.DivSpecificMode(precisionMode=True)",
                                  "R.DivSpecificMode(algo=aj.DivAlgo.INTRINSIC)",
                                  "R.DivSpecificMode(_ZE, algo=aj.DivAlgo.INTRINSIC)"])
def test_div_specific_mode_keyword_after_skipped_field_falls_back(expr):
    vf = _make_div_vf(expr)
    with aj.Core(A950) as core:
        xs, ys, prev, dst = _div_inputs(core)
        vf(dst, xs, ys, prev)
        want = dst.numpy().view(np.uint32).copy()
        dst[:] = np.zeros(64, np.float32)
        with pytest.warns(aj.UncompiledVFWarning) as record:
            R.simd_vf(vf)(dst, xs, ys, prev)
        assert any("fields in order" in str(w.message) for w in record), [str(w.message) for w in record]
        assert np.array_equal(dst.numpy().view(np.uint32), want)


CAST_FORMS = [  # (src dtype, short form, full form)
    ("half", "R.CastTrait(R.RegLayout.ZERO)",
     "R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.UNKNOWN, aj.RoundMode.UNKNOWN)"),
    ("half", "R.CastTrait(R.RegLayout.ONE, R.SatMode.UNKNOWN)",
     "R.CastTrait(R.RegLayout.ONE, R.SatMode.UNKNOWN, R.MaskMergeMode.UNKNOWN, aj.RoundMode.UNKNOWN)"),
    ("bfloat16", "R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, _ZE)",
     "R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, _ZE, aj.RoundMode.UNKNOWN)"),
    ("bfloat16", "R.CastTrait(R.RegLayout.ONE)",
     "R.CastTrait(R.RegLayout.ONE, R.SatMode.UNKNOWN, R.MaskMergeMode.UNKNOWN, aj.RoundMode.UNKNOWN)"),
]


def _make_cast_vf(src_dtype, expr):
    return _vf_from_source(f"""
def vf(dst, src, prev):
    a, f = R.RegTensor("{src_dtype}"), R.RegTensor("float")
    m, n = R.UpdateMask("float", 45)
    R.LoadAlign(a, src)
    R.LoadAlign(f, prev)
    R.Cast(f, a, m, {expr})
    R.StoreAlign(dst, f, R.CreateMask("float"))
""")


@pytest.mark.parametrize("k", range(len(CAST_FORMS)))
def test_cast_trait_short_forms_compile_with_full_form_bits(k):
    src_dtype, short, full = CAST_FORMS[k]
    short_vf, full_vf = _make_cast_vf(src_dtype, short), _make_cast_vf(src_dtype, full)
    with aj.Core(A950) as core:
        src = core.local_tensor(src_dtype, 128)
        vals = np.random.default_rng(k).standard_normal(128).astype(np.float32)
        vals[:4] = [np.inf, np.nan, -0.0, 1e-38]
        src[:] = vals.astype(src.numpy().dtype)
        prev = core.local_tensor("float", 64)
        prev[:] = np.full(64, 5.0, np.float32)
        dst = core.local_tensor("float", 64)
        results = []
        for fn in (full_vf, short_vf):
            dst[:] = np.zeros(64, np.float32)
            fn(dst, src, prev)
            results.append(dst.numpy().view(np.uint32).copy())
        with warnings.catch_warnings():
            warnings.simplefilter("error", aj.UncompiledVFWarning)
            for fn in (short_vf, full_vf):
                dst[:] = np.zeros(64, np.float32)
                R.simd_vf(fn)(dst, src, prev)
                results.append(dst.numpy().view(np.uint32).copy())
    assert all(np.array_equal(results[0], r) for r in results[1:])
    lane = 0 if "ZERO" in full else 1
    want = vals.astype(src.numpy().dtype).astype(np.float32)[lane::2][:45]
    assert np.array_equal(results[0][:45], want.view(np.uint32))


def test_cast_trait_keyword_after_skipped_field_falls_back():
    vf = _make_cast_vf("half", "R.CastTrait(R.RegLayout.ONE, mrgMode=_ZE)")
    with aj.Core(A950) as core:
        src = core.local_tensor("half", 128)
        src[:] = np.arange(128, dtype=np.float16)
        prev = core.local_tensor("float", 64)
        prev[:] = np.full(64, 5.0, np.float32)
        dst = core.local_tensor("float", 64)
        vf(dst, src, prev)
        want = dst.numpy().copy()
        dst[:] = np.zeros(64, np.float32)
        with pytest.warns(aj.UncompiledVFWarning, match="fields in order"):
            R.simd_vf(vf)(dst, src, prev)
        assert np.array_equal(dst.numpy(), want)


# --- more D29 edges ----------------------------------------------------------------------------------------------

def test_d29_exact_dtype_numpy_scalars_bit_for_bit():
    """A numpy scalar of exactly the operand dtype is used bit for bit (NaN payloads and signs kept)."""
    with aj.Core(A2) as core:
        t16, t32, tbf = core.local_tensor("half", 16), core.local_tensor("float", 16), core.local_tensor("bfloat16", 16)
        bf = t16.numpy().dtype if False else tbf.numpy().dtype
        g16 = aj.GlobalTensor("half")
        g16.SetGlobalBuffer(np.zeros(16, np.float16))
        cases = [(t16, np.uint16, np.float16, [0x7C01, 0xFE00, 0x7E01, 0x0001, 0x8000]),
                 (g16, np.uint16, np.float16, [0x7C01, 0xFFFF]),
                 (t32, np.uint32, np.float32, [0x7F800001, 0xFFC00001, 0x80000001]),
                 (tbf, np.uint16, bf, [0x7F81, 0xFFC1, 0x0001])]
        for t, u, npt, patterns in cases:
            for i, b in enumerate(patterns):
                t.SetValue(i, np.array([b], u).view(npt)[0])
            arr = t.numpy() if hasattr(t, "numpy") else np.asarray(t.array)
            assert [int(x) for x in arr.view(u)[:len(patterns)]] == patterns
        for b in (0x7C01, 0xFE00):
            aj.Duplicate(t16, np.array([b], np.uint16).view(np.float16)[0], 16)
            assert (t16.numpy().view(np.uint16) == b).all()


def test_d29_other_width_numpy_floats_16bit():
    """np.float16 into bfloat16 / float, a bfloat16 scalar into half: one rounding of the exact value."""
    with aj.Core(A2) as core:
        tbf = core.local_tensor("bfloat16", 16)
        bf = tbf.numpy().dtype.type
        halves = np.arange(0, 0x7C00, 37, dtype=np.uint16).view(np.float16)
        got_bf, got_f = [], []
        tf = core.local_tensor("float", 16)
        for h in halves:
            tbf.SetValue(0, h)
            tf.SetValue(0, h)
            got_bf.append(int(tbf.numpy().view(np.uint16)[0]))
            got_f.append(int(tf.numpy().view(np.uint32)[0]))
        assert got_bf == [rne_bits(float(h), "bfloat16") for h in halves]
        assert got_f == [rne_bits(float(h), "float") for h in halves]
        th = core.local_tensor("half", 16)
        bfs = np.arange(0, 0x7F80, 41, dtype=np.uint16).view(bf)
        got_h = []
        for v in bfs:
            th.SetValue(0, v)
            got_h.append(int(th.numpy().view(np.uint16)[0]))
        assert got_h == [rne_bits(float(v), "half") for v in bfs]


@pytest.mark.parametrize("dtype", ["int16", "uint16", "int32", "uint32"])   # Duplicate offers no 8-bit type on the A2
def test_d29_integer_scalars_of_duplicate_adds_compares(dtype):
    lo, hi = INT_RANGES[dtype]
    n = 256 // np.dtype(dtype).itemsize
    with aj.Core(A2) as core:
        t = core.local_tensor(dtype, n)
        for v in (lo, hi, np.int64(lo), np.uint64(hi)):
            try:
                aj.Duplicate(t, v, n)
            except aj.UnsupportedDTypeError:
                pytest.skip(f"Duplicate {dtype} not offered")
            assert (t.numpy() == int(v)).all()
        before = t.numpy().copy()
        for bad in (lo - 1, hi + 1, True, 1.0, np.float32(2)):
            with pytest.raises(aj.ParameterError) as e:
                aj.Duplicate(t, bad, n)
            assert "Duplicate" in str(e.value) and "atlas-a2" in str(e.value)
            assert np.array_equal(t.numpy(), before)


def test_device_sync_veccalc_queue_orders_by_its_ub_to_ub_events():
    """decisions.md "The device's synchronisation" (session 63, port63k): TQue<VECCALC>'s events are UB -> UB's,
    MTE2_MTE3 / MTE3_MTE2, which order nothing of PIPE_V or PIPE_S: with "device-sync" a vector write, the queue's
    EnQue/DeQue and a GetValue / SetValue race (it had kept SPEC-2 10.4's hand-off, on the premise that the devkit
    defines no event for VECCALC); the default model, with or without "strict", keeps the hand-off."""
    for mode in ("report", "strict,report", "device-sync,report", "strict,device-sync,report"):
        with aj.Core(A2, sanitize=mode) as core:
            pipe = aj.TPipe()
            q = aj.TQue(aj.TPosition.VECCALC, 1)
            pipe.InitBuffer(q, 1, 64)
            t = q.AllocTensor("float")
            aj.Duplicate(t, np.float32(2), 16)
            q.EnQue(t)
            t = q.DeQue("float")
            t.GetValue(0)
            t.SetValue(1, 3.0)
            q.FreeTensor(t)
            t = q.AllocTensor("float")
            aj.Duplicate(t, np.float32(2), 16)
        kinds = _kinds(core)
        if "device-sync" in mode:
            assert ("RAW", "PIPE_V", "PIPE_S") in kinds and all("PIPE_MTE" not in p for r in kinds for p in r[1:])
        else:
            assert kinds == [], mode


def test_readme_half_constant_row():
    """README porting table: C++ `(half)1.0004883f` rounds twice; a Python float given to a half operand once."""
    with aj.Core(A2) as core:
        t = core.local_tensor("half", 16)
        t.SetValue(0, 1.0004883)
        t.SetValue(1, np.float16(np.float32(1.0004883)))
        bits = t.numpy().view(np.uint16)[:2].tolist()
    assert bits == [rne_bits(1.0004883, "half"), rne_bits(float(np.float32(1.0004883)), "half")] == [0x3C01, 0x3C00]


def test_device_sync_enque_user_positions_pick_the_pair():
    """decisions.md: EnQue's user positions pick the devkit's pair: a TQue<VECIN> tensor enqueued as
    <VECOUT, GM> hands off V -> MTE3, so the copy-in is unordered with both the vector op and the copy-out."""
    def run(mode, positions):
        with aj.Core(A2, sanitize=mode) as core:
            pipe = aj.TPipe()
            q = aj.TQue(aj.TPosition.VECIN, 1)
            pipe.InitBuffer(q, 1, 64)
            g = aj.GlobalTensor("float")
            g.SetGlobalBuffer(np.ones(16, np.float32))
            y = aj.GlobalTensor("float")
            y.SetGlobalBuffer(np.zeros(16, np.float32))
            t = q.AllocTensor("float")
            aj.DataCopy(t, g, 16)
            q.EnQue(*positions, t)
            t = q.DeQue(*positions, "float")
            aj.Adds(t, t, 1.0, 16)
            aj.DataCopy(y, t, 16)
            q.FreeTensor(t)
        return _kinds(core)
    vo = (aj.TPosition.VECOUT, aj.TPosition.GM)
    vm = [("RAW", "PIPE_V", "PIPE_MTE3")]          # the Adds and the copy-out: no hand-off between them
    assert run("report", vo) == run("report", ()) == run("device-sync,report", ()) == vm
    assert run("device-sync,report", vo) == sorted([("RAW", "PIPE_MTE2", "PIPE_V"), ("WAW", "PIPE_MTE2", "PIPE_V"),
                                                    ("RAW", "PIPE_V", "PIPE_MTE3")])


def test_device_sync_fix_text_does_not_propose_the_hand_off_it_saw():
    with aj.Core(A2, sanitize="device-sync,report") as core:
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, 64)
        g = aj.GlobalTensor("float")
        g.SetGlobalBuffer(np.ones(16, np.float32))
        t = q.AllocTensor("float")
        aj.DataCopy(t, g, 16)
        q.EnQue(t)
        t = q.DeQue("float")
        t.GetValue(0)
        q.FreeTensor(t)
    (report,) = core.sanitizer.reports
    assert "MTE2_S" in report.fix and "EnQue/DeQue" not in report.fix, report.fix


@pytest.mark.parametrize("dtype", ["half", "bfloat16", "float"])
def test_d29_reg_duplicate_scalar_compiled_and_plain(dtype):
    """Reg Duplicate's scalar (D29's row lists it) in a compiled VF and in plain Python: the same one rounding."""
    vf = _vf_from_source(f"""
def vf(dst, s):
    r = R.RegTensor("{dtype}")
    R.Duplicate(r, s)
    R.StoreAlign(dst, r, R.CreateMask("{dtype}"))
""")
    values = _edge_values(dtype, step=251) if dtype != "float" else []
    rng = random.Random(21)
    for _ in range(300 if dtype == "float" else 0):
        b = rng.randrange(0, 0x7F7FFFFF)
        v, w = bits_value(b, "float"), bits_value(b + 1, "float")
        mid = float((v + w) / 2)
        values += [mid, math.nextafter(mid, 0), math.nextafter(mid, 1e300)]
    values += [2 ** 60 + 1, 65520, -3, 1e39, -float("nan")]
    n = 256 // (4 if dtype == "float" else 2)
    with aj.Core(A950) as core:
        dst = core.local_tensor(dtype, n)
        compiled = R.simd_vf(vf)
        for run in (vf, compiled):
            got = []
            with warnings.catch_warnings():
                warnings.simplefilter("error", aj.UncompiledVFWarning)
                for v in values:
                    run(dst, v)
                    got.append(int(dst.numpy().view(UINT[dtype])[n - 1]))
            want = [rne_bits(v, dtype) for v in values]
            bad = [(v, hex(g), hex(w)) for v, g, w in zip(values, got, want) if g != w]
            assert not bad[:10], (run, len(bad))


def _cast_refusal_text(run_compiled, expr, s="half", d="float"):
    vf = _vf_from_source(f"""
def vf(dst, src):
    a, f = R.RegTensor("{s}"), R.RegTensor("{d}")
    m = R.CreateMask("float")
    R.LoadAlign(a, src)
    R.Cast(f, a, m, {expr})
    R.StoreAlign(dst, f, m)
""")
    with aj.Core(A950) as core:
        src = core.local_tensor(s, 256 // np.dtype({"half": "float16", "int32": "int32", "float": "float32"}[s]).itemsize)
        src[:] = np.zeros(src.GetSize(), src.numpy().dtype)
        dst = core.local_tensor(d, 128)
        dst[:] = np.zeros(128, dst.numpy().dtype)
        before = core.ub.copy()
        with pytest.raises(aj.ParameterError) as e:
            (R.simd_vf(vf) if run_compiled else vf)(dst, src)
        assert np.array_equal(core.ub, before)
    return str(e.value)


@pytest.mark.parametrize("compiled", [False, True])
def test_reg_cast_trait_refusals_name_layout_and_round_members(compiled):
    t = _cast_refusal_text(compiled, "R.CastTrait(R.RegLayout.ZERO, R.SatMode.SAT, _ZE, aj.RoundMode.CAST_RINT)",
                           "int32", "float")
    assert "'trait.layoutMode' = 'RegLayout.ZERO'" in t and "RegLayout.UNKNOWN" in t
    t = _cast_refusal_text(compiled, "R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, _ZE, aj.RoundMode.UNKNOWN)",
                           "float", "half")
    assert "'trait.roundMode' = 'RoundMode.UNKNOWN'" in t and "RoundMode.CAST_RINT" in t
    t = _cast_refusal_text(compiled, "R.CastTrait(R.RegLayout.TWO)")
    assert "'trait.layoutMode' = 'RegLayout.TWO'" in t and "RegLayout.ZERO or RegLayout.ONE" in t


@pytest.mark.parametrize("compiled", [False, True])
def test_reg_cast_trait_refusal_names_mrg_mode_member(compiled):
    t = _cast_refusal_text(compiled, "R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, _ME, aj.RoundMode.UNKNOWN)")
    assert "'trait.mrgMode' = 'MaskMergeMode.MERGING'" in t, t


def test_keyword_struct_in_a_callee_falls_back_whole_vf():
    @R.simd_callee
    def recip(a, one, m):
        R.Div(a, one, a, m, R.DivSpecificMode(precisionMode=True))

    @R.simd_vf
    def vf(dst, src):
        a, one = R.RegTensor("float"), R.RegTensor("float")
        m = R.CreateMask("float")
        R.LoadAlign(a, src)
        R.Duplicate(one, np.float32(1.0))
        recip(a, one, m)
        R.StoreAlign(dst, a, m)
    with aj.Core(A950) as core:
        src, dst = core.local_tensor("float", 64), core.local_tensor("float", 64)
        src[:] = np.full(64, 4.0, np.float32)
        with pytest.warns(aj.UncompiledVFWarning, match="fields in order"):
            vf(dst, src)
        assert (dst.numpy() == np.float32(0.25)).all()


@pytest.mark.parametrize("scalar_read", [False, True])
def test_device_sync_double_buffered_queue(scalar_read):
    """A depth-2 VECIN queue with two buffers over five tiles: each buffer's free event (V -> MTE2) is waited by its
    own next AllocTensor; a GetValue after each DeQue races that tile's copy-in under device-sync only."""
    def run(mode):
        with aj.Core(A2, sanitize=mode) as core:
            pipe = aj.TPipe()
            q = aj.TQue(aj.TPosition.VECIN, 2)
            pipe.InitBuffer(q, 2, 64)
            tb = aj.TBuf(aj.TPosition.VECCALC)
            pipe.InitBuffer(tb, 64)
            acc = tb.Get("float")
            aj.Duplicate(acc, np.float32(0), 16)
            g = aj.GlobalTensor("float")
            g.SetGlobalBuffer(np.ones(80, np.float32))
            for i in range(5):
                t = q.AllocTensor("float")
                aj.DataCopy(t, g[16 * i], 16)
                q.EnQue(t)
                if i % 2 == 0 and i < 4:
                    continue          # two tiles in flight
                while q.GetTensorCountInQue():
                    t = q.DeQue("float")
                    if scalar_read:
                        t.GetValue(0)
                    aj.Add(acc, acc, t, 16)
                    q.FreeTensor(t)
        return _kinds(core)
    assert run("report") == []
    assert run("device-sync,report") == ([("RAW", "PIPE_MTE2", "PIPE_S")] * 5 if scalar_read else [])


def test_public_names_resolve_and_not_offered_names_are_absent():
    for name in aj.__all__:
        getattr(aj, name)        # no exported name is one of the NotOfferedError names
    for name in ("pipe_barrier", "set_flag", "wait_flag", "GetUBSizeInBytes", "GetRuntimeUBSize"):
        assert name in aj.__all__
    namespace = {}
    exec("from ascend_jit import *", namespace)
    assert callable(namespace["set_flag"])


def test_d29_other_width_nan_payloads_become_canonical():
    with aj.Core(A2) as core:
        for dtype, others in (("half", [np.array([0xFFC00001], np.uint32).view(np.float32)[0],
                                        np.array([0x7FF0000000000001], np.uint64).view(np.float64)[0]]),
                              ("float", [np.array([0xFC01], np.uint16).view(np.float16)[0],
                                         np.array([0xFFF8000000000001], np.uint64).view(np.float64)[0]]),
                              ("bfloat16", [np.array([0x7C01], np.uint16).view(np.float16)[0],
                                            np.array([0xFF800001], np.uint32).view(np.float32)[0]])):
            t = core.local_tensor(dtype, 16)
            for v in others:
                t.SetValue(0, v)
                assert int(t.numpy().view(UINT[dtype])[0]) == CANONICAL_NAN[dtype], (dtype, v)
                aj.Duplicate(t, v, 256 // (4 if dtype == "float" else 2) if t.GetSize() >= 128 else 16)
                assert int(t.numpy().view(UINT[dtype])[0]) == CANONICAL_NAN[dtype], (dtype, v)
