"""The session-47n2 ports of larger ops-math vector operators: kernels/bias_add.py (BiasAdd, A2 / A3, the BASE
schedule: the channel-cache path of counter-mode Copy repeats and one Add, the K-cycle path of super-cycle Adds
against a GetValue / SetValue cache, InnerSizeAdds with scalar heads and tails around Adds, SegmentAdds, FillBias on
the scalar unit and Add; the other schedules refused by the host code) and kernels/arg_max_with_value.py
(ArgMaxWithValue, A2 / A3, the NLAST_OUTPUT schedule: strided row blocks into fixed-address slots, per row Compare
LE, tensor-scalar Select of the index, Max; float / bfloat16 in float, half natively) and kernels/median.py (Median,
A2 / A3, the BIGSEL path: a resident float row, bisection by CompareScalar / Select / ReduceSum counts, the value and
first index by ReduceMin). Each path against the numpy
model bit for bit on both devices, against a float64 formula (or numpy's argmax); the host tilings and the refused
schedules; the original's forms the port changes run and reported."""

import numpy as np
import pytest

import ascend_jit as aj
from ported import sanitizer_reports as _reports, same_bits as _same, spec_and_module as _spec_and_module

A2_A3 = ["atlas-a2", "atlas-a3"]


# kernels/bias_add.py

def _ba_tiling(m, shape, dtype, fmt="NHWC", device="atlas-a2"):
    used, raw = m.tiling(device, shape, dtype, fmt)
    t = m.BiasAddTilingData.from_buffer_copy(raw.tobytes())
    return used, (t.smallCoreDataNum, t.tailBlockNum, t.tileDataNum, t.biasCacheElems, t.superCycleSize,
                  t.finalSmallTileNum, t.smallTailDataNum)


def test_bias_add_tiling_the_base_schedule():
    _, m = _spec_and_module("bias_add")
    # aligned NHWC: 8 cores (a multiple of 4 dividing the rows); (196608 - 4096 - 256) / 24 -> 8008 -> 125 rows of 64
    assert _ba_tiling(m, (1600, 64), "float") == (8, (12800, 0, 8000, 64, 0, 2, 4800))
    # 800-byte rows: 12000 % (8 * 200) != 0, 4 cores; tile 7984 -> 39 rows
    assert _ba_tiling(m, (60, 200), "float") == (4, (3000, 0, 7800, 200, 0, 1, 3000))
    # the K-cycle: lcm(8, 300) = 600 channels cached; (192512 - 2400) / 24 -> 7800 (13 super-cycles)
    assert _ba_tiling(m, (41, 300), "int32", device="atlas-a3") == (8, (1537, 4, 7800, 600, 600, 1, 1537))
    # half C = 515: the super-cycle (16 * 515) does not fit a tile, so no K-cycle: a 528-element cache and FillBias
    assert _ba_tiling(m, (30, 515), "half") == (8, (1931, 2, 7725, 528, 0, 1, 1931))
    # NCHW, innerSize 64 floats (256 bytes): tiles and cores aligned to the plane, 6 cores of 640
    assert _ba_tiling(m, (20, 3, 8, 8), "float", "NCHW") == (6, (640, 0, 3840, 0, 0, 1, 640))
    # half NCHW, innerSize 49 (98 bytes): no alignment; 24 bytes an element -> 8016
    assert _ba_tiling(m, (13, 16, 7, 7), "half", "NCHW") == (8, (1274, 0, 8016, 0, 0, 1, 1274))
    assert m.layout((2, 3, 4, 5, 6), "NCDHW") == (3, 120) and m.layout((2, 3, 4, 5, 6), "NDHWC") == (6, 1)
    assert m.layout((7,), "NCHW") == (7, 1)


def test_bias_add_other_schedules_are_refused():
    """TINY_NOQUEUE (1536 bytes or less), THIN_TINY_VECTOR_BROADCAST (unaligned NHWC of 255 rows or fewer) and
    BROADCAST_UB_TILE (unaligned NHWC, C of 32 blocks or fewer) are not ported; a tiny bfloat16 x takes BASE."""
    _, m = _spec_and_module("bias_add")
    for shape, dtype, mode in (((8, 8), "float", "TINY_NOQUEUE"), ((100, 30), "float", "THIN_TINY_VECTOR_BROADCAST"),
                               ((300, 30), "half", "BROADCAST_UB_TILE"), ((5000, 30), "int32", "BROADCAST_UB_TILE")):
        with pytest.raises(aj.ParameterError, match=mode):
            m.tiling("atlas-a2", shape, dtype)
    for shape, mode in (((100, 30), "THIN_TINY_VECTOR_BROADCAST"), ((1000, 30), "BROADCAST_UB_TILE")):
        with pytest.raises(aj.ParameterError, match=mode):
            m.tiling("atlas-a2", shape, "bfloat16")
    assert m.tiling("atlas-a2", (10, 3), "bfloat16")[0] == 8
    with pytest.raises(aj.ParameterError, match="dtype"):
        m.tiling("atlas-a2", (100, 64), "int16")
    with pytest.raises(aj.ParameterError, match="data_format"):
        m.layout((4, 4), "NC1HWC0")


def _path_counts(monkeypatch, m):
    counts = {}
    for meth in ("ComputeChannelCacheAdds", "ComputeKCycleAdds", "ComputeInnerSizeAdds", "ComputeSegmentAdds",
                 "FillBias"):
        orig = getattr(m.KernelBiasAdd, meth)

        def wrapped(self, *a, _orig=orig, _name=meth):
            counts[_name] = counts.get(_name, 0) + 1
            return _orig(self, *a)
        monkeypatch.setattr(m.KernelBiasAdd, meth, wrapped)
    return counts


CASES = [  # shape, dtype, format, the Compute paths the tiles take (tile counts over the 8 cores)
    ((203, 64), np.float32, "NHWC", {"ComputeChannelCacheAdds": 1, "FillBias": 7}),   # core 0 row-aligned only
    ((4000, 8), np.float32, "NHWC", {"ComputeChannelCacheAdds": 8}),    # 1002 rows: Copy batches of 255
    ((60, 200), np.float32, "NHWC", {"ComputeChannelCacheAdds": 4}),    # 800-byte Copy repeats (25 blocks)
    ((41, 300), np.int32, "NHWC", {"ComputeKCycleAdds": 8}),
    ((30, 515), np.float16, "NHWC", {"FillBias": 8}),                   # the 528-element cache
    ((13, 16, 7, 7), np.float16, "NCHW", {"ComputeInnerSizeAdds": 8}),  # scalar heads and tails
    ((20, 3, 8, 8), np.float32, "NCHW", {"ComputeInnerSizeAdds": 6}),
    ((200, 5, 2, 4), np.float32, "NCHW", {"ComputeSegmentAdds": 8}),    # innerSize 8: one Adds a plane
    ((100, 10, 3, 3), np.float16, "NCHW", {"FillBias": 8}),             # innerSize 9: FillBias by runs
    ((2, 6, 3, 4, 5), np.int32, "NCDHW", {"ComputeInnerSizeAdds": 8}),
]


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("shape, dtype, fmt, paths", CASES)
def test_bias_add_is_the_numpy_model(monkeypatch, device, shape, dtype, fmt, paths):
    _, m = _spec_and_module("bias_add")
    counts = _path_counts(monkeypatch, m)
    rng = np.random.default_rng(len(shape) * 1000 + shape[-1])
    c = m.layout(shape, fmt)[0]
    if dtype == np.int32:
        x = rng.integers(-2 ** 31, 2 ** 31 - 1, shape, dtype=np.int64).astype(np.int32)   # wraps some sums
        b = rng.integers(-2 ** 30, 2 ** 30, c).astype(np.int32)
    else:
        x = rng.standard_normal(shape).astype(dtype)
        b = rng.uniform(-3, 3, c).astype(dtype)
    y = m.run_bias_add(device, x, b, fmt)
    assert y.shape == x.shape and y.dtype == x.dtype and _same(y, m.bias_add_model(x, b, fmt))
    assert counts == paths


BF16_CASES = [  # shape, format, the bf16 kernel's paths (tile counts)
    ((203, 64), "NHWC", {"ComputeChannelCached": 1, "FillBias": 7}),
    ((300, 64), "NHWC", {"ComputeChannelCached": 4}),
    ((41, 300), "NHWC", {}),                                         # the K-cycle: Compute's own branch
    ((13, 16, 7, 7), "NCHW", {"ComputeInnerSizeAddsBf16": 8}),
    ((30, 515), "NHWC", {"FillBias": 8}),
    ((10, 3), "NHWC", {"FillBias": 8})]                              # 60 bytes: TINY's T2_BASE


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("shape, fmt, paths", BF16_CASES)
def test_bias_add_bf16_is_the_numpy_model(monkeypatch, device, shape, fmt, paths):
    """KernelBiasAdd<bfloat16_t>: in float, Cast CAST_RINT back (the float sum rounded once to bfloat16)."""
    _, m = _spec_and_module("bias_add")
    counts = {}
    for meth in ("ComputeChannelCached", "ComputeInnerSizeAddsBf16", "FillBias"):
        orig = getattr(m.KernelBiasAddBf16, meth)

        def wrapped(self, *a, _orig=orig, _name=meth):
            counts[_name] = counts.get(_name, 0) + 1
            return _orig(self, *a)
        monkeypatch.setattr(m.KernelBiasAddBf16, meth, wrapped)
    rng = np.random.default_rng(shape[-1])
    x = rng.standard_normal(shape).astype(np.float32).astype(m._NP["bfloat16"])
    b = rng.uniform(-3, 3, m.layout(shape, fmt)[0]).astype(np.float32).astype(m._NP["bfloat16"])
    y = m.run_bias_add(device, x, b, fmt)
    assert y.dtype == x.dtype and _same(y, m.bias_add_model(x, b, fmt)) and counts == paths
    want = (x.astype(np.float64) + m.bias_add_model(np.zeros_like(x), b, fmt).astype(np.float64))
    assert np.all(np.abs(y.astype(np.float64) - want) <= 2 ** -8 * np.abs(want))


def test_bias_add_specials_and_the_formula():
    """inf + -inf = NaN, NaN kept, -0 + -0 = -0, half overflow to inf (the scalar head's float sum rounded to half
    too); int32 wraps. Against float64: one rounding of x + bias."""
    _, m = _spec_and_module("bias_add")
    x = np.zeros((13, 16, 7, 7), np.float16)
    x[0, 0, 0, :4] = [np.inf, np.nan, -0.0, 65504.0]          # elements 0-3: the first run's scalar head
    x[0, 1, 6, 4:] = [np.inf, np.nan, -0.0]                   # the second channel's scalar tail
    x[0, 2, 0, 0] = x[0, 2, 3, 3] = -0.0                      # a scalar head, an Adds lane
    b = np.full(16, -0.0, np.float16)
    b[0], b[1] = -np.inf, np.float16(32.0)
    y = m.run_bias_add("atlas-a2", x, b, "NCHW")
    assert _same(y, m.bias_add_model(x, b, "NCHW"))
    assert np.isnan(y[0, 0, 0, 0]) and np.isnan(y[0, 0, 0, 1]) and y[0, 0, 0, 2] == -np.inf
    assert y[0, 0, 0, 3] == -np.inf and y[0, 1, 6, 4] == np.inf and np.isnan(y[0, 1, 6, 5]) and y[0, 1, 6, 6] == 32
    assert np.signbit(y[0, 2, 0, 0]) and np.signbit(y[0, 2, 3, 3]) and not np.signbit(y[0, 3, 0, 0])
    xi = np.full((41, 300), 2 ** 31 - 1, np.int32)
    bi = np.arange(300, dtype=np.int32)
    yi = m.run_bias_add("atlas-a3", xi, bi)
    assert yi[0, 0] == 2 ** 31 - 1 and yi[5, 1] == -2 ** 31 and yi[7, 299] == -2 ** 31 + 298
    xf = np.random.default_rng(5).standard_normal((60, 200)).astype(np.float32)
    bf = np.random.default_rng(6).standard_normal(200).astype(np.float32)
    out = m.run_bias_add("atlas-a2", xf, bf).astype(np.float64)
    want = xf.astype(np.float64) + bf.astype(np.float64)
    assert np.all(np.abs(out - want) <= 2 ** -24 * np.abs(want))


def test_bias_add_original_synchronisation_is_reported(monkeypatch):
    """ORIGINAL_SYNC: the cache's DataCopyPad read by the Copy and FillBias's GetValues, the SetValues read by the
    Adds: RAW races (report mode); InnerSizeAdds' scalar accesses of the queue tiles: races in device-sync mode.
    The values the same."""
    k, m = _spec_and_module("bias_add")
    x = np.random.default_rng(1).standard_normal((203, 64)).astype(np.float32)
    b = np.random.default_rng(2).standard_normal(64).astype(np.float32)
    xi = np.arange(41 * 300, dtype=np.int32).reshape(41, 300)
    bi = np.arange(300, dtype=np.int32)
    xh = np.random.default_rng(3).standard_normal((13, 16, 7, 7)).astype(np.float16)
    bh = np.random.default_rng(4).standard_normal(16).astype(np.float16)
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    outs = []
    reports = _reports(lambda: outs.append(m.run_bias_add("atlas-a2", x, b)))
    assert {(r.check, r.kind, r.instruction.api, r.earlier.api) for r in reports} == {
        ("race", "RAW", "Copy", "DataCopyPad"), ("race", "RAW", "GetValue", "DataCopyPad"),
        ("race", "RAW", "Add", "SetValue")}
    assert _same(outs[0], m.bias_add_model(x, b))
    reports = _reports(lambda: m.run_bias_add("atlas-a2", xi, bi))
    assert {(r.check, r.kind, r.instruction.api, r.earlier.api) for r in reports} == {
        ("race", "RAW", "Add", "SetValue")}
    with pytest.raises(aj.SanitizerError, match="MTE2_S"):
        _reports(lambda: m.run_bias_add("atlas-a2", xh, bh, "NCHW"), "device-sync")
    monkeypatch.setattr(m, "ORIGINAL_SYNC", False)
    assert _reports(lambda: m.run_bias_add("atlas-a2", xh, bh, "NCHW"), "device-sync") == []


def test_bias_add_bf16_original_synchronisation_is_reported(monkeypatch):
    """ORIGINAL_SYNC, bfloat16: the bias copy Init Casts behind a PipeBarrier<PIPE_MTE2>, InnerSizeAddsBf16's
    GetValues of the Cast tile behind a PipeBarrier<PIPE_V>: races; the values the same."""
    _, m = _spec_and_module("bias_add")
    x = np.random.default_rng(5).standard_normal((13, 16, 7, 7)).astype(m._NP["bfloat16"])
    b = np.random.default_rng(6).standard_normal(16).astype(m._NP["bfloat16"])
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    outs = []
    reports = _reports(lambda: outs.append(m.run_bias_add("atlas-a2", x, b, "NCHW")))
    assert {(r.check, r.instruction.api, r.earlier.api) for r in reports} == {
        ("race", "Cast", "DataCopyPad"), ("race", "GetValue", "Cast")}
    assert _same(outs[0], m.bias_add_model(x, b, "NCHW"))


def test_bias_add_runs_clean_under_the_sanitizer_in_device_sync_mode():
    for name, n in (("bias_add", 203 * 64), ("bias_add_half_nchw", 13 * 784), ("bias_add_int32_kcycle", 41 * 300),
                    ("bias_add_bf16_nchw", 13 * 784)):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run(k.devices[0], k.make_inputs(n, 0)), "device-sync") == [], name


# kernels/arg_max_with_value.py

def _am_tiling(m, shape, dtype, dim=1, device="atlas-a2"):
    used, raw = m.tiling(device, shape, dtype, dim)
    t = m.ArgMaxWithValueTilingData.from_buffer_copy(raw.tobytes())
    return used, (t.perCore, t.bigCores, t.innerTile, t.axisTile, t.outSize, t.tilingMode)


def test_arg_max_with_value_tiling_nlast_output():
    _, m = _spec_and_module("arg_max_with_value")
    # innerTile 1024 (lastDim 1100 capped), 8192 * a + 28832 bytes <= 196608 - 16384, a <= 8192 / 1024: 8 rows a
    # block; 3300 outputs = 413 blocks of 8: the launch-wave cap halves the grid (4 cores of 103 blocks, one 104)
    assert _am_tiling(m, (3, 24, 1100), "float") == (4, (824, 1, 1024, 8, 3300, 12))
    assert _am_tiling(m, (4, 24, 1100), "float", device="atlas-a3") == (8, (544, 6, 1024, 8, 4400, 12))
    # half, axis <= 2048 (native): no cast scratch, 2560 * a + 15488 bytes: 12 rows (the working-set cap)
    assert _am_tiling(m, (3, 40, 600), "half") == (2, (896, 1, 640, 12, 1800, 12))
    assert _am_tiling(m, (3, 16, 700), "bfloat16", -2) == (2, (1056, 0, 768, 10, 2100, 12))
    assert _am_tiling(m, (1, 600, 100), "float")[1][2:4] == (128, 64)
    assert m.flatten((2, 3, 4, 5), -2) == (6, 4, 5)


def test_arg_max_with_value_other_schedules_are_refused():
    _, m = _spec_and_module("arg_max_with_value")
    for shape, dim, mode in (((5, 5), 1, "LAST"), ((4, 7, 1), 1, "LAST"), ((2, 0, 9), 0, "COPY of nothing"),
                             ((3, 4, 100), 1, "NLAST_BATCH"), ((1, 4000, 40), 1, "NLAST_SPLIT")):
        with pytest.raises(aj.ParameterError, match=mode):
            m.tiling("atlas-a2", shape, "float", dim)
    with pytest.raises(aj.ParameterError, match="dtype"):
        m.tiling("atlas-a2", (2, 3, 600), "int16", 1)
    with pytest.raises(aj.ParameterError, match="dimension"):
        m.flatten((2, 3), 2)


AM_CASES = [  # shape, dtype: column tiles of 1024 and 76, several row blocks, native / cast half, bf16, firstDim 1
    ((3, 24, 1100), np.float32), ((2, 9, 2500), np.float32), ((1, 600, 100), np.float32),
    ((3, 40, 600), np.float16), ((2, 2100, 520), np.float16), ((3, 16, 700), "bf16")]


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("shape, dtype", AM_CASES)
def test_arg_max_with_value_is_the_numpy_model(device, shape, dtype):
    _, m = _spec_and_module("arg_max_with_value")
    rng = np.random.default_rng(shape[1])
    x = rng.standard_normal(shape).astype(np.float32)
    x[:, ::5, ::3] = np.round(x[:, ::5, ::3])                 # ties between rows
    x = x.astype(m._NP["bfloat16"] if dtype == "bf16" else dtype)
    indice, values = m.run_arg_max_with_value(device, x, 1)
    want_i, want_v = m.arg_max_with_value_model(x, 1)
    assert indice.dtype == np.int32 and values.dtype == x.dtype and values.shape == (shape[0], shape[2])
    assert _same(indice, want_i) and _same(values, want_v)
    # without NaN or signed zeros: numpy's first-occurrence argmax and max
    assert np.array_equal(indice, np.argmax(x.astype(np.float32), 1))
    assert _same(values, np.max(x.astype(np.float32), 1).astype(x.dtype))


@pytest.mark.parametrize("device", A2_A3)
def test_arg_max_with_value_copy_schedule(device):
    """COPY (a dimension of one element): under 64 KiB one core; 60000 halves over 8 cores of 468 or 469 16-element
    blocks; 200000 floats: 8 cores of 25000, two tiles each (22528 elements fit the UB less 16 KiB with their
    indices). The values are x's bits, the indices 0."""
    _, m = _spec_and_module("arg_max_with_value")
    assert _am_tiling(m, (7, 1, 9), "float")[0] == 1
    assert _am_tiling(m, (3000, 1, 20), "half", device=device)[:2] == (8, (7488, 6, 64, 1, 60000, 0))
    used, raw = m.tiling(device, (200000, 1), "float", 1)
    assert used == 8 and m.ArgMaxWithValueTilingData.from_buffer_copy(raw.tobytes()).rowTile == 22528
    for shape, dtype in (((7, 1, 9), np.float32), ((3000, 1, 20), np.float16), ((200000, 1), np.float32)):
        x = np.random.default_rng(1).standard_normal(shape).astype(dtype)
        x.reshape(-1)[:3] = [np.nan, -0.0, np.inf]
        indice, values = m.run_arg_max_with_value(device, x, 1)
        assert (indice == 0).all() and _same(values, x.reshape(values.shape))
    x = np.random.default_rng(2).standard_normal((200000, 1)).astype(np.float32)
    assert _reports(lambda: m.run_arg_max_with_value(device, x, 1), "device-sync") == []


def test_arg_max_with_value_copy_original_sync_is_reported(monkeypatch):
    """ORIGINAL_SYNC: the second tile's Duplicate of the index zeros after the first tile's index copy-out, ordered
    only MTE3 -> MTE2: a WAR race (the values the same)."""
    _, m = _spec_and_module("arg_max_with_value")
    x = np.random.default_rng(2).standard_normal((200000, 1)).astype(np.float32)
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    outs = []
    reports = _reports(lambda: outs.append(m.run_arg_max_with_value("atlas-a2", x, 1)))
    assert {(r.check, r.kind, r.instruction.api, r.earlier.api) for r in reports} == {
        ("race", "WAR", "Duplicate", "DataCopyPad")}
    assert (outs[0][0] == 0).all() and _same(outs[0][1], x[:, 0])


def test_arg_max_with_value_specials():
    """A NaN row makes every later row better (Compare false, Max NaN): the value NaN, the index the last row's;
    -inf everywhere gives index 0; +0 after -0 keeps -0's index (+0 <= -0), the value +0; +inf wins and stays."""
    _, m = _spec_and_module("arg_max_with_value")
    for dtype in (np.float32, np.float16):
        x = np.zeros((2, 6, 600), dtype)
        x[0, :, 0] = [1, np.nan, 5, 0, 0, 0]
        x[0, :, 1] = -np.inf
        x[0, :, 2] = [-1, -0.0, 0.0, -0.0, -2, -3]
        x[0, :, 3] = [0, 0, np.inf, 7, np.inf, 1]
        x[1, 4, :] = 3
        indice, values = m.run_arg_max_with_value("atlas-a2", x, 1)
        want_i, want_v = m.arg_max_with_value_model(x, 1)
        assert _same(indice, want_i) and _same(values, want_v), dtype
        assert indice[0, :4].tolist() == [5, 0, 1, 2] and np.isnan(values[0, 0]) and values[0, 1] == -np.inf
        assert values[0, 2] == 0 and not np.signbit(values[0, 2]) and values[0, 3] == np.inf
        assert (indice[1] == 4).all() and (indice[0, 4:] == 0).all()


def test_arg_max_with_value_unfilled_input_lanes_are_reported(monkeypatch):
    """ORIGINAL_FILL: the loads leave each row's lanes past its copy unwritten and the Compare / Max (bfloat16: the
    Cast) read them (init reports); the outputs the same. The port's form is clean in device-sync mode too. The
    Compare's bits of those lanes are uninitialised and the Select of the same count reads them, reported at the
    Select with the Compare as the earlier instruction (docs/decisions.md "Sanitizer": a count-form Compare's
    never-written lanes are followed to what reads their bits); the Max reads them directly."""
    _, m = _spec_and_module("arg_max_with_value")
    x = np.random.default_rng(2).standard_normal((3, 24, 1100)).astype(np.float32)
    xb = x[:, :16, :700].astype(m._NP["bfloat16"])
    outs = {}
    monkeypatch.setattr(m, "ORIGINAL_FILL", True)
    reports = _reports(lambda: outs.setdefault(True, m.run_arg_max_with_value("atlas-a2", x, 1)))
    assert {(r.check, r.instruction.api, r.operand, r.earlier and r.earlier.api) for r in reports} == \
        {("init", "Select", "sel_mask", "Compare"), ("init", "Max", "src1", None)}
    assert all(r.fix.startswith("these mask bits were computed from lanes of ") for r in reports
               if r.operand == "sel_mask")
    reports = _reports(lambda: m.run_arg_max_with_value("atlas-a2", xb, 1))
    assert {(r.check, r.instruction.api) for r in reports} == {("init", "Cast")}
    monkeypatch.setattr(m, "ORIGINAL_FILL", False)
    assert _reports(lambda: outs.setdefault(False, m.run_arg_max_with_value("atlas-a2", x, 1)), "device-sync") == []
    assert _same(outs[True][0], outs[False][0]) and _same(outs[True][1], outs[False][1])
    assert _reports(lambda: m.run_arg_max_with_value("atlas-a2", xb, 1), "device-sync") == []


# kernels/median.py (ops-nn)

def test_median_tiling_bigsel_big_and_the_refused_paths():
    _, m = _spec_and_module("median")
    cores, path, raw = m.tiling("atlas-a2", (13, 9000), "half")
    t = m.MedianTilingData.from_buffer_copy(raw.tobytes())
    assert (cores, path) == (8, m.MEDIAN_PATH_BIGSEL) and (t.batch, t.redLen, t.mid, t.nSeg, t.pad) == (
        13, 9000, 4499, 0, 0)
    assert m.tiling("atlas-a3", (2, 3, 24576), "bfloat16")[:2] == (6, m.MEDIAN_PATH_BIGSEL)
    assert m.tiling("atlas-a2", (8193,), "float")[:2] == (1, m.MEDIAN_PATH_BIGSEL)
    assert m.tiling("atlas-a2", (2, 24577), "float")[:2] == (2, m.MEDIAN_PATH_BIG)
    assert m.tiling("atlas-a2", (3, 8193), "int32")[:2] == (8, m.MEDIAN_PATH_BIG)      # few integer rows: 8 cores
    assert m.tiling("atlas-a2", (20, 9000), "uint8")[:2] == (8, m.MEDIAN_PATH_BIG)
    for shape, dtype, path in (((4, 8192), "float", "MAIN"), ((4, 32), "half", "SMALL"), ((4, 32), "int32", "MAIN"),
                               ((24577,), "float", "BIGSORT"), ((2, 100), "int64", "HEAP")):
        with pytest.raises(aj.ParameterError, match=path):
            m.tiling("atlas-a2", shape, dtype)


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("shape, dtype", [((3, 10007), np.float32), ((13, 9000), np.float16), ((1, 24576), "bf16"),
                                          ((2, 8193), np.float32)])
def test_median_is_the_numpy_model_and_the_lower_median(device, shape, dtype):
    """Rows of one to three 8192-element chunks, 13 rows over 8 cores (two a core, the last core idle). The
    bisection's value is the sorted row's element (L - 1) // 2 here, its index the first occurrence."""
    _, m = _spec_and_module("median")
    rng = np.random.default_rng(shape[1])
    x = rng.standard_normal(shape).astype(np.float32)
    x[:, ::89] = np.round(x[:, ::89] * 2) / 2                # repeated values, some at the median
    x = x.astype(m._NP["bfloat16"] if dtype == "bf16" else dtype)
    values, indices = m.run_median(device, x)
    want_v, want_i = m.median_model(x)
    assert values.dtype == x.dtype and indices.dtype == np.int32 and values.shape == shape[:-1]
    assert _same(values, want_v) and _same(indices, want_i)
    xf = x.astype(np.float32)
    lower = np.sort(xf, 1)[:, (shape[1] - 1) // 2]
    assert np.array_equal(values.astype(np.float32), lower)
    assert indices.tolist() == [int(np.flatnonzero(xf[i] == lower[i])[0]) for i in range(shape[0])]


def test_median_specials():
    """A tie at the median: the first occurrence; -0 loaded by Adds 0 is +0 (half keeps it). The original's
    bisection misses a median equal to the row's minimum (the value search takes x > lo, lo starting at the
    minimum): a constant row gives the +3e38 fill and its first padding lane, index L. One -inf keeps lo at -inf:
    the value is the smallest finite element, not the median; +inf and -inf make lo + hi NaN and nothing is found:
    refused (the original's int32 conversion of 3e38 is undefined)."""
    _, m = _spec_and_module("median")
    x = np.random.default_rng(8).standard_normal((4, 9001)).astype(np.float32)
    x[0, 17] = -np.inf
    x[1, :] = 2.5
    x[2, 100] = x[2, 7000] = np.sort(x[2])[4500]
    x[3, :4000] = -0.0
    values, indices = m.run_median("atlas-a2", x)
    want_v, want_i = m.median_model(x)
    assert _same(values, want_v) and _same(indices, want_i)
    finite = np.where(np.isinf(x[0]), np.inf, x[0])
    assert values[0] == finite.min() and indices[0] == np.argmin(finite) and values[0] != np.sort(x[0])[4500]
    assert values[1] == np.float32(3e38) and indices[1] == 9001
    assert values[2] == x[2, 100] and indices[2] == int(np.flatnonzero(x[2] == values[2])[0]) <= 100
    assert values[3] == 0 and not np.signbit(values[3]) and indices[3] == 0
    xh = x[3:].astype(np.float16)
    xh[0, 4000:6000] = 0.0
    vh, ih = m.run_median("atlas-a3", xh)
    assert vh[0] == 0 and np.signbit(vh[0]) and ih[0] == 0             # half keeps -0 (Cast), below +0
    x[0, 18] = np.inf
    values, indices = m.run_median("atlas-a2", x[:1])                  # NaN bisection: the fill at lane L
    assert values[0] == np.float32(3e38) and indices[0] == 9001
    with pytest.raises(aj.ParameterError, match="undefined"):
        m.run_median("atlas-a2", x[:1, :8256])                         # L = 129 * 64: no fill lane to find


def test_median_original_forms_are_reported(monkeypatch):
    """ORIGINAL_SYNC: GetValues after the reduces behind only a PipeBarrier<PIPE_V>, the scalar first block of
    CreateVecIndex after the previous chunk's Select / ReduceMin: races. ORIGINAL_SLOT (half): CastOutRow reads 7
    reduce-slot floats nothing wrote. The values the same; the port's form clean in device-sync mode."""
    _, m = _spec_and_module("median")
    x = np.random.default_rng(3).standard_normal((2, 9000)).astype(np.float32)
    xh = x.astype(np.float16)
    outs = []
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    reports = _reports(lambda: outs.append(m.run_median("atlas-a2", x)))
    assert {(r.check, r.kind, r.instruction.api, r.earlier.api) for r in reports} == {
        ("race", "RAW", "GetValue", "ReduceMax"), ("race", "RAW", "GetValue", "ReduceMin"),
        ("race", "RAW", "GetValue", "ReduceSum"), ("race", "WAR", "CreateVecIndex", "ReduceMin"),
        ("race", "WAW", "CreateVecIndex", "Select")}
    monkeypatch.setattr(m, "ORIGINAL_SYNC", False)
    monkeypatch.setattr(m, "ORIGINAL_SLOT", True)
    reports = _reports(lambda: outs.append(m.run_median("atlas-a2", xh)))
    assert {(r.check, r.instruction.api) for r in reports} == {("init", "Cast")}
    monkeypatch.setattr(m, "ORIGINAL_SLOT", False)
    assert _reports(lambda: outs.append(m.run_median("atlas-a2", x)), "device-sync") == []
    assert _reports(lambda: outs.append(m.run_median("atlas-a2", xh)), "device-sync") == []
    assert _same(outs[0][0], outs[2][0]) and _same(outs[0][1], outs[2][1])
    assert _same(outs[1][0], outs[3][0]) and _same(outs[1][1], outs[3][1])


@pytest.mark.parametrize("device", A2_A3)
@pytest.mark.parametrize("shape, dtype", [((2, 24577), np.float32), ((3, 8193), np.int32), ((2, 8500), np.uint8),
                                          ((1, 9000), np.int16), ((2, 24600), np.float16)])
def test_median_big_is_the_numpy_model(device, shape, dtype):
    """MedianBig: rows re-read in 8192-element chunks (4 for 24577: a 1-element last chunk), 40 bisection steps;
    integer rows give the lower median exactly, float rows too once the bisection reaches the element."""
    _, m = _spec_and_module("median")
    rng = np.random.default_rng(shape[1])
    if np.dtype(dtype).kind in "iu":
        lo, hi = (0, 256) if dtype == np.uint8 else (-30000, 30000)
        x = rng.integers(lo, hi, shape).astype(dtype)
    else:
        x = (rng.standard_normal(shape) * 10).astype(dtype)
    values, indices = m.run_median(device, x)
    want_v, want_i = m.median_model(x)
    assert values.dtype == x.dtype and _same(values, want_v) and _same(indices, want_i)
    xf = x.astype(np.float64)
    lower = np.sort(xf, 1)[:, (shape[1] - 1) // 2]
    assert np.array_equal(values.astype(np.float64), lower)
    assert indices.tolist() == [int(np.flatnonzero(xf[i] == lower[i])[0]) for i in range(shape[0])]


def test_median_big_original_forms_are_reported(monkeypatch):
    """ORIGINAL_SYNC: the chunk load over the TBuf the last Adds / Cast read (WAR), GetValues behind a
    PipeBarrier<PIPE_V> (RAW); ORIGINAL_SLOT: the integer CastOutRow reads reduce slots nothing wrote."""
    _, m = _spec_and_module("median")
    xi = np.random.default_rng(4).integers(-100, 100, (2, 8500)).astype(np.int32)
    outs = []
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    reports = _reports(lambda: outs.append(m.run_median("atlas-a2", xi)))
    kinds = {(r.check, r.kind, r.instruction.api, getattr(r.earlier, "api", None)) for r in reports}
    assert {("race", "WAR", "DataCopyPad", "Cast"), ("race", "RAW", "GetValue", "ReduceSum"),
            ("race", "RAW", "GetValue", "Cast")} <= kinds
    monkeypatch.setattr(m, "ORIGINAL_SYNC", False)
    monkeypatch.setattr(m, "ORIGINAL_SLOT", True)
    assert {(r.check, r.instruction.api) for r in _reports(lambda: m.run_median("atlas-a2", xi))} == {
        ("init", "Cast")}
    monkeypatch.setattr(m, "ORIGINAL_SLOT", False)
    assert _reports(lambda: outs.append(m.run_median("atlas-a2", xi)), "device-sync") == []
    assert _same(outs[0][0], outs[1][0]) and _same(outs[0][1], outs[1][1])
