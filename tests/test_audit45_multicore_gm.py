"""Audit 45 (m45): the multi-core / global-memory surface a ported kernel uses, written from README.md,
docs/SPEC-2.md (9.1 DataCopyPad, D29, D30, D35, D56, 12.5) and docs/decisions.md ("Indexing", "Slices",
"Scaffolding", "Synchronisation and kernel boilerplate", "InitGlobalMemory", "GetUserWorkspace") alone.

Every data-movement check compares the WHOLE UB and the WHOLE GM buffer with an independent numpy model (bytes
that must not be written included); every refusal must be an aj.AscendJitError naming API, parameter, legal range
and device, with the UB and GM byte-identical afterwards."""
import numpy as np
import pytest

import ascend_jit as aj

RNG = np.random.default_rng(45)
A2_UB = 196608          # README device table
A950_UB = 253952


@pytest.fixture(autouse=True, scope="module")
def _close_process_pool():
    """Process launches fork a pool of workers: shut it down with the module."""
    yield
    aj.close_block_processes()


def _rand_bytes(n, seed=0):
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


_PROCESSES = pytest.mark.ascend_sanitize(checks="", reason="aj.launch(parallel=\"processes\") refuses the sanitizer")


def _dirty_core(device="atlas-a2", seed=1):
    """A core whose whole UB holds random bytes, so that a byte written by mistake shows."""
    core = aj.Core(device)
    core.ub[:] = _rand_bytes(core.ub.size, seed)
    return core


def _gm(nbytes, dtype=np.float16, seed=2):
    return _rand_bytes(nbytes, seed).view(dtype).copy()


def _assert_refusal(err, api, device):
    """README: a refusal names the API, the parameter, its value, the legal range and the device."""
    assert isinstance(err, aj.AscendJitError)
    text = str(err)
    assert api in text, text
    assert err.parameter is not None, text
    assert err.legal is not None, text
    assert err.device is not None and err.device in text, text
    assert aj.get_device(device).name == err.device, text


def _refused(exc, api, device, fn, *state):
    """fn() raises exc (an AscendJitError subclass) naming api and device, with every array in state unchanged."""
    before = [s.copy() for s in state]
    with pytest.raises(exc) as info:
        fn()
    _assert_refusal(info.value, api, device)
    for b, s in zip(before, state):
        assert np.array_equal(b.view(np.uint8), s.view(np.uint8)), f"{api}: state changed by a refused call"
    return info.value


# ---------------------------------------------------------------------------------------------------------------
# launch: GetBlockIdx / GetBlockNum, UB isolation, GM shared, determinism across launch modes (README)
# ---------------------------------------------------------------------------------------------------------------

def _ids_kernel(out):
    """Each block writes (idx, num) into its own 32-byte slot of GM (no two blocks share a DataBlock)."""
    core = aj.core.current_core()
    t = core.local_tensor("int32", 8)
    t[:] = np.full(8, aj.GetBlockIdx() * 1000 + aj.GetBlockNum(), np.int32)
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(out[8 * aj.GetBlockIdx():], 8)
    aj.DataCopy(g, t, 8)


@pytest.mark.parametrize("parallel", [True, False, pytest.param("processes", marks=_PROCESSES)])
def test_block_idx_and_num_in_every_launch_mode(parallel):
    n = 5
    out = aj.gm_zeros(8 * n, np.int32) if parallel == "processes" else np.zeros(8 * n, np.int32)
    aj.launch(_ids_kernel, n, "atlas-a2", out, parallel=parallel)
    expect = np.repeat(np.arange(n, dtype=np.int32) * 1000 + n, 8)
    assert np.array_equal(out, expect)
    if parallel == "processes":
        aj.close_block_processes()


def _isolation_kernel(out):
    """Every block fills the same UB address with its own index, meets the others at SyncAll, then reads back: a
    shared UB would show another block's value (README: one AI Core per block)."""
    core = aj.core.current_core()
    t = core.local_tensor("int32", 8, addr=0)
    t[:] = np.full(8, aj.GetBlockIdx() + 1, np.int32)
    aj.SyncAll()
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(out[8 * aj.GetBlockIdx():], 8)
    aj.DataCopy(g, t, 8)


def test_per_block_ub_is_isolated_and_gm_is_shared():
    n = 4
    out = np.zeros(8 * n, np.int32)
    aj.launch(_isolation_kernel, n, "atlas-a2", out)
    assert np.array_equal(out, np.repeat(np.arange(1, n + 1, dtype=np.int32), 8))


def _adjacent_pad_kernel(gm):
    """Block b writes 10 halves (20 bytes, not a DataBlock) at element 10*b: neighbours share DataBlocks of GM."""
    core = aj.core.current_core()
    t = core.local_tensor("half", 16)
    t[:] = np.full(16, aj.GetBlockIdx() + 1, np.float16)
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(gm[10 * aj.GetBlockIdx():], 10)
    aj.DataCopyPad(g, t, aj.DataCopyExtParams(1, 20, 0, 0, 0))


@pytest.mark.parametrize("parallel", [True, False])
def test_two_blocks_writing_adjacent_unaligned_gm_bytes_both_survive(parallel):
    n = 4
    gm = np.full(10 * n + 6, -7, np.float16)
    aj.launch(_adjacent_pad_kernel, n, "atlas-a2", gm, parallel=parallel)
    expect = np.full(10 * n + 6, -7, np.float16)
    for b in range(n):
        expect[10 * b:10 * b + 10] = b + 1
    assert np.array_equal(gm.view(np.uint16), expect.view(np.uint16))


def _atomic_half_kernel(gm, vals):
    core = aj.core.current_core()
    t = core.local_tensor("half", 16)
    t[:] = vals[aj.GetBlockIdx()]
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(gm, 16)
    aj.SetAtomicAdd("half")
    aj.DataCopy(g, t, 16)
    aj.SetAtomicNone()


def _fold_half(start, rows):
    """SPEC-2 D35 / decisions "Atomics": each commit is one RNE rounding of the exact sum to half."""
    acc = start.astype(np.float16)
    for r in rows:
        acc = (acc.astype(np.float64) + r.astype(np.float64)).astype(np.float16)
    return acc


def test_atomic_add_across_blocks_commits_in_block_order_and_in_the_seeded_shuffle():
    n = 6
    vals = (RNG.standard_normal((n, 16)) * np.array([1, 2048, 1e-3, 300, 7, 0.5])[:, None]).astype(np.float16)
    start = np.full(16, 1000, np.float16)
    results = {}
    for parallel in (True, False):
        gm = start.copy()
        aj.launch(_atomic_half_kernel, n, "atlas-a2", gm, vals, parallel=parallel)
        results[parallel] = gm
        assert np.array_equal(gm.view(np.uint16), _fold_half(start, vals).view(np.uint16))
    for seed in (3, 11):
        perm = np.random.default_rng(seed).permutation(n)
        for parallel in (True, False):
            gm = start.copy()
            aj.launch(_atomic_half_kernel, n, "atlas-a2", gm, vals, parallel=parallel, atomic_order="shuffle",
                      seed=seed)
            assert np.array_equal(gm.view(np.uint16), _fold_half(start, vals[perm]).view(np.uint16)), (seed, parallel)


def _syncall_kernel(gm):
    """Block 0 writes GM, every block meets at SyncAll, then each block b reads block 0's data and writes it back
    at its own slot plus b."""
    core = aj.core.current_core()
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(gm)
    t = core.local_tensor("int32", 8)
    if aj.GetBlockIdx() == 0:
        t[:] = np.arange(8, dtype=np.int32) * 10
        aj.DataCopy(g, t, 8)
    aj.SyncAll()
    aj.DataCopy(t, g, 8)
    aj.PipeBarrier(aj.PIPE_ALL)
    u = core.local_tensor("int32", 8)
    aj.Adds(u, t, aj.GetBlockIdx(), 8)
    aj.PipeBarrier(aj.PIPE_ALL)
    aj.DataCopy(g[8 * (aj.GetBlockIdx() + 1)], u, 8)


def test_syncall_publishes_gm_to_every_block():
    n = 4
    gm = np.zeros(8 * (n + 1), np.int32)
    aj.launch(_syncall_kernel, n, "atlas-a2", gm)
    expect = np.concatenate([np.arange(8) * 10] + [np.arange(8) * 10 + b for b in range(n)]).astype(np.int32)
    assert np.array_equal(gm, expect)


@_PROCESSES
def test_syncall_refused_in_a_serial_launch_and_in_processes():
    gm = np.zeros(8 * 3, np.int32)
    with pytest.raises(aj.StateError):
        aj.launch(_syncall_kernel, 2, "atlas-a2", gm, parallel=False)
    sgm = aj.gm_zeros(8 * 3, np.int32)
    with pytest.raises(aj.StateError):
        aj.launch(_syncall_kernel, 2, "atlas-a2", sgm, parallel="processes")
    aj.close_block_processes()


def test_hard_syncall_not_on_310p():
    core = aj.Core("atlas-inference-aicore")
    with core:
        _refused(aj.UnsupportedDeviceError, "SyncAll", "atlas-inference-aicore", lambda: aj.SyncAll(), core.ub)


def test_launch_block_dim_refusals():
    for bad in (0, -1, 65536, 2.0, True):
        with pytest.raises(aj.ParameterError) as info:
            aj.launch(_ids_kernel, bad, "atlas-a2", np.zeros(8, np.int32))
        _assert_refusal(info.value, "launch", "atlas-a2")


# ---------------------------------------------------------------------------------------------------------------
# GlobalTensor: SetGlobalBuffer, g[i], g[a:b], GetValue / SetValue, bounds (decisions "Indexing", "Slices")
# ---------------------------------------------------------------------------------------------------------------

def test_global_tensor_subtensors_and_slices_of_an_odd_length_buffer():
    x = np.arange(41, dtype=np.float16)
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(x[2:], 37)                     # an odd window 2 elements into the host array
    assert g.GetSize() == 37
    assert g[5].GetSize() == 32 and g[5].GetValue(0) == 7
    assert g[36].GetSize() == 1 and g[36].GetValue(0) == 38
    s = g[3:10]
    assert s.GetSize() == 7 and [s.GetValue(i) for i in range(7)] == list(range(5, 12))
    assert g[37:].GetSize() == 0 and g[:].GetSize() == 37 and g[4:4].GetSize() == 0
    assert np.array_equal(g[30:].numpy(), x[32:39])      # never past the window, although the array goes on


def test_global_tensor_index_and_slice_refusals():
    x = np.arange(40, dtype=np.float16)
    keep = x.copy()
    core = aj.Core("atlas-a2")
    with core:
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x, 37)
        for bad in (37, -1, 100):
            with pytest.raises(aj.OutOfBoundsError):
                g[bad]
        for sl in (slice(0, 38), slice(-4, None), slice(10, 5), slice(38, None)):
            with pytest.raises(aj.OutOfBoundsError) as info:
                g[sl]
            assert info.value.parameter in ("start", "stop")
            assert info.value.device == "atlas-a2"
        for sl in (slice(0, 10, 2), slice(1.0, 3)):
            with pytest.raises(aj.ParameterError):
                g[sl]
        with pytest.raises(aj.AscendJitError):
            g[3] = 1.0                                      # t[i] is a tensor: SetValue is the element write
        for bad in (37, -1):
            with pytest.raises(aj.OutOfBoundsError):
                g.GetValue(bad)
            with pytest.raises(aj.OutOfBoundsError):
                g.SetValue(bad, 1.0)
        with pytest.raises(aj.OutOfBoundsError):
            g[30:].SetValue(7, 1.0)
    assert np.array_equal(x.view(np.uint16), keep.view(np.uint16))


def test_global_setvalue_rounds_a_python_float_once_and_refuses_readonly_gm():
    x = np.zeros(16, np.float16)
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(x)
    v = 1 + 2 ** -11 + 2 ** -40                  # SPEC-2 D29: one RNE rounding to half -> 1 + 2^-10
    g.SetValue(3, v)
    assert x.view(np.uint16)[3] == 0x3C01
    g[4].SetValue(0, np.float16(-0.0))          # a numpy scalar of the dtype: bit for bit
    assert x.view(np.uint16)[4] == 0x8000
    assert g(3) == g.GetValue(3) == np.float16(1 + 2 ** -10)
    with pytest.raises(aj.ParameterError):
        g.SetValue(5, True)
    ro = np.zeros(16, np.int16)
    gi = aj.GlobalTensor()
    gi.SetGlobalBuffer(ro)
    with pytest.raises(aj.ParameterError):
        gi.SetValue(0, 40000)                   # D29: no implicit wrap
    ro.flags.writeable = False
    with pytest.raises(aj.ParameterError):
        gi.SetValue(0, 1)
    assert not ro.any()


def test_setglobalbuffer_size_past_the_array_refused():
    x = np.zeros(10, np.float16)
    g = aj.GlobalTensor()
    with pytest.raises(aj.AscendJitError):
        g.SetGlobalBuffer(x, 11)


# ---------------------------------------------------------------------------------------------------------------
# DataCopy GM <-> UB <-> UB (decisions "Scaffolding": blockLen and gaps in DataBlocks, count * sizeof % 32 == 0)
# ---------------------------------------------------------------------------------------------------------------

def _copy_runs_model(dst_bytes, dst_off, src_bytes, src_off, block_count, block_len, src_gap, dst_gap, unit):
    """Block k: block_len units from src_off + k*(block_len+src_gap)*unit to dst_off + k*(block_len+dst_gap)*unit."""
    for k in range(block_count):
        s = src_off + k * (block_len + src_gap) * unit
        d = dst_off + k * (block_len + dst_gap) * unit
        dst_bytes[d:d + block_len * unit] = src_bytes[s:s + block_len * unit]


@pytest.mark.ascend_sanitize(checks="init,memory,blocks,sync,dcache", reason="copies GM -> UB -> GM back to back "
                             "with no MTE2_MTE3 flag between them: it checks the copies' bytes, not their order")
@pytest.mark.parametrize("gm_start", [0, 1, 3, 17])
def test_datacopy_count_form_gm_to_ub_and_back_unaligned_gm_start(gm_start):
    core = _dirty_core()
    x = _gm(2 * 200, seed=gm_start)
    y = _gm(2 * 200, seed=gm_start + 50)
    ub0 = core.ub.copy()
    with core:
        t = core.local_tensor("half", 64)
        gx, gy = aj.GlobalTensor(), aj.GlobalTensor()
        gx.SetGlobalBuffer(x)
        gy.SetGlobalBuffer(y)
        aj.DataCopy(t, gx[gm_start], 48)
        model = ub0.copy()
        model[t.addr:t.addr + 96] = x.view(np.uint8)[2 * gm_start:2 * gm_start + 96]
        assert np.array_equal(core.ub, model)
        y0 = y.copy()
        aj.DataCopy(gy[gm_start + 5], t, 32)
        y0.view(np.uint8)[2 * (gm_start + 5):2 * (gm_start + 5) + 64] = model[t.addr:t.addr + 64]
        assert np.array_equal(y.view(np.uint8), y0.view(np.uint8))
        assert np.array_equal(core.ub, model)


@pytest.mark.ascend_sanitize(checks="init,memory,blocks,sync,dcache", reason="copies GM -> UB -> GM back to back "
                             "with no MTE2_MTE3 flag between them: it checks the copies' bytes, not their order")
@pytest.mark.parametrize("bc, bl, sg, dg", [(3, 2, 1, 0), (2, 1, 0, 3), (4, 1, 2, 2), (1, 5, 7, 9), (3, 1, 0, 0)])
def test_datacopy_params_gm_to_ub_to_gm_against_the_whole_buffer_model(bc, bl, sg, dg):
    core = _dirty_core(seed=bc * 10 + bl)
    x = _gm(32 * 40, np.float32, seed=bc)
    z = _gm(32 * 40, np.float32, seed=bc + 9)
    with core:
        t = core.local_tensor("float", 8 * 40)
        gx, gz = aj.GlobalTensor(), aj.GlobalTensor()
        gx.SetGlobalBuffer(x[1:])                       # GM starts 4 bytes in: GM addresses are free
        gz.SetGlobalBuffer(z[3:])
        ub = core.ub.copy()
        _copy_runs_model(ub, t.addr, x.view(np.uint8), 4, bc, bl, sg, dg, 32)
        aj.DataCopy(t, gx, aj.DataCopyParams(bc, bl, sg, dg))
        assert np.array_equal(core.ub, ub)
        zm = z.view(np.uint8).copy()
        _copy_runs_model(zm, 12, core.ub, t.addr, bc, bl, dg, sg, 32)   # UB -> GM: src gap dg, dst gap sg
        aj.DataCopy(gz, t, (bc, bl, dg, sg))                            # the C++ brace list
        assert np.array_equal(z.view(np.uint8), zm)
        assert np.array_equal(core.ub, ub)


def test_datacopy_ub_to_ub_with_params():
    core = _dirty_core(seed=7)
    with core:
        a = core.local_tensor("int16", 16 * 12)
        b = core.local_tensor("int16", 16 * 12)
        ub = core.ub.copy()
        _copy_runs_model(ub, b.addr, ub.copy(), a.addr, 3, 2, 1, 2, 32)
        aj.DataCopy(b, a, aj.DataCopyParams(3, 2, 1, 2))
        assert np.array_equal(core.ub, ub)


def test_datacopy_srcgap_dstgap_are_the_stride_fields():
    p = aj.DataCopyParams(2, 3, 4, 5)
    assert p.srcGap == 4 and p.dstGap == 5
    p.srcGap = 6
    assert p.srcStride == 6


def test_datacopy_count_zero_copies_nothing_and_different_dtype_same_size_moves_bytes():
    core = _dirty_core(seed=8)
    x = _gm(64, np.float16, seed=8)
    with core:
        t = core.local_tensor("int16", 32)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x)
        ub = core.ub.copy()
        aj.DataCopy(t, g, 0)
        assert np.array_equal(core.ub, ub)
        aj.DataCopy(t, g, 32)
        ub[t.addr:t.addr + 64] = x.view(np.uint8)
        assert np.array_equal(core.ub, ub)


def test_datacopy_refusals_leave_ub_and_gm_unchanged():
    core = _dirty_core(seed=9)
    x = _gm(32 * 20, np.float16, seed=9)
    with core:
        t = core.local_tensor("half", 16 * 8)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x)
        odd = core.local_tensor("half", 16, addr=t.addr + 2)
        cases = [
            (aj.AlignmentError, lambda: aj.DataCopy(t, g, 15)),                          # 30 bytes
            (aj.AlignmentError, lambda: aj.DataCopy(odd, g, 16)),                        # UB not 32-B aligned
            (aj.OutOfBoundsError, lambda: aj.DataCopy(t, g[16 * 19 + 1], 16)),           # past the GM window
            (aj.OutOfBoundsError, lambda: aj.DataCopy(t, g, 16 * 9)),                    # past the UB tensor
            (aj.ParameterError, lambda: aj.DataCopy(t, g, aj.DataCopyParams(1, 0, 0, 0))),   # blockLen 0
            (aj.ParameterError, lambda: aj.DataCopy(t, g, aj.DataCopyParams(0, 1, 0, 0))),   # blockCount 0
            (aj.ParameterError, lambda: aj.DataCopy(t, g, aj.DataCopyParams(4096, 1, 0, 0))),
            (aj.ParameterError, lambda: aj.DataCopy(t, g, aj.DataCopyParams(1, 65536, 0, 0))),
            (aj.ParameterError, lambda: aj.DataCopy(t, g, aj.DataCopyParams(1, 1, -1, 0))),
            (aj.ParameterError, lambda: aj.DataCopy(t, g, (1, 1, 0))),                   # brace list of 3
            (aj.OutOfBoundsError, lambda: aj.DataCopy(t, g, aj.DataCopyParams(2, 4, 0, 1))),  # dst gap past t
            (aj.ParameterError, lambda: aj.DataCopy(t, g, 16.0)),
            (aj.ParameterError, lambda: aj.DataCopy(g, g, 16)),                          # GM -> GM
        ]
        for exc, fn in cases:
            _refused(exc, "DataCopy", "atlas-a2", fn, core.ub, x)
        x.flags.writeable = False
        _refused(aj.ParameterError, "DataCopy", "atlas-a2", lambda: aj.DataCopy(g, t, 16), core.ub, x)


# ---------------------------------------------------------------------------------------------------------------
# DataCopyPad (SPEC-2 9.1, D56, 12.5)
# ---------------------------------------------------------------------------------------------------------------

def _pad_gm_to_ub_model(ub, dst, gm_bytes, src, s, bc, bl, sstride, dstride, left, right, fill_bits):
    """SPEC-2 9.1 Normal mode: block k reads bl bytes at src + k*(bl + sstride) and occupies P bytes at
    dst + k*(P + 32*dstride): left pads, the data, right pads, dummy up to P. fill_bits: the element written to the
    pads and dummy (None: dummy repeats the block's first element, D56)."""
    P = -(-(left * s + bl + right * s) // 32) * 32
    for k in range(bc):
        d = dst + k * (P + 32 * dstride)
        g = src + k * (bl + sstride)
        data = gm_bytes[g:g + bl]
        block = np.empty(P, np.uint8)
        elem = data[:s] if fill_bits is None else np.frombuffer(fill_bits, np.uint8)
        block[:] = np.tile(elem, P // s)
        block[left * s:left * s + bl] = data
        ub[d:d + P] = block
    return P


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
@pytest.mark.parametrize("bc, bl, sstride, dstride, left, right", [
    (3, 20, 6, 1, 2, 3),        # 10-half rows, not a multiple of 32 B, GM gaps of 3 halves, a UB gap block
    (1, 62, 0, 0, 1, 0),
    (4, 2, 0, 0, 0, 15),        # one half per row, P = 32
    (2, 64, 2, 0, 16, 16),      # the largest pads: 32 B each
])
def test_datacopypad_gm_to_ub_ispad_whole_ub_model(device, bc, bl, sstride, dstride, left, right):
    core = _dirty_core(device, seed=bc + bl)
    x = _gm(600, np.float16, seed=bl)
    with core:
        t = core.local_tensor("half", 1024)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x[3:])                        # GM at an odd element
        ub = core.ub.copy()
        pad = np.float16(-2.5)
        _pad_gm_to_ub_model(ub, t.addr, x.view(np.uint8), 6, 2, bc, bl, sstride, dstride, left, right,
                            pad.tobytes())
        aj.DataCopyPad(t, g, aj.DataCopyExtParams(bc, bl, sstride, dstride, 0),
                       aj.DataCopyPadExtParams(True, left, right, -2.5))
        assert np.array_equal(core.ub, ub)


def test_datacopypad_no_pads_dummy_repeats_the_first_element():
    core = _dirty_core(seed=12)
    x = _gm(400, np.int32, seed=12)
    with core:
        t = core.local_tensor("int32", 64)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x[5:])
        ub = core.ub.copy()
        _pad_gm_to_ub_model(ub, t.addr, x.view(np.uint8), 20, 4, 3, 12, 8, 0, 0, 0, None)
        aj.DataCopyPad(t, g, aj.DataCopyExtParams(3, 12, 8, 0, 0), aj.DataCopyPadExtParams(False, 0, 0, 0))
        assert np.array_equal(core.ub, ub)


def test_datacopypad_golden_d1_setpadvalue_and_its_dtype_rule():
    core = _dirty_core(seed=13)
    x = np.arange(1, 41, dtype=np.float16)
    with core:
        t = core.local_tensor("half", 32)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x)
        aj.SetPadValue(1.0, "half")
        ub = core.ub.copy()
        aj.DataCopyPad(t, g, aj.DataCopyExtParams(1, 40, 0, 0, 0), aj.DataCopyPadExtParams(False, 0, 12, 0))
        ub[t.addr:t.addr + 64] = np.concatenate([x[:20], np.full(12, 1.0, np.float16)]).view(np.uint8)
        assert np.array_equal(core.ub, ub)                 # SPEC-2 12.5 D-1
        small = core.local_tensor("half", 20)
        _refused(aj.OutOfBoundsError, "DataCopyPad", "atlas-a2",
                 lambda: aj.DataCopyPad(small, g, aj.DataCopyExtParams(1, 40, 0, 0, 0),
                                        aj.DataCopyPadExtParams(False, 0, 12, 0)), core.ub, x)
        f = core.local_tensor("float", 16)
        gf = aj.GlobalTensor()
        gf.SetGlobalBuffer(np.zeros(16, np.float32))
        with pytest.raises(aj.StateError):                 # SetPadValue of another dtype, isPad false
            aj.DataCopyPad(f, gf, aj.DataCopyExtParams(1, 8, 0, 0, 0), aj.DataCopyPadExtParams(False, 0, 0, 0))


def test_datacopypad_golden_d2_float_rows():
    core = _dirty_core(seed=14)
    x = RNG.standard_normal(32 * 59).astype(np.float32)
    with core:
        t = core.local_tensor("float", 32 * 64)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x)
        ub = core.ub.copy()
        aj.DataCopyPad(t, g, aj.DataCopyExtParams(32, 236, 0, 0, 0), aj.DataCopyPadExtParams(True, 0, 5, 0))
        rows = np.zeros((32, 64), np.float32)
        rows[:, :59] = x.reshape(32, 59)
        ub[t.addr:t.addr + 32 * 256] = rows.reshape(-1).view(np.uint8)
        assert np.array_equal(core.ub, ub)


def test_datacopypad_compact_golden_d3_on_950_only():
    core = _dirty_core("ascend950", seed=15)
    x = _gm(2 * 80, np.float16, seed=15)
    with core:
        t = core.local_tensor("half", 128)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x)
        ub = core.ub.copy()
        aj.DataCopyPad(t, g, aj.DataCopyExtParams(3, 48, 0, 0, 0), aj.DataCopyPadExtParams(True, 0, 8, 0),
                       mode=aj.PaddingMode.Compact)
        ub[t.addr:t.addr + 144] = x.view(np.uint8)[:144]
        ub[t.addr + 144:t.addr + 160] = 0
        assert np.array_equal(core.ub, ub)
    a2 = _dirty_core(seed=16)
    with a2:
        t = a2.local_tensor("half", 128)
        _refused(aj.UnsupportedDeviceError, "DataCopyPad", "atlas-a2",
                 lambda: aj.DataCopyPad(t, g, aj.DataCopyExtParams(3, 48, 0, 0, 0),
                                        aj.DataCopyPadExtParams(True, 0, 8, 0), mode=aj.PaddingMode.Compact),
                 a2.ub, x)


@pytest.mark.parametrize("bc, bl, sstride, dstride", [(3, 20, 1, 6), (1, 2, 0, 0), (2, 70, 0, 2), (5, 34, 2, 0)])
def test_datacopypad_ub_to_gm_writes_exactly_the_blocks(bc, bl, sstride, dstride):
    core = _dirty_core(seed=bc * 7 + bl)
    z = _gm(800, np.float16, seed=bl + 3)
    with core:
        t = core.local_tensor("half", 1024)
        core.ub_written_by_host(t.addr, 2048)   # _dirty_core's random bytes, which the copy-out reads
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(z[7:])
        ub = core.ub.copy()
        zm = z.view(np.uint8).copy()
        step = -(-bl // 32) * 32 + 32 * sstride
        for k in range(bc):
            d = 14 + k * (bl + dstride)
            zm[d:d + bl] = ub[t.addr + k * step:t.addr + k * step + bl]
        aj.DataCopyPad(g, t, aj.DataCopyExtParams(bc, bl, sstride, dstride, 0))
        assert np.array_equal(z.view(np.uint8), zm)
        assert np.array_equal(core.ub, ub)


def test_datacopypad_zero_blocks_are_nops_both_directions():
    core = _dirty_core(seed=17)
    x = _gm(128, np.float16, seed=17)
    with core:
        t = core.local_tensor("half", 64)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x)
        for bc, bl in ((0, 20), (3, 0)):
            aj.DataCopyPad(t, g, aj.DataCopyExtParams(bc, bl, 0, 0, 0), aj.DataCopyPadExtParams(True, 1, 1, 0))
            aj.DataCopyPad(g, t, aj.DataCopyExtParams(bc, bl, 0, 0, 0))
        core2 = _dirty_core(seed=17)
        x2 = _gm(128, np.float16, seed=17)
        assert np.array_equal(core.ub, core2.ub) and np.array_equal(x.view(np.uint8), x2.view(np.uint8))


def test_datacopypad_older_structs_copy_as_the_ext_ones():
    a, b = _dirty_core(seed=18), _dirty_core(seed=18)
    x = _gm(256, np.float16, seed=18)
    for core, call in ((a, "ext"), (b, "old")):
        with core:
            t = core.local_tensor("half", 64)
            g = aj.GlobalTensor()
            g.SetGlobalBuffer(x[1:])
            if call == "ext":
                aj.DataCopyPad(t, g, aj.DataCopyExtParams(2, 22, 4, 0, 0), aj.DataCopyPadExtParams(True, 1, 2, 3.0))
            else:
                aj.DataCopyPad(t, g, aj.DataCopyParams(2, 22, 4, 0), aj.DataCopyPadParams(True, 1, 2, 0x4200))
    assert np.array_equal(a.ub, b.ub)                      # 0x4200 is half 3.0's bit pattern


def test_datacopypad_refusals():
    core = _dirty_core(seed=19)
    x = _gm(256, np.float16, seed=19)
    with core:
        t = core.local_tensor("half", 64)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x)
        pp = aj.DataCopyPadExtParams(True, 0, 0, 0)
        odd = core.local_tensor("half", 32, addr=t.addr + 2)
        cases = [
            (aj.ParameterError, lambda: aj.DataCopyPad(t, g, aj.DataCopyExtParams(1, 21, 0, 0, 0), pp)),  # odd B
            (aj.ParameterError, lambda: aj.DataCopyPad(t, g, aj.DataCopyExtParams(4096, 2, 0, 0, 0), pp)),
            (aj.ParameterError, lambda: aj.DataCopyPad(t, g, aj.DataCopyExtParams(1, 2, 0, 0, 0),
                                                       aj.DataCopyPadExtParams(True, 17, 0, 0))),
            (aj.ParameterError, lambda: aj.DataCopyPad(t, g, aj.DataCopyExtParams(1, 2, 0, 0, 0),
                                                       aj.DataCopyPadExtParams(True, 0, 17, 0))),
            (aj.AlignmentError, lambda: aj.DataCopyPad(odd, g, aj.DataCopyExtParams(1, 2, 0, 0, 0), pp)),
            (aj.OutOfBoundsError, lambda: aj.DataCopyPad(t, g[120], aj.DataCopyExtParams(1, 32, 0, 0, 0), pp)),
            (aj.OutOfBoundsError, lambda: aj.DataCopyPad(g[100], t, aj.DataCopyExtParams(1, 64, 0, 0, 0))),
            (aj.OutOfBoundsError, lambda: aj.DataCopyPad(t, g, aj.DataCopyExtParams(5, 20, 0, 0, 0), pp)),
            (aj.ParameterError, lambda: aj.DataCopyPad(t, g, aj.DataCopyParams(1, 2, 0, 0), pp)),     # mixed gens
        ]
        for exc, fn in cases:
            _refused(exc, "DataCopyPad", "atlas-a2", fn, core.ub, x)
    p310 = _dirty_core("atlas-inference-aicore", seed=20)
    with p310:
        t = p310.local_tensor("half", 64)
        _refused(aj.UnsupportedDeviceError, "DataCopyPad", "atlas-inference-aicore",
                 lambda: aj.DataCopyPad(t, g, aj.DataCopyExtParams(1, 2, 0, 0, 0), pp), p310.ub, x)
    b = aj.Core("atlas-200i-500-a2")
    with b:
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.SetPadValue(1.0, "half")


# ---------------------------------------------------------------------------------------------------------------
# Atomics (decisions "Atomics"; SPEC-2 D35)
# ---------------------------------------------------------------------------------------------------------------

def _f32_to_bf16_bits(a):
    """RNE float32 -> bfloat16 bits (finite inputs)."""
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def _atomic_copy(core, dtype, gm, ub_vals, kind="Add", pad=False):
    with core:
        t = core.local_tensor(dtype, ub_vals.size)
        t[:] = ub_vals
        g = aj.GlobalTensor(dtype)
        g.SetGlobalBuffer(gm)
        getattr(aj, "SetAtomic" + kind)(dtype)
        if pad:
            aj.DataCopyPad(g, t, aj.DataCopyExtParams(1, ub_vals.nbytes, 0, 0, 0))
        else:
            aj.DataCopy(g, t, ub_vals.size)
        aj.SetAtomicNone()


def test_atomic_add_half_is_one_rounding_of_the_exact_sum():
    a = np.array([1.0, 1024, 2048, 65504, -65504, 0.1, 3.0, 1.0] * 2, np.float16)
    b = np.array([2 ** -11 + 2 ** -21, 0.5 + 2 ** -11, 1.0, 32, -32, 0.2, -3.0, 2 ** -24] * 2, np.float16)
    for pad in (False, True):
        gm = a.copy()
        _atomic_copy(aj.Core("atlas-a2"), "half", gm, b, pad=pad)
        with np.errstate(over="ignore"):     # 65504 + 32 rounds to inf (INF/NaN mode)
            expect = (a.astype(np.float64) + b.astype(np.float64)).astype(np.float16)
        assert np.array_equal(gm.view(np.uint16), expect.view(np.uint16))
        assert np.isinf(gm[3]) and gm[6] == 0 and not np.signbit(gm[6])


def test_atomic_add_half_saturates_on_a_saturating_device():
    a = np.full(16, 65504, np.float16)
    b = np.full(16, 65504, np.float16)
    _atomic_copy(aj.Core("atlas-inference-aicore"), "half", a, b)
    assert np.array_equal(a, np.full(16, 65504, np.float16))


def test_atomic_add_bfloat16_rounds_once():
    import ml_dtypes
    av = np.array([1.0, 1.0, 3.0, 256.0, -1.5, 100.0, 0.0078125, 7.0] * 2, np.float32)
    bv = np.array([2 ** -8, 3 * 2 ** -9, 2 ** -7, 1.0, 0.25, 0.375, 1.0, -7.0] * 2, np.float32)
    a = av.astype(ml_dtypes.bfloat16)
    b = bv.astype(ml_dtypes.bfloat16)
    gm = a.copy()
    _atomic_copy(aj.Core("atlas-a2"), "bfloat16", gm, b)
    exact = a.astype(np.float32) + b.astype(np.float32)            # exact in float32 for these values
    assert np.array_equal(gm.view(np.uint16), _f32_to_bf16_bits(exact))


def test_atomic_add_int8_wraps_and_int32_adds():
    gm = np.array([127, -128, 5, 0] * 8, np.int8)
    _atomic_copy(aj.Core("atlas-a2"), "int8", gm, np.array([1, -1, -10, 0] * 8, np.int8))
    assert list(gm[:4]) == [-128, 127, -5, 0]
    g32 = np.arange(8, dtype=np.int32)
    _atomic_copy(aj.Core("ascend950"), "int32", g32, np.full(8, 100, np.int32))
    assert list(g32) == list(range(100, 108))


def test_atomic_max_min_nan_and_signed_zero_ties():
    nan = np.float16(np.nan)
    gm = np.array([1, 5, nan, 2, 0.0, -0.0, -3, 7] * 2, np.float16)
    ub = np.array([3, 4, 1, nan, -0.0, 0.0, -3, 7] * 2, np.float16)
    g = gm.copy()
    _atomic_copy(aj.Core("atlas-a2"), "half", g, ub, kind="Max")
    bits = g.view(np.uint16)
    assert list(g[[0, 1, 6, 7]]) == [3, 5, -3, 7]
    assert np.isnan(g[2]) and np.isnan(g[3])
    assert bits[4] == 0x0000 and bits[5] == 0x8000            # ties keep the GM value
    g = gm.copy()
    _atomic_copy(aj.Core("atlas-a2"), "half", g, ub, kind="Min")
    assert list(g[[0, 1, 6, 7]]) == [1, 4, -3, 7]
    assert g.view(np.uint16)[4] == 0x0000 and g.view(np.uint16)[5] == 0x8000


@pytest.mark.parametrize("device, kind, dtype", [
    ("atlas-training", "Add", "half"), ("atlas-inference-aicore", "Add", "int32"),
    ("atlas-inference-aicore", "Add", "bfloat16"), ("atlas-200i-500-a2", "Add", "int8"),
    ("atlas-inference-aicore", "Max", "half"), ("atlas-200i-500-a2", "Min", "float"),
    ("atlas-a2", "Add", "uint8"), ("atlas-a2", "Max", "int64"),
])
def test_atomic_dtype_and_device_refusals(device, kind, dtype):
    core = aj.Core(device)
    with core:
        with pytest.raises(aj.AscendJitError) as info:
            getattr(aj, "SetAtomic" + kind)(dtype)
        err = info.value
        assert isinstance(err, (aj.UnsupportedDTypeError, aj.UnsupportedDeviceError)), err
        assert err.device == aj.get_device(device).name and err.legal is not None
        # nothing was set: a following plain copy overwrites GM
        gm = np.full(16, 3, np.float32)
        t = core.local_tensor("float", 8)
        t[:] = np.ones(8, np.float32)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(gm)
        aj.DataCopy(g, t, 8)
        assert list(gm[:8]) == [1] * 8 and list(gm[8:]) == [3] * 8


@pytest.mark.parametrize("device, dtype", [("atlas-training", "float"), ("atlas-inference-aicore", "int16"),
                                           ("atlas-200i-500-a2", "int32"), ("ascend950", "bfloat16")])
def test_atomic_add_offered_per_device(device, dtype):
    core = aj.Core(device)
    npt = {"float": np.float32, "int16": np.int16, "int32": np.int32}.get(dtype)
    if npt is None:
        import ml_dtypes
        npt = ml_dtypes.bfloat16
    n = 32 // np.dtype(npt).itemsize
    gm = np.full(n, 2, npt)
    _atomic_copy(core, dtype, gm, np.full(n, 3, npt))
    assert np.array_equal(gm.astype(np.float64), np.full(n, 5.0))


def test_atomic_copy_with_tensors_of_another_dtype_refused_unchanged():
    core = _dirty_core(seed=21)
    gm = np.zeros(16, np.float32)
    with core:
        t = core.local_tensor("float", 16)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(gm)
        aj.SetAtomicAdd("half")
        _refused(aj.ParameterError, "DataCopy", "atlas-a2", lambda: aj.DataCopy(g, t, 16), core.ub, gm)
        aj.SetAtomicNone()


@_PROCESSES
def test_atomic_refused_in_process_launches():
    gm = aj.gm_zeros(16, np.float16)
    vals = np.ones((2, 16), np.float16)
    with pytest.raises(aj.StateError):
        aj.launch(_atomic_half_kernel, 2, "atlas-a2", gm, vals, parallel="processes")
    aj.close_block_processes()


# ---------------------------------------------------------------------------------------------------------------
# InitGlobalMemory, GetUserWorkspace, SetSysWorkspace
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("device", ["atlas-a2", "atlas-inference-aicore"])
def test_init_global_memory_fills_exactly_size_elements(device):
    core = aj.Core(device)
    gm = np.full(77, 9, np.float32)
    with core:
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, 1024)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(gm[3:], 70)
        aj.InitGlobalMemory(g, 37, np.float32(-1.5))
        aj.PipeBarrier(aj.PIPE_ALL)
    expect = np.full(77, 9, np.float32)
    expect[3:40] = -1.5
    assert np.array_equal(gm, expect)


def test_init_global_memory_refusals():
    gm = np.zeros(64, np.float32)
    core = aj.Core("atlas-a2")
    with core:
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(gm, 32)
        with pytest.raises(aj.StateError):                      # no TPipe on the core
            aj.InitGlobalMemory(g, 8, np.float32(1))
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, 256)
        _refused(aj.ParameterError, "InitGlobalMemory", "atlas-a2",
                 lambda: aj.InitGlobalMemory(g, 33, np.float32(1)), gm)
    core910 = aj.Core("atlas-training")
    with core910:
        pipe = aj.TPipe()
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(gm)
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.InitGlobalMemory(g, 8, np.float32(1))
    assert not gm.any()


@pytest.mark.parametrize("device, reserve", [("atlas-a2", 16 << 20), ("ascend950", 16 << 20),
                                             ("atlas-inference-aicore", 2 << 20), ("atlas-training", 2 << 20)])
def test_user_workspace_starts_after_the_system_reserve(device, reserve):
    assert aj.GetLibApiWorkSpaceSize(device) == reserve
    ws = np.zeros(reserve + 96, np.uint8)
    core = aj.Core(device)
    with core:
        user = aj.GetUserWorkspace(ws)
        assert user.size == 96 and np.shares_memory(user, ws)
        user[:] = 7
        assert ws[:reserve].sum() == 0 and (ws[reserve:] == 7).all()
        small = np.zeros(reserve - 1, np.uint8)
        _refused(aj.OutOfBoundsError, "GetUserWorkspace", device, lambda: aj.GetUserWorkspace(small), small)
        assert aj.GetUserWorkspace(np.zeros(reserve, np.uint8)).size == 0


def test_user_workspace_refusals():
    with pytest.raises(aj.StateError):
        aj.GetUserWorkspace(np.zeros(16 << 20, np.uint8))         # no current core
    with aj.Core("atlas-200i-500-a2"):
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.GetUserWorkspace(np.zeros(16 << 20, np.uint8))
    with aj.Core("atlas-a2"):
        with pytest.raises(aj.ParameterError):
            aj.GetUserWorkspace(None)


def _workspace_kernel(ws, out):
    """Block b writes b+1 into its 8 ints of the user workspace; after SyncAll block 0 sums them into out."""
    core = aj.core.current_core()
    user = aj.GetUserWorkspace(ws).view(np.int32)
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(user)
    t = core.local_tensor("int32", 8)
    t[:] = np.full(8, aj.GetBlockIdx() + 1, np.int32)
    aj.DataCopy(g[8 * aj.GetBlockIdx()], t, 8)
    aj.SyncAll()
    if aj.GetBlockIdx() == 0:
        total = sum(int(g.GetValue(8 * b)) for b in range(aj.GetBlockNum()))
        out[0] = total


def test_user_workspace_shared_across_blocks():
    n = 3
    ws = np.zeros((16 << 20) + 32 * n, np.uint8)
    out = np.zeros(1, np.int64)
    aj.launch(_workspace_kernel, n, "atlas-a2", ws, out)
    assert out[0] == 1 + 2 + 3


# ---------------------------------------------------------------------------------------------------------------
# TPipe / TQue / TBuf: InitBuffer sizes, queues, double buffering, UB capacity per device
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("device, ub", [("atlas-a2", A2_UB), ("ascend950", A950_UB),
                                        ("atlas-inference-aicore", 262144), ("atlas-200i-500-a2", 253952)])
def test_ub_capacity_per_device_and_over_allocation_refused(device, ub):
    assert aj.get_device(device).ub_bytes == ub
    core = _dirty_core(device, seed=22)
    with core:
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 2)
        b = aj.TBuf(aj.TPosition.VECCALC)
        before = core.ub.copy()
        with pytest.raises(aj.AscendJitError) as info:
            pipe.InitBuffer(q, 2, ub // 2 + 32)
        assert info.value.device == aj.get_device(device).name
        assert np.array_equal(core.ub, before)
        pipe.InitBuffer(q, 2, ub // 4)
        with pytest.raises(aj.AscendJitError):
            pipe.InitBuffer(b, ub // 2 + 1)
        assert np.array_equal(core.ub, before)
        pipe.InitBuffer(b, ub // 2)                          # exactly the rest of the UB
        t = b.Get("half")
        assert t.GetSize() == ub // 4


def test_initbuffer_rounds_up_to_datablocks_and_queues_alternate():
    core = aj.Core("atlas-a2")
    with core:
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 2)
        pipe.InitBuffer(q, 2, 38 * 4)                     # 152 B -> 160 B
        a = q.AllocTensor("float")
        assert a.GetSize() == 40
        b = q.AllocTensor("float")
        assert b.addr - a.addr == 160
        with pytest.raises(aj.StateError):
            q.AllocTensor("float")                         # both buffers in use
        q.EnQue(a)
        with pytest.raises(aj.StateError):
            q.FreeTensor(a)                                # enqueued, not dequeued
        a2 = q.DeQue("float")
        assert a2.addr == a.addr
        q.FreeTensor(a2)
        q.FreeTensor(b)
        c = q.AllocTensor("float")
        d_addr = c.addr
        q.FreeTensor(c)
        e = q.AllocTensor("float")
        assert {d_addr, e.addr} == {a.addr, b.addr} and d_addr != e.addr   # the cursor alternates
        with pytest.raises(aj.StateError):
            q.DeQue("float")                               # empty queue
        with pytest.raises(aj.StateError):
            a.GetValue(0)                                  # a freed handle stays dead


def _double_buffer_kernel(x, y, total, tile):
    """The add_custom shape with a last block whose tail tile is short: DataCopyPad in and out."""
    pipe = aj.TPipe()
    qi = aj.TQue(aj.TPosition.VECIN, 2)
    qo = aj.TQue(aj.TPosition.VECOUT, 2)
    pipe.InitBuffer(qi, 2, tile * 2)
    pipe.InitBuffer(qo, 2, tile * 2)
    per = -(-total // aj.GetBlockNum())
    start = per * aj.GetBlockIdx()
    length = max(0, min(per, total - start))
    gx, gy = aj.GlobalTensor(), aj.GlobalTensor()
    gx.SetGlobalBuffer(x[min(start, total):], length)
    gy.SetGlobalBuffer(y[min(start, total):], length)
    for off in range(0, length, tile):
        n = min(tile, length - off)
        t = qi.AllocTensor("half")
        aj.DataCopyPad(t, gx[off], aj.DataCopyExtParams(1, 2 * n, 0, 0, 0), aj.DataCopyPadExtParams(False, 0, 0, 0))
        qi.EnQue(t)
        t = qi.DeQue("half")
        o = qo.AllocTensor("half")
        aj.Muls(o, t, 2.0, -(-n // 16) * 16)
        qo.EnQue(o)
        qi.FreeTensor(t)
        o = qo.DeQue("half")
        aj.DataCopyPad(gy[off], o, aj.DataCopyExtParams(1, 2 * n, 0, 0, 0))
        qo.FreeTensor(o)


@pytest.mark.parametrize("parallel", [True, False, pytest.param("processes", marks=_PROCESSES)])
def test_multi_block_tail_kernel_writes_exactly_the_output(parallel):
    total = 301                                   # odd: the last block's last tile is 5 halves
    x = RNG.standard_normal(total + 7).astype(np.float16)
    y = np.full(total + 7, 99, np.float16)
    aj.launch(_double_buffer_kernel, 4, "atlas-a2", x, y, total, 32, parallel=parallel)
    expect = np.full(total + 7, 99, np.float16)
    expect[:total] = (x[:total].astype(np.float32) * 2).astype(np.float16)
    assert np.array_equal(y.view(np.uint16), expect.view(np.uint16))


# ---------------------------------------------------------------------------------------------------------------
# More edges a port meets: 950 strides, Compact filler, exact-fit windows, UB -> UB overlap, epochs of atomics
# ---------------------------------------------------------------------------------------------------------------

def test_datacopypad_950_negative_src_stride_rereads_gm_and_its_limit():
    core = _dirty_core("ascend950", seed=23)
    x = np.arange(200, dtype=np.float16)
    with core:
        t = core.local_tensor("half", 64)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x[50:])
        ub = core.ub.copy()
        # SPEC-2 9.1: the 950's GM->UB srcStride may be as low as -blockLen; block k reads at k*(8 - 4) bytes
        _pad_gm_to_ub_model(ub, t.addr, x[50:].view(np.uint8).copy(), 0, 2, 3, 8, -4, 0, 0, 0, None)
        aj.DataCopyPad(t, g, aj.DataCopyExtParams(3, 8, -4, 0, 0), aj.DataCopyPadExtParams(False, 0, 0, 0))
        assert np.array_equal(core.ub, ub)
        for bad, exc in (((3, 8, -9, 0, 0), aj.ParameterError), ((1, 8, 0, 65536, 0), aj.ParameterError)):
            _refused(exc, "DataCopyPad", "ascend950",
                     lambda: aj.DataCopyPad(t, g, aj.DataCopyExtParams(*bad), aj.DataCopyPadExtParams(False, 0, 0, 0)),
                     core.ub, x)
        _refused(aj.ParameterError, "DataCopyPad", "ascend950",
                 lambda: aj.DataCopyPad(g, t, aj.DataCopyExtParams(1, 8, 65536, 0, 0)), core.ub, x)
    a2 = _dirty_core(seed=24)
    with a2:
        t = a2.local_tensor("half", 64)
        for bad in ((3, 8, -4, 0, 0), (1, 8, 2 ** 32, 0, 0), (1, 2097152, 0, 0, 0)):
            _refused(aj.ParameterError, "DataCopyPad", "atlas-a2",
                     lambda: aj.DataCopyPad(t, g, aj.DataCopyExtParams(*bad), aj.DataCopyPadExtParams(False, 0, 0, 0)),
                     a2.ub, x)


def test_datacopypad_950_compact_filler_repeats_the_last_blocks_first_element():
    core = _dirty_core("ascend950", seed=25)
    x = np.arange(1, 100, dtype=np.float16)
    with core:
        t = core.local_tensor("half", 64)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x)
        ub = core.ub.copy()
        aj.DataCopyPad(t, g, aj.DataCopyExtParams(3, 6, 2, 0, 0), aj.DataCopyPadExtParams(False, 0, 0, 0),
                       mode=aj.PaddingMode.Compact)
        # blocks read at bytes 0, 8, 16 -> [1,2,3] [5,6,7] [9,10,11], packed; 7 filler halves of 9 (decisions.md
        # "DataCopyPad fill order": the filler's first element is the last block's)
        expect = np.array([1, 2, 3, 5, 6, 7, 9, 10, 11] + [9] * 7, np.float16)
        ub[t.addr:t.addr + 32] = expect.view(np.uint8)
        assert np.array_equal(core.ub, ub)


def test_datacopypad_950_compact_ub_to_gm_reads_the_ub_blocks_back_to_back():
    core = _dirty_core("ascend950", seed=26)
    y = _gm(128, np.float16, seed=26)
    with core:
        t = core.local_tensor("half", 64)
        core.ub_written_by_host(t.addr, 128)   # _dirty_core's random bytes, which the copy-out reads
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(y[1:])
        ub = core.ub.copy()
        ym = y.view(np.uint8).copy()
        for k in range(3):              # D56: UB block k at src + k*blockLen, srcStride ignored; GM as Normal
            d = 2 + k * (6 + 4)
            ym[d:d + 6] = ub[t.addr + 6 * k:t.addr + 6 * k + 6]
        aj.DataCopyPad(g, t, aj.DataCopyExtParams(3, 6, 5, 4, 0), mode=aj.PaddingMode.Compact)
        assert np.array_equal(y.view(np.uint8), ym)
        assert np.array_equal(core.ub, ub)


@pytest.mark.ascend_sanitize(checks="init,memory,blocks,sync,dcache", reason="copies GM -> UB -> GM back to back "
                             "with no MTE2_MTE3 flag between them: it checks the copies' bytes, not their order")
def test_exact_fit_windows_are_accepted_and_one_byte_less_refused():
    core = _dirty_core(seed=27)
    x = np.arange(112, dtype=np.float16)
    with core:
        base = core.local_tensor("half", 256).addr
        core.ub_written_by_host(base, 512)   # _dirty_core's random bytes, which the copies out read
        g21 = aj.GlobalTensor()
        g21.SetGlobalBuffer(x[:21])                        # 3 blocks of 10 B, 6 B GM gaps: far byte 42
        t80 = core.local_tensor("half", 80, addr=base)     # 3 blocks of P = 32 B, one UB gap block: 160 B
        aj.DataCopyPad(t80, g21, aj.DataCopyExtParams(3, 10, 6, 1, 0), aj.DataCopyPadExtParams(True, 0, 0, 0))
        aj.DataCopyPad(g21, t80, aj.DataCopyExtParams(3, 10, 0, 6, 0))
        t79 = core.local_tensor("half", 79, addr=base)
        _refused(aj.OutOfBoundsError, "DataCopyPad", "atlas-a2",
                 lambda: aj.DataCopyPad(t79, g21, aj.DataCopyExtParams(3, 10, 6, 1, 0),
                                        aj.DataCopyPadExtParams(True, 0, 0, 0)), core.ub, x)
        g20 = aj.GlobalTensor()
        g20.SetGlobalBuffer(x[:20])
        _refused(aj.OutOfBoundsError, "DataCopyPad", "atlas-a2",
                 lambda: aj.DataCopyPad(t80, g20, aj.DataCopyExtParams(3, 10, 6, 1, 0),
                                        aj.DataCopyPadExtParams(True, 0, 0, 0)), core.ub, x)
        g112 = aj.GlobalTensor()
        g112.SetGlobalBuffer(x)                            # DataCopy 3 x 1 block with 2-block gaps: 224 B
        t112 = core.local_tensor("half", 112, addr=base)
        aj.DataCopy(t112, g112, aj.DataCopyParams(3, 1, 0, 2))
        aj.DataCopy(t80, g112, aj.DataCopyParams(3, 1, 2, 0))
        g111 = aj.GlobalTensor()
        g111.SetGlobalBuffer(x[:111])
        _refused(aj.OutOfBoundsError, "DataCopy", "atlas-a2",
                 lambda: aj.DataCopy(t80, g111, aj.DataCopyParams(3, 1, 2, 0)), core.ub, x)


def test_datacopy_ub_to_ub_overlapping_runs_read_what_earlier_runs_wrote():
    core = aj.Core("atlas-a2")
    with core:
        u = core.local_tensor("int16", 128, addr=0)
        u[:] = np.arange(128, dtype=np.int16)
        v = core.local_tensor("int16", 96, addr=32)
        model = core.ub.copy()
        for k in range(3):   # decisions.md "DataCopy per call": UB -> UB runs are one memmove each, in order
            model[32 + 64 * k:96 + 64 * k] = model[64 * k:64 * k + 64].copy()
        aj.DataCopy(v, u, aj.DataCopyParams(3, 2, 0, 0))
        assert np.array_equal(core.ub, model)


def _epoch_atomic_kernel(gm, vals, seen):
    """Two SyncAll epochs of float atomic adds; after its first copy each block reads GM (its turn: the blocks before
    it in the order have committed, none after it)."""
    core = aj.core.current_core()
    t = core.local_tensor("float", 8)
    t[:] = vals[aj.GetBlockIdx()]
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(gm)
    aj.SetAtomicAdd("float")
    aj.DataCopy(g, t, 8)
    aj.PipeBarrier(aj.PIPE_ALL)
    seen[aj.GetBlockIdx()] = g.GetValue(0)
    aj.SyncAll()
    aj.Muls(t, t, 3.0, 8)
    aj.PipeBarrier(aj.PIPE_ALL)
    aj.DataCopy(g, t, 8)
    aj.SetAtomicNone()
    return aj.GetBlockIdx() * 10


@pytest.mark.ascend_sanitize(checks="race,init,memory,sync,dcache", reason="each block reads the GM word the other "
                             "blocks' atomic adds write in the same SyncAll phase: the test shows their commit order")
@pytest.mark.parametrize("seed", [None, 4])
def test_atomic_turns_per_epoch_and_reads_after_the_own_commit(seed):
    n = 5
    vals = (np.array([1, 2 ** 24, -(2 ** 24), 3, 0.25], np.float32)[:, None] * np.ones((1, 8), np.float32))
    gm = np.zeros(8, np.float32)
    seen = np.zeros(n, np.float32)
    kw = {} if seed is None else {"atomic_order": "shuffle", "seed": seed}
    ret = aj.launch(_epoch_atomic_kernel, n, "atlas-a2", gm, vals, seen, **kw)
    assert list(ret) == [b * 10 for b in range(n)]
    order = list(range(n)) if seed is None else list(np.random.default_rng(seed).permutation(n))
    acc = np.float32(0)
    for b in order:                     # float adds in the turn order, each rounded once (D35)
        acc = np.float32(acc + vals[b, 0])
        assert seen[b] == acc, (b, seen, order)
    for b in order:
        acc = np.float32(acc + np.float32(vals[b, 0] * np.float32(3)))
    assert np.array_equal(gm, np.full(8, acc, np.float32))


def _fail_before_sync(gm):
    if aj.GetBlockIdx() == 1:
        return 5                        # returns without reaching the SyncAll the others wait at
    aj.SyncAll()


def test_a_block_returning_before_syncall_breaks_the_barrier_never_hangs():
    with pytest.raises(aj.StateError) as info:
        aj.launch(_fail_before_sync, 3, "atlas-a2", None)
    assert "block" in str(info.value) and "of 3" in str(info.value)


def test_atomic_add_int16_saturates_only_with_the_switch_and_only_where_it_exists():
    for device, sat, expect in (("atlas-a2", 0, -32764), ("atlas-a2", 1, 32767), ("atlas-inference-aicore", 0, -32764)):
        core = aj.Core(device)
        if sat:
            with core:
                aj.SetCtrlSpr(53, 53, 1)   # SPEC-2 D35: CTRL[53] = 1 clamps int16/int32
        gm = np.full(16, 32767, np.int16)
        _atomic_copy(core, "int16", gm, np.full(16, 5, np.int16))
        assert list(gm) == [expect] * 16, (device, sat)


def test_atomic_nan_results_are_canonical_and_saturating_nan_is_zero():
    gm = np.ones(16, np.float16)
    _atomic_copy(aj.Core("atlas-a2"), "half", gm, np.full(16, 0x7C01, np.uint16).view(np.float16), kind="Max")
    assert (gm.view(np.uint16) == 0x7E00).all()
    gm = np.full(16, 0xFE13, np.uint16).view(np.float16).copy()
    _atomic_copy(aj.Core("atlas-a2"), "half", gm, np.ones(16, np.float16))
    assert (gm.view(np.uint16) == 0x7E00).all()
    gm = np.full(16, np.nan, np.float16)
    _atomic_copy(aj.Core("atlas-inference-aicore"), "half", gm, np.ones(16, np.float16))
    assert (gm.view(np.uint16) == 0).all()     # D35: saturation mode writes +0 for NaN


def test_init_global_memory_large_fill_through_a_small_stack_buffer():
    for device in ("atlas-a2", "atlas-inference-aicore", "ascend950"):
        core = aj.Core(device)
        gm = np.full(70001, 3, np.float16)
        with core:
            pipe = aj.TPipe()
            q = aj.TQue(aj.TPosition.VECIN, 1)
            pipe.InitBuffer(q, 1, core.spec.ub_bytes - 96)     # 96 B of stack: 48 halves a run
            g = aj.GlobalTensor()
            g.SetGlobalBuffer(gm[1:])
            aj.InitGlobalMemory(g, 69999, 0.1)                # D29: 0.1 rounded once to half (0x2E66)
        assert (gm.view(np.uint16)[1:70000] == 0x2E66).all() and gm[0] == 3 and gm[70000] == 3, device


def test_found_init_global_memory_without_a_buffer_is_its_parameter_error():
    """decisions.md "InitGlobalMemory": a GlobalTensor without a buffer is a ParameterError (the devkit's own check)
    naming InitGlobalMemory; it was GlobalTensor.GetSize's StateError."""
    core = aj.Core("atlas-a2")
    with core:
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, 1024)
        ub = core.ub.copy()
        for g in (aj.GlobalTensor(), aj.GlobalTensor("float")):
            with pytest.raises(aj.ParameterError) as info:
                aj.InitGlobalMemory(g, 4, 1.0)
            _assert_refusal(info.value, "InitGlobalMemory", "atlas-a2")
            assert info.value.api == "InitGlobalMemory" and info.value.parameter == "gmWorkspaceAddr"
        assert np.array_equal(core.ub, ub)


def test_found_datacopypad_dst_overrun_names_the_block_reaching_it():
    """README "Tensor bounds": an overrun names the operand, the first byte outside and the repeat reaching it. A
    GM -> UB DataCopyPad of 3 bursts of P = 32 B into 47 halves first leaves the tensor at byte 94, in burst 2 (and
    into 31 halves at byte 62, block 1); the refusal said "repeat 0" for every block."""
    core = _dirty_core(seed=28)
    x = np.arange(200, dtype=np.float16)
    with core:
        base = core.local_tensor("half", 256).addr
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x)
        for size, first, block in ((47, 94, 2), (31, 62, 1), (79, 158, 2)):
            t = core.local_tensor("half", size, addr=base)
            gap = 1 if size == 79 else 0
            err = _refused(aj.OutOfBoundsError, "DataCopyPad", "atlas-a2",
                           lambda: aj.DataCopyPad(t, g, aj.DataCopyExtParams(3, 10, 0, gap, 0),
                                                  aj.DataCopyPadExtParams(True, 0, 0, 0)), core.ub, x)
            assert f"byte {base + first} lies outside dst, reached by burst {block}" in str(err), str(err)


@pytest.mark.ascend_sanitize(checks="init,memory,blocks,sync,dcache", reason="copies GM -> UB -> GM back to back "
                             "with no MTE2_MTE3 flag between them: it checks the copies' bytes, not their order")
def test_gm_window_narrower_than_its_array_bounds_every_copy():
    """decisions.md "Scaffolding": a GlobalTensor stays inside the window SetGlobalBuffer gave it, although the host
    array (the device's allocation) goes on."""
    core = _dirty_core(seed=29)
    x = _gm(2 * 64, np.float16, seed=29)
    with core:
        t = core.local_tensor("half", 32)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x[3:], 20)
        for fn in (lambda: aj.DataCopy(t, g, 32), lambda: aj.DataCopy(g[4], t, 16 + 16),
                   lambda: aj.DataCopyPad(t, g[10], aj.DataCopyExtParams(1, 22, 0, 0, 0),
                                          aj.DataCopyPadExtParams(False, 0, 0, 0)),
                   lambda: aj.DataCopyPad(g[19], t, aj.DataCopyExtParams(1, 4, 0, 0, 0))):
            with pytest.raises(aj.OutOfBoundsError) as info:
                fn()
            assert info.value.device == "atlas-a2"
        assert np.array_equal(x.view(np.uint8), _gm(2 * 64, np.float16, seed=29).view(np.uint8))
        assert np.array_equal(core.ub, _dirty_core(seed=29).ub)
        aj.DataCopy(t, g, 16)                             # inside the window: fine
        aj.DataCopyPad(g[18], t, aj.DataCopyExtParams(1, 4, 0, 0, 0))


def test_global_tensor_declared_dtype_views_the_array_bytes():
    g = aj.GlobalTensor("half")
    x = np.zeros(8, np.float32)
    g.SetGlobalBuffer(x)
    assert g.GetSize() == 16
    g.SetValue(1, 1.0)                                    # the high half of float 0: 0x3C00 << 16
    assert x.view(np.uint32)[0] == 0x3C000000
    gb = aj.GlobalTensor("bfloat16")
    gb.SetGlobalBuffer(np.zeros(4, np.uint16))
    gb.SetValue(0, 1 + 2 ** -8 + 2 ** -40)                # D29: one rounding -> 0x3F81
    assert gb.array.view(np.uint16)[0] == 0x3F81


@pytest.mark.ascend_sanitize(checks="init,memory,blocks,sync,dcache", reason="copies GM -> UB -> GM back to back "
                             "with no MTE2_MTE3 flag between them: it checks the copies' bytes, not their order")
def test_atomic_leaves_gm_to_ub_copies_alone_and_datacopypad_combines_only_its_bytes():
    core = _dirty_core(seed=30)
    x = np.full(16, 2, np.float16)
    y = np.arange(20, dtype=np.float16)
    with core:
        t = core.local_tensor("half", 64)
        g, gy = aj.GlobalTensor(), aj.GlobalTensor()
        g.SetGlobalBuffer(x)
        gy.SetGlobalBuffer(y)
        aj.SetAtomicAdd("half")
        aj.DataCopy(t, g, 16)                              # GM -> UB: a plain copy (only UB -> GM combines)
        assert (t.numpy()[:16] == 2).all()
        t[:] = np.arange(100, 164, dtype=np.float16)
        # 2 blocks of 3 halves; UB block k at k*32 B; GM block k at element 3 + k*(3 + 1)
        aj.DataCopyPad(gy[3], t, aj.DataCopyExtParams(2, 6, 0, 2, 0))
        aj.SetAtomicNone()
    expect = np.arange(20, dtype=np.float16)
    expect[3:6] += np.array([100, 101, 102], np.float16)
    expect[7:10] += np.array([116, 117, 118], np.float16)
    assert np.array_equal(y, expect)


def test_readonly_gm_refused_by_every_writer_with_ub_unchanged():
    core = _dirty_core(seed=31)
    x = np.zeros(64, np.float16)
    with core:
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, 1024)
        t = core.local_tensor("half", 32)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x)
        x.flags.writeable = False                          # made read-only after its GlobalTensor
        for api, fn in (("DataCopy", lambda: aj.DataCopy(g, t, 16)),
                        ("DataCopyPad", lambda: aj.DataCopyPad(g, t, aj.DataCopyExtParams(1, 6, 0, 0, 0))),
                        ("InitGlobalMemory", lambda: aj.InitGlobalMemory(g, 10, 1.0))):
            _refused(aj.ParameterError, api, "atlas-a2", fn, core.ub, x)
        aj.SetAtomicAdd("half")
        _refused(aj.ParameterError, "DataCopy", "atlas-a2", lambda: aj.DataCopy(g, t, 16), core.ub, x)
        aj.SetAtomicNone()
        aj.DataCopy(t, g, 16)                              # reading read-only GM is fine
        assert not t.numpy()[:16].any()


@pytest.mark.parametrize("dtype, s, bc, bl, left, right, value", [
    ("int8", 1, 3, 1, 32, 32, -5),          # P = 96 B per block: the largest pads of a 1-byte type
    ("int8", 1, 2, 33, 0, 31, 127),
    ("float", 4, 2, 4, 8, 7, -0.0),         # 32 B pads of floats, paddingValue -0.0 bit for bit
    ("uint16", 2, 5, 30, 1, 0, 65535),
])
def test_datacopypad_other_dtypes_whole_ub_model(dtype, s, bc, bl, left, right, value):
    core = _dirty_core(seed=bl + left)
    x = _gm(512, np.uint8, seed=bl + right)
    npt = {"int8": np.int8, "float": np.float32, "uint16": np.uint16}[dtype]
    with core:
        t = core.local_tensor(dtype, 1024 // s)
        g = aj.GlobalTensor(dtype)
        g.SetGlobalBuffer(x)
        ub = core.ub.copy()
        fill = np.array([value], npt).tobytes()
        _pad_gm_to_ub_model(ub, t.addr, x, 0, s, bc, bl, 3 * s, 0, left, right, fill)
        aj.DataCopyPad(t, g, aj.DataCopyExtParams(bc, bl, 3 * s, 0, 0),
                       aj.DataCopyPadExtParams(True, left, right, value))
        assert np.array_equal(core.ub, ub)
        _refused(aj.ParameterError, "DataCopyPad", "atlas-a2",
                 lambda: aj.DataCopyPad(t, g, aj.DataCopyExtParams(1, s, 0, 0, 0),
                                        aj.DataCopyPadExtParams(True, 32 // s + 1, 0, 0)), core.ub, x)


@_PROCESSES
def test_launch_modes_agree_on_a_gm_view_argument():
    outs = []
    for parallel in (True, False, "processes"):
        base = np.full(8 * 6, -1, np.int32)
        aj.launch(_ids_kernel, 3, "atlas-a2", base[8:], parallel=parallel)   # GM starts 32 B into the array
        outs.append(base)
    aj.close_block_processes()
    expect = np.full(8 * 6, -1, np.int32)
    expect[8:32] = np.repeat(np.arange(3) * 1000 + 3, 8)
    for out in outs:
        assert np.array_equal(out, expect)


def test_queue_fifo_order():
    core = aj.Core("atlas-a2")
    with core:
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECOUT, 2)
        pipe.InitBuffer(q, 2, 64)
        a, b = q.AllocTensor("half"), q.AllocTensor("half")
        q.EnQue(a)
        q.EnQue(b)
        assert q.DeQue("half").addr == a.addr and q.DeQue("half").addr == b.addr


def _soft_sync_kernel(gm, used):
    core = aj.core.current_core()
    ub = core.local_tensor("int32", 8)
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(gm)
    aj.SyncAll(g, ub, used)
    return aj.GetBlockIdx()


def test_soft_syncall_every_block_or_none_and_not_on_310b():
    ws = np.zeros(64, np.int32)
    assert list(aj.launch(_soft_sync_kernel, 3, "atlas-inference-aicore", ws, 0)) == [0, 1, 2]
    assert list(aj.launch(_soft_sync_kernel, 3, "atlas-inference-aicore", ws, 3)) == [0, 1, 2]
    with pytest.raises(aj.ParameterError):
        aj.launch(_soft_sync_kernel, 3, "atlas-inference-aicore", ws, 2)
    with pytest.raises(aj.UnsupportedDeviceError):
        aj.launch(_soft_sync_kernel, 2, "atlas-200i-500-a2", ws, 0)
    with pytest.raises(aj.StateError):                # more than 256 blocks run in sequence: SyncAll cannot wait
        aj.launch(_soft_sync_kernel, 257, "atlas-a2", ws, 0)


# ---------------------------------------------------------------------------------------------------------------
# Seeded random sequences of GM <-> UB copies (plain and atomic) against the whole-buffer model
# ---------------------------------------------------------------------------------------------------------------

_NPT = {"half": np.float16, "float": np.float32, "int16": np.int16, "int32": np.int32, "int8": np.int8}


def _atomic_add_model(gm_vals, ub_vals):
    """decisions.md "Atomics" with SPEC-2 D35 on a core at its defaults (INF/NaN mode, integer saturation off): one
    rounding of the exact sum for floats (canonical NaN), a wrap for integers."""
    dt = gm_vals.dtype
    if dt.kind == "f":
        with np.errstate(all="ignore"):
            out = (gm_vals.astype(np.float64) + ub_vals.astype(np.float64)).astype(dt)
        nan = np.isnan(out)
        out = out.copy()
        out[nan] = np.array([0x7E00 if dt == np.float16 else 0x7FC00000], np.uint16 if dt == np.float16
                            else np.uint32).view(dt)[0]
        return out
    return (gm_vals.astype(np.int64) + ub_vals.astype(np.int64)).astype(dt)


def _model_ub_to_gm(xb, ub, dst_at, src_at, runs, s, atomic, npt):
    """runs: (GM byte, UB byte, bytes) copied in order; atomic combines element-wise with GM (decisions "Atomics")."""
    for gdst, usrc, n in runs:
        data = ub[usrc:usrc + n]
        if atomic:
            old = xb[dst_at + gdst:dst_at + gdst + n].view(npt)
            xb[dst_at + gdst:dst_at + gdst + n] = _atomic_add_model(old, data.view(npt)).view(np.uint8)
        else:
            xb[dst_at + gdst:dst_at + gdst + n] = data


@pytest.mark.ascend_sanitize(checks="init,memory,blocks,sync,dcache", reason="copies GM -> UB -> GM back to back "
                             "with no MTE2_MTE3 flag between them: it checks the copies' bytes, not their order")
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
@pytest.mark.parametrize("seed", range(12))
def test_random_copy_sequences_against_the_model(device, seed):
    r = np.random.default_rng(4500 + seed)
    dtype = str(r.choice(list(_NPT)))
    npt = _NPT[dtype]
    s = np.dtype(npt).itemsize
    core = aj.Core(device)
    core.ub[:] = _rand_bytes(core.ub.size, seed)
    x = _rand_bytes(4096, seed + 1).view(npt).copy()
    if dtype in ("half", "float"):
        x[np.isnan(x)] = 1
    ub, xb = core.ub.copy(), x.view(np.uint8).copy()
    with core:
        t = core.local_tensor(dtype, 2048 // s)
        core.ub_written_by_host(t.addr, 2048)   # the random bytes above, which the copies out read
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(x)
        ta = t.addr
        for _ in range(8):
            kind, off, bc = int(r.integers(0, 4)), int(r.integers(0, 64)), int(r.integers(1, 5))
            atomic = kind in (1, 3) and bool(r.integers(0, 2))
            if kind in (0, 1):
                bl, sg, dg = (int(v) for v in r.integers(0, 3, 3))
                bl += 1
                params = aj.DataCopyParams(bc, bl, sg, dg)
                if kind == 0:
                    _copy_runs_model(ub, ta, xb, off * s, bc, bl, sg, dg, 32)
                    aj.DataCopy(t, g[off], params)
                else:
                    runs = [(k * (bl + dg) * 32, ta + k * (bl + sg) * 32, bl * 32) for k in range(bc)]
                    _model_ub_to_gm(xb, ub, off * s, 0, runs, s, atomic, npt)
                    if atomic:
                        aj.SetAtomicAdd(dtype)
                    aj.DataCopy(g[off], t, params)
            elif kind == 2:
                bl, ss = int(r.integers(1, 40)) * s, int(r.integers(0, 10)) * s
                ds, lp, rp = int(r.integers(0, 2)), int(r.integers(0, 32 // s + 1)), int(r.integers(0, 32 // s + 1))
                fill = None if lp == rp == 0 else np.array([3], npt).tobytes()
                _pad_gm_to_ub_model(ub, ta, xb, off * s, s, bc, bl, ss, ds, lp, rp, fill)
                aj.DataCopyPad(t, g[off], aj.DataCopyExtParams(bc, bl, ss, ds, 0),
                               aj.DataCopyPadExtParams(True, lp, rp, 3))
            else:
                bl, ss, ds = int(r.integers(1, 40)) * s, int(r.integers(0, 2)), int(r.integers(0, 10)) * s
                step = -(-bl // 32) * 32 + 32 * ss
                runs = [(k * (bl + ds), ta + k * step, bl) for k in range(bc)]
                _model_ub_to_gm(xb, ub, off * s, 0, runs, s, atomic, npt)
                if atomic:
                    aj.SetAtomicAdd(dtype)
                aj.DataCopyPad(g[off], t, aj.DataCopyExtParams(bc, bl, ss, ds, 0))
            aj.SetAtomicNone()
            assert np.array_equal(core.ub, ub), (kind, dtype)
            assert np.array_equal(x.view(np.uint8), xb), (kind, dtype, atomic)


def _utility_kernel():
    aj.printf("v %d\n", aj.GetBlockIdx())
    return aj.GetSubBlockIdx(), aj.GetTaskRation(), aj.GetSubBlockNum(), aj.GetDataBlockSizeInBytes()


def test_block_utilities_and_printf_prefix(capsys):
    assert aj.launch(_utility_kernel, 2, "atlas-a2", parallel=False) == [(0, 1, 1, 32)] * 2   # vector-only launches
    assert capsys.readouterr().out.splitlines() == ["[AIV Block 0/2] v 0", "[AIV Block 1/2] v 1"]
    with pytest.raises(aj.StateError):
        aj.GetBlockIdx()                                  # no current core


def test_sys_workspace_records_the_first_array_only():
    reserve = aj.GetLibApiWorkSpaceSize("atlas-a2")
    w1, w2 = np.zeros(reserve + 64, np.uint8), np.zeros(reserve + 64, np.uint8)
    with aj.Core("atlas-a2"):
        with pytest.raises(aj.StateError):
            aj.GetSysWorkSpacePtr()                       # the device would return nullptr
        with pytest.raises(aj.ParameterError):
            aj.SetSysWorkspace(None)
        aj.SetSysWorkspace(w1)
        aj.SetSysWorkspace(w2)                            # the devkit's `if (g_sysWorkspaceReserved == nullptr)`
        assert aj.GetSysWorkSpacePtr() is w1
        wf = np.zeros(reserve // 4 + 10, np.float32)      # the view keeps the array's dtype
        user = aj.GetUserWorkspace(wf)
        assert user.dtype == np.float32 and user.size == 10 and np.shares_memory(user, wf)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "float", "half", "bfloat16"])
def test_atomic_max_min_every_type_on_the_950(dtype):
    import ml_dtypes
    npt = {"bfloat16": ml_dtypes.bfloat16, **_NPT}[dtype]
    n = 32 // np.dtype(npt).itemsize
    r = np.random.default_rng(len(dtype))
    if np.dtype(npt).kind == "i":
        info = np.iinfo(npt)
        a = r.integers(info.min, info.max, n, endpoint=True).astype(npt)
        b = r.integers(info.min, info.max, n, endpoint=True).astype(npt)
        b[:2] = a[:2]
    else:
        a = (r.standard_normal(n) * 100).astype(np.float32).astype(npt)
        b = (r.standard_normal(n) * 100).astype(np.float32).astype(npt)
        b[:2] = a[:2]
    for kind, fn in (("Max", np.maximum), ("Min", np.minimum)):
        gm = a.copy()
        _atomic_copy(aj.Core("ascend950"), dtype, gm, b.copy(), kind=kind)
        assert np.array_equal(gm.view(np.uint8), fn(a, b).view(np.uint8)), kind


def test_atomic_half_add_saturates_after_ctrl48_is_cleared():
    for device in ("ascend950", "atlas-a2"):
        core = aj.Core(device)
        with core:
            aj.SetCtrlSpr(48, 48, 0)          # SPEC 5.2: CTRL[48] = 0 is the saturation mode
        gm = np.full(16, 65504, np.float16)
        _atomic_copy(core, "half", gm, np.full(16, 65504, np.float16))
        assert (gm == 65504).all()
