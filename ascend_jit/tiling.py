"""The kernel-side tiling macros: GET_TILING_DATA, GET_TILING_DATA_WITH_STRUCT, GET_TILING_DATA_PTR_WITH_STRUCT,
GET_TILING_DATA_MEMBER and REGISTER_TILING_DEFAULT (mirror-cann/asc-devkit @ 82b89a15, pages
docs/zh/api/SIMD-API/基础API/Kernel-Tiling/*.md; 371 / 294 ops-math and ops-nn Memory-API kernels open with them).

A kernel receives its tiling as a GM_ADDR: here the host array it was launched with (any dtype, its bytes are the
struct). The TilingData struct is a `ctypes.Structure` subclass (C's layout, fields as attributes:
`tilingData.totalLength`) or a numpy structured dtype (`np.dtype([...], align=True)` for C's padding; fields as
attributes of the returned `np.record`, read before its own attributes: `t.max` is the field). The host packs the
same struct (`bytes(s)` of a ctypes instance, or `np.array([...], dtype).view(np.uint8)`), so one definition serves
both sides, as the C++ header does.
docs/decisions.md "Kernel utilities"."""
import ctypes
import sys

import numpy as np

from .errors import OutOfBoundsError, ParameterError, StateError, UnsupportedDeviceError

_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")  # not the 910
# REGISTER_TILING_DEFAULT's structs by the registering module's __name__: C++ registers one at file scope, so each
# kernel file (module) has its own default, and one file's registration must not change what another's
# GET_TILING_DATA reads (the gallery imports every kernel file into one process); any thread or block of a launch sees
# its module's
_DEFAULT = {}


# the field types a struct read from arbitrary tiling bytes may hold: C's integer, floating, char and bool types
# (c_void_p reads as an int). A char* / wchar_t* / py_object / POINTER field is dereferenced when read (c_char_p
# read the string at whatever address the bytes held: a segmentation fault), a c_wchar or a numpy str field raises
# on a code point past U+10FFFF, and a numpy object field cannot view bytes at all
_CTYPES_CODES = "cbBhHiIlLqQfdg?P"
_NUMPY_KINDS = "biufcSV"
_FIELDS_LEGAL = "numeric fields (C's integer, floating, char and bool types), nested structs and arrays of them"


def _bad_field(kind, path=""):
    """(field path, type) of the first field of a ctypes or numpy struct outside those types, or None."""
    if isinstance(kind, np.dtype):
        if kind.subdtype is not None:
            return _bad_field(kind.subdtype[0], path)
        if kind.names is not None:
            return next((bad for name in kind.names if (bad := _bad_field(kind.fields[name][0], path + name + "."))),
                        None)
        return None if kind.kind in _NUMPY_KINDS else (path.rstrip("."), str(kind))
    if issubclass(kind, (ctypes.Structure, ctypes.Union)):
        return next((bad for f in getattr(kind, "_fields_", ()) if (bad := _bad_field(f[1], path + f[0] + "."))),
                    None)
    if issubclass(kind, ctypes.Array):
        return _bad_field(kind._type_, path)
    if issubclass(kind, ctypes._SimpleCData) and kind._type_ in _CTYPES_CODES:
        return None
    return path.rstrip("."), kind.__name__


def _struct(api, struct_type):
    """(the struct type, its size in bytes); anything but a ctypes.Structure subclass or a structured dtype of
    plain fields refused."""
    if isinstance(struct_type, type) and issubclass(struct_type, ctypes.Structure):
        kind, size = struct_type, ctypes.sizeof(struct_type)
    else:
        try:
            kind = np.dtype(struct_type) if not isinstance(struct_type, type) or issubclass(struct_type, np.generic) \
                else None
        except Exception:   # numpy's dtype parser raises TypeError, ValueError, KeyError, even SyntaxError ("u4,,")
            kind = None
        if kind is None or kind.fields is None:
            raise ParameterError(api, "struct", struct_type, legal="a ctypes.Structure subclass or a numpy structured "
                                 "dtype (the TilingData struct)")
        size = kind.itemsize
    if size == 0:   # numpy cannot view bytes as a 0-byte dtype (its ValueError); C++'s sizeof is never 0
        raise ParameterError(api, "struct", struct_type, legal="a struct of at least one byte (a C++ sizeof)")
    bad = _bad_field(kind)
    if bad is not None:
        raise ParameterError(api, f"struct field {bad[0]}", bad[1], legal=_FIELDS_LEGAL,
                             detail="a tiling struct is read from the tiling's bytes: no pointers or objects")
    return kind, size


def _tiling_bytes(api, tiling, size):
    """The uint8 view of the kernel's tiling argument, at least `size` bytes."""
    from .core import current_core   # core imports modules that import this one's siblings
    device = current_core(api).device
    if device not in _DEVICES:
        raise UnsupportedDeviceError(api, "device", device, legal=", ".join(_DEVICES),
                                     detail="not offered here (DK Kernel-Tiling pages); read the struct from the "
                                            "tiling's bytes instead: a ctypes class's "
                                            "from_buffer_copy(tiling.tobytes()), a numpy structured dtype's "
                                            "np.frombuffer(tiling.tobytes(), dtype, count=1).view(np.recarray)[0] "
                                            "(fields as attributes; a field named as a numpy attribute, such as max "
                                            "or shape, as t['max'])")
    # an object array holds pointers, not the struct's bytes (numpy refuses to view it as uint8)
    if not isinstance(tiling, np.ndarray) or not tiling.flags.c_contiguous or tiling.dtype.hasobject:
        given = type(tiling).__name__ if not isinstance(tiling, np.ndarray) else f"ndarray of dtype {tiling.dtype}"
        raise ParameterError(api, "tiling", given, device=device,
                             legal="the kernel's tiling argument: a C-contiguous numpy array of plain data (GM_ADDR)")
    data = tiling.reshape(-1).view(np.uint8)
    if data.size < size:
        raise OutOfBoundsError(api, "tiling", f"{data.size} bytes", device=device,
                               legal=f">= {size} bytes (the struct's size)")
    return data[:size]


class _TilingRecord(np.record):
    """A struct read through a numpy structured dtype: attribute access reads a field first. np.record answers with its
    own attribute when a field shares its name, and C structs do (`base` in ops-math Exp's and Log's TilingData, `max`
    and `min` in ops-nn HardtanhGrad's, `shape`, `size`, `ndim`, `strides` elsewhere): `t.max` must be the field."""

    def __getattribute__(self, attr):
        fields = np.void.__getattribute__(self, "dtype").fields
        if attr not in fields:
            return np.record.__getattribute__(self, attr)
        value = np.void.__getattribute__(self, "getfield")(*fields[attr][:2])
        dtype = getattr(value, "dtype", None)
        # a nested struct reads its fields the same way (np.record's own rule, with this class)
        return value.view((_TilingRecord, dtype)) if dtype is not None and dtype.names is not None else value

    def __setattr__(self, attr, value):
        """A field first here too: np.record refuses `ptr.dtype = 3` (its own read-only attribute; hostile14), so a
        PTR struct's field named dtype could not be written."""
        fields = np.void.__getattribute__(self, "dtype").fields
        if attr not in fields:
            return np.record.__setattr__(self, attr, value)
        return np.void.__getattribute__(self, "setfield")(value, *fields[attr][:2])


def _read(api, struct_type, tiling, view):
    kind, size = _struct(api, struct_type)
    data = _tiling_bytes(api, tiling, size)
    if isinstance(kind, np.dtype):
        records = data.view(np.dtype((_TilingRecord, kind)))
        # a read-only tiling gives a copy, as for ctypes (a view of it raised numpy's ValueError on a field write)
        return records[0] if view and data.flags.writeable else records.copy()[0]
    if view and data.flags.writeable:
        return kind.from_buffer(data)
    return kind.from_buffer_copy(data.tobytes())


def _caller_module():
    """The __name__ of the module whose code called the macro (two frames up: the macro, then its caller)."""
    return sys._getframe(2).f_globals.get("__name__")


def REGISTER_TILING_DEFAULT(struct_type):
    """`REGISTER_TILING_DEFAULT(TilingData)`: the struct GET_TILING_DATA fills in the calling module. C++ registers it
    at file scope, so it is per module here (any thread or block sees its module's); registering again in the same
    module replaces it."""
    _struct("REGISTER_TILING_DEFAULT", struct_type)
    _DEFAULT[_caller_module()] = struct_type


def GET_TILING_DATA(tiling):
    """`GET_TILING_DATA(tilingData, tiling)` is `tilingData = aj.GET_TILING_DATA(tiling)`: a copy of the default
    struct registered in the calling module, read from the tiling bytes. None registered there is a StateError."""
    module = _caller_module()
    if module not in _DEFAULT:
        raise StateError("GET_TILING_DATA", "TilingData", None,
                         legal="after aj.REGISTER_TILING_DEFAULT(TilingData) in the kernel's module",
                         detail=f"no TilingData registered in module {module!r}: call "
                                                   "aj.REGISTER_TILING_DEFAULT(TilingData) in the kernel's module "
                                                   "first (file scope in C++)")
    return _read("GET_TILING_DATA", _DEFAULT[module], tiling, False)


def GET_TILING_DATA_WITH_STRUCT(struct_type, tiling):
    """`GET_TILING_DATA_WITH_STRUCT(Struct, tilingData, tiling)` is
    `tilingData = aj.GET_TILING_DATA_WITH_STRUCT(Struct, tiling)`: a copy of Struct read from the tiling bytes."""
    return _read("GET_TILING_DATA_WITH_STRUCT", struct_type, tiling, False)


def GET_TILING_DATA_PTR_WITH_STRUCT(struct_type, tiling):
    """`GET_TILING_DATA_PTR_WITH_STRUCT(Struct, ptr, tiling)` is `ptr = aj.GET_TILING_DATA_PTR_WITH_STRUCT(Struct,
    tiling)`: the struct over the tiling's own bytes (the page's dynamic-shape case, a pointer into GM; `ptr->x` is
    `ptr.x`). A read-only tiling array gives a copy (the page's static-shape case, a local variable)."""
    return _read("GET_TILING_DATA_PTR_WITH_STRUCT", struct_type, tiling, True)


def GET_TILING_DATA_MEMBER(struct_type, member, tiling):
    """`GET_TILING_DATA_MEMBER(Struct, member, var, tiling)` is `var = aj.GET_TILING_DATA_MEMBER(Struct, "member",
    tiling)`: one field of the struct read from the tiling bytes."""
    api = "GET_TILING_DATA_MEMBER"
    record = _read(api, struct_type, tiling, False)
    kind, _ = _struct(api, struct_type)
    names = kind.names if isinstance(kind, np.dtype) else [f[0] for f in kind._fields_]
    if member not in names:
        raise ParameterError(api, "member", member, legal=", ".join(names))
    return getattr(record, member)


__all__ = ["REGISTER_TILING_DEFAULT", "GET_TILING_DATA", "GET_TILING_DATA_WITH_STRUCT",
           "GET_TILING_DATA_PTR_WITH_STRUCT", "GET_TILING_DATA_MEMBER"]
