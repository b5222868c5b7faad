"""Audit 44: every documented call form of the SPEC-2 instructions, as a kernel developer porting Ascend C writes it.

Checked against docs/SPEC-2.md 1.1 (forms, positional order of the C++ prototypes, snake_case keywords, template
arguments as keywords, masks as int / list / tuple, structs or plain tuples, operator forms, out-parameters as
return values), 1.2-1.8 (ranges, addressing, masks and counter mode, refusal classes, "a refused call writes
nothing"), sections 2-11 (each instruction's Python shapes), D29 (scalars), D32 (is_set_mask on count forms),
/work/shared/DESIGN.md 2 and 6 (`tensor[i]` sub-tensors, errors name API and parameter, UB unchanged) and
docs/decisions.md ("Forms by position or keyword", "Positional and keyword values of one form", "Older names",
"Cast round_mode", "Duplicate's scalar keyword", the scalar rules).

Every accepted form is compared byte for byte against an independent numpy model of the whole UB written from the
SPEC text (SPEC 1.2 addressing, SPEC 2 masks; nothing of ascend_jit's internals is imported). The inputs are small
integers so that every floating result is exact, which keeps the model free of rounding questions: the point is
the coverage of the call shapes, not numerics depth.
Tests named test_found_* failed on the code audited (bdd1357) and pass since session 44 fixed the
defects (docs/decisions.md names each).
"""
import numpy as np
import ml_dtypes
import pytest

import ascend_jit as aj

R = aj.Reg
BF16 = np.dtype(ml_dtypes.bfloat16)
BP = aj.BinaryRepeatParams
UP = aj.UnaryRepeatParams
FULL = 2 ** 64 - 1
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
NAMES = {"half": np.float16, "float": np.float32, "bfloat16": BF16, "int8": np.int8, "uint8": np.uint8,
         "int16": np.int16, "uint16": np.uint16, "int32": np.int32, "uint32": np.uint32, "int64": np.int64,
         "uint64": np.uint64}


def npdt(dt):
    """The numpy dtype of an emulator dtype name ("float" is float32 here, not numpy's float64)."""
    return np.dtype(NAMES[str(dt)]) if str(dt) in NAMES else np.dtype(dt)


# ------------------------------------------------------------------------------------------------------------------
# The independent model: the UB as bytes, SPEC 1.2 lane addresses, SPEC 2 masks
# ------------------------------------------------------------------------------------------------------------------
def tensor(core, dt, vals):
    t = core.local_tensor(dt, len(vals))
    t[:] = np.asarray(vals).astype(npdt(dt))
    return t


def view(ub, t):
    """The model UB's elements of tensor t."""
    dt = npdt(t.dtype)
    return ub[t.addr:t.addr + t.size * dt.itemsize].view(dt)


def active(mask, lanes):
    """SPEC 2.1/2.2: a continuous int mask selects lanes < mask (clamped, D15); a bit mask bit j of word j // 64."""
    if isinstance(mask, (list, tuple)):
        words = [int(w) for w in mask] + [0]
        return [j for j in range(lanes) if (words[j // 64] >> (j % 64)) & 1]
    return list(range(min(int(mask), lanes)))


def lane_index(size, i, j, blk, rep):
    """SPEC 1.2 / SPEC-2 1.3: element index (from the tensor start) of lane j of repeat i."""
    per = 32 // size
    return (i * rep * 32 + (j // per) * blk * 32) // size + j % per


def hd_pairs(mask, repeat, lanes, strides, sizes):
    """[(idx operand 0, idx operand 1, ...)] of every active lane, strides = [(blk, rep)] per operand."""
    out = []
    for i in range(repeat):
        for j in active(mask, lanes):
            out.append(tuple(lane_index(s, i, j, b, r) for s, (b, r) in zip(sizes, strides)))
    return out


def ub_of(core):
    return np.array(core.ub, copy=True)


def refused(core, fn, cls, api, param):
    """DESIGN.md 2 "Errors": an AscendJitError subclass naming API and parameter; the UB byte-identical after."""
    before = bytes(core.ub)
    with pytest.raises(cls) as ei:
        fn()
    assert isinstance(ei.value, aj.AscendJitError)
    msg = str(ei.value)
    assert api in msg and param in msg, msg
    assert bytes(core.ub) == before
    return msg


def rng_ints(seed, n, lo, hi):
    return np.random.default_rng(seed).integers(lo, hi, n)


# ------------------------------------------------------------------------------------------------------------------
# 1. Binary element-wise: Sub, Mul, Div, Max, Min, And, Or, AddRelu, SubRelu, MulAddDst, FusedMulAdd (SPEC-2 2, 6)
# ------------------------------------------------------------------------------------------------------------------
def _relu(x):
    return np.where(x > 0, x, 0.0)


BIN = {  # api -> (dtype, model(dst, x, y) -> new dst values), exact for the inputs below
    "Sub": ("half", lambda d, x, y: x - y),
    "Mul": ("half", lambda d, x, y: x * y),
    "Div": ("half", lambda d, x, y: x / y),
    "Max": ("half", lambda d, x, y: np.maximum(x, y)),
    "Min": ("half", lambda d, x, y: np.minimum(x, y)),
    "And": ("int16", lambda d, x, y: x & y),
    "Or": ("int16", lambda d, x, y: x | y),
    "AddRelu": ("half", lambda d, x, y: _relu(x + y)),
    "SubRelu": ("half", lambda d, x, y: _relu(x - y)),
    "MulAddDst": ("half", lambda d, x, y: x * y + d),     # SPEC-2 6.1: dst = src0 * src1 + dst
    "FusedMulAdd": ("half", lambda d, x, y: x * d + y),   # SPEC-2 6.1: dst = src0 * dst + src1
}
OPS = {"Sub": "__sub__", "Mul": "__mul__", "Div": "__truediv__", "And": "__and__", "Or": "__or__"}


def _bin_inputs(core, api, n=1024, seed=0):
    dt = BIN[api][0]
    if dt == "int16":
        x, y, d = (rng_ints(seed + k, n, -30000, 30000) for k in range(3))
    else:
        x = rng_ints(seed, n, -12, 13)
        y = rng_ints(seed + 1, n, -12, 13) if api != "Div" else np.random.default_rng(seed).choice([1, 2, 4, -8], n)
        d = rng_ints(seed + 2, n, -6, 7)
    return dt, tensor(core, dt, d), tensor(core, dt, x), tensor(core, dt, y)


def _bin_expect(ub, api, d, a, b, pairs):
    dt = npdt(d.dtype)
    dv, av, bv = view(ub, d), view(ub, a).copy(), view(ub, b).copy()
    old = dv.copy()
    wide = (lambda v: v.astype(np.int64)) if dt.kind == "i" else (lambda v: v.astype(np.float64))
    for di, ai, bi in pairs:
        dv[di] = np.asarray(BIN[api][1](wide(old[di]), wide(av[ai]), wide(bv[bi]))).astype(dt)


BIN_FORMS = ["count", "count_kw", "all_kw", "hd_int_struct", "hd_list_tuple", "hd_tuple_np_kw", "hd_kw_only",
             "hd_first_pos_rest_kw", "subtensors_count", "subtensors_hd", "placeholder", "counter_mode"]


@pytest.mark.parametrize("api", sorted(BIN))
@pytest.mark.parametrize("form", BIN_FORMS)
def test_binary_forms(api, form):
    core = aj.Core("atlas-a2")
    dt, d, a, b = _bin_inputs(core, api)
    f = getattr(aj, api)
    ub = ub_of(core)
    L = 128
    s = npdt(dt).itemsize
    strided = (2, 1, 3, 16, 8, 24)
    if form == "count":
        f(d, a, b, 300)
        pairs = [(k, k, k) for k in range(300)]
    elif form == "count_kw":
        f(d, a, b, count=np.int32(300))
        pairs = [(k, k, k) for k in range(300)]
    elif form == "all_kw":
        f(dst=d, src0=a, src1=b, count=257)
        pairs = [(k, k, k) for k in range(257)]
    elif form == "hd_int_struct":
        f(d, a, b, 100, 2, BP(1, 1, 1, 8, 8, 8))
        pairs = hd_pairs(100, 2, L, [(1, 8)] * 3, [s] * 3)
    elif form == "hd_list_tuple":
        m = [0xF0F0F0F0F0F0F0F0, 0x8000000000000001]
        f(d, a, b, m, 2, strided)
        pairs = hd_pairs(m, 2, L, [(2, 16), (1, 8), (3, 24)], [s] * 3)
    elif form == "hd_tuple_np_kw":
        m = (np.uint64(FULL), np.uint64(0x00FF))
        f(d, a, b, m, repeat_time=np.uint8(3), repeat_params=BP(*strided))
        pairs = hd_pairs([FULL, 0xFF], 3, L, [(2, 16), (1, 8), (3, 24)], [s] * 3)
    elif form == "hd_kw_only":
        f(d, a, b, mask=np.int64(77), repeat_time=2, repeat_params=BP(dstRepStride=9, src1BlkStride=2))
        pairs = hd_pairs(77, 2, L, [(1, 9), (1, 8), (2, 8)], [s] * 3)
    elif form == "hd_first_pos_rest_kw":   # decisions.md "Positional and keyword values of one form"
        f(d, a, b, 128, repeat_time=1, repeat_params=strided)
        pairs = hd_pairs(128, 1, L, [(2, 16), (1, 8), (3, 24)], [s] * 3)
    elif form == "subtensors_count":       # DESIGN.md 6: tensor[i] is the sub-tensor at offset i
        f(d[16], a[32], b[48], 200)
        pairs = [(16 + k, 32 + k, 48 + k) for k in range(200)]
    elif form == "subtensors_hd":
        f(d[128], a[256], b[16], 64, 2, BP())
        pairs = [(x + 128, y + 256, z + 16) for x, y, z in hd_pairs(64, 2, L, [(1, 8)] * 3, [s] * 3)]
    elif form == "placeholder":            # DESIGN.md 2: is_set_mask=False, mask aj.MASK_PLACEHOLDER
        with core:
            aj.SetVectorMask(0x3, 0x8000000000000001)
            f(d, a, b, aj.MASK_PLACEHOLDER, 2, BP(), is_set_mask=False)
        pairs = hd_pairs([0x8000000000000001, 0x3], 2, L, [(1, 8)] * 3, [s] * 3)
    elif form == "counter_mode":           # SPEC-2 1.4: is_set_mask=True in counter mode, the mask is the count
        with core:
            aj.SetMaskCount()
            f(d, a, b, 200, 7, BP())
            aj.SetMaskNorm()
            aj.ResetMask()
        pairs = [(k, k, k) for k in range(200)]
    _bin_expect(ub, api, d, a, b, pairs)
    assert np.array_equal(core.ub, ub)


@pytest.mark.parametrize("api", sorted(OPS))
def test_operator_forms_count_is_dst_size(api):
    """SPEC-2 1.1: Sub, Mul, Div, And, Or have the operator form, count = dst.GetSize(); sub-tensor operands."""
    core = aj.Core("atlas-a2")
    dt, d, a, b = _bin_inputs(core, api, seed=5)
    ub = ub_of(core)
    small = d[512]                       # GetSize() = 512
    small[:] = getattr(a[96], OPS[api])(b[16])
    _bin_expect(ub, api, d, a, b, [(512 + k, 96 + k, 16 + k) for k in range(512)])
    assert np.array_equal(core.ub, ub)


@pytest.mark.parametrize("api", sorted(OPS))
def test_operator_with_short_source_refused_unchanged(api):
    """SPEC-2 2.1: shorter sources than dst are an OutOfBoundsError; nothing written."""
    core = aj.Core("atlas-a2")
    dt, d, a, b = _bin_inputs(core, api, seed=6)
    before = bytes(core.ub)
    with pytest.raises(aj.OutOfBoundsError) as ei:
        d[:] = getattr(a[1000], OPS[api])(b)
    assert "src0" in str(ei.value)
    assert bytes(core.ub) == before


@pytest.mark.parametrize("api", sorted(BIN))
def test_binary_refusals_name_api_and_parameter(api):
    core = aj.Core("atlas-a2")
    dt, d, a, b = _bin_inputs(core, api, seed=7)
    f = getattr(aj, api)
    refused(core, lambda: f(d, a, b, 128, 256, BP()), aj.ParameterError, api, "repeat")
    refused(core, lambda: f(d, a, b, -1, 1, BP()), aj.ParameterError, api, "mask")
    refused(core, lambda: f(d, a, b, [1, 2, 3], 1, BP()), aj.ParameterError, api, "mask")
    refused(core, lambda: f(d, a, b, 128, 1, BP(0, 1, 1, 8, 8, 8)), aj.ParameterError, api, "dstBlkStride")
    refused(core, lambda: f(d, a, b, 128, 1, (1, 1, 1, 8, 8, 256)), aj.ParameterError, api, "src1RepStride")
    refused(core, lambda: f(d, a, b, 1025), aj.OutOfBoundsError, api, "count")
    refused(core, lambda: f(d, a, b, 128, 1, BP(), is_set_mask=False), aj.ParameterError, api, "mask")
    refused(core, lambda: f(d, a, b, 128, repeat_time=1), aj.ParameterError, api, "repeat_params")
    with pytest.raises(TypeError):        # D32: no isSetMask template argument on these count prototypes
        f(d, a, b, 128, is_set_mask=True)


def test_div_config_forms():
    """SPEC-2 2.1/D48: config= is a DivConfig or a bare DivAlgo member; 950 only unless the default."""
    core = aj.Core("ascend950")
    x = tensor(core, "float", np.arange(1, 129))
    y = tensor(core, "float", np.full(128, 4.0))
    d = tensor(core, "float", np.zeros(128))
    for cfg in (aj.DivConfig(aj.DivAlgo.DIFF_COMPENSATION), aj.DivConfig(algo=aj.DivAlgo.PRECISION_0ULP_FTZ_TRUE),
                aj.DivAlgo.PRECISION_0ULP_FTZ_FALSE):      # count form (the high-dim form takes config= alike)
        d[:] = np.zeros(128, np.float32)
        aj.Div(d, x, y, 100, config=cfg)
        assert np.array_equal(d.numpy()[:100], (np.arange(1, 101) / 4).astype(np.float32))
    a2 = aj.Core("atlas-a2")
    h = tensor(a2, "half", np.arange(128))
    two = tensor(a2, "half", np.full(128, 2))
    aj.Div(h, h, two, 128, config=aj.DivConfig())       # the default is accepted everywhere (D48)
    assert np.array_equal(h.numpy(), (np.arange(128) / 2).astype(np.float16))
    refused(a2, lambda: aj.Div(h, h, two, 128, config=aj.DivAlgo.PRECISION_1ULP_FTZ_FALSE),
            aj.UnsupportedDeviceError, "Div", "config")


# ------------------------------------------------------------------------------------------------------------------
# 2. Tensor-scalar: Adds, Muls, Maxs, Mins, LeakyRelu, Axpy (SPEC-2 3, 6; D29, D32)
# ------------------------------------------------------------------------------------------------------------------
SCAL = {
    "Adds": lambda d, x, s: x + s,
    "Muls": lambda d, x, s: x * s,
    "Maxs": lambda d, x, s: np.maximum(x, s),
    "Mins": lambda d, x, s: np.minimum(x, s),
    "LeakyRelu": lambda d, x, s: np.where(x >= 0, x, x * s),
    "Axpy": lambda d, x, s: s * x + d,
}
SCAL_FORMS = ["count_pyfloat", "count_pyint", "count_np_same", "count_np_float32", "count_kw_scalar",
              "count_kw_scalar_value", "count_is_set_mask", "hd_struct", "hd_tuple_bit", "hd_kw",
              "subtensors", "counter_placeholder"]


@pytest.mark.parametrize("api", sorted(SCAL))
@pytest.mark.parametrize("form", SCAL_FORMS)
def test_tensor_scalar_forms(api, form):
    core = aj.Core("atlas-a2")
    n = 1024
    x = tensor(core, "half", rng_ints(1, n, -10, 11))
    d = tensor(core, "half", rng_ints(2, n, -5, 6))
    f = getattr(aj, api)
    ub = ub_of(core)
    sval = 0.5
    elems = None
    if form == "count_pyfloat":
        f(d, x, 0.5, 300)
    elif form == "count_pyint":
        sval = 2.0
        f(d, x, 2, 300)
    elif form == "count_np_same":
        f(d, x, np.float16(0.5), 300)
    elif form == "count_np_float32":       # D29: a numpy float of another width rounds once to the operand type
        f(d, x, np.float32(0.5), 300)
    elif form == "count_kw_scalar":        # decisions.md: scalar= besides the C++ name scalar_value=
        f(d, x, scalar=0.5, count=300)
    elif form == "count_kw_scalar_value":
        f(d, x, scalar_value=0.5, count=300)
    elif form == "count_is_set_mask":      # D32: Adds, Muls, Maxs, Mins, LeakyRelu take it; Axpy does not
        if api == "Axpy":
            with pytest.raises(TypeError):
                f(d, x, 0.5, 300, is_set_mask=True)
            assert np.array_equal(core.ub, ub)
            return
        f(d, x, 0.5, 300, is_set_mask=True)
    elif form == "hd_struct":
        f(d, x, 0.5, 100, 3, UP(2, 1, 16, 8))
        elems = hd_pairs(100, 3, 128, [(2, 16), (1, 8)], [2, 2])
    elif form == "hd_tuple_bit":
        m = (0x5555555555555555, np.uint64(0xF00000000000000F))
        f(d, x, 0.5, m, 2, (1, 2, 8, 16))
        elems = hd_pairs([0x5555555555555555, 0xF00000000000000F], 2, 128, [(1, 8), (2, 16)], [2, 2])
    elif form == "hd_kw":
        f(d, x, 0.5, mask=128, repeat_time=2, repeat_params=UP(dstRepStride=16))
        elems = hd_pairs(128, 2, 128, [(1, 16), (1, 8)], [2, 2])
    elif form == "subtensors":
        f(d[64], x[128], 0.5, 64, 2, UP())
        elems = [(a + 64, b + 128) for a, b in hd_pairs(64, 2, 128, [(1, 8), (1, 8)], [2, 2])]
    elif form == "counter_placeholder":    # D32: count form with is_set_mask=False uses the counter register
        with core:
            aj.SetMaskCount()
            aj.SetVectorMask(0, 150)
            if api == "Axpy":
                f(d, x, 0.5, aj.MASK_PLACEHOLDER, 1, UP(), is_set_mask=False)
            else:
                f(d, x, 0.5, 1, is_set_mask=False)
            aj.SetMaskNorm()
            aj.ResetMask()
        elems = [(k, k) for k in range(150)]
    if elems is None:
        elems = [(k, k) for k in range(300)]
    dv, xv = view(ub, d), view(ub, x).copy()
    old = dv.copy().astype(np.float64)
    for di, xi in elems:
        dv[di] = np.float16(SCAL[api](old[di], float(xv[xi]), sval))
    assert np.array_equal(core.ub, ub)


@pytest.mark.parametrize("api", ["Adds", "Muls", "Maxs", "Mins"])
def test_integer_scalars_python_and_numpy(api):
    """D29: Python and numpy integers for an int16 operand are range-checked and used exactly; bool refused."""
    core = aj.Core("atlas-a2")
    x = tensor(core, "int16", rng_ints(3, 256, -100, 100))
    d = tensor(core, "int16", np.zeros(256))
    f = getattr(aj, api)
    model = {"Adds": np.add, "Muls": np.multiply, "Maxs": np.maximum, "Mins": np.minimum}[api]
    for s in (3, np.int64(3), np.int16(3), np.uint8(3)):
        d[:] = np.zeros(256, np.int16)
        f(d, x, s, 256)
        assert np.array_equal(d.numpy(), model(x.numpy().astype(np.int64), 3).astype(np.int16))
    refused(core, lambda: f(d, x, 40000, 256), aj.ParameterError, api, "scalar")
    refused(core, lambda: f(d, x, True, 256), aj.ParameterError, api, "scalar")
    refused(core, lambda: f(d, x, 2.0, 256), aj.ParameterError, api, "scalar")


def test_axpy_half_to_float_forms():
    """SPEC-2 6.1/D33: Axpy(dst float, src half): 64 lanes, each operand with its own strides; count and high-dim."""
    core = aj.Core("atlas-a2")
    x = tensor(core, "half", rng_ints(4, 256, -9, 10))
    d = tensor(core, "float", rng_ints(5, 256, -9, 10))
    ub = ub_of(core)
    aj.Axpy(d, x, np.float16(3), 70)
    aj.Axpy(d[128], x[128], 3.0, 64, 2, (1, 1, 8, 4))
    dv, xv = view(ub, d), view(ub, x).astype(np.float64)
    for k in range(70):
        dv[k] = np.float32(3 * xv[k] + dv[k])
    for di, xi in hd_pairs(64, 2, 64, [(1, 8), (1, 4)], [4, 2]):
        dv[128 + di] = np.float32(3 * xv[128 + xi] + dv[128 + di])
    assert np.array_equal(core.ub, ub)


def test_mul_add_dst_half_to_float_forms():
    """SPEC-2 6.1/D33: MulAddDst(dst float, src half, src half), count and high-dim with srcRepStride 4."""
    core = aj.Core("atlas-a2")
    x = tensor(core, "half", rng_ints(6, 256, -9, 10))
    y = tensor(core, "half", rng_ints(7, 256, -9, 10))
    d = tensor(core, "float", rng_ints(8, 256, -9, 10))
    ub = ub_of(core)
    aj.MulAddDst(d, x, y, count=65)
    aj.MulAddDst(d[128], x[128], y[128], [FULL], 2, BP(1, 1, 1, 8, 4, 4))
    dv, xv, yv = view(ub, d), view(ub, x).astype(np.float64), view(ub, y).astype(np.float64)
    for k in range(65):
        dv[k] = np.float32(xv[k] * yv[k] + dv[k])
    for di, xi, yi in hd_pairs([FULL], 2, 64, [(1, 8), (1, 4), (1, 4)], [4, 2, 2]):
        dv[128 + di] = np.float32(xv[128 + xi] * yv[128 + yi] + dv[128 + di])
    assert np.array_equal(core.ub, ub)


# ------------------------------------------------------------------------------------------------------------------
# 3. Unary: Abs, Relu, Exp, Ln, Sqrt, Rsqrt, Reciprocal (SPEC-2 4); inputs with exact results
# ------------------------------------------------------------------------------------------------------------------
UNARY = {  # api -> (input values, model): exact in half
    "Abs": (np.arange(-64, 64), np.abs),
    "Relu": (np.arange(-64, 64), lambda v: np.where(v > 0, v, 0.0)),
    "Exp": (np.zeros(128), np.exp),
    "Ln": (np.ones(128), np.log),
    "Sqrt": (np.tile([0, 1, 4, 9, 16, 25, 36, 64], 16), np.sqrt),
    "Rsqrt": (np.tile([1, 4, 16, 64, 256, 1024, 4096, 0.25], 16), lambda v: 1 / np.sqrt(v)),
    "Reciprocal": (np.tile([1, 2, 4, 8, -16, 0.5, -0.25, 1024], 16), lambda v: 1 / v),
}


@pytest.mark.parametrize("api", sorted(UNARY))
@pytest.mark.parametrize("form", ["count", "count_kw", "hd_struct", "hd_bit_tuple_kw", "subtensor", "config_none"])
def test_unary_forms(api, form):
    core = aj.Core("atlas-a2")
    vals, model = UNARY[api]
    src = tensor(core, "half", np.concatenate([vals, vals]))
    d = tensor(core, "half", np.full(256, 7))
    f = getattr(aj, api)
    ub = ub_of(core)
    if form == "count":
        f(d, src, 200)
        pairs = [(k, k) for k in range(200)]
    elif form == "count_kw":
        f(dst=d, src=src, count=200)
        pairs = [(k, k) for k in range(200)]
    elif form == "hd_struct":
        f(d, src, 64, 2, UP(1, 1, 8, 8))
        pairs = hd_pairs(64, 2, 128, [(1, 8)] * 2, [2, 2])
    elif form == "hd_bit_tuple_kw":
        f(d, src, [0xFFFF0000FFFF0000, 1], repeat_time=2, repeat_params=(1, 1, 8, 8))
        pairs = hd_pairs([0xFFFF0000FFFF0000, 1], 2, 128, [(1, 8)] * 2, [2, 2])
    elif form == "subtensor":
        f(d[16], src[32], 100)
        pairs = [(16 + k, 32 + k) for k in range(100)]
    else:                                 # config=None is the default spelling on every device (SPEC-2 4.1)
        f(d, src, 128, config=None)
        pairs = [(k, k) for k in range(128)]
    dv, sv = view(ub, d), view(ub, src).astype(np.float64)
    for di, si in pairs:
        dv[di] = np.float16(model(sv[si]))
    assert np.array_equal(core.ub, ub)


def test_unary_config_on_the_950_and_refusal_elsewhere():
    core = aj.Core("ascend950")
    s = tensor(core, "float", np.tile([1.0, 4.0, 16.0, 64.0], 16))
    d = tensor(core, "float", np.zeros(64))
    aj.Sqrt(d, s, 64, config=aj.SqrtConfig(aj.SqrtAlgo.PRECISION_0ULP_FTZ_FALSE))
    assert np.array_equal(d.numpy(), np.sqrt(s.numpy()))
    a2 = aj.Core("atlas-a2")
    h = tensor(a2, "half", np.ones(128))
    refused(a2, lambda: aj.Ln(h, h, 128, config=aj.LnAlgo.PRECISION_1ULP_FTZ_FALSE), aj.UnsupportedDeviceError,
            "Ln", "config")


# ------------------------------------------------------------------------------------------------------------------
# 4. Duplicate and Brcb (SPEC-2 5)
# ------------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("form", ["count", "count_kw_scalar_value", "count_kw_scalar", "hd_int", "hd_list",
                                  "hd_kw", "hd_placeholder", "subtensor"])
def test_duplicate_forms(form):
    core = aj.Core("atlas-a2")
    d = tensor(core, "float", np.full(512, -1))
    ub = ub_of(core)
    L = 64
    if form == "count":
        aj.Duplicate(d, 2.5, 100)
        idx = range(100)
    elif form == "count_kw_scalar_value":
        aj.Duplicate(d, scalar_value=np.float32(2.5), count=100)
        idx = range(100)
    elif form == "count_kw_scalar":
        aj.Duplicate(d, scalar=np.float16(2.5), count=np.int64(100))
        idx = range(100)
    elif form == "hd_int":                # (dst, scalar, mask, repeatTime, dstBlockStride, dstRepeatStride)
        aj.Duplicate(d, 2.5, 20, 3, 2, 16)
        idx = [p[0] for p in hd_pairs(20, 3, L, [(2, 16)], [4])]
    elif form == "hd_list":
        aj.Duplicate(d, 2.5, [0x8000000000000001], 2, 3, 8)
        idx = [p[0] for p in hd_pairs([0x8000000000000001], 2, L, [(3, 8)], [4])]
    elif form == "hd_kw":
        aj.Duplicate(d, 2.5, mask=(np.uint64(0xFF),), repeat_time=2, dst_block_stride=1, dst_repeat_stride=8)
        idx = [p[0] for p in hd_pairs([0xFF], 2, L, [(1, 8)], [4])]
    elif form == "hd_placeholder":
        with core:
            aj.SetVectorMask(0, 0xF0)
            aj.Duplicate(d, 2.5, aj.MASK_PLACEHOLDER, 2, 1, 8, is_set_mask=False)
        idx = [p[0] for p in hd_pairs([0xF0], 2, L, [(1, 8)], [4])]
    else:
        aj.Duplicate(d[8], 2.5, 16, 1, 1, 8)
        idx = [8 + k for k in range(16)]
    dv = view(ub, d)
    for i in idx:
        if i < dv.size:
            dv[i] = 2.5
    assert np.array_equal(core.ub, ub)


def test_duplicate_tensor_source_on_the_950():
    """SPEC-2 5.1: Duplicate(dst, src_tensor, count) broadcasts src[0] (950); src= keyword; a sub-tensor source."""
    core = aj.Core("ascend950")
    s = tensor(core, "int32", np.arange(10, 74))
    d = tensor(core, "int32", np.zeros(64))
    aj.Duplicate(d, s, 40)
    assert np.array_equal(d.numpy(), np.r_[np.full(40, 10), np.zeros(24)].astype(np.int32))
    aj.Duplicate(d, src=s[8], count=64)
    assert np.array_equal(d.numpy(), np.full(64, 18, np.int32))
    a2 = aj.Core("atlas-a2")
    s2 = tensor(a2, "int32", np.arange(64))
    d2 = tensor(a2, "int32", np.zeros(64))
    refused(a2, lambda: aj.Duplicate(d2, s2, 64), aj.UnsupportedDeviceError, "Duplicate", "src")


_PAST_DST = pytest.mark.ascend_sanitize(checks="race,init,blocks,sync,dcache", reason="a dstRepStride of 300 blocks "
                                       "reaches past dst through the bounds=\"ub\" escape hatch")


@pytest.mark.parametrize("form", ["struct", "tuple", "kw", "kw_struct_fields", "subtensors",
                                  pytest.param("wide_rep_stride", marks=_PAST_DST)])
def test_brcb_forms(form):
    """SPEC-2 5.2: block (i, j) at dst + (i*dstRepStride + j*dstBlkStride)*32 holds src[8i + j] repeated."""
    core = aj.Core("atlas-a2", bounds="ub")
    src = tensor(core, "float", np.arange(1, 33))
    d = tensor(core, "float", np.zeros(1024))
    ub = ub_of(core)
    s0, rep, blk, rstr = 0, 2, 1, 8
    if form == "struct":
        aj.Brcb(d, src, 2, aj.BrcbRepeatParams(1, 8))
    elif form == "tuple":
        blk, rstr = 2, 20
        aj.Brcb(d, src, 2, (2, 20))
    elif form == "kw":
        aj.Brcb(dst=d, src=src, repeat_time=np.uint8(2), repeat_params=(1, 8))
    elif form == "kw_struct_fields":
        rstr = 9
        aj.Brcb(d, src, 2, aj.BrcbRepeatParams(dstRepStride=9))
    elif form == "subtensors":
        s0 = 8
        aj.Brcb(d[64], src[8], 2, (1, 8))
    else:                                   # BrcbRepeatParams fields are uint16 (SPEC-2 1.1 table)
        rstr = 300
        aj.Brcb(d, src, 2, (1, 300))
    dv, sv = view(ub, d), view(ub, src).copy()
    off = 64 if form == "subtensors" else 0
    for i in range(rep):
        for j in range(8):
            base = off + (i * rstr + j * blk) * 8
            if base + 8 <= dv.size:
                dv[base:base + 8] = sv[s0 + 8 * i + j]
            else:
                a = d.addr + base * 4
                ub[a:a + 32] = np.frombuffer(np.full(8, sv[s0 + 8 * i + j], np.float32).tobytes(), np.uint8)
    assert np.array_equal(core.ub, ub)


def test_brcb_refusals():
    core = aj.Core("atlas-a2")
    src = tensor(core, "float", np.arange(16))
    d = tensor(core, "float", np.zeros(128))
    refused(core, lambda: aj.Brcb(d, src, 2, (0, 8)), aj.ParameterError, "Brcb", "dstBlkStride")
    refused(core, lambda: aj.Brcb(d, src, 256, (1, 8)), aj.ParameterError, "Brcb", "repeat")
    refused(core, lambda: aj.Brcb(d, src, 3, (1, 8)), aj.OutOfBoundsError, "Brcb", "src")


# ------------------------------------------------------------------------------------------------------------------
# 5. Cast (SPEC-2 7)
# ------------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("form", ["count", "count_kw", "mode_int", "mode_np_int", "hd_struct", "hd_bit_hi0",
                                  "hd_kw", "hd_placeholder", "counter", "subtensors"])
def test_cast_half_to_float_forms(form):
    """SPEC-2 7.1, D33: half->float CAST_NONE; repeats of 64 lanes, srcRepStride 4 in the documented example."""
    core = aj.Core("atlas-a2")
    src = tensor(core, "half", rng_ints(9, 256, -2000, 2000) / 8)
    d = tensor(core, "float", np.full(256, -3))
    ub = ub_of(core)
    NONE = aj.RoundMode.CAST_NONE
    if form == "count":
        aj.Cast(d, src, NONE, 200)
        pairs = [(k, k) for k in range(200)]
    elif form == "count_kw":
        aj.Cast(dst=d, src=src, round_mode=NONE, count=200)
        pairs = [(k, k) for k in range(200)]
    elif form == "mode_int":             # decisions.md "Cast round_mode": the member or its integer value
        aj.Cast(d, src, 0, 200)
        pairs = [(k, k) for k in range(200)]
    elif form == "mode_np_int":
        aj.Cast(d, src, np.int32(0), np.uint32(200))
        pairs = [(k, k) for k in range(200)]
    elif form == "hd_struct":
        aj.Cast(d, src, NONE, 64, 3, UP(1, 1, 8, 4))
        pairs = hd_pairs(64, 3, 64, [(1, 8), (1, 4)], [4, 2])
    elif form == "hd_bit_hi0":
        aj.Cast(d, src, NONE, [0xF0F0F0F0F0F0F0F0, 0], 2, (2, 1, 16, 4))
        pairs = hd_pairs([0xF0F0F0F0F0F0F0F0], 2, 64, [(2, 16), (1, 4)], [4, 2])
    elif form == "hd_kw":
        aj.Cast(d, src, NONE, mask=40, repeat_time=2, repeat_params=UP(dstRepStride=8, srcRepStride=4))
        pairs = hd_pairs(40, 2, 64, [(1, 8), (1, 4)], [4, 2])
    elif form == "hd_placeholder":
        with core:
            aj.SetVectorMask(0, 0xFF00)
            aj.Cast(d, src, NONE, aj.MASK_PLACEHOLDER, 2, UP(1, 1, 8, 4), is_set_mask=False)
        pairs = hd_pairs([0xFF00], 2, 64, [(1, 8), (1, 4)], [4, 2])
    elif form == "counter":
        with core:
            aj.SetMaskCount()
            aj.Cast(d, src, NONE, 100, 1, UP(1, 1, 8, 4))
            aj.SetMaskNorm()
            aj.ResetMask()
        pairs = [(k, k) for k in range(100)]
    else:
        aj.Cast(d[64], src[128], NONE, 64)
        pairs = [(64 + k, 128 + k) for k in range(64)]
    dv, sv = view(ub, d), view(ub, src).copy()
    for di, si in pairs:
        dv[di] = np.float32(sv[si])
    assert np.array_equal(core.ub, ub)


def test_cast_rounding_modes_forms():
    """SPEC-2 7.3 / Cast.md example: half [1.4, 1.5, 1.6, 2.4, 2.5, 2.6] -> int32 per mode; count and high-dim."""
    core = aj.Core("atlas-a2")
    v = np.array([1.4, 1.5, 1.6, 2.4, 2.5, 2.6, -1.5, -2.5] * 8)
    src = tensor(core, "half", v)
    d = tensor(core, "int32", np.zeros(64))
    h = v.astype(np.float16).astype(np.float64)
    expect = {aj.RoundMode.CAST_RINT: np.rint(h), aj.RoundMode.CAST_FLOOR: np.floor(h),
              aj.RoundMode.CAST_CEIL: np.ceil(h), aj.RoundMode.CAST_ROUND: np.sign(h) * np.floor(np.abs(h) + 0.5),
              aj.RoundMode.CAST_TRUNC: np.trunc(h)}
    for mode, e in expect.items():
        aj.Cast(d, src, mode, 64)
        assert np.array_equal(d.numpy(), e.astype(np.int32)), mode
        d[:] = np.zeros(64, np.int32)
        aj.Cast(d, src, int(mode), 64, 1, (1, 1, 8, 4))
        assert np.array_equal(d.numpy(), e.astype(np.int32)), mode


def test_cast_refusals():
    core = aj.Core("atlas-a2")
    src = tensor(core, "half", np.ones(128))
    d = tensor(core, "float", np.zeros(128))
    NONE = aj.RoundMode.CAST_NONE
    refused(core, lambda: aj.Cast(d, src, NONE, [1, 1], 1, (1, 1, 8, 4)), aj.ParameterError, "Cast", "mask")
    refused(core, lambda: aj.Cast(d, src, 1.0, 64), aj.ParameterError, "Cast", "round_mode")
    refused(core, lambda: aj.Cast(d, src, aj.RoundMode.CAST_ODD, 64), aj.UnsupportedDTypeError, "Cast", "")
    refused(core, lambda: aj.Cast(d, src, NONE, 129), aj.OutOfBoundsError, "Cast", "count")
    with pytest.raises(TypeError):
        aj.Cast(d, src, NONE, 64, is_set_mask=True)


# ------------------------------------------------------------------------------------------------------------------
# 6. Reductions (SPEC-2 8): ReduceRepeat + old names, ReduceDataBlock + old names, ReduceMax/Min, the SPR read
# ------------------------------------------------------------------------------------------------------------------
def _red_src(core, n=512, seed=10):
    v = rng_ints(seed, n, -50, 50)
    return tensor(core, "half", v), v.astype(np.float64)


def _repeat_lanes(v, i, mask, srcblk, srcrep, L=128):
    return [(j, v[lane_index(2, i, j, srcblk, srcrep)]) for j in active(mask, L)]


def _sum_tree(vals):
    """SPEC 4.1 adjacent-pair tree over 128 lanes (masked +0); small integers: exact, so any order works."""
    return float(np.sum(vals))


@pytest.mark.parametrize("spelling", ["ReduceRepeat_pos", "ReduceRepeat_kw", "WholeReduceSum", "WholeReduceSum_kw",
                                      "RepeatReduceSum", "RepeatReduceSum_kw"])
def test_repeat_sum_spellings(spelling):
    core = aj.Core("atlas-a2")
    src, v = _red_src(core)
    d = tensor(core, "half", np.full(64, 9))
    ub = ub_of(core)
    mask, rep, dstrep, blk, srep = 100, 3, 2, 1, 8
    if spelling == "ReduceRepeat_pos":
        aj.ReduceRepeat(d, src, mask, rep, dstrep, blk, srep, reduce_type=aj.ReduceType.SUM)
    elif spelling == "ReduceRepeat_kw":
        aj.ReduceRepeat(dst=d, src=src, mask=mask, repeat_time=rep, dst_rep_stride=dstrep, src_blk_stride=blk,
                        src_rep_stride=srep, reduce_type=aj.ReduceType.SUM)
    elif spelling == "WholeReduceSum":
        aj.WholeReduceSum(d, src, mask, rep, dstrep, blk, srep)
    elif spelling == "WholeReduceSum_kw":
        aj.WholeReduceSum(d, src, mask, repeat_time=rep, dst_rep_stride=dstrep, src_blk_stride=blk,
                          src_rep_stride=srep)
    elif spelling == "RepeatReduceSum":      # repeatTime before mask; dstBlkStride checked and ignored
        aj.RepeatReduceSum(d, src, rep, mask, 0, blk, dstrep, srep)
    else:
        aj.RepeatReduceSum(d, src, repeat_time=rep, mask=mask, dst_blk_stride=65535, src_blk_stride=blk,
                           dst_rep_stride=dstrep, src_rep_stride=srep)
    dv = view(ub, d)
    for i in range(rep):
        dv[i * dstrep] = np.float16(_sum_tree([x for _, x in _repeat_lanes(v, i, mask, blk, srep)]))
    assert np.array_equal(core.ub, ub)


ORD = aj.ReduceOrder


@pytest.mark.parametrize("kind", ["MAX", "MIN"])
@pytest.mark.parametrize("order", [None, "pos_VALUE_INDEX", "kw_INDEX_VALUE", "ONLY_VALUE", "ONLY_INDEX"])
@pytest.mark.parametrize("spelling", ["ReduceRepeat", "WholeReduce"])
def test_repeat_max_min_orders_and_aliases(kind, order, spelling):
    """SPEC-2 8.1 output layout per order; the index slot holds the lane number's bit pattern."""
    core = aj.Core("atlas-a2")
    src, v = _red_src(core, seed=11)
    d = tensor(core, "half", np.full(64, 9))
    ub = ub_of(core)
    mask, rep, dstrep = [0xFFFF0000FFFF0000, 0xFF], 2, 3
    o = {None: None, "pos_VALUE_INDEX": ORD.ORDER_VALUE_INDEX, "kw_INDEX_VALUE": ORD.ORDER_INDEX_VALUE,
         "ONLY_VALUE": ORD.ORDER_ONLY_VALUE, "ONLY_INDEX": ORD.ORDER_ONLY_INDEX}[order]
    args = (d, src, mask, rep, dstrep, 1, 8)
    if spelling == "ReduceRepeat":
        f = lambda *a, **k: aj.ReduceRepeat(*a, reduce_type=getattr(aj.ReduceType, kind), **k)
    else:
        f = getattr(aj, "WholeReduce" + kind.capitalize())
    if o is None:
        f(*args)
    elif order.startswith("kw"):
        f(*args, order=o)
    else:
        f(*args, o)
    o = ORD.ORDER_VALUE_INDEX if o is None else o
    unit = {ORD.ORDER_VALUE_INDEX: 4, ORD.ORDER_INDEX_VALUE: 4, ORD.ORDER_ONLY_VALUE: 2, ORD.ORDER_ONLY_INDEX: 4}[o]
    for i in range(rep):
        lanes = _repeat_lanes(v, i, mask, 1, 8)
        best = (max if kind == "MAX" else min)(x for _, x in lanes)
        j = next(j for j, x in lanes if x == best)          # ties -> smallest lane (D50)
        val = np.frombuffer(np.float16(best).tobytes(), np.uint8)
        idx16 = np.frombuffer(np.uint16(j).tobytes(), np.uint8)
        a = d.addr + i * dstrep * unit
        if o == ORD.ORDER_VALUE_INDEX:
            ub[a:a + 4] = np.r_[val, idx16]
        elif o == ORD.ORDER_INDEX_VALUE:
            ub[a:a + 4] = np.r_[idx16, val]
        elif o == ORD.ORDER_ONLY_VALUE:
            ub[a:a + 2] = val
        else:
            ub[a:a + 4] = np.frombuffer(np.uint32(j).tobytes(), np.uint8)
    assert np.array_equal(core.ub, ub)


def test_repeat_reductions_in_counter_mode_and_with_the_placeholder():
    """SPEC-2 1.4: counter mode with is_set_mask=True: the mask is the element count, repeat_time ignored."""
    core = aj.Core("atlas-a2")
    src, v = _red_src(core, seed=12)
    d = tensor(core, "half", np.full(64, 9))
    ub = ub_of(core)
    with core:
        aj.SetMaskCount()
        aj.WholeReduceSum(d, src, 200, 1, 1, 1, 8)
        aj.SetVectorMask(0, 300)
        aj.ReduceRepeat(d[8], src, aj.MASK_PLACEHOLDER, 1, 1, 1, 8, reduce_type=aj.ReduceType.SUM,
                        is_set_mask=False)
        aj.SetMaskNorm()
        aj.ResetMask()
    dv = view(ub, d)
    dv[0], dv[1] = np.float16(v[:128].sum()), np.float16(v[128:200].sum())
    dv[8], dv[9], dv[10] = np.float16(v[:128].sum()), np.float16(v[128:256].sum()), np.float16(v[256:300].sum())
    assert np.array_equal(core.ub, ub)


@pytest.mark.parametrize("spelling", ["ReduceDataBlock", "ReduceDataBlock_kw", "BlockReduce", "BlockReduce_kw"])
@pytest.mark.parametrize("kind", ["SUM", "MAX", "MIN"])
def test_data_block_reductions(spelling, kind):
    """SPEC-2 8.2: 8 results per repeat at dst + i*dstRepStride*16 B + b*2 B (half); A2: masked blocks untouched."""
    core = aj.Core("atlas-a2")
    src, v = _red_src(core, seed=13)
    d = tensor(core, "half", np.full(64, 9))
    ub = ub_of(core)
    mask, rep, dstrep, blk, srep = [0x00FF00FF00FF0000, 0xFFFF], 2, 2, 1, 8
    rt = getattr(aj.ReduceType, kind)
    if spelling == "ReduceDataBlock":
        aj.ReduceDataBlock(d, src, mask, rep, dstrep, blk, srep, reduce_type=rt)
    elif spelling == "ReduceDataBlock_kw":
        aj.ReduceDataBlock(d, src, mask=tuple(mask), repeat_time=rep, dst_rep_stride=dstrep, src_blk_stride=blk,
                           src_rep_stride=srep, reduce_type=rt)
    elif spelling == "BlockReduce":          # repeatTime before mask (DK-0610)
        getattr(aj, "BlockReduce" + kind.capitalize())(d, src, rep, mask, dstrep, blk, srep)
    else:
        getattr(aj, "BlockReduce" + kind.capitalize())(d, src, repeat_time=rep, mask=mask, dst_rep_stride=dstrep,
                                                        src_blk_stride=blk, src_rep_stride=srep)
    dv = view(ub, d)
    act = set(active(mask, 128))
    for i in range(rep):
        for b in range(8):
            lanes = [v[lane_index(2, i, j, blk, srep)] for j in range(16 * b, 16 * b + 16) if j in act]
            if not lanes:
                continue
            r = {"SUM": sum, "MAX": max, "MIN": min}[kind](lanes)
            dv[i * dstrep * 8 + b] = np.float16(r)
    assert np.array_equal(core.ub, ub)


@pytest.mark.parametrize("api", ["ReduceMax", "ReduceMin"])
@pytest.mark.parametrize("form", ["count", "count_true", "count_kw", "count_tmp_kw", "hd", "hd_true", "hd_bit",
                                  "hd_kw", "np_bool"])
def test_reduce_max_min_forms(api, form):
    """SPEC-2 8.3: value at dst[0], index right after it with cal_index; tmp contents unspecified (not compared)."""
    core = aj.Core("atlas-a2")
    v = rng_ints(14, 512, -1000, 1000).astype(np.float64)
    src = tensor(core, "half", v)
    d = tensor(core, "half", np.full(16, 9))
    t = tensor(core, "half", np.zeros(512))
    ub = ub_of(core)
    f = getattr(aj, api)
    pick = np.argmax if api == "ReduceMax" else np.argmin
    idx_on = form in ("count_true", "count_kw", "hd_true", "hd_bit", "hd_kw", "np_bool")
    if form == "count":
        f(d, src, t, 300)
        sel = list(range(300))
    elif form == "count_true":
        f(d, src, t, 300, True)
        sel = list(range(300))
    elif form == "count_kw":
        f(d, src, t, count=300, cal_index=True)
        sel = list(range(300))
    elif form == "count_tmp_kw":
        f(d, src, shared_tmp_buffer=t, count=300)
        sel = list(range(300))
    elif form == "np_bool":
        f(d, src, t, 300, np.bool_(True))
        sel = list(range(300))
    else:
        m, rep, srep = 100, 3, 8
        if form == "hd":
            f(d, src, t, m, rep, srep)
        elif form == "hd_true":
            f(d, src, t, m, rep, srep, True)
        elif form == "hd_bit":
            m = [FULL, 0x0F]
            f(d, src, t, m, rep, srep, cal_index=True)
        else:
            f(d, src, t, mask=m, repeat_time=rep, src_rep_stride=srep, cal_index=True)
        sel = [lane_index(2, i, j, 1, srep) for i in range(rep) for j in active(m, 128)]
    vals = v[sel]
    k = int(pick(vals))                  # first occurrence: ties -> smallest index
    dv = view(ub, d)
    dv[0] = np.float16(vals[k])
    if idx_on:
        dv[1:2].view(np.uint16)[0] = sel[k]
    core_ub = np.array(core.ub)
    tb = slice(t.addr, t.addr + t.size * 2)
    core_ub[tb] = ub[tb]                 # D54: tmp unspecified after the call
    assert np.array_equal(core_ub, ub)


def test_reduce_max_refusals():
    core = aj.Core("atlas-a2")
    src = tensor(core, "half", np.arange(256))
    d = tensor(core, "half", np.zeros(16))
    t = tensor(core, "half", np.zeros(256))
    refused(core, lambda: aj.ReduceMax(d, src, t, 256, 1), aj.ParameterError, "ReduceMax", "")
    refused(core, lambda: aj.ReduceMax(d, src, t, 128, 2, 8, 1), aj.ParameterError, "ReduceMax", "")
    refused(core, lambda: aj.ReduceMin(d, src, t, 0), aj.ParameterError, "ReduceMin", "count")
    refused(core, lambda: aj.ReduceMin(d, src, t, 256, True, count=256), aj.ParameterError, "ReduceMin", "")
    refused(core, lambda: aj.ReduceMax(d, src, tensor(core, "half", np.zeros(8)), 256), aj.ParameterError,
            "ReduceMax", "")


@pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync,dcache", reason="reads GetReduceRepeatMaxMinSpr right "
                             "after the reduction with no V_S flag between them")
@pytest.mark.parametrize("name", ["GetReduceRepeatMaxMinSpr", "GetReduceMaxMinCount", "core_method"])
def test_get_reduce_repeat_max_min_spr_spellings(name):
    """SPEC-2 8.4/D55: (value, index) numpy scalars of dtype, index = i*L + j bit pattern; older name; method."""
    core = aj.Core("atlas-a2")
    v = np.zeros(256)
    v[128 + 3] = 9.0
    src = tensor(core, "half", v)
    d = tensor(core, "half", np.zeros(16))
    aj.WholeReduceMax(d, src, 128, 2, 1, 1, 8)
    if name == "core_method":
        val, idx = core.GetReduceRepeatMaxMinSpr(np.float16)
    else:
        with core:
            val, idx = getattr(aj, name)("half")
    assert isinstance(val, np.float16) and isinstance(idx, np.float16)
    assert val == 9.0 and int(np.asarray(idx).view(np.uint16)) == 131
    p = aj.Core("atlas-inference-aicore")
    sp = tensor(p, "float", v[:128])
    aj.WholeReduceMin(tensor(p, "float", np.zeros(16)), sp, 64, 2, 1, 1, 8)
    with p:
        got = aj.GetReduceRepeatMaxMinSpr(np.float32)   # 310P: the value only
    assert isinstance(got, np.float32) and got == 0.0
    with aj.Core("ascend950"):
        with pytest.raises(aj.UnsupportedDeviceError):
            aj.GetReduceRepeatMaxMinSpr(np.float16)


# ------------------------------------------------------------------------------------------------------------------
# 7. DataCopyPad / SetPadValue (SPEC-2 9.1)
# ------------------------------------------------------------------------------------------------------------------
def _gm(arr):
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(arr)
    return g


@pytest.mark.parametrize("form", ["structs", "tuples", "kw_copy_params", "kw_data_copy_params", "mode_kw",
                                  "gm_view", "ub_subtensor"])
def test_data_copy_pad_gm_to_ub_forms(form):
    """D56 Normal: block k at dst + k*(P + 32*dstStride), leftPad, data, rightPad, dummy up to P (isPad: value)."""
    core = aj.Core("atlas-a2")
    host = np.arange(1, 101).astype(np.float16)
    g = _gm(host)
    u = tensor(core, "half", np.full(96, -1))
    ub = ub_of(core)
    cp, pp = aj.DataCopyExtParams(2, 20, 4, 1, 0), aj.DataCopyPadExtParams(True, 2, 3, np.float16(7))
    gstart, ustart = 0, 0
    if form == "structs":
        aj.DataCopyPad(u, g, cp, pp)
    elif form == "tuples":
        aj.DataCopyPad(u, g, (2, 20, 4, 1, 0), (True, 2, 3, 7.0))
    elif form == "kw_copy_params":
        aj.DataCopyPad(dst=u, src=g, copy_params=cp, pad_params=pp)
    elif form == "kw_data_copy_params":
        aj.DataCopyPad(u, g, data_copy_params=cp, pad_params=pp)
    elif form == "mode_kw":
        aj.DataCopyPad(u, g, cp, pp, mode=aj.PaddingMode.Normal)
    elif form == "gm_view":
        gstart = 3
        aj.DataCopyPad(u, g[3:], cp, pp)
    else:
        ustart = 16
        aj.DataCopyPad(u[16], g, cp, pp)
    uv = view(ub, u)
    P = 32                                   # ceil((2*2 + 20 + 3*2)/32)*32
    for k in range(2):
        base = ustart + k * (P + 32) // 2
        data = host[gstart + k * 12: gstart + k * 12 + 10]      # 20 bytes every 20 + 4 bytes
        uv[base:base + 16] = np.r_[[7, 7], data, [7] * 4].astype(np.float16)
    assert np.array_equal(core.ub, ub)


@pytest.mark.parametrize("form", ["struct", "tuple", "kw", "gm_offset", "gm_sub"])
def test_data_copy_pad_ub_to_gm_forms(form):
    core = aj.Core("atlas-a2")
    u = tensor(core, "half", np.arange(64))
    host = np.zeros(100, np.float16)
    g = _gm(host)
    expect = host.copy()
    cp = aj.DataCopyExtParams(2, 10, 1, 6, 0)    # UB srcStride 1 block, GM dstStride 6 bytes
    start = 0
    if form == "struct":
        aj.DataCopyPad(g, u, cp)
    elif form == "tuple":
        aj.DataCopyPad(g, u, (2, 10, 1, 6, 0))
    elif form == "kw":
        aj.DataCopyPad(dst=g, src=u, copy_params=cp)
    elif form == "gm_offset":
        start = 5
        aj.DataCopyPad(g[5], u, cp)
    else:
        start = 7
        aj.DataCopyPad(g[7:], u, cp)
    for k in range(2):
        src0 = k * (32 + 32) // 2                  # ceil(10/32)*32 + 32*1 bytes
        dst0 = start + k * (10 + 6) // 2
        expect[dst0:dst0 + 5] = np.arange(64)[src0:src0 + 5]
    assert np.array_equal(host, expect)


@pytest.mark.parametrize("form", ["module", "kw_value", "kw_padding_value", "np_scalar_only", "core_method"])
def test_set_pad_value_spellings(form):
    core = aj.Core("atlas-a2")
    g = _gm(np.arange(1, 9).astype(np.float16))
    u = tensor(core, "half", np.full(16, -1))
    with core:
        if form == "module":
            aj.SetPadValue(3.0, np.float16)
        elif form == "kw_value":
            aj.SetPadValue(value=3.0, dtype="half")
        elif form == "kw_padding_value":
            aj.SetPadValue(padding_value=3, dtype=np.float16)
        elif form == "np_scalar_only":
            aj.SetPadValue(np.float16(3.0))
        else:
            core.SetPadValue(3.0, np.float16)
        aj.DataCopyPad(u, g, aj.DataCopyExtParams(1, 8, 0, 0, 0), aj.DataCopyPadExtParams(False, 1, 2, 0))
    # D56: leftPadding 1, 4 data elements, rightPadding 2, dummy to 32 B: pads and dummy take the SetPadValue value
    assert np.array_equal(u.numpy(), np.r_[3, 1, 2, 3, 4, [3] * 11].astype(np.float16))
    assert np.array_equal(u.numpy()[:7], np.array([3, 1, 2, 3, 4, 3, 3], np.float16))


# ------------------------------------------------------------------------------------------------------------------
# 8. Gather, GatherMask (SPEC-2 9.2, 9.3)
# ------------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("form", ["count", "count_kw", "all_kw", "hd_int", "hd_bit", "hd_kw", "hd_placeholder",
                                  "counter", "subtensors", "base_addr_np"])
def test_gather_forms(form):
    """SPEC-2 9.2: dst[i] = src bytes at src_base_addr + src_offset[i]; high-dim D57 (8 blocks, dstRepStride)."""
    core = aj.Core("atlas-a2")
    src = tensor(core, "half", np.arange(256) * 3)
    off = tensor(core, "uint32", (np.random.default_rng(15).permutation(256) * 2)[:256] % 480)
    d = tensor(core, "half", np.full(512, -1))
    ub = ub_of(core)
    sv, ov = view(ub, src).copy(), view(ub, off).copy()
    base, dshift, oshift = 0, 0, 0
    L = 128
    if form == "count":
        aj.Gather(d, src, off, 0, 200)
        pairs = [(k, k) for k in range(200)]
    elif form == "count_kw":
        aj.Gather(d, src, off, 32, count=200)
        base = 32
        pairs = [(k, k) for k in range(200)]
    elif form == "all_kw":
        aj.Gather(dst=d, src=src, src_offset=off, src_base_addr=0, count=100)
        pairs = [(k, k) for k in range(100)]
    elif form == "hd_int":
        aj.Gather(d, src, off, 0, 100, 2, 16)     # repeat i at dst + i*16*32 B = 256 halves
        pairs = [(i * 256 + j, i * L + j) for i in range(2) for j in range(100)]
    elif form == "hd_bit":
        aj.Gather(d, src, off, 0, [0xF0F0, FULL], 2, 8)
        pairs = [(i * 128 + j, i * L + j) for i in range(2) for j in active([0xF0F0, FULL], L)]
    elif form == "hd_kw":
        aj.Gather(d, src, off, 0, mask=64, repeat_time=2, dst_rep_stride=8)
        pairs = [(i * 128 + j, i * L + j) for i in range(2) for j in range(64)]
    elif form == "hd_placeholder":
        with core:
            aj.SetVectorMask(0, 0xFFFF)
            aj.Gather(d, src, off, 0, aj.MASK_PLACEHOLDER, 2, 8, is_set_mask=False)
        pairs = [(i * 128 + j, i * L + j) for i in range(2) for j in range(16)]
    elif form == "counter":
        with core:
            aj.SetMaskCount()
            aj.Gather(d, src, off, 0, 150, 1, 8)
            aj.SetMaskNorm()
            aj.ResetMask()
        pairs = [(k, k) for k in range(150)]
    elif form == "subtensors":
        dshift, oshift = 16, 32
        aj.Gather(d[16], src, off[32], 0, 100)
        pairs = [(k, k) for k in range(100)]
    else:
        base = 32
        aj.Gather(d, src, off, np.uint32(32), np.uint32(120))
        pairs = [(k, k) for k in range(120)]
    dv = view(ub, d)
    sb = sv.view(np.uint8)
    for di, oi in pairs:
        a = base + int(ov[oshift + oi])
        dv[dshift + di] = sb[a:a + 2].view(np.float16)[0]
    assert np.array_equal(core.ub, ub)


@pytest.mark.parametrize("form", ["builtin_struct", "builtin_tuple", "builtin_np_uint8", "user_uint16", "kw",
                                  "reduce_mode", "subtensors"])
def test_gather_mask_forms(form):
    """SPEC-2 9.3 / D58: rsvdCnt returned as a Python int; selected elements packed from dst[0]."""
    core = aj.Core("atlas-a2")
    src = tensor(core, "half", np.arange(1, 513))
    d = tensor(core, "half", np.full(512, -1))
    pat = tensor(core, "uint16", np.tile([0x00F1, 0x8000, 0, 0, 0, 0, 0, 0x1], 4))
    ub = ub_of(core)
    sv = view(ub, src).copy()
    dshift = 0
    if form == "builtin_struct":
        n = aj.GatherMask(d, src, 1, False, 0, aj.GatherMaskParams(1, 2, 8, 8))
        sel = [k for k in range(256) if k % 2 == 0]
    elif form == "builtin_tuple":
        n = aj.GatherMask(d, src, 6, False, 0, (1, 3, 8, 8))
        sel = [k for k in range(384) if k % 4 == 3]
    elif form == "builtin_np_uint8":
        n = aj.GatherMask(d, src, np.uint8(7), False, np.uint32(0), aj.GatherMaskParams(1, 1, 8, 8))
        sel = list(range(128))
    elif form == "user_uint16":
        n = aj.GatherMask(d, src, pat, False, 0, aj.GatherMaskParams(1, 2, 8, 1))
        bitsv = view(ub, pat).astype(np.int64)
        sel = []
        for i in range(2):
            words = bitsv[i * 16: i * 16 + 8]
            sel += [i * 128 + j for j in range(128) if (int(words[j // 16]) >> (j % 16)) & 1]
    elif form == "kw":
        n = aj.GatherMask(dst=d, src0=src, src1_pattern=2, reduce_mode=False, mask=0,
                          gather_mask_params=aj.GatherMaskParams(src0BlockStride=1, repeatTimes=2))
        sel = [k for k in range(256) if k % 2 == 1]
    elif form == "reduce_mode":           # D58 配置方式一 (A2): repeatTimes outer repeats of `mask` elements each
        n = aj.GatherMask(d, src, 7, True, 100, aj.GatherMaskParams(1, 2, 8, 8))
        sel = list(range(100)) + list(range(128, 228))
    else:
        dshift = 64
        n = aj.GatherMask(d[64], src[128], 3, False, 0, (1, 1, 8, 8))
        sel = [128 + k for k in range(128) if k % 4 == 0]
    assert type(n) is int and n == len(sel)
    dv = view(ub, d)
    dv[dshift:dshift + len(sel)] = sv[sel]
    assert np.array_equal(core.ub, ub)


def test_gather_mask_refusals():
    core = aj.Core("atlas-a2")
    src = tensor(core, "half", np.arange(256))
    d = tensor(core, "half", np.zeros(256))
    refused(core, lambda: aj.GatherMask(d, src, 8, False, 0, (1, 1, 8, 8)), aj.ParameterError, "GatherMask",
            "src1")
    refused(core, lambda: aj.GatherMask(d, src, 1, False, 0, (1, 256, 8, 8)), aj.ParameterError, "GatherMask",
            "repeatTimes")
    refused(core, lambda: aj.GatherMask(d, src, 1, False, 0, (1, 1, 8, 8), [0]), aj.ParameterError, "GatherMask",
            "rsvdCnt")


# ------------------------------------------------------------------------------------------------------------------
# 9. Compare, Compares, Select (SPEC-2 9.4, 9.5; D44, D59)
# ------------------------------------------------------------------------------------------------------------------
CMP = {"LT": np.less, "GT": np.greater, "GE": np.greater_equal, "EQ": np.equal, "NE": np.not_equal,
       "LE": np.less_equal}


def _bits_of(flags):
    return np.packbits(np.asarray(flags, bool), bitorder="little")


@pytest.mark.parametrize("form", ["count", "count_kw", "hd_int", "hd_bit", "hd_kw_rest", "op", "op_subtensors",
                                  "compares", "compares_kw_src1_scalar", "compares_kw_scalar", "compare_scalar_alias",
                                  "compares_hd_tuple"])
@pytest.mark.parametrize("mode", ["LT", "NE"])
def test_compare_forms(form, mode):
    core = aj.Core("atlas-a2")
    x = tensor(core, "half", rng_ints(16, 512, -3, 4))
    y = tensor(core, "half", rng_ints(17, 512, -3, 4))
    d = tensor(core, "uint8", np.full(64, 0xAA))
    ub = ub_of(core)
    xv, yv = view(ub, x).astype(np.float64), view(ub, y).astype(np.float64)
    cm = getattr(aj.CMPMODE, mode)
    op = CMP[mode]
    if form == "count":
        aj.Compare(d, x, y, cm, 256)
        res = op(xv[:256], yv[:256])
    elif form == "count_kw":
        aj.Compare(d, x, y, cmp_mode=cm, count=384)
        res = op(xv[:384], yv[:384])
    elif form in ("hd_int", "hd_bit", "hd_kw_rest"):   # A2: mask ignored, every lane computed (D44)
        if form == "hd_int":
            aj.Compare(d, x, y, cm, 100, 2, BP())
        elif form == "hd_bit":
            aj.Compare(d, x, y, cm, [FULL, 1], 2, (1, 1, 1, 8, 8, 8))
        else:
            aj.Compare(d, x, y, cm, 128, repeat_time=2, repeat_params=BP())
        res = op(xv[:256], yv[:256])
    elif form == "op":
        d[:] = {"LT": x.__lt__, "NE": x.__ne__}[mode](y)
        res = op(xv, yv)
    elif form == "op_subtensors":         # sources 256-B aligned sub-tensors, count = src0.GetSize()
        d[:] = {"LT": x[128].__lt__, "NE": x[128].__ne__}[mode](y[128])
        res = op(xv[128:], yv[128:])
    else:
        s = 1.0
        yv = np.full(512, s)
        if form == "compares":
            aj.Compares(d, x, s, cm, 256)
        elif form == "compares_kw_src1_scalar":
            aj.Compares(d, x, src1_scalar=np.float16(s), cmp_mode=cm, count=256)
        elif form == "compares_kw_scalar":
            aj.Compares(d, x, scalar=1, cmp_mode=cm, count=256)
        elif form == "compare_scalar_alias":
            aj.CompareScalar(d, x, s, cm, 256)
        else:
            aj.Compares(d, x, np.float32(s), cm, 128, 2, (1, 1, 8, 8))
        res = op(xv[:256], yv[:256])
    dv = view(ub, d)
    b = _bits_of(res)
    dv[:b.size] = b
    assert np.array_equal(core.ub, ub)


def test_compare_on_the_950_masks_lanes_to_zero_bits():
    """D44: the 950 honours the mask: masked lanes give 0 bits; the whole L/8 bytes of a repeat are written."""
    core = aj.Core("ascend950")
    x = tensor(core, "float", np.arange(128))
    y = tensor(core, "float", np.full(128, 200))
    d = tensor(core, "uint8", np.full(32, 0xAA))
    aj.Compare(d, x, y, aj.CMPMODE.LT, [0x33333333], 2, BP())
    assert np.array_equal(d.numpy()[:16], np.r_[[0x33] * 4, [0] * 4, [0x33] * 4, [0] * 4])
    assert np.array_equal(d.numpy()[16:], np.full(16, 0xAA))
    aj.Compares(d, x, 5.0, aj.CMPMODE.GE, 10, 1, UP())
    assert np.array_equal(d.numpy()[:8], [0xE0, 3, 0, 0, 0, 0, 0, 0])


def test_compare_refusals():
    core = aj.Core("atlas-a2")
    x = tensor(core, "half", np.zeros(256))
    d = tensor(core, "uint8", np.zeros(32))
    refused(core, lambda: aj.Compare(d, x, x, aj.CMPMODE.LT, 100), aj.ParameterError, "Compare", "count")
    refused(core, lambda: aj.Compares(d, x, 1.0, aj.CMPMODE.LT, 128, 1, BP()), aj.ParameterError, "Compares",
            "repeat_params")
    with pytest.raises(TypeError):
        aj.Compare(d, x, x, aj.CMPMODE.LT, 256, is_set_mask=True)


@pytest.mark.parametrize("form", ["m0_count", "m2_count", "m1_count_pyfloat", "m1_count_np", "m2_hd", "m1_hd_bit",
                                  "m0_hd", "kw_all", "mode_int", "sel_uint32", "m2_placeholder", "m1_src1_kw"])
def test_select_forms(form):
    """D59: bit b of selMask (LSB first) picks src0 (1) or src1 (0); mode 0 reuses bits 0..L-1 every repeat."""
    core = aj.Core("atlas-a2")
    x = tensor(core, "half", np.arange(256))
    y = tensor(core, "half", -np.arange(256))
    sm = np.random.default_rng(18).integers(0, 256, 32).astype(np.uint8)
    sel = tensor(core, "uint8", sm)
    d = tensor(core, "half", np.full(256, 7))
    ub = ub_of(core)
    S = aj.SELMODE
    bitv = np.unpackbits(sm, bitorder="little").astype(bool)
    xv, yv = view(ub, x).copy(), view(ub, y).copy()
    scalar = None
    lanes = None                          # (dst index, bit index)
    if form == "m0_count":
        aj.Select(d, sel, x, y, S.VSEL_CMPMASK_SPR, 256)
        lanes = [(k, k % 128) for k in range(256)]
    elif form == "m2_count":
        aj.Select(d, sel, x, y, S.VSEL_TENSOR_TENSOR_MODE, 200)
        lanes = [(k, k) for k in range(200)]
    elif form == "m1_count_pyfloat":
        scalar = 2.5
        aj.Select(d, sel, x, 2.5, S.VSEL_TENSOR_SCALAR_MODE, 200)
        lanes = [(k, k) for k in range(200)]
    elif form == "m1_count_np":
        scalar = 2.5
        aj.Select(d, sel, x, np.float16(2.5), S.VSEL_TENSOR_SCALAR_MODE, 200)
        lanes = [(k, k) for k in range(200)]
    elif form == "m2_hd":
        aj.Select(d, sel, x, y, S.VSEL_TENSOR_TENSOR_MODE, 100, 2, BP())
        lanes = [(i * 128 + j, i * 128 + j) for i in range(2) for j in range(100)]
    elif form == "m1_hd_bit":
        scalar = 2.5
        aj.Select(d, sel, x, 2.5, S.VSEL_TENSOR_SCALAR_MODE, [0xFF, 0xFF00], 2, (1, 1, 1, 8, 8, 8))
        lanes = [(i * 128 + j, i * 128 + j) for i in range(2) for j in active([0xFF, 0xFF00], 128)]
    elif form == "m0_hd":
        aj.Select(d, sel, x, y, S.VSEL_CMPMASK_SPR, 128, 2, BP())
        lanes = [(i * 128 + j, j) for i in range(2) for j in range(128)]
    elif form == "kw_all":
        aj.Select(dst=d, sel_mask=sel, src0=x, src1=y, sel_mode=S.VSEL_TENSOR_TENSOR_MODE, count=256)
        lanes = [(k, k) for k in range(256)]
    elif form == "mode_int":
        aj.Select(d, sel, x, y, 2, 256)
        lanes = [(k, k) for k in range(256)]
    elif form == "sel_uint32":            # the selMask dtype is free: its bytes are read LSB first (D59)
        aj.Select(d, sel.ReinterpretCast(np.uint32), x, y, S.VSEL_TENSOR_TENSOR_MODE, 256)
        lanes = [(k, k) for k in range(256)]
    elif form == "m2_placeholder":
        with core:
            aj.SetVectorMask(0xF, 0xF)
            aj.Select(d, sel, x, y, S.VSEL_TENSOR_TENSOR_MODE, aj.MASK_PLACEHOLDER, 2, BP(), is_set_mask=False)
        lanes = [(i * 128 + j, i * 128 + j) for i in range(2) for j in active([0xF, 0xF], 128)]
    else:
        scalar = 2.5
        aj.Select(d, sel, x, src1=2.5, sel_mode=S.VSEL_TENSOR_SCALAR_MODE, count=256)
        lanes = [(k, k) for k in range(256)]
    dv = view(ub, d)
    for di, bi in lanes:
        dv[di] = xv[di] if bitv[bi] else (np.float16(scalar) if scalar is not None else yv[di])
    assert np.array_equal(core.ub, ub)


def test_select_refusals():
    core = aj.Core("atlas-a2")
    x = tensor(core, "half", np.arange(128))
    sel = tensor(core, "uint8", np.zeros(32))
    d = tensor(core, "half", np.zeros(128))
    S = aj.SELMODE
    refused(core, lambda: aj.Select(d, sel, x, x, S.VSEL_TENSOR_SCALAR_MODE, 128), aj.UnsupportedDeviceError,
            "Select", "src1")   # decisions.md: the src1Local[0] scalar is a 950 overload
    refused(core, lambda: aj.Select(d, sel, x, 1.0, S.VSEL_TENSOR_TENSOR_MODE, 128), aj.ParameterError, "Select",
            "src1")
    with pytest.raises(TypeError):
        aj.Select(d, sel, x, x, S.VSEL_TENSOR_TENSOR_MODE, 128, is_set_mask=True)


# ------------------------------------------------------------------------------------------------------------------
# 10. PipeBarrier, SetFlag/WaitFlag, TQueSync (SPEC-2 10)
# ------------------------------------------------------------------------------------------------------------------
def test_sync_spellings():
    core = aj.Core("atlas-a2")
    with core:
        aj.PipeBarrier(aj.PIPE_V)
        aj.PipeBarrier(pipe=aj.Pipe.PIPE_ALL)
        aj.SetFlag(aj.EVENT_ID3, event=aj.HardEvent.MTE2_V)
        assert core.pending_flags()
        aj.WaitFlag(aj.EVENT_ID3, event=aj.HardEvent.MTE2_V)
        aj.SetFlag(event_id=np.int32(5), event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(event_id=5, event=aj.HardEvent.V_MTE3)
        s = aj.TQueSync(aj.PIPE_MTE2, aj.PIPE_V)
        s.SetFlag(0)
        s.WaitFlag(0)
        assert not core.pending_flags()
    core.PipeBarrier(aj.PIPE_MTE3)
    core.SetFlag(7, event=aj.HardEvent.S_V)
    core.WaitFlag(7, event=aj.HardEvent.S_V)
    assert not core.pending_flags()
    with core:
        with pytest.raises(aj.ParameterError, match="PipeBarrier"):
            aj.PipeBarrier(aj.PIPE_S)
        with pytest.raises(aj.ParameterError, match="SetFlag"):
            aj.SetFlag(8, event=aj.HardEvent.V_S)
        with pytest.raises(aj.StateError, match="WaitFlag"):
            aj.WaitFlag(1, event=aj.HardEvent.V_S)
        with pytest.raises(aj.ParameterError, match="event"):
            aj.SetFlag(aj.HardEvent.V_S, 1)


# ------------------------------------------------------------------------------------------------------------------
# 11. Reg API sample (SPEC-2 11)
# ------------------------------------------------------------------------------------------------------------------



def _reg_vf_names(x, y, z):
    a = R.RegTensor("half")
    b = R.RegTensor("half")
    c = R.RegTensor("half")
    R.LoadAlign(a, x)
    R.LoadAlign(b, y, 0, post_update_stride=128)
    m, rest = R.UpdateMask("half", 100)
    R.Add(c, a, b, m)
    R.StoreAlign(z, c, m)
    R.Sub(c, a, b, mask=m)
    R.StoreAlign(z, c, m, offset=128)
    R.Duplicate(c, 1.5)
    R.Mul(c, c, a, R.CreateMask("half"), mode=R.MaskMergeMode.ZEROING)
    R.StoreAlign(z, c, R.CreateMask("half"), offset=128, dist=R.StoreDist.DIST_NORM_B16)
    r = R.RegTensor("half")
    R.Reduce(r, a, R.CreateMask("half"), reduce_type=R.ReduceType.MAX)
    R.StoreAlign(z[64], r, R.CreateMask("half"))


_REG_VF_NAMES = R.simd_vf(_reg_vf_names)


def _reg_vf_numpy_types(x, z):
    a = R.RegTensor(np.float16)                  # the numpy type, as core.local_tensor(np.float16, n) takes it
    m, rest = R.UpdateMask(np.float16, 100)
    R.LoadAlign(a, x)
    R.StoreAlign(z, a, m)
    R.StoreAlign(z[128], a, R.CreateMask(np.float16))


_REG_VF_NUMPY_TYPES = R.simd_vf(_reg_vf_numpy_types)


def _reg_run(fn, *names):
    core = aj.Core("ascend950")
    x = tensor(core, "half", np.arange(256))
    y = tensor(core, "half", np.full(256, 2))
    z = tensor(core, "half", np.full(256, -1))
    with core:
        fn(*[{"x": x, "y": y, "z": z}[n] for n in names])
    return z.numpy()


@pytest.mark.parametrize("compiled", [True])
def test_reg_keyword_forms_plain_and_compiled(compiled):
    """SPEC-2 11.1: every Reg function plain and inside @R.simd_vf, identical results (keywords included)."""
    got = _reg_run(_REG_VF_NAMES if compiled else _reg_vf_names, "x", "y", "z")
    exp = np.full(256, -1.0)
    exp[:100] = np.arange(100) + 2
    exp[128:256] = np.arange(128) * 1.5
    exp[64], exp[66:192] = 127, 0                # Reduce, stored over 128 lanes: value, index 127 (bits), zeros
    exp = exp.astype(np.float16)
    exp[65:66].view(np.uint16)[0] = 127
    assert np.array_equal(got.view(np.uint16), exp.view(np.uint16))


def test_found_reg_numpy_dtype_inside_a_compiled_vf():
    """SPEC-2 11.1: "Every function below exists in plain Python (on RegTensor/MaskReg objects inside `with core:`)
    and inside a `@R.simd_vf` function (compiled), with identical results". DESIGN.md 2 lists
    `aj.Reg.RegTensor(dtype)` and `mask, n = aj.Reg.UpdateMask(dtype, n)` beside `core.local_tensor(np.float16, ...)`.
    Plain Python takes `R.RegTensor(np.float16)`, `R.UpdateMask(np.float16, n)` and `R.CreateMask(np.float16)`;
    the same body compiled raises UnsupportedDTypeError ("dtype('float16')" not in "half, float, ...")."""
    plain = _reg_run(_reg_vf_numpy_types, "x", "z")
    exp = np.full(256, -1.0)
    exp[:100] = np.arange(100)
    exp[128:] = np.arange(128)
    assert np.array_equal(plain, exp.astype(np.float16))
    compiled = _reg_run(_REG_VF_NUMPY_TYPES, "x", "z")
    assert np.array_equal(compiled, plain)


def test_reg_other_forms_sample():
    """SPEC-2 11.2/11.6/11.7: carry form, dual load/store, MaskReg store and Pack (DATA_BLOCK_COPY and the
    unaligned forms are covered by tests/test_audit36_reg_movement.py)."""
    core = aj.Core("ascend950")
    u = tensor(core, "uint32", np.r_[np.full(32, 0xFFFFFFF0), np.arange(32)])
    v = tensor(core, "uint32", np.r_[np.full(32, 0x20), np.arange(32)])
    w = tensor(core, "uint32", np.zeros(64))
    mb = tensor(core, "uint8", np.zeros(32))
    with core:
        a, b, c = R.RegTensor("uint32"), R.RegTensor("uint32"), R.RegTensor("uint32")
        carry = R.MaskReg()
        R.LoadAlign(a, u)
        R.LoadAlign(b, v)
        R.Add(carry, c, a, b, R.CreateMask("uint32"))          # carry form: first argument a MaskReg
        R.StoreAlign(w, c, R.CreateMask("uint32"))
        R.StoreAlign(mb, carry)                                # MaskReg store, DIST_NORM
    exp = (u.numpy().astype(np.int64) + v.numpy()) % 2 ** 32
    assert np.array_equal(w.numpy(), exp.astype(np.uint32))
    bitsv = np.unpackbits(mb.numpy(), bitorder="little")
    assert [int(bitsv[4 * k]) for k in range(64)] == [1] * 32 + [0] * 32
    assert bitsv.sum() == 32
    x = tensor(core, "half", np.arange(256))
    z = tensor(core, "half", np.zeros(256))
    with core:
        r0, r1 = R.RegTensor("half"), R.RegTensor("half")
        R.LoadAlign(r0, r1, x, 0, dist=R.LoadDist.DIST_DINTLV_B16)            # dual load
        R.StoreAlign(z, r1, r0, R.CreateMask("half"), 0, dist=R.StoreDist.DIST_INTLV_B16)   # dual store, swapped
    swapped = np.arange(256).reshape(128, 2)[:, ::-1].ravel()
    assert np.array_equal(z.numpy(), swapped.astype(np.float16))
    with core:
        m = R.CreateMask("half", R.MaskPattern.ALL)
        with pytest.raises(aj.ParameterError, match="mode"):     # D67: Reg Sub refuses MERGING
            R.Sub(r0, r0, r1, m, mode=R.MaskMergeMode.MERGING)
        h = R.MaskReg()
        R.Pack(h, m, part=R.HighLowPart.HIGHEST)
        R.StoreAlign(mb, h, 0, dist=R.MaskDist.DIST_NORM)
    assert np.array_equal(mb.numpy(), np.r_[np.zeros(16), np.full(16, 0xFF)].astype(np.uint8))


# ------------------------------------------------------------------------------------------------------------------
# 12. Refusal messages name the parameter the call has (DESIGN.md 2)
# ------------------------------------------------------------------------------------------------------------------
def test_found_duplicate_high_dim_stride_refusal_names_a_parameter_duplicate_lacks():
    """DESIGN.md 2: a refusal's "message names the API, the parameter, the value, the legal range and the device".
    SPEC-2 5.1: Duplicate's high-dim strides are `dstBlockStride` / `dstRepeatStride` (C++), keywords
    `dst_block_stride` / `dst_repeat_stride` (SPEC-2 1.1 snake_case). The refusal of dst_block_stride=0 names
    'dstBlkStride' (and of dst_repeat_stride=256 'dstRepStride'), names of BinaryRepeatParams fields that
    Duplicate does not have."""
    core = aj.Core("atlas-a2")
    d = tensor(core, "half", np.zeros(256))
    for kw in ({"dst_block_stride": 0, "dst_repeat_stride": 8}, {"dst_block_stride": 1, "dst_repeat_stride": 256}):
        msg = refused(core, lambda: aj.Duplicate(d, 1.0, mask=128, repeat_time=1, **kw), aj.ParameterError,
                      "Duplicate", "")
        bad = [k for k, v in kw.items() if v in (0, 256)][0]
        camel = {"dst_block_stride": "dstBlockStride", "dst_repeat_stride": "dstRepeatStride"}[bad]
        assert bad in msg or camel in msg, msg


def test_found_select_scalar_refusal_names_scalar_not_src1():
    """DESIGN.md 2 (the message names the parameter); SPEC-2 9.5: Select's scalar of mode 1 is the parameter
    `src1` (C++ `T src1`; Python `src1=`: Select has no `scalar` keyword). A bool or out-of-range src1 is refused
    naming 'scalar'."""
    core = aj.Core("atlas-a2")
    x = tensor(core, "half", np.arange(256))
    sel = tensor(core, "uint8", np.zeros(32))
    d = tensor(core, "half", np.zeros(256))
    with pytest.raises(TypeError):
        aj.Select(d, sel, x, scalar=1.0, sel_mode=1, count=256)     # no such keyword: the parameter is src1
    msg = refused(core, lambda: aj.Select(d, sel, x, src1=True, sel_mode=1, count=256), aj.ParameterError, "Select",
                  "")
    assert "src1" in msg, msg


# ------------------------------------------------------------------------------------------------------------------
# 13. Zero parameters, clamped masks, counter mode per family, enums and structs (SPEC-2 1.1, 1.2, 1.4, D30)
# ------------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", ["count0", "repeat0", "mask0", "mask_words0", "mask_clamp", "mask_max",
                                  "mask_np_max"])
def test_zero_parameters_and_mask_clamp(call):
    core = aj.Core("atlas-a2")
    dt, d, a, b = _bin_inputs(core, "Sub", seed=20)
    ub = ub_of(core)
    {"count0": lambda: aj.Sub(d, a, b, 0), "repeat0": lambda: aj.Sub(d, a, b, 128, 0, BP()),
     "mask0": lambda: aj.Sub(d, a, b, 0, 1, BP()), "mask_words0": lambda: aj.Sub(d, a, b, [0, 0], 2, BP()),
     "mask_clamp": lambda: aj.Sub(d, a, b, 200, 2, BP()), "mask_max": lambda: aj.Sub(d, a, b, FULL, 2, BP()),
     "mask_np_max": lambda: aj.Sub(d, a, b, np.uint64(FULL), 2, BP())}[call]()
    if call.startswith("mask_") and call != "mask_words0":      # SPEC D15: a continuous mask clamps to L
        _bin_expect(ub, "Sub", d, a, b, [(k, k, k) for k in range(256)])
    assert np.array_equal(core.ub, ub)
    c9 = aj.Core("ascend950")
    t = tensor(c9, "float", np.zeros(64))
    refused(c9, lambda: aj.Sub(t, t, t, 0, 1, BP()), aj.ParameterError, "Sub", "mask")   # D30: 950 refuses mask 0


def test_compare_on_a2_ignores_counter_mode_and_uses_repeat_time():
    """SPEC-2 1.4 exception / D44: Compare on A2 ignores the mask and counter mode; repeat_time is used."""
    core = aj.Core("atlas-a2")
    x = tensor(core, "half", rng_ints(21, 512, -2, 3))
    y = tensor(core, "half", np.zeros(512))
    d = tensor(core, "uint8", np.full(64, 0xAA))
    with core:
        aj.SetMaskCount()
        aj.Compare(d, x, y, aj.CMPMODE.GT, 100, 3, BP())
        aj.SetMaskNorm()
        aj.ResetMask()
    exp = np.r_[_bits_of(x.numpy()[:384] > 0), np.full(16, 0xAA)]
    assert np.array_equal(d.numpy(), exp.astype(np.uint8))


def test_gather_mask_leaves_normal_mode_and_reduce_mode_counts():
    core = aj.Core("atlas-a2")
    src = tensor(core, "half", np.arange(1, 257))
    d = tensor(core, "half", np.zeros(256))
    with core:
        aj.SetMaskCount()
        n = aj.GatherMask(d, src, 7, True, 70, aj.GatherMaskParams(1, 2, 8, 8))
        assert not core.counter_mode              # D31: GatherMask forces Normal mode
    assert n == 140
    assert np.array_equal(d.numpy()[:140], np.r_[np.arange(1, 71), np.arange(129, 199)].astype(np.float16))


def test_enums_and_struct_spellings():
    """SPEC-2 1.1: enum member names exactly the C++ ones, shared RoundMode, structs in C++ field order and
    defaults, tuples wherever the struct is; 10.2 event ids and pipes."""
    assert aj.Reg.RoundMode is aj.RoundMode and aj.RoundMode.CAST_NONE == 0
    assert [m.name for m in aj.RoundMode][:8] == ["CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND",
                                                  "CAST_TRUNC", "CAST_ODD", "CAST_HYBRID"]
    assert hasattr(aj.RoundMode, "UNKNOWN")
    assert [int(aj.ReduceOrder[n]) for n in ("ORDER_VALUE_INDEX", "ORDER_INDEX_VALUE", "ORDER_ONLY_VALUE",
                                             "ORDER_ONLY_INDEX")] == [0, 1, 2, 3]
    assert (int(aj.ReduceType.SUM), int(aj.ReduceType.MAX), int(aj.ReduceType.MIN)) == (0, 1, 2)
    assert (int(R.ReduceType.SUM), int(R.ReduceType.MAX), int(R.ReduceType.MIN)) == (0, 1, 2)
    assert {m.name for m in aj.CMPMODE} >= {"LT", "GT", "GE", "EQ", "NE", "LE"}
    assert [int(aj.SELMODE[n]) for n in ("VSEL_CMPMASK_SPR", "VSEL_TENSOR_SCALAR_MODE",
                                          "VSEL_TENSOR_TENSOR_MODE")] == [0, 1, 2]
    assert (int(aj.PaddingMode.Normal), int(aj.PaddingMode.Compact)) == (0, 1)
    for n in ("PIPE_S", "PIPE_V", "PIPE_M", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3", "PIPE_FIX", "PIPE_ALL"):
        assert getattr(aj, n) is getattr(aj.Pipe, n)
    assert [getattr(aj, f"EVENT_ID{i}") for i in range(8)] == list(range(8))
    for n in ("MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1", "MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3", "M_V", "V_M",
              "V_V", "MTE3_MTE1", "MTE1_MTE3", "MTE1_V", "MTE2_M", "M_MTE2", "V_MTE1", "M_FIX", "FIX_M", "MTE3_MTE2",
              "MTE2_MTE3", "S_V", "V_S", "S_MTE2", "MTE2_S", "S_MTE3", "MTE3_S", "MTE2_FIX", "FIX_MTE2", "FIX_S",
              "M_S", "FIX_MTE3", "MTE1_FIX", "FIX_MTE1", "FIX_FIX"):
        assert hasattr(aj.HardEvent, n), n
    for e, names in ((R.RegLayout, ["UNKNOWN", "ZERO", "ONE", "TWO", "THREE"]),
                     (R.SatMode, ["UNKNOWN", "SAT", "NO_SAT"]),
                     (R.HighLowPart, ["LOWEST", "HIGHEST"]), (R.PostLiteral, ["POST_MODE_NORMAL", "POST_MODE_UPDATE"])):
        assert all(hasattr(e, n) for n in names), e
    assert hasattr(R.DataCopyMode, "DATA_BLOCK_COPY")
    assert aj.UnaryRepeatParams() == aj.UnaryRepeatParams(1, 1, 8, 8)
    assert aj.UnaryRepeatParams(srcRepStride=4).srcRepStride == 4
    assert aj.BrcbRepeatParams() == aj.BrcbRepeatParams(1, 8)
    assert aj.GatherMaskParams() == aj.GatherMaskParams(1, 0, 8, 8)
    assert aj.DataCopyExtParams() == aj.DataCopyExtParams(1, 0, 0, 0, 0)
    assert aj.DataCopyPadExtParams() == aj.DataCopyPadExtParams(False, 0, 0, 0)
    t = R.CastTrait()                            # SPEC-2 1.1 table: every field UNKNOWN by default
    assert [f.name for f in (t.layoutMode, t.satMode, t.mrgMode, t.roundMode)] == ["UNKNOWN"] * 4
    assert t.roundMode is aj.RoundMode.UNKNOWN


def test_reg_cast_trait_as_struct_tuple_and_keyword():
    core = aj.Core("ascend950")
    x = tensor(core, "half", np.arange(128) - 64)
    z = tensor(core, "float", np.zeros(64))
    for trait in (R.CastTrait(R.RegLayout.ZERO), (R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING,
                                                   R.RoundMode.UNKNOWN), R.CastTrait(layoutMode=R.RegLayout.ZERO)):
        z[:] = np.zeros(64, np.float32)
        with core:
            a, f = R.RegTensor("half"), R.RegTensor("float")
            R.LoadAlign(a, x)
            R.Cast(f, a, R.CreateMask("half"), trait=trait)
            R.StoreAlign(z, f, R.CreateMask("float"))
        assert np.array_equal(z.numpy(), (np.arange(0, 128, 2) - 64).astype(np.float32))   # D65: layout ZERO


def test_counter_mode_high_dim_reduce_max_950_and_a2():
    core = aj.Core("ascend950")
    x = tensor(core, "half", np.arange(512) % 300)
    r = tensor(core, "half", np.zeros(16))
    with core:
        aj.SetMaskCount()
        aj.ReduceMax(r, x, x, 290, 1, 8, True)      # D53: in counter mode the mask is the element count
        aj.SetMaskNorm()
        aj.ResetMask()
    assert r.numpy()[0] == 289 and r.numpy()[1:2].view(np.uint16)[0] == 289
    a2 = aj.Core("atlas-a2")
    xa = tensor(a2, "half", np.arange(256))
    with a2:
        aj.SetMaskCount()
        with pytest.raises(aj.StateError, match="ReduceMax"):     # D52
            aj.ReduceMax(tensor(a2, "half", np.zeros(16)), xa, tensor(a2, "half", np.zeros(256)), 128, 1, 8)
        aj.SetMaskNorm()


@pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync,dcache", reason="reads GetReduceRepeatMaxMinSpr right "
                             "after the reduction with no V_S flag between them")
def test_get_reduce_repeat_max_min_spr_refusals():
    core = aj.Core("atlas-a2")
    s = tensor(core, "half", np.arange(512))
    with core:
        with pytest.raises(aj.StateError, match="GetReduceRepeatMaxMinSpr"):
            aj.GetReduceRepeatMaxMinSpr(np.float16)
        aj.WholeReduceMax(tensor(core, "half", np.zeros(16)), s, 128, 2, 1, 1, 16)
        with pytest.raises(aj.StateError, match="GetReduceRepeatMaxMinSpr"):
            aj.GetReduceRepeatMaxMinSpr(np.float16)                 # srcRepStride != 8 (D55)
        aj.WholeReduceMax(tensor(core, "half", np.zeros(16)), s, 128, 2, 1, 1, 8)
        with pytest.raises(aj.StateError, match="dtype"):
            aj.GetReduceRepeatMaxMinSpr(np.float32)
        aj.ReduceMax(tensor(core, "half", np.zeros(16)), s, tensor(core, "half", np.zeros(256)), 512, True)
        val, idx = aj.GetReduceRepeatMaxMinSpr(np.float16)
    assert val == 511 and int(np.asarray(idx).view(np.uint16)) == 0xFFFF     # D55: index "inaccurate"


def test_data_copy_pad_compact_on_the_950_only():
    """SPEC-2 9.1: mode= other than Normal is 950 only; Compact packs the blocks back to back."""
    host = np.arange(1, 100).astype(np.float16)
    core = aj.Core("ascend950")
    u = tensor(core, "half", np.full(96, -1))
    aj.DataCopyPad(u, _gm(host), (3, 48, 0, 0, 0), (False, 0, 0, 0), mode=aj.PaddingMode.Compact)
    assert np.array_equal(u.numpy()[:72], host[:72])
    assert np.array_equal(u.numpy()[80:], np.full(16, -1, np.float16))
    a2 = aj.Core("atlas-a2")
    ua = tensor(a2, "half", np.zeros(96))
    refused(a2, lambda: aj.DataCopyPad(ua, _gm(host), (3, 48, 0, 0, 0), (False, 0, 0, 0),
                                       mode=aj.PaddingMode.Compact), aj.UnsupportedDeviceError, "DataCopyPad", "mode")


@pytest.mark.parametrize("device, after_continuous, after_bit", [("ascend950", 4, 8), ("atlas-a2", 10, 8),
                                                                 ("atlas-200i-500-a2", 4, 4)])
def test_placeholder_reads_the_register_each_form_left(device, after_continuous, after_bit):
    """D31 (SPEC D22): what a later is_set_mask=False call reads after a continuous / bit-mask high-dim call."""
    core = aj.Core(device)
    a = tensor(core, "half", np.ones(128))
    d = tensor(core, "half", np.zeros(128))
    got = []
    with core:
        aj.SetVectorMask(0, 0xF)
        for mask, n in ((10, after_continuous), ([0xFF, 0], after_bit)):
            aj.Sub(d, a, a, mask, 1, BP())
            d[:] = np.full(128, -7, np.float16)
            aj.Sub(d, a, a, aj.MASK_PLACEHOLDER, 1, BP(), is_set_mask=False)
            got.append(int((d.numpy() != -7).sum()))
    assert got == [after_continuous, after_bit]


def test_get_reduce_max_min_tmp_size_worked_examples():
    """SPEC-2 8.3.1: the worked examples of ReduceMax.md; the 950 needs no tmp."""
    G = aj.GetReduceMaxMinTmpSize
    assert G("atlas-a2", "half", repeat_time=65, cal_index=True) == 176
    assert G("atlas-a2", np.float16, repeat_time=255, cal_index=True) == 544
    assert G("atlas-a2", "half", count=65408, cal_index=True) == 1056
    assert G("atlas-a2", "half", count=65408) == 1024
    assert G("atlas-a2", "half", repeat_time=4, cal_index=True) == 32
    assert G("atlas-a2", "float", repeat_time=130, cal_index=True) == 288
    assert G("ascend950", "half", count=100) == 0


def test_compare_dst_strides_are_range_checked_and_ignored():
    """D44: dstBlkStride and dstRepStride are range-checked and ignored: repeat i writes L/8 bytes at i*L/8."""
    core = aj.Core("atlas-a2")
    x = tensor(core, "half", np.arange(256))
    d = tensor(core, "uint8", np.full(64, 0xAA))
    aj.Compare(d, x, x, aj.CMPMODE.GE, 128, 2, BP(1, 1, 1, 16, 8, 8))
    aj.Compares(d[32], x, 100.0, aj.CMPMODE.LT, 128, 2, UP(1, 1, 16, 8))
    assert np.array_equal(d.numpy()[:32], np.full(32, 0xFF, np.uint8))
    assert np.array_equal(d.numpy()[32:], _bits_of(np.arange(256) < 100))
    refused(core, lambda: aj.Compare(d, x, x, aj.CMPMODE.GE, 128, 2, BP(1, 1, 1, 256, 8, 8)), aj.ParameterError,
            "Compare", "dstRepStride")


@pytest.mark.parametrize("device, api, offered", [
    ("atlas-training", "Maxs", False), ("atlas-training", "Axpy", True), ("atlas-training", "Brcb", False),
    ("atlas-200i-500-a2", "Brcb", False), ("atlas-inference-aicore", "Brcb", True),
    ("atlas-training", "Compares", False), ("atlas-training", "GatherMask", False),
    ("atlas-200i-500-a2", "RepeatReduceSum", False), ("atlas-200i-500-a2", "WholeReduceSum", True)])
def test_device_offer_table(device, api, offered):
    """SPEC-2 1.9: an API a device lacks is an UnsupportedDeviceError naming the API; nothing written."""
    core = aj.Core(device)
    h = tensor(core, "half", np.ones(256))
    o = tensor(core, "half", np.zeros(16))
    call = {"Maxs": lambda: aj.Maxs(h, h, 1.0, 128), "Axpy": lambda: aj.Axpy(h, h, 1.0, 128),
            "Brcb": lambda: aj.Brcb(h, h[128], 1, (1, 8)),
            "Compares": lambda: aj.Compares(tensor(core, "uint8", np.zeros(32)), h, 1.0, aj.CMPMODE.LT, 128),
            "GatherMask": lambda: aj.GatherMask(h, h, 1, False, 0, (1, 1, 8, 8)),
            "RepeatReduceSum": lambda: aj.RepeatReduceSum(o, h, 1, 128, 0, 1, 1, 8),
            "WholeReduceSum": lambda: aj.WholeReduceSum(o, h, 128, 1, 1, 1, 8)}[api]
    if offered:
        call()
    else:
        refused(core, call, aj.UnsupportedDeviceError, api, "device")


XH = 1 + 2 ** -11 + 2 ** -40      # one RNE rounding to half: 0x3C01; through float32 first: 0x3C00 (a tie)
XB = 1 + 2 ** -8 + 2 ** -30       # to bfloat16: 0x3F81 once; 0x3F80 through float32
IB = 2 ** 60 + 2 ** 36 + 1        # to float: 2^60 + 2^37 once; 2^60 through float64


@pytest.mark.parametrize("api", ["Duplicate", "Adds", "Muls", "Maxs", "LeakyRelu", "Axpy", "Compares", "Select",
                                 "SetPadValue", "paddingValue"])
def test_scalar_forms_round_once(api):
    """D29: a Python float / int or a numpy scalar of another width is rounded once (RNE) to the operand type."""
    core = aj.Core("atlas-a2")
    one = tensor(core, "half", np.ones(128))
    zero = tensor(core, "half", np.zeros(128))
    d = tensor(core, "half", np.zeros(128))
    want = np.uint16(0x3C01).view(np.float16)
    for s in (XH, np.float64(XH)):
        if api == "Duplicate":
            aj.Duplicate(d, s, 128)
        elif api == "Adds":
            aj.Adds(d, zero, s, 128)
        elif api in ("Muls", "Axpy"):
            d[:] = np.zeros(128, np.float16)
            getattr(aj, api)(d, one, s, 128)
        elif api == "Maxs":
            aj.Maxs(d, zero, s, 128)
        elif api == "LeakyRelu":
            aj.LeakyRelu(d, tensor(core, "half", -np.ones(128)), s, 128)
            want = -np.uint16(0x3C01).view(np.float16)
        elif api == "Compares":
            b = tensor(core, "uint8", np.zeros(16))
            aj.Compares(b, tensor(core, "half", np.full(128, want)), s, aj.CMPMODE.EQ, 128)
            assert np.array_equal(b.numpy(), np.full(16, 0xFF, np.uint8))
            continue
        elif api == "Select":
            aj.Select(d, tensor(core, "uint8", np.zeros(32)), one, s, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 128)
        else:
            g = _gm(np.ones(8, np.float16))
            with core:
                if api == "SetPadValue":
                    aj.SetPadValue(s, np.float16)
                    pp = aj.DataCopyPadExtParams(False, 0, 4, 0)
                else:
                    pp = aj.DataCopyPadExtParams(True, 0, 4, s)
                aj.DataCopyPad(d, g, aj.DataCopyExtParams(1, 8, 0, 0, 0), pp)
            assert d.numpy()[4:16].view(np.uint16).tolist() == [0x3C01] * 12
            continue
        assert d.numpy().view(np.uint16).tolist() == [int(np.asarray(want).view(np.uint16))] * 128, (api, s)
    f = tensor(core, "float", np.zeros(64))
    aj.Duplicate(f, IB, 64)
    assert f.numpy().view(np.uint32)[0] == np.float32(2 ** 60 + 2 ** 37).view(np.uint32)
    bf = core.local_tensor("bfloat16", 128)
    aj.Duplicate(bf, XB, 128)
    assert bf.numpy().view(np.uint16)[0] == 0x3F81


def test_cast_64_bit_pair_high_dim_addresses_each_operand_with_its_own_strides():
    """decisions.md "Cast round_mode": the high-dim forms take the 64-bit pairs; D33: L = 256/8 = 32 lanes, a bit
    mask in mask[0]'s low 32 bits, each operand addressed with its own block/repeat strides."""
    core = aj.Core("atlas-a2")
    s = tensor(core, "int32", np.arange(256) - 100)
    d = tensor(core, "int64", np.full(256, 7))
    ub = ub_of(core)
    m = [0xFFFF00FF]
    aj.Cast(d, s, aj.RoundMode.CAST_NONE, m, 2, UP(1, 1, 8, 4))
    dv, sv = view(ub, d), view(ub, s).copy()
    for di, si in hd_pairs(m, 2, 32, [(1, 8), (1, 4)], [8, 4]):
        dv[di] = sv[si]
    assert np.array_equal(core.ub, ub)
    refused(core, lambda: aj.Cast(d, s, aj.RoundMode.CAST_NONE, [2 ** 32], 1, UP(1, 1, 8, 4)), aj.ParameterError,
            "Cast", "mask")
