"""Session 39's Reg ports (kernels/ascend_quant.py, kernels/foreach_non_finite_check_and_unscale.py): each against an
independent numpy expectation written here (not the kernel's own `expected`), compiled (the suite makes
UncompiledVFWarning an error, so a VF falling back to plain Python fails) and plain; the gaps the ports worked
around, pinned as what ascend_jit does today."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import module as _module

R = aj.Reg
D950 = "ascend950"


def _bits(a):
    return a.view(np.uint8).tobytes()


# ---- ascend_quant: y = int8(round(x * scale + offset)), saturated

def _quant_want(x, scale, offset, mode, sqrt_mode=False):
    """float32 x * s (+ offset): one RNE each; the mode's rounding; clamp to int8 with NaN 0 (the saturating Casts)."""
    s = np.float32(scale) * np.float32(scale) if sqrt_mode else np.float32(scale)
    out = np.empty(x.size, np.int8)
    for i, v in enumerate(x.astype(np.float32).tolist()):
        v = float(np.float32(v) * s)
        if offset != 0:
            v = float(np.float32(v) + np.float32(offset))
        if v != v:
            out[i] = 0
            continue
        r = {"Round": np.rint, "Floor": np.floor, "Ceil": np.ceil, "Trunc": np.trunc}[mode](v)
        out[i] = int(min(127, max(-128, r)))
    return out


def _quant_x(n, seed, dtype):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-4, 4, n).astype(np.float32)
    x[:12] = [np.nan, np.inf, -np.inf, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, 6e4, -6e4, 3.0][:min(n, 12)]
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("mode", ["Round", "Floor", "Ceil", "Trunc"])
@pytest.mark.parametrize("n, scale, offset", [(7, 1.0, 0.0), (1000, 40.0, -0.5), (70001, 33.3, 2.25)])
def test_ascend_quant_bit_exact(dtype, mode, n, scale, offset):
    m = _module("ascend_quant")
    x = _quant_x(n, n, dtype)
    got = m.run_quant(D950, {"x": x}, scale=scale, offset=offset, round_mode=mode)["y"]
    assert np.array_equal(got, _quant_want(x, scale, offset, mode))


def test_ascend_quant_sqrt_mode_and_plain_vf_agree():
    m = _module("ascend_quant")
    x = _quant_x(777, 3, np.float16)
    want = _quant_want(x, 6.5, 1.0, "Round", sqrt_mode=True)
    for vf in (m.ASCEND_QUANT_VF, m.ascend_quant_vf):
        got = m.run_quant(D950, {"x": x}, scale=6.5, offset=1.0, sqrt_mode=True, vf=vf)["y"]
        assert np.array_equal(got, want)


def test_ascend_quant_tiling_cores_and_tails():
    """AscendQuantRegbase::CalcTiling: 256-byte lines over the cores, the tail core takes the rest."""
    m = _module("ascend_quant")
    for n, dtype, cores, factor, tail in [(1, "float", 1, 64, 1), (130, "float", 3, 64, 2),
                                          (100000, "float", 8, 12544, 12192), (100000, "half", 8, 12544, 12192)]:
        _, _, _, raw = m.tiling(D950, n, dtype, 1.0, 0.0)
        t = raw.view(m.AscendQuantTilingData)[0]
        assert (t["numCore"], t["blockFactor"], t["blockTailFactor"]) == (cores, factor, tail)
        assert t["baseLen"] % (256 // m.TYPE_SIZE[dtype]) == 0


def _quant_vf_on(core, x, scale, offset, mode_key, offset_zero):
    m = _module("ascend_quant")
    n = x.size
    xt = core.local_tensor("float", -(-n // 64) * 64)
    padded = np.zeros(xt.GetSize(), np.float32)
    padded[:n] = x
    xt[:] = padded
    yt = core.local_tensor("int8", -(-n // 64) * 64)
    m.ASCEND_QUANT_VF(yt, xt, n, np.float32(scale), np.float32(offset), "float", m.CAST_ROUND[mode_key], offset_zero)
    return yt.numpy()[:n].copy()


def test_ascend_quant_vf_saturates_by_ctrl_60_not_by_its_no_sat_traits():
    """SPEC-2 11.5 / D46: CTRL[60] = 1 (the 950's default, which the entry keeps for int8) ignores the traits'
    NO_SAT and saturates by CTRL[59] = 0; with CTRL[60] = 0 NO_SAT keeps the low bits at float -> int16 and at
    half -> int8 (the port's int16 -> half trait is UNKNOWN, the pair's only legal value here, and cannot overflow)."""
    m = _module("ascend_quant")
    x = np.array([300.0, -300.0, 70000.0, 127.0, -129.0, 1000.5, 40000.0, np.nan], np.float32)
    core = aj.Core(D950)
    with core:
        assert aj.GetCtrlSpr(60, 60) == 1
        sat = _quant_vf_on(core, x, 1.0, 0.0, m.TPL_ROUND_MODE_ROUND, m.TPL_OFFSET_ZERO)
        aj.SetCtrlSpr(60, 60, 0)
        low = _quant_vf_on(core, x, 1.0, 0.0, m.TPL_ROUND_MODE_ROUND, m.TPL_OFFSET_ZERO)
    assert sat.tolist() == [127, -128, 127, 127, -128, 127, 127, 0]
    r = np.rint(x[:-1]).astype(np.int64)
    i16 = (r + 32768) % 65536 - 32768                          # NO_SAT float -> int16: the low 16 bits
    h = i16.astype(np.float16).astype(np.int64)                 # int16 -> half, RNE (exact below 2049)
    want = (h + 128) % 256 - 128                                 # NO_SAT half -> int8: the low 8 bits
    assert low[:-1].tolist() == want.tolist() and low[-1] == 0
    assert low.tolist()[:3] == [44, -44, 112]                   # 70000 -> 4464 -> 0x70


def test_int16_to_half_cast_refuses_the_no_sat_trait_the_devkit_ignores():
    """The gap ascend_quant works around. ops-nn's AscendQuantBase::CAST_TRAIT_INT16_TO_HALF is {UNKNOWN, NO_SAT,
    ZEROING, round}; the devkit's Cast page (R/类型转换/Cast.md, the int16_t -> half row) lists SatMode::UNKNOWN only,
    and SPEC-2 11.5 refuses anything else, but the devkit's 950 implementation
    (impl/basic_api/reg_compute/dav_3510/kernel_reg_compute_vec_vconv_impl.h, CastImpl: Tuple<half, int16_t> is a
    `rndMergeCast`, vcvt with the round mode alone) never reads satMode for this pair, so the original compiles and
    runs. ascend_jit refuses it; the port passes UNKNOWN (the same bits)."""
    core = aj.Core(D950)
    with core:
        src, dst = R.RegTensor("int16"), R.RegTensor("half")
        R.Duplicate(src, np.int16(3000))
        mask = R.CreateMask("int16")
        with pytest.raises(aj.ParameterError, match="satMode"):
            R.Cast(dst, src, mask, R.CastTrait(R.RegLayout.UNKNOWN, R.SatMode.NO_SAT, R.MaskMergeMode.ZEROING,
                                               aj.RoundMode.CAST_RINT))
        R.Cast(dst, src, mask, R.CastTrait(R.RegLayout.UNKNOWN, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING,
                                           aj.RoundMode.CAST_RINT))


@pytest.mark.parametrize("src, dst, trait, field, kernel", [
    ("int16", "half", ("UNKNOWN", "NO_SAT", "CAST_RINT"), "satMode", "quant/ascend_quant (CAST_TRAIT_INT16_TO_HALF)"),
    ("half", "float", ("ZERO", "NO_SAT", "UNKNOWN"), "satMode", "activation/glu_grad (castToFloatEven)"),
    ("bfloat16", "float", ("ONE", "NO_SAT", "UNKNOWN"), "satMode", "activation/glu_grad (castToFloatOdd)"),
    ("int32", "float", ("ZERO", "SAT", "CAST_RINT"), "layoutMode", "index/inplace_index_add (castTraitInt32ToFp32)")])
def test_cast_traits_real_kernels_use_are_refused_though_the_devkit_ignores_the_field(src, dst, trait, field, kernel):
    """Pinned gap (ops-nn @ e5c3fa93 arch35 kernels named in the parameters): the devkit's 950 CastImpl
    (kernel_reg_compute_vec_vconv_impl.h) picks the vcvt form by the type pair and passes only the fields that form
    takes: <half, int16_t> and <float, int32_t> are rndMergeCast (round mode only), <float, half> and
    <float, bfloat16_t> layoutMerge (layout only); the other fields are never read, so these kernels compile. SPEC-2
    11.5 validates every field against the Cast page's table rows, so ascend_jit refuses them."""
    core = aj.Core(D950)
    layout, sat, rnd = trait
    with core:
        a, b = R.RegTensor(src), R.RegTensor(dst)
        with pytest.raises(aj.ParameterError, match=field):
            R.Cast(b, a, R.CreateMask("float"), R.CastTrait(getattr(R.RegLayout, layout), getattr(R.SatMode, sat),
                                                             R.MaskMergeMode.ZEROING, getattr(aj.RoundMode, rnd)))


# ---- foreach_non_finite_check_and_unscale

FNC = "foreach_non_finite_check_and_unscale"
_NPT = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _fnc_inputs(counts, dtype, seed, special=None, where=None):
    rng = np.random.default_rng(seed)
    out = {}
    for k, n in enumerate(counts):
        g = (rng.standard_normal(n) * 100).astype(_NPT[dtype])
        g[::17] = _NPT[dtype](-0.0)
        out[f"g{k}"] = g
    if special is not None:
        out[f"g{where[0]}"][where[1]] = special
    out["inv_scale"] = np.array([0.125 * 3], np.float32)
    return out


def _fnc_want_values(m, inputs):
    """x * inv_scale in float32, RNE to T; a -0 that lies in the last 64-lane vector of its VF call is +0 first
    (Adds(x, x, 0)); the VF calls are taken from the kernel's own tiling (the cores' ranges cut into chunks)."""
    grads = [inputs[k] for k in sorted(k for k in inputs if k.startswith("g"))]
    inv = np.float32(inputs["inv_scale"][0])
    chunk = m._max_data_count(grads[0].dtype)
    want = []
    for k, g in enumerate(grads):
        x = g.astype(np.float32)
        plus = np.zeros(g.size, bool)
        for start, count in m._vf_spans(k, grads, chunk):
            plus[start + (count - 1) // 64 * 64:start + count] = True
        x = np.where(plus & (x == 0), np.float32(0.0), x)
        with np.errstate(invalid="ignore", over="ignore"):
            y = (x * inv).astype(g.dtype)
        y[np.isnan(y.astype(np.float32))] = np.float32(np.nan)
        want.append(y)
    return want


@pytest.mark.parametrize("dtype", ["float", "half", "bfloat16"])
@pytest.mark.parametrize("counts, special, where", [
    ([5], None, None), ([1, 70, 130, 3], np.inf, (2, 129)), ([20000, 7, 45000, 65], np.nan, (0, 19999)),
    ([3000, 3001], -np.inf, (1, 0))])
def test_foreach_unscale_bit_exact(dtype, counts, special, where):
    m = _module(FNC)
    inputs = _fnc_inputs(counts, dtype, sum(counts), special, where)
    for vf in (m.UNSCALE_VF, m.unscale_vf):
        got = m.run_unscale(D950, inputs, vf=vf)
        for k, want in enumerate(_fnc_want_values(m, inputs)):
            assert _bits(got[f"g{k}"]) == _bits(want), (k, vf)
        assert got["found_inf"][0] == (0.0 if special is None else 1.0)


def test_foreach_unscale_minus_zero_quirk_and_found_inf_kept():
    """-0 in a VF call's last vector comes out +0, elsewhere -0 (the original's Adds before Muls); a found_inf of 1.0
    on entry stays 1.0 over finite data (the kernel only writes 1.0)."""
    m = _module(FNC)
    g = np.full(2000, -0.0, np.float32)
    g[1::2] = 1.0
    got = m.run_unscale(D950, {"g0": g, "inv_scale": np.array([2.0], np.float32)}, found_inf=1.0)
    y = got["g0"]
    # 250 DataBlocks over 8 cores: core 0 takes 32 (256 floats, one VF call of 4 vectors), so its first 192
    # elements are in earlier vectors and its last 64 in the last one
    assert np.signbit(y[0:192:2]).all() and not np.signbit(y[192:256:2]).any() and (y[1::2] == 2.0).all()
    assert got["found_inf"][0] == 1.0


def test_foreach_unscale_reads_past_its_min_max_tbufs(monkeypatch):
    """The original DataCopies a whole vector (256 bytes) from each 32-byte min / max TBuf: on a default
    (bounds="tensor") core ascend_jit refuses it, naming the bounds="ub" rule; the sanitizer reported exactly those
    two loads per VF call, as reads outside the tensor, until session 66 (the port zeroes the chunks' tails and rounds
    its data buffers up to whole vectors, so no other load reported). Session 54: the lanes carry the init check, and
    no longer an uninitialised read; session 66: the memory check too, and nothing is reported: lanes 8..63 never
    reach a store (DIST_FIRST_ELEMENT stores lane 0). The port's broadcast loads of lane 0 store the same values."""
    m = _module(FNC)
    inputs = _fnc_inputs([300, 17], "float", 1)
    big = _fnc_inputs([130000, 17], "float", 2)                 # full chunks: the rounded-up buffers
    with aj.sanitize_session("report") as session:
        port = [m.run_unscale(D950, inputs), m.run_unscale(D950, big)]
    assert session.reports == []
    monkeypatch.setattr(m, "ORIGINAL_MIN_MAX_LOADS", True)
    grads = [inputs["g0"].copy(), inputs["g1"].copy()]
    block_dim, key, raw = m.tiling(D950, [300, 17], "float")
    ws = np.zeros(aj.GetLibApiWorkSpaceSize(D950) + 32, np.uint8)
    with pytest.raises(aj.OutOfBoundsError, match='bounds="ub"'):
        aj.launch(m.foreach_non_finite_check_and_unscale, block_dim, D950, grads, np.zeros(1, np.float32),
                  inputs["inv_scale"], ws, raw, key, "float")
    with aj.sanitize_session("report") as session:
        original = [m.run_unscale(D950, inputs), m.run_unscale(D950, big)]
    for a, b in zip(port, original):
        assert all(a[k].tobytes() == b[k].tobytes() for k in a)
    assert session.reports == []


# ---- ascend_anti_quant: y = TOut((x + offset) * scale [* scale]) from int8

def _anti_want(x, out, scale, offset, sqrt_mode):
    """Per element in float32: x exact, + offset (RNE), * scale (RNE), again * scale in sqrt mode; RNE to out."""
    s, o = np.float32(scale), np.float32(offset)
    vals = []
    for v in x.tolist():
        r = np.float32(np.float32(v) + o) * s
        if sqrt_mode:
            r = np.float32(r) * s
        vals.append(np.float32(r))
    with np.errstate(over="ignore"):
        return np.array(vals, np.float32).astype(out)


@pytest.mark.parametrize("out", ["half", "float"])
@pytest.mark.parametrize("n, scale, offset, sqrt_mode", [(1, 0.5, 0.0, False), (129, 0.0371, -3.0, False),
                                                         (5000, 1.7, 0.25, True), (300001, 913.0, 1.0, False)])
def test_ascend_anti_quant_bit_exact(out, n, scale, offset, sqrt_mode):
    """913 * 128: past the half range, so the half build writes inf (INF/NaN mode: CTRL[60] = 1 leaves NO_SAT to
    CTRL[48]); the sqrt mode multiplies twice in the kernel (the host does not fold scale * scale)."""
    m = _module("ascend_anti_quant")
    x = np.random.default_rng(n).integers(-128, 128, n).astype(np.int8)
    x[:min(n, 3)] = np.array([127, -128, 0], np.int8)[:min(n, 3)]
    want = _anti_want(x, np.float16 if out == "half" else np.float32, scale, offset, sqrt_mode)
    vfs = (m.ANTI_QUANT_VF, m.anti_quant_vf) if n < 10000 else (m.ANTI_QUANT_VF,)
    for vf in vfs:
        got = m.run_anti_quant(D950, {"x": x}, out, scale=scale, offset=offset, sqrt_mode=sqrt_mode, vf=vf)["y"]
        assert _bits(got) == _bits(want)
    if out == "half" and scale == 913.0:
        assert np.isinf(got[0]) and np.isinf(got[1])


def test_ascend_anti_quant_tiling():
    """CalcCoreSlice / CalcUbLoopTail: 128-element core slices; a zero tail means a full last chunk."""
    m = _module("ascend_anti_quant")
    for n, out, blocks, former, ub, loops in [(1, "half", 1, 128, 128, (1, 0, 1, 1)),
                                              (1000, "float", 8, 128, 128, (1, 0, 1, 104)),
                                              (4 << 20, "half", 8, 524288, 41984, (13, 20480, 13, 20480))]:
        block_dim, _, raw = m.tiling(D950, n, out, 1.0, 0.0)
        bt = raw.view(m.AscendAntiQuantTilingData)[0]["baseTiling"]
        assert (block_dim, bt["blockFormer"], bt["ubFormer"]) == (blocks, former, ub)
        assert (bt["ubLoopOfFormerBlock"], bt["ubTailOfFormerBlock"], bt["ubLoopOfTailBlock"],
                bt["ubTailOfTailBlock"]) == loops


def test_unpack4_b8_and_two_zero_layout_casts_keep_element_order():
    """The VF's lane path on its own: DIST_UNPACK4_B8 (element i -> byte lane 4i), int8 -> half ZERO (even byte
    lanes), half -> float ZERO (even half lanes): float lane i is element i."""
    core = aj.Core(D950)
    z = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, aj.RoundMode.UNKNOWN)
    with core:
        t = core.local_tensor("int8", 64)
        vals = np.arange(-32, 32, dtype=np.int8)[::-1].copy()
        t[:] = vals
        b, h, f = R.RegTensor("int8"), R.RegTensor("half"), R.RegTensor("float")
        R.DataCopy(b, t, dist=R.LoadDist.DIST_UNPACK4_B8)
        m = R.CreateMask("float")
        R.Cast(h, b, m, z)
        R.Cast(f, h, m, z)
        out = core.local_tensor("float", 64)
        R.StoreAlign(out, f, m)
        assert out.numpy().tolist() == vals.astype(np.float32).tolist()


# ---- glu_grad: [grad * sig(b) | grad * sig(b) * (1 - sig(b)) * a]

def _glu_want(inputs):
    """The VF's float32 steps, each rounded once (Exp: RN of the exact exponential, the MODELLED rule; Div: RN,
    DivPrecisionImpl), then RNE to the element type."""
    self_, grad = inputs["self"], inputs["grad_out"]
    ny = grad.shape[1]
    a, b, g = (v.astype(np.float32) for v in (self_[:, :ny], self_[:, ny:], grad))
    one = np.float32(1.0)
    e = np.exp(-b.astype(np.float64)).astype(np.float32)
    sig = one / (e + one)
    grad_a = g * sig
    grad_b = (((one - sig) * sig) * a) * g
    return np.concatenate([grad_a, grad_b], axis=1).astype(self_.dtype)


@pytest.mark.parametrize("dtype, rows, ny", [("float", 3, 64), ("float", 37, 13), ("half", 21, 37), ("half", 300, 128),
                                             ("bfloat16", 9, 160), ("bfloat16", 1000, 7)])
def test_glu_grad_against_float32_steps(dtype, rows, ny):
    """Bit for bit against the float32 step model (16-bit types: even and odd lanes computed apart and joined by an
    exact Add, SPEC-2 D65), compiled and plain; rows of 2 x 13 / 37 / 7 take the DataCopyPad path."""
    m = _module("glu_grad")
    rng = np.random.default_rng(rows * ny)
    np_t = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}[dtype]
    inputs = {"self": rng.uniform(-4, 4, (rows, 2 * ny)).astype(np_t),
              "grad_out": rng.uniform(-2, 2, (rows, ny)).astype(np_t)}
    want = _glu_want(inputs)
    vfs = (m.GLU_GRAD_VF, m.glu_grad_vf) if rows * ny < 5000 else (m.GLU_GRAD_VF,)
    for vf in vfs:
        assert _bits(m.run_glu_grad(D950, inputs, vf=vf)["out"]) == _bits(want)


def test_glu_grad_tiling_chunks():
    """GetTilingDataSmall: group rows a chunk from the common buffer, the cores' loops and tails."""
    m = _module("glu_grad")
    assert m.common_buffer_size(D950, "float") == (253952 - 8192) // 40
    assert m.common_buffer_size(D950, "half") == (253952 - 8192) // 56 * 2
    _, _, raw = m.tiling(D950, 781, 64, "float")
    t = raw.view(m.GluGradTilingData)[0]
    assert (t["group"], t["numPerCore"], t["realCoreNum"], t["loopNum"], t["nLastTailGroup"], t["tailLoopNum"],
            t["lastTailGroup"]) == (96, 98, 8, 1, 2, 0, 95)
    with pytest.raises(aj.ParameterError, match="big-shape"):
        m.tiling(D950, 2, 7000, "float")


def test_div_specific_mode_with_its_default_algo_compiles_in_a_vf():
    """`static constexpr DivSpecificMode m = {ZEROING, true};` (ops-nn GluGrad, the devkit Div page's example form)
    ports as R.DivSpecificMode(ZEROING, True); numba types it as a tuple of the two given fields, and the Div plan
    gives the third its default (the suite makes an UncompiledVFWarning an error), with the three-field form's bits."""
    def reciprocal(dst, src, mode):
        a, one = R.RegTensor("float"), R.RegTensor("float")
        m = R.CreateMask("float")
        R.LoadAlign(a, src)
        R.Duplicate(one, np.float32(1.0))
        R.Div(a, one, a, m, mode)
        R.StoreAlign(dst, a, m)

    def short(dst, src):
        reciprocal(dst, src, R.DivSpecificMode(R.MaskMergeMode.ZEROING, True))

    def whole(dst, src):
        reciprocal(dst, src, R.DivSpecificMode(R.MaskMergeMode.ZEROING, True, aj.DivAlgo.INTRINSIC))
    reciprocal = R.simd_callee(reciprocal)
    core = aj.Core(D950)
    with core:
        src = core.local_tensor("float", 64)
        src[:] = np.arange(1, 65, dtype=np.float32) * np.float32(0.37)
        out = []
        for vf in (short, whole):
            dst = core.local_tensor("float", 64)
            R.simd_vf(vf)(dst, src)
            out.append(dst.numpy().tobytes())
        assert out[0] == out[1]


def test_kernel_type_mix_vector_core_is_refused_on_the_950():
    """glu_grad.cpp's entry sets KERNEL_TYPE_MIX_VECTOR_CORE in the 950 build too; the devkit page (设置Kernel类型.md,
    kernel type constraints) lists it for the Atlas inference products only, and ascend_jit follows the page."""
    with aj.Core(D950):
        with pytest.raises(aj.ParameterError, match="KERNEL_TYPE_AIV_ONLY"):
            aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_MIX_VECTOR_CORE)


@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_a_keyword_mode_with_a_skipped_field_in_a_vf_runs_plain_with_a_warning():
    """R.DivSpecificMode(precisionMode=True) (mrgMode and algo left to their defaults) works in plain Python; in a
    compiled VF numba's NamedTuple typer fails an internal `assert not bound.kwargs`: the VF runs as plain Python,
    with the UncompiledVFWarning saying how to write the struct so that it compiles."""
    def vf(dst, src):
        mode = R.DivSpecificMode(precisionMode=True)
        a = R.RegTensor("float")
        m = R.CreateMask("float")
        R.LoadAlign(a, src)
        R.Div(a, a, a, m, mode)
        R.StoreAlign(dst, a, m)
    core = aj.Core(D950)
    with core:
        src, dst = core.local_tensor("float", 64), core.local_tensor("float", 64)
        src[:] = np.arange(1, 65, dtype=np.float32)
        vf(dst, src)                                       # plain Python: fine
        assert (dst.numpy() == 1.0).all()
        dst[:] = np.zeros(64, np.float32)
        with pytest.warns(aj.UncompiledVFWarning, match="fields in order"):
            R.simd_vf(vf)(dst, src)
        assert (dst.numpy() == 1.0).all()
