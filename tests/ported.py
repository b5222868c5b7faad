"""What the gallery-port tests share: a registered kernel and the module that holds its tiling, flags and helpers."""
import inspect

import pytest

from ascend_jit.kernels import registry


def one_device_each(cases, devices):
    """pytest parameters (*case, device) for every case on every device: case i runs on devices[i % len(devices)]
    in the default suite and on the other devices with -m slow, so the default run still takes every case and every
    device once (docs/decisions.md "The default suite's budget")."""
    params = []
    for i, case in enumerate(cases):
        case = case if isinstance(case, tuple) else (case,)
        params += [pytest.param(*case, device, marks=[] if k == i % len(devices) else [pytest.mark.slow])
                   for k, device in enumerate(devices)]
    return params


def spec_and_module(name):
    """(the KernelSpec registered as `name`, the module of its run function)."""
    k = registry()[name]
    return k, inspect.getmodule(k.run)


def module(name):
    return spec_and_module(name)[1]


def sanitizer_reports(run, mode="report"):
    """The reports a sanitizer session in `mode` collects while `run()` runs."""
    import ascend_jit as aj
    with aj.sanitize_session(mode) as session:
        run()
    return session.reports


def bits(a):
    """An array's elements as unsigned integers of their width: the bit patterns to compare."""
    import numpy as np
    return np.ascontiguousarray(a).view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])


def same_bits(out, want):
    """Bit for bit, a NaN against a NaN counted equal (the emulator stores its canonical NaN, a model numpy's)."""
    import numpy as np
    o, w = out.astype(np.float64), want.astype(np.float64)
    return bool(np.all((np.isnan(o) & np.isnan(w)) | (bits(out) == bits(want))))
