"""Second conformance pass on the mask register and the special registers (SPEC D22, SPEC-2 1.4, 1.7, D31): which
calls leave which state, per device, and that refused calls leave none."""
import numpy as np
import pytest

import ascend_jit as aj


def _sum_then_read_register(device):
    """A count-form ReduceSum after SetVectorMask(5, 3), then a high-dim Add reading the register (is_set_mask=False):
    the Add's dst shows which lanes the register selected."""
    core = aj.Core(device)
    with core:
        src, tmp = core.local_tensor("half", 256), core.local_tensor("half", 256)
        dst, a, b = (core.local_tensor("half", 128) for _ in range(3))
        src[:], a[:], b[:], dst[:] = np.ones(256, np.float16), np.ones(128, np.float16), np.ones(128, np.float16), 0
        aj.SetVectorMask(5, 3)
        aj.ReduceSum(tmp, src, tmp, 200)
        aj.Add(dst, a, b, aj.MASK_PLACEHOLDER, 1, aj.BinaryRepeatParams(), is_set_mask=False)
        return dst.numpy()


def test_310b_count_reduce_sum_leaves_the_register_untouched():
    """SPEC D22: "950 and 310B count calls never touch the register" (the count ReduceSum included)."""
    for device in ("atlas-200i-500-a2", "ascend950"):
        out = _sum_then_read_register(device)
        expected = np.zeros(128, np.float16)
        expected[[0, 1, 64, 66]] = 2   # (high 5, low 3): lanes 0, 1 and 64, 66
        np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("device", ["atlas-inference-aicore", "atlas-training"])
def test_910_310p_count_reduce_sum_leaves_the_register_undefined(device):
    """decisions.md: the count ReduceSum of 910/310P is built from high-dim calls (SPEC D22's implementation state)."""
    with pytest.raises(aj.StateError, match="undefined"):
        _sum_then_read_register(device)


@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_get_reduce_repeat_sum_spr_only_where_offered(device):
    """DK GetReduceRepeatSumSpr(ISASI).md: 950, A3, A2 only; elsewhere UnsupportedDeviceError (SPEC-2 1.8), nothing
    changed."""
    core = aj.Core(device)
    src, dst, tmp = core.local_tensor("half", 64), core.local_tensor("half", 16), core.local_tensor("half", 64)
    src[:] = np.full(64, 2, np.float16)
    with core:
        aj.ReduceSum(dst, src, tmp, 64)
        core.PipeBarrier(aj.PIPE_ALL)   # SPEC-2 10.4: the scalar read of what the vector pipe wrote
        if device in ("ascend950", "atlas-a3", "atlas-a2"):
            assert core.GetReduceRepeatSumSpr("half") == np.float16(128)
            return
        with pytest.raises(aj.UnsupportedDeviceError, match=rf"GetReduceRepeatSumSpr.*{device}.*ascend950, atlas-a3"):
            aj.GetReduceRepeatSumSpr()


def test_refused_high_dim_gather_leaves_the_register_unchanged():
    """SPEC-2 1.5 / 1.8: a Gather refused for an offset (D57) writes nothing and changes no state; it recorded its
    mask (D31) before the offsets were checked."""
    core = aj.Core("atlas-a2")
    with core:
        dst, src = core.local_tensor("half", 128), core.local_tensor("half", 128)
        offsets = core.local_tensor("uint32", 128)
        offsets[:] = np.arange(128, dtype=np.uint32) * 2
        offsets[:3] = np.array([0, 2, 3], np.uint32)   # lane 2: an odd byte offset for half
        aj.SetVectorMask(5, 3)
        before = core.ub.copy()
        with pytest.raises(aj.AlignmentError):
            aj.Gather(dst, src, offsets, 0, 100, 1, 8)
        np.testing.assert_array_equal(core.ub, before)
        assert (core.mask_high, core.mask_low, core.mask_defined) == (5, 3, True)


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore", "atlas-training"])
@pytest.mark.parametrize("mask", [0, [0, 0]])
def test_high_dim_reduce_sum_mask_0_is_a_nop_that_sets_the_register(device, mask):
    """SPEC D14: mask 0 on A2/A3/310P/910 (and the 310B) makes ReduceSum a NOP "with is_set_mask true the mask
    register still receives the 0" (not the implementation state D22 gives a computing high-dim ReduceSum)."""
    core = aj.Core(device)
    with core:
        src, dst, tmp = core.local_tensor("half", 256), core.local_tensor("half", 16), core.local_tensor("half", 64)
        src[:], dst[:] = np.ones(256, np.float16), 7
        aj.SetVectorMask(5, 3)
        before = core.ub.copy()
        aj.ReduceSum(dst, src, tmp, mask, 2, 8)
        np.testing.assert_array_equal(core.ub, before)
        assert (core.mask_high, core.mask_low, core.mask_defined) == (0, 0, True)


@pytest.mark.parametrize("mask", [0, [0], [0, 0]])
def test_950_counter_mode_mask_0_is_count_0(mask):
    """SPEC-2 1.4: in counter mode the mask argument is the element count, so 0 is a count-0 NOP (D30), not the lane
    mask 0 the 950 refuses (SPEC D14); decisions.md cites the devkit's counter branch (0 repeats)."""
    core = aj.Core("ascend950")
    with core:
        x, y, z = (core.local_tensor("half", 256) for _ in range(3))
        x[:], y[:], z[:] = np.ones(256, np.float16), np.ones(256, np.float16), 5
        core.SetMaskCount()
        core.SetVectorMask(77)
        before = core.ub.copy()
        aj.Add(z, x, y, mask, 1, aj.BinaryRepeatParams())
        np.testing.assert_array_equal(core.ub, before)
        # D31 on the 950: continuous masks leave the register, bit masks overwrite it (with the count)
        assert (core.mask_high, core.mask_low) == ((0, 77) if mask == 0 else (0, 0))
        with pytest.raises(aj.ParameterError, match="mask"):
            core.SetMaskNorm()
            aj.Add(z, x, y, mask, 1, aj.BinaryRepeatParams())   # normal mode: the lane mask 0 is refused (D14)


def test_counter_mode_bit_mask_records_the_count():
    """decisions.md "Counter-mode high-dim calls and the register": a bit mask in counter mode leaves (0, mask[0])."""
    core = aj.Core("atlas-a2")
    with core:
        x, y, z = (core.local_tensor("half", 512) for _ in range(3))
        x[:], y[:] = np.ones(512, np.float16), np.ones(512, np.float16)
        core.SetMaskCount()
        aj.Add(z, x, y, [300, 7], 1, aj.BinaryRepeatParams())
        assert (core.mask_high, core.mask_low, core.counter_mode) == (0, 300, True)


@pytest.mark.parametrize("mask, lanes", [(100, 100), (200, 128), (64, 64), (30, 30)])
def test_a_continuous_mask_above_a_float_repeat_is_recorded_unclamped(mask, lanes):
    """SPEC 1.5: the call computes on its clamped mask (D15, 64 float lanes), but AscendCUtils::SetMask<float>(len)
    writes the register from the length as given (len >= 128: all ones), so a later half call reading the register
    (D22) selects `lanes` lanes (audit19)."""
    core = aj.Core("atlas-a2")
    with core:
        fd, fa, fb = (core.local_tensor("float", 64) for _ in range(3))
        fa[:], fb[:], fd[:] = np.ones(64, np.float32), np.ones(64, np.float32), 0
        aj.Add(fd, fa, fb, mask, 1, aj.BinaryRepeatParams())
        assert (fd.numpy() == 2).sum() == min(mask, 64)
        hd, ha, hb = (core.local_tensor("half", 128) for _ in range(3))
        ha[:], hb[:], hd[:] = np.ones(128, np.float16), np.ones(128, np.float16), 0
        aj.Add(hd, ha, hb, aj.MASK_PLACEHOLDER, 1, aj.BinaryRepeatParams(), is_set_mask=False)
    np.testing.assert_array_equal(hd.numpy(), np.where(np.arange(128) < lanes, 2, 0).astype(np.float16))
