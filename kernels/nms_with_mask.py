"""NMSWithMask from the CANN CV operators (experimental): greedy non-maximum suppression on one core. Boxes (n, 4) of
[x1, y1, x2, y2] in float, sorted by their scores (n) from the highest; the uint8 mask (n) keeps a box (1) unless an
earlier kept box overlaps it with IoU >= iou_threshold, or an earlier box (in order, before the last) scored below
scores_threshold, which drops it and every later box. IoU = inter / (area_i + area_j - inter), area = (x2 - x1) (y2 -
y1), inter = max(min(x2) - max(x1), 0) max(min(y2) - max(y1), 0), in float.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-cv @ 6ae87653464d2afb064c829e529abba2e278b0c4, experimental/image/nms_with_mask:
- op_kernel/nms_with_mask.h (`NsNMSWithMask::NMSWithMask<float>`): depth-1 queues for the boxes, the scores and the
  mask, three float TBufs (the gathered coordinates, the areas, the broadcast box); CopyIn by DataCopy of 4 n and n
  floats; `IOU`: SetValue 1 over the mask, `GatherIdx` (four GatherMasks of the built-in patterns 3-6, counter mode,
  mask 8, n / 2 repeats of one block: x1, y1, x2, y2 rows), Sub, Sub, Mul (the areas), Duplicate 0; then for each
  box i but the last, on the scalar unit: skip it if suppressed, stop (dropping it and the rest) if its score
  (GetValue) is below scores_threshold; else GatherIdx again, four Duplicates of its coordinates (GetValue), Max, Max,
  Min, Min, Sub, Sub, Duplicate 0, Max, Max, Mul (the intersections), Duplicate of its area (GetValue), Add, Sub, Div,
  and a scalar loop over the later boxes setting the mask to 0 where GetValue(IoU) >= iou_threshold; CopyOut by
  DataCopyPad of n bytes; one box: GM SetValue 1;
- op_kernel/nms_with_mask.cpp (the entry: tiling key 0, float) and op_host/nms_with_mask_tiling.cpp
  (`NMSWithMaskTilingFunc`: one core; totalLength = 4 n, at most 2048 boxes; the thresholds from the attributes,
  0.1 by default).

Deviations: the scalar unit reads what the copy-in and the vector unit wrote, and writes what the copy-out reads,
with only the queues' MTE2 -> V and V -> MTE3 orders (DeQue, EnQue): read-after-write races on the device for the
scores' and the boxes' GetValues (MTE2 -> S), the areas' and the IoUs' (V -> S) and the copy-out of the mask's
SetValues (S -> MTE3). The port adds FetchEventID'd MTE2_S, V_S (after the areas and after each Div) and S_MTE3
pairs; ORIGINAL_SYNC = True runs the original's form and tests/test_port47cv2_kernels.py shows the sanitizer's
race reports. GatherMaskParams.repeatTimes n / 2 passes 255 from 512 boxes (the emulator refuses it, SPEC-2 D58):
the port splits each GatherMask into calls of at most 252 repeats (255 rounded down to whole 32-byte blocks of the
destination; ORIGINAL_REPEAT = True runs the single call). The DataCopys move whole 32-byte blocks: the box count
must be a multiple of 8 (the port's size rule; for other counts the emulator refuses the original's copies, which
the device would round down, tests/test_port47cv2_kernels.py).

Devices: the operator's config is the ascend910b (op_host/config): the port runs on the A2.

Fidelity: Div MODELLED (SPEC-2 D37: the exact quotient rounded once), the rest BIT-EXACT (GatherMask, Sub, Mul, Max,
Min, Duplicate, Add, DataCopy, DataCopyPad; SPEC-2 0.3), so the numpy model of the greedy loop (each float operation
rounded once) is checked bit for bit; a NaN IoU (two zero-area boxes: 0 / 0) never suppresses.
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 1
ALIGN32_FLOAT = 8
BOX_NEED_IDX = 4
GATHER_MASK_MASK_NEED = 8          # 32 bytes of floats a repeat
LIMIT_INPUT_NUM = 2048 * 4
MAX_REPEAT = 252                   # the port's GatherMask calls: 255 at most, whole 32-byte dst blocks
DEVICES = ("atlas-a2",)
ORIGINAL_SYNC = False              # True: the scalar reads and writes without the port's flag pairs
ORIGINAL_REPEAT = False            # True: one GatherMask of n / 2 repeats (refused past 255)


class NMSWithMaskTilingData(ctypes.Structure):
    _fields_ = [("totalLength", ctypes.c_int64), ("iou_threshold", ctypes.c_float),
                ("scores_threshold", ctypes.c_float)]


def tiling(shape, iou_threshold=0.1, scores_threshold=0.1):
    """NMSWithMaskTilingFunc: (cores, tiling bytes)."""
    if len(shape) != 2:
        raise ValueError("the boxes must be 2-D")
    total = shape[0] * shape[1]
    if total > LIMIT_INPUT_NUM:
        raise ValueError("at most 2048 boxes")
    t = NMSWithMaskTilingData(total, iou_threshold, scores_threshold)
    return 1, np.frombuffer(bytes(t), np.uint8).copy()


def _flag(event):
    if ORIGINAL_SYNC:
        return
    evt = aj.GetTPipePtr().FetchEventID(event)
    aj.SetFlag(evt, event=event)
    aj.WaitFlag(evt, event=event)


class NMSWithMask:
    """`NMSWithMask<float>`."""

    def Init(self, x, y, z, td):
        self.rawLength = td.totalLength
        self.scoresLength = td.totalLength // BOX_NEED_IDX
        self.Align32BoxNum = (self.scoresLength + ALIGN32_FLOAT - 1) // ALIGN32_FLOAT * ALIGN32_FLOAT
        self.AlignintLengh = self.Align32BoxNum * BOX_NEED_IDX
        self.iou_threshold = np.float32(td.iou_threshold)
        self.scores_threshold = np.float32(td.scores_threshold)
        self.inputGMX, self.inputGMY = aj.GlobalTensor("float"), aj.GlobalTensor("float")
        self.outputGMZ = aj.GlobalTensor("uint8")
        self.inputGMX.SetGlobalBuffer(x)
        self.inputGMY.SetGlobalBuffer(y)
        self.outputGMZ.SetGlobalBuffer(z)
        self.pipe = aj.TPipe()
        self.inputQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.inputQueueY = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outputQueueZ = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.baseBuffer, self.areaBuffer = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        self.mathBuffer = aj.TBuf(aj.TPosition.VECCALC)
        self.pipe.InitBuffer(self.inputQueueX, BUFFER_NUM, self.AlignintLengh * 4)
        self.pipe.InitBuffer(self.inputQueueY, BUFFER_NUM, self.Align32BoxNum * 4)
        self.pipe.InitBuffer(self.outputQueueZ, BUFFER_NUM, self.Align32BoxNum)
        self.pipe.InitBuffer(self.mathBuffer, self.AlignintLengh * 4)
        self.pipe.InitBuffer(self.areaBuffer, self.Align32BoxNum * 4)
        self.pipe.InitBuffer(self.baseBuffer, self.AlignintLengh * 4)

    def CopyIn(self):
        xLocal = self.inputQueueX.AllocTensor("float")
        yLocal = self.inputQueueY.AllocTensor("float")
        aj.DataCopy(xLocal, self.inputGMX[0], self.rawLength)
        aj.DataCopy(yLocal, self.inputGMY[0], self.scoresLength)
        self.inputQueueX.EnQue(xLocal)
        self.inputQueueY.EnQue(yLocal)

    def CopyOut(self):
        zLocal = self.outputQueueZ.DeQue("uint8")
        aj.DataCopyPad(self.outputGMZ[0], zLocal, aj.DataCopyExtParams(1, self.scoresLength, 0, 0, 0))
        self.outputQueueZ.FreeTensor(zLocal)

    def GatherIdx(self, dstLocal, srcLocal):
        """Row idx of dstLocal: coordinate idx of every box (pattern idx + 3: the idx-th of every four floats)."""
        repeats = self.scoresLength // 2
        step = repeats if ORIGINAL_REPEAT else MAX_REPEAT
        for idx in range(BOX_NEED_IDX):
            for r0 in range(0, max(repeats, 1), max(step, 1)):   # deviation: at most 252 repeats a call
                params = aj.GatherMaskParams(1, min(step, repeats - r0), 1, 1)
                aj.GatherMask(dstLocal[idx * self.Align32BoxNum + 2 * r0], srcLocal[8 * r0], idx + 3, True,
                              GATHER_MASK_MASK_NEED, params)

    def IOU(self, xLocal, yLocal, zLocal):
        n, A = self.scoresLength, self.Align32BoxNum
        for i in range(self.rawLength // BOX_NEED_IDX):
            zLocal.SetValue(i, np.uint8(1))
        areaLocal = self.areaBuffer.Get("float")
        mathLocal = self.mathBuffer.Get("float")
        self.GatherIdx(mathLocal, xLocal)
        aj.Sub(mathLocal, mathLocal[2 * A], mathLocal, n)
        aj.Sub(mathLocal[A], mathLocal[3 * A], mathLocal[A], n)
        aj.Mul(areaLocal, mathLocal, mathLocal[A], n)
        aj.Duplicate(mathLocal, np.float32(0), self.rawLength)
        _flag(aj.HardEvent.MTE2_S)          # deviation: the scores and boxes the scalar unit reads
        _flag(aj.HardEvent.V_S)             # deviation: the areas
        for i in range(n - 1):
            if zLocal.GetValue(i) == 0:
                continue
            if yLocal.GetValue(i) < self.scores_threshold:
                for end in range(i, n):
                    zLocal.SetValue(end, np.uint8(0))
                break
            self.GatherIdx(mathLocal, xLocal)
            baseLocal = self.baseBuffer.Get("float")
            for idx in range(BOX_NEED_IDX):
                aj.Duplicate(baseLocal[idx * A], xLocal.GetValue(i * BOX_NEED_IDX + idx), A)
            aj.Max(baseLocal, baseLocal, mathLocal, n)                          # the intersections' corners
            aj.Max(baseLocal[A], baseLocal[A], mathLocal[A], n)
            aj.Min(baseLocal[2 * A], baseLocal[2 * A], mathLocal[2 * A], n)
            aj.Min(baseLocal[3 * A], baseLocal[3 * A], mathLocal[3 * A], n)
            aj.Sub(baseLocal, baseLocal[2 * A], baseLocal, n)
            aj.Sub(baseLocal[A], baseLocal[3 * A], baseLocal[A], n)
            aj.Duplicate(mathLocal, np.float32(0), self.rawLength)
            aj.Max(baseLocal, baseLocal, mathLocal, n)
            aj.Max(baseLocal[A], baseLocal[A], mathLocal[A], n)
            aj.Mul(baseLocal, baseLocal, baseLocal[A], n)                       # the intersections' areas
            aj.Duplicate(mathLocal, areaLocal.GetValue(i), n)
            aj.Add(mathLocal, mathLocal, areaLocal, n)
            aj.Sub(mathLocal, mathLocal, baseLocal, n)                          # the unions' areas
            aj.Div(baseLocal, baseLocal, mathLocal, n)
            _flag(aj.HardEvent.V_S)         # deviation: the IoUs the scalar loop reads
            for t in range(i + 1, n):
                if baseLocal.GetValue(t) >= self.iou_threshold:
                    zLocal.SetValue(t, np.uint8(0))

    def Compute(self):
        xLocal = self.inputQueueX.DeQue("float")
        yLocal = self.inputQueueY.DeQue("float")
        zLocal = self.outputQueueZ.AllocTensor("uint8")
        self.IOU(xLocal, yLocal, zLocal)
        _flag(aj.HardEvent.S_MTE3)          # deviation: the mask's SetValues the copy-out reads
        self.outputQueueZ.EnQue(zLocal)
        self.inputQueueX.FreeTensor(xLocal)
        self.inputQueueY.FreeTensor(yLocal)

    def Process(self):
        if self.rawLength <= BOX_NEED_IDX:
            self.outputGMZ.SetValue(0, np.uint8(1))
        else:
            self.CopyIn()
            self.Compute()
            self.CopyOut()


aj.REGISTER_TILING_DEFAULT(NMSWithMaskTilingData)


def nms_with_mask(x, y, z, workspace, tiling_bytes):
    """The kernel entry (nms_with_mask.cpp), tiling key 0 (float)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(NMSWithMaskTilingData, tiling_bytes)
    op = NMSWithMask()
    op.Init(x, y, z, tilingData)
    op.Process()


def run_nms_with_mask(device, boxes, scores, iou_threshold=0.1, scores_threshold=0.1):
    """boxes (n, 4) float, scores (n,) float, sorted from the highest score -> the uint8 mask (n,)."""
    cores, t = tiling(boxes.shape, iou_threshold, scores_threshold)
    out = np.zeros(boxes.shape[0], np.uint8)
    aj.launch(nms_with_mask, cores, device, np.ascontiguousarray(boxes, np.float32).reshape(-1),
              np.ascontiguousarray(scores, np.float32), out, None, t)
    return out


def nms_with_mask_model(boxes, scores, iou_threshold=0.1, scores_threshold=0.1):
    """The greedy loop in numpy float32 (each operation rounded once, the IoU's division once)."""
    f = np.float32
    b = np.asarray(boxes, f)
    n = b.shape[0]
    keep = np.ones(n, np.uint8)
    if n <= 1:
        return keep
    with np.errstate(all="ignore"):
        area = ((b[:, 2] - b[:, 0]).astype(f) * (b[:, 3] - b[:, 1]).astype(f)).astype(f)
        for i in range(n - 1):
            if keep[i] == 0:
                continue
            if f(scores[i]) < f(scores_threshold):
                keep[i:] = 0
                break
            w = (np.minimum(b[i, 2], b[:, 2]) - np.maximum(b[i, 0], b[:, 0])).astype(f)
            h = (np.minimum(b[i, 3], b[:, 3]) - np.maximum(b[i, 1], b[:, 1])).astype(f)
            inter = (np.maximum(w, f(0)) * np.maximum(h, f(0))).astype(f)
            union = ((area[i] + area).astype(f) - inter).astype(f)
            iou = (inter / union).astype(f)
            later = np.arange(n) > i
            keep[later & (iou >= f(iou_threshold))] = 0
    return keep


def make_boxes(n, seed):
    """n boxes in clusters (so that some overlap), scores sorted from the highest, a few below 0.1 at the end."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 200, (max(1, n // 6), 2))
    c = centres[rng.integers(0, len(centres), n)] + rng.normal(0, 6, (n, 2))
    wh = rng.uniform(8, 30, (n, 2))
    boxes = np.concatenate([c - wh / 2, c + wh / 2], axis=1).astype(np.float32)
    scores = np.sort(rng.uniform(0.02, 1.0, n))[::-1].astype(np.float32)
    return boxes, scores


def _make_inputs(size, seed):
    boxes, scores = make_boxes(size, seed)
    return {"boxes": boxes, "scores": scores}


def _run(device, inputs):
    return {"mask": run_nms_with_mask(device, inputs["boxes"], inputs["scores"])}


def _expected(device, inputs):
    return {"mask": nms_with_mask_model(inputs["boxes"], inputs["scores"])}


KERNELS = [
    KernelSpec("nms_with_mask", "NMSWithMask, experimental: greedy NMS of float boxes sorted by score on one core "
               "(GatherMask rows of the coordinates, Sub / Mul areas; per kept box Duplicates of its coordinates, "
               "Max, Min, Sub, Max 0, Mul, Add, Sub, Div, and a scalar loop over the later boxes' IoUs; the scores "
               "threshold drops the rest; thresholds 0.1)", _make_inputs, _run, _expected, default_size=256,
               devices=DEVICES, source="hicann/ops-cv@6ae87653 experimental/image/nms_with_mask/op_kernel/"
               "nms_with_mask.h", size_rule="a multiple of 8 boxes up to 2048 (the DataCopys' 32-byte blocks)",
               size_ok=lambda n: 8 <= n <= 2048 and n % 8 == 0)
]
