"""The sanitizer through the Ascend 950 Reg API (issue 17, SPEC-2 11.6): every Reg load and store reports its exact UB
footprint on PIPE_V (the bytes that feed register lanes, the bytes active lanes write), and a compiled `@simd_vf` VF
on a sanitizing core runs through its uncompiled function so that its loads and stores report too."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.errors import SanitizerError
from ascend_jit.jit import reg_move as mv
from ascend_jit.sanitizer import PIPE_V, PIPES

R = aj.Reg
DEVICE = "ascend950"
V = PIPES.index(PIPE_V)
WIDTH_TYPES = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}


def _vf_double(out, src, T):
    mask = R.CreateMask(T)
    reg = R.RegTensor(T)
    R.LoadAlign(reg, src)
    R.Add(reg, reg, reg, mask)
    R.StoreAlign(out, reg, mask)


DOUBLE = R.simd_vf(_vf_double)


def _copy_in_double_copy_out(fixed, copied=128, sanitize="report", compiled=True):
    """GM -> UB (MTE2), a Reg VF doubles it (V), UB -> GM (MTE3); `fixed` puts the MTE2_V hand-off in."""
    gm_out = np.zeros(128, np.float16)
    with aj.Core(DEVICE, sanitize=sanitize) as core:
        alloc = aj.LocalMemAllocator()
        src, out = alloc.Alloc("half", 128), alloc.Alloc("half", 128)
        aj.DataCopy(src, aj.GlobalTensor(np.arange(128, dtype=np.float16)), copied)
        aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
        if fixed:
            aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
        (DOUBLE if compiled else DOUBLE.py_func)(out, src, "half")
        if not fixed:
            aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
        aj.SetFlag(0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(0, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(aj.GlobalTensor(gm_out), out, 128)
    return core, src, gm_out


@pytest.mark.parametrize("compiled", [True, False], ids=["simd_vf", "py_func"])
def test_reg_vf_reading_a_copy_in_without_mte2_v_is_a_raw_race(compiled):
    core, src, _ = _copy_in_double_copy_out(False, compiled=compiled)
    [rep] = core.sanitizer.reports
    assert (rep.check, rep.kind, rep.instruction.api, rep.instruction.pipe) == ("race", "RAW", "LoadAlign", PIPE_V)
    assert (rep.earlier.api, rep.earlier.pipe, rep.address, rep.nbytes) == ("DataCopy", "PIPE_MTE2", src.addr, 256)
    assert "HardEvent.MTE2_V" in rep.fix
    assert rep.instruction.where.startswith("test_sanitizer_reg.py:")       # the VF's own line
    core, _, _ = _copy_in_double_copy_out(True, compiled=compiled)
    assert core.sanitizer.reports == []


def test_reg_load_of_bytes_never_written_is_an_uninitialised_read():
    """The VF doubles every lane, half of them loaded from bytes never copied in, and stores them all: the copy-out
    reads what the store wrote from those lanes (session 54: the report comes where the values are read, naming the
    store, and the load and its bytes in the fix; lane_shadow.py)."""
    core, src, _ = _copy_in_double_copy_out(True, copied=64)
    out = src.addr + 256   # the second buffer of the allocator
    [rep] = core.sanitizer.reports
    assert (rep.check, rep.kind, rep.instruction.api, rep.earlier.api) == ("init", "uninitialised read", "DataCopy",
                                                                          "StoreAlign")
    assert (rep.address, rep.nbytes) == (out + 128, 128)                  # the halves stored from those lanes
    assert f"UB byte {src.addr + 128}, 128 bytes" in rep.fix              # exactly the halves never copied in
    # a Reg load takes no mask, so its fix says what a port can do (the generic "read only lanes an earlier
    # instruction wrote" cannot be followed by a whole-register LoadAlign; session 51's ports)
    assert "a Reg load reads every byte its distribution names" in rep.fix and "Duplicate" in rep.fix


def test_sanitized_vf_gives_the_compiled_bits():
    """The uncompiled run a sanitizing core makes gives the bits the compiled VF gives (issue 16's contract)."""
    _, _, plain = _copy_in_double_copy_out(True, sanitize=False)
    _, _, sanitized = _copy_in_double_copy_out(True, sanitize=True)
    assert np.array_equal(plain.view(np.uint16), sanitized.view(np.uint16))
    assert np.array_equal(plain, 2 * np.arange(128, dtype=np.float16))


# --- exact footprints: every load and store form ---------------------------------------------------------------------
def _read_set(load, T, n=1024):
    """The UB bytes that feed the register lanes, found from the data (each src byte holds its index + 1 over two
    runs, so a register byte names the byte it came from; 0 is a lane the load zeroes), and the bytes the sanitizer
    recorded as read."""
    decoded, recorded = [], None
    for shift in (0, 8):
        core = aj.Core(DEVICE, sanitize="report")
        src = core.local_tensor("uint8", n)
        src[:] = ((np.arange(n) + 1) >> shift & 0xFF).astype(np.uint8)
        regs = [R.RegTensor(T), R.RegTensor(T)]
        load(src, *regs)
        decoded.append(np.concatenate([r.data[:mv.VL].astype(np.int64) for r in regs]))
        recorded = np.nonzero(core.sanitizer.reader_seq[V])[0] - src.addr
        assert core.sanitizer.reports == []
    index = decoded[0] | decoded[1] << 8
    return np.unique(index[index > 0] - 1), recorded


def _written_set(store, T, n=1024):
    """The UB bytes the store changes under two complementary fills (a written byte differs from one of them), and
    the bytes the sanitizer recorded as written."""
    changed, recorded = np.zeros(n, np.bool_), None
    for fill in (0x00, 0xFF):
        core = aj.Core(DEVICE, sanitize="report")
        src, out = core.local_tensor("uint8", 512), core.local_tensor("uint8", n)
        src[:], out[:] = np.full(512, 0xFF ^ fill, np.uint8), np.full(n, fill, np.uint8)
        regs = [R.RegTensor(T), R.RegTensor(T)]
        for k, r in enumerate(regs):
            R.LoadAlign(r, src, 256 * k)
        store(out, *regs)
        changed |= out.numpy() != fill
        recorded = np.nonzero(core.sanitizer.writer_pipe == V)[0] - out.addr
        assert core.sanitizer.reports == []
    return np.nonzero(changed)[0], recorded


RNG_MASKS = [R.MaskReg(w) for w in ((2**64 - 1,) * 4, (0x00FF00F0F00F0001, 0, 2**63, 0x5555AAAA5555AAAA),
                                     (0, 0, 0, 0), (1, 0, 0, 0))]
LOADS = [(f"LoadAlign {d.name}", WIDTH_TYPES[int(mv.LOAD_WIDTH[d]) or 2],
          lambda src, r, r2, d=d: R.LoadAlign(r, src, 32, dist=d)) for d in R.LoadDist if d < mv.L_DINTLV_B8] + [
    ("LoadAlign DINTLV_B16", "uint16", lambda src, r, r2: R.LoadAlign(r, r2, src, 64, dist=R.LoadDist.DIST_DINTLV_B16)),
    ("Load unaligned", "uint16", lambda src, r, r2: R.Load(r, src, 5)),
] + [(f"LoadAlign DATA_BLOCK_COPY {k} {post}", "uint16",
      lambda src, r, r2, m=m, post=post: R.LoadAlign(r, src, 32, data_block_stride=2, mask=m, repeat_stride=1,
                                                     post_mode=post))
     for k, m in enumerate(RNG_MASKS[1:]) for post in R.PostLiteral]
STORES = [(f"StoreAlign {d.name} mask {k}", WIDTH_TYPES[int(mv.STORE_WIDTH[d]) or 2],
           lambda out, r, r2, d=d, m=m: R.StoreAlign(out, r, m, 32, dist=d))
          for d in R.StoreDist if d < mv.S_INTLV_B8 for k, m in enumerate(RNG_MASKS[:2])] + [
    ("StoreAlign INTLV_B32", "uint32", lambda out, r, r2: R.StoreAlign(out, r, r2, RNG_MASKS[2], 64,
                                                                      dist=R.StoreDist.DIST_INTLV_B32)),
    ("Store unaligned", "uint16", lambda out, r, r2: R.Store(out, r, 5, count=7)),
] + [(f"StoreAlign DATA_BLOCK_COPY {k}", "uint32",
      lambda out, r, r2, m=m: R.StoreAlign(out, r, 32, data_block_stride=3, mask=m, repeat_stride=2))
     for k, m in enumerate(RNG_MASKS[1:])] + [
    (f"StoreAlign MaskReg {d.name}", "uint8", lambda out, r, r2, d=d: R.StoreAlign(out, RNG_MASKS[1], 32, dist=d))
    for d in (R.MaskDist.DIST_NORM, R.MaskDist.DIST_PACK)]


@pytest.mark.parametrize("name, T, load", LOADS, ids=[n for n, _, _ in LOADS])
def test_reg_load_footprint_is_exactly_the_bytes_that_feed_lanes(name, T, load):
    feeding, recorded = _read_set(load, T)
    assert np.array_equal(recorded, feeding)


@pytest.mark.parametrize("name, T, store", STORES, ids=[n for n, _, _ in STORES])
def test_reg_store_footprint_is_exactly_the_bytes_written(name, T, store):
    written, recorded = _written_set(store, T)
    assert np.array_equal(recorded, written)


@pytest.mark.parametrize("dist, nbytes", [(R.MaskDist.DIST_NORM, 32), (R.MaskDist.DIST_US, 16),
                                          (R.MaskDist.DIST_DS, 64)])
def test_mask_reg_load_reads_its_distribution_bytes(dist, nbytes):
    """MaskReg loads (SPEC-2 11.6): NORM 32 bytes, US 16 (each bit doubled), DS 64 (every other bit kept). Bytes
    never written are not reported at the load: they mark exactly the bits they feed (lane_shadow.mask_loaded), bit i
    from byte k >> 3 of the loaded bytes, k = i (NORM), i // 2 (US), 2 i (DS)."""
    core = aj.Core(DEVICE, sanitize="report")
    src = core.local_tensor("uint8", 128)
    uninitialised = np.random.default_rng(int(dist)).random(128) < 0.3
    for i in np.nonzero(~uninitialised)[0]:
        core.ub_written_by_host(src.addr + int(i), 1)
    mask = R.MaskReg()
    R.LoadAlign(mask, src, 32, dist=dist)
    assert core.sanitizer.reports == []
    assert np.array_equal(np.nonzero(core.sanitizer.reader_seq[V])[0] - src.addr, np.arange(32, 32 + nbytes))
    k = np.arange(256) // 2 if dist == R.MaskDist.DIST_US else 2 * np.arange(256) if dist == R.MaskDist.DIST_DS \
        else np.arange(256)
    assert np.array_equal(mask._lane_shadow.origin >= 0, uninitialised[32 + (k >> 3)])


def test_a_raised_reg_report_leaves_the_ub_and_the_registers_as_they_were():
    """SPEC-2 1.5 / 10.4 audit: in "raise" mode a Reg store or load whose access is reported changed nothing (the
    report comes after the operation ran, so what it wrote is put back): UB bytes, register, MaskReg, UnalignReg."""
    with aj.Core("ascend950", sanitize=True) as core:
        alloc = aj.LocalMemAllocator()
        src, out, fresh, spare, copied = (alloc.Alloc("half", 128) for _ in range(5))
        src[:] = np.arange(128, dtype=np.float16)
        out[:] = np.full(128, 7, np.float16)
        aj.DataCopy(aj.GlobalTensor(np.zeros(128, np.float16)), out, 128)   # an MTE3 read of out: no MTE3_V
        reg = aj.Reg.RegTensor("half")
        aj.Reg.LoadAlign(reg, src)
        ub = core.ub.copy()
        for store in (lambda: aj.Reg.StoreAlign(out, reg, aj.Reg.CreateMask("half")),
                      lambda: aj.Reg.StoreUnAlign(out, reg, ureg, 1, 40),
                      lambda: aj.Reg.StoreAlign(out, aj.Reg.CreateMask("half"), 0)):
            ureg = aj.Reg.UnalignRegForStore()
            with pytest.raises(SanitizerError, match="WAR"):
                store()
            assert (core.ub == ub).all() and not ureg.state[1]
        aj.DataCopy(copied, aj.GlobalTensor(np.zeros(128, np.float16)), 128)   # an MTE2 write: no MTE2_V
        mask = aj.Reg.MaskReg((5, 5, 5, 5))
        with pytest.raises(SanitizerError, match="RAW"):
            aj.Reg.LoadAlign(mask, copied)
        assert mask.words == aj.Reg.MaskReg((5, 5, 5, 5)).words and mask._lane_shadow is None
        aj.Reg.LoadAlign(mask, fresh)   # never-written bytes: its bits carry their state (lane_shadow.mask_loaded)
        assert mask._lane_shadow is not None
        aj.Reg.LoadAlign(reg, fresh)   # a data register's lanes carry the bytes' state (lane_shadow.py): the bytes
        aj.Reg.StoreAlign(spare, reg, aj.Reg.CreateMask("half"))   # it stores stay uninitialised, reported when read
        ub = core.ub.copy()
        with pytest.raises(SanitizerError, match="uninitialised read: Adds .* after StoreAlign"):
            aj.Adds(fresh, spare, 1.0, 128)
        assert (core.ub == ub).all()


def _vf_accumulate(x1, x2, n):
    """x1 += x2 over n floats (ops-math AddN's VF, called VF after VF)."""
    a, b, c = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    m, n = R.UpdateMask("float", n)
    R.LoadAlign(a, x1, 0)
    R.LoadAlign(b, x2, 0)
    R.Add(c, a, b, m)
    R.StoreAlign(x1, c, m, 0)


def _vf_store_then_load(x, n):
    """A store and a later load of the same bytes in one VF: LocalMemBar<VEC_STORE, VEC_LOAD> orders them."""
    a = R.RegTensor("float")
    m, n = R.UpdateMask("float", n)
    R.LoadAlign(a, x, 0)
    R.StoreAlign(x, a, m, 64)
    R.LoadAlign(a, x, 64)
    R.StoreAlign(x, a, m, 128)


ACCUMULATE, STORE_THEN_LOAD = R.simd_vf(_vf_accumulate), R.simd_vf(_vf_store_then_load)


def _strict_reports(mode):
    with aj.sanitize_session(mode) as session:
        core = aj.Core(DEVICE)
        with core:
            x = core.local_tensor("float", 256)
            x[:] = np.ones(256, np.float32)
            ACCUMULATE(x, x[64], 64)
            ACCUMULATE(x, x[128], 64)    # VF after VF
            aj.Adds(x, x, 1.0, 64)       # a Memory-API call after a VF
            ACCUMULATE(x, x[128], 64)    # a VF after a Memory-API call
            aj.Adds(x[64], x, 1.0, 64)
            aj.Muls(x[128], x[64], 1.0, 64)   # Memory-API after Memory-API
            STORE_THEN_LOAD(x, 64)       # inside one VF, no LocalMemBar
    return [(r.instruction.api, r.earlier.api, r.fix) for r in session.reports]


def test_strict_on_the_950_takes_vf_after_vf_as_ordered_only_with_device_sync():
    """The 950 runs every Memory-API vector call as a VF (DK impl/basic_api/dav_3510 kernel_operator_vec_template_impl.h
    __simd_vf__ VecBinaryVFImpl), and "users need not manage synchronisation between VFs" (DK
    docs/zh/api/附录/API流水类型汇总.md): port53c's AddN, VF after VF with no PipeBarrier<PIPE_V>. SPEC-2 10.4's
    "strict" reports those same-pipe RAW pairs, and each fix says the device orders them and names 'device-sync';
    with "device-sync" only the pair inside one VF (LocalMemBar's) is reported."""
    strict = _strict_reports("report,strict")
    assert len(strict) == 7
    *across, inside = strict
    assert all("the device orders them already (on the 950" in fix and "'device-sync'" in fix for _, _, fix in across)
    assert inside[:2] == ("LoadAlign", "StoreAlign") and "'device-sync'" not in inside[2]
    assert "LocalMemBar(MemType.VEC_STORE, MemType.VEC_LOAD)" in inside[2]
    assert _strict_reports("report,strict,device-sync") == [inside]
    assert _strict_reports("report") == []   # same-pipe pairs only under "strict"


def test_strict_device_sync_off_the_950_still_wants_a_pipe_barrier_between_vector_calls():
    """Elsewhere vector instructions pipeline (SPEC-2 10.4's PipeBarrier<PIPE_V>): "device-sync" changes nothing."""
    for mode in ("report,strict", "report,strict,device-sync"):
        with aj.sanitize_session(mode) as session:
            core = aj.Core("atlas-a2")
            with core:
                x = core.local_tensor("float", 128)
                x[:] = np.ones(128, np.float32)
                aj.Adds(x[64], x, 1.0, 64)
                aj.Muls(x, x[64], 1.0, 64)
        (report,) = session.reports
        assert report.fix == "PipeBarrier(PIPE_V) between them", mode


def test_a_vf_run_through_py_func_keeps_its_scope():
    """The review of session 53: the VF scope was kept only by a sanitized compiled VF's call, so `vf.py_func(...)`
    (and NUMBA_DISABLE_JIT) took each Reg instruction for a VF's end, and "device-sync" dropped the pair inside
    one VF. Every plain run is a VF's scope."""
    for mode, hinted in (("report,strict", False), ("report,strict,device-sync", False)):
        with aj.sanitize_session(mode) as session:
            core = aj.Core(DEVICE)
            with core:
                x = core.local_tensor("float", 256)
                x[:] = np.ones(256, np.float32)
                STORE_THEN_LOAD.py_func(x, 64)
        (report,) = session.reports
        assert (report.instruction.api, report.earlier.api) == ("LoadAlign", "StoreAlign"), mode
        assert ("'device-sync'" in report.fix) == hinted, (mode, report.fix)
