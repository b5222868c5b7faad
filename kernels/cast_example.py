"""The devkit example `cast`, scenario 1, ported line by line: 512 halves -> int32 with CAST_CEIL (InitSocState, a
LocalMemAllocator pair of tensors, `xGm` / `yGm` windows at the block's offset, MTE2_V and V_MTE3 flag pairs, the
final PipeBarrier<PIPE_ALL>). Scenario 0 (half -> int4b_t) is not ported: int4b_t is out of scope (SPEC-2 D28).

Source: mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
01_memory_vector_compute/cast/cast.asc (`cast_custom<512, 512, mask>`, scenarioNum 1, one block).

Devices: the ISASI SetFlag/WaitFlag are not offered on the 310B (SPEC-2 1.9); half -> int32 with CAST_CEIL is
offered everywhere else (SPEC-2 7.2).

Fidelity: BIT-EXACT (Cast is BIT-EXACT, SPEC-2 0.3). The expectation is ceil of each half, exact in float64, with
D45's integer specials: NaN -> 0, +-inf -> the int32 MAX / MIN (every finite half fits int32).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

TOTAL_LENGTH = 512
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore", "atlas-training")


def cast_custom(x, y, blockLength, tileLength):
    aj.InitSocState()
    xGm, yGm = aj.GlobalTensor(), aj.GlobalTensor()
    xGm.SetGlobalBuffer(x[blockLength * aj.GetBlockIdx():], blockLength)
    yGm.SetGlobalBuffer(y[blockLength * aj.GetBlockIdx():], blockLength)
    ubAllocator = aj.LocalMemAllocator()
    xLocal = ubAllocator.Alloc("half", tileLength)
    yLocal = ubAllocator.Alloc("int32", tileLength)
    aj.DataCopy(xLocal, xGm, tileLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.Cast(yLocal, xLocal, aj.RoundMode.CAST_CEIL, tileLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(yGm, yLocal, tileLength)
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(TOTAL_LENGTH) * 100).astype(np.float16)
    x[:13] = [0.5, -0.5, 1.0, -1.0, -0.0, 2.5, -2.5, 65504, -65504, 6e-8, np.nan, np.inf, -np.inf]
    return {"x": x}


def run(device, inputs):
    y = np.zeros(TOTAL_LENGTH, np.int32)
    aj.launch(cast_custom, 1, device, inputs["x"], y, TOTAL_LENGTH, TOTAL_LENGTH)
    return {"y": y}


def expected(device, inputs):
    x = inputs["x"].astype(np.float64)
    with np.errstate(invalid="ignore"):
        y = np.where(np.isnan(x), 0, np.clip(np.ceil(x), -2.0 ** 31, 2.0 ** 31 - 1))
    return {"y": y.astype(np.int32)}


KERNEL = KernelSpec("cast_ceil", "devkit cast, scenario 1: 512 halves -> int32, CAST_CEIL", make_inputs, run, expected,
                    default_size=TOTAL_LENGTH, devices=DEVICES, size_rule=f"{TOTAL_LENGTH} (the example's data)",
                    size_ok=lambda n: n == TOTAL_LENGTH,
                    source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/"
                           "01_memory_vector_compute/cast/cast.asc")
