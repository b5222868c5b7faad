"""Cast (SPEC-2 7): the count form and the high-dim forms with UnaryRepeatParams, every pair and round mode of the
device's table (SPEC-2 7.2), the overflow switches of D46 and the refusals of D28/D47/D72."""
from functools import lru_cache

from ..core import continuous_mask_words, count_call_effect
from ..enums import RoundMode
from ..errors import OverlapError, ParameterError, UnsupportedDTypeError
from ..jit.convert import cast_strided, count_kernel
from ..jit.direct import EntryTable
from ..sanitizer import bit_mask_scratch_flags, vector_access
from ..tensor import LocalTensor, known_device
from ._common import (BoundsRule, Operand, TensorExtent, UnaryRepeatParams, as_enum, as_signed64, canonical_params,
                      check_align, check_count_within, check_count_overlap, check_disjoint, check_inside_ub,
                      check_overlap, check_range, check_tensor_bounds, high_dim_is_set_mask, high_dim_memo_key,
                      operands, plan_mask, recorded_mask, refuse_empty_mask_on_950, refuse_template_argument, remember,
                      split_forms, unary_repeat_params)

API = "Cast"


def Cast(dst, src, round_mode, *args, count=None, mask=None, repeat_time=None, repeat_params=None,
         is_set_mask=None):
    """`Cast(dst, src, round_mode, count)` or `Cast(dst, src, round_mode, mask, repeat_time, repeat_params)`
    (SPEC-2 7.1). Repeats and masks count lanes of the wider type; each operand keeps its own strides (D33).
    Fast path (issue 21, as the element-wise entries): a count-form call in the plain positional form on live
    LocalTensors of one core without a sanitizer, whose shape an earlier call validated, runs its remembered kernel
    call; everything else (the first call of a shape, keywords, NOPs, the sanitizer, freed tensors, every refusal)
    takes the full path, which remembers what it validated."""
    if type(dst) is not LocalTensor:
        refuse_template_argument(API, dst)
    if len(args) == 1 and count is None and mask is None and repeat_time is None and repeat_params is None and \
            is_set_mask is None:
        key = _count_key(dst, src, round_mode, args[0])
        if key is not None:
            call = _COUNT_CALLS.get(key)
            if call is not None:
                kernels, s, d, mode, n, effect = call
                core = dst._core
                truncate, saturate = _flags(core, s, d)
                args = (core.ub, s.kind, d.kind, mode, truncate, saturate, dst._addr, src._addr, n)
                kernel = kernels[saturate]
                _ENTRIES.get(kernel, kernel, args)(*args)
                if effect is not None:
                    core._apply_mask_effect(effect)
                return
        return cast_count(dst, src, round_mode, args[0], key)
    if len(args) == 3 and count is None and mask is None and repeat_time is None and repeat_params is None and \
            is_set_mask is None and type(round_mode) is RoundMode:
        key = high_dim_memo_key((API, round_mode), (dst, src), *args, UnaryRepeatParams)
        shape = _HIGH_DIM_CALLS.get(key) if key is not None else None
        if shape is not None:
            return _run_high_dim(dst._core, shape)
        return cast_high_dim(dst, src, round_mode, *args, True, key)
    form, values = split_forms(API, args, count, dict(mask=mask, repeat_time=repeat_time, repeat_params=repeat_params),
                               3, known_device(dst, src),
                               "(dst, src, round_mode, count) or (dst, src, round_mode, mask, repeat_time, "
                               "repeat_params)")   # SPEC-2 1.1: positional, keyword or both
    if form == "count":
        high_dim_is_set_mask(API, True, is_set_mask)
        return cast_count(dst, src, round_mode, values[0])
    return cast_high_dim(dst, src, round_mode, *values, high_dim_is_set_mask(API, False, is_set_mask))


# --- the conversion rules of one call ---------------------------------------------------------------------------
def _check_pair(spec, s, d, round_mode):
    """The pair and the mode against SPEC-2 7.2; returns the kernel's mode code (CAST_NONE is CAST_RINT, D45)."""
    if not isinstance(round_mode, RoundMode):  # its integer value, a Python or numpy integer (not a bool)
        round_mode = as_enum(API, spec, "round_mode", round_mode, RoundMode)
    if round_mode is RoundMode.CAST_HYBRID:
        raise UnsupportedDTypeError(API, "round_mode", round_mode.name, device=spec.name,
                                    legal="CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD",
                                    detail="CAST_HYBRID serves the fp8/hifloat8 types, out of scope (SPEC-2 D47, D28)")
    modes = spec.cast_pairs.get((s.name, d.name))
    if modes is None:
        dsts = sorted(b for a, b in spec.cast_pairs if a == s.name)
        if (s.name, d.name) == ("int32", "half") and spec.cast_int32_half_deq_scale:
            detail = "int32 -> half needs SetDeqScale, whose intermediate precision is undocumented (SPEC-2 D47)"
        elif s.name == "int16" and d.name in ("int8", "uint8"):   # SPEC-2 14 row 1: the dequantisation rows
            detail = f"int16 -> {d.name} here is CastDequant's, which is not offered (SPEC-2 D47, 7.5)"
        else:
            detail = f"the pair {s.name} -> {d.name} is not in this device's table (SPEC-2 7.2)"
        raise UnsupportedDTypeError(API, "dst.dtype", d.name, device=spec.name, detail=detail,
                                    legal=f"from {s.name}: {', '.join(dsts) or 'nothing'}")
    if round_mode.name not in modes:
        note = " (SPEC-2 D72: CAST_NONE is refused where the table omits it)" if round_mode is RoundMode.CAST_NONE else ""
        raise UnsupportedDTypeError(API, "round_mode", round_mode.name, device=spec.name, legal=", ".join(modes),
                                    detail=f"{s.name} -> {d.name} offers other modes{note} (SPEC-2 7.2)")
    return int(RoundMode.CAST_RINT if round_mode is RoundMode.CAST_NONE else round_mode)


def _always_saturating(s, d):
    """D45: half -> int16 always saturates; 7.3 step 6: signed -> wider unsigned always clamps negatives to 0."""
    return (s.name, d.name) == ("half", "int16") or (
        not s.is_float and s.is_signed and not d.is_float and not d.is_signed and d.size > s.size)


def _flags(core, s, d):
    """(truncate, saturate) for the kernel from the core's CTRL bits (D46, D71)."""
    truncate = core.cast_truncating and not d.is_float and not _always_saturating(s, d)
    saturate = core.cast_half_saturating and d.name in ("half", "bfloat16") and (s.name, d.name) != ("half", "bfloat16")
    return truncate, saturate


# --- count form ---------------------------------------------------------------------------------------------------
_ENTRIES = EntryTable()
_COUNT_CALLS = {}   # the count form's validated call shapes (_count_key) -> ((kernel without, with saturation), s,
#                     d, mode, count, mask effect)
_COUNT_CALLS_MAX = 8192


def _count_key(dst, src, round_mode, count):
    """The memo key of a count-form call on live LocalTensors of one core without a sanitizer, with an aj.RoundMode
    member and an exact int count (True or np.int64(1) never share an entry with 1), else None: everything
    _validate_count reads (device, each tensor's dtype, address and size, the mode, the count)."""
    if type(dst) is not LocalTensor or type(src) is not LocalTensor or type(count) is not int or \
            type(round_mode) is not RoundMode:
        return None
    core = dst._core
    if src._core is not core or core.sanitizer is not None or \
            not (dst._lease is None or dst._lease.alive) or not (src._lease is None or src._lease.alive):
        return None
    return dst._dtype, dst._addr, dst._size, src._dtype, src._addr, src._size, round_mode, count, core.spec


def cast_count(dst, src, round_mode, count, fast_key=None):
    core = operands(API, dst, src)
    key = (core.spec, dst.dtype, src.dtype, round_mode, dst.addr, src.addr, dst.size, src.size, count)
    try:
        mode, count = _validate_count(*key)
    except TypeError:  # an unhashable argument: validate uncached, which names the problem
        mode, count = _validate_count.__wrapped__(*key)
    if count == 0:
        return  # D30: a NOP, mask register included
    s, d = src.dtype, dst.dtype
    if core.sanitizer is not None:
        vector_access(core, API, reads=[(("src", src.addr, count * s.size), src)],
                      writes=[(("dst", dst.addr, count * d.size), dst)])
    truncate, saturate = _flags(core, s, d)
    args = (core.ub, s.kind, d.kind, mode, truncate, saturate, dst.addr, src.addr, count)
    kernel = count_kernel(s.kind, d.kind, mode, saturate)
    _ENTRIES.get(kernel, kernel, args)(*args)
    lanes = 256 // max(s.size, d.size)
    effect = count_call_effect(core.spec, count % lanes or lanes)
    if effect is not None:
        core._apply_mask_effect(effect)
    if fast_key is not None:
        remember(_COUNT_CALLS, fast_key, (tuple(count_kernel(s.kind, d.kind, mode, sat) for sat in (False, True)), s,
                                          d, mode, count, effect), _COUNT_CALLS_MAX)


# what a port of an in-place widening or narrowing Cast writes instead (docs/decisions.md, AccumulateNv2, SiluMul;
# port58a: SquaredRelu's one buffer held the whole UB, so no other buffer was free)
_COPY_FIRST = ("Cast from a copy of the source in another buffer (a UB -> UB DataCopy), or into another buffer; "
               "where no UB is free, halve the tile so both fit")


@lru_cache(maxsize=4096, typed=True)  # typed: True and 1 are different arguments
def _validate_count(spec, d, s, round_mode, addr, src_addr, size, src_size, count):
    mode = _check_pair(spec, s, d, round_mode)
    count = check_range(API, spec, "count", count, 0, 2**32 - 1)
    for name, a, n in (("dst", addr, size), ("src", src_addr, src_size)):
        check_align(API, spec, name, a, 32)
        check_count_within(API, spec, name, n, count)
    if s.size == d.size:
        check_count_overlap(API, spec, "src", addr, src_addr, count * s.size)
    elif count and max(addr, src_addr) < min(addr + count * d.size, src_addr + count * s.size):
        raise OverlapError(API, "dst/src", f"dst at {addr}, src at {src_addr}", device=spec.name,
                           legal="disjoint ranges (SPEC-2 D34: no overlap at all between sizes)",
                           detail=f"{count} elements of {s.name} -> {d.name} overlap; {_COPY_FIRST}")
    return mode, count  # count a Python int: a numpy integer would compile the kernel again (issue 20)


# --- high-dim forms -----------------------------------------------------------------------------------------------
_HIGH_DIM_CALLS = {}   # high_dim_memo_key -> the validated _HighDimCall of that call shape
_HIGH_DIM_CALLS_MAX = 8192


class _HighDimCall:
    """What a validated high-dim call runs: the mask-register effect it leaves (a count_call_effect-form tuple, or
    None: SPEC D22, SPEC-2 D31), a mode None for a NOP (repeat 0 / mask 0, D30), else the conversion: dtypes, mode
    code, and the count kernels (without, with saturation) over n elements of one contiguous run, or the strided
    walk's repeats, last-repeat lanes, strides and mask words."""
    __slots__ = ("effect", "s", "d", "mode", "kernels", "n", "strided", "dst_addr", "src_addr")

    def __init__(self, spec, plan, s, d, mode, repeat, last, contiguous, p, dst_addr, src_addr):
        words = recorded_mask(spec, plan) if spec.high_dim_writes_mask_register else None
        self.effect = None if words is None else (*words, False)
        self.s, self.d, self.mode, self.dst_addr, self.src_addr = s, d, mode, dst_addr, src_addr
        self.kernels = self.strided = None
        if repeat == 0 or plan.empty:
            self.mode = None
        elif contiguous:
            lanes = (s if s.size >= d.size else d).lanes_per_repeat
            self.n = (repeat - 1) * lanes + (last if last >= 0 else lanes)
            self.kernels = tuple(count_kernel(s.kind, d.kind, mode, saturate) for saturate in (False, True))
        else:
            self.strided = (p.dstBlkStride, p.srcBlkStride, p.dstRepStride, p.srcRepStride, repeat,
                            as_signed64(plan.lo), as_signed64(plan.hi), last)


def cast_high_dim(dst, src, round_mode, mask, repeat_time, params, is_set_mask, memo_key=None):
    core = operands(API, dst, src)
    s, d = src.dtype, dst.dtype
    wide = s if s.size >= d.size else d
    try:
        plan = plan_mask(API, core, wide, mask, is_set_mask)
    except ParameterError:
        _check_pair(core.spec, s, d, round_mode)  # SPEC-2 1.8: a pair the device lacks is refused as such first
        raise
    params = canonical_params(params, UnaryRepeatParams)  # the values, not the caller's mutable object (audit38m)
    key = (core.spec, d, s, round_mode, dst.addr, src.addr, dst.size, src.size, core.bounds, plan, repeat_time,
           params)
    try:
        mode, repeat, last, contiguous, p, ops = _validate_high_dim(*key)
    except TypeError:
        mode, repeat, last, contiguous, p, ops = _validate_high_dim.__wrapped__(*key)
    if core.sanitizer is not None and not (repeat == 0 or plan.empty):  # before any state changes: a report raised
        vector_access(core, API, reads=[(ops[1], src)], writes=[(ops[0], dst)],  # leaves none
                      own_flags=bit_mask_scratch_flags(core.spec, plan.bit_mode))
    shape = _HighDimCall(core.spec, plan, s, d, mode, repeat, last, contiguous, p, dst.addr, src.addr)
    _run_high_dim(core, shape)
    if memo_key is not None and is_set_mask is True:
        remember(_HIGH_DIM_CALLS, memo_key, shape, _HIGH_DIM_CALLS_MAX)


def _run_high_dim(core, shape):
    """A validated high-dim call's effects: the mask register it leaves, then the conversion under the core's
    current CTRL switches (D46)."""
    if shape.effect is not None:
        core._apply_mask_effect(shape.effect)
    if shape.mode is None:
        return
    s, d = shape.s, shape.d
    truncate, saturate = _flags(core, s, d)
    if shape.kernels is not None:
        kernel = shape.kernels[saturate]
        args = (core.ub, s.kind, d.kind, shape.mode, truncate, saturate, shape.dst_addr, shape.src_addr, shape.n)
        _ENTRIES.get(kernel, kernel, args)(*args)
        return
    cast_strided(core.ub, s.kind, d.kind, shape.mode, truncate, saturate, shape.dst_addr, shape.src_addr,
                 *shape.strided)


@lru_cache(maxsize=4096, typed=True)  # typed: True and 1 are different arguments
def _validate_high_dim(spec, d, s, round_mode, addr, src_addr, size, src_size, bounds, plan, repeat_time, params):
    mode = _check_pair(spec, s, d, round_mode)
    p = unary_repeat_params(API, spec, params)
    repeat_time = check_range(API, spec, "repeat_time", repeat_time, 0, 255)
    refuse_empty_mask_on_950(API, spec, plan)
    check_align(API, spec, "dst", addr, 32)
    check_align(API, spec, "src", src_addr, 32)
    wide = s if s.size >= d.size else d
    lanes = wide.lanes_per_repeat
    repeat = plan.repeats(lanes, repeat_time)
    last = plan.last_lanes(lanes)
    ops = (Operand("dst", addr, d.size, plan.lo, plan.hi, repeat, p.dstBlkStride, p.dstRepStride, last),
           Operand("src", src_addr, s.size, plan.lo, plan.hi, repeat, p.srcBlkStride, p.srcRepStride, last))
    exts = [check_inside_ub(API, spec, op) for op in ops]
    where = BoundsRule(bounds, spec.name)
    for op, ext, a, n, t in zip(ops, exts, (addr, src_addr), (size, src_size), (d, s)):
        check_tensor_bounds(API, where, op, TensorExtent(a, n, t), ext)
    if s.size == d.size:
        check_overlap(API, spec, ops[0], ops[1], exts[0], exts[1])
    else:
        check_disjoint(API, spec, ops[0], ops[1], exts[0], exts[1], "SPEC-2 D34: Cast between sizes",
                       _COPY_FIRST)
    full_hi, full_lo = continuous_mask_words(lanes)
    contiguous = ((plan.lo, plan.hi) == (full_lo, full_hi) and p.dstBlkStride == 1 and p.srcBlkStride == 1
                  and p.dstRepStride * 32 == lanes * d.size and p.srcRepStride * 32 == lanes * s.size)
    return mode, repeat, last, contiguous, p, ops

