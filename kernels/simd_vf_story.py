"""The cann-samples SIMD VF story's baseline VFs on the 950 (Reg API): an element-wise AXPY, z = a * x + y with
a = 2, and the four two-dimensional reductions of an [D0, D1] float matrix, ReduceSum and ReduceMax along the last
axis ("ar": one value a row; also the binary-fold VF) and along the first ("ra": one value a column).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/cann-samples @ a934ed961db39999427f80612f6dd4c821822811, Samples/2_Performance/simd_vf_story:
- elemwise/src/elemwise_axpy_baseline.asc (`ElemwiseAxpyVf`, `KernelElemwiseAxpy`: one core, one tile; three
  depth-1 TQue buffers of ceil(n / 64) whole vectors; DataCopyPad of exactly n floats in (DataCopyExtParams
  {1, n * 4, 0, 0, 0}, no padding), EnQue / DeQue, VF_REPEAT = 5 calls of the VF: per 64-float step UpdateMask,
  LoadAlign DIST_NORM of x and y without a mask, Muls by a, Add, StoreAlign DIST_NORM under the mask; EnQue / DeQue,
  DataCopyPad of n floats out);
- reduce/src/reduce_sum_ar_baseline.asc, reduce_max_ar_baseline.asc (`ReduceSumArVf`, `ReduceMaxArVf`: per row
  Duplicate of the accumulator (0 or -FLT_MAX), per 64-column chunk UpdateMask, LoadAlign, Add / Max MERGING into the
  accumulator, then ReduceSum / ReduceMax under a CreateMask ALL mask and a post-updating StoreUnAlign of one float;
  StoreUnAlignPost after the last row) and reduce_sum_ra_baseline.asc, reduce_max_ra_baseline.asc (`ReduceSumRaVf`,
  `ReduceMaxRaVf`: per 64-column chunk UpdateMask, Duplicate, per row LoadAlign and Add / Max (ZEROING) under the
  chunk's mask, StoreAlign of the chunk under the mask); the kernels (`KernelReduceSum`, `KernelReduceMax`): one
  core, the rows DataCopyPad'ed one by one to 32-byte aligned UB rows of d1Pad floats in a depth-1 TQue buffer of
  d0 * d1Pad + 64 floats, VF_REPEAT calls of the VF, the d0 or d1 results DataCopyPad'ed out;
- reduce/src/reduce_sum_ar_binary.asc (`ReduceSumArVfBinary`, for rows of four chunks: LoadAlign of the four,
  UpdateMask of the last chunk's columns, Add c0 + c2 under a full mask and c1 + c3 under that mask MERGING, Add
  c0 + c1, ReduceSum, StoreUnAlign; the same kernel class);
- include/vf_common.h (VL_B32 = 64, UB_ALIGN = 8, the case [D0, D1] = [78, 250], VF_REPEAT = 5).

Sizes: the AXPY any n whose three whole-vector buffers fit the UB (the sample's 19500); the reductions D1 = 250
columns (the sample's) and size / 250 rows (the sample's 78), at most what the UB holds.

Deviation (the AXPY only): the VF loads x and y as whole vectors without a mask, and the last one reaches past the
bytes DataCopyPad wrote (n rounded up to 8 floats) into lanes never written - uninitialised on the buffers' first
use (the sanitizer's init report before session 54; `zero_tail=False` runs the original's form, which with the lane
tracking runs clean: tests/test_port47l_kernels.py). The port Duplicates zeros over those lanes first (kept from
before, no longer needed for the init check); UpdateMask keeps them out of every store either way. The
reductions need none: with D1 = 250 every row is 256 floats in the UB, all written by the row copies (the copy
rounds 1000 bytes up to 1024), so every LoadAlign reads written floats.

Devices: the sample is built for the 950 (dav-3510); the port runs there.

Fidelity: BIT-EXACT (LoadAlign, StoreAlign, StoreUnAlign, Muls, Add, Max, Duplicate, ReduceSum and ReduceMax on
float; SPEC-2 0.3). The models replay the float32 order: a * x then + y; the "ar" sum per row a 64-lane accumulator
of the chunks in order from +0 (the binary VF: (c0 + c2) + (c1 + c3)), then Reg ReduceSum's adjacent-pair tree
(SPEC-2 11.4); the "ra" sum per column the
rows added in order from +0; the maxima are order-free for the inputs drawn (no NaN, no signed zeros) and start
from -FLT_MAX (a row or column of -inf gives -FLT_MAX, not -inf).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
VL_B32 = 64                          # 256 / sizeof(float)
UB_ALIGN = 8                         # 32 / sizeof(float)
D0, D1 = 78, 250                     # the sample's case
VF_REPEAT = 5                        # the sample calls each VF five times (a steady state for profiling)
A = np.float32(2.0)                  # the AXPY's scalar
NEG_INF = np.float32(-3.4028235e38)  # -FLT_MAX, the max reductions' initial value
DEVICES = ("ascend950",)


# elemwise/src/elemwise_axpy_baseline.asc

def elemwise_axpy_vf(xAddr, yAddr, zAddr, a, n, loopNum):
    """ElemwiseAxpyVf: z = a * x + y, one 64-float vector a step."""
    vx, vy, vt = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    count = n
    for i in range(loopNum):
        mask, count = R.UpdateMask("float", count)
        R.LoadAlign(vx, xAddr, i * VL_B32, dist=R.LoadDist.DIST_NORM)     # no mask: the tail lanes read too
        R.LoadAlign(vy, yAddr, i * VL_B32, dist=R.LoadDist.DIST_NORM)
        R.Muls(vt, vx, a, mask)
        R.Add(vt, vt, vy, mask)
        R.StoreAlign(zAddr, vt, mask, i * VL_B32, dist=R.StoreDist.DIST_NORM)


ELEMWISE_AXPY_VF = R.simd_vf(elemwise_axpy_vf)


class KernelElemwiseAxpy:
    """KernelElemwiseAxpy: one core, one tile."""

    def __init__(self, zero_tail=True):
        self.zero_tail = zero_tail

    def Init(self, x, y, z, n):
        self.n = n
        self.loopNum = (n + VL_B32 - 1) // VL_B32
        bufBytes = self.loopNum * VL_B32 * 4             # whole vectors: the last step's lanes past n lie inside
        self.xGm, self.yGm, self.zGm = aj.GlobalTensor("float"), aj.GlobalTensor("float"), aj.GlobalTensor("float")
        self.xGm.SetGlobalBuffer(x, n)
        self.yGm.SetGlobalBuffer(y, n)
        self.zGm.SetGlobalBuffer(z, n)
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.TPosition.VECIN, 1)
        self.inQueueY = aj.TQue(aj.TPosition.VECIN, 1)
        self.outQueueZ = aj.TQue(aj.TPosition.VECOUT, 1)
        self.pipe.InitBuffer(self.inQueueX, 1, bufBytes)
        self.pipe.InitBuffer(self.inQueueY, 1, bufBytes)
        self.pipe.InitBuffer(self.outQueueZ, 1, bufBytes)

    def Process(self):
        self.CopyIn()
        self.Compute()
        self.CopyOut()

    def _zero_past_copy(self, ub):
        """The deviation: zeros over the lanes the last LoadAlign reads past the copy's 32-byte rounding."""
        written = (self.n + UB_ALIGN - 1) // UB_ALIGN * UB_ALIGN
        if self.zero_tail and self.loopNum * VL_B32 > written:
            aj.Duplicate(ub[written], np.float32(0.0), self.loopNum * VL_B32 - written)

    def CopyIn(self):
        xUb = self.inQueueX.AllocTensor("float")
        yUb = self.inQueueY.AllocTensor("float")
        self._zero_past_copy(xUb)
        self._zero_past_copy(yUb)
        params = aj.DataCopyExtParams(1, self.n * 4, 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(False, 0, 0, np.float32(0.0))
        aj.DataCopyPad(xUb, self.xGm, params, padParams)
        aj.DataCopyPad(yUb, self.yGm, params, padParams)
        self.inQueueX.EnQue(xUb)
        self.inQueueY.EnQue(yUb)

    def Compute(self):
        xUb = self.inQueueX.DeQue("float")
        yUb = self.inQueueY.DeQue("float")
        zUb = self.outQueueZ.AllocTensor("float")
        for _ in range(VF_REPEAT):
            R.asc_vf_call(ELEMWISE_AXPY_VF, xUb, yUb, zUb, A, self.n, self.loopNum)
        self.outQueueZ.EnQue(zUb)
        self.inQueueX.FreeTensor(xUb)
        self.inQueueY.FreeTensor(yUb)

    def CopyOut(self):
        zUb = self.outQueueZ.DeQue("float")
        aj.DataCopyPad(self.zGm, zUb, aj.DataCopyExtParams(1, self.n * 4, 0, 0, 0))
        self.outQueueZ.FreeTensor(zUb)


def elemwise_axpy_kernel(x, y, z, n, zero_tail=True):
    """ElemwiseAxpyKernel."""
    op = KernelElemwiseAxpy(zero_tail)
    op.Init(x, y, z, n)
    op.Process()


def run_axpy(x, y, zero_tail=True):
    z = np.zeros_like(x)
    aj.launch(elemwise_axpy_kernel, 1, "ascend950", x, y, z, x.size, zero_tail)
    return z


def axpy_model(x, y):
    return (A * x.astype(np.float32)).astype(np.float32) + y.astype(np.float32)


# reduce/src/reduce_{sum,max}_{ar,ra}_baseline.asc

def reduce_sum_ar_vf(xAddr, zAddr, d0, d1, d1Pad):
    """ReduceSumArVf: each row folded into a 64-lane accumulator, ReduceSum'd, one float appended."""
    accReg, inReg, outReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    unalignAcc = R.UnalignRegForStore()
    fullMask = R.CreateMask("float", R.MaskPattern.ALL)
    rowChunks = (d1 + VL_B32 - 1) // VL_B32
    dst = 0
    for i in range(d0):
        R.Duplicate(accReg, np.float32(0.0))
        remainCols = d1
        for c in range(rowChunks):
            mask, remainCols = R.UpdateMask("float", remainCols)
            R.LoadAlign(inReg, xAddr, i * d1Pad + c * VL_B32, dist=R.LoadDist.DIST_NORM)
            R.Add(accReg, accReg, inReg, mask, R.MaskMergeMode.MERGING)    # lanes past the row keep their sums
        R.ReduceSum(outReg, accReg, fullMask)
        dst = R.StoreUnAlign(zAddr, outReg, unalignAcc, dst, 1)
    R.StoreUnAlignPost(zAddr, unalignAcc, dst, 0)


def reduce_max_ar_vf(xAddr, zAddr, d0, d1, d1Pad):
    """ReduceMaxArVf: as ReduceSumArVf with Max from -FLT_MAX and ReduceMax."""
    accReg, inReg, outReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    unalignAcc = R.UnalignRegForStore()
    fullMask = R.CreateMask("float", R.MaskPattern.ALL)
    rowChunks = (d1 + VL_B32 - 1) // VL_B32
    dst = 0
    for i in range(d0):
        R.Duplicate(accReg, NEG_INF)
        remainCols = d1
        for c in range(rowChunks):
            mask, remainCols = R.UpdateMask("float", remainCols)
            R.LoadAlign(inReg, xAddr, i * d1Pad + c * VL_B32, dist=R.LoadDist.DIST_NORM)
            R.Max(accReg, accReg, inReg, mask, R.MaskMergeMode.MERGING)
        R.ReduceMax(outReg, accReg, fullMask)
        dst = R.StoreUnAlign(zAddr, outReg, unalignAcc, dst, 1)
    R.StoreUnAlignPost(zAddr, unalignAcc, dst, 0)


def reduce_sum_ra_vf(xAddr, zAddr, d0, d1, d1Pad):
    """ReduceSumRaVf: per 64-column chunk the rows added in order, the chunk stored under its mask."""
    accReg, inReg = R.RegTensor("float"), R.RegTensor("float")
    remainCols = d1
    colChunks = (d1 + VL_B32 - 1) // VL_B32
    for c in range(colChunks):
        mask, remainCols = R.UpdateMask("float", remainCols)
        R.Duplicate(accReg, np.float32(0.0))
        for i in range(d0):
            R.LoadAlign(inReg, xAddr, i * d1Pad + c * VL_B32, dist=R.LoadDist.DIST_NORM)
            R.Add(accReg, accReg, inReg, mask)
        R.StoreAlign(zAddr, accReg, mask, c * VL_B32, dist=R.StoreDist.DIST_NORM)


def reduce_max_ra_vf(xAddr, zAddr, d0, d1, d1Pad):
    """ReduceMaxRaVf: as ReduceSumRaVf with Max from -FLT_MAX."""
    accReg, inReg = R.RegTensor("float"), R.RegTensor("float")
    remainCols = d1
    colChunks = (d1 + VL_B32 - 1) // VL_B32
    for c in range(colChunks):
        mask, remainCols = R.UpdateMask("float", remainCols)
        R.Duplicate(accReg, NEG_INF)
        for i in range(d0):
            R.LoadAlign(inReg, xAddr, i * d1Pad + c * VL_B32, dist=R.LoadDist.DIST_NORM)
            R.Max(accReg, accReg, inReg, mask)
        R.StoreAlign(zAddr, accReg, mask, c * VL_B32, dist=R.StoreDist.DIST_NORM)


def reduce_sum_ar_binary_vf(xAddr, zAddr, d0, d1, d1Pad):
    """ReduceSumArVfBinary: a row of four chunks folded pairwise at distance 128 (c0 + c2, c1 + c3 under the last
    chunk's UpdateMask, MERGING), then c0 + c1, ReduceSum, one float appended (for 192 < d1 <= 256)."""
    c0, c1, c2, c3 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    outReg = R.RegTensor("float")
    unalignAcc = R.UnalignRegForStore()
    fullMask = R.CreateMask("float", R.MaskPattern.ALL)
    dst = 0
    for i in range(d0):
        base = i * d1Pad
        lastValid = d1 - 3 * VL_B32
        R.LoadAlign(c0, xAddr, base, dist=R.LoadDist.DIST_NORM)
        R.LoadAlign(c1, xAddr, base + VL_B32, dist=R.LoadDist.DIST_NORM)
        R.LoadAlign(c2, xAddr, base + 2 * VL_B32, dist=R.LoadDist.DIST_NORM)
        R.LoadAlign(c3, xAddr, base + 3 * VL_B32, dist=R.LoadDist.DIST_NORM)
        lastMask, lastValid = R.UpdateMask("float", lastValid)
        R.Add(c0, c0, c2, fullMask)
        R.Add(c1, c1, c3, lastMask, R.MaskMergeMode.MERGING)
        R.Add(c0, c0, c1, fullMask)
        R.ReduceSum(outReg, c0, fullMask)
        dst = R.StoreUnAlign(zAddr, outReg, unalignAcc, dst, 1)
    R.StoreUnAlignPost(zAddr, unalignAcc, dst, 0)


REDUCE_VFS = {("sum_binary", "ar"): R.simd_vf(reduce_sum_ar_binary_vf), ("sum", "ar"): R.simd_vf(reduce_sum_ar_vf),
              ("max", "ar"): R.simd_vf(reduce_max_ar_vf),
              ("sum", "ra"): R.simd_vf(reduce_sum_ra_vf), ("max", "ra"): R.simd_vf(reduce_max_ra_vf)}


class KernelReduce:
    """KernelReduceSum / KernelReduceMax: one core, the rows copied to 32-byte aligned UB rows."""

    def __init__(self, op, axis):
        self.vf = REDUCE_VFS[(op, axis)]
        self.axis = axis

    def Init(self, x, z, d0, d1):
        self.d0, self.d1 = d0, d1
        self.d1Pad = (d1 + UB_ALIGN - 1) // UB_ALIGN * UB_ALIGN
        self.outLen = d0 if self.axis == "ar" else d1
        self.xGm, self.zGm = aj.GlobalTensor("float"), aj.GlobalTensor("float")
        self.xGm.SetGlobalBuffer(x, d0 * d1)
        self.zGm.SetGlobalBuffer(z, self.outLen)
        inBytes = (d0 * self.d1Pad + VL_B32) * 4         # one vector spare past the last row
        outBytes = (self.outLen * 4 + 31) // 32 * 32
        self.pipe = aj.TPipe()
        self.inQueue = aj.TQue(aj.TPosition.VECIN, 1)
        self.outQueue = aj.TQue(aj.TPosition.VECOUT, 1)
        self.pipe.InitBuffer(self.inQueue, 1, (inBytes + 31) // 32 * 32)
        self.pipe.InitBuffer(self.outQueue, 1, outBytes)

    def Process(self):
        self.CopyIn()
        self.Compute()
        self.CopyOut()

    def CopyIn(self):
        xUb = self.inQueue.AllocTensor("float")
        params = aj.DataCopyExtParams(1, self.d1 * 4, 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(False, 0, 0, np.float32(0.0))
        for i in range(self.d0):
            aj.DataCopyPad(xUb[i * self.d1Pad], self.xGm[i * self.d1], params, padParams)
        self.inQueue.EnQue(xUb)

    def Compute(self):
        xUb = self.inQueue.DeQue("float")
        zUb = self.outQueue.AllocTensor("float")
        for _ in range(VF_REPEAT):
            R.asc_vf_call(self.vf, xUb, zUb, self.d0, self.d1, self.d1Pad)
        self.outQueue.EnQue(zUb)
        self.inQueue.FreeTensor(xUb)

    def CopyOut(self):
        zUb = self.outQueue.DeQue("float")
        aj.DataCopyPad(self.zGm, zUb, aj.DataCopyExtParams(1, self.outLen * 4, 0, 0, 0))
        self.outQueue.FreeTensor(zUb)


def reduce_kernel(x, z, d0, d1, op, axis):
    """ReduceSumKernel / ReduceMaxKernel."""
    k = KernelReduce(op, axis)
    k.Init(x, z, d0, d1)
    k.Process()


def run_reduce(x, op, axis):
    """x: a (d0, d1) float matrix; the (d0,) or (d1,) result."""
    d0, d1 = x.shape
    z = np.zeros(d0 if axis == "ar" else d1, np.float32)
    aj.launch(reduce_kernel, 1, "ascend950", np.ascontiguousarray(x).reshape(-1), z, d0, d1, op, axis)
    return z


def _pair_tree(lanes):
    """Reg ReduceSum over 64 float lanes: adjacent pairs, level by level, each add rounded to float."""
    v = lanes.astype(np.float32)
    while v.shape[-1] > 1:
        v = v[..., 0::2] + v[..., 1::2]
    return v[..., 0]


def reduce_model(x, op, axis):
    """The VFs' float32 order (see the docstring)."""
    x = x.astype(np.float32)
    d0, d1 = x.shape
    if op == "max":                  # from -FLT_MAX: an all -inf row or column gives -FLT_MAX
        return np.maximum(x.max(axis=1 if axis == "ar" else 0), NEG_INF).astype(np.float32)
    if op == "sum_binary":           # (c0 + c2) + (c1 + c3 on the last chunk's lanes)
        c = [x[:, k * VL_B32:(k + 1) * VL_B32] for k in range(3)]
        c3 = np.zeros((d0, VL_B32), np.float32)
        c3[:, :d1 - 3 * VL_B32] = x[:, 3 * VL_B32:]
        return _pair_tree((c[0] + c[2]).astype(np.float32) + (c[1] + c3).astype(np.float32))
    if axis == "ra":
        acc = np.zeros(d1, np.float32)
        for i in range(d0):
            acc = acc + x[i]
        return acc
    chunks = (d1 + VL_B32 - 1) // VL_B32
    padded = np.zeros((d0, chunks * VL_B32), np.float32)
    padded[:, :d1] = x
    acc = np.zeros((d0, VL_B32), np.float32)
    for c in range(chunks):
        acc = acc + padded[:, c * VL_B32:(c + 1) * VL_B32]
    return _pair_tree(acc)


# the gallery

UB_FLOATS = 248 * 1024 // 4          # the 950's UB in floats


def _axpy_size_ok(n):
    return n > 0 and 3 * -(-n // VL_B32) * VL_B32 <= UB_FLOATS


def _reduce_size_ok(n):
    d0 = n // D1
    return n > 0 and n % D1 == 0 and (d0 * 256 + VL_B32) + 256 <= UB_FLOATS


def _axpy_inputs(size, seed):
    rng = np.random.default_rng(seed)
    return {"x": rng.uniform(-1.0, 1.0, size).astype(np.float32),
            "y": rng.uniform(-1.0, 1.0, size).astype(np.float32)}


def _reduce_inputs(size, seed):
    rng = np.random.default_rng(seed)
    return {"x": rng.uniform(-1.0, 1.0, size).astype(np.float32)}


def _reduce_spec(op, axis):
    def run(device, inputs):
        return {"z": run_reduce(inputs["x"].reshape(-1, D1), op, axis)}

    def expected(device, inputs):
        return {"z": reduce_model(inputs["x"].reshape(-1, D1), op, axis)}
    what = {"ar": "along the last axis (a row's 64-column chunks Add / Max MERGING into an accumulator, Reg "
                  f"Reduce{op.capitalize()}, a post-updating StoreUnAlign of one float a row)" if op != "sum_binary"
            else "along the last axis (a row's four chunks folded pairwise at distance 128, the last under its "
                 "UpdateMask MERGING, then c0 + c1, Reg ReduceSum, StoreUnAlign)",
            "ra": "along the first axis (per 64-column chunk the rows folded by Add / Max under UpdateMask, "
                  "StoreAlign of the chunk)"}[axis]
    return KernelSpec(f"vf_reduce_{op}_{axis}", f"cann-samples SIMD VF story: Reduce{op[:3].capitalize()} of a "
                      f"[rows, 250] float matrix {what}", _reduce_inputs, run, expected, default_size=D0 * D1,
                      devices=DEVICES, size_rule="a multiple of 250 floats (rows of 250) that fits the UB",
                      size_ok=_reduce_size_ok, source=_SOURCE + "reduce/src/" + (
                          f"reduce_{op}_{axis}_baseline.asc" if op != "sum_binary" else "reduce_sum_ar_binary.asc"))


_SOURCE = "hicann/cann-samples@a934ed96 Samples/2_Performance/simd_vf_story/"
KERNELS = [
    KernelSpec("vf_axpy", "cann-samples SIMD VF story: AXPY z = 2x + y (UpdateMask, unmasked LoadAlign, Muls, Add, "
               "masked StoreAlign in one VF; one core, one DataCopyPad tile)", _axpy_inputs,
               lambda device, inputs: {"z": run_axpy(inputs["x"], inputs["y"])},
               lambda device, inputs: {"z": axpy_model(inputs["x"], inputs["y"])}, default_size=D0 * D1,
               devices=DEVICES, size_rule="three whole-vector buffers that fit the UB", size_ok=_axpy_size_ok,
               source=_SOURCE + "elemwise/src/elemwise_axpy_baseline.asc"),
] + [_reduce_spec(op, axis) for op, axis in (("sum", "ar"), ("max", "ar"), ("sum", "ra"), ("max", "ra"),
                                             ("sum_binary", "ar"))]
