"""Blocks in host processes: `aj.launch(..., parallel="processes")`, and the shared GM that makes it cheap.

Why processes (issue 21, BENCHMARKS.md "Multi-block launches"): a block's Python (5-6 us per tile between its two
GIL-free kernels) holds the GIL, so threads reach 0.93x serial on 2 cores. A fork per launch costs 3-4 ms (fork,
copy-on-write faults, exit and wait) against a 10 ms launch: no gain. A pool of persistent worker processes, forked
once, with GM in MAP_SHARED memory, measured 1.91x serial for the 8-block tiled sum on the idle 2-core guest.

Shared GM (`gm_empty`, `gm_zeros`, `gm_array`): numpy arrays in `os.memfd_create` segments mapped MAP_SHARED. No
name in /dev/shm, nothing to unlink, nothing leaks: a segment is freed (fd closed, the workers told to drop their
mapping with the next launch) when its last array is garbage. Workers forked after a segment was made inherit its
mapping; later segments reach them as file descriptors (`socket.send_fds`) with the next launch that uses them.

A process launch:
- The pool: `pool_size()` workers (host cores - 1, `POOL_SIZE` overrides), forked lazily from the launching thread
  at the first process launch, after the kernels it will run were compiled and imported, so the workers share them
  (no compile, no import). The launching process runs blocks too. One process launch at a time uses the pool
  (a lock); a process launch from inside a block (of a process launch, or on a worker), of one block, or with no
  worker (one host core) runs its blocks in turn in the launching process, with the same refusals.
- Blocks are handed out by a shared work queue (a pipe of block indices, each process takes the next one when it
  is free), not by a static split: on a loaded machine a process whose core is taken away takes fewer blocks.
- Arguments travel by pickle. An ndarray (alone, in a list or tuple, or inside a GlobalTensor or any picklable
  object) that lies in a shared segment travels as (segment, offset, dtype, shape, strides): zero copy, the same
  memory. Any other ndarray is copied, its whole base buffer once (so views of one buffer still alias), into one
  temporary segment, which every process (the launching one too) then uses; after the launch the writeable
  buffers are copied back (those passed only through read-only views are not). The pool keeps that segment for
  the next launch (the largest so far: its pages are then mapped and faulted in everywhere). Correct for any
  array; costs two copies of every private buffer per launch (BENCHMARKS.md "Multi-block launches"), so put large
  GM in shared memory.
- The kernel travels by reference (module and name). A kernel the pickler cannot name (a lambda, a closure, a
  nested function) is a ParameterError before anything runs. A kernel a worker cannot resolve, or resolves to
  other code (defined or redefined in `__main__` after the pool forked), makes that worker take no blocks (the
  others run them all: the results stay right) and the pool is forked anew for the next launch.
- Each block runs on its own Core with GetBlockIdx/GetBlockNum right, through aj.launch's block runner (pending
  flags, sanitizer end of kernel, errors naming the block). Return values come back by pickle. An exception comes
  back as itself (AscendJitError subclasses rebuilt with their message and attributes); one that cannot travel
  becomes an AscendJitError carrying the worker's traceback text. After a failed block, no process starts another.
- A worker that dies (killed, segfault) ends its launch with an AscendJitError naming the blocks lost (those it
  had taken); the other processes finish the remaining blocks first. The pool is discarded and forked anew by the
  next process launch. Never a hang: the launching process waits on the workers' sockets, which a dead worker
  closes.
- Not supported, refused (docs/decisions.md "Process launches"): SyncAll and atomic DataCopy across blocks
  (StateError naming parallel="processes", raised by the block that reaches them; the blocks that ran before may
  have written GM) and the sanitizer (ParameterError before anything runs). parallel=True (threads) runs them.
- Fork safety: a process forked from the launching process (os.fork, multiprocessing) forgets the pool (it owns no
  workers) and closes its copies of the pool's sockets; the pool is shut down at exit (workers see their socket
  close and exit; a worker that does not is killed after a second). The fork copies only the launching thread: a
  lock another thread of the process holds at that moment (numba's compiler lock, mid-compile) stays held in the
  workers, and a worker that needed it would wait forever. Launch in processes while no other thread compiles
  (the parked block threads of parallel=True launches hold no lock between launches).
- Linux only (os.fork, os.memfd_create, socket.send_fds); elsewhere parallel="processes" is a ParameterError and
  gm_empty & co. return plain numpy arrays.
"""
import atexit
import ctypes
import hashlib
import io
import itertools
import marshal
import math
import mmap
import os
import pickle
import select
import signal
import socket
import struct
import threading
import time
import traceback
import warnings
import weakref

import numpy as np

from .dtypes import numpy_dtype
from .errors import AscendJitError, ParameterError, StateError
from .tensor import LocalTensor

SUPPORTED = hasattr(os, "memfd_create") and hasattr(os, "fork") and hasattr(socket, "send_fds")  # Linux
POOL_SIZE = None  # worker processes of the pool; None: host cores - 1 (pool_size())
_ALIGN = 64       # bytes: where each private buffer starts in a launch's temporary segment
_CHUNK = 1 << 16  # bytes per SOCK_SEQPACKET record
_TOKEN = struct.Struct("<i")
_MAX_OFF_T = 2**63 - 1

try:
    from numpy.lib.array_utils import byte_bounds as _byte_bounds
except ImportError:  # numpy < 2
    _byte_bounds = np.byte_bounds


# --- shared GM ---------------------------------------------------------------------------------------------------

class _Segment:
    """One memfd segment mapped MAP_SHARED in this process: sid (its id across the pool), fd, its address, and a weak
    reference to the mmap (the arrays keep the mmap alive; the registry must not)."""
    __slots__ = ("sid", "fd", "ref", "start", "size")

    def __init__(self, sid, fd, mm, size):
        self.sid, self.fd, self.ref, self.size = sid, fd, weakref.ref(mm), size
        self.start = np.frombuffer(mm, np.uint8).ctypes.data


_registry_lock = threading.RLock()  # re-entrant: a garbage collection under it may run _release
_segments = {}             # sid -> _Segment: this process's live segments
_sids = itertools.count(1)
_dropped = []              # sids freed since the pool last heard of it


def _release(sid):
    """Finaliser of a segment's mmap: its last array is gone."""
    with _registry_lock:
        seg = _segments.pop(sid, None)
        if seg is not None:
            os.close(seg.fd)
            if _pool is not None:
                _dropped.append(sid)


def _new_segment(nbytes):
    size = max(int(nbytes), 1)
    fd = os.memfd_create("ascend_jit_gm", os.MFD_CLOEXEC)
    try:
        os.ftruncate(fd, size)
        mm = mmap.mmap(fd, size, flags=mmap.MAP_SHARED)
    except BaseException:
        os.close(fd)
        raise
    seg = _Segment(next(_sids), fd, mm, size)
    with _registry_lock:
        _segments[seg.sid] = seg
    weakref.finalize(mm, _release, seg.sid)
    return seg, mm


def _segment_of(address):
    for seg in list(_segments.values()):
        if seg.start <= address < seg.start + seg.size:
            return seg
    return None


def gm_empty(shape, dtype=np.float16):
    """A numpy array in shared memory (contents undefined): GM that `aj.launch(parallel="processes")` hands to its
    worker processes without a copy. Freed when its last view is garbage. Where the OS has no memfd_create (not
    Linux), a plain numpy array: process launches are refused there anyway."""
    from .api._common import as_int
    from .tensor import known_device
    api, device = "gm_empty", known_device()
    kind = _plain_dtype(api, dtype, device)
    dims = (shape,) if not isinstance(shape, (tuple, list)) else shape
    # each size an integer (numpy raised TypeError / ValueError for 1.5, None or "abc", and its int64 product wrapped
    # (2**32, 2**32) to 0 elements); the product in Python ints, bounded by what a host can map (audit17h)
    dims = tuple(as_int(api, device, "shape", n, 0) for n in dims)
    count = math.prod(dims)
    nbytes = count * kind.itemsize
    if not SUPPORTED:
        return np.zeros(dims, kind)
    try:
        if nbytes > _MAX_OFF_T:   # ftruncate's off_t
            raise OSError("larger than a file offset")
        _, mm = _new_segment(nbytes)
    except OSError as e:   # the host cannot map it (ENOMEM): a refusal naming the size, not the OS's error
        raise ParameterError(api, "shape", dims, device=device, detail=f"{nbytes} bytes: {e}",
                             legal="a size this host can map as shared memory") from None
    return np.frombuffer(mm, kind, count).reshape(dims)


def _plain_dtype(api, dtype, device):
    try:
        kind = numpy_dtype(dtype)
    except Exception:   # numpy's dtype parser raises TypeError, ValueError, KeyError, SyntaxError
        kind = None
    if kind is None or kind.hasobject:   # object references cannot live in a shared byte buffer
        raise ParameterError(api, "dtype", dtype, legal="a numpy dtype of plain data (GM bytes)", device=device)
    return kind


def gm_zeros(shape, dtype=np.float16):
    """gm_empty filled with zeros (a fresh memfd segment reads as zeros)."""
    return gm_empty(shape, dtype)


def gm_array(x, dtype=None):
    """A copy of x (anything np.asarray takes) in shared memory, C-contiguous, dtype kept unless given."""
    from .tensor import known_device
    device = known_device()
    if dtype is not None:
        dtype = _plain_dtype("gm_array", dtype, device)
    try:
        x = np.asarray(x, dtype=dtype)
    except (TypeError, ValueError) as e:   # a ragged list, a string as a number (audit17h)
        raise ParameterError("gm_array", "x", type(x).__name__, device=device, detail=str(e),
                             legal="data numpy can make an array of") from None
    out = gm_empty(x.shape, x.dtype)
    out[...] = x
    return out


def is_shared_gm(array):
    """Whether a numpy array lies in shared GM (gm_empty / gm_zeros / gm_array or a view of one)."""
    return isinstance(array, np.ndarray) and array.size > 0 and \
        _segment_of(array.__array_interface__["data"][0]) is not None


# --- what travels: arguments, results, errors ----------------------------------------------------------------------

def _rebuild_error(cls, args, state):
    err = cls.__new__(cls)
    Exception.__init__(err, *args)
    err.__dict__.update(state)
    return err


class _ArgsPickler(pickle.Pickler):
    """Pickles a launch's arguments: shared arrays as references, private buffers gathered for the temporary segment."""

    def __init__(self, file):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.private = {}   # id(root) -> [root, lo, hi, offset in the temporary segment, written back]
        self.size = 0
        self.shared = set()  # sids of the shared segments the arguments use

    def persistent_id(self, obj):
        if type(obj) is LocalTensor or isinstance(obj, LocalTensor):
            # it pickled (its core's whole UB copied along) and failed to unpickle in every process with an
            # AttributeError (its fields are read-only); a worker's block could not use another core's UB anyway
            raise TypeError("a LocalTensor lies in the UB of the core it was made on, which no block runs on: pass "
                            "GM (a GlobalTensor or an array) and make UB tensors in the kernel")
        if not isinstance(obj, np.ndarray) or obj.size == 0:
            return None
        address = obj.__array_interface__["data"][0]
        meta = (obj.dtype, obj.shape, obj.strides, obj.flags.writeable)
        seg = _segment_of(address)
        if seg is not None:
            self.shared.add(seg.sid)
            return ("s", seg.sid, address - seg.start) + meta
        root = obj
        while isinstance(root.base, np.ndarray):
            root = root.base
        entry = self.private.get(id(root))
        if entry is None:
            lo, hi = _byte_bounds(root)
            entry = self.private[id(root)] = [root, lo, hi, self.size, False]
            self.size += -(-(hi - lo) // _ALIGN) * _ALIGN
        entry[4] = entry[4] or obj.flags.writeable  # copied back only when some block could write it
        return ("p", entry[3] + address - entry[1]) + meta


class _ErrorPickler(pickle.Pickler):
    def reducer_override(self, obj):
        if isinstance(obj, AscendJitError):  # its __init__ takes (api, ...), not the message its args hold
            return _rebuild_error, (type(obj), obj.args, dict(obj.__dict__))
        return NotImplemented


def _dumps(obj, pickler=_ErrorPickler):
    buf = io.BytesIO()
    pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buf.getvalue()


def _loads_args(blob, segments, temp):
    """Unpickle a launch's arguments against this process's mappings (segments: sid -> mmap; temp: the temporary
    segment's mmap or None)."""
    def persistent_load(pid):
        if pid[0] == "s":
            _, sid, offset, dtype, shape, strides, writeable = pid
            buffer = segments[sid]
        else:
            _, offset, dtype, shape, strides, writeable = pid
            buffer = temp
        a = np.ndarray(shape, dtype, buffer=buffer, offset=offset, strides=strides)
        if not writeable:
            a.flags.writeable = False
        return a
    unpickler = pickle.Unpickler(io.BytesIO(blob))
    unpickler.persistent_load = persistent_load
    return unpickler.load()


def _code_digest(fn):
    """A fingerprint of a kernel's code, so a worker notices a name it resolves to other code."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    return hashlib.blake2b(marshal.dumps(code), digest_size=12).digest()


# --- messages over SOCK_SEQPACKET: a header record (length, and any fds), then the body in records ---------------

def _send(sock, payload, fds=()):
    socket.send_fds(sock, [struct.pack("<q", len(payload))], list(fds))
    for at in range(0, len(payload), _CHUNK):
        sock.sendall(payload[at:at + _CHUNK])


def _recv(sock):
    """(payload, fds), or None at EOF (the other side closed or died)."""
    try:
        head, fds, _, _ = socket.recv_fds(sock, 8, 253)  # SCM_MAX_FD
    except ConnectionResetError:
        return None
    if len(head) < 8:
        for fd in fds:
            os.close(fd)
        return None
    (n,) = struct.unpack("<q", head)
    parts, got = [], 0
    while got < n:
        part = sock.recv(_CHUNK)
        if not part:
            for fd in fds:
                os.close(fd)
            return None
        parts.append(part)
        got += len(part)
    return b"".join(parts), fds


# --- the blocks of one launch in one process --------------------------------------------------------------------

class ProcessLaunchState:
    """aj.launch's cross-block state for a process launch: blocks cannot wait for each other across processes."""
    gm_shadow = None

    def __init__(self, block_dim):
        self.block_dim = block_dim

    @staticmethod
    def _refuse(api, core, what, legal="parallel=True or False"):
        raise StateError(api, "parallel", "processes", device=core.device, legal=legal,
                         detail=f"{what} across blocks in host processes is not modelled; launch with parallel=True "
                                "(blocks in threads)")

    def sync_all(self, core):
        # a serial launch refuses SyncAll too (it would wait for blocks not yet started): threads only
        self._refuse("SyncAll", core, "a barrier", legal="parallel=True")

    def atomic_turn(self, core):
        self._refuse("DataCopy (atomic)", core, "the atomic turn order")

    def run_slot(self):
        import contextlib
        return contextlib.nullcontext()

    def finish(self, block, failed):
        pass


def _take_block(tokens_r):
    try:
        data = os.read(tokens_r, _TOKEN.size)  # pipe reads of one token are atomic: each index goes to one process
    except BlockingIOError:
        return None
    return _TOKEN.unpack(data)[0] if len(data) == _TOKEN.size else None


def _tokens(block_dim, chunk):
    """The work queue's contents: the first block of each run of `chunk` blocks."""
    return b"".join(_TOKEN.pack(b) for b in range(0, block_dim, chunk))


def _run_blocks(kernel, device, block_dim, args, kwargs, take, control, chunk=1):
    """Take blocks (runs of `chunk`: take() gives the first, None when the queue is empty) until the queue is empty
    or a block failed (control[0] = 1). Returns [(block, result, error)]."""
    from .core import Core
    from .launch import _run_block
    state, done = ProcessLaunchState(block_dim), []
    while not control[0]:
        first = take()
        if first is None:
            break
        for block in range(first, min(first + chunk, block_dim)):
            core = Core(device, sanitize=False)
            core.block_idx, core.block_num, core.launch = block, block_dim, state
            try:
                done.append((block, _run_block(kernel, args, kwargs, core, state), None))
            except BaseException as err:
                control[0] = 1
                done.append((block, None, err))
                break
    return done


# --- worker processes ----------------------------------------------------------------------------------------------

_in_worker = False


def _worker_main(sock, tokens_r, control):
    """A worker's life: attach segments, run jobs, reply; exits when its socket closes."""
    global _in_worker
    _in_worker = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the launching process's to handle
    mapped = {sid: seg.ref() for sid, seg in _segments.items()}  # inherited at the fork
    code = 0
    try:
        while True:
            message = _recv(sock)
            if message is None:
                break
            payload, fds = message
            job = pickle.loads(payload)
            for (sid, size), fd in zip(job["attach"], fds):
                mapped[sid] = mmap.mmap(fd, size, flags=mmap.MAP_SHARED)
                os.close(fd)
            for sid in job["drop"]:
                mm = mapped.pop(sid, None)
                if mm is not None:
                    try:
                        mm.close()
                    except BufferError:  # inherited arrays still export it: it goes with the worker
                        pass
            _send(sock, _worker_job(job, mapped, tokens_r, control))
    except BaseException:
        traceback.print_exc()
        code = 1
    os._exit(code)


def _worker_job(job, mapped, tokens_r, control):
    try:
        kernel = pickle.loads(job["kernel"])
        if _code_digest(kernel) != job["digest"]:
            raise LookupError(f"{job['kernel_name']} resolves to other code in this worker")
        args, kwargs = _loads_args(job["args"], mapped, mapped.get(job["temp"]))
    except BaseException:
        return pickle.dumps(("unresolved", traceback.format_exc()))
    done = _run_blocks(kernel, job["device"], job["block_dim"], args, kwargs, lambda: _take_block(tokens_r), control,
                       job["chunk"])
    del args, kwargs
    out = []
    for block, result, err in done:
        if err is None:
            try:
                out.append((block, _dumps(result), None, None))
            except Exception:
                err = AscendJitError("launch", "block", block, detail="returned a value that cannot be pickled back "
                                     "from its worker process (parallel='processes'):\n" + traceback.format_exc())
                control[0] = 1
        if err is not None:
            text = "".join(traceback.format_exception(err))
            try:
                blob = _dumps(err)
                pickle.loads(blob)
            except Exception:
                blob = None
            out.append((block, None, blob, text))
    return pickle.dumps(("done", out))


class _Worker:
    __slots__ = ("pid", "sock", "mapped")

    def __init__(self, pid, sock, mapped):
        self.pid, self.sock, self.mapped = pid, sock, mapped


class _Pool:
    def __init__(self, size):
        self.tokens_r, self.tokens_w = os.pipe()
        os.set_blocking(self.tokens_r, False)
        import fcntl
        try:
            fcntl.fcntl(self.tokens_w, 1031, 1 << 18)  # F_SETPIPE_SZ: room for 65535 block indices
        except OSError:
            pass
        self.capacity = fcntl.fcntl(self.tokens_w, 1032)  # F_GETPIPE_SZ: what the queue holds without blocking
        self.control = mmap.mmap(-1, mmap.PAGESIZE, flags=mmap.MAP_SHARED)
        self.workers = []
        self.broken = False
        self.temp = None  # (segment, mmap): the private buffers' copies, kept for the next launch (docstring)
        try:
            for _ in range(size):
                self._fork()
        except BaseException:
            self.close()
            raise

    def _fork(self):
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        mapped = set(_segments)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork of a threaded process (docstring)
            pid = os.fork()
        if pid == 0:
            parent.close()
            for w in self.workers:  # the earlier workers' sockets are the launching process's alone
                w.sock.close()
            _worker_main(child, self.tokens_r, self.control)
        child.close()
        self.workers.append(_Worker(pid, parent, mapped))

    def temporary(self, nbytes):
        """The segment a launch copies its private buffers into: the last one when large enough (its pages are
        mapped and faulted in already, in every process), else a new one."""
        if self.temp is None or self.temp[0].size < nbytes:
            self.temp = None
            self.temp = _new_segment(max(nbytes, 1 << 16))
        return self.temp

    def close(self, wait=1.0):
        """Close the workers' sockets (they exit), reap them; kill those still alive after `wait` seconds."""
        for w in self.workers:
            w.sock.close()
        deadline = time.monotonic() + wait
        for w in self.workers:
            while True:
                try:
                    pid, _ = os.waitpid(w.pid, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid:
                    break
                if time.monotonic() > deadline:
                    try:
                        os.kill(w.pid, signal.SIGKILL)
                        os.waitpid(w.pid, 0)
                    except (ProcessLookupError, ChildProcessError):
                        pass
                    break
                time.sleep(0.005)
        self.workers, self.temp = [], None
        for fd in (self.tokens_r, self.tokens_w):
            try:
                os.close(fd)
            except OSError:
                pass
        self.control.close()

    def forget(self):
        """In a forked child of the launching process: drop the parent's pool without touching its workers."""
        for w in self.workers:
            try:
                w.sock.close()
            except OSError:
                pass
        self.workers = []

    def dead_status(self, worker):
        try:
            pid, status = os.waitpid(worker.pid, 0)
        except ChildProcessError:
            return "exited"
        if os.WIFSIGNALED(status):
            return f"killed by signal {os.WTERMSIG(status)}"
        return f"exited with status {os.WEXITSTATUS(status)}"


_pool = None
_pool_lock = threading.Lock()
_pool_owner = None  # the thread running a process launch


def pool_size():
    """Worker processes a process launch uses besides the launching one: POOL_SIZE, else host cores - 1."""
    if POOL_SIZE is not None:
        return POOL_SIZE
    from .launch import host_cores
    return max(host_cores() - 1, 0)


def close_block_processes():
    """Shut the worker pool down (the next process launch forks a new one): to release the shared segments the
    workers inherited, or to pick up code redefined since the pool forked."""
    global _pool
    with _pool_lock:
        if _pool is not None:
            _pool.close()
            _pool = None


def _after_fork_in_child():
    global _pool, _pool_lock, _pool_owner, _registry_lock
    _registry_lock = threading.RLock()  # re-entrant: a garbage collection under it may run _release
    _pool_lock = threading.Lock()
    _pool_owner = None
    if _pool is not None:
        _pool.forget()
        _pool = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
atexit.register(close_block_processes)


def _kernel_blob(kernel):
    try:
        blob = pickle.dumps(kernel, protocol=pickle.HIGHEST_PROTOCOL)
        if pickle.loads(blob) is not kernel:
            raise pickle.PicklingError("it does not resolve to itself by name")
    except Exception as err:
        raise ParameterError("launch", "kernel", getattr(kernel, "__qualname__", repr(kernel)),
                             legal="a module-level function (it travels to the worker processes by name)",
                             detail=f"cannot run with parallel='processes' ({err}); define it at module level or "
                                    "launch with parallel=True") from None
    return blob


def launch_in_processes(kernel, block_dim, device, args, kwargs):
    """aj.launch(parallel="processes") once the launch's parameters are checked: the per-block results."""
    global _pool_owner
    if not SUPPORTED:
        raise ParameterError("launch", "parallel", "processes", legal="True or False on this OS",
                             detail="needs os.fork, os.memfd_create and socket.send_fds (Linux)")
    kernel_blob = _kernel_blob(kernel)
    if _in_worker or _pool_owner == threading.get_ident() or block_dim == 1 or pool_size() == 0:
        return _serial(kernel, block_dim, device, args, kwargs)  # nested, or nothing to share: blocks here in turn
    buf = io.BytesIO()
    pickler = _ArgsPickler(buf)
    try:
        pickler.dump((args, kwargs))
    except Exception as err:
        raise ParameterError("launch", "args", type(err).__name__,
                             legal="picklable arguments (numpy arrays, GlobalTensors, numbers, ...)",
                             detail=f"cannot travel to the worker processes of parallel='processes': {err}") from None
    args_blob, private = buf.getvalue(), list(pickler.private.values())
    with _pool_lock:
        _pool_owner = threading.get_ident()
        try:
            return _launch_locked(kernel, kernel_blob, block_dim, device, args_blob, private, pickler.size,
                                  pickler.shared)
        finally:
            _pool_owner = None


def _serial(kernel, block_dim, device, args, kwargs):
    """A process launch inside a block: its blocks one after the other here, stopping at the first error."""
    blocks = iter(range(block_dim))
    done = _run_blocks(kernel, device, block_dim, args, kwargs, lambda: next(blocks, None), bytearray(1))
    return _outcome(block_dim, {b: (result, err) for b, result, err in done}, [])


def _launch_locked(kernel, kernel_blob, block_dim, device, args_blob, private, temp_size, shared):
    global _pool
    if _pool is not None and (_pool.broken or len(_pool.workers) != pool_size()):
        _pool.close()
        _pool = None
    if _pool is None:
        _pool = _Pool(pool_size())
    pool = _pool
    temp, temp_mm = pool.temporary(temp_size) if private else (None, None)
    try:
        for root, lo, hi, offset, _ in private:
            ctypes.memmove(temp.start + offset, lo, hi - lo)
        used = set(shared) | ({temp.sid} if temp is not None else set())
        mapped = {sid: _segments[sid].ref() for sid in used}
        args, kwargs = _loads_args(args_blob, mapped, temp_mm)
        with _registry_lock:
            drops, _dropped[:] = list(_dropped), []
        job = {"kernel": kernel_blob, "kernel_name": getattr(kernel, "__qualname__", repr(kernel)),
               "digest": _code_digest(kernel), "device": device, "block_dim": block_dim, "args": args_blob,
               "temp": temp.sid if temp is not None else None, "drop": drops,
               "chunk": -(-block_dim * _TOKEN.size // pool.capacity)}  # the queue never blocks its writer
        pool.control[0] = 0
        os.write(pool.tokens_w, _tokens(block_dim, job["chunk"]))
        try:
            sent = []
            for w in pool.workers:
                w.mapped.difference_update(drops)
                new = sorted(used - w.mapped)
                try:
                    _send(w.sock, pickle.dumps(dict(job, attach=[(sid, _segments[sid].size) for sid in new])),
                          [_segments[sid].fd for sid in new])
                except OSError:  # a worker that died since the last launch: the others run its share
                    pool.broken = True
                    continue
                w.mapped.update(new)
                sent.append(w)
            try:
                mine = _run_blocks(kernel, device, block_dim, args, kwargs, lambda: _take_block(pool.tokens_r),
                                   pool.control, job["chunk"])
            finally:
                del args, kwargs
                replies = _collect(pool, sent)
        except BaseException:  # Ctrl-C while waiting: the workers' state is unknown, fork anew next time
            pool.broken = True
            raise
        outcomes = {b: (result, err) for b, result, err in mine}
        lost = []
        for w, reply in replies:
            if reply is None:
                pool.broken = True
                lost.append(w)
                continue
            kind, body = reply
            if kind == "unresolved":
                pool.broken = True  # fork anew next time: the new workers know the kernel
                continue
            for block, result_blob, err_blob, text in body:
                outcomes[block] = _unpack(block, block_dim, result_blob, err_blob, text)
        while _take_block(pool.tokens_r) is not None:  # a failed block stopped the queue: empty it
            pass
        deaths = [(w, pool.dead_status(w)) for w in lost]
    finally:
        for root, lo, hi, offset, written in private:
            if written:
                ctypes.memmove(lo, temp.start + offset, hi - lo)
    return _outcome(block_dim, outcomes, deaths)


def _collect(pool, workers):
    """Each worker's reply (unpickled), or None for a worker that died; waits on the sockets, so never hangs."""
    replies, waiting, poller = [], {w.sock.fileno(): w for w in workers}, select.poll()
    for fd in waiting:
        poller.register(fd, select.POLLIN)
    while waiting:
        for fd, _ in poller.poll():
            w = waiting.pop(fd, None)
            if w is None:
                continue
            poller.unregister(fd)
            message = _recv(w.sock)
            replies.append((w, None if message is None else pickle.loads(message[0])))
    return replies


def _unpack(block, block_dim, result_blob, err_blob, text):
    """A worker's outcome of one block: (result, None) or (None, the exception to raise)."""
    try:
        if err_blob is None and text is None:
            return pickle.loads(result_blob), None
        err = None if err_blob is None else pickle.loads(err_blob)
    except Exception:
        text = (text or "") + traceback.format_exc()
        err = None
    if err is None:
        return None, AscendJitError("launch", "block", block,
                                    detail=f"of {block_dim}: its worker process's outcome cannot be pickled back "
                                           f"(parallel='processes'); the traceback:\n{text}")
    if not isinstance(err, AscendJitError):
        err.add_note("traceback in the worker process:\n" + text)
    return None, err


def _outcome(block_dim, outcomes, deaths):
    """The per-block results, or the error of the lowest failed block, or the blocks a dead worker took."""
    failed = sorted(b for b, (_, err) in outcomes.items() if err is not None)
    if failed:
        raise outcomes[failed[0]][1]
    missing = [b for b in range(block_dim) if b not in outcomes]
    if deaths or missing:
        how = "; ".join(f"worker process {w.pid} {status}" for w, status in deaths) or "a worker process died"
        raise AscendJitError("launch", "blocks lost", missing, legal="every block finished by a live worker",
                             detail=f"of {block_dim} did not finish: {how} (parallel='processes'); the pool is "
                                    "forked anew by the next process launch")
    return [outcomes[b][0] for b in range(block_dim)]
