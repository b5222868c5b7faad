"""The devkit's get_ub_size utility example: a half Abs tiled by the UB size the kernel asks for, in two scenarios:
1. `GetUBSizeInBytes()` (the compile-time constant), 16384 halves: one tile;
2. `GetRuntimeUBSize()` (the runtime value), 126976 halves: two tiles that fill the whole 248 KiB UB.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
09_utils/get_ub_size/get_ub_size.asc (`get_ub_size_custom`, SCENARIO_NUM 1 and 2, one block) and
scripts/gen_data.py (x uniform over the finite halves, golden |x|). The devkit pages: SIMD-API/基础API/工具接口/
系统资源与变量/GetUBSizeInBytes.md and GetRuntimeUBSize.md.

The kernel: tileLength = UB bytes / sizeof(half) / 2 when the input is longer, else the whole input; tileNum tiles;
two hand-placed LocalTensors (`LocalTensor(TPosition::VECIN, 0, tileLength)` and VECOUT right after it: static
addresses, no TPipe); per tile DataCopy GM -> UB, MTE2_V, Abs(z, x, curLength), V_MTE3, V_MTE2 (the next tile's
copy-in must wait for this Abs to have read x), DataCopy UB -> GM, MTE3_V (the next Abs must wait for this
copy-out to have read z); PipeBarrier<PIPE_ALL> at the end.

Sizes: the examples' 16384 and 126976; any multiple of 16 halves up to 2^20 runs (DataCopy moves whole 32-byte
blocks; the last tile is curLength = total - i * tileLength, a multiple of 16 too). The inputs add the specials
(+-0, +-inf, the largest and smallest subnormal, NaNs of either sign) to the example's uniform draw.
Devices: ascend950 only (GetUBSizeInBytes / GetRuntimeUBSize are 950 APIs, docs/decisions.md).
Fidelity: BIT-EXACT (Abs clears the sign bit; INF/NaN mode, the 950's kernel-entry CTRL[48] = 1; SPEC-2 4.3).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

HALF_BYTES = 2
GET_UB_SIZE_IN_BYTES, GET_RUNTIME_UB_SIZE = 1, 2


def get_ub_size_custom(x, z, totalLength, scenarioNum):
    aj.InitSocState()
    if scenarioNum == GET_UB_SIZE_IN_BYTES:
        ub = aj.GetUBSizeInBytes()     # scenario 1: the compile-time constant
    else:
        ub = aj.GetRuntimeUBSize()     # scenario 2: the runtime value
    if totalLength > ub // HALF_BYTES // 2:
        tileLength = ub // HALF_BYTES // 2
    else:
        tileLength = totalLength
    tileNum = (totalLength + tileLength - 1) // tileLength
    xGm, zGm = aj.GlobalTensor(), aj.GlobalTensor()
    xGm.SetGlobalBuffer(x)
    zGm.SetGlobalBuffer(z)
    xAddr = 0                                   # static address allocation
    zAddr = xAddr + tileLength * HALF_BYTES
    xLocal = aj.LocalTensor(aj.TPosition.VECIN, xAddr, tileLength, dtype="half")
    zLocal = aj.LocalTensor(aj.TPosition.VECOUT, zAddr, tileLength, dtype="half")
    for i in range(tileNum):
        curLength = totalLength - i * tileLength if i + 1 == tileNum else tileLength
        aj.DataCopy(xLocal, xGm[i * tileLength], curLength)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.Abs(zLocal, xLocal, curLength)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)
        aj.DataCopy(zGm[i * tileLength], zLocal, curLength)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_V)
    aj.PipeBarrier(aj.PIPE_ALL)


SPECIALS = [0x0000, 0x8000, 0x7C00, 0xFC00, 0x03FF, 0x8001, 0x7E00, 0xFE00, 0x7BFF, 0xFBFF]


def make_inputs(size, seed):
    """gen_data.py: uniform over [-65504, 65504], the specials in the first lanes."""
    x = np.random.default_rng(seed).uniform(-65504, 65504, size).astype(np.float16)
    k = min(size, len(SPECIALS))
    x[:k] = np.array(SPECIALS[:k], np.uint16).view(np.float16)
    return {"x": x}


def _runner(scenario):
    def run(device, inputs):
        x = inputs["x"]
        z = np.zeros_like(x)
        aj.launch(get_ub_size_custom, 1, device, x, z, x.size, scenario)
        return {"z": z}
    return run


def expected(device, inputs):
    """|x|: the sign bit cleared (NaN stays NaN, its payload kept)."""
    return {"z": (inputs["x"].view(np.uint16) & np.uint16(0x7FFF)).view(np.float16)}


def _size_ok(n):
    return 0 < n <= 1 << 20 and n % 16 == 0


SOURCE = ("mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/09_utils/get_ub_size/"
          "get_ub_size.asc")
KERNELS = [
    KernelSpec("get_ub_size", "devkit get_ub_size example, scenario 1: half Abs tiled by GetUBSizeInBytes() / 4 "
               "halves over two hand-placed LocalTensors", make_inputs, _runner(GET_UB_SIZE_IN_BYTES), expected,
               default_size=16384, devices=("ascend950",), size_rule="a multiple of 16 halves, at most 2^20",
               size_ok=_size_ok, source=SOURCE),
    KernelSpec("get_ub_size_runtime", "devkit get_ub_size example, scenario 2: half Abs tiled by GetRuntimeUBSize() "
               "/ 4 halves (two tiles fill the UB)", make_inputs, _runner(GET_RUNTIME_UB_SIZE), expected,
               default_size=126976, devices=("ascend950",), size_rule="a multiple of 16 halves, at most 2^20",
               size_ok=_size_ok, source=SOURCE),
]
