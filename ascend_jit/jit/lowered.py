"""Plain Python helpers whose compiled form is a few LLVM instructions emitted in the caller (issue 20).

An `@overload` of a one-line helper (`lambda f: _f32_bits(np.float32(f))`) is a compiled function of its own: numba
runs its whole pipeline, typing, lowering and an LLVM module linked and optimised, once per argument signature in
every process that has no cache yet, 0.04-0.1 s each, about a tenth of a first VF's call (session 33 profile,
BENCHMARKS.md). `lowered` registers the helper with numba's low-level extension API instead (a typing template,
`type_callable`, and an implementation, `lower_builtin`): a compiled call is typed by a rule and emitted as the
codegen's instructions in the caller, the way numba lowers its own builtins, with no function and no pipeline of its
own. The plain Python function stays what Python and NUMBA_DISABLE_JIT run, so both paths give the same bits.
"""
import inspect
import operator

import numpy as np
from numba import types
from numba.core import cgutils
from numba.core.imputils import impl_ret_new_ref, lower_builtin
from numba.core.registry import cpu_target
from numba.cpython.builtins import do_minmax
from numba.extending import type_callable
from numba.np.arrayobj import _empty_nd_impl, _parse_shape


def uint8_vector(t):
    """A parameter that is a uint8 array (a register, the UB or a run of it), passed as it is."""
    return isinstance(t, types.Array) and t.dtype == types.uint8


def c_uint8_vector(t):
    """A parameter that is a C-contiguous one-dimensional uint8 array (the UB), passed as it is."""
    return uint8_vector(t) and t.ndim == 1 and t.layout == "C"


def lowered(pyfunc, params, result, codegen):
    """Give numba the compiled form of the plain Python function `pyfunc`.

    params: one entry per parameter: a numba number type (the argument, an int, float or bool, converted to it as
    numpy's scalar constructors convert it in compiled code: integers truncated or extended, floats rounded), or a
    predicate on the argument's numba type (the argument passed as it is).
    result: the result's numba type, or a function of the argument types giving it (None: a call it does not take,
    a typing error naming pyfunc).
    codegen(context, builder, sig, args): the result's LLVM value, `args` already converted.
    """
    def accepts(param, t):
        if isinstance(param, types.Type):
            return isinstance(t, (types.Number, types.Boolean))
        return param(t)

    @type_callable(pyfunc)
    def typing(context):
        def typer(*args):
            if len(args) != len(params) or not all(accepts(p, t) for p, t in zip(params, args)):
                return None
            return result if isinstance(result, types.Type) else result(*args)
        # numba binds the call to the typer's signature and folds the arguments by it: the helper's own parameters
        typer.__signature__ = inspect.signature(pyfunc)
        return typer

    @lower_builtin(pyfunc, types.VarArg(types.Any))
    def lower(context, builder, sig, args):
        converted = [context.cast(builder, a, t, p) if isinstance(p, types.Type) else a
                     for p, t, a in zip(params, sig.args, args)]
        return codegen(context, builder, sig, converted)

    return pyfunc


# --- new arrays without numba's np.empty / np.zeros overloads ----------------------------------------------------
# np.zeros compiles four functions of numba's own per (shape type, dtype) in every process with no cache yet
# (np.zeros, np.empty, the allocation and the zero fill: 0.4 s of a first VF's call, session 33 profile); these are
# the same allocation (numba's _empty_nd_impl, a C-contiguous array with its own meminfo) and the same memset,
# emitted in the caller. `shape` is an int or a tuple of ints, `dtype` a numpy scalar type (np.uint8,
# type(witness)) or an array's dtype. _parse_shape and _empty_nd_impl are numba's own (private) code generators for
# np.empty; tests/test_lowered.py pins what the kernels rely on.
def empty_array(shape, dtype):
    return np.empty(shape, dtype)


def zeroed_array(shape, dtype):
    return np.zeros(shape, dtype)


def _shape(t):
    return isinstance(t, types.Integer) or (isinstance(t, types.UniTuple) and isinstance(t.dtype, types.Integer))


def _dtype(t):
    return isinstance(t, (types.NumberClass, types.DType))


def _array_type(shape, dtype):
    element = dtype.instance_type if isinstance(dtype, types.NumberClass) else dtype.dtype
    return types.Array(element, len(shape) if isinstance(shape, types.BaseTuple) else 1, "C")


def _allocate(zero):
    def codegen(context, builder, sig, args):
        extents = _parse_shape(context, builder, sig.args[0], args[0])  # refuses a negative extent, as np.empty
        array = _empty_nd_impl(context, builder, sig.return_type, extents)
        if zero:
            cgutils.memset(builder, array.data, builder.mul(array.itemsize, array.nitems), 0)
        return impl_ret_new_ref(context, builder, sig.return_type, array._getvalue())
    return codegen


lowered(empty_array, (_shape, _dtype), _array_type, _allocate(False))
lowered(zeroed_array, (_shape, _dtype), _array_type, _allocate(True))


# --- a kernel's scratch on its stack -------------------------------------------------------------------------------
# A Reg kernel's per-call temporaries (the float32 lanes of an engine's sources and result) were np.empty arrays: an
# allocation and a free each, about 100 ns of a 64-lane Div's 113 ns in a VF (session 37). scratch_array(length,
# dtype) is a C-contiguous array of a literal length in the calling function's stack frame (an alloca in its entry
# block, once however often the call runs), with no memory owner: it must not outlive the call, so a kernel uses it
# only for temporaries it reads and writes itself or hands to callees, never returns or stores it. Its contents
# start undefined, as np.empty's.
def scratch_array(length, dtype):
    return np.empty(length, dtype)


def _scratch(context, builder, sig, args):
    array_type = sig.return_type
    element = context.get_data_type(array_type.dtype)
    length = sig.args[0].literal_value
    data = cgutils.alloca_once(builder, element, size=length)
    intp = context.get_value_type(types.intp)
    array = context.make_array(array_type)(context, builder)
    context.populate_array(array, data=data, shape=[intp(length)], strides=[intp(context.get_abi_sizeof(element))],
                           itemsize=intp(context.get_abi_sizeof(element)), meminfo=None)
    return array._getvalue()


lowered(scratch_array, (lambda t: isinstance(t, types.IntegerLiteral) and t.literal_value > 0, _dtype),
        lambda length, dtype: _array_type(length, dtype), _scratch)


# --- min and max of two numbers without numba's builtin overloads ------------------------------------------------
# numba's min/max compile an implementation of their own per argument signature (0.05 s each, every process with no
# cache yet). `smaller(a, b)` and `larger(a, b)` are Python's min(a, b) and max(a, b) (the first argument unless
# the second compares less / greater, so a NaN first argument is kept), typed and emitted exactly as numba's
# builtins are: the arguments' unified type, numba.cpython.builtins.do_minmax.
def smaller(a, b):
    return min(a, b)


def larger(a, b):
    return max(a, b)


def _number(t):
    return isinstance(t, types.Number)


def _unified(a, b):
    return cpu_target.typing_context.unify_types(a, b)


def _min_max(compare):
    return lambda context, builder, sig, args: do_minmax(context, builder, list(sig.args), args, compare)


lowered(smaller, (_number, _number), _unified, _min_max(operator.lt))
lowered(larger, (_number, _number), _unified, _min_max(operator.gt))
