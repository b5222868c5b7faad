"""The devkit's Reg trait example, scenario 1 (Ascend 950): z = x / y of int64 in a VF whose registers carry the
default trait RegTraitNumOne (32 int64 lanes a 256-byte register), loads and stores post-updating their address.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
02_reg_vector_compute/trait/trait.asc (`TraitNumOneVF<int64_t>`, `KernelTrait<int64_t>`, one block of
10 * 1024, SCENARIO_NUM 1) and scripts/gen_data.py (x uniform in [1, 1000), y in [1, 100) as int64; golden
(x / y).astype(int64), the quotient truncated).

The kernel: InitSocState; a LocalMemAllocator's three tiles; DataCopy x and y in; MTE2_V; the VF: CreateMask<int64,
ALL>, per 32-lane step LoadAlign x and y with POST_MODE_UPDATE, Div, StoreAlign with POST_MODE_UPDATE; V_MTE3;
DataCopy out; PipeBarrier<PIPE_ALL>. `RegTraitNumOne` is left out: it is the default (aj.Reg names it a
NotOfferedError saying so, docs/decisions.md "What the session-38 Reg ports found").
Not ported: scenario 2 (RegTraitNumTwo, two registers a 64-bit tensor: not offered, SPEC-2 14); it divides the
same numbers 64 lanes at a time, so its output is this kernel's.

Sizes: the example's 10240 int64 by default (three tiles of 80 KiB in the 950's UB); any multiple of 32 (whole
registers) up to 10240. Devices: the 950 (the Reg API).
Fidelity: BIT-EXACT (the 950's integer Div, SPEC-2 D48: truncated toward zero, x / 0 = -1, INT64_MIN / -1 wraps).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
SOURCE = ("mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/trait/"
          "trait.asc")


@R.simd_vf
def TraitNumOneVF(xAddr, yAddr, zAddr, repeatTimes, oneRepeatSize):
    mask = R.CreateMask("int64", R.MaskPattern.ALL)
    xReg, yReg, zReg = R.RegTensor("int64"), R.RegTensor("int64"), R.RegTensor("int64")
    x = y = z = 0
    for i in range(repeatTimes):
        x = R.LoadAlign(xReg, xAddr, x, post_update_stride=oneRepeatSize)
        y = R.LoadAlign(yReg, yAddr, y, post_update_stride=oneRepeatSize)
        R.Div(zReg, xReg, yReg, mask)
        z = R.StoreAlign(zAddr, zReg, mask, z, post_update_stride=oneRepeatSize)


def trait(x, y, z, singleCoreLength):
    aj.InitSocState()
    xGm, yGm, zGm = aj.GlobalTensor("int64"), aj.GlobalTensor("int64"), aj.GlobalTensor("int64")
    xGm.SetGlobalBuffer(x)
    yGm.SetGlobalBuffer(y)
    zGm.SetGlobalBuffer(z)
    coreOffset = aj.GetBlockIdx() * singleCoreLength
    ubAllocator = aj.LocalMemAllocator()
    xLocal = ubAllocator.Alloc("int64", singleCoreLength)
    yLocal = ubAllocator.Alloc("int64", singleCoreLength)
    zLocal = ubAllocator.Alloc("int64", singleCoreLength)
    aj.DataCopy(xLocal, xGm[coreOffset], singleCoreLength)
    aj.DataCopy(yLocal, yGm[coreOffset], singleCoreLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    oneRepeatSize = aj.GetVecLen() // aj.sizeof("int64")
    repeatTimes = aj.DivCeil(singleCoreLength, oneRepeatSize)
    R.asc_vf_call(TraitNumOneVF, xLocal, yLocal, zLocal, repeatTimes, oneRepeatSize)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(zGm[coreOffset], zLocal, singleCoreLength)
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    """gen_data.py's draws (x in [1, 1000), y in [1, 100), truncated to int64); a later seed draws signed values over
    the whole range with the edges: x / 0, INT64_MIN / -1, negative quotients."""
    rng = np.random.default_rng(seed)
    if seed == 0:
        return {"x": rng.uniform(1, 1000, size).astype(np.int64), "y": rng.uniform(1, 100, size).astype(np.int64)}
    x = rng.integers(-2**63, 2**63 - 1, size, dtype=np.int64)
    y = rng.integers(-2**20, 2**20, size, dtype=np.int64)
    x[:5] = [7, -7, np.iinfo(np.int64).min, 5, -2**62]
    y[:5] = [0, 2, -1, -3, 0]
    return {"x": x, "y": y}


def run(device, inputs):
    z = np.zeros_like(inputs["x"])
    aj.launch(trait, 1, device, inputs["x"], inputs["y"], z, z.size)
    return {"z": z}


def int64_div(x, y):
    """SPEC-2 D48 for int64: the quotient truncated toward zero; x / 0 = -1; INT64_MIN / -1 = INT64_MIN."""
    out = np.full(x.shape, -1, np.int64)
    for i, (a, b) in enumerate(zip(x.tolist(), y.tolist())):
        if b != 0:
            q = abs(a) // abs(b)
            q = q if (a < 0) == (b < 0) else -q
            out[i] = (q + 2**63) % 2**64 - 2**63
    return out


def expected(device, inputs):
    return {"z": int64_div(inputs["x"], inputs["y"])}


KERNEL = KernelSpec("reg_trait_div_int64", "devkit Reg trait example, scenario 1 (int64 Div in a VF, 32 lanes a "
                    "register, post-updating LoadAlign / StoreAlign)", make_inputs, run, expected,
                    default_size=10 * 1024, devices=("ascend950",),
                    size_rule="a multiple of 32 int64, at most 10240",
                    size_ok=lambda n: 0 < n <= 10240 and n % 32 == 0, source=SOURCE)
