"""SigmoidGrad from the CANN NN operators, the Ascend 950 (arch35) kernels: z = dy * (1 - y) * y over float, half and
bfloat16 (y the sigmoid's output, dy the incoming gradient), each computed in float lanes of one Reg-API VF a tile.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, activation/sigmoid_grad:
- op_kernel/sigmoid_grad_apt.cpp (the entry: AIV only, GET_TILING_DATA, a caller-made TPipe, `SigmoidGradF16`,
  `SigmoidGradBf16` or `SigmoidGradF32` by the tiling key);
- op_kernel/arch35/sigmoid_grad_f32.h, sigmoid_grad_f16.h, sigmoid_grad_bf16.h: GlobalTensors over the whole
  tensors; three depth-2 queues (y and dy in, z out) of elemNum elements; per UB loop CopyIn0 (y) and CopyIn1 (dy),
  each a DataCopyPad with DataCopyExtParams {1, bytes} and default DataCopyPadExtParams at
  blockFormer * GetBlockIdx() + ubLoopIdx * ubFormer, Compute2, CopyOut3; the last block takes ubLoopOfTailBlock /
  ubTailOfTailBlock. Compute2's __VEC_SCOPE__: CreateMask<float>() and Duplicate 1.0f (ZEROING); per 64 float lanes
  UpdateMask<float>, the loads (float: LoadAlign DIST_NORM of dy then y; 16-bit: LoadAlign DIST_UNPACK_B16 and Cast
  to float with {ZERO, UNKNOWN, ZEROING, UNKNOWN}, dy first), Sub(1, y), Mul(dy, .), Mul(., y), then (16-bit) Cast
  back with {ZERO, NO_SAT, ZEROING, CAST_RINT} and StoreAlign DIST_PACK_B32 (float: StoreAlign DIST_NORM_B32);
- op_host/arch35/sigmoid_grad_tiling_arch35.cpp (GetComputeMap: bufferDivisor 96 bits an element for the 16-bit
  types and 192 for float, i.e. six buffers of the type (three double-buffered queues); the split is the shared
  atvoss ElewiseTiling, which the repository does not hold).

The three classes differ only in T and their VF's load, cast and store: one class over T here (as
kernels/sigmoid_regbase.py).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original); the split is written here (`tiling`,
as kernels/sigmoid_regbase.py: elemNum = ubFormer = the UB's bits over bufferDivisor rounded down to whole 64-element
vectors, cores of at least 4 KB, blockFormer rounded up to whole vectors). At a short tile only: the VF loads whole
vectors, past the DataCopyPad's 32-byte blocks inside the queue buffer; those lanes are outside UpdateMask (harmless
on the device; an uninitialised read for the sanitizer before session 54, clean with the lane tracking); the port
zeroes them by a Duplicate before the copy-in (kept from before, no longer needed for the init check).

Devices: the op's arch35 build is the 950's (op_host/config/ascend950); the port runs there.

Fidelity: BIT-EXACT (Reg Sub, Mul, Duplicate, Cast, loads and stores; SPEC-2 0.3). The expectation replays the float32
chain in numpy: (1 - y) rounded, times dy rounded, times y rounded, then RNE to the element type.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
ZEROING = R.MaskMergeMode.ZEROING
CORE_NUM = 8                        # deviation: the launch's cores (GetCoreNumAiv in the original)
MIN_BYTES_PER_CORE = 4096
FLOAT_LANES = 64                    # VECTOR_REG_WIDTH / sizeof(float)
BUFFER_DIVISOR = {"float": 192, "half": 96, "bfloat16": 96}     # GetComputeMap
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
# sigmoid_grad_apt.cpp's tiling keys
SIGMOID_GRAD_F16_TILING_KEY = 100000000000100
SIGMOID_GRAD_BF16_TILING_KEY = 200000000000100
SIGMOID_GRAD_F32_TILING_KEY = 300000000000100
KEY_DTYPE = {SIGMOID_GRAD_F16_TILING_KEY: "half", SIGMOID_GRAD_BF16_TILING_KEY: "bfloat16",
             SIGMOID_GRAD_F32_TILING_KEY: "float"}
DTYPE_KEY = {v: k for k, v in KEY_DTYPE.items()}

SigmoidGradTilingData = np.dtype([("dim0", np.int64), ("blockFormer", np.int64), ("ubFormer", np.int64),
                                  ("ubLoopOfFormerBlock", np.int64), ("ubLoopOfTailBlock", np.int64),
                                  ("ubTailOfFormerBlock", np.int64), ("ubTailOfTailBlock", np.int64),
                                  ("elemNum", np.int64)])

castTrait0 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, ZEROING, aj.RoundMode.UNKNOWN)
castTrait1 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, ZEROING, aj.RoundMode.CAST_RINT)


def tiling(device, dim0, dtype):
    """(tiling key, block dim, the packed SigmoidGradTilingData): DoOpTiling's fields, the split as the docstring
    says."""
    t = np.zeros(1, SigmoidGradTilingData)
    elem_num = aj.get_device(device).ub_bytes * 8 // BUFFER_DIVISOR[dtype] // FLOAT_LANES * FLOAT_LANES
    cores = max(1, min(CORE_NUM, dim0 * TYPE_SIZE[dtype] // MIN_BYTES_PER_CORE))
    block_former = -(-(-(-dim0 // cores)) // FLOAT_LANES) * FLOAT_LANES
    block_num = -(-dim0 // block_former)
    block_tail = dim0 - (block_num - 1) * block_former
    loop_former, loop_tail = -(-block_former // elem_num), -(-block_tail // elem_num)
    t["dim0"], t["blockFormer"], t["ubFormer"], t["elemNum"] = dim0, block_former, elem_num, elem_num
    t["ubLoopOfFormerBlock"], t["ubTailOfFormerBlock"] = loop_former, block_former - (loop_former - 1) * elem_num
    t["ubLoopOfTailBlock"], t["ubTailOfTailBlock"] = loop_tail, block_tail - (loop_tail - 1) * elem_num
    return DTYPE_KEY[dtype], block_num, t.view(np.uint8).copy()


def sigmoid_grad_vf(bufferIn0Addr, bufferIn1Addr, bufferOut0Addr, i0Extent, T):
    """Compute2's __VEC_SCOPE__: dy * (1 - y) * y in float lanes, 64 a step."""
    vreg2, vreg1, vreg6 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    vreg3, vreg4, vreg7 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    vreg0, vreg5, vreg8 = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    size = i0Extent
    preg0 = R.CreateMask("float")
    R.Duplicate(vreg2, np.float32(1.0), preg0, ZEROING)
    vfLoopNum = (i0Extent + FLOAT_LANES - 1) // FLOAT_LANES
    for i in range(vfLoopNum):
        preg0, size = R.UpdateMask("float", size)
        if T == "float":
            R.LoadAlign(vreg6, bufferIn1Addr, i * FLOAT_LANES, dist=R.LoadDist.DIST_NORM)
            R.LoadAlign(vreg1, bufferIn0Addr, i * FLOAT_LANES, dist=R.LoadDist.DIST_NORM)
        else:
            R.LoadAlign(vreg5, bufferIn1Addr, i * FLOAT_LANES, dist=R.LoadDist.DIST_UNPACK_B16)
            R.Cast(vreg6, vreg5, preg0, castTrait0)
            R.LoadAlign(vreg0, bufferIn0Addr, i * FLOAT_LANES, dist=R.LoadDist.DIST_UNPACK_B16)
            R.Cast(vreg1, vreg0, preg0, castTrait0)
        R.Sub(vreg3, vreg2, vreg1, preg0)
        R.Mul(vreg4, vreg6, vreg3, preg0)
        R.Mul(vreg7, vreg4, vreg1, preg0)
        if T == "float":
            R.StoreAlign(bufferOut0Addr, vreg7, preg0, i * FLOAT_LANES, dist=R.StoreDist.DIST_NORM_B32)
        else:
            R.Cast(vreg8, vreg7, preg0, castTrait1)
            R.StoreAlign(bufferOut0Addr, vreg8, preg0, i * FLOAT_LANES, dist=R.StoreDist.DIST_PACK_B32)


SIGMOID_GRAD_VF = R.simd_vf(sigmoid_grad_vf)


class SigmoidGrad:
    """SigmoidGradF32 / SigmoidGradF16 / SigmoidGradBf16 over T."""

    def __init__(self, T):
        self.T = T

    def Init(self, y, dy, z, workspace, tilingDataPtr, pipePtr):
        self.pipePtr_, self.tilingDataPtr_ = pipePtr, tilingDataPtr
        self.inputGmY_, self.inputGmDy_, self.outputGmZ_ = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGmY_.SetGlobalBuffer(y)
        self.inputGmDy_.SetGlobalBuffer(dy)
        self.outputGmZ_.SetGlobalBuffer(z)
        DOUBLE_BUFFER = 2
        BUFFER_SIZE_0 = int(tilingDataPtr.elemNum) * TYPE_SIZE[self.T]
        self.queIn0_ = aj.TQue(aj.QuePosition.VECIN, 1)
        self.queIn1_ = aj.TQue(aj.QuePosition.VECIN, 1)
        self.queOut0_ = aj.TQue(aj.QuePosition.VECOUT, 1)
        self.pipePtr_.InitBuffer(self.queIn0_, DOUBLE_BUFFER, BUFFER_SIZE_0)
        self.pipePtr_.InitBuffer(self.queIn1_, DOUBLE_BUFFER, BUFFER_SIZE_0)
        self.pipePtr_.InitBuffer(self.queOut0_, DOUBLE_BUFFER, BUFFER_SIZE_0)

    def Process(self):
        t = self.tilingDataPtr_
        last = aj.GetBlockIdx() == aj.GetBlockNum() - 1
        ubLoopNum = int(t.ubLoopOfTailBlock if last else t.ubLoopOfFormerBlock)
        tailExtent = int(t.ubTailOfTailBlock if last else t.ubTailOfFormerBlock)
        for ubLoopIdx in range(ubLoopNum):
            i0Extent = tailExtent if ubLoopIdx == ubLoopNum - 1 else int(t.ubFormer)
            self.CopyIn0(i0Extent, ubLoopIdx)
            self.CopyIn1(i0Extent, ubLoopIdx)
            self.Compute2(i0Extent, ubLoopIdx)
            self.CopyOut3(i0Extent, ubLoopIdx)

    def GmOffset(self, ubLoopIdx):
        t = self.tilingDataPtr_
        return int(t.blockFormer) * aj.GetBlockIdx() + ubLoopIdx * int(t.ubFormer)

    def _copy_in(self, que, gm, i0Extent, ubLoopIdx):
        T = self.T
        buffer = que.AllocTensor(T)
        loaded = aj.CeilDivision(i0Extent, FLOAT_LANES) * FLOAT_LANES
        copied = aj.AlignUp(i0Extent * TYPE_SIZE[T], 32) // TYPE_SIZE[T]
        if loaded > copied:
            # not in the original: the last vector's lanes past the copy (docstring)
            aj.Duplicate(buffer[copied], _NP[T](0), loaded - copied)
        dataCopyExtParams = aj.DataCopyExtParams()
        dataCopyPadExtParams = aj.DataCopyPadExtParams()
        dataCopyExtParams.blockCount = 1
        dataCopyExtParams.blockLen = i0Extent * TYPE_SIZE[T]
        aj.DataCopyPad(buffer[0], gm[self.GmOffset(ubLoopIdx)], dataCopyExtParams, dataCopyPadExtParams)
        que.EnQue(T, buffer)
        return buffer

    def CopyIn0(self, i0Extent, ubLoopIdx):
        self.bufferIn0_ = self._copy_in(self.queIn0_, self.inputGmY_, i0Extent, ubLoopIdx)

    def CopyIn1(self, i0Extent, ubLoopIdx):
        self.bufferIn1_ = self._copy_in(self.queIn1_, self.inputGmDy_, i0Extent, ubLoopIdx)

    def Compute2(self, i0Extent, ubLoopIdx):
        T = self.T
        self.bufferIn0_ = self.queIn0_.DeQue(T)
        self.bufferIn1_ = self.queIn1_.DeQue(T)
        self.bufferOut0_ = self.queOut0_.AllocTensor(T)
        R.asc_vf_call(SIGMOID_GRAD_VF, self.bufferIn0_, self.bufferIn1_, self.bufferOut0_, i0Extent, T)
        self.queIn0_.FreeTensor(self.bufferIn0_)
        self.queIn1_.FreeTensor(self.bufferIn1_)
        self.queOut0_.EnQue(T, self.bufferOut0_)

    def CopyOut3(self, i0Extent, ubLoopIdx):
        T = self.T
        self.bufferOut0_ = self.queOut0_.DeQue(T)
        dataCopyExtParams = aj.DataCopyExtParams()
        dataCopyExtParams.blockCount = 1
        dataCopyExtParams.blockLen = i0Extent * TYPE_SIZE[T]
        aj.DataCopyPad(self.outputGmZ_[self.GmOffset(ubLoopIdx)], self.bufferOut0_[0], dataCopyExtParams)
        self.queOut0_.FreeTensor(self.bufferOut0_)


aj.REGISTER_TILING_DEFAULT(SigmoidGradTilingData)


def sigmoid_grad(y, dy, z, workspace, tiling_bytes, tiling_key):
    """The kernel entry (sigmoid_grad_apt.cpp); the tiling key picks the class."""
    tilingData = aj.GET_TILING_DATA(tiling_bytes)
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    tPipe = aj.TPipe()
    op = SigmoidGrad(KEY_DTYPE[tiling_key])
    op.Init(y, dy, z, workspace, tilingData, tPipe)
    op.Process()


def run_sigmoid_grad(device, y, dy):
    dtype = {np.dtype(np.float32): "float", np.dtype(np.float16): "half"}.get(y.dtype, "bfloat16")
    key, block_dim, tiling_bytes = tiling(device, y.size, dtype)
    z = np.zeros_like(y)
    workspace = np.zeros(32, np.uint8)              # WORKSPACE_SIZE
    aj.launch(sigmoid_grad, block_dim, device, y, dy, z, workspace, tiling_bytes, key)
    return z


def sigmoid_grad_model(y, dy):
    """The VF's float32 chain: one RNE a step, then RNE to the element type."""
    yf, dyf = y.astype(np.float32), dy.astype(np.float32)
    with np.errstate(all="ignore"):
        z = ((dyf * (np.float32(1.0) - yf)) * yf).astype(np.float32)
    return z.astype(y.dtype)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        y = rng.uniform(0.0, 1.0, size).astype(np.float32)
        dy = rng.standard_normal(size).astype(np.float32)
        specials = np.array([0.0, 1.0, 0.5, -0.0, 2.0, -3.0], np.float32)
        y[:min(size, specials.size)] = specials[:size]
        return {"y": y.astype(_NP[dtype]), "dy": dy.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"z": run_sigmoid_grad(device, inputs["y"], inputs["dy"])}


def _expected(device, inputs):
    return {"z": sigmoid_grad_model(inputs["y"], inputs["dy"])}


def _size_ok(n):
    return 0 < n <= 1 << 24


_SOURCE = "hicann/ops-nn@e5c3fa93 activation/sigmoid_grad/op_kernel/arch35/sigmoid_grad_f32.h"
KERNELS = [
    KernelSpec("sigmoid_grad", "ops-nn SigmoidGrad over floats, 950 arch35: a VF of LoadAlign, Sub from a "
               "Duplicated 1, two Muls, StoreAlign DIST_NORM_B32 under UpdateMask; former/tail blocks, "
               "double-buffered DataCopyPad tiles", _make_inputs("float"), _run, _expected, default_size=100000,
               devices=("ascend950",), size_rule="1 to 16Mi elements", size_ok=_size_ok, source=_SOURCE),
    KernelSpec("sigmoid_grad_half", "ops-nn SigmoidGrad over halves in float lanes: DIST_UNPACK_B16, Cast, ..., "
               "Cast CAST_RINT, DIST_PACK_B32", _make_inputs("half"), _run, _expected, default_size=100000,
               devices=("ascend950",), size_rule="1 to 16Mi elements", size_ok=_size_ok,
               source=_SOURCE.replace("f32", "f16")),
    KernelSpec("sigmoid_grad_bf16", "ops-nn SigmoidGrad over bfloat16 in float lanes (as the half kernel)",
               _make_inputs("bfloat16"), _run, _expected, default_size=100000, devices=("ascend950",),
               size_rule="1 to 16Mi elements", size_ok=_size_ok, source=_SOURCE.replace("f32", "bf16")),
]
