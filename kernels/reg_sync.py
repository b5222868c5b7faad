"""The devkit's Reg synchronisation example, two scenarios over 1024 floats:
1. `reg_sync_exp` (RegSync): z = exp(x) in place, per 64-float step an UpdateMask, LoadAlign, Exp, StoreAlign back
   to the same UB addresses (the registers order each step's load before its store: no barrier);
2. `reg_sync_softmax` (UbSync): z = softmax(x) in one VF: the max (Max over steps, Reduce MAX, broadcast), the exps
   of x - max stored to a UB tmp tile while their sum is accumulated (Add, Reduce SUM, broadcast), then
   `LocalMemBar<VEC_STORE, VEC_LOAD>` before the tmp tile is read back and divided by the sum.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
05_sync_control/reg_sync/reg_sync.asc (`RegSyncVf<float>`, `SoftmaxVf<float>`, `reg_sync<float, 1024>`,
SCENARIO_NUM 1 and 2, one block) and scripts/gen_data.py (x standard normal; goldens exp(x) and
exp(x - max) / sum, compared there with 1e-4 absolute or relative error).

The kernel: LocalMemAllocator x (and for scenario 2 tmp and z) tiles; DataCopy x in; MTE2_V; the VF; V_MTE3;
DataCopy out (x for scenario 1, z for 2); PipeBarrier<PIPE_ALL>.

`SKIP_LOCAL_MEM_BAR = True` (or `run(..., bar=False)`) drops scenario 2's LocalMemBar: the values do not change
(the emulator's VF runs each instruction to completion), and tests/test_port39u_kernels.py shows what the
sanitizer's "strict" mode reports for it (the store-to-load RAW on the tmp tile inside one VF) and that the
original, with the barrier, runs strict-clean.

Sizes: the example's 1024; any multiple of 64 floats up to 16384 runs (whole vectors: the tiles are `count`
floats, as the original's Alloc<T, count>, and each step's LoadAlign reads a whole vector, so a count with a
partial last vector would read past the tile; the UpdateMask steps then have full masks). Devices: ascend950 only (Reg API).
Fidelity: MODELLED (Reg Exp and Div: RN of the exact result with DAZ/FTZ, SPEC-2 D37/D38; Max, Reduce, Sub, Add
BIT-EXACT), checked against float64 formulas within 2e-6 (scenario 1) and 1e-5 (scenario 2) relative.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
MAX_INIT_VALUE = -10000.0
SKIP_LOCAL_MEM_BAR = False


def reg_sync_vf(dataAddr, oneRepeatSize, repeatTimes, count):
    """RegSyncVf<float>: exp in place."""
    reg0 = R.RegTensor("float")
    srcOff = dstOff = 0
    for i in range(repeatTimes):
        mask, count = R.UpdateMask("float", count)
        srcOff = R.LoadAlign(reg0, dataAddr, srcOff, post_update_stride=oneRepeatSize)
        R.Exp(reg0, reg0, mask)
        dstOff = R.StoreAlign(dataAddr, reg0, mask, dstOff, post_update_stride=oneRepeatSize)


def softmax_vf(dstAddr, srcAddr, tmpAddr, oneRepeatSize, repeatTimes, dataSize, bar):
    """SoftmaxVf<float> (`bar` False drops the LocalMemBar: not in the original, docstring)."""
    srcReg, maxReg, tmpReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    fullMask = R.CreateMask("float", R.MaskPattern.ALL)
    # max = Max(src)
    R.Duplicate(maxReg, MAX_INIT_VALUE, fullMask)
    srcOff = 0
    count = dataSize
    for i in range(repeatTimes):
        mask, count = R.UpdateMask("float", count)
        srcOff = R.LoadAlign(srcReg, srcAddr, srcOff, post_update_stride=oneRepeatSize)
        R.Max(maxReg, maxReg, srcReg, mask)
    R.Reduce(tmpReg, maxReg, fullMask, reduce_type=R.ReduceType.MAX)
    R.Duplicate(maxReg, tmpReg, fullMask)
    # exp(src - max) stored to the UB tmp tile, sum(exp) accumulated
    subReg, expReg, sumReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    R.Duplicate(sumReg, 0, fullMask)
    count = dataSize
    tmpOff = srcOff = 0
    for i in range(repeatTimes):
        mask, count = R.UpdateMask("float", count)
        srcOff = R.LoadAlign(srcReg, srcAddr, srcOff, post_update_stride=oneRepeatSize)
        R.Sub(subReg, srcReg, maxReg, mask)
        R.Exp(expReg, subReg, mask)
        tmpOff = R.StoreAlign(tmpAddr, expReg, mask, tmpOff, post_update_stride=oneRepeatSize)
        R.Add(sumReg, sumReg, expReg, mask)
    R.Reduce(tmpReg, sumReg, fullMask, reduce_type=R.ReduceType.SUM)
    R.Duplicate(sumReg, tmpReg, fullMask)
    # write-read dependence on tmp: the stores above before the loads below
    if bar:
        R.LocalMemBar(R.MemType.VEC_STORE, R.MemType.VEC_LOAD)
    # exp / sum
    dstReg = R.RegTensor("float")
    tmpOff = dstOff = 0
    count = dataSize
    for i in range(repeatTimes):
        mask, count = R.UpdateMask("float", count)
        tmpOff = R.LoadAlign(expReg, tmpAddr, tmpOff, post_update_stride=oneRepeatSize)
        R.Div(dstReg, expReg, sumReg, mask)
        dstOff = R.StoreAlign(dstAddr, dstReg, mask, dstOff, post_update_stride=oneRepeatSize)


REG_SYNC_VF = R.simd_vf(reg_sync_vf)
SOFTMAX_VF = R.simd_vf(softmax_vf)


def reg_sync(x, z, count, scenarioNum, vfs, bar):
    aj.InitSocState()
    xGm, zGm = aj.GlobalTensor(), aj.GlobalTensor()
    xGm.SetGlobalBuffer(x)
    zGm.SetGlobalBuffer(z)
    ubAllocator = aj.LocalMemAllocator()
    xLocal = ubAllocator.Alloc("float", count)
    aj.DataCopy(xLocal, xGm, count)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    oneRepeatSize = aj.GetVecLen() // 4
    repeatTimes = aj.DivCeil(count, oneRepeatSize)
    if scenarioNum == 1:
        R.asc_vf_call(vfs[0], xLocal, oneRepeatSize, repeatTimes, count)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(zGm, xLocal, count)
    else:
        tmpLocal = ubAllocator.Alloc("float", count)
        zLocal = ubAllocator.Alloc("float", count)
        R.asc_vf_call(vfs[1], zLocal, xLocal, tmpLocal, oneRepeatSize, repeatTimes, count, bar)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(zGm, zLocal, count)
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    """gen_data.py: x standard normal."""
    return {"x": np.random.default_rng(seed).standard_normal(size).astype(np.float32)}


def _runner(scenario):
    def run(device, inputs, compiled=True, bar=None):
        bar = (not SKIP_LOCAL_MEM_BAR) if bar is None else bar
        x = inputs["x"]
        z = np.zeros_like(x)
        vfs = (REG_SYNC_VF, SOFTMAX_VF) if compiled else (reg_sync_vf, softmax_vf)
        aj.launch(reg_sync, 1, device, x, z, x.size, scenario, vfs, bar)
        return {"z": z}
    return run


def expected_exp(device, inputs):
    return {"z": np.exp(inputs["x"].astype(np.float64))}


def expected_softmax(device, inputs):
    x = inputs["x"].astype(np.float64)
    e = np.exp(x - x.max())
    return {"z": e / e.sum()}


SOURCE = ("mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/05_sync_control/reg_sync/"
          "reg_sync.asc")


def _size_ok(n):
    return 0 < n <= 16384 and n % 64 == 0


KERNELS = [
    KernelSpec("reg_sync_exp", "devkit Reg sync example, scenario 1: exp in place, UpdateMask steps", make_inputs,
               _runner(1), expected_exp, default_size=1024, devices=("ascend950",),
               size_rule="a multiple of 64 floats, at most 16384", size_ok=_size_ok, tolerance=2e-6, source=SOURCE),
    KernelSpec("reg_sync_softmax", "devkit Reg sync example, scenario 2: one-VF softmax through a UB tmp tile, "
               "LocalMemBar<VEC_STORE, VEC_LOAD> before the read-back", make_inputs, _runner(2), expected_softmax,
               default_size=1024, devices=("ascend950",), size_rule="a multiple of 64 floats, at most 16384",
               size_ok=_size_ok, tolerance=1e-5, source=SOURCE),
]
