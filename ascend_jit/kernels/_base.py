"""KernelSpec: the shape every example kernel shares, so the CLI, the tests and the golden recorder treat them alike."""
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..devices import SUPPORTED_NAMES, get_device
from ..errors import ParameterError, UnsupportedDeviceError
from ..testing import mismatch_report


@dataclass(frozen=True)
class KernelSpec:
    name: str
    description: str
    make_inputs: Callable      # (size, seed) -> dict of host arrays
    run: Callable              # (device, inputs) -> dict of host arrays (the kernel's GM outputs)
    expected: Callable         # (device, inputs) -> dict of host arrays, computed without the kernel
    default_size: int
    devices: tuple = field(default=SUPPORTED_NAMES)
    size_rule: str = "any positive size"
    size_ok: Callable = lambda n: n > 0

    def supports(self, device):
        return get_device(device).name in self.devices

    def execute(self, device, size=None, seed=0):
        """Run and check once: (ok, report lines, outputs, elements processed per second)."""
        spec = get_device(device)
        if spec.name not in self.devices:
            raise UnsupportedDeviceError(f"run {self.name}", "device", spec.name, legal=", ".join(self.devices))
        size = self.default_size if size is None else size
        if not self.size_ok(size):
            raise ParameterError(f"run {self.name}", "size", size, legal=self.size_rule, device=spec.name)
        inputs = self.make_inputs(size, seed)
        self.run(spec.name, inputs)  # warm-up: compile or load the cached kernels outside the timing
        start = time.perf_counter()
        outputs = self.run(spec.name, inputs)
        elapsed = time.perf_counter() - start
        want = self.expected(spec.name, inputs)
        lines, ok = [], True
        for key, value in want.items():
            report = mismatch_report(outputs[key], value) if outputs[key].dtype == value.dtype else "dtype differs"
            ok &= not report
            lines.append(f"{key}: " + ("bit-exact" if not report else "MISMATCH\n" + report))
        return ok, lines, outputs, size / elapsed if elapsed > 0 else float("inf")


def ones_or_random(size, seed, dtype=np.float16, scale=1.0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(size) * scale).astype(dtype)
