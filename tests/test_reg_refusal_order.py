"""A compiled VF and plain Python refuse a Reg call with two faults alike (SPEC-2 11.1: identical results; 1.8):
the same error class, API and parameter. Compiled code checks an enum `mode` before the kernel checks the dtypes,
and makes Axpy's scalar register (dtypes, then the scalar) before the mode; the kernels name the parameter plain
Python names ('dtype', 'dst dtype', 'src1 dtype')."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.errors import AscendJitError

R = aj.Reg


def _vf(out, src, dst_type, src_type, op, mode, scalar):
    a, d = R.RegTensor(src_type), R.RegTensor(dst_type)
    m = R.CreateMask(src_type)
    R.LoadAlign(a, src)
    if op == 0:
        R.Mul(d, a, a, m, mode)
    elif op == 1:
        R.MulAddDst(d, a, a, m, mode)
    elif op == 2:
        R.AbsSub(d, a, a, m, mode)
    elif op == 3:
        R.MulDstAdd(d, a, a, m, mode)
    elif op == 4:
        R.Axpy(d, a, scalar, m, mode)
    else:
        R.Adds(d, a, scalar, m, mode)
    R.StoreAlign(out, d, R.CreateMask(dst_type))


def _vf_arange(out, src, dst_type, src_type, op, mode, scalar):
    d = R.RegTensor(dst_type)
    R.Arange(d, scalar, mode)
    R.StoreAlign(out, d, R.CreateMask(dst_type))


VF, VF_ARANGE = R.simd_vf(_vf), R.simd_vf(_vf_arange)


def _refusal(compiled, dst_type, src_type, op, mode, scalar=1.0):
    with aj.Core("ascend950") as core:
        src = core.local_tensor(src_type, 256 // np.dtype(aj.dtypes.resolve(src_type).np_dtype).itemsize)
        out = core.local_tensor(dst_type, 256 // np.dtype(aj.dtypes.resolve(dst_type).np_dtype).itemsize)
        ub = core.ub.copy()
        with pytest.raises(AscendJitError) as refused:
            vf = VF_ARANGE if op == 6 else VF
            (vf if compiled else vf.py_func)(out, src, dst_type, src_type, op, mode, scalar)
        assert (core.ub == ub).all()
    e = refused.value
    return type(e).__name__, e.api, e.parameter


@pytest.mark.parametrize("dst_type, src_type, op, mode, scalar, want", [
    ("int8", "int8", 0, 2, 1.0, ("ParameterError", "Mul", "mode")),  # Mul int8 and a mode outside the enum
    ("half", "int8", 0, 0, 1.0, ("UnsupportedDTypeError", "Mul", "dtype")),  # src0's dtype before the dst's
    ("int8", "int8", 1, 2, 1.0, ("ParameterError", "MulAddDst", "mode")),
    ("int16", "int16", 2, -1, 1.0, ("ParameterError", "AbsSub", "mode")),
    ("int8", "int8", 1, 0, 1.0, ("UnsupportedDTypeError", "MulAddDst", "dtype")),
    ("half", "half", 3, 0, 1.0, ("UnsupportedDTypeError", "MulDstAdd", "dtype")),
    ("half", "float", 1, 0, 1.0, ("UnsupportedDTypeError", "MulAddDst", "dst dtype")),
    ("int64", "int64", 4, 1, 1.5, ("ParameterError", "Axpy", "scalar")),  # the scalar before the mode
    ("int8", "int8", 4, 0, 1.0, ("UnsupportedDTypeError", "Axpy", "dtype")),
    ("half", "float", 4, 0, 1.0, ("UnsupportedDTypeError", "Axpy", "dst dtype")),
    ("half", "float", 5, 0, 1.0, ("UnsupportedDTypeError", "Adds", "dst dtype")),
    ("int32", "int32", 5, 1, 1.5, ("ParameterError", "Adds", "scalar")),  # the scalar before the mode, as Axpy
    ("uint16", "uint16", 6, 2, 3, ("ParameterError", "Arange", "order")),  # Arange: the order before the dtype,
    ("uint16", "uint16", 6, 0, True, ("UnsupportedDTypeError", "Arange", "dst dtype")),  # which comes before a
    ("int16", "int16", 6, 2, True, ("ParameterError", "Arange", "order")),  # bool scalar
], ids=str)
def test_compiled_and_plain_refuse_alike(dst_type, src_type, op, mode, scalar, want):
    assert _refusal(False, dst_type, src_type, op, mode, scalar) == want
    assert _refusal(True, dst_type, src_type, op, mode, scalar) == want


def _vf_block_copy(t, dtype, block_stride, repeat_stride, store):
    r = R.RegTensor(dtype)
    if store:
        R.StoreAlign(t, r, 0, data_block_stride=block_stride, mask=R.CreateMask(dtype), repeat_stride=repeat_stride)
    else:
        R.LoadAlign(r, t, 0, data_block_stride=block_stride, mask=R.CreateMask(dtype), repeat_stride=repeat_stride)


VF_BLOCK_COPY = R.simd_vf(_vf_block_copy)


@pytest.mark.parametrize("store", [False, True])
@pytest.mark.parametrize("dtype, block_stride, repeat_stride, parameter", [
    ("half", 1, -8, "repeat_stride"),             # compiled code had named 'data_block_stride/repeat_stride', '>= 0'
    ("half", -1, 2**31 - 1, "data_block_stride"),
    ("int64", -1, 0, "data_block_stride"),        # the stride before the b64 register (compiled had checked it first)
    ("int64", 0, 2**31, "repeat_stride"),
])
def test_block_copy_strides_are_refused_alike(dtype, block_stride, repeat_stride, parameter, store):
    """DATA_BLOCK_COPY strides (SPEC-2 11.6; int32, decisions.md "Reg API"): the compiled VF names the parameter,
    value and range plain Python names, and checks them before the register's element size, as plain Python does
    (SPEC-2 11.1: identical results; 1.8)."""
    refusals = []
    for compiled in (False, True):
        with aj.Core("ascend950") as core:
            t = core.local_tensor("uint8", 1024)
            ub = core.ub.copy()
            with pytest.raises(AscendJitError) as refused:
                (VF_BLOCK_COPY if compiled else VF_BLOCK_COPY.py_func)(t, dtype, block_stride, repeat_stride, store)
            assert (core.ub == ub).all()
        refusals.append((type(refused.value).__name__, str(refused.value)))
    assert refusals[0] == refusals[1]
    assert refusals[0][0] == "ParameterError" and f"parameter '{parameter}'" in refusals[0][1]
    assert "[0, 2147483647]" in refusals[0][1]


def _vf_int32_ranges(t, form, offset, dist, stride, dtype):
    r, r1, m = R.RegTensor(dtype), R.RegTensor(dtype), R.MaskReg()
    if form == 0:
        return R.LoadAlign(r, t, offset, dist=dist, post_update_stride=stride)
    elif form == 1:
        return R.LoadAlign(r, r1, t, offset, dist=dist, post_update_stride=stride)
    elif form == 2:
        return R.StoreAlign(t, r, R.CreateMask(dtype), offset, dist=dist, post_update_stride=stride)
    elif form == 3:
        return R.LoadAlign(m, t, offset, dist=dist, post_update_stride=stride)
    return R.StoreAlign(t, m, offset, dist=dist, post_update_stride=stride)


VF_INT32_RANGES = R.simd_vf(_vf_int32_ranges)


@pytest.mark.parametrize("form, offset, dist, stride, dtype, parameter", [
    (3, 0, R.MaskDist.DIST_NORM, 2**40, "half", "post_update_stride"),   # compiled had run it, returning 2**40
    (4, 0, R.MaskDist.DIST_NORM, -2**31 - 32, "half", "post_update_stride"),
    (0, 2**31, R.LoadDist.DIST_BRC_B16, 0, "int8", "offset"),  # compiled had named the B16 width first
    (0, 0, R.LoadDist.DIST_US_B16, 2**31, "int8", "post_update_stride"),
    (1, 2**31, R.LoadDist.DIST_DINTLV_B32, 0, "half", "offset"),
    (2, -2**31 - 1, R.StoreDist.DIST_NORM, 0, "half", "offset"),  # compiled named another legal range
    (2, 0, R.StoreDist.DIST_PACK4_B32, 2**31, "int64", "post_update_stride"),
])
def test_int32_offsets_and_strides_are_refused_alike(form, offset, dist, stride, dtype, parameter):
    """Load/store offsets and post_update_strides are int32 (decisions.md "Reg API"): a compiled VF refuses one
    outside with plain Python's class, parameter, value and legal range, and before the distribution and register
    checks, as plain Python checks them first (SPEC-2 11.1: identical results; 1.8); the UB is unchanged."""
    refusals = []
    for compiled in (False, True):
        with aj.Core("ascend950") as core:
            t = core.local_tensor("uint8", 4096)
            ub = core.ub.copy()
            with pytest.raises(AscendJitError) as refused:
                (VF_INT32_RANGES if compiled else VF_INT32_RANGES.py_func)(t, form, offset, dist, stride, dtype)
            assert (core.ub == ub).all()
        refusals.append((type(refused.value).__name__, str(refused.value)))
    assert refusals[0] == refusals[1]
    assert refusals[0][0] == "ParameterError" and f"parameter '{parameter}'" in refusals[0][1]


def _vf_unaligned_ranges(t, form, offset, n):
    r, ul, us = R.RegTensor("half"), R.UnalignRegForLoad(), R.UnalignRegForStore()
    if form == 0:
        R.LoadUnAlignPre(ul, t, 0)
        return R.LoadUnAlign(r, ul, t, offset, n)
    elif form == 1:
        return R.StoreUnAlignPost(t, us, offset, n)
    elif form == 2:
        return R.StoreUnAlign(t, r, us, offset, n)
    R.Store(t, r, offset, n)
    return 0


VF_UNALIGNED_RANGES = R.simd_vf(_vf_unaligned_ranges)


@pytest.mark.parametrize("form, offset, n, parameter", [
    (0, 0, 2**40, "post_update_stride"),       # compiled LoadUnAlign had returned 2**40
    (1, 0, 2**31, "post_update_stride"),       # compiled StoreUnAlignPost had returned 2**31
    (1, -2**31 - 1, 0, "offset"),
    (2, 2**31, 300, "offset"),                 # the offset before the count's lanes, as plain Python
    (2, 0, 2**40, "post_update_stride"),       # the count's int32 range before its lanes
    (3, 0, 2**31, "count"),
])
def test_unaligned_int32_ranges_are_refused_alike(form, offset, n, parameter):
    """LoadUnAlign, StoreUnAlign, StoreUnAlignPost and Store refuse an offset or stride/count outside int32 compiled
    as plain Python does: class, parameter, value and legal range (SPEC-2 11.1, 11.6; decisions.md "Reg API")."""
    refusals = []
    for compiled in (False, True):
        with aj.Core("ascend950") as core:
            t = core.local_tensor("half", 2048)
            ub = core.ub.copy()
            with pytest.raises(AscendJitError) as refused:
                (VF_UNALIGNED_RANGES if compiled else VF_UNALIGNED_RANGES.py_func)(t, form, offset, n)
            assert (core.ub == ub).all()
        refusals.append((type(refused.value).__name__, str(refused.value)))
    assert refusals[0] == refusals[1]
    assert refusals[0][0] == "ParameterError" and f"parameter '{parameter}'" in refusals[0][1]


@R.simd_vf
def _pair_vf(out, src, dst_type, src_type):
    a, d = R.RegTensor(src_type), R.RegTensor(dst_type)
    R.LoadAlign(a, src)
    R.PairReduceElem(d, a, R.CreateMask(src_type))
    R.StoreAlign(out, d, R.CreateMask(dst_type))


@pytest.mark.parametrize("dst_type, src_type", [("int16", "int16"), ("float", "half"), ("half", "float")])
def test_pair_reduce_elem_dtypes_are_refused_compiled_in_plain_words(dst_type, src_type):
    """SPEC 7.6 / SPEC-2 11.1: the kernel checked dst and src as one pair ('dstReg/srcReg dtypes') where plain Python
    names the source's dtype first, then dst's (audit19r); both runs now give the same message."""
    core = aj.Core("ascend950")
    src, out = core.local_tensor("half", 128), core.local_tensor("half", 128)
    messages = []
    with core:
        for run in (_pair_vf.py_func, _pair_vf):
            with pytest.raises(aj.UnsupportedDTypeError) as refused:
                run(out, src, dst_type, src_type)
            messages.append(str(refused.value))
    assert messages[0] == messages[1], messages


_ONE_OP = {  # one VF per family whose refusal a compiled kernel or enum check words itself; x: the VF's argument
    "Abs": "R.Abs(d, a, m)", "Exp": "R.Exp(d, a, m)", "Div": "R.Div(d, a, a, m)", "Mul": "R.Mul(d, a, a, m)",
    "Muls": "R.Muls(d, a, 2, m)", "Adds": "R.Adds(d, a, 2, m)", "ReduceSum": "R.ReduceSum(d, a, m)",
    "ReduceMax": "R.Reduce(d, a, m, R.ReduceType.MAX)", "MulAddDst": "R.MulAddDst(d, a, a, m)",
    "Axpy": "R.Axpy(d, a, 2, m)", "AbsSub": "R.AbsSub(a, a, d, m)",  # AbsSub: D's register as src1
    "ShiftLefts": "R.ShiftLefts(d, a, 1, m, x)", "ShiftRights": "R.ShiftRights(d, a, 1, m, x)",
    "Abs mode": "R.Abs(d, a, m, x)", "Exp mode": "R.Exp(d, a, m, x)", "Prelu mode": "R.Prelu(d, a, a, m, x)",
    "Muls mode": "R.Muls(d, a, 2, m, x)", "MulAddDst mode": "R.MulAddDst(d, a, a, m, x)",
    "Div algo": "R.Div(d, a, a, m, R.DivSpecificMode(R.MaskMergeMode.ZEROING, False, x))",
    "Div mrgMode": "R.Div(d, a, a, m, R.DivSpecificMode(x, False, 0))",
    "Muls scalar": "R.Muls(d, a, x, m)", "Duplicate": "R.Duplicate(a, x)", "Arange scalar": "R.Arange(a, x)",
    "Reduce type": "R.Reduce(d, a, m, x)", "Reduce type and mode": "R.Reduce(d, a, m, x, x)",
    "ReduceDataBlock mode": "R.ReduceDataBlock(d, a, m, R.ReduceType.SUM, x)",
    "PairReduceElem mode": "R.PairReduceElem(d, a, m, x)", "Select": "R.Select(d, a, a, m)",
    "Cast": "R.Cast(d, a, m)",
    "Cast layoutMode": "R.Cast(d, a, m, R.CastTrait(x, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, "
                       "aj.RoundMode.CAST_RINT))",
    "Cast satMode": "R.Cast(d, a, m, R.CastTrait(R.RegLayout.ZERO, x, R.MaskMergeMode.ZEROING, "
                    "aj.RoundMode.CAST_RINT))",
    "Cast roundMode": "R.Cast(d, a, m, R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, x))",
    "Pack part": "R.Pack(mm, m, x)", "UnPack part": "R.UnPack(mm, m, x)", "CreateMask pattern": "R.CreateMask(T, x)",
    "Copy mode": "R.Copy(d, a, m, x)", "Arange order": "R.Arange(a, 1, x)", "LocalMemBar": "R.LocalMemBar(x, 2)",
    "LoadAlign dist": "R.LoadAlign(a, src, 0, dist=x)", "StoreAlign dist": "R.StoreAlign(out, a, m, 0, dist=x)",
    "RegTensor": "R.RegTensor('complex64')", "UpdateMask": "R.UpdateMask('int4', 3)",
    "Interleave": "R.Interleave(mm, mm, m, m, 'complex64')",
    "other spellings": "R.Duplicate(R.RegTensor('HALF'), x, R.CreateMask('int16_t'))"}


def _one_op_vf(op):
    namespace = {"R": R, "aj": aj}
    exec(f"def vf(out, src, T, D, x):\n    a, d = R.RegTensor(T), R.RegTensor(D)\n"  # noqa: S102
         f"    m = R.CreateMask(T)\n    mm = R.MaskReg()\n    R.LoadAlign(a, src)\n    {_ONE_OP[op]}\n", namespace)
    return namespace["vf"]


@pytest.mark.parametrize("op, src_type, dst_type, x", [
    ("Abs", "uint16", "uint16", 0), ("Abs", "half", "float", 0), ("Exp", "int32", "int32", 0),
    ("Div", "uint8", "uint8", 0), ("Mul", "int8", "int8", 0), ("Muls", "bfloat16", "bfloat16", 0),
    ("Muls", "int32", "int16", 0), ("Adds", "half", "float", 0), ("ReduceSum", "int8", "int8", 0),
    ("ReduceSum", "int16", "int16", 0), ("ReduceSum", "half", "float", 0), ("ReduceMax", "uint8", "uint8", 0),
    ("MulAddDst", "int8", "int8", 0), ("MulAddDst", "half", "float", 0), ("Axpy", "int32", "int16", 0),
    ("Axpy", "uint8", "uint8", 0), ("AbsSub", "half", "float", 0),
    # session 21's audit of the other Reg instructions: each row was worded apart (or refused another fault) before
    ("ShiftLefts", "half", "half", 0),           # 'dst/src dtypes' = ('half', 'half') against 'dtype' = 'half'
    ("ShiftRights", "uint8", "int8", 0),         # against 'dst dtype' = 'int8' (legal: uint8, the source's ...)
    ("ShiftLefts", "int16", "int16", 1),         # mode = 1 against 'MERGING'
    ("ShiftRights", "half", "half", 7),          # plain named the dtype first; the ZEROING-only text for 7
    ("Abs mode", "uint16", "uint16", 7),         # plain named the dtype first
    ("Abs mode", "half", "half", 1), ("Abs mode", "half", "half", True),  # mode = 1 against 'MERGING' / True
    ("Exp mode", "int32", "int32", 7), ("Prelu mode", "int16", "int16", 1), ("Muls mode", "half", "half", 1),
    ("MulAddDst mode", "half", "half", 1),
    ("Div algo", "half", "half", 99),            # 'an aj.DivAlgo member or value (0..5)' against as_enum's list
    ("Div mrgMode", "half", "half", 7),
    ("Muls scalar", "int16", "int16", 1.5),      # 'an integer for an integer register' against D29's words
    ("Duplicate", "int16", "int16", 1.5), ("Duplicate", "int16", "int16", True),  # 'a bool' against True
    ("Duplicate", "int8", "int8", 300), ("Muls scalar", "int16", "int16", -40000),  # the range's row (ROW_TABLES)
    ("Arange scalar", "int16", "int16", True),
    ("Reduce type", "float", "float", 7),        # 'aj.Reg.ReduceType.SUM, MAX or MIN' against as_enum's list
    ("Reduce type and mode", "float", "float", 7),  # plain named the mode first
    ("ReduceDataBlock mode", "half", "half", 1),  # '(SPEC 7.4)' against the kernel's '(MERGING is not supported)'
    ("PairReduceElem mode", "int16", "int16", 1),  # plain named the dtype first
    ("Select", "half", "float", 0),              # 'dtypes' = 'float, half, half' against a tuple, another legal text
    ("Cast", "half", "int64", 0),                # ('half', 'int64') against 'half -> int64'
    ("Cast layoutMode", "half", "int64", 9),     # the pair before the field, as plain Python
    ("Cast satMode", "float", "half", 9),        # compiled named the pair's layoutMode row, not satMode's members
    # members of their enums outside the pair's row: the legal range is the pair's row (errors.py ROW_TABLES)
    ("Cast layoutMode", "half", "float", 3), ("Cast satMode", "half", "float", 1),
    ("Cast roundMode", "half", "float", int(aj.RoundMode.CAST_RINT)),
    ("Pack part", "half", "half", 5), ("UnPack part", "half", "half", True),  # part = 1 against True
    ("Pack part", "half", "half", 0.5), ("Copy mode", "half", "half", 1.0),  # = 0 / 1 against the float given
    ("CreateMask pattern", "half", "half", 99),
    ("CreateMask pattern", "half", "half", 14),  # MaskPattern has no 14: the kernel had named 'a MaskPattern (0-13 ...
    ("Copy mode", "half", "half", 7), ("Arange order", "int16", "int16", 2),
    ("Arange order", "int16", "int16", 5), ("LocalMemBar", "half", "half", 99),
    ("LoadAlign dist", "half", "half", 99), ("StoreAlign dist", "half", "half", 99),
    ("RegTensor", "half", "half", 0),            # compiled gave no "no emulator dtype for it (SPEC-2 D28)"
    ("UpdateMask", "half", "half", 0), ("Interleave", "half", "half", 0),
    ("other spellings", "half", "half", True)], ids=str)  # a bool for a half register ('HALF': compiled had refused it)
def test_compiled_and_plain_refuse_a_dtype_in_the_same_words(op, src_type, dst_type, x):
    """The whole message too (parameter, value, legal range): the kernels' refusals of the unary, engine,
    tensor-scalar, ternary, Mul and Reduce dtypes word them as plain Python does (the review of session 20 found 64 of
    these pairs worded apart: 'dst/src dtypes' = ('int32', ...) against 'dtype' = 'int32', other legal lists); and
    (session 21) the shifts', Select's, Cast's, the scalars' (D29), the modes' and every other enum argument's (a
    compiled enum check names as_enum's list of members, then the instruction's own range), in plain Python's order."""
    plain = _one_op_vf(op)
    words = []
    for vf in (R.simd_vf(plain), plain):
        with aj.Core("ascend950") as core:
            src = core.local_tensor(src_type, 256)
            out = core.local_tensor(src_type, 256)
            ub = core.ub.copy()
            with pytest.raises(AscendJitError) as refused:
                vf(out, src, src_type, dst_type, x)
            assert (core.ub == ub).all()
        words.append((type(refused.value), str(refused.value)))
    assert words[0] == words[1]


@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_a_compiled_vfs_refusal_names_the_vf_and_how_to_see_its_line():
    """A refusal raised inside a compiled VF has no frame of the VF's own source: it carries a note naming the VF and
    its py_func (both the first call and the planned later ones), and a Cast trait's legal range names the pair
    (port52c: of three Casts in a VF, neither the traceback nor "the pair's row" said which one was refused)."""
    plain = _one_op_vf("Cast layoutMode")
    vf = R.simd_vf(plain)
    with aj.Core("ascend950") as core:
        src, out = core.local_tensor("half", 256), core.local_tensor("half", 256)
        for call in range(2):
            with pytest.raises(AscendJitError, match="the half -> float row") as refused:
                vf(out, src, "half", "float", 3)
            notes = getattr(refused.value, "__notes__", [])
            assert len(notes) == 1 and "compiled VF vf" in notes[0] and "vf.py_func(...)" in notes[0], (call, notes)
        with pytest.raises(AscendJitError, match="the half -> float row") as refused:
            plain(out, src, "half", "float", 3)
        assert not getattr(refused.value, "__notes__", [])
        with pytest.raises(AscendJitError) as refused:   # refused before the compiled code runs: no note
            vf(aj.Core("atlas-a2").local_tensor("half", 256), src, "half", "float", 3)
        assert not getattr(refused.value, "__notes__", [])
