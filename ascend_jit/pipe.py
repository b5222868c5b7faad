"""Kernel scaffolding so the seeds' complete examples run as written: TPipe, TQue, TBuf and DataCopy (GM <-> UB).

DataCopy rules (docs/decisions.md "DataCopy"): UB addresses 32-byte aligned, the amount a multiple of 32 bytes, GM
addresses free (SPEC 8.2 general alignment rule).
"""
from collections import deque

from .api._common import INT32_MAX, as_int
from .core import Core, current_core
from .dtypes import resolve
from .errors import AlignmentError, OutOfBoundsError, ParameterError, StateError
from .tensor import GlobalTensor, LocalTensor, TPosition


class _Buffer:
    """One UB buffer of a queue or TBuf; `lease` is its current allocation (None when free)."""
    __slots__ = ("addr", "nbytes", "lease")

    def __init__(self, addr, nbytes):
        self.addr, self.nbytes, self.lease = addr, nbytes, None


class _Lease:
    """One AllocTensor of a buffer. Freed, it stays dead: the next AllocTensor of the buffer makes a new lease, so a
    stale handle can neither be used nor free the new owner's buffer (issue 12)."""
    __slots__ = ("buffer", "alive")

    def __init__(self, buffer):
        self.buffer, self.alive = buffer, True


class TPipe:
    """Owns UB memory handed to queues and buffers. `TPipe()` binds the current core; `TPipe(core)` a given one."""

    def __init__(self, core=None):
        if core is not None and not isinstance(core, Core):
            raise ParameterError("TPipe", "core", type(core).__name__, legal="an aj.Core (or none: the current core)")
        self.core = core if core is not None else current_core("TPipe")
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
            raise StateError("InitBuffer", "queue", que_or_buf, detail="already initialised", device=self.core.device)
        need = num * max(32, -(-nbytes // 32) * 32)
        if need > sum(size for _, size in self.core._free):  # refuse before allocating any of the buffers
            raise OutOfBoundsError("InitBuffer", "num * len", (num, nbytes), device=self.core.device,
                                   legal=f"{need} B at most the free UB bytes")
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


class TQue:
    """`TQue<pos, depth>`: AllocTensor / EnQue / DeQue / FreeTensor over the buffers InitBuffer gave it."""

    def __init__(self, position=TPosition.VECIN, depth=1):
        if not isinstance(position, TPosition):
            raise ParameterError("TQue", "position", position, legal="an aj.TPosition")
        self.position, self.depth, self.pipe = position, as_int("TQue", None, "depth", depth, 1, 2**16), None
        self._buffers, self._queue = [], deque()

    def _bind(self, pipe, buffers):
        self.pipe, self._buffers = pipe, buffers

    def _device(self):
        return self.pipe.core.device if self.pipe else None

    def AllocTensor(self, dtype):
        if self.pipe is None:
            raise StateError("AllocTensor", detail="queue has no buffers: call pipe.InitBuffer(que, num, len) first")
        d = resolve(dtype, "AllocTensor")
        for buffer in self._buffers:
            if buffer.lease is None:
                lease = _Lease(buffer)
                tensor = LocalTensor(self.pipe.core, d, buffer.addr, buffer.nbytes // d.size, self.position, lease)
                buffer.lease = lease
                return tensor
        raise StateError("AllocTensor", "buffers", len(self._buffers), device=self._device(),
                         detail="every buffer of this queue is in use (FreeTensor one first)")

    def EnQue(self, tensor):
        if not isinstance(tensor, LocalTensor):
            raise ParameterError("EnQue", "tensor", type(tensor).__name__, legal="a LocalTensor", device=self._device())
        tensor.check_alive("EnQue")
        if len(self._queue) >= self.depth:
            raise StateError("EnQue", "depth", self.depth, detail="queue is full", device=self._device())
        self._queue.append(tensor)
        return True

    def DeQue(self, dtype=None):
        if not self._queue:
            raise StateError("DeQue", detail="queue is empty (DeQue without a matching EnQue)", device=self._device())
        tensor = self._queue.popleft()
        return tensor if dtype is None else tensor.ReinterpretCast(dtype)

    def FreeTensor(self, tensor):
        lease = tensor._lease if isinstance(tensor, LocalTensor) else None
        if lease is None or not any(lease.buffer is b for b in self._buffers):
            raise StateError("FreeTensor", "tensor", tensor, detail="not allocated by this queue", device=self._device())
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
        if not isinstance(position, TPosition):
            raise ParameterError("TBuf", "position", position, legal="an aj.TPosition")
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
        return LocalTensor(self.pipe.core, d, self._buffer.addr, n, self.position)


class DataCopyParams:
    """blockCount blocks of blockLen DataBlocks (32 B); gaps srcStride / dstStride in DataBlocks."""

    def __init__(self, blockCount=1, blockLen=0, srcStride=0, dstStride=0):
        self.blockCount, self.blockLen, self.srcStride, self.dstStride = blockCount, blockLen, srcStride, dstStride


def _gm_bytes(gm):
    return gm.array.view("uint8")


def DataCopy(dst, src, count_or_params):
    """GM -> UB or UB -> GM (or UB -> UB): `DataCopy(dst, src, count)` or `DataCopy(dst, src, DataCopyParams(...))`.
    Every check (operand types, ranges, the far end of the copy in closed form) runs before the first byte moves."""
    api = "DataCopy"
    device = None
    for side, t in (("dst", dst), ("src", src)):
        if isinstance(t, LocalTensor):
            t.check_alive(api)
            device = t.core.device
        elif not isinstance(t, GlobalTensor) or t.array is None:
            raise ParameterError(api, side, type(t).__name__, legal="a LocalTensor or a GlobalTensor with a buffer")
    if src.dtype.size != dst.dtype.size:
        raise ParameterError(api, "dtype", (src.dtype.name, dst.dtype.name), legal="src and dst of the same size",
                             device=device)
    if isinstance(count_or_params, DataCopyParams):
        p = count_or_params
        # devkit CheckDataCopyParams: blockCount is 12 bits and at least 1; the rest are uint16 (decisions.md)
        count, length, src_gap, dst_gap = (as_int(api, device, name, v, lo, hi) for name, v, lo, hi in (
            ("blockCount", p.blockCount, 1, 4095), ("blockLen", p.blockLen, 1, 65535),
            ("srcStride", p.srcStride, 0, 65535), ("dstStride", p.dstStride, 0, 65535)))
        runs = [(i * (length + src_gap) * 32, i * (length + dst_gap) * 32, length * 32) for i in range(count)]
    else:
        count = as_int(api, device, "count", count_or_params, 0, INT32_MAX)
        esize = src.dtype.size
        if (count * esize) % 32:
            raise AlignmentError(api, "count", count, legal=f"count * {esize} B a multiple of 32 B "
                                 "(DataCopy moves whole DataBlocks; pad the data)", device=device)
        runs = [(0, 0, count * esize)]
    for side, t, index in (("dst", dst, 1), ("src", src, 0)):
        if isinstance(t, LocalTensor):
            if t.addr % 32:
                raise AlignmentError(api, f"{side} address", t.addr, legal="32-byte aligned UB address",
                                     device=t.core.device)
            limit = t.nbytes
        else:
            limit = t.array.nbytes
        far = runs[-1][index] + runs[-1][2]  # the last run ends furthest (offsets grow with the run index)
        if far > limit:
            raise OutOfBoundsError(api, side, t, legal=f"at most {limit} bytes (the copy needs {far})", device=device)
    src_bytes = src.core.ub[src.addr:src.addr + src.nbytes] if isinstance(src, LocalTensor) else _gm_bytes(src)
    dst_bytes = dst.core.ub[dst.addr:dst.addr + dst.nbytes] if isinstance(dst, LocalTensor) else _gm_bytes(dst)
    for s, d, n in runs:
        dst_bytes[d:d + n] = src_bytes[s:s + n]
