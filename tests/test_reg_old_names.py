"""The devkit's earlier Reg names DataCopy, DataCopyUnAlign, DataCopyUnAlignPre and DataCopyUnAlignPost
(docs/decisions.md "Reg DataCopy names"): every load and store form through the old names, compiled and plain,
leaves the whole UB and returns what the new names (LoadAlign, StoreAlign, LoadUnAlign(Pre), StoreUnAlign(Post))
do, and a refusal names the new name the old one stands for."""
import numpy as np
import pytest

import ascend_jit as aj

R = aj.Reg
FORMS = ("norm", "dist", "dual", "mask_register", "blocks", "unaligned", "keywords")


def _old_names(out, src, form, off, off2, mask):
    """Each form through the old names; returns the post-update offsets the calls return."""
    reg, reg1, mreg = R.RegTensor("uint16"), R.RegTensor("uint16"), R.MaskReg()
    if form == 0:
        a = R.DataCopy(reg, src, off)
        b = R.DataCopy(out, reg, mask, off2)
    elif form == 1:
        a = R.DataCopy(reg, src, off, dist=R.LoadDist.DIST_US_B16, post_update_stride=64)
        b = R.DataCopy(out, reg, mask, off2, dist=R.StoreDist.DIST_PACK_B32, post_update_stride=32)
    elif form == 2:
        a = R.DataCopy(reg, reg1, src, off, dist=R.LoadDist.DIST_DINTLV_B16)
        b = R.DataCopy(out, reg, reg1, mask, off2, dist=R.StoreDist.DIST_INTLV_B16)
    elif form == 3:
        a = R.DataCopy(mreg, src, off)
        b = R.DataCopy(out, mreg, off2)
    elif form == 4:
        a = R.DataCopy(reg, src, off, data_block_stride=2, mask=mask, repeat_stride=1,
                       post_mode=R.PostLiteral.POST_MODE_UPDATE)
        b = R.DataCopy(out, reg, off2, data_block_stride=1, mask=mask)
    elif form == 5:
        ul, us = R.UnalignRegForLoad(), R.UnalignRegForStore()
        R.DataCopyUnAlignPre(ul, src, off + 3)
        a = R.DataCopyUnAlign(reg, ul, src, off + 3)
        b = R.DataCopyUnAlign(out, reg, us, off2 + 5, 77)
        b = R.DataCopyUnAlignPost(out, us, b, 4)
    else:
        a = R.DataCopy(dst=reg, src=src, offset=off, post_update_stride=128)
        b = R.DataCopy(out, reg, mask=mask, offset=off2)
    return a, b


def _new_names(out, src, form, off, off2, mask):
    """The same calls through the new names (run in plain Python: the reference of the comparison)."""
    reg, reg1, mreg = R.RegTensor("uint16"), R.RegTensor("uint16"), R.MaskReg()
    if form == 0:
        a = R.LoadAlign(reg, src, off)
        b = R.StoreAlign(out, reg, mask, off2)
    elif form == 1:
        a = R.LoadAlign(reg, src, off, dist=R.LoadDist.DIST_US_B16, post_update_stride=64)
        b = R.StoreAlign(out, reg, mask, off2, dist=R.StoreDist.DIST_PACK_B32, post_update_stride=32)
    elif form == 2:
        a = R.LoadAlign(reg, reg1, src, off, dist=R.LoadDist.DIST_DINTLV_B16)
        b = R.StoreAlign(out, reg, reg1, mask, off2, dist=R.StoreDist.DIST_INTLV_B16)
    elif form == 3:
        a = R.LoadAlign(mreg, src, off)
        b = R.StoreAlign(out, mreg, off2)
    elif form == 4:
        a = R.LoadAlign(reg, src, off, data_block_stride=2, mask=mask, repeat_stride=1,
                        post_mode=R.PostLiteral.POST_MODE_UPDATE)
        b = R.StoreAlign(out, reg, off2, data_block_stride=1, mask=mask)
    elif form == 5:
        ul, us = R.UnalignRegForLoad(), R.UnalignRegForStore()
        R.LoadUnAlignPre(ul, src, off + 3)
        a = R.LoadUnAlign(reg, ul, src, off + 3)
        b = R.StoreUnAlign(out, reg, us, off2 + 5, 77)
        b = R.StoreUnAlignPost(out, us, b, 4)
    else:
        a = R.LoadAlign(dst=reg, src=src, offset=off, post_update_stride=128)
        b = R.StoreAlign(out, reg, mask=mask, offset=off2)
    return a, b


OLD_NAMES_VF = R.simd_vf(_old_names)


def _run(fn, form, seed):
    core = aj.Core("ascend950")
    src, out = core.local_tensor("uint16", 2048), core.local_tensor("uint16", 2048)
    core.ub[:] = np.random.default_rng(seed).integers(0, 256, core.ub.size, dtype=np.uint8)
    rng = np.random.default_rng(seed + 1)
    off, off2 = (int(v) for v in rng.integers(0, 8, 2) * 16)
    mask = R.MaskReg(tuple(rng.integers(0, 2**64, 4, dtype=np.uint64)))
    with core:
        result = fn(out, src, form, off, off2, mask)
    return core.ub.copy(), tuple(int(v) for v in result)


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "plain"])
@pytest.mark.parametrize("form", range(len(FORMS)), ids=FORMS)
def test_old_names_are_the_new_ones(form, compiled):
    for seed in (1, 2, 3):
        got_ub, got = _run(OLD_NAMES_VF if compiled else _old_names, form, seed)
        want_ub, want = _run(_new_names, form, seed)
        assert got == want
        assert np.array_equal(got_ub, want_ub)


def test_old_name_refusals_name_the_new_name_and_change_nothing():
    core = aj.Core("ascend950")
    src = core.local_tensor("uint16", 256)
    core.ub[:] = 7
    reg = R.RegTensor("uint16")
    before = core.ub.copy()
    with core:
        with pytest.raises(aj.ParameterError, match="LoadAlign") as e:
            R.DataCopy(reg, src, 0, None, 5)
        assert "arguments" in str(e.value)
        with pytest.raises(aj.AscendJitError, match="LoadAlign"):
            R.DataCopy(reg, src, 3)  # not 32-byte aligned (SPEC-2 11.6)
        with pytest.raises(aj.AscendJitError, match="StoreAlign"):
            R.DataCopy(src, reg, R.CreateMask("uint16"), 3)
        with pytest.raises(aj.AscendJitError, match="LoadUnAlign"):
            R.DataCopyUnAlign(reg, R.UnalignRegForLoad(), src, 0)  # no DataCopyUnAlignPre (D68)
    assert np.array_equal(core.ub, before)


def _unaligned_load_count_by_name(out, src, old):
    """DataCopyUnAlign's load with its post-update count by name and the offset left out (LoadUnAlign's default 0)."""
    reg, ul = R.RegTensor("uint16"), R.UnalignRegForLoad()
    if old:
        R.DataCopyUnAlignPre(ul, src)
        a = R.DataCopyUnAlign(reg, ul, src, post_update_stride=48)
    else:
        R.LoadUnAlignPre(ul, src)
        a = R.LoadUnAlign(reg, ul, src, post_update_stride=48)
    R.StoreAlign(out, reg, R.CreateMask("uint16"), 0)
    return a


UNALIGNED_COUNT_VF = R.simd_vf(_unaligned_load_count_by_name)


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "plain"])
def test_unaligned_load_count_by_name_without_offset(compiled):
    """A left-out offset is not passed on as None (it was: LoadUnAlign refused offset None)."""
    results = []
    for old in (True, False):
        core = aj.Core("ascend950")
        src, out = core.local_tensor("uint16", 256), core.local_tensor("uint16", 128)
        src[:] = np.arange(256, dtype=np.uint16)
        with core:
            a = (UNALIGNED_COUNT_VF if compiled and old else _unaligned_load_count_by_name)(out, src, old)
        results.append((int(a), core.ub.copy()))
    assert results[0][0] == results[1][0] == 48
    assert np.array_equal(results[0][1], results[1][1])
