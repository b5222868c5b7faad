"""Registers made from a literal dtype (`RegTensor("half")`) or from a VF's dtype-name argument (whose numba type
carries its dtype class: jit/reg.py DTypeNameType) are typed with their kinds inside a VF (jit/reg.py KindRegister),
so each Reg call compiles only its dtype class, and a VF compiles once per class of its dtype arguments (issue 20).
These tests prove that this changes no bit: the same VF body with literal dtypes, with dtype arguments and with a
name of unknown kind (a variable holding names of two kinds: plain registers, every class compiled) gives the same
bytes for every op on half, float and int32 with a partial mask, and refuses the same traits; that a half VF on an
empty cache compiles none of the other classes; that a VF called with names of two kinds runs each kind's compiled
code (never the other kind's); and that kinds of one class sharing a compiled VF are refused in plain words."""
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import ascend_jit as aj

R = aj.Reg
D950 = "ascend950"
_WIDE = "R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, aj.RoundMode.UNKNOWN)"
_NARROW = "R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_RINT)"
_I32 = "R.CastTrait(R.RegLayout.UNKNOWN, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_RINT)"
# every Reg op with a class-split kernel, one result per 256-byte slot of `out`; {t}: the dtype, {c}: Cast's other
# dtype, as literals or as the VF's arguments T, C
_BODY = """
def vf(out, a, b, prev, n, T, C):
    ra, rb, rp, rd, rc = R.RegTensor({t}), R.RegTensor({t}), R.RegTensor({t}), R.RegTensor({t}), R.RegTensor({c})
    m, n = R.UpdateMask({t}, n)
    full = R.CreateMask({t})
    R.LoadAlign(ra, a, 0)
    R.LoadAlign(rb, b, 0)
    R.LoadAlign(rp, prev, 0)
    lanes = R.GetVecLen() // {size}
    R.Add(rd, ra, rb, m)
    R.StoreAlign(out, rd, full, 0 * lanes)
    R.Add(rp, ra, rb, m, R.MaskMergeMode.MERGING)
    R.StoreAlign(out, rp, full, 1 * lanes)
    R.Sub(rd, ra, rb, m)
    R.StoreAlign(out, rd, full, 2 * lanes)
    R.Mul(rd, ra, rb, m)
    R.StoreAlign(out, rd, full, 3 * lanes)
    R.Max(rd, ra, rb, m)
    R.StoreAlign(out, rd, full, 4 * lanes)
    R.LoadAlign(rp, prev, 0)
    R.Min(rp, ra, rb, m, R.MaskMergeMode.MERGING)
    R.StoreAlign(out, rp, full, 5 * lanes)
    R.Div(rd, ra, rb, m)
    R.StoreAlign(out, rd, full, 6 * lanes)
    R.Reduce(rd, ra, m, R.ReduceType.MAX)
    R.StoreAlign(out, rd, full, 7 * lanes)
    R.ReduceSum(rd, ra, m)
    R.StoreAlign(out, rd, full, 8 * lanes)
    R.ReduceDataBlock(rd, ra, m, R.ReduceType.MIN)
    R.StoreAlign(out, rd, full, 9 * lanes)
    R.Duplicate(rd, ra, m)
    R.StoreAlign(out, rd, full, 10 * lanes)
{extra}"""
_EXTRA = {  # Exp (floats) and the Cast whose pair the dtype is part of
    "half": f"""    R.Exp(rd, ra, m)
    R.StoreAlign(out, rd, full, 11 * lanes)
    R.Cast(rc, ra, m, {_WIDE})
    R.StoreAlign(out, rc, R.CreateMask({{c}}), 12 * lanes)
""",
    "float": f"""    R.Exp(rd, ra, m)
    R.StoreAlign(out, rd, full, 11 * lanes)
    R.Cast(rc, ra, m, {_NARROW})
    R.StoreAlign(out, rc, R.CreateMask({{c}}), 12 * lanes)
""",
    "int32": f"""    R.Cast(rc, ra, m, {_I32})
    R.StoreAlign(out, rc, R.CreateMask({{c}}), 12 * lanes)
"""}
OTHER = {"half": "float", "float": "half", "int32": "float"}
# the kinds a dtype-name argument's type and the registers made from it carry: its dtype class (jit/reg.py
# DTYPE_CLASSES), one kind for half
CLASS = {"half": "kind=0", "float": "kinds=1,2", "int32": "kinds=3,4,5,6,7,8,9,10"}


def _vf(dtype, names):
    """The VF of _BODY for `dtype`, its dtypes named by "literal"s, by its "argument"s T and C, or by U, T or C
    whichever n's sign picks ("unified": typed as a name of no known kind, as T and C are of two kinds)."""
    size = np.dtype({"half": np.float16}.get(dtype, dtype)).itemsize
    t, c = {"literal": (f'"{dtype}"', f'"{OTHER[dtype]}"'), "argument": ("T", "C"), "unified": ("U", "C")}[names]
    source = _BODY.format(t=t, c=c, size=size, extra=_EXTRA[dtype].format(c=c))
    if names == "unified":
        source = source.replace("def vf(out, a, b, prev, n, T, C):\n",
                                "def vf(out, a, b, prev, n, T, C):\n    U = T if n >= 0 else C\n")
    namespace = {"R": R, "aj": aj}
    exec(textwrap.dedent(source), namespace)  # noqa: S102 (the test's own source)
    return R.simd_vf(namespace["vf"])


def _values(dtype, rng, n):
    if dtype == "int32":
        v = rng.integers(-2**31, 2**31, n, dtype=np.int64)
        v[:4] = [0, -1, -2**31, 2**31 - 1]
        return v.astype(np.int32)
    v = rng.standard_normal(n) * 3
    v[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30]
    return v.astype(np.float16 if dtype == "half" else np.float32)


@pytest.mark.parametrize("dtype", ["half", "float", "int32"])
@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_literal_dtype_registers_give_the_run_time_dtype_bits(dtype):
    rng = np.random.default_rng(sum(map(ord, dtype)))
    core = aj.Core(D950)
    lanes = 256 // (2 if dtype == "half" else 4)
    a, b, prev = (core.local_tensor(dtype, lanes) for _ in range(3))
    a[:], b[:], prev[:] = (_values(dtype, rng, lanes) for _ in range(3))
    if dtype == "int32":
        b[:] = np.where(b.numpy() == 0, 3, b.numpy())
    outs = []
    # the kind-less name compiles every class's kernels once (half's run); its other dtypes would add VF bodies only
    for names in ("literal", "argument", "unified") if dtype == "half" else ("literal", "argument"):
        vf = _vf(dtype, names)
        out = core.local_tensor(dtype, 13 * lanes)
        with core:
            vf(out, a, b, prev, lanes - 7, dtype, OTHER[dtype])
        outs.append(out.numpy().view(np.uint8))
        if names != "literal":  # U: a name of no known kind, making plain registers (every class's kernels)
            typemap = vf.compiled.overloads[vf.compiled.signatures[0]].type_annotation.typemap
            assert str(typemap["T"]) == f"dtype_name({CLASS[dtype]})"
            assert str(typemap["ra"]) == ("array(uint8, 1d, C)" if names == "unified" else
                                          f"RegTensor({CLASS[dtype]})")
    assert all(np.array_equal(outs[0], other) for other in outs[1:])
    assert outs[0][:256].any()  # the VF ran


@pytest.mark.parametrize("literal", [True, False])
def test_a_widening_cast_of_literal_dtypes_refuses_a_trait_the_pair_refuses(literal):
    """Registers of literal half -> float compile Reg Cast's widening loop alone: a trait the pair refuses (a round
    mode: DK Cast.md table 6 lists none for half -> float) is still refused, naming the field."""
    src_dtype = '"half"' if literal else "S"
    source = f"""
def cast_vf(out, a, S, D):
    r, w = R.RegTensor({src_dtype}), R.RegTensor({'"float"' if literal else "D"})
    R.LoadAlign(r, a, 0)
    R.Cast(w, r, R.CreateMask({src_dtype}), {_I32.replace("UNKNOWN, R.SatMode", "ZERO, R.SatMode")})
    R.StoreAlign(out, w, R.CreateMask({'"float"' if literal else "D"}), 0)
"""
    namespace = {"R": R, "aj": aj}
    exec(textwrap.dedent(source), namespace)  # noqa: S102
    vf = R.simd_vf(namespace["cast_vf"])
    core = aj.Core(D950)
    a, out = core.local_tensor("half", 128), core.local_tensor("float", 64)
    a[:] = np.ones(128, np.float16)   # the VF loads it before the refused Cast
    out[:] = np.full(64, 7, np.float32)
    with core, pytest.raises(aj.ParameterError, match="roundMode"):
        vf(out, a, "half", "float")
    assert (out.numpy() == 7).all()


def test_a_half_vf_compiles_its_own_class_only(tmp_path):
    """Issue 20: in a fresh process on an empty cache, a VF of half registers named by literals and by its dtype
    argument (Add, Max, Exp, Reduce, ReduceDataBlock, a widening Cast and the default CreateMask) compiles each
    kernel with the half class's marker alone: no wide-float or integer lanes, no float decode/store of the
    element-wise engine, no general Cast kernel or conversion and no CreateMask patterns. Fails if a plan passes
    every marker again, or if a dtype argument's kind stops reaching its registers."""
    (tmp_path / "half_vf.py").write_text(textwrap.dedent(f"""
        import ascend_jit as aj
        R = aj.Reg


        @R.simd_vf
        def half_vf(dst, src, T):
            a, b, w = R.RegTensor(T), R.RegTensor("half"), R.RegTensor("float")
            m = R.CreateMask(T)
            R.LoadAlign(a, src, 0)
            R.Add(b, a, a, m)
            R.Max(b, b, a, m)
            R.Exp(b, b, m)
            R.Reduce(b, b, m)
            R.ReduceDataBlock(b, b, m)
            R.Cast(w, a, m, {_WIDE})
            R.StoreAlign(dst, b, m, 0)
        """))
    script = textwrap.dedent("""
        import ascend_jit as aj
        from half_vf import half_vf
        from ascend_jit.jit import convert, elementwise as ew, reg as impl, reg_cast, reg_ops as ops
        core = aj.Core("ascend950")
        with core:
            half_vf(core.local_tensor("half", 128), core.local_tensor("half", 128), "half")
        markers = lambda f, n: sorted({" ".join(str(t) for t in sig[-n:]) for sig in f.signatures})
        print(markers(ops.binary, 3), markers(ops.engine_binary, 4), markers(ops.engine_unary, 2),
              markers(ops.reduce, 2), markers(impl.reduce_data_block, 2), sep="|")
        print(*(len(f.signatures) for f in (reg_cast.cast_widening, reg_cast.cast, ew.load_wide, ew.store_wide,
                                             convert.convert_bits, impl.create_mask)))
        """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.getcwd(), str(tmp_path)]),
               NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True,
                         cwd=tmp_path).stdout.splitlines()
    assert out[0].split("|") == ["['int64 none none']", "['int64 none none none']", "['int64 none']",
                                 "['int64 none']", "['int64 none']"]
    assert out[1].split() == ["1", "0", "0", "0", "0", "0"]


def _two_kinds(out, src, use_float):
    a, f = R.RegTensor("half"), R.RegTensor("float")
    m = R.CreateMask("half")
    R.LoadAlign(a, src, 0)
    r = a
    if use_float:
        r = f  # a variable holding registers of two kinds: typed as the plain register (Array.unify)
    R.Max(a, r, a, m)
    R.StoreAlign(out, a, m, 0)


def test_a_variable_holding_registers_of_two_kinds_compiles_and_checks_kinds_at_run_time():
    vf = R.simd_vf(_two_kinds)
    core = aj.Core(D950)
    src, out, want = (core.local_tensor("half", 128) for _ in range(3))
    src[:] = np.arange(128, dtype=np.float16) - 60
    with core:
        vf(out, src, False)
        vf.py_func(want, src, False)
    assert np.array_equal(out.numpy().view(np.uint16), want.numpy().view(np.uint16))
    with core, pytest.raises(aj.UnsupportedDTypeError, match="Max"):
        vf(out, src, True)


def _kind_by_spelling(out, a, T):
    r = R.RegTensor(T)
    m = R.CreateMask(T)
    R.LoadAlign(r, a, 0)
    if T == "float16":  # the spelling, as plain Python compares the str: half and float16 share one compiled VF
        R.Sub(r, r, r, m)
    else:
        R.Add(r, r, r, m)
    R.StoreAlign(out, r, m, 0)


@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_a_vf_called_with_names_of_two_kinds_runs_each_kinds_code():
    """The VF compiles once per dtype class of its dtype argument (half and float16 share one kind) and a later call
    takes the compiled code of its own class: a call's fast path (its plan) for half tensors and "half" must not run
    for float tensors and "float", whose Python argument types are the same."""
    vf = R.simd_vf(_kind_by_spelling)
    core = aj.Core(D950)
    tensors = {}
    for dtype in ("half", "float"):
        a = core.local_tensor(dtype, 128)
        a[:] = np.arange(128) - 50.25
        tensors[dtype] = a
    runs = 0
    for _ in range(2):
        for name, dtype in (("half", "half"), ("float", "float"), ("float16", "half"), ("float32", "float")):
            a = tensors[dtype]
            out, want = core.local_tensor(dtype, a.size), core.local_tensor(dtype, a.size)
            with core:
                vf(out, a, name)
                vf.py_func(want, a, name)
            assert np.array_equal(out.numpy().view(np.uint8), want.numpy().view(np.uint8)), (name, dtype)
            assert out.numpy().any() == (name != "float16")  # Sub for "float16" alone
            runs += 1
    assert runs == 8
    assert sorted(str(sig[-1]) for sig in vf.compiled.signatures) == ["dtype_name(kind=0)", "dtype_name(kinds=1,2)"]


def _names_in_a_loop(out, a, T, C):
    halves = 0
    for t in (T, C):  # a tuple of names of two kinds, iterated as names of no known kind
        if t == "half":
            halves += 1
    names = [T, C]  # a list of them: one element type, the kind-less name
    r = R.RegTensor(names[0])
    m = R.CreateMask(T)
    R.LoadAlign(r, a, 0)
    R.Adds(r, r, halves, m)
    R.StoreAlign(out, r, m, 0)


@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_dtype_names_of_two_kinds_in_a_tuple_loop_and_a_list_compile():
    """Names of two kinds still compile where numba needs one element type (a `for` over their tuple, a list):
    they are the kind-less name there (jit/reg.py _OfOneKind, DTypeNameType.unify), with the bits of the
    plain run; no UncompiledVFWarning."""
    _compiled_as_plain_with_a_second_name_of_each_kind(_names_in_a_loop)


def _compiled_as_plain_with_a_second_name_of_each_kind(fn, *extra):
    """fn(out, a, "half", other, *extra) compiled, for a float, half and int32 `other`: the plain run's bits, no
    UncompiledVFWarning, one compiled VF per kind of `other`."""
    vf = R.simd_vf(fn)
    core = aj.Core(D950)
    a = core.local_tensor("half", 128)
    a[:] = np.arange(128) - 60.5
    for other in ("float", "half", "int32"):
        out, want = core.local_tensor("half", 128), core.local_tensor("half", 128)
        with warnings.catch_warnings():
            warnings.simplefilter("error", aj.UncompiledVFWarning)
            with core:
                vf(out, a, "half", other, *extra)
        with core:
            vf.py_func(want, a, "half", other, *extra)
        assert np.array_equal(out.numpy().view(np.uint16), want.numpy().view(np.uint16)), other
    assert len(vf.compiled.signatures) == 3


def _tuples_of_two_kinds(out, a, T, C, i):
    adds = 0
    for j, t in enumerate((T, C)):  # enumerate and zip over names of two kinds
        if t == "half":
            adds += j + 1
    for t, k in zip((T, C), (4, 8)):
        if t == "float":
            adds += k
    names = (T, C)
    if C in names:  # `in` over them
        adds += 16
    if T in (C, C):  # `in` over names of one kind against a name of another
        adds += 32
    regs = (R.RegTensor(names[i]), R.RegTensor(C))  # a run-time index; registers of two kinds in a tuple
    m = R.CreateMask(T)
    R.LoadAlign(regs[0], a, 0)
    for r in regs:  # iterated as plain registers
        R.Duplicate(r, 1, m)
    R.LoadAlign(regs[i], a, 0)  # indexed at run time
    R.Adds(regs[i], regs[i], adds, m)
    R.StoreAlign(out, regs[i], m, 0)


@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_tuples_of_names_or_registers_of_two_kinds_compile():
    """A tuple of dtype names of two kinds, or of registers of two kinds, is heterogeneous now that their types
    carry kinds; numba iterates, enumerates, zips, indexes at run time and searches (`in`) only tuples of one
    type, which these had been before (one dtype-name type, plain registers). They compile as the tuple of the
    kind-less type (jit/reg.py _OfOneKind), with the plain run's bits and no UncompiledVFWarning (they had run
    plain, with one)."""
    _compiled_as_plain_with_a_second_name_of_each_kind(_tuples_of_two_kinds, 0)


def _copy_when_half(out, a, T):
    r, h = R.RegTensor(T), R.RegTensor("half")
    m = R.CreateMask(T)
    R.LoadAlign(r, a, 0)
    if T == "half":  # a float r: Copy of registers of two known kinds has no typing, the VF runs plain
        R.Copy(h, r, m)
        R.Adds(r, h, 1, m)
    R.StoreAlign(out, r, m, 0)


@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_a_vf_that_runs_plain_for_one_kind_compiles_for_another():
    """A VF numba cannot compile for "float" (it runs plain, with an UncompiledVFWarning) compiles when called
    with "half": the plain run's plan, kept for the float kind, must not take the half call (it had checked the
    Python types alone, str for both, and so ran every later call plain). An int32 call runs plain too, without a
    second warning for the same Python argument types (one per tuple of types, as before names carried kinds)."""
    vf = R.simd_vf(_copy_when_half)
    core = aj.Core(D950)
    for dtype in ("float", "half", "int32", "half", "int32"):
        a = core.local_tensor(dtype, 128)
        a[:] = np.arange(128) - 60.5
        out, want = core.local_tensor(dtype, 128), core.local_tensor(dtype, 128)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with core:
                vf(out, a, dtype)
        assert [w.category for w in caught] == ([aj.UncompiledVFWarning] if dtype == "float" else [])
        with core:
            vf.py_func(want, a, dtype)
        assert np.array_equal(out.numpy().view(np.uint8), want.numpy().view(np.uint8)), dtype
    assert [str(sig[-1]) for sig in vf.compiled.signatures] == ["dtype_name(kind=0)"]


def _one_class(out, a, b, T, n):
    x, y, z = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    m, _ = R.UpdateMask(T, n)
    full = R.CreateMask(T)
    R.LoadAlign(x, a, 0)
    R.LoadAlign(y, b, 0)
    R.Add(z, x, y, m)
    R.Sub(y, z, x, full)
    R.Copy(x, y, m)
    R.StoreAlign(out, x, full, 0)


@pytest.mark.parametrize("dtypes", [("float", "bfloat16"),
                                    ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")])
@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_names_of_one_class_share_one_compiled_vf_and_keep_each_kinds_bits(dtypes):
    """Issue 20: a VF called with the dtype names of one class (float and bfloat16; the eight integers) compiles
    once, not once per kind, and each kind's run gives the plain run's bytes: the kinds its registers, masks and
    lane counts take are read from the name at run time (reg.py _kind_operand, _vf_kind), never the first call's."""
    vf = R.simd_vf(_one_class)
    core = aj.Core(D950)
    rng = np.random.default_rng(len(dtypes))
    for dtype in dtypes + dtypes[:1]:  # the first again: its plan after the others'
        lanes = 256 // aj.dtypes.resolve(dtype).size
        a, b, out, want = (core.local_tensor(dtype, lanes) for _ in range(4))
        raw = rng.integers(0, 256, (2, lanes * aj.dtypes.resolve(dtype).size), dtype=np.uint8)
        if dtype in ("float", "bfloat16"):  # finite operands: the bits, not NaN payloads, are compared
            raw = (rng.standard_normal((2, lanes)) * 100).astype(np.float32)
            raw = raw.view(np.uint32) >> 16 << 16 if dtype == "bfloat16" else raw.view(np.uint32)
            raw = (raw >> 16).astype(np.uint16).view(np.uint8) if dtype == "bfloat16" else raw.view(np.uint8)
        element = a.numpy().dtype
        a[:], b[:] = raw[0].ravel().view(element), raw[1].ravel().view(element)
        with core:
            vf(out, a, b, dtype, lanes - 3)
            vf.py_func(want, a, b, dtype, lanes - 3)
        assert np.array_equal(out.numpy().view(np.uint8), want.numpy().view(np.uint8)), dtype
        assert out.numpy().view(np.uint8).any(), dtype
    assert len(vf.compiled.signatures) == 1


def _copy_across(out, a, T, D, move):
    x, z = R.RegTensor(T), R.RegTensor(D)
    R.LoadAlign(x, a)
    if move:
        R.Move(z, x)
    else:
        R.Copy(z, x)
    R.StoreAlign(out, z, R.CreateMask(D))


@pytest.mark.parametrize("src, dst, move", [("float", "bfloat16", False), ("bfloat16", "float", True),
                                            ("int8", "uint8", False), ("int32", "uint32", True),
                                            ("uint16", "int64", False)])
def test_copy_between_two_kinds_of_one_class_is_refused_in_plain_words(src, dst, move):
    """Registers of two kinds of one class now type one compiled Copy/Move (issue 20), which refuses at run time:
    the same error and words as plain Python, the source's dtype named in the legal range (review of session 24
    found the run-time text without it), and the UB unchanged."""
    vf = R.simd_vf(_copy_across)
    refusals = []
    for run in (vf, vf.py_func):
        core = aj.Core(D950)
        a, out = core.local_tensor(src, 256 // aj.dtypes.resolve(src).size), core.local_tensor(dst, 16)
        ub = core.ub.copy()
        with core, pytest.raises(aj.UnsupportedDTypeError) as refused:
            run(out, a, src, dst, move)
        assert (core.ub == ub).all()
        refusals.append(str(refused.value))
    assert refusals[0] == refusals[1]
    assert f"legal: {src}, the source's" in refusals[0]


def _returns_names(out, T, D):
    return T, (D, 1)


def test_a_vf_returns_a_dtype_name_as_the_str_its_plain_run_returns():
    """A dtype name reaches a compiled VF as its spelling index; returned, it is the str again (jit/reg.py
    _box_dtype_name), as the plain run returns it, for every spelling of a class and alone or in a tuple."""
    vf = R.simd_vf(_returns_names)
    with aj.Core(D950) as core:
        out = core.local_tensor("half", 16)
        for names in (("float", "int16"), ("bfloat16", "uint64"), ("HALF", "int8_t"), ("float32", "half")):
            assert vf(out, *names) == _returns_names(out, *names) == (names[0], (names[1], 1))
