"""BoundingBoxEncode from the CANN CV operators: the regression deltas of ground-truth boxes against anchor boxes,
both (n, 4) [x1, y1, x2, y2], over float and half (computed in float):
dx = ((gx - px) / pw - means0) / stds0, dy likewise with the heights, dw = (ln(gw / pw) - means2) / stds2, dh
likewise, where px, gx are the centres and pw = x2 - x1 + 1, gw the widths (the 1 of pixel-inclusive boxes).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-cv @ 6ae87653464d2afb064c829e529abba2e278b0c4, objdetect/bounding_box_encode (the 950 Memory API):
- op_kernel/arch35/bounding_box_encode.h (`NsBoundingBoxEncode::BoundingBoxEncode<T>`, `BoxDeltaCalc`): each core
  blockFactor elements (the last the rest), tiles of ubFactor; depth-1 queues for the two inputs and the output,
  two float TBufs; per tile DataCopyPad in (DataCopyExtParams, no padding), then float: a scalar loop over the
  tile's boxes (GetValue of eight coordinates, `BoxDeltaCalc::Run`: centres, widths and heights + 1, dx, dy, rw,
  rh; dx / dy by SetValue into a TBuf, [1, 1, rw, rh] back over the anchor tile in place), S_V, Ln of the tile, V_S,
  a second scalar loop (dx / dy and the logs minus the means times the inverse stds; `FixLnResult`: NaN for a NaN or
  negative ratio, -inf for 0, and for a positive ratio whose Ln came out -inf a software log (`SoftLnPositive`),
  written back over the anchor tile), S_V, Adds 0 into the output tile; half: Casts CAST_NONE to the float TBufs
  first, the same loops (dx / dy kept in the output tile reinterpreted as float), Cast CAST_ROUND into the output;
  FetchEventID'd S_V / V_S flags; DataCopyPad out;
- op_kernel/bounding_box_encode_apt.cpp (the entry) and op_host/arch35/bounding_box_encode_tiling_arch35.cpp
  (`BoundingBoxEncodeTilingFunc`: cores = ceil(total bits / 32768) at most the AIV count, blockFactor = ceil(total /
  cores) rounded up to 512 elements; ubFactor = (UB - 64) / (5 x 4, or 3 x 2 + 2 x 4 for half) bytes, at most 65535
  bytes of T, rounded down to 32 bytes; the means and 1 / stds of the attributes).

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original). The float path's first scalar
loop GetValues the tiles DataCopyPad brought in and SetValues over the anchor tile with only the input queue's
MTE2 -> V order (DeQue) before it, nothing ordering the copy before the scalar unit: a read-after-write and a
write-after-write race on the device (the half path reads them after Casts and a V_S pair). The port puts an MTE2_S
pair (FetchEventID'd) before the loop; ORIGINAL_SYNC = True runs the original's form, and
tests/test_port47cv_kernels.py shows the sanitizer's race reports. Every copy moves exactly the tile's bytes and the
Ln, Casts and Adds run over the tile's count.

Devices: the operator's config is the ascend950 (op_host/bounding_box_encode_def.cpp): the port runs on the 950.

Fidelity: Ln MODELLED (SPEC-2 D37: the exact logarithm rounded once), the rest BIT-EXACT (Cast, Adds, DataCopyPad;
SPEC-2 0.3); the scalar C++ float arithmetic is each operation rounded once to float (no contraction, as
docs/decisions.md takes the scalar unit), so the numpy model is checked bit for bit. The 950's Ln reads a subnormal
input as 0 (SPEC-2 D38), so a positive ratio below 2**-126 logs to -inf and FixLnResult's software logarithm
(`SoftLnPositive`) gives the value: the case the original guards. half outputs are rounded by CAST_ROUND (to
nearest, ties away from zero; SPEC-2 D45), past 65504 to inf.
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
ELEM_ALIGN_FACTOR = 512
BLOCK_ELEM_THRESHOLD = 32768
RESERVED_BYTES = 64
MAX_DATACOPY_BLOCKLEN = 65535
TYPE_SIZE = {"float": 4, "half": 2}
_NP = {"float": np.float32, "half": np.float16}
DEVICES = ("ascend950",)
ORIGINAL_SYNC = False              # True: the float path's GetValues without an MTE2_S pair (a race)
F = np.float32


class BoundingBoxEncodeTilingData(ctypes.Structure):
    _fields_ = [("dim0", ctypes.c_int64), ("blockFactor", ctypes.c_int64), ("ubFactor", ctypes.c_int64),
                ("means0", ctypes.c_float), ("means1", ctypes.c_float), ("means2", ctypes.c_float),
                ("means3", ctypes.c_float), ("invStds0", ctypes.c_float), ("invStds1", ctypes.c_float),
                ("invStds2", ctypes.c_float), ("invStds3", ctypes.c_float)]


def tiling(device, shape, dtype, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
    """BoundingBoxEncodeTilingFunc: (used cores, tiling bytes)."""
    if len(shape) != 2 or shape[1] != 4:
        raise ValueError("the boxes must be (n, 4)")
    if len(means) != 4 or len(stds) != 4 or any(F(s) == 0 for s in stds):
        raise ValueError("means and stds: 4 values, no zero std")
    dim0 = shape[0] * 4
    elem = TYPE_SIZE[dtype]
    used = max(1, min(-(-dim0 * elem * 8 // BLOCK_ELEM_THRESHOLD), CORE_NUM))
    block_factor = -(-(-(-dim0 // used)) // ELEM_ALIGN_FACTOR) * ELEM_ALIGN_FACTOR
    used = -(-dim0 // block_factor)
    divisor, align = (3 * 2 + 2 * 4, 16) if dtype == "half" else (5 * 4, 8)
    max_elem = min((aj.get_device(device).ub_bytes - RESERVED_BYTES) // divisor, MAX_DATACOPY_BLOCKLEN // elem)
    t = BoundingBoxEncodeTilingData(dim0, block_factor, max_elem // align * align, *(F(v) for v in means),
                                    *(F(1.0) / F(s) for s in stds))
    return used, np.frombuffer(bytes(t), np.uint8).copy()


class BoxDeltaCalc:
    """`BoxDeltaCalc`: the scalar unit's float arithmetic, each operation rounded to float."""

    @staticmethod
    def Run(px1, py1, px2, py2, gx1, gy1, gx2, gy2):
        half, one = F(0.5), F(1.0)
        with np.errstate(all="ignore"):
            pcx, pcy = (px1 + px2) * half, (py1 + py2) * half
            pw, ph = px2 - px1 + one, py2 - py1 + one
            gcx, gcy = (gx1 + gx2) * half, (gy1 + gy2) * half
            gw, gh = gx2 - gx1 + one, gy2 - gy1 + one
            return (gcx - pcx) / pw, (gcy - pcy) / ph, gw / pw, gh / ph

    @staticmethod
    def FixLnResult(origInput, npuLnResult):
        if origInput != origInput:
            return F(np.nan)
        if origInput == F(0.0):
            return F(-np.inf)
        if origInput < F(0.0):
            return F(np.nan)
        if npuLnResult != npuLnResult:
            return F(np.nan)
        if npuLnResult == F(-np.inf) and origInput > F(0.0):
            return BoxDeltaCalc.SoftLnPositive(origInput)
        return npuLnResult

    @staticmethod
    def SoftLnPositive(x):
        """ln x = 2 artanh((m - 1) / (m + 1)) + e ln 2 for x = m 2**e, m in [1, 2): a degree-11 series."""
        if x <= F(0.0):
            return F(-np.inf)
        m, e = F(x), 0
        with np.errstate(all="ignore"):
            while m >= F(2.0):
                m *= F(0.5)
                e += 1
            while m < F(1.0):
                m *= F(2.0)
                e -= 1
            z = (m - F(1.0)) / (m + F(1.0))
            z2 = z * z
            z4 = z2 * z2
            z6 = z4 * z2
            z8 = z4 * z4
            z10 = z6 * z4
            poly = (F(1.0) + z2 * F(0.33333334) + z4 * F(0.2) + z6 * F(0.14285715) + z8 * F(0.11111111)
                    + z10 * F(0.09090909))
            return F(2.0) * (z * poly) + F(e) * F(0.69314718)


class BoundingBoxEncode:
    """`BoundingBoxEncode<T>`."""

    def __init__(self, T):
        self.T = T

    def Init(self, anchorBox, gtBox, deltas, workspace, td):
        T = self.T
        remainder = td.dim0 - td.blockFactor * aj.GetBlockIdx()
        self.blockLength = min(remainder, td.blockFactor)
        if self.blockLength <= 0:
            self.blockLength = 0
            return
        self.ubLength = td.ubFactor
        self.means = [F(td.means0), F(td.means1), F(td.means2), F(td.means3)]
        self.invStds = [F(td.invStds0), F(td.invStds1), F(td.invStds2), F(td.invStds3)]
        offset = td.blockFactor * aj.GetBlockIdx()
        self.anchorGM, self.gtGM, self.deltasGM = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.anchorGM.SetGlobalBuffer(anchorBox[offset:], self.blockLength)
        self.gtGM.SetGlobalBuffer(gtBox[offset:], self.blockLength)
        self.deltasGM.SetGlobalBuffer(deltas[offset:], self.blockLength)
        self.pipe = aj.TPipe()
        self.anchorQueue, self.gtQueue = aj.TQue(aj.QuePosition.VECIN, 1), aj.TQue(aj.QuePosition.VECIN, 1)
        self.outputQueue = aj.TQue(aj.QuePosition.VECOUT, 1)
        self.calcBuf1, self.calcBuf2 = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        for q in (self.anchorQueue, self.gtQueue, self.outputQueue):
            self.pipe.InitBuffer(q, 1, self.ubLength * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.calcBuf1, self.ubLength * 4)
        self.pipe.InitBuffer(self.calcBuf2, self.ubLength * 4)

    def Process(self):
        if self.blockLength <= 0:
            return
        loopCount = (self.blockLength + self.ubLength - 1) // self.ubLength
        for i in range(loopCount):
            currentNum = self.blockLength - self.ubLength * i if i == loopCount - 1 else self.ubLength
            self.CopyIn(i, currentNum)
            self.Compute(currentNum)
            self.CopyOut(i, currentNum)

    def CopyIn(self, progress, currentNum):
        T = self.T
        anchorLocal = self.anchorQueue.AllocTensor(T)
        gtLocal = self.gtQueue.AllocTensor(T)
        copyParams = aj.DataCopyExtParams(1, currentNum * TYPE_SIZE[T], 0, 0, 0)
        aj.DataCopyPad(anchorLocal, self.anchorGM[progress * self.ubLength], copyParams,
                       aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0)))
        aj.DataCopyPad(gtLocal, self.gtGM[progress * self.ubLength], copyParams,
                       aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0)))
        self.anchorQueue.EnQue(anchorLocal)
        self.gtQueue.EnQue(gtLocal)

    def CopyOut(self, progress, currentNum):
        T = self.T
        outLocal = self.outputQueue.DeQue(T)
        copyParams = aj.DataCopyExtParams(1, currentNum * TYPE_SIZE[T], 0, 0, 0)
        aj.DataCopyPad(self.deltasGM[progress * self.ubLength], outLocal, copyParams)
        self.outputQueue.FreeTensor(outLocal)

    def Compute(self, currentNum):
        T = self.T
        anchorLocal = self.anchorQueue.DeQue(T)
        gtLocal = self.gtQueue.DeQue(T)
        outLocal = self.outputQueue.AllocTensor(T)
        n = currentNum // 4
        if T == "half":
            self.ComputeFp16Path(anchorLocal, gtLocal, outLocal, currentNum, n)
        else:
            self.ComputeFp32Path(anchorLocal, gtLocal, outLocal, currentNum, n)
        self.outputQueue.EnQue(outLocal)
        self.anchorQueue.FreeTensor(anchorLocal)
        self.gtQueue.FreeTensor(gtLocal)

    def _loops(self, src1, src2, dxdy, ratio, lnDst, outBoxes, currentNum, n, evtSV, evtVS):
        """The two scalar loops around the Ln (the paths differ only in which tensors hold what)."""
        for b in range(n):
            base = b * 4
            dx, dy, rw, rh = BoxDeltaCalc.Run(*(F(src1.GetValue(base + k)) for k in range(4)),
                                              *(F(src2.GetValue(base + k)) for k in range(4)))
            dxdy.SetValue(b * 2, dx)
            dxdy.SetValue(b * 2 + 1, dy)
            ratio.SetValue(base + 0, F(1.0))
            ratio.SetValue(base + 1, F(1.0))
            ratio.SetValue(base + 2, rw)
            ratio.SetValue(base + 3, rh)
        aj.SetFlag(evtSV, event=aj.HardEvent.S_V)
        aj.WaitFlag(evtSV, event=aj.HardEvent.S_V)
        aj.Ln(lnDst, ratio, currentNum)
        aj.SetFlag(evtVS, event=aj.HardEvent.V_S)
        aj.WaitFlag(evtVS, event=aj.HardEvent.V_S)
        m, s = self.means, self.invStds
        with np.errstate(all="ignore"):
            for b in range(n):
                base = b * 4
                v0 = (F(dxdy.GetValue(b * 2)) - m[0]) * s[0]
                v1 = (F(dxdy.GetValue(b * 2 + 1)) - m[1]) * s[1]
                lnRw = BoxDeltaCalc.FixLnResult(F(ratio.GetValue(base + 2)), F(lnDst.GetValue(base + 2)))
                lnRh = BoxDeltaCalc.FixLnResult(F(ratio.GetValue(base + 3)), F(lnDst.GetValue(base + 3)))
                outBoxes.SetValue(base + 0, v0)
                outBoxes.SetValue(base + 1, v1)
                outBoxes.SetValue(base + 2, (lnRw - m[2]) * s[2])
                outBoxes.SetValue(base + 3, (lnRh - m[3]) * s[3])
        aj.SetFlag(evtSV, event=aj.HardEvent.S_V)
        aj.WaitFlag(evtSV, event=aj.HardEvent.S_V)

    def ComputeFp16Path(self, anchorLocal, gtLocal, outLocal, currentNum, n):
        buf1, buf2 = self.calcBuf1.Get("float"), self.calcBuf2.Get("float")
        pipe = aj.GetTPipePtr()
        evtSV, evtVS = pipe.FetchEventID(aj.HardEvent.S_V), pipe.FetchEventID(aj.HardEvent.V_S)
        aj.Cast(buf1, anchorLocal, aj.RoundMode.CAST_NONE, currentNum)
        aj.Cast(buf2, gtLocal, aj.RoundMode.CAST_NONE, currentNum)
        aj.SetFlag(evtVS, event=aj.HardEvent.V_S)
        aj.WaitFlag(evtVS, event=aj.HardEvent.V_S)
        outFloat = outLocal.ReinterpretCast("float")
        # dx / dy into the output tile as float, [1, 1, rw, rh] over buf1, the logs into buf2, the deltas over buf2
        self._loops(buf1, buf2, outFloat, buf1, buf2, buf2, currentNum, n, evtSV, evtVS)
        aj.Cast(outLocal, buf2, aj.RoundMode.CAST_ROUND, currentNum)

    def ComputeFp32Path(self, anchorLocal, gtLocal, outLocal, currentNum, n):
        buf1, buf2 = self.calcBuf1.Get("float"), self.calcBuf2.Get("float")
        pipe = aj.GetTPipePtr()
        evtSV, evtVS = pipe.FetchEventID(aj.HardEvent.S_V), pipe.FetchEventID(aj.HardEvent.V_S)
        aFp32 = anchorLocal.ReinterpretCast("float")
        gFp32 = gtLocal.ReinterpretCast("float")
        oFp32 = outLocal.ReinterpretCast("float")
        if not ORIGINAL_SYNC:
            # deviation: the scalar loop reads the copied-in tiles; DeQue ordered the copy before the vector pipe
            # only, so an MTE2_S pair of the port's own orders it before the GetValues
            evtMS = pipe.FetchEventID(aj.HardEvent.MTE2_S)
            aj.SetFlag(evtMS, event=aj.HardEvent.MTE2_S)
            aj.WaitFlag(evtMS, event=aj.HardEvent.MTE2_S)
        # dx / dy into buf1, [1, 1, rw, rh] over the anchor tile, the logs into buf2, the deltas over the anchor tile
        self._loops(aFp32, gFp32, buf1, aFp32, buf2, aFp32, currentNum, n, evtSV, evtVS)
        aj.Adds(oFp32, aFp32, F(0.0), currentNum)              # a vector copy for the EnQue -> MTE3 order


aj.REGISTER_TILING_DEFAULT(BoundingBoxEncodeTilingData)


def bounding_box_encode(anchorBox, groundTruthBox, deltas, workspace, tiling_bytes, T):
    """The kernel entry (bounding_box_encode_apt.cpp)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(BoundingBoxEncodeTilingData, tiling_bytes)
    op = BoundingBoxEncode(T)
    op.Init(anchorBox, groundTruthBox, deltas, workspace, tilingData)
    op.Process()


def run_bounding_box_encode(device, anchor, gt, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
    T = "half" if anchor.dtype == np.float16 else "float"
    used, t = tiling(device, anchor.shape, T, means, stds)
    out = np.zeros(anchor.size, anchor.dtype)
    aj.launch(bounding_box_encode, used, device, np.ascontiguousarray(anchor).reshape(-1),
              np.ascontiguousarray(gt).reshape(-1), out, None, t, T)
    return out.reshape(anchor.shape)


def _to_half_round_away(x):
    """float32 -> half, to nearest with ties away from zero (CAST_ROUND), overflow to inf (SPEC-2 D45)."""
    x = x.astype(np.float32)
    with np.errstate(all="ignore"):
        h = x.astype(np.float16)                              # RNE
        other = np.nextafter(h, np.where(x >= 0, np.float16(np.inf), np.float16(-np.inf)).astype(np.float16))
        xd, hd, od = x.astype(np.float64), h.astype(np.float64), other.astype(np.float64)
        tie = np.isfinite(xd) & np.isfinite(od) & (np.abs(xd - hd) == np.abs(od - xd)) & (np.abs(od) > np.abs(hd))
    return np.where(tie, other, h).astype(np.float16)


def bounding_box_encode_model(anchor, gt, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
    """The kernel's arithmetic per box in numpy float32 (each operation rounded once), Ln as the exact logarithm
    rounded once (np.log in float64) of its input with subnormals read as 0 (D38), FixLnResult's cases (a positive
    ratio whose Ln is -inf: SoftLnPositive); half outputs by CAST_ROUND."""
    a, g = anchor.astype(F), gt.astype(F)
    m = [F(v) for v in means]
    s = [F(1.0) / F(v) for v in stds]
    with np.errstate(all="ignore"):
        dx, dy, rw, rh = BoxDeltaCalc.Run(*(a[:, k] for k in range(4)), *(g[:, k] for k in range(4)))

        def log(r):
            ln = np.log(r.astype(np.float64)).astype(F)
            ln = np.where(np.abs(r) < F(2.0 ** -126), F(-np.inf), ln)       # the 950's Ln: DAZ (SPEC-2 D38)
            ln = np.where(np.isnan(r) | (r < 0), F(np.nan), ln)
            soft = np.array([BoxDeltaCalc.SoftLnPositive(v) if v > 0 and lv == -np.inf else lv
                             for v, lv in zip(r, ln)], F) if np.any((r > 0) & (ln == -np.inf)) else ln
            return np.where(r == 0, F(-np.inf), soft).astype(F)
        out = np.stack([(dx - m[0]) * s[0], (dy - m[1]) * s[1], (log(rw) - m[2]) * s[2], (log(rh) - m[3]) * s[3]],
                       axis=1).astype(F)
    return out if anchor.dtype == np.float32 else _to_half_round_away(out)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        n = max(1, size // 4)
        x1, y1 = rng.uniform(0, 500, n), rng.uniform(0, 500, n)
        anchor = np.stack([x1, y1, x1 + rng.uniform(0, 120, n), y1 + rng.uniform(0, 120, n)], axis=1)
        gt = anchor + rng.uniform(-15, 15, (n, 4))
        return {"anchor_box": anchor.astype(dtype), "ground_truth_box": gt.astype(dtype)}
    return make_inputs


_MEANS, _STDS = (0.0, 0.0, 0.0, 0.0), (0.1, 0.1, 0.2, 0.2)


def _run(device, inputs):
    return {"deltas": run_bounding_box_encode(device, inputs["anchor_box"], inputs["ground_truth_box"], _MEANS,
                                              _STDS)}


def _expected(device, inputs):
    return {"deltas": bounding_box_encode_model(inputs["anchor_box"], inputs["ground_truth_box"], _MEANS, _STDS)}


_SOURCE = "hicann/ops-cv@6ae87653 objdetect/bounding_box_encode/op_kernel/arch35/bounding_box_encode.h"
KERNELS = [
    KernelSpec(f"bounding_box_encode{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE, size_rule="4 or more (size // 4 boxes)", size_ok=lambda n: n >= 4)
    for suffix, dtype, size, description in (
        ("", np.float32, 8000, "BoundingBoxEncode over float boxes, the 950 Memory API (scalar GetValue / SetValue "
         "loops around a vector Ln between FetchEventID'd S_V / V_S flags, FixLnResult on the scalar unit, Adds 0 "
         "into the output tile; stds 0.1, 0.1, 0.2, 0.2)"),
        ("_half", np.float16, 8000, "BoundingBoxEncode over half boxes (Casts CAST_NONE to float TBufs, dx / dy kept "
         "in the output tile reinterpreted as float, Cast CAST_ROUND back)"))
]
