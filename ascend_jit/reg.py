"""`aj.Reg`: the Ascend 950 Reg (SIMD register) API (SPEC 7; SPEC-2 11): RegTensor, MaskReg, UpdateMask,
CreateMask, MoveMask, the loads and stores with every distribution, Add/Sub/Mul, Duplicate, Reduce,
ReduceDataBlock, PairReduceElem, the MaskReg operations, and `simd_vf` to compile a VF function with numba; beyond
SPEC-2 11, from the devkit's Reg pages (docs/decisions.md "Reg API"): Max/Min/Div/Exp, Adds/Muls/Maxs/Mins/LeakyRelu,
Prelu, Abs/Relu/Neg/Ln/Log/Sqrt, Select on data registers, ShiftLefts/ShiftRights, MulAddDst/MulDstAdd/Axpy/AbsSub.
Reg Truncate, Compare and data-register And/Or/Xor/Not are not offered (SPEC-2 14).

The same calls work in plain Python (for debugging) and inside a `@simd_vf` function (compiled): plain Python
passes RegTensor / MaskReg / LocalTensor objects, compiled code passes their array forms (a register is a uint8
array, a MaskReg four uint64 words, a tensor a UB handle, jit/reg.py VFHandle, on which `t[i]` is a sub-tensor as
in plain Python); both end in the same implementations (jit/reg*.py), so results are identical. `simd_callee`
marks a helper a VF calls (compiled with a compiled VF, Python in a plain one). Only `ascend950` offers this API.
"""
import contextlib
import enum
import functools
import hashlib
import inspect
import operator
import pathlib
import re
import sys
import threading
import typing
import warnings
from types import CodeType, ModuleType

import numba
import numpy as np
from numba import njit, types
from numba.core import ir
from numba.core.caching import FunctionCache
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_lock import global_compiler_lock
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.dispatcher import Dispatcher
from numba.core.errors import NumbaError, TypingError
from numba.core.typed_passes import NopythonTypeInference
from numba.core.typing.templates import AbstractTemplate, builtin_registry, infer_global, signature
from numba.extending import lower_builtin, overload
from numba.np import numpy_support

from ._cache import implementation_stamp
from .api._common import INT32_MAX, UINT64_MAX, _int_legal, as_enum, as_int
from .api._scalar import scalar_bits
from .api.utils import AlignUp, ConstCeil, DivCeil
from .core import _current as _CORE_STACK, current_core
from .devices import DEVICES
from .dtypes import ALL, DType, _d28_name, loaded_bfloat16, resolve
from .enums import DivAlgo, ExpAlgo, LnAlgo, LogAlgo, RoundMode, SqrtAlgo
from .errors import (AscendJitError, NotOfferedError, ParameterError, StateError, UncompiledVFWarning,
                     UnsupportedDeviceError, UnsupportedDTypeError, not_offered_lookup)
from .jit import reg as impl
from .jit import reg_cast as cv
from .jit import reg_move as mv
from .jit import reg_ops as ops
from .launch import PARALLEL_LAUNCHES
from . import lane_shadow
from .lane_shadow import MARKING
from .sanitizer import PIPE_V, SANITIZING, Instr, reg_access, reg_undo, user_location
from .tensor import SIZE_CHANGE_HOOKS, LocalTensor
from .jit.lowered import lowered

DEVICE = "ascend950"

# The element types each register instruction takes (SPEC-2 11.2-11.5): the plain-Python calls check them by name
# before anything runs (compiled VFs: the kernels check the kind codes), and the registry's rows use them.
REGISTER_DTYPES = tuple(d.name for d in ALL)
ARITH_DTYPES = {"Add": REGISTER_DTYPES, "Sub": REGISTER_DTYPES,
                "Mul": tuple(n for n in REGISTER_DTYPES if n not in ("int8", "uint8"))}
REDUCE_SUM_DST = {"half": "half", "float": "float", "int16": "int32", "uint16": "uint32", "int32": "int32",
                  "uint32": "uint32", "int64": "int64", "uint64": "uint64"}
REDUCE_EXTREME_DTYPES = ("int16", "uint16", "half", "int32", "uint32", "float", "int64", "uint64")
# Max, Min, Div, Exp: not in SPEC-2 11; the 950 Memory-API instruction's dtypes and numerics (docs/decisions.md)
ENGINE_OPS = {"Max": ops.ew.MAX, "Min": ops.ew.MIN, "Div": ops.ew.DIV, "Exp": ops.ew.EXP,
              "LeakyRelu": ops.ew.LEAKY_RELU, "Prelu": ops.PRELU}
ENGINE_DTYPES = ops.ENGINE_DTYPES  # with the refusal texts a compiled VF gives in plain Python's words
_ENGINE_KINDS = {name: sum(1 << resolve(d).kind for d in names) for name, names in ENGINE_DTYPES.items()}
# Adds, Muls, Maxs, Mins and the unary Abs, Relu, Neg, Ln, Log, Sqrt: not in SPEC-2 11; the devkit's Reg pages
# (DK `R/基础算术/*.md` 数据类型, complex types D28) and the 950 Memory-API numerics (docs/decisions.md "Reg API")
SCALAR_DTYPES = ops.SCALAR_DTYPES
_SCALAR_KINDS = {name: sum(1 << resolve(d).kind for d in names) for name, names in SCALAR_DTYPES.items()}
UNARY_OPS = {"Abs": ops.ew.ABS, "Relu": ops.ew.RELU, "Neg": ops.NEG, "Ln": ops.ew.LN, "Log": ops.LOG,
             "Sqrt": ops.ew.SQRT}
UNARY_DTYPES = ops.UNARY_DTYPES
_UNARY_KINDS = {name: sum(1 << resolve(d).kind for d in names) for name, names in UNARY_DTYPES.items()}
SHIFT_OPS = {"ShiftLefts": ops.SHIFT_LEFT, "ShiftRights": ops.SHIFT_RIGHT}
SHIFT_DTYPES = ops.SHIFT_DTYPES  # DK R/逻辑计算 (bool: D28); with the texts a compiled VF refuses in
_SHIFT_KINDS = {name: sum(1 << resolve(d).kind for d in names) for name, names in SHIFT_DTYPES.items()}
TERNARY_OPS = {"MulAddDst": ops.ew.MUL_ADD_DST, "MulDstAdd": ops.ew.FUSED_MUL_ADD, "AbsSub": ops.ABS_SUB,
               "Axpy": ops.ew.MUL_ADD_DST}
TERNARY_DTYPES = ops.TERNARY_DTYPES
_TERNARY_KINDS = {name: sum(1 << resolve(d).kind for d in names) for name, names in TERNARY_DTYPES.items()}
_NAME_OF_KIND = {d.kind: d.name for d in ALL}
CAST_PAIRS = tuple((_NAME_OF_KIND[a], _NAME_OF_KIND[b]) for a, b in cv.PAIRS)


def _check_dtype(api, name, allowed, section):
    if name not in allowed:
        raise UnsupportedDTypeError(api, "dtype", name, legal=f"{', '.join(allowed)} ({section})", device=DEVICE)


class ReduceType(enum.IntEnum):
    SUM = ops.SUM
    MAX = ops.MAX
    MIN = ops.MIN


class MaskMergeMode(enum.IntEnum):
    ZEROING = impl.ZEROING
    MERGING = impl.MERGING
    UNKNOWN = 2  # "not specified" in a CastTrait (means ZEROING there; SPEC-2 11.5)


class RegLayout(enum.IntEnum):
    """Which sub-lane of a wide slot a narrow Cast operand uses (SPEC-2 D65)."""
    UNKNOWN = cv.LAYOUT_UNKNOWN
    ZERO = cv.LAYOUT_ZERO
    ONE = cv.LAYOUT_ONE
    TWO = cv.LAYOUT_TWO
    THREE = cv.LAYOUT_THREE


class SatMode(enum.IntEnum):
    UNKNOWN = cv.SAT_UNKNOWN
    SAT = cv.SAT_SAT
    NO_SAT = cv.SAT_NO_SAT


class CastTrait(typing.NamedTuple):
    """`CastTrait{layoutMode, satMode, mrgMode, roundMode}` (SPEC-2 1.1, 11.5); every field UNKNOWN by default."""
    layoutMode: int = RegLayout.UNKNOWN
    satMode: int = SatMode.UNKNOWN
    mrgMode: int = MaskMergeMode.UNKNOWN
    roundMode: int = RoundMode.UNKNOWN


class DivSpecificMode(typing.NamedTuple):
    """`DivSpecificMode{mrgMode, precisionMode, algo}` (DK R/基础算术/Div.md; `include/basic_api/reg_compute/
    kernel_reg_compute_utils.h`): Reg Div's `mode` template argument instead of a MaskMergeMode. `algo` is an
    aj.DivAlgo (the C++ DivAlgo lives in namespace AscendC, beside the Memory API's DivConfig)."""
    mrgMode: int = MaskMergeMode.ZEROING
    precisionMode: bool = False
    algo: int = DivAlgo.INTRINSIC

    @property
    def fidelity_algo(self):
        """The Memory-API DivAlgo whose code this mode runs (jit/reg_ops.py div_path): aj.fidelity's key."""
        return ops.DIV_PATH_NAMES[_DIV_PATH(bool(self.precisionMode), int(self.algo))]


# Reg Exp / Ln / Log / Sqrt's `mode` template argument instead of a MaskMergeMode (DK R/基础算术/{Exp,Ln,Log,Sqrt}.md;
# `include/basic_api/reg_compute/kernel_reg_compute_utils.h`): each runs the code of a 950 Memory-API algorithm
# (docs/decisions.md "Reg Exp, Ln, Log and Sqrt modes"); the algo enums are the Memory API's (aj.ExpAlgo, ...)
class ExpSpecificMode(typing.NamedTuple):
    """`ExpSpecificMode{mrgMode, algo}`: algo an aj.ExpAlgo; PRECISION_1ULP_FTZ_FALSE keeps subnormals."""
    mrgMode: int = MaskMergeMode.ZEROING
    algo: int = ExpAlgo.INTRINSIC

    @property
    def fidelity_algo(self):
        """The Memory-API ExpAlgo whose code this mode runs (its dav_3510 ExpImpl passes the mode to Reg Exp)."""
        return ExpAlgo(int(self.algo)).name


class LnSpecificMode(typing.NamedTuple):
    """`LnSpecificMode{mrgMode, algo}`: algo an aj.LnAlgo; Reg Ln and Log take it or a LogSpecificMode (DK LogImpl)."""
    mrgMode: int = MaskMergeMode.ZEROING
    algo: int = LnAlgo.INTRINSIC

    @property
    def fidelity_algo(self):
        """The Memory-API LnAlgo whose code this mode runs (its dav_3510 LnImpl passes the mode to Reg Ln)."""
        return LnAlgo(int(self.algo)).name


class LogSpecificMode(typing.NamedTuple):
    """`LogSpecificMode{mrgMode, algo}`: algo an aj.LogAlgo (LnAlgo's members); Reg Log and Ln take it."""
    mrgMode: int = MaskMergeMode.ZEROING
    algo: int = LogAlgo.INTRINSIC

    @property
    def fidelity_algo(self):
        """The Memory-API LnAlgo whose code this mode runs (Log's code is Ln's, DK LogImpl)."""
        return LnAlgo(int(self.algo)).name


class SqrtSpecificMode(typing.NamedTuple):
    """`SqrtSpecificMode{mrgMode, precisionMode, algo}`: algo an aj.SqrtAlgo; precisionMode (float only) runs the
    fast-inverse code whatever the algo."""
    mrgMode: int = MaskMergeMode.ZEROING
    precisionMode: bool = False
    algo: int = SqrtAlgo.INTRINSIC

    @property
    def fidelity_algo(self):
        """The Memory-API SqrtAlgo whose code this mode runs (jit/reg_ops.py sqrt_path): aj.fidelity's key."""
        return ops.SQRT_PATH_NAMES[_SQRT_PATH(bool(self.precisionMode), int(self.algo))]


# each SpecificMode instruction: (the struct classes it takes, its jit/reg_ops.py MODE_APIS code)
_SPECIFIC_MODES = {"Div": ((DivSpecificMode,), ops.MODE_DIV), "Exp": ((ExpSpecificMode,), ops.MODE_EXP),
                   "Ln": ((LnSpecificMode, LogSpecificMode), ops.MODE_LN),
                   "Log": ((LogSpecificMode, LnSpecificMode), ops.MODE_LOG),
                   "Sqrt": ((SqrtSpecificMode,), ops.MODE_SQRT)}


class MaskPattern(enum.IntEnum):
    ALL = 0
    VL1 = 1
    VL2 = 2
    VL3 = 3
    VL4 = 4
    VL8 = 5
    VL16 = 6
    VL32 = 7
    VL64 = 8
    VL128 = 9
    M3 = 10
    M4 = 11
    H = 12
    Q = 13
    ALLF = 15


LoadDist = enum.IntEnum("LoadDist", [(n, v) for v, n in enumerate((
    "DIST_NORM", "DIST_BRC_B8", "DIST_BRC_B16", "DIST_BRC_B32", "DIST_US_B8", "DIST_US_B16", "DIST_DS_B8",
    "DIST_DS_B16", "DIST_UNPACK_B8", "DIST_UNPACK_B16", "DIST_UNPACK_B32", "DIST_UNPACK4_B8", "DIST_BLK",
    "DIST_E2B_B16", "DIST_E2B_B32", "DIST_DINTLV_B8", "DIST_DINTLV_B16", "DIST_DINTLV_B32"))])
LoadDist.__doc__ = "Load distributions of LoadAlign (SPEC-2 11.6)."
StoreDist = enum.IntEnum("StoreDist", [(n, v) for v, n in enumerate((
    "DIST_NORM", "DIST_NORM_B8", "DIST_NORM_B16", "DIST_NORM_B32", "DIST_FIRST_ELEMENT_B8", "DIST_FIRST_ELEMENT_B16",
    "DIST_FIRST_ELEMENT_B32", "DIST_PACK_B16", "DIST_PACK_B32", "DIST_PACK_B64", "DIST_PACK4_B32", "DIST_INTLV_B8",
    "DIST_INTLV_B16", "DIST_INTLV_B32"))])
StoreDist.__doc__ = "Store distributions of StoreAlign (SPEC-2 11.6)."
_MASK_IGNORED_STORE_DISTS = frozenset((StoreDist.DIST_FIRST_ELEMENT_B8, StoreDist.DIST_FIRST_ELEMENT_B16,
                                       StoreDist.DIST_FIRST_ELEMENT_B32))


class MaskDist(enum.IntEnum):
    """MaskReg load/store distributions (SPEC-2 11.6)."""
    DIST_NORM = mv.MD_NORM
    DIST_US = mv.MD_US
    DIST_DS = mv.MD_DS
    DIST_PACK = mv.MD_PACK


class DataCopyMode(enum.IntEnum):
    DATA_BLOCK_COPY = 0


class PostLiteral(enum.IntEnum):
    POST_MODE_NORMAL = mv.POST_NORMAL
    POST_MODE_UPDATE = mv.POST_UPDATE


class HighLowPart(enum.IntEnum):
    LOWEST = 0
    HIGHEST = 1


# A register made in Python runs the kernel's own source as Python: a first plain Reg call compiled new_register and
# numba's np.zeros, 0.5 s of it, for three numpy statements (issue 20); VFs keep the compiled kernel
_NEW_REGISTER = getattr(impl.new_register, "py_func", impl.new_register)


class RegTensor:
    """A 256-byte vector register of one element type (SPEC 7.1): 256/sizeof(T) lanes."""
    # which bytes hold values computed from uninitialised UB bytes of a sanitizing core's loads (lane_shadow.py)
    _lane_shadow = None

    def __init__(self, dtype, trait=None):
        if trait is not None:   # `RegTensor<T, RegTraitNumOne>` ported with the trait as a second argument
            _refuse_trait("RegTensor", trait)
        self.dtype = resolve(dtype, "RegTensor")
        self.data = _NEW_REGISTER(self.dtype.kind, _creation_modes())
        if SANITIZING:
            sanitizer = _creation_sanitizer()
            if sanitizer is not None:   # its lanes undefined until written (lane_shadow.fresh)
                lane_shadow.fresh(self, sanitizer, Instr("RegTensor", PIPE_V, user_location(), -1))

    def numpy(self):
        """The register's lanes as a host array."""
        return self.data[:impl.VL].view(self.dtype.np_dtype).copy()

    def __repr__(self):
        return f"RegTensor({self.dtype.name})"

    def ReinterpretCast(self, dtype=None):
        """A C++ `(RegTensor<T>&)reg` cast, written as a LocalTensor's ReinterpretCast (port64k): not offered."""
        raise NotOfferedError("RegTensor.ReinterpretCast", "dtype", dtype, device=DEVICE,
                              legal="not offered (not in the brief's Reg API list, SPEC-2 14): store the register into "
                                    "a tensor of the other type (a store between a register and a tensor of "
                                    "different dtypes moves bytes) and load it back after "
                                    "LocalMemBar(VEC_STORE, VEC_LOAD)")


_UNWRITTEN = (0, 0, 0, 0)   # MaskReg()'s words, told from words given by identity (MaskReg._fresh)


class MaskReg:
    """A 256-bit predicate register: bit i predicates register byte i (SPEC 7.1). Mutable: operations with a
    MaskReg output write into the object passed (SPEC-2 D63). `MaskReg()` is the C++ `MaskReg mask;`: no instruction
    has written it (its words read 0 here)."""
    # MaskReg() made in a sanitizing core's code: the Instr that made it, until an instruction writes it. The
    # hardware leaves a predicate register undefined until written, and the emulator's zero words would hide a read
    # of it: such a read is an init report (_mask; docs/decisions.md "Sanitizer"), as a fresh RegTensor's lanes are
    _fresh = None
    # which bits were loaded from (or computed from bits of) uninitialised UB bytes of a sanitizing core's loads:
    # a lane_shadow.LaneShadow of one origin per bit (lane_shadow.py)
    _lane_shadow = None

    def __init__(self, words=_UNWRITTEN):
        if words is _UNWRITTEN:   # the default object itself: MaskReg((0, 0, 0, 0)) is a register given its words
            if SANITIZING and _creation_sanitizer() is not None:
                self._fresh = Instr("MaskReg", PIPE_V, user_location(), -1)
        if not isinstance(words, (tuple, list, np.ndarray)) or np.ndim(words) != 1 or len(words) != 4:
            raise ParameterError("MaskReg", "words", words, legal="4 integer 64-bit words (256 predicate bits)",
                                 device=DEVICE)
        self.words = tuple(np.uint64(as_int("MaskReg", DEVICE, f"words[{i}]", w, 0, UINT64_MAX))
                           for i, w in enumerate(words))

    def lanes(self, dtype):
        """Indices of the active lanes for elements of `dtype`."""
        size = resolve(dtype).size
        return [j for j in range(impl.VL // size) if impl.lane_on(self.words, j * size)]

    def bits(self):
        """The 256 bits as a Python int (bit i = register byte i)."""
        return sum(int(w) << (64 * i) for i, w in enumerate(self.words))

    def __repr__(self):
        return f"MaskReg({', '.join(hex(int(w)) for w in self.words)})"


class UnalignRegForLoad:
    """The unaligned-load state (SPEC-2 11.6, D68): the byte address the next LoadUnAlign must read."""

    def __init__(self):
        self.state = np.full(1, -1, np.int64)


class UnalignRegForStore:
    """The unaligned-store state (SPEC-2 11.6, D68): a pending run of fewer than 32 bytes and its address."""

    def __init__(self):
        self.state = np.zeros(mv.USTATE_SIZE, np.int64)
        frames = getattr(_PLAIN_VF, "frames", None)
        if frames:  # made inside a VF running as plain Python: checked when the VF returns (D68)
            frames[-1].append(self)


_PLAIN_VF = threading.local()  # .frames: per VF running uncompiled, the UnalignRegForStore objects it made


def _check_store_uregs(api, uregs):
    """SPEC-2 11.6 / D68: a VF must not end with bytes pending in an UnalignRegForStore (the hardware would lose
    them): StateError naming the VF."""
    for u in uregs:
        if u.state[1]:
            raise StateError(api, "UnalignRegForStore", f"{int(u.state[1])} bytes pending at byte {int(u.state[0])}",
                             legal="empty when the VF returns: StoreUnAlignPost writes the pending bytes (SPEC-2 "
                                   "11.6, D68)", device=DEVICE)


def _vf_core_modes(api, args):
    """The H_CTRL modes of the core a VF call runs on (SPEC-2 11.1): its first LocalTensor argument's core, else the
    current core (UnsupportedDeviceError off the 950, as every Reg call there), else 0 (not known: the 950's
    power-on modes)."""
    for a in args:
        if isinstance(a, LocalTensor):
            return core_modes(a._core)
    return _vf_current_modes(api)


def _vf_current_modes(api):
    try:
        core = current_core(api)
    except StateError:
        return 0
    _device_check(api, core)
    return core_modes(core)


def _current_core_modes():
    try:
        return core_modes(current_core("RegTensor"))
    except StateError:
        return 0


def _creation_modes():
    """The modes a RegTensor made in plain Python carries: its VF's core's (running as plain Python), else the
    current core's, else none known."""
    modes = getattr(_PLAIN_VF, "modes", None)
    return modes[-1] if modes else _current_core_modes()


def _creation_sanitizer():
    """The sanitizer following a new register's lanes: its VF's core's (running as plain Python: the innermost VF
    given a tensor of a sanitizing core), else the current core's; None when that core does not sanitize, or not the
    init check."""
    # the core stack read directly: every RegTensor made while a sanitizer exists pays this
    sanitizer = _plain_vf_sanitizer()
    if sanitizer is None:
        cores = getattr(_CORE_STACK, "stack", None)
        if not cores:
            return None
        sanitizer = cores[-1].sanitizer
    return sanitizer if sanitizer is not None and sanitizer.enabled("init") else None


def _plain_vf_sanitizer():
    """The sanitizer of the innermost VF on this thread's stack running uncompiled on a sanitizing core (a nested VF
    of registers alone runs on its caller's), or None: a VF it calls runs uncompiled too, and the registers they make
    are followed. A loop, not a generator: every RegTensor made while a sanitizer exists asks."""
    for sanitizer in reversed(_PLAIN_VF.__dict__.get("sanitizers", ())):
        if sanitizer is not None:
            return sanitizer
    return None


def _plain_vf(fn):
    """fn run as plain Python (py_func, a sanitizing core, NUMBA_DISABLE_JIT) with D68's end-of-VF check over the
    UnalignRegForStore objects it made or was given; the registers it makes carry its core's modes (SPEC-2 11.1)."""
    parameters = inspect.signature(fn)

    @functools.wraps(fn)
    def run(*args, **keywords):
        if keywords:  # bound to their parameters, as a compiled VF's call binds them
            bound = parameters.bind(*args, **keywords)
            args, keywords = bound.args, bound.kwargs
        vf_modes = _vf_core_modes(fn.__name__, args)  # refuses a non-950 current core before anything runs
        frames = _PLAIN_VF.__dict__.setdefault("frames", [])
        modes = _PLAIN_VF.__dict__.setdefault("modes", [])
        frames.append([a for a in (*args, *keywords.values()) if type(a) is UnalignRegForStore])
        modes.append(vf_modes)
        # a VF's instructions are complete when it returns (Sanitizer.vf_returned): its sanitizing cores are told
        sanitizers = _sanitizers_of(args, keywords) if SANITIZING else ()
        for sanitizer in sanitizers:
            sanitizer.vf_entered()
        made_by = _PLAIN_VF.__dict__.setdefault("sanitizers", [])   # the registers it makes (_creation_sanitizer)
        made_by.append(next(iter(sanitizers), None))
        try:
            result = fn(*args, **keywords)
        finally:
            made = frames.pop()
            modes.pop()
            made_by.pop()
            for sanitizer in sanitizers:
                sanitizer.vf_left()
        _check_store_uregs(fn.__name__, made)
        return result
    return run


def _sanitizers_of(args, keywords):
    """The sanitizers of the cores a VF's LocalTensor arguments are on, each once."""
    return {id(a._core.sanitizer): a._core.sanitizer for a in (*args, *keywords.values())
            if isinstance(a, LocalTensor) and a._core.sanitizer is not None}.values()


jit_lane_on = impl.lane_on  # bit test of a MaskReg for lane byte i (tests and tools)


def _kind(dtype, api):
    return resolve(dtype, api).kind


def _device_check(api, core):
    if core.spec.name != DEVICE:
        raise UnsupportedDeviceError(api, "device", core.device, legal=DEVICE,
                                     detail="the Reg API exists on the Ascend 950 only (SPEC 7)")


def _core_check(api):
    """Inside `with core:` a non-950 core refuses register-only operations too (SPEC-2 11.1)."""
    try:
        core = current_core(api)
    except StateError:
        return
    _device_check(api, core)


def _reg(api, name, r):
    if not isinstance(r, RegTensor):
        if _is_template_argument(r):
            _refuse_template_first(api, name, r)
        raise ParameterError(api, name, type(r).__name__, legal="an aj.Reg.RegTensor", device=DEVICE)
    return r.data


def _is_template_argument(value):
    """Whether `value` is what a C++ template argument becomes in a port: a dtype spelling, a trait, an enum value
    (a distribution, a reduce type, a mode)."""
    return (isinstance(value, (str, np.dtype, CastTrait, enum.Enum)) or
            isinstance(value, type) and issubclass(value, np.generic))


def _shown_parameters(fn):
    """fn's parameters as a port writes them: `mode=MaskMergeMode.ZEROING`, `trait=CastTrait()`."""
    for p in inspect.signature(fn).parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            continue
        d = p.default
        if d is p.empty:
            yield p.name
        else:
            yield f"{p.name}=" + (f"{type(d).__name__}.{d.name}" if isinstance(d, enum.Enum) else
                                  "CastTrait()" if isinstance(d, CastTrait) else repr(d))


_TEMPLATE_FIRST_FORMS = {  # the calls whose signatures have positional slots for their several forms
    "LoadAlign": "LoadAlign(reg, tensor, offset=0, dist=LoadDist.DIST_NORM) and the other SPEC-2 11.6 forms",
    "StoreAlign": "StoreAlign(tensor, reg, mask, offset=0, dist=StoreDist.DIST_NORM) and the other SPEC-2 11.6 forms",
}


def _refuse_template_first(api, name, value):
    """A C++ template argument written first (`Cast<float, half, trait>(d, s, m)` as `R.Cast("float", "half", trait,
    d, s, m)`, port60a): the refusal names the Python form, whose operands come first and whose other template
    arguments go by keyword after them (a register carries its dtype)."""
    form = _TEMPLATE_FIRST_FORMS.get(api) or f"{api}({', '.join(_shown_parameters(globals()[api]))})"
    shown = getattr(value, "name", value) if isinstance(value, enum.Enum) else value
    raise ParameterError(api, name, shown, legal=form, device=DEVICE,
                         detail="is a C++ template argument: the registers carry their dtypes, and the other "
                                "template arguments are the keywords after the operands")


# The MaskReg operations whose devkit pages have data-register forms too (Reg矢量计算/数据重排, 数据压缩), which
# are not offered (SPEC-2 14: not in the brief): the refusal says so and names the stores that do the same
# (UnPack's: the distribution's lane width is the source type's, so the widening is a Cast of that register; port56a
# followed "a DIST_UNPACK_B16 LoadAlign" into the uint32 destination and was refused again)
_DATA_REGISTER_FORMS = {"Interleave": "a DIST_INTLV_B16/B32 StoreAlign of two registers moves the lanes so",
                        "DeInterleave": "a DIST_DINTLV_B16/B32 LoadAlign into two registers moves the lanes so",
                        "Pack": "a DIST_PACK_B32 StoreAlign moves the lanes so",
                        "UnPack": "a DIST_UNPACK_B8/B16 LoadAlign of the half UnPack takes (its UB address) into a "
                                  "register of the narrow type puts element i in lane 2i and 0 in lane 2i+1, and a "
                                  "Reg Cast of it to the wide type with RegLayout.ZERO widens lanes 2i (SPEC-2 D65); "
                                  "a register the VF computed is first stored (StoreAlign to a scratch tensor, then "
                                  "Reg.LocalMemBar(MemType.VEC_STORE, MemType.VEC_LOAD)) and loaded so"}


def _mask_legal_of(api, kind):
    """The legal text of a `mask`/MaskReg operand refused for what it is (`kind`: "data register", "UpdateMask
    pair", "int" or None), plain and compiled alike (port57f: a compiled VF's refusal had dropped the recipes)."""
    if kind == "data register" and api in _DATA_REGISTER_FORMS:
        return (f"an aj.Reg.MaskReg: {api} of data registers is not offered (SPEC-2 11.7 has it on MaskRegs only, "
                f"14); {_DATA_REGISTER_FORMS[api]}")
    if kind == "UpdateMask pair":
        # C++ `MaskReg m = UpdateMask<T>(n);` decrements n in place; Python returns it beside the mask
        return ("an aj.Reg.MaskReg, not UpdateMask's (mask, count left) pair: unpack it, "
                "`mask, n = R.UpdateMask(T, n)` (the C++ call decrements n in place)")
    if kind == "int" and api == "StoreAlign":
        # port57a wrote StoreAlign(dst, reg, offset, mask), LoadAlign(reg, src, offset)'s order
        return "an aj.Reg.MaskReg: StoreAlign(dst, src_reg, mask, offset) takes the mask before the offset"
    return "an aj.Reg.MaskReg"


def _mask_legal(api, m):
    if isinstance(m, RegTensor):
        kind = "data register"
    elif isinstance(m, tuple) and len(m) == 2 and isinstance(m[0], MaskReg):
        kind = "UpdateMask pair"
    else:
        kind = "int" if isinstance(m, (int, np.integer)) else None
    return _mask_legal_of(api, kind)


def _mask(api, name, m, read=True):
    """The words of mask operand `name`; `read`: the instruction reads them (not a destination's type check, not a
    mask the form ignores)."""
    if isinstance(m, MaskReg):
        if m._fresh is not None and read:
            sanitizer = _creation_sanitizer()   # the VF's or the current core's, if it sanitizes now
            if sanitizer is not None:
                sanitizer.fresh_mask_read(api, name, m._fresh)
        return m.words
    if isinstance(m, (tuple, np.ndarray)) and len(m) == 4 and all(type(w) is np.uint64 for w in m):
        return tuple(m)   # a MaskReg's words, as compiled VFs take them (a sanitized VF runs uncompiled, issue 17)
    raise ParameterError(api, name, type(m).__name__, legal=_mask_legal(api, m), device=DEVICE)


def _masks(api, *named):
    """The words of several (name, mask) operands; a MaskReg() nothing wrote given as more than one of them is read
    once, one report (`And(d, m, m, m)`: review 59)."""
    seen = set()
    words = []
    for name, m in named:
        words.append(_mask(api, name, m, read=id(m) not in seen))
        seen.add(id(m))
    return words


def _write_mask(api, name, m, compute):
    """Run `compute(out)` into a fresh word array, then store it in MaskReg m (D63: in place)."""
    if not isinstance(m, MaskReg):
        raise ParameterError(api, name, type(m).__name__, legal=_mask_legal(api, m), device=DEVICE)
    out = np.zeros(4, np.uint64)
    compute(out)
    m.words, m._fresh = tuple(out), None


def core_modes(core):
    """The H_CTRL byte of a register loaded from `core`'s UB (the overflow modes it carries)."""
    modes = impl.M_KNOWN
    if core.half_saturating:
        modes |= impl.M_HALF_SAT
    if core.int_saturating:
        modes |= impl.M_INT_SAT
    if (core.ctrl >> 59) & 1:
        modes |= impl.M_CAST_TRUNC
    if not (core.ctrl >> 60) & 1:
        modes |= impl.M_TRAIT_SAT
    return modes


_PLAIN_HANDLE, VF_HANDLE = 1, 2  # tensor_handle's forms: the indices of a memo entry (tensor, handle, VFHandle)


def _not_a_ub_operand(value, api):
    """Why a Reg load / store operand is no tensor, in the words of the usual porting mistake."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        # port61c: the devkit's VFs take `__ubuf__ T*` from GetPhyAddr(), typed literally here
        return ("is an int: a VF's __ubuf__ pointer (GetPhyAddr()) is the LocalTensor itself here: pass the tensor, "
                "and `ptr + off` is tensor[off] or the call's offset argument")
    from .api._common import _not_a_tensor_hint
    return _not_a_tensor_hint(value, api)


def tensor_handle(api, tensor, form=_PLAIN_HANDLE):
    """(ub, byte address, element size, modes, lo, hi): what compiled and plain code both address a tensor by;
    [lo, hi) is the tensor's extent (the UB on a bounds="ub" core). form VF_HANDLE: the jit/reg.py VFHandle a
    compiled VF takes instead (that handle + the element count and the bounds rule, for `t[i]` in compiled code).
    Memoised per core while its CTRL and bounds rule stay the same, by the tensor's identity (a VF call converts
    every tensor argument: see _vf_handles)."""
    if type(tensor) is not LocalTensor and not isinstance(tensor, LocalTensor):
        raise ParameterError(api, "tensor", type(tensor).__name__, legal="a LocalTensor", device=DEVICE,
                             detail=_not_a_ub_operand(tensor, api))
    tensor.check_alive(api)
    core = tensor.core
    memo = core.__dict__.get("_reg_handles")
    if memo is None or memo[0] != core.ctrl or memo[1] != core.bounds or len(memo[2]) >= _HANDLE_MEMO_SIZE:
        memo = core.__dict__["_reg_handles"] = (core.ctrl, core.bounds, {})
    entry = memo[2].get(id(tensor))
    if entry is None or entry[0] is not tensor:  # the memo keeps its tensors alive, so an id is never reused in it
        _device_check(api, core)
        lo, hi = (0, core.ub.size) if core.bounds == "ub" else (tensor.addr, tensor.addr + tensor.nbytes)
        handle = (core.ub, tensor.addr, tensor.dtype.size, core_modes(core), lo, hi)
        entry = memo[2][id(tensor)] = (tensor, handle,
                                       impl.VFHandle(handle + (tensor.size, int(core.bounds != "ub"))))
    return entry[form]


_HANDLE_MEMO_SIZE = 4096  # tensors remembered per core (kernels make sub-tensors per tile; the memo starts over)


def _forget_handles(tensor):
    tensor._core.__dict__.pop("_reg_handles", None)  # a handle holds the tensor's extent, which SetSize changed


SIZE_CHANGE_HOOKS.append(_forget_handles)


def _vf_handles(api, tensors, converted, at):
    """converted[i] = tensor_handle(api, tensors[i], VF_HANDLE) for i in `at`, with the memo read inline: one
    core-state check per core instead of one per tensor (a VF call's conversion is most of its cost)."""
    last_core = valid = None
    for i in at:
        tensor = tensors[i]
        entry = None
        lease = tensor._lease
        if lease is None or lease.alive:  # a released tensor goes through tensor_handle, which refuses it
            core = tensor._core
            if core is not last_core:
                memo = core.__dict__.get("_reg_handles")
                valid = memo is not None and memo[0] == core.ctrl and memo[1] == core.bounds
                last_core = core
            if valid:
                entry = memo[2].get(id(tensor))
        converted[i] = entry[VF_HANDLE] if entry is not None and entry[0] is tensor else \
            tensor_handle(api, tensor, VF_HANDLE)


def _offset(api, offset):
    """An element offset: an integer (numpy ones too) in the int32 range, so no address arithmetic overflows
    (issue 12); the bounds are the kernels' check."""
    return as_int(api, DEVICE, "offset", offset, -INT32_MAX - 1, INT32_MAX)


_MERGE_LEGAL = "MaskMergeMode.ZEROING or MaskMergeMode.MERGING (SPEC-2 11.1)"


def _merging(api, mode):
    """A `mode` argument: ZEROING or MERGING, a member or its value only (decisions.md); UNKNOWN is a CastTrait
    value, not an instruction's mode."""
    try:
        member = as_enum(api, DEVICE, "mode", mode, MaskMergeMode)
    except ParameterError:
        member = None
    if member is None or member == MaskMergeMode.UNKNOWN:
        raise ParameterError(api, "mode", mode, legal=_MERGE_LEGAL, device=DEVICE)
    return member == MaskMergeMode.MERGING


def _code(api, name, value, enum_cls):
    """An enum argument's integer value (a member of enum_cls or its value; ParameterError otherwise)."""
    return int(as_enum(api, DEVICE, name, value, enum_cls))


def _count(api, name, value):
    """A non-negative integer argument (strides in blocks): ints and numpy ints only (as_int)."""
    return as_int(api, DEVICE, name, value, 0, INT32_MAX)


def _step(api, post_update_stride):
    if post_update_stride is None:
        return 0
    return as_int(api, DEVICE, "post_update_stride", post_update_stride, -INT32_MAX - 1, INT32_MAX)  # C++ int32


# --- plain-Python entry points (the debugging path) -----------------------------------------------------------
def _refuse_trait(api, trait):
    """A RegTraitNumOne / RegTraitNumTwo template argument ported as a call argument: the two names' own refusals."""
    raise ParameterError(api, "trait", trait, device=DEVICE,
                         legal=f"RegTraitNumOne: {_NOT_OFFERED_NAMES['RegTraitNumOne']}; "
                               f"RegTraitNumTwo: {_NOT_OFFERED_NAMES['RegTraitNumTwo']}")


def UpdateMask(dtype, n, trait=None):
    """`mask, n = UpdateMask(dtype, n)`: the lowest min(n, VL_T) lanes; n decremented (SPEC 7.2). C++'s
    `UpdateMask<T, RegTraitNumOne>(count)` is `UpdateMask(T, count)`: the trait is refused as RegTensor's is."""
    _core_check("UpdateMask")
    if trait is not None:   # port62a: the trait given as a third argument had been a bare TypeError
        _refuse_trait("UpdateMask", trait)
    n = as_int("UpdateMask", DEVICE, "n", n, 0, 2**32 - 1)  # uint32
    words, rest = impl.update_mask(_kind(dtype, "UpdateMask"), n)
    return MaskReg(words), rest


def CreateMask(dtype, pattern=MaskPattern.ALL):
    _core_check("CreateMask")
    pattern = as_enum("CreateMask", DEVICE, "pattern", pattern, MaskPattern)
    return MaskReg(impl.create_mask(_kind(dtype, "CreateMask"), int(pattern)))


def GetVecLen():
    """The vector length in bytes (VL = 256 on the 950); also `aj.GetVecLen()` (AscendC::GetVecLen)."""
    return impl.VL


VECTOR_REG_WIDTH = impl.VL  # AscendC::VECTOR_REG_WIDTH: the bytes of a vector register (256 on the 950)


def sizeof(dtype):
    """C++'s `sizeof(T)` of an element type: 2 for "half", 4 for "float" or "int32_t", 8 for "int64", ...; a name, a
    numpy or ml_dtypes dtype or an aj dtype, as every API takes them. In a `@simd_vf` too, where T is the VF's
    dtype-name argument, compiled. (numpy's np.dtype("float").itemsize is 8: numpy reads "float" as float64.)"""
    return resolve(dtype, "sizeof").size


def CeilDivision(num1, num2):
    """AscendC::CeilDivision(num1, num2): (num1 + num2 - 1) / num2 in C++ integer division (truncating toward
    zero), 0 when num2 is 0, as kernels size their loops (`CeilDivision(count, vl)`); plain and inside a VF."""
    # int64, what the compiled overload computes in (a larger int made numba raise its own typing error)
    num1 = as_int("CeilDivision", None, "num1", num1, -2**63, 2**63 - 1)
    num2 = as_int("CeilDivision", None, "num2", num2, -2**63, 2**63 - 1)
    return int(_ceil_division(num1, num2))


@njit(cache=True, no_cfunc_wrapper=True)
def _ceil_division(num1, num2):
    if num2 == 0:
        return 0
    dividend = num1 + num2 - 1
    quotient = abs(dividend) // abs(num2)  # C++ division truncates toward zero; Python's // floors
    return quotient if (dividend >= 0) == (num2 > 0) else -quotient


_NOT_GIVEN = object()  # a parameter left out, where None is a value of its own (Duplicate, the load/store forms)


def _not_taken(api, form, **given):
    """SPEC-2 11.6, 1.8: an argument of another form of LoadAlign/StoreAlign (a DATA_BLOCK_COPY `mask=` or
    `repeat_stride=` on a single load, a `dist=` or `post_update_stride=` on DATA_BLOCK_COPY, ...) is a ParameterError:
    it had been ignored, so the call ran another form than the one asked for (an unmasked load, an offset that did
    not advance). None is no argument (decisions.md "Reg API": the DIST_NORM form takes None for these)."""
    for name, value in given.items():
        if value is not None and value is not _NOT_GIVEN:
            # port62a: C++'s `LoadAlign<T, PostLiteral::POST_MODE_UPDATE>(reg, addr, stride)` ported as post_mode=
            update = name == "post_mode" and form == "single-register" and isinstance(value, (int, PostLiteral)) \
                and not isinstance(value, bool) and value == PostLiteral.POST_MODE_UPDATE
            detail = (f"C++'s {api}<T, PostLiteral::POST_MODE_UPDATE>(reg, addr, stride) is `offset = R.{api}(..., "
                      "offset, post_update_stride=stride)` here (it returns the advanced offset); post_mode is "
                      "DATA_BLOCK_COPY's") if update else None
            raise ParameterError(api, name, value, legal=f"not given: the {form} form does not take it (SPEC-2 11.6)",
                                 device=DEVICE, detail=detail)


def _block_arguments(api, data_block_stride, repeat_stride, post_mode):
    """The DATA_BLOCK_COPY strides and post mode (left out: 0 and POST_MODE_NORMAL; None is refused, as any
    non-integer)."""
    return (_count(api, "data_block_stride", data_block_stride),
            _count(api, "repeat_stride", 0 if repeat_stride is _NOT_GIVEN else repeat_stride),
            _code(api, "post_mode", PostLiteral.POST_MODE_NORMAL if post_mode is _NOT_GIVEN else post_mode, PostLiteral))


def _refuse_extra_argument(api, value, forms):
    """A positional argument past the last of `forms`: a distribution there (where a port of `LoadAlign<T, dist>`
    puts the C++ template argument) is named as the keyword it goes by."""
    by_name = (f"; a distribution goes by name: dist={type(value).__name__}.{value.name}"
               if isinstance(value, (LoadDist, StoreDist, MaskDist)) else "")
    raise ParameterError(api, "arguments", value, legal=f"{forms} (SPEC-2 11.6){by_name}", device=DEVICE)


def _pick_offset(api, positional, keyword):
    """The offset of a load/store: positional or `offset=` (SPEC-2 1.1: every parameter also by name), not both."""
    if keyword is None:
        return 0 if positional is None else positional
    if positional is not None:
        raise ParameterError(api, "offset", keyword, legal="given once: positionally or as offset=", device=DEVICE)
    return keyword


def LoadAlign(dst, src, _arg2=None, _arg3=None, dist=None, post_update_stride=None, data_block_stride=None,
              mask=None, repeat_stride=_NOT_GIVEN, post_mode=_NOT_GIVEN, offset=None):
    """LoadAlign in all its SPEC-2 11.6 forms (`offset` positional or by name in each):

        LoadAlign(reg, tensor, offset=0, dist=LoadDist.DIST_NORM)            # returns offset + post_update_stride
        LoadAlign(reg0, reg1, tensor, offset=0, dist=LoadDist.DIST_DINTLV_B16)
        LoadAlign(reg, tensor, offset, data_block_stride=s, mask=m, repeat_stride=0, post_mode=...)  # DATA_BLOCK_COPY
        LoadAlign(mask_reg, tensor, offset=0, dist=MaskDist.DIST_NORM)        # post_update_stride in bytes
    The returned offset is the post-update address (offset + post_update_stride, or + repeat_stride blocks)."""
    api = "LoadAlign"
    if _is_template_argument(dst):   # LoadAlign<T, dist>(reg, t) as LoadAlign("float", dist, reg, t): port60a
        _core_check(api)   # the device first, as every Reg call refuses
        _refuse_template_first(api, "dst", dst)
    if isinstance(src, (RegTensor, MaskReg)) and not isinstance(dst, (RegTensor, MaskReg)):   # port60i
        raise ParameterError(api, "dst", type(dst).__name__, device=DEVICE,
                             legal="a RegTensor or MaskReg: LoadAlign(reg, tensor, offset) takes the register first "
                                   "(StoreAlign takes the tensor first)")
    step = _step(api, post_update_stride)
    if isinstance(src, RegTensor):  # dual load: (reg0, reg1, tensor, offset)
        _not_taken(api, "dual (DIST_DINTLV)", data_block_stride=data_block_stride, mask=mask,
                   repeat_stride=repeat_stride, post_mode=post_mode)
        tensor, offset = _arg2, _pick_offset(api, _arg3, offset)
        h = tensor_handle(api, tensor)
        d = mv.L_DINTLV_B16 if dist is None else _code(api, "dist", dist, LoadDist)
        undo = reg_undo(tensor, _reg(api, "reg0", dst), src.data) if SANITIZING else None
        off = _offset(api, offset)
        result = mv.load_dual(_reg(api, "reg0", dst), src.data, h, off, d, step)
        if SANITIZING and (tensor.core.sanitizer is not None or MARKING):
            _loaded(api, tensor, "load_dual", off, undo=undo, registers=(dst, src),
                    run=lambda hh, r0, r1: mv.load_dual(r0, r1, hh, off, d, step), handle=h)
        return result
    if _arg3 is not None:
        _refuse_extra_argument(api, _arg3, "(reg, tensor, offset) or (reg0, reg1, tensor, offset)")
    offset = _pick_offset(api, _arg2, offset)
    if isinstance(dst, MaskReg):
        _not_taken(api, "MaskReg", data_block_stride=data_block_stride, mask=mask, repeat_stride=repeat_stride,
                   post_mode=post_mode)
        h = tensor_handle(api, src)
        off = _offset(api, offset)
        result = []
        d = _code(api, "dist", 0 if dist is None else dist, MaskDist)
        undo = reg_undo(src, mask_reg=dst) if SANITIZING else None  # a report puts back what the call changed
        _write_mask(api, "dst", dst, lambda out: result.append(mv.load_mask(out, h, off, d, step)))
        if SANITIZING and (src.core.sanitizer is not None or MARKING):  # issue 17: after the operation's refusals
            # its bits marked from the uninitialised bytes they come from, or (bounds="ub") from past the tensor, not
            # reported (lane_shadow.mask_loaded)
            _loaded(api, src, "load_mask", off, d, undo=undo, registers=(dst,),
                    run=lambda hh, out: mv.load_mask(out, hh, off, d, step), handle=h)
        return result[0]
    h = tensor_handle(api, src)
    if data_block_stride is not None:
        _not_taken(api, "DATA_BLOCK_COPY", dist=dist, post_update_stride=post_update_stride)
        blk, rep_, post = _block_arguments(api, data_block_stride, repeat_stride, post_mode)
        undo = reg_undo(src, _reg(api, "reg", dst)) if SANITIZING else None
        off, words = _offset(api, offset), _mask(api, "mask", mask)
        result = mv.load_blocks(_reg(api, "reg", dst), h, off, blk, words, rep_, post)
        if SANITIZING and (src.core.sanitizer is not None or MARKING):
            _loaded(api, src, "load_blocks", off, blk, words, rep_, post, dst.dtype.size, undo=undo, registers=(dst,),
                    run=lambda hh, r: mv.load_blocks(r, hh, off, blk, words, rep_, post), handle=h)
            if MARKING:
                lane_shadow.governed(dst, mask)
        return result
    _not_taken(api, "single-register", mask=mask, repeat_stride=repeat_stride, post_mode=post_mode)
    d = _code(api, "dist", 0 if dist is None else dist, LoadDist)
    undo = reg_undo(src, _reg(api, "reg", dst)) if SANITIZING else None
    off = _offset(api, offset)
    result = _load_single(_reg(api, "reg", dst), h, off, d, step)
    if SANITIZING and (src.core.sanitizer is not None or MARKING):
        _loaded(api, src, "load", off, d, dst.dtype.size, undo=undo, registers=(dst,),
                run=lambda hh, r: _load_single(r, hh, off, d, step), handle=h)
    return result


def _load_single(reg, h, offset, dist, step):
    return mv.load_norm(reg, h, offset, step) if dist == mv.L_NORM else mv.load(reg, h, offset, dist, step)


def _store_single(h, reg, words, offset, dist, step):
    return (mv.store_norm(h, reg, words, offset, step) if dist == mv.S_NORM else
            mv.store(h, reg, words, offset, dist, step))


def _loaded(api, tensor, form, offset, *args, undo, registers, run, handle=None):
    """After a Reg load into data registers or a MaskReg from a sanitizing core, or once a register has been marked:
    the sanitizer's access (which marks the lanes or bits its uninitialised bytes feed, lane_shadow.py), or on a
    core without one, clean registers."""
    if tensor.core.sanitizer is not None:
        reg_access(api, tensor, form, offset, *args, undo=undo, registers=registers, run=run, handle=handle)
    elif MARKING:
        lane_shadow.clear(*registers)


def StoreAlign(tensor, src, second=None, _arg3=None, _arg4=None, dist=None, post_update_stride=None,
               data_block_stride=None, mask=None, repeat_stride=_NOT_GIVEN, post_mode=_NOT_GIVEN, offset=None):
    """StoreAlign in all its SPEC-2 11.6 forms (`offset` positional or by name in each; `mask=` by name too):

        StoreAlign(tensor, reg, mask, offset=0, dist=StoreDist.DIST_NORM)       # returns offset + post_update_stride
        StoreAlign(tensor, reg0, reg1, mask, offset=0, dist=StoreDist.DIST_INTLV_B16)
        StoreAlign(tensor, reg, offset, data_block_stride=s, mask=m, repeat_stride=0, post_mode=...)
        StoreAlign(tensor, mask_reg, offset=0, dist=MaskDist.DIST_NORM)"""
    api = "StoreAlign"
    if _is_template_argument(tensor):
        _core_check(api)
        _refuse_template_first(api, "tensor", tensor)
    step = _step(api, post_update_stride)
    h = tensor_handle(api, tensor)
    if isinstance(src, MaskReg) and isinstance(second, RegTensor) and not isinstance(_arg3, MaskReg) and mask is None:
        # StoreAlign(t, mask, reg, offset), the single store's register and mask swapped (port60i); with a MaskReg
        # after them it is the dual form, whose reg0 refuses the mask
        raise ParameterError(api, "src", "a MaskReg before a RegTensor", device=DEVICE,
                             legal="StoreAlign(tensor, reg, mask, offset) stores a register (the mask after it); "
                                   "StoreAlign(tensor, mask_reg, offset) stores the MaskReg itself")
    if isinstance(second, RegTensor):  # dual store: (tensor, reg0, reg1, mask, offset); the mask is ignored
        _not_taken(api, "dual (DIST_INTLV)", data_block_stride=data_block_stride, repeat_stride=repeat_stride,
                   post_mode=post_mode)
        for value in (_arg3, mask):  # positional or mask=: ignored by INTLV, but a MaskReg (SPEC-2 11.6 signature)
            if value is not None:
                _mask(api, "mask", value, read=False)
        off = _offset(api, _pick_offset(api, _arg4, offset))
        d = mv.S_INTLV_B16 if dist is None else _code(api, "dist", dist, StoreDist)
        undo = reg_undo(tensor, ub=True) if SANITIZING else None
        result = mv.store_dual(h, _reg(api, "reg0", src), second.data, off, d, step)
        if SANITIZING and tensor.core.sanitizer is not None:
            reg_access(api, tensor, "store_dual", off, undo=undo, registers=(src, second),
                       run=lambda hh, r0, r1: mv.store_dual(hh, r0, r1, off, d, step), handle=h)
        return result
    if _arg4 is not None:
        _refuse_extra_argument(api, _arg4, "(tensor, reg, mask, offset) or (tensor, reg0, reg1, mask, offset)")
    if isinstance(src, MaskReg):  # (tensor, mask_reg, offset)
        _not_taken(api, "MaskReg", data_block_stride=data_block_stride, mask=mask, repeat_stride=repeat_stride,
                   post_mode=post_mode)
        d = _code(api, "dist", 0 if dist is None else dist, MaskDist)
        undo = reg_undo(tensor, ub=True) if SANITIZING else None  # a report puts back what the call changed
        off = _offset(api, _pick_offset(api, second, offset))  # (tensor, mask_reg, offset) or offset=
        result = mv.store_mask(h, _mask(api, "src", src), off, d, step)
        if SANITIZING and tensor.core.sanitizer is not None:  # issue 17: after the operation's own refusals
            # the bytes of marked bits stay uninitialised (lane_shadow.mask_stored_bytes; words given are clean)
            reg_access(api, tensor, "store_mask", off, d, undo=undo, handle=h,
                       registers=(src,) if isinstance(src, MaskReg) else (),
                       run=lambda hh, w: mv.store_mask(hh, w, off, d, step))
        return result
    if data_block_stride is not None:  # (tensor, reg, offset, data_block_stride=, mask=)
        _not_taken(api, "DATA_BLOCK_COPY", dist=dist, post_update_stride=post_update_stride)
        blk, rep_, post = _block_arguments(api, data_block_stride, repeat_stride, post_mode)
        undo = reg_undo(tensor, ub=True) if SANITIZING else None
        off = _offset(api, _pick_offset(api, second, offset))  # (tensor, reg, offset) or offset=
        words = _mask(api, "mask", mask)
        result = mv.store_blocks(h, _reg(api, "reg", src), off, blk, words, rep_, post)
        if SANITIZING and tensor.core.sanitizer is not None:
            reg_access(api, tensor, "store_blocks", off, blk, words, rep_, post, src.dtype.size, undo=undo,
                       registers=(src,), mask=mask, handle=h,
                       run=lambda hh, r, selected=words: mv.store_blocks(hh, r, off, blk, selected, rep_, post))
        return result
    _not_taken(api, "single-register", repeat_stride=repeat_stride, post_mode=post_mode)
    if second is not None and mask is not None:
        raise ParameterError(api, "mask", mask, legal="given once: positionally or as mask=", device=DEVICE)
    # DIST_FIRST_ELEMENT_B8/B16/B32 store lane 0 and ignore the mask (SPEC-2 11.6): it is not read (port59c)
    mask = second if mask is None else mask
    read = dist not in _MASK_IGNORED_STORE_DISTS
    words = _mask(api, "mask", mask, read=read)
    off = _offset(api, _pick_offset(api, _arg3, offset))
    d = _code(api, "dist", 0 if dist is None else dist, StoreDist)
    undo = reg_undo(tensor, ub=True) if SANITIZING else None
    result = _store_single(h, _reg(api, "reg", src), words, off, d, step)
    if SANITIZING and tensor.core.sanitizer is not None:
        reg_access(api, tensor, "store", off, d, src.dtype.size, words, undo=undo, registers=(src,),
                   mask=mask if read else None, handle=h,
                   run=lambda hh, r, selected=words: _store_single(hh, r, selected, off, d, step))
    return result


def _binary(api, op, a, b, c, d, mode):
    _core_check(api)
    if isinstance(a, MaskReg):  # carry form: (carry, dst, src0, src1, mask)
        if isinstance(mode, MaskMergeMode):   # four operands, a MaskReg first: the mask before the sources (port60i)
            raise ParameterError(api, "mask", "missing", device=DEVICE,
                                 legal=f"the carry form {api}(carry, dst, src0, src1, mask) (int32 / uint32, SPEC-2 "
                                       f"11.2), or {api}(dst, src0, src1, mask): the mask after the sources")
        dst, src0, src1, words = _reg(api, "dst", b), _reg(api, "src0", c), _reg(api, "src1", d), \
            _mask(api, "mask", mode)
        # before the operation, a report leaving the carry and dst as they were; not for dtypes the kernel refuses,
        # whose refusal comes first, as without a sanitizer (sanfix65: an int8 carry Add raised an init report)
        if MARKING and c.dtype.name in ("int32", "uint32") and b.dtype is c.dtype and d.dtype is c.dtype:
            _carry_lanes(api, (c, d), words, mode)
        _write_mask(api, "carry", a, lambda out: ops.binary_carry(out, dst, src0, src1, words, op))
        if MARKING:
            lane_shadow.elementwise(b, (c, d), words, False, mode)
            lane_shadow.clear(a)   # what would mark it is reported above
        return
    _reg(api, "src0", b)
    dst, src1, words, merging = _reg(api, "dst", a), _reg(api, "src1", c), _mask(api, "mask", d), _merging(api, mode)
    # the dtype after the mode, as a compiled VF refuses: its mode is checked before the kernel checks the dtypes
    _check_dtype(api, b.dtype.name, ARITH_DTYPES[api], "SPEC-2 11.2")
    ops.binary(dst, b.data, src1, words, op, merging, *_binary_markers(b.dtype.kind))
    if MARKING:
        lane_shadow.elementwise(a, (b, c), words, merging, d)


def _carry_lanes(api, srcs, words, mask):
    """Add/Sub's carry MaskReg computed from a lane holding a value of uninitialised bytes, or under a marked bit of
    `mask`: reported (lane_shadow.carry_origin)."""
    found = lane_shadow.carry_origin(srcs, words, srcs[0].dtype.size, mask)
    if found is None:
        return
    origin, operand = found
    try:   # the core the carry is computed on; outside `with core:` the one the load was first met on
        sanitizer = current_core(api).sanitizer
    except StateError:
        sanitizer = origin.sanitizer()
    if sanitizer is not None:
        sanitizer.carry_from_lanes(api, origin, operand)


def Add(dst, src0, src1, mask, mode=MaskMergeMode.ZEROING):
    """Add(dst, src0, src1, mask, mode) or the carry form Add(carry, dst, src0, src1, mask) (SPEC-2 11.2)."""
    _binary("Add", ops.ADD, dst, src0, src1, mask, mode)


def Sub(dst, src0, src1, mask, mode=MaskMergeMode.ZEROING):
    """Sub(dst, src0, src1, mask) (ZEROING only, D67) or the carry form Sub(carry, dst, src0, src1, mask)."""
    _binary("Sub", ops.SUB, dst, src0, src1, mask, mode)


def Mul(dst, src0, src1, mask, mode=MaskMergeMode.ZEROING):
    """Mul(dst, src0, src1, mask): ZEROING only; int16/int32 clamp under integer saturation (SPEC-2 D67)."""
    _binary("Mul", ops.MUL, dst, src0, src1, mask, mode)


# the engine's instructions whose only mode is ZEROING (DK RegMerge table 2, SPEC-2 11.1; Exp's page and DivImpl's
# static_assert too): MERGING a ParameterError (Max and Min merge: the table's software MERGING)
_ZEROING_ENGINE_OPS = ("Prelu", "Div", "Exp")


def _engine(api, dst, srcs, mask, mode):
    _core_check(api)
    regs = [_reg(api, "dst", dst)] + [_reg(api, f"src{i}" if len(srcs) > 1 else "src", s) for i, s in enumerate(srcs)]
    words = _mask(api, "mask", mask)
    specific = api in _SPECIFIC_MODES and isinstance(mode, tuple)
    if not specific:  # a MaskMergeMode before the dtypes, as a compiled VF checks it before the kernel's dtype check
        op, merging = ENGINE_OPS[api], _merging(api, mode)
        if merging and api in _ZEROING_ENGINE_OPS:
            _zeroing_only(api, mode)
    for r in (dst, *srcs):
        _check_dtype(api, r.dtype.name, ENGINE_DTYPES[api], "the 950 Memory-API table; docs/decisions.md")
    if specific:  # after the dtypes: compiled specific_mode_op checks the fields of a type the API takes only
        op, merging = _specific_mode(api, regs[1], _ENGINE_KINDS[api], mode), False
    markers = _engine_markers(api, srcs[0].dtype.kind)
    if len(srcs) == 2:
        ops.engine_binary(regs[0], regs[1], regs[2], words, op, _ENGINE_KINDS[api], merging, *markers)
    else:
        ops.engine_unary(regs[0], regs[1], words, op, _ENGINE_KINDS[api], merging, *markers)
    if MARKING:
        lane_shadow.elementwise(dst, srcs, words, merging, mask)


_HALF, _FLOAT, _BF16 = (resolve(d).kind for d in ("half", "float", "bfloat16"))
_ALL_KINDS = tuple(d.kind for d in ALL)


def _vf_markers(markers, register_type, *leading):
    """The class markers `markers(*leading, kind)` (0: compile that class; None: not) for a VF's source register of
    numba type `register_type`: its kind's when the type names one; when it names a class of kinds (a dtype-name
    argument's, jit/reg.py DTypeNameType), every marker any of them sets (the kernel picks by the kind at run time);
    markers(*leading, None) for a plain register (a kind known only at run time)."""
    kinds = impl.register_kinds(register_type)
    if kinds is None:
        return markers(*leading, None)
    each = [markers(*leading, kind) for kind in kinds]
    return tuple(None if all(m[i] is None for m in each) else 0 for i in range(len(each[0])))


def _engine_markers(api, kind):
    """The dtype-class markers (0: compile that class; None: not) of engine_binary (half, halves, wide, int) or
    engine_unary (half, float) for a source register of `kind`: a plain call and a VF register of a literal dtype
    compile that class only (issue 20). kind None (a VF register whose dtype is a run-time value): every class but
    the fused half one (half Max/Min then take the halves path, the same bits), picked by the kernel from the kind.
    Half Div and LeakyRelu always take the halves path (float32 decode, the lane, one store)."""
    def on(flag):
        return 0 if flag else None
    if api == "Exp":
        return (0, 0) if kind is None else (on(kind == _HALF), on(kind != _HALF))
    if kind is None:
        return None, 0, 0, 0
    half = kind == _HALF and api in ("Max", "Min")  # the fused half lanes
    halves = kind == _HALF and not half  # Div (its default algorithm flushes, FTZ, D38) and LeakyRelu
    wide = kind in (_FLOAT, _BF16)
    return on(half), on(halves), on(wide), on(not (half or halves or wide))


def Max(dst, src0, src1, mask, mode=MaskMergeMode.ZEROING):
    """Max(dst, src0, src1, mask, mode): the 950 Memory-API Max per lane (SPEC-2 2.3, D41; BIT-EXACT); inactive
    lanes 0 (ZEROING) or kept (MERGING). Not in SPEC-2 11: docs/decisions.md "Reg API"."""
    _engine("Max", dst, (src0, src1), mask, mode)


def Min(dst, src0, src1, mask, mode=MaskMergeMode.ZEROING):
    """Min: as Max (SPEC-2 2.3, D41; BIT-EXACT)."""
    _engine("Min", dst, (src0, src1), mask, mode)


# the compiled call's checks, run as Python (nothing to compile; the functions themselves under NUMBA_DISABLE_JIT)
_SPECIFIC_MODE_OP = getattr(ops.specific_mode_op, "py_func", ops.specific_mode_op)
_DIV_PATH = getattr(ops.div_path, "py_func", ops.div_path)
_SQRT_PATH = getattr(ops.sqrt_path, "py_func", ops.sqrt_path)


def _specific_mode(api, src, allowed, mode):
    """A SpecificMode struct of `api` (Div, Exp, Ln, Log, Sqrt): the kernel's op for the code it runs, MERGING
    refused (specific_mode_op). The fields' types here (SPEC-2 1.8: a member of the field's enum or its value;
    precisionMode a bool), their ranges and the combinations the register type takes in specific_mode_op."""
    classes, code = _SPECIFIC_MODES[api]
    fields = classes[0]._fields
    # the API's own structs, or a plain tuple of their fields (each Impl static_asserts the struct's type: another
    # instruction's struct of the same length is refused, not read field by field)
    if (type(mode) not in classes and type(mode) is not tuple) or len(mode) != len(fields):
        structs = " or ".join(f"aj.Reg.{c.__name__}({', '.join(fields)})" for c in classes)
        raise ParameterError(api, "mode", mode, legal=f"a MaskMergeMode member or value, or an {structs}",
                             device=DEVICE)
    values = dict(zip(fields, mode))
    mrg = _code(api, "mode.mrgMode", values["mrgMode"], MaskMergeMode)
    precision = values.get("precisionMode", False)
    if not isinstance(precision, (bool, np.bool_)):
        raise ParameterError(api, "mode.precisionMode", precision, legal="True or False", device=DEVICE)
    algo = _code(api, "mode.algo", values["algo"], type(classes[0]._field_defaults["algo"]))
    return _SPECIFIC_MODE_OP(src, allowed, code, mrg, int(precision), algo)


def specific_mode_check(api, dtype, mode):
    """What a call of `api` (Div, Exp, Ln, Log, Sqrt) with a SpecificMode `mode` (its own struct or a plain tuple
    of the fields) on registers of `dtype` refuses, as the call refuses it (ParameterError; a dtype the API does not
    take left to the caller): aj.fidelity's check of a mode, so that a mode the call refuses has no level."""
    allowed = _ENGINE_KINDS[api] if api in ENGINE_OPS else _UNARY_KINDS[api]
    _specific_mode(api, _NEW_REGISTER(resolve(dtype).kind, 0), allowed, mode)


def Div(dst, src0, src1, mask, mode=MaskMergeMode.ZEROING):
    """Div(dst, src0, src1, mask, mode): `mode` a MaskMergeMode (the default algorithm, INTRINSIC: RN(x / y) with
    DAZ/FTZ, D38, D48; MODELLED) or a DivSpecificMode (DK R/基础算术/Div.md): the code DivImpl runs for it
    (jit/reg_ops.py div_path) computes as the 950 Memory-API Div of the same code, SPEC-2 2.3's Div table: RN(x / y),
    with DAZ/FTZ unless that code keeps subnormals (PRECISION_0ULP_FTZ_FALSE; PRECISION_1ULP_FTZ_FALSE without
    precisionMode). ZEROING only (DK RegMerge table 2)."""
    _engine("Div", dst, (src0, src1), mask, mode)


def Exp(dst, src, mask, mode=MaskMergeMode.ZEROING):
    """Exp: the 950 Memory-API Exp (D37; MODELLED): `mode` a MaskMergeMode (the default algorithm, INTRINSIC: DAZ/FTZ,
    D38) or an ExpSpecificMode (DK R/基础算术/Exp.md), whose algo is the Memory API's: PRECISION_1ULP_FTZ_FALSE keeps
    subnormals. ZEROING only (DK RegMerge table 2 and Exp's page: "MERGING模式当前不支持")."""
    _engine("Exp", dst, (src,), mask, mode)


def _zeroing_only(api, mode):
    """The instructions whose only mode is ZEROING (DK RegMerge table 2): MERGING is a ParameterError."""
    if _merging(api, mode):
        raise ParameterError(api, "mode", "MERGING", legal="MaskMergeMode.ZEROING (DK Reg MergeMode table 2)",
                             device=DEVICE)


def _same_dtype(api, dst, src, allowed, folder="基础算术"):
    """dst and src RegTensors of one dtype of `allowed` (the devkit page DK R/<folder>/<api>.md)."""
    _reg(api, "dst", dst), _reg(api, "src", src)
    _check_dtype(api, src.dtype.name, allowed, f"DK R/{folder}/{api}.md")
    if dst.dtype.name != src.dtype.name:
        raise UnsupportedDTypeError(api, "dst dtype", dst.dtype.name, legal=f"{src.dtype.name}, the source's "
                                    f"(DK R/{folder}/{api}.md)", device=DEVICE)


def _tensor_scalar(api, dst, src, scalar, mask, mode):
    """dst = src op scalar per active lane (ZEROING): the scalar converted by SPEC-2 D29 into a register of src's
    type, then Add/Mul's lanes (Adds, Muls) or Max/Min's (Maxs, Mins) with that register as the second source."""
    _core_check(api)
    _same_dtype(api, dst, src, SCALAR_DTYPES[api])
    words = _mask(api, "mask", mask)
    tmp = ops.broadcast_register(src.data, np.uint64(scalar_bits(api, DEVICES[DEVICE], src.dtype, scalar, "scalar")))
    _zeroing_only(api, mode)  # after the scalar, as a compiled VF (its scalar register is made first)
    kind = src.dtype.kind
    if api in ("Adds", "Muls"):
        ops.binary(dst.data, src.data, tmp, words, ops.ADD if api == "Adds" else ops.MUL, False,
                   *_binary_markers(kind))
    else:
        name = _SCALAR_ENGINE[api]
        ops.engine_binary(dst.data, src.data, tmp, words, ENGINE_OPS[name], _ENGINE_KINDS[name], False,
                          *_engine_markers(name, kind))
    if MARKING:
        lane_shadow.elementwise(dst, (src,), words, False, mask)


_SCALAR_ENGINE = {"Maxs": "Max", "Mins": "Min", "LeakyRelu": "LeakyRelu"}  # the engine_binary op of each


def Adds(dst, src, scalar, mask, mode=MaskMergeMode.ZEROING):
    """Adds(dst, src, scalar, mask): dst = src + scalar per active lane, inactive lanes 0 (DK R/基础算术/Adds.md;
    ZEROING only). Add's lanes (RegPrec: 0 ulp; bf16 via float; int16/int32 clamp under saturation, D35)."""
    _tensor_scalar("Adds", dst, src, scalar, mask, mode)


def Muls(dst, src, scalar, mask, mode=MaskMergeMode.ZEROING):
    """Muls(dst, src, scalar, mask): dst = src * scalar (DK R/基础算术/Muls.md: no int8/uint8/bfloat16; ZEROING
    only). Mul's lanes (RegPrec: 0 ulp; D67 saturation)."""
    _tensor_scalar("Muls", dst, src, scalar, mask, mode)


def Maxs(dst, src, scalar, mask, mode=MaskMergeMode.ZEROING):
    """Maxs(dst, src, scalar, mask): max(src, scalar) under D41 (Maxs(-0, +0) = +0, the page's constraint)."""
    _tensor_scalar("Maxs", dst, src, scalar, mask, mode)


def Mins(dst, src, scalar, mask, mode=MaskMergeMode.ZEROING):
    """Mins(dst, src, scalar, mask): min(src, scalar) under D41 (Mins(-0, +0) = -0, the page's constraint)."""
    _tensor_scalar("Mins", dst, src, scalar, mask, mode)


def LeakyRelu(dst, src, scalar, mask, mode=MaskMergeMode.ZEROING):
    """LeakyRelu(dst, src, scalar, mask): x where x's sign bit is clear, else RN(scalar * x) (D42, the 950 Memory-API
    LeakyRelu; the identity path also through SAT for half); half and float, ZEROING only (DK R/基础算术/LeakyRelu.md)."""
    _tensor_scalar("LeakyRelu", dst, src, scalar, mask, mode)


def _ternary(api, dst, src0, src1_data, mask, mode, kind, read):
    """`read`: the registers the lanes read (dst among them for MulAddDst, MulDstAdd and Axpy)."""
    words = _mask(api, "mask", mask)
    ops.ternary(dst.data, src0.data, src1_data, words, TERNARY_OPS[api], _TERNARY_KINDS[api], False,
                *_binary_markers(kind))
    if MARKING:
        lane_shadow.elementwise(dst, read, words, False, mask)


def _ternary_checks(api, dst, src0, src1, mask, mode):
    """MulAddDst/MulDstAdd/AbsSub's refusals in a compiled VF's order: the operands, the mode (checked before the
    kernel call), then the dtypes (the kernel's check)."""
    _core_check(api)
    _reg(api, "dst", dst), _reg(api, "src", src0), _reg(api, "src1", src1)
    _mask(api, "mask", mask, read=False)   # read by _ternary
    _zeroing_only(api, mode)
    _same_dtype(api, dst, src0, TERNARY_DTYPES[api], "复合计算")
    if src1.dtype.name != src0.dtype.name:
        raise UnsupportedDTypeError(api, "src1 dtype", src1.dtype.name, legal=f"{src0.dtype.name}, src0's",
                                    device=DEVICE)


def MulAddDst(dst, src0, src1, mask, mode=MaskMergeMode.ZEROING):
    """MulAddDst: dst = src0 * src1 + dst per active lane, one rounding (RegPrec: "等效于 Fma"; the 950 fused lanes),
    then SAT for half; integers D35 (DK R/复合计算/MulAddDst.md); ZEROING only."""
    _ternary_checks("MulAddDst", dst, src0, src1, mask, mode)
    _ternary("MulAddDst", dst, src0, src1.data, mask, mode, src0.dtype.kind, (src0, src1, dst))


# `Mula` is the devkit's other name of MulAddDst (impl/basic_api/reg_compute/kernel_reg_compute_vec_binary_intf_impl.h:
# both call MulAddDstImpl; ops-nn's regbase norms call it): the same function, compiled alike (port60f)
Mula = MulAddDst


def MulDstAdd(dst, src0, src1, mask, mode=MaskMergeMode.ZEROING):
    """MulDstAdd: dst = dst * src0 + src1, one rounding (DK R/复合计算/MulDstAdd.md: bfloat16, float; the half ->
    float form is not offered)."""
    _ternary_checks("MulDstAdd", dst, src0, src1, mask, mode)
    _ternary("MulDstAdd", dst, src0, src1.data, mask, mode, src0.dtype.kind, (src0, src1, dst))


# `FusedMulDstAdd` is the devkit's other name of MulDstAdd (impl/basic_api/reg_compute/
# kernel_reg_compute_vec_fused_intf_impl.h: both call FusedMulDstAddImpl; the devkit's 950 fma, atan, erf and tanh and
# ops-nn's arch35 norms call it): the same function, compiled alike (port63h)
FusedMulDstAdd = MulDstAdd


def Axpy(dst, src, scalar, mask, mode=MaskMergeMode.ZEROING):
    """Axpy: dst = scalar * src + dst, one rounding (DK R/复合计算/Axpy.md: half, float, int64, uint64; the scalar by
    SPEC-2 D29)."""
    api = "Axpy"
    _core_check(api)
    # a compiled VF's order: the dtypes and the scalar (its scalar register is made first), then the mode
    _same_dtype(api, dst, src, TERNARY_DTYPES[api], "复合计算")
    tmp = ops.broadcast_register(src.data, np.uint64(scalar_bits(api, DEVICES[DEVICE], src.dtype, scalar, "scalar")))
    _mask(api, "mask", mask, read=False)   # read by _ternary
    _zeroing_only(api, mode)
    _ternary(api, dst, src, tmp, mask, mode, src.dtype.kind, (src, dst))


def AbsSub(dst, src0, src1, mask, mode=MaskMergeMode.ZEROING):
    """AbsSub: |src0 - src1| (RegPrec: Abs(Sub(x, y)), the difference rounded once), SAT for half; int64 wraps
    (DK R/复合计算/AbsSub.md)."""
    _ternary_checks("AbsSub", dst, src0, src1, mask, mode)
    _ternary("AbsSub", dst, src0, src1.data, mask, mode, src0.dtype.kind, (src0, src1))


def _unary(api, dst, src, mask, mode):
    _core_check(api)
    _reg(api, "dst", dst), _reg(api, "src", src)
    words = _mask(api, "mask", mask)
    specific = api in _SPECIFIC_MODES and isinstance(mode, tuple)
    if specific:
        # as compiled: specific_mode_op checks the fields against the source's type (one the API takes), then the
        # kernel checks dst's against it
        _check_dtype(api, src.dtype.name, UNARY_DTYPES[api], f"DK R/基础算术/{api}.md")
        op = _specific_mode(api, src.data, _UNARY_KINDS[api], mode)
    else:  # before the dtypes, as a compiled VF checks the mode before the kernel's dtype check
        _zeroing_only(api, mode)
        op = UNARY_OPS[api]
    _same_dtype(api, dst, src, UNARY_DTYPES[api])
    ops.unary(dst.data, src.data, words, op, _UNARY_KINDS[api], False, *_unary_markers(src.dtype.kind))
    if MARKING:
        lane_shadow.elementwise(dst, (src,), words, False, mask)


def _unary_markers(kind):
    """ops.unary's (half, float and bfloat16, int) class markers for a source register of `kind` (None: a run-time
    dtype, all)."""
    if kind is None:
        return 0, 0, 0
    wide = kind in (_FLOAT, _BF16)
    return (0 if kind == _HALF else None), (0 if wide else None), (None if kind == _HALF or wide else 0)


def Abs(dst, src, mask, mode=MaskMergeMode.ZEROING):
    """Abs: |x| (floats: the sign cleared, then SAT for half; integers: D35, |MIN| = MIN unless int16/int32
    saturate). DK R/基础算术/Abs.md; the 950 Memory-API Abs (SPEC-2 4.3); ZEROING only."""
    _unary("Abs", dst, src, mask, mode)


def Relu(dst, src, mask, mode=MaskMergeMode.ZEROING):
    """Relu: max(+0, x) under D41 (Relu(-0) = +0, RegBV-T9), SAT for half; int32/int64 max(0, x)."""
    _unary("Relu", dst, src, mask, mode)


def Neg(dst, src, mask, mode=MaskMergeMode.ZEROING):
    """Neg: -x, exact (RegPrec: the sign bit flipped; NaN stays NaN, RegBV-T6), SAT for half; integers D35
    (-MIN = MIN unless int16/int32 saturate)."""
    _unary("Neg", dst, src, mask, mode)


def Ln(dst, src, mask, mode=MaskMergeMode.ZEROING):
    """Ln: the 950 Memory-API Ln (D37; MODELLED, 1 ulp): `mode` a MaskMergeMode (the default algorithm, INTRINSIC:
    DAZ/FTZ, D38) or an LnSpecificMode or LogSpecificMode (DK R/基础算术/Ln.md, LogImpl takes either), whose
    PRECISION_1ULP_FTZ_FALSE keeps subnormals."""
    _unary("Ln", dst, src, mask, mode)


def Log(dst, src, mask, mode=MaskMergeMode.ZEROING):
    """Log: Ln under the C library's name (DK R/基础算术/Log.md: "与Ln接口功能等价"), so MODELLED as Ln (D37,
    D38, D69); `mode` a MaskMergeMode or a LogSpecificMode or LnSpecificMode, as Ln's."""
    _unary("Log", dst, src, mask, mode)


def Sqrt(dst, src, mask, mode=MaskMergeMode.ZEROING):
    """Sqrt: the 950 Memory-API Sqrt: `mode` a MaskMergeMode (the default algorithm, INTRINSIC: DAZ/FTZ, D37, D38;
    MODELLED, 1 ulp) or a SqrtSpecificMode (DK R/基础算术/Sqrt.md): the code SqrtImpl runs for it (jit/reg_ops.py
    sqrt_path) computes as the Memory-API Sqrt of that code: the fast-inverse code (precisionMode, or algo
    PRECISION_0ULP_FTZ_FALSE; float only) RN(sqrt(x)) with subnormals kept and D49's domain (BIT-EXACT, D49), the
    PRECISION_1ULP_FTZ_FALSE code RN(sqrt(x)) with subnormals kept (MODELLED)."""
    _unary("Sqrt", dst, src, mask, mode)


def _select_registers(dst, src0, src1, mask):
    """Select on data registers (DK R/比较与选择/Select.md): src0's lane where the mask selects it, else src1's."""
    api = "Select"
    _core_check(api)
    _reg(api, "src0", src0), _reg(api, "src1", src1)
    if not (dst.dtype.name == src0.dtype.name == src1.dtype.name):
        # the three dtypes as a tuple, as Add's and Max's refusals name theirs: the words a compiled VF gives (its
        # kernel names kind codes, errors.py _named_kinds; SPEC-2 11.1), where this had named them as one string
        raise UnsupportedDTypeError(api, "dstReg/srcReg0/srcReg1 dtypes",
                                    (dst.dtype.name, src0.dtype.name, src1.dtype.name), legal=ops.SELECT_LEGAL,
                                    device=DEVICE)
    words = _mask(api, "mask", mask)
    ops.select(dst.data, src0.data, src1.data, words)
    if MARKING:
        lane_shadow.select(dst, src0, src1, words, mask)


def Prelu(dst, src0, src1, mask, mode=MaskMergeMode.ZEROING):
    """Prelu(dst, src0, src1, mask): src0 where its sign bit is clear, else RN(src0 * src1) (D42's rule with a
    per-lane slope; RegBV-T10); half and float, ZEROING only (DK R/基础算术/Prelu.md)."""
    _engine("Prelu", dst, (src0, src1), mask, mode)


def ReduceMax(dst, src, mask, mode=MaskMergeMode.ZEROING):
    """`Reg::ReduceMax(dst, src, mask)` = Reduce(dst, src, mask, MAX) (SPEC-2 11.4): the value in lane 0, its
    first index in lane 1."""
    Reduce(dst, src, mask, ReduceType.MAX, mode)


def ReduceMin(dst, src, mask, mode=MaskMergeMode.ZEROING):
    """`Reg::ReduceMin(dst, src, mask)` = Reduce(dst, src, mask, MIN) (SPEC-2 11.4): the value in lane 0, its
    first index in lane 1."""
    Reduce(dst, src, mask, ReduceType.MIN, mode)


def ReduceSum(dst, src, mask, mode=MaskMergeMode.ZEROING):
    """`Reg::ReduceSum(dst, src, mask)` = Reduce(dst, src, mask, SUM) (SPEC-2 11.4)."""
    Reduce(dst, src, mask, ReduceType.SUM, mode)


class MemType(enum.IntEnum):
    """`Reg::MemType` of LocalMemBar, with the devkit's values (include/basic_api/reg_compute/
    kernel_reg_compute_utils.h; the SCALAR_* kinds are a VF's scalar reads and writes of the UB, GetValue / SetValue
    inside it: port60e)."""
    VEC_STORE = 0
    VEC_LOAD = 1
    SCALAR_STORE = 2
    SCALAR_LOAD = 3
    VEC_ALL = 4
    SCALAR_ALL = 5


# in Python: nothing to compile for a plain call (NUMBA_DISABLE_JIT leaves the function itself)
_CHECK_BARRIER_PAIR = getattr(impl.check_barrier_pair, "py_func", impl.check_barrier_pair)
# "strict" checks a VF's vector reads after its writes (sanitizer.py: a VF's GetValue is left unchecked): a barrier
# from a kind that writes the UB to the vector loads orders them, the sanitizer's PipeBarrier<PIPE_V>. The shadow
# keeps no kind per byte, so (SCALAR_STORE, VEC_LOAD) also orders an earlier vector store there (decisions.md)
_MEM_WRITES = frozenset((MemType.VEC_STORE, MemType.SCALAR_STORE, MemType.VEC_ALL, MemType.SCALAR_ALL))
_MEM_READS = frozenset((MemType.VEC_LOAD, MemType.VEC_ALL))
_LEGAL_BARRIER_PAIRS = frozenset(impl.BARRIER_PAIRS)   # checked in Python first: the refusal is the kernel's


def LocalMemBar(before=MemType.VEC_ALL, after=MemType.VEC_ALL):
    """`LocalMemBar<before, after>()`: orders a VF's UB accesses. The emulator runs a VF's instructions one after
    another, each finished before the next starts, so every barrier already holds (docs/decisions.md "Reg API");
    the call checks its arguments, their pair (the devkit's static_assert) and the device. On a sanitizing current
    core a barrier from writes (vector or scalar) to vector loads orders the VF's earlier writes before its later
    vector reads, as PipeBarrier<PIPE_V> does for the "strict" check (SPEC-2 10.4): it is the VF's own form of that
    barrier, PipeBarrier having no place inside a VF (a VF's GetValue / SetValue are its accesses, section
    "Sanitizer")."""
    _core_check("LocalMemBar")
    before = as_enum("LocalMemBar", DEVICE, "before", before, MemType)
    after = as_enum("LocalMemBar", DEVICE, "after", after, MemType)
    if (int(before), int(after)) not in _LEGAL_BARRIER_PAIRS:
        _CHECK_BARRIER_PAIR(int(before), int(after))
    if SANITIZING and before in _MEM_WRITES and after in _MEM_READS:
        try:
            core = current_core("LocalMemBar")
        except StateError:   # no current core: no sanitizer to tell
            return
        if core.sanitizer is not None:
            core.sanitizer.pipe_barrier("PIPE_V")


def Duplicate(dst, scalar=_NOT_GIVEN, mask=None, mode=MaskMergeMode.ZEROING, src_reg=_NOT_GIVEN):
    """Duplicate(dst, scalar[, mask, mode]) or Duplicate(dst, src_reg, mask, mode): lane 0 of src_reg (SPEC-2 11.3).
    The scalar is converted by SPEC-2 D29. The second argument is positional (a register or a scalar, told apart by
    its type) or by name, `scalar=` or `src_reg=` (SPEC-2 1.1)."""
    api = "Duplicate"
    _core_check(api)
    if isinstance(mode, HighLowPart) or isinstance(src_reg, (HighLowPart, MaskMergeMode)):
        # port64g: the devkit's Duplicate<T, HighLowPart::LOWEST, MaskMergeMode::ZEROING>(dst, src, mask) ported
        # with its template arguments in order: LOWEST landed in `mode`, or the mode in `src_reg`
        part = mode if isinstance(mode, HighLowPart) else src_reg
        raise ParameterError(api, "HighLowPart", part, device=DEVICE,
                             legal="left out: Duplicate copies lane 0, the devkit's default HighLowPart::LOWEST "
                                   "(SPEC-2 11.3; HIGHEST is not offered); the mode comes fourth: "
                                   "Duplicate(dst, src_reg, mask, MaskMergeMode.ZEROING)")
    if (scalar is _NOT_GIVEN) == (src_reg is _NOT_GIVEN):
        raise ParameterError(api, "scalar", "given twice" if scalar is not _NOT_GIVEN else "missing",
                             legal="a scalar or a source register, once (positionally, scalar= or src_reg=)",
                             device=DEVICE)
    value = scalar
    if src_reg is not _NOT_GIVEN:
        _reg(api, "src_reg", src_reg)
        value = src_reg
    words = impl.ALL_LANES if mask is None else _mask(api, "mask", mask)
    data = _reg(api, "dst", dst)
    if isinstance(value, RegTensor):
        ops.duplicate_lane0(data, value.data, words, _merging(api, mode))
        if MARKING:
            lane_shadow.duplicate_lane0(dst, value, words, _merging(api, mode), mask)
    else:
        bits = scalar_bits(api, DEVICES[DEVICE], dst.dtype, value, "scalar")
        ops.duplicate_bits(data, np.uint64(bits), words, _merging(api, mode))
        if MARKING:
            lane_shadow.elementwise(dst, (), words, _merging(api, mode), mask)


class IndexOrder(enum.IntEnum):
    """Arange's index order (the devkit's IndexOrder; INCREASE_ORDER its default)."""
    INCREASE_ORDER = 0
    DECREASE_ORDER = 1


ARANGE_DTYPES = ("int8", "int16", "int32", "half", "float", "int64")   # DK R/索引操作/Arange.md 数据类型
_ARANGE_KINDS = sum(1 << resolve(d).kind for d in ARANGE_DTYPES)


def Arange(dst, scalar, order=IndexOrder.INCREASE_ORDER):
    """`Arange<T, order>(dstReg, scalarValue)` (DK R/索引操作/Arange.md; 950): lane j of dst = scalarValue + j, for
    every lane (no mask), as the engine's Add of the lane index j and the scalar (converted by SPEC-2 D29): integer
    lanes wrap past the type's range as the page says (int16/int32 clamp only under CTRL[53] saturation, as Add's,
    D35); half and float round once (MODELLED: the page documents no rounding, as CreateVecIndex on the 950,
    docs/decisions.md "CreateVecIndex"). DECREASE_ORDER: lane j = scalarValue + (lanes - 1 - j), the scalar in the
    last lane; int64 counts up in either order, as the devkit's code does (docs/decisions.md "Reg Arange")."""
    api = "Arange"
    _core_check(api)
    data = _reg(api, "dst", dst)
    # the order before dst's dtype, as a compiled VF refuses (its order is read before the kernel checks the dtype)
    decrease = _code(api, "order", order, IndexOrder) == IndexOrder.DECREASE_ORDER
    if dst.dtype.name not in ARANGE_DTYPES:
        raise UnsupportedDTypeError(api, "dst dtype", dst.dtype.name, legal=", ".join(ARANGE_DTYPES) +
                                    " (DK R/索引操作/Arange.md)", device=DEVICE)
    bits = scalar_bits(api, DEVICES[DEVICE], dst.dtype, scalar, "scalar")
    index = ops.arange_register(data, _ARANGE_KINDS, decrease)
    ops.binary(data, index, ops.broadcast_register(index, np.uint64(bits)), impl.ALL_LANES, ops.ADD, False,
               *_binary_markers(dst.dtype.kind))
    if MARKING:
        lane_shadow.clear(dst)


def Reduce(dst, src, mask, reduce_type=ReduceType.SUM, mode=MaskMergeMode.ZEROING):
    """Reduce (SPEC-2 11.4, D66): SUM into lane 0; MAX/MIN value in lane 0, first index in lane 1. ZEROING only."""
    api = "Reduce"
    _core_check(api)
    if _is_template_argument(dst):   # Reduce<ReduceType::SUM>(d, s, m) as Reduce(ReduceType.SUM, d, s, m): port60a
        _refuse_template_first(api, "dst", dst)
    # a compiled VF's order: the reduce type, the mode (both checked before the kernel call), MERGING (the kernel)
    reduce_type = _code(api, "reduce_type", reduce_type, ReduceType)
    if _merging(api, mode):
        raise ParameterError(api, "mode", "MERGING", legal="MaskMergeMode.ZEROING (SPEC-2 11.4)", device=DEVICE)
    _reg(api, "src", src), _reg(api, "dst", dst)
    if reduce_type == ReduceType.SUM:
        _check_dtype(api, src.dtype.name, tuple(REDUCE_SUM_DST), "SPEC-2 11.4")
        if dst.dtype.name != REDUCE_SUM_DST[src.dtype.name]:
            raise UnsupportedDTypeError(api, "dst dtype", dst.dtype.name, legal=f"{REDUCE_SUM_DST[src.dtype.name]} "
                                        f"for a {src.dtype.name} source (SPEC-2 11.4)", device=DEVICE)
    else:
        _check_dtype(api, src.dtype.name, REDUCE_EXTREME_DTYPES, "SPEC-2 11.4")
    words = _mask(api, "mask", mask)
    # the source's class alone (issue 20)
    ops.reduce(dst.data, src.data, words, reduce_type, False, *_class_markers(src.dtype.kind))
    if MARKING:
        lane_shadow.reduced(dst, src, words, 1, 1 if reduce_type == ReduceType.SUM else 2, mask)


def ReduceDataBlock(dst_reg, src_reg, mask, reduce_type=ReduceType.SUM, mode=MaskMergeMode.ZEROING):
    """Per 32-byte block of src_reg, the SUM/MAX/MIN of the active lanes into dst_reg lane b (SPEC 7.5)."""
    _core_check("ReduceDataBlock")
    dst, src = _reg("ReduceDataBlock", "dst_reg", dst_reg), _reg("ReduceDataBlock", "src_reg", src_reg)
    words = _mask("ReduceDataBlock", "mask", mask)
    impl.reduce_data_block(dst, src, words,
                           int(as_enum("ReduceDataBlock", DEVICE, "reduce_type", reduce_type, ReduceType)),
                           int(as_enum("ReduceDataBlock", DEVICE, "mode", mode, MaskMergeMode)),
                           *_class_markers(src_reg.dtype.kind))
    if MARKING:
        lane_shadow.reduced(dst_reg, src_reg, words, 8, mask=mask)


def PairReduceElem(dst, src, mask, mode=MaskMergeMode.ZEROING):
    """Reg PairReduceElem (SPEC 7.6): dst lane i = src lane 2i + src lane 2i+1 for i < L/2 (an inactive lane counts
    as +0; half adds SAT(RN(.)), float adds RN), lanes L/2.. are 0. half and float; ZEROING only."""
    api = "PairReduceElem"
    _core_check(api)
    _reg(api, "dst", dst), _reg(api, "src", src)
    if _merging(api, mode):  # before the dtypes, as a compiled VF checks the mode before the kernel's dtype check
        raise ParameterError(api, "mode", "MERGING", legal="MaskMergeMode.ZEROING (SPEC 7.4)", device=DEVICE)
    _check_dtype(api, src.dtype.name, ("half", "float"), "SPEC 7.6")
    if dst.dtype.name != src.dtype.name:
        raise UnsupportedDTypeError(api, "dst dtype", dst.dtype.name, legal=f"{src.dtype.name}, the source's "
                                    "(SPEC 7.6)", device=DEVICE)
    words = _mask(api, "mask", mask)
    impl.reduce_data_block(dst.data, src.data, words, impl.PAIR, impl.ZEROING, *_class_markers(src.dtype.kind))
    if MARKING:
        lane_shadow.reduced(dst, src, words, impl.VL // src.dtype.size // 2, mask=mask)


_TRAIT_ALLOWED = getattr(cv.trait_allowed, "py_func", cv.trait_allowed)  # in Python: nothing to compile


def _trait(trait):
    if not isinstance(trait, tuple) or len(trait) != 4:
        raise ParameterError("Cast", "trait", trait, legal="an aj.Reg.CastTrait", device=DEVICE)
    return tuple(_code("Cast", f"trait.{name}", v, cls) for name, v, cls in
                 zip(CastTrait._fields, trait, (RegLayout, SatMode, MaskMergeMode, RoundMode)))


def Cast(dst, src, mask, trait=CastTrait(), *template_first):
    """Reg Cast (SPEC-2 11.5, D45, D46, D65, D71): dst's and src's dtypes name the pair; the mask selects source
    lanes; `trait.layoutMode` picks the sub-lane of each wide slot; saturation from CTRL[60]/[59]/[48] or the trait.
    (`template_first`: the operands of a port that wrote `Cast<T, U, trait>`'s template arguments first, refused.)"""
    api = "Cast"
    _core_check(api)
    if template_first and isinstance(dst, RegTensor):
        if all(isinstance(v, enum.Enum) for v in (trait, *template_first)):   # the trait's fields one by one (port60i)
            raise ParameterError(api, "trait", trait, device=DEVICE,
                                 legal="one aj.Reg.CastTrait(layoutMode, satMode, mrgMode, roundMode) after the mask, "
                                       "not its fields as separate arguments")
        raise ParameterError(api, "arguments", template_first[0], device=DEVICE,
                             legal=f"Cast({', '.join(_shown_parameters(Cast))}): four at most")
    if template_first or _is_template_argument(dst):
        _refuse_template_first(api, "dst", dst)
    _reg(api, "dst", dst), _reg(api, "src", src)
    if (src.dtype.name, dst.dtype.name) not in CAST_PAIRS:
        raise UnsupportedDTypeError(api, "src/dst dtypes", f"{src.dtype.name} -> {dst.dtype.name}",
                                    legal=cv.PAIR_LEGAL, device=DEVICE)  # a compiled VF's words too (_check_trait)
    # the exact widenings to float alone compile only their loop (issue 20); every other pair the general conversion
    fields = _trait(trait)
    widening = src.dtype.name in ("half", "bfloat16") and dst.dtype.name == "float" and \
        _TRAIT_ALLOWED(src.dtype.kind, dst.dtype.kind, *fields)
    words = _mask(api, "mask", mask)

    def convert(dst_array, src_array, selected=words):
        if widening:
            cv.cast_widening(dst_array, src_array, selected, *fields)
        else:
            cv.cast(dst_array, src_array, selected, *fields, None)
    convert(dst.data, src.data)
    if MARKING:
        lane_shadow.cast(dst, src, convert, mask)


def MoveMask(dtype):
    """A MaskReg from the core's vector mask register (SPEC-2 11.7): b16 lane i <- bit i, b32 lane i <- MASK0 bit
    i. The register must be defined and the core in Normal mode (StateError)."""
    core = current_core("MoveMask")
    _device_check("MoveMask", core)
    if not core.mask_defined:
        raise StateError("MoveMask", "mask register", "undefined", legal="set by SetVectorMask (SPEC-2 D31)",
                         device=DEVICE)
    if core.counter_mode:
        raise StateError("MoveMask", "mask mode", "counter", legal="Normal mode (SetMaskNorm; SPEC-2 11.7)",
                         device=DEVICE)
    return MaskReg(mv.move_mask(_kind(dtype, "MoveMask"), np.uint64(core.mask_low), np.uint64(core.mask_high)))


def _logic(api, op, dst, a, b, m, operands):
    """`operands`: the MaskRegs (or words) a, b and m are the words of, whose marks the bits follow
    (lane_shadow.mask_logic)."""
    _core_check(api)
    _write_mask(api, "dst", dst, lambda out: mv.mask_logic(out, a, b, m, op))
    if MARKING:
        lane_shadow.mask_logic(dst, op, operands, (a, b, m))


# port60e met Or of two packed uint16 index registers (ops-cv's resize gather): the recipe outside the VF
_NOT_OFFERED = ("an aj.Reg.MaskReg: data-register And/Or/Xor/Not are not offered (SPEC-2 14); store the registers "
                "and combine the tensors with the Memory API's aj.And / aj.Or / aj.Not between VFs (or Add two "
                "integer registers whose set bits are disjoint)")


def _not_offered(api, operands):
    """SPEC-2 14: And/Or/Xor/Not on data registers are not offered (only the MaskReg forms of SPEC-2 11.7)."""
    for name, value in operands:
        if isinstance(value, RegTensor):
            raise ParameterError(api, name, "an aj.Reg.RegTensor", legal=_NOT_OFFERED, device=DEVICE)


def And(dst, src0, src1, mask):
    """MaskReg And (SPEC-2 11.7, D64): dst = src0 & src1 & mask on all 256 bits."""
    _not_offered("And", (("dst", dst), ("src0", src0), ("src1", src1)))
    _logic("And", mv.LOGIC_AND, dst, *_masks("And", ("src0", src0), ("src1", src1), ("mask", mask)),
           (src0, src1, mask))


def Or(dst, src0, src1, mask):
    _not_offered("Or", (("dst", dst), ("src0", src0), ("src1", src1)))
    _logic("Or", mv.LOGIC_OR, dst, *_masks("Or", ("src0", src0), ("src1", src1), ("mask", mask)),
           (src0, src1, mask))


def Xor(dst, src0, src1, mask):
    _not_offered("Xor", (("dst", dst), ("src0", src0), ("src1", src1)))
    _logic("Xor", mv.LOGIC_XOR, dst, *_masks("Xor", ("src0", src0), ("src1", src1), ("mask", mask)),
           (src0, src1, mask))


def Not(dst, src, mask):
    _not_offered("Not", (("dst", dst), ("src", src)))
    words, selected = _masks("Not", ("src", src), ("mask", mask))
    _logic("Not", mv.LOGIC_NOT, dst, words, words, selected, (src, src, mask))


def _shift(api, dst, src, scalar, mask, mode):
    if isinstance(scalar, (bool, np.bool_)) or not isinstance(scalar, (int, np.integer)) or not 0 <= scalar <= 32767:
        _core_check(api)
        raise ParameterError(api, "scalar", scalar, legal="an int16 shift amount >= 0 (a negative one is undefined, "
                             "DK R/逻辑计算)", device=DEVICE)
    _core_check(api)
    _reg(api, "dst", dst), _reg(api, "src", src)
    words = _mask(api, "mask", mask)
    # the mode before the dtypes, as a compiled VF refuses: its mode is checked before the kernel checks the dtypes
    _zeroing_only(api, mode)
    _same_dtype(api, dst, src, SHIFT_DTYPES[api], "逻辑计算")
    ops.shift(dst.data, src.data, words, SHIFT_OPS[api], _SHIFT_KINDS[api], int(scalar), False)
    if MARKING:
        lane_shadow.elementwise(dst, (src,), words, False, mask)


def ShiftLefts(dst, src, scalar, mask, mode=MaskMergeMode.ZEROING):
    """ShiftLefts: each lane << scalar (unsigned: logical; signed: the sign bit kept); >= the width: 0."""
    _shift("ShiftLefts", dst, src, scalar, mask, mode)


def ShiftRights(dst, src, scalar, mask, mode=MaskMergeMode.ZEROING):
    """ShiftRights: each lane >> scalar (unsigned: logical; signed: arithmetic); >= the width: 0 (or -1 for a
    negative signed lane)."""
    _shift("ShiftRights", dst, src, scalar, mask, mode)


_COPY_MODE = "MaskMergeMode.MERGING (CopyImpl's only mode: inactive lanes keep dst)"
# Copy's and a data-register Move's one register type, and what a port's reinterpreting Move writes instead
# (port64c: ops-math Roll's Move(uint32 register, (RegTensor<uint32_t>&)int32 register))
_COPY_ONE_TYPE = ("(CopyImpl, which Move on data registers is too, takes one register type U; to reinterpret a "
                  "register's bits as another type of the same width, store it into the tensor of that type "
                  "directly: a store between a register and a tensor of different dtypes moves bytes)")
_COPY_KIND_LEGAL = ", the source's " + _COPY_ONE_TYPE   # a constant the compiled check raises with


def Copy(dst, src, mask=None, mode=MaskMergeMode.MERGING):
    """Reg Copy on data registers (CopyImpl, vmov; docs/decisions.md "Reg Copy"): dst = src, or with a mask src's
    lanes where it selects them, dst's elsewhere (MERGING only). One element type; any register type."""
    api = "Copy"
    _core_check(api)
    _reg(api, "dst", dst), _reg(api, "src", src)
    if dst.dtype.name != src.dtype.name:
        raise UnsupportedDTypeError(api, "dst dtype", dst.dtype.name, legal=f"{src.dtype.name}, the source's "
                                    f"{_COPY_ONE_TYPE}", device=DEVICE)
    _COPY_MODE_READ(mode)
    words = impl.ALL_LANES if mask is None else _mask(api, "mask", mask)
    ops.select(dst.data, src.data, dst.data, words)
    if MARKING:
        lane_shadow.select(dst, src, dst, words, mask)


_MASK_MOVE_MODE = ("not given: the MaskReg Move has no mode (asc-devkit kernel_reg_compute_maskreg_intf.h declares "
                   "Move(dst, src[, mask]) without one); the mode is Copy's, for data registers")


def Move(dst, src, mask=None, mode=None):
    """Move(dst, src): copy; Move(dst, src, mask): dst = src & mask (SPEC-2 11.7). On data registers, Copy (the
    devkit names CopyImpl both ways; `mode` MERGING when not given)."""
    if isinstance(dst, RegTensor):
        Copy(dst, src, mask, MaskMergeMode.MERGING if mode is None else mode)
        return
    if mode is not None:  # not ignored: a MaskReg Move given a mode is a port of something else
        raise ParameterError("Move", "mode", mode, legal=_MASK_MOVE_MODE, device=DEVICE)
    if mask is None:
        words, selected = _mask("Move", "src", src), impl.ALL_LANES
    else:
        words, selected = _masks("Move", ("src", src), ("mask", mask))
    _logic("Move", mv.LOGIC_MOVE, dst, words, words, selected, (src, src, mask))


def Select(dst, src0, src1, mask):
    """MaskReg Select: per bit, mask ? src0 : src1 (SPEC-2 11.7); on RegTensors, per lane (DK R/比较与选择/Select.md:
    src0's lane where the mask selects it, else src1's)."""
    if isinstance(dst, RegTensor):
        _select_registers(dst, src0, src1, mask)
        return
    _logic("Select", mv.LOGIC_SELECT, dst, *_masks("Select", ("src0", src0), ("src1", src1), ("mask", mask)),
           (src0, src1, mask))


def Pack(dst, src, part=HighLowPart.LOWEST):
    """Pack (D64): dst bit k = src bit 2k, in the LOWEST or HIGHEST half."""
    _core_check("Pack")
    words = _mask("Pack", "src", src)
    highest = _code("Pack", "part", part, HighLowPart) == HighLowPart.HIGHEST
    _write_mask("Pack", "dst", dst, lambda out: mv.pack(out, words, highest))
    if MARKING:
        lane_shadow.mask_moved((dst,), (src,), lambda out, w: mv.pack(out, w, highest))


def UnPack(dst, src, part=HighLowPart.LOWEST):
    """UnPack (D64): bit k of src's LOWEST/HIGHEST half to dst bit 2k, odd bits 0."""
    _core_check("UnPack")
    words = _mask("UnPack", "src", src)
    highest = _code("UnPack", "part", part, HighLowPart) == HighLowPart.HIGHEST
    _write_mask("UnPack", "dst", dst, lambda out: mv.unpack(out, words, highest))
    if MARKING:
        lane_shadow.mask_moved((dst,), (src,), lambda out, w: mv.unpack(out, w, highest))


def _interleave(api, dst0, dst1, src0, src1, dtype, inverse):
    _core_check(api)
    operands = (("src0", src0), ("src1", src1), ("dst0", dst0), ("dst1", dst1))
    if dtype is None:   # the devkit's data-register Interleave(dst0, dst1, src0, src1) has no T: its operands' refusal
        for name, m in operands:
            _mask(api, name, m, read=False)
        raise ParameterError(api, "dtype", None, device=DEVICE,
                             legal="the element type T of MaskInterleave<T> / MaskDeInterleave<T>, e.g. \"half\"")
    size = resolve(dtype, api).size
    if size not in (1, 2, 4):
        # a dtype outside the instruction's table (SPEC-2 1.8 row 2), as MoveMask's b64 refusal (audit 45a)
        raise UnsupportedDTypeError(api, "dtype", dtype, legal="a b8, b16 or b32 type (SPEC-2 11.7)", device=DEVICE)
    for name, m in operands:   # the refusals first
        _mask(api, name, m, read=False)
    a, b = _masks(api, ("src0", src0), ("src1", src1))   # then the reads (a fresh MaskReg's report)
    out0, out1 = np.zeros(4, np.uint64), np.zeros(4, np.uint64)
    mv.interleave(out0, out1, a, b, size, inverse)
    dst0.words, dst1.words = tuple(out0), tuple(out1)
    dst0._fresh = dst1._fresh = None
    if MARKING:
        lane_shadow.mask_moved((dst0, dst1), (src0, src1), lambda o0, o1, w0, w1: mv.interleave(o0, o1, w0, w1, size,
                                                                                                   inverse))


def Interleave(dst0, dst1, src0, src1, dtype=None):
    """Interleave<T> (D64): g-bit groups of src0 and src1 alternate through dst0 then dst1."""
    _interleave("Interleave", dst0, dst1, src0, src1, dtype, False)


def DeInterleave(dst0, dst1, src0, src1, dtype=None):
    """DeInterleave<T> (D64): the inverse of Interleave."""
    _interleave("DeInterleave", dst0, dst1, src0, src1, dtype, True)


def _ureg(api, name, u, cls):
    if not isinstance(u, cls):
        raise ParameterError(api, name, type(u).__name__, legal=f"an aj.Reg.{cls.__name__}{mv.UREG_TWO_TYPES}",
                             device=DEVICE)
    return u.state


def LoadUnAlignPre(ureg, tensor, offset=0):
    """Sets the UnalignRegForLoad's expected address to (tensor, offset) (SPEC-2 11.6, D68)."""
    mv.load_unalign_pre(_ureg("LoadUnAlignPre", "ureg", ureg, UnalignRegForLoad),
                        tensor_handle("LoadUnAlignPre", tensor), _offset('LoadUnAlignPre', offset))


def LoadUnAlign(reg, ureg, tensor, offset=0, post_update_stride=None):
    """VL bytes from (tensor, offset), which must be the expected address; returns the offset after the load
    (offset + post_update_stride, or + VL bytes)."""
    api = "LoadUnAlign"
    undo = reg_undo(tensor, _reg(api, "reg", reg), _ureg(api, "ureg", ureg, UnalignRegForLoad)) if SANITIZING and \
        isinstance(tensor, LocalTensor) else None
    result = mv.load_unalign(_reg(api, "reg", reg), _ureg(api, "ureg", ureg, UnalignRegForLoad),
                             tensor_handle(api, tensor), _offset(api, offset), _step(api, post_update_stride),
                             post_update_stride is not None)
    if SANITIZING and (tensor.core.sanitizer is not None or MARKING):  # issue 17: after the operation's refusals
        _loaded(api, tensor, "load_unalign", _offset(api, offset), undo=undo, registers=(reg,), run=None)
    return result


def Load(reg, tensor, offset=0):
    """LoadUnAlignPre + LoadUnAlign: VL bytes from any byte address."""
    ureg = UnalignRegForLoad()
    LoadUnAlignPre(ureg, tensor, offset)
    LoadUnAlign(reg, ureg, tensor, offset)


_STORE_COUNT = ("the lanes to store, after the offset: the devkit's StoreUnAlign(dstAddr, srcReg, ureg, "
                "postUpdateStride) ports as StoreUnAlign(tensor, reg, ureg, offset, post_update_stride) (SPEC-2 11.6)")


def StoreUnAlign(tensor, reg, ureg, offset, post_update_stride=None):
    """Lanes 0..n-1 of reg (n = post_update_stride, SPEC-2 11.6's name) to (tensor, offset) through the pending run
    of ureg; returns offset + n."""
    api = "StoreUnAlign"
    count = post_update_stride
    if count is None:  # a call written as the devkit's 4-argument form: its count is the offset here
        raise ParameterError(api, "post_update_stride", "missing", legal=_STORE_COUNT, device=DEVICE)
    # an integer the kernel's int64 parameter holds (its range check names the lanes): 2**70 was numba's OverflowError
    count = as_int(api, DEVICE, "post_update_stride", count, -INT32_MAX - 1, INT32_MAX)
    undo = reg_undo(tensor, _ureg(api, "ureg", ureg, UnalignRegForStore), ub=True) if SANITIZING and \
        isinstance(tensor, LocalTensor) else None
    result = mv.store_unalign(tensor_handle(api, tensor), _reg(api, "reg", reg),
                              _ureg(api, "ureg", ureg, UnalignRegForStore), _offset(api, offset), count)
    if SANITIZING and tensor.core.sanitizer is not None:  # issue 17: the lanes stored (Post only flushes)
        reg_access(api, tensor, "store_unalign", _offset(api, offset), count * reg.dtype.size, undo=undo,
                   registers=(reg,))
    return result


def StoreUnAlignPost(tensor, ureg, offset=0, post_update_stride=0):
    """Writes ureg's pending bytes and empties it; returns offset + post_update_stride."""
    api = "StoreUnAlignPost"
    return mv.store_unalign_post(tensor_handle(api, tensor), _ureg(api, "ureg", ureg, UnalignRegForStore),
                                 _offset(api, offset), _step(api, post_update_stride))


def Store(tensor, reg, offset=0, count=None):
    """StoreUnAlign + StoreUnAlignPost: `count` lanes (None: the whole register) to any byte address. The register
    and the count are Store's own arguments, so their refusals name Store and `count` (they had named StoreUnAlign's
    post_update_stride, or been an AttributeError for a MaskReg)."""
    ureg = UnalignRegForStore()
    _reg("Store", "reg", reg)
    lanes = impl.VL // reg.dtype.size
    n = lanes if count is None else as_int("Store", DEVICE, "count", count, -INT32_MAX - 1, INT32_MAX)
    if not 0 <= n <= lanes:
        mv.refuse_store_count(np.int64(n))
    StoreUnAlign(tensor, reg, ureg, offset, n)
    StoreUnAlignPost(tensor, ureg, offset)



# The devkit's earlier names of the loads and stores (docs/decisions.md "Reg DataCopy names"). The 950's MicroAPI
# (asc-devkit 7e76732e7, impl/micro_api/kernel_micro_datacopy_intf_impl.h, the build of every arch but 3003, 3113 and
# 5102) defines DataCopy beside LoadAlign and StoreAlign, DataCopyUnAlign beside LoadUnAlign and StoreUnAlign, and
# DataCopyUnAlignPre / Post beside LoadUnAlignPre / StoreUnAlignPost, each pair with the same parameters calling the
# same implementation. So an old name is the new one: the first argument (a register: a load; a tensor: a store)
# picks it, the arguments given pass on unchanged, and a refusal names the instruction the old name stands for.
_OLD_NAME_KEYWORDS = ("dist", "post_update_stride", "data_block_stride", "mask", "repeat_stride", "post_mode",
                      "offset")


def DataCopy(dst, src, _arg2=None, _arg3=None, _arg4=None, dist=None, post_update_stride=None,
             data_block_stride=None, mask=None, repeat_stride=None, post_mode=None, offset=None):
    """The devkit's earlier name of LoadAlign (a RegTensor or MaskReg first) and of StoreAlign (a tensor first),
    with their arguments."""
    keywords = dict(zip(_OLD_NAME_KEYWORDS, (dist, post_update_stride, data_block_stride, mask, repeat_stride,
                                             post_mode, offset)))
    if isinstance(dst, (RegTensor, MaskReg)):
        if _arg4 is not None:
            _refuse_extra_argument("LoadAlign", _arg4, "(reg, tensor, offset) or (reg0, reg1, tensor, offset)")
        return _forward_old_name(LoadAlign, (dst, src, _arg2, _arg3), keywords, 2)
    return _forward_old_name(StoreAlign, (dst, src, _arg2, _arg3, _arg4), keywords, 2)


def DataCopyUnAlign(dst, _arg1, _arg2, offset=None, post_update_stride=None):
    """The devkit's earlier name of LoadUnAlign(reg, ureg, tensor, ...) (a RegTensor first) and of
    StoreUnAlign(tensor, reg, ureg, ...) (a tensor first): the second and third operands differ by form, so they are
    positional only in effect (_arg1, _arg2)."""
    target, required = (LoadUnAlign, 3) if isinstance(dst, RegTensor) else (StoreUnAlign, 4)
    # the count by name: positionally a left-out offset would pass on as None (LoadUnAlign's offset defaults to 0)
    return _forward_old_name(target, (dst, _arg1, _arg2, offset), {"post_update_stride": post_update_stride},
                             required)


DataCopyUnAlignPre = LoadUnAlignPre    # the same parameters; the old UnalignReg is an UnalignRegForLoad here
DataCopyUnAlignPost = StoreUnAlignPost  # (and an UnalignRegForStore for the stores: D68 keeps their states apart)

# The earlier MaskReg names (docs/decisions.md "Reg MaskReg names"): asc-devkit 7e76732e7,
# impl/micro_api/kernel_micro_maskreg_intf_impl.h, defines each beside its current name with the same parameters and
# the same Mask*Impl. The template argument of MaskPack/MaskUnPack (HighLowPart, LOWEST by default) and of
# MaskInterleave/MaskDeInterleave (the element type) are the current names' `part` and `dtype` arguments.
MaskNot, MaskAnd, MaskOr, MaskXor, MaskMov = Not, And, Or, Xor, Move
MaskPack, MaskUnPack, MaskInterleave, MaskDeInterleave = Pack, UnPack, Interleave, DeInterleave


def MaskSel(dst, src0, src1, mask):
    """The earlier name of the MaskReg Select (MaskSelImpl): MaskRegs only, as its devkit signature; the current
    Select also takes data registers."""
    for name, value in (("dst", dst), ("src0", src0), ("src1", src1)):
        if isinstance(value, RegTensor):
            raise ParameterError("MaskSel", name, "an aj.Reg.RegTensor", legal=_MASK_SEL_OPERANDS, device=DEVICE)
    Select(dst, src0, src1, mask)


_MASK_SEL_OPERANDS = "an aj.Reg.MaskReg (MaskSel is the MaskReg Select; Select selects data-register lanes)"


def _forward_old_name(target, positional, keywords, required):
    """target(the positional arguments up to the last one given, at least its `required` ones, the keywords given):
    the target's own defaults apply to the rest, as in a call of the new name. A required argument passed as None
    (or, for StoreUnAlign, the offset and count left out: the devkit's count-less form) reaches the target, whose
    refusal names it: leaving it out made the target's call a Python TypeError the old name's caller never wrote."""
    n = max((i + 1 for i, v in enumerate(positional) if v is not None), default=0)
    n = max(n, required)
    return target(*positional[:n], **{k: v for k, v in keywords.items() if v is not None})


# --- the same names inside @simd_vf functions ------------------------------------------------------------------
# How a Reg call compiles (issue 16 speed against issue 20 compile time): a call whose operands go to one kernel
# unchanged (Max/Min/Div/Exp, Reduce, ReduceDataBlock, Cast, LoadAlign/StoreAlign DIST_NORM) is registered with
# jit/reg.py `direct_call`: typed by a plan and lowered straight to a call of the cached kernel with its register and
# tensor operands borrowed (`borrow`: the same arrays without their reference-count owner), so the VF's module links
# the kernel's once. The other calls are @overload functions that borrow and call their kernels: an overload's
# implementation is a compiled function of its own, whose module links the kernel's and is optimised again (0.3-0.6 s
# per op for the big kernels, then once more inside the VF), and is compiled in every process (not disk-cached).
# Borrowing is what makes a VF fast: numba's reference counts are atomic adds through a call, two per array per Reg
# call, and they were over half of a load/add/mul/store VF's time (17.6 -> 5.5 us). Overloads are not inlined into the
# VF (inline="always" compiles the implementation anyway, then again inside every VF). The kernels take the op code
# and dtype kind as int64 values, not literals, so Add, Sub and Mul (every dtype) share one compiled kernel, and they
# read lanes through the register's bytes instead of typed views (a view per dtype is a compiled specialisation each).
# A register made from a literal dtype (`RegTensor("half")`) or from a VF's dtype argument (whose type carries its
# dtype class: jit/reg.py DTypeNameType) is typed with its kinds (jit/reg.py KindRegister): the plans and overloads
# then pass its kernel that dtype class's markers alone, as a plain call does (issue 20; _vf_markers), and hand the
# kernel the plain array type; a register from a name of no known class compiles every class, the kind picked at run
# time.
_KIND_NAMES = {"half": 0, "float16": 0, "float": 1, "float32": 1, "bfloat16": 2, "int8": 3, "uint8": 4, "int16": 5,
               "uint16": 6, "int32": 7, "uint32": 8, "int64": 9, "uint64": 10}


# A dtype name argument reaches a compiled VF as the index of its spelling here (jit/reg.py DTypeName), so that the VF
# compares it by spelling as its plain run compares the str; the kernels get the kind (_SPELLING_KINDS).
_SPELLINGS = tuple(_KIND_NAMES)
_SPELLING_KINDS = tuple(_KIND_NAMES.values())
_DTYPE_NAME_ARGS = {name: impl.dtype_name(i, _SPELLING_KINDS[i]) for i, name in enumerate(_SPELLINGS)}


@njit(cache=True, no_cfunc_wrapper=True)
def _spelling_of_name(name):
    """The index of a dtype name in _SPELLINGS, -1 for a string that is none."""
    if name == "half":
        return 0
    if name == "float16":
        return 1
    if name == "float":
        return 2
    if name == "float32":
        return 3
    if name == "bfloat16":
        return 4
    if name == "int8":
        return 5
    if name == "uint8":
        return 6
    if name == "int16":
        return 7
    if name == "uint16":
        return 8
    if name == "int32":
        return 9
    if name == "uint32":
        return 10
    if name == "int64":
        return 11
    if name == "uint64":
        return 12
    return -1


_DTYPE_LEGAL = ", ".join(d.name for d in ALL)  # dtypes.resolve's legal list


@njit(cache=True, no_cfunc_wrapper=True)
def _kind_of_name(name, api):
    """The kind of a dtype-name string; a string that names none is plain Python's refusal (dtypes.resolve's
    UnsupportedDTypeError naming the API; simd_vf runs a VF plain for the other spellings plain Python reads)."""
    spelling = _spelling_of_name(name)
    if spelling < 0:
        raise UnsupportedDTypeError(api, "dtype", name, _DTYPE_LEGAL, DEVICE)
    return _SPELLING_KINDS[spelling]


def _vf_kind(dtype, api="RegTensor"):
    return _KIND_NAMES[dtype] if isinstance(dtype, str) else int(dtype)


@overload(_vf_kind, prefer_literal=True)
def _ol_vf_kind(dtype, api="RegTensor"):
    """Compiled code names a dtype by a VF's dtype-name argument (what simd_vf passes), by a string literal in the VF
    (resolved at compile time: no string compare per call), by a string variable or by a kind code. `api`: the Reg
    call a string that names no dtype is refused for, as plain Python names it (a literal)."""
    if isinstance(dtype, types.StringLiteral) and dtype.literal_value in _KIND_NAMES:
        kind = _KIND_NAMES[dtype.literal_value]
        return lambda dtype, api="RegTensor": np.int64(kind)  # np.int64: a literal would compile the kernels once
    if isinstance(dtype, impl.DTypeNameType):                 # per dtype
        if dtype.kinds is not None and len(dtype.kinds) == 1:  # the kind its type names (a value: see the literal's
            kind = dtype.kinds[0]                                  # case); a class of several: read at run time
            return lambda dtype, api="RegTensor": np.int64(kind)
        return lambda dtype, api="RegTensor": _SPELLING_KINDS[impl.spelling_index(dtype)]
    if isinstance(dtype, (types.NumberClass, types.DType)):  # np.float16 in the VF's code, resolved at compile time
        kind = _numpy_type_kind(dtype)
        return None if kind is None else (lambda dtype, api="RegTensor": np.int64(kind))
    if isinstance(dtype, types.Integer):
        # no such call: an int is no dtype name (plain Python refuses it with UnsupportedDTypeError), and compiled
        # it had run as a kind code (RegTensor(3) a uint8 register); the VF runs plain and refuses it (audit19r)
        return None
    name = api.literal_value if isinstance(api, types.StringLiteral) else "RegTensor"
    if isinstance(dtype, types.StringLiteral):  # another spelling in the VF's code: read as plain Python reads it
        kind = _literal_kind(dtype.literal_value, name)
        if isinstance(kind, AscendJitError):
            return _raiser(kind)
        return lambda dtype, api="RegTensor": np.int64(kind)
    return lambda dtype, api="RegTensor": _kind_of_name(dtype, name)


def _literal_kind(literal, api):
    """The kind of a dtype spelled by a string literal in a VF's code as plain Python's dtypes.resolve reads it
    ("HALF", "int32_t": compiled code had refused them), or resolve's refusal (naming SPEC-2 D28's types so: compiled
    code had left that out)."""
    try:
        return resolve(literal, api).kind
    except AscendJitError as refusal:
        return refusal


def _raiser(refusal, takes_api=True):
    """An implementation that raises `refusal` (resolve's AscendJitError, made at compile time) as plain Python
    raises it; its parameters _ol_vf_kind's (dtype, api), returning a kind, or (takes_api False) RegTensor's (dtype),
    returning a register: typed as the call it replaces, so the code around it types (a function that only raised
    typed as None, and numba took the call's non-literal form, whose refusal has no D28 detail)."""
    name, value, legal = refusal.api, refusal.value, refusal.legal
    detail = refusal.detail or ""   # resolve's own words (D28's, plain char's signedness, ...)

    def refuse(dtype, api="RegTensor"):
        return _refuse_dtype_literal(np.int64(1), impl.text(name), impl.text(value), impl.text(legal),
                                     impl.text(detail))

    def refuse_register(dtype):
        return impl.new_register(_refuse_dtype_literal(np.int64(1), impl.text(name), impl.text(value),
                                                       impl.text(legal), impl.text(detail)), impl.vf_modes())
    return refuse if takes_api else refuse_register


@njit(cache=True, no_cfunc_wrapper=True)
def _refuse_dtype_literal(refuse, api, value, legal, detail):
    """resolve's refusal of a dtype literal in a VF's code (`refuse`: a run-time 1, so the kind this returns after it
    types the call; compiled only for a VF that spells a dtype resolve refuses)."""
    if refuse != 0:
        raise UnsupportedDTypeError(api, "dtype", value, legal, DEVICE, detail)
    return np.int64(0)


# `==` and `!=` between a VF's dtype-name argument and a string literal, another name or a number compile to one
# comparison emitted in place (numba's low-level API: a typing template and its lowering), as `T == "half"` compares
# the strs in the VF's plain run: spellings equal or not, a number never equal to a str (numba had compared the
# spelling index as an integer: `T == 0` True for "half" compiled, session 20 review). As an overload each literal
# compiled a closure of its own in every VF's process (31 in the test suite; issue 20). A name against a run-time
# str is the overload below (the str's spelling is looked up at run time).
_NEVER_A_STR = (types.Number, types.Boolean, types.NoneType, types.Omitted)


def _name_comparison(a, b):
    """Whether `a == b` (or `!=`) is a compiled comparison of a dtype name: a DTypeNameType against a string
    literal, another name or a number, either way round."""
    if not isinstance(b, impl.DTypeNameType):
        a, b = b, a
    if not isinstance(b, impl.DTypeNameType):
        return False
    return isinstance(a, (impl.DTypeNameType, types.StringLiteral) + _NEVER_A_STR)


def _spelling_operand(context, t, value):
    """The LLVM spelling index of one side of a dtype-name comparison: the name's own, a literal's (-1 for a string
    that spells no dtype), or None for a number, which no str equals."""
    if isinstance(t, impl.DTypeNameType):
        return value
    if isinstance(t, types.StringLiteral):
        spelling = t.literal_value
        return context.get_constant(types.int64, _SPELLINGS.index(spelling) if spelling in _SPELLINGS else -1)
    return None


def _lower_name_comparison(equal):
    def lower(context, builder, sig, args):
        a, b = (_spelling_operand(context, t, v) for t, v in zip(sig.args, args))
        if a is None or b is None:
            return context.get_constant(types.boolean, not equal)
        return builder.icmp_signed("==" if equal else "!=", a, b)
    return lower


for _op in (operator.eq, operator.ne):
    infer_global(_op)(type(f"_DTypeName{_op.__name__.title()}", (AbstractTemplate,), {
        "key": _op, "prefer_literal": True,
        "generic": lambda self, args, kws: (signature(types.boolean, *args) if not kws and len(args) == 2 and
                                            _name_comparison(*args) else None)}))
    for _other in (impl.DTypeNameType, types.StringLiteral) + _NEVER_A_STR:
        lower_builtin(_op, impl.DTypeNameType, _other)(_lower_name_comparison(_op is operator.eq))
        lower_builtin(_op, _other, impl.DTypeNameType)(_lower_name_comparison(_op is operator.eq))


def _dtype_name_eq(a, b):
    """`==` between a VF's dtype-name argument and a run-time str compares spellings (the str's looked up when
    called), as the VF's plain run compares the strs it was given."""
    if isinstance(b, impl.DTypeNameType) and not isinstance(a, impl.DTypeNameType):
        a, b, swap = b, a, True
    else:
        swap = False
    if not (isinstance(a, impl.DTypeNameType) and isinstance(b, types.UnicodeType)):
        return None
    if swap:
        return lambda a, b: impl.spelling_index(b) == _spelling_of_name(a)
    return lambda a, b: impl.spelling_index(a) == _spelling_of_name(b)


overload(operator.eq)(_dtype_name_eq)


@overload(operator.ne)
def _dtype_name_ne(a, b):
    if _dtype_name_eq(a, b) is not None:
        return lambda a, b: not a == b
    return None


def _absent(t):
    return t is None or isinstance(t, (types.NoneType, types.Omitted))


def _absent_all(*tys):
    return all(_absent(t) for t in tys)


def _integers(*tys):
    """Every type an integer (or the argument left out): an overload that passes its offsets on as np.int64 values
    types only these, so a float offset stays a typing error (the VF runs plain, which refuses it) rather than
    being truncated."""
    return all(_absent(t) or type(t) is int or isinstance(t, types.Integer)
               for t in tys)  # (an int: the overload's default, which numba passes as the value itself)


def _is_mask_type(t):
    """A MaskReg in compiled code: four uint64 words (a tuple from UpdateMask/CreateMask/MoveMask or an array from
    MaskReg(), a MaskReg passed in, or those three in a VF compiled with impl.MASK_ARRAYS)."""
    return (isinstance(t, types.UniTuple) and t.dtype == types.uint64 and t.count == 4) or \
        (isinstance(t, types.Array) and t.dtype == types.uint64)


def _is_reg_type(t):
    return isinstance(t, types.Array) and t.dtype == types.uint8


def _is_ureg_type(t):
    """An unaligned register in compiled code: an int64 state array (check_ureg tells the two kinds apart by size);
    a MaskReg or data register there runs the VF plain, whose refusal names its type (compiled code had named the
    other unaligned kind)."""
    return isinstance(t, types.Array) and t.dtype == types.int64


def _is_mask_array(t):
    """A MaskReg a compiled operation writes: its word array (an UnalignReg's int64 state array or a data register
    is none; written as four words, they had been overrun or silently changed where plain Python refuses)."""
    return isinstance(t, types.Array) and t.dtype == types.uint64


# Form kernels with a hot path (jit/reg.py direct_call's `hot`): the hot kernel takes the form's operands with its
# ARG operands as DATA operands (data pointers: no reference counting in a VF's loop), does the common case and says
# so, else the kernel runs. StoreAlign DIST_NORM: 16 -> 5 ns a call in the add-mul VF (BENCHMARKS.md "Session 37").
_HOT_KERNELS = {mv.store_norm: mv.store_norm_hot}


def _direct_forms(fn, form, takes_none):
    """Register fn's forms as one direct call: form(*argument types) -> (kernel, operands[, the call's type when it
    is not the kernel's return type]) or None; a form whose kernel is in _HOT_KERNELS runs its hot kernel first."""
    def kernel(*arg_types):
        return form(*arg_types)[0]

    def hot(*arg_types):
        found = form(*arg_types)
        hot_kernel = _HOT_KERNELS.get(found[0]) if found is not None else None
        return hot_kernel and (hot_kernel, tuple((impl.DATA, op[1]) if op[0] == impl.ARG else op for op in found[1]))

    def plan(*arg_types):
        found = form(*arg_types)
        return None if found is None else found[1]

    def returns(*arg_types):
        found = form(*arg_types)
        return found[2] if found is not None and len(found) == 3 else None
    kernel.__signature__ = plan.__signature__ = returns.__signature__ = hot.__signature__ = inspect.signature(form)
    impl.direct_call(fn, kernel, plan, takes_none=takes_none, returns=returns, hot=hot)


def _known_kinds(dtype):
    """The element kinds a VF's dtype argument may name, known at compile time: one for a literal spelling or a numpy
    type in the VF's code (_numpy_type_kind), its class's for a dtype-name argument (jit/reg.py DTypeNameType); else
    None (a name read at run time)."""
    if isinstance(dtype, types.StringLiteral):
        kind = _KIND_NAMES.get(dtype.literal_value)
        return None if kind is None else (kind,)
    kind = _numpy_type_kind(dtype)
    if kind is not None:
        return (kind,)
    return dtype.kinds if isinstance(dtype, impl.DTypeNameType) else None


def _numpy_type_kind(dtype):
    """The element kind of a numpy scalar type or dtype named in a VF's code (`R.RegTensor(np.float16)`,
    `np.dtype("int32")`), as plain Python's dtypes.resolve reads it (DESIGN.md 2 writes dtypes as numpy types; SPEC-2
    11.1: the same call compiled and plain). None for any other type, and for a numpy type resolve refuses: the call
    then types as no form, so the VF runs plain and refuses it in plain Python's words."""
    if isinstance(dtype, types.NumberClass):
        scalar = dtype.instance_type
    elif isinstance(dtype, types.DType):
        scalar = dtype.dtype
    else:
        return None
    try:
        return resolve(numpy_support.as_dtype(scalar)).kind
    except (AscendJitError, NumbaError):
        return None


_SPELLING_KIND_TABLE = np.array(_SPELLING_KINDS, np.int64)


@njit(cache=True, no_cfunc_wrapper=True)
def _spelling_kind(spelling):
    """The element kind of the dtype name of spelling index `spelling` (a dtype-name argument of a class of
    several kinds names its kind at run time)."""
    return _SPELLING_KIND_TABLE[spelling]


def _kind_operand(dtype, position):
    """The operand handing a kernel the element kind of the dtype name at argument `position`: a constant for a
    kind known at compile time, the name's kind read at run time for a dtype-name argument of a class of several
    (_spelling_kind), None for a name known only at run time (the overload's call)."""
    kinds = _known_kinds(dtype)
    if kinds is None:
        return None
    if len(kinds) == 1:
        return impl.CONST, types.int64, kinds[0]
    return impl.CALL, _spelling_kind, ((impl.INT, position, 0),)


def _update_mask_form(dtype, n):
    """UpdateMask of a kind known at compile time, or of a dtype-name argument's class, as a direct call of
    update_mask (the kind an int64 value, n an int64; the mask's words a tuple, or with impl.MASK_ARRAYS a word
    array as MaskReg()'s, update_mask_register): as an overload closure it compiled once per kind in every
    process (issue 20). None: the overload's call."""
    kind = _kind_operand(dtype, 0)
    if kind is None or not isinstance(n, types.Integer):
        return None
    kernel = impl.update_mask_register if impl.MASK_ARRAYS[0] else impl.update_mask
    return kernel, (kind, (impl.INT, 1, 0, "UpdateMask", "n", "an integer in [0, 4294967295]"))


def _create_mask_form(dtype, pattern=None):
    """CreateMask of a kind known at compile time (or a class) as a direct call: every lane (all_lanes_mask) when the
    pattern is left out, else create_mask with the pattern checked as an enum (with impl.MASK_ARRAYS their
    *_register forms: a word array as MaskReg()'s, which a later LoadAlign, Not, And, ... may write into). None: the
    overload's call."""
    kind = _kind_operand(dtype, 0)
    if kind is None or not impl.enum_like(pattern):
        return None
    arrays = impl.MASK_ARRAYS[0]
    if _absent(pattern):
        return impl.all_lanes_register if arrays else impl.all_lanes_mask, (kind,)
    return impl.create_mask_register if arrays else impl.create_mask, (kind, (impl.ENUM, 1, 0, _PATTERN.rule))


def _register_form(dtype):
    """RegTensor of a kind known at compile time, or of a dtype-name argument's class, as a direct call of
    new_vf_register, typed as a KindRegister of those kinds (its Reg calls compile that dtype class's lanes alone,
    jit/reg.py KindRegister). None: the overload's call (a name read at run time). As an overload closure it
    compiled once per kind in every process (issue 20)."""
    kind = _kind_operand(dtype, 0)
    if kind is None:
        return None
    return impl.new_vf_register, (kind,), impl.KindRegister(_known_kinds(dtype))


# registered before the overloads, so numba tries them first: the overloads would take a literal dtype typed as a
# str (numba tries that before the literal) and read its kind at run time
_direct_forms(UpdateMask, _update_mask_form, ())
_direct_forms(CreateMask, _create_mask_form, ())
_direct_forms(RegTensor, _register_form, ())


@overload(RegTensor, prefer_literal=True)
def _ol_regtensor(dtype):
    # a name read at run time (a dtype-name argument of no known kind, a str variable, a literal naming no dtype:
    # refused when called): a plain register; a kind known at compile time is _register_form's direct call
    if isinstance(dtype, types.StringLiteral):  # another spelling: as plain Python reads it, or its refusal
        kind = _literal_kind(dtype.literal_value, "RegTensor")
        if isinstance(kind, AscendJitError):
            return _raiser(kind, takes_api=False)
        return lambda dtype: impl.new_register(np.int64(kind), impl.vf_modes())
    return lambda dtype: impl.new_register(_vf_kind(dtype), impl.vf_modes())


def _mask_register_form():
    """MaskReg() in a VF: a direct call of new_mask_register (as an overload closure it compiled in every VF's
    process, with numba's array allocator; issue 20). MaskReg(words) has no compiled form: the VF runs plain."""
    return impl.new_mask_register, ()


_direct_forms(MaskReg, _mask_register_form, ())


@overload(UpdateMask, prefer_literal=True)
def _ol_update_mask(dtype, n):
    if not isinstance(n, types.Integer):  # a float count is no such call: the VF runs plain and refuses it, as
        return None                        # plain Python's as_int does (it ran with the float truncated)
    return lambda dtype, n: impl.update_mask(_vf_kind(dtype, "UpdateMask"), n)


@overload(CreateMask, prefer_literal=True)
def _ol_create_mask(dtype, pattern=0):
    if isinstance(pattern, types.NoneType):  # an explicit None is no pattern (plain Python refuses it), not the
        return None                          # omitted default ALL
    if isinstance(pattern, int) or _absent(pattern):  # omitted (the Python default arrives): ALL, the common case,
        # every lane, without compiling create_mask's patterns (issue 20)
        return lambda dtype, pattern=0: impl.all_lanes_mask(_vf_kind(dtype, "CreateMask"))
    # the pattern as an int64 value: a literal default or an enum member would each compile create_mask again
    return lambda dtype, pattern=0: impl.create_mask(_vf_kind(dtype, "CreateMask"), _PATTERN(pattern))


@overload(sizeof, prefer_literal=True)
def _ol_sizeof(dtype):
    """A VF's dtype-name argument or a literal name: the element bytes of its kind (a constant where the type names
    one kind). Anything else types no call, so the VF runs plain and says why, as plain Python does."""
    if isinstance(dtype, (impl.DTypeNameType, types.StringLiteral)) or _numpy_type_kind(dtype) is not None:
        return lambda dtype: impl.kind_size(_vf_kind(dtype, "sizeof"))
    return None


# GetVecLen in a VF: the constant VL emitted in place (an overload closure compiled in every VF's process, issue 20)
lowered(GetVecLen, (), types.int64, lambda context, builder, sig, args: context.get_constant(types.int64, impl.VL))


_CEIL_DIVISION_LEGAL = _int_legal(-2**63, 2**63 - 1)


@njit(cache=True, no_cfunc_wrapper=True)
def _ceil_division_operand(name, value):
    """A CeilDivision operand as int64, a value above 2**63 - 1 refused in plain Python's words (as_int); np.int64
    had wrapped it (CeilDivision(7, np.uint64(2**64 - 1)) gave -5; session-24 hunt)."""
    if value > np.uint64(2**63 - 1):
        raise ParameterError("CeilDivision", name, value, _CEIL_DIVISION_LEGAL, None)
    return np.int64(value)


def _ceil_division_form(num1, num2):
    """CeilDivision of two integers of at most 63 value bits as a direct call of _ceil_division on int64 values (as
    an overload closure it compiled per argument types in every VF's process, issue 20); a uint64 operand is the
    overload's, which refuses a value above 2**63 - 1 in plain Python's words."""
    if not (isinstance(num1, types.Integer) and isinstance(num2, types.Integer)) or \
            impl.is_uint64(num1) or impl.is_uint64(num2):
        return None
    return _ceil_division, ((impl.INT, 0, 0), (impl.INT, 1, 0))


_direct_forms(CeilDivision, _ceil_division_form, ())


# AscendC's DivCeil / ConstCeil / AlignUp (api/utils.py) in a VF, as kernels size their loops with them: plain
# Python's uint32_t arithmetic and refusals, one cached kernel for the three
_U32_A_LEGAL, _U32_B_LEGAL = _int_legal(0, 2**32 - 1), _int_legal(1, 2**32 - 1)


@njit(cache=True, no_cfunc_wrapper=True)
def _uint32_ceil(api, a, b, align):
    if a < 0 or a > 0xFFFFFFFF:
        raise ParameterError(api, "a", a, _U32_A_LEGAL, None)
    if b < 1 or b > 0xFFFFFFFF:
        raise ParameterError(api, "b", b, _U32_B_LEGAL, None)
    quotient = ((a + b - 1) & 0xFFFFFFFF) // b
    return (quotient * b) & 0xFFFFFFFF if align else quotient


def _uint32_ceil_form(api, align):
    def form(a, b):
        if not (isinstance(a, types.Integer) and isinstance(b, types.Integer)):
            return None   # a bool or float runs the VF plain, which refuses it (as_int)
        return _uint32_ceil, ((impl.CONST, types.unicode_type, api), (impl.INT, 0, 0, api, "a", _U32_A_LEGAL),
                              (impl.INT, 1, 0, api, "b", _U32_B_LEGAL), (impl.CONST, types.boolean, align))
    return form


for _fn, _align in ((DivCeil, False), (ConstCeil, False), (AlignUp, True)):
    _direct_forms(_fn, _uint32_ceil_form(_fn.__name__, _align), ())


@overload(CeilDivision)
def _ol_ceil_division(num1, num2):
    """CeilDivision with a uint64 operand: a value above 2**63 - 1 is refused as plain Python refuses it (the other
    integers are _ceil_division_form's direct call)."""
    if not (isinstance(num1, types.Integer) and isinstance(num2, types.Integer)) or \
            _ceil_division_form(num1, num2) is not None:
        return None

    def checked(num1, num2):
        return _ceil_division(_ceil_division_operand("num1", num1), _ceil_division_operand("num2", num2))
    return checked


def _or_default(value, default):
    return default if value is None else int(value)


@overload(_or_default, inline="always")
def _ol_or_default(value, default):
    """An optional int argument resolved at compile time (None/omitted -> default; enum members -> their value), an
    int64 value: a constant or literal typed as a literal compiles the kernel it is passed to once more."""
    if _absent(value):
        return lambda value, default: np.int64(default)
    if isinstance(value, types.IntEnumMember):
        return lambda value, default: np.int64(value.value)
    return (lambda value, default: np.int64(value)) if _signed_int(value) else (lambda value, default: value)


def _enum_reader(api, name, members, legal, flag=False, lo=None, hi=None, default=0, **texts):
    """An inline function of a VF's enum argument: absent -> its default (0, or False for a flag); a member of
    `members` or an int in [lo, hi] (default: the members' values) -> the int64 value (flag: "value == 1"); anything
    else (another enum's member, a bool, an int out of range) a ParameterError naming api and name when called, as
    plain Python's as_enum raises (SPEC-2 1.8; a member of another enum was read as its value): not a member with
    as_enum's list of members, a member outside [lo, hi] with `legal` (impl.EnumRule; `texts`: its member_legal,
    member_values, value_name). Plain Python calls the same function, so both refuse in the same words."""
    values = [int(m) for m in members]
    lo, hi = min(values) if lo is None else lo, max(values) if hi is None else hi
    rule = impl.EnumRule(api, name, members, lo, hi, legal, flag, **texts)

    def read(value):
        try:
            v = int(as_enum(api, DEVICE, name, value, members))
        except ParameterError:
            v = None
        if v is None or not (rule.member_bits >> v) & 1:
            raise ParameterError(api, name, value, legal=rule.member_legal, device=DEVICE) from None
        if not lo <= v <= hi:
            raise ParameterError(api, name, value if rule.value_name is None else rule.value_name, legal=legal,
                                 device=DEVICE)
        return v == 1 if flag else v
    read.rule = rule  # a direct call's ENUM operand checks the argument by the same rule

    @overload(read, inline="always")
    def _ol_read(value):
        if _absent(value):
            return (lambda value: False) if flag else (lambda value: np.int64(default))
        foreign = rule.foreign_code(value)  # a run-time argument of impl.checked_enum: the code after it stays typed
        # impl.text(), bool(), np.int64(): run-time values, so checked_enum has the one signature the direct calls
        # use (_checked); the closure's constants typed as literals compiled it once per API and enum (15 in the
        # test suite, 0.1 s each; issue 20)
        t_api, t_name, t_legal, t_member_legal, t_value_name = rule.texts()
        bits, named = rule.member_bits, rule.value_name is not None
        if isinstance(value, types.Float):  # never a member: refused naming the float, as plain Python's as_enum
            def refuse_float(value):
                impl.refuse_enum_float(impl.text(t_api), impl.text(t_name), np.float64(value),
                                       impl.text(t_member_legal))
                return False

            def refuse_float_value(value):
                impl.refuse_enum_float(impl.text(t_api), impl.text(t_name), np.float64(value),
                                       impl.text(t_member_legal))
                return np.int64(0)
            return refuse_float if flag else refuse_float_value
        if impl.is_uint64(value):
            # compared and named as the unsigned value it is: np.int64() wrapped 2**64 - 1 to -1 (review18)
            if flag:
                return lambda value: impl.checked_enum_unsigned(
                    impl.text(t_api), impl.text(t_name), value, np.int64(foreign), np.int64(lo), np.int64(hi),
                    impl.text(t_legal), np.int64(bits), impl.text(t_member_legal), bool(named),
                    impl.text(t_value_name)) == 1
            return lambda value: impl.checked_enum_unsigned(
                impl.text(t_api), impl.text(t_name), value, np.int64(foreign), np.int64(lo), np.int64(hi),
                impl.text(t_legal), np.int64(bits), impl.text(t_member_legal), bool(named), impl.text(t_value_name))
        if flag:
            return lambda value: impl.checked_enum(
                impl.text(t_api), impl.text(t_name), np.int64(_or_default(value, 0)), np.int64(foreign), np.int64(lo),
                np.int64(hi), impl.text(t_legal), np.int64(bits), impl.text(t_member_legal), bool(named),
                impl.text(t_value_name)) == 1
        return lambda value: impl.checked_enum(
            impl.text(t_api), impl.text(t_name), np.int64(_or_default(value, 0)), np.int64(foreign), np.int64(lo),
            np.int64(hi), impl.text(t_legal), np.int64(bits), impl.text(t_member_legal), bool(named),
            impl.text(t_value_name))
    return read


# _merging's words: UNKNOWN (a CastTrait value) is refused as a value that is no mode
_DUPLICATE_MERGE_FLAG = _enum_reader("Duplicate", "mode", MaskMergeMode, _MERGE_LEGAL, flag=True, hi=impl.MERGING,
                                     member_legal=_MERGE_LEGAL, member_values=(impl.ZEROING, impl.MERGING))
# Copy's mode (CopyImpl static_asserts MERGING): the same reader plain and compiled, so both refuse alike
_COPY_MODE_READ = _enum_reader("Copy", "mode", MaskMergeMode, _COPY_MODE, lo=impl.MERGING, hi=impl.MERGING,
                               default=impl.MERGING)
_HIGHEST_PART = {api: _enum_reader(api, "part", HighLowPart, "HighLowPart.LOWEST or HighLowPart.HIGHEST (SPEC-2 11.7)",
                                   flag=True) for api in ("Pack", "UnPack")}
_LOAD_DIST = _enum_reader("LoadAlign", "dist", LoadDist, "an aj.Reg.LoadDist (SPEC-2 11.6)")
_STORE_DIST = _enum_reader("StoreAlign", "dist", StoreDist, "an aj.Reg.StoreDist (SPEC-2 11.6)")
_LOAD_DUAL_DIST = _enum_reader("LoadAlign", "dist", LoadDist, "an aj.Reg.LoadDist (SPEC-2 11.6)",
                               default=mv.L_DINTLV_B16)
_STORE_DUAL_DIST = _enum_reader("StoreAlign", "dist", StoreDist, "an aj.Reg.StoreDist (SPEC-2 11.6)",
                                default=mv.S_INTLV_B16)
_LOAD_MASK_DIST = _enum_reader("LoadAlign", "dist", MaskDist, "an aj.Reg.MaskDist (SPEC-2 11.6)")
_STORE_MASK_DIST = _enum_reader("StoreAlign", "dist", MaskDist, "an aj.Reg.MaskDist (SPEC-2 11.6)")
_LOAD_POST_MODE = _enum_reader("LoadAlign", "post_mode", PostLiteral, "an aj.Reg.PostLiteral (SPEC-2 11.6)")
_STORE_POST_MODE = _enum_reader("StoreAlign", "post_mode", PostLiteral, "an aj.Reg.PostLiteral (SPEC-2 11.6)")
_PATTERN = _enum_reader("CreateMask", "pattern", MaskPattern, "an aj.Reg.MaskPattern (SPEC 7.2)")
# the kernel's flag: DECREASE_ORDER (a value outside the enum refused as plain Arange refuses it)
_ARANGE_ORDER = impl.EnumRule("Arange", "order", IndexOrder, IndexOrder.INCREASE_ORDER, IndexOrder.DECREASE_ORDER,
                              None, flag=True)


@njit(cache=True, no_cfunc_wrapper=True)
def _given_twice(refuse, name, value):
    """A ParameterError for an argument given positionally and by name (the flag is a run-time value, so the call
    keeps value's type for the code around it)."""
    if refuse:
        raise ParameterError("Reg", name, "given twice", "given once: positionally or by name (SPEC-2 1.1)", DEVICE)
    return value


def _float_or_bool(*argument_types):
    """Whether an offset, step or stride argument is a float or a bool: a load/store overload then types no
    implementation, so the VF runs plain, which refuses it in its words (the kernels had taken a float as its value
    and a bool as 1, running where plain Python refuses; session-24 hunt)."""
    return any(isinstance(t, (types.Float, types.Boolean)) for t in argument_types)


def _signed_int(t):
    return isinstance(t, types.Integer) and t.signed


def _offset_of(positional, keyword):
    return _pick_offset("Reg", positional, keyword)


@overload(_offset_of, inline="always")
def _ol_offset_of(positional, keyword):
    """A load/store offset given positionally or as `offset=` (SPEC-2 1.1), chosen at compile time; both given is a
    ParameterError when called, as plain Python raises."""
    # an integer offset passes on as an int64 value: the constant 0 of an omitted one, or a literal in the VF, typed
    # as a literal compiled the load or store kernel once more (0.6-1.3 s each; issue 20); any other type passes as
    # it is, for the kernel's refusal
    if _absent(keyword):
        if _absent(positional):
            return lambda positional, keyword: np.int64(0)
        return (lambda positional, keyword: np.int64(positional)) if _signed_int(positional) else \
            (lambda positional, keyword: positional)
    if _absent(positional):
        return (lambda positional, keyword: np.int64(keyword)) if _signed_int(keyword) else \
            (lambda positional, keyword: keyword)

    return lambda positional, keyword: _given_twice(True, "offset", keyword)


@overload(LoadAlign)
def _ol_load_align(dst, src, _arg2=None, _arg3=None, dist=None, post_update_stride=None, data_block_stride=None,
                   mask=None, repeat_stride=None, post_mode=None, offset=None):
    if _load_form(dst, src, _arg2, _arg3, dist, post_update_stride, data_block_stride, mask, repeat_stride,
                  post_mode, offset) is not None:
        return None  # a direct call of the form's kernel (_load_form)
    if _float_or_bool(_arg2, _arg3, offset, post_update_stride, data_block_stride, repeat_stride):
        return None  # plain Python refuses it ("a float/bool is not an integer"); the kernels would take it
    # an argument of another form (SPEC-2 11.6): no implementation, so the VF runs plain, whose _not_taken refuses it
    # (repeat_stride and post_mode default to None here, so a left-out one is told from a given 0)
    other_form = (_is_reg_type(src) or _is_mask_type(dst)) and not _absent_all(data_block_stride, mask, repeat_stride,
                                                                              post_mode)
    if other_form or not _absent(data_block_stride) and not _absent_all(dist, post_update_stride) or \
            not _absent_all(mask, repeat_stride, post_mode) and _absent(data_block_stride):
        return None
    if not (_is_reg_type(dst) or _is_mask_type(dst)):
        return None  # an unaligned register's array read as a register's: past its end (plain Python refuses it)
    if _is_reg_type(src):  # dual load: (reg0, reg1, tensor, offset)
        if not _is_reg_type(dst):
            return None  # a MaskReg's words written as a register's 264 bytes: past their end (plain refuses it)
        def dual(dst, src, _arg2=None, _arg3=None, dist=None, post_update_stride=None, data_block_stride=None,
                 mask=None, repeat_stride=None, post_mode=None, offset=None):
            return mv.load_dual(impl.borrow(dst), impl.borrow(src), impl.borrow(_arg2), _offset_of(_arg3, offset),
                                _LOAD_DUAL_DIST(dist), _or_default(post_update_stride, 0))
        return dual
    if not _absent(_arg3):
        return None  # no such form (a typing error naming LoadAlign)
    if _is_mask_type(dst):
        # a mask made as a tuple cannot be written: no implementation, so simd_vf compiles the VF again with its
        # masks as arrays (_compile_with_mask_arrays); a closure for the tuple failed in every such VF (1.8 s CPU)
        if not _is_mask_array(dst):
            return None
        def load_mask(dst, src, _arg2=None, _arg3=None, dist=None, post_update_stride=None, data_block_stride=None,
                      mask=None, repeat_stride=None, post_mode=None, offset=None):
            return mv.load_mask(dst, impl.borrow(src), _offset_of(_arg2, offset), _LOAD_MASK_DIST(dist),
                                _or_default(post_update_stride, 0))
        return load_mask
    if not _absent(data_block_stride):
        if isinstance(repeat_stride, types.NoneType) or isinstance(post_mode, types.NoneType):
            return None  # plain Python refuses None for them here; the readers would take it as left out

        def blocks(dst, src, _arg2=None, _arg3=None, dist=None, post_update_stride=None, data_block_stride=None,
                   mask=None, repeat_stride=None, post_mode=None, offset=None):
            return mv.load_blocks(impl.borrow(dst), impl.borrow(src), _offset_of(_arg2, offset), data_block_stride,
                                  impl.words(mask),
                                  _or_default(repeat_stride, 0), _LOAD_POST_MODE(post_mode))
        return blocks

    def single(dst, src, _arg2=None, _arg3=None, dist=None, post_update_stride=None, data_block_stride=None,
               mask=None, repeat_stride=None, post_mode=None, offset=None):
        return mv.load(impl.borrow(dst), impl.borrow(src), _offset_of(_arg2, offset), _LOAD_DIST(dist),
                       _or_default(post_update_stride, 0))
    return single


@overload(StoreAlign)
def _ol_store_align(tensor, src, second=None, _arg3=None, _arg4=None, dist=None, post_update_stride=None,
                    data_block_stride=None, mask=None, repeat_stride=None, post_mode=None, offset=None):
    if _store_form(tensor, src, second, _arg3, _arg4, dist, post_update_stride, data_block_stride, mask,
                   repeat_stride, post_mode, offset) is not None:
        return None  # a direct call of the form's kernel (_store_form)
    if _float_or_bool(second, _arg3, _arg4, offset, post_update_stride, data_block_stride, repeat_stride):
        return None  # plain Python refuses it ("a float/bool is not an integer"); the kernels would take it
    # an argument of another form (SPEC-2 11.6): no implementation, so the VF runs plain, whose _not_taken refuses it
    if _is_reg_type(second) and not all(_absent(t) or _is_mask_type(t) for t in (_arg3, mask)) or \
            _is_mask_type(src) and not _absent(mask) or \
            not _absent(data_block_stride) and (_is_reg_type(second) or _is_mask_type(src) or
                                                not _absent_all(dist, post_update_stride)) or \
            _absent(data_block_stride) and not _absent_all(repeat_stride, post_mode):
        return None
    if not (_is_reg_type(src) or _is_mask_type(src)):
        return None  # an unaligned register's array read as a register's: past its end (plain Python refuses it)
    if _is_reg_type(second):  # dual store: (tensor, reg0, reg1, mask, offset); INTLV ignores the mask
        if not _is_reg_type(src):
            return None  # a MaskReg's words read as a register's 264 bytes: past their end (plain refuses it)
        def dual(tensor, src, second=None, _arg3=None, _arg4=None, dist=None, post_update_stride=None,
                 data_block_stride=None, mask=None, repeat_stride=None, post_mode=None, offset=None):
            return mv.store_dual(impl.borrow(tensor), impl.borrow(src), impl.borrow(second), _offset_of(_arg4, offset),
                                 _STORE_DUAL_DIST(dist), _or_default(post_update_stride, 0))
        return dual
    if not _absent(_arg4):
        return None  # no such form (a typing error naming StoreAlign)
    if _is_mask_type(src):
        def store_mask(tensor, src, second=None, _arg3=None, _arg4=None, dist=None, post_update_stride=None,
                       data_block_stride=None, mask=None, repeat_stride=None, post_mode=None, offset=None):
            return mv.store_mask(impl.borrow(tensor), impl.words(src), _offset_of(second, offset),
                                 _STORE_MASK_DIST(dist), _or_default(post_update_stride, 0))
        return store_mask
    if not _absent(data_block_stride):
        if isinstance(repeat_stride, types.NoneType) or isinstance(post_mode, types.NoneType):
            return None  # plain Python refuses None for them here; the readers would take it as left out

        def blocks(tensor, src, second=None, _arg3=None, _arg4=None, dist=None, post_update_stride=None,
                   data_block_stride=None, mask=None, repeat_stride=None, post_mode=None, offset=None):
            return mv.store_blocks(impl.borrow(tensor), impl.borrow(src), _offset_of(second, offset), data_block_stride,
                                   impl.words(mask),
                                   _or_default(repeat_stride, 0), _STORE_POST_MODE(post_mode))
        return blocks

    def single(tensor, src, second=None, _arg3=None, _arg4=None, dist=None, post_update_stride=None,
               data_block_stride=None, mask=None, repeat_stride=None, post_mode=None, offset=None):
        return mv.store(impl.borrow(tensor), impl.borrow(src), impl.words(_mask_of(second, mask)),
                        _offset_of(_arg3, offset), _STORE_DIST(dist), _or_default(post_update_stride, 0))
    return single


def _mask_of(positional, keyword):
    return positional if keyword is None else keyword


@overload(_mask_of, inline="always")
def _ol_mask_of(positional, keyword):
    """StoreAlign's mask, positional or `mask=`; both given is a ParameterError when called, as in plain Python."""
    if _absent(keyword):
        return lambda positional, keyword: positional
    if _absent(positional):
        return lambda positional, keyword: keyword

    return lambda positional, keyword: _given_twice(True, "mask", keyword)


def _offset_operand(api, positional_index, positional, keyword):
    """The INT operand of a load/store offset given positionally (argument positional_index) or as `offset=` (index
    10 of LoadAlign, 11 of StoreAlign), or None when it is given twice (the overload's _offset_of refuses it when
    called) or is no int (the overload passes it on for the kernel's refusal)."""
    if not (_absent(positional) or _absent(keyword)) or not (impl.int_like(positional) and impl.int_like(keyword)):
        return None
    index = positional_index if _absent(keyword) else {"LoadAlign": 10, "StoreAlign": 11}[api]
    return impl.INT, index, 0, api, "offset", mv._INT32


def _load_form(dst, src, _arg2=None, _arg3=None, dist=None, post_update_stride=None, data_block_stride=None,
               mask=None, repeat_stride=None, post_mode=None, offset=None):
    """LoadAlign's forms (SPEC-2 11.6) as direct calls of their kernel: (kernel, plan operands), or None for a call
    the overload _ol_load_align compiles (an offset given twice or not an int, an argument of a type the kernel
    refuses) or that no form takes. Typed straight to the kernel call, a form compiles nothing of its own: as
    overload closures, the forms compiled once per register kind and argument types in every process (issue 20:
    41 s CPU of the cold test suite for LoadAlign and StoreAlign)."""
    step = impl.INT, 5, 0, "LoadAlign", "post_update_stride", mv._INT32
    if not (isinstance(src, impl.TensorHandle) or _is_reg_type(src) and isinstance(_arg2, impl.TensorHandle)) or \
            not (impl.int_like(post_update_stride) and impl.enum_like(dist)):
        return None
    if _is_reg_type(src):  # dual: (reg0, reg1, tensor, offset, dist)
        off = _offset_operand("LoadAlign", 3, _arg3, offset)
        if not _is_reg_type(dst) or off is None or not _absent_all(data_block_stride, mask, repeat_stride, post_mode):
            return None
        return mv.load_dual, ((impl.ARG, 0), (impl.ARG, 1), (impl.ARG, 2), off,
                              (impl.ENUM, 4, mv.L_DINTLV_B16, _LOAD_DUAL_DIST.rule), step)
    off = _offset_operand("LoadAlign", 2, _arg2, offset)
    if off is None or not _absent(_arg3):
        return None
    if _is_mask_array(dst):  # (mask_reg, tensor, offset, MaskDist)
        if not _absent_all(data_block_stride, mask, repeat_stride, post_mode):
            return None
        return mv.load_mask, ((impl.ARG, 0), (impl.ARG, 1), off, (impl.ENUM, 4, 0, _LOAD_MASK_DIST.rule), step)
    if not _is_reg_type(dst):
        return None
    if not _absent(data_block_stride):  # DATA_BLOCK_COPY: (reg, tensor, offset, data_block_stride=, mask=, ...)
        if not (_absent_all(dist, post_update_stride) and _is_mask_type(mask) and
                impl.int_like(data_block_stride) and impl.int_like(repeat_stride) and impl.enum_like(post_mode)):
            return None
        return mv.load_blocks, ((impl.ARG, 0), (impl.ARG, 1), off, _BLOCK_STRIDE_OPERAND("LoadAlign", 6),
                                (impl.WORDS, 7), _REPEAT_STRIDE_OPERAND("LoadAlign", 8),
                                (impl.ENUM, 9, 0, _LOAD_POST_MODE.rule))
    if not _absent_all(mask, repeat_stride, post_mode):
        return None
    if _absent(dist):  # DIST_NORM, the hot case
        return mv.load_norm, ((impl.ARG, 0), (impl.ARG, 1), off, step)
    return mv.load, ((impl.ARG, 0), (impl.ARG, 1), off, (impl.ENUM, 4, 0, _LOAD_DIST.rule), step)


def _store_form(tensor, src, second=None, _arg3=None, _arg4=None, dist=None, post_update_stride=None,
                data_block_stride=None, mask=None, repeat_stride=None, post_mode=None, offset=None):
    """StoreAlign's forms (SPEC-2 11.6) as direct calls of their kernel, as _load_form's LoadAlign: (kernel, plan
    operands), or None for a call the overload _ol_store_align compiles or no form takes."""
    step = impl.INT, 6, 0, "StoreAlign", "post_update_stride", mv._INT32
    if not isinstance(tensor, impl.TensorHandle) or not (impl.int_like(post_update_stride) and impl.enum_like(dist)):
        return None
    if _is_reg_type(second):  # dual: (tensor, reg0, reg1, mask, offset, dist); INTLV ignores the mask
        off = _offset_operand("StoreAlign", 4, _arg4, offset)
        if not _is_reg_type(src) or off is None or not _absent_all(data_block_stride, repeat_stride, post_mode) or \
                not all(_absent(t) or _is_mask_type(t) for t in (_arg3, mask)):
            return None
        return mv.store_dual, ((impl.ARG, 0), (impl.ARG, 1), (impl.ARG, 2), off,
                               (impl.ENUM, 5, mv.S_INTLV_B16, _STORE_DUAL_DIST.rule), step)
    if not _absent(_arg4):
        return None
    if _is_mask_type(src):  # (tensor, mask_reg, offset, MaskDist)
        off = _offset_operand("StoreAlign", 2, second, offset)
        if off is None or not _absent_all(_arg3, data_block_stride, mask, repeat_stride, post_mode):
            return None
        return mv.store_mask, ((impl.ARG, 0), (impl.WORDS, 1), off, (impl.ENUM, 5, 0, _STORE_MASK_DIST.rule), step)
    if not _is_reg_type(src):
        return None
    if not _absent(data_block_stride):  # DATA_BLOCK_COPY: (tensor, reg, offset, data_block_stride=, mask=, ...)
        off = _offset_operand("StoreAlign", 2, second, offset)
        if off is None or not (_absent_all(_arg3, dist, post_update_stride) and _is_mask_type(mask) and
                               impl.int_like(data_block_stride) and impl.int_like(repeat_stride) and
                               impl.enum_like(post_mode)):
            return None
        return mv.store_blocks, ((impl.ARG, 0), (impl.ARG, 1), off, _BLOCK_STRIDE_OPERAND("StoreAlign", 7),
                                 (impl.WORDS, 8), _REPEAT_STRIDE_OPERAND("StoreAlign", 9),
                                 (impl.ENUM, 10, 0, _STORE_POST_MODE.rule))
    # single register: (tensor, reg, mask, offset, dist), the mask positional or `mask=` (not both)
    off = _offset_operand("StoreAlign", 3, _arg3, offset)
    mask_index = 8 if _absent(second) else 2
    if off is None or not _absent_all(repeat_stride, post_mode) or not (_absent(second) or _absent(mask)) or \
            not _is_mask_type((mask, second)[mask_index == 2]):
        return None
    if _absent(dist):  # DIST_NORM, the hot case
        return mv.store_norm, ((impl.ARG, 0), (impl.ARG, 1), (impl.WORDS, mask_index), off, step)
    return mv.store, ((impl.ARG, 0), (impl.ARG, 1), (impl.WORDS, mask_index), off,
                      (impl.ENUM, 5, 0, _STORE_DIST.rule), step)


def _stride_operand(name):
    """The INT operand of a DATA_BLOCK_COPY stride (left out: 0), ranged and named as the kernels check it
    (reg_move._block_copy_arguments)."""
    return lambda api, index: (impl.INT, index, 0, api, name, "an integer in [0, 2147483647]")


_BLOCK_STRIDE_OPERAND, _REPEAT_STRIDE_OPERAND = _stride_operand("data_block_stride"), _stride_operand("repeat_stride")


def _ignores_block_arguments(*arg_types):
    """The parameters of a load/store form that plain Python ignores given as None: repeat_stride and post_mode
    outside DATA_BLOCK_COPY (its _block_arguments refuses None for them; the other forms' _not_taken skips None)."""
    data_block_stride = arg_types[6 if len(arg_types) == 11 else 7]
    return ("repeat_stride", "post_mode") if _absent(data_block_stride) else ()


_direct_forms(LoadAlign, _load_form, _ignores_block_arguments)
_direct_forms(StoreAlign, _store_form, _ignores_block_arguments)


def _old_name_call(alias, target, n_positional, n_slots, arg_types, required):
    """The compiled form of _forward_old_name: an implementation with the old name's parameters that calls the new
    name `target` with the arguments given: the first n_positional positionally (up to the last one given, at least
    the `required` ones), the old name's keywords (its parameters after its n_slots positional ones) by name."""
    names = list(inspect.signature(alias).parameters)
    n = max((i + 1 for i, name in enumerate(names[:n_positional]) if not _absent(arg_types[name])), default=0)
    n = max(n, required)
    given = names[:n] + [f"{k}={k}" for k in names[n_slots:] if not _absent(arg_types[k])]
    namespace = {"target": target}
    exec(f"def forward{inspect.signature(alias)}:\n    return target({', '.join(given)})\n", namespace)
    return namespace["forward"]


_ARGUMENT_OPERANDS = (impl.ARG, impl.INT, impl.IS_ONE, impl.FIELD, impl.ENUM, impl.WORDS)  # (kind, argument index, ...)


def _data_copy_form(dst, src, _arg2=None, _arg3=None, _arg4=None, dist=None, post_update_stride=None,
                    data_block_stride=None, mask=None, repeat_stride=None, post_mode=None, offset=None):
    """DataCopy, LoadAlign's and StoreAlign's earlier name, as their forms' direct calls: StoreAlign's parameters
    are DataCopy's; LoadAlign's lack `_arg4`, so its operands' argument indexes from `dist` on move up one. None: the
    overload _ol_data_copy's call (it forwards to the new name) or no form."""
    if _is_reg_type(dst) or _is_mask_type(dst):
        found = None if not _absent(_arg4) else _load_form(dst, src, _arg2, _arg3, dist, post_update_stride,
                                                            data_block_stride, mask, repeat_stride, post_mode, offset)
        return None if found is None else (found[0], tuple(
            op[:1] + (op[1] + 1,) + op[2:] if op[0] in _ARGUMENT_OPERANDS and op[1] >= 4 else op for op in found[1]))
    return _store_form(dst, src, _arg2, _arg3, _arg4, dist, post_update_stride, data_block_stride, mask,
                       repeat_stride, post_mode, offset)


# DataCopy's repeat_stride and post_mode default to None (plain DataCopy passes on the ones given): None is no
# refusal there
_direct_forms(DataCopy, _data_copy_form, ())


@overload(DataCopy)
def _ol_data_copy(dst, src, _arg2=None, _arg3=None, _arg4=None, dist=None, post_update_stride=None,
                  data_block_stride=None, mask=None, repeat_stride=None, post_mode=None, offset=None):
    arg_types = dict(locals())
    if _data_copy_form(**arg_types) is not None:
        return None  # a direct call of the form's kernel
    if _is_reg_type(dst) or _is_mask_type(dst):
        return None if not _absent(_arg4) else _old_name_call(DataCopy, LoadAlign, 4, 5, arg_types, 2)
    return _old_name_call(DataCopy, StoreAlign, 5, 5, arg_types, 2)


@overload(DataCopyUnAlign)
def _ol_data_copy_unalign(dst, _arg1, _arg2, offset=None, post_update_stride=None):
    target, required = (LoadUnAlign, 3) if _is_reg_type(dst) else (StoreUnAlign, 4)
    return _old_name_call(DataCopyUnAlign, target, 4, 4, dict(dst=dst, _arg1=_arg1, _arg2=_arg2, offset=offset,
                                                               post_update_stride=post_update_stride), required)


def _binary_markers(kind):
    """ops.binary's (half, wide, int) class markers for a source register of `kind` (None: a run-time dtype, all)."""
    if kind is None:
        return 0, 0, 0
    wide = kind in (_FLOAT, _BF16)
    return (0 if kind == _HALF else None), (0 if wide else None), (None if kind == _HALF or wide else 0)


_BINARY_CODES = {"Add": ops.ADD, "Sub": ops.SUB, "Mul": ops.MUL}


def _binary_plan(name):
    """Add/Sub/Mul as one call of ops.binary (after _binary_hot's hot path for half registers), or in the carry
    form (a MaskReg first: carry, dst, src0, src1, mask) of ops.binary_carry; the op code an int64 value, the class
    markers from the source register's type."""
    code = _BINARY_CODES[name]

    def plan(dst, src0, src1, mask, mode=None):
        if _is_mask_type(dst):  # the carry form: `mode` holds the mask
            if not (_regs_and_mask(src0, src1, mask, mode) and _is_reg_type(src0)):
                return None
            return ((impl.ARG, 0), (impl.ARG, 1), (impl.ARG, 2), (impl.ARG, 3), (impl.WORDS, 4),
                    (impl.CONST, types.int64, code))
        if not (_regs_and_mask(dst, src0, src1, mask) and impl.enum_like(mode)):
            return None
        return ((impl.ARG, 0), (impl.ARG, 1), (impl.ARG, 2), (impl.WORDS, 3), (impl.CONST, types.int64, code),
                (impl.ENUM, 4, False, _mode_rule(name)), *_marker_operands(_vf_markers(_binary_markers, src0)))
    return plan


def _binary_kernel(dst, src0, src1, mask, mode=None):
    return ops.binary_carry if _is_mask_type(dst) else ops.binary


def _binary_hot(name):
    """Add/Sub/Mul's hot path when the source register may be half: ops.half_binary_hot on the registers' data
    pointers (three half registers, every lane active, ZEROING: 12 ns a call in the add-mul VF against 36 ns for
    the engine's, whose array arguments cost twelve reference-count calls; BENCHMARKS.md "Session 37"); one cached
    kernel for the three ops, the op an int64 value."""
    code = _BINARY_CODES[name]

    def hot(dst, src0, src1, mask, mode=None):
        if _is_mask_type(dst) or _vf_markers(_binary_markers, src0)[0] is None:
            return None
        return ops.half_binary_hot, ((impl.DATA, 0), (impl.DATA, 1), (impl.DATA, 2), (impl.WORDS, 3),
                                     (impl.CONST, types.int64, code), (impl.ENUM, 4, False, _mode_rule(name)))
    return hot


for _name in ("Add", "Sub", "Mul"):
    impl.direct_call(globals()[_name], _binary_kernel, _binary_plan(_name), hot=_binary_hot(_name))




@functools.lru_cache(maxsize=None)
def _mode_rule(api):
    """A direct call's `mode` (SPEC-2 11.1, 1.8): ZEROING or MERGING (the kernel refuses MERGING where the API does),
    anything else a ParameterError naming the API, as plain Python's _merging raises."""
    return impl.EnumRule(api, "mode", MaskMergeMode, impl.ZEROING, impl.MERGING, _MERGE_LEGAL, flag=True,
                         member_legal=_MERGE_LEGAL, member_values=(impl.ZEROING, impl.MERGING))


@functools.lru_cache(maxsize=None)
def _reduce_type_rule(api):
    return impl.EnumRule(api, "reduce_type", ReduceType, ops.SUM, ops.MIN, None)  # as_enum's list of members


# any member: the kernel refuses MERGING and UNKNOWN in its words, as for plain ReduceDataBlock (as_enum, then it)
_ZEROING_ONLY = impl.EnumRule("ReduceDataBlock", "mode", MaskMergeMode, impl.ZEROING, int(MaskMergeMode.UNKNOWN),
                              None)


def _marker_operands(markers):
    return tuple((impl.CONST, types.none, None) if m is None else (impl.CONST, types.int64, m) for m in markers)


def _engine_plan(name):
    # the op code and dtype set as int64 values, not literals: one compiled engine for Max, Min and Div; the class
    # markers from the source register's type (_vf_markers: its kinds' markers)
    code, allowed = ENGINE_OPS[name], _ENGINE_KINDS[name]
    if name == "Exp":
        def plan(dst, src, mask, mode=None):
            if not (_is_reg_type(dst) and _is_reg_type(src) and _is_mask_type(mask)):
                return None
            op = _specific_mode_operand(name, 1, 3, mode, allowed)
            if op is None and not impl.enum_like(mode):
                return None
            return ((impl.ARG, 0), (impl.ARG, 1), (impl.WORDS, 2), op or (impl.CONST, types.int64, code),
                    (impl.CONST, types.int64, allowed),
                    (impl.CONST, types.boolean, False) if op else (impl.ENUM, 3, False, _zeroing_rule(name)),
                    *_marker_operands(_vf_markers(_engine_markers, src, name)))
        return plan

    def plan(dst, src0, src1, mask, mode=None):
        if not (_is_reg_type(dst) and _is_reg_type(src0) and _is_reg_type(src1) and _is_mask_type(mask)):
            return None
        markers = _marker_operands(_vf_markers(_engine_markers, src0, name))
        head = ((impl.ARG, 0), (impl.ARG, 1), (impl.ARG, 2), (impl.WORDS, 3))
        op = _specific_mode_operand(name, 1, 4, mode, allowed) if name == "Div" else None
        if op is not None:  # the merge flag a boolean False: the MaskMergeMode call's specialisation (issue 20)
            return head + (op, (impl.CONST, types.int64, allowed), (impl.CONST, types.boolean, False), *markers)
        if not impl.enum_like(mode):
            return None
        return head + ((impl.CONST, types.int64, code), (impl.CONST, types.int64, allowed),
                       (impl.ENUM, 4, False, _zeroing_rule(name) if name in _ZEROING_ENGINE_OPS else _mode_rule(name)),
                       *markers)
    return plan


class _BoolRule(impl.EnumRule):
    """A SpecificMode's precisionMode in a direct call: a bool (plain Python's rule); any other type refused."""

    def foreign(self, t):
        return not isinstance(t, types.Boolean)


@functools.lru_cache(maxsize=None)
def _specific_mode_rules(api):
    """The direct call's rules for the fields of `api`'s SpecificMode (reg.py _SPECIFIC_MODES), by field name: a field
    of another enum (or a bool where an enum is expected) is refused as plain Python's _specific_mode refuses it; the
    values specific_mode_op checks (as_enum's list of members; mrgMode's UNKNOWN it refuses, as for plain calls)."""
    classes, _ = _SPECIFIC_MODES[api]
    algos = type(classes[0]._field_defaults["algo"])
    return {"mrgMode": impl.EnumRule(api, "mode.mrgMode", MaskMergeMode, 0, 2, None),
            "precisionMode": _BoolRule(api, "mode.precisionMode", None, 0, 1, "True or False"),
            "algo": impl.EnumRule(api, "mode.algo", algos, 0, max(algos), None)}


def _specific_mode_operand(api, src_arg, mode_arg, mode_type, allowed):
    """The kernel's op as a plan operand when argument `mode_arg` (numba type `mode_type`) is a SpecificMode of `api`:
    a call of ops.specific_mode_op on its fields, read at run time (checked there, MERGING refused; a field left to
    its default, and Exp/Ln/Log's missing precisionMode, is 0), so every mode value shares the kernel's
    specialisation (issue 20); None for any other type. A tuple of the struct's length, or a NamedTuple of one of the
    API's structs with trailing fields left out, of ints, enum members or bools (the rules check which)."""
    classes, code = _SPECIFIC_MODES[api]
    fields = classes[0]._fields
    struct = getattr(mode_type, "instance_class", None)   # a NamedTuple's class: the API's own structs only
    if not (isinstance(mode_type, types.BaseTuple) and (struct is None or struct in classes) and
            any(impl.short_named_tuple(mode_type, len(fields), c) for c in classes) and
            all(isinstance(f, (types.Integer, types.IntEnumMember, types.Boolean)) for f in mode_type)):
        return None
    rules = _specific_mode_rules(api)
    operands = {name: (impl.FIELD, mode_arg, k, 0, rules[name]) for k, name in enumerate(fields)}
    zero = (impl.CONST, types.int64, 0)
    return (impl.CALL, ops.specific_mode_op, ((impl.ARG, src_arg), (impl.CONST, types.int64, allowed),
                                              (impl.CONST, types.int64, code), operands["mrgMode"],
                                              operands.get("precisionMode", zero), operands["algo"]))


impl.direct_call(Max, ops.engine_binary, _engine_plan("Max"))
impl.direct_call(Min, ops.engine_binary, _engine_plan("Min"))
impl.direct_call(Div, ops.engine_binary, _engine_plan("Div"))
impl.direct_call(Exp, ops.engine_unary, _engine_plan("Exp"))
impl.direct_call(Prelu, ops.engine_binary, _engine_plan("Prelu"))


@functools.lru_cache(maxsize=None)
def _zeroing_rule(api):
    """A direct call's `mode` where only ZEROING exists (DK RegMerge table 2): MERGING a ParameterError."""
    return impl.EnumRule(api, "mode", MaskMergeMode, impl.ZEROING, impl.ZEROING,
                         "MaskMergeMode.ZEROING (DK Reg MergeMode table 2)", flag=True, member_legal=_MERGE_LEGAL,
                         member_values=(impl.ZEROING, impl.MERGING), value_name="MERGING")  # _zeroing_only's words


def _unary_plan(name):
    """Abs/Relu/Neg/Ln/Log/Sqrt as one call of ops.unary: the op code and dtype set as int64 values (one compiled
    kernel for the six), the class markers from the source register's type."""
    code, allowed = UNARY_OPS[name], _UNARY_KINDS[name]

    def plan(dst, src, mask, mode=None):
        if not _regs_and_mask(dst, src, mask):
            return None
        op = _specific_mode_operand(name, 1, 3, mode, allowed) if name in _SPECIFIC_MODES else None
        if op is None and not impl.enum_like(mode):
            return None
        return ((impl.ARG, 0), (impl.ARG, 1), (impl.WORDS, 2), op or (impl.CONST, types.int64, code),
                (impl.CONST, types.int64, allowed),
                (impl.CONST, types.boolean, False) if op else (impl.ENUM, 3, False, _zeroing_rule(name)),
                *_marker_operands(_vf_markers(_unary_markers, src)))
    return plan


for _name in UNARY_OPS:
    impl.direct_call(globals()[_name], ops.unary, _unary_plan(_name))

def _tensor_scalar_plan(name):
    """Adds/Muls/Maxs/Mins in a VF as one call of Add/Mul's `binary` or Max/Min's `engine_binary`, whose second source
    is the register ops.scalar_register makes (the kinds checked and the scalar converted there, naming the
    instruction); `mode` ZEROING only; the class markers from the source register's type."""
    index, allowed = ops.SCALAR_OPS.index(name), _SCALAR_KINDS[name]

    def plan(dst, src, scalar, mask, mode=None):
        if not (_regs_and_mask(dst, src, mask) and isinstance(scalar, (types.Number, types.Boolean)) and
                impl.enum_like(mode)):
            return None
        broadcast = (impl.CALL, ops.scalar_register, ((impl.CONST, types.int64, index),
                                                      (impl.CONST, types.int64, allowed), (impl.ARG, 0),
                                                      (impl.ARG, 1), (impl.SCALAR, 2)))
        head = ((impl.ARG, 0), (impl.ARG, 1), broadcast, (impl.WORDS, 3))
        mode_operand = (impl.ENUM, 4, False, _zeroing_rule(name))
        if name in ("Adds", "Muls"):
            return head + ((impl.CONST, types.int64, ops.ADD if name == "Adds" else ops.MUL), mode_operand,
                           *_marker_operands(_vf_markers(_binary_markers, src)))
        engine = _SCALAR_ENGINE[name]
        return head + ((impl.CONST, types.int64, ENGINE_OPS[engine]), (impl.CONST, types.int64, _ENGINE_KINDS[engine]),
                       mode_operand, *_marker_operands(_vf_markers(_engine_markers, src, engine)))
    return plan


for _name in ops.SCALAR_OPS:
    impl.direct_call(globals()[_name], ops.binary if _name in ("Adds", "Muls") else ops.engine_binary,
                     _tensor_scalar_plan(_name))


def _shift_plan(name):
    """ShiftLefts/ShiftRights as one call of ops.shift; the amount checked by ops.shift_amount (an int16 >= 0: a
    negative one is undefined). A non-integer amount is no such call (a typing error naming the instruction)."""
    code, allowed, left = SHIFT_OPS[name], _SHIFT_KINDS[name], name == "ShiftLefts"

    def plan(dst, src, scalar, mask, mode=None):
        if not (_regs_and_mask(dst, src, mask) and isinstance(scalar, types.Integer) and impl.enum_like(mode)):
            return None
        amount = (impl.CALL, ops.shift_amount, ((impl.CONST, types.boolean, left), (impl.SCALAR, 2)))
        return ((impl.ARG, 0), (impl.ARG, 1), (impl.WORDS, 3), (impl.CONST, types.int64, code),
                (impl.CONST, types.int64, allowed), amount, (impl.ENUM, 4, False, _zeroing_rule(name)))
    return plan


impl.direct_call(ShiftLefts, ops.shift, _shift_plan("ShiftLefts"))
impl.direct_call(ShiftRights, ops.shift, _shift_plan("ShiftRights"))


def _ternary_plan(name):
    """MulAddDst/MulDstAdd/AbsSub as one call of ops.ternary; Axpy the same with the scalar's register
    (ops.scalar_register, index AXPY) as src1. ZEROING only; class markers from the source register's type."""
    code, allowed = TERNARY_OPS[name], _TERNARY_KINDS[name]

    def plan(dst, src0, src1, mask, mode=None):
        if not (_regs_and_mask(dst, src0, mask) and impl.enum_like(mode)):
            return None
        if name == "Axpy":
            if not isinstance(src1, (types.Number, types.Boolean)):
                return None
            second = (impl.CALL, ops.scalar_register, ((impl.CONST, types.int64, ops.AXPY),
                                                       (impl.CONST, types.int64, allowed), (impl.ARG, 0),
                                                       (impl.ARG, 1), (impl.SCALAR, 2)))
        elif _is_reg_type(src1):
            second = (impl.ARG, 2)
        else:
            return None
        return ((impl.ARG, 0), (impl.ARG, 1), second, (impl.WORDS, 3), (impl.CONST, types.int64, code),
                (impl.CONST, types.int64, allowed), (impl.ENUM, 4, False, _zeroing_rule(name)),
                *_marker_operands(_vf_markers(_binary_markers, src0)))
    return plan


for _name in TERNARY_OPS:
    impl.direct_call(globals()[_name], ops.ternary, _ternary_plan(_name))


def _regs_and_mask(*types_):
    return all(_is_reg_type(t) for t in types_[:-1]) and _is_mask_type(types_[-1])


def _class_markers(kind):
    """The float and integer class markers of Reduce (ops.reduce) and ReduceDataBlock for a source register of
    `kind`: its class alone, or both when the kind is a run-time value (None; the class then from the kind)."""
    if kind is None:
        return 0, 0
    is_float = kind in (_HALF, _FLOAT)
    return (0 if is_float else None), (None if is_float else 0)


def _reduce_markers(src):
    return _marker_operands(_vf_markers(_class_markers, src))


def _reduce_plan(dst, src, mask, reduce_type=None, mode=None):
    """Reduce as one kernel call (the kernel refuses MERGING, SPEC-2 11.4)."""
    if not (_regs_and_mask(dst, src, mask) and impl.enum_like(reduce_type) and impl.enum_like(mode)):
        return None
    return (impl.ARG, 0), (impl.ARG, 1), (impl.WORDS, 2), (impl.ENUM, 3, ops.SUM, _reduce_type_rule("Reduce")), \
        (impl.ENUM, 4, False, _mode_rule("Reduce")), *_reduce_markers(src)


def _reduce_as(op):
    """ReduceMax / ReduceMin / ReduceSum(dst, src, mask[, mode]) = Reduce with MAX / MIN / SUM."""
    def plan(dst, src, mask, mode=None):
        if not (_regs_and_mask(dst, src, mask) and impl.enum_like(mode)):
            return None
        return (impl.ARG, 0), (impl.ARG, 1), (impl.WORDS, 2), (impl.CONST, types.int64, op), \
            (impl.ENUM, 3, False, _mode_rule("Reduce")), *_reduce_markers(src)
    return plan


def _reduce_data_block_plan(dst_reg, src_reg, mask, reduce_type=None, mode=None):
    if not (_regs_and_mask(dst_reg, src_reg, mask) and impl.enum_like(reduce_type) and impl.enum_like(mode)):
        return None
    return (impl.ARG, 0), (impl.ARG, 1), (impl.WORDS, 2), \
        (impl.ENUM, 3, impl.SUM, _reduce_type_rule("ReduceDataBlock")), (impl.ENUM, 4, impl.ZEROING, _ZEROING_ONLY), \
        *_reduce_markers(src_reg)


impl.direct_call(Reduce, ops.reduce, _reduce_plan)
impl.direct_call(ReduceMax, ops.reduce, _reduce_as(ops.MAX))
impl.direct_call(ReduceMin, ops.reduce, _reduce_as(ops.MIN))
impl.direct_call(ReduceSum, ops.reduce, _reduce_as(ops.SUM))
impl.direct_call(ReduceDataBlock, impl.reduce_data_block, _reduce_data_block_plan)


def _pair_reduce_plan(dst, src, mask, mode=None):
    """PairReduceElem as one call of reduce_data_block with its PAIR op (SPEC 7.6); `mode` ZEROING only."""
    if not (_regs_and_mask(dst, src, mask) and impl.enum_like(mode)):
        return None
    return (impl.ARG, 0), (impl.ARG, 1), (impl.WORDS, 2), (impl.CONST, types.int64, impl.PAIR), \
        (impl.ENUM, 3, impl.ZEROING, _PAIR_ZEROING_ONLY), *_reduce_markers(src)


_PAIR_ZEROING_ONLY = impl.EnumRule("PairReduceElem", "mode", MaskMergeMode, impl.ZEROING, impl.ZEROING,
                                   "MaskMergeMode.ZEROING (SPEC 7.4)", member_legal=_MERGE_LEGAL,
                                   member_values=(impl.ZEROING, impl.MERGING), value_name="MERGING")  # as _merging
impl.direct_call(PairReduceElem, impl.reduce_data_block, _pair_reduce_plan)


_MEM_BEFORE, _MEM_AFTER = (impl.EnumRule("LocalMemBar", name, MemType, min(MemType), max(MemType),
                                         "an aj.Reg.MemType")
                            for name in ("before", "after"))


def _barrier_form(before=None, after=None):
    """LocalMemBar in a VF: its two MemTypes checked as plain Python's as_enum checks them, then impl.barrier, which
    checks their pair (every barrier already holds: the emulator runs a VF's instructions one after another)."""
    if not (impl.enum_like(before) and impl.enum_like(after)):
        return None
    return impl.barrier, ((impl.ENUM, 0, MemType.VEC_ALL, _MEM_BEFORE), (impl.ENUM, 1, MemType.VEC_ALL, _MEM_AFTER))


_direct_forms(LocalMemBar, _barrier_form, ())


def _duplicate_form(dst, scalar=None, mask=None, mode=None, src_reg=None):
    """Duplicate (SPEC-2 11.3) as a direct call: lane 0 of a register (duplicate_lane0), or a number converted
    (D29; scalar_bits_of, before the mode as plain Python converts it) into every active lane (duplicate_bits).
    None: a call the overload _ol_duplicate compiles (the scalar given twice or missing, a bool) or no form.
    As an overload closure it compiled once per register kind, scalar type and mask type in every process (issue
    20: 12.8 s CPU of the cold test suite)."""
    if _absent(scalar) == _absent(src_reg) or not _is_reg_type(dst) or not impl.enum_like(mode) or \
            not (_absent(mask) or _is_mask_type(mask)) or _template_part(mode, src_reg):
        return None
    words = (impl.CONST, impl.MASK_WORDS, impl.ALL_LANES) if _absent(mask) else (impl.WORDS, 2)
    merging = impl.ENUM, 3, False, _DUPLICATE_MERGE_FLAG.rule
    source = 1 if _absent(src_reg) else 4
    if _is_reg_type((scalar, src_reg)[source == 4]):
        return ops.duplicate_lane0, ((impl.ARG, 0), (impl.ARG, source), words, merging)
    if source == 4 or isinstance(scalar, types.Boolean) or not isinstance(scalar, types.Number):
        return None
    bits = impl.CALL, ops.scalar_bits_of, ((impl.CONST, types.int64, ops.DUPLICATE), (impl.ARG, 0),
                                           (impl.SCALAR, 1))
    return ops.duplicate_bits, ((impl.ARG, 0), bits, words, merging)


_direct_forms(Duplicate, _duplicate_form, ())


def _template_part(mode, src_reg):
    """A HighLowPart where Duplicate's mode goes, or a HighLowPart or mode where its src_reg goes (the devkit's
    template arguments ported in order): no call, so the VF runs plain, which refuses it naming the argument."""
    def member_of(t, classes):
        return isinstance(t, types.IntEnumMember) and t.instance_class in classes
    return member_of(mode, (HighLowPart,)) or member_of(src_reg, (HighLowPart, MaskMergeMode))


@overload(Duplicate)
def _ol_duplicate(dst, scalar=None, mask=None, mode=0, src_reg=None):
    if _template_part(mode, src_reg):
        return None
    if _duplicate_form(dst, scalar, mask, None if isinstance(mode, int) else mode, src_reg) is not None:
        return None  # a direct call (_duplicate_form)
    _merge_flag = _DUPLICATE_MERGE_FLAG  # noqa: N806
    if not _is_reg_type(dst):
        return None  # a MaskReg's or UnalignReg's array written as a register's 264 bytes (plain Python refuses it)
    if _absent(scalar) == _absent(src_reg):
        def refuse(dst, scalar=None, mask=None, mode=0, src_reg=None):
            raise ParameterError("Duplicate", "scalar", "given twice or missing", "a scalar or a source register, "
                                 "once (positionally, scalar= or src_reg=)", DEVICE)
        return refuse
    if _is_reg_type(src_reg) or _is_reg_type(scalar):
        def from_reg(dst, scalar=None, mask=None, mode=0, src_reg=None):
            ops.duplicate_lane0(impl.borrow(dst), impl.borrow(_either(scalar, src_reg)), _words_or_all(mask),
                                _merge_flag(mode))
        return from_reg
    if not _absent(src_reg):
        return None  # src_reg= is a register (a typing error naming Duplicate)
    if isinstance(scalar, types.Boolean):  # refused when called, as plain Python refuses it (an AscendJitError)
        def refuse_bool(dst, scalar=None, mask=None, mode=0, src_reg=None):  # plain Python's words (D29)
            raise ParameterError("Duplicate", "scalar", scalar, (ops.BOOL_LEGAL, np.int64(dst[impl.H_KIND])),
                                 DEVICE)
        return refuse_bool
    if isinstance(scalar, types.Float):
        def from_float(dst, scalar=None, mask=None, mode=0, src_reg=None):
            ops.duplicate_bits(impl.borrow(dst),
                               ops.scalar_bits(impl.text("Duplicate"), dst[impl.H_KIND], np.float64(scalar),
                                               np.int64(0), True),
                               _words_or_all(mask), _merge_flag(mode))
        return from_float

    def from_int(dst, scalar=None, mask=None, mode=0, src_reg=None):
        ops.duplicate_bits(impl.borrow(dst),
                           ops.scalar_bits(impl.text("Duplicate"), dst[impl.H_KIND], 0.0, scalar, False),
                           _words_or_all(mask), _merge_flag(mode))
    return from_int


def _arange_form(dst, scalar, order=None):
    """Arange in a VF as a direct call of ops.arange (the index register, the scalar converted by D29 and broadcast,
    one call of Add's engine): the order checked first, then dst's dtype and the scalar, as plain Python checks
    them. A bool scalar is refused when called, as plain Python refuses it (an AscendJitError), a float one for an
    integer register by the conversion. As an overload closure it compiled once per register kind and scalar type
    in every process (issue 20)."""
    if not _is_reg_type(dst) or not isinstance(scalar, (types.Number, types.Boolean)) or not impl.enum_like(order):
        return None  # a typing error naming Arange
    return ops.arange, ((impl.ARG, 0), (impl.CONST, types.int64, _ARANGE_KINDS), (impl.ENUM, 2, False, _ARANGE_ORDER),
                        (impl.SCALAR, 1), *_marker_operands(_vf_markers(_binary_markers, dst)))


_direct_forms(Arange, _arange_form, ())


def _either(first, second):
    return first if second is None else second


@overload(_either, inline="always")
def _ol_either(first, second):
    """The argument given of two (Duplicate's scalar / src_reg), chosen at compile time."""
    if _absent(second):
        return lambda first, second: first
    return lambda first, second: second


# UnalignRegForLoad() / UnalignRegForStore() in a VF: direct calls of the kernels that make their states (as overload
# closures each compiled in every VF's process, with numba's allocation code; issue 20)
_direct_forms(UnalignRegForLoad, lambda: (mv.new_load_state, ()), ())
_direct_forms(UnalignRegForStore, lambda: (mv.new_store_state, ()), ())


# The unaligned moves in a VF are direct calls of their kernels (issue 20: as overloads each compiled a closure of its
# own per signature, 0.26-0.38 s, in every VF's first process). Operands that plain Python refuses by their types
# (another register's array, which the kernel would index past its end; a float offset) type no call: the VF runs
# plain, which refuses them. Offsets and steps reach the kernels as int64 values (INT operands), a uint64 above
# 2**63 - 1 as 2**63 - 1, which the kernels' int32 check refuses.
def _load_unalign_pre_form(ureg, tensor, offset=None):
    if not (_integers(offset) and _is_ureg_type(ureg) and isinstance(tensor, impl.TensorHandle)):
        return None
    return mv.load_unalign_pre, ((impl.ARG, 0), (impl.ARG, 1), (impl.INT, 2, 0))


def _load_unalign_form(reg, ureg, tensor, offset=None, post_update_stride=None):
    if not (_integers(offset, post_update_stride) and _is_reg_type(reg) and _is_ureg_type(ureg) and
            isinstance(tensor, impl.TensorHandle)):
        return None
    # has_step a run-time bool, not a literal (typed as one it compiled load_unalign once more per value, issue 20)
    return mv.load_unalign, ((impl.ARG, 0), (impl.ARG, 1), (impl.ARG, 2), (impl.INT, 3, 0), (impl.INT, 4, 0),
                             (impl.CONST, types.boolean, not _absent(post_update_stride)))


_direct_forms(LoadUnAlignPre, _load_unalign_pre_form, ())
_direct_forms(LoadUnAlign, _load_unalign_form, ())


def _load_lanes_form(reg, tensor, offset=None):
    if not (_integers(offset) and _is_reg_type(reg) and isinstance(tensor, impl.TensorHandle)):
        return None
    return mv.load_lanes, ((impl.ARG, 0), (impl.ARG, 1), (impl.INT, 2, 0))


_direct_forms(Load, _load_lanes_form, ())


@njit(cache=True, no_cfunc_wrapper=True)
def _refuse_missing_count():
    """StoreUnAlign without its count (post_update_stride), refused as plain Python refuses it."""
    raise ParameterError("StoreUnAlign", "post_update_stride", "missing", _STORE_COUNT, DEVICE)


def _store_unalign_form(tensor, reg, ureg, offset, post_update_stride=None):
    if _absent(post_update_stride):
        return _refuse_missing_count, ()
    if not (_integers(offset, post_update_stride) and _is_reg_type(reg) and _is_ureg_type(ureg) and
            isinstance(tensor, impl.TensorHandle)):
        return None
    return mv.store_unalign, ((impl.ARG, 0), (impl.ARG, 1), (impl.ARG, 2), (impl.INT, 3, 0), (impl.INT, 4, 0))


def _store_unalign_post_form(tensor, ureg, offset=None, post_update_stride=None):
    if not (_integers(offset, post_update_stride) and _is_ureg_type(ureg) and isinstance(tensor, impl.TensorHandle)):
        return None
    return mv.store_unalign_post, ((impl.ARG, 0), (impl.ARG, 1), (impl.INT, 2, 0), (impl.INT, 3, 0))


_direct_forms(StoreUnAlign, _store_unalign_form, ())
_direct_forms(StoreUnAlignPost, _store_unalign_post_form, ("post_update_stride",))  # None: no step, as plain


def _store_lanes_form(tensor, reg, offset=None, count=None):
    """Store in a VF as a direct call of mv.store_lanes (StoreUnAlign then StoreUnAlignPost, as plain Store calls
    them); None for an argument plain Python refuses (another register's array had been read past its end)."""
    if not (isinstance(tensor, impl.TensorHandle) and _is_reg_type(reg) and _integers(offset, count)):
        return None
    return mv.store_lanes, ((impl.ARG, 0), (impl.ARG, 1), (impl.INT, 2, 0),
                            (impl.INT, 3, 0, "Store", "count", mv._INT32), (impl.CONST, types.boolean, _absent(count)))


_direct_forms(Store, _store_lanes_form, ())


def _words_or_all(mask):
    return impl.ALL_LANES if mask is None else mask


@overload(_words_or_all)
def _ol_words_or_all(mask):
    if _absent(mask):
        return lambda mask: impl.ALL_LANES
    return lambda mask: impl.words(mask)


def _cast_kernel(dst, src, mask, trait=None):
    """Registers of literal dtypes name the pair: half/bfloat16 -> float calls the widening kernel alone (the trait
    is a run-time value: that kernel refuses one the pair does not accept); any other pair, or registers of
    run-time dtypes, cast."""
    widening = impl.register_kind(src) in (_HALF, _BF16) and impl.register_kind(dst) == _FLOAT
    return cv.cast_widening if widening else cv.cast


# the CastTrait fields' enums: a field that is another enum's member is refused (SPEC-2 11.5, 1.8), as plain Python's
# _trait refuses it; the values themselves the kernel checks against the pair's row (DK Cast.md tables 6-9)
_TRAIT_RULES = tuple(impl.EnumRule("Cast", f"trait.{name}", cls, min(cls), max(cls), None)
                     for name, cls in zip(CastTrait._fields, (RegLayout, SatMode, MaskMergeMode, RoundMode)))


def _cast_plan(dst, src, mask, trait=None):
    """Cast as one call of a Reg Cast kernel (_cast_kernel): the trait's four fields as ints (an absent trait: every
    field UNKNOWN, SPEC-2 11.5); cast's widening marker None when literal dtypes name another pair."""
    if not (_regs_and_mask(dst, src, mask) and impl.ints_like(trait, 4, CastTrait)):
        return None
    operands = ((impl.ARG, 0), (impl.ARG, 1), (impl.WORDS, 2)) + tuple(
        (impl.FIELD, 3, k, default, rule) for k, (default, rule) in enumerate(zip((0, 0, 2, 8), _TRAIT_RULES)))
    if _cast_kernel(dst, src, mask, trait) is cv.cast_widening:
        return operands
    src_kinds, dst_kinds = impl.register_kinds(src) or _ALL_KINDS, impl.register_kinds(dst) or _ALL_KINDS
    may_widen = _FLOAT in dst_kinds and (_HALF in src_kinds or _BF16 in src_kinds)
    return operands + _marker_operands((0 if may_widen else None,))


impl.direct_call(Cast, _cast_kernel, _cast_plan)


def _mask_logic_form(op, unary, mask_required=True):
    """A MaskReg operation (SPEC-2 11.7) on MaskReg operands as a direct call of mv.mask_logic (the op an int64
    constant: one compiled kernel for every op). As overload closures they compiled once per operation and operand
    types in every VF's process (issue 20). None for any other operands: the overload (_ol_logic) refuses a data
    register in plain Python's words, and a call it types neither runs the VF plain, which refuses it."""
    op_operand = impl.CONST, types.int64, op
    if unary:
        def form(dst, src, mask=None):
            if not (_is_mask_array(dst) and _is_mask_type(src)) or (mask_required and _absent(mask)) or \
                    not (_absent(mask) or _is_mask_type(mask)):
                return None
            words = (impl.CONST, impl.MASK_WORDS, impl.ALL_LANES) if _absent(mask) else (impl.WORDS, 2)
            return mv.mask_logic, ((impl.ARG, 0), (impl.WORDS, 1), (impl.WORDS, 1), words, op_operand)
        return form

    def form(dst, src0, src1, mask):
        if not (_is_mask_array(dst) and _is_mask_type(src0) and _is_mask_type(src1) and _is_mask_type(mask)):
            return None
        return mv.mask_logic, ((impl.ARG, 0), (impl.WORDS, 1), (impl.WORDS, 2), (impl.WORDS, 3), op_operand)
    return form


def _ol_logic(name, unary):
    """And/Or/Xor/Not given a data register, or Not without its mask: refused when called, in plain Python's words
    (_not_offered, SPEC-2 14; Not's mask is required). MaskReg operands are _mask_logic_form's direct call."""
    def register_operand(operands):
        return next((param for param, t in operands if _is_reg_type(t)), None)
    if unary:
        def typer(dst, src, mask=None):
            param = register_operand((("dst", dst), ("src", src)))
            if param is not None:
                def refuse(dst, src, mask=None):
                    raise ParameterError(name, param, "an aj.Reg.RegTensor", _NOT_OFFERED, DEVICE)
                return refuse
            if _is_mask_array(dst) and _absent(mask):
                def no_mask(dst, src, mask=None):
                    raise ParameterError(name, "mask", "NoneType", "an aj.Reg.MaskReg", DEVICE)
                return no_mask
            return None
        return typer

    def typer(dst, src0, src1, mask):
        param = register_operand((("dst", dst), ("src0", src0), ("src1", src1)))
        if param is None:
            return None

        def refuse(dst, src0, src1, mask):
            raise ParameterError(name, param, "an aj.Reg.RegTensor", _NOT_OFFERED, DEVICE)
        return refuse
    return typer


for _name, _op in (("And", mv.LOGIC_AND), ("Or", mv.LOGIC_OR), ("Xor", mv.LOGIC_XOR)):
    _direct_forms(globals()[_name], _mask_logic_form(_op, False), ())
    overload(globals()[_name])(_ol_logic(_name, False))
_direct_forms(Not, _mask_logic_form(mv.LOGIC_NOT, True), ())
overload(Not)(_ol_logic("Not", True))


def _select_form(dst, src0, src1, mask):
    """Select on MaskRegs (SPEC-2 11.7) or on data registers (DK R/比较与选择/Select.md), by dst's type: a direct
    call of its kernel (as an overload, a closure compiled per signature in every VF's process, issue 20)."""
    if _is_reg_type(dst):
        if not (_is_reg_type(src0) and _is_reg_type(src1) and _is_mask_type(mask)):
            return None  # a MaskReg's words read as a register's bytes: plain Python refuses it
        return ops.select, ((impl.ARG, 0), (impl.ARG, 1), (impl.ARG, 2), (impl.WORDS, 3))
    if not (_is_mask_array(dst) and _is_mask_type(src0) and _is_mask_type(src1) and _is_mask_type(mask)):
        return None  # plain Python refuses it (_write_mask, _mask)
    return mv.mask_logic, ((impl.ARG, 0), (impl.WORDS, 1), (impl.WORDS, 2), (impl.WORDS, 3),
                           (impl.CONST, types.int64, mv.LOGIC_SELECT))


_direct_forms(Select, _select_form, ())


_direct_forms(MaskSel, _mask_logic_form(mv.LOGIC_SELECT, False), ())  # the MaskReg Select, as plain MaskSel


@overload(MaskSel)
def _ol_mask_sel(dst, src0, src1, mask):
    """MaskSel given a data register: refused when called, as in Python (MaskRegs: the direct call above)."""
    param = next((p for p, t in (("dst", dst), ("src0", src0), ("src1", src1)) if _is_reg_type(t)), None)
    if param is None:
        return None

    def refuse(dst, src0, src1, mask):
        raise ParameterError("MaskSel", param, "an aj.Reg.RegTensor", _MASK_SEL_OPERANDS, DEVICE)
    return refuse


@njit(cache=True, no_cfunc_wrapper=True)
def _check_copy_kinds(dst, src):
    """Copy's first check in a VF, before its mode (plain Python's order: the types, then the mode): one register
    type. The kind and its code as the refusal's value and legal text: the error names both dtypes as plain Python's
    refusal does (errors._named_kinds, _named_legal); ops.select would name Select."""
    if dst[impl.H_KIND] != src[impl.H_KIND]:
        raise UnsupportedDTypeError("Copy", "dst kind", np.int64(dst[impl.H_KIND]),
                                    (np.int64(src[impl.H_KIND]), _COPY_KIND_LEGAL), DEVICE)


def _copy_form(dst, src, mask=None, mode=None):
    """Copy in a compiled VF as a direct call of ops.select(dst, src, dst, mask) after its two checks, in plain
    Python's order (CHECK operands): the register kinds (_check_copy_kinds), then the mode (_COPY_MODE_READ's rule).
    As an overload closure it compiled once per mask and mode type in every VF's process (17 in the test suite, 0.4 s
    each; issue 20). None, so the VF runs plain and refuses in plain Python's words: a MaskReg operand, registers
    whose possible kinds share none, a float mode (as_enum names the float)."""
    kinds = impl.register_kinds(dst), impl.register_kinds(src)
    if not (_is_reg_type(dst) and _is_reg_type(src)) or (None not in kinds and not set(kinds[0]) & set(kinds[1])) or \
            not impl.enum_like(mode) or not (_absent(mask) or _is_mask_type(mask)):
        return None
    words = (impl.CONST, impl.MASK_WORDS, impl.ALL_LANES) if _absent(mask) else (impl.WORDS, 2)
    return ops.select, ((impl.CHECK, (impl.CALL, _check_copy_kinds, ((impl.ARG, 0), (impl.ARG, 1)))),
                        (impl.CHECK, (impl.ENUM, 3, impl.MERGING, _COPY_MODE_READ.rule)),
                        (impl.ARG, 0), (impl.ARG, 1), (impl.ARG, 0), words)


_direct_forms(Copy, _copy_form, ())


def _python_type_name(t):
    """The Python type name plain Python's _reg reports for an argument compiled code typed as t."""
    if _is_mask_type(t):
        return "MaskReg"
    if _is_reg_type(t):
        return "RegTensor"
    if isinstance(t, impl.TensorHandle):
        return "LocalTensor"
    for numba_class, name in ((types.NoneType, "NoneType"), (types.Boolean, "bool"), (types.Integer, "int"),
                              (types.Float, "float"), (types.UnicodeType, "str"), (types.Tuple, "tuple"),
                              (types.UniTuple, "tuple")):
        if isinstance(t, numba_class):
            return name
    return str(t)


_MASK_MOVE_FORM = _mask_logic_form(mv.LOGIC_MOVE, True, mask_required=False)


def _move_form(dst, src, mask=None, mode=None):
    """Move on data registers is Copy (_copy_form: the mode MERGING when not given); on MaskRegs the MaskReg move
    (SPEC-2 11.7), which takes no mode (given one, no call: the VF runs plain, which refuses it). Direct calls, as
    Copy's and the MaskReg operations' (issue 20)."""
    if _is_reg_type(dst):
        return _copy_form(dst, src, mask, mode)
    return _MASK_MOVE_FORM(dst, src, mask) if _absent(mode) else None


_direct_forms(Move, _move_form, ())


def _not_a_mask(operands):
    """(name, plain Python's type name) of the first operand (name, numba type) that is no MaskReg, else None: the
    refusal plain Python's _mask / _write_mask raises. A data register had been read and written as a word array
    (Pack/UnPack, MaskPack/MaskUnPack)."""
    return next(((p, _python_type_name(t)) for p, t in operands if not _is_mask_type(t)), None)


def _pack_form(api, kernel):
    """Pack/UnPack on MaskRegs as a direct call of its kernel, the part read by _HIGHEST_PART's rule (a flag: "part
    is HIGHEST"); as overload closures they compiled per part type in every VF's process (issue 20). None for any
    other operands: _ol_pack_unpack refuses them in plain Python's words."""
    rule = _HIGHEST_PART[api].rule

    def form(dst, src, part=None):
        if not (_is_mask_array(dst) and _is_mask_type(src) and impl.enum_like(part)):
            return None
        return kernel, ((impl.ARG, 0), (impl.WORDS, 1), (impl.ENUM, 2, False, rule))
    return form


def _ol_pack_unpack(api, kernel):
    """Pack/UnPack given an operand that is no MaskReg: refused when called, in plain Python's order (src, the part,
    then dst); a float part refused as plain Python's as_enum refuses it."""
    highest = _HIGHEST_PART[api]
    form = _pack_form(api, kernel)

    def typer(dst, src, part=0):
        if isinstance(part, types.NoneType):  # part=None: plain Python refuses it; the reader takes it as absent
            return None
        if form(dst, src, None if isinstance(part, int) else part) is not None:
            return None  # the direct call
        refused = _not_a_mask((("src", src), ("dst", dst)))
        if refused is None:
            if isinstance(part, types.Float) and _is_mask_array(dst):
                def refuse_part(dst, src, part=0):
                    highest(part)
                return refuse_part
            return None
        param, value = refused
        t = src if param == "src" else dst
        pair = isinstance(t, types.BaseTuple) and len(t) == 2 and _is_mask_type(t[0])
        legal = _mask_legal_of(api, "data register" if _is_reg_type(t) else "UpdateMask pair" if pair else None)
        if param == "dst":
            def refuse_dst(dst, src, part=0):
                highest(part)
                raise ParameterError(api, param, value, legal, DEVICE)
            return refuse_dst

        def refuse(dst, src, part=0):
            raise ParameterError(api, param, value, legal, DEVICE)
        return refuse
    return typer


for _name, _kernel in (("Pack", mv.pack), ("UnPack", mv.unpack)):
    _direct_forms(globals()[_name], _pack_form(_name, _kernel), ())
    overload(globals()[_name])(_ol_pack_unpack(_name, _kernel))


def _interleave_form(inverse):
    """Interleave/DeInterleave of a dtype known when the VF compiles (a literal or a dtype-name argument's class) as
    a direct call of mv.interleave, the group size from interleave_group (which refuses a b64 type naming the API);
    as overload closures they compiled per dtype in every VF's process (issue 20). None: the overload (a name read at
    run time), or no call (operands plain Python refuses: the VF runs plain)."""
    def form(dst0, dst1, src0, src1, dtype):
        kind = _kind_operand(dtype, 4)
        if kind is None or not (_is_mask_array(dst0) and _is_mask_array(dst1) and _is_mask_type(src0) and
                                _is_mask_type(src1)):
            return None
        flag = impl.CONST, types.boolean, inverse
        return mv.interleave, ((impl.ARG, 0), (impl.ARG, 1), (impl.WORDS, 2), (impl.WORDS, 3),
                               (impl.CALL, ops.interleave_group, (kind, flag)), flag)
    return form


def _ol_interleave(inverse):
    api = "DeInterleave" if inverse else "Interleave"
    form = _interleave_form(inverse)

    def typer(dst0, dst1, src0, src1, dtype):
        if form(dst0, dst1, src0, src1, dtype) is not None or not (_is_mask_array(dst0) and _is_mask_array(dst1)):
            return None  # the direct call, or plain Python refuses them (_interleave)

        def impl_(dst0, dst1, src0, src1, dtype):
            # np.bool_: the closure's constant typed as a literal compiled both kernels once per direction
            mv.interleave(impl.borrow(dst0), impl.borrow(dst1), impl.words(src0), impl.words(src1),
                          ops.interleave_group(_vf_kind(dtype, api), np.bool_(inverse)), np.bool_(inverse))
        return impl_
    return typer


for _name, _inverse in (("Interleave", False), ("DeInterleave", True)):
    _direct_forms(globals()[_name], _interleave_form(_inverse), ())
    overload(globals()[_name], prefer_literal=True)(_ol_interleave(_inverse))


def _move_mask_form(dtype):
    """MoveMask of a dtype known when the VF compiles as a direct call (as an overload closure it compiled per dtype
    in every VF's process, issue 20); None: the overload (a name read at run time). The words a tuple, or with
    impl.MASK_ARRAYS a word array (move_mask_register), as UpdateMask's (_update_mask_form)."""
    kind = _kind_operand(dtype, 0)
    return None if kind is None else (mv.move_mask_register if impl.MASK_ARRAYS[0] else mv.move_mask_in_vf, (kind,))


_direct_forms(MoveMask, _move_mask_form, ())


@overload(MoveMask, prefer_literal=True)
def _ol_move_mask(dtype):
    """MoveMask in a compiled VF reads the register simd_vf passes in (jit/reg_move.py MOVE_MASK_STATE); a dtype known
    when the VF compiles is _move_mask_form's direct call."""
    if _move_mask_form(dtype) is not None:
        return None
    return lambda dtype: mv.move_mask_in_vf(_vf_kind(dtype, "MoveMask"))


def _uses(fn, *names):
    """Whether a VF's code (a function nested in it, or a simd_callee it reaches) uses any of this module's `names`,
    by that name or any other that reaches it (`CM = R.CreateMask` at module level, a closure cell) (MoveMask:
    simd_vf then passes the core's vector mask register in on every call; UnalignRegForStore: simd_vf checks that
    none it made ends pending; the mask makers: simd_vf may compile the VF with their masks as word arrays)."""
    targets = [globals()[name] for name in names]
    for f in (fn, *_callees(fn)):
        used, reached = _reached(f)
        if not used.isdisjoint(names) or any(v is t for _, v in reached for t in targets):
            return True
    return False


@register_pass(mutates_CFG=False, analysis_only=True)
class _RefuseFloatRange(FunctionPass):
    """A VF's (or simd_callee's) `range()` of a float fails to compile, as Python's range refuses it: numba converts
    the float to an int (a truncation Python never makes), so a compiled VF ran `range(500 / 64)` seven times where
    its plain run raised TypeError (port53g: a `/` written for `//`; the compiled and plain runs give the same
    results, issue 16). The failed compile runs the VF plain, which raises Python's error (simd_vf's
    run_uncompiled). numba types every branch, so a float range() in a branch never taken makes the VF run plain
    too, with its warning."""
    _name = "ascend_jit_refuse_float_range"

    def __init__(self):   # numba's CompilerPass declares __init__ abstract
        FunctionPass.__init__(self)

    def run_pass(self, state):
        typemap = state.typemap
        for block in state.func_ir.blocks.values():
            for stmt in block.body:
                value = getattr(stmt, "value", None)
                if not (isinstance(value, ir.Expr) and value.op == "call"):
                    continue
                callee = typemap.get(value.func.name)
                if isinstance(callee, types.Function) and callee.typing_key is range and \
                        any(isinstance(typemap.get(a.name), (types.Float, types.Complex)) for a in value.args):
                    raise TypingError("ascend_jit refuses range() of a float in compiled code, as Python does (a "
                                      "loop count written with / where // was meant?)", loc=stmt.loc)
        return False


class _VFCompiler(CompilerBase):
    """numba's nopython pipeline with _RefuseFloatRange after type inference (VFs and their simd_callee helpers)."""

    def define_pipelines(self):
        pipeline = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pipeline.add_pass_after(_RefuseFloatRange, NopythonTypeInference)
        pipeline.finalize()
        return [pipeline]


def simd_callee(fn):
    """`__simd_callee__`: a helper function a VF calls (Ascend C's `__simd_callee__`). Called from a compiled VF it
    compiles into the VF (with the argument types of that call); called from a VF running as plain Python (`py_func`,
    a sanitizing core, NUMBA_DISABLE_JIT) it runs as the plain Python function it is, so both give the same bits.
    A callee may call the Reg API and other callees, and is defined before the VFs that call it (simd_vf looks
    into it then). Returns fn itself."""
    if not inspect.isfunction(fn):
        raise ParameterError("simd_callee", "fn", type(fn).__name__, legal="a Python function (def)", device=DEVICE)
    if not getattr(fn, "__simd_callee__", False):
        def typer(*args, **kwargs):
            return fn  # numba compiles fn itself for the call's types; Python calls of fn stay Python
        typer.__signature__ = inspect.signature(fn)  # numba checks that the typer and fn take the same parameters
        overload(fn, jit_options={"pipeline_class": _VFCompiler})(typer)
        # the template numba made for it (the last registered for fn): _compile_with_mask_arrays empties its caches.
        # Not an attribute of fn: numba pickles a callee a closure reaches, and a template holds compiled code
        _CALLEE_TEMPLATES[fn] = next(t for f, t in reversed(builtin_registry.globals) if f is fn).templates[0]
        fn.__simd_callee__ = True
    return fn


_CALLEE_TEMPLATES = {}   # a simd_callee function -> its numba overload template (which numba's registry keeps too)


def _callees(fn):
    """The functions whose code a compiled VF holds besides its own: the simd_callee functions and the Python
    functions of the numba-compiled helpers (`@numba.njit`, which a VF calls compiled) that fn reaches, named by its
    code as globals (or `module.name`) or held in its closure, and those their own code reaches (the VF cache key
    hashes them; _uses looks into them)."""
    found, todo = {}, [fn]
    while todo:
        f = todo.pop()
        for _, v in _reached(f)[1]:
            if isinstance(v, Dispatcher):
                v = v.py_func
            elif getattr(v, "__simd_callee__", False) is not True:
                continue
            if v not in found and v is not fn:
                found[v] = None
                todo.append(v)
    return list(found)


def _reached(f):
    """The names f's code uses, and the (name, object) pairs they reach: its globals, those names' attributes of the
    modules among them, of the modules among those and so on (`R.UpdateMask`, `package.module.helper`), and its
    closure's cells (by their free variable names)."""
    names = _code_names(f.__code__)
    reached = [(n, f.__globals__.get(n)) for n in names]
    modules, seen = [v for _, v in reached if isinstance(v, ModuleType)], set()
    while modules:
        module = modules.pop()
        if id(module) in seen:
            continue
        seen.add(id(module))
        found = [(n, getattr(module, n, None)) for n in names]
        reached += found
        modules += [v for _, v in found if isinstance(v, ModuleType)]
    reached += [(n, _cell_value(c)) for n, c in zip(f.__code__.co_freevars, f.__closure__ or ())]
    return names, reached


def _constants_read(f):
    """The values numba freezes into f's machine code from outside it, as text equal in every process: the numbers,
    strings, enum members, numpy scalars and arrays (and tuples of these) its names reach (a module constant of
    another file, `cfg.STEP`, or one bound by `from cfg import STEP`, or computed at import from the environment),
    by name, sorted. The files' bytes do not show them."""
    return tuple(sorted({(n, text) for n, v in _reached(f)[1] if (text := _constant_text(v)) is not None}))


def _constant_text(v):
    """A constant's type and value as text (an array's dtype, shape and bytes' SHA-256), or None for other objects."""
    if isinstance(v, tuple):
        texts = [_constant_text(x) for x in v]
        return None if None in texts else f"({', '.join(texts)})"
    if isinstance(v, np.ndarray) and not v.dtype.hasobject:  # an object array's bytes are addresses
        return f"ndarray {v.dtype.str} {v.shape} {hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest()}"
    if v is None or isinstance(v, (bool, int, float, complex, str, bytes, np.generic, enum.Enum)):
        return f"{type(v).__qualname__} {v!r}"
    return None


def _code_names(code):
    """The global and attribute names a code object (and the functions nested in it) uses."""
    return set(code.co_names).union(*(_code_names(c) for c in code.co_consts if hasattr(c, "co_names")))


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:  # a cell not filled yet (a name the function binds later)
        return None


def _code_fingerprint(code):
    """What a code object computes, as a value equal in every process that compiles the same source: marshal's bytes
    are not (it marks an object that has other references at the moment it writes, so a callee numba had compiled
    once more, as the mask-array retry does, gave other bytes, and a set constant's order follows the process's
    string hash seed): the bytecode, names, flags and constants, nested code objects in turn, sets sorted."""
    def constant(c):
        if isinstance(c, CodeType):
            return _code_fingerprint(c)
        if isinstance(c, tuple):
            return tuple(constant(x) for x in c)
        if isinstance(c, frozenset):
            return "frozenset", tuple(sorted(repr(constant(x)) for x in c))
        return type(c).__name__, repr(c)
    return (code.co_code, getattr(code, "co_exceptiontable", b""), code.co_names, code.co_varnames,
            code.co_freevars, code.co_cellvars, code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
            code.co_flags, tuple(constant(c) for c in code.co_consts))


def _callee_stamp(fn):
    """What a cached VF's machine code depends on beyond numba's check of its own file (modification time and size):
    its file's bytes, every callee's code, defaults and source file's bytes, and the constants each of them reads
    from outside its code (_constants_read: numba freezes their values). Bytes, not the file's time and
    size, which a same-size edit within one timestamp tick (or a copy that keeps the time) leaves as they were: a
    module constant a callee reads is frozen into the VF's code. In a fixed order (the callees of one qualname, a
    factory's, are found in the order of a set of names, which follows the process's string hash seed)."""
    parts = [(fn.__module__, fn.__qualname__, _file_digest(fn.__code__.co_filename), _constants_read(fn))]
    for callee in _callees(fn):
        parts.append((callee.__module__, callee.__qualname__, repr(callee.__defaults__),
                      hashlib.sha256(repr(_code_fingerprint(callee.__code__)).encode()).hexdigest(),
                      _file_digest(callee.__code__.co_filename), _constants_read(callee)))
    return parts[0], tuple(sorted(parts[1:], key=repr))


def _file_digest(filename):
    """The SHA-256 of a source file's bytes (None: no file to read, as for code made by exec)."""
    try:
        return hashlib.sha256(pathlib.Path(filename).read_bytes()).hexdigest()
    except OSError:
        return None


def _pass_mask_register():
    """Fill MOVE_MASK_STATE from the current core as plain MoveMask reads it (or say which refusal applies)."""
    state = mv.MOVE_MASK_STATE
    try:
        core = current_core("MoveMask")
    except StateError:
        state[0] = mv.MM_NO_CORE
        return
    if core.spec.name != DEVICE:
        state[0] = mv.MM_OTHER_DEVICE
    elif not core.mask_defined:
        state[0] = mv.MM_UNDEFINED
    elif core.counter_mode:
        state[0] = mv.MM_COUNTER
    else:
        state[1], state[2], state[0] = core.mask_low, core.mask_high, mv.MM_READY


def asc_vf_call(vf, *args):
    """`asc_vf_call<vf>(args...)`: run a VF (compiled by simd_vf, or a plain function) with its arguments. A plain
    function runs as one VF, as C++ `asc_vf_call<f>` makes f one: plain Python, with a VF's checks and, on a
    sanitizing core, a VF's extent (port57c: called as it was, its store then load in one VF had been taken for
    two VFs, which the device orders, and 'device-sync' hid the race LocalMemBar must close)."""
    if inspect.isfunction(vf) and not hasattr(vf, "py_func"):   # simd_vf's callables are functions with a py_func
        vf = _plain_vf(vf)   # made per call: a plain VF's Reg calls cost far more
    return vf(*args)


_INT64_MIN, _INT64_MAX = -2**63, 2**63 - 1
# numpy scalars numba has no Reg overloads for (GetValue of a half or bfloat16 tensor returns one): passed to a
# compiled VF as Python floats, the same value; a NaN, whose payload a float does not keep, runs the VF plain
# (docs/decisions.md "Reg API"). ml_dtypes' bfloat16 only once ml_dtypes is imported: no value is one before.
def _narrow_float_scalars():
    bfloat16 = loaded_bfloat16()
    return (np.float16,) if bfloat16 is None else (np.float16, bfloat16)


# numba passes a np.float32 on as a float too, and the compiled scalar conversion writes its NaN as the canonical
# one: a float32 NaN runs the VF plain as well, which keeps the payload D29 asks for a float register
def _payload_nan_scalars():
    return (*_narrow_float_scalars(), np.float32)

_MISS = object()  # what a planned call returns when its arguments do not fit its plan


def _no_plan(args):
    return _MISS


# A compiled VF holds a RegTensor as its uint8 byte array, a MaskReg as a uint64 word array and an unaligned register
# as an int64 state array, all of a size the kernels assume; a numpy array of those element types given to a VF has
# the same numba type, so a Reg call would read and write it as a register, past its end (plain Python refuses it:
# not a RegTensor). Such a call runs the VF plain, as a NaN half scalar does (docs/decisions.md "Reg API").
_REGISTER_ARRAY_DTYPES = (np.dtype(np.uint8), np.dtype(np.uint64), np.dtype(np.int64))


@functools.lru_cache(maxsize=256)
def _other_dtype_spelling(name):
    """Whether plain Python's dtypes.resolve reads `name` (none of _KIND_NAMES) as a dtype or names it an
    out-of-scope type (SPEC-2 D28, its own refusal): the VF runs plain for it. Any other string stays a string in
    compiled code (a VF may compare it), refused as a dtype as plain Python refuses it (_kind_of_name)."""
    try:
        resolve(name)
    except AscendJitError:
        return _d28_name(name) is not None
    return True


def _runs_plain(args):
    """Whether a VF call's arguments hold values numba cannot pass on: a NaN's payload (bits a float does not carry,
    D29), an int no 64-bit type holds, an array compiled code would take for a register (_REGISTER_ARRAY_DTYPES).
    The plain run takes them as plain Python does (SPEC-2 11.1: identical results; a Reg call refuses the array).
    A string plain Python reads as a dtype that is none of the 13 spellings compiled code knows runs plain too
    (_other_dtype_spelling: "HALF", "int32_t", "f2" are half and int32 registers in plain Python; compiled code
    refused them).
    One loop that tests the cheap type first: it runs on every call no plan takes (a given UnalignRegForStore)."""
    payload_nan_scalars = _payload_nan_scalars()
    for a in args:
        kind = type(a)
        if kind is int:
            if not _INT64_MIN <= a <= UINT64_MAX:
                return True
        elif isinstance(a, str):
            if a not in _KIND_NAMES and _other_dtype_spelling(a):
                return True
        elif kind in payload_nan_scalars:
            if a != a:
                return True
        elif isinstance(a, np.ndarray) and a.dtype in _REGISTER_ARRAY_DTYPES:
            return True
    return False


def _convert_vf_args(api, args):
    """The generic conversion of a VF call's arguments: (converted list, [(MaskReg, word array)], whether the call
    may get a plan: every argument's numba type follows from its Python type)."""
    converted, masks, tensors, plannable = list(args), [], [], True
    narrow_float_scalars = _narrow_float_scalars()
    for i, a in enumerate(args):
        kind = type(a)
        if kind is LocalTensor:
            tensors.append(i)
        elif kind is str and a in _KIND_NAMES:
            converted[i] = _DTYPE_NAME_ARGS[a]
        elif kind is RegTensor:
            converted[i] = a.data
        elif kind is MaskReg:  # a mutable word array, written back after the call (D63)
            # one array per MaskReg object: one passed in two positions is one register to the VF, as in plain
            # Python (SPEC-2 11.1); two copies lost the write through the one written back first
            words = next((w for m, w in masks if m is a), None)
            if words is None:
                masks.append((a, np.array(a.words, np.uint64)))
                words = masks[-1][1]
            converted[i] = words
        elif kind is UnalignRegForLoad or kind is UnalignRegForStore:
            converted[i] = a.state
            plannable = plannable and kind is UnalignRegForLoad  # a given store ureg is checked after the call (D68)
        elif isinstance(a, LocalTensor):  # subclasses
            tensors.append(i)
            plannable = False
        elif kind is int and a > _INT64_MAX:  # typed uint64 outright: numba would pass it to an int64 VF and overflow
            converted[i] = np.uint64(a)
            plannable = False
        elif kind in narrow_float_scalars:
            converted[i] = float(a)
        elif not (kind is bool or kind is float or kind is int or _typed_by_type(kind) or _plain_struct(a)):
            plannable = False
    if tensors:
        _vf_handles(api, args, converted, tensors)
    return converted, masks, plannable


# numpy scalars numba types by their Python type alone (a float32 NaN runs the VF plain: _runs_plain; a plan misses it)
_NUMPY_SCALAR_TYPES = frozenset((np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                                 np.uint64, np.float32, np.float64))


def _typed_by_type(kind):
    """Whether numba types every VF argument of Python type `kind` alike, so that a plan (_planned_call) can pass it
    on after a type test: a numpy scalar of _NUMPY_SCALAR_TYPES or an IntEnum member (a MaskMergeMode, RoundMode:
    numba's IntEnumMember of the class). Such arguments had no plan, and numba's dispatcher typed an enum member by
    walking its whole class on every call: 16 us a VF call (port65d: a merge mode passed as a template argument)."""
    return kind in _NUMPY_SCALAR_TYPES or (isinstance(kind, type) and issubclass(kind, enum.IntEnum))


def _plain_struct(value):
    """Whether `value` is a NamedTuple (a Reg SpecificMode, a CastTrait) of bools, int64 ints and IntEnum members:
    numba types it by its class and its fields' Python types, which a plan's key holds (_plan_key)."""
    fields = getattr(type(value), "_fields", None)
    return isinstance(value, tuple) and fields is not None and all(
        type(f) is bool or (type(f) is int and _INT64_MIN <= f <= _INT64_MAX) or isinstance(f, enum.IntEnum)
        for f in value)   # not a numpy scalar: a float32 NaN field would lose its payload to a plan (review65)


def _is_dtype_object(value):
    """A numpy dtype, a numpy scalar type or an emulator DType: plain Python takes one as a VF's dtype argument (the
    Reg calls resolve it), compiled code takes dtype names only, so the call runs plain (SPEC-2 11.1: identical
    results; a name would differ where the VF compares its argument)."""
    return isinstance(value, (np.dtype, DType)) or (isinstance(value, type) and issubclass(value, np.generic))


def _numba_reason(error):
    """The line of a numba compile error that says what failed (its first line only names the pipeline step)."""
    if not isinstance(error, NumbaError):   # numba's typing failed outside its own error types
        text = f"{type(error).__name__} in numba's typing{': ' + str(error) if str(error) else ''}"
        # numba folds a NamedTuple's keyword arguments only when every earlier field is given (an assert)
        return text + ("; a Reg struct built with keywords (DivSpecificMode(precisionMode=True)) compiles written "
                       "with its fields in order" if isinstance(error, AssertionError) else "")
    lines = [line.strip() for line in re.sub(r"\x1b\[[0-9;]*m", "", str(error)).splitlines()]
    reasons = [line for line in lines if line and not line.startswith(("Failed in", "During:"))]
    if not reasons:
        return lines[0] if lines else type(error).__name__
    if "yield in a closure" in reasons[0]:   # port53e: numba's words name neither the construct nor the line
        return (f"{reasons[0].rstrip('.')}: a generator expression, e.g. `a, b = (R.RegTensor(T) for _ in "
                "range(2))`, compiles written out as `a, b = R.RegTensor(T), R.RegTensor(T)`")
    if "Untyped global name" in reasons[0] and "<class 'function'>" in reasons[0]:
        # port58e: a plain helper function (a ceil_div) called in a VF: say what compiles
        return (f"{reasons[0].rstrip('.')}: a function a VF calls compiles with it when decorated @aj.Reg.simd_callee "
                "(C++'s __simd_callee__), or is one of the package's (aj.CeilDivision, aj.DivCeil, aj.AlignUp, ...)")
    if "Unknown attribute" in reasons[0] and "of type TensorHandle" in reasons[0]:
        # port66a: C++ casts a `__ubuf__` pointer inside the VF; here the tensor is reinterpreted before the call
        offered = (f"{reasons[0].rstrip('.')}: a tensor in a compiled VF offers t[i], len, GetSize, GetLength and "
                   "GetPhyAddr")
        if "'ReinterpretCast'" in reasons[0]:
            return (offered + "; reinterpret it outside and pass that (`vf(t.ReinterpretCast(\"int64\"), ...)`: the "
                    "same bytes as the other type)")
        return offered
    if reasons[0].endswith(":") and len(reasons) > 1:   # "No implementation of ... found for signature:" says which
        reason = f"{reasons[0]} {reasons[1]}"             # call on the next line (">>> Div(..., DivSpecificMode(...))")
        # C++'s sizeof(T) ported as numpy's np.dtype(T).itemsize: say what compiles
        if "dtype(dtype_name" in reasons[1]:
            return reason + "; for C++'s sizeof(T) write aj.sizeof(T)"
        # port68a: a slice of a tensor in a VF (C++'s end pointer `x.GetPhyAddr() + n`, x[n:] here)
        if "getitem(TensorHandle, slice" in reasons[1]:
            return reason + ("; a slice t[a:b] of a tensor does not compile in a VF (its refusals name the tensor's "
                             "dtype and position, which a compiled VF does not hold): write t[a], or pass the tensor "
                             "and an integer offset and index where the VF reads")
        # port67b: C++ passes nullptr for a tensor only an `if constexpr` branch reads; numba types every branch
        if re.search(r"[(,] ?none\b", reasons[1]):
            return reason + ("; a VF compiles every branch for the arguments' types, also one a C++ `if constexpr` "
                             "would discard: in place of a None (C++'s nullptr) pass any tensor of the type, "
                             "which that branch then never reads")
        return reason
    return reasons[0]


def _plan_key(args, kinds):
    """The key of a VF call's plan: the tuple of its arguments' Python types (`kinds`), a dtype name's DTypeName
    class in its str's place (a plan per kind; the VF compiles per dtype class, jit/reg.py DTypeNameType, so
    the plans of one class's kinds call one entry) and a NamedTuple's class with its fields' types (_plain_struct:
    DivSpecificMode(ZEROING, False) and DivSpecificMode(ZEROING, 1) are two numba types)."""
    if str not in kinds and not any(issubclass(k, tuple) for k in kinds):
        return kinds
    return tuple(type(_DTYPE_NAME_ARGS.get(a, a)) if k is str else
                 (k, tuple(map(type, a))) if issubclass(k, tuple) and hasattr(k, "_fields") else k
                 for a, k in zip(args, kinds))


def _planned_call(api, kinds, key, entry, note):
    """A function of the argument tuple that checks each argument's type, converts it as _convert_vf_args would
    and calls `entry` (numba's compiled entry point for those types; `key` holds a dtype name's DTypeName class in
    its str's place; `note` adds _note_compiled_refusal's note to a refusal it raises); _MISS when an argument does
    not fit (another type, a dtype name that is none or of another kind, an int beyond int64, a core whose CTRL
    changed: the slow path handles it).
    Written out per tuple of types, as straight code: a loop over the arguments costs more than the VF's work."""
    names = [f"a{i}" for i in range(len(kinds))]
    body = [f"    if len(args) != {len(kinds)}:", "        return MISS"]
    if names:
        body.append(f"    {', '.join(names)}, = args")
    body += [f"    if type({n}) is not K{i}:\n        return MISS" for i, n in enumerate(names)]
    out, write_back, memo_read, modes_set, mask_positions = [], [], False, False, []
    narrow_float_scalars = _narrow_float_scalars()
    for i, (n, kind) in enumerate(zip(names, kinds)):
        if kind is LocalTensor:
            if not memo_read:  # the memo of the first tensor's core, if that core's state is the memo's
                body += [f"    core = {n}._core", "    memo = core.__dict__.get('_reg_handles')",
                         "    if memo is None or memo[0] != core.ctrl or memo[1] != core.bounds:",
                         "        return MISS", "    handles = memo[2]"]
                memo_read = True
            body += [f"    e = handles.get(id({n}))",
                     f"    {n} = e[{VF_HANDLE}] if e is not None and e[0] is {n} and ({n}._lease is None or {n}._lease.alive) else "
                     f"HANDLE(API, {n}, {VF_HANDLE})"]
            if not modes_set:  # SPEC-2 11.1: the registers the VF makes carry its first tensor's core's modes
                body.append(f"    VF_MODES[0] = {n}[3]")
                modes_set = True
        elif kind is str:
            body += [f"    {n} = NAMES.get({n})", f"    if type({n}) is not D{i}:", "        return MISS"]
        elif kind is RegTensor:
            body.append(f"    {n} = {n}.data")
        elif kind is MaskReg:  # the array of an earlier position holding the same object, as _convert_vf_args
            words = "np.array({n}.words, np.uint64)"
            for j in reversed(mask_positions):
                words = f"w{j} if {n} is a{j} else ({words})"
            body.append(f"    w{i} = {words.format(n=n)}")
            write_back.append(f"    {n}.words = tuple(w{i})")
            mask_positions.append(i)
            n = f"w{i}"
        elif kind is UnalignRegForLoad or kind is UnalignRegForStore:
            body.append(f"    {n} = {n}.state")
        elif kind is int:
            body += [f"    if not INT64_MIN <= {n} <= INT64_MAX:", "        return MISS"]
        elif kind in narrow_float_scalars:
            body += [f"    if {n} != {n}:", "        return MISS", f"    {n} = float({n})"]  # a NaN: slow_call
        elif kind is np.float32:   # a NaN runs the VF plain (_runs_plain): its payload
            body += [f"    if {n} != {n}:", "        return MISS"]
        elif isinstance(key[i], tuple):   # a NamedTuple of the plan's field types (_plain_struct), int64 ints
            body += [f"    if tuple(map(type, {n})) != D{i}[1]:", "        return MISS"]
            body += [f"    if not INT64_MIN <= {n}[{j}] <= INT64_MAX:\n        return MISS"
                     for j, field in enumerate(key[i][1]) if field is int]
        out.append(n)
    if not modes_set:
        body.append("    VF_MODES[0] = CURRENT_MODES(API)")
    body += ["    try:", f"        result = ENTRY({', '.join(out)})", "    except AscendJitError as error:",
             "        NOTE(error)", "        raise"]
    if write_back:  # also when the VF raises: its MaskRegs hold what it wrote first, as plain Python's do
        body += ["    finally:", *("    " + line for line in write_back)]
    body.append("    return result")
    namespace = {"MISS": _MISS, "NAMES": _DTYPE_NAME_ARGS, "HANDLE": tensor_handle, "API": api, "ENTRY": entry,
                 "AscendJitError": AscendJitError, "NOTE": note,
                 "VF_MODES": impl.VF_MODES, "CURRENT_MODES": _vf_current_modes,
                 "INT64_MIN": _INT64_MIN, "INT64_MAX": _INT64_MAX, "np": np,
                 **{f"K{i}": kind for i, kind in enumerate(kinds)}, **{f"D{i}": k for i, k in enumerate(key)}}
    source = compile("def planned(args):\n" + "\n".join(body), _PLANNED_FILE, "exec")
    exec(source, namespace)  # noqa: S102 (our own generated source)
    return namespace["planned"]


_PLANNED_FILE = "<ascend_jit planned VF call>"


def _note_compiled_refusal(error, fn):
    """A refusal the compiled VF raised gets a note naming the VF and how to see the refusing line: its traceback ends
    in the library function that raised, with no frame of the VF's own (port52c: of three Casts in a VF, the
    traceback could not tell which one was refused)."""
    note = (f"raised inside the compiled VF {fn.__qualname__} ({fn.__code__.co_filename}:"
            f"{fn.__code__.co_firstlineno}): {fn.__name__}.py_func(...) runs it as plain Python, whose traceback "
            "names the VF's line that raised")
    if note not in getattr(error, "__notes__", ()):
        error.add_note(note)


def _compiled_for(compiled, converted):
    """Whether numba holds compiled code of the VF for these (converted) arguments."""
    try:
        return tuple(compiled.typeof_pyval(a) for a in converted) in compiled.overloads
    except Exception:   # an argument numba cannot type: nothing was compiled for it
        return False


class _VFCache(FunctionCache):
    """numba's on-disk function cache, keyed also on the ascend_jit implementation stamp, the VF's callees and its
    module's name: the cached code imports that module by name to rebuild the VF's globals, and numba's index is per
    source file, so one file imported under two names (`kernels.gelu_reg` and the gallery's own loader) loaded the
    other name's entry and failed with ModuleNotFoundError."""

    def _index_key(self, sig, codegen):
        return super()._index_key(sig, codegen) + (implementation_stamp(), _callee_stamp(self._py_func),
                                                   self._py_func.__module__)


# What a compiled VF reads from the process rather than from its arguments: the overflow modes of the registers it
# makes (jit/reg.py VF_MODES), the core's mask register for MoveMask (MOVE_MASK_STATE) and the count of pending
# unaligned stores (PENDING_STORES). A call sets them, runs the VF and checks them as one step under this lock while
# blocks of a parallel launch run in threads (launch.py PARALLEL_LAUNCHES), so a block never reads another block's
# state (a VF holds the GIL while it runs: the lock costs no parallelism). Re-entrant: a VF running uncompiled may
# call another. Threads of your own calling VFs at once hold it too (docs/decisions.md "Reg API").
VF_STATE_LOCK = threading.RLock()
_UNLOCKED = contextlib.nullcontext()


def _vf_dispatcher(fn):
    """numba's dispatcher of a VF, with the VF cache when it can have one."""
    # called from Python only (as the package's kernels)
    compiled = njit(fn, no_cfunc_wrapper=True, pipeline_class=_VFCompiler)
    # numba's cached code names the VF's module, which a later process imports by name to rebuild the VF's globals:
    # a module that is not registered under its name (a file exec'd by hand) would fail there, so it compiles per
    # process instead
    if sys.modules.get(fn.__module__) is not None:
        try:
            compiled._cache = _VFCache(fn)
        except RuntimeError:  # numba finds no place for the cache (no source file): compile per process
            pass
    return compiled


def _compile_with_mask_arrays(dispatcher, converted):
    """Compile a VF for these arguments with its UpdateMask / CreateMask / MoveMask masks made as word arrays, the
    type of MaskReg() (jit/reg.py MASK_ARRAYS): for a VF that writes into such a mask, which as a tuple it cannot.
    Under numba's compiler lock, so that no other compile types those calls so. The result is cached as the VF's
    code for these argument types: a later process loads it on the VF's first call, compiling neither form. None, or
    the error when numba cannot compile it (the plain run's reason, run_uncompiled)."""
    try:
        signature = tuple(dispatcher.typeof_pyval(a) for a in converted)
        if signature in dispatcher.overloads:  # compiled (or loaded from the cache) by an earlier call
            return None
        # a callee typed for these argument types in the first, tuple-mask attempt is remembered by numba's overload
        # template as compiled then (its UpdateMask returning a tuple into a MaskReg() variable: port59c's MaskReg&
        # out-parameter): the callees compile again for this compile, and their first forms come back after it
        templates = [_CALLEE_TEMPLATES[f] for f in _callees(dispatcher.py_func) if f in _CALLEE_TEMPLATES]
        with global_compiler_lock:
            saved = [(t, dict(t._impl_cache), dict(t._compiled_overloads)) for t in templates]
            impl.MASK_ARRAYS[0] = True
            try:
                for t in templates:
                    t._impl_cache.clear()
                dispatcher.compile(signature)
            finally:
                impl.MASK_ARRAYS[0] = False
                for t, impls, compiled in saved:
                    t._impl_cache.clear()
                    t._impl_cache.update(impls)
                    t._compiled_overloads.clear()
                    t._compiled_overloads.update(compiled)
    except Exception as error:  # noqa: BLE001 - numba's typing error, or another failure of its typing
        return error
    return None


def simd_vf(fn):
    """Compile a VF function (a `__simd_vf__` body written with aj.Reg calls) with numba.

    LocalTensor arguments become UB handles (only ascend950 tensors are accepted) and dtype names become kind
    codes (numba dispatches ints far faster than strings); other arguments pass as they are. `f.py_func` is the
    uncompiled function, for stepping through in a debugger.

    The compiled VF is cached on disk (numba's cache, NUMBA_CACHE_DIR) when `fn` lives in a source file: a later
    process loads it instead of compiling. A VF without a source file (typed at an interactive prompt, exec'd)
    compiles in every process. `f.cached` tells which."""
    plain = _plain_vf(fn)
    if numba.config.DISABLE_JIT:  # NUMBA_DISABLE_JIT=1: the VF runs as plain Python on the objects themselves
        plain.py_func = plain
        return plain
    compiled = _vf_dispatcher(fn)
    # the VF compiled with its UpdateMask / CreateMask / MoveMask masks made as word arrays, made when it does not
    # type with them as tuples (_compile_with_mask_arrays); then tried first
    arrays = [None] if _uses(fn, "UpdateMask", "CreateMask", "MoveMask") else []

    # A call converts its arguments (tensors to UB handles, dtype names to kind codes, registers to their arrays)
    # and runs the compiled VF. The first call with a tuple of argument types writes a straight-line converter for
    # that tuple which ends in the entry point numba compiled for it (_planned_call), so later calls skip both the
    # generic conversion loop and numba's dispatcher: together they cost more than the loop of a typical VF.
    plans, last, warned = {}, [_no_plan], set()
    note = functools.partial(_note_compiled_refusal, fn=fn)

    def slow_call(args):
        kinds = tuple(map(type, args))
        key = _plan_key(args, kinds)
        plan = plans.get(key)
        if plan is not None:
            last[0] = plan
            result = plan(args)
            if result is not _MISS:
                return result
        if _runs_plain(args):
            return plain(*args)
        dtype_object = next((a for a in args if _is_dtype_object(a)), None)
        if dtype_object is not None:
            return run_uncompiled(args, kinds, key, TypeError(
                f"a dtype given as {dtype_object!r}: compiled, a VF takes a dtype by its name, e.g. \"half\""))
        converted, masks, plannable = _convert_vf_args(fn.__name__, args)
        impl.VF_MODES[0] = _vf_core_modes(fn.__name__, args)  # SPEC-2 11.1: the modes of the registers it makes
        result = None
        if arrays and arrays[0] is not None:  # the VF needed its masks as arrays: so for these arguments too
            runner = arrays[0]
            compile_error = _compile_with_mask_arrays(runner, converted)
        else:
            runner, compile_error = compiled, None
        if compile_error is None:
            result, compile_error = run_compiled(runner, converted, masks)
        if compile_error is not None and arrays and runner is compiled:
            # masks made as tuples may be what does not type (a destination, a MaskReg() variable assigned one)
            runner = arrays[0] = _vf_dispatcher(fn)
            compile_error = _compile_with_mask_arrays(runner, converted)
            if compile_error is None:
                result, compile_error = run_compiled(runner, converted, masks)
            else:
                arrays[0] = None
        if compile_error is not None:
            return run_uncompiled(args, kinds, key, compile_error)
        _check_store_uregs(fn.__name__, [a for a in args if type(a) is UnalignRegForStore])  # D68 (given ones)
        if plannable and plan is None:
            signature = tuple(runner.typeof_pyval(a) for a in converted)
            plans[key] = last[0] = _planned_call(fn.__name__, kinds, key, runner.overloads[signature].entry_point,
                                                 note)
        return result

    def run_compiled(runner, converted, masks):
        """(the VF's result, None), or (None, the error) when numba cannot compile it for these arguments."""
        try:
            return runner(*converted), None
        except NumbaError as error:  # typing: nothing ran (the words written back below are the MaskRegs' own)
            return None, error
        except Exception as error:
            if _compiled_for(runner, converted):
                note(error)   # its refusal, or its own Python error (port60i: a ZeroDivisionError named no line)
                raise
            return None, error  # numba's typing failed otherwise (an AssertionError for a NamedTuple keyword)
        finally:  # also when the VF raises: its MaskRegs hold what it wrote first, as plain Python's do
            for mask, words in masks:
                mask.words = tuple(words)

    def run_uncompiled(args, kinds, key, compile_error):
        # numba cannot compile the VF for these arguments (an argument or a call it has no typing for): the plain
        # run gives the user the refusal it makes (an AscendJitError, as the same VF run plain raises); a VF that
        # runs plain stays plain for these argument types, with one warning (docs/decisions.md "Reg API")
        try:
            result = plain(*args)
        except AscendJitError:
            raise
        except Exception as error:   # the VF's own Python error (port53c: range() of a float count), said as Python
            error.add_note(f"ascend_jit: the VF {fn.__qualname__} ran as plain Python, which raised this; it does "
                           f"not compile either ({_numba_reason(compile_error)})")
            raise
        if kinds not in warned:  # one warning per tuple of Python types, not per dtype name's kind of it
            warned.add(kinds)
            warnings.warn(f"ascend_jit: the VF {fn.__qualname__} runs as plain Python for arguments of types "
                          f"{[k.__name__ for k in kinds]}: it does not compile ({_numba_reason(compile_error)})",
                          UncompiledVFWarning, stacklevel=4)
        # checked by key, not by Python types alone: the VF may compile for another kind of the same spelling type
        # (registers of two known kinds that Copy refuses, say), so this plan must not run a call of that kind plain
        plans[key] = last[0] = lambda args: plain(*args) if _plan_key(args, tuple(map(type, args))) == key else _MISS
        return result

    parameters = inspect.signature(fn)
    positional = len(parameters.parameters)

    @functools.wraps(fn)
    def call(*args, **keywords):
        if keywords or len(args) != positional:  # keywords and defaults as Python binds them, then by position
            bound = parameters.bind(*args, **keywords)
            bound.apply_defaults()
            args = bound.args
        if SANITIZING and (any(isinstance(a, LocalTensor) and a.core.sanitizer is not None or
                               MARKING and type(a) in (RegTensor, MaskReg) and a._lane_shadow is not None or
                               type(a) is MaskReg and a._fresh is not None for a in args) or
                           _plain_vf_sanitizer() is not None):
            # issue 17: run uncompiled, so every UB access reports (same bits: issue 16's contract), and a register
            # carrying marks of uninitialised bytes has them carried through (lane_shadow.py; a VF given registers
            # alone, as a @simd_vf helper called from a VF, ran compiled and left them stale), or a MaskReg no
            # instruction wrote is followed; a VF called from one running uncompiled on a sanitizing core too, so
            # the registers it makes are followed (review 58)
            return plain(*args)
        if PARALLEL_LAUNCHES.users:  # blocks in threads: the VF's process-wide state set and read as one step
            with VF_STATE_LOCK:
                result = last[0](args)
                return slow_call(args) if result is _MISS else result
        result = last[0](args)
        return slow_call(args) if result is _MISS else result

    if _uses(fn, "UnalignRegForStore"):
        checked = call

        @functools.wraps(fn)
        def call(*args, **keywords):  # SPEC-2 11.6, D68: no UnalignRegForStore the VF made may hold pending bytes
            with VF_STATE_LOCK if PARALLEL_LAUNCHES.users else _UNLOCKED:  # at its end
                return _checked_stores(args, keywords)

        def _checked_stores(args, keywords):
            given = [*args, *keywords.values()]
            before = int(mv.PENDING_STORES[0]) - sum(1 for a in given if type(a) is UnalignRegForStore and a.state[1])
            result = checked(*args, **keywords)  # refuses a pending UnalignRegForStore passed in (now all empty)
            made = int(mv.PENDING_STORES[0]) - before
            if made > 0:
                raise StateError(fn.__name__, "UnalignRegForStore", f"{made} made in the VF with bytes pending",
                                 legal="empty when the VF returns: StoreUnAlignPost writes the pending bytes "
                                       "(SPEC-2 11.6, D68)", device=DEVICE)
            return result

    if _uses(fn, "MoveMask"):
        run = call

        @functools.wraps(fn)
        def call(*args, **keywords):  # SPEC-2 11.7: MoveMask reads the current core's register, passed in for
            with VF_STATE_LOCK if PARALLEL_LAUNCHES.users else _UNLOCKED:  # this call only
                _pass_mask_register()
                try:
                    return run(*args, **keywords)
                finally:
                    mv.MOVE_MASK_STATE[0] = mv.MM_NOT_PREPARED

    call.py_func = plain
    call.compiled = compiled
    call.cached = isinstance(compiled._cache, _VFCache)
    return call



# --- devkit names the emulator does not offer (SPEC-2 14) -------------------------------------------------------------
# Looked up on aj.Reg (kernels ported from ops-nn / ops-math arch35 sources use them), they are a NotOfferedError
# saying why and what to use, not a bare AttributeError (reg38 counted their uses in those sources).
_NOT_OFFERED_HERE = "not offered (SPEC-2 14: not in the brief's Reg API list)"
_NOT_OFFERED_NAMES = {
    **dict.fromkeys(("Compare", "Compares", "CompareScalar"), f"{_NOT_OFFERED_HERE}; compare with the Memory API's "
                    "Compare/Compares/CompareScalar before the VF (a bit per element in a uint8 tensor, zeroed first, "
                    "of at least ceil(R / k) * 32 bytes for the VF's R repeats: each load below reads 32; the "
                    "Compare's count is the VF's rounded up to whole 256-byte blocks, SPEC-2 D44, so its source "
                    "holds R * 256 bytes) "
                    "and load the bits into a MaskReg inside it, one bit at each lane's first byte as a Reg compare "
                    "leaves them: for repeat i of a k-byte type, aj.Reg.LoadAlign(mask, bits, (i // k) * 32) "
                    "(DIST_NORM: the 32 bytes holding k repeats' bits), then for k = 2 MaskUnPack(mask, mask, "
                    "HighLowPart.HIGHEST if i is odd else LOWEST), for k = 4 twice: HIGHEST if i % 4 >= 2, then "
                    "HIGHEST if i is odd; use it for Select or any masked operation. A value the VF computes "
                    "(port62a: GeluGradV2's NaN test of its own result) is compared so by splitting the VF: store "
                    "the value (StoreAlign), end the VF, Compare in the Memory API, and load the bits in the next "
                    "VF; Max / Min propagate NaN (SPEC-2 D41), so no in-VF arithmetic replaces a NaN test"),
    **dict.fromkeys(("CreateAddrReg", "AddrReg"), "AddrReg forms are written with the loads' and stores' `offset` "
                    "(SPEC-2 14, D68): LoadAlign(reg, src, offset), and StoreAlign(dst, reg, mask, offset) with the "
                    "offset after the mask, where C++ puts a store's AddrReg before it"),
    "RegTraitNumOne": "RegTensor(dtype) is the one-register tensor (the devkit's default trait): leave the trait out",
    "RegTraitNumTwo": f"two-register b64 tensors are {_NOT_OFFERED_HERE}; RegTensor('int64') is the one-register "
                      "form, 32 lanes (SPEC-2 11.1): a loop the source steps by VECTOR_REG_WIDTH_2XVL / sizeof(T) (64 "
                      "elements) steps by 32 here, its UpdateMask counts 32 a register",
    **dict.fromkeys(("Gather", "GatherB", "Scatter", "DataCopyGather", "DataCopyScatter"),
                    f"{_NOT_OFFERED_HERE}; gather with the Memory API's aj.Gather(dst, src, offsets, base, count) "
                    "before the VF (per element a uint32 byte offset into src, 4 bytes of UB each, which a tiling "
                    "sized for index registers may have to make room for) and load the gathered tensor inside it; "
                    "a scatter: the Memory API's element-wise SetValue, or a DataCopyPad per run"),
    "UnalignReg": "the devkit's one unaligned register type (vector_align, which UnalignRegForLoad and "
                  "UnalignRegForStore alias there) is two here, as each keeps its own state (SPEC-2 11.6): declare "
                  "aj.Reg.UnalignRegForLoad() for the unaligned loads and aj.Reg.UnalignRegForStore() for the "
                  "stores",
    **dict.fromkeys(("Histograms", "Mull", "Truncate", "AddC", "SubC", "MaskGenWithRegTensor"),
                    _NOT_OFFERED_HERE),
    # the squeeze example's register forms (SPEC-2 14: AR-register / Squeeze StoreUnAlign variants)
    **dict.fromkeys(("Squeeze", "ClearSpr", "SpecialPurposeReg"), _NOT_OFFERED_HERE),
    # the arch35 sources' register-amount shifts and data-block max (port40pe)
    **dict.fromkeys(("ShiftLeft", "ShiftRight"), f"{_NOT_OFFERED_HERE}; the Memory API's ShiftLeft / ShiftRight "
                    "shift a tensor outside the VF"),
    **{f"Reduce{op.title()}WithDataBlock": f"the devkit's ReduceDataBlock<ReduceType::{op}> under another name: "
       f"write aj.Reg.ReduceDataBlock(dst, src, mask, aj.Reg.ReduceType.{op})" for op in ("SUM", "MAX", "MIN")},
    "PairReduce": "PairReduceElem's template argument has one value, PairReduce::SUM, which is what "
                  "aj.Reg.PairReduceElem(dst, src, mask) computes: leave the argument out",
    # port66d: ten ops-nn arch35 files write the intrinsic `plt_b32(sreg, POST_UPDATE)` that UpdateMask wraps
    **dict.fromkeys(("plt_b8", "plt_b16", "plt_b32", "plt_b64", "POST_UPDATE"),
                    "the CCE intrinsic under UpdateMask: `plt_bN(sreg, POST_UPDATE)` is `mask, sreg = "
                    "aj.Reg.UpdateMask(T, sreg)` with T of N bits (min(sreg, 256 / sizeof(T)) lanes active, sreg "
                    "less that many; SPEC-2 11.7)"),
}


__getattr__ = not_offered_lookup(__name__, "Reg.", _NOT_OFFERED_NAMES, DEVICE)
