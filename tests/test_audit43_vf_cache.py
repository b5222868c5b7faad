"""Audit 43c: hostile tests of the on-disk cache of Reg VFs (`@aj.Reg.simd_vf`, README "Compiled VFs are cached on
disk", docs/decisions.md `@R.simd_callee` and "Reg MaskRegs made in a VF"): a VF in a module file compiles once and
later processes load it; a stale entry never runs.

Every test runs 2-4 Python subprocesses sharing one NUMBA_CACHE_DIR (the caller's NUMBA_CACHE_DIR when set, so that
ascend_jit's own kernels stay warm; the VF modules are fresh files in tmp_path, so their entries are always new). A
subprocess imports a VF module, runs the VF compiled and plain (`with core: vf.py_func(...)`) on cores whose whole UB
starts random, and reports as JSON: whether the two UBs are equal, a digest of the compiled run's UB, the
"numba:compile" events of the VF module's functions (a loaded VF has none), UncompiledVFWarnings and `f.cached`.

Tests named test_found_* failed on the code audited (086dadb) and pass since the defects were fixed; each describes
its defect as found: callees of one qualname ordered the key by hash seed (a miss in every other-seeded process); a
callee module's global constant edited with size and mtime kept ran stale; a callee reached as `pkg.module.callee`
was not in the key at all (an ordinary edit ran stale); a cache directory unwritable after import crashed the VF
call. The fixes: the key sorts its callee parts and hashes the VF's and each callee's source file bytes
(reg._callee_stamp), follows module attributes to any depth (reg._reached), and a failed save warns
(_cache._warn_on_failed_saves).
"""
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1",
                                reason="with the JIT disabled nothing is compiled or cached")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RUNNER = r'''
import hashlib, importlib, json, sys, warnings
import numpy as np
import numba.core.event as ev
import ascend_jit as aj

config = json.loads(sys.argv[1])
compiles = []

class Count(ev.Listener):
    def on_start(self, event):
        f = getattr(event.data["dispatcher"], "py_func", None)
        if f is not None:
            compiles.append([f.__module__, f.__qualname__])
    def on_end(self, event):
        pass

ev.register("numba:compile", Count())
report = {"runs": [], "warnings": [], "cached": []}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    mod = importlib.import_module(config["module"])
    for attr, T, tdtype in config["calls"]:
        vf = mod
        for part in attr.split("."):
            vf = getattr(vf, part)

        def ub(run):
            core = aj.Core("ascend950")
            rng = np.random.default_rng(11)
            core.ub[:] = rng.integers(0, 256, core.ub.size).astype(np.uint8)
            dst, src = core.local_tensor(tdtype, 128), core.local_tensor(tdtype, 128)
            src[:] = (np.arange(128) % 100).astype(src.numpy().dtype)
            with core:
                run(dst, src, T)
            return core.ub.tobytes(), dst.numpy()[:4].astype(float).tolist()
        compiled, first = ub(vf)
        plain, _ = ub(vf.py_func)
        report["runs"].append({"vf": attr, "T": T, "equal": compiled == plain, "first": first,
                               "digest": hashlib.sha256(compiled).hexdigest()[:16]})
        report["cached"].append(vf.cached)
report["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught]
report["compiles"] = [q for m, q in compiles if m == config["module"]]
report["all_compiles"] = compiles
print(json.dumps(report))
'''


class Env:
    """Subprocesses sharing one NUMBA_CACHE_DIR and tmp_path on their path."""

    def __init__(self, tmp_path):
        self.tmp = tmp_path
        self.cache = os.environ.get("NUMBA_CACHE_DIR") or str(tmp_path / "numba-cache")
        (tmp_path / "runner.py").write_text(RUNNER)

    def write(self, name, text, keep_stat=False):
        """Write a module file; keep_stat: the new text has the old size and the file gets the old mtime back."""
        path = self.tmp / name
        text = textwrap.dedent(text)
        if keep_stat:
            old = path.stat()
            assert len(text.encode()) == old.st_size, "the edit must keep the file's size"
            path.write_text(text)
            os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
            assert (path.stat().st_size, path.stat().st_mtime_ns) == (old.st_size, old.st_mtime_ns)
        else:
            path.write_text(text)
        return path

    def env(self, seed):
        env = dict(os.environ, NUMBA_CACHE_DIR=self.cache, PYTHONHASHSEED=str(seed), NUMBA_NUM_THREADS="1")
        env.pop("NUMBA_DISABLE_JIT", None)
        env["PYTHONPATH"] = os.pathsep.join([str(self.tmp), ROOT])
        return env

    def run(self, module, calls, seed=1, script="runner.py"):
        done = subprocess.run([sys.executable, "-B", str(self.tmp / script),
                               json.dumps({"module": module, "calls": calls})],
                              env=self.env(seed), cwd=str(self.tmp), capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-4000:]
        return json.loads(done.stdout.strip().splitlines()[-1])


def _clean(report):
    """Every run compiled equals plain, no UncompiledVFWarning (nor any other warning), every VF cacheable."""
    assert all(r["equal"] for r in report["runs"]), report["runs"]
    assert report["warnings"] == [], report["warnings"]
    assert all(report["cached"]), report


def _digests(report):
    return [(r["vf"], r["T"], r["digest"]) for r in report["runs"]]


# --- (1) the key is the same under another PYTHONHASHSEED ------------------------------------------------------
SEED_CALLEES = '''
    import ascend_jit as aj
    R = aj.Reg


    @R.simd_callee
    def describe(T):  # compiled; the sets are in a nested function it makes and never calls (numba types no set of
        def kind(t):  # strings against a dtype name), so their constants enter the key all the same
            if t in {"half", "float", "bfloat16", "int16", "uint16", "int32"}:
                return 1
            if t in frozenset({"int8", "uint8", "int64", "uint64"}):
                return 2
            return 3
        return 0.25


    @R.simd_callee
    def pick(T, x=-0.0, names=("half", "float", "int16"), big=1e400 - 1e400):
        if T in names:
            return 1.5 + x
        return big


    @R.simd_callee
    def bump(reg, mask, T, k=2.0):
        f = lambda v: v * k + -0.0  # a nested code object with constants
        R.Adds(reg, reg, f(pick(T)), mask)
'''

SEED_VF = '''
    import ascend_jit as aj
    import seed_callees as h
    R = aj.Reg


    def vf(dst, src, T):
        reg = R.RegTensor(T)
        mask = R.CreateMask(T)
        R.LoadAlign(reg, src, 0)
        R.Adds(reg, reg, h.describe(T), mask)
        h.bump(reg, mask, T)
        R.StoreAlign(dst, reg, mask, 0)


    VF = R.simd_vf(vf)
'''


def test_a_vf_compiled_under_one_hash_seed_loads_under_another(tmp_path):
    """Callees holding set / frozenset constants of strings, tuples of strings, -0.0, a NaN, a lambda and default
    arguments: the process with PYTHONHASHSEED=2 loads what the one with PYTHONHASHSEED=1 saved (the callee key is
    reg._code_fingerprint, sets sorted), and computes the same bytes."""
    e = Env(tmp_path)
    e.write("seed_callees.py", SEED_CALLEES)
    e.write("seed_vf.py", SEED_VF)
    calls = [["VF", "half", "half"], ["VF", "float", "float"]]
    first = e.run("seed_vf", calls, seed=1)
    _clean(first)
    assert first["compiles"].count("vf") == 2 and first["runs"][0]["first"] == [3.25, 4.25, 5.25, 6.25], first
    second = e.run("seed_vf", calls, seed=2)
    _clean(second)
    assert second["compiles"] == [], second  # loaded: the VF compiled again would be a key that varies per seed
    assert _digests(second) == _digests(first)


FACTORY_CALLEES = '''
    import ascend_jit as aj
    R = aj.Reg


    def make(step):
        @R.simd_callee
        def bump(reg, mask, s=step):
            R.Adds(reg, reg, s, mask)
        return bump


    bump_one = make(1.0)
    bump_two = make(2.0)
    bump_ten = make(10.0)
'''

FACTORY_VF = '''
    import ascend_jit as aj
    from factory_callees import bump_one, bump_two, bump_ten
    R = aj.Reg


    def vf(dst, src, T):
        reg = R.RegTensor(T)
        mask = R.CreateMask(T)
        R.LoadAlign(reg, src, 0)
        bump_one(reg, mask)
        bump_two(reg, mask)
        bump_ten(reg, mask)
        R.StoreAlign(dst, reg, mask, 0)


    VF = R.simd_vf(vf)
'''


def _stamp_orders(tmp_path, seeds):
    """The VF's callee stamp (its order of parts) in one process per hash seed."""
    script = ("import sys, json, hashlib; sys.path[:0] = [sys.argv[1]]; from ascend_jit import reg; import factory_vf;"
              " print(hashlib.sha256(repr(reg._callee_stamp(factory_vf.vf)).encode()).hexdigest())")
    out = {}
    for seed in seeds:
        env = dict(os.environ, PYTHONHASHSEED=str(seed), PYTHONPATH=ROOT)
        done = subprocess.run([sys.executable, "-B", "-c", script, str(tmp_path)], env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        out[seed] = done.stdout.split()[-1]
    return out


def test_found_callees_of_one_qualname_key_the_vf_by_hash_seed(tmp_path):
    """Found, fixed since. A VF calling several simd_callees made by one factory (`make(step)` returning a nested
    callee with `s=step` as its default: the same module and __qualname__ `make.<locals>.bump`, different defaults).
    _callee_stamp sorts the callees by (module, qualname) only; ties keep _callees' discovery order, which follows
    the iteration order of a set of names (_code_names) and so the process's string hash seed. Under
    PYTHONHASHSEED=1 and =2 the stamp's parts come in different orders: the second process computes another key,
    misses, and compiles the VF again (in every process whose seed orders them differently: the cache hit README
    promises does not happen). Observed then: second process compiles `vf`; expected: it loads it (no compile), same
    bytes. Sorting by the whole part (or by the defaults and fingerprint too) would make the order seed-free."""
    e = Env(tmp_path)
    e.write("factory_callees.py", FACTORY_CALLEES)
    e.write("factory_vf.py", FACTORY_VF)
    orders = _stamp_orders(tmp_path, (1, 2))
    calls = [["VF", "half", "half"]]
    first = e.run("factory_vf", calls, seed=1)
    _clean(first)
    assert first["runs"][0]["first"] == [13.0, 14.0, 15.0, 16.0], first
    second = e.run("factory_vf", calls, seed=2)
    _clean(second)
    assert _digests(second) == _digests(first)
    assert second["compiles"] == [], (second["compiles"], "callee stamp sha256 per seed:", orders)
    assert orders[1] == orders[2], "the callee stamp differs between PYTHONHASHSEED=1 and =2"


# --- (2) staleness: an edited callee in another module --------------------------------------------------------------
STALE_CALLEES = '''
    import ascend_jit as aj
    R = aj.Reg
    STEP = {step}


    @R.simd_callee
    def first(reg, mask, k={k}):
        R.Adds(reg, reg, {lit} + k, mask)


    @R.simd_callee
    def other(reg, mask, k={k}):
        R.Adds(reg, reg, 100.0 + k, mask)


    @R.simd_callee
    def glob(reg, mask):
        R.Adds(reg, reg, STEP, mask)
'''

STALE_VF = '''
    import ascend_jit as aj
    import stale_callees as h
    R = aj.Reg
    helper = h.{which}


    def vf(dst, src, T):
        reg = R.RegTensor(T)
        mask = R.CreateMask(T)
        R.LoadAlign(reg, src, 0)
        helper(reg, mask)
        R.StoreAlign(dst, reg, mask, 0)


    def vg(dst, src, T):
        reg = R.RegTensor(T)
        mask = R.CreateMask(T)
        R.LoadAlign(reg, src, 0)
        h.glob(reg, mask)
        R.StoreAlign(dst, reg, mask, 0)


    VF = R.simd_vf(vf)
    VG = R.simd_vf(vg)
'''


def test_an_edited_callee_literal_default_or_swapped_global_never_runs_stale(tmp_path):
    """Each edit keeps the file's size and gets the old mtime back (numba's own stamp sees no change): a callee's
    literal (1.0 -> 2.0), its default (k=1.0 -> k=3.0), and the VF module's global swapped to another callee (`first`
    -> `other`, padded to the same size). Every next process computes the edited value, then loads it."""
    e = Env(tmp_path)
    e.write("stale_callees.py", STALE_CALLEES.format(step="1.0", k="1.0", lit="1.0"))
    e.write("stale_vf.py", STALE_VF.format(which="first"))
    calls = [["VF", "half", "half"]]
    r = e.run("stale_vf", calls)
    _clean(r)
    assert r["runs"][0]["first"] == [2.0, 3.0, 4.0, 5.0] and r["compiles"] == ["vf"], r   # 0 + 1.0 + 1.0
    assert e.run("stale_vf", calls)["compiles"] == []                                         # loaded
    e.write("stale_callees.py", STALE_CALLEES.format(step="1.0", k="1.0", lit="2.0"), keep_stat=True)
    r = e.run("stale_vf", calls, seed=2)
    _clean(r)
    assert r["runs"][0]["first"] == [3.0, 4.0, 5.0, 6.0] and r["compiles"] == ["vf"], r      # the literal edit
    e.write("stale_callees.py", STALE_CALLEES.format(step="1.0", k="3.0", lit="2.0"), keep_stat=True)
    r = e.run("stale_vf", calls, seed=3)
    _clean(r)
    assert r["runs"][0]["first"] == [5.0, 6.0, 7.0, 8.0] and r["compiles"] == ["vf"], r      # the default edit
    e.write("stale_vf.py", STALE_VF.format(which="other"), keep_stat=True)
    r = e.run("stale_vf", calls, seed=4)
    _clean(r)
    assert r["runs"][0]["first"] == [103.0, 104.0, 105.0, 106.0] and r["compiles"] == ["vf"], r  # swapped
    r = e.run("stale_vf", calls, seed=5)
    assert r["runs"][0]["first"] == [103.0, 104.0, 105.0, 106.0] and r["compiles"] == [], r


def test_found_an_edited_module_constant_of_a_callee_runs_stale(tmp_path):
    """Found, fixed since (a stale entry runs). The callee `glob` in another module reads that module's global
    `STEP`, which numba freezes into the VF's machine code. Editing `STEP = 1.0` to `STEP = 2.0` (same file size,
    mtime restored with os.utime; a `git checkout`, a copy with preserved times or an edit within the file system's
    timestamp granularity gives the same) leaves _callee_stamp unchanged: it holds the callee's code fingerprint
    (the name STEP, not its value), defaults and the file's (mtime_ns, size). The next process loads the old code
    and adds 1.0. Observed then: first == [1, 2, 3, 4] (stale) with no compile; expected: [2, 3, 4, 5] (the VF
    compiled again), as for a literal in the callee's code. (numba's own stamp of the VF's file is also mtime +
    size; the callee stamp could hold a hash of the callee file's bytes, which are at hand, instead.)"""
    e = Env(tmp_path)
    e.write("stale_callees.py", STALE_CALLEES.format(step="1.0", k="1.0", lit="1.0"))
    e.write("stale_vf.py", STALE_VF.format(which="first"))
    calls = [["VG", "half", "half"]]
    r = e.run("stale_vf", calls)
    _clean(r)
    assert r["runs"][0]["first"] == [1.0, 2.0, 3.0, 4.0] and r["compiles"] == ["vg"], r
    e.write("stale_callees.py", STALE_CALLEES.format(step="2.0", k="1.0", lit="1.0"), keep_stat=True)
    r = e.run("stale_vf", calls, seed=2)
    assert r["runs"][0]["equal"], "the compiled VF gives other bytes than its plain run (stale code)"
    assert r["runs"][0]["first"] == [2.0, 3.0, 4.0, 5.0], r


# --- (3) two VFs of one name in one file -----------------------------------------------------------------------------
SAME_NAME_VF = '''
    import ascend_jit as aj
    R = aj.Reg


    class A:
        def vf(dst, src, T):
            reg = R.RegTensor(T)
            mask = R.CreateMask(T)
            R.LoadAlign(reg, src, 0)
            R.Adds(reg, reg, 1.0, mask)
            R.StoreAlign(dst, reg, mask, 0)
        VF = R.simd_vf(vf)


    class B:
        def vf(dst, src, T):
            reg = R.RegTensor(T)
            mask = R.CreateMask(T)
            R.LoadAlign(reg, src, 0)
            R.Adds(reg, reg, 2.0, mask)
            R.StoreAlign(dst, reg, mask, 0)
        VF = R.simd_vf(vf)


    def make(step):
        def vf(dst, src, T):
            reg = R.RegTensor(T)
            mask = R.CreateMask(T)
            R.LoadAlign(reg, src, 0)
            R.Adds(reg, reg, step, mask)
            R.StoreAlign(dst, reg, mask, 0)
        return R.simd_vf(vf)


    C = make(3.0)
    D = make(4.0)
'''


def test_vfs_of_one_name_in_classes_and_closures_keep_their_own_entries(tmp_path):
    e = Env(tmp_path)
    e.write("same_name_vf.py", SAME_NAME_VF)
    calls = [["A.VF", "half", "half"], ["B.VF", "half", "half"], ["C", "half", "half"], ["D", "half", "half"]]
    first = e.run("same_name_vf", calls)
    _clean(first)
    assert [r["first"][0] for r in first["runs"]] == [1.0, 2.0, 3.0, 4.0]
    # the later process calls them in the other order: each must load its own entry
    second = e.run("same_name_vf", calls[::-1], seed=2)
    _clean(second)
    assert [r["first"][0] for r in second["runs"]] == [4.0, 3.0, 2.0, 1.0]
    assert second["compiles"] == [], second


# --- (4) a callee reached through a closure or a module attribute -----------------------------------------------------
REACH_CALLEE = '''
    import ascend_jit as aj
    R = aj.Reg


    @R.simd_callee
    def bump(reg, mask):
        R.Adds(reg, reg, {lit}, mask)
'''

REACH_VF = '''
    import ascend_jit as aj
    import reachpkg.inner as inner
    from reachpkg.inner import bump as alias
    R = aj.Reg


    def make(callee):
        def vf(dst, src, T):
            reg = R.RegTensor(T)
            mask = R.CreateMask(T)
            R.LoadAlign(reg, src, 0)
            callee(reg, mask)
            R.StoreAlign(dst, reg, mask, 0)
        return R.simd_vf(vf)


    CLOSURE = make(alias)


    def vf_attr(dst, src, T):
        reg = R.RegTensor(T)
        mask = R.CreateMask(T)
        R.LoadAlign(reg, src, 0)
        inner.bump(reg, mask)
        R.StoreAlign(dst, reg, mask, 0)


    ATTR = R.simd_vf(vf_attr)
'''

REACH_DOTTED = '''
    import ascend_jit as aj
    import reachpkg.inner
    R = aj.Reg


    def vf(dst, src, T):
        reg = R.RegTensor(T)
        mask = R.CreateMask(T)
        R.LoadAlign(reg, src, 0)
        reachpkg.inner.bump(reg, mask)
        R.StoreAlign(dst, reg, mask, 0)


    DOTTED = R.simd_vf(vf)
'''


def _reach_env(tmp_path, lit):
    e = Env(tmp_path)
    (tmp_path / "reachpkg").mkdir(exist_ok=True)
    e.write("reachpkg/__init__.py", "")
    e.write("reachpkg/inner.py", REACH_CALLEE.format(lit=lit))
    e.write("reach_vf.py", REACH_VF)
    e.write("reach_dotted.py", REACH_DOTTED)
    return e


def test_a_callee_reached_through_a_closure_or_a_module_attribute_is_in_the_key(tmp_path):
    e = _reach_env(tmp_path, "1.0")
    calls = [["CLOSURE", "half", "half"], ["ATTR", "half", "half"]]
    r = e.run("reach_vf", calls)
    _clean(r)
    assert [x["first"][0] for x in r["runs"]] == [1.0, 1.0]
    r = e.run("reach_vf", calls, seed=2)
    _clean(r)
    assert r["compiles"] == [], r
    e.write("reachpkg/inner.py", REACH_CALLEE.format(lit="7.0"), keep_stat=True)
    r = e.run("reach_vf", calls, seed=3)
    _clean(r)
    assert [x["first"][0] for x in r["runs"]] == [7.0, 7.0], r


def test_found_a_callee_reached_as_package_module_attr_runs_stale(tmp_path):
    """Found, fixed since (a stale entry runs). A VF calling `reachpkg.inner.bump(...)` after `import
    reachpkg.inner` (a port's `import kernels.helpers` then `kernels.helpers.tile(...)`) compiles (numba resolves
    the dotted chain), but reg._reached looks one module deep only (the VF's globals, and attributes of the modules
    among them): `reachpkg` is a global, `inner` its attribute, `bump` an attribute of that, never looked at. So
    _callees misses `bump` and the VF's key holds nothing of it: after bump's constant changes (1.0 -> 7.0, here
    with a new size and mtime, an ordinary edit) the next process loads the old code. Observed then: first == [1,
    ...] and no compile; expected: the VF compiled again, [7, ...] (as for `inner.bump(...)`, the test above)."""
    e = _reach_env(tmp_path, "1.0")
    calls = [["DOTTED", "half", "half"]]
    r = e.run("reach_dotted", calls)
    _clean(r)
    assert r["runs"][0]["first"][0] == 1.0
    e.write("reachpkg/inner.py", REACH_CALLEE.format(lit="7.25"))  # an ordinary edit: size and mtime change
    r = e.run("reach_dotted", calls, seed=2)
    assert r["runs"][0]["equal"], "the compiled VF gives other bytes than its plain run (stale code)"
    assert r["runs"][0]["first"][0] == 7.25, r


# --- (5) the array-form retry, cached across processes -------------------------------------------------------------
MASK_VF = '''
    import ascend_jit as aj
    R = aj.Reg
    UM = R.UpdateMask  # the mask maker under another name


    @R.simd_callee
    def negate(u, m):
        R.MaskNot(u, u, m)


    @R.simd_vf
    def vf(out, src, T):
        count = 100
        m = R.CreateMask(T)
        R.LoadAlign(m, src, 0)
        R.StoreAlign(out, m, 0)
        for i in range(3):
            u, count = UM(T, count)
            negate(u, m)
            R.StoreAlign(out, u, (i + 1) * 32)
            m = u
'''


def test_the_mask_array_form_is_loaded_for_every_dtype_class_in_any_order(tmp_path):
    """A VF writing into masks made by CreateMask / UpdateMask (under an alias, and in a simd_callee) compiles in its
    array form; saved for half, float and int16 in one process, a process under another hash seed calling float
    first loads all three, compiling neither form."""
    e = Env(tmp_path)
    e.write("mask_vf.py", MASK_VF)
    first = e.run("mask_vf", [["vf", T, "uint8"] for T in ("half", "float", "int16")], seed=1)
    _clean(first)
    assert first["compiles"].count("vf") >= 2, first  # the tuple form failed, the array form compiled
    second = e.run("mask_vf", [["vf", T, "uint8"] for T in ("float", "int16", "half")], seed=2)
    _clean(second)
    assert second["compiles"] == [], second
    assert sorted(_digests(second)) == sorted(_digests(first))


# --- (6) the cache directory taken away while the process runs -----------------------------------------------------
DIR_VF = '''
    import ascend_jit as aj
    R = aj.Reg


    @R.simd_vf
    def gone(dst, src, T):
        reg = R.RegTensor(T)
        R.LoadAlign(reg, src, 0)
        R.Adds(reg, reg, 1.0, R.CreateMask(T))
        R.StoreAlign(dst, reg, R.CreateMask(T), 0)


    @R.simd_vf
    def filed(dst, src, T):
        reg = R.RegTensor(T)
        R.LoadAlign(reg, src, 0)
        R.Adds(reg, reg, 2.0, R.CreateMask(T))
        R.StoreAlign(dst, reg, R.CreateMask(T), 0)


    @R.simd_vf
    def frozen(dst, src, T, mask):  # no mask maker: no array-form retry to fall back on
        reg = R.RegTensor(T)
        R.LoadAlign(reg, src, 0)
        R.Adds(reg, reg, 3.0, mask)
        R.StoreAlign(dst, reg, mask, 0)
'''

DIR_RUNNER = r'''
import json, os, shutil, subprocess, sys, warnings
import numpy as np
import ascend_jit as aj
import dir_vf

path = dir_vf.gone.compiled._cache._cache_path
report = {"path": path}

def call(vf, T="half"):
    core = aj.Core("ascend950")
    dst, src = core.local_tensor(T, 128), core.local_tensor(T, 128)
    src[:] = np.arange(128).astype(np.float16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with core:
                if vf is dir_vf.frozen:
                    vf(dst, src, T, aj.Reg.CreateMask(T))
                else:
                    vf(dst, src, T)
            error = None
        except BaseException as e:
            error = f"{type(e).__name__}: {e}"
    return {"error": error, "first": float(dst.numpy()[0]),
            "warnings": [f"{w.category.__name__}: {w.message}" for w in caught]}

shutil.rmtree(path, ignore_errors=True)       # missing: numba makes it again
report["missing"] = call(dir_vf.gone)
if sys.argv[1] == "immutable":                # unwritable, even for root: chattr +i (the test undoes it)
    if subprocess.run(["chattr", "+i", path], capture_output=True).returncode == 0:
        try:
            report["immutable"] = call(dir_vf.frozen)
        finally:
            subprocess.run(["chattr", "-i", path], check=True)
else:                                         # a file where the directory was
    shutil.rmtree(path, ignore_errors=True)
    with open(path, "w") as f:
        f.write("not a directory")
    report["filed"] = call(dir_vf.filed)
    report["filed_frozen"] = call(dir_vf.frozen)
print(json.dumps(report))
'''


def _dir_run(tmp_path, mode):
    e = Env(tmp_path)  # the shared cache: only the directory of tmp_path's own VFs in it is taken away
    e.write("dir_vf.py", DIR_VF)
    (tmp_path / "dir_runner.py").write_text(DIR_RUNNER)
    done = subprocess.run([sys.executable, "-B", str(tmp_path / "dir_runner.py"), mode], env=e.env(1),
                          cwd=str(tmp_path), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    if mode == "filed":
        os.remove(report["path"])
    return report


def test_a_cache_directory_missing_or_replaced_by_a_file_mid_run_does_not_crash(tmp_path):
    """Removed before the first call: numba makes it again. Replaced by a file: loading raises NotADirectoryError,
    which simd_vf takes for a failed compile; the VF then compiles in its array form (a fresh dispatcher, whose cache
    falls back to the source's __pycache__) or, with no mask maker, runs plain with an UncompiledVFWarning. Either
    way no error and the plain run's values."""
    report = _dir_run(tmp_path, "filed")
    assert report["missing"]["error"] is None and report["missing"]["first"] == 1.0, report
    assert report["filed"]["error"] is None and report["filed"]["first"] == 2.0, report
    assert report["filed_frozen"]["error"] is None and report["filed_frozen"]["first"] == 3.0, report


@pytest.mark.skipif(shutil.which("chattr") is None, reason="needs chattr to make a directory unwritable for root")
def test_found_an_unwritable_cache_directory_mid_run_crashes_the_vf_call(tmp_path):
    """Found, fixed since (a crash). The VF's cache directory is writable when the VF is decorated, and made
    unwritable before its first call (chattr +i: an unwritable directory even for root; a full disk, a read-only
    remount or a permission change do the same). numba's Dispatcher.compile finds no index (a miss), compiles, adds
    the overload and then saves it; the save's TemporaryFile probe raises PermissionError. simd_vf's run_compiled
    sees that numba now holds code for the arguments (_compiled_for) and re-raises it: the VF call fails with an
    error that says nothing of the cache. (ascend_jit's _cache checks the location once, at import; numba's own
    njit(cache=True) raises the same way.) Observed then: immutable['error'] = 'PermissionError: [Errno 1] Operation
    not permitted: ...'; expected: the VF's values (first == 3.0), at most a warning that it could not be cached."""
    report = _dir_run(tmp_path, "immutable")  # the runner undoes its chattr +i in a finally
    if "immutable" not in report:
        pytest.skip("chattr +i is not permitted here")
    assert report["missing"]["error"] is None and report["missing"]["first"] == 1.0, report
    assert report["immutable"]["error"] is None, report["immutable"]
    assert report["immutable"]["first"] == 3.0, report
    unsaved = [w for w in report["immutable"]["warnings"] if w.startswith("CacheLocationWarning")]
    assert len(unsaved) == 1 and "could not save compiled code" in unsaved[0], report["immutable"]
