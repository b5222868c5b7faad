"""ReduceMax / ReduceMin (SPEC-2 8.3; D30, D31, D34, D52-D55) and GetReduceMaxMinTmpSize.

Non-950 devices run the level algorithm of D52 (per-repeat extremes, saturated per repeat, then the best repeat,
then the count form's tail); the 950 runs the per-lane algorithm of D53. tmp is validated and sized as the device
needs it (D54) but never written: its first `minimum` elements are unspecified after the call, so leaving them as
they were is one of the allowed outcomes (docs/decisions.md). The sanitizer still sees them written by the vector
pipe, as the device writes them, and uninitialised afterwards (`_sanitize`).
"""
from functools import lru_cache

import numpy as np

from ..core import continuous_mask_words
from ..devices import get_device
from ..dtypes import resolve
from ..errors import OverlapError, ParameterError, StateError, UnsupportedDTypeError
from ..jit.reductions import (ALGO_LEVELS, ALGO_LEVELS_RUNS, ALGO_PER_LANE, ALGO_PER_LANE_FLOAT_COUNT,
                              ALGO_PER_LANE_HALF_COUNT, MAX_MIN_KERNELS, OP_MAX, OP_MIN)
from ..jit.ubview import INT_WIDTHS
from ..sanitizer import ENDS_WITH_SCALAR_RESULT, bit_mask_scratch_flags, vector_access
from ._common import (MASK_PLACEHOLDER, UINT64_MAX, Operand, Runs, as_flag, as_int, as_signed64, check_align,
                      check_count_within, check_reduction_dtype, check_inside_ub, check_range, check_tensor_bounds,
                      first_touch, mask_words, memo_key, operands, plan_mask, refuse_advanced_reduce_form, remember,
                      split_forms)
from .reductions import CoreFacts, Shape, cached, check_mask_not_empty, record_spr

INT32_MAX = 2**31 - 1
# D53 seeds (raw, sign-extended bits): MAX starts from the finite lowest value, MIN from the finite highest.
_SEEDS = {"half": (-1025, 0x7BFF), "float": (-8388609, 0x7F7FFFFF), "int16": (-2**15, 2**15 - 1),
          "uint16": (0, 2**16 - 1), "int32": (-2**31, 2**31 - 1), "uint32": (0, 2**32 - 1),
          "int64": (-2**63, 2**63 - 1), "uint64": (0, -1)}


def GetReduceMaxMinTmpSize(device, dtype, *, count=None, repeat_time=None, cal_index=False):
    """Minimum sharedTmpBuffer elements of ReduceMax/ReduceMin (D54, SPEC-2 8.3.1): 0 on the 950."""
    api = "GetReduceMaxMinTmpSize"
    spec = get_device(device)
    spec.require_supported(api)   # SPEC D13: the inference Vector Core is refused by every API
    d = resolve(dtype, api, spec.name)
    # a size for a call the device would refuse is no answer
    check_reduction_dtype(api, spec, d, spec.reduce_max_min_dtypes)
    if (count is None) == (repeat_time is None):
        raise ParameterError(api, "count/repeat_time", (count, repeat_time),
                             legal="exactly one of count= or repeat_time=", device=spec.name)
    # the ranges of ReduceMax's own parameters (SPEC-2 8.3, D30; issue 12: integers and a bool flag only)
    if count is not None:
        count = as_int(api, spec, "count", count, 1, INT32_MAX)
    else:
        repeat_time = as_int(api, spec, "repeat_time", repeat_time, 0, INT32_MAX)
    cal_index = as_flag(api, spec, "cal_index", cal_index)
    if spec.reduce_max_min_per_lane:
        return 0
    lanes, epb = d.lanes_per_repeat, d.lanes_per_block
    r1 = repeat_time if repeat_time is not None else max(1, count // lanes)

    def roundup(a):
        return -(-a // epb) * epb
    if not cal_index:
        return roundup(2 * r1)
    level, total, k = 2 * r1, 0, 1
    while True:
        total += roundup(level)
        if k >= 2 and level <= 2:
            return total
        level, k = 2 * -(-level // lanes), k + 1


def _api(op):
    return "ReduceMax" if op == OP_MAX else "ReduceMin"


def _parse(api, args, cal_index, kw, device):
    """(form, values, cal_index) from the positional/keyword arguments of SPEC-2 8.3: a trailing bool after the
    count or the three high-dim values is calIndex; the values themselves are split by _common.split_forms (SPEC-2
    1.1: positionally, by keyword, or the first ones positionally and the rest by keyword; never both ways, never a
    count with high-dim values), as ReduceSum's."""
    args = list(args)
    if len(args) in (2, 4) and isinstance(args[-1], (bool, np.bool_)):  # the trailing bool is calIndex (numpy's too)
        if cal_index is not None:
            raise ParameterError(api, "cal_index", cal_index, legal="given once", device=device)
        cal_index = args.pop()
    elif len(args) == 4:  # a 7th positional can only be calIndex (two values, then a keyword, are mask, repeat_time)
        raise ParameterError(api, "arguments", args[-1], legal="a bool cal_index as the last positional argument",
                             device=device)
    # calIndex is a C++ bool: True/False only, positional (above) or keyword (SPEC-2 8.3; decisions.md "Integer
    # parameters": a flag is never read for its truth value)
    cal_index = False if cal_index is None else as_flag(api, device, "cal_index", cal_index)
    form, values = split_forms(api, tuple(args), kw["count"], dict(mask=kw["mask"], repeat_time=kw["repeat_time"],
                                                                   src_rep_stride=kw["src_rep_stride"]),
                               3, device, _FORMS)
    return ("count" if form == "count" else "highdim"), values, cal_index


_FORMS = "(dst, src, tmp, count[, cal_index]) or (dst, src, tmp, mask, repeat_time, src_rep_stride[, cal_index])"


_COUNT_CALLS = {}   # the count form's validated call shapes (_count_key) -> (the validated run, the source dtype)
_COUNT_CALLS_MAX = 8192


def _count_key(op, dst, src, tmp, args, cal_index, kw):
    """The memo key of a count-form call `(dst, src, tmp, count[, cal_index])` with an exact int count and a bool
    cal_index (or none), on plain LocalTensors of one live core without a sanitizer, else None: everything the
    count validation reads (issue 21, as ReduceSum's; 3.8 -> 2.3 us a call, BENCHMARKS.md "Session 38")."""
    if len(args) == 2 and type(args[1]) is bool and cal_index is None:
        cal_index, args = args[1], args[:1]
    if len(args) != 1 or type(args[0]) is not int or kw["count"] is not None or kw["mask"] is not None or \
            kw["repeat_time"] is not None or kw["src_rep_stride"] is not None:
        return None
    if cal_index is None:
        cal_index = False
    elif type(cal_index) is not bool:
        return None
    return memo_key((op, cal_index, args[0]), (dst, src, tmp))


def _reduce(op, dst, src, tmp, args, cal_index, kw):
    key = _count_key(op, dst, src, tmp, args, cal_index, kw)
    if key is not None:
        found = _COUNT_CALLS.get(key)
        if found is not None:
            return _run(dst._core, *found)
    api = _api(op)
    refuse_advanced_reduce_form(api, dst, src, tmp, args, kw.values())
    core = operands(api, dst, src, tmp)
    spec, d = core.spec, src.dtype
    form, values, cal_index = _parse(api, args, cal_index, kw, core.device)
    layout = (api, spec, core.bounds, d, dst.dtype, tmp.dtype, dst.addr, dst.size, src.addr, src.size, tmp.addr, tmp.size,
              cal_index)
    if form == "count":
        count, = values
        run = cached(_validate_count, layout, count)
    elif core.counter_mode:
        mask, repeat_time, src_rep_stride = values
        if not spec.reduce_max_min_per_lane:
            raise StateError(api, "mask mode", "counter", device=core.device, legal="normal mode (SetMaskNorm)",
                             detail="high-dim ReduceMax/ReduceMin in counter mode is refused off the 950 (D52)")
        count = _counter_count(api, core, d, mask)
        run = cached(_validate_counter, layout, count, repeat_time, src_rep_stride)
    else:
        mask, repeat_time, src_rep_stride = values
        plan = plan_mask(api, core, d, mask, True)
        run = cached(_validate_high_dim, layout + (plan,), repeat_time, src_rep_stride)
    if run is not None and core.sanitizer is not None:  # before any state changes: a report raised leaves none
        _sanitize(core, api, form, d, dst, src, tmp, values, cal_index)
    _run(core, run, d)
    if run is not None and key is not None and form == "count":
        remember(_COUNT_CALLS, key, (run, d), _COUNT_CALLS_MAX)


def _run(core, run, d):
    """A validated call (`run` None: nothing to compute) and its effects on the core's state."""
    spec = core.spec
    if not spec.reduce_max_min_per_lane:
        core.mask_defined = False  # D31: implementation state after a non-950 ReduceMax/ReduceMin
    if run is None:
        return
    plan, kernels, contiguous = run
    sat = core.half_saturating
    bits = kernels[1 if sat else 0](core.ub, sat, plan, INT_WIDTHS[d.size])
    if spec.max_min_spr:  # D55: the value, and an index documented as inaccurate: all ones
        record_spr(core, d, bits, (1 << (8 * d.size)) - 1,
                   None if contiguous else "the last ReduceMax/ReduceMin was not contiguous (src_rep_stride 8)")


def _sanitize(core, api, form, d, dst, src, tmp, values, cal_index):
    """The sanitizer's view of one ReduceMax/ReduceMin (SPEC-2 10.4): src read; dst, the MAX/MIN register and, off
    the 950, the first `minimum` elements of tmp written (D54: the device's level algorithm keeps its per-repeat
    results there, so the call races other pipes' accesses of them). The emulator leaves those elements as they
    were, one outcome of "unspecified": for the init check they are uninitialised after the call, as DataCopyPad's
    random filler is, unless dst (which may overlap tmp) holds them (docs/decisions.md "Sanitizer")."""
    spec = core.spec
    out = (2 if cal_index else 1) * d.size
    writes = [(("dst", dst.addr, out), dst)]
    scratch = 0
    if not spec.reduce_max_min_per_lane:   # the 950 never touches tmp (D54); counter mode is the 950's only
        scratch = d.size * (GetReduceMaxMinTmpSize(spec, d, count=values[0], cal_index=cal_index) if form == "count"
                            else GetReduceMaxMinTmpSize(spec, d, repeat_time=values[1], cal_index=cal_index))
        writes.append((("sharedTmpBuffer", tmp.addr, scratch), tmp))
    if spec.max_min_spr:
        writes.append((core.sanitizer.spr("MAX_MIN"), None))   # read by GetReduceRepeatMaxMinSpr (D55)
    vector_access(core, api, reads=[(_source_footprint(api, form, core, d, src, values), src)], writes=writes,
                  own_flags=_own_flags(spec, d, form, values, cal_index))
    lo, hi = tmp.addr, tmp.addr + scratch
    for a, b in ((lo, min(hi, dst.addr)), (max(lo, dst.addr + out), hi)):   # tmp's bytes outside dst's
        if b > a:
            core.sanitizer.undefine(a, b - a)


def _own_flags(spec, d, form, values, cal_index):
    """(before, after): the devkit implementation's own SetFlag/WaitFlag pairs around the call's vector work, for the
    sanitizer (docs/decisions.md "The implementations' own flags"; vec_reduce_impl.h of each device, the count form's
    tail step in the intf layer). Off the 950 the call ends with the scalar unit copying the result (and the index)
    to dst between V_S and S_V / S_MTE3, except where one vcmax / vcmin writes value and index itself (calIndex with
    one repeat, or a count of at most one repeat); the 310B's bit-mask form first writes the mask words to a scratch
    area with the scalar unit, then S_V. The 950 has none."""
    if not spec.reduce_scalar_result:
        return (), ()
    if form == "count":
        one_instruction = cal_index and values[0] <= d.lanes_per_repeat
        return (), (() if one_instruction else ENDS_WITH_SCALAR_RESULT)
    mask, repeat_time = values[0], int(values[1])
    before = bit_mask_scratch_flags(spec, isinstance(mask, (list, tuple, np.ndarray)))[0]
    return before, (() if cal_index and repeat_time == 1 else ENDS_WITH_SCALAR_RESULT)


def _counter_count(api, core, d, mask):
    """The element count of a 950 high-dim call in counter mode: the low 32 bits of the mask argument (D53, as SPEC
    D23 for ReduceSum), an integer (or a bit mask's first word) checked like every integer parameter (issue 12)."""
    if mask is MASK_PLACEHOLDER:
        raise ParameterError(api, "mask", mask, legal="the element count (D53)", device=core.device)
    if isinstance(mask, (list, tuple, np.ndarray)):
        count = mask_words(api, core, d, mask, layout=False)[0]  # counter mode: mask[1] ignored
    else:
        count = as_int(api, core.spec, "mask (counter-mode count)", mask, 0, UINT64_MAX)
    return count & 0xFFFFFFFF


def _source_footprint(api, form, core, d, src, values):
    """The source elements a call reads, for the sanitizer (count form: the first count; high-dim: the mask's lanes
    of every repeat; counter mode: the count, SPEC-2 D53)."""
    lanes = d.lanes_per_repeat
    full_hi, full_lo = continuous_mask_words(lanes)
    if form == "count":
        return ("src", src.addr, int(values[0]) * d.size)
    mask, repeat_time, src_rep_stride = values
    if core.counter_mode:
        count = _counter_count(api, core, d, mask)
        return Operand("src", src.addr, d.size, full_lo, full_hi, -(-count // lanes), 1, int(src_rep_stride),
                       count % lanes or lanes)
    plan = plan_mask("sanitizer", core, d, mask, True)
    return Operand("src", src.addr, d.size, plan.lo, plan.hi, int(repeat_time), 1, int(src_rep_stride))


def _plan(api, d, cal_index, dst_addr, src_addr, algo, rep_bytes, step, nrep, lo, hi, n, contiguous):
    """The kernel's call plan (jit/reductions.py P_* fields), the algorithm's kernels (MAX_MIN_KERNELS: without and
    with half saturation) and whether the call was contiguous (D55)."""
    op = OP_MAX if api == "ReduceMax" else OP_MIN
    seed = _SEEDS[d.name][0 if op == OP_MAX else 1]
    if algo == ALGO_LEVELS and d.name in ("half", "float") and lo == -1 and hi == -1:
        algo = ALGO_LEVELS_RUNS  # the same algorithm on whole rows: no lane gather to compile (issue 20)
    if algo == ALGO_PER_LANE and d.name in ("half", "float") and n >= 0:
        # lanes active by count: two vectorised passes (half unless it saturates; float never does)
        algo = ALGO_PER_LANE_HALF_COUNT if d.name == "half" else ALGO_PER_LANE_FLOAT_COUNT
    return np.array([algo, d.kind, op, cal_index, dst_addr, src_addr, rep_bytes, step, nrep, lo, hi, n, seed],
                    np.int64), MAX_MIN_KERNELS[algo], contiguous


def _common(api, spec, facts, d, dd, dt_, dst_addr, dst_size, src_addr, src_size, tmp_addr, tmp_size, cal_index):
    check_reduction_dtype(api, spec, d, spec.reduce_max_min_dtypes)
    for name, other in (("dst", dd), ("sharedTmpBuffer", dt_)):
        if other is not d:
            raise UnsupportedDTypeError(api, f"{name}.dtype", other.name, legal=f"{d.name} (as src)", device=spec.name)
    check_align(api, spec, "src", src_addr, 32)
    check_align(api, spec, "sharedTmpBuffer", tmp_addr, 32)
    out = 2 * d.size if cal_index else d.size
    check_align(api, spec, "dst", dst_addr, out)  # SPEC-2 8.3: as ReduceRepeat VALUE_INDEX / ONLY_VALUE
    check_tensor_bounds(api, facts, Runs("dst", dst_addr, out, 0, 1), Shape(dst_addr, dst_size, dd))


def _finish(api, spec, facts, d, dst_addr, tmp_addr, tmp_size, src_op, need, cal_index, max_index):
    """Index limit, tmp size and bounds, and D34: src overlaps neither dst nor the first `need` elements of tmp, on
    the exact bytes src's repeats read (as ReduceSum, decisions.md "Overlap": a dst or tmp in the unread gaps of a
    strided src is legal)."""
    limit = 65534 if spec.reduce_max_min_per_lane else 65535
    if cal_index and d.size == 2 and max_index > limit:
        raise ParameterError(api, "cal_index", True, device=spec.name, legal=f"indices <= {limit} for 16-bit types",
                             detail=f"this call can produce index {max_index} (D52, SPEC-2 8.3)")
    if tmp_size < need:
        raise ParameterError(api, "sharedTmpBuffer.GetSize()", tmp_size, legal=f">= {need} elements", device=spec.name,
                             detail=f"too small: GetReduceMaxMinTmpSize gives {need} (D54)")
    check_tensor_bounds(api, facts, Runs("sharedTmpBuffer", tmp_addr, need * d.size, 0, 1), Shape(tmp_addr, tmp_size, d))
    out = 2 * d.size if cal_index else d.size
    spans = (("dst", dst_addr, dst_addr + out), ("sharedTmpBuffer", tmp_addr, tmp_addr + need * d.size))
    hits = [(name, lo, hi, first_touch(src_op, lo, hi)) for name, lo, hi in spans]
    over = [h for h in hits if h[3] is not None]
    if over:
        name, lo, hi, hit = over[0]
        # port63g (ops-nn SwiGluQuant's ReduceMax(t, t, t)): the devkit page lets tmp reuse src's space, SPEC-2
        # 8.3.1 does not off the 950, so say what to give instead; dst's advice is tmp's bytes only when tmp is clear
        # of src itself (review63: else following it meets the tmp refusal)
        own_tmp = f"give sharedTmpBuffer a buffer of its own of at least {need} elements (GetReduceMaxMinTmpSize)"
        instead = (f"; {own_tmp}; dst may go there" if hits[1][3] is not None else
                   "; write the result elsewhere (dst may share sharedTmpBuffer's bytes)")
        raise OverlapError(api, f"src/{name}", f"{name} bytes [{lo}, {hi})", device=spec.name,
                           legal="disjoint from the bytes src's repeats read (D34)",
                           detail=f"src repeat {hit[0]} reads byte {hit[1]}{instead}")


@lru_cache(maxsize=4096, typed=True)  # typed: 1, 1.0 and True are separate entries (issue 12)
def _validate_count(api, spec, bounds, d, dd, dt_, dst_addr, dst_size, src_addr, src_size, tmp_addr, tmp_size,
                    cal_index, count):
    facts = CoreFacts(bounds, spec.name)
    _common(api, spec, facts, d, dd, dt_, dst_addr, dst_size, src_addr, src_size, tmp_addr, tmp_size, cal_index)
    count = check_range(api, spec, "count", count, 1, spec.ub_bytes // d.size)  # D30
    check_count_within(api, spec, "src", src_size, count)
    need = GetReduceMaxMinTmpSize(spec, d, count=count, cal_index=cal_index)
    lanes = d.lanes_per_repeat
    full_hi, full_lo = continuous_mask_words(lanes)
    src_op = Operand("src", src_addr, d.size, full_lo, full_hi, -(-count // lanes), 1, 8, count % lanes or lanes)
    _finish(api, spec, facts, d, dst_addr, tmp_addr, tmp_size, src_op, need, cal_index, count - 1)
    if spec.reduce_max_min_per_lane:
        v = lanes if d.size < 8 else 64
        return _plan(api, d, cal_index, dst_addr, src_addr, ALGO_PER_LANE, v * d.size, v, -(-count // v), -1, -1,
                     count, True)
    return _plan(api, d, cal_index, dst_addr, src_addr, ALGO_LEVELS, 256, lanes, count // lanes, -1, -1,
                 count % lanes, True)


def _high_dim_ranges(api, spec, d, repeat_time, src_rep_stride):
    if d.name in spec.reduce_max_min_count_only_dtypes:
        raise UnsupportedDTypeError(api, "dtype", d.name, device=spec.name, detail="64-bit types only through the "
                                    "count form (SPEC-2 8.3)", legal=", ".join(
                                        t for t in spec.reduce_max_min_dtypes
                                        if t not in spec.reduce_max_min_count_only_dtypes))
    return (check_range(api, spec, "repeat_time", repeat_time, 0, INT32_MAX),
            check_range(api, spec, "src_rep_stride", src_rep_stride, 0, 65535))


@lru_cache(maxsize=4096, typed=True)  # typed: 1, 1.0 and True are separate entries (issue 12)
def _validate_high_dim(api, spec, bounds, d, dd, dt_, dst_addr, dst_size, src_addr, src_size, tmp_addr, tmp_size,
                       cal_index, plan, repeat_time, src_rep_stride):
    facts = CoreFacts(bounds, spec.name)
    _common(api, spec, facts, d, dd, dt_, dst_addr, dst_size, src_addr, src_size, tmp_addr, tmp_size, cal_index)
    repeat_time, src_rep_stride = _high_dim_ranges(api, spec, d, repeat_time, src_rep_stride)
    check_mask_not_empty(api, spec, plan)
    if plan.empty or repeat_time == 0:
        return None  # D30: NOP
    op = Operand("src", src_addr, d.size, plan.lo, plan.hi, repeat_time, 1, src_rep_stride)
    src_ext = check_inside_ub(api, spec, op)
    check_tensor_bounds(api, facts, op, Shape(src_addr, src_size, d), src_ext)
    need = GetReduceMaxMinTmpSize(spec, d, repeat_time=repeat_time, cal_index=cal_index)
    step = src_rep_stride * 32 // d.size
    top_lane = max(j for j in range(d.lanes_per_repeat) if ((plan.hi if j >= 64 else plan.lo) >> (j % 64)) & 1)
    _finish(api, spec, facts, d, dst_addr, tmp_addr, tmp_size, op, need, cal_index,
            (repeat_time - 1) * step + top_lane)
    per_lane = spec.reduce_max_min_per_lane
    return _plan(api, d, cal_index, dst_addr, src_addr, ALGO_PER_LANE if per_lane else ALGO_LEVELS,
                 src_rep_stride * 32, step, repeat_time, as_signed64(plan.lo), as_signed64(plan.hi),
                 -1 if per_lane else 0, src_rep_stride == 8)


@lru_cache(maxsize=4096, typed=True)  # typed: 1, 1.0 and True are separate entries (issue 12)
def _validate_counter(api, spec, bounds, d, dd, dt_, dst_addr, dst_size, src_addr, src_size, tmp_addr, tmp_size,
                      cal_index, count, repeat_time, src_rep_stride):
    """950 high-dim form in counter mode (D53): `count` elements, repeat r at r*src_rep_stride blocks."""
    facts = CoreFacts(bounds, spec.name)
    _common(api, spec, facts, d, dd, dt_, dst_addr, dst_size, src_addr, src_size, tmp_addr, tmp_size, cal_index)
    _, src_rep_stride = _high_dim_ranges(api, spec, d, repeat_time, src_rep_stride)
    count = check_range(api, spec, "mask (counter-mode count)", count, 1, spec.ub_bytes // d.size)
    lanes = d.lanes_per_repeat
    full_hi, full_lo = continuous_mask_words(lanes)
    nrep = -(-count // lanes)
    op = Operand("src", src_addr, d.size, full_lo, full_hi, nrep, 1, src_rep_stride, count % lanes or lanes)
    src_ext = check_inside_ub(api, spec, op)
    check_tensor_bounds(api, facts, op, Shape(src_addr, src_size, d), src_ext)
    _finish(api, spec, facts, d, dst_addr, tmp_addr, tmp_size, op, 0, cal_index, count - 1)
    return _plan(api, d, cal_index, dst_addr, src_addr, ALGO_PER_LANE, src_rep_stride * 32, lanes, nrep, -1, -1,
                 count, False)


def ReduceMax(dst, src, shared_tmp_buffer, *args, cal_index=None, count=None, mask=None, repeat_time=None,
              src_rep_stride=None):
    """dst[0] = the maximum of src (D41), and with cal_index its index right after it (SPEC-2 8.3):
    `ReduceMax(dst, src, tmp, count[, cal_index])` or `ReduceMax(dst, src, tmp, mask, repeat_time, src_rep_stride
    [, cal_index])`. Non-950: the D52 level algorithm; 950: the D53 per-lane algorithm. tmp: at least
    GetReduceMaxMinTmpSize elements (D54). BIT-EXACT except a NaN result's index (a decision, D50/D52/D53)."""
    _reduce(OP_MAX, dst, src, shared_tmp_buffer, args, cal_index,
            dict(count=count, mask=mask, repeat_time=repeat_time, src_rep_stride=src_rep_stride))


def ReduceMin(dst, src, shared_tmp_buffer, *args, cal_index=None, count=None, mask=None, repeat_time=None,
              src_rep_stride=None):
    """The minimum, as ReduceMax (SPEC-2 8.3)."""
    _reduce(OP_MIN, dst, src, shared_tmp_buffer, args, cal_index,
            dict(count=count, mask=mask, repeat_time=repeat_time, src_rep_stride=src_rep_stride))
