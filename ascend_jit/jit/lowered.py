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

from numba import types
from numba.core.imputils import lower_builtin
from numba.extending import type_callable


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
