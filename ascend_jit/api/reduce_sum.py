"""ReduceSum: the count form and the high-dim form (continuous or bit mask) with each device's documented
accumulation order (SPEC 4; decisions D1, D2, D7, D11, D14, D16, D17, D18, D22, D23, D26)."""
import math
from functools import lru_cache

import numpy as np

from ..devices import COUNT_UNTOUCHED, TREE_SEQ, TREE_TREE_950, TREE_TREE_TAIL, VADD_TREE, get_device
from ..core import continuous_mask_words
from ..dtypes import resolve
from ..errors import OverlapError, ParameterError, StateError, UnsupportedDTypeError
from ..jit.direct import EntryTable
from ..jit.reduce import (ALG_950_NORMAL, ALG_SUM64, ALG_TREE_SEQ, ALG_TREE_TREE, ALG_TREE_TREE_TAIL, ALG_VADD_MERGE,
                          ALG_VADD_TREE, KERNELS)
from ..sanitizer import ENDS_WITH_SCALAR_RESULT, PIPE_S, PIPE_V, bit_mask_scratch_flags, vector_access
from ..tensor import LocalTensor
from ._common import (MASK_PLACEHOLDER, UINT64_MAX, Operand, as_flag, as_int, as_signed64, check_align,
                      check_count_within, check_reduction_dtype, check_range, first_touch, mask_words, operands,
                      plan_mask, refuse_advanced_reduce_form, remember, split_forms)
from ._facts import check_operand_bounds

API = "ReduceSum"
INT32_MAX = 2**31 - 1
_COUNT_ALGO = {TREE_SEQ: ALG_TREE_SEQ, TREE_TREE_TAIL: ALG_TREE_TREE_TAIL, VADD_TREE: ALG_VADD_TREE}


def _vadd_algo(count, lanes):
    """The 950's count algorithm (SPEC 4.4 table) is two kernels, one per path, so a call compiles only its own:
    VADD merges for 2-4 repeats, trees otherwise."""
    return ALG_VADD_MERGE if lanes < count <= 4 * lanes else ALG_VADD_TREE


def _check_bounds(spec, bounds, op, addr, size, d):
    return check_operand_bounds(API, spec, bounds, op, addr, size, d)


def _dst_operand(d, dst_addr):
    """dst[0], the one element ReduceSum writes."""
    return Operand("dst", dst_addr, d.size, 1, 0, 1, 1, 0)


def _round_up(n, multiple):
    return -(-n // multiple) * multiple


def GetReduceSumTmpSize(device, dtype, count=None, repeat_time=None, counter_mode=False):
    """Minimum sharedTmpBuffer elements (D11, D18) for the count form (`count=`) or the high-dim form
    (`repeat_time=`; with counter_mode on the 950, pass the element count as `count` together with repeat_time).
    Answers only for a call ReduceSum would accept: its own validators refuse the rest, with ReduceSum's error
    classes and ranges (a size for a refused call is no answer)."""
    api = "GetReduceSumTmpSize"
    spec, d = get_device(device), resolve(dtype, api)
    spec.require_supported(api)   # SPEC D13: the inference Vector Core is refused by every API
    check_reduction_dtype(api, spec, d, spec.reduce_sum_dtypes)
    if as_flag(api, spec, "counter_mode", counter_mode) and repeat_time is not None:
        _refuse_counter_mode_off_950(api, spec)
        _check_high_dim_dtype(api, spec, d)
        _check_repeat_time(api, spec, repeat_time)  # checked, then ignored (D23)
        if count is None:
            raise ParameterError(api, "count", None, legal="the counter-mode element count (D23)", device=spec.name)
        return _tmp_minimum(spec, d, count=_check_count(api, spec, d, "count", count), counter_mode=True)
    form, values = split_forms(api, (), count, dict(repeat_time=repeat_time), 2, spec.name, _TMP_SIZE_FORMS)
    if form == "count":
        return _tmp_minimum(spec, d, count=_check_count(api, spec, d, "count", values[0]))
    _check_high_dim_dtype(api, spec, d)
    repeat_time = _check_repeat_time(api, spec, values[0])
    _check_repeat_results(api, spec, d, repeat_time)
    return _tmp_minimum(spec, d, repeat_time=repeat_time)


_TMP_SIZE_FORMS = ("count= (count form), repeat_time= (high-dim form), or count= with repeat_time= and "
                   "counter_mode=True (the 950's counter-mode high-dim form)")


def _tmp_minimum(spec, d, count=None, repeat_time=None, counter_mode=False):
    """The minimum of the decisions.md table (D11, D18) for validated arguments."""
    lanes, epb = d.lanes_per_repeat, d.lanes_per_block
    if repeat_time is not None:
        return _round_up(repeat_time, epb)
    algo = VADD_TREE if counter_mode else spec.reduce_sum_count_algorithm
    if algo == TREE_SEQ:
        return 0                                          # SPEC 4.2: tmp is never touched
    if algo == TREE_TREE_TAIL:
        return _round_up(max(count // lanes, 1), epb)     # first level writes floor(count/L) (>= 1) entries
    return _round_up(-(-count // lanes), epb)             # D11: 950 writes ceil(count/L) entries


def _tmp_written(spec, d, count=None, repeats=None):
    """The sharedTmpBuffer elements the device's algorithm writes, tmp[0 .. n-1] (the minimum of D11/D18 is a
    size rule and can be larger, or non-zero where nothing is written). The src overlap rule (decisions.md
    "Overlap") and the sanitizer's write footprint both use it. `count`: the count form, or the 950's counter-mode
    high-dim form (the same dispatch, SPEC 4.4); `repeats`: a normal-mode high-dim call."""
    lanes = d.lanes_per_repeat
    if repeats is not None:
        if spec.reduce_sum_highdim_algorithm == TREE_TREE_950:
            return repeats if repeats > 1 else 0          # SPEC 4.4: R <= 1 is one tree straight into dst[0]
        return repeats                                    # SPEC 4.2 / audit 1: tmp[0..R-1], R = 1 included
    if spec.reduce_sum_tmp_untouched_count or d.name in spec.reduce_sum_count_only_dtypes:
        return 0                                          # SPEC 4.2; audit 3: 64-bit sums never touch tmp
    if spec.reduce_sum_count_algorithm == TREE_TREE_TAIL:  # audit 2: body tmp[0..R-1] (R >= 1), tail pair tmp[0..1]
        body, tail = divmod(count, lanes)
        return 1 if body == 0 else (max(body, 2) if tail else body)
    return -(-count // lanes) if count > 4 * lanes else 0  # SPEC 4.4: the VADD merges (N <= 4L) stay in registers


def ReduceSum(dst, src, shared_tmp_buffer, *args, is_set_mask=True, count=None, mask=None, repeat_time=None,
              src_rep_stride=None):
    """`ReduceSum(dst, src, tmp, count)` or `ReduceSum(dst, src, tmp, mask, repeat_time, src_rep_stride)`."""
    # The hot path (issue 21): a call shape validated before, on a core without a sanitizer, runs its memoised
    # kernel call straight away; anything else (first calls, refusals, other argument types) takes the full path
    # below, which validates and memoises. The guards re-check per call what the memo key cannot hold: the
    # operands' types and core, their leases, and the core state the call reads.
    if type(dst) is LocalTensor and type(src) is LocalTensor and type(shared_tmp_buffer) is LocalTensor:
        core = dst._core
        if (core.sanitizer is None and src._core is core and shared_tmp_buffer._core is core
                and (dst._lease is None or dst._lease.alive) and (src._lease is None or src._lease.alive)
                and (shared_tmp_buffer._lease is None or shared_tmp_buffer._lease.alive)):
            if len(args) == 1 and count is None and mask is None and repeat_time is None and src_rep_stride is None \
                    and is_set_mask is True and type(args[0]) is int:  # (a high-dim keyword: the full path, audit38m)
                call = _COUNT_CALLS.get((core.spec, core.bounds, src._dtype, dst._dtype, shared_tmp_buffer._dtype,
                                         dst._addr, src._addr, shared_tmp_buffer._addr, dst._size, src._size,
                                         shared_tmp_buffer._size, args[0]))
                if call is not None:
                    call.run(core)
                    return
            elif (len(args) == 3 and count is None and mask is None and repeat_time is None and src_rep_stride is None
                  and is_set_mask is True and not core.counter_mode and type(args[1]) is int
                  and type(args[2]) is int):
                words = _mask_key(args[0])
                if words is not None:
                    call = _HIGH_DIM_CALLS.get((core.spec, core.bounds, src._dtype, dst._dtype,
                                                shared_tmp_buffer._dtype, dst._addr, src._addr, shared_tmp_buffer._addr,
                                                dst._size, src._size, shared_tmp_buffer._size, words, args[1], args[2]))
                    if call is not None:
                        call.run(core)
                        return
    refuse_advanced_reduce_form(API, dst, src, shared_tmp_buffer, args, (count, mask, repeat_time, src_rep_stride))
    if len(args) == 1 and count is None and mask is None and repeat_time is None and src_rep_stride is None:
        return reduce_sum_count(dst, src, shared_tmp_buffer, args[0], is_set_mask)
    # SPEC-2 1.1: each value positionally or by keyword, the first ones positionally and the rest by keyword too
    # (decisions.md "Forms by position or keyword"). operands() first: a non-tensor operand is refused as before.
    high = dict(mask=mask, repeat_time=repeat_time, src_rep_stride=src_rep_stride)
    form, values = split_forms(API, args, count, high, 3, operands(API, dst, src, shared_tmp_buffer).device, _FORMS)
    if form == "count":
        return reduce_sum_count(dst, src, shared_tmp_buffer, values[0], is_set_mask)
    if not as_flag(API, None, "is_set_mask", is_set_mask):
        raise ParameterError(API, "is_set_mask", False, device=operands(API, dst, src, shared_tmp_buffer).device,
                             legal="True",
                             detail="the high-dim ReduceSum has no isSetMask template parameter (seed prototypes)")
    return reduce_sum_high_dim(dst, src, shared_tmp_buffer, *values)


_FORMS = "(dst, src, sharedTmpBuffer, count) or (dst, src, sharedTmpBuffer, mask, repeat_time, src_rep_stride)"


# --- the checks ReduceSum and GetReduceSumTmpSize share (one definition each: the helper refuses what ReduceSum
# refuses, with the same classes and ranges) --------------------------------------------------------------------------
def _check_count(api, spec, d, name, count):
    """D16: a count (or the 950's counter-mode count) in [1, UB bytes / sizeof(T)], the devkit's assert; an integer
    first (refused as "an integer", as reduce_sum_count does before its cache key)."""
    return check_range(api, spec, name, as_int(api, spec, name, count), 1, spec.ub_bytes // d.size)


def _check_high_dim_dtype(api, spec, d):
    if d.name in spec.reduce_sum_count_only_dtypes:
        raise UnsupportedDTypeError(api, "dtype", d.name, device=spec.name,
                                    legal=", ".join(t for t in spec.reduce_sum_dtypes
                                                    if t not in spec.reduce_sum_count_only_dtypes),
                                    detail="64-bit types only through the count form (SPEC 4.5)")


def _check_repeat_time(api, spec, repeat_time):
    """The C++ int32_t repeatTime (SPEC 1.4; D17 bounds it further in normal mode)."""
    return check_range(api, spec, "repeat_time", repeat_time, 0, INT32_MAX)


def _check_repeat_results(api, spec, d, repeat_time):
    """D17: at most L*L repeat results in normal mode."""
    lanes = d.lanes_per_repeat
    if repeat_time > lanes * lanes:
        raise ParameterError(api, "repeat_time", repeat_time, legal=f"[0, {lanes * lanes}] (L*L)", device=spec.name,
                             detail="more repeat results than one two-level tree holds; the devices silently drop "
                                    "them (D17, audit 1b)")


def _refuse_counter_mode_off_950(api, spec):
    if spec.reduce_sum_highdim_algorithm != TREE_TREE_950:
        raise StateError(api, "mask mode", "counter", device=spec.name, legal="normal mode (SetMaskNorm)",
                         detail="the high-dim ReduceSum is defined in counter mode on the 950 only (D23)")


def _common_checks(spec, bounds, d, dd, dt_, dst_addr, src_addr, tmp_addr, dst_size):
    check_reduction_dtype(API, spec, d, spec.reduce_sum_dtypes)
    for name, other in (("dst", dd), ("sharedTmpBuffer", dt_)):
        if other is not d:
            raise UnsupportedDTypeError(API, f"{name}.dtype", other.name, legal=f"{d.name} (as src)", device=spec.name)
    check_align(API, spec, "src", src_addr, 32)
    check_align(API, spec, "sharedTmpBuffer", tmp_addr, 32)
    check_align(API, spec, "dst", dst_addr, d.size)  # SPEC 4.5: 2 B (half) / 4 B (float)
    _check_bounds(spec, bounds, _dst_operand(d, dst_addr), dst_addr, dst_size, d)


# a dst inside src at another address than src's: say what to write instead
_IN_PLACE_HINT = ("; dst may share sharedTmpBuffer's bytes, or src's first element (the same address), not other "
                  "bytes of src: reduce into the tmp buffer or another one")


# a tmp over src where this device's algorithm writes its partial sums (port60c wrote the A2's ReduceSum(t, t, t, n)
# on the 310P; since session 66 the non-950 trees, and since session 67 the 950's count form, accept a tmp at src's
# own address, decisions.md "Reductions in place")
_TMP_OVER_SRC_HINT = ("; this device's algorithm writes its partial sums to sharedTmpBuffer while src is still read "
                      "(D11, D18): pass a buffer apart from src")
# the 950's high-dim forms (SPEC 4.4): their ReduceMask / ReduceCount loop has the count form's order, but the
# in-place form was accepted for the count form only (session 67, decisions.md "Reductions in place")
_TMP_950_HIGH_DIM_HINT = ("; this device's algorithm writes its partial sums to sharedTmpBuffer while src is still "
                          "read (D11, D18), and on the 950 a sharedTmpBuffer at src's address is accepted in the count "
                          "form ReduceSum(dst, src, tmp, count) only, not in the high-dim form (decisions.md "
                          "\"Reductions in place\"): pass a buffer apart from src")
_TMP_INSIDE_SRC_HINT = ("; this device's algorithm writes its partial sums to sharedTmpBuffer while src is still "
                        "read (D11, D18): sharedTmpBuffer may start at src's own address (repeat i's sum lands in "
                        "bytes a repeat already read, decisions.md \"Reductions in place\"), not elsewhere inside "
                        "src: pass src itself or a buffer apart from src")


def _tmp_in_place_ok(spec, count_form):
    """Whether a sharedTmpBuffer at src's own address is the in-place form on this device: the non-950 trees (the
    910/310P/310B count form, SPEC 4.3; every non-950 high-dim form, SPEC 4.2, 4.3), whose vcadd repeat i reads its
    whole source before writing tmp[i] at byte i*sizeof(T) (dav_c220 / dav_c100 / dav_m200 / dav_m300
    ReduceSumFirstStep), and since session 67 the 950's count form (SPEC 4.4), whose ReduceCount loop (dav_3510
    kernel_operator_vec_reduce_impl.h) loads repeat i at byte 256*i and stores work entry i at byte i*sizeof(T),
    below every later load, then reads the work buffer only (decisions.md "Reductions in place"). The 950's
    high-dim forms (normal and counter mode) keep refusing it: not part of that change (_TMP_950_HIGH_DIM_HINT)."""
    if count_form:
        return spec.reduce_sum_count_algorithm in (TREE_TREE_TAIL, VADD_TREE)
    return spec.reduce_sum_highdim_algorithm != TREE_TREE_950


def _check_tmp_at_src(spec, d, dst_addr, tmp_addr, src_op, written, tree_repeats):
    """A sharedTmpBuffer at src's own address on a device where _tmp_in_place_ok (decisions.md "Reductions in
    place", SPEC 8.2's across-repeat rule): tmp entry i (byte i*sizeof(T) from src) is written by repeat i of the
    first level after that repeat read its source, so the result is the out-of-place one unless a LATER repeat reads
    entry i. With a repeat stride of 32 bytes or more no later repeat can (repeat j > i starts at byte j*32 >=
    (i+1)*sizeof(T)); with srcRepStride 0 every repeat reads repeat 0's bytes, and an active lane over entry i < R-1
    is read again after the write: refused. The later levels read tmp only (the count form's tail repeat, at byte
    R*256, is read before any write reaches it: writes stay below max(R, 2)*sizeof(T)). One device case differs
    from the out-of-place call: on the 910 and 310B (dav_c100 / dav_m300 ReduceSumSecondStep, no counter mode) a
    tree of R > L results with R % L != 0 sends its last level-2 group through dst[0] (vcadd into dst, then a scalar
    copy to tmp[R // L]); a dst over tmp[0 .. R//L - 1] replaces a group's partial sum before the final level reads
    it: refused, with that reason."""
    size, lanes = d.size, d.lanes_per_repeat
    step = src_op.rep * 32
    if step == 0 and src_op.repeat >= 2:
        read_again = min(written, src_op.repeat - 1)   # entries 0 .. R-2 have a later repeat
        hit = first_touch(Operand("src", src_op.base, size, src_op.lo, src_op.hi, 1, src_op.blk, 0),
                          tmp_addr, tmp_addr + read_again * size)
        if hit is not None:
            k = (hit[1] - tmp_addr) // size
            raise OverlapError(API, "src/sharedTmpBuffer", f"sharedTmpBuffer bytes [{tmp_addr}, "
                               f"{tmp_addr + written * size})", device=spec.name,
                               legal="at src's address only where no later repeat reads the tmp entries (SPEC 8.2), "
                                     "or apart from src",
                               detail=f"src_rep_stride 0: repeat {k} writes its sum (tmp entry {k}) to byte {hit[1]}, "
                                      f"which repeat {k + 1} then reads again (SPEC 8.2: an earlier repeat's result "
                                      "must not be a later repeat's source): pass a buffer apart from src")
    if spec.reduce_sum_step2_flags and tree_repeats > lanes and tree_repeats % lanes:
        groups = tree_repeats // lanes
        if tmp_addr <= dst_addr < tmp_addr + groups * size:
            entry = (dst_addr - tmp_addr) // size
            raise OverlapError(API, "dst/sharedTmpBuffer", f"dst at sharedTmpBuffer entry {entry}", device=spec.name,
                               legal=f"dst apart from sharedTmpBuffer entries [0, {groups}) for this call",
                               detail=f"{tree_repeats} repeat results (more than L = {lanes}, not a multiple of it): "
                                      "this device's second step (dav_c100 / dav_m300 ReduceSumSecondStep) writes "
                                      f"the last group's sum to dst[0] and then copies it to tmp[{groups}], so a dst "
                                      "there overwrites a group's partial sum before the final level reads it and "
                                      "the device's result differs from the out-of-place call's: pass dst or "
                                      "sharedTmpBuffer apart from src")


def _check_tmp_and_overlaps(spec, d, dst_addr, tmp_addr, tmp_size, src_op, need, written, count_form=False,
                            tree_repeats=0):
    """tmp holds the minimum `need` (D11, D18); src overlaps neither dst[0] nor the `written` tmp entries
    (_tmp_written), on the exact bytes src's repeats read (decisions.md "Overlap"): a dst or tmp in the unread gaps
    of a strided src is legal, and so is a tmp over src where the algorithm writes no tmp (SPEC 4.2, 4.4).
    A dst at src's own address is the full overlap SPEC 3.3 allows a count API (SPEC 4.5: "otherwise the general
    overlap rule applies"; in the high-dim form dst starts at its repeat's first byte, as the repeat reductions' in
    place form), `ReduceSum(t, t, tmp, n)` as ported kernels write it; every algorithm writes dst[0] once, after
    its last read of src (decisions.md "Reductions in place"). A tmp at src's own address is the same in-place
    form on the non-950 trees and the 950's count form (_tmp_in_place_ok, _check_tmp_at_src; `count_form` and
    `tree_repeats`, the first level's repeat count, say which algorithm runs)."""
    if tmp_size < need:
        raise ParameterError(API, "sharedTmpBuffer.GetSize()", tmp_size, legal=f">= {need} elements", device=spec.name,
                             detail=f"too small: the algorithm needs {need} elements (D11, D18)")
    dst_ext = (dst_addr, dst_addr + d.size)
    tmp_ext = (tmp_addr, tmp_addr + written * d.size)
    in_place_ok = _tmp_in_place_ok(spec, count_form)
    for name, ext in (("dst", dst_ext), ("sharedTmpBuffer", tmp_ext)):
        if name == "dst" and dst_addr == src_op.base:
            continue
        if name == "sharedTmpBuffer" and written and tmp_addr == src_op.base and in_place_ok:
            _check_tmp_at_src(spec, d, dst_addr, tmp_addr, src_op, written, tree_repeats)
            continue
        hit = first_touch(src_op, *ext)
        if hit is not None:
            raise OverlapError(API, f"src/{name}", f"{name} bytes [{ext[0]}, {ext[1]})", device=spec.name,
                               legal="disjoint from the bytes src's repeats read" +
                                     (", or at src's address (SPEC 3.3, 4.5)" if name == "dst" else
                                      (", or at src's address (SPEC 4.5, 8.2)" if in_place_ok else
                                       " (SPEC 4.5, 8.2)")),
                               detail=f"src repeat {hit[0]} reads byte {hit[1]}" +
                                      (_IN_PLACE_HINT if name == "dst" else
                                       (_TMP_INSIDE_SRC_HINT if in_place_ok else
                                       _TMP_950_HIGH_DIM_HINT if (tmp_addr == src_op.base and not count_form and
                                                                  spec.reduce_sum_highdim_algorithm == TREE_TREE_950)
                                       else _TMP_OVER_SRC_HINT)))


_ENTRIES = EntryTable()
_FLOAT_WITNESS, _INT_WITNESS = np.float32(0.0), np.int64(0)  # the kernels' value type: float32 or int64


_UB_WITNESS = np.zeros(0, np.uint8)  # a UB's numba type: every core's UB is a C-contiguous uint8 vector


# The algorithms whose first level (jit/reduce.py level1) walks masked or strided repeats when its `strided` marker
# is 0; the others take the marker as None always (no second specialisation of a kernel that never walks)
_WALKING = frozenset({ALG_TREE_SEQ, ALG_TREE_TREE, ALG_TREE_TREE_TAIL, ALG_VADD_TREE, ALG_950_NORMAL})


def _strided(d, rep_bytes, lo, hi):
    """Whether a call's repeats may be masked or apart: a lane inactive, or a repeat stride other than 8 blocks.
    Calls whose repeats are whole and back to back (every count form) compile no walk (issue 20)."""
    full_hi, full_lo = continuous_mask_words(d.lanes_per_repeat)
    return rep_bytes != 256 or (lo & full_lo) != full_lo or (hi & full_hi) != full_hi


def _entry(d, algo, strided):
    """The compiled entry of `algo` for d's value type and walk (compiled on first use), the value-type witness and
    level1's marker (0: masked or strided repeats, None: whole repeats back to back)."""
    witness = _FLOAT_WITNESS if d.is_float else _INT_WITNESS
    marker = 0 if strided and algo in _WALKING else None
    return _ENTRIES.get((algo, d.is_float, marker is None), KERNELS[algo], (_UB_WITNESS, d.kind, False, 0, 0, 0, 0, 0,
                                                                           0, 0, witness, marker)), witness, marker


def _run(core, d, algo, dst, src, tmp, rep_bytes, n):
    """One compiled call with every lane active (the algorithm's entry for the value type, no numba dispatch);
    returns dst[0]'s value."""
    entry, witness, marker = _entry(d, algo, rep_bytes != 256)
    return entry(core.ub, d.kind, core.half_saturating, dst.addr, src.addr, tmp.addr, rep_bytes, n, -1, -1, witness,
                 marker)


# --- memoised calls (issue 21) --------------------------------------------------------------------------------------
# A validated call shape becomes a call object holding its compiled entry, the kernel's arguments as plain ints and
# its effects on the core; ReduceSum's hot path finds it by the operands' facts and the call's arguments. The memos
# hold no tensors or cores (only device specs, dtypes and ints), and are cleared when full.
_COUNT_CALLS = {}
_HIGH_DIM_CALLS = {}
_MAX_CALLS = 4096
AFTER_NOTHING, AFTER_COUNT_MASK, AFTER_UNDEFINED = 0, 1, 2  # the count form's mask-register effect (SPEC 2.6, D22)


def _layout(core, dst, src, tmp):
    """The memo key's operand part: the facts the validation reads (the hot path in ReduceSum builds the same)."""
    return (core.spec, core.bounds, src._dtype, dst._dtype, tmp._dtype, dst._addr, src._addr, tmp._addr, dst._size,
            src._size, tmp._size)


class _CountCall:
    """One validated count-form call shape."""
    __slots__ = ("entry", "kind", "dst", "src", "tmp", "count", "witness", "marker", "acc_type", "after")

    def __init__(self, d, algo, after, dst_addr, src_addr, tmp_addr, count):
        self.entry, self.witness, self.marker = _entry(d, algo, False)  # count forms: whole repeats back to back
        self.kind, self.dst, self.src, self.tmp, self.count = d.kind, dst_addr, src_addr, tmp_addr, count
        self.acc_type = d.np_dtype.type if d.is_float else None
        self.after = after

    def run(self, core, is_set_mask=True):
        value = self.entry(core.ub, self.kind, core.half_saturating, self.dst, self.src, self.tmp, 256, self.count, -1,
                           -1, self.witness, self.marker)
        if self.acc_type is not None:  # GetReduceRepeatSumSpr: the count form's scalar side result (SPEC 4.2 ACC_VAL,
            # 4.4 accVal): dst[0] as stored, a scalar of T (NaN: canonical, +)
            core.acc_val = self.acc_type(value) if value == value else self.acc_type(math.nan)
        if self.after == AFTER_COUNT_MASK:
            if is_set_mask:
                core._after_count_call()  # Normal mode, all-ones mask (SPEC 4.2 step 5, audit 1a)
        elif self.after == AFTER_UNDEFINED:
            core.mask_defined = False     # built from high-dim calls: the register holds implementation state (D22)


class _HighDimCall:
    """One validated normal-mode high-dim call shape."""
    __slots__ = ("entry", "kind", "dst", "src", "tmp", "rep_bytes", "repeats", "lo", "hi", "witness", "marker",
                 "is_950", "mask_words", "zero_dst", "dst_bytes")

    def __init__(self, d, is_950, plan, dst_addr, src_addr, tmp_addr, rep_bytes, repeats, zero_dst):
        runs = repeats > 0 and not plan.empty
        self.entry, self.witness, self.marker = (
            _entry(d, ALG_950_NORMAL if is_950 else ALG_TREE_TREE, _strided(d, rep_bytes, plan.lo, plan.hi)) if runs
            else (None, None, None))
        self.kind, self.dst, self.src, self.tmp, self.dst_bytes = d.kind, dst_addr, src_addr, tmp_addr, d.size
        self.rep_bytes, self.repeats, self.lo, self.hi = rep_bytes, repeats, as_signed64(plan.lo), as_signed64(plan.hi)
        self.is_950 = is_950
        self.mask_words = (plan.hi, plan.lo) if is_950 and plan.bit_mode else None  # audit 3: the bit form writes it
        self.zero_dst = zero_dst

    def run(self, core):
        if not self.is_950:
            core.mask_defined = False  # D22: implementation state after a non-950 high-dim ReduceSum
        if self.entry is not None:  # core state (the mask register) changes only after the kernel ran
            self.entry(core.ub, self.kind, core.half_saturating, self.dst, self.src, self.tmp, self.rep_bytes,
                       self.repeats, self.lo, self.hi, self.witness, self.marker)
        elif self.zero_dst:
            core.ub[self.dst:self.dst + self.dst_bytes] = 0  # D14 / audit 2: the 310B writes +0 to dst[0]
        if self.mask_words is not None:
            core.mask_high, core.mask_low = self.mask_words
            core.mask_defined = True


def _sanitize(core, spec, d, dst, src, tmp, src_footprint, acc_val=False, own_flags=((), ()), **tmp_args):
    """The sanitizer's view of one ReduceSum: src read, dst[0] and the tmp elements the algorithm writes
    (_tmp_written, the entries the overlap rule keeps apart from src; their contents are the algorithm's, SPEC 4),
    and ACC_VAL for the count form (read later through GetReduceRepeatSumSpr, on the scalar pipe); `own_flags`
    (_own_flags) the implementation's SetFlag/WaitFlag pairs."""
    writes = [(("dst", dst.addr, d.size), dst)]
    written = _tmp_written(spec, d, **tmp_args)
    if written:
        writes.append((("sharedTmpBuffer", tmp.addr, written * d.size), tmp))
    if acc_val:
        writes.append((core.sanitizer.spr("ACC_VAL"), None))
    vector_access(core, API, reads=[(src_footprint, src)], writes=writes, own_flags=own_flags)


_V_S, _S_V = (PIPE_V, PIPE_S), (PIPE_S, PIPE_V)


def _own_flags(spec, d, count=None, repeats=None, bit_mask=False):
    """(before, after): the devkit implementation's own SetFlag/WaitFlag pairs around the call's vector work, for
    the sanitizer (docs/decisions.md "The implementations' own flags"; vec_reduce_impl.h of each device and the count
    form's intf layer). The count form with `count`, the normal-mode high-dim form with `repeats`; the 950's
    counter-mode high-dim form has none."""
    lanes = d.lanes_per_repeat
    if not spec.reduce_scalar_result:   # the 950: V_S, then the scalar unit reads dst[0] for GetReduceRepeatSumSpr
        return (), ((_V_S,) if count is not None and d.is_float else ())
    if count is not None:
        if spec.reduce_sum_count_algorithm == TREE_SEQ:   # A2 / A3: vcadd, V_S, ACC_VAL to dst[0], S_V, S_MTE3
            return (), ENDS_WITH_SCALAR_RESULT
        body, tail = divmod(count, lanes)   # the other version: TREE-TREE over the body, then the tail (SPEC 4.3)
        if tail and body:
            return (), ENDS_WITH_SCALAR_RESULT
        body = max(body, 1)
        return (), (ENDS_WITH_SCALAR_RESULT if body <= lanes else ()) + (_V_S,)   # then reads dst[0] (intf)
    before = bit_mask_scratch_flags(spec, bit_mask)[0]
    if repeats == 0:   # the empty loops, then a vcadd of no lanes into dst (D14 writes +0 on the 310B): no copy
        return before, ()
    if repeats <= lanes:   # one result or one level-2 group: the scalar unit copies it to dst[0]
        return before, ENDS_WITH_SCALAR_RESULT
    if spec.reduce_sum_step2_flags and repeats % lanes:   # the second step's tail: V_S, a scalar copy, S_V, then V
        return before + (_V_S,), (_S_V,)
    return before, ()


def _cached(fn, *key):
    try:
        return fn(*key)
    except TypeError:  # unhashable arguments: validate uncached, which names the problem
        return fn.__wrapped__(*key)


def reduce_sum_count(dst, src, tmp, count, is_set_mask=True):
    core = operands(API, dst, src, tmp)
    spec = core.spec
    algo = spec.reduce_sum_count_algorithm
    count = as_int(API, spec, "count", count)  # a Python int before the cache key (range: _validate_count)
    is_set_mask = as_flag(API, spec, "is_set_mask", is_set_mask)
    if not is_set_mask and algo == TREE_SEQ:
        # A2/A3 honour isSetMask=false: the count comes from the user's counter-mode mask (SPEC 4.2, 2.5)
        if not core.counter_mode or not core.mask_defined:
            raise StateError(API, "is_set_mask", False, device=core.device,
                             legal="counter mode with a count in the mask register",
                             detail="needs counter mode and a count in the mask register (SetMaskCount; SetVectorMask(n))")
        # D16's range checked here so that a refusal names the register the count came from, not the ignored
        # `count` argument (as the other is_set_mask=False calls name it, _common.register_count)
        count = _check_count(API, spec, src.dtype, "mask register (counter-mode count)", core.mask_low)
    d = src.dtype
    layout = _layout(core, dst, src, tmp)
    call = _cached(_validate_count, *layout, count)
    if core.sanitizer is not None:
        _sanitize(core, spec, d, dst, src, tmp, ("src", src.addr, call.count * d.size), count=call.count, acc_val=True,
                  own_flags=_own_flags(spec, d, count=call.count))
    elif is_set_mask:
        remember(_COUNT_CALLS, (*layout, count), call, _MAX_CALLS)
    call.run(core, is_set_mask)


# The validators are memoised on their arguments and their types (typed=True: 2 and 2.0 are different calls) and
# build the kernel's arguments as plain ints, so the compiled entry always receives the types it was built for.
@lru_cache(maxsize=4096, typed=True)
def _validate_count(spec, bounds, d, dd, dt_, dst_addr, src_addr, tmp_addr, dst_size, src_size, tmp_size, count):
    _common_checks(spec, bounds, d, dd, dt_, dst_addr, src_addr, tmp_addr, dst_size)
    count = _check_count(API, spec, d, "count", count)
    check_count_within(API, spec, "src", src_size, count)
    lanes = d.lanes_per_repeat
    full_hi, full_lo = continuous_mask_words(lanes)
    src_op = Operand("src", src_addr, d.size, full_lo, full_hi, -(-count // lanes), 1, 8, count % lanes or lanes)
    _check_bounds(spec, "tensor", src_op, src_addr, src_size, d)  # count forms: never past src (decisions.md)
    _check_tmp_and_overlaps(spec, d, dst_addr, tmp_addr, tmp_size, src_op, _tmp_minimum(spec, d, count=count),
                            _tmp_written(spec, d, count=count), count_form=True, tree_repeats=count // lanes)
    algo = spec.reduce_sum_count_algorithm
    after = {TREE_SEQ: AFTER_COUNT_MASK, TREE_TREE_TAIL: AFTER_UNDEFINED}.get(algo, AFTER_NOTHING)
    if spec.count_mask_effect == COUNT_UNTOUCHED:
        after = AFTER_NOTHING  # SPEC D22: "950 and 310B count calls never touch the register" (310B: VF predicates)
    if d.name in ("int64", "uint64"):
        kernel_algo = ALG_SUM64
    elif algo == VADD_TREE:
        kernel_algo = _vadd_algo(count, lanes)
    else:
        kernel_algo = _COUNT_ALGO[algo]
    return _CountCall(d, kernel_algo, after, dst_addr, src_addr, tmp_addr, count)


def reduce_sum_high_dim(dst, src, tmp, mask, repeat_time, src_rep_stride):
    core = operands(API, dst, src, tmp)
    spec, d = core.spec, src.dtype
    layout = _layout(core, dst, src, tmp)
    if core.counter_mode:
        _refuse_counter_mode_off_950(API, spec)
        if mask is MASK_PLACEHOLDER:
            raise ParameterError(API, "mask", mask, legal="the element count (D23)", device=core.device)
        if isinstance(mask, (list, tuple, np.ndarray)):
            count = mask_words(API, core, d, mask, layout=False)[0]  # counter mode: mask[1] ignored
        else:
            count = as_int(API, spec, "mask (counter-mode count)", mask, 0, UINT64_MAX)
        count &= 0xFFFFFFFF  # D23: the low 32 bits
        rep_bytes = _cached(_validate_counter, *layout, count, repeat_time, src_rep_stride)
        if core.sanitizer is not None:
            lanes = d.lanes_per_repeat
            full_hi, full_lo = continuous_mask_words(lanes)
            _sanitize(core, spec, d, dst, src, tmp, Operand("src", src.addr, d.size, full_lo, full_hi,
                                                            -(-count // lanes), 1, rep_bytes // 32, count % lanes or lanes),
                      count=count)
        _run(core, d, _vadd_algo(count, d.lanes_per_repeat), dst, src, tmp, rep_bytes, count)
        return
    plan = plan_mask(API, core, d, mask, True)
    call = _cached(_validate_high_dim, *layout, plan, repeat_time, src_rep_stride)
    if core.sanitizer is not None:
        if call.entry is not None:
            _sanitize(core, spec, d, dst, src, tmp, Operand("src", src.addr, d.size, plan.lo, plan.hi, call.repeats, 1,
                                                            call.rep_bytes // 32), repeats=call.repeats,
                      own_flags=_own_flags(spec, d, repeats=call.repeats, bit_mask=plan.bit_mode))
    else:
        words = _mask_key(mask)
        if words is not None and type(repeat_time) is int and type(src_rep_stride) is int:
            remember(_HIGH_DIM_CALLS, (*layout, words, repeat_time, src_rep_stride), call, _MAX_CALLS)
    call.run(core)


def _mask_key(mask):
    """The hot path's key for a mask of plain ints (an int, or a list/tuple of int words), else None (not memoised:
    such a call validates every time, like any refusal)."""
    if type(mask) is int:
        return mask
    if type(mask) in (list, tuple) and all(type(w) is int for w in mask):
        return tuple(mask)
    return None


def _high_dim_common(spec, bounds, d, dd, dt_, dst_addr, src_addr, tmp_addr, dst_size, repeat_time, src_rep_stride):
    _common_checks(spec, bounds, d, dd, dt_, dst_addr, src_addr, tmp_addr, dst_size)
    _check_high_dim_dtype(API, spec, d)
    return (_check_repeat_time(API, spec, repeat_time),
            check_range(API, spec, "src_rep_stride", src_rep_stride, 0, 65535))


@lru_cache(maxsize=4096, typed=True)
def _validate_counter(spec, bounds, d, dd, dt_, dst_addr, src_addr, tmp_addr, dst_size, src_size, tmp_size, count,
                      repeat_time, src_rep_stride):
    """950 high-dim form in counter mode (D23): `count` elements, repeat_time ignored; returns the repeat stride in
    bytes."""
    repeat_time, src_rep_stride = _high_dim_common(spec, bounds, d, dd, dt_, dst_addr, src_addr, tmp_addr, dst_size,
                                                   repeat_time, src_rep_stride)
    lanes = d.lanes_per_repeat
    count = _check_count(API, spec, d, "mask (counter-mode count)", count)
    full_hi, full_lo = continuous_mask_words(lanes)
    op = Operand("src", src_addr, d.size, full_lo, full_hi, -(-count // lanes), 1, src_rep_stride, count % lanes or lanes)
    _check_bounds(spec, bounds, op, src_addr, src_size, d)
    _check_tmp_and_overlaps(spec, d, dst_addr, tmp_addr, tmp_size, op,
                            _tmp_minimum(spec, d, count=count, counter_mode=True), _tmp_written(spec, d, count=count))
    return src_rep_stride * 32


@lru_cache(maxsize=4096, typed=True)
def _validate_high_dim(spec, bounds, d, dd, dt_, dst_addr, src_addr, tmp_addr, dst_size, src_size, tmp_size, plan,
                       repeat_time, src_rep_stride):
    """High-dim form in normal mode; returns the call (D7: the 950 runs at least 1 repeat; D14: mask 0 is a NOP where
    it is not refused)."""
    repeat_time, src_rep_stride = _high_dim_common(spec, bounds, d, dd, dt_, dst_addr, src_addr, tmp_addr, dst_size,
                                                   repeat_time, src_rep_stride)
    if plan.empty:
        if spec.mask_zero_refused:
            raise ParameterError(API, "mask", 0, legal="a mask with at least one lane (D14)", device=spec.name)
        call = _HighDimCall(d, False, plan, dst_addr, src_addr, tmp_addr, src_rep_stride * 32, 0, False)
        call.mask_words = (0, 0)  # SPEC D14: a NOP, but "the mask register still receives the 0"
        return call
    _check_repeat_results(API, spec, d, repeat_time)
    is_950 = spec.reduce_sum_highdim_algorithm == TREE_TREE_950
    run_repeats = max(repeat_time, 1) if is_950 else repeat_time
    op = Operand("src", src_addr, d.size, plan.lo, plan.hi, run_repeats, 1, src_rep_stride)
    _check_bounds(spec, bounds, op, src_addr, src_size, d)
    _check_tmp_and_overlaps(spec, d, dst_addr, tmp_addr, tmp_size, op,
                            _tmp_minimum(spec, d, repeat_time=repeat_time), _tmp_written(spec, d, repeats=run_repeats),
                            tree_repeats=run_repeats)
    return _HighDimCall(d, is_950, plan, dst_addr, src_addr, tmp_addr, src_rep_stride * 32, run_repeats,
                        run_repeats == 0 and spec.reduce_sum_highdim_repeat0 == "zero")


def warmup(device):
    """Compile every ReduceSum kernel `device` uses (`ascend-jit warmup`): the count form and the high-dim form (on
    the 950 also in counter mode), each dtype."""
    from ..core import Core
    core = Core(device)
    spec = core.spec
    for dtype in spec.reduce_sum_dtypes:
        src, dst, tmp = core.local_tensor(dtype, 1024), core.local_tensor(dtype, 16), core.local_tensor(dtype, 64)
        lanes = src.dtype.lanes_per_repeat
        ReduceSum(dst, src, tmp, 3 * lanes + 1)
        if spec.reduce_sum_count_algorithm == VADD_TREE:
            ReduceSum(dst, src, tmp, 5 * lanes + 1)  # the 950's other count kernel (trees past 4 repeats)
        if dtype in spec.reduce_sum_count_only_dtypes:
            continue
        ReduceSum(dst, src, tmp, lanes, 2, 8)
        ReduceSum(dst, src, tmp, lanes - 1, 2, 8)  # a lane masked: the first level's repeat walk (_strided)
        if spec.reduce_sum_highdim_algorithm == TREE_TREE_950:
            core.SetMaskCount()
            ReduceSum(dst, src, tmp, 2 * lanes, 1, 8)
            ReduceSum(dst, src, tmp, 5 * lanes + 1, 1, 9)  # repeats 9 blocks apart: the walk of the tree kernel
            core.SetMaskNorm()
