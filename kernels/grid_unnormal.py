"""GridUnnormal from the CANN CV operators (a GridSample helper): grid coordinates in [-1, 1] back to pixel space,
pos = (grid + 1) * 0.5 * (assist - 1) with align_corners, (grid + 1) * 0.5 * assist - 0.5 without, then
position = floor(pos) (int32) and diff = pos - floor(pos), element by element over float and half (computed in
float); assist holds each coordinate's input size.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-cv @ 6ae87653464d2afb064c829e529abba2e278b0c4, image/grid_unnormal (the 950 Reg API):
- op_kernel/arch35/grid_unnormal.h (`NsGridUnnormal::GridUnnormalKernel<T>`): each core perCoreNum elements (the
  last the rest); depth-2 queues of ubFactor elements for grid, assist, diff and position; per tile DataCopyPad in
  (DataCopyExtParams set field by field, default DataCopyPadExtParams), a __VEC_SCOPE__ of 64-lane steps under
  UpdateMask: both inputs loaded as float (`ops::LoadOneTensorForDtypeT`: a plain load, or for half an unpacking
  DIST_UNPACK_B16 load and a Cast (ZERO, UNKNOWN, ZEROING, UNKNOWN)), Adds 1, Muls 0.5, then Adds -1 and Mul
  (align_corners) or Mul and Adds -0.5, Cast float -> int32 CAST_FLOOR (UNKNOWN, NO_SAT, ZEROING), Cast back to float
  CAST_RINT, Sub, diff stored as T (`ops::StoreOneTensorForDtypeT`: a DIST_NORM_B32 store, or Cast CAST_RINT
  (ZERO, NO_SAT, ZEROING) and a DIST_PACK_B32 store) and position by a DIST_NORM store; DataCopyPad out of both;
  ops-nn common/inc/op_kernel/load_store_utils.h @ e5c3fa9327ea95ba26d06227e746923580d10921 holds the load / store
  helpers;
- op_kernel/grid_unnormal.cpp (the entry: REGISTER_TILING_DEFAULT, GET_TILING_DATA_WITH_STRUCT) and
  op_host/arch35/grid_unnormal_tiling_arch35.cpp (`GridUnnormalTilingFunc`: grid (N, H, W, 2) with assist of the
  same shape and type; ubFactor = (UB - 8 KiB) / (3 tensors x sizeof(T) x 2 + 4 x 2) bytes, rounded down to 64
  elements; perCoreNum = ceil(total / cores), cores = ceil(total / perCoreNum)).

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original). The VF loads whole vectors (256
bytes; 128 for the unpacking load), so a tile whose length is no multiple of 64 is read past the DataCopyPad's
32-byte blocks, inside the queue buffers; on a buffer's first use those bytes were never written (harmless on the
device: UpdateMask keeps the lanes out of the stores; an uninitialised read for the sanitizer before session 54,
clean with the lane tracking). The port zeroes them by a Duplicate before the copy-in (ZERO_TAIL = False runs the
original's form), as kernels/sigmoid_regbase.py does (kept from before, no longer needed for the init check); the
stored lanes are the original's. The Cast int32 -> float back from the floor: the original's trait
(kCastI32ToF32) says SatMode NO_SAT, and the 950's row for the pair (DK Cast.md tables 6-9) offers UNKNOWN only, so
the emulator refuses it (SPEC-2 11.5); the port passes UNKNOWN (an int32 never saturates in float, the value is the
same). ORIGINAL_TRAIT = True runs the original's trait and tests/test_port47cv_kernels.py shows the refusal.

Devices: the operator's config is the ascend950 (op_host/config/ascend950): the port runs on the 950.

Fidelity: BIT-EXACT (Reg Adds, Muls, Mul, Sub, Cast, loads and stores, DataCopyPad; SPEC-2 0.3): each float
operation rounded once, floor exact; a NaN grid gives position 0 (SPEC-2 D45: NaN -> 0) and diff NaN; a position
past the int32 range saturates to INT32_MAX / MIN (D45) and diff is then pos - that value, rounded.
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
ZEROING = R.MaskMergeMode.ZEROING
CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
REG_ELEM_ALIGN = 64
UB_RESERVE = 8 * 1024
BUF_NUM = 2
FP32_PER_LOOP = 64                 # 256-byte vector / sizeof(float)
TYPE_SIZE = {"float": 4, "half": 2}
_NP = {"float": np.float32, "half": np.float16}
DEVICES = ("ascend950",)
ZERO_TAIL = True                   # False: the original's form (the last vector's lanes past the copy unwritten;
                                   # sanitizes clean since session 54)
ORIGINAL_TRAIT = False             # True: the original's int32 -> float CastTrait (SatMode NO_SAT: refused)


class GridUnnormalTilingData(ctypes.Structure):
    _fields_ = [("totalNum", ctypes.c_int64), ("perCoreNum", ctypes.c_int64), ("ubFactor", ctypes.c_int64),
                ("alignCorners", ctypes.c_int32)]


def tiling(device, shape, dtype, align_corners=False):
    """GridUnnormalTilingFunc: (used cores, tiling bytes)."""
    if len(shape) != 4 or shape[3] != 2:
        raise ValueError("grid must be (N, H, W, 2)")
    bytes_per_elem = 3 * TYPE_SIZE[dtype] * BUF_NUM + 4 * BUF_NUM
    usable = aj.get_device(device).ub_bytes - UB_RESERVE
    ub_factor = usable // bytes_per_elem // REG_ELEM_ALIGN * REG_ELEM_ALIGN
    total = int(np.prod(shape))
    if total <= 0:
        t = GridUnnormalTilingData(0, 0, ub_factor, int(align_corners))
        return 1, np.frombuffer(bytes(t), np.uint8).copy()
    per_core = -(-total // CORE_NUM)
    used = max(1, min(-(-total // per_core), CORE_NUM))
    t = GridUnnormalTilingData(total, per_core, ub_factor, int(align_corners))
    return used, np.frombuffer(bytes(t), np.uint8).copy()


@R.simd_callee
def _load_one_tensor_for_dtype(inputUb, dst, preg, offset, T, widen, tmp16):
    """ops::LoadOneTensorForDtypeT: T -> float lanes."""
    if T == "float":
        R.DataCopy(dst, inputUb[offset], dist=R.LoadDist.DIST_NORM)
    else:
        R.DataCopy(tmp16, inputUb[offset], dist=R.LoadDist.DIST_UNPACK_B16)
        R.Cast(dst, tmp16, preg, widen)


def grid_unnormal_vf(gridUb, assistUb, diffUb, posUb, length, repeatTimes, alignCorners, originalTrait, T):
    """ComputeImpl's __VEC_SCOPE__: 64 float lanes a step."""
    widen = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, ZEROING, aj.RoundMode.UNKNOWN)
    narrow = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, ZEROING, aj.RoundMode.CAST_RINT)
    to_int_floor = R.CastTrait(R.RegLayout.UNKNOWN, R.SatMode.NO_SAT, ZEROING, aj.RoundMode.CAST_FLOOR)
    # kCastI32ToF32: the original's trait says NO_SAT, which the pair's row refuses (SPEC-2 11.5): UNKNOWN unless
    # originalTrait (the deviation; the conversion of an int32 to float never saturates either way)
    to_float = R.CastTrait(R.RegLayout.UNKNOWN, R.SatMode.NO_SAT if originalTrait else R.SatMode.UNKNOWN, ZEROING,
                           aj.RoundMode.CAST_RINT)
    gReg, aReg, posReg, floorReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float"), R.RegTensor(
        "float")
    posIReg = R.RegTensor("int32")
    tmpIn, tmpOut = R.RegTensor(T), R.RegTensor(T)
    sreg = length
    for i in range(repeatTimes):
        off = i * FP32_PER_LOOP
        mask, sreg = R.UpdateMask("float", sreg)
        _load_one_tensor_for_dtype(gridUb, gReg, mask, off, T, widen, tmpIn)
        _load_one_tensor_for_dtype(assistUb, aReg, mask, off, T, widen, tmpIn)
        R.Adds(gReg, gReg, np.float32(1.0), mask, ZEROING)          # t = (grid + 1) * 0.5
        R.Muls(gReg, gReg, np.float32(0.5), mask, ZEROING)
        if alignCorners:
            R.Adds(aReg, aReg, np.float32(-1.0), mask, ZEROING)     # t * (assist - 1)
            R.Mul(posReg, gReg, aReg, mask, ZEROING)
        else:
            R.Mul(posReg, gReg, aReg, mask, ZEROING)                # t * assist - 0.5
            R.Adds(posReg, posReg, np.float32(-0.5), mask, ZEROING)
        R.Cast(posIReg, posReg, mask, to_int_floor)
        R.Cast(floorReg, posIReg, mask, to_float)
        R.Sub(posReg, posReg, floorReg, mask, ZEROING)
        if T == "float":                                            # ops::StoreOneTensorForDtypeT
            R.DataCopy(diffUb[off], posReg, mask, dist=R.StoreDist.DIST_NORM_B32)
        else:
            R.Cast(tmpOut, posReg, mask, narrow)
            R.DataCopy(diffUb[off], tmpOut, mask, dist=R.StoreDist.DIST_PACK_B32)
        R.DataCopy(posUb[off], posIReg, mask, dist=R.StoreDist.DIST_NORM)


GRID_UNNORMAL_VF = R.simd_vf(grid_unnormal_vf)


class GridUnnormalKernel:
    """`GridUnnormalKernel<T>`."""

    def __init__(self, T):
        self.T = T

    def Init(self, grid, assist, diff, position, td):
        T = self.T
        self.totalNum, self.perCoreNum, self.ubFactor = td.totalNum, td.perCoreNum, td.ubFactor
        self.alignCorners = td.alignCorners != 0
        blockIdx = aj.GetBlockIdx()
        self.coreStart = blockIdx * self.perCoreNum
        if self.coreStart >= self.totalNum:
            self.coreLen = 0
        else:
            self.coreLen = min(self.perCoreNum, self.totalNum - self.coreStart)
        self.gridGm, self.assistGm, self.diffGm = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.posGm = aj.GlobalTensor("int32")
        self.gridGm.SetGlobalBuffer(grid)
        self.assistGm.SetGlobalBuffer(assist)
        self.diffGm.SetGlobalBuffer(diff)
        self.posGm.SetGlobalBuffer(position)
        self.pipe = aj.TPipe()
        self.inQueGrid, self.inQueAssist = aj.TQue(aj.QuePosition.VECIN, BUF_NUM), aj.TQue(aj.QuePosition.VECIN,
                                                                                             BUF_NUM)
        self.outQueDiff, self.outQuePos = aj.TQue(aj.QuePosition.VECOUT, BUF_NUM), aj.TQue(aj.QuePosition.VECOUT,
                                                                                             BUF_NUM)
        self.pipe.InitBuffer(self.inQueGrid, BUF_NUM, self.ubFactor * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.inQueAssist, BUF_NUM, self.ubFactor * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.outQueDiff, BUF_NUM, self.ubFactor * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.outQuePos, BUF_NUM, self.ubFactor * 4)

    def Process(self):
        if self.coreLen <= 0:
            return
        off = 0
        while off < self.coreLen:
            length = min(self.ubFactor, self.coreLen - off)
            gmOff = self.coreStart + off
            self.CopyIn(gmOff, length)
            self.Compute(length)
            self.CopyOut(gmOff, length)
            off += self.ubFactor

    def _zero_past_copy(self, local, length):
        """The deviation: zeros over the elements the last whole-vector load reads past the copy's 32-byte blocks."""
        T = self.T
        loaded = -(-length // FP32_PER_LOOP) * FP32_PER_LOOP
        copied = -(-length * TYPE_SIZE[T] // 32) * 32 // TYPE_SIZE[T]
        if ZERO_TAIL and loaded > copied:
            aj.Duplicate(local[copied], _NP[T](0), loaded - copied)

    def CopyIn(self, gmOff, length):
        T = self.T
        gridL = self.inQueGrid.AllocTensor(T)
        assistL = self.inQueAssist.AllocTensor(T)
        self._zero_past_copy(gridL, length)
        self._zero_past_copy(assistL, length)
        params = aj.DataCopyExtParams()
        params.blockCount = 1
        params.blockLen = length * TYPE_SIZE[T]
        params.srcStride = 0
        params.dstStride = 0
        pad = aj.DataCopyPadExtParams()                  # isPad false: its defaults
        aj.DataCopyPad(gridL, self.gridGm[gmOff], params, pad)
        aj.DataCopyPad(assistL, self.assistGm[gmOff], params, pad)
        self.inQueGrid.EnQue(gridL)
        self.inQueAssist.EnQue(assistL)

    def Compute(self, length):
        T = self.T
        gridL = self.inQueGrid.DeQue(T)
        assistL = self.inQueAssist.DeQue(T)
        diffL = self.outQueDiff.AllocTensor(T)
        posL = self.outQuePos.AllocTensor("int32")
        repeatTimes = (length + FP32_PER_LOOP - 1) // FP32_PER_LOOP
        aj.Reg.asc_vf_call(GRID_UNNORMAL_VF, gridL, assistL, diffL, posL, length, repeatTimes, self.alignCorners,
                           ORIGINAL_TRAIT, T)
        self.inQueGrid.FreeTensor(gridL)
        self.inQueAssist.FreeTensor(assistL)
        self.outQueDiff.EnQue(diffL)
        self.outQuePos.EnQue(posL)

    def CopyOut(self, gmOff, length):
        T = self.T
        diffL = self.outQueDiff.DeQue(T)
        posL = self.outQuePos.DeQue("int32")
        dParams = aj.DataCopyExtParams()
        dParams.blockCount = 1
        dParams.blockLen = length * TYPE_SIZE[T]
        dParams.srcStride = 0
        dParams.dstStride = 0
        aj.DataCopyPad(self.diffGm[gmOff], diffL, dParams)
        pParams = aj.DataCopyExtParams()
        pParams.blockCount = 1
        pParams.blockLen = length * 4
        pParams.srcStride = 0
        pParams.dstStride = 0
        aj.DataCopyPad(self.posGm[gmOff], posL, pParams)
        self.outQueDiff.FreeTensor(diffL)
        self.outQuePos.FreeTensor(posL)


aj.REGISTER_TILING_DEFAULT(GridUnnormalTilingData)


def grid_unnormal(grid, assist, diff, position, workspace, tiling_bytes, T):
    """The kernel entry (grid_unnormal.cpp)."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(GridUnnormalTilingData, tiling_bytes)
    op = GridUnnormalKernel(T)
    op.Init(grid, assist, diff, position, tilingData)
    op.Process()


def run_grid_unnormal(device, grid, assist, align_corners=False):
    T = "half" if grid.dtype == np.float16 else "float"
    used, t = tiling(device, grid.shape, T, align_corners)
    diff = np.zeros(grid.size, grid.dtype)
    pos = np.zeros(grid.size, np.int32)
    aj.launch(grid_unnormal, used, device, np.ascontiguousarray(grid).reshape(-1),
              np.ascontiguousarray(assist).reshape(-1), diff, pos, None, t, T)
    return diff.reshape(grid.shape), pos.reshape(grid.shape)


def grid_unnormal_model(grid, assist, align_corners=False):
    """The VF in numpy: float operations rounded once, floor to int32 (NaN -> 0, saturating), diff rounded to T."""
    f = np.float32
    g, a = grid.astype(f), assist.astype(f)
    with np.errstate(all="ignore"):
        t = ((g + f(1.0)).astype(f) * f(0.5)).astype(f)
        if align_corners:
            pos = (t * (a + f(-1.0)).astype(f)).astype(f)
        else:
            pos = ((t * a).astype(f) + f(-0.5)).astype(f)
        fl = np.floor(pos.astype(np.float64))
        posi = np.where(np.isnan(fl), 0, np.clip(fl, -2 ** 31, 2 ** 31 - 1)).astype(np.int64).astype(np.int32)
        diff = (pos - posi.astype(f)).astype(f)
    return diff.astype(grid.dtype), posi


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        n = max(1, size // 2)
        shape = (1, 1, n, 2)
        grid = rng.uniform(-1.1, 1.1, shape).astype(dtype)
        grid.reshape(-1)[::53] = rng.choice([-1.0, 0.0, 1.0], grid.reshape(-1)[::53].size)
        assist = np.broadcast_to(np.array([640.0, 480.0], dtype), shape).copy()
        return {"grid": grid, "assist": assist}
    return make_inputs


def _runner(align_corners):
    def run(device, inputs):
        diff, pos = run_grid_unnormal(device, inputs["grid"], inputs["assist"], align_corners)
        return {"diff": diff, "position": pos}
    return run


def _expected_for(align_corners):
    def expected(device, inputs):
        diff, pos = grid_unnormal_model(inputs["grid"], inputs["assist"], align_corners)
        return {"diff": diff, "position": pos}
    return expected


_SOURCE = "hicann/ops-cv@6ae87653 image/grid_unnormal/op_kernel/arch35/grid_unnormal.h"
KERNELS = [
    KernelSpec(f"grid_unnormal{suffix}", description, _make_inputs(dtype), _runner(ac), _expected_for(ac),
               default_size=size, devices=DEVICES, source=_SOURCE, size_rule="2 or more (a (1, 1, size // 2, 2) grid)",
               size_ok=lambda n: n >= 2)
    for suffix, dtype, ac, size, description in (
        ("", np.float32, False, 100002, "GridUnnormal over float, the 950 Reg API (a VF of 64-lane UpdateMask steps: "
         "Adds, Muls, Mul, Adds, Cast CAST_FLOOR to int32 and back, Sub, two stores; DataCopyPad tiles over cores)"),
        ("_half_align_corners", np.float16, True, 100002, "GridUnnormal over half with align_corners (unpacking "
         "loads and Casts to float, Adds -1 and Mul, Cast CAST_RINT and a packing store of diff)"))
]
