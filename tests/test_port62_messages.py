"""What the session-62 ports (port62a-d) found: refusals and outputs that say what to write, and the golden
command's check of a kernel before it pins it (docs/decisions.md "What the session-62 ports found")."""
import sys

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit import cli

R = aj.Reg

_WRONG_KERNEL = """import numpy as np
import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec


def run(device, inputs):
    core = aj.Core(device)
    a, b = core.local_tensor("half", 128), core.local_tensor("half", 128)
    a[:] = inputs["x"]
    with core:
        aj.Adds(b, a, 2.0, 128)
    return {"y": b.numpy().copy()}


KERNEL = KernelSpec("port62_plus_one", "x + 1, written as x + 2",
                    lambda n, seed: {"x": np.arange(128, dtype=np.float16)}, run,
                    lambda device, inputs: {"y": inputs["x"] + np.float16(1)}, 128, devices=("atlas-a2",))
"""


def test_golden_record_refuses_a_kernel_that_fails_its_own_check(tmp_path, monkeypatch, capsys):
    """port62d: `ascend-jit golden record` pinned a kernel that `ascend-jit run` reports as FAIL, silently."""
    kernel, goldens = tmp_path / "port62_wrong.py", tmp_path / "goldens"
    kernel.write_text(_WRONG_KERNEL)
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert cli.main(["golden", "record", str(goldens), "--kernels", str(kernel)]) == 1
    out = capsys.readouterr().out
    assert "FAIL port62_plus_one on atlas-a2 fails its own check" in out and "MISMATCH" in out
    assert "recorded nothing" in out and "--force" in out and not goldens.exists()
    assert cli.main(["golden", "record", str(goldens), "--kernels", str(kernel), "--force"]) == 0
    assert "WARNING port62_plus_one on atlas-a2" in capsys.readouterr().out
    assert [p.name for p in goldens.iterdir()] == ["port62_plus_one.atlas-a2.y.npz"]


def test_a_tolerance_failure_names_plain_numbers():
    """port62d: the FAIL line read `element 0: np.float64(-0.159...) against np.float64(-0.194...)` (numpy 2)."""
    from ascend_jit.kernels._base import within_tolerance
    ok, line = within_tolerance(np.float32([1.5, 2.0]), np.array([1.5, 3.0]), 1e-5)
    assert not ok and "element 1: 2.0 against 3.0" in line and "np." not in line


def test_a_partial_width_load_past_its_tensor_says_it_reads_its_bytes_whatever_the_mask():
    """port62d: a half DIST_UNPACK_B16 load (128 bytes) past a 16-element tensor gave the bare range only."""
    core = aj.Core("ascend950")
    t = core.local_tensor("half", 16)
    with core, pytest.raises(aj.OutOfBoundsError) as err:
        R.LoadAlign(R.RegTensor("half"), t, dist=R.LoadDist.DIST_UNPACK_B16)
    assert "a load reads its 128 bytes whatever the mask" in str(err.value)
    assert "whole 128-byte loads" in str(err.value)


def test_reg_template_arguments_ported_as_call_arguments_say_what_to_write():
    """port62a: UpdateMask<T, RegTraitNumOne>(count) with the trait as an argument was a bare TypeError, and
    LoadAlign<T, PostLiteral::POST_MODE_UPDATE>(reg, addr, stride) as post_mode= named no post_update_stride."""
    core = aj.Core("ascend950")
    t = core.local_tensor("float", 128)
    with core:
        for call in (lambda: R.UpdateMask("float", 100, "RegTraitNumOne"),
                     lambda: R.UpdateMask("float", 100, trait="RegTraitNumOne")):
            with pytest.raises(aj.ParameterError, match="'trait'.*leave the trait out"):
                call()
        with pytest.raises(aj.ParameterError) as err:
            R.LoadAlign(R.RegTensor("float"), t, 0, post_mode=R.PostLiteral.POST_MODE_UPDATE)
        assert "post_update_stride=stride" in str(err.value) and "returns the advanced offset" in str(err.value)
        with pytest.raises(aj.ParameterError) as err:
            R.LoadAlign(R.RegTensor("float"), t, 0, post_mode=R.PostLiteral.POST_MODE_NORMAL)
        assert "post_update_stride" not in str(err.value)


def test_the_advanced_broadcast_names_the_devkit_s_basic_sequence():
    """port62b: ops-math MulAddn's BroadCast<T, 2, 1> was a bare AttributeError (the table had Broadcast only)."""
    for name in ("BroadCast", "Broadcast", "GetBroadCastMaxMinTmpSize"):
        with pytest.raises(aj.NotOfferedError, match="aj.Brcb of the column") as err:
            getattr(aj, name)
        assert "broadcast_v200_impl.h" in str(err.value)   # port62e: the 310P has its own sequence (no Copy)
    with pytest.raises(aj.NotOfferedError) as err:
        aj.Atan
    assert "Brcb" not in str(err.value) and "impl/adv_api/detail/" in str(err.value)


def test_the_reg_compare_refusal_says_how_to_compare_a_value_the_vf_computes():
    with pytest.raises(aj.NotOfferedError, match="splitting the VF"):
        R.Compare


def test_a_refused_numpy_scalar_is_named_as_the_number_it_holds():
    """Compiled and plain Reg refusals name the same value: numpy 2's repr wrote np.float16(1.5) in the plain one."""
    with aj.Core("ascend950") as core:
        t = core.local_tensor("int16", 128)
        r = R.RegTensor("int16")
        with pytest.raises(aj.ParameterError) as err:
            R.Duplicate(r, np.float16(1.5), R.CreateMask("int16"))
    assert "parameter 'scalar' = 1.5 " in str(err.value) and "np." not in str(err.value)
    assert "= 0.10000000149011612 " in str(aj.ParameterError("X", "v", np.float32(0.1), "l"))   # the exact value
    assert "= 65504.0 " in str(aj.ParameterError("X", "v", np.float16(65504), "l"))   # not its shortest text 65500
    assert "= 9223372036854775813 " in str(aj.ParameterError("X", "v", np.uint64(2**63 + 5), "l"))
    del t


# --- the sanitizer (review 62) --------------------------------------------------------------------------------------
def test_a_blocks_write_report_names_the_other_block_s_write_not_an_earlier_byte_s_reader():
    from ascend_jit.sanitizer import PIPE_MTE2, PIPE_MTE3, LaunchShadow, SanitizeConfig
    for mode in ("raise", "report"):
        reports, shadow, gm = [], LaunchShadow(SanitizeConfig(mode=mode)), np.zeros(64, np.float32)
        shadow.gm_access(1, "DataCopy", PIPE_MTE2, gm, 0, 32, False, False, reports.append, "k.py:10")   # reads
        shadow.gm_access(0, "DataCopy", PIPE_MTE3, gm, 32, 32, True, False, reports.append, "k.py:20")  # writes
        shadow.gm_access(2, "DataCopy", PIPE_MTE3, gm, 0, 64, True, False, reports.append, "k.py:30")   # both
        if mode == "report":
            shadow.replay()
        [report] = reports
        assert report.kind == "two blocks write the same GM bytes" and report.address == 32
        assert report.earlier.where == "k.py:20" and "block 2 and block 0" in report.fix


def test_a_store_of_never_written_register_lanes_is_not_called_bytes_in_a_compare_s_fix():
    core = aj.Core("ascend950", sanitize="report")
    x, bits, d = core.local_tensor("float", 64), core.local_tensor("uint8", 32), core.local_tensor("float", 64)
    with core:
        R.StoreAlign(x, R.RegTensor("float"), R.CreateMask("float"), 0)   # a register nothing wrote
        aj.Duplicate(bits.ReinterpretCast("uint16"), 0, 16)
        aj.Compare(bits, x, x, aj.CMPMODE.EQ, 64)
        aj.Select(d, bits, x, 0.0, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 64)
    fixes = [r.fix for r in core.sanitizer.reports if r.earlier is not None and r.earlier.api == "Compare"]
    assert fixes and all("wrote from lanes no instruction had written" in f for f in fixes)


def test_a_marked_mask_decides_nothing_where_both_sources_are_one_register():
    """Select(d, a, a, m) is a whatever m's bits are, and Xor(x, m, m) is 0: no lane is marked by m's marks."""
    core = aj.Core("ascend950", sanitize="report")
    bits, src, out = core.local_tensor("uint8", 32), core.local_tensor("int32", 64), core.local_tensor("int32", 64)
    src[:] = np.arange(64, dtype=np.int32)
    with core:
        m = R.MaskReg()
        R.LoadAlign(m, bits, 0)          # never-written bytes: every bit marked
        a, d = R.RegTensor("int32"), R.RegTensor("int32")
        R.LoadAlign(a, src, 0)
        R.Select(d, a, a, m)
        x = R.MaskReg()
        R.Xor(x, m, m, R.CreateMask("int32"))
        R.Not(x, x, R.CreateMask("int32"))
        R.Adds(d, d, 1, x)
        R.StoreAlign(out, d, R.CreateMask("int32"), 0)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Adds(out, out, 1, 64)
    assert core.sanitizer.reports == []
    assert np.array_equal(out.numpy(), np.arange(64) + 2)


def test_a_broadcast_load_past_its_tensor_is_not_told_to_allocate_whole_loads():
    core = aj.Core("ascend950")
    t = core.local_tensor("half", 16)
    with core, pytest.raises(aj.OutOfBoundsError) as err:
        R.LoadAlign(R.RegTensor("half"), t, 16, dist=R.LoadDist.DIST_BRC_B16)
    assert "whatever the mask" not in str(err.value) and "outside the operand's tensor" in str(err.value)


def test_golden_check_refuses_force(tmp_path, capsys):
    assert cli.main(["golden", "check", str(tmp_path), "--force"]) == 2
    assert "--force" in capsys.readouterr().err


def test_an_init_report_of_separate_gaps_says_how_many_runs():
    """port62d: "UB byte 1268 (36 bytes)" were three 12-byte gaps; the bytes it suggested had been written."""
    core = aj.Core("atlas-a2", sanitize="report")
    with core:
        x, y = core.local_tensor("float", 64), core.local_tensor("float", 64)
        for row in range(3):   # rows of 13 floats written in 16-float slots: 3 floats of each slot never written
            x[16 * row:16 * row + 13] = np.ones(13, np.float32)
        x[48:] = np.ones(16, np.float32)
        aj.Mul(y, x, x, 64)
    [report] = core.sanitizer.reports
    assert (report.address, report.nbytes, report.runs) == (x.addr + 52, 36, 3) and report.to_dict()["runs"] == 3
    assert "(36 bytes in 3 runs)" in report.text(False)


@R.simd_vf
def _select_by_compared_bits(dst, src, bits, count):
    m = R.MaskReg()
    x, one, y = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    mask, count = R.UpdateMask("float", count)
    R.LoadAlign(x, src, 0)
    R.LoadAlign(m, bits, 0)
    R.MaskUnPack(m, m, R.HighLowPart.LOWEST)
    R.MaskUnPack(m, m, R.HighLowPart.LOWEST)
    R.MaskAnd(m, m, mask, mask)
    R.Duplicate(one, np.float32(1.0), mask)
    R.Select(y, one, x, m)
    R.StoreAlign(dst, y, mask, 0)


def _compared_tail(used):
    """port62g (ops-math Atan2 on the 950): the Reg Compare refusal's recipe over a tail of 9 written floats, the bits
    used under UpdateMask(used)."""
    core = aj.Core("ascend950", sanitize="report")
    with core:
        src, dst, out = core.local_tensor("float", 64), core.local_tensor("float", 64), core.local_tensor("float", 64)
        bits = core.local_tensor("uint8", 32)
        src[:9] = np.arange(9, dtype=np.float32) - 4
        aj.Duplicate(bits.ReinterpretCast("uint16"), np.uint16(0), 16)
        aj.PipeBarrier(aj.PIPE_V)
        aj.CompareScalar(bits, src, np.float32(0), aj.CMPMODE.GT, 64)
        aj.PipeBarrier(aj.PIPE_V)
        _select_by_compared_bits(dst, src, bits, used)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Copy(out, dst, used)
    return core.sanitizer.reports, out.numpy()


def test_a_maskreg_load_of_compared_bits_marks_the_unwritten_lanes_bits_alone():
    """Lane 8's bit shares its byte with the never-written lanes 9-15: the byte is uninitialised for the Memory API's
    per-byte reads, but a MaskReg load marks lanes 9-15's bits only, so the 9 lanes used are clean."""
    reports, out = _compared_tail(9)
    assert reports == [] and out[:9].tolist() == [-4, -3, -2, -1, 0, 1, 1, 1, 1]
    reports, _ = _compared_tail(10)   # lane 9 is used: its bit is the Compare of a never-written element
    assert len(reports) == 1 and reports[0].instruction.api == "Copy"
    assert "the count form whatever the data's length" in reports[0].fix


def _clear_the_soft_sync_workspace(workspace):
    n = aj.GetBlockNum()
    sync_gm = aj.GlobalTensor("int32")
    sync_gm.SetGlobalBuffer(aj.GetUserWorkspace(workspace), 32 * n // 4)
    pipe = aj.TPipe()
    aj.InitGlobalMemory(sync_gm, 32 * n // 4, np.int32(0))   # every core clears all of it (the SyncAll page)
    q = aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(q, 1, 32 * n)
    ub = q.AllocTensor("int32")
    aj.SyncAll(sync_gm, ub, n)
    q.FreeTensor(ub)


def test_a_blocks_report_names_the_earlier_access_s_block_and_the_soft_sync_workspace_rule():
    """port62f (ops-math HistogramV2's 310P build): the earlier access's block was in the fix only, and the fix of
    every core's fill of the soft SyncAll workspace told it to use SetAtomicAdd or a SyncAll."""
    workspace = np.zeros(aj.GetLibApiWorkSpaceSize("atlas-a2") + 32 * 4, np.uint8)
    with aj.sanitize_session("report") as session:
        aj.launch(_clear_the_soft_sync_workspace, 4, "atlas-a2", workspace)
    assert session.reports and all(r.earlier.block is not None and r.earlier.block != r.block
                                   for r in session.reports)
    first = session.reports[0]
    # session 63: the two blocks' accesses are named as one phase's pair, not as one "after" the other
    assert (f"in block {first.block} of 4, and InitGlobalMemory" in first.text(True) and
            f"of block {first.earlier.block} in the same SyncAll phase" in first.text(True))
    assert all("SyncAll page's own rule" in r.fix for r in session.reports)
    as_json = first.to_dict()   # "earlier" keeps its "API [PIPE] at file:line" form; the block is a field
    assert as_json["earlier_block"] == first.earlier.block and " of block " not in as_json["earlier"]


def test_a_ragged_data_copy_count_on_a_device_without_data_copy_pad_is_told_what_it_can_write():
    core = aj.Core("atlas-inference-aicore")
    ub = core.local_tensor("float", 32)
    with core, pytest.raises(aj.AlignmentError) as err:
        aj.DataCopy(ub, aj.GlobalTensor(np.zeros(32, np.float32)), 18)
    assert "offers no DataCopyPad" in str(err.value) and "DataCopyPad copies any length" not in str(err.value)
    assert "GlobalTensor.GetValue then LocalTensor.SetValue" in str(err.value)   # GM -> UB: read GM, write UB


@R.simd_vf
def _spill_mask(dst, bits):
    m = R.MaskReg()
    R.LoadAlign(m, bits, 0)
    R.StoreAlign(dst, m, 0)


def test_a_mask_spilled_and_reloaded_keeps_its_unknown_bits():
    """Review 62: a MaskReg store had made the whole bytes of its marked bits unknown again, so lane 8 of a 9-float
    tail was reported after a round trip through the UB."""
    core = aj.Core("ascend950", sanitize="report")
    with core:
        src, dst, out = core.local_tensor("float", 64), core.local_tensor("float", 64), core.local_tensor("float", 64)
        bits, spilled = core.local_tensor("uint8", 32), core.local_tensor("uint8", 32)
        src[:9] = np.arange(9, dtype=np.float32) - 4
        aj.Duplicate(bits.ReinterpretCast("uint16"), np.uint16(0), 16)
        aj.PipeBarrier(aj.PIPE_V)
        aj.CompareScalar(bits, src, np.float32(0), aj.CMPMODE.GT, 64)
        aj.PipeBarrier(aj.PIPE_V)
        _spill_mask(spilled, bits)
        _select_by_compared_bits(dst, src, spilled, 9)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Copy(out, dst, 9)
    assert core.sanitizer.reports == [] and out.numpy()[:9].tolist() == [-4, -3, -2, -1, 0, 1, 1, 1, 1]
