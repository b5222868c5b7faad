"""Where a gallery kernel's time goes, per instruction (issue 18): the softmax over 1024 x 1024 halves or the RMSNorm
over 1024 rows of 4096 halves on one core, as benchmarks/test_bench_gallery.py runs them, with every `aj.<Api>` call
the kernel makes timed by CPU time (time.process_time).

    python benchmarks/gallery_tally.py softmax atlas-a2
    python benchmarks/gallery_tally.py rmsnorm ascend950
    python benchmarks/gallery_tally.py is_close atlas-a2      (any other gallery kernel: at its default size)

It prints the median CPU time of a plain run (elements/s), then calls per run, CPU ms per run and CPU us per call of
each instruction in an instrumented run. The timing wrapper adds about 1 us to each call it measures, so the
instrumented run is slower than the plain one; "rest" is the kernel's own Python (queues, GetValue/SetValue, loops)
plus that wrapper cost.
"""
import collections
import statistics
import sys
import time
import types

import ascend_jit as aj
from ascend_jit.kernels import registry

SIZES = {"softmax": (1024 * 1024, {}), "rmsnorm": (1024 * 4096, {"blocks": 1})}
RUNS = 9


def timed_namespace(stats):
    """A stand-in for the `ascend_jit` module whose public functions (capitalised names) add their CPU time to
    stats[name] = [calls, seconds]; everything else (enums, classes, constants) is the module's own."""
    ns = types.SimpleNamespace()
    clock = time.process_time
    for name in dir(aj):
        value = getattr(aj, name)
        # the tiling macros are not instructions, and GET_TILING_DATA reads the default its caller's module registered
        # (a wrapper here would be its caller)
        if callable(value) and not isinstance(value, type) and name[:1].isupper() and name not in aj.tiling.__all__:
            def timed(*args, _fn=value, _stat=stats[name], **kwargs):
                start = clock()
                result = _fn(*args, **kwargs)
                _stat[1] += clock() - start
                _stat[0] += 1
                return result
            setattr(ns, name, timed)
        else:
            setattr(ns, name, value)
    return ns


def main(name="softmax", device="atlas-a2"):
    kernel = registry()[name]
    module = sys.modules[kernel.run.__module__]
    size, kwargs = SIZES.get(name, (kernel.default_size, {}))
    inputs = kernel.make_inputs(size, 0)
    kernel.run(device, inputs, **kwargs)   # compile and warm
    times = []
    for _ in range(RUNS):
        start = time.process_time()
        kernel.run(device, inputs, **kwargs)
        times.append(time.process_time() - start)
    plain = statistics.median(times)
    print(f"{name} on {device}: {plain * 1e3:.2f} ms CPU a run (median of {RUNS}), {size / plain:.3g} elements/s")
    stats = collections.defaultdict(lambda: [0, 0.0])
    module.aj = timed_namespace(stats)
    try:
        start = time.process_time()
        for _ in range(RUNS):
            kernel.run(device, inputs, **kwargs)
        instrumented = (time.process_time() - start) / RUNS
    finally:
        module.aj = aj
    print(f"{'instruction':16s} {'calls/run':>10s} {'ms/run':>8s} {'us/call':>8s}")
    in_calls = 0.0
    for api, (calls, seconds) in sorted(stats.items(), key=lambda kv: -kv[1][1]):
        if calls:
            in_calls += seconds / RUNS
            print(f"{api:16s} {calls // RUNS:10d} {seconds / RUNS * 1e3:8.2f} {seconds / calls * 1e6:8.1f}")
    print(f"instrumented run {instrumented * 1e3:.2f} ms: {in_calls * 1e3:.2f} ms in the calls above, "
          f"{(instrumented - in_calls) * 1e3:.2f} ms rest")


if __name__ == "__main__":
    main(*sys.argv[1:3])
