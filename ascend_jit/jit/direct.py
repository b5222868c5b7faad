"""Calling a compiled kernel without numba's per-call type dispatch (issue 21).

numba's dispatcher derives the numba type of every argument on every call (0.5-0.8 us for a dozen arguments) to
pick an overload. An API whose validation has already normalised its kernel arguments to fixed Python types
(ints, bools, the core's uint8 UB) knows the signature in advance: it asks for the machine-code entry of that one
overload once and calls it directly. The entry unboxes each argument as its signature type says and checks
nothing else, so callers pass exactly the types they proved; under NUMBA_DISABLE_JIT the plain function is used.
"""
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
