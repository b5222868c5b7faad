"""Element types of the vector unit: name, storage size, numpy dtype, and the kernel kind code.

The kind code is what the @njit kernels branch on (outside their inner loops); it is an int so that one compiled
kernel serves every dtype without per-call recompilation.
"""
import sys

import numpy as np

from .errors import UnsupportedDTypeError


def loaded_bfloat16():
    """ml_dtypes' bfloat16 scalar type if ml_dtypes is imported, else None. A value, array or dtype can be a
    bfloat16 one only once ml_dtypes is imported, so a check for one needs no import of its own."""
    module = sys.modules.get("ml_dtypes")
    return None if module is None else module.bfloat16


def _bfloat16_np_dtype():
    # Imported on first use, not with ascend_jit: ml_dtypes 0.7 takes about 1.1 s to import (it registers the casts
    # of its 21 types at once; 0.6 took 0.05 s), and most processes (the CLI, children, integer or half work) never
    # touch a bfloat16 numpy value. The kernels work on the bits and never need it (docs/decisions.md "bfloat16
    # through ml_dtypes, imported when first needed").
    import ml_dtypes
    return np.dtype(ml_dtypes.bfloat16)


class DType:
    """One element type; the instances below are singletons (identity equality, a cheap hash) and immutable."""

    __slots__ = ("name", "size", "_np_dtype", "kind", "is_float", "is_signed")

    def __init__(self, name, size, np_dtype, kind, is_float, is_signed):
        for field, value in (("name", name), ("size", size), ("_np_dtype", np_dtype), ("kind", kind),
                             ("is_float", is_float), ("is_signed", is_signed)):
            object.__setattr__(self, field, value)   # size in bytes; kind: kernel kind code, jit/numerics.py KIND_*

    def __setattr__(self, field, value):
        raise AttributeError(f"DType {self.name} is immutable")

    def __delattr__(self, field):
        raise AttributeError(f"DType {self.name} is immutable")

    def __reduce__(self):   # pickled (to a worker process, say) by name: unpickles to the same singleton
        return _by_name, (self.name,)

    @property
    def np_dtype(self):
        """The numpy dtype of the host arrays (bfloat16: ml_dtypes', imported here on first use)."""
        if self._np_dtype is None:
            object.__setattr__(self, "_np_dtype", _bfloat16_np_dtype())
        return self._np_dtype

    @property
    def lanes_per_repeat(self):
        """SPEC 1.1: one repeat is 256 bytes."""
        return 256 // self.size

    @property
    def lanes_per_block(self):
        """SPEC 1.1: one DataBlock is 32 bytes."""
        return 32 // self.size

    def __repr__(self):
        return self.name


# Kind codes: the kernels' numerics switch. Keep in step with jit/numerics.py.
HALF = DType("half", 2, np.dtype(np.float16), 0, True, True)
FLOAT = DType("float", 4, np.dtype(np.float32), 1, True, True)
BFLOAT16 = DType("bfloat16", 2, None, 2, True, True)   # np_dtype on first use
INT8 = DType("int8", 1, np.dtype(np.int8), 3, False, True)
UINT8 = DType("uint8", 1, np.dtype(np.uint8), 4, False, False)
INT16 = DType("int16", 2, np.dtype(np.int16), 5, False, True)
UINT16 = DType("uint16", 2, np.dtype(np.uint16), 6, False, False)
INT32 = DType("int32", 4, np.dtype(np.int32), 7, False, True)
UINT32 = DType("uint32", 4, np.dtype(np.uint32), 8, False, False)
INT64 = DType("int64", 8, np.dtype(np.int64), 9, False, True)
UINT64 = DType("uint64", 8, np.dtype(np.uint64), 10, False, False)

ALL = (HALF, FLOAT, BFLOAT16, INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64)
BY_NAME = {d.name: d for d in ALL}
_ALIASES = {"float16": HALF, "fp16": HALF, "float32": FLOAT, "fp32": FLOAT, "bf16": BFLOAT16,
            "int16_t": INT16, "int32_t": INT32, "uint16_t": UINT16, "uint32_t": UINT32, "int8_t": INT8,
            "uint8_t": UINT8, "int64_t": INT64, "uint64_t": UINT64, "bfloat16_t": BFLOAT16,
            "float32_t": FLOAT,   # ge::float32_t, which ops-math's kernels write as T (port60b: Pow's IsSameType)
            # the C++ fundamental types kernels write as T (`Get<int>()`, `GlobalTensor<int>`): their widths on the
            # AI Core, not numpy's reading of the same words ("int" is numpy's int64; nn38). Plain `char`, whose
            # signedness the C++ standard leaves to the compiler, is not among them.
            "int": INT32, "signed int": INT32, "unsigned int": UINT32, "unsigned": UINT32, "short": INT16,
            "signed short": INT16, "unsigned short": UINT16, "signed char": INT8, "unsigned char": UINT8,
            "long long": INT64, "signed long long": INT64, "unsigned long long": UINT64}
_BY_NP = {d.np_dtype: d for d in ALL if d is not BFLOAT16}


def _by_name(name):   # DType.__reduce__: a pickled DType is its name
    return BY_NAME[name]


def numpy_dtype(dtype):
    """np.dtype(dtype), where the name "bfloat16" is ml_dtypes' (imported here if no one has yet; numpy knows the
    name only once it is)."""
    if isinstance(dtype, str) and dtype == "bfloat16":
        return BFLOAT16.np_dtype
    return np.dtype(dtype)


def from_np_dtype(np_dtype):
    """The DType whose host arrays have this numpy dtype, or None."""
    found = _BY_NP.get(np_dtype)
    if found is None and loaded_bfloat16() is not None and np_dtype == BFLOAT16.np_dtype:
        return BFLOAT16
    return found


# SPEC-2 D28: element types with no emulator dtype (names as the docs and numpy / ml_dtypes spell them)
_D28_PREFIXES = ("double", "float64", "bool", "complex", "int4", "fp4", "float4", "fp8", "float8", "hifloat8")


def _d28_name(dtype):
    """The lower-case name of an unresolvable dtype if it is one of SPEC-2 D28's out-of-scope types, else None."""
    if isinstance(dtype, str):
        name = dtype.lower()
    else:
        try:
            name = np.dtype(dtype).name.lower()
        except (TypeError, ValueError):   # as in resolve: numpy cannot read it, so it names no D28 type
            return None
    return name if name.startswith(_D28_PREFIXES) else None


def _d28_detail(dtype):
    """The refusal's detail for a SPEC-2 D28 type: bool data is uint8's bytes (one byte, 0 or 1), so say so."""
    name = _d28_name(dtype)
    if name is None:
        return None
    if name.startswith("bool"):
        return "no emulator dtype for it (SPEC-2 D28): use \"uint8\", the same bytes (host array.view(np.uint8))"
    return "no emulator dtype for it (SPEC-2 D28)"


def resolve(dtype, api="dtype", device=None):
    """Accept a DType, a name ('half', 'float16', 'int32_t', ...) or anything numpy accepts as a dtype. An unknown
    dtype is an UnsupportedDTypeError naming the API (and the device when given); SPEC-2 D28's types say so."""
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, str):
        key = dtype.lower()
        if key in BY_NAME:
            return BY_NAME[key]
        if key in _ALIASES:
            return _ALIASES[key]
    try:
        found = from_np_dtype(np.dtype(dtype))
    except (TypeError, ValueError):   # ValueError: an object whose `.dtype` numpy cannot read (a tensor, say)
        found = None
    if found is None:
        detail = _d28_detail(dtype) if not (isinstance(dtype, str) and dtype.lower() == "char") else (
            "C++ leaves plain char's signedness to the compiler: write int8_t (signed char) or uint8_t (unsigned char)")
        raise UnsupportedDTypeError(api, "dtype", dtype, legal=", ".join(d.name for d in ALL), device=device,
                                    detail=detail)
    return found
