"""`aj.Reg`: the Ascend 950 Reg (SIMD register) API: RegTensor, MaskReg, UpdateMask, CreateMask, LoadAlign,
StoreAlign, ReduceDataBlock (SPEC 7; D3, D5, D20, D25), and `simd_vf` to compile a VF function with numba.

The same calls work in plain Python (for debugging) and inside a `@simd_vf` function (compiled): plain Python
passes RegTensor / MaskReg / LocalTensor objects, compiled code passes their array forms; both end in the same
implementations (jit/reg.py), so results are identical. Only `ascend950` offers this API.
"""
import enum
import functools
import hashlib
import pathlib

import numba
import numpy as np
from numba import njit, types
from numba.core.caching import FunctionCache
from numba.extending import overload

from .core import current_core
from .dtypes import resolve
from .errors import ParameterError, StateError, UnsupportedDeviceError
from .jit import reg as impl
from .tensor import LocalTensor

DEVICE = "ascend950"


class ReduceType(enum.IntEnum):
    SUM = impl.SUM
    MAX = impl.MAX
    MIN = impl.MIN


class MaskMergeMode(enum.IntEnum):
    ZEROING = impl.ZEROING
    MERGING = impl.MERGING


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


class RegTensor:
    """A 256-byte vector register of one element type (SPEC 7.1): 128 b16, 64 b32 lanes."""

    def __init__(self, dtype):
        self.dtype = resolve(dtype, "RegTensor")
        self.data = impl.new_register(self.dtype.kind)

    def numpy(self):
        """The register's lanes as a host array."""
        return self.data[:impl.VL].view(self.dtype.np_dtype).copy()

    def __repr__(self):
        return f"RegTensor({self.dtype.name})"


class MaskReg:
    """A 256-bit predicate register: bit i predicates register byte i (SPEC 7.1)."""

    def __init__(self, words=(0, 0, 0, 0)):
        self.words = tuple(np.uint64(w) for w in words)

    def lanes(self, dtype):
        """Indices of the active lanes for elements of `dtype`."""
        size = resolve(dtype).size
        return [j for j in range(impl.VL // size) if impl.lane_on(self.words, j * size)]

    def __repr__(self):
        return f"MaskReg({', '.join(hex(int(w)) for w in self.words)})"


jit_lane_on = impl.lane_on  # bit test of a MaskReg for lane byte i (tests and tools)


def _kind(dtype, api):
    return resolve(dtype, api).kind


def _device_check(api, core):
    if core.spec.name != DEVICE:
        raise UnsupportedDeviceError(api, "device", core.device, legal=DEVICE,
                                     detail="the Reg API exists on the Ascend 950 only (SPEC 7)")


def _reg(api, name, r):
    if not isinstance(r, RegTensor):
        raise ParameterError(api, name, type(r).__name__, legal="an aj.Reg.RegTensor", device=DEVICE)
    return r


def _ub_address(api, tensor, offset):
    if not isinstance(tensor, LocalTensor):
        raise ParameterError(api, "tensor", type(tensor).__name__, legal="a LocalTensor", device=DEVICE)
    tensor.check_alive(api)
    _device_check(api, tensor.core)
    return tensor.core, tensor.addr + int(offset) * tensor.dtype.size


# --- plain-Python entry points (the debugging path) -----------------------------------------------------------
def UpdateMask(dtype, n):
    """`mask, n = UpdateMask(dtype, n)`: the lowest min(n, VL_T) lanes; n decremented (SPEC 7.2)."""
    if not isinstance(n, (int, np.integer)) or not 0 <= n <= 2**32 - 1:
        raise ParameterError("UpdateMask", "n", n, legal="[0, 2**32-1] (uint32)", device=DEVICE)
    words, rest = impl.update_mask(_kind(dtype, "UpdateMask"), int(n))
    return MaskReg(words), rest


def CreateMask(dtype, pattern=MaskPattern.ALL):
    return MaskReg(impl.create_mask(_kind(dtype, "CreateMask"), int(MaskPattern(pattern))))


def LoadAlign(reg, tensor, offset=0):
    """`LoadAlign(reg, tensor, offset)`: VL bytes from tensor's address + offset elements (32-byte aligned)."""
    core, addr = _ub_address("LoadAlign", tensor, offset)
    impl.load_align(_reg("LoadAlign", "reg", reg).data, core.ub, addr, core.half_saturating)


def StoreAlign(tensor, reg, mask, offset=0):
    """`StoreAlign(tensor, reg, mask, offset)`: the active lanes of reg to tensor's address + offset elements."""
    core, addr = _ub_address("StoreAlign", tensor, offset)
    if not isinstance(mask, MaskReg):
        raise ParameterError("StoreAlign", "mask", type(mask).__name__, legal="an aj.Reg.MaskReg", device=DEVICE)
    impl.store_align(core.ub, addr, _reg("StoreAlign", "reg", reg).data, mask.words)


def ReduceDataBlock(dst_reg, src_reg, mask, reduce_type=ReduceType.SUM, mode=MaskMergeMode.ZEROING):
    """Per 32-byte block of src_reg, the SUM/MAX/MIN of the active lanes into dst_reg lane b (SPEC 7.5)."""
    try:
        core = current_core("ReduceDataBlock")
    except StateError:
        core = None
    if core is not None:
        _device_check("ReduceDataBlock", core)
    if not isinstance(mask, MaskReg):
        raise ParameterError("ReduceDataBlock", "mask", type(mask).__name__, legal="an aj.Reg.MaskReg", device=DEVICE)
    impl.reduce_data_block(_reg("ReduceDataBlock", "dst_reg", dst_reg).data,
                           _reg("ReduceDataBlock", "src_reg", src_reg).data, mask.words, int(ReduceType(reduce_type)),
                           int(MaskMergeMode(mode)))


# --- the same names inside @simd_vf functions ------------------------------------------------------------------
@njit(cache=True)
def _kind_of_name(name):
    if name == "half" or name == "float16":
        return 0
    if name == "float" or name == "float32":
        return 1
    if name == "int16":
        return 5
    if name == "uint16":
        return 6
    if name == "int32":
        return 7
    if name == "uint32":
        return 8
    raise ParameterError("RegTensor", "dtype", name, "half, float, int16, uint16, int32, uint32", DEVICE)


@njit(cache=True)
def _kind_of_code(code):
    return code


def _kind_resolver(dtype):
    """Compiled code names a dtype by kind code (what simd_vf passes) or by string (a literal in the VF)."""
    return _kind_of_code if isinstance(dtype, types.Integer) else _kind_of_name


@overload(RegTensor)
def _ol_regtensor(dtype):
    kind_of = _kind_resolver(dtype)
    return lambda dtype: impl.new_register(kind_of(dtype))


@overload(UpdateMask)
def _ol_update_mask(dtype, n):
    kind_of = _kind_resolver(dtype)
    return lambda dtype, n: impl.update_mask(kind_of(dtype), n)


@overload(CreateMask)
def _ol_create_mask(dtype, pattern=0):
    kind_of = _kind_resolver(dtype)
    return lambda dtype, pattern=0: impl.create_mask(kind_of(dtype), pattern)


@overload(LoadAlign)
def _ol_load_align(reg, tensor, offset=0):
    def load(reg, tensor, offset=0):  # tensor: (ub, byte address, element size, half saturating)
        impl.load_align(reg, tensor[0], tensor[1] + offset * tensor[2], tensor[3])
    return load


@overload(StoreAlign)
def _ol_store_align(tensor, reg, mask, offset=0):
    def store(tensor, reg, mask, offset=0):
        impl.store_align(tensor[0], tensor[1] + offset * tensor[2], reg, mask)
    return store


@overload(ReduceDataBlock)
def _ol_reduce_data_block(dst_reg, src_reg, mask, reduce_type=0, mode=0):
    def reduce(dst_reg, src_reg, mask, reduce_type=0, mode=0):
        impl.reduce_data_block(dst_reg, src_reg, mask, reduce_type, mode)
    return reduce


_VF_DTYPES = {name: resolve(name).kind for name in ("half", "float16", "float", "float32", "int16", "uint16", "int32",
                                                  "uint32")}


def _implementation_stamp():
    """A hash of the sources compiled into every VF (this module, jit/, errors.py): part of a VF's cache key, so a
    cached VF is never reused after ascend_jit's implementation changed (numba itself only checks the user's file)."""
    root = pathlib.Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted([root / "reg.py", root / "errors.py", *(root / "jit").glob("*.py")]):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


class _VFCache(FunctionCache):
    """numba's on-disk function cache, keyed also on the ascend_jit implementation stamp."""
    stamp = None

    def _index_key(self, sig, codegen):
        if _VFCache.stamp is None:
            _VFCache.stamp = _implementation_stamp()
        return super()._index_key(sig, codegen) + (_VFCache.stamp,)


def simd_vf(fn):
    """Compile a VF function (a `__simd_vf__` body written with aj.Reg calls) with numba.

    LocalTensor arguments become UB handles (only ascend950 tensors are accepted) and dtype names become kind
    codes (numba dispatches ints far faster than strings); other arguments pass as they are. `f.py_func` is the
    uncompiled function, for stepping through in a debugger.

    The compiled VF is cached on disk (numba's cache, NUMBA_CACHE_DIR) when `fn` lives in a source file: a later
    process loads it instead of compiling. A VF without a source file (typed at an interactive prompt, exec'd)
    compiles in every process. `f.cached` tells which."""
    if numba.config.DISABLE_JIT:  # NUMBA_DISABLE_JIT=1: the VF runs as plain Python on the objects themselves
        fn.py_func = fn
        return fn
    compiled = njit(fn)
    try:
        compiled._cache = _VFCache(fn)
    except RuntimeError:  # numba finds no place for the cache (no source file): compile per process
        pass

    @functools.wraps(fn)
    def call(*args):
        converted = []
        for a in args:
            if isinstance(a, LocalTensor):
                a.check_alive(fn.__name__)
                _device_check(fn.__name__, a.core)
                converted.append((a.core.ub, a.addr, a.dtype.size, a.core.half_saturating))
            elif isinstance(a, str) and a in _VF_DTYPES:
                converted.append(_VF_DTYPES[a])
            else:
                converted.append(a)
        return compiled(*converted)

    call.py_func = fn
    call.compiled = compiled
    call.cached = isinstance(compiled._cache, _VFCache)
    return call

