"""Kernel scaffolding so the seeds' complete examples run as written: TPipe, TQue, TBuf and DataCopy (GM <-> UB).

DataCopy rules (docs/decisions.md "DataCopy"): UB addresses 32-byte aligned, the amount a multiple of 32 bytes, GM
addresses free (SPEC 8.2 general alignment rule).
"""
from collections import deque
from dataclasses import dataclass

import numpy as np

from .api._common import INT32_MAX, as_int, as_uint16_field, refuse_template_argument
from .core import Core, current_core
from .dtypes import ALL as ALL_DTYPES, resolve
from .errors import AlignmentError, OutOfBoundsError, ParameterError, StateError
from .jit.direct import EntryTable
from .jit.movement import copy_runs
from .sync import EventIdPool
from .tensor import (GlobalTensor, LocalTensor, TPosition, _Lease, _Unsealed, check_local_position, known_device,
                     refuse_operand, release_site)

_NEW = object.__new__


_DTYPES = {d.name: d for d in ALL_DTYPES}  # AllocTensor's dtype names without resolve's aliases and lower-casing


class _Buffer:
    """One UB buffer of a queue or TBuf; `lease` is its current allocation (None when free)."""
    __slots__ = ("addr", "nbytes", "lease", "owner")

    def __init__(self, addr, nbytes):
        self.addr, self.nbytes, self.lease, self.owner = addr, nbytes, None, None


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
        self._addrs, self._bound = [], []   # the pipe's UB allocations; the queues, TBufs and pools it initialised

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
        buffer = f"for a {_queue_name(que_or_buf)}"   # which of a kernel's buffers (port53b)
        num = as_int("InitBuffer", self.core.spec, "num", num, 1, ub // 32, of=buffer)
        nbytes = as_int("InitBuffer", self.core.spec, "len", nbytes, 0, ub, of=buffer)
        _check_queue_config("InitBuffer", que_or_buf, num, nbytes, self.core.spec)
        if que_or_buf.pipe is not None:
            self._check_rebind(que_or_buf)
        if nbytes == 0:
            # The device build takes len 0: its `len > 0` assert is the CPU-debug build's only (ASCENDC_CPU_DEBUG,
            # impl/basic_api/kernel_tpipe_impl.h), and the rounding gives buffers of 0 bytes at the pool's next
            # address, taking no UB. The ops-nn 950 softmax / log-softmax AR kernels ask a 0-byte TBuf for rows of
            # at most 128 elements (port60f, port62d; docs/decisions.md "Buffer lengths").
            at = self.core._free[0][0] if self.core._free else ub
            que_or_buf._bind(self, [_Buffer(at, 0) for _ in range(num)])
            if not any(b is que_or_buf for b in self._bound):
                self._bound.append(que_or_buf)
            return
        need = num * max(32, -(-nbytes // 32) * 32)
        free = sum(size for _, size in self.core._free)
        if need > free:  # refuse before allocating any of the buffers
            # the product and what holds the rest of the UB, the buffer named (port52a: a tuple, no queue named)
            mine = set(self._addrs)
            other_pipes = sum(self.core._allocated.get(a, 0) for a, owner in self.core._owned.items()
                              if owner == "TPipe" and a not in mine)
            # port57f: C++ frees a TPipe when its scope ends (~TPipe calls Destroy); a Python `del` does not
            others = (f"; {other_pipes} B are an earlier TPipe's, which holds them until its Destroy() (C++'s "
                      f"~TPipe at the end of its scope: `with aj.TPipe() as pipe:` ends one so; a `del` does not)"
                      if other_pipes else "")
            raise OutOfBoundsError("InitBuffer", "num * len", f"{num} x {nbytes} B for a {_queue_name(que_or_buf, depth=False)}",
                                   device=self.core.device,
                                   legal=f"buffers within the {free} free UB bytes (these need {need} B; this TPipe's "
                                         f"{len(self._addrs)} earlier buffers hold "
                                         f"{sum(self.core._allocated.get(a, 0) for a in mine)} B of the "
                                         f"{ub} B UB{others})")
        # The devkit's InitBuffer rounds len up to whole DataBlocks before it carves the buffers, and a tensor of
        # one (AllocTensor, TBuf Get) carries that rounded length: GetSize() counts it (impl/basic_api/
        # kernel_tpipe_impl.h, kernel_tensor_impl.h; docs/decisions.md "Buffer lengths").
        nbytes = -(-nbytes // 32) * 32
        buffers = []
        try:
            for _ in range(num):
                buffers.append(_Buffer(self.core.alloc(nbytes, "InitBuffer"), nbytes))
                self.core._owned[buffers[-1].addr] = "TPipe"
        except OutOfBoundsError:  # fragmented free space: give back what this call took
            for b in buffers:
                self.core._release(b.addr, ("InitBuffer", None))
            raise
        self._addrs.extend(b.addr for b in buffers)
        que_or_buf._bind(self, buffers)
        if not any(b is que_or_buf for b in self._bound):
            self._bound.append(que_or_buf)

    def _check_rebind(self, que_or_buf):
        """InitBuffer again on a queue or TBuf this pipe initialised binds it to new buffers carved after the pipe's
        others, the old ones staying allocated until Reset/Destroy, as the devkit's TPipe::InitBuffer does (it sets
        the handles from the pipe's current end; KsanaLLM's rotary embedding runs Init twice on one TPipe;
        docs/decisions.md "Scaffolding"). Refused: a queue or TBuf of another pipe or a TBufPool, and a queue whose
        tensor is still allocated or enqueued (its old buffer would be orphaned)."""
        api, device = "InitBuffer", self.core.device
        if que_or_buf.pipe is not self or not any(b is que_or_buf for b in self._bound):
            raise StateError(api, "que", type(que_or_buf).__name__, device=device,
                             legal="a queue or buffer not yet initialised elsewhere",
                             detail="already initialised by another TPipe or a TBufPool")
        if isinstance(que_or_buf, TQue) and (que_or_buf._queue or any(b.lease is not None
                                                                       for b in que_or_buf._buffers)):
            raise StateError(api, "que", "TQue", device=device,
                             legal="a queue whose tensors are all freed",
                             detail="already initialised and one of its tensors is still allocated or enqueued "
                                    "(FreeTensor it first: InitBuffer again rebinds the queue to new buffers)")

    def InitBufPool(self, pool, length, share=None):
        """`InitBufPool(pool, len)`: the next `len` bytes (rounded up to 32) of the UB become a TBufPool's range;
        `InitBufPool(pool, len, sharePool)`: the pool lays over sharePool's range instead (memory reuse), len at
        most that range's length (devkit impl/basic_api/kernel_tpipe_impl.h `TPipe::InitBufPool`)."""
        if not isinstance(pool, TBufPool):
            raise ParameterError("InitBufPool", "pool", type(pool).__name__, legal="an aj.TBufPool",
                                 device=self.core.device)
        nbytes = as_int("InitBufPool", self.core.spec, "len", length, 1, self.core.spec.ub_bytes)
        if share is not None:
            pool._lay_over(self, share, nbytes)
            return True
        if pool.pipe is not None:
            raise StateError("InitBufPool", "pool", pool, legal="a pool not yet initialised",
                             detail="already initialised", device=self.core.device)
        addr = self.core.alloc(nbytes, "InitBufPool")
        self.core._owned[addr] = "TPipe"
        self._addrs.append(addr)
        pool._place(self, addr, -(-nbytes // 32) * 32)
        self._bound.append(pool)
        return True

    def Reset(self):
        """`TPipe::Reset()`: every buffer of the pipe released (its queues, TBufs and pools unbound), so InitBuffer /
        InitBufPool start again from free UB. A queue tensor still allocated dies as at Destroy: the devkit's Reset
        skips a buffer that is not free and asserts nothing in any build (kernel_tpipe_impl.h; port66e: ops-math
        HansEncode Resets with its compare tensor allocated), so a later use of it is the StateError."""
        if self.core.sanitizer is not None:   # the devkit's Reset waits on its queue buffers' free events only
            _reset_queue_buffers(self.core.sanitizer, self._bound)
        self._release(release_site(self.core, "TPipe.Reset"))

    def Destroy(self):
        """`TPipe::Destroy()`: the pipe's UB goes back to the core. Its queues, TBufs and pools are unbound and every
        tensor still standing on its buffers dies (a later use is a StateError), since the bytes may go to the next
        TPipe: a stale handle must not write a new owner's buffer. The devkit's Destroy ends with
        pipe_barrier(PIPE_ALL) (impl/basic_api/kernel_tpipe_impl.h): the sanitizer's too (port59d)."""
        if self.core.sanitizer is not None:
            self.core.sanitizer.pipe_barrier("PIPE_ALL")
        self._release(release_site(self.core, "TPipe.Destroy"))

    def _release(self, how):
        """Unbind the pipe's queues, TBufs and pools and free its UB (`how`: the call, which a later use of a tensor
        standing on it names)."""
        for bound in self._bound:
            bound._unbind(how)
        self._bound = []
        for addr in self._addrs:
            self.core._release(addr, how)
        self._addrs = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.Destroy()
        return False


def _check_position(api, position):
    slip = None if isinstance(position, TPosition) else (
        f"got {type(position).__name__}; the C++ template arguments <pos, depth> are (position, depth) here, position "
        f"first: {api}(aj.TPosition.VECIN, depth)")
    check_local_position(api, position, known_device(), detail=slip)


def _queue_name(queue, depth=True):
    """A queue or TBuf as a refusal names it: its class, position and (`depth`) a queue's depth (a Python repr named
    none of them)."""
    position = getattr(queue.position, "name", queue.position)
    depth = f", depth {queue.depth}" if depth and isinstance(queue, TQue) else ""
    return f"{type(queue).__name__}({position}{depth})"


@dataclass(frozen=True)
class TQueConfig:
    """`TQueConfig`, TQue's third template argument (DK 资源管理/TQue/TQue简介.md): bufferLen and bufferNumber, when not
    0, must be InitBuffer's len and num (the device sizes the queue at compile time from them); nd2nz / nz2nd are the
    cube positions' (A1/B1, CO2) format conversions, not offered; the other fields are reserved (accepted, no
    effect)."""
    nd2nz: bool = False
    nz2nd: bool = False
    scmBlockGroup: bool = False
    bufferLen: int = 0
    bufferNumber: int = 0
    consumerSize: int = 0
    consumer: tuple = ()
    enableStaticEvtId: bool = False
    enableLoopQueue: bool = False


_FORMAT_CONVERSIONS = ("0 or an aj.TQueConfig without nd2nz/nz2nd: the ND <-> NZ conversions (mask bits 0 and 1, "
                       "TQueConfig.nd2nz / nz2nd) belong to the cube positions A1/B1 and CO2, which are not offered "
                       "(SPEC-2 14)")


def _queue_config(api, mask):
    """TQue's `mask` template argument: 0 or a TQueConfig (None: no sizes to check)."""
    if isinstance(mask, TQueConfig):
        if mask.nd2nz or mask.nz2nd:
            raise ParameterError(api, "mask", mask, legal=_FORMAT_CONVERSIONS)
        for name in ("bufferLen", "bufferNumber"):
            as_int(api, None, f"mask.{name}", getattr(mask, name), 0, 2**32 - 1)
        return mask
    if isinstance(mask, (bool, np.bool_)) or not isinstance(mask, (int, np.integer)) or mask != 0:
        raise ParameterError(api, "mask", mask, legal=_FORMAT_CONVERSIONS)
    return None


def _check_queue_config(api, queue, num, nbytes, spec):
    """InitBuffer's num and len against the queue's TQueConfig sizes (DK TQue简介.md: 与InitBuffer时输入的参数保持一致)."""
    config = getattr(queue, "config", None)
    if config is None:
        return
    for name, given, field_name in (("num", num, "bufferNumber"), ("len", nbytes, "bufferLen")):
        wanted = getattr(config, field_name)
        if wanted and given != wanted:
            # port68g2: ops-nn MseLossGradV2's 310P kernel declares bufferNumber 1 and InitBuffers 2; the devkit
            # checks it by assertions a device build leaves out, and there AllocBuffer advances its cursor only when
            # bufferNumber != 1 (kernel_tquebind_impl.h; review68)
            detail = f"declare TQueConfig({field_name}={given}), or 0"
            if field_name == "bufferNumber" and wanted == 1:
                detail = ("the devkit's check is an assertion a device build leaves out, and with bufferNumber 1 "
                          "AllocTensor hands out the first buffer alone (kernel_tquebind_impl.h: the cursor moves "
                          "only when bufferNumber != 1), so a second AllocTensor before its FreeTensor never "
                          "returns: " + detail)
            raise ParameterError(api, name, given, legal=f"{wanted}, the queue's TQueConfig.{field_name} (DK "
                                 "TQue简介.md: the two must agree; 0 there leaves the size to InitBuffer)",
                                 device=spec.name if spec else None, detail=detail)


class TQue:
    """`TQue<pos, depth[, mask]>`: AllocTensor / EnQue / DeQue / FreeTensor over the buffers InitBuffer gave it. `mask`
    is 0 or an aj.TQueConfig (TQueConfig)."""

    _API = "TQue"   # the class a refusal of the constructor names

    def __init__(self, position=TPosition.VECIN, depth=1, mask=0):
        api = self._API
        _check_position(api, position)
        self.config = _queue_config(api, mask)
        # depth 0 is the devkit's event-per-buffer queue (impl/basic_api/kernel_tquebind_impl.h `depth == 0`):
        # EnQue has no capacity bound and DeQue names the tensor it waits for (docs/decisions.md "Depth-0 queues")
        self.position, self.depth, self.pipe = position, as_int(api, None, "depth", depth, 0, 2**16), None
        self._buffers, self._queue = [], deque()   # the queue holds (tensor, the sanitizer's mark of its EnQue)
        self._retired = []   # buffers an earlier InitBuffer gave it, still in the pipe's slots until its Reset
        self._cursor = 0
        ends = _QUE_ENDS.get(position)
        self._pipes = _queue_pipes(*ends) if ends else None

    def _bind(self, pipe, buffers):
        # InitBuffer's `que.value = num` zeroes the devkit's bufCursor with the rest of the queue's state word
        self._retired.extend(self._buffers)   # TPipe::Reset still waits on their slots' free events (review63b)
        self.pipe, self._buffers, self._cursor = pipe, buffers, 0
        for b in buffers:
            b.owner = self
        sanitizer = pipe.core.sanitizer
        if self.depth == 0 and sanitizer is not None:
            # a depth-0 queue's InitBuffer sets each buffer's free event (kernel_tpipe_impl.h), so its first
            # AllocTensor waits on it as on a FreeTensor's: the buffers start out freed (review63b)
            for b in buffers:
                if sanitizer.config.device_sync and self._pipes is not None:
                    sanitizer.set_flag(*self._pipes[1], ("free", b))
                else:
                    sanitizer.freed(b, self._pipes[1] if self._pipes is not None else None)

    def _unbind(self, how):
        """Its TBufPool was Reset or its TPipe destroyed (`how`): the buffers are gone (InitBuffer may bind the queue
        again), and so is any tensor still allocated from them."""
        for buffer in self._buffers:
            if buffer.lease is not None:
                buffer.lease.release(how)
                buffer.lease = None
        self.pipe, self._buffers, self._retired = None, [], []
        self._queue.clear()

    def _device(self):
        return self.pipe.core.device if self.pipe else None

    def AllocTensor(self, dtype, *out):
        if out:
            # C++ AllocTensor<T>(LocalTensor<T>& t) (depth 0) rebinds t; a LocalTensor here is fixed when made, so the
            # tensor is returned, as GatherMask returns its rsvdCnt out-parameter (docs/decisions.md)
            raise ParameterError("AllocTensor", "tensor", out[0], device=self._device(),
                                 legal="AllocTensor(dtype) returning the tensor: t = que.AllocTensor(dtype)",
                                 detail="the C++ out-parameter form AllocTensor<T>(t) is written t = que.AllocTensor(T)")
        if self.pipe is None:
            raise StateError("AllocTensor", "que", "no buffers", legal="a queue given buffers by pipe.InitBuffer",
                             detail="queue has no buffers: call pipe.InitBuffer(que, num, len) first")
        d = _DTYPES.get(dtype) if type(dtype) is str else None
        if d is None:
            d = resolve(dtype, "AllocTensor", self.pipe.core.device)
        # Which buffer: the devkit's AllocBuffer (impl/basic_api/kernel_tquebind_impl.h) looks at the buffer under
        # bufCursor, moves the cursor on (round robin) whether or not that buffer was free, and takes the first free
        # one: a depth-2 queue alternates its buffers even when each tensor is freed before the next AllocTensor
        # (docs/decisions.md "TQue buffer order"). A refusal below leaves the cursor where it was.
        buffers = self._buffers
        n = len(buffers)
        for k in range(n):
            i = self._cursor + k
            buffer = buffers[i - n if i >= n else i]
            if buffer.lease is None:
                self._cursor = i + 1 - n if i + 1 >= n else i + 1
                lease = buffer.lease = _NEW(_Lease)
                lease.buffer, lease.alive, lease.released = buffer, True, None
                core = self.pipe.core
                if core.sanitizer is not None:  # FreeTensor .. AllocTensor orders the buffer's users; stale data
                    if core.sanitizer.config.device_sync and self._pipes is not None:   # the buffer's free event only
                        core.sanitizer.wait_flag(*self._pipes[1], ("free", buffer))
                    else:
                        core.sanitizer.allocated(buffer, buffer.addr, buffer.nbytes)
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
                         legal="a free buffer (at most num tensors allocated or enqueued)",
                         detail="every buffer of this queue is in use (FreeTensor one first)")

    def EnQue(self, *args):
        """`EnQue(tensor)`; the C++ template arguments come first: `EnQue<T>(tensor)` is `EnQue(dtype, tensor)` and
        `EnQue<srcUserPos, dstUserPos, T>(tensor)` is `EnQue(src_pos, dst_pos[, dtype], tensor)` (the user positions
        pick the devkit's synchronisation events: the same hand-off here)."""
        if len(args) == 1:
            tensor = args[0]
        else:
            tensor = args[-1] if args else None
            dtype = _template_args("EnQue", args[:-1], self._device())
            if dtype is not None and isinstance(tensor, LocalTensor) and resolve(dtype, "EnQue", self._device()) is not tensor._dtype:
                raise ParameterError("EnQue", "T", dtype, legal=tensor._dtype.name, device=self._device(),
                                     detail="EnQue<..., T>'s T is the enqueued tensor's dtype")
        if type(tensor) is not LocalTensor and not isinstance(tensor, LocalTensor):
            raise ParameterError("EnQue", "tensor", type(tensor).__name__, legal="a LocalTensor", device=self._device())
        if tensor._lease is not None and not tensor._lease.alive:
            tensor.check_alive("EnQue")
        if not self._allocated_here(tensor._lease):  # as FreeTensor refuses it later: DeQue handed it back as ours
            raise StateError("EnQue", "tensor", tensor, device=self._device(),
                             legal="a tensor AllocTensor of this queue returned",
                             detail=f"not allocated by this queue ({self._whose(tensor._lease)}; AllocTensor of "
                                    f"this queue first)")
        if self.depth and len(self._queue) >= self.depth:
            raise StateError("EnQue", "depth", self.depth, legal="fewer tensors enqueued than the queue's depth",
                             detail="queue is full", device=self._device())
        # the sanitizer's mark of the EnQue: the DeQue orders only what came before it (SPEC-2 10.4); "device-sync":
        # the event of the queue's (or the call's user) positions, set now and waited for by the DeQue
        sanitizer = tensor._core.sanitizer
        mark = None
        if sanitizer is not None:
            pipes = self._pipes if len(args) < 3 else _queue_pipes(*_template_positions(args[:-1]))
            if sanitizer.config.device_sync and pipes is not None:
                mark = ("device", pipes[0], tensor._lease.buffer)
                sanitizer.set_flag(*mark[1], mark)
            else:
                mark = sanitizer.enqueued(pipes[0] if pipes is not None else None)
        self._queue.append((tensor, mark))
        return True

    def DeQue(self, *template):
        """`DeQue<T>()` is `DeQue(dtype)` (dtype optional); `DeQue<srcUserPos, dstUserPos, T>()` is
        `DeQue(src_pos, dst_pos, dtype)`. A dtype other than the enqueued tensor's reinterprets it. A depth-0 queue
        takes the devkit's in-place form `DeQue<T>(LocalTensor<T>& t)` as `DeQue([dtype,] t)`: it waits for that
        tensor's EnQue (in any order) and returns it; each form is refused on the other kind of queue, as the
        devkit's static_asserts refuse it."""
        in_place = bool(template) and isinstance(template[-1], LocalTensor)
        if in_place != (self.depth == 0):
            raise ParameterError("DeQue", "tensor", template[-1] if in_place else None, device=self._device(),
                                 legal="DeQue([dtype,] tensor) on a depth-0 queue, DeQue([dtype]) on any other",
                                 detail="the devkit static_asserts: in-place DeQue<LocalTensor&> only at depth 0, "
                                        "and at depth 0 only that form")
        if in_place:
            target, template = template[-1], template[:-1]
        dtype = template[0] if len(template) == 1 else _template_args("DeQue", template, self._device())
        if in_place:
            index = next((i for i, (t, _) in enumerate(self._queue)
                          if t._addr == target._addr and t._lease is target._lease), None)
            if index is None:
                raise StateError("DeQue", "tensor", target, device=self._device(),
                                 legal="a tensor EnQue'd to this queue and not yet dequeued",
                                 detail="the device would wait for an EnQue event that is never set")
        elif not self._queue:
            where = f" at UB byte {self._buffers[0].addr}" if self._buffers else ""
            raise StateError("DeQue", "que", "empty", legal="a queue holding an enqueued tensor",
                             detail=f"the {_queue_name(self)}{where} holds no tensor (DeQue without a matching "
                                    "EnQue): the device would block forever", device=self._device())
        else:
            index = 0
        if dtype is not None and not (type(dtype) is str and dtype in _DTYPES):
            # checked before the tensor leaves the queue: a refused DeQue keeps it queued (SPEC-2 1.5; audit17h)
            resolve(dtype, "DeQue", self._device())
        tensor, mark = self._queue[index]
        del self._queue[index]
        sanitizer = tensor._core.sanitizer
        if sanitizer is not None:  # EnQue .. DeQue is a synchronisation (SPEC-2 10.4)
            if mark is not None and mark[0] == "device":
                sanitizer.wait_flag(*mark[1], mark)
            else:
                # no mark: the core started sanitizing after the EnQue, which then orders none of the accesses it saw
                sanitizer.hand_off(tensor.addr, tensor.nbytes, since=mark or (None, -1, None))
        if dtype is None or (type(dtype) is str and _DTYPES.get(dtype) is tensor._dtype):
            return tensor
        return tensor.ReinterpretCast(dtype)

    def _whose(self, lease):
        """Where a tensor this queue refuses came from, said against this queue's own buffers (port63d: ops-nn's
        BinaryCrossEntropyV2 frees y on x's queue, which the devkit's debug build asserts too)."""
        mine = f"this queue's buffers: UB {self._ranges(self)}"
        owner = lease.buffer.owner if lease is not None and lease.buffer is not None else None
        if owner is None:
            return f"not a queue's buffer: a TBuf's tensor or one made by hand; {mine}"
        kind = type(owner).__name__
        return f"a buffer of another {kind} ({owner.position.name}, UB {self._ranges(owner)}); {mine}"

    @staticmethod
    def _ranges(holder):
        return ", ".join(f"[{b.addr}, {b.addr + b.nbytes})" for b in holder._buffers) or "none"

    def _allocated_here(self, lease):
        """Whether a tensor's lease is an AllocTensor of one of this queue's buffers (alive or not)."""
        return lease is not None and lease.buffer is not None and lease.buffer.owner is self

    def FreeTensor(self, tensor, _tensor=None):
        """`FreeTensor(tensor)`; C++'s `FreeTensor<T>(tensor)` is `FreeTensor(dtype, tensor)` (T the tensor's dtype),
        as EnQue's and DeQue's template arguments come first (port59d)."""
        if _tensor is not None:
            dtype, tensor = tensor, _tensor
            if isinstance(tensor, LocalTensor) and resolve(dtype, "FreeTensor", self._device()) is not tensor._dtype:
                raise ParameterError("FreeTensor", "T", dtype, legal=tensor._dtype.name, device=self._device(),
                                     detail="FreeTensor<T>'s T is the freed tensor's dtype")
        if type(tensor) is not LocalTensor and not isinstance(tensor, LocalTensor):  # as EnQue refuses it (review63)
            raise ParameterError("FreeTensor", "tensor", type(tensor).__name__, legal="a LocalTensor",
                                 device=self._device())
        lease = tensor._lease
        if not self._allocated_here(lease):
            raise StateError("FreeTensor", "tensor", tensor, legal="a tensor AllocTensor of this queue returned",
                             detail=f"not allocated by this queue ({self._whose(lease)})",
                             device=self._device())
        if not lease.alive:
            raise StateError("FreeTensor", "tensor", tensor, legal="a tensor allocated and not yet freed",
                             detail="double free (or a tensor freed earlier)",
                             device=self._device())
        if self._queue and any(t._lease is lease for t, _ in self._queue):  # (most frees find the queue empty)
            # the devkit's state machine takes a buffer ENQUE -> DEQUE -> FREE: freeing it while queued hands its
            # buffer to the next AllocTensor while a DeQue is still to return it (docs/decisions.md "TQue")
            raise StateError("FreeTensor", "tensor", tensor, legal="a tensor allocated and not enqueued, or dequeued",
                             detail="the tensor is enqueued and not yet dequeued: DeQue it first",
                             device=self._device())
        core = tensor._core
        lease.release(release_site(core, "FreeTensor"))
        if core.sanitizer is not None:   # AllocTensor of the buffer waits for its event
            if core.sanitizer.config.device_sync and self._pipes is not None:
                core.sanitizer.set_flag(*self._pipes[1], ("free", lease.buffer))
            else:   # SPEC-2 10.4: AllocTensor orders the buffer's bytes; the event only for a report's fix
                core.sanitizer.freed(lease.buffer, self._pipes[1] if self._pipes is not None else None)
        lease.buffer.lease = None

    def VacantInQue(self):
        self._not_depth0("VacantInQue")
        return len(self._queue) < self.depth

    def HasTensorInQue(self):
        self._not_depth0("HasTensorInQue")
        return bool(self._queue)

    def GetTensorCountInQue(self):
        """The number of tensors enqueued and not yet dequeued (DK TQue GetTensorCountInQue; not at depth 0)."""
        self._not_depth0("GetTensorCountInQue")
        return len(self._queue)

    def HasIdleBuffer(self):
        """Whether a buffer is free for AllocTensor (DK TQue HasIdleBuffer: allocated buffers < num; not at depth
        0); False for a queue InitBuffer gave no buffers."""
        self._not_depth0("HasIdleBuffer")
        return any(buffer.lease is None for buffer in self._buffers)

    def FreeAllEvent(self):
        """DK TQue FreeAllEvent (not at depth 0): releases the events the queue's buffers hold at the end of a
        kernel. The emulator's queue keeps its order as state, not as events, so there is nothing to release."""
        self._not_depth0("FreeAllEvent")

    def _not_depth0(self, api):
        if self.depth == 0:  # the devkit static_asserts it: a depth-0 queue counts no tensors
            raise ParameterError(api, "depth", 0, legal="a queue of depth 1 or more", device=self._device())


def _reset_queue_buffers(sanitizer, bound):
    """A TPipe's or TBufPool's Reset: the devkit waits on the FreeTensor events of the queue buffers in its own
    buffer array, as each buffer's next AllocTensor would (Sanitizer.buffer_reset); nothing orders a TBuf's bytes,
    nor a pool's queues from the pipe or a pool above (impl/basic_api/kernel_tpipe_impl.h TPipe::Reset loops over
    g_tpipeImpl.buf_, kernel_tbufpool_impl.h TBufPool::Reset over its tBufPoolImpl.buf_; port59d, review 59)."""
    for item in bound:
        if isinstance(item, TQue):
            for buffer in item._retired + item._buffers:
                if buffer.lease is None:   # a buffer still allocated has no free event to wait on
                    sanitizer.buffer_reset(buffer, item._pipes[1] if item._pipes is not None else None)


def _queue_pipes(src, dst):
    """(EnQue -> DeQue event, FreeTensor -> AllocTensor event) of tensors moving from position src to dst, as pipe
    names: the devkit's GetQueEvt of their memories (impl/basic_api/kernel_event.h: GM -> UB MTE2_V / V_MTE2, UB ->
    GM V_MTE3 / MTE3_V, UB -> UB MTE2_MTE3 / MTE3_MTE2). The sanitizer's "device-sync" option orders a hand-off by
    these pairs only (docs/decisions.md "The device's synchronisation"); None for GM to GM."""
    gm_src, gm_dst = src is TPosition.GM, dst is TPosition.GM
    if gm_src and gm_dst:
        return None
    if gm_src:
        return ("PIPE_MTE2", "PIPE_V"), ("PIPE_V", "PIPE_MTE2")
    if gm_dst:
        return ("PIPE_V", "PIPE_MTE3"), ("PIPE_MTE3", "PIPE_V")
    return ("PIPE_MTE2", "PIPE_MTE3"), ("PIPE_MTE3", "PIPE_MTE2")


# TQue<pos> is TQueBind<GetBufferLogicPos(pos, true), GetBufferLogicPos(pos, false)> (DK kernel_event.h)
# TQue<VECCALC>: the devkit's GetBufferLogicPos maps VECCALC to MAX (its ASSERT compiled out on the device) and
# GetPhyType(MAX) to UB, so its events are UB -> UB's, MTE2_MTE3 / MTE3_MTE2 (port63k: they order nothing of PIPE_V)
_QUE_ENDS = {TPosition.VECIN: (TPosition.GM, TPosition.VECIN), TPosition.VECOUT: (TPosition.VECOUT, TPosition.GM),
             TPosition.VECCALC: (TPosition.VECCALC, TPosition.VECCALC)}


def _template_positions(template):
    """The user positions of EnQue / DeQue's `<srcUserPos, dstUserPos[, T]>`, else None (checked by _template_args)."""
    return tuple(template[:2]) if len(template) in (2, 3) and isinstance(template[0], TPosition) else None


def _template_args(api, template, device):
    """EnQue / DeQue's C++ template arguments `<T>` or `<srcUserPos, dstUserPos[, T]>`: the dtype (None without
    one). The two positions must be TPositions, so a misplaced argument is refused, not taken silently."""
    if len(template) == 1 and not isinstance(template[0], TPosition):
        return template[0]
    if len(template) not in (0, 2, 3) or not all(isinstance(p, TPosition) for p in template[:2]):
        raise ParameterError(api, "template arguments", tuple(template), device=device,
                             legal="none, a dtype, or (src_pos, dst_pos[, dtype]) with aj.TPosition members: the "
                                   "C++ <T> or <srcUserPos, dstUserPos, T>, before the call's own argument")
    return template[2] if len(template) == 3 else None


class TQueBind(TQue):
    """`TQueBind<src, dst, depth>`: a queue whose tensors go from one position to another without a stage between
    (VECIN -> VECOUT: copied in by MTE2 and out by MTE3, as copy-only kernels do); the devkit's TQue<pos, depth> is
    TQueBind<pos, pos, depth> (include/basic_api/kernel_tpipe.h), so it behaves as TQue: AllocTensor (tensors at
    the src position), EnQue / DeQue (a hand-off the sanitizer sees), FreeTensor."""

    _API = "TQueBind"

    def __init__(self, src=TPosition.VECIN, dst=TPosition.VECOUT, depth=1, mask=0):
        # TQue<VECIN> is TQueBind<GM, VECIN> and TQue<VECOUT> TQueBind<VECOUT, GM> (DK kernel_event.h
        # GetBufferLogicPos), and ports write those (port64c: ops-math Roll): a GM end is the queue's outside end, its
        # tensors lie at the other one
        local = dst if src is TPosition.GM else src
        super().__init__(local, depth, mask)
        if dst is not TPosition.GM or src is TPosition.GM:
            _check_position("TQueBind", dst)
        self.dst_position = dst
        # the devkit's TQueBind<src, dst> takes its events from both positions' memories: TQueBind<VECIN, VECIN> is
        # UB -> UB's MTE2_MTE3, not TQue<VECIN>'s GM -> VECIN pair (review63b)
        self._pipes = _queue_pipes(src, dst)


class TBuf:
    """`TBuf<pos>`: one buffer, `Get(dtype[, count])` returns a tensor over it."""

    def __init__(self, position=TPosition.VECCALC):
        _check_position("TBuf", position)
        self.position, self.pipe, self._buffer = position, None, None
        self._leases = []  # one per binding: InitBuffer again keeps the old buffer (and its tensors) until Destroy

    def _bind(self, pipe, buffers):
        self.pipe, self._buffer = pipe, buffers[0]
        self._leases.append(_Lease())

    def _unbind(self, how):
        for lease in self._leases:
            lease.release(how)
        self.pipe, self._buffer, self._leases = None, None, []

    def Get(self, dtype, len=None, *, count=None):
        """`Get<T>()` / `Get<T>(len)`: the buffer as a tensor of T, all of it or its first `len` elements (also
        `count=`, this method's keyword before session 38)."""
        if count is not None:
            if len is not None:
                raise TypeError("TBuf.Get() got the element count twice (len and count)")
            len = count
        if self.pipe is None:
            raise StateError("TBuf.Get", "tbuf", "no buffer", legal="a TBuf given its buffer by pipe.InitBuffer",
                             detail="call pipe.InitBuffer(tbuf, len) first")
        d = resolve(dtype, "TBuf.Get", self.pipe.core.device)
        cap = self._buffer.nbytes // d.size
        n = cap if len is None else as_int("TBuf.Get", self.pipe.core.spec, "len", len, 0)
        if n > cap:
            raise OutOfBoundsError("TBuf.Get", "len", n, legal=f"[0, {cap}]", device=self.pipe.core.device)
        return LocalTensor._proven(self.pipe.core, d, self._buffer.addr, n, self.position, self._leases[-1])

    # TBuf inherits TQueBind's queue calls; the devkit's kernel_tbuf_impl.h makes AllocTensor and DeQue its Get and
    # EnQue and FreeTensor no-ops (a TBuf has one buffer and no events). A tensor from elsewhere is refused.
    def AllocTensor(self, dtype):
        return self.Get(dtype)

    def DeQue(self, dtype):
        return self.Get(dtype)

    def EnQue(self, tensor):
        self._own("TBuf.EnQue", tensor)
        return True

    def FreeTensor(self, tensor):
        self._own("TBuf.FreeTensor", tensor)

    def _own(self, api, tensor):
        if self.pipe is None:
            raise StateError(api, "tbuf", "no buffer", legal="a TBuf given its buffer by pipe.InitBuffer",
                             detail="call pipe.InitBuffer(tbuf, len) first")
        start, end = self._buffer.addr, self._buffer.addr + self._buffer.nbytes
        # a 0-byte buffer's tensor (InitBuffer of len 0) starts at its end
        if not isinstance(tensor, LocalTensor) or not (start <= tensor.addr < end or
                                                       tensor.addr == start == end and tensor.nbytes == 0):
            raise StateError(api, "tensor", tensor, device=self.pipe.core.device,
                             legal="a tensor of this TBuf (Get, AllocTensor or DeQue of it)",
                             detail="not a tensor of this TBuf (Get, AllocTensor or DeQue of it)")

    def GetWithOffset(self, dtype, size, buf_offset):
        """`GetWithOffset<T>(size, bufOffset)`: `size` elements from `buf_offset` bytes into the buffer; the offset
        32-byte aligned and size * sizeof(T) + offset inside the InitBuffer length (DK TBuf/GetWithOffset.md)."""
        api = "TBuf.GetWithOffset"
        if self.pipe is None:
            raise StateError(api, "tbuf", "no buffer", legal="a TBuf given its buffer by pipe.InitBuffer",
                             detail="call pipe.InitBuffer(tbuf, len) first")
        spec, d = self.pipe.core.spec, resolve(dtype, api, self.pipe.core.device)
        nbytes = self._buffer.nbytes
        offset = as_int(api, spec, "bufOffset", buf_offset, 0, nbytes)
        if offset % 32:
            raise AlignmentError(api, "bufOffset", offset, legal="a multiple of 32 bytes", device=spec.name)
        n = as_int(api, spec, "size", size, 0, (nbytes - offset) // d.size)
        return LocalTensor._proven(self.pipe.core, d, self._buffer.addr + offset, n, self.position, self._leases[-1])


class TBufPool:
    """`TBufPool<pos, bufIDSize>`: a UB range handed out by `pipe.InitBufPool(pool, len)` (or an enclosing pool's
    InitBufPool), whose `InitBuffer(que, num, len)` / `InitBuffer(tbuf, len)` / `InitBufPool(sub, len)` carve
    buffers from it in order (lengths rounded up to 32 bytes; past the range: OutOfBoundsError). A pool initialised
    with a share pool lays over that pool's range: after `share.Reset()` its buffers reuse the same bytes. `Reset()`
    waits for every buffer's users (the devkit's WaitFlag on each free event; the sanitizer sees the hand-off) and
    empties the range: the queues, TBufs and sub-pools carved from it are unbound (their use is refused) and the
    next InitBuffer starts at the range's first byte again (devkit impl/basic_api/kernel_tbufpool_impl.h). bufIDSize
    (the handle count of the C++ template) is accepted and not checked."""

    def __init__(self, position=TPosition.VECCALC, buf_id_size=4):
        _check_position("TBufPool", position)
        self.position, self.buf_id_size = position, as_int("TBufPool", None, "bufIDSize", buf_id_size, 1, 2**16)
        self.pipe, self._start, self._len, self._next, self._carved = None, 0, 0, 0, []

    def _place(self, pipe, start, nbytes):
        self.pipe, self._start, self._len, self._next, self._carved = pipe, start, nbytes, start, []

    def _unbind(self, how):
        for carved in self._carved:
            carved._unbind(how)
        self.pipe, self._carved = None, []

    def _lay_over(self, pipe, share, nbytes):
        api = "InitBufPool"
        if not isinstance(share, TBufPool) or share.pipe is None:
            raise ParameterError(api, "shareBuf", share, legal="an initialised aj.TBufPool", device=pipe.core.device)
        if share.pipe is not pipe:
            # another core's pool is that core's UB addresses: queue tensors carved from it aliased this core's other
            # buffers or lay past its UB (a 950 pool on an A2 pipe: heap corruption); another TPipe's pool is memory
            # that pipe's Destroy hands to new owners while this pool still carves it (audit17h)
            other = "another core" if share.pipe.core is not pipe.core else "another TPipe of this core"
            raise ParameterError(api, "shareBuf", share, device=pipe.core.device,
                                 legal="a TBufPool initialised by this TPipe (or a pool of its)",
                                 detail=f"the shared pool belongs to {other}")
        if self.pipe is not None:
            raise StateError(api, "pool", self, legal="a pool not yet initialised",
                             detail="already initialised", device=pipe.core.device)
        if nbytes > share._len:
            raise ParameterError(api, "len", nbytes, legal=f"at most the shared pool's {share._len} bytes",
                                 device=pipe.core.device)
        self._place(pipe, share._start, share._len)

    def _take(self, api, nbytes):
        """The next `nbytes` (already rounded) of the range."""
        if self.pipe is None:
            raise StateError(api, "pool", self, legal="a pool given its range by pipe.InitBufPool",
                             detail="the pool has no range: pipe.InitBufPool(pool, len) first")
        if self._next + nbytes > self._start + self._len:
            raise OutOfBoundsError(api, "len", nbytes, device=self.pipe.core.device,
                                   legal=f"at most {self._start + self._len - self._next} more bytes of the pool's "
                                         f"{self._len}")
        addr, self._next = self._next, self._next + nbytes
        return addr

    def InitBuffer(self, que_or_buf, num_or_len, len_bytes=None):
        api = "TBufPool.InitBuffer"
        if isinstance(que_or_buf, TBuf):
            num, nbytes = 1, num_or_len
        elif isinstance(que_or_buf, TQue):
            num, nbytes = num_or_len, len_bytes
        else:
            raise ParameterError(api, "que", type(que_or_buf).__name__, legal="an aj.TQue or aj.TBuf")
        spec = self.pipe.core.spec if self.pipe is not None else None
        buffer = f"for a {_queue_name(que_or_buf)}"
        num = as_int(api, spec, "num", num, 1, 255, of=buffer)
        nbytes = as_int(api, spec, "len", nbytes, 0, 2**32 - 1, of=buffer)   # 0: as TPipe.InitBuffer's
        _check_queue_config(api, que_or_buf, num, nbytes, spec)
        if que_or_buf.pipe is not None:
            raise StateError(api, "queue", que_or_buf, legal="a queue not yet initialised",
                             detail="already initialised", device=spec.name if spec else None)
        step = -(-nbytes // 32) * 32
        first = self._take(api, num * step)
        core = self.pipe.core
        if core.sanitizer is not None:   # as TPipe.InitBuffer's: bytes a Reset or a shared pool hands on hold stale data
            core.sanitizer.undefine(first, num * step)
        que_or_buf._bind(self.pipe, [_Buffer(first + i * step, step) for i in range(num)])   # as TPipe.InitBuffer
        self._carved.append(que_or_buf)
        return True

    def InitBufPool(self, pool, length, share=None):
        api = "TBufPool.InitBufPool"
        if not isinstance(pool, TBufPool):
            raise ParameterError(api, "pool", type(pool).__name__, legal="an aj.TBufPool")
        spec = self.pipe.core.spec if self.pipe is not None else None
        nbytes = as_int(api, spec, "len", length, 1, 2**32 - 1)
        if share is not None:
            if self.pipe is None:
                self._take(api, 0)
            pool._lay_over(self.pipe, share, nbytes)
        else:
            if pool.pipe is not None:
                raise StateError(api, "pool", pool, legal="a pool not yet initialised",
                                 detail="already initialised", device=spec.name if spec else None)
            step = -(-nbytes // 32) * 32
            pool._place(self.pipe, self._take(api, step), step)
        self._carved.append(pool)
        return True

    def Reset(self):
        api = "TBufPool.Reset"
        if self.pipe is None:
            raise StateError(api, "pool", self, legal="a pool given its range by pipe.InitBufPool",
                             detail="the pool has no range: pipe.InitBufPool(pool, len) first")
        # a queue tensor still allocated dies, as at TPipe.Reset: the devkit's TBufPool::Reset asserts nothing
        # (kernel_tbufpool_impl.h)
        core = self.pipe.core
        if core.sanitizer is not None:   # the WaitFlag on every queue buffer's free event orders its users
            _reset_queue_buffers(core.sanitizer, self._carved)
        how = release_site(core, "TBufPool.Reset")
        for carved in self._carved:
            carved._unbind(how)
        self._next, self._carved = self._start, []


# mutable like BinaryRepeatParams (C++ kernels default-construct it and set fields); equality and hash are the
# fields' values (SPEC-2 1.1: parameter structs are dataclasses with the C++ field names and constructor order)
@dataclass(unsafe_hash=True, slots=True)
class DataCopyParams:
    """blockCount blocks of blockLen DataBlocks (32 B); gaps srcStride / dstStride in DataBlocks. `srcGap` and
    `dstGap` name the same fields (the devkit struct declares each pair as a union and deprecates the *Stride
    names, include/basic_api/kernel_struct_data_copy.h). DataCopyPad takes this struct too, with blockLen in bytes
    (api/data_copy_pad.py). DataCopy also takes a plain tuple or list of the four fields (the C++ brace list)."""
    blockCount: int = 1
    blockLen: int = 0
    srcStride: int = 0
    dstStride: int = 0

    @property
    def srcGap(self):
        return self.srcStride

    @srcGap.setter
    def srcGap(self, value):
        self.srcStride = value

    @property
    def dstGap(self):
        return self.dstStride

    @dstGap.setter
    def dstGap(self, value):
        self.dstStride = value


def _gm_bytes(gm):
    return gm.array.view(np.uint8)


def _check_operands(api, dst, src):
    """Only GM <-> UB and UB <-> UB of one core exist on the hardware; anything else is named in the refusal."""
    for side, t in (("dst", dst), ("src", src)):
        if not isinstance(t, (LocalTensor, GlobalTensor)):
            refuse_operand(api, side, t, "an aj.LocalTensor or aj.GlobalTensor", (dst, src),
                           "wrap host arrays with aj.GlobalTensor(array)")
        if isinstance(t, GlobalTensor) and t.array is None:
            raise StateError(api, side, t, device=known_device(dst, src),
                             legal="a GlobalTensor with a buffer (SetGlobalBuffer)",
                             detail="the GlobalTensor has no buffer: call SetGlobalBuffer(array) first")
    if isinstance(dst, GlobalTensor) and isinstance(src, GlobalTensor):
        refuse_operand(api, "src", src, "a LocalTensor (one side of a DataCopy is the UB)", (),
                       "there is no GM -> GM DataCopy on the hardware: copy through the UB")
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
    if type(count_or_params) in (tuple, list):  # SPEC-2 1.1: the struct's brace list (DataCopy converts length 4)
        if len(count_or_params) != 4:
            raise ParameterError(api, "repeat_params", count_or_params, device=device,
                                 legal="aj.DataCopyParams(blockCount, blockLen, srcStride, dstStride) or a tuple of "
                                       "those 4 fields")
        count_or_params = DataCopyParams(*count_or_params)
    if src.dtype.size != dst.dtype.size:   # which side is which, and the usual cause (port53g)
        gm = src if isinstance(src, GlobalTensor) else dst if isinstance(dst, GlobalTensor) else None
        raise ParameterError(api, "dtype", f"src {src.dtype.name}, dst {dst.dtype.name}",
                             legal="src and dst of the same element size", device=device,
                             detail=None if gm is None else
                             "a GlobalTensor's dtype is the one it was given (GlobalTensor(\"half\"), or the host "
                             "array's when none): give it the kernel's T")
    if isinstance(count_or_params, DataCopyParams):
        p = count_or_params
        # devkit CheckDataCopyParams: blockCount is 12 bits and at least 1; the rest are uint16 (decisions.md)
        count = as_int(api, device, "blockCount", p.blockCount, 1, 4095)
        length, src_gap, dst_gap = (as_uint16_field(api, device, name, v, lo) for name, v, lo in (
            ("blockLen", p.blockLen, 1), ("srcStride", p.srcStride, 0), ("dstStride", p.dstStride, 0)))
        runs = tuple((i * (length + src_gap) * 32, i * (length + dst_gap) * 32, length * 32) for i in range(count))
        shape = f"blockCount {count}, blockLen {length}, srcStride {src_gap}, dstStride {dst_gap}"
    else:
        count = as_int(api, device, "count", count_or_params, 0, INT32_MAX)
        esize = src.dtype.size
        if (count * esize) % 32:
            # port62f: the 310P and the 910 offer no DataCopyPad (SPEC-2 1.9); there the port writes the count the
            # device copies, and the tail by the scalar unit
            pair = ("GlobalTensor.GetValue then LocalTensor.SetValue" if isinstance(src, GlobalTensor) else
                    "LocalTensor.GetValue then GlobalTensor.SetValue" if isinstance(dst, GlobalTensor) else
                    "LocalTensor.GetValue then SetValue")
            rest = ("DataCopyPad copies any length" if core.spec.pad_dtypes else
                    "this device offers no DataCopyPad: copy the rounded-down count (what the device copies) and the "
                    f"tail element by element ({pair})")
            raise AlignmentError(api, "count", count, legal=f"count * {esize} B a multiple of 32 B "
                                 "(DataCopy moves whole DataBlocks; pad the data)", device=device,
                                 detail=f"is not whole DataBlocks: the device rounds it down to "
                                        f"{count * esize // 32 * 32 // esize} without a word (the devkit's "
                                        f"DataCopyCheck), dropping the tail; {rest}")
        runs = ((0, 0, count * esize),)
        shape = f"count {count} x {esize} B"
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
            legal = f"at most {limit} bytes (the copy needs {far}: {shape})"  # port63e: say which argument
            if not isinstance(t, LocalTensor):
                legal += GM_WINDOW
            raise OutOfBoundsError(api, side, t, legal=legal, device=device)
    return runs


# Why a copy past a GlobalTensor is refused although the device does not check it
GM_WINDOW = (": the window SetGlobalBuffer (or a sub-tensor) gave it, which the device does not check and the "
             'emulator does (docs/decisions.md "Scaffolding"); a kernel that copies past it on purpose, inside the '
             "allocation, widens the window to what it touches; a window that is already the whole host array "
             "needs the array padded, as the device pads its GM allocations to 32 bytes")


_INT_PARAMS = "DataCopyParams of ints"   # _count_key's marker


def _count_key(count_or_params):
    """The memo key of DataCopy's count or params: a plain int as itself, anything else with its type (2, 2.0,
    np.int64(2) and True key apart although they compare equal), or None when something is unhashable (validated
    uncached)."""
    if type(count_or_params) is int:
        return count_or_params
    if type(count_or_params) is DataCopyParams:
        # the kernels' case, four plain ints: their values under a marker (a five-tuple, so never equal to the
        # other keys), without the typed pairs and the hash test below (about 0.9 of DataCopy's 1.5 us)
        p = count_or_params
        a, b, c, d = p.blockCount, p.blockLen, p.srcStride, p.dstStride
        if type(a) is int and type(b) is int and type(c) is int and type(d) is int:
            return (_INT_PARAMS, a, b, c, d)
    if isinstance(count_or_params, DataCopyParams):
        p = count_or_params
        key = tuple((type(v), v) for v in (p.blockCount, p.blockLen, p.srcStride, p.dstStride))
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


def DataCopy(dst, src, count_or_params=None, *more, count=None, repeat_params=None):
    """GM -> UB, UB -> GM or UB -> UB (one core): `DataCopy(dst, src, count)` or `DataCopy(dst, src,
    DataCopyParams(...))` (or its brace list: 4 values blockCount, blockLen, srcStride, dstStride); the third
    argument may also be given by its C++ name in snake case, `count=` or `repeat_params=` (SPEC-2 1.1). UB -> GM
    combines with GM while SetAtomicAdd/Max/Min is set (sync.py). Every check
    (operands, ranges, the far end of the copy in closed form) runs before the first byte moves.

    Validation is memoised per call shape (direction, element types, UB addresses and sizes, the count or params
    with their types); GM sizes stay out of the key (a tiled kernel's GM sub-tensors shrink tile by tile): the far
    GM byte of the proven shape is compared with the GM tensor's size on every call, and a GM destination's
    writability too. A proven shape goes straight to one compiled copy (jit/movement.py copy_runs, GIL released)
    through its machine-code entry (jit/direct.py), kept in the plan."""
    if more:   # DataCopy<T>(dst, src, n) with T written first is refused naming it; else Python's own TypeError
        refuse_template_argument("DataCopy", dst)
        raise TypeError(f"DataCopy() takes from 2 to 3 positional arguments but {3 + len(more)} were given")
    if count is not None or repeat_params is not None:
        count_or_params = _keyword_argument(count_or_params, count, repeat_params)
    if type(count_or_params) is int:
        count_key = count_or_params
    else:
        if type(count_or_params) in (tuple, list) and len(count_or_params) == 4:
            count_or_params = DataCopyParams(*count_or_params)   # the C++ brace list `{1, blockLen, 0, 0}`
        count_key = _count_key(count_or_params)
    tdst, tsrc = type(dst), type(src)
    if tdst is LocalTensor:
        core = dst._core
        if tsrc is GlobalTensor and src._root is not None:
            if dst._lease is not None and not dst._lease.alive:
                dst.check_alive("DataCopy", "dst")
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
                src.check_alive("DataCopy", "src")
            if dst._lease is not None and not dst._lease.alive:
                dst.check_alive("DataCopy", "dst")
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
            src.check_alive("DataCopy", "src")
        plan = _PLANS.get((_UB_TO_GM, core.spec, dst.dtype, src._dtype, count_key, src._addr, src._size)) \
            if count_key is not None else None
        if plan is None or plan[5] > dst._nbytes:
            plan = _prove(dst, src, count_or_params, core, count_key, _UB_TO_GM)
        if not (dst._root.flags.writeable and dst._owner.flags.writeable):   # writable(), inline
            dst._require_writable("DataCopy", device=core.device)
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
    if repeat_params is not None and not isinstance(repeat_params, (DataCopyParams, tuple, list)):
        raise ParameterError("DataCopy", "repeat_params", type(repeat_params).__name__,
                             legal="an aj.DataCopyParams or its brace list of 4 fields")
    return count if count is not None else repeat_params


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
    for name, t in (("dst", dst), ("src", src)):
        if isinstance(t, LocalTensor):
            t.check_alive(api, name)
    runs = _validate(api, dst, src, count_or_params, core)
    if isinstance(dst, GlobalTensor):
        dst._require_writable(api, device=core.device)
    _copy_with_state(api, core, dst, src, runs)


def _copy_with_state(api, core, dst, src, runs):
    """DataCopy by numpy slices: on a sanitizing core (the sanitizer sees the runs), under an atomic mode (UB -> GM
    combines with GM) and outside the memoised path."""
    if core.sanitizer is not None:
        if core.atomic is not None and isinstance(dst, GlobalTensor):
            check_atomic_dtype(api, core, dst)   # a refusal first: a refused copy is no access (issue 17)
        core.sanitizer.copy_access(api, dst, src, runs, atomic=core.atomic if isinstance(dst, GlobalTensor) else None)
    src_bytes = src.core.ub[src.addr:src.addr + src.nbytes] if isinstance(src, LocalTensor) else _gm_bytes(src)
    dst_bytes = dst.core.ub[dst.addr:dst.addr + dst.nbytes] if isinstance(dst, LocalTensor) else _gm_bytes(dst)
    if isinstance(src, LocalTensor) and isinstance(dst, GlobalTensor) and src.core.atomic is not None:
        atomic_copy(api, src.core, dst, dst_bytes, src_bytes, runs)
        return
    for s, d, n in runs:
        dst_bytes[d:d + n] = src_bytes[s:s + n]


def check_atomic_dtype(api, core, dst):
    """Under SetAtomicAdd/Max/Min the GM destination has the mode's type."""
    op, d = core.atomic
    if dst.dtype is not d:
        raise ParameterError(api, "dst.dtype", dst.dtype.name, device=core.device,
                             legal=f"{d.name}, the type of the atomic mode set (SetAtomic{op.capitalize()})")


def atomic_copy(api, core, dst, dst_bytes, src_bytes, runs):
    """UB -> GM under SetAtomicAdd/Max/Min: each element combined with GM (jit/atomic.py), in the launch's turn
    order across blocks (launch.py). runs: (src byte offset, dst byte offset, bytes). Every UB -> GM copy
    (DataCopy, DataCopyPad: `api`, the name refusals and the sync event carry) goes through here while the core's
    atomic mode is set."""
    from .jit.atomic import ATOMIC_OPS, atomic_combine
    check_atomic_dtype(api, core, dst)
    op, d = core.atomic
    if core.launch is not None:
        core.launch.atomic_turn(core)
    for s, o, n in runs:
        atomic_combine(dst_bytes[o:o + n], src_bytes[s:s + n], n // d.size, d.kind, ATOMIC_OPS[op],
                       core.half_saturating, core.int_saturating)
    core._sync_event(f"{api} (atomic)", op=op, dtype=d.name, dst=dst, runs=runs)
