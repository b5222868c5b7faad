"""How aj.launch runs parallel blocks on the host (issue 21): parked block threads reused across launches (also
after a fork), and the GIL switch interval shortened only while a parallel launch runs."""
import importlib
import multiprocessing
import sys
import threading

import numpy as np
import pytest

import ascend_jit as aj
launch_module = importlib.import_module("ascend_jit.launch")  # aj.launch is the function
R = aj.Reg


def _block_thread_and_interval(seen):
    seen.append((aj.GetBlockIdx(), threading.get_ident(), sys.getswitchinterval()))
    aj.SyncAll()  # every block is live at once: a real barrier, whichever threads run them


def test_parked_block_threads_are_reused_and_every_block_has_its_own():
    first, second = [], []
    aj.launch(_block_thread_and_interval, 4, "a2", first)
    aj.launch(_block_thread_and_interval, 4, "a2", second)
    assert len({t for _, t, _ in first}) == 4 and len({t for _, t, _ in second}) == 4
    assert {t for _, t, _ in second} == {t for _, t, _ in first}  # the first launch's threads, parked, ran these
    assert threading.get_ident() not in {t for _, t, _ in first}
    more = []
    aj.launch(_block_thread_and_interval, 6, "a2", more)  # more blocks than parked threads: the missing ones start
    assert len({t for _, t, _ in more}) == 6 and sorted(b for b, _, _ in more) == list(range(6))


def _fail_in_block_one():
    if aj.GetBlockIdx() == 1:
        raise ValueError("boom")


def test_a_failing_block_gives_its_thread_back():
    with pytest.raises(ValueError, match="boom"):
        aj.launch(_fail_in_block_one, 3, "a2")
    seen = []
    aj.launch(_block_thread_and_interval, 3, "a2", seen)
    assert sorted(b for b, _, _ in seen) == [0, 1, 2]


def test_the_switch_interval_is_short_only_while_a_parallel_launch_runs():
    before = sys.getswitchinterval()
    seen = []
    aj.launch(_block_thread_and_interval, 2, "a2", seen)
    assert [s for _, _, s in seen] == [pytest.approx(min(before, launch_module.LAUNCH_SWITCH_INTERVAL))] * 2
    assert sys.getswitchinterval() == before
    serial = []
    aj.launch(lambda out: out.append(sys.getswitchinterval()), 2, "a2", serial, parallel=False)
    assert serial == [before, before]  # serial launches leave it alone
    with pytest.raises(ValueError):
        aj.launch(_fail_in_block_one, 2, "a2")
    assert sys.getswitchinterval() == before


def test_overlapping_launches_restore_the_interval_they_found():
    before = sys.getswitchinterval()
    gate, seen = threading.Barrier(3), []

    def kernel():
        if aj.GetBlockIdx() == 0:
            gate.wait(30)  # both launches are running here at once
            seen.append(sys.getswitchinterval())

    workers = [threading.Thread(target=aj.launch, args=(kernel, 2, "a2")) for _ in range(2)]
    for w in workers:
        w.start()
    gate.wait(30)
    for w in workers:
        w.join(30)
    assert seen == [pytest.approx(min(before, launch_module.LAUNCH_SWITCH_INTERVAL))] * 2
    assert sys.getswitchinterval() == before


def _launch_in_child(out):
    out.put(sys.getswitchinterval())  # the parent forked in the middle of a launch
    gm = np.zeros(4, np.int32)

    def kernel(gm):
        gm[aj.GetBlockIdx()] = aj.GetBlockIdx() + 1
        aj.SyncAll()
    aj.launch(kernel, 4, "a2", gm)
    out.put(gm.tolist())


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_a_forked_child_starts_its_own_block_threads():
    """Forked while the parent runs a launch: the child has none of its parked threads and Python's own interval."""
    before = sys.getswitchinterval()
    aj.launch(_block_thread_and_interval, 4, "a2", [])  # at least two threads stay parked while the parent forks
    context = multiprocessing.get_context("fork")
    out, forked, release = context.Queue(), threading.Event(), threading.Event()
    child = context.Process(target=_launch_in_child, args=(out,))

    def kernel():
        if aj.GetBlockIdx() == 0:
            child.start()
            forked.set()
            release.wait(60)
    parent = threading.Thread(target=aj.launch, args=(kernel, 2, "a2"))
    parent.start()
    try:
        assert forked.wait(60)
        assert out.get(timeout=60) == pytest.approx(before)
        assert out.get(timeout=60) == [1, 2, 3, 4]
    finally:
        release.set()
        parent.join(60)
    child.join(60)
    assert child.exitcode == 0 and sys.getswitchinterval() == before


def _move_mask_vf(out, dtype):
    R.StoreAlign(out, R.MoveMask(dtype), 0)


MOVE_MASK_VF = R.simd_vf(_move_mask_vf)


def _blocks_read_their_own_mask_register(wrong, rounds):
    """Each block sets its own vector mask register and reads it back through a compiled MoveMask VF, many times."""
    core = aj.current_core()
    block = aj.GetBlockIdx()
    core.SetVectorMask(0, 1 << block)
    out = core.local_tensor("uint8", 32)
    for _ in range(rounds):
        MOVE_MASK_VF(out, "half")
        if out.numpy()[0] != 3 << (2 * block):
            wrong.append(block)


def _max_plus_max_vf(out):
    a, d = R.RegTensor("half"), R.RegTensor("half")
    R.Duplicate(a, 65504.0)
    R.Add(d, a, a, R.CreateMask("half"))
    R.StoreAlign(out, d, R.CreateMask("half"))


MAX_PLUS_MAX_VF = R.simd_vf(_max_plus_max_vf)


def _blocks_make_registers_with_their_own_modes(wrong, rounds):
    """Even blocks saturate half overflow (MAX + MAX = 65504), odd ones give inf (SPEC-2 11.1: the registers a VF
    makes carry its core's modes)."""
    core = aj.current_core()
    saturating = aj.GetBlockIdx() % 2 == 0
    core.SetCtrlSpr(48, 48, 0 if saturating else 1)
    core.SetCtrlSpr(53, 53, 1 if saturating else 0)
    out = core.local_tensor("half", 128)
    for _ in range(rounds):
        MAX_PLUS_MAX_VF(out)
        if out.numpy()[0] != (65504.0 if saturating else np.inf):
            wrong.append(aj.GetBlockIdx())


@pytest.mark.parametrize("block", [_blocks_read_their_own_mask_register, _blocks_make_registers_with_their_own_modes])
def test_threaded_blocks_calling_vfs_never_see_another_blocks_state(block):
    """The state a compiled VF reads from the process (its core's mask register for MoveMask, the overflow modes of
    the registers it makes, the pending unaligned stores) is set and read as one step while a parallel launch runs
    (reg.py simd_vf, VF_STATE_LOCK): with the GIL handed over every microsecond, four blocks each read their own mask
    register and make registers with their own core's overflow modes every time (before: another block's, now and
    then)."""
    wrong = []
    saved = sys.getswitchinterval()
    try:
        launch_module.LAUNCH_SWITCH_INTERVAL, old = 1e-6, launch_module.LAUNCH_SWITCH_INTERVAL
        aj.launch(block, 4, "ascend950", wrong, 3000)
    finally:
        launch_module.LAUNCH_SWITCH_INTERVAL = old
        sys.setswitchinterval(saved)
    assert wrong == []


def _dirty_every_byte_and_return_a_tensor(keep):
    core = aj.current_core()
    seen = int(core.ub.max())  # what the block's fresh UB held: zeros, recycled or not
    core.ub[:] = 0xA5
    t = aj.LocalMemAllocator().Alloc("half", 16)
    return (seen, t) if keep else (seen, None)


def test_a_collected_core_gives_its_ub_back_zeroed_and_a_reachable_one_keeps_it():
    """Cores' UBs are recycled (core.UB_POOL: a 48-block launch no longer page-faults 48 fresh UBs), always zeroed
    again, and never while anything can still reach them: a kept LocalTensor, or a numpy view of the UB."""
    import gc
    pool = importlib.import_module("ascend_jit.core").UB_POOL
    results = aj.launch(_dirty_every_byte_and_return_a_tensor, 8, "a2", False)
    gc.collect()
    assert pool.held >= 8 * 196608 or pool.held == pool.MAX_BYTES // 196608 * 196608
    again = aj.launch(_dirty_every_byte_and_return_a_tensor, 8, "a2", True)
    assert [seen for seen, _ in results + again] == [0] * 16  # every UB handed out zeroed
    kept = [t for _, t in again]
    view = aj.Core("a2").ub  # a UB reachable only through a numpy array
    view[:] = 7
    gc.collect()
    for _ in range(3):
        aj.launch(_dirty_every_byte_and_return_a_tensor, 8, "a2", False)
        gc.collect()
    assert all(np.all(t.numpy().view(np.uint16) == 0xA5A5) for t in kept)  # the kept tensors' UBs untouched
    assert np.all(view == 7)
