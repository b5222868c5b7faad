"""The devkit examples `element_wise_arithmetic` and `element_wise_logic`, ported line by line (InitSocState, tensors
from a LocalMemAllocator, the MTE2_V and V_MTE3 flag pairs on EVENT_ID0, the final PipeBarrier<PIPE_ALL>):
- `leaky_relu_high_dim`: 512 halves through the high-dim LeakyRelu, mask 128, 4 repeats, the repeat params as the
  brace list {1, 1, 8, 8}, the scalar `half scalar = 0.01;`;
- `and_uint16`: scenario 1 of element_wise_logic, And of two 512-element uint16 tensors (count form).
The logic example's other scenarios (Ors with a tensor-element scalar, ShiftLeft, ShiftRight) use instructions the
emulator does not offer (SPEC-2's instruction list).

Source: mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
01_memory_vector_compute/element_wise_arithmetic/element_wise_arithmetic.asc (`element_wise_arithmetic_kernel<512,
128>`) and element_wise_logic/element_wise_logic.asc (`logic_custom`, SCENARIO_NUM 1); their scripts/gen_data.py
draw the inputs (uniform halves; uint16 over the whole range).

Devices: the ISASI SetFlag/WaitFlag are not offered on the 310B, LeakyRelu not on the 910 (SPEC-2 1.9, 10):
`leaky_relu_high_dim` runs on the 950, A3, A2 and 310P, `and_uint16` there and on the 910.

Fidelity: BIT-EXACT (LeakyRelu and And are BIT-EXACT, SPEC-2 0.3). The expectations: the package's reference model
(LeakyRelu: D42's product where the sign bit is set, one half rounding, with the device's half saturation) and the
bitwise and of the inputs.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

COUNT, MASK = 512, 128


def element_wise_arithmetic_kernel(src, dstGm):
    aj.InitSocState()
    srcGlobal, dstGlobal = aj.GlobalTensor(), aj.GlobalTensor()
    srcGlobal.SetGlobalBuffer(src)
    dstGlobal.SetGlobalBuffer(dstGm)
    ubAllocator = aj.LocalMemAllocator()
    srcLocal = ubAllocator.Alloc("half", COUNT)
    dstLocal = ubAllocator.Alloc("half", COUNT)
    aj.DataCopy(srcLocal, srcGlobal, COUNT)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    scalar = np.float16(0.01)
    aj.LeakyRelu(dstLocal, srcLocal, scalar, MASK, 4, (1, 1, 8, 8))
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(dstGlobal, dstLocal, COUNT)
    aj.PipeBarrier(aj.PIPE_ALL)


def logic_custom(src0, src1, dst):
    aj.InitSocState()
    src0Global, src1Global, dstGlobal = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
    src0Global.SetGlobalBuffer(src0)
    src1Global.SetGlobalBuffer(src1)
    dstGlobal.SetGlobalBuffer(dst)
    ubAllocator = aj.LocalMemAllocator()
    src0Local = ubAllocator.Alloc("uint16", COUNT)
    src1Local = ubAllocator.Alloc("uint16", COUNT)
    dstLocal = ubAllocator.Alloc("uint16", COUNT)
    aj.DataCopy(src0Local, src0Global, COUNT)
    aj.DataCopy(src1Local, src1Global, COUNT)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)     # the copies in land before the vector unit reads
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.And(dstLocal, src0Local, src1Local, COUNT)             # scenario 1
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)     # the result is complete before it is copied out
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(dstGlobal, dstLocal, COUNT)
    aj.PipeBarrier(aj.PIPE_ALL)


def _arith_inputs(size, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-100, 100, COUNT).astype(np.float16)
    x[:6] = np.array([-0.0, 0.0, -65504, np.inf, -np.inf, -6e-8], np.float16)
    return {"x": x}


def _logic_inputs(size, seed):
    rng = np.random.default_rng(seed)
    return {"x": rng.integers(0, 65536, COUNT, dtype=np.uint16), "y": rng.integers(0, 65536, COUNT, dtype=np.uint16)}


def _run_arith(device, inputs):
    z = np.zeros(COUNT, np.float16)
    aj.launch(element_wise_arithmetic_kernel, 1, device, inputs["x"].copy(), z)
    return {"z": z}


def _run_logic(device, inputs):
    z = np.zeros(COUNT, np.uint16)
    aj.launch(logic_custom, 1, device, inputs["x"].copy(), inputs["y"].copy(), z)
    return {"z": z}


def _expected_arith(device, inputs):
    from ascend_jit.reference import elementwise as ref
    env = ref.Env(device, sat_half=aj.Core(device).half_saturating)
    return {"z": ref.leaky_relu("half", env, inputs["x"].astype(np.float64), float(np.float16(0.01)))
            .astype(np.float16)}


_SIZE_RULE = dict(default_size=COUNT, size_rule=f"{COUNT} (the example's data)", size_ok=lambda n: n == COUNT)
_DEVKIT = "mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/"
KERNELS = [
    KernelSpec("leaky_relu_high_dim", "devkit element_wise_arithmetic: high-dim LeakyRelu over 512 halves, mask 128, "
               "4 repeats, repeat params {1, 1, 8, 8}", _arith_inputs, _run_arith, _expected_arith,
               devices=("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore"),
               source=_DEVKIT + "element_wise_arithmetic/element_wise_arithmetic.asc", **_SIZE_RULE),
    KernelSpec("and_uint16", "devkit element_wise_logic, scenario 1: And of two 512-element uint16 tensors",
               _logic_inputs, _run_logic, lambda device, inputs: {"z": inputs["x"] & inputs["y"]},
               devices=("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore", "atlas-training"),
               source=_DEVKIT + "element_wise_logic/element_wise_logic.asc", **_SIZE_RULE),
]
