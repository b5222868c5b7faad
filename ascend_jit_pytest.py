"""ascend_jit's pytest plugin (entry point `ascend_jit_golden`): a `golden` fixture, `--update-goldens` and
`--ascend-sanitize`.

    def test_my_kernel(golden):
        out = run_my_kernel()
        golden.check("my_kernel_out", out)       # compares bit for bit, or records with --update-goldens

Goldens live in `goldens/` beside the test file unless the ini option `golden_dir` names another folder.

`pytest --ascend-sanitize` runs every test inside an `aj.sanitize_session`: every Core a test makes (those of
`aj.launch` included) sanitizes, and the first report fails the test with a SanitizerError naming both instructions.
`--ascend-sanitize-checks=race,blocks` selects checks (default: all five), with `strict` and `device-sync` as in
ASCEND_JIT_SANITIZE. A test that does on purpose what one check reports says so, and keeps the other checks (and the
option's strict / device-sync):

    @pytest.mark.ascend_sanitize(checks="race,init,blocks,sync", reason="exercises the bounds=\"ub\" escape hatch")

`checks=""` keeps none: the test runs without a sanitizer (tests of `aj.launch(parallel="processes")`, which refuses
one, since its reports and the cross-block GM shadow would live in the worker processes). An unknown check name is a
usage error, not a check silently dropped.

Tests that fill `core.ub` with numpy (bypassing the tensor API) call `core.ub_written_by_host(...)` after it.

A top-level module, not a module of the ascend_jit package, and it imports the package only where a test uses it:
pytest loads every installed plugin into every session, and importing ascend_jit (numba and every kernel module)
costs about a second of each pytest process's start (issue 20), which a session that uses neither a golden nor
--ascend-sanitize should not pay.
"""
from pathlib import Path

import pytest


def pytest_addoption(parser):
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="ascend_jit: record golden files instead of checking them")
    parser.addoption("--ascend-sanitize", action="store_true", default=False,
                     help="ascend_jit: sanitize every core the tests make; a report fails the test")
    parser.addoption("--ascend-sanitize-checks", default=None, metavar="CHECKS",
                     help="ascend_jit: the checks of --ascend-sanitize (comma-separated: race, init, memory, blocks, "
                          "sync; default all), optionally with strict and device-sync")
    parser.addini("golden_dir", "ascend_jit: folder of golden files (default: goldens/ beside each test file)",
                  default="")


_SANITIZE_CONFIG = pytest.StashKey()


def pytest_configure(config):
    config.addinivalue_line("markers", "ascend_sanitize(checks, reason): under --ascend-sanitize, the checks this test "
                                       "runs with (it does on purpose what the others report; the reason says what)")
    if config.getoption("--ascend-sanitize"):
        config.stash[_SANITIZE_CONFIG] = _sanitize_config(config)   # bad words: a usage error before any test


class Golden:
    def __init__(self, directory, update):
        self.directory, self.update = Path(directory), update

    def check(self, name, array, device=None, nan_equal=False, **metadata):
        from ascend_jit import testing
        if self.update:
            testing.record_golden(name, array, self.directory, device=device, metadata=metadata)
        else:
            testing.check_golden(name, array, self.directory, nan_equal=nan_equal)


@pytest.fixture
def golden(request):
    configured = request.config.getini("golden_dir")
    directory = Path(request.config.rootpath, configured) if configured else Path(request.path).parent / "goldens"
    return Golden(directory, request.config.getoption("--update-goldens"))


@pytest.fixture(autouse=True)
def _ascend_sanitize(request):
    """With --ascend-sanitize, the test runs inside a raising sanitize_session."""
    if not request.config.getoption("--ascend-sanitize"):
        yield
        return
    import dataclasses

    from ascend_jit.sanitizer import ALL_CHECKS, sanitize_session
    sanitize = request.config.stash[_SANITIZE_CONFIG]
    marker = request.node.get_closest_marker("ascend_sanitize")
    if marker is not None:
        if not marker.kwargs.get("reason"):
            raise pytest.UsageError(f"{request.node.nodeid}: @pytest.mark.ascend_sanitize needs a reason=")
        chosen = {c.strip() for c in marker.kwargs["checks"].split(",") if c.strip()}
        unknown = sorted(chosen - set(ALL_CHECKS))
        if unknown:
            raise pytest.UsageError(f"{request.node.nodeid}: @pytest.mark.ascend_sanitize names unknown checks "
                                    f"{unknown} (checks: {', '.join(ALL_CHECKS)})")
        # the option's checks this test keeps, with the option's strict / device-sync (they had been dropped, and an
        # option naming only those left no check here: the test ran unsanitized)
        checks = tuple(c for c in sanitize.checks if c in chosen)
        sanitize = dataclasses.replace(sanitize, checks=checks) if checks else None
    with sanitize_session(sanitize or False):
        yield


def _sanitize_config(pytest_config):
    """--ascend-sanitize-checks read as ASCEND_JIT_SANITIZE's words (check names, strict, device-sync), raising: the
    plugin fails a test on its first report. Bad words are a usage error."""
    from ascend_jit.errors import ParameterError
    from ascend_jit.sanitizer import resolve_config
    words = pytest_config.getoption("--ascend-sanitize-checks")
    try:
        config = resolve_config(words or True, "pytest", "--ascend-sanitize-checks")
    except ParameterError as refusal:
        raise pytest.UsageError(str(refusal)) from None
    if config is None or config.mode == "report":
        raise pytest.UsageError(f"--ascend-sanitize-checks={words!r} " + (
            "turns the sanitizer off: drop --ascend-sanitize instead" if config is None else
            "asks for report mode: under --ascend-sanitize a report fails its test (mode raise), so 'report' "
            "would hide them; use aj.sanitize_session('report') in the test to collect them"))
    return config
