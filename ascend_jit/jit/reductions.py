"""Kernels of the reduction family (SPEC-2 8): ReduceRepeat and ReduceDataBlock share one group walk (a group is a
whole repeat, or one 32-byte DataBlock of it); ReduceMax/ReduceMin run the D52 level algorithm or the 950's D53
per-lane algorithm. Reduce type, dtype kind, output order and device facts are integer arguments; MAX/MIN compile
once per element width (a width marker, ubview.INT_WIDTHS; the group kernels keep half apart, group_classes), SUM
once per arithmetic, and the vectorised paths of whole rows of halves or floats are kernels of their own that the
API chooses (issue 20: a first call compiles one width's code and one path).

SUM reuses the ReduceSum trees (jit/reduce.py): the repeats' lanes are gathered (masked lanes +0, SPEC D2) and the
buffer is halved log2(group) times, which is exactly one adjacent-pair tree per group (SPEC 4.1).

MAX/MIN never decode a float: every element becomes an int64 *order key* of the D41 total order (-inf < negatives <
-0 < +0 < positives < +inf), taken from its bit pattern (sign-magnitude to two's complement), and the key is
*directed* (bitwise NOT for MIN) so that "better" is always "larger". A NaN gets NAN_KEY, larger than every value,
so the first NaN lane wins in both directions (D41, D50); a masked lane gets LOSER, which never wins. The written
value is the winner's bit pattern, then D35 saturation (half) and the canonical NaN.
"""
import numpy as np
from numba import njit

from .addressing import lane_active
from .numerics import KIND_FLOAT, KIND_HALF, KIND_INT16, KIND_INT32, KIND_UINT64, internal, kind_size
from .reduce import _halve, _load_run, store_run
from .ubview import INT_WIDTHS, int_lanes, ub_as
from .values import load, store
from .lowered import empty_array, larger, smaller

OP_SUM, OP_MAX, OP_MIN = 0, 1, 2                                # aj.ReduceType values
VALUE_INDEX, INDEX_VALUE, ONLY_VALUE, ONLY_INDEX = 0, 1, 2, 3   # aj.ReduceOrder values (D27)
NAN_KEY = np.int64(1 << 62)
LOSER = np.int64(-(1 << 63))


# --- raw bits, order keys, outputs ---------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _shift(kind):
    """log2 of the element size of kind: an element's index in the lanes is its byte address >> this."""
    size = kind_size(kind)
    return 1 if size == 2 else (2 if size == 4 else 3)


@njit(cache=True, inline="always")
def _raw(lanes, addr, kind):
    """The element at byte addr as an int64, read from the UB's lanes of its width (int_lanes): sign-extended bits
    (half, float, signed ints), zero-extended (uint16, uint32), the 64 bits (int64, uint64). Every element address
    is a multiple of its size (SPEC 8.2)."""
    shift = _shift(kind)
    raw = np.int64(lanes[addr >> shift])
    if shift < 3 and (kind == KIND_HALF or kind == KIND_INT16 or kind == KIND_FLOAT or kind == KIND_INT32):
        bias = np.int64(1) << ((8 << shift) - 1)
        raw = (raw ^ bias) - bias
    return raw


@internal
def _put(lanes, addr, shift, raw):
    """The low 1 << shift bytes of raw (little-endian) at byte addr, a multiple of them, through the UB's lanes of
    that width."""
    if shift < 3:
        raw &= (np.int64(1) << (8 << shift)) - 1
    lanes[addr >> shift] = raw


@njit(cache=True, inline="always")
def _put_result(lanes, dst, shift, value, cal_index, index):
    """ReduceMax/ReduceMin's dst: the value, and with cal_index the index in the element after it (SPEC-2 8.3)."""
    _put(lanes, dst, shift, value)
    if cal_index:
        _put(lanes, dst + (1 << shift), shift, index)


@njit(cache=True, inline="always")
def _put_index32(lanes, addr, shift, index):
    """A 32-bit index (ORDER_ONLY_INDEX, D27) at byte addr through lanes of 2 or 4 bytes: the low lane holds it
    (an index is below 2**16), a high 16-bit lane 0."""
    lanes[addr >> shift] = index
    if shift == 1:
        lanes[(addr >> shift) + 1] = 0


@njit(cache=True, inline="always")
def is_nan_raw(raw, kind):
    if kind == KIND_HALF:
        return (raw & 0x7FFF) > 0x7C00
    if kind == KIND_FLOAT:
        return (raw & 0x7FFFFFFF) > 0x7F800000
    return False


@njit(cache=True, inline="always")
def directed_key(raw, kind, op):
    """D41 order key of a raw element, directed so that larger is better for `op` (MAX or MIN)."""
    if is_nan_raw(raw, kind):
        return NAN_KEY
    if kind == KIND_HALF:
        key = raw ^ ((raw >> 15) & 0x7FFF)
    elif kind == KIND_FLOAT:
        key = raw ^ ((raw >> 31) & 0x7FFFFFFF)
    elif kind == KIND_UINT64:
        key = raw ^ LOSER  # unsigned order = signed order with the top bit flipped
    else:
        key = raw
    return ~key if op == OP_MIN else key


@internal
def raw_of_key(t, kind, op, sat):
    """The bits written for directed key t: D35 saturation of half results (NaN -> +0, +-inf -> +-65504) and the
    canonical NaN (decisions.md)."""
    if t == NAN_KEY and (kind == KIND_HALF or kind == KIND_FLOAT):
        if kind == KIND_HALF:
            return np.int64(0) if sat else np.int64(0x7E00)
        return np.int64(0x7FC00000)
    key = ~t if op == OP_MIN else t
    if kind == KIND_HALF:
        raw = key ^ ((key >> 15) & 0x7FFF)
        if sat and (raw & 0x7FFF) == 0x7C00:
            raw = (raw & ~np.int64(0x7FFF)) | 0x7BFF
        return raw
    if kind == KIND_FLOAT:
        return key ^ ((key >> 31) & 0x7FFFFFFF)
    if kind == KIND_UINT64:
        return key ^ LOSER
    return key


@njit(cache=True, inline="always")
def _ieee_equal(a, b, kind):
    """IEEE == on directed keys of one direction: NaN equals nothing, -0 == +0 (keys -1 and 0 of a float kind)."""
    if a == NAN_KEY or b == NAN_KEY:
        return not (kind == KIND_HALF or kind == KIND_FLOAT) and a == b
    if a == b:
        return True
    return (kind == KIND_HALF or kind == KIND_FLOAT) and ((a == 0 and b == -1) or (a == -1 and b == 0))


@njit(cache=True, inline="always")
def _half_key32(s, flip):
    """directed_key for a half in int32 arithmetic, branch-free (so the scans vectorise): NaN -> 1 << 20, above
    every half key (|key| < 2**15); flip = -1 for MIN (bitwise NOT), 0 for MAX."""
    key = (s ^ ((s >> np.int32(15)) & np.int32(0x7FFF))) ^ flip
    return np.int32(1 << 20) if (s & np.int32(0x7FFF)) > np.int32(0x7C00) else key


@internal
def gather_keys(ub, lanes_view, half_class, kind, op, src, blk, rep_bytes, nrep, lo, hi, last_lanes, keys):
    """keys[i*L + j] = directed key of lane j of repeat i (SPEC 1.2 addressing), LOSER for masked lanes;
    last_lanes >= 0: the last repeat has only its first last_lanes lanes (counter mode). lanes_view: the UB's lanes
    of the element width (int_lanes); half_class: 0 for half elements, else None (the half-only path is compiled for
    half alone)."""
    size = kind_size(kind)
    lanes = 256 // size
    epb = 32 // size
    if half_class is not None:
        full = last_lanes < 0 and blk == 1
        for j in range(lanes):
            if not lane_active(lo, hi, j):
                full = False
        if full:  # whole contiguous repeats: a branch-free loop per repeat (over a row slice: numba vectorises no
            h16 = ub_as(ub, np.int16)  # `h[e + j]`, see _max_half_run)
            flip = np.int32(-1) if op == OP_MIN else np.int32(0)
            for i in range(nrep):
                e = (src + i * rep_bytes) >> 1
                row = h16[e:e + lanes]
                out = keys[i * lanes:(i + 1) * lanes]
                for j in range(lanes):
                    k = _half_key32(np.int32(row[j]), flip)
                    out[j] = NAN_KEY if k == (1 << 20) else np.int64(k)
            return
    for i in range(nrep):
        base = src + i * rep_bytes
        n = lanes if (last_lanes < 0 or i < nrep - 1) else last_lanes
        for j in range(lanes):
            if j < n and lane_active(lo, hi, j):
                keys[i * lanes + j] = directed_key(
                    _raw(lanes_view, base + (j // epb) * blk * 32 + (j % epb) * size, kind), kind, op)
            else:
                keys[i * lanes + j] = LOSER


@internal
def _best(keys, off, n):
    """(largest key, its first position) of keys[off:off+n]: ties -> smallest position (D50)."""
    m = LOSER
    for k in range(n):
        m = larger(m, keys[off + k])
    j = 0
    while j < n - 1 and keys[off + j] != m:
        j += 1
    return m, j


@njit(cache=True, inline="always")
def _max_half_run(row, flip):
    """The largest directed key (int32, _half_key32) of a row of halves (int16 bits): a vectorised scan. (Rows are
    slices indexed from 0: numba cannot drop its negative-index check on `h[e + k]`, which stops vectorisation.)"""
    m = np.int32(-(1 << 30))
    for k in range(row.size):
        m = larger(m, _half_key32(np.int32(row[k]), flip))
    return m


@njit(cache=True, inline="always")
def _find_half_run(row, flip, m):
    """The first position of key m in the row."""
    j = 0
    while j < row.size - 1 and _half_key32(np.int32(row[j]), flip) != m:
        j += 1
    return j


@njit(cache=True, inline="always")
def _float_key32(s, flip):
    """directed_key for a float in int32 arithmetic, branch-free (so the scans vectorise): NaN -> _FLOAT_NAN_KEY32,
    above every float key (at most 0x7F800000, +inf for MAX and -inf for MIN); flip as _half_key32's."""
    key = (s ^ ((s >> np.int32(31)) & np.int32(0x7FFFFFFF))) ^ flip
    return _FLOAT_NAN_KEY32 if (s & np.int32(0x7FFFFFFF)) > np.int32(0x7F800000) else key


_FLOAT_NAN_KEY32 = np.int32(0x7FFFFFFF)


@njit(cache=True, inline="always")
def _max_float_run(row, flip):
    """The largest directed key (int32, _float_key32) of a row of floats (int32 bits): a vectorised scan."""
    m = np.int32(-(1 << 31))
    for k in range(row.size):
        m = larger(m, _float_key32(row[k], flip))
    return m


@njit(cache=True, inline="always")
def _best_float_run(row, flip):
    """_best over the directed keys of a row of floats (int32 bits), without the int64 key buffer: the largest key
    (NAN_KEY for a NaN) and its first position (D50)."""
    m = _max_float_run(row, flip)
    j = row.size
    for k in range(row.size):  # the first position of m, as a min (vectorised; a search loop is not)
        j = smaller(j, k if _float_key32(row[k], flip) == m else row.size)
    return (NAN_KEY if m == _FLOAT_NAN_KEY32 else np.int64(m)), j


# --- ReduceRepeat / ReduceDataBlock ---------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _group_active(lo, hi, n, g, group):
    for j in range(g * group, (g + 1) * group):
        if j < n and lane_active(lo, hi, j):
            return True
    return False


@internal
def _write_groups(lanes_view, kind, sat, op, group, order, dst, dst_rep_bytes, nrep, fill, fill_raw, group_best):
    """Writes each group's result: group_best[0, i*G + g] is the best directed key of group g of repeat i (G groups
    per repeat; LOSER: every lane of the group masked), group_best[1, ...] its position in the group. Group g of
    repeat i writes at dst + i*dst_rep_bytes + g*sizeof(T) in the layout `order` (D27, SPEC-2 8.1); a fully masked
    group writes fill_raw (then SAT) when `fill`, else nothing (8.2, D51). Returns the written bits and the element
    ordinal i*L + j of the best element over every repeat (D55)."""
    size = kind_size(kind)
    shift = _shift(kind)
    lanes = 256 // size
    per_repeat = lanes // group
    best_t, best_at = LOSER, np.int64(-1)
    for i in range(nrep):
        for g in range(per_repeat):
            addr = dst + i * dst_rep_bytes + g * size
            m, j = group_best[0, i * per_repeat + g], group_best[1, i * per_repeat + g]
            if m == LOSER:  # every lane of the group masked (ReduceDataBlock only)
                if fill:
                    _put(lanes_view, addr, shift, raw_of_key(directed_key(fill_raw, kind, op), kind, op, sat))
                continue
            lane = g * group + j
            if m > best_t:
                best_t, best_at = m, i * lanes + lane
            value = raw_of_key(m, kind, op, sat)
            if order == VALUE_INDEX:
                _put(lanes_view, addr, shift, value)
                _put(lanes_view, addr + size, shift, lane)
            elif order == INDEX_VALUE:
                _put(lanes_view, addr, shift, lane)
                _put(lanes_view, addr + size, shift, value)
            elif order == ONLY_VALUE:
                _put(lanes_view, addr, shift, value)
            else:
                _put_index32(lanes_view, addr, shift, lane)
    return raw_of_key(best_t, kind, op, sat), best_at


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def group_extreme_kernel(ub, kind, sat, op, group, order, dst, dst_rep_bytes, src, blk, rep_bytes, nrep, lo, hi,
                         last_lanes, fill, fill_raw, width, half_class):
    """MAX/MIN of every group of `group` lanes (a repeat: ReduceRepeat; a DataBlock: ReduceDataBlock), written by
    _write_groups (layout `order`, fill_raw for a fully masked group when `fill`), which gives the return value.
    width, half_class: the dtype class (group_classes): one specialisation per element width and half apart from
    the 16-bit integers, so each first call compiles one width's lanes and half alone its whole-repeat path (issue
    20: one kernel for every kind cost 4-5 s a first call)."""
    lanes = 256 // kind_size(kind)
    per_repeat = lanes // group
    keys = empty_array(nrep * lanes, np.int64)
    gather_keys(ub, int_lanes(ub, width), half_class, kind, op, src, blk, rep_bytes, nrep, lo, hi, last_lanes, keys)
    group_best = empty_array((2, nrep * per_repeat), np.int64)
    for i in range(nrep):
        for g in range(per_repeat):
            group_best[0, i * per_repeat + g], group_best[1, i * per_repeat + g] = _best(keys, i * lanes + g * group,
                                                                                         group)
    return _write_groups(int_lanes(ub, width), kind, sat, op, group, order, dst, dst_rep_bytes, nrep, fill, fill_raw,
                         group_best)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def group_extreme_float_rows_kernel(ub, kind, sat, op, group, order, dst, dst_rep_bytes, src, blk, rep_bytes, nrep,
                                    lo, hi, last_lanes, fill, fill_raw, width, half_class):
    """group_extreme_kernel for floats with every lane of contiguous blocks active (WholeReduceMax/Min's common
    call; the API chooses it): each group's keys scanned in int32 straight from the UB, vectorised, with the same
    keys, ties and NaN as the int64 gather. A kernel of its own, so neither call compiles the other's scan (issue
    20). Same arguments (blk is 1, last_lanes < 0 and the mask full here)."""
    lanes = 64
    per_repeat = lanes // group
    group_best = empty_array((2, nrep * per_repeat), np.int64)
    i32 = ub_as(ub, np.int32)
    flip = np.int32(-1) if op == OP_MIN else np.int32(0)
    for i in range(nrep):  # every group read before any is written
        for g in range(per_repeat):
            e = ((src + i * rep_bytes) >> 2) + g * group
            group_best[0, i * per_repeat + g], group_best[1, i * per_repeat + g] = _best_float_run(i32[e:e + group],
                                                                                                   flip)
    return _write_groups(int_lanes(ub, width), kind, sat, op, group, order, dst, dst_rep_bytes, nrep, fill, fill_raw,
                         group_best)


def group_classes(kind, size):
    """The dtype-class markers (width, half_class) of the group MAX/MIN kernels for an element of kernel kind `kind`
    and `size` bytes: the width marker (ubview.INT_WIDTHS), 0 for half else None."""
    return INT_WIDTHS[size], (0 if kind == KIND_HALF else None)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def group_sum_kernel(ub, src_kind, dst_kind, sat, group, dst, dst_rep_bytes, src, blk, rep_bytes, nrep, lo, hi,
                     last_lanes, fill, witness, strided):
    """SUM of every group of `group` lanes (a repeat: ReduceRepeat; a DataBlock: ReduceDataBlock): the SPEC 4.1 tree
    per group. witness float32 0 (half / float: SAT(RN) per add) or int64 0 (the 950's integer SUM: int32 <- int16 /
    int32, uint32 <- uint16 / uint32, lanes widened, adds wrap modulo 2**32, D50): the one specialisation, because
    the arithmetic differs. Group g of repeat i is written at dst + i*dst_rep_bytes + g*sizeof(dst); a fully masked
    DataBlock writes +0 when `fill` (SPEC-2 8.2). strided: 0, or None when the API has proved the call whole and
    contiguous (every lane, blkStride 1, src and dst of one type, repeats back to back, no counter-mode tail, every
    group written back to back): the per-repeat walk and the per-group store are then not compiled (issue 20)."""
    size = kind_size(src_kind)
    out_size = kind_size(dst_kind)
    lanes = 256 // size
    epb = 32 // size
    every_lane = True
    for j in range(lanes):
        if not lane_active(lo, hi, j):
            every_lane = False
    full = every_lane and last_lanes < 0
    same = src_kind == dst_kind
    # one gather for every group size (not ReduceSum's level1 for whole repeats: compiling both cost 2 s, issue 20)
    buf = empty_array(nrep * lanes, type(witness))
    u16, f32 = ub_as(ub, np.uint16), ub_as(ub, np.float32)  # the whole-UB views _load_run decodes through
    contiguous = strided is None or (every_lane and blk == 1 and same and rep_bytes == 256)
    if contiguous:  # repeats back to back: one vectorised decode of every element that takes part
        total = nrep * lanes if last_lanes < 0 else (nrep - 1) * lanes + last_lanes
        _load_run(ub, u16, f32, src, total, src_kind, witness, buf, np.int64(0))
        for k in range(total, nrep * lanes):
            buf[k] = witness
    if strided is not None:
        prefix = 0  # the active lanes are exactly the first `prefix` (a continuous mask or low mask bits), else -1
        while prefix < lanes and lane_active(lo, hi, prefix):
            prefix += 1
        for j in range(prefix, lanes):
            if lane_active(lo, hi, j):
                prefix = -1
        for i in range(0 if contiguous else nrep):
            base = src + i * rep_bytes
            n = lanes if (last_lanes < 0 or i < nrep - 1) else last_lanes
            if every_lane and n == lanes and blk == 1 and same:  # a whole contiguous repeat: one vectorised decode
                _load_run(ub, u16, f32, base, lanes, src_kind, witness, buf, i * lanes)
                continue
            if prefix > 0 and blk == 1 and same:  # the first lanes of a contiguous repeat: one vectorised decode
                m = smaller(prefix, n)
                _load_run(ub, u16, f32, base, m, src_kind, witness, buf, i * lanes)
                for j in range(m, lanes):
                    buf[i * lanes + j] = witness
                continue
            for j in range(lanes):
                if j < n and lane_active(lo, hi, j):
                    buf[i * lanes + j] = load(ub, base + (j // epb) * blk * 32 + (j % epb) * size, src_kind, witness)
                else:
                    buf[i * lanes + j] = witness
    scratch = empty_array(nrep * lanes // 2 + 1, type(witness))
    res = _halve(buf, scratch, nrep * lanes, group, dst_kind, sat)
    per_repeat = lanes // group
    if strided is None or (full and dst_rep_bytes == per_repeat * out_size):  # every group written, back to back
        store_run(ub, dst, dst_kind, res, nrep * per_repeat)
        return
    if strided is not None:
        for i in range(nrep):
            n = lanes if (last_lanes < 0 or i < nrep - 1) else last_lanes
            for g in range(per_repeat):
                addr = dst + i * dst_rep_bytes + g * out_size
                if per_repeat == 1 or _group_active(lo, hi, n, g, group):
                    store(ub, addr, dst_kind, res[i * per_repeat + g])
                elif fill:  # a fully masked DataBlock on the 310B / 950: +0 (SPEC-2 8.2)
                    store(ub, addr, dst_kind, witness)


# --- ReduceMax / ReduceMin -------------------------------------------------------------------------------------------
# the fields of a ReduceMax/ReduceMin call plan (an int64 array built once per validated call shape: one argument
# instead of thirteen keeps numba's dispatch cheap)
(P_ALGO, P_KIND, P_OP, P_CAL_INDEX, P_DST, P_SRC, P_REP_BYTES, P_STEP, P_NREP, P_LO, P_HI, P_N, P_SEED,
 P_FIELDS) = range(14)
ALGO_LEVELS, ALGO_PER_LANE, ALGO_LEVELS_RUNS, ALGO_PER_LANE_HALF_COUNT, ALGO_PER_LANE_FLOAT_COUNT = range(5)


# One entry kernel per algorithm, both taking (ub, sat, plan) as ReduceSum's take one argument list (jit/reduce.py):
# a call compiles its own device's algorithm only (issue 20). Each returns the written value bits.
@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def max_min_levels_kernel(ub, sat, p, width):
    """Non-950 algorithm (SPEC-2 8.3.2, D52) with the call plan p (P_* fields): per repeat (value, lane) with D50
    and the value saturated; the best repeat (ties -> earliest); index = r*step + lane. tail >= 0 (count form): the
    `tail` elements after the nrep full repeats are compared last and win only strictly. width: the element width's
    marker (ubview.INT_WIDTHS): one specialisation per width."""
    kind, op, cal_index, dst, src = p[P_KIND], p[P_OP], p[P_CAL_INDEX] != 0, p[P_DST], p[P_SRC]
    rep_bytes, step, nrep, lo, hi, tail = p[P_REP_BYTES], p[P_STEP], p[P_NREP], p[P_LO], p[P_HI], p[P_N]
    size = kind_size(kind)
    shift = _shift(kind)
    lanes = 256 // size
    lanes_view = int_lanes(ub, width)
    one, none = np.int64(1), np.int64(-1)  # int64 values, not literals: one gather_keys signature (issue 20)
    best_t, best_raw, index = LOSER, np.int64(0), np.int64(0)
    keys = empty_array(nrep * lanes, np.int64)
    gather_keys(ub, lanes_view, None, kind, op, src, one, rep_bytes, nrep, lo, hi, none, keys)
    for r in range(nrep):
        m, j = _best(keys, r * lanes, lanes)
        raw = raw_of_key(m, kind, op, sat)   # written to tmp: saturation applies per repeat
        t = directed_key(raw, kind, op)
        if t > best_t:
            best_t, best_raw, index = t, raw, r * step + j
    if tail > 0:
        tkeys = empty_array(lanes, np.int64)
        gather_keys(ub, lanes_view, None, kind, op, src + nrep * lanes * size, one, np.int64(256), one, none, none,
                    tail, tkeys)
        m, j = _best(tkeys, 0, lanes)
        raw = raw_of_key(m, kind, op, sat)
        t = directed_key(raw, kind, op)
        if t > best_t:
            best_raw, index = raw, nrep * lanes + j
    _put_result(lanes_view, dst, shift, best_raw, cal_index, index)
    return best_raw


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def max_min_runs_kernel(ub, sat, p, width):
    """max_min_levels_kernel for halves or floats with every lane active (the count form, an unmasked high-dim
    call): each repeat's extreme in one vectorised scan of its row (_max_half_run, _max_float_run), then the lane of
    the winning repeat only (the other repeats' lanes never reach dst). A kernel of its own, so such a call compiles
    no lane gather (issue 20; floats since port67b's ReduceMin, 22 us over 8320 on the A2). The count form's tail
    is repeat nrep, shorter (its rep_bytes is 256 and its step L, so r*step and src + r*rep_bytes hold for it too);
    it wins only strictly, as every repeat after the first."""
    kind, op, cal_index, dst, src = p[P_KIND], p[P_OP], p[P_CAL_INDEX] != 0, p[P_DST], p[P_SRC]
    rep_bytes, step, nrep, tail = p[P_REP_BYTES], p[P_STEP], p[P_NREP], p[P_N]
    half = kind == KIND_HALF
    lanes = 128 if half else 64
    h16, i32 = ub_as(ub, np.int16), ub_as(ub, np.int32)
    flip = np.int32(-1) if op == OP_MIN else np.int32(0)
    rows = nrep + (1 if tail > 0 else 0)
    keys = empty_array(rows, np.int32)   # each row's extreme, in a loop per kind (a branch per row in one loop cost
    if half:                             # the halves' call a fifth of its time, review 67)
        for r in range(rows):
            e = (src + r * rep_bytes) >> 1
            keys[r] = _max_half_run(h16[e:e + (lanes if r < nrep else tail)], flip)
    else:
        for r in range(rows):
            e = (src + r * rep_bytes) >> 2
            keys[r] = _max_float_run(i32[e:e + (lanes if r < nrep else tail)], flip)
    nan32 = np.int32(1 << 20) if half else _FLOAT_NAN_KEY32
    best_t, best_raw, best_r, best_m = LOSER, np.int64(0), 0, np.int32(0)
    for r in range(rows):
        m32 = keys[r]
        m = NAN_KEY if m32 == nan32 else np.int64(m32)
        raw = raw_of_key(m, kind, op, sat)   # written to tmp: saturation applies per repeat
        t = directed_key(raw, kind, op)
        if t > best_t:
            best_t, best_raw, best_r, best_m = t, raw, r, m32
    n = lanes if best_r < nrep else tail
    if half:
        e = (src + best_r * rep_bytes) >> 1
        lane = _find_half_run(h16[e:e + n], flip, best_m)
    else:
        e = (src + best_r * rep_bytes) >> 2
        lane = _best_float_run(i32[e:e + n], flip)[1]
    lanes_view = int_lanes(ub, width)
    _put_result(lanes_view, dst, _shift(kind), best_raw, cal_index, best_r * step + lane)
    return best_raw


@internal
def _per_lane_count(ub, half, op, src, rep_bytes, nrep, count, seed):
    """_per_lane for halves without saturation or floats (no saturation: SAT is the identity on their keys), lanes
    active by count and indices advancing by V (the count form and counter mode): (directed key of the value,
    index), in two vectorised passes instead of the lane walk. Without saturation acc[j] is the running maximum of
    lane j, so its final value is the column maximum; its index changes exactly when the value changes (IEEE), so
    the answer's index is the smallest r*V + j over the lanes j holding the result of the first repeat r whose
    element is IEEE-equal to it; when the result is the seed itself no index moved and it is the first lane holding
    the seed. Keys are int32 (_half_key32, _float_key32; seeds are finite)."""
    lanes = 128 if half else 64
    nan_key = np.int32(1 << 20) if half else _FLOAT_NAN_KEY32
    flip = np.int32(-1) if op == OP_MIN else np.int32(0)
    h16, f32 = ub_as(ub, np.int16), ub_as(ub, np.int32)
    # element loops rather than np.full / ndarray.max / np.arange here and in max_min_per_lane_kernel: each numpy
    # routine is a library compile of its own (about 0.6 s together, issue 20)
    acc = empty_array(lanes, np.int32)
    for j in range(lanes):
        acc[j] = np.int32(seed)
    for r in range(nrep):
        n = smaller(lanes, count - r * lanes)
        if half:
            e = (src + r * rep_bytes) >> 1
            row16 = h16[e:e + n]
            for j in range(n):
                acc[j] = larger(acc[j], _half_key32(np.int32(row16[j]), flip))
        else:
            e = (src + r * rep_bytes) >> 2
            row32 = f32[e:e + n]
            for j in range(n):
                acc[j] = larger(acc[j], _float_key32(row32[j], flip))
    m = acc[0]
    for j in range(1, lanes):
        m = larger(m, acc[j])
    if m == nan_key:
        return NAN_KEY, (np.int64(0xFFFE) if half else np.int64(0xFFFFFFFE))
    zero = m == 0 or m == -1  # IEEE: -0 == +0 (directed keys -1 and 0)
    if m == seed or (zero and (seed == 0 or seed == -1)):
        for j in range(lanes):
            if acc[j] == m or (zero and (acc[j] == 0 or acc[j] == -1)):
                return np.int64(m), np.int64(j)
    index = np.int64(-1)
    for j in range(lanes):  # only the lanes holding the result: scan their column for its first occurrence
        if not (acc[j] == m or (zero and (acc[j] == 0 or acc[j] == -1))):
            continue
        for r in range(nrep):
            if r * lanes + j >= count or (index >= 0 and r * lanes + j >= index):
                break
            if half:
                x = _half_key32(np.int32(h16[((src + r * rep_bytes) >> 1) + j]), flip)
            else:
                x = _float_key32(f32[((src + r * rep_bytes) >> 2) + j], flip)
            if x == m or (zero and (x == 0 or x == -1)):
                index = np.int64(r * lanes + j)
                break
    return np.int64(m), index  # the maximum is some element (it is not the seed): index >= 0


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def max_min_per_lane_kernel(ub, sat, p, width):
    """950 algorithm (SPEC-2 8.3.3, D53) with the call plan p (P_* fields): one accumulator per lane seeded with
    the seed, updated by one SAT(ext) per repeat, its index moved when the value changes (IEEE !=); then the extreme
    over the lanes P and the smallest index among the lanes holding it (IEEE ==), 0xFFFE / 0xFFFFFFFE when there is
    none (a NaN result). count >= 0: lane j of repeat r is active iff r*V + j < count and P is every lane; else the
    mask (lo, hi) selects the active lanes and P. Repeat r is read at src + r*rep_bytes; indices advance by `step`
    per repeat. width: the element width's marker (ubview.INT_WIDTHS): one specialisation per width."""
    kind, op, cal_index, dst, src = p[P_KIND], p[P_OP], p[P_CAL_INDEX] != 0, p[P_DST], p[P_SRC]
    rep_bytes, step, nrep, lo, hi, count = p[P_REP_BYTES], p[P_STEP], p[P_NREP], p[P_LO], p[P_HI], p[P_N]
    seed_raw = p[P_SEED]
    size = kind_size(kind)
    shift = _shift(kind)
    lanes = 256 // size if size < 8 else 64  # 64-bit types: two registers of 32 lanes
    lanes_view = int_lanes(ub, width)
    seed = directed_key(seed_raw, kind, op)
    acc = empty_array(lanes, np.int64)
    idx = empty_array(lanes, np.int64)
    for j in range(lanes):
        acc[j] = seed
        idx[j] = j
    exact = not (sat and kind == KIND_HALF)  # no saturation: SAT is the identity on keys
    is_float = kind == KIND_HALF or kind == KIND_FLOAT
    for r in range(nrep):
        base = src + r * rep_bytes
        for j in range(lanes):
            if (r * lanes + j < count) if count >= 0 else lane_active(lo, hi, j):
                x = directed_key(_raw(lanes_view, base + j * size, kind), kind, op)
                if exact:
                    # new = max(acc, x) differs from acc (IEEE) iff x wins, unless acc = -0/+0 and x the other zero
                    # (directed keys -1 and 0); a NaN lane's index never matters (its value matches nothing)
                    if x > acc[j]:
                        if not (is_float and acc[j] == -1 and x == 0):
                            idx[j] = r * step + j
                        acc[j] = x
                    continue
                new = directed_key(raw_of_key(larger(acc[j], x), kind, op, sat), kind, op)
                if not _ieee_equal(new, acc[j], kind):
                    idx[j] = r * step + j
                acc[j] = new
    best = LOSER
    for j in range(lanes):
        if count >= 0 or lane_active(lo, hi, j):
            best = larger(best, acc[j])
    value = raw_of_key(best, kind, op, sat)
    vkey = directed_key(value, kind, op)
    index = np.int64(-1)
    for j in range(lanes):
        if (count >= 0 or lane_active(lo, hi, j)) and _ieee_equal(acc[j], vkey, kind):
            if index < 0 or idx[j] < index:
                index = idx[j]
    if index < 0:
        index = np.int64(0xFFFE) if size == 2 else np.int64(0xFFFFFFFE)
    _put_result(lanes_view, dst, shift, value, cal_index, index)
    return value


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def max_min_per_lane_count_kernel(ub, sat, p, width):
    """max_min_per_lane_kernel for halves without saturation or floats whose lanes are active by count (the count
    form, counter mode): _per_lane_count's two vectorised passes instead of the lane walk (port67b: a float
    ReduceMin with index over 13760 elements took 51 us, numpy's min and argmin 4 us). A kernel of its own, chosen
    per call (saturation is the core's state), so such a call compiles no lane walk (issue 20). Same arguments."""
    kind, op, cal_index, dst, src = p[P_KIND], p[P_OP], p[P_CAL_INDEX] != 0, p[P_DST], p[P_SRC]
    rep_bytes, nrep, count = p[P_REP_BYTES], p[P_NREP], p[P_N]
    seed = directed_key(p[P_SEED], kind, op)
    vkey, index = _per_lane_count(ub, kind == KIND_HALF, op, src, rep_bytes, nrep, count, seed)
    value = raw_of_key(vkey, kind, op, sat)
    lanes_view = int_lanes(ub, width)
    _put_result(lanes_view, dst, _shift(kind), value, cal_index, index)
    return value


# each algorithm's kernels without and with half saturation (the core's state when the call runs)
MAX_MIN_KERNELS = {ALGO_LEVELS: (max_min_levels_kernel,) * 2, ALGO_PER_LANE: (max_min_per_lane_kernel,) * 2,
                   ALGO_LEVELS_RUNS: (max_min_runs_kernel,) * 2,
                   ALGO_PER_LANE_HALF_COUNT: (max_min_per_lane_count_kernel, max_min_per_lane_kernel),
                   ALGO_PER_LANE_FLOAT_COUNT: (max_min_per_lane_count_kernel,) * 2}
