"""Audit 18r: a second, independent model of the reduction family's accumulation orders, written from SPEC.md 4, 6
and SPEC-2 8 alone (it imports nothing from ascend_jit.reference or ascend_jit.order), compared with the kernels byte
for byte over the whole UB on seeded adversarial inputs: cancellation-heavy sums whose bits depend on the order,
values near overflow, NaN payloads, +-0, subnormals and ties. Two models written apart from one SPEC catch what a
model shared by the kernels and their tests cannot: a misreading of the SPEC copied into both."""
import numpy as np
import pytest

import ascend_jit as aj
from conftest import DEVICES, set_sat_mode

NP = {"half": np.float16, "float": np.float32}
BITS = {2: np.uint16, 4: np.uint32}
CANONICAL_NAN = {2: 0x7E00, 4: 0x7FC00000}      # docs/decisions.md, SPEC-2 D35
MAX, MIN, SUM = aj.ReduceType.MAX, aj.ReduceType.MIN, aj.ReduceType.SUM


# --- the model ----------------------------------------------------------------------------------------------------
def _store(x):
    """SPEC-2 D35: a NaN written is the canonical NaN."""
    if np.isnan(x):
        return np.array(CANONICAL_NAN[x.dtype.itemsize], BITS[x.dtype.itemsize]).view(x.dtype)[()]
    return x


def _sat(x, saturating):
    """SPEC 5.2 / SPEC-2 D35: a half result in saturation mode, +-inf -> +-65504 and NaN -> +0."""
    if saturating and x.dtype == np.float16:
        if np.isnan(x):
            return np.float16(0)
        if np.isinf(x):
            return np.float16(np.copysign(65504, x))
    return x


def _add(a, b, saturating):
    """One correctly rounded add (SPEC 4.1): the float64 sum of two halves is exact, and float64 then float32 is an
    innocuous double rounding for one add (53 >= 2 * 24 + 2)."""
    with np.errstate(all="ignore"):
        r = a.dtype.type(np.float64(a) + np.float64(b))
    return _store(_sat(r, saturating))


def _tree(values, saturating):
    """SPEC 4.1: adjacent pairs, level by level."""
    v = list(values)
    while len(v) > 1:
        v = [_add(v[2 * k], v[2 * k + 1], saturating) for k in range(len(v) // 2)]
    return v[0]


def _padded(values, lanes, zero):
    return list(values) + [zero] * (lanes - len(values))   # SPEC D2: padding lanes are +0


def _reduce_sum_count(device, x, saturating, lanes):
    """SPEC 4.2 (A2/A3 TREE-SEQ, D1), 4.3 (TREE-TREE, tail added last), 4.4 (the 950's table)."""
    z, n = x[0].dtype.type(0), len(x)
    rep = lambda v: _tree(_padded(v, lanes, z), saturating)  # noqa: E731
    if device in ("atlas-a2", "atlas-a3"):
        acc = rep(x[:lanes])
        for r in range(lanes, n, lanes):
            acc = _add(acc, rep(x[r:r + lanes]), saturating)
        return acc
    if device == "ascend950":
        if n <= lanes:
            return rep(x)
        blocks = [list(x[g:g + lanes]) for g in range(0, n, lanes)]
        if n <= 4 * lanes:     # vector adds; lanes past the count keep the earlier operand's value
            def merge(a, b):
                return [_add(p, q, saturating) for p, q in zip(a, b)] + a[len(b):]
            b = blocks
            v = merge(b[0], b[1]) if n <= 2 * lanes else merge(merge(b[0], b[1]), b[2]) if n <= 3 * lanes else \
                merge(merge(b[0], b[1]), merge(b[2], b[3]))
            return _tree(v, saturating)
        level = [rep(b) for b in blocks]
        while len(level) > 1:
            level = [rep(level[g:g + lanes]) for g in range(0, len(level), lanes)]
        return level[0]
    full, tail = divmod(n, lanes)
    if full == 0:
        return rep(x)
    body = [_tree(x[r * lanes:(r + 1) * lanes], saturating) for r in range(full)]
    while len(body) > 1:
        body = [rep(body[g:g + lanes]) for g in range(0, len(body), lanes)]
    return rep([body[0], rep(x[full * lanes:])]) if tail else body[0]


def _order_key(x):
    """SPEC-2 D41: -inf < ... < -0 < +0 < ... < +inf."""
    return (float(x), not np.signbit(x))


def _extreme(values, active, is_max):
    """SPEC-2 D50: (value, lane); the first NaN lane wins, ties keep the smallest lane, masked lanes never win."""
    best = lane = None
    for j, (v, a) in enumerate(zip(values, active)):
        if not a:
            continue
        if np.isnan(v):
            return v, j
        if best is None or (_order_key(v) > _order_key(best) if is_max else _order_key(v) < _order_key(best)):
            best, lane = v, j
    return best, lane


def _reduce_max_count(device, x, saturating, lanes, is_max):
    """SPEC-2 8.3.2 (non-950 levels, tail compared last) and 8.3.3 (the 950's per-lane accumulators)."""
    t, n = x[0].dtype.type, len(x)
    if device == "ascend950":
        seed = np.array({(2, True): 0xFBFF, (2, False): 0x7BFF, (4, True): 0xFF7FFFFF, (4, False): 0x7F7FFFFF}[
            (x[0].dtype.itemsize, is_max)], BITS[x[0].dtype.itemsize]).view(x[0].dtype)[()]
        acc, idx = [seed] * lanes, list(range(lanes))
        for r in range(-(-n // lanes)):
            for j in range(min(lanes, n - r * lanes)):
                a, v = acc[j], x[r * lanes + j]
                new = t(np.nan) if np.isnan(a) or np.isnan(v) else \
                    (v if (_order_key(v) > _order_key(a) if is_max else _order_key(v) < _order_key(a)) else a)
                new = _sat(new, saturating)
                if not new == a:          # IEEE !=: true for NaN
                    idx[j] = r * lanes + j
                acc[j] = new
        value, _ = _extreme(acc, [True] * lanes, is_max)
        value = _sat(value, saturating)
        hits = [idx[j] for j in range(lanes) if acc[j] == value]
        return _store(value), min(hits) if hits else (0xFFFE if x[0].dtype.itemsize == 2 else 0xFFFFFFFE)
    full = max(1, n // lanes)
    best = None
    for r in range(full):
        v, j = _extreme(x[r * lanes:r * lanes + lanes], [True] * min(n, lanes), is_max)
        v = _sat(v, saturating)
        if best is None or _wins(v, best[0], is_max):
            best = (v, r * lanes + j)
    if n % lanes and n // lanes:
        v, j = _extreme(x[full * lanes:], [True] * (n % lanes), is_max)
        v = _sat(v, saturating)
        if _wins(v, best[0], is_max):
            best = (v, full * lanes + j)
    return _store(best[0]), best[1]


def _wins(a, b, is_max):
    if np.isnan(b):
        return False
    return bool(np.isnan(a)) or (_order_key(a) > _order_key(b) if is_max else _order_key(a) < _order_key(b))


# --- inputs ---------------------------------------------------------------------------------------------------------
def _values(dtype, n, rng, kind=None):
    t = NP[dtype]
    kind = rng.integers(0, 4) if kind is None else kind
    if kind == 0:    # cancellation: large values of both signs among small ones
        x = rng.choice([1.0, 1e-3, 1e3, 3e4 if t is np.float16 else 1e8], n) * rng.uniform(0.5, 2, n) * \
            rng.choice([-1, 1], n)
    elif kind == 1:  # near overflow
        x = rng.uniform(-1, 1, n) * (60000.0 if t is np.float16 else 3e38)
    elif kind == 2:  # ties and signed zeros
        x = rng.choice(np.array([0.0, -0.0, 1.0, -1.0, 2.0]), n)
    else:            # subnormals, specials, NaN payloads
        tiny = 6e-8 if t is np.float16 else 1.4e-45
        x = (rng.integers(-40, 40, n) * tiny).astype(t)
        pick = rng.random(n) < 0.04
        x[pick] = rng.choice(np.array([np.inf, -np.inf, np.nan, -0.0], t), int(pick.sum()))
        payload = rng.random(n) < 0.01
        size = np.dtype(t).itemsize
        x[payload] = (np.array(0xFC01 if size == 2 else 0xFF800101, BITS[size]) +
                      rng.integers(0, 64, int(payload.sum())).astype(BITS[size])).view(t)
        return x
    with np.errstate(all="ignore"):
        return x.astype(t)


def _core(device, rng):
    core = aj.Core(device)
    saturating = bool(rng.integers(0, 2))
    if not set_sat_mode(core, saturating):
        saturating = core.spec.half_saturating_default
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    return core, saturating


def _dtypes(device):
    return ("half",) if device == "atlas-training" else ("half", "float")


def _put(ub, addr, value):
    raw = np.frombuffer(np.asarray(value).tobytes(), np.uint8)
    ub[addr:addr + raw.size] = raw


# --- the comparisons ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
def test_reduce_sum_count_order_whole_ub(device):
    """SPEC 4.2-4.4 at the counts where each device's order changes shape (one repeat, the 950's vadd merges, the
    tail repeat, more than L repeat results)."""
    rng = np.random.default_rng(1801)
    for dtype in _dtypes(device):
        size = np.dtype(NP[dtype]).itemsize
        lanes = 256 // size
        for count in (1, lanes - 1, lanes, lanes + 1, 2 * lanes + 3, 3 * lanes + 1, 4 * lanes, 4 * lanes + 5,
                      7 * lanes + 9, lanes * (lanes + 1) + 3):
            for kind in (0, 1, 3):   # cancellation (the order decides the bits), near overflow, specials
                core, saturating = _core(device, rng)
                src = core.local_tensor(dtype, count, addr=0)
                src[:] = _values(dtype, count, rng, kind)
                tmp_addr = -(-count * size // 32) * 32 + 64
                tmp_n = aj.GetReduceSumTmpSize(device, dtype, count=count)
                tmp = core.local_tensor(dtype, max(tmp_n, 1), addr=tmp_addr)
                dst = core.local_tensor(dtype, 1, addr=tmp_addr + max(tmp_n, 1) * size + 2 * size)
                want = core.ub.copy()
                _put(want, dst.addr, _reduce_sum_count(device, list(src.numpy()), saturating, lanes))
                aj.ReduceSum(dst, src, tmp, count)
                want[tmp.addr:tmp.addr + tmp_n * size] = core.ub[tmp.addr:tmp.addr + tmp_n * size]  # D18: unspecified
                assert np.array_equal(core.ub, want), (device, dtype, count, saturating)


@pytest.mark.parametrize("device", DEVICES)
def test_reduce_max_min_count_value_and_index_whole_ub(device):
    """SPEC-2 8.3.2 / 8.3.3 with cal_index: per-repeat saturation and the tail compared last (non-950), the
    per-lane seeds, IEEE != index updates and the 0xFFFE NaN index (950)."""
    rng = np.random.default_rng(1802)
    for dtype in _dtypes(device):
        size = np.dtype(NP[dtype]).itemsize
        lanes = 256 // size
        for count in (lanes // 2, lanes, lanes + 7, 3 * lanes, 5 * lanes + 1):
            for op in (aj.ReduceMax, aj.ReduceMin):
                core, saturating = _core(device, rng)
                src = core.local_tensor(dtype, count, addr=0)
                src[:] = _values(dtype, count, rng)
                tmp_n = aj.GetReduceMaxMinTmpSize(device, dtype, count=count, cal_index=True) if \
                    device != "ascend950" else 0
                tmp_addr = -(-count * size // 32) * 32 + 64
                tmp = core.local_tensor(dtype, tmp_n + 16, addr=tmp_addr)
                dst = core.local_tensor(dtype, 2, addr=tmp_addr + (tmp_n + 16) * size + 2 * size)
                want = core.ub.copy()
                value, index = _reduce_max_count(device, list(src.numpy()), saturating, lanes, op is aj.ReduceMax)
                _put(want, dst.addr, value)
                _put(want, dst.addr + size, BITS[size](index))
                op(dst, src, tmp, count, True)
                want[tmp_addr:tmp_addr + tmp_n * size] = core.ub[tmp_addr:tmp_addr + tmp_n * size]  # D54
                assert np.array_equal(core.ub, want), (device, dtype, count, op.__name__, saturating)


@pytest.mark.parametrize("device", DEVICES)
def test_group_reductions_with_bit_masks_whole_ub(device):
    """SPEC-2 8.1 (ReduceRepeat SUM and MAX/MIN [value, index]), 8.2 (ReduceDataBlock, fully masked blocks per
    device) and SPEC 6 (ReducePairElem, both-masked pairs per device), strided and with random bit masks."""
    rng = np.random.default_rng(1803)
    spec = aj.get_device(device)
    for dtype in _dtypes(device):
        size = np.dtype(NP[dtype]).itemsize
        lanes, per_block = 256 // size, 32 // size
        zero = NP[dtype](0)
        for case in range(12):
            core, saturating = _core(device, rng)
            words = [int(rng.integers(0, 2**63)) & int(rng.integers(0, 2**63)) | 1 for _ in range(2)]
            if case % 3 == 0:
                words[0] &= 0xFFFF00000000FFFF    # whole DataBlocks masked
            mask = words if size == 2 else words[:1]
            active = [bool(mask[j // 64] >> (j % 64) & 1) for j in range(lanes)]
            repeats, blk, rep = int(rng.integers(1, 6)), int(rng.integers(1, 3)), int(rng.choice([8, 16, 3]))
            src = core.local_tensor(dtype, ((repeats - 1) * rep * 32 + 8 * blk * 32) // size, addr=0)
            src[:] = _values(dtype, src.size, rng)
            ub = core.ub
            elements = ub[:src.addr + src.size * size].view(NP[dtype])   # SPEC 1.2 lane addresses, in elements
            rows = [[elements[(src.addr + i * rep * 32 + (j // per_block) * blk * 32) // size + j % per_block]
                     for j in range(lanes)] for i in range(repeats)]
            dst = core.local_tensor(dtype, repeats * lanes, addr=-(-src.size * size // 64) * 64 + 64)
            kind = ("sum", "max", "min", "block_sum", "block_max", "pair")[case % 6]
            want = ub.copy()
            for i, row in enumerate(rows):
                if kind == "sum":
                    _put(want, dst.addr + i * size, _tree([v if a else zero for v, a in zip(row, active)], saturating))
                elif kind in ("max", "min"):
                    v, j = _extreme(row, active, kind == "max")
                    _put(want, dst.addr + i * 2 * size, _store(_sat(v, saturating)))
                    _put(want, dst.addr + i * 2 * size + size, BITS[size](j))
                elif kind.startswith("block"):
                    for b in range(8):
                        values, on = row[b * per_block:(b + 1) * per_block], active[b * per_block:(b + 1) * per_block]
                        if any(on):
                            r = _tree([v if a else zero for v, a in zip(values, on)], saturating) if \
                                kind == "block_sum" else _store(_sat(_extreme(values, on, True)[0], saturating))
                        elif device in ("ascend950", "atlas-200i-500-a2"):   # SPEC-2 8.2 fill table
                            r = zero if kind == "block_sum" else _sat(
                                NP[dtype](-65504.0 if device != "ascend950" and size == 2 else -np.inf), saturating)
                        else:
                            continue                                        # A2/A3/310P/910: not written
                        _put(want, dst.addr + i * 8 * size + b * size, r)
                else:
                    for p in range(lanes // 2):
                        on0, on1 = active[2 * p], active[2 * p + 1]
                        if on0 or on1:
                            r = _add(row[2 * p] if on0 else zero, row[2 * p + 1] if on1 else zero, saturating)
                        elif device in ("ascend950", "atlas-200i-500-a2"):
                            r = zero
                        else:
                            continue
                        _put(want, dst.addr + i * (lanes // 2) * size + p * size, r)
            if kind == "sum":
                aj.ReduceRepeat(dst, src, mask, repeats, 1, blk, rep, reduce_type=SUM)
            elif kind in ("max", "min"):
                aj.ReduceRepeat(dst, src, mask, repeats, 1, blk, rep, reduce_type=MAX if kind == "max" else MIN)
            elif kind.startswith("block"):
                aj.ReduceDataBlock(dst, src, mask, repeats, 1, blk, rep,
                                   reduce_type=SUM if kind == "block_sum" else MAX)
            else:
                aj.ReducePairElem(dst, src, mask, repeats, 1, blk, rep)
            assert np.array_equal(ub, want), (device, dtype, kind, mask, repeats, blk, rep, saturating, spec.name)
