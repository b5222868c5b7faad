"""Multi-block launch: `launch(kernel, block_dim, device, *args)` runs the kernel once per block, each block on
its own Core (own UB, CTRL, mask register and flags) with GetBlockIdx() = its index, as `<<<blockDim>>>` would.

Blocks communicate through GM (the host arrays passed in). With parallel=True (the default) every block runs in its
own host thread, all at once, so `aj.SyncAll()` is a real barrier; parallel=False runs them one after the other
and a SyncAll there is a StateError (it would wait for blocks that have not started), never a hang.
parallel="processes" runs the blocks in a pool of forked worker processes (and the launching one) with GM in shared
memory (`aj.gm_array` / `aj.gm_zeros` / `aj.gm_empty`; other arrays are copied in and back): the only way blocks
whose Python holds the GIL use several cores. SyncAll, atomic DataCopy and the sanitizer are refused there
(processes.py says how it works and what it costs).

Threads pay because the instructions' compiled kernels release the GIL (DataCopy, ReduceSum, the element-wise
family: `nogil=True`, called through their entries): on the tiled workloads most of a block's time is spent in
them (about 70 % of the 8-block tiled sum, two GIL-free calls per tile, 5-6 us of Python between them), so blocks
on different host cores overlap (BENCHMARKS.md "Multi-block launches"). At most one block per host core runs at a
time (`host_cores()` run slots): more runnable threads than cores would only fight over the GIL and the caches. A
block waiting at SyncAll or for its atomic turn gives its slot to a block that can run, so the barrier still sees
every block.

What a threaded launch costs on the host, and what was chosen by measuring it (issue 21, docs/decisions.md
"Block threads"; figures from the 2-core KVM guest, benchmarks/tiled_throughput.py and BENCHMARKS.md):
- Block threads are parked between launches and reused (`_BlockThreads`): starting 8 threads costs about 0.5 ms
  of CPU, handing 8 blocks to parked threads about 0.05 ms. An empty 8-block launch went from 0.61 ms to 0.15 ms
  (serial: 0.12 ms). Fresh threads also cost the running blocks: each start takes the GIL from blocks coming back
  from their kernels (kernel returns that waited over 20 us for the GIL: 30 per 16 Mi-half launch, 8-63, against
  7 with parked threads, same rounds). A forked child starts its own.
- While a parallel launch runs, the interpreter's switch interval is 200 us (LAUNCH_SWITCH_INTERVAL) instead of
  5 ms, restored when the last overlapping launch ends. A block coming back from a kernel while another holds the
  GIL sleeps until the holder drops it for its next kernel, or until the switch interval forces a hand-over. On a
  busy machine (load average 3.7) the launch's median wall time over 30 rounds was 18.2 ms with 5 ms and 11.9 ms
  with 200 us (50 us to 1 ms alike); with less load they measure alike.
- Not chosen: pinning each run slot's thread to its own core (`os.sched_setaffinity`): no faster at best and
  much slower when another process holds one of the cores (a pinned block cannot move away); a process forked per
  launch: a fork, exit and wait costs about 3 ms against a 10-12 ms launch (no gain). The persistent pool of
  parallel="processes" is what pays (processes.py): the lead's idle prototype measured 1.91x serial.
- parallel=True always runs threads, whatever the launch's size: any block may reach SyncAll, which needs every
  block alive (a sequence of blocks cannot). A launch of short blocks gains nothing from threads (their time is
  Python, which holds the GIL) and pays the hand-overs, about 0.15 ms for 8 blocks: callers that know their
  kernel never synchronises pick parallel=False for such launches, as kernels/multi_block_reduce_sum.py does for
  small inputs.

Atomic DataCopy (SetAtomicAdd/Max/Min) across blocks is made deterministic by a turn order (docs/decisions.md
"Atomics across blocks"): between two SyncAll barriers (an epoch), a block commits its first atomic copy only after
every block before it in the launch's atomic order has finished that epoch (reached the next SyncAll or returned).
The order is block-index order, or with `atomic_order="shuffle", seed=s` a permutation drawn from the seed, so a
kernel whose result depends on the order shows it. Serial launches run their blocks in that order.
"""
import contextlib
import difflib
import inspect
import os
import queue
import sys
import threading

import numpy as np

from .core import BOUNDS_RULES, Core
from .errors import AscendJitError, ParameterError, StateError
from .sanitizer import (LaunchShadow, default_config as default_sanitize_config, hold_launch_reports,
                        release_launch_reports, resolve_config, warn_session_overridden)
from .sync import flag_name

MAX_CONCURRENT_BLOCKS = 256  # threads of one parallel launch; larger launches cannot SyncAll (StateError)
LAUNCH_SWITCH_INTERVAL = 200e-6  # seconds: sys.setswitchinterval while a parallel launch runs (module docstring)
ATOMIC_ORDERS = ("block", "shuffle")


class LaunchAborted(StateError):
    """A block stopped waiting (SyncAll or an atomic turn) because another block failed or returned early."""


class LaunchState:
    """The cross-block state of one launch: the SyncAll barrier and the atomic turn order. Never blocks forever:
    a block that fails, or returns while others wait for it at a SyncAll, breaks the barrier for everyone."""

    def __init__(self, block_dim, order, concurrent, gm_shadow=None, cores=None):
        self.block_dim, self.order, self.concurrent = block_dim, list(order), concurrent
        # run slots: how many blocks run at once (a waiting block hands its slot on meanwhile, _wait)
        self.slots = threading.Semaphore(cores) if concurrent and cores and cores < block_dim else None
        self.gm_shadow = gm_shadow       # the sanitizer's cross-block GM shadow (check "blocks"), or None
        self.rank = {b: k for k, b in enumerate(self.order)}
        self.cond = threading.Condition()
        self.arrived = 0
        self.generation = 0
        self.syncs = [0] * block_dim     # SyncAll arrivals per block (the epoch a block is in)
        self.done = [False] * block_dim
        self.broken = None               # why the barrier is broken

    def _raise_broken(self, api, block):
        raise LaunchAborted(api, "block", block, detail=f"aborted: {self.broken}")

    def run_slot(self):
        """Context of one block's run: holds a run slot (when the launch has fewer slots than blocks)."""
        return self.slots if self.slots is not None else contextlib.nullcontext()

    def _wait(self, done):
        """cond.wait() until done() (cond held), with the caller's run slot given back meanwhile. Returns with the
        slot held again and cond held."""
        if self.slots is None:
            while not done():
                self.cond.wait()
            return
        self.slots.release()
        try:
            while not done():
                self.cond.wait()
        finally:
            self.cond.release()  # never wait for a slot while holding cond: the slot holders need it
            try:
                self.slots.acquire()
            finally:
                self.cond.acquire()

    def sync_all(self, core):
        block = core.block_idx
        if not self.concurrent and self.block_dim > 1:
            raise StateError("SyncAll", "block", block, device=core.device,
                             legal=f"SyncAll in a launch with parallel=True and at most {MAX_CONCURRENT_BLOCKS} blocks",
                             detail="this launch runs its blocks one after another (parallel=False, or more than "
                                    f"{MAX_CONCURRENT_BLOCKS} blocks): SyncAll would wait forever for blocks that "
                                    "have not started; launch with parallel=True")
        with self.cond:
            if self.broken:
                self._raise_broken("SyncAll", block)
            self.syncs[block] += 1
            self.arrived += 1
            generation = self.generation
            if self.arrived == self.block_dim:
                self.arrived, self.generation = 0, self.generation + 1
                self.cond.notify_all()
                return
            gone = [b for b in range(self.block_dim) if self.done[b]]
            if gone:
                self.broken = (f"block {gone[0]} returned without reaching SyncAll number {self.syncs[block]}; "
                               "the device would hang")
                self.cond.notify_all()
                self._raise_broken("SyncAll", block)
            self.cond.notify_all()  # blocks waiting for their atomic turn may go on: this one ended its epoch
            self._wait(lambda: self.generation != generation or self.broken)
            if self.generation == generation:
                self._raise_broken("SyncAll", block)

    def atomic_turn(self, core):
        """Wait until every block before this one in the atomic order has finished the current epoch."""
        if not self.concurrent:
            return  # serial launches already run the blocks in the atomic order
        block = core.block_idx
        earlier = self.order[:self.rank[block]]
        with self.cond:
            epoch = self.syncs[block]
            self._wait(lambda: self.broken or all(self.done[b] or self.syncs[b] > epoch for b in earlier))
            if self.broken and not all(self.done[b] or self.syncs[b] > epoch for b in earlier):
                self._raise_broken("DataCopy (atomic)", block)

    def finish(self, block, failed):
        with self.cond:
            self.done[block] = True
            if self.broken is None:
                if failed:
                    self.broken = f"block {block} failed"
                elif self.arrived:
                    self.broken = (f"block {block} returned without reaching SyncAll number {self.syncs[block] + 1}; "
                                   "the device would hang")
            self.cond.notify_all()


def host_cores():
    """The host cores this process may run on: the run slots of a parallel launch."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class _SwitchInterval:
    """sys.setswitchinterval(LAUNCH_SWITCH_INTERVAL) while at least one parallel launch runs (launches may overlap
    in several host threads: the first to start sets it, the last to end restores the value it found)."""

    def __init__(self):
        self.lock, self.users, self.saved = threading.Lock(), 0, None

    def __enter__(self):
        with self.lock:
            if self.users == 0:
                self.saved = sys.getswitchinterval()
                sys.setswitchinterval(min(self.saved, LAUNCH_SWITCH_INTERVAL))
            self.users += 1

    def __exit__(self, *exc):
        with self.lock:
            self.users -= 1
            if self.users == 0:
                sys.setswitchinterval(self.saved)
        return False

    def after_fork(self):
        """A forked child runs none of the parent's launches: the interval they set goes back."""
        if self.users:
            sys.setswitchinterval(self.saved)
        self.lock, self.users = threading.Lock(), 0


_launch_switch_interval = _SwitchInterval()
PARALLEL_LAUNCHES = _launch_switch_interval  # .users: the parallel (thread) launches running now (reg.py's VF lock)


class _BlockThreads:
    """Host threads that run the blocks of parallel launches, parked between launches: starting 8 threads costs about
    0.5 ms on a 2-core KVM guest, handing 8 blocks to parked threads about 0.05 ms. A launch of N blocks takes N
    parked threads (starting the missing ones); each gives itself back when its block has returned. At most
    MAX_CONCURRENT_BLOCKS per launch, so the pool holds at most that many times the launches that overlap."""

    def __init__(self):
        self.lock = threading.Lock()
        self.parked = []  # the inboxes of the parked threads

    def run(self, jobs):
        """Run every job (a callable) in its own thread, all at once; returns [(result, exception)] in job order."""
        done, count = queue.SimpleQueue(), len(jobs)
        with self.lock:
            inboxes = self.parked[len(self.parked) - min(count, len(self.parked)):]
            del self.parked[len(self.parked) - len(inboxes):]
        while len(inboxes) < count:
            inbox = queue.SimpleQueue()
            threading.Thread(target=self._serve, args=(inbox,), name="ascend_jit block", daemon=True).start()
            inboxes.append(inbox)
        for index, (inbox, job) in enumerate(zip(inboxes, jobs)):
            inbox.put((index, job, done))
        outcomes = [None] * count
        for _ in range(count):
            index, outcome = done.get()
            outcomes[index] = outcome
        return outcomes

    def _serve(self, inbox):
        while True:
            index, job, done = inbox.get()
            try:
                outcome = (job(), None)
            except BaseException as err:  # handed to the launching thread, which raises it
                outcome = (None, err)
            job = None  # drop the block's references (its core, its GM) before parking
            with self.lock:
                self.parked.append(inbox)
            done.put((index, outcome))
            outcome = done = None  # nor the result or error while parked

    def after_fork(self):
        """A forked child has none of the parent's threads: forget them."""
        self.lock, self.parked = threading.Lock(), []


_block_threads = _BlockThreads()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_block_threads.after_fork)
    os.register_at_fork(after_in_child=_launch_switch_interval.after_fork)


def _name_block(err, block, block_dim):
    """Say which block raised (the message of an AscendJitError; a note on any other exception)."""
    if getattr(err, "block_idx", None) is not None:
        return
    err.block_idx = block
    where = f"block {block} of {block_dim}"
    if isinstance(err, AscendJitError) and err.args:
        err.args = (f"{where}: {err.args[0]}",) + err.args[1:]
    else:
        err.add_note(f"raised in {where} of aj.launch")


def _run_block(kernel, args, kwargs, core, state):
    """One block of a launch on its core (in a block thread, the launching thread or a block process): the kernel,
    then the pending-flags check (SPEC-2 D62) and the sanitizer's end of kernel; an error names the block."""
    block = core.block_idx
    try:
        with state.run_slot(), core:
            result = kernel(*args, **kwargs)
        pending = core.pending_flags()
        if core.sanitizer is not None:
            core.sanitizer.finish()
        if pending:
            raise StateError("launch", "pending flags", ", ".join(flag_name(k) + core.flag_site(k) for k in pending),
                             device=core.device,
                             legal="none: every SetFlag waited by its WaitFlag",
                             detail="are still set when the kernel returns: each SetFlag needs its WaitFlag "
                                    "(SPEC-2 D62)" + ("" if core.sanitizer is not None else
                                                      "; a sanitized launch names the line of each SetFlag"))
    except BaseException as err:
        state.finish(block, failed=True)
        _name_block(err, block, core.block_num)
        raise
    state.finish(block, failed=False)
    return result


_LAUNCH_KEYWORDS = ("block_dim", "device", "parallel", "atomic_order", "seed", "sanitize", "bounds")


def _check_kernel_arguments(kernel, args, kwargs, spec):
    """The kernel's arguments bind to its parameters before any block runs: each block had raised the same TypeError,
    and a misspelt launch keyword (`blockdim=`) reached the kernel as one of its own (port60i); a keyword close to one
    of launch's is named as that. A kernel without a signature (a builtin) is left to its call."""
    try:   # the callable's own parameters, not a functools.wraps wrapper's inner function's
        signature = inspect.signature(kernel, follow_wrapped=False)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(*args, **kwargs)
    except TypeError as error:
        params = signature.parameters
        takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
        close = [(name, match[0]) for name in kwargs if name not in params and not takes_any
                 for match in [difflib.get_close_matches(name, _LAUNCH_KEYWORDS, n=1, cutoff=0.75)] if match]
        hint = "".join(f"; {name}= is not launch's {match}=" for name, match in close)
        raise ParameterError("launch", "kernel arguments", str(error), device=spec.name,
                             legal=f"the arguments of {getattr(kernel, '__qualname__', kernel)}{signature}",
                             detail=f"(no block ran){hint}") from None


def launch(kernel, block_dim, device, *args, parallel=True, atomic_order="block", seed=0, sanitize=None,
           bounds="tensor", **kwargs):
    """Run `kernel(*args, **kwargs)` on `block_dim` fresh cores of `device`; returns the per-block return values.

    atomic_order: "block" (block-index order, the default) or "shuffle" (a permutation drawn from `seed`) for the
    atomic DataCopy commits across blocks. A block that ends with a flag still set (SetFlag without its WaitFlag)
    is a StateError (SPEC-2 D62); every error names the block that raised it.

    parallel: True (threads, the default), False (one block after the other, in `atomic_order`) or "processes"
    (worker processes, GM in shared memory; no SyncAll, atomics or sanitizer: processes.py).

    sanitize: as `aj.Core(sanitize=...)`, for every block's core (default: the current aj.sanitize_session, else
    ASCEND_JIT_SANITIZE); the "blocks" check shares one GM shadow across the launch's blocks.

    bounds: as `aj.Core(bounds=...)`, for every block's core: "ub" lets a kernel read past an operand's tensor inside
    the UB, as public kernels whose whole-vector loads run past their last buffer do (docs/decisions.md "Kernel
    gallery"); worker processes take the default only."""
    from .api._common import as_int
    from .devices import get_device
    spec = get_device(device)  # an unknown device first; then every refusal names the device
    if not callable(kernel):  # before any block runs (each block raised Python's "not callable" TypeError)
        raise ParameterError("launch", "kernel", kernel, legal="a callable kernel(*args, **kwargs)", device=spec.name)
    _check_kernel_arguments(kernel, args, kwargs, spec)
    block_dim = as_int("launch", spec, "block_dim", block_dim, 1, 65535)  # numpy ints too (issue 12)
    if atomic_order not in ATOMIC_ORDERS:
        raise ParameterError("launch", "atomic_order", atomic_order, legal=" or ".join(map(repr, ATOMIC_ORDERS)),
                             device=spec.name)
    seed = as_int("launch", spec, "seed", seed, 0)
    if parallel is not True and parallel is not False and parallel != "processes":  # 2 or "yes" was read as True
        raise ParameterError("launch", "parallel", parallel, legal="True (threads), False (serial) or 'processes'",
                             device=spec.name)
    order = (list(range(block_dim)) if atomic_order == "block"
             else [int(b) for b in np.random.default_rng(seed).permutation(block_dim)])
    concurrent = parallel and block_dim <= MAX_CONCURRENT_BLOCKS
    config = resolve_config(sanitize, "launch", "sanitize") if sanitize is not None else default_sanitize_config()
    if config is None and sanitize is not None:
        warn_session_overridden(sanitize)
    if bounds not in BOUNDS_RULES:
        raise ParameterError("launch", "bounds", bounds, legal=" or ".join(map(repr, BOUNDS_RULES)), device=spec.name)
    if parallel == "processes":
        if bounds != "tensor":
            raise ParameterError("launch", "bounds", bounds, legal="'tensor' with parallel='processes'",
                                 detail="worker processes make their cores with the default bounds rule")
        if config is not None:
            raise ParameterError("launch", "parallel", parallel, detail="cannot run sanitized blocks (their reports "
                                 "and the cross-block GM shadow live in one process)", legal="True or False while "
                                 "the sanitizer is on")
        from .processes import launch_in_processes
        return launch_in_processes(kernel, block_dim, Core(device).device, args, kwargs)
    shadow = LaunchShadow(config, has_sync_all=spec.sync_all_hard or spec.sync_all_soft) \
        if config is not None and ("blocks" in config.checks or "dcache" in config.checks) else None
    state = LaunchState(block_dim, order, concurrent, shadow, cores=host_cores())
    cores = [Core(device, bounds=bounds, sanitize=config if config is not None else False) for _ in range(block_dim)]
    for i, core in enumerate(cores):
        core.block_idx, core.block_num, core.launch = i, block_dim, state
        if core.sanitizer is not None:
            core.sanitizer.gm_shadow = shadow

    def run_block(core):
        return _run_block(kernel, args, kwargs, core, state)

    session = hold_launch_reports(cores)
    try:
        if not concurrent or block_dim == 1:
            results = [None] * block_dim
            for b in order:
                results[b] = run_block(cores[b])
            return results
        with _launch_switch_interval:
            outcomes = _block_threads.run([lambda core=core: run_block(core) for core in cores])
    finally:
        if shadow is not None and shadow.config.mode == "report":
            shadow.replay()
        release_launch_reports(cores, session)
    errors = [err for _, err in outcomes if err is not None]
    primary = [e for e in errors if not isinstance(e, LaunchAborted)]
    if errors:
        raise (primary or errors)[0]
    return [result for result, _ in outcomes]
