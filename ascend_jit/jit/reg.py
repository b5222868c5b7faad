"""Ascend 950 Reg API implementations (SPEC 7), shared by plain-Python calls and user VF functions compiled
with `@aj.Reg.simd_vf`.

A register is a uint8 array: 256 data bytes (VL), 256 bytes of scratch and a small header (element kind, overflow
modes). A MaskReg is four uint64 words: bit i predicates register byte i, so lane j of a T-sized type is bit
j*sizeof(T) (SPEC 7.1: 1, 2 or 4 bits per b8/b16/b32 lane, the lowest significant). Inside a VF the Reg calls hand
the kernels borrowed registers (`borrow`: no reference counting per call); lanes are read and written through the
register's bytes (u16_at, set_u32, ...), not typed views.

Unlike the Memory-API kernels, these functions check their own arguments: a user's VF computes addresses at run
time, so no Python layer can prove them in advance. Every check runs before anything is written.
"""
import array
import ctypes
import functools
import hashlib
import importlib
import inspect
import itertools
import operator
import pickle
import warnings

import numpy as np
from llvmlite import binding as llvm_binding
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.codegen import CPUCodeLibrary
from numba.core.datamodel import models, register_default
from numba.core.imputils import fix_returning_optional, impl_ret_new_ref
from numba.core.registry import CPUDispatcher as Dispatcher
from numba.core.typeconv import Conversion
from numba.core.typing.templates import (AbstractTemplate, AttributeTemplate, bound_function, infer,
                                         infer_getattr, infer_global, signature)
from numba.extending import NativeValue, box, intrinsic, lower_builtin, lower_cast, typeof_impl, unbox

from .._cache import implementation_stamp
from ..errors import AscendJitError, ParameterError, UnsupportedDTypeError
from ..tensor import _index_value
from .numerics import (HALF_MAX, KIND_FLOAT, KIND_HALF, KIND_INT8, KIND_INT16, KIND_INT32, KIND_UINT8, KIND_UINT16,
                       KIND_UINT32, f32_bits, f32_from_bits, float_store_bits, half_bits_to_f32, half_store_bits,
                       internal, kind_size, round_half)
from .lowered import empty_array, larger, lowered, smaller, uint8_vector, zeroed_array


VL = 256
SCRATCH = 2 * VL     # bytes VL..2*VL: float32 scratch of the reductions (no allocation per call)
HEADER = 8
REG_BYTES = SCRATCH + HEADER
H_KIND, H_CTRL = SCRATCH, SCRATCH + 1
# Overflow modes a register carries in its H_CTRL byte (taken from the core of the tensor it was loaded from and
# inherited by results; docs/decisions.md "Reg API"): half saturation in effect (CTRL[48]=0 while CTRL[60]=1),
# CTRL[53]=1, CTRL[59]=1, CTRL[60]=0, and "known".
M_HALF_SAT, M_INT_SAT, M_CAST_TRUNC, M_TRAIT_SAT, M_KNOWN = 1, 2, 4, 8, 16
SUM, MAX, MIN = 0, 1, 2
PAIR = 3  # PairReduceElem (SPEC 7.6): the first level of ReduceDataBlock's SUM tree, L/2 results
ZEROING, MERGING = 0, 1
# MaskPattern (SPEC 7.2): ALL, VL1, VL2, VL3, VL4, VL8, VL16, VL32, VL64, VL128, M3, M4, H, Q, ALLF = 15
_PATTERN_VL = np.array([0, 1, 2, 3, 4, 8, 16, 32, 64, 128], np.int64)
PAT_M3, PAT_M4, PAT_H, PAT_Q, PAT_ALLF = 10, 11, 12, 13, 15
# --- typed lane access to a register's bytes, without array views ------------------------------------------------
# A view (reg[:VL].view(np.uint16)) is a new array struct and two reference-count updates per call, which in a VF
# loop cost more than the lane work itself. These read and write lane j of a 2- or 4-byte type at byte 2j / 4j of
# a uint8 array through a typed pointer (LLVM vectorises loops of them); plain-Python versions for NUMBA_DISABLE_JIT.
def u16_at(reg, j):
    return np.uint16(int(reg[2 * j]) | (int(reg[2 * j + 1]) << 8))


def set_u16(reg, j, v):
    reg[2 * j] = np.uint8(int(v) & 0xFF)
    reg[2 * j + 1] = np.uint8(int(v) >> 8)


def u32_at(reg, j):
    return np.uint32(int(reg[4 * j]) | (int(reg[4 * j + 1]) << 8) | (int(reg[4 * j + 2]) << 16) |
                     (int(reg[4 * j + 3]) << 24))


def set_u32(reg, j, v):
    for b in range(4):
        reg[4 * j + b] = np.uint8((int(v) >> (8 * b)) & 0xFF)


def u16_at_byte(buf, byte):
    """The uint16 at byte offset `byte` of a uint8 array (the UB side of a load)."""
    return np.uint16(int(buf[byte]) | (int(buf[byte + 1]) << 8))


def u8_at(reg, k):
    return reg[k]


def set_u8(reg, k, v):
    reg[k] = np.uint8(v)


def data_of(reg):
    """A register's data pointer (compiled; plain Python: the register itself, which every accessor here takes)."""
    return reg


# A kernel that takes a register as an array pays numba's reference-count calls on it: two per array it is handed,
# null-owner calls for a VF's borrowed registers, but calls, twelve of them around one 128-lane half Add, which cost
# more than its lanes. A kernel that takes the registers' data pointers (data_of, a DATA plan operand) takes no
# array at all; these accessors read and write through either.
def bytes_like(t):
    """A uint8 array or a register's data pointer."""
    return uint8_vector(t) or t == types.voidptr


def byte_address(context, builder, ty, value):
    """The address of byte 0 of a uint8 array or data pointer (bytes_like) of numba type ty."""
    if isinstance(ty, types.Array):
        return context.make_array(ty)(context, builder, value).data
    return value


def lane_access(width, scale, store):
    """Codegen of a load (args: buffer, index) or store (args: buffer, index, value) of a `width`-bit lane at byte
    `scale` * index of a uint8 array or data pointer, through a typed pointer at any alignment (jit/lowered.py)."""
    def codegen(context, builder, sig, args):
        data = byte_address(context, builder, sig.args[0], args[0])
        byte = builder.mul(args[1], ir.Constant(args[1].type, scale))
        pointer = builder.bitcast(builder.gep(data, [byte]), ir.IntType(width).as_pointer())
        if store:
            builder.store(args[2], pointer, align=1)
            return context.get_dummy_value()
        return builder.load(pointer, align=1)
    return codegen


lowered(u8_at, (bytes_like, types.intp), types.uint8, lane_access(8, 1, False))
lowered(set_u8, (bytes_like, types.intp, types.uint8), types.none, lane_access(8, 1, True))
lowered(u16_at, (bytes_like, types.intp), types.uint16, lane_access(16, 2, False))
lowered(u16_at_byte, (bytes_like, types.intp), types.uint16, lane_access(16, 1, False))
lowered(set_u16, (bytes_like, types.intp, types.uint16), types.none, lane_access(16, 2, True))
lowered(u32_at, (bytes_like, types.intp), types.uint32, lane_access(32, 4, False))
lowered(set_u32, (bytes_like, types.intp, types.uint32), types.none, lane_access(32, 4, True))
lowered(data_of, (uint8_vector,), types.voidptr,
        lambda context, builder, sig, args: byte_address(context, builder, sig.args[0], args[0]))


# The dtype classes a VF is typed by (issue 20): the lane families the Reg kernels compile apart (reg.py's class
# markers): half; float and bfloat16 (the float32 lanes); the eight integers. A VF called with a dtype-name argument
# compiles once per class, not once per kind: within a class the kernels read the kind at run time.
DTYPE_CLASSES = ((0,), (1, 2), tuple(range(3, 11)))  # KIND_HALF; KIND_FLOAT, KIND_BF16; KIND_INT8 ... KIND_UINT64
CLASS_OF_KIND = tuple(next(c for c in DTYPE_CLASSES if kind in c) for kind in range(11))


def _kinds_text(kinds):
    return f"kind={kinds[0]}" if len(kinds) == 1 else f"kinds={','.join(map(str, kinds))}"


class KindRegister(types.Array):
    """The numba type of a register whose element kind a VF names at compile time, exactly by a literal
    (`RegTensor("half")`: kinds (0,)) or up to its class by a dtype-name argument (`RegTensor(T)`: the kinds of T's
    class, DTYPE_CLASSES): the same uint8 array, with its possible kinds known when the VF compiles, so a Reg call
    passes its kernel the class markers of those kinds alone and numba compiles no other class's lanes (issue 20: a
    half Max VF compiles the fused half lanes, not the wide float and integer ones). Kernels never see this type:
    `plain_type` is what they are typed with (borrow and direct_call hand them the plain array), so every kind shares
    their compiled specialisations. A register from a name of no known class (a variable holding names of two
    classes) stays a plain array: every class compiles, the kind read at run time."""

    def __init__(self, kinds):
        self.kinds = tuple(kinds)
        super().__init__(types.uint8, 1, "C", name=f"RegTensor({_kinds_text(self.kinds)})")

    @property
    def key(self):
        return super().key + (self.kinds,)

    @property
    def mangling_args(self):
        name, args = super().mangling_args
        return name, args + list(self.kinds)


register_default(KindRegister)(models.ArrayModel)


@lower_cast(KindRegister, types.Array)
def _kind_register_to_array(context, builder, fromty, toty, val):
    """A variable holding registers of two kind sets is typed as the plain array (Array.unify): the same value."""
    return val


def plain_type(t):
    """The type a kernel is typed with for an operand of type t (a KindRegister: the plain uint8 array; a
    TensorHandle: the kernels' handle tuple)."""
    if isinstance(t, KindRegister):
        return types.Array(types.uint8, 1, "C")
    return HANDLE if isinstance(t, TensorHandle) else t


def register_kinds(t):
    """The element kinds a register of type t may hold (a KindRegister's), or None (a plain array: any, read at run
    time)."""
    return t.kinds if isinstance(t, KindRegister) else None


def register_kind(t):
    """The element kind a register type names exactly, or None (a class of kinds, or a plain array)."""
    kinds = register_kinds(t)
    return kinds[0] if kinds is not None and len(kinds) == 1 else None


# --- dtype names passed to a compiled VF --------------------------------------------------------------------------
class DTypeName(int):
    """A dtype name as simd_vf hands it to a compiled VF: the int index of its spelling in reg.py's table (numba
    unboxes an int far faster than a string), of a class of its own so that numba types it as a DTypeNameType, not
    int64. Made by `dtype_name`, as an instance of the subclass of its element kind (the class attribute `kind`)."""
    __slots__ = ()
    kind = None


# one subclass per element kind: numba types a name by its class, and the kind travels with it (DTypeNameType)
_DTYPE_NAME_CLASSES = tuple(type(f"DTypeName{kind}", (DTypeName,), {"__slots__": (), "kind": kind})
                            for kind in range(11))  # KIND_HALF ... KIND_UINT64


def dtype_name(spelling, kind):
    """The VF argument for the dtype name of spelling index `spelling`, whose element kind is `kind`."""
    return _DTYPE_NAME_CLASSES[kind](spelling)


class DTypeNameType(types.Type):
    """The numba type of a VF's dtype-name argument, carrying its dtype class (DTYPE_CLASSES: the kinds it may name):
    a VF compiles once per class it is called with, not once per kind (issue 20: a VF tested on eleven dtypes
    compiled eleven times), and the registers it makes from the name (`RegTensor(T)`) are KindRegisters of those
    kinds, so its Reg calls compile that class's lanes alone, as with a literal name (a VF taking its dtype as an
    argument had compiled every class's lanes of every kernel it calls, 13 s for a first Add/Mul/Exp VF against
    7.6 s with a literal). The exact kind is read from the name at run time where the class has several (reg.py
    _vf_kind). A variable holding names of two classes unifies to kinds None (every class). It compares with a
    string by spelling (`T == "half"`, as the same VF run as plain Python compares its str: reg.py's eq/ne
    overloads; a number it never equals, as a str), is no integer (`T + 1` does not compile, as it raises plain),
    and reaches the kernels as an int64 kind, so no kernel compiles for the name itself."""

    def __init__(self, kinds):
        self.kinds = kinds
        super().__init__("dtype_name" if kinds is None else f"dtype_name({_kinds_text(kinds)})")

    def can_convert_to(self, typingctx, other):
        # no conversion to an integer (the name is a str in the plain run): numba's int templates took `T == 0`
        # and `T + 1` as the spelling index, True and a number compiled where plain Python says False and raises
        if isinstance(other, DTypeNameType) and other.kinds is None:
            return Conversion.safe
        return None

    def unify(self, typingctx, other):
        if isinstance(other, DTypeNameType) and other.kinds != self.kinds:
            return ANY_DTYPE_NAME
        return None


DTYPE_NAME_OF_CLASS = {kinds: DTypeNameType(kinds) for kinds in DTYPE_CLASSES}
ANY_DTYPE_NAME = DTypeNameType(None)


@register_default(DTypeNameType)
class _DTypeNameModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.IntType(64))


typeof_impl.register(DTypeName)(lambda value, c: DTYPE_NAME_OF_CLASS[CLASS_OF_KIND[value.kind]])


@unbox(DTypeNameType)
def _unbox_dtype_name(typ, obj, c):
    return c.unbox(types.int64, obj)


@box(DTypeNameType)
def _box_dtype_name(typ, value, c):
    """A name a VF returns (`return T`, `return x, T`) is the str its plain run returns: the spelling at the index."""
    from ..reg import _SPELLINGS  # reg.py holds the spellings and imports this module
    spellings = c.pyapi.unserialize(c.pyapi.serialize_object(_SPELLINGS))
    getitem = cgutils.get_or_insert_function(
        c.builder.module, ir.FunctionType(c.pyapi.pyobj, [c.pyapi.pyobj, c.pyapi.py_ssize_t]), "PyTuple_GetItem")
    name = c.builder.call(getitem, [spellings, value])  # a borrowed reference, kept alive by the tuple
    c.pyapi.incref(name)
    c.pyapi.decref(spellings)
    return name


@lower_cast(DTypeNameType, types.Integer)
def _dtype_name_to_int(context, builder, fromty, toty, value):
    return context.cast(builder, value, types.int64, toty)


@lower_cast(DTypeNameType, DTypeNameType)
def _dtype_name_to_any_kind(context, builder, fromty, toty, value):
    """A name of a known kind where a variable holds names of several: the same spelling index."""
    return value


def _of_one_kind(context, t):
    """The UniTuple numba iterates and indexes in place of `t` when `t` is a tuple of dtype names of several classes
    (as names of no known class) or of registers of several kinds (KindRegisters of two kind sets, or one and a plain
    register: as plain registers); None for any other type. Such tuples are heterogeneous, which numba neither
    iterates nor indexes at run time, and enumerates or zips neither; before kinds were typed they were tuples of
    one type (one DTypeNameType, plain registers) and compiled."""
    if not isinstance(t, types.Tuple) or not t.types:
        return None
    if all(isinstance(e, DTypeNameType) for e in t.types):
        return types.UniTuple(ANY_DTYPE_NAME, len(t))
    if any(isinstance(e, KindRegister) for e in t.types) and \
            all(isinstance(e, types.Array) and e.dtype == types.uint8 and e.ndim == 1 for e in t.types):
        unified = context.unify_types(*t.types)
        if isinstance(unified, types.Array) and not isinstance(unified, KindRegister):
            return types.UniTuple(unified, len(t))
    return None


class _OfOneKind(AbstractTemplate):
    """`for t in (T, C)`, `enumerate`/`zip` over such a tuple, `(T, C)[i]` and `T in (C, D)` with names (or
    registers) of several kinds: the call typed as on the tuple of one element type (_of_one_kind), which the
    lowering casts the tuple to (numba casts every argument to its signature's type), so numba's own tuple
    implementations run."""

    def generic(self, args, kws):
        one = tuple(_of_one_kind(self.context, a) or a for a in args)
        if one == tuple(args):
            return None
        return self.context.resolve_function_type(self.key, one, kws)


for _key in ("getiter", operator.getitem, operator.contains, enumerate, zip):
    _template = type("_OfOneKind", (_OfOneKind,), {"key": _key})
    if isinstance(_key, str):
        infer(_template)
    else:
        infer_global(_key)(_template)


@intrinsic
def spelling_index(typingctx, name):
    """The spelling index a DTypeName holds (the same 64 bits, typed int64)."""
    if isinstance(name, DTypeNameType):
        return types.int64(name), lambda context, builder, sig, args: args[0]
    return None


def _borrowed(context, builder, ty, value, register=True):
    if isinstance(ty, TensorHandle):  # the kernels' handle: its first HANDLE fields, the UB array borrowed
        return context.make_tuple(builder, HANDLE, [_borrowed(context, builder, t, builder.extract_value(value, i),
                                                              register=False) for i, t in enumerate(HANDLE)])
    if isinstance(ty, types.Array):
        array = context.make_array(ty)(context, builder, value)
        if register:
            _refuse_no_register(context, builder, ty, array)
        array.meminfo = context.get_constant_null(types.MemInfoPointer(types.voidptr))
        return array._getvalue()
    if isinstance(ty, types.BaseTuple):  # a handle's fields (its UB array is no register) or a tuple of registers
        for i, item in enumerate(ty):
            value = builder.insert_value(value, _borrowed(context, builder, item, builder.extract_value(value, i),
                                                          register=False), i)
    return value


def _refuse_no_register(context, builder, ty, array):
    """A data register typed as a plain uint8 array (a register of a run-time kind) or a MaskReg's word array whose
    size is not a register's: a numpy array the VF made itself (`np.zeros(8, np.uint8)`), which plain Python refuses
    by its type and compiled code cannot tell from a register by its numba type. Refused before any kernel reads or
    writes REG_BYTES (four words) of it (session-24 hunt: heap corruption). A KindRegister is always a register."""
    if isinstance(ty, KindRegister) or ty.ndim != 1 or ty.dtype not in (types.uint8, types.uint64):
        return
    size, kind = (REG_BYTES, "RegTensor") if ty.dtype == types.uint8 else (4, "MaskReg")
    wrong = builder.icmp_signed("!=", array.nitems, context.get_constant(types.intp, size))
    with cgutils.if_unlikely(builder, wrong):
        context.call_conv.return_user_exc(builder, ParameterError, (
            "Reg", "register", "ndarray", f"an aj.Reg.{kind} (a numpy array the VF made is none)", "ascend950"))


# --- tensors in compiled VFs ---------------------------------------------------------------------------------------
# Every kernel addresses a tensor by the handle (ub, byte address, element size, modes, lo, hi) that reg.tensor_handle
# makes ([lo, hi): the bytes the tensor's operands may touch, the tensor or the whole UB on a bounds="ub" core). A VF
# gets more: VFHandle adds the tensor's element count and whether lo follows the tensor (bounds="tensor"), so that
# `t[i]` in compiled code is the sub-tensor LocalTensor.__getitem__ makes in plain Python, with the same refusals,
# and len(t) / t.GetSize() its count (a slice `t[a:b]` is not typed: its refusals name the tensor's dtype and
# position, which the handle lacks, so a VF slicing a tensor runs plain). Its numba type, TensorHandle, is not a
# tuple: numba would type `t[0]` of a tuple as its first item (the UB).
HANDLE = types.Tuple((types.Array(types.uint8, 1, "C"),) + (types.int64,) * 5)  # what the kernels take
_VF_FIELDS = types.Tuple(tuple(HANDLE) + (types.int64, types.int64))  # + element count, lo follows the tensor


class TensorHandle(types.Type):
    """The numba type of a LocalTensor inside a compiled VF (a VFHandle); laid out as the _VF_FIELDS tuple. Kernels
    never see it: `borrow` and direct calls hand them its first fields as the plain HANDLE (plain_type), so a VF
    compiles no kernel again."""

    def __init__(self):
        super().__init__(name="TensorHandle")


TENSOR_HANDLE = TensorHandle()


@register_default(TensorHandle)
class _TensorHandleModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [(f"f{i}", t) for i, t in enumerate(_VF_FIELDS)])


class VFHandle(tuple):
    """A tensor as simd_vf passes it to a compiled VF: reg.tensor_handle's handle + (element count, 1 when lo
    follows the tensor's address). `_numba_type_` lets numba's dispatcher type it without calling back into Python
    (a tuple subclass has no type fingerprint)."""
    __slots__ = ()
    _numba_type_ = TENSOR_HANDLE


@typeof_impl.register(VFHandle)
def _typeof_vf_handle(val, c):
    """numba's typeof in Python (the dispatcher's compile path) picks the most specific class: without this, tuple's."""
    return TENSOR_HANDLE


@unbox(TensorHandle)
def _unbox_vf_handle(typ, obj, c):
    """The fields of a VFHandle (reg.tensor_handle makes it: 8 items, Python ints after the UB array), read
    directly with one error check for all: numba's tuple unboxing converts and checks each int (20 IR lines per
    field), which made every VF's CPython wrapper, and its compile, larger (+10% for a 4-tensor VF)."""
    ub = c.unbox(HANDLE[0], c.pyapi.tuple_getitem(obj, 0))
    ints = [c.pyapi.long_as_longlong(c.pyapi.tuple_getitem(obj, i)) for i in range(1, len(_VF_FIELDS))]
    value = c.context.make_tuple(c.builder, _VF_FIELDS, [ub.value] + ints)
    return NativeValue(value, is_error=c.builder.or_(ub.is_error, c.pyapi.c_api_error()), cleanup=ub.cleanup)


_HANDLE_INTS = types.UniTuple(types.int64, 7)


@intrinsic
def _handle_ints(typingctx, h):
    """h's integer fields (address, element size, modes, lo, hi, count, follows), without its UB array: no
    reference count to update."""
    def codegen(context, builder, sig, args):
        return context.make_tuple(builder, _HANDLE_INTS, [builder.extract_value(args[0], i) for i in range(1, 8)])
    return _HANDLE_INTS(h), codegen


@intrinsic
def _narrow(typingctx, h, first, lo, hi, count):
    """h with a new address, [lo, hi) and element count, its UB array borrowed (no reference count: a sub-tensor
    lives inside the VF, whose tensor argument keeps the UB alive, and a handle cannot leave compiled code). Each
    `t[i]` taking a reference cost two atomic updates, a third of a LoadAlign."""
    def codegen(context, builder, sig, args):
        value = builder.insert_value(args[0], _borrowed(context, builder, HANDLE[0],
                                                        builder.extract_value(args[0], 0), register=False), 0)
        for field, v in zip((1, 4, 5, 6), args[1:]):
            value = builder.insert_value(value, v, field)
        return value
    return TENSOR_HANDLE(h, types.int64, types.int64, types.int64, types.int64), codegen


class _IndexRefusal(AscendJitError):
    """What compiled `t[i]` raises for an index plain Python refuses: numba builds the exception in Python from the
    raise's arguments, and this class builds it as LocalTensor[] does (tensor._index_value), so the class and
    message are plain Python's. Formatting the message in compiled code would link numba's string code into every
    VF that indexes a tensor (0.2 s more compile each)."""

    def __new__(cls, index, size):
        try:
            _index_value("LocalTensor[]", index, size, "ascend950")
        except AscendJitError as refusal:  # always: compiled code raises this for the indices _index_value refuses
            return refusal


@njit(cache=True, inline="always")
def _narrowed(h, start, count):
    """The sub-tensor of `count` elements from element `start` of h (proven inside it), as LocalTensor's sub-tensor
    and tensor_handle make it: on a bounds="tensor" core [lo, hi) becomes the sub-tensor's bytes."""
    addr, esize, modes, lo, hi, size, follows = _handle_ints(h)
    first = addr + start * esize
    if follows:
        lo, hi = first, first + count * esize
    return _narrow(h, first, lo, hi, count)


@internal
def sub_handle(h, index):
    """`h[index]` of a compiled VF: the sub-tensor `index` elements in (LocalTensor._offset: an index in [0, size),
    else plain Python's OutOfBoundsError)."""
    size = _handle_ints(h)[5]
    if index < 0 or index >= size:
        raise _IndexRefusal(index, size)
    return _narrowed(h, np.int64(index), size - np.int64(index))


@internal
def refuse_index(h, index):
    """`h[index]` of an index that is no integer (a bool, a float): plain Python's ParameterError."""
    raise _IndexRefusal(index, _handle_ints(h)[5])


@infer_global(operator.getitem)
class _HandleItem(AbstractTemplate):
    def generic(self, args, kws):
        if len(args) == 2 and isinstance(args[0], TensorHandle) and isinstance(args[1], (types.Number, types.Boolean)):
            return signature(TENSOR_HANDLE, args[0], types.unliteral(args[1]))
        return None


@lower_builtin(operator.getitem, TensorHandle, types.Number)
@lower_builtin(operator.getitem, TensorHandle, types.Boolean)
def _lower_handle_item(context, builder, sig, args):
    """A call of the cached sub_handle (integers) or refuse_index, as a direct call lowers its kernel: no function
    compiled for the VF."""
    kernel = sub_handle if isinstance(sig.args[1], types.Integer) else refuse_index
    fnty = types.Dispatcher(kernel)
    result = context.get_function(fnty, fnty.get_call_type(context.typing_context, sig.args, {}))(builder, args)
    return result if kernel is not refuse_index else context.get_constant_null(TENSOR_HANDLE)  # it raised


@infer_global(len)
class _HandleLen(AbstractTemplate):
    def generic(self, args, kws):
        if len(args) == 1 and not kws and isinstance(args[0], TensorHandle):
            return signature(types.int64, args[0])
        return None


@infer_getattr
class _HandleAttributes(AttributeTemplate):
    key = TensorHandle

    @bound_function("TensorHandle.GetSize")
    def resolve_GetSize(self, handle, args, kws):  # noqa: N802 (Ascend C's name)
        return signature(types.int64) if not args and not kws else None

    @bound_function("TensorHandle.GetLength")
    def resolve_GetLength(self, handle, args, kws):  # noqa: N802
        return signature(types.int64) if not args and not kws else None

    @bound_function("TensorHandle.GetPhyAddr")
    def resolve_GetPhyAddr(self, handle, args, kws):  # noqa: N802
        """GetPhyAddr() or GetPhyAddr(offset) with an integer offset (positional, as Ascend C calls it)."""
        if kws or len(args) > 1 or (args and not isinstance(args[0], types.Integer)):
            return None
        return signature(types.int64, *args)


@lower_builtin(len, TensorHandle)
@lower_builtin("TensorHandle.GetSize", TensorHandle)
def _lower_handle_size(context, builder, sig, args):
    """len(t) and t.GetSize(): the element count (LocalTensor.__len__, GetSize)."""
    return builder.extract_value(args[0], 6)


@lower_builtin("TensorHandle.GetLength", TensorHandle)
def _lower_handle_length(context, builder, sig, args):
    """t.GetLength(): the tensor's bytes, element count * element size (LocalTensor.GetLength)."""
    return builder.mul(builder.extract_value(args[0], 6), builder.extract_value(args[0], 2))


@lower_builtin("TensorHandle.GetPhyAddr", TensorHandle)
@lower_builtin("TensorHandle.GetPhyAddr", TensorHandle, types.Integer)
def _lower_handle_address(context, builder, sig, args):
    """t.GetPhyAddr(offset=0): the UB byte address of element `offset` (LocalTensor.GetPhyAddr: no bounds check,
    an address is only a number until an instruction uses it)."""
    address = builder.extract_value(args[0], 1)
    if len(args) == 1:
        return address
    offset = context.cast(builder, args[1], sig.args[1], types.int64)
    return builder.add(address, builder.mul(offset, builder.extract_value(args[0], 2)))


MASK_WORDS = types.UniTuple(types.uint64, 4)
ALL_LANES = (np.uint64(2**64 - 1),) * 4  # the mask words selecting every lane (a mask left out, Arange's lanes)


@njit(cache=True, inline="always")
def all_active(words):
    """Whether a MaskReg's four words select every lane (the hot cases' test)."""
    full = np.uint64(0xFFFFFFFFFFFFFFFF)
    return words[0] == full and words[1] == full and words[2] == full and words[3] == full


def _mask_words(context, builder, ty, value):
    """A MaskReg read as its four words by value (MASK_WORDS): a tuple (UpdateMask/CreateMask, plain Python) as it
    is, an array (MaskReg() in a VF, a MaskReg passed in, UpdateMask/CreateMask in a VF compiled with MASK_ARRAYS)
    loaded. Every kernel takes a read mask as this one type, so a VF mixing both sources compiles each kernel once,
    as plain Python's calls do (issue 20)."""
    if isinstance(ty, types.UniTuple):
        return value
    array = context.make_array(ty)(context, builder, value)
    _refuse_no_register(context, builder, ty, array)
    return context.make_tuple(builder, MASK_WORDS, [builder.load(cgutils.get_item_pointer(
        context, builder, ty, array, [context.get_constant(types.intp, k)])) for k in range(4)])


@intrinsic
def words(typingctx, mask):
    """The four words of a MaskReg read by an instruction (a tuple or a uint64 array) as a tuple (_mask_words)."""
    if not ((isinstance(mask, types.UniTuple) and mask.count == 4 or isinstance(mask, types.Array))
            and mask.dtype == types.uint64):
        return None

    def codegen(context, builder, sig, args):
        return _mask_words(context, builder, sig.args[0], args[0])
    return MASK_WORDS(mask), codegen


@intrinsic
def borrow(typingctx, value):
    """The same array (or tuple holding arrays, such as a UB handle) without its memory owner: numba's reference
    counts are atomic adds through a call, and every array an inlined Reg call hands on to a helper inside a branch
    costs two of them (about 20 ns, more than a whole 128-lane Add). A Reg call's compiled form borrows each of its
    operands in its first statement: the operand's own count updates then sit in one basic block, where numba's
    reference-count pruning removes them, and the borrowed arrays carry none. Safe because a borrowed array never
    outlives the call (the VF's own variables keep the register and the UB alive) and is never returned."""
    def codegen(context, builder, sig, args):
        return _borrowed(context, builder, sig.args[0], args[0])
    return plain_type(value)(value), codegen


# --- Reg calls that compile to one kernel call, with no function of their own (issue 20) -------------------------
# An @overload implementation is a compiled function of its own: its module links the kernel's whole module and
# numba optimises it again (0.3-0.6 s per op for the big kernels, then once more in the VF). A Reg call registered
# with direct_call is typed by its plan and lowered straight to a call of the kernel's compiled entry (the way numba
# lowers any call of a jitted function): the VF links the kernel's module once.
ARG, CONST, INT, IS_ONE, FIELD, ENUM, CALL, WORDS, CHECK, DATA, SCALAR = range(11)
# plan operands: (ARG, i) argument i, borrowed; (DATA, i) argument i, a register as its data pointer (data_of)
# or a tensor as its POINTER_HANDLE; (WORDS, i) argument i, a MaskReg an instruction reads, as its four
# words (MASK_WORDS, _mask_words); (CONST, numba type, value); (INT, i, default) argument i (an int or
# IntEnum member) as an int64, `default` when absent (optional api, name, legal after it: a uint64
# value above 2**63 - 1 is refused naming it, _as_int64 and _refuse_huge_unsigned); (IS_ONE, i) the
# bool "argument i == 1", False when absent; (FIELD, i, k, default) field k of the tuple argument i (a
# CastTrait) as an int64, `default` when the argument or the field is absent (an optional fifth item, an EnumRule,
# refuses a field that is another enum's member, and checks a uint64 one); (ENUM, i, default, rule)
# argument i checked by `rule` (an EnumRule) as plain Python's as_enum checks it (SPEC-2 1.8): the
# int64 value, or with rule.flag the bool "value == 1" (MaskMergeMode MERGING); `default` (an int64,
# or the flag's False) when absent; (CALL, fn, operands) the result of the jitted fn on those operands
# (a register it makes is released after the kernel call): a tensor-scalar instruction's scalar
# register, made by a small kernel beside the big one the VF calls directly; (CHECK, operand) the
# operand evaluated, with its refusal, in its place among the others, and not passed (an argument the
# kernel does not take: Arange's order, whose one legal value is the kernel's only behaviour); (SCALAR, i)
# argument i, a number, widened exactly to the one type of its kind (scalar_type): the scalar of Duplicate, Arange or
# a tensor-scalar instruction, so that its kernel compiles once per kind (int64, uint64, float64, bool), not once per
# numeric type a VF passes (an int8, int16, int32, float32 scalar each compiled Arange again: issue 20).


class EnumRule:
    """How a direct call checks an enum argument, in plain Python's two steps (SPEC-2 1.1, 11.1: the same refusal):
    a member of `members` (an IntEnum; `member_values`, when given, the values the parameter's reader takes at all)
    else a ParameterError with `member_legal` (default: as_enum's list of the members and their values), a member of
    another enum, a bool or a float refused so too (the Memory-API ReduceType where the Reg one is expected); then an
    integer value in [lo, hi], else a ParameterError with `legal`, naming the value, or `value_name` when given (the
    member's name, as plain Python's _zeroing_only names 'MERGING'). flag: the operand is "value == 1"."""

    def __init__(self, api, name, members, lo, hi, legal, flag=False, member_legal=None, member_values=None,
                 value_name=None):
        from ..api._common import enum_legal  # api._common imports jit modules
        self.api, self.name, self.members, self.lo, self.hi, self.legal, self.flag = \
            api, name, members, lo, hi, legal, flag
        if member_values is None:
            member_values = range(lo, hi + 1) if members is None else tuple(int(m) for m in members)
        assert all(0 <= v < 63 for v in member_values)  # a bit each in an int64 (_checked)
        self.member_bits = sum(1 << v for v in set(member_values))
        self.member_legal = member_legal if member_legal is not None else \
            (legal if members is None else enum_legal(members))
        self.value_name = value_name
        if legal is None:  # a rule over every member: no value passes the first step and fails the second
            self.legal = self.member_legal

    def foreign(self, t):
        """Whether numba type t can never be a legal value (another enum's member, a bool, a float: plain Python's
        as_enum refuses 1.0 as it refuses True; compiled code had truncated it to a member's value)."""
        return isinstance(t, (types.Boolean, types.Float)) or \
            (isinstance(t, types.IntEnumMember) and t.instance_class is not self.members)

    def foreign_code(self, t):
        """checked_enum's `foreign`: 0 (a type that may be legal), 1 (one that never is), 2 (a bool, which the
        refusal names as the bool it is, as plain Python's does: True, not 1)."""
        if not self.foreign(t):
            return 0
        return 2 if isinstance(t, types.Boolean) else 1

    def texts(self):
        """(api, name, legal, member_legal, value_name or ""): checked_enum's texts."""
        return self.api, self.name, self.legal, self.member_legal, self.value_name or ""


@intrinsic
def text(typingctx, literal):
    """A string literal (an overload's closure constant is typed as one) as a run-time unicode value, so the
    function it is passed to keeps its one unicode signature. str() of the literal did the same by compiling numba's
    str/repr/concatenation machinery into the first VF of every process (1.9 s; issue 20); this is a constant."""
    if not isinstance(literal, types.StringLiteral):
        return None
    value = literal.literal_value

    def codegen(context, builder, sig, args):
        return context.get_constant_generic(builder, types.unicode_type, value)
    return types.unicode_type(literal), codegen


@njit(cache=True, no_cfunc_wrapper=True)
def checked_enum(api, name, value, foreign, lo, hi, legal, members, member_legal, named, value_name):
    """A direct call's enum argument (EnumRule): its value, or the ParameterError plain Python raises: not a member
    (`members`: a bit per value; `foreign`: EnumRule.foreign_code) with member_legal, then outside [lo, hi] with
    legal, naming value_name when `named` (a flag, not a comparison of strings at run time)."""
    if foreign == 2:
        raise ParameterError(api, name, value != 0, member_legal, "ascend950")
    if foreign != 0 or value < 0 or value > 62 or not (members >> value) & 1:
        raise ParameterError(api, name, value, member_legal, "ascend950")
    if value < lo or value > hi:
        if named:
            raise ParameterError(api, name, value_name, legal, "ascend950")
        raise ParameterError(api, name, value, legal, "ascend950")
    return value


@njit(cache=True, no_cfunc_wrapper=True)
def refuse_enum_float(api, name, value, legal):
    """The refusal of a float given to an enum reader (reg.py _enum_reader), naming the float as plain Python's
    as_enum does (converted to int64 for checked_enum it had been named 1 for 1.5). Compiled only for a VF that passes
    a float there. (A direct call given a float enum has no plan: its VF runs plain.)"""
    raise ParameterError(api, name, value, legal, "ascend950")


@njit(cache=True, no_cfunc_wrapper=True)
def checked_enum_unsigned(api, name, value, foreign, lo, hi, legal, members, member_legal, named, value_name):
    """checked_enum for a uint64 argument, compared and named as the unsigned value it is: np.int64() had wrapped
    2**64 - 1 to -1 (and 2**63 + k to a negative value) and the direct calls' clamp named 2**63 - 1, another value
    than the one passed (plain Python names the value). Compiled only for a VF that passes a uint64 enum."""
    if foreign != 0 or value > np.uint64(62) or not (members >> np.int64(value)) & 1:
        raise ParameterError(api, name, value, member_legal, "ascend950")
    if value < np.uint64(lo) or value > np.uint64(hi):
        if named:
            raise ParameterError(api, name, value_name, legal, "ascend950")
        raise ParameterError(api, name, value, legal, "ascend950")
    return np.int64(value)


def is_uint64(t):
    """Whether numba type t is a 64-bit unsigned integer (the one integer type np.int64() does not hold exactly)."""
    return isinstance(t, types.Integer) and not t.signed and t.bitwidth == 64


class KernelBinding:
    """A cached kernel that compiled Reg calls reach through a pointer of their own, filled on the call's first run.

    Linking the kernel's module into the caller, as numba does for a call of a jitted function, made numba optimise
    and generate every linked kernel's code again inside each VF: nine tenths of a VF's module and most of its
    compile (issue 20). The caller's module instead holds, per kernel, a pointer (null in a new process, whether the
    code was just compiled or loaded from a cache) and this binding, pickled; the first run of the call asks
    `resolve_kernel` for the kernel's address, which compiles or loads the kernel for these argument types. So a
    module that holds such a call, cached on its own or linked into another function, runs in any process without
    a step of its own at load time. A VF's cache key hashes ascend_jit's sources (_cache.py `implementation_stamp`),
    so a cached VF never calls another version's kernel; code cached by numba's own cache (`@njit(cache=True)` of
    the user's that calls the Reg API) is checked against the stamp here."""

    def __init__(self, module, qualname, argtypes, restype):
        self.module, self.qualname, self.argtypes, self.restype = module, qualname, tuple(argtypes), restype
        self.stamp = implementation_stamp()

    def address(self):
        """Compile or load the kernel for these argument types: the address of its compiled entry."""
        if self.stamp != implementation_stamp():
            raise RuntimeError(f"ascend_jit: cached code calling {self.module}.{self.qualname} was compiled by "
                               "another ascend_jit implementation: clear the numba cache (NUMBA_CACHE_DIR)")
        dispatcher = functools.reduce(getattr, self.qualname.split("."), importlib.import_module(self.module))
        dispatcher.compile(self.argtypes)
        cres = dispatcher.overloads[self.argtypes]
        if cres.signature.return_type != self.restype:  # the caller would read another type's value
            raise RuntimeError(f"ascend_jit: kernel {self.module}.{self.qualname}{self.argtypes} returns "
                               f"{cres.signature.return_type}, cached code calling it expects {self.restype}: "
                               "clear the numba cache (NUMBA_CACHE_DIR)")
        return cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)


_KERNEL_ADDRESSES = {}  # a pickled KernelBinding (hex) -> its kernel's address, once per process


@ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_char_p)
def resolve_kernel(pickled_binding):
    """Called by compiled code on a kernel call's first run: the kernel's address, or 0 after a warning naming the
    error (the call then raises RuntimeError; an exception cannot cross this C callback)."""
    address = _KERNEL_ADDRESSES.get(pickled_binding)
    if address is None:
        try:
            address = pickle.loads(bytes.fromhex(pickled_binding.decode())).address()  # noqa: S301 (our own code's)
        except Exception as e:  # noqa: BLE001 - reported, then raised by the compiled caller
            warnings.warn(f"ascend_jit: a compiled call could not bind its kernel: {type(e).__name__}: {e}",
                          RuntimeWarning, stacklevel=1)
            return 0
        _KERNEL_ADDRESSES[pickled_binding] = address
    return address


RESOLVE_KERNEL_SYMBOL = "ascend_jit_resolve_kernel"
llvm_binding.add_symbol(RESOLVE_KERNEL_SYMBOL, ctypes.cast(resolve_kernel, ctypes.c_void_p).value)


# The Reg API's kernels are optimised twice when they compile: numba's module optimisation runs a second time on
# each one's library. Linked into a VF, as numba links any callee, a kernel was optimised again there, and that
# second run is what vectorises most of its lane loops (ReduceDataBlock's module: 336 vector instructions after
# numba's one run, 1,462 after a second). Called through its pointer with one run, the 65-iteration ReduceDataBlock
# VF took 21-28 us against 17-20 us linked. The second run is paid once, when the kernel compiles, and is cached
# with it, where linking paid it again inside every VF (docs/decisions.md "Kernels called through a pointer").
REG_KERNEL_MODULES = ("ascend_jit.jit.reg", "ascend_jit.jit.reg_ops", "ascend_jit.jit.reg_move",
                      "ascend_jit.jit.reg_cast")


def _reg_kernel_symbols(qualname):
    """The mangled-name prefixes a Reg kernel named `qualname` has in any of REG_KERNEL_MODULES (numba's Itanium
    mangling: each name part preceded by its length, so `load` never matches `load_norm`)."""
    return tuple("_ZN" + "".join(f"{len(part)}{part}" for part in module.split(".") + qualname.split("."))
                 for module in REG_KERNEL_MODULES)


def _optimise_reg_kernels_twice(optimise):
    @functools.wraps(optimise)
    def optimise_final_module(library):
        optimise(library)
        symbols = _reg_kernel_symbols(library.name)  # a library is named after the function it compiles
        if any(f.name.startswith(symbols) for f in library._final_module.functions if not f.is_declaration):
            optimise(library)
    optimise_final_module.ascend_jit_reg_kernels_twice = True
    return optimise_final_module


# numba's private method: a numba without it keeps its one run (the same bits, slower VF loops)
_OPTIMISE = getattr(CPUCodeLibrary, "_optimize_final_module", None)
if _OPTIMISE is not None and not getattr(_OPTIMISE, "ascend_jit_reg_kernels_twice", False):
    CPUCodeLibrary._optimize_final_module = _optimise_reg_kernels_twice(_OPTIMISE)


# A kernel of at most this many LLVM instructions (with the functions its module links) is linked into its caller
# as numba links any jitted function: inlined, a VF loop's per-iteration UpdateMask, new register and plain load
# cost no call (UpdateMask about 4 ns a call linked, 11-14 ns called; BENCHMARKS.md "Session 27") and add little to
# the VF's compile; the larger ones (the engines, reductions, Cast, the distributing loads and stores: 1,000-2,000
# instructions each) are called through the pointer.
INLINED_KERNEL_INSTRUCTIONS = 500
_INLINED = {}  # a kernel's compile result -> whether calls link it


def _inlined(cres):
    """Whether calls link this compiled kernel (small enough to inline) rather than call it through a pointer."""
    inlined = _INLINED.get(cres.library)
    if inlined is None:
        module = cres.library._get_module_for_linking()  # what numba links into the caller
        # counted up to one past the limit: each instruction is a call into LLVM, and walking all of a large
        # engine's 2,000 cost a new VF about 0.1 s over its kernels, once per process
        instructions = (i for f in module.functions for block in f.blocks for i in block.instructions)
        size = sum(1 for _ in itertools.islice(instructions, INLINED_KERNEL_INSTRUCTIONS + 1))
        inlined = _INLINED[cres.library] = size <= INLINED_KERNEL_INSTRUCTIONS
    return inlined


def call_kernel(context, builder, fnty, kernel_sig, values):
    """Lower a call of the jitted kernel `fnty.dispatcher` with the compiled signature kernel_sig: through its
    KernelBinding's pointer when the kernel is a module-level function of REG_KERNEL_MODULES, optimised twice, over
    INLINED_KERNEL_INSTRUCTIONS (its status checked and propagated as numba does for a jitted function), else
    numba's own call, which links the kernel's module and optimises it again in the caller."""
    dispatcher = fnty.dispatcher
    py_func = dispatcher.py_func
    try:
        found = functools.reduce(getattr, py_func.__qualname__.split("."), importlib.import_module(py_func.__module__))
    except (ImportError, AttributeError):
        found = None
    dispatcher.compile(kernel_sig.args)  # typing compiled it; the call's types are exactly the compiled ones
    cres = dispatcher.overloads[tuple(kernel_sig.args)]
    if found is not dispatcher or py_func.__module__ not in REG_KERNEL_MODULES or _inlined(cres):
        return context.get_function(fnty, kernel_sig)(builder, values)
    restype, argtypes = cres.signature.return_type, cres.signature.args
    binding = KernelBinding(py_func.__module__, py_func.__qualname__, argtypes, restype)
    pickled = pickle.dumps(binding, protocol=4).hex()
    module = builder.module
    name = f"ascend_jit.kernel.{py_func.__qualname__}.{hashlib.sha1(pickled.encode()).hexdigest()}"
    try:
        slot = module.get_global(name)
    except KeyError:
        slot = ir.GlobalVariable(module, cgutils.voidptr_t, name)
        slot.linkage = "internal"
        slot.initializer = cgutils.voidptr_t(None)
    with cgutils.if_unlikely(builder, cgutils.is_null(builder, builder.load(slot))):
        resolver = cgutils.get_or_insert_function(module, ir.FunctionType(cgutils.voidptr_t, [cgutils.voidptr_t]),
                                                  RESOLVE_KERNEL_SYMBOL)
        address = builder.call(resolver, [context.insert_const_string(module, pickled)])
        with cgutils.if_unlikely(builder, cgutils.is_null(builder, address)):
            context.call_conv.return_user_exc(builder, RuntimeError, (
                f"ascend_jit: kernel {py_func.__qualname__} could not be bound (the warning above says why)",))
        builder.store(address, slot)
    function_type = context.call_conv.get_function_type(restype, argtypes)
    callee = builder.bitcast(builder.load(slot), function_type.as_pointer())
    status, retval = context.call_conv.call_function(builder, callee, restype, argtypes, values)
    with cgutils.if_unlikely(builder, status.is_error):
        context.call_conv.return_status_propagate(builder, status)
    retval = fix_returning_optional(context, builder, kernel_sig, status, retval)
    return impl_ret_new_ref(context, builder, restype, retval)


def direct_call(fn, kernel, plan, takes_none=(), returns=None, hot=None):
    """Compile `fn(args...)` in compiled code as `kernel(operands...)`. plan(*argument types) -> the operands (see
    ARG, CONST, IS_ONE) or None when these argument types are not this call (a typing error names fn). kernel: a
    jitted function, or a function of the argument types (as plan's) that picks one. takes_none: parameters with a
    default other than None that plain fn accepts None for in the form plan compiles (it ignores them there), or a
    function of the argument types (as plan's) giving them for the call's form. returns: None, or a function of the
    argument types giving the call's type in place of the kernel's return type, a type of the same data model (a
    KindRegister for the plain register array a kernel makes). hot: None, or a function of the argument types giving
    None or (hot_kernel, hot_operands): a small kernel the call runs first on DATA operands (no array, so no
    reference counting), which does the common case and says so: it returns True (False: the kernel then runs as
    usual), or (True, the kernel's result) / (False, anything) for a kernel that returns a value."""
    pysig = inspect.signature(plan)
    pick = (lambda *arg_types: kernel) if isinstance(kernel, Dispatcher) else kernel
    none_taken = takes_none if callable(takes_none) else (lambda *arg_types: takes_none)
    # fn's optional parameters whose default is not None (mode, trait, reduce_type, ...)
    valued = {name for name, p in inspect.signature(fn).parameters.items()
              if p.default is not inspect.Parameter.empty and p.default is not None}

    def generic(self, args, kws):
        # keywords and omitted arguments folded by plan's parameters (absent ones typed None), so a call may name
        # any argument; the lowering folds the call's values by the same pysig
        try:
            bound = pysig.bind(*args, **kws)
        except TypeError:
            return None
        given_none = {name for name, t in bound.arguments.items() if name in valued and isinstance(t, types.NoneType)}
        bound.apply_defaults()
        full = tuple(types.none if a is None else a for a in bound.args)
        if given_none - set(none_taken(*full)):
            # an explicit None there (`mode=None`) is no compiled call: the VF runs plain, which refuses it; folded
            # as the absent argument it had run with the default
            return None
        operands = plan(*full)
        if operands is None:
            return None
        kernel_sig = self.context.resolve_function_type(types.Dispatcher(pick(*full)),
                                                        _operand_types(operands, full, self.context), {})
        if kernel_sig is None:
            return None
        return_type = (returns and returns(*full)) or kernel_sig.return_type
        return signature(return_type, *full).replace(pysig=pysig)

    template = type(f"Direct_{fn.__name__}", (AbstractTemplate,), {"key": fn, "generic": generic})
    infer(template)
    infer_global(fn, types.Function(template))

    @lower_builtin(fn, types.VarArg(types.Any))
    def lower(context, builder, sig, args):
        operands = plan(*sig.args)
        made = []
        values = _operand_values(context, builder, sig, args, operands, made)
        _refuse_huge_unsigned(context, builder, sig, args, operands)
        kernel = pick(*sig.args)
        kernel_sig = _kernel_signature(context, kernel, operands, sig.args)
        fast = hot and hot(*sig.args)
        if fast:
            result = _hot_then_kernel(context, builder, fast, sig, args, made,
                                      lambda: call_kernel(context, builder, types.Dispatcher(kernel), kernel_sig,
                                                          values), kernel_sig.return_type)
        else:
            result = call_kernel(context, builder, types.Dispatcher(kernel), kernel_sig, values)
        for made_type, value in made:
            context.nrt.decref(builder, made_type, value)
        return result


def _hot_then_kernel(context, builder, fast, sig, args, made, call_main, restype):
    """A direct call's hot kernel, then its kernel when the hot one declines (direct_call's `hot`): the hot kernel
    returns whether it did the call (a kernel returning nothing) or (done, the kernel's result)."""
    hot_kernel, hot_operands = fast
    hot_sig = _kernel_signature(context, hot_kernel, hot_operands, sig.args)
    value = call_kernel(context, builder, types.Dispatcher(hot_kernel), hot_sig,
                        _operand_values(context, builder, sig, args, hot_operands, made))
    if isinstance(restype, types.NoneType):
        with builder.if_then(builder.not_(value), likely=False):
            call_main()
        return context.get_dummy_value()
    assert hot_sig.return_type == types.Tuple((types.boolean, restype)), (hot_kernel, hot_sig, restype)
    slot = cgutils.alloca_once_value(builder, builder.extract_value(value, 1))
    with builder.if_then(builder.not_(builder.extract_value(value, 0)), likely=False):
        builder.store(call_main(), slot)
    return builder.load(slot)


def _kernel_signature(context, kernel, operands, arg_types):
    return types.Dispatcher(kernel).get_call_type(context.typing_context,
                                                  _operand_types(operands, arg_types, context.typing_context), {})


def _operand_values(context, builder, sig, args, operands, made):
    """The LLVM values of a plan's operands; `made` collects the arrays CALL operands returned (to release)."""
    values = []
    for op in operands:
        if op[0] == CHECK:
            _operand_values(context, builder, sig, args, (op[1],), made)
        elif op[0] == ARG:
            values.append(_borrowed(context, builder, sig.args[op[1]], args[op[1]]))
        elif op[0] == WORDS:
            values.append(_mask_words(context, builder, sig.args[op[1]], args[op[1]]))
        elif op[0] == DATA:
            values.append(_data_value(context, builder, sig.args[op[1]], args[op[1]]))
        elif op[0] == CONST:
            values.append(context.get_constant_generic(builder, op[1], op[2]))
        elif op[0] == SCALAR:
            values.append(context.cast(builder, args[op[1]], sig.args[op[1]], scalar_type(sig.args[op[1]])))
        elif op[0] == CALL:
            inner = _operand_values(context, builder, sig, args, op[2], made)
            call_sig = _kernel_signature(context, op[1], op[2], sig.args)
            value = call_kernel(context, builder, types.Dispatcher(op[1]), call_sig, inner)
            if isinstance(call_sig.return_type, types.Array):
                made.append((call_sig.return_type, value))
            values.append(value)
        elif op[1] >= len(args) or isinstance(sig.args[op[1]], (types.NoneType, types.Omitted)) or (
                op[0] == FIELD and op[2] >= len(sig.args[op[1]])):  # a NamedTuple's field left to its default
            flag = op[0] == IS_ONE or (op[0] == ENUM and op[3].flag)
            values.append(context.get_constant(types.boolean, False) if flag else
                          context.get_constant(types.int64, op[3] if op[0] == FIELD else op[2]))
        elif op[0] == ENUM:
            rule = op[3]
            v = _checked(context, builder, rule, sig.args[op[1]], args[op[1]])
            values.append(builder.icmp_signed("==", v, context.get_constant(types.int64, 1)) if rule.flag else v)
        elif op[0] == FIELD:
            field_type = sig.args[op[1]][op[2]]
            raw = builder.extract_value(args[op[1]], op[2])
            rule = op[4] if len(op) > 4 else None
            # a uint64 field is checked here, as the value it is (the kernel's own check would see 2**63 - 1)
            values.append(_as_int64(context, builder, raw, field_type)
                          if rule is None or not (rule.foreign(field_type) or is_uint64(field_type)) else
                          _checked(context, builder, rule, field_type, raw))
        else:
            v = _as_int64(context, builder, args[op[1]], sig.args[op[1]])
            values.append(v if op[0] == INT else
                          builder.icmp_signed("==", v, context.get_constant(types.int64, 1)))
    return values


@njit(cache=True, no_cfunc_wrapper=True)
def refuse_unsigned(api, name, value, legal):
    """The refusal of a uint64 int operand above 2**63 - 1, naming the value passed (the kernel, given 2**63 - 1,
    named that). Compiled once, for the first VF that passes a uint64 offset or step."""
    raise ParameterError(api, name, value, legal, "ascend950")


# plain Python's order: the step (_step) first, then DATA_BLOCK_COPY's strides (_block_arguments), then the offset
_HUGE_CHECK_ORDER = {"post_update_stride": 0, "data_block_stride": 1, "repeat_stride": 2}


def _refuse_huge_unsigned(context, builder, sig, args, operands):
    """Before the kernel call: an (INT, i, default, api, name, legal) operand given as a uint64 above 2**63 - 1 is
    refused naming its value, as plain Python names it (_as_int64 hands the kernel 2**63 - 1, which it refuses as
    outside int32 but names as 2**63 - 1). Emitted only for uint64 arguments, a compile-time choice: an int64 offset
    gets no extra code. In plain Python's order (_HUGE_CHECK_ORDER)."""
    checks = [op for op in operands if op[0] == INT and len(op) > 3 and op[1] < len(args) and
              is_uint64(sig.args[op[1]])]
    for op in sorted(checks, key=lambda op: _HUGE_CHECK_ORDER.get(op[4], len(_HUGE_CHECK_ORDER))):
        value = args[op[1]]
        huge = builder.icmp_unsigned(">", value, context.get_constant(types.uint64, 2**63 - 1))
        with builder.if_then(huge, likely=False):
            text = [context.get_constant_generic(builder, types.unicode_type, t) for t in (op[3], op[4], op[5])]
            refuse_sig = types.none(types.unicode_type, types.unicode_type, types.uint64, types.unicode_type)
            refuser = types.Dispatcher(refuse_unsigned)
            refuser.get_call_type(context.typing_context, refuse_sig.args, {})
            context.get_function(refuser, refuse_sig)(builder, [text[0], text[1], value, text[2]])


def _as_int64(context, builder, value, from_type):
    """An int operand as the int64 its kernel takes. A uint64 above 2**63 - 1 becomes 2**63 - 1, which every int
    parameter's range check refuses as plain Python refuses the value: cast, it wrapped negative, and an offset of
    np.uint64(2**64 - 64) loaded the 64 elements before the tensor (another tensor's, on a bounds="ub" core)."""
    if isinstance(from_type, types.Integer) and not from_type.signed and from_type.bitwidth == 64:
        top = context.get_constant(types.int64, 2**63 - 1)
        return builder.select(builder.icmp_unsigned(">", value, top), top, value)
    return context.cast(builder, value, from_type, types.int64)


def _checked(context, builder, rule, arg_type, value):
    """Lower a call of checked_enum: `value` (of arg_type) as `rule` accepts it, as an int64, else its
    ParameterError naming the value (a uint64 one through checked_enum_unsigned, unwrapped)."""
    api, name, legal, member_legal, value_name = [context.get_constant_generic(builder, types.unicode_type, t)
                                                  for t in rule.texts()]
    unsigned = is_uint64(arg_type)
    value_type = types.uint64 if unsigned else types.int64
    value = value if unsigned else _as_int64(context, builder, value, arg_type)
    check_sig = types.int64(types.unicode_type, types.unicode_type, value_type, types.int64, types.int64,
                            types.int64, types.unicode_type, types.int64, types.unicode_type, types.boolean,
                            types.unicode_type)
    checker = types.Dispatcher(checked_enum_unsigned if unsigned else checked_enum)
    checker.get_call_type(context.typing_context, check_sig.args, {})
    return context.get_function(checker, check_sig)(builder, [
        api, name, value, context.get_constant(types.int64, rule.foreign_code(arg_type)),
        context.get_constant(types.int64, rule.lo), context.get_constant(types.int64, rule.hi), legal,
        context.get_constant(types.int64, rule.member_bits), member_legal,
        context.get_constant(types.boolean, rule.value_name is not None), value_name])


# A DATA operand of a tensor: the kernels' HANDLE with the UB's data pointer in place of the UB array.
POINTER_HANDLE = types.Tuple((types.voidptr,) + tuple(HANDLE)[1:])


def _data_value(context, builder, ty, value):
    """A DATA operand's value: a register's data pointer, or a tensor's POINTER_HANDLE."""
    if isinstance(ty, TensorHandle):
        fields = [builder.extract_value(value, i) for i in range(len(HANDLE))]
        fields[0] = byte_address(context, builder, HANDLE[0], fields[0])
        return context.make_tuple(builder, POINTER_HANDLE, fields)
    return byte_address(context, builder, ty, value)


def _operand_types(operands, args, typing_context):
    kinds = {INT: types.int64, IS_ONE: types.boolean, FIELD: types.int64, WORDS: MASK_WORDS}

    def one(op):
        if op[0] == ARG:
            return plain_type(args[op[1]])
        if op[0] == DATA:
            return POINTER_HANDLE if isinstance(args[op[1]], TensorHandle) else types.voidptr
        if op[0] == CONST:
            return op[1]
        if op[0] == ENUM:
            return types.boolean if op[3].flag else types.int64
        if op[0] == SCALAR:
            return scalar_type(args[op[1]])
        if op[0] == CALL:
            return typing_context.resolve_function_type(types.Dispatcher(op[1]),
                                                        _operand_types(op[2], args, typing_context), {}).return_type
        return kinds[op[0]]
    return tuple(one(op) for op in operands if op[0] != CHECK)


def scalar_type(t):
    """The type a SCALAR operand of numba type t is widened to, holding every value of t exactly: bool; a uint64
    stays one (2**63 and above are no int64); any other integer an int64; a float a float64; anything else itself."""
    if isinstance(t, types.Boolean):
        return types.boolean
    if isinstance(t, types.Integer):
        return types.uint64 if is_uint64(t) else types.int64
    if isinstance(t, types.Float):
        return types.float64
    return plain_type(t)


def int_like(t):
    """An optional int argument of a Reg call: absent (None), an int or an IntEnum member."""
    return t is None or isinstance(t, (types.Integer, types.IntEnumMember, types.NoneType, types.Omitted))


def enum_like(t):
    """An optional enum argument of a Reg call (an ENUM operand): as int_like, or a bool, which the operand refuses
    when called, as plain Python does."""
    return int_like(t) or isinstance(t, types.Boolean)


def ints_like(t, n, cls=None):
    """An optional tuple argument of n int fields (a CastTrait): absent, or a tuple of ints / IntEnum members; a
    NamedTuple of `cls` built with its trailing fields left out (numba types `CastTrait(ZERO, SAT)` as a tuple of
    the two given: FIELD operands give the others their defaults)."""
    return t is None or isinstance(t, (types.NoneType, types.Omitted)) or (
        isinstance(t, types.BaseTuple) and short_named_tuple(t, n, cls) and
        all(isinstance(f, (types.Integer, types.IntEnumMember)) for f in t))


def short_named_tuple(t, n, cls):
    """Whether tuple type t holds n fields, or is a NamedTuple of cls with at most n (its defaults for the rest)."""
    return len(t) == n or (cls is not None and getattr(t, "instance_class", None) is cls and len(t) < n)


@njit(cache=True, no_cfunc_wrapper=True)
def new_register(kind, modes):
    """A zeroed register of element kind `kind` carrying the overflow modes `modes` (an H_CTRL byte: those of the
    core the VF runs on, SPEC-2 11.1; 0 = not known, the 950's power-on modes)."""
    reg = zeroed_array(REG_BYTES, np.uint8)
    reg[H_KIND] = kind
    reg[H_CTRL] = modes
    return reg


def external_global(module, symbol, ir_type):
    """The LLVM global `symbol` (added with llvm_binding.add_symbol at import) declared once in `module`: how
    compiled VFs reach process-wide state while staying disk-cacheable (no address is baked into the code)."""
    variable = module.globals.get(symbol)
    if variable is None:
        variable = ir.GlobalVariable(module, ir_type, symbol)
        variable.linkage = "external"
    return variable


# The overflow modes of the core a compiled VF runs on (SPEC-2 11.1), for the registers it creates: simd_vf writes
# them before every compiled call; compiled code reads them through an external symbol (registered in every process
# at import), so the VFs stay disk-cacheable. Plain Python passes the modes to new_register itself.
VF_MODES = array.array("q", [0])  # not numpy: a VF call writes it, and array.array's item store is the cheaper
_VF_MODES_SYMBOL = "ascend_jit_vf_modes"
llvm_binding.add_symbol(_VF_MODES_SYMBOL, VF_MODES.buffer_info()[0])


def vf_modes():
    return VF_MODES[0]


lowered(vf_modes, (), types.int64, lambda context, builder, sig, args:
        builder.load(external_global(builder.module, _VF_MODES_SYMBOL, ir.IntType(64))))


# LocalMemBar's legal (before, after) pairs, a bit each at before * 6 + after: the devkit's static_assert
# (impl/basic_api/reg_compute/dav_3510/kernel_reg_compute_membar_impl.h; MemType VEC_STORE 0, VEC_LOAD 1, SCALAR_STORE
# 2, SCALAR_LOAD 3, VEC_ALL 4, SCALAR_ALL 5)
BARRIER_PAIRS = ((0, 1), (1, 0), (0, 0), (0, 3), (0, 2), (1, 2), (2, 1), (2, 0), (3, 0), (4, 4), (4, 5), (5, 4))
_BARRIER_PAIR_BITS = sum(1 << (b * 6 + a) for b, a in BARRIER_PAIRS)
_MEM_TYPE_NAMES = ("VEC_STORE", "VEC_LOAD", "SCALAR_STORE", "SCALAR_LOAD", "VEC_ALL", "SCALAR_ALL")
_BARRIER_LEGAL = ("a pair the devkit offers: VEC_STORE -> VEC_LOAD, VEC_STORE, SCALAR_LOAD or SCALAR_STORE; VEC_LOAD "
                  "-> VEC_STORE or SCALAR_STORE; SCALAR_STORE -> VEC_LOAD or VEC_STORE; SCALAR_LOAD -> VEC_STORE; "
                  "VEC_ALL -> VEC_ALL or SCALAR_ALL; SCALAR_ALL -> VEC_ALL")


@njit(cache=True, no_cfunc_wrapper=True)
def check_barrier_pair(before, after):
    """LocalMemBar's pair of MemType values (each already a member), plain and compiled alike: one of the devkit's."""
    if not (_BARRIER_PAIR_BITS >> (before * 6 + after)) & 1:
        raise ParameterError("LocalMemBar", "before/after", _MEM_TYPE_NAMES[before] + " -> " + _MEM_TYPE_NAMES[after],
                             _BARRIER_LEGAL, "ascend950")


@njit(cache=True, no_cfunc_wrapper=True)
def barrier(before, after):
    """LocalMemBar in a VF (its direct call checks each MemType, this their pair): every barrier already holds, the
    emulator running a VF's instructions one after another."""
    check_barrier_pair(before, after)


@njit(cache=True, no_cfunc_wrapper=True)
def new_vf_register(kind):
    """RegTensor(T) in a VF: a zeroed register of element kind `kind` with the modes of the core the VF runs on."""
    return new_register(kind, vf_modes())


@njit(cache=True, no_cfunc_wrapper=True)
def new_mask_register():
    """MaskReg() in a VF: four zero words (no lane active), allocated here so that a VF allocates no array itself
    (an allocation in the VF compiled numba's array allocator in every process, issue 20)."""
    return zeroed_array(4, np.uint64)


@internal
def _low_bits(nbits):
    """The lowest nbits (0..64) of a uint64 word."""
    if nbits >= 64:
        return np.uint64(0xFFFFFFFFFFFFFFFF)
    return (np.uint64(1) << np.uint64(nbits)) - np.uint64(1)


@internal
def lanes_mask(kind, active):
    """Words of a MaskReg whose lowest `active` lanes of a `kind` element are set (all bits of each lane)."""
    nbytes = smaller(active, VL // kind_size(kind)) * kind_size(kind)
    return (_low_bits(smaller(larger(nbytes, 0), 64)), _low_bits(smaller(larger(nbytes - 64, 0), 64)),
            _low_bits(smaller(larger(nbytes - 128, 0), 64)), _low_bits(smaller(larger(nbytes - 192, 0), 64)))


@njit(cache=True, inline="always")
def update_mask(kind, n):
    """SPEC 7.2: the lowest min(n, VL_T) lanes; n becomes n - VL_T, or 0."""
    if n < 0 or n > 4294967295:  # a uint32 (plain Python checks it too)
        raise ParameterError("UpdateMask", "n", n, "an integer in [0, 4294967295]", "ascend950")
    lanes = VL // kind_size(kind)
    words = lanes_mask(kind, smaller(n, lanes))
    return words, (0 if n < lanes else n - lanes)


@njit(cache=True, inline="always")
def all_lanes_mask(kind):
    """CreateMask<T> with the default pattern ALL: every lane of a `kind` element."""
    return lanes_mask(kind, VL // kind_size(kind))


@njit(cache=True, no_cfunc_wrapper=True)
def create_mask(kind, pattern):
    """CreateMask<T, pattern> (docs/decisions.md: VLk beyond the lane count sets every lane; M3/M4 set the lanes
    whose index is a multiple of 3/4). One lanes_mask call and the M3/M4 words in scalars (no array): a smaller
    function to compile, as every VF has one (issue 20)."""
    size = kind_size(kind)
    lanes = VL // size
    if pattern == PAT_M3 or pattern == PAT_M4:
        step = 3 if pattern == PAT_M3 else 4
        w0 = w1 = w2 = w3 = np.uint64(0)
        for j in range(0, lanes, step):
            for b in range(size):
                i = j * size + b
                bit = np.uint64(1) << np.uint64(i & 63)
                if i < 64:
                    w0 |= bit
                elif i < 128:
                    w1 |= bit
                elif i < 192:
                    w2 |= bit
                else:
                    w3 |= bit
        return (w0, w1, w2, w3)
    if pattern == 0:
        active = lanes
    elif 1 <= pattern <= 9:
        active = _PATTERN_VL[pattern]
    elif pattern == PAT_H:
        active = lanes // 2
    elif pattern == PAT_Q:
        active = lanes // 4
    elif pattern == PAT_ALLF:
        active = 0
    else:
        raise ParameterError("CreateMask", "pattern", pattern, "a MaskPattern (0-13 or 15)", "ascend950")
    return lanes_mask(kind, active)


# UpdateMask / CreateMask / MoveMask in a VF make their four words a tuple: a value LLVM keeps in registers, no
# allocation. A tuple cannot be written, so a VF that makes such a mask an operation's destination (LoadAlign, Not,
# And, Select, Pack, ... write into it, D63), or assigns it to a MaskReg() variable in a loop, does not type. simd_vf
# then compiles it again with MASK_ARRAYS[0] set: these calls make a new MaskReg word array, the type MaskReg()
# makes and a MaskReg passed in has. Arrays in every VF cost each UpdateMask an allocation (the benchmark VF loops
# 10-25 % slower; docs/decisions.md "Reg MaskRegs made in a VF").
MASK_ARRAYS = [False]


@njit(cache=True, inline="always")
def mask_register_of(words):
    """A new MaskReg word array holding four words (a tuple)."""
    out = empty_array(4, np.uint64)
    out[0], out[1], out[2], out[3] = words[0], words[1], words[2], words[3]
    return out


@njit(cache=True, no_cfunc_wrapper=True)
def update_mask_register(kind, n):
    """UpdateMask in a VF: (update_mask's words as a MaskReg word array, n - VL_T or 0)."""
    words, rest = update_mask(kind, n)
    return mask_register_of(words), rest


@njit(cache=True, no_cfunc_wrapper=True)
def all_lanes_register(kind):
    """CreateMask<T> (pattern ALL) in a VF, as a MaskReg word array."""
    return mask_register_of(all_lanes_mask(kind))


@njit(cache=True, no_cfunc_wrapper=True)
def create_mask_register(kind, pattern):
    """CreateMask<T, pattern> in a VF, as a MaskReg word array."""
    return mask_register_of(create_mask(kind, pattern))


def lane_on(words, byte_index):
    """Bit `byte_index` of a MaskReg's four words: whether the lane starting at that byte is active (SPEC-2 D64)."""
    return (words[byte_index >> 6] >> np.uint64(byte_index & 63)) & np.uint64(1)


def _lane_on_codegen(context, builder, sig, args):
    """lane_on in the caller (jit/lowered.py): the word (through the array's data pointer, or picked from the
    tuple's four by three selects), then the bit. It was an inline="always" function whose tuple index numba lowers
    as a switch over the four words at each of its two dozen call sites (issue 20); then a store of the tuple into a
    stack slot and a load through it, which in a lane loop stored the four words again every lane (LLVM kept the
    store in the loop): Reg Add's mask merge over 256 bytes of a float register took 1.4 us (session 37)."""
    words, byte = args
    i64 = ir.IntType(64)
    index = builder.ashr(byte, ir.Constant(i64, 6))
    if isinstance(sig.args[0], types.Array):
        word = builder.load(builder.gep(context.make_array(sig.args[0])(context, builder, words).data, [index]))
    else:
        word = builder.extract_value(words, 3)
        for k in (2, 1, 0):
            word = builder.select(builder.icmp_signed("==", index, ir.Constant(i64, k)),
                                  builder.extract_value(words, k), word)
    return builder.and_(builder.lshr(word, builder.and_(byte, ir.Constant(i64, 63))), ir.Constant(i64, 1))


def _words_type(t):
    """A MaskReg's four words: the register's tuple, or a contiguous uint64 array (the codegen reads its data
    pointer; a strided view is a typing error, not a wrong bit)."""
    if isinstance(t, types.UniTuple):
        return t.dtype == types.uint64 and t.count == 4
    return isinstance(t, types.Array) and t.dtype == types.uint64 and t.ndim == 1 and t.layout == "C"


lowered(lane_on, (_words_type, types.int64), types.uint64, _lane_on_codegen)


@internal
def _check_pair(op, dst_kind, src_kind):
    if op == PAIR:
        # plain Python's checks, order and words (reg.py PairReduceElem): the source's dtype, then dst's (audit19r:
        # compiled named both as one pair); two constant texts, as numba would compile string formatting
        if src_kind != KIND_HALF and src_kind != KIND_FLOAT:
            raise UnsupportedDTypeError("PairReduceElem", "kind", src_kind, "half, float (SPEC 7.6)", "ascend950")
        if dst_kind != src_kind:
            raise UnsupportedDTypeError("PairReduceElem", "dst kind", dst_kind,
                                        "half, the source's (SPEC 7.6)" if src_kind == KIND_HALF else
                                        "float, the source's (SPEC 7.6)", "ascend950")
        return
    if op == SUM:
        ok = ((dst_kind == src_kind and (src_kind == KIND_HALF or src_kind == KIND_FLOAT or src_kind == KIND_INT32 or
                                         src_kind == KIND_UINT32 or src_kind == KIND_INT16 or src_kind == KIND_UINT16))
              or (dst_kind == KIND_INT32 and src_kind == KIND_INT16)
              or (dst_kind == KIND_UINT32 and src_kind == KIND_UINT16))
    else:
        ok = dst_kind == src_kind and (src_kind == KIND_HALF or src_kind == KIND_FLOAT or src_kind == KIND_INT16 or
                                       src_kind == KIND_UINT16 or src_kind == KIND_INT32 or src_kind == KIND_UINT32)
    if not ok:
        raise UnsupportedDTypeError("ReduceDataBlock", "dstReg/srcReg kinds", (dst_kind, src_kind),
                                    "SUM: half<-half, float<-float, int32<-int32|int16, uint32<-uint32|uint16, "
                                    "int16<-int16, uint16<-uint16 (D25); MAX/MIN: the same type in and out, "
                                    "half, float, int16, uint16, int32, uint32", "ascend950")


@internal
def _int_lane(reg, j, kind):
    """Lane j of an int16/uint16/int32/uint32 register as an int64 (sign- or zero-extended: the widening SUM, SPEC
    7.5), read through its bytes: a typed view per kind would be a compiled specialisation each."""
    if kind == KIND_INT16 or kind == KIND_UINT16:
        v = np.int64(u16_at(reg, j))
        return v - 65536 if kind == KIND_INT16 and v >= 32768 else v
    v = np.int64(u32_at(reg, j))
    return v - 4294967296 if kind == KIND_INT32 and v >= 2147483648 else v


# float32 lane k of a register's scratch bytes (VL + 4k): the hot SUM tree runs there, without allocation or views
@njit(cache=True, inline="always")
def _scratch(reg, k):
    return f32_from_bits(u32_at(reg, VL // 4 + k))


@njit(cache=True, inline="always")
def _set_scratch(reg, k, v):
    set_u32(reg, VL // 4 + k, f32_bits(v))


@njit(cache=True, inline="always")
def _negative(x):
    """Sign bit set (tells -0 from +0)."""
    return (f32_bits(x) >> np.uint32(31)) == 1


@internal
def _extreme(a, b, op):
    """MAX / MIN of two lanes with NaN propagation, max(-0, +0) = +0 and min(-0, +0) = -0 (SPEC 7.5)."""
    if a != a or b != b:
        return np.float32(np.nan)
    if a == b:  # equal values; only the zeros' signs can differ
        return (b if _negative(a) else a) if op == MAX else (a if _negative(a) else b)
    return (a if a > b else b) if op == MAX else (a if a < b else b)


@njit(cache=True, inline="always")
def _float_lane(reg, j, is_half):
    return half_bits_to_f32(u16_at(reg, j)) if is_half else f32_from_bits(u32_at(reg, j))


@internal
def _combine(x, y, op, is_half, sat):
    """One node of a block tree: SUM rounds to half (with the overflow mode) for half registers; MAX / MIN of
    halves are halves already."""
    if op != SUM:
        return _extreme(x, y, op)
    return round_half(x + y, sat) if is_half else x + y


@njit(cache=True, inline="always")
def _int_combine(acc, v, op):
    """SUM is exact (wrapped to the dst width when stored, SPEC 7.5, D25); MAX / MIN."""
    if op == SUM:
        return acc + v
    return larger(acc, v) if op == MAX else smaller(acc, v)


@internal
def int_range(kind):
    """[MIN, MAX] of an integer kind up to 32 bits (the Reg API's integer lanes)."""
    if kind == KIND_INT8:
        return -128, 127
    if kind == KIND_UINT8:
        return 0, 255
    if kind == KIND_INT16:
        return -32768, 32767
    if kind == KIND_UINT16:
        return 0, 65535
    if kind == KIND_INT32:
        return -2147483648, 2147483647
    return 0, 4294967295


@njit(cache=True, no_cfunc_wrapper=True)
def reduce_data_block(dst, src, words, op, mode, float_class, int_class):
    """ReduceDataBlock<op> (SPEC 7.5; D3, D20, D25): per 32-byte block b, the result in dst lane b.

    The float trees run level by level over the whole register: a block is a power-of-two run of adjacent
    lanes, so log2(lanes per block) halvings of all lanes are exactly the 8 per-block adjacent-pair trees.
    One cached function for every kind and op (not inlined into VFs: compiled once, not per VF; a VF calls it with
    borrowed registers, so the call costs no reference counting). float_class / int_class: dtype-class markers (0
    or None, as reg_ops.reduce's): a plain call and a VF register of a literal dtype compile the source's class
    alone (issue 20), a register of a run-time dtype both."""
    if mode != ZEROING:
        raise ParameterError("PairReduceElem" if op == PAIR else "ReduceDataBlock", "mode", mode,
                             "MaskMergeMode.ZEROING (MERGING is not supported)", "ascend950")
    dk, sk = np.int64(dst[H_KIND]), np.int64(src[H_KIND])
    _check_pair(op, dk, sk)
    sat = (src[H_CTRL] & M_HALF_SAT) != 0
    ssize = kind_size(sk)
    is_float = sk == KIND_HALF or sk == KIND_FLOAT
    if float_class is not None and is_float:
        # the tree in place in dst's scratch bytes (no allocation): level 1 reads src's lanes (masked ones are 0 for
        # SUM, the identity for MAX / MIN, SPEC 7.5), each later level lane k reads lanes 2k, 2k+1 >= k
        is_half = sk == KIND_HALF
        pairs_only = op == PAIR  # PairReduceElem: level 1 alone, L/2 results (SPEC 7.6)
        if pairs_only:
            op = SUM
        fill = np.float32(0.0) if op == SUM else (np.float32(-np.inf) if op == MAX else np.float32(np.inf))
        width = VL // ssize // 2
        if words[0] == words[1] == words[2] == words[3] == np.uint64(0xFFFFFFFFFFFFFFFF):
            for k in range(width):
                _set_scratch(dst, k, _combine(_float_lane(src, 2 * k, is_half), _float_lane(src, 2 * k + 1, is_half),
                                              op, is_half, sat))
        else:
            for k in range(width):
                x = _float_lane(src, 2 * k, is_half) if lane_on(words, 2 * k * ssize) else fill
                y = _float_lane(src, 2 * k + 1, is_half) if lane_on(words, (2 * k + 1) * ssize) else fill
                _set_scratch(dst, k, _combine(x, y, op, is_half, sat))
        while width > 8 and not pairs_only:
            width //= 2
            for k in range(width):
                _set_scratch(dst, k, _combine(_scratch(dst, 2 * k), _scratch(dst, 2 * k + 1), op, is_half, sat))
        _write_results(dst, dk, sk, sat, width)
    if int_class is not None and not is_float:
        lo, hi = int_range(sk)
        init = np.int64(0) if op == SUM else (np.int64(lo) if op == MAX else np.int64(hi))
        results = empty_array(8, np.int64)
        for blk in range(8):
            results[blk] = init
        shift = 4 if ssize == 2 else 3  # lane j lies in block j // (32 / size)
        for j in range(VL // ssize):
            if lane_on(words, j * ssize):
                results[j >> shift] = _int_combine(results[j >> shift], _int_lane(src, j, sk), op)
        for i in range(VL):
            dst[i] = 0
        for blk in range(8):
            if kind_size(dk) == 2:
                set_u16(dst, blk, np.uint16(results[blk] & 0xFFFF))
            else:
                set_u32(dst, blk, np.uint32(results[blk] & 0xFFFFFFFF))
    dst[H_CTRL] = src[H_CTRL]


@njit(cache=True, inline="always")
def _final(v, sk, sat):
    """D20 on a half block result: NaN -> +0, +-inf -> +-65504 (also the fully masked identities)."""
    if sk == KIND_HALF and sat:
        return np.float32(0.0) if v != v else smaller(larger(v, -HALF_MAX), HALF_MAX)
    return v


@internal
def _write_results(dst, dk, sk, sat, count):
    """The `count` results (scratch lanes 0..count-1: 8 block results, or PairReduceElem's L/2) into dst lanes
    0..count-1; the lanes after them are 0 (ZEROING, D3, SPEC 7.6)."""
    if dk == KIND_HALF:
        for j in range(count):
            set_u16(dst, j, half_store_bits(_final(_scratch(dst, j), sk, sat)))
        for i in range(2 * count, VL):
            dst[i] = 0
    else:
        for j in range(count):
            set_u32(dst, j, float_store_bits(_final(_scratch(dst, j), sk, sat)))
        for i in range(4 * count, VL):
            dst[i] = 0
