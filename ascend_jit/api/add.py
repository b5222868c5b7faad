"""Add: the count form, the high-dim form (continuous or bit mask, BinaryRepeatParams), is_set_mask=False, and the
operator form (SPEC 2, 3, 5, 8.2; seed Add.zh.txt)."""
from dataclasses import dataclass

from ..jit.add import add_contiguous, add_strided
from ._common import (UINT8_RANGE, Operand, as_signed64, check_align, check_count_overlap, check_dtype,
                      check_inside_ub, check_overlap, check_range, check_same_dtype, operands, plan_mask,
                      record_mask, refuse_empty_mask_on_950)
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
        return add_count(dst, src0, src1, n)
    if len(args) == 3:
        mask, repeat_time, repeat_params = args
    elif args:
        raise ParameterError(API, "arguments", len(args) + 3,
                             legal="(dst, src0, src1, count) or (dst, src0, src1, mask, repeat_time, repeat_params)")
    if repeat_params is None:
        repeat_params = BinaryRepeatParams()
    return add_high_dim(dst, src0, src1, mask, repeat_time, repeat_params, is_set_mask)


def _flags(core):
    return core.half_saturating, core.int_saturating


def add_count(dst, src0, src1, count):
    core = operands(API, dst, src0, src1)
    spec, d = core.spec, dst.dtype
    check_dtype(API, core, d, spec.add_dtypes)
    check_same_dtype(API, core, dst, src0=src0, src1=src1)
    count = check_range(API, core, "count", count, 0, spec.ub_bytes // d.size)
    for name, t in (("dst", dst), ("src0", src0), ("src1", src1)):
        check_align(API, core, name, t.addr, 32)
        if count > t.size:
            raise OutOfBoundsError(API, "count", count, legal=f"<= {name}.GetSize() = {t.size}", device=core.device)
    check_count_overlap(API, core, "src0", dst, src0, count)
    check_count_overlap(API, core, "src1", dst, src1, count)
    if count:
        sat_h, sat_i = _flags(core)
        add_contiguous(core.ub, d.kind, sat_h, sat_i, dst.addr, src0.addr, src1.addr, count)
    lanes = d.lanes_per_repeat
    core._after_count_call(count % lanes or lanes)


def add_operator(dst, src0, src1):
    """`dst[:] = src0 + src1`: the count form with count = dst.GetSize() (SPEC 3.2); shorter sources are refused."""
    for name, t in (("src0", src0), ("src1", src1)):
        if getattr(t, "size", None) is not None and t.size < dst.size:
            raise OutOfBoundsError("operator+", name, t.size, legal=f">= dst.GetSize() = {dst.size} elements "
                                   "(SPEC 3.2: the operator adds dst.GetSize() elements)", device=dst.core.device)
    add_count(dst, src0, src1, dst.size)


def add_high_dim(dst, src0, src1, mask, repeat_time, params, is_set_mask):
    core = operands(API, dst, src0, src1)
    spec, d = core.spec, dst.dtype
    check_dtype(API, core, d, spec.add_dtypes)
    check_same_dtype(API, core, dst, src0=src0, src1=src1)
    if d.name in spec.add_count_only_dtypes:
        raise UnsupportedDTypeError(API, "dtype", d.name, device=core.device,
                                    legal=", ".join(n for n in spec.add_dtypes if n not in spec.add_count_only_dtypes),
                                    detail="8-bit and 64-bit types only through the count API and the operator (SPEC 3.4)")
    repeat_time = check_range(API, core, "repeat_time", repeat_time, 0, 255)
    if not isinstance(params, BinaryRepeatParams):
        raise ParameterError(API, "repeat_params", params, legal="aj.BinaryRepeatParams", device=core.device)
    strides = {f: check_range(API, core, f, getattr(params, f), 0, 255) for f in BinaryRepeatParams.__dataclass_fields__}
    if strides["dstBlkStride"] == 0:
        raise ParameterError(API, "dstBlkStride", 0, legal="[1, 255] (0 is undefined behaviour, SPEC 1.2, D10)",
                             device=core.device)
    plan = plan_mask(API, core, d, mask, is_set_mask)
    refuse_empty_mask_on_950(API, core, plan)
    for name, t in (("dst", dst), ("src0", src0), ("src1", src1)):
        check_align(API, core, name, t.addr, 32)
    lanes = d.lanes_per_repeat
    repeat = plan.repeats(lanes, repeat_time)
    last = plan.last_lanes(lanes)
    ops = [Operand(name, t.addr, d.size, plan.lo, plan.hi, repeat, strides[f"{name}BlkStride"],
                   strides[f"{name}RepStride"], last) for name, t in (("dst", dst), ("src0", src0), ("src1", src1))]
    exts = [check_inside_ub(API, core, op) for op in ops]
    check_overlap(API, core, ops[0], ops[1], exts[0], exts[1])
    accumulate = d.name in _SRC1_ACCUMULATE_DTYPES and (strides["src1RepStride"] == 0 or strides["dstRepStride"] == 0)
    check_overlap(API, core, ops[0], ops[2], exts[0], exts[2], src_may_accumulate=accumulate)
    record_mask(core, plan, d, mask)
    if repeat == 0 or plan.empty:
        return  # D14 / D7: repeat 0 or mask 0 writes nothing
    sat_h, sat_i = _flags(core)
    add_strided(core.ub, d.kind, sat_h, sat_i, dst.addr, src0.addr, src1.addr, strides["dstBlkStride"],
                strides["src0BlkStride"], strides["src1BlkStride"], strides["dstRepStride"], strides["src0RepStride"],
                strides["src1RepStride"], repeat, as_signed64(plan.lo), as_signed64(plan.hi), last)
