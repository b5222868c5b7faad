"""What a compiled VF does with its arguments is what the same VF run as plain Python does (SPEC-2 11.1; README
"Reg API"): dtype names compare as strings, numpy half/bfloat16 scalars (GetValue of a half tensor) are scalars,
64-bit unsigned ints pass whatever came first, defaults and keywords bind as Python binds them, and an argument or a
call numba cannot compile gets the plain run's refusal (an AscendJitError) or, when the plain run works, runs plain
with one UncompiledVFWarning (docs/decisions.md "Reg API")."""
import warnings

import ml_dtypes
import numpy as np
import pytest
from numba.core.errors import TypingError

import ascend_jit as aj

pytestmark = pytest.mark.ascend_sanitize(
    checks="", reason="how a compiled VF takes its arguments: a sanitizing core runs every VF plain")

R = aj.Reg
D950 = "ascend950"
HALF_LANES = 128


def _both(vf, make_args):
    """The whole UB after the compiled run and after the plain run, each on a fresh core with the same tensors."""
    ubs = []
    for compiled in (True, False):
        core = aj.Core(D950)
        args = make_args(core)
        if compiled:
            vf(*args)
        else:
            with core:
                vf.py_func(*args)
        ubs.append(core.ub.copy())
    return ubs


@R.simd_vf
def _dtype_compares(out, T, S, other):
    full = R.CreateMask("half")
    r = R.RegTensor("half")
    R.Duplicate(r, 1.0 if T == "half" else 2.0, full)
    R.StoreAlign(out, r, full, 0)
    R.Duplicate(r, 3.0 if "float16" == T else 4.0, full)  # another spelling of half: unequal, as the strs are
    R.StoreAlign(out, r, full, HALF_LANES)
    R.Duplicate(r, 5.0 if T != "int32" else 6.0, full)
    R.StoreAlign(out, r, full, 2 * HALF_LANES)
    R.Duplicate(r, 7.0 if T == S else 8.0, full)
    R.StoreAlign(out, r, full, 3 * HALF_LANES)
    R.Duplicate(r, 9.0 if other == T else 10.0, full)  # a str that names no dtype stays a str
    R.StoreAlign(out, r, full, 4 * HALF_LANES)


@pytest.mark.parametrize("t, s", [("half", "half"), ("half", "float"), ("float16", "half"), ("int32", "int32")])
def test_dtype_name_arguments_compare_as_their_strings(t, s):
    compiled, plain = _both(_dtype_compares, lambda core: (core.local_tensor("half", 5 * HALF_LANES), t, s, "halfs"))
    assert np.array_equal(compiled, plain)
    out = compiled[:5 * 256].view(np.float16)[::HALF_LANES]
    assert list(out) == [1.0 if t == "half" else 2.0, 3.0 if t == "float16" else 4.0, 5.0 if t != "int32" else 6.0,
                         7.0 if t == s else 8.0, 10.0]


@R.simd_vf
def _muls_by(dst, src, scalar):
    full = R.CreateMask("half")
    r = R.RegTensor("half")
    R.LoadAlign(r, src, 0)
    R.Muls(r, r, scalar, full)
    R.StoreAlign(dst, r, full, 0)


@pytest.mark.parametrize("scalar", [np.float16(0.5), np.float16(-3.25), np.float16(np.inf), np.float16(6e-8),
                                    ml_dtypes.bfloat16(1.5)])
def test_a_numpy_half_or_bfloat16_scalar_is_the_same_scalar_compiled(scalar):
    def make(core):
        src, dst = core.local_tensor("half", HALF_LANES), core.local_tensor("half", HALF_LANES)
        src[:] = np.linspace(-4, 4, HALF_LANES).astype(np.float16)
        return dst, src, scalar
    compiled, plain = _both(_muls_by, make)
    assert np.array_equal(compiled, plain)


@pytest.mark.parametrize("dtype", [np.float16, np.dtype(np.float16), aj.dtypes.HALF, ml_dtypes.bfloat16,
                                   np.dtype(np.int32)])
def test_a_dtype_object_argument_runs_the_vf_plain_with_one_warning(dtype):
    """Plain Python's Reg calls take a numpy dtype, a numpy scalar type or an emulator DType for a dtype; compiled
    code takes dtype names (it refused these at typing). Such a call runs plain, so compiled and plain agree where
    the VF compares its argument with a name too, with one UncompiledVFWarning saying how to run compiled."""
    name = aj.dtypes.resolve(dtype).name
    for vf, make_args in ((_dtype_compares, lambda core: (core.local_tensor("half", 5 * HALF_LANES), dtype, "half",
                                                          "halfs")),
                          (_fill, lambda core: (core.local_tensor(name, HALF_LANES), 3, dtype))):
        fresh = R.simd_vf(vf.py_func)  # the warning is once per VF and tuple of argument types
        with pytest.warns(aj.UncompiledVFWarning, match="takes a dtype by its name"):
            compiled, plain = _both(fresh, make_args)
        assert np.array_equal(compiled, plain) and compiled[:256].any()


@R.simd_vf
def _fill(dst, scalar, T):
    full = R.CreateMask(T)
    r = R.RegTensor(T)
    R.Duplicate(r, scalar, full)
    R.StoreAlign(dst, r, full, 0)


@pytest.mark.parametrize("bits", [0x7E00, 0x7E01, 0x7D00, 0xFE03, 0x7C01])
def test_a_numpy_half_nan_keeps_its_payload_compiled(bits):
    """D29: a numpy scalar of the operand dtype is used bit for bit, NaN payloads included."""
    nan = np.array(bits, np.uint16).view(np.float16)[()]
    compiled, plain = _both(_fill, lambda core: (core.local_tensor("half", HALF_LANES), nan, "half"))
    assert np.array_equal(compiled, plain)
    assert (compiled[:256].view(np.uint16) == bits).all()


@pytest.mark.parametrize("bits", [0x7F800001, 0x7FC00001, 0xFFC00000, 0xFFFFFFFF])
def test_a_numpy_float32_nan_keeps_its_payload_compiled(bits):
    """D29 for float registers (audit15b): a np.float32 NaN is used bit for bit by a compiled VF too. numba passes a
    np.float32 on as a float, whose NaN the compiled Duplicate wrote as the canonical 0x7FC00000; plain kept it."""
    nan = np.array(bits, np.uint32).view(np.float32)[()]
    compiled, plain = _both(_fill, lambda core: (core.local_tensor("float", 64), nan, "float"))
    assert np.array_equal(compiled, plain)
    assert (compiled[:256].view(np.uint32) == bits).all()


@pytest.mark.parametrize("dtype,value,bits", [
    ("float", 2**53 + 2**29 + 1, 0x5A000001), ("float", -(2**60 + 2**36 + 1), 0xDD800001),
    ("float", 2**63 + 2**39 + 1, 0x5F000001), ("bfloat16", 2**60 + 2**52 + 1, 0x5D81),
    ("float", 2**24 + 1, 0x4B800000), ("float", -2**63, 0xDF000000), ("float", 0, 0)])
def test_a_python_int_for_a_float_register_rounds_once_compiled(dtype, value, bits):
    """D29 (audit15b): a Python int for a float operand is rounded once to the register type. The compiled
    conversion went int -> float64 (RNE at 53 bits) -> float/bfloat16, a double rounding: 2**53 + 2**29 + 1 became
    the float tie 2**53 + 2**29 and then 2**53 (0x5A000000) instead of 2**53 + 2**30; the plain run was right."""
    lanes = 256 // (4 if dtype == "float" else 2)
    compiled, plain = _both(_fill, lambda core: (core.local_tensor(dtype, lanes), value, dtype))
    assert np.array_equal(compiled, plain)
    assert (compiled[:256].view(np.uint32 if dtype == "float" else np.uint16) == bits).all()


def test_the_scalar_of_a_half_tensors_get_value_runs_compiled():
    core = aj.Core(D950)
    src, dst = core.local_tensor("half", HALF_LANES), core.local_tensor("half", HALF_LANES)
    src[:] = np.full(HALF_LANES, 0.5, np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # compiled, not the plain fallback
        _muls_by(dst, src, src.GetValue(0))
    assert (dst.numpy() == np.float16(0.25)).all()


def test_a_uint64_argument_beyond_int64_after_a_small_one():
    core = aj.Core(D950)
    dst = core.local_tensor("uint64", 32)
    for value in (1, 2**64 - 1, 2**63, 7):
        _fill(dst, value, "uint64")
        assert (dst.numpy() == np.uint64(value)).all()


@R.simd_vf
def _scaled(dst, src, scale=2.0, T="float", offset=0):
    full = R.CreateMask(T)
    r = R.RegTensor(T)
    R.LoadAlign(r, src, offset)
    R.Muls(r, r, scale, full)
    R.StoreAlign(dst, r, full, 0)


@pytest.mark.parametrize("args, keywords", [((), {}), ((3.0,), {}), ((), {"offset": 8}),
                                            ((), {"offset": 16, "scale": -1.5, "T": "float"})])
def test_defaults_and_keywords_bind_as_in_python(args, keywords):
    def run(core, compiled):
        src, dst = core.local_tensor("float", 128), core.local_tensor("float", 64)
        src[:] = np.arange(128, dtype=np.float32)
        if compiled:
            _scaled(dst, src, *args, **keywords)
        else:
            with core:
                _scaled.py_func(dst, src, *args, **keywords)
        return dst.numpy()
    expected = np.arange(128, dtype=np.float32)[keywords.get("offset", 0):][:64] * \
        np.float32(keywords.get("scale", args[0] if args else 2.0))
    assert np.array_equal(run(aj.Core(D950), True), expected)
    assert np.array_equal(run(aj.Core(D950), False), expected)


def test_an_unknown_keyword_is_pythons_type_error_both_ways():
    core = aj.Core(D950)
    src, dst = core.local_tensor("float", 64), core.local_tensor("float", 64)
    with pytest.raises(TypeError, match="scael"):
        _scaled(dst, src, scael=2.0)
    with core, pytest.raises(TypeError, match="scael"):
        _scaled.py_func(dst, src, scael=2.0)


@R.simd_vf
def _load_store(dst, src):
    full = R.CreateMask("half")
    r = R.RegTensor("half")
    R.LoadAlign(r, src, 0)
    R.StoreAlign(dst, r, full, 0)


@pytest.mark.parametrize("scalar", [np.bool_(True), True])
def test_a_bool_scalar_is_the_plain_runs_parameter_error(scalar):
    core = aj.Core(D950)
    src, dst = core.local_tensor("half", HALF_LANES), core.local_tensor("half", HALF_LANES)
    dst[:] = np.full(HALF_LANES, 9, np.float16)
    before = core.ub.copy()
    with pytest.raises(aj.ParameterError, match="bool") as compiled:
        _muls_by(dst, src, scalar)
    with core, pytest.raises(aj.ParameterError) as plain:
        _muls_by.py_func(dst, src, scalar)
    assert str(compiled.value) == str(plain.value)
    assert np.array_equal(core.ub, before)


def test_a_global_tensor_argument_is_the_plain_runs_refusal():
    core = aj.Core(D950)
    dst = core.local_tensor("half", HALF_LANES)
    gm = aj.GlobalTensor(np.zeros(HALF_LANES, np.float16))
    before = core.ub.copy()
    with pytest.raises(aj.AscendJitError) as compiled:
        _load_store(dst, gm)
    with core, pytest.raises(aj.AscendJitError) as plain:
        _load_store.py_func(dst, gm)
    assert type(compiled.value) is type(plain.value) and str(compiled.value) == str(plain.value)
    assert np.array_equal(core.ub, before)


def _double(x):
    return 2.0 * x  # a plain Python helper: numba cannot type a call of it


@R.simd_vf
def _calls_a_python_helper(dst, src, scale):
    full = R.CreateMask("half")
    r = R.RegTensor("half")
    R.LoadAlign(r, src, 0)
    R.Muls(r, r, _double(scale), full)
    R.StoreAlign(dst, r, full, 0)


def test_a_vf_numba_cannot_compile_runs_plain_with_one_warning():
    core = aj.Core(D950)
    src, dst = core.local_tensor("half", HALF_LANES), core.local_tensor("half", HALF_LANES)
    src[:] = np.full(HALF_LANES, 1.5, np.float16)
    with pytest.warns(aj.UncompiledVFWarning, match="_double"):
        _calls_a_python_helper(dst, src, 2.0)
    assert (dst.numpy() == 6.0).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same argument types stay plain without trying numba again
        _calls_a_python_helper(dst, src, 0.5)
    assert (dst.numpy() == 1.5).all()


@R.simd_vf
def _names_an_undefined_global(dst, src):
    R.LoadAlign(dst, src, NOT_DEFINED_ANYWHERE)  # noqa: F821 (the test's point)


@R.simd_vf
def _ranges_over_a_float(dst, src, count):
    reg = R.RegTensor("float")
    for i in range((count + 63) // 64):
        mask, count = R.UpdateMask("float", count)
        R.LoadAlign(reg, src, i * 64)
        R.StoreAlign(dst, reg, mask, i * 64)


def test_a_vf_that_fails_plain_too_raises_its_python_error_with_numbas_reason_as_a_note():
    """Its own code's error, at its line, as plain Python says it (port53c: numba's TypingError had leaked, colour
    codes and all, for a float count given to range()); numba's reason is a note."""
    core = aj.Core(D950)
    src, dst = core.local_tensor("half", HALF_LANES), core.local_tensor("half", HALF_LANES)
    with pytest.raises(NameError, match="NOT_DEFINED_ANYWHERE") as raised:
        _names_an_undefined_global(dst, src)
    assert any("_names_an_undefined_global ran as plain Python" in note and "it does not compile either" in note
               for note in raised.value.__notes__)
    src, dst = core.local_tensor("float", 128), core.local_tensor("float", 128)
    src[:] = np.ones(128, np.float32)
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer") as raised:
        _ranges_over_a_float(dst, src, 200 / 2)
    assert not isinstance(raised.value, TypingError)
    assert "_ranges_over_a_float ran as plain" in raised.value.__notes__[0]


def test_every_dtype_spelling_has_its_index_in_compiled_code():
    from ascend_jit import reg
    assert [reg._spelling_of_name(name) for name in reg._SPELLINGS] == list(range(len(reg._SPELLINGS)))
    assert reg._spelling_of_name("halfs") == -1


@pytest.mark.parametrize("trait, field, legal", [
    ((R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_RINT), "trait.satMode",
     "SatMode.SAT or SatMode.NO_SAT"),
    ((R.RegLayout.TWO, R.SatMode.SAT, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_RINT), "trait.layoutMode",
     "RegLayout.ZERO or RegLayout.ONE"),
    ((R.RegLayout.ZERO, R.SatMode.SAT, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_ODD), "trait.roundMode",
     "RoundMode.CAST_RINT or RoundMode.CAST_FLOOR or RoundMode.CAST_CEIL or RoundMode.CAST_ROUND or "
     "RoundMode.CAST_TRUNC")])
def test_a_refused_cast_trait_names_the_values_the_pair_allows(trait, field, legal):
    """SPEC-2 11.5: trait validation is a ParameterError naming the allowed values (half -> int8 here)."""
    with aj.Core(D950), pytest.raises(aj.ParameterError) as refusal:
        R.Cast(R.RegTensor("int8"), R.RegTensor("half"), R.CreateMask("half"), trait=R.CastTrait(*trait))
    message = str(refusal.value)
    assert field in message and f"legal: {legal}:" in message and "ascend950" in message
    refused = {"trait.layoutMode": trait[0], "trait.satMode": trait[1], "trait.roundMode": trait[3]}[field]
    assert f"{field}' = '{type(refused).__name__}.{refused.name}'" in message   # the member, not its value


@pytest.mark.parametrize("scalar", [40000, True])
def test_a_refused_plain_duplicate_scalar_names_the_device(scalar):
    with aj.Core(D950), pytest.raises(aj.ParameterError, match="on device ascend950"):
        R.Duplicate(R.RegTensor("int16"), scalar)


@R.simd_vf
def _copy_count(dst, src, count):
    lanes = aj.GetVecLen() // 2
    for i in range(aj.CeilDivision(count, lanes)):
        mask, count = R.UpdateMask("half", count)
        r = R.RegTensor("half")
        R.LoadAlign(r, src, i * lanes)
        R.StoreAlign(dst, r, mask, i * lanes)


@pytest.mark.parametrize("count", [0, 1, 128, 300, 512])
def test_ceil_division_and_the_vector_length_size_a_vf_loop(count):
    def make(core):
        src, dst = core.local_tensor("half", 512), core.local_tensor("half", 512)
        src[:] = np.arange(1, 513).astype(np.float16)
        return dst, src, count
    compiled, plain = _both(_copy_count, make)
    assert np.array_equal(compiled, plain)
    assert np.count_nonzero(compiled[1024:2048].view(np.float16)) == count


def test_ceil_division_divides_as_cpp():
    assert [aj.CeilDivision(a, b) for a, b in ((300, 128), (256, 128), (0, 128), (5, 0), (-300, 128), (7, -2))] == \
        [3, 2, 0, 0, -1, -2]
    assert aj.VECTOR_REG_WIDTH == aj.GetVecLen() == 256
    with pytest.raises(aj.ParameterError, match="num1"):
        aj.CeilDivision(1.5, 2)


@R.simd_vf
def _load_at(dst, src, off):
    full = R.CreateMask("float")
    r = R.RegTensor("float")
    R.LoadAlign(r, src, off)
    R.StoreAlign(dst, r, full, 0)


@R.simd_vf
def _store_at(dst, src, off):
    full = R.CreateMask("float")
    r = R.RegTensor("float")
    R.LoadAlign(r, src, 0)
    R.StoreAlign(dst, r, full, offset=off)


@R.simd_vf
def _load_dist_at(dst, src, off):
    full = R.CreateMask("float")
    r = R.RegTensor("float")
    R.LoadAlign(r, src, off, dist=R.LoadDist.DIST_NORM)  # the general load kernel, not load_norm's direct call
    R.StoreAlign(dst, r, full, 0)


@pytest.mark.parametrize("vf", [_load_at, _store_at, _load_dist_at])
@pytest.mark.parametrize("off", [np.uint64(2**64 - 64), np.uint64(2**64 - 1), np.uint64(2**63 + 8),
                                 np.uint32(2**31)])
def test_a_huge_unsigned_offset_is_refused_compiled_as_plain(vf, off):
    """An unsigned offset past int32 is plain Python's ParameterError naming its value (decisions.md "Reg API"), not
    an offset wrapped negative: uint64 2**64 - 64 had passed the int32 check compiled and, on a bounds="ub" core,
    loaded the 64 floats before the tensor (another tensor's data). A uint64 above 2**63 - 1 reaches a direct call's
    int64 kernel as 2**63 - 1, which it refuses; the refusal names the value passed, as plain Python's (it named
    2**63 - 1 on the direct-call path, review18)."""
    refusals, ubs = [], []
    for compiled in (True, False):
        core = aj.Core(D950, bounds="ub")
        before, src = core.local_tensor("float", 64), core.local_tensor("float", 64)
        dst = core.local_tensor("float", 64)
        before[:] = np.arange(64, dtype=np.float32) + 1000
        src[:] = np.arange(64, dtype=np.float32)
        with pytest.raises(aj.ParameterError, match="offset") as e:
            if compiled:
                vf(dst, src, off)
            else:
                with core:
                    vf.py_func(dst, src, off)
        refusals.append(e.value)
        ubs.append(core.ub.copy())
    assert str(int(off)) in str(refusals[1])
    assert f"'offset' = {int(off)} " in str(refusals[0])
    assert np.array_equal(ubs[0], ubs[1])


@R.simd_vf
def _load_stepped(dst, src, step):
    full = R.CreateMask("float")
    r = R.RegTensor("float")
    R.LoadAlign(r, src, 0, post_update_stride=step)  # the returned offset unused: the step alone must be refused
    R.StoreAlign(dst, r, full, 0)


@R.simd_vf
def _load_dist_stepped(dst, src, step):
    full = R.CreateMask("float")
    r = R.RegTensor("float")
    R.LoadAlign(r, src, 0, dist=R.LoadDist.DIST_NORM, post_update_stride=step)
    R.StoreAlign(dst, r, full, 0)


@R.simd_vf
def _store_stepped(dst, src, step):
    full = R.CreateMask("float")
    r = R.RegTensor("float")
    R.LoadAlign(r, src, 0)
    R.StoreAlign(dst, r, full, 0, post_update_stride=step)


@pytest.mark.parametrize("vf", [_load_stepped, _load_dist_stepped, _store_stepped])
@pytest.mark.parametrize("step", [2**40, np.uint64(2**64 - 64), np.uint64(2**63 + 64), True])
def test_a_post_update_stride_past_int32_is_refused_compiled_as_plain(vf, step):
    """plain Python's _step refuses a post_update_stride outside int32 (or a bool) before anything runs; compiled,
    the load or store had run and returned offset + step (2**40, or uint64 2**64 - 64 wrapped to -64), or a bool had
    been an AlignmentError of 4 bytes."""
    ubs = []
    for compiled in (True, False):
        core = aj.Core(D950, bounds="ub")
        src, dst = core.local_tensor("float", 64), core.local_tensor("float", 64)
        src[:] = np.arange(64, dtype=np.float32)
        with pytest.raises(aj.ParameterError, match="'post_update_stride'"):
            if compiled:
                vf(dst, src, step)
            else:
                with core:
                    vf.py_func(dst, src, step)
        ubs.append(core.ub.copy())
    assert np.array_equal(ubs[0], ubs[1])


@R.simd_vf
def _unaligned_load_at(dst, src, off):
    full = R.CreateMask("float")
    r = R.RegTensor("float")
    R.Load(r, src, off)
    R.StoreAlign(dst, r, full, 0)


@R.simd_vf
def _unaligned_store_at(dst, src, off):
    r = R.RegTensor("float")
    R.LoadAlign(r, src, 0)
    R.Store(dst, r, off)


@pytest.mark.parametrize("vf", [_unaligned_load_at, _unaligned_store_at])
@pytest.mark.parametrize("off", [np.uint64(2**64 - 64), np.uint64(2**63 + 8)])
def test_an_unaligned_access_at_a_huge_unsigned_offset_is_refused_compiled(vf, off):
    """Load/Store (LoadUnAlign/StoreUnAlign): np.int64() had wrapped uint64 2**64 - 64 to -64, so a compiled Load
    read the 64 floats before the tensor (another tensor's, on a bounds="ub" core); plain Python refuses it."""
    ubs = []
    for compiled in (True, False):
        core = aj.Core(D950, bounds="ub")
        before, src = core.local_tensor("float", 64), core.local_tensor("float", 64)
        dst = core.local_tensor("float", 64)
        before[:] = 1000
        src[:] = 1
        with pytest.raises(aj.ParameterError, match="'offset'"):
            if compiled:
                vf(dst, src, off)
            else:
                with core:
                    vf.py_func(dst, src, off)
        ubs.append(core.ub.copy())
    assert np.array_equal(ubs[0], ubs[1])


@R.simd_vf
def _dist_arg(dst, src, v):
    full = R.CreateMask("float")
    r = R.RegTensor("float")
    R.LoadAlign(r, src, 0, dist=v)  # an enum reader (_enum_reader)
    R.StoreAlign(dst, r, full, 0)


@R.simd_vf
def _reduce_type_arg(dst, src, v):
    full = R.CreateMask("float")
    r = R.RegTensor("float")
    R.LoadAlign(r, src, 0)
    R.Reduce(r, r, full, reduce_type=v)  # a direct call's ENUM operand
    R.StoreAlign(dst, r, full, 0)


@R.simd_vf
def _barrier_arg(dst, src, v):
    R.LocalMemBar(v, R.MemType.VEC_ALL)


@pytest.mark.parametrize("vf", [_dist_arg, _reduce_type_arg, _barrier_arg])
@pytest.mark.parametrize("v", [np.uint64(2**64 - 1), np.uint64(2**63 + 1), 99])
def test_an_enum_argument_out_of_range_is_refused_compiled_naming_its_value(vf, v):
    """An enum argument outside its enum is plain Python's ParameterError naming the value passed, compiled too:
    the VF's enum readers wrapped a uint64 to a negative int64 (2**64 - 1 named as -1), the direct calls clamped it
    to 2**63 - 1 and named that, and a compiled LocalMemBar read neither argument (99 ran; review18)."""
    ubs = []
    for compiled in (True, False):
        core = aj.Core(D950)
        src, dst = core.local_tensor("float", 64), core.local_tensor("float", 64)
        src[:] = np.arange(64, dtype=np.float32)
        with pytest.raises(aj.ParameterError) as e:
            if compiled:
                vf(dst, src, v)
            else:
                with core:
                    vf.py_func(dst, src, v)
        assert f"= {int(v)} " in str(e.value).replace(f"np.uint64({int(v)})", str(int(v)))
        ubs.append(core.ub.copy())
    assert np.array_equal(ubs[0], ubs[1])


@R.simd_vf
def _int_dtype_vf(dst, which, n):
    # `which` picks the Reg call that gets the int 3 where a dtype name belongs
    if which == 0:
        R.RegTensor(3)
    elif which == 1:
        R.UpdateMask(3, n)
    elif which == 2:
        R.CreateMask(3)
    elif which == 3:
        R.MoveMask(3)
    else:
        R.Interleave(R.MaskReg(), R.MaskReg(), R.CreateMask("half"), R.CreateMask("half"), 3)
    R.StoreAlign(dst, R.RegTensor("int32"), R.CreateMask("int32"), 0)


@pytest.mark.parametrize("which", range(5))
def test_an_int_where_a_dtype_name_belongs_is_refused_compiled_as_plain(which):
    """Compiled, an int dtype had run as a kind code (RegTensor(3) a uint8 register, UpdateMask(3, n) uint8 lanes)
    where plain Python refuses it (UnsupportedDTypeError, SPEC-2 11.1, D28; audit19r): the VF now has no typing for
    it, so it runs plain and refuses the same, writing nothing."""
    core = aj.Core(D950)
    dst = core.local_tensor("int32", 64)
    dst[:] = np.full(64, 7, np.int32)
    core.SetVectorMask(0, 2**64 - 1)
    errors = []
    with core:
        for run in (_int_dtype_vf.py_func, _int_dtype_vf):
            with pytest.raises(aj.UnsupportedDTypeError) as refused:
                run(dst, which, 10)
            errors.append(str(refused.value))
    assert errors[0] == errors[1] and "= 3" in errors[0]
    assert (dst.numpy() == 7).all()


@R.simd_vf
def _named_by(out, src, T):
    m, n = R.UpdateMask(T, 100)
    r = R.RegTensor(T)
    R.LoadAlign(r, src, 0)
    R.StoreAlign(out, r, R.CreateMask(T), 0)
    R.StoreAlign(out, r, m, R.GetVecLen() // 2)


@pytest.mark.parametrize("name, dtype", [("HALF", "half"), ("int32_t", "int32"), ("Float", "float"), ("f2", "half"),
                                         ("float64", "half"), ("foo", "half"), ("halfs", "half")])
def test_a_dtype_spelling_compiled_code_does_not_know_is_read_as_plain_python_reads_it(name, dtype):
    """Plain Python reads a dtype name with dtypes.resolve (any case, C names, numpy codes): the VF runs plain for
    such a spelling (compiled code had refused "HALF" or "int32_t", which plain Python takes as half and int32). A
    string that names no dtype is plain Python's refusal, UnsupportedDTypeError naming the API (compiled code had
    raised a ParameterError naming RegTensor); float64 is D28's."""
    results = []
    for compiled in (True, False):
        core = aj.Core(D950)
        src, out = core.local_tensor(dtype, 256), core.local_tensor(dtype, 256)
        src[:] = np.arange(256) % 100
        with core:
            try:
                (_named_by if compiled else _named_by.py_func)(out, src, name)
                error = None
            except aj.AscendJitError as e:
                error = (type(e), str(e))
        results.append((core.ub.copy(), error))
    (compiled_ub, compiled_error), (plain_ub, plain_error) = results
    assert compiled_error == plain_error
    assert np.array_equal(compiled_ub, plain_ub)
    assert (plain_error is None) == (name not in ("float64", "foo", "halfs"))
    if plain_error is not None:
        assert plain_error[0] is aj.UnsupportedDTypeError and plain_error[1].startswith("UpdateMask:")


@R.simd_vf
def _name_against_numbers(out, T):
    full = R.CreateMask("half")
    r = R.RegTensor("half")
    k = 0
    if T == 0:  # the spelling index of "half"
        k += 1
    if 1 != T:  # the spelling index of "float16"
        k += 2
    if T == 0.0:
        k += 4
    if T == False:  # noqa: E712 (the comparison under test)
        k += 8
    R.Duplicate(r, k, full)
    R.StoreAlign(out, r, full, 0)


@pytest.mark.parametrize("t", ["half", "float16", "float"])
def test_a_dtype_name_never_equals_a_number(t):
    """A dtype name is a str in the plain run, unequal to every number; compiled it had converted to its spelling
    index where numba's integer comparison took it, so `T == 0` was True for "half"."""
    compiled, plain = _both(_name_against_numbers, lambda core: (core.local_tensor("half", HALF_LANES), t))
    assert np.array_equal(compiled, plain)
    assert compiled[:2].view(np.float16)[0] == 2.0


@R.simd_vf
def _numpy_types_in_the_body(out, src):
    m, n = R.UpdateMask(np.float32, 40)
    r = R.RegTensor(np.dtype("float32"))
    R.LoadAlign(r, src, 0)
    R.Muls(r, r, 2.0, R.CreateMask(np.float32))
    R.StoreAlign(out, r, m, 0)
    return R.sizeof(np.int16) + R.sizeof(np.dtype("float32"))


@R.simd_vf
def _refused_numpy_type_in_the_body(out):
    r = R.RegTensor(np.float64)
    R.StoreAlign(out, r, R.CreateMask("float"), 0)


@R.simd_vf
def _ml_dtypes_bfloat16_in_the_body(out):
    r = R.RegTensor(ml_dtypes.bfloat16)
    R.Duplicate(r, 1.0, R.CreateMask("bfloat16"))
    R.StoreAlign(out, r, R.CreateMask("bfloat16"), 0)


def test_numpy_types_in_a_vfs_code_compile_as_plain_python_reads_them():
    """A numpy scalar type or dtype written in the VF's own code (np.float32, np.dtype("float32")) is a constant
    kind, resolved at compile time as plain Python's dtypes.resolve reads it (audit 44: compiled code had refused it
    with UnsupportedDTypeError). np.float64 is resolve's refusal both ways; ml_dtypes.bfloat16 is a global numba
    cannot type, so that VF runs plain with one UncompiledVFWarning and the plain bytes."""
    def make(core):
        src, out = core.local_tensor("float", 64), core.local_tensor("float", 64)
        src[:] = np.arange(64)
        return out, src
    with warnings.catch_warnings():
        warnings.simplefilter("error", aj.UncompiledVFWarning)
        compiled_ub, plain_ub = _both(_numpy_types_in_the_body, make)
        core = aj.Core(D950)
        assert _numpy_types_in_the_body(*make(core)) == 6
    assert np.array_equal(compiled_ub, plain_ub)
    errors = []
    for run in (_refused_numpy_type_in_the_body, _refused_numpy_type_in_the_body.py_func):
        core = aj.Core(D950)
        with core, pytest.raises(aj.UnsupportedDTypeError) as info:
            run(core.local_tensor("float", 64))
        errors.append(str(info.value))
    assert errors[0] == errors[1] and "float64" in errors[0]
    with pytest.warns(aj.UncompiledVFWarning, match="bfloat16"):
        compiled_ub, plain_ub = _both(_ml_dtypes_bfloat16_in_the_body,
                                      lambda core: (core.local_tensor("bfloat16", 128),))
    assert np.array_equal(compiled_ub, plain_ub)


@R.simd_vf
def _makes_registers_by_a_generator(dst, src):
    a, b = (R.RegTensor("float") for _ in range(2))
    R.LoadAlign(a, src, 0)
    R.Add(b, a, a, R.CreateMask("float"))
    R.StoreAlign(dst, b, R.CreateMask("float"), 0)


def test_a_generator_expression_in_a_vf_is_named_in_the_warning():
    """port53e: numba's "The use of yield in a closure is unsupported" named neither the construct nor the line."""
    core = aj.Core(D950)
    src, dst = core.local_tensor("float", 64), core.local_tensor("float", 64)
    src[:] = np.ones(64, np.float32)
    with core, pytest.warns(aj.UncompiledVFWarning, match=r"yield in a closure is unsupported: a generator "
                                                          r"expression, e\.g\. `a, b = \(R\.RegTensor\(T\)"):
        _makes_registers_by_a_generator(dst, src)
    assert (dst.numpy() == 2.0).all()


@R.simd_vf
def _loops_over_a_count(x, z, total, loop_num):
    r = R.RegTensor("float")
    for i in range(loop_num):
        mask, total = R.UpdateMask("float", total)
        R.LoadAlign(r, x[i * 64])
        R.StoreAlign(z[i * 64], r, mask)


def test_a_float_loop_count_is_refused_compiled_as_plain():
    """port53g: numba converts range()'s float to an int, so `range(500 / 64)` ran seven times compiled (the eighth
    vector never written, no warning) where the plain run raised TypeError; the VF's pipeline now refuses it, and
    the call raises Python's error. An int count compiles and runs."""
    core = aj.Core(D950)
    x, z = core.local_tensor("float", 512), core.local_tensor("float", 512)
    x[:] = np.arange(512, dtype=np.float32)
    with core:
        with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer") as raised:
            _loops_over_a_count(x, z, 500, 500 / 64)
        assert "range() of a float" in raised.value.__notes__[0]
        assert not z.numpy().any()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _loops_over_a_count(x, z, 500, -(-500 // 64))
    assert np.array_equal(z.numpy()[:500], x.numpy()[:500])


@R.simd_callee
def _copy_vectors(x, z, total, loop_num):
    r = R.RegTensor("float")
    for i in range(loop_num):
        mask, total = R.UpdateMask("float", total)
        R.LoadAlign(r, x[i * 64])
        R.StoreAlign(z[i * 64], r, mask)


@R.simd_vf
def _calls_a_callee_with_a_count(x, z, total, loop_num):
    _copy_vectors(x, z, total, loop_num)


def test_a_float_loop_count_in_a_simd_callee_is_refused_compiled_as_plain():
    """The review of session 53: a simd_callee compiled with numba's own pipeline, whose range() truncates a float."""
    core = aj.Core(D950)
    x, z = core.local_tensor("float", 512), core.local_tensor("float", 512)
    x[:] = np.arange(512, dtype=np.float32)
    with core, pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        _calls_a_callee_with_a_count(x, z, 500, 500 / 64)
    assert not z.numpy().any()


@R.simd_vf
def _modes_and_scalars(dst, a, b, count, mode, div_mode, scale):
    x, y, r = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    for i in range(aj.CeilDivision(count, 64)):
        m, count = R.UpdateMask("float", count)
        R.LoadAlign(x, a, i * 64)
        R.LoadAlign(y, b, i * 64)
        R.Add(r, x, y, m, mode)
        R.Div(r, r, y, m, div_mode)
        R.Muls(r, r, scale, m)
        R.StoreAlign(dst, r, m, i * 64)


def _modes_and_scalars_args(core, mode, div_mode, scale, count=np.int32(200)):
    a, b, dst = (core.local_tensor("float", 256) for _ in range(3))
    rng = np.random.default_rng(7)
    a[:] = rng.standard_normal(256).astype(np.float32)
    b[:] = (rng.random(256) + 0.5).astype(np.float32)
    return dst, a, b, count, mode, div_mode, scale


@pytest.mark.parametrize("div_mode", [R.DivSpecificMode(R.MaskMergeMode.ZEROING, True),
                                      R.DivSpecificMode(0, False, aj.DivAlgo.PRECISION_1ULP_FTZ_FALSE)])
def test_enum_struct_and_numpy_scalar_arguments_take_the_planned_call(div_mode, monkeypatch):
    """A VF given a MaskMergeMode, a DivSpecificMode, a np.float32 and a np.int32 (a template argument and tiling
    values, port65d) compiles once and then runs through its plan: numba's dispatcher typed an enum member by walking
    its class on every call (16 us a call, more than the VF's work). Each call gives the plain run's bytes; a
    float32 NaN after the plan still runs plain, keeping its payload (D29)."""
    from ascend_jit import reg
    zeroing = R.MaskMergeMode.ZEROING
    for scale in (np.float32(0.75), np.float32(-3.0)):
        compiled, plain = _both(_modes_and_scalars,
                                lambda core: _modes_and_scalars_args(core, zeroing, div_mode, scale))
        assert np.array_equal(compiled, plain)
        core = aj.Core(D950)
        args = _modes_and_scalars_args(core, zeroing, div_mode, scale)
        _modes_and_scalars(*args)   # a new core's first call: its tensors' handles are made the generic way
        # the conversion every unplanned call makes: not made again on this core once the plan exists
        monkeypatch.setattr(reg, "_convert_vf_args", _no_conversion)
        _modes_and_scalars(*args)
        assert np.array_equal(core.ub, compiled)
        monkeypatch.undo()
    nan = np.array(0x7FC00123, np.uint32).view(np.float32)[()]
    compiled, plain = _both(_modes_and_scalars, lambda core: _modes_and_scalars_args(core, zeroing, div_mode, nan))
    assert np.array_equal(compiled, plain)


def _no_conversion(api, args):
    raise AssertionError(f"{api}: a planned call converted its arguments the generic way")
