"""Kernel scaffolding so the seeds' complete examples run as written: TPipe, TQue, TBuf and DataCopy (GM <-> UB).

DataCopy rules (docs/decisions.md "DataCopy"): UB addresses 32-byte aligned, the amount a multiple of 32 bytes, GM
addresses free (SPEC 8.2 general alignment rule).
"""
from collections import deque
from dataclasses import dataclass

import numpy as np

from .api._common import INT32_MAX, as_int
from .core import Core, current_core
from .dtypes import ALL as ALL_DTYPES, resolve
from .errors import AlignmentError, OutOfBoundsError, ParameterError, StateError
from .jit.direct import EntryTable
from .jit.movement import copy_runs
from .sync import EventIdPool
from .tensor import GlobalTensor, LocalTensor, TPosition, _Unsealed

_NEW = object.__new__


_DTYPES = {d.name: d for d in ALL_DTYPES}  # AllocTensor's dtype names without resolve's aliases and lower-casing


class _Buffer:
    """One UB buffer of a queue or TBuf; `lease` is its current allocation (None when free)."""
    __slots__ = ("addr", "nbytes", "lease", "owner")

    def __init__(self, addr, nbytes):
        self.addr, self.nbytes, self.lease, self.owner = addr, nbytes, None, None


class _Lease:
    """One AllocTensor of a buffer. Freed, it stays dead: the next AllocTensor of the buffer makes a new lease, so a
    stale handle can neither be used nor free the new owner's buffer (issue 12)."""
    __slots__ = ("buffer", "alive")

    def __init__(self, buffer):
        self.buffer, self.alive = buffer, True


class TPipe(EventIdPool):
    """Owns UB memory handed to queues and buffers, and the event ids (FetchEventID / AllocEventID /
    ReleaseEventID, sync.py). `TPipe()` binds the current core; `TPipe(core)` a given one. The newest TPipe of a
    core is its `GetTPipePtr()`."""

    def __init__(self, core=None):
        if core is not None and not isinstance(core, Core):
            raise ParameterError("TPipe", "core", type(core).__name__, legal="an aj.Core (or none: the current core)")
        self.core = core if core is not None else current_core("TPipe")
        EventIdPool.__init__(self, self.core)
        self.core.tpipe = self
        self._addrs = []

    def InitBuffer(self, que_or_buf, num_or_len, len_bytes=None):
        """`InitBuffer(que, num, len)` for a TQue, `InitBuffer(tbuf, len)` for a TBuf."""
        if isinstance(que_or_buf, TBuf):
            num, nbytes = 1, num_or_len
        elif isinstance(que_or_buf, TQue):
            num, nbytes = num_or_len, len_bytes
        else:
            raise ParameterError("InitBuffer", "que", type(que_or_buf).__name__, legal="an aj.TQue or aj.TBuf",
                                 device=self.core.device)
        ub = self.core.spec.ub_bytes
        num = as_int("InitBuffer", self.core.spec, "num", num, 1, ub // 32)
        nbytes = as_int("InitBuffer", self.core.spec, "len", nbytes, 1, ub)
        if que_or_buf.pipe is not None:
            raise StateError("InitBuffer", "que", type(que_or_buf).__name__, device=self.core.device,
                             detail="already initialised (InitBuffer binds a queue or buffer once)")
        need = num * max(32, -(-nbytes // 32) * 32)
        free = sum(size for _, size in self.core._free)
        if need > free:  # refuse before allocating any of the buffers
            raise OutOfBoundsError("InitBuffer", "num * len", (num, nbytes), device=self.core.device,
                                   legal=f"buffers within the {free} free UB bytes (these need {need} B)")
        buffers = []
        try:
            for _ in range(num):
                buffers.append(_Buffer(self.core.alloc(nbytes, "InitBuffer"), nbytes))
        except OutOfBoundsError:  # fragmented free space: give back what this call took
            for b in buffers:
                self.core.free(b.addr)
            raise
        self._addrs.extend(b.addr for b in buffers)
        que_or_buf._bind(self, buffers)

    def Destroy(self):
        for addr in self._addrs:
            self.core.free(addr)
        self._addrs = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.Destroy()
        return False


def _check_position(api, position):
    if not isinstance(position, TPosition):
        raise ParameterError(api, "position", position, legal="an aj.TPosition (VECIN, VECOUT, VECCALC): "
                             f"{api}(aj.TPosition.VECIN, depth)", detail=f"got {type(position).__name__}; the C++ "
                             "template arguments <pos, depth> are (position, depth) here, position first")


class TQue:
    """`TQue<pos, depth>`: AllocTensor / EnQue / DeQue / FreeTensor over the buffers InitBuffer gave it."""

    def __init__(self, position=TPosition.VECIN, depth=1):
        _check_position("TQue", position)
        self.position, self.depth, self.pipe = position, as_int("TQue", None, "depth", depth, 1, 2**16), None
        self._buffers, self._queue = [], deque()

    def _bind(self, pipe, buffers):
        self.pipe, self._buffers = pipe, buffers
        for b in buffers:
            b.owner = self

    def _device(self):
        return self.pipe.core.device if self.pipe else None

    def AllocTensor(self, dtype):
        if self.pipe is None:
            raise StateError("AllocTensor", detail="queue has no buffers: call pipe.InitBuffer(que, num, len) first")
        d = _DTYPES.get(dtype) if type(dtype) is str else None
        if d is None:
            d = resolve(dtype, "AllocTensor")
        for buffer in self._buffers:
            if buffer.lease is None:
                lease = buffer.lease = _NEW(_Lease)
                lease.buffer, lease.alive = buffer, True
                core = self.pipe.core
                if core.sanitizer is not None:  # FreeTensor .. AllocTensor orders the buffer's users; stale data
                    core.sanitizer.hand_off(buffer.addr, buffer.nbytes)
                    core.sanitizer.undefine(buffer.addr, buffer.nbytes)
                # InitBuffer placed the buffer inside the UB: no placement checks on this hot path
                t = _NEW(_Unsealed)  # LocalTensor._proven inlined
                t._core = core
                t._dtype = d
                t._addr = buffer.addr
                t._size = buffer.nbytes // d.size
                t._position = self.position
                t._lease = lease
                t.__class__ = LocalTensor
                return t
        raise StateError("AllocTensor", "buffers", len(self._buffers), device=self._device(),
                         detail="every buffer of this queue is in use (FreeTensor one first)")

    def EnQue(self, tensor):
        if type(tensor) is not LocalTensor and not isinstance(tensor, LocalTensor):
            raise ParameterError("EnQue", "tensor", type(tensor).__name__, legal="a LocalTensor", device=self._device())
        if tensor._lease is not None and not tensor._lease.alive:
            tensor.check_alive("EnQue")
        if len(self._queue) >= self.depth:
            raise StateError("EnQue", "depth", self.depth, detail="queue is full", device=self._device())
        self._queue.append(tensor)
        return True

    def DeQue(self, dtype=None):
        if not self._queue:
            raise StateError("DeQue", detail="queue is empty (DeQue without a matching EnQue)", device=self._device())
        tensor = self._queue.popleft()
        if tensor._core.sanitizer is not None:  # EnQue .. DeQue is a synchronisation (SPEC-2 10.4)
            tensor._core.sanitizer.hand_off(tensor.addr, tensor.nbytes)
        if dtype is None or (type(dtype) is str and _DTYPES.get(dtype) is tensor._dtype):
            return tensor
        return tensor.ReinterpretCast(dtype)

    def FreeTensor(self, tensor):
        lease = tensor._lease if type(tensor) is LocalTensor or isinstance(tensor, LocalTensor) else None
        if lease is None or lease.buffer.owner is not self:
            raise StateError("FreeTensor", "tensor", tensor, detail="not allocated by this queue",
                             device=self._device())
        if not lease.alive:
            raise StateError("FreeTensor", "tensor", tensor, detail="double free (or a tensor freed earlier)",
                             device=self._device())
        lease.alive = False
        lease.buffer.lease = None

    def VacantInQue(self):
        return len(self._queue) < self.depth

    def HasTensorInQue(self):
        return bool(self._queue)


class TBuf:
    """`TBuf<pos>`: one buffer, `Get(dtype[, count])` returns a tensor over it."""

    def __init__(self, position=TPosition.VECCALC):
        _check_position("TBuf", position)
        self.position, self.pipe, self._buffer = position, None, None

    def _bind(self, pipe, buffers):
        self.pipe, self._buffer = pipe, buffers[0]

    def Get(self, dtype, count=None):
        if self.pipe is None:
            raise StateError("TBuf.Get", detail="call pipe.InitBuffer(tbuf, len) first")
        d = resolve(dtype, "TBuf.Get")
        cap = self._buffer.nbytes // d.size
        n = cap if count is None else as_int("TBuf.Get", self.pipe.core.spec, "count", count, 0)
        if n > cap:
            raise OutOfBoundsError("TBuf.Get", "count", n, legal=f"[0, {cap}]", device=self.pipe.core.device)
        return LocalTensor._proven(self.pipe.core, d, self._buffer.addr, n, self.position)

    def GetWithOffset(self, dtype, size, buf_offset):
        """`GetWithOffset<T>(size, bufOffset)`: `size` elements from `buf_offset` bytes into the buffer; the offset
        32-byte aligned and size * sizeof(T) + offset inside the InitBuffer length (DK TBuf/GetWithOffset.md)."""
        api = "TBuf.GetWithOffset"
        if self.pipe is None:
            raise StateError(api, detail="call pipe.InitBuffer(tbuf, len) first")
        spec, d = self.pipe.core.spec, resolve(dtype, api)
        nbytes = self._buffer.nbytes
        offset = as_int(api, spec, "bufOffset", buf_offset, 0, nbytes)
        if offset % 32:
            raise AlignmentError(api, "bufOffset", offset, legal="a multiple of 32 bytes", device=spec.name)
        n = as_int(api, spec, "size", size, 0, (nbytes - offset) // d.size)
        return LocalTensor._proven(self.pipe.core, d, self._buffer.addr + offset, n, self.position)


# mutable like BinaryRepeatParams (C++ kernels default-construct it and set fields); equality and hash are the
# fields' values (SPEC-2 1.1: parameter structs are dataclasses with the C++ field names and constructor order)
@dataclass(unsafe_hash=True, slots=True)
class DataCopyParams:
    """blockCount blocks of blockLen DataBlocks (32 B); gaps srcStride / dstStride in DataBlocks. DataCopy also
    takes a plain tuple of these four fields (SPEC-2 1.1)."""
    blockCount: int = 1
    blockLen: int = 0
    srcStride: int = 0
    dstStride: int = 0


def _gm_bytes(gm):
    return gm.array.view(np.uint8)


def _check_operands(api, dst, src):
    """Only GM <-> UB and UB <-> UB of one core exist on the hardware; anything else is named in the refusal."""
    for side, t in (("dst", dst), ("src", src)):
        if not isinstance(t, (LocalTensor, GlobalTensor)):
            raise ParameterError(api, side, type(t).__name__, legal="an aj.LocalTensor or aj.GlobalTensor",
                                 detail="(wrap host arrays with aj.GlobalTensor(array))")
        if isinstance(t, GlobalTensor) and t.array is None:
            raise StateError(api, side, t, detail="the GlobalTensor has no buffer: call SetGlobalBuffer(array) first")
    if isinstance(dst, GlobalTensor) and isinstance(src, GlobalTensor):
        raise ParameterError(api, "dst, src", "GlobalTensor, GlobalTensor", legal="one side a LocalTensor",
                             detail="there is no GM -> GM DataCopy on the hardware: copy through the UB")
    if isinstance(dst, LocalTensor) and isinstance(src, LocalTensor) and dst.core is not src.core:
        raise ParameterError(api, "dst, src", f"tensors of two cores ({dst.core!r}, {src.core!r})",
                             legal="both on one core", device=dst.core.device,
                             detail="a core cannot copy into another core's UB: go through GM")


def _validate(api, dst, src, count_or_params, core):
    """Every DataCopy rule (operands checked by the caller); returns the runs (src byte offset, dst byte offset,
    bytes), offsets from each tensor's element 0."""
    device = core.device
    core.spec.require_supported(api)  # SPEC D13: the inference Vector Core offers no API
    if count_or_params is None:
        raise ParameterError(api, "count", None, legal="an element count or aj.DataCopyParams(...)",
                             detail="missing: DataCopy(dst, src, count)", device=device)
    if type(count_or_params) is tuple:  # SPEC-2 1.1: a plain tuple of the struct's length stands for the struct
        if len(count_or_params) != 4:
            raise ParameterError(api, "repeat_params", count_or_params, device=device,
                                 legal="aj.DataCopyParams(blockCount, blockLen, srcStride, dstStride) or a tuple of "
                                       "those 4 fields")
        count_or_params = DataCopyParams(*count_or_params)
    if src.dtype.size != dst.dtype.size:
        raise ParameterError(api, "dtype", (src.dtype.name, dst.dtype.name), legal="src and dst of the same size",
                             device=device)
    if isinstance(count_or_params, DataCopyParams):
        p = count_or_params
        # devkit CheckDataCopyParams: blockCount is 12 bits and at least 1; the rest are uint16 (decisions.md)
        count, length, src_gap, dst_gap = (as_int(api, device, name, v, lo, hi) for name, v, lo, hi in (
            ("blockCount", p.blockCount, 1, 4095), ("blockLen", p.blockLen, 1, 65535),
            ("srcStride", p.srcStride, 0, 65535), ("dstStride", p.dstStride, 0, 65535)))
        runs = tuple((i * (length + src_gap) * 32, i * (length + dst_gap) * 32, length * 32) for i in range(count))
    else:
        count = as_int(api, device, "count", count_or_params, 0, INT32_MAX)
        esize = src.dtype.size
        if (count * esize) % 32:
            raise AlignmentError(api, "count", count, legal=f"count * {esize} B a multiple of 32 B "
                                 "(DataCopy moves whole DataBlocks; pad the data)", device=device)
        runs = ((0, 0, count * esize),)
    for side, t, index in (("dst", dst, 1), ("src", src, 0)):
        if isinstance(t, LocalTensor):
            if t.addr % 32:
                raise AlignmentError(api, f"{side} address", t.addr, legal="32-byte aligned UB address",
                                     device=t.core.device)
            limit = t.nbytes
        else:
            limit = t._nbytes
        far = runs[-1][index] + runs[-1][2]  # the last run ends furthest (offsets grow with the run index)
        if far > limit:
            raise OutOfBoundsError(api, side, t, legal=f"at most {limit} bytes (the copy needs {far})", device=device)
    return runs


def _count_key(count_or_params):
    """The memo key of DataCopy's count or params: a plain int as itself, anything else with its type (2, 2.0,
    np.int64(2) and True key apart although they compare equal), or None when something is unhashable (validated
    uncached)."""
    if type(count_or_params) is int:
        return count_or_params
    if isinstance(count_or_params, DataCopyParams):
        p = count_or_params
        key = tuple((type(v), v) for v in (p.blockCount, p.blockLen, p.srcStride, p.dstStride))
    elif type(count_or_params) is tuple:  # typed too: (True, 4, 0, 0) must not reuse the shape of (1, 4, 0, 0)
        key = (tuple, tuple((type(v), v) for v in count_or_params))
    else:
        key = (type(count_or_params), count_or_params)
    try:
        hash(key)
    except TypeError:
        return None
    return key


_PLANS = {}          # DataCopy call shape -> (runs, run count, run bytes, src step, dst step, far GM byte, entry)
_PLANS_MAX = 8192    # distinct call shapes remembered (a kernel has a handful; the memo is cleared when full)
_GM_TO_UB, _UB_TO_GM, _UB_TO_UB = 0, 1, 2
_COPY = EntryTable()  # one key: every argument's type is fixed (uint8 arrays, Python ints)


def DataCopy(dst, src, count_or_params=None, *, count=None, repeat_params=None):
    """GM -> UB, UB -> GM or UB -> UB (one core): `DataCopy(dst, src, count)` or `DataCopy(dst, src,
    DataCopyParams(...))`; the third argument may also be given by its C++ name in snake case, `count=` or
    `repeat_params=` (SPEC-2 1.1). UB -> GM combines with GM while SetAtomicAdd/Max/Min is set (sync.py). Every check
    (operands, ranges, the far end of the copy in closed form) runs before the first byte moves.

    Validation is memoised per call shape (direction, element types, UB addresses and sizes, the count or params
    with their types); GM sizes stay out of the key (a tiled kernel's GM sub-tensors shrink tile by tile): the far
    GM byte of the proven shape is compared with the GM tensor's size on every call, and a GM destination's
    writability too. A proven shape goes straight to one compiled copy (jit/movement.py copy_runs, GIL released)
    through its machine-code entry (jit/direct.py), kept in the plan."""
    if count is not None or repeat_params is not None:
        count_or_params = _keyword_argument(count_or_params, count, repeat_params)
    count_key = count_or_params if type(count_or_params) is int else _count_key(count_or_params)
    tdst, tsrc = type(dst), type(src)
    if tdst is LocalTensor:
        core = dst._core
        if tsrc is GlobalTensor and src._root is not None:
            if dst._lease is not None and not dst._lease.alive:
                dst.check_alive("DataCopy")
            plan = _PLANS.get((_GM_TO_UB, core.spec, dst._dtype, src.dtype, count_key, dst._addr, dst._size)) \
                if count_key is not None else None
            if plan is None or plan[5] > src._nbytes:
                plan = _prove(dst, src, count_or_params, core, count_key, _GM_TO_UB)
            if core.sanitizer is None:
                plan[6](core.ub, dst._addr, src._bytes, src._at, plan[1], plan[2], plan[3], plan[4])
                return
            _copy_with_state("DataCopy", core, dst, src, plan[0])
            return
        if tsrc is LocalTensor and src._core is core:
            if src._lease is not None and not src._lease.alive:
                src.check_alive("DataCopy")
            if dst._lease is not None and not dst._lease.alive:
                dst.check_alive("DataCopy")
            plan = _PLANS.get((_UB_TO_UB, core.spec, dst._dtype, src._dtype, count_key, dst._addr, dst._size,
                               src._addr, src._size)) if count_key is not None else None
            if plan is None:
                plan = _prove(dst, src, count_or_params, core, count_key, _UB_TO_UB)
            if core.sanitizer is None:
                ub = core.ub
                plan[6](ub, dst._addr, ub, src._addr, plan[1], plan[2], plan[3], plan[4])
                return
            _copy_with_state("DataCopy", core, dst, src, plan[0])
            return
    elif tdst is GlobalTensor and tsrc is LocalTensor and dst._root is not None:
        core = src._core
        if src._lease is not None and not src._lease.alive:
            src.check_alive("DataCopy")
        plan = _PLANS.get((_UB_TO_GM, core.spec, dst.dtype, src._dtype, count_key, src._addr, src._size)) \
            if count_key is not None else None
        if plan is None or plan[5] > dst._nbytes:
            plan = _prove(dst, src, count_or_params, core, count_key, _UB_TO_GM)
        if not dst._root.flags.writeable:
            _refuse_read_only(core, dst)
        if core.sanitizer is None and core.atomic is None:
            plan[6](dst._bytes, dst._at, core.ub, src._addr, plan[1], plan[2], plan[3], plan[4])
            return
        _copy_with_state("DataCopy", core, dst, src, plan[0])
        return
    # refused, or subclasses of the tensor types: every check, every call
    _data_copy_unmemoised(dst, src, count_or_params)


def _keyword_argument(positional, count, repeat_params):
    """The one amount argument of DataCopy given as `count=` or `repeat_params=` (SPEC-2 1.1 keyword names)."""
    given = [name for name, v in (("count_or_params", positional), ("count", count),
                                  ("repeat_params", repeat_params)) if v is not None]
    if len(given) > 1:
        raise ParameterError("DataCopy", ", ".join(given), "several", legal="one of count or repeat_params",
                             detail="the third argument is either an element count or a DataCopyParams")
    if repeat_params is not None and not isinstance(repeat_params, (DataCopyParams, tuple)):
        raise ParameterError("DataCopy", "repeat_params", type(repeat_params).__name__,
                             legal="an aj.DataCopyParams or a tuple of its 4 fields")
    return count if count is not None else repeat_params


def _refuse_read_only(core, gm):
    raise ParameterError("DataCopy", "dst", gm, device=core.device, legal="a writable GM buffer",
                         detail="the GlobalTensor's array is read-only")


def _prove(dst, src, count_or_params, core, count_key, direction):
    """Validate one call (raises before anything moves); remember its plan under its call shape (count_key None:
    not memoisable). GM <-> UB runs that follow each other without gaps are one copy (UB -> UB runs stay one by one:
    they may overlap)."""
    runs = _validate("DataCopy", dst, src, count_or_params, core)
    count, run_bytes = len(runs), runs[0][2]
    step_src, step_dst = (runs[1][0], runs[1][1]) if count > 1 else (0, 0)
    if direction != _UB_TO_UB and count > 1 and step_src == step_dst == run_bytes:
        count, run_bytes, step_src, step_dst = 1, count * run_bytes, 0, 0
    far_gm = runs[-1][0] + runs[-1][2] if direction == _GM_TO_UB else runs[-1][1] + runs[-1][2]
    entry = _COPY.get(0, copy_runs, (core.ub, 0, core.ub, 0, count, run_bytes, step_src, step_dst))
    plan = (runs, count, run_bytes, step_src, step_dst, far_gm, entry)
    if count_key is not None:
        if len(_PLANS) >= _PLANS_MAX:
            _PLANS.clear()
        if direction == _GM_TO_UB:
            key = (direction, core.spec, dst._dtype, src.dtype, count_key, dst._addr, dst._size)
        elif direction == _UB_TO_GM:
            key = (direction, core.spec, dst.dtype, src._dtype, count_key, src._addr, src._size)
        else:
            key = (direction, core.spec, dst._dtype, src._dtype, count_key, dst._addr, dst._size, src._addr,
                   src._size)
        _PLANS[key] = plan
    return plan


def _data_copy_unmemoised(dst, src, count_or_params):
    """DataCopy for operands outside the memoised path: the refusals (_check_operands) and subclass instances."""
    api = "DataCopy"
    _check_operands(api, dst, src)
    core = dst.core if isinstance(dst, LocalTensor) else src.core
    for t in (dst, src):
        if isinstance(t, LocalTensor):
            t.check_alive(api)
    runs = _validate(api, dst, src, count_or_params, core)
    if isinstance(dst, GlobalTensor) and not dst._root.flags.writeable:
        _refuse_read_only(core, dst)
    _copy_with_state(api, core, dst, src, runs)


def _copy_with_state(api, core, dst, src, runs):
    """DataCopy by numpy slices: on a sanitizing core (the sanitizer sees the runs), under an atomic mode (UB -> GM
    combines with GM) and outside the memoised path."""
    if core.sanitizer is not None:
        if core.atomic is not None and isinstance(dst, GlobalTensor):
            check_atomic_dtype(api, core, dst)   # a refusal first: a refused copy is no access (issue 17)
        core.sanitizer.copy_access(api, dst, src, runs, atomic=isinstance(dst, GlobalTensor) and core.atomic is not None)
    src_bytes = src.core.ub[src.addr:src.addr + src.nbytes] if isinstance(src, LocalTensor) else _gm_bytes(src)
    dst_bytes = dst.core.ub[dst.addr:dst.addr + dst.nbytes] if isinstance(dst, LocalTensor) else _gm_bytes(dst)
    if isinstance(src, LocalTensor) and isinstance(dst, GlobalTensor) and src.core.atomic is not None:
        atomic_copy(src.core, dst, dst_bytes, src_bytes, runs)
        return
    for s, d, n in runs:
        dst_bytes[d:d + n] = src_bytes[s:s + n]


def check_atomic_dtype(api, core, dst):
    """Under SetAtomicAdd/Max/Min the GM destination has the mode's type."""
    op, d = core.atomic
    if dst.dtype is not d:
        raise ParameterError(api, "dst.dtype", dst.dtype.name, device=core.device,
                             legal=f"{d.name}, the type of the atomic mode set (SetAtomic{op.capitalize()})")


def atomic_copy(core, dst, dst_bytes, src_bytes, runs):
    """UB -> GM under SetAtomicAdd/Max/Min: each element combined with GM (jit/atomic.py), in the launch's turn
    order across blocks (launch.py). runs: (src byte offset, dst byte offset, bytes). Every UB -> GM copy
    (DataCopy, later DataCopyPad) goes through here while the core's atomic mode is set."""
    from .jit.atomic import ATOMIC_OPS, atomic_combine
    check_atomic_dtype("DataCopy", core, dst)
    op, d = core.atomic
    if core.launch is not None:
        core.launch.atomic_turn(core)
    for s, o, n in runs:
        atomic_combine(dst_bytes[o:o + n], src_bytes[s:s + n], n // d.size, d.kind, ATOMIC_OPS[op],
                       core.half_saturating, core.int_saturating)
    core._sync_event("DataCopy (atomic)", op=op, dtype=d.name, dst=dst, runs=runs)
