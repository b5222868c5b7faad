"""What the session-67 ports met (docs/decisions.md "What the session-67 ports found"): the 310P's
KERNEL_TYPE_MIX_VECTOR_CORE says why it is refused, a VF given None for a tensor says what compiles, TransDataTo5HD's
refusal says what to write instead, a launch's SanitizerWarning names its checks, and the other texts."""
import warnings

import numpy as np
import pytest

import ascend_jit as aj
from test_port64_messages import _uninitialised_copy_out   # 16 of its 32 halves never written

R = aj.Reg


def _mix_vector_core_entry():
    """ops-nn GeGluV2's 310P entry (port67e): the kernel type first."""
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_MIX_VECTOR_CORE)


def test_mix_vector_core_says_why_it_is_refused_and_what_runs():
    """The 310P Vector Core is a device SPEC D13 does not support, overflowing in inf/nan mode where the AI Core
    saturates: the refusal says so and names KERNEL_TYPE_AICORE (it said only "vector cores only")."""
    with pytest.raises(aj.ParameterError, match=r"Vector Core is not modelled \(SPEC D13.*inf/nan.*declare "
                                                r"KERNEL_TYPE_AICORE"):
        aj.launch(_mix_vector_core_entry, 1, "atlas-inference-aicore")


def _weighted(dst, src, weight, has_weight):
    a, b = R.RegTensor("float"), R.RegTensor("float")
    mask = R.CreateMask("float", R.MaskPattern.ALL)
    R.LoadAlign(a, src)
    if has_weight == 1:
        R.LoadAlign(b, weight)
    else:
        R.Duplicate(b, np.float32(1.0))
    R.Mul(a, a, b, mask)
    R.StoreAlign(dst, a, mask)


@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_a_none_tensor_argument_says_to_pass_a_placeholder_tensor():
    """ops-nn SoftmaxFocalLossGrad (port67b): C++ passes nullptr for a weight only an `if constexpr` branch reads;
    numba types every branch, so the VF runs plain, and the warning says what compiles."""
    vf = R.simd_vf(_weighted)
    with aj.Core("ascend950") as core:
        src, dst = core.local_tensor("float", 64), core.local_tensor("float", 64)
        src[:] = np.arange(64, dtype=np.float32)
        with pytest.warns(aj.UncompiledVFWarning, match=r"none\).*in place of a None \(C\+\+'s nullptr\) pass any "
                                                        r"tensor of the type"):
            vf(dst, src, None, 0)
        assert dst.numpy().tolist() == list(range(64))
        vf(dst, src, src, 1)   # a placeholder tensor: compiled (the branch reads it here)
        assert dst.numpy().tolist() == [float(v * v) for v in range(64)]


def test_trans_data_to_5hd_names_what_to_write_instead():
    with pytest.raises(aj.NotOfferedError, match=r"TransDataTo5HD.*aj\.Transpose.*TRANSPOSE_NCHW2NHWC"):
        aj.TransDataTo5HD


@pytest.mark.ascend_sanitize(checks="", reason="the test is about launches sanitized explicitly outside a session")
def test_a_launchs_warning_names_its_checks():
    """port67c: Python shows a warning's text once per line; a "report,device-sync" launch after a "report" one
    from the same line showed nothing, the text naming the device alone."""
    x, y = np.zeros(32, np.float16), np.zeros(32, np.float16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for words in ("report", "report,device-sync", "report,strict"):
            aj.launch(_uninitialised_copy_out, 1, "atlas-a2", x, y, sanitize=words)
    texts = [str(w.message) for w in caught if w.category is aj.SanitizerWarning]
    assert [t.split(": [")[0] for t in texts] == [
        "aj.launch on atlas-a2, 1 block (race,init,memory,blocks,sync)",
        "aj.launch on atlas-a2, 1 block (race,init,memory,blocks,sync,dcache,device-sync)",
        "aj.launch on atlas-a2, 1 block (race,init,memory,blocks,sync,strict)"]


def test_a_distribution_of_another_lane_width_names_its_own_width():
    """port67f (ops-math Cast's uint32 -> float VF loads DIST_UNPACK_B32 into an int64 register): the text named
    only DIST_UNPACK_B16's 16-bit type."""
    with aj.Core("ascend950") as core:
        t = core.local_tensor("uint32", 64)
        with pytest.raises(aj.UnsupportedDTypeError, match=r"a 32-bit one for DIST_UNPACK_B32"):
            R.LoadAlign(R.RegTensor("int64"), t, dist=R.LoadDist.DIST_UNPACK_B32)


def _fill_then_init_buffer(x, ws):
    """ops-math ReduceMeanV2's Init (port67i): InitGlobalMemory before the InitBuffer whose tile it shares."""
    pipe = aj.TPipe()
    wg, xg = aj.GlobalTensor("float"), aj.GlobalTensor("float")
    wg.SetGlobalBuffer(ws, 16)
    xg.SetGlobalBuffer(x, 64)
    aj.InitGlobalMemory(wg, 16, np.float32(0))
    q = aj.TQue(aj.QuePosition.VECIN, 1)
    pipe.InitBuffer(q, 1, 256)
    t = q.AllocTensor("float")
    aj.DataCopy(t, xg, 64)
    q.EnQue(t)
    q.FreeTensor(q.DeQue("float"))


def test_a_race_with_init_global_memorys_buffer_says_where_its_bytes_come_from():
    """The devkit's InitGlobalMemory fills through a UB buffer above the buffers initialised so far: the fix says
    to call it after the InitBuffers, and offers no queue hand-off (none can order the devkit's own copies)."""
    with aj.sanitize_session("report") as session:
        aj.launch(_fill_then_init_buffer, 1, "atlas-a2", np.ones(64, np.float32), np.zeros(16, np.float32))
    fixes = [r.fix for r in session.reports if r.check == "race"]
    assert len(fixes) == 2
    for fix in fixes:
        assert "call InitGlobalMemory after the InitBuffers" in fix and "TQue" not in fix
