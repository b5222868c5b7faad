"""ApplyAdagrad, the Ascend 950 (arch35) Reg API kernel: accum += grad * grad (update_slots; otherwise accum + 0),
var -= lr * grad / sqrt(accum), over float, half and bfloat16 (16-bit types computed in float lanes), lr a one-element
tensor.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, optim/apply_adagrad:
- op_kernel/arch35/apply_adagrad.cpp (the entry: REGISTER_TILING_DEFAULT / GET_TILING_DATA_WITH_STRUCT of
  ApplyAdagradTilingDataStruct, KERNEL_TASK_TYPE_DEFAULT AIV_ONLY, `ApplyAdagradKernel<DTYPE_VAR, updateSlots>`
  for the template key (schMode, updateSlots, dType) of op_kernel/arch35/apply_adagrad_tiling_key.h);
- op_kernel/arch35/apply_adagrad.h (`ApplyAdagradKernel`: a core's blockFactor elements (the last core the rest)
  from GM views set at the core's offset; five depth-1 queues (var, accum, grad in; var_out, accum_out out) of
  ubFactor elements and a 32-byte scalar TBuf; LoadScalar: DataCopyPad of lr's one element, an MTE2_S flag pair by
  FetchEventID, GetValue (ToFloat for bfloat16); per tile CopyIn (three DataCopyPads with DataCopyExtParams
  {1, bytes, 0, 0, 0} and pad {false, 0, 0, 0}), Compute (`asc_vf_call` of the __simd_vf__ ApplyAdagradVF over
  CeilDivision(count, 64) steps: per step UpdateMask<float> of that step's count, then a __VEC_SCOPE__ of three
  LoadAsFp32 (LoadAlign, or LoadAlign DIST_UNPACK_B16 + Cast with {ZERO, UNKNOWN, ZEROING, UNKNOWN}), Mul g * g,
  Add into accum (or Duplicate 0.0 and Add), Sqrt, Muls by lr, Div, Sub, and two StoreFromFp32 (StoreAlign, or Cast
  {ZERO, NO_SAT, ZEROING, CAST_RINT} + StoreAlign DIST_PACK_B32)), CopyOut (DataCopyPad of var_out, and of accum
  back into accum's GM when update_slots));
- op_kernel/apply_adagrad_struct.h and op_host/arch35/apply_adagrad_tiling_arch35.cpp (`ComputeBlockTiling`: cores
  = ceil(elements * bits / 32768) clamped to [1, cores], blockFactor = ceil(elements / cores) rounded up to 512,
  block dim ceil(elements / blockFactor); `ComputeUbTiling`: ubFactor = (UB - 256) / (7 * 4 bytes) for float,
  (UB - 256) / (5 * 2 + 7 * 4) for the 16-bit types, rounded down to 256 bytes of elements).

The __simd_callee__ helpers LoadAsFp32 / StoreFromFp32 are `@aj.Reg.simd_callee`s; the __VEC_SCOPE__ inside the
VF's loop is the loop body (ascend_jit has no separate scope object).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). At a short tile only: each VF step
loads a whole vector (64 floats, or 64 halves by DIST_UNPACK_B16), so the last step reads past the DataCopyPad's
last 32-byte block, inside the queue buffer (ubFactor is whole vectors); those lanes are outside UpdateMask and
never stored (harmless on the device). Before session 54 the sanitizer reported every byte a Reg load read, so the
port zeroes them with a Duplicate before the copy-in (other bytes than the copy's); kept from before, no longer needed
for the init check: with the lane tracking the original (`ORIGINAL_UNINIT_LOADS = True` runs without) runs clean.
GM inputs are not padded: the DataCopyPads move exact byte counts.

Devices: the op's arch35 build is the 950's only (op_host/config/ascend950); the port runs there.

Fidelity: MODELLED (Reg Sqrt and Reg Div in their default mode: D37, D38, SPEC-2 0.3), the rest BIT-EXACT. The
emulator's model of both is the exact result rounded once (RNE) with subnormals flushed, so the expectation replays
the float32 chain in numpy (np.sqrt and float32 division are correctly rounded) over inputs without subnormals and
is checked bit for bit; `tests/test_port40pb_kernels.py` also checks a float64 formula within 4 ulp.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
ZEROING = R.MaskMergeMode.ZEROING
CORE_NUM = 8                         # deviation: the launch's cores (GetCoreNumAiv in the original)
SCALAR_UB_SIZE = 32
# op_host/arch35/apply_adagrad_tiling_arch35.cpp
MIN_BITS_PER_CORE = 32768
BLOCK_ALIGN = 512
UB_RESERVED = 256
UB_ALIGN_BYTES = 256
BITS_PER_BYTE = 8
BUFFER_COUNT_FP32 = 7
BUFFER_COUNT_NATIVE = 5
# op_kernel/arch35/apply_adagrad_tiling_key.h
ELEMENTWISE_TPL_SCH_MODE_0 = 0
APPLY_ADAGRAD_TPL_FP16, APPLY_ADAGRAD_TPL_BF16, APPLY_ADAGRAD_TPL_FP32 = 0, 1, 2
UPDATE_SLOTS_TPL_TRUE, UPDATE_SLOTS_TPL_FALSE = 1, 0
DTYPE_TPL = {"half": APPLY_ADAGRAD_TPL_FP16, "bfloat16": APPLY_ADAGRAD_TPL_BF16, "float": APPLY_ADAGRAD_TPL_FP32}
TPL_DTYPE = {v: k for k, v in DTYPE_TPL.items()}
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
ORIGINAL_UNINIT_LOADS = False   # True: no Duplicate of the tail lanes (sanitizes clean since session 54)

ApplyAdagradTilingDataStruct = np.dtype([("totalElements", np.int64), ("blockFactor", np.int64),
                                         ("ubFactor", np.int64)])

CAST_TRAIT_B16_TO_B32 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, ZEROING, aj.RoundMode.UNKNOWN)
CAST_TRAIT_B32_TO_B16 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, ZEROING, aj.RoundMode.CAST_RINT)


def tiling(device, total, dtype, update_slots=True):
    """ApplyAdagradTiling::RunTiling: (template key (schMode, updateSlots, dType), block dim, packed tiling)."""
    t = np.zeros(1, ApplyAdagradTilingDataStruct)
    t["totalElements"] = total
    slots = UPDATE_SLOTS_TPL_TRUE if update_slots else UPDATE_SLOTS_TPL_FALSE
    key = (ELEMENTWISE_TPL_SCH_MODE_0, slots, DTYPE_TPL[dtype])
    if total == 0:
        t["blockFactor"], t["ubFactor"] = 0, 1
        return key, 1, t.view(np.uint8).copy()
    size = TYPE_SIZE[dtype]
    used = max(1, min(-(-(total * size * BITS_PER_BYTE) // MIN_BITS_PER_CORE), CORE_NUM))
    per_core = -(-total // used)
    block_factor = -(-per_core // BLOCK_ALIGN) * BLOCK_ALIGN
    block_num = -(-total // block_factor)
    buffer_bytes = BUFFER_COUNT_FP32 * 4 if dtype == "float" else BUFFER_COUNT_NATIVE * size + BUFFER_COUNT_FP32 * 4
    max_elements = (aj.get_device(device).ub_bytes - UB_RESERVED) // buffer_bytes
    align = UB_ALIGN_BYTES // size
    if max_elements < align:
        raise ValueError("ApplyAdagrad tiling: UB size is insufficient for one aligned tile")
    t["blockFactor"] = block_factor
    t["ubFactor"] = max(align, max_elements // align * align)
    return key, block_num, t.view(np.uint8).copy()


@R.simd_callee
def LoadAsFp32(dst, src, offset, mask, T):
    if T == "float":
        R.LoadAlign(dst, src[offset])
    else:
        low = R.RegTensor(T)
        R.LoadAlign(low, src[offset], dist=R.LoadDist.DIST_UNPACK_B16)
        R.Cast(dst, low, mask, CAST_TRAIT_B16_TO_B32)


@R.simd_callee
def StoreFromFp32(dst, src, offset, mask, T):
    if T == "float":
        R.StoreAlign(dst[offset], src, mask)
    else:
        low = R.RegTensor(T)
        R.Cast(low, src, mask, CAST_TRAIT_B32_TO_B16)
        R.StoreAlign(dst[offset], low, mask, dist=R.StoreDist.DIST_PACK_B32)


def apply_adagrad_vf(varAddr, accumAddr, gradAddr, varOutAddr, accumOutAddr, lr, count, oneRepeatSize, repeatTimes,
                     T, UPDATE_SLOTS):
    """ApplyAdagradVF<T, UPDATE_SLOTS>."""
    varReg, accumReg, gradReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    accumOutReg, gradSquareReg, denomReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    varOutReg, zeroReg = R.RegTensor("float"), R.RegTensor("float")
    remain = count
    for i in range(repeatTimes):
        curCount = oneRepeatSize if remain > oneRepeatSize else remain
        mask, _ = R.UpdateMask("float", curCount)
        offset = i * oneRepeatSize
        # __VEC_SCOPE__
        LoadAsFp32(varReg, varAddr, offset, mask, T)
        LoadAsFp32(accumReg, accumAddr, offset, mask, T)
        LoadAsFp32(gradReg, gradAddr, offset, mask, T)
        R.Mul(gradSquareReg, gradReg, gradReg, mask)
        if UPDATE_SLOTS:
            R.Add(accumOutReg, accumReg, gradSquareReg, mask)
        else:
            R.Duplicate(zeroReg, np.float32(0.0), mask)
            R.Add(accumOutReg, accumReg, zeroReg, mask)
        R.Sqrt(denomReg, accumOutReg, mask)
        R.Muls(gradSquareReg, gradReg, lr, mask)
        R.Div(gradSquareReg, gradSquareReg, denomReg, mask)
        R.Sub(varOutReg, varReg, gradSquareReg, mask)
        StoreFromFp32(varOutAddr, varOutReg, offset, mask, T)
        StoreFromFp32(accumOutAddr, accumOutReg, offset, mask, T)
        remain = remain - oneRepeatSize if remain > oneRepeatSize else 0


APPLY_ADAGRAD_VF = R.simd_vf(apply_adagrad_vf)


class ApplyAdagradKernel:
    def __init__(self, T, UPDATE_SLOTS):
        self.T, self.UPDATE_SLOTS = T, UPDATE_SLOTS
        self.blockOffset_ = self.blockLen_ = self.ubFactor_ = 0
        self.lrScalar_ = np.float32(0)

    def Init(self, var, accum, lr, grad, varOut, tiling):
        self.ubFactor_ = int(tiling.ubFactor)
        total, block_factor = int(tiling.totalElements), int(tiling.blockFactor)
        if total <= 0 or block_factor <= 0:
            return
        self.blockOffset_ = block_factor * aj.GetBlockIdx()
        remain = total - self.blockOffset_
        if remain <= 0:
            return
        self.blockLen_ = min(remain, block_factor)
        T, o, n = self.T, self.blockOffset_, self.blockLen_
        self.varGm_, self.accumGm_, self.gradGm_ = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.varOutGm_, self.lrGm_ = aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.varGm_.SetGlobalBuffer(var[o:], n)
        self.accumGm_.SetGlobalBuffer(accum[o:], n)
        self.gradGm_.SetGlobalBuffer(grad[o:], n)
        self.varOutGm_.SetGlobalBuffer(varOut[o:], n)
        self.lrGm_.SetGlobalBuffer(lr, 1)
        self.InitBuffers()
        self.lrScalar_ = self.LoadScalar()

    def InitBuffers(self):
        self.pipe_ = aj.TPipe()
        self.varQue_, self.accumQue_, self.gradQue_ = (aj.TQue(aj.QuePosition.VECIN, 1) for _ in range(3))
        self.varOutQue_, self.accumOutQue_ = (aj.TQue(aj.QuePosition.VECOUT, 1) for _ in range(2))
        self.scalarBuf_ = aj.TBuf(aj.QuePosition.VECCALC)
        nbytes = self.ubFactor_ * TYPE_SIZE[self.T]
        for que in (self.varQue_, self.accumQue_, self.gradQue_, self.varOutQue_, self.accumOutQue_):
            self.pipe_.InitBuffer(que, 1, nbytes)
        self.pipe_.InitBuffer(self.scalarBuf_, SCALAR_UB_SIZE)

    def LoadScalar(self):
        T = self.T
        scalarLocal = self.scalarBuf_.Get(T)
        params = aj.DataCopyExtParams(1, TYPE_SIZE[T], 0, 0, 0)
        aj.DataCopyPad(scalarLocal, self.lrGm_, params, aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0)))
        evt = self.pipe_.FetchEventID(aj.HardEvent.MTE2_S)
        aj.SetFlag(evt, event=aj.HardEvent.MTE2_S)
        aj.WaitFlag(evt, event=aj.HardEvent.MTE2_S)
        if T == "bfloat16":
            return np.float32(aj.ToFloat(scalarLocal.GetValue(0)))
        return np.float32(scalarLocal.GetValue(0))

    def CopyIn(self, offset, count):
        T = self.T
        var, accum, grad = (q.AllocTensor(T) for q in (self.varQue_, self.accumQue_, self.gradQue_))
        if not ORIGINAL_UNINIT_LOADS:
            # deviation (module docstring): the last VF step's lanes past the copy, zeroed before it
            loaded = aj.CeilDivision(count, aj.GetVecLen() // 4) * (aj.GetVecLen() // 4)
            copied = aj.AlignUp(count * TYPE_SIZE[T], 32) // TYPE_SIZE[T]
            if loaded > copied:
                for local in (var, accum, grad):
                    aj.Duplicate(local[copied], _NP[T](0), loaded - copied)
        params = aj.DataCopyExtParams(1, count * TYPE_SIZE[T], 0, 0, 0)
        pad = aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0))
        aj.DataCopyPad(var, self.varGm_[offset], params, pad)
        aj.DataCopyPad(accum, self.accumGm_[offset], params, pad)
        aj.DataCopyPad(grad, self.gradGm_[offset], params, pad)
        self.varQue_.EnQue(var)
        self.accumQue_.EnQue(accum)
        self.gradQue_.EnQue(grad)

    def Compute(self, count):
        T = self.T
        var, accum, grad = (q.DeQue(T) for q in (self.varQue_, self.accumQue_, self.gradQue_))
        varOut, accumOut = self.varOutQue_.AllocTensor(T), self.accumOutQue_.AllocTensor(T)
        oneRepeatSize = aj.GetVecLen() // 4
        repeatTimes = aj.CeilDivision(count, oneRepeatSize)
        R.asc_vf_call(APPLY_ADAGRAD_VF, var, accum, grad, varOut, accumOut, self.lrScalar_, count, oneRepeatSize,
                      repeatTimes, T, self.UPDATE_SLOTS)
        self.varOutQue_.EnQue(varOut)
        self.accumOutQue_.EnQue(accumOut)
        self.varQue_.FreeTensor(var)
        self.accumQue_.FreeTensor(accum)
        self.gradQue_.FreeTensor(grad)

    def CopyOut(self, offset, count):
        T = self.T
        varOut, accumOut = self.varOutQue_.DeQue(T), self.accumOutQue_.DeQue(T)
        params = aj.DataCopyExtParams(1, count * TYPE_SIZE[T], 0, 0, 0)
        aj.DataCopyPad(self.varOutGm_[offset], varOut, params)
        if self.UPDATE_SLOTS:
            aj.DataCopyPad(self.accumGm_[offset], accumOut, params)
        self.varOutQue_.FreeTensor(varOut)
        self.accumOutQue_.FreeTensor(accumOut)

    def Process(self):
        if self.blockLen_ <= 0:
            return
        loops = -(-self.blockLen_ // self.ubFactor_)
        for i in range(loops):
            offset = i * self.ubFactor_
            count = min(self.blockLen_ - offset, self.ubFactor_)
            self.CopyIn(offset, count)
            self.Compute(count)
            self.CopyOut(offset, count)


aj.REGISTER_TILING_DEFAULT(ApplyAdagradTilingDataStruct)


def apply_adagrad(var, accum, lr, grad, var_out, workspace, tiling_bytes, schMode, updateSlots, dType):
    """The kernel entry; (schMode, updateSlots, dType) is the template key, dType standing for DTYPE_VAR too."""
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ApplyAdagradTilingDataStruct, tiling_bytes)
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    op = ApplyAdagradKernel(TPL_DTYPE[dType], updateSlots > 0)
    op.Init(var, accum, lr, grad, var_out, tilingData)
    op.Process()


def run_adagrad(device, inputs, update_slots=True):
    """(var_out, accum after the kernel); the inputs are not modified."""
    var, grad = inputs["var"], inputs["grad"]
    accum = inputs["accum"].copy()                  # updated in place by the kernel (a ref input)
    dtype = {np.dtype(np.float32): "float", np.dtype(np.float16): "half"}.get(var.dtype, "bfloat16")
    key, block_dim, tiling_bytes = tiling(device, var.size, dtype, update_slots)
    var_out = np.zeros_like(var)
    workspace = np.zeros(32, np.uint8)              # WORKSPACE_SIZE 0
    aj.launch(apply_adagrad, block_dim, device, var, accum, inputs["lr"], grad, var_out, workspace, tiling_bytes,
              *key)
    return {"var": var_out, "accum": accum}


def expected_adagrad(inputs, update_slots=True):
    """The VF's float32 chain in numpy: one RNE a step, then RNE back to the element type."""
    t = inputs["var"].dtype
    v, a, g = (inputs[k].astype(np.float32) for k in ("var", "accum", "grad"))
    lr = inputs["lr"].astype(np.float32)[0]
    with np.errstate(all="ignore"):
        acc = (a + g * g).astype(np.float32) if update_slots else (a + np.float32(0)).astype(np.float32)
        step = ((g * lr).astype(np.float32) / np.sqrt(acc)).astype(np.float32)
        v = (v - step).astype(np.float32)
    out = {"var": v.astype(t)}
    out["accum"] = acc.astype(t) if update_slots else inputs["accum"].copy()
    return out


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        var = rng.uniform(-2.0, 2.0, size).astype(np.float32)
        accum = rng.uniform(0.05, 3.0, size).astype(np.float32)
        grad = rng.standard_normal(size).astype(np.float32)
        grad[:min(size, 4)] = [0.0, -0.0, 1e-3, -4.0][:min(size, 4)]
        return {"var": var.astype(_NP[dtype]), "accum": accum.astype(_NP[dtype]),
                "lr": np.array([0.01], np.float32).astype(_NP[dtype]), "grad": grad.astype(_NP[dtype])}
    return make_inputs


def _run(update_slots):
    return lambda device, inputs: run_adagrad(device, inputs, update_slots)


def _expected(update_slots):
    return lambda device, inputs: expected_adagrad(inputs, update_slots)


_SOURCE = "hicann/ops-nn@e5c3fa93 optim/apply_adagrad/op_kernel/arch35/apply_adagrad.h"


def _size_ok(n):
    return 0 < n <= 1 << 22


KERNELS = [
    KernelSpec("apply_adagrad", "ops-nn ApplyAdagrad, 950 arch35 Reg API, float: a VF per tile of UpdateMask steps "
               "(LoadAlign, Mul, Add, Sqrt, Muls, Div, Sub, StoreAlign), lr by DataCopyPad + MTE2_S GetValue; "
               "512-element core blocks, UB-filling tiles", _make_inputs("float"), _run(True), _expected(True),
               default_size=100000, devices=("ascend950",), size_rule="1 to 4Mi elements", size_ok=_size_ok,
               tolerance=None, source=_SOURCE),
    KernelSpec("apply_adagrad_half", "ops-nn ApplyAdagrad arch35, half: DIST_UNPACK_B16 loads and Casts to float "
               "lanes, Cast CAST_RINT and DIST_PACK_B32 stores", _make_inputs("half"), _run(True), _expected(True),
               default_size=100000, devices=("ascend950",), size_rule="1 to 4Mi elements", size_ok=_size_ok,
               source=_SOURCE),
    KernelSpec("apply_adagrad_bf16_no_update", "ops-nn ApplyAdagrad arch35, bfloat16 with update_slots false "
               "(Duplicate 0.0 + Add; accum not written back; lr by ToFloat)", _make_inputs("bfloat16"),
               _run(False), _expected(False), default_size=30000, devices=("ascend950",),
               size_rule="1 to 4Mi elements", size_ok=_size_ok, source=_SOURCE),
]
