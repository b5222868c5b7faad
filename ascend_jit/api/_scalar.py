"""Scalar arguments of the tensor-scalar, fill, compare/select and padding APIs (SPEC-2 D29).

A numpy scalar of exactly the operand dtype is used bit for bit. A Python float (or a numpy float of another width)
is converted to the operand type with one RNE rounding (overflow to +-inf, never saturated, subnormals kept, NaN to
the canonical NaN of decisions.md). A Python int for a float operand is converted the same way (exactly: no detour
through a double that could round twice); for an integer operand it must lie in the type's range. bool is refused.
"""
import math
import struct
from fractions import Fraction

import numpy as np

from ..dtypes import loaded_bfloat16
from ..errors import OutOfBoundsError, ParameterError, UnsupportedDeviceError, UnsupportedDTypeError
from ..tensor import LocalTensor

_CANONICAL_NAN = {"half": 0x7E00, "float": 0x7FC00000, "bfloat16": 0x7FC0}


def scalar_bits(api, spec, dtype, value, name="scalar"):
    """The operand-dtype bit pattern (a Python int, unsigned) of a scalar argument, per D29."""
    if type(value) is dtype.np_dtype.type:  # the common call: a numpy scalar of exactly the operand type
        return int.from_bytes(value.tobytes(), "little")  # D29: used bit for bit
    device = spec.name if spec is not None else None
    if isinstance(value, (bool, np.bool_)):
        raise ParameterError(api, name, value, legal=f"a {dtype.name} value (bool is refused, SPEC-2 D29)",
                             device=device)
    if isinstance(value, np.generic) and value.dtype == dtype.np_dtype:
        return int.from_bytes(value.tobytes(), "little")  # D29: the exact dtype is used bit for bit
    if dtype.is_float:
        exact = _as_exact_real(api, device, dtype, value, name)
        return _round_to_float_bits(dtype.name, exact)
    if isinstance(value, (int, np.integer)):
        v = int(value)
        lo, hi = _INT_RANGE[dtype.name]
        if not lo <= v <= hi:
            raise ParameterError(api, name, v, legal=f"[{lo}, {hi}] for {dtype.name} (no implicit wrap, SPEC-2 D29)",
                                 device=device)
        return v & ((1 << (dtype.size * 8)) - 1)
    raise ParameterError(api, name, value, legal=f"an integer in the range of {dtype.name} (SPEC-2 D29: floats and "
                         "other types are refused for integer operands)", device=device, detail=_given(value))


def _given(value):
    """What a refused array scalar was: its printed value looks legal (port64g: a field of a 0-d structured tiling
    record is a 0-d array, which prints as its number); None for any other value, whose type its value shows (and
    whose refusal a compiled Reg VF words alike)."""
    if not isinstance(value, np.ndarray):
        return None
    shape = "a 0-d numpy array" if value.ndim == 0 else f"a numpy array of shape {value.shape}"
    return f"got {shape}; a scalar operand is one value: its element, x[()] or np.{value.dtype}(x)" + (
        "" if value.ndim == 0 else ", for one element")


# A Python float below the magnitude that rounds to inf: numpy's double -> half / float conversion rounds once to
# nearest even and keeps subnormals (D29, as the struct packing below), at a quarter of the bit-level path's cost;
# NaN, +-inf and overflowing values take that path.
_DIRECT_FLOAT = {"half": (np.float16, 65520.0), "float": (np.float32, 2.0 ** 128 - 2.0 ** 103)}
_DOUBLE_EXACT = 1 << 53   # every int of at most this magnitude is a double exactly
_INT_RANGE = {name: ((-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1) if signed else (0, (1 << (8 * size)) - 1))
              for name, size, signed in (("int8", 1, True), ("uint8", 1, False), ("int16", 2, True),
                                         ("uint16", 2, False), ("int32", 4, True), ("uint32", 4, False),
                                         ("int64", 8, True), ("uint64", 8, False))}


def scalar_value(api, spec, dtype, value, name="scalar"):
    """The same scalar as a numpy scalar of the operand dtype (bits of `scalar_bits`)."""
    kind = type(value)
    if kind is int and not dtype.is_float:  # SetValue(i, 7) into an integer tensor: inside the range, as it is
        lo, hi = _INT_RANGE[dtype.name]
        if lo <= value <= hi:
            return dtype.np_dtype.type(value)
    elif (kind is float or kind is int and -_DOUBLE_EXACT <= value <= _DOUBLE_EXACT) and dtype.is_float:
        direct = _DIRECT_FLOAT.get(dtype.name)  # SetValue(i, 1.5) or (i, 0): a Python float or small int
        if direct is not None and -direct[1] < value < direct[1]:
            return direct[0](float(value))
        bits = _round_to_float_bits(dtype.name, float(value))  # exact for these ints
        return np.frombuffer(bits.to_bytes(dtype.size, "little"), dtype.np_dtype)[0]
    bits = scalar_bits(api, spec, dtype, value, name)
    return np.frombuffer(bits.to_bytes(dtype.size, "little"), dtype.np_dtype)[0]


def _as_exact_real(api, device, dtype, value, name):
    """A float (possibly inf/nan) or an int, holding the argument's exact value."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, float):
        return value
    if isinstance(value, np.floating) or type(value).__module__ == "ml_dtypes":
        try:
            as_double = float(value)
        except (TypeError, ValueError):
            as_double = None
        if as_double is not None and (isinstance(value, np.floating) is False or np.finfo(value.dtype).bits <= 64):
            return as_double  # every numpy float up to 64 bits (and ml_dtypes' types) is exact as a double
        if as_double is not None and (as_double == 0 or not math.isfinite(float(value))):
            return as_double  # a wider float's zeros (with their sign), infinities and NaNs
        if as_double is not None:
            return Fraction(*value.as_integer_ratio())  # a wider numpy float (longdouble): its exact value
    raise ParameterError(api, name, value, legal=f"a {dtype.name} value: a Python float or int, or a numpy scalar "
                         "(SPEC-2 D29)", device=device, detail=_given(value))


def _round_to_float_bits(name, x):
    """RNE of the exact real x (int or double) to half / float / bfloat16 bits; overflow to inf (D29)."""
    if isinstance(x, float) and math.isnan(x):
        return _CANONICAL_NAN[name]
    if isinstance(x, int):
        x = _int_to_double_round_odd(x)
    elif isinstance(x, Fraction):
        x = _fraction_to_double_round_odd(x)
    if name == "half":
        return _packed_bits(_HALF_PACKING, x, 0x7C00, 0x8000)
    if name == "float":
        return _packed_bits(_FLOAT_PACKING, x, 0x7F800000, 0x80000000)
    return _f32_odd_to_bf16(_double_to_f32_round_odd(x))


# CPython's IEEE packing of a double (struct's 'e' and 'f' formats, PyFloat_Pack2 / PyFloat_Pack4) rounds once to
# nearest even and keeps subnormals, as numpy's double -> half / float casts do, at 0.26 us against numpy's 2.3 us
# a scalar; past the largest finite value it raises OverflowError where D29 wants +-inf.
_HALF_PACKING = (struct.Struct("<e"), struct.Struct("<H"))
_FLOAT_PACKING = (struct.Struct("<f"), struct.Struct("<I"))


def _packed_bits(packing, x, inf_bits, sign_bit):
    """The bits of the double x (not NaN) rounded once to nearest even into the packing's type; overflow to
    +-inf (D29)."""
    packer, reader = packing
    try:
        return reader.unpack(packer.pack(x))[0]
    except OverflowError:
        return inf_bits | (sign_bit if x < 0 else 0)


def _int_to_double_round_odd(n):
    """Round-to-odd of an int to 53 bits: a later RNE to <= 51 bits then rounds once (no double rounding)."""
    m = abs(n)
    if m.bit_length() <= 53:
        return float(n)
    if m.bit_length() > 1024:  # past every double (and so every element type): D29's overflow to +-inf
        return -math.inf if n < 0 else math.inf
    shift = m.bit_length() - 53
    top = m >> shift
    if m & ((1 << shift) - 1):
        top |= 1
    return math.copysign(math.ldexp(float(top), shift), -1.0 if n < 0 else 1.0)


def _fraction_to_double_round_odd(q):
    """Round-to-odd of a non-zero rational to 53 bits, as _int_to_double_round_odd (a longdouble scalar's value)."""
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()  # 2**(e-1) <= a < 2**(e+1)
    if Fraction(2) ** e > a:
        e -= 1
    if e > 1023:
        return -math.inf if q < 0 else math.inf
    shift = 52 - e  # 2**52 <= a * 2**shift < 2**53
    scaled = a * Fraction(2) ** shift
    top = scaled.numerator // scaled.denominator
    if top * scaled.denominator != scaled.numerator:
        top |= 1
    return math.copysign(math.ldexp(float(top), -shift), -1.0 if q < 0 else 1.0)


def _double_to_f32_round_odd(x):
    """float32 bits of x rounded to odd (exactly representable results unchanged)."""
    if math.isinf(x):
        return 0x7F800000 | (0x80000000 if x < 0 else 0)
    packer, reader = _FLOAT_PACKING
    try:
        bits = reader.unpack(packer.pack(x))[0]
    except OverflowError:  # RNE would give inf: rounded to odd, x is the largest finite float with its sticky bit
        return 0x7F7FFFFF | (0x80000000 if x < 0 else 0)
    sign = bits & 0x80000000
    mag = bits & 0x7FFFFFFF
    nearest = packer.unpack(reader.pack(mag))[0]
    ax = abs(x)
    if nearest == ax:
        return bits
    if nearest > ax:   # RNE rounded away from zero (possibly to inf): step back towards zero
        mag -= 1
    return sign | mag | 1


def _f32_odd_to_bf16(bits):
    mag = bits & 0x7FFFFFFF
    sign = (bits >> 16) & 0x8000
    if mag > 0x7F800000:
        return 0x7FC0
    rounded = (mag + 0x7FFF + ((mag >> 16) & 1)) >> 16
    return sign | min(rounded, 0x7F80)


def ToFloat(value):
    """`AscendC::ToFloat(bfloat16_t)`: the scalar unit's bfloat16 -> float conversion, exact (a bfloat16 is a float
    with its low 16 bits zero). Takes a bfloat16 scalar as GetValue returns it (an ml_dtypes.bfloat16)."""
    bfloat16 = loaded_bfloat16()   # None: ml_dtypes is not imported, so value is no bfloat16
    if bfloat16 is None or getattr(value, "dtype", None) != np.dtype(bfloat16) or np.ndim(value) != 0:
        raise ParameterError("ToFloat", "value", value, legal="a bfloat16 scalar (e.g. from a bfloat16 tensor's "
                             "GetValue)")
    return np.float32(value)


def ToBfloat16(value):
    """`AscendC::ToBfloat16(float)`: the scalar unit's float -> bfloat16 narrowing, ToFloat's inverse. The page gives
    no rounding; the emulator rounds once to nearest even, as it converts every float scalar for a bfloat16 operand
    (SPEC-2 D29; NaN to the canonical 0x7FC0, overflow to inf; docs/decisions.md "Kernel gallery"). Takes a Python
    float or int or a numpy scalar; returns an ml_dtypes.bfloat16 (what a bfloat16 tensor's SetValue takes bit for
    bit)."""
    from ..dtypes import BFLOAT16
    return scalar_value("ToBfloat16", None, BFLOAT16, value, "value")


def element_scalar(api, core, dtype, scalar, name="scalar"):
    """(scalar, None), or for the 950's overloads taking the scalar as a one-element LocalTensor (`src1Local[0]`:
    Compares, Select, LeakyRelu; devkit include/basic_api "one of src0/src1 should be scalar
    or single point LocalTensor"; docs/decisions.md "Kernel gallery"): (that element's value, the tensor). The vector
    unit reads the element when the instruction runs, bit for bit (it has the operand type); the other devices take
    a value only. Checked before anything is written."""
    if type(scalar) is not LocalTensor:
        return scalar, None
    spec = core.spec
    if spec.name != "ascend950":
        raise UnsupportedDeviceError(api, name, "a LocalTensor", device=spec.name, legal="a scalar value",
                                     detail="a LocalTensor element as the scalar (src1Local[0]) is an ascend950 "
                                            "overload")
    if scalar._lease is not None:
        scalar.check_alive(api, name)
    if scalar._core is not core:
        raise ParameterError(api, name, scalar, legal="a LocalTensor of the same Core as dst", device=spec.name,
                             detail="belongs to another core")
    if scalar.dtype is not dtype:
        raise UnsupportedDTypeError(api, f"{name}.dtype", scalar.dtype.name, legal=f"{dtype.name} (as src0)",
                                    device=spec.name)
    if scalar.size < 1 and core.bounds != "ub":
        raise OutOfBoundsError(api, name, f"bytes [{scalar.addr}, {scalar.addr + dtype.size})", device=spec.name,
                               legal="a tensor holding at least one element", detail="the element lies outside it")
    if scalar.addr + dtype.size > spec.ub_bytes:
        raise OutOfBoundsError(api, name, f"bytes [{scalar.addr}, {scalar.addr + dtype.size})", device=spec.name,
                               legal=f"inside the UB [0, {spec.ub_bytes})")
    return core.ub[scalar.addr:scalar.addr + dtype.size].view(dtype.np_dtype)[0], scalar
