"""The session-39 ports (port39m) of ops-math experimental kernels: kernels/equal.py, kernels/reflection_pad1d_v2.py
and kernels/pdist.py. Each against an expectation computed with numpy alone, on two devices; the host tilings'
choices; and each deviation: the original's sequence run and refused or reported as the port's docstring says."""

import numpy as np
import pytest

import ascend_jit as aj
from ported import sanitizer_reports as _reports, spec_and_module as _spec_and_module


# kernels/equal.py

def test_equal_tiling_rounds_the_compare_counts_to_256_bytes():
    _, m = _spec_and_module("equal")
    block_dim, raw = m.tiling("atlas-a2", 100003, "float")
    t = np.frombuffer(raw.tobytes(), m.EqualTilingData)[0]
    # (192 KiB - 9984 B) / 4 / 32 / 5 runs of 32 floats: 9312 a tile, compared as 9344; 8 cores, 6 of them one run more
    assert block_dim == 8
    assert (int(t["tileDataNum"]), int(t["bigprocessDataNum_computes"]), int(t["smallCoreDataNum"]),
            int(t["bigCoreDataNum"]), int(t["tailBlockNum"]), int(t["smallTailDataNum"]),
            int(t["tailsmallprocessDataNum_computes"])) == (9312, 9344, 12480, 12512, 6, 3168, 3200)
    block_dim, raw = m.tiling("atlas-a2", 100003, "half")      # a tile of 16384 halves: one a core
    assert (block_dim, int(np.frombuffer(raw.tobytes(), m.EqualTilingData)[0]["finalBigTileNum"])) == (8, 1)
    assert m.tiling("atlas-a2", 1000, "float")[0] == 1          # a tile holds the input: one core


@pytest.mark.parametrize("name, size", [("equal", 100003), ("equal", 77), ("equal_half", 100003),
                                        ("equal_half", 4099), ("equal_int32", 40003), ("equal_int8", 300001),
                                        ("equal_uint32", 4099)])
@pytest.mark.parametrize("device", ["atlas-a2", "atlas-inference-aicore"])
def test_equal_is_numpy_equality(name, size, device):
    k, _ = _spec_and_module(name)
    if not k.supports(device):
        pytest.skip(f"{name} does not run on {device}")
    inputs = k.make_inputs(size, 11)
    y = k.run(device, inputs)["y"]
    assert y.dtype == np.int8
    assert np.array_equal(y, (inputs["x1"] == inputs["x2"]).astype(np.int8))
    assert 0 < y.sum() < size                                      # both outcomes occur


def test_equal_half_finite_edge_cases():
    """The arithmetic sequence is equality for finite halves: the smallest subnormal apart, -0 against +0, and a
    difference that overflows (65504 - -65504, inf on the A2, saturated to 65504 on the 310P)."""
    k, _ = _spec_and_module("equal_half")
    sub = np.float16(2.0 ** -24)
    x1 = np.array([0, sub, 0, 65504, -65504, 1, 2048, 3], np.float16)
    x2 = np.array([sub, sub, -0.0, -65504, -65504, 1, 2049, -3], np.float16)
    x1, x2 = np.tile(x1, 8), np.tile(x2, 8)
    for device in ("atlas-a2", "atlas-inference-aicore"):
        y = k.run(device, {"x1": x1, "x2": x2})["y"]
        assert y.tolist() == (x1 == x2).astype(np.int8).tolist()


def test_equal_original_int8_sel_mask_is_refused(monkeypatch):
    """The original hands Select the int8 tile Compare wrote; the devkit's Select takes unsigned selMasks only."""
    k, m = _spec_and_module("equal")
    monkeypatch.setattr(m, "ORIGINAL_INT8_SEL_MASK", True)
    with pytest.raises(aj.UnsupportedDTypeError, match="sel_mask"):
        k.run("atlas-a2", k.make_inputs(1000, 1))


@pytest.mark.parametrize("name", ["equal", "equal_int32"])
def test_equal_original_rounded_compare_reads_lanes_past_the_copy(monkeypatch, name):
    """Without the port's zeroing, the Compare over the 256-byte rounded count reads lanes no copy wrote (a tile of
    77 elements, copied as 96, compared as 128), and the Select over the same rounded count reads the mask bytes of
    lanes 96-127: reported at the Select, with the Compare as the earlier instruction (docs/decisions.md
    "Sanitizer": a count-form Compare's never-written lanes are followed to what reads their bits); the outputs are
    the same."""
    k, m = _spec_and_module(name)
    inputs = k.make_inputs(77, 2)
    assert not _reports(lambda: k.run("atlas-a2", inputs))
    monkeypatch.setattr(m, "ORIGINAL_ROUNDED_READS", True)
    y = None

    def run():
        nonlocal y
        y = k.run("atlas-a2", inputs)["y"]
    reports = _reports(run)
    assert [(r.check, r.instruction.api, r.operand, r.earlier.api, r.nbytes) for r in reports] == \
        [("init", "Select", "sel_mask", "Compare", 4)]
    assert reports[0].fix.startswith("these mask bits were computed from lanes of ")
    assert np.array_equal(y, (inputs["x1"] == inputs["x2"]).astype(np.int8))


def test_equal_int32_is_refused_where_compare_lacks_int32():
    k, _ = _spec_and_module("equal_int32")
    assert not k.supports("atlas-200i-500-a2")
    with pytest.raises(aj.UnsupportedDTypeError, match="Compare"):
        k.run("atlas-200i-500-a2", k.make_inputs(1000, 1))


# kernels/reflection_pad1d_v2.py

def test_reflection_pad1d_v2_tiling():
    _, m = _spec_and_module("reflection_pad1d_v2")
    block_dim, raw, ws = m.tiling("atlas-a2", (23, 3, 37), (5, 9), "float")
    t = np.frombuffer(raw.tobytes(), m.ReflectionPad1dV2TilingData)[0]
    assert block_dim == 8 and (int(t["wSize"]), int(t["alignWSize"]), int(t["ncPerCore"]), int(t["tailNC"]),
                               int(t["ubElementNum"]), int(t["workspacePerCore"])) == (37, 40, 8, 5, 8128, 0)
    assert ws == aj.GetLibApiWorkSpaceSize("atlas-a2")
    assert m.tiling("atlas-a2", (5, 7), (6, 3), "bfloat16")[0] == 5          # N x C <= cores: one row a core
    # large pads: the workspace the kernel never uses
    _, raw, ws = m.tiling("atlas-a2", (2, 9000), (5000, 5000), "float")
    t = np.frombuffer(raw.tobytes(), m.ReflectionPad1dV2TilingData)[0]
    assert int(t["workspacePerCore"]) == 19000 * 4 and ws == 2 * 19000 * 4 + aj.GetLibApiWorkSpaceSize("atlas-a2")


@pytest.mark.parametrize("dtype, shape, pads", [("float", (4, 3, 37), (5, 9)), ("half", (11, 16), (15, 15)),
                                                ("bfloat16", (3, 1), (0, 0)), ("float", (19, 8), (7, 0))])
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_reflection_pad1d_v2_is_numpy_reflect(dtype, shape, pads, device):
    _, m = _spec_and_module("reflection_pad1d_v2")
    x = np.random.default_rng(3).standard_normal(shape).astype(m._NP[dtype])
    y = m._run(dtype, pads)(device, {"x": x})["y"]
    want = np.pad(x.astype(np.float32), [(0, 0)] * (x.ndim - 1) + [pads], mode="reflect").astype(x.dtype)
    assert y.shape == want.shape and y.tobytes() == want.tobytes()


def test_reflection_pad1d_v2_copy_in_pads_the_block_with_zeros():
    """The CopyIn's DataCopyPad pads W = 5 floats to the 8-float block with the padding value 0."""
    _, m = _spec_and_module("reflection_pad1d_v2")
    seen = []
    real = m.ReflectionPad1dV2.Compute

    def spy(self):
        t = self.inQueueX.DeQue(self.T)
        aj.PipeBarrier(aj.PIPE_ALL)
        seen.append(t.numpy()[:self.alignWSize].copy())
        self.inQueueX.EnQue(t)
        real(self)
    m.ReflectionPad1dV2.Compute = spy
    try:
        m._run("float", (1, 1))("atlas-a2", {"x": np.arange(1, 6, dtype=np.float32).reshape(1, 5)})
    finally:
        m.ReflectionPad1dV2.Compute = real
    assert seen[0].tolist() == [1, 2, 3, 4, 5, 0, 0, 0]


def test_reflection_pad1d_v2_rows_past_the_ub_are_refused_at_init_buffer():
    """The output queue holds a whole padded row in two buffers: 16 K floats of output do not fit the A2's UB."""
    _, m = _spec_and_module("reflection_pad1d_v2")
    x = np.zeros((1, 12000), np.float32)
    with pytest.raises(aj.OutOfBoundsError, match="InitBuffer"):
        m._run("float", (2000, 2000))("atlas-a2", {"x": x})


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_reflection_pad1d_v2_scalar_flags_hold_under_device_sync(monkeypatch, device):
    """port64e: the VECOUT AllocTensor's free event is MTE3_V, so an earlier row's copy-out races the next row's
    SetValue on the device; the port's deviation adds MTE3_S (with MTE2_S and S_MTE3), and "device-sync" reports
    the original's three scalar hazards and none of the port's."""
    k, m = _spec_and_module("reflection_pad1d_v2")
    inputs = k.make_inputs(k.default_size, 1)

    def reports():
        with aj.sanitize_session("report,device-sync") as session:
            k.run(device, inputs)
        return {(r.kind, r.instruction.api, r.earlier.api) for r in session.reports}
    assert reports() == set()
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    assert reports() == {("RAW", "GetValue", "DataCopyPad"), ("WAR", "SetValue", "DataCopyPad"),
                         ("RAW", "DataCopyPad", "SetValue")}


# kernels/pdist.py

def test_pdist_tiling_counts_the_compare_bits_and_deals_blocks_of_eight():
    _, m = _spec_and_module("pdist")
    block_dim, raw, ws = m.tiling("atlas-a2", 23, 100, "float", 2.0)
    t = m.PdistTilingData.from_buffer_copy(raw.tobytes())
    # 253 pairs: 3 blocks of 8 a core on 8 cores, 7 more full blocks on cores 0..6, 5 pairs on core 7
    assert (block_dim, t.computeNum, t.numBlockEachCore, t.lastNumsBlocks, t.lastNumsNoneFullBlock, t.tilingKey) \
        == (8, 253, 3, 7, 5, 1)
    assert t.ubTensorEachLoop % 64 == 0 and ws == 4
    assert [m.PdistTilingData.from_buffer_copy(m.tiling("atlas-a2", 4, 3, "float", p)[1].tobytes()).tilingKey
            for p in (0.0, 1.0, 3.5, np.inf)] == [0, 1, 1, 2]
    assert m.tiling("atlas-a2", 4, 3, "float", 1.0)[0] == 1         # 6 pairs: one core


def test_pdist_pair_index_maps_to_rows_like_triu_indices():
    _, m = _spec_and_module("pdist")
    op = m.Pdist("float")
    for n in (2, 3, 17, 300):
        op.rows_ = n
        i, j = np.triu_indices(n, 1)
        assert [op.GetIJFromIndex(k) for k in range(len(i))] == list(zip(i.tolist(), j.tolist()))


def test_pdist_original_pair_index_fails_from_6455_rows():
    """Known defect of the original kept by the port: the integer square root's 16 Newton steps from y = disc do not
    reach sqrt(disc) for disc above about 2**26, so from 6455 rows (of the 65535 the tiling accepts) the first pairs
    map to rows far past the input (a GM read out of range on the device)."""
    _, m = _spec_and_module("pdist")
    op = m.Pdist("float")
    op.rows_ = 6454
    assert op.GetIJFromIndex(0) == (0, 1)
    op.rows_ = 6455
    assert op.GetIJFromIndex(0) != (0, 1) and op.GetIJFromIndex(0)[0] > 6455


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_pdist_rows_longer_than_a_chunk_are_reduced_chunk_by_chunk(device):
    """Three rows of 2 x ubTensorEachLoop + 5 floats: three chunks a pair, the partial sums added on the scalar unit
    (integer values: exact in every order)."""
    _, m = _spec_and_module("pdist")
    loop = m.PdistTilingData.from_buffer_copy(m.tiling(device, 3, 10, "float", 1.0)[1].tobytes()).ubTensorEachLoop
    x = np.random.default_rng(1).integers(-3, 4, (3, 2 * loop + 5)).astype(np.float32)
    for p, reduce in ((1.0, lambda d: d.sum(axis=1)), (np.inf, lambda d: d.max(axis=1)),
                      (0.0, lambda d: (d != 0).sum(axis=1))):
        y = m._run("float", p)(device, {"x": x})["y"]
        i, j = np.triu_indices(3, 1)
        assert y.tolist() == reduce(np.abs(x[i].astype(np.float64) - x[j])).astype(np.float32).tolist()


@pytest.mark.parametrize("name", ["pdist", "pdist_p1_half", "pdist_p0", "pdist_inf", "pdist_p3_half"])
@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
def test_pdist_is_its_declared_expectation_and_zero_for_equal_rows(name, device):
    """Each variant within its declared tolerance of the float64 formula (bit for bit for p = 0, 1, inf), at a size
    with a partial block of pairs; the pair (0, 1) of equal rows is exactly 0 (ApplyInvP's Select of 0.0f)."""
    k, _ = _spec_and_module(name)
    cols = int(k.size_rule.split("= ")[1].split(",")[0])
    size = 6 * cols                                                      # 15 pairs: two blocks, the second partial
    ok, lines, outputs, _ = k.execute(device, size, 4)
    assert ok, lines
    assert outputs["y"].size == 15 and float(outputs["y"][0]) == 0.0 and (outputs["y"][1:] > 0).all()


def test_pdist_chunk_bytes_past_the_uint16_block_len_are_refused():
    """The original's chunk (about 24 K floats on the A2) as one DataCopyParams.blockLen: more than the uint16's 65535
    bytes, which the device would wrap; the port's tiling caps the chunk."""
    _, m = _spec_and_module("pdist")
    core = aj.Core("atlas-a2")
    gm, ub = aj.GlobalTensor("float"), core.local_tensor("float", 23744)
    gm.SetGlobalBuffer(np.zeros(23744, np.float32), 23744)
    with core, pytest.raises(aj.ParameterError, match="blockLen"):
        aj.DataCopyPad(ub, gm, aj.DataCopyParams(1, 23744 * 4, 0, 0), (False, 0, 0, 0))
    for dtype, cap in (("float", 16320), ("half", 19072)):     # half: the UB budget's 19072 is below the cap
        raw = m.tiling("atlas-a2", 3, 10, dtype, 1.0)[1]
        assert m.PdistTilingData.from_buffer_copy(raw.tobytes()).ubTensorEachLoop == cap


def test_pdist_original_ub_budget_overruns_the_ub(monkeypatch):
    k, m = _spec_and_module("pdist")
    monkeypatch.setattr(m, "ORIGINAL_UB_BUDGET", True)
    with pytest.raises(aj.OutOfBoundsError, match="InitBuffer"):
        k.run("atlas-a2", k.make_inputs(k.default_size, 1))


def test_pdist_original_eight_float_results_are_read_as_a_whole_repeat_on_the_a2(monkeypatch):
    k, m = _spec_and_module("pdist")
    monkeypatch.setattr(m, "ORIGINAL_OUT_SIZE", True)
    inputs = k.make_inputs(k.default_size, 1)
    with pytest.raises(aj.OutOfBoundsError, match="Compares"):
        k.run("atlas-a2", inputs)
    ok, lines, _, _ = k.execute("ascend950", k.default_size, 1)       # the 950's mask is effective
    assert ok, lines


@pytest.mark.parametrize("name, pairs", [("pdist", {("GetValue", "ReduceSum"), ("SetValue", "Duplicate"),
                                                    ("Compares", "SetValue")}),
                                         ("pdist_p1_half", {("GetValue", "ReduceSum"), ("DataCopyPad", "Cast"),
                                                            ("Cast", "DataCopyPad")})])
def test_pdist_original_scalar_and_copy_ordering_races(monkeypatch, name, pairs):
    k, m = _spec_and_module(name)
    inputs = k.make_inputs(k.default_size, 1)
    assert not _reports(lambda: k.run("atlas-a2", inputs))
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    reports = _reports(lambda: k.run("atlas-a2", inputs))
    assert {r.check for r in reports} == {"race"}
    assert pairs <= {(r.instruction.api, r.earlier.api) for r in reports}


def test_pdist_original_p0_compare_reads_lanes_past_the_chunk(monkeypatch):
    """The p = 0 CompareScalar over the chunk rounded up to 64 compares lanes past the chunk nothing wrote, and the
    Select over the same rounded count reads their mask bits: reported at the Select, with the CompareScalar as the
    earlier instruction (docs/decisions.md "Sanitizer": a count-form Compare's never-written lanes are followed to
    what reads their bits)."""
    k, m = _spec_and_module("pdist_p0")
    inputs = k.make_inputs(k.default_size, 1)
    monkeypatch.setattr(m, "ORIGINAL_UNINIT_READS", True)
    y = None

    def run():
        nonlocal y
        y = k.run("atlas-a2", inputs)["y"]
    reports = _reports(run)
    assert reports and {(r.check, r.instruction.api, r.operand, r.earlier.api) for r in reports} == \
        {("init", "Select", "sel_mask", "Compares")}
    assert all(r.fix.startswith("these mask bits were computed from lanes of ") for r in reports)
    assert y.tobytes() == k.expected("atlas-a2", inputs)["y"].tobytes()


def test_reflection_pad1d_v2_original_scalar_accesses_race_under_device_sync_hand_offs(monkeypatch):
    """The original's GetValue after the VECIN DeQue and SetValue before the VECOUT EnQue have no flag for the
    scalar unit (the device's hand-offs are MTE2_V / V_MTE3 pairs). The default sanitizer counts a TQue hand-off as
    ordering every pipe (SPEC-2 10.4) and reports nothing; "device-sync" orders the hand-off's own pipes only
    (docs/decisions.md "The device's synchronisation") and reports the MTE2 -> S and S -> MTE3 races the port's flags
    remove."""
    k, m = _spec_and_module("reflection_pad1d_v2")
    inputs = k.make_inputs(37 * 9, 1)
    y = None

    def run():
        nonlocal y
        y = k.run("atlas-a2", inputs)["y"]

    def device_races():
        with aj.sanitize_session("device-sync,report") as session:
            run()
        return {(r.earlier.pipe, r.instruction.pipe) for r in session.reports if r.check == "race"}
    assert device_races() & {("PIPE_MTE2", "PIPE_S"), ("PIPE_S", "PIPE_MTE3")} == set()
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    assert _reports(run) == []
    assert y.tobytes() == k.expected("atlas-a2", inputs)["y"].tobytes()
    assert {("PIPE_MTE2", "PIPE_S"), ("PIPE_S", "PIPE_MTE3")} <= device_races()
