"""Audit of session 41 (f413a9b..45aae4c): load_file's per-process memo, the sanitizer's frame-file cache and numpy
record stores / `_pairs` fast path, and `aj.sizeof` (plain and compiled in a VF)."""
import os
import sys
import threading
import warnings

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.errors import AscendJitError, ParameterError, UnsupportedDTypeError
from ascend_jit.kernels import load_file

R = aj.Reg
NO_JIT = os.environ.get("NUMBA_DISABLE_JIT") == "1"

_SOURCE = (
    "import time\nimport numpy as np\nfrom ascend_jit.kernels._base import KernelSpec\n{pre}\n"
    "KERNEL = KernelSpec('audit41', 'y = x', lambda n, s: {'x': np.zeros(n)}, lambda d, i: {'y': i['x']},\n"
    "                    lambda d, i: {'y': i['x']}, default_size={size}, source='a test')\n")


def _source(size, pre=""):
    return _SOURCE.replace("{size}", str(size)).replace("{pre}", pre)


# --- load_file ------------------------------------------------------------------------------------------------------
def test_load_file_runs_a_same_size_edit_whose_modification_time_did_not_move(tmp_path):
    """An edited file runs afresh (docs/decisions.md "A kernel file is run once per process while it is
    unchanged"). The memo's key (st_mtime_ns, st_size) does not identify the content: a same-size edit within one
    timestamp tick (FAT's 2 s, HFS+'s 1 s, NFS, ext4 on kernels before 6.13 whose mtime is the jiffy-coarse clock,
    or an mtime kept by `cp -p` / `rsync -t` / `touch -r`) gives back the old KernelSpecs. Simulated here by putting
    the first version's mtime back. Expected: the edited KERNEL (default_size 22)."""
    path = tmp_path / "same_stamp.py"
    path.write_text(_source(11))
    [first] = load_file(path)
    status = path.stat()
    path.write_text(_source(22))     # the same byte count
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    [edited] = load_file(path)
    assert edited.default_size == 22


def test_concurrent_loads_of_a_raising_file_raise_its_error(tmp_path):
    """load_file's `del sys.modules[name]` after a failed run: two threads loading one failing file (registry() from
    two threads, a test runner's threads) each register their module under the one name, and the second to fail finds
    the entry already gone: a KeyError (no AscendJitError, and not the file's own error) instead of the file's
    ZeroDivisionError. Expected: every caller sees the file's error, and no module is left registered."""
    path = tmp_path / "slow_fail.py"
    path.write_text(_source(8, pre="time.sleep(0.3)\n1 / 0"))
    errors = []

    def load():
        try:
            load_file(path)
        except BaseException as e:  # noqa: BLE001 - collected
            errors.append(type(e).__name__)
    threads = [threading.Thread(target=load) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == ["ZeroDivisionError"] * 3
    assert not [m for m in sys.modules if m.startswith("ascend_jit_user_kernel_slow_fail_")]


def test_a_file_that_raises_after_a_good_version_raises_every_time_and_leaves_no_module(tmp_path):
    """A cached good version does not mask a later failing edit: the failing file runs (and raises) on every call, and
    its module name leaves sys.modules; a file with no KernelSpec is a ParameterError on every call."""
    path = tmp_path / "flip.py"
    path.write_text(_source(8))
    [good] = load_file(path)
    name = good.run.__module__
    path.write_text(_source(8, pre="1 / 0"))
    for _ in range(2):
        with pytest.raises(ZeroDivisionError):
            load_file(path)
        assert name not in sys.modules
    empty = tmp_path / "no_kernel.py"
    empty.write_text("X = 1\n")
    for _ in range(2):
        with pytest.raises(ParameterError):
            load_file(empty)


def test_relative_absolute_and_symlinked_spellings_share_one_entry_distinct_files_do_not(tmp_path, monkeypatch):
    """One resolved file is one module (its numba cache name); two files never share specs, even with equal content
    and stamps."""
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text(_source(8))
    b.write_text(_source(8))
    os.utime(b, ns=(a.stat().st_atime_ns, a.stat().st_mtime_ns))
    (tmp_path / "link.py").symlink_to(a)
    monkeypatch.chdir(tmp_path)
    [k1] = load_file("a.py")
    [k2] = load_file(a)
    [k3] = load_file(tmp_path / "link.py")
    [kb] = load_file(b)
    assert k1 is k2 is k3 and kb is not k1 and kb.run.__module__ != k1.run.__module__


# --- sizeof -----------------------------------------------------------------------------------------------------------
def _run_both(fn, *args):
    """(result or (error class, message)) of the compiled VF and of its plain run."""
    out = []
    for run in (R.simd_vf(fn), fn):
        with aj.Core("ascend950") as core:
            dst = core.local_tensor("half", 128)
            try:
                out.append(run(dst, *args))
            except AscendJitError as e:
                out.append((type(e), str(e)))
    return out


def _vf_sizeof_char(dst):
    return aj.sizeof("char")


@pytest.mark.skipif(NO_JIT, reason="with the JIT disabled every VF runs plain")
@pytest.mark.ascend_sanitize(checks="", reason="compiled VF against its plain run: a sanitizing core runs VFs plain")
def test_vf_sizeof_of_plain_char_refuses_as_plain_python_does():
    """`aj.sizeof("char")` in a compiled VF must refuse with plain Python's class and message: resolve's refusal of
    plain char says "C++ leaves plain char's signedness to the compiler: write int8_t ...", but the compiled literal's
    refusal (reg.py _raiser) rebuilds the detail from _d28_detail, which knows only SPEC-2 D28's types, so the compiled
    message lacks it (RegTensor("char") in a VF has the same gap)."""
    compiled, plain = _run_both(_vf_sizeof_char)
    assert plain[0] is UnsupportedDTypeError and "signedness" in plain[1]
    assert compiled == plain


def _vf_sizeof_double(dst):
    return aj.sizeof("double")


def _vf_sizeof_spellings(dst, n, T, C):
    t = T if n > 0 else C   # a name of either kind: read at run time
    return (aj.sizeof(t), aj.sizeof(T), aj.sizeof(C), aj.sizeof("int"), aj.sizeof("unsigned short"),
            aj.sizeof("long long"), aj.sizeof("HALF"), aj.sizeof("bf16"), aj.VECTOR_REG_WIDTH // aj.sizeof(T))


@pytest.mark.skipif(NO_JIT, reason="with the JIT disabled every VF runs plain")
@pytest.mark.ascend_sanitize(checks="", reason="compiled VF against its plain run: a sanitizing core runs VFs plain")
def test_vf_sizeof_compiles_for_names_of_two_kinds_and_literals_and_refuses_d28_as_plain():
    """Compiled (no UncompiledVFWarning) sizeof of a VF's names of two classes, of a unified name and of C++
    spellings equals the plain run's; a D28 literal refuses with the plain run's class and message."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", aj.UncompiledVFWarning)
        for n, t, c in ((1, "half", "int64"), (-1, "half", "int64"), (-1, "bfloat16", "uint8")):
            compiled, plain = _run_both(_vf_sizeof_spellings, n, t, c)
            assert compiled == plain
        compiled, plain = _run_both(_vf_sizeof_double)
    assert plain[0] is UnsupportedDTypeError and compiled == plain


# --- sanitizer ------------------------------------------------------------------------------------------------------
def test_pairs_fast_path_equals_the_grouped_path():
    """sanitizer._pairs: the one-earlier-instruction shortcut gives the np.unique grouping's (log index, first
    address, byte count) list, in first-byte order, for one group, several groups and none."""
    from ascend_jit.sanitizer import _pairs

    def grouped(addrs, earlier, conflict):
        addrs, earlier = addrs[conflict], earlier[conflict]
        indices, first, counts = np.unique(earlier, return_index=True, return_counts=True)
        return [(int(indices[j]), int(addrs[first[j]]), int(counts[j])) for j in np.argsort(first, kind="stable")]
    rng = np.random.default_rng(41)
    for _ in range(200):
        n = int(rng.integers(0, 40))
        addrs = np.sort(rng.choice(4096, n, replace=False)).astype(np.int64)
        earlier = rng.integers(0, int(rng.integers(1, 4)), n).astype(np.int32)
        conflict = rng.random(n) < 0.7
        assert _pairs(addrs, earlier, conflict) == grouped(addrs, earlier, conflict)


def test_user_location_classifies_a_relative_frame_file_against_the_current_directory(tmp_path, monkeypatch):
    """A relative co_filename (exec'd code) is classified per call, as before the cache: inside the package's
    directory it is the emulator's own frame (skipped), elsewhere the user's line."""
    from ascend_jit import sanitizer
    namespace = {"user_location": sanitizer.user_location}
    exec(compile("def where():\n    return user_location()\n", "audit41_rel.py", "exec"), namespace)
    monkeypatch.chdir(tmp_path)
    assert namespace["where"]() == "audit41_rel.py:2"
    monkeypatch.chdir(os.path.dirname(sanitizer.__file__))
    assert namespace["where"]() != "audit41_rel.py:2"
    monkeypatch.chdir(tmp_path)
    assert namespace["where"]() == "audit41_rel.py:2"


@pytest.mark.parametrize("stem, flag, mode, count, digest", [
    # session 54: 72, was 96: the 24 init reports of the whole-vector min / max loads are gone (their only used lane,
    # 0, is what DIST_FIRST_ELEMENT stores; the lanes past the TBufs never leave the registers); session 66: 32, the
    # same loads' 24 memory reports and the 16 RAW reports on their bytes past the TBufs are gone too (the memory
    # check follows those lanes, which no store uses, and does not race-check those bytes); the rest unchanged
    ("foreach_non_finite_check_and_unscale", "ORIGINAL_MIN_MAX_LOADS", "strict,report", 32, "0edd28a11e63dca7"),
    ("triu", "ORIGINAL_SETVALUE_RACE", "report", 32, "5f6dab6e12c47ab2"),
    ("lp_norm_v3", "ORIGINAL_SYNC", "strict,report", 20153, "e7c7e5698f5f6de4"),
    ("reduce_min_v2", "ORIGINAL_SYNC", "device-sync,report", 30024, "67151a6375f1a283")])
def test_sanitizer_reports_of_racy_originals_are_those_of_the_compiled_record_code(monkeypatch, stem, flag, mode,
                                                                                   count, digest):
    """The numpy record stores and _pairs' one-pair shortcut change no report: each original's reports (check, kind,
    the instruction and the earlier one by api, pipe and log index, operand, space, address, byte count, block, in
    order) hash to what f413a9b's compiled record_read / record_write and np.unique grouping gave (memory, init,
    RAW / WAR / WAW races of vector, scalar-unit and copy instructions; 819 gallery runs compared in the audit), less,
    since session 54, the init reports the lane tracking drops (ForeachNonFiniteCheckAndUnscale's min / max loads)."""
    import hashlib
    import json

    from ascend_jit.kernels import gallery_dir
    [k, *_] = load_file(gallery_dir() / f"{stem}.py")
    monkeypatch.setattr(sys.modules[k.run.__module__], flag, True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with aj.sanitize_session(mode) as session:
            k.run(k.devices[0], k.make_inputs(k.default_size, 0))

    def key(r):
        e = r.earlier
        return (r.check, r.kind, r.instruction.api, r.instruction.pipe, r.instruction.seq,
                None if e is None else (e.api, e.pipe, e.seq), r.operand, r.space, int(r.address), int(r.nbytes),
                r.block)
    reports = [key(r) for r in session.reports]
    assert len(reports) == count
    assert hashlib.sha256(json.dumps(reports).encode()).hexdigest()[:16] == digest
