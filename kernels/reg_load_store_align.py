"""The devkit example `reg_load_store_align` (Ascend 950): z = x + y over half with six ways of addressing the
aligned Reg loads and stores, scenarios 1 to 6 of the example (one KernelSpec each):
- 1 `offset` (added in session 46dk's audit, docs/devkit_examples.md): LoadAlign / StoreAlign at the offset
  i * oneRepeatSize per step under UpdateMask of outputLength - 3, after a Memory-API Duplicate of zeros over z:
  the last 3 results stay 0, as gen_data.py's golden says;
- 2 `post_update`: LoadAlign / StoreAlign with POST_MODE_UPDATE (the address advances a vector per call), an
  UpdateMask per step;
- 3 `addr_reg`: the loads and stores addressed by an AddrReg `CreateAddrReg<T>(i, oneRepeatSize)`, i.e. element
  offset i * oneRepeatSize; AddrReg objects are not offered (SPEC-2 14: "AddrReg forms are expressed with
  `offset`", D68), so the port passes that offset;
- 4 `data_block`: DATA_BLOCK_COPY loads with dataBlockStride 2 and repeatStride 16 blocks, POST_MODE_UPDATE (every
  other 32-byte DataBlock of x and y: 8 blocks a step), DATA_BLOCK_COPY store with dataBlockStride 1 and
  repeatStride 8 (contiguous), half the vectors of the input, 512 of 1024 results;
- 5 `broadcast`: LoadAlign with DIST_BRC_B16 (the first half of each 256-byte step in every lane);
- 6 `upsample`: LoadAlign with DIST_US_B16 (each of 64 halves twice), twice as many steps, 2048 results.
Each scenario: LocalMemAllocator tiles x, y, z, DataCopy GM -> UB, MTE2_V flag, the VF (compiled with
`@aj.Reg.simd_vf`, T passed as the dtype name "half", as the example's `Kernel<half>`), V_MTE3 flag, DataCopy
UB -> GM, PipeBarrier<PIPE_ALL>.

Source: mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
00_data_movement/reg_load_store_align/ld_st_reg_align.asc (`CopyWithPostUpdateVF`, `CopyWithAddrRegVF`,
`CopyDataBlock`, `CopyInBroadcastVF`, `CopyInUpsampleVF`, `CopyWithOffsetVF`, `Kernel<half>`, SCENARIO_NUM 1..6) and
scripts/gen_data.py (the goldens: x = y = arange(1024) as half). Scenario 1 (`CopyWithOffsetVF`) had been left out
(its addressing is kernels/gelu_reg.py's); its 1021-of-1024 UpdateMask and the Duplicate before it are its own.

Deviations: the AddrReg form as an offset (above); sizes other than the example's 1024 halves are accepted (any
multiple of 256 halves up to 16384: scenario 4 runs half of DivCeil(n, 128) steps, so the input must be whole
pairs of vectors). The Memory-API `DivCeil` helper of the example is `aj.DivCeil`.

Devices: ascend950 only (the Reg API). Fidelity: BIT-EXACT (half Add RNE, lane copies). The expectation is the
example's gen_data.py recomputed in numpy (float16 adds: the same RNE), for any size.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg


def copy_with_offset_vf(zAddr, xAddr, yAddr, oneRepeatSize, repeatTimes, calculateLength, T):
    """CopyWithOffsetVF: the offset i * oneRepeatSize per step; UpdateMask of calculateLength."""
    xReg, yReg, zReg = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    for i in range(repeatTimes):
        mask, calculateLength = R.UpdateMask(T, calculateLength)
        R.LoadAlign(xReg, xAddr, i * oneRepeatSize)
        R.LoadAlign(yReg, yAddr, i * oneRepeatSize)
        R.Add(zReg, xReg, yReg, mask)
        R.StoreAlign(zAddr, zReg, mask, i * oneRepeatSize)


def copy_with_post_update_vf(zAddr, xAddr, yAddr, oneRepeatSize, repeatTimes, outputLength, T):
    """CopyWithPostUpdateVF: POST_MODE_UPDATE loads and stores."""
    xReg, yReg, zReg = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    x = y = z = 0
    for _ in range(repeatTimes):
        mask, outputLength = R.UpdateMask(T, outputLength)
        x = R.LoadAlign(xReg, xAddr, x, post_update_stride=oneRepeatSize)
        y = R.LoadAlign(yReg, yAddr, y, post_update_stride=oneRepeatSize)
        R.Add(zReg, xReg, yReg, mask)
        z = R.StoreAlign(zAddr, zReg, mask, z, post_update_stride=oneRepeatSize)


def copy_with_addr_reg_vf(zAddr, xAddr, yAddr, oneRepeatSize, repeatTimes, outputLength, T):
    """CopyWithAddrRegVF: the AddrReg CreateAddrReg<T>(i, oneRepeatSize) as the offset i * oneRepeatSize."""
    xReg, yReg, zReg = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    for i in range(repeatTimes):
        areg = i * oneRepeatSize
        mask, outputLength = R.UpdateMask(T, outputLength)
        R.LoadAlign(xReg, xAddr, areg)
        R.LoadAlign(yReg, yAddr, areg)
        R.Add(zReg, xReg, yReg, mask)
        R.StoreAlign(zAddr, zReg, mask, areg)


def copy_data_block_vf(zAddr, xAddr, yAddr, oneRepeatSize, repeatTimes, outputLength, srcBlockStride, T):
    """CopyDataBlock: DATA_BLOCK_COPY with POST_MODE_UPDATE, every srcBlockStride-th DataBlock in, contiguous out."""
    xReg, yReg, zReg = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    oneRepeatDataBlock = 8
    dstBlockStride = 1
    x = y = z = 0
    for _ in range(repeatTimes):
        mask, outputLength = R.UpdateMask(T, outputLength)
        x = R.LoadAlign(xReg, xAddr, x, data_block_stride=srcBlockStride,
                        repeat_stride=srcBlockStride * oneRepeatDataBlock, mask=mask,
                        post_mode=R.PostLiteral.POST_MODE_UPDATE)
        y = R.LoadAlign(yReg, yAddr, y, data_block_stride=srcBlockStride,
                        repeat_stride=srcBlockStride * oneRepeatDataBlock, mask=mask,
                        post_mode=R.PostLiteral.POST_MODE_UPDATE)
        R.Add(zReg, xReg, yReg, mask)
        z = R.StoreAlign(zAddr, zReg, z, data_block_stride=dstBlockStride,
                         repeat_stride=dstBlockStride * oneRepeatDataBlock, mask=mask,
                         post_mode=R.PostLiteral.POST_MODE_UPDATE)


def copy_in_broadcast_vf(zAddr, xAddr, yAddr, oneRepeatSize, repeatTimes, T):
    """CopyInBroadcastVF: DIST_BRC_B16 loads, the step's first element in every lane."""
    xReg, yReg, zReg = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    mask = R.CreateMask(T)
    for i in range(repeatTimes):
        R.LoadAlign(xReg, xAddr[i * oneRepeatSize], dist=R.LoadDist.DIST_BRC_B16)
        R.LoadAlign(yReg, yAddr[i * oneRepeatSize], dist=R.LoadDist.DIST_BRC_B16)
        R.Add(zReg, xReg, yReg, mask)
        R.StoreAlign(zAddr[i * oneRepeatSize], zReg, mask)


def copy_in_upsample_vf(zAddr, xAddr, yAddr, oneRepeatSize, repeatTimes, T):
    """CopyInUpsampleVF: DIST_US_B16 loads of half a vector, each element twice."""
    xReg, yReg, zReg = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    mask = R.CreateMask(T)
    for i in range(repeatTimes):
        R.LoadAlign(xReg, xAddr[i * oneRepeatSize // 2], dist=R.LoadDist.DIST_US_B16)
        R.LoadAlign(yReg, yAddr[i * oneRepeatSize // 2], dist=R.LoadDist.DIST_US_B16)
        R.Add(zReg, xReg, yReg, mask)
        R.StoreAlign(zAddr[i * oneRepeatSize], zReg, mask)


PLAIN = {1: copy_with_offset_vf, 2: copy_with_post_update_vf, 3: copy_with_addr_reg_vf, 4: copy_data_block_vf,
         5: copy_in_broadcast_vf, 6: copy_in_upsample_vf}
COMPILED = {k: R.simd_vf(f) for k, f in PLAIN.items()}


def output_length(scenario, inputLength):
    """The example's outputLength: half the input for scenario 4, twice for scenario 6."""
    return {4: inputLength // 2, 6: inputLength * 2}.get(scenario, inputLength)


def ld_st_reg_align_kernel(x, y, z, inputLength, scenarioNum, vfs):
    """ld_st_reg_align_kernel + Kernel<half>::Process for one scenario."""
    aj.InitSocState()
    T = "half"
    outputLength = output_length(scenarioNum, inputLength)
    xGm, yGm, zGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
    xGm.SetGlobalBuffer(x)
    yGm.SetGlobalBuffer(y)
    zGm.SetGlobalBuffer(z)
    ubAllocator = aj.LocalMemAllocator()
    xLocal = ubAllocator.Alloc(T, inputLength)
    yLocal = ubAllocator.Alloc(T, inputLength)
    zLocal = ubAllocator.Alloc(T, outputLength)
    aj.DataCopy(xLocal, xGm, inputLength)
    aj.DataCopy(yLocal, yGm, inputLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    oneRepeatSize = aj.GetVecLen() // 2
    repeatTimes = aj.DivCeil(inputLength, oneRepeatSize)
    vf = vfs[scenarioNum]
    if scenarioNum == 1:   # 1021 of 1024: the last 3 results are the Duplicate's zeros
        aj.Duplicate(zLocal, np.float16(0), outputLength)
        R.asc_vf_call(vf, zLocal, xLocal, yLocal, oneRepeatSize, repeatTimes, outputLength - 3, T)
    elif scenarioNum in (2, 3):
        R.asc_vf_call(vf, zLocal, xLocal, yLocal, oneRepeatSize, repeatTimes, outputLength, T)
    elif scenarioNum == 4:
        R.asc_vf_call(vf, zLocal, xLocal, yLocal, oneRepeatSize, repeatTimes // 2, outputLength, 2, T)
    elif scenarioNum == 5:
        R.asc_vf_call(vf, zLocal, xLocal, yLocal, oneRepeatSize, repeatTimes, T)
    else:
        R.asc_vf_call(vf, zLocal, xLocal, yLocal, oneRepeatSize, repeatTimes * 2, T)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(zGm, zLocal, outputLength)
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    """gen_data.py's x = y = arange(size) as half; seeds other than 0 shuffle the values (every sum stays exact or
    one RNE rounding, as the device's)."""
    x = np.arange(size, dtype=np.float16)
    y = np.arange(size, dtype=np.float16)
    if seed:
        rng = np.random.default_rng(seed)
        x, y = rng.permutation(x), rng.standard_normal(size).astype(np.float16)
    return {"x": x, "y": y}


def run_scenario(scenario, device, inputs, compiled=True):
    x, y = inputs["x"], inputs["y"]
    z = np.zeros(output_length(scenario, x.size), np.float16)
    aj.launch(ld_st_reg_align_kernel, 1, device, x, y, z, x.size, scenario, COMPILED if compiled else PLAIN)
    return {"z": z}


def expected_scenario(scenario, inputs):
    """gen_data.py's goldens, for any size."""
    z = inputs["x"] + inputs["y"]                          # float16 + float16: one RNE rounding, as the Add
    if scenario == 1:
        z[-3:] = 0                                         # outside the UpdateMask: the Duplicate's zeros
    elif scenario == 4:
        z = z.reshape(-1, 32)[:, :16].ravel()              # every other DataBlock of 16 halves
    elif scenario == 5:
        z = np.repeat(z[::128], 128)                       # each 128-lane step's first element in every lane
    elif scenario == 6:
        z = np.repeat(z, 2)                                # each element twice
    return {"z": z}


_SOURCE = ("mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/00_data_movement/"
           "reg_load_store_align/ld_st_reg_align.asc")
_DESCRIPTIONS = {
    1: ("reg_align_offset", "devkit reg_load_store_align, scenario 1: z = x + y at per-step offsets under UpdateMask "
        "of all but the last 3 (zeros from a Duplicate)"),
    2: ("reg_align_post_update", "devkit reg_load_store_align, scenario 2: z = x + y by POST_MODE_UPDATE LoadAlign / "
        "StoreAlign and UpdateMask"),
    3: ("reg_align_addr_reg", "devkit reg_load_store_align, scenario 3: z = x + y addressed by an AddrReg "
        "(CreateAddrReg(i, 128), ported as the offset)"),
    4: ("reg_align_data_block", "devkit reg_load_store_align, scenario 4: DATA_BLOCK_COPY loads of every other "
        "DataBlock (POST_MODE_UPDATE), a contiguous DATA_BLOCK_COPY store: 512 of 1024"),
    5: ("reg_align_broadcast", "devkit reg_load_store_align, scenario 5: DIST_BRC_B16 loads, each vector's first "
        "element broadcast"),
    6: ("reg_align_upsample", "devkit reg_load_store_align, scenario 6: DIST_US_B16 loads, each element twice"),
}


def _spec(scenario):
    name, description = _DESCRIPTIONS[scenario]
    return KernelSpec(name, description, make_inputs,
                      lambda device, inputs, s=scenario: run_scenario(s, device, inputs),
                      lambda device, inputs, s=scenario: expected_scenario(s, inputs),
                      default_size=1024, devices=("ascend950",),
                      size_rule="a multiple of 256 halves, at most 16384",
                      size_ok=lambda n: 0 < n <= 16384 and n % 256 == 0, source=_SOURCE)


KERNELS = [_spec(s) for s in (1, 2, 3, 4, 5, 6)]
