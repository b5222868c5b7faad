"""Reference numerics (SPEC 5): values are Python floats / ints holding exactly a value of the element type.

Sums of two halves, two bfloat16 or two floats are exact in float64 (at most 2*24+... bits apart within the 53-bit
significand for half; for float32 the float64 sum rounded to float32 is correct since 53 >= 2*24+2), so each add
is `round_T(x + y)` with one rounding, then the overflow mode.
"""
import math
from collections.abc import Mapping

import numpy as np

NAN_BITS = {"half": 0x7E00, "float": 0x7FC00000, "bfloat16": 0x7FC0}
INT_RANGE = {"int8": (-2**7, 2**7 - 1), "uint8": (0, 2**8 - 1), "int16": (-2**15, 2**15 - 1), "uint16": (0, 2**16 - 1),
             "int32": (-2**31, 2**31 - 1), "uint32": (0, 2**32 - 1), "int64": (-2**63, 2**63 - 1),
             "uint64": (0, 2**64 - 1)}
SIZES = {"half": 2, "float": 4, "bfloat16": 2, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4,
         "int64": 8, "uint64": 8}


class _ScalarTypes(Mapping):
    """Element type name -> numpy scalar type. bfloat16's is ml_dtypes', imported at its first look-up rather than
    with the package (ml_dtypes 0.7 takes about 1.1 s to import; docs/decisions.md "bfloat16 through ml_dtypes,
    imported when first needed")."""

    _NUMPY = {"half": np.float16, "float": np.float32, "int8": np.int8, "uint8": np.uint8, "int16": np.int16,
              "uint16": np.uint16, "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64}

    def __getitem__(self, name):
        if name == "bfloat16":
            import ml_dtypes
            return ml_dtypes.bfloat16
        return self._NUMPY[name]

    def __iter__(self):   # every element type, as SIZES names them
        return iter(SIZES)

    def __len__(self):
        return len(SIZES)


NP_TYPES = _ScalarTypes()
HALF_MAX = 65504.0


def is_float(dtype):
    return dtype in ("half", "float", "bfloat16")


def decode(dtype, raw):
    """Element bytes -> Python value."""
    v = np.frombuffer(bytes(raw), dtype=NP_TYPES[dtype])[0]
    return float(v) if is_float(dtype) else int(v)


def encode(dtype, value):
    """Python value (already representable) -> element bytes; NaN as the canonical quiet NaN."""
    if is_float(dtype) and value != value:
        return NAN_BITS[dtype].to_bytes(SIZES[dtype], "little")
    return np.array([value], dtype=NP_TYPES[dtype]).tobytes()


def round_to(dtype, x):
    """Round a float64 to the nearest value of `dtype`, ties to even, IEEE overflow to inf."""
    with np.errstate(all="ignore"):
        return float(np.array([x], np.float64).astype(NP_TYPES[dtype])[0])


def add(dtype, x, y, sat_half=False, sat_int=False):
    """One rounded add of the vector unit (SPEC 5.2-5.4, D6, D21)."""
    if is_float(dtype):
        if dtype == "bfloat16":  # SPEC 5.1: round-to-bf16 of the fp32 add
            return round_to("bfloat16", round_to("float", x + y))
        r = round_to(dtype, x + y)
        if dtype == "half" and sat_half:
            if r != r:
                return 0.0
            if math.isinf(r):
                return math.copysign(HALF_MAX, r)
        return r
    lo, hi = INT_RANGE[dtype]
    s = x + y
    if sat_int and dtype in ("int16", "int32"):
        return min(max(s, lo), hi)
    return (s - lo) % (hi - lo + 1) + lo
