"""The memory check through a MaskReg's bits (session 67; SPEC-2 10, 11.6; ascend_jit/lane_shadow.py mask_loaded): on
a core made with bounds="ub" a MaskReg load (NORM 32 bytes, US 16, DS 64) reads past a bit tensor that a Memory-API
Compare of a tail tile filled with fewer bytes, as the device does. It is not reported at the load: the bits fed by
bytes outside the tensor carry a memory origin, followed as bits of uninitialised bytes are (Pack / UnPack, And,
MaskReg stores and reloads), and the report comes where a lane such a bit governs is used, naming the load. A MaskReg
store past its tensor stays reported at the store, and a default core refuses the load."""
import inspect

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.errors import OutOfBoundsError, SanitizerError
from ascend_jit.lane_shadow import ORIGINS

R = aj.Reg
DEVICE = "ascend950"
# per distribution: its MaskDist, the bit tensor's bytes, the floats a Memory-API Compare writes them for (one bit
# each), and the bytes the load reads; in each the loaded bits 128..255 come from past the tensor (NORM: bytes
# 16..31, US: 8..15 doubled, DS: 32..63 halved)
DISTS = {"NORM": (R.MaskDist.DIST_NORM, 16, 128, 32), "US": (R.MaskDist.DIST_US, 8, 64, 16),
         "DS": (R.MaskDist.DIST_DS, 32, 256, 64)}
KEPT = 128   # the uint8 lanes the data's bits govern


def _core(dist, written=True, checks=None, mode="report"):
    """A bounds="ub" sanitizing core: a bit tensor a count-form Compare of host-written floats fills (x[5] NaN: one
    clear bit), the bytes past it up to the load's end (written by the host unless `written` is False), a uint8
    source of 256 lanes and an output the host wrote whole (so only what a store leaves marked is reported)."""
    _, nbytes, count, _ = DISTS[dist]
    core = aj.Core(DEVICE, bounds="ub", sanitize=aj.SanitizeConfig(mode=mode, checks=checks) if checks else mode)
    x = core.local_tensor("float", count)
    bits = core.local_tensor("uint8", nbytes)
    after = core.local_tensor("uint8", 64)      # the loads read past `bits` the gap to its 32-byte end, then this
    src, out = core.local_tensor("uint8", 256), core.local_tensor("uint8", 256)
    values = np.arange(count, dtype=np.float32)
    values[5] = np.nan
    x[:] = values
    src[:] = (np.arange(256) % 251 + 1).astype(np.uint8)
    out[:] = np.zeros(256, np.uint8)
    if written:
        core.ub[bits.addr + nbytes:after.addr + 64] = 0xA5
        core.ub_written_by_host(bits.addr + nbytes, after.addr + 64 - bits.addr - nbytes)
    with core:
        aj.Compare(bits, x, x, aj.CMPMODE.EQ, count)
    return core, bits, src, out


def _vf_select(out, src, bits, dist, count, anded):
    """The bits loaded into a MaskReg select uint8 lanes, stored under UpdateMask(count); or (`anded`) the MaskReg
    And-ed with that mask first and the select stored whole."""
    m, a, z, s = R.MaskReg(), R.RegTensor("uint8"), R.RegTensor("uint8"), R.RegTensor("uint8")
    keep = R.UpdateMask("uint8", count)[0]
    R.Duplicate(z, 0)
    R.LoadAlign(a, src, 0)
    R.LoadAlign(m, bits, 0, dist=dist)
    if anded:
        R.And(m, m, keep, R.CreateMask("uint8"))
        keep = R.CreateMask("uint8")
    R.Select(s, a, z, m)
    R.StoreAlign(out, s, keep, 0)


SELECT = R.simd_vf(_vf_select)


def _line(function, text):
    """The line of `function` holding `text`."""
    lines, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(lines) if text in line)


LOAD_LINE = _line(_vf_select, "R.LoadAlign(m, bits")


def _copy_out(out):
    """The copy-out after the VF (V -> MTE3): the UB read of what it stored."""
    aj.SetFlag(0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(0, event=aj.HardEvent.V_MTE3)
    gm = np.zeros(256, np.uint8)
    aj.DataCopy(aj.GlobalTensor(gm), out, 256)
    return gm


def _assert_use(rep, dist, bits, out, first, nbytes, load_line=LOAD_LINE, test_file="test_sanitizer_mask_memory"):
    """One memory report of the copy-out reading out[first:first + nbytes], stored from lanes under bits loaded from
    past `bits`, its fix naming the MaskReg load."""
    _, size, _, loaded = DISTS[dist]
    assert (rep.check, rep.kind, rep.instruction.api, rep.address, rep.nbytes) == (
        "memory", "lane loaded from outside the tensor used", "DataCopy", out.addr + first, nbytes)
    assert f"these mask bits were loaded by LoadAlign [PIPE_V] at {test_file}.py:{load_line}" in rep.fix
    lo, hi = bits.addr, bits.addr + size
    assert f"outside its tensor [{lo}, {hi}) (UB byte {hi}, {loaded - size} bytes" in rep.fix
    assert "enlarge the tensor" in rep.fix and "do not let these bits govern a used lane" in rep.fix


@pytest.mark.parametrize("anded", [False, True], ids=["store under UpdateMask", "And with UpdateMask"])
@pytest.mark.parametrize("written", [True, False], ids=["bytes after written", "never written"])
@pytest.mark.parametrize("compiled", [True, False], ids=["simd_vf", "py_func"])
@pytest.mark.parametrize("dist", list(DISTS))
def test_a_mask_load_past_the_bits_whose_bits_govern_only_lanes_kept_out_is_clean(dist, compiled, written, anded):
    """The vendor idiom: the bits past a tail Compare's output govern lanes 128.., which UpdateMask(128) keeps out of
    the store (or out of the MaskReg by an And): no report, at the load or at the copy-out."""
    core, bits, src, out = _core(dist, written)
    with core:
        (SELECT if compiled else SELECT.py_func)(out, src, bits, DISTS[dist][0], KEPT, anded)
        gm = _copy_out(out)
    assert core.sanitizer.reports == []
    lanes = np.arange(256)
    # the Compare's element whose bit governs lane i: NORM bit i, US doubles each bit, DS keeps every other one
    element = {"NORM": lanes, "US": lanes // 2, "DS": 2 * lanes}[dist]
    assert np.array_equal(gm[:KEPT], np.where(element[:KEPT] == 5, 0, src.numpy()[:KEPT]))
    assert not gm[KEPT:].any()


@pytest.mark.parametrize("anded", [False, True], ids=["store under UpdateMask", "And with UpdateMask"])
@pytest.mark.parametrize("written", [True, False], ids=["bytes after written", "never written"])
@pytest.mark.parametrize("compiled", [True, False], ids=["simd_vf", "py_func"])
@pytest.mark.parametrize("dist", list(DISTS))
def test_lanes_governed_by_bits_from_past_the_tensor_are_reported_where_their_stored_bytes_are_read(
        dist, compiled, written, anded):
    """UpdateMask(200): lanes 128..199 under bits loaded from past the tensor are stored; the VF reports nothing, and
    the copy-out reading them is one memory report (never written as well: the memory report alone), naming the
    store and, in its fix, the MaskReg load."""
    core, bits, src, out = _core(dist, written)
    with core:
        (SELECT if compiled else SELECT.py_func)(out, src, bits, DISTS[dist][0], 200, anded)
        assert core.sanitizer.reports == []
        _copy_out(out)
    [rep] = core.sanitizer.reports
    _assert_use(rep, dist, bits, out, KEPT, 200 - KEPT)
    assert (rep.earlier.api, rep.earlier.where) == (
        "StoreAlign", f"test_sanitizer_mask_memory.py:{_line(_vf_select, 'R.StoreAlign(out')}")


@pytest.mark.parametrize("dist", list(DISTS))
def test_the_load_marks_exactly_the_bits_the_outside_bytes_feed_with_a_memory_origin(dist):
    d, _, _, _ = DISTS[dist]
    core, bits, _, _ = _core(dist)
    with core:
        mask = R.MaskReg()
        R.LoadAlign(mask, bits, 0, dist=d)
    assert core.sanitizer.reports == []
    origin = mask._lane_shadow.origin
    assert np.array_equal(origin >= 0, np.arange(256) >= 128)
    assert {ORIGINS[k].check for k in origin[origin >= 0]} == {"memory"}


def test_every_bit_of_an_outside_byte_is_marked_whatever_its_shadow_says():
    """The bytes past the tensor are another Compare's bits, of 9 floats written of 64: that Compare's record names
    lanes 9..63's bits alone as unknown (derived_bits), but every bit of a byte outside the load's tensor is the
    memory check's (lanes 0..8's, DS bits 128..132, included)."""
    core = aj.Core(DEVICE, bounds="ub", sanitize="report")
    bits, other, x = core.local_tensor("uint8", 32), core.local_tensor("uint8", 32), core.local_tensor("float", 64)
    assert other.addr == bits.addr + 32
    bits[:] = np.zeros(32, np.uint8)
    x[:9] = np.ones(9, np.float32)
    with core:
        aj.Duplicate(other.ReinterpretCast("uint16"), 0, 16)
        aj.Compare(other, x, x, aj.CMPMODE.EQ, 64)
        assert core.sanitizer.reports == []
        mask = R.MaskReg()
        R.LoadAlign(mask, bits, 0, dist=R.MaskDist.DIST_DS)
    assert core.sanitizer.reports == []
    origin = mask._lane_shadow.origin
    assert np.array_equal(origin >= 0, np.arange(256) >= 128)
    assert {ORIGINS[k].check for k in origin[origin >= 0]} == {"memory"}


def _vf_moved(out, src, bits, part, count, pack):
    """A NORM load of a 16-byte bit tensor (bits 128..255 from past it), then Pack (half lanes: src bit 2k to bit k
    of the `part` half) or UnPack twice (float lanes: bit 4j from bit j of the `part` half's first 64), a Select and
    a store under UpdateMask(count)."""
    m = R.MaskReg()
    T = "half" if pack else "float"
    a, z, s = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    R.Duplicate(z, 0.0)
    R.LoadAlign(a, src, 0)
    R.LoadAlign(m, bits, 0)
    if pack:
        R.MaskPack(m, m, part)
    else:
        R.MaskUnPack(m, m, part)
        R.MaskUnPack(m, m, R.HighLowPart.LOWEST)
    R.Select(s, a, z, m)
    R.StoreAlign(out, s, R.UpdateMask(T, count)[0], 0)


MOVED = R.simd_vf(_vf_moved)


@pytest.mark.parametrize("compiled", [True, False], ids=["simd_vf", "py_func"])
@pytest.mark.parametrize("pack, part, count, reported", [
    (False, "LOWEST", 64, None),        # UnPack of the low half: bits 0..63, inside the tensor, govern every lane
    (False, "HIGHEST", 0, None),        # bits from past it govern every float lane: none stored, none used
    (False, "HIGHEST", 10, (0, 40)),    # ... lanes 0..9 stored
    (True, "LOWEST", 32, None),         # Pack of the low half: half lanes 0..31 from bits 0..126, inside
    (True, "LOWEST", 50, (64, 36)),     # ... lanes 32..49 from bits 128..(past the tensor)
])
def test_bits_moved_by_pack_or_unpack_are_reported_where_the_lanes_they_govern_are_used(compiled, pack, part, count,
                                                                                      reported):
    core, bits, _, out = _core("NORM")
    src = core.local_tensor("uint8", 256)
    src[:] = np.full(256, 0x3C, np.uint8)
    with core:
        (MOVED if compiled else MOVED.py_func)(out.ReinterpretCast("half" if pack else "float"),
                                               src.ReinterpretCast("half" if pack else "float"), bits,
                                               getattr(R.HighLowPart, part), count, pack)
        assert core.sanitizer.reports == []
        _copy_out(out)
    if reported is None:
        assert core.sanitizer.reports == []
        return
    [rep] = core.sanitizer.reports
    _assert_use(rep, "NORM", bits, out, *reported, load_line=_line(_vf_moved, "R.LoadAlign(m, bits"))


def test_bits_stored_and_reloaded_keep_the_loads_origin_to_their_use():
    """A MaskReg spilled to a buffer and reloaded (review 62's path): the reloaded bits 128..255 carry the first
    load's memory origin, and the use is reported naming it; its bits 0..127 are clean."""
    core, bits, src, out = _core("NORM")
    spill = core.local_tensor("uint8", 32)
    with core:
        m, reloaded, a, z, s = R.MaskReg(), R.MaskReg(), R.RegTensor("uint8"), R.RegTensor("uint8"), \
            R.RegTensor("uint8")
        load_line = inspect.currentframe().f_lineno + 1
        R.LoadAlign(m, bits, 0)
        R.StoreAlign(spill, m, 0)
        R.LoadAlign(reloaded, spill, 0)
        assert core.sanitizer.reports == []
        origin = reloaded._lane_shadow.origin
        assert np.array_equal(origin >= 0, np.arange(256) >= 128)
        assert {ORIGINS[k].check for k in origin[origin >= 0]} == {"memory"}
        R.Duplicate(z, 0)
        R.LoadAlign(a, src, 0)
        R.Select(s, a, z, reloaded)
        R.StoreAlign(out, s, R.UpdateMask("uint8", 130)[0], 0)
        _copy_out(out)
    [rep] = core.sanitizer.reports
    _assert_use(rep, "NORM", bits, out, KEPT, 2, load_line=load_line)


def test_a_carry_under_bits_from_past_the_tensor_is_reported_at_the_carry():
    core, bits, _, _ = _core("NORM")
    with core:
        m, reg, dst, carry = R.MaskReg(), R.RegTensor("uint32"), R.RegTensor("uint32"), R.MaskReg()
        R.Duplicate(reg, 1)
        R.LoadAlign(m, bits, 0)                   # bits 128..: uint32 lanes 32..63
        R.And(m, m, R.UpdateMask("uint32", 32)[0], R.CreateMask("uint32"))
        R.Add(carry, dst, reg, reg, m)            # bits 128.. cleared by the And: clean
        assert core.sanitizer.reports == []
        R.LoadAlign(m, bits, 0)
        R.Add(carry, dst, reg, reg, m)
    [rep] = core.sanitizer.reports
    assert (rep.check, rep.instruction.api, rep.operand, rep.earlier.api) == (
        "memory", "Add (carry)", "mask", "LoadAlign")
    assert "these mask bits were loaded by LoadAlign" in rep.fix


def test_a_mask_register_store_past_its_tensor_is_still_reported_at_the_store():
    core, bits, _, _ = _core("NORM")
    with core:
        m = R.MaskReg()
        R.LoadAlign(m, bits, 0, dist=R.MaskDist.DIST_US)            # 16 bytes: inside
        assert core.sanitizer.reports == [] and m._lane_shadow is None
        R.StoreAlign(bits, m, 0)                                      # NORM: 32 bytes into a 16-byte tensor
    [rep] = core.sanitizer.reports
    assert (rep.check, rep.kind, rep.instruction.api, rep.address, rep.nbytes) == (
        "memory", "access outside the tensor", "StoreAlign", bits.addr + 16, 16)


@pytest.mark.ascend_sanitize(checks="", reason="compares the memory check's absence and presence in the checks")
def test_without_the_memory_check_written_outside_bytes_are_clean_and_unwritten_ones_init():
    for written, expected in ((True, []), (False, [("init", "uninitialised read")])):
        core, bits, src, out = _core("NORM", written, checks=("race", "init"))
        with core:
            _vf_select(out, src, bits, R.MaskDist.DIST_NORM, 200, False)
            _copy_out(out)
        assert [(r.check, r.kind) for r in core.sanitizer.reports] == expected
        if not written:
            assert "these mask bits were loaded by LoadAlign" in core.sanitizer.reports[0].fix
    core, bits, src, out = _core("NORM", False, checks=("race", "memory"))   # no init check: the memory report
    with core:
        _vf_select(out, src, bits, R.MaskDist.DIST_NORM, 200, False)
        _copy_out(out)
    [rep] = core.sanitizer.reports
    _assert_use(rep, "NORM", bits, out, KEPT, 200 - KEPT)


def test_raise_mode_raises_at_the_use_not_at_the_load():
    core, bits, src, out = _core("NORM", mode="raise")
    with core:
        _vf_select(out, src, bits, R.MaskDist.DIST_NORM, 200, False)   # the load and the store: no report
        with pytest.raises(SanitizerError, match=r"lane loaded from outside the tensor used: DataCopy .* after "
                                                 r"StoreAlign .*these mask bits were loaded by LoadAlign"):
            _copy_out(out)


def test_a_default_core_still_refuses_the_load():
    core = aj.Core(DEVICE, sanitize="report")
    bits = core.local_tensor("uint8", 16)
    bits[:] = np.zeros(16, np.uint8)
    with core:
        m = R.MaskReg()
        with pytest.raises(OutOfBoundsError, match="byte 16 lies outside the operand's tensor"):
            R.LoadAlign(m, bits, 0)
    assert core.sanitizer.reports == []
