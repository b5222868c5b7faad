"""The devkit's Reg MaskReg load/store example, two scenarios:
1. `reg_mask_copy` (uint8): a MaskReg loaded from the UB (LoadAlign of 32 bytes, one bit a lane), a Duplicate of 2
   under it stored under it (the other lanes keep the zeros a Memory-API Duplicate wrote), then an ALL MaskReg
   stored as 32 bytes right after the first vector (StoreAlign of a MaskReg);
2. `reg_mask_select` (float): per 64-float step x, y and the step's 32-byte MaskReg loaded with POST_MODE_UPDATE,
   z = Select(x, y, mask) (an element's bit is bit 4 i of the step's mask bytes), stored under an ALL mask.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
00_data_movement/reg_load_store_mask/ld_st_reg_mask_scenario_1.asc (`CopyVF<uint8_t>`, `KernelScenario1<uint8_t,
1024>`) and ld_st_reg_mask_scenario_2.asc (`SelectVF<float>`, `KernelScenario2<float, 256, 128>`), and
scripts/gen_data.py (scenario 1: src bytes 0 and 31 = 1, golden 2 at 0 and 248 and 255 at 256..287; scenario 2:
x, y uniform in [0, 2), mask bytes random in [0, 255), golden x where bit 4 i is set else y).

Scenario 1: LocalMemAllocator x, y (totalLength uint8); DataCopy x in; MTE2_V; Duplicate<uint8_t>(y, 0,
totalLength); the VF; V_MTE3; DataCopy y out; PipeBarrier<PIPE_ALL>. Scenario 2: x, y, mask (4 x 32 bytes), z
tiles; three DataCopys in; MTE2_V; the VF (CreateMask<float>() then per step three POST_MODE_UPDATE loads, Select,
a POST_MODE_UPDATE store); V_MTE3; DataCopy z out; PipeBarrier<PIPE_ALL>. (The gallery's select_reg ports the
devkit's Reg select example, whose VF is scenario 2's but for the CreateMask of the selection register.)

Deviation (a library gap when ported, closed in session 42): scenario 2's VF makes its selection register as C++
does, `MaskReg mask = CreateMask<T>()`, and then LoadAligns into it; in a `@aj.Reg.simd_vf` VF a CreateMask result
could not be a LoadAlign destination (numba: no LoadAlign for UniTuple(uint64 x 4)), so the whole VF ran as plain
Python with an UncompiledVFWarning. The port makes the register with `R.MaskReg()` (the first load overwrites it
either way: same result); `ORIGINAL_CREATE_MASK = True` (or `run_select(..., original=True)`) runs the original,
which now compiles too (docs/decisions.md "Reg MaskRegs made in a VF").

Sizes: scenario 1 the example's 1024 bytes (the VF touches the first 288; any multiple of 32 from 288 to 65536
runs; seeds other than 0 draw the 32 mask bytes at random); scenario 2 the example's 256 floats (any multiple of 64
up to 8192). Devices: ascend950 only (Reg API). Fidelity: BIT-EXACT (moves, Duplicate, Select).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
MASK_BYTES = 32                    # one MaskReg: GetVecLen() / 8 bytes


def copy_vf(dstAddr, srcAddr, repeatTimes, oneRepeatSize):
    """CopyVF<uint8_t> (repeatTimes unused, as in the original)."""
    reg = R.RegTensor("uint8")
    mask = R.MaskReg()
    R.LoadAlign(mask, srcAddr)                              # 32 bytes -> 256 lane bits
    R.Duplicate(reg, 2, mask)
    R.StoreAlign(dstAddr, reg, mask)
    mask = R.CreateMask("uint8", R.MaskPattern.ALL)         # save mask with offset
    R.StoreAlign(dstAddr[oneRepeatSize], mask)


def select_vf_original(xAddr, yAddr, maskAddr, zAddr, repeatTimes, oneRepeatSize, maskRepeatSize):
    """SelectVF<float> as written: `MaskReg mask = CreateMask<T>()`, then loaded into (docstring)."""
    xReg, yReg, zReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    mask = R.CreateMask("float")
    storeMask = R.CreateMask("float", R.MaskPattern.ALL)
    xOff = yOff = mOff = zOff = 0
    for i in range(repeatTimes):
        xOff = R.LoadAlign(xReg, xAddr, xOff, post_update_stride=oneRepeatSize)
        yOff = R.LoadAlign(yReg, yAddr, yOff, post_update_stride=oneRepeatSize)
        mOff = R.LoadAlign(mask, maskAddr, mOff, post_update_stride=maskRepeatSize)
        R.Select(zReg, xReg, yReg, mask)
        zOff = R.StoreAlign(zAddr, zReg, storeMask, zOff, post_update_stride=oneRepeatSize)


def select_vf(xAddr, yAddr, maskAddr, zAddr, repeatTimes, oneRepeatSize, maskRepeatSize):
    """SelectVF<float>, the selection register made by MaskReg() (deviation, docstring)."""
    xReg, yReg, zReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    mask = R.MaskReg()                        # the original: CreateMask<T>(), overwritten by the first load
    storeMask = R.CreateMask("float", R.MaskPattern.ALL)
    xOff = yOff = mOff = zOff = 0
    for i in range(repeatTimes):
        xOff = R.LoadAlign(xReg, xAddr, xOff, post_update_stride=oneRepeatSize)
        yOff = R.LoadAlign(yReg, yAddr, yOff, post_update_stride=oneRepeatSize)
        mOff = R.LoadAlign(mask, maskAddr, mOff, post_update_stride=maskRepeatSize)
        R.Select(zReg, xReg, yReg, mask)
        zOff = R.StoreAlign(zAddr, zReg, storeMask, zOff, post_update_stride=oneRepeatSize)


COPY_VF = R.simd_vf(copy_vf)
SELECT_VF = R.simd_vf(select_vf)
SELECT_VF_ORIGINAL = R.simd_vf(select_vf_original)     # its masks compiled as word arrays (docstring)
ORIGINAL_CREATE_MASK = False


def ld_st_reg_mask_scenario_1(x, y, totalLength, vf):
    aj.InitSocState()
    xGm, yGm = aj.GlobalTensor(), aj.GlobalTensor()
    xGm.SetGlobalBuffer(x)
    yGm.SetGlobalBuffer(y)
    ubAllocator = aj.LocalMemAllocator()
    xLocal = ubAllocator.Alloc("uint8", totalLength)
    yLocal = ubAllocator.Alloc("uint8", totalLength)
    aj.DataCopy(xLocal, xGm, totalLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.Duplicate(yLocal, np.uint8(0), totalLength)
    oneRepeatSize = aj.GetVecLen() // 1
    repeatTimes = aj.DivCeil(totalLength, oneRepeatSize)
    R.asc_vf_call(vf, yLocal, xLocal, repeatTimes, oneRepeatSize)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(yGm, yLocal, totalLength)
    aj.PipeBarrier(aj.PIPE_ALL)


def ld_st_reg_mask_scenario_2(x, y, mask, z, totalLength, maskLength, vf):
    aj.InitSocState()
    xGm, yGm, maskGm, zGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
    xGm.SetGlobalBuffer(x)
    yGm.SetGlobalBuffer(y)
    maskGm.SetGlobalBuffer(mask)
    zGm.SetGlobalBuffer(z)
    ubAllocator = aj.LocalMemAllocator()
    xLocal = ubAllocator.Alloc("float", totalLength)
    yLocal = ubAllocator.Alloc("float", totalLength)
    maskLocal = ubAllocator.Alloc("uint8", maskLength)
    zLocal = ubAllocator.Alloc("float", totalLength)
    aj.DataCopy(xLocal, xGm, totalLength)
    aj.DataCopy(yLocal, yGm, totalLength)
    aj.DataCopy(maskLocal, maskGm, maskLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    oneRepeatSize = aj.GetVecLen() // 4
    maskRepeatSize = aj.GetVecLen() // 8
    repeatTimes = aj.DivCeil(totalLength, oneRepeatSize)
    R.asc_vf_call(vf, xLocal, yLocal, maskLocal, zLocal, repeatTimes, oneRepeatSize, maskRepeatSize)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(zGm, zLocal, totalLength)
    aj.PipeBarrier(aj.PIPE_ALL)


# ---- scenario 1

def make_inputs_copy(size, seed):
    """gen_data.py's gen_data_1 at seed 0 (bytes 0 and 31 = 1); other seeds: the 32 mask bytes random."""
    src = np.zeros(size, np.uint8)
    if seed == 0:
        src[0] = src[31] = 1
    else:
        src[:MASK_BYTES] = np.random.default_rng(seed).integers(0, 256, MASK_BYTES).astype(np.uint8)
    return {"x": src}


def run_copy(device, inputs, compiled=True):
    x = inputs["x"]
    y = np.full_like(x, 0xA5)                     # not zeros: the Memory-API Duplicate must clear them
    aj.launch(ld_st_reg_mask_scenario_1, 1, device, x, y, x.size, COPY_VF if compiled else copy_vf)
    return {"y": y}


def expected_copy(device, inputs):
    """2 on the lanes whose bit is set in the first 32 bytes (lane i: bit i % 8 of byte i // 8), 0xFF over the next
    32 bytes (the ALL mask stored), 0 elsewhere."""
    x = inputs["x"]
    y = np.zeros_like(x)
    lanes = np.unpackbits(x[:MASK_BYTES], bitorder="little").astype(bool)
    y[:256][lanes] = 2
    y[256:256 + MASK_BYTES] = 0xFF
    return {"y": y}


# ---- scenario 2

def make_inputs_select(size, seed):
    """gen_data.py's gen_data_2: x, y uniform in [0, 2), mask bytes in [0, 255); specials in the first lanes."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 2, size).astype(np.float32)
    y = rng.uniform(0, 2, size).astype(np.float32)
    x[:4], y[:4] = [np.nan, -0.0, np.inf, 0.0], [1.0, 0.0, -np.inf, np.nan]
    mask = rng.integers(0, 255, size // 64 * MASK_BYTES).astype(np.uint8)
    return {"x": x, "y": y, "mask": mask}


def run_select(device, inputs, compiled=True, original=None):
    original = ORIGINAL_CREATE_MASK if original is None else original
    x, y, mask = inputs["x"], inputs["y"], inputs["mask"]
    z = np.zeros_like(x)
    if original:
        vf = SELECT_VF_ORIGINAL if compiled else select_vf_original
    else:
        vf = SELECT_VF if compiled else select_vf
    aj.launch(ld_st_reg_mask_scenario_2, 1, device, x, y, mask, z, x.size, mask.size, vf)
    return {"z": z}


def expected_select(device, inputs):
    """gen_data_2's golden: element i takes x where bit (i % 2) * 4 of mask byte i // 2 is set, else y."""
    x, y, mask = inputs["x"], inputs["y"], inputs["mask"]
    i = np.arange(x.size)
    take = (mask[i // 2] >> ((i % 2) * 4)) & 1
    return {"z": np.where(take == 1, x, y)}


SOURCE = "mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/00_data_movement/reg_load_store_mask/"
KERNELS = [
    KernelSpec("reg_mask_copy", "devkit Reg MaskReg load/store example, scenario 1: a MaskReg loaded from the UB "
               "gates a Duplicate's store; an ALL MaskReg stored as 32 bytes", make_inputs_copy, run_copy,
               expected_copy, default_size=1024, devices=("ascend950",),
               size_rule="a multiple of 32 bytes, 288..65536", size_ok=lambda n: 288 <= n <= 65536 and n % 32 == 0,
               source=SOURCE + "ld_st_reg_mask_scenario_1.asc"),
    KernelSpec("reg_mask_select", "devkit Reg MaskReg load/store example, scenario 2: Select by a MaskReg loaded "
               "per step with POST_MODE_UPDATE", make_inputs_select, run_select, expected_select, default_size=256,
               devices=("ascend950",), size_rule="a multiple of 64 floats, at most 8192",
               size_ok=lambda n: 0 < n <= 8192 and n % 64 == 0, source=SOURCE + "ld_st_reg_mask_scenario_2.asc"),
]
