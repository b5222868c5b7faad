"""RoiAlignV2 from the CANN CV operators (experimental): RoIAlign on the scalar unit. Each ROI [batch, x1, y1, x2, y2]
(times spatial_scale; width and height at least 1) is cut into pooled_height x pooled_width bins; each bin averages
grid_h x grid_w bilinear samples of the float feature map (features (N, C, H, W); samples past a border by more than
one pixel count 0, the others clamped to the map), grid = sampling_ratio, or ceil-ish (bin size + 0.99) truncated when
it is 0; output (num_rois, C, pooled_height, pooled_width).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-cv @ 6ae87653464d2afb064c829e529abba2e278b0c4, experimental/objdetect/roi_align_v2:
- op_kernel/roi_align_v2.h (`NsRoiAlignV2::RoiAlignV2<float>`): cores of baseRoisPerCore ROIs, the first tailRoiNum
  one more; depth-2 queues for one ROI, one feature channel (H x W) and one ROI's output; per ROI: DataCopyPad of its
  5 values (isPad true), GetValues, the scalar bin / grid arithmetic; per channel: DataCopyPad of the channel, per
  bin and sample `BilinearInterpolate` (four GetValues, the weighted sum), the bin's mean by SetValue into the
  output tensor; the ROI's output by DataCopyPad; the queues' tensors allocated and freed, never EnQue'd;
- op_kernel/roi_align_v2.cpp (the entry) and op_host/roi_align_v2_tiling.cpp (`RoiAlignV2TilingFunc`: min(cores,
  ROIs) cores; the shapes and the attributes pooled_height, pooled_width, spatial_scale, sampling_ratio).

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original). The queues' tensors are never
EnQue'd or DeQue'd, and no flag orders the copies against the scalar unit: the GetValues of the ROI and of the
channel read what DataCopyPad (MTE2) is writing, and the output's DataCopyPad (MTE3) reads the SetValues: races on the
device. The port adds FetchEventID'd MTE2_S pairs after the copies in and an S_MTE3 pair before the copy out
(ORIGINAL_SYNC = True runs the original's form and tests/test_port47cv2_kernels.py shows the sanitizer's reports).

Devices: the operator's config is the ascend910b (op_host/roi_align_v2_def.cpp): the port runs on the A2.

Fidelity: BIT-EXACT (DataCopyPad; the scalar C++ float arithmetic is each operation rounded once to float, no
contraction, as docs/decisions.md takes the scalar unit; float -> int32 truncates), so the numpy model of the
sampling (the same operation order) is checked bit for bit.
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
BUFFER_NUM = 2
DEVICES = ("atlas-a2",)
ORIGINAL_SYNC = False              # True: the scalar unit's reads and writes without the port's flag pairs
F = np.float32


class RoiAlignV2TilingData(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint32) for name in (
        "baseRoisPerCore", "bigTotalRois", "tailRoiNum", "featureTotalSize", "roiLength", "featureMapSize",
        "outRoiSize", "numRois", "batch", "channels", "height", "width")] + [
        ("pooledHeight", ctypes.c_int32), ("pooledWidth", ctypes.c_int32), ("spatialScale", ctypes.c_float),
        ("samplingRatio", ctypes.c_int32)]


def tiling(features_shape, rois_shape, pooled_height, pooled_width, spatial_scale=1.0, sampling_ratio=0):
    """RoiAlignV2TilingFunc: (cores, tiling bytes)."""
    if pooled_height <= 0 or pooled_width <= 0:
        raise ValueError("Invalid pooled height or width")
    batch, channels, height, width = features_shape
    num_rois, roi_length = rois_shape
    cores = min(CORE_NUM, num_rois)
    if cores == 0:
        raise ValueError("no ROI")
    t = RoiAlignV2TilingData(
        baseRoisPerCore=num_rois // cores, bigTotalRois=num_rois // cores + 1, tailRoiNum=num_rois % cores,
        featureTotalSize=batch * channels * height * width, roiLength=roi_length,
        featureMapSize=channels * height * width, outRoiSize=channels * pooled_height * pooled_width,
        numRois=num_rois, batch=batch, channels=channels, height=height, width=width, pooledHeight=pooled_height,
        pooledWidth=pooled_width, spatialScale=spatial_scale, samplingRatio=sampling_ratio)
    return cores, np.frombuffer(bytes(t), np.uint8).copy()


def _flag(event):
    if ORIGINAL_SYNC:
        return
    evt = aj.GetTPipePtr().FetchEventID(event)
    aj.SetFlag(evt, event=event)
    aj.WaitFlag(evt, event=event)


def _i32(v):
    """static_cast<int32_t>(float): truncation toward zero."""
    return int(np.trunc(v))


class RoiAlignV2:
    """`RoiAlignV2<float>`."""

    def Init(self, features, rois, output, td):
        blockIdx = aj.GetBlockIdx()
        self.myRoiNum = td.bigTotalRois if blockIdx < td.tailRoiNum else td.baseRoisPerCore
        if blockIdx < td.tailRoiNum:
            self.myRoiStart = self.myRoiNum * blockIdx
        else:
            self.myRoiStart = self.myRoiNum * blockIdx + td.tailRoiNum
        self.roiLength, self.outRoiSize = td.roiLength, td.outRoiSize
        self.channels, self.height, self.width = td.channels, td.height, td.width
        self.pooledHeight, self.pooledWidth = td.pooledHeight, td.pooledWidth
        self.spatialScale, self.samplingRatio = F(td.spatialScale), td.samplingRatio
        self.featuresGm, self.roisGm, self.outputGm = (aj.GlobalTensor("float") for _ in range(3))
        self.featuresGm.SetGlobalBuffer(features, td.featureTotalSize)
        self.roisGm.SetGlobalBuffer(rois[self.myRoiStart * self.roiLength:], self.myRoiNum * self.roiLength)
        self.outputGm.SetGlobalBuffer(output[self.myRoiStart * self.outRoiSize:], self.myRoiNum * self.outRoiSize)
        self.pipe = aj.TPipe()
        self.featureQueue = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.roiQueue = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.outQueue = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.pipe.InitBuffer(self.featureQueue, BUFFER_NUM, self.height * self.width * 4)
        self.pipe.InitBuffer(self.roiQueue, BUFFER_NUM, self.roiLength * 4)
        self.pipe.InitBuffer(self.outQueue, BUFFER_NUM, self.outRoiSize * 4)

    def Process(self):
        for i in range(self.myRoiNum):
            self.ProcessOneROI(i)

    def ProcessOneROI(self, roiIdx):
        roiLocal = self.roiQueue.AllocTensor("float")
        aj.DataCopyPad(roiLocal, self.roisGm[roiIdx * self.roiLength], aj.DataCopyExtParams(1, self.roiLength * 4,
                                                                                             0, 0, 0),
                       aj.DataCopyPadExtParams(True, 0, 0, F(0)))
        _flag(aj.HardEvent.MTE2_S)          # deviation: the ROI's GetValues
        s = self.spatialScale
        with np.errstate(all="ignore"):
            batchIdx = _i32(roiLocal.GetValue(0))
            roi_x1, roi_y1 = F(roiLocal.GetValue(1)) * s, F(roiLocal.GetValue(2)) * s
            roi_x2, roi_y2 = F(roiLocal.GetValue(3)) * s, F(roiLocal.GetValue(4)) * s
            self.roiQueue.FreeTensor(roiLocal)
            roi_x, roi_y = roi_x1, roi_y1
            roi_w, roi_h = roi_x2 - roi_x1, roi_y2 - roi_y1
            if roi_w < F(1.0):
                roi_w = F(1.0)
            if roi_h < F(1.0):
                roi_h = F(1.0)
            outW, outH, featW, featH = self.pooledWidth, self.pooledHeight, self.width, self.height
            outHW = outH * outW
            bin_w, bin_h = roi_w / F(outW), roi_h / F(outH)
            sr = self.samplingRatio
            grid_h = sr if sr > 0 else _i32((roi_h / F(outH)) + F(0.99))
            grid_w = sr if sr > 0 else _i32((roi_w / F(outW)) + F(0.99))
            grid_h, grid_w = max(grid_h, 1), max(grid_w, 1)
            count = F(grid_h * grid_w)
            outputLocal = self.outQueue.AllocTensor("float")
            featMapOffset = batchIdx * self.channels * featH * featW
            for c in range(self.channels):
                featureLocal = self.featureQueue.AllocTensor("float")
                size = featH * featW
                aj.DataCopyPad(featureLocal, self.featuresGm[featMapOffset + c * size],
                               aj.DataCopyExtParams(1, size * 4, 0, 0, 0), aj.DataCopyPadExtParams(True, 0, 0, F(0)))
                _flag(aj.HardEvent.MTE2_S)  # deviation: the channel's GetValues
                outCOffset = c * outHW
                for ph in range(outH):
                    for pw in range(outW):
                        bin_start_y = roi_y + F(ph) * bin_h
                        bin_start_x = roi_x + F(pw) * bin_w
                        acc = F(0.0)
                        for iy in range(grid_h):
                            yy = bin_start_y + (F(iy) + F(0.5)) * (bin_h / F(grid_h))
                            for ix in range(grid_w):
                                xx = bin_start_x + (F(ix) + F(0.5)) * (bin_w / F(grid_w))
                                acc = acc + self.BilinearInterpolate(featureLocal, yy, xx, featW, featH)
                        outputLocal.SetValue(outCOffset + ph * outW + pw, acc / count)
                self.featureQueue.FreeTensor(featureLocal)
        _flag(aj.HardEvent.S_MTE3)          # deviation: the output's SetValues
        aj.DataCopyPad(self.outputGm[roiIdx * self.outRoiSize], outputLocal,
                       aj.DataCopyExtParams(1, self.outRoiSize * 4, 0, 0, 0))
        self.outQueue.FreeTensor(outputLocal)

    @staticmethod
    def BilinearInterpolate(featureLocal, y, x, featW, featH):
        featH_f, featW_f = F(featH), F(featW)
        if y < F(-1.0) or y > featH_f or x < F(-1.0) or x > featW_f:
            return F(0.0)
        if y < F(0.0):
            y = F(0.0)
        if y > featH_f - F(1.0):
            y = featH_f - F(1.0)
        if x < F(0.0):
            x = F(0.0)
        if x > featW_f - F(1.0):
            x = featW_f - F(1.0)
        y0, x0 = _i32(y), _i32(x)
        y1 = y0 + 1 if y0 + 1 < featH else y0
        x1 = x0 + 1 if x0 + 1 < featW else x0
        ly, lx = y - F(y0), x - F(x0)
        hy, hx = F(1.0) - ly, F(1.0) - lx
        v00 = F(featureLocal.GetValue(y0 * featW + x0))
        v01 = F(featureLocal.GetValue(y0 * featW + x1))
        v10 = F(featureLocal.GetValue(y1 * featW + x0))
        v11 = F(featureLocal.GetValue(y1 * featW + x1))
        return (hy * hx) * v00 + (hy * lx) * v01 + (ly * hx) * v10 + (ly * lx) * v11


aj.REGISTER_TILING_DEFAULT(RoiAlignV2TilingData)


def roi_align_v2(features, rois, output, workspace, tiling_bytes):
    """The kernel entry (roi_align_v2.cpp), DTYPE_FEATURES float."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(RoiAlignV2TilingData, tiling_bytes)
    op = RoiAlignV2()
    op.Init(features, rois, output, tilingData)
    op.Process()


def run_roi_align_v2(device, features, rois, pooled_height, pooled_width, spatial_scale=1.0, sampling_ratio=0):
    """features (N, C, H, W) float, rois (R, 5) [batch, x1, y1, x2, y2] -> (R, C, pooled_height, pooled_width)."""
    cores, t = tiling(features.shape, rois.shape, pooled_height, pooled_width, spatial_scale, sampling_ratio)
    c = features.shape[1]
    out = np.zeros(rois.shape[0] * c * pooled_height * pooled_width, np.float32)
    aj.launch(roi_align_v2, cores, device, np.ascontiguousarray(features, np.float32).reshape(-1),
              np.ascontiguousarray(rois, np.float32).reshape(-1), out, None, t)
    return out.reshape(rois.shape[0], c, pooled_height, pooled_width)


def roi_align_v2_model(features, rois, pooled_height, pooled_width, spatial_scale=1.0, sampling_ratio=0):
    """numpy float32 over all bins at once (each sample's operations in the kernel's order, rounded once each)."""
    feats = np.asarray(features, F)
    _, C, H, W = feats.shape
    out = np.zeros((rois.shape[0], C, pooled_height, pooled_width), F)
    s = F(spatial_scale)
    with np.errstate(all="ignore"):
        for r, roi in enumerate(np.asarray(rois, F)):
            x1, y1, x2, y2 = (roi[k] * s for k in range(1, 5))
            w, h = max(x2 - x1, F(1.0)), max(y2 - y1, F(1.0))
            bw, bh = w / F(pooled_width), h / F(pooled_height)
            gh = sampling_ratio if sampling_ratio > 0 else int(np.trunc(h / F(pooled_height) + F(0.99)))
            gw = sampling_ratio if sampling_ratio > 0 else int(np.trunc(w / F(pooled_width) + F(0.99)))
            gh, gw = max(gh, 1), max(gw, 1)
            start_y = (y1 + np.arange(pooled_height, dtype=F) * bh).astype(F)[:, None]
            start_x = (x1 + np.arange(pooled_width, dtype=F) * bw).astype(F)[None, :]
            fmap = feats[int(np.trunc(roi[0]))]
            acc = np.zeros((C, pooled_height, pooled_width), F)
            for iy in range(gh):
                yy = np.broadcast_to(start_y + (F(iy) + F(0.5)) * (bh / F(gh)), (pooled_height, pooled_width))
                for ix in range(gw):
                    xx = np.broadcast_to(start_x + (F(ix) + F(0.5)) * (bw / F(gw)), (pooled_height, pooled_width))
                    outside = (yy < -1) | (yy > F(H)) | (xx < -1) | (xx > F(W))
                    y = np.minimum(np.maximum(yy, F(0)), F(H) - F(1)).astype(F)
                    x = np.minimum(np.maximum(xx, F(0)), F(W) - F(1)).astype(F)
                    y0, x0 = np.trunc(y).astype(np.int64), np.trunc(x).astype(np.int64)
                    y1i, x1i = np.where(y0 + 1 < H, y0 + 1, y0), np.where(x0 + 1 < W, x0 + 1, x0)
                    ly, lx = (y - y0.astype(F)).astype(F), (x - x0.astype(F)).astype(F)
                    hy, hx = (F(1) - ly).astype(F), (F(1) - lx).astype(F)
                    val = ((hy * hx) * fmap[:, y0, x0]).astype(F)
                    val = (val + ((hy * lx) * fmap[:, y0, x1i]).astype(F)).astype(F)
                    val = (val + ((ly * hx) * fmap[:, y1i, x0]).astype(F)).astype(F)
                    val = (val + ((ly * lx) * fmap[:, y1i, x1i]).astype(F)).astype(F)
                    acc = (acc + np.where(outside, F(0), val)).astype(F)
            out[r] = (acc / F(gh * gw)).astype(F)
    return out


def make_inputs(num_rois, seed, batch=2, channels=3, height=12, width=14, scale=0.5):
    """Random features and ROIs in the input's scale (1 / scale), some reaching past the map's borders."""
    rng = np.random.default_rng(seed)
    feats = rng.uniform(-2, 2, (batch, channels, height, width)).astype(np.float32)
    x1 = rng.uniform(-4, width / scale, num_rois)
    y1 = rng.uniform(-4, height / scale, num_rois)
    rois = np.stack([rng.integers(0, batch, num_rois), x1, y1, x1 + rng.uniform(0, 16, num_rois),
                     y1 + rng.uniform(0, 16, num_rois)], axis=1).astype(np.float32)
    return feats, rois


_ATTRS = dict(pooled_height=3, pooled_width=4, spatial_scale=0.5, sampling_ratio=0)


def _make_inputs(size, seed):
    feats, rois = make_inputs(size, seed)
    return {"features": feats, "rois": rois}


def _run(device, inputs):
    return {"output": run_roi_align_v2(device, inputs["features"], inputs["rois"], **_ATTRS)}


def _expected(device, inputs):
    return {"output": roi_align_v2_model(inputs["features"], inputs["rois"], **_ATTRS)}


KERNELS = [
    KernelSpec("roi_align_v2", "RoiAlignV2, experimental: RoIAlign on the scalar unit (per ROI and channel a "
               "DataCopyPad, per bin grid x grid bilinear samples by GetValue, the mean by SetValue, DataCopyPad "
               "out; 3 x 4 bins, scale 0.5, adaptive grids, features (2, 3, 12, 14))", _make_inputs, _run,
               _expected, default_size=40, devices=DEVICES,
               source="hicann/ops-cv@6ae87653 experimental/objdetect/roi_align_v2/op_kernel/roi_align_v2.h",
               size_rule="the ROI count (1 or more)", size_ok=lambda n: n >= 1)
]
