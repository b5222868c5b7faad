"""Core: one AI Core's Unified Buffer (flat uint8), the CTRL bits that matter here, and the vector mask register.

Cores are independent objects; `with core:` makes one the current core of this thread for the module-level state
calls (`aj.SetVectorMask(...)`), so ported kernel code runs unchanged and threads never share state.
"""
import enum
import os
import sys
import threading
import weakref

import numpy as np

from . import dtypes as dt
from .devices import COUNT_LEAVES_TAIL, COUNT_UNTOUCHED, get_device
from .errors import OutOfBoundsError, ParameterError, StateError, UnsupportedDeviceError
from .sanitizer import Sanitizer, default_config as default_sanitize_config, resolve_config as resolve_sanitize_config
from .sync import SyncState

ALL_ONES = (1 << 64) - 1
CTRL_HALF_INF_NAN = 48   # D6: CTRL[48] 1 = INF/NaN, 0 = saturating (half)
CTRL_INT_SATURATE = 53   # D6 / audit 7: CTRL[53] 1 = int16/int32 saturate, 0 = wrap
CTRL_COUNTER_MODE = 56   # SPEC 2.6: CTRL[56] 1 = counter mode
CTRL_CAST_TRUNCATE = 59  # SPEC-2 D46: CTRL[59] 1 = conversions to integers keep the low bits, 0 = saturate
CTRL_GLOBAL_SATURATION = 60  # SPEC 5.2, SPEC-2 D46: the 950's CTRL[60] (default 1): 1 = CTRL[48] / CTRL[59] apply;
# 0 = per instruction: the Memory Cast saturates, Reg Cast follows its trait, arithmetic is INF/NaN
SAT_HALF_FLAG, SAT_INT_FLAG = 1, 2  # Core.overflow_flags bits = the element-wise kernels' SAT_HALF / SAT_INT


# Tensor bounds (issue 11, decisions.md "Tensor bounds"): "tensor" = every byte a call touches through an operand lies
# inside that operand's tensor; "ub" = only the UB limit applies (kernels that rely on the hardware's laxity).
BOUNDS_RULES = ("tensor", "ub")


class MaskMode(enum.Enum):
    NORMAL = 0
    COUNTER = 1


class SaturationMode(enum.Enum):
    FLOAT = 0   # half (and bf16 on A2/A3) compute results
    CAST = 1    # conversions to integer types: CTRL[59] (SPEC-2 D46)
    INT = 2     # int16/int32 compute results (CTRL[53]; devkit code, audit 7)


def continuous_mask_words(length):
    """SPEC 2.2: continuous mask `length` -> (high, low) words, as AscendCUtils::SetMask(len) builds them."""
    if length >= 128:
        return ALL_ONES, ALL_ONES
    if length == 64:
        return 0, ALL_ONES
    if length > 64:
        return (1 << (length - 64)) - 1, ALL_ONES
    return 0, (1 << length) - 1


def set_mask_words(length, lanes):
    """The (high, low) words a continuous-mask call writes to the mask register: AscendCUtils::SetMask<T>(len) takes
    the length as given, not clamped (SPEC 1.5): 64 gives the low word, the type's own lanes per repeat or 128 and
    more give all ones, and a float call with mask 100 leaves lanes 0..99 set for a later 16-bit call that reads the
    register (D22). The call itself computes on the clamped mask (D15)."""
    if length != 64 and length == lanes:
        return ALL_ONES, ALL_ONES
    return continuous_mask_words(length)


def count_call_effect(spec, last_mask_len):
    """What a count-form call leaves in the mask register (SPEC 2.6, D22): None when the device leaves it untouched,
    else (high word, low word, whether the call also restores Normal mode). last_mask_len: the lanes of the call's
    last repeat. A pure function of the device and the count, so memoised call plans compute it once."""
    effect = spec.count_mask_effect
    if effect == COUNT_UNTOUCHED:
        return None
    if effect == COUNT_LEAVES_TAIL:
        return (*continuous_mask_words(last_mask_len), False)
    return ALL_ONES, ALL_ONES, True


_current = threading.local()


class _UnifiedBufferPool:
    """The UB arrays of cores that are gone, zeroed again for new ones. A fresh np.zeros UB page-faults as its kernel
    first touches it, and with many cores alive at once (a 48-block launch) the allocator maps each anew: about 55 us
    a core, 3 ms of a 48-block launch's 3.5 ms when its kernel does nothing. A recycled array costs one memset.
    A core's UB comes back when the core is collected (Core.__del__), unless a numpy view of it (`core.ub[...]`, a
    tensor's view) is still alive, or the array is not one the pool would make (user code replaced `core.ub` by a
    view of its own memory or a read-only dump): then it is left to numpy, as before. It is handed out again only
    once its core is freed: a core a finaliser brings back to life (or gc.DEBUG_SAVEALL keeps) keeps its UB."""

    MAX_BYTES = 48 << 20  # at most this much held: 256 A2 UBs, 192 of the 310P's (a 48-block launch four times)

    def __init__(self):
        self.lock = threading.RLock()  # (re-entered when a collection inside recycle() finalizes another core)
        self.free = {}  # UB size in bytes -> [(weak reference to the core that had it, array)]
        self.held = 0
        self.unreachable_references = None
        _UnreachableProbe(np.zeros(1, np.uint8), self)  # collected at once: its __del__ sets the count

    def take(self, nbytes):
        ub = None
        with self.lock:
            waiting = self.free.get(nbytes, ())
            for i in range(len(waiting) - 1, -1, -1):
                if waiting[i][0]() is None:  # its core is freed, not brought back to life by a finaliser
                    ub = waiting.pop(i)[1]
                    self.held -= nbytes
                    break
        if ub is None:
            return np.zeros(nbytes, dtype=np.uint8)
        ub.fill(0)
        return ub

    def recycle(self, owner, _getrefcount=sys.getrefcount, _weakref=weakref.ref, _finalizing=sys.is_finalizing):
        """A collected core's __del__: keep its UB unless something still refers to it. Kept beside a weak
        reference to the core, made here: a core that a finaliser brings back to life, or gc.DEBUG_SAVEALL keeps,
        outlives its __del__, and its UB is handed out only once the core is freed."""
        if _finalizing():   # interpreter exit: this module's globals (numpy, _pool_made) may already be None, and
            return          # nothing will take a UB again ("Exception ignored in Core.__del__" in a CI log)
        ub = owner.__dict__.get("ub")  # (None when the core's __init__ refused its arguments)
        if ub is None:
            return
        references = _getrefcount(ub)
        if self.unreachable_references is None:  # the measurement's own call
            self.unreachable_references = references
            return
        if references != self.unreachable_references or not _pool_made(ub):
            return
        with self.lock:
            if self.held + ub.nbytes <= self.MAX_BYTES:
                self.free.setdefault(ub.nbytes, []).append((_weakref(owner), ub))
                self.held += ub.nbytes

    def after_fork(self):
        """A forked child keeps its own copy of the arrays; only the lock must be new."""
        self.lock = threading.RLock()


def _pool_made(ub):
    """An array as take() makes them: owning its memory, writeable, C-contiguous uint8."""
    return (type(ub) is np.ndarray and ub.base is None and ub.dtype == np.uint8 and ub.flags.writeable
            and ub.flags.c_contiguous)


class _UnreachableProbe:
    """Holds an array as a Core holds its UB, and dies as a Core does: recycle() called from its __del__ sees the
    interpreter's own references to an array nothing else holds (the instance's attribute, recycle()'s local,
    getrefcount's argument). Measured through the same path, not assumed, so no Python version can make a
    still-referenced UB look free."""

    def __init__(self, ub, pool):
        self.ub, self.pool = ub, pool

    def __del__(self):
        self.pool.recycle(self)


UB_POOL = _UnifiedBufferPool()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=UB_POOL.after_fork)


def current_core(api="current_core"):
    core = getattr(_current, "stack", None)
    if not core:
        raise StateError(api, "core", None, legal="inside `with core:` (a current core)",
                         detail="no current core: use `with core:` or call the method on a Core")
    return core[-1]


_NO_VALUE = object()  # an omitted argument (None is a value some calls take)
_DERIVED_MODES = {}  # (DeviceSpec, CTRL) -> Core._compute_modes()


class Core(SyncState):
    """One AI Core. `aj.Core("atlas-a2")`; aliases such as "910B" work (D13). Its synchronisation state (flags,
    atomics, the launch it belongs to) is described in sync.py."""

    def __init__(self, device="atlas-a2", bounds="tensor", sanitize=None):
        self.spec = get_device(device)
        if bounds not in BOUNDS_RULES:
            raise ParameterError("Core", "bounds", bounds, legal=" or ".join(map(repr, BOUNDS_RULES)),
                                 device=self.spec.name)
        self.bounds = bounds
        self.device = self.spec.name
        self.ub = UB_POOL.take(self.spec.ub_bytes)
        self.ctrl = 0 if self.spec.half_saturating_default else 1 << CTRL_HALF_INF_NAN
        if self.spec.init_soc_ctrl:  # the kernel-entry CTRL (InitSocState) is what a kernel starts with
            value, keep = self.spec.init_soc_ctrl
            self.ctrl = value | (self.ctrl & keep)
        self._derive_modes()
        self.mask_high = ALL_ONES   # SPEC 2.6: init sets Normal mode and an all-ones mask
        self.mask_low = ALL_ONES
        self.mask_defined = True
        self.acc_val = np.float16(0)  # GetReduceRepeatSumSpr (SPEC 4.2 ACC_VAL, 4.4 accVal), a scalar of its dtype
        self.max_min_spr = None     # GetReduceRepeatMaxMinSpr state (SPEC-2 D55), api/reductions.py record_spr
        self.rsvd_cnt = None        # the count the last GatherMask kept (GetGatherMaskRemainCount; api/gather.py)
        self.block_idx = 0
        self.block_num = 1
        self.pad_value = None       # SPEC-2 9.1: (dtype, element bits) stored by SetPadValue
        self._free = [(0, self.spec.ub_bytes)]  # allocator free list of (addr, bytes)
        self._allocated = {}
        self._leases = {}  # addr -> the _Lease of a local_tensor allocation there (free kills it)
        self._owned = {}   # addr -> "TPipe" / "LocalMemAllocator": allocations only their owner releases (_release)
        self._init_sync()
        self.sanitizer = None  # a Sanitizer when sanitizing (issue 17); APIs test `core.sanitizer is not None` only
        self.sanitize = sanitize if sanitize is not None else default_sanitize_config()  # session, then env

    def __del__(self, _recycle=UB_POOL.recycle):  # (bound now: at interpreter exit the module's globals are None)
        _recycle(self)

    @property
    def sanitize(self):
        """False, or the active `aj.SanitizeConfig`. Assign True, "report", "strict", check names or a config."""
        return self.sanitizer.config if self.sanitizer is not None else False

    @sanitize.setter
    def sanitize(self, value):
        config = resolve_sanitize_config(value, "Core", "sanitize")
        self.sanitizer = Sanitizer(self, config) if config is not None else None

    def ub_written_by_host(self, addr=0, nbytes=None):
        """Declare that host code wrote UB bytes [addr, addr + nbytes) (default: the whole UB) directly through
        `core.ub`, which bypasses the tensor API and so the sanitizer: they count as initialised, like a `t[:] = array`
        host write (they order nothing). Tests that fill `core.ub` with numpy call this; without a sanitizer it does
        nothing (issue 17)."""
        if self.sanitizer is not None:
            nbytes = self.spec.ub_bytes - addr if nbytes is None else nbytes
            self.sanitizer.host_write(addr, nbytes)

    def __repr__(self):
        return f"Core({self.device!r}, ub={self.spec.ub_bytes} B)"

    # --- context ------------------------------------------------------------------------------------------------
    def __enter__(self):
        if not hasattr(_current, "stack"):
            _current.stack = []
        _current.stack.append(self)
        return self

    def __exit__(self, *exc):
        _current.stack.pop()
        return False

    # --- CTRL ---------------------------------------------------------------------------------------------------
    def _bit(self, n):
        return (self.ctrl >> n) & 1

    def _set_bit(self, n, value):
        ctrl = (self.ctrl & ~(1 << n)) | ((1 if value else 0) << n)
        if ctrl != self.ctrl:  # count-form calls reset the mode on every call: nothing to derive when unchanged
            self.ctrl = ctrl
            self._derive_modes()

    def _derive_modes(self):
        """The modes the kernels read, derived from CTRL once per change rather than on every call. They are a pure
        function of the device and CTRL, kept per (device, CTRL) value: counter-mode kernels switch SetMaskCount /
        SetMaskNorm several times a row."""
        modes = _DERIVED_MODES.get((self.spec, self.ctrl))
        if modes is None:
            modes = self._compute_modes()
            if len(_DERIVED_MODES) < 4096:
                _DERIVED_MODES[(self.spec, self.ctrl)] = modes
        (self.half_saturating, self.int_saturating, self.counter_mode, self.overflow_flags, self.cast_truncating,
         self.cast_half_saturating) = modes

    def _compute_modes(self):
        fixed = self.spec.half_saturating_default and not self.spec.half_saturation_switchable
        # D6: fixed on 910/310P, else CTRL[48]; on the 950 only while CTRL[60] = 1 (SPEC 5.2: the global mode). With
        # CTRL[60] = 0 each instruction sets its own saturation, and an arithmetic one has none: INF/NaN
        # (docs/decisions.md "The 950 with CTRL[60] = 0").
        global_mode = not self.spec.cast_ctrl60 or self._bit(CTRL_GLOBAL_SATURATION) == 1
        half_saturating = fixed or (global_mode and self._bit(CTRL_HALF_INF_NAN) == 0)
        int_saturating = self.spec.int_saturation_switchable and self._bit(CTRL_INT_SATURATE) == 1
        counter_mode = self._bit(CTRL_COUNTER_MODE) == 1
        # the two overflow modes as the element-wise kernels' flag bits, read once per call by the hot path
        overflow_flags = (SAT_HALF_FLAG if half_saturating else 0) | (SAT_INT_FLAG if int_saturating else 0)
        # SPEC-2 D46: the Memory Cast's overflow switches. CTRL[60] = 0 on the 950 forces its SAT trait.
        forced_sat = self.spec.cast_ctrl60 and self._bit(CTRL_GLOBAL_SATURATION) == 0
        cast_truncating = self.spec.cast_trunc_switch and self._bit(CTRL_CAST_TRUNCATE) == 1 and not forced_sat
        return (half_saturating, int_saturating, counter_mode, overflow_flags, cast_truncating,
                half_saturating or forced_sat)

    def SetSaturationFlag(self, enable_sat, mode=SaturationMode.FLOAT):
        """`SetSaturationFlag<mode>(enableSat)`: A2/A3 only (D21). FLOAT -> CTRL[48], INT -> CTRL[53],
        CAST -> CTRL[59] (SPEC-2 D46: enable = saturate = bit 0)."""
        self.spec.require_supported("SetSaturationFlag")
        if not self.spec.set_saturation_flag_api:
            raise UnsupportedDeviceError("SetSaturationFlag", "device", self.device, legal="atlas-a2, atlas-a3",
                                         detail="SetSaturationFlag is not offered here (D21; on the 950 use SetCtrlSpr)")
        from .api._common import as_enum, as_flag
        enable_sat = as_flag("SetSaturationFlag", self.spec, "enableSat", enable_sat)
        mode = as_enum("SetSaturationFlag", self.spec, "mode", mode, SaturationMode)
        if mode is SaturationMode.FLOAT:
            self._set_bit(CTRL_HALF_INF_NAN, not enable_sat)
        elif mode is SaturationMode.INT:
            self._set_bit(CTRL_INT_SATURATE, enable_sat)
        else:
            self._set_bit(CTRL_CAST_TRUNCATE, not enable_sat)

    def GetSaturationFlag(self, mode=SaturationMode.FLOAT):
        """`GetSaturationFlag<mode>()`: A2/A3 only, like SetSaturationFlag (DK GetSaturationFlag(ISASI).md)."""
        self.spec.require_supported("GetSaturationFlag")
        if not self.spec.set_saturation_flag_api:
            raise UnsupportedDeviceError("GetSaturationFlag", "device", self.device, legal="atlas-a2, atlas-a3",
                                         detail="GetSaturationFlag is not offered here (DK GetSaturationFlag(ISASI).md; "
                                                "on the 950 read the bits with GetCtrlSpr)")
        from .api._common import as_enum
        mode = as_enum("GetSaturationFlag", self.spec, "mode", mode, SaturationMode)
        if mode is SaturationMode.CAST:
            return not self.cast_truncating
        return self.int_saturating if mode is SaturationMode.INT else self.half_saturating

    def SetCtrlSpr(self, start_bit, end_bit, value):
        """`SetCtrlSpr<start, end>(value)` for the bits the SPECs name: 48 (half INF/NaN), 53 (int saturation),
        59 (conversion truncation, A2/A3/950) and 60 (the 950's Cast trait saturation), SPEC-2 D46."""
        bit = self._ctrl_spr_bit("SetCtrlSpr", start_bit, end_bit)
        from .api._common import as_int
        self._set_bit(bit, as_int("SetCtrlSpr", self.spec, "value", value, 0, 1))

    def ResetCtrlSpr(self, start_bit, end_bit):
        """`ResetCtrlSpr<startBit, endBit>()` (the 950; DK 特殊寄存器访问/ResetCtrlSpr(ISASI).md): the bit back to
        its default, the page's table (CTRL[48], [53], [59] 0, CTRL[60] 1; the 0x1000000000000008 of the devkit's
        ResetCtrlSprImpl), for the bits SetCtrlSpr writes. CTRL[48]'s default is 0, saturating, where the 950's
        kernel entry keeps the power-on 1 (SPEC D6): after ResetCtrlSpr<48, 48>, half results saturate."""
        if self.device != "ascend950":
            raise UnsupportedDeviceError("ResetCtrlSpr", "device", self.device, legal="ascend950",
                                         detail="not offered here (DK ResetCtrlSpr(ISASI).md)")
        bit = self._ctrl_spr_bit("ResetCtrlSpr", start_bit, end_bit)
        self._set_bit(bit, (self.spec.init_soc_ctrl[0] >> bit) & 1)   # the 950's defaultCtrl, InitSocState's value

    def _ctrl_spr_bit(self, api, start_bit, end_bit):
        """The one CTRL bit [start_bit, end_bit] names, among those the device's SetCtrlSpr writes (SPEC-2 D46)."""
        self.spec.require_supported(api)
        bits = self.spec.ctrl_spr_bits
        if not bits:
            raise UnsupportedDeviceError(api, "device", self.device, legal="atlas-a2, atlas-a3, ascend950",
                                         detail="this device's overflow modes cannot be switched (half: D4, D6; "
                                                "integer and conversion results: SPEC-2 D46)")
        from .api._common import as_int
        start_bit = as_int(api, self.spec, "startBit", start_bit, 0, 63)
        end_bit = as_int(api, self.spec, "endBit", end_bit, 0, 63)
        if start_bit != end_bit or start_bit not in bits:
            atomic = 6 <= start_bit <= 10 and 6 <= end_bit <= 10
            raise ParameterError(api, "bits", (start_bit, end_bit), legal=f"a single bit in {bits}",
                                 device=self.device, detail="CTRL[8:6] and [10:9] are the DataCopy atomics: "
                                 "aj.SetAtomicAdd / SetAtomicMax / SetAtomicMin / SetAtomicNone set them"
                                 if atomic else None)
        return start_bit

    def GetCtrlSpr(self, start_bit, end_bit):
        """`GetCtrlSpr<startBit, endBit>()`: the CTRL bits [start, end], on the devices that offer SetCtrlSpr (950,
        A3, A2; DK GetCtrlSpr(ISASI).md)."""
        self.spec.require_supported("GetCtrlSpr")
        if not self.spec.ctrl_spr_bits:
            raise UnsupportedDeviceError("GetCtrlSpr", "device", self.device, legal="atlas-a2, atlas-a3, ascend950",
                                         detail="GetCtrlSpr is not offered here (DK GetCtrlSpr(ISASI).md)")
        from .api._common import as_int
        start_bit = as_int("GetCtrlSpr", self.spec, "startBit", start_bit, 0, 63)
        end_bit = as_int("GetCtrlSpr", self.spec, "endBit", end_bit, start_bit, 63)
        return (self.ctrl >> start_bit) & ((1 << (end_bit - start_bit + 1)) - 1)

    # --- mask register (SPEC 2) ---------------------------------------------------------------------------------
    def SetVectorMask(self, *args, dtype="half", mode=MaskMode.NORMAL, **names):
        """`SetVectorMask(len)` (continuous; in counter mode the element count) or `SetVectorMask(high, low)`; the
        arguments may also be named as in C++ in snake case, `len=` or `mask_high=` and `mask_low=` (SPEC-2 1.1)."""
        # The kernels' call (counter-mode kernels set the register per row): int words in range, a dtype name, the
        # default mode, an offered device. Every check below would pass, so only the assignments run.
        if not names and mode is MaskMode.NORMAL and self.spec.supported and \
                (dtype in dt.BY_NAME if type(dtype) is str else type(dtype) is dt.DType):
            if len(args) == 1:
                length = args[0]
                if type(length) is int and 0 <= length <= ALL_ONES:
                    if self.counter_mode:
                        self.mask_high, self.mask_low = 0, length
                    else:
                        self.mask_high, self.mask_low = continuous_mask_words(length)
                    self.mask_defined = True
                    return
            elif len(args) == 2:
                high, low = args
                if type(high) is int and type(low) is int and 0 <= high <= ALL_ONES and 0 <= low <= ALL_ONES:
                    self.mask_high, self.mask_low = high, low
                    self.mask_defined = True
                    return
        from .api._common import as_enum, as_int
        self.spec.require_supported("SetVectorMask")
        if names:
            args = _set_vector_mask_args(self.device, args, names)
        written = next((a for a in (args[:1] + args[-1:]) if isinstance(a, str)), None) if args else None
        if written is not None:  # the C++ template argument, SetVectorMask<int16_t>(len), written first or last
            if args[0] is written:
                name = "len" if len(args) <= 2 else "maskHigh"
            else:
                name = "len" if len(args) == 1 else "maskLow"
            raise ParameterError("SetVectorMask", name, written, device=self.device,
                                 legal=f"an integer; the dtype goes by name: SetVectorMask(len, dtype={written!r}) "
                                       f"or SetVectorMask(maskHigh, maskLow, dtype={written!r})")
        dt.resolve(dtype, "SetVectorMask", self.device)
        mode = as_enum("SetVectorMask", self.spec, "mode", mode, MaskMode)
        if len(args) == 1:
            length = as_int("SetVectorMask", self.spec, "len", args[0], 0, ALL_ONES)
            if mode is MaskMode.COUNTER or self.counter_mode:
                self.mask_high, self.mask_low = 0, length
            else:
                self.mask_high, self.mask_low = continuous_mask_words(length)
        elif len(args) == 2:
            high, low = (as_int("SetVectorMask", self.spec, name, a, 0, ALL_ONES)
                         for name, a in zip(("maskHigh", "maskLow"), args))
            self.mask_high, self.mask_low = high, low
        else:
            raise ParameterError("SetVectorMask", "args", args, legal="(len) or (maskHigh, maskLow)",
                                 device=self.device)
        self.mask_defined = True

    def ResetMask(self):
        self.spec.require_supported("ResetMask")  # D13: the vector core offers no API
        self.mask_high, self.mask_low, self.mask_defined = ALL_ONES, ALL_ONES, True

    def SetMaskCount(self):
        self.spec.require_supported("SetMaskCount")
        self._set_bit(CTRL_COUNTER_MODE, 1)

    def SetMaskNorm(self):
        self.spec.require_supported("SetMaskNorm")
        self._set_bit(CTRL_COUNTER_MODE, 0)

    def SetPadValue(self, value=_NO_VALUE, dtype=None, *, padding_value=_NO_VALUE):
        """`SetPadValue<T>(value)` (SPEC-2 9.1): the pad value a later GM->UB DataCopyPad with isPad false uses for
        the same dtype (D56); the value is converted per D29. 950, A2, A3 only. Without `dtype`, a numpy scalar's
        own type is T, as C++ deduces T from the argument (`SetPadValue((uint8_t)0)` is
        `SetPadValue(np.uint8(0))`); a Python number needs the dtype. `padding_value=` is the keyword of the C++
        name (paddingValue, SPEC-2 1.1) for the value."""
        from .api._scalar import scalar_bits
        if (value is _NO_VALUE) == (padding_value is _NO_VALUE):
            raise TypeError("SetPadValue() takes the value once: value (positional or keyword) or padding_value (the "
                            "C++ name paddingValue, SPEC-2 1.1)")
        value = padding_value if value is _NO_VALUE else value
        self.spec.require_supported("SetPadValue")
        if not self.spec.set_pad_value:
            raise UnsupportedDeviceError("SetPadValue", "device", self.device, legal="ascend950, atlas-a3, atlas-a2",
                                         detail="SetPadValue is not offered here (SPEC-2 1.9)")
        if dtype is None:
            if not isinstance(value, np.generic) or isinstance(value, np.bool_):
                raise ParameterError("SetPadValue", "dtype", None, device=self.device,
                                     legal="the element type, or a numpy scalar value whose type is T",
                                     detail=f"{type(value).__name__} {value!r} does not name T")
            dtype = value.dtype
        d = dt.resolve(dtype, "SetPadValue", self.device)
        self.pad_value = (d, scalar_bits("SetPadValue", self.spec, d, value, "value"))

    def GetReduceRepeatSumSpr(self, dtype=None):
        """`GetReduceRepeatSumSpr<T>()`: the count-form ReduceSum's scalar side result (SPEC 4.2 ACC_VAL, 4.4
        accVal) as a numpy scalar of that call's dtype; `dtype` (the template argument) must match it."""
        self.spec.require_supported("GetReduceRepeatSumSpr")
        if not self.spec.reduce_repeat_sum_spr:
            raise UnsupportedDeviceError("GetReduceRepeatSumSpr", "device", self.device,
                                         legal="ascend950, atlas-a3, atlas-a2",
                                         detail="not offered here (DK GetReduceRepeatSumSpr(ISASI).md 产品支持情况; the "
                                                "device code asserts 'GetAccVal is not supported'): read dst[0] after "
                                                "a V_S flag instead")
        if dtype is not None and dt.resolve(dtype, "GetReduceRepeatSumSpr", self.device).np_dtype != self.acc_val.dtype:
            raise StateError("GetReduceRepeatSumSpr", "dtype", dt.resolve(dtype).name, device=self.device,
                             legal=f"{dt.resolve(self.acc_val.dtype).name}, the dtype of the last count-form ReduceSum")
        if self.sanitizer is not None:
            self.sanitizer.spr_read("GetReduceRepeatSumSpr", "ACC_VAL")
        return self.acc_val

    def GetReduceRepeatMaxMinSpr(self, dtype):
        """`GetReduceRepeatMaxMinSpr<T>(...)` on this core (SPEC-2 8.4, D55): as the module-level call."""
        from .api.reductions import GetReduceRepeatMaxMinSpr
        return GetReduceRepeatMaxMinSpr(dtype, core=self)

    def _after_count_call(self, last_mask_len=None):
        """Mask-register side effect of a count-form call (SPEC 2.6, D22)."""
        effect = count_call_effect(self.spec, last_mask_len)
        if effect is not None:
            self._apply_mask_effect(effect)

    def _apply_mask_effect(self, effect):
        """Leave an effect of count_call_effect's form (not None) in the mask register; hot paths inline these
        lines."""
        self.mask_high, self.mask_low, restores_normal = effect
        self.mask_defined = True
        if restores_normal and self.counter_mode:  # the modes change only with the bit (count calls in a row)
            self._set_bit(CTRL_COUNTER_MODE, 0)

    # --- UB allocation ------------------------------------------------------------------------------------------
    def alloc(self, nbytes, api="alloc"):
        """First-fit allocation of a 32-byte aligned UB range (SPEC 8.2: UB operands are 32-B aligned)."""
        from .api._common import as_int
        nbytes = as_int(api, self.spec, "bytes", nbytes, 0)
        need = max(32, (nbytes + 31) // 32 * 32)
        for i, (addr, size) in enumerate(self._free):
            if size >= need:
                rest = (addr + need, size - need)
                self._free[i:i + 1] = [rest] if rest[1] else []
                self._allocated[addr] = need
                if self.sanitizer is not None:
                    self.sanitizer.undefine(addr, need)
                return addr
        free = sum(s for _, s in self._free)
        raise OutOfBoundsError(api, "bytes", int(nbytes), legal=f"a free 32-B aligned range (free: {free} B, "
                               f"largest {max((s for _, s in self._free), default=0)} B)", device=self.device)

    def reserve(self, addr, nbytes, api="reserve"):
        """Take exactly [addr, addr + nbytes) (32-B multiples) out of the free list, as allocated; refused when any
        byte of it is already allocated."""
        for i, (a, size) in enumerate(self._free):
            if a <= addr and addr + nbytes <= a + size:
                pieces = [(a, addr - a), (addr + nbytes, a + size - addr - nbytes)]
                self._free[i:i + 1] = [p for p in pieces if p[1]]
                self._allocated[addr] = nbytes
                if self.sanitizer is not None:
                    self.sanitizer.undefine(addr, nbytes)
                return addr
        raise OutOfBoundsError(api, "bytes", f"[{addr}, {addr + nbytes})", device=self.device,
                               legal="a range no TPipe buffer or local_tensor allocation occupies")

    def free(self, addr):
        from .api._common import as_int
        from .tensor import release_site
        # an integer: 0.0 or False had freed the allocation at 0 (equal dict keys), a list raised TypeError (audit17h)
        addr = as_int("free", self.spec, "addr", addr)
        owner = self._owned.get(addr)
        if owner is not None:
            # a TPipe buffer freed here stayed in its queue (its tensors aliased the next allocation) and the pipe's
            # Destroy then freed the new owner's allocation (audit17h; SPEC-2 1.5)
            raise StateError("free", "addr", addr, device=self.device,
                             legal="an address core.alloc or core.local_tensor returned",
                             detail=f"the {owner}'s memory: {'its Destroy / Reset' if owner == 'TPipe' else 'nothing'}"
                                    " releases it")
        self._release(addr, release_site(self, "core.free"))

    def _release(self, addr, how):
        """Give the allocation at addr back to the free list (core.free, and the owners of _owned allocations)."""
        self._owned.pop(addr, None)
        size = self._allocated.pop(addr, None)
        if size is None:
            raise StateError("free", "addr", addr, legal="an address core.alloc returned and not yet freed",
                             detail="not an allocated address (double free?)", device=self.device)
        lease = self._leases.pop(addr, None)
        if lease is not None:  # the allocation's tensors die with it: the bytes may be handed out again
            lease.release(how)
        self._free.append((addr, size))
        self._free.sort()
        merged = []
        for a, s in self._free:
            if merged and merged[-1][0] + merged[-1][1] == a:
                merged[-1] = (merged[-1][0], merged[-1][1] + s)
            else:
                merged.append((a, s))
        self._free = merged

    def local_tensor(self, dtype, n, addr=None, position=None):
        """A LocalTensor of n elements: at `addr` (any byte address; alignment is the APIs' business) or allocated."""
        from .api._common import as_int
        from .tensor import LocalTensor, TPosition, _Lease, check_local_position
        d = dt.resolve(dtype, "local_tensor", self.device)
        n = as_int("local_tensor", self.spec, "n", n, 0, self.spec.ub_bytes // d.size)
        nbytes = n * d.size
        position = TPosition.VECCALC if position is None else position
        check_local_position("local_tensor", position, self.device)  # before allocating: the allocator stays alone
        if addr is None:
            addr = self.alloc(nbytes, "local_tensor")
            lease = self._leases[addr] = _Lease()
            return LocalTensor(self, d, addr, n, position, lease)
        addr = as_int("local_tensor", self.spec, "addr", addr, 0, self.spec.ub_bytes)
        if addr + nbytes > self.spec.ub_bytes:
            raise OutOfBoundsError("local_tensor", "addr", addr, device=self.device,
                                   legal=f"addr + {nbytes} B within [0, {self.spec.ub_bytes}]")
        return LocalTensor(self, d, addr, n, position)  # a raw view: it owns no allocation, so nothing frees it


def _set_vector_mask_args(device, args, names):
    """SetVectorMask's positional arguments from its keyword form: `len=` alone, or `mask_high=` with `mask_low=`."""
    unknown = set(names) - {"len", "mask_high", "mask_low"}
    if unknown:
        raise TypeError(f"SetVectorMask() got an unexpected keyword argument {sorted(unknown)[0]!r}")
    if not args and set(names) == {"len"}:
        return (names["len"],)
    if not args and set(names) == {"mask_high", "mask_low"}:
        return (names["mask_high"], names["mask_low"])
    raise ParameterError("SetVectorMask", "args", (args, names), device=device,
                         legal="(len) or (mask_high, mask_low), positionally or by those names")


def _state_call(name):
    def call(*args, **kwargs):
        return getattr(current_core(name), name)(*args, **kwargs)
    call.__name__ = name
    call.__doc__ = f"`{name}` on the current core (`with core:`)."
    return call


SetVectorMask = _state_call("SetVectorMask")
ResetMask = _state_call("ResetMask")
SetMaskCount = _state_call("SetMaskCount")
SetMaskNorm = _state_call("SetMaskNorm")
SetSaturationFlag = _state_call("SetSaturationFlag")
GetSaturationFlag = _state_call("GetSaturationFlag")
SetCtrlSpr = _state_call("SetCtrlSpr")
ResetCtrlSpr = _state_call("ResetCtrlSpr")
GetCtrlSpr = _state_call("GetCtrlSpr")
GetReduceRepeatSumSpr = _state_call("GetReduceRepeatSumSpr")
SetPadValue = _state_call("SetPadValue")


def GetBlockIdx():
    return current_core("GetBlockIdx").block_idx


def GetBlockNum():
    """The block count of the current `aj.launch` (1 outside a launch)."""
    return current_core("GetBlockNum").block_num
