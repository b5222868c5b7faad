"""The devkit examples `brcb` and `duplicate`, ported line by line (InitSocState, LocalMemAllocator tensors, MTE2_V and
V_MTE3 flag pairs, the final PipeBarrier<PIPE_ALL>):
- `brcb`: 16 uint16 values, each broadcast to one 32-byte DataBlock of the 256-element result by
  `Brcb(yLocal, xLocal, 2, {1, 8})` (2 repeats of 8 values; the BrcbRepeatParams given as the brace list);
- `duplicate`: `Duplicate<half>(dstLocal, half(18.0), 256)` over a tensor the example first fills from GM.

Source: mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
01_memory_vector_compute/brcb/brcb.asc (`brcb_custom`) and duplicate/duplicate.asc (`duplicate_custom<256>`).

Devices: Brcb is not offered on the 310B and the 910, the ISASI SetFlag/WaitFlag not on the 310B (SPEC-2 1.9):
`brcb` runs on the 950, A3, A2 and 310P, `duplicate` everywhere but the 310B.

Fidelity: BIT-EXACT (Brcb, Duplicate copy bits, SPEC-2 0.3). The expectations are the examples' goldens: element
8 * i + k of the broadcast (in 16-element blocks) is x[i]; every duplicated element is 18.0.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec


def brcb_custom(x, y):
    aj.InitSocState()
    xGm, yGm = aj.GlobalTensor(), aj.GlobalTensor()
    xGm.SetGlobalBuffer(x)
    yGm.SetGlobalBuffer(y)
    ubAllocator = aj.LocalMemAllocator()
    xLocal = ubAllocator.Alloc("uint16", 16)
    yLocal = ubAllocator.Alloc("uint16", 256)
    aj.DataCopy(xLocal, xGm, 16)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.Brcb(yLocal, xLocal, 2, (1, 8))                # {dstBlkStride 1, dstRepStride 8}
    aj.SetFlag(aj.EVENT_ID1, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID1, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(yGm, yLocal, 256)
    aj.PipeBarrier(aj.PIPE_ALL)


def duplicate_custom(x, y, totalLength):
    aj.InitSocState()
    srcGlobal, dstGlobal = aj.GlobalTensor(), aj.GlobalTensor()
    srcGlobal.SetGlobalBuffer(x)
    dstGlobal.SetGlobalBuffer(y)
    ubAllocator = aj.LocalMemAllocator()
    srcLocal = ubAllocator.Alloc("half", totalLength)
    dstLocal = ubAllocator.Alloc("half", totalLength)
    aj.DataCopy(srcLocal, srcGlobal, totalLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    inputVal = np.float16(18.0)
    aj.Duplicate(dstLocal, inputVal, totalLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(dstGlobal, dstLocal, totalLength)
    aj.PipeBarrier(aj.PIPE_ALL)


def _brcb_run(device, inputs):
    y = np.zeros(256, np.uint16)
    aj.launch(brcb_custom, 1, device, inputs["x"], y)
    return {"y": y}


def _duplicate_run(device, inputs):
    y = np.zeros(256, np.float16)
    aj.launch(duplicate_custom, 1, device, inputs["x"], y, 256)
    return {"y": y}


_ORIGINAL = "mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/"
KERNELS = [
    KernelSpec("brcb", "devkit brcb: 16 uint16 values, each broadcast to a 32-byte block (Brcb, 2 repeats)",
               lambda size, seed: {"x": np.random.default_rng(seed).integers(0, 65536, 16, dtype=np.uint16)},
               _brcb_run, lambda device, inputs: {"y": np.repeat(inputs["x"], 16)}, default_size=16,
               devices=("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore"),
               size_rule="16 (the example's data)", size_ok=lambda n: n == 16, source=_ORIGINAL + "brcb/brcb.asc"),
    KernelSpec("duplicate", "devkit duplicate: Duplicate<half> of 18.0 over 256 halves",
               lambda size, seed: {"x": np.random.default_rng(seed).standard_normal(256).astype(np.float16)},
               _duplicate_run, lambda device, inputs: {"y": np.full(256, 18.0, np.float16)}, default_size=256,
               devices=("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore", "atlas-training"),
               size_rule="256 (the example's data)", size_ok=lambda n: n == 256,
               source=_ORIGINAL + "duplicate/duplicate.asc"),
]
