"""The session-44b ports of Ascend 950 (arch35) Reg-API kernels: kernels/sigmoid_grad.py (ops-nn SigmoidGrad: Sub,
Mul, DIST_UNPACK_B16 / Cast / DIST_PACK_B32), kernels/softmax_grad_ar.py (ops-nn SoftmaxGrad AR full load: folds of
Add / Move MERGING, Reduce SUM, Duplicate of lane 0, Neg, MulAddDst, StoreUnAlign of one float) and
kernels/glu_regbase.py (ops-nn Glu single shape: dual DINTLV load, Cast RegLayout ZERO / ONE, Exp, Div, Select).
Each against a numpy model (bit for bit where every instruction is BIT-EXACT) or the float64 formula within the
types' rounding (Exp / Div MODELLED); the host tilings; the deviations' reasons (the original's forms, refused)."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import bits as _bits, same_bits as _same, spec_and_module as _spec_and_module

R = aj.Reg
BF16 = ml_dtypes.bfloat16
D950 = "ascend950"



# kernels/sigmoid_grad.py

def test_sigmoid_grad_tiling_blocks_and_tiles():
    _, m = _spec_and_module("sigmoid_grad")
    ub = aj.get_device(D950).ub_bytes
    key, blocks, t = m.tiling(D950, 100000, "float")
    t = t.view(m.SigmoidGradTilingData)[0]
    assert key == m.SIGMOID_GRAD_F32_TILING_KEY and blocks == 8
    assert t["elemNum"] == ub * 8 // 192 // 64 * 64 and t["blockFormer"] == 12544
    tail = 100000 - 7 * 12544                   # the last core's 12192: two tiles
    assert (t["ubLoopOfTailBlock"], t["ubTailOfTailBlock"]) == (2, tail - t["elemNum"])
    key, blocks, t = m.tiling(D950, 1000, "half")       # under 4 KB a core: one core, one short tile
    t = t.view(m.SigmoidGradTilingData)[0]
    assert key == m.SIGMOID_GRAD_F16_TILING_KEY and blocks == 1 and t["ubTailOfTailBlock"] == 1000
    assert t["elemNum"] == ub * 8 // 96 // 64 * 64


@pytest.mark.parametrize("dtype, n", [(np.float32, 100003), (np.float16, 77), (np.float16, 30001),
                                      (BF16, 40000), (np.float32, 1)])
def test_sigmoid_grad_is_the_float_chain_bit_for_bit(dtype, n):
    """(1 - y) rounded, times dy rounded, times y rounded, then RNE to the type: several tiles a core, a short
    tile, one element."""
    _, m = _spec_and_module("sigmoid_grad")
    rng = np.random.default_rng(n)
    y = rng.uniform(0, 1, n).astype(np.float32).astype(dtype)
    dy = rng.standard_normal(n).astype(np.float32).astype(dtype)
    z = m.run_sigmoid_grad(D950, y, dy)
    assert _same(z, m.sigmoid_grad_model(y, dy))


def test_sigmoid_grad_specials_and_the_formula():
    """inf and NaN pass through IEEE (inf * 0 = NaN, (1 - inf) * inf = -inf); against float64 dy * y * (1 - y)
    within three float roundings and the type's."""
    _, m = _spec_and_module("sigmoid_grad")
    y = np.array([0.5, 1.0, 0.0, np.inf, np.nan, -0.0, 2.0, 0.25] * 9, np.float32)
    dy = np.array([np.inf, np.inf, -1.0, 1.0, 1.0, 3.0, -2.0, 1e-3] * 9, np.float32)
    z = m.run_sigmoid_grad(D950, y, dy)
    assert _same(z, m.sigmoid_grad_model(y, dy))
    assert np.isnan(z[1]) and z[3] == -np.inf and np.isnan(z[4]) and z[0] == np.inf
    for dtype, rtol in ((np.float32, 4e-7), (np.float16, 2 ** -11 + 4e-7), (BF16, 2 ** -8 + 4e-7)):
        rng = np.random.default_rng(2)
        yy = rng.uniform(0.01, 0.99, 5000).astype(np.float32).astype(dtype)
        dd = rng.uniform(0.1, 2.0, 5000).astype(np.float32).astype(dtype)
        zz = m.run_sigmoid_grad(D950, yy, dd).astype(np.float64)
        yf, df = yy.astype(np.float64), dd.astype(np.float64)
        assert np.allclose(zz, df * yf * (1 - yf), rtol=rtol, atol=0), dtype


# kernels/softmax_grad_ar.py

def test_softmax_grad_ar_tiling():
    """DoOpTiling: rAligned to 32 bytes, the TBuf's row of partials only past 128, ubFactor capped by the rows a
    core has, rLoopCount ceil(rAligned / 64)."""
    _, m = _spec_and_module("softmax_grad_ar")
    ub = aj.get_device(D950).ub_bytes
    key, blocks, t = m.tiling(D950, 1000, 1000, "float")
    t = t.view(m.SoftmaxGradARTilingData)[0]
    assert key == m.TILINGKEY_AR and blocks == 8
    assert (t["rAligned"], t["aBlockFactor"], t["rLoopCount"]) == (1000, 125, 16)
    per_row = 2 * 1000 * 12 + 32                  # foldPoint 8 partials, rounded to 8 floats
    assert t["ubFactor"] == min(125, (ub - 1024) // per_row) and t["binaryTmpSize"] == t["ubFactor"] * 32
    t = m.tiling(D950, 3, 100, "half")[2].view(m.SoftmaxGradARTilingData)[0]
    assert (t["rAligned"], t["binaryTmpSize"], t["ubFactor"], t["rLoopCount"]) == (112, 0, 1, 2)
    assert m.FindNearestPower2(141) == 128 and m.FindNearestPower2(3) == 2 and m.FindNearestPower2(1) == 0
    with pytest.raises(ValueError):
        m.tiling(D950, 2, 16385, "float")


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
def test_softmax_grad_ar_is_the_numpy_model_bit_for_bit(dtype):
    """Every branch: r <= 64 and 64 < r <= 128 (NormComputeSmallR), r > 128 with main folds, a tail fold and
    unfolded vectors (NormCompute) and NormComputePost's one- and two-vector partial sums (r 9000: 128 partials)."""
    _, m = _spec_and_module("softmax_grad_ar")
    rng = np.random.default_rng(7)
    for a, r in ((9, 7), (3, 64), (4, 100), (3, 129), (5, 1000), (2, 9000)):
        y = rng.uniform(0, 1, (a, r)).astype(np.float32).astype(dtype)
        dy = rng.uniform(-1, 1, (a, r)).astype(np.float32).astype(dtype)
        out = m.run_softmax_grad(D950, y, dy)
        assert _same(out, m.softmax_grad_model(y, dy)), (dtype, a, r)


def test_softmax_grad_ar_multiply_add_is_fused_and_the_sum_is_the_fold_tree():
    """A row of constant dy makes y * dy - y * sum(y * dy) cancel: the kernel's MulAddDst (one rounding, RegPrec)
    matches the fused model where an unfused one differs; and the fold / pair-tree order is not numpy's sum."""
    _, m = _spec_and_module("softmax_grad_ar")
    rng = np.random.default_rng(11)
    a, r = 6, 1000
    y = rng.uniform(0, 1, (a, r)).astype(np.float32)
    y /= y.sum(axis=1, keepdims=True)
    dy = np.full((a, r), 0.75, np.float32)
    dy[3:] = rng.uniform(-1, 1, (3, r))
    out = m.run_softmax_grad(D950, y, dy)
    assert _same(out, m.softmax_grad_model(y, dy))
    p = (y * dy).astype(np.float32)
    s = m._row_sums(p)
    unfused = (p - (y * s[:, None]).astype(np.float32)).astype(np.float32)
    assert np.any(_bits(unfused) != _bits(out))
    assert np.any(s != p.sum(axis=1, dtype=np.float32))


def test_softmax_grad_ar_specials_and_the_formula():
    """NaN / inf / -0 lanes keep IEEE through the row sum; against float64 y * (dy - sum(y * dy)) within the
    float chain (relative to the row's scale) plus the type's rounding (and its subnormal step)."""
    _, m = _spec_and_module("softmax_grad_ar")
    y = np.random.default_rng(1).uniform(0, 1, (3, 200)).astype(np.float32)
    dy = np.random.default_rng(2).uniform(-1, 1, (3, 200)).astype(np.float32)
    y[0, :4] = [np.nan, np.inf, -0.0, 0.0]
    y[2] = -0.0
    out = m.run_softmax_grad(D950, y, dy)
    assert _same(out, m.softmax_grad_model(y, dy))
    assert np.isnan(out[0]).all() and np.all(out[2] == 0)
    for dtype, tol, tiny in ((np.float32, 1e-6, 0), (np.float16, 2 ** -10, 2 ** -24), (BF16, 2 ** -7, 0)):
        k, mm = _spec_and_module("softmax_grad_ar")
        inputs = mm._make_inputs("float", 700)(8 * 700, 4)
        yy, dd = inputs["y"].astype(dtype), inputs["dy"].astype(dtype)
        got = mm.run_softmax_grad(D950, yy, dd).astype(np.float64)
        yf, df = yy.astype(np.float64), dd.astype(np.float64)
        want = yf * (df - (yf * df).sum(axis=1, keepdims=True))
        scale = np.abs(yf) * (np.abs(df) + np.abs((yf * df).sum(axis=1, keepdims=True)))
        assert np.all(np.abs(got - want) <= tol * scale + tiny + 1e-30), dtype


def test_softmax_grad_ar_needs_bounds_ub_for_the_whole_vector_loads():
    """The deviation's reason: on a tensor-bounds core the first whole-vector load of a short row's queue buffer
    is refused (the hardware reads the UB past it; masked lanes)."""
    _, m = _spec_and_module("softmax_grad_ar")
    key, blocks, tiling_bytes = m.tiling(D950, 5, 7, "float")
    y = np.full((5, 7), 0.1, np.float32)
    with pytest.raises(aj.OutOfBoundsError, match="LoadAlign"):
        aj.launch(m.softmax_grad, blocks, D950, y.reshape(-1), y.reshape(-1), np.zeros(35, np.float32),
                  np.zeros(32, np.uint8), tiling_bytes, key, "float")


# kernels/glu_regbase.py

def test_glu_tiling_single_shape():
    _, m = _spec_and_module("glu_regbase")
    ub = aj.get_device(D950).ub_bytes
    key, blocks, t = m.tiling(D950, 100001, "float")
    t = t.view(m.GluTilingData)[0]
    group = (ub - 8192) // 24
    assert key == m.TILINGKEY_SINGLESHAPE and blocks == 8 and t["group"] == group
    assert (t["numPerCore"], t["loopNum"], t["nLastTailGroup"]) == (12501, 12501 // group, 12501 % group)
    assert (t["tailLoopNum"], t["lastTailGroup"]) == (12494 // group, 12494 % group)
    assert m.tiling(D950, 10, "half")[2].view(m.GluTilingData)[0]["group"] == 2 * group
    assert m.tiling(D950, 10, "bfloat16")[2].view(m.GluTilingData)[0]["group"] == 2 * group


@pytest.mark.parametrize("dtype, rows, rtol", [(np.float32, 90001, 6e-7), (np.float16, 21000, 2 ** -11 + 6e-7),
                                               (BF16, 20001, 2 ** -8 + 6e-7), (np.float16, 3, 2 ** -11 + 6e-7)])
def test_glu_is_the_formula_within_the_types_rounding(dtype, rows, rtol):
    """a * sigmoid(b) against float64: Exp and Div MODELLED (one rounding each), then the type's rounding; two
    tiles a core (float: 10240 rows a tile; 16-bit: 20480), a short last core, three rows."""
    k, m = _spec_and_module("glu_regbase")
    x = m._make_inputs("float")(2 * rows, rows)["x"].astype(dtype)
    y = m.run_glu(D950, x).astype(np.float64)
    xf = x.astype(np.float64)
    want = xf[:, :1] / (1.0 + np.exp(-xf[:, 1:]))
    assert np.allclose(y, want, rtol=rtol, atol=0)


def test_glu_even_and_odd_lanes_land_in_order():
    """The 16-bit path's two halves (RegLayout ZERO / ONE) and the Select for the original's Or: row i's result is
    at output i (a exact integers, b = 0: y = a / 2 exactly)."""
    _, m = _spec_and_module("glu_regbase")
    rows = 300
    x = np.zeros((rows, 2), np.float32)
    x[:, 0] = np.arange(rows) - 150
    for dtype in (np.float16, BF16, np.float32):
        y = m.run_glu(D950, x.astype(dtype))
        assert np.array_equal(y[:, 0].astype(np.float32), ((np.arange(rows) - 150) / 2).astype(np.float32)), dtype


def test_glu_originals_forms_are_refused_as_the_docstring_says():
    """Deliberate refusals (porting frictions, not defects): Reg DeInterleave and Or on data registers (SPEC-2 14),
    KERNEL_TYPE_MIX_VECTOR_CORE on the 950 (decisions.md KERNEL_TASK_TYPE_DEFAULT: the page's per-device list)."""
    def deinterleave(x, out):
        a, b, c, d = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
        R.LoadAlign(a, x, 0)
        R.LoadAlign(b, x, 64)
        R.DeInterleave(c, d, a, b, "float")

    def data_or(x, out):
        a, c = R.RegTensor("uint16"), R.RegTensor("uint16")
        R.LoadAlign(a, x, 0)
        R.Or(c, a, a, R.CreateMask("uint16"))

    def kernel(vf, dtype):
        pipe, buf = aj.TPipe(), aj.TBuf()
        pipe.InitBuffer(buf, 1024)
        t = buf.Get(dtype)
        aj.Duplicate(t, 0, 256 if dtype == "float" else 512)
        R.asc_vf_call(R.simd_vf(vf), t, t)

    with pytest.raises(aj.ParameterError, match="DIST_DINTLV"):
        aj.launch(kernel, 1, D950, deinterleave, "float")
    with pytest.raises(aj.ParameterError, match="SPEC-2 14"):
        aj.launch(kernel, 1, D950, data_or, "uint16")
    with pytest.raises(aj.ParameterError, match="KERNEL_TYPE_MIX_VECTOR_CORE"):
        aj.launch(lambda: aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_MIX_VECTOR_CORE), 1, D950)


# found while porting

def _reg_load_past(x, out, off):
    a = R.RegTensor("float")
    R.LoadAlign(a, x, off)


def _load_past_kernel(where):
    pipe, small, big = aj.TPipe(), aj.TBuf(), aj.TBuf()
    if where == "tensor":                           # a 64-byte tensor at UB 0; the load at byte 32 reads [32, 288)
        pipe.InitBuffer(small, 64)
        pipe.InitBuffer(big, 1024)
        t, off = small.Get("float"), 8
    else:                                           # the whole UB; the load 32 bytes before its end
        pipe.InitBuffer(big, aj.get_device(D950).ub_bytes)
        t = big.Get("float")
        off = t.GetSize() - 8
    R.asc_vf_call(R.simd_vf(_reg_load_past), t, t, off)


@pytest.mark.parametrize("bounds", ["tensor", "ub"])
def test_found_reg_load_out_of_bounds_message_names_no_range(bounds):
    """Found while porting SoftmaxGrad (port44b): its whole-vector LoadAlign of a short row's queue buffer was refused
    with "LoadAlign: parameter 'address' = 0 (legal: every accessed byte inside the operand's tensor (or the UB on a
    core made with bounds="ub": aj.launch(..., bounds="ub"); SPEC-2 11.6))": an aligned address inside the tensor,
    and neither the tensor's extent, nor the bytes the load reads, nor the first byte outside. On a bounds="ub" core
    past the UB's end the same text advises bounds="ub", which the core already has. decisions.md "Tensor bounds
    (binding, issue 11)": "otherwise OutOfBoundsError naming the operand, the first byte the call touches outside it
    and the repeat that reaches it" (the Memory-API forms do: "byte 64 lies outside src ... inside src's tensor
    [0, 64) (16 x float)"). Now the message names the bytes accessed, the first byte outside (tensor: 64, UB: its
    size) and the range (the tensor's, or the UB's on a bounds="ub" core, without advising bounds="ub")."""
    with pytest.raises(aj.OutOfBoundsError) as info:
        aj.launch(_load_past_kernel, 1, D950, bounds, bounds=bounds)
    message = str(info.value)
    first_outside = 64 if bounds == "tensor" else aj.get_device(D950).ub_bytes
    assert f"byte {first_outside} lies outside" in message
    if bounds == "ub":
        assert "aj.launch(..., bounds=" not in message and f"the UB [0, {first_outside})" in message
    else:
        assert "accesses bytes [32, 288)" in message and "the operand's tensor [0, 64)" in message
