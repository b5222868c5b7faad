"""ReducePairElem (SPEC 6, 2.4; decisions D14, D19, D24; seed ReducePairElem.zh.txt)."""
import enum
from functools import lru_cache

from ..errors import ParameterError, UnsupportedDTypeError
from ..jit.direct import EntryTable
from ..jit.pair import pair_kernel
from ..sanitizer import vector_access
from ._common import (Operand, as_enum, as_signed64, check_align, check_reduction_dtype, check_inside_ub, check_overlap,
                      check_range, operands, plan_mask, record_mask, refuse_empty_mask_on_950)
from ._facts import check_operand_bounds

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


def ReducePairElem(dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, *,
                   reduce_type=ReduceType.SUM, is_set_mask=True):
    """Per repeat, the L/2 adjacent-pair sums (SPEC 6). The template arguments are keyword-only (SPEC-2 1.1)."""
    _reduce_pair(API, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, reduce_type,
                 is_set_mask)


def PairReduceSum(dst, src, repeat_time, mask, dst_rep_stride, src_blk_stride, src_rep_stride, *, is_set_mask=True):
    """The old name of ReducePairElem (SUM) with repeatTime before mask (the devkit keeps it, deprecated:
    impl/basic_api/kernel_operator_vec_reduce_intf_impl.h `PairReduceSum`; DK-old PairReduceSum.md):
    PairReduceSum(dst, src, repeat_time, mask, dst_rep_stride, src_blk_stride, src_rep_stride)."""
    _reduce_pair("PairReduceSum", dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
                 ReduceType.SUM, is_set_mask)


def _reduce_pair(api, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, reduce_type,
                 is_set_mask):
    core = operands(api, dst, src)
    if as_enum(api, core.spec, "reduce_type", reduce_type, ReduceType) is not ReduceType.SUM:
        raise ParameterError(api, "reduce_type", reduce_type, legal="ReduceType.SUM (the only one offered)",
                             device=core.device)
    d = src.dtype
    plan = plan_mask(api, core, d, mask, is_set_mask)
    key = (api, core.spec, core.bounds, d, dst.dtype, dst.addr, src.addr, dst.size, src.size, plan, repeat_time,
           dst_rep_stride, src_blk_stride, src_rep_stride)
    try:
        kernel_args = _validate(*key)
    except TypeError:  # unhashable arguments: validate uncached, which names the problem
        kernel_args = _validate.__wrapped__(*key)
    if kernel_args is not None:
        kernel_args, (src_op, dst_op) = kernel_args
        if core.sanitizer is not None:
            vector_access(core, api, reads=[(src_op, src)], writes=[(dst_op, dst)])
        _ENTRIES(0, pair_kernel, core.ub, d.kind, core.half_saturating, *kernel_args)
    record_mask(core, plan, d, mask)  # core state changes only once the call can no longer fail (issue 12)


_ENTRIES = EntryTable()


@lru_cache(maxsize=4096, typed=True)  # typed: 2 and 2.0 are different calls (the second is refused)
def _validate(api, spec, bounds, d, dd, dst_addr, src_addr, dst_size, src_size, plan, repeat_time, dst_rep_stride,
              src_blk_stride, src_rep_stride):
    """Every check of one call shape, memoised (the footprint and overlap proofs are most of the cost); returns the
    kernel's arguments after the UB (as plain ints), or None for a NOP."""
    check_reduction_dtype(api, spec, d, spec.pair_dtypes)
    if dd is not d:
        raise UnsupportedDTypeError(api, "dst.dtype", dd.name, legal=f"{d.name} (as dst)", device=spec.name)
    repeat_time = check_range(api, spec, "repeat_time", repeat_time, 0, 255)
    dst_rep_stride = check_range(api, spec, "dst_rep_stride", dst_rep_stride, 0, 65535)
    src_blk_stride = check_range(api, spec, "src_blk_stride", src_blk_stride, 0, 65535)
    src_rep_stride = check_range(api, spec, "src_rep_stride", src_rep_stride, 0, 65535)
    if dst_rep_stride == 0 and not spec.pair_dst_rep_stride_zero:
        raise ParameterError(api, "dst_rep_stride", 0, legal="[1, 65535] on this device (SPEC 6: Atlas training "
                             "does not support 0)", device=spec.name)
    check_align(api, spec, "dst", dst_addr, 32)
    check_align(api, spec, "src", src_addr, 32)
    refuse_empty_mask_on_950(api, spec, plan)
    lanes = d.lanes_per_repeat
    repeat = plan.repeats(lanes, repeat_time)
    if plan.counter >= 0 and dst_rep_stride == 0 and spec.pair_both_masked_zero:
        raise ParameterError(api, "dst_rep_stride", 0, legal="[1, 65535] in counter mode (D24)", device=spec.name)
    last = plan.last_lanes(lanes)
    zero_both = spec.pair_both_masked_zero
    src_op = Operand("src", src_addr, d.size, plan.lo, plan.hi, repeat, src_blk_stride, src_rep_stride, last)
    pair_bits = _pair_words(plan, lanes, zero_both)
    last_pairs = -1 if (last < 0 or zero_both) else (last + 1) // 2
    dst_op = Operand("dst", dst_addr, d.size, pair_bits & (2**64 - 1), pair_bits >> 64, repeat, 1, dst_rep_stride * 4,
                     last_pairs)
    src_ext = check_inside_ub(api, spec, src_op)
    dst_ext = check_inside_ub(api, spec, dst_op)
    check_operand_bounds(api, spec, bounds, src_op, src_addr, src_size, d, src_ext)  # decisions.md "Tensor bounds"
    check_operand_bounds(api, spec, bounds, dst_op, dst_addr, dst_size, d, dst_ext)
    if not plan.empty:
        check_overlap(api, spec, dst_op, src_op, dst_ext, src_ext)
    if repeat == 0 or (plan.empty and not zero_both):
        return None  # D14: NOP (the 310B writes zeros for mask 0: its both-masked rule)
    return ((zero_both, dst_addr, src_addr, src_blk_stride, src_rep_stride, dst_rep_stride, repeat,
             as_signed64(plan.lo), as_signed64(plan.hi), last), (src_op, dst_op))


def warmup(device):
    """Compile ReducePairElem for `device` (`ascend-jit warmup`): one kernel serves every dtype and form."""
    from ..core import Core
    core = Core(device)
    for dtype in core.spec.pair_dtypes:
        src, dst = core.local_tensor(dtype, 256), core.local_tensor(dtype, 128)
        ReducePairElem(dst, src, src.dtype.lanes_per_repeat, 2, 1, 1, 8)
