"""Audit 45: which device offers which API and dtype, and the refusals' contract, from the SPEC text alone.

Every table below is transcribed from the SPEC (the section is cited beside it), never read from the library's
registry: SPEC-2 1.9 (API per device), 2.2 / 3.2 / 4.2 / 5 / 6.2 (element-wise dtypes), 7.2 (Cast pairs and modes),
8 (reductions), 9 (data movement, compare, select), 10 (synchronisation), 11 (Reg on the 950 only), 14 (out of scope),
SPEC 3.4 / 4.5 / 6 / 8.1 (Add, ReduceSum, ReducePairElem, Reg ReduceDataBlock), and 0.3 (fidelity table).

An offered (API, device, dtype) runs a small valid call whose result is checked against a tiny numpy model (inputs
are small integers, so every result is exact on every device and in every overflow mode, MODELLED ones included);
a refused one raises the SPEC-2 1.8 class and leaves the UB, the mask register, counter mode, CTRL, the flags and GM
byte-identical.
"""
import sys

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.dtypes import resolve

R = aj.Reg

D950, A3, A2, B, P, T = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore",
                         "atlas-training")
VC = "atlas-inference-vectorcore"
DEVICES = (D950, A3, A2, B, P, T)
NON950 = (A3, A2, B, P, T)
ALL = ("int8", "uint8", "int16", "uint16", "half", "bfloat16", "int32", "uint32", "float", "int64", "uint64")
SIGNED = {"int8", "int16", "int32", "int64", "half", "bfloat16", "float"}
FLOATS = {"half", "bfloat16", "float"}

# ---------------------------------------------------------------------------------------------------------------
# helpers


def npd(name):
    return resolve(name).np_dtype


def size(name):
    return resolve(name).size


def lanes(name):
    return 256 // size(name)


def arr(name, values):
    """A numpy array of `name` holding the (small, exact) Python numbers `values`."""
    if name in FLOATS:
        return np.asarray(values, np.float64).astype(npd(name))
    return np.asarray([int(v) for v in values], dtype=npd(name))


def bits(a):
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


def put(t, values):
    t[:] = arr(t.dtype.name, values)


def assert_values(t, expected, n=None):
    got = t.numpy() if n is None else t.numpy()[:n]
    exp = arr(t.dtype.name, expected)
    assert bits(got) == bits(exp), (t.dtype.name, got[:16], exp[:16])


def snapshot(core, gm=None):
    """Everything a refused call must leave alone (SPEC-2 1.5 last point, 1.8)."""
    state = (core.ctrl, core.mask_high, core.mask_low, core.mask_defined, core.counter_mode,
             tuple(sorted((str(k), v) for k, v in getattr(core, "flags", {}).items())), repr(core.pad_value),
             repr(core.max_min_spr), repr(core.acc_val), repr(core.rsvd_cnt))
    return core.ub.tobytes(), state, None if gm is None else gm.tobytes()


def refused(core, cls, call, gm=None):
    """call() raises exactly the SPEC-2 1.8 class `cls` (an AscendJitError) and changes no byte or state."""
    with core:
        before = snapshot(core, gm)
        with pytest.raises(aj.AscendJitError) as info:
            call()
        after = snapshot(core, gm)
    assert isinstance(info.value, cls), (type(info.value).__name__, str(info.value))
    _names_all_five(info.value, core.device)
    assert after[0] == before[0], "UB changed by a refused call"
    assert after[1] == before[1], "core state changed by a refused call"
    assert after[2] == before[2], "GM changed by a refused call"
    return info.value


def _names_all_five(e, device):
    """README: every refusal names the API, the parameter, the value given, the legal range and the device."""
    text = str(e)
    assert e.api and str(e.api) in text, ("api", text)
    assert e.parameter is not None and str(e.parameter) in text, ("parameter", text)
    assert f"= {e.value!r}" in text, ("value", text)
    assert e.legal is not None and str(e.legal).strip() and f"(legal: {e.legal})" in text, ("legal range", text)
    assert e.device == device and f"on device {device}" in text, ("device", text)


def core_with(device, *specs):
    core = aj.Core(device)
    return core, [core.local_tensor(d, n) for d, n in specs]


CHECKED = set()   # (API, device, dtype) combinations this file exercises (reported by the last test)


def mark(api, device, dtype):
    CHECKED.add((api, device, dtype))


# ---------------------------------------------------------------------------------------------------------------
# element-wise tables: {device: (high-dim dtypes, count-form-only dtypes)}; a device absent is "not offered"


def row(hd, count_only=()):
    return (frozenset(hd.split()), frozenset(count_only.split()) if count_only else frozenset())


def same(value, devices=NON950):
    return dict.fromkeys(devices, value)


FOUR = row("int16 half int32 float")
EW = {
    # SPEC 3.4 (Add; 950: "the 8-bit, 64-bit and complex types only through the count API")
    "Add": {D950: row("int16 uint16 half bfloat16 int32 uint32 float", "int8 uint8 int64 uint64"),
            **same(FOUR, (A3, A2, B, P)), T: row("half int32 float")},
    # SPEC-2 2.2
    "Sub": {D950: row("int16 uint16 half bfloat16 int32 uint32 float", "int8 uint8 int64 uint64"),
            **same(FOUR, (A3, A2, B, P)), T: row("half int32 float")},
    "Mul": {D950: row("int16 uint16 half bfloat16 int32 uint32 float", "int64 uint64"),
            **same(FOUR, (A3, A2, B, P)), T: row("half int32 float")},
    "Div": {D950: row("int16 uint16 half int32 uint32 float", "int64 uint64"),
            **same(row("half float"), (A3, A2, B, P)), T: row("half float")},
    "Max": {D950: row("int16 uint16 half bfloat16 int32 uint32 float", "int8 uint8 int64 uint64"),
            **same(FOUR, (A3, A2, B, P)), T: row("half int32 float")},
    "And": {D950: row("int16 uint16 int32 uint32", "int8 uint8 int64 uint64"),
            **same(row("int16 uint16"), (A3, A2, B, P)), T: row("int16 uint16")},
    # SPEC-2 3.2
    "Adds": {D950: row("int16 half bfloat16 int32 float", "int8 uint8 int64 uint64"),
             **same(FOUR, (A3, A2, B, P)), T: row("half float")},
    "Muls": {D950: row("int16 half bfloat16 int32 float", "int64 uint64"),
             **same(FOUR, (A3, A2, B, P)), T: row("half float")},
    "Maxs": {D950: row("int16 half bfloat16 int32 float", "int8 uint8 int64 uint64"), **same(FOUR, (A3, A2, B, P))},
    "LeakyRelu": {D950: row("half float"), **same(row("half float"), (A3, A2, B, P))},
    # SPEC-2 4.2
    "Abs": {D950: row("int16 half int32 float", "int8 int64"), A3: row("half float"), A2: row("half float"),
            B: row("int16 half float"), P: row("half float"), T: row("half float")},
    "Relu": {D950: row("half int32 float", "int64"), **same(row("half int32 float"), (A3, A2, B, P)),
             T: row("half")},
    "Exp": {D950: row("half float"), **same(row("half float"))},
    "Reciprocal": {D950: row("half float", "int64 uint64"), **same(row("half float"))},
    # SPEC-2 5.1 / 5.2
    "Duplicate": {D950: row("int16 uint16 half bfloat16 int32 uint32 float", "int8 uint8 int64 uint64"),
                  **same(row("int16 uint16 half bfloat16 int32 uint32 float"))},
    "Brcb": {D950: row(" ".join(ALL)), A3: row("int16 uint16 half bfloat16 int32 uint32 float"),
             A2: row("int16 uint16 half bfloat16 int32 uint32 float"), P: row("int16 uint16 half int32 uint32 float")},
    # SPEC-2 6.2 (same-type rows; the mixed half -> float rows are MIXED below)
    "AddRelu": {D950: row("int16 half float", "int64 uint64"), A3: row("int16 half float"),
                A2: row("int16 half float"), B: row("half float"), P: row("int16 half float")},
    "MulAddDst": {D950: row("half float", "int64 uint64"), A3: row("half float"), A2: row("half float"),
                  B: row("half float int16 uint16 int32 uint32"), P: row("half float")},
    "FusedMulAdd": {D950: row("half bfloat16 float", "int64 uint64"), **same(row("half float"), (A3, A2, B, P))},
    "Axpy": {D950: row("half float bfloat16", "int64 uint64"), **same(row("half float"))},
}
# the twins that share a row of the SPEC table
EW["Min"] = EW["Max"]
EW["Or"] = EW["And"]
EW["Mins"] = EW["Maxs"]
EW["SubRelu"] = EW["AddRelu"]
for _op in ("Ln", "Sqrt", "Rsqrt"):
    EW[_op] = EW["Exp"]
# SPEC-2 6.2: half -> float (PAR 64) of MulAddDst and Axpy
MIXED = {"MulAddDst": (D950, A3, A2, P), "Axpy": (D950, A3, A2, B, P, T)}

A = [(i % 13) + 3 for i in range(256)]        # 3..15
Bv = [(i % 3) + 1 for i in range(256)]        # 1..3
C = [i % 5 for i in range(256)]               # 0..4


def _signed_shift(dtype, values):
    return [v - 9 for v in values] if dtype in SIGNED else list(values)


def _model(api, dtype, n):
    """(source lists, scalar, initial dst, expected) of a small exact call (SPEC-2 2.3, 3.3, 4.3, 5, 6.3)."""
    a, b, c = A[:n], Bv[:n], C[:n]
    s = _signed_shift(dtype, a)
    rec = dict.fromkeys(FLOATS, [1, 2, 4, 8])
    table = {
        "Add": ((a, b), None, None, [x + y for x, y in zip(a, b)]),
        "Sub": ((a, b), None, None, [x - y for x, y in zip(a, b)]),
        "Mul": ((a, b), None, None, [x * y for x, y in zip(a, b)]),
        "Div": (([x * y for x, y in zip(a, b)], b), None, None, a),
        "Max": ((a, [9] * n), None, None, [max(x, 9) for x in a]),
        "Min": ((a, [9] * n), None, None, [min(x, 9) for x in a]),
        "And": ((a, [6] * n), None, None, [x & 6 for x in a]),
        "Or": ((a, [16] * n), None, None, [x | 16 for x in a]),
        "Adds": ((a,), 2, None, [x + 2 for x in a]),
        "Muls": ((a,), 2, None, [x * 2 for x in a]),
        "Maxs": ((a,), 9, None, [max(x, 9) for x in a]),
        "Mins": ((a,), 9, None, [min(x, 9) for x in a]),
        "LeakyRelu": ((s,), 0.5, None, [x if x >= 0 else x * 0.5 for x in s]),
        "Abs": ((s,), None, None, [abs(x) for x in s]),
        "Relu": ((s,), None, None, [max(x, 0) for x in s]),
        "Exp": (([0] * n,), None, None, [1] * n),
        "Ln": (([1] * n,), None, None, [0] * n),
        "Sqrt": (([((i % 4) + 1) ** 2 for i in range(n)],), None, None, [(i % 4) + 1 for i in range(n)]),
        "Rsqrt": (([[1, 4, 16, 64][i % 4] for i in range(n)],), None, None,
                  [[1, .5, .25, .125][i % 4] for i in range(n)]),
        "Duplicate": ((), 7, None, [7] * n),
        "AddRelu": ((s, b), None, None, [max(x + y, 0) for x, y in zip(s, b)]),
        "SubRelu": ((a, b) if dtype not in SIGNED else (s, b), None, None,
                    [max(x - y, 0) for x, y in zip(a if dtype not in SIGNED else s, b)]),
        "MulAddDst": ((a, b), None, c, [x * y + z for x, y, z in zip(a, b, c)]),
        "FusedMulAdd": ((a, b), None, c, [x * z + y for x, y, z in zip(a, b, c)]),
        "Axpy": ((a,), 2, c, [2 * x + z for x, z in zip(a, c)]),
    }
    if api == "Brcb":   # SPEC-2 5.2: dst block j = 32/sizeof(T) copies of src[j]
        return (a[:8],), None, None, [v for v in a[:8] for _ in range(32 // size(dtype))]
    if api == "Reciprocal":
        if dtype in FLOATS:
            src = [rec[dtype][i % 4] for i in range(n)]
            return (src,), None, None, [1 / x for x in src]
        src = [[1, 2, 5, -1][i % 4] if dtype == "int64" else [1, 2, 5, 3][i % 4] for i in range(n)]
        return (src,), None, None, [1 if x == 1 else -1 if x == -1 else 0 for x in src]
    return table[api]


def _ew_call(api, core, dst, srcs, scalar, form, n, dst_dtype):
    """One call of `api` in the count form (n elements) or the high-dim form (one full repeat, mask n)."""
    f = getattr(aj, api)
    unary_params = aj.UnaryRepeatParams()
    binary_params = aj.BinaryRepeatParams()
    if api == "Duplicate":
        return f(dst, scalar, n) if form == "count" else f(dst, scalar, n, 1, 1, 8)
    if api == "Brcb":
        return f(dst, srcs[0], 1, aj.BrcbRepeatParams(1, 8))
    if scalar is not None:   # tensor-scalar and Axpy: (dst, src, scalar, ...)
        return f(dst, srcs[0], scalar, n) if form == "count" else f(dst, srcs[0], scalar, n, 1, unary_params)
    if len(srcs) == 1:
        return f(dst, srcs[0], n) if form == "count" else f(dst, srcs[0], n, 1, unary_params)
    return f(dst, *srcs, n) if form == "count" else f(dst, *srcs, n, 1, binary_params)


def _ew_cases():
    for api, table in EW.items():
        for device in DEVICES:
            for dtype in ALL:
                if device not in table:
                    verdict = "device"
                elif dtype in table[device][0]:
                    verdict = "run"
                elif dtype in table[device][1]:
                    verdict = "count_only"
                else:
                    verdict = "dtype"
                yield pytest.param(api, device, dtype, verdict, id=f"{api}-{device}-{dtype}-{verdict}")


def _ew_tensors(core, api, dtype, n, src_dtype=None):
    src_dtype = src_dtype or dtype
    model = _model(api, src_dtype if src_dtype == dtype else "half", n)
    srcs_v, scalar, dst0, expected = model
    dst_n = len(expected)
    dst = core.local_tensor(dtype, dst_n)
    put(dst, dst0 if dst0 is not None else [0] * dst_n)
    srcs = []
    for v in srcs_v:
        t = core.local_tensor(src_dtype, max(len(v), 32 // size(src_dtype)))
        put(t, list(v) + [0] * (t.size - len(v)))
        srcs.append(t)
    return dst, srcs, scalar, expected


# Offered combinations of these dtypes run their numpy-checked call in the default suite; the other dtypes' classes
# each compile kernels of their own (about 3-7 s apiece on a cold cache), so there the default suite proves the
# offer with a NOP-shaped call (count 0, repeat_time 0: validated like any call, SPEC-2 D30) and the slow tests run
# them against the model.
REAL_RUN = {"half", "float"}
RUN_ALL = False   # the slow tests set it: every offered combination then runs against the model


def _ew_nop(api, dst, srcs, scalar, form):
    """The call of `form` that is a NOP by SPEC-2 D30 (count 0 / repeat_time 0)."""
    f = getattr(aj, api)
    if api == "Brcb":
        return f(dst, srcs[0], 0, aj.BrcbRepeatParams(1, 8))
    if api == "Duplicate":
        return f(dst, scalar, 0) if form == "count" else f(dst, scalar, 64, 0, 1, 8)
    if scalar is not None:
        return f(dst, srcs[0], scalar, 0) if form == "count" else f(dst, srcs[0], scalar, 64, 0,
                                                                       aj.UnaryRepeatParams())
    if len(srcs) == 1:
        return f(dst, srcs[0], 0) if form == "count" else f(dst, srcs[0], 64, 0, aj.UnaryRepeatParams())
    return f(dst, *srcs, 0) if form == "count" else f(dst, *srcs, 64, 0, aj.BinaryRepeatParams())


def _ew_run(api, device, dtype, verdict):
    """The numpy-checked count call, and the high-dim one (or its refusal for a count-only dtype)."""
    core = aj.Core(device)
    n = lanes(dtype)
    dst, srcs, scalar, expected = _ew_tensors(core, api, dtype, n)
    with core:
        _ew_call(api, core, dst, srcs, scalar, "count", n, dtype)
    assert_values(dst, expected)
    if api == "Brcb":
        return
    if verdict == "count_only":
        refused(core, aj.UnsupportedDTypeError, lambda: _ew_call(api, core, dst, srcs, scalar, "highdim", n, dtype))
        return
    dst2, srcs2, scalar2, expected2 = _ew_tensors(core, api, dtype, n)
    with core:
        _ew_call(api, core, dst2, srcs2, scalar2, "highdim", n, dtype)
    assert_values(dst2, expected2)


@pytest.mark.parametrize("api, device, dtype, verdict", list(_ew_cases()))
def test_elementwise_availability(api, device, dtype, verdict):
    """SPEC-2 1.9 / 2.2 / 3.2 / 4.2 / 5 / 6.2, SPEC 3.4: offered dtypes run both forms (count-only ones refuse the
    high-dim form, UnsupportedDTypeError), other dtypes UnsupportedDTypeError, absent APIs UnsupportedDeviceError."""
    mark(api, device, dtype)
    if verdict in ("run", "count_only") and dtype in REAL_RUN:
        _ew_run(api, device, dtype, verdict)
        return
    core = aj.Core(device)
    n = lanes(dtype)
    dst, srcs, scalar, expected = _ew_tensors(core, api, dtype, n)

    def call(form):
        return lambda: _ew_call(api, core, dst, srcs, scalar, form, n, dtype)
    if verdict == "device":
        refused(core, aj.UnsupportedDeviceError, call("count"))
        return
    if verdict == "dtype":
        refused(core, aj.UnsupportedDTypeError, call("count"))
        if api != "Brcb":
            refused(core, aj.UnsupportedDTypeError, call("highdim"))
        return
    before = core.ub.tobytes()
    forms = ("count",) if api == "Brcb" or verdict == "count_only" else ("count", "highdim")
    with core:
        for form in forms:
            _ew_nop(api, dst, srcs, scalar, form)
    assert core.ub.tobytes() == before, "a NOP-shaped call wrote"
    if verdict == "count_only":
        refused(core, aj.UnsupportedDTypeError, call("highdim"))
        refused(core, aj.UnsupportedDTypeError, lambda: _ew_nop(api, dst, srcs, scalar, "highdim"))


@pytest.mark.slow
@pytest.mark.parametrize("api, device, dtype, verdict",
                         [p for p in _ew_cases()
                          if p.values[3] in ("run", "count_only") and p.values[2] not in REAL_RUN])
def test_elementwise_runs_other_dtypes(api, device, dtype, verdict):
    """The numpy-checked runs of the offered integer and bfloat16 combinations (slow: their kernel classes)."""
    _ew_run(api, device, dtype, verdict)


@pytest.mark.parametrize("api", sorted(MIXED))
@pytest.mark.parametrize("device", DEVICES)
def test_multiply_add_half_to_float(api, device):
    """SPEC-2 6.2: MulAddDst / Axpy with half sources and a float dst (PAR 64) where the table lists it; MulAddDst
    half -> float is not in the 310B row ("half, float, int16, uint16, int32, uint32 (same type)")."""
    mark(api + " half->float", device, "half")
    offered_anywhere = device in EW[api]
    core = aj.Core(device)
    dst, srcs, scalar, expected = _ew_tensors(core, api, "float", 64, src_dtype="half")
    for form in ("count", "highdim"):
        put(dst, C[:64] if api in ("MulAddDst", "Axpy") else [0] * 64)

        def call():
            _ew_call(api, core, dst, srcs, scalar, form, 64, "float")
        if device in MIXED[api]:
            with core:
                call()
            assert_values(dst, expected)
        elif offered_anywhere:
            refused(core, aj.UnsupportedDTypeError, call)
        else:
            refused(core, aj.UnsupportedDeviceError, call)


@pytest.mark.parametrize("device", NON950)
def test_and_or_int32_refusal_names_d60(device):
    """SPEC-2 D60: int32/uint32 And/Or off the 950 are UnsupportedDTypeError recommending ReinterpretCast."""
    for api in ("And", "Or"):
        for dtype in ("int32", "uint32"):
            core, (d, a, b) = core_with(device, (dtype, 64), (dtype, 64), (dtype, 64))
            e = refused(core, aj.UnsupportedDTypeError, lambda: getattr(aj, api)(d, a, b, 64))
            assert "D60" in str(e) and "ReinterpretCast" in str(e), str(e)


@pytest.mark.parametrize("device", NON950)
def test_config_off_the_950_is_a_device_refusal(device):
    """SPEC-2 2.4 / 4.1 / D48: a non-default `config=` off the 950 is UnsupportedDeviceError."""
    core, (d, a, b) = core_with(device, ("float", 64), ("float", 64), ("float", 64))
    refused(core, aj.UnsupportedDeviceError,
            lambda: aj.Div(d, a, b, 64, config=aj.DivConfig(aj.DivAlgo.PRECISION_0ULP_FTZ_FALSE)))
    refused(core, aj.UnsupportedDeviceError,
            lambda: aj.Exp(d, a, 64, config=aj.ExpAlgo.PRECISION_1ULP_FTZ_FALSE))


def test_div_config_unsupported_for_dtype_is_parameter_error():
    """SPEC-2 2.3: DIFF_COMPENSATION / 0-ulp algorithms are float only; half with them is a ParameterError."""
    core, (d, a, b) = core_with(D950, ("half", 64), ("half", 64), ("half", 64))
    refused(core, aj.ParameterError, lambda: aj.Div(d, a, b, 64, config=aj.DivAlgo.PRECISION_0ULP_FTZ_FALSE))
    put(a, [4] * 64)
    put(b, [2] * 64)
    with core:
        aj.Div(d, a, b, 64, config=aj.DivAlgo.PRECISION_1ULP_FTZ_FALSE)   # half and float (SPEC-2 2.3 table)
    assert_values(d, [2] * 64)


def test_duplicate_tensor_source_is_950_only():
    """SPEC-2 5.1: Duplicate(dst, src_tensor, count) broadcasts src[0] on the 950; UnsupportedDeviceError elsewhere."""
    for device in DEVICES:
        core, (d, s) = core_with(device, ("half", 64), ("half", 64))
        put(s, [18] + [1] * 63)
        mark("Duplicate(tensor)", device, "half")
        if device == D950:
            with core:
                aj.Duplicate(d, s, 64)
            assert_values(d, [18] * 64)
        else:
            refused(core, aj.UnsupportedDeviceError, lambda: aj.Duplicate(d, s, 64))


# ---------------------------------------------------------------------------------------------------------------
# Cast (SPEC-2 7.2): {(src, dst): {device: modes}}; "D47" marks the pairs refused naming D47

R5 = ("CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC")
N = ("CAST_NONE",)
R5N = R5 + N
FCRTN = ("CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC", "CAST_NONE")
MODES = ("CAST_NONE",) + R5 + ("CAST_ODD",)


def cols(d950=None, a2a3=None, b=None, p=None, t=None):
    return {k: v for k, v in ((D950, d950), (A3, a2a3), (A2, a2a3), (B, b), (P, p), (T, t)) if v is not None}


def up_to_310b(modes):
    return cols(modes, modes, modes)


CAST = {}
for _pair in ("int8 half", "uint8 half", "half float"):
    CAST[_pair] = cols(N, N, N, N, N)
for _pair in ("int8 int16", "int8 int32", "uint8 uint16", "uint8 uint32", "int16 uint8", "int16 int32",
              "int16 uint32", "uint16 uint8", "uint16 uint32", "int32 uint8", "int32 uint16", "uint32 uint8",
              "uint32 int16", "uint32 uint16"):
    CAST[_pair] = cols(N)
CAST["int16 half"] = cols(R5, R5N, R5N, N, N)
CAST["int16 float"] = up_to_310b(N)
CAST["half int8"] = CAST["half uint8"] = cols(R5, R5N, R5N, FCRTN, FCRTN)
CAST["half int16"] = cols(R5, R5, R5, ("CAST_RINT",))
CAST["half int32"] = cols(R5, R5, R5, R5, R5)
CAST["half bfloat16"] = CAST["bfloat16 half"] = cols(R5)
CAST["bfloat16 int32"] = up_to_310b(R5)
CAST["bfloat16 float"] = up_to_310b(N)
CAST["int32 int16"] = cols(N, N, N, N)
CAST["int32 half"] = cols("D47", "D47", R5N, "D47")
CAST["int32 float"] = cols(R5, R5N, R5N, N, N)
CAST["int32 int64"] = up_to_310b(N)
for _pair in ("float int16", "float int32", "float bfloat16", "float float", "int64 float"):
    CAST[_pair] = up_to_310b(R5)
CAST["float half"] = cols(R5N + ("CAST_ODD",), R5N + ("CAST_ODD",), R5N + ("CAST_ODD",), ("CAST_ODD", "CAST_NONE"),
                          ("CAST_ODD", "CAST_NONE"))
CAST["float int64"] = cols(R5, R5, R5, R5, R5)
CAST["int64 int32"] = up_to_310b(N)


def _cast_cases():
    for src in ALL:
        for dst in ALL:
            entry = CAST.get(f"{src} {dst}", {})
            for device in DEVICES:
                yield pytest.param(src, dst, device, entry.get(device), id=f"{src}->{dst}-{device}")


@pytest.mark.parametrize("src, dst, device, modes", list(_cast_cases()))
def test_cast_pairs_and_modes(src, dst, device, modes):
    """SPEC-2 7.2 (and 7.1: a mode not listed for the pair raises UnsupportedDTypeError naming the legal modes;
    D47: int32 -> half off the 310B names D47): every listed mode runs (small non-negative integers convert exactly
    in every mode), every other mode and every pair not in the device's table is UnsupportedDTypeError."""
    mark("Cast", device, f"{src}->{dst}")
    core, (d, s) = core_with(device, (dst, 64), (src, 64))
    values = [i % 64 for i in range(64)]
    put(s, values)
    if modes is None or modes == "D47":
        for mode in ("CAST_NONE", "CAST_RINT"):
            e = refused(core, aj.UnsupportedDTypeError, lambda: aj.Cast(d, s, aj.RoundMode[mode], 64))
            if modes == "D47":
                assert "D47" in str(e), str(e)
        return
    for mode in MODES:
        put(d, [0] * 64)
        if mode in modes:
            with core:
                aj.Cast(d, s, aj.RoundMode[mode], 64)
            assert_values(d, values)
        else:
            e = refused(core, aj.UnsupportedDTypeError, lambda: aj.Cast(d, s, aj.RoundMode[mode], 64))
            assert any(m in str(e) for m in modes), ("the legal modes are named", str(e))


def test_cast_hybrid_is_d28():
    """SPEC-2 D28 / 14: CAST_HYBRID is out of scope, UnsupportedDTypeError naming D28."""
    core, (d, s) = core_with(D950, ("half", 64), ("float", 64))
    e = refused(core, aj.UnsupportedDTypeError, lambda: aj.Cast(d, s, aj.RoundMode.CAST_HYBRID, 64))
    assert "D28" in str(e), str(e)


# ---------------------------------------------------------------------------------------------------------------
# reductions

# SPEC-2 8.1: ReduceRepeat SUM pairs (src -> dst) and MAX/MIN dtypes and orders per device
RR_SUM = {D950: {"half": "half", "float": "float", "int16": "int32", "int32": "int32", "uint16": "uint32",
                 "uint32": "uint32"}, **same({"half": "half", "float": "float"}, (A3, A2, B, P)),
          T: {"half": "half"}}
RR_MAXMIN = {D950: {"int16", "uint16", "half", "int32", "uint32", "float"}, **same({"half", "float"}, (A3, A2, B, P)),
             T: {"half"}}
ORDERS = {D950: {"ORDER_VALUE_INDEX", "ORDER_INDEX_VALUE", "ORDER_ONLY_VALUE", "ORDER_ONLY_INDEX"},
          A3: {"ORDER_VALUE_INDEX", "ORDER_INDEX_VALUE", "ORDER_ONLY_VALUE", "ORDER_ONLY_INDEX"},
          A2: {"ORDER_VALUE_INDEX", "ORDER_INDEX_VALUE", "ORDER_ONLY_VALUE", "ORDER_ONLY_INDEX"},
          B: {"ORDER_VALUE_INDEX", "ORDER_ONLY_VALUE"}, P: {"ORDER_VALUE_INDEX", "ORDER_INDEX_VALUE"},
          T: {"ORDER_VALUE_INDEX"}}
# SPEC-2 8.2 ReduceDataBlock; 8.3 ReduceMax/ReduceMin ((high-dim, count-only))
RDB = {**same({"half", "float"}, (D950, A3, A2, B, P)), T: {"half"}}
RMM = {D950: row("int16 uint16 half int32 uint32 float", "int64 uint64"), **same(row("half float"), (A3, A2, B, P)),
       T: row("half")}
# SPEC 4.5 / 8.1: ReduceSum; SPEC 6 / 8.1: ReducePairElem
RSUM = {D950: row("half float int32 uint32", "int64 uint64"), **same(row("half float"), (A3, A2, B, P)),
        T: row("half")}
RPAIR = {**same({"half", "float"}, (D950, A3, A2, B, P)), T: {"half"}}

MAXV = [(i % 50) for i in range(256)]               # max 49, first at lane 49
MINV = [((i + 10) % 50) + 1 for i in range(256)]    # min 1, first at lane 40
SUMV = [i % 7 for i in range(256)]


def _index_bits(t, slot):
    """The integer in element slot `slot` of t's bytes (a T-sized slot holds the index bit pattern, SPEC-2 8.1)."""
    raw = t.numpy().view(np.uint8)
    width = size(t.dtype.name)
    return int.from_bytes(raw[slot * width:(slot + 1) * width].tobytes(), "little")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
def test_reduce_repeat_sum(device, dtype):
    """SPEC-2 8.1 SUM dtypes (dst <- src), one repeat; old names WholeReduceSum everywhere, RepeatReduceSum not on the
    310B (SPEC-2 1.9, UnsupportedDeviceError)."""
    mark("ReduceRepeat SUM", device, dtype)
    n = lanes(dtype)
    dst_dtype = RR_SUM[device].get(dtype)
    core, (d, s) = core_with(device, (dst_dtype or dtype, 16), (dtype, n))
    put(s, SUMV[:n])
    calls = {"ReduceRepeat": lambda: aj.ReduceRepeat(d, s, n, 1, 1, 1, 8, reduce_type=aj.ReduceType.SUM),
             "WholeReduceSum": lambda: aj.WholeReduceSum(d, s, n, 1, 1, 1, 8),
             "RepeatReduceSum": lambda: aj.RepeatReduceSum(d, s, 1, n, 1, 1, 1, 8)}
    for name, call in calls.items():
        if name == "RepeatReduceSum" and device == B:
            refused(core, aj.UnsupportedDeviceError, call)
        elif dst_dtype is None:
            refused(core, aj.UnsupportedDTypeError, call)
        elif dtype not in REAL_RUN and not RUN_ALL:   # offered: repeat_time 0 is validated and writes nothing (D30)
            nop = {"ReduceRepeat": lambda: aj.ReduceRepeat(d, s, n, 0, 1, 1, 8, reduce_type=aj.ReduceType.SUM),
                   "WholeReduceSum": lambda: aj.WholeReduceSum(d, s, n, 0, 1, 1, 8),
                   "RepeatReduceSum": lambda: aj.RepeatReduceSum(d, s, 0, n, 1, 1, 1, 8)}[name]
            before = core.ub.tobytes()
            with core:
                nop()
            assert core.ub.tobytes() == before
        else:
            put(d, [0] * 16)
            with core:
                call()
            assert_values(d, [sum(SUMV[:n])], 1)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["int16", "uint16", "int32", "uint32"])
def test_reduce_repeat_integer_runs_on_950(dtype, monkeypatch):
    """The numpy-checked runs of the 950's integer ReduceRepeat (slow: their kernel classes)."""
    monkeypatch.setattr(sys.modules[__name__], "RUN_ALL", True)
    test_reduce_repeat_sum(D950, dtype)
    test_reduce_repeat_max_min(D950, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
def test_reduce_repeat_max_min(device, dtype):
    """SPEC-2 8.1 MAX/MIN dtypes, ORDER_VALUE_INDEX (every device), [value, lane index] in T-sized slots; the old
    names WholeReduceMax/Min likewise."""
    mark("ReduceRepeat MAX/MIN", device, dtype)
    n = lanes(dtype)
    core, (d, s) = core_with(device, (dtype, 16), (dtype, n))
    for kind, values, value, index in (("MAX", MAXV, 49, 49), ("MIN", MINV, 1, 40)):
        put(s, values[:n])
        new = (lambda: aj.ReduceRepeat(d, s, n, 1, 1, 1, 8, aj.ReduceOrder.ORDER_VALUE_INDEX,
                                       reduce_type=aj.ReduceType[kind]))
        old = (lambda: getattr(aj, "WholeReduce" + kind.title())(d, s, n, 1, 1, 1, 8,
                                                                    aj.ReduceOrder.ORDER_VALUE_INDEX))
        for call in (new, old):
            if dtype not in RR_MAXMIN[device]:
                refused(core, aj.UnsupportedDTypeError, call)
                continue
            if dtype not in REAL_RUN and not RUN_ALL:   # offered: repeat_time 0 is validated, writes nothing (D30)
                before = core.ub.tobytes()
                with core:
                    aj.ReduceRepeat(d, s, n, 0, 1, 1, 8, reduce_type=aj.ReduceType[kind])
                    getattr(aj, "WholeReduce" + kind.title())(d, s, n, 0, 1, 1, 8)
                assert core.ub.tobytes() == before
                continue
            put(d, [0] * 16)
            with core:
                call()
            assert_values(d, [value], 1)
            assert _index_bits(d, 1) == index


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("order", ["ORDER_VALUE_INDEX", "ORDER_INDEX_VALUE", "ORDER_ONLY_VALUE", "ORDER_ONLY_INDEX"])
def test_reduce_repeat_orders(device, order):
    """SPEC-2 8.1 orders per device and output layouts; D50: an unsupported order is a ParameterError."""
    mark("ReduceRepeat order " + order, device, "half")
    core, (d, s) = core_with(device, ("half", 16), ("half", 128))
    put(s, MAXV[:128])

    def call():
        aj.ReduceRepeat(d, s, 128, 1, 1, 1, 8, aj.ReduceOrder[order], reduce_type=aj.ReduceType.MAX)
    if order not in ORDERS[device]:
        refused(core, aj.ParameterError, call)
        return
    put(d, [0] * 16)
    with core:
        call()
    raw = d.numpy().view(np.uint16)
    if order == "ORDER_VALUE_INDEX":
        assert (raw[0], raw[1]) == (arr("half", [49]).view(np.uint16)[0], 49)
    elif order == "ORDER_INDEX_VALUE":
        assert (raw[0], raw[1]) == (49, arr("half", [49]).view(np.uint16)[0])
    elif order == "ORDER_ONLY_VALUE":
        assert raw[0] == arr("half", [49]).view(np.uint16)[0] and raw[1] == 0
    else:
        assert int(d.numpy().view(np.uint32)[0]) == 49 and raw[2] == 0


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
def test_reduce_data_block(device, dtype):
    """SPEC-2 8.2: half, float (910 half); one repeat gives 8 block results; old names BlockReduce* everywhere."""
    mark("ReduceDataBlock", device, dtype)
    n = lanes(dtype)
    per = n // 8
    core, (d, s) = core_with(device, (dtype, 16), (dtype, n))
    put(s, MAXV[:n])
    blocks = [MAXV[b * per:(b + 1) * per] for b in range(8)]
    for kind, fn in (("SUM", sum), ("MAX", max), ("MIN", min)):
        new = (lambda: aj.ReduceDataBlock(d, s, n, 1, 1, 1, 8, reduce_type=aj.ReduceType[kind]))
        old = (lambda: getattr(aj, "BlockReduce" + kind.title())(d, s, 1, n, 1, 1, 8))
        for call in (new, old):
            if dtype not in RDB[device]:
                refused(core, aj.UnsupportedDTypeError, call)
                continue
            put(d, [0] * 16)
            with core:
                call()
            assert_values(d, [fn(b) for b in blocks], 8)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
def test_reduce_max_min_forms(device, dtype):
    """SPEC-2 8.3: dtypes per device (64-bit count form only on the 950), dst = [value, index]."""
    mark("ReduceMax/ReduceMin", device, dtype)
    n = lanes(dtype)
    hd, count_only = RMM[device]
    offered = dtype in hd or dtype in count_only
    tmp_n = 512
    if offered:
        tmp_n = max(tmp_n, aj.GetReduceMaxMinTmpSize(device, dtype, count=n, cal_index=True))
    core, (d, s, tmp) = core_with(device, (dtype, 16), (dtype, n), (dtype, tmp_n))
    for api, values, pick in (("ReduceMax", MAXV, max), ("ReduceMin", MINV, min)):
        value = pick(values[:n])
        index = values.index(value)
        put(s, values[:n])
        count = (lambda: getattr(aj, api)(d, s, tmp, n, True))
        high = (lambda: getattr(aj, api)(d, s, tmp, n, 1, 8, True))
        if not offered:
            refused(core, aj.UnsupportedDTypeError, count)
            refused(core, aj.UnsupportedDTypeError, high)
            continue
        if dtype in count_only:
            refused(core, aj.UnsupportedDTypeError, high)
        if dtype not in REAL_RUN and not RUN_ALL:
            if dtype in hd:   # offered: repeat_time 0 is validated and writes nothing (D30); runs: slow test below
                before = core.ub.tobytes()
                with core:
                    getattr(aj, api)(d, s, tmp, n, 0, 8, True)
                assert core.ub.tobytes() == before
            continue   # count-only 64-bit: no NOP shape (count 0 is refused, D30); run by the slow test below
        forms = (count, high) if dtype in hd else (count,)
        for call in forms:
            put(d, [0] * 16)
            with core:
                call()
            assert_values(d, [value], 1)
            raw = d.numpy().view(np.uint8)[size(dtype):]
            width = 4 if dtype in ("int64", "uint64") else size(dtype)   # 950 64-bit: uint32 + 4 zero bytes
            assert int.from_bytes(raw[:width].tobytes(), "little") == index


@pytest.mark.slow
@pytest.mark.parametrize("dtype", sorted(set(ALL) - REAL_RUN))
def test_reduce_integer_runs_on_950(dtype, monkeypatch):
    """The numpy-checked runs of the 950's integer ReduceMax/ReduceMin and ReduceSum (slow: their kernel classes)."""
    monkeypatch.setattr(sys.modules[__name__], "RUN_ALL", True)
    test_reduce_max_min_forms(D950, dtype)
    test_reduce_sum_and_pair(D950, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
def test_reduce_sum_and_pair(device, dtype):
    """SPEC 4.5 / 8.1 (ReduceSum: 950 int64/uint64 through the count API only) and SPEC 6 / 8.1 (ReducePairElem)."""
    mark("ReduceSum", device, dtype)
    mark("ReducePairElem", device, dtype)
    n = lanes(dtype)
    core, (d, s, tmp) = core_with(device, (dtype, 64), (dtype, n), (dtype, 256))
    put(s, SUMV[:n])
    hd, count_only = RSUM[device]
    count = (lambda: aj.ReduceSum(d, s, tmp, n))
    high = (lambda: aj.ReduceSum(d, s, tmp, n, 1, 8))
    if (dtype in hd or dtype in count_only) and dtype not in REAL_RUN and not RUN_ALL:
        if dtype in count_only:   # the 950's integer sums run in test_reduce_integer_runs_on_950 (slow)
            refused(core, aj.UnsupportedDTypeError, high)
    elif dtype in hd or dtype in count_only:
        for call in (count, high) if dtype in hd else (count,):
            put(d, [0] * 64)
            with core:
                call()
            assert_values(d, [sum(SUMV[:n])], 1)
        if dtype in count_only:
            refused(core, aj.UnsupportedDTypeError, high)
    else:
        refused(core, aj.UnsupportedDTypeError, count)
        refused(core, aj.UnsupportedDTypeError, high)
    pair = (lambda: aj.ReducePairElem(d, s, n, 1, 1, 1, 8))
    if dtype in RPAIR[device]:
        put(d, [0] * 64)
        with core:
            pair()
        assert_values(d, [SUMV[2 * p] + SUMV[2 * p + 1] for p in range(n // 2)], n // 2)
    else:
        refused(core, aj.UnsupportedDTypeError, pair)


@pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync,dcache", reason="reads GetReduceRepeatMaxMinSpr right "
                             "after ReduceRepeat with no V_S flag between them")
@pytest.mark.parametrize("device", DEVICES)
def test_get_reduce_repeat_max_min_spr(device):
    """SPEC-2 1.9 / 8.4 / D55: A2/A3 return (value, index), the 310P value, every other device
    UnsupportedDeviceError."""
    mark("GetReduceRepeatMaxMinSpr", device, "half")
    core, (d, s) = core_with(device, ("half", 16), ("half", 128))
    put(s, MAXV[:128])
    with core:
        aj.ReduceRepeat(d, s, 128, 1, 1, 1, 8, reduce_type=aj.ReduceType.MAX)
    if device in (A2, A3):
        with core:
            value, index = aj.GetReduceRepeatMaxMinSpr("half")
        assert float(value) == 49 and int(np.asarray(index).view(np.uint16)) == 49
    elif device == P:
        with core:
            value = aj.GetReduceRepeatMaxMinSpr("half")
        assert float(value) == 49
    else:
        def call():
            aj.GetReduceRepeatMaxMinSpr("half")
        refused(core, aj.UnsupportedDeviceError, call)


# ---------------------------------------------------------------------------------------------------------------
# SPEC-2 9: DataCopyPad / SetPadValue, Gather, GatherMask, Compare, Compares, Select

PAD = {D950: set(ALL), A3: set(ALL), A2: set(ALL), B: set(ALL) - {"int64", "uint64"}}
GATHER = {D950: row("int16 uint16 half bfloat16 int32 uint32 float int64 uint64", "int8 uint8"),
          A3: row("int16 uint16 half bfloat16 int32 uint32 float"),
          A2: row("int16 uint16 half bfloat16 int32 uint32 float"),
          B: row("int8 uint8 int16 uint16 half int32 uint32 float"), P: row("int16 uint16 half int32 uint32 float")}
GATHER_MASK = {D950: set("int8 uint8 int16 uint16 half bfloat16 int32 uint32 float".split()),
               A3: set("int16 uint16 half bfloat16 int32 uint32 float".split()),
               A2: set("int16 uint16 half bfloat16 int32 uint32 float".split()),
               B: set("int16 uint16 half int32 uint32 float".split()),
               P: set("int16 uint16 half int32 uint32 float".split())}
# Compare / Compares: (high-dim dtypes, count-only dtypes, dtypes limited to EQ)
CMP_950 = (frozenset("int16 uint16 half bfloat16 int32 uint32 float".split()),
           frozenset("int8 uint8 int64 uint64".split()), frozenset())
CMP_A = (frozenset({"half", "float", "int32"}), frozenset(), frozenset({"int32"}))
HF = (frozenset({"half", "float"}), frozenset(), frozenset())
COMPARE = {D950: CMP_950, A3: CMP_A, A2: CMP_A, B: HF, P: HF, T: HF}
COMPARES = {D950: CMP_950, A3: CMP_A, A2: CMP_A,
            B: (frozenset("int16 uint16 half int32 uint32 float".split()), frozenset(), frozenset()), P: HF}
SELECT = {D950: row("int16 uint16 half bfloat16 int32 uint32 float", "int8 uint8 int64 uint64"),
          **same(row("half float"))}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
def test_data_copy_pad(device, dtype):
    """SPEC-2 9.1: GM -> UB and UB -> GM on 950/A2/A3 (all types) and the 310B (no 64-bit); 310P/910 not offered."""
    mark("DataCopyPad", device, dtype)
    n = 32 // size(dtype)
    gm_array = arr(dtype, [i % 50 for i in range(2 * n)])
    gm = aj.GlobalTensor(gm_array)
    core, (ub,) = core_with(device, (dtype, n))
    params = aj.DataCopyExtParams(1, 32, 0, 0, 0)
    pad = aj.DataCopyPadExtParams(False, 0, 0, 0)
    cls = None if device in PAD and dtype in PAD[device] else \
        (aj.UnsupportedDTypeError if device in PAD else aj.UnsupportedDeviceError)
    if cls is not None:
        refused(core, cls, lambda: aj.DataCopyPad(ub, gm, params, pad), gm_array)
        put(ub, [1] * n)
        refused(core, cls, lambda: aj.DataCopyPad(gm, ub, params), gm_array)
        return
    with core:
        aj.DataCopyPad(ub, gm, params, pad)
        aj.PipeBarrier(aj.PIPE_ALL)
    assert_values(ub, [i % 50 for i in range(n)])
    gm_out_array = arr(dtype, [0] * (2 * n))
    gm_out = aj.GlobalTensor(gm_out_array)
    with core:
        aj.DataCopyPad(gm_out[n:], ub, params)
        aj.PipeBarrier(aj.PIPE_ALL)
    assert bits(gm_out_array) == bits(arr(dtype, [0] * n + [i % 50 for i in range(n)]))


@pytest.mark.parametrize("device", DEVICES)
def test_set_pad_value(device):
    """SPEC-2 1.9 / 9.1: SetPadValue on 950, A2, A3; UnsupportedDeviceError on 310B, 310P, 910."""
    mark("SetPadValue", device, "half")
    core = aj.Core(device)
    if device in (D950, A3, A2):
        with core:
            aj.SetPadValue(np.float16(3), "half")
        return
    refused(core, aj.UnsupportedDeviceError, lambda: aj.SetPadValue(np.float16(3), "half"))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
def test_gather(device, dtype):
    """SPEC-2 9.2 dtypes (950 8-bit count form only; 910 not offered): dst[k] = src[n-1-k] by byte offsets."""
    mark("Gather", device, dtype)
    n = 64
    core, (d, s, off) = core_with(device, (dtype, n), (dtype, n), ("uint32", n))
    put(s, [i % 100 for i in range(n)])
    off[:] = np.asarray([(n - 1 - k) * size(dtype) for k in range(n)], np.uint32)
    count = (lambda: aj.Gather(d, s, off, 0, n))
    high = (lambda: aj.Gather(d, s, off, 0, min(n, lanes(dtype)), n // min(n, lanes(dtype)), 8))
    if device not in GATHER:
        refused(core, aj.UnsupportedDeviceError, count)
        return
    hd, count_only = GATHER[device]
    if dtype not in hd and dtype not in count_only:
        refused(core, aj.UnsupportedDTypeError, count)
        refused(core, aj.UnsupportedDTypeError, high)
        return
    for call in (count, high) if dtype in hd else (count,):
        put(d, [0] * n)
        with core:
            call()
        assert_values(d, [(n - 1 - k) % 100 for k in range(n)])
    if dtype in count_only:
        refused(core, aj.UnsupportedDTypeError, high)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
def test_gather_mask(device, dtype):
    """SPEC-2 9.3 dtypes; built-in pattern 1 (even lanes) over one repeat of L elements keeps L/2 of them."""
    mark("GatherMask", device, dtype)
    n = lanes(dtype)
    core, (d, s) = core_with(device, (dtype, n), (dtype, n))
    put(s, [i % 100 for i in range(n)])
    call = (lambda: aj.GatherMask(d, s, 1, False, 0, aj.GatherMaskParams(1, 1, 8, 8)))
    if device not in GATHER_MASK:
        refused(core, aj.UnsupportedDeviceError, call)
        return
    if dtype not in GATHER_MASK[device]:
        refused(core, aj.UnsupportedDTypeError, call)
        return
    with core:
        kept = call()
    assert kept == n // 2
    assert_values(d, [i % 100 for i in range(0, n, 2)], n // 2)


def _cmp_bits(flags):
    out = np.zeros((len(flags) + 7) // 8, np.uint8)
    for k, f in enumerate(flags):
        if f:
            out[k // 8] |= 1 << (k % 8)
    return out


@pytest.mark.parametrize("api", ["Compare", "Compares"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
def test_compare_and_compares(api, device, dtype):
    """SPEC-2 9.4: dtypes and modes per device (A2/A3 int32 EQ only; 950 8/64-bit count form only; Compares not on
    the 910); one 256-B block of EQ and LT, bits LSB-first (D44)."""
    mark(api, device, dtype)
    n = lanes(dtype)
    core, (d, s0, s1) = core_with(device, ("uint8", 32), (dtype, n), (dtype, n))
    put(s0, [i % 4 for i in range(n)])
    put(s1, [1] * n)

    def call(mode, form="count"):
        other = s1 if api == "Compare" else 1
        if form == "count":
            return lambda: getattr(aj, api)(d, s0, other, aj.CMPMODE[mode], n)
        params = aj.BinaryRepeatParams() if api == "Compare" else aj.UnaryRepeatParams()
        return lambda: getattr(aj, api)(d, s0, other, aj.CMPMODE[mode], n, 1, params)
    table = COMPARE if api == "Compare" else COMPARES
    if device not in table:
        refused(core, aj.UnsupportedDeviceError, call("EQ"))
        return
    hd, count_only, eq_only = table[device]
    if dtype not in hd and dtype not in count_only:
        refused(core, aj.UnsupportedDTypeError, call("EQ"))
        refused(core, aj.UnsupportedDTypeError, call("EQ", "highdim"))
        return
    forms = ("count", "highdim") if dtype in hd else ("count",)
    for mode, fn in (("EQ", lambda x: x == 1), ("LT", lambda x: x < 1)):
        if dtype in eq_only and mode != "EQ":
            refused(core, aj.UnsupportedDTypeError, call(mode))
            continue
        if dtype not in REAL_RUN and not RUN_ALL:   # offered: count 0 is validated and writes nothing (D30)
            other = s1 if api == "Compare" else 1
            before = core.ub.tobytes()
            with core:
                getattr(aj, api)(d, s0, other, aj.CMPMODE[mode], 0)
            assert core.ub.tobytes() == before
            continue
        for form in forms:
            d[:] = np.zeros(32, np.uint8)
            with core:
                call(mode, form)()
            assert bits(d.numpy()[:n // 8]) == bits(_cmp_bits([fn(i % 4) for i in range(n)]))
    if dtype in count_only:
        refused(core, aj.UnsupportedDTypeError, call("EQ", "highdim"))


@pytest.mark.slow
@pytest.mark.parametrize("api", ["Compare", "Compares"])
@pytest.mark.parametrize("device", (D950, A2, B))
@pytest.mark.parametrize("dtype", sorted(set(ALL) - REAL_RUN))
def test_compare_other_dtypes_run(api, device, dtype, monkeypatch):
    """The numpy-checked runs of Compare/Compares on the integer and bfloat16 types (slow)."""
    monkeypatch.setattr(sys.modules[__name__], "RUN_ALL", True)
    test_compare_and_compares(api, device, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
def test_select(device, dtype):
    """SPEC-2 9.5 dtypes (950 8/64-bit count form only); the 910 takes mode 0 only (D59: modes 1/2
    ParameterError)."""
    mark("Select", device, dtype)
    n = min(64, lanes(dtype))
    core, (d, sel, s0, s1) = core_with(device, (dtype, n), ("uint8", 32), (dtype, n), (dtype, n))
    sel[:] = np.full(32, 0x55, np.uint8)     # even lanes take src0 (bit 1)
    put(s0, [5] * n)
    put(s1, [9] * n)
    expected = [5 if k % 2 == 0 else 9 for k in range(n)]
    modes = {"VSEL_CMPMASK_SPR": s1, "VSEL_TENSOR_TENSOR_MODE": s1, "VSEL_TENSOR_SCALAR_MODE": 9}
    hd, count_only = SELECT[device]
    for mode, other in modes.items():
        count = (lambda: aj.Select(d, sel, s0, other, aj.SELMODE[mode], n))
        high = (lambda: aj.Select(d, sel, s0, other, aj.SELMODE[mode], n, 1, aj.BinaryRepeatParams()))
        if dtype not in hd and dtype not in count_only:
            refused(core, aj.UnsupportedDTypeError, count)
            continue
        if device == T and mode != "VSEL_CMPMASK_SPR":
            refused(core, aj.ParameterError, count)
            continue
        for call in (count, high) if dtype in hd else (count,):
            put(d, [0] * n)
            with core:
                call()
            assert_values(d, expected)
        if dtype in count_only:
            refused(core, aj.UnsupportedDTypeError, high)


# ---------------------------------------------------------------------------------------------------------------
# SPEC-2 10: synchronisation


@pytest.mark.parametrize("device", DEVICES)
def test_synchronisation_availability(device):
    """SPEC-2 1.9 / 10.1 / D62: PipeBarrier and TQueSync everywhere; ISASI SetFlag/WaitFlag not on the 310B
    (UnsupportedDeviceError); event ids 0..7 (910: 0..3)."""
    mark("PipeBarrier/TQueSync", device, "-")
    mark("SetFlag/WaitFlag", device, "-")
    core = aj.Core(device)
    with core:
        aj.PipeBarrier(aj.PIPE_V)
        aj.PipeBarrier(aj.PIPE_ALL)
        sync = aj.TQueSync(aj.PIPE_MTE2, aj.PIPE_V)
        sync.SetFlag(0)
        sync.WaitFlag(0)
    top = 3 if device == T else 7
    if device == B:
        refused(core, aj.UnsupportedDeviceError, lambda: aj.SetFlag(0, event=aj.HardEvent.MTE2_V))
        refused(core, aj.UnsupportedDeviceError, lambda: aj.WaitFlag(0, event=aj.HardEvent.MTE2_V))
    else:
        with core:
            aj.SetFlag(top, event=aj.HardEvent.MTE2_V)
            aj.WaitFlag(top, event=aj.HardEvent.MTE2_V)
        refused(core, aj.ParameterError, lambda: aj.SetFlag(top + 1, event=aj.HardEvent.MTE2_V))
    refused(core, aj.ParameterError, lambda: sync.SetFlag(top + 1))
    refused(core, aj.ParameterError, lambda: aj.PipeBarrier(aj.PIPE_S))


# ---------------------------------------------------------------------------------------------------------------
# SPEC-2 11 / SPEC 7: the Reg API on the 950 only

REG_ADD = set(ALL)                                                      # SPEC-2 11.2 Add, Sub
REG_MUL = set(ALL) - {"int8", "uint8"}                                 # SPEC-2 11.2 Mul
REG_REDUCE_SUM = {"half": "half", "float": "float", "int16": "int32", "uint16": "uint32", "int32": "int32",
                  "uint32": "uint32", "int64": "int64", "uint64": "uint64"}   # SPEC-2 11.4
REG_REDUCE_MAXMIN = {"int16", "uint16", "half", "int32", "uint32", "float", "int64", "uint64"}
# SPEC 7.5 / 8.1 and D25: Reg ReduceDataBlock
REG_RDB_SUM = {"half": "half", "float": "float", "int16": "int32", "int32": "int32", "uint16": "uint32",
               "uint32": "uint32"}
REG_RDB_MAXMIN = {"half", "int16", "uint16", "int32", "uint32", "float"}


def _ones():
    return R.MaskReg((2**64 - 1,) * 4)


def _reg_round_trip(core, dtype, body):
    """Load a tensor of small values, apply body(reg) -> register, store it; returns the stored tensor."""
    t = core.local_tensor(dtype, lanes(dtype))
    put(t, [i % 5 for i in range(t.size)])
    with core:
        r = R.RegTensor(dtype)
        R.LoadAlign(r, t, 0)
        out = body(r)
        R.StoreAlign(t, out, _ones(), 0)
    return t


@pytest.mark.parametrize("dtype", ALL)
def test_reg_arith_dtypes_on_950(dtype):
    """SPEC-2 11.2: Add/Sub every in-scope type, Mul without the 8-bit types (UnsupportedDTypeError)."""
    core = aj.Core(D950)
    for op, table, fn in (("Add", REG_ADD, lambda x: x + x), ("Sub", REG_ADD, lambda x: x - x),
                          ("Mul", REG_MUL, lambda x: x * x)):
        mark("Reg." + op, D950, dtype)
        if dtype in table:
            def body(r, op=op):
                out = R.RegTensor(dtype)
                getattr(R, op)(out, r, r, _ones())
                return out
            t = _reg_round_trip(core, dtype, body)
            assert_values(t, [fn(i % 5) for i in range(t.size)])
        else:
            def bad(op=op):
                r = R.RegTensor(dtype)
                getattr(R, op)(r, r, r, _ones())
            refused(core, aj.UnsupportedDTypeError, bad)


@pytest.mark.parametrize("dtype", ALL)
def test_reg_duplicate_and_reduce_dtypes_on_950(dtype):
    """SPEC-2 11.3 (Duplicate: every in-scope type) and 11.4 (Reduce SUM pairs; MAX/MIN without the 8-bit types
    and bfloat16)."""
    core = aj.Core(D950)
    mark("Reg.Duplicate", D950, dtype)
    t = _reg_round_trip(core, dtype, lambda r: (R.Duplicate(r, 3), r)[1])
    assert_values(t, [3] * t.size)
    mark("Reg.Reduce", D950, dtype)
    for kind in ("SUM", "MAX", "MIN"):
        dst_dtype = REG_REDUCE_SUM.get(dtype) if kind == "SUM" else (dtype if dtype in REG_REDUCE_MAXMIN else None)
        if dst_dtype is None:
            def bad(kind=kind):
                src = R.RegTensor(dtype)
                R.Reduce(R.RegTensor(dtype), src, _ones(), reduce_type=R.ReduceType[kind])
            refused(core, aj.UnsupportedDTypeError, bad)
            continue
        src_t = core.local_tensor(dtype, lanes(dtype))
        values = [i % 5 for i in range(src_t.size)]
        put(src_t, values)
        out_t = core.local_tensor(dst_dtype, lanes(dst_dtype))
        with core:
            src, dst = R.RegTensor(dtype), R.RegTensor(dst_dtype)
            R.LoadAlign(src, src_t, 0)
            R.Reduce(dst, src, _ones(), reduce_type=R.ReduceType[kind])
            R.StoreAlign(out_t, dst, _ones(), 0)
        expected = {"SUM": sum(values), "MAX": max(values), "MIN": min(values)}[kind]
        assert_values(out_t, [expected], 1)


@pytest.mark.parametrize("dtype", ALL)
def test_reg_reduce_data_block_dtypes_on_950(dtype):
    """SPEC 7.5 / 8.1 (+ D25: int16 -> int16 and uint16 -> uint16 SUM accepted): 8 block results in lanes 0..7."""
    core = aj.Core(D950)
    mark("Reg.ReduceDataBlock", D950, dtype)
    sums = dict(REG_RDB_SUM, int16="int32", uint16="uint32")
    for kind in ("SUM", "MAX", "MIN"):
        dst_dtype = sums.get(dtype) if kind == "SUM" else (dtype if dtype in REG_RDB_MAXMIN else None)
        if dst_dtype is None:
            def bad(kind=kind):
                R.ReduceDataBlock(R.RegTensor(dtype), R.RegTensor(dtype), _ones(), reduce_type=R.ReduceType[kind])
            refused(core, aj.UnsupportedDTypeError, bad)
            continue
        src_t = core.local_tensor(dtype, lanes(dtype))
        values = [i % 5 for i in range(src_t.size)]
        put(src_t, values)
        out_t = core.local_tensor(dst_dtype, lanes(dst_dtype))
        with core:
            src, dst = R.RegTensor(dtype), R.RegTensor(dst_dtype)
            R.LoadAlign(src, src_t, 0)
            R.ReduceDataBlock(dst, src, _ones(), reduce_type=R.ReduceType[kind])
            R.StoreAlign(out_t, dst, _ones(), 0)
        per = lanes(dtype) // 8
        fn = {"SUM": sum, "MAX": max, "MIN": min}[kind]
        assert_values(out_t, [fn(values[b * per:(b + 1) * per]) for b in range(8)], 8)
    if dtype in ("int16", "uint16"):   # D25: the same-width SUM is accepted too
        with core:
            R.ReduceDataBlock(R.RegTensor(dtype), R.RegTensor(dtype), _ones(), reduce_type=R.ReduceType.SUM)


# SPEC-2 11.5 in-scope Reg Cast pairs; anything else is refused
REG_CAST = {("int8", "int16"), ("int8", "half"), ("int8", "int32"), ("uint8", "uint16"), ("uint8", "half"),
            ("uint8", "uint32"), ("int16", "uint8"), ("int16", "half"), ("int16", "int32"), ("int16", "uint32"),
            ("int16", "float"), ("uint16", "uint8"), ("uint16", "uint32"), ("half", "int8"), ("half", "uint8"),
            ("half", "int16"), ("half", "bfloat16"), ("half", "int32"), ("half", "float"), ("bfloat16", "half"),
            ("bfloat16", "int32"), ("bfloat16", "float"), ("int32", "uint8"), ("int32", "int16"), ("int32", "float"),
            ("int32", "int64"), ("uint32", "uint8"), ("uint32", "int16"), ("uint32", "uint16"), ("float", "int16"),
            ("float", "half"), ("float", "bfloat16"), ("float", "int32"), ("float", "int64"), ("int64", "int32"),
            ("int64", "float")}


@pytest.mark.parametrize("src", ALL)
def test_reg_cast_pairs_out_of_scope_are_refused(src):
    """SPEC-2 11.5: a (src, dst) pair outside the in-scope list is UnsupportedDTypeError (whatever the trait)."""
    core = aj.Core(D950)
    for dst in ALL:
        if (src, dst) in REG_CAST:
            continue
        mark("Reg.Cast", D950, f"{src}->{dst}")

        def bad(dst=dst):
            R.Cast(R.RegTensor(dst), R.RegTensor(src), _ones(), R.CastTrait())
        refused(core, aj.UnsupportedDTypeError, bad)


def test_reg_cast_in_scope_pair_runs():
    """SPEC-2 11.5 / D65: half -> float (exact widening, layout ZERO) converts the even half lanes."""
    core = aj.Core(D950)
    mark("Reg.Cast", D950, "half->float")
    src_t = core.local_tensor("half", 128)
    put(src_t, [i % 7 for i in range(128)])
    out_t = core.local_tensor("float", 64)
    with core:
        src, dst = R.RegTensor("half"), R.RegTensor("float")
        R.LoadAlign(src, src_t, 0)
        R.Cast(dst, src, _ones(), R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING,
                                              aj.RoundMode.UNKNOWN))
        R.StoreAlign(out_t, dst, _ones(), 0)
    assert_values(out_t, [(2 * j) % 7 for j in range(64)])


REG_CALLS = {
    "RegTensor ops: Add": lambda: R.Add(R.RegTensor("half"), R.RegTensor("half"), R.RegTensor("half"), _ones()),
    "Sub": lambda: R.Sub(R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float"), _ones()),
    "Mul": lambda: R.Mul(R.RegTensor("int32"), R.RegTensor("int32"), R.RegTensor("int32"), _ones()),
    "Duplicate": lambda: R.Duplicate(R.RegTensor("half"), 1),
    "Reduce": lambda: R.Reduce(R.RegTensor("float"), R.RegTensor("float"), _ones()),
    "ReduceDataBlock": lambda: R.ReduceDataBlock(R.RegTensor("half"), R.RegTensor("half"), _ones()),
    "Cast": lambda: R.Cast(R.RegTensor("float"), R.RegTensor("half"), _ones(), R.CastTrait()),
    "UpdateMask": lambda: R.UpdateMask("half", 10),
    "CreateMask": lambda: R.CreateMask("half"),
    "Not": lambda: R.Not(R.MaskReg(), _ones(), _ones()),
}


@pytest.mark.parametrize("device", NON950 + (VC,))
@pytest.mark.parametrize("name", sorted(REG_CALLS))
def test_reg_api_off_the_950(device, name):
    """SPEC-2 1.8 / 1.9 / 11.1: every Reg function refuses a non-950 core with UnsupportedDeviceError."""
    mark("Reg." + name, device, "-")
    core, (t,) = core_with(device, ("half", 128))
    refused(core, aj.UnsupportedDeviceError, REG_CALLS[name])
    refused(core, aj.UnsupportedDeviceError, lambda: R.LoadAlign(R.RegTensor("half"), t, 0))
    refused(core, aj.UnsupportedDeviceError, lambda: R.StoreAlign(t, R.RegTensor("half"), _ones(), 0))


# ---------------------------------------------------------------------------------------------------------------
# SPEC D13: the Vector Core refuses every API; aliases resolve

VC_CALLS = {
    "Add": lambda t: aj.Add(t["h"], t["h2"], t["h3"], 64),
    "Sub": lambda t: aj.Sub(t["h"], t["h2"], t["h3"], 64),
    "Adds": lambda t: aj.Adds(t["h"], t["h2"], 1, 64),
    "Exp": lambda t: aj.Exp(t["h"], t["h2"], 64),
    "Duplicate": lambda t: aj.Duplicate(t["h"], 1, 64),
    "Brcb": lambda t: aj.Brcb(t["h"], t["h2"], 1, (1, 8)),
    "Axpy": lambda t: aj.Axpy(t["h"], t["h2"], 1, 64),
    "Cast": lambda t: aj.Cast(t["f"], t["h2"], aj.RoundMode.CAST_NONE, 64),
    "ReduceSum": lambda t: aj.ReduceSum(t["h"], t["h2"], t["h3"], 64),
    "ReducePairElem": lambda t: aj.ReducePairElem(t["h"], t["h2"], 128, 1, 1, 1, 8),
    "ReduceRepeat": lambda t: aj.ReduceRepeat(t["h"], t["h2"], 128, 1, 1, 1, 8, reduce_type=aj.ReduceType.SUM),
    "ReduceDataBlock": lambda t: aj.ReduceDataBlock(t["h"], t["h2"], 128, 1, 1, 1, 8, reduce_type=aj.ReduceType.SUM),
    "ReduceMax": lambda t: aj.ReduceMax(t["h"], t["h2"], t["h3"], 64),
    "Compare": lambda t: aj.Compare(t["u8"], t["h2"], t["h3"], aj.CMPMODE.EQ, 128),
    "Select": lambda t: aj.Select(t["h"], t["u8"], t["h2"], t["h3"], aj.SELMODE.VSEL_CMPMASK_SPR, 64),
    "Gather": lambda t: aj.Gather(t["h"], t["h2"], t["u32"], 0, 64),
    "GatherMask": lambda t: aj.GatherMask(t["h"], t["h2"], 1, False, 0, aj.GatherMaskParams(1, 1, 8, 8)),
    "DataCopyPad": lambda t: aj.DataCopyPad(t["h"], aj.GlobalTensor(np.zeros(64, np.float16)),
                                            aj.DataCopyExtParams(1, 32, 0, 0, 0), aj.DataCopyPadExtParams()),
}


@pytest.mark.parametrize("name", sorted(VC_CALLS))
def test_vector_core_refuses_every_api(name):
    """SPEC D13 / SPEC-2 0.1, 1.8: the inference Vector Core is refused by every API (UnsupportedDeviceError)."""
    mark(name, VC, "half")
    core = aj.Core(VC)
    try:
        tensors = {"h": core.local_tensor("half", 128), "h2": core.local_tensor("half", 128),
                   "h3": core.local_tensor("half", 128), "f": core.local_tensor("float", 64),
                   "u8": core.local_tensor("uint8", 32), "u32": core.local_tensor("uint32", 64)}
    except aj.UnsupportedDeviceError:
        return   # refusing the tensors already refuses every API
    refused(core, aj.UnsupportedDeviceError, lambda: VC_CALLS[name](tensors))


@pytest.mark.parametrize("alias, name", [
    ("950", D950), ("950PR", D950), ("950DT", D950), ("A3", A3), ("910C", A3), ("A2", A2), ("910B", A2),
    ("310B", B), ("310P", P), ("910", T), (D950, D950), (A2, A2), (T, T)])
def test_device_aliases(alias, name):
    """SPEC D13 and the README device table: aliases resolve to the canonical device names."""
    assert aj.get_device(alias).name == name
    assert aj.Core(alias).device == name


# ---------------------------------------------------------------------------------------------------------------
# SPEC-2 14: out of scope


@pytest.mark.parametrize("name", ["CastDequant", "SetDeqScale", "SetCmpMask", "GetCmpMask", "MulAddRelu",
                                  "AddReluCast", "SubReluCast", "MulCast", "Mull", "BilinearInterpolation",
                                  "SetLoopModePara", "ResetLoopModePara"])
def test_out_of_scope_memory_names_not_offered(name):
    """SPEC-2 14: these are "not offered" (no such public function)."""
    assert not hasattr(aj, name)


@pytest.mark.parametrize("name", ["Compare", "Gather", "GatherB", "Scatter", "AddC", "SubC", "MaskGenWithRegTensor"])
def test_out_of_scope_reg_names_not_offered(name):
    """SPEC-2 14: Reg Compare, Gather/GatherB/Scatter, AddC/SubC, MaskGenWithRegTensor are not offered."""
    assert not hasattr(R, name)


@pytest.mark.parametrize("dtype", ["double", "complex32", "complex64", "bool", "int4b_t"])
def test_d28_types_refused(dtype):
    """SPEC-2 D28: no emulator dtype; UnsupportedDTypeError naming D28 on every device."""
    for device in DEVICES:
        core = aj.Core(device)
        e = refused(core, aj.UnsupportedDTypeError, lambda: core.local_tensor(dtype, 16))
        assert "D28" in str(e)


@pytest.mark.parametrize("device", (D950, A2))
def test_ctrl_bit_50_refused(device):
    """SPEC-2 14: SetCtrlSpr of bit 50 raises ParameterError."""
    core = aj.Core(device)
    refused(core, aj.ParameterError, lambda: aj.SetCtrlSpr(50, 50, 1))


# ---------------------------------------------------------------------------------------------------------------
# the refusal message contract: API, parameter, value, legal range, device


def _contract(e, api, parameter, value, device):
    text = str(e)
    assert e.api is not None and api in text, (api, text)
    assert e.parameter is not None and parameter in text, (parameter, text)
    assert value in text, (value, text)
    assert e.legal is not None and "legal" in text, ("legal range", text)
    assert e.device == device and device in text, (device, text)


def _message_cases():
    """(id, device, builder): builder(core) -> (class, call, api, parameter, value text)."""
    def dtype_ew(core):
        d, a, b = (core.local_tensor("int8", 64) for _ in range(3))
        return aj.UnsupportedDTypeError, lambda: aj.Sub(d, a, b, 64), "Sub", "dtype", "int8"

    def dtype_cast(core):
        d, s = core.local_tensor("uint16", 64), core.local_tensor("half", 64)
        return aj.UnsupportedDTypeError, lambda: aj.Cast(d, s, aj.RoundMode.CAST_RINT, 64), "Cast", "dtype", "half"

    def dtype_reduce(core):
        d, s = core.local_tensor("int32", 16), core.local_tensor("int32", 64)
        return (aj.UnsupportedDTypeError, lambda: aj.ReduceDataBlock(d, s, 64, 1, 1, 1, 8,
                                                                    reduce_type=aj.ReduceType.SUM),
                "ReduceDataBlock", "dtype", "int32")

    def dtype_compare(core):
        d, a, b = core.local_tensor("uint8", 32), core.local_tensor("int16", 128), core.local_tensor("int16", 128)
        return aj.UnsupportedDTypeError, lambda: aj.Compare(d, a, b, aj.CMPMODE.EQ, 128), "Compare", "dtype", "int16"

    def dtype_reg(core):
        return (aj.UnsupportedDTypeError, lambda: R.Mul(R.RegTensor("int8"), R.RegTensor("int8"),
                                                        R.RegTensor("int8"), _ones()), "Mul", "dtype", "int8")

    def device_ew(core):
        d, a = core.local_tensor("half", 64), core.local_tensor("half", 64)
        return aj.UnsupportedDeviceError, lambda: aj.Maxs(d, a, 1, 64), "Maxs", "device", T

    def device_brcb(core):
        d, a = core.local_tensor("half", 128), core.local_tensor("half", 16)
        return aj.UnsupportedDeviceError, lambda: aj.Brcb(d, a, 1, (1, 8)), "Brcb", "device", B

    def device_pad(core):
        ub = core.local_tensor("half", 16)
        gm = aj.GlobalTensor(np.zeros(16, np.float16))
        return (aj.UnsupportedDeviceError,
                lambda: aj.DataCopyPad(ub, gm, aj.DataCopyExtParams(1, 32, 0, 0, 0), aj.DataCopyPadExtParams()),
                "DataCopyPad", "device", P)

    def device_reg(core):
        return aj.UnsupportedDeviceError, lambda: R.Duplicate(R.RegTensor("half"), 1), "Duplicate", "device", A2

    def device_flag(core):
        return (aj.UnsupportedDeviceError, lambda: aj.SetFlag(0, event=aj.HardEvent.MTE2_V), "SetFlag", "device", B)

    def range_repeat(core):
        d, a, b = (core.local_tensor("half", 128 * 256) for _ in range(3))
        return (aj.ParameterError, lambda: aj.Sub(d, a, b, 128, 256, aj.BinaryRepeatParams()), "Sub", "repeat_time",
                "256")

    def range_brcb(core):
        d, a = core.local_tensor("half", 128), core.local_tensor("half", 16)
        return (aj.ParameterError, lambda: aj.Brcb(d, a, 1, aj.BrcbRepeatParams(0, 8)), "Brcb", "dstBlkStride", "0")

    def range_reduce(core):
        d, s = core.local_tensor("half", 16), core.local_tensor("half", 128)
        return (aj.ParameterError, lambda: aj.ReduceRepeat(d, s, 128, 1, 70000, 1, 8, reduce_type=aj.ReduceType.SUM),
                "ReduceRepeat", "dst_rep_stride", "70000")

    def range_pad(core):
        ub = core.local_tensor("half", 16)
        gm = aj.GlobalTensor(np.zeros(16, np.float16))
        return (aj.ParameterError, lambda: aj.DataCopyPad(ub, gm, aj.DataCopyExtParams(4096, 32, 0, 0, 0),
                                                           aj.DataCopyPadExtParams()), "DataCopyPad", "blockCount",
                "4096")

    def range_flag(core):
        return aj.ParameterError, lambda: aj.SetFlag(8, event=aj.HardEvent.MTE2_V), "SetFlag", "event", "8"

    def align_ew(core):
        d, a, b = (core.local_tensor("half", 256) for _ in range(3))
        return (aj.AlignmentError, lambda: aj.Sub(d[1:], a, b, 128, 1, aj.BinaryRepeatParams()), "Sub", "dst", "2")

    def align_reduce(core):
        d, s = core.local_tensor("half", 32), core.local_tensor("half", 128)
        return (aj.AlignmentError, lambda: aj.ReduceDataBlock(d[1:], s, 128, 1, 1, 1, 8,
                                                              reduce_type=aj.ReduceType.SUM),
                "ReduceDataBlock", "dst", "2")

    def bounds_ew(core):
        d, a, b = (core.local_tensor("half", 64) for _ in range(3))
        return aj.OutOfBoundsError, lambda: aj.Sub(d, a, b, 65), "Sub", "count", "65"

    def bounds_cast(core):
        d, s = core.local_tensor("float", 64), core.local_tensor("half", 32)
        return aj.OutOfBoundsError, lambda: aj.Cast(d, s, aj.RoundMode.CAST_NONE, 64), "Cast", "count", "64"

    def overlap_ew(core):
        a = core.local_tensor("half", 512)
        return (aj.OverlapError, lambda: aj.Sub(a[16:], a, a, 128, 2, aj.BinaryRepeatParams()), "Sub", "dst",
                "")

    def overlap_brcb(core):
        a = core.local_tensor("half", 256)
        return aj.OverlapError, lambda: aj.Brcb(a, a, 1, (1, 8)), "Brcb", "dst", ""

    def overlap_cast(core):
        a = core.local_tensor("float", 64)
        return (aj.OverlapError, lambda: aj.Cast(a, a.ReinterpretCast("half"), aj.RoundMode.CAST_NONE, 64),
                "Cast", "dst", "")

    return [("dtype-elementwise", A2, dtype_ew), ("dtype-cast", A2, dtype_cast), ("dtype-reduce", D950, dtype_reduce),
            ("dtype-compare", A2, dtype_compare), ("dtype-reg", D950, dtype_reg), ("device-elementwise", T, device_ew),
            ("device-brcb", B, device_brcb), ("device-datacopypad", P, device_pad), ("device-reg", A2, device_reg),
            ("device-setflag", B, device_flag), ("range-repeat", A2, range_repeat), ("range-brcb", A2, range_brcb),
            ("range-reduce", A2, range_reduce), ("range-datacopypad", A2, range_pad),
            ("range-event", A2, range_flag), ("align-elementwise", A2, align_ew),
            ("align-reduce", A2, align_reduce), ("bounds-elementwise", A2, bounds_ew),
            ("bounds-cast", A2, bounds_cast), ("overlap-elementwise", A2, overlap_ew),
            ("overlap-brcb", A2, overlap_brcb), ("overlap-cast", A2, overlap_cast)]


@pytest.mark.parametrize("device, builder", [pytest.param(d, b, id=i) for i, d, b in _message_cases()])
def test_refusal_message_contract(device, builder):
    """README / SPEC-2 1.8: every refusal names the API, the parameter, the value given, the legal range and the
    device (a representative refusal per family and reason)."""
    core = aj.Core(device)
    with core:
        cls, call, api, parameter, value = builder(core)
    e = refused(core, cls, call)
    _contract(e, api, parameter, value, device)


# ---------------------------------------------------------------------------------------------------------------
# SPEC-2 0.3: aj.FIDELITY against the fidelity table

BE, MO = "BIT-EXACT", "MODELLED"
# (api, device, dtype, config) -> level, transcribed row by row from SPEC-2 0.3
FID_ROWS = []
for _api in ("Sub", "Max", "Min", "Adds", "Abs", "Relu", "Duplicate"):
    for _dev in DEVICES:
        FID_ROWS.append((_api, _dev, "half", None, BE))
for _api in ("Maxs", "Mins"):
    for _dev in (D950, A3, A2, B, P):
        FID_ROWS.append((_api, _dev, "half", None, BE))
for _api in ("And", "Or"):
    for _dev in DEVICES:
        FID_ROWS.append((_api, _dev, "int16", None, BE))
for _dev in (D950, A3, A2, P):
    FID_ROWS.append(("Brcb", _dev, "half", None, BE))
for _api in ("Mul", "Muls"):
    for _dev in DEVICES:
        FID_ROWS.append((_api, _dev, "half", None, BE))
for _api in ("LeakyRelu", "AddRelu", "SubRelu"):
    for _dev in (D950, A3, A2, B, P):
        FID_ROWS.append((_api, _dev, "half", None, BE))
for _dev in NON950:
    FID_ROWS += [("Div", _dev, "half", None, MO), ("Div", _dev, "float", None, MO)]
FID_ROWS += [("Div", D950, "float", aj.DivAlgo.DIFF_COMPENSATION, BE),
             ("Div", D950, "float", aj.DivAlgo.PRECISION_0ULP_FTZ_TRUE, BE),
             ("Div", D950, "float", aj.DivAlgo.PRECISION_0ULP_FTZ_FALSE, BE),
             ("Div", D950, "float", aj.DivAlgo.INTRINSIC, MO), ("Div", D950, "float", None, MO),
             ("Div", D950, "float", aj.DivAlgo.PRECISION_1ULP_FTZ_TRUE, MO),
             ("Div", D950, "float", aj.DivAlgo.PRECISION_1ULP_FTZ_FALSE, MO),
             ("Div", D950, "half", None, MO), ("Div", D950, "int32", None, MO), ("Div", D950, "int64", None, MO)]
for _api in ("Exp", "Ln", "Reciprocal", "Rsqrt"):
    for _dev in DEVICES:
        FID_ROWS += [(_api, _dev, "half", None, MO), (_api, _dev, "float", None, MO)]
for _dev in NON950:
    FID_ROWS += [("Sqrt", _dev, "float", None, MO)]
FID_ROWS += [("Sqrt", D950, "float", aj.SqrtAlgo.FAST_INVERSE, BE),
             ("Sqrt", D950, "float", aj.SqrtAlgo.PRECISION_0ULP_FTZ_FALSE, BE),
             ("Sqrt", D950, "float", None, MO), ("Sqrt", D950, "half", None, MO),
             ("Rsqrt", D950, "float", aj.RsqrtAlgo.FAST_INVERSE, MO)]
for _api in ("MulAddDst", "FusedMulAdd"):
    FID_ROWS.append((_api, D950, "half", None, BE))
    for _dev in (A3, A2, B, P):
        FID_ROWS.append((_api, _dev, "half", None, MO))
FID_ROWS.append(("Axpy", D950, "float", None, BE))
for _dev in NON950:
    FID_ROWS.append(("Axpy", _dev, "float", None, MO))
FID_ROWS += [("MulAddDst", B, "int16", None, BE), ("MulAddDst", D950, "int64", None, BE),
             ("Axpy", D950, "bfloat16", None, BE), ("FusedMulAdd", D950, "bfloat16", None, MO)]
for _dev in DEVICES:
    FID_ROWS += [("Cast", _dev, "half", None, BE), ("Compare", _dev, "half", None, BE),
                 ("Select", _dev, "half", None, BE), ("ReduceRepeat", _dev, "half", None, BE),
                 ("ReduceDataBlock", _dev, "half", None, BE), ("ReduceMax", _dev, "half", None, BE),
                 ("ReduceMin", _dev, "half", None, BE)]
for _dev in (D950, A3, A2, B, P):
    FID_ROWS += [("Compares", _dev, "half", None, BE), ("Gather", _dev, "half", None, BE),
                 ("GatherMask", _dev, "half", None, BE)]
for _dev in (D950, A3, A2, B):
    FID_ROWS.append(("DataCopyPad", _dev, "half", None, BE))
for _dev in (A3, A2, P):
    FID_ROWS.append(("GetReduceRepeatMaxMinSpr", _dev, "half", None, BE))


@pytest.mark.parametrize("api, device, dtype, config, level",
                         [pytest.param(*r, id=f"{r[0]}-{r[1]}-{r[2]}-{getattr(r[3], 'name', r[3])}")
                          for r in FID_ROWS])
def test_fidelity_table(api, device, dtype, config, level):
    """SPEC-2 0.3 / D69: aj.fidelity(api, device, dtype, config) gives the level the fidelity table states."""
    assert (api, device) in aj.FIDELITY, (api, device)
    got = aj.fidelity(api, device, dtype=dtype, config=config)
    assert getattr(got, "value", got) == level


# SPEC-2 0.3: "An API absent on a device has no entry" (SPEC-2 1.9)
FID_ABSENT = [("Maxs", T), ("Mins", T), ("LeakyRelu", T), ("AddRelu", T), ("SubRelu", T), ("MulAddDst", T),
              ("FusedMulAdd", T), ("Gather", T), ("GatherMask", T), ("Compares", T), ("Brcb", B), ("Brcb", T),
              ("DataCopyPad", P), ("DataCopyPad", T), ("GetReduceRepeatMaxMinSpr", D950),
              ("GetReduceRepeatMaxMinSpr", B), ("GetReduceRepeatMaxMinSpr", T)]


@pytest.mark.parametrize("api, device", FID_ABSENT)
def test_fidelity_has_no_entry_for_absent_apis(api, device):
    assert (api, device) not in aj.FIDELITY


@pytest.mark.parametrize("device", NON950)
def test_fidelity_reg_is_950_only(device):
    """SPEC-2 0.3 last rows: the Reg API has entries on the 950 only (BIT-EXACT)."""
    reg_keys = [k for k in aj.FIDELITY if k[1] == device and str(k[0]).startswith("Reg")]
    assert reg_keys == []


def test_fidelity_reg_on_950_bit_exact():
    for api in ("Add", "Sub", "Mul", "Duplicate", "Reduce", "Cast"):
        keys = [k for k in aj.FIDELITY if k[1] == D950 and str(k[0]) in (f"Reg.{api}", f"Reg {api}")]
        assert keys, api
        assert all(aj.FIDELITY[k].default.value == BE for k in keys)


def test_fidelity_mixed_and_integer_rows():
    """SPEC-2 0.3: half inputs with a float dst are BIT-EXACT wherever offered (310B: Axpy only); the 950's
    int64/uint64 multiply-adds are BIT-EXACT; 310B MulAddDst integer rows BIT-EXACT."""
    for dev in (D950, A3, A2, P):
        assert aj.fidelity("MulAddDst", dev, dtype="half->float").value == BE
    for dev in DEVICES:
        assert aj.fidelity("Axpy", dev, dtype="half->float").value == BE
    for api in ("MulAddDst", "FusedMulAdd", "Axpy"):
        for dtype in ("int64", "uint64"):
            assert aj.fidelity(api, D950, dtype=dtype).value == BE, (api, dtype)
    for dtype in ("int16", "uint16", "int32", "uint32"):
        assert aj.fidelity("MulAddDst", B, dtype=dtype).value == BE
    assert aj.fidelity("Axpy", T, dtype="half").value == MO


# ---------------------------------------------------------------------------------------------------------------
# availability corners stated in the SPEC text outside the dtype tables


@pytest.mark.parametrize("device", DEVICES)
def test_compare_operator_form(device):
    """SPEC-2 9.4: the operator form `dst[:] = src0 < src1` is refused on the 310B; elsewhere it compares the
    sources' element count (half, one 256-B block)."""
    mark("Compare operator", device, "half")
    core, (a, b, d) = core_with(device, ("half", 128), ("half", 128), ("uint8", 32))   # sources 256-B aligned
    put(a, [i % 4 for i in range(128)])
    put(b, [1] * 128)

    def call():
        d[:] = a < b
    if device == B:
        refused(core, aj.UnsupportedDeviceError, call)
        return
    with core:
        call()
    assert bits(d.numpy()[:16]) == bits(_cmp_bits([i % 4 < 1 for i in range(128)]))


@pytest.mark.parametrize("device", NON950)
def test_data_copy_pad_compact_is_950_only(device):
    """SPEC-2 9.1: `mode` other than Normal is 950 only (UnsupportedDeviceError elsewhere)."""
    if device not in PAD:
        return
    gm_array = np.zeros(16, np.float16)
    gm = aj.GlobalTensor(gm_array)
    core, (ub,) = core_with(device, ("half", 16))
    refused(core, aj.UnsupportedDeviceError,
            lambda: aj.DataCopyPad(ub, gm, aj.DataCopyExtParams(1, 32, 0, 0, 0), aj.DataCopyPadExtParams(),
                                   mode=aj.PaddingMode.Compact), gm_array)


def test_data_copy_pad_compact_runs_on_950():
    gm = aj.GlobalTensor(arr("half", range(16)))
    core, (ub,) = core_with(D950, ("half", 16))
    with core:
        aj.DataCopyPad(ub, gm, aj.DataCopyExtParams(1, 32, 0, 0, 0), aj.DataCopyPadExtParams(),
                       mode=aj.PaddingMode.Compact)
    assert_values(ub, range(16))


@pytest.mark.parametrize("device", DEVICES)
def test_dst_rep_stride_zero_on_910(device):
    """SPEC-2 8.1 / 8.2 and SPEC 6: dst_rep_stride 0 is refused on the 910 (ReduceRepeat, ReduceDataBlock,
    ReducePairElem) and accepted elsewhere (the last repeat's result remains)."""
    core, (d, s) = core_with(device, ("half", 128), ("half", 256))
    put(s, SUMV[:256])
    calls = {"ReduceRepeat": lambda: aj.ReduceRepeat(d, s, 128, 2, 0, 1, 8, reduce_type=aj.ReduceType.SUM),
             "ReduceDataBlock": lambda: aj.ReduceDataBlock(d, s, 128, 2, 0, 1, 8, reduce_type=aj.ReduceType.SUM),
             "ReducePairElem": lambda: aj.ReducePairElem(d, s, 128, 2, 0, 1, 8)}
    for name, call in calls.items():
        if device == T:
            refused(core, aj.ParameterError, call)
        else:
            with core:
                call()


@pytest.mark.parametrize("device", (D950, A2, B, P))
def test_gather_mask_patterns(device):
    """SPEC-2 9.3: built-in patterns 1..7, the 310P 1..6 only (7: ParameterError); 7 keeps every lane."""
    core, (d, s) = core_with(device, ("half", 128), ("half", 128))
    put(s, [i % 100 for i in range(128)])
    call = (lambda: aj.GatherMask(d, s, 7, False, 0, aj.GatherMaskParams(1, 1, 8, 8)))
    if device == P:
        refused(core, aj.ParameterError, call)
        return
    with core:
        assert call() == 128
    assert_values(d, [i % 100 for i in range(128)])


@pytest.mark.parametrize("device", (D950, A2))
def test_gather_mask_uint8_pattern_is_950_only(device):
    """SPEC-2 9.3: a uint8 user pattern (8-bit T) exists on the 950 only; 8-bit GatherMask itself is 950-only."""
    core, (d, s, pat) = core_with(device, ("uint8", 256), ("uint8", 256), ("uint8", 32))
    put(s, [i % 100 for i in range(256)])
    pat[:] = np.full(32, 0x01, np.uint8)   # lane 8k of each byte
    call = (lambda: aj.GatherMask(d, s, pat, False, 0, aj.GatherMaskParams(1, 1, 8, 8)))
    if device != D950:
        refused(core, aj.UnsupportedDTypeError, call)
        return
    with core:
        assert call() == 32
    assert_values(d, [i % 100 for i in range(0, 256, 8)], 32)


@pytest.mark.parametrize("device", (D950, A2, T))
def test_compare_int8_dst(device):
    """SPEC-2 9.4: Compare's dst is uint8 or int8 (bits)."""
    core, (d, a, b) = core_with(device, ("int8", 32), ("half", 128), ("half", 128))
    put(a, [i % 4 for i in range(128)])
    put(b, [1] * 128)
    with core:
        aj.Compare(d, a, b, aj.CMPMODE.EQ, 128)
    assert bits(d.numpy()[:16]) == bits(_cmp_bits([i % 4 == 1 for i in range(128)]))


@pytest.mark.parametrize("api", ["Sub", "Mul", "Div", "Max", "Min", "And", "Or", "Abs", "Exp", "Duplicate",
                                 "AddRelu", "MulAddDst", "FusedMulAdd", "Axpy", "Cast", "Compare", "Select",
                                 "Gather"])
def test_is_set_mask_on_count_forms_is_type_error(api):
    """SPEC-2 D32: `is_set_mask` exists only on the count forms of Adds, Muls, Maxs, Mins, LeakyRelu; elsewhere it
    is an unknown keyword (TypeError), with nothing written."""
    dtype = "int16" if api in ("And", "Or") else "half"
    core, (d, a, b, u8, u32) = core_with(A2, (dtype, 128), (dtype, 128), (dtype, 128), ("uint8", 32),
                                         ("uint32", 128))
    u32[:] = np.arange(128, dtype=np.uint32) * 2
    calls = {"Abs": lambda: aj.Abs(d, a, 128, is_set_mask=True), "Exp": lambda: aj.Exp(d, a, 128, is_set_mask=True),
             "Duplicate": lambda: aj.Duplicate(d, 1, 128, is_set_mask=True),
             "Axpy": lambda: aj.Axpy(d, a, 1, 128, is_set_mask=True),
             "Cast": lambda: aj.Cast(b.ReinterpretCast("int16"), a, aj.RoundMode.CAST_RINT, 128, is_set_mask=True),
             "Compare": lambda: aj.Compare(u8, a, b, aj.CMPMODE.EQ, 128, is_set_mask=True),
             "Select": lambda: aj.Select(d, u8, a, b, aj.SELMODE.VSEL_CMPMASK_SPR, 128, is_set_mask=True),
             "Gather": lambda: aj.Gather(d, a, u32, 0, 128, is_set_mask=True)}
    call = calls.get(api, lambda: getattr(aj, api)(d, a, b, 128, is_set_mask=True))
    before = snapshot(core)
    with core, pytest.raises(TypeError):
        call()
    assert snapshot(core) == before


@pytest.mark.parametrize("api", ["Adds", "Muls", "Maxs", "Mins", "LeakyRelu"])
def test_is_set_mask_accepted_on_tensor_scalar_count_forms(api):
    """SPEC-2 D32: the five tensor-scalar count forms take is_set_mask."""
    core, (d, a) = core_with(A2, ("half", 128), ("half", 128))
    put(a, [2] * 128)
    with core:
        getattr(aj, api)(d, a, 1, 128, is_set_mask=True)


def test_duplicate_tensor_source_dtype_must_match():
    """SPEC-2 5.1: the 950 tensor-source Duplicate needs src dtype == dst dtype (UnsupportedDTypeError)."""
    core, (d, s) = core_with(D950, ("half", 64), ("float", 64))
    refused(core, aj.UnsupportedDTypeError, lambda: aj.Duplicate(d, s, 64))


def test_reg_cast_none_is_not_a_reg_round_mode():
    """SPEC-2 11.5: CAST_NONE is not a Reg round mode (refused, ParameterError); trait values outside the pair's
    table are ParameterErrors."""
    core = aj.Core(D950)

    def call():
        R.Cast(R.RegTensor("half"), R.RegTensor("float"), _ones(),
               R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_NONE))
    refused(core, aj.ParameterError, call)

    def merging():
        R.Cast(R.RegTensor("float"), R.RegTensor("half"), _ones(),
               R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.MERGING, aj.RoundMode.UNKNOWN))
    refused(core, aj.ParameterError, merging)


@pytest.mark.parametrize("op", ["Sub", "Mul"])
def test_reg_sub_mul_refuse_merging(op):
    """SPEC-2 11.2 / D67: Reg Sub and Mul refuse MERGING (ParameterError); Add accepts it."""
    core = aj.Core(D950)

    def call():
        r = R.RegTensor("half")
        getattr(R, op)(r, r, r, _ones(), mode=R.MaskMergeMode.MERGING)
    refused(core, aj.ParameterError, call)
    with core:
        r = R.RegTensor("half")
        R.Add(r, r, r, _ones(), mode=R.MaskMergeMode.MERGING)


@pytest.mark.parametrize("device", DEVICES)
def test_saturation_switches_per_device(device):
    """SPEC D6 / D21 / D4: SetSaturationFlag exists on A2/A3 only (refused on the 950 and the 310B; the 310P/910
    cannot switch the saturating mode off); SetCtrlSpr bit 48 switches A2/A3/950 only."""
    core = aj.Core(device)
    if device in (A2, A3):
        with core:
            aj.SetSaturationFlag(True)
            aj.SetCtrlSpr(48, 48, 1)
        return
    if device in (D950, B):
        refused(core, aj.UnsupportedDeviceError, lambda: aj.SetSaturationFlag(True))
    if device == D950:
        with core:
            aj.SetCtrlSpr(48, 48, 0)
        return
    e = refused(core, aj.AscendJitError, lambda: aj.SetCtrlSpr(48, 48, 0 if device == B else 1))
    assert device in str(e)


@pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync,dcache", reason="reads GetReduceRepeatMaxMinSpr right "
                             "after ReduceRepeat with no V_S flag between them")
@pytest.mark.parametrize("device", DEVICES)
def test_old_names_follow_new_ones(device):
    """decisions.md "Older names": GetReduceMaxMinCount and CompareScalar have the availability of
    GetReduceRepeatMaxMinSpr and Compares (SPEC-2 1.9); PairReduceSum that of ReducePairElem."""
    core, (d, s, u8) = core_with(device, ("half", 128), ("half", 128), ("uint8", 32))
    put(s, MAXV[:128])
    if device == T:
        refused(core, aj.UnsupportedDeviceError, lambda: aj.CompareScalar(u8, s, 1, aj.CMPMODE.EQ, 128))
    else:
        with core:
            aj.CompareScalar(u8, s, 1, aj.CMPMODE.EQ, 128)
    with core:
        aj.ReduceRepeat(d, s, 128, 1, 1, 1, 8, reduce_type=aj.ReduceType.MAX)
        aj.PairReduceSum(d, s, 1, 128, 1, 1, 8)
    if device in (A2, A3, P):
        with core:
            aj.GetReduceMaxMinCount("half")
    else:
        refused(core, aj.UnsupportedDeviceError, lambda: aj.GetReduceMaxMinCount("half"))


# ---------------------------------------------------------------------------------------------------------------
# a wider refusal sweep: every family x reason, checked for the class, the message contract and that the core's
# whole state survives, also when it is not the reset state (mask register, CTRL, a pending flag, a pad value)


def _t(core, dtype, n):
    return core.local_tensor(dtype, n)


def _gm(dtype, n):
    return aj.GlobalTensor(arr(dtype, [0] * n))


def _half3(core, n=128):
    return [_t(core, "half", n) for _ in range(3)]


SWEEP = {
    # bad dtype (SPEC-2 1.8 row 2)
    "dtype-Sub-int8": (A2, aj.UnsupportedDTypeError, lambda c: (lambda d, a, b: lambda: aj.Sub(d, a, b, 64))(
        *[_t(c, "int8", 64) for _ in range(3)])),
    "dtype-Adds-910-int16": (T, aj.UnsupportedDTypeError, lambda c: (lambda d, a: lambda: aj.Adds(d, a, 1, 64))(
        _t(c, "int16", 64), _t(c, "int16", 64))),
    "dtype-Abs-A2-int16": (A2, aj.UnsupportedDTypeError, lambda c: (lambda d, a: lambda: aj.Abs(d, a, 64))(
        _t(c, "int16", 64), _t(c, "int16", 64))),
    "dtype-Brcb-310P-bf16": (P, aj.UnsupportedDTypeError, lambda c: (lambda d, a: lambda: aj.Brcb(d, a, 1, (1, 8)))(
        _t(c, "bfloat16", 128), _t(c, "bfloat16", 16))),
    "dtype-Cast-pair": (A2, aj.UnsupportedDTypeError, lambda c: (
        lambda d, s: lambda: aj.Cast(d, s, aj.RoundMode.CAST_RINT, 64))(_t(c, "uint16", 64), _t(c, "half", 64))),
    "dtype-Cast-mode": (P, aj.UnsupportedDTypeError, lambda c: (
        lambda d, s: lambda: aj.Cast(d, s, aj.RoundMode.CAST_RINT, 64))(_t(c, "int8", 64), _t(c, "half", 64))),
    "dtype-ReduceRepeat-int32": (A2, aj.UnsupportedDTypeError, lambda c: (
        lambda d, s: lambda: aj.ReduceRepeat(d, s, 64, 1, 1, 1, 8, reduce_type=aj.ReduceType.MAX))(
        _t(c, "int32", 16), _t(c, "int32", 64))),
    "dtype-ReduceMax-int16": (A2, aj.UnsupportedDTypeError, lambda c: (
        lambda d, s, t: lambda: aj.ReduceMax(d, s, t, 128))(_t(c, "int16", 16), _t(c, "int16", 128),
                                                             _t(c, "int16", 256))),
    "dtype-ReduceSum-910-float": (T, aj.UnsupportedDTypeError, lambda c: (
        lambda d, s, t: lambda: aj.ReduceSum(d, s, t, 64))(*[_t(c, "float", 64) for _ in range(3)])),
    "dtype-Compare-int32-LT": (A2, aj.UnsupportedDTypeError, lambda c: (
        lambda d, a, b: lambda: aj.Compare(d, a, b, aj.CMPMODE.LT, 64))(_t(c, "uint8", 32), _t(c, "int32", 64),
                                                                         _t(c, "int32", 64))),
    "dtype-Compares-310P-int16": (P, aj.UnsupportedDTypeError, lambda c: (
        lambda d, a: lambda: aj.Compares(d, a, 1, aj.CMPMODE.EQ, 128))(_t(c, "uint8", 32), _t(c, "int16", 128))),
    "dtype-Select-int16": (A2, aj.UnsupportedDTypeError, lambda c: (
        lambda d, m, a, b: lambda: aj.Select(d, m, a, b, aj.SELMODE.VSEL_CMPMASK_SPR, 64))(
        _t(c, "int16", 64), _t(c, "uint8", 32), _t(c, "int16", 64), _t(c, "int16", 64))),
    "dtype-Gather-310P-bf16": (P, aj.UnsupportedDTypeError, lambda c: (
        lambda d, s, o: lambda: aj.Gather(d, s, o, 0, 64))(_t(c, "bfloat16", 64), _t(c, "bfloat16", 64),
                                                           _t(c, "uint32", 64))),
    "dtype-GatherMask-310B-bf16": (B, aj.UnsupportedDTypeError, lambda c: (
        lambda d, s: lambda: aj.GatherMask(d, s, 1, False, 0, aj.GatherMaskParams(1, 1, 8, 8)))(
        _t(c, "bfloat16", 128), _t(c, "bfloat16", 128))),
    "dtype-DataCopyPad-310B-int64": (B, aj.UnsupportedDTypeError, lambda c: (
        lambda u: lambda: aj.DataCopyPad(u, _gm("int64", 4), aj.DataCopyExtParams(1, 32, 0, 0, 0),
                                         aj.DataCopyPadExtParams()))(_t(c, "int64", 4))),
    "dtype-RegMul-int8": (D950, aj.UnsupportedDTypeError, lambda c: lambda: R.Mul(
        R.RegTensor("int8"), R.RegTensor("int8"), R.RegTensor("int8"), _ones())),
    "dtype-RegReduce-MAX-int8": (D950, aj.UnsupportedDTypeError, lambda c: lambda: R.Reduce(
        R.RegTensor("int8"), R.RegTensor("int8"), _ones(), reduce_type=R.ReduceType.MAX)),
    # device not offering the API (SPEC-2 1.8 row 1)
    "device-Maxs-910": (T, aj.UnsupportedDeviceError, lambda c: (lambda d, a: lambda: aj.Maxs(d, a, 1, 64))(
        _t(c, "half", 64), _t(c, "half", 64))),
    "device-Brcb-310B": (B, aj.UnsupportedDeviceError, lambda c: (lambda d, a: lambda: aj.Brcb(d, a, 1, (1, 8)))(
        _t(c, "half", 128), _t(c, "half", 16))),
    "device-DataCopyPad-310P": (P, aj.UnsupportedDeviceError, lambda c: (
        lambda u: lambda: aj.DataCopyPad(u, _gm("half", 16), aj.DataCopyExtParams(1, 32, 0, 0, 0),
                                         aj.DataCopyPadExtParams()))(_t(c, "half", 16))),
    "device-SetPadValue-310B": (B, aj.UnsupportedDeviceError, lambda c: lambda: aj.SetPadValue(np.float16(1), "half")),
    "device-Gather-910": (T, aj.UnsupportedDeviceError, lambda c: (
        lambda d, s, o: lambda: aj.Gather(d, s, o, 0, 64))(_t(c, "half", 64), _t(c, "half", 64), _t(c, "uint32", 64))),
    "device-GetReduceRepeatMaxMinSpr-950": (D950, aj.UnsupportedDeviceError,
                                            lambda c: lambda: aj.GetReduceRepeatMaxMinSpr("half")),
    "device-RepeatReduceSum-310B": (B, aj.UnsupportedDeviceError, lambda c: (
        lambda d, s: lambda: aj.RepeatReduceSum(d, s, 1, 128, 1, 1, 1, 8))(_t(c, "half", 16), _t(c, "half", 128))),
    "device-SetFlag-310B": (B, aj.UnsupportedDeviceError, lambda c: lambda: aj.SetFlag(0, event=aj.HardEvent.V_S)),
    "device-Reg-A2": (A2, aj.UnsupportedDeviceError, lambda c: lambda: R.Duplicate(R.RegTensor("float"), 1)),
    "device-config-A2": (A2, aj.UnsupportedDeviceError, lambda c: (
        lambda d, a: lambda: aj.Sqrt(d, a, 64, config=aj.SqrtAlgo.FAST_INVERSE))(_t(c, "float", 64),
                                                                                  _t(c, "float", 64))),
    "device-SetSaturationFlag-950": (D950, aj.UnsupportedDeviceError, lambda c: lambda: aj.SetSaturationFlag(True)),
    # parameter out of range or of the wrong form (SPEC-2 1.8 row 3)
    "range-repeat-256": (A2, aj.ParameterError, lambda c: (
        lambda d, a: lambda: aj.Adds(d, a, 1, 128, 256, aj.UnaryRepeatParams(1, 1, 0, 0)))(
        _t(c, "half", 128), _t(c, "half", 128))),
    "range-Brcb-dstBlkStride-0": (A2, aj.ParameterError, lambda c: (
        lambda d, a: lambda: aj.Brcb(d, a, 1, aj.BrcbRepeatParams(0, 8)))(_t(c, "half", 128), _t(c, "half", 16))),
    "range-dup-dstBlkStride-0": (A2, aj.ParameterError, lambda c: (
        lambda d: lambda: aj.Duplicate(d, 1, 128, 1, 0, 8))(_t(c, "half", 128))),
    "range-ReduceRepeat-stride": (A2, aj.ParameterError, lambda c: (
        lambda d, s: lambda: aj.ReduceRepeat(d, s, 128, 1, 1, 70000, 8, reduce_type=aj.ReduceType.SUM))(
        _t(c, "half", 16), _t(c, "half", 128))),
    "range-DataCopyPad-blockCount": (A2, aj.ParameterError, lambda c: (
        lambda u: lambda: aj.DataCopyPad(u, _gm("half", 16), aj.DataCopyExtParams(4096, 32, 0, 0, 0),
                                         aj.DataCopyPadExtParams()))(_t(c, "half", 16))),
    "range-DataCopyPad-blockLen-odd": (A2, aj.ParameterError, lambda c: (
        lambda u: lambda: aj.DataCopyPad(u, _gm("half", 16), aj.DataCopyExtParams(1, 3, 0, 0, 0),
                                         aj.DataCopyPadExtParams()))(_t(c, "half", 16))),
    "range-DataCopyPad-leftPadding": (A2, aj.ParameterError, lambda c: (
        lambda u: lambda: aj.DataCopyPad(u, _gm("half", 64), aj.DataCopyExtParams(1, 32, 0, 0, 0),
                                         aj.DataCopyPadExtParams(True, 17, 0, 0)))(_t(c, "half", 64))),
    "range-event-8": (A2, aj.ParameterError, lambda c: lambda: aj.SetFlag(8, event=aj.HardEvent.V_S)),
    "range-event-4-910": (T, aj.ParameterError, lambda c: lambda: aj.SetFlag(4, event=aj.HardEvent.V_S)),
    "range-PipeBarrier-S": (A2, aj.ParameterError, lambda c: lambda: aj.PipeBarrier(aj.PIPE_S)),
    "range-negative-mask": (A2, aj.ParameterError, lambda c: (
        lambda d, a, b: lambda: aj.Sub(d, a, b, -1, 1, aj.BinaryRepeatParams()))(*_half3(c))),
    "range-mask-0-950": (D950, aj.ParameterError, lambda c: (
        lambda d, a, b: lambda: aj.Mul(d, a, b, 0, 1, aj.BinaryRepeatParams()))(*_half3(c))),
    "range-mask-0-310B-reduce": (B, aj.ParameterError, lambda c: (
        lambda d, s: lambda: aj.ReduceRepeat(d, s, 0, 1, 1, 1, 8, reduce_type=aj.ReduceType.SUM))(
        _t(c, "half", 16), _t(c, "half", 128))),
    "range-bool-scalar": (A2, aj.ParameterError, lambda c: (lambda d, a: lambda: aj.Adds(d, a, True, 64))(
        _t(c, "half", 64), _t(c, "half", 64))),
    "range-int-scalar": (A2, aj.ParameterError, lambda c: (lambda d, a: lambda: aj.Adds(d, a, 40000, 64))(
        _t(c, "int16", 64), _t(c, "int16", 64))),
    "range-ReduceMax-count-0": (A2, aj.ParameterError, lambda c: (
        lambda d, s, t: lambda: aj.ReduceMax(d, s, t, 0))(_t(c, "half", 16), _t(c, "half", 128), _t(c, "half", 256))),
    "range-ReduceMax-tmp": (A2, aj.ParameterError, lambda c: (
        lambda d, s, t: lambda: aj.ReduceMax(d, s, t, 128, 65, 8, True))(
        _t(c, "half", 16), _t(c, "half", 128 * 65), _t(c, "half", 16))),
    "range-order-310B": (B, aj.ParameterError, lambda c: (
        lambda d, s: lambda: aj.ReduceRepeat(d, s, 128, 1, 1, 1, 8, aj.ReduceOrder.ORDER_INDEX_VALUE,
                                             reduce_type=aj.ReduceType.MAX))(_t(c, "half", 16), _t(c, "half", 128))),
    "range-Select-mode-910": (T, aj.ParameterError, lambda c: (
        lambda d, m, a: lambda: aj.Select(d, m, a, 1.0, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 64))(
        _t(c, "half", 64), _t(c, "uint8", 32), _t(c, "half", 64))),
    "range-GatherMask-7-310P": (P, aj.ParameterError, lambda c: (
        lambda d, s: lambda: aj.GatherMask(d, s, 7, False, 0, aj.GatherMaskParams(1, 1, 8, 8)))(
        _t(c, "half", 128), _t(c, "half", 128))),
    "range-GatherMask-8": (A2, aj.ParameterError, lambda c: (
        lambda d, s: lambda: aj.GatherMask(d, s, 8, False, 0, aj.GatherMaskParams(1, 1, 8, 8)))(
        _t(c, "half", 128), _t(c, "half", 128))),
    "range-Compare-partial-block": (A2, aj.ParameterError, lambda c: (
        lambda d, a, b: lambda: aj.Compare(d, a, b, aj.CMPMODE.EQ, 100))(_t(c, "uint8", 32), _t(c, "half", 128),
                                                                          _t(c, "half", 128))),
    "range-Cast-mode-bool": (A2, aj.ParameterError, lambda c: (
        lambda d, s: lambda: aj.Cast(d, s, True, 64))(_t(c, "float", 64), _t(c, "half", 64))),
    "range-910-dstRepStride-0": (T, aj.ParameterError, lambda c: (
        lambda d, s: lambda: aj.ReducePairElem(d, s, 128, 2, 0, 1, 8))(_t(c, "half", 64), _t(c, "half", 256))),
    "range-DivConfig-half-0ulp": (D950, aj.ParameterError, lambda c: (
        lambda d, a, b: lambda: aj.Div(d, a, b, 64, config=aj.DivAlgo.DIFF_COMPENSATION))(*_half3(c, 64))),
    "range-ctrl-bit-50": (A2, aj.ParameterError, lambda c: lambda: aj.SetCtrlSpr(50, 50, 1)),
    # misaligned (SPEC-2 1.8 row 4)
    "align-Sub-dst": (A2, aj.AlignmentError, lambda c: (
        lambda d, a, b: lambda: aj.Sub(d[1:], a, b, 64))(*_half3(c))),
    "align-ReduceDataBlock-dst": (A2, aj.AlignmentError, lambda c: (
        lambda d, s: lambda: aj.ReduceDataBlock(d[1:], s, 128, 1, 1, 1, 8, reduce_type=aj.ReduceType.SUM))(
        _t(c, "half", 32), _t(c, "half", 128))),
    "align-DataCopyPad-ub": (A2, aj.AlignmentError, lambda c: (
        lambda u: lambda: aj.DataCopyPad(u[1:], _gm("half", 16), aj.DataCopyExtParams(1, 32, 0, 0, 0),
                                         aj.DataCopyPadExtParams()))(_t(c, "half", 64))),
    "align-Gather-offset": (A2, aj.AlignmentError, lambda c: (
        lambda d, s, o: (o.__setitem__(slice(None), np.full(64, 1, np.uint32)),
                         lambda: aj.Gather(d, s, o, 0, 64))[1])(_t(c, "half", 64), _t(c, "half", 64),
                                                                _t(c, "uint32", 64))),
    "align-Reg-LoadAlign": (D950, aj.AlignmentError, lambda c: (
        lambda t: lambda: R.LoadAlign(R.RegTensor("half"), t, 1))(_t(c, "half", 256))),
    "align-ReduceMax-tmp": (A2, aj.AlignmentError, lambda c: (
        lambda d, s, t: lambda: aj.ReduceMax(d, s, t[1:], 128))(_t(c, "half", 16), _t(c, "half", 128),
                                                                 _t(c, "half", 256))),
    # outside the UB or past a tensor (SPEC-2 1.8 row 5)
    "bounds-Sub-count": (A2, aj.OutOfBoundsError, lambda c: (lambda d, a, b: lambda: aj.Sub(d, a, b, 65))(
        *_half3(c, 64))),
    "bounds-Cast-count": (A2, aj.OutOfBoundsError, lambda c: (
        lambda d, s: lambda: aj.Cast(d, s, aj.RoundMode.CAST_NONE, 64))(_t(c, "float", 64), _t(c, "half", 32))),
    "bounds-highdim-stride": (A2, aj.OutOfBoundsError, lambda c: (
        lambda d, a, b: lambda: aj.Sub(d, a, b, 128, 2, aj.BinaryRepeatParams(1, 1, 1, 8, 8, 16)))(*_half3(c, 256))),
    "bounds-Gather-offset": (A2, aj.OutOfBoundsError, lambda c: (
        lambda d, s, o: (o.__setitem__(slice(None), np.full(64, 128, np.uint32)),
                         lambda: aj.Gather(d, s, o, 0, 64))[1])(_t(c, "half", 64), _t(c, "half", 64),
                                                                _t(c, "uint32", 64))),
    "bounds-Brcb-src": (A2, aj.OutOfBoundsError, lambda c: (lambda d, a: lambda: aj.Brcb(d, a, 2, (1, 8)))(
        _t(c, "half", 256), _t(c, "half", 8))),
    "bounds-DataCopyPad-gm": (A2, aj.OutOfBoundsError, lambda c: (
        lambda u: lambda: aj.DataCopyPad(u, _gm("half", 8), aj.DataCopyExtParams(1, 32, 0, 0, 0),
                                         aj.DataCopyPadExtParams()))(_t(c, "half", 16))),
    "bounds-Reg-LoadAlign-ub": (D950, aj.OutOfBoundsError, lambda c: (
        lambda t: lambda: R.LoadAlign(R.RegTensor("half"), t, 128))(_t(c, "half", 128))),
    # overlap (SPEC-2 1.8 row 6, D34)
    "overlap-Sub-partial": (A2, aj.OverlapError, lambda c: (
        lambda a: lambda: aj.Sub(a[16:], a, a, 128, 2, aj.BinaryRepeatParams()))(_t(c, "half", 512))),
    "overlap-Brcb": (A2, aj.OverlapError, lambda c: (lambda a: lambda: aj.Brcb(a, a, 1, (1, 8)))(_t(c, "half", 256))),
    "overlap-Cast-sizes": (A2, aj.OverlapError, lambda c: (
        lambda a: lambda: aj.Cast(a, a.ReinterpretCast("half"), aj.RoundMode.CAST_NONE, 64))(_t(c, "float", 64))),
    "overlap-Gather": (A2, aj.OverlapError, lambda c: (
        lambda s, o: (o.__setitem__(slice(None), np.arange(64, dtype=np.uint32) * 2),
                      lambda: aj.Gather(s, s, o, 0, 64))[1])(_t(c, "half", 64), _t(c, "uint32", 64))),
    "overlap-ReduceMax-src-tmp": (A2, aj.OverlapError, lambda c: (
        lambda d, s: lambda: aj.ReduceMax(d, s, s, 128))(_t(c, "half", 16), _t(c, "half", 256))),
    "overlap-MulAddDst-mixed": (A2, aj.OverlapError, lambda c: (
        lambda d: lambda: aj.MulAddDst(d, d.ReinterpretCast("half"), d.ReinterpretCast("half"), 64))(
        _t(c, "float", 64))),
    # state (SPEC-2 1.8 row 7)
    "state-undefined-mask": (A2, aj.StateError, lambda c: (
        lambda u, a, b, d: (aj.Compare(u, a, b, aj.CMPMODE.EQ, 128),
                            lambda: aj.Sub(d, a, b, aj.MASK_PLACEHOLDER, 1, aj.BinaryRepeatParams(),
                                           is_set_mask=False))[1])(_t(c, "uint8", 32), *_half3(c))),
    "state-WaitFlag-unset": (A2, aj.StateError, lambda c: lambda: aj.WaitFlag(3, event=aj.HardEvent.MTE2_V)),
    "state-SetPadValue-dtype": (A2, aj.StateError, lambda c: (
        lambda u: (aj.SetPadValue(np.float32(1), "float"),
                   lambda: aj.DataCopyPad(u, _gm("half", 16), aj.DataCopyExtParams(1, 32, 0, 0, 0),
                                          aj.DataCopyPadExtParams()))[1])(_t(c, "half", 16))),
    "state-GetReduceRepeatMaxMinSpr-none": (A2, aj.StateError, lambda c: lambda: aj.GetReduceRepeatMaxMinSpr("half")),
    "state-ReduceMax-counter": (A2, aj.StateError, lambda c: (
        lambda d, s, t: (aj.SetMaskCount(), lambda: aj.ReduceMax(d, s, t, 128, 1, 8))[1])(
        _t(c, "half", 16), _t(c, "half", 128), _t(c, "half", 256))),
    "state-count-form-not-counter": (A2, aj.StateError, lambda c: (
        lambda d, a: lambda: aj.Adds(d, a, 1, 64, is_set_mask=False))(_t(c, "half", 64), _t(c, "half", 64))),
}


def _dirty(core):
    """Leave the core in a non-reset state the refusal must preserve."""
    core.SetVectorMask(0x0F0F, 0xF0F0F0F0)
    if core.spec.name in (A2, A3, D950):
        core.SetCtrlSpr(48, 48, 0)
    if core.spec.name in (A2, A3, D950):
        aj.SetPadValue(np.float16(5), "half")
    if core.spec.name != B:
        aj.SetFlag(1, event=aj.HardEvent.S_V)


@pytest.mark.parametrize("dirty", [False, True], ids=["reset", "dirty"])
@pytest.mark.parametrize("name", sorted(SWEEP))
def test_refusal_sweep(name, dirty):
    """SPEC-2 1.8 classes, the README message contract (API, parameter, value, legal range, device) and SPEC-2 1.5
    "a refused call writes nothing and changes no core state", over a family x reason sweep."""
    device, cls, build = SWEEP[name]
    core = aj.Core(device)
    with core:
        if dirty:
            if name.startswith("state-SetPadValue"):
                return   # the dirty state's own pad value would change which refusal this is
            _dirty(core)
        call = build(core)
    e = refused(core, cls, call)
    text = str(e)
    assert e.api and e.api in text, text
    assert e.parameter is not None and e.parameter in text, ("parameter", text)
    assert e.legal is not None and "legal" in text, ("legal range", text)
    assert e.device == device and device in text, ("device", text)


def test_found_fidelity_vector_core_refusal():
    """SPEC-2 1.8 row 1 (the Vector Core is an UnsupportedDeviceError) and the README message contract (the legal
    range is named): aj.fidelity for the inference Vector Core had raised a ParameterError whose legal range was
    empty ("(legal: )")."""
    with pytest.raises(aj.UnsupportedDeviceError) as info:
        aj.fidelity("Add", VC, "half")
    e = info.value
    assert e.legal and f"(legal: {e.legal})" in str(e) and e.legal.strip()
    assert e.device == VC and VC in str(e)
    for device in DEVICES:   # the supported devices are the legal range
        assert device in e.legal


# ---------------------------------------------------------------------------------------------------------------
# operator forms (SPEC-2 1.1, 2.1: "¹ count form and operator only"; SPEC 3.2) follow the count form's table

OPERATORS = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div", "&": "And", "|": "Or"}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL)
def test_operator_forms(device, dtype):
    """`dst[:] = a op b` runs exactly where the count form does (its dtypes include the count-only ones), with
    count = dst.GetSize(); elsewhere the count form's refusal."""
    core = aj.Core(device)
    for op, api in OPERATORS.items():
        mark(f"operator {op}", device, dtype)
        d, a, b = (core.local_tensor(dtype, 64) for _ in range(3))
        srcs, _, _, expected = _model(api, dtype, 64)
        put(a, srcs[0])
        put(b, srcs[1])
        hd, count_only = EW[api][device]

        def call():
            d[:] = eval(f"a {op} b", {}, {"a": a, "b": b})
        if dtype in hd or dtype in count_only:
            if dtype not in REAL_RUN and not RUN_ALL:
                continue   # offered; its run is test_operator_forms_other_dtypes (slow)
            with core:
                call()
            assert_values(d, expected)
        else:
            refused(core, aj.UnsupportedDTypeError, call)


@pytest.mark.slow
@pytest.mark.parametrize("device", (D950, A2, T))
@pytest.mark.parametrize("dtype", sorted(set(ALL) - REAL_RUN))
def test_operator_forms_other_dtypes(device, dtype, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "RUN_ALL", True)
    test_operator_forms(device, dtype)


# ---------------------------------------------------------------------------------------------------------------
# a refusal does not depend on the call being a NOP (count 0, repeat 0, mask 0, blockCount 0; SPEC-2 D30, 9.1)

NOP_REFUSALS = {
    "Sub int8 count 0": (A2, aj.UnsupportedDTypeError, lambda t: aj.Sub(t("int8"), t("int8"), t("int8"), 0)),
    "Sub int8 repeat 0": (A2, aj.UnsupportedDTypeError, lambda t: aj.Sub(t("int8"), t("int8"), t("int8"), 128, 0,
                                                                         aj.BinaryRepeatParams())),
    "Sub int8 mask 0": (A2, aj.UnsupportedDTypeError, lambda t: aj.Sub(t("int8"), t("int8"), t("int8"), 0, 1,
                                                                       aj.BinaryRepeatParams())),
    "Sub int8 hd repeat 0 on the 950": (D950, aj.UnsupportedDTypeError, lambda t: aj.Sub(
        t("int8"), t("int8"), t("int8"), 128, 0, aj.BinaryRepeatParams())),
    "Maxs 910 count 0": (T, aj.UnsupportedDeviceError, lambda t: aj.Maxs(t("half"), t("half"), 1, 0)),
    "Maxs 910 repeat 0": (T, aj.UnsupportedDeviceError, lambda t: aj.Maxs(t("half"), t("half"), 1, 128, 0,
                                                                          aj.UnaryRepeatParams())),
    "Brcb 310B repeat 0": (B, aj.UnsupportedDeviceError, lambda t: aj.Brcb(t("half"), t("half"), 0, (1, 8))),
    "Brcb 310P bf16 repeat 0": (P, aj.UnsupportedDTypeError, lambda t: aj.Brcb(t("bfloat16"), t("bfloat16"), 0,
                                                                               (1, 8))),
    "Cast pair count 0": (A2, aj.UnsupportedDTypeError, lambda t: aj.Cast(t("uint16"), t("half"),
                                                                          aj.RoundMode.CAST_RINT, 0)),
    "Cast mode count 0": (P, aj.UnsupportedDTypeError, lambda t: aj.Cast(t("int8"), t("half"),
                                                                         aj.RoundMode.CAST_RINT, 0)),
    "Cast D47 count 0": (A2, aj.UnsupportedDTypeError, lambda t: aj.Cast(t("half"), t("int32"),
                                                                         aj.RoundMode.CAST_RINT, 0)),
    "ReduceRepeat int32 repeat 0": (A2, aj.UnsupportedDTypeError, lambda t: aj.ReduceRepeat(
        t("int32"), t("int32"), 64, 0, 1, 1, 8, reduce_type=aj.ReduceType.SUM)),
    "ReduceDataBlock 910 float repeat 0": (T, aj.UnsupportedDTypeError, lambda t: aj.ReduceDataBlock(
        t("float"), t("float"), 64, 0, 1, 1, 8, reduce_type=aj.ReduceType.SUM)),
    "RepeatReduceSum 310B repeat 0": (B, aj.UnsupportedDeviceError, lambda t: aj.RepeatReduceSum(
        t("half"), t("half"), 0, 128, 1, 1, 1, 8)),
    "Compare int16 A2 count 0": (A2, aj.UnsupportedDTypeError, lambda t: aj.Compare(
        t("uint8"), t("int16"), t("int16"), aj.CMPMODE.EQ, 0)),
    "Compares 910 count 0": (T, aj.UnsupportedDeviceError, lambda t: aj.Compares(t("uint8"), t("half"), 1,
                                                                                 aj.CMPMODE.EQ, 0)),
    "Select int16 count 0": (A2, aj.UnsupportedDTypeError, lambda t: aj.Select(
        t("int16"), t("uint8"), t("int16"), t("int16"), aj.SELMODE.VSEL_CMPMASK_SPR, 0)),
    "Select 910 mode 1 count 0": (T, aj.ParameterError, lambda t: aj.Select(
        t("half"), t("uint8"), t("half"), 1.0, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 0)),
    "Gather 910 count 0": (T, aj.UnsupportedDeviceError, lambda t: aj.Gather(t("half"), t("half"), t("uint32"), 0,
                                                                             0)),
    "GatherMask 910 repeatTimes 0": (T, aj.UnsupportedDeviceError, lambda t: aj.GatherMask(
        t("half"), t("half"), 1, False, 0, aj.GatherMaskParams(1, 0, 8, 8))),
    "DataCopyPad 310P blockCount 0": (P, aj.UnsupportedDeviceError, lambda t: aj.DataCopyPad(
        t("half"), _gm("half", 16), aj.DataCopyExtParams(0, 32, 0, 0, 0), aj.DataCopyPadExtParams())),
    "DataCopyPad 310B int64 blockCount 0": (B, aj.UnsupportedDTypeError, lambda t: aj.DataCopyPad(
        t("int64"), _gm("int64", 16), aj.DataCopyExtParams(0, 32, 0, 0, 0), aj.DataCopyPadExtParams())),
    "DataCopyPad UB->GM 310P blockCount 0": (P, aj.UnsupportedDeviceError, lambda t: aj.DataCopyPad(
        _gm("half", 16), t("half"), aj.DataCopyExtParams(0, 32, 0, 0, 0))),
    "DataCopyPad Compact 310B blockLen 0": (B, aj.UnsupportedDeviceError, lambda t: aj.DataCopyPad(
        t("half"), _gm("half", 16), aj.DataCopyExtParams(1, 0, 0, 0, 0), aj.DataCopyPadExtParams(),
        mode=aj.PaddingMode.Compact)),
    "ReduceSum 910 float repeat 0": (T, aj.UnsupportedDTypeError, lambda t: aj.ReduceSum(
        t("float"), t("float"), t("float"), 64, 0, 8)),
    "ReducePairElem 910 float repeat 0": (T, aj.UnsupportedDTypeError, lambda t: aj.ReducePairElem(
        t("float"), t("float"), 64, 0, 1, 1, 8)),
    "Div config A2 count 0": (A2, aj.UnsupportedDeviceError, lambda t: aj.Div(
        t("float"), t("float"), t("float"), 0, config=aj.DivAlgo.PRECISION_0ULP_FTZ_FALSE)),
    "Duplicate tensor A2 count 0": (A2, aj.UnsupportedDeviceError, lambda t: aj.Duplicate(t("half"), t("half"), 0)),
    "And int32 A2 count 0": (A2, aj.UnsupportedDTypeError, lambda t: aj.And(t("int32"), t("int32"), t("int32"), 0)),
    "MulAddDst half->float 310B count 0": (B, aj.UnsupportedDTypeError, lambda t: aj.MulAddDst(
        t("float"), t("half"), t("half"), 0)),
}


@pytest.mark.parametrize("name", sorted(NOP_REFUSALS))
def test_refusals_of_nop_shaped_calls(name):
    """An unsupported device / dtype / mode is refused even when the call would write nothing (D30's NOPs)."""
    device, cls, build = NOP_REFUSALS[name]
    core = aj.Core(device)

    def t(dtype):
        return core.local_tensor(dtype, 256)
    refused(core, cls, lambda: build(t))


# ---------------------------------------------------------------------------------------------------------------
# the Vector Core: state, synchronisation and query functions are refused too (SPEC D13: "rejected by every API")

VC_STATE_CALLS = {
    "PipeBarrier": lambda c: aj.PipeBarrier(aj.PIPE_V),
    "SetFlag": lambda c: aj.SetFlag(0, event=aj.HardEvent.MTE2_V),
    "TQueSync.SetFlag": lambda c: aj.TQueSync(aj.PIPE_MTE2, aj.PIPE_V).SetFlag(0),
    "SetPadValue": lambda c: aj.SetPadValue(np.float16(1), "half"),
    "SetVectorMask": lambda c: aj.SetVectorMask(128),
    "SetMaskCount": lambda c: aj.SetMaskCount(),
    "SetCtrlSpr": lambda c: aj.SetCtrlSpr(48, 48, 1),
    "SetSaturationFlag": lambda c: aj.SetSaturationFlag(True),
    "GetReduceRepeatMaxMinSpr": lambda c: aj.GetReduceRepeatMaxMinSpr("half"),
    "GetReduceRepeatSumSpr": lambda c: c.GetReduceRepeatSumSpr(),
    "GetReduceMaxMinTmpSize": lambda c: aj.GetReduceMaxMinTmpSize(VC, "half", count=128),
    "explain_reduce_order": lambda c: aj.explain_reduce_order(VC, "count", "half", count=300),
    "fidelity": lambda c: aj.fidelity("Add", VC, "half"),
    "DataCopy": lambda c: aj.DataCopy(c.local_tensor("half", 256), aj.GlobalTensor(np.zeros(256, np.float16)), 256),
}


@pytest.mark.parametrize("name", sorted(VC_STATE_CALLS))
def test_vector_core_refuses_state_and_query_apis(name):
    mark(name, VC, "-")
    core = aj.Core(VC)
    e = refused(core, aj.UnsupportedDeviceError, lambda: VC_STATE_CALLS[name](core))
    assert e.legal and VC in str(e)


# ---------------------------------------------------------------------------------------------------------------
# Cast high-dim form: every pair of the device's table (docs/decisions.md "Cast round_mode": the high-dim forms
# accept every pair, 8-bit and 64-bit included), lanes of the wider type per repeat (D33)


@pytest.mark.parametrize("device", DEVICES)
def test_cast_high_dim_every_offered_pair(device):
    core = aj.Core(device)
    for pair, entry in sorted(CAST.items()):
        modes = entry.get(device)
        if modes is None or modes == "D47":
            continue
        src, dst = pair.split()
        mark("Cast high-dim", device, f"{src}->{dst}")
        wide = max(size(src), size(dst))
        n = 256 // wide
        d, s = core.local_tensor(dst, n), core.local_tensor(src, n)
        values = [i % 64 for i in range(n)]
        put(s, values)
        params = aj.UnaryRepeatParams(1, 1, 8 * size(dst) // wide, 8 * size(src) // wide)
        with core:
            aj.Cast(d, s, aj.RoundMode[modes[0]], n, 1, params)
        assert_values(d, values)


# ---------------------------------------------------------------------------------------------------------------
# more Reg functions off the 950 (SPEC-2 11.1: "every one refuses a non-950 core")

REG_MORE = {
    "LoadUnAlignPre": lambda t: R.LoadUnAlignPre(R.UnalignRegForLoad(), t, 0),
    "Load": lambda t: R.Load(R.RegTensor("half"), t, 0),
    "Store": lambda t: R.Store(t, R.RegTensor("half"), 0),
    "StoreUnAlign": lambda t: R.StoreUnAlign(t, R.RegTensor("half"), R.UnalignRegForStore(), 0, 8),
    "MoveMask": lambda t: R.MoveMask("half"),
    "Move": lambda t: R.Move(R.MaskReg(), _ones()),
    "Select": lambda t: R.Select(R.MaskReg(), _ones(), _ones(), _ones()),
    "Pack": lambda t: R.Pack(R.MaskReg(), _ones()),
    "UnPack": lambda t: R.UnPack(R.MaskReg(), _ones()),
    "Interleave": lambda t: R.Interleave(R.MaskReg(), R.MaskReg(), _ones(), _ones(), "half"),
    "DeInterleave": lambda t: R.DeInterleave(R.MaskReg(), R.MaskReg(), _ones(), _ones(), "half"),
    "And": lambda t: R.And(R.MaskReg(), _ones(), _ones(), _ones()),
    "Or": lambda t: R.Or(R.MaskReg(), _ones(), _ones(), _ones()),
    "Xor": lambda t: R.Xor(R.MaskReg(), _ones(), _ones(), _ones()),
    "PairReduceElem": lambda t: R.PairReduceElem(R.RegTensor("half"), R.RegTensor("half"), _ones()),
    "Add carry": lambda t: R.Add(R.MaskReg(), R.RegTensor("int32"), R.RegTensor("int32"), R.RegTensor("int32"),
                                 _ones()),
    "MaskReg LoadAlign": lambda t: R.LoadAlign(R.MaskReg(), t, 0),
    "MaskReg StoreAlign": lambda t: R.StoreAlign(t, R.MaskReg(), 0),
    "DATA_BLOCK_COPY LoadAlign": lambda t: R.LoadAlign(R.RegTensor("half"), t, 0, data_block_stride=1,
                                                       mask=_ones()),
}


@pytest.mark.parametrize("device", (A2, T, VC))
@pytest.mark.parametrize("name", sorted(REG_MORE))
def test_more_reg_functions_off_the_950(device, name):
    mark("Reg." + name, device, "-")
    core, (t,) = core_with(device, ("half", 256))
    refused(core, aj.UnsupportedDeviceError, lambda: REG_MORE[name](t))


@pytest.mark.parametrize("dtype", [pytest.param(d, marks=pytest.mark.ascend_sanitize(
    checks="race,memory,blocks,sync,dcache", reason="the accepted carry forms run on a register no instruction wrote: "
    "the test checks which dtypes are refused")) if d in ("int32", "uint32") else d for d in ALL])
def test_reg_carry_forms_int32_uint32_only(dtype):
    """SPEC-2 11.2: the carry forms of Add and Sub take int32 and uint32 only (UnsupportedDTypeError)."""
    core = aj.Core(D950)
    for op in ("Add", "Sub"):
        mark(f"Reg.{op} carry", D950, dtype)

        def call(op=op):
            r = R.RegTensor(dtype)
            getattr(R, op)(R.MaskReg(), r, r, r, _ones())
        if dtype in ("int32", "uint32"):
            with core:
                call()
        else:
            refused(core, aj.UnsupportedDTypeError, call)


@pytest.mark.parametrize("dtype", ("int64", "uint64"))
def test_reg_b64_distributions(dtype):
    """SPEC-2 11.6: b64 registers load with DIST_NORM only and store with DIST_NORM and DIST_PACK_B64 only;
    DATA_BLOCK_COPY is b8/b16/b32 only."""
    core, (t,) = core_with(D950, (dtype, 64))
    for dist in R.LoadDist:
        if dist.name.startswith("DIST_DINTLV"):
            continue   # dual loads need two registers (another form)
        call = (lambda dist=dist: R.LoadAlign(R.RegTensor(dtype), t, 0, dist=dist))
        if dist.name == "DIST_NORM":
            with core:
                call()
        else:
            refused(core, aj.AscendJitError, call)
    for dist in R.StoreDist:
        if dist.name.startswith("DIST_INTLV"):
            continue
        call = (lambda dist=dist: R.StoreAlign(t, R.RegTensor(dtype), _ones(), 0, dist=dist))
        if dist.name in ("DIST_NORM", "DIST_PACK_B64"):
            with core:
                call()
        else:
            refused(core, aj.AscendJitError, call)
    refused(core, aj.AscendJitError, lambda: R.LoadAlign(R.RegTensor(dtype), t, 0, data_block_stride=1,
                                                         mask=_ones()))


# ---------------------------------------------------------------------------------------------------------------
# mixed operand dtypes (SPEC-2 2.1 "All three tensors have the same dtype"; 3.1; 4.1; 5.2; 6.2; 8)

BINARY_SAME = ("Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or", "AddRelu", "SubRelu", "FusedMulAdd")


@pytest.mark.parametrize("device", (D950, A2))
@pytest.mark.parametrize("api", BINARY_SAME)
def test_mixed_operand_dtypes_refused(device, api):
    """One operand of another dtype than the others is UnsupportedDTypeError (each position, every pair)."""
    core = aj.Core(device)
    pool = {d: [core.local_tensor(d, 64) for _ in range(3)] for d in ALL}
    for x in ALL:
        for y in ALL:
            if x == y:
                continue
            for pos in range(3):
                ts = [pool[y][i] if i == pos else pool[x][i] for i in range(3)]
                refused(core, aj.UnsupportedDTypeError, lambda: getattr(aj, api)(*ts, 64))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("api", ["MulAddDst", "Axpy"])
def test_multiply_add_pairs(device, api):
    """SPEC-2 6.2: MulAddDst/Axpy (src -> dst) pairs are exactly the table's; every other pair refused."""
    core = aj.Core(device)
    pool = {d: [core.local_tensor(d, 64) for _ in range(3)] for d in ALL}
    same_types = (EW[api].get(device, row(""))[0] | EW[api].get(device, row(""))[1])
    for s in ALL:
        for d in ALL:
            dst, a, b = pool[d][0], pool[s][1], pool[s][2]
            call = (lambda: aj.MulAddDst(dst, a, b, 64)) if api == "MulAddDst" else (lambda: aj.Axpy(dst, a, 1, 64))
            ok = (s == d and s in same_types) or (s, d) == ("half", "float") and device in MIXED[api]
            if ok:   # count 0: validated like any call, writes nothing (SPEC-2 D30)
                with core:
                    aj.MulAddDst(dst, a, b, 0) if api == "MulAddDst" else aj.Axpy(dst, a, 1, 0)
            elif device not in EW[api]:
                refused(core, aj.UnsupportedDeviceError, call)
            else:
                refused(core, aj.UnsupportedDTypeError, call)


@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync,dcache", reason="runs the accepted forms on fresh "
                             "tensors: it checks which dst dtypes are refused, not the values")
@pytest.mark.parametrize("device", (D950, A2))
def test_reduction_dst_dtype_pairs(device):
    """SPEC-2 8.1 (SUM dst <- src pairs; MAX/MIN same type), 8.2, 8.3 (dst type = src type), SPEC 4.5 / 6: any
    other dst dtype is UnsupportedDTypeError."""
    core = aj.Core(device)
    dsts = {d: core.local_tensor(d, 64) for d in ALL}
    srcs = {s: (core.local_tensor(s, lanes(s)), core.local_tensor(s, 512)) for s in ALL}
    for s in ALL:
        n = lanes(s)
        for d in ALL:
            dt, (st, tmp) = dsts[d], srcs[s]
            checks = (   # the accepted ones run as NOPs (repeat_time 0, D30) where the form has one
                (RR_SUM[device].get(s) == d,
                 lambda r: aj.ReduceRepeat(dt, st, n, r, 1, 1, 8, reduce_type=aj.ReduceType.SUM)),
                (s == d and s in RR_MAXMIN[device],
                 lambda r: aj.ReduceRepeat(dt, st, n, r, 1, 1, 8, reduce_type=aj.ReduceType.MAX)),
                (s == d and s in RDB[device],
                 lambda r: aj.ReduceDataBlock(dt, st, n, r, 1, 1, 8, reduce_type=aj.ReduceType.MIN)),
                (s == d and (s in RMM[device][0] or s in RMM[device][1]), lambda r: aj.ReduceMax(dt, st, tmp, n)),
                (s == d and (s in RSUM[device][0] or s in RSUM[device][1]), lambda r: aj.ReduceSum(dt, st, tmp, n)),
                (s == d and s in RPAIR[device], lambda r: aj.ReducePairElem(dt, st, n, r, 1, 1, 8)),
            )
            for k, (ok, call) in enumerate(checks):
                if ok:
                    if k in (3, 4) and s not in REAL_RUN:
                        continue   # no NOP form (count 0 is refused, D16/D30); test_reduce_max_min_forms and
                        #            test_reduce_sum_and_pair run them
                    with core:
                        call(0)
                else:
                    refused(core, aj.UnsupportedDTypeError, lambda: call(1))


def test_fidelity_algorithm_rows_on_950():
    """SPEC-2 0.3 / 4.3: Exp, Ln, Reciprocal MODELLED under every algorithm; Rsqrt MODELLED under every algorithm
    (D40); Sqrt BIT-EXACT only for float with FAST_INVERSE / PRECISION_0ULP_FTZ_FALSE; every integer Div MODELLED."""
    for api, algos in (("Exp", aj.ExpAlgo), ("Ln", aj.LnAlgo), ("Reciprocal", aj.ReciprocalAlgo),
                       ("Rsqrt", aj.RsqrtAlgo)):
        for algo in algos:
            for dtype in ("half", "float"):
                try:
                    level = aj.fidelity(api, D950, dtype, algo)
                except aj.ParameterError:
                    continue   # the algorithm does not take the dtype (SPEC-2 4.3: a config unsupported for it)
                assert level.value == MO, (api, algo.name, dtype)
    for algo in aj.SqrtAlgo:
        expected = BE if algo.name in ("FAST_INVERSE", "PRECISION_0ULP_FTZ_FALSE") else MO
        assert aj.fidelity("Sqrt", D950, "float", algo).value == expected, algo.name
    for dtype in ("int16", "uint16", "int32", "uint32", "int64", "uint64"):
        assert aj.fidelity("Div", D950, dtype).value == MO, dtype


@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync,dcache", reason="runs the accepted forms on fresh "
                             "tensors: it checks which operand dtypes are refused, not the values")
@pytest.mark.parametrize("device", (D950, A2))
def test_auxiliary_operand_dtypes(device):
    """SPEC-2 9.4 (Compare dst uint8 or int8, Compares dst uint8), 9.5 (selMask uint8/16/32/64), 9.2 (offsets
    uint32), 9.3 (user pattern uint16 for 16-bit T, uint32 for 32-bit T): any other dtype is UnsupportedDTypeError."""
    core = aj.Core(device)
    a, b, dh = core.local_tensor("half", 128), core.local_tensor("half", 128), core.local_tensor("half", 64)
    f0, f1 = core.local_tensor("float", 64), core.local_tensor("float", 64)
    pool = {d: core.local_tensor(d, 256 // size(d)) for d in ALL}
    for d in ALL:
        pool[d][:] = np.zeros(pool[d].size, npd(d))
    rules = (
        ({"uint8", "int8"}, lambda t: aj.Compare(t, a, b, aj.CMPMODE.EQ, 128)),
        ({"uint8"}, lambda t: aj.Compares(t, a, 1, aj.CMPMODE.EQ, 128)),
        ({"uint8", "uint16", "uint32", "uint64"}, lambda t: aj.Select(dh, t, a, b, aj.SELMODE.VSEL_CMPMASK_SPR, 64)),
        ({"uint32"}, lambda t: aj.Gather(dh, a, t, 0, 16)),
        ({"uint16"}, lambda t: aj.GatherMask(dh, a, t, False, 0, aj.GatherMaskParams(1, 1, 8, 8))),
        ({"uint32"}, lambda t: aj.GatherMask(f0, f1, t, False, 0, aj.GatherMaskParams(1, 1, 8, 8))),
    )
    for legal, call in rules:
        for d in ALL:
            if d in legal:
                with core:
                    call(pool[d])
            else:
                refused(core, aj.UnsupportedDTypeError, lambda: call(pool[d]))


def test_public_surface_names():
    """SPEC-2 1.1 (enums with the C++ member names and the stated values, structs with the C++ fields and defaults)
    and 10.2 (every HardEvent member, EVENT_ID0..7, the PIPE_* exports)."""
    events = ("MTE2_MTE1 MTE1_MTE2 MTE1_M M_MTE1 MTE2_V V_MTE2 MTE3_V V_MTE3 M_V V_M V_V MTE3_MTE1 MTE1_MTE3 MTE1_V "
              "MTE2_M M_MTE2 V_MTE1 M_FIX FIX_M MTE3_MTE2 MTE2_MTE3 S_V V_S S_MTE2 MTE2_S S_MTE3 MTE3_S MTE2_FIX "
              "FIX_MTE2 FIX_S M_S FIX_MTE3 MTE1_FIX FIX_MTE1 FIX_FIX").split()
    assert all(e in aj.HardEvent.__members__ for e in events)
    assert [getattr(aj, f"EVENT_ID{i}") for i in range(8)] == list(range(8))
    for p in "PIPE_S PIPE_V PIPE_M PIPE_MTE1 PIPE_MTE2 PIPE_MTE3 PIPE_FIX PIPE_ALL".split():
        assert getattr(aj, p) == aj.Pipe[p]
    assert {k: int(v) for k, v in aj.ReduceOrder.__members__.items()} == {
        "ORDER_VALUE_INDEX": 0, "ORDER_INDEX_VALUE": 1, "ORDER_ONLY_VALUE": 2, "ORDER_ONLY_INDEX": 3}
    assert {k: int(v) for k, v in aj.ReduceType.__members__.items()} == {"SUM": 0, "MAX": 1, "MIN": 2}
    assert {k: int(v) for k, v in R.ReduceType.__members__.items()} == {"SUM": 0, "MAX": 1, "MIN": 2}
    assert R.RoundMode is aj.RoundMode and int(aj.RoundMode.CAST_NONE) == 0
    assert list(aj.RoundMode.__members__)[:8] == ["CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND",
                                                  "CAST_TRUNC", "CAST_ODD", "CAST_HYBRID"]
    assert {k: int(v) for k, v in aj.SELMODE.__members__.items()} == {
        "VSEL_CMPMASK_SPR": 0, "VSEL_TENSOR_SCALAR_MODE": 1, "VSEL_TENSOR_TENSOR_MODE": 2}
    assert {k: int(v) for k, v in aj.PaddingMode.__members__.items()} == {"Normal": 0, "Compact": 1}
    assert set(aj.CMPMODE.__members__) == {"LT", "GT", "GE", "EQ", "NE", "LE"}
    assert aj.UnaryRepeatParams() == aj.UnaryRepeatParams(1, 1, 8, 8)
    assert aj.BrcbRepeatParams() == aj.BrcbRepeatParams(1, 8)
    assert aj.GatherMaskParams() == aj.GatherMaskParams(1, 0, 8, 8)
    assert aj.DataCopyExtParams() == aj.DataCopyExtParams(1, 0, 0, 0, 0)
    assert aj.DataCopyPadExtParams() == aj.DataCopyPadExtParams(False, 0, 0, 0)
    assert list(R.RegLayout.__members__) == ["UNKNOWN", "ZERO", "ONE", "TWO", "THREE"]
    assert list(R.SatMode.__members__) == ["UNKNOWN", "SAT", "NO_SAT"]
    assert list(R.HighLowPart.__members__) == ["LOWEST", "HIGHEST"]


@pytest.mark.parametrize("device", DEVICES)
def test_mask_zero_per_device(device):
    """SPEC-2 D30 / SPEC D14: mask 0 is refused on the 950 (ParameterError) for every high-dim API; on the 310B it
    is refused for ReduceRepeat, ReduceDataBlock, ReduceMax, ReduceMin and a NOP for the element-wise and
    data-movement APIs; on A2/A3/310P/910 a NOP everywhere (nothing written)."""
    core = aj.Core(device)
    d, a, b = (core.local_tensor("half", 256) for _ in range(3))
    f32, u8, off = core.local_tensor("float", 64), core.local_tensor("uint8", 32), core.local_tensor("uint32", 128)
    put(d, [7] * 256)
    put(a, [1] * 256)
    calls = {
        "Sub": lambda: aj.Sub(d, a, b, 0, 1, aj.BinaryRepeatParams()),
        "Sub bits": lambda: aj.Sub(d, a, b, [0, 0], 1, aj.BinaryRepeatParams()),
        "Adds": lambda: aj.Adds(d, a, 1, 0, 1, aj.UnaryRepeatParams()),
        "Exp": lambda: aj.Exp(d, a, 0, 1, aj.UnaryRepeatParams()),
        "Duplicate": lambda: aj.Duplicate(d, 1, 0, 1, 1, 8),
        "Cast": lambda: aj.Cast(f32, a, aj.RoundMode.CAST_NONE, 0, 1, aj.UnaryRepeatParams(1, 1, 8, 4)),
        "Select": lambda: aj.Select(d, u8, a, b, aj.SELMODE.VSEL_CMPMASK_SPR, 0, 1, aj.BinaryRepeatParams()),
        "ReduceRepeat": lambda: aj.ReduceRepeat(d, a, 0, 1, 1, 1, 8, reduce_type=aj.ReduceType.SUM),
        "ReduceDataBlock": lambda: aj.ReduceDataBlock(d, a, 0, 1, 1, 1, 8, reduce_type=aj.ReduceType.MAX),
        "ReduceMax": lambda: aj.ReduceMax(d, a, b, 0, 1, 8),
        "ReduceMin": lambda: aj.ReduceMin(d, a, b, 0, 1, 8),
    }
    if device != T:
        calls["Gather"] = lambda: aj.Gather(d, a, off, 0, 0, 1, 8)
    for name, call in calls.items():
        refuses = device == D950 or (device == B and name in ("ReduceRepeat", "ReduceDataBlock", "ReduceMax",
                                                                "ReduceMin"))
        if refuses:
            refused(core, aj.ParameterError, call)
            continue
        before = core.ub.tobytes()
        with core:
            call()
        assert core.ub.tobytes() == before, name


def test_fidelity_is_read_only_data():
    """SPEC-2 D69: aj.FIDELITY is a read-only mapping of (api, device) to a FidelityRule with its default level."""
    with pytest.raises(TypeError):
        aj.FIDELITY[("Add", A2)] = None
    assert aj.FIDELITY[("Add", A2)].default is aj.Fidelity.BIT_EXACT
    assert {m.name for m in aj.Fidelity} == {"BIT_EXACT", "MODELLED"}
