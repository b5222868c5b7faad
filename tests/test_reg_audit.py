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
    """A Python int no 64-bit type holds cannot reach compiled code: the VF runs as plain Python for that call, so
    Duplicate's D29 check refuses it by its parameter name, compiled or not (SPEC-2 11.1: identical results; it was
    a ParameterError naming "argument 1" when compiled)."""
    @R.simd_vf
    def vf(out, value):
        reg = R.RegTensor("uint64")
        R.Duplicate(reg, value)
        R.StoreAlign(out, reg, R.CreateMask("uint64"))
    with aj.Core("ascend950", sanitize=False) as c:   # a VF on a sanitizing core runs as plain Python
        out = c.local_tensor("uint64", 32)
        out[:] = np.zeros(32, np.uint64)
        with pytest.raises(ParameterError, match=f"'scalar' = {2 ** 70}"):
            vf(out, 2 ** 70)


def test_vf_argument_beyond_64_bits_rounds_to_a_float_register_as_plain_python_does():
    """The same int into a float register is a value (D29: one RNE rounding), compiled or not."""
    @R.simd_vf
    def vf(out, value):
        reg = R.RegTensor("float")
        R.Duplicate(reg, value)
        R.StoreAlign(out, reg, R.CreateMask("float"))
    with aj.Core("ascend950", sanitize=False) as c:
        out = c.local_tensor("float", 64)
        vf(out, 2 ** 70 + 2 ** 46 + 1)   # a tie at 2**70 + 2**46 broken upwards by the last bit
        compiled = out.numpy().copy()
        vf.py_func(out, 2 ** 70 + 2 ** 46 + 1)
        assert compiled.tobytes() == out.numpy().tobytes()
        assert compiled[0] == np.float32(2 ** 70 + 2 ** 47)


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


@pytest.mark.parametrize("sanitize, compiled", [(False, False), (True, False), (False, True)])
def test_vf_ending_with_a_pending_unaligned_store_it_made_is_refused(sanitize, compiled):
    """py_func, a sanitizing core (whose VFs run uncompiled) and the compiled VF (it ended silently) check the
    UnalignRegForStore the VF made at its return (SPEC-2 11.6, D68)."""
    with aj.Core("ascend950", sanitize=sanitize) as c:
        src, out = c.local_tensor("half", 128), c.local_tensor("half", 128)
        src[:] = np.arange(128, dtype=np.float16)
        out[:] = np.zeros(128, np.float16)
        run = VF_UNALIGNED if sanitize or compiled else VF_UNALIGNED.py_func
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
    elif form == 1:
        R.StoreAlign(out, R.CreateMask("uint16"), offset=16)
    else:  # DIST_NORM with every argument by name
        R.LoadAlign(reg, src, offset=0)
        R.StoreAlign(out, reg, mask=R.CreateMask("uint16"), offset=16)


VF_OFFSET_KEYWORD = R.simd_vf(_vf_offset_keyword)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("form", [0, 1, 2], ids=["data_block_copy", "mask_reg", "norm"])
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
        assert (got[16:144] == np.arange(128)).all() if form != 1 else (got[16:32] == 0xFFFF).all()


def test_store_unalign_takes_post_update_stride_by_name(core):
    """SPEC-2 11.6 names StoreUnAlign's fifth parameter post_update_stride."""
    out, reg, ureg = _half(core), R.RegTensor("half"), R.UnalignRegForStore()
    assert R.StoreUnAlign(out, reg, ureg, 0, post_update_stride=16) == 16


def _vf_move_mask(out, dtype):
    R.StoreAlign(out, R.MoveMask(dtype), 0)


VF_MOVE_MASK = R.simd_vf(_vf_move_mask)


@pytest.mark.parametrize("compiled", [False, True])
def test_move_mask_in_a_vf_reads_the_core_register(core, compiled):
    """SPEC-2 11.1 / 11.7 (G-5): MoveMask works inside a compiled VF as in plain Python (it raised StateError
    compiled): after SetVectorMask(hi=0, lo=0b101) in Normal mode, half -> bits 0, 1, 4, 5; float -> bits 0..3 and
    8..11; counter mode is a StateError, the UB unchanged."""
    run = VF_MOVE_MASK if compiled else VF_MOVE_MASK.py_func
    core.SetVectorMask(0, 0b101)
    out = core.local_tensor("uint8", 32)
    for dtype, expected in (("half", [0x33, 0]), ("float", [0x0F, 0x0F, 0])):
        out[:] = np.zeros(32, np.uint8)
        run(out, dtype)
        assert list(out.numpy()[:len(expected)]) == expected and not out.numpy()[len(expected):].any()
    core.SetMaskCount()
    out[:] = np.full(32, 9, np.uint8)
    with pytest.raises(aj.errors.StateError, match="counter"):
        run(out, "half")
    assert (out.numpy() == 9).all()


@pytest.mark.parametrize("compiled", [False, True])
def test_move_mask_in_a_vf_refuses_a_non_950_current_core(compiled):
    with aj.Core("ascend950") as c:
        out = c.local_tensor("uint8", 32)
        out[:] = np.zeros(32, np.uint8)
    with aj.Core("atlas-a2"):
        with pytest.raises(UnsupportedDeviceError, match="MoveMask"):
            (VF_MOVE_MASK if compiled else VF_MOVE_MASK.py_func)(out, "half")
    with pytest.raises(aj.errors.StateError, match="no current core"):
        (VF_MOVE_MASK if compiled else VF_MOVE_MASK.py_func)(out, "half")


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


# --- the direct-call plans (Max/Min/Div/Exp, Reduce/ReduceMax/ReduceSum, ReduceDataBlock) check their enum
# arguments as plain Python does (SPEC-2 1.8, 11.1); an enum of another class is refused everywhere ---------------
def _vf_direct_mode(out, src, op, mode):
    a, d = R.RegTensor("half"), R.RegTensor("half")
    R.LoadAlign(a, src)
    R.LoadAlign(d, out)
    m = R.CreateMask("half", R.MaskPattern.VL1)
    if op == 0:
        R.Max(d, a, a, m, mode)
    elif op == 1:
        R.Exp(d, a, m, mode)
    elif op == 2:
        R.Reduce(d, a, m, R.ReduceType.SUM, mode)
    else:
        R.ReduceSum(d, a, m, mode)
    R.StoreAlign(out, d, R.CreateMask("half"))


def _vf_foreign_enum(out, src, op):
    a, d = R.RegTensor("half"), R.RegTensor("half")
    R.LoadAlign(a, src)
    m = R.CreateMask("half")
    if op == 0:
        R.Reduce(d, a, m, aj.ReduceType.MAX)              # the Memory-API ReduceType
    elif op == 1:
        R.Add(d, a, a, m, R.HighLowPart.HIGHEST)          # value 1 = MERGING, but not a MaskMergeMode
    elif op == 2:
        R.LoadAlign(d, src, 0, dist=R.StoreDist.DIST_FIRST_ELEMENT_B16)
    else:
        R.ReduceDataBlock(d, a, m, aj.ReduceType.SUM)
    R.StoreAlign(out, d, R.CreateMask("half"))


VF_DIRECT_MODE, VF_FOREIGN_ENUM = R.simd_vf(_vf_direct_mode), R.simd_vf(_vf_foreign_enum)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("mode", [2, -1], ids=repr)
@pytest.mark.parametrize("op, api", [(0, "Max"), (1, "Exp"), (2, "Reduce"), (3, "Reduce")])
def test_direct_call_mode_outside_the_enum_is_refused(core, compiled, mode, op, api):
    """A compiled Max/Exp/Reduce/ReduceSum read any mode but 1 as ZEROING (the IS_ONE operand): now the
    ParameterError of plain Python, naming the API and `mode`, before anything is written."""
    src, out = _half(core, [1] * 128), _half(core, [7] * 128)
    with pytest.raises(ParameterError, match=f"{api}: parameter 'mode'"):
        (VF_DIRECT_MODE if compiled else VF_DIRECT_MODE.py_func)(out, src, op, mode)
    assert (out.numpy() == 7).all()


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("op, name", [(0, "reduce_type"), (1, "mode"), (2, "dist"), (3, "reduce_type")])
def test_an_enum_of_another_class_is_refused(core, compiled, op, name):
    """SPEC-2 11.4 / 1.8: the Memory-API ReduceType where the Reg one is expected, a HighLowPart as a merge mode, a
    StoreDist as a LoadDist: ParameterError in a compiled VF as in plain Python (compiled code read their values)."""
    src, out = _half(core, [1] * 128), _half(core, [7] * 128)
    with pytest.raises(ParameterError, match=name):
        (VF_FOREIGN_ENUM if compiled else VF_FOREIGN_ENUM.py_func)(out, src, op)
    assert (out.numpy() == 7).all()


# --- SPEC-2 11.6 / 1.1: `offset=` on the dual (interleaving) loads and stores -----------------------------------
def _vf_dual_offset(out, src, by_name):
    r0, r1 = R.RegTensor("uint16"), R.RegTensor("uint16")
    m = R.CreateMask("uint16")
    if by_name:
        R.LoadAlign(r0, r1, src, offset=16, dist=R.LoadDist.DIST_DINTLV_B16)
        R.StoreAlign(out, r0, r1, m, offset=32, dist=R.StoreDist.DIST_INTLV_B16)
    else:
        R.LoadAlign(r0, r1, src, 16)
        R.StoreAlign(out, r0, r1, m, 32)


VF_DUAL_OFFSET = R.simd_vf(_vf_dual_offset)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("by_name", [False, True])
def test_dual_load_and_store_take_offset_by_name(core, compiled, by_name):
    """`LoadAlign(reg0, reg1, tensor, offset=16)` / `StoreAlign(tensor, reg0, reg1, mask, offset=32)` raised
    TypeError (the offset slot held the tensor / the mask); G-4: DINTLV then INTLV writes the elements back."""
    src = core.local_tensor("uint16", 512)
    src[:] = np.arange(512, dtype=np.uint16)
    out = core.local_tensor("uint16", 512)
    out[:] = np.zeros(512, np.uint16)
    (VF_DUAL_OFFSET if compiled else VF_DUAL_OFFSET.py_func)(out, src, by_name)
    got = out.numpy()
    assert not got[:32].any() and (got[32:288] == np.arange(16, 272)).all() and not got[288:].any()


def test_offset_given_twice_is_a_parameter_error(core):
    src, reg = _half(core), R.RegTensor("half")
    with pytest.raises(ParameterError, match="offset"):
        R.LoadAlign(reg, src, 0, offset=16)
    with pytest.raises(ParameterError, match="offset"):
        R.LoadAlign(reg, R.RegTensor("half"), src, 0, offset=16)


# --- SPEC-2 11.3 / 1.1: Duplicate's second parameter is `scalar` (or `src_reg` for the register form) -------------
def _vf_duplicate_names(out, src, form):
    r, s = R.RegTensor("half"), R.RegTensor("half")
    R.LoadAlign(s, src)
    if form == 0:
        R.Duplicate(r, scalar=2.5)
    else:
        R.Duplicate(r, src_reg=s, mask=R.CreateMask("half", R.MaskPattern.VL4))
    R.StoreAlign(out, r, R.CreateMask("half"))


VF_DUPLICATE_NAMES = R.simd_vf(_vf_duplicate_names)


@pytest.mark.parametrize("compiled", [False, True])
def test_duplicate_takes_scalar_and_src_reg_by_name(core, compiled):
    src, out = _half(core, [3] * 128), _half(core)
    run = VF_DUPLICATE_NAMES if compiled else VF_DUPLICATE_NAMES.py_func
    run(out, src, 0)
    assert (out.numpy() == 2.5).all()
    run(out, src, 1)
    assert list(out.numpy()[:6]) == [3, 3, 3, 3, 0, 0]
    with pytest.raises(ParameterError, match="scalar"):
        R.Duplicate(R.RegTensor("half"), 1.0, src_reg=R.RegTensor("half"))


def _vf_cast_trait(out, src, trait):
    a, b = R.RegTensor("half"), R.RegTensor("int8")
    R.LoadAlign(a, src)
    R.Cast(b, a, R.CreateMask("half"), trait)
    R.StoreAlign(out, b, R.CreateMask("int8"))


VF_CAST_TRAIT = R.simd_vf(_vf_cast_trait)


@pytest.mark.parametrize("compiled", [False, True])
def test_cast_trait_field_of_another_enum_is_refused(core, compiled):
    """SPEC-2 11.5 / 1.8: a CastTrait field must be its own enum's member (or value): layoutMode = SatMode.SAT
    (the same value as RegLayout.ZERO) was read as ZERO by compiled code."""
    src, out = _half(core, [1] * 128), core.local_tensor("int8", 256)
    out[:] = np.full(256, 7, np.int8)
    trait = R.CastTrait(R.SatMode.SAT, R.SatMode.SAT, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_RINT)
    with pytest.raises(ParameterError, match="trait.layoutMode"):
        (VF_CAST_TRAIT if compiled else VF_CAST_TRAIT.py_func)(out, src, trait)
    assert (out.numpy() == 7).all()
    good = trait._replace(layoutMode=R.RegLayout.ZERO)
    (VF_CAST_TRAIT if compiled else VF_CAST_TRAIT.py_func)(out, src, good)
    assert list(out.numpy()[:4]) == [1, 0, 1, 0]


# --- SPEC-2 11.1: the overflow modes are those of the core the VF runs on, also for registers never loaded ------
def _vf_duplicated_operands(out_half, out_int):
    a, d = R.RegTensor("half"), R.RegTensor("half")
    R.Duplicate(a, 65504.0)
    R.Add(d, a, a, R.CreateMask("half"))
    R.StoreAlign(out_half, d, R.CreateMask("half"))
    i, j = R.RegTensor("int16"), R.RegTensor("int16")
    R.Duplicate(i, 32767)
    R.Mul(j, i, i, R.CreateMask("int16"))
    R.StoreAlign(out_int, j, R.CreateMask("int16"))


VF_DUPLICATED_OPERANDS = R.simd_vf(_vf_duplicated_operands)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("saturating", [False, True])
def test_registers_filled_by_duplicate_use_the_core_modes(compiled, saturating):
    """Registers only Duplicate filled carried the 950's power-on modes (INF/NaN half, integer wrap) whatever the
    core: MAX + MAX gave inf and 32767 * 32767 gave 1 on a saturating core. B-6/B-7 (RegBV-T11/T16) on such
    operands: inf / 65504 and 1 / 32767."""
    core = aj.Core("ascend950")
    core.SetCtrlSpr(48, 48, 0 if saturating else 1)
    core.SetCtrlSpr(53, 53, 1 if saturating else 0)
    out_half, out_int = core.local_tensor("half", 128), core.local_tensor("int16", 128)
    for _ in range(2):  # the first compiled call and the planned one
        out_half[:] = np.zeros(128, np.float16)
        out_int[:] = np.zeros(128, np.int16)
        (VF_DUPLICATED_OPERANDS if compiled else VF_DUPLICATED_OPERANDS.py_func)(out_half, out_int)
        assert (out_half.numpy() == (65504.0 if saturating else np.inf)).all()
        assert (out_int.numpy() == (32767 if saturating else 1)).all()


def _vf_unaligned_tail(out, src, offset):
    reg = R.RegTensor("half")
    R.Load(reg, src, offset)
    R.StoreAlign(out, reg, R.CreateMask("half"))


VF_UNALIGNED_TAIL = R.simd_vf(_vf_unaligned_tail)


@pytest.mark.parametrize("compiled", [False, True])
def test_unaligned_load_of_a_tensor_tail(core, compiled):
    """SPEC-2 11.6: LoadUnAlign's VL bytes must lie in the tensor, the 32-byte blocks around them in the UB: the last
    128 halves of a 145-half tensor (290 bytes) load (it was refused: the block rounding reached byte 320)."""
    src = core.local_tensor("half", 145)
    src[:] = np.arange(145, dtype=np.float16)
    out = _half(core)
    run = VF_UNALIGNED_TAIL if compiled else VF_UNALIGNED_TAIL.py_func
    run(out, src, 17)
    assert (out.numpy() == np.arange(17, 145)).all()
    with pytest.raises(aj.errors.OutOfBoundsError):
        run(out, src, 18)


def _vf_mask_only(dst, src):
    R.Not(dst, src, R.CreateMask("half"))


VF_MASK_ONLY = R.simd_vf(_vf_mask_only)


@pytest.mark.parametrize("compiled", [False, True])
def test_vf_without_tensors_refuses_a_non_950_current_core(compiled):
    """SPEC-2 11.1: every Reg function refuses a non-950 core; a compiled VF of MaskReg operations alone (no tensor
    whose device could be checked) ran under `with aj.Core("atlas-a2")`."""
    run = VF_MASK_ONLY if compiled else VF_MASK_ONLY.py_func
    dst = R.MaskReg((5, 5, 5, 5))
    with aj.Core("ascend950"):
        run(dst, R.MaskReg((1, 2, 3, 4)))  # compiled: the call that makes the planned path
    assert dst.bits() & 0xFFFF == 0xFFFE
    dst = R.MaskReg((5, 5, 5, 5))
    with aj.Core("atlas-a2"):
        with pytest.raises(UnsupportedDeviceError):
            run(dst, R.MaskReg((1, 2, 3, 4)))
    assert dst.words == R.MaskReg((5, 5, 5, 5)).words


def test_compiled_scalar_range_refusals_read_as_plain_python_ones():
    """D29's refusal of an integer scalar outside the register type names the same range compiled as plain (the
    compiled one said "inside the register type's range" without the numbers)."""
    @R.simd_vf
    def vf(out, value, T):
        reg = R.RegTensor(T)
        R.Duplicate(reg, value)
        R.StoreAlign(out, reg, R.CreateMask(T))
    with aj.Core("ascend950", sanitize=False) as c:
        for T, value in (("int16", 40000), ("uint8", -1), ("int64", 2**63), ("uint64", -1), ("uint32", 2**32)):
            out = c.local_tensor(T, 256 // aj.dtypes.resolve(T).size)
            messages = []
            for f in (vf, vf.py_func):
                with pytest.raises(ParameterError) as e:
                    f(out, value, T)
                messages.append(str(e.value))
            assert messages[0] == messages[1] and f"for {T} (no implicit wrap" in messages[0], messages
