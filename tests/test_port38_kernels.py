"""The session-38 ports (port38) of ops-math experimental kernels: kernels/trace_v2.py, kernels/logical_and.py and
kernels/bincount.py. Each against an expectation computed with numpy alone, on two devices; the host tilings'
choices; and each deviation: the original's sequence run and refused or reported as the port's docstring says."""

import numpy as np
import pytest

import ascend_jit as aj
from ported import spec_and_module as _spec_and_module

DEVICES = ["atlas-a2", "ascend950"]


def _fields(raw, struct):
    return np.frombuffer(raw.tobytes(), struct)[0]


# kernels/trace_v2.py

def test_trace_v2_tiling_splits_the_diagonal_front_cores_first():
    _, m = _spec_and_module("trace_v2")
    block_dim, raw, ws = m.tiling("atlas-a2", (13, 18), "float")
    t = _fields(raw, m.TraceV2TilingData)
    assert (block_dim, int(t["diagLen"]), int(t["fullBlockLength"]), int(t["tailBlockLength"]),
            int(t["fullBlockNum"]), int(t["tailBlockNum"]), int(t["alignNum"])) == (8, 13, 2, 1, 5, 3, 8)
    assert ws == 512 + aj.GetLibApiWorkSpaceSize("atlas-a2")
    block_dim, raw, _ = m.tiling("atlas-a2", (9, 3), "half")        # a wide diagonal of 3: 3 cores of 1
    t = _fields(raw, m.TraceV2TilingData)
    assert (block_dim, int(t["diagLen"]), int(t["fullBlockNum"]), int(t["tailBlockLength"]), int(t["alignNum"])) \
        == (3, 3, 0, 1, 16)
    assert m.core_slices((13, 18)) == [(0, 2), (2, 2), (4, 2), (6, 2), (8, 2), (10, 1), (11, 1), (12, 1)]


def _trace_by_numpy(x, slices):
    """Each core's slice summed in float64 (numpy's own), the partials added in T core by core."""
    T = x.dtype.type
    diag = np.diagonal(x)
    total = T(0)
    for first, n in slices:
        total = T(total + T(np.sum(diag[first:first + n].astype(np.float64))))
    return total


@pytest.mark.parametrize("name, size", [("trace_v2", 300), ("trace_v2", 13), ("trace_v2_half", 300),
                                        ("trace_v2_half", 3)])
@pytest.mark.parametrize("device", DEVICES)
def test_trace_v2_is_its_declared_expectation_and_near_numpy(name, size, device):
    k, m = _spec_and_module(name)
    inputs = k.make_inputs(size, 5)
    y = k.run(device, inputs)["y"]
    assert y.tobytes() == k.expected(device, inputs)["y"].tobytes()
    x = inputs["x"]
    exact = np.trace(x.astype(np.float64))
    tol = (1e-5 if x.dtype == np.float32 else 2e-2) * np.sum(np.abs(np.diagonal(x)).astype(np.float64))
    assert abs(float(y[0]) - exact) <= tol
    assert abs(float(_trace_by_numpy(x, m.core_slices(x.shape))) - exact) <= tol


def test_trace_v2_more_than_255_elements_a_core_compacts_in_several_calls():
    """2100 diagonal elements: 8 cores of 263 or 262, each compacted by a 255-repeat and a shorter WholeReduceSum."""
    k, _ = _spec_and_module("trace_v2")
    inputs = k.make_inputs(2100, 2)
    y = k.run("atlas-a2", inputs)["y"]
    assert y.tobytes() == k.expected("atlas-a2", inputs)["y"].tobytes()
    assert abs(float(y[0]) - np.trace(inputs["x"].astype(np.float64))) < 1e-3


def test_trace_v2_original_layout_overruns_its_queue_and_sums_dummy_copies(monkeypatch):
    """The original's queue of matrixOrder * sizeof(T) bytes cannot hold one 32-byte block per element
    (OutOfBoundsError); on a core made with bounds="ub" the copy runs past it and the contiguous ReduceSum adds
    each core's first diagonal element and its dummy copies: n x diag[first] per core, not the trace."""
    k, m = _spec_and_module("trace_v2")
    inputs = k.make_inputs(13, 1)
    monkeypatch.setattr(m, "ORIGINAL_LAYOUT", True)
    with pytest.raises(aj.OutOfBoundsError, match="DataCopyPad"):
        k.run("atlas-a2", inputs)
    with aj.sanitize_session("report") as session:
        y = m._run("float", bounds="ub")("atlas-a2", inputs)["y"]
    diag = np.diagonal(inputs["x"])
    wrong = sum(float(diag[first]) * n for first, n in m.core_slices(inputs["x"].shape))
    assert abs(float(y[0]) - wrong) < 1e-5 and abs(float(y[0]) - np.trace(inputs["x"].astype(np.float64))) > 0.1
    assert {(r.check, r.instruction.api) for r in session.reports} == {("memory", "DataCopyPad")}


def test_trace_v2_original_atomic_copy_of_32_elements_into_a_one_element_window_is_refused():
    core = aj.Core("atlas-a2")
    y = np.zeros(32, np.float32)
    gm = aj.GlobalTensor()
    gm.SetGlobalBuffer(y, 1)
    local = core.local_tensor("float", 32)
    with core, pytest.raises(aj.OutOfBoundsError):
        aj.SetAtomicAdd("float")
        aj.DataCopy(gm, local, 32)
    assert not y.any()


# kernels/logical_and.py

def test_logical_and_tiling_picks_the_buffer_count_and_the_cores():
    _, m = _spec_and_module("logical_and")
    block_dim, key, raw = m.tiling("atlas-a2", 100003)
    t = _fields(raw, m.LogicalAndTilingData)
    # four times 100032 bytes fit 8 x UB: one buffer, tiles of UB / 4
    assert (block_dim, key, int(t["bufferNum"]), int(t["tileDataNum"])) == (8, m.TILING_KEY_NDB, 1, 196608 // 4)
    assert (int(t["bigCoreDataNum"]), int(t["smallCoreDataNum"]), int(t["tailBlockNum"])) == (12512, 12480, 6)
    block_dim, key, raw = m.tiling("atlas-a2", 450003)
    t = _fields(raw, m.LogicalAndTilingData)
    assert (key, int(t["bufferNum"]), int(t["tileDataNum"]), int(t["finalBigTileNum"]), int(t["bigTailDataNum"])) \
        == (m.TILING_KEY_DB, 2, 196608 // 8, 3, 56256 - 2 * 24576)
    assert m.tiling("atlas-a2", 5000)[0] == 3           # ceil(5000 / 2048) cores


@pytest.mark.parametrize("size", [33, 100003, 300007, 450003])
@pytest.mark.parametrize("device", DEVICES)
def test_logical_and_equals_numpy(size, device):
    """300007: one 37504-element tile a core (x2 widened in two parts); 450003: two buffers."""
    k, _ = _spec_and_module("logical_and")
    inputs = k.make_inputs(size, 11)
    y = k.run(device, inputs)["y"]
    assert y.dtype == np.int8 and y.tobytes() == (inputs["x1"] & inputs["x2"]).view(np.int8).tobytes()


def test_logical_and_original_x2_cast_overlaps_its_source(monkeypatch):
    k, m = _spec_and_module("logical_and")
    monkeypatch.setattr(m, "ORIGINAL_X2_CAST", True)
    with pytest.raises(aj.OverlapError, match="Cast"):
        k.run("atlas-a2", k.make_inputs(100003, 1))


# kernels/bincount.py

def test_bincount_tiling_chooses_the_path():
    _, m = _spec_and_module("bincount")
    t = lambda *a: (lambda r: (r[0], _fields(r[1], m.BincountTilingData), r[2]))(m.tiling("atlas-a2", *a))
    block_dim, f, ws = t(40009, 203, "int32", "float", True)         # 8 cores, UB histograms
    assert (block_dim, int(f["largeL"]), int(f["bigCoreNum"])) == (8, 0, 1)
    assert ws == 8 * 32 + 8 * (203 + 32) * 8 + aj.GetLibApiWorkSpaceSize("atlas-a2")
    assert t(4096, 203, "int32", "float", True)[0] == 1             # at most 4096 elements: one core
    assert t(10007, 3003, "int64", "int32", False)[0] == 1          # more than 2048 bins: one core
    block_dim, f, ws = t(5003, 40003, "int32", "float", True)        # histograms past the UB: the GM path
    assert (block_dim, int(f["largeL"])) == (8, 1) and ws == 8 * 32 + aj.GetLibApiWorkSpaceSize("atlas-a2")
    assert int(t(5003, 40003, "int32", "float", True)[1]["largeL"]) == 1
    assert int(_fields(m.tiling("ascend950", 5003, 20003, "int32", "float", True)[1],
                       m.BincountTilingData)["largeL"]) == 0         # the 950's bigger UB holds 2 x 80 KB


def _bincount_by_numpy(array, weights, length, cores):
    acc = weights.dtype.type
    parts = np.array_split(np.arange(array.size), cores)            # the first size % cores one longer
    total = None
    for part in parts:
        h = np.zeros(length, acc)
        for i in part:
            if array[i] < length:
                h[array[i]] = acc(h[array[i]] + weights[i])
        total = h if total is None else (total + h).astype(acc)
    return total


@pytest.mark.parametrize("name, size, cores", [("bincount", 40009, 8), ("bincount", 4099, 8), ("bincount", 300, 1),
                                               ("bincount_int64", 10007, 1), ("bincount_large_bins", 5003, 1)])
@pytest.mark.parametrize("device", DEVICES)
def test_bincount_equals_numpy(name, size, cores, device):
    k, m = _spec_and_module(name)
    inputs = k.make_inputs(size, 3)
    bins = k.run(device, inputs)["bins"]
    v = {"bincount": m._MULTI, "bincount_int64": m._SINGLE, "bincount_large_bins": m._LARGE}[name]
    weights = inputs.get("weights", np.ones(size, np.int32))
    assert bins.tobytes() == _bincount_by_numpy(inputs["array"], weights, v.out_length, cores).tobytes()
    if name == "bincount_int64":
        assert bins.tolist() == np.bincount(inputs["array"], minlength=v.out_length)[:v.out_length].tolist()


def test_bincount_negative_input_stops_at_the_assert():
    k, _ = _spec_and_module("bincount")
    inputs = k.make_inputs(5000, 3)
    inputs["array"][4999] = -2                                       # the last core's element
    with pytest.raises(aj.StateError, match="contains negative value"):
        k.run("atlas-a2", inputs)


@pytest.mark.parametrize("name, size, races", [
    ("bincount", 40009, {("DataCopy", "SetValue"), ("GetValue", "DataCopy")}),
    ("bincount_int64", 10007, {("DataCopy", "SetValue")}),
    ("bincount_large_bins", 5003, {("DataCopy", "Duplicate")})])
def test_bincount_original_unsynchronised_scalar_accesses_race(monkeypatch, name, size, races):
    k, m = _spec_and_module(name)
    inputs = k.make_inputs(size, 1)
    want = k.run("atlas-a2", inputs)["bins"]
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    with aj.sanitize_session("report") as session:
        got = k.run("atlas-a2", inputs)["bins"]
    assert got.tobytes() == want.tobytes()
    assert {(r.instruction.api, r.earlier.api) for r in session.reports if r.check == "race"} == races
