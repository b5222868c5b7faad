"""The summing reductions the study and the sweep compare, as one registry: each entry says on which devices,
dtypes and sizes it runs, how to run it on an emulated core, and the number of rounded adds above each element
(the multiplier of its first-order error bound, u * sum_i |x_i| * depth_i).

A new summing API or two-stage pattern plugs in as one `register(SummingApi(...))`; the sweep's grid, table,
summary and plots pick it up without other changes. Entries are per device (emulated on that device's Core) or
device-independent what-if orders (device "-")."""
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

from .devices import get_device
from .dtypes import HALF
from .errors import ParameterError
from .order import PATTERNS, explain_reduce_order

NO_DEVICE = "-"  # the device column of the device-independent what-if orders


@dataclass(frozen=True)
class SummingApi:
    name: str               # the sweep's --apis id
    description: str
    dtypes: Callable        # DeviceSpec (None for what-ifs) -> dtype names it sums
    size_reason: Callable   # (DeviceSpec or None, DType, n) -> None when one call takes n elements, else why not
    make_runner: Callable   # (device name or NO_DEVICE, DType, n, saturate) -> run(x) -> float result
    depths: Callable        # (device name or NO_DEVICE, DType, n) -> int64 rounded adds above each element
    label: Callable         # (device name or NO_DEVICE, DType) -> the study's variant label
    per_device: bool = True
    form: str = None        # the study's "form" column (count / highdim) for ReduceSum forms
    wide: bool = False      # adds in a wider type, one rounding to T at the end (the bound adds u * |exact|)
    largest: Callable = None  # (DeviceSpec, DType) -> the largest n one runner takes, where size_reason has one

    def supports(self, device, d, n):
        """None when (device, dtype, n) is a valid point, else the reason it is not."""
        spec = get_device(device) if self.per_device else None
        if d.name not in self.dtypes(spec):
            # the API's own dtypes (port64d: the half-only gallery kernels read as "float not summed on atlas-a2",
            # whose ReduceSum sums float)
            return f"{self.name} does not sum {d.name}" + (f" on {spec.name}" if spec else "")
        return self.size_reason(spec, d, n)


def at_most(limit):
    """A size_reason from a largest size: limit(DeviceSpec or None, DType) -> elements."""
    def reason(spec, d, n):
        most = limit(spec, d)
        return None if n <= most else f"n={n} > {most}" + (f" on {spec.name}" if spec else "")
    return reason


SUMMING_APIS = {}


def register(api):
    SUMMING_APIS[api.name] = api
    return api


def get_api(name):
    if name not in SUMMING_APIS:
        # port64d: an API registered only in the process that called aj.sweep reached a worker that had never
        # imported its module, and the list of names did not say why it was missing there
        raise ParameterError("sweep", "api", name, legal=", ".join(SUMMING_APIS),
                             detail="not registered in this process; an API registered with "
                                    "ascend_jit.summing.register must be registered in every process that runs "
                                    "the sweep's tasks: import its module at the top of the script (local workers "
                                    "import the script again) or give dask workers --preload with it")
    return SUMMING_APIS[name]


def depth_array(order, n):
    """Per-element rounded-add counts of an explain_reduce_order tree over elements 0..n-1."""
    depths = order.leaf_depths()
    return np.array([depths.get(i, 0) for i in range(n)], np.int64)


def _float_dtypes(spec):
    return tuple(t for t in spec.reduce_sum_dtypes if t in ("half", "float"))


def _runner_operands(device, d, n, form):
    """The element counts of the tensors a _CoreRunner of `form` allocates for n values: src padded to whole repeats,
    then a pattern's two work tensors (8 * repeats rounded up to whole repeats), or ReduceSum's 16-element dst and
    the tmp it needs (GetReduceSumTmpSize, D11 / D18: ceil(n / L) entries or none, not src's size)."""
    from .api.reduce_sum import GetReduceSumTmpSize
    lanes = d.lanes_per_repeat
    repeats = -(-n // lanes)
    if form in PATTERNS:
        work = -(-8 * repeats // lanes) * lanes
        return repeats * lanes, work, work
    tmp = max(GetReduceSumTmpSize(device, d, count=n), GetReduceSumTmpSize(device, d, repeat_time=repeats), 16)
    return repeats * lanes, 16, tmp


def _runner_fits(spec, d, n, form):
    """Whether _CoreRunner's operands for n values of `form` fit one core's UB together (each allocation a whole
    number of 32-byte blocks), and a two-stage pattern's first stage is one call of at most 255 repeats (SPEC-2 1.2)
    (port60h: the study refused 1e5 halves on the 950, whose three-level tree it could not reach)."""
    from .errors import AscendJitError
    if form in PATTERNS and -(-n // d.lanes_per_repeat) > 255:
        return False
    try:
        sizes = _runner_operands(spec.name, d, n, form)
    except AscendJitError:   # a size ReduceSum refuses (D17's L*L repeat results, the count's range)
        return False
    return sum(-(-count * d.size // 32) * 32 for count in sizes) <= spec.ub_bytes


@lru_cache(maxsize=None)
def largest_n(spec, d, form):
    """The largest n a runner of `form` (ReduceSum "count" / "highdim", or a two-stage pattern) takes on `spec`; 0 for
    none (a dtype the device does not sum)."""
    lo, hi = 0, spec.ub_bytes // d.size
    while lo < hi:   # _runner_fits holds from 1 up to the answer
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if _runner_fits(spec, d, mid, form) else (lo, mid - 1)
    return lo


def _largest(form):
    return lambda spec, d: largest_n(spec, d, form)


# --- ReduceSum forms and the reduction family's two-stage patterns -------------------------------------------
def run_pattern(form, src, work, n):
    """A two-stage pattern of explain_reduce_order on the emulator: `src` holds n values and +0 up to whole repeats;
    `work` is two tensors of at least 8*ceil(n/L) elements rounded up to whole repeats. Stage 1 (WholeReduceSum or
    BlockReduceSum over the repeats), then WholeReduceSum level by level (at least once) until one value is left;
    results past the last of a level are set to +0 (what a kernel's mask does). Returns the value."""
    from .api.reductions import BlockReduceSum, WholeReduceSum
    lanes = src.dtype.lanes_per_repeat
    reps = -(-n // lanes)
    cur, other = work
    if PATTERNS[form] == "repeat":
        WholeReduceSum(cur, src, lanes, reps, 1, 1, 8)
        m = reps
    else:
        BlockReduceSum(cur, src, reps, lanes, 1, 1, 8)
        m = 8 * reps
    first = True
    while m > 1 or first:
        first = False
        r = -(-m // lanes)
        cur[m:r * lanes] = 0
        WholeReduceSum(other, cur, lanes, r, 1, 1, 8)
        cur, other, m = other, cur, r
    return cur.numpy()[0]   # a host read of the result (the kernel has ended), not a scalar-pipe GetValue


class _CoreRunner:
    """One emulated core with its operands allocated once; the input is padded with +0 to whole repeats (D2).
    form: "count" / "highdim" (ReduceSum) or a two-stage pattern of explain_reduce_order (PATTERNS)."""

    def __init__(self, device, d, n, saturate, form):
        from .api.reduce_sum import ReduceSum
        from .core import Core
        self.reduce_sum, self.n, self.form, self.lanes = ReduceSum, n, form, d.lanes_per_repeat
        self.padded, first, second = _runner_operands(device, d, n, form)
        core = Core(device)
        if saturate and core.spec.half_saturation_switchable:
            core.SetCtrlSpr(48, 48, 0)
        self.src = core.local_tensor(d, self.padded)
        if form in PATTERNS:
            self.work = (core.local_tensor(d, first), core.local_tensor(d, second))
        else:
            self.dst, self.tmp = core.local_tensor(d, first), core.local_tensor(d, second)

    def __call__(self, x):
        self.src[:self.n] = x
        self.src[self.n:] = 0  # +0 padding lanes behave as masked lanes (D2)
        if self.form in PATTERNS:
            return float(run_pattern(self.form, self.src, self.work, self.n))
        if self.form == "count":
            self.reduce_sum(self.dst, self.src, self.tmp, self.n)
        else:
            self.reduce_sum(self.dst, self.src, self.tmp, self.lanes, self.padded // self.lanes, 8)
        return float(self.dst.numpy()[0])   # a host read of the result, not a scalar-pipe GetValue


@lru_cache(maxsize=64)
def _order_depths(device, form, d, n):
    """Depths of explain_reduce_order's tree: ReduceSum "count" / "highdim" (full-mask repeats) or a pattern."""
    if form == "highdim":
        order = explain_reduce_order(device, "highdim", d.name, mask=d.lanes_per_repeat,
                                     repeat_time=-(-n // d.lanes_per_repeat))
    else:
        order = explain_reduce_order(device, form, d.name, count=n)
    depths = depth_array(order, n)
    depths.flags.writeable = False
    return depths


def _reduce_sum_api(form, name, title):
    algorithm = "reduce_sum_count_algorithm" if form == "count" else "reduce_sum_highdim_algorithm"
    return SummingApi(
        name=name, description=f"ReduceSum {title} form (tmp buffer, src padded with +0 to whole repeats)",
        dtypes=_float_dtypes, size_reason=at_most(_largest(form)), largest=_largest(form),
        make_runner=lambda device, d, n, saturate: _CoreRunner(device, d, n, saturate, form),
        depths=lambda device, d, n: _order_depths(device, form, d, n),
        label=lambda device, d: f"{device} {title} ({getattr(get_device(device), algorithm)})", form=form)


register(_reduce_sum_api("count", "reduce-sum-count", "count"))
register(_reduce_sum_api("highdim", "reduce-sum-highdim", "high-dim"))


def _repeat_sum_dtypes(spec):
    return tuple(s for s, t in spec.reduce_repeat_sum_pairs if s == t and s in ("half", "float"))


def _pattern_api(pattern, name, dtypes):
    return SummingApi(
        name=name, description=f"{pattern}: stage 1 over the repeats, then WholeReduceSum until one value is left",
        dtypes=dtypes, size_reason=at_most(_largest(pattern)), largest=_largest(pattern),
        make_runner=lambda device, d, n, saturate: _CoreRunner(device, d, n, saturate, pattern),
        depths=lambda device, d, n: _order_depths(device, pattern, d, n),
        label=lambda device, d: f"{device} {pattern}", form=pattern)


PATTERN_APIS = {"ReduceRepeat->ReduceRepeat": "reduce-repeat-reduce-repeat",
                "BlockReduceSum->WholeReduceSum": "block-reduce-sum-whole-reduce-sum"}
register(_pattern_api("ReduceRepeat->ReduceRepeat", PATTERN_APIS["ReduceRepeat->ReduceRepeat"], _repeat_sum_dtypes))
register(_pattern_api("BlockReduceSum->WholeReduceSum", PATTERN_APIS["BlockReduceSum->WholeReduceSum"],
                      lambda spec: tuple(t for t in _repeat_sum_dtypes(spec) if t in spec.reduce_data_block_dtypes)))


# --- gallery kernels with a scalar output (GM in, GM scalar out; their own Core per call) ----------------------
def _kernel(module_name):
    from importlib import import_module
    return import_module(f"ascend_jit.kernels.{module_name}").KERNEL


def _gallery_runner(module_name, output):
    def make(device, d, n, saturate):
        if saturate:
            raise ParameterError("sweep", "saturate", True, legal=f"False for the {module_name} kernel (it runs in "
                                 "the device's default overflow mode)", device=device)
        kernel = _kernel(module_name)
        return lambda x: float(kernel.run(device, {"x": x})[output][0])
    return make


def _kernel_size_reason(module_name):
    """The kernel's own device list and size rule (KernelSpec)."""
    def reason(spec, d, n):
        kernel = _kernel(module_name)
        if not kernel.supports(spec.name):
            return f"the {module_name} kernel does not run on {spec.name}"
        return None if kernel.size_ok(n) else f"n={n}: the {module_name} kernel takes {kernel.size_rule}"
    return reason


def _gallery_api(name, module_name, dtype, output, description, depths):
    return SummingApi(name=name, description=description, dtypes=lambda spec: (dtype,),
                      size_reason=_kernel_size_reason(module_name), make_runner=_gallery_runner(module_name, output),
                      depths=lambda device, d, n: depths(device, n), label=lambda device, d: f"{device} {module_name}")


def tiled_depths(device, n):
    """tiled_reduce_sum: the count-form tree inside each tile, then the count-form tree over the tile sums."""
    from .kernels.tiled_reduce_sum import tile_plan
    tiles = tile_plan(n)
    final = _order_depths(device, "count", HALF, len(tiles))
    out = np.empty(n, np.int64)
    for t, (start, count) in enumerate(tiles):
        out[start:start + count] = _order_depths(device, "count", HALF, count) + final[t]
    return out


def multi_block_depths(device, n):
    """multi_block_reduce_sum: each block's tiled sum, then the count-form tree over the block sums."""
    from .kernels.multi_block_reduce_sum import BLOCK_DIM, block_slices
    final = _order_depths(device, "count", HALF, BLOCK_DIM)
    out = np.empty(n, np.int64)
    for b, (start, count) in enumerate(block_slices(n, BLOCK_DIM)):
        if count:
            out[start:start + count] = tiled_depths(device, count) + final[b]
    return out


def atomic_sum_depths(device, n):
    """atomic_sum: each block's count-form tree, then the partials added to a zeroed GM word in block order
    (0 + p0 is exact: p0 and p1 pass through BLOCK_DIM - 1 adds, as in a sequential sum)."""
    from .dtypes import FLOAT
    from .kernels.atomic_sum import BLOCK_DIM
    per = n // BLOCK_DIM
    return (np.tile(_order_depths(device, "count", FLOAT, per), BLOCK_DIM)
            + np.repeat(sequential_depths(BLOCK_DIM), per))


register(_gallery_api("tiled-gm", "tiled_reduce_sum", "half", "total", "the tiled GM reduction kernel: 16 Ki-half "
                      "tiles through the UB, count-form ReduceSum per tile, then over the tile sums (up to 16 Mi "
                      "halves)", tiled_depths))
register(_gallery_api("multi-block-gm", "multi_block_reduce_sum", "half", "total", "the 8-block GM reduction "
                      "kernel: the tiled sum per block, then ReduceSum over the block sums in GM",
                      multi_block_depths))
register(_gallery_api("atomic-sum-gm", "atomic_sum", "float", "sum", "the 8-block float GM sum: count-form "
                      "ReduceSum per block, partials combined with SetAtomicAdd (block order)", atomic_sum_depths))


# --- what-if orders (device-independent; not device behaviour) --------------------------------------------------
def sequential_depths(n):
    """((x0 + x1) + x2) + ...: x0 and x1 pass through n - 1 adds, x_i (i >= 1) through n - i."""
    depths = np.arange(n, 0, -1, dtype=np.int64)
    depths[0] = max(n - 1, 0)
    return depths


def pairwise_depths(n):
    """Adjacent pairs level by level, an odd last group carried up unchanged (jit/orders.pairwise_sum)."""
    depths = np.zeros(n, np.int64)
    group = np.arange(n, dtype=np.int64)  # each element's group index at the current level
    groups = n
    while groups > 1:
        depths += group < groups - groups % 2  # every group but an odd last one is added at this level
        group //= 2
        groups = (groups + 1) // 2
    return depths


def _what_if_runner(order):
    def make(device, d, n, saturate):
        from .jit.orders import pairwise_sum, sequential_sum, wide_sum
        fn = {"sequential": sequential_sum, "pairwise": pairwise_sum, "wide": wide_sum}[order]
        return lambda x: float(fn(x.astype(np.float32), d.kind, saturate))
    return make


def _what_if_api(order, description, depths, wide=False):
    def label(device, d):
        return f"what-if {'fp32' if d is HALF else 'fp64'} accumulator" if wide else f"what-if {order}"
    return SummingApi(name=f"whatif-{order}", description=description, dtypes=lambda spec: ("half", "float"),
                      size_reason=lambda spec, d, n: None, make_runner=_what_if_runner(order),
                      depths=lambda device, d, n: depths(n), label=label, per_device=False, wide=wide)


register(_what_if_api("sequential", "what-if: one rounded add after another, in index order", sequential_depths))
register(_what_if_api("pairwise", "what-if: adjacent-pair tree, one rounding per add", pairwise_depths))
register(_what_if_api("wide", "what-if: a wider accumulator (fp32 for half, fp64 for float) rounded to the type "
                      "once (D1's alternative reading)", sequential_depths, wide=True))
