"""CreateVecIndex (AscendC::CreateVecIndex, a Memory basic API): dst[i] = firstValue + i for i < count, built as the
devkit builds it on each device, so the half and float bits are the implementation's.

Not in the SPECs: the page is devkit `docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据填充/CreateVecIndex.md`
(devices, dtypes, the count form and two high-dim forms, count 0); the order of operations is that of
`impl/basic_api/{dav_c220,dav_m200,dav_m300,dav_3510}/kernel_operator_vec_createvecindex_impl.h` (read, not copied).
docs/decisions.md "CreateVecIndex" records what they leave open. Only the count form
`CreateVecIndex(dst, firstValue, count)` is offered (the form the ops-math / ops-nn kernels call).

It is ArithProgression with diff 1 in the same two shapes, so it runs ArithProgression's chains (which run the
element-wise engine's Adds through `elementwise.composed_call`: nothing compiled of its own):
- A2/A3 (dav_c220) and 310P (dav_m200): the first B = 32/sizeof(T) values by the scalar unit (SetValue of
  float(firstValue) + float(i) converted to T; integers on the A2/A3 as int64 then T), then Adds of B per block up to
  one repeat and of R = 256/sizeof(T) per repeat; unlike ArithProgression each tail Adds covers exactly the remaining
  lanes (mask = tailSize), so exactly count elements are written.
- 950 (dav_3510, Reg::Arange(firstValue) then Reg::Adds of L per register) and 310B (dav_m300, vci(firstValue) then
  vadds of L): one register of L = 256/sizeof(T) lanes (int64: 64) holding first + j, stored and advanced by L.
"""
import numpy as np

from ..errors import ParameterError
from ..sanitizer import PIPE_S, PIPE_V, Access, own_flag_pairs, vector_access
from ._common import as_int, check_align, check_count_within
from ._scalar import scalar_value
from .arith_progression import _block_chain, _register_chain, _scalar_base, offered_fill

API = "CreateVecIndex"
D950, A3, A2, B310, P310 = "ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore"
_FOUR = ("int16", "half", "int32", "float")
# the page's 数据类型 (950: int8/int64 in the count form only, the one offered here); the 310P AI Core is on its
# 产品支持情况 list without a dtype line: dav_m200's ASCENDC_ASSERT names the four
DTYPES = {D950: ("int8",) + _FOUR + ("int64",), A3: _FOUR, A2: _FOUR, B310: _FOUR, P310: _FOUR}
_REGISTER = (D950, B310)   # VF / vector-register implementations; the others build on the scalar unit's block
_PAGE = "devkit 基础API/Memory矢量计算/数据填充/CreateVecIndex.md"


def _first_block(spec, dtype, first, n):
    """The scalar unit's first n values. dav_c220: GetCreateVecIndexValue (integers as int64 then T, modular; half
    and float as float(first) + float(i), then T) = ArithProgression's base with diff 1. dav_m200 converts
    float(first) + float(i) to T for the integers too: int32 beyond 2**24 rounds in float32, and a sum outside T's
    range is an undefined C++ conversion, refused."""
    if spec.name != P310 or dtype.is_float:
        return _scalar_base(dtype, first, 1, n)
    with np.errstate(all="ignore"):
        sums = np.float32(first) + np.arange(n, dtype=np.float32)
    info = np.iinfo(dtype.np_dtype)
    if n and not (info.min <= float(sums.min()) and float(sums.max()) <= info.max):
        raise ParameterError(API, "first_value", int(first), device=spec.name,
                             legal=f"first_value + i (i < {n}) inside [{info.min}, {info.max}] after float32 "
                                   f"rounding (dav_m200 converts float(firstValue) + float(i) to {dtype.name}; "
                                   "outside the range the conversion is undefined)")
    return sums.astype(np.int64).astype(dtype.np_dtype)


def _validate(dst, first_value, count):
    """Every refusal before anything is written; returns (core, first, count, base) (base: the scalar unit's first
    block off the 950 / 310B, else None)."""
    core, spec, dtype = offered_fill(API, dst, DTYPES, _PAGE)
    count = as_int(API, spec, "count", count)
    if not 0 <= count <= 2**32 - 1:   # uint32_t count; 0 is a NOP (SPEC-2 D30, which settles the 950's 不保证NOP)
        raise ParameterError(API, "count", count, legal="[0, 2**32 - 1] (uint32_t count)", device=spec.name)
    first = scalar_value(API, spec, dtype, first_value, "first_value")
    check_align(API, spec, "dst", dst.addr, 32)
    check_count_within(API, spec, "dst", dst.size, count)
    base = None if spec.name in _REGISTER else _first_block(spec, dtype, first, min(count, 32 // dtype.size))
    return core, first, count, base


def CreateVecIndex(dst, first_value, count):
    """`CreateVecIndex(dst, firstValue, count)`: dst[i] = firstValue + i for i < count, in the device's order of
    operations (module docstring); count 0 writes nothing. BIT-EXACT on the A2/A3/310P and for the integer types;
    half and float on the 950 and 310B are MODELLED (the register's first + j rounded once: Reg::Arange / vci do not
    document their rounding)."""
    core, first, count, base = _validate(dst, first_value, count)
    size = dst.dtype.size
    sanitizer = core.sanitizer
    if core.spec.name in _REGISTER:
        if sanitizer is not None and count:
            vector_access(core, API, writes=[(("dst", dst.addr, count * size), dst)])
        if count:
            _register_chain(core, dst, first, None, count)
        return
    if sanitizer is not None:
        # CreateVecIndexOneBlk: the scalar unit's SetValues, then SetFlag/WaitFlag<S_V> on an event of the
        # implementation's own (no V_S before: a vector access of dst just before the call is the kernel's to order)
        if base.size:
            sanitizer.instruction(API, PIPE_S, [Access.of_run("dst", dst.addr, base.nbytes, True, dst)])
        own_flag_pairs(sanitizer, API, ((PIPE_S, PIPE_V),))
        if count > base.size:   # the Adds: they read only what this call wrote
            vector_access(core, API, writes=[(("dst", dst.addr + base.nbytes, (count - base.size) * size), dst)])
    _block_chain(core, dst, base, 1, count, whole_blocks=False)
