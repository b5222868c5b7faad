"""KernelSpec: the shape every example kernel shares, so the CLI, the tests and the golden recorder treat them alike.

A kernel declares its expected result: BIT-EXACT kernels (tolerance None) are checked bit for bit against an
expectation composed from the package's reference model or an exact host replay; kernels that use MODELLED
instructions state a relative tolerance against a float64 formula (and, where the result is a difference of larger
values, an absolute floor) and say why in their docstring (issue 18)."""
import math
import numbers
import time
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

import numpy as np

from ..devices import SUPPORTED_NAMES, get_device
from ..dtypes import BFLOAT16, from_np_dtype
from ..errors import ParameterError, UnsupportedDeviceError
from ..testing import mismatch_report


class Speed(NamedTuple):
    """Elements processed per second by one timed run: by the wall clock, and by the process's CPU time (which a
    machine shared with other jobs inflates less)."""
    wall: float
    cpu: float


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
    tolerance: float = None    # None: bit for bit; else max |out - want| <= tolerance * |want| + the type's tiniest
    source: str = ""           # the public original: repository@commit path
    # an absolute floor added to the relative bound (with tolerance): for outputs that are differences of larger
    # values (a normalised row's elements near its mean, a gradient near zero), whose error scales with the inputs,
    # not with the output itself; 0 keeps the bound relative
    abs_tolerance: float = 0.0

    def __post_init__(self):
        for name in ("tolerance", "abs_tolerance"):
            value = getattr(self, name)
            number = isinstance(value, numbers.Real) and not isinstance(value, bool)
            if value is not None and not (number and math.isfinite(value) and value >= 0):
                raise ParameterError(f"KernelSpec {self.name}", name, value, legal="a finite number >= 0"
                                     + (" or None (bit for bit)" if name == "tolerance" else ""))
        if self.abs_tolerance and self.tolerance is None:
            raise ParameterError(f"KernelSpec {self.name}", "abs_tolerance", self.abs_tolerance,
                                 legal="0 for a BIT-EXACT kernel (tolerance None); give tolerance too (0.0 for an "
                                       "absolute bound alone)")

    @property
    def fidelity(self):
        return "BIT-EXACT" if self.tolerance is None else "MODELLED"

    def supports(self, device):
        return get_device(device).name in self.devices

    def check_call(self, device, size=None):
        """(device name, size) of a run, refused before any work when the kernel does not list the device or the
        size breaks its rule (the CLI's sanitized run and execute both start here)."""
        spec = get_device(device)
        if spec.name not in self.devices:
            raise UnsupportedDeviceError(f"run {self.name}", "device", spec.name, legal=", ".join(self.devices))
        size = self.default_size if size is None else size
        if not self.size_ok(size):
            raise ParameterError(f"run {self.name}", "size", size, legal=self.size_rule, device=spec.name)
        return spec.name, size

    def execute(self, device, size=None, seed=0):
        """Run and check once: (ok, report lines, outputs, Speed: elements processed per second)."""
        name, size = self.check_call(device, size)
        spec = get_device(name)
        inputs = self.make_inputs(size, seed)
        self.run(spec.name, inputs)  # warm-up: compile or load the cached kernels outside the timing
        start, start_cpu = time.perf_counter(), time.process_time()
        outputs = self.run(spec.name, inputs)
        elapsed, elapsed_cpu = time.perf_counter() - start, time.process_time() - start_cpu
        ok, lines = self.check_outputs(spec.name, inputs, outputs)
        return ok, lines, outputs, Speed(size / elapsed if elapsed > 0 else float("inf"),
                                         size / elapsed_cpu if elapsed_cpu > 0 else float("inf"))

    def check_outputs(self, device, inputs, outputs):
        """(ok, report lines) of outputs against `expected`: bit for bit (BIT-EXACT) or within the tolerance."""
        want = self.expected(get_device(device).name, inputs)
        lines, ok = [], True
        for key, value in want.items():
            if self.tolerance is None:
                report = mismatch_report(outputs[key], value) if outputs[key].dtype == value.dtype else "dtype differs"
                ok &= not report
                lines.append(f"{key}: " + ("bit-exact" if not report else "MISMATCH\n" + report))
            else:
                good, line = within_tolerance(outputs[key], value, self.tolerance, self.abs_tolerance)
                ok &= good
                lines.append(f"{key}: {line}")
        return ok, lines


def within_tolerance(actual, expected, rtol, atol=0.0):
    """(ok, description) for a MODELLED output against a float64 formula: |a - e| <= rtol * |e| + max(atol, tiny),
    where tiny is the output type's smallest subnormal (a result that underflows to zero is within one ulp of it)
    and atol an absolute floor (KernelSpec.abs_tolerance; ports found relative bounds alone too tight for outputs
    near zero that are differences of larger values); an infinity matches the same infinity and a NaN a NaN (nn38:
    a kernel whose formula gives them had to keep them out of its inputs)."""
    a = np.asarray(actual)
    e = np.asarray(expected, dtype=np.float64)
    info = _float_info(a.dtype)
    tiny = max(float(atol), float(info.smallest_subnormal) if info else 0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        af = a.astype(np.float64)
        err = np.abs(af - e)
        # an infinite expectation's bound is infinite too: only the same infinity matches it
        bad = ~((np.isfinite(e) & (err <= rtol * np.abs(e) + tiny)) | (af == e) | (np.isnan(af) & np.isnan(e)))
        normal = np.isfinite(e) & (np.abs(e) >= (float(info.tiny) if info else np.finfo(np.float64).tiny))
        rel = float(np.max(err[normal] / np.abs(e[normal]))) if normal.any() else 0.0
    floor = f" + {atol:.3g} absolute" if atol else ""
    if bad.any():
        i = int(np.flatnonzero(bad.reshape(-1))[0])
        return False, (f"OUT OF TOLERANCE: {int(bad.sum())} of {a.size} elements beyond {rtol:.3g} relative"
                       f"{floor}; element {i}: {float(af.reshape(-1)[i])!r} against {float(e.reshape(-1)[i])!r}")
    return True, (f"within {rtol:.3g} relative{floor} of the float64 formula (max relative error {rel:.3g} over "
                  f"normal values)")


def _float_info(dtype):
    """finfo of a float output type (bfloat16 through ml_dtypes, which numpy's finfo refuses), else None."""
    if from_np_dtype(np.dtype(dtype)) is BFLOAT16:
        import ml_dtypes   # loaded already: dtype is its bfloat16
        return ml_dtypes.finfo(dtype)
    return np.finfo(dtype) if dtype.kind == "f" else None


def ones_or_random(size, seed, dtype=np.float16, scale=1.0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(size) * scale).astype(dtype)


class CoreSplit(NamedTuple):
    """One kind of core in the big/small-core host tiling of many CANN element-wise operators: its element count,
    tiles and last tile's elements."""
    data_num: int
    tile_num: int
    tail_data_num: int


def big_small_core_tiling(total, elem_size, ub_part_data_num, core_num, block=32):
    """The host tiling that ClipByValueV2, Log, GeluGrad (cann-ops) and their kin share: the input rounded up to
    32-byte blocks is spread over `core_num` cores block by block, the first `tail_block_num` ("big") cores one
    block more; each core walks its data in tiles of `ub_part_data_num` elements, the last tile holding the rest.
    Returns (small, big, tail_block_num) with `big` all zeros when every core is small."""
    blocks = -(-total * elem_size // block)
    every, tail_block_num = divmod(blocks, core_num)
    ub_part_blocks = ub_part_data_num * elem_size // block

    def split(core_blocks):
        data = core_blocks * block // elem_size
        tiles = core_blocks // ub_part_blocks + (core_blocks % ub_part_blocks != 0)
        return CoreSplit(data, tiles, data - ub_part_data_num * (tiles - 1) or ub_part_data_num)

    return split(every), split(every + 1) if tail_block_num else CoreSplit(0, 0, 0), tail_block_num
