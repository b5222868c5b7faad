"""Calling a compiled kernel without numba's per-call type dispatch (issue 21).

numba's dispatcher derives the numba type of every argument on every call (0.5-0.8 us for a dozen arguments) to
pick an overload. An API whose validation has already normalised its kernel arguments to fixed Python types
(ints, bools, the core's uint8 UB) knows the signature in advance: it asks for the machine-code entry of that one
overload once and calls it directly. The entry unboxes each argument as its signature type says and checks
nothing else, so callers pass exactly the types they proved; under NUMBA_DISABLE_JIT the plain function is used.
"""
import numpy as np
from numba import typeof
from numba.core import config


def compiled_entry(kernel, args):
    """The entry point of `kernel` for the numba types of `args`, loaded from the cache or compiled now."""
    if config.DISABLE_JIT or not hasattr(kernel, "compile"):
        return kernel
    return kernel.compile(tuple(typeof(a) for a in args))


class EntryTable:
    """Entry points memoised on a caller-chosen key that determines the argument types (e.g. algorithm and value
    type): the first call of a key compiles, every later call goes straight to machine code."""

    def __init__(self):
        self._entries = {}

    def __call__(self, key, kernel, *args):
        return self.get(key, kernel, args)(*args)

    def get(self, key, kernel, args):
        """The entry of `key` (compiled for the types of `args` on first use), for callers that keep it."""
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = compiled_entry(kernel, args)
        return entry


class PreparedCall:
    """One validated call shape's kernel call, ready to run (issue 21): `call.run(ub, call.params, *per_call)`.

    `params` is an int64 array holding every integer the call shape fixes (addresses, counts, strides, op code,
    element kind, mask words), built once by the validation that proved them, so the compiled entry unboxes two
    arrays and the few values that change per call (flags read from the core, scalar bits, dtype-class markers)
    instead of a dozen Python ints: numba's wrapper costs about 0.15 us for four arguments, 0.5 us for twenty.
    `run` is the compiled entry of `kernel` for the types of the first call's arguments, found through `entries`
    (an EntryTable) under `entry_key`, which must determine those types; until the first call it is a trampoline
    that resolves the entry and puts it in its place, so callers always call `run` and never test for it.

    Callers keep these objects in their memo of validated call shapes, next to whatever else a shape fixes (the
    element-wise family's plans subclass it and add the mask-register effect)."""
    __slots__ = ("run", "params", "_entries", "_entry_key", "_kernel")

    def __init__(self, entries, entry_key, kernel, params):
        self.params = np.array(params, np.int64)
        self._entries, self._entry_key, self._kernel = entries, entry_key, kernel
        self.run = self._first_run

    def _first_run(self, *args):
        self.run = self._entries.get(self._entry_key, self._kernel, args)
        return self.run(*args)
