"""Operands of the wrong kind given to this session's Reg names (DataCopy*, StoreUnAlign, Copy, the MaskReg aliases),
plain and from a compiled VF (black-box report hostile15): each is the refusal plain Python makes, an AscendJitError
naming the API and the parameter, with the UB and every register unchanged. Compiled code had taken a numpy array or
the other unaligned register kind for a register (reading and writing past its end), read a float or a bool as an
enum value, and named the wrong operand; plain Python had leaked a TypeError or numba's OverflowError."""
import numpy as np
import pytest

import ascend_jit as aj

pytestmark = pytest.mark.ascend_sanitize(
    checks="", reason="what a compiled VF does with bad operands: a sanitizing core runs every VF plain")

R = aj.Reg


def _data_copy_two(a, b):
    return R.DataCopy(a, b)


def _data_copy_unalign_three(a, b, c):
    return R.DataCopyUnAlign(a, b, c)


def _store_unalign(t, r, u, n):
    end = R.StoreUnAlign(t, r, u, 0, n)
    R.StoreUnAlignPost(t, u, end)


def _store_unalign_post(t, u):
    R.StoreUnAlignPost(t, u, 0)


def _load_unalign(r, u, t):
    R.LoadUnAlignPre(u, t, 0)
    R.LoadUnAlign(r, u, t, 0)


def _load_dist(r, t, dist):
    R.LoadAlign(r, t, 0, dist=dist)


def _mask_unpack(d, s, part):
    R.MaskUnPack(d, s, part)


def _mask_not(d, s, m):
    R.MaskNot(d, s, m)


def _copy(d, s, m, mode):
    R.Copy(d, s, m, mode)


def _copy_two(d, s):
    R.Copy(d, s)


def _div(d, a, b, m, mode):
    R.Div(d, a, b, m, mode)


def _load_post_mode(r, t, post_mode):
    R.LoadAlign(r, t, 0, post_mode=post_mode, repeat_stride=post_mode)


def _store_post_mode(t, r, m, post_mode):
    R.StoreAlign(t, r, m, 0, post_mode=post_mode, repeat_stride=post_mode)


def _load_blocks(r, t, m, post_mode, repeat_stride):
    R.LoadAlign(r, t, 0, data_block_stride=1, mask=m, post_mode=post_mode, repeat_stride=repeat_stride)


def _store_blocks(t, r, m, post_mode, repeat_stride):
    R.StoreAlign(t, r, 0, data_block_stride=1, mask=m, post_mode=post_mode, repeat_stride=repeat_stride)


def _load_dual_into_mask(t):
    R.LoadAlign(R.MaskReg(), R.RegTensor("half"), t, 0)


def _store_dual_from_mask(t):
    R.StoreAlign(t, R.MaskReg(), R.RegTensor("half"), R.CreateMask("half"), 0)


def _duplicate_into(t, which):
    if which == 0:
        R.Duplicate(R.MaskReg(), 1)
    elif which == 1:
        R.Duplicate(R.MaskReg(), src_reg=R.RegTensor("half"))
    elif which == 2:
        R.Duplicate(R.UnalignRegForLoad(), 1)
    else:
        R.Duplicate(R.UnalignRegForStore(), 1.5, R.CreateMask("half"), R.MaskMergeMode.MERGING)


VFS = {f.__name__: R.simd_vf(f) for f in (_data_copy_two, _data_copy_unalign_three, _store_unalign,
                                          _store_unalign_post, _load_unalign, _load_dist, _mask_unpack, _mask_not,
                                          _copy, _copy_two, _div, _load_post_mode, _store_post_mode,
                                          _load_blocks, _store_blocks, _load_dual_into_mask, _store_dual_from_mask,
                                          _duplicate_into)}


def _state(core, args):
    """The UB and every register-like argument, copied."""
    return [core.ub.copy()] + [np.array(a.words) if isinstance(a, R.MaskReg) else
                               a.data.copy() if isinstance(a, R.RegTensor) else
                               a.state.copy() if isinstance(a, (R.UnalignRegForLoad, R.UnalignRegForStore)) else
                               a.copy() if isinstance(a, np.ndarray) else None for a in args]


def _refused(name, make_args, error, api, parameter):
    """The VF `name` compiled and plain on fresh operands: `error` naming api and parameter, nothing changed."""
    for compiled in (True, False):
        core = aj.Core("ascend950")
        core.ub[:] = np.arange(core.ub.size, dtype=np.uint64).astype(np.uint8)
        args = make_args(core)
        before = _state(core, args)
        with core:
            with pytest.raises(error) as e:
                (VFS[name] if compiled else VFS[name].py_func)(*args)
        assert e.value.api == api and e.value.parameter == parameter, (compiled, str(e.value))
        after = _state(core, args)
        assert all(x is None and y is None or np.array_equal(x, y) for x, y in zip(before, after)), compiled


def _reg(dtype="uint16"):
    r = R.RegTensor(dtype)
    r.data[:aj.Reg.GetVecLen()] = np.arange(aj.Reg.GetVecLen(), dtype=np.uint8)
    return r


def test_an_old_name_given_none_for_its_tensor_names_the_tensor():
    # DataCopy(mreg, None) forwarded LoadAlign(mreg) alone: "LoadAlign() missing 1 required positional argument"
    _refused("_data_copy_two", lambda core: (R.MaskReg((1, 2, 3, 4)), None), aj.ParameterError, "LoadAlign",
             "tensor")


def test_data_copy_unalign_store_without_offset_and_count_names_the_count():
    # the store form with three arguments forwarded StoreUnAlign(t, reg, ureg): a TypeError about 'offset'
    _refused("_data_copy_unalign_three",
             lambda core: (core.local_tensor("uint16", 256), _reg(), R.UnalignRegForStore()),
             aj.ParameterError, "StoreUnAlign", "post_update_stride")


@pytest.mark.parametrize("count", [2**40, np.uint64(2**64 - 1), -2**40], ids=["2**40", "uint64_max", "-2**40"])
def test_a_store_count_beyond_int32_is_a_parameter_error(count):
    # plain Python passed it to the kernel: numba's OverflowError ("int too big to convert")
    _refused("_store_unalign", lambda core: (core.local_tensor("uint16", 256), _reg(), R.UnalignRegForStore(), count),
             aj.ParameterError, "StoreUnAlign", "post_update_stride")


@pytest.mark.parametrize("case", ["register", "mask"])
def test_a_numpy_array_is_no_register_in_a_compiled_vf(case):
    # compiled code typed a uint8 array as a register and a uint64 array as mask words: LoadAlign wrote 256 bytes
    # into an 8-byte array, MaskNot read 4 words of a 2-word one
    if case == "register":
        _refused("_load_dist", lambda core: (np.zeros(8, np.uint8), core.local_tensor("uint16", 256), 0),
                 aj.ParameterError, "LoadAlign", "reg")
    else:
        _refused("_mask_not", lambda core: (R.MaskReg(), np.zeros(2, np.uint64), R.MaskReg()),
                 aj.ParameterError, "Not", "src")


@pytest.mark.parametrize("case", ["store", "post", "load"])
def test_an_unaligned_register_of_the_other_kind_is_refused_compiled(case):
    # both kinds are int64 state arrays to numba: the 1-word load state was read and written as the 34-word store
    # state (StoreUnAlignPost wrote "pending" bytes from past its end into the UB)
    if case == "store":
        _refused("_store_unalign", lambda core: (core.local_tensor("uint16", 256), _reg(), R.UnalignRegForLoad(), 4),
                 aj.ParameterError, "StoreUnAlign", "ureg")
    elif case == "post":
        _refused("_store_unalign_post", lambda core: (core.local_tensor("uint16", 256), R.UnalignRegForLoad()),
                 aj.ParameterError, "StoreUnAlignPost", "ureg")
    else:
        _refused("_load_unalign", lambda core: (_reg(), R.UnalignRegForStore(), core.local_tensor("uint16", 256)),
                 aj.ParameterError, "LoadUnAlignPre", "ureg")


@pytest.mark.parametrize("case", ["dist", "part"])
def test_a_float_enum_argument_is_refused_compiled(case):
    # compiled code truncated 1.0 to the member of value 1 (DIST_BRC_B8, HIGHEST) and ran
    if case == "dist":
        _refused("_load_dist", lambda core: (_reg("uint8"), core.local_tensor("uint8", 512), 1.0),
                 aj.ParameterError, "LoadAlign", "dist")
    else:
        _refused("_mask_unpack", lambda core: (R.MaskReg(), R.MaskReg((5, 6, 7, 8)), 1.0),
                 aj.ParameterError, "UnPack", "part")


def test_mask_unpack_refuses_a_data_register():
    # compiled code wrote the unpacked words into the register's bytes
    _refused("_mask_unpack", lambda core: (_reg(), R.MaskReg((5, 6, 7, 8)), 0), aj.ParameterError, "UnPack", "dst")


def test_mask_not_refuses_a_missing_mask():
    # compiled code read None as "all lanes"; plain Python's Not requires the mask
    _refused("_mask_not", lambda core: (R.MaskReg(), R.MaskReg((5, 6, 7, 8)), None), aj.ParameterError, "Not",
             "mask")


@pytest.mark.parametrize("mode", [True, 1.0, R.HighLowPart.HIGHEST], ids=["bool", "float", "other_enum"])
def test_copy_reads_its_mode_as_plain_python(mode):
    # compiled Copy compared the mode with 1: True, 1.0 and HIGHEST (value 1) ran as MERGING
    _refused("_copy", lambda core: (_reg("float"), _reg("float"), R.MaskReg((5, 6, 7, 8)), mode),
             aj.ParameterError, "Copy", "mode")


@pytest.mark.parametrize("case", ["mask_source", "none_source", "two_types"])
def test_copy_names_the_operand_compiled(case):
    # compiled Copy named 'dst' = 'an aj.Reg.MaskReg' whatever the operand, and two register types as Select's
    if case == "mask_source":
        _refused("_copy_two", lambda core: (_reg("float"), R.MaskReg()), aj.ParameterError, "Copy", "src")
    elif case == "none_source":
        _refused("_copy_two", lambda core: (_reg("float"), None), aj.ParameterError, "Copy", "src")
    else:
        _refused("_copy_two", lambda core: (_reg("float"), _reg("half")), aj.UnsupportedDTypeError, "Copy",
                 "dst dtype")


def test_an_explicit_none_mode_is_refused_compiled():
    # the direct calls (Div, Max, Exp, ...) folded mode=None as the absent mode: compiled Div ran ZEROING
    _refused("_div", lambda core: (_reg("float"), _reg("float"), _reg("float"), R.MaskReg((5, 6, 7, 8)), None),
             aj.ParameterError, "Div", "mode")


@pytest.mark.parametrize("case", ["copy_mode", "unpack_part"])
def test_an_explicit_none_enum_is_refused_compiled(case):
    # the enum readers take None as the argument left out: compiled Copy(..., None) ran MERGING, MaskUnPack(d, s,
    # None) LOWEST, where plain Python refuses None (review15b: the merge of hostile15 kept review15's Copy overload,
    # which had lost hostile15's "mode None is no compiled call")
    if case == "copy_mode":
        _refused("_copy", lambda core: (_reg("float"), _reg("float"), R.MaskReg((5, 6, 7, 8)), None),
                 aj.ParameterError, "Copy", "mode")
    else:
        _refused("_mask_unpack", lambda core: (R.MaskReg(), R.MaskReg((5, 6, 7, 8)), None), aj.ParameterError,
                 "UnPack", "part")


def test_mask_unpack_reads_the_part_before_refusing_a_data_register():
    # plain Python's order: src, the part, then dst; compiled code had named dst first
    _refused("_mask_unpack", lambda core: (_reg(), R.MaskReg((5, 6, 7, 8)), 1.0), aj.ParameterError, "UnPack",
             "part")


@pytest.mark.parametrize("name", ["_load_post_mode", "_store_post_mode"])
def test_none_for_keywords_the_normal_form_ignores_stays_compiled(name):
    # direct_call's explicit-None rule had sent LoadAlign/StoreAlign(..., post_mode=None) plain with an
    # UncompiledVFWarning, though plain Python's DIST_NORM form ignores both keywords
    import warnings
    results = []
    for compiled in (True, False):
        core = aj.Core("ascend950")
        core.ub[:] = np.arange(core.ub.size, dtype=np.uint64).astype(np.uint8)
        t = core.local_tensor("float", 256)
        r = _reg("float")
        args = (r, t, None) if name == "_load_post_mode" else (t, r, R.MaskReg((5, 6, 7, 8)), None)
        with core, warnings.catch_warnings():
            warnings.simplefilter("error", aj.UncompiledVFWarning)
            (VFS[name] if compiled else VFS[name].py_func)(*args)
        results.append((core.ub.copy(), r.data.copy()))
    assert all(np.array_equal(x, y) for x, y in zip(*results))


@pytest.mark.parametrize("name", ["_load_blocks", "_store_blocks"])
@pytest.mark.parametrize("none", ["post_mode", "repeat_stride"])
def test_none_for_a_block_copy_keyword_is_refused_compiled(name, none):
    # the DATA_BLOCK_COPY form's readers took None as left out (NORMAL, 0); plain Python refuses it
    api = "LoadAlign" if name == "_load_blocks" else "StoreAlign"
    post_mode, repeat_stride = (None, 0) if none == "post_mode" else (R.PostLiteral.POST_MODE_NORMAL, None)

    def make(core):
        t, r = core.local_tensor("float", 512), _reg("float")
        return (r, t) + (R.MaskReg((5, 6, 7, 8)), post_mode, repeat_stride) if name == "_load_blocks" else \
            (t, r, R.MaskReg((5, 6, 7, 8)), post_mode, repeat_stride)
    _refused(name, make, aj.ParameterError, api, none)


@pytest.mark.parametrize("case", ["load dual", "store dual", "duplicate scalar", "duplicate src_reg",
                                  "duplicate load ureg", "duplicate store ureg"])
def test_a_mask_or_unaligned_register_is_no_data_register_of_a_dual_load_store_or_duplicate(case):
    # compiled code wrote or read a register's 264 bytes over a MaskReg's four words or an UnalignReg's state (the
    # dual LoadAlign/StoreAlign and Duplicate overloads took any register-like array; session-24 hunt): heap
    # corruption, a crash or a garbage refusal, where plain Python refuses the operand's type
    tensor = lambda core: core.local_tensor("half", 1024)  # noqa: E731
    if case == "load dual":
        _refused("_load_dual_into_mask", lambda core: (tensor(core),), aj.ParameterError, "LoadAlign", "reg0")
    elif case == "store dual":
        _refused("_store_dual_from_mask", lambda core: (tensor(core),), aj.ParameterError, "StoreAlign", "reg0")
    else:
        which = ["duplicate scalar", "duplicate src_reg", "duplicate load ureg", "duplicate store ureg"].index(case)
        _refused("_duplicate_into", lambda core: (tensor(core), which), aj.ParameterError, "Duplicate", "dst")


def _dual_load_at(out, src, off):
    a, b = R.RegTensor("half"), R.RegTensor("half")
    R.LoadAlign(a, b, src, off)
    R.StoreAlign(out, a, R.CreateMask("half"), 0)


def _load_stepping(out, src, step):
    r = R.RegTensor("half")
    step = R.LoadAlign(r, src, 0, post_update_stride=step)
    R.StoreAlign(out, r, R.CreateMask("half"), 0)
    return step


def _mask_load_stepping(out, src, step):
    return R.LoadAlign(R.MaskReg(), src, 0, post_update_stride=step)


def _store_stepping(out, src, step):
    return R.StoreAlign(out, R.RegTensor("half"), R.CreateMask("half"), 0, post_update_stride=step)


def _load_blocks_strided(out, src, block_stride, repeat_stride):
    r = R.RegTensor("half")
    R.LoadAlign(r, src, 0, data_block_stride=block_stride, mask=R.CreateMask("half"), repeat_stride=repeat_stride)
    R.StoreAlign(out, r, R.CreateMask("half"), 0)


def _store_blocks_strided(out, src, block_stride, repeat_stride):
    R.StoreAlign(out, R.RegTensor("half"), 0, data_block_stride=block_stride, mask=R.CreateMask("half"),
                 repeat_stride=repeat_stride)


def _ceil_division(out, src, a, b):
    return R.CeilDivision(a, b)


def _uint32_ceils(out, src, a, b):
    return aj.DivCeil(a, b), aj.ConstCeil(a, b), aj.AlignUp(a, b)


_AS_PLAIN = {f.__name__: R.simd_vf(f) for f in (_dual_load_at, _load_stepping, _mask_load_stepping, _store_stepping,
                                                _load_blocks_strided, _store_blocks_strided, _ceil_division,
                                                _uint32_ceils)}


def _as_plain(name, *args):
    """The VF compiled and plain on fresh cores with the same bytes: the same result or refusal (class and words) and
    the same UB."""
    outcomes = []
    for run in (_AS_PLAIN[name], _AS_PLAIN[name].py_func):
        core = aj.Core("ascend950")
        core.ub[:] = np.arange(core.ub.size) % 251 + 1
        out, src = core.local_tensor("half", 512), core.local_tensor("half", 512, addr=1024)
        with core:
            try:
                outcome = ("returned", run(out, src, *args))
            except aj.AscendJitError as refused:
                outcome = (type(refused).__name__, str(refused))
        outcomes.append((outcome, core.ub.tobytes()))
    assert outcomes[0] == outcomes[1]
    return outcomes[0][0]


@pytest.mark.parametrize("value", [16.0, np.float32(16.0), True], ids=["float", "float32", "bool"])
@pytest.mark.parametrize("name, position", [("_dual_load_at", 0), ("_load_stepping", 0), ("_mask_load_stepping", 0),
                                            ("_store_stepping", 0), ("_load_blocks_strided", 0),
                                            ("_load_blocks_strided", 1), ("_store_blocks_strided", 0),
                                            ("_store_blocks_strided", 1)])
def test_a_float_or_bool_offset_step_or_stride_is_refused_compiled_as_plain(name, position, value):
    # the load/store overloads passed a float on as its value and a bool as 1 (the kernels took them): compiled code
    # ran and wrote where plain Python refuses "a float is not an integer" (session-24 hunt)
    args = [1, 0][:2 if "blocks" in name else 1]
    args[position] = value
    assert _as_plain(name, *args)[0] == "ParameterError"


@pytest.mark.parametrize("a, b, want", [(7, np.uint64(2**64 - 1), "ParameterError"),
                                        (np.uint64(2**63), 3, "ParameterError"), (np.uint64(10), np.uint64(3), 4),
                                        (np.uint64(2**63 - 1), np.int8(-2), -(2**62 - 2))])
def test_ceil_division_refuses_a_uint64_beyond_int64_compiled_as_plain(a, b, want):
    # np.int64 had wrapped it: CeilDivision(7, np.uint64(2**64 - 1)) gave -5 compiled
    outcome = _as_plain("_ceil_division", a, b)
    assert (outcome[0] if isinstance(want, str) else outcome[1]) == want


@pytest.mark.parametrize("a, b, want", [(130, 64, (3, 3, 192)), (0, 1, (0, 0, 0)), (0xFFFFFFFF, 2, (0, 0, 0)),
                                        (0xFFFFFFE0, 0x20, (0x7FFFFFF, 0x7FFFFFF, 0xFFFFFFE0)),
                                        (np.uint32(7), np.int8(2), (4, 4, 8)), (-1, 3, "ParameterError"),
                                        (5, 0, "ParameterError"), (2**32, 1, "ParameterError"),
                                        (np.uint64(2**63), 3, "ParameterError")])
def test_div_ceil_const_ceil_align_up_in_a_vf_compiled_as_plain(a, b, want):
    """AscendC's DivCeil / ConstCeil / AlignUp in a VF (reg38: devkit mergemode's VFs size loops with DivCeil; the
    VF had run plain): uint32_t arithmetic, the sum and AlignUp's product wrapping modulo 2**32, operands outside
    [0, 2**32 - 1] and a zero divisor refused, compiled as plain."""
    outcome = _as_plain("_uint32_ceils", a, b)
    assert (outcome[0] if isinstance(want, str) else outcome[1]) == want


def _own_array_as(t, case):
    register, words = np.zeros(8, np.uint8), np.zeros(1, np.uint64)
    if case == 0:
        R.LoadAlign(register, t, 0)
    elif case == 1:
        R.Duplicate(register, 1)
    elif case == 2:
        R.Add(register, register, register, R.CreateMask("half"))
    elif case == 3:
        R.StoreAlign(t, register, R.CreateMask("half"), 0)
    elif case == 4:
        R.LoadAlign(words, t, 0)
    else:
        r = R.RegTensor("half")
        R.Add(r, r, r, words)


_OWN_ARRAY_AS = R.simd_vf(_own_array_as)


@pytest.mark.parametrize("case", range(6), ids=["LoadAlign", "Duplicate", "Add", "StoreAlign", "mask LoadAlign",
                                                "Add mask"])
def test_a_numpy_array_the_vf_made_is_no_register_compiled(case):
    # numba types it as a register of a run-time kind (a plain uint8 array) or a MaskReg's words (uint64): the kernels
    # had read and written 264 bytes / four words of an 8-byte array (heap corruption; session-24 hunt). Refused
    # before any kernel runs, in the compiled code's own words (docs/decisions.md), the UB unchanged
    for run in (_OWN_ARRAY_AS, _own_array_as):
        core = aj.Core("ascend950")
        t = core.local_tensor("half", 1024)
        before = core.ub.copy()
        with core, pytest.raises(aj.ParameterError, match="ndarray"):
            run(t, case)
        assert (core.ub == before).all()
