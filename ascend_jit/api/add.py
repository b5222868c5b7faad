"""Add: the count form, the high-dim form (continuous or bit mask, BinaryRepeatParams), is_set_mask=False, and the
operator form (SPEC 2, 3, 5, 8.2; seed Add.zh.txt)."""
from dataclasses import dataclass
from functools import lru_cache

from ..core import continuous_mask_words
from ..jit.add import add_contiguous, add_strided
from ._common import (Operand, as_signed64, check_align, check_count_overlap, check_dtype,
                      check_inside_ub, check_overlap, check_range, count_form_count, operands, plan_mask,
                      record_mask, refuse_empty_mask_on_950, repeat_params)
from ..errors import OutOfBoundsError, ParameterError, UnsupportedDTypeError

API = "Add"
_SRC1_ACCUMULATE_DTYPES = ("half", "int32", "float")  # SPEC 8.2 exception: dst over src1 with a zero repeat stride


@dataclass(frozen=True)
class BinaryRepeatParams:
    """SPEC 1.3: uint8 fields, constructor order (dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep)."""
    dstBlkStride: int = 1
    src0BlkStride: int = 1
    src1BlkStride: int = 1
    dstRepStride: int = 8
    src0RepStride: int = 8
    src1RepStride: int = 8


def Add(dst, src0, src1, *args, is_set_mask=True, count=None, mask=None, repeat_time=None, repeat_params=None):
    """`Add(dst, src0, src1, count)` or `Add(dst, src0, src1, mask, repeat_time, repeat_params)`."""
    if count is not None or (len(args) == 1 and mask is None):
        n = count if count is not None else args[0]
        return add_count(dst, src0, src1, n, is_set_mask)
    if len(args) == 3:
        mask, repeat_time, repeat_params = args
    elif args:
        raise ParameterError(API, "arguments", len(args) + 3,
                             legal="(dst, src0, src1, count) or (dst, src0, src1, mask, repeat_time, repeat_params)")
    if repeat_params is None:
        repeat_params = BinaryRepeatParams()
    return add_high_dim(dst, src0, src1, mask, repeat_time, repeat_params, is_set_mask)


def add_count(dst, src0, src1, count, is_set_mask=True):
    core = operands(API, dst, src0, src1)
    d = dst.dtype
    count, from_register = count_form_count(API, core, d, count, is_set_mask)  # a Python int before the cache key
    key = (core.spec, d, src0.dtype, src1.dtype, dst.addr, src0.addr, src1.addr, dst.size, src0.size, src1.size, count)
    _validate_count(*key)
    if count == 0:
        return  # D14: a NOP on every device, mask register included
    add_contiguous(core.ub, d.kind, core.half_saturating, core.int_saturating, dst.addr, src0.addr, src1.addr, count)
    if not from_register:  # SPEC 2.5: with is_set_mask=False the call does not write the mask register
        lanes = d.lanes_per_repeat
        core._after_count_call(count % lanes or lanes)


@lru_cache(maxsize=4096)
def _validate_count(spec, d, d0, d1, addr, addr0, addr1, size, size0, size1, count):
    """Every rule of the count form; a pure function of its arguments, so repeated calls are free."""
    check_dtype(API, spec, d, spec.add_dtypes)
    for name, other in (("src0", d0), ("src1", d1)):
        if other is not d:
            raise UnsupportedDTypeError(API, f"{name}.dtype", other.name, legal=f"{d.name} (as dst)", device=spec.name)
    for name, a, n in (("dst", addr, size), ("src0", addr0, size0), ("src1", addr1, size1)):
        check_align(API, spec, name, a, 32)
        if count > n:  # tensors lie inside the UB, so this also refuses every count past the UB end
            raise OutOfBoundsError(API, "count", count, legal=f"<= {name}.GetSize() = {n} (the UB holds "
                                   f"{spec.ub_bytes // d.size} elements)", device=spec.name)
    check_count_overlap(API, spec, "src0", addr, addr0, count * d.size)
    check_count_overlap(API, spec, "src1", addr, addr1, count * d.size)


def add_operator(dst, src0, src1):
    """`dst[:] = src0 + src1`: the count form with count = dst.GetSize() (SPEC 3.2); shorter sources are refused."""
    for name, t in (("src0", src0), ("src1", src1)):
        if getattr(t, "size", None) is not None and t.size < dst.size:
            raise OutOfBoundsError("operator+", name, t.size, legal=f">= dst.GetSize() = {dst.size} elements "
                                   "(SPEC 3.2: the operator adds dst.GetSize() elements)", device=dst.core.device)
    add_count(dst, src0, src1, dst.size)


def add_high_dim(dst, src0, src1, mask, repeat_time, params, is_set_mask):
    core = operands(API, dst, src0, src1)
    d = dst.dtype
    params = repeat_params(API, core.spec, params, BinaryRepeatParams)  # Python ints in [0, 255] before the cache
    repeat_time = check_range(API, core.spec, "repeat_time", repeat_time, 0, 255)
    plan = plan_mask(API, core, d, mask, is_set_mask)
    key = (core.spec, d, src0.dtype, src1.dtype, dst.addr, src0.addr, src1.addr, plan, repeat_time, params)
    repeat, last, contiguous = _validate_high_dim(*key)
    sat_h, sat_i = core.half_saturating, core.int_saturating
    if repeat == 0 or plan.empty:
        pass  # D14 / D7: repeat 0 or mask 0 writes nothing
    elif contiguous:  # default strides, every lane: the same run as the count form
        n = (repeat - 1) * d.lanes_per_repeat + (last if last >= 0 else d.lanes_per_repeat)
        add_contiguous(core.ub, d.kind, sat_h, sat_i, dst.addr, src0.addr, src1.addr, n)
    else:
        p = params
        add_strided(core.ub, d.kind, sat_h, sat_i, dst.addr, src0.addr, src1.addr, p.dstBlkStride, p.src0BlkStride,
                    p.src1BlkStride, p.dstRepStride, p.src0RepStride, p.src1RepStride, repeat, as_signed64(plan.lo),
                    as_signed64(plan.hi), last)
    record_mask(core, plan, d, mask)  # core state changes only once the call can no longer fail


@lru_cache(maxsize=4096)
def _validate_high_dim(spec, d, d0, d1, addr, addr0, addr1, plan, repeat_time, params):
    """Every rule of the high-dim form (pure: cached); returns (repeats, last-repeat lanes, contiguous?)."""
    check_dtype(API, spec, d, spec.add_dtypes)
    for name, other in (("src0", d0), ("src1", d1)):
        if other is not d:
            raise UnsupportedDTypeError(API, f"{name}.dtype", other.name, legal=f"{d.name} (as dst)", device=spec.name)
    if d.name in spec.add_count_only_dtypes:
        raise UnsupportedDTypeError(API, "dtype", d.name, device=spec.name,
                                    legal=", ".join(n for n in spec.add_dtypes if n not in spec.add_count_only_dtypes),
                                    detail="8-bit and 64-bit types only through the count API and the operator (SPEC 3.4)")
    strides = {f: getattr(params, f) for f in BinaryRepeatParams.__dataclass_fields__}
    if strides["dstBlkStride"] == 0:
        raise ParameterError(API, "dstBlkStride", 0, legal="[1, 255] (0 is undefined behaviour, SPEC 1.2, D10)",
                             device=spec.name)
    refuse_empty_mask_on_950(API, spec, plan)
    addrs = {"dst": addr, "src0": addr0, "src1": addr1}
    for name, a in addrs.items():
        check_align(API, spec, name, a, 32)
    lanes = d.lanes_per_repeat
    repeat = plan.repeats(lanes, repeat_time)
    last = plan.last_lanes(lanes)
    ops = [Operand(name, a, d.size, plan.lo, plan.hi, repeat, strides[f"{name}BlkStride"], strides[f"{name}RepStride"],
                   last) for name, a in addrs.items()]
    exts = [check_inside_ub(API, spec, op) for op in ops]
    check_overlap(API, spec, ops[0], ops[1], exts[0], exts[1])
    accumulate = d.name in _SRC1_ACCUMULATE_DTYPES and (strides["src1RepStride"] == 0 or strides["dstRepStride"] == 0)
    check_overlap(API, spec, ops[0], ops[2], exts[0], exts[2], src_may_accumulate=accumulate)
    full_hi, full_lo = continuous_mask_words(lanes)
    contiguous = params == BinaryRepeatParams() and (plan.lo, plan.hi) == (full_lo, full_hi)
    return repeat, last, contiguous
