"""The devkit's compatibility-guide scatter example, its Atlas A2 / A3 branch: dst[offset[i] / sizeof(half)] = src[i]
over 128 halves by the scalar unit's GetValue / SetValue loop (the A2/A3 have no Scatter instruction).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/06_compatibility_guide/
scatter/scatter_custom.asc (`KernelScatter<half, 128>`, `scatter_custom<128>`, one block, the
`__NPU_ARCH__ == 2201` branch) and scripts/gen_data.py (src = arange(128) as half, byte offsets
arange(254, -1, -2) as uint32; golden arange(127, -1, -1): the vector reversed).

The kernel: three LocalTensor<VECCALC>s at fixed UB addresses (src at 0, the offsets after it, dst after them);
DataCopy src and offsets in; MTE2_V; for i in 0..COUNT-1: offset = offsets.GetValue(i) / sizeof(half),
dst.SetValue(offset, src.GetValue(i)); V_MTE3; DataCopy dst out; PipeBarrier<PIPE_ALL>.

Deviation: the original's flags order the copies against the vector pipe, but the loop runs on the scalar unit:
nothing orders its GetValue after the MTE2 copies, nor the MTE3 copy-out after its SetValue (SPEC-2 10.4: a
WaitFlag<MTE2_V> holds the vector pipe). The port adds an MTE2_S pair before the loop and an S_MTE3 pair after it;
`original_flags=True` runs the original's (the tests show the sanitizer's reports). Not ported: the 950 branch,
AscendC::Scatter (the Memory-API Scatter is not offered, docs/decisions.md "Surveyed and not offered";
docs/devkit_examples.md).

Sizes: COUNT, the example's 128 halves; any multiple of 16 up to 4096 (the offsets reverse the vector).
Devices: the A2 and A3 (the branch's `__NPU_ARCH__ == 2201`). Fidelity: BIT-EXACT (bits moved by the scalar unit).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

SOURCE = "mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/06_compatibility_guide/scatter/scatter_custom.asc"


class KernelScatter:
    T = "half"

    def Init(self, srcGm, dstOffsetGm, dstGm, count):
        self.COUNT = count
        self.xAddr = 0
        self.yAddr = self.xAddr + count * aj.sizeof(self.T)
        self.zAddr = self.yAddr + count * aj.sizeof("uint32")
        self.srcGlobal, self.dstOffsetGlobal = aj.GlobalTensor(self.T), aj.GlobalTensor("uint32")
        self.dstGlobal = aj.GlobalTensor(self.T)
        self.srcGlobal.SetGlobalBuffer(srcGm, count)
        self.dstOffsetGlobal.SetGlobalBuffer(dstOffsetGm, count)
        self.dstGlobal.SetGlobalBuffer(dstGm, count)

    def Process(self, original_flags=False):
        T, COUNT = self.T, self.COUNT
        srcLocal = aj.LocalTensor(aj.TPosition.VECCALC, self.xAddr, COUNT, T)
        dstOffsetLocal = aj.LocalTensor(aj.TPosition.VECCALC, self.yAddr, COUNT, "uint32")
        dstLocal = aj.LocalTensor(aj.TPosition.VECCALC, self.zAddr, COUNT, T)
        aj.DataCopy(srcLocal, self.srcGlobal, COUNT)
        aj.DataCopy(dstOffsetLocal, self.dstOffsetGlobal, COUNT)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        if not original_flags:   # the port's addition: the scalar loop reads what MTE2 wrote
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_S)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_S)
        for i in range(COUNT):   # `__NPU_ARCH__ == 2201`: no Scatter instruction
            offset = int(dstOffsetLocal.GetValue(i)) // aj.sizeof(T)
            srcValue = srcLocal.GetValue(i)
            dstLocal.SetValue(offset, srcValue)
        if not original_flags:   # ... and MTE3 copies out what the scalar unit wrote
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_MTE3)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_MTE3)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(self.dstGlobal, dstLocal, COUNT)


def scatter_custom(srcGm, dstOffsetGm, dstGm, count, original_flags=False):
    aj.InitSocState()
    op = KernelScatter()
    op.Init(srcGm, dstOffsetGm, dstGm, count)
    op.Process(original_flags)
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    """gen_data.py: src = 0..size-1 as half, byte offsets reversing it (seed 0); a later seed draws random halves
    (the specials among them) and a random permutation of the offsets."""
    if seed == 0:
        return {"x": np.arange(size).astype(np.float16), "offset": np.arange(2 * size - 2, -1, -2, dtype=np.uint32)}
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(size).astype(np.float16)
    x[:5] = np.array([-0.0, np.inf, -np.inf, np.nan, 6e-8], np.float16)
    return {"x": x, "offset": (rng.permutation(size) * 2).astype(np.uint32)}


def run(device, inputs, original_flags=False):
    z = np.zeros_like(inputs["x"])
    aj.launch(scatter_custom, 1, device, inputs["x"], inputs["offset"], z, z.size, original_flags)
    return {"z": z}


def expected(device, inputs):
    """dst[offset / 2] = src, the bits moved unchanged (a NaN's payload too: GetValue / SetValue copy bits)."""
    z = np.zeros_like(inputs["x"])
    z[inputs["offset"] // 2] = inputs["x"]
    return {"z": z}


KERNEL = KernelSpec("scatter_compat", "devkit compatibility-guide scatter, the A2/A3 branch (a scalar GetValue / "
                    "SetValue loop scatters 128 halves to byte offsets; MTE2_S / S_MTE3 flags the original lacks)",
                    make_inputs, run, expected, default_size=128, devices=("atlas-a3", "atlas-a2"),
                    size_rule="a multiple of 16 halves, at most 4096",
                    size_ok=lambda n: 0 < n <= 4096 and n % 16 == 0, source=SOURCE)
