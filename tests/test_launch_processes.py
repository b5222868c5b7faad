"""aj.launch(parallel="processes") (issue 21, ascend_jit/processes.py): blocks in a pool of forked worker processes
with GM in shared memory. Results bit-identical to a serial launch, arguments that alias or are private or
read-only, per-block return values and errors, a worker killed mid-launch, and the refusals (SyncAll, atomics,
sanitizer, kernels that cannot travel by name). The pool has one worker here whatever the machine (POOL_SIZE)."""
import importlib
import os
import signal
import time

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import atomic_sum, multi_block_reduce_sum, registry

processes = importlib.import_module("ascend_jit.processes")
launch_module = importlib.import_module("ascend_jit.launch")
GALLERY = registry()
PARENT = os.getpid()
# every test here launches blocks in worker processes, which refuse a sanitizer (processes.py): under
# --ascend-sanitize they run without one (the refusal itself is tested with an explicit sanitize=True)
pytestmark = pytest.mark.ascend_sanitize(checks="", reason="aj.launch(parallel=\"processes\") refuses the sanitizer")


@pytest.fixture(autouse=True)
def one_worker(monkeypatch):
    monkeypatch.setattr(processes, "POOL_SIZE", 1)
    yield
    aj.close_block_processes()


def _wait_for(flag, timeout=60.0, index=0):
    """Spin (sleeping) until flag[index] is set by a block in the other process, so that one process does not take
    every block before the other wakes (the queue hands blocks to whoever is free)."""
    end = time.monotonic() + timeout
    while not flag[index] and time.monotonic() < end:
        time.sleep(0.001)
    assert flag[index], "the other process took no block"


def _meet(flags):
    """Every block marks its process's side of flags (2 elements), then waits until the other process has a block."""
    mine = 0 if os.getpid() == PARENT else 1
    flags[mine] = 1
    _wait_for(flags, index=1 - mine)


def _where(flags):
    """Returns (GetBlockIdx, GetBlockNum, pid), once both processes run blocks."""
    _meet(flags)
    return aj.GetBlockIdx(), aj.GetBlockNum(), os.getpid()


def test_every_block_on_its_own_core_with_its_index_and_the_results_in_block_order():
    flag = aj.gm_zeros(2, np.int32)
    results = aj.launch(_where, 5, "a2", flag, parallel="processes")
    assert [(b, n) for b, n, _ in results] == [(b, 5) for b in range(5)]
    pids = {pid for _, _, pid in results}
    assert PARENT in pids and len(pids) == 2  # the launching process and its worker both ran blocks


def _process_launch(monkeypatch):
    real = aj.launch

    def forced(*args, **kwargs):
        kwargs["parallel"] = "processes"
        return real(*args, **kwargs)
    monkeypatch.setattr(aj, "launch", forced)


@pytest.mark.parametrize("name, size", [("add_custom", None), ("rmsnorm", 45 * 4096), ("layernorm", 13 * 1024),
                                        ("multi_block_reduce_sum", 1 << 17)])
def test_gallery_multi_block_kernels_bit_identical_to_serial(monkeypatch, name, size):
    k = GALLERY[name]
    device = k.devices[-1] if "atlas-a2" not in k.devices else "atlas-a2"
    inputs = k.make_inputs(size or k.default_size, 3)
    monkeypatch.setattr(aj, "launch", lambda *a, real=aj.launch, **kw: real(*a, **dict(kw, parallel=False)))
    serial = k.run(device, inputs)
    _process_launch(monkeypatch)
    in_processes = k.run(device, inputs)
    assert serial.keys() == in_processes.keys()
    for key in serial:
        a, b = np.asarray(serial[key]), np.asarray(in_processes[key])
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), key


def test_multi_block_sum_on_shared_gm_with_parallel_none_picks_processes_when_it_pays(monkeypatch):
    x = aj.gm_array(multi_block_reduce_sum.make_inputs(8 * 4 * 48896, 2)["x"])
    chosen = []
    real = launch_module.launch
    monkeypatch.setattr(aj, "launch", lambda *a, **kw: chosen.append(kw.get("parallel")) or real(*a, **kw))
    monkeypatch.setattr(multi_block_reduce_sum, "host_cores", lambda: 2)
    got = multi_block_reduce_sum.run("atlas-a2", {"x": x})
    want = multi_block_reduce_sum.expected("atlas-a2", {"x": x})
    assert chosen[0] == "processes" and got["total"].tobytes() == want["total"].tobytes()
    monkeypatch.setattr(multi_block_reduce_sum, "host_cores", lambda: 1)
    chosen.clear()
    multi_block_reduce_sum.run("atlas-a2", {"x": x})
    assert chosen[0] is False  # one core: nothing to overlap with


def _write_through_views(whole, first_half, second_half, flag):
    """Each block writes its index through one of two views of one buffer, and reads through the other."""
    b = aj.GetBlockIdx()
    (first_half if b < 2 else second_half)[b % 2] = 10 + b
    _meet(flag)
    return int(whole.sum())


@pytest.mark.parametrize("shared", [False, True])
def test_views_of_one_buffer_keep_aliasing_and_private_buffers_come_back(shared):
    base = np.zeros(4, np.int64)
    if shared:
        base = aj.gm_array(base)
    flag = aj.gm_zeros(2, np.int32)
    aj.launch(_write_through_views, 4, "a2", base, base[:2], base[2:], flag, parallel="processes")
    assert base.tolist() == [10, 11, 12, 13]


def _write_block_index(gm, flag):
    if os.getpid() != PARENT:
        flag[0] = 1
    elif aj.GetBlockIdx() == 0:
        _wait_for(flag)
    gm[aj.GetBlockIdx()] = aj.GetBlockIdx() + 1


def test_read_only_arrays_stay_read_only_and_unchanged():
    gm = np.zeros(3, np.int32)
    gm.flags.writeable = False
    flag = aj.gm_zeros(1, np.int32)
    with pytest.raises(ValueError, match="read-only") as info:
        aj.launch(_write_block_index, 3, "a2", gm, flag, parallel="processes")
    assert "raised in block" in "".join(getattr(info.value, "__notes__", []))
    assert gm.tolist() == [0, 0, 0]


def _fail_on_worker(flag, kind):
    if os.getpid() == PARENT:
        if aj.GetBlockIdx() == 0:
            _wait_for(flag)
        return
    flag[0] = 1
    if kind == "value":
        raise ValueError("boom on the worker")
    if kind == "state":
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)  # left pending: SPEC-2 D62
        return

    class Local(Exception):  # cannot be pickled back: its class is not importable
        pass
    raise Local("local")


def test_an_error_on_a_worker_comes_back_naming_its_block():
    flag = aj.gm_zeros(1, np.int32)
    with pytest.raises(ValueError, match="boom on the worker") as info:
        aj.launch(_fail_on_worker, 2, "a2", flag, "value", parallel="processes")
    notes = "".join(info.value.__notes__)  # the block the worker took (the queue hands out whichever is next)
    assert f"raised in block {info.value.block_idx} of 2 of aj.launch" in notes
    assert "traceback in the worker process" in notes and "_fail_on_worker" in notes
    flag[0] = 0
    with pytest.raises(aj.StateError, match=r"^block [01] of 2: launch: parameter 'pending flags'") as info:
        aj.launch(_fail_on_worker, 2, "a2", flag, "state", parallel="processes")
    assert str(info.value).startswith(f"block {info.value.block_idx} of 2") and info.value.api == "launch"
    flag[0] = 0
    with pytest.raises(aj.AscendJitError, match="cannot be pickled back(.|\n)*Local: local"):
        aj.launch(_fail_on_worker, 2, "a2", flag, "local", parallel="processes")


def _die_on_worker(flag, gm):
    if os.getpid() != PARENT:
        flag[0] = 1
        os.kill(os.getpid(), signal.SIGKILL)
    if aj.GetBlockIdx() == 0:
        _wait_for(flag)
    gm[aj.GetBlockIdx()] = 1


def test_a_killed_worker_is_an_error_naming_the_blocks_lost_and_the_next_launch_works():
    flag, gm = aj.gm_zeros(1, np.int32), aj.gm_zeros(4, np.int32)
    with pytest.raises(aj.AscendJitError, match=r"blocks lost' = \[\d\] of 4 did not finish: worker process \d+ "
                                                r"killed by signal 9") as info:
        aj.launch(_die_on_worker, 4, "a2", flag, gm, parallel="processes")
    lost = info.value.value
    assert len(lost) == 1 and gm.tolist() == [0 if b in lost else 1 for b in range(4)]
    results = aj.launch(_where, 3, "a2", aj.gm_zeros(2, np.int32), parallel="processes")  # a new pool
    assert [b for b, _, _ in results] == [0, 1, 2] and len({pid for _, _, pid in results}) == 2


def _sync_all(gm):
    gm[aj.GetBlockIdx()] = 1
    aj.SyncAll()


def test_sync_all_and_atomics_are_refused_naming_processes():
    gm = aj.gm_zeros(2, np.int32)
    with pytest.raises(aj.StateError, match="SyncAll: parameter 'parallel' = 'processes'.*parallel=True") as info:
        aj.launch(_sync_all, 2, "a2", gm, parallel="processes")
    assert "(legal: parallel=True)" in str(info.value)  # not "or False": a serial launch refuses SyncAll as well
    inputs = atomic_sum.make_inputs(8 * 256, 1)
    with pytest.raises(aj.StateError, match=r"DataCopy \(atomic\): parameter 'parallel' = 'processes'"):
        aj.launch(atomic_sum.atomic_sum_kernel, 8, "atlas-a2", inputs["x"], np.zeros(atomic_sum.OUT, np.float32),
                  256, parallel="processes")


def test_refusals_before_anything_runs():
    gm = aj.gm_zeros(2, np.int32)
    with pytest.raises(aj.ParameterError, match="parallel.*processes.*sanitizer"):
        aj.launch(_write_block_index, 2, "a2", gm, gm, parallel="processes", sanitize=True)
    with pytest.raises(aj.ParameterError, match="kernel.*module-level function"):
        aj.launch(lambda: None, 2, "a2", parallel="processes")
    with pytest.raises(aj.ParameterError, match="args.*picklable"):
        aj.launch(_write_block_index, 2, "a2", gm, (x for x in ()), parallel="processes")
    # audit17h (SPEC-2 1.8): a LocalTensor pickled, then raised AttributeError unpickling in every process
    with pytest.raises(aj.ParameterError, match="args.*LocalTensor"):
        aj.launch(_write_block_index, 2, "a2", gm, aj.Core("a2").local_tensor("int32", 8), parallel="processes")
    with pytest.raises(aj.ParameterError, match="parallel"):
        aj.launch(_write_block_index, 2, "a2", gm, gm, parallel="threads")
    assert gm.tolist() == [0, 0]


def _new_kernel(flag):
    return _where(flag)


def test_a_kernel_the_workers_resolve_to_other_code_runs_right_and_the_pool_forks_anew():
    flag = aj.gm_zeros(2, np.int32)
    aj.launch(_where, 2, "a2", flag, parallel="processes")  # the pool forks
    pool = processes._pool
    global _new_kernel
    original = _new_kernel
    _new_kernel = lambda flag: (aj.GetBlockIdx(), os.getpid())  # noqa: E731 -- a redefinition after the fork
    _new_kernel.__qualname__, _new_kernel.__name__ = "_new_kernel", "_new_kernel"
    try:
        results = aj.launch(_new_kernel, 3, "a2", flag, parallel="processes")
        assert results == [(b, PARENT) for b in range(3)]  # the worker knew other code: the parent ran them all
        aj.launch(_where, 2, "a2", aj.gm_zeros(2, np.int32), parallel="processes")
        assert processes._pool is not pool  # forked anew
    finally:
        _new_kernel = original


def test_shared_gm_helpers_and_segment_release():
    x = aj.gm_array(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert aj.is_shared_gm(x) and aj.is_shared_gm(x[1]) and not aj.is_shared_gm(np.zeros(3))
    assert x.dtype == np.float32 and x.tolist() == [[0, 1, 2], [3, 4, 5]]
    z = aj.gm_zeros((2, 2), np.int16)
    assert z.tolist() == [[0, 0], [0, 0]] and aj.gm_empty(5, np.uint8).shape == (5,)
    before = len(processes._segments)
    del x, z
    assert len(processes._segments) <= before - 2  # the memfd segments are closed with their last array


def _set_index(gm):
    gm[aj.GetBlockIdx()] = aj.GetBlockIdx() + 1


def _nested(gm):
    aj.launch(_set_index, 2, "a2", gm[2 * aj.GetBlockIdx():], parallel="processes")


def test_a_fork_of_the_launching_process_has_its_own_pool_and_nested_launches_run():
    gm = aj.gm_zeros(4, np.int32)
    aj.launch(_where, 2, "a2", aj.gm_zeros(2, np.int32), parallel="processes")
    pid = os.fork()
    if pid == 0:  # the child must not use the parent's workers
        code = 1
        try:
            code = 0 if processes._pool is None else 2
        finally:
            os._exit(code)
    assert os.waitpid(pid, 0)[1] == 0
    aj.launch(_nested, 2, "a2", gm, parallel="processes")  # inside a block: that launch runs serially
    assert gm.tolist() == [1, 2, 1, 2]


def test_blocks_go_in_runs_when_the_queue_is_small():
    gm = aj.gm_zeros(50, np.int32)
    aj.launch(_set_index, 2, "a2", gm, parallel="processes")
    processes._pool.capacity = 64  # 16 indices: the 50 blocks go as runs of 4
    aj.launch(_set_index, 50, "a2", gm, parallel="processes")
    assert gm.tolist() == list(range(1, 51))


def test_the_multi_block_sum_chooses_threads_when_sanitizing_and_serial_on_one_core(monkeypatch):
    n = 8 * 4 * 48896  # four tiles per block: long enough to run at once
    monkeypatch.setattr(multi_block_reduce_sum, "host_cores", lambda: 2)
    assert multi_block_reduce_sum.choose_parallel(n) == "processes"
    assert multi_block_reduce_sum.choose_parallel(n // 4) is False  # one tile per block: serial
    with aj.sanitize_session("report"):
        assert multi_block_reduce_sum.choose_parallel(n) is True  # processes refuse the sanitizer
    monkeypatch.setattr(multi_block_reduce_sum, "host_cores", lambda: 1)
    assert multi_block_reduce_sum.choose_parallel(n) is False


def test_without_workers_the_blocks_run_here_with_the_same_refusals(monkeypatch):
    monkeypatch.setattr(processes, "POOL_SIZE", 0)
    gm = np.zeros(3, np.int32)
    assert aj.launch(_where_alone, 3, "a2", gm, parallel="processes") == [(b, PARENT) for b in range(3)]
    assert gm.tolist() == [1, 2, 3] and processes._pool is None
    with pytest.raises(aj.StateError, match="SyncAll: parameter 'parallel' = 'processes'"):
        aj.launch(_sync_all, 2, "a2", aj.gm_zeros(2, np.int32), parallel="processes")


def _where_alone(gm):
    _set_index(gm)
    return aj.GetBlockIdx(), os.getpid()
