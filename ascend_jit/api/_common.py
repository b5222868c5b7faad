"""Validation shared by every instruction: operands, masks (SPEC 2), footprints (SPEC 1.2), alignment and overlap
(SPEC 8.2). Nothing here writes the UB; a call that passes these checks cannot touch a byte outside the UB.
"""
import enum
import operator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import dtypes as dt
from ..core import continuous_mask_words, set_mask_words
from ..errors import (AlignmentError, AscendJitError, OutOfBoundsError, OverlapError, ParameterError, StateError,
                      UnsupportedDeviceError, UnsupportedDTypeError)
from ..tensor import LocalTensor, known_device, refuse_operand


class _MaskPlaceholder:
    def __repr__(self):
        return "MASK_PLACEHOLDER"


MASK_PLACEHOLDER = _MaskPlaceholder()


def as_signed64(word):
    """uint64 mask word -> the int64 with the same bits (one kernel signature for every mask)."""
    return word - (1 << 64) if word >= (1 << 63) else word


def operands(api, dst, *srcs, names=None):
    """The core of the operands, after checking they are live LocalTensors of one core (per call: cheap).
    `names`: the sources' parameter names for error messages."""
    if type(dst) is not LocalTensor:
        refuse_operand(api, "dst", dst, "a LocalTensor", srcs, _not_a_tensor_hint(dst, api))
    core = dst._core  # the read-only slot behind .core (this runs on every call of every instruction)
    if dst._lease is not None:
        dst.check_alive(api, "dst")
    for i, t in enumerate(srcs):
        if type(t) is not LocalTensor or t._core is not core or t._lease is not None and not t._lease.alive:
            name = names[i] if names else (f"src{i}" if len(srcs) > 2 or api == "Add" else ("src", "sharedTmpBuffer")[i])
            if type(t) is LocalTensor and t._core is core:
                t.check_alive(api, name)
            if type(t) is LocalTensor:
                raise ParameterError(api, name, t, legal="a LocalTensor of the same Core as dst", device=core.device,
                                     detail="belongs to another core")
            raise ParameterError(api, name, type(t).__name__, legal="a LocalTensor of the same Core as dst",
                                 device=core.device, detail=_not_a_tensor_hint(t, api))
    if not core.spec.supported:
        core.spec.require_supported(api)
    return core


_OPERATOR_MODES = {"operator<": "LT", "operator>": "GT", "operator<=": "LE", "operator>=": "GE", "operator==": "EQ",
                   "operator!=": "NE"}


def _not_a_tensor_hint(value, api):
    """Why a value is not a tensor, in the words of the usual porting mistake."""
    if value is None:
        return "missing"
    if isinstance(value, (np.ndarray, list, tuple)):
        return "is host data: copy it into a LocalTensor first (t[:] = array)"
    if isinstance(value, (int, float, np.generic)):
        mode = _OPERATOR_MODES.get(api)
        if mode is not None:
            # SPEC-2 9.4: the operator form is Compare's (two tensors); a scalar is Compares' count form (audit63)
            return (f"is a scalar: the operator form compares two tensors; compare with a scalar by "
                    f"aj.Compares(dst, src0, scalar, aj.CMPMODE.{mode}, count)")
        return "is a scalar: pass the LocalTensor itself (t[i] is the sub-tensor at offset i)"
    if _names_a_dtype(value):
        return (f"is the dtype {value!r}: C++'s template argument <T> is not written here, the tensors carry it "
                f"(`{api}<float>(dst, ...)` is aj.{api}(dst, ...))")
    from ..tensor import _BinaryExpr, _CompareExpr
    if isinstance(value, (_BinaryExpr, _CompareExpr)):
        # a literal port of C++ `c = a + b` rebinds the Python name to the unevaluated expression (SPEC-2 1.1)
        return "is an unassigned tensor expression: C++ `c = a + b;` is `c[:] = a + b` here"
    return None


def refuse_advanced_reduce_form(api, dst, src, shared_tmp_buffer, args, keywords):
    """The devkit's advanced reduction `ReduceSum<T, Pattern::Reduce::AR>(dst, src, [sharedTmpBuffer,] srcShape,
    srcInnerPad)` (高阶API 归约, include/adv_api/reduce/reduce.h; ReduceMax / ReduceMin alike) ported under the basic
    instruction's name: a shape (a list, tuple or 1-D integer array), then a bool, where the basic forms take a tensor
    or a count. Refused naming srcShape and what to write instead, before the basic forms' checks name the list as
    host data or count its arguments (port56b: two ops-nn arch35 kernels). With a form's keyword given (`keywords`:
    count, mask, repeat_time, ...) the call is a basic one: `ReduceMax(dst, src, tmp, [hi, lo], True, repeat_time=1,
    src_rep_stride=8)` is a high-dim call with calIndex. The shape test comes first: it is all a basic call pays."""
    if len(args) == 1:
        shape, inner_pad = shared_tmp_buffer, args[0]
    elif len(args) == 2:
        shape, inner_pad = args
    else:
        return
    if not isinstance(inner_pad, (bool, np.bool_)) or not _is_shape(shape) \
            or any(value is not None for value in keywords):
        return
    raise ParameterError(api, "srcShape", [int(n) for n in shape], device=known_device(dst, src),
                         legal=f"a basic {api} form ({'SPEC.md 4' if api == 'ReduceSum' else 'SPEC-2 8.3'})",
                         detail=f"is the advanced {api}<T, Pattern::Reduce::...>(dst, src, [sharedTmpBuffer,] "
                                "srcShape, srcInnerPad) (高阶API 归约), which is not offered (an advanced API, "
                                f"outside SPEC-2's basic instructions): reduce each row with the count form "
                                f"{api}(dst, src, tmp, count), or with a Reg VF on the 950; for the devkit's own "
                                "order bit for bit, port its basic instructions from impl/adv_api/detail/reduce/ "
                                f"({api.lower().replace('reduce', 'reduce_')}/ and reduce_common_*_impl.h: on the "
                                "950 the *_3510_impl.h files, Reg VFs of ReduceDataBlock, Reduce and folds)")


def _is_shape(value):
    """A C++ `uint32_t srcShape[]` as a port writes it: a non-empty list or tuple of ints, or a 1-D integer array."""
    if isinstance(value, np.ndarray):
        return value.ndim == 1 and value.size > 0 and value.dtype.kind in "iu"
    return isinstance(value, (list, tuple)) and len(value) > 0 and all(
        isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)) for n in value)


def refuse_template_argument(api, value):
    """C++'s template argument written as the first argument (`Cast<half, float>(dst, ...)` ported as
    aj.Cast("half", dst, ...)): refused naming it, before the form's checks read every argument one place off."""
    if _names_a_dtype(value):
        raise ParameterError(api, "dst", type(value).__name__, legal="a LocalTensor or GlobalTensor",
                             device=known_device(), detail=_not_a_tensor_hint(value, api))


def _names_a_dtype(value):
    if not isinstance(value, (str, type, np.dtype, dt.DType)):
        return False
    try:
        dt.resolve(value, "operand")
    except AscendJitError:
        return False
    return True


def remember(memo, key, value, limit):
    """Keep `value` under `key` in one of the memos of validated calls, plans or objects, emptied when it holds
    `limit` entries (a bound on memory for programs that make ever new call shapes; refusals are never stored)."""
    if len(memo) >= limit:
        memo.clear()
    memo[key] = value
    return value


def memo_key(head, tensors):
    """The key of a call a memo of validated call shapes may serve (issue 21): `head` (the call's own arguments,
    exactly typed) and each operand's dtype, address and size, when every operand is a plain LocalTensor of one core
    without a sanitizer, none freed; else None (the call then takes its full path, which validates and reports as
    usual)."""
    first = tensors[0]
    if type(first) is not LocalTensor:
        return None
    core = first._core
    if core.sanitizer is not None:
        return None
    key = [core.spec, core.bounds, *head]
    for t in tensors:
        if type(t) is not LocalTensor or t._core is not core or (t._lease is not None and not t._lease.alive):
            return None
        key += (t._dtype, t._addr, t._size)
    return tuple(key)


def memo_mask_words(mask):
    """A bit-mode mask (a list or tuple of int words) as a memo key's tuple, else None (not remembered)."""
    if type(mask) not in (list, tuple) or any(type(w) is not int for w in mask):
        return None
    return tuple(mask)


def high_dim_memo_key(head, tensors, mask, repeat_time, params, cls):
    """memo_key of a high-dim call given as (..., mask, repeat_time, repeat_params) positionally: the mask an int or
    a tuple/list of int words, repeat_time an int, params a `cls` object or its brace list of int fields (the values
    in the key, never the caller's mutable struct); the core's counter mode with them (the mask plan reads it). None
    for anything else, which takes the full path."""
    if type(repeat_time) is not int or type(tensors[0]) is not LocalTensor:
        return None
    if type(mask) is not int:
        mask = memo_mask_words(mask)
        if mask is None:
            return None
    values = _params_values(params, cls)[1]
    if values is None:
        return None
    for v in values:
        if type(v) is not int:
            return None
    return memo_key((*head, tensors[0]._core.counter_mode, mask, repeat_time, values), tensors)


def split_forms(api, args, kw_count, high_kw, n_before, device, forms):
    """(form, values) from a call's positional tail and its form keywords (SPEC-2 1.1: every parameter is also a
    keyword): one value or `count=` -> ("count", (count,)); the high-dim values (high_kw: their names and keyword
    values in the C++ order, e.g. mask, repeat_time, repeat_params) -> ("high", values), each given positionally (in
    that order) or by keyword, never both, and never mixed with `count=`. Anything else is a ParameterError naming
    the forms (`forms`); n_before is the number of positional arguments before the tail."""
    kw_values = tuple(high_kw.values())
    if kw_count is None and kw_values.count(None) == len(kw_values):  # the common call: positional values only
        if len(args) == 1:
            return "count", (args[0],)
        if len(args) == len(kw_values) and all(v is not None for v in args):  # (`None in args` would compare)
            return "high", tuple(args)
    names = tuple(high_kw)
    given_high = any(v is not None for v in kw_values)
    if not given_high and (kw_count is not None and not args or kw_count is None and len(args) == 1):
        return "count", (kw_count if kw_count is not None else args[0],)
    if kw_count is None and 0 < len(args) + given_high and len(args) <= len(names):
        slots = list(args) + [None] * (len(names) - len(args))
        twice = [name for i, (name, v) in enumerate(zip(names, kw_values)) if v is not None and i < len(args)]
        for i, v in enumerate(kw_values):
            if v is not None and i >= len(args):
                slots[i] = v
        missing = [name for name, v in zip(names, slots) if v is None]
        if not twice and not missing:
            return "high", tuple(slots)
        detail = (f"{', '.join(twice)} given both positionally and by keyword" if twice else
                  f"the high-dim form lacks {', '.join(missing)}")
    elif kw_count is not None:
        detail = "count= together with the high-dim form's values"
    else:
        detail = ("the count (or " + ", ".join(names) + ") is missing" if not args else
                  f"{len(args)} values after the operands fit neither form")
    raise ParameterError(api, "arguments", len(args) + n_before, legal=forms, detail=detail, device=device)


def high_dim_is_set_mask(api, is_count_form, is_set_mask):
    """SPEC-2 D32: the count prototypes of Cast, Compare, Select, Gather have no isSetMask template argument, so
    passing it to a count form is a TypeError; high-dim forms default to True. (`is_set_mask` is None when absent.)"""
    if is_count_form:
        if is_set_mask is not None:
            raise TypeError(f"{api}() count form got an unexpected keyword argument 'is_set_mask' (SPEC-2 D32)")
        return True
    return True if is_set_mask is None else is_set_mask


def check_dtype(api, spec, dtype, allowed, detail=None):
    if dtype.name not in allowed:
        raise UnsupportedDTypeError(api, "dtype", dtype.name, legal=", ".join(allowed), device=spec.name,
                                    detail=detail)


def check_reduction_dtype(api, spec, dtype, allowed):
    """check_dtype for a reduction, whose float refusal on the 910 says why (DeviceSpec.reduce_half_only_reason)."""
    check_dtype(api, spec, dtype, allowed, spec.reduce_half_only_reason if dtype.name == "float" else None)


def check_offered(api, spec, dtype, dtypes, page):
    """The device and the dtype on a devkit page's table `dtypes` (device name -> dtype names), for the instructions
    SPEC-2 leaves to their pages (ArithProgression, CreateVecIndex, Transpose): the device first, then the dtype."""
    offered = dtypes.get(spec.name)
    if not offered:
        raise UnsupportedDeviceError(api, "device", spec.name, legal=", ".join(dtypes),
                                     detail=f"the device does not offer it ({page}, 产品支持情况)")
    if dtype.name not in offered:
        raise UnsupportedDTypeError(api, "dtype", dtype.name, legal=", ".join(offered), device=spec.name)


def check_same_dtype(api, spec, ref, **tensors):
    for name, t in tensors.items():
        if t.dtype is not ref.dtype:
            raise UnsupportedDTypeError(api, f"{name}.dtype", t.dtype.name, legal=f"{ref.dtype.name} (as dst)",
                                        device=spec.name)


def check_align(api, spec, name, addr, align):
    if addr % align:
        # the general rule, with what a port usually did (port54a: ops-nn MseLossV2's Duplicate of c[1])
        detail = None
        if align == 32:
            one = "written by SetValue" if name.startswith("dst") else "read by GetValue"
            detail = ("is not on a 32-byte DataBlock (SPEC 8.2's rule for UB operands): a sub-tensor t[k] of an "
                      f"aligned tensor is aligned when k * sizeof(T) is a multiple of 32, and one element can be {one}")
        raise AlignmentError(api, f"{name} address", addr, legal=f"a multiple of {align} bytes", device=spec.name,
                             detail=detail)


def check_count_within(api, spec, name, size, count, extra=""):
    """A count form's count against one operand tensor's GetSize(): a count is the caller's statement of how many
    elements the tensors hold, so a larger one is refused on every core, bounds="ub" included (docs/decisions.md
    "Count forms"), and the refusal says so, unlike the strided footprints' ones, which bounds="ub" lifts."""
    if count > size:
        raise OutOfBoundsError(api, "count", count, legal=f"<= {name}.GetSize() = {size}{extra}", device=spec.name,
                               detail=_COUNT_PAST_TENSOR)


_COUNT_PAST_TENSOR = ('is past the tensor, refused on every core (bounds="ub" included): size the tensor\'s buffer '
                      "(InitBuffer, local_tensor) for the count the kernel computes over")


INT32_MAX = 2**31 - 1
UINT64_MAX = (1 << 64) - 1


def as_int(api, spec, name, value, lo=None, hi=None, of=None):
    """An integer parameter as a Python int, checked once at the API boundary, before any arithmetic or memoisation
    (decisions.md "Integer parameters"): Python ints and numpy integers of every width are accepted and give the same
    result; bool (Python or numpy), enum members (an IntEnum's too: a member names a choice, not a number), floats
    (even integral ones), strings and None are refused, as is any value outside [lo, hi] (None: unbounded). Plain
    ints make numpy's fixed-width wrap-around and equal-value cache keys of different types (2 vs 2.0) impossible
    downstream. `of`: what the parameter belongs to, for the refusal ("for a TQue(VECIN, depth 2)")."""
    if type(value) is not int:
        if isinstance(value, (bool, np.bool_, enum.Enum)) or not isinstance(value, (int, np.integer)):
            raise ParameterError(api, name, value, legal=_int_legal(lo, hi), device=getattr(spec, "name", spec),
                                 detail=f"a {type(value).__name__} is not an integer" + (f", {of}" if of else ""))
        value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ParameterError(api, name, value, legal=_int_legal(lo, hi), device=getattr(spec, "name", spec),
                             detail=of)
    return value


def as_uint16_field(api, spec, name, value, lo=0):
    """A uint16_t struct field (DataCopyParams' blockLen and strides): as_int in [lo, 65535], and a larger integer
    refused with the value C++'s narrowing would have stored without a word (a port's byte count of 94976 is 29440
    there)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, enum.Enum)) and int(value) > 65535:
        raise ParameterError(api, name, int(value), legal=_int_legal(lo, 65535), device=getattr(spec, "name", spec),
                             detail=f"a uint16_t field: C++ would store {int(value) & 0xFFFF}")
    return as_int(api, spec, name, value, lo, 65535)


def _int_legal(lo, hi):
    if lo is None and hi is None:
        return "an integer"
    if hi is None:
        return f"an integer >= {lo}"
    if lo is None:
        return f"an integer <= {hi}"
    return f"an integer in [{lo}, {hi}]"


def as_flag(api, spec, name, value):
    """A boolean template argument (is_set_mask, ...): True/False (numpy bools too); anything else is refused rather
    than read for its truth value."""
    if not isinstance(value, (bool, np.bool_)):
        raise ParameterError(api, name, value, legal="True or False", device=getattr(spec, "name", spec))
    return bool(value)


def as_enum(api, spec, name, value, enum_cls, members=None):
    """An enum argument: a member of `enum_cls` or one of its integer values (decisions.md "Integer parameters"; not
    bool, not a member of another enum, e.g. the Memory-API ReduceType where the Reg one is expected), and one of
    `members` when the parameter takes only some (None: all); anything else is a ParameterError naming the legal
    members with their values. `spec` is a DeviceSpec, a device name or None."""
    if type(value) is enum_cls and (members is None or value in members):
        return value  # the common call, a member itself: no tuple of the enum's members built (0.1 against 1.2 us)
    member = value if isinstance(value, enum_cls) else None
    if member is None and isinstance(value, (int, np.integer)) and \
            not isinstance(value, (bool, np.bool_, enum.Enum)):
        try:
            member = enum_cls(int(value))
        except ValueError:
            pass
    legal = tuple(enum_cls) if members is None else tuple(members)
    if member is None or member not in legal:
        raise ParameterError(api, name, value, device=getattr(spec, "name", spec), legal=enum_legal(enum_cls, legal))
    return member


def enum_legal(enum_cls, members=None):
    """as_enum's legal range: the members with their values (compiled VFs' enum checks name the same text,
    jit/reg.py EnumRule)."""
    return ", ".join(f"{enum_cls.__name__}.{m.name} ({m.value})" for m in (enum_cls if members is None else members))


def check_range(api, spec, name, value, lo, hi):
    return as_int(api, spec, name, value, lo, hi)


@lru_cache(maxsize=None)
def _fields_and_getter(cls):
    """A repeat-parameter dataclass's field names and a getter of their values as a tuple (one C call)."""
    fields = tuple(cls.__dataclass_fields__)
    getter = operator.attrgetter(*fields)
    return fields, (getter if len(fields) > 1 else lambda params: (getter(params),))


def _params_values(params, cls):
    """(cls's field names, params' field values as a tuple), params a cls object or its brace list (a tuple or list
    of the fields in order); the values None for anything else."""
    fields, values_of = _fields_and_getter(cls)
    if isinstance(params, (tuple, list)) and len(params) == len(fields):
        return fields, tuple(params)
    return fields, (values_of(params) if isinstance(params, cls) else None)


def repeat_params(api, spec, params, cls, hi=255):
    """A repeat-parameter dataclass (or the seed's brace list as a tuple/list of its fields, in order) with every
    field a Python int in [0, hi] (SPEC 1.3: uint8 fields; hi=None: >= 0, the validator checks each field's range),
    so equal values of other types never reach a cache."""
    fields, values = _params_values(params, cls)
    if values is None:
        raise ParameterError(api, "repeat_params", params, device=getattr(spec, "name", spec),
                             legal=f"aj.{cls.__name__} or {len(fields)} integers ({', '.join(fields)})")
    for v in values:
        if type(v) is not int or v < 0 or (hi is not None and v > hi):
            values = tuple(as_int(api, spec, f, v, 0, hi) for f, v in zip(fields, values))  # refuses, or plain ints
            break
    return canonical_params(values, cls)


_PARAMS = {}   # canonical_params' objects by (class, field values)


def canonical_params(params, cls):
    """The one object of `cls` holding params' field values (a `cls` object or its brace-list tuple) when they are
    all plain non-negative ints, else params itself (for a validator to refuse in its own order). Never the
    caller's object: the parameter structs are mutable (C++ sets fields of a default-made struct), and validation
    caches and memos keyed on the caller's object had kept its old checks and strides after the caller changed a
    field (audit38m: a change keeping the hash passed unvalidated; the sanitizer saw the first call's strides)."""
    values = _params_values(params, cls)[1]
    if values is None:
        return params
    for v in values:
        if type(v) is not int or v < 0:
            return params
    key = (cls, values)
    made = _PARAMS.get(key)
    return made if made is not None else remember(_PARAMS, key, cls(*values), _MAX_PLANS)


@dataclass(frozen=True)
class MaskPlan:
    """Per-repeat lane mask (lo, hi words) and, in counter mode, the element count (SPEC 2.5-2.6)."""
    lo: int
    hi: int
    counter: int = -1          # >= 0: counter mode with this element count
    from_register: bool = False
    bit_mode: bool = False
    register: tuple = None     # a continuous mask's (high, low) register words, unclamped (SPEC 1.5); None otherwise

    @property
    def empty(self):
        return self.counter == 0 if self.counter >= 0 else (self.lo == 0 and self.hi == 0)

    def repeats(self, lanes, repeat_time):
        return -(-self.counter // lanes) if self.counter >= 0 else repeat_time

    def last_lanes(self, lanes):
        """Lanes of the last repeat in counter mode (-1: every repeat uses the mask)."""
        if self.counter < 0:
            return -1
        rem = self.counter % lanes
        return rem if rem else lanes


_PLANS = {}   # plan_mask's memo: (dtype, mask as an int or a tuple of int words, counter mode, device) -> MaskPlan
_MAX_PLANS = 4096


def plan_mask(api, core, dtype, mask, is_set_mask):
    """Resolve an API's mask argument (or the mask register when is_set_mask is False) to a MaskPlan of Python ints.
    Counter-mode counts are bounded by the UB (decisions.md "Counter-mode counts"), so no footprint proof or kernel
    loop ever runs more repeats than the UB holds. With is_set_mask True and a mask of plain ints (an int, or a list
    or tuple of int words) the plan depends only on the dtype, the mask, the counter mode and the device (its UB
    bounds a count), so a plan made is reused (issue 21: kernels pass the same masks again and again; 0.2 against
    1.9 us); a refused mask is never stored (it raises every time) and any other mask is planned every time."""
    if is_set_mask is True:
        if type(mask) is int:
            key = (dtype, mask, core.counter_mode, core.spec)
        elif type(mask) in (list, tuple) and all(type(w) is int for w in mask):
            key = (dtype, tuple(mask), core.counter_mode, core.spec)
        else:
            return _plan_mask(api, core, dtype, mask, is_set_mask)
        plan = _PLANS.get(key)
        return plan if plan is not None else remember(_PLANS, key, _plan_mask(api, core, dtype, mask, is_set_mask),
                                                      _MAX_PLANS)
    return _plan_mask(api, core, dtype, mask, is_set_mask)


def _placeholder_value(mask):
    """Whether `mask` is the value of C++'s MASK_PLACEHOLDER (an integer 0) or MASK_PLACEHOLDER_LIST ({0, 0})."""
    if isinstance(mask, (list, tuple)):
        return len(mask) == 2 and all(_placeholder_value(word) for word in mask)
    return isinstance(mask, (int, np.integer)) and not isinstance(mask, (bool, np.bool_)) and mask == 0


def _plan_mask(api, core, dtype, mask, is_set_mask):
    lanes = dtype.lanes_per_repeat
    full_hi, full_lo = continuous_mask_words(lanes)
    if not as_flag(api, core.spec, "is_set_mask", is_set_mask):
        # C++'s MASK_PLACEHOLDER is `constexpr uint64_t MASK_PLACEHOLDER = 0` and MASK_PLACEHOLDER_LIST `{0, 0}`
        # (DK impl/basic_api/kernel_reg.h): a kernel passing 0 passes it (port65b: ops-nn's matmul helpers'
        # `Sub<float, false>(..., 0UL, ...)`)
        if mask is not MASK_PLACEHOLDER and not _placeholder_value(mask):
            raise ParameterError(api, "mask", mask, device=core.device,
                                 legal="aj.MASK_PLACEHOLDER (or 0, its C++ value) when is_set_mask=False (SPEC 2.5)",
                                 detail="the device ignores the argument then (DK 掩码.md: 不生效), so a kernel's "
                                 "other value there (ops-nn's reduce_common.h passes 64) ports as aj.MASK_PLACEHOLDER")
        require_defined_mask(api, core)
        if core.counter_mode:
            return MaskPlan(full_lo, full_hi, counter=register_count(api, core, dtype), from_register=True)
        return _bits_plan(dtype, core.mask_low, core.mask_high if dtype.size == 2 else 0, from_register=True)
    if mask is MASK_PLACEHOLDER:
        raise ParameterError(api, "mask", mask, legal="a real mask when is_set_mask=True", device=core.device)
    if isinstance(mask, (list, tuple, np.ndarray)):
        # counter mode: the count is mask[0] (SPEC-2 1.4) and mask[1] is ignored for every width; SPEC 2.1's
        # layout rules (mask[1] = 0 and 32-bit words for 32- and 64-bit types) are the normal mode's bit masks
        words = mask_words(api, core, dtype, mask, layout=not core.counter_mode)
        if core.counter_mode:
            count = counter_count(api, core, dtype, "mask[0] (counter-mode count)", words[0])
            return MaskPlan(full_lo, full_hi, counter=count, bit_mode=True)
        return _bits_plan(dtype, words[0], words[1] if len(words) == 2 else 0, bit_mode=True)
    if isinstance(mask, (bool, np.bool_)) or not isinstance(mask, (int, np.integer)):
        raise ParameterError(api, "mask", mask, legal="an int (continuous), a list of words (bit mode) or "
                             "MASK_PLACEHOLDER", device=core.device)
    mask = as_int(api, core.spec, "mask", mask, 0, UINT64_MAX)  # D14: negative masks are refused
    if core.counter_mode:
        return MaskPlan(full_lo, full_hi, counter=counter_count(api, core, dtype, "mask (counter-mode count)", mask))
    hi, lo = continuous_mask_words(min(mask, lanes))  # D15: clamp to the per-repeat maximum
    return MaskPlan(lo, hi, register=set_mask_words(mask, lanes))


def mask_words(api, core, dtype, mask, layout=True):
    """A bit-mode mask (list, tuple or 1-d array of 1 or 2 words, SPEC 2.1) as a tuple of Python ints; without
    `layout`, any two 64-bit words (a counter-mode count and the word it ignores)."""
    max_words = 2 if dtype.size <= 2 or not layout else 1
    legal = "a list of 1 or 2 integer 64-bit words" + ("" if max_words == 2 else
                                                        f" (mask[1] = 0 for {dtype.size * 8}-bit types, SPEC 2.1)")
    if isinstance(mask, np.ndarray) and mask.ndim != 1:
        raise ParameterError(api, "mask", mask, legal=f"{legal} (a 1-d array, not {mask.ndim}-d)", device=core.device)
    if not 1 <= len(mask) <= 2:
        raise ParameterError(api, "mask", mask, legal=legal, device=core.device)
    word_max = UINT64_MAX if dtype.size < 8 or not layout else (1 << 32) - 1
    words = tuple(as_int(api, core.spec, f"mask[{i}]", w, 0, word_max) for i, w in enumerate(mask))
    if len(words) == 2 and max_words == 1 and words[1] != 0:
        raise ParameterError(api, "mask[1]", words[1], legal=f"0 for {dtype.size * 8}-bit types (SPEC 2.1)",
                             device=core.device)
    return words if max_words == 2 else words[:1]


def counter_count(api, core, dtype, name, count):
    """A counter-mode element count (SPEC 2.6): at most the UB's elements (decisions.md "Counter-mode counts")."""
    return as_int(api, core.spec, name, count, 0, core.spec.ub_bytes // dtype.size)


def require_defined_mask(api, core):
    """Every call that reads the mask register (is_set_mask=False) refuses one a call left undefined (D22, SPEC-2
    D31)."""
    if not core.mask_defined:
        raise StateError(api, "mask register", "undefined", device=core.device,
                         legal="a register set by SetVectorMask, ResetMask or a call that defines it",
                         detail="the register holds implementation state after a non-950 ReduceSum, ReduceMax or "
                                "ReduceMin, a GatherMask, or a Compare whose mask this device ignores (D22, SPEC-2 "
                                "D31); call SetVectorMask or ResetMask first")


def register_count(api, core, dtype):
    """The element count of a counter-mode register read with is_set_mask=False: its whole low word (SPEC 2.6),
    bounded like a counter-mode mask argument; high-dim forms and D32's count forms read it alike."""
    return counter_count(api, core, dtype, "mask register (counter-mode count)", core.mask_low)


def _bits_plan(dtype, lo, hi, **kw):
    """Keep only bits of lanes that exist (32-bit: 64 lanes, 64-bit: 32 lanes)."""
    lanes = dtype.lanes_per_repeat
    if lanes < 64:
        lo &= (1 << lanes) - 1
    if lanes <= 64:
        hi = 0
    return MaskPlan(lo, hi, **kw)


def refuse_empty_mask_on_950(api, spec, plan):
    if plan.empty and plan.counter < 0 and spec.mask_zero_refused:
        raise ParameterError(api, "mask", 0, legal="a mask with at least one lane (D14: mask 0 is refused on the 950)",
                             device=spec.name)


def recorded_mask(spec, plan):
    """D22: the (high, low) words a high-dim call with is_set_mask leaves in the mask register, or None when it
    leaves the register alone (a mask read from the register; 950 continuous-mask calls, audit 3). A pure function
    of the device and the plan, so memoised call plans compute it once."""
    if plan.from_register or (spec.mask_zero_refused and not plan.bit_mode):
        return None
    if plan.counter >= 0:
        return 0, plan.counter
    return plan.register or (plan.hi, plan.lo)  # SPEC 1.5: SetMask(len) gets the unclamped length


def record_mask(core, plan, dtype, mask):
    """D22: a high-dim call with is_set_mask leaves its own mask in the register (950: bit-mask calls only)."""
    words = recorded_mask(core.spec, plan)
    if words is not None:
        core.mask_high, core.mask_low = words
        core.mask_defined = True


# --- footprints (SPEC 1.2) -------------------------------------------------------------------------------------
def lane_offsets(size, blk_stride, lanes):
    """Byte offset of each lane index in `lanes` inside one repeat (numpy vectorised SPEC 1.2)."""
    lanes = np.asarray(lanes, dtype=np.int64)
    epb = 32 // size
    return (lanes // epb) * blk_stride * 32 + (lanes % epb) * size


def mask_lane_indices(lo, hi, lanes):
    return np.array([j for j in range(min(lanes, 128)) if ((hi if j >= 64 else lo) >> (j % 64)) & 1], dtype=np.int64)


@lru_cache(maxsize=4096)
def _offset_span(size, blk_stride, lo, hi, n_prefix):
    """(min offset, max offset + size) over the active lanes; n_prefix >= 0 keeps only the first n active lanes."""
    idx = mask_lane_indices(lo, hi, 256 // size)
    if n_prefix >= 0:
        idx = idx[:n_prefix]
    if idx.size == 0:
        return None
    offs = lane_offsets(size, blk_stride, idx)
    return int(offs.min()), int(offs.max()) + size


@dataclass(frozen=True)
class Operand:
    """One strided operand of one call: enough to compute its exact byte footprint."""
    name: str
    base: int
    size: int
    lo: int
    hi: int
    repeat: int
    blk: int
    rep: int
    last_lanes: int = -1  # counter mode: active lanes of the last repeat

    def extent(self):
        """[first, end) byte range the operand touches, or None when it touches nothing."""
        if self.repeat <= 0:
            return None
        spans = []
        full = _offset_span(self.size, self.blk, self.lo, self.hi, -1)
        if full is None:
            return None
        if self.last_lanes < 0:
            return self.base + full[0], self.base + (self.repeat - 1) * self.rep * 32 + full[1]
        if self.repeat >= 2:
            spans.append((full[0], (self.repeat - 2) * self.rep * 32 + full[1]))
        last = _offset_span(self.size, self.blk, self.lo, self.hi, self.last_lanes)
        if last is not None:
            shift = (self.repeat - 1) * self.rep * 32
            spans.append((shift + last[0], shift + last[1]))
        return self.base + min(s[0] for s in spans), self.base + max(s[1] for s in spans)

    def bytes_per_repeat(self):
        """List over repeats of the exact set of byte addresses (numpy arrays): the slow exact footprint."""
        idx = mask_lane_indices(self.lo, self.hi, 256 // self.size)
        offs = lane_offsets(self.size, self.blk, idx)
        per = []
        for i in range(self.repeat):
            o = offs if (self.last_lanes < 0 or i < self.repeat - 1) else offs[:self.last_lanes]
            start = self.base + i * self.rep * 32 + o
            per.append(np.unique((start[:, None] + np.arange(self.size)[None, :]).reshape(-1)))
        return per

    def footprint(self):
        per = self.bytes_per_repeat()
        return np.unique(np.concatenate(per)) if per else np.zeros(0, np.int64)


@lru_cache(maxsize=4096)
def _active_bytes(size, blk_stride, lo, hi, n_prefix):
    """Sorted byte offsets (inside one repeat) of the active lanes; n_prefix >= 0 keeps the first n active lanes."""
    idx = mask_lane_indices(lo, hi, 256 // size)
    if n_prefix >= 0:
        idx = idx[:n_prefix]
    offs = lane_offsets(size, blk_stride, idx)
    return tuple(sorted(set((offs[:, None] + np.arange(size)[None, :]).reshape(-1).tolist())))


def first_touch(op, lo, hi):
    """(repeat, byte) of the first byte in [lo, hi) that operand `op` touches, or None: the exact per-repeat byte
    sets, in closed form per lane byte (at most 256 per repeat pattern), never by walking the repeats. Repeats that
    tile one contiguous range (full lanes, each repeat starting where the last ended) are answered in closed form."""
    if op.repeat <= 0 or hi <= lo:
        return None
    step = op.rep * 32
    dense = _dense_end(op, step)
    if dense is not None:
        byte = max(lo, op.base)
        return ((byte - op.base) // step, byte) if byte < min(hi, dense) else None
    return _first_touch_by_lane_byte(op, lo, hi, step)


def _dense_end(op, step):
    """The end of the one contiguous byte range [base, end) the operand's repeats cover, each repeat's bytes being
    [base + i*step, base + i*step + step) (the last one a prefix of that), or None when the footprint is not so."""
    full = _active_bytes(op.size, op.blk, op.lo, op.hi, -1)
    if step == 0 or len(full) != step or full[-1] != step - 1:
        return None
    if op.last_lanes < 0:
        return op.base + op.repeat * step
    last = _active_bytes(op.size, op.blk, op.lo, op.hi, op.last_lanes)
    if not last or last[-1] != len(last) - 1:
        return None
    return op.base + (op.repeat - 1) * step + len(last)


def _first_touch_by_lane_byte(op, lo, hi, step):
    if op.last_lanes < 0:
        groups = ((0, op.repeat, -1),)
    else:
        groups = ((0, op.repeat - 1, -1), (op.repeat - 1, op.repeat, op.last_lanes))
    best = None
    for r0, r1, prefix in groups:
        if r1 <= r0:
            continue
        for p in _active_bytes(op.size, op.blk, op.lo, op.hi, prefix):
            first = op.base + p + r0 * step  # the byte at offset p of repeat i lies at first + (i - r0) * step
            if step == 0:
                i = r0 if lo <= first < hi else None
            else:
                i = r0 + max(0, -(-(lo - first) // step))
                if i >= r1 or first + (i - r0) * step >= hi:
                    i = None
            if i is not None and (best is None or (i, first + (i - r0) * step) < best):
                best = (i, first + (i - r0) * step)
    return best


def check_inside_ub(api, spec, op):
    ext = op.extent()
    if ext is None:
        return None
    if ext[0] < 0 or ext[1] > spec.ub_bytes:
        raise OutOfBoundsError(api, op.name, f"bytes [{ext[0]}, {ext[1]})", device=spec.name,
                               legal=f"every byte the repeats/strides touch inside the UB [0, {spec.ub_bytes})")
    return ext


def check_tensor_bounds(api, core, op, tensor, ext=None):
    """Every byte the call touches through `tensor` (operand `op`, extent `ext` = op.extent() when not given) lies in
    [tensor.addr, tensor.addr + tensor.nbytes) unless the core was made with bounds="ub" (decisions.md "Tensor
    bounds"). The error names the operand, the first byte outside and the repeat that reaches it."""
    if core.bounds == "ub":
        return
    if ext is None:
        ext = op.extent()
    if ext is None:
        return
    lo, hi = tensor.addr, tensor.addr + tensor.nbytes
    if lo <= ext[0] and ext[1] <= hi:
        return
    unit = "burst" if api.startswith("DataCopy") else "repeat"   # a copy's repeats are its bursts (port61b)
    if ext[0] < lo:
        first, where = ext[0], f"{unit} 0"
    else:
        repeat = _first_repeat_reaching(op, hi)
        first, where = _first_byte_from(op, repeat, hi), f"{unit} {repeat}"
    inside = f"inside {op.name}'s tensor [{lo}, {hi}) ({tensor.size} x {tensor.dtype.name})"
    # a count or a single burst longer than its tensor is a length bug: bounds="ub" would hide it and let the call
    # write the neighbouring buffer (port60d followed that advice for a DataCopyPad blockLen)
    launch = "(aj.launch(..., bounds=\"ub\") for a launch's cores)"
    whole_blocks = lo + -(-tensor.nbytes // 32) * 32
    if unit == "burst" and tensor.nbytes % 32 and lo <= ext[0] and ext[1] <= whole_blocks:
        # port61b: LarsV2Update's 4-byte DataCopyPad into a one-float TBuf slot, which the copy's 32-byte UB block
        # overruns; its length is already the shortest
        blocks = (whole_blocks - lo) // tensor.dtype.size
        remedy = (f"{api} moves whole 32-byte blocks in the UB: allocate the tensor to whole blocks ({blocks} x "
                  f"{tensor.dtype.name}, e.g. TBuf.GetWithOffset of {blocks})")
    elif _one_run(op):
        remedy = (f"shorten the count or length, or allocate a larger tensor; a port whose original reads or writes "
                  f"whole repeats past its buffer on purpose runs on a core made with bounds=\"ub\" {launch}")
    else:
        remedy = f"make the core with bounds=\"ub\" {launch} to let its strided or masked footprint leave the tensor"
    raise OutOfBoundsError(api, op.name, f"bytes [{ext[0]}, {ext[1]})", device=core.device,
                           legal=f"{inside}; {remedy}",
                           detail=f"byte {first} lies outside {op.name}, reached by {where}")


def _one_run(op):
    """Whether the bytes operand `op` (an Operand or Runs) touches are one contiguous run (one burst, back-to-back
    repeats): its exact footprint, computed on the refusal's path only."""
    per = op.bytes_per_repeat() if isinstance(op, (Operand, Runs)) else []
    if not per:
        return False
    touched = np.unique(np.concatenate(per))
    return touched.size > 0 and int(touched[-1] - touched[0]) + 1 == touched.size


class TensorExtent:
    """The facts check_tensor_bounds reads from a tensor, as plain values (validators are cached on them)."""
    __slots__ = ("addr", "nbytes", "size", "dtype")

    def __init__(self, addr, size, dtype):
        self.addr, self.size, self.dtype, self.nbytes = addr, size, dtype, size * dtype.size


class BoundsRule:
    """The facts check_tensor_bounds reads from a core: its bounds rule and device name."""
    __slots__ = ("bounds", "device")

    def __init__(self, bounds, device):
        self.bounds, self.device = bounds, device


def _first_repeat_reaching(op, end):
    """The first repeat of `op` that touches a byte at or after `end` (closed form over the repeat stride)."""
    if isinstance(op, Runs):
        return op.first_repeat_reaching(end)
    full = _offset_span(op.size, op.blk, op.lo, op.hi, -1)
    if full is None or op.rep == 0:
        return 0
    # repeat i ends at base + i*rep*32 + full[1]; the first i with that end > end
    i = max(0, -(-(end - op.base - full[1] + 1) // (op.rep * 32)))
    return min(i, max(op.repeat - 1, 0))


def _first_byte_from(op, repeat, end):
    """The lowest byte at or after `end` that repeat `repeat` of `op` touches (`end` itself if none does)."""
    if isinstance(op, Runs):
        return max(end, op.base + repeat * op.step)
    lanes = mask_lane_indices(op.lo, op.hi, 256 // op.size)
    if op.last_lanes >= 0 and repeat == op.repeat - 1:
        lanes = lanes[:op.last_lanes]
    starts = op.base + repeat * op.rep * 32 + lane_offsets(op.size, op.blk, lanes)
    reaching = starts[starts + op.size > end]
    return int(max(end, reaching.min())) if reaching.size else end


def check_overlap(api, spec, dst, src, dst_ext, src_ext, src_may_accumulate=False):
    """SPEC 8.2: within one repeat dst and src overlap 100% or not at all; an earlier repeat's dst is never a later
    repeat's src. src_may_accumulate: the Add/src1 exception (dst over src1 with a repeat stride of 0)."""
    if dst_ext is None or src_ext is None or dst_ext[1] <= src_ext[0] or src_ext[1] <= dst_ext[0]:
        return
    if src_may_accumulate:
        return
    if (dst.base, dst.blk, dst.rep, dst.lo, dst.hi, dst.last_lanes) == (src.base, src.blk, src.rep, src.lo, src.hi,
                                                                      src.last_lanes) and dst.repeat == src.repeat:
        same = True  # identical operands: every repeat overlaps itself 100%; check repeats against each other
    else:
        same = False
    check_repeat_overlap(api, spec, dst.name, src.name, dst.bytes_per_repeat(), src.bytes_per_repeat(), same)


def check_repeat_overlap(api, spec, dst_name, src_name, d_per, s_per, same=False, starts=None):
    """SPEC 8.2 on exact per-repeat byte sets (lists of sorted unique address arrays): within repeat i dst and src
    overlap 100% or not at all (skipped when `same`: identical operands), and no byte written by a repeat is read by
    a later one. Operands of other shapes (Compare's bit output, Select's selMask) use it directly (SPEC-2 D34).
    starts: a reduction in place (check_runs_overlap): repeat i's result may lie in its own source when it starts at
    starts[i], the repeat's first byte."""
    if not same:
        for i in range(min(len(d_per), len(s_per))):
            common = np.intersect1d(d_per[i], s_per[i], assume_unique=True)
            at_start = starts is not None and d_per[i].size and d_per[i][0] == starts[i]
            if common.size and not (common.size == d_per[i].size == s_per[i].size) and not at_start:
                raise OverlapError(api, f"{dst_name}/{src_name}", f"repeat {i}", device=spec.name,
                                   legal="100% overlap or none within a repeat (SPEC 8.2)",
                                   detail="the operands partially overlap")
    if not d_per or not s_per:
        return
    # an earlier repeat's dst must not be read by a later repeat
    d_all = np.concatenate([np.stack([p, np.full(p.size, i)]) for i, p in enumerate(d_per)], axis=1)
    s_all = np.concatenate([np.stack([p, np.full(p.size, i)]) for i, p in enumerate(s_per)], axis=1)
    order = np.argsort(d_all[1], kind="stable")
    d_addr, first_write = np.unique(d_all[0][order], return_index=True)
    first_write = d_all[1][order][first_write]
    order = np.argsort(-s_all[1], kind="stable")
    s_addr, last_read = np.unique(s_all[0][order], return_index=True)
    last_read = s_all[1][order][last_read]
    _, di, si = np.intersect1d(d_addr, s_addr, assume_unique=True, return_indices=True)
    bad = first_write[di] < last_read[si]
    if bad.any():
        k = int(np.argmax(bad))
        raise OverlapError(api, f"{dst_name}/{src_name}", f"byte {int(d_addr[di][k])}", device=spec.name,
                           legal="no byte written by a repeat and read by a later repeat (SPEC 8.2)",
                           detail=f"repeat {int(first_write[di][k])} writes what repeat {int(last_read[si][k])} reads")


def check_count_overlap(api, spec, name, dst_addr, src_addr, nbytes):
    """Count forms: full overlap (same address) or none (SPEC 3.3)."""
    if dst_addr != src_addr and dst_addr < src_addr + nbytes and src_addr < dst_addr + nbytes:
        raise OverlapError(api, f"dst/{name}", f"dst at {dst_addr}, {name} at {src_addr}", device=spec.name,
                           legal="the same address (100% overlap) or disjoint ranges (SPEC 3.3)",
                           detail=f"the {nbytes}-byte ranges partially overlap")


@dataclass(unsafe_hash=True, slots=True)  # mutable as BinaryRepeatParams: C++ sets fields of a default-made struct
class UnaryRepeatParams:
    """SPEC-2 1.1 (DK UnaryRepeatParams.md): block strides uint16, repeat strides uint8; `halfBlock` (CastDequant only)
    is not offered."""
    dstBlkStride: int = 1
    srcBlkStride: int = 1
    dstRepStride: int = 8
    srcRepStride: int = 8

    RANGES = {"dstBlkStride": 65535, "srcBlkStride": 65535, "dstRepStride": 255, "srcRepStride": 255}


def unary_repeat_params(api, spec, params):
    """A UnaryRepeatParams (or 4 integers in constructor order) range-checked (SPEC-2 1.2; dstBlkStride 0 refused,
    SPEC D10)."""
    if isinstance(params, (tuple, list)) and len(params) == 4:
        params = UnaryRepeatParams(*params)
    if not isinstance(params, UnaryRepeatParams):
        raise ParameterError(api, "repeat_params", params, device=spec.name,
                             legal="aj.UnaryRepeatParams or 4 integers (dstBlk, srcBlk, dstRep, srcRep)")
    ints = [check_range(api, spec, field, getattr(params, field), 0, hi)
            for field, hi in UnaryRepeatParams.RANGES.items()]
    if params.dstBlkStride == 0:
        raise ParameterError(api, "dstBlkStride", 0, legal="[1, 65535] (0 is undefined behaviour, SPEC D10)",
                             device=spec.name)
    # Python ints for the kernels: a numpy integer field would compile them again for its type (issue 20)
    return params if all(type(getattr(params, f)) is int for f in UnaryRepeatParams.RANGES) else \
        UnaryRepeatParams(*ints)


def check_disjoint(api, spec, a, b, a_ext, b_ext, rule, remedy=None):
    """No byte in common between two operands' exact footprints (SPEC-2 D34 "no overlap at all" rules); `remedy`:
    what to write instead, appended to the refusal's detail."""
    if a_ext is None or b_ext is None or a_ext[1] <= b_ext[0] or b_ext[1] <= a_ext[0]:
        return
    common = np.intersect1d(a.footprint(), b.footprint(), assume_unique=True)
    if common.size:
        raise OverlapError(api, f"{a.name}/{b.name}", f"byte {int(common[0])}", device=spec.name,
                           legal=f"no byte in common ({rule})",
                           detail="the operands overlap" + (f"; {remedy}" if remedy else ""))


@dataclass(frozen=True)
class Runs:
    """An output that is not one element per lane (reduction results): `repeat` runs of `width` bytes, run i at
    base + i*step. Offers what the bounds and overlap checks need from an Operand."""
    name: str
    base: int
    width: int
    step: int
    repeat: int

    def extent(self):
        if self.repeat <= 0 or self.width <= 0:
            return None
        last = self.base + (self.repeat - 1) * self.step
        return min(self.base, last), max(self.base, last) + self.width

    def first_repeat_reaching(self, end):
        if self.step <= 0:
            return 0
        return min(max(0, -(-(end - self.base - self.width + 1) // self.step)), self.repeat - 1)

    def bytes_per_repeat(self):
        return [np.arange(self.base + i * self.step, self.base + i * self.step + self.width) for i in range(self.repeat)]


def check_runs_overlap(api, spec, dst, src, dst_ext, src_ext, in_place=False):
    """SPEC 8.2 / SPEC-2 D34 between a Runs output and an Operand (or Runs) source: within a repeat the byte sets
    are equal or disjoint, and no byte written by a repeat is read by a later one. in_place: a repeat reduction whose
    dst starts where src does (`WholeReduceMax(x, x, ...)`, `BlockReduceSum(w, w, ...)`): a repeat's result that
    starts at the first byte of that repeat's source is the in-place form, legal (decisions.md "Reductions in place");
    a result anywhere else inside a source, or read by a later repeat, is not."""
    if dst_ext is None or src_ext is None or dst_ext[1] <= src_ext[0] or src_ext[1] <= dst_ext[0]:
        return
    starts = [src.base + i * src.rep * 32 for i in range(src.repeat)] if in_place else None
    check_repeat_overlap(api, spec, dst.name, src.name, dst.bytes_per_repeat(), src.bytes_per_repeat(), starts=starts)


def check_run_bounds(api, spec, bounds, run, tensor):
    """A Runs footprint of one operand (Compare's bits, Select's selMask, Gather's and GatherMask's packed output,
    GatherMask's pattern, DataCopyPad's UB side): inside the UB, and inside the operand's tensor (a TensorExtent)
    unless the core was made with bounds="ub" (decisions.md "Tensor bounds"). Returns the extent."""
    ext = check_inside_ub(api, spec, run)
    check_tensor_bounds(api, BoundsRule(bounds, spec.name), run, tensor, ext)
    return ext
