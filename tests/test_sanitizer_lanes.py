"""The init check through Reg register lanes (issue 17's "init"; ascend_jit/lane_shadow.py): a Reg load marks the
register bytes its uninitialised UB bytes feed, every Reg operation carries the marks lane by lane (its mask and
merge mode included), a store leaves the bytes it writes from marked lanes uninitialised (remembered with the store
and the load), and the report is made where something reads those bytes through an active lane (or where Add's
carry is computed from a marked lane). A whole-vector load of a tile's tail that UpdateMask keeps out of the compute
and the store, the vendor's own pattern, sanitizes clean; so does a row stored whole into a padded buffer whose
copy-out skips the padding."""
import zlib

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.dtypes import resolve
from ascend_jit.errors import SanitizerError
from ascend_jit.lane_shadow import ORIGINS
from ascend_jit.sanitizer import _mask_bits
from test_sanitizer_reg import LOADS, STORES

R = aj.Reg
DEVICE = "ascend950"


def _core_with_tail(n_written, T="half", n=128, mode="report", checks=None):
    """A sanitizing core, a tensor of n elements of which the first n_written are written by the host, and a fresh
    output tensor."""
    core = aj.Core(DEVICE, sanitize=aj.SanitizeConfig(mode=mode, checks=checks) if checks else mode)
    src, out = core.local_tensor(T, n), core.local_tensor(T, n)
    src[:n_written] = np.arange(n_written).astype(resolve(T).np_dtype)
    return core, src, out


def _vf_tail(out, src, count, compute_full, store_full):
    """The vendor's tail pattern: a whole-vector load, the compute and the store under UpdateMask(count) (or the
    full mask where asked)."""
    mask, _ = R.UpdateMask("float", count)
    full = R.CreateMask("float")
    reg = R.RegTensor("float")
    R.LoadAlign(reg, src, 0)
    R.Muls(reg, reg, 2.0, full if compute_full else mask)
    R.Adds(reg, reg, 1.0, full if compute_full else mask)
    R.StoreAlign(out, reg, full if store_full else mask, 0)


TAIL = R.simd_vf(_vf_tail)


@pytest.mark.parametrize("compiled", [True, False], ids=["simd_vf", "py_func"])
@pytest.mark.parametrize("compute_full", [False, True], ids=["masked compute", "full compute"])
def test_a_tail_the_store_masks_off_is_clean(compiled, compute_full):
    core, src, out = _core_with_tail(40, "float", 64)
    with core:
        (TAIL if compiled else _vf_tail)(out, src, 40, compute_full, False)
    assert core.sanitizer.reports == []
    assert np.array_equal(out.numpy()[:40], np.arange(40, dtype=np.float32) * 2 + 1)


def _copy_out(out, n):
    """The copy-out after the VF (V -> MTE3), as a kernel's: the UB read that meets what the store left."""
    aj.SetFlag(0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(0, event=aj.HardEvent.V_MTE3)
    gm = np.zeros(64, np.float32)
    aj.DataCopy(aj.GlobalTensor(gm), out, n)
    return gm


@pytest.mark.parametrize("compiled", [True, False], ids=["simd_vf", "py_func"])
def test_a_full_store_of_the_tails_lanes_is_reported_where_its_bytes_are_read(compiled):
    core, src, out = _core_with_tail(40, "float", 64)
    with core:
        (TAIL if compiled else _vf_tail)(out, src, 40, True, True)
        assert core.sanitizer.reports == []                  # stored: the bytes stay uninitialised, not yet read
        written = core.sanitizer.initialised[out.addr:out.addr + 256]
        assert written[:160].all() and not written[160:].any()
        _copy_out(out, 40)                                   # the copy-out of the data alone: clean
        assert core.sanitizer.reports == []
        _copy_out(out, 64)
    [rep] = core.sanitizer.reports
    line = _vf_tail.__code__.co_firstlineno
    assert (rep.check, rep.kind, rep.instruction.api, rep.instruction.pipe) == ("init", "uninitialised read",
                                                                               "DataCopy", "PIPE_MTE3")
    assert (rep.address, rep.nbytes) == (out.addr + 160, 96)   # exactly the bytes stored from the tail's lanes
    assert (rep.earlier.api, rep.earlier.where) == ("StoreAlign", f"test_sanitizer_lanes.py:{line + 9}")
    # the fix names the load, its line and its never-written bytes
    assert f"LoadAlign [PIPE_V] at test_sanitizer_lanes.py:{line + 6} read" in rep.fix
    assert f"UB byte {src.addr + 160}, 96 bytes" in rep.fix and "Duplicate" in rep.fix


def test_a_masked_zeroing_operation_cleans_the_lanes_it_leaves_out():
    """ZEROING writes 0 to inactive lanes: a full store after a tail-masked Muls stores no loaded value."""
    core, src, out = _core_with_tail(40, "float", 64)
    with core:
        _vf_tail(out, src, 40, False, True)
        _copy_out(out, 64)
    assert core.sanitizer.reports == []


def test_raise_mode_raises_at_the_read_and_leaves_everything_as_it_was():
    core, src, out = _core_with_tail(40, "float", 64, mode="raise")
    with core:
        reg = R.RegTensor("float")
        R.LoadAlign(reg, src, 0)            # no report: nothing computed from the tail has left the registers
        R.StoreAlign(out, reg, R.CreateMask("float"), 0)   # nor has anything read the bytes it stored
        ub = core.ub.copy()
        with pytest.raises(SanitizerError, match=r"uninitialised read: Adds .* after StoreAlign .*LoadAlign"):
            aj.Adds(src, out, 1.0, 64)
        assert (core.ub == ub).all()
        aj.Adds(src, out, 1.0, 40)          # the written lanes alone: no report


def test_a_reg_load_of_stored_tail_bytes_keeps_the_first_loads_origin():
    """Bytes stored from marked lanes and loaded again mark the new register with the original load's bytes: the
    report, wherever it comes, names the load that read never-written UB."""
    core, src, out = _core_with_tail(40, "float", 64)
    with core:
        first, again = R.RegTensor("float"), R.RegTensor("float")
        R.LoadAlign(first, src, 0)
        R.StoreAlign(out, first, R.CreateMask("float"), 0)
        R.LoadAlign(again, out, 0)
        assert np.array_equal(np.nonzero(_lanes(again, 4))[0], np.arange(40, 64))
        assert {ORIGINS[k].address for k in again._lane_shadow.origin[again._lane_shadow.origin >= 0]} == {
            src.addr + 160}


def _marks(reg):
    shadow = reg._lane_shadow
    return np.zeros(256, np.bool_) if shadow is None else shadow.origin >= 0


def _lanes(reg, size):
    return _marks(reg).reshape(-1, size).any(axis=1)


def _mask_of_lanes(lanes, size):
    """A MaskReg whose bit governs exactly the given lanes of `size` bytes."""
    bits = np.zeros(256, np.uint8)
    bits[np.nonzero(lanes)[0] * size] = 1
    return R.MaskReg(tuple(int(w) for w in np.packbits(bits, bitorder="little").view("<u8")))


def test_merging_copy_keeps_the_marks_of_the_lanes_it_leaves():
    core, src, out = _core_with_tail(40, "float", 64)
    with core:
        clean, reg = R.RegTensor("float"), R.RegTensor("float")
        R.Duplicate(clean, 3.0)
        R.LoadAlign(reg, src, 0)                          # lanes 40..63 marked
        R.Copy(reg, clean, R.UpdateMask("float", 50)[0])  # lanes 0..49 from clean: 50..63 keep theirs
        assert np.array_equal(np.nonzero(_lanes(reg, 4))[0], np.arange(50, 64))
        R.Select(clean, reg, clean, R.UpdateMask("float", 55)[0])   # src0's lanes 0..54: 50..54 marked
        assert np.array_equal(np.nonzero(_lanes(clean, 4))[0], np.arange(50, 55))
        R.Copy(reg, clean)                                # every lane from clean
        assert np.array_equal(np.nonzero(_lanes(reg, 4))[0], np.arange(50, 55))
        out[:] = np.zeros(64, np.float32)
        R.StoreAlign(out, reg, R.UpdateMask("float", 50)[0], 0)
        aj.Adds(src, out, 1.0, 64)
        assert core.sanitizer.reports == []
        R.StoreAlign(out, reg, R.UpdateMask("float", 51)[0], 0)
        aj.Adds(src, out, 1.0, 64)
        assert [(r.instruction.api, r.earlier.api, r.address, r.nbytes) for r in core.sanitizer.reports] == [
            ("Adds", "StoreAlign", out.addr + 200, 4)]          # lane 50 alone


def test_a_merging_duplicate_and_operations_of_two_sources():
    core, src, out = _core_with_tail(40, "float", 64)
    with core:
        a, b = R.RegTensor("float"), R.RegTensor("float")
        R.LoadAlign(a, src, 0)
        R.Duplicate(b, 1.0)
        R.Add(b, b, a, R.UpdateMask("float", 45)[0])       # lanes 40..44 read a's marked lanes; 45.. zeroed
        assert np.array_equal(np.nonzero(_lanes(b, 4))[0], np.arange(40, 45))
        R.Duplicate(b, 2.0, R.UpdateMask("float", 42)[0], R.MaskMergeMode.MERGING)   # 0..41 written, 42.. kept
        assert np.array_equal(np.nonzero(_lanes(b, 4))[0], np.arange(42, 45))
        R.Duplicate(a, a, R.CreateMask("float"))           # lane 0 of a is clean: every lane clean
        assert a._lane_shadow is None
        R.Axpy(b, a, 2.0, R.UpdateMask("float", 43)[0])    # reads dst too: lane 42 stays marked, 43.. zeroed
        assert np.array_equal(np.nonzero(_lanes(b, 4))[0], [42])


@pytest.mark.parametrize("reduce_type, out_lanes", [(R.ReduceType.SUM, 1), (R.ReduceType.MAX, 2)])
def test_a_reduction_marks_its_result_when_an_active_lane_was_marked(reduce_type, out_lanes):
    core, src, out = _core_with_tail(40, "float", 64)
    with core:
        reg, total = R.RegTensor("float"), R.RegTensor("float")
        R.LoadAlign(reg, src, 0)
        R.Reduce(total, reg, R.UpdateMask("float", 40)[0], reduce_type)
        assert total._lane_shadow is None
        R.Reduce(total, reg, R.CreateMask("float"), reduce_type)
        assert np.array_equal(np.nonzero(_lanes(total, 4))[0], np.arange(out_lanes))
        R.ReduceDataBlock(total, reg, R.CreateMask("float"), reduce_type)   # blocks of 8 floats: 5, 6, 7 marked
        assert np.array_equal(np.nonzero(_lanes(total, 4))[0], [5, 6, 7])
        R.PairReduceElem(total, reg, R.UpdateMask("float", 43)[0])         # pairs 20 and 21 read lanes 40..42
        assert np.array_equal(np.nonzero(_lanes(total, 4))[0], [20, 21])
        R.StoreAlign(out, total, R.UpdateMask("float", 20)[0], 0)
        assert core.sanitizer.reports == []


@pytest.mark.parametrize("layout", [R.RegLayout.ZERO, R.RegLayout.ONE])
@pytest.mark.parametrize("pair", [("half", "float"), ("float", "half"), ("int16", "float"), ("float", "int32")])
def test_cast_marks_exactly_the_lanes_converted_from_marked_ones(pair, layout):
    """Which source lane each destination lane converts (D65's layouts) is read from the Cast of the lane numbers
    themselves (1 .. 128, exact in every type here); the marks must name exactly the destination lanes of marked
    active source lanes."""
    src_t, dst_t = pair
    ssize, dsize = resolve(src_t).size, resolve(dst_t).size
    lanes = 256 // ssize
    written, active = lanes * 5 // 8, lanes * 7 // 8   # lanes written..active-1 marked and active
    narrowing = (src_t, dst_t) in (("float", "half"), ("float", "int32"))   # the rows asking a sat and round mode
    trait = R.CastTrait(layout if ssize != dsize else R.RegLayout.UNKNOWN,
                        R.SatMode.SAT if narrowing else R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING,
                        aj.RoundMode.CAST_RINT if narrowing else aj.RoundMode.UNKNOWN)
    core = aj.Core(DEVICE, sanitize="report")
    with core:
        index = core.local_tensor(src_t, lanes)
        index[:] = (np.arange(lanes) + 1).astype(resolve(src_t).np_dtype)
        src = core.local_tensor(src_t, lanes)
        src[:written] = np.ones(written, resolve(src_t).np_dtype)
        probe, reg, dst = R.RegTensor(src_t), R.RegTensor(src_t), R.RegTensor(dst_t)
        mask = R.UpdateMask(src_t, active)[0]
        R.LoadAlign(probe, index, 0)
        R.Cast(dst, probe, mask, trait)
        from_lane = dst.numpy().astype(np.int64) - 1        # the source lane each lane converted, or -1
        expected = (from_lane >= written) & (from_lane < active)
        assert expected.any()
        R.LoadAlign(reg, src, 0)
        R.Cast(dst, reg, mask, trait)
    assert np.array_equal(_lanes(dst, dsize), expected)


def test_add_carry_from_a_marked_lane_is_reported():
    core, src, out = _core_with_tail(40, "uint32", 64)
    with core:
        reg, dst, carry = R.RegTensor("uint32"), R.RegTensor("uint32"), R.MaskReg()
        R.LoadAlign(reg, src, 0)
        R.Add(carry, dst, reg, reg, R.UpdateMask("uint32", 40)[0])
        assert core.sanitizer.reports == []
        R.Add(carry, dst, reg, reg, R.CreateMask("uint32"))
        [rep] = core.sanitizer.reports
        assert (rep.instruction.api, rep.earlier.api, rep.address, rep.nbytes) == ("Add (carry)", "LoadAlign",
                                                                                   src.addr + 160, 96)
        assert "carry MaskReg is computed from values" in rep.fix


@pytest.mark.ascend_sanitize(checks="", reason="compares cores without a sanitizer and with one checking race only "
                                               "with fully sanitizing ones")
def test_init_off_and_cores_without_a_sanitizer_leave_no_marks():
    core, src, out = _core_with_tail(40, "float", 64, checks=("race",))
    plain = aj.Core(DEVICE)
    with core:
        reg = R.RegTensor("float")
        R.LoadAlign(reg, src, 0)
        assert reg._lane_shadow is None
        R.StoreAlign(out, reg, R.CreateMask("float"), 0)
    assert core.sanitizer.reports == []
    sanitized, _, _ = _core_with_tail(40, "float", 64)
    with sanitized:
        R.LoadAlign(reg, sanitized.local_tensor("float", 64), 0)
        assert reg._lane_shadow is not None
    with plain:
        R.LoadAlign(reg, plain.local_tensor("float", 64), 0)   # every lane from a core that keeps no shadow
        assert reg._lane_shadow is None


def _seeded(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


@pytest.mark.parametrize("name, T, load", LOADS, ids=[n for n, _, _ in LOADS])
def test_every_load_form_marks_exactly_the_register_bytes_uninitialised_bytes_feed(name, T, load):
    """Each register byte's source byte is read from the data (src byte i holds i + 1, over two runs); the marks
    must be exactly the register bytes whose source byte was never written."""
    n = 1024
    uninitialised = _seeded(name).random(n) < 0.08
    fed, marks = [], None
    for shift in (0, 8):
        core = aj.Core(DEVICE, sanitize="report")
        src = core.local_tensor("uint8", n)
        core.ub[src.addr:src.addr + n] = ((np.arange(n) + 1) >> shift & 0xFF).astype(np.uint8)
        for i in np.nonzero(~uninitialised)[0]:
            core.ub_written_by_host(src.addr + int(i), 1)
        regs = [R.RegTensor(T), R.RegTensor(T)]
        load(src, *regs)
        fed.append(np.concatenate([r.data[:256].astype(np.int64) for r in regs]))
        marks = np.concatenate([_marks(r) for r in regs])
        assert core.sanitizer.reports == []
    source = (fed[0] | fed[1] << 8) - 1
    expected = (source >= 0) & uninitialised[np.maximum(source, 0)]
    assert expected.any() or not marks.any()
    assert np.array_equal(marks, expected)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name, T, store", [s for s in STORES if "MaskReg" not in s[0]],
                         ids=[n for n, _, _ in STORES if "MaskReg" not in n])
def test_every_store_form_leaves_exactly_the_bytes_of_marked_register_bytes_uninitialised(name, T, store, seed):
    """Register bytes 0..511 of the two registers hold their index + 1 (two runs), so each output byte names the
    register byte it came from: the bytes left uninitialised must be exactly those from marked register bytes, and
    nothing is reported (nothing read them)."""
    uninitialised = np.zeros(512, np.bool_)
    rng = _seeded(f"{name} {seed}")
    run = 0 if seed == 0 else int(rng.integers(0, 448))   # seed 0: the first lanes, which every form stores
    uninitialised[run:run + 64] = True
    uninitialised[rng.choice(512, 3, replace=False)] = True
    left, stored = [], []
    for shift in (0, 8):
        core = aj.Core(DEVICE, sanitize="report")
        src, out = core.local_tensor("uint8", 512), core.local_tensor("uint8", 1024)
        core.ub[src.addr:src.addr + 512] = ((np.arange(512) + 1) >> shift & 0xFF).astype(np.uint8)
        for i in np.nonzero(~uninitialised)[0]:
            core.ub_written_by_host(src.addr + int(i), 1)
        out[:] = np.zeros(1024, np.uint8)
        regs = [R.RegTensor(T), R.RegTensor(T)]
        for k, r in enumerate(regs):
            R.LoadAlign(r, src, 256 // resolve(T).size * k)
        store(out, *regs)
        stored.append(out.numpy().astype(np.int64))
        left.append(~core.sanitizer.initialised[out.addr:out.addr + 1024])
        assert core.sanitizer.reports == []
    source = (stored[0] | stored[1] << 8) - 1            # the register byte each output byte holds, or -1
    expected = (source >= 0) & uninitialised[np.maximum(source, 0)]
    if seed == 0 and ((source >= 0) & (source < 64)).any():   # it writes some of the first lanes, seed 0's marks
        assert expected.any()
    for found in left:
        assert np.array_equal(found, expected)


def _vf_scale(dst, src, mask):
    R.Muls(dst, src, 2.0, mask)


def _vf_zero(dst):
    R.Duplicate(dst, 0.0)


SCALE, ZERO = R.simd_vf(_vf_scale), R.simd_vf(_vf_zero)


def test_a_compiled_vf_given_marked_registers_carries_their_marks():
    """A @simd_vf helper given registers and no tensor (session 54's lane hunt: it ran compiled, so its result got
    no marks and its arguments kept stale ones) runs uncompiled while a register it is given carries marks."""
    core, src, out = _core_with_tail(40, "float", 64)
    with core:
        x, y = R.RegTensor("float"), R.RegTensor("float")
        R.LoadAlign(x, src, 0)
        SCALE(y, x, R.CreateMask("float"))
        assert np.array_equal(np.nonzero(_lanes(y, 4))[0], np.arange(40, 64))
        ZERO(x)
        assert x._lane_shadow is None
        SCALE(x, x, R.CreateMask("float"))       # no marks given: the compiled run, which can make none
        assert x._lane_shadow is None and (x.numpy() == 0).all()


def test_each_lane_names_the_load_its_value_came_from():
    """Two loads' tails in one Add (session 54's lane hunt): the bytes a store writes from y's tail lanes name y's
    load and bytes, not x's (a register had kept one origin, its first source's)."""
    core = aj.Core(DEVICE, sanitize="report")
    x, y, out = (core.local_tensor("float", 64) for _ in range(3))
    x[:40] = np.ones(40, np.float32)
    y[:32] = np.ones(32, np.float32)
    with core:
        a, b, d = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
        R.LoadAlign(a, x, 0)
        R.LoadAlign(b, y, 0)
        R.Add(d, a, b, R.CreateMask("float"))        # lanes 32..39 from y's tail alone, 40.. from both
        R.StoreAlign(out, d, R.UpdateMask("float", 40)[0], 0)
        _copy_out(out, 40)
    [rep] = core.sanitizer.reports
    assert (rep.address, rep.nbytes) == (out.addr + 128, 32)
    assert f"UB byte {y.addr + 128}, 128 bytes" in rep.fix     # y's load: 32 never-written floats


def test_a_tail_load_met_again_shares_its_origin():
    """A loop's tail load on core after core (the same line, operand and bytes) makes one ORIGINS entry: the list
    grows with a kernel's distinct tail loads, not with its iterations or cores (the review's 600 entries for 200
    loads on three cores); the register made at one line is one entry more (lane_shadow.fresh)."""
    before = len(ORIGINS)
    for _ in range(3):
        core, src, out = _core_with_tail(40, "float", 64)
        with core:
            reg = R.RegTensor("float")
            for _ in range(50):
                R.LoadAlign(reg, src, 0)
    assert len(ORIGINS) - before <= 2


def _vf_partial(out, src, lanes, init):
    """An accumulator made fresh, `init` written whole first or not, then a MERGING Copy of `lanes` lanes into it
    and a store of every lane."""
    reg, acc = R.RegTensor("float"), R.RegTensor("float")
    if init:
        R.Duplicate(acc, 0.0)
    R.LoadAlign(reg, src, 0)
    R.Copy(acc, reg, R.UpdateMask("float", lanes)[0])
    R.StoreAlign(out, acc, R.CreateMask("float"), 0)


PARTIAL = R.simd_vf(_vf_partial)


@pytest.mark.parametrize("compiled", [True, False], ids=["simd_vf", "py_func"])
def test_a_fresh_registers_unwritten_lanes_are_reported_where_their_stored_bytes_are_read(compiled):
    """The hardware leaves a register's lanes undefined until written (the emulator's start at 0): a MERGING Copy
    into a fresh register keeps lanes 40..63 undefined, the store writes them, and the Memory-API read of those bytes
    is the init report, naming the store and the line that made the register; written whole first, it is clean."""
    for init in (False, True):
        core, src, out = _core_with_tail(64, "float", 64)
        with core:
            (PARTIAL if compiled else _vf_partial)(out, src, 40, init)
            aj.Adds(src, out, 1.0, 64)
        if init:
            assert core.sanitizer.reports == []
            continue
        [rep] = core.sanitizer.reports
        assert (rep.check, rep.instruction.api, rep.earlier.api, rep.address, rep.nbytes) == (
            "init", "Adds", "StoreAlign", out.addr + 160, 96)
        made = _vf_partial.__code__.co_firstlineno + 3
        assert f"register made at test_sanitizer_lanes.py:{made} that no instruction had written" in rep.fix
        assert "Duplicate(reg, 0)" in rep.fix


def test_a_fresh_register_written_by_each_kind_of_operation_is_clean():
    """Operations that write every lane clear a fresh register's marks: a full load, Duplicate, a ZEROING operation
    under a partial mask (the lanes it leaves are 0), a reduction, Arange, Cast; the marks stay where MERGING or a
    partial write leaves lanes, and a register made on a core without the init check carries none."""
    core, src, out = _core_with_tail(64, "float", 64)
    with core:
        loaded, duplicated, zeroed, reduced, ranged = (R.RegTensor("float") for _ in range(5))
        cast, kept = R.RegTensor("half"), R.RegTensor("float")
        assert all(_lanes(r, 4).all() for r in (loaded, duplicated, zeroed, reduced, ranged, kept))
        R.LoadAlign(loaded, src, 0)
        R.Duplicate(duplicated, 1.0)
        R.Adds(zeroed, loaded, 1.0, R.UpdateMask("float", 10)[0])
        R.Reduce(reduced, loaded, R.CreateMask("float"), R.ReduceType.SUM)
        R.Arange(ranged, 0.0)
        R.Cast(cast, loaded, R.CreateMask("float"), R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT,
                                                                 R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_RINT))
        assert all(r._lane_shadow is None for r in (loaded, duplicated, zeroed, reduced, ranged, cast))
        R.Duplicate(kept, 2.0, R.UpdateMask("float", 20)[0], R.MaskMergeMode.MERGING)
        assert np.array_equal(np.nonzero(_lanes(kept, 4))[0], np.arange(20, 64))
    quiet, _, _ = _core_with_tail(64, "float", 64, checks=("race",))
    with quiet:
        assert R.RegTensor("float")._lane_shadow is None
    assert R.RegTensor("float")._lane_shadow is None   # no current core


@R.simd_vf
def _nested_partial(dst, src):
    """A VF of registers alone, called from one given the tensors: a register it makes runs on its caller's core."""
    tmp = R.RegTensor("float")
    R.Copy(tmp, src, R.UpdateMask("float", 40)[0])
    R.Copy(dst, tmp)


def _vf_calls_nested(out, src):
    reg, res = R.RegTensor("float"), R.RegTensor("float")
    R.LoadAlign(reg, src, 0)
    R.Duplicate(res, 0.0)
    _nested_partial(res, reg)
    R.StoreAlign(out, res, R.CreateMask("float"), 0)


def test_a_register_made_in_a_nested_vf_of_registers_is_followed():
    """Review 58: a nested @simd_vf given registers only made its registers unmarked (no tensor named its core);
    it runs on its caller's sanitizing core, so lanes 40..63 the MERGING Copy leaves are reported."""
    core, src, out = _core_with_tail(64, "float", 64)
    with core:
        R.simd_vf(_vf_calls_nested)(out, src)
        aj.Adds(src, out, 1.0, 64)
    [rep] = core.sanitizer.reports
    assert (rep.earlier.api, rep.address, rep.nbytes) == ("StoreAlign", out.addr + 160, 96)
    assert "register made at test_sanitizer_lanes.py:" in rep.fix


def test_add_carry_from_a_fresh_registers_lane_is_reported_at_the_register():
    core, src, out = _core_with_tail(64, "uint32", 64)
    with core:
        reg, dst, carry = R.RegTensor("uint32"), R.RegTensor("uint32"), R.MaskReg()
        R.LoadAlign(reg, src, 0)
        R.Add(carry, dst, reg, reg, R.CreateMask("uint32"))
        assert core.sanitizer.reports == []
        fresh = R.RegTensor("uint32")
        R.Add(carry, dst, reg, fresh, R.UpdateMask("uint32", 3)[0])
        [rep] = core.sanitizer.reports
        assert (rep.instruction.api, rep.earlier.api, rep.space) == ("Add (carry)", "RegTensor", "register")
        assert "lanes of a register made at test_sanitizer_lanes.py:" in rep.fix


# --- a MaskReg() no instruction wrote (reg.py MaskReg._fresh) -------------------------------------------------------
def _vf_fresh_mask(out, src, write_first):
    """`MaskReg mask;` then Adds under it: undefined on the hardware unless an instruction writes it first."""
    mask = R.MaskReg()
    if write_first:
        R.Not(mask, R.CreateMask("float", R.MaskPattern.ALLF), R.CreateMask("float"))
    reg = R.RegTensor("float")
    R.LoadAlign(reg, src, 0)
    R.Adds(reg, reg, 1.0, mask)
    R.StoreAlign(out, reg, R.CreateMask("float"), 0)


FRESH_MASK = R.simd_vf(_vf_fresh_mask)


@pytest.mark.parametrize("compiled", [True, False], ids=["simd_vf", "py_func"])
def test_a_mask_register_read_before_any_instruction_wrote_it_is_reported(compiled):
    """The hardware leaves a MaskReg undefined until written (the emulator's words start at 0, which would hide the
    read): Adds under a MaskReg() is an init report naming the Adds, the line that made the MaskReg and what writes
    it (its lanes those of the zero words: ZEROING clears them); written first (Not: every lane), it is clean."""
    for write_first in (False, True):
        core, src, out = _core_with_tail(64, "float", 64)
        with core:
            (FRESH_MASK if compiled else _vf_fresh_mask)(out, src, write_first)
        assert np.array_equal(out.numpy(), np.arange(64, dtype=np.float32) + 1 if write_first else np.zeros(64))
        if write_first:
            assert core.sanitizer.reports == []
            continue
        [rep] = core.sanitizer.reports
        first = _vf_fresh_mask.__code__.co_firstlineno
        assert (rep.check, rep.kind, rep.instruction.api, rep.earlier.api, rep.operand, rep.space, rep.nbytes) == (
            "init", "uninitialised read", "Adds", "MaskReg", "mask", "register", 32)
        assert rep.instruction.where == f"test_sanitizer_lanes.py:{first + 7}"
        assert f"the MaskReg made at test_sanitizer_lanes.py:{first + 2} is read before any instruction" in rep.fix
        assert "CreateMask, UpdateMask or MoveMask" in rep.fix


def test_a_mask_register_written_by_each_kind_of_operation_reads_clean():
    """Every MaskReg write clears the mark: a load from written UB bytes, Not, And, Select, Move, Pack, UnPack,
    Interleave's two destinations, Add's carry; a MaskReg given its words, or made where no core sanitizes the init
    check, carries none. Reading each afterwards (as a mask, a source, a store's source) reports nothing."""
    core, src, out = _core_with_tail(64, "uint32", 64)
    full, none = R.CreateMask("uint32"), R.CreateMask("uint32", R.MaskPattern.ALLF)
    with core:
        masks = [R.MaskReg() for _ in range(10)]
        assert all(m._fresh is not None for m in masks)
        loaded, inverted, anded, selected, moved, packed, unpacked, inter0, inter1, carry = masks
        R.LoadAlign(loaded, src, 0)
        R.Not(inverted, none, full)
        R.And(anded, full, full, full)
        R.Select(selected, full, none, full)
        R.Move(moved, full)
        R.Pack(packed, full)
        R.UnPack(unpacked, full)
        R.Interleave(inter0, inter1, full, none, "uint32")
        reg, dst = R.RegTensor("uint32"), R.RegTensor("uint32")
        R.LoadAlign(reg, src, 0)
        R.Add(carry, dst, reg, reg, full)
        assert all(m._fresh is None for m in masks) and R.MaskReg((0, 0, 0, 0))._fresh is None
        for m in masks:
            R.Adds(dst, reg, 1, m)
            R.Not(R.MaskReg(words=(0, 0, 0, 0)), m, full)
        R.StoreAlign(out, loaded, 0)
        assert core.sanitizer.reports == []
    quiet, _, _ = _core_with_tail(64, "float", 64, checks=("race",))
    with quiet:
        assert R.MaskReg()._fresh is None
    assert R.MaskReg()._fresh is None   # no current core


def test_a_mask_register_read_as_a_source_or_stored_is_reported_with_its_operand():
    """A fresh MaskReg read as Not's src, And's src1, StoreAlign's source and a DIST_NORM store's mask: one report
    each, naming the operand, and one for a MaskReg given as several operands of a call; Interleave's destinations
    are written and a DIST_FIRST_ELEMENT store's mask ignored, not read."""
    core, src, out = _core_with_tail(64, "uint32", 64)
    full = R.CreateMask("uint32")
    with core:
        R.Not(R.MaskReg(), R.MaskReg(), full)
        R.And(R.MaskReg(), full, R.MaskReg(), full)
        R.StoreAlign(out, R.MaskReg(), 0)
        R.Interleave(R.MaskReg(), R.MaskReg(), full, full, "uint32")
        reg = R.RegTensor("uint32")
        R.LoadAlign(reg, src, 0)   # DIST_FIRST_ELEMENT stores ignore the mask (SPEC-2 11.6; port59c): not a read
        R.StoreAlign(out, reg, R.MaskReg(), 0, dist=R.StoreDist.DIST_FIRST_ELEMENT_B32)
        R.StoreAlign(out, reg, R.MaskReg(), 0)
        fresh = R.MaskReg()
        R.And(R.MaskReg(), fresh, fresh, fresh)   # one MaskReg read as three operands: one report (review 59)
        R.Not(R.MaskReg(), fresh, fresh)
    assert [(r.instruction.api, r.operand) for r in core.sanitizer.reports] == [
        ("Not", "src"), ("And", "src1"), ("StoreAlign", "src"), ("StoreAlign", "mask"), ("And", "src0"),
        ("Not", "src")]


def test_a_fresh_mask_register_in_raise_mode_refuses_before_the_instruction_changes_anything():
    """mode="raise": a SanitizerError, the destination register as it was; a MaskReg load the sanitizer refuses (a RAW
    race: its bytes copied in with no MTE2_V) leaves the MaskReg as it was, its mark included. Its bytes never
    written are no refusal: they mark its bits (lane_shadow.mask_loaded)."""
    core, src, out = _core_with_tail(32, "uint32", 64, mode="raise")
    with core:
        reg, dst = R.RegTensor("uint32"), R.RegTensor("uint32")
        R.LoadAlign(reg, src, 0, dist=R.LoadDist.DIST_BRC_B32)
        R.Duplicate(dst, 7)
        with pytest.raises(SanitizerError, match="the MaskReg made at"):
            R.Adds(dst, reg, 1, R.MaskReg())
        assert np.all(dst.numpy() == 7)
        mask = R.MaskReg()
        R.LoadAlign(mask, src[32], 0)
        assert mask._fresh is None and mask._lane_shadow is not None
        mask, copied = R.MaskReg(), core.local_tensor("uint32", 64)
        aj.DataCopy(copied, aj.GlobalTensor(np.zeros(64, np.uint32)), 64)
        with pytest.raises(SanitizerError, match="RAW"):
            R.LoadAlign(mask, copied, 0)
        assert mask._fresh is not None and mask.words == (0, 0, 0, 0) and mask._lane_shadow is None


@R.simd_vf
def _masked_adds(dst, src, mask):
    R.Adds(dst, src, 1, mask)


def test_a_fresh_mask_register_given_to_a_compiled_vf_of_registers_runs_it_uncompiled_and_is_reported():
    """A VF given registers alone runs compiled, where no read is followed: given a MaskReg no instruction wrote (on
    a sanitizing core) it runs uncompiled, so the read is reported; given a written one it reports nothing."""
    core, src, _ = _core_with_tail(64, "uint32", 64)
    with core:
        reg, dst = R.RegTensor("uint32"), R.RegTensor("uint32")
        R.LoadAlign(reg, src, 0)
        _masked_adds(dst, reg, R.CreateMask("uint32"))
        assert core.sanitizer.reports == []
        _masked_adds(dst, reg, R.MaskReg())
        [rep] = core.sanitizer.reports
        assert (rep.instruction.api, rep.earlier.api) == ("Adds", "MaskReg")


# --- a MaskReg's bits carry marks (lane_shadow.mask_loaded ...; docs/decisions.md "Sanitizer") ---------------------
def _vf_compare_recipe(dst, src, bits, count, full):
    """The Reg Compare refusal's recipe (port62a, GeluGradV2): bits a Memory-API Compare wrote, loaded into a MaskReg
    and unpacked twice to float lanes, select lanes; then an Add and a store under the data's UpdateMask, or (`full`)
    under the full mask."""
    m, r, z, s = R.MaskReg(), R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    R.Duplicate(z, 0.0)
    mask, count = R.UpdateMask("float", count)
    R.LoadAlign(r, src, 0)
    R.LoadAlign(m, bits, 0)
    R.MaskUnPack(m, m, R.HighLowPart.LOWEST)
    R.MaskUnPack(m, m, R.HighLowPart.LOWEST)
    R.Select(s, r, z, m)
    R.Add(s, s, z, R.CreateMask("float") if full else mask)
    R.StoreAlign(dst, s, R.CreateMask("float") if full else mask, 0)


COMPARE_RECIPE = R.simd_vf(_vf_compare_recipe)


def _compare_recipe(full):
    """40 floats written of 64 (x[3] NaN), a count-form Compare of 64 (the bits of lanes 40..63 computed from
    never-written lanes: sanitizer.Derived), the recipe's VF, then the copy-out of the 64 floats it may store."""
    core, src, out = _core_with_tail(40, "float", 64)
    x = np.arange(40, dtype=np.float32)
    x[3] = np.nan
    src[:40] = x
    bits = core.local_tensor("uint8", 32)
    with core:
        aj.Duplicate(bits.ReinterpretCast("uint16"), 0, 16)
        aj.Compare(bits, src, src, aj.CMPMODE.EQ, 64)
        assert core.sanitizer.reports == []
        COMPARE_RECIPE(out, src, bits, 40, full)
        assert core.sanitizer.reports == []          # the MaskReg load is not reported: its bits are marked
        gm = _copy_out(out, 64 if full else 40)
    return core, out, gm, np.where(np.isnan(x), 0, x)


def test_the_compare_recipes_mask_load_of_uninitialised_bits_is_clean_when_their_lanes_are_not_used():
    """port62a: every lane whose bit is uninitialised is zeroed by the masked Add and not stored; the MaskReg load
    had been reported."""
    core, _, gm, expected = _compare_recipe(False)
    assert core.sanitizer.reports == []
    assert np.array_equal(gm[:40], expected)


def test_the_compare_recipes_lanes_under_uninitialised_bits_are_reported_where_their_stored_bytes_are_read():
    """The same kernel under the full mask: lanes 40..63, selected by bits computed from never-written lanes, are
    stored; the copy-out reading them is the report, naming the store, and the Compare's text in its fix."""
    core, out, _, _ = _compare_recipe(True)
    [rep] = core.sanitizer.reports
    line = _vf_compare_recipe.__code__.co_firstlineno
    assert (rep.check, rep.instruction.api, rep.instruction.pipe, rep.address, rep.nbytes) == (
        "init", "DataCopy", "PIPE_MTE3", out.addr + 160, 96)
    assert (rep.earlier.api, rep.earlier.where) == ("StoreAlign", f"test_sanitizer_lanes.py:{line + 13}")
    assert "these mask bits were computed from lanes of src0 and src1 that nothing had written" in rep.fix
    assert "the count form whatever the data's length" in rep.fix


def _bits_core(written_bytes, mode="report"):
    """A sanitizing core and a 64-byte bits tensor whose first `written_bytes` bytes the host wrote (all ones)."""
    core = aj.Core(DEVICE, sanitize=mode)
    bits = core.local_tensor("uint8", 64)
    bits[:written_bytes] = np.full(written_bytes, 0xFF, np.uint8)
    return core, bits


def _bit_marks(mask):
    shadow = mask._lane_shadow
    return np.zeros(256, np.bool_) if shadow is None else shadow.origin >= 0


def _marked_bits(*ranges):
    marks = np.zeros(256, np.bool_)
    for r in ranges:
        marks[r] = True
    return marks


def test_a_mask_loaded_from_never_written_bytes_is_reported_where_a_lane_it_governs_is_read():
    """LoadAlign(mask) of 4 written bytes and 28 never written: no report at the load (bits 32..255 marked); Adds
    under it marks lanes 8.. (whether active is unknown), a full store leaves their bytes uninitialised, and the
    Memory-API read of them is the report, the mask's load named in the fix. A carry form under the mask is reported
    at the carry, naming its mask."""
    core, bits = _bits_core(4)
    src, out = core.local_tensor("int32", 64), core.local_tensor("int32", 64)
    src[:] = np.arange(64, dtype=np.int32)
    with core:
        mask, reg = R.MaskReg(), R.RegTensor("int32")
        line = test_a_mask_loaded_from_never_written_bytes_is_reported_where_a_lane_it_governs_is_read.__code__
        R.LoadAlign(mask, bits, 0)
        assert core.sanitizer.reports == []
        assert np.array_equal(_bit_marks(mask), _marked_bits(slice(32, 256)))
        R.LoadAlign(reg, src, 0)
        R.Adds(reg, reg, 1, mask)
        assert np.array_equal(np.nonzero(_lanes(reg, 4))[0], np.arange(8, 64))
        R.StoreAlign(out, reg, R.CreateMask("int32"), 0)
        assert core.sanitizer.reports == []
        aj.Adds(src, out, 1, 8)                         # the lanes under written bits alone: clean
        assert core.sanitizer.reports == []
        aj.Adds(src, out, 1, 64)
        [rep] = core.sanitizer.reports
        assert (rep.instruction.api, rep.earlier.api, rep.address, rep.nbytes) == (
            "Adds", "StoreAlign", out.addr + 32, 224)
        load_line = f"test_sanitizer_lanes.py:{line.co_firstlineno + 11}"
        assert f"these mask bits were loaded by LoadAlign [PIPE_V] at {load_line}" in rep.fix
        assert f"UB byte {bits.addr + 4}, 28 bytes" in rep.fix
        dst, carry = R.RegTensor("int32"), R.MaskReg()
        R.Add(carry, dst, reg, reg, R.UpdateMask("int32", 8)[0])      # bits 0, 4, .. 28: written
        assert len(core.sanitizer.reports) == 1 and carry._lane_shadow is None
        R.Add(carry, dst, src_reg := R.RegTensor("int32"), src_reg, mask)
        carry_rep = core.sanitizer.reports[1]
        assert (carry_rep.instruction.api, carry_rep.operand, carry_rep.earlier.where) == (
            "Add (carry)", "mask", load_line)


def test_operations_predicated_by_marked_bits_mark_the_lanes_they_govern():
    """Select's selector, Copy's, Duplicate's and a reduction's mask, Cast's: a lane under a marked bit is marked
    (active or not is unknown); lanes under clean bits are as before. A DATA_BLOCK_COPY load under it too."""
    core, bits = _bits_core(4)
    src = core.local_tensor("float", 64)
    src[:] = np.ones(64, np.float32)
    with core:
        mask, a, b = R.MaskReg(), R.RegTensor("float"), R.RegTensor("float")
        R.LoadAlign(mask, bits, 0)                      # float lanes 8..63 under marked bits
        R.LoadAlign(a, src, 0)
        R.Duplicate(b, 2.0)
        tail = np.arange(8, 64)
        for op in (lambda: R.Select(b, a, b, mask), lambda: R.Copy(b, a, mask), lambda: R.Duplicate(b, 3.0, mask),
                   lambda: R.Duplicate(b, a, mask), lambda: R.Muls(b, a, 2.0, mask),
                   lambda: R.LoadAlign(b, src, 0, data_block_stride=1, mask=mask)):
            R.Duplicate(b, 2.0)
            op()
            assert np.array_equal(np.nonzero(_lanes(b, 4))[0], tail)
        R.Reduce(b, a, mask, R.ReduceType.SUM)
        assert np.array_equal(np.nonzero(_lanes(b, 4))[0], [0])
        half = R.RegTensor("half")
        R.Cast(half, a, mask, R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, R.MaskMergeMode.ZEROING,
                                           aj.RoundMode.CAST_RINT))
        assert _lanes(half, 2)[2 * tail].all() and not _lanes(half, 2)[:16].any()
    assert core.sanitizer.reports == []


def test_mask_operations_carry_the_marks_bit_by_bit():
    """Bits 32..255 marked (4 bytes written): And / Or / Xor / Not / Move / Select mark the bits their clean operand
    bits do not decide; Pack / UnPack / Interleave move them with the bits; a full overwrite (a load of written
    bytes, CreateMask, And of clean masks) clears them."""
    core, bits = _bits_core(4)
    full, none = R.MaskReg((2**64 - 1,) * 4), R.MaskReg((0,) * 4)
    low = R.MaskReg((2**64 - 1, 0, 0, 0))              # bits 0..63: a clean UpdateMask-like mask
    with core:
        m, d, d1 = R.MaskReg(), R.MaskReg(), R.MaskReg()
        R.LoadAlign(m, bits, 0)
        tail = _marked_bits(slice(32, 256))
        for op, expected in [
                (lambda: R.And(d, m, low, full), _marked_bits(slice(32, 64))),      # low's clean 0s decide
                (lambda: R.And(d, m, full, low), _marked_bits(slice(32, 64))),      # the mask's clean 0s too
                (lambda: R.Or(d, m, low, full), _marked_bits(slice(64, 256))),      # low's clean 1s decide
                (lambda: R.Xor(d, m, low, full), tail),
                (lambda: R.Not(d, m, low), _marked_bits(slice(32, 64))),
                (lambda: R.Move(d, m), tail),
                (lambda: R.Move(d, m, low), _marked_bits(slice(32, 64))),
                (lambda: R.Select(d, m, full, low), _marked_bits(slice(32, 64))),   # a clean selector
                (lambda: R.Select(d, full, full, m), _marked_bits()),               # equal clean sources
                (lambda: R.Select(d, low, full, m), _marked_bits(slice(64, 256))),
                (lambda: R.Pack(d, m), _marked_bits(slice(16, 128))),               # bit k <- bit 2k
                (lambda: R.Pack(d, m, R.HighLowPart.HIGHEST), _marked_bits(slice(144, 256))),
                (lambda: R.UnPack(d, m), _marked_bits(slice(64, 256, 2))),          # bit 2k <- bit k
                (lambda: R.UnPack(d, none), _marked_bits())]:
            op()
            assert np.array_equal(_bit_marks(d), expected)
        # Interleave's bits where the operation itself puts the marked ones (a clean run on them as words)
        marked_words = np.packbits(tail, bitorder="little").view("<u8")
        for T in ("uint8", "half", "float"):
            for operation in (R.Interleave, R.DeInterleave):
                e0, e1 = R.MaskReg(), R.MaskReg()
                operation(e0, e1, none, R.MaskReg(marked_words), T)
                operation(d, d1, none, m, T)
                assert np.array_equal(_bit_marks(d), _mask_bits(e0.words)) and _bit_marks(d).any()
                assert np.array_equal(_bit_marks(d1), _mask_bits(e1.words))
        R.MaskUnPack(m, m, R.HighLowPart.LOWEST)        # in place: m is its own source
        assert np.array_equal(_bit_marks(m), _marked_bits(slice(64, 256, 2)))
        R.And(m, full, low, full)
        assert m._lane_shadow is None
        R.LoadAlign(m, bits, 32)
        assert m._lane_shadow is not None
        bits[32:] = np.zeros(32, np.uint8)
        R.LoadAlign(m, bits, 32)                        # every byte written: clean
        assert m._lane_shadow is None
        R.LoadAlign(d, bits, 0, dist=R.MaskDist.DIST_US)   # 16 bytes, each bit doubled: bits 64.. marked
        assert np.array_equal(_bit_marks(d), _marked_bits(slice(64, 256)))
    assert core.sanitizer.reports == []


@pytest.mark.parametrize("dist, left", [(R.MaskDist.DIST_NORM, slice(4, 32)), (R.MaskDist.DIST_PACK, slice(2, 16))])
def test_a_mask_store_of_marked_bits_leaves_their_bytes_uninitialised_until_read(dist, left):
    """A MaskReg store writes the bytes of marked bits as uninitialised (NORM: byte k holds bits 8k..; PACK: the even
    bits, byte k bits 16k..); the copy-out that reads them is the report, naming the store and the mask's load."""
    core, bits = _bits_core(4)
    out = core.local_tensor("uint8", 32)
    out[:] = np.zeros(32, np.uint8)
    with core:
        m = R.MaskReg()
        R.LoadAlign(m, bits, 0)
        R.StoreAlign(out, m, 0, dist=dist)
        written = core.sanitizer.initialised[out.addr:out.addr + 32]
        assert not written[left].any() and written[:left.start].all()
        assert core.sanitizer.reports == []
        R.LoadAlign(again := R.MaskReg(), out, 0)       # loaded back: the first load's marks, no report
        assert _bit_marks(again)[8 * left.start:].any() and core.sanitizer.reports == []
        aj.SetFlag(0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(0, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(aj.GlobalTensor(np.zeros(32, np.uint8)), out, 32)
    [rep] = core.sanitizer.reports
    assert (rep.instruction.api, rep.earlier.api, rep.address, rep.nbytes) == (
        "DataCopy", "StoreAlign", out.addr + left.start, left.stop - left.start)
    assert "these mask bits were loaded by LoadAlign" in rep.fix


def test_a_compiled_vf_given_a_marked_mask_runs_uncompiled():
    """A @simd_vf of registers alone given a MaskReg carrying marks runs uncompiled, so its result is marked."""
    core, bits = _bits_core(4)
    with core:
        mask, x, y = R.MaskReg(), R.RegTensor("uint32"), R.RegTensor("uint32")
        R.Duplicate(x, 1)
        R.LoadAlign(mask, bits, 0)
        _masked_adds(y, x, mask)
        assert np.array_equal(np.nonzero(_lanes(y, 4))[0], np.arange(8, 64))
