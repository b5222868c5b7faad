"""Register values of the reductions: float32 holding a half/float value, int64 holding a 32/64-bit integer.

`combine` (one rounded add of the vector unit), `load` and `store` are specialised on the value type by
`@overload`, so one generic algorithm compiles once per value type; the plain Python bodies serve NUMBA_DISABLE_JIT.
"""
import numpy as np
from numba import types
from numba.extending import overload

from .ubview import ub_as

from .numerics import (KIND_HALF, KIND_INT16, KIND_INT32, KIND_UINT16, KIND_UINT32, float_store_bits,
                       half_bits_to_f32, half_store_bits, round_half)


def combine(x, y, kind, sat):
    """One rounded add of the vector unit on register values (Python path for NUMBA_DISABLE_JIT)."""
    if isinstance(x, (float, np.floating)):
        with np.errstate(all="ignore"):
            s = np.float32(x) + np.float32(y)
        return round_half(s, sat) if kind == KIND_HALF else s
    s = int(x) + int(y)
    if kind == KIND_INT32:
        return np.int64(((s + 2**31) % 2**32) - 2**31)
    if kind == KIND_UINT32:
        return np.int64(s % 2**32)
    return np.int64(((s + 2**63) % 2**64) - 2**63)


@overload(combine)
def _ol_combine(x, y, kind, sat):
    if isinstance(x, types.Float):
        def impl(x, y, kind, sat):
            s = x + y
            if kind == KIND_HALF:
                return round_half(s, sat)
            return s
        return impl

    def impl_int(x, y, kind, sat):
        s = x + y  # int64 wraps modulo 2**64
        if kind == KIND_INT32:
            return np.int64(np.int32(s))
        if kind == KIND_UINT32:
            return np.int64(s & 0xFFFFFFFF)
        return s
    return impl_int


def load(ub, addr, kind, witness):
    """Element at byte addr as a register value (Python path)."""
    if isinstance(witness, (float, np.floating)):
        if kind == KIND_HALF:
            return half_bits_to_f32(ub[addr:addr + 2].view(np.uint16)[0])
        return ub[addr:addr + 4].view(np.float32)[0]
    if kind == KIND_INT32:
        return np.int64(ub[addr:addr + 4].view(np.int32)[0])
    if kind == KIND_UINT32:
        return np.int64(ub[addr:addr + 4].view(np.uint32)[0])
    if kind == KIND_INT16:  # the 950 widening reductions (SPEC-2 8.1: int32 <- int16, uint32 <- uint16)
        return np.int64(ub[addr:addr + 2].view(np.int16)[0])
    if kind == KIND_UINT16:
        return np.int64(ub[addr:addr + 2].view(np.uint16)[0])
    return ub[addr:addr + 8].view(np.int64)[0]


@overload(load)
def _ol_load(ub, addr, kind, witness):
    if isinstance(witness, types.Float):
        def impl(ub, addr, kind, witness):  # addr is a multiple of the element size (SPEC 8.2, the APIs' checks)
            if kind == KIND_HALF:
                return half_bits_to_f32(ub_as(ub, np.uint16)[addr >> 1])
            return ub_as(ub, np.float32)[addr >> 2]
        return impl

    def impl_int(ub, addr, kind, witness):
        # assembled from the little-endian bytes: no typed view (each one is a compile of its own, issue 20)
        n = 8
        if kind == KIND_INT32 or kind == KIND_UINT32:
            n = 4
        elif kind == KIND_INT16 or kind == KIND_UINT16:
            n = 2
        v = np.int64(0)
        for c in range(n):
            v |= np.int64(ub[addr + c]) << (8 * c)  # the eighth byte wraps into the sign bit: int64 as stored
        if kind == KIND_INT32:
            return v - ((v & 0x80000000) << 1)
        if kind == KIND_INT16:
            return v - ((v & 0x8000) << 1)
        return v
    return impl_int


def store(ub, addr, kind, value):
    """Write a register value as an element of `kind` (canonical NaN, integer truncation)."""
    if isinstance(value, (float, np.floating)):
        if kind == KIND_HALF:
            ub[addr:addr + 2].view(np.uint16)[0] = half_store_bits(np.float32(value))
        else:
            ub[addr:addr + 4].view(np.uint32)[0] = float_store_bits(np.float32(value))
    elif kind == KIND_INT32 or kind == KIND_UINT32:
        ub[addr:addr + 4].view(np.uint32)[0] = np.uint32(int(value) & 0xFFFFFFFF)
    else:
        ub[addr:addr + 8].view(np.int64)[0] = np.int64(value)


@overload(store)
def _ol_store(ub, addr, kind, value):
    if isinstance(value, types.Float):
        def impl(ub, addr, kind, value):  # addr is a multiple of the element size (SPEC 8.2, the APIs' checks)
            if kind == KIND_HALF:
                ub_as(ub, np.uint16)[addr >> 1] = half_store_bits(value)
            else:
                ub_as(ub, np.uint32)[addr >> 2] = float_store_bits(value)
        return impl

    def impl_int(ub, addr, kind, value):  # little-endian bytes, as impl_int of load
        n = 4 if (kind == KIND_INT32 or kind == KIND_UINT32) else 8
        for c in range(n):
            ub[addr + c] = np.uint8((value >> (8 * c)) & 0xFF)
    return impl_int
