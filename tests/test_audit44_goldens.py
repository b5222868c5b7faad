"""Audit 44g: the tools that pin kernels' numerical results bit for bit in CI.

Audits, through the public surface only (`aj.testing`, the installed pytest plugin through `pytester`, and the CLI
`ascend-jit golden record|check` through `sys.executable -m ascend_jit.cli`):
- bit equality (`assert_bit_equal`, `mismatch_report`, `ulp_diff`) on every emulator dtype: +0 / -0, NaN payloads,
  the first differing element's index, the count, the ulp distance, 0-d, empty and large arrays;
- golden files (`record_golden`, `check_golden`, `load_golden`): round trips, shape / dtype changes, missing,
  corrupted and foreign goldens, hostile names, concurrent recording, unwritable folders;
- the pytest plugin's `golden` fixture and `--update-goldens`;
- `order_independent_inputs`: its docstring's promise, checked against every summing order the emulator implements;
- the CLI's exit codes and messages.
Tests named test_found_* failed on the code audited (bdd1357) and pass since session 44 fixed the
defects (docs/decisions.md names each).

Contract: /work/shared/DESIGN.md section 1 (user group 3: "CI pipelines that pin numerical results of kernels bit
for bit (golden files) and must report a regression as 'element 4711 moved by 2 ulp', not as a bare assert"),
README.md "Pinning your kernel's numbers in CI", docs/decisions.md (the `ascend-jit golden check` entry of session
17; "`aj.testing` ... keeps Python's AssertionError / TypeError / FileNotFoundError for mismatches, unsupported dtypes
and missing goldens"; the CLI's one-line errors instead of tracebacks) and the docstrings of ascend_jit/testing.py.
Tests named test_found_* fail on the code audited: each quotes the promise it holds the code to.
"""
import json
import math
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit import summing
from ascend_jit import testing as T
from nested_pytest import LEAN_SESSION

pytest_plugins = ("pytester",)

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = {"half": np.dtype(np.float16), "float": np.dtype(np.float32), "bfloat16": BF16}
INTS = {n: np.dtype(n) for n in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
ALL = {**FLOATS, **INTS, "bool": np.dtype(np.bool_)}


def from_bits(bits, dtype):
    dtype = np.dtype(dtype)
    return np.asarray(bits, UINT[dtype.itemsize]).view(dtype)


def next_up(x):
    """The next representable value above each (finite, non-negative) element, by its bits."""
    return from_bits(x.view(UINT[x.dtype.itemsize]) + 1, x.dtype)


def specials(dtype):
    """+0, -0, two NaN payloads of each sign, +-inf, the smallest subnormal, 1 and -1."""
    size = np.dtype(dtype).itemsize * 8
    exp_bits = {16: (5 if dtype == np.float16 else 8), 32: 8}[size]
    man = size - 1 - exp_bits
    sign, inf = 1 << (size - 1), ((1 << exp_bits) - 1) << man
    qnan = inf | (1 << (man - 1))
    one = np.array([1.0], np.float32).astype(dtype).view(UINT[size // 8])[0]
    bits = [0, sign, qnan, qnan | 1, sign | qnan | 3, inf | 1, inf, sign | inf, 1, int(one), sign | int(one)]
    return from_bits(bits, dtype)


def raises_message(fn, *args, **kwargs):
    with pytest.raises(AssertionError) as info:
        fn(*args, **kwargs)
    return str(info.value)


# --- bit equality on every dtype -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(FLOATS))
def test_float_report_index_count_ulp_and_both_values(name):
    dtype = FLOATS[name]
    expected = (np.arange(37) / 8).astype(dtype)
    T.assert_bit_equal(expected.copy(), expected)
    actual = expected.copy()
    actual[23] = next_up(next_up(expected[23:24]))[0]      # 2 ulp up
    actual[30] = next_up(expected[30:31])[0]               # 1 ulp up
    msg = raises_message(T.assert_bit_equal, actual, expected)
    lines = msg.splitlines()
    assert lines[0] == "2 of 37 elements differ in their bits"
    assert lines[1].startswith("  element 23 moved by 2 ulp: actual ") and "expected 2.875 (0x" in lines[1]
    assert lines[2].startswith("  element 30 moved by 1 ulp: ")
    assert lines[-1] == "max ulp difference: 2"
    assert T.ulp_diff(actual, expected).tolist() == [0] * 23 + [2] + [0] * 6 + [1] + [0] * 6


@pytest.mark.parametrize("name", list(INTS) + ["bool"])
def test_integer_and_bool_report_index_count_and_values(name):
    dtype = ALL[name]
    expected = (np.arange(20) % 2).astype(dtype)
    actual = expected.copy()
    actual[11] = 0 if name == "bool" else 5                # expected[11] is 1
    msg = raises_message(T.assert_bit_equal, actual, expected)
    assert msg.splitlines()[0] == "1 of 20 elements differ in their bits"
    assert f"element 11 differs{'' if name == 'bool' else ' by +4'}: actual {0 if name == 'bool' else 5} (0x" in msg
    assert "expected 1 (0x" in msg                                   # integers also by their difference (session 44)
    assert "ulp" not in msg
    with pytest.raises(TypeError):      # decisions.md: TypeError for unsupported dtypes
        T.ulp_diff(actual, expected)


def test_integer_extremes_reported_exactly():
    msg = raises_message(T.assert_bit_equal, np.uint64([2 ** 64 - 1]), np.uint64([0]))
    assert "actual 18446744073709551615 (0xffffffffffffffff), expected 0 (0x0000000000000000)" in msg
    msg = raises_message(T.assert_bit_equal, np.int64([-2 ** 63]), np.int64([2 ** 63 - 1]))
    assert "actual -9223372036854775808" in msg and "expected 9223372036854775807" in msg
    msg = raises_message(T.assert_bit_equal, np.int8([-128]), np.int8([127]))
    assert "actual -128 (0x80), expected 127 (0x7f)" in msg


@pytest.mark.parametrize("name", list(FLOATS))
def test_signed_zero_is_one_ulp_and_nan_payloads_differ(name):
    dtype = FLOATS[name]
    s = specials(dtype)
    pz, nz, nan_a, nan_b = s[0:1], s[1:2], s[2:3], s[3:4]
    assert T.ulp_diff(pz, nz).tolist() == [1]
    msg = raises_message(T.assert_bit_equal, nz, pz)
    assert "element 0 moved by 1 ulp: actual -0.0" in msg and "expected 0.0" in msg
    with pytest.raises(AssertionError):
        T.assert_bit_equal(nan_a, nan_b)
    T.assert_bit_equal(np.concatenate([nan_a, pz]), np.concatenate([nan_b, pz]), nan_equal=True)
    with pytest.raises(AssertionError):     # nan_equal does not make -0 equal +0
        T.assert_bit_equal(np.concatenate([nan_a, nz]), np.concatenate([nan_b, pz]), nan_equal=True)
    # NaN against a number: documented as the int64 maximum
    assert T.ulp_diff(nan_a, s[9:10]).tolist() == [np.iinfo(np.int64).max]
    # the largest finite value and infinity are adjacent
    inf = s[6:7]
    big = from_bits(inf.view(UINT[inf.dtype.itemsize]) - 1, dtype)
    assert T.ulp_diff(big, inf).tolist() == [1]
    T.assert_bit_equal(s.copy(), s)


@pytest.mark.parametrize("name", list(FLOATS))
def test_found_nan_payload_change_reported_as_moved_by_0_ulp(name):
    # ulp_diff's docstring: "0 means identical bits; -0 vs +0 is 1" (yet it returns 0 for any two NaNs);
    # assert_bit_equal: "NaN payloads differ unless nan_equal". A NaN whose payload changed is reported (rightly) as
    # a differing element, but as "moved by 0 ulp" with "max ulp difference: 0": a CI log whose summary line says
    # the regression is nothing (the report should say the NaN payload changed).
    s = specials(FLOATS[name])
    nan_a, nan_b = s[2:3], s[3:4]
    msg = raises_message(T.assert_bit_equal, nan_a, nan_b)
    assert "moved by 0 ulp" not in msg and "max ulp difference: 0" not in msg, msg


def test_multi_dimensional_reports_flat_index_and_count():
    expected = np.zeros((3, 4, 5), np.float32)
    actual = expected.copy()
    actual[2, 1, 3] = np.float32(1.401298464324817e-45)
    actual[0, 0, 1] = -0.0
    msg = raises_message(T.assert_bit_equal, actual, expected)
    assert msg.splitlines()[0] == "2 of 60 elements differ in their bits"
    assert "element 1 moved by 1 ulp" in msg and "element 48 moved by 1 ulp" in msg
    assert msg.index("element 1 ") < msg.index("element 48 ")       # the first differing element comes first
    assert T.bit_mismatches(actual, expected).tolist() == [1, 48]
    # a Fortran-ordered or strided view is compared element by element in C order, like its indices
    T.assert_bit_equal(np.asfortranarray(actual), actual)
    assert T.bit_mismatches(actual[:, ::2], expected[:, ::2]).tolist() == [1]


def test_many_differences_are_counted_and_elided():
    expected = np.zeros(1000, np.float16)
    actual = expected.copy()
    actual[::40] = 1.0
    msg = raises_message(T.assert_bit_equal, actual, expected)
    assert msg.splitlines()[0] == "25 of 1000 elements differ in their bits"
    assert "  ... and 15 more" in msg and msg.count("moved by 15360 ulp") == 10


def test_zero_d_and_empty():
    T.assert_bit_equal(np.float16(1.5), np.array(1.5, np.float16))
    msg = raises_message(T.assert_bit_equal, np.array(-0.0, np.float32), np.array(0.0, np.float32))
    assert "1 of 1 elements differ" in msg and "element 0 moved by 1 ulp" in msg
    for name, dtype in ALL.items():
        T.assert_bit_equal(np.zeros((0, 3), dtype), np.zeros((0, 3), dtype))
        assert T.mismatch_report(np.zeros(0, dtype), np.zeros(0, dtype)) == ""
    with pytest.raises(AssertionError, match="shape differs"):
        T.assert_bit_equal(np.zeros((0, 3), np.float16), np.zeros((3, 0), np.float16))
    with pytest.raises(AssertionError, match="shape differs"):
        T.assert_bit_equal(np.zeros((1,), np.float16), np.float16(0))


def test_dtype_mismatch_is_reported_not_compared_by_bits():
    a = np.zeros(4, np.float16)
    with pytest.raises(AssertionError, match="dtype differs: actual bfloat16, expected float16"):
        T.assert_bit_equal(a.view(BF16), a)
    with pytest.raises(AssertionError, match="dtype differs"):
        T.assert_bit_equal(a.view(np.uint16), a)
    with pytest.raises(AssertionError, match="dtype differs"):
        T.assert_bit_equal(np.zeros(4, np.uint8), np.zeros(4, np.bool_))


@pytest.mark.parametrize("n", [8320, 10 ** 6])
def test_large_arrays_report_design_example_quickly(n):
    rng = np.random.default_rng(1)
    expected = rng.standard_normal(n).astype(np.float16)
    expected[4711] = 1.0
    actual = expected.copy()
    actual[4711] = next_up(next_up(expected[4711:4712]))[0]
    start = time.perf_counter()
    msg = raises_message(T.assert_bit_equal, actual, expected)
    T.assert_bit_equal(expected.copy(), expected)
    assert time.perf_counter() - start < 1.0
    assert f"1 of {n} elements differ" in msg
    assert "element 4711 moved by 2 ulp: actual 1.001953125 (0x3c02), expected 1.0 (0x3c00)" in msg
    everything = -expected                             # every element differs: still quick, still counted
    start = time.perf_counter()
    msg = raises_message(T.assert_bit_equal, everything, expected)
    assert time.perf_counter() - start < 2.0 and msg.startswith(f"{n} of {n} elements differ")


# --- golden files -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(ALL))
@pytest.mark.parametrize("shape", [(1,), (0,), (2, 0, 3), (11,), (2, 3, 4)])
def test_golden_round_trip_every_dtype_and_shape(tmp_path, name, shape):
    dtype = ALL[name]
    size = int(np.prod(shape))
    if name in FLOATS:
        pool = specials(dtype)
    else:
        info = np.iinfo(dtype) if name != "bool" else None
        pool = np.array([0, 1], dtype) if name == "bool" else np.array([info.min, info.max, 0, 1], dtype)
    array = np.resize(pool, size).reshape(shape) if size else np.zeros(shape, dtype)
    T.record_golden(f"rt_{name}", array, tmp_path, device="atlas-a2", metadata={"kernel": "k"})
    loaded, meta = T.load_golden(f"rt_{name}", tmp_path)
    assert loaded.dtype == dtype and loaded.shape == shape
    assert loaded.tobytes() == array.tobytes()
    assert meta["device"] == "atlas-a2" and meta["kernel"] == "k" and meta["ascend_jit"] == aj.__version__
    T.check_golden(f"rt_{name}", array.copy(), tmp_path)
    if size >= 4 and name in FLOATS:  # a NaN payload change is a regression, unless nan_equal
        other = array.copy().reshape(-1)
        other[2] = other[3]           # specials: two quiet NaNs with different payloads
        msg = raises_message(T.check_golden, f"rt_{name}", other.reshape(shape), tmp_path)
        assert f"golden 'rt_{name}' (atlas-a2, {name}, recorded by ascend_jit {aj.__version__})" in msg
        assert "1 of" in msg and "element 2" in msg
        T.check_golden(f"rt_{name}", other.reshape(shape), tmp_path, nan_equal=True)


@pytest.mark.parametrize("name", ["half", "float", "bfloat16", "int32", "uint8", "bool"])
def test_found_zero_d_golden_comes_back_one_d(tmp_path, name):
    # README: `golden.check(name, out)` "compares bit for bit, or records with --update-goldens"; record_golden's
    # docstring: it writes "the raw bits, the dtype name and shape". A scalar result (a reduction's `y.numpy()[0]`,
    # a numpy scalar, or any 0-d array) is recorded with shape [1] (np.ascontiguousarray makes it 1-d), so the run
    # after `pytest --update-goldens` fails on the very value recorded: "shape differs: actual (), expected (1,)".
    value = np.ones(4, ALL[name])[0]                          # what `y.numpy()[0]` gives
    T.record_golden("scalar", value, tmp_path)
    loaded, meta = T.load_golden("scalar", tmp_path)
    assert meta["shape"] == [] and loaded.shape == (), (meta["shape"], loaded.shape)
    T.check_golden("scalar", value, tmp_path)


def test_golden_non_contiguous_and_fortran_inputs_round_trip(tmp_path):
    base = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    view = base[:, ::2, ::-1]
    T.record_golden("view", view, tmp_path)
    T.check_golden("view", view.copy(), tmp_path)
    T.check_golden("view", np.asfortranarray(view), tmp_path)
    loaded, _ = T.load_golden("view", tmp_path)
    assert np.array_equal(loaded, view)


def test_golden_shape_and_dtype_changes_name_the_golden(tmp_path):
    x = np.arange(12, dtype=np.float16)
    T.record_golden("out", x, tmp_path, device="ascend950")
    msg = raises_message(T.check_golden, "out", x.reshape(3, 4), tmp_path)
    assert "golden 'out'" in msg and "shape differs: actual (3, 4), expected (12,)" in msg
    msg = raises_message(T.check_golden, "out", x[:11], tmp_path)
    assert "golden 'out'" in msg and "shape differs" in msg
    msg = raises_message(T.check_golden, "out", x.astype(np.float32), tmp_path)
    assert "golden 'out'" in msg and "dtype differs: actual float32, expected float16" in msg
    msg = raises_message(T.check_golden, "out", x.view(BF16), tmp_path)
    assert "dtype differs: actual bfloat16, expected float16" in msg
    msg = raises_message(T.check_golden, "out", x.tolist(), tmp_path)   # a list: float64, not silently cast
    assert "dtype differs" in msg


def test_golden_missing_says_how_to_record(tmp_path):
    msg = raises_message(T.check_golden, "never_recorded", np.zeros(3, np.float16), tmp_path)
    assert "no golden" in msg and str(tmp_path / "never_recorded.npz") in msg
    assert "--update-goldens" in msg and "record_golden" in msg
    msg = raises_message(T.check_golden, "x", np.zeros(3, np.float16), tmp_path / "no_such_folder")
    assert "no golden" in msg
    with pytest.raises(FileNotFoundError):      # decisions.md: FileNotFoundError for missing goldens
        T.load_golden("never_recorded", tmp_path)


@pytest.mark.parametrize("name", ["../escape", "..", "sub/../../escape", "/abs", "a\\b", ".hidden", "", "a/b"])
def test_golden_names_with_path_parts_refused(tmp_path, name):
    inside = tmp_path / "goldens"
    inside.mkdir()
    x = np.ones(2, np.float16)
    with pytest.raises(ValueError, match="golden name"):
        T.record_golden(name, x, inside)
    with pytest.raises(ValueError, match="golden name"):
        T.check_golden(name, x, inside)
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written == [] and not Path("/abs.npz").exists()


def test_golden_name_ending_in_npz_round_trips(tmp_path):
    x = np.ones(2, np.float16)
    T.record_golden("out.npz", x, tmp_path)
    T.check_golden("out.npz", x, tmp_path)


def corrupt(path, how):
    raw = path.read_bytes()
    data = {"truncated": raw[: len(raw) // 2], "garbage": b"not a golden file", "empty": b"",
            "tail cut": raw[:-10]}[how]
    path.write_bytes(data)


@pytest.mark.parametrize("how", ["truncated", "garbage", "empty", "tail cut"])
def test_found_corrupted_golden_error_names_neither_golden_nor_problem(tmp_path, how):
    # DESIGN.md section 1: CI "must report a regression as 'element 4711 moved by 2 ulp', not as a bare assert";
    # check_golden's own errors name the golden ("golden 'x' (...)", "no golden <path>"). A golden half written (a
    # killed --update-goldens, a concurrent recorder) or damaged by a merge surfaces as numpy's / zipfile's internal
    # error ("File is not a zip file", "No data left in file", or numpy's advice to load the file with
    # allow_pickle=True), which names neither the golden nor that it is damaged.
    x = np.arange(400, dtype=np.float16)
    path = T.record_golden("kernel_out", x, tmp_path)
    corrupt(path, how)
    with pytest.raises(Exception) as info:
        T.check_golden("kernel_out", x, tmp_path)
    text = str(info.value)
    assert "kernel_out" in text, f"{type(info.value).__name__}: {text}"
    assert "pickle" not in text


def rewrite_meta(path, **changes):
    with np.load(path) as z:
        bits, meta = z["bits"], json.loads(z["meta"].tobytes().decode())
    meta.update(changes)
    np.savez(path, bits=bits, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8))


@pytest.mark.parametrize("broken", ["no dtype", "unknown dtype", "not json", "bits short", "no bits"])
def test_found_damaged_golden_contents_error_names_golden(tmp_path, broken):
    # The same DESIGN.md goal: a golden whose zip is intact but whose contents are not a golden (hand-edited, or
    # written by another tool) is a KeyError / JSONDecodeError / numpy reshape ValueError naming no golden.
    x = np.arange(8, dtype=np.float16)
    path = T.record_golden("dmg", x, tmp_path)
    with np.load(path) as z:
        bits, meta = z["bits"], json.loads(z["meta"].tobytes().decode())
    if broken == "no dtype":
        del meta["dtype"]
    elif broken == "unknown dtype":
        meta["dtype"] = "float128"
    elif broken == "bits short":
        bits = bits[:5]
    raw_meta = b"{not json" if broken == "not json" else json.dumps(meta).encode()
    arrays = {"meta": np.frombuffer(raw_meta, np.uint8)}
    if broken != "no bits":
        arrays["bits"] = bits
    np.savez(path, **arrays)
    with pytest.raises(Exception) as info:
        T.check_golden("dmg", x, tmp_path)
    assert "dmg" in str(info.value), f"{type(info.value).__name__}: {info.value}"


def test_found_golden_of_another_format_version_is_accepted_silently(tmp_path):
    # record_golden stores "format": GOLDEN_FORMAT (1) with every golden, so that a reader can tell the layout it
    # reads; DESIGN.md section 1 asks CI to trust a pass. check_golden never looks at it: a golden written by a
    # format-2 writer passes as if it were format 1 (its bits might mean something else), and one whose layout
    # changed fails with numpy's "KeyError: 'bits is not a file in the archive'".
    x = np.arange(8, dtype=np.float16)
    path = T.record_golden("fmt", x, tmp_path)
    rewrite_meta(path, format=T.GOLDEN_FORMAT + 1)
    with pytest.raises(Exception) as info:
        T.check_golden("fmt", x, tmp_path)
    assert "fmt" in str(info.value) and "format" in str(info.value)


def test_found_changed_spec_decisions_not_visible_in_the_report(tmp_path):
    # testing.py: DECISIONS are "SPEC decisions a golden of a reduction depends on (stored with every golden so a
    # changed decision is visible)"; record_golden's docstring lists "the SPEC decisions results depend on" in the
    # metadata. A golden recorded under another decisions list that no longer matches reports device, dtype and
    # version, and not a word about the decisions: the changed decision is stored but never shown.
    x = np.arange(8, dtype=np.float16)
    path = T.record_golden("dec", x, tmp_path, device="atlas-a2")
    rewrite_meta(path, spec_decisions=["D1", "D2"])
    changed = x.copy()
    changed[3] = 3.001953125
    msg = raises_message(T.check_golden, "dec", changed, tmp_path)
    assert "element 3 moved by 1 ulp" in msg
    assert "decision" in msg.lower() or "D26" in msg, msg


def test_found_metadata_keys_override_the_golden_dtype_and_shape(tmp_path):
    # record_golden's docstring: "Write `name.npz` in `directory`: the raw bits, the dtype name and shape, and
    # metadata"; the plugin forwards any keyword of golden.check(name, array, device=None, nan_equal=False,
    # **metadata). A metadata key "dtype" or "shape" (a note of the kernel's input type, say) replaced the stored dtype
    # name or shape, so the golden no longer loaded: check_golden of the very array recorded failed with numpy's
    # "cannot reshape array of size 4 into shape (8,)". Such a key (any of GOLDEN_FIELDS) is now refused when
    # recording, naming it, and nothing is written (docs/decisions.md "Golden files").
    x = np.arange(8, dtype=np.float16)
    for key in T.GOLDEN_FIELDS:
        with pytest.raises(ValueError, match=f"metadata key '{key}' is one of the golden's own fields"):
            T.record_golden(f"meta_{key}", x, tmp_path, metadata={key: "float", "kernel": "k"})
    assert list(tmp_path.iterdir()) == []
    T.record_golden("meta_ok", x, tmp_path, metadata={"input_dtype": "float"})
    T.check_golden("meta_ok", x, tmp_path)


def test_golden_user_metadata_is_kept(tmp_path):
    x = np.arange(8, dtype=np.float16)
    T.record_golden("m", x, tmp_path, device="910B", metadata={"kernel": "softmax", "seed": 3, "layout": "ND"})
    _, meta = T.load_golden("m", tmp_path)
    assert (meta["kernel"], meta["seed"], meta["layout"], meta["device"]) == ("softmax", 3, "ND", "910B")
    assert meta["format"] == T.GOLDEN_FORMAT and meta["spec_decisions"] == list(T.DECISIONS)
    assert meta["dtype"] == "half" and meta["shape"] == [8]


def test_golden_file_is_plain_npz_without_pickle(tmp_path):
    x = np.array([1.5, np.nan], np.float32)
    path = T.record_golden("plain", x, tmp_path)
    with zipfile.ZipFile(path) as z:
        assert sorted(z.namelist()) == ["bits.npy", "meta.npy"]
    with np.load(path, allow_pickle=False) as z:
        assert z["bits"].dtype == np.uint32


def test_golden_folder_that_is_a_file_or_unwritable(tmp_path):
    blocker = tmp_path / "goldens"
    blocker.write_text("a file where the folder should be")
    with pytest.raises(OSError) as info:
        T.record_golden("x", np.ones(2, np.float16), blocker)
    assert "goldens" in str(info.value)
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        probe = folder / "probe"
        try:
            probe.write_text("")
            probe.unlink()
            pytest.skip("running as root: a read-only folder is still writable")
        except PermissionError:
            pass
        with pytest.raises(PermissionError) as info:
            T.record_golden("x", np.ones(2, np.float16), folder)
        assert "ro" in str(info.value) and "x.npz" in str(info.value)
    finally:
        folder.chmod(0o755)


RECORDER = """
import sys, numpy as np
from ascend_jit import testing as T
n, rounds = int(sys.argv[2]), int(sys.argv[3])
x = np.arange(n, dtype=np.float32)
for _ in range(rounds):
    T.record_golden("shared", x, sys.argv[1])
"""


@pytest.mark.child_processes(seconds=6)
def test_found_check_while_another_process_records_sees_a_half_written_golden(tmp_path):
    # Two processes of one CI run (pytest-xdist workers, two jobs on one checkout) recording and checking one golden:
    # record_golden writes the file in place (np.savez straight to name.npz, no temporary file and rename), so a
    # check that runs meanwhile reads a half-written golden and fails with zipfile's "File is not a zip file" or
    # numpy's "No data left in file", naming no golden (DESIGN.md section 1's goal: a report, not a bare error).
    n = 2_000_000
    x = np.arange(n, dtype=np.float32)
    T.record_golden("shared", x, tmp_path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    writers = [subprocess.Popen([sys.executable, "-c", RECORDER, str(tmp_path), str(size), str(rounds)], env=env)
               for size, rounds in ((n, 12), (n // 2, 12))]
    errors, checks = [], 0
    deadline = time.monotonic() + 8
    while any(w.poll() is None for w in writers) and time.monotonic() < deadline:
        checks += 1
        try:
            T.check_golden("shared", x, tmp_path)
        except AssertionError as err:
            if "shared" not in str(err):
                errors.append(f"AssertionError: {err}")
        except Exception as err:  # noqa: BLE001 - the point: which error a CI user sees
            errors.append(f"{type(err).__name__}: {err}")
    for w in writers:
        w.wait(timeout=30)
    loaded, _ = T.load_golden("shared", tmp_path)      # the two recorders leave one whole golden behind
    assert loaded.shape in ((n,), (n // 2,)) and np.array_equal(loaded, x[:loaded.size])
    assert errors == [], f"{len(errors)} of {checks} checks: {sorted(set(e[:60] for e in errors))}"


# --- the pytest plugin ----------------------------------------------------------------------------------------------
USER_TEST = """
import numpy as np
import ascend_jit as aj

def test_my_reduce(golden):
    core = aj.Core("atlas-a2")
    x, y, tmp = (core.local_tensor("half", n) for n in (8320, 16, 128))
    inputs = aj.testing.order_independent_inputs(8320, "half", seed=1)
    inputs[4711] += SHIFT
    x[:] = inputs
    aj.ReduceSum(y, x, tmp, 8320)
    golden.check("reduce_sum_8320", y.numpy()[:1])
    golden.check("inputs", x.numpy(), device="atlas-a2", kernel="mine")
"""


@pytest.mark.child_processes(seconds=8)
def test_plugin_missing_then_update_then_check_then_regression(pytester):
    pytester.makepyfile(test_user=USER_TEST.replace("SHIFT", "0"))
    first = pytester.runpytest_subprocess(*LEAN_SESSION)
    first.assert_outcomes(failed=1)
    out = first.stdout.str()
    assert "no golden" in out and "reduce_sum_8320.npz" in out and "--update-goldens" in out
    assert not (pytester.path / "goldens").exists()
    pytester.runpytest_subprocess(*LEAN_SESSION, "--update-goldens").assert_outcomes(passed=1)
    folder = pytester.path / "goldens"
    assert sorted(p.name for p in folder.iterdir()) == ["inputs.npz", "reduce_sum_8320.npz"]
    _, meta = T.load_golden("inputs", folder)
    assert meta["device"] == "atlas-a2" and meta["kernel"] == "mine"
    pytester.runpytest_subprocess(*LEAN_SESSION).assert_outcomes(passed=1)
    # a changed input: the sum moves; the report names the golden, the element and the ulps, in decimal and hex
    pytester.makepyfile(test_user=USER_TEST.replace("SHIFT", "np.float16(2.0 ** -3)"))
    result = pytester.runpytest_subprocess(*LEAN_SESSION)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "golden 'reduce_sum_8320' (None, half, recorded by ascend_jit" in out
    assert "1 of 1 elements differ in their bits" in out
    assert "element 0 moved by" in out and "ulp: actual " in out and "(0x" in out


@pytest.mark.child_processes(seconds=8)
def test_plugin_golden_dir_ini_and_nan_equal(pytester):
    pytester.makeini("[pytest]\ngolden_dir = pinned/here\n")
    pytester.makepyfile(test_nan="""
        import numpy as np

        def test_nan(golden):
            bits = np.array([0x7E00 if PAYLOAD == 0 else 0x7E01, 0x8000], np.uint16)
            golden.check("nan_out", bits.view(np.float16), nan_equal=NAN_EQUAL)
    """.replace("PAYLOAD", "0").replace("NAN_EQUAL", "False"))
    pytester.runpytest_subprocess(*LEAN_SESSION, "--update-goldens").assert_outcomes(passed=1)
    assert (pytester.path / "pinned" / "here" / "nan_out.npz").exists()
    assert not (pytester.path / "goldens").exists()
    pytester.runpytest_subprocess(*LEAN_SESSION).assert_outcomes(passed=1)
    src = (pytester.path / "test_nan.py").read_text().replace("== 0 else", "== 1 else")
    (pytester.path / "test_nan.py").write_text(src)
    pytester.runpytest_subprocess(*LEAN_SESSION).assert_outcomes(failed=1)
    (pytester.path / "test_nan.py").write_text(src.replace("nan_equal=False", "nan_equal=True"))
    pytester.runpytest_subprocess(*LEAN_SESSION).assert_outcomes(passed=1)


@pytest.mark.child_processes(seconds=8)
def test_plugin_hostile_name_fails_the_test_in_both_modes(pytester):
    pytester.makepyfile(test_bad="""
        import numpy as np

        def test_bad(golden):
            golden.check("../outside", np.ones(2, np.float16))
    """)
    for extra in ([], ["--update-goldens"]):
        result = pytester.runpytest_subprocess(*LEAN_SESSION, *extra)
        result.assert_outcomes(failed=1)
        assert "golden name '../outside'" in result.stdout.str()
    assert not (pytester.path.parent / "outside.npz").exists()


# --- order_independent_inputs ---------------------------------------------------------------------------------------
SIGNIFICAND = {"half": 11, "float": 24, "bfloat16": 8}


@pytest.mark.parametrize("dtype", list(SIGNIFICAND))
def test_order_independent_inputs_grid_and_budget(dtype):
    """The docstring: n values on a fixed-point grid (multiples of a power of two) whose absolute values sum to at
    most 2**p grid steps, p the significand bits of dtype."""
    for n in (0, 1, 2, 3, 5, 127, 255, 256, 257, 2047, 2048, 2049, 8320, 100_000, 10 ** 6):
        x = T.order_independent_inputs(n, dtype, seed=n)
        assert x.shape == (n,) and x.dtype == FLOATS[dtype]
        assert np.array_equal(x.view(UINT[x.dtype.itemsize]),
                              T.order_independent_inputs(n, dtype, seed=n).view(UINT[x.dtype.itemsize]))
        if n == 0:
            continue
        v = x.astype(np.float64)
        assert np.all(np.isfinite(v))
        nonzero = np.abs(v[v != 0])
        if nonzero.size == 0:
            continue
        grid = 2.0 ** math.frexp(float(nonzero.max()))[1]   # down to the largest power of two dividing all
        while not np.all(np.mod(v, grid) == 0):
            grid /= 2
        assert np.abs(v).sum() / grid <= 2 ** SIGNIFICAND[dtype], (n, np.abs(v).sum() / grid)


@pytest.mark.parametrize("dtype", list(SIGNIFICAND))
def test_order_independent_inputs_same_bits_in_random_orders(dtype):
    """Every order of one-rounding-per-add summation in the dtype itself (ml_dtypes for bfloat16), with +0
    padding, returns the exact sum."""
    rng = np.random.default_rng(5)
    for n in (7, 300, 8320):
        x = T.order_independent_inputs(n, dtype, seed=11)
        exact = math.fsum(float(v) for v in x)
        padded = np.concatenate([x, np.zeros(61, x.dtype)])
        for _ in range(4):
            perm = padded[rng.permutation(padded.size)]
            acc = perm[0]
            for v in perm[1:]:
                acc = x.dtype.type(acc + v)
            assert float(acc) == exact
            # a pairwise tree over the permutation
            level = perm
            while level.size > 1:
                if level.size % 2:
                    level = np.concatenate([level, np.zeros(1, x.dtype)])
                level = (level[0::2] + level[1::2]).astype(x.dtype)
            assert float(level[0]) == exact


def reduce_sum_on_device(device, x, form):
    core = aj.Core(device)
    lanes = 256 // x.dtype.itemsize
    n = x.size
    padded = -(-n // lanes) * lanes
    src = core.local_tensor(x.dtype, padded)
    dst = core.local_tensor(x.dtype, 32)
    tmp = core.local_tensor(x.dtype, max(padded, 256))
    src[:] = np.concatenate([x, np.zeros(padded - n, x.dtype)])
    if form == "count":
        aj.ReduceSum(dst, src, tmp, n)
    else:
        aj.ReduceSum(dst, src, tmp, lanes, padded // lanes, 8)
    return dst.numpy()[:1]


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_order_independent_inputs_reduce_sum_bit_identical_on_every_device(dtype):
    for n in (1, 129, 4097, 8320):
        x = T.order_independent_inputs(n, dtype, seed=n + 1)
        exact = np.array([math.fsum(float(v) for v in x)], x.dtype)
        for device in aj.SUPPORTED_NAMES:
            if dtype not in aj.get_device(device).reduce_sum_dtypes:
                continue
            for form in ("count", "highdim"):
                T.assert_bit_equal(reduce_sum_on_device(device, x, form), exact)


def test_order_independent_inputs_every_registered_summing_order_agrees():
    """README: order_independent_inputs gives "inputs whose sum is the same in every order"; the sweep's registry
    lists every summing API and order the emulator implements (per device, two-stage patterns, the gallery's GM
    kernels and the what-if orders)."""
    ran = set()
    for n, dtype in ((3, "half"), (257, "float"), (8320, "half"), (8320, "float")):
        d = aj.dtypes.resolve(dtype)
        x = T.order_independent_inputs(n, dtype, seed=2)
        exact = math.fsum(float(v) for v in x)
        results = {}
        for name, api in summing.SUMMING_APIS.items():
            devices = aj.SUPPORTED_NAMES if api.per_device else [summing.NO_DEVICE]
            for device in devices:
                if api.supports(device, d, n) is not None:
                    continue
                results[(name, device)] = api.make_runner(device, d, n, False)(x)
                ran.add(name)
        wrong = {k: v for k, v in results.items() if repr(float(v)) != repr(exact)}
        assert len(results) > 10 and wrong == {}, (n, dtype, exact, wrong)
    assert {"reduce-sum-count", "reduce-sum-highdim", "whatif-sequential", "whatif-pairwise"} <= ran


def test_order_independent_inputs_refuses_other_dtypes():
    for dtype in ("int32", "uint8", "int8"):
        with pytest.raises(TypeError, match="order_independent_inputs"):
            T.order_independent_inputs(8, dtype)
    x = T.order_independent_inputs(16, np.float16)
    assert x.dtype == np.float16


# --- the CLI --------------------------------------------------------------------------------------------------------
def cli(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-m", "ascend_jit.cli", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


@pytest.mark.child_processes(seconds=12)
def test_cli_golden_record_check_regression_and_missing(tmp_path):
    folder = tmp_path / "g"
    r = cli("golden", "record", str(folder), "--kernels", "add", "--devices", "a2")
    assert r.returncode == 0 and f"recorded goldens in {folder}" in r.stdout, r.stderr
    names = sorted(p.name for p in folder.iterdir())
    assert names and all(n.startswith("add.atlas-a2.") for n in names)
    r = cli("golden", "check", str(folder), "--kernels", "add", "--devices", "a2")
    assert r.returncode == 0 and f"{len(names)} passed, 0 failed" in r.stdout
    golden = names[0][: -len(".npz")]
    arr, meta = T.load_golden(golden, folder)
    moved = arr.copy().reshape(-1)
    moved[5] = next_up(moved[5:6])[0]            # one ulp away from zero, whatever the sign
    T.record_golden(golden, moved.reshape(arr.shape), folder, device=meta["device"], metadata={"kernel": "add"})
    # a kernel with no golden in a folder that holds some: one failure per output (decisions.md session 17)
    r = cli("golden", "check", str(folder), "--kernels", "add,reduce_sum_count", "--devices", "a2")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"FAIL {golden}\ngolden '{golden}' (atlas-a2," in r.stdout
    assert "element 5 moved by 1 ulp" in r.stdout
    assert "FAIL reduce_sum_count.atlas-a2." in r.stdout and "no golden" in r.stdout
    assert r.stdout.rstrip().endswith("failed") and f"{len(names) - 1} passed" in r.stdout


def test_cli_golden_bad_arguments_are_one_line_exit_2_and_write_nothing(tmp_path, cli_in_process):
    folder = tmp_path / "g"
    cases = [
        (("golden", "frobnicate", str(folder)), "invalid choice"),
        (("golden",), "required"),
        (("golden", "check", str(folder)), "does not exist"),
        (("golden", "record", str(folder), "--kernels", "add,nope"), "'nope'"),
        (("golden", "record", str(folder), "--kernels", "add", "--devices", "a2,nodev"), "'nodev'"),
    ]
    for args, needle in cases:
        r = cli_in_process(*args)
        assert r.returncode == 2 and needle in r.stderr, (args, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
        assert not folder.exists()
    folder.mkdir()
    r = cli_in_process("golden", "check", str(folder))
    assert r.returncode == 2 and "holds no golden files" in r.stderr and "ascend-jit golden record" in r.stderr
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = cli_in_process("golden", "record", str(blocker), "--kernels", "add", "--devices", "a2")
    assert r.returncode == 2 and "Traceback" not in r.stderr and "file" in r.stderr


@pytest.mark.child_processes(seconds=8)
def test_found_cli_check_of_a_corrupted_golden_is_a_traceback(tmp_path):
    # The CLI's contract for mistakes is one line, exit 2, no traceback (cli.py `main` turns OSError / ValueError into
    # "ascend-jit: error: ..."; docs/decisions.md fixes each traceback found, e.g. "is a one-line 'out of host
    # memory' error, exit 2, not numpy's MemoryError traceback", "is the one-line 'kernel file' error (it was an
    # AttributeError traceback)"). A truncated golden makes `ascend-jit golden check` die with zipfile's BadZipFile
    # traceback (exit 1, like a regression), the other goldens unchecked and the damaged one unnamed.
    folder = tmp_path / "g"
    assert cli("golden", "record", str(folder), "--kernels", "add", "--devices", "a2").returncode == 0
    victim = sorted(folder.iterdir())[0]
    victim.write_bytes(victim.read_bytes()[:100])
    r = cli("golden", "check", str(folder), "--kernels", "add", "--devices", "a2")
    assert "Traceback" not in r.stderr, r.stderr[-300:]
    assert victim.stem in r.stdout + r.stderr


@pytest.mark.child_processes(seconds=4)
def test_found_cli_golden_of_a_kernel_on_an_unlisted_device_records_and_checks_nothing(tmp_path):
    # docs/decisions.md (session 17): `golden check DIR` refuses a DIR with no golden ("it had run every kernel ... to
    # print one 'no golden' failure per output") and "`--kernels` names are all checked before any kernel runs or any
    # golden is recorded"; `ascend-jit run` refuses a device a kernel does not list (UnsupportedDeviceError).
    # `golden record DIR --kernels reduce_data_block --devices a2` (a 950-only kernel) prints "recorded goldens in
    # DIR", exit 0, and writes nothing (DIR is not even made); `golden check` of the same pair prints "0 passed, 0
    # failed", exit 0: a CI step that pins nothing and passes.
    folder = tmp_path / "g"
    r = cli("golden", "record", str(folder), "--kernels", "reduce_data_block", "--devices", "a2")
    recorded = sorted(folder.glob("*.npz")) if folder.exists() else []
    assert r.returncode != 0 or recorded, f"exit {r.returncode}, {r.stdout.strip()!r}, nothing recorded"
    T.record_golden("placeholder", np.zeros(2, np.float16), folder)     # a folder that holds goldens
    r = cli("golden", "check", str(folder), "--kernels", "reduce_data_block", "--devices", "a2")
    assert r.returncode != 0, f"exit 0 with {r.stdout.strip()!r}"
