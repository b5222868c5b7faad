"""The reduction family's Memory APIs (SPEC-2 8): ReduceRepeat (old names WholeReduceSum, WholeReduceMax,
WholeReduceMin, RepeatReduceSum), ReduceDataBlock (BlockReduceSum, BlockReduceMax, BlockReduceMin) and
GetReduceRepeatMaxMinSpr; ReduceMax/ReduceMin live in api/reduce_max_min.py and share the helpers below.

One validator serves both group reductions (a group is a whole repeat for ReduceRepeat, one DataBlock for
ReduceDataBlock): dtypes per device and reduce type, ranges (SPEC-2 1.2, 8.1, 8.2), the mask plan and the D30 zero
rules, alignment, the exact footprints (src: an Operand; dst: one run of result bytes per repeat), the UB and
tensor bounds, and the D34 overlap rule. It is memoised on everything it reads (tensor sizes and core.bounds
included), so a repeated call costs one dictionary lookup before the kernel runs.
"""
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..core import continuous_mask_words, current_core
from ..dtypes import DType, resolve
from ..errors import ParameterError, StateError, UnsupportedDeviceError, UnsupportedDTypeError
from ..jit.direct import EntryTable
from ..jit.reductions import group_classes, group_extreme_float_rows_kernel, group_extreme_kernel, group_sum_kernel
from ..order import ReduceOrder
from ..sanitizer import vector_access
from ._common import (MASK_PLACEHOLDER, Operand, Runs, as_enum, as_flag, as_signed64, check_align, check_dtype,
                      check_reduction_dtype, check_inside_ub, check_range, check_runs_overlap, check_tensor_bounds,
                      operands, plan_mask, record_mask, recorded_mask, remember)
from ..tensor import LocalTensor
from .reduce_pair import ReduceType

REPEAT, BLOCK = 0, 1      # the two group reductions
# group_sum_kernel's value-type witnesses: float32 lanes (half / float) or int64 lanes (the 950's integer SUM)
_FLOAT_SUM, _INT_SUM = np.float32(0.0), np.int64(0)
# Raw (sign-extended) bit patterns of the fully-masked-DataBlock fills (SPEC-2 8.2).
_FILLS = {"fill-inf": {("half", ReduceType.MAX): -1024, ("half", ReduceType.MIN): 0x7C00,            # -inf / +inf
                       ("float", ReduceType.MAX): -8388608, ("float", ReduceType.MIN): 0x7F800000},
          "fill-finite-half": {("half", ReduceType.MAX): -1025, ("half", ReduceType.MIN): 0x7BFF,    # -+65504
                               ("float", ReduceType.MAX): -8388608, ("float", ReduceType.MIN): 0x7F800000}}


class CoreFacts(NamedTuple):
    """What check_tensor_bounds reads from a core (hashable, so memoised validators can take it)."""
    bounds: str
    device: str


class Shape(NamedTuple):
    """What check_tensor_bounds reads from a tensor."""
    addr: int
    size: int
    dtype: DType

    @property
    def nbytes(self):
        return self.size * self.dtype.size


def cached(fn, layout, *values):
    """fn(*layout, *values) through its (typed) lru_cache. layout is ours (Python ints, specs, dtypes, mask plans);
    values are the caller's arguments, numpy integers taken as Python ints (issue 12: they compute what the plain
    int computes). Only the values are normalised: the call's fixed cost is part of its per-call cost (issue 21).
    An unhashable argument is validated uncached, which names the problem."""
    if not _NUMPY_INTEGERS.isdisjoint(map(type, values)):
        values = tuple(int(v) if isinstance(v, np.integer) else v for v in values)
    try:
        hash(values)
    except TypeError:
        return fn.__wrapped__(*layout, *values)
    return fn(*layout, *values)


_NUMPY_INTEGERS = frozenset(t for t in np.sctypeDict.values() if issubclass(t, np.integer))


def reduce_type_of(api, spec, value):
    """A ReduceType member or its int value; never a float, bool, string or a member of another enum such as
    aj.Reg.ReduceType (decisions.md "Integer parameters", issue 12)."""
    return as_enum(api, spec, "reduce_type", value, ReduceType)


def check_mask_not_empty(api, spec, plan):
    """D30: mask 0 is refused by the reductions on the 950 and the 310B and is a NOP elsewhere."""
    if plan.empty and plan.counter < 0 and (spec.mask_zero_refused or spec.reduce_mask_zero_refused):
        raise ParameterError(api, "mask", 0, legal="a mask with at least one lane (D30)", device=spec.name)


def record_spr(core, dtype, value_bits, index, refusal):
    """D55: the state GetReduceRepeatMaxMinSpr reads (A2/A3/310P)."""
    core.max_min_spr = (dtype, int(value_bits), int(index), refusal)


# --- the shared validator -------------------------------------------------------------------------------------------
@lru_cache(maxsize=4096, typed=True)  # typed: 1, 1.0 and True are separate entries (issue 12)
def _validate(api, family, spec, bounds, d, dd, src_addr, src_size, dst_addr, dst_size, plan, repeat_time,
              dst_rep_stride, src_blk_stride, src_rep_stride, rt, order):
    """Returns None (a NOP) or the kernel plan (repeats, last_lanes, dst_rep_bytes, group, fill, fill_raw, order)."""
    facts = CoreFacts(bounds, spec.name)
    if rt is ReduceType.SUM:
        pairs = (spec.reduce_repeat_sum_pairs if family == REPEAT
                 else tuple((t, t) for t in spec.reduce_data_block_dtypes))
        check_reduction_dtype(api, spec, d, [s for s, _ in pairs])
        want = dict(pairs)[d.name]
    else:
        check_reduction_dtype(api, spec, d, spec.reduce_repeat_max_min_dtypes if family == REPEAT
                              else spec.reduce_data_block_dtypes)
        want = d.name
    if dd.name != want:
        raise UnsupportedDTypeError(api, "dst.dtype", dd.name, legal=f"{want} for a {d.name} source", device=spec.name)
    if family == REPEAT and rt is not ReduceType.SUM:
        legal = ", ".join(ReduceOrder(o).name for o in spec.reduce_repeat_orders) + " (SPEC-2 8.1, D50)"
        try:  # a member or its int value: never a float, bool or another enum's member (issue 12)
            known = as_enum(api, spec, "order", order, ReduceOrder)
        except ParameterError:
            known = None
        if known is None or known not in spec.reduce_repeat_orders:
            raise ParameterError(api, "order", order, legal=legal, device=spec.name)
        order = known
    repeat_time = check_range(api, spec, "repeat_time", repeat_time, 0, 255)
    dst_rep_stride = check_range(api, spec, "dst_rep_stride", dst_rep_stride, 0, 65535)
    src_blk_stride = check_range(api, spec, "src_blk_stride", src_blk_stride, 0, 65535)
    src_rep_stride = check_range(api, spec, "src_rep_stride", src_rep_stride, 0, 65535)
    if dst_rep_stride == 0 and not spec.reduce_dst_rep_stride_zero:
        raise ParameterError(api, "dst_rep_stride", 0, legal="[1, 65535] on this device (SPEC-2 8.1: Atlas training "
                             "does not support 0)", device=spec.name)
    lanes = d.lanes_per_repeat
    if family == REPEAT:
        group = lanes
        if rt is ReduceType.SUM:
            unit = width = dd.size
        else:
            unit = {ReduceOrder.ORDER_VALUE_INDEX: 2 * d.size, ReduceOrder.ORDER_INDEX_VALUE: 2 * d.size,
                    ReduceOrder.ORDER_ONLY_VALUE: d.size, ReduceOrder.ORDER_ONLY_INDEX: 4}[order]
            width = unit
    else:
        group, unit, width = d.lanes_per_block, 8 * d.size, 8 * d.size
    check_align(api, spec, "src", src_addr, 32)
    check_align(api, spec, "dst", dst_addr, unit)
    check_mask_not_empty(api, spec, plan)
    repeats = plan.repeats(lanes, repeat_time)
    if plan.empty or repeats == 0:
        return None  # D30: NOP
    last = plan.last_lanes(lanes)
    src_op = Operand("src", src_addr, d.size, plan.lo, plan.hi, repeats, src_blk_stride, src_rep_stride, last)
    fills = _FILLS.get(spec.reduce_block_masked) if family == BLOCK else None
    first_out = 0
    if family == BLOCK and fills is None and plan.counter < 0:
        # D51: a fully masked DataBlock is not written on these devices, so the footprint (tensor bounds, overlap,
        # sanitizer) spans the first to the last DataBlock the mask reaches, not all 8 results (issue 11's rule)
        bits, ones = plan.lo | (plan.hi << 64), (1 << group) - 1
        blocks = [b for b in range(8) if (bits >> (b * group)) & ones]
        first_out, width = blocks[0] * d.size, (blocks[-1] - blocks[0] + 1) * d.size
    dst_runs = Runs("dst", dst_addr + first_out, width, dst_rep_stride * unit, repeats)
    src_ext = check_inside_ub(api, spec, src_op)
    dst_ext = check_inside_ub(api, spec, dst_runs)
    check_tensor_bounds(api, facts, src_op, Shape(src_addr, src_size, d), src_ext)
    check_tensor_bounds(api, facts, dst_runs, Shape(dst_addr, dst_size, dd), dst_ext)
    check_runs_overlap(api, spec, dst_runs, src_op, dst_ext, src_ext, in_place=dst_addr == src_addr)
    fill_raw = 0 if (fills is None or rt is ReduceType.SUM) else fills[(d.name, rt)]
    order_code = int(order) if family == REPEAT and rt is not ReduceType.SUM else int(ReduceOrder.ORDER_ONLY_VALUE)
    return repeats, last, dst_rep_stride * unit, group, fills is not None, fill_raw, order_code, (src_op, dst_runs)


_ENTRIES = EntryTable()
_GROUP_CALLS = {}   # the validated call shapes of _group_call's plain form (_group_key) -> _GroupCall
_GROUP_CALLS_MAX = 8192


class _GroupCall(NamedTuple):
    """One validated call shape's kernel call (issue 21): the kernel's compiled entry, its arguments before and after
    the half-saturation flag (the one value read from the core on every call), the words the call leaves in the
    mask register (None: none) and, for a MAX/MIN that records the SPR (D55), the source dtype and the refusal."""
    run: object
    head: tuple
    tail: tuple
    words: object
    float_sum: bool
    spr: object


def _group_key(api, family, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, reduce_type,
               order):
    """The memo key of a group call on live LocalTensors of one core without a sanitizer whose mask, repeat and
    strides are exact ints (True, 1.0 or np.int64(1) never share an entry with 1) and whose reduce type and order are
    ReduceType and ReduceOrder members (ReduceDataBlock's order None), else None: everything _validate and
    plan_mask read (device, bounds rule, counter mode, each tensor's dtype, address and size, the arguments)."""
    # written out, not memo_key: this is every remembered group call's path, and a shared helper's calls cost about
    # a third of it (1.6 against 2.5 us a WholeReduceSum)
    if type(dst) is not LocalTensor or type(src) is not LocalTensor or type(mask) is not int or \
            type(repeat_time) is not int or type(dst_rep_stride) is not int or type(src_blk_stride) is not int or \
            type(src_rep_stride) is not int or (order is not None and type(order) is not ReduceOrder) or \
            type(reduce_type) is not ReduceType:
        return None
    core = dst._core
    if src._core is not core or core.sanitizer is not None or \
            not (dst._lease is None or dst._lease.alive) or not (src._lease is None or src._lease.alive):
        return None
    return (api, family, core.spec, core.bounds, core.counter_mode, dst._dtype, dst._addr, dst._size, src._dtype,
            src._addr, src._size, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, reduce_type, order)


def _register_group_key(api, family, dst, src, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
                        reduce_type, order):
    """The memo key of a group call with is_set_mask=False and aj.MASK_PLACEHOLDER (the mask read from the
    register, as counter-mode kernels call BlockReduceMax / WholeReduceSum row after row), else None: _group_key's
    facts with the register's two words in the mask's place. plan_mask reads only those words, the counter mode and
    whether the register is defined (an undefined register is refused by the full path, so it never has a key);
    such a call leaves the register alone (recorded_mask is None for a plan from the register)."""
    core = dst._core if type(dst) is LocalTensor else None
    if core is None or not core.mask_defined:
        return None
    key = _group_key(api, family, dst, src, 0, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
                     reduce_type, order)
    if key is None:
        return None
    # the register's words in the mask's slot: a tuple, so never equal to a plain call's int mask
    return key[:11] + (("register", core.mask_high, core.mask_low),) + key[12:]


def _group_call(api, family, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, reduce_type,
                order, is_set_mask):
    """A group reduction. Fast path (issue 21, as the element-wise entries): a plain call whose shape an earlier
    call validated runs its remembered _GroupCall, and so does a call reading its mask from the register
    (is_set_mask=False with aj.MASK_PLACEHOLDER) whose shape and register words an earlier call validated; the first
    call of a shape, NOPs, the sanitizer, freed tensors and every refusal take the full path below, which
    remembers what it validated."""
    key = None
    if is_set_mask is True:
        key = _group_key(api, family, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
                         reduce_type, order)
    elif is_set_mask is False and mask is MASK_PLACEHOLDER:
        key = _register_group_key(api, family, dst, src, repeat_time, dst_rep_stride, src_blk_stride,
                                  src_rep_stride, reduce_type, order)
    if key is not None:
        call = _GROUP_CALLS.get(key)
        if call is not None:
            core = dst._core
            if call.words is not None:
                core.mask_high, core.mask_low = call.words
                core.mask_defined = True
            result = call.run(core.ub, *call.head, core.half_saturating and call.float_sum, *call.tail)
            if call.spr is not None:
                record_spr(core, call.spr[0], *result, call.spr[1])
            return
    core = operands(api, dst, src)
    spec, d = core.spec, src.dtype
    is_set_mask = as_flag(api, spec, "is_set_mask", is_set_mask)  # a template flag: True/False only (issue 12)
    rt = reduce_type_of(api, spec, reduce_type)
    plan = plan_mask(api, core, d, mask, is_set_mask)  # (memoised there for int masks)
    call = cached(_validate, (api, family, spec, core.bounds, d, dst.dtype, src.addr, src.size, dst.addr, dst.size,
                              plan), repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, rt, order)
    if call is not None and core.sanitizer is not None:  # before any state changes: a report raised leaves none
        src_op, dst_runs = call[-1]
        writes = [(dst_runs, dst)]
        if family == REPEAT and rt is not ReduceType.SUM and spec.max_min_spr:
            writes.append((core.sanitizer.spr("MAX_MIN"), None))   # read by GetReduceRepeatMaxMinSpr (D55)
        vector_access(core, api, reads=[(src_op, src)], writes=writes)
    if spec.high_dim_writes_mask_register:
        record_mask(core, plan, d, mask)  # D31: as high-dim Add / ReducePairElem
    if call is None:
        return
    repeats, last, dst_rep_bytes, group, fill, fill_raw, order_code, (src_op, dst_runs) = call
    lo, hi = as_signed64(plan.lo), as_signed64(plan.hi)
    src_rep_bytes = int(src_rep_stride) * 32
    if rt is ReduceType.SUM:
        float_sum = d.is_float
        head = (d.kind, dst.dtype.kind)
        # whole and contiguous (every lane, blkStride 1, one type, repeats back to back, no counter-mode tail, the
        # groups written back to back): the kernel's walk and per-group store are not compiled (strided None)
        full_hi, full_lo = continuous_mask_words(d.lanes_per_repeat)
        whole = (plan.lo & full_lo == full_lo and plan.hi & full_hi == full_hi and int(src_blk_stride) == 1 and
                 d.kind == dst.dtype.kind and src_rep_bytes == 256 and last < 0 and
                 dst_rep_bytes == d.lanes_per_repeat // group * dst.dtype.size)
        witness = _FLOAT_SUM if float_sum else _INT_SUM
        tail = (group, dst.addr, dst_rep_bytes, src.addr, int(src_blk_stride), src_rep_bytes, repeats, lo, hi, last,
                fill, witness, None if whole else 0)
        kernel, spr, entry_key = group_sum_kernel, None, (group_sum_kernel, type(witness), whole)
    else:
        float_sum = True   # the extremes take the core's flag as it is
        head = (d.kind,)
        classes = group_classes(d.kind, d.size)
        tail = (int(rt), group, order_code, dst.addr, dst_rep_bytes, src.addr, int(src_blk_stride), src_rep_bytes,
                repeats, lo, hi, last, fill, fill_raw, *classes)
        # floats with every lane (64: the low mask word) of contiguous blocks, not in counter mode: the row scan
        rows = d.name == "float" and lo == -1 and src_blk_stride == 1 and last < 0
        kernel = group_extreme_float_rows_kernel if rows else group_extreme_kernel
        spr, entry_key = None, (kernel, *classes)
        if family == REPEAT and spec.max_min_spr:
            refusal = None
            if plan.counter >= 0:
                refusal = "the last ReduceRepeat MAX/MIN ran in counter mode"
            elif src_blk_stride != 1 or src_rep_stride != 8:
                refusal = "the last ReduceRepeat MAX/MIN was not contiguous (src_blk_stride 1, src_rep_stride 8)"
            spr = (d, refusal)
    args = (core.ub, *head, core.half_saturating and float_sum, *tail)
    run = _ENTRIES.get(entry_key, kernel, args)
    result = run(*args)
    if spr is not None:
        record_spr(core, d, *result, spr[1])
    if key is not None:
        remember(_GROUP_CALLS, key, _GroupCall(run, head, tail, recorded_mask(spec, plan) if
                                               spec.high_dim_writes_mask_register else None, float_sum, spr),
                 _GROUP_CALLS_MAX)


# --- ReduceRepeat and its old names (SPEC-2 8.1) --------------------------------------------------------------------
def ReduceRepeat(dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
                 order=ReduceOrder.ORDER_VALUE_INDEX, *, reduce_type=None, is_set_mask=True):
    """Reduce each repeat of `src` to one result (SPEC-2 8.1). SUM: the SPEC 4.1 tree (950 integers widen and wrap,
    D50), one dst element per repeat. MAX/MIN: value and lane index (D50: ties -> smallest lane, the first NaN lane
    wins, masked lanes never win) in the layout `order` (aj.ReduceOrder; ignored for SUM). Repeat i writes at
    dst + i * dst_rep_stride * (bytes per repeat). `reduce_type` is required. BIT-EXACT (aj.FIDELITY)."""
    _group_call("ReduceRepeat", REPEAT, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
                reduce_type, order, is_set_mask)


def WholeReduceSum(dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, *, is_set_mask=True):
    """The old name of ReduceRepeat SUM (DK-0610 WholeReduceSum.md; same arguments)."""
    _group_call("WholeReduceSum", REPEAT, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
                ReduceType.SUM, ReduceOrder.ORDER_VALUE_INDEX, is_set_mask)


def WholeReduceMax(dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
                   order=ReduceOrder.ORDER_VALUE_INDEX, *, is_set_mask=True):
    """The old name of ReduceRepeat MAX (DK-0610 WholeReduceMax.md; SPEC-2 8.1): per repeat the largest active lane
    and its lane number, ties to the smallest lane, the first NaN lane wins, masked lanes never win (D50), under D41's
    order, where -0 < +0 (so [-0, +0] gives +0 at lane 1). Repeat i writes at dst + i * dst_rep_stride * unit, unit
    2 * sizeof(T) for ORDER_VALUE_INDEX ([value, index]) and ORDER_INDEX_VALUE, sizeof(T) for ORDER_ONLY_VALUE, 4 for
    ORDER_ONLY_INDEX (a uint32); the index in a T slot is the lane number's integer bits (a half slot's uint16:
    view it with .ReinterpretCast("uint16") or numpy's .view(np.uint16)). BIT-EXACT."""
    _group_call("WholeReduceMax", REPEAT, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
                ReduceType.MAX, order, is_set_mask)


def WholeReduceMin(dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
                   order=ReduceOrder.ORDER_VALUE_INDEX, *, is_set_mask=True):
    """The old name of ReduceRepeat MIN (DK-0610 WholeReduceMin.md; SPEC-2 8.1): WholeReduceMax's layout and rules
    with the smallest active lane (D41: min(-0, +0) is -0). BIT-EXACT."""
    _group_call("WholeReduceMin", REPEAT, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
                ReduceType.MIN, order, is_set_mask)


def RepeatReduceSum(dst, src, repeat_time, mask, dst_blk_stride, src_blk_stride, dst_rep_stride, src_rep_stride, *,
                    is_set_mask=True):
    """The old name of ReduceRepeat SUM with repeatTime before a continuous mask (DK-0610 RepeatReduceSum.md);
    dst_blk_stride is range-checked (0..65535) and ignored. Not offered on the 310B (SPEC-2 1.9)."""
    api = "RepeatReduceSum"
    core = operands(api, dst, src)
    if not core.spec.repeat_reduce_sum_offered:
        raise UnsupportedDeviceError(api, "device", core.device, legal="ascend950, atlas-a3, atlas-a2, "
                                     "atlas-inference-aicore, atlas-training (SPEC-2 1.9)")
    if mask is not MASK_PLACEHOLDER and isinstance(mask, (list, tuple)):
        raise ParameterError(api, "mask", mask, legal="a continuous mask (int): RepeatReduceSum has no bit-mask form",
                             device=core.device)
    check_range(api, core.spec, "dst_blk_stride", dst_blk_stride, 0, 65535)
    _group_call(api, REPEAT, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
                ReduceType.SUM, ReduceOrder.ORDER_VALUE_INDEX, is_set_mask)


# --- ReduceDataBlock and its old names (SPEC-2 8.2) -----------------------------------------------------------------
def ReduceDataBlock(dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, *, reduce_type=None,
                    is_set_mask=True):
    """Reduce each 32-byte DataBlock of each repeat (SPEC-2 8.2): repeat i writes its 8 results at
    dst + i * dst_rep_stride * 8 * sizeof(T). SUM: adjacent-pair tree per block; MAX/MIN: D41 extreme, then SAT.
    A fully masked block is not written (A2/A3/310P/910, D51) or filled (310B, 950). BIT-EXACT."""
    _group_call("ReduceDataBlock", BLOCK, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
                reduce_type, None, is_set_mask)


def _block_alias(name, rt):
    def alias(dst, src, repeat_time, mask, dst_rep_stride, src_blk_stride, src_rep_stride, *, is_set_mask=True):
        _group_call(name, BLOCK, dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, rt,
                    None, is_set_mask)
    alias.__name__ = alias.__qualname__ = name
    alias.__doc__ = (f"The old name of ReduceDataBlock {rt.name} with repeatTime before mask (DK-0610 {name}.md): "
                     f"{name}(dst, src, repeat_time, mask, dst_rep_stride, src_blk_stride, src_rep_stride).")
    return alias


BlockReduceSum = _block_alias("BlockReduceSum", ReduceType.SUM)
BlockReduceMax = _block_alias("BlockReduceMax", ReduceType.MAX)
BlockReduceMin = _block_alias("BlockReduceMin", ReduceType.MIN)


# --- GetReduceRepeatMaxMinSpr (SPEC-2 8.4, D55) ---------------------------------------------------------------------
def GetReduceRepeatMaxMinSpr(dtype, *, core=None):
    """The extreme (and on A2/A3 its index) of the last ReduceRepeat MAX/MIN or ReduceMax/ReduceMin of `dtype` on
    the current core (`with core:`) or `core`: `(value, index)` on A2/A3, `value` on the 310P, numpy scalars of
    dtype (index: the integer's bit pattern, read it with .view(np.uint16) / .view(np.uint32)). D55."""
    api = "GetReduceRepeatMaxMinSpr"
    core = core if core is not None else current_core(api)
    spec = core.spec
    spec.require_supported(api)
    if not spec.max_min_spr:
        raise UnsupportedDeviceError(api, "device", core.device, legal="atlas-a2, atlas-a3, atlas-inference-aicore "
                                     "(SPEC-2 1.9)")
    d = resolve(dtype, api, core.device)
    check_dtype(api, spec, d, ("half", "float"))
    state = core.max_min_spr
    if state is None:
        raise StateError(api, "state", None, device=core.device,
                         legal="after a ReduceRepeat MAX/MIN or ReduceMax/ReduceMin on this core (D55)",
                         detail="no ReduceRepeat MAX/MIN or ReduceMax/ReduceMin ran on this core (D55)")
    last_dtype, bits, index, refusal = state
    if refusal:
        raise StateError(api, "state", refusal, device=core.device,
                         legal="a register the last ReduceRepeat MAX/MIN or ReduceMax/ReduceMin defined (D55)",
                         detail="the register is not defined (D55)")
    if last_dtype is not d:
        raise StateError(api, "dtype", d.name, legal=f"{last_dtype.name} (the last call's dtype)", device=core.device,
                         detail="the last MAX/MIN reduction used another dtype (D55)")
    if core.sanitizer is not None:   # after the refusals: a refused read is no access
        core.sanitizer.spr_read(api, "MAX_MIN")
    bits_t = np.uint16 if d.size == 2 else np.uint32
    value = np.array(bits & (0xFFFF if d.size == 2 else 0xFFFFFFFF), bits_t).view(d.np_dtype)[()]
    if spec.max_min_spr == "value":
        return value
    return value, np.array(index & (0xFFFF if d.size == 2 else 0xFFFFFFFF), bits_t).view(d.np_dtype)[()]


GetReduceMaxMinCount = GetReduceRepeatMaxMinSpr  # the name before the 9.1 renames (SPEC-2 8.4 "= GetReduceMaxMinCount")
