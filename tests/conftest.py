import gc
import subprocess

import numpy as np
import pytest

import ascend_jit as aj

DEVICES = aj.SUPPORTED_NAMES


def pytest_collection_modifyitems(items):
    """Run the tests marked child_processes last, the longest file's first (a stable sort keeps every other test in
    file order).

    Their child processes (the CLI, the fuzzer) call kernels the rest of the suite compiles too. On a cold numba
    cache (every CI run) a child that runs first compiles those kernels itself, and the suite then compiles them
    again; run last, the children load them from the cache the suite has filled (issue 20: about 30 s of a cold run).
    Under pytest-xdist (`--dist loadfile --no-loadscope-reorder`) files are handed out in this order, each to the
    next free worker: longest first, the last ones end together (`seconds`: about how long the file runs).
    """
    def key(item):
        marker = item.get_closest_marker("child_processes")
        return (0, 0) if marker is None else (1, -marker.kwargs.get("seconds", 0))
    items.sort(key=key)
    _a3_twins_to_slow(items)


def _a3_twins_to_slow(items):
    """A test case on the A3 runs with -m slow when its twin on the A2 (the same test id with atlas-a2 for atlas-a3)
    runs by default (a case that `one_device_each` gives the A3 keeps its one default run): the A3 is the A2 under
    another name (tests/test_devices.py checks every fact and device table), so the default run would repeat the A2
    case's code (docs/decisions.md "The default suite's budget"). Marked here, before pytest's own hook deselects by
    marker."""
    ids = {item.nodeid for item in items if item.get_closest_marker("slow") is None}  # twins the default run takes
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        a3 = any(isinstance(value, str) and value == "atlas-a3" for value in params.values())
        if a3 and item.nodeid.replace("atlas-a3", "atlas-a2") in ids:
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before each test: collect, then move every surviving object to the collector's permanent generation
    (gc.freeze), so that the test's own full collections walk only what the test made.

    numba keeps every compiled function's typed IR, so a process that has compiled much of the library holds a heap
    several times a warm one's, and each automatic full collection walks all of it (the figures: docs/decisions.md
    "The collector in the test processes"). Only the test processes do this: the library never touches a user's
    collector. A frozen object is still freed when its last reference goes; one that is in a reference cycle by
    then (a module-scoped fixture's value, such as a Dask cluster) is never collected in this process, a few
    thousand small objects in a run. The tests that need the collector (cores in cycles, tests/test_audit40.py)
    make their cycles inside the test, after the freeze."""
    gc.collect()
    gc.freeze()


def half_bits(values):
    return np.asarray(values, np.float16).view(np.uint16)


def set_sat_mode(core, saturating):
    """Put the core in the requested half overflow mode; False when the device cannot do it (D6)."""
    spec = core.spec
    if spec.half_saturation_switchable:
        core.SetCtrlSpr(48, 48, 0 if saturating else 1)
        return True
    return spec.half_saturating_default == saturating


def set_int_sat(core, saturating):
    if not core.spec.int_saturation_switchable:
        return not saturating
    core.SetCtrlSpr(53, 53, 1 if saturating else 0)
    return True


@pytest.fixture
def cli_in_process(capsys):
    """`ascend-jit ARGS` as main(ARGS) in this process, returning a CompletedProcess: for the CLI's refusals, without
    the second or so a child interpreter takes to start and import the package (the subprocess tests keep the
    installed entry point covered)."""
    from ascend_jit.cli import main

    def run(*args):
        capsys.readouterr()
        try:
            code = main([str(a) for a in args])
        except SystemExit as exit_:   # argparse's own refusals
            code = exit_.code
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out, err)
    return run


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
