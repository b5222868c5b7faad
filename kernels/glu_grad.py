"""GluGrad from the CANN NN operators, the Ascend 950 (arch35) small-shape kernel: the gradient of
GLU(self) = a * sigmoid(b), self = [a | b] split in halves along a dim: out = [grad * sig(b) | grad * sig(b) *
(1 - sig(b)) * a], over float, half and bfloat16 (16-bit types in float lanes, even and odd lanes apart).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, activation/glu_grad:
- op_kernel/glu_grad.cpp (the entry: a null workspace returns, GetUserWorkspace, GET_TILING_DATA, the SHAPE_MODE
  template picks GluGradSmallShape or GluGradBigShape);
- op_kernel/arch35/glu_grad_small_shape.h (`GluGradSmallShape<T>`): Init (cores past realCoreNum return; per core
  numPerCore rows from blockIdx * numPerCore; rows padded to DataBlocks when splitSize is not whole blocks; five
  depth-1 queues of two buffers each of the largest chunk), Process (ProcessPerCore / ProcessLastCore: loopNum
  chunks of `group` rows and a tail chunk), CopyIn (DataCopy with DataCopyParams {group, splitSize / blockSize,
  srcStride the other half, 0} for a and b, srcStride 0 for grad; unaligned rows: DataCopyPad with DataCopyParams
  in bytes and DataCopyPadParams {true, 0, to the block, paddingValue 1}), ComputeGluGrad and CopyOut (DataCopy or
  DataCopyPad with dstStride the other half);
- op_kernel/arch35/glu_grad_common.h (`ComputeGluGradImpl`'s __VEC_SCOPE__: CreateMask<T>, Duplicate 1.0f into
  a float register, CreateMask<uint8_t, ALL>; per VL of T UpdateMask<T>, three `MicroAPI::DataCopy` loads and
  `ComputeGluGradCore`: float computes Muls -1, Exp, Adds 1, Div of the 1s by `DivSpecificMode{ZEROING, true}`,
  Mul (grad A), Sub from 1, Mul, Mul by a, Mul by grad (grad B), DataCopy stores under the UpdateMask mask; half and
  bfloat16 Cast to float with layout ZERO (even lanes), compute, Cast back with layout ZERO and CAST_RINT, then the
  same with layout ONE (odd lanes), and Add<T> of the two halves, which is exact because each narrowing Cast writes
  0 to the other lanes (SPEC-2 D65));
- op_host/glu_grad_tiling.cpp, glu_grad_tiling_common.h and glu_grad_tiling.h (x rows before the split dim, ny =
  n * y elements of each half; commonBufferSize = (UB - 8 KB) / (factor * 4) with factor 10 (float) or 14 (16-bit,
  twice the elements); `GetTilingDataSmall`: group = bufSize / ny (or the block-aligned ny), numPerCore =
  CeilDiv(x, cores), realCoreNum = CeilDiv(x, numPerCore), the loops and tails; block dim realCoreNum).

Deviations: the core count is the launch's 8 (the compile info's totalCoreNum). The entry's
KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_VECTOR_CORE) is left out: the devkit page (设置Kernel类型.md, kernel type
constraints) lists it for the Atlas inference products only, not the 950, and ascend_jit refuses it there. The UB is
the emulator's 248 KiB (its 8 KB reservation already out, D70), from which the host takes 8 KB again. Only the
small-shape path (ny <= commonBufferSize, the size rule keeps to it); GluGradBigShape is not ported. The three Casts
to float carry SatMode NO_SAT in the original, which ascend_jit refuses for half / bfloat16 -> float (SPEC-2 11.5;
the devkit's 950 CastImpl never reads satMode for these pairs): the port passes UNKNOWN, the same bits
(tests/test_port39r_kernels.py pins the refusal). The Div mode `{ZEROING, true}` is written with its default algo
(INTRINSIC) spelled out: `R.DivSpecificMode(ZEROING, True)` made inside a VF does not compile (the VF would run as
plain Python; the test file pins it). Buffer sizes: the VF loads whole vectors (256 bytes), so the last vector of a
chunk reads past the chunk's elements and, when the buffer is no multiple of 256 bytes, past the buffer; the port
rounds each buffer up to 256 bytes and zeroes the elements past the chunk by a Duplicate before the copy-in (lanes
the UpdateMask keeps out of the Add and the stores; harmless on the device, out-of-tensor reads for the sanitizer,
and uninitialised ones before session 54: the zeroing is kept from before, no longer needed for the init check).

Fidelity: MODELLED (Exp: the exact result rounded once; the Div is DivPrecisionImpl, RN). The expectation is the
float64 formula: float within 6e-6 relative (1 - sig(b) loses bits to cancellation: b is drawn from [-4, 4], where
1 - sig(b) >= 0.018 turns sig's 1.5-ulp error into 5e-6),
half within 1.1e-3, bfloat16 within 8e-3 (one rounding to the type, which a float error may tip).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
ZEROING = R.MaskMergeMode.ZEROING
CORE_NUM = 8                               # deviation: the launch's cores (totalCoreNum in the original)
RESERVED_SIZE_8K = 8 * 1024
BUFFER_SIZE_FACTOR, BUFFER_SIZE_FACTOR_LOW_PREC = 10, 14
BLOCK_SIZE = {"float": 8, "half": 16, "bfloat16": 16}
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
NUM_ONE, BUFFER_NUM, BLOCK_BYTES = 1, 2, 32
TPL_SMALL_SHAPE, TPL_BIG_SHAPE = 0, 1
VREG_BYTES = 256

GluGradTilingData = np.dtype([(f, np.int64) for f in ("group", "loopNum", "tailLoopNum", "nLastTailGroup",
                                                      "lastTailGroup", "splitSize", "realCoreNum", "numPerCore",
                                                      "blockSize", "ny")])


def common_buffer_size(device, dtype):
    ub = aj.get_device(device).ub_bytes - RESERVED_SIZE_8K
    factor = BUFFER_SIZE_FACTOR if dtype == "float" else BUFFER_SIZE_FACTOR_LOW_PREC
    size = ub // (factor * 4)
    return size if dtype == "float" else size * (BLOCK_SIZE[dtype] // BLOCK_SIZE["float"])


def tiling(device, x, ny, dtype):
    """Tiling4GluGrad / RunCommonTiling, small shapes: (block dim, shape mode, the packed GluGradTilingData)."""
    block = BLOCK_SIZE[dtype]
    buf = common_buffer_size(device, dtype)
    if ny > buf:
        raise aj.ParameterError("glu_grad tiling", "ny", ny, legal=f"at most {buf} (the big-shape path is not ported)",
                                device=device)
    t = np.zeros(1, GluGradTilingData)
    align = ny if ny % block == 0 else -(-ny // block) * block
    group = buf // align
    num_per_core = -(-x // CORE_NUM)
    real = -(-x // num_per_core)
    t["splitSize"], t["group"], t["numPerCore"], t["realCoreNum"] = ny, group, num_per_core, real
    t["loopNum"], t["nLastTailGroup"] = num_per_core // group, num_per_core % group
    if num_per_core * real != x:
        tail = x - num_per_core * (real - 1)
        t["tailLoopNum"], t["lastTailGroup"] = tail // group, tail % group
    t["blockSize"], t["ny"] = block, ny
    return real, TPL_SMALL_SHAPE, t.view(np.uint8).copy()


def glu_grad_vf(aLocalPtr, bLocalPtr, gradLocalPtr, outALocalPtr, outBLocalPtr, count, T):
    """ComputeGluGradImpl's __VEC_SCOPE__ with ComputeGluGradCore inlined per T."""
    # {ZEROING, true} with the default algo spelled out: the two-field form does not compile in a VF (docstring)
    highPrecisionDivMode = R.DivSpecificMode(ZEROING, True, aj.DivAlgo.INTRINSIC)
    # deviation: UNKNOWN for the original's NO_SAT (docstring)
    castToFloatEven = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, ZEROING, aj.RoundMode.UNKNOWN)
    castToFloatOdd = R.CastTrait(R.RegLayout.ONE, R.SatMode.UNKNOWN, ZEROING, aj.RoundMode.UNKNOWN)
    castFromFloatEven = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, ZEROING, aj.RoundMode.CAST_RINT)
    castFromFloatOdd = R.CastTrait(R.RegLayout.ONE, R.SatMode.NO_SAT, ZEROING, aj.RoundMode.CAST_RINT)
    vl = R.GetVecLen() // (4 if T == "float" else 2)
    loopNum = R.CeilDivision(count, vl)
    vregOne = R.RegTensor("float")
    vregA, vregB, vregGrad = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    vregOutputA, vregOutputB = R.RegTensor(T), R.RegTensor(T)
    vregSigmoidB, vregGradA, vregTemp = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    vregSub, vregGradB = R.RegTensor("float"), R.RegTensor("float")
    vregAF, vregBF, vregGradF = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    vregOutAT, vregOutBT = R.RegTensor(T), R.RegTensor(T)
    size = count
    preg0 = R.CreateMask(T)
    R.Duplicate(vregOne, np.float32(1.0), preg0, ZEROING)
    maskAll8 = R.CreateMask("uint8", R.MaskPattern.ALL)
    for loopIdx in range(loopNum):
        preg0, size = R.UpdateMask(T, size)
        R.DataCopy(vregA, aLocalPtr[loopIdx * vl])
        R.DataCopy(vregB, bLocalPtr[loopIdx * vl])
        R.DataCopy(vregGrad, gradLocalPtr[loopIdx * vl])
        if T == "float":
            R.Muls(vregTemp, vregB, np.float32(-1.0), preg0, ZEROING)
            R.Exp(vregSub, vregTemp, preg0, ZEROING)
            R.Adds(vregTemp, vregSub, np.float32(1.0), preg0, ZEROING)
            R.Div(vregSigmoidB, vregOne, vregTemp, preg0, highPrecisionDivMode)
            R.Mul(vregGradA, vregGrad, vregSigmoidB, preg0, ZEROING)
            R.Sub(vregTemp, vregOne, vregSigmoidB, preg0, ZEROING)
            R.Mul(vregTemp, vregTemp, vregSigmoidB, preg0, ZEROING)
            R.Mul(vregTemp, vregTemp, vregA, preg0, ZEROING)
            R.Mul(vregGradB, vregTemp, vregGrad, preg0, ZEROING)
            R.DataCopy(outALocalPtr[loopIdx * vl], vregGradA, preg0)
            R.DataCopy(outBLocalPtr[loopIdx * vl], vregGradB, preg0)
        else:
            for odd in range(2):
                to_float = castToFloatOdd if odd else castToFloatEven
                R.Cast(vregAF, vregA, maskAll8, to_float)
                R.Cast(vregBF, vregB, maskAll8, to_float)
                R.Cast(vregGradF, vregGrad, maskAll8, to_float)
                R.Muls(vregTemp, vregBF, np.float32(-1.0), preg0, ZEROING)
                R.Exp(vregSub, vregTemp, preg0, ZEROING)
                R.Adds(vregTemp, vregSub, np.float32(1.0), preg0, ZEROING)
                R.Div(vregSigmoidB, vregOne, vregTemp, preg0, highPrecisionDivMode)
                R.Mul(vregGradA, vregGradF, vregSigmoidB, preg0, ZEROING)
                R.Sub(vregTemp, vregOne, vregSigmoidB, preg0, ZEROING)
                R.Mul(vregTemp, vregTemp, vregSigmoidB, preg0, ZEROING)
                R.Mul(vregTemp, vregTemp, vregAF, preg0, ZEROING)
                R.Mul(vregGradB, vregTemp, vregGradF, preg0, ZEROING)
                if odd:
                    R.Cast(vregOutAT, vregGradA, maskAll8, castFromFloatOdd)
                    R.Cast(vregOutBT, vregGradB, maskAll8, castFromFloatOdd)
                else:
                    R.Cast(vregOutputA, vregGradA, maskAll8, castFromFloatEven)
                    R.Cast(vregOutputB, vregGradB, maskAll8, castFromFloatEven)
            R.Add(vregOutputA, vregOutputA, vregOutAT, preg0, ZEROING)
            R.Add(vregOutputB, vregOutputB, vregOutBT, preg0, ZEROING)
            R.DataCopy(outALocalPtr[loopIdx * vl], vregOutputA, preg0)
            R.DataCopy(outBLocalPtr[loopIdx * vl], vregOutputB, preg0)


GLU_GRAD_VF = R.simd_vf(glu_grad_vf)


class GluGradSmallShape:
    """GluGradSmallShape<T>."""

    def __init__(self, T, vf=GLU_GRAD_VF):
        self.T, self.vf = T, vf

    def Init(self, gradOut, self_, out, workspace, tilingData):
        T = self.T
        self.blockIdx = aj.GetBlockIdx()
        if self.blockIdx >= int(tilingData.realCoreNum):
            return
        t = tilingData
        self.splitSize, self.blockSize, self.group = int(t.splitSize), int(t.blockSize), int(t.group)
        self.realCoreNum, self.loopNum, self.tailLoopNum = int(t.realCoreNum), int(t.loopNum), int(t.tailLoopNum)
        self.nLastTailGroup, self.lastTailGroup = int(t.nLastTailGroup), int(t.lastTailGroup)
        self.gmSelfOffset = self.blockIdx * int(t.numPerCore) * self.splitSize * 2
        self.gmGradOffset = self.blockIdx * int(t.numPerCore) * self.splitSize
        self.gmOutOffset = self.blockIdx * int(t.numPerCore) * self.splitSize * 2
        self.gradOutGm, self.selfGm, self.outGm = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.gradOutGm.SetGlobalBuffer(gradOut)
        self.selfGm.SetGlobalBuffer(self_)
        self.outGm.SetGlobalBuffer(out)
        if self.splitSize % self.blockSize == 0:
            row = self.splitSize
        else:
            row = (self.splitSize + self.blockSize - 1) // self.blockSize * self.blockSize
        self.group_ub_num = self.group * row
        self.nlast_tail_ub_num = self.nLastTailGroup * row
        self.last_tail_ub_num = self.lastTailGroup * row
        self.self_stride = self.group * self.splitSize * 2
        self.grad_stride = self.group * self.splitSize
        size = TYPE_SIZE[T]
        bufLenPerBuf = max(self.group_ub_num, self.nlast_tail_ub_num, self.last_tail_ub_num) * size
        bufLenPerBuf = aj.AlignUp(bufLenPerBuf, VREG_BYTES)           # deviation: whole vectors (docstring)
        self.bufElems = bufLenPerBuf // size
        self.isLastCore = self.blockIdx == self.realCoreNum - 1 and (self.tailLoopNum != 0 or self.lastTailGroup != 0)
        self.pipe = aj.TPipe()
        self.inQueueA, self.inQueueB = aj.TQue(aj.QuePosition.VECIN, NUM_ONE), aj.TQue(aj.QuePosition.VECIN, NUM_ONE)
        self.inQueueGrad = aj.TQue(aj.QuePosition.VECIN, NUM_ONE)
        self.outQueueA, self.outQueueB = aj.TQue(aj.QuePosition.VECOUT, NUM_ONE), aj.TQue(aj.QuePosition.VECOUT,
                                                                                          NUM_ONE)
        for q in (self.inQueueA, self.inQueueB, self.inQueueGrad, self.outQueueA, self.outQueueB):
            self.pipe.InitBuffer(q, BUFFER_NUM, bufLenPerBuf)

    def Process(self):
        if self.blockIdx >= self.realCoreNum:
            return
        if self.isLastCore:
            self.ProcessLastCore()
        else:
            self.ProcessPerCore()

    def ProcessPerCore(self):
        for idx in range(self.loopNum):
            self.CopyIn(idx, self.group)
            self.ComputeGluGrad(self.group_ub_num)
            self.CopyOut(idx, self.group_ub_num, self.group)
        if self.nLastTailGroup > 0:
            self.CopyIn(self.loopNum, self.nLastTailGroup)
            self.ComputeGluGrad(self.nlast_tail_ub_num)
            self.CopyOut(self.loopNum, self.nlast_tail_ub_num, self.nLastTailGroup)

    def ProcessLastCore(self):
        for idx in range(self.tailLoopNum):
            self.CopyIn(idx, self.group)
            self.ComputeGluGrad(self.group_ub_num)
            self.CopyOut(idx, self.group_ub_num, self.group)
        if self.lastTailGroup > 0:
            self.CopyIn(self.tailLoopNum, self.lastTailGroup)
            self.ComputeGluGrad(self.last_tail_ub_num)
            self.CopyOut(self.tailLoopNum, self.last_tail_ub_num, self.lastTailGroup)

    def _zero_tail(self, tensors, count):
        """Not in the original (docstring): the last vector's elements past the chunk, inside the buffer."""
        vl = VREG_BYTES // TYPE_SIZE[self.T]
        loaded = min(aj.CeilDivision(count, vl) * vl, self.bufElems)
        if loaded > count:
            for t in tensors:
                aj.Duplicate(t[count], _NP[self.T](0), loaded - count)

    def CopyIn(self, index, blockCount):
        T = self.T
        ubA, ubB, ubGrad = (self.inQueueA.AllocTensor(T), self.inQueueB.AllocTensor(T),
                            self.inQueueGrad.AllocTensor(T))
        row = self.splitSize if self.splitSize % self.blockSize == 0 else aj.AlignUp(self.splitSize, self.blockSize)
        self._zero_tail((ubA, ubB, ubGrad), blockCount * row)
        intriParams = aj.DataCopyParams()
        intriParams.blockCount = blockCount
        intriParams.dstStride = 0
        base = self.gmSelfOffset + index * self.self_stride
        if self.splitSize % self.blockSize == 0:
            intriParams.blockLen = self.splitSize // self.blockSize
            intriParams.srcStride = self.splitSize // self.blockSize
            aj.DataCopy(ubA, self.selfGm[base], intriParams)
            aj.DataCopy(ubB, self.selfGm[base + self.splitSize], intriParams)
            intriParams.srcStride = 0
            aj.DataCopy(ubGrad, self.gradOutGm[self.gmGradOffset + index * self.grad_stride], intriParams)
        else:
            size = TYPE_SIZE[T]
            intriParams.blockLen = self.splitSize * size
            intriParams.srcStride = self.splitSize * size
            intriPadParams = aj.DataCopyPadParams()
            intriPadParams.isPad = True
            intriPadParams.leftPadding = 0
            intriPadParams.rightPadding = BLOCK_BYTES // size - self.splitSize % self.blockSize
            intriPadParams.paddingValue = 1
            aj.DataCopyPad(ubA, self.selfGm[base], intriParams, intriPadParams)
            aj.DataCopyPad(ubB, self.selfGm[base + self.splitSize], intriParams, intriPadParams)
            intriParams.srcStride = 0
            aj.DataCopyPad(ubGrad, self.gradOutGm[self.gmGradOffset + index * self.grad_stride], intriParams,
                           intriPadParams)
        self.inQueueA.EnQue(T, ubA)
        self.inQueueB.EnQue(T, ubB)
        self.inQueueGrad.EnQue(T, ubGrad)

    def ComputeGluGrad(self, count):
        T = self.T
        aLocal, bLocal, gradLocal = self.inQueueA.DeQue(T), self.inQueueB.DeQue(T), self.inQueueGrad.DeQue(T)
        outALocal, outBLocal = self.outQueueA.AllocTensor(T), self.outQueueB.AllocTensor(T)
        R.asc_vf_call(self.vf, aLocal, bLocal, gradLocal, outALocal, outBLocal, count, T)
        self.inQueueA.FreeTensor(aLocal)
        self.inQueueB.FreeTensor(bLocal)
        self.inQueueGrad.FreeTensor(gradLocal)
        self.outQueueA.EnQue(T, outALocal)
        self.outQueueB.EnQue(T, outBLocal)

    def CopyOut(self, index, ub_num, group):
        T = self.T
        outALocal, outBLocal = self.outQueueA.DeQue(T), self.outQueueB.DeQue(T)
        base = self.gmOutOffset + index * self.self_stride
        if self.splitSize % self.blockSize == 0:
            outParams = aj.DataCopyParams()
            outParams.blockCount = group
            outParams.blockLen = self.splitSize // self.blockSize
            outParams.srcStride = 0
            outParams.dstStride = self.splitSize // self.blockSize
            aj.DataCopy(self.outGm[base], outALocal, outParams)
            aj.DataCopy(self.outGm[base + self.splitSize], outBLocal, outParams)
        else:
            size = TYPE_SIZE[T]
            intriParams = aj.DataCopyParams()
            intriParams.blockCount = group
            intriParams.dstStride = self.splitSize * size
            intriParams.srcStride = 0
            intriParams.blockLen = self.splitSize * size
            aj.DataCopyPad(self.outGm[base], outALocal, intriParams)
            aj.DataCopyPad(self.outGm[base + self.splitSize], outBLocal, intriParams)
        self.outQueueA.FreeTensor(outALocal)
        self.outQueueB.FreeTensor(outBLocal)


aj.REGISTER_TILING_DEFAULT(GluGradTilingData)


def glu_grad(grad_out, self_, out, workspace, tiling_bytes, DTYPE_X, SHAPE_MODE, vf=GLU_GRAD_VF):
    """The kernel entry (glu_grad.cpp); DTYPE_X and SHAPE_MODE stand for the template key."""
    # deviation: the original's KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_VECTOR_CORE) is left out (docstring)
    if workspace is None:
        return
    userWS = aj.GetUserWorkspace(workspace)
    if userWS is None:
        return
    tilingData = aj.GET_TILING_DATA(tiling_bytes)
    if SHAPE_MODE == TPL_SMALL_SHAPE:
        op = GluGradSmallShape(DTYPE_X, vf)
        op.Init(grad_out, self_, out, userWS, tilingData)
        op.Process()
    else:
        raise aj.ParameterError("glu_grad", "SHAPE_MODE", SHAPE_MODE, legal="TPL_SMALL_SHAPE (GluGradBigShape is "
                                "not ported)", device="ascend950")


def _shape(size, width):
    """(x rows, ny): rows of 2 * ny elements, ny = width, about `size` elements of self."""
    return max(1, size // (2 * width)), width


def _make_inputs(dtype, width):
    def make_inputs(size, seed):
        x, ny = _shape(size, width)
        rng = np.random.default_rng(seed)
        a = rng.uniform(-3, 3, (x, ny))
        b = rng.uniform(-4, 4, (x, ny))
        grad = rng.uniform(-2, 2, (x, ny))
        self_ = np.concatenate([a, b], axis=1).astype(_NP[dtype])
        return {"self": self_, "grad_out": grad.astype(_NP[dtype])}
    return make_inputs


def run_glu_grad(device, inputs, vf=GLU_GRAD_VF):
    self_, grad = inputs["self"], inputs["grad_out"]
    dtype = {np.dtype(v): k for k, v in _NP.items()}[self_.dtype]
    x, ny = grad.shape
    out = np.zeros_like(self_)
    block_dim, mode, tiling_bytes = tiling(device, x, ny, dtype)
    workspace = np.zeros(aj.GetLibApiWorkSpaceSize(device) + 32, np.uint8)
    aj.launch(glu_grad, block_dim, device, grad.ravel(), self_.ravel(), out.reshape(-1), workspace, tiling_bytes,
              dtype, mode, vf)
    return {"out": out}


def expected_glu_grad(inputs):
    self_, grad = inputs["self"].astype(np.float64), inputs["grad_out"].astype(np.float64)
    ny = grad.shape[1]
    a, b = self_[:, :ny], self_[:, ny:]
    sig = 1.0 / (1.0 + np.exp(-b))
    return {"out": np.concatenate([grad * sig, (1.0 - sig) * sig * a * grad], axis=1).astype(inputs["self"].dtype)}


def _run(device, inputs):
    return run_glu_grad(device, inputs)


def _expected(device, inputs):
    return expected_glu_grad(inputs)


_SOURCE = "hicann/ops-nn@e5c3fa93 activation/glu_grad/op_kernel/arch35/glu_grad_small_shape.h"
KERNELS = [
    KernelSpec("glu_grad", "ops-nn GluGrad over floats, 950 arch35 small shapes: rows of 2 x 64 split in halves by "
               "strided DataCopy; a VF of Muls, Exp, Adds, Div (DivSpecificMode precision), Mul, Sub under UpdateMask",
               _make_inputs("float", 64), _run, _expected, default_size=100000, devices=("ascend950",),
               size_rule="128 to 4Mi elements of self", size_ok=lambda n: 128 <= n <= 1 << 22, tolerance=6e-6,
               source=_SOURCE),
    KernelSpec("glu_grad_half", "ops-nn GluGrad over halves, rows of 2 x 37 (DataCopyPad, padding 1): even and odd "
               "lanes Cast to float (layout ZERO / ONE), computed, Cast back and joined by a half Add",
               _make_inputs("half", 37), _run, _expected, default_size=100000, devices=("ascend950",),
               size_rule="74 to 4Mi elements of self", size_ok=lambda n: 74 <= n <= 1 << 22, tolerance=1.1e-3,
               source=_SOURCE),
    KernelSpec("glu_grad_bf16", "ops-nn GluGrad over bfloat16, rows of 2 x 160", _make_inputs("bfloat16", 160), _run,
               _expected, default_size=100000, devices=("ascend950",), size_rule="320 to 4Mi elements of self",
               size_ok=lambda n: 320 <= n <= 1 << 22, tolerance=8e-3, source=_SOURCE),
]
