"""ReduceSum: the count form and the high-dim form (continuous or bit mask) with each device's documented
accumulation order (SPEC 4; decisions D1, D2, D7, D11, D14, D16, D17, D18, D22, D23, D26)."""
from ..devices import TREE_SEQ, TREE_TREE_950, TREE_TREE_TAIL, VADD_TREE, get_device
from ..dtypes import resolve
from ..errors import OutOfBoundsError, OverlapError, ParameterError, StateError, UnsupportedDTypeError
from ..jit.reduce import (ALG_950_NORMAL, ALG_SUM64, ALG_TREE_SEQ, ALG_TREE_TREE, ALG_TREE_TREE_TAIL, ALG_VADD_TREE,
                          reduce_sum_kernel)
from ._common import (MASK_PLACEHOLDER, Operand, as_signed64, check_align, check_dtype, check_inside_ub,
                      check_range, check_same_dtype, operands, plan_mask)

API = "ReduceSum"
INT32_MAX = 2**31 - 1
_COUNT_ALGO = {TREE_SEQ: ALG_TREE_SEQ, TREE_TREE_TAIL: ALG_TREE_TREE_TAIL, VADD_TREE: ALG_VADD_TREE}


def _round_up(n, multiple):
    return -(-n // multiple) * multiple


def GetReduceSumTmpSize(device, dtype, count=None, repeat_time=None, counter_mode=False):
    """Minimum sharedTmpBuffer elements (D11, D18) for the count form (`count=`) or the high-dim form
    (`repeat_time=`; with counter_mode on the 950, pass the element count as `count` together with repeat_time)."""
    spec, d = get_device(device), resolve(dtype, "GetReduceSumTmpSize")
    lanes, epb = d.lanes_per_repeat, d.lanes_per_block
    if repeat_time is not None and not (counter_mode and spec.reduce_sum_highdim_algorithm == TREE_TREE_950):
        return _round_up(max(int(repeat_time), 0), epb)   # the documented formula (seed, SPEC 4.5)
    if count is None:
        raise ParameterError("GetReduceSumTmpSize", "count", None, legal="count= or repeat_time=")
    algo = spec.reduce_sum_count_algorithm if repeat_time is None else VADD_TREE
    if algo == TREE_SEQ:
        return 0                                          # SPEC 4.2: tmp is never touched
    if algo == TREE_TREE_TAIL:
        return _round_up(max(count // lanes, 1), epb)     # first level writes floor(count/L) (>= 1) entries
    return _round_up(-(-count // lanes), epb)             # D11: 950 writes ceil(count/L) entries


def ReduceSum(dst, src, shared_tmp_buffer, *args, is_set_mask=True, count=None, mask=None, repeat_time=None,
              src_rep_stride=None):
    """`ReduceSum(dst, src, tmp, count)` or `ReduceSum(dst, src, tmp, mask, repeat_time, src_rep_stride)`."""
    if count is not None or (len(args) == 1 and mask is None):
        return reduce_sum_count(dst, src, shared_tmp_buffer, count if count is not None else args[0], is_set_mask)
    if len(args) == 3:
        mask, repeat_time, src_rep_stride = args
    elif args:
        raise ParameterError(API, "arguments", len(args) + 3, legal="(dst, src, tmp, count) or "
                             "(dst, src, tmp, mask, repeat_time, src_rep_stride)")
    if not is_set_mask:
        raise ParameterError(API, "is_set_mask", False, device=dst.core.device, legal="True",
                             detail="the high-dim ReduceSum has no isSetMask template parameter (seed prototypes)")
    return reduce_sum_high_dim(dst, src, shared_tmp_buffer, mask, repeat_time, 8 if src_rep_stride is None
                               else src_rep_stride)


def _common_checks(dst, src, tmp):
    core = operands(API, dst, src, tmp)
    d = src.dtype
    check_dtype(API, core.spec, d, core.spec.reduce_sum_dtypes)
    check_same_dtype(API, core.spec, src, dst=dst, sharedTmpBuffer=tmp)
    check_align(API, core.spec, "src", src.addr, 32)
    check_align(API, core.spec, "sharedTmpBuffer", tmp.addr, 32)
    check_align(API, core.spec, "dst", dst.addr, d.size)  # SPEC 4.5: 2 B (half) / 4 B (float)
    if dst.size < 1:
        raise OutOfBoundsError(API, "dst", dst, legal="at least 1 element", device=core.device)
    return core, d


def _check_tmp_and_overlaps(core, d, dst, src, tmp, src_ext, need):
    if tmp.size < need:
        raise ParameterError(API, "sharedTmpBuffer.GetSize()", tmp.size, legal=f">= {need} elements", device=core.device,
                             detail=f"too small: the algorithm needs {need} elements (D11, D18)")
    dst_ext = (dst.addr, dst.addr + d.size)
    tmp_ext = (tmp.addr, tmp.addr + need * d.size)
    for name, ext in (("dst", dst_ext), ("sharedTmpBuffer", tmp_ext)):
        if src_ext is not None and ext[1] > ext[0] and ext[0] < src_ext[1] and src_ext[0] < ext[1]:
            raise OverlapError(API, f"src/{name}", f"{name} bytes [{ext[0]}, {ext[1]})", device=core.device,
                               legal="disjoint from src bytes " f"[{src_ext[0]}, {src_ext[1]}) (SPEC 4.5, 8.2)")


def _run(core, d, algo, dst, src, tmp, rep_bytes, n, lo=-1, hi=-1):
    reduce_sum_kernel(core.ub, d.kind, core.half_saturating, algo, dst.addr, src.addr, tmp.addr, rep_bytes, n, lo, hi)


def reduce_sum_count(dst, src, tmp, count, is_set_mask=True):
    core, d = _common_checks(dst, src, tmp)
    spec = core.spec
    algo = spec.reduce_sum_count_algorithm
    if not is_set_mask and algo == TREE_SEQ:
        # A2/A3 honour isSetMask=false: the count comes from the user's counter-mode mask (SPEC 4.2, 2.5)
        if not core.counter_mode or not core.mask_defined:
            raise StateError(API, "is_set_mask", False, device=core.device,
                             detail="needs counter mode and a count in the mask register (SetMaskCount; SetVectorMask(n))")
        count = core.mask_low
    count = check_range(API, core.spec, "count", count, 1, spec.ub_bytes // d.size)  # D16
    if count > src.size:
        raise OutOfBoundsError(API, "count", count, legal=f"<= src.GetSize() = {src.size}", device=core.device)
    need = GetReduceSumTmpSize(spec, d, count=count)
    _check_tmp_and_overlaps(core, d, dst, src, tmp, (src.addr, src.addr + count * d.size), need)
    if d.name in ("int64", "uint64"):
        kernel_algo = ALG_SUM64
    else:
        kernel_algo = _COUNT_ALGO[algo]
    _run(core, d, kernel_algo, dst, src, tmp, 256, count)
    if algo == TREE_SEQ:
        if is_set_mask:
            core._after_count_call()  # Normal mode, all-ones mask (SPEC 4.2 step 5, audit 1a)
    elif algo == TREE_TREE_TAIL:
        core.mask_defined = False     # built from high-dim calls: the register holds implementation state (D22)
    if d.is_float:
        core.acc_val = float(dst.GetValue(0))


def reduce_sum_high_dim(dst, src, tmp, mask, repeat_time, src_rep_stride):
    core, d = _common_checks(dst, src, tmp)
    spec = core.spec
    if d.name in spec.reduce_sum_count_only_dtypes:
        raise UnsupportedDTypeError(API, "dtype", d.name, device=core.device,
                                    legal=", ".join(t for t in spec.reduce_sum_dtypes
                                                    if t not in spec.reduce_sum_count_only_dtypes),
                                    detail="64-bit types only through the count form (SPEC 4.5)")
    repeat_time = check_range(API, core.spec, "repeat_time", repeat_time, 0, INT32_MAX)
    src_rep_stride = check_range(API, core.spec, "src_rep_stride", src_rep_stride, 0, 65535)
    lanes = d.lanes_per_repeat
    is_950 = spec.reduce_sum_highdim_algorithm == TREE_TREE_950
    if core.counter_mode:
        if not is_950:
            raise StateError(API, "mask mode", "counter", device=core.device, legal="normal mode (SetMaskNorm)",
                             detail="the high-dim ReduceSum is defined in counter mode on the 950 only (D23)")
        if mask is MASK_PLACEHOLDER:
            raise ParameterError(API, "mask", mask, legal="the element count (D23)", device=core.device)
        count = (int(mask[0]) if isinstance(mask, (list, tuple)) else int(mask)) & 0xFFFFFFFF  # D23: low 32 bits
        count = check_range(API, core.spec, "mask (counter-mode count)", count, 1, spec.ub_bytes // d.size)
        op = Operand("src", src.addr, d.size, -1 & (2**64 - 1), (2**64 - 1) if lanes > 64 else 0,
                     -(-count // lanes), 1, src_rep_stride, count % lanes or lanes)
        src_ext = check_inside_ub(API, core.spec, op)
        need = GetReduceSumTmpSize(spec, d, count=count, repeat_time=repeat_time, counter_mode=True)
        _check_tmp_and_overlaps(core, d, dst, src, tmp, src_ext, need)
        _run(core, d, ALG_VADD_TREE, dst, src, tmp, src_rep_stride * 32, count)
        return
    plan = plan_mask(API, core, d, mask, True)
    if plan.empty:
        if spec.mask_zero_refused:
            raise ParameterError(API, "mask", 0, legal="a mask with at least one lane (D14)", device=core.device)
        core.mask_defined = False
        return  # D14: NOP (the intf returns early on mask 0)
    if repeat_time > lanes * lanes:
        raise ParameterError(API, "repeat_time", repeat_time, legal=f"[0, {lanes * lanes}] (L*L)", device=core.device,
                             detail="more repeat results than one two-level tree holds; the devices silently drop "
                                    "them (D17, audit 1b)")
    run_repeats = max(repeat_time, 1) if is_950 else repeat_time
    op = Operand("src", src.addr, d.size, plan.lo, plan.hi, run_repeats, 1, src_rep_stride)
    src_ext = check_inside_ub(API, core.spec, op)
    need = GetReduceSumTmpSize(spec, d, repeat_time=repeat_time)
    _check_tmp_and_overlaps(core, d, dst, src, tmp, src_ext, need)
    if is_950:
        if plan.bit_mode:
            core.mask_high, core.mask_low, core.mask_defined = plan.hi, plan.lo, True  # audit 3: bit form writes it
        _run(core, d, ALG_950_NORMAL, dst, src, tmp, src_rep_stride * 32, run_repeats,
             as_signed64(plan.lo), as_signed64(plan.hi))
        return
    core.mask_defined = False  # D22: implementation state after a non-950 high-dim ReduceSum
    if repeat_time == 0:
        if spec.reduce_sum_highdim_repeat0 == "zero":
            dst.SetValue(0, 0)  # D14 / audit 2: the 310B writes +0 to dst[0]
        return
    _run(core, d, ALG_TREE_TREE, dst, src, tmp, src_rep_stride * 32, repeat_time, as_signed64(plan.lo),
         as_signed64(plan.hi))
