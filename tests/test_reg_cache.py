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
    monkeypatch.setattr(reg._VFCache, "stamp", "one")
    first = cache._index_key((), codegen)
    monkeypatch.setattr(reg._VFCache, "stamp", "two")
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
    helpers = tmp_path / "porting_helpers.py"
    helpers.write_text(CALLEES.format(step=1))
    (tmp_path / "porting_vf.py").write_text(CALLER_MODULE)
    assert _run(tmp_path, CALLER_RUN) == ["0", "1", "4"]   # compiled and saved: 3 + 1
    assert _run(tmp_path, CALLER_RUN) == ["1", "0", "4"]   # loaded
    helpers.write_text(CALLEES.format(step=10))
    assert _run(tmp_path, CALLER_RUN) == ["0", "1", "13"]  # the callee changed: compiled again
    assert _run(tmp_path, CALLER_RUN) == ["1", "0", "13"]


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
