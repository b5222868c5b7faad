"""The element-wise family on one table-driven engine (SPEC-2 sections 1-6; SPEC 2, 3, 5, 8.2 for Add).

An instruction is a row of `OPS` (name, arity, per-device dtypes, overlap rule of D34, the kernel's op code, the
reference function, fidelity from `ascend_jit.fidelity`), a lane function in `jit/lanes.py` and a reference function
in `reference/elementwise.py`. Every call goes through the same steps: parse the form (count / high-dim), one memoised
validation of the whole call (dtypes per device, ranges, mask plan, footprints inside the UB and inside each tensor,
overlap, config) returning a small tuple, then one compiled call of the arity's lane walk (`jit/elementwise.py`).
"""
import enum
import inspect
import math
import operator
import struct
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np
from numba.core import config

from ..core import CTRL_COUNTER_MODE, continuous_mask_words, count_call_effect
from ..dtypes import ALL as ALL_DTYPES, resolve as _resolve_dtype
from ..enums import DivAlgo, ExpAlgo, LnAlgo, ReciprocalAlgo, RsqrtAlgo, SqrtAlgo
from ..errors import (OutOfBoundsError, OverlapError, ParameterError, StateError, UnsupportedDeviceError,
                      UnsupportedDTypeError)
from ..jit import elementwise as K
from ..jit.direct import EntryTable, PreparedCall
from ..reference import elementwise as R
from ..tensor import SIZE_CHANGE_HOOKS, LocalTensor
from ..sanitizer import PIPE_MTE2, PIPE_MTE3, PIPE_S, PIPE_V, bit_mask_scratch_flags, vector_access
from ._common import as_flag, as_int, memo_mask_words, remember, repeat_params as _repeat_params, split_forms
from ._common import (MaskPlan, Operand, UnaryRepeatParams, as_signed64, check_align, check_count_within,
                      check_count_overlap, check_inside_ub, check_overlap, check_range, check_repeat_overlap,
                      check_tensor_bounds, operands, plan_mask, recorded_mask, refuse_empty_mask_on_950, register_count,
                      require_defined_mask)
from ._scalar import element_scalar, scalar_bits

# --- parameter structs (SPEC-2 1.1) ----------------------------------------------------------------------------------


# mutable: C++ kernels default-construct the struct and set fields (`BinaryRepeatParams p; p.dstRepStride = 4;`);
# equality and hash are the fields' values, which validation memos key on
@dataclass(unsafe_hash=True, slots=True)
class BinaryRepeatParams:
    """SPEC 1.3: uint8 fields, constructor order (dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep)."""
    dstBlkStride: int = 1
    src0BlkStride: int = 1
    src1BlkStride: int = 1
    dstRepStride: int = 8
    src0RepStride: int = 8
    src1RepStride: int = 8


@dataclass(unsafe_hash=True, slots=True)  # mutable as BinaryRepeatParams
class CopyRepeatParams:
    """Copy's strides, in DataBlocks (32 B), as the devkit's `include/basic_api/kernel_struct_data_copy.h` declares
    them (constructor order, uint16 fields, the header's defaults) and the Copy page's 表3/表4 bound them:
    dstStride / srcStride 0..65535 between the blocks of one repeat, dstRepeatSize / srcRepeatSize 0..4095 between
    repeats. The header's default dstStride is 0, which Copy refuses (SPEC-2 1.2, SPEC D10): set it."""
    dstStride: int = 0
    srcStride: int = 0
    dstRepeatSize: int = 8
    srcRepeatSize: int = 8


@dataclass(unsafe_hash=True, slots=True)  # mutable as BinaryRepeatParams
class BrcbRepeatParams:
    """SPEC-2 5.2: dstBlkStride, dstRepStride (uint16 each; dstBlkStride 0 refused, D61)."""
    dstBlkStride: int = 1
    dstRepStride: int = 8


# --- 950 algorithm configs (SPEC-2 2.3, 4.3); the algorithm enums live in enums.py (the Reg API reads them too) --
@dataclass(frozen=True)
class DivConfig:
    algo: DivAlgo = DivAlgo.INTRINSIC


@dataclass(frozen=True)
class ExpConfig:
    algo: ExpAlgo = ExpAlgo.INTRINSIC


@dataclass(frozen=True)
class LnConfig:
    algo: LnAlgo = LnAlgo.INTRINSIC


@dataclass(frozen=True)
class SqrtConfig:
    algo: SqrtAlgo = SqrtAlgo.INTRINSIC


@dataclass(frozen=True)
class RsqrtConfig:
    algo: RsqrtAlgo = RsqrtAlgo.INTRINSIC


@dataclass(frozen=True)
class ReciprocalConfig:
    algo: ReciprocalAlgo = ReciprocalAlgo.INTRINSIC


_FTZ_ALGOS = {"INTRINSIC", "PRECISION_1ULP_FTZ_TRUE", "DIFF_COMPENSATION", "PRECISION_0ULP_FTZ_TRUE"}  # D38
_FLOAT_ONLY_ALGOS = {"DIFF_COMPENSATION", "PRECISION_0ULP_FTZ_TRUE", "PRECISION_0ULP_FTZ_FALSE", "FAST_INVERSE"}


# --- the op table ----------------------------------------------------------------------------------------------------
D950, A3, A2, B310, P310, T910 = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore",
                                  "atlas-training")
_B16_32 = ("int16", "half", "int32", "float")


def _table(d950=(), a2=(), b310=None, p310=None, t910=(), a3=None):
    """Per-device dtype names (A3 as A2 unless given; 310B/310P as A2 unless given)."""
    return {D950: tuple(d950), A2: tuple(a2), A3: tuple(a2 if a3 is None else a3),
            B310: tuple(a2 if b310 is None else b310), P310: tuple(a2 if p310 is None else p310), T910: tuple(t910)}


@dataclass(frozen=True, eq=False)
class Op:
    """One row of the element-wise op table."""
    name: str
    arity: str                   # "binary", "scalar", "unary", "ternary", "axpy"
    code: int                    # kernel op code (jit/elementwise.py)
    dtypes: dict                 # device name -> dtype names (every form)
    count_only: dict             # device name -> dtype names offered by the count form only
    reference: Callable          # reference/elementwise.py lane function
    overlap: str = "general"     # D34: "general", "src1-accumulate", "none"
    operator: str = None         # "-", "*", ... (SPEC-2 1.1 operator forms)
    config: type = None          # the 950 algorithm config class (Div, Exp, ...)
    int_saturates: bool = True   # D35 applies CTRL[53]; Div never saturates (D48)
    mixed: dict = None           # device name -> (src dtype, dst dtype) pairs of different widths (D33)
    count_devices: tuple = None  # the devices offering the count form (None: every device offering the row)
    bitwise: bool = False        # walks the lanes as unsigned integers of the element width, whatever the dtype
    shift: bool = False          # the scalar is a shift amount, range-checked per device (_shift_amount)
    set_mask_ignored: tuple = (D950,)  # devices whose count form ignores is_set_mask (D32; the shift pages add 310B)

    def __repr__(self):
        return f"Op({self.name})"


_ADD_950 = ("int8", "uint8", "int16", "uint16", "half", "bfloat16", "int32", "uint32", "float", "int64", "uint64")
_8_64 = ("int8", "uint8", "int64", "uint64")
_64 = ("int64", "uint64")
_NONE = _table()

OPS = {}


def _op(*args, **kw):
    row = Op(*args, **kw)
    OPS[row.name] = row
    return row


ADD = _op("Add", "binary", K.ADD, _table(_ADD_950, _B16_32, t910=("half", "int32", "float")),
          _table(_8_64), R.add, overlap="src1-accumulate", operator="+")
SUB = _op("Sub", "binary", K.SUB, _table(_ADD_950, _B16_32, t910=("half", "int32", "float")),
          _table(_8_64), R.sub, overlap="src1-accumulate", operator="-")
MUL = _op("Mul", "binary", K.MUL, _table(("int16", "uint16", "half", "bfloat16", "int32", "uint32", "float") + _64,
                                         _B16_32, t910=("half", "int32", "float")),
          _table(_64), R.mul, overlap="src1-accumulate", operator="*")
DIV = _op("Div", "binary", K.DIV, _table(("int16", "uint16", "half", "int32", "uint32", "float") + _64,
                                         ("half", "float"), t910=("half", "float")),
          _table(_64), R.div, operator="/", config=DivConfig, int_saturates=False)
MAX = _op("Max", "binary", K.MAX, _table(_ADD_950, _B16_32, t910=("half", "int32", "float")), _table(_8_64), R.max_,
          overlap="src1-accumulate")
MIN = _op("Min", "binary", K.MIN, _table(_ADD_950, _B16_32, t910=("half", "int32", "float")), _table(_8_64), R.min_,
          overlap="src1-accumulate")
AND = _op("And", "binary", K.AND, _table(("int8", "uint8", "int16", "uint16", "int32", "uint32") + _64,
                                         ("int16", "uint16"), t910=("int16", "uint16")), _table(_8_64), R.and_,
          operator="&")
OR = _op("Or", "binary", K.OR, AND.dtypes, AND.count_only, R.or_, operator="|")
ADD_RELU = _op("AddRelu", "binary", K.ADD_RELU, _table(("int16", "half", "float") + _64, ("int16", "half", "float"),
                                                      b310=("half", "float")), _table(_64), R.add_relu,
               overlap="src1-accumulate")
SUB_RELU = _op("SubRelu", "binary", K.SUB_RELU, ADD_RELU.dtypes, ADD_RELU.count_only, R.sub_relu,
               overlap="src1-accumulate")

_SCALAR_950 = ("int8", "uint8", "int16", "half", "bfloat16", "int32", "float", "int64", "uint64")
ADDS = _op("Adds", "scalar", K.ADD, _table(_SCALAR_950, _B16_32, t910=("half", "float")), _table(_8_64), R.add)
MULS = _op("Muls", "scalar", K.MUL, _table(("int16", "half", "bfloat16", "int32", "float") + _64, _B16_32,
                                           t910=("half", "float")), _table(_64), R.mul)
MAXS = _op("Maxs", "scalar", K.MAX, _table(_SCALAR_950, _B16_32), _table(_8_64), R.max_)
MINS = _op("Mins", "scalar", K.MIN, MAXS.dtypes, MAXS.count_only, R.min_)
LEAKY_RELU = _op("LeakyRelu", "scalar", K.LEAKY_RELU, _table(("half", "float"), ("half", "float")), _NONE,
                 R.leaky_relu)

_HF = ("half", "float")
ABS = _op("Abs", "unary", K.ABS, _table(("int8", "int16", "half", "int32", "float", "int64"), _HF,
                                        b310=("int16", "half", "float"), t910=_HF), _table(("int8", "int64")), R.abs_)
RELU = _op("Relu", "unary", K.RELU, _table(("half", "int32", "float", "int64"), ("half", "int32", "float"),
                                           t910=("half",)), _table(("int64",)), R.relu)
EXP = _op("Exp", "unary", K.EXP, _table(_HF, _HF, t910=_HF), _NONE, R.exp, config=ExpConfig)
LN = _op("Ln", "unary", K.LN, _table(_HF, _HF, t910=_HF), _NONE, R.ln, config=LnConfig)
SQRT = _op("Sqrt", "unary", K.SQRT, _table(_HF, _HF, t910=_HF), _NONE, R.sqrt, config=SqrtConfig)
RSQRT = _op("Rsqrt", "unary", K.RSQRT, _table(_HF, _HF, t910=_HF), _NONE, R.rsqrt, config=RsqrtConfig)
RECIPROCAL = _op("Reciprocal", "unary", K.RECIPROCAL, _table(_HF + _64, _HF, t910=_HF), _table(_64), R.reciprocal,
                 config=ReciprocalConfig)

MUL_ADD_DST = _op("MulAddDst", "ternary", K.MUL_ADD_DST,
                  _table(_HF + _64, _HF, b310=_HF + ("int16", "uint16", "int32", "uint32")), _table(_64),
                  R.mul_add_dst, overlap="ternary",
                  mixed=_table((("half", "float"),), (("half", "float"),), b310=()))
FUSED_MUL_ADD = _op("FusedMulAdd", "ternary", K.FUSED_MUL_ADD, _table(("half", "bfloat16", "float") + _64, _HF),
                    _table(_64), R.fused_mul_add, overlap="ternary")
AXPY = _op("Axpy", "axpy", K.AXPY, _table(("half", "float", "bfloat16") + _64, _HF, t910=_HF), _table(_64), R.axpy,
           overlap="ternary", mixed=_table((("half", "float"),), (("half", "float"),), t910=(("half", "float"),)))

_DUP_950 = ("int8", "uint8", "int16", "uint16", "half", "bfloat16", "int32", "uint32", "float", "int64", "uint64")
_DUP = ("int16", "uint16", "half", "bfloat16", "int32", "uint32", "float")
DUPLICATE = _op("Duplicate", "fill", -1, _table(_DUP_950, _DUP, t910=_DUP), _table(_8_64), R.fill_high_dim)
BRCB = _op("Brcb", "brcb", -1, _table(_DUP_950, _DUP, b310=(), p310=("int16", "uint16", "half", "int32", "uint32",
                                                                    "float")), _NONE, R.brcb, overlap="none")
# Copy (UB -> UB through the vector unit; not in the SPECs: the devkit pages "Copy（UBToUB掩码式高维数据搬运）" and
# "Copy（UBToUB连续数据搬运）", docs/decisions.md "Copy"): 16/32-bit types in the high-dim form (the 950's high-dim
# Copy static_asserts b16/b32), every type in the 950-only count form; no Copy on the 310P and the 910.
_B16_B32 = ("int16", "uint16", "half", "bfloat16", "int32", "uint32", "float")
COPY = _op("Copy", "copy", K.COPY, _table(_DUP_950, _B16_B32, p310=()), _table(_8_64), R.copy_high_dim,
           count_devices=(D950,))

# Logic rows (not in the SPECs: the devkit pages M/逻辑计算/ShiftLeft.md, ShiftRight.md, Not.md; docs/decisions.md
# "ShiftLeft, ShiftRight, Not"). The shifts: integer types only, 8/64-bit through the 950's count form only, no
# CTRL[53] saturation (a shift result always fits its type); the 310P and the 910 do not offer them.
_SHIFT_950 = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
_SHIFT = ("int16", "uint16", "int32", "uint32")
SHIFT_LEFT = _op("ShiftLeft", "scalar", K.SHIFT_LEFT, _table(_SHIFT_950, _SHIFT, p310=()), _table(_8_64),
                 R.shift_left, int_saturates=False, shift=True, set_mask_ignored=(D950, B310))
SHIFT_RIGHT = _op("ShiftRight", "scalar", K.SHIFT_RIGHT, SHIFT_LEFT.dtypes, SHIFT_LEFT.count_only, R.shift_right,
                  int_saturates=False, shift=True, set_mask_ignored=(D950, B310))
# ShiftRight with roundEn=True: the high-dim forms on A2/A3 for int16/int32 (the 310B and the 950 take False only;
# on unsigned types the flag has no effect, so those calls run SHIFT_RIGHT). Not in OPS: one public entry, ShiftRight.
SHIFT_RIGHT_ROUND = Op("ShiftRight", "scalar", K.SHIFT_RIGHT_ROUND, _table((), ("int16", "int32"), b310=(), p310=()),
                       _NONE, R.shift_right_round, int_saturates=False, shift=True)
NOT = _op("Not", "unary", K.NOT, _table(("int8", "uint8", "int16", "uint16", "half", "int32", "uint32", "float") + _64,
                                        ("int16", "uint16"), t910=("int16", "uint16")), _table(_8_64), R.not_high_dim,
          bitwise=True)

# Ands, Ors (not in the SPECs: the devkit pages M/逻辑计算/Ands.md, Ors.md; docs/decisions.md "Ands, Ors"): And / Or
# of each element with the scalar, on the 950 alone; int16/uint16 in every form, int64/uint64 in the count form only.
# The binary kernel's bit group with the scalar broadcast, as ShiftLeft's.
ANDS = _op("Ands", "scalar", K.AND, _table(("int16", "uint16") + _64), _table(_64), R.and_)
ORS = _op("Ors", "scalar", K.OR, ANDS.dtypes, ANDS.count_only, R.or_)

_UNSET = object()
# Rows whose kernel flags are the two overflow modes only (no config, CTRL[53] applies, no 950 multiply-add fusion):
# _run_count computes them inline.
_PLAIN_FLAGS = frozenset(r for r in OPS.values() if r.config is None and r.int_saturates and
                         r.arity in ("binary", "scalar", "unary"))
_PARAMS = {"binary": BinaryRepeatParams, "ternary": BinaryRepeatParams, "scalar": UnaryRepeatParams,
           "unary": UnaryRepeatParams, "axpy": UnaryRepeatParams, "copy": CopyRepeatParams}
_TENSORS = {"fill": ("dst", "src"), "brcb": ("dst", "src"), "binary": ("dst", "src0", "src1"), "ternary": ("dst", "src0", "src1"), "scalar": ("dst", "src"),
            "unary": ("dst", "src"), "axpy": ("dst", "src"), "copy": ("dst", "src")}


# --- validation (memoised: a pure function of the call's facts) --------------------------------------------------------
@dataclass(frozen=True)
class _TensorFacts:
    """What validation needs of a tensor (hashable, so whole calls memoise)."""
    name: str
    dtype: object
    addr: int
    size: int

    @property
    def nbytes(self):
        return self.size * self.dtype.size


@dataclass(frozen=True)
class _Where:
    """The core facts check_tensor_bounds reads."""
    bounds: str
    device: str


def _key(tensors):
    """The memo key of a call's tensors: (dtype, addr, size) of each, flat (cheap to build and hash; read from the
    read-only slots behind LocalTensor's properties, a third of the cost per call)."""
    if len(tensors) == 3:
        a, b, c = tensors
        return (a._dtype, a._addr, a._size, b._dtype, b._addr, b._size, c._dtype, c._addr, c._size)
    if len(tensors) == 2:
        a, b = tensors
        return (a._dtype, a._addr, a._size, b._dtype, b._addr, b._size)
    a = tensors[0]
    return (a._dtype, a._addr, a._size)


def _facts(row, key):
    names = _TENSORS[row.arity]
    return tuple(_TensorFacts(names[k // 3], key[k], key[k + 1], key[k + 2]) for k in range(0, len(key), 3))


# what a port writes on a device without the instruction (port64h: the 310P GeGluGradV2's Mins / Maxs, refused on the
# 910 naming only the devices that offer them): the instructions it takes, whose dtypes on the device the advice
# names (review64b: the 910's Relu is half only, its Max has no int16), and the text
_WRITE_INSTEAD = {
    "AddRelu": (("Add", "Relu"), "aj.Add, then aj.Relu of the sum (the same bits: Relu does not round)"),
    "SubRelu": (("Sub", "Relu"), "aj.Sub, then aj.Relu of the difference (the same bits: Relu does not round)"),
    "Maxs": (("Duplicate", "Max"), "aj.Duplicate the scalar into a tensor, then aj.Max"),
    "Mins": (("Duplicate", "Min"), "aj.Duplicate the scalar into a tensor, then aj.Min"),
    "Ands": (("Duplicate", "And"), "aj.Duplicate the scalar into a tensor, then aj.And"),
    "Ors": (("Duplicate", "Or"), "aj.Duplicate the scalar into a tensor, then aj.Or"),
    "LeakyRelu": (("Muls", "Max"), "for a slope in [0, 1], aj.Muls(tmp, src, slope), then aj.Max(dst, src, tmp)"),
    "MulAddDst": (("Mul", "Add"), "aj.Mul(tmp, src0, src1), then aj.Add(dst, tmp, dst) (two roundings where "
                                  "MulAddDst has one)"),
    "FusedMulAdd": (("Mul", "Add"), "aj.Mul(tmp, src0, dst), then aj.Add(dst, tmp, src1) (two roundings where "
                                    "FusedMulAdd has one)"),
    "Copy": ((), "aj.DataCopy(dst, src, count) from UB to UB (whole 32-byte blocks)"),
    "Brcb": (("Duplicate",), "aj.Duplicate of each source element (GetValue) into its 32-byte block"),
}


def _write_instead(name, spec):
    """The advice of an instruction `spec` lacks, for the dtypes the device offers every step of it in (None: no
    such dtype, or no advice)."""
    steps, text = _WRITE_INSTEAD.get(name, (None, None))
    if text is None:
        return None
    if not steps:
        return text
    common = None
    for step in steps:
        offered = set(OPS[step].dtypes.get(spec.name, ()))
        common = offered if common is None else common & offered
    names = [d.name for d in ALL_DTYPES if d.name in common]
    return f"{text} (for {', '.join(names)})" if names else None


def _require_offered(row, spec):
    """SPEC-2 1.8/1.9: an instruction the device does not offer is refused as such (UnsupportedDeviceError) before
    any of its other arguments is judged. Returns the dtypes the device offers."""
    offered = row.dtypes.get(spec.name, ())
    if not offered:
        instead = _write_instead(row.name, spec)
        raise UnsupportedDeviceError(row.name, "device", spec.name,
                                     legal=", ".join(d for d, v in row.dtypes.items() if v),
                                     detail="the device does not offer this instruction (SPEC-2 1.9)" +
                                            (f"; on it: {instead}" if instead else ""))
    return offered


def _check_dtypes(row, spec, facts, high_dim):
    api, device = row.name, spec.name
    offered = _require_offered(row, spec)
    dst = facts[0].dtype
    src = facts[1].dtype if len(facts) > 1 else dst
    pairs = (row.mixed or {}).get(device, ())
    mixed = src is not dst and (src.name, dst.name) in pairs
    if not mixed:
        if dst.name not in offered:
            detail = None
            if row.name in ("And", "Or") and dst.name in ("int32", "uint32"):
                detail = ("SPEC-2 D60: use ReinterpretCast to int16/uint16 (and a doubled count) for 32-bit data "
                          "on this device")
            legal = ", ".join(offered) + "".join(f", {s}->{d}" for s, d in pairs)
            raise UnsupportedDTypeError(api, "dtype", dst.name, legal=legal, device=device, detail=detail)
        for f in facts[1:]:
            if f.dtype is not dst:
                raise UnsupportedDTypeError(api, f"{f.name}.dtype", f.dtype.name, device=device,
                                            legal=f"{dst.name} (as dst)" + "".join(f" or {s} with a {d} dst"
                                                                                    for s, d in pairs))
    else:
        for f in facts[2:]:
            if f.dtype is not src:
                raise UnsupportedDTypeError(api, f"{f.name}.dtype", f.dtype.name, legal=f"{src.name} (as src0)",
                                            device=device)
    if high_dim and dst.name in row.count_only.get(device, ()):
        raise UnsupportedDTypeError(api, "dtype", dst.name, device=device,
                                    legal=", ".join(n for n in offered if n not in row.count_only.get(device, ())),
                                    detail="this type only through the count form (SPEC-2 2.2, 3.2, 4.2, 6.2)")
    return mixed


@lru_cache(maxsize=256)
def _config_flags(row, spec, dtype, config):
    """SPEC-2 2.3 / 4.3 / D48: the algorithm's kernel flags, after checking it is offered here."""
    if config is None:
        algo = "INTRINSIC"
    else:
        algo_obj = getattr(config, "algo", config)
        if row.config is None or not isinstance(algo_obj, enum.IntEnum) or \
                type(algo_obj).__name__ != row.config.__name__.replace("Config", "Algo"):
            legal = f"aj.{row.config.__name__} or aj.{row.config.__name__.replace('Config', 'Algo')}" \
                if row.config else "no config"
            raise ParameterError(row.name, "config", config, legal=legal, device=spec.name)
        algo = algo_obj.name
    if spec.name != D950:
        if algo != "INTRINSIC":
            raise UnsupportedDeviceError(row.name, "config", algo, legal="the default (INTRINSIC) off the 950",
                                         device=spec.name, detail="algorithm configs exist on the 950 only (D48)")
        return 0
    if not dtype.is_float:
        if algo not in ("INTRINSIC", "PRECISION_1ULP_FTZ_TRUE"):
            raise ParameterError(row.name, "config", algo, legal="INTRINSIC or PRECISION_1ULP_FTZ_TRUE for integer "
                                 "types (SPEC-2 2.3)", device=spec.name)
        return 0
    if algo in _FLOAT_ONLY_ALGOS and dtype.name != "float":
        raise ParameterError(row.name, "config", algo, legal="an algorithm that supports " + dtype.name +
                             " (SPEC-2 2.3, 4.3: this one is float only)", device=spec.name)
    flags = K.FTZ if algo in _FTZ_ALGOS else 0
    if row.name in ("Sqrt", "Rsqrt") and algo in ("FAST_INVERSE", "PRECISION_0ULP_FTZ_FALSE"):
        flags |= K.SQRT_D49
    if row.name == "Rsqrt" and algo == "INTRINSIC":
        flags |= K.RSQRT_VIA_DIV
    return flags


def _count_value(api, spec, count):
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or not 0 <= count <= 2**31 - 1:
        raise ParameterError(api, "count", count, legal="an integer in [0, 2**31 - 1]", device=spec.name)
    return int(count)


@lru_cache(maxsize=8192)
def _validate_count(row, spec, key, count):
    """Every rule of the count form; returns (mixed?, lane count of one repeat)."""
    api = row.name
    if row.count_devices is not None and spec.name not in row.count_devices:
        raise UnsupportedDeviceError(api, "count", count, device=spec.name, legal=_FORMS[row.arity],
                                     detail="the count form exists on " + ", ".join(row.count_devices) + " only")
    facts = _facts(row, key)
    mixed = _check_dtypes(row, spec, facts, False)
    count = _count_value(api, spec, count)
    dsize = facts[0].dtype.size
    for f in facts:
        check_align(api, spec, f.name, f.addr, 32)
        if row.arity == "fill" and f.name == "src":
            if f.size < 1:
                raise OutOfBoundsError(api, "src", f.size, legal=">= 1 element (src[0] is broadcast)",
                                       device=spec.name)
            continue
        # tensors lie inside the UB, so this also refuses every count past the UB end
        check_count_within(api, spec, f.name, f.size, count,
                           f" (the UB holds {spec.ub_bytes // f.dtype.size} elements)")
    d = facts[0]
    for f in facts[1:]:
        nb_src = count * f.dtype.size if row.arity != "fill" else f.dtype.size
        if mixed or row.overlap == "none":
            if d.addr < f.addr + nb_src and f.addr < d.addr + count * dsize:
                raise OverlapError(api, f"dst/{f.name}", f"dst at {d.addr}, {f.name} at {f.addr}", device=spec.name,
                                   legal="disjoint ranges (SPEC-2 D34: mixed-width forms allow no overlap)")
        elif row.arity != "fill":
            check_count_overlap(api, spec, f.name, d.addr, f.addr, count * dsize)
    return mixed, 256 // dsize


@dataclass(frozen=True)
class _DuplicateStrides:
    """Duplicate's high-dim strides (SPEC-2 5.1): uint16 dstBlockStride, uint8 dstRepeatStride."""
    dstBlkStride: int
    dstRepStride: int


_STRIDE_FIELDS = {_DuplicateStrides: (("dst", "dstBlkStride", "dstRepStride", 65535),),
                  BinaryRepeatParams: (("dst", "dstBlkStride", "dstRepStride", 255),
                                       ("src0", "src0BlkStride", "src0RepStride", 255),
                                       ("src1", "src1BlkStride", "src1RepStride", 255)),
                  UnaryRepeatParams: (("dst", "dstBlkStride", "dstRepStride", 65535),
                                      ("src", "srcBlkStride", "srcRepStride", 65535)),
                  CopyRepeatParams: (("dst", "dstStride", "dstRepeatSize", 65535),
                                     ("src", "srcStride", "srcRepeatSize", 65535))}
_REPEAT_STRIDE_MAX = {CopyRepeatParams: 4095}  # the Copy page's 表4; every other struct's repeat strides: uint8
# a refusal names the parameter the call was given: Duplicate's strides are its own keywords, not a struct's fields
_STRIDE_PARAMETERS = {_DuplicateStrides: {"dstBlkStride": "dst_block_stride", "dstRepStride": "dst_repeat_stride"}}


def _check_strides(api, spec, params, strides):
    """Every stride field in its range, dst's block stride not 0 (SPEC 1.2, D10; SPEC-2 D61); fills `strides` with
    operand name -> (block stride, repeat stride)."""
    fields = _STRIDE_FIELDS[type(params)]
    rep_max = _REPEAT_STRIDE_MAX.get(type(params), 255)
    parameter = _STRIDE_PARAMETERS.get(type(params), {})
    for name, blk_f, rep_f, blk_max in fields:
        blk = check_range(api, spec, parameter.get(blk_f, blk_f), getattr(params, blk_f), 0, blk_max)
        rep = check_range(api, spec, parameter.get(rep_f, rep_f), getattr(params, rep_f), 0, rep_max)
        strides[name] = (blk, rep)
    if strides["dst"][0] == 0:  # SPEC 1.2, D10; SPEC-2 D61
        raise ParameterError(api, parameter.get(fields[0][1], fields[0][1]), 0,
                             legal="[1, ...] (0 is undefined behaviour, SPEC 1.2, D10)", device=spec.name)


@lru_cache(maxsize=8192)
def _validate_high_dim(row, spec, bounds, key, plan, repeat_time, params):
    """Every rule of the high-dim form; returns (repeats, last-repeat lanes, contiguous?, mixed?)."""
    api = row.name
    facts = _facts(row, key)
    mixed = _check_dtypes(row, spec, facts, True)
    repeat_time = check_range(api, spec, "repeat_time", repeat_time, 0, 255)
    strides = {}
    _check_strides(api, spec, params, strides)
    refuse_empty_mask_on_950(api, spec, plan)
    for f in facts:
        check_align(api, spec, f.name, f.addr, 32)
    lanes = 256 // facts[0].dtype.size
    repeat = plan.repeats(lanes, repeat_time)
    last = plan.last_lanes(lanes)
    where = _Where(bounds, spec.name)
    ops, exts = [], []
    for f in facts:
        blk, rep = strides[f.name]
        op = Operand(f.name, f.addr, f.dtype.size, plan.lo, plan.hi, repeat, blk, rep, last)
        ext = check_inside_ub(api, spec, op)
        check_tensor_bounds(api, where, op, f, ext)
        ops.append(op)
        exts.append(ext)
    for k in range(1, len(ops)):
        if mixed or row.overlap == "none":
            if exts[0] is not None and exts[k] is not None and exts[0][0] < exts[k][1] and exts[k][0] < exts[0][1]:
                dbytes = np.concatenate(ops[0].bytes_per_repeat())
                if np.intersect1d(dbytes, ops[k].footprint()).size:
                    raise OverlapError(api, f"dst/{ops[k].name}", "overlapping bytes", device=spec.name,
                                       legal="no overlap at all (SPEC-2 D34)")
            continue
        accumulate = (row.overlap == "src1-accumulate" and k == 2 and facts[0].dtype.name in ("half", "int32", "float")
                      and (strides["src1"][1] == 0 or strides["dst"][1] == 0))
        check_overlap(api, spec, ops[0], ops[k], exts[0], exts[k], src_may_accumulate=accumulate)
    if row.arity in _READS_DST and repeat > 1:
        # dst is a source of the multiply-adds (SPEC-2 6.3): SPEC 8.2's "an earlier iteration's dst must not be a
        # later iteration's src" covers it too, so repeats whose dst bytes meet (dstRepStride 0 accumulating into
        # one row, or a stride shorter than a repeat's reach) are refused; D34's src1 exception names other APIs
        d_per = ops[0].bytes_per_repeat()
        check_repeat_overlap(api, spec, "dst", "dst", d_per, d_per, same=True)
    full_hi, full_lo = continuous_mask_words(lanes)
    default = all(s == (1, 8) for s in strides.values())
    contiguous = default and not mixed and (plan.lo, plan.hi) == (full_lo, full_hi)
    return repeat, last, contiguous, mixed


def _validate(fn, *key):
    try:
        return fn(*key)
    except TypeError as e:  # an unhashable argument: validate uncached, which names the problem
        if "unhashable" not in str(e):
            raise
        return fn.__wrapped__(*key)


# --- dispatch -----------------------------------------------------------------------------------------------------------
_READS_DST = ("ternary", "axpy")   # the multiply-adds accumulate into dst (SPEC-2 6.3)


def _fixed_flags(row, spec, dtype, config):
    """The kernel flags the call shape and config fix (the 950's algorithm flags and fused multiply-add); the two
    overflow modes come from the core on every call (Core.overflow_flags)."""
    if row.config is None and config is None and row.arity not in _READS_DST:
        return 0
    flags = 0
    if row.config is not None:
        flags |= _validate(_config_flags, row, spec, dtype, config)
    elif config is not None:
        raise ParameterError(row.name, "config", config, legal="no config for this instruction", device=spec.name)
    if row.arity in _READS_DST and spec.name == D950:
        flags |= K.FUSED
    return flags


def _sat_mask(row):
    """The overflow-mode flags a row reads: CTRL[53] does not apply to Div (D48)."""
    return K.SAT_HALF | K.SAT_INT if row.int_saturates else K.SAT_HALF


def _flags(row, core, dtype, config):
    return (core.overflow_flags & _sat_mask(row)) | _fixed_flags(row, core.spec, dtype, config)


def _scalar_dtype(row, tensors):
    return tensors[1]._dtype if row.arity == "axpy" else tensors[0]._dtype


def _scalar(row, spec, dtype, value):
    """D29 conversion, as signed int64 bits for the kernel (a shift amount also range-checked)."""
    bits = _scalar_bits(row, spec, dtype, value)
    return bits if not row.shift else _shift_amount(row, spec, dtype, bits)


@lru_cache(maxsize=1024)
def _shift_amount(row, spec, dtype, bits):
    """A shift amount's legal range (devkit ShiftLeft/ShiftRight pages, "scalarValue取值说明"): [0, 16] for 16-bit
    and [0, 32] for 32-bit types on A2/A3/310B; >= 0 on the 950, whose implementation passes it to the Reg shifts as
    an int16 (I/dav_3510/kernel_operator_vec_binary_scalar_impl.h), so at most 32767 there."""
    width = 8 * dtype.size
    value = bits & ((1 << width) - 1)
    if dtype.is_signed and value >> (width - 1):
        value -= 1 << width
    top = 32767 if spec.name == D950 else width
    if not 0 <= value <= top:
        raise ParameterError(row.name, "scalar", value, legal=f"[0, {top}] for {dtype.name}", device=spec.name,
                             detail="the shift amount (devkit M/逻辑计算/" + row.name + ".md, scalarValue取值说明)")
    return bits


def _scalar_bits(row, spec, dtype, value):
    """D29 conversion: a numpy scalar of the exact dtype is used bit for bit, Python floats and ints are memoised by
    type, value and sign (so -0.0 and True never share an entry with 0.0 and 1)."""
    if type(value) is dtype.np_dtype.type:
        return _exact_bits(dtype, value)
    if type(value) in (float, int) and value == value:
        sign = value < 0 if type(value) is int else math.copysign(1.0, value)
        return _scalar_memo(row.name, spec, dtype, type(value), value, sign)
    return as_signed64(scalar_bits(row.name, spec, dtype, value, "scalar"))


_UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_FLOAT_PACK = {"half": struct.Struct("<e"), "float": struct.Struct("<f")}


def _exact_bits(dtype, value):
    """The bits of a numpy scalar of the operand dtype (D29: bit for bit). A numpy scalar's .view costs about 2 us;
    a half or float that is not a NaN goes through the exact double instead (its round trip to the type is exact),
    an integer through int(); NaNs (payloads kept) and bfloat16 through the view."""
    pack = _FLOAT_PACK.get(dtype.name)
    if pack is not None:
        x = float(value)
        if x == x:
            return int.from_bytes(pack.pack(x), "little")
    elif not dtype.is_float:
        return as_signed64(int(value) & ((1 << (8 * dtype.size)) - 1))
    return as_signed64(int(value.view(_UINT_OF_SIZE[dtype.size])))


# DType -> (numpy scalar type, struct pack of its bits): the float types whose exact scalars the scalar entries
# convert inline (as _exact_bits does)
_EXACT_FLOAT_SCALARS = {_resolve_dtype(name): (_resolve_dtype(name).np_dtype.type, _FLOAT_PACK[name].pack)
                        for name in _FLOAT_PACK}


@lru_cache(maxsize=1024)
def _scalar_memo(api, spec, dtype, kind, value, sign):
    return as_signed64(scalar_bits(api, spec, dtype, value, "scalar"))


def _sanitize(row, core, tensors, footprint, own_flags=((), ())):
    """Report one call's exact footprints to the sanitizer: footprint(k, tensor) gives operand k's; `own_flags` the
    implementation's own SetFlag/WaitFlag pairs (vector_access)."""
    reads = [(footprint(k, t), t) for k, t in enumerate(tensors) if k > 0 or row.arity in _READS_DST]
    vector_access(core, row.name, reads=reads, writes=[(footprint(0, tensors[0]), tensors[0])], own_flags=own_flags)


# The kernels' arguments are normalised by validation (the uint8 UB, an int64 parameter array, Python ints, a uint16
# table), so each kernel has one signature per dtype class: call its compiled entry directly, not through numba's
# per-call type dispatch (issue 21).
_ENTRIES = EntryTable()
# Each arity's (count form, high-dim form) kernels: the form is fixed by the validated call shape (P_N >= 0: the count
# form, or a contiguous high-dim call run as one), so a first count call compiles no mask walk (issue 20).
_BINARY_KERNELS = (K.binary_count_kernel, K.binary_repeat_kernel)
_UNARY_KERNELS = (K.unary_count_kernel, K.unary_repeat_kernel)
_TERNARY_KERNELS = (K.ternary_count_kernel, K.ternary_repeat_kernel)
_KERNELS = {"binary": _BINARY_KERNELS, "scalar": _BINARY_KERNELS, "unary": _UNARY_KERNELS, "copy": _UNARY_KERNELS,
            "ternary": _TERNARY_KERNELS, "axpy": _TERNARY_KERNELS, "fill": (K.fill_kernel, K.fill_kernel)}
# The kernels' dtype-class markers (jit/elementwise.py binary_count_kernel): the binary kernels' (half, half FTZ,
# float, int) classes, the unary kernels' (half, float, int) classes, the multiply-add kernels' (half, mixed, float,
# int) classes; the int class's marker is the element width's (K.INT_WIDTHS), so each integer width is a class of
# its own. Every op of a class shares its specialisation (jit/elementwise.py, the binary section's comment).
_BINARY_HALF, _BINARY_HALF_FTZ, _BINARY_FLOAT = (0, None, None, None), (None, 0, None, None), (None, None, 0, None)
_BINARY_INT = {size: (None, None, None, width) for size, width in K.INT_WIDTHS.items()}
_HALF_CLASS, _FLOAT_CLASS = (0, None, None), (None, 0, None)
_INT_CLASS = {size: (None, None, width) for size, width in K.INT_WIDTHS.items()}
_TERNARY_HALF, _TERNARY_MIXED, _TERNARY_FLOAT = (0, None, None, None), (None, 0, None, None), (None, None, 0, None)
_TERNARY_INT = {size: (None, None, None, width) for size, width in K.INT_WIDTHS.items()}
_NO_CLASS = ()
_HALF_KIND = 0  # dtypes.HALF.kind


def _classes(row, dtype, flags, skind):
    """The kernel's dtype-class markers of a call on dst dtype `dtype` with sources of kind `skind` (P_SKIND)."""
    if row.arity == "fill":
        return _NO_CLASS
    if row.bitwise or row.arity == "copy":  # bits, never values: the integer class of the element's width
        return _INT_CLASS[dtype.size]
    if row.arity in ("binary", "scalar"):
        if not dtype.is_float:
            return _BINARY_INT[dtype.size]
        if dtype.kind == _HALF_KIND:
            return _BINARY_HALF_FTZ if flags & K.FTZ else _BINARY_HALF
        return _BINARY_FLOAT
    if row.arity == "unary":  # every half call is the half class (FTZ included)
        if not dtype.is_float:
            return _INT_CLASS[dtype.size]
        return _HALF_CLASS if dtype.kind == _HALF_KIND else _FLOAT_CLASS
    if not dtype.is_float:
        return _TERNARY_INT[dtype.size]
    if dtype.kind == _HALF_KIND:
        return _TERNARY_HALF
    return _TERNARY_FLOAT if skind == dtype.kind else _TERNARY_MIXED  # half sources, float dst (D33)


def _params(row, key, n, strides=(0,) * 6, repeat=0, lo=0, hi=0, last=-1):
    """The kernel parameter array's values (jit/elementwise.py P_*) of a call on the tensors of `key` (_key):
    n >= 0 the count form, n < 0 the high-dim form with its strides (dst blk, src0 blk, src1 blk, dst rep, src0 rep,
    src1 rep), repeats, signed mask words and counter-mode tail."""
    two = len(key) > 3
    src1 = key[7] if row.arity in ("binary", "ternary") else -1
    return (row.code, key[0].kind, key[3].kind if two else 0, key[1], key[4] if two else 0, src1, n, *strides, repeat,
            lo, hi, last)


class _Plan(PreparedCall):
    """One validated call shape of the family (count or high-dim form): its prepared kernel call and what else the
    shape fixes. classes: the kernel's dtype-class markers; a call without config runs with the flags
    `core.overflow_flags & sat_mask | fixed_flags`; effect: what the call leaves in the mask register, as
    core.count_call_effect gives it (None: nothing); nop: the call writes nothing (count 0, repeat 0, empty mask,
    SPEC-2 D30, SPEC D7)."""
    __slots__ = ("classes", "fixed_flags", "sat_mask", "effect", "nop")

    def __init__(self, row, spec, dtype, params, effect, nop):
        self.fixed_flags = _fixed_flags(row, spec, dtype, None)
        self.sat_mask = _sat_mask(row)
        self.classes = _classes(row, dtype, self.fixed_flags, params[K.P_SKIND])
        self.effect, self.nop = effect, nop
        kernel = _KERNELS[row.arity][0 if params[K.P_N] >= 0 else 1]
        super().__init__(_ENTRIES, (kernel, self.classes), kernel, params)

    def run_classes(self, ub, flags, value, classes):
        """The plan's kernel call with other dtype-class markers than its own (a config that changes the class)."""
        _ENTRIES((self._kernel, classes), self._kernel, ub, self.params, flags, value, *classes)


def _call(row, plan, core, dtype, flags, value):
    """Run a plan's kernel with one call's flags; value: the scalar bits (the unary kernel: its half table). A
    config that changes the dtype class (a half Div with FTZ on the 950) takes that class's entry."""
    if row.arity in ("unary", "copy"):  # the unary kernel's table argument (Copy: none)
        value = _half_lookup(row, dtype.kind, flags)
    # (Copy's class is its width's whatever the flags; its counter-mode plans hold one parameter row per repeat)
    classes = plan.classes if row.arity == "copy" else _classes(row, dtype, flags, plan.params[K.P_SKIND])
    if classes is plan.classes:
        plan.run(core.ub, plan.params, flags, value, *classes)
    else:
        plan.run_classes(core.ub, flags, value, classes)


def _apply(core, effect):
    if effect is not None:
        core._apply_mask_effect(effect)


def _run_count(row, core, tensors, count, scalar, config, from_register=False):
    """The count form's whole path: validation (memoised), flags, scalar, sanitizer, kernel, mask effect. Returns
    the call's plan (the public entries keep it for their fast path)."""
    if type(count) is not int:
        count = as_int(row.name, core.spec, "count", count)  # a plain int before the cache key (issue 12)
    plan = _count_plan(row, core.spec, _key(tensors), count)
    dtype = tensors[0]._dtype
    flags = _flags(row, core, dtype, config)
    bits = _scalar(row, core.spec, _scalar_dtype(row, tensors), scalar) if row.arity in ("scalar", "axpy") else 0
    if plan.nop:
        return plan  # SPEC-2 D30: a NOP on every device, mask register included
    if core.sanitizer is not None:
        names = _TENSORS[row.arity]
        _sanitize(row, core, tensors, lambda k, t: (names[k], t.addr, int(count) * t.dtype.size))
    _call(row, plan, core, dtype, flags, bits)
    if not from_register:  # SPEC 2.5: with is_set_mask=False the call writes neither the register nor the mode
        _apply(core, plan.effect)
    return plan


@lru_cache(maxsize=8192)
def _count_plan(row, spec, key, count):
    """_validate_count, then the count form's _Plan. Memoised on the same key as the validation."""
    _, lanes = _validate_count(row, spec, key, count)
    return _Plan(row, spec, key[0], _params(row, key, count), count_call_effect(spec, count % lanes or lanes),
                 count == 0)


def _high_dim_plan(row, spec, key, mask_plan, params, repeat, last, contiguous, recorded=None):
    """The high-dim form's _Plan: default strides over every lane run as the count form; else the kernel's strided
    walk. Its effect is the mask the call records (D22, record_mask): `recorded`'s when given (Copy's counter mode
    runs a lane mask but records the count)."""
    lanes = 256 // key[0].size
    if contiguous:
        values = _params(row, key, (repeat - 1) * lanes + (last if last >= 0 else lanes))
    else:
        names = _STRIDE_FIELDS[type(params)]
        blk = [getattr(params, f[1]) for f in names] + [0] * (3 - len(names))
        rep = [getattr(params, f[2]) for f in names] + [0] * (3 - len(names))
        values = _params(row, key, -1, (*blk, *rep), repeat, as_signed64(mask_plan.lo), as_signed64(mask_plan.hi),
                         last)
    return _Plan(row, spec, key[0], values, _mask_effect(row, spec, mask_plan if recorded is None else recorded),
                 repeat == 0 or mask_plan.empty)


def _mask_effect(row, spec, mask_plan):
    """What a high-dim call leaves in the mask register (D22, record_mask), as _Plan.effect."""
    words = recorded_mask(spec, mask_plan)
    if not spec.high_dim_writes_mask_register and row is not ADD:
        words = None  # SPEC-2 D31: the new high-dim element-wise calls and Duplicate leave the 310B's register alone
    return None if words is None else (*words, False)


class _CopyBlocksPlan(_Plan):
    """Copy in counter mode with more elements per repeat than one register holds (_copy_counter_plan): one kernel
    walk per Copy repeat, in order, so repeats that overlap land as the device's in-order repeats do. Each walk is
    the repeat's DataBlocks as sub-repeats of 8 blocks (8 * blockStride blocks apart, the last one `tail` lanes: the
    kernel's counter-mode tail). operands: dst's and src's Operand of the first Copy repeat; shifts: the bytes between
    two Copy repeats of each (their footprints are the first one's, shifted)."""
    __slots__ = ("operands", "shifts")

    def __init__(self, row, spec, dtype, rows, effect, operands, shifts):
        super().__init__(row, spec, dtype, rows[0], effect, False)
        self.params = np.array(rows, np.int64)
        self.operands, self.shifts = operands, shifts
        self.run = self._run_rows

    def _run_rows(self, ub, params, *args):
        entry = self._entries.get(self._entry_key, self._kernel, (ub, params[0]) + args)
        for k in range(params.shape[0]):
            entry(ub, params[k], *args)

    def repeat_bytes(self, k):
        """Operand k's sorted byte addresses, per Copy repeat."""
        one = self.operands[k].footprint()
        return [one + i * self.shifts[k] for i in range(self.params.shape[0])]

    def footprint(self, k):
        return np.unique(np.concatenate(self.repeat_bytes(k)))


def _copy_counter_plan(row, spec, bounds, key, mask_plan, repeat_time, params):
    """Copy in counter mode (devkit Copy page, 约束说明 and its 图1; docs/decisions.md "Copy"): the count is the element
    count of *each* repeat and repeat_time counts. Repeat i holds elements 0..count-1 in order, 32/sizeof(T) per
    DataBlock, block b at (i * RepeatSize + b * Stride) * 32 bytes past each operand's start: ceil(count * sizeof(T) /
    32) blocks, more than a register's 8 when the count passes 256 bytes. The register records the count (D22).
    Returns the memo tuple of _plan_high_dim."""
    api, count, lanes = row.name, mask_plan.counter, 256 // key[0].size
    if 0 < count <= lanes:  # one register per repeat: the first `count` lanes, the plain high-dim walk
        hi, lo = continuous_mask_words(count)
        lane_plan = MaskPlan(lo, hi)
        repeat, last, contiguous, _ = _validate(_validate_high_dim, row, spec, bounds, key, lane_plan, repeat_time,
                                                params)
        return lane_plan, params, repeat, last, _high_dim_plan(row, spec, key, lane_plan, params, repeat, last,
                                                               contiguous, recorded=mask_plan)
    facts = _facts(row, key)
    _check_dtypes(row, spec, facts, True)
    repeat = check_range(api, spec, "repeat_time", repeat_time, 0, 255)
    strides = {}
    _check_strides(api, spec, params, strides)
    for f in facts:
        check_align(api, spec, f.name, f.addr, 32)
    effect = _mask_effect(row, spec, mask_plan)
    if count == 0 or repeat == 0:  # SPEC-2 D30: nothing written, the register still records the count
        return mask_plan, params, 0, -1, _Plan(row, spec, key[0], _params(row, key, -1), effect, True)
    inner = -(-count // lanes)
    tail = count - (inner - 1) * lanes
    full_hi, full_lo = continuous_mask_words(lanes)
    firsts, shifts, exts = [], [], []
    for f in facts:
        blk, rep = strides[f.name]
        first = Operand(f.name, f.addr, f.dtype.size, full_lo, full_hi, inner, blk, 8 * blk, tail)
        shift = rep * 32
        last_repeat = Operand(f.name, f.addr + (repeat - 1) * shift, f.dtype.size, full_lo, full_hi, inner, blk,
                              8 * blk, tail)
        check_inside_ub(api, spec, last_repeat)  # repeat strides are >= 0: the last repeat ends last
        ext0 = first.extent()
        end = ext0[1] + (repeat - 1) * shift
        if bounds == "tensor" and end > f.addr + f.nbytes:
            reaching = 0 if shift == 0 else min(repeat - 1, max(0, -(-(f.addr + f.nbytes - ext0[1] + 1) // shift)))
            raise OutOfBoundsError(api, f.name, f"bytes [{ext0[0]}, {end})", device=spec.name,
                                   legal=f"inside {f.name}'s tensor [{f.addr}, {f.addr + f.nbytes}) ({f.size} x "
                                         f"{f.dtype.name}); make the core with bounds=\"ub\" (aj.launch(..., "
                                         "bounds=\"ub\") for a launch's cores) to allow strides past a tensor",
                                   detail=f"repeat {reaching} ends at byte {ext0[1] + reaching * shift}")
        firsts.append(first)
        shifts.append(shift)
        exts.append((ext0[0], end))
    (d, s), (ed, es) = firsts, exts
    if ed[0] < es[1] and es[0] < ed[1]:  # SPEC 8.2 on the exact bytes of each Copy repeat
        same = (d.base, d.blk, shifts[0]) == (s.base, s.blk, shifts[1])
        check_repeat_overlap(api, spec, "dst", "src", [d.footprint() + i * shifts[0] for i in range(repeat)],
                             [s.footprint() + i * shifts[1] for i in range(repeat)], same)
    (dblk, _), (sblk, _) = strides["dst"], strides["src"]
    walk = list(_params(row, key, -1, (dblk, sblk, 0, 8 * dblk, 8 * sblk, 0), inner, as_signed64(full_lo),
                        as_signed64(full_hi), tail))
    rows = []
    for i in range(repeat):
        walk_i = list(walk)
        walk_i[K.P_DST] += i * shifts[0]
        walk_i[K.P_SRC0] += i * shifts[1]
        rows.append(walk_i)
    return mask_plan, params, repeat, -1, _CopyBlocksPlan(row, spec, key[0], rows, effect, tuple(firsts),
                                                          tuple(shifts))


_NO_TABLE = np.empty(0, np.uint16)
_HALF_TABLES = {}
_TABLE_OPS = (K.EXP, K.LN, K.SQRT, K.RSQRT, K.RECIPROCAL)


def _half_lookup(row, kind, flags):
    """The lookup table of a half transcendental: the bits the kernel stores for each of the 65536 half inputs under
    these flags, computed once per op and flags by the same compiled kernel (so the lookup is bit-identical to the
    computation, and no second kernel has to compile). Under NUMBA_DISABLE_JIT none: the kernel's direct path, which
    made the table, computes the same bits for the call's own elements, where the table would cost 65536 plain-Python
    evaluations (about a second) per op and flags."""
    if kind != _HALF_KIND or row.code not in _TABLE_OPS or config.DISABLE_JIT:
        return _NO_TABLE
    key = (row.code, flags)
    table = _HALF_TABLES.get(key)
    if table is None:
        scratch = np.empty(4 * 65536, np.uint8)
        scratch[:2 * 65536].view(np.uint16)[:] = np.arange(65536, dtype=np.uint16)
        params = np.zeros(K.N_PARAMS, np.int64)
        params[[K.P_OP, K.P_KIND, K.P_DST, K.P_SRC0, K.P_SRC1, K.P_N]] = row.code, kind, 2 * 65536, 0, -1, 65536
        classes = _HALF_CLASS
        _ENTRIES((K.unary_count_kernel, classes), K.unary_count_kernel, scratch, params, flags, _NO_TABLE, *classes)
        table = _HALF_TABLES[key] = scratch[2 * 65536:].view(np.uint16).copy()
    return table


_FIELD_VALUES = {cls: operator.attrgetter(*cls.__dataclass_fields__) for cls in (BinaryRepeatParams, UnaryRepeatParams,
                                                                                  CopyRepeatParams)}
_HIGH_DIM_PLANS = {}
_HIGH_DIM_PLANS_MAX = 8192
_FAST_MAX = 8192  # entries per instruction and form in the public entries' memo of call plans


def _high_dim_key(row, core, tensors, mask, repeat_time, strides, is_set_mask):
    """The memo key of a high-dim call whose arguments are plain Python values, else None (validated uncached).
    It holds everything the mask plan and the validation read (issue 21 / the hostile-input rules): the
    instruction, device, bounds rule and counter mode of the core, each tensor's dtype, address and size, the mask
    (an int, or a tuple of int words: bit mode), the repeat count and every stride value; is_set_mask must be True
    (the register path reads more core state and is not memoised). Exact types only, so True, 1.0 or np.int64(1)
    never share an entry with 1."""
    if is_set_mask is not True or type(repeat_time) is not int:
        return None
    if type(mask) is not int:
        mask = memo_mask_words(mask)
        if mask is None:
            return None
    for v in strides:
        if type(v) is not int:
            return None
    return row, core.spec, core.bounds, core.counter_mode, _key(tensors), mask, repeat_time, strides


def _memoised_plan(key, validate):
    """validate() -> (mask plan, params, repeats, last-repeat lanes, _Plan), from the memo when the key was seen
    (the mask plan and the stride checks cost about 6 us per call otherwise)."""
    hit = _HIGH_DIM_PLANS.get(key) if key is not None else None
    if hit is None:
        hit = validate()
        if key is not None:
            remember(_HIGH_DIM_PLANS, key, hit, _HIGH_DIM_PLANS_MAX)
    return hit


def _plan_high_dim(row, core, tensors, mask, repeat_time, params, is_set_mask):
    def validate():
        key = _key(tensors)
        _check_dtypes(row, core.spec, _facts(row, key), True)  # SPEC-2 1.8: a dtype refused as such, before the
        #                                                        mask (whose legal words depend on the dtype)
        # plain ints before the cache key (issue 12); the C++ brace list may come as a tuple; ranges: the validator
        p = _repeat_params(row.name, core.spec, params, _PARAMS[row.arity], hi=None)
        repeat = as_int(row.name, core.spec, "repeat_time", repeat_time)
        mask_plan = plan_mask(row.name, core, tensors[0].dtype, mask, is_set_mask)
        if row.arity == "copy" and mask_plan.counter >= 0:
            return _copy_counter_plan(row, core.spec, core.bounds, key, mask_plan, repeat, p)
        repeat, last, contiguous, _ = _validate(_validate_high_dim, row, core.spec, core.bounds, key, mask_plan,
                                                repeat, p)
        return mask_plan, p, repeat, last, _high_dim_plan(row, core.spec, key, mask_plan, p, repeat, last, contiguous)
    fields = _FIELD_VALUES.get(type(params))
    key = None if fields is None else _high_dim_key(row, core, tensors, mask, repeat_time, fields(params),
                                                     is_set_mask)
    return _memoised_plan(key, validate)


def _run_high_dim(row, core, tensors, mask, repeat_time, params, is_set_mask, scalar, config):
    """The high-dim form's whole path; returns the call's plan (see _run_count)."""
    mask_plan, params, repeat, last, plan = _plan_high_dim(row, core, tensors, mask, repeat_time, params,
                                                           is_set_mask)
    dtype = tensors[0]._dtype
    flags = _flags(row, core, dtype, config)
    bits = _scalar(row, core.spec, _scalar_dtype(row, tensors), scalar) if row.arity in ("scalar", "axpy") else 0
    if core.sanitizer is not None and not plan.nop and type(plan) is _CopyBlocksPlan:
        _sanitize(row, core, tensors, lambda k, t: (plan.operands[k].name, plan.footprint(k)))
    elif core.sanitizer is not None and not plan.nop:  # before any state changes: a report raised leaves none
        names = _TENSORS[row.arity]
        strides = {name: (getattr(params, blk), getattr(params, rep)) for name, blk, rep, _ in _STRIDE_FIELDS[type(params)]}
        mixed_axpy = row is AXPY and tensors[0]._dtype is not tensors[1]._dtype   # the 310B's scratch (dav_m300)
        _sanitize(row, core, tensors, lambda k, t: Operand(names[k], t.addr, t.dtype.size, mask_plan.lo, mask_plan.hi,
                                                           repeat, *strides[names[k]], last),
                  bit_mask_scratch_flags(core.spec, mask_plan.bit_mode and mixed_axpy))
    _apply(core, plan.effect)  # D22: recorded even when the call writes nothing
    if plan.nop:
        return plan  # SPEC-2 D30 / SPEC D7: repeat 0 or mask 0 writes nothing
    _call(row, plan, core, dtype, flags, bits)
    return plan


def composed_call(row, core, tensors, scalar, count=None, mask=None, repeat_params=None):
    """One call of an engine row inside a composite API (ArithProgression), validated and computed as the row's
    public entry does it (count form, or the high-dim form with one repeat; the high-dim form leaves its mask in the
    register, SPEC D22), but reported to no sanitizer: the composite reports its own footprint once."""
    dtype = tensors[0]._dtype
    if count is not None:
        plan = _validate(_count_plan, row, core.spec, _key(tensors), count)
    else:
        plan = _plan_high_dim(row, core, tensors, mask, 1, repeat_params, True)[-1]
        _apply(core, plan.effect)
    if not plan.nop:
        _call(row, plan, core, dtype, _flags(row, core, dtype, None), _scalar(row, core.spec, dtype, scalar))


def _count_is_set_mask(row, core, dtype, is_set_mask, count):
    """SPEC-2 D32: is_set_mask on count forms exists only for the tensor-scalar instructions."""
    count = as_int(row.name, core.spec, "count", count)  # an integer even where the register's count is used
    if is_set_mask is _UNSET or as_flag(row.name, core.spec, "is_set_mask", is_set_mask):
        return count
    if core.spec.name in row.set_mask_ignored:
        return count  # "isSetMask参数不生效"
    if not core.counter_mode:
        raise StateError(row.name, "is_set_mask", False, device=core.device, legal="False in counter mode only",
                         detail="a count form with is_set_mask=False reads the counter-mode mask register; call "
                                "SetMaskCount and SetVectorMask first (SPEC-2 D32)")
    require_defined_mask(row.name, core)
    return register_count(row.name, core, dtype)


# --- public entry points (one factory per arity) -----------------------------------------------------------------------
def _split(row, args, kw_count, high_kw, n_count, device, forms=None):
    """(form, values) of a call (SPEC-2 1.1; _common.split_forms, shared with Compare/Select/Gather)."""
    return split_forms(row.name, args, kw_count, high_kw, n_count, device, forms or _FORMS[row.arity])


_FORMS = {"binary": "(dst, src0, src1, count) or (dst, src0, src1, mask, repeat_time, repeat_params)",
          "ternary": "(dst, src0, src1, count) or (dst, src0, src1, mask, repeat_time, repeat_params)",
          "scalar": "(dst, src, scalar, count) or (dst, src, scalar, mask, repeat_time, repeat_params)",
          "axpy": "(dst, src, scalar, count) or (dst, src, scalar, mask, repeat_time, repeat_params)",
          "unary": "(dst, src, count) or (dst, src, mask, repeat_time, repeat_params)",
          "copy": "(dst, src, mask, repeat_time, repeat_params) or, on the 950, (dst, src, count)"}


def _doc(row):
    from ..fidelity import FIDELITY
    modelled = sorted({d for (a, d), rule in FIDELITY.items() if a == row.name and
                       (rule.default.name == "MODELLED" or any(c.level.name == "MODELLED" for c in rule.conditions))})
    text = f"{row.name}: SPEC-2 element-wise instruction; forms {_FORMS[row.arity]}."
    if row.arity == "copy":
        text = (f"{row.name}: UB -> UB through the vector unit, a bit copy of every active lane (masked lanes keep "
                f"dst); forms {_FORMS[row.arity]} with aj.CopyRepeatParams(dstStride, srcStride, dstRepeatSize, "
                "srcRepeatSize). In counter mode the mask is the element count of each repeat and repeat_time counts "
                "(devkit Copy page; docs/decisions.md \"Copy\").")
    if row.shift:
        text = (f"{row.name}: each element shifted by the scalar (unsigned types: logical; signed: "
                + ("arithmetic, the sign replicated" if row.code != K.SHIFT_LEFT else "the sign bit kept") +
                f"); forms {_FORMS[row.arity]}. The amount: [0, 16] for 16-bit and [0, 32] for 32-bit types off the "
                "950, >= 0 on the 950 (past the width: 0). docs/decisions.md \"ShiftLeft, ShiftRight, Not\".")
    if row in (ANDS, ORS):
        text = (f"{row.name}: each element {'and' if row is ANDS else 'or'}'ed with the scalar (the scalar after the "
                f"tensor; 950 only); forms {_FORMS[row.arity]}, int64/uint64 in the count form only. "
                "docs/decisions.md \"Ands, Ors\".")
    if row.code == K.NOT:
        text = (f"Not: every bit of each element inverted (half and float too, on the 950); forms {_FORMS[row.arity]}"
                ". docs/decisions.md \"ShiftLeft, ShiftRight, Not\".")
    if row.config is not None:
        text += f" `config=aj.{row.config.__name__}(...)` on the 950 only."
    if modelled:
        text += (" MODELLED on " + ", ".join(modelled) + " (SPEC-2 0.3, D37-D40): the exact result rounded once, "
                 "the documented special values and subnormal rule; not claimed bit-exact (aj.fidelity says which "
                 "call shapes).")
    return text


def _remember(memo, key, plan):
    """Keep a validated call shape's plan for the fast path (never a NOP: those take the full path)."""
    if key is not None and not plan.nop:
        remember(memo, key, plan, _FAST_MAX)


def _make(row):
    """The public entry of one instruction. Its fast path (issue 21): a call in the plain positional form on live
    LocalTensors of one core without a sanitizer, whose call shape an earlier call validated, runs that shape's plan:
    the flags from the core, the scalar's bits, the kernel, the mask register's effect. The plan comes from one of
    two memos:
    - `recent`, the instruction's last remembered count-form call: the same tensor objects and the same count
      object (identity tests, about 0.2 us cheaper than building and hashing the facts' key). A LocalTensor's
      core, dtype, address and size are read-only (tensor.py) and a core's device never changes, so the same
      objects are the same call shape; liveness and the sanitizer are still tested on every call.
    - `counts` / `highs`, keyed on exactly typed facts: each tensor's dtype, address and size, the count and the
      device, or the high-dim form's _high_dim_key (the kernels' fresh tensor objects of every tile hit this one).
    Everything else (the first call of a shape, keywords, NOPs, the sanitizer, freed tensors, every refusal) takes
    the full path (`full`, whose signature the entry shows), which validates and returns the plan the memos then
    keep. The entry's own signature takes the form's values as optional positionals (a function with keyword-only
    defaults costs twice as much to call). Each arity's entry writes its lookup out rather than calling a shared
    helper: one more Python call would add about a sixth to a remembered call."""
    counts, highs = {}, {}
    plain = row in _PLAIN_FLAGS
    arity = row.arity
    # (the count-form call's tensors..., count, plan[, the per-call value's source and value]): one tuple, so a
    # thread sees one whole call
    recent = (_UNSET,) * 6

    def forget(tensor):
        nonlocal recent
        recent = (_UNSET,) * 6

    SIZE_CHANGE_HOOKS.append(forget)  # SetSize: the recent call's tensors may have changed size

    def run(plan, core, value):
        """A remembered plan's call (_call's and Core._apply_mask_effect's lines for a call without config)."""
        flags = core.overflow_flags if plain else core.overflow_flags & plan.sat_mask | plan.fixed_flags
        plan.run(core.ub, plan.params, flags, value, *plan.classes)
        effect = plan.effect
        if effect is not None:
            core.mask_high, core.mask_low, restores_normal = effect
            core.mask_defined = True
            if restores_normal and core.counter_mode:
                core._set_bit(CTRL_COUNTER_MODE, 0)

    def remember(key, a1, plan):
        """Keep a validated call shape's plan in its memo; True when it is a count-form plan (the entry then makes
        its call the recent one)."""
        if key is None or plan is None or plan.nop:
            return False
        _remember(counts if a1 is _UNSET else highs, key, plan)
        return a1 is _UNSET

    if arity in ("binary", "ternary"):
        def full(dst, src0, src1, *args, count=None, mask=None, repeat_time=None, repeat_params=None,
                 is_set_mask=_UNSET, config=None):
            core = operands(row.name, dst, src0, src1)
            _require_offered(row, core.spec)
            form, vals = ("count", args) if len(args) == 1 and count is None and mask is None and \
                repeat_time is None and repeat_params is None else \
                _split(row, args, count, dict(mask=mask, repeat_time=repeat_time, repeat_params=repeat_params),
                       3, core.device)
            if form == "count":
                if is_set_mask is not _UNSET:
                    raise TypeError(f"{row.name}() count form got an unexpected keyword argument 'is_set_mask' "
                                    "(SPEC-2 D32)")
                return _run_count(row, core, (dst, src0, src1), vals[0], None, config)
            return _run_high_dim(row, core, (dst, src0, src1), *vals, is_set_mask is _UNSET or is_set_mask, None,
                                 config)

        def entry(dst, src0, src1, a0=_UNSET, a1=_UNSET, a2=_UNSET, *rest, **kw):
            nonlocal recent
            key = plan = None
            last = recent
            if dst is last[0] and src0 is last[1] and src1 is last[2] and a0 is last[3] and a1 is _UNSET and not kw:
                core = dst._core
                if core.sanitizer is None and (dst._lease is None or dst._lease.alive) and \
                        (src0._lease is None or src0._lease.alive) and (src1._lease is None or src1._lease.alive):
                    plan = last[4]
            elif not kw and type(dst) is LocalTensor and type(src0) is LocalTensor and type(src1) is LocalTensor:
                core = dst._core
                if src0._core is core and src1._core is core and core.sanitizer is None and \
                        (dst._lease is None or dst._lease.alive) and (src0._lease is None or src0._lease.alive) and \
                        (src1._lease is None or src1._lease.alive):
                    if a1 is _UNSET:
                        if type(a0) is int:
                            key = (dst._dtype, dst._addr, dst._size, src0._dtype, src0._addr, src0._size,
                                   src1._dtype, src1._addr, src1._size, a0, core.spec)
                            plan = counts.get(key)
                            if plan is not None:
                                recent = (dst, src0, src1, a0, plan)
                    elif a2 is not _UNSET and not rest:
                        fields = _FIELD_VALUES.get(type(a2))
                        if fields is not None:
                            key = _high_dim_key(row, core, (dst, src0, src1), a0, a1, fields(a2), True)
                            plan = highs.get(key)
            if plan is not None:
                if not plain:
                    return run(plan, core, 0)
                # the common case (Add, Sub, Mul, Max, Min, ...): run()'s lines inline, the binary kernels' four
                # class markers passed one by one (a starred call costs about 0.03 us more)
                m = plan.classes
                plan.run(core.ub, plan.params, core.overflow_flags, 0, m[0], m[1], m[2], m[3])
                effect = plan.effect
                if effect is not None:
                    core.mask_high, core.mask_low, restores_normal = effect
                    core.mask_defined = True
                    if restores_normal and core.counter_mode:
                        core._set_bit(CTRL_COUNTER_MODE, 0)
                return
            plan = full(dst, src0, src1, *_given(a0, a1, a2), *rest, **kw)
            if remember(key, a1, plan):
                recent = (dst, src0, src1, a0, plan)
    elif arity in ("scalar", "axpy"):
        scalar_of_src = arity == "axpy"

        def full(dst, src, scalar=_UNSET, *args, count=None, mask=None, repeat_time=None, repeat_params=None,
                 is_set_mask=_UNSET, scalar_value=_UNSET):
            scalar = _scalar_argument(row.name, "scalar", scalar, "scalar_value", scalar_value)
            if type(scalar) is LocalTensor:
                scalar = _single_point_scalar(row, dst, src, scalar)
            core = operands(row.name, dst, src)
            _require_offered(row, core.spec)
            form, vals = ("count", args) if len(args) == 1 and count is None and mask is None and \
                repeat_time is None and repeat_params is None else \
                _split(row, args, count, dict(mask=mask, repeat_time=repeat_time, repeat_params=repeat_params),
                       3, core.device)
            if form == "count":
                if arity == "axpy" and is_set_mask is not _UNSET:
                    raise TypeError("Axpy() count form got an unexpected keyword argument 'is_set_mask' (SPEC-2 D32)")
                if is_set_mask is _UNSET:
                    return _run_count(row, core, (dst, src), vals[0], scalar, None)
                n = _count_is_set_mask(row, core, dst._dtype, is_set_mask, vals[0])
                _run_count(row, core, (dst, src), n, scalar, None, not is_set_mask)
                return None  # (the register-reading form is not remembered)
            return _run_high_dim(row, core, (dst, src), *vals, is_set_mask is _UNSET or is_set_mask, scalar, None)

        def entry(dst, src, scalar=_UNSET, a0=_UNSET, a1=_UNSET, a2=_UNSET, *rest, **kw):
            nonlocal recent
            if type(scalar) is LocalTensor:  # read now: a fresh value object, so the memo below never reuses it
                scalar = _single_point_scalar(row, dst, src, scalar)
            key = plan = None
            last = recent
            if dst is last[0] and src is last[1] and a0 is last[2] and a1 is _UNSET and not kw:
                core = dst._core
                if core.sanitizer is None and (dst._lease is None or dst._lease.alive) and \
                        (src._lease is None or src._lease.alive):
                    plan = last[3]
                    if scalar is last[4]:  # the recent call's scalar object: its bits (D29 admits numbers only,
                        # whose values never change)
                        return run(plan, core, last[5])
            elif not kw and type(dst) is LocalTensor and type(src) is LocalTensor:
                core = dst._core
                if src._core is core and core.sanitizer is None and (dst._lease is None or dst._lease.alive) and \
                        (src._lease is None or src._lease.alive):
                    if a1 is _UNSET:
                        if type(a0) is int:
                            key = (dst._dtype, dst._addr, dst._size, src._dtype, src._addr, src._size, a0,
                                   core.spec)
                            plan = counts.get(key)
                    elif a2 is not _UNSET and not rest:
                        fields = _FIELD_VALUES.get(type(a2))
                        if fields is not None:
                            key = _high_dim_key(row, core, (dst, src), a0, a1, fields(a2), True)
                            plan = highs.get(key)
            if plan is not None:
                d = (src if scalar_of_src else dst)._dtype
                exact = _EXACT_FLOAT_SCALARS.get(d)
                if exact is not None and type(scalar) is exact[0]:
                    # a numpy half / float scalar of the operand's type (the kernels' np.float32(...) values):
                    # _exact_bits' lines (D29: bit for bit) without its three calls; NaNs keep the general path
                    x = float(scalar)
                    bits = int.from_bytes(exact[1](x), "little") if x == x else _scalar(row, core.spec, d, scalar)
                else:
                    bits = _scalar(row, core.spec, d, scalar)
                if a1 is _UNSET:
                    recent = (dst, src, a0, plan, scalar, bits)
                return run(plan, core, bits)
            plan = full(dst, src, scalar, *_given(a0, a1, a2), *rest, **kw)
            if remember(key, a1, plan):
                recent = (dst, src, a0, plan, _UNSET, 0)
    else:
        def full(dst, src, *args, count=None, mask=None, repeat_time=None, repeat_params=None, is_set_mask=_UNSET,
                 config=None):
            core = operands(row.name, dst, src)
            _require_offered(row, core.spec)
            form, vals = ("count", args) if len(args) == 1 and count is None and mask is None and \
                repeat_time is None and repeat_params is None else \
                _split(row, args, count, dict(mask=mask, repeat_time=repeat_time, repeat_params=repeat_params),
                       2, core.device)
            if form == "count":
                if is_set_mask is not _UNSET and row.arity == "copy":  # the Copy count page: a template parameter
                    as_flag(row.name, core.spec, "is_set_mask", is_set_mask)  # that "不生效" (has no effect)
                elif is_set_mask is not _UNSET:
                    raise TypeError(f"{row.name}() count form got an unexpected keyword argument 'is_set_mask' "
                                    "(SPEC-2 D32)")
                return _run_count(row, core, (dst, src), vals[0], None, config)
            return _run_high_dim(row, core, (dst, src), *vals, is_set_mask is _UNSET or is_set_mask, None, config)

        def entry(dst, src, a0=_UNSET, a1=_UNSET, a2=_UNSET, *rest, **kw):
            nonlocal recent
            key = plan = None
            last = recent
            if dst is last[0] and src is last[1] and a0 is last[2] and a1 is _UNSET and not kw:
                core = dst._core
                if core.sanitizer is None and (dst._lease is None or dst._lease.alive) and \
                        (src._lease is None or src._lease.alive):
                    plan = last[3]
                    if core.overflow_flags == last[4]:  # the recent call's overflow mode: its half table
                        return run(plan, core, last[5])
            elif not kw and type(dst) is LocalTensor and type(src) is LocalTensor:
                core = dst._core
                if src._core is core and core.sanitizer is None and (dst._lease is None or dst._lease.alive) and \
                        (src._lease is None or src._lease.alive):
                    if a1 is _UNSET:
                        if type(a0) is int:
                            key = (dst._dtype, dst._addr, dst._size, src._dtype, src._addr, src._size, a0,
                                   core.spec)
                            plan = counts.get(key)
                    elif a2 is not _UNSET and not rest:
                        fields = _FIELD_VALUES.get(type(a2))
                        if fields is not None:
                            key = _high_dim_key(row, core, (dst, src), a0, a1, fields(a2), True)
                            plan = highs.get(key)
            if plan is not None:
                mode = core.overflow_flags  # read once: the recent call pairs the table with the mode it was made for
                table = _half_lookup(row, dst._dtype.kind, mode & plan.sat_mask | plan.fixed_flags)
                if a1 is _UNSET:
                    recent = (dst, src, a0, plan, mode, table)
                return run(plan, core, table)
            plan = full(dst, src, *_given(a0, a1, a2), *rest, **kw)
            if remember(key, a1, plan):
                recent = (dst, src, a0, plan, -1, None)
    for f in (full, entry):
        f.__name__ = f.__qualname__ = row.name
    entry.__doc__ = _doc(row)
    entry.__signature__ = inspect.signature(full)
    return entry


_TENSOR_SCALAR_OTHERS = ("a tensor element as the scalar is offered by LeakyRelu, Compares and Select on the 950 "
                         "only; the flexible scalar position variants of Adds/Muls/Maxs/Mins are not offered "
                         "(SPEC-2 14)")
# The devkit's element_wise_logic example (audit46dk) calls ShiftLeft with a tensor of per-element amounts and Ors
# with the scalar first as src0Local[0]: the refusal names those forms rather than Adds' (docs/decisions.md
# "ShiftLeft, ShiftRight, Not", "Ands, Ors").
_SHIFT_TENSOR = ("the amount is one scalar: the 950's tensor form (per-element amounts in a LocalTensor, "
                 "ShiftLeft(dst, src0, src1, count)) and a tensor element as the amount are not offered "
                 "(docs/decisions.md \"ShiftLeft, ShiftRight, Not\")")
_ANDS_ORS_TENSOR = ("the scalar is a value after the tensor: the 950's flexible scalar position forms (the scalar "
                    "first, or a tensor element such as src0Local[0]) are not offered (SPEC-2 14; docs/decisions.md "
                    "\"Ands, Ors\")")
_TENSOR_SCALAR_REFUSAL = {"ShiftLeft": _SHIFT_TENSOR, "ShiftRight": _SHIFT_TENSOR, "Ands": _ANDS_ORS_TENSOR,
                          "Ors": _ANDS_ORS_TENSOR}


def _single_point_scalar(row, dst, src, tensor):
    """The 950's LeakyRelu with the scalar given as a one-element LocalTensor (`src1Local[0]`;
    _scalar.element_scalar): its value, read by the vector unit when the instruction runs (the sanitizer sees the
    read); refused off the 950, and for the other scalar instructions everywhere, before anything is written: the
    950's Adds/Muls/Maxs/Mins taking the scalar as a tensor element are the "flexible scalar position" variants,
    DK M/基础算术/*（灵活标量位置）.md, which SPEC-2 14 does not offer."""
    core = operands(row.name, dst, src)
    if row is not LEAKY_RELU:
        raise ParameterError(row.name, "scalar", "a LocalTensor", legal=f"a scalar value of {src.dtype.name}",
                             device=core.device, detail=_TENSOR_SCALAR_REFUSAL.get(row.name, _TENSOR_SCALAR_OTHERS))
    value, tensor = element_scalar(row.name, core, src.dtype, tensor)
    if core.sanitizer is not None:
        vector_access(core, row.name, reads=[(("scalar", tensor.addr, src.dtype.size), tensor)])
    return value


def _scalar_argument(api, name, value, keyword, keyword_value):
    """The scalar given positionally (or as `scalar=`) or as the snake_case of its C++ name `scalarValue`
    (SPEC-2 1.1: every parameter is also accepted as a keyword with the snake_case of the C++ name)."""
    if keyword_value is _UNSET:
        if value is _UNSET:
            raise TypeError(f"{api}() missing its scalar argument ({name} or {keyword})")
        return value
    if value is not _UNSET:
        raise TypeError(f"{api}() got its scalar twice ({name} and {keyword})")
    return keyword_value


def _given(a0, a1, a2):
    """The entries' optional positionals that were passed."""
    if a0 is _UNSET:
        return ()
    return (a0,) if a1 is _UNSET else (a0, a1) if a2 is _UNSET else (a0, a1, a2)


_DUPLICATE_COUNTS = {}  # Duplicate's count-form plans by (dst dtype, address, size, count, device)
_DUPLICATE_RECENT = (_UNSET,) * 5  # its last remembered count-form call: (dst, count, plan, value, value's bits)


def _forget_duplicate_recent(tensor):
    global _DUPLICATE_RECENT
    _DUPLICATE_RECENT = (_UNSET,) * 5


SIZE_CHANGE_HOOKS.append(_forget_duplicate_recent)


def Duplicate(dst, scalar=_UNSET, *args, count=None, mask=None, repeat_time=None, dst_block_stride=None,
              dst_repeat_stride=None, is_set_mask=_UNSET, scalar_value=_UNSET, src=_UNSET):
    """`Duplicate(dst, scalar, count)`, `Duplicate(dst, src_tensor, count)` (950: broadcasts src_tensor[0]) or
    `Duplicate(dst, scalar, mask, repeat_time, dst_block_stride, dst_repeat_stride)` (SPEC-2 5.1): bit copies, no
    arithmetic, no saturation. The second argument may also be passed as `scalar=` (SPEC-2 5.1's name, as Adds and
    Axpy take it), `scalar_value=` or (tensor form) `src=`, the C++ names (SPEC-2 1.1)."""
    global _DUPLICATE_RECENT
    row = DUPLICATE
    key = None
    if len(args) == 1 and count is None and mask is None and is_set_mask is _UNSET and type(dst) is LocalTensor \
            and type(args[0]) is int and type(scalar) is not LocalTensor and scalar_value is _UNSET and src is _UNSET \
            and repeat_time is None and dst_block_stride is None and dst_repeat_stride is None:
        # the fast path of _make's entries; any other keyword takes the full path, which refuses what it must (a
        # scalar given twice, a high-dim value beside a count: the memo had run such calls, audit38m)
        core = dst._core
        if core.sanitizer is None and (dst._lease is None or dst._lease.alive):
            last = _DUPLICATE_RECENT
            if dst is last[0] and args[0] is last[1]:  # the recent call's tensor and count objects (see _make)
                plan = last[2]
                if scalar is last[3]:
                    bits = last[4]
                else:
                    bits = _scalar(row, core.spec, dst._dtype, scalar)
                    _DUPLICATE_RECENT = (dst, args[0], plan, scalar, bits)
            else:
                key = (dst._dtype, dst._addr, dst._size, args[0], core.spec)
                plan = _DUPLICATE_COUNTS.get(key)
                if plan is not None:
                    bits = _scalar(row, core.spec, dst._dtype, scalar)
                    _DUPLICATE_RECENT = (dst, args[0], plan, scalar, bits)
            if plan is not None:
                plan.run(core.ub, plan.params, bits)
                effect = plan.effect
                if effect is not None:
                    core._apply_mask_effect(effect)
                return
    if src is not _UNSET:
        scalar = _scalar_argument(row.name, "scalar", scalar, "src", src)
    else:
        scalar = _scalar_argument(row.name, "scalar", scalar, "scalar_value", scalar_value)
    tensor_source = isinstance(scalar, LocalTensor)
    core = operands(row.name, dst, scalar) if tensor_source else operands(row.name, dst)
    form, values = _split(row, args, count, dict(mask=mask, repeat_time=repeat_time,
                                                 dst_block_stride=dst_block_stride,
                                                 dst_repeat_stride=dst_repeat_stride), 2, core.device,
                          forms="(dst, scalar, count) or (dst, scalar, mask, repeat_time, dst_block_stride, "
                                "dst_repeat_stride)")
    if form == "count":
        if is_set_mask is not _UNSET:
            raise TypeError("Duplicate() count form got an unexpected keyword argument 'is_set_mask' (SPEC-2 D32)")
        n = as_int(row.name, core.spec, "count", values[0])
        if tensor_source and core.spec.name != D950:
            raise UnsupportedDeviceError(row.name, "src", "a LocalTensor", device=core.device,
                                         legal="a scalar (the tensor-source overload exists on the 950 only)")
        plan = _validate(_count_plan, row, core.spec, _key((dst, scalar) if tensor_source else (dst,)), n)
        if tensor_source:
            first = core.ub[scalar.addr:scalar.addr + scalar.dtype.size]
            bits = as_signed64(int.from_bytes(first.tobytes(), "little"))
        else:
            bits = _scalar(row, core.spec, dst._dtype, scalar)
        if plan.nop:
            return
        if core.sanitizer is not None:
            reads = [(("src", scalar.addr, scalar.dtype.size), scalar)] if tensor_source else []
            vector_access(core, row.name, reads=reads, writes=[(("dst", dst.addr, int(n) * dst.dtype.size), dst)])
        plan.run(core.ub, plan.params, bits)
        _apply(core, plan.effect)
        if key is not None:
            _remember(_DUPLICATE_COUNTS, key, plan)
            _DUPLICATE_RECENT = (dst, args[0], plan, scalar, bits)
        return
    if tensor_source:
        raise ParameterError(row.name, "scalar", "a LocalTensor", legal="a scalar in the high-dim form (SPEC-2 5.1)",
                             device=core.device)
    mask, repeat_time, dst_block_stride, dst_repeat_stride = values
    is_set_mask = is_set_mask is _UNSET or is_set_mask

    def validate():
        key = _key((dst,))
        _check_dtypes(row, core.spec, _facts(row, key), True)  # the dtype before the mask (SPEC-2 1.8)
        mask_plan = plan_mask(row.name, core, dst.dtype, mask, is_set_mask)
        strides = _DuplicateStrides(as_int(row.name, core.spec, "dst_block_stride", dst_block_stride),
                                    as_int(row.name, core.spec, "dst_repeat_stride", dst_repeat_stride))
        repeat = as_int(row.name, core.spec, "repeat_time", repeat_time)
        repeat, last, contiguous, _ = _validate(_validate_high_dim, row, core.spec, core.bounds, key, mask_plan,
                                                repeat, strides)
        return mask_plan, strides, repeat, last, _high_dim_plan(row, core.spec, key, mask_plan, strides, repeat,
                                                                last, contiguous)
    key = _high_dim_key(row, core, (dst,), mask, repeat_time, (dst_block_stride, dst_repeat_stride), is_set_mask)
    mask_plan, strides, repeat, last, plan = _memoised_plan(key, validate)
    bits = _scalar(row, core.spec, dst._dtype, scalar)
    if core.sanitizer is not None and not plan.nop:  # before any state changes: a report raised leaves none
        vector_access(core, row.name, writes=[(Operand("dst", dst.addr, dst.dtype.size, mask_plan.lo, mask_plan.hi,
                                                       repeat, strides.dstBlkStride, strides.dstRepStride, last),
                                               dst)])
    _apply(core, plan.effect)  # D22 (record_mask): recorded even when the call writes nothing
    if plan.nop:
        return
    plan.run(core.ub, plan.params, bits)


@lru_cache(maxsize=4096)
def _validate_brcb(spec, bounds, key, repeat_time, params):
    """SPEC-2 5.2: ranges, dtypes, src holds 8*repeat elements, the dst blocks inside the UB and dst, no overlap."""
    row = BRCB
    facts = _facts(row, key)
    api = row.name
    _check_dtypes(row, spec, facts, True)
    repeat = check_range(api, spec, "repeat_time", repeat_time, 0, 255)
    blk = check_range(api, spec, "dstBlkStride", params.dstBlkStride, 0, 65535)
    rep = check_range(api, spec, "dstRepStride", params.dstRepStride, 0, 65535)
    if blk == 0:
        raise ParameterError(api, "dstBlkStride", 0, legal="[1, 65535] (SPEC-2 D61: 0 is undefined behaviour)",
                             device=spec.name)
    dst, src = facts
    for f in facts:
        check_align(api, spec, f.name, f.addr, 32)
    if 8 * repeat > src.size:
        raise OutOfBoundsError(api, "src", src.size, legal=f">= 8 * repeat_time = {8 * repeat} elements",
                               device=spec.name)
    if repeat == 0:
        return 0
    starts = np.array([dst.addr + (i * rep + j * blk) * 32 for i in range(repeat) for j in range(8)])
    first, end = int(starts.min()), int(starts.max()) + 32
    if end > spec.ub_bytes:
        raise OutOfBoundsError(api, "dst", f"bytes [{first}, {end})", device=spec.name,
                               legal=f"every written block inside the UB [0, {spec.ub_bytes})")
    if bounds == "tensor" and end > dst.addr + dst.nbytes:
        raise OutOfBoundsError(api, "dst", f"bytes [{first}, {end})", device=spec.name,
                               legal=f"inside dst's tensor [{dst.addr}, {dst.addr + dst.nbytes}); make the core with "
                                     "bounds=\"ub\" (aj.launch(..., bounds=\"ub\") for a launch's cores) to allow "
                                     "strides past a tensor")
    src_end = src.addr + 8 * repeat * src.dtype.size
    if np.any((starts < src_end) & (starts + 32 > src.addr)):
        raise OverlapError(api, "dst/src", "overlapping bytes", device=spec.name,
                           legal="no overlap between src and dst (SPEC-2 D34)")
    return repeat


_BRCB_CALLS = {}  # Brcb's validated call shapes (_brcb_key) -> the kernel's arguments after the UB


def _brcb_key(dst, src, repeat_time, repeat_params):
    """The memo key of a Brcb call in the plain form on live LocalTensors of one core without a sanitizer, else
    None: each tensor's dtype, address and size, the repeat count, both strides (exact ints: True, 1.0 or
    np.int64(1) never share an entry with 1), the device and the bounds rule (everything _validate_brcb reads)."""
    if type(dst) is not LocalTensor or type(src) is not LocalTensor or type(repeat_time) is not int:
        return None
    if type(repeat_params) is BrcbRepeatParams:
        blk, rep = repeat_params.dstBlkStride, repeat_params.dstRepStride
    elif type(repeat_params) is tuple and len(repeat_params) == 2:
        blk, rep = repeat_params
    else:
        return None
    core = dst._core
    if type(blk) is not int or type(rep) is not int or src._core is not core or core.sanitizer is not None or \
            not (dst._lease is None or dst._lease.alive) or not (src._lease is None or src._lease.alive):
        return None
    return (dst._dtype, dst._addr, dst._size, src._dtype, src._addr, src._size, repeat_time, blk, rep, core.spec,
            core.bounds)


# The 310P's Brcb with a block stride of 2 or more (dav_m200 kernel_operator_vec_brcb_impl.h): MTE2_S, V_S and
# MTE3_S, then per block a scalar read of src, S_V and a vector fill (docs/decisions.md "The implementations' own
# flags"): the leading pairs before the call's access, the S_V after it
_BRCB_SCALAR_BLOCKS = (((PIPE_MTE2, PIPE_S), (PIPE_V, PIPE_S), (PIPE_MTE3, PIPE_S)), ((PIPE_S, PIPE_V),))


def Brcb(dst, src, repeat_time, repeat_params=None):
    """`Brcb(dst, src, repeat_time, aj.BrcbRepeatParams(dstBlkStride, dstRepStride))` (SPEC-2 5.2): block j of
    repeat i is filled with src[8i + j]; no mask. Fast path (issue 21, as _make's entries): a call shape an
    earlier call validated runs its remembered kernel arguments through the kernel's compiled entry; the first
    call of a shape, NOPs (repeat 0), the sanitizer, freed tensors and every refusal take the full path."""
    key = _brcb_key(dst, src, repeat_time, repeat_params)
    if key is not None:
        args = _BRCB_CALLS.get(key)
        if args is not None:
            return _ENTRIES((K.brcb,), K.brcb, dst._core.ub, *args)
    core = operands(BRCB.name, dst, src)
    _require_offered(BRCB, core.spec)
    # plain ints before the cache key (issue 12); the C++ brace list may come as a tuple; ranges: the validator.
    # No default: the devkit's prototype has none (SPEC-2 5.2), as the other high-dim forms' repeat_params (audit 45a)
    params = _repeat_params(BRCB.name, core.spec, repeat_params, BrcbRepeatParams, hi=None)
    repeat_time = as_int(BRCB.name, core.spec, "repeat_time", repeat_time)
    repeat = _validate(_validate_brcb, core.spec, core.bounds, _key((dst, src)), repeat_time, params)
    if repeat and core.sanitizer is not None:
        blocks = np.array([dst.addr + (i * params.dstRepStride + j * params.dstBlkStride) * 32
                           for i in range(repeat) for j in range(8)], np.int64)
        scalar_blocks = core.spec.brcb_scalar_blocks and params.dstBlkStride not in (0, 1)
        vector_access(core, BRCB.name, reads=[(("src", src.addr, 8 * repeat * src.dtype.size), src)],
                      writes=[(("dst", np.unique((blocks[:, None] + np.arange(32)).reshape(-1))), dst)],
                      own_flags=_BRCB_SCALAR_BLOCKS if scalar_blocks else ((), ()))
    if repeat:
        args = (dst.dtype.size, dst.addr, src.addr, params.dstBlkStride, params.dstRepStride, repeat)
        _ENTRIES((K.brcb,), K.brcb, core.ub, *args)
        if key is not None:
            remember(_BRCB_CALLS, key, args, _FAST_MAX)


def evaluate_operator(symbol, dst, src0, src1):
    """`dst[:] = src0 <op> src1`: the count form with count = dst.GetSize() (SPEC-2 1.1, SPEC 3.2); shorter sources
    are refused."""
    row = next(r for r in OPS.values() if r.operator == symbol)
    for name, t in (("src0", src0), ("src1", src1)):
        if getattr(t, "size", None) is not None and t.size < dst.size:
            raise OutOfBoundsError(f"operator{symbol}", name, t.size, device=dst.core.device,
                                   legal=f">= dst.GetSize() = {dst.size} elements (the operator computes "
                                         "dst.GetSize() elements, SPEC-2 1.1)")
    core = operands(row.name, dst, src0, src1)
    _run_count(row, core, (dst, src0, src1), dst.size, None, None)


Add, Sub, Mul, Div, Max, Min, And, Or = (_make(r) for r in (ADD, SUB, MUL, DIV, MAX, MIN, AND, OR))
AddRelu, SubRelu = _make(ADD_RELU), _make(SUB_RELU)
Adds, Muls, Maxs, Mins, LeakyRelu = (_make(r) for r in (ADDS, MULS, MAXS, MINS, LEAKY_RELU))
Abs, Relu, Exp, Ln, Sqrt, Rsqrt, Reciprocal = (_make(r) for r in (ABS, RELU, EXP, LN, SQRT, RSQRT, RECIPROCAL))
MulAddDst, FusedMulAdd, Axpy = _make(MUL_ADD_DST), _make(FUSED_MUL_ADD), _make(AXPY)
Copy = _make(COPY)
ShiftLeft, Not = _make(SHIFT_LEFT), _make(NOT)
Ands, Ors = _make(ANDS), _make(ORS)
_shift_right, _shift_right_round = _make(SHIFT_RIGHT), _make(SHIFT_RIGHT_ROUND)


def ShiftRight(dst, src, scalar=_UNSET, *args, round_en=_UNSET, **kw):
    """ShiftRight: each element >> scalar (signed types: arithmetic, the sign replicated; unsigned: logical); forms
    (dst, src, scalar, count) or (dst, src, scalar, mask, repeat_time, repeat_params[, round_en]). round_en (C++
    roundEn, the high-dim forms only): True on A2/A3 rounds an int16/int32 result half up (bit scalar-1 of the
    element added), has no effect on uint16/uint32, and is refused on the 310B and the 950 (devkit
    M/逻辑计算/ShiftRight.md). The amount: [0, 16] for 16-bit and [0, 32] for 32-bit types off the 950, >= 0 on the
    950 (past the width: 0, or -1 for a negative signed element). docs/decisions.md "ShiftLeft, ShiftRight, Not"."""
    if len(args) == 4:  # roundEn given positionally after repeat_params (the C++ order)
        if round_en is not _UNSET:
            raise TypeError("ShiftRight() got round_en both positionally and by keyword")
        round_en, args = args[3], args[:3]
    if round_en is _UNSET:
        return _shift_right(dst, src, scalar, *args, **kw)
    core = operands(SHIFT_RIGHT.name, dst, src)
    spec = core.spec
    _require_offered(SHIFT_RIGHT, spec)
    if len(args) < 2 and not any(k in kw for k in ("mask", "repeat_time", "repeat_params")):
        raise TypeError("ShiftRight() count form got an unexpected keyword argument 'round_en' (the count prototype "
                        "has no roundEn)")
    flag = as_flag(SHIFT_RIGHT.name, spec, "round_en", round_en)
    if flag and spec.name in (D950, B310):
        raise UnsupportedDeviceError(SHIFT_RIGHT.name, "round_en", True, legal="False (no rounding on this device)",
                                     device=spec.name, detail="devkit M/逻辑计算/ShiftRight.md, roundEn")
    if flag and dst.dtype.name in SHIFT_RIGHT_ROUND.dtypes[spec.name]:
        return _shift_right_round(dst, src, scalar, *args, **kw)
    return _shift_right(dst, src, scalar, *args, **kw)


ShiftRight.__signature__ = inspect.Signature(
    list(inspect.signature(_shift_right).parameters.values())[:-1] +  # (the keywords, then round_en)
    [inspect.Parameter("round_en", inspect.Parameter.KEYWORD_ONLY, default=False),
     list(inspect.signature(_shift_right).parameters.values())[-1]])

ENTRIES = {"Add": Add, "Sub": Sub, "Mul": Mul, "Div": Div, "Max": Max, "Min": Min, "And": And, "Or": Or,
           "AddRelu": AddRelu, "SubRelu": SubRelu, "Adds": Adds, "Muls": Muls, "Maxs": Maxs, "Mins": Mins,
           "LeakyRelu": LeakyRelu, "Abs": Abs, "Relu": Relu, "Exp": Exp, "Ln": Ln, "Sqrt": Sqrt, "Rsqrt": Rsqrt,
           "Reciprocal": Reciprocal, "MulAddDst": MulAddDst, "FusedMulAdd": FusedMulAdd, "Axpy": Axpy,
           "Duplicate": Duplicate, "Brcb": Brcb, "Copy": Copy, "ShiftLeft": ShiftLeft, "ShiftRight": ShiftRight,
           "Not": Not, "Ands": Ands, "Ors": Ors}


def elementwise_instructions(Instruction):
    """Registry rows (api/registry.py) for every instruction of the family."""
    def example(row):
        n = len(_TENSORS[row.arity])
        entry = ENTRIES[row.name]

        def make(core, dtype):
            tensors = tuple(core.local_tensor(dtype, 64) for _ in range(n))
            if row.arity == "fill":
                return tensors[:1], lambda d: entry(d, 1, 64)
            if row.arity == "brcb":
                return (core.local_tensor(dtype, 2048), tensors[1]), lambda d, s: entry(d, s, 1, (1, 8))
            if row.arity in ("scalar", "axpy"):
                return tensors, lambda d, s: entry(d, s, 1, 64)
            if row.arity == "copy" and core.spec.name not in row.count_devices:  # the high-dim form: 64 lanes
                return tensors, lambda d, s: entry(d, s, 64, 1, CopyRepeatParams(1, 1, 8, 8))
            return tensors, lambda *t: entry(*t, 64)
        return make

    # home: the device of the device-independent checks; the 950 for the rows only it offers (Ands, Ors)
    return tuple(Instruction(row.name, ENTRIES[row.name], lambda spec, row=row: row.dtypes.get(spec.name, ()),
                             row.reference, example(row), lambda spec, row=row: bool(row.dtypes.get(spec.name)),
                             home=A2 if row.dtypes[A2] else D950)
                 for row in OPS.values())
