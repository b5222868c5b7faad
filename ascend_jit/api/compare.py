"""Compare, Compares (with the comparison operators) and Select (SPEC-2 9.4, 9.5, D43, D44, D59, D31, D34)."""
import enum
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..core import continuous_mask_words, count_call_effect
from ..errors import OutOfBoundsError, ParameterError, UnsupportedDeviceError, UnsupportedDTypeError
from ..jit.compare import compare_contiguous, compare_strided, select_contiguous, select_strided
from ..jit.direct import EntryTable
from ..tensor import LocalTensor, known_device
from ..sanitizer import (COMPARED_FIX, SELECTED_FIX, Derived, bit_mask_scratch_flags, operand_elements,
                         vector_access)
from ._common import as_enum, as_int, repeat_params as _repeat_params
from ._common import (BoundsRule, Operand, Runs, TensorExtent, UnaryRepeatParams, as_signed64, check_align,
                      check_count_within, check_dtype, check_inside_ub, check_overlap, check_range,
                      check_repeat_overlap, check_run_bounds, check_runs_overlap, check_tensor_bounds,
                      high_dim_is_set_mask, high_dim_memo_key, mask_lane_indices, memo_key, operands, plan_mask,
                      recorded_mask, refuse_empty_mask_on_950, refuse_template_argument, remember, split_forms,
                      unary_repeat_params)
from ._scalar import element_scalar, scalar_bits
from .elementwise import BinaryRepeatParams

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


class CMPMODE(enum.IntEnum):
    """SPEC-2 9.4 (member names as in C++; the numeric values are not relied upon)."""
    LT = 0
    GT = 1
    EQ = 2
    LE = 3
    GE = 4
    NE = 5


class SELMODE(enum.IntEnum):
    """SPEC-2 9.5."""
    VSEL_CMPMASK_SPR = 0
    VSEL_TENSOR_SCALAR_MODE = 1
    VSEL_TENSOR_TENSOR_MODE = 2


_OPERATORS = {CMPMODE.LT: "<", CMPMODE.GT: ">", CMPMODE.LE: "<=", CMPMODE.GE: ">=", CMPMODE.EQ: "==",
              CMPMODE.NE: "!="}


def _split(api, args, count, mask, repeat_time, repeat_params, is_set_mask, dst, forms, n_before):
    """(is count form, count, mask, repeat_time, repeat_params, is_set_mask) from the positional tail and the
    keywords (SPEC-2 1.1: positional, keyword or both; _common.split_forms), with D32's is_set_mask rule."""
    device = known_device(dst)   # dst's, else the current core's: a form error may come before the operand checks
    form, values = split_forms(api, args, count, dict(mask=mask, repeat_time=repeat_time, repeat_params=repeat_params),
                               n_before, device, forms)
    if form == "count":
        high_dim_is_set_mask(api, True, is_set_mask)
        return True, values[0], None, None, None, True
    return (False, None, *values, high_dim_is_set_mask(api, False, is_set_mask))


_COMPARE_FORMS = ("(dst, src0, src1, cmp_mode, count) or (dst, src0, src1, cmp_mode, mask, repeat_time, "
                  "repeat_params)")
_COMPARES_FORMS = ("(dst, src0, scalar, cmp_mode, count) or (dst, src0, scalar, cmp_mode, mask, repeat_time, "
                   "repeat_params)")
_SELECT_FORMS = ("(dst, sel_mask, src0, src1, sel_mode, count) or (dst, sel_mask, src0, src1, sel_mode, mask, "
                 "repeat_time, repeat_params)")


# --- remembered calls ------------------------------------------------------------------------------------------------
# A call whose shape was validated runs from a memo (as the element-wise entries' and the group reductions', issue
# 21): the count forms of Compare (4.8 -> 2.1 us), Compares and Select (5.6 -> 2.5 us a call; BENCHMARKS.md "Session
# 38"), and the high-dim forms of all three given positionally (session 39). The key holds everything the
# validators read; the first call of a shape, keywords, the sanitizer, freed tensors, the 950's src1Local[0]
# overload and every refusal take the full path, which remembers what it ran.
class _RememberedCall(NamedTuple):
    """A validated call: kernel(ub, *head, second operand's array, its byte offset, *tail) (kernel None: a NOP,
    D30); b_addr None: the scalar's bits are converted on every call (D29; its value is not in the key). effect: what
    the call leaves in the mask register (count_call_effect's form; None: nothing); undefine: the call leaves the
    register undefined (D31)."""
    kernel: object
    head: tuple
    tail: tuple
    b_addr: object
    effect: object
    undefine: bool


_COUNT_CALLS = {}
_COUNT_CALLS_MAX = 8192


def _count_key(api, mode, mode_type, count, tensors, scalar):
    """The memo key of a count-form call (exact int count, `mode` a member of mode_type, plain LocalTensors of one
    live core without a sanitizer, a scalar that is no LocalTensor), else None."""
    if type(count) is not int or type(mode) is not mode_type or type(scalar) is LocalTensor:
        return None
    return memo_key((api, mode, count), tensors)


_ENTRIES = EntryTable()  # the count kernels' compiled entries (numba's dispatcher costs 1.0 us a call, these 0.3)


def _remembered_call(kernel, head, tail, b_addr, effect, undefine, ub, bbuf):
    """A _RememberedCall of `kernel` through its compiled entry (the arguments' types are the kernel's alone: the UB
    or a scalar's bytes, both C-contiguous uint8 arrays, and Python ints and bools)."""
    entry = None if kernel is None else _ENTRIES.get(kernel, kernel, (ub, *head, bbuf, 0, *tail))
    return _RememberedCall(entry, head, tail, b_addr, effect, undefine)


def _run_remembered(call, core, bbuf, b_addr):
    if call.kernel is not None:
        call.kernel(core.ub, *call.head, bbuf, b_addr, *call.tail)
    if call.effect is not None:
        core._apply_mask_effect(call.effect)
    if call.undefine:
        core.mask_defined = False  # D31


def _remembered(api, args, count, mask, repeat_time, repeat_params, is_set_mask, mode, mode_type, tensors,
                scalar=None, params_cls=None):
    """(memo key or None, the remembered call or None) of a call given as (..., count) or, with `params_cls` (its
    high-dim forms are remembered), (..., mask, repeat_time, repeat_params) positionally, with no keywords."""
    if count is not None or mask is not None or repeat_time is not None or repeat_params is not None or \
            is_set_mask is not None:
        return None, None
    if len(args) == 1:
        key = _count_key(api, mode, mode_type, args[0], tensors, scalar)
    elif len(args) == 3 and params_cls is not None and type(mode) is mode_type and type(scalar) is not LocalTensor:
        key = high_dim_memo_key((api, mode), tensors, *args, params_cls)
    else:
        return None, None
    return key, (None if key is None else _COUNT_CALLS.get(key))


# --- Compare / Compares ---------------------------------------------------------------------------------------------
def Compare(dst, src0, src1, cmp_mode, *args, count=None, mask=None, repeat_time=None, repeat_params=None,
            is_set_mask=None):
    """`Compare(dst, src0, src1, cmp_mode, count)` or `(..., cmp_mode, mask, repeat_time, repeat_params)`: one bit
    per element into the uint8/int8 dst, LSB first (D44)."""
    if type(dst) is not LocalTensor:
        refuse_template_argument("Compare", dst)
    key, call = _remembered("Compare", args, count, mask, repeat_time, repeat_params, is_set_mask, cmp_mode, CMPMODE,
                            (dst, src0, src1), params_cls=BinaryRepeatParams)
    if call is not None:
        return _run_remembered(call, dst._core, dst._core.ub, call.b_addr)
    if isinstance(src1, CMPMODE):   # Compare(src0, src1, cmpMode, mask, repeatParams): no dst
        raise ParameterError("Compare", "dst", "missing (a CMPMODE third)", legal=_CMPMASK_FORM,
                             device=known_device(dst))
    is_count, count, mask, repeat_time, repeat_params, is_set_mask = _split(
        "Compare", args, count, mask, repeat_time, repeat_params, is_set_mask, dst, _COMPARE_FORMS, 4)
    core = operands("Compare", dst, src0, src1, names=("src0", "src1"))
    return _compare(core, "Compare", dst, src0, src1, None, cmp_mode, is_count, count, mask, repeat_time,
                    repeat_params, is_set_mask, memo_key=key)


_MISSING = object()
# The CMPMASK register forms (port54b, ops-math NotEqual's float path): not offered, as SetCmpMask / GetCmpMask
_CMPMASK_FORM = ("not offered (SPEC-2 14, D59): the dst-less Compare(src0, src1, cmpMode, mask, repeatParams) writes "
                 "the CMPMASK register, whose layout after Compare is not documented per device; give a uint8 dst "
                 "tensor, Compare(dst, src0, src1, cmpMode, ...), and pass it to Select as its selMask")
_CMPMASK_SELECT = ("not offered (SPEC-2 14, D59): Select without a selMask tensor reads the CMPMASK register a "
                   "dst-less Compare set; pass the Compare's dst tensor: Select(dst, sel_mask, src0, src1, sel_mode, "
                   "...)")


def Compares(dst, src0, scalar=_MISSING, cmp_mode=_MISSING, *args, count=None, mask=None, repeat_time=None,
             repeat_params=None, is_set_mask=None, src1_scalar=_MISSING):
    """`Compares(dst, src0, scalar, cmp_mode, count)` or `(..., cmp_mode, mask, repeat_time, repeat_params)` with
    UnaryRepeatParams; the scalar is converted to src0's dtype once (D29). `src1_scalar=` is the keyword of the C++
    name (src1Scalar, SPEC-2 1.1) for the scalar."""
    if type(dst) is not LocalTensor:
        refuse_template_argument("Compares", dst)
    if src1_scalar is not _MISSING or scalar is _MISSING:
        if scalar is not _MISSING or src1_scalar is _MISSING:
            raise TypeError("Compares() takes the scalar once: scalar (positional or keyword) or src1_scalar (the "
                            "C++ name src1Scalar, SPEC-2 1.1)")
        scalar = src1_scalar
    if cmp_mode is _MISSING:
        raise TypeError("Compares() missing required argument: 'cmp_mode'")
    key, call = _remembered("Compares", args, count, mask, repeat_time, repeat_params, is_set_mask, cmp_mode,
                            CMPMODE, (dst, src0), scalar, UnaryRepeatParams)
    if call is not None:
        core = dst._core
        return _run_remembered(call, core, *_second_operand("Compares", core.spec, core, src0._dtype, None, scalar))
    is_count, count, mask, repeat_time, repeat_params, is_set_mask = _split(
        "Compares", args, count, mask, repeat_time, repeat_params, is_set_mask, dst, _COMPARES_FORMS, 4)
    core = operands("Compares", dst, src0, names=("src0",))
    scalar, scalar_tensor = element_scalar("Compares", core, src0.dtype, scalar)
    return _compare(core, "Compares", dst, src0, None, scalar, cmp_mode, is_count, count, mask, repeat_time,
                    repeat_params, is_set_mask, scalar_tensor, memo_key=key)


CompareScalar = Compares  # the older name of Compares (SPEC-2 9.4 "Compares (= CompareScalar)")


def compare_operator(dst, src0, src1, cmp_mode):
    """`dst[:] = src0 < src1` etc.: the count form over src0.GetSize() elements (a whole number of 256-B blocks,
    D44); refused on 310B, and the sources must be 256-B aligned (SPEC-2 9.4; decisions.md "Compare operator
    alignment")."""
    api = f"operator{_OPERATORS[cmp_mode]}"
    core = operands(api, dst, src0, src1, names=("src0", "src1"))
    if core.spec.name == "atlas-200i-500-a2":
        raise UnsupportedDeviceError(api, "device", core.device, legal="every device but atlas-200i-500-a2",
                                     detail="the whole-tensor comparison operators are not offered on 310B (SPEC-2 9.4)")
    for name, src in (("src0", src0), ("src1", src1)):
        check_align(api, core.spec, name, src.addr, 256)  # SPEC-2 9.4: the operator form's sources, 256-B aligned
    _compare(core, "Compare", dst, src0, src1, None, cmp_mode, True, src0.size, None, None, None, True)


def _scalar_read(scalar_tensor, dtype, name="scalar"):
    """The sanitizer's record of the element read by the tensor-element overload (none for a value)."""
    return [] if scalar_tensor is None else [((name, scalar_tensor.addr, dtype.size), scalar_tensor)]


def _compare(core, api, dst, src0, src1, scalar, cmp_mode, is_count, count, mask, repeat_time, params,
             is_set_mask, scalar_tensor=None, memo_key=None):
    spec = core.spec
    s = src0.dtype
    cmp_mode = as_enum(api, spec, "cmp_mode", cmp_mode, CMPMODE)  # a member before the cache key (issue 12)
    if is_count:
        count = as_int(api, spec, "count", count)  # plain ints before the cache key (issue 12); ranges: validator
        key = (api, spec, dst.dtype, s, None if src1 is None else src1.dtype, cmp_mode, dst.addr, src0.addr,
               None if src1 is None else src1.addr, dst.size, src0.size, None if src1 is None else src1.size, count)
        try:
            mode = _validate_compare_count(*key)
        except TypeError:
            mode = _validate_compare_count.__wrapped__(*key)
        bbuf, b_addr = _second_operand(api, spec, core, s, src1, scalar)
        if count and core.sanitizer is not None:   # D44: whole 256-B blocks, L/8 bit bytes per repeat
            reads = [(("src0", src0.addr, count * s.size), src0)] + _scalar_read(scalar_tensor, s)
            if src1 is not None:
                reads.append((("src1", src1.addr, count * s.size), src1))
            lanes = np.arange(count, dtype=np.int64)
            bits = dst.addr + lanes // 8   # lane i's bit is in byte i // 8 (D44: whole 256-byte blocks compared)
            derived = [Derived(name, t.addr + lanes * s.size, s.size, bits, 1, COMPARED_FIX, dst_bit=lanes % 8)
                       for name, t in (("src0", src0), ("src1", src1)) if t is not None]
            vector_access(core, api, reads=reads, writes=[(("dst", dst.addr, count // 8), dst)], derived=derived)
        if count:
            call = _remembered_call(compare_contiguous,
                                    (s.kind, int(mode), int(spec.compare_ne_nan), dst.addr, src0.addr),
                                    (0 if src1 is None else 1, count), None if src1 is None else b_addr,
                                    None if spec.compare_mask_ignored else count_call_effect(spec, s.lanes_per_repeat),
                                    spec.compare_mask_ignored, core.ub, bbuf)  # D31: A2/A3/310P/910: undefined
            _run_remembered(call, core, bbuf, b_addr)
            if scalar_tensor is None and memo_key is not None:
                remember(_COUNT_CALLS, memo_key, call, _COUNT_CALLS_MAX)
        return
    plan = plan_mask(api, core, s, mask, is_set_mask)
    repeat_time = as_int(api, spec, "repeat_time", repeat_time)
    params = _repeat_params(api, spec, params, UnaryRepeatParams if src1 is None else BinaryRepeatParams, hi=None)
    key = (api, spec, dst.dtype, s, None if src1 is None else src1.dtype, cmp_mode, dst.addr, src0.addr,
           None if src1 is None else src1.addr, dst.size, src0.size, None if src1 is None else src1.size,
           core.bounds, plan, repeat_time, params)
    try:
        mode, repeat, lo, hi, last, p = _validate_compare_high_dim(*key)
    except TypeError:
        mode, repeat, lo, hi, last, p = _validate_compare_high_dim.__wrapped__(*key)
    bbuf, b_addr = _second_operand(api, spec, core, s, src1, scalar)
    # D30: mask 0 (continuous 0 or all-zero words) is a NOP on A2/A3/310P/910 for the new APIs, Compare/Compares too,
    # although D44 has them compute every lane of any other mask there (decisions.md "Compare/Compares with mask 0")
    nop = repeat == 0 or (lo == 0 and hi == 0) or (spec.compare_mask_ignored and plan.counter < 0 and
                                                   not plan.from_register and plan.empty)
    if src1 is None:
        s1blk, s1rep = 0, 0
        s0blk, s0rep = p.srcBlkStride, p.srcRepStride
    else:
        s0blk, s1blk, s0rep, s1rep = p.src0BlkStride, p.src1BlkStride, p.src0RepStride, p.src1RepStride
    if core.sanitizer is not None and not nop:  # before any state changes: a report raised leaves none
        lanes = s.lanes_per_repeat
        operands = [Operand("src0", src0.addr, s.size, lo, hi, repeat, s0blk, s0rep, last)]
        if src1 is not None:
            operands.append(Operand("src1", src1.addr, s.size, lo, hi, repeat, s1blk, s1rep, last))
        reads = [(op, t) for op, t in zip(operands, (src0, src1))] + _scalar_read(scalar_tensor, s)
        # a lane's never-written source elements are followed to its dst bit and reported where that bit is read,
        # as in the count form: A2/A3/310P/910 compare every lane whatever the mask (D44), so a tile's short last
        # repeat reads lanes no instruction wrote, and a Select of the written lanes never uses their bits (port66b)
        derived = []
        for op in operands:
            starts, repeats, lane = operand_elements(op)
            derived.append(Derived(op.name, starts, s.size, dst.addr + repeats * (lanes // 8) + lane // 8, 1,
                                   COMPARED_FIX, dst_bit=lane % 8))
        vector_access(core, api, reads=reads, writes=[(Runs("dst", dst.addr, lanes // 8, lanes // 8, repeat), dst)],
                      own_flags=bit_mask_scratch_flags(spec, plan.bit_mode and src1 is not None),   # not Compares
                      derived=derived)
    # D31: the register undefined on A2/A3/310P/910, the call's own mask left elsewhere but on the 310B
    words = recorded_mask(spec, plan) if spec.high_dim_writes_mask_register and not spec.compare_mask_ignored \
        else None
    call = _remembered_call(None if nop else compare_strided,
                            (s.kind, int(mode), spec.compare_ne_nan, dst.addr, src0.addr),
                            (src1 is None, s0blk, s1blk, s0rep, s1rep, repeat, as_signed64(lo), as_signed64(hi), last),
                            None if src1 is None else b_addr, None if words is None else (*words, False),
                            spec.compare_mask_ignored, core.ub, bbuf)
    _run_remembered(call, core, bbuf, b_addr)
    if scalar_tensor is None and memo_key is not None and is_set_mask is True:
        remember(_COUNT_CALLS, memo_key, call, _COUNT_CALLS_MAX)


def _second_operand(api, spec, core, dtype, src1, scalar, name="scalar"):
    """(array, byte offset) holding src1: the UB, or Compares'/Select's scalar converted once (D29); a refusal names
    the scalar's parameter, `name` (Select's is src1)."""
    if src1 is not None:
        return core.ub, src1.addr
    bits = scalar_bits(api, spec, dtype, scalar, name)
    held = _SCALAR_BYTES.get((dtype.size, bits))
    if held is None:
        held = remember(_SCALAR_BYTES, (dtype.size, bits), np.array([bits], _UINT[dtype.size]).view(np.uint8), 4096)
    return held, 0


# The scalar operands' bytes by (element size, bits): the kernels only read them (a new array a call cost 0.4 us)
_SCALAR_BYTES = {}


def _check_compare_types(api, spec, d, s, s1, mode, count_form):
    offered = spec.compare_dtypes if api == "Compare" else spec.compares_dtypes
    if not offered:
        raise UnsupportedDeviceError(api, "device", spec.name, legal="ascend950, atlas-a3, atlas-a2, "
                                     "atlas-200i-500-a2, atlas-inference-aicore", detail="not offered (SPEC-2 1.9)")
    check_dtype(api, spec, s, offered)
    if s1 is not None and s1 is not s:
        raise UnsupportedDTypeError(api, "src1.dtype", s1.name, legal=f"{s.name} (as src0)", device=spec.name)
    dst_types = ("uint8", "int8") if api == "Compare" else ("uint8",)
    if d.name not in dst_types:
        # port68l3: ops-nn AdaptiveMaxPool3d keeps its mask bits in a LocalTensor<uint16_t>, which the A2 / A3
        # device build takes (a debug-build assertion, the bits written through a uint8_t*)
        raise UnsupportedDTypeError(api, "dst.dtype", d.name, legal=" or ".join(dst_types), device=spec.name,
                                    detail="dst holds one bit per element (SPEC-2 9.4)" + (
                                        f"; a {d.name} tensor of mask bits is passed as dst.ReinterpretCast('uint8') "
                                        "(the same bytes; Select and Not take it as it is)"
                                        if d.size > 1 and d.name.startswith(("uint", "int")) else ""))
    if not count_form and s.name in spec.memory_count_only_dtypes:
        raise UnsupportedDTypeError(api, "dtype", s.name, device=spec.name, legal=", ".join(
            n for n in offered if n not in spec.memory_count_only_dtypes),
            detail="8-bit and 64-bit types only through the count form and the operator (SPEC-2 9.4)")
    mode = as_enum(api, spec, "cmp_mode", mode, CMPMODE)
    if s.name in spec.compare_eq_only_dtypes and mode is not CMPMODE.EQ:
        raise UnsupportedDTypeError(api, "cmp_mode", mode.name, legal="EQ", device=spec.name,
                                    detail=f"{s.name} offers EQ only on this device (SPEC-2 9.4)")
    return mode


@lru_cache(maxsize=4096, typed=True)  # typed: True and 1 are different arguments
def _validate_compare_count(api, spec, d, s, s1, cmp_mode, addr, addr0, addr1, size, size0, size1, count):
    mode = _check_compare_types(api, spec, d, s, s1, cmp_mode, True)
    count = check_range(api, spec, "count", count, 0, 2**32 - 1)
    if count * s.size % 256:
        raise ParameterError(api, "count", count, device=spec.name, legal=f"a multiple of {256 // s.size} "
                             f"(whole 256-B blocks of {s.name})", detail="the hardware leaves the elements of an "
                             "incomplete block uncompared and their bits unwritten (SPEC-2 D44)")
    sources = [("src0", addr0, size0)] + ([("src1", addr1, size1)] if s1 is not None else [])
    for name, a, n in [("dst", addr, size)] + sources:
        check_align(api, spec, name, a, 32)
    for name, a, n in sources:
        check_count_within(api, spec, name, n, count)
    if count // 8 > size * d.size:
        raise OutOfBoundsError(api, "count", count, device=spec.name,
                               legal=f"<= 8 x dst.GetSize() = {8 * size * d.size} (one bit per element, SPEC-2 D44)")
    lanes, repeats = s.lanes_per_repeat, count // s.lanes_per_repeat
    bits = Runs("dst", addr, lanes // 8, lanes // 8, repeats)   # D44: L/8 bytes per repeat
    for name, a, n in sources:
        check_runs_overlap(api, spec, bits, Runs(name, a, 256, 256, repeats), bits.extent(),
                           (a, a + count * s.size) if count else None)
    return mode


@lru_cache(maxsize=4096, typed=True)  # typed: True and 1 are different arguments
def _validate_compare_high_dim(api, spec, d, s, s1, cmp_mode, addr, addr0, addr1, size, size0, size1, bounds, plan,
                               repeat_time, params):
    mode = _check_compare_types(api, spec, d, s, s1, cmp_mode, False)
    if s1 is None:
        p = unary_repeat_params(api, spec, params)
        strides = {"src0": (p.srcBlkStride, p.srcRepStride)}
    else:
        p = _binary_params(api, spec, params)
        strides = {"src0": (p.src0BlkStride, p.src0RepStride), "src1": (p.src1BlkStride, p.src1RepStride)}
    repeat_time = check_range(api, spec, "repeat_time", repeat_time, 0, 255)
    lanes = s.lanes_per_repeat
    if spec.compare_mask_ignored:   # D44: every lane computed, counter mode ignored, repeat_time used
        full_hi, full_lo = continuous_mask_words(lanes)
        lo, hi, repeat, last = full_lo, full_hi, repeat_time, -1
    else:
        refuse_empty_mask_on_950(api, spec, plan)
        lo, hi, repeat, last = plan.lo, plan.hi, plan.repeats(lanes, repeat_time), plan.last_lanes(lanes)
    addrs = {"dst": addr, "src0": addr0, "src1": addr1}
    for name, a in addrs.items():
        if a is not None:
            check_align(api, spec, name, a, 32)
    where = BoundsRule(bounds, spec.name)
    tensors = {"src0": (addr0, size0), "src1": (addr1, size1)}
    bits = Runs("dst", addr, lanes // 8, lanes // 8, repeat if (lo or hi) else 0)   # D44: L/8 bytes per repeat
    bits_ext = check_run_bounds(api, spec, bounds, bits, TensorExtent(addr, size, d))
    for name, (blk, rep) in strides.items():
        op = Operand(name, addrs[name], s.size, lo, hi, repeat, blk, rep, last)
        ext = check_inside_ub(api, spec, op)
        check_tensor_bounds(api, where, op, TensorExtent(tensors[name][0], tensors[name][1], s), ext)
        check_runs_overlap(api, spec, bits, op, bits_ext, ext)
    return mode, repeat, lo, hi, last, p


def _binary_params(api, spec, params):
    if isinstance(params, (tuple, list)) and len(params) == 6:
        params = BinaryRepeatParams(*params)
    if not isinstance(params, BinaryRepeatParams):
        raise ParameterError(api, "repeat_params", params, device=spec.name,
                             legal="aj.BinaryRepeatParams or 6 integers (dstBlk, src0Blk, src1Blk, dstRep, src0Rep, "
                                   "src1Rep)")
    for f in BinaryRepeatParams.__dataclass_fields__:
        check_range(api, spec, f, getattr(params, f), 0, 255)
    if params.dstBlkStride == 0:
        raise ParameterError(api, "dstBlkStride", 0, legal="[1, 255] (0 is undefined behaviour, SPEC D10)",
                             device=spec.name)
    return params


# --- Select -------------------------------------------------------------------------------------------------------
def Select(dst, sel_mask, src0, src1, sel_mode, *args, count=None, mask=None, repeat_time=None, repeat_params=None,
           is_set_mask=None):
    """`Select(dst, sel_mask, src0, src1, sel_mode, count)` or `(..., sel_mode, mask, repeat_time, repeat_params)`:
    selMask bit 1 takes src0, 0 takes src1 (a tensor, or a scalar in mode 1); D59."""
    api = "Select"
    if type(dst) is not LocalTensor:
        refuse_template_argument(api, dst)
    tensor_src1 = type(src1) is LocalTensor and sel_mode is not SELMODE.VSEL_TENSOR_SCALAR_MODE
    memo_key, call = _remembered(api, args, count, mask, repeat_time, repeat_params, is_set_mask, sel_mode, SELMODE,
                                 (dst, sel_mask, src0, src1) if tensor_src1 else (dst, sel_mask, src0),
                                 None if tensor_src1 else src1, BinaryRepeatParams)
    if call is not None:
        core = dst._core
        if tensor_src1:
            return _run_remembered(call, core, core.ub, call.b_addr)
        return _run_remembered(call, core, *_second_operand(api, core.spec, core, dst._dtype, None, src1, "src1"))
    if isinstance(src1, SELMODE):   # Select(dst, src0, src1, VSEL_CMPMASK_SPR, ...): no selMask tensor
        raise ParameterError(api, "sel_mask", "missing (a SELMODE fourth)", legal=_CMPMASK_SELECT,
                             device=known_device(dst))
    if isinstance(sel_mode, BinaryRepeatParams) and not args and not isinstance(src1, LocalTensor):
        # C++ Select<T, VSEL_CMPMASK_SPR>(dst, src0, src1, repeatTime, repeatParams), its mode a template argument
        # (port57e: ops-math NotEqual), had been "the count is missing"
        raise ParameterError(api, "sel_mask", "missing (a repeat time and BinaryRepeatParams fourth and fifth)",
                             legal=_CMPMASK_SELECT, device=known_device(dst))
    is_count, count, mask, repeat_time, repeat_params, is_set_mask = _split(api, args, count, mask, repeat_time,
                                                                             repeat_params, is_set_mask, dst,
                                                                             _SELECT_FORMS, 5)
    scalar_src1 = not isinstance(src1, LocalTensor)
    core = operands(api, dst, sel_mask, src0, names=("sel_mask", "src0"))
    spec = core.spec
    d = dst.dtype
    sel_mode = as_enum(api, spec, "sel_mode", sel_mode, SELMODE)  # a member before the cache key (issue 12)
    scalar_tensor = None
    if not scalar_src1 and sel_mode == SELMODE.VSEL_TENSOR_SCALAR_MODE:   # the 950's src1Local[0] overload
        src1, scalar_tensor = element_scalar(api, core, src0.dtype, src1, "src1")
        scalar_src1 = True
    elif not scalar_src1:
        operands(api, dst, src1, names=("src1",))
    s1 = None if scalar_src1 else src1
    common = (spec, d, sel_mask.dtype, src0.dtype, None if s1 is None else s1.dtype, sel_mode, dst.addr,
              sel_mask.addr, src0.addr, None if s1 is None else s1.addr, dst.size, sel_mask.size, src0.size,
              None if s1 is None else s1.size, core.bounds)
    if is_count:
        count = as_int(api, spec, "count", count)  # plain ints before the cache key (issue 12); ranges: validator
        key = common + (count,)
        try:
            mode = _validate_select_count(*key)
        except TypeError:
            mode = _validate_select_count.__wrapped__(*key)
        if count == 0:
            return
        bbuf, b_addr = _second_operand(api, spec, core, d, s1, src1, "src1")
        if core.sanitizer is not None:
            nsel = _sel_bytes(mode, d.lanes_per_repeat, 0, count)
            reads = [(("sel_mask", sel_mask.addr, nsel), sel_mask), (("src0", src0.addr, count * d.size), src0)]
            reads += _scalar_read(scalar_tensor, d, "src1")
            if s1 is not None:
                reads.append((("src1", src1.addr, count * d.size), src1))
            element = np.arange(count, dtype=np.int64)
            bits = _sel_bits(mode, d.lanes_per_repeat, element, element)
            offsets = element * d.size
            derived = _selected(core, sel_mask.addr, bits, d.size, dst.addr + offsets, src0.addr + offsets,
                                src1.addr + offsets if s1 is not None else
                                None if scalar_tensor is None else np.full(count, scalar_tensor.addr))
            vector_access(core, api, reads=reads, writes=[(("dst", dst.addr, count * d.size), dst)],
                          used_bits={"sel_mask": sel_mask.addr * 8 + bits}, derived=derived)
        call = _remembered_call(select_contiguous, (d.size, dst.addr, sel_mask.addr, src0.addr),
                                (0 if s1 is None else 1, d.lanes_per_repeat if mode == SELMODE.VSEL_CMPMASK_SPR else 0,
                                 count), None if s1 is None else b_addr,
                                count_call_effect(spec, count % d.lanes_per_repeat or d.lanes_per_repeat),
                                False, core.ub, bbuf)
        _run_remembered(call, core, bbuf, b_addr)
        if scalar_tensor is None and memo_key is not None:
            remember(_COUNT_CALLS, memo_key, call, _COUNT_CALLS_MAX)
        return
    plan = plan_mask(api, core, d, mask, is_set_mask)
    repeat_time = as_int(api, spec, "repeat_time", repeat_time)  # plain ints before the cache key (issue 12)
    params = _repeat_params(api, spec, repeat_params, BinaryRepeatParams, hi=None)
    key = common + (plan, repeat_time, params)
    try:
        mode, repeat, last, p = _validate_select_high_dim(*key)
    except TypeError:
        mode, repeat, last, p = _validate_select_high_dim.__wrapped__(*key)
    bbuf, b_addr = _second_operand(api, spec, core, d, s1, src1, "src1")
    nop = repeat == 0 or plan.empty
    if core.sanitizer is not None and not nop:  # before any state changes: a report raised leaves none
        def strided(name, t):
            return Operand(name, t.addr, d.size, plan.lo, plan.hi, repeat, getattr(p, f"{name}BlkStride"),
                           getattr(p, f"{name}RepStride"), last)
        # the elements every operand touches, in issue order (strided, masked, counter mode's last repeat)
        dst_starts, repeats, lane = operand_elements(strided("dst", dst))
        bits = _sel_bits(mode, d.lanes_per_repeat, lane, repeats * d.lanes_per_repeat + lane)
        reads = [(("sel_mask", sel_mask.addr + np.unique(bits // 8)), sel_mask),
                 (strided("src0", src0), src0)] + ([(strided("src1", src1), src1)] if s1 is not None else [])
        reads += _scalar_read(scalar_tensor, d, "src1")
        derived = _selected(core, sel_mask.addr, bits, d.size, dst_starts, lambda: operand_elements(
            strided("src0", src0))[0], lambda: operand_elements(strided("src1", src1))[0] if s1 is not None else
            None if scalar_tensor is None else np.full(dst_starts.size, scalar_tensor.addr))
        vector_access(core, api, reads=reads, writes=[(strided("dst", dst), dst)],
                      own_flags=bit_mask_scratch_flags(spec, plan.bit_mode),
                      used_bits={"sel_mask": sel_mask.addr * 8 + bits}, derived=derived)
    words = recorded_mask(spec, plan) if spec.high_dim_writes_mask_register else None  # SPEC-2 D31: not the 310B
    call = _remembered_call(None if nop else select_strided, (d.size, dst.addr, sel_mask.addr, src0.addr),
                            (s1 is None, mode == SELMODE.VSEL_CMPMASK_SPR, p.dstBlkStride, p.src0BlkStride,
                             p.src1BlkStride, p.dstRepStride, p.src0RepStride, p.src1RepStride, repeat,
                             as_signed64(plan.lo), as_signed64(plan.hi), last),
                            None if s1 is None else b_addr, None if words is None else (*words, False), False,
                            core.ub, bbuf)
    _run_remembered(call, core, bbuf, b_addr)
    if scalar_tensor is None and memo_key is not None and is_set_mask is True:
        remember(_COUNT_CALLS, memo_key, call, _COUNT_CALLS_MAX)


def _sel_bits(mode, lanes, lane, position):
    """The selMask bit each element reads (D59): its lane j in mode 0 (the same L bits every repeat), its position
    (count form: the element; high-dim: repeat * L + j) in modes 1 and 2."""
    return lane % lanes if mode == SELMODE.VSEL_CMPMASK_SPR else position


def _selected(core, sel_addr, bits, size, dst_starts, src0_starts, src1_starts):
    """The sanitizer's Derived records of a Select (init check): each element's lane of the source its selMask bit
    picks (D59: 1 src0, 0 src1 or mode 1's scalar) is followed to its dst lane, a never-written one reported where
    that lane is read; the other source's lane is fetched (a read for the race check) but reaches nothing, so it is
    no uninitialised read (port68d: GatherElementsV2 Selects src0 on every lane of its first slice, src1 never
    written). Elements in issue order, `bits` their selMask bits; the sources' element addresses (or callables
    making them), src1's None for no tensor (mode 1's value). No records where nothing is followed: the init check
    off, or every source byte written (the sources are then checked at the read as any operand's)."""
    sanitizer = core.sanitizer
    if not sanitizer._follows_unwritten():
        return ()
    src0_starts = src0_starts() if callable(src0_starts) else src0_starts
    src1_starts = src1_starts() if callable(src1_starts) else src1_starts
    initialised = sanitizer.initialised
    if all(initialised[int(a.min()):int(a.max()) + size].all() for a in (src0_starts, src1_starts)
           if a is not None and a.size):
        return ()
    ub = core.ub
    picks0 = ((ub[sel_addr + bits // 8] >> (bits % 8).astype(np.uint8)) & 1).astype(np.bool_)
    derived = [Derived("src0", src0_starts[picks0], size, dst_starts[picks0], size, SELECTED_FIX)]
    if src1_starts is not None:
        derived.append(Derived("src1", src1_starts[~picks0], size, dst_starts[~picks0], size, SELECTED_FIX))
    return derived


def _check_select_types(spec, d, m, s0, s1, sel_mode, count_form, scalar_src1):
    api = "Select"
    check_dtype(api, spec, d, spec.select_dtypes)
    for name, t in (("src0", s0), ("src1", s1)):
        if t is not None and t is not d:
            raise UnsupportedDTypeError(api, f"{name}.dtype", t.name, legal=f"{d.name} (as dst)", device=spec.name)
    if m.name not in ("uint8", "uint16", "uint32", "uint64"):
        raise UnsupportedDTypeError(api, "sel_mask.dtype", m.name, legal="uint8, uint16, uint32 or uint64",
                                    device=spec.name, detail=f"a Compare result held as {m.name} is passed as "
                                    f"sel_mask.ReinterpretCast('u{m.name}') (the same bits)"
                                    if m.name.startswith("int") else None)
    if not count_form and d.name in spec.memory_count_only_dtypes:
        raise UnsupportedDTypeError(api, "dtype", d.name, device=spec.name, legal=", ".join(
            n for n in spec.select_dtypes if n not in spec.memory_count_only_dtypes),
            detail="8-bit and 64-bit types only through the count form (SPEC-2 9.5)")
    mode = as_enum(api, spec, "sel_mode", sel_mode, SELMODE)
    if mode not in spec.select_modes:
        raise ParameterError(api, "sel_mode", mode.name, device=spec.name,
                             legal=", ".join(SELMODE(m).name for m in spec.select_modes),
                             detail="this device offers VSEL_CMPMASK_SPR only (SPEC-2 9.5, D59)")
    if scalar_src1 != (mode == SELMODE.VSEL_TENSOR_SCALAR_MODE):
        raise ParameterError(api, "src1", "a scalar" if scalar_src1 else "a LocalTensor", device=spec.name,
                             legal="a scalar in VSEL_TENSOR_SCALAR_MODE, a LocalTensor in the other modes (SPEC-2 9.5)")
    return mode


def _sel_count_bits(mode, lanes, count):
    """The selMask bits a count-form call reads, bits 0.. (D59): mode 0 min(count, L), modes 1/2 one an element."""
    return min(count, lanes) if mode == SELMODE.VSEL_CMPMASK_SPR else count


def _sel_bytes(mode, lanes, repeats, count=None, plan=None):
    """selMask bytes a call reads (D59), up to the last bit an active lane uses: count form, mode 0 min(count, L)
    bits and modes 1/2 one bit per element; high-dim (repeats >= 1 with an active lane), mode 0 bit j of the highest
    active lane j, modes 1/2 bit (repeats - 1)*L + j of the last repeat's highest active lane (in counter mode the
    last repeat has only count % L lanes, SPEC-2 1.4)."""
    if count is not None:
        return -(-_sel_count_bits(mode, lanes, count) // 8)
    per = mask_lane_indices(plan.lo, plan.hi, lanes)
    last = plan.last_lanes(lanes)
    n_last = per.size if last < 0 else min(last, per.size)
    if mode == SELMODE.VSEL_CMPMASK_SPR:
        bits = int(per[-1] if repeats > 1 or n_last == per.size else per[n_last - 1]) + 1
    else:
        bits = (repeats - 1) * lanes + int(per[n_last - 1]) + 1
    return -(-bits // 8)


@lru_cache(maxsize=4096, typed=True)  # typed: True and 1 are different arguments
def _validate_select_count(spec, d, m, s0, s1, sel_mode, addr, maddr, addr0, addr1, size, msize, size0, size1, bounds,
                           count):
    api = "Select"
    mode = _check_select_types(spec, d, m, s0, s1, sel_mode, True, s1 is None)
    count = check_range(api, spec, "count", count, 0, 2**32 - 1)
    tensors = [("dst", addr, size), ("src0", addr0, size0)] + ([("src1", addr1, size1)] if s1 is not None else [])
    for name, a, n in tensors + [("sel_mask", maddr, msize)]:
        check_align(api, spec, name, a, 32)
    for name, a, n in tensors:
        check_count_within(api, spec, name, n, count)
    lanes = d.lanes_per_repeat
    nsel = _sel_bytes(mode, lanes, 0, count)
    if nsel > msize * m.size:
        raise OutOfBoundsError(api, "sel_mask", f"{nsel} bytes", device=spec.name,
                               legal=f"<= {msize * m.size} bytes (sel_mask.GetSize() x {m.size}; D59)")
    repeats = -(-count // lanes)
    nb = count * d.size
    d_per = Runs("dst", addr, 256, 256, repeats).bytes_per_repeat()
    if nb % 256:
        d_per[-1] = d_per[-1][:nb % 256]
    for name, a, n in tensors[1:]:
        if a != addr and a < addr + nb and addr < a + nb:
            check_repeat_overlap(api, spec, "dst", name, d_per, [p - addr + a for p in d_per])
    if maddr < addr + nb and addr < maddr + nsel:
        check_repeat_overlap(api, spec, "dst", "sel_mask", d_per, _sel_runs(mode, maddr, lanes, repeats, nsel))
    return mode


def _sel_runs(mode, maddr, lanes, repeats, nsel):
    if mode == SELMODE.VSEL_CMPMASK_SPR:
        return [np.arange(maddr, maddr + min(nsel, lanes // 8), dtype=np.int64)] * repeats
    runs = Runs("sel_mask", maddr, lanes // 8, lanes // 8, repeats).bytes_per_repeat()
    return [r[r < maddr + nsel] for r in runs]


@lru_cache(maxsize=4096, typed=True)  # typed: True and 1 are different arguments
def _validate_select_high_dim(spec, d, m, s0, s1, sel_mode, addr, maddr, addr0, addr1, size, msize, size0, size1,
                              bounds, plan, repeat_time, params):
    api = "Select"
    mode = _check_select_types(spec, d, m, s0, s1, sel_mode, False, s1 is None)
    p = _binary_params(api, spec, params)
    repeat_time = check_range(api, spec, "repeat_time", repeat_time, 0, 255)
    refuse_empty_mask_on_950(api, spec, plan)
    addrs = {"dst": addr, "src0": addr0, "src1": addr1, "sel_mask": maddr}
    for name, a in addrs.items():
        if a is not None:
            check_align(api, spec, name, a, 32)
    lanes = d.lanes_per_repeat
    repeat = plan.repeats(lanes, repeat_time)
    last = plan.last_lanes(lanes)
    names = ["dst", "src0"] + (["src1"] if s1 is not None else [])
    sizes = {"dst": size, "src0": size0, "src1": size1}
    ops = {n: Operand(n, addrs[n], d.size, plan.lo, plan.hi, repeat, getattr(p, f"{n}BlkStride"),
                      getattr(p, f"{n}RepStride"), last) for n in names}
    where = BoundsRule(bounds, spec.name)
    exts = {}
    for n in names:
        exts[n] = check_inside_ub(api, spec, ops[n])
        check_tensor_bounds(api, where, ops[n], TensorExtent(addrs[n], sizes[n], d), exts[n])
    for n in names[1:]:
        check_overlap(api, spec, ops["dst"], ops[n], exts["dst"], exts[n])
    if repeat and not plan.empty:
        nsel = _sel_bytes(mode, lanes, repeat, plan=plan)
        check_run_bounds(api, spec, bounds, Runs("sel_mask", maddr, nsel, 0, 1), TensorExtent(maddr, msize, m))
        e = exts["dst"]
        if e is not None and maddr < e[1] and e[0] < maddr + nsel:
            check_repeat_overlap(api, spec, "dst", "sel_mask", ops["dst"].bytes_per_repeat(),
                                 _sel_runs(mode, maddr, lanes, repeat, nsel))
    return mode, repeat, last, p
