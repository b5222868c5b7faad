"""The whole UB as a vector of another element type, without numba's `ndarray.view` (issue 20).

numba lowers every `a.view(T)` with a run-time compatibility check that is an `@overload` of its own, compiled once
per (array type, T) in every process that has no cache yet (0.1-0.3 s each), plus the error path's exception.
The UB is a C-contiguous uint8 vector whose length is a multiple of 32 and every typed access through it is at an
address the API layer proved aligned, so the reinterpretation needs no check: `ub_as(ub, np.uint16)` is the same
data pointer with the element size changed, emitted directly as LLVM IR. The plain Python function is the
NUMBA_DISABLE_JIT path and gives the same array (`ub.view(T)`).

`int_lanes(raw, width)` does the same for the integer lanes of one element width, the width given by the *type* of
a marker value (the element-wise kernels' integer class, jit/elementwise.py), so a kernel compiled for one width
holds that width's view alone.
"""
import numpy as np
from llvmlite import ir
from numba import types
from numba.core.imputils import impl_ret_borrowed
from numba.np import numpy_support
from numba.np.arrayobj import make_array, populate_array

from .lowered import c_uint8_vector, lowered


def ub_as(ub, dtype):
    """The whole UB (a uint8 vector) as a vector of `dtype` (a numpy scalar type: np.uint16, np.float32, ...)."""
    return ub.view(dtype)


def _reinterpret(target_of):
    """Codegen of the UB (args[0], a C-contiguous uint8 vector) as a vector of the numba type
    `target_of(sig)`: the same data, element size changed, the result borrowing the UB's reference."""
    def codegen(context, builder, sig, args):
        target = target_of(sig)
        src = make_array(sig.args[0])(context, builder, args[0])
        out = make_array(sig.return_type)(context, builder)
        intp = context.get_value_type(types.intp)
        size = ir.Constant(intp, context.get_abi_sizeof(context.get_data_type(target)))
        populate_array(out, data=builder.bitcast(src.data, out.data.type), shape=[builder.udiv(src.nitems, size)],
                       strides=[size], itemsize=size, meminfo=src.meminfo, parent=src.parent)
        return impl_ret_borrowed(context, builder, sig.return_type, out._getvalue())
    return codegen


def _vector_of(ub, target):
    return types.Array(target, 1, "C", readonly=not ub.mutable)


lowered(ub_as, (c_uint8_vector, lambda t: isinstance(t, types.NumberClass)),
        lambda ub, dtype: _vector_of(ub, dtype.instance_type), _reinterpret(lambda sig: sig.args[1].instance_type))


# The width markers (int_lanes' `width`): a marker's *type* is the element width, as the unsigned integer of that
# width, so a kernel taking one compiles one width's lane view and code alone (issue 20: a first int16 And compiled
# all eight integer views); the value is the width in bytes, so the API's entry keys of the widths differ
# (np.uint16(0) == np.uint32(0)).
INT_WIDTHS = {1: np.uint8(1), 2: np.uint16(2), 4: np.uint32(4), 8: np.uint64(8)}

# The lane type of each width marker's type: the unsigned integers of 1, 2 and 4 bytes, and int64 for 8 bytes (the
# 64-bit lanes hold the bit pattern in an int64, as the kernels' int64 buffers do).
_LANES = {np.dtype(np.uint8): np.uint8, np.dtype(np.uint16): np.uint16, np.dtype(np.uint32): np.uint32,
          np.dtype(np.uint64): np.int64}


def int_lanes(raw, width):
    """A C-contiguous uint8 vector (the UB or a run of it) as integer lanes of the element width that the type of
    the marker `width` gives: np.uint8 / np.uint16 / np.uint32 -> uint8 / uint16 / uint32 lanes, np.uint64 -> int64
    lanes."""
    return raw.view(_LANES[np.asarray(width).dtype])


def _lane_type(width):
    """The numba lane type of a width marker's numba type."""
    return numpy_support.from_dtype(np.dtype(_LANES[np.dtype(str(width))]))


lowered(int_lanes, (c_uint8_vector, lambda t: isinstance(t, types.Integer) and not t.signed),
        lambda raw, width: _vector_of(raw, _lane_type(width)), _reinterpret(lambda sig: _lane_type(sig.args[1])))
