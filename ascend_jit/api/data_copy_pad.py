"""DataCopyPad GM <-> UB with DataCopyExtParams / DataCopyPadExtParams, the 950's PaddingMode and SetPadValue
(SPEC-2 9.1, D56). Validation proves every GM and UB byte before anything moves; the copy is byte runs."""
import enum
import struct
from dataclasses import dataclass

import numpy as np

from ..errors import (AlignmentError, AscendJitError, brace_set_hint, OutOfBoundsError, ParameterError, StateError,
                      UnsupportedDeviceError, UnsupportedDTypeError)
from ..jit.direct import EntryTable
from ..jit.movement import pad_gm_to_ub, pad_ub_to_gm
from ..pipe import GM_WINDOW, DataCopyParams, atomic_copy, check_atomic_dtype
from ..tensor import GlobalTensor, LocalTensor, known_device, refuse_operand
from ._common import (Runs, TensorExtent, as_enum, as_int, as_uint16_field, check_dtype, check_range,
                      check_run_bounds, refuse_template_argument, remember)
from ._scalar import scalar_bits

API = "DataCopyPad"
_ENTRIES = EntryTable()  # the two copy kernels' entries (one signature each: see _with_entry)
POISON = 0xCD  # D56: bytes the documentation calls random (not claimed bit-exact)
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


class PaddingMode(enum.IntEnum):
    """SPEC-2 9.1: the 950's padding modes."""
    Normal = 0
    Compact = 1


def _float_bits(v):
    """The bytes of a float or numpy float: what tells -0.0 from 0.0 and one NaN from another (sign, payload)."""
    return struct.pack("<d", v) if type(v) is float else v.tobytes()


def _typed(values):
    """A memo key of parameter values that tells apart what compares equal but validates differently: 1, True and
    1.0; 0.0 and -0.0, NaNs of other signs or payloads (paddingValue bits: floats key by type and bytes). Raises
    TypeError for an unhashable value."""
    key = tuple((type(v), _float_bits(v)) if isinstance(v, (float, np.floating)) else (type(v), v) for v in values)
    hash(key)
    return key


_UNHASHABLE = object()  # the memo key part of a struct with an unhashable field: such calls are validated uncached


def _struct_key(values):
    """The typed memo key of parameter values (_typed), or _UNHASHABLE."""
    try:
        return _typed(values)
    except TypeError:
        return _UNHASHABLE


class _ParamStruct:
    """A parameter struct that keys DataCopyPad's validation memo on every call. Kernels build one per call
    (`DataCopyExtParams{...}` in the C++), so construction only stores the fields and their memo key `_key`: the
    plain values when they are unambiguous (exact ints; a bool isPad; a float paddingValue by its bytes, which tell
    -0.0 from 0.0 and NaNs apart), else their typed form (_typed). Two structs are equal when their keys are:
    `blockCount=True` is not a proven `blockCount=1`."""

    def __hash__(self):
        if self._key is _UNHASHABLE:
            raise TypeError(f"unhashable field in {self!r}")
        return hash(self._key)

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._key is not _UNHASHABLE and self._key == other._key

    def __setattr__(self, name, value):
        """C++ kernels default-construct the struct and set its fields (`DataCopyPadExtParams<T> p; p.isPad = false;
        p.rightPadding = 24;`): assigning a field makes the struct again from its fields, memo key included."""
        fields = type(self).__dataclass_fields__
        if name not in fields:
            raise AttributeError(f"{type(self).__name__} has no field {name!r} (fields: {', '.join(fields)})")
        values = {f: self.__dict__[f] for f in fields}
        values[name] = value
        self.__init__(**values)


@dataclass(init=False, eq=False)
class DataCopyExtParams(_ParamStruct):
    """SPEC-2 1.1: blockCount blocks of blockLen bytes; srcStride/dstStride gaps (bytes on the GM side, 32-B
    DataBlocks on the UB side)."""
    blockCount: int = 1
    blockLen: int = 0
    srcStride: int = 0
    dstStride: int = 0
    rsv: int = 0

    def __init__(self, blockCount=1, blockLen=0, srcStride=0, dstStride=0, rsv=0):
        fields = self.__dict__  # frozen: the fields are stored once, here
        fields["blockCount"], fields["blockLen"], fields["srcStride"] = blockCount, blockLen, srcStride
        fields["dstStride"], fields["rsv"] = dstStride, rsv
        values = (blockCount, blockLen, srcStride, dstStride, rsv)
        fields["_key"] = values if (type(blockCount) is int and type(blockLen) is int and type(srcStride) is int
                                    and type(dstStride) is int and type(rsv) is int) else _struct_key(values)


@dataclass(init=False, eq=False)
class DataCopyPadExtParams(_ParamStruct):
    """SPEC-2 1.1: isPad, leftPadding / rightPadding in elements (<= 32 bytes each), paddingValue (D29)."""
    isPad: bool = False
    leftPadding: int = 0
    rightPadding: int = 0
    paddingValue: object = 0

    def __init__(self, isPad=False, leftPadding=0, rightPadding=0, paddingValue=0):
        fields = self.__dict__  # frozen: the fields are stored once, here
        fields["isPad"], fields["leftPadding"], fields["rightPadding"] = isPad, leftPadding, rightPadding
        fields["paddingValue"] = paddingValue
        if type(isPad) is bool and type(leftPadding) is int and type(rightPadding) is int:
            if type(paddingValue) is int:
                fields["_key"] = (isPad, leftPadding, rightPadding, paddingValue)
                return
            if type(paddingValue) is float:
                fields["_key"] = (isPad, leftPadding, rightPadding, float, _float_bits(paddingValue))
                return
        fields["_key"] = _struct_key((isPad, leftPadding, rightPadding, paddingValue))


@dataclass(init=False, eq=False)
class DataCopyPadParams(_ParamStruct):
    """The older pad struct that goes with DataCopyParams (devkit include/basic_api/kernel_struct_data_copy.h, used
    by the devkit's cumsum/fmod examples and its unaligned-copy best practice): isPad, leftPadding / rightPadding
    (uint8_t, elements), paddingValue a uint64_t holding the pad element's bit pattern."""
    isPad: bool = False
    leftPadding: int = 0
    rightPadding: int = 0
    paddingValue: int = 0

    def __init__(self, isPad=False, leftPadding=0, rightPadding=0, paddingValue=0):
        fields = self.__dict__  # frozen: the fields are stored once, here
        fields["isPad"], fields["leftPadding"], fields["rightPadding"] = isPad, leftPadding, rightPadding
        fields["paddingValue"] = paddingValue
        if type(isPad) is bool and type(leftPadding) is int and type(rightPadding) is int and \
                type(paddingValue) is int:
            # the kernels' struct (built per row, `DataCopyPadParams{false, 0, 0, 0}`): its plain values, as
            # DataCopyPadExtParams keys them (an int isPad, which C++ converts to the bool field, keys typed)
            fields["_key"] = (isPad, leftPadding, rightPadding, paddingValue)
            return
        fields["_key"] = _struct_key((isPad, leftPadding, rightPadding, paddingValue))


_NO_PAD = DataCopyPadExtParams()
_GM_TO_UB, _UB_TO_GM = 0, 1
_PLANS = {}          # call shape (direction first) -> proven plan (None: a NOP), GM sizes left out
_PLANS_MAX = 4096    # distinct call shapes remembered (cleared when full)
_MISSING = object()


def DataCopyPad(dst, src, copy_params=_MISSING, pad_params=None, *more, mode=PaddingMode.Normal,
                data_copy_params=_MISSING):
    """`DataCopyPad(dst_local, src_global, copy_params, pad_params)` (GM -> UB) or
    `DataCopyPad(dst_global, src_local, copy_params)` (UB -> GM); the first argument's type picks the direction.
    `data_copy_params=` is the keyword of the C++ name (dataCopyParams, SPEC-2 1.1) for copy_params.

    Validation is memoised per call shape (direction, element types, UB address and size, bounds rule, the
    parameter structs with their fields' types, mode, the SetPadValue state); GM sizes stay out of the key and the
    proven shape's far GM byte is compared with the GM tensor's size on every call, a GM destination's
    writability too. The copy is one compiled call (jit/movement.py, GIL released) through its entry."""
    if type(dst) is not LocalTensor and type(dst) is not GlobalTensor:
        refuse_template_argument(API, dst)
    if more:
        raise TypeError(f"DataCopyPad() takes from 2 to 4 positional arguments but {4 + len(more)} were given")
    if data_copy_params is not _MISSING or copy_params is _MISSING:
        if copy_params is not _MISSING or data_copy_params is _MISSING:
            raise TypeError("DataCopyPad() takes the copy parameters once: copy_params (positional or keyword) or "
                            "data_copy_params (the C++ name dataCopyParams, SPEC-2 1.1)")
        copy_params = data_copy_params
    if type(copy_params) is DataCopyParams or type(pad_params) is DataCopyPadParams:
        copy_params, pad_params = _from_older_structs(dst, src, copy_params, pad_params)
    if type(mode) is not PaddingMode:   # its integer value too (decisions.md "Integer parameters"), before the memo key
        mode = as_enum(API, known_device(dst, src), "mode", mode, PaddingMode)
    if type(dst) is LocalTensor:
        return _gm_to_ub(dst, src, copy_params, pad_params, mode)
    if isinstance(dst, LocalTensor):  # a subclass: refused by name (_local)
        _local("dst", dst, src)
    if isinstance(dst, GlobalTensor):
        if pad_params is not None:
            raise ParameterError(API, "pad_params", pad_params, legal="none for UB -> GM (SPEC-2 9.1)",
                                 device=_local("src", src, dst).device)
        return _ub_to_gm(dst, src, copy_params, mode)
    refuse_operand(API, "dst", dst, "a LocalTensor (GM -> UB) or a GlobalTensor (UB -> GM)", (src,))


_OLDER = {}          # the older structs' fields (typed as below) -> the Ext structs _convert_older_structs made
_OLDER_MAX = 4096


def _from_older_structs(dst, src, copy_params, pad_params):
    """_convert_older_structs, remembered for a DataCopyParams of plain ints with no pad struct or a
    DataCopyPadParams (whose typed key it carries): the conversion reads only those fields and, GM -> UB, the
    destination's dtype (the device only names a refusal, and refusals are never remembered), so kernels that build
    the older structs per row convert each shape once. The Ext structs made are the emulator's own (never handed
    back to the kernel), so sharing them is safe. The brace list `{false, 0, 0, 0}` for the pad struct is that
    struct, remembered alike (port64l: converted again on every call, 4x the call's time)."""
    if type(copy_params) is DataCopyParams and type(pad_params) is tuple and len(pad_params) == 4:
        pad_params = DataCopyPadParams(*pad_params)   # as _convert_older_structs reads it
    if type(copy_params) is DataCopyParams and (pad_params is None or type(pad_params) is DataCopyPadParams):
        p = copy_params
        a, b, c, d = p.blockCount, p.blockLen, p.srcStride, p.dstStride
        pad_key = None if pad_params is None else pad_params._key
        if type(a) is int and type(b) is int and type(c) is int and type(d) is int and pad_key is not _UNHASHABLE \
                and (type(dst) is LocalTensor or type(dst) is GlobalTensor):
            key = (a, b, c, d, pad_key, dst._dtype if type(dst) is LocalTensor else None)
            made = _OLDER.get(key)
            if made is None:
                made = _convert_older_structs(dst, src, copy_params, pad_params)
                if len(_OLDER) >= _OLDER_MAX:
                    _OLDER.clear()
                _OLDER[key] = made
            return made
    return _convert_older_structs(dst, src, copy_params, pad_params)


def _convert_older_structs(dst, src, copy_params, pad_params):
    """The older prototype `DataCopyPad(dst, src, DataCopyParams, DataCopyPadParams)` (and `(gm, ub,
    DataCopyParams)`) as the DataCopyExtParams / DataCopyPadExtParams call it equals: the same copy (blockLen in
    bytes, srcStride / dstStride in bytes on the GM side and DataBlocks on the UB side, DataCopyPad's rules), with
    the older struct's narrower fields (uint16_t blockLen and strides, uint8_t paddings) checked first; its uint64_t
    paddingValue is the pad element's bit pattern (the devkit passes it to set_mov_pad_val as it is, where the Ext
    struct converts a T value), so it must fit sizeof(T) bytes (0 only for 64-bit types, as SPEC-2 9.1 says for
    the Ext struct; decisions.md "The older DataCopyPad prototype"); isPad may be the int 0 or 1 that C++ converts
    to the bool field (`p.isPad = 1;` in the devkit's guide). A 4-value brace list beside a
    DataCopyPadParams is a DataCopyParams, and one beside a DataCopyParams a DataCopyPadParams, as in C++; the two
    generations do not mix (C++ has no such overload)."""
    device = known_device(dst, src)
    if type(pad_params) is DataCopyPadParams and isinstance(copy_params, (tuple, list)) and len(copy_params) == 4:
        copy_params = DataCopyParams(*copy_params)
    if type(copy_params) is DataCopyParams and isinstance(pad_params, (tuple, list)) and len(pad_params) == 4:
        pad_params = DataCopyPadParams(*pad_params)   # `DataCopyPad(x, g, copyParams, {false, 0, 0, 0})`
    if type(copy_params) is not DataCopyParams or (pad_params is not None and type(pad_params) is not DataCopyPadParams):
        raise ParameterError(API, "copy_params, pad_params", (type(copy_params).__name__, type(pad_params).__name__),
                             device=device, legal="DataCopyParams with DataCopyPadParams (the older prototype) or "
                             "DataCopyExtParams with DataCopyPadExtParams",
                             detail=brace_set_hint(copy_params, pad_params))
    p = copy_params
    for name, value in (("blockLen", p.blockLen), ("srcStride", p.srcStride), ("dstStride", p.dstStride)):
        as_uint16_field(API, device, f"DataCopyParams.{name}", value)
    ext = DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0)
    if pad_params is None:
        return ext, None
    q = pad_params
    for name, value in (("leftPadding", q.leftPadding), ("rightPadding", q.rightPadding)):
        check_range(API, device, f"DataCopyPadParams.{name}", value, 0, 255)   # uint8_t fields
    padding = 0
    if isinstance(dst, LocalTensor):   # GM -> UB (a pad struct for UB -> GM is refused by DataCopyPad itself)
        d = dst._dtype
        top = 0 if d.size == 8 else (1 << 8 * d.size) - 1
        bits = check_range(API, device, "DataCopyPadParams.paddingValue", q.paddingValue, 0, top)
        padding = np.array([bits], _UINT[d.size]).view(d.np_dtype)[0]   # the bit pattern, exactly (D29)
    is_pad = q.isPad
    if type(is_pad) is int and is_pad in (0, 1):   # `dataCopyPadParams.isPad = 1;` (devkit best-practice guide)
        is_pad = bool(is_pad)
    return ext, DataCopyPadExtParams(is_pad, q.leftPadding, q.rightPadding, padding)


def _local(name, t, other):
    if type(t) is not LocalTensor:
        refuse_operand(API, name, t, "a LocalTensor", (other,))
    if t._lease is not None:
        t.check_alive(API, name)
    core = t._core
    if not core.spec.supported:
        core.spec.require_supported(API)
    return core


def _global(name, t, core):
    if not isinstance(t, GlobalTensor) or t._root is None:
        raise ParameterError(API, name, type(t).__name__, legal="a GlobalTensor with a buffer", device=core.device)
    return t


def _params_key(params, struct):
    """The memo key part of a parameter argument: a struct's `_key`, a tuple form's typed values, else _UNHASHABLE
    (a list or a wrong type: validated uncached, which names the problem)."""
    if type(params) is struct:
        return params._key
    if type(params) is tuple:
        key = _struct_key(params)
        return _UNHASHABLE if key is _UNHASHABLE else (tuple, key)
    return _UNHASHABLE


def _gm_to_ub(dst, src, copy_params, pad_params, mode):
    core = dst._core  # dst is a LocalTensor (DataCopyPad); _local and _global inlined: this runs per tile
    if dst._lease is not None and not dst._lease.alive or not core.spec.supported:
        _local("dst", dst, src)
    if type(src) is not GlobalTensor or src._root is None:
        _global("src", src, core)
    pad_params = _NO_PAD if pad_params is None else pad_params
    # GM sizes stay out of the key (a tiled kernel's GM sub-tensors shrink tile by tile): checked per call below
    key = (_GM_TO_UB, core.spec, dst._dtype, src.dtype, dst._addr, dst._size, core.bounds,
           copy_params._key if type(copy_params) is DataCopyExtParams else _params_key(copy_params, DataCopyExtParams),
           pad_params._key if type(pad_params) is DataCopyPadExtParams else _params_key(pad_params,
                                                                                         DataCopyPadExtParams),
           core.pad_value,
           mode._value_)
    plan = _PLANS.get(key, _MISSING)
    if plan is _MISSING:
        plan = _prove(_plan_gm_to_ub, key, (core.spec, dst._dtype, src.dtype, dst._addr, dst._size, core.bounds,
                                             copy_params, pad_params, mode, core.pad_value), src)
    if plan is None:
        return  # blockCount 0 or blockLen 0: a NOP (SPEC-2 9.1)
    if plan[9] > src._nbytes:
        _refuse_gm_end(core, "src", plan[9], src)
    if core.sanitizer is not None:
        _sanitize_gm_to_ub(core, dst, src, plan)
    # one entry for every GM source: the kernel only reads it, so a read-only GM array is passed as it is
    plan[12](core.ub, src._bytes, src._at, plan[11], plan[7])


def _prove(plan_fn, key, shape, gm):
    """Validate a call shape that is not memoised yet and remember its plan, with the copy kernel's parameters and
    entry appended. GM sizes are left out of the key; a refused shape is validated again with the GM tensor's size,
    so the refusal is the one the checks' order gives (the GM range before the UB range). Unhashable parameters
    are validated with the GM size and never remembered, so every such call is refused by name (the mode is a
    PaddingMode member by now: DataCopyPad coerces it first)."""
    if _UNHASHABLE in key:
        return _with_entry(plan_fn(*shape, gm._nbytes), shape[3])
    try:
        plan = _with_entry(plan_fn(*shape), shape[3])
    except AscendJitError as refusal:
        first = refusal
    else:
        return remember(_PLANS, key, plan, _PLANS_MAX)
    # outside the except block: the refusal the GM size gives comes alone, not chained to the first (port68e2: two
    # tracebacks joined by "During handling of the above exception")
    plan_fn(*shape, gm._nbytes)
    raise first


def _with_entry(plan, ub_addr):
    """A plan with the copy kernel's parameters (an int64 array: the UB address and everything else the call shape
    fixes) and compiled entry appended; None (a NOP) stays None. The entry's argument types are fixed: uint8 arrays
    (the UB, the GM buffer's bytes, the read-only fill pattern), the int64 parameters and the GM offset."""
    if plan is None:
        return None
    if len(plan) == 5:  # UB -> GM: (count, block_len, src_step, dst_step, gm_end)
        params = np.array((ub_addr, *plan[:4]), np.int64)
        return (*plan, params, _ENTRIES.get("ub->gm", pad_ub_to_gm, (_BYTES, _BYTES, 0, params)))
    count, block_len, src_step, dst_step, left, tail, last_tail, pattern, first = plan[:9]
    params = np.array((ub_addr, count, block_len, src_step, dst_step, left, tail, last_tail, pattern.size, first),
                      np.int64)
    return (*plan, params, _ENTRIES.get("gm->ub", pad_gm_to_ub, (_BYTES, _BYTES, 0, params, pattern)))


_BYTES = np.zeros(1, np.uint8)  # the type of the UB and of a GM buffer's bytes, for the entries' signatures


def _refuse_gm_end(core, side, gm_end, gm):
    """The proven call shape's far GM byte lies past this call's GlobalTensor (its size is not part of the key)."""
    # the byte range counts from the GlobalTensor's own start, not its array's (port63e read the two as one frame)
    raise OutOfBoundsError(API, side, f"GM bytes [0, {gm_end}) from the start of {gm!r}", device=core.device,
                           legal=f"inside the GlobalTensor's {gm._nbytes} bytes{GM_WINDOW}")


def _plan_gm_to_ub(spec, d, gd, addr, size, bounds, copy_params, pad_params, mode, pad_value, gm_nbytes=None):
    """(count, blockLen, GM step, UB step, left bytes, tail bytes, last tail bytes, fill pattern, fill with the
    block's first element?, far GM byte, filler random (D56's poison)?) after every check, the GM tensor's size only when given (memoised calls
    leave it out and check the far GM byte per call), or None for a NOP."""
    count, block_len, src_stride, dst_stride, s = _check_common(spec, d, gd, copy_params, mode)
    if not isinstance(pad_params, DataCopyPadExtParams):
        if isinstance(pad_params, (tuple, list)) and len(pad_params) == 4:
            pad_params = DataCopyPadExtParams(*pad_params)
        else:
            raise ParameterError(API, "pad_params", pad_params, device=spec.name,
                                 legal="aj.DataCopyPadExtParams or 4 values (isPad, leftPadding, rightPadding, "
                                       "paddingValue)")
    if not isinstance(pad_params.isPad, (bool, np.bool_)):
        # a dtype name first is C++'s DataCopyPadExtParams<T> with T written as an argument: name the Python form
        how = ""
        if isinstance(pad_params.isPad, str):
            how = (f"; the template's T is the tensors' type, not an argument: aj.DataCopyPadExtParams() for "
                   f"DataCopyPadExtParams<{pad_params.isPad}> with its defaults")
        raise ParameterError(API, "isPad", pad_params.isPad, legal="True or False" + how, device=spec.name)
    left = check_range(API, spec, "leftPadding", pad_params.leftPadding, 0, 32 // s)
    right = check_range(API, spec, "rightPadding", pad_params.rightPadding, 0, 32 // s)
    value = scalar_bits(API, spec, d, pad_params.paddingValue, "paddingValue")
    if s == 8 and value:
        raise ParameterError(API, "paddingValue", pad_params.paddingValue, legal="0 for 64-bit types (SPEC-2 9.1)",
                             device=spec.name)
    if spec.pad_stride_950:
        check_range(API, spec, "srcStride", src_stride, -block_len, 2**40 - 1)
        check_range(API, spec, "dstStride", dst_stride, 0, 65535)
    else:
        check_range(API, spec, "srcStride", src_stride, 0, 2**32 - 1)
        check_range(API, spec, "dstStride", dst_stride, 0, 2**32 - 1)
    if addr % 32:
        raise AlignmentError(API, "dst address", addr, legal="a multiple of 32 bytes (UB, SPEC-2 9.1)",
                             device=spec.name)
    compact = mode == PaddingMode.Compact
    # D56 / H-13 (decisions.md "DataCopyPad fill"): what fills the pads and the dummy bytes
    if not pad_params.isPad and pad_value is not None and pad_value[0] is not d:
        raise StateError(API, "SetPadValue dtype", pad_value[0].name, device=spec.name,
                         legal=f"{d.name} (this copy's dtype)",
                         detail=f"SetPadValue stored a {pad_value[0].name} value; the copy is {d.name} (SPEC-2 9.1)")
    first = left == 0 and right == 0
    random_fill = False
    if first:
        bits = 0
    elif pad_params.isPad:
        bits = value
    elif pad_value is not None:
        bits = pad_value[1]
    else:
        bits = int.from_bytes(bytes([POISON] * s), "little")
        random_fill = True
    if compact:   # D56: packed back to back, one filler after the last block; strides and pads ignored as counts
        left = right = 0
    pattern = np.frombuffer(int(bits).to_bytes(s, "little"), np.uint8).copy()
    if count == 0 or block_len == 0:
        return None
    if compact:
        dst_step, left_b, tail = block_len, 0, 0
        used = count * block_len
        last_tail = -(-used // 32) * 32 - used
        ub_end = addr + used + last_tail
    else:
        left_b = left * s
        padded = -(-(left_b + block_len + right * s) // 32) * 32
        dst_step = padded + 32 * dst_stride
        tail = last_tail = padded - left_b - block_len
        ub_end = addr + (count - 1) * dst_step + padded
    src_step = block_len + src_stride
    gm_end = (count - 1) * src_step + block_len
    if (gm_nbytes is not None and gm_end > gm_nbytes) or (count - 1) * src_step < 0:
        raise OutOfBoundsError(API, "src", f"GM bytes [0, {gm_end})", device=spec.name,
                               legal="inside the GlobalTensor" + (f"'s {gm_nbytes} bytes" if gm_nbytes is not None
                                                                  else " (a negative srcStride reaches before it)"))
    # Normal mode: one run of `padded` bytes per block, so an overrun names the block that reaches it (README
    # "Tensor bounds"); the packed Compact region is one run
    runs = Runs("dst", addr, ub_end - addr, 0, 1) if compact else Runs("dst", addr, padded, dst_step, count)
    check_run_bounds(API, spec, bounds, runs, TensorExtent(addr, size, d))
    pattern.setflags(write=False)
    return count, block_len, src_step, dst_step, left_b, tail, last_tail, pattern, first, gm_end, random_fill


def _sanitize_gm_to_ub(core, dst, src, plan):
    """The access record of a GM -> UB copy (PIPE_MTE2, SPEC-2 10.4): the data runs as a copy, then the pad and
    dummy bytes it also writes: initialised UB from here on, unless they are the values the doc calls random (D56's
    poison), which stay uninitialised, so a vector read of them is reported."""
    from ..sanitizer import PIPE_MTE2, Access
    count, block_len, src_step, dst_step, left, tail, last_tail = plan[:7]
    core.sanitizer.copy_access(API, dst, src, [(k * src_step, k * dst_step + left, block_len) for k in range(count)])
    fills = []
    for k in range(count):
        start = dst.addr + k * dst_step
        fills.append(np.arange(start, start + left, dtype=np.int64))
        end = start + left + block_len
        fills.append(np.arange(end, end + (last_tail if k == count - 1 else tail), dtype=np.int64))
    addrs = np.concatenate(fills)
    if addrs.size:
        core.sanitizer.instruction(API, PIPE_MTE2, [Access("dst", True, addrs, dst)])
        if plan[10]:
            for fill in fills:
                if fill.size:
                    core.sanitizer.undefine(int(fill[0]), fill.size)


def _check_common(spec, d, gd, copy_params, mode):
    if not spec.pad_dtypes:
        raise UnsupportedDeviceError(API, "device", spec.name, legal="ascend950, atlas-a3, atlas-a2, atlas-200i-500-a2",
                                     detail="DataCopyPad is not offered here (SPEC-2 1.9)")
    check_dtype(API, spec, d, spec.pad_dtypes)
    if gd is not d:
        raise UnsupportedDTypeError(API, "GlobalTensor dtype", gd.name, legal=f"{d.name} (as the LocalTensor)",
                                    device=spec.name)
    if mode != PaddingMode.Normal and not spec.pad_stride_950:
        raise UnsupportedDeviceError(API, "mode", mode.name, legal="PaddingMode.Normal", device=spec.name,
                                     detail="the padding modes are a 950 feature (SPEC-2 9.1)")
    if isinstance(copy_params, (tuple, list)) and len(copy_params) in (4, 5):
        copy_params = DataCopyExtParams(*copy_params)
    if not isinstance(copy_params, DataCopyExtParams):
        raise ParameterError(API, "copy_params", copy_params, device=spec.name,
                             legal="aj.DataCopyExtParams or (blockCount, blockLen, srcStride, dstStride[, rsv])")
    count = copy_params.blockCount
    # port65h: ops-cv CheckValid's tiling gives a copy of 5288 rows; the refusal says what the device needs
    too_many = isinstance(count, (int, np.integer)) and not isinstance(count, (bool, np.bool_)) and count > 4095
    count = as_int(API, spec, "blockCount", count, 0, 4095,
                   of="one DataCopyPad moves at most 4095 blocks (DK DataCopyPad, the DataCopyExtParams table): "
                      "split a longer copy into calls of at most 4095 blocks each" if too_many else None)
    block_len = check_range(API, spec, "blockLen", copy_params.blockLen, 0, 2097151)
    if block_len % d.size:
        raise ParameterError(API, "blockLen", block_len, device=spec.name,
                             legal=f"a multiple of sizeof({d.name}) = {d.size} bytes (SPEC-2 9.1)")
    check_range(API, spec, "rsv", copy_params.rsv, 0, 2**32 - 1)   # reserved; uint32_t in DK kernel_struct_data_copy.h
    src_stride = check_range(API, spec, "srcStride", copy_params.srcStride, -2**40, 2**40)
    dst_stride = check_range(API, spec, "dstStride", copy_params.dstStride, -2**40, 2**40)
    return count, block_len, src_stride, dst_stride, d.size


def _ub_to_gm(dst, src, copy_params, mode):
    core = _local("src", src, dst)
    _global("dst", dst, core)
    key = (_UB_TO_GM, core.spec, src._dtype, dst.dtype, src._addr, src._size, core.bounds,
           copy_params._key if type(copy_params) is DataCopyExtParams else _params_key(copy_params, DataCopyExtParams),
           mode._value_)
    plan = _PLANS.get(key, _MISSING)
    if plan is _MISSING:
        plan = _prove(_plan_ub_to_gm, key, (core.spec, src._dtype, dst.dtype, src._addr, src._size, core.bounds,
                                             copy_params, mode), dst)
    if plan is None:
        return
    count, block_len, src_step, dst_step, gm_end, params, entry = plan
    if gm_end > dst._nbytes:
        _refuse_gm_end(core, "dst", gm_end, dst)
    if not (dst._root.flags.writeable and dst._owner.flags.writeable):   # writable(), inline
        dst._require_writable(API, device=core.device)
    if core.sanitizer is not None:   # PIPE_MTE3: the UB bytes read, the GM bytes written (cross-block shadow)
        if core.atomic is not None:
            check_atomic_dtype(API, core, dst)   # a refusal first: a refused copy is no access (issue 17)
        core.sanitizer.copy_access(API, dst, src, [(k * src_step, k * dst_step, block_len) for k in range(count)],
                                   atomic=core.atomic)
    if core.atomic is not None:   # SetAtomicAdd/Max/Min: the one UB -> GM combine path (pipe.atomic_copy)
        runs = [(k * src_step, k * dst_step, block_len) for k in range(count)]
        atomic_copy(API, core, dst, dst._bytes[dst._at:], core.ub[src._addr:], runs)
        return
    entry(dst._bytes, core.ub, dst._at, params)


def _plan_ub_to_gm(spec, d, gd, addr, size, bounds, copy_params, mode, gm_nbytes=None):
    count, block_len, src_stride, dst_stride, s = _check_common(spec, d, gd, copy_params, mode)
    if spec.pad_stride_950:
        check_range(API, spec, "srcStride", src_stride, 0, 65535)
        check_range(API, spec, "dstStride", dst_stride, 0, 2**40 - 1)
    else:
        check_range(API, spec, "srcStride", src_stride, 0, 2**32 - 1)
        check_range(API, spec, "dstStride", dst_stride, 0, 2**32 - 1)
    if addr % 32:
        raise AlignmentError(API, "src address", addr, legal="a multiple of 32 bytes (UB, SPEC-2 9.1)",
                             device=spec.name)
    if count == 0 or block_len == 0:
        return None
    if mode == PaddingMode.Compact:   # D56: UB source blocks back to back, srcStride ignored
        src_step = block_len
    else:
        src_step = -(-block_len // 32) * 32 + 32 * src_stride
    dst_step = block_len + dst_stride
    gm_end = (count - 1) * dst_step + block_len
    if gm_nbytes is not None and gm_end > gm_nbytes:
        raise OutOfBoundsError(API, "dst", f"GM bytes [0, {gm_end})", device=spec.name,
                               legal=f"inside the GlobalTensor's {gm_nbytes} bytes{GM_WINDOW}")
    check_run_bounds(API, spec, bounds, Runs("src", addr, block_len, src_step, count), TensorExtent(addr, size, d))
    return count, block_len, src_step, dst_step, gm_end
