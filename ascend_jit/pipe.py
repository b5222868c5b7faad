"""Kernel scaffolding so the seeds' complete examples run as written: TPipe, TQue, TBuf and DataCopy (GM <-> UB).

DataCopy rules (docs/decisions.md "DataCopy"): UB addresses 32-byte aligned, the amount a multiple of 32 bytes, GM
addresses free (SPEC 8.2 general alignment rule).
"""
from collections import deque

import numpy as np

from .core import current_core
from .dtypes import resolve
from .errors import AlignmentError, OutOfBoundsError, ParameterError, StateError
from .sync import EventIdPool
from .tensor import GlobalTensor, LocalTensor, TPosition


class _Lease:
    __slots__ = ("addr", "nbytes", "alive")

    def __init__(self, addr, nbytes):
        self.addr, self.nbytes, self.alive = addr, nbytes, False


class TPipe(EventIdPool):
    """Owns UB memory handed to queues and buffers, and the event ids (FetchEventID / AllocEventID /
    ReleaseEventID, sync.py). `TPipe()` binds the current core; `TPipe(core)` a given one. The newest TPipe of a
    core is its `GetTPipePtr()`."""

    def __init__(self, core=None):
        self.core = core if core is not None else current_core("TPipe")
        EventIdPool.__init__(self, self.core)
        self.core.tpipe = self
        self._addrs = []

    def InitBuffer(self, que_or_buf, num_or_len, len_bytes=None):
        """`InitBuffer(que, num, len)` for a TQue, `InitBuffer(tbuf, len)` for a TBuf."""
        if isinstance(que_or_buf, TBuf):
            num, nbytes = 1, num_or_len
        else:
            num, nbytes = num_or_len, len_bytes
        if not isinstance(num, int) or num < 1:
            raise ParameterError("InitBuffer", "num", num, legal=">= 1", device=self.core.device)
        if not isinstance(nbytes, int) or nbytes < 1:
            raise ParameterError("InitBuffer", "len", nbytes, legal=">= 1 byte", device=self.core.device)
        if que_or_buf.pipe is not None:
            raise StateError("InitBuffer", "queue", que_or_buf, detail="already initialised", device=self.core.device)
        leases = []
        for _ in range(num):
            addr = self.core.alloc(nbytes, "InitBuffer")
            self._addrs.append(addr)
            leases.append(_Lease(addr, nbytes))
        que_or_buf._bind(self, leases)

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
        if not isinstance(depth, int) or depth < 1:
            raise ParameterError("TQue", "depth", depth, legal=">= 1")
        self.position, self.depth, self.pipe = position, depth, None
        self._leases, self._queue = [], deque()

    def _bind(self, pipe, leases):
        self.pipe, self._leases = pipe, leases

    def _device(self):
        return self.pipe.core.device if self.pipe else None

    def AllocTensor(self, dtype):
        if self.pipe is None:
            raise StateError("AllocTensor", detail="queue has no buffers: call pipe.InitBuffer(que, num, len) first")
        d = resolve(dtype, "AllocTensor")
        for lease in self._leases:
            if not lease.alive:
                lease.alive = True
                sanitizer = self.pipe.core.sanitizer
                if sanitizer is not None:  # FreeTensor .. AllocTensor orders the buffer's earlier users; stale data
                    sanitizer.hand_off(lease.addr, lease.nbytes)
                    sanitizer.undefine(lease.addr, lease.nbytes)
                return LocalTensor(self.pipe.core, d, lease.addr, lease.nbytes // d.size, self.position, lease)
        raise StateError("AllocTensor", "buffers", len(self._leases), device=self._device(),
                         detail="every buffer of this queue is in use (FreeTensor one first)")

    def EnQue(self, tensor):
        tensor.check_alive("EnQue")
        if len(self._queue) >= self.depth:
            raise StateError("EnQue", "depth", self.depth, detail="queue is full", device=self._device())
        self._queue.append(tensor)
        return True

    def DeQue(self, dtype=None):
        if not self._queue:
            raise StateError("DeQue", detail="queue is empty (DeQue without a matching EnQue)", device=self._device())
        tensor = self._queue.popleft()
        if tensor.core.sanitizer is not None:  # EnQue .. DeQue is a synchronisation (SPEC-2 10.4)
            tensor.core.sanitizer.hand_off(tensor.addr, tensor.nbytes)
        return tensor if dtype is None else tensor.ReinterpretCast(dtype)

    def FreeTensor(self, tensor):
        lease = tensor._lease
        if lease is None or lease not in self._leases:
            raise StateError("FreeTensor", "tensor", tensor, detail="not allocated by this queue", device=self._device())
        if not lease.alive:
            raise StateError("FreeTensor", "tensor", tensor, detail="double free", device=self._device())
        lease.alive = False

    def VacantInQue(self):
        return len(self._queue) < self.depth

    def HasTensorInQue(self):
        return bool(self._queue)


class TBuf:
    """`TBuf<pos>`: one buffer, `Get(dtype[, count])` returns a tensor over it."""

    def __init__(self, position=TPosition.VECCALC):
        _check_position("TBuf", position)
        self.position, self.pipe, self._lease = position, None, None

    def _bind(self, pipe, leases):
        self.pipe, self._lease = pipe, leases[0]
        self._lease.alive = True

    def Get(self, dtype, count=None):
        if self.pipe is None:
            raise StateError("TBuf.Get", detail="call pipe.InitBuffer(tbuf, len) first")
        d = resolve(dtype, "TBuf.Get")
        cap = self._lease.nbytes // d.size
        n = cap if count is None else count
        if not 0 <= n <= cap:
            raise OutOfBoundsError("TBuf.Get", "count", n, legal=f"[0, {cap}]", device=self.pipe.core.device)
        return LocalTensor(self.pipe.core, d, self._lease.addr, n, self.position)


class DataCopyParams:
    """blockCount blocks of blockLen DataBlocks (32 B); gaps srcStride / dstStride in DataBlocks."""

    def __init__(self, blockCount=1, blockLen=0, srcStride=0, dstStride=0):
        self.blockCount, self.blockLen, self.srcStride, self.dstStride = blockCount, blockLen, srcStride, dstStride


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


def DataCopy(dst, src, count_or_params=None):
    """GM -> UB, UB -> GM or UB -> UB (one core): `DataCopy(dst, src, count)` or `DataCopy(dst, src,
    DataCopyParams(...))`. UB -> GM combines with GM while SetAtomicAdd/Max/Min is set (sync.py)."""
    api = "DataCopy"
    _check_operands(api, dst, src)
    if count_or_params is None:
        raise ParameterError(api, "count", None, legal="an element count or aj.DataCopyParams(...)",
                             detail="missing: DataCopy(dst, src, count)")
    if isinstance(count_or_params, DataCopyParams):
        p = count_or_params
        # devkit CheckDataCopyParams: blockCount is 12 bits and at least 1; the rest are uint16 (decisions.md)
        for name, v, lo, hi in (("blockCount", p.blockCount, 1, 4095), ("blockLen", p.blockLen, 1, 65535),
                                ("srcStride", p.srcStride, 0, 65535), ("dstStride", p.dstStride, 0, 65535)):
            if not isinstance(v, int) or not lo <= v <= hi:
                raise ParameterError(api, name, v, legal=f"[{lo}, {hi}]")
        runs = [(i * (p.blockLen + p.srcStride) * 32, i * (p.blockLen + p.dstStride) * 32, p.blockLen * 32)
                for i in range(p.blockCount)]
    else:
        count = count_or_params
        esize = src.dtype.size
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
            raise ParameterError(api, "count", count, legal=">= 0 (an integer)")
        count = int(count)
        if (count * esize) % 32:
            raise AlignmentError(api, "count", count, legal=f"count * {esize} B a multiple of 32 B "
                                 "(DataCopy moves whole DataBlocks; pad the data)")
        runs = [(0, 0, count * esize)]
    if src.dtype.size != dst.dtype.size:
        raise ParameterError(api, "dtype", (src.dtype.name, dst.dtype.name), legal="src and dst of the same size")
    for side, t in (("dst", dst), ("src", src)):
        if isinstance(t, LocalTensor):
            t.check_alive(api)
            if t.addr % 32:
                raise AlignmentError(api, f"{side} address", t.addr, legal="32-byte aligned UB address",
                                     device=t.core.device)
            limit = t.nbytes
        else:
            limit = t.array.nbytes
        far = max((s if side == "src" else d) + n for s, d, n in runs) if runs else 0
        if far > limit:
            raise OutOfBoundsError(api, side, t, legal=f"at most {limit} bytes (the copy needs {far})",
                                   device=getattr(getattr(t, "core", None), "device", None))
    core = dst.core if isinstance(dst, LocalTensor) else src.core
    if core.sanitizer is not None:
        core.sanitizer.copy_access(api, dst, src, runs, atomic=isinstance(dst, GlobalTensor) and core.atomic is not None)
    src_bytes = src.core.ub[src.addr:src.addr + src.nbytes] if isinstance(src, LocalTensor) else _gm_bytes(src)
    dst_bytes = dst.core.ub[dst.addr:dst.addr + dst.nbytes] if isinstance(dst, LocalTensor) else _gm_bytes(dst)
    if isinstance(src, LocalTensor) and isinstance(dst, GlobalTensor) and src.core.atomic is not None:
        atomic_copy(src.core, dst, dst_bytes, src_bytes, runs)
        return
    for s, d, n in runs:
        dst_bytes[d:d + n] = src_bytes[s:s + n]


def atomic_copy(core, dst, dst_bytes, src_bytes, runs):
    """UB -> GM under SetAtomicAdd/Max/Min: each element combined with GM (jit/atomic.py), in the launch's turn
    order across blocks (launch.py). runs: (src byte offset, dst byte offset, bytes). Every UB -> GM copy
    (DataCopy, later DataCopyPad) goes through here while the core's atomic mode is set."""
    from .jit.atomic import ATOMIC_OPS, atomic_combine
    op, d = core.atomic
    if dst.dtype is not d:
        raise ParameterError("DataCopy", "dst.dtype", dst.dtype.name, device=core.device,
                             legal=f"{d.name}, the type of the atomic mode set (SetAtomic{op.capitalize()})")
    if core.launch is not None:
        core.launch.atomic_turn(core)
    for s, o, n in runs:
        atomic_combine(dst_bytes[o:o + n], src_bytes[s:s + n], n // d.size, d.kind, ATOMIC_OPS[op],
                       core.half_saturating, core.int_saturating)
    core._sync_event("DataCopy (atomic)", op=op, dtype=d.name, dst=dst, runs=runs)
