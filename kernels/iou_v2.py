"""IouV2 from the CANN CV operators, its aligned modes: the intersection over union (mode "iou") or over the
ground-truth box's area (mode "iof") of box i of bboxes with box i of gtboxes, both given as (4, n) planes of
[x1, y1, x2, y2], over float, half and bfloat16 (computed in float):
iou = inter / (area1 + area2 - inter), iof = inter / area2, with area = (x2 - x1 + eps) * (y2 - y1 + eps) and
inter = relu(min(x2) + eps - max(x1)) * relu(min(y2) + eps - max(y1)).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-cv @ 6ae87653464d2afb064c829e529abba2e278b0c4, objdetect/iou_v2:
- op_kernel/iou_v2_common.h (`AlignCopyIn`, `AlignCopyOut`, `KernelIouV2AlignBase<inType, Derived>`): cores of
  loopNum (the first frontCoreNum loopNum + 1) tiles of tileLength boxes; depth-1 queues for the two boxes (4
  float planes of a tile each) and the output, a float TBuf of 8 (iou) or 4 (iof) planes and, for 16-bit types, a
  TBuf of 8 planes of the input type; CopyIn: 16-bit types: V_MTE2 and MTE3_MTE2 pairs (FetchEventID), the eight
  planes by DataCopyPad (DataCopyExtParams {1, len * sizeof, 0, 0, 0}, no padding) into the 16-bit TBuf, MTE2_V, two
  Casts CAST_NONE of four planes each into the queues; float: the planes straight into the queue buffers
  (ReinterpretCast); CopyOut: 16-bit Cast CAST_RINT of the tile, V_MTE3, DataCopyPad; float DataCopyPad;
- op_kernel/iou_v2_align_iou.h / iou_v2_align_iof.h (`KernelIouV2Align`, `KernelIofV2Align`: Sub, Adds eps, Mul
  (the areas), Add (iou), Max, Min, Adds eps, SubRelu, Mul (the intersection), Sub (iou), Div, all over the tile);
- op_kernel/iou_v2.cpp (the entry: tiling keys 4 / 5 / 6 iou and 14 / 15 / 16 iof for float / half / bfloat16);
- op_host/iou_v2_tiling.cpp (`Tiling4IouV2`, aligned: n rounded up to 32 bytes of the type; 17 (float) or 21 float
  rows an element; loops = min(ceil(bytes / 4096), ceil(n / align)); one core below 4 KiB, else tiles of
  ceil(n / loops) boxes over ceil(n / tile) cores, or of ceil(n / cores), or, past maxLength a core, 8 cores with
  loopNum and frontCoreNum from ceil(n / maxLength) tiles).

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original). The last core copies
lastCoreLen = n % tileLength boxes (tileLength when that is 0) in and out: the port does too, but zeroes the lanes
[len, tileLength) of the eight input planes (the float planes, or the 16-bit planes before the Casts) before the
copies when len < tileLength (past the copy's 32-byte rounding): the Compute runs over the whole tile and, on a
buffer's first use, would read lanes no copy wrote (the sanitizer's init report; ZERO_TAIL = False runs the
original's form); for the 16-bit types the zeros go into the TBuf the previous tile's CopyOut read, so an MTE3_V
pair comes before them and a V_MTE2 pair after. Past that, the original copies lastCoreLen boxes in every tile of
the last core, so when the last core has two or more tiles (n beyond 16 maxLength, about 46000 float boxes on the
A2) its earlier tiles leave outputs unwritten; the port copies each tile's own count there (ORIGINAL_LAST_LEN = True
keeps the original's form, and tests/test_port47cv_kernels.py shows the unwritten outputs). The non-aligned modes
(every bbox against every gtbox: Brcb, GatherMask, the 64-lane Max / Min) are kernels/iou_v2_not_aligned.py.

Devices: the operator's configs are the ascend910b, ascend910_93 and ascend950 (and a DataCopy-only 310P build, not
ported): the port runs on the A3, A2 and 950.

Fidelity: Div MODELLED (SPEC-2 D37: the exact quotient rounded once), the rest BIT-EXACT (Cast, Sub, Adds, Mul, Add,
Max, Min, SubRelu, DataCopyPad; SPEC-2 0.3), so the numpy model (each float operation rounded once) is checked bit
for bit. Disjoint boxes give 0; a box of zero area with eps 0 gives 0 / 0 = NaN (iof).
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
POS_NUM = 4
MIN_SIZE_PER_CORE = 4096
BLOCK_SIZE = 32
FLOAT_SIZE = 4
ALIGNED_KEY, MODE_IOF_KEY = 4, 10
DTYPE_KEY = {"float": 0, "half": 1, "bfloat16": 2}
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("atlas-a3", "atlas-a2", "ascend950")
ZERO_TAIL = True                   # False: the original's form (the tile's lanes past a short copy uninitialised)
ORIGINAL_LAST_LEN = False          # True: every tile of the last core copies lastCoreLen boxes, as the original


class IouV2TilingData(ctypes.Structure):
    _fields_ = [("bBoxLength", ctypes.c_uint64), ("gtBoxLength", ctypes.c_uint64), ("frontCoreNum", ctypes.c_uint64),
                ("loopNum", ctypes.c_uint64), ("tileLength", ctypes.c_uint64), ("subTileLen", ctypes.c_uint64),
                ("eps", ctypes.c_float)]


def _ceil_div(a, b):
    return a if b == 0 else -(-a // b)


def _ceil_align(a, b):
    return a if b == 0 else _ceil_div(a, b) * b


def tiling(device, n, dtype, mode="iou", eps=1.0):
    """Tiling4IouV2, aligned: (core count, tiling key, tiling bytes)."""
    data_size = TYPE_SIZE[dtype]
    key = DTYPE_KEY[dtype] + (MODE_IOF_KEY if mode == "iof" else 0) + ALIGNED_KEY
    align = BLOCK_SIZE // data_size
    gt_len = _ceil_align(n, align)
    ub_size = aj.get_device(device).ub_bytes
    row_num = 17 if data_size == FLOAT_SIZE else 21
    total = gt_len * row_num * FLOAT_SIZE
    temp_loop = min(_ceil_div(total, MIN_SIZE_PER_CORE), _ceil_div(gt_len, align))
    max_length = ub_size // (row_num * FLOAT_SIZE) // align * align
    core_num, loop_num, front = 1, 1, 0
    if total <= MIN_SIZE_PER_CORE:
        tile = _ceil_align(gt_len, align)
    elif temp_loop <= CORE_NUM:
        tile = _ceil_align(_ceil_div(gt_len, temp_loop), align)
        core_num = _ceil_div(gt_len, tile)
    elif n <= max_length * CORE_NUM:
        tile = _ceil_align(_ceil_div(gt_len, CORE_NUM), align)
        core_num = _ceil_div(gt_len, tile)
    else:
        core_num = CORE_NUM
        total_loop = _ceil_div(n, max_length)
        loop_num, front = total_loop // CORE_NUM, total_loop % CORE_NUM
        tile = _ceil_align(_ceil_div(gt_len, total_loop), align)
    t = IouV2TilingData(bBoxLength=n, gtBoxLength=n, frontCoreNum=front, loopNum=loop_num, tileLength=tile,
                        subTileLen=min(tile, _ceil_align(n, align)), eps=eps)
    return core_num, key, np.frombuffer(bytes(t), np.uint8).copy()


class KernelIouV2AlignBase:
    """`KernelIouV2AlignBase<inType, Derived>` with its CopyIn / CopyOut (`AlignCopyIn`, `AlignCopyOut`)."""

    TMP_PLANES = 8

    def __init__(self, inType):
        self.inType = inType

    def Init(self, bboxes, gtboxes, overlap, tilingData):
        inType = self.inType
        self.eps = np.float32(tilingData.eps)
        self.totalLength = tilingData.gtBoxLength
        self.tileLen = tileLen = tilingData.tileLength
        self.doubleTileLen, self.tripTileLen = 2 * tileLen, 3 * tileLen
        self.quadTileLen, self.octaTileLen = 4 * tileLen, 8 * tileLen
        blockId = aj.GetBlockIdx()
        front, loops = tilingData.frontCoreNum, tilingData.loopNum
        blockOffsetLen = tileLen * (front + loops * blockId) if blockId > front else tileLen * (loops + 1) * blockId
        self.loopNum = loops + 1 if blockId < front else loops
        self.blockOffsetLen = blockOffsetLen
        self.box1Gm, self.box2Gm, self.outGm = aj.GlobalTensor(inType), aj.GlobalTensor(inType), aj.GlobalTensor(inType)
        self.box1Gm.SetGlobalBuffer(bboxes[blockOffsetLen:])
        self.box2Gm.SetGlobalBuffer(gtboxes[blockOffsetLen:])
        self.outGm.SetGlobalBuffer(overlap[blockOffsetLen:])
        self.pipe = aj.TPipe()
        self.box1Que, self.box2Que = aj.TQue(aj.QuePosition.VECIN, 1), aj.TQue(aj.QuePosition.VECIN, 1)
        self.outQue = aj.TQue(aj.QuePosition.VECOUT, 1)
        self.tmpTensor, self.fp16Tensor = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        self.pipe.InitBuffer(self.box1Que, 1, self.quadTileLen * 4)
        self.pipe.InitBuffer(self.box2Que, 1, self.quadTileLen * 4)
        self.pipe.InitBuffer(self.outQue, 1, tileLen * 4)
        self.pipe.InitBuffer(self.tmpTensor, self.TMP_PLANES * tileLen * 4)
        if inType != "float":
            self.pipe.InitBuffer(self.fp16Tensor, self.octaTileLen * 2)

    def Process(self):
        for bBoxLoop in range(self.loopNum):
            self.CopyIn(bBoxLoop)
            self.Compute()
            self.CopyOut(bBoxLoop)

    def _block_len(self, bBoxLoop):
        tileLen = self.tileLen
        isLastCore = aj.GetBlockIdx() == aj.GetBlockNum() - 1
        lastCoreLen = tileLen if self.totalLength % tileLen == 0 else self.totalLength % tileLen
        if not isLastCore:
            return tileLen
        if ORIGINAL_LAST_LEN or bBoxLoop == self.loopNum - 1:
            return lastCoreLen
        return tileLen                                  # deviation: the last core's earlier tiles are whole

    def _zero_past(self, planes, dtype, blockLen):
        """The deviation: zeros over each plane's bytes past the copy's (blockLen elements rounded up to 32 bytes)
        up to the tile's end, where no copy writes."""
        if not ZERO_TAIL or blockLen >= self.tileLen:
            return
        size = TYPE_SIZE[dtype]
        written = -(-blockLen * size // 32) * 32
        end = self.tileLen * size
        if end > written:
            view = self._zero_target.ReinterpretCast("int16")
            for p in range(planes):
                aj.Duplicate(view[(p * end + written) // 2], np.int16(0), (end - written) // 2)

    def CopyIn(self, bBoxLoop):
        inType, tileLen, totalLength = self.inType, self.tileLen, self.totalLength
        box1Local = self.box1Que.AllocTensor("float")
        box2Local = self.box2Que.AllocTensor("float")
        blockLen = self._block_len(bBoxLoop)
        copyParams = aj.DataCopyExtParams(1, blockLen * TYPE_SIZE[inType], 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(False, 0, 0, _NP[inType](0))
        if inType != "float":
            fp16Buf = self.fp16Tensor.Get(inType)
            p = aj.GetTPipePtr()
            eventVToMTE2 = p.FetchEventID(aj.HardEvent.V_MTE2)
            aj.SetFlag(eventVToMTE2, event=aj.HardEvent.V_MTE2)
            aj.WaitFlag(eventVToMTE2, event=aj.HardEvent.V_MTE2)
            eventMTE3ToMTE2 = p.FetchEventID(aj.HardEvent.MTE3_MTE2)
            aj.SetFlag(eventMTE3ToMTE2, event=aj.HardEvent.MTE3_MTE2)
            aj.WaitFlag(eventMTE3ToMTE2, event=aj.HardEvent.MTE3_MTE2)
            if ZERO_TAIL and blockLen < tileLen:
                # the deviation's zeros (vector writes into the TBuf the last CopyOut's MTE3 read): MTE3_V before,
                # V_MTE2 after (pairs of the port's own)
                eventMTE3ToV = p.FetchEventID(aj.HardEvent.MTE3_V)
                aj.SetFlag(eventMTE3ToV, event=aj.HardEvent.MTE3_V)
                aj.WaitFlag(eventMTE3ToV, event=aj.HardEvent.MTE3_V)
                self._zero_target = fp16Buf
                self._zero_past(8, inType, blockLen)
                aj.SetFlag(eventVToMTE2, event=aj.HardEvent.V_MTE2)
                aj.WaitFlag(eventVToMTE2, event=aj.HardEvent.V_MTE2)
            for posId in range(POS_NUM):
                src = bBoxLoop * tileLen + posId * totalLength
                aj.DataCopyPad(fp16Buf[tileLen * posId], self.box1Gm[src], copyParams, padParams)
                aj.DataCopyPad(fp16Buf[tileLen * (posId + 4)], self.box2Gm[src], copyParams, padParams)
            eventMTE2ToV = p.FetchEventID(aj.HardEvent.MTE2_V)
            aj.SetFlag(eventMTE2ToV, event=aj.HardEvent.MTE2_V)
            aj.WaitFlag(eventMTE2ToV, event=aj.HardEvent.MTE2_V)
            aj.Cast(box1Local, fp16Buf, aj.RoundMode.CAST_NONE, self.quadTileLen)
            aj.Cast(box2Local, fp16Buf[self.quadTileLen], aj.RoundMode.CAST_NONE, self.quadTileLen)
        else:
            for local in (box1Local, box2Local):
                self._zero_target = local
                self._zero_past(4, "float", blockLen)
            for posId in range(POS_NUM):
                src = bBoxLoop * tileLen + posId * totalLength
                aj.DataCopyPad(box1Local[tileLen * posId].ReinterpretCast(inType), self.box1Gm[src], copyParams,
                               padParams)
                aj.DataCopyPad(box2Local[tileLen * posId].ReinterpretCast(inType), self.box2Gm[src], copyParams,
                               padParams)
        self.box1Que.EnQue(box1Local)
        self.box2Que.EnQue(box2Local)

    def CopyOut(self, bBoxLoop):
        inType, tileLen = self.inType, self.tileLen
        outLocal = self.outQue.DeQue("float")
        blockLen = self._block_len(bBoxLoop)
        copyParams = aj.DataCopyExtParams(1, blockLen * TYPE_SIZE[inType], 0, 0, 0)
        if inType != "float":
            fp16Buf = self.fp16Tensor.Get(inType)
            aj.Cast(fp16Buf, outLocal, aj.RoundMode.CAST_RINT, tileLen)
            eventVToMTE3 = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_MTE3)
            aj.SetFlag(eventVToMTE3, event=aj.HardEvent.V_MTE3)
            aj.WaitFlag(eventVToMTE3, event=aj.HardEvent.V_MTE3)
            aj.DataCopyPad(self.outGm[bBoxLoop * tileLen], fp16Buf, copyParams)
        else:
            aj.DataCopyPad(self.outGm[bBoxLoop * tileLen], outLocal.ReinterpretCast(inType), copyParams)
        self.outQue.FreeTensor(outLocal)


class KernelIouV2Align(KernelIouV2AlignBase):
    """`KernelIouV2Align<inType>`: the union's area from both boxes."""

    TMP_PLANES = 8

    def Compute(self):
        T1, T2, T3, T4 = self.tileLen, self.doubleTileLen, self.tripTileLen, self.quadTileLen
        box1Local = self.box1Que.DeQue("float")
        box2Local = self.box2Que.DeQue("float")
        tmp = self.tmpTensor.Get("float")
        aj.Sub(tmp, box1Local[T2], box1Local, T2)                 # box1 width, height
        aj.Sub(tmp[T2], box2Local[T2], box2Local, T2)             # box2 width, height
        aj.Adds(tmp, tmp, self.eps, T4)
        aj.Mul(tmp, tmp, tmp[T1], T1)                             # area1
        aj.Mul(tmp[T2], tmp[T2], tmp[T3], T1)                     # area2
        outLocal = self.outQue.AllocTensor("float")
        aj.Add(outLocal, tmp, tmp[T2], T1)
        aj.Max(tmp, box1Local, box2Local, T2)                     # the intersection's x1, y1
        aj.Min(tmp[T2], box1Local[T2], box2Local[T2], T2)         # its x2, y2
        aj.Adds(tmp[T2], tmp[T2], self.eps, T2)
        aj.SubRelu(tmp, tmp[T2], tmp, T2)
        aj.Mul(tmp, tmp, tmp[T1], T1)                             # the intersection's area
        aj.Sub(outLocal, outLocal, tmp, T1)                       # the union's
        aj.Div(outLocal, tmp, outLocal, T1)
        self.outQue.EnQue(outLocal)
        self.box1Que.FreeTensor(box1Local)
        self.box2Que.FreeTensor(box2Local)


class KernelIofV2Align(KernelIouV2AlignBase):
    """`KernelIofV2Align<inType>`: over the gtbox's area."""

    TMP_PLANES = 4

    def Compute(self):
        T1, T2 = self.tileLen, self.doubleTileLen
        box1Local = self.box1Que.DeQue("float")
        box2Local = self.box2Que.DeQue("float")
        tmp = self.tmpTensor.Get("float")
        aj.Sub(tmp, box2Local[T2], box2Local, T2)
        aj.Adds(tmp, tmp, self.eps, T2)
        outLocal = self.outQue.AllocTensor("float")
        aj.Mul(outLocal, tmp, tmp[T1], T1)                        # area2
        aj.Max(tmp, box1Local, box2Local, T2)
        aj.Min(tmp[T2], box1Local[T2], box2Local[T2], T2)
        aj.Adds(tmp[T2], tmp[T2], self.eps, T2)
        aj.SubRelu(tmp, tmp[T2], tmp, T2)
        aj.Mul(tmp, tmp, tmp[T1], T1)
        aj.Div(outLocal, tmp, outLocal, T1)
        self.outQue.EnQue(outLocal)
        self.box1Que.FreeTensor(box1Local)
        self.box2Que.FreeTensor(box2Local)


aj.REGISTER_TILING_DEFAULT(IouV2TilingData)
_KEYS = {4: (KernelIouV2Align, "float"), 5: (KernelIouV2Align, "half"), 6: (KernelIouV2Align, "bfloat16"),
         14: (KernelIofV2Align, "float"), 15: (KernelIofV2Align, "half"), 16: (KernelIofV2Align, "bfloat16")}


def iou_v2(bboxes, gtboxes, overlap, workspace, tiling_bytes, tiling_key):
    """The kernel entry (iou_v2.cpp), the aligned keys."""
    tiling_data = aj.GET_TILING_DATA(tiling_bytes)
    cls, inType = _KEYS[tiling_key]
    op = cls(inType)
    op.Init(bboxes, gtboxes, overlap, tiling_data)
    op.Process()


def run_iou_v2(device, bboxes, gtboxes, mode="iou", eps=1.0):
    """bboxes, gtboxes: (4, n) planes; the (n, 1) overlaps."""
    dtype = {np.dtype(v): k for k, v in _NP.items()}[bboxes.dtype]
    n = bboxes.shape[1]
    cores, key, t = tiling(device, n, dtype, mode, eps)
    out = np.zeros(n, bboxes.dtype)
    aj.launch(iou_v2, cores, device, np.ascontiguousarray(bboxes).reshape(-1),
              np.ascontiguousarray(gtboxes).reshape(-1), out, None, t, key)
    return out.reshape(n, 1)


def iou_v2_model(bboxes, gtboxes, mode="iou", eps=1.0):
    """The kernel's float chain, each operation rounded once; SubRelu is max(a - b, 0) of the rounded difference."""
    f = np.float32
    b1, b2 = bboxes.astype(f), gtboxes.astype(f)
    e = f(eps)
    with np.errstate(all="ignore"):
        w2, h2 = (b2[2] - b2[0] + e).astype(f), (b2[3] - b2[1] + e).astype(f)
        area2 = (w2 * h2).astype(f)
        lo = np.maximum(b1[:2], b2[:2])
        hi = (np.minimum(b1[2:], b2[2:]) + e).astype(f)
        d = (hi - lo).astype(f)
        side = np.where(d > 0, d, f(0)).astype(f)
        inter = (side[0] * side[1]).astype(f)
        if mode == "iof":
            den = area2
        else:
            w1, h1 = (b1[2] - b1[0] + e).astype(f), (b1[3] - b1[1] + e).astype(f)
            den = ((w1 * h1).astype(f) + area2).astype(f)
            den = (den - inter).astype(f)
        out = (inter / den).astype(f)
    return out.astype(bboxes.dtype).reshape(-1, 1)


def _boxes(rng, n):
    x1, y1 = rng.uniform(0, 100, n), rng.uniform(0, 100, n)
    return np.stack([x1, y1, x1 + rng.uniform(0, 40, n), y1 + rng.uniform(0, 40, n)])


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        b1 = _boxes(rng, size)
        b2 = np.where(rng.random(size) < 0.7, b1 + rng.uniform(-10, 10, (4, size)), _boxes(rng, size))
        b2[2:] = np.maximum(b2[2:], b2[:2])
        return {"bboxes": b1.astype(_NP[dtype]), "gtboxes": b2.astype(_NP[dtype])}
    return make_inputs


def _runner(mode):
    def run(device, inputs):
        return {"overlap": run_iou_v2(device, inputs["bboxes"], inputs["gtboxes"], mode)}
    return run


def _expected_for(mode):
    def expected(device, inputs):
        return {"overlap": iou_v2_model(inputs["bboxes"], inputs["gtboxes"], mode)}
    return expected


_SOURCE = "hicann/ops-cv@6ae87653 objdetect/iou_v2/op_kernel/iou_v2_align_iou.h"
KERNELS = [
    KernelSpec(f"iou_v2{suffix}", description, _make_inputs(dtype), _runner(mode), _expected_for(mode),
               default_size=size, devices=DEVICES, source=_SOURCE)
    for suffix, dtype, mode, size, description in (
        ("", "float", "iou", 30011, "IouV2 aligned IoU of (4, n) float box planes (Sub, Adds eps, Mul, Add, Max, Min, "
         "SubRelu, Mul, Sub, Div over whole tiles; planes by DataCopyPad straight into the queues)"),
        ("_half", "half", "iou", 30011, "IouV2 aligned IoU over half (V_MTE2 / MTE3_MTE2 pairs, eight planes into a "
         "16-bit TBuf, Casts CAST_NONE to float, the float chain, Cast CAST_RINT, V_MTE3)"),
        ("_iof_bf16", "bfloat16", "iof", 30011, "IouV2 aligned IoF over bfloat16 (the intersection over the gtbox's "
         "area)"),
        ("_iof", "float", "iof", 50007, "IouV2 aligned IoF over float (8 cores of several tiles: frontCoreNum cores "
         "one tile more)"))
]
