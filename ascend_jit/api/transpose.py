"""Transpose (AscendC::Transpose, the basic API's 数据排布转换): a 16 x 16 block of 2-byte elements transposed, or
[N, C, H, W] <-> [N, H, W, C] (the enhanced form, with a shared tmp buffer and TransposeParamsExt).

Not in the SPECs (SPEC-2 specifies neither form; docs/decisions.md "Transpose" records the choices). The page is
devkit `docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据排布转换/Transpose.md`: its devices and dtypes per form
(`_BASIC`, `_B16_ENHANCED`, `_FORMAT_ENHANCED`), 32-byte aligned operands, src and dst the same or disjoint for the
16 x 16 forms and disjoint for the format conversions, nSize in [0, 65535], cSize in [0, 4095], hSize * wSize in
[0, 4095] and 32-byte multiples, hSize = wSize = 16 for TRANSPOSE_ND2ND_B16, a size 0 writing nothing, and the tmp
buffer's minimum per device. Both forms move whole elements, so they are BIT-EXACT, and the move is a numpy
permutation of UB views: nothing to compile. The tmp buffer's bytes after a format conversion are the device's
scratch, unspecified: the emulator leaves them as they were, and the sanitizer counts them written.
"""
import enum
from dataclasses import dataclass

from ..errors import OutOfBoundsError, OverlapError, ParameterError, UnsupportedDTypeError
from ..sanitizer import vector_access
from ._common import (as_enum, as_int, as_uint16_field, check_align, check_count_overlap, check_offered,
                      check_same_dtype, operands)

API = "Transpose"
_PAGE = "devkit 基础API/Memory矢量计算/数据排布转换/Transpose.md"
D950, A3, A2, B310, P310, T910 = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore",
                                  "atlas-training")
_B16 = ("int16", "uint16", "half")
_BASIC = {device: _B16 for device in (D950, A3, A2, B310, P310, T910)}               # 数据类型: 普通转置
_B16_ENHANCED = {D950: _B16, A3: ("uint16",), A2: ("uint16",), B310: ("uint16",), P310: ("uint16",)}
_FORMATS = ("int8", "uint8", "int16", "uint16", "half", "int32", "uint32", "float")
_FORMAT_ENHANCED = {D950: _FORMATS + ("bfloat16",), A3: _FORMATS, A2: _FORMATS, P310: _FORMATS}
BASIC_DTYPES = _BASIC  # the registry's dtypes (the form every device offers)


class TransposeType(enum.IntEnum):
    """The page's TransposeType, in its order (uint8_t values). Only NONE (no operation), ND2ND_B16, NCHW2NHWC and
    NHWC2NCHW are implemented by the devkit ("当前不支持" for the others)."""
    TRANSPOSE_TYPE_NONE = 0
    TRANSPOSE_NZ2ND_0213 = 1
    TRANSPOSE_NZ2NZ_0213 = 2
    TRANSPOSE_NZ2NZ_012_WITH_N = 3
    TRANSPOSE_NZ2ND_012_WITH_N = 4
    TRANSPOSE_NZ2ND_012_WITHOUT_N = 5
    TRANSPOSE_NZ2NZ_012_WITHOUT_N = 6
    TRANSPOSE_ND2ND_ONLY = 7
    TRANSPOSE_ND_UB_GM = 8
    TRANSPOSE_GRAD_ND_UB_GM = 9
    TRANSPOSE_ND2ND_B16 = 10
    TRANSPOSE_NCHW2NHWC = 11
    TRANSPOSE_NHWC2NCHW = 12
    # the 950 build's own (kernel_struct_transpose.h, __NPU_ARCH__ 3510): other APIs' layouts, no basic Transpose
    TRANSPOSE_ND2ND_021 = 13
    TRANSPOSE_ND2ND_102 = 14
    TRANSPOSE_ND2ND_210 = 15
    TRANSPOSE_ND2NZ_WITH_INTLV = 16


_IMPLEMENTED = (TransposeType.TRANSPOSE_TYPE_NONE, TransposeType.TRANSPOSE_ND2ND_B16, TransposeType.TRANSPOSE_NCHW2NHWC,
                TransposeType.TRANSPOSE_NHWC2NCHW)


@dataclass
class TransposeParamsExt:
    """`TransposeParamsExt(nSize, cSize, hSize, wSize, transposeType)`: the C++ struct's fields and defaults."""
    nSize: int = 0
    cSize: int = 0
    hSize: int = 0
    wSize: int = 0
    transposeType: TransposeType = TransposeType.TRANSPOSE_ND2ND_B16


def transpose_tmp_bytes(device, dtype, c_size, transpose_type):
    """The page's sharedTmpBuffer minimum in bytes for a format conversion (h0 = 32 rows for 1-byte types, else 16;
    w0 = 32 / sizeof(T)): (cSize + 2) h0 w0 sizeof(T) for NCHW2NHWC, (2 cSize + 1) h0 w0 sizeof(T) for NHWC2NCHW;
    none on the 310P, whose table needs no buffer."""
    if device == P310:
        return 0
    size = dtype.size
    block = (32 if size == 1 else 16) * (32 // size) * size
    rows = c_size + 2 if transpose_type == TransposeType.TRANSPOSE_NCHW2NHWC else 2 * c_size + 1
    return rows * block


def Transpose(dst, src, shared_tmp_buffer=None, transpose_params=None):
    """`Transpose(dst, src)`: dst's 16 x 16 block = src's transposed (int16 / uint16 / half; in place allowed).
    `Transpose(dst, src, sharedTmpBuffer, TransposeParamsExt(n, c, h, w, type))`: TRANSPOSE_ND2ND_B16 as the basic
    form (h = w = 16), TRANSPOSE_NCHW2NHWC / TRANSPOSE_NHWC2NCHW the format conversions (numpy's
    transpose(0, 2, 3, 1) / (0, 3, 1, 2)), TRANSPOSE_TYPE_NONE nothing."""
    if shared_tmp_buffer is None and transpose_params is None:
        core = operands(API, dst, src, names=("src",))
        _block_16x16(core, dst, src, _BASIC, "普通转置")
        return
    if shared_tmp_buffer is None or transpose_params is None:
        core = operands(API, dst, src, names=("src",))
        missing = "sharedTmpBuffer" if shared_tmp_buffer is None else "transposeParams"
        raise ParameterError(API, missing, None, device=core.device,
                             legal="given with the other: (dst, src) or (dst, src, sharedTmpBuffer, transposeParams)")
    core = operands(API, dst, src, shared_tmp_buffer, names=("src", "sharedTmpBuffer"))
    spec = core.spec
    if not isinstance(transpose_params, TransposeParamsExt):
        raise ParameterError(API, "transposeParams", type(transpose_params).__name__, device=spec.name,
                             legal="an aj.TransposeParamsExt(nSize, cSize, hSize, wSize, transposeType)")
    p = transpose_params
    kind = as_enum(API, spec, "transposeParams.transposeType", p.transposeType, TransposeType)
    if kind not in _IMPLEMENTED:
        raise ParameterError(API, "transposeParams.transposeType", kind.name, device=spec.name,
                             legal=", ".join(t.name for t in _IMPLEMENTED),
                             detail="the page marks it 当前不支持 (not supported yet)" if kind < 13 else
                             "the 950 build's layout of other APIs: the basic Transpose writes nothing for it")
    n, c, h, w = (as_uint16_field(API, spec, f"transposeParams.{f}", getattr(p, f))
                  for f in ("nSize", "cSize", "hSize", "wSize"))
    if shared_tmp_buffer.dtype.name != "uint8":
        raise UnsupportedDTypeError(API, "sharedTmpBuffer.dtype", shared_tmp_buffer.dtype.name, legal="uint8",
                                    device=spec.name)
    if kind == TransposeType.TRANSPOSE_TYPE_NONE:
        return  # "API不做任何处理"
    if kind == TransposeType.TRANSPOSE_ND2ND_B16:
        for name, value in (("hSize", h), ("wSize", w)):
            if value != 16:
                raise ParameterError(API, f"transposeParams.{name}", value, legal="16 (TRANSPOSE_ND2ND_B16: a 16 x 16 "
                                     "block, 固定传入16)", device=spec.name)
        _block_16x16(core, dst, src, _B16_ENHANCED, "增强转置 TRANSPOSE_ND2ND_B16")
        return
    _format(core, dst, src, shared_tmp_buffer, kind, n, c, h, w)


def _check_dtype(spec, dst, src, table, form):
    check_same_dtype(API, spec, dst, src=src)
    check_offered(API, spec, dst.dtype, table, f"{_PAGE}, {form}")


def _check_extent(core, name, tensor, elements):
    """`elements` from the tensor's start inside the tensor (issue 11's rule; bounds="ub": inside the UB)."""
    nbytes = elements * tensor.dtype.size
    if core.bounds == "ub":
        if tensor.addr + nbytes > core.spec.ub_bytes:
            raise OutOfBoundsError(API, name, f"UB bytes [{tensor.addr}, {tensor.addr + nbytes})",
                                   legal=f"inside the UB's {core.spec.ub_bytes} bytes", device=core.device)
    elif elements > tensor.size:
        raise OutOfBoundsError(API, name, f"{elements} elements", legal=f"<= {name}.GetSize() = {tensor.size}",
                               device=core.device)


def _disjoint(spec, a_name, a, a_bytes, b_name, b, b_bytes):
    """The format conversions' operands share no byte (the page: no reuse of src and dst)."""
    if a.addr < b.addr + b_bytes and b.addr < a.addr + a_bytes:
        raise OverlapError(API, f"{a_name}/{b_name}", f"{a_name} at {a.addr}, {b_name} at {b.addr}", device=spec.name,
                           legal="disjoint ranges (the page: no reuse of src and dst for the format conversions)")


def _block_16x16(core, dst, src, table, form):
    spec = core.spec
    _check_dtype(spec, dst, src, table, form)
    check_align(API, spec, "dst", dst.addr, 32)
    check_align(API, spec, "src", src.addr, 32)
    _check_extent(core, "dst", dst, 256)
    _check_extent(core, "src", src, 256)
    check_count_overlap(API, spec, "src", dst.addr, src.addr, 512)  # the page allows src and dst the same
    if core.sanitizer is not None:
        vector_access(core, API, reads=[(("src", src.addr, 512), src)], writes=[(("dst", dst.addr, 512), dst)])
    dtype = dst.dtype.np_dtype
    block = core.ub[src.addr:src.addr + 512].view(dtype).reshape(16, 16).T.copy()  # (a copy: src may be dst)
    core.ub[dst.addr:dst.addr + 512].view(dtype).reshape(16, 16)[:] = block


def _format(core, dst, src, tmp, kind, n, c, h, w):
    spec = core.spec
    form = f"增强转置 {kind.name}"
    _check_dtype(spec, dst, src, _FORMAT_ENHANCED, form)
    size = dst.dtype.size
    c = as_int(API, spec, "transposeParams.cSize", c, 0, 4095)
    if kind == TransposeType.TRANSPOSE_NCHW2NHWC and c > 255 and spec.name != P310:
        # the page allows 4095, but the devkit's A2/A3/950 implementation (GetTransposeParamCal) passes cSize as
        # TransDataTo5HDParams.repeatTimes, a uint8_t: 256 repeats nothing, 257 only the first channel
        raise ParameterError(API, "transposeParams.cSize", c, device=spec.name,
                             legal="[0, 255] for TRANSPOSE_NCHW2NHWC here (the page says 4095)",
                             detail=f"(the devkit's implementation counts the channels in a uint8_t repeatTimes: "
                                    f"{c} wraps to {c % 256}, and its result is not the transpose)")
    if h * w > 4095 or (h * w * size) % 32:
        raise ParameterError(API, "transposeParams.hSize * wSize", h * w, device=spec.name,
                             legal=f"[0, 4095], with hSize * wSize * sizeof(T) a multiple of 32 bytes (here "
                                   f"{h * w * size})")
    for name, t in (("dst", dst), ("src", src), ("sharedTmpBuffer", tmp)):
        check_align(API, spec, name, t.addr, 32)
    elements = n * c * h * w
    if elements == 0:
        return  # "不会执行计算操作，不会对目的操作数进行写入"
    _check_extent(core, "dst", dst, elements)
    _check_extent(core, "src", src, elements)
    need = transpose_tmp_bytes(spec.name, dst.dtype, c, kind)
    if tmp.nbytes < need:
        raise ParameterError(API, "sharedTmpBuffer.GetSize()", tmp.nbytes, device=spec.name,
                             legal=f">= {need} bytes for cSize {c} ({_PAGE}: sharedTmpBuffer所需的内存)")
    nbytes = elements * size
    _disjoint(spec, "dst", dst, nbytes, "src", src, nbytes)
    if need:
        _disjoint(spec, "sharedTmpBuffer", tmp, need, "src", src, nbytes)
        _disjoint(spec, "sharedTmpBuffer", tmp, need, "dst", dst, nbytes)
    if core.sanitizer is not None:
        writes = [(("dst", dst.addr, nbytes), dst)] + ([(("sharedTmpBuffer", tmp.addr, need), tmp)] if need else [])
        vector_access(core, API, reads=[(("src", src.addr, nbytes), src)], writes=writes)
    dtype = dst.dtype.np_dtype
    values = core.ub[src.addr:src.addr + nbytes].view(dtype)
    if kind == TransposeType.TRANSPOSE_NCHW2NHWC:
        moved = values.reshape(n, c, h, w).transpose(0, 2, 3, 1)
    else:
        moved = values.reshape(n, h, w, c).transpose(0, 3, 1, 2)
    core.ub[dst.addr:dst.addr + nbytes].view(dtype)[:] = moved.reshape(-1)
