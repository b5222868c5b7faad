"""The kernel-side tiling macros: GET_TILING_DATA, GET_TILING_DATA_WITH_STRUCT, GET_TILING_DATA_PTR_WITH_STRUCT,
GET_TILING_DATA_MEMBER and REGISTER_TILING_DEFAULT (mirror-cann/asc-devkit @ 82b89a15, pages
docs/zh/api/SIMD-API/基础API/Kernel-Tiling/*.md; 371 / 294 ops-math and ops-nn Memory-API kernels open with them).

A kernel receives its tiling as a GM_ADDR: here the host array it was launched with (any dtype, its bytes are the
struct). The TilingData struct is a `ctypes.Structure` subclass (C's layout, fields as attributes:
`tilingData.totalLength`) or a numpy structured dtype (`np.dtype([...], align=True)` for C's padding; fields as
attributes of the returned `np.record`). The host packs the same struct (`bytes(s)` of a ctypes instance, or
`np.array([...], dtype).view(np.uint8)`), so one definition serves both sides, as the C++ header does.
docs/decisions.md "Kernel utilities"."""
import ctypes

import numpy as np

from .errors import OutOfBoundsError, ParameterError, StateError, UnsupportedDeviceError

_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")  # not the 910
_DEFAULT = []   # REGISTER_TILING_DEFAULT's struct (file scope in C++: module-level here, not per core)


def _struct(api, struct_type):
    """(the struct type, its size in bytes); anything but a ctypes.Structure subclass or a structured dtype refused."""
    if isinstance(struct_type, type) and issubclass(struct_type, ctypes.Structure):
        return struct_type, ctypes.sizeof(struct_type)
    try:
        dtype = np.dtype(struct_type) if not isinstance(struct_type, type) or issubclass(struct_type, np.generic) \
            else None
    except TypeError:
        dtype = None
    if dtype is None or dtype.fields is None:
        raise ParameterError(api, "struct", struct_type, legal="a ctypes.Structure subclass or a numpy structured "
                             "dtype (the TilingData struct)")
    return dtype, dtype.itemsize


def _tiling_bytes(api, tiling, size):
    """The uint8 view of the kernel's tiling argument, at least `size` bytes."""
    from .core import current_core   # core imports modules that import this one's siblings
    device = current_core(api).device
    if device not in _DEVICES:
        raise UnsupportedDeviceError(api, "device", device, legal=", ".join(_DEVICES),
                                     detail="not offered here (DK Kernel-Tiling pages)")
    if not isinstance(tiling, np.ndarray) or not tiling.flags.c_contiguous:
        raise ParameterError(api, "tiling", type(tiling).__name__, device=device,
                             legal="the kernel's tiling argument: a C-contiguous numpy array (GM_ADDR)")
    data = tiling.reshape(-1).view(np.uint8)
    if data.size < size:
        raise OutOfBoundsError(api, "tiling", f"{data.size} bytes", device=device,
                               legal=f">= {size} bytes (the struct's size)")
    return data[:size]


def _read(api, struct_type, tiling, view):
    kind, size = _struct(api, struct_type)
    data = _tiling_bytes(api, tiling, size)
    if isinstance(kind, np.dtype):
        records = data.view(kind).view(np.recarray)
        return records[0] if view else records.copy()[0]
    if view and data.flags.writeable:
        return kind.from_buffer(data)
    return kind.from_buffer_copy(data.tobytes())


def REGISTER_TILING_DEFAULT(struct_type):
    """`REGISTER_TILING_DEFAULT(TilingData)`: the struct GET_TILING_DATA fills. C++ registers it at file scope, so it
    is module-level here (any thread or block sees it); registering again replaces it."""
    _struct("REGISTER_TILING_DEFAULT", struct_type)
    _DEFAULT[:] = [struct_type]


def GET_TILING_DATA(tiling):
    """`GET_TILING_DATA(tilingData, tiling)` is `tilingData = aj.GET_TILING_DATA(tiling)`: a copy of the registered
    default struct read from the tiling bytes. No struct registered is a StateError."""
    if not _DEFAULT:
        raise StateError("GET_TILING_DATA", detail="no TilingData registered: call "
                                                   "aj.REGISTER_TILING_DEFAULT(TilingData) first")
    return _read("GET_TILING_DATA", _DEFAULT[0], tiling, False)


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
    names = [f[0] for f in struct_type._fields_] if isinstance(record, ctypes.Structure) else record.dtype.names
    if member not in names:
        raise ParameterError(api, "member", member, legal=", ".join(names))
    return getattr(record, member)


__all__ = ["REGISTER_TILING_DEFAULT", "GET_TILING_DATA", "GET_TILING_DATA_WITH_STRUCT",
           "GET_TILING_DATA_PTR_WITH_STRUCT", "GET_TILING_DATA_MEMBER"]
