"""The exception tree. Every refusal names the API, the parameter, its value, the legal range and the device.

A refused call writes nothing: validation happens entirely before any kernel runs (DESIGN 3, SPEC D10).
Messages cite the contract shipped in the repository: "SPEC 8.2" and "D14" are docs/SPEC.md, "SPEC-2 10.3" and
"D62" (D27-D75) docs/SPEC-2.md, "audit 3" docs/SPEC-audit.md (tests/test_docs.py checks that every citation resolves).
"""
import sys


class AscendJitError(Exception):
    """Base class of every error ascend_jit raises on purpose."""

    def __init__(self, api, parameter=None, value=None, legal=None, device=None, detail=None):
        api, value, legal = _table_row(api), _table_row(value), _table_row(legal)
        if isinstance(detail, tuple) and detail[:1] == (OUTSIDE,):
            detail, legal = _outside_detail(detail, legal)
        parameter, value = _named_kinds(parameter, value)
        legal = _named_legal(legal)
        if device is None and parameter == "device" and isinstance(value, str):
            # "not offered on this device" (SPEC-2 1.9) refusals give the call's device as the value: it is also the
            # device the message names, inside `with core:` or not (audit16m)
            from .devices import NAMES  # devices imports this module
            if value in NAMES:
                device = value
        if device is None:  # a refusal with no operand to name the device: the current core's (`with core:`)
            from .tensor import known_device  # tensor imports this module
            device = known_device()
        self.api, self.parameter, self.value, self.legal, self.device = api, parameter, value, legal, device
        self.detail = detail   # a compiled VF raises the same refusal again from these fields (reg.py _raiser)
        parts = [f"{api}:"]
        if parameter is not None:
            parts.append(f"parameter '{parameter}' = {_shown(value)!r}")
        if detail:
            parts.append(detail)
        if detail is None or BRACE_SET_HINT not in detail:
            hint = brace_set_hint(value)
            if hint:
                parts.append(hint)
        if legal is not None:
            parts.append(f"(legal: {legal})")
        if device is not None:
            parts.append(f"on device {device}")
        super().__init__(" ".join(parts))


BRACE_SET_HINT = ("a Python set: C++'s brace list {a, b, ...} copied as it is; write it as a tuple (a, b, ...) "
                  "(a set keeps neither the order nor repeated values)")


def brace_set_hint(*values):
    """The hint for a refused value that is (or holds) a Python set, else None: `{1, 1, 1, 8, 8, 8}` ported from
    C++ is a set of two ints here, and `{false, 0, 0, 0}` a set of one."""
    for v in values:
        if isinstance(v, (set, frozenset)) or isinstance(v, (tuple, list)) and \
                any(isinstance(x, (set, frozenset)) for x in v):
            return BRACE_SET_HINT
    return None


# A compiled Reg load or store refusing bytes outside its operand raises with (OUTSIDE, start, stop, lo, hi, ub[, form])
# as the detail (compiled code formats no strings: issue 20), worded here as the Memory API words it
# (docs/decisions.md "Tensor bounds"): the bytes the access covers, the first one outside, and the range it must stay
# in.
OUTSIDE = "outside"


# What to write first when a whole-vector Reg access leaves its tensor (port61c followed the bounds="ub" advice alone,
# and its full-mask tail store wrote the next tensor, as port60d's DataCopyPad had): the OUTSIDE tuple's seventh
# field, set by LoadAlign / StoreAlign DIST_NORM and the other single-register loads (jit/reg_move.py load_norm, load,
# store_norm; review 61: the dual, MaskReg and unaligned forms read or write other spans, some with no mask)
OUTSIDE_VECTOR_LOAD, OUTSIDE_VECTOR_STORE = 1, 2
_OUTSIDE_FIX = {
    OUTSIDE_VECTOR_STORE: ("a store writes only its mask's active lanes: mask the last vector to the elements left "
                           "(UpdateMask or CreateMask of the remaining count) or allocate the tensor to whole 256-byte "
                           "vectors; bounds=\"ub\" would let the store write the next buffer"),
    OUTSIDE_VECTOR_LOAD: ("a load reads its {nbytes} bytes whatever the mask: allocate the tensor to whole "
                          "{nbytes}-byte loads (round the buffer's length up), or launch with bounds=\"ub\" where the "
                          "bytes past it are the kernel's own to read"),
}


def _outside_detail(detail, legal):
    """(detail, legal) of an OUTSIDE refusal: the range named as the operand's tensor, or as the UB where the allowed
    range is the whole UB (a core made with bounds="ub"), whose legal text then does not advise bounds="ub"."""
    _, start, stop, lo, hi, ub_bytes, *form = detail
    first = start if start < lo else max(start, hi)
    whole_ub = lo == 0 and hi == ub_bytes
    where = f"the UB [0, {ub_bytes})" if whole_ub else f"the operand's tensor [{lo}, {hi})"
    text = f"accesses bytes [{start}, {stop}): byte {first} lies outside {where}"
    fix = _OUTSIDE_FIX.get(form[0]) if form else None
    if fix and not whole_ub:   # a single-register load's size by its distribution (DIST_NORM 256, UNPACK_B16 128)
        text += ": " + fix.format(nbytes=stop - start)
    elif fix:   # port65i: ops-math AsStrided's tiling puts its last queue at the 950's UB end and loads a vector there
        text += (": the emulated UB ends there (the device's reserved bytes past it are not offered, SPEC-2 D70); a "
                 f"kernel loading whole vectors from a buffer at the UB's end needs that buffer {stop - start} bytes "
                 "lower (a tiling budget that much smaller)")
    return text, ("every accessed byte inside the UB (SPEC-2 11.6)" if whole_ub else legal)


# Texts a compiled kernel names by row. A kernel indexing a tuple of many strings at run time compiles one branch and
# one constant per string (Reg Cast's four tables of 121 pair rows cost its first call 2 s, issue 20; a Reg unary's
# six API names and legal ranges 0.25 s); it raises with (table name, row) as the API, the value, the legal range or
# a text of a legal tuple instead, and the refusal is worded here from the table.
ROW_TABLES = {}


def row_table(name, texts):
    """Register `texts` under `name` for kernels raising with (name, row); returns the name."""
    ROW_TABLES[name] = tuple(texts)
    return name


def _shown(value):
    """A numpy scalar as the Python number it holds, exactly (np.float32(0.1) is 0.10000000149011612): numpy 2's
    repr named np.float16(1.5) where a compiled VF's same refusal, given the value widened, names 1.5 (session 62's
    check of compiled against plain Reg refusals)."""
    if type(value).__module__ != "numpy" or not hasattr(value, "item") or getattr(value, "ndim", 1) != 0:
        return value
    return value.item()   # exact: np.float16(65504) is 65504.0 (its shortest text, 65500.0, is another number)


def _table_row(x):
    if (isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) and x[0] in ROW_TABLES
            and isinstance(x[1], int) and 0 <= x[1] < len(ROW_TABLES[x[0]])):
        return ROW_TABLES[x[0]][x[1]]
    return x


def _named_kinds(parameter, value):
    """The compiled kernels check element types by their kind code (jit/numerics.py KIND_*) and can raise with
    codes only: a parameter named "... kind" / "... kinds" is reported as "... dtype" / "... dtypes" with the
    dtype names a user wrote, not the codes."""
    if not isinstance(parameter, str) or not parameter.endswith(("kind", "kinds")):
        return parameter, value
    codes = value if isinstance(value, tuple) else (value,)
    if not all(isinstance(c, int) and not isinstance(c, bool) for c in codes):
        return parameter, value
    from .dtypes import ALL  # dtypes imports this module
    if not all(0 <= c < len(ALL) for c in codes):
        return parameter, value
    names = tuple(ALL[c].name for c in codes)
    stem = parameter[:-len("kinds")] if parameter.endswith("kinds") else parameter[:-len("kind")]
    if parameter.endswith("kinds"):
        return stem + "dtypes", names
    return stem + "dtype", names[0]


def _named_legal(legal):
    """A legal range a compiled kernel gives as a tuple of kind codes and texts (or row-table rows), naming other
    operands' dtypes as plain Python does ("half, the source's (...)", "int32 for a int16 source (...)"): each code's
    dtype name and each text, in order."""
    if not (isinstance(legal, tuple) and legal):
        return legal
    texts = tuple(map(_table_row, legal))
    if not any(isinstance(p, str) for p in texts):
        return legal
    from .dtypes import ALL  # dtypes imports this module
    parts = []
    for part in texts:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, int) and not isinstance(part, bool) and 0 <= part < len(ALL):
            parts.append(ALL[part].name)
        else:
            return legal
    return "".join(parts)


class ParameterError(AscendJitError, ValueError):
    """A parameter is out of its documented range or not of the documented form."""


class AlignmentError(AscendJitError, ValueError):
    """An operand address violates the alignment rule of SPEC 8.2."""

    def __init__(self, api, parameter=None, value=None, legal=None, device=None, detail=None):
        if detail is None and parameter == "address" and api in _ALIGNED_REG_ACCESS and legal == ALIGN_32_BYTES:
            detail = _ALIGNED_REG_ACCESS[api]   # a compiled VF raises constant texts only: the fix is added here
        super().__init__(api, parameter, value, legal, device, detail)


# A Reg LoadAlign / StoreAlign at an unaligned element (port61c: rows of 100 floats) had named the byte address only;
# the 32-byte rule's (the 16-byte MaskReg distributions have their own), whose text the compiled refusals raise with
# (jit/reg_move.py): one constant, so the advice cannot drift from the rule it follows
ALIGN_32_BYTES = "a multiple of 32 bytes (SPEC-2 11.6)"
_ALIGNED_REG_ACCESS = dict.fromkeys(("LoadAlign", "StoreAlign"), (
    "(the tensor's UB address plus offset x element size): pad each row to whole 32 bytes (8 floats, 16 halves) "
    "so every row starts aligned, or move an unaligned start with LoadUnAlign / StoreUnAlign"))


class OutOfBoundsError(AscendJitError, IndexError):
    """Some byte the call would touch lies outside the Unified Buffer (or outside a tensor)."""


class OverlapError(AscendJitError, ValueError):
    """Operands overlap in a way SPEC 8.2 does not allow."""


class UnsupportedDTypeError(AscendJitError, TypeError):
    """The dtype is not supported by this API on this device (SPEC 8.1)."""


class UnsupportedDeviceError(AscendJitError, ValueError):
    """The device does not offer this API (e.g. the inference Vector Core, or the Reg API off the 950)."""


class StateError(AscendJitError, RuntimeError):
    """Misuse of emulator state: queues, freed tensors, an undefined mask register, no current core."""


class ReadOnlyError(AscendJitError, AttributeError):
    """An attempt to change a read-only attribute (a LocalTensor's placement, size, dtype or core)."""


class NotOfferedError(AscendJitError, AttributeError):
    """A devkit name the emulator does not offer (SPEC-2 14), looked up on `aj` or `aj.Reg`: the message says why
    and what to use instead. An AttributeError too, so `hasattr(aj.Reg, name)` stays False."""


def not_offered_lookup(module, prefix, reasons, device=None, families=(), implementations=False):
    """A module `__getattr__` for the devkit names in `reasons` (name -> why, and what to use) and for every name
    starting with a `families` prefix ((name prefix, why) pairs: a whole devkit API family): a NotOfferedError naming
    `prefix + name`; any other missing name Python's AttributeError. `implementations`: a name `XImpl` for an `X` the
    module has is the devkit's implementation of X (port64h: the 310P GeGluGradV2 calls DuplicateImpl)."""
    def __getattr__(name):
        reason = reasons.get(name)
        if reason is None:
            reason = next((why for start, why in families if name.startswith(start)), None)
        stem = name[:-len("Impl")]
        if reason is None and implementations and name.endswith("Impl") and stem in vars(sys.modules[module]):
            reason = (f"not offered (the devkit's implementation of {stem} on raw pointers, under its API): write "
                      f"{prefix or 'aj.'}{stem} on tensors of the pointers' type")
        if reason is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        raise NotOfferedError(f"{prefix}{name}", "name", name, legal=reason, device=device)
    return __getattr__


class SanitizerError(StateError):
    """The sanitizer found a race, an uninitialised read, an out-of-tensor access or a cross-block GM conflict.
    `.report` holds the structured report (check, kind, instructions, operand, address, bytes, fix)."""

    def __init__(self, api, *args, report=None, **kwargs):
        super().__init__(api, *args, **kwargs)
        self.report = report


class SanitizerWarning(RuntimeWarning):
    """`aj.launch(..., sanitize="report")` outside an `aj.sanitize_session`: the launch's reports, which no session
    collects and whose block cores the launch discards, as one warning (aj.format_reports' text)."""


class PortingWarning(UserWarning):
    """A legal call that is almost surely not what a port meant: a GM array of numpy's default float64 / int64 read
    as the bytes of a narrower tensor type (the C++ pointer cast the emulator models)."""


class UncompiledVFWarning(RuntimeWarning):
    """numba cannot compile a VF for the arguments it was called with, and the VF ran as plain Python (the same
    results, slower): the message gives numba's reason."""
