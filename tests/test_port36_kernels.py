"""The session-36 ports (port36d) of ops-nn experimental kernels: kernels/softplus.py, kernels/mish.py,
kernels/soft_margin_loss.py and kernels/group_norm.py. The host tilings as written, the MODELLED outputs against the
chains staged through the reference model (each instruction rounded once: the emulator's Exp / Ln / Div are the
correctly rounded model), and each port's deviations: without them the sanitizer reports what the original does
(Mish's rounded compare reading lanes nothing wrote; SoftMarginLoss's and GroupNorm's unordered scalar and copy-out
accesses), and the originals' sequences that compute something else (SoftMarginLoss's half "none" path,
GroupNorm's 16-bit scalar float buffer) reproduce their values."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry
from ascend_jit.reference import elementwise as ref
from ported import module as _module, one_device_each


def _spec_and_module(name):
    """The kernel's spec from the module a monkeypatch reaches (the module of a registry() call's spec)."""
    m = _module(name)
    return next(k for k in m.KERNELS if k.name == name), m


def _narrow(values, dtype):
    f = np.asarray(values, np.float32)
    return {"float": f, "half": f.astype(np.float16), "bfloat16": f.astype(ml_dtypes.bfloat16)}[dtype]


def test_softplus_tiling_overwrites_the_float_split_and_picks_the_buffer_count():
    m = _module("softplus")
    fields = lambda raw: np.frombuffer(raw.tobytes(), m.SoftplusTilingData)[0]
    # float below 8 x UB / 3 bytes: one buffer, but tiles of UB / 10 (the 16-bit test's else branch), A2: 4912
    block_dim, raw = m.tiling("atlas-a2", 30000, "float")
    t = fields(raw)
    assert (block_dim, int(t["bufferOpen"]), int(t["tileDataNum"])) == (8, 0, 196608 // 32 // 10 * 8)
    # half below 8 x UB / 8 bytes: one buffer, UB / 8 tiles; above: two buffers, UB / 10
    assert int(fields(m.tiling("atlas-a2", 30000, "half")[1])["tileDataNum"]) == 196608 // 32 // 8 * 16
    t = fields(m.tiling("atlas-a2", 200003, "half")[1])
    assert (int(t["bufferOpen"]), int(t["tileDataNum"])) == (1, 196608 // 32 // 10 * 16)


# each type on one device by default (3 s warm on both)
@pytest.mark.parametrize("name, dtype, device", one_device_each(
    [("softplus", "float"), ("softplus_half", "half"), ("softplus_bf16", "bfloat16")], ["atlas-a2", "ascend950"]))
def test_softplus_equals_its_staged_reference_chain(name, dtype, device):
    k = registry()[name]
    inputs = k.make_inputs(5000, 7)
    x, env, F = inputs["x"].astype(np.float64), ref.Env(device), "float"
    m = ref.max_(F, env, x, 0.0)
    y = ref.add(F, env, ref.ln(F, env, ref.add(F, env, ref.exp(F, env, ref.mul(F, env, m, -1.0)), 1.0)), m)
    y = ref.add(F, env, y, ref.ln(F, env, ref.add(F, env, ref.exp(F, env, ref.min_(F, env, x, 0.0)), 1.0)))
    y = ref.add(F, env, y, float(_module(name).MAGIC_NUM))
    assert k.run(device, inputs)["y"].tobytes() == _narrow(y, dtype).tobytes()


# each type on one device by default (5 s warm on both)
@pytest.mark.parametrize("name, dtype, device", one_device_each(
    [("mish", "float"), ("mish_half", "half"), ("mish_bf16", "bfloat16")], ["atlas-a2", "ascend950"]))
def test_mish_equals_its_staged_reference_chain(name, dtype, device):
    k = registry()[name]
    inputs = k.make_inputs(5000, 7)
    x, env, F = inputs["x"].astype(np.float64), ref.Env(device), "float"
    exp, mul, add, div = (lambda v: ref.exp(F, env, v)), (lambda a, b: ref.mul(F, env, a, b)), \
        (lambda a, b: ref.add(F, env, a, b)), (lambda a, b: ref.div(F, env, a, b))
    t1 = add(mul(exp(mul(x, -1.0)), 2.0), 1.0)
    positive = div(t1, add(t1, mul(exp(mul(x, -2.0)), 2.0)))
    y = add(mul(exp(x), 2.0), exp(mul(x, 2.0)))
    negative = div(y, add(y, 2.0))
    want = mul(np.where(x > 0, positive, negative), x)
    assert k.run(device, inputs)["y"].tobytes() == _narrow(want, dtype).tobytes()


@pytest.mark.parametrize("name, size", [("mish", 1001), ("mish_half", 3001)])
def test_mish_original_rounded_compare_pad_bits_are_never_read(monkeypatch, name, size):
    """One core of 1001 floats (copied as 1008, compared as 1024) or 3 cores of 1008/992 halves (Cast to as many
    floats): without the port's zeroes the CompareScalar compares float lanes nothing wrote, which leaves their mask
    bits uninitialised (docs/decisions.md "Sanitizer": a count-form Compare's never-written lanes are followed to what
    reads their bits; it was reported at the CompareScalar). The Select of the copied count (a multiple of 8) reads
    only the bytes of written lanes: no report; the outputs are the same."""
    k, m = _spec_and_module(name)
    inputs = k.make_inputs(size, 3)
    want = k.run("atlas-a2", inputs)["y"]
    monkeypatch.setattr(m.KernelMish, "ZeroComparePadding", lambda self, tile: None)
    with aj.sanitize_session("report") as session:
        y = k.run("atlas-a2", inputs)["y"]
    assert y.tobytes() == want.tobytes()
    assert session.reports == []


@pytest.mark.parametrize("name", ["soft_margin_loss_mean", "soft_margin_loss_sum_half"])
def test_soft_margin_loss_original_scalar_accesses_race(monkeypatch, name):
    k, m = _spec_and_module(name)
    inputs = k.make_inputs(20011, 1)
    want = k.run("atlas-a2", inputs)["loss"]
    monkeypatch.setattr(m, "_flag_pair", lambda event: None)
    with aj.sanitize_session("report") as session:
        got = k.run("atlas-a2", inputs)["loss"]
    assert got.tobytes() == want.tobytes()
    races = {(r.instruction.api, r.earlier.api) for r in session.reports if r.check == "race"}
    assert races == {("GetValue", "ReduceSum"), ("DataCopyPad", "SetValue")}


@pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync,dcache", reason="reads the sum by GetValue right after "
                                                                             "ReduceSum, with no V_S flag between them")
def test_soft_margin_loss_original_in_place_reduce_runs_and_its_one_element_window_is_refused():
    """The original's ReduceSum(lossLocal, lossLocal, reduceTmp, n) runs as written (docs/decisions.md "Reductions
    in place"); its 32-byte DataCopyPad through a one-element GlobalTensor is refused ("Scaffolding")."""
    core = aj.Core("atlas-a2")
    loss, tmp = core.local_tensor("float", 1024), core.local_tensor("float", 1024)
    loss[:] = np.ones(1024, np.float32)
    aj.ReduceSum(loss, loss, tmp, 1000)
    assert loss.GetValue(0) == 1000.0 and np.all(loss.numpy()[1:] == 1.0)
    out = np.zeros(8, np.float32)
    gm = aj.GlobalTensor()
    gm.SetGlobalBuffer(out, 1)
    with core, pytest.raises(aj.OutOfBoundsError):
        aj.DataCopyPad(gm[0], loss, aj.DataCopyParams(1, 32, 0, 0))


def test_soft_margin_loss_half_none_as_written_computes_the_loss_of_another_target(monkeypatch):
    k, m = _spec_and_module("soft_margin_loss_half")
    inputs = k.make_inputs(3000, 2)
    monkeypatch.setattr(m, "ORIGINAL_HALF_NONE_SEQUENCE", True)
    got = k.run("atlas-a2", inputs)["loss"].astype(np.float64)
    x, t = inputs["self"].astype(np.float64), inputs["target"].astype(np.float64)

    def loss(tx):
        return np.maximum(-tx, 0.0) + np.log1p(np.exp(-np.abs(tx)))

    assert np.max(np.abs(got - loss(t * x)) / loss(t * x)) > 1.0
    other = loss(np.log1p(np.exp(-np.abs(t * x))) * x)
    assert np.max(np.abs(got - other) / other) < 1e-3


# kernels/group_norm.py (ops-nn experimental GroupNorm)

def test_group_norm_tiling_follows_the_host_formulas():
    m = _module("group_norm")
    fields = lambda raw: np.frombuffer(raw.tobytes(), m.GroupNormTilingData)[0]
    # 3 x 8 x 1024, 2 groups of 4096: 6 cores of one group; tiles of 196608 / 2 / 4 / 8 = 3072 floats (general)
    block_dim, key, raw = m.tiling("atlas-a2", (3, 8, 1024), 2)
    t = fields(raw)
    assert (block_dim, key, int(t["tileLength"]), int(t["groupPerCore"]), int(t["groupTailCore"])) == \
        (6, m.GROUP_NORM_SCH_GENERAL, 3072, 1, 0)
    # 13 x 16 x 64, 4 groups: 52 groups over 8 cores (4 of them 7), the tile one group (small-group schedule)
    block_dim, key, raw = m.tiling("atlas-a2", (13, 16, 64), 4)
    t = fields(raw)
    assert (block_dim, key, int(t["tileLength"]), int(t["groupPerCore"]), int(t["groupTailCore"])) == \
        (8, m.GROUP_NORM_SCH_SMALL_GROUP, 256, 6, 4)
    assert t["invElementsPerGroup"] == np.float32(1.0) / np.float32(256)


@pytest.mark.parametrize("name, size", [("group_norm", 2048), ("group_norm_half", 1536),
                                        ("group_norm_bf16_big_group", 8192), ("group_norm_single", 144)])
def test_group_norm_original_scalar_and_copy_out_accesses_race(monkeypatch, name, size):
    k, m = _spec_and_module(name)
    inputs = k.make_inputs(size, 1)
    want = k.run("atlas-a2", inputs)
    monkeypatch.setattr(m, "_flag_pair", lambda event: None)
    with aj.sanitize_session("report") as session:
        got = k.run("atlas-a2", inputs)
    assert all(got[key].tobytes() == want[key].tobytes() for key in want)
    assert session.reports and {r.check for r in session.reports} == {"race"}


def test_group_norm_half_original_scalar_float_buffer_overwrites_the_tile(monkeypatch):
    """LoadScalarAsFloat Casts gamma, then beta, into xFloatBuf[0] while it holds the tile being normalised: each
    group's first element comes out as (beta - mean) * scale + beta."""
    k, m = _spec_and_module("group_norm_half")
    inputs = k.make_inputs(1536, 0)
    want = k.expected("atlas-a2", inputs)["y"]
    monkeypatch.setattr(m, "ORIGINAL_SCALAR_FLOAT_BUFFER", True)
    y = k.run("atlas-a2", inputs)["y"]
    differ = np.argwhere(y != want)
    assert [tuple(i) for i in differ] == [(0, 4 * g, 0) for g in range(8)]
