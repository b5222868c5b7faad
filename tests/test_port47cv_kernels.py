"""The session-47 ports of ops-cv kernels: kernels/blend_face_bg_part_two.py (BlendFaceBgPartTwo, A2 / A3 / 950:
Adds / Div / Muls / Adds / Mul / Mul / Add over float, a uint8 background through half; element-split cores from
unaligned GM starts, DataCopyPad tiles padded to 32 bytes), kernels/to_absolute_b_box.py (ToAbsoluteBBox, the 950
Memory API: a scale TBuf of a count-form and an odd-lane mask-form Duplicate, Mul per tile; the reversed layout by
Muls per coordinate segment) and kernels/background_replace.py (BackgroundReplace, 310P: Mul / Mul / Sub / Add in
half, uint8 pixels through Casts; the VectorScheduler's 32-byte steps with a backed-off last one). Each against its
numpy model bit for bit on every device it runs on (the MODELLED Div is the exact quotient rounded once, D37),
against a float64 formula within the types' rounding; the host tilings; each of the original's forms the port
changes, run and refused."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import sanitizer_reports as _reports, bits as _bits, same_bits as _same, spec_and_module as _spec_and_module

A2_A3_950 = ["atlas-a2", "atlas-a3", "ascend950"]
P310 = "atlas-inference-aicore"


# kernels/blend_face_bg_part_two.py

def _blend_tiling(m, device, n, eps=1e-12):
    used, raw = m.tiling(device, n, eps)
    return used, m.BlendFaceBgPartTwoTilingData.from_buffer_copy(raw.tobytes())


def _blend_inputs(n, seed, bg_uint8):
    rng = np.random.default_rng(seed)
    mask = rng.uniform(0.0, 3.0, n).astype(np.float32)
    face = (mask * rng.uniform(0, 255, n)).astype(np.float32)
    mx = rng.uniform(0.0, 1.0, n).astype(np.float32)
    bg = rng.integers(0, 256, n).astype(np.uint8) if bg_uint8 else rng.uniform(0, 255, n).astype(np.float32)
    return face, mask, mx, bg


def test_blend_face_bg_part_two_tiling():
    _, m = _spec_and_module("blend_face_bg_part_two")
    # (196608 - 8192) / 56 = 3364 elements, capped at 2048; the 950's too; 100003 = 8 x 12500 + 3
    used, t = _blend_tiling(m, "atlas-a2", 100003)
    assert (used, t.totalElems, t.baseElems, t.pivot, t.tileSize) == (8, 100003, 12500, 3, 2048)
    assert t.epsilon == np.float32(1e-12)
    assert _blend_tiling(m, "ascend950", 100003)[1].tileSize == 2048
    used, t = _blend_tiling(m, "atlas-a3", 5, 0.5)
    assert (used, t.baseElems, t.pivot, t.epsilon) == (5, 1, 0, 0.5)
    assert _blend_tiling(m, "atlas-a2", 0)[0] == 1
    # every element once: the first pivot cores one more
    for n in (1, 7, 9, 2049, 30011):
        used, t = _blend_tiling(m, "atlas-a2", n)
        assert sum(t.baseElems + (c < t.pivot) for c in range(used)) == n


@pytest.mark.parametrize("device", A2_A3_950)
@pytest.mark.parametrize("n, bg_uint8", [(30011, False), (30011, True), (5, False), (4099, True)])
def test_blend_face_bg_part_two_is_the_numpy_model(device, n, bg_uint8):
    """Two tiles a core (30011: 3752 or 3751 elements, 2048 and a short one from unaligned GM starts), fewer
    elements than cores, one core's tile padded to 32 bytes (4099: 513 a core for three cores)."""
    _, m = _spec_and_module("blend_face_bg_part_two")
    face, mask, mx, bg = _blend_inputs(n, n, bg_uint8)
    for eps in (1e-12, 0.25):
        y = m.run_blend_face_bg_part_two(device, face, mask, mx, bg, eps)
        assert y.dtype == np.float32 and _same(y, m.blend_face_bg_part_two_model(face, mask, mx, bg, eps))


def test_blend_face_bg_part_two_specials_and_the_formula():
    """acc_mask 0: face / 1e-12 (0 for a zero face; inf past float's range, then inf * 0 = NaN where max_mask is 0);
    NaN propagates; an infinite acc_mask gives a zero face; max_mask 1 takes the face alone, 0 the background alone.
    Against float64 within a few float roundings."""
    _, m = _spec_and_module("blend_face_bg_part_two")
    face = np.tile(np.array([0.0, 1e30, 3.0, np.nan, 6.0, 6.0, 2.0, 1.0], np.float32), 9)
    mask = np.tile(np.array([0.0, 0.0, 0.0, 1.0, 2.0, 2.0, 4.0, np.inf], np.float32), 9)
    mx = np.tile(np.array([1.0, 0.0, 0.5, 1.0, 1.0, 0.0, 0.25, 1.0], np.float32), 9)
    bg = np.tile(np.array([10, 20, 30, 40, 50, 60, 70, 80], np.uint8), 9)
    y = m.run_blend_face_bg_part_two("atlas-a2", face, mask, mx, bg)
    assert _same(y, m.blend_face_bg_part_two_model(face, mask, mx, bg))
    assert y[0] == 0.0 and np.isnan(y[[1, 3]]).all()
    assert y[2] == np.float32(np.float32(3.0 / np.float32(1e-12)) * np.float32(0.5) + np.float32(15.0))
    assert y[4:8].tolist() == [3.0, 60.0, np.float32(0.5 * 0.25 + 70 * 0.75), 0.0]
    face, mask, mx, bg = _blend_inputs(20011, 3, False)
    mask += 0.1
    for device in A2_A3_950:
        out = m.run_blend_face_bg_part_two(device, face, mask, mx, bg).astype(np.float64)
        f64 = [a.astype(np.float64) for a in (face, mask, mx, bg)]
        want = f64[0] / (f64[1] + 1e-12) * f64[2] + f64[3] * (1 - f64[2])
        assert np.all(np.abs(out - want) <= 4 * 2 ** -24 * (np.abs(want) + 255.0)), device


def test_blend_face_bg_part_two_runs_clean_under_the_sanitizer():
    for name in ("blend_face_bg_part_two", "blend_face_bg_part_two_uint8_bg"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("ascend950", k.make_inputs(4099, 0))) == [], name
        assert _reports(lambda: k.run("atlas-a3", k.make_inputs(30011, 0)), "device-sync") == [], name


# kernels/to_absolute_b_box.py

def _box_tiling(m, shape, dtype, reversed_box=False):
    blocks, raw, key = m.tiling("ascend950", shape, dtype, reversed_box)
    return blocks, key, m.ToAbsoluteBBoxTilingData.from_buffer_copy(raw.tobytes())


def test_to_absolute_b_box_tiling():
    _, m = _spec_and_module("to_absolute_b_box")
    # 100000 floats: ceil(3.2e6 / 32768) = 98 cores -> 8; 12500 rounded up to 12800 elements a block, 8 blocks;
    # (253952 - 64) / 20 = 12694 -> 12672 floats a tile: 2 loops (12672 + 128), the last block 10400 in one
    blocks, key, t = _box_tiling(m, (2, 12500, 4), "float")
    assert (blocks, key, t.coreNum, t.blockFormer, t.blockNum, t.ubFormer) == (8, 0, 8, 12800, 8, 12672)
    assert (t.ubLoopOfFormerBlock, t.ubTailOfFormerBlock, t.ubLoopOfTailBlock, t.ubTailOfTailBlock) == (
        2, 128, 1, 10400)
    assert t.num == 12500 and t.dim0 == 100000
    # half: 25344 a tile; 2048 halves: one core of 2048 (cores by 4 KiB)
    blocks, key, t = _box_tiling(m, (1, 4, 512), "half", True)
    assert (blocks, key, t.ubFormer, t.blockFormer, t.num) == (1, 1, 25344, 2048, 512)
    assert _box_tiling(m, (1, 1, 4), "float")[2].blockFormer == 512
    for bad in ((1, 4), (2, 4, 3)):
        with pytest.raises(ValueError):
            m.tiling("ascend950", bad, "float")
    with pytest.raises(ValueError):
        m.tiling("ascend950", (2, 5, 4), "float", True)


@pytest.mark.parametrize("dtype, shape, reversed_box, hw", [
    (np.float32, (2, 12500, 4), False, (1, 1080, 1920, 3)), (np.float16, (3, 10001, 4), False, (1, 2049, 4097, 3)),
    (np.float32, (3, 4, 5001), True, (2, 480, 640, 1)), (np.float16, (2, 4, 12503), True, (1, 70001, 3, 1)),
    (np.float32, (1, 1, 4), False, (0, 7, 9, 0)), (np.float16, (1, 4, 1), True, (0, 7, 9, 0))])
def test_to_absolute_b_box_is_the_numpy_model(dtype, shape, reversed_box, hw):
    """Blocks of several tiles and a short last one, core ranges cut inside coordinate segments (reversed), a
    half H / W past 2048 rounded to even and past 65504 to inf, a single box."""
    _, m = _spec_and_module("to_absolute_b_box")
    boxes = np.random.default_rng(shape[1]).uniform(-0.5, 1.5, shape).astype(dtype)
    hw = np.array(hw, np.int32)
    y = m.run_to_absolute_b_box("ascend950", boxes, hw, reversed_box)
    assert y.dtype == boxes.dtype and y.shape == boxes.shape
    assert _same(y, m.to_absolute_b_box_model(boxes, hw, reversed_box))


def test_to_absolute_b_box_scales_by_coordinate_and_the_formula():
    """[ymin, xmin, ymax, xmax] times [H, W, H, W] in either layout; NaN stays NaN, inf * 0 (a zero H) is NaN;
    against float64 within one rounding of T."""
    _, m = _spec_and_module("to_absolute_b_box")
    b = np.array([[[0.5, 0.25, 1.0, np.nan]]], np.float32)
    y = m.run_to_absolute_b_box("ascend950", b, np.array([1, 10, 100, 3], np.int32))
    assert y[0, 0, :3].tolist() == [5.0, 25.0, 10.0] and np.isnan(y[0, 0, 3])
    y = m.run_to_absolute_b_box("ascend950", np.array([[[np.inf], [1], [2], [3]]], np.float32),
                                np.array([1, 0, 100, 3], np.int32), True)
    assert np.isnan(y[0, 0, 0]) and y[0, 1:, 0].tolist() == [100.0, 0.0, 300.0]
    assert _bits(y[0, 2:3, 0]).tolist() == [0]
    rng = np.random.default_rng(4)
    for dtype, rtol in ((np.float32, 2 ** -24), (np.float16, 2 ** -11)):
        for rev in (False, True):
            shape = (2, 4, 3001) if rev else (2, 3001, 4)
            x = rng.uniform(0, 1, shape).astype(dtype)
            out = m.run_to_absolute_b_box("ascend950", x, np.array([1, 720, 1280, 3], np.int32), rev)
            s = np.array([720.0, 1280.0, 720.0, 1280.0])
            want = x.astype(np.float64) * (s[None, :, None] if rev else s[None, None, :])
            assert np.all(np.abs(out.astype(np.float64) - want) <= rtol * np.abs(want)), (dtype, rev)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_to_absolute_b_box_original_shape_hw_cast_is_refused(monkeypatch, dtype):
    """The original's Casts of shape_hw: int32 -> float CAST_NONE (not in the 950's table: SPEC-2 D45 / D72) and
    int32 -> half CAST_RINT (SPEC-2 D47: needs SetDeqScale) are refused before any box is scaled."""
    _, m = _spec_and_module("to_absolute_b_box")
    monkeypatch.setattr(m, "ORIGINAL_CAST", True)
    with pytest.raises(aj.UnsupportedDTypeError, match="D72|D47"):
        m.run_to_absolute_b_box("ascend950", np.ones((1, 8, 4), dtype), np.array([1, 2, 3, 1], np.int32))


def test_to_absolute_b_box_original_float_mask_is_refused(monkeypatch):
    """The original passes the odd-lane mask in both words for float too; a non-zero mask[1] for 32-bit lanes is
    refused (SPEC 2.1). The half kernel's 128 lanes take both words: unchanged."""
    _, m = _spec_and_module("to_absolute_b_box")
    monkeypatch.setattr(m, "ORIGINAL_MASK", True)
    hw = np.array([1, 3, 5, 1], np.int32)
    with pytest.raises(aj.ParameterError, match="mask"):
        m.run_to_absolute_b_box("ascend950", np.ones((1, 8, 4), np.float32), hw)
    x = np.ones((1, 8, 4), np.float16)
    assert m.run_to_absolute_b_box("ascend950", x, hw)[0, 0].tolist() == [3.0, 5.0, 3.0, 5.0]


def test_to_absolute_b_box_runs_clean_under_the_sanitizer():
    for name in ("to_absolute_b_box", "to_absolute_b_box_half", "to_absolute_b_box_reversed",
                 "to_absolute_b_box_reversed_half"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("ascend950", k.make_inputs(40008, 0)), "report,device-sync") == [], name


# kernels/background_replace.py

def test_background_replace_scheduler_steps(monkeypatch):
    """The VectorScheduler per core: 248 KiB / 5 = 50790 bytes -> 50784 (25392 halves) a step; / 12 -> 21152 uint8;
    a core's count in whole steps, its tail rounded down to 32 bytes, and a last 32-byte step backed off to end at
    its last element."""
    _, m = _spec_and_module("background_replace")
    steps = {}

    class Recorder:
        def CalcForAlign32(self, idx, length):
            steps.setdefault(aj.GetBlockIdx(), []).append((idx, length))

    def kernel(n, ub_var, size):
        sch = m.VectorScheduler(n, aj.GetBlockNum(), 1, ub_var, size)
        assert sch.dataBytesPerLoop == {5: 50784, 12: 21152}[ub_var]
        sch.run(Recorder(), sch.dataLen)

    aj.launch(kernel, 8, P310, 100003, 5, 2)
    assert steps[0] == [(0, 12496), (12484, 16)] and steps[7] == [(0, 12496), (12487, 16)]
    steps.clear()
    aj.launch(kernel, 8, P310, 8 * 30000, 12, 1)
    assert steps[3] == [(0, 21152), (21152, 8832), (29968, 32)]
    steps.clear()
    aj.launch(kernel, 8, P310, 100, 5, 2)                    # 12 a core < 16: core 0 takes all 100
    assert steps == {0: [(0, 96), (84, 16)]}


@pytest.mark.parametrize("dtype, n", [(np.float16, 100003), (np.uint8, 100003), (np.float16, 16 * 8 * 3200 + 5),
                                      (np.uint8, 300001), (np.float16, 37), (np.uint8, 32)])
def test_background_replace_is_the_numpy_model(dtype, n):
    """Backed-off last steps, several UB steps a core (409605 halves: 51200 a core, 25392 x 2 and a tail), a
    whole-core split below 32 bytes a core (37, 32)."""
    _, m = _spec_and_module("background_replace")
    rng = np.random.default_rng(n)
    if dtype == np.uint8:
        bkg, src = rng.integers(0, 256, n).astype(np.uint8), rng.integers(0, 256, n).astype(np.uint8)
    else:
        bkg, src = (rng.uniform(-300, 300, n).astype(np.float16) for _ in range(2))
    mask = rng.uniform(-0.2, 1.2, n).astype(np.float16)
    out = m.run_background_replace(P310, bkg, src, mask)
    assert out.dtype == bkg.dtype and _same(out, m.background_replace_model(bkg, src, mask))


def test_background_replace_specials_and_the_formula():
    """Masks 0 and 1 give the background and the source exactly; uint8 results round to nearest even and saturate
    (a mask past 1 or below 0: 0..255); the 310P's half stages saturate (SPEC D6, SPEC-2 D35): a NaN result becomes
    +0 and an infinite one +-65504 at every stage. Against float64 within half's roundings."""
    _, m = _spec_and_module("background_replace")
    bkg = np.tile(np.array([10, 200, 255, 0, 3, 255, 100, 1], np.uint8), 8)
    src = np.tile(np.array([20, 100, 0, 255, 4, 255, 0, 2], np.uint8), 8)
    mask = np.tile(np.array([0, 1, 0.5, 2, 0.5, -1, 0.005, 0.25], np.float16), 8)
    out = m.run_background_replace(P310, bkg, src, mask)
    assert _same(out, m.background_replace_model(bkg, src, mask))
    assert out[:8].tolist() == [10, 100, 128, 255, 4, 255, 100, 1]
    hb = np.tile(np.array([np.nan, np.inf, 1.0, 2.0], np.float16), 8)
    hs = np.tile(np.array([1.0, 1.0, np.inf, 5.0], np.float16), 8)
    hm = np.tile(np.array([0.5, 0.0, 0.0, 1.0], np.float16), 8)
    h = m.run_background_replace(P310, hb, hs, hm)
    assert h[:4].tolist() == [0.5, 65504.0, 1.0, 5.0] and _same(h, m.background_replace_model(hb, hs, hm))
    rng = np.random.default_rng(8)
    b, s = (rng.uniform(0, 255, 20011).astype(np.float16) for _ in range(2))
    mk = rng.uniform(0, 1, 20011).astype(np.float16)
    out = m.run_background_replace(P310, b, s, mk).astype(np.float64)
    b64, s64, m64 = (a.astype(np.float64) for a in (b, s, mk))
    want = b64 * (1 - m64) + s64 * m64
    assert np.all(np.abs(out - want) <= 4 * 2 ** -11 * 255.0)


def test_background_replace_below_one_datablock_reads_past_the_gm():
    """Fewer than 32 bytes of pixels: the original's one 32-byte step on core 0 reads past the GM tensors: the
    emulator refuses the copy (the port's size rule asks for 32 elements)."""
    k, m = _spec_and_module("background_replace")
    assert not k.size_ok(31) and k.size_ok(32)
    with pytest.raises(aj.OutOfBoundsError):
        m.run_background_replace(P310, *(np.ones(10, np.float16) for _ in range(3)))
    with pytest.raises(NotImplementedError):
        m.tiling(30, 10, "half")


def test_background_replace_runs_clean_under_the_sanitizer():
    for name in ("background_replace", "background_replace_uint8"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run(P310, k.make_inputs(100003, 0)), "report,device-sync") == [], name


# kernels/iou_v2.py

def _iou_tiling(m, device, n, dtype, mode="iou"):
    cores, key, raw = m.tiling(device, n, dtype, mode)
    return cores, key, m.IouV2TilingData.from_buffer_copy(raw.tobytes())


def _iou_boxes(n, seed, dtype):
    rng = np.random.default_rng(seed)
    b1 = np.stack([rng.uniform(0, 50, n), rng.uniform(0, 50, n), rng.uniform(0, 50, n), rng.uniform(0, 50, n)])
    b1[2:] += b1[:2]
    b2 = b1 + rng.uniform(-8, 8, (4, n))
    b2[2:] = np.maximum(b2[2:], b2[:2])
    return b1.astype(dtype), b2.astype(dtype)


def test_iou_v2_tiling():
    _, m = _spec_and_module("iou_v2")
    # 1001 floats -> 1008 x 17 x 4 bytes: 17 loops of 4 KiB, tiles of 64 boxes over 16 "cores" -> capped: 8 cores
    # of ceil(1008 / 8) = 126 -> 128 boxes
    cores, key, t = _iou_tiling(m, "atlas-a2", 1001, "float")
    assert (cores, key, t.tileLength, t.loopNum, t.frontCoreNum, t.gtBoxLength) == (8, 4, 128, 1, 0, 1001)
    assert t.eps == 1.0
    # 50007 floats past 8 x 2888 (A2): 18 tiles of 2784, 2 a core and 3 on the first 2 cores
    cores, key, t = _iou_tiling(m, "atlas-a2", 50007, "float", "iof")
    assert (cores, key, t.tileLength, t.loopNum, t.frontCoreNum) == (8, 14, 2784, 2, 2)
    # the 950's larger UB: 14 tiles, one a core and 6 cores two
    assert _iou_tiling(m, "ascend950", 50007, "float")[2].loopNum == 1
    # below 4 KiB: one core, the whole (aligned) length a tile; keys by type
    cores, key, t = _iou_tiling(m, "atlas-a3", 37, "half")
    assert (cores, key, t.tileLength) == (1, 5, 48)
    assert _iou_tiling(m, "atlas-a3", 37, "bfloat16", "iof")[1] == 16


@pytest.mark.parametrize("device", A2_A3_950)
@pytest.mark.parametrize("dtype, n, mode", [(np.float32, 50007, "iof"), (np.float32, 1001, "iou"),
                                            (np.float16, 50007, "iou"), (ml_dtypes.bfloat16, 3001, "iof"),
                                            (np.float16, 37, "iof")])
def test_iou_v2_is_the_numpy_model(device, dtype, n, mode):
    """Last cores of two tiles (50007 on the A2 / A3), a short last tile padded by the port's zeros, one core."""
    _, m = _spec_and_module("iou_v2")
    b1, b2 = _iou_boxes(n, n, dtype)
    for eps in (1.0, 0.0):
        out = m.run_iou_v2(device, b1, b2, mode, eps)
        assert out.shape == (n, 1) and _same(out, m.iou_v2_model(b1, b2, mode, eps)), (mode, eps)


def test_iou_v2_specials_and_the_formula():
    """Identical boxes: IoU 1 (eps 0); disjoint: 0; a box inside the other: the area ratio; zero-area gtbox with eps 0:
    IoF 0 / 0 = NaN. Against float64 within a few float roundings (and the type's RNE)."""
    _, m = _spec_and_module("iou_v2")
    b1 = np.array([[0, 0, 10, 10], [0, 0, 1, 1], [2, 2, 4, 4], [0, 0, 0, 0]], np.float32).T.copy()
    b2 = np.array([[0, 0, 10, 10], [5, 5, 6, 6], [0, 0, 8, 8], [0, 0, 0, 0]], np.float32).T.copy()
    b1, b2 = np.tile(b1, 9), np.tile(b2, 9)
    iou = m.run_iou_v2("atlas-a2", b1, b2, "iou", 0.0)[:4, 0]
    assert iou[:3].tolist() == [1.0, 0.0, 0.0625] and np.isnan(iou[3])
    iof = m.run_iou_v2("atlas-a2", b1, b2, "iof", 0.0)[:4, 0]
    assert iof[:3].tolist() == [1.0, 0.0, 0.0625] and np.isnan(iof[3])
    for dtype, rtol in ((np.float32, 8 * 2 ** -24), (np.float16, 2 ** -11 + 8 * 2 ** -24)):
        x, y = _iou_boxes(4001, 5, dtype)
        for mode in ("iou", "iof"):
            out = m.run_iou_v2("ascend950", x, y, mode, 1.0)[:, 0].astype(np.float64)
            a, b = x.astype(np.float64), y.astype(np.float64)
            iw = np.maximum(np.minimum(a[2], b[2]) + 1 - np.maximum(a[0], b[0]), 0)
            ih = np.maximum(np.minimum(a[3], b[3]) + 1 - np.maximum(a[1], b[1]), 0)
            area = lambda z: (z[2] - z[0] + 1) * (z[3] - z[1] + 1)  # noqa: E731
            want = iw * ih / (area(b) if mode == "iof" else area(a) + area(b) - iw * ih)
            assert np.all(np.abs(out - want) <= rtol * 64 * np.maximum(want, 2 ** -10)), (dtype, mode)


def test_iou_v2_original_last_core_leaves_outputs_unwritten(monkeypatch):
    """The original's form (ORIGINAL_LAST_LEN): the last core copies n % tileLength boxes in every one of its tiles,
    so with two tiles there (50007 floats on the A2: 2784 and 2679) 105 outputs of its first tile stay as the GM
    held them; the port's own counts write them all."""
    _, m = _spec_and_module("iou_v2")
    b1, b2 = _iou_boxes(50007, 1, np.float32)
    want = m.iou_v2_model(b1, b2, "iou")
    monkeypatch.setattr(m, "ORIGINAL_LAST_LEN", True)
    out = m.run_iou_v2("atlas-a2", b1, b2)
    gap = slice(44544 + 2679, 44544 + 2784)
    assert (out[gap] == 0).all() and np.count_nonzero(want[gap]) > 50
    keep = np.ones(50007, bool)
    keep[gap] = False
    assert _same(out[keep], want[keep])
    monkeypatch.setattr(m, "ORIGINAL_LAST_LEN", False)
    assert _same(m.run_iou_v2("atlas-a2", b1, b2), want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_iou_v2_whole_tile_compute_reads_lanes_past_the_copy(monkeypatch, dtype):
    """The original's form (ZERO_TAIL False): the Compute over the whole tile reads, on the last core's short tile,
    lanes no copy wrote (the buffer's first use); the outputs copied out are the same."""
    _, m = _spec_and_module("iou_v2")
    b1, b2 = _iou_boxes(1001, 2, dtype)
    outs = {}
    monkeypatch.setattr(m, "ZERO_TAIL", False)
    original = _reports(lambda: outs.setdefault(False, m.run_iou_v2("atlas-a2", b1, b2)))
    assert original and {r.check for r in original} == {"init"}
    monkeypatch.setattr(m, "ZERO_TAIL", True)
    assert _reports(lambda: outs.setdefault(True, m.run_iou_v2("atlas-a2", b1, b2)), "report,device-sync") == []
    assert _same(outs[True], outs[False])


def test_iou_v2_runs_clean_under_the_sanitizer():
    for name, n, device in (("iou_v2_half", 50007, "atlas-a2"), ("iou_v2_iof", 50007, "atlas-a3"),
                            ("iou_v2_iof_bf16", 1001, "ascend950"), ("iou_v2", 30011, "atlas-a2")):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run(device, k.make_inputs(n, 0)), "report,device-sync") == [], name


# kernels/grid_unnormal.py

def test_grid_unnormal_tiling():
    _, m = _spec_and_module("grid_unnormal")
    # (253952 - 8192) / (3 x 4 x 2 + 8) = 7680 floats a tile; half: / 20 = 12288; 100002 -> 8 cores of 12501
    used, raw = m.tiling("ascend950", (1, 1, 50001, 2), "float", True)
    t = m.GridUnnormalTilingData.from_buffer_copy(raw.tobytes())
    assert (used, t.totalNum, t.perCoreNum, t.ubFactor, t.alignCorners) == (8, 100002, 12501, 7680, 1)
    used, raw = m.tiling("ascend950", (2, 3, 1, 2), "half")
    t = m.GridUnnormalTilingData.from_buffer_copy(raw.tobytes())
    assert (used, t.perCoreNum, t.ubFactor, t.alignCorners) == (6, 2, 12288, 0)
    with pytest.raises(ValueError):
        m.tiling("ascend950", (1, 4, 3), "float")


@pytest.mark.parametrize("dtype, n, align_corners", [(np.float32, 50001, False), (np.float32, 50001, True),
                                                     (np.float16, 30011, True), (np.float16, 5003, False),
                                                     (np.float32, 3, True)])
def test_grid_unnormal_is_the_numpy_model(dtype, n, align_corners):
    """Two tiles a core (float: 7680 and 4821), a short last vector each tile, cores of one element."""
    _, m = _spec_and_module("grid_unnormal")
    rng = np.random.default_rng(n)
    grid = rng.uniform(-1.2, 1.2, (1, n, 1, 2)).astype(dtype)
    assist = rng.integers(1, 2000, (1, n, 1, 2)).astype(dtype)
    diff, pos = m.run_grid_unnormal("ascend950", grid, assist, align_corners)
    want_diff, want_pos = m.grid_unnormal_model(grid, assist, align_corners)
    assert diff.dtype == grid.dtype and pos.dtype == np.int32
    assert _same(diff, want_diff) and np.array_equal(pos, want_pos)


def test_grid_unnormal_specials_and_the_formula():
    """-1 / 1 map to -0.5 / size - 0.5 (or 0 / size - 1 with align_corners); a negative position floors towards
    -inf with diff in [0, 1); NaN: position 0 (D45), diff NaN; +inf: INT32_MAX (saturated) and diff inf; against
    float64 within float's rounding."""
    _, m = _spec_and_module("grid_unnormal")
    g = np.array([-1.0, 1.0, 0.0, -1.2, np.nan, np.inf], np.float32).reshape(1, 1, 3, 2)
    a = np.full_like(g, 10.0)
    diff, pos = m.run_grid_unnormal("ascend950", g, a)
    assert pos.reshape(-1).tolist() == [-1, 9, 4, -2, 0, 2 ** 31 - 1]
    d = diff.reshape(-1)
    assert d[:3].tolist() == [0.5, 0.5, 0.5] and abs(d[3] - 0.5) < 1e-6         # -1.2 -> -1.5 (rounded)
    assert np.isnan(d[4]) and d[5] == np.inf and _same(diff, m.grid_unnormal_model(g, a)[0])
    diff, pos = m.run_grid_unnormal("ascend950", g, a, True)
    assert pos.reshape(-1)[:3].tolist() == [0, 9, 4] and diff.reshape(-1)[:3].tolist() == [0.0, 0.0, 0.5]
    rng = np.random.default_rng(6)
    g = rng.uniform(-1, 1, (1, 4001, 1, 2)).astype(np.float32)
    a = rng.integers(2, 1000, g.shape).astype(np.float32)
    for ac in (False, True):
        diff, pos = m.run_grid_unnormal("ascend950", g, a, ac)
        t = (g.astype(np.float64) + 1) / 2
        p = t * (a - 1) if ac else t * a - 0.5
        got = pos + diff.astype(np.float64)
        assert np.all(np.abs(got - p) <= 4 * 2 ** -24 * np.maximum(np.abs(p), 1)), ac
        assert np.all((diff >= 0) & (diff < 1))


def test_grid_unnormal_original_cast_trait_is_refused(monkeypatch):
    """The original's kCastI32ToF32 carries SatMode NO_SAT; the 950's int32 -> float row offers UNKNOWN only (SPEC-2
    11.5): the Cast is refused in the VF."""
    _, m = _spec_and_module("grid_unnormal")
    monkeypatch.setattr(m, "ORIGINAL_TRAIT", True)
    g = np.zeros((1, 1, 8, 2), np.float32)
    with pytest.raises(aj.ParameterError, match="satMode"):
        m.run_grid_unnormal("ascend950", g, g + 4)


def test_grid_unnormal_whole_vector_loads_read_past_the_copy(monkeypatch):
    """The original's form (ZERO_TAIL False): the last whole-vector load of a tile whose length is no multiple of 64
    reads queue-buffer lanes no copy wrote (outside the UpdateMask: the same outputs). Session 54: the lanes carry
    the init check; those lanes never reach a store, so the original (reported before) runs clean too."""
    k, m = _spec_and_module("grid_unnormal_half_align_corners")
    inputs = k.make_inputs(10006, 0)
    outs = {}
    monkeypatch.setattr(m, "ZERO_TAIL", False)
    assert _reports(lambda: outs.setdefault(False, k.run("ascend950", inputs)), "report,device-sync") == []
    monkeypatch.setattr(m, "ZERO_TAIL", True)
    assert _reports(lambda: outs.setdefault(True, k.run("ascend950", inputs)), "report,device-sync") == []
    assert all(_same(outs[True][key], outs[False][key]) for key in outs[True])


def test_grid_unnormal_runs_clean_under_the_sanitizer():
    for name in ("grid_unnormal", "grid_unnormal_half_align_corners"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("ascend950", k.make_inputs(20002, 0)), "report,device-sync") == [], name


# kernels/bounding_box_encode.py

def _bbe_boxes(n, seed, dtype):
    rng = np.random.default_rng(seed)
    x1, y1 = rng.uniform(0, 500, n), rng.uniform(0, 500, n)
    anchor = np.stack([x1, y1, x1 + rng.uniform(0, 120, n), y1 + rng.uniform(0, 120, n)], axis=1)
    gt = anchor + rng.uniform(-15, 15, (n, 4))
    gt[:, 2:] = np.maximum(gt[:, 2:], gt[:, :2])
    return anchor.astype(dtype), gt.astype(dtype)


def test_bounding_box_encode_tiling():
    _, m = _spec_and_module("bounding_box_encode")
    # 12004 floats: 12 cores by bits -> 8; 1501 -> 1536 a core, 8 cores, the last 1252; (253952 - 64) / 20 = 12694
    # -> 12688 a tile; half: / 14 = 18134 -> 18128 (both below 65535 bytes)
    used, raw = m.tiling("ascend950", (3001, 4), "float", (0, 0, 0, 0), (0.1, 0.1, 0.2, 0.2))
    t = m.BoundingBoxEncodeTilingData.from_buffer_copy(raw.tobytes())
    assert (used, t.dim0, t.blockFactor, t.ubFactor) == (8, 12004, 1536, 12688)
    assert t.invStds0 == np.float32(1) / np.float32(0.1) and t.invStds3 == np.float32(1) / np.float32(0.2)
    used, raw = m.tiling("ascend950", (5, 4), "half")
    t = m.BoundingBoxEncodeTilingData.from_buffer_copy(raw.tobytes())
    assert (used, t.blockFactor, t.ubFactor) == (1, 512, 18128)
    for bad in (((5, 3), {}), ((5, 4), {"stds": (1, 0, 1, 1)})):
        with pytest.raises(ValueError):
            m.tiling("ascend950", bad[0], "float", **bad[1])


@pytest.mark.parametrize("dtype, n, ub", [(np.float32, 3001, None), (np.float16, 3001, None), (np.float32, 700, 128),
                                          (np.float16, 1, None)])
def test_bounding_box_encode_is_the_numpy_model(dtype, n, ub):
    """8 cores of 384 boxes and a short last one; several tiles a core (the tiling's ubFactor set to 128 elements:
    the kernel reads only the fields); one box."""
    _, m = _spec_and_module("bounding_box_encode")
    a, g = _bbe_boxes(n, n, dtype)
    means, stds = (0.1, -0.2, 0.0, 0.3), (0.1, 0.1, 0.2, 0.2)
    if ub is None:
        out = m.run_bounding_box_encode("ascend950", a, g, means, stds)
    else:
        used, raw = m.tiling("ascend950", a.shape, "float", means, stds)
        t = m.BoundingBoxEncodeTilingData.from_buffer_copy(raw.tobytes())
        t.ubFactor = ub
        out = np.zeros(a.size, a.dtype)
        aj.launch(m.bounding_box_encode, used, "ascend950", a.reshape(-1), g.reshape(-1), out, None,
                  np.frombuffer(bytes(t), np.uint8).copy(), "float")
        out = out.reshape(a.shape)
    assert out.dtype == a.dtype and _same(out, m.bounding_box_encode_model(a, g, means, stds))


def test_bounding_box_encode_specials_and_the_formula():
    """A zero-width ground truth: ln 0 = -inf; a negative ratio: NaN; a NaN coordinate: NaN; a zero-width anchor
    (pw 0): +-inf dx; a ratio below 2**-126, which the 950's Ln reads as 0 (D38): FixLnResult's software logarithm,
    within 2 ulp of ln. Against float64 within a few float roundings; half by CAST_ROUND."""
    _, m = _spec_and_module("bounding_box_encode")
    a = np.array([[0, 0, 10, 10], [0, 0, 10, 10], [np.nan, 0, 1, 1], [0, 0, -1, 10], [0, 0, 2.0 ** 120, 2.0 ** 110]],
                 np.float32)
    g = np.array([[0, 0, -1, 10], [0, 0, -3, 10], [0, 0, 1, 1], [0, 0, 1, 1], [0, 0, -1 + 2.0 ** -24, 0]],
                 np.float32)
    out = m.run_bounding_box_encode("ascend950", a, g)
    assert _same(out, m.bounding_box_encode_model(a, g))
    assert out[0, 2] == -np.inf and np.isnan(out[1, 2]) and np.isnan(out[2, [0, 2]]).all() and out[3, 0] == np.inf
    soft, exact = np.float64(out[4, 2]), np.log(2.0 ** -24 / 2.0 ** 120)
    assert abs(soft - exact) <= 2 * 2 ** -23 * abs(exact)
    for dtype, rtol in ((np.float32, 16 * 2 ** -24), (np.float16, 2 ** -11 + 16 * 2 ** -24)):
        a, g = _bbe_boxes(2001, 4, dtype)
        out = m.run_bounding_box_encode("ascend950", a, g, (0, 0, 0, 0), (0.1, 0.1, 0.2, 0.2)).astype(np.float64)
        a64, g64 = a.astype(np.float64), g.astype(np.float64)
        pw, ph = a64[:, 2] - a64[:, 0] + 1, a64[:, 3] - a64[:, 1] + 1
        gw, gh = g64[:, 2] - g64[:, 0] + 1, g64[:, 3] - g64[:, 1] + 1
        dx = ((g64[:, 0] + g64[:, 2]) - (a64[:, 0] + a64[:, 2])) / 2 / pw
        dy = ((g64[:, 1] + g64[:, 3]) - (a64[:, 1] + a64[:, 3])) / 2 / ph
        want = np.stack([dx / 0.1, dy / 0.1, np.log(gw / pw) / 0.2, np.log(gh / ph) / 0.2], axis=1)
        # the centre differences and the widths cancel: a few ulp of the coordinates (up to ~700) over the width
        u = 8 * 2 ** -24 * 1400
        atol = np.stack([u / pw / 0.1, u / ph / 0.1, u / np.minimum(gw, pw) / 0.2, u / np.minimum(gh, ph) / 0.2], 1)
        assert np.all(np.abs(out - want) <= rtol * 4 * np.abs(want) + atol + 2 ** -24), dtype


def test_bounding_box_encode_half_rounds_ties_away_from_zero():
    """CAST_ROUND: a float exactly between two halves goes away from zero (RNE would pick the even one)."""
    _, m = _spec_and_module("bounding_box_encode")
    x = np.array([1 + 2 ** -11, -(1 + 3 * 2 ** -11), 2 + 2 ** -10, 0.1], np.float32)
    assert _bits(m._to_half_round_away(x)).tolist() == [0x3C01, 0xBC02, 0x4001, _bits(np.array([np.float16(0.1)]))[0]]
    # through the kernel: dx = (gcx - pcx) / pw with pw 1 and a centre shift of 1 + 2**-11
    a = np.array([[0, 0, 0, 0]], np.float16)
    g = np.array([[1, 0, 1, 0]], np.float16)
    assert m.run_bounding_box_encode("ascend950", a, g, (-(2.0 ** -11), 0, 0, 0))[0, 0] == np.float16(1 + 2 ** -10)


def test_bounding_box_encode_runs_clean_under_the_sanitizer():
    for name in ("bounding_box_encode", "bounding_box_encode_half"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("ascend950", k.make_inputs(2404, 0)), "report,device-sync") == [], name


def test_bounding_box_encode_original_float_loop_races_the_copy_in(monkeypatch):
    """The original's float path (ORIGINAL_SYNC): the first scalar loop GetValues the tiles DataCopyPad brought in
    and SetValues [1, 1, rw, rh] over them with only the queue's MTE2 -> V order (DeQue) between: the sanitizer
    reports the read-after-write and write-after-write races on the scalar pipe (the fix: an MTE2_S pair). The half
    path's Casts and V_S pair order it already."""
    k, m = _spec_and_module("bounding_box_encode")
    inputs = k.make_inputs(1204, 0)
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    original = _reports(lambda: k.run("ascend950", inputs), "report,device-sync")
    assert original and {(r.check, r.kind, r.instruction.api) for r in original} == {
        ("race", "RAW", "GetValue"), ("race", "WAW", "SetValue")}
    monkeypatch.setattr(m, "ORIGINAL_SYNC", False)
    assert _reports(lambda: k.run("ascend950", inputs), "report,device-sync") == []
    half = _spec_and_module("bounding_box_encode_half")[0]
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    assert _reports(lambda: half.run("ascend950", half.make_inputs(1204, 0)), "report,device-sync") == []
