"""The devkit's kernel-side scalar helpers that vector kernels call between instructions: integer rounding
(DivCeil, AlignUp, ConstCeil), the scalar unit's bit queries (GetBitCount, CountLeadingZero, GetSFFValue,
CountBitsCntSameAsSignBit and their older Scalar* names), the 950's fast-division constants
(GetUintDivMagicAndShift), IsSameType and NumericLimits. The SPECs are silent on them; they follow
mirror-cann/asc-devkit @ 82b89a15 (pages under docs/zh/api/SIMD-API/基础API/, implementations in
impl/basic_api/kernel_scalar.h, impl/basic_api/utils/kernel_utils_ceil_oom_que.h,
include/basic_api/kernel_operator_limits_intf.h) and docs/decisions.md "Kernel utilities".

Python has no out-parameters, so GetUintDivMagicAndShift returns (magic, shift); template arguments are keywords
(`GetBitCount<1>(v)` is `aj.GetBitCount(v, count_value=1)`), as everywhere in the package (DESIGN.md)."""
import numpy as np

from ..dtypes import resolve
from ..errors import ParameterError, UnsupportedDeviceError, UnsupportedDTypeError
from ._common import as_int
from ._scalar import scalar_value

_U32_MAX, _U64_MAX = 2**32 - 1, 2**64 - 1
# the product lists of 标量计算/GetBitCount.md, CountLeadingZero.md, GetSFFValue.md, CountBitsCntSameAsSignBit.md
_SCALAR_BIT_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore")


def _uint32_operands(api, a, b):
    """The two uint32_t operands of DivCeil / AlignUp / ConstCeil. A zero divisor is refused: C++ integer division
    by zero is undefined, the device gives no documented value."""
    a = as_int(api, None, "a", a, 0, _U32_MAX)
    b = as_int(api, None, "b", b, 1, _U32_MAX)
    return a, b


def DivCeil(a, b):
    """`AscendC::DivCeil(a, b)`: (a + b - 1) / b in uint32_t arithmetic (kernel_utils_ceil_oom_que.h), so the sum
    wraps modulo 2**32 as the C++ does: DivCeil(0xFFFFFFFF, 2) is 0. a, b: integers in [0, 2**32 - 1], b > 0."""
    a, b = _uint32_operands("DivCeil", a, b)
    return ((a + b - 1) & _U32_MAX) // b


def ConstCeil(a, b):
    """`AscendC::ConstCeil(a, b)`: the constexpr twin of DivCeil, the same uint32_t arithmetic."""
    a, b = _uint32_operands("ConstCeil", a, b)
    return ((a + b - 1) & _U32_MAX) // b


def AlignUp(a, b):
    """`AscendC::AlignUp(a, b)`: DivCeil(a, b) * b in uint32_t arithmetic (the product wraps modulo 2**32 too)."""
    a, b = _uint32_operands("AlignUp", a, b)
    return (((a + b - 1) & _U32_MAX) // b * b) & _U32_MAX


def IsSameType(t, u):
    """`AscendC::IsSameType<T, U>::value`: whether two element types are the same type. Either may be a dtype name
    ("half", "float16", "int32_t"), a numpy dtype or type, or an aj DType, so `IsSameType(T, "half")` holds for a
    kernel's T given as np.float16 too. A name that is no dtype is an UnsupportedDTypeError."""
    return resolve(t, "IsSameType") is resolve(u, "IsSameType")


def _scalar_device(api):
    from ..core import current_core   # core imports api modules indirectly: bound at the call
    device = current_core(api).device
    if device not in _SCALAR_BIT_DEVICES:
        raise UnsupportedDeviceError(api, "device", device, legal=", ".join(_SCALAR_BIT_DEVICES),
                                     detail="the scalar unit's bit instructions are not offered here "
                                            "(DK 标量计算 pages)")
    return device


def _count_value(api, device, count_value):
    # as_int's rule (decisions.md "Integer parameters"): `count_value not in (0, 1)` let 1.0 and np.array(1) through
    # and raised numpy's ValueError for an array, Python's TypeError for a complex
    return as_int(api, device, "count_value", count_value, 0, 1)


def GetBitCount(value_in, *, count_value):
    """`GetBitCount<countValue>(valueIn)` (DK 标量计算/GetBitCount.md): how many bits of the uint64_t valueIn are
    `count_value` (0 or 1). 950, A2, A3, 310P."""
    device = _scalar_device("GetBitCount")
    count_value = _count_value("GetBitCount", device, count_value)
    value_in = as_int("GetBitCount", device, "value_in", value_in, 0, _U64_MAX)
    ones = bin(value_in).count("1")
    return ones if count_value else 64 - ones


def ScalarGetCountOfValue(value_in, *, count_value):
    """`ScalarGetCountOfValue<countValue>(valueIn)`: GetBitCount's older name (the devkit forwards to it)."""
    return GetBitCount(value_in, count_value=count_value)


def CountLeadingZero(value_in):
    """`CountLeadingZero(valueIn)` (DK 标量计算/CountLeadingZero.md): the zero bits of the uint64_t valueIn above its
    highest one, 64 for 0. 950, A2, A3, 310P."""
    device = _scalar_device("CountLeadingZero")
    value_in = as_int("CountLeadingZero", device, "value_in", value_in, 0, _U64_MAX)
    return 64 - value_in.bit_length()


def ScalarCountLeadingZero(value_in):
    """`ScalarCountLeadingZero(valueIn)`: CountLeadingZero's older name (the devkit forwards to it)."""
    return CountLeadingZero(value_in)


def GetSFFValue(value_in, *, count_value):
    """`GetSFFValue<countValue>(valueIn)` (DK 标量计算/GetSFFValue.md): the position, counted from the least
    significant bit, of the first bit of the uint64_t valueIn equal to `count_value`; -1 when there is none.
    950, A2, A3, 310P."""
    device = _scalar_device("GetSFFValue")
    count_value = _count_value("GetSFFValue", device, count_value)
    value_in = as_int("GetSFFValue", device, "value_in", value_in, 0, _U64_MAX)
    bits = value_in if count_value else value_in ^ _U64_MAX
    return (bits & -bits).bit_length() - 1     # the lowest set bit's index; -1 for 0


def ScalarGetSFFValue(value_in, *, count_value):
    """`ScalarGetSFFValue<countValue>(valueIn)`: GetSFFValue's older name (the devkit forwards to it)."""
    return GetSFFValue(value_in, count_value=count_value)


def CountBitsCntSameAsSignBit(value_in):
    """`CountBitsCntSameAsSignBit(valueIn)` (DK 标量计算/CountBitsCntSameAsSignBit.md): how many consecutive bits
    below the sign bit of the int64_t valueIn equal it; -1 for 0 and -1 (every bit equal), as the page says.
    950, A2, A3, 310P."""
    device = _scalar_device("CountBitsCntSameAsSignBit")
    value_in = as_int("CountBitsCntSameAsSignBit", device, "value_in", value_in, -2**63, 2**63 - 1)
    if value_in in (0, -1):
        return -1
    magnitude = value_in if value_in >= 0 else ~value_in    # the bits that differ from the sign bit
    return 63 - magnitude.bit_length()


_MAGIC_DTYPES = ("uint32", "uint64")


def GetUintDivMagicAndShift(divisor, dtype=None):
    """`GetUintDivMagicAndShift<T>(magic, shift, divisor)` (950; DK impl/basic_api/kernel_scalar.h, no page): the
    multiplier and shift that turn an unsigned division by `divisor` into a multiply-high, an add and a shift
    (q = (mulhi(n, magic) + n) >> shift). Returns (magic, shift) as numpy scalars of T, T in uint32 / uint64: the
    dtype of a numpy divisor, or `dtype=` (required for a Python int). shift is the divisor's bit length, one less
    for a power of two; magic is 2**N * (2**shift - divisor) // divisor + 1 truncated to T (N = 32 or 64), the
    devkit's formula for uint32 and the value its 64-step long division computes for uint64. The divisor must lie in
    [1, INT32_MAX] (uint32) or [1, INT64_MAX] (uint64), the devkit's CPU-debug assertions."""
    api = "GetUintDivMagicAndShift"
    from ..core import current_core
    device = current_core(api).device
    if device != "ascend950":
        raise UnsupportedDeviceError(api, "device", device, legal="ascend950",
                                     detail="the devkit compiles it for __NPU_ARCH__ 3510 only")
    if dtype is None:
        if not isinstance(divisor, (np.uint32, np.uint64)):
            raise ParameterError(api, "dtype", None, device=device,
                                 legal="'uint32' or 'uint64' (T), or a np.uint32 / np.uint64 divisor to take T from")
        dtype = divisor.dtype
    kind = resolve(dtype, api, device)
    if kind.name not in _MAGIC_DTYPES:
        raise UnsupportedDTypeError(api, "T", kind.name, legal=", ".join(_MAGIC_DTYPES), device=device)
    bits = kind.size * 8
    divisor = as_int(api, device, "divisor", divisor, 1, 2**(bits - 1) - 1)
    shift = divisor.bit_length() - (1 if divisor & (divisor - 1) == 0 else 0)
    magic = ((((1 << shift) - divisor) << bits) // divisor + 1) & ((1 << bits) - 1)
    return kind.np_dtype.type(magic), kind.np_dtype.type(shift)


# NumericLimits<T> bit patterns (include/basic_api/kernel_operator_limits_intf.h): name -> {dtype: bits}
_INTEGER_LIMITS = {"uint8": (0xFF, 0x00), "int8": (0x7F, 0x80), "uint16": (0xFFFF, 0x0000), "int16": (0x7FFF, 0x8000),
                   "uint32": (0xFFFFFFFF, 0), "int32": (0x7FFFFFFF, 0x80000000)}      # (Max, Lowest = Min)
_FLOAT_LIMITS = {   # Max, Lowest, Min, Infinity, NegativeInfinity, QuietNaN, SignalingNaN, DeNormMin
    "half": (0x7BFF, 0xFBFF, 0x0400, 0x7C00, 0xFC00, 0x7E00, 0x7D00, 0x0001),
    "float": (0x7F7FFFFF, 0xFF7FFFFF, 0x00800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FA00000, 0x00000001),
    "bfloat16": (0x7F7F, 0xFF7F, 0x0080, 0x7F80, 0xFF80, 0x7FC0, 0x7FA0, 0x0001)}
_FLOAT_MEMBERS = ("Max", "Lowest", "Min", "Infinity", "NegativeInfinity", "QuietNaN", "SignalingNaN", "DeNormMin")
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}


class NumericLimits:
    """`AscendC::NumericLimits<T>` (DK 工具接口/NumericLimits工具类/; the Ascend 950 only, as every member page
    says): `aj.NumericLimits("float").Max()` is `NumericLimits<float>::Max()`, a numpy scalar of T with the
    header's bit pattern (NaNs and DeNormMin included, bit for bit); `aj.NumericLimits("float").Max(dst, count)`
    fills dst's first count elements with it by the count-form Duplicate, as the header does. Max, Lowest, Min
    take int8/uint8/int16/uint16/int32/uint32/half/bfloat16/float; Infinity, NegativeInfinity, QuietNaN,
    SignalingNaN, DeNormMin the three float types."""

    def __init__(self, dtype):
        from ..core import current_core
        device = current_core("NumericLimits").device
        if device != "ascend950":
            raise UnsupportedDeviceError("NumericLimits", "device", device, legal="ascend950",
                                         detail="not offered here (DK NumericLimits工具类 pages)")
        self.dtype = resolve(dtype, "NumericLimits", device)
        if self.dtype.name not in _INTEGER_LIMITS and self.dtype.name not in _FLOAT_LIMITS:
            raise UnsupportedDTypeError("NumericLimits", "T", self.dtype.name, device=device,
                                        legal=", ".join((*_INTEGER_LIMITS, *_FLOAT_LIMITS)))
        self.device = device

    def _value(self, member):
        name = self.dtype.name
        if name in _FLOAT_LIMITS:
            bits = _FLOAT_LIMITS[name][_FLOAT_MEMBERS.index(member)]
        elif member in ("Max", "Lowest", "Min"):
            bits = _INTEGER_LIMITS[name][0 if member == "Max" else 1]
        else:
            raise UnsupportedDTypeError(f"NumericLimits.{member}", "T", name, device=self.device,
                                        legal="half, bfloat16, float")
        return np.array(bits, dtype=_UINT[self.dtype.size]).view(self.dtype.np_dtype)[()]

    def _member(self, member, dst, count):
        value = self._value(member)
        if dst is None and count is None:
            return value
        from .elementwise import Duplicate   # elementwise imports this package's modules
        if dst is None or count is None or getattr(dst, "dtype", None) is not self.dtype:
            raise ParameterError(f"NumericLimits.{member}", "dst", type(dst).__name__, device=self.device,
                                 legal=f"a {self.dtype.name} LocalTensor and a count, both or neither")
        Duplicate(dst, value, count)
        return None

    def Max(self, dst=None, count=None):
        return self._member("Max", dst, count)

    def Lowest(self, dst=None, count=None):
        return self._member("Lowest", dst, count)

    def Min(self, dst=None, count=None):
        return self._member("Min", dst, count)

    def Infinity(self, dst=None, count=None):
        return self._member("Infinity", dst, count)

    def NegativeInfinity(self, dst=None, count=None):
        return self._member("NegativeInfinity", dst, count)

    def QuietNaN(self, dst=None, count=None):
        return self._member("QuietNaN", dst, count)

    def SignalingNaN(self, dst=None, count=None):
        return self._member("SignalingNaN", dst, count)

    def DeNormMin(self, dst=None, count=None):
        return self._member("DeNormMin", dst, count)


# --- GM scalar access bypassing the data cache (DK 标量计算/ReadGmByPassDCache(ISASI).md, WriteGmByPassDCache) ------
_DCACHE_BYPASS_DEVICES = ("ascend950", "atlas-a3", "atlas-a2")   # the pages' product lists
_DCACHE_BYPASS_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")


def _bypass_address(api, addr):
    """The GlobalTensor whose element 0 is `addr` (C++ `(__gm__ T*)gm + k` is `g[k]` here), on the pages' devices
    and integer types. The emulator has no data cache: the access is the scalar unit's GetValue / SetValue of that
    element (the sanitizer's cross-block GM check sees it as one, and its data-cache check as an access that goes
    past the cache, under the API's own name)."""
    from ..core import current_core
    from ..tensor import GlobalTensor
    device = current_core(api).device
    if device not in _DCACHE_BYPASS_DEVICES:
        raise UnsupportedDeviceError(api, "device", device, legal=", ".join(_DCACHE_BYPASS_DEVICES),
                                     detail=f"not offered here (DK 标量计算/{api}(ISASI).md)")
    if not isinstance(addr, GlobalTensor):
        raise ParameterError(api, "addr", type(addr).__name__, device=device,
                             legal="a GlobalTensor: C++'s (__gm__ T*)gm + k is g[k] (a GlobalTensor of T over gm)")
    if addr.dtype is None or addr.dtype.name not in _DCACHE_BYPASS_DTYPES:
        raise UnsupportedDTypeError(api, "dtype", getattr(addr.dtype, "name", None), device=device,
                                    legal=", ".join(_DCACHE_BYPASS_DTYPES))
    return addr


def ReadGmByPassDCache(addr):
    """`ReadGmByPassDCache<T>(addr)`: the integer at GM address `addr` (a GlobalTensor's element 0)."""
    return _bypass_address("ReadGmByPassDCache", addr)._scalar_get(0, "ReadGmByPassDCache")


def WriteGmByPassDCache(addr, value):
    """`WriteGmByPassDCache<T>(addr, value)`: `value` (SPEC-2 D29: an integer in T's range) at GM address `addr`."""
    api = "WriteGmByPassDCache"
    addr = _bypass_address(api, addr)
    addr._scalar_set(0, scalar_value(api, None, addr.dtype, value, "value"), api)
