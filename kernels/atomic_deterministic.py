"""The devkit's set_atomic_deterministic_computation example, scenario 1 (one AIV core): four float vectors are
accumulated into one GM output by atomic-add DataCopies in a fixed order, so the float result is reproducible.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
06_atomic/set_atomic_deterministic_computation/set_atomic_add_single_aiv.h (`KernelSetAtomicAddSingleAIV`,
DATA_LENGTH 8), set_atomic_deterministic_computation.asc (SCENARIO_NUM 1: one block; src0 = input_gm.bin,
src1 = input_x.bin, src2 = input_y.bin, src3 = input_z.bin) and scripts/gen_data.py (gm 0, x 1.0, y 1e16,
z -1e16; golden x + (y + z) + gm = 1.0, "float addition is not associative": (x + y) + z would be 0).

The kernel: a LocalMemAllocator's four 8-float tiles; DisableDmaAtomic; four DataCopies in; MTE2_MTE3 flag; a plain
DataCopy of src0 into dst; PipeBarrier<PIPE_MTE3>; SetAtomicAdd<float>; DataCopies of src2 (y), src3 (z) and src1
(x) into dst with PipeBarrier<PIPE_MTE3> between; DisableDmaAtomic; PipeBarrier<PIPE_ALL>. dst = ((src0 + y) + z) + x,
each atomic add one float rounding.

Not ported: scenario 2 (four AIV cores ordered by IBSet / IBWait through a GM sync area: not offered, SPEC-2 14's
cross-core synchronisation) and scenario 3 (AIC cores: cube). docs/devkit_examples.md lists them.

Sizes: DATA_LENGTH, the example's 8 floats (one DataBlock); any multiple of 8 up to 8192. Devices: the README's
950, A3 and A2 (SetAtomicAdd of float; the 310P too has float atomics, the example does not list it).
Fidelity: BIT-EXACT (DataCopy moves bytes, the atomic float add rounds once, SPEC-2 0.3).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

SOURCE = ("mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/06_atomic/"
          "set_atomic_deterministic_computation/set_atomic_add_single_aiv.h")


class KernelSetAtomicAddSingleAIV:
    def Init(self, src0Gm, src1Gm, src2Gm, src3Gm, dstGm, dataLength):
        self.DATA_LENGTH = dataLength
        self.src0Global, self.src1Global = aj.GlobalTensor("float"), aj.GlobalTensor("float")
        self.src2Global, self.src3Global = aj.GlobalTensor("float"), aj.GlobalTensor("float")
        self.dstGlobal = aj.GlobalTensor("float")
        self.src0Global.SetGlobalBuffer(src0Gm)
        self.src1Global.SetGlobalBuffer(src1Gm)
        self.src2Global.SetGlobalBuffer(src2Gm)
        self.src3Global.SetGlobalBuffer(src3Gm)
        self.dstGlobal.SetGlobalBuffer(dstGm)

    def Process(self):
        n = self.DATA_LENGTH
        ubAllocator = aj.LocalMemAllocator()
        src0Local = ubAllocator.Alloc("float", n)
        src1Local = ubAllocator.Alloc("float", n)
        src2Local = ubAllocator.Alloc("float", n)
        src3Local = ubAllocator.Alloc("float", n)
        aj.DisableDmaAtomic()
        aj.DataCopy(src0Local, self.src0Global, n)
        aj.DataCopy(src1Local, self.src1Global, n)
        aj.DataCopy(src2Local, self.src2Global, n)
        aj.DataCopy(src3Local, self.src3Global, n)
        aj.SetFlag(0, event=aj.HardEvent.MTE2_MTE3)
        aj.WaitFlag(0, event=aj.HardEvent.MTE2_MTE3)
        aj.DataCopy(self.dstGlobal, src0Local, n)          # dst's starting value: a plain copy
        aj.PipeBarrier(aj.PIPE_MTE3)
        aj.SetAtomicAdd("float")
        aj.DataCopy(self.dstGlobal, src2Local, n)          # + y
        aj.PipeBarrier(aj.PIPE_MTE3)
        aj.DataCopy(self.dstGlobal, src3Local, n)          # + z
        aj.PipeBarrier(aj.PIPE_MTE3)
        aj.DataCopy(self.dstGlobal, src1Local, n)          # + x
        aj.DisableDmaAtomic()


def set_atomic_add_single_aiv_custom(src0, src1, src2, src3, dst, dataLength):
    aj.InitSocState()
    op = KernelSetAtomicAddSingleAIV()
    op.Init(src0, src1, src2, src3, dst, dataLength)
    op.Process()
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    """gen_data.py: gm 0, x 1.0, y 1e16, z -1e16 (seed 0); a later seed draws each from a wide normal with a few
    specials, so the order of the three atomic adds shows in most lanes."""
    if seed == 0:
        return {"gm": np.zeros(size, np.float32), "x": np.full(size, 1.0, np.float32),
                "y": np.full(size, 1e16, np.float32), "z": np.full(size, -1e16, np.float32)}
    rng = np.random.default_rng(seed)
    out = {k: (rng.standard_normal(size) * 10.0 ** rng.integers(0, 8, size)).astype(np.float32)
           for k in ("gm", "x", "y", "z")}
    out["y"][:3] = [np.inf, -0.0, 3e38]
    out["z"][:3] = [-np.inf, -0.0, 3e38]
    return out


def run(device, inputs):
    out = np.full_like(inputs["x"], 12345.0)      # dst's prior contents: the first DataCopy overwrites them
    aj.launch(set_atomic_add_single_aiv_custom, 1, device, inputs["gm"], inputs["x"], inputs["y"], inputs["z"], out,
              out.size)
    return {"out": out}


def expected(device, inputs):
    """((gm + y) + z) + x in float32, each a rounding; NaN canonical (SPEC-2 D35)."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = ((inputs["gm"] + inputs["y"]) + inputs["z"]) + inputs["x"]
    out[np.isnan(out)] = np.float32(np.nan)
    return {"out": out}


KERNEL = KernelSpec("atomic_deterministic", "devkit set_atomic_deterministic_computation, scenario 1 (one core: a "
                    "plain DataCopy then three SetAtomicAdd<float> DataCopies in a fixed order; 1 + 1e16 - 1e16)",
                    make_inputs, run, expected, default_size=8, devices=("ascend950", "atlas-a3", "atlas-a2"),
                    size_rule="a multiple of 8 floats, at most 8192",
                    size_ok=lambda n: 0 < n <= 8192 and n % 8 == 0, source=SOURCE)
