"""Synchronisation and kernel boilerplate: pipes, hardware events and flags (SPEC-2 section 10, D62), TPipe event
ids, InitSocState, LocalMemAllocator, SyncAll, GetSubBlockIdx and the DataCopy atomics (SetAtomicAdd/Max/Min/None).

In a sequential emulator every instruction completes before the next one starts, so PipeBarrier, SetFlag/WaitFlag
and TQueSync never change a value (SPEC-2 10.1); they are state. Every core holds that state in plain attributes
(`SyncState`), so a later hazard detector can consume it without a second description:

- `core.flags`: {(src Pipe, dst Pipe, event id): 0 or 1}, all 0 at creation (SPEC-2 10.3);
- `core.sync_hooks`: callables `hook(core, kind, detail)` called after every PipeBarrier, SetFlag, WaitFlag, SyncAll
  and atomic DataCopy commit (kind is the API name, detail a dict of its arguments);
- `core.atomic`: None or (op, DType) as set by SetAtomicAdd / SetAtomicMax / SetAtomicMin;
- `core.launch`: the `aj.launch` a core's block belongs to (None outside a launch);
- `core.tpipe`: the core's TPipe (GetTPipePtr()).

A sanitizing core (`core.sanitizer`, issue 17) also receives every PipeBarrier, SetFlag and WaitFlag.
"""
import enum

from . import dtypes as dt
from .errors import OutOfBoundsError, ParameterError, StateError, UnsupportedDeviceError, UnsupportedDTypeError
from .sanitizer import user_location
from .tensor import GlobalTensor, LocalTensor


class Pipe(enum.IntEnum):
    """Ascend C `pipe_t` (values of the devkit's `PIPE` enum)."""
    PIPE_S = 1      # scalar: GetValue / SetValue
    PIPE_V = 2      # vector compute
    PIPE_M = 3      # cube
    PIPE_MTE1 = 4
    PIPE_MTE2 = 5   # GM -> UB copies
    PIPE_MTE3 = 6   # UB -> GM copies
    PIPE_ALL = 10
    PIPE_FIX = 11


PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_FIX = (
    Pipe.PIPE_S, Pipe.PIPE_V, Pipe.PIPE_M, Pipe.PIPE_MTE1, Pipe.PIPE_MTE2, Pipe.PIPE_MTE3, Pipe.PIPE_ALL, Pipe.PIPE_FIX)

_PIPES_BUT_ALL = tuple(p for p in Pipe if p is not PIPE_ALL)   # TQueSync's src and dst
_PIPE_BY_SHORT_NAME = {"S": PIPE_S, "V": PIPE_V, "M": PIPE_M, "MTE1": PIPE_MTE1, "MTE2": PIPE_MTE2, "MTE3": PIPE_MTE3,
                       "FIX": PIPE_FIX}

# SPEC-2 10.2: the HardEvent members of DK `impl/basic_api/kernel_event.h`, named <src>_<dst>, in that order.
_HARD_EVENTS = ("MTE2_MTE1 MTE1_MTE2 MTE1_M M_MTE1 MTE2_V V_MTE2 MTE3_V V_MTE3 M_V V_M V_V MTE3_MTE1 MTE1_MTE3 MTE1_V "
                "MTE2_M M_MTE2 V_MTE1 M_FIX FIX_M MTE3_MTE2 MTE2_MTE3 S_V V_S S_MTE2 MTE2_S S_MTE3 MTE3_S MTE2_FIX "
                "FIX_MTE2 FIX_S M_S FIX_MTE3 MTE1_FIX FIX_MTE1 FIX_FIX").split()
HardEvent = enum.IntEnum("HardEvent", [(name, i) for i, name in enumerate(_HARD_EVENTS)])  # SPEC-2 1.1: IntEnum
HardEvent.__doc__ = "Ascend C HardEvent: a (source pipe, destination pipe) pair, `event.pipes`."
HardEvent.pipes = property(lambda self: tuple(_PIPE_BY_SHORT_NAME[p] for p in self.name.split("_")))
_EVENT_BY_PIPES = {e.pipes: e for e in HardEvent}
_PIPES_OF_EVENT = {e: e.pipes for e in HardEvent}  # SetFlag/WaitFlag run per tile: no name parsing per call

EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 = range(8)


def _check_hard_event(api, spec, event):
    """The HardEvent member `event` names (a member or its integer value, decisions.md "Integer parameters")."""
    if type(event) is HardEvent:
        return event
    from .api._common import as_enum   # api/_common imports core, which imports this module
    return as_enum(api, spec, "event", event, HardEvent)


def _refuse_flag_form(api, spec, args, event):
    """SetFlag/WaitFlag called other than as (event_id, event=HardEvent) (SPEC-2 10.2: event is keyword-only and
    required). The C++ order `SetFlag<HardEvent::V_MTE3>(id)` read as `aj.SetFlag(aj.HardEvent.V_MTE3, id)` is the
    likely slip, so the refusal spells the legal call with the event and id it was given."""
    given = next((a for a in args if isinstance(a, HardEvent)), event)
    ids = [a for a in args if not isinstance(a, HardEvent)]
    name = given.name if isinstance(given, HardEvent) else "<SRC>_<DST>"
    call = f"aj.{api}({ids[0] if len(ids) == 1 else 'event_id'}, event=aj.HardEvent.{name})"
    value = "missing" if given is None else f"HardEvent.{name}" + (" as a positional argument" if event is None else "")
    raise ParameterError(api, "event", value, device=spec.name, legal=f"keyword-only, required: {call} (SPEC-2 10.2)",
                         detail=f"got {len(args)} positional argument(s)")


_ABSENT = object()   # SetFlag/WaitFlag without `event_id=` (None is a value, refused by name)


def _with_keyword_id(api, args, event_id):
    """The positional arguments with `event_id=` (SPEC-2 1.1: every parameter also by its snake_case C++ name) added
    as the id. An id given both ways is Python's own TypeError for a repeated argument (decisions.md "Forms by
    position or keyword"); a HardEvent written positionally stays for _refuse_flag_form to name the legal call."""
    if any(not isinstance(a, HardEvent) for a in args):
        raise TypeError(f"{api}() got multiple values for argument 'event_id'")
    return args + (event_id,)


def _check_pipe(api, spec, name, pipe, allow_all=True):
    """The Pipe member `pipe` names (a member or its integer value, decisions.md "Integer parameters"; PIPE_ALL
    only where allow_all)."""
    from .api._common import as_enum   # api/_common imports core, which imports this module
    return as_enum(api, spec, name, pipe, Pipe, None if allow_all else _PIPES_BUT_ALL)


def _check_event_id(api, spec, event_id):
    if type(event_id) is int and 0 <= event_id < spec.event_ids:  # the kernels' case, without the import below
        return event_id
    from .api._common import as_int
    return as_int(api, spec, "event_id (SPEC-2 D62)", event_id, 0, spec.event_ids - 1)  # numpy ints too (issue 12)


def flag_name(key):
    """`MTE2_V id 0` for a flag key (the HardEvent when one names the pipe pair)."""
    src, dst, event_id = key
    event = _EVENT_BY_PIPES.get((src, dst))
    return f"{event.name if event else f'{src.name}->{dst.name}'} id {event_id}"


class SyncState:
    """The synchronisation state of one core (mixed into Core); see the module docstring."""

    def _init_sync(self):
        self.flags = {}
        self.flag_sites = {}   # (src, dst, event id) -> the file:line of its latest SetFlag (sanitizing)
        self.sync_hooks = []
        self.atomic = None
        self.launch = None
        self.tpipe = None
        self.local_mem_allocator = None
        self.sys_workspace = None   # SetSysWorkspace's array (the devkit's g_sysWorkspaceReserved)

    def _sync_event(self, kind, **detail):
        for hook in self.sync_hooks:
            hook(self, kind, detail)

    def PipeBarrier(self, pipe):
        """`PipeBarrier<pipe>()`: orders the pipe's instructions; PIPE_S is refused (SPEC-2 10.1, D62)."""
        self._pipe_barrier("PipeBarrier", pipe)

    def _pipe_barrier(self, api, pipe):
        """PipeBarrier, its refusals naming `api` (the CCE intrinsic pipe_barrier's own name)."""
        if type(pipe) is not Pipe or pipe is PIPE_S or not self.spec.supported:  # PipeBarrier<PIPE_V> skips them
            self.spec.require_supported(api)  # SPEC D13: the inference Vector Core offers no API
            pipe = _check_pipe(api, self.spec, "pipe", pipe)
            if pipe is PIPE_S:
                raise ParameterError(api, "pipe", pipe.name, legal="any pipe but PIPE_S (SPEC-2 D62)",
                                     device=self.device)
        if self.sanitizer is not None:
            self.sanitizer.pipe_barrier(pipe.name)
        if self.sync_hooks:
            self._sync_event("PipeBarrier", pipe=pipe)

    def DataSyncBarrier(self, arg0):
        """`DataSyncBarrier<arg0>()` (DK `同步控制/核内同步/DataSyncBarrier(ISASI).md`; dsb in `kernel_event.h`
        DataSyncBarrierImpl): later instructions wait until the scalar unit's earlier accesses of the memory
        `arg0` names have completed. Values never change here; a sanitizing core orders the scalar pipe's earlier
        UB accesses before every later instruction for MemDsbT.UB and ALL (DDR: GM only, which one core's race
        check does not track; SEQ: no memory the emulator models). docs/decisions.md "DataSyncBarrier"."""
        api = "DataSyncBarrier"
        if self.device not in _DSB_DEVICES:   # the page's 产品支持情况 (also the inference Vector Core, SPEC D13)
            raise UnsupportedDeviceError(api, "device", self.device, legal=", ".join(_DSB_DEVICES),
                                         detail="not offered here (DK DataSyncBarrier(ISASI).md)")
        if type(arg0) is not MemDsbT:
            from .api._common import as_enum   # api/_common imports core, which imports this module
            arg0 = as_enum(api, self.spec, "arg0", arg0, MemDsbT)
        if self.sanitizer is not None and arg0 in (MemDsbT.ALL, MemDsbT.UB):
            self.sanitizer.data_sync_barrier()
        if self.sync_hooks:
            self._sync_event(api, arg0=arg0)

    def _set_flag(self, api, src, dst, event_id):
        if not self.spec.supported:
            self.spec.require_supported(api)  # SPEC D13 (SetFlag, WaitFlag, TQueSync)
        if type(event_id) is not int or not 0 <= event_id < self.spec.event_ids:  # the kernels' ids pass as they are
            event_id = _check_event_id(api, self.spec, event_id)
        key = (src, dst, event_id)
        if self.flags.get(key):
            # the first SetFlag's line is known to a sanitizing run only (recording it costs every SetFlag)
            site = self.flag_sites.get(key) if self.sanitizer is not None else None
            first = (f"by the SetFlag at {site}" if site else
                     "(a core made with sanitize=\"report\" names the first SetFlag's line)")
            raise StateError(api, "flag", flag_name(key), device=self.device, legal="a flag that is not set",
                             detail=f"is already set {first}: a second SetFlag is undefined and a later "
                                    "PipeBarrier<PIPE_ALL> hangs (SPEC-2 D62); WaitFlag it first (in a loop: "
                                    "before the next iteration's SetFlag)")
        self.flags[key] = 1
        if self.flag_sites and self.sanitizer is None:
            self.flag_sites.pop(key, None)   # a site a sanitizer saw earlier is not this SetFlag's
        if self.sanitizer is not None:
            self.sanitizer.set_flag(src.name, dst.name, event_id)
            # the kernel's line, for launch's refusal of a SetFlag never waited: a sanitizing run only (recording
            # even the caller's frame made a plain SetFlag/WaitFlag pair a quarter slower, 1.28 -> 1.59 us)
            self.flag_sites[key] = user_location()
        if self.sync_hooks:
            self._sync_event(api, src=src, dst=dst, event_id=event_id)

    def _wait_flag(self, api, src, dst, event_id):
        if not self.spec.supported:
            self.spec.require_supported(api)  # SPEC D13 (SetFlag, WaitFlag, TQueSync)
        if type(event_id) is not int or not 0 <= event_id < self.spec.event_ids:  # the kernels' ids pass as they are
            event_id = _check_event_id(api, self.spec, event_id)
        key = (src, dst, event_id)
        if not self.flags.get(key):
            raise StateError(api, "flag", flag_name(key), device=self.device,
                             legal="a flag set by a SetFlag of the same event and id",
                             detail="WaitFlag without a pending SetFlag: the device would block forever (SPEC-2 D62)")
        self.flags[key] = 0
        if self.sanitizer is not None:
            self.sanitizer.wait_flag(src.name, dst.name, event_id)
        if self.sync_hooks:
            self._sync_event(api, src=src, dst=dst, event_id=event_id)

    def _require_isasi_flags(self, api):
        if not self.spec.isasi_flags:
            raise UnsupportedDeviceError(api, "device", self.device, legal="every device but atlas-200i-500-a2",
                                         detail="the ISASI SetFlag/WaitFlag is not offered here; use "
                                                "aj.TQueSync(src_pipe, dst_pipe) (SPEC-2 D62)")

    def SetFlag(self, *args, event=None, event_id=_ABSENT):
        """`SetFlag<event>(id)`: flag (src, dst, id) := 1 (SPEC-2 10.3); the id positionally or as `event_id=`."""
        if event_id is not _ABSENT:
            args = _with_keyword_id("SetFlag", args, event_id)
        if len(args) != 1 or event is None:
            _refuse_flag_form("SetFlag", self.spec, args, event)
        event_id, = args
        if not self.spec.isasi_flags:
            self._require_isasi_flags("SetFlag")  # refuses it
        if type(event) is not HardEvent:
            event = _check_hard_event("SetFlag", self.spec, event)
        src, dst = _PIPES_OF_EVENT[event]
        self._set_flag("SetFlag", src, dst, event_id)

    def WaitFlag(self, *args, event=None, event_id=_ABSENT):
        """`WaitFlag<event>(id)`: flag (src, dst, id) must be 1; it becomes 0 (SPEC-2 10.3); the id positionally or
        as `event_id=`."""
        if event_id is not _ABSENT:
            args = _with_keyword_id("WaitFlag", args, event_id)
        if len(args) != 1 or event is None:
            _refuse_flag_form("WaitFlag", self.spec, args, event)
        event_id, = args
        if not self.spec.isasi_flags:
            self._require_isasi_flags("WaitFlag")  # refuses it
        if type(event) is not HardEvent:
            event = _check_hard_event("WaitFlag", self.spec, event)
        src, dst = _PIPES_OF_EVENT[event]
        self._wait_flag("WaitFlag", src, dst, event_id)

    def pending_flags(self):
        """The set flags, as sorted (src pipe, dst pipe, event id) keys (SPEC-2 10.3)."""
        return sorted(k for k, v in self.flags.items() if v)

    def flag_site(self, key):
        """" (set at file:line)" for a set flag a sanitizing core saw set, else ""."""
        site = self.flag_sites.get(key)
        return f" (set at {site})" if site and site != "?" else ""

    def InitSocState(self):
        """`InitSocState()`: the device's kernel-entry state (DK `impl/basic_api/kernel_utils_base.h`
        `InitSocStateImpl`): DataCopy atomics off on every device; A2/A3 and the 950 also Normal mask mode and an
        all-ones mask; the 950's CTRL becomes 0x1000000000000008 with bit 48 kept (SPEC D6 table, SPEC-2 D46)."""
        self.spec.require_supported("InitSocState")
        self.atomic = None
        if self.spec.init_soc_mask:
            self.SetMaskNorm()
            self.ResetMask()
        if self.spec.init_soc_ctrl:
            value, keep = self.spec.init_soc_ctrl
            self.ctrl = value | (self.ctrl & keep)
            self._derive_modes()

    # --- DataCopy atomics (DK `原子操作/SetAtomicAdd.md`, `SetAtomicMax(ISASI).md`, `SetAtomicMin(ISASI).md`) ---
    def _set_atomic(self, api, op, dtype, allowed):
        self.spec.require_supported(api)
        if dtype is None:
            raise ParameterError(api, "dtype", None, legal=", ".join(allowed) or "none on this device",
                                 device=self.device, detail="missing: the C++ template argument T is the dtype")
        d = dt.resolve(dtype, api, self.device)
        if not allowed:
            raise UnsupportedDeviceError(api, "device", self.device, legal="ascend950, atlas-a3, atlas-a2",
                                         detail="not offered on this device (DK 原子操作 pages)")
        if d.name not in allowed:
            raise UnsupportedDTypeError(api, "dtype", d.name, legal=", ".join(allowed), device=self.device,
                                        detail="(DK 原子操作 pages, 数据类型)")
        self.atomic = (op, d)

    def SetAtomicAdd(self, dtype=None):
        """`SetAtomicAdd<T>()`: DataCopy UB -> GM adds into GM (one rounding in T, the core's overflow mode)."""
        self._set_atomic("SetAtomicAdd", "add", dtype, self.spec.atomic_add_dtypes)

    def SetAtomicMax(self, dtype=None):
        """`SetAtomicMax<T>()`: DataCopy UB -> GM keeps the larger of GM and the copied value (950, A2, A3)."""
        self._set_atomic("SetAtomicMax", "max", dtype, self.spec.atomic_max_min_dtypes)

    def SetAtomicMin(self, dtype=None):
        """`SetAtomicMin<T>()`: DataCopy UB -> GM keeps the smaller of GM and the copied value (950, A2, A3)."""
        self._set_atomic("SetAtomicMin", "min", dtype, self.spec.atomic_max_min_dtypes)

    def SetAtomicNone(self):
        """`SetAtomicNone()` (renamed DisableDmaAtomic in newer devkits): DataCopy overwrites GM again."""
        self.spec.require_supported("SetAtomicNone")
        self.atomic = None

    DisableDmaAtomic = SetAtomicNone


class TQueSync:
    """`TQueSync<src, dst>`: SetFlag / WaitFlag named by pipes, on every device including 310B (SPEC-2 10.1).
    Acts on the current core (`with core:`) at each call; made outside one (a C++ local object is, too), it checks
    its pipes without naming a device."""

    def __init__(self, src_pipe, dst_pipe):
        from .core import _current   # core.py imports this module
        stack = getattr(_current, "stack", None)
        spec = stack[-1].spec if stack else None
        self.src = _check_pipe("TQueSync", spec, "src_pipe", src_pipe, allow_all=False)
        self.dst = _check_pipe("TQueSync", spec, "dst_pipe", dst_pipe, allow_all=False)
        if self.dst == self.src:   # no flag orders a pipe after itself (audit 45s)
            raise ParameterError("TQueSync", "dst_pipe", dst_pipe, device=spec.name if spec is not None else None,
                                 legal="a pipe other than src_pipe: the devkit static_asserts src != dst "
                                       "(impl/basic_api/kernel_tquesync_impl.h); PipeBarrier orders one pipe")

    def SetFlag(self, event_id):
        _current_core("TQueSync.SetFlag")._set_flag("TQueSync.SetFlag", self.src, self.dst, event_id)

    def WaitFlag(self, event_id):
        _current_core("TQueSync.WaitFlag")._wait_flag("TQueSync.WaitFlag", self.src, self.dst, event_id)


def _current_core(api):
    from .core import current_core  # core.py imports this module: bound at the first call
    global _current_core
    _current_core = current_core
    return current_core(api)


class EventIdPool:
    """TPipe's event ids per HardEvent (DK `impl/basic_api/kernel_tpipe_impl.h` AllocEventID / FetchEventID /
    ReleaseEventID: the lowest free id; Fetch does not occupy it). Ids 0 .. event_ids-1 of the device."""

    def __init__(self, core):
        self.core = core
        self.occupied = {}
        self.alloc_sites = {}  # (event, id) -> the kernel's file:line of its AllocEventID, when sanitizing

    def _require(self, api):
        # the Vector Core offers no instruction (SPEC D13), so no SetFlag / WaitFlag for an id to serve (review 46)
        self.core.spec.require_supported(api)
        if not self.core.spec.tpipe_event_ids:
            raise UnsupportedDeviceError(api, "device", self.core.device, legal="every device but atlas-200i-500-a2",
                                         detail="TPipe event ids are not offered here (DK TPipe/AllocEventID.md)")

    def _lowest_free(self, api, event):
        used = self.occupied.setdefault(event, set())
        for i in range(self.core.spec.event_ids):
            if i not in used:
                return i
        raise StateError(api, "event", event.name, device=self.core.device,
                         legal="a free event id of this HardEvent (ReleaseEventID one)",
                         detail=f"every event id 0..{self.core.spec.event_ids - 1} of this HardEvent is allocated: "
                                "ReleaseEventID one first")

    def FetchEventID(self, event):
        """The lowest free id of `event`, not occupied (for a SetFlag/WaitFlag pair used at once)."""
        spec = self.core.spec
        if type(event) is HardEvent and spec.tpipe_event_ids and spec.supported and spec.event_ids > 0 and \
                not self.occupied.get(event):
            return 0   # no id of the event allocated: the lowest free one (the kernels' case, per row or tile)
        self._require("FetchEventID")
        return self._lowest_free("FetchEventID", _check_hard_event("FetchEventID", self.core.spec, event))

    def AllocEventID(self, event):
        """The lowest free id of `event`, occupied until ReleaseEventID (exhaustion is a StateError)."""
        self._require("AllocEventID")
        event = _check_hard_event("AllocEventID", self.core.spec, event)
        i = self._lowest_free("AllocEventID", event)
        self.occupied[event].add(i)
        if self.core.sanitizer is not None:  # where the id was taken: the "never released" report names that line
            from .sanitizer import user_location
            self.alloc_sites[(event, i)] = user_location()
        return i

    def ReleaseEventID(self, event_id, event):
        self._require("ReleaseEventID")
        event = _check_hard_event("ReleaseEventID", self.core.spec, event)
        event_id = _check_event_id("ReleaseEventID", self.core.spec, event_id)
        if event_id not in self.occupied.get(event, ()):
            raise StateError("ReleaseEventID", "event_id", event_id, device=self.core.device,
                             legal="an event id AllocEventID returned for this HardEvent",
                             detail=f"was not allocated for {event.name} (AllocEventID first)")
        self.occupied[event].discard(event_id)


class LocalMemAllocator:
    """`LocalMemAllocator<Hardware::UB>`: a bump allocator over the current core's UB starting at address 0
    (DK `资源管理/LocalMemAllocator/*.md`; one per core, the doc's constraint). `Alloc(dtype, n)` returns a
    LocalTensor of n elements at the next 32-byte aligned address; the range is reserved in the core's allocator,
    so it never overlaps TPipe buffers."""

    def __init__(self):
        from .core import current_core
        core = current_core("LocalMemAllocator")
        core.spec.require_supported("LocalMemAllocator")
        if core.local_mem_allocator is not None:
            raise StateError("LocalMemAllocator", "core", "has a LocalMemAllocator", device=core.device,
                             legal="one LocalMemAllocator per core",
                             detail="this core already has one (one LocalMemAllocator per memory for the kernel's "
                                    "lifetime, DK LocalMemAllocator.md)")
        core.local_mem_allocator = self
        self.core, self.cur = core, 0

    def GetCurAddr(self):
        return self.cur

    def Alloc(self, dtype=None, n=None, position=None):
        """`Alloc<T, N>()` / `Alloc<T>(n)`: `Alloc(dtype, n)`."""
        from .tensor import LocalTensor, TPosition
        api = "LocalMemAllocator.Alloc"
        missing = [name for name, v in (("dtype", dtype), ("n", n)) if v is None]
        if missing:
            raise ParameterError(api, ", ".join(missing), None, legal="Alloc(dtype, n): the element type and count",
                                 device=self.core.device, detail="missing")
        from .api._common import as_int
        d = dt.resolve(dtype, api, self.core.device)
        n = as_int(api, self.core.spec, "n", n, 0)
        position = TPosition.VECCALC if position is None else position
        if not isinstance(position, TPosition):  # before reserving: a refusal leaves the allocator alone
            raise ParameterError(api, "position", position, legal="an aj.TPosition", device=self.core.device)
        need = -(-n * d.size // 32) * 32
        ub = self.core.spec.ub_bytes
        if self.cur + need > ub:
            raise OutOfBoundsError(api, "n", n, device=self.core.device,
                                   legal=f"at most {(ub - self.cur) // d.size} {d.name} elements",
                                   detail=f"needs {need} B; {ub - self.cur} B are free after address {self.cur}")
        if need:
            self.core.reserve(self.cur, need, api)
            self.core._owned[self.cur] = "LocalMemAllocator"   # for the kernel's lifetime (DK LocalMemAllocator.md)
        tensor = LocalTensor(self.core, d, self.cur, n, position)
        self.cur += need
        return tensor


def _core(api):
    from .core import current_core  # core.py imports this module: bound at the first call (no import per call)
    global _core
    _core = current_core
    return current_core(api)


def PipeBarrier(pipe):
    """`PipeBarrier<pipe>()` on the current core."""
    core = _core("PipeBarrier")
    # the kernels' call with nothing to refuse or record: _pipe_barrier's checks would all pass and it would do nothing
    if type(pipe) is Pipe and pipe is not PIPE_S and core.sanitizer is None and not core.sync_hooks and \
            core.spec.supported:
        return
    core._pipe_barrier("PipeBarrier", pipe)


class MemDsbT(enum.IntEnum):
    """`MemDsbT` of DataSyncBarrier (DK `impl/basic_api/kernel_event.h`: `enum class MemDsbT : uint8_t`)."""
    ALL = 0   # GM and UB accesses (not L0C / L1)
    DDR = 1   # GM accesses
    UB = 2    # UB accesses
    SEQ = 3   # SEQ accesses


# the page's 产品支持情况 (the devkit builds DataSyncBarrier for __NPU_ARCH__ 2201, 3002, 3510 among these)
_DSB_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")

# where the devkit's device build of the hard SyncAll() does nothing, which a port's original then relies on: its
# blocks race (port60c, ops-nn MseLossV2's 310P path)
_NO_HARD_SYNC_ALL = {"atlas-inference-aicore": (
    " (the devkit's dav_m200 SyncAllImpl is ASCENDC_REPORT_NOT_SUPPORT, which the device build compiles to nothing: "
    "an original calling it there does not wait for the other blocks)")}


def DataSyncBarrier(arg0):
    """`DataSyncBarrier<arg0>()` on the current core: `aj.DataSyncBarrier(aj.MemDsbT.DDR)`."""
    _core("DataSyncBarrier").DataSyncBarrier(arg0)


def SetFlag(*args, event=None, event_id=_ABSENT):
    """`SetFlag<event>(id)` on the current core: `aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)` (or
    `event_id=aj.EVENT_ID0`)."""
    core = _core("SetFlag")
    if len(args) == 1 and event_id is _ABSENT and type(event) is HardEvent and core.spec.isasi_flags:
        src, dst = _PIPES_OF_EVENT[event]   # the kernels' form: Core.SetFlag's checks pass, its flag update runs
        core._set_flag("SetFlag", src, dst, args[0])
        return
    core.SetFlag(*args, event=event, event_id=event_id)


def WaitFlag(*args, event=None, event_id=_ABSENT):
    """`WaitFlag<event>(id)` on the current core."""
    core = _core("WaitFlag")
    if len(args) == 1 and event_id is _ABSENT and type(event) is HardEvent and core.spec.isasi_flags:
        src, dst = _PIPES_OF_EVENT[event]   # the kernels' form: Core.WaitFlag's checks pass, its flag update runs
        core._wait_flag("WaitFlag", src, dst, args[0])
        return
    core.WaitFlag(*args, event=event, event_id=event_id)


def pipe_barrier(pipe):
    """The CCE intrinsic `pipe_barrier(PIPE_V)` that older kernels call beside Ascend C's API: PipeBarrier<pipe>()
    (docs/decisions.md "The CCE sync intrinsics")."""
    _core("pipe_barrier")._pipe_barrier("pipe_barrier", pipe)


def set_flag(pipe, tpipe, event_id):
    """The CCE intrinsic `set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)`: the flag (pipe, tpipe, id) := 1, the flag
    SetFlag<HardEvent::V_MTE3>(id) and TQueSync<PIPE_V, PIPE_MTE3>::SetFlag(id) set (SPEC-2 10.3), on every device
    TQueSync runs on (docs/decisions.md "The CCE sync intrinsics")."""
    core = _current_core("set_flag")
    core._set_flag("set_flag", _check_pipe("set_flag", core.spec, "pipe", pipe, allow_all=False),
                   _check_pipe("set_flag", core.spec, "tpipe", tpipe, allow_all=False), event_id)


def wait_flag(pipe, tpipe, event_id):
    """The CCE intrinsic `wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)`: WaitFlag<HardEvent::V_MTE3>(id)'s wait."""
    core = _current_core("wait_flag")
    core._wait_flag("wait_flag", _check_pipe("wait_flag", core.spec, "pipe", pipe, allow_all=False),
                    _check_pipe("wait_flag", core.spec, "tpipe", tpipe, allow_all=False), event_id)


def Barrier():
    """AscendC::Barrier() (the devkit's kfc_comm.h; called by some kernels, e.g. ops-math's reduce_prod_v2): an empty
    `asm volatile` statement that stops the compiler moving memory accesses across it. It issues no instruction and
    orders no pipe, so it changes nothing here, and the sanitizer counts no ordering from it."""


def InitSocState():
    _core("InitSocState").InitSocState()


def SetAtomicAdd(dtype=None):
    _core("SetAtomicAdd").SetAtomicAdd(dtype)


def SetAtomicMax(dtype=None):
    _core("SetAtomicMax").SetAtomicMax(dtype)


def SetAtomicMin(dtype=None):
    _core("SetAtomicMin").SetAtomicMin(dtype)


def SetAtomicNone():
    _core("SetAtomicNone").SetAtomicNone()


def DisableDmaAtomic():
    _core("DisableDmaAtomic").SetAtomicNone()


def GetTPipePtr():
    """The current core's TPipe (the last one created on it)."""
    core = _core("GetTPipePtr")
    if core.tpipe is None:
        raise StateError("GetTPipePtr", "core", "no TPipe", device=core.device, legal="a core with a TPipe",
                         detail="no TPipe on this core: create aj.TPipe() first")
    return core.tpipe


def GetSubBlockIdx():
    """0: every launch here is vector-only (one AIV per block)."""
    _core("GetSubBlockIdx")
    return 0


def GetTaskRation():
    """1: the AIVs per AIC of the launch's kernel type (DK impl/basic_api/dav_*/kernel_operator_sys_var_impl.h
    GetTaskRationImpl: 1 on the cube side and on every single-core-type build; g_taskRation, 2 for a MIX 1:2
    kernel, on the vector side). Every launch here is vector-only (KERNEL_TYPE_AIV_ONLY), so it is 1 on every
    device (the inference Vector Core offers no API)."""
    _core("GetTaskRation").spec.require_supported("GetTaskRation")
    return 1


def GetTaskRatio():
    """GetTaskRation's newer spelling (the devkit's GetTaskRation calls it): 1."""
    _core("GetTaskRatio").spec.require_supported("GetTaskRatio")
    return 1


_SUB_BLOCK_NUM_DEVICES = ("ascend950", "atlas-a3", "atlas-a2")


def GetSubBlockNum():
    """`GetSubBlockNum()` (DK 工具接口/系统资源与变量/GetSubBlockNum(ISASI).md): the AIVs of one logical core, 1 for
    a KERNEL_TYPE_AIV_ONLY kernel, which every launch here is. 950, A2, A3 (the page's product list)."""
    device = _core("GetSubBlockNum").device
    if device not in _SUB_BLOCK_NUM_DEVICES:
        raise UnsupportedDeviceError("GetSubBlockNum", "device", device, legal=", ".join(_SUB_BLOCK_NUM_DEVICES),
                                     detail="not offered here (DK GetSubBlockNum(ISASI).md)")
    return 1


def GetDataBlockSizeInBytes():
    """`GetDataBlockSizeInBytes()` (DK 工具接口/系统资源与变量/GetDataBlockSizeInBytes.md): a DataBlock's bytes, 32
    (SPEC 3). Every device but the 310B (the page's product list; the Vector Core offers no API)."""
    core = _core("GetDataBlockSizeInBytes")
    core.spec.require_supported("GetDataBlockSizeInBytes")
    if core.device == "atlas-200i-500-a2":
        raise UnsupportedDeviceError("GetDataBlockSizeInBytes", "device", core.device,
                                     legal="every device but atlas-200i-500-a2",
                                     detail="not offered here (DK GetDataBlockSizeInBytes.md)")
    return 32


def _ub_size_query(api):
    spec = _core(api).spec
    if spec.name != "ascend950":
        raise UnsupportedDeviceError(api, "device", spec.name, legal="ascend950",
                                     detail=f"not offered here (DK 工具接口/系统资源与变量/{api}.md); a host tiling reads "
                                            "aj.get_device(device).ub_bytes")
    return spec.ub_bytes


def GetUBSizeInBytes():
    """`GetUBSizeInBytes()` (DK 工具接口/系统资源与变量/GetUBSizeInBytes.md): the UB's bytes, the 950's constant
    248 KiB (SPEC "UB sizes used by the emulator"). The 950 only (the page's product list)."""
    return _ub_size_query("GetUBSizeInBytes")


def GetRuntimeUBSize():
    """`GetRuntimeUBSize()` (DK 工具接口/系统资源与变量/GetRuntimeUBSize.md): the UB's bytes at run time, 248 KiB
    outside a SIMD/SIMT mixed kernel (the emulator runs no SIMT code). The 950 only."""
    return _ub_size_query("GetRuntimeUBSize")


# The system workspace the devkit reserves at the start of the kernel's workspace (DK
# `impl/basic_api/utils/kernel_utils_constants.h` RESERVED_WORKSPACE by __NPU_ARCH__: 2201, 3510 16 MiB; 2002, 1001
# 2 MiB), on the devices whose GetUserWorkspace page says 支持 (the 310B and the inference Vector Core do not).
_RESERVED_WORKSPACE = {"ascend950": 16 << 20, "atlas-a3": 16 << 20, "atlas-a2": 16 << 20,
                       "atlas-inference-aicore": 2 << 20, "atlas-training": 2 << 20}


def _reserved_workspace(api, device, page="GetUserWorkspace"):
    # the workspace pages (GetUserWorkspace, SetSysWorkSpace, GetSysWorkSpacePtr) share one product list
    if device not in _RESERVED_WORKSPACE:
        raise UnsupportedDeviceError(api, "device", device, legal=", ".join(_RESERVED_WORKSPACE),
                                     detail=f"not offered here (DK 资源管理/workspace/{page}.md)")
    return _RESERVED_WORKSPACE[device]


def _check_workspace(api, device, workspace):
    """The kernel's workspace (GM_ADDR): a contiguous 1-D numpy array; None is the nullptr the devkit asserts on."""
    import numpy as np
    if workspace is None:
        raise ParameterError(api, "workspace", None, device=device,
                             legal="the kernel's workspace (GM_ADDR): the devkit asserts workspace != nullptr")
    if not isinstance(workspace, np.ndarray) or workspace.ndim != 1 or not workspace.flags.c_contiguous:
        given = type(workspace).__name__ if not isinstance(workspace, np.ndarray) else \
            f"ndarray of shape {workspace.shape}" + ("" if workspace.flags.c_contiguous else ", not contiguous")
        raise ParameterError(api, "workspace", given, device=device,
                             legal="the kernel's workspace (GM_ADDR): a contiguous 1-D numpy array")


def GetLibApiWorkSpaceSize(device):
    """Host side, `PlatformAscendC::GetLibApiWorkSpaceSize()` for `device`: the system workspace's bytes, which a
    host allocates before the user's (`workspace = np.zeros(aj.GetLibApiWorkSpaceSize(d) + user_bytes, np.uint8)`).
    The devkit kernel's RESERVED_WORKSPACE (docs/decisions.md "GetUserWorkspace")."""
    from .devices import get_device
    return _reserved_workspace("GetLibApiWorkSpaceSize", get_device(device).name)


def GetUserWorkspace(workspace):
    """`GetUserWorkspace(workspace)` (DK `资源管理/workspace/GetUserWorkspace.md`): the user's part of the kernel's
    workspace, the bytes after the system workspace (RESERVED_WORKSPACE: 16 MiB on the 950 / A2 / A3, 2 MiB on the
    310P and 910). `workspace` is the kernel's GM_ADDR, a 1-D numpy array of the whole workspace; the result is a
    view of it from byte RESERVED_WORKSPACE on (same dtype, same memory: GlobalTensor.SetGlobalBuffer takes it as it
    takes any GM_ADDR). docs/decisions.md "GetUserWorkspace"."""
    api = "GetUserWorkspace"
    core = _core(api)
    device = core.device
    reserved = _reserved_workspace(api, device)
    _check_workspace(api, device, workspace)
    if workspace.nbytes < reserved or reserved % workspace.itemsize:
        raise OutOfBoundsError(api, "workspace", f"{workspace.nbytes} bytes", device=device,
                               legal=f">= {reserved} bytes (the system workspace, RESERVED_WORKSPACE on {device}), "
                                     "then the user's: allocate aj.GetLibApiWorkSpaceSize(device) + the user's bytes")
    if core.sanitizer is not None:   # check "memory": the kernel's GM writes into the system part are reported
        core.sanitizer.system_workspace(workspace, reserved)
    return workspace[reserved // workspace.itemsize:]


class KernelMetaType(enum.IntEnum):
    """The kernel types of `KERNEL_TASK_TYPE_DEFAULT(value)` (impl/basic_api/utils/kernel_utils_macros.h, the
    devkit's values; C++ spells the members unscoped, so aj.KERNEL_TYPE_AIV_ONLY names them too)."""
    KERNEL_TYPE_AIV_ONLY = 0
    KERNEL_TYPE_AIC_ONLY = 1
    KERNEL_TYPE_MIX_AIV_1_0 = 2
    KERNEL_TYPE_MIX_AIC_1_0 = 3
    KERNEL_TYPE_MIX_AIC_1_1 = 4
    KERNEL_TYPE_MIX_AIC_1_2 = 5
    KERNEL_TYPE_AICORE = 6
    KERNEL_TYPE_VECTORCORE = 7
    KERNEL_TYPE_MIX_AICORE = 8
    KERNEL_TYPE_MIX_VECTOR_CORE = 9
    KERNEL_TYPE_MAX = 10


_K = KernelMetaType
# the page's per-device values (DK Kernel-Tiling/设置Kernel类型.md 约束说明), and those a vector-only launch runs
_KERNEL_TYPES = {d: (_K.KERNEL_TYPE_AIV_ONLY, _K.KERNEL_TYPE_AIC_ONLY, _K.KERNEL_TYPE_MIX_AIV_1_0,
                     _K.KERNEL_TYPE_MIX_AIC_1_0, _K.KERNEL_TYPE_MIX_AIC_1_1, _K.KERNEL_TYPE_MIX_AIC_1_2)
                 for d in ("ascend950", "atlas-a3", "atlas-a2")}
_KERNEL_TYPES["atlas-inference-aicore"] = (_K.KERNEL_TYPE_AICORE, _K.KERNEL_TYPE_MIX_VECTOR_CORE)
_VECTOR_ONLY_TYPES = (_K.KERNEL_TYPE_AIV_ONLY, _K.KERNEL_TYPE_MIX_AIV_1_0, _K.KERNEL_TYPE_AICORE)
# port67e (ops-nn GeGluV2, Glu, GluGrad, GroupNormSilu open their 310P kernels with it): the blocks the device puts on
# Vector Cores are a device SPEC D13 does not support, whose overflow mode differs (inf/nan only, SPEC 5.2, against the
# AI Core's saturation): refused, saying so and what runs every block on the AI Core
_MIX_VECTOR_CORE_DETAIL = ("the 310P Vector Core is not modelled (SPEC D13: not supported for these APIs; it computes "
                           "in inf/nan mode where the AI Core saturates, SPEC 5.2): declare KERNEL_TYPE_AICORE, which "
                           "runs every block on the AI Core")


def KERNEL_TASK_TYPE_DEFAULT(value):
    """`KERNEL_TASK_TYPE_DEFAULT(value)` (DK Kernel-Tiling/设置Kernel类型.md): the kernel type a kernel's entry
    declares. Checked against the page's per-device values (950/A2/A3: the AIV/AIC/MIX types; 310P: KERNEL_TYPE_AICORE
    and KERNEL_TYPE_MIX_VECTOR_CORE; not offered on the 310B and 910) and against what `aj.launch` runs: vector cores
    only (KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_MIX_AIV_1_0, the 310P's KERNEL_TYPE_AICORE); a type that starts cube
    cores, or the 310P Vector Core the emulator does not model, is a ParameterError. No value changes: every launch
    is already vector-only (GetTaskRation, GetSubBlockNum are 1)."""
    from .api._common import as_enum
    api = "KERNEL_TASK_TYPE_DEFAULT"
    device = _core(api).device
    if device not in _KERNEL_TYPES:
        raise UnsupportedDeviceError(api, "device", device, legal=", ".join(_KERNEL_TYPES),
                                     detail="not offered here (DK 设置Kernel类型.md)")
    legal = tuple(t for t in _KERNEL_TYPES[device] if t in _VECTOR_ONLY_TYPES)
    value = as_enum(api, device, "value", value, KernelMetaType)
    if value not in legal:
        raise ParameterError(api, "value", value.name, device=device, legal=", ".join(t.name for t in legal),
                             detail=_MIX_VECTOR_CORE_DETAIL if value == _K.KERNEL_TYPE_MIX_VECTOR_CORE and
                             value in _KERNEL_TYPES[device] else
                             "aj.launch runs vector cores only" if value in _KERNEL_TYPES[device] else
                             "not a kernel type of this device (DK 设置Kernel类型.md)")


# g_coreType by build (impl/utils/sys_macros.h): AIV on the split-core vector builds (__NPU_ARCH__ 2201, 3510), MIX
# elsewhere, where ASCEND_IS_AIV and ASCEND_IS_AIC are both false
_SPLIT_CORE_DEVICES = ("ascend950", "atlas-a3", "atlas-a2")


class _CoreTypeMacro:
    """A `g_coreType` test macro, usable as C++ writes it (`if (ASCEND_IS_AIV) {...}`: `if aj.ASCEND_IS_AIV:`) or
    called (`aj.ASCEND_IS_AIV()`); both read the current core. As a plain function the first form was always true,
    and a literal port of `if ASCEND_IS_AIC { return; }` returned before doing anything (port39n)."""

    def __init__(self, name, test):
        self._name, self._test = name, test

    def __call__(self):
        core = _core(self._name)
        core.spec.require_supported(self._name)
        return self._test(core.device)

    __bool__ = __call__

    def __repr__(self):
        return f"aj.{self._name}"


# `ASCEND_IS_AIV` (`g_coreType == AIV`; impl/utils/sys_macros.h): True on the split-core devices (950, A2, A3), whose
# vector cores run every aj.launch; False on the others, whose g_coreType is MIX. `ASCEND_IS_AIC` (`g_coreType ==
# AIC`): False on every device (no launch here runs a cube core).
ASCEND_IS_AIV = _CoreTypeMacro("ASCEND_IS_AIV", lambda device: device in _SPLIT_CORE_DEVICES)
ASCEND_IS_AIC = _CoreTypeMacro("ASCEND_IS_AIC", lambda device: False)


def SetSysWorkspace(workspace):
    """`SetSysWorkspace(workspace)` (DK 资源管理/workspace/SetSysWorkSpace.md; impl/basic_api/dav_c220 and dav_3510
    kernel_operator_common_impl.h): records the kernel's workspace (GM_ADDR: the 1-D numpy array of the whole
    workspace, system part first) as the core's system workspace, which GetSysWorkSpacePtr returns. As in the
    devkit, only the first call of a kernel sets it (`if (g_sysWorkspaceReserved == nullptr)`); None (nullptr) is
    refused, the devkit's CPU-debug assertion. The vector instructions emulated here use no system workspace, so
    the call changes no value (docs/decisions.md "Kernel utilities")."""
    api = "SetSysWorkspace"
    core = _core(api)
    _reserved_workspace(api, core.device, "SetSysWorkSpace")
    _check_workspace(api, core.device, workspace)
    if core.sys_workspace is None:
        core.sys_workspace = workspace


def GetSysWorkSpacePtr():
    """`GetSysWorkSpacePtr()` (DK 资源管理/workspace/GetSysWorkSpacePtr.md): the system workspace SetSysWorkspace
    recorded, the same array. Before any SetSysWorkspace it is a StateError (the device returns nullptr)."""
    api = "GetSysWorkSpacePtr"
    core = _core(api)
    _reserved_workspace(api, core.device, "GetSysWorkSpacePtr")
    if core.sys_workspace is None:
        raise StateError(api, "system workspace", None, device=core.device,
                         legal="after aj.SetSysWorkspace(workspace)",
                         detail="no system workspace: call aj.SetSysWorkspace(workspace) "
                                                         "first (the device would return nullptr)")
    return core.sys_workspace


class CacheLine(enum.IntEnum):
    """`CacheLine` of DataCacheCleanAndInvalid (the devkit's values)."""
    SINGLE_CACHE_LINE = 0
    ENTIRE_DATA_CACHE = 1


class DcciDst(enum.IntEnum):
    """`DcciDst` of DataCacheCleanAndInvalid (the devkit's values)."""
    CACHELINE_ALL = 0
    CACHELINE_UB = 1
    CACHELINE_OUT = 2
    CACHELINE_ATOMIC = 3


_DCCI_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")


def DataCacheCleanAndInvalid(dst, *, entire_type, dcci_dst=None):
    """`DataCacheCleanAndInvalid<T, entireType[, dcciDst]>(dst)` (DK `缓存控制/DataCacheCleanAndInvalid.md`): write
    back and invalidate the scalar unit's data cache lines holding `dst` (a GlobalTensor; a LocalTensor only with
    dcci_dst), so that scalar GM writes reach GM and scalar reads see other cores' writes. The emulator's scalar
    unit reads and writes GM and the UB directly, with no cache between, so there is nothing to write back: the
    call checks its arguments (the template arguments as keywords, DESIGN.md) and the page's device rules (not the
    910; the 310P only without dcciDst; CACHELINE_ATOMIC the 950's) and changes no value (docs/decisions.md
    "DataCacheCleanAndInvalid"). The sanitizer's "dcache" check (on with "device-sync", or named) models the cache
    and takes the call as the device does: SINGLE_CACHE_LINE cleans the line of dst's first byte from that byte to
    the line's 64-byte end only (the page: an unaligned address covers only the part up to the 64B boundary),
    ENTIRE_DATA_CACHE every line of the core; dcci_dst CACHELINE_UB or a LocalTensor dst clean no GM line
    (sanitizer.DcacheModel)."""
    api = "DataCacheCleanAndInvalid"
    core = _core(api)
    device = core.device
    if device not in _DCCI_DEVICES:   # the page's product list (port5: ops-nn's 310P scalar kernel)
        raise UnsupportedDeviceError(api, "device", device, legal=", ".join(_DCCI_DEVICES),
                                     detail="not offered here (DK DataCacheCleanAndInvalid.md)")
    if not isinstance(dst, (GlobalTensor, LocalTensor)):
        raise ParameterError(api, "dst", type(dst).__name__, legal="an aj.GlobalTensor or aj.LocalTensor",
                             device=device)
    from .api._common import as_enum
    entire_type = as_enum(api, device, "entire_type", entire_type, CacheLine)
    if dcci_dst is not None:
        dcci_dst = as_enum(api, device, "dcci_dst", dcci_dst, DcciDst)
    if dcci_dst is not None and device == "atlas-inference-aicore":
        raise ParameterError(api, "dcci_dst", dcci_dst.name, device=device,
                             legal="None: this device offers only the prototype without dcciDst")
    if dcci_dst is DcciDst.CACHELINE_ATOMIC and device != "ascend950":
        raise UnsupportedDeviceError(api, "dcci_dst", dcci_dst.name, device=device,
                                     legal="CACHELINE_ALL, CACHELINE_UB or CACHELINE_OUT (CACHELINE_ATOMIC: the 950)")
    if dcci_dst is None and isinstance(dst, LocalTensor):
        raise ParameterError(api, "dcci_dst", None, legal="an aj.DcciDst member (the LocalTensor form has no "
                             "default: DataCacheCleanAndInvalid<T, entireType, dcciDst>)", device=device)
    if core.sanitizer is not None:   # the data-cache check: which lines of this core's cache it covers
        core.sanitizer.dcache_clean(dst, entire_type is CacheLine.ENTIRE_DATA_CACHE, isinstance(dst, GlobalTensor)
                                    and dcci_dst is not DcciDst.CACHELINE_UB)


def SyncAll(gm_workspace=None, ub_workspace=None, used_cores=0, *, is_aiv_only=True):
    """`SyncAll()` (hard form: 950, A2, A3) or `SyncAll(gm_workspace, ub_workspace, used_cores=0)` (soft form: all
    but 310B; DK `同步控制/核间同步/SyncAll.md`): every block of the current `aj.launch` waits here until all
    have arrived. The soft form's workspace traffic is not modelled; used_cores must be 0 (every block). The C++
    template argument `SyncAll<isAIVOnly>()` is the keyword `is_aiv_only`: True (the default) only, since every
    launch here is vector-only (False also waits for the cube cores of a mixed kernel)."""
    from .tensor import GlobalTensor, LocalTensor
    api = "SyncAll"
    core = _core(api)
    spec = core.spec
    spec.require_supported(api)
    if is_aiv_only is not True or isinstance(gm_workspace, bool):
        given = gm_workspace if isinstance(gm_workspace, bool) else is_aiv_only
        raise ParameterError(api, "is_aiv_only", given, device=core.device,
                             legal="True, as the keyword is_aiv_only= (SyncAll<true>(); every aj.launch is "
                                   "vector-only, so SyncAll<false>(), which also waits for the cube cores of a mixed "
                                   "kernel, is not modelled)",
                             detail="positional" if isinstance(gm_workspace, bool) else None)
    if gm_workspace is None and ub_workspace is None:
        if not spec.sync_all_hard:
            raise UnsupportedDeviceError(api, "device", core.device, legal="ascend950, atlas-a3, atlas-a2",
                                         detail="the hard SyncAll() is not offered here"
                                                + ("; use SyncAll(gm_workspace, ub_workspace)" if spec.sync_all_soft
                                                   else "") + _NO_HARD_SYNC_ALL.get(core.device, ""))
    else:
        if not spec.sync_all_soft:
            raise UnsupportedDeviceError(api, "device", core.device, detail="SyncAll is not offered here",
                                         legal="every device but atlas-200i-500-a2")
        for name, value, kind in (("gm_workspace", gm_workspace, GlobalTensor), ("ub_workspace", ub_workspace,
                                                                                  LocalTensor)):
            if not isinstance(value, kind):
                raise ParameterError(api, name, type(value).__name__, legal=f"a {kind.__name__}", device=core.device)
        from .api._common import as_int
        # an integer: True, 1.0 and np.float32(0) had passed the comparison (audit17h)
        used_cores = as_int(api, spec, "used_cores", used_cores)
        if used_cores not in (0, core.block_num):
            raise ParameterError(api, "used_cores", used_cores, device=core.device,
                                 legal=f"0 or {core.block_num} (a sync of some of the blocks is not modelled)")
    if core.sanitizer is not None:   # both forms start with PipeBarrier<PIPE_ALL> (devkit SyncAllImpl, SoftSyncAllImpl)
        core.sanitizer.pipe_barrier("PIPE_ALL")
    if core.launch is not None:
        core.launch.sync_all(core)
        if core.launch.gm_shadow is not None:
            core.launch.gm_shadow.sync_all(core.block_idx)
    core._sync_event(api)
