"""@aj.Reg.simd_vf functions are cached across processes (issue 11 section 4): a second process loads the VF from
numba's on-disk cache instead of compiling it. Evidence is numba's own cache statistics, never timing."""
import os
import subprocess
import sys
import textwrap

import pytest

from ascend_jit import reg

VF_MODULE = textwrap.dedent('''
    import ascend_jit as aj
    R = aj.Reg

    def copy_vf(dst, src, repeats, T):
        reg = R.RegTensor(T)
        for i in range(repeats):
            R.LoadAlign(reg, src, i * 128)
            R.StoreAlign(dst, reg, R.CreateMask(T), i * 128)

    COPY = R.simd_vf(copy_vf)
''')

_COPY_AND_REPORT = textwrap.dedent('''
    import numpy as np
    import ascend_jit as aj
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("half", 256), core.local_tensor("half", 256)
    src[:] = np.arange(256)
    with core:
        user_vf.COPY(dst, src, 2, "half")
    assert (dst.numpy() == np.arange(256)).all()
    stats = user_vf.COPY.compiled.stats
    print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()), user_vf.COPY.cached)
''')
RUN = "import user_vf\n" + _COPY_AND_REPORT


def _run(tmp_path, script=RUN):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.getcwd()]), NUMBA_NUM_THREADS="1")
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
def test_second_process_loads_the_vf_from_the_cache(tmp_path):
    (tmp_path / "user_vf.py").write_text(VF_MODULE)  # a fresh module path: nothing cached for it yet
    assert _run(tmp_path) == ["0", "1", "True"]   # first process: compiled (a cache miss) and saved
    assert _run(tmp_path) == ["1", "0", "True"]   # second process: loaded, not compiled


def test_cache_key_holds_the_implementation_stamp(monkeypatch):
    def vf(x):
        return x
    cache = reg._VFCache(vf)
    codegen = __import__("numba").njit(vf).targetctx.codegen()
    monkeypatch.setattr(reg, "implementation_stamp", lambda: "one")
    first = cache._index_key((), codegen)
    monkeypatch.setattr(reg, "implementation_stamp", lambda: "two")
    assert cache._index_key((), codegen) != first  # a changed ascend_jit never reuses an old VF


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
def test_a_vf_without_a_source_file_still_runs_uncached():
    namespace = {}
    exec("def vf(x):\n    return x + 1\n", namespace)
    compiled = reg.simd_vf(namespace["vf"])
    assert compiled(1) == 2 and compiled.cached is False


# --- the on-disk cache of a VF with callees --------------------------------------------------------------------------
CALLEES = textwrap.dedent('''
    import ascend_jit as aj
    R = aj.Reg
    STEP = {step}

    @R.simd_callee
    def bump(reg, mask):
        R.Adds(reg, reg, STEP, mask)

    @R.simd_callee
    def tile(dst, src, mask):
        reg = R.RegTensor("half")
        R.LoadAlign(reg, src)
        bump(reg, mask)
        R.StoreAlign(dst, reg, mask)
''')

CALLER_MODULE = textwrap.dedent('''
    import ascend_jit as aj
    import porting_helpers as h
    R = aj.Reg

    def vf(dst, src, repeats):
        mask = R.CreateMask("half")
        for i in range(repeats):
            h.tile(dst[i * 128], src[i * 128], mask)

    VF = R.simd_vf(vf)
''')

CALLER_RUN = textwrap.dedent('''
    import numpy as np
    import ascend_jit as aj
    import porting_vf
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("half", 256), core.local_tensor("half", 256)
    src[:] = np.arange(256)
    with core:
        porting_vf.VF(dst, src, 2)
    stats = porting_vf.VF.compiled.stats
    print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()), int(dst.numpy()[3]))
''')


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
def test_a_vf_with_callees_loads_from_the_cache_until_a_callee_changes(tmp_path):
    """The callees live in another module (numba's own cache checks the VF's file only): a second process loads the
    VF; after the callees' module changes, the next process compiles it again and computes the new value."""
    _compiled_again_only_after_each_edit(tmp_path, "porting_vf.py", CALLER_MODULE, "porting_helpers.py",
                                         [(CALLEES.format(step=1), "4"), (CALLEES.format(step=10), "13")],
                                         CALLER_RUN)  # 3 + 1, then 3 + 10


def _compiled_again_only_after_each_edit(tmp_path, vf_file, vf_source, helper_file, versions, run, vfs=1):
    """Writes the VF's module, then each (helper source, value) of versions in turn: the first process after each
    compiles the VF (a cache miss) and prints the value, the next loads it (a hit) and prints the same value."""
    (tmp_path / vf_file).write_text(vf_source)
    for source, value in versions:
        (tmp_path / helper_file).write_text(source)
        assert _run(tmp_path, run) == ["0", "1", value] * vfs, source  # compiled (again) and saved
        assert _run(tmp_path, run) == ["1", "0", value] * vfs, source  # loaded


NJIT_HELPERS = """
import numba


@numba.njit
def offset():
    return {step}.0


@numba.njit
def bump(x):
    return x + offset()
"""

NJIT_VF = textwrap.dedent('''
    import ascend_jit as aj
    import njit_helpers
    R = aj.Reg

    def vf(dst, v):
        reg = R.RegTensor("float")
        mask = R.CreateMask("float")
        R.Duplicate(reg, njit_helpers.bump(v), mask)
        R.StoreAlign(dst, reg, mask)

    VF = R.simd_vf(vf)
''')

NJIT_RUN = textwrap.dedent('''
    import ascend_jit as aj
    import njit_vf
    core = aj.Core("ascend950")
    dst = core.local_tensor("float", 64)
    with core:
        njit_vf.VF(dst, 1.0)
    stats = njit_vf.VF.compiled.stats
    print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()), int(dst.numpy()[0]))
''')


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
def test_an_edited_numba_helper_of_another_module_compiles_the_vf_again(tmp_path):
    """A VF calls a plain `@numba.njit` helper of another module, which calls another (numba compiles both into the
    VF; numba's own cache checks the VF's file only): after the inner helper's constant changes, the next process
    compiles the VF again and computes the new value (session 50: it ran the old code, 2 instead of 11)."""
    _compiled_again_only_after_each_edit(tmp_path, "njit_vf.py", NJIT_VF, "njit_helpers.py",
                                         [(NJIT_HELPERS.format(step=1), "2"), (NJIT_HELPERS.format(step=10), "11")],
                                         NJIT_RUN)


CONSTANT_VFS = textwrap.dedent('''
    import ascend_jit as aj
    import vf_settings
    from vf_settings import STEP
    R = aj.Reg

    def by_attribute(dst, v):
        reg = R.RegTensor("float")
        mask = R.CreateMask("float")
        R.Duplicate(reg, v + vf_settings.STEP, mask)
        R.StoreAlign(dst, reg, mask)

    def by_import(dst, v):
        reg = R.RegTensor("float")
        mask = R.CreateMask("float")
        R.Duplicate(reg, v + STEP, mask)
        R.StoreAlign(dst, reg, mask)

    BY_ATTRIBUTE, BY_IMPORT = R.simd_vf(by_attribute), R.simd_vf(by_import)
''')

CONSTANT_RUN = textwrap.dedent('''
    import ascend_jit as aj
    import constant_vfs as m
    core = aj.Core("ascend950")
    dst = core.local_tensor("float", 64)
    out = []
    for vf in (m.BY_ATTRIBUTE, m.BY_IMPORT):
        with core:
            vf(dst, 1.0)
        stats = vf.compiled.stats
        out += [sum(stats.cache_hits.values()), sum(stats.cache_misses.values()), int(dst.numpy()[0])]
    print(*out)
''')


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
def test_an_edited_constant_of_another_module_compiles_the_vf_again(tmp_path):
    """numba freezes a global's value into the VF's code: a constant of another module read as `module.NAME` or bound
    by `from module import NAME` (the VF's file unchanged) is part of the key (session 50: both ran stale)."""
    _compiled_again_only_after_each_edit(tmp_path, "constant_vfs.py", CONSTANT_VFS, "vf_settings.py",
                                         [("STEP = 1.0\n", "2"), ("STEP = 5.0\n", "6")], CONSTANT_RUN, vfs=2)


# user_vf.py imported as the module NAME (a gallery loader's own name for a file), then the same copy and report
RUN_AS = textwrap.dedent('''
    import importlib.util, sys
    spec = importlib.util.spec_from_file_location(NAME, "user_vf.py")
    user_vf = importlib.util.module_from_spec(spec)
    sys.modules[NAME] = user_vf
    spec.loader.exec_module(user_vf)
''') + _COPY_AND_REPORT


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
def test_one_file_imported_under_two_module_names_keeps_two_cache_entries(tmp_path):
    """The cached code rebuilds the VF's globals by importing its module by name: a process that imports the same
    file under another name compiles its own entry instead of loading one that names a module it lacks."""
    (tmp_path / "user_vf.py").write_text(VF_MODULE)

    def run(name):
        return _run(tmp_path, RUN_AS.replace("NAME", repr(name)))
    assert run("user_vf") == ["0", "1", "True"]
    assert run("gallery_loader_user_vf") == ["0", "1", "True"]   # another name: compiled, not the first's entry
    assert run("user_vf") == ["1", "0", "True"]
    assert run("gallery_loader_user_vf") == ["1", "0", "True"]


# --- kernels called through a pointer of the caller's own (jit/reg.py KernelBinding) --------------------------------
_ADD_EXP_VF = ("def vf(dst, src):\n    a, b = R.RegTensor('half'), R.RegTensor('half')\n"
               "    m = R.CreateMask('half')\n    R.LoadAlign(a, src, 0)\n    R.Add(b, a, a, m)\n    R.Exp(b, b, m)\n"
               "    R.StoreAlign(dst, b, m, 0)\n")


def _run_add_exp(fn):
    import numpy as np

    import ascend_jit as aj
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 128)
    src[:] = np.linspace(-3, 3, 128).astype(np.float16)
    with core:
        fn(dst, src)
    return dst.numpy().view(np.uint16).copy()


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_a_vf_module_holds_pointers_to_the_kernels_it_calls_not_their_code():
    """Issue 20: numba optimised and generated every linked kernel again inside each VF (nine tenths of its module).
    The VF's module now defines only the kernels small enough to link (jit/reg.py INLINED_KERNEL_INSTRUCTIONS): it
    holds a pointer per other kernel, which its first run fills through the resolver; the VF computes what plain
    Python does."""
    import ascend_jit as aj
    from ascend_jit.jit import reg as impl
    namespace = {"R": aj.Reg}
    exec(_ADD_EXP_VF, namespace)  # noqa: S102 - no source file: compiled here, so its module can be read
    compiled = reg.simd_vf(namespace["vf"])
    assert (_run_add_exp(compiled) == _run_add_exp(namespace["vf"])).all()
    (result,) = compiled.compiled.overloads.values()
    module = result.library._final_module
    kernels = {f.name: sum(len(list(block.instructions)) for block in f.blocks) for f in module.functions
               if not f.is_declaration and f.name.startswith("_ZN10ascend_jit3jit")}
    assert all(size <= impl.INLINED_KERNEL_INSTRUCTIONS for size in kernels.values()), kernels
    pointers = [g.name for g in module.global_variables if g.name.startswith("ascend_jit.kernel.")]
    assert len(pointers) >= 3, pointers   # the store, the Add and Exp kernels at least
    assert [f.name for f in module.functions if f.name == impl.RESOLVE_KERNEL_SYMBOL]


class _Function:
    def __init__(self, name, is_declaration=False):
        self.name, self.is_declaration = name, is_declaration


class _Library:
    def __init__(self, name, *functions):
        self.name, self._final_module, self.runs = name, type("Module", (), {"functions": functions}), 0


@pytest.mark.parametrize("library, runs", [
    (_Library("reduce_data_block", _Function("_ZN10ascend_jit3jit3reg17reduce_data_blockB3v31E5Array")), 2),
    (_Library("engine_binary", _Function("_ZN10ascend_jit3jit7reg_ops13engine_binaryB2v1Ex")), 2),
    (_Library("store_norm", _Function("_ZN10ascend_jit3jit8reg_move10store_normB3v58Ex")), 2),
    # a VF that links a Reg kernel, a kernel of another family, a user's function of a kernel's name, a declaration
    (_Library("vf", _Function("_ZN7user_vf2vfB2v1Ex"), _Function("_ZN10ascend_jit3jit3reg17reduce_data_blockB3v31E")),
     1),
    (_Library("half_binary_run", _Function("_ZN10ascend_jit3jit11elementwise15half_binary_runB3v1Ex")), 1),
    (_Library("store_norm", _Function("_ZN7user_vf10store_normB2v1Ex")), 1),
    (_Library("load", _Function("_ZN10ascend_jit3jit8reg_move9load_normB3v12Ex")), 1),
    (_Library("store_norm", _Function("_ZN10ascend_jit3jit8reg_move10store_normB3v58Ex", is_declaration=True)), 1)])
def test_the_reg_kernels_alone_are_optimised_twice(library, runs):
    """A kernel called through its pointer is not optimised again inside each VF, so it is optimised twice when it
    compiles (jit/reg.py REG_KERNEL_MODULES); every other library keeps numba's one run."""
    from ascend_jit.jit import reg as impl

    def count(lib):
        lib.runs += 1
    impl._optimise_reg_kernels_twice(count)(library)
    assert library.runs == runs


def test_numba_runs_the_reg_kernels_second_optimisation():
    from numba.core.codegen import CPUCodeLibrary

    from ascend_jit.jit import reg as impl  # noqa: F401 - installs it
    assert CPUCodeLibrary._optimize_final_module.ascend_jit_reg_kernels_twice


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_a_kernel_that_cannot_be_bound_is_a_runtime_error_not_a_crash(monkeypatch):
    """The resolver cannot raise through the C callback: it warns with the error and the compiled call raises."""
    import ascend_jit as aj
    from ascend_jit.jit import reg as impl

    def refuse(binding):
        raise RuntimeError("cached by another implementation")
    monkeypatch.setattr(impl, "_KERNEL_ADDRESSES", {})
    monkeypatch.setattr(impl.KernelBinding, "address", refuse)
    namespace = {"R": aj.Reg}
    exec(_ADD_EXP_VF, namespace)  # noqa: S102 - a new module: its pointers are null until its first run
    with pytest.warns(RuntimeWarning, match="cached by another implementation"), \
            pytest.raises(RuntimeError, match="could not be bound"):
        _run_add_exp(reg.simd_vf(namespace["vf"]))


HELPER_MODULE = textwrap.dedent('''
    import numba
    import ascend_jit as aj
    R = aj.Reg

    @numba.njit(cache=True)
    def add_into(dst, src, mask):   # a numba function of the user's own, cached by numba itself
        R.Add(dst, src, src, mask)

    def first(dst, src):
        a, d = R.RegTensor("half"), R.RegTensor("half")
        m = R.CreateMask("half")
        R.LoadAlign(a, src, 0)
        add_into(d, a, m)
        R.StoreAlign(dst, d, m, 0)

    def second(dst, src):
        a, d = R.RegTensor("half"), R.RegTensor("half")
        m = R.CreateMask("half")
        R.LoadAlign(a, src, 0)
        add_into(d, a, m)
        add_into(d, d, m)
        R.StoreAlign(dst, d, m, 0)

    FIRST, SECOND = R.simd_vf(first), R.simd_vf(second)
''')

HELPER_RUN = textwrap.dedent('''
    import numpy as np
    import ascend_jit as aj
    import helper_vf
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("half", 128), core.local_tensor("half", 128)
    src[:] = np.arange(128)
    with core:
        helper_vf.VF(dst, src)
    stats = helper_vf.VF.compiled.stats
    print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()), int(dst.numpy()[3]))
''')


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
def test_a_cached_vf_runs_the_kernel_calls_of_a_function_numba_loaded_for_it(tmp_path):
    """A VF that calls a numba function of the user's own which numba loaded from its cache holds that function's
    code, kernel calls included: a third process loads the VF and runs them (a call that needed a step at load
    time, which the loaded function's library no longer lists, had crashed there)."""
    (tmp_path / "helper_vf.py").write_text(HELPER_MODULE)
    assert _run(tmp_path, HELPER_RUN.replace("helper_vf.VF", "helper_vf.FIRST")) == ["0", "1", "6"]   # 3 + 3
    second = HELPER_RUN.replace("helper_vf.VF", "helper_vf.SECOND")
    assert _run(tmp_path, second) == ["0", "1", "12"]   # add_into loaded from numba's cache, the VF compiled
    assert _run(tmp_path, second) == ["1", "0", "12"]   # the VF loaded


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
def test_a_kernel_binding_refuses_code_of_another_implementation_or_return_type(monkeypatch):
    """A cached call of a kernel is bound only to the code it was compiled against: another return type or another
    ascend_jit implementation is refused (a VF's cache key holds the implementation stamp, so only code cached by
    numba's own cache can meet either)."""
    from numba import types

    from ascend_jit.jit import lanes
    from ascend_jit.jit import reg as impl
    binding = impl.KernelBinding(lanes.__name__, "int_stage", (types.int64, types.int64, types.boolean), types.float64)
    with pytest.raises(RuntimeError, match="returns int64, cached code calling it expects float64"):
        binding.address()
    binding = impl.KernelBinding(lanes.__name__, "int_stage", (types.int64, types.int64, types.boolean), types.int64)
    assert binding.address()
    monkeypatch.setattr(binding, "stamp", "another implementation")
    with pytest.raises(RuntimeError, match="another ascend_jit implementation"):
        binding.address()
