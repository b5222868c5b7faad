"""ReducePairElem (SPEC 6, 2.4; decisions D14, D19, D24; seed ReducePairElem.zh.txt)."""
import enum
from functools import lru_cache

from ..errors import ParameterError
from ..jit.pair import pair_kernel
from ._common import (Operand, as_signed64, check_align, check_dtype, check_inside_ub, check_overlap, check_range,
                      check_same_dtype, check_tensor_bounds, operands, plan_mask, record_mask,
                      refuse_empty_mask_on_950)

API = "ReducePairElem"


class ReduceType(enum.IntEnum):
    """The Memory-API reduce type (SPEC-2 D27: SUM=0, MAX=1, MIN=2; aj.Reg.ReduceType is its Reg twin)."""
    SUM = 0
    MAX = 1
    MIN = 2


@lru_cache(maxsize=1024)
def _pair_words(plan, lanes, zero_both):
    """Mask over output pairs: pair p is written when one of its lanes is active (or always, zeroing devices)."""
    if zero_both:
        return (1 << (lanes // 2)) - 1
    bits = plan.lo | (plan.hi << 64)
    return sum(1 << p for p in range(lanes // 2) if (bits >> (2 * p)) & 3)


def ReducePairElem(dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
                   reduce_type=ReduceType.SUM, is_set_mask=True):
    core = operands(API, dst, src)
    spec, d = core.spec, src.dtype
    if reduce_type is not ReduceType.SUM:
        raise ParameterError(API, "reduce_type", reduce_type, legal="ReduceType.SUM (the only one offered)",
                             device=core.device)
    check_dtype(API, core.spec, d, spec.pair_dtypes)
    check_same_dtype(API, core.spec, src, dst=dst)
    repeat_time = check_range(API, core.spec, "repeat_time", repeat_time, 0, 255)
    dst_rep_stride = check_range(API, core.spec, "dst_rep_stride", dst_rep_stride, 0, 65535)
    src_blk_stride = check_range(API, core.spec, "src_blk_stride", src_blk_stride, 0, 65535)
    src_rep_stride = check_range(API, core.spec, "src_rep_stride", src_rep_stride, 0, 65535)
    if dst_rep_stride == 0 and not spec.pair_dst_rep_stride_zero:
        raise ParameterError(API, "dst_rep_stride", 0, legal="[1, 65535] on this device (SPEC 6: Atlas training "
                             "does not support 0)", device=core.device)
    check_align(API, core.spec, "dst", dst.addr, 32)
    check_align(API, core.spec, "src", src.addr, 32)
    plan = plan_mask(API, core, d, mask, is_set_mask)
    refuse_empty_mask_on_950(API, core.spec, plan)
    lanes = d.lanes_per_repeat
    repeat = plan.repeats(lanes, repeat_time)
    if plan.counter >= 0 and dst_rep_stride == 0 and spec.pair_both_masked_zero:
        raise ParameterError(API, "dst_rep_stride", 0, legal="[1, 65535] in counter mode (D24)", device=core.device)
    last = plan.last_lanes(lanes)
    zero_both = spec.pair_both_masked_zero
    src_op = Operand("src", src.addr, d.size, plan.lo, plan.hi, repeat, src_blk_stride, src_rep_stride, last)
    pair_bits = _pair_words(plan, lanes, zero_both)
    last_pairs = -1 if (last < 0 or zero_both) else (last + 1) // 2
    dst_op = Operand("dst", dst.addr, d.size, pair_bits & (2**64 - 1), pair_bits >> 64, repeat, 1, dst_rep_stride * 4,
                     last_pairs)
    src_ext = check_inside_ub(API, core.spec, src_op)
    dst_ext = check_inside_ub(API, core.spec, dst_op)
    check_tensor_bounds(API, core, src_op, src, src_ext)  # decisions.md "Tensor bounds"
    check_tensor_bounds(API, core, dst_op, dst, dst_ext)
    if not plan.empty:
        check_overlap(API, core.spec, dst_op, src_op, dst_ext, src_ext)
    record_mask(core, plan, d, mask)
    if repeat == 0 or (plan.empty and not zero_both):
        return  # D14: NOP (the 310B writes zeros for mask 0: its both-masked rule)
    pair_kernel(core.ub, d.kind, core.half_saturating, zero_both, dst.addr, src.addr, src_blk_stride, src_rep_stride,
                dst_rep_stride, repeat, as_signed64(plan.lo), as_signed64(plan.hi), last)
