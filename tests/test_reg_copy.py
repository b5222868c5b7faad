"""Reg Copy / Move on data registers (docs/decisions.md "Reg Copy"): asc-devkit's CopyImpl (vmov), named Copy and
Move (7e76732e7 kernel_micro_copy_intf_impl.h; the current reg_compute/dav_3510/kernel_reg_compute_copy_impl.h):
dst = src, or with a mask dst's lanes where it selects them (MERGING only: the others keep dst). ops-math PadV3's
PadBothSide merges Duplicated pad values into a loaded row with it (`Copy(vReg, vRegTmp, pMask)`)."""
import numpy as np
import pytest

import ascend_jit as aj

R = aj.Reg


def _copies(out, src_t, n):
    a, b, c = R.RegTensor("half"), R.RegTensor("half"), R.RegTensor("half")
    R.LoadAlign(a, src_t, 0)
    R.Duplicate(b, 7.0)
    R.Duplicate(c, -1.0)
    m, n = R.UpdateMask("half", n)
    R.Copy(b, a, m)                       # MERGING: lanes past n keep 7
    R.Move(c, a, m, R.MaskMergeMode.MERGING)
    R.StoreAlign(out, b, R.CreateMask("half"), 0)
    R.StoreAlign(out, c, R.CreateMask("half"), 128)
    R.Copy(b, a)                          # the whole register
    R.StoreAlign(out, b, R.CreateMask("half"), 256)


COPIES_VF = R.simd_vf(_copies)


@pytest.mark.parametrize("compiled", [True, False])
def test_copy_and_move_merge_the_selected_lanes(compiled):
    core = aj.Core("ascend950")
    src, out = core.local_tensor("half", 128), core.local_tensor("half", 384)
    x = np.arange(128, dtype=np.float16) - np.float16(64)
    src[:] = x
    with core:
        (COPIES_VF if compiled else _copies)(out, src, 37)
    got = out.numpy()
    assert got[:128].tolist() == x[:37].tolist() + [7.0] * 91
    assert got[128:256].tolist() == x[:37].tolist() + [-1.0] * 91
    assert got[256:384].tolist() == x.tolist()


def test_copy_refusals_change_nothing():
    core = aj.Core("ascend950")
    with core:
        dst, h, f = R.RegTensor("half"), R.RegTensor("half"), R.RegTensor("float")
        R.Duplicate(dst, 3.0)
        before = dst.numpy().tobytes()
        with pytest.raises(aj.UnsupportedDTypeError, match="Copy"):
            R.Copy(dst, f)
        with pytest.raises(aj.ParameterError, match="MERGING"):
            R.Copy(dst, h, R.CreateMask("half"), R.MaskMergeMode.ZEROING)
        with pytest.raises(aj.ParameterError, match="Copy"):
            R.Copy(R.MaskReg(), R.MaskReg())
        assert dst.numpy().tobytes() == before


def _copy_refused(out, src_t, case, d1, d2):
    """A refused Copy / Move of each kind (d1, d2: dtype names passed as arguments, so compiled the kinds are run-time
    values and the kernel's own check speaks)."""
    a, b = R.RegTensor(d1), R.RegTensor(d2)
    R.LoadAlign(a, src_t, 0)
    if case == 0:
        R.Copy(a, b)                                    # registers of two types
    elif case == 1:
        R.Copy(a, R.CreateMask("half"))                 # a MaskReg source
    elif case == 2:
        R.Copy(a, a, R.CreateMask("half"), R.MaskMergeMode.ZEROING)
    elif case == 3:
        R.Copy(a, a, R.CreateMask("half"), True)        # a bool is no MaskMergeMode (SPEC-2 1.8)
    elif case == 4:
        R.Move(R.MaskReg(), R.CreateMask("half"), R.CreateMask("half"), R.MaskMergeMode.ZEROING)
    elif case == 5:
        R.MaskMov(R.MaskReg(), R.CreateMask("half"), R.CreateMask("half"), R.MaskMergeMode.MERGING)
    R.StoreAlign(out, a, R.CreateMask(d1), 0)


COPY_REFUSED_VF = R.simd_vf(_copy_refused)
REFUSALS = ((aj.UnsupportedDTypeError, r"Copy.*dst"), (aj.ParameterError, r"Copy: parameter 'src'"),
            (aj.ParameterError, r"Copy: parameter 'mode'.*MERGING"), (aj.ParameterError, r"Copy: parameter 'mode'"),
            (aj.ParameterError, r"Move: parameter 'mode'.*no mode"), (aj.ParameterError, r"Move: parameter 'mode'"))


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "plain"])
@pytest.mark.parametrize("case", range(len(REFUSALS)))
def test_copy_and_move_refusals_name_the_call_compiled_and_plain(case, compiled):
    """Compiled, the kinds check names Copy (not Select, whose kernel Copy runs), the parameter named is the one
    refused, a bool mode is refused as plain Python refuses it, and a MaskReg Move (MaskMov) given a mode is refused
    (the devkit's MaskReg Move has none) rather than the mode ignored."""
    core = aj.Core("ascend950")
    src, out = core.local_tensor("half", 128), core.local_tensor("half", 128)
    src[:] = np.arange(128, dtype=np.float16)
    before = core.ub.copy()
    error, message = REFUSALS[case]
    with core:
        with pytest.raises(error, match=message):
            (COPY_REFUSED_VF if compiled else _copy_refused)(out, src, case, "half", "float" if case == 0 else "half")
    assert np.array_equal(core.ub, before)
