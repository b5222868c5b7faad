"""A locked-down install (issue 12, defect 12): with NUMBA_CACHE_DIR, HOME and the package's own directories all
unwritable, `import ascend_jit`, the CLI and a kernel call work, with one CacheLocationWarning naming
NUMBA_CACHE_DIR; compiled kernels then live in a private temporary directory and a second process reuses them."""
import ast
import importlib.util
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ascend_jit import _cache

ROOT = Path(__file__).resolve().parents[1]

RUN = """
import numpy as np, ascend_jit as aj
from ascend_jit.jit import reduce
core = aj.Core("ascend950")  # the 950's int64 ReduceSum: the smallest kernel to compile (about 1 s)
src, dst, tmp = core.local_tensor("int64", 64), core.local_tensor("int64", 16), core.local_tensor("int64", 64)
src[:] = np.arange(64)
aj.ReduceSum(dst, src, tmp, 64)
print(int(dst.numpy()[0]), sum(reduce.sum_int64.stats.cache_hits.values()))
"""


def _unwritable(path, as_dir):
    """A location nobody can create numba's directories in, root included: a read-only directory, and for root
    (whom permissions do not stop) a regular file where a directory is needed."""
    if os.geteuid() == 0 or not as_dir:
        path.write_text("not a directory\n")
    else:
        path.mkdir()
        path.chmod(0o555)
    return path


@pytest.fixture
def locked_down(tmp_path):
    """A read-only copy of the package (every __pycache__ blocked), an unwritable NUMBA_CACHE_DIR and HOME, and a
    private TMPDIR: the environment of a child process."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "ascend_jit", site / "ascend_jit", ignore=shutil.ignore_patterns("__pycache__"))
    for d in [p for p in (site / "ascend_jit").rglob("*") if p.is_dir()] + [site / "ascend_jit"]:
        (d / "__pycache__").write_text("blocked\n")
    for p in site.rglob("*"):
        p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    (tmp_path / "tmp").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "PYTHONPATH")}
    env.update(PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1", TMPDIR=str(tmp_path / "tmp"),
               HOME=str(_unwritable(tmp_path / "home", True)),
               NUMBA_CACHE_DIR=str(_unwritable(tmp_path / "numba-cache", True)))
    yield env, tmp_path
    for p in site.rglob("*"):  # let pytest clean up
        p.chmod(p.stat().st_mode | stat.S_IWUSR)


def _child(env, cwd, code=RUN, args=()):
    r = subprocess.run([sys.executable, *(args or ["-c", code])], capture_output=True, text=True, env=env,
                       cwd=cwd, timeout=600)
    assert r.returncode == 0, r.stderr
    warnings = [line for line in r.stderr.splitlines() if "CacheLocationWarning" in line]
    assert len(warnings) == 1 and "NUMBA_CACHE_DIR" in warnings[0], r.stderr
    return r.stdout.split()


def test_locked_down_install_imports_runs_and_caches_in_tmp(locked_down):
    env, tmp_path = locked_down
    value, hits = _child(env, tmp_path)
    assert int(value) == sum(range(64)) and int(hits) == 0
    cached = list((tmp_path / "tmp").glob("ascend_jit-numba-cache-*/**/*.nbi"))
    assert cached, "the fallback directory holds the compiled kernels"
    value, hits = _child(env, tmp_path)      # a second process loads them instead of compiling
    assert int(value) == sum(range(64)) and int(hits) >= 1
    assert "atlas-a2" in " ".join(_child(env, tmp_path, args=["-m", "ascend_jit.cli", "devices"]))


def test_no_writable_directory_at_all_compiles_uncached(locked_down):
    env, tmp_path = locked_down
    no_temp = "import tempfile\ndef _refuse(*a, **k):\n    raise OSError('read-only')\n" \
              "tempfile.mkdtemp = _refuse\ntempfile.gettempdir = lambda: '/proc/no-such-dir'\n"
    value, hits = _child(env, tmp_path, code=no_temp + RUN)
    assert int(value) == sum(range(64)) and int(hits) == 0
    assert not list((tmp_path / "tmp").iterdir())


def test_shared_temp_cache_is_used_only_when_private(tmp_path, monkeypatch):
    monkeypatch.setattr(_cache.tempfile, "tempdir", str(tmp_path))
    shared = tmp_path / f"ascend_jit-numba-cache-{os.getuid()}"
    assert _cache._private_temp_cache() == str(shared)   # made now, mode 0700
    shared.chmod(0o777)                                   # writable by others: someone could plant pickles
    fresh = _cache._private_temp_cache()
    assert fresh != str(shared) and Path(fresh).is_dir()


def test_a_writable_location_needs_no_fallback(tmp_path, monkeypatch):
    monkeypatch.setattr(_cache.config, "CACHE_DIR", str(tmp_path / "cache"))
    assert _cache.ensure_cache_location() is None
    assert (tmp_path / "cache").is_dir()


def test_an_unwritable_numba_cache_dir_is_named_when_numba_falls_back(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory\n")
    monkeypatch.setattr(_cache.config, "CACHE_DIR", str(blocked / "cache"))
    with pytest.warns(_cache.CacheLocationWarning, match="NUMBA_CACHE_DIR"):
        assert _cache.ensure_cache_location() is None  # numba itself falls back to the package's __pycache__


POSIX_LOCKS = pytest.mark.skipif(importlib.util.find_spec("fcntl") is None, reason="the save lock is POSIX (fcntl)")

SAVER = """
import os, sys, time
from numba.core.caching import IndexDataCacheFile
import ascend_jit  # noqa: F401  (its import locks numba's cache saves)
folder, worker = sys.argv[1], sys.argv[2]
cache = IndexDataCacheFile(folder, "kernel", "stamp")
open(os.path.join(folder, "ready-" + worker), "w").close()
while not os.path.exists(os.path.join(folder, "go")):
    time.sleep(0.001)
for i in range(100):
    cache.save((worker, i), worker + str(i))
"""


def _save_at_once(folder):
    """Two processes add 100 entries each to one function's cache at the same moment; the entries found after."""
    from numba.core.caching import IndexDataCacheFile
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    workers = [subprocess.Popen([sys.executable, "-c", SAVER, str(folder), w], env=env) for w in "ab"]
    while not all((folder / f"ready-{w}").exists() for w in "ab") and all(p.poll() is None for p in workers):
        time.sleep(0.005)
    (folder / "go").touch()
    assert [p.wait(timeout=120) for p in workers] == [0, 0]
    cache = IndexDataCacheFile(str(folder), "kernel", "stamp")
    return {(w, i): cache.load((w, i)) for w in "ab" for i in range(100)}


@POSIX_LOCKS
def test_processes_compiling_into_one_cache_at_once_keep_every_entry_whole(tmp_path):
    """numba's own save, run this way, lost 9-19 of the 200 entries and pointed 2-5 keys at the other process's data
    in each of three runs (docs/decisions.md "Running the tests on every core"); after `import ascend_jit` every
    entry is there and its own."""
    entries = _save_at_once(tmp_path)
    assert [k for k, v in entries.items() if v != k[0] + str(k[1])] == []


@POSIX_LOCKS
def test_a_cache_on_a_file_system_without_locks_still_saves(tmp_path, monkeypatch):
    """Some network mounts refuse flock (ENOLCK): the save goes ahead as numba's own, never fails the compile."""
    import errno
    import fcntl

    from numba.core.caching import IndexDataCacheFile

    def no_locks(*args):
        raise OSError(errno.ENOLCK, "No locks available")
    monkeypatch.setattr(fcntl, "flock", no_locks)
    cache = IndexDataCacheFile(str(tmp_path), "kernel", "stamp")
    cache.save(("signature",), "machine code")
    assert cache.load(("signature",)) == "machine code"
    assert getattr(IndexDataCacheFile.save, "locked_across_processes", False)


ADD_RUN = """
import numpy as np, ascend_jit as aj
from ascend_jit.jit import elementwise
core = aj.Core("atlas-a2")
d, a, b = (core.local_tensor("float", 64) for _ in range(3))
a[:] = 1.0
b[:] = 1.0
aj.Add(d, a, b, 64)
print(float(d.numpy()[0]), sum(elementwise.binary_count_kernel.stats.cache_hits.values()) > 0)
"""


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled without the JIT")
def test_a_kernel_compiles_again_when_a_helper_of_another_file_changes(tmp_path):
    """numba checks a cached kernel's own file only; the package's kernels are keyed also on its sources
    (`_cache.implementation_stamp`). On a copy of the package: a second process loads the float Add's kernel, and
    after an edit of jit/lanes.py's add_lane (jit/elementwise.py's kernels call it) the next process compiles the
    kernel again and adds the new way (session 50: it loaded the old code and still gave 2.0)."""
    package = tmp_path / "ascend_jit"
    shutil.copytree(ROOT / "ascend_jit", package, ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ, PYTHONPATH=str(tmp_path), NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    env.pop("NUMBA_DISABLE_JIT", None)

    def run():
        return subprocess.run([sys.executable, "-c", ADD_RUN], env=env, cwd=tmp_path, capture_output=True, text=True,
                              check=True).stdout.split()

    assert run() == ["2.0", "False"]   # compiled and saved
    assert run() == ["2.0", "True"]    # loaded
    lanes = package / "jit" / "lanes.py"
    text = lanes.read_text()
    edited = text.replace("def add_lane(x, y):\n    return x + y\n",
                          "def add_lane(x, y):\n    return x + y + np.float32(1.0)\n")
    assert edited != text
    lanes.write_text(edited)
    assert run() == ["3.0", "False"]   # compiled again, with the edited lane


# The package modules that stamped sources import from without numba compiling what they read: each name is used by
# plain Python only (the dispatch before a kernel or VF runs, the sanitizer's hooks, an exception built when compiled
# code raises), so its file need not be in the cache key (_cache.STAMPED_SOURCES).
READ_BY_PLAIN_PYTHON_ONLY = {
    ("api/_common.py", "ascend_jit.core"): {"continuous_mask_words", "set_mask_words"},   # Memory-API validators
    ("api/_common.py", "ascend_jit.tensor"): {"LocalTensor", "known_device", "refuse_operand", "_BinaryExpr",
                                             "_CompareExpr"},
    ("errors.py", "ascend_jit.tensor"): {"known_device"},      # the device an exception names, when it is raised
    ("jit/reg.py", "ascend_jit._cache"): {"implementation_stamp"},    # the stamp itself
    ("jit/reg.py", "ascend_jit.tensor"): {"_index_value"},     # LocalTensor[]'s refusal, built when raised
    ("reg.py", "ascend_jit._cache"): {"implementation_stamp"},
    ("reg.py", "ascend_jit.api._scalar"): {"scalar_bits"},     # plain Duplicate / Axpy / Arange / tensor-scalar calls
    ("reg.py", "ascend_jit.api.utils"): {"AlignUp", "ConstCeil", "DivCeil"},   # keys of their compiled forms in reg.py
    # the modes a VF call passes as arguments, and the current core's sanitizer a new register's marks follow
    ("reg.py", "ascend_jit.core"): {"current_core", "_current"},
    ("reg.py", "ascend_jit.lane_shadow"): {"lane_shadow", "MARKING"},  # the sanitizer's register marks (plain calls)
    ("reg.py", "ascend_jit.launch"): {"PARALLEL_LAUNCHES"},
    # plain calls' accesses, and a fresh register's marks made where a sanitizing core's code makes it
    ("reg.py", "ascend_jit.sanitizer"): {"SANITIZING", "reg_access", "reg_undo", "Instr", "PIPE_V", "user_location"},
    ("reg.py", "ascend_jit.tensor"): {"SIZE_CHANGE_HOOKS", "LocalTensor"},
}


def _package_imports(package_dir, relative):
    """(module, name) for each `from ... import name` of the package in a source file, at any depth."""
    package = ".".join(["ascend_jit", *Path(relative).parts[:-1]])
    tree = ast.parse((package_dir / relative).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("ascend_jit")):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            for alias in node.names:
                yield (base if node.module else f"{base}.{alias.name}"), alias.name


def _source_of(package_dir, module):
    relative = Path(*module.split(".")[1:])
    return (relative.with_suffix(".py") if (package_dir / relative.with_suffix(".py")).exists()
            else relative / "__init__.py").as_posix()


def test_every_module_the_stamped_sources_compile_from_is_stamped():
    """numba freezes into a kernel the values its code reads from other files (a device's UB size, an enum's codes,
    a refusal's legal range), and the cache key does not see those files unless they are in
    `_cache.STAMPED_SOURCES` (session 51: jit/reg_move.py's UB_BYTES came from devices.py, outside the key). Each
    package module a stamped source imports from is stamped itself, or on READ_BY_PLAIN_PYTHON_ONLY for exactly
    the names it gives (a new import needs that decision)."""
    package_dir = ROOT / "ascend_jit"
    stamped = {path.relative_to(package_dir).as_posix()
               for pattern in _cache.STAMPED_SOURCES for path in package_dir.glob(pattern)}
    assert {"reg.py", "errors.py", "devices.py", "jit/reg_move.py"} <= stamped
    unstamped = {}
    for relative in sorted(stamped):
        for module, name in _package_imports(package_dir, relative):
            if _source_of(package_dir, module) not in stamped:
                unstamped.setdefault((relative, module), set()).add(name)
    assert unstamped == READ_BY_PLAIN_PYTHON_ONLY


def test_the_implementation_stamp_digests_every_stamped_source(tmp_path, monkeypatch):
    """A change of any stamped file gives another stamp; a file outside them does not."""
    package_dir = tmp_path / "ascend_jit"
    for pattern in _cache.STAMPED_SOURCES + ("cli.py",):
        for path in (ROOT / "ascend_jit").glob(pattern):
            target = package_dir / path.relative_to(ROOT / "ascend_jit")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
    monkeypatch.setattr(_cache, "__file__", str(package_dir / "_cache.py"))

    def stamp():
        _cache.implementation_stamp.cache_clear()
        return _cache.implementation_stamp()
    try:
        before = stamp()
        for relative in ("devices.py", "enums.py", "api/_common.py", "jit/lanes.py", "cli.py"):
            path = package_dir / relative
            text = path.read_text()
            path.write_text(text + "\n# edited\n")
            assert (stamp() == before) == (relative == "cli.py"), relative
            path.write_text(text)
        assert stamp() == before
    finally:
        monkeypatch.undo()
        _cache.implementation_stamp.cache_clear()
