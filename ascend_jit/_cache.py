"""Where numba keeps the compiled kernels (`cache=True`), and what happens when it cannot write there (issue 12,
defect 12; issue 20).

For each decorated function numba takes the first usable of: `NUMBA_CACHE_DIR`, the `__pycache__` beside the
source, the user-wide cache under HOME. In a read-only install with an unwritable HOME none is usable and
`@njit(cache=True)` raises at import ("no locator available"). `ensure_cache_location()` runs before any kernel
module is imported: it asks numba to locate a cache for a throw-away function exactly as it will for the kernels,
and when nothing is writable it points numba (NUMBA_CACHE_DIR, also inherited by child processes) at a private
directory in the temporary directory, or turns caching off if even that fails. Either way it emits one
`CacheLocationWarning` naming NUMBA_CACHE_DIR; it also warns when NUMBA_CACHE_DIR is set but not writable (numba
then quietly caches elsewhere).

`stamp_package_kernels()` keys the package's own kernels also on `implementation_stamp()`, a digest of the sources
compiled into them (STAMPED_SOURCES): numba checks a cached function's own file only, so a kernel kept the old code
of a helper in another file after that file changed.

`lock_cache_saves()` makes numba's cache saves whole when several processes compile into one cache at once (the
test suite's workers, a Dask sweep's workers, CI jobs sharing a cached NUMBA_CACHE_DIR), and a save that fails
(the directory made read-only or the disk filled after import) one CacheLocationWarning, not an error of the call.
"""
import atexit
import functools
import hashlib
import os
import pathlib
import shutil
import stat
import tempfile
import warnings

from numba.core import config


class CacheLocationWarning(UserWarning):
    """numba cannot cache compiled kernels where it would: they go to another directory, or every process
    compiles them again."""


def _probe():
    """The function numba is asked to find a cache location for (it is never compiled)."""


def _writable_dir(path):
    """numba's own test: the directory can be made and a file created in it."""
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def _numba_can_cache():
    from numba import njit
    try:
        njit(cache=True)(_probe)
    except RuntimeError:  # "cannot cache function '_probe': no locator available for file ..."
        return False
    return True


def _private_temp_cache():
    """A per-user cache directory in the temporary directory, kept between processes when it is safely ours (made
    by this user, not writable by others: numba's cache files are pickles); else a fresh one for this process."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    shared = os.path.join(tempfile.gettempdir(), f"ascend_jit-numba-cache-{uid}")
    try:
        os.makedirs(shared, mode=0o700, exist_ok=True)
        st = os.lstat(shared)
        mine = (stat.S_ISDIR(st.st_mode) and (not hasattr(os, "getuid") or st.st_uid == uid)
                and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))
        if mine and _writable_dir(shared):
            return shared
    except OSError:
        pass
    try:
        fresh = tempfile.mkdtemp(prefix="ascend_jit-numba-cache-")
    except OSError:
        return None
    atexit.register(shutil.rmtree, fresh, True)
    return fresh


def _use_cache_dir(path):
    os.environ["NUMBA_CACHE_DIR"] = path  # numba re-reads its configuration from the environment when it compiles
    config.CACHE_DIR = path


def _disable_caching():
    """Last resort (no writable directory at all): `cache=True` becomes a no-op, so every process compiles."""
    from numba.core.dispatcher import Dispatcher
    Dispatcher.enable_caching = lambda self: None


# The package's sources whose code or values numba compiles into its kernels and into every VF: jit/ (the kernels,
# the Reg implementations), reg.py (the Reg overloads, typed when a VF compiles) and the modules these read at
# compile time: errors.py (the refusals compiled code raises), enums.py, dtypes.py and devices.py (codes, sizes and
# device facts frozen into tables, e.g. jit/reg_move.py's UB_BYTES), api/_common.py (the enum readers and legal-range
# texts of the Reg overloads). tests/test_cache_location.py checks that every package module these import from is
# listed here or read by plain Python only.
STAMPED_SOURCES = ("reg.py", "errors.py", "enums.py", "dtypes.py", "devices.py", "api/_common.py", "jit/*.py")


@functools.lru_cache(maxsize=None)
def implementation_stamp():
    """A digest of STAMPED_SOURCES, once per process: part of the cache keys of the package's kernels and of every
    VF, so cached code is never reused after ascend_jit's implementation changed."""
    root = pathlib.Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted(path for pattern in STAMPED_SOURCES for path in root.glob(pattern)):
        digest.update(path.relative_to(root).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


def stamp_package_kernels():
    """numba keys a cached function on its own code and checks its own source file only (`FunctionCache._index_key`):
    a kernel that calls a helper of another file (jit/elementwise.py's kernels call jit/lanes.py's lanes) loaded its
    old machine code after that file changed: an edit while developing, a `git pull` or an upgrade over a kept cache
    (session 50: an Add still added as before an edit of `add_lane`). The key of every function of the package
    also holds `implementation_stamp()`, so any change of those sources compiles the package's kernels again;
    functions of other modules keep numba's key. Should numba's class change, keys stay numba's own."""
    from numba.core.caching import FunctionCache
    unstamped = getattr(FunctionCache, "_index_key", None)
    if unstamped is None or getattr(unstamped, "stamps_the_package", False):
        return

    def _index_key(self, sig, codegen):
        key = unstamped(self, sig, codegen)
        module = getattr(getattr(self, "_py_func", None), "__module__", None) or ""
        if module.startswith(__package__ + "."):
            return key + (implementation_stamp(),)
        return key

    _index_key.stamps_the_package = True
    FunctionCache._index_key = _index_key


def lock_cache_saves():
    """numba adds an entry to a function's cache by reading the index, taking the first unused data-file number and
    writing the index and then the data file (`IndexDataCacheFile.save`). Two processes adding entries to one
    function at the same moment take the same number: one entry is lost, and the index can point a signature at the
    other process's machine code, which a later process then loads for the wrong argument types (docs/decisions.md
    "Running the tests on every core"). An exclusive lock on a file beside the index, held from reading the index
    to writing the data, makes each save whole. POSIX only (fcntl); elsewhere, and should numba's class change,
    saves stay numba's own. A save that fails warns instead (_warn_on_failed_saves, on every platform)."""
    _warn_on_failed_saves()
    try:
        import fcntl
        from numba.core.caching import IndexDataCacheFile
    except ImportError:
        return
    unlocked = IndexDataCacheFile.save
    if getattr(unlocked, "locked_across_processes", False):
        return

    def save(self, key, data):
        try:
            lock = open(f"{self._index_path}.lock", "ab")
        except (AttributeError, OSError):  # numba's class changed, or a read-only cache directory: numba's save
            return unlocked(self, key, data)
        with lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            except OSError:  # a file system without locks (some network mounts): numba's save as it is
                pass
            return unlocked(self, key, data)

    save.locked_across_processes = True
    IndexDataCacheFile.save = save


_UNSAVED_DIRECTORIES = set()


def _warn_on_failed_saves():
    """numba's save of a compiled function (`Cache.save_overload`: it checks the directory by writing a temporary
    file, then writes the index and the data) raises the OSError of a cache directory made read-only, or of a full
    disk, after import, and that fails the call that compiled the kernel or VF. The code runs uncached instead, with
    one CacheLocationWarning per directory (issue 20: an unwritable cache never fails a run); numba's load already
    skips an index entry whose data file is missing, so a save that stopped half way is compiled again."""
    from numba.core.caching import Cache
    unguarded = Cache.save_overload
    if getattr(unguarded, "warns_on_failure", False):
        return

    def save_overload(self, sig, data):
        try:
            return unguarded(self, sig, data)
        except OSError as error:
            directory = getattr(self, "_cache_path", None) or "?"
            if directory not in _UNSAVED_DIRECTORIES:
                _UNSAVED_DIRECTORIES.add(directory)
                warnings.warn(f"ascend_jit: numba could not save compiled code to its cache in {directory} "
                              f"({error}); it runs uncached and compiles again in the next process. Set "
                              "NUMBA_CACHE_DIR to a writable directory to cache it (see README, 'The numba cache').",
                              CacheLocationWarning, stacklevel=2)
            return None

    save_overload.warns_on_failure = True
    Cache.save_overload = save_overload


def ensure_cache_location():
    """Make sure `@njit(cache=True)` works in this process; returns the fallback directory used, or None."""
    if config.DISABLE_JIT:
        return None
    requested = config.CACHE_DIR
    requested_ok = not requested or _writable_dir(requested)
    if _numba_can_cache():
        if not requested_ok:
            warnings.warn(f"ascend_jit: NUMBA_CACHE_DIR={requested!r} is not writable; numba caches the compiled "
                          "kernels in its next location instead (the package's __pycache__ or the user cache). "
                          "Set NUMBA_CACHE_DIR to a writable directory to choose where.", CacheLocationWarning,
                          stacklevel=3)
        return None
    fallback = _private_temp_cache()
    where = (f"NUMBA_CACHE_DIR={requested!r}" if requested else "NUMBA_CACHE_DIR (unset)") + \
        ", the package's __pycache__ and the user cache under HOME"
    if fallback is not None:
        _use_cache_dir(fallback)
        if _numba_can_cache():
            warnings.warn(f"ascend_jit: numba cannot write its cache to {where}; compiled kernels are cached in "
                          f"{fallback} instead. Set NUMBA_CACHE_DIR to a writable directory to keep them where you "
                          "want (see README, 'The numba cache').", CacheLocationWarning, stacklevel=3)
            return fallback
    _disable_caching()
    warnings.warn(f"ascend_jit: numba cannot write its cache to {where} or the temporary directory; kernels are "
                  "compiled again in every process. Set NUMBA_CACHE_DIR to a writable directory to cache them "
                  "(see README, 'The numba cache').", CacheLocationWarning, stacklevel=3)
    return None
