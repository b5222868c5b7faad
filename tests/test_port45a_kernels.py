"""The session-45a ports of ops-nn Memory-API kernels (A2 / A3): kernels/elu_v2.py (EluV2: CompareScalar GE,
Exp, tensor-tensor Select; 256-byte-block big/small cores), kernels/smooth_l1_loss_v2.py (SmoothL1LossV2: Sub / Abs /
Mins / Mul chain, halving-Add tile sums, scalar Kahan sums, a GM workspace and SyncAll; unaligned per-core GM starts)
and kernels/apply_adam_w.py (ApplyAdamW: a TQueBind used without EnQue / DeQue, FetchEventID'd flags, scalars
through a 16-lane Cast and TPipe::Reset, Sqrt / Div). Each against a numpy model bit for bit (the MODELLED Exp, Sqrt
and Div are the exact value rounded once, D37) and against a float64 formula within the types' rounding; the host
tilings; each deviation's reason (the original's form run and reported by the sanitizer or refused)."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import sanitizer_reports as _reports, bits as _bits, same_bits as _same, spec_and_module as _spec_and_module

A2_A3 = ["atlas-a2", "atlas-a3"]
BF16 = ml_dtypes.bfloat16


# kernels/elu_v2.py

def test_elu_v2_tiling_256_byte_blocks_over_big_and_small_cores():
    _, m = _spec_and_module("elu_v2")
    # float: UB / 256 = 768 blocks, / 5 = 153 blocks a tile (9792 floats); 40003 floats = 626 blocks: 5 cores
    used, t = m.tiling("atlas-a2", 40003, "float")
    assert used == 5 and t["tileDataNum"] == 153 * 64
    assert (t["smallCoreDataNum"], t["bigCoreDataNum"], t["bigCoreNum"]) == (125 * 64, 126 * 64, 1)
    # 16-bit: / 9 = 85 blocks of 128 elements; one core below a tile, at most 8
    used, t = m.tiling("atlas-a2", 1000, "half")
    assert used == 1 and t["tileDataNum"] == 85 * 128 and t["bigCoreNum"] == 0 and t["smallCoreDataNum"] == 1024
    assert m.tiling("atlas-a2", 10 ** 6, "bfloat16")[0] == 8


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, n", [(np.float32, 100003), (np.float16, 77), (BF16, 30001), (np.float32, 1)])
def test_elu_v2_is_the_numpy_model(device, dtype, n):
    """Several tiles a core (100003 floats: 8 cores of two tiles), one short core, one element; alpha, scale and
    inputScale not 1 so each Muls shows."""
    _, m = _spec_and_module("elu_v2")
    x = np.random.default_rng(n).uniform(-8, 5, n).astype(np.float32).astype(dtype)
    y = m.run_elu_v2(device, x, alpha=1.25, scale=0.75, input_scale=1.5)
    assert _same(y, m.elu_v2_model(x, alpha=1.25, scale=0.75, input_scale=1.5))


def test_elu_v2_specials_and_the_formula():
    """-0 >= 0 takes the positive branch (scale * -0 = -0); -inf gives -scale * alpha; NaN fails GE and takes the
    negative branch, NaN through Exp (D37 specials). Against float64 within the float chain's roundings and the
    type's RNE."""
    _, m = _spec_and_module("elu_v2")
    x = np.tile(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 3.0], np.float32), 40)
    y = m.run_elu_v2("atlas-a2", x, alpha=2.0, scale=1.5)
    assert _same(y, m.elu_v2_model(x, alpha=2.0, scale=1.5))
    assert _bits(y[:2]).tolist() == [0, 0x80000000] and y[2] == np.inf and y[3] == -3.0 and np.isnan(y[4])
    assert y[5] == 1.5 and y[6] == np.float32(np.float32(np.float32(np.exp(-1.0)) - 1) * 3)
    for dtype, rtol in ((np.float32, 1e-6), (np.float16, 2 ** -11 + 1e-6), (BF16, 2 ** -8 + 1e-6)):
        xs = np.random.default_rng(3).uniform(-5, 5, 3000).astype(np.float32).astype(dtype)
        xs = xs[np.abs(xs.astype(np.float32)) > 0.05]          # away from exp(x) - 1's cancellation
        out = m.run_elu_v2("atlas-a3", xs, alpha=1.5).astype(np.float64)
        xf = xs.astype(np.float64)
        want = np.where(xf >= 0, xf, 1.5 * np.expm1(xf))
        assert np.allclose(out, want, rtol=rtol, atol=0), dtype


def test_elu_v2_last_core_reads_whole_blocks_past_the_input():
    """The deviation's reason: the tiling hands out whole 256-byte blocks, so the last core's GlobalTensor runs past
    an input that is not a whole number of blocks; unpadded, SetGlobalBuffer refuses it (OutOfBoundsError) before
    anything is copied. Padded (the port), the padding's lanes are computed and never returned."""
    _, m = _spec_and_module("elu_v2")
    x = np.linspace(-2, 2, 1000).astype(np.float32)             # 15.6 blocks of 64 floats
    used, t = m.tiling("atlas-a2", x.size, "float")
    y = np.zeros_like(x)
    with pytest.raises(aj.OutOfBoundsError, match="SetGlobalBuffer"):
        aj.launch(m.elu_v2, used, "atlas-a2", x, y, None, t, "float")
    assert not y.any()
    assert _same(m.run_elu_v2("atlas-a2", x), m.elu_v2_model(x))


def test_elu_v2_default_sizes_run_clean_under_the_sanitizer():
    for name in ("elu_v2", "elu_v2_half", "elu_v2_bf16"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("atlas-a2", k.make_inputs(20001, 0))) == [], name
        assert _reports(lambda: k.run("atlas-a3", k.make_inputs(20001, 0)), "device-sync") == [], name


# kernels/smooth_l1_loss_v2.py

def test_smooth_l1_loss_v2_tiling_core_counts_and_tiles():
    _, m = _spec_and_module("smooth_l1_loss_v2")
    cores = {(n, d, r): m.tiling("atlas-a2", n, d, 1.0, r)[0]
             for n, d, r in ((100, "float", "none"), (1000, "half", "none"), (5000, "float", "none"),
                             (5000, "half", "none"), (20000, "float", "none"), (8192, "float", "mean"),
                             (8193, "half", "sum"), (60001, "float", "mean"))}
    assert list(cores.values()) == [1, 2, 4, 8, 8, 1, 5, 8]          # 12 and 16 asked for, 8 launched
    # tileDataNum: UB blocks / units / 2; the kernel keeps it (its own budget is larger) rounded to 32 bytes
    _, t, ws = m.tiling("atlas-a2", 60001, "float", 1.0, "mean")
    assert t["tileDataNum"] == 196608 // 32 // 4 // 2 * 8 and ws == 8 * 32 * 2 + 8 * 8 * 4
    assert m.tiling("atlas-a2", 60001, "half", 1.0, "none")[1]["tileDataNum"] == 196608 // 32 // 6 // 2 * 16
    assert m.tiling("atlas-a2", 60001, "half", 1.0, "none")[2] == 0
    # the kernel's split: total / cores each, the first total % cores one more (unaligned GM starts)
    op = m.KernelSmoothL1LossV2("half")
    op.coreNum, op.totalDataNum, op.tileDataNum = 8, 60001, 9824
    assert op.InitCorePartition(1) == 7501 and (op.coreDataNum, op.tileNum, op.tailDataNum) == (7500, 1, 7500)
    op.tileDataNum = 6144
    assert op.InitCorePartition(0) == 0 and (op.coreDataNum, op.tileNum, op.tailDataNum) == (7501, 2, 1357)


@pytest.mark.parametrize("dtype, n, reduction, sigma", [
    (np.float32, 60001, "mean", 1.0), (np.float32, 9001, "sum", 0.5), (np.float32, 1003, "none", 1.0),
    (np.float32, 100, "mean", 2.0), (np.float16, 5, "none", 1.0), (np.float16, 50001, "mean", 1.0),
    (BF16, 20001, "sum", 1.0), (BF16, 7, "none", 0.25)])
def test_smooth_l1_loss_v2_is_the_numpy_model_in_the_kernels_order(dtype, n, reduction, sigma):
    """"none" element by element; "sum" / "mean" bit for bit against the per-tile halving pairs, the serial sum of
    8, the Kahan sums over tiles and cores (several tiles a core at 60001 floats; 5 cores at 9001; one core at 100)."""
    _, m = _spec_and_module("smooth_l1_loss_v2")
    rng = np.random.default_rng(n)
    p = (rng.standard_normal(n) * 2).astype(np.float32).astype(dtype)
    lab = rng.standard_normal(n).astype(np.float32).astype(dtype)
    for device in A2_A3:
        out = m.run_smooth_l1_loss_v2(device, p, lab, sigma, reduction)
        want = m.smooth_l1_loss_v2_model(device, p, lab, sigma, reduction)
        assert out.dtype == want.dtype and _same(out, want), (device, out[:4], want[:4])


def test_smooth_l1_loss_v2_is_the_formula_within_rounding():
    """Against float64: none within the chain's roundings (and the type's RNE), sum and mean within 1e-6 of the
    float64 sum (compensated sums of positive terms). sigma = 0 gives invSigma = 0 and Mins 0: the L1 loss |d|."""
    _, m = _spec_and_module("smooth_l1_loss_v2")
    rng = np.random.default_rng(9)
    p, lab = rng.standard_normal(40000).astype(np.float32) * 3, rng.standard_normal(40000).astype(np.float32)
    d = p.astype(np.float64) - lab
    for sigma in (1.0, 0.5):
        ad = np.abs(d)
        want = np.where(ad < sigma, 0.5 * d * d / sigma, ad - 0.5 * sigma)
        out = m.run_smooth_l1_loss_v2("atlas-a2", p, lab, sigma, "none").astype(np.float64)
        assert np.allclose(out, want, rtol=4e-7, atol=1e-12)
        total = m.run_smooth_l1_loss_v2("atlas-a2", p, lab, sigma, "sum")[0]
        mean = m.run_smooth_l1_loss_v2("atlas-a2", p, lab, sigma, "mean")[0]
        assert abs(total - want.sum()) <= 1e-6 * want.sum() and abs(mean - want.mean()) <= 1e-6 * want.mean()
    l1 = m.run_smooth_l1_loss_v2("atlas-a2", p[:999], lab[:999], 0.0, "none")
    assert _same(l1, np.abs(p[:999] - lab[:999]))


def test_smooth_l1_loss_v2_specials():
    """NaN passes Abs, Mins (a NaN operand gives NaN, D41) and the rest; inf - inf is NaN; an infinite difference
    gives min(inf, sigma) = sigma, so 0.5 * sigma + inf = inf; -0 - +0 gives a loss of +0."""
    _, m = _spec_and_module("smooth_l1_loss_v2")
    p = np.tile(np.array([np.nan, np.inf, np.inf, -0.0, 0.25, -3.0, 1.0, 2.0], np.float32), 20)
    lab = np.tile(np.array([0.0, np.inf, 1.0, 0.0, 0.0, 0.0, np.nan, 2.0], np.float32), 20)
    for dtype in (np.float32, np.float16, BF16):
        out = m.run_smooth_l1_loss_v2("atlas-a3", p.astype(dtype), lab.astype(dtype), 1.0, "none")
        want = m.smooth_l1_loss_v2_model("atlas-a3", p.astype(dtype), lab.astype(dtype), 1.0, "none")
        assert _same(out, want), dtype
        f = out.astype(np.float32)[:8]
        assert np.isnan(f[[0, 1, 6]]).all() and f[2] == np.inf and _bits(np.float32(f[3])) == 0
        assert f[4] == np.float32(0.5 * 0.25 * 0.25) and f[5] == 2.5 and f[7] == 0.0


def test_smooth_l1_loss_v2_bfloat16_sum_by_the_kernels_bit_level_rounding():
    """StoreReductionResult's FromFloatValue: RNE by adding 0x7FFF + lsb (ties to even, as ml_dtypes), infinities
    truncated, a NaN kept quiet (bit 0x0040 set). A NaN input makes the sum NaN; a huge one overflows to +inf."""
    _, m = _spec_and_module("smooth_l1_loss_v2")
    vals = np.random.default_rng(4).standard_normal(2000).astype(np.float32) * np.float32(1e30)
    vals = np.concatenate([vals, np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, 3.3895314e38], np.float32)])
    got = np.array([m._bf16_from_float(v) for v in vals])
    assert np.array_equal(_bits(got), _bits(vals.astype(BF16)))
    assert _bits(np.array([m._bf16_from_float(np.float32(np.inf))]))[0] == 0x7F80
    nan = np.array([0x7F800001], np.uint32).view(np.float32)[0]
    assert _bits(np.array([m._bf16_from_float(nan)]))[0] == 0x7FC0
    p = np.ones(300, BF16)
    lab = np.zeros(300, BF16)
    p[17] = np.nan
    out = m.run_smooth_l1_loss_v2("atlas-a2", p, lab, 1.0, "sum")
    assert np.isnan(out.astype(np.float32)[0])
    p[17] = BF16(3e38)
    lab[18] = BF16(-3e38)
    assert m.run_smooth_l1_loss_v2("atlas-a2", p, lab, 1.0, "sum").astype(np.float32)[0] == np.inf


def test_smooth_l1_loss_v2_original_scalar_tail_races_and_the_ports_flags():
    """The float kernel converts by DataCopy UB -> UB of the 8-aligned part and a SetValue loop for the rest, with no
    flag: the sanitizer reports the Sub / Abs after the loop's SetValues (S -> V RAW and WAW), on every core that has
    a tail. The port's V_S / S_V pairs (original_sync=False) leave no report; the values are the same."""
    _, m = _spec_and_module("smooth_l1_loss_v2")
    rng = np.random.default_rng(2)
    p, lab = rng.standard_normal(1003).astype(np.float32), rng.standard_normal(1003).astype(np.float32)
    for reduction in ("none", "mean"):
        outs = {}

        def run(original):
            outs[original] = m.run_smooth_l1_loss_v2("atlas-a2", p, lab, 1.0, reduction, original_sync=original)
        original = _reports(lambda: run(True))
        assert original and {r.check for r in original} == {"race"}, reduction
        pairs = {(r.instruction.api, r.earlier.api) for r in original}
        assert pairs >= {("Sub", "SetValue")} | ({("GetValue", "Add")} if reduction == "none" else set()), pairs
        assert _reports(lambda: run(False)) == []
        assert _same(outs[True], outs[False])
    # a multiple of 8 a core: no scalar loop, nothing to report either way
    q, r = rng.standard_normal(1024).astype(np.float32), rng.standard_normal(1024).astype(np.float32)   # 2 x 512
    assert _reports(lambda: m.run_smooth_l1_loss_v2("atlas-a2", q, r, 1.0, "none", original_sync=True)) == []


def test_smooth_l1_loss_v2_core_zero_reads_the_slots_only_after_the_sync_all(monkeypatch):
    """The cores' partial sums meet in the GM workspace: with the SyncAll between the slot copies and core 0's read
    taken out, the sanitizer's "blocks" check reports core 0 reading bytes each other core writes in the same
    phase (SPEC-2 10.4, decisions.md "blocks"); with it the run is clean."""
    _, m = _spec_and_module("smooth_l1_loss_v2")
    rng = np.random.default_rng(6)
    p, lab = rng.standard_normal(20001).astype(np.float32), rng.standard_normal(20001).astype(np.float32)
    assert _reports(lambda: m.run_smooth_l1_loss_v2("atlas-a2", p, lab, 1.0, "sum")) == []
    monkeypatch.setattr(aj, "SyncAll", lambda: None)
    reports = _reports(lambda: m.run_smooth_l1_loss_v2("atlas-a2", p, lab, 1.0, "sum"))
    kinds = {(r.check, r.kind) for r in reports}
    assert reports and kinds == {("blocks", "a block reads GM bytes another block writes")}, kinds
    assert {r.block for r in reports} == set(range(1, 8))


def test_smooth_l1_loss_v2_default_sizes_run_clean_under_the_sanitizer():
    for name in ("smooth_l1_loss_v2", "smooth_l1_loss_v2_sum_half", "smooth_l1_loss_v2_none_bf16",
                 "smooth_l1_loss_v2_none"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("atlas-a3", k.make_inputs(k.default_size, 1))) == [], name
    k, _ = _spec_and_module("smooth_l1_loss_v2")
    assert _reports(lambda: k.run("atlas-a2", k.make_inputs(20001, 1)), "device-sync") == []


# kernels/apply_adam_w.py

def test_apply_adam_w_tiling_buffers_tiles_and_the_16_bit_ub_count():
    _, m = _spec_and_module("apply_adam_w")
    ub = aj.get_device("atlas-a2").ub_bytes
    # float, 100003: 2 MB over 5 units is more than 8 cores' UB: double-buffered, 6144 / 2 / 5 blocks a tile
    cores, buffers, t = m.tiling("atlas-a2", 100003, "float")
    assert (cores, buffers, t["tileDataNum"]) == (8, 2, 614 * 8)
    assert t["tailBlockNum"] == 12501 % 8 and t["bigCoreDataNum"] == (12501 // 8 + 1) * 8
    cores, buffers, t = m.tiling("atlas-a2", 30001, "float", amsgrad=True)
    assert (cores, buffers, t["tileDataNum"]) == (8, 1, 1024 * 8)
    assert m._ub_bytes_used("float", 8192, 1, True) == ub                  # the original fills the UB exactly
    # 16-bit single-buffered: the original's 12 units give 8192 elements a tile, 229376 bytes; the port counts 14
    assert m.tiling("atlas-a2", 3001, "half", original_ub=True)[2]["tileDataNum"] == 8192
    assert m._ub_bytes_used("half", 8192, 1, False) == 229376 > ub
    assert m.tiling("atlas-a2", 3001, "half")[2]["tileDataNum"] == 6144 // 14 * 16
    # amsgrad: half's 15 units fit (kept), bfloat16's 13 do not (15); double-buffered tiles fit as the original has
    assert m.tiling("atlas-a2", 3001, "half", amsgrad=True)[2]["tileDataNum"] == 6144 // 15 * 16
    assert m.tiling("atlas-a2", 3001, "bfloat16", amsgrad=True, original_ub=True)[2]["tileDataNum"] == 472 * 16
    assert m.tiling("atlas-a2", 3001, "bfloat16", amsgrad=True)[2]["tileDataNum"] == 6144 // 15 * 16
    assert m.tiling("atlas-a2", 10 ** 6, "half") == m.tiling("atlas-a2", 10 ** 6, "half", original_ub=True)


@pytest.mark.parametrize("dtype, amsgrad", [(np.float16, False), (BF16, False), (BF16, True)])
def test_apply_adam_w_original_16_bit_tiling_overflows_the_ub(dtype, amsgrad):
    """Deviation 2: with the original's ubDataNumber the float TBuf's InitBuffer runs past the UB; the emulator
    refuses it (OutOfBoundsError naming InitBuffer)."""
    _, m = _spec_and_module("apply_adam_w")
    x = np.full(301, 0.5, dtype)
    with pytest.raises(aj.OutOfBoundsError, match="InitBuffer"):
        m.run_apply_adam_w("atlas-a2", x, x, x, x, m.DEFAULT_SCALARS, x if amsgrad else None, original_ub=True)


def _adam_inputs(dtype, n, seed, amsgrad):
    rng = np.random.default_rng(seed)
    cast = lambda a: a.astype(np.float32).astype(dtype)          # noqa: E731
    var, m = cast(rng.standard_normal(n)), cast(rng.standard_normal(n) * 0.1)
    v, grad = cast(rng.uniform(0, 0.05, n)), cast(rng.standard_normal(n))
    mgn = cast(rng.uniform(0, 0.1, n)) if amsgrad else None
    return var, m, v, grad, mgn


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, n, amsgrad, maximize", [
    (np.float32, 100003, False, False), (np.float32, 5001, True, True), (np.float16, 77, False, False),
    (np.float16, 30001, True, False), (BF16, 20001, False, True), (BF16, 3001, True, False),
    (np.float16, 70001, False, True)])
def test_apply_adam_w_is_the_numpy_model(device, dtype, n, amsgrad, maximize):
    """var, m and v bit for bit: double-buffered tiles (100003 floats, 70001 halves), big and small cores, short
    tails."""
    _, m = _spec_and_module("apply_adam_w")
    if n == 70001:
        assert m.tiling(device, n, "half")[1] == 2
    var, mm, v, grad, mgn = _adam_inputs(dtype, n, n, amsgrad)
    scalars = dict(m.DEFAULT_SCALARS, lr=0.01, weight_decay=0.1)
    out = m.run_apply_adam_w(device, var, mm, v, grad, scalars, mgn, maximize)
    want = m.apply_adam_w_model(var, mm, v, grad, scalars, mgn, maximize)
    for o, w, name in zip(out, want, ("var", "m", "v")):
        assert _same(o, w), name


def test_apply_adam_w_is_the_formula_within_rounding():
    """Against float64 AdamW (the scalars read as the type holds them): float within a few float roundings, the
    16-bit types within their own rounding of each output."""
    _, m = _spec_and_module("apply_adam_w")
    for dtype, rtol in ((np.float32, 2e-6), (np.float16, 2 ** -10), (BF16, 2 ** -7)):
        var, mm, v, grad, mgn = _adam_inputs(dtype, 4000, 5, True)
        s = {k: float(np.array(val, dtype).astype(np.float64)) for k, val in m.DEFAULT_SCALARS.items()}
        out = [o.astype(np.float64) for o in m.run_apply_adam_w("atlas-a2", var, mm, v, grad, m.DEFAULT_SCALARS, mgn)]
        g, f = grad.astype(np.float64), lambda a: a.astype(np.float64)        # noqa: E731
        m_new = s["beta1"] * f(mm) + (1 - s["beta1"]) * g
        v_new = s["beta2"] * f(v) + (1 - s["beta2"]) * g * g
        den = np.sqrt(np.maximum(f(mgn), v_new) / (1 - s["beta2_power"] * s["beta2"])) + s["epsilon"]
        step = s["lr"] / (s["beta1_power"] * s["beta1"] - 1)
        var_new = f(var) * (1 - s["lr"] * s["weight_decay"]) + step * m_new / den
        for o, w in zip(out, (var_new, m_new, v_new)):
            assert np.allclose(o, w, rtol=rtol, atol=1e-6 if dtype == np.float32 else 1e-3 * rtol), dtype


def test_apply_adam_w_half_scalars_are_read_as_halves():
    """The scalars are tensors of the op's type: half epsilon 1e-8 is 0 (below half's smallest subnormal), so an
    element with m = v = grad = 0 divides 0 by 0 and var comes out NaN, where the float kernel keeps var * (1 - lr *
    wd)."""
    _, m = _spec_and_module("apply_adam_w")
    for dtype in (np.float16, np.float32):
        z = np.zeros(64, dtype)
        var = np.full(64, 2.0, dtype)
        out_var, out_m, out_v = m.run_apply_adam_w("atlas-a2", var, z, z, z, m.DEFAULT_SCALARS)
        if dtype == np.float16:
            assert np.isnan(out_var.astype(np.float32)).all()
        else:
            assert out_var[0] == np.float32(2.0 * np.float32(1 - np.float32(np.float32(1e-3) * np.float32(1e-2))))
        assert not out_m.any() and not out_v.any()


@pytest.mark.parametrize("n", [70001, 60001])
def test_apply_adam_w_original_view_past_the_buffer_is_refused_at_a_full_tile(n):
    """Deviation 4: without amsgrad the 16-bit tile still forms mgnLocal = gradLocal[processDataNum], which at a full
    tile starts at the 4-tile buffer's end (double-buffered 70001 halves; single-buffered 60001, 7500 a core over a
    7008-half tile): OutOfBoundsError from LocalTensor[] (decisions.md "Indexing"). A short tile is below the end
    (the form runs), and the port's view, formed only with amsgrad, runs every size."""
    _, m = _spec_and_module("apply_adam_w")
    var, mm, v, grad, _ = _adam_inputs(np.float16, n, 3, False)
    with pytest.raises(aj.OutOfBoundsError, match=r"LocalTensor\[\]"):
        m.run_apply_adam_w("atlas-a2", var, mm, v, grad, m.DEFAULT_SCALARS, original_views=True)
    short = m.run_apply_adam_w("atlas-a2", var[:999], mm[:999], v[:999], grad[:999], m.DEFAULT_SCALARS,
                               original_views=True)
    want = m.apply_adam_w_model(var[:999], mm[:999], v[:999], grad[:999], m.DEFAULT_SCALARS)
    assert all(_same(o, w) for o, w in zip(short, want))


def test_apply_adam_w_scalar_cast_reads_lanes_init_never_set():
    """Deviation 3: the half kernel sets 7 of the 16 halves its scalar Cast converts; the sanitizer reports the other
    9 as uninitialised (zero_tail=False, the original); the port's SetValue zeros leave no report, same results."""
    _, m = _spec_and_module("apply_adam_w")
    var, mm, v, grad, _ = _adam_inputs(np.float16, 500, 1, False)
    outs = {}

    def run(zero_tail):
        outs[zero_tail] = m.run_apply_adam_w("atlas-a2", var, mm, v, grad, m.DEFAULT_SCALARS, zero_tail=zero_tail)
    original = _reports(lambda: run(False))
    assert original and {(r.check, r.instruction.api) for r in original} == {("init", "Cast")}
    assert {(r.address, r.nbytes) for r in original} == {(14, 18)}
    assert _reports(lambda: run(True)) == []
    for a, b in zip(outs[True], outs[False]):
        assert _same(a, b)


def test_apply_adam_w_default_sizes_run_clean_under_the_sanitizer():
    """The bind queue's tiles are never enqueued: AllocTensor after FreeTensor orders the next tile's copies after
    the last one's (decisions.md "TQue hand-offs"; under device-sync the free event MTE3_MTE2)."""
    for name in ("apply_adam_w", "apply_adam_w_half_amsgrad", "apply_adam_w_bf16_maximize"):
        k, _ = _spec_and_module(name)
        inputs = k.make_inputs(20001, 2)
        assert _reports(lambda: k.run("atlas-a2", inputs)) == [], name
        assert _reports(lambda: k.run("atlas-a3", inputs), "device-sync") == [], name


def test_apply_adam_w_original_sync_first_tile_races_the_scalar_reads_the_device_orders():
    """Deviation 5 (session 63): the 16-bit kernel's bind queue reuses the scalar TBufs' bytes after TPipe::Reset, and
    a first AllocTensor orders nothing; without the port's PipeBarrier<PIPE_ALL>, SPEC-2 10.4 reports the first tile's
    copies over the SetValues and the Cast, each fix saying the device orders them; device-sync is clean."""
    _, m = _spec_and_module("apply_adam_w")
    var, mm, v, grad, _ = _adam_inputs(np.float16, 500, 1, False)

    def run():
        m.run_apply_adam_w("atlas-a2", var, mm, v, grad, m.DEFAULT_SCALARS, original_sync=True)
    reports = _reports(run)
    assert {(r.instruction.api, r.earlier.api) for r in reports} == {("DataCopy", "SetValue"), ("DataCopy", "Cast")}
    assert all("the device orders them already" in r.fix for r in reports)
    assert _reports(run, "report,device-sync") == []
