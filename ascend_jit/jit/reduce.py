"""ReduceSum kernels: every device's documented accumulation order (SPEC 4), one generic implementation over a
value type (float32 holding half/float values, int64 holding 32/64-bit integers) selected by a witness argument.

Building blocks:
- `level1`: per-repeat adjacent-pair trees (SPEC 4.1) of many repeats at once. Repeats are gathered into a buffer
  (masked lanes +0, D2) and halved level by level: because every repeat spans a power-of-two number of lanes,
  halving the whole buffer 7 (half) or 6 (float) times is exactly one tree per repeat, and each pass vectorises.
- `group_tree`: the same tree over values already in registers (the tmp-buffer levels).
Every value written to the UB (tmp entries, dst[0]) is written in the order the device writes it, so overlap of
dst with sharedTmpBuffer ends in the device's final state.

Compile cost (issue 20): each algorithm is its own entry kernel with one shared argument list, so a call compiles
its device's algorithm only; device facts and element kinds are int64/bool arguments; the value type is the one
specialisation (float32 or int64: the arithmetic differs), and a marker (`strided`, level1) keeps the masked or
strided repeat walk out of the calls whose repeats are whole and back to back. Helpers are always called with int64
values, never with integer literals, because numba compiles a literal argument as a signature of its own.
Each entry returns the value it stored to dst[0] (the count form's ACC_VAL side result, SPEC 4.2).
"""
import numpy as np
from numba import njit, types
from numba.extending import overload

from .addressing import lane_active
from .numerics import KIND_HALF, float_store_bits, half_bits_to_f32, half_store_bits, internal, kind_size, round_half
from .ubview import ub_as
from .values import combine, load, store
from .lowered import empty_array, larger, smaller

ALG_TREE_SEQ = 0        # A2/A3 count form (SPEC 4.2, D1)
ALG_TREE_TREE = 1       # non-950 high-dim form, repeat >= 1 (SPEC 4.2, 4.3)
ALG_TREE_TREE_TAIL = 2  # 910/310P/310B count form (SPEC 4.3)
ALG_VADD_TREE = 3       # 950 count form and counter-mode high-dim form, 1 or > 4 repeats (SPEC 4.4, D23)
ALG_950_NORMAL = 4      # 950 normal-mode high-dim form (SPEC 4.4)
ALG_SUM64 = 5           # 950 int64/uint64 count form: exact modulo 2**64 (SPEC 4.4)
ALG_VADD_MERGE = 6      # 950 count form and counter-mode high-dim form of 2-4 repeats (SPEC 4.4 table)

CHUNK_REPEATS = 64      # level-1 buffer: 64 repeats (32 KiB of float32) stays in L1


# --- trees -----------------------------------------------------------------------------------------------------
def pair_level(a, b, half, kind, sat):
    """b[k] = a[2k] (+) a[2k+1] for k < half: one level of the adjacent-pair tree (Python path)."""
    for k in range(half):
        b[k] = combine(a[2 * k], a[2 * k + 1], kind, sat)


@overload(pair_level)
def _ol_pair_level(a, b, half, kind, sat):
    if isinstance(a.dtype, types.Float):
        def impl(a, b, half, kind, sat):  # the hot loop: branches hoisted so each variant vectorises
            if kind == KIND_HALF:
                if sat:
                    for k in range(half):
                        b[k] = round_half(a[2 * k] + a[2 * k + 1], True)
                else:
                    for k in range(half):
                        b[k] = round_half(a[2 * k] + a[2 * k + 1], False)
            else:
                for k in range(half):
                    b[k] = a[2 * k] + a[2 * k + 1]
        return impl

    def impl_int(a, b, half, kind, sat):
        for k in range(half):
            b[k] = combine(a[2 * k], a[2 * k + 1], kind, sat)
    return impl_int


@internal(nogil=True)
def _halve(buf, scratch, width, lanes, kind, sat):
    """Adjacent-pair tree over each group of `lanes` values of buf[:width]; returns the array holding the
    width // lanes results at its front."""
    a, b = buf, scratch
    while lanes > 1:
        half = width // 2
        pair_level(a, b, half, kind, sat)
        a, b = b, a
        width = half
        lanes //= 2
    return a


@internal(nogil=True)
def group_tree(vals, n, lanes, kind, sat, witness):
    """tree(vals[g*lanes : g*lanes+lanes]) for g < ceil(n/lanes), the last group padded with +0 (D2)."""
    groups = (n + lanes - 1) // lanes
    buf = empty_array(groups * lanes, vals.dtype)
    for i in range(n):  # element loops, not slice assignment: numba's shape-checked copy costs seconds to compile
        buf[i] = vals[i]
    for i in range(n, groups * lanes):
        buf[i] = witness
    scratch = empty_array(groups * lanes // 2 + 1, vals.dtype)
    res = _halve(buf, scratch, groups * lanes, lanes, kind, sat)
    out = empty_array(groups, vals.dtype)
    for g in range(groups):
        out[g] = res[g]
    return out


# --- lane reads ---------------------------------------------------------------------------------------------------
def _load_run(ub, u16, f32, base, n, kind, witness, row, at):
    """row[at:at+n] = the n consecutive elements from byte `base`; u16 and f32 are the whole UB viewed as uint16 and
    float32, made once per kernel call (a view per run costs more than decoding a repeat). Python path."""
    size = kind_size(kind)
    for j in range(n):
        row[at + j] = load(ub, base + j * size, kind, witness)


# Compiled per value type: the float32 version decodes half/float through the whole-UB views (the loop vectorises,
# no per-element or per-run view), the int64 version goes element by element (950 integers only).
@overload(_load_run)
def _ol_load_run(ub, u16, f32, base, n, kind, witness, row, at):
    if isinstance(witness, types.Float):
        def impl(ub, u16, f32, base, n, kind, witness, row, at):
            # unsigned indices: numba then emits no negative-index wraparound, and the loop vectorises
            dst = np.uint64(at)
            if kind == KIND_HALF:
                e = np.uint64(base // 2)
                for j in range(n):
                    k = np.uint64(j)
                    row[dst + k] = half_bits_to_f32(u16[e + k])
            else:
                e = np.uint64(base // 4)
                for j in range(n):
                    k = np.uint64(j)
                    row[dst + k] = f32[e + k]
        return impl

    def impl_int(ub, u16, f32, base, n, kind, witness, row, at):
        size = kind_size(kind)
        for j in range(n):
            row[at + j] = load(ub, base + j * size, kind, witness)
    return impl_int


@njit(cache=True, nogil=True, inline="always")
def level1(ub, kind, sat, src, rep_bytes, nrep, mask_lo, mask_hi, last_lanes, witness, strided):
    """tree of repeat i (lanes at src + i*rep_bytes + j*size, blkStride 1) for i < nrep, masked lanes +0;
    last_lanes >= 0 limits the last repeat to its first last_lanes lanes (count forms, counter mode).
    strided: 0 when the repeats may be masked or apart (the per-repeat walk is compiled), None when the caller has
    proved them whole and back to back (rep_bytes 256, every lane active: the count forms): the walk is then not
    compiled, about 0.8 s of a first count-form call (issue 20)."""
    size = kind_size(kind)
    lanes = 256 // size
    out = empty_array(nrep, type(witness))
    chunk = smaller(CHUNK_REPEATS, nrep)
    buf = empty_array(chunk * lanes, type(witness))
    scratch = empty_array(chunk * lanes // 2, type(witness))
    u16, f32 = ub_as(ub, np.uint16), ub_as(ub, np.float32)
    first, last_active, active = lanes, -1, 0  # the first and last active lane, and how many
    for j in range(lanes):
        if lane_active(mask_lo, mask_hi, j):
            first = smaller(first, j)
            last_active = j
            active += 1
    full = active == lanes
    holes = active != last_active - first + 1  # inactive lanes between the first and the last active one
    total = nrep * lanes if last_lanes < 0 else (nrep - 1) * lanes + last_lanes  # elements that take part
    zero = np.int64(0)
    for c0 in range(0, nrep, chunk):
        nc = smaller(chunk, nrep - c0)
        walked = False
        if strided is not None:
            if not (full and rep_bytes == 256):
                for r in range(nc):
                    i = c0 + r
                    n = lanes if (last_lanes < 0 or i < nrep - 1) else last_lanes
                    row = r * lanes
                    # one decode run from the first to the last active lane (inside the footprint the API proved),
                    # +0 outside it, and a select for inactive lanes inside it: vectorised, no per-lane walk
                    last = smaller(last_active, n - 1)
                    if last >= first:
                        _load_run(ub, u16, f32, src + i * rep_bytes + first * size, last - first + 1, kind, witness,
                                  buf, row + first)
                    urow = np.uint64(row)  # unsigned indices: no wraparound test, so the loops vectorise
                    for j in range(smaller(first, lanes)):
                        buf[urow + np.uint64(j)] = witness
                    for j in range(larger(last + 1, 0), lanes):
                        buf[urow + np.uint64(j)] = witness
                    if holes:
                        for j in range(first, smaller(last + 1, 64)):
                            k = np.uint64(j)
                            buf[urow + k] = buf[urow + k] if (mask_lo >> j) & 1 else witness
                        for j in range(larger(first, 64), last + 1):
                            k = np.uint64(j)
                            buf[urow + k] = buf[urow + k] if (mask_hi >> (j - 64)) & 1 else witness
                walked = True
        if not walked:  # whole repeats back to back: one decode run for the chunk
            n = smaller(nc * lanes, total - c0 * lanes)
            _load_run(ub, u16, f32, src + c0 * 256, n, kind, witness, buf, zero)
            buf[n:nc * lanes] = witness
        res = _halve(buf, scratch, nc * lanes, lanes, kind, sat)
        for r in range(nc):
            out[c0 + r] = res[r]
    return out


# --- stores ------------------------------------------------------------------------------------------------------
def store_run(ub, addr, kind, vals, n):
    """vals[:n] to consecutive elements from byte addr (Python path)."""
    size = kind_size(kind)
    for i in range(n):
        store(ub, addr + i * size, kind, vals[i])


@overload(store_run)
def _ol_store_run(ub, addr, kind, vals, n):
    if isinstance(vals.dtype, types.Float):
        def impl(ub, addr, kind, vals, n):  # through the whole-UB view (addr is aligned: SPEC 8.2)
            if kind == KIND_HALF:
                h, e = ub_as(ub, np.uint16), np.uint64(addr >> 1)
                for i in range(n):
                    h[e + np.uint64(i)] = half_store_bits(vals[i])
            else:
                w, e = ub_as(ub, np.uint32), np.uint64(addr >> 2)
                for i in range(n):
                    w[e + np.uint64(i)] = float_store_bits(vals[i])
        return impl

    def impl_int(ub, addr, kind, vals, n):
        size = kind_size(kind)
        for i in range(n):
            store(ub, addr + i * size, kind, vals[i])
    return impl_int


# --- the algorithms' shared pieces --------------------------------------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def _tree_tree(ub, kind, sat, dst, src, tmp, rep_bytes, nrep, lo, hi, last, witness, strided):
    """Non-950 high-dim algorithm (SPEC 4.2 steps 1-3; audit 1b): writes tmp as the device does, returns dst."""
    lanes = 256 // kind_size(kind)
    vals = level1(ub, kind, sat, src, rep_bytes, nrep, lo, hi, last, witness, strided)
    store_run(ub, tmp, kind, vals, nrep)
    if nrep == 1:
        res = vals[0]
    else:
        groups = group_tree(vals, nrep, lanes, kind, sat, witness)
        store_run(ub, tmp, kind, groups, groups.size)
        res = groups[0] if groups.size == 1 else group_tree(groups, groups.size, lanes, kind, sat, witness)[0]
    store(ub, dst, kind, res)
    return res


@njit(cache=True, nogil=True, inline="always")
def _upper_levels_950(ub, kind, sat, tmp, vals, lanes, witness):
    """SPEC 4.4: the per-repeat results go to tmp; more than L of them get a third level in place in tmp; one
    last tree gives dst[0]."""
    store_run(ub, tmp, kind, vals, vals.size)
    if vals.size > lanes:
        vals = group_tree(vals, vals.size, lanes, kind, sat, witness)
        store_run(ub, tmp, kind, vals, vals.size)
    return group_tree(vals, vals.size, lanes, kind, sat, witness)[0]


@internal(nogil=True)
def _combine_rows(a, b, n, kind, sat):
    """a[k] = a[k] (+) b[k] for k < n: one VADD of the 950's count form, in place (the lanes are independent)."""
    for k in range(n):
        a[k] = combine(a[k], b[k], kind, sat)


# --- entry kernels: one per algorithm, one argument list ---------------------------------------------------------
# (ub, kind, sat, dst, src, tmp, rep_bytes, n, mask_lo, mask_hi, witness, strided): n is the count (count forms,
# counter mode) or the repeat count (high-dim forms); witness is float32 0 (half/float) or int64 0 (integers);
# strided is level1's marker (None: whole repeats back to back; the kernels without level1 ignore it).

@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def sum_tree_seq(ub, kind, sat, dst, src, tmp, rep_bytes, n, mask_lo, mask_hi, witness, strided):
    """A2/A3 count form: a tree per repeat, then the repeat results added in order (SPEC 4.2, D1)."""
    lanes = 256 // kind_size(kind)
    nrep = (n + lanes - 1) // lanes
    full = np.int64(-1)
    vals = level1(ub, kind, sat, src, np.int64(256), nrep, full, full, n - (nrep - 1) * lanes, witness, strided)
    acc = vals[0]
    for r in range(1, nrep):
        acc = combine(acc, vals[r], kind, sat)  # D1: rounded to T after every repeat
    store(ub, dst, kind, acc)
    return acc


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def sum_tree_tree(ub, kind, sat, dst, src, tmp, rep_bytes, n, mask_lo, mask_hi, witness, strided):
    """Non-950 high-dim form (SPEC 4.2, 4.3): n repeats >= 1."""
    return _tree_tree(ub, kind, sat, dst, src, tmp, rep_bytes, n, mask_lo, mask_hi, np.int64(-1), witness, strided)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def sum_tree_tree_tail(ub, kind, sat, dst, src, tmp, rep_bytes, n, mask_lo, mask_hi, witness, strided):
    """910/310P/310B count form (SPEC 4.3): the whole repeats as a high-dim call, the tail as another, then the
    two results added (the tail last)."""
    size = kind_size(kind)
    lanes = 256 // size
    full, whole = np.int64(-1), np.int64(256)
    body_repeats, tail = n // lanes, n % lanes
    # one _tree_tree call site (it is inlined): the whole repeats, then the tail as one repeat of `tail` lanes
    # (a count under one repeat is the tail alone)
    parts = (1 if body_repeats > 0 else 0) + (1 if tail > 0 else 0)
    body = t = witness
    for k in range(parts):
        is_body = k == 0 and body_repeats > 0
        res = _tree_tree(ub, kind, sat, dst, src if is_body else src + body_repeats * 256, tmp, whole,
                         body_repeats if is_body else np.int64(1), full, full, full if is_body else tail, witness,
                         strided)
        if is_body:
            body = res
        else:
            t = res
    if parts == 1:
        return body if tail == 0 else t
    store(ub, tmp, kind, body)
    store(ub, tmp + size, kind, t)
    pair = empty_array(2, type(witness))
    pair[0], pair[1] = body, t
    res = group_tree(pair, np.int64(2), lanes, kind, sat, witness)[0]  # tail added last (SPEC 4.3)
    store(ub, tmp, kind, res)
    store(ub, dst, kind, res)
    return res


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def sum_vadd_tree(ub, kind, sat, dst, src, tmp, rep_bytes, n, mask_lo, mask_hi, witness, strided):
    """950 count form of one repeat or more than four (SPEC 4.4 table; audit 3): one tree, or 2 or 3 tree levels."""
    lanes = 256 // kind_size(kind)
    full = np.int64(-1)
    nrep = (n + lanes - 1) // lanes
    vals = level1(ub, kind, sat, src, rep_bytes, nrep, full, full, n - (nrep - 1) * lanes, witness, strided)
    res = vals[0] if nrep == 1 else _upper_levels_950(ub, kind, sat, tmp, vals, lanes, witness)
    store(ub, dst, kind, res)
    return res


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def sum_vadd_merge(ub, kind, sat, dst, src, tmp, rep_bytes, n, mask_lo, mask_hi, witness, strided):
    """950 count form of 2 to 4 repeats (SPEC 4.4 table; audit 3): VADD merges of the repeats, then one tree. Its own
    entry (chosen by the count when the call is validated), so a call compiles only the path it takes (issue 20)."""
    lanes = 256 // kind_size(kind)
    nrep = (n + lanes - 1) // lanes
    part = n - (nrep - 1) * lanes  # lanes of the last repeat that take part (MERGING add)
    regs = empty_array(4 * lanes, type(witness))  # only the loaded lanes are ever read
    u16, f32 = ub_as(ub, np.uint16), ub_as(ub, np.float32)
    for r in range(nrep):
        # the device loads whole repeats, but only the first `part` lanes of the last one are ever used:
        # reading no further keeps the kernel inside the footprint the API proved (count elements)
        _load_run(ub, u16, f32, src + r * rep_bytes, lanes if r < nrep - 1 else part, kind, witness, regs, r * lanes)
    r0, r1, r2, r3 = regs[0:lanes], regs[lanes:2 * lanes], regs[2 * lanes:3 * lanes], regs[3 * lanes:4 * lanes]
    if nrep == 2:
        _combine_rows(r0, r1, part, kind, sat)
    elif nrep == 3:
        _combine_rows(r0, r1, lanes, kind, sat)
        _combine_rows(r0, r2, part, kind, sat)
    else:
        _combine_rows(r2, r3, part, kind, sat)   # (r2 + r3) merging on the tail's lanes
        _combine_rows(r0, r1, lanes, kind, sat)
        _combine_rows(r0, r2, lanes, kind, sat)  # (r0 + r1) + (r2 + r3)
    res = group_tree(r0, lanes, lanes, kind, sat, witness)[0]
    store(ub, dst, kind, res)
    return res


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def sum_950_normal(ub, kind, sat, dst, src, tmp, rep_bytes, n, mask_lo, mask_hi, witness, strided):
    """950 normal-mode high-dim form (SPEC 4.4): n repeats >= 1 (D7)."""
    lanes = 256 // kind_size(kind)
    vals = level1(ub, kind, sat, src, rep_bytes, n, mask_lo, mask_hi, np.int64(-1), witness, strided)
    res = vals[0] if n <= 1 else _upper_levels_950(ub, kind, sat, tmp, vals, lanes, witness)
    store(ub, dst, kind, res)
    return res


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def sum_int64(ub, kind, sat, dst, src, tmp, rep_bytes, n, mask_lo, mask_hi, witness, strided):
    """950 int64/uint64 count form: integer addition modulo 2**64 is associative, so any order gives these bits."""
    v, e = ub_as(ub, np.int64), src >> 3
    acc = witness
    for j in range(n):
        acc += v[e + j]
    store(ub, dst, kind, acc)
    return acc


KERNELS = {ALG_TREE_SEQ: sum_tree_seq, ALG_TREE_TREE: sum_tree_tree, ALG_TREE_TREE_TAIL: sum_tree_tree_tail,
           ALG_VADD_TREE: sum_vadd_tree, ALG_950_NORMAL: sum_950_normal, ALG_SUM64: sum_int64,
           ALG_VADD_MERGE: sum_vadd_merge}
