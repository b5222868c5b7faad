"""The devkit's Reg subnormal example: float z = x / y by Reg Div with a DivSpecificMode, two scenarios:
1. `PRECISION_1ULP_FTZ_FALSE` (subnormals supported): z equals the float64 golden bit for bit;
2. `PRECISION_1ULP_FTZ_TRUE` (subnormals flushed): every one of the example's five cases differs from it.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
02_reg_vector_compute/subnormal/subnormal.asc (`SubnormalFTZFalseVF<float>`, `SubnormalFTZTrueVF<float>`,
`KernelSubnormal<float, 1024>`, SCENARIO_NUM 1 and 2, one block) and scripts/gen_data.py (x, y: the five cases
N/N = S, N/S = N, S/N = S, S/N = N, S/S = N tiled over 1024 floats; golden (x / y in float64) as float32). The
example's check: scenario 1 passes when the first five outputs equal the golden's bits, scenario 2 when they all
differ. The devkit page: SIMD-API/Reg/基础算术/Div.md (DivSpecificMode, DivAlgo).

The kernel: LocalMemAllocator x, y, z tiles at GetBlockIdx() * 1024; DataCopy x, y in; MTE2_V; the VF
(CreateMask<float, ALL>; per 64-float step two POST_MODE_UPDATE LoadAligns, `Div<T, &mode>(z, x, y, mask)` with
mode {ZEROING, false, algo}, a POST_MODE_UPDATE StoreAlign); V_MTE3; DataCopy z out; PipeBarrier<PIPE_ALL>.

Sizes: the example's 1024 floats; any multiple of 64 up to 16384 runs (the five cases tiled; seeds other than 0
append random normal and subnormal operands after the first 64 lanes). Devices: ascend950 only (Reg API).
Fidelity: MODELLED (SPEC-2 D37: PRECISION_1ULP_* Div is RN(x / y), with DAZ/FTZ for FTZ_TRUE, D38; the device
promises 1 ulp), declared with a 1-ulp relative tolerance; the expectation below is the model itself, computed in
float64.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
MODE_FTZ_FALSE = R.DivSpecificMode(R.MaskMergeMode.ZEROING, False, aj.DivAlgo.PRECISION_1ULP_FTZ_FALSE)
MODE_FTZ_TRUE = R.DivSpecificMode(R.MaskMergeMode.ZEROING, False, aj.DivAlgo.PRECISION_1ULP_FTZ_TRUE)


def subnormal_ftz_false_vf(xAddr, yAddr, zAddr, repeatTimes, oneRepeatSize):
    """SubnormalFTZFalseVF<float>: subnormals kept."""
    mask = R.CreateMask("float", R.MaskPattern.ALL)
    xReg, yReg, zReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    xOff = yOff = zOff = 0
    for i in range(repeatTimes):
        xOff = R.LoadAlign(xReg, xAddr, xOff, post_update_stride=oneRepeatSize)
        yOff = R.LoadAlign(yReg, yAddr, yOff, post_update_stride=oneRepeatSize)
        R.Div(zReg, xReg, yReg, mask, MODE_FTZ_FALSE)
        zOff = R.StoreAlign(zAddr, zReg, mask, zOff, post_update_stride=oneRepeatSize)


def subnormal_ftz_true_vf(xAddr, yAddr, zAddr, repeatTimes, oneRepeatSize):
    """SubnormalFTZTrueVF<float>: subnormal inputs and results flushed to zero."""
    mask = R.CreateMask("float", R.MaskPattern.ALL)
    xReg, yReg, zReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    xOff = yOff = zOff = 0
    for i in range(repeatTimes):
        xOff = R.LoadAlign(xReg, xAddr, xOff, post_update_stride=oneRepeatSize)
        yOff = R.LoadAlign(yReg, yAddr, yOff, post_update_stride=oneRepeatSize)
        R.Div(zReg, xReg, yReg, mask, MODE_FTZ_TRUE)
        zOff = R.StoreAlign(zAddr, zReg, mask, zOff, post_update_stride=oneRepeatSize)


VFS = {1: R.simd_vf(subnormal_ftz_false_vf), 2: R.simd_vf(subnormal_ftz_true_vf)}
PLAIN = {1: subnormal_ftz_false_vf, 2: subnormal_ftz_true_vf}


def subnormal(x, y, z, singleCoreLength, vf):
    """subnormal + KernelSubnormal<float, singleCoreLength>::Process."""
    aj.InitSocState()
    xGm, yGm, zGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
    xGm.SetGlobalBuffer(x)
    yGm.SetGlobalBuffer(y)
    zGm.SetGlobalBuffer(z)
    coreOffset = aj.GetBlockIdx() * singleCoreLength
    ubAllocator = aj.LocalMemAllocator()
    xLocal = ubAllocator.Alloc("float", singleCoreLength)
    yLocal = ubAllocator.Alloc("float", singleCoreLength)
    zLocal = ubAllocator.Alloc("float", singleCoreLength)
    aj.DataCopy(xLocal, xGm[coreOffset], singleCoreLength)
    aj.DataCopy(yLocal, yGm[coreOffset], singleCoreLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    oneRepeatSize = aj.GetVecLen() // 4
    repeatTimes = aj.DivCeil(singleCoreLength, oneRepeatSize)
    R.asc_vf_call(vf, xLocal, yLocal, zLocal, repeatTimes, oneRepeatSize)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(zGm[coreOffset], zLocal, singleCoreLength)
    aj.PipeBarrier(aj.PIPE_ALL)


X_SMALL = [2.0 ** -126, 2.0 ** -125, 2.0 ** -130, 2.0 ** -130, 2.0 ** -140]
Y_SMALL = [4.0, 2.0 ** -127, 2.0, 2.0 ** -20, 2.0 ** -145]


def make_inputs(size, seed):
    """gen_data.py's five cases tiled; seeds other than 0 draw lanes 64.. at random (normal and subnormal
    magnitudes of either sign)."""
    reps = -(-size // len(X_SMALL))
    x = np.tile(X_SMALL, reps)[:size].astype(np.float32)
    y = np.tile(Y_SMALL, reps)[:size].astype(np.float32)
    if seed and size > 64:
        rng = np.random.default_rng(seed)
        n = size - 64
        x[64:] = (rng.choice([-1.0, 1.0], n) * 2.0 ** rng.uniform(-149, 20, n)).astype(np.float32)
        y[64:] = (rng.choice([-1.0, 1.0], n) * 2.0 ** rng.uniform(-149, 20, n)).astype(np.float32)
    return {"x": x, "y": y}


def _flush(a):
    """DAZ / FTZ (SPEC-2 D38): a float32 subnormal becomes the zero of its sign."""
    a = np.asarray(a, np.float32).copy()
    sub = (a != 0) & (np.abs(a) < np.finfo(np.float32).tiny)
    a[sub] = np.copysign(np.float32(0), a[sub])
    return a


def quotient(x, y, ftz):
    """The model: RN_float(x / y) (float64 division of floats, then one rounding: innocuous double rounding),
    with DAZ on the inputs and FTZ on the result for FTZ_TRUE; NaN canonical (SPEC-2 D35)."""
    if ftz:
        x, y = _flush(x), _flush(y)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        z = (x.astype(np.float64) / y.astype(np.float64)).astype(np.float32)
    z[np.isnan(z)] = np.uint32(0x7FC00000).view(np.float32)      # any NaN written is the canonical one (D35)
    return _flush(z) if ftz else z


def _runner(scenario):
    def run(device, inputs, compiled=True):
        x, y = inputs["x"], inputs["y"]
        z = np.zeros_like(x)
        aj.launch(subnormal, 1, device, x, y, z, x.size, VFS[scenario] if compiled else PLAIN[scenario])
        return {"z": z}
    return run


def _expected(scenario):
    def expected(device, inputs):
        return {"z": quotient(inputs["x"], inputs["y"], ftz=scenario == 2)}
    return expected


SOURCE = ("mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/subnormal/"
          "subnormal.asc")
ULP = 2.0 ** -23
KERNELS = [
    KernelSpec("reg_subnormal", "devkit Reg subnormal example, scenario 1: float Reg Div with PRECISION_1ULP_FTZ_FALSE "
               "(subnormal inputs and results kept)", make_inputs, _runner(1), _expected(1), default_size=1024,
               devices=("ascend950",), size_rule="a multiple of 64 floats, at most 16384",
               size_ok=lambda n: 0 < n <= 16384 and n % 64 == 0, tolerance=ULP, source=SOURCE),
    KernelSpec("reg_subnormal_ftz", "devkit Reg subnormal example, scenario 2: float Reg Div with "
               "PRECISION_1ULP_FTZ_TRUE (DAZ / FTZ)", make_inputs, _runner(2), _expected(2), default_size=1024,
               devices=("ascend950",), size_rule="a multiple of 64 floats, at most 16384",
               size_ok=lambda n: 0 < n <= 16384 and n % 64 == 0, tolerance=ULP, source=SOURCE),
]
