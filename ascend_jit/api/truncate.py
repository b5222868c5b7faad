"""Truncate (the 950's Memory-API `Truncate<T, roundMode>(dst, src, count)`, devkit
M/类型转换/Truncate(ISASI).md; not in the SPECs, docs/decisions.md "Truncate"): each of the first `count` elements
rounded to an integral value of its own type (half, float, bfloat16) by CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND or
CAST_TRUNC. The devkit runs it as a VF of UpdateMask / LoadAlign / Reg::Truncate / StoreAlign
(`I/dav_3510/kernel_operator_vec_vconv_impl.h` TruncateImpl): per element the same-type rounding the 950's Cast
computes, so it runs Cast's conversion kernel with the source's type as the destination's and SPEC-2 7.3 step 5's
round-to-integral rule (exact; zero results +0; infinities and NaN pass, never saturated)."""
from ..core import count_call_effect
from ..enums import RoundMode
from ..errors import ParameterError, UnsupportedDeviceError, UnsupportedDTypeError
from ..jit.convert import cast_contiguous
from ..sanitizer import vector_access
from ._common import as_enum, check_align, check_count_within, check_count_overlap, check_range, operands

API = "Truncate"
_PAGE = "DK M/类型转换/Truncate(ISASI).md"
_DTYPES = ("half", "float", "bfloat16")
_MODES = ("CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC")


def Truncate(dst, src, round_mode, count):
    """`Truncate<T, roundMode>(dst, src, count)` is `Truncate(dst, src, roundMode, count)` (the 950 only)."""
    core = operands(API, dst, src)
    spec = core.spec
    if spec.name != "ascend950":
        raise UnsupportedDeviceError(API, "device", spec.name, legal="ascend950", detail=f"{_PAGE}: the 950 alone")
    s, d = src.dtype, dst.dtype
    if s.name not in _DTYPES:
        raise UnsupportedDTypeError(API, "dtype", s.name, legal=", ".join(_DTYPES), device=spec.name,
                                    detail=_PAGE)
    if d.name != s.name:
        raise UnsupportedDTypeError(API, "dst dtype", d.name, legal=f"{s.name}, the source's ({_PAGE})",
                                    device=spec.name)
    round_mode = as_enum(API, spec, "round_mode", round_mode, RoundMode)
    if round_mode.name not in _MODES:
        raise UnsupportedDTypeError(API, "round_mode", round_mode.name, legal=", ".join(_MODES), device=spec.name,
                                    detail=_PAGE)
    count = check_range(API, spec, "count", count, 0, 2**32 - 1)
    if count == 0:
        # the page: count 0 is not guaranteed to be a NOP on the 950 (unlike D30's count forms)
        raise ParameterError(API, "count", 0, legal=">= 1", device=spec.name,
                             detail=f"{_PAGE}: a count of 0 is not guaranteed to be a NOP")
    for name, t in (("dst", dst), ("src", src)):
        check_align(API, spec, name, t.addr, 32)
        check_count_within(API, spec, name, t.size, count)
    check_count_overlap(API, spec, "src", dst.addr, src.addr, count * s.size)
    if core.sanitizer is not None:
        vector_access(core, API, reads=[(("src", src.addr, count * s.size), src)],
                      writes=[(("dst", dst.addr, count * d.size), dst)])
    # SPEC-2 7.3 step 5 (round-to-integral): zero results +0, infinities and NaN pass, never saturated
    cast_contiguous(core.ub, s.kind, d.kind, int(round_mode), False, False, dst.addr, src.addr, count)
    lanes = 256 // s.size
    effect = count_call_effect(spec, count % lanes or lanes)
    if effect is not None:
        core._apply_mask_effect(effect)
