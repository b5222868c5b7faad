"""Audit 40 (independent): session 40's changes through the public API.

1. The UB pool (core.py _UnifiedBufferPool): a collected core's UB is zeroed and handed to the next core. Every new
   core must start with an all-zero UB and no two reachable cores (or a core and anything else reachable) may share
   UB memory: threads, aj.launch (threads and processes), live views, tensors, tracebacks, GC-driven collection.
2. The sanitizer's grouped summary (format_reports(group=True)) and the composite naming ("InitGlobalMemory: ...").
3. Transpose against a model written here from the devkit page alone (数据排布转换/Transpose.md): whole-UB byte
   equality on random bytes, every device / dtype / form, and every refusal an AscendJitError naming API,
   parameter, value, legal range and device, with UB, mask and CTRL unchanged.
4. The new refusal texts (GM window, UpdateMask pair, not-offered names, aj.Barrier).

Tests named test_found_* failed on the code audited (commit ae23636) and pass since the defects were fixed:
- a core resurrected by a finaliser in its reference cycle, or kept by gc.DEBUG_SAVEALL, shares its UB with the next
  core (Core.__del__ recycles before the object is really gone);
- a `core.ub` replaced by a view of host memory is recycled (its refcount does not see the view's base), and a
  read-only replacement makes the next aj.Core(...) raise numpy's ValueError;
- format_reports does not group a memory-check hazard met in every tile of a loop (its fix names the tile's extent).
"""
import gc
import sys
import threading
import time

import numpy as np
import pytest

import ascend_jit as aj

A2 = "atlas-a2"
P = aj.TransposeParamsExt
TT = aj.TransposeType


# ================================================================================================================
# 1. The UB pool
# ================================================================================================================
def _whole(core):
    """A raw uint8 tensor over the core's whole UB (public API: local_tensor at an address)."""
    return core.local_tensor(np.uint8, core.spec.ub_bytes, addr=0)


def _dirty(core, value=0xA5):
    w = _whole(core)
    w[:] = np.full(core.spec.ub_bytes, value, np.uint8)
    return w


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950", "atlas-inference-aicore", "atlas-training"])
def test_a_new_core_starts_with_a_zero_ub_after_dirty_cores_were_collected(device):
    for round_ in range(6):
        core = aj.Core(device)
        w = _whole(core)
        assert not w.numpy().any(), f"round {round_}: a new core's UB holds stale bytes"
        w[:] = np.full(core.spec.ub_bytes, 0x5A, np.uint8)
        h = core.local_tensor("half", 16)
        h.SetValue(3, np.float16(7))   # scalar access (the per-core typed-view cache)
        if round_ % 2:
            core.cycle = core          # collected by the cyclic GC, not by reference counting
        del w, h, core
        if round_ % 3 == 2:
            gc.collect()


def test_views_buffers_and_tensors_that_outlive_their_core_keep_its_ub_to_themselves():
    """Anything that still reaches the UB after `del core` (numpy views, a memoryview, np.frombuffer, strided
    views, a LocalTensor, a traceback holding the core) keeps the array: no later core may share it."""
    keep = []
    for make in (lambda c: c.ub[100:200],
                 lambda c: c.ub.view(np.float16).reshape(-1, 16),
                 lambda c: memoryview(c.ub),
                 lambda c: np.frombuffer(c.ub, np.uint8),
                 lambda c: np.lib.stride_tricks.as_strided(c.ub, (10,), (2,)),
                 lambda c: c.local_tensor("float", 32),
                 lambda c: c.ub[::-1]):
        core = aj.Core(A2)
        _dirty(core, 0x11)
        keep.append(make(core))
        del core
        gc.collect()
    try:
        raise RuntimeError("holds a frame")
    except RuntimeError:  # (the handled exception's traceback holds this frame)
        def fail(core):
            raise ValueError("inside")
        c = aj.Core(A2)
        _dirty(c, 0x11)
        try:
            fail(c)
        except ValueError as inner:
            keep.append(inner)   # its traceback's frame holds the core
        del c
    fresh = [aj.Core(A2) for _ in range(len(keep) + 2)]
    for core in fresh:
        assert not _whole(core).numpy().any()
        _dirty(core, 0x22)
    for k in keep[:-1]:
        data = k.numpy() if isinstance(k, aj.LocalTensor) else np.asarray(k)
        assert (np.asarray(data).view(np.uint8) == 0x11).all(), type(k)


def test_threads_making_and_dropping_cores_never_share_a_ub():
    """Four threads make cores (some in reference cycles, so the cyclic GC finalises them in whatever thread runs
    it), fill the whole UB with their own byte, yield, and check nothing else wrote it."""
    errors = []
    ub_bytes = aj.Core(A2).spec.ub_bytes

    def worker(tag):
        try:
            for i in range(30):
                core = aj.Core(A2)
                w = _whole(core)
                if w.numpy().any():
                    errors.append((tag, i, "stale bytes"))
                w[:] = np.full(ub_bytes, tag, np.uint8)
                if i % 2:
                    core.cycle = core
                time.sleep(0)
                if i % 5 == 0:
                    gc.collect()
                time.sleep(0)
                if not (w.numpy() == tag).all():
                    errors.append((tag, i, "another core wrote this UB"))
                del w, core
        except Exception as err:  # pragma: no cover - reported below
            errors.append((tag, repr(err)))

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        threads = [threading.Thread(target=worker, args=(t,)) for t in (1, 2, 3, 4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert errors == []


def _zero_then_dirty(tag, device=A2):
    """A block: its whole UB must be zero when it starts; it then fills it and checks it after yielding."""
    n = aj.get_device(device).ub_bytes
    alloc = aj.LocalMemAllocator()
    t = alloc.Alloc("uint8", n)
    was_zero = not t.numpy().any()
    t[:] = np.full(n, tag + aj.GetBlockIdx() % 200 + 1, np.uint8)
    time.sleep(0.001)
    kept = bool((t.numpy() == tag + aj.GetBlockIdx() % 200 + 1).all())
    return was_zero, kept


def test_launch_blocks_in_threads_and_in_turn_start_from_a_zero_ub():
    for parallel in (True, False, True):
        results = aj.launch(_zero_then_dirty, 12, A2, 3, parallel=parallel)
        assert results == [(True, True)] * 12, parallel


@pytest.mark.ascend_sanitize(checks="", reason="aj.launch(parallel=\"processes\") refuses the sanitizer")
def test_launch_blocks_in_processes_start_from_a_zero_ub(monkeypatch):
    processes = sys.modules["ascend_jit.processes"] if "ascend_jit.processes" in sys.modules else None
    if processes is None:
        import importlib
        processes = importlib.import_module("ascend_jit.processes")
    if not processes.SUPPORTED:
        pytest.skip("parallel='processes' is Linux only")
    monkeypatch.setattr(processes, "POOL_SIZE", 1)
    try:
        for _ in range(2):
            results = aj.launch(_zero_then_dirty, 6, A2, 5, parallel="processes")
            assert results == [(True, True)] * 6
    finally:
        aj.close_block_processes()


def _drain_pool(device=A2, cores=300):
    """Cores held alive until the pool has no UB of this size left (it holds at most 48 MiB: 256 A2 UBs), so the
    next UB recycled is the next one handed out, whatever earlier tests left in the pool (collected first: cores of
    earlier tests still in reference cycles would otherwise come back during the scenario's own collection)."""
    gc.collect()
    return [aj.Core(device) for _ in range(cores)]


def _new_cores_sharing(array, device=A2, count=20):
    """How many of `count` new cores (held alive together) share memory with `array`."""
    cores = [aj.Core(device) for _ in range(count)]
    return sum(np.shares_memory(c.ub, array) for c in cores)


class _Keeper:
    """An object in a reference cycle with a core whose __del__ keeps the core (a finaliser that logs or stashes
    its state): PEP 442 lets it resurrect the core after the core's own __del__ ran."""
    kept = []

    def __init__(self, core):
        self.core = core
        core.keeper = self

    def __del__(self):
        _Keeper.kept.append(self.core)


def test_found_a_core_resurrected_by_a_finaliser_in_its_cycle_keeps_its_ub():
    """Found by this audit (on ae23636), fixed.
    Core.__del__ recycles the UB when the reference count says nothing else holds it, but a
    core in a cycle can outlive its __del__: another member's finaliser keeps it (PEP 442 resurrection). The
    resurrected core then shares its UB with the next core made: writes of one appear in the other."""
    _Keeper.kept.clear()
    drained = _drain_pool()  # held alive: the pool is empty, so the next UB recycled is the next handed out
    assert drained
    core = aj.Core(A2)
    t = core.local_tensor("int32", 8)
    t[:] = np.arange(8, dtype=np.int32)
    _Keeper(core)
    del core, t
    gc.collect()
    try:
        [old] = _Keeper.kept
        new = aj.Core(A2)
        n = new.local_tensor("int32", 8)
        n[:] = np.full(8, 7, np.int32)
        seen = old.local_tensor("int32", 8, addr=0).numpy()
        assert not np.shares_memory(old.ub, new.ub), "a live (resurrected) core and a new core share one UB"
        assert seen.tolist() == list(range(8)), "the new core's writes appeared in the old core's UB"
        assert _new_cores_sharing(old.ub) == 0
    finally:
        _Keeper.kept.clear()


def test_found_a_core_kept_by_gc_debug_saveall_keeps_its_ub():
    """Found by this audit (on ae23636), fixed.
    gc.set_debug(gc.DEBUG_SAVEALL) (leak hunting) runs every finaliser, Core.__del__ too,
    then keeps the objects in gc.garbage instead of freeing them: the saved core is reachable and its UB is handed
    to the next core."""
    gc.collect()
    drained = _drain_pool()  # held alive: the pool is empty, so the next UB recycled is the next handed out
    assert drained
    saved_garbage, flags = list(gc.garbage), gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        core = aj.Core(A2)
        core.cycle = core
        core.local_tensor("int32", 8)[:] = np.arange(8, dtype=np.int32)
        del core
        gc.collect()
    finally:
        gc.set_debug(flags)
    try:
        [old] = [o for o in gc.garbage if isinstance(o, aj.Core)]
        new = aj.Core(A2)
        new.local_tensor("int32", 8)[:] = np.full(8, 7, np.int32)
        assert not np.shares_memory(old.ub, new.ub), "the saved core and a new core share one UB"
        assert _new_cores_sharing(old.ub) == 0
    finally:
        gc.garbage[:] = saved_garbage


def test_found_a_ub_replaced_by_a_view_of_host_memory_is_not_handed_to_the_next_core():
    """Found by this audit (on ae23636), fixed.
    `core.ub` is a public attribute; a user who lays it over host memory (a UB dump, a shared
    buffer) keeps that memory. The pool's reference count sees only the view object, not its base, so the view is
    recycled: an unrelated new core's UB is the user's host buffer (and is zeroed over it)."""
    drained = _drain_pool()  # held alive: the pool is empty, so the next UB recycled is the next handed out
    assert drained
    core = aj.Core(A2)
    n = core.spec.ub_bytes
    host = np.full(2 * n, 3, np.uint8)
    core.ub = host[:n]
    del core
    gc.collect()
    new = aj.Core(A2)
    assert not np.shares_memory(new.ub, host), "a new core's UB is the user's host buffer"
    assert _new_cores_sharing(host) == 0
    assert (host == 3).all(), "making a new core zeroed the user's host buffer"


def test_found_a_read_only_ub_dump_does_not_break_the_next_core():
    """Found by this audit (on ae23636), fixed.
    A UB dump loaded with np.frombuffer (read-only) and assigned to `core.ub` to inspect it
    is recycled when the core goes; the next `aj.Core(...)` then raises numpy's ValueError ('assignment destination
    is read-only') from ub.fill(0) -- a bare ValueError, not an AscendJitError, from a constructor call that has
    nothing wrong with it."""
    drained = _drain_pool()  # held alive: the pool is empty, so the next UB recycled is the next handed out
    assert drained
    core = aj.Core(A2)
    n = core.spec.ub_bytes
    core.ub = np.frombuffer(bytes(n), np.uint8)
    assert core.local_tensor("half", 4).numpy().tolist() == [0.0] * 4
    del core
    gc.collect()
    new = aj.Core(A2)   # raises ValueError now
    assert not _whole(new).numpy().any()


# ================================================================================================================
# 2. The sanitizer's grouped summary and composite naming
# ================================================================================================================
def _looped_race(x):
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(x[256 * aj.GetBlockIdx():], 256)
    t = aj.LocalMemAllocator().Alloc("half", 256)
    for i in range(3):
        aj.DataCopy(t, g[64 * i:], 64)
        aj.Adds(t, t, 1.0, 64)          # no MTE2 -> V hand-off: a race every iteration of every block
        aj.PipeBarrier(aj.PIPE_ALL)


def test_format_reports_groups_a_race_across_blocks_and_iterations_and_counts_every_report():
    x = np.ones(5 * 256, np.float16)
    with aj.sanitize_session("report") as session:
        aj.launch(_looped_race, 5, A2, x, parallel=False)
    reports = session.reports
    # a RAW on src and a WAW on dst, in each of 3 iterations of 5 blocks
    assert len(reports) == 30 and {r.block for r in reports} == set(range(5))
    lines = aj.format_reports(reports).splitlines()
    assert len(lines) == 5
    assert lines[0] == str(reports[0]) and lines[0].startswith("[race] RAW: Adds")
    assert lines[1] == "    ... 15 reports of this hazard in all; blocks 0-4; first UB bytes 0"
    assert lines[2].startswith("[race] WAW: Adds") and lines[3] == lines[1]
    assert lines[-1] == "sanitizer: 30 race; 2 distinct hazards"
    every = aj.format_reports(reports, group=False).splitlines()
    assert every == [str(r) for r in reports] + ["sanitizer: 30 race"]
    # blocks 0, 1, 2 and 4 only: the ranges join runs
    some = [r for r in reports if r.block != 3]
    assert "blocks 0-2, 4;" in aj.format_reports(some)
    # a tuple of reports works as the list does; one report prints alone with no "distinct" count
    assert aj.format_reports(tuple(reports)) == aj.format_reports(reports)
    assert aj.format_reports(reports[:1]).splitlines() == [str(reports[0]), "sanitizer: 1 race"]


def _memory_hazard_in_a_tile_loop():
    big = aj.LocalMemAllocator().Alloc("half", 1024)
    for i in range(3):
        tile = big[256 * i:256 * i + 128]
        tile[:] = np.zeros(128, np.float16)
        aj.Adds(tile, tile, 1.0, 128, 2, aj.UnaryRepeatParams(1, 1, 8, 8))  # reads 256 elements of a 128 tile
        aj.PipeBarrier(aj.PIPE_ALL)


def test_found_a_memory_hazard_met_in_every_tile_of_a_loop_prints_once():
    """Found by this audit (on ae23636), fixed.
    format_reports(group=True): "reports that differ only in their block, bytes or the loop
    iteration that made them ... print once" -- a race in a loop of a 48-block launch is one line. The memory
    check's fix text names the tensor's extent ("src is [512, 768)"), and the fix is part of Report.group_key, so
    the same out-of-tensor access at the same line prints once per tile of the loop (the blocks report's fix, which
    names blocks, was taken out of the key; this one was not)."""
    with aj.sanitize_session("report") as session:
        aj.launch(_memory_hazard_in_a_tile_loop, 2, A2, bounds="ub", parallel=False)
    memory = [r for r in session.reports if r.check == "memory"]
    assert len(memory) == 6 and len({r.instruction.where for r in memory}) == 1
    lines = aj.format_reports(memory).splitlines()
    assert len(lines) == 3, "\n".join(lines)   # one report line, its '... 6 reports' line, the summary


def _init_then_copy(g, out):
    pipe = aj.TPipe()
    gg = aj.GlobalTensor()
    gg.SetGlobalBuffer(g, 72)
    aj.InitGlobalMemory(gg, 72, 1.0)
    og = aj.GlobalTensor()
    og.SetGlobalBuffer(out, 16)
    buf = aj.TBuf()
    pipe.InitBuffer(buf, 64)
    t = buf.Get("float")
    t[:] = np.zeros(16, np.float32)
    aj.DataCopy(og, t, 16)


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-inference-aicore"])
def test_a_composites_instructions_are_named_inside_it_and_only_there(device):
    """Two blocks fill the same GM with InitGlobalMemory (a blocks hazard named 'InitGlobalMemory: DataCopyPad' on
    A2, 'InitGlobalMemory: DataCopy' and its scalar tail 'InitGlobalMemory: SetValue' on the 310P), then copy out
    plainly: that copy is named 'DataCopy', the composite's name not left behind."""
    g = np.zeros(72, np.float32)
    with aj.sanitize_session("report") as session:
        aj.launch(_init_then_copy, 2, device, g, np.zeros(16, np.float32), parallel=False)
    apis = {r.instruction.api for r in session.reports}
    inside = {a for a in apis if a.startswith("InitGlobalMemory: ")}
    assert inside, apis
    assert "DataCopy" in apis
    assert all(a == "DataCopy" or a.startswith("InitGlobalMemory: ") for a in apis), apis
    assert (g == 1.0).all()


def test_a_refusal_inside_a_composite_does_not_leave_its_name_behind():
    core = aj.Core(A2, sanitize="report")
    with core:
        aj.TPipe()
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(np.zeros(64, np.float32), 64)
        with pytest.raises(aj.AscendJitError):
            aj.InitGlobalMemory(g, 64, "not a number")
        t = core.local_tensor("half", 128)
        aj.Adds(t, t, 1.0, 128)     # an uninitialised read, reported under its own name
    assert [r.instruction.api for r in core.sanitizer.reports] == ["Adds"]


# ================================================================================================================
# 3. Transpose against an independent model of the devkit page
# ================================================================================================================
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore", "atlas-training")
B16 = ("int16", "uint16", "half")
FMT = ("int8", "uint8", "int16", "uint16", "half", "int32", "uint32", "float")
# 数据类型 (the page, per device): 普通转置; 增强转置 TRANSPOSE_ND2ND_B16; 增强转置 NCHW2NHWC / NHWC2NCHW
PAGE_BASIC = {d: B16 for d in DEVICES}
PAGE_B16 = {"ascend950": B16, "atlas-a3": ("uint16",), "atlas-a2": ("uint16",), "atlas-200i-500-a2": ("uint16",),
            "atlas-inference-aicore": ("uint16",)}
PAGE_FMT = {"ascend950": FMT + ("bfloat16",), "atlas-a3": FMT, "atlas-a2": FMT, "atlas-inference-aicore": FMT}
ALL_DTYPES = ("half", "float", "bfloat16", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
SIZE = {"half": 2, "float": 4, "bfloat16": 2, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4,
        "uint32": 4, "int64": 8, "uint64": 8}


def page_tmp_bytes(device, size, c, to_nhwc):
    """The page's sharedTmpBuffer table: none on the 310P AI Core; else h0 = 32 (8-bit) or 16, w0 = 32 / sizeof(T),
    (cSize + 2) * h0 * w0 * sizeof(T) for NCHW2NHWC and (cSize * 2 + 1) * h0 * w0 * sizeof(T) for NHWC2NCHW."""
    if device == "atlas-inference-aicore":
        return 0
    h0 = 32 if size == 1 else 16
    w0 = 32 // size
    return ((c + 2) if to_nhwc else (c * 2 + 1)) * h0 * w0 * size


def model_16x16(ub, size, dst, src):
    """`dst = src.T` on 16 x 16 elements of `size` bytes: element (i, j) of dst is element (j, i) of src."""
    elems = ub[src:src + 256 * size].reshape(256, size).copy()
    order = [j * 16 + i for i in range(16) for j in range(16)]   # dst row i, column j <- src row j, column i
    ub[dst:dst + 256 * size] = elems[order].reshape(-1)


def model_format(ub, size, dst, src, n, c, h, w, to_nhwc):
    """np.transpose(src_nchw, (0, 2, 3, 1)) / np.transpose(src_nhwc, (0, 3, 1, 2)) on whole elements (bytes)."""
    total = n * c * h * w
    elems = ub[src:src + total * size].reshape(total, size).copy()
    out = np.empty_like(elems)
    for a in range(n):
        for ch in range(c):
            for y in range(h):
                for x in range(w):
                    nchw = ((a * c + ch) * h + y) * w + x
                    nhwc = ((a * h + y) * w + x) * c + ch
                    if to_nhwc:
                        out[nhwc] = elems[nchw]
                    else:
                        out[nchw] = elems[nhwc]
    ub[dst:dst + total * size] = out.reshape(-1)


def _state(core):
    return (_whole(core).numpy(), core.mask_high, core.mask_low, core.counter_mode, core.ctrl, core.mask_defined)


def _random_core(device, rng):
    core = aj.Core(device)
    _whole(core)[:] = rng.integers(0, 256, core.spec.ub_bytes, dtype=np.uint8)
    return core


def _regions(rng, ub_bytes, sizes):
    """Disjoint 32-byte aligned [addr, addr + size) regions in random order and places."""
    while True:
        addrs = [int(rng.integers(0, (ub_bytes - s) // 32 + 1)) * 32 for s in sizes]
        spans = sorted(zip(addrs, sizes))
        if all(a + s <= b for (a, s), (b, _) in zip(spans, spans[1:])):
            return addrs


@pytest.mark.parametrize("device", DEVICES)
def test_transpose_16x16_matches_the_page_model_byte_for_byte(device):
    rng = np.random.default_rng(hash(device) % 2**32)
    for dtype in ALL_DTYPES:
        size = SIZE[dtype]
        for form in ("basic", "enhanced"):
            table = PAGE_BASIC if form == "basic" else PAGE_B16
            for case in range(3):
                core = _random_core(device, rng)
                in_place = case == 2
                d_addr, s_addr, t_addr = _regions(rng, core.spec.ub_bytes, [256 * size, 256 * size, 64])
                if in_place:
                    s_addr = d_addr
                dst = core.local_tensor(dtype, 256, addr=d_addr)
                src = core.local_tensor(dtype, 256, addr=s_addr)
                tmp = core.local_tensor("uint8", 64, addr=t_addr)
                before = _state(core)
                offered = dtype in table.get(device, ())

                def call():
                    if form == "basic":
                        aj.Transpose(dst, src)
                    else:  # nSize / cSize are not read (传入数值无效)
                        aj.Transpose(dst, src, tmp, P(int(rng.integers(0, 9)), 3, 16, 16, TT.TRANSPOSE_ND2ND_B16))
                if not offered:
                    with pytest.raises((aj.UnsupportedDTypeError, aj.UnsupportedDeviceError)) as info:
                        call()
                    _check_refusal(info.value, core, before)
                    continue
                call()
                expected = before[0].copy()
                model_16x16(expected, size, d_addr, s_addr)
                after = _state(core)
                assert np.array_equal(after[0], expected), (device, dtype, form, case)
                assert after[1:] == before[1:]


def _format_case(rng, size):
    """(n, c, h, w) in the page's ranges with h * w * sizeof(T) a multiple of 32, small enough to model."""
    per = 32 // size                    # h * w must be a multiple of this
    hw = per * int(rng.integers(1, 4))
    h = int(rng.choice([d for d in range(1, hw + 1) if hw % d == 0]))
    return int(rng.integers(1, 4)), int(rng.choice([1, 2, 3, 5, 17])), h, hw // h


@pytest.mark.parametrize("device", DEVICES)
def test_transpose_format_conversions_match_the_page_model_byte_for_byte(device):
    rng = np.random.default_rng(1 + hash(device) % 2**32)
    for dtype in ALL_DTYPES:
        size = SIZE[dtype]
        offered = dtype in PAGE_FMT.get(device, ())
        for kind, to_nhwc in ((TT.TRANSPOSE_NCHW2NHWC, True), (TT.TRANSPOSE_NHWC2NCHW, False)):
            for case in range(2 if offered else 1):
                core = _random_core(device, rng)
                n, c, h, w = _format_case(rng, size)
                total = n * c * h * w
                need = page_tmp_bytes(device, size, c, to_nhwc)
                tmp_bytes = need + 32 * int(rng.integers(0, 3)) + (32 if need == 0 else 0)
                d_addr, s_addr, t_addr = _regions(rng, core.spec.ub_bytes, [total * size, total * size, tmp_bytes])
                dst = core.local_tensor(dtype, total, addr=d_addr)
                src = core.local_tensor(dtype, total, addr=s_addr)
                tmp = core.local_tensor("uint8", tmp_bytes, addr=t_addr)
                before = _state(core)
                if not offered:
                    with pytest.raises((aj.UnsupportedDTypeError, aj.UnsupportedDeviceError)) as info:
                        aj.Transpose(dst, src, tmp, P(n, c, h, w, kind))
                    _check_refusal(info.value, core, before)
                    continue
                aj.Transpose(dst, src, tmp, P(n, c, h, w, kind))
                expected = before[0].copy()
                model_format(expected, size, d_addr, s_addr, n, c, h, w, to_nhwc)
                after = _state(core)
                # the tmp bytes are the device's scratch (decisions.md "Transpose"): the emulator leaves them as
                # they were, so the whole UB compares
                assert np.array_equal(after[0], expected), (device, dtype, kind.name, n, c, h, w)
                assert after[1:] == before[1:]


@pytest.mark.parametrize("device", ["ascend950", "atlas-a2", "atlas-inference-aicore"])
def test_transpose_format_tmp_minimum_is_the_pages(device):
    """A tmp buffer one byte short of the page's minimum is refused (writing nothing); the minimum itself works."""
    for dtype in ("int8", "half", "float"):
        size = SIZE[dtype]
        for kind, to_nhwc in ((TT.TRANSPOSE_NCHW2NHWC, True), (TT.TRANSPOSE_NHWC2NCHW, False)):
            core = aj.Core(device)
            n, c, h, w = 2, 3, 1, 32 // size
            total = n * c * h * w
            need = page_tmp_bytes(device, size, c, to_nhwc)
            dst = core.local_tensor(dtype, total)
            src = core.local_tensor(dtype, total)
            data = np.arange(total) % 100
            src[:] = data
            tmp = core.local_tensor("uint8", max(need, 32))
            if need:
                before = _state(core)
                with pytest.raises(aj.ParameterError) as info:
                    aj.Transpose(dst, src, tmp[:need - 1], P(n, c, h, w, kind))
                _check_refusal(info.value, core, before)
            aj.Transpose(dst, src, tmp[:need] if need else tmp, P(n, c, h, w, kind))
            shape, axes = ((n, c, h, w), (0, 2, 3, 1)) if to_nhwc else ((n, h, w, c), (0, 3, 1, 2))
            assert (dst.numpy() == data.reshape(shape).transpose(axes).ravel()).all()


@pytest.mark.parametrize("device", DEVICES)
def test_transpose_size_zero_and_type_none_write_nothing(device):
    rng = np.random.default_rng(7)
    core = _random_core(device, rng)
    dtype = "uint16"
    dst, src = core.local_tensor(dtype, 256, addr=0), core.local_tensor(dtype, 256, addr=1024)
    tmp = core.local_tensor("uint8", 4096, addr=8192)
    before = _state(core)
    aj.Transpose(dst, src, tmp, P(0, 0, 0, 0, TT.TRANSPOSE_TYPE_NONE))
    if device in PAGE_FMT:
        for shape in ((0, 3, 4, 8), (2, 0, 4, 8), (2, 3, 0, 8), (2, 3, 4, 0)):
            aj.Transpose(dst, src, tmp, P(*shape, TT.TRANSPOSE_NCHW2NHWC))
            aj.Transpose(dst, src, tmp, P(*shape, TT.TRANSPOSE_NHWC2NCHW))
    after = _state(core)
    assert np.array_equal(after[0], before[0]) and after[1:] == before[1:]


def _check_refusal(err, core, before):
    """DESIGN 2: an AscendJitError subclass naming the API, the parameter, the value, the legal range and the
    device; a refused call writes nothing (UB, mask, CTRL)."""
    assert isinstance(err, aj.AscendJitError), type(err)
    text = str(err)
    assert err.api == "Transpose" and text.startswith("Transpose:"), text
    assert err.parameter, text
    assert err.legal, text
    assert err.device == core.device and f"on device {core.device}" in text, text
    after = _state(core)
    assert np.array_equal(after[0], before[0]), "a refused Transpose wrote the UB"
    assert after[1:] == before[1:], "a refused Transpose changed the mask or CTRL"


def _queue_tensor(core, dtype, n, free):
    pipe = core.tpipe or aj.TPipe()
    q = aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(q, 1, n * SIZE[dtype])
    t = q.AllocTensor(dtype)
    if free:
        q.FreeTensor(t)
    return t


def _hostile_cases(core):
    """(label, call) pairs that must each be refused on A2."""
    u = core.local_tensor("uint16", 512)
    us = core.local_tensor("uint16", 512)
    h = core.local_tensor("half", 256)
    f = core.local_tensor("float", 256)
    x = core.local_tensor("float", 96)
    y = core.local_tensor("float", 96)
    tmp = core.local_tensor("uint8", 4096)
    other = aj.Core(A2)
    other_u, other_tmp = other.local_tensor("uint16", 256), other.local_tensor("uint8", 4096)
    with core:
        freed_u = _queue_tensor(core, "uint16", 256, free=True)
        freed_tmp = _queue_tensor(core, "uint8", 4096, free=True)
    gm = aj.GlobalTensor(np.zeros(256, np.uint16))
    b16 = TT.TRANSPOSE_ND2ND_B16
    fmt = TT.TRANSPOSE_NCHW2NHWC
    cases = [
        ("basic float", lambda: aj.Transpose(f, f)),
        ("basic mixed dtypes", lambda: aj.Transpose(u, h)),
        ("basic dst too small", lambda: aj.Transpose(core.local_tensor("half", 255), h)),
        ("basic src too small", lambda: aj.Transpose(h, core.local_tensor("half", 100))),
        ("basic partial overlap", lambda: aj.Transpose(u[16], u)),
        ("basic misaligned dst", lambda: aj.Transpose(u[1], us)),
        ("basic misaligned src", lambda: aj.Transpose(u, us[8])),
        ("basic other core", lambda: aj.Transpose(u, other_u)),
        ("basic freed src", lambda: aj.Transpose(u, freed_u)),
        ("basic freed dst", lambda: aj.Transpose(freed_u, u)),
        ("basic GlobalTensor src", lambda: aj.Transpose(u, gm)),
        ("basic GlobalTensor dst", lambda: aj.Transpose(gm, u)),
        ("basic ndarray", lambda: aj.Transpose(u, np.zeros(256, np.uint16))),
        ("basic None src", lambda: aj.Transpose(u, None)),
        ("basic int src", lambda: aj.Transpose(u, 3)),
        ("enh half on A2", lambda: aj.Transpose(h, h, tmp, P(0, 0, 16, 16, b16))),
        ("enh tmp missing", lambda: aj.Transpose(u, us, None, P(0, 0, 16, 16, b16))),
        ("enh params missing", lambda: aj.Transpose(u, us, tmp, None)),
        ("enh params tuple", lambda: aj.Transpose(u, us, tmp, (0, 0, 16, 16, b16))),
        ("enh params dict", lambda: aj.Transpose(u, us, tmp, {"hSize": 16})),
        ("enh tmp half", lambda: aj.Transpose(u, us, h, P(0, 0, 16, 16, b16))),
        ("enh tmp ndarray", lambda: aj.Transpose(u, us, np.zeros(64, np.uint8), P(0, 0, 16, 16, b16))),
        ("enh tmp other core", lambda: aj.Transpose(u, us, other_tmp, P(0, 0, 16, 16, b16))),
        ("enh tmp freed", lambda: aj.Transpose(u, us, freed_tmp, P(0, 0, 16, 16, b16))),
        ("enh hSize 8", lambda: aj.Transpose(u, us, tmp, P(0, 0, 8, 16, b16))),
        ("enh wSize 32", lambda: aj.Transpose(u, us, tmp, P(0, 0, 16, 32, b16))),
        ("fmt same", lambda: aj.Transpose(x, x, tmp, P(1, 3, 4, 8, fmt))),
        ("fmt partial overlap", lambda: aj.Transpose(x[8], x, tmp, P(1, 2, 4, 8, fmt))),
        ("fmt tmp over src", lambda: aj.Transpose(y, x, core.local_tensor("uint8", 4096, addr=x.addr),
                                                  P(1, 3, 4, 8, fmt))),
        ("fmt tmp over dst", lambda: aj.Transpose(y, x, core.local_tensor("uint8", 4096, addr=y.addr),
                                                  P(1, 3, 4, 8, fmt))),
        ("fmt tmp too small", lambda: aj.Transpose(y, x, tmp[:2559], P(1, 3, 4, 8, fmt))),
        ("fmt tmp misaligned", lambda: aj.Transpose(y, x, tmp[1:], P(1, 3, 4, 8, fmt))),
        ("fmt cSize 4096", lambda: aj.Transpose(y, x, tmp, P(0, 4096, 4, 8, fmt))),
        ("fmt h*w 4096", lambda: aj.Transpose(y, x, tmp, P(0, 1, 64, 64, fmt))),
        ("fmt h*w*4 not 32", lambda: aj.Transpose(y, x, tmp, P(1, 3, 1, 4, fmt))),
        ("fmt dst too small", lambda: aj.Transpose(core.local_tensor("float", 95), x, tmp, P(1, 3, 4, 8, fmt))),
        ("fmt src too small", lambda: aj.Transpose(y, x, tmp, P(2, 3, 4, 8, fmt))),
        ("fmt misaligned dst", lambda: aj.Transpose(core.local_tensor("float", 96, addr=x.addr + 4096 + 4), x,
                                                    tmp, P(1, 3, 4, 8, fmt))),
    ]
    for t in range(1, 10):   # 当前不支持
        cases.append((f"type {t}", lambda t=t: aj.Transpose(u, us, tmp, P(0, 0, 16, 16, t))))
    for bad in (13, 255, -1, None, "TRANSPOSE_ND2ND_B16", 10.0, True, np.bool_(True), aj.RoundMode.CAST_RINT):
        cases.append((f"type {bad!r}", lambda bad=bad: aj.Transpose(u, us, tmp, P(0, 0, 16, 16, bad))))
    for field in range(4):
        for bad in (None, 16.0, True, np.bool_(False), "16", -1, 65536, 2**70, np.int64(-5), np.uint64(2**63),
                    1 + 0j, [16]):
            values = [1, 3, 4, 8]
            values[field] = bad
            cases.append((f"field {field} = {bad!r}", lambda v=tuple(values): aj.Transpose(y, x, tmp, P(*v, fmt))))
    return cases


def test_every_transpose_refusal_is_an_ascend_jit_error_that_writes_nothing():
    rng = np.random.default_rng(40)
    core = _random_core(A2, rng)
    core.SetVectorMask(0x1234, 0x5678)
    core.SetMaskCount()
    failures = []
    for label, call in _hostile_cases(core):
        before = _state(core)
        try:
            call()
        except aj.AscendJitError as err:
            try:
                _check_refusal(err, core, before)
            except AssertionError as bad:
                failures.append(f"{label}: {bad}")
            continue
        except Exception as err:
            failures.append(f"{label}: {type(err).__name__}: {err}")
            continue
        failures.append(f"{label}: accepted")
    assert failures == [], "\n".join(failures)


def test_transpose_accepts_numpy_integers_and_int_transpose_types():
    core = aj.Core(A2)
    u, us = core.local_tensor("uint16", 256), core.local_tensor("uint16", 256)
    us[:] = np.arange(256, dtype=np.uint16)
    tmp = core.local_tensor("uint8", 64)
    aj.Transpose(u, us, tmp, P(np.uint16(0), np.int8(0), np.int64(16), np.uint32(16), np.uint8(10)))
    assert (u.numpy().reshape(16, 16) == np.arange(256, dtype=np.uint16).reshape(16, 16).T).all()
    x, y = core.local_tensor("float", 96), core.local_tensor("float", 96)
    x[:] = np.arange(96, dtype=np.float32)
    big = core.local_tensor("uint8", 4096)
    aj.Transpose(y, x, big, P(np.int32(1), np.int16(3), np.uint8(4), np.int64(8), 11))
    assert (y.numpy() == np.arange(96, dtype=np.float32).reshape(1, 3, 4, 8).transpose(0, 2, 3, 1).ravel()).all()


@pytest.mark.parametrize("device", ["atlas-inference-vectorcore"])
def test_transpose_is_refused_on_the_vector_core(device):
    core = aj.Core(device)
    a, b = core.local_tensor("half", 256), core.local_tensor("half", 256)
    with pytest.raises(aj.UnsupportedDeviceError):
        aj.Transpose(a, b)


def test_transpose_devkit_example_scenario_one():
    """The page's example: a 16 x 16 half matrix 0..255 and its printed transpose."""
    core = aj.Core(A2)
    src, dst = core.local_tensor("half", 256), core.local_tensor("half", 256)
    src[:] = np.arange(256, dtype=np.float16)
    aj.Transpose(dst, src)
    out = dst.numpy().reshape(16, 16)
    assert out[0, :4].tolist() == [0, 16, 32, 48] and out[15, -1] == 255 and out[1, 0] == 1


def test_transpose_sanitizer_counts_the_tmp_scratch_written():
    """decisions.md "Transpose": the sanitizer counts the table's minimum of tmp written by the instruction, so a
    later read of it is not an uninitialised read; the src read is one."""
    core = aj.Core(A2, sanitize="report")
    with core:
        x, y = core.local_tensor("float", 96), core.local_tensor("float", 96)
        x[:] = np.zeros(96, np.float32)
        tmp = core.local_tensor("uint8", 2560)
        aj.Transpose(y, x, tmp, P(1, 3, 4, 8, TT.TRANSPOSE_NCHW2NHWC))
        aj.PipeBarrier(aj.PIPE_V)
        aj.Adds(tmp.ReinterpretCast("half"), tmp.ReinterpretCast("half"), 1.0, 1280)
    assert [r.check for r in core.sanitizer.reports] == []


# ================================================================================================================
# 4. Refusal texts
# ================================================================================================================
@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync,dcache", reason="copies a fresh tensor out: it checks "
                             "the refusal texts, not the bytes")
def test_the_gm_window_hint_is_on_gm_sides_only():
    core = aj.Core(A2)
    with core:
        g = aj.GlobalTensor("half")
        g.SetGlobalBuffer(np.zeros(256, np.float16), 100)
        t = core.local_tensor("half", 64)
        with pytest.raises(aj.OutOfBoundsError, match="window SetGlobalBuffer") as info:
            aj.DataCopy(g[80], t, 64)
        assert info.value.device == A2 and info.value.parameter == "dst"
        with pytest.raises(aj.OutOfBoundsError) as info:
            aj.DataCopy(t, g, 128)      # the UB side is the short one: no GM window text
        assert "window" not in str(info.value) and info.value.parameter == "dst"
        big = aj.GlobalTensor("half")
        big.SetGlobalBuffer(np.zeros(256, np.float16), 256)
        p = aj.DataCopyExtParams(1, 224, 0, 0, 0)
        aj.DataCopyPad(big, core.local_tensor("half", 112), p)   # a remembered call shape
        with pytest.raises(aj.OutOfBoundsError, match="window SetGlobalBuffer"):
            aj.DataCopyPad(g, core.local_tensor("half", 112), p)


def test_update_mask_pair_hint_in_compiled_and_plain_vfs():
    R = aj.Reg

    def vf(out, x):
        a = R.RegTensor("float")
        R.LoadAlign(a, x, 0)
        m = R.UpdateMask("float", 10)
        R.StoreAlign(out, a, m, 0)

    core = aj.Core("ascend950")
    with core:
        x, o = core.local_tensor("float", 64), core.local_tensor("float", 64)
        for run in (R.simd_vf(vf), vf):
            before = _whole(core).numpy()
            with pytest.raises(aj.ParameterError, match=r"not UpdateMask's \(mask, count left\) pair: unpack it"):
                run(o, x)
            assert np.array_equal(_whole(core).numpy(), before)


def test_not_offered_names_and_barrier():
    # the devkit's advanced selection and transpose (port59b met SelectWithBytesMask as a bare AttributeError)
    for name in ("TransDataTo5HD", "MrgSort", "Sort32", "Trunc", "Log", "Pad", "SelectWithBytesMask",
                 "ConfusionTranspose"):
        with pytest.raises(aj.NotOfferedError) as info:
            getattr(aj, name)
        assert isinstance(info.value, aj.AscendJitError) and isinstance(info.value, AttributeError)
        assert not hasattr(aj, name)
    for name in ("Transpose", "TransposeParamsExt", "TransposeType", "Barrier"):
        assert hasattr(aj, name) and name in aj.__all__
    for name in ("Squeeze", "ClearSpr", "SpecialPurposeReg", "PairReduce"):
        assert not hasattr(aj.Reg, name)
    # the devkit's data-register Interleave(dst0, dst1, src0, src1) has no dtype argument: the operands' refusal, not
    # a bare TypeError (port59c); MaskRegs without the dtype name it
    with aj.Core("ascend950"):
        regs = [aj.Reg.RegTensor("half") for _ in range(4)]
        masks = [aj.Reg.MaskReg((1, 2, 3, 4)) for _ in range(4)]
        for api in (aj.Reg.Interleave, aj.Reg.DeInterleave):
            with pytest.raises(aj.ParameterError, match="src0.*data registers is not offered"):
                api(*regs)
            with pytest.raises(aj.ParameterError, match="'dtype' = None.*element type T"):
                api(*masks)
            assert [m.words for m in masks] == [(1, 2, 3, 4)] * 4
    core = aj.Core(A2)
    with core:
        t = core.local_tensor("half", 16)
        t[:] = np.ones(16, np.float16)
        before = _state(core)
        assert aj.Barrier() is None
        after = _state(core)
    assert np.array_equal(after[0], before[0]) and after[1:] == before[1:]
