"""Sigmoid from the CANN NN operators, the Ascend 950 (arch35) kernels: y = 1 / (1 + exp(-x)) over float, half and
bfloat16, each computed in float lanes of one Reg-API VF a tile.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/activation/sigmoid:
- op_kernel/sigmoid_apt.cpp (the entry: AIV only, GET_TILING_DATA, a caller-made TPipe, one class per tiling key);
- op_kernel/arch35/sigmoid_f32.h, sigmoid_f16.h, sigmoid_bf16.h (`SigmoidF32`, `SigmoidF16`, `SigmoidBf16`): the
  GlobalTensors over the whole tensors, depth-2 VECIN and VECOUT queues of elemNum elements; per UB loop a
  DataCopyPad in with DataCopyExtParams and default DataCopyPadExtParams at blockFormer * GetBlockIdx() +
  ubLoopIdx * ubFormer, the VF, DataCopyPad out; the last block (GetBlockIdx() == GetBlockNum() - 1) takes
  ubLoopOfTailBlock / ubTailOfTailBlock. The VF (__VEC_SCOPE__): CreateMask<float>() and Duplicate 1.0f (ZEROING)
  into vreg0; per 64 float lanes UpdateMask<float>, a load (float: `MicroAPI::DataCopy<float, DIST_NORM>`; 16-bit:
  `DataCopy<T, DIST_UNPACK_B16>` and Cast to float with (ZERO, UNKNOWN, ZEROING, UNKNOWN)), Muls -1, Exp, Adds 1,
  Div(vreg0, .), then (16-bit) Cast back with (ZERO, NO_SAT, ZEROING, CAST_RINT) and a store (float:
  `DataCopy<float, DIST_NORM_B32>`; 16-bit: `DataCopy<T, DIST_PACK_B32>`), all under the UpdateMask mask;
- op_host/arch35/sigmoid_tiling_arch35.cpp and .h (the TilingData fields; GetComputeMap: bufferDivisor 128 bits an
  element for float, 64 for the 16-bit types, i.e. four buffers of the type; the split itself is the shared
  atvoss ElewiseTiling, which the repository does not hold).

Deviations: the core count is the launch's 8 (GetCoreNumAiv would give the device's); the split is written here
(`tiling`): elemNum = ubFormer = the UB's bits over bufferDivisor rounded down to whole 64-element vectors, cores of
at least 4 KB, blockFormer the per-core share rounded up to whole vectors (ElewiseTiling's own rounding is not
public: the kernel reads only the fields, so any split of whole vectors runs the same instruction sequence).

Deviation at a short tile only (as kernels/relu6_d.py): the VF loads whole vectors (256 bytes; 128 for the 16-bit
unpacking load), so a tile whose length is no multiple of 64 is read past the DataCopyPad's 32-byte blocks, inside
the queue buffer (elemNum is whole vectors). A buffer's first use holds bytes nothing wrote there: harmless on the
device (UpdateMask keeps those lanes out of the compute and the store), an uninitialised read for the sanitizer
before session 54 and clean with the lane tracking. The port zeroes those elements by a Duplicate before the copy-in
(kept from before, no longer needed for the init check); the stored lanes are the original's.

Fidelity: MODELLED (Reg Exp and Div, SPEC-2 0.3, D37, D38: the exact result rounded once, DAZ/FTZ). Against a
float64 sigmoid each element passes through an exact negation, Exp, an addition and a division, each rounded once
to float32 (the inputs keep every intermediate normal): within 4e-7 relative for float; the 16-bit types add
one rounding to half (2**-11) or bfloat16 (2**-8), which a float error may tip across a midpoint: 1.1e-3 and 8e-3.
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
BUFFER_DIVISOR = {"float": 128, "half": 64, "bfloat16": 64}     # GetComputeMap: bits an element over the buffers
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}

SigmoidTilingData = np.dtype([("dim0", np.int64), ("blockFormer", np.int64), ("ubFormer", np.int64),
                              ("ubLoopOfFormerBlock", np.int64), ("ubLoopOfTailBlock", np.int64),
                              ("ubTailOfFormerBlock", np.int64), ("ubTailOfTailBlock", np.int64),
                              ("elemNum", np.int64)])


def tiling(device, dim0, dtype):
    """(block dim, the packed SigmoidTilingData): DoOpTiling's fields, the split as the docstring says."""
    t = np.zeros(1, SigmoidTilingData)
    elem_num = aj.get_device(device).ub_bytes * 8 // BUFFER_DIVISOR[dtype] // FLOAT_LANES * FLOAT_LANES
    cores = max(1, min(CORE_NUM, dim0 * TYPE_SIZE[dtype] // MIN_BYTES_PER_CORE))
    block_former = -(-(-(-dim0 // cores)) // FLOAT_LANES) * FLOAT_LANES
    block_num = -(-dim0 // block_former)
    block_tail = dim0 - (block_num - 1) * block_former
    loop_former, loop_tail = -(-block_former // elem_num), -(-block_tail // elem_num)
    t["dim0"], t["blockFormer"], t["ubFormer"], t["elemNum"] = dim0, block_former, elem_num, elem_num
    t["ubLoopOfFormerBlock"], t["ubTailOfFormerBlock"] = loop_former, block_former - (loop_former - 1) * elem_num
    t["ubLoopOfTailBlock"], t["ubTailOfTailBlock"] = loop_tail, block_tail - (loop_tail - 1) * elem_num
    return block_num, t.view(np.uint8).copy()


def sigmoid_vf(outAddr, inAddr, i0Extent, T):
    """Compute1's __VEC_SCOPE__: 1 / (1 + exp(-x)) in float lanes, 64 a step."""
    widen = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, ZEROING, aj.RoundMode.UNKNOWN)
    narrow = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, ZEROING, aj.RoundMode.CAST_RINT)
    vreg0, vreg2, vreg3 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    vreg4, vreg5, vreg6 = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    vreg1, vreg7 = R.RegTensor(T), R.RegTensor(T)
    size = i0Extent
    preg0 = R.CreateMask("float")
    R.Duplicate(vreg0, np.float32(1.0), preg0, ZEROING)
    vfLoopNum = (i0Extent + FLOAT_LANES - 1) // FLOAT_LANES
    for i in range(vfLoopNum):
        preg0, size = R.UpdateMask("float", size)
        if T == "float":
            R.DataCopy(vreg2, inAddr[i * FLOAT_LANES], dist=R.LoadDist.DIST_NORM)
        else:
            R.DataCopy(vreg1, inAddr[i * FLOAT_LANES], dist=R.LoadDist.DIST_UNPACK_B16)
            R.Cast(vreg2, vreg1, preg0, widen)
        R.Muls(vreg3, vreg2, np.float32(-1.0), preg0, ZEROING)
        R.Exp(vreg4, vreg3, preg0, ZEROING)
        R.Adds(vreg5, vreg4, np.float32(1.0), preg0, ZEROING)
        R.Div(vreg6, vreg0, vreg5, preg0, ZEROING)
        if T == "float":
            R.DataCopy(outAddr[i * FLOAT_LANES], vreg6, preg0, dist=R.StoreDist.DIST_NORM_B32)
        else:
            R.Cast(vreg7, vreg6, preg0, narrow)
            R.DataCopy(outAddr[i * FLOAT_LANES], vreg7, preg0, dist=R.StoreDist.DIST_PACK_B32)


SIGMOID_VF = R.simd_vf(sigmoid_vf)


class Sigmoid:
    """SigmoidF32 / SigmoidF16 / SigmoidBf16: one class over T, as the three differ only in T and the VF's
    load, cast and store."""

    def __init__(self, T):
        self.T = T

    def Init(self, x, y, workspace, tilingDataPtr, pipePtr):
        self.pipePtr_, self.tilingDataPtr_ = pipePtr, tilingDataPtr
        self.inputGmX_, self.outputGmY_ = aj.GlobalTensor(), aj.GlobalTensor()
        self.inputGmX_.SetGlobalBuffer(x)
        self.outputGmY_.SetGlobalBuffer(y)
        DOUBLE_BUFFER = 2
        BUFFER_SIZE_0 = int(tilingDataPtr.elemNum) * TYPE_SIZE[self.T]
        self.queIn0_ = aj.TQue(aj.QuePosition.VECIN, 1)
        self.queOut0_ = aj.TQue(aj.QuePosition.VECOUT, 1)
        self.pipePtr_.InitBuffer(self.queIn0_, DOUBLE_BUFFER, BUFFER_SIZE_0)
        self.pipePtr_.InitBuffer(self.queOut0_, DOUBLE_BUFFER, BUFFER_SIZE_0)

    def Process(self):
        t = self.tilingDataPtr_
        last = aj.GetBlockIdx() == aj.GetBlockNum() - 1
        ubLoopNum = int(t.ubLoopOfTailBlock if last else t.ubLoopOfFormerBlock)
        tailExtent = int(t.ubTailOfTailBlock if last else t.ubTailOfFormerBlock)
        for ubLoopIdx in range(ubLoopNum):
            i0Extent = tailExtent if ubLoopIdx == ubLoopNum - 1 else int(t.ubFormer)
            self.CopyIn0(i0Extent, ubLoopIdx)
            self.Compute1(i0Extent, ubLoopIdx)
            self.CopyOut2(i0Extent, ubLoopIdx)

    def GmOffset(self, ubLoopIdx):
        t = self.tilingDataPtr_
        return int(t.blockFormer) * aj.GetBlockIdx() + ubLoopIdx * int(t.ubFormer)

    def CopyIn0(self, i0Extent, ubLoopIdx):
        T = self.T
        self.bufferIn0_ = self.queIn0_.AllocTensor(T)
        loaded = aj.CeilDivision(i0Extent, FLOAT_LANES) * FLOAT_LANES
        copied = aj.AlignUp(i0Extent * TYPE_SIZE[T], 32) // TYPE_SIZE[T]
        if loaded > copied:
            # not in the original: the last vector's lanes past the copy (docstring); past the copy's bytes, so no
            # ordering against it, and the VF follows on the vector pipe
            aj.Duplicate(self.bufferIn0_[copied], _NP[T](0), loaded - copied)
        dataCopyExtParams = aj.DataCopyExtParams()
        dataCopyPadExtParams = aj.DataCopyPadExtParams()   # DataCopyPadExtParams<T>: its defaults
        dataCopyExtParams.blockCount = 1
        dataCopyExtParams.blockLen = i0Extent * TYPE_SIZE[T]
        aj.DataCopyPad(self.bufferIn0_[0], self.inputGmX_[self.GmOffset(ubLoopIdx)], dataCopyExtParams,
                       dataCopyPadExtParams)
        self.queIn0_.EnQue(T, self.bufferIn0_)

    def Compute1(self, i0Extent, ubLoopIdx):
        T = self.T
        self.bufferIn0_ = self.queIn0_.DeQue(T)
        self.bufferOut0_ = self.queOut0_.AllocTensor(T)
        aj.Reg.asc_vf_call(SIGMOID_VF, self.bufferOut0_, self.bufferIn0_, i0Extent, T)
        self.queIn0_.FreeTensor(self.bufferIn0_)
        self.queOut0_.EnQue(T, self.bufferOut0_)

    def CopyOut2(self, i0Extent, ubLoopIdx):
        T = self.T
        self.bufferOut0_ = self.queOut0_.DeQue(T)
        dataCopyExtParams = aj.DataCopyExtParams()
        dataCopyExtParams.blockCount = 1
        dataCopyExtParams.blockLen = i0Extent * TYPE_SIZE[T]
        aj.DataCopyPad(self.outputGmY_[self.GmOffset(ubLoopIdx)], self.bufferOut0_[0], dataCopyExtParams)
        self.queOut0_.FreeTensor(self.bufferOut0_)


# the host's REGISTER_TILING_DATA_CLASS(Sigmoid, SigmoidTilingData): the struct GET_TILING_DATA reads
aj.REGISTER_TILING_DEFAULT(SigmoidTilingData)


def sigmoid(x, y, workspace, tiling_bytes, DTYPE_X):
    """The kernel entry (sigmoid_apt.cpp); DTYPE_X stands for the tiling key's class."""
    tilingData = aj.GET_TILING_DATA(tiling_bytes)
    tPipe = aj.TPipe()
    op = Sigmoid(DTYPE_X)
    op.Init(x, y, workspace, tilingData, tPipe)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        bound = 30.0 if dtype == "float" else 8.0       # every intermediate and result a normal number
        x = rng.uniform(-bound, bound, size).astype(np.float32)
        specials = np.array([0.0, -0.0, 1.0, -1.0, bound, -bound, 1e-3, -1e-3], np.float32)
        x[:min(size, specials.size)] = specials[:size]
        return {"x": x.astype(_NP[dtype])}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        y = np.zeros_like(x)
        block_dim, tiling_bytes = tiling(device, x.size, dtype)
        workspace = np.zeros(32, np.uint8)            # WORKSPACE_SIZE
        aj.launch(sigmoid, block_dim, device, x, y, workspace, tiling_bytes, dtype)
        return {"y": y}
    return run


def _expected(dtype):
    def expected(device, inputs):
        x = inputs["x"].astype(np.float64)
        return {"y": (1.0 / (1.0 + np.exp(-x))).astype(_NP[dtype])}
    return expected


def _size_ok(n):
    return 0 < n <= 1 << 24


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/sigmoid/op_kernel/arch35/sigmoid_f32.h"
KERNELS = [
    KernelSpec("sigmoid_regbase", "ops-nn Sigmoid over floats, 950 arch35: a VF of DataCopy DIST_NORM, Muls -1, Exp, "
               "Adds 1, Div of a Duplicated 1, DataCopy DIST_NORM_B32 under UpdateMask; former/tail blocks, "
               "double-buffered DataCopyPad tiles", _make_inputs("float"), _run("float"), _expected("float"),
               default_size=100000, devices=("ascend950",), size_rule="1 to 16Mi elements", size_ok=_size_ok,
               tolerance=4e-7, source=_SOURCE),
    KernelSpec("sigmoid_regbase_half", "ops-nn Sigmoid over halves in float lanes: DIST_UNPACK_B16, Cast, ..., Cast "
               "CAST_RINT, DIST_PACK_B32", _make_inputs("half"), _run("half"), _expected("half"),
               default_size=100000, devices=("ascend950",), size_rule="1 to 16Mi elements", size_ok=_size_ok,
               tolerance=1.1e-3, source=_SOURCE.replace("f32", "f16")),
    KernelSpec("sigmoid_regbase_bf16", "ops-nn Sigmoid over bfloat16 in float lanes (as the half kernel)",
               _make_inputs("bfloat16"), _run("bfloat16"), _expected("bfloat16"), default_size=100000,
               devices=("ascend950",), size_rule="1 to 16Mi elements", size_ok=_size_ok, tolerance=8e-3,
               source=_SOURCE.replace("f32", "bf16")),
]
