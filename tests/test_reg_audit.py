"""Conformance audit of the plain-Python Reg API's refusals (SPEC-2 1.8, 11.1; docs/decisions.md "Integer
parameters"): every malformed enum or integer argument is a ParameterError naming the parameter (never a bare
ValueError/TypeError, never silently read as another value), raised before anything is written, and register-only
operations refuse a non-950 current core."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.errors import ParameterError, UnsupportedDeviceError

R = aj.Reg


@pytest.fixture
def core():
    with aj.Core("ascend950") as c:
        yield c


def _half(core, values=()):
    t = core.local_tensor("half", 128)
    a = np.zeros(128, np.float16)
    a[:len(values)] = values
    t[:] = a
    return t


BAD_ENUMS = [5, -1, 1.0, "MAX", True, None, aj.ReduceType.MAX]


@pytest.mark.parametrize("bad", BAD_ENUMS, ids=repr)
def test_reduce_type_must_be_a_reg_reduce_type(core, bad):
    src, dst = R.RegTensor("half"), R.RegTensor("half")
    before = dst.numpy().copy()
    with pytest.raises(ParameterError, match="reduce_type"):
        R.Reduce(dst, src, R.CreateMask("half"), bad)
    assert (dst.numpy() == before).all()


@pytest.mark.parametrize("bad", [2, -1, 1.0, "MERGING", True, None, R.ReduceType.MAX], ids=repr)
@pytest.mark.parametrize("api", ["Add", "Max", "Duplicate"])
def test_merge_mode_must_be_zeroing_or_merging(core, api, bad):
    a, d = R.RegTensor("half"), R.RegTensor("half")
    with pytest.raises(ParameterError, match="mode"):
        if api == "Duplicate":
            R.Duplicate(d, 1.0, R.CreateMask("half"), bad)
        else:
            getattr(R, api)(d, a, a, R.CreateMask("half"), bad)


@pytest.mark.parametrize("bad", [2, -1, "x", True, 1.5], ids=repr)
@pytest.mark.parametrize("api", ["Pack", "UnPack"])
def test_high_low_part_must_be_a_member(core, api, bad):
    dst = R.MaskReg((5, 5, 5, 5))
    with pytest.raises(ParameterError, match="part"):
        getattr(R, api)(dst, R.CreateMask("half"), bad)
    assert dst.words == R.MaskReg((5, 5, 5, 5)).words


@pytest.mark.parametrize("kw, value", [("dist", "x"), ("dist", 1.5), ("dist", True), ("dist", R.StoreDist.DIST_NORM),
                                       ("post_update_stride", 2 ** 40), ("data_block_stride", 1.5),
                                       ("data_block_stride", True), ("data_block_stride", "x"),
                                       ("repeat_stride", 1.5), ("post_mode", 2), ("post_mode", -1),
                                       ("post_mode", 1.5)], ids=repr)
def test_load_align_arguments_are_checked(core, kw, value):
    src = _half(core)
    extra = {} if kw in ("dist", "post_update_stride") else {"data_block_stride": 1, "mask": R.CreateMask("half")}
    extra[kw] = value
    reg = R.RegTensor("half")
    with pytest.raises(ParameterError, match=kw):
        R.LoadAlign(reg, src, 0, **extra)


@pytest.mark.parametrize("kw, value", [("dist", "x"), ("dist", R.LoadDist.DIST_NORM), ("post_mode", 2)], ids=repr)
def test_store_align_arguments_are_checked_before_writing(core, kw, value):
    dst = _half(core, [7] * 128)
    reg = R.RegTensor("half")
    R.LoadAlign(reg, _half(core, [1] * 128))
    ub = core.ub.copy()
    with pytest.raises(ParameterError, match=kw):
        if kw == "post_mode":
            R.StoreAlign(dst, reg, 0, data_block_stride=1, mask=R.CreateMask("half"), post_mode=value)
        else:
            R.StoreAlign(dst, reg, R.CreateMask("half"), 0, dist=value)
    assert (core.ub == ub).all()


@pytest.mark.parametrize("trait", [("a", 0, 0, 0), (1.5, 0, 2, 8), (1, 0, 2, 8.0), (1, 0, True, 8)], ids=repr)
def test_cast_trait_fields_are_enum_values(core, trait):
    with pytest.raises(ParameterError, match="trait"):
        R.Cast(R.RegTensor("float"), R.RegTensor("half"), R.CreateMask("half"), trait)


@pytest.mark.parametrize("call", [lambda: R.UpdateMask("half", 3), lambda: R.CreateMask("half")],
                         ids=["UpdateMask", "CreateMask"])
def test_mask_makers_refuse_a_non_950_current_core(call):
    """SPEC-2 11.1: every Reg function refuses a non-950 core (UpdateMask/CreateMask were accepted there)."""
    with aj.Core("atlas-a2"):
        with pytest.raises(UnsupportedDeviceError):
            call()


def test_vf_argument_beyond_64_bits_is_a_parameter_error():
    """A Python int no 64-bit type holds cannot reach a compiled VF: a ParameterError naming the argument, not
    numba's typing error."""
    @R.simd_vf
    def vf(out, value):
        reg = R.RegTensor("uint64")
        R.Duplicate(reg, value)
        R.StoreAlign(out, reg, R.CreateMask("uint64"))
    with aj.Core("ascend950") as c:
        out = c.local_tensor("uint64", 32)
        out[:] = np.zeros(32, np.uint64)
        with pytest.raises(ParameterError, match="argument 1"):
            vf(out, 2 ** 70)


# --- compiled VFs: the same refusals as plain Python (SPEC-2 11.1: identical results), as AscendJitErrors --------
def _vf_blocks(out, src, post_mode):
    reg = R.RegTensor("half")
    R.LoadAlign(reg, src, 0, data_block_stride=1, mask=R.CreateMask("half"), post_mode=post_mode)
    R.StoreAlign(out, reg, R.CreateMask("half"))


def _vf_duplicate(out, value):
    reg = R.RegTensor("half")
    R.Duplicate(reg, value)
    R.StoreAlign(out, reg, R.CreateMask("half"))


def _vf_add_mode(out, src, mode):
    a, d = R.RegTensor("half"), R.RegTensor("half")
    R.LoadAlign(a, src)
    R.LoadAlign(d, out)
    R.Add(d, a, a, R.CreateMask("half", R.MaskPattern.VL1), mode)
    R.StoreAlign(out, d, R.CreateMask("half"))


def _vf_pack(dst, part):
    R.Pack(dst, R.CreateMask("half"), part)


VF_BLOCKS, VF_DUPLICATE, VF_ADD_MODE, VF_PACK = (R.simd_vf(f) for f in (_vf_blocks, _vf_duplicate, _vf_add_mode,
                                                                          _vf_pack))


@pytest.mark.parametrize("compiled", [False, True])
def test_block_copy_post_mode_outside_the_enum_is_refused(core, compiled):
    src, out = _half(core, range(128)), _half(core, [7] * 128)
    ub = core.ub.copy()
    with pytest.raises(ParameterError, match="post_mode"):
        (VF_BLOCKS if compiled else VF_BLOCKS.py_func)(out, src, 2)
    assert (core.ub == ub).all()


@pytest.mark.parametrize("compiled", [False, True])
def test_duplicate_of_a_bool_is_a_parameter_error_in_a_vf(core, compiled):
    out = _half(core, [7] * 128)
    with pytest.raises(ParameterError, match="bool"):
        (VF_DUPLICATE if compiled else VF_DUPLICATE.py_func)(out, True)
    assert (out.numpy() == 7).all()


@pytest.mark.parametrize("compiled", [False, True])
def test_merge_mode_outside_the_enum_is_refused_in_a_vf(core, compiled):
    src, out = _half(core, [1] * 128), _half(core, [7] * 128)
    with pytest.raises(ParameterError, match="mode"):
        (VF_ADD_MODE if compiled else VF_ADD_MODE.py_func)(out, src, 2)
    assert (out.numpy() == 7).all()


@pytest.mark.parametrize("compiled", [False, True])
def test_pack_part_outside_the_enum_is_refused_in_a_vf(core, compiled):
    dst = R.MaskReg((5, 5, 5, 5))
    with pytest.raises(ParameterError, match="part"):
        (VF_PACK if compiled else VF_PACK.py_func)(dst, 2)
    assert dst.words == R.MaskReg((5, 5, 5, 5)).words


def test_reg_cast_int32_to_uint16_is_not_offered(core):
    """SPEC-2 11.5: int32 -> uint16 is not an in-scope pair (DK Cast.md table 3 lists int32 -> uint8, int16, float,
    int64; only table 9 has a row for it)."""
    from ascend_jit.errors import UnsupportedDTypeError
    with pytest.raises(UnsupportedDTypeError):
        R.Cast(R.RegTensor("uint16"), R.RegTensor("int32"), R.CreateMask("int32"),
               R.CastTrait(R.RegLayout.ZERO, R.SatMode.SAT, R.MaskMergeMode.ZEROING, aj.RoundMode.UNKNOWN))
    assert ("int32", "uint16") not in R.CAST_PAIRS


# --- SPEC-2 11.6 / D68: a VF that ends with bytes pending in an UnalignRegForStore is refused (StateError) -------
def _vf_unaligned_store(out, src, post):
    reg, ureg = R.RegTensor("half"), R.UnalignRegForStore()
    R.LoadAlign(reg, src)
    R.StoreUnAlign(out, reg, ureg, 1, 20)    # bytes 2..41: 2..31 written now, 32..41 pending
    if post:
        R.StoreUnAlignPost(out, ureg, 21)


def _vf_given_ureg(out, src, ureg):
    reg = R.RegTensor("half")
    R.LoadAlign(reg, src)
    R.StoreUnAlign(out, reg, ureg, 0, 20)


VF_UNALIGNED, VF_GIVEN_UREG = R.simd_vf(_vf_unaligned_store), R.simd_vf(_vf_given_ureg)


@pytest.mark.parametrize("sanitize", [False, True])
def test_plain_vf_ending_with_a_pending_unaligned_store_is_refused(sanitize):
    """py_func (and a sanitizing core, whose VFs run uncompiled) check the VF's UnalignRegForStore at return."""
    with aj.Core("ascend950", sanitize=sanitize) as c:
        src, out = c.local_tensor("half", 128), c.local_tensor("half", 128)
        src[:] = np.arange(128, dtype=np.float16)
        out[:] = np.zeros(128, np.float16)
        run = VF_UNALIGNED if sanitize else VF_UNALIGNED.py_func
        with pytest.raises(aj.errors.StateError, match="UnalignRegForStore"):
            run(out, src, False)
        run(out, src, True)
        assert (out.numpy()[1:21] == np.arange(20)).all()


@pytest.mark.parametrize("compiled", [False, True])
def test_vf_ending_with_a_given_store_ureg_pending_is_refused(compiled):
    with aj.Core("ascend950") as c:
        src, out = c.local_tensor("half", 128), c.local_tensor("half", 128)
        src[:] = np.arange(128, dtype=np.float16)
        out[:] = np.zeros(128, np.float16)
        with pytest.raises(aj.errors.StateError, match="StoreUnAlignPost"):
            (VF_GIVEN_UREG if compiled else VF_GIVEN_UREG.py_func)(out, src, R.UnalignRegForStore())


# --- SPEC-2 1.1 keywords: every parameter also by its snake_case name -------------------------------------------
def _vf_offset_keyword(out, src, form):
    reg = R.RegTensor("uint16")
    R.LoadAlign(reg, src)
    if form == 0:
        R.StoreAlign(out, reg, offset=16, data_block_stride=1, mask=R.CreateMask("uint16"))
    else:
        R.StoreAlign(out, R.CreateMask("uint16"), offset=16)


VF_OFFSET_KEYWORD = R.simd_vf(_vf_offset_keyword)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("form", [0, 1], ids=["data_block_copy", "mask_reg"])
def test_store_align_offset_keyword_is_honoured(compiled, form):
    """`StoreAlign(tensor, reg, offset=16, data_block_stride=1, mask=m)` and `StoreAlign(tensor, mask_reg,
    offset=16)` wrote at offset 0 (the keyword was silently ignored)."""
    with aj.Core("ascend950") as c:
        src, out = c.local_tensor("uint16", 128), c.local_tensor("uint16", 256)
        src[:] = np.arange(128, dtype=np.uint16)
        out[:] = np.zeros(256, np.uint16)
        (VF_OFFSET_KEYWORD if compiled else VF_OFFSET_KEYWORD.py_func)(out, src, form)
        got = out.numpy()
        assert (got[:16] == 0).all()
        assert (got[16:144] == np.arange(128)).all() if form == 0 else (got[16:32] == 0xFFFF).all()


def test_store_unalign_takes_post_update_stride_by_name(core):
    """SPEC-2 11.6 names StoreUnAlign's fifth parameter post_update_stride."""
    out, reg, ureg = _half(core), R.RegTensor("half"), R.UnalignRegForStore()
    assert R.StoreUnAlign(out, reg, ureg, 0, post_update_stride=16) == 16


def _vf_move_mask(out):
    R.StoreAlign(out, R.MoveMask("half"), 0)


VF_MOVE_MASK = R.simd_vf(_vf_move_mask)


def test_move_mask_in_a_compiled_vf_is_a_state_error_not_a_typing_error(core):
    """SPEC-2 11.7 MoveMask reads the core's mask register: plain Python (py_func) reads it; a compiled VF cannot
    see it and says so with an AscendJitError (it was numba's TypingError). Known gap, reported to the lead."""
    core.SetVectorMask(0, 0b101)
    out = core.local_tensor("uint8", 32)
    out[:] = np.zeros(32, np.uint8)
    VF_MOVE_MASK.py_func(out)
    assert out.numpy()[0] == 0x33
    out[:] = np.zeros(32, np.uint8)
    with pytest.raises(aj.errors.StateError, match="MoveMask"):
        VF_MOVE_MASK(out)
    assert (out.numpy() == 0).all()


def _vf_update_mask(out, n):
    mask, rest = R.UpdateMask("half", n)
    R.StoreAlign(out, mask, 0)
    return rest


VF_UPDATE_MASK = R.simd_vf(_vf_update_mask)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("n", [-1, 2**32])
def test_update_mask_count_outside_uint32_is_refused(core, compiled, n):
    out = core.local_tensor("uint8", 32)
    out[:] = np.zeros(32, np.uint8)
    with pytest.raises(ParameterError, match="'n'"):
        (VF_UPDATE_MASK if compiled else VF_UPDATE_MASK.py_func)(out, n)
    assert (out.numpy() == 0).all()
