"""What the session-66 ports met (docs/decisions.md "What the session-66 ports found"): a high-dim Compare's lanes
that no instruction wrote are followed to the bits computed from them, as the count form's are."""
import numpy as np
import pytest

import ascend_jit as aj


def _high_dim_compare_then_select(device, select_count, second_repeat=False):
    """ops-nn CrossEntropyLossGrad's ignore mask (port66b): 3 floats written, a high-dim Compare of mask 3 (A2/A3
    compare the whole 256-byte repeat, SPEC-2 D44), then a Select of `select_count` lanes."""
    with aj.sanitize_session("report") as session:
        with aj.Core(device) as core:
            a, b = core.local_tensor("float", 128), core.local_tensor("float", 128)
            bits, out = core.local_tensor("uint8", 32), core.local_tensor("float", 128)
            aj.Duplicate(a, np.float32(1), 3)
            aj.Duplicate(b, np.float32(1), 3)
            aj.Duplicate(out, np.float32(0), 128)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Compare(bits, a, b, aj.CMPMODE.EQ, 3, 2 if second_repeat else 1,
                       aj.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
            aj.PipeBarrier(aj.PIPE_V)
            aj.Select(out, bits, out, np.float32(5), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, select_count)
    return session.reports, a.addr


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-inference-aicore", "ascend950"])
def test_a_high_dim_compare_of_unwritten_lanes_is_reported_only_where_their_bits_are_read(device):
    reports, _ = _high_dim_compare_then_select(device, 3)
    assert reports == []   # was an init report per source at the Compare on the A2 and the 310P
    reports, addr = _high_dim_compare_then_select(device, 20)
    if device == "ascend950":   # the mask is honoured: lanes 3-19 have 0 bits computed from nothing
        assert reports == []
        return
    [report] = reports
    assert report.operand == "sel_mask" and report.earlier.api == "Compare"
    assert f"lanes of src0 and src1 that nothing had written (UB byte {addr + 12}" in report.fix
    assert "the high-dim form on A2/A3/310P/910 whatever its mask" in report.fix


def test_a_high_dim_compare_s_second_repeat_bits_follow_their_own_lanes():
    """Repeat 1's 64 lanes (never written) give bits 64-127: a Select of 70 lanes reads bits 64-69 of them."""
    assert _high_dim_compare_then_select("atlas-a2", 3, second_repeat=True)[0] == []
    reports, addr = _high_dim_compare_then_select("atlas-a2", 70, second_repeat=True)
    [report] = reports
    assert report.operand == "sel_mask" and f"(UB byte {addr + 12}" in report.fix


# --- refusal and warning texts ---------------------------------------------------------------------------------------
R = aj.Reg


@R.simd_vf
def _vf_reinterpreting(t, out):
    r = R.RegTensor("int64")
    R.LoadAlign(r, t.ReinterpretCast("int64"))
    R.StoreAlign(out, r, R.CreateMask("int64"))


@pytest.mark.ascend_sanitize(checks="", reason="the compiled VF's warning: a sanitizing core runs every VF plain")
def test_a_vf_reinterpreting_its_tensor_says_to_pass_the_reinterpreted_tensor():
    """port66a (StatelessDropOutGenMask's `(__ubuf__ int64_t*)` view): the warning had quoted numba alone."""
    core = aj.Core("ascend950")
    t, out = core.local_tensor("uint32", 64), core.local_tensor("int64", 32)
    t[:] = np.arange(64, dtype=np.uint32)
    with core, pytest.warns(aj.UncompiledVFWarning) as caught:
        _vf_reinterpreting(t, out)
    text = str(caught[0].message)
    assert "ReinterpretCast" in text and 'vf(t.ReinterpretCast("int64"), ...)' in text
    assert out.numpy()[:2].tolist() == [1 << 32, (3 << 32) | 2]   # plain Python ran it: the same bytes as int64


def test_a_b32_unpack_into_a_b64_register_says_a_cast_converts_values():
    """port66a: DIST_UNPACK_B32 into an int64 register (the LoadAlign page: b64 moves with DIST_NORM only); the
    advice's Cast sign-extends, so a zero-extended word is the store-and-reload recipe."""
    core = aj.Core("ascend950")
    t = core.local_tensor("uint32", 64)
    with core, pytest.raises(aj.UnsupportedDTypeError) as err:
        R.LoadAlign(R.RegTensor("int64"), t, dist=R.LoadDist.DIST_UNPACK_B32)
    assert "int32 -> int64 sign-extends" in str(err.value) and "store it and load the bytes again" in str(err.value)


def test_a_sub_tensor_at_a_tensor_s_end_names_the_index_and_the_size():
    g = aj.GlobalTensor("float").SetGlobalBuffer(np.zeros(1, np.float32))
    with pytest.raises(aj.OutOfBoundsError) as err:
        g[1]
    assert "'index' = 1 it leaves none of the tensor's 1 elements" in str(err.value)


@pytest.mark.parametrize("name", ["plt_b16", "plt_b32", "POST_UPDATE"])
def test_the_plt_intrinsic_says_it_is_update_mask(name):
    """port66d: ops-nn arch35 files write `plt_b32(sreg, POST_UPDATE)`, the intrinsic UpdateMask wraps."""
    with pytest.raises(aj.NotOfferedError) as err:
        getattr(aj.Reg, name)
    assert "mask, sreg = aj.Reg.UpdateMask(T, sreg)" in str(err.value)


def test_the_gather_mask_count_read_straight_after_gather_mask_is_no_race():
    """port66e (ops-math HansEncode's GetRsvdCnt): the devkit's own GatherMaskImpl reads RSVD_CNT by get_rsvd_cnt()
    right after its vreducev2 with no flag, so the device orders the read."""
    with aj.sanitize_session("report,device-sync") as session:
        core = aj.Core("atlas-a2")
        with core:
            src, dst = core.local_tensor("uint16", 128), core.local_tensor("uint16", 128)
            pattern = core.local_tensor("uint16", 8)
            src[:] = np.arange(128, dtype=np.uint16)
            pattern[:] = np.full(8, 0x5555, np.uint16)
            kept = aj.GatherMask(dst, src, pattern, True, 128, aj.GatherMaskParams(1, 1, 8, 0))
            assert aj.GetGatherMaskRemainCount() == kept == 64
    assert session.reports == []


def test_a_pipe_reset_with_a_queue_tensor_still_allocated_kills_it():
    """port66e (ops-math HansEncode Resets its TPipe with a compare tensor never freed): the devkit's TPipe::Reset
    skips a buffer that is not free and asserts nothing; the tensor dies as at Destroy, and the UB is free again."""
    with aj.Core("atlas-a2"):
        pipe, queue = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(queue, 1, 256)
        leaked = queue.AllocTensor("float")
        pipe.Reset()
        with pytest.raises(aj.StateError, match="TPipe.Reset"):
            leaked.GetValue(0)
        again = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(again, 1, 256)
        assert again.AllocTensor("float").addr == leaked.addr
