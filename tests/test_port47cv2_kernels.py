"""The second session-47 ports of ops-cv kernels: kernels/iou_v2_not_aligned.py (IouV2's non-aligned IoU / IoF modes,
A2 / A3 / 950: every bbox against every gtbox through GatherMask, strided Adds, Brcb, Max / Min, SubRelu, Div, per-row
DataCopyPads and a scalar-packed boundary block) and kernels/nms_with_mask.py (NMSWithMask, experimental, A2: greedy
NMS on one core, GatherMask rows, a vector IoU per kept box and scalar suppression loops) and kernels/roi_align_v2.py
(RoiAlignV2, experimental, A2: RoIAlign's bilinear sampling on the scalar unit) and kernels/stack_group_points.py
(StackGroupPoints, A2 / A3: a scalar gather into 16-element blocks dealt round-robin). Against the numpy model
bit for bit on every device they run on (the MODELLED Div is the exact quotient rounded once, D37), against a float64
formula within the types' rounding; the host tilings; each of the original's forms the port changes, run and refused
or reported."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import sanitizer_reports as _reports, same_bits as _same, spec_and_module as _spec_and_module

A2_A3_950 = ["atlas-a2", "atlas-a3", "ascend950"]


# kernels/iou_v2_not_aligned.py

def _tiling(m, device, n, gt, dtype, mode="iou"):
    cores, key, raw = m.tiling(device, n, gt, dtype, mode)
    return cores, key, m.IouV2TilingData.from_buffer_copy(raw.tobytes())


def test_iou_v2_not_aligned_tiling():
    _, m = _spec_and_module("iou_v2_not_aligned")
    # 37 x 41 floats: n, m -> 40, 48; (48 x 40 x 9 + 88 x 8) x 4 = 71936 bytes -> 18 loops > 8 cores, 41 <= 64 x 8:
    # tiles of ceil(48 / 8) = 6 -> 8 gtboxes over 6 cores, subTile min(8, 40) = 8
    cores, key, t = _tiling(m, "atlas-a2", 37, 41, "float")
    assert (cores, key, t.tileLength, t.subTileLen, t.loopNum, t.frontCoreNum) == (6, 7, 8, 8, 1, 0)
    assert (t.bBoxLength, t.gtBoxLength, t.eps) == (37, 41, 1.0)
    # half rounds to 16; iof / bfloat16 keys
    cores, key, t = _tiling(m, "atlas-a3", 37, 41, "half")
    assert (cores, key, t.tileLength, t.subTileLen) == (3, 8, 16, 16)
    assert _tiling(m, "atlas-a3", 37, 41, "bfloat16", "iof")[1] == 19
    assert _tiling(m, "atlas-a3", 37, 41, "float", "iof")[1] == 17
    # below 4 KiB: one core, one tile; a bbox count below the tile: subTile = n rounded
    cores, key, t = _tiling(m, "ascend950", 5, 3, "float")
    assert (cores, t.tileLength, t.subTileLen) == (1, 8, 8)
    # 1100 gtboxes past 64 x 8: 18 tiles of 64 (maxLength, the Max / Min mask), 2 a core, the first 2 cores 3
    cores, key, t = _tiling(m, "atlas-a2", 1000, 1100, "float")
    assert (cores, t.tileLength, t.subTileLen, t.loopNum, t.frontCoreNum) == (8, 64, 64, 2, 2)
    # the temp-loop branch: 16 x 16 -> (16 x 16 x 9 + 32 x 8) x 4 = 10240 bytes, 3 loops: tiles of 6 -> 8, 2 cores
    cores, key, t = _tiling(m, "atlas-a2", 16, 16, "float")
    assert (cores, t.tileLength, t.subTileLen) == (2, 8, 8)
    assert not m._out_of_bound(64, 1000, aj.get_device("atlas-a2").ub_bytes, False)
    assert m._out_of_bound(64, 64, 150000, True) and not m._out_of_bound(56, 64, 150000, True)


@pytest.mark.parametrize("device", A2_A3_950)
@pytest.mark.parametrize("dtype, n, gt, mode", [
    ("float", 37, 41, "iou"), ("half", 37, 41, "iof"), ("bfloat16", 70, 19, "iou"), ("float", 150, 130, "iof"),
    ("float", 5, 3, "iou"), ("half", 129, 600, "iou")])
def test_iou_v2_not_aligned_is_the_numpy_model(device, dtype, n, gt, mode):
    """Short last bbox tiles whose rows spill into the next row and whose last rows go through the boundary step,
    several bbox tiles a row (150, 129), short gtbox rows on the last core, one core, 8 cores of several tiles."""
    _, m = _spec_and_module("iou_v2_not_aligned")
    b, g = m.make_boxes(n, gt, n + gt, dtype)
    for eps in (1.0, 0.0):
        out = m.run_iou_v2_not_aligned(device, b, g, mode, eps)
        assert out.shape == (gt, n) and out.dtype == b.dtype
        assert _same(out, m.iou_v2_not_aligned_model(b, g, mode, eps)), (mode, eps)
        assert np.count_nonzero(out.astype(np.float32)) > out.size // 20


def test_iou_v2_not_aligned_boundary_step_runs(monkeypatch):
    """The rows whose copy would pass a tile's end go through the scalar packing; 8-box tiles of 37 bboxes: the last
    bbox tile has 5, so each gtbox tile's last row is packed after the 3 last of the row before."""
    _, m = _spec_and_module("iou_v2_not_aligned")
    calls = []
    step = m.KernelIouV2NotAlignBase.CommonCopyOutBoundaryStep

    def spy(self, tmpLocal, gtBoxLoop, i, num1, bBoxNotAlign, st):
        step(self, tmpLocal, gtBoxLoop, i, num1, bBoxNotAlign, st)
        calls.append((i, bBoxNotAlign, st["headNum"]))

    monkeypatch.setattr(m.KernelIouV2NotAlignBase, "CommonCopyOutBoundaryStep", spy)
    b, g = m.make_boxes(37, 40, 2, "float")
    out = m.run_iou_v2_not_aligned("atlas-a2", b, g)
    assert _same(out, m.iou_v2_not_aligned_model(b, g))
    assert set(calls) == {(7, 5, 3)} and len(calls) == 5


def test_iou_v2_not_aligned_specials_and_the_formula():
    """Identical boxes: IoU 1 (eps 0); disjoint: 0; a box inside the other: the area ratio; a zero-area pair with eps
    0: 0 / 0 = NaN. Against float64 within a few float roundings (and the type's RNE)."""
    _, m = _spec_and_module("iou_v2_not_aligned")
    b = np.array([[0, 0, 10, 10], [2, 2, 4, 4], [0, 0, 0, 0]], np.float32)
    g = np.array([[0, 0, 10, 10], [20, 20, 30, 30], [0, 0, 0, 0]], np.float32)
    iou = m.run_iou_v2_not_aligned("atlas-a2", b, g, "iou", 0.0)
    assert iou[0, :2].tolist() == [1.0, np.float32(0.04)] and iou[1].tolist() == [0.0, 0.0, 0.0] and np.isnan(iou[2, 2])
    iof = m.run_iou_v2_not_aligned("atlas-a2", b, g, "iof", 0.0)
    assert iof[0, :2].tolist() == [1.0, np.float32(0.04)] and np.isnan(iof[2, 2])
    for dtype, rtol in (("float", 8 * 2 ** -24), ("half", 2 ** -11 + 8 * 2 ** -24), ("bfloat16", 2 ** -8)):
        x, y = m.make_boxes(77, 45, 5, dtype)
        for mode in ("iou", "iof"):
            out = m.run_iou_v2_not_aligned("ascend950", x, y, mode, 1.0).astype(np.float64)
            a, c = x.astype(np.float64).T[:, None, :], y.astype(np.float64).T[:, :, None]
            iw = np.maximum(np.minimum(a[2], c[2]) + 1 - np.maximum(a[0], c[0]), 0)
            ih = np.maximum(np.minimum(a[3], c[3]) + 1 - np.maximum(a[1], c[1]), 0)
            area = lambda z: (z[2] - z[0] + 1) * (z[3] - z[1] + 1)  # noqa: E731
            want = iw * ih / (area(c) if mode == "iof" else area(a) + area(c) - iw * ih)
            assert np.all(np.abs(out - want) <= rtol * 64 * np.maximum(want, 2 ** -10)), (dtype, mode)


def test_iou_v2_not_aligned_original_last_core_copies_past_the_output(monkeypatch):
    """The original's form (ORIGINAL_LAST_LEN): the last core (two gtbox tiles, 64 and 12 rows, of 1100 on the A2)
    copies lastCoreLen = 12 rows into each and clips its rows' copies to the first tile's end, so the second tile's
    last row copies a whole subTile past the overlap: the emulator refuses the copy. The port's counts stay inside."""
    _, m = _spec_and_module("iou_v2_not_aligned")
    b, g = m.make_boxes(70, 1100, 1, "float")
    monkeypatch.setattr(m, "ORIGINAL_LAST_LEN", True)
    with pytest.raises(aj.OutOfBoundsError, match="DataCopyPad"):
        m.run_iou_v2_not_aligned("atlas-a2", b, g)
    monkeypatch.setattr(m, "ORIGINAL_LAST_LEN", False)
    assert _same(m.run_iou_v2_not_aligned("atlas-a2", b, g), m.iou_v2_not_aligned_model(b, g))


@pytest.mark.parametrize("dtype", ["float", "half"])
def test_iou_v2_not_aligned_short_tiles_read_lanes_past_the_copy(monkeypatch, dtype):
    """The original's form (ZERO_TAIL False): the GatherMasks of a short tile read, on the buffer's first use, lanes
    no copy wrote (the sanitizer's init report); the outputs copied out are the same."""
    _, m = _spec_and_module("iou_v2_not_aligned")
    b, g = m.make_boxes(37, 41, 3, dtype)
    outs = {}
    monkeypatch.setattr(m, "ZERO_TAIL", False)
    original = _reports(lambda: outs.setdefault(False, m.run_iou_v2_not_aligned("atlas-a2", b, g)))
    assert original and {r.check for r in original} == {"init"}
    monkeypatch.setattr(m, "ZERO_TAIL", True)
    assert _reports(lambda: outs.setdefault(True, m.run_iou_v2_not_aligned("atlas-a2", b, g)),
                    "report,device-sync") == []
    assert _same(outs[True], outs[False])


@pytest.mark.parametrize("dtype", ["float", "bfloat16"])
def test_iou_v2_not_aligned_original_boundary_copy_races_the_scalar_loop(monkeypatch, dtype):
    """The original's form (ORIGINAL_SYNC): the boundary block's DataCopyPad reads the scalar loop's SetValues with
    no S -> MTE3 order, and the next tile's Div (Cast for 16-bit types) writes over them with no S -> V order: the
    sanitizer's RAW and WAW races; the port's S_MTE3 pair orders both."""
    _, m = _spec_and_module("iou_v2_not_aligned")
    b, g = m.make_boxes(37, 41, 4, dtype)
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    reports = _reports(lambda: m.run_iou_v2_not_aligned("atlas-a2", b, g), "report,device-sync")
    found = {(r.check, r.kind) for r in reports}
    assert found == {("race", "RAW"), ("race", "WAW")}
    assert all("SetValue" in str(r) for r in reports)
    assert any("DataCopyPad" in str(r) for r in reports)
    assert any(("Div" if dtype == "float" else "Cast") in str(r) for r in reports)


def test_iou_v2_not_aligned_runs_clean_under_the_sanitizer():
    for name, device in (("iou_v2_not_aligned", "atlas-a3"), ("iou_v2_not_aligned_half", "ascend950"),
                         ("iou_v2_not_aligned_iof_bf16", "atlas-a2"), ("iou_v2_not_aligned_iof", "ascend950")):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run(device, k.make_inputs(41 * 150, 0)), "report,device-sync") == [], name


def test_iou_v2_not_aligned_gallery_inputs():
    k, m = _spec_and_module("iou_v2_not_aligned_iof_bf16")
    inputs = k.make_inputs(41 * 37, 0)
    assert inputs["bboxes"].shape == (37, 4) and inputs["gtboxes"].shape == (41, 4)
    assert inputs["bboxes"].dtype == ml_dtypes.bfloat16
    assert k.make_inputs(7, 0)["gtboxes"].shape == (1, 4)


# kernels/nms_with_mask.py

def test_nms_with_mask_tiling():
    _, m = _spec_and_module("nms_with_mask")
    cores, raw = m.tiling((37, 4), 0.5, 0.25)
    t = m.NMSWithMaskTilingData.from_buffer_copy(raw.tobytes())
    assert (cores, t.totalLength, t.iou_threshold, t.scores_threshold) == (1, 148, 0.5, 0.25)
    assert m.tiling((2048, 4))[0] == 1
    for bad in ((2049, 4), (8,)):
        with pytest.raises(ValueError):
            m.tiling(bad)


@pytest.mark.parametrize("n, iou_t, score_t", [(8, 0.1, 0.1), (64, 0.3, 0.1), (256, 0.1, 0.5), (520, 0.05, 0.0)])
def test_nms_with_mask_is_the_numpy_model(n, iou_t, score_t):
    """Clusters of overlapping boxes; the scores threshold's stop half way (0.5) or never (0); 520 boxes: GatherMasks
    of 260 repeats split in two calls."""
    _, m = _spec_and_module("nms_with_mask")
    b, s = m.make_boxes(n, n)
    out = m.run_nms_with_mask("atlas-a2", b, s, iou_t, score_t)
    want = m.nms_with_mask_model(b, s, iou_t, score_t)
    assert out.dtype == np.uint8 and (out == want).all()
    assert 0 < out.sum() < n


def test_nms_with_mask_suppression_cases_and_the_formula():
    """A box overlapping a kept one at IoU 0.5 (>= 0.5 suppresses, 0.51 does not), a box overlapping only a
    suppressed one kept, the scores threshold dropping the rest (but not the last box reached without the stop), one
    box: kept by the GM SetValue path; zero-area boxes (NaN IoUs) never suppressed. Against a float64 greedy NMS on
    random boxes."""
    _, m = _spec_and_module("nms_with_mask")
    b = np.array([[0, 0, 10, 10], [0, 0, 10, 5], [0, 4, 10, 9], [50, 50, 60, 60], [100, 100, 101, 101],
                  [0, 0, 10, 10], [200, 200, 210, 210], [300, 300, 310, 310]], np.float32)
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.05, 0.01], np.float32)
    # box 1: IoU 0.5 with box 0; box 2: IoU 0.5 with box 0 too (inter 50); box 5 = box 0
    assert m.run_nms_with_mask("atlas-a2", b, s, 0.5, 0.1).tolist() == [1, 0, 0, 1, 1, 0, 0, 0]
    assert m.run_nms_with_mask("atlas-a2", b, s, 0.51, 0.1).tolist() == [1, 1, 1, 1, 1, 0, 0, 0]
    assert m.run_nms_with_mask("atlas-a2", b, s, 0.5, 0.02).tolist() == [1, 0, 0, 1, 1, 0, 1, 1]
    assert m.run_nms_with_mask("atlas-a2", b[:1], s[:1]).tolist() == [1]
    # identical zero-area boxes: IoU 0 / 0 = NaN, which never reaches the threshold: all kept
    assert m.run_nms_with_mask("atlas-a2", np.full((8, 4), 5, np.float32), s + 1, 0.0, 0.1).tolist() == [1] * 8
    boxes, scores = m.make_boxes(128, 3)
    out = m.run_nms_with_mask("atlas-a2", boxes, scores, 0.3, 0.1)
    x = boxes.astype(np.float64)
    keep = np.ones(128, bool)
    for i in range(127):
        if not keep[i]:
            continue
        if scores[i] < np.float32(0.1):
            keep[i:] = False
            break
        w = np.maximum(np.minimum(x[i, 2], x[:, 2]) - np.maximum(x[i, 0], x[:, 0]), 0)
        h = np.maximum(np.minimum(x[i, 3], x[:, 3]) - np.maximum(x[i, 1], x[:, 1]), 0)
        area = (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])
        iou = w * h / (area[i] + area - w * h)
        keep[(np.arange(128) > i) & (iou >= 0.3 + 1e-5)] = False
        assert not np.any((np.arange(128) > i) & (np.abs(iou - 0.3) < 1e-5))   # no pair at the float margin
    assert out.astype(bool).tolist() == keep.tolist()


def test_nms_with_mask_original_sync_races(monkeypatch):
    """The original's form (ORIGINAL_SYNC): the scores' and boxes' GetValues after the DataCopys, the areas' and IoUs'
    after the Mul and Div, the mask's copy-out after the SetValues: the sanitizer's read-after-write races; the same
    mask either way."""
    _, m = _spec_and_module("nms_with_mask")
    b, s = m.make_boxes(64, 1)
    outs = {}
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    reports = _reports(lambda: outs.setdefault(True, m.run_nms_with_mask("atlas-a2", b, s)), "report,device-sync")
    monkeypatch.setattr(m, "ORIGINAL_SYNC", False)
    pairs = {(r.kind, str(r).split(" [")[1].split("]")[0], str(r).split("after ")[1].split(" ")[0]) for r in reports}
    assert {("RAW", "PIPE_S", "DataCopy"), ("RAW", "PIPE_S", "Mul"), ("RAW", "PIPE_S", "Div"),
            ("RAW", "PIPE_MTE3", "SetValue")} <= pairs
    assert {r.check for r in reports} == {"race"}
    assert _reports(lambda: outs.setdefault(False, m.run_nms_with_mask("atlas-a2", b, s)), "report,device-sync") == []
    assert (outs[True] == outs[False]).all()


def test_nms_with_mask_original_forms_refused(monkeypatch):
    """The original's single GatherMask of n / 2 repeats: 260 for 520 boxes is refused (SPEC-2 D58); its DataCopys
    of 4 n and n floats for a count that is no multiple of 8 boxes: refused (the device would drop the tail)."""
    k, m = _spec_and_module("nms_with_mask")
    monkeypatch.setattr(m, "ORIGINAL_REPEAT", True)
    with pytest.raises(aj.ParameterError, match="repeatTimes"):
        m.run_nms_with_mask("atlas-a2", *m.make_boxes(520, 1))
    b, s = m.make_boxes(504, 1)               # 252 repeats: one call either way
    assert (m.run_nms_with_mask("atlas-a2", b, s) == m.nms_with_mask_model(b, s)).all()
    monkeypatch.setattr(m, "ORIGINAL_REPEAT", False)
    with pytest.raises(aj.AlignmentError, match="DataCopy"):
        m.run_nms_with_mask("atlas-a2", *m.make_boxes(37, 1))
    assert not k.size_ok(37) and k.size_ok(40) and not k.size_ok(2056)


def test_nms_with_mask_runs_clean_under_the_sanitizer():
    k, _ = _spec_and_module("nms_with_mask")
    assert _reports(lambda: k.run("atlas-a2", k.make_inputs(264, 0)), "report,device-sync") == []


# kernels/roi_align_v2.py

def test_roi_align_v2_tiling():
    _, m = _spec_and_module("roi_align_v2")
    cores, raw = m.tiling((2, 3, 12, 14), (13, 5), 3, 4, 0.5, 2)
    t = m.RoiAlignV2TilingData.from_buffer_copy(raw.tobytes())
    assert (cores, t.baseRoisPerCore, t.bigTotalRois, t.tailRoiNum) == (8, 1, 2, 5)
    assert (t.featureTotalSize, t.featureMapSize, t.outRoiSize, t.roiLength) == (1008, 504, 36, 5)
    assert (t.pooledHeight, t.pooledWidth, t.spatialScale, t.samplingRatio) == (3, 4, 0.5, 2)
    assert m.tiling((1, 1, 4, 4), (3, 5), 1, 1)[0] == 3
    with pytest.raises(ValueError):
        m.tiling((1, 1, 4, 4), (3, 5), 0, 1)


@pytest.mark.parametrize("n, ph, pw, scale, ratio", [(13, 3, 4, 0.5, 0), (5, 2, 2, 0.5, 2), (9, 7, 7, 0.25, 0),
                                                     (3, 1, 1, 1.0, 3)])
def test_roi_align_v2_is_the_numpy_model(n, ph, pw, scale, ratio):
    """Cores of two ROIs and of one (13: the first five two), adaptive grids, fixed ones, ROIs past the borders."""
    _, m = _spec_and_module("roi_align_v2")
    f, r = m.make_inputs(n, n + ph)
    out = m.run_roi_align_v2("atlas-a2", f, r, ph, pw, scale, ratio)
    assert out.shape == (n, 3, ph, pw) and _same(out, m.roi_align_v2_model(f, r, ph, pw, scale, ratio))
    assert np.count_nonzero(out) > out.size // 3


def test_roi_align_v2_samples_and_the_formula():
    """A 1 x 1 bin of one sample on a pixel's centre reads that pixel; between two pixels their mean; a ROI more than a
    pixel past the map gives 0; a small ROI is widened to 1 x 1. Against a float64 RoIAlign within float roundings."""
    _, m = _spec_and_module("roi_align_v2")
    f = np.arange(2 * 1 * 4 * 5, dtype=np.float32).reshape(2, 1, 4, 5)
    rois = np.array([[1, 1.5, 2.5, 2.5, 3.5], [0, 1.0, 0.5, 3.0, 1.5], [0, 7, 7, 9, 9], [0, 2, 1, 2.2, 1.1]],
                    np.float32)
    out = m.run_roi_align_v2("atlas-a2", f, rois, 1, 1, 1.0, 1)[:, 0, 0, 0]
    # ROI 0: sample (y 3, x 2) of batch 1 -> 20 + 17; ROI 1: (1, 2) -> 7; ROI 2 outside; ROI 3: widened, (1.5, 2.5)
    assert out.tolist() == [37.0, 7.0, 0.0, 10.0]
    feats, rois = m.make_inputs(17, 7)
    out = m.run_roi_align_v2("atlas-a2", feats, rois, 3, 3, 0.5, 0).astype(np.float64)
    x = feats.astype(np.float64)
    for ri, roi in enumerate(rois.astype(np.float64)):
        x1, y1, x2, y2 = roi[1:] * 0.5
        w, h = max(x2 - x1, 1), max(y2 - y1, 1)
        gh, gw = max(int(h / 3 + 0.99), 1), max(int(w / 3 + 0.99), 1)
        want = np.zeros((3, 3, 3))
        for py in range(3):
            for px in range(3):
                for iy in range(gh):
                    for ix in range(gw):
                        yy, xx = y1 + py * h / 3 + (iy + 0.5) * h / 3 / gh, x1 + px * w / 3 + (ix + 0.5) * w / 3 / gw
                        if yy < -1 or yy > 12 or xx < -1 or xx > 14:
                            continue
                        yy, xx = min(max(yy, 0), 11), min(max(xx, 0), 13)
                        y0, x0 = int(yy), int(xx)
                        ya, xa = min(y0 + 1, 11), min(x0 + 1, 13)
                        ly, lx = yy - y0, xx - x0
                        fm = x[int(roi[0])]
                        want[:, py, px] += ((1 - ly) * (1 - lx) * fm[:, y0, x0] + (1 - ly) * lx * fm[:, y0, xa]
                                            + ly * (1 - lx) * fm[:, ya, x0] + ly * lx * fm[:, ya, xa])
                want[:, py, px] /= gh * gw
        assert np.all(np.abs(out[ri] - want) <= 1e-5), ri


def test_roi_align_v2_original_sync_races(monkeypatch):
    """The original's form (ORIGINAL_SYNC): the ROI's and the channel's GetValues after their DataCopyPads (MTE2) and
    the output's DataCopyPad after the SetValues, with no flag between: the sanitizer's read-after-write races; the
    same output either way."""
    _, m = _spec_and_module("roi_align_v2")
    f, r = m.make_inputs(11, 1)
    outs = {}
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    reports = _reports(lambda: outs.setdefault(True, m.run_roi_align_v2("atlas-a2", f, r, 3, 4, 0.5)),
                       "report,device-sync")
    pairs = {(r.kind, str(r).split(" [")[1].split("]")[0], str(r).split("after ")[1].split(" ")[0]) for r in reports}
    assert pairs == {("RAW", "PIPE_S", "DataCopyPad"), ("RAW", "PIPE_MTE3", "SetValue")}
    monkeypatch.setattr(m, "ORIGINAL_SYNC", False)
    assert _reports(lambda: outs.setdefault(False, m.run_roi_align_v2("atlas-a2", f, r, 3, 4, 0.5)),
                    "report,device-sync") == []
    assert _same(outs[True], outs[False])


# kernels/stack_group_points.py

def test_stack_group_points_tiling():
    _, m = _spec_and_module("stack_group_points")
    # 37 x 5 x 6 = 1110 outputs: 70 blocks of 16, 8 a core and the first 6 cores 9; byte sizes rounded up to 32
    cores, key, raw = m.tiling((60, 5), (37, 6), 3, "half")
    t = m.StackGroupPointsTilingData.from_buffer_copy(raw.tobytes())
    assert (cores, key, t.res, t.reminder, t.standard, t.actCore) == (8, 0, 8, 6, 1110, 8)
    assert (t.featuresSize, t.indicesSize, t.fbcSize, t.ibcSize, t.outLength) == (608, 896, 32, 32, 2240)
    cores, key, raw = m.tiling((10, 2), (3, 2), 1, "float")
    t = m.StackGroupPointsTilingData.from_buffer_copy(raw.tobytes())
    assert (cores, key, t.res, t.reminder) == (1, 1, 0, 1)


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-a3"])
@pytest.mark.parametrize("points, dtype", [(64, np.float32), (37, np.float16), (3, np.float32), (200, np.float16)])
def test_stack_group_points_is_the_numpy_model(device, points, dtype):
    """Several blocks a core and a last partial block (37: 1110 outputs), one core (3), indices past their batch's
    rows (0), batches of different sizes."""
    _, m = _spec_and_module("stack_group_points")
    f, fbc, idx, ibc = m.make_inputs(points, points, dtype)
    out = m.run_stack_group_points(device, f, fbc, idx, ibc)
    assert out.shape == (points, 5, 6) and out.dtype == f.dtype
    assert _same(out, m.stack_group_points_model(f, fbc, idx, ibc))
    assert 0 < np.count_nonzero(out == 0) < out.size // 2


def test_stack_group_points_gathers_each_batch():
    """Point p of batch b reads row start_b + index of the features, every channel; an index at or past the batch's
    own end (absolute, as the kernel compares) or past the features gives 0."""
    _, m = _spec_and_module("stack_group_points")
    f = np.arange(10 * 3, dtype=np.float32).reshape(10, 3)
    fbc, ibc = np.array([4, 6], np.int32), np.array([2, 1], np.int32)
    idx = np.array([[0, 3, 4], [1, 2, 9], [0, 5, 6]], np.int32)
    out = m.run_stack_group_points("atlas-a2", f, fbc, idx, ibc)
    assert out[0].T.tolist() == [f[0].tolist(), f[3].tolist(), [0, 0, 0]]
    assert out[1].T.tolist() == [f[1].tolist(), f[2].tolist(), [0, 0, 0]]
    # batch 1 starts at row 4: index 0 -> row 4, 5 -> row 9; 6 passes n - start = 6: 0
    assert out[2].T.tolist() == [f[4].tolist(), f[9].tolist(), [0, 0, 0]]


def test_stack_group_points_original_forms(monkeypatch):
    """ORIGINAL_SYNC: the SetValues over the TBuf the Duplicate writes, no V -> S order: the sanitizer's WAW race.
    The original's last block writes 16 elements past an output of 1110 (no multiple of 16): refused unpadded."""
    _, m = _spec_and_module("stack_group_points")
    f, fbc, idx, ibc = m.make_inputs(37, 1)
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    reports = _reports(lambda: m.run_stack_group_points("atlas-a3", f, fbc, idx, ibc), "report,device-sync")
    assert {(r.check, r.kind) for r in reports} == {("race", "WAW")}
    assert all("SetValue" in str(r) and "Duplicate" in str(r) for r in reports)
    monkeypatch.setattr(m, "ORIGINAL_SYNC", False)
    assert _reports(lambda: m.run_stack_group_points("atlas-a3", f, fbc, idx, ibc), "report,device-sync") == []
    cores, key, t = m.tiling(f.shape, idx.shape, 3, "float")
    with pytest.raises(aj.OutOfBoundsError, match="DataCopy"):
        aj.launch(m.stack_group_points, cores, "atlas-a2", f.reshape(-1), fbc, idx.reshape(-1), ibc,
                  np.zeros(37 * 5 * 6, np.float32), None, t, key)
