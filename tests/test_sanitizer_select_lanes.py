"""The init check through a Select (docs/decisions.md "The init check through a Select"; port68d): each element's
lane of the source its selMask bit picks (SPEC-2 D59: 1 src0, 0 src1) is followed to its dst lane and reported where
that lane is read; the other source's lane is fetched, a read for the race check, but reaches nothing. Count form,
high-dim form and mode 1's scalar, on a device of each family."""
import numpy as np
import pytest

import ascend_jit as aj

DEVICES = ("atlas-a2", "ascend950")


def _tensors(core):
    a, b, d, o = (core.local_tensor("float", 64) for _ in range(4))
    m = core.local_tensor("uint8", 32)
    return a, b, d, o, m


def _mask(m, byte1):
    """Every bit 1 (src0) but byte 1's: lanes 8-15 take src0 where byte1's bit is set, src1 where it is clear."""
    bits = np.full(32, 0xFF, np.uint8)
    bits[1] = byte1
    m[:] = bits


def _select(form, d, m, a, b):
    if form == "count":
        aj.Select(d, m, a, b, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, 64)
    else:
        aj.Select(d, m, a, b, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, 64, 1, aj.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    aj.PipeBarrier(aj.PIPE_V)


def _summary(core):
    return [(r.check, r.kind, r.instruction.api, r.operand, r.address, r.nbytes) for r in core.sanitizer.reports]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("form", ["count", "high-dim"])
def test_a_source_no_lane_picks_is_no_uninitialised_read(device, form):
    core = aj.Core(device, sanitize="report")
    with core:
        a, b, d, o, m = _tensors(core)   # b never written
        a[:] = np.arange(64, dtype=np.float32)
        _mask(m, 0xFF)
        _select(form, d, m, a, b)
        aj.Adds(o, d, np.float32(1), 64)
        np.testing.assert_array_equal(o.numpy(), np.arange(64, dtype=np.float32) + 1)
    assert _summary(core) == []


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("form", ["count", "high-dim"])
def test_the_picked_never_written_lanes_are_reported_where_read(device, form):
    core = aj.Core(device, sanitize="report")
    with core:
        a, b, d, o, m = _tensors(core)
        a[:] = np.arange(64, dtype=np.float32)
        _mask(m, 0x0F)   # lanes 12-15 pick src1, never written
        _select(form, d, m, a, b)
        aj.Adds(o[0:12], d[0:12], np.float32(1), 12)   # lanes src0 gave: clean
        assert _summary(core) == []
        aj.Adds(o, d, np.float32(1), 64)
    assert _summary(core) == [("init", "uninitialised read", "Adds", "src", d.addr + 48, 16)]
    fix = core.sanitizer.reports[0].fix
    assert fix.startswith(f"these elements were selected from lanes of src1 that nothing had written (UB byte "
                          f"{b.addr + 48}, 16 bytes; a Select fetches both sources")
    assert "after Select [PIPE_V] at test_sanitizer_select_lanes.py" in str(core.sanitizer.reports[0])


@pytest.mark.parametrize("device", DEVICES)
def test_mode_1_follows_the_tensor_source_alone(device):
    core = aj.Core(device, sanitize="report")
    with core:
        a, _, d, o, m = _tensors(core)   # a never written; the scalar is every lane's other value
        _mask(m, 0x00)   # lanes 8-15 pick the scalar, every other lane a
        aj.Select(d, m, a, np.float32(3), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 64)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Adds(o[8:16], d[8:16], np.float32(1), 8)
        assert _summary(core) == []
        aj.Adds(o[0:16], d[0:16], np.float32(1), 16)
    assert _summary(core) == [("init", "uninitialised read", "Adds", "src", d.addr, 32)]
    assert "selected from lanes of src0 that nothing had written" in core.sanitizer.reports[0].fix


def test_the_source_no_lane_picks_is_still_read_for_the_race_check():
    """The vector unit fetches both sources: a copy into the unpicked src1 with no MTE2_V flag is a RAW race."""
    core = aj.Core("atlas-a2", sanitize="report")
    gm = aj.GlobalTensor()
    gm.SetGlobalBuffer(np.ones(64, np.float32))
    with core:
        a, b, d, _, m = _tensors(core)
        a[:] = np.arange(64, dtype=np.float32)
        _mask(m, 0xFF)
        aj.DataCopy(b, gm, 64)
        _select("count", d, m, a, b)
    assert [(r.check, r.kind, r.operand, r.address, r.nbytes) for r in core.sanitizer.reports] == [
        ("race", "RAW", "src1", b.addr, 256)]


@pytest.mark.parametrize("picks", [0xFF, 0x00])
def test_the_950_scalar_element_is_followed_as_a_source(picks):
    """The 950's tensor-element overload (mode 1, src1Local[0]): a never-written element no lane picks is no read
    (review68); lanes that pick it are reported where read."""
    core = aj.Core("ascend950", sanitize="report")
    with core:
        a, _, d, o, m = _tensors(core)
        s = core.local_tensor("float", 8)   # never written
        a[:] = np.arange(64, dtype=np.float32)
        _mask(m, picks)   # 0x00: lanes 8-15 pick the scalar element
        aj.Select(d, m, a, s[0:1], aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 64)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Adds(o, d, np.float32(1), 64)
    assert _summary(core) == ([] if picks == 0xFF else
                              [("init", "uninitialised read", "Adds", "src", d.addr + 32, 32)])


def test_written_sources_and_the_init_check_off_follow_nothing():
    """Nothing to follow: the sources are checked at the read as any operand's (the race check's both sources)."""
    for words in ("report", "report,race"):
        core = aj.Core("atlas-a2", sanitize=words)
        with core:
            a, b, d, o, m = _tensors(core)
            a[:] = np.arange(64, dtype=np.float32)
            b[:] = -np.arange(64, dtype=np.float32)
            _mask(m, 0x0F)
            for form in ("count", "high-dim"):
                _select(form, d, m, a, b)
            aj.Adds(o, d, np.float32(1), 64)
        assert _summary(core) == []
        np.testing.assert_array_equal(o.numpy()[12:16], -np.arange(12, 16, dtype=np.float32) + 1)
