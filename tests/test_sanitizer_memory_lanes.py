"""The memory check through Reg register lanes (session 66; SPEC-2 10; ascend_jit/lane_shadow.py): on a core made
with bounds="ub" a Reg load into data registers reads past its tensor as the device does (a whole-vector load of a
tile that is not whole vectors, the vendor's 950 idiom), so it is not reported at the load; the register bytes fed by
bytes outside the tensor are marked as uninitialised ones are, and the memory report comes where such a lane is used
(its stored bytes read, a carry), naming the load. Stores past the tensor and Memory-API accesses stay reported
where they are made. A MaskReg load past its tensor is followed through its bits (session 67):
test_sanitizer_mask_memory.py."""
import inspect

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.errors import SanitizerError
from ascend_jit.lane_shadow import ORIGINS
from test_sanitizer_lanes import _copy_out, _marks   # the copy-out after the VF: the UB read of what it stored
from test_sanitizer_reg import LOADS

R = aj.Reg
DEVICE = "ascend950"
N = 40   # the tile: 40 floats, 160 bytes; a whole-vector load reads 96 bytes past it


def _core(mode="report", checks=None, written=True):
    """A bounds="ub" sanitizing core, a tile `src` of N floats written by the host, the 96 bytes after it (another
    tensor's, written unless `written` is False) and an output tile of 64 floats."""
    core = aj.Core(DEVICE, bounds="ub",
                   sanitize=aj.SanitizeConfig(mode=mode, checks=checks) if checks else mode)
    src = core.local_tensor("float", N)
    after = core.local_tensor("float", 64 - N)
    out = core.local_tensor("float", 64)
    assert after.addr == src.addr + 4 * N   # the load's extra bytes are `after`'s
    src[:] = np.arange(N, dtype=np.float32)
    if written:
        after[:] = np.full(64 - N, 7.0, np.float32)
    return core, src, out


def _vf_tail(out, src, count, full):
    """The vendor's tail: a whole-vector load, the compute and the store under UpdateMask(count) (or full masks)."""
    mask = R.CreateMask("float") if full else R.UpdateMask("float", count)[0]
    reg = R.RegTensor("float")
    R.LoadAlign(reg, src, 0)
    R.Muls(reg, reg, 2.0, mask)
    R.StoreAlign(out, reg, mask, 0)


TAIL = R.simd_vf(_vf_tail)
LOAD_LINE = _vf_tail.__code__.co_firstlineno + 4
STORE_LINE = LOAD_LINE + 2


def _line(function, text):
    """The line of `function` holding `text`."""
    lines, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(lines) if text in line)


def _assert_use(rep, src, reader="DataCopy", operand="src", load_line=LOAD_LINE):
    """One memory report of a lane loaded from outside src, made at `reader`, naming the load."""
    assert (rep.check, rep.kind, rep.instruction.api, rep.operand) == (
        "memory", "lane loaded from outside the tensor used", reader, operand)
    assert f"LoadAlign [PIPE_V] at test_sanitizer_memory_lanes.py:{load_line}" in rep.fix
    lo, hi = src.addr, src.addr + 4 * N
    assert f"outside its tensor [{lo}, {hi}) (UB byte {hi}, 96 bytes" in rep.fix
    assert "enlarge the tensor" in rep.fix and "UpdateMask" in rep.fix


@pytest.mark.parametrize("written", [True, False], ids=["bytes after written", "never written"])
@pytest.mark.parametrize("compiled", [True, False], ids=["simd_vf", "py_func"])
def test_a_tail_load_past_the_tensor_whose_lanes_the_mask_keeps_out_is_clean(compiled, written):
    core, src, out = _core(written=written)
    with core:
        (TAIL if compiled else _vf_tail)(out, src, N, False)
        gm = _copy_out(out, N)
    assert core.sanitizer.reports == []
    assert np.array_equal(gm[:N], np.arange(N, dtype=np.float32) * 2)


@pytest.mark.parametrize("written", [True, False], ids=["bytes after written", "never written"])
@pytest.mark.parametrize("compiled", [True, False], ids=["simd_vf", "py_func"])
def test_a_full_store_of_the_outside_lanes_is_reported_where_its_bytes_are_read(compiled, written):
    """Never written as well as outside: the memory report alone (the more specific cause), no init report."""
    core, src, out = _core(written=written)
    with core:
        (TAIL if compiled else _vf_tail)(out, src, N, True)
        assert core.sanitizer.reports == []        # stored: not yet used
        _copy_out(out, N)                           # the data's bytes alone: clean
        assert core.sanitizer.reports == []
        _copy_out(out, 64)
    [rep] = core.sanitizer.reports
    _assert_use(rep, src)
    assert (rep.address, rep.nbytes) == (out.addr + 4 * N, 96)   # exactly the bytes stored from outside lanes
    assert (rep.earlier.api, rep.earlier.where) == ("StoreAlign", f"test_sanitizer_memory_lanes.py:{STORE_LINE}")


def test_a_reduction_over_the_outside_lanes_is_reported_where_its_result_is_read():
    core, src, out = _core()
    with core:
        reg, total = R.RegTensor("float"), R.RegTensor("float")
        R.LoadAlign(reg, src, 0)
        R.Reduce(total, reg, R.UpdateMask("float", N)[0], R.ReduceType.SUM)   # the data's lanes: clean
        assert total._lane_shadow is None
        R.Reduce(total, reg, R.CreateMask("float"), R.ReduceType.SUM)
        R.StoreAlign(out, total, R.UpdateMask("float", 1)[0], 0)
        assert core.sanitizer.reports == []
        aj.SetFlag(0, event=aj.HardEvent.V_S)
        aj.WaitFlag(0, event=aj.HardEvent.V_S)
        out.GetValue(0)
    [rep] = core.sanitizer.reports
    _assert_use(rep, src, "GetValue", "tensor",
                _line(test_a_reduction_over_the_outside_lanes_is_reported_where_its_result_is_read, "R.LoadAlign("))
    assert (rep.address, rep.nbytes, rep.earlier.api) == (out.addr, 4, "StoreAlign")


def test_a_cast_of_the_outside_lanes_is_reported_where_its_stored_bytes_are_read():
    core, src, out = _core()
    with core:
        reg, half = R.RegTensor("float"), R.RegTensor("half")
        R.LoadAlign(reg, src, 0)
        trait = R.CastTrait(R.RegLayout.ZERO, R.SatMode.SAT, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_RINT)
        R.Cast(half, reg, R.CreateMask("float"), trait)
        R.StoreAlign(out.ReinterpretCast("half"), half, R.CreateMask("half"), 0)   # 64 lanes: the 128 first bytes
        assert core.sanitizer.reports == []
        gm = np.zeros(128, np.float16)
        aj.SetFlag(0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(0, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(aj.GlobalTensor(gm), out.ReinterpretCast("half"), 128)
    reports = core.sanitizer.reports
    assert [r.check for r in reports] == ["memory"]
    _assert_use(reports[0], src,
                load_line=_line(test_a_cast_of_the_outside_lanes_is_reported_where_its_stored_bytes_are_read,
                                "R.LoadAlign("))
    # layout ZERO: float lane i to half lane 2i; lanes 40..63 to the halves at bytes 160, 164, ... 252
    assert (reports[0].address, reports[0].nbytes, reports[0].runs) == (out.addr + 4 * N, 48, 24)


def test_a_carry_from_an_outside_lane_is_reported_where_it_is_made():
    core = aj.Core(DEVICE, bounds="ub", sanitize="report")
    src, after = core.local_tensor("uint32", N), core.local_tensor("uint32", 64 - N)
    src[:], after[:] = np.arange(N, dtype=np.uint32), np.zeros(64 - N, np.uint32)
    with core:
        reg, dst, carry = R.RegTensor("uint32"), R.RegTensor("uint32"), R.MaskReg()
        R.LoadAlign(reg, src, 0)
        R.Add(carry, dst, reg, reg, R.UpdateMask("uint32", N)[0])
        assert core.sanitizer.reports == []
        R.Add(carry, dst, reg, reg, R.CreateMask("uint32"))
    [rep] = core.sanitizer.reports
    assert (rep.check, rep.instruction.api, rep.earlier.api, rep.address, rep.nbytes) == (
        "memory", "Add (carry)", "LoadAlign", src.addr + 4 * N, 96)


def test_a_compare_of_stored_outside_lanes_passes_the_loads_origin_to_its_bits():
    """A count-form Compare reads whole 256-byte blocks (SPEC-2 D44): bits computed from bytes a store wrote from
    outside lanes are followed with the load's memory origin (not an init one), to where they are read."""
    for checks in (None, ("race", "memory")):
        core, src, out = _core(checks=checks, written=False)
        bits = core.local_tensor("uint8", 32)
        with core:
            _vf_tail(out, src, N, True)
            aj.Duplicate(bits.ReinterpretCast("uint16"), 0, 16)
            aj.Compare(bits, out, out, aj.CMPMODE.EQ, 64)
            assert core.sanitizer.reports == []
            aj.SetFlag(0, event=aj.HardEvent.V_MTE3)
            aj.WaitFlag(0, event=aj.HardEvent.V_MTE3)
            aj.DataCopy(aj.GlobalTensor(np.zeros(32, np.uint8)), bits, 32)   # bits 40..63: bytes 5..7
        [rep] = core.sanitizer.reports
        _assert_use(rep, src)
        assert (rep.address, rep.nbytes, rep.earlier.api) == (bits.addr + 5, 3, "Compare")


def test_a_store_past_the_tensor_and_a_memory_api_access_are_reported_where_they_are_made():
    core, src, out = _core()
    short = core.local_tensor("float", N)
    with core:
        reg = R.RegTensor("float")
        R.LoadAlign(reg, src, 0)
        R.StoreAlign(short, reg, R.UpdateMask("float", N)[0], 0)   # the data's lanes: inside
        assert core.sanitizer.reports == []
        R.StoreAlign(short, reg, R.CreateMask("float"), 0)
        [rep] = core.sanitizer.reports
        assert (rep.check, rep.kind, rep.instruction.api, rep.address, rep.nbytes) == (
            "memory", "access outside the tensor", "StoreAlign", short.addr + 4 * N, 96)
        aj.Adds(out, src, 1.0, 64, 1, aj.UnaryRepeatParams(1, 1, 8, 8))   # a Memory-API read past src: as before
    rep = core.sanitizer.reports[-1]
    assert (rep.check, rep.kind, rep.instruction.api, rep.operand, rep.address, rep.nbytes) == (
        "memory", "access outside the tensor", "Adds", "src", src.addr + 4 * N, 96)
    assert len(core.sanitizer.reports) == 2


def test_raise_mode_raises_at_the_use_and_leaves_everything_as_it_was():
    core, src, out = _core(mode="raise")
    with core:
        _vf_tail(out, src, N, True)       # the load and the store: no report
        ub = core.ub.copy()
        with pytest.raises(SanitizerError, match=r"lane loaded from outside the tensor used: Adds .* after "
                                                 r"StoreAlign .*LoadAlign .*outside its tensor"):
            aj.Adds(out, out, 1.0, 64)
        assert (core.ub == ub).all()
        aj.Adds(out, out, 1.0, N)         # the data's lanes alone: no report


@pytest.mark.ascend_sanitize(checks="", reason="compares the memory check's absence and presence in the checks")
def test_without_the_memory_check_written_outside_bytes_are_clean_and_unwritten_ones_init():
    for written, expected in ((True, []), (False, [("init", "uninitialised read")])):
        core, src, out = _core(checks=("race", "init"), written=written)
        with core:
            _vf_tail(out, src, N, True)
            _copy_out(out, 64)
        assert [(r.check, r.kind) for r in core.sanitizer.reports] == expected
    core, src, out = _core(checks=("race", "memory"), written=False)   # no init check: the memory report alone
    with core:
        _vf_tail(out, src, N, True)
        _copy_out(out, 64)
    [rep] = core.sanitizer.reports
    _assert_use(rep, src)


@pytest.mark.parametrize("name, T, load", LOADS, ids=[n for n, _, _ in LOADS])
def test_every_load_form_marks_exactly_the_register_bytes_outside_bytes_feed(name, T, load):
    """Each register byte's source byte is read from the data (src byte i holds i + 1, over two runs); the bytes
    past a 600-byte tensor mark exactly the register bytes they feed, with a memory origin, and nothing is
    reported."""
    n, size = 1024, 600
    fed, marks = [], None
    for shift in (0, 8):
        core = aj.Core(DEVICE, bounds="ub", sanitize="report")
        src = core.local_tensor("uint8", size)
        assert src.addr + n <= core.spec.ub_bytes
        core.ub[src.addr:src.addr + n] = ((np.arange(n) + 1) >> shift & 0xFF).astype(np.uint8)
        core.ub_written_by_host(src.addr, n)
        regs = [R.RegTensor(T), R.RegTensor(T)]
        load(src, *regs)
        fed.append(np.concatenate([r.data[:256].astype(np.int64) for r in regs]))
        marks = np.concatenate([_marks(r) for r in regs])
        origins = {ORIGINS[k].check for r in regs if r._lane_shadow is not None
                   for k in r._lane_shadow.origin[r._lane_shadow.origin >= 0]}
        assert core.sanitizer.reports == [] and origins <= {"memory"}
    source = (fed[0] | fed[1] << 8) - 1
    expected = source >= size
    assert expected.any() or not marks.any()
    assert np.array_equal(marks, expected)


def _prefetching(full):
    """port66c (cann-samples softmax 4_pipeline at N = 1000): the next row's DataCopy (MTE2) fills the bytes past
    this row while the VF's whole-vector tail load reads them; only the row's own bytes are ordered by a flag."""
    core, src, out = _core()
    gm = aj.GlobalTensor(np.full(64 - N, 3.0, np.float32))
    with core:
        following = aj.LocalTensor(aj.TPosition.VECCALC, src.addr + 4 * N, 64 - N, dtype="float")
        aj.DataCopy(following, gm, 64 - N)          # MTE2 over the 96 bytes past the row, not yet waited for
        TAIL(out, src, N, full)                     # V: reads them with the row
        aj.DataCopy(following, gm, 64 - N)          # MTE2 again: a WAR only if the load's extra bytes counted
        aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
        _copy_out(out, 64 if full else N)
    return core.sanitizer.reports


def test_a_tail_load_over_bytes_another_pipe_writes_is_no_race_while_its_lanes_are_unused():
    assert _prefetching(False) == []


def test_a_tail_load_over_bytes_another_pipe_writes_is_the_memory_report_where_its_lanes_are_used():
    [report] = _prefetching(True)
    assert report.check == "memory" and report.instruction.api == "DataCopy"


@pytest.mark.parametrize("checks", [None, ("race", "memory")], ids=["default", "race,memory"])
def test_a_compare_of_outside_and_never_written_lanes_gives_each_bit_its_own_cause(checks):
    """review66: a count-form Compare over bytes stored from lanes loaded outside their tensor (out[40:64]) and
    bytes nothing wrote (out[64:128]): the first group's bits carry the load's memory origin, the second's are the
    init check's alone (one outside byte had given every output of the record the memory origin)."""
    core, src, _ = _core(checks=checks)
    out, bits = core.local_tensor("float", 128), core.local_tensor("uint8", 32)
    with core:
        TAIL(out, src, N, True)
        aj.Duplicate(bits.ReinterpretCast("uint16"), 0, 16)
        aj.Compare(bits, out, out, aj.CMPMODE.EQ, 128)
        aj.SetFlag(0, event=aj.HardEvent.V_S)
        aj.WaitFlag(0, event=aj.HardEvent.V_S)
        bits.GetValue(8)                             # lanes 64-71: never written
        init = list(core.sanitizer.reports)
        bits.GetValue(5)                             # lanes 40-47: loaded from outside src
    assert [r.check for r in init] == ([] if checks else ["init"])
    [memory] = core.sanitizer.reports[len(init):]
    _assert_use(memory, src, "GetValue", "tensor")
