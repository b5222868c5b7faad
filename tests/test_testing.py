"""ascend_jit.testing: bit equality reports, ulp_diff, golden files, order-independent inputs, the plugin."""
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit import testing as T
from nested_pytest import LEAN_SESSION


def test_ulp_diff():
    h = np.array([1.0, 1.0, -0.0, 65504, np.inf, np.nan], np.float16)
    g = np.array([1.0, np.nextafter(np.float16(1), np.float16(2)), 0.0, np.inf, np.inf, np.nan], np.float16)
    assert T.ulp_diff(h, g).tolist() == [0, 1, 1, 1, 0, 0]
    assert T.ulp_diff(np.float32([1]), np.float32([np.nan]))[0] == np.iinfo(np.int64).max
    b = np.array([1, 2], ml_dtypes.bfloat16)
    assert T.ulp_diff(b, b).tolist() == [0, 0]
    with pytest.raises(TypeError):
        T.ulp_diff(np.int16([1]), np.int16([1]))
    with pytest.raises(ValueError, match="one shape"):   # not broadcast (audit 44g)
        T.ulp_diff(np.float16([1, 2, 3]), np.float16([1]))


def test_reports_of_types_without_ulps():
    """float64 (no emulator dtype) differs as an AssertionError like any other dtype, not resolve's TypeError; the
    integers also by their signed difference (audit 44g)."""
    with pytest.raises(AssertionError, match=r"element 1 differs: actual 2\.0"):
        T.assert_bit_equal(np.float64([1, 2]), np.float64([1, 3]))
    with pytest.raises(AssertionError, match=r"element 0 differs by -3: actual 4 \(0x0004\), expected 7"):
        T.assert_bit_equal(np.int16([4]), np.int16([7]))


def test_assert_bit_equal_reports():
    a = np.zeros(100, np.float16)
    b = a.copy()
    b[[3, 50]] = [np.float16(2.0 ** -24), 1.0]
    with pytest.raises(AssertionError) as info:
        T.assert_bit_equal(b, a)
    msg = str(info.value)
    assert "2 of 100 elements differ" in msg and "element 3 moved by 1 ulp" in msg and "0x0001" in msg
    assert "max ulp difference: 15360" in msg
    with pytest.raises(AssertionError, match="dtype"):
        T.assert_bit_equal(a, a.astype(np.float32))
    with pytest.raises(AssertionError, match="shape"):
        T.assert_bit_equal(a, a[:5])
    with pytest.raises(AssertionError):
        T.assert_bit_equal(np.float16([-0.0]), np.float16([0.0]))
    n1 = np.array([0x7E00, 0x7E01], np.uint16).view(np.float16)
    n2 = np.array([0x7E01, 0xFE00], np.uint16).view(np.float16)
    with pytest.raises(AssertionError):
        T.assert_bit_equal(n1, n2)
    T.assert_bit_equal(n1, n2, nan_equal=True)


def test_golden_round_trip_and_deliberate_change(tmp_path):
    x = np.linspace(0, 1, 50).astype(ml_dtypes.bfloat16)
    path = T.record_golden("bf", x, tmp_path, device="ascend950")
    loaded, meta = T.load_golden("bf", tmp_path)
    assert path.suffix == ".npz" and meta["dtype"] == "bfloat16" and meta["device"] == "ascend950"
    assert "D1" in meta["spec_decisions"] and meta["ascend_jit"] == aj.__version__
    T.check_golden("bf", x, tmp_path)
    changed = x.copy()
    changed[7] = ml_dtypes.bfloat16(float(x[7]) + 2 ** -7)
    with pytest.raises(AssertionError) as info:
        T.check_golden("bf", changed, tmp_path)
    assert "golden 'bf'" in str(info.value) and "element 7 moved by" in str(info.value)
    with pytest.raises(AssertionError, match="no golden"):
        T.check_golden("missing", x, tmp_path)


def test_order_independent_inputs_same_bits_in_every_order():
    from ascend_jit.jit.orders import pairwise_sum, sequential_sum, wide_sum
    for n, dtype in ((8320, "half"), (100, "half"), (5000, "float")):
        x = T.order_independent_inputs(n, dtype, seed=3)
        assert x.dtype == aj.dtypes.resolve(dtype).np_dtype
        exact = sum(float(v) for v in x)
        results = set()
        for dev in aj.SUPPORTED_NAMES:
            if dtype not in aj.get_device(dev).reduce_sum_dtypes:
                continue
            for form in ("count", "highdim"):
                core = aj.Core(dev)
                L = 256 // x.dtype.itemsize
                pad = -(-n // L) * L
                src = core.local_tensor(dtype, pad)
                dst = core.local_tensor(dtype, 16)
                tmp = core.local_tensor(dtype, 256)
                src[:] = np.concatenate([x, np.zeros(pad - n, x.dtype)])
                if form == "count":
                    aj.ReduceSum(dst, src, tmp, n)
                else:
                    aj.ReduceSum(dst, src, tmp, L, pad // L, 8)
                results.add(dst.numpy()[:1].tobytes())
        vals = x.astype(np.float32)
        kind = aj.dtypes.resolve(dtype).kind
        for fn in (sequential_sum, pairwise_sum, wide_sum):
            results.add(np.array(fn(vals, kind, False), x.dtype).tobytes())
        assert len(results) == 1, (n, dtype)
        assert np.frombuffer(results.pop(), x.dtype)[0] == exact


def test_pytest_plugin_golden_fixture(tmp_path):
    test_file = tmp_path / "test_user.py"
    test_file.write_text(textwrap.dedent("""
        import numpy as np
        import ascend_jit as aj

        def test_my_reduce(golden):
            core = aj.Core("atlas-a2")
            x, y, tmp = core.local_tensor("half", 8320), core.local_tensor("half", 16), core.local_tensor("half", 128)
            x[:] = aj.testing.order_independent_inputs(8320, "half", seed=1)
            aj.ReduceSum(y, x, tmp, 8320)
            golden.check("reduce_sum_8320", y.numpy()[:1])
    """))
    run = [sys.executable, "-m", "pytest", "-q", *LEAN_SESSION, str(test_file)]
    first = subprocess.run(run, capture_output=True, text=True, cwd=tmp_path)
    assert first.returncode == 1 and "no golden" in first.stdout
    subprocess.run(run + ["--update-goldens"], check=True, capture_output=True, cwd=tmp_path)
    assert (tmp_path / "goldens" / "reduce_sum_8320.npz").exists()
    again = subprocess.run(run, capture_output=True, text=True, cwd=tmp_path)
    assert again.returncode == 0, again.stdout


def test_the_plugin_imports_the_emulator_only_for_a_test_that_uses_it(tmp_path):
    """pytest loads the installed plugin into every session: one whose tests use neither the golden fixture nor
    --ascend-sanitize (its options given) imports neither ascend_jit nor numba (issue 20: about a second of every
    pytest process's start); the fixture and the option import what they need when a test uses them."""
    (tmp_path / "conftest.py").write_text(textwrap.dedent("""
        import sys
        def pytest_sessionfinish(session):
            with open("loaded.txt", "w") as out:
                out.write(" ".join(str(name in sys.modules) for name in ("ascend_jit", "numba")))
    """))
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    assert 1 + 1 == 2\n")
    (tmp_path / "test_golden.py").write_text(textwrap.dedent("""
        import numpy as np

        def test_golden(golden):
            golden.check("three", np.arange(3, dtype=np.float32))
    """))
    run = [sys.executable, "-m", "pytest", "-q", *LEAN_SESSION]
    for args, loaded in ((["test_plain.py", "--ascend-sanitize-checks=race"], "False False"),
                         (["test_plain.py", "--ascend-sanitize"], "True True"),
                         (["test_golden.py", "--update-goldens"], "True True"),
                         (["test_golden.py"], "True True")):
        done = subprocess.run(run + args, capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, (args, done.stdout + done.stderr)
        assert (tmp_path / "loaded.txt").read_text() == loaded, args
    assert (tmp_path / "goldens" / "three.npz").exists()


def test_a_golden_file_has_the_mode_of_any_new_file(tmp_path):
    """A golden is written beside its name and renamed onto it (audit 44g); the file still gets the mode the umask
    gives any new file (a mkstemp temporary would have been 0600, unreadable to the other users of a checkout)."""
    path = T.record_golden("mode", np.arange(3, dtype=np.float16), tmp_path)
    probe = tmp_path / "probe"
    probe.write_bytes(b"")
    assert (path.stat().st_mode & 0o777) == (probe.stat().st_mode & 0o777)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mode.npz", "probe"]   # no temporary left behind
