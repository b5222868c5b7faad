"""The element-wise family: every binary and tensor-scalar instruction and the unary transcendentals, half, count
form, 8320 elements, next to numpy's float32 and float16 equivalents on the same data; one-repeat calls (128 halves).

    python -m pytest benchmarks/test_bench_elementwise.py --benchmark-enable --benchmark-json=out/ew.json
    python benchmarks/report.py out/ew.json
"""
import itertools

import numpy as np
import pytest

import ascend_jit as aj
from conftest import half_tensors

N = 8320
BINARY = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide, "Max": np.maximum,
          "Min": np.minimum}
SCALAR = {"Adds": np.add, "Muls": np.multiply, "Maxs": np.maximum, "Mins": np.minimum,
          "LeakyRelu": lambda x, s, out: np.multiply(x, s, out=out)}
UNARY = {"Exp": np.exp, "Ln": np.log, "Sqrt": np.sqrt, "Rsqrt": lambda x, out: np.divide(1, np.sqrt(x), out=out),
         "Reciprocal": lambda x, out: np.divide(1, x, out=out)}


def _data(rng, dtype, positive=False):
    x = rng.standard_normal(N) * 10
    return (np.abs(x) + 1 if positive else x).astype(dtype)


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("impl", ["emu", "np_float32", "np_float16"])
def test_binary_8320(benchmark, name, impl, a2, rng):
    benchmark.group = f"ew-{name}-8320"
    if impl == "emu":
        d, a, b = half_tensors(a2, N, 3, rng)
        b[:] = np.abs(b.numpy()) + 1
        benchmark(getattr(aj, name), d, a, b, N)
    else:
        dtype = np.float32 if impl == "np_float32" else np.float16
        a, b = _data(rng, dtype), _data(rng, dtype, True)
        out = np.empty_like(a)
        benchmark(BINARY[name], a, b, out=out)


@pytest.mark.parametrize("name", list(SCALAR))
@pytest.mark.parametrize("impl", ["emu", "np_float32", "np_float16"])
def test_scalar_8320(benchmark, name, impl, a2, rng):
    benchmark.group = f"ew-{name}-8320"
    if impl == "emu":
        d, a = half_tensors(a2, N, 2, rng)
        benchmark(getattr(aj, name), d, a, np.float16(0.5), N)
    else:
        dtype = np.float32 if impl == "np_float32" else np.float16
        a = _data(rng, dtype)
        out = np.empty_like(a)
        benchmark(SCALAR[name], a, dtype(0.5), out=out)


@pytest.mark.parametrize("impl", ["emu-ascend950", "emu-atlas-a2", "np_float32"])
def test_float_mul_add_dst_8320(benchmark, impl, rng):
    """MulAddDst of floats, dst = a * b + dst rounded once (the 950's fused lanes; D39 on the A2 keeps a finite
    product exact too), next to numpy's unfused float32 multiply and add."""
    benchmark.group = "ew-MulAddDst-float-8320"
    a, b, c = (rng.standard_normal(N).astype(np.float32) for _ in range(3))
    if impl.startswith("emu"):
        core = aj.Core(impl[4:])
        d, x, y = (core.local_tensor("float", N) for _ in range(3))
        d[:], x[:], y[:] = c, a, b
        benchmark(aj.MulAddDst, d, x, y, N)
    else:
        out = np.empty_like(a)

        def mul_add():
            np.multiply(a, b, out=out)
            np.add(out, c, out=out)
        benchmark(mul_add)


@pytest.mark.parametrize("device", ["ascend950", "atlas-a2"])
def test_half_mul_add_dst_8320(benchmark, device, rng):
    """MulAddDst of halves (the exact a * b + dst rounded to odd float32, then to half), the group of the float
    case above: unvectorised lanes, kept fast by sum_to_f32_odd's early exit (review65)."""
    benchmark.group = "ew-MulAddDst-float-8320"
    core = aj.Core(device)
    d, x, y = half_tensors(core, N, 3, rng)
    benchmark(aj.MulAddDst, d, x, y, N)


@pytest.mark.parametrize("name", list(UNARY))
@pytest.mark.parametrize("impl", ["emu", "np_float32", "np_float16"])
def test_unary_8320(benchmark, name, impl, a2, rng):
    benchmark.group = f"ew-{name}-8320"
    if impl == "emu":
        d, a = half_tensors(a2, N, 2, rng)
        a[:] = np.abs(a.numpy()) / 10 + 0.5
        benchmark(getattr(aj, name), d, a, N)
    else:
        dtype = np.float32 if impl == "np_float32" else np.float16
        a = np.abs(_data(rng, dtype)) / dtype(10) + dtype(0.5)
        out = np.empty_like(a)
        benchmark(UNARY[name], a, out=out)


@pytest.mark.parametrize("name", ["np_float32-add", "Add", "Sub", "Mul", "Adds", "Muls", "Exp", "Duplicate",
                                  "Add new tensor objects"])
def test_one_repeat_128(benchmark, name, a2, rng):
    """Repeated calls on the same tensors (the entry's recent call), and "new tensor objects": every call on other
    LocalTensor objects of the same call shape, as a tiled kernel's per-tile queue tensors (slices of TQue buffers,
    so each carries its buffer's lease; the memo keyed on the facts; the time includes cycling through 64 prepared
    tensor triples, about 0.1 us)."""
    benchmark.group = "ew-one-repeat"
    d, a, b = half_tensors(a2, 128, 3, rng)
    if name == "np_float32-add":  # the baseline: numpy's float32 add of 128 elements
        x, y = (rng.standard_normal(128).astype(np.float32) for _ in range(2))
        benchmark(np.add, x, y, out=np.empty_like(x))
        return
    if name == "Add new tensor objects":
        pipe, queues = aj.TPipe(a2), [aj.TQue(aj.TPosition.VECIN, 1) for _ in range(3)]
        for q in queues:
            pipe.InitBuffer(q, 1, 256)
        tiles = [q.AllocTensor("half") for q in queues]
        for t, src in zip(tiles, (d, a, b)):
            t[:] = src.numpy()
        triples = itertools.cycle([tuple(t[0:128] for t in tiles) for _ in range(64)])
        benchmark(lambda: aj.Add(*next(triples), 128))
        return
    fn = getattr(aj, name)
    if name in ("Add", "Sub", "Mul"):
        benchmark(fn, d, a, b, 128)
    elif name in ("Adds", "Muls"):
        benchmark(fn, d, a, np.float16(0.5), 128)
    elif name == "Duplicate":
        benchmark(fn, d, np.float16(0.5), 128)
    else:
        benchmark(fn, d, a, 128)


@pytest.mark.parametrize("name", ["Add", "Sub bit mask", "Adds", "Exp", "Duplicate"])
def test_one_repeat_high_dim_128(benchmark, name, a2, rng):
    """One repeat of 128 halves through the high-dim form (mask plan and validation memoised per call shape)."""
    benchmark.group = "ew-one-repeat-high-dim"
    d, a, b = half_tensors(a2, 128, 3, rng)
    bp, up = aj.BinaryRepeatParams(), aj.UnaryRepeatParams()
    calls = {"Add": lambda: aj.Add(d, a, b, 128, 1, bp),
             "Sub bit mask": lambda: aj.Sub(d, a, b, [2**64 - 1, 2**64 - 1], 1, bp),
             "Adds": lambda: aj.Adds(d, a, np.float16(0.5), 128, 1, up),
             "Exp": lambda: aj.Exp(d, a, 128, 1, up),
             "Duplicate": lambda: aj.Duplicate(d, np.float16(0.5), 128, 1, 1, 8)}
    benchmark(calls[name])



@pytest.mark.parametrize("impl", ["emu high-dim", "np_copyto", "emu row gather", "emu row gather counter",
                                  "np row gather"])
def test_copy_8192(benchmark, impl, a2, rng):
    """Copy of 8192 halves (64 full repeats, default strides) against numpy's copy of as many halves; and a row
    gather (the first 64 halves of each of 64 rows of 128: mask 64, CopyRepeatParams(1, 1, 4, 8)), by the mask form,
    by counter mode (64 elements per repeat) and by numpy's strided copy."""
    benchmark.group = "ew-Copy"
    d, s = half_tensors(a2, 8192, 2, rng)
    x = rng.standard_normal(8192).astype(np.float16)
    out, rows = np.empty_like(x), np.empty((64, 64), np.float16)
    params = aj.CopyRepeatParams(1, 1, 8, 8), aj.CopyRepeatParams(1, 1, 4, 8)
    if impl == "emu row gather counter":
        a2.SetMaskCount()
    calls = {"emu high-dim": lambda: aj.Copy(d, s, 128, 64, params[0]),
             "np_copyto": lambda: np.copyto(out, x),
             "emu row gather": lambda: aj.Copy(d, s, 64, 64, params[1]),
             "emu row gather counter": lambda: aj.Copy(d, s, 64, 64, params[1]),
             "np row gather": lambda: np.copyto(rows, x.reshape(64, 128)[:, :64])}
    benchmark(calls[impl])


@pytest.mark.parametrize("impl", ["emu ShiftRight", "np right_shift", "emu Not", "np invert"])
def test_shift_not_8192(benchmark, impl, a2, rng):
    """ShiftRight by 3 and Not of 8192 int16 (count form) against numpy's right_shift and invert on as many."""
    benchmark.group = "ew-ShiftRight-Not"
    d, s = (a2.local_tensor("int16", 8192) for _ in range(2))
    x = rng.integers(-2**15, 2**15, 8192).astype(np.int16)
    s[:] = x
    out = np.empty_like(x)
    calls = {"emu ShiftRight": lambda: aj.ShiftRight(d, s, 3, 8192),
             "np right_shift": lambda: np.right_shift(x, 3, out=out), "emu Not": lambda: aj.Not(d, s, 8192),
             "np invert": lambda: np.invert(x, out=out)}
    benchmark(calls[impl])


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
@pytest.mark.parametrize("impl", ["emu", "np"])
def test_arith_progression_8192(benchmark, device, impl):
    """ArithProgression of 8192 floats (A2: 1 + 7 + 127 Adds of one repeat; 950: 128 count-form Adds) against numpy's
    arange * diff + first."""
    benchmark.group = f"ew-ArithProgression-{device}"
    core = aj.Core(device)
    d = core.local_tensor("float", 8192)
    ramp, out = np.arange(8192, dtype=np.float32), np.empty(8192, np.float32)

    def numpy_progression():
        np.multiply(ramp, np.float32(0.25), out=out)
        np.add(out, np.float32(0.5), out=out)
    benchmark(lambda: aj.ArithProgression(d, 0.5, 0.25, 8192) if impl == "emu" else numpy_progression())
