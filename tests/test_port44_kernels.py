"""The session-44 ports: kernels/softshrink.py (ops-nn Softshrink: Compares / Select / Compare NE, A2 and A3),
kernels/fused_mul_add_n.py (ops-math FusedMulAddN, the 950's Reg-API VFs over five types) and
kernels/fused_mul_addn_l2loss.py (ops-math FusedMulAddNL2loss, 950: y1 element-wise, y2 a sum across cores).
Each against a numpy model (bit for bit where the emulator's order is specified) and against the formula in float64
within the dtype's rounding; the host tilings; each deviation's reason (the original's form run and refused or
reported by the sanitizer); and what the porting found (test_found_*: strict xfails until the emulator changes)."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import sanitizer_reports as _reports, bits as _bits, spec_and_module as _spec_and_module

A2_A3 = ["atlas-a2", "atlas-a3"]


# kernels/softshrink.py

def test_softshrink_tiling_cores_buffers_and_tiles():
    _, m = _spec_and_module("softshrink")
    # 40003 floats: 8 cores of 5001 (the last 4996), double-buffered, UB / 4 / 6 rounded down to 64
    assert m.tiling("atlas-a2", 40003, "float", 0.5)[:2] == (8, 1)
    t = m.tiling("atlas-a2", 40003, "float", 0.5)[2]
    assert (t["blockFactor"], t["ubFactor"]) == (5001, 8192)
    # 16-bit types: 9 buffers when double-buffered, 7 otherwise; below 2048 elements one core, single-buffered
    assert m.tiling("atlas-a2", 30001, "half", 0.5)[2]["ubFactor"] == 196608 // 2 // 9 // 64 * 64
    assert m.tiling("atlas-a2", 2000, "bfloat16", 0.5)[:2] == (1, 1)
    assert m.tiling("atlas-a2", 1000, "bfloat16", 0.5)[:2] == (1, 0)
    assert m.tiling("atlas-a2", 1000, "bfloat16", 0.5)[2]["ubFactor"] == 196608 // 2 // 7 // 64 * 64


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("dtype, n", [(np.float32, 70001), (np.float16, 1000), (np.float16, 50003),
                                      (ml_dtypes.bfloat16, 20001), (np.float32, 7)])
def test_softshrink_is_the_numpy_model(device, dtype, n):
    """lambd = 0.1 (no 16-bit value): x -+ lambd rounds in float and again, half away from zero, to the type. The
    sizes reach one and several tiles a core, both buffer modes and one short core."""
    _, m = _spec_and_module("softshrink")
    x = np.random.default_rng(n).uniform(-3, 3, n).astype(np.float32).astype(dtype)
    y = m.run_softshrink(device, x, lambd=0.1)
    aj.testing.assert_bit_equal(y, m.softshrink_model(x, 0.1))


def test_softshrink_is_the_formula_within_the_types_rounding():
    """Against float64: float within one float rounding, half within CAST_ROUND's half ulp (2**-11 relative) on top,
    bfloat16 within 2**-8; |x| <= lambd gives exactly +0."""
    _, m = _spec_and_module("softshrink")
    for dtype, rtol in ((np.float32, 2 ** -24), (np.float16, 2 ** -11 + 2 ** -23), (ml_dtypes.bfloat16, 2 ** -8)):
        x = np.random.default_rng(1).uniform(-4, 4, 5000).astype(np.float32).astype(dtype)
        y = m.run_softshrink("atlas-a2", x, lambd=0.3).astype(np.float64)
        xf, lam = x.astype(np.float64), np.float64(np.float32(0.3))
        want = np.where(xf > lam, xf - lam, np.where(xf < -lam, xf + lam, 0.0))
        inside = np.abs(xf) <= lam
        assert np.all(_bits(np.asarray(y[inside], np.float64)) == 0), dtype
        assert np.allclose(y, want, rtol=rtol, atol=1e-30), dtype


def test_softshrink_specials_on_the_a2_and_a3_nan_comes_out_zero():
    """The original's NaN fix-up (Compare(x, x, NE) then Select x) meets the A2/A3 compare, which gives 0 for NE with
    a NaN (SPEC-2 D43): a NaN input leaves both branches unselected and comes out +0, on every type. inf -+ lambd
    keeps the infinities; -0 gives +0; exactly +-lambd gives +0."""
    _, m = _spec_and_module("softshrink")
    base = np.array([np.nan, np.inf, -np.inf, -0.0, 0.5, -0.5, 1.0, -1.0], np.float32)
    for dtype in (np.float32, np.float16, ml_dtypes.bfloat16):
        x = np.tile(base, 40).astype(dtype)
        for device in A2_A3:
            y = m.run_softshrink(device, x).astype(np.float32)[:8]
            assert y.tolist() == [0.0, np.inf, -np.inf, 0.0, 0.0, 0.0, 0.5, -0.5], (dtype, device)
            assert not np.signbit(y[[0, 3, 4, 5]]).any()


def test_softshrink_nan_fix_up_works_where_ne_is_ieee():
    """Not the original's device, the same sequence: on the 950 (and the 310B) Compare NE is IEEE (D43), so the
    fix-up selects the NaN and it passes through, as the operator means."""
    _, m = _spec_and_module("softshrink")
    x = np.tile(np.array([np.nan, 2.0, -2.0, 0.1], np.float32), 30)
    for device in ("ascend950", "atlas-200i-500-a2"):
        y = m.run_softshrink(device, x)
        assert np.isnan(y[0]) and y[1:4].tolist() == [1.5, -1.5, 0.0], device


def test_softshrink_short_tiles_read_lanes_nothing_wrote_which_the_port_zeroes():
    """Compute runs over alignedNum (256 bytes of float lanes) past the DataCopyPad's blocks: the original's sequence
    (zero_tail=False) reads UB bytes nothing wrote (the sanitizer says so); the port's Duplicate makes them zeros,
    and the stored results are the same either way. float: the Adds and the NaN Select read the input lanes past
    the copy; the Compares / Compare write their mask bits uninitialised and the Selects over alignedNum read them,
    reported there with the compare as the earlier instruction (docs/decisions.md "Sanitizer": a count-form
    Compare's never-written lanes are followed to what reads their bits); the NaN Select's never-written src0 lanes
    are followed to its dst, which the copy-out does not read ("The init check through a Select"). half: the
    widening Casts read the half lanes past the copy, and everything after reads their written floats."""
    _, m = _spec_and_module("softshrink")
    float_reports = {("Adds", "src", None), ("Select", "sel_mask", "Compares"), ("Select", "sel_mask", "Compare")}
    for dtype, want in ((np.float32, float_reports), (np.float16, {("Cast", "src", None)})):
        x = np.random.default_rng(2).uniform(-2, 2, 104).astype(dtype)
        ys = {}

        def run(zero_tail):
            ys[zero_tail] = m.run_softshrink("atlas-a2", x, zero_tail=zero_tail)
        original = _reports(lambda: run(False))
        assert {r.check for r in original} == {"init"}
        assert {(r.instruction.api, r.operand, r.earlier and r.earlier.api) for r in original} == want, dtype
        assert all(r.fix.startswith("these mask bits were computed from lanes of ") for r in original
                   if r.operand == "sel_mask")
        assert _reports(lambda: run(True)) == []
        aj.testing.assert_bit_equal(ys[False], ys[True])


def test_softshrink_default_sizes_run_clean_under_the_sanitizer():
    for name in ("softshrink", "softshrink_half", "softshrink_bf16"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("atlas-a2", k.make_inputs(9001, 0))) == [], name


# kernels/fused_mul_add_n.py

def test_fused_mul_add_n_tiling_former_and_tail_blocks():
    _, m = _spec_and_module("fused_mul_add_n")
    block_dim, raw = m.tiling("ascend950", 100003, "float")
    t = np.frombuffer(raw.tobytes(), m.FusedMulAddNTilingData)[0]
    # UB bits / 192 rounded down to 64 floats; ceil(100003 / 8) rounded up to 64 a core
    assert (block_dim, int(t["elemNum"]), int(t["blockFormer"])) == (8, 10560, 12544)
    assert (int(t["ubLoopOfFormerBlock"]), int(t["ubTailOfFormerBlock"])) == (2, 12544 - 10560)
    assert (int(t["ubLoopOfTailBlock"]), int(t["ubTailOfTailBlock"])) == (2, 100003 - 7 * 12544 - 10560)
    _, raw16 = m.tiling("ascend950", 70001, "int16")
    assert int(np.frombuffer(raw16.tobytes(), m.FusedMulAddNTilingData)[0]["elemNum"]) % 128 == 0


@pytest.mark.parametrize("name", ["fused_mul_add_n", "fused_mul_add_n_int32", "fused_mul_add_n_int16",
                                  "fused_mul_add_n_half", "fused_mul_add_n_bf16"])
def test_fused_mul_add_n_is_the_numpy_model(name):
    k, m = _spec_and_module(name)
    inputs = k.make_inputs(k.default_size, 4)
    y = k.run("ascend950", inputs)["y"]
    aj.testing.assert_bit_equal(y, k.expected("ascend950", inputs)["y"])


def test_fused_mul_add_n_integers_wrap_and_floats_round_twice():
    """int32 / int16: x1 * x3 and the sum keep the low bits (the 950's Reg Muls / Add wrap); float: the Muls and the
    Add round separately (no fused multiply-add: 1 + 2**-23 squared-ish cases differ from an fma)."""
    _, m = _spec_and_module("fused_mul_add_n")
    x1 = np.array([30000, -30000, 16384, 7] * 40, np.int16)
    x2 = np.array([10000, -10000, 0, -7] * 40, np.int16)
    y = m.run_fused_mul_add_n("ascend950", x1, x2, np.array([3], np.int16))
    assert y[:4].tolist() == [(90000 + 10000 + 2 ** 15) % 2 ** 16 - 2 ** 15, (-100000 + 2 ** 15) % 2 ** 16 - 2 ** 15,
                              (49152 + 2 ** 15) % 2 ** 16 - 2 ** 15, 14]
    e = np.float32(1 + 2 ** -12)
    f1 = np.full(100, e, np.float32)
    f2 = np.full(100, -np.float32(1 + 2 ** -11), np.float32)
    y = m.run_fused_mul_add_n("ascend950", f1, f2, np.array([e], np.float32))
    assert y[0] == np.float32(e * e) - np.float32(1 + 2 ** -11) == 0.0      # an fma would give 2**-24


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int16, np.float16, ml_dtypes.bfloat16])
def test_fused_mul_add_n_short_tails_and_the_originals_loads_clean_through_the_lanes(dtype):
    """Tails of 1, 63, 129 elements: the VF loads whole vectors, past the copy's 32-byte blocks where the tail is
    shorter (not at 63 floats / halves: 256 / 128 bytes copied, as many loaded). The port's Duplicate keeps the
    sanitizer quiet; session 54: the lanes carry the init check, and the original's sequence (zero_tail=False),
    reported as uninitialised reads before, runs clean too (its tail lanes never reach a store); same results."""
    _, m = _spec_and_module("fused_mul_add_n")
    rng = np.random.default_rng(5)
    for n in (1, 63, 129):
        x1 = rng.integers(-50, 50, n).astype(dtype)
        x2 = rng.integers(-50, 50, n).astype(dtype)
        x3 = np.array([3], dtype)
        out = {}

        def run(zero_tail):
            out[zero_tail] = m.run_fused_mul_add_n("ascend950", x1, x2, x3, zero_tail=zero_tail)
        assert _reports(lambda: run(True)) == [], (dtype, n)
        assert _reports(lambda: run(False)) == [], (dtype, n)
        aj.testing.assert_bit_equal(out[True], out[False])
        aj.testing.assert_bit_equal(out[True], m.fused_mul_add_n_model(x1, x2, x3))


def test_fused_mul_add_n_int16_store_dist_norm_b32_is_refused_deliberately():
    """Porting friction (deviation 2): FusedMulAddN<int16_t> stores its int16 register with DIST_NORM_B32 (the
    shared template's 32-bit distribution). docs/decisions.md: "A B8/B16/B32/B64 distribution requires the register's
    element size to equal the suffix width (UnsupportedDTypeError otherwise)". The port stores with DIST_NORM."""
    R = aj.Reg
    core = aj.Core("ascend950")
    with core:
        src, dst = core.local_tensor("int16", 128), core.local_tensor("int16", 128)
        aj.Duplicate(src, np.int16(3), 128)
        reg = R.RegTensor("int16")
        mask, _ = R.UpdateMask("int16", 101)
        R.DataCopy(reg, src[0], dist=R.LoadDist.DIST_NORM)
        with pytest.raises(aj.UnsupportedDTypeError, match="register element size"):
            R.DataCopy(dst[0], reg, mask, dist=R.StoreDist.DIST_NORM_B32)
        R.DataCopy(dst[0], reg, mask, dist=R.StoreDist.DIST_NORM)
        assert dst.numpy()[:101].tolist() == [3] * 101


# kernels/fused_mul_addn_l2loss.py

def test_fused_mul_addn_l2loss_tiling():
    _, m = _spec_and_module("fused_mul_addn_l2loss")
    block_dim, raw = m.tiling("ascend950", 100003)
    t = np.frombuffer(raw.tobytes(), m.FusedMulAddNL2lossTilingData)[0]
    assert (block_dim, int(t["ubTileSize"])) == (8, (253952 - 8512) // 28 // 64 * 64)
    assert (int(t["coreElements"]), int(t["tailCoreElements"])) == (12500, 100003 - 7 * 12500)
    assert m.tiling("ascend950", 200)[0] == 3 and m.tiling("ascend950", 5)[0] == 1


@pytest.mark.parametrize("name, n", [("fused_mul_addn_l2loss", 100003), ("fused_mul_addn_l2loss", 20001),
                                     ("fused_mul_addn_l2loss", 5), ("fused_mul_addn_l2loss_half", 50001),
                                     ("fused_mul_addn_l2loss_half", 9)])
def test_fused_mul_addn_l2loss_is_the_numpy_model_in_the_kernels_order(name, n):
    """y1 bit for bit; y2 bit for bit against the per-tile ReduceSum trees, the per-core float partials halved and
    added in block order (float), or core 0's serial sum (half)."""
    k, m = _spec_and_module(name)
    inputs = k.make_inputs(n, 6)
    out, want = k.run("ascend950", inputs), k.expected("ascend950", inputs)
    for key in ("y1", "y2"):
        aj.testing.assert_bit_equal(out[key], want[key])


def test_fused_mul_addn_l2loss_y2_is_half_the_sum_of_squares_within_float_rounding():
    """Against float64: float y2 within 1e-6 relative (tree sums of positive terms), half y2 within one half
    rounding (2**-11) plus that."""
    _, m = _spec_and_module("fused_mul_addn_l2loss")
    rng = np.random.default_rng(7)
    for dtype, rtol in ((np.float32, 1e-6), (np.float16, 2 ** -11 + 1e-6)):
        x1 = rng.standard_normal(30011).astype(np.float32).astype(dtype) * dtype(0.5)
        x2 = rng.standard_normal(30011).astype(dtype)
        out = m.run_fused_mul_addn_l2loss("ascend950", x1, x2, np.array([0.75], dtype))
        want = (x1.astype(np.float64) ** 2).sum() / 2
        assert abs(float(out["y2"][0]) - want) <= rtol * want, dtype
        f1, f2 = x1.astype(np.float64), x2.astype(np.float64)
        exact = f1 * 0.75 + f2
        room = 2 ** -24 * (np.abs(f1 * 0.75) + 2 * np.abs(exact))         # two float roundings
        if dtype == np.float16:
            room = room + 2 ** -11 * np.abs(exact) + 2 ** -25                # and one to half
        assert np.all(np.abs(out["y1"].astype(np.float64) - exact) <= room), dtype


def test_fused_mul_addn_l2loss_core_zero_clears_y2_before_the_sync(monkeypatch):
    """y2 starts as garbage (7.0 in the run helper); core 0's zeroing DataCopyPad before SyncAll makes the atomic
    sum start from 0. Without the SyncAll (the clear and the other cores' adds in one phase) the sanitizer reports
    the two blocks writing y2."""
    k, m = _spec_and_module("fused_mul_addn_l2loss")
    inputs = k.make_inputs(4000, 1)
    assert _reports(lambda: k.run("ascend950", inputs)) == []

    def without_sync(self):
        if self.blockIdx_ == 0:
            sumUb = self.sumBuf_.Get("float")
            aj.Duplicate(sumUb, np.float32(0.0), 8)
            aj.PipeBarrier(aj.PIPE_ALL)
            aj.DataCopyPad(self.y2Gm_[0], sumUb, aj.DataCopyExtParams(1, 4, 0, 0, 0))
        accUb = self.accBuf_.Get("float")
        aj.PipeBarrier(aj.PIPE_ALL)
        aj.SetAtomicAdd("float")
        aj.DataCopyPad(self.y2Gm_[0], accUb, aj.DataCopyExtParams(1, 4, 0, 0, 0))
        aj.SetAtomicNone()
    monkeypatch.setattr(m.FusedMulAddNL2lossKernel, "ReduceY2Atomic", without_sync)
    reports = _reports(lambda: k.run("ascend950", inputs))
    assert reports and {r.check for r in reports} == {"blocks"}


def test_fused_mul_addn_l2loss_scalar_gm_atomic_add_is_not_offered():
    """Porting friction (deviation 2): the original adds each core's partial by the scalar `AtomicAdd<float>(__gm__
    float*, float)` (DK SIMD-API 基础API 原子操作 AtomicAdd.md, 950 only). Neither SPEC-2 nor decisions.md names it;
    `aj.AtomicAdd` was Python's bare AttributeError, and is now a NotOfferedError naming what to write instead. The
    port's SetAtomicAdd + DataCopyPad of one float gives the same y2: 0 + p0 + p1 + ... in block order."""
    with pytest.raises(aj.NotOfferedError, match="SetAtomicAdd"):
        aj.AtomicAdd  # noqa: B018 (the lookup is the test)
    k, m = _spec_and_module("fused_mul_addn_l2loss")
    inputs = k.make_inputs(3001, 2)
    out = k.run("ascend950", inputs)
    x1 = inputs["x1"]
    block_num, raw = m.tiling("ascend950", x1.size)
    t = np.frombuffer(raw.tobytes(), m.FusedMulAddNL2lossTilingData)[0]
    core = int(t["coreElements"])
    y2 = np.float32(0)
    for b in range(block_num):           # one tile a core here: the partial is one ReduceSum, halved
        chunk = (x1 * x1)[b * core:(b + 1) * core if b < block_num - 1 else None]
        tree = aj.explain_reduce_order("ascend950", "count", "float", count=chunk.size)
        y2 = np.float32(y2 + np.float32(np.float32(tree.evaluate_batch(chunk[None, :])[0]) * np.float32(0.5)))
    assert _bits(out["y2"])[0] == _bits(np.array([y2]))[0]


def test_fused_mul_addn_l2loss_half_sum_overflows_to_inf_as_the_cast_does():
    """Half y2: the float sum is cast to half with CAST_NONE (RINT) under the 950's default non-saturating mode: past
    65504 it is +inf (SPEC-2 D46)."""
    _, m = _spec_and_module("fused_mul_addn_l2loss")
    x1 = np.full(3000, 8.0, np.float16)
    out = m.run_fused_mul_addn_l2loss("ascend950", x1, x1, np.array([1.0], np.float16))
    assert out["y2"][0] == np.inf
    assert out["y1"][0] == 16.0


# found while porting: an instruction issued by one launch block runs on another block's UB

_SHARED = {}


@aj.Reg.simd_vf
def _store_vf(dst, value, n):
    v = aj.Reg.RegTensor("float")
    m, rest = aj.Reg.UpdateMask("float", n)
    aj.Reg.Duplicate(v, value, m)
    aj.Reg.StoreAlign(dst[0], v, m)


def _cross_block_kernel(out, via_vf):
    pipe = aj.TPipe()
    buf = aj.TBuf(aj.TPosition.VECCALC)
    pipe.InitBuffer(buf, 256)
    t = buf.Get("float")
    aj.Duplicate(t, np.float32(aj.GetBlockIdx()), 64)
    _SHARED[aj.GetBlockIdx()] = t                 # a Python port's module-level cache: block 1 sees block 0's tensor
    aj.SyncAll()
    if aj.GetBlockIdx() == 1:
        if via_vf:
            aj.Reg.asc_vf_call(_store_vf, _SHARED[0], np.float32(99.0), 64)
        else:
            aj.Duplicate(_SHARED[0], np.float32(99.0), 64)
    aj.SyncAll()
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(out)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopyPad(g[aj.GetBlockIdx()], t, aj.DataCopyExtParams(1, 4, 0, 0, 0))


@pytest.mark.parametrize("via_vf", [False, True], ids=["memory_api_duplicate", "reg_vf_store"])
def test_found_one_launch_block_writes_another_blocks_ub(via_vf):
    """Found while porting (port44). Block 1 of an aj.launch calls Duplicate (or a Reg VF's StoreAlign) on a
    LocalTensor block 0 made (a tensor a Python port left in a module-level cache, which the launch's threads
    share): the write landed in block 0's UB, block 0 copied out 99.0 instead of its own 0.0, and neither the call nor
    the sanitizer said anything. A vector core can address only its own UB (docs/decisions.md "DataCopy operands":
    "only GM <-> UB and UB <-> UB within one core exist on the hardware"). The sanitizer's "blocks" check now
    reports it, in the accessing block, before anything is written; without the sanitizer such a tensor is not
    refused (docs/decisions.md "Left as they are": the check would cost every call's fast path)."""
    out = np.zeros(8, np.float32)
    with aj.sanitize_session("report") as session:
        aj.launch(_cross_block_kernel, 2, "ascend950", out, via_vf)
    found = [r for r in session.reports if (r.check, r.kind) == ("blocks", "another core's UB")]
    assert found and {r.block for r in found} == {1}, session.reports
    assert all("a LocalTensor of block 0 of this launch" in r.fix for r in found), found
    with pytest.raises(aj.SanitizerError, match="another core's UB"):
        aj.launch(_cross_block_kernel, 2, "ascend950", np.zeros(8, np.float32), via_vf, sanitize=True)


def test_a_launch_block_using_its_own_tensors_is_not_reported():
    """The check compares the tensor's core with the block's own: a block's own tensors, and a core used outside
    any launch, are not reported."""
    core = aj.Core("atlas-a2", sanitize="report")
    t = core.local_tensor("float", 64)
    with core:
        aj.Duplicate(t, 1.0, 64)
    assert core.sanitizer.reports == []
