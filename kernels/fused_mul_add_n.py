"""FusedMulAddN from the CANN math operators, the Ascend 950 (arch35) Reg-API kernels: y = x1 * x3 + x2 element by
element, x3 a one-element tensor read by the scalar unit, over float, int32 and int16 (computed in the type) and
half and bfloat16 (computed in float lanes).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, math/fused_mul_add_n:
- op_kernel/fused_mul_add_n_apt.cpp (the entry: AIV only, GET_TILING_DATA, a caller-made TPipe, FusedMulAddN<T> for
  float / int32 / int16 and FusedMulAddNHalf<T> for half / bfloat16 by tiling key);
- op_kernel/arch35/fused_mul_add_n.h (`FusedMulAddN<T>`): GlobalTensors over the whole tensors, x3 through a
  one-element GlobalTensor and `GetValue(0)` cast to T; depth-2 VECIN queues for x1 and x2 and a VECOUT queue of
  elemNum elements; per UB loop CopyIn0 / CopyIn1 (DataCopyPad with DataCopyExtParams set field by field and default
  DataCopyPadExtParams at blockFormer * GetBlockIdx() + ubLoopIdx * ubFormer), Compute2 (a __VEC_SCOPE__: per
  VECTOR_REG_WIDTH / sizeof(T) lanes UpdateMask<T>, two `Reg::DataCopy<T, DIST_NORM>` loads, Muls (ZEROING) by x3 in
  place, Add (ZEROING), `Reg::DataCopy<T, DIST_NORM_B32>` store), CopyOut3 (DataCopyPad); the last block
  (GetBlockIdx() == GetBlockNum() - 1) takes ubLoopOfTailBlock / ubTailOfTailBlock;
- op_kernel/arch35/fused_mul_add_n_half.h (`FusedMulAddNHalf<T>`: the same with x3 as a float, 64 float lanes a
  step, `DataCopy<T, DIST_UNPACK_B16>` loads, Cast to float (ZERO, UNKNOWN, ZEROING, UNKNOWN), Muls, Add, Cast back
  (ZERO, NO_SAT, ZEROING, CAST_RINT), `DataCopy<T, DIST_PACK_B32>` store);
- op_host/arch35/fused_mul_add_n_tiling_arch35.cpp (the TilingData fields; GetComputeMap: bufferDivisor 192 bits an
  element for the 32-bit types and 96 for the 16-bit ones, six buffers of the type; the split itself is the shared
  ElewiseTiling, which the repository does not hold).

Deviations: (1) the core count is the launch's 8 (GetCoreNumAiv would give the device's); the split is written here
as kernels/sigmoid_regbase.py writes it (elemNum = ubFormer = the UB's bits over bufferDivisor rounded down to whole
vectors, cores of at least 4 KB, blockFormer rounded up to whole vectors): the kernel reads only the fields.
(2) FusedMulAddN<int16_t> stores its int16 register with DIST_NORM_B32, the 32-bit distribution the shared template
writes for float and int32; the emulator refuses a B-suffix distribution whose width is not the register's
(docs/decisions.md "A B8/B16/B32/B64 distribution requires the register's element size to equal the suffix width"),
so the int16 instance stores with DIST_NORM (the register's own width: every active lane, the same bytes).
(3) At a short tile the VF loads whole vectors past the DataCopyPad's 32-byte blocks (inside the queue buffer): as
kernels/sigmoid_regbase.py, the port zeroes those elements by a Duplicate before the copy-in, which before session 54
kept the sanitizer from reporting an uninitialised read; kept from before, no longer needed for the init check: with
the lane tracking the original (zero_tail=False) runs clean (those lanes never reach a store); the stored lanes are
the original's.

Devices: the Reg API is the 950's only.

Fidelity: BIT-EXACT (Reg loads and stores, Muls, Add and Cast are BIT-EXACT, SPEC-2 0.3): the expectation is
numpy's x1 * x3 rounded, then + x2 rounded (float; the Muls and the Add are two instructions, not fused), wrapping
two's-complement for int32 / int16, and for half / bfloat16 the same in float32 rounded to the type by RNE.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
ZEROING = R.MaskMergeMode.ZEROING
CORE_NUM = 8                        # deviation (1): the launch's cores (GetCoreNumAiv in the original)
MIN_BYTES_PER_CORE = 4096
VECTOR_REG_WIDTH = 256
BUFFER_DIVISOR = {"float": 192, "int32": 192, "int16": 96, "half": 96, "bfloat16": 96}
TYPE_SIZE = {"float": 4, "int32": 4, "int16": 2, "half": 2, "bfloat16": 2}
HALF_CLASS = ("half", "bfloat16")   # FusedMulAddNHalf<T>
_NP = {"float": np.float32, "int32": np.int32, "int16": np.int16, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}

FusedMulAddNTilingData = np.dtype([("dim0", np.int64), ("blockFormer", np.int64), ("ubFormer", np.int64),
                                   ("ubLoopOfFormerBlock", np.int64), ("ubLoopOfTailBlock", np.int64),
                                   ("ubTailOfFormerBlock", np.int64), ("ubTailOfTailBlock", np.int64),
                                   ("elemNum", np.int64)])


def lanes(T):
    """Elements a VF step handles: a register of T, or of float for FusedMulAddNHalf."""
    return VECTOR_REG_WIDTH // (4 if T in HALF_CLASS else TYPE_SIZE[T])


def tiling(device, dim0, dtype):
    """(block dim, the packed FusedMulAddNTilingData): DoOpTiling's fields, the split as deviation (1) says."""
    t = np.zeros(1, FusedMulAddNTilingData)
    step = lanes(dtype)
    elem_num = aj.get_device(device).ub_bytes * 8 // BUFFER_DIVISOR[dtype] // step * step
    cores = max(1, min(CORE_NUM, dim0 * TYPE_SIZE[dtype] // MIN_BYTES_PER_CORE))
    block_former = -(-(-(-dim0 // cores)) // step) * step
    block_num = -(-dim0 // block_former)
    block_tail = dim0 - (block_num - 1) * block_former
    loop_former, loop_tail = -(-block_former // elem_num), -(-block_tail // elem_num)
    t["dim0"], t["blockFormer"], t["ubFormer"], t["elemNum"] = dim0, block_former, elem_num, elem_num
    t["ubLoopOfFormerBlock"], t["ubTailOfFormerBlock"] = loop_former, block_former - (loop_former - 1) * elem_num
    t["ubLoopOfTailBlock"], t["ubTailOfTailBlock"] = loop_tail, block_tail - (loop_tail - 1) * elem_num
    return block_num, t.view(np.uint8).copy()


def fused_mul_add_n_vf(bufferOut0Addr, bufferIn0Addr, bufferIn1Addr, inputX3Value, i0Extent, T, store_b32):
    """FusedMulAddN<T>::Compute2's __VEC_SCOPE__ (float, int32, int16)."""
    vreg0, vreg1, vreg2 = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    size = i0Extent
    step = VECTOR_REG_WIDTH // (4 if T == "float" or T == "int32" else 2)
    vfLoopNum = (i0Extent + step - 1) // step
    for i in range(vfLoopNum):
        preg0, size = R.UpdateMask(T, size)
        R.DataCopy(vreg0, bufferIn0Addr[i * step], dist=R.LoadDist.DIST_NORM)
        R.DataCopy(vreg1, bufferIn1Addr[i * step], dist=R.LoadDist.DIST_NORM)
        R.Muls(vreg0, vreg0, inputX3Value, preg0, ZEROING)
        R.Add(vreg2, vreg0, vreg1, preg0, ZEROING)
        if store_b32:
            R.DataCopy(bufferOut0Addr[i * step], vreg2, preg0, dist=R.StoreDist.DIST_NORM_B32)
        else:                                                        # deviation (2): int16
            R.DataCopy(bufferOut0Addr[i * step], vreg2, preg0, dist=R.StoreDist.DIST_NORM)


def fused_mul_add_n_half_vf(bufferOut0Addr, bufferIn0Addr, bufferIn1Addr, inputX3Value, i0Extent, T):
    """FusedMulAddNHalf<T>::Compute2's __VEC_SCOPE__ (half, bfloat16): float lanes, 64 a step."""
    castTrait0 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, ZEROING, aj.RoundMode.UNKNOWN)
    castTrait1 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, ZEROING, aj.RoundMode.CAST_RINT)
    vreg0, vreg2, vreg5 = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    vreg1, vreg3, vreg4 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    size = i0Extent
    step = VECTOR_REG_WIDTH // 4
    vfLoopNum = (i0Extent + step - 1) // step
    for i in range(vfLoopNum):
        preg0, size = R.UpdateMask("float", size)
        R.DataCopy(vreg0, bufferIn0Addr[i * step], dist=R.LoadDist.DIST_UNPACK_B16)
        R.Cast(vreg1, vreg0, preg0, castTrait0)
        R.DataCopy(vreg2, bufferIn1Addr[i * step], dist=R.LoadDist.DIST_UNPACK_B16)
        R.Cast(vreg3, vreg2, preg0, castTrait0)
        R.Muls(vreg1, vreg1, inputX3Value, preg0, ZEROING)
        R.Add(vreg4, vreg1, vreg3, preg0, ZEROING)
        R.Cast(vreg5, vreg4, preg0, castTrait1)
        R.DataCopy(bufferOut0Addr[i * step], vreg5, preg0, dist=R.StoreDist.DIST_PACK_B32)


FUSED_MUL_ADD_N_VF = R.simd_vf(fused_mul_add_n_vf)
FUSED_MUL_ADD_N_HALF_VF = R.simd_vf(fused_mul_add_n_half_vf)


class FusedMulAddN:
    """`FusedMulAddN<T>` and `FusedMulAddNHalf<T>`: one class over T, as the two differ only in x3's type and the
    VF."""

    def __init__(self, T, zero_tail=True):
        self.T, self.zero_tail = T, zero_tail
        self.half = T in HALF_CLASS

    def Init(self, inputX1, inputX2, inputX3, outputY, workspace, tilingDataPtr, pipePtr):
        T = self.T
        self.pipePtr_, self.tilingDataPtr_ = pipePtr, tilingDataPtr
        self.inputGmInputX1_, self.inputGmInputX2_ = aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGmInputX3_, self.outputGmOutputY_ = aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGmInputX1_.SetGlobalBuffer(inputX1)
        self.inputGmInputX2_.SetGlobalBuffer(inputX2)
        self.inputGmInputX3_.SetGlobalBuffer(inputX3, 1)
        x3 = self.inputGmInputX3_.GetValue(0)
        self.inputX3Value_ = np.float32(x3) if self.half else _NP[T](x3)     # static_cast<float> / <T>
        self.outputGmOutputY_.SetGlobalBuffer(outputY)
        DOUBLE_BUFFER = 2
        BUFFER_SIZE_0 = int(tilingDataPtr.elemNum) * TYPE_SIZE[T]
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

    def CopyIn(self, que, gm, i0Extent, ubLoopIdx):
        T = self.T
        buffer = que.AllocTensor(T)
        loaded = aj.CeilDivision(i0Extent, lanes(T)) * lanes(T)
        copied = aj.AlignUp(i0Extent * TYPE_SIZE[T], 32) // TYPE_SIZE[T]
        if self.zero_tail and loaded > copied:
            # deviation (3): the last vector's lanes past the copy; past the copy's bytes, so no ordering against it,
            # and the VF follows on the vector pipe
            aj.Duplicate(buffer[copied], _NP[T](0), loaded - copied)
        dataCopyExtParams = aj.DataCopyExtParams()
        dataCopyPadExtParams = aj.DataCopyPadExtParams()
        dataCopyExtParams.blockCount = 1
        dataCopyExtParams.blockLen = i0Extent * TYPE_SIZE[T]
        aj.DataCopyPad(buffer[0], gm[self.GmOffset(ubLoopIdx)], dataCopyExtParams, dataCopyPadExtParams)
        que.EnQue(T, buffer)

    def CopyIn0(self, i0Extent, ubLoopIdx):
        self.CopyIn(self.queIn0_, self.inputGmInputX1_, i0Extent, ubLoopIdx)

    def CopyIn1(self, i0Extent, ubLoopIdx):
        self.CopyIn(self.queIn1_, self.inputGmInputX2_, i0Extent, ubLoopIdx)

    def Compute2(self, i0Extent, ubLoopIdx):
        T = self.T
        self.bufferIn0_ = self.queIn0_.DeQue(T)
        self.bufferIn1_ = self.queIn1_.DeQue(T)
        self.bufferOut0_ = self.queOut0_.AllocTensor(T)
        if self.half:
            R.asc_vf_call(FUSED_MUL_ADD_N_HALF_VF, self.bufferOut0_, self.bufferIn0_, self.bufferIn1_,
                          self.inputX3Value_, i0Extent, T)
        else:
            R.asc_vf_call(FUSED_MUL_ADD_N_VF, self.bufferOut0_, self.bufferIn0_, self.bufferIn1_, self.inputX3Value_,
                          i0Extent, T, TYPE_SIZE[T] == 4)
        self.queIn0_.FreeTensor(self.bufferIn0_)
        self.queIn1_.FreeTensor(self.bufferIn1_)
        self.queOut0_.EnQue(T, self.bufferOut0_)

    def CopyOut3(self, i0Extent, ubLoopIdx):
        T = self.T
        self.bufferOut0_ = self.queOut0_.DeQue(T)
        dataCopyExtParams = aj.DataCopyExtParams()
        dataCopyExtParams.blockCount = 1
        dataCopyExtParams.blockLen = i0Extent * TYPE_SIZE[T]
        aj.DataCopyPad(self.outputGmOutputY_[self.GmOffset(ubLoopIdx)], self.bufferOut0_[0], dataCopyExtParams)
        self.queOut0_.FreeTensor(self.bufferOut0_)


aj.REGISTER_TILING_DEFAULT(FusedMulAddNTilingData)


def fused_mul_add_n(inputX1, inputX2, inputX3, outputY, workspace, tiling_bytes, DTYPE, zero_tail=True):
    """The kernel entry (fused_mul_add_n_apt.cpp); DTYPE stands for the tiling key's class."""
    tilingData = aj.GET_TILING_DATA(tiling_bytes)
    tPipe = aj.TPipe()
    op = FusedMulAddN(DTYPE, zero_tail)
    op.Init(inputX1, inputX2, inputX3, outputY, workspace, tilingData, tPipe)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if dtype in ("int32", "int16"):
            info = np.iinfo(_NP[dtype])
            x1 = rng.integers(info.min, info.max, size, endpoint=True).astype(_NP[dtype])   # products wrap
            x2 = rng.integers(info.min, info.max, size, endpoint=True).astype(_NP[dtype])
            x3 = np.array([-7], _NP[dtype])
        else:
            x1 = rng.uniform(-10, 10, size).astype(np.float32).astype(_NP[dtype])
            x2 = rng.uniform(-10, 10, size).astype(np.float32).astype(_NP[dtype])
            x3 = np.array([1.3], np.float32).astype(_NP[dtype])
        return {"x1": x1, "x2": x2, "x3": x3}
    return make_inputs


def run_fused_mul_add_n(device, x1, x2, x3, zero_tail=True):
    dtype = {np.dtype(v): k for k, v in _NP.items()}[x1.dtype]
    y = np.zeros_like(x1)
    block_dim, tiling_bytes = tiling(device, x1.size, dtype)
    x3_gm = np.zeros(32 // x1.itemsize, x1.dtype)
    x3_gm[0] = x3[0]
    workspace = np.zeros(32, np.uint8)            # WORKSPACE_SIZE
    aj.launch(fused_mul_add_n, block_dim, device, x1, x2, x3_gm, y, workspace, tiling_bytes, dtype, zero_tail)
    return y


def fused_mul_add_n_model(x1, x2, x3):
    if x1.dtype.kind == "i":
        wide = x1.astype(np.int64) * np.int64(x3[0])
        prod = wide.astype(x1.dtype)                                    # the low bits: wrapping
        return (prod.astype(np.int64) + x2.astype(np.int64)).astype(x1.dtype)
    f1, f2, f3 = x1.astype(np.float32), x2.astype(np.float32), np.float32(x3[0])
    return (f1 * f3 + f2).astype(x1.dtype)


def _run(dtype):
    def run(device, inputs):
        return {"y": run_fused_mul_add_n(device, inputs["x1"], inputs["x2"], inputs["x3"])}
    return run


def _expected(dtype):
    def expected(device, inputs):
        return {"y": fused_mul_add_n_model(inputs["x1"], inputs["x2"], inputs["x3"])}
    return expected


_SOURCE = "hicann/ops-math@c4193324 math/fused_mul_add_n/op_kernel/arch35/fused_mul_add_n.h"
KERNELS = [
    KernelSpec(f"fused_mul_add_n{suffix}", description, _make_inputs(dtype), _run(dtype), _expected(dtype),
               default_size=size, devices=("ascend950",), size_rule="1 to 16Mi elements",
               size_ok=lambda n: 0 < n <= 1 << 24, source=_SOURCE if dtype not in HALF_CLASS else
               _SOURCE.replace(".h", "_half.h"))
    for suffix, dtype, size, description in (
        ("", "float", 100003, "FusedMulAddN over floats, 950 arch35: x3 by GlobalTensor GetValue, a VF of DataCopy "
         "DIST_NORM loads, Muls by x3, Add, DataCopy DIST_NORM_B32 under UpdateMask; former/tail blocks"),
        ("_int32", "int32", 50001, "FusedMulAddN over int32 (wrapping Muls and Add in the VF)"),
        ("_int16", "int16", 70001, "FusedMulAddN over int16 (128 lanes a step; stored with DIST_NORM, deviation 2)"),
        ("_half", "half", 60001, "FusedMulAddNHalf over halves: DIST_UNPACK_B16, Cast to float, Muls, Add, Cast "
         "CAST_RINT, DIST_PACK_B32"),
        ("_bf16", "bfloat16", 30001, "FusedMulAddNHalf over bfloat16 (as the half kernel)"))
]
