"""The devkit examples `element_wise_arithmetic` and `element_wise_logic`, ported line by line (InitSocState, tensors
from a LocalMemAllocator, the MTE2_V and V_MTE3 flag pairs on EVENT_ID0, the final PipeBarrier<PIPE_ALL>):
- `leaky_relu_high_dim`: 512 halves through the high-dim LeakyRelu, mask 128, 4 repeats, the repeat params as the
  brace list {1, 1, 8, 8}, the scalar `half scalar = 0.01;`;
- `and_uint16`: scenario 1 of element_wise_logic, And of two 512-element uint16 tensors (count form);
- `shift_right_uint16`: scenario 4, ShiftRight of 512 uint16 by the scalar SHIFT_BITS = 2 (count form; the
  scalar form is offered since session 18, docs/decisions.md "ShiftLeft, ShiftRight, Not"; gen_data.py: src0 =
  1..512, golden src0 >> 2).
The logic example's scenarios 2 (Ors with the scalar as the tensor element src0Local[0], before the tensor: the
950's flexible scalar position) and 3 (ShiftLeft by a tensor of per-element amounts) are refused (SPEC-2 14;
docs/devkit_examples.md).

Source: mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
01_memory_vector_compute/element_wise_arithmetic/element_wise_arithmetic.asc (`element_wise_arithmetic_kernel<512,
128>`) and element_wise_logic/element_wise_logic.asc (`logic_custom`, SCENARIO_NUM 1 and 4); their scripts/gen_data.py
draw the inputs (uniform halves; uint16 over the whole range).

Devices: the ISASI SetFlag/WaitFlag are not offered on the 310B, LeakyRelu not on the 910 (SPEC-2 1.9, 10):
`leaky_relu_high_dim` runs on the 950, A3, A2 and 310P, `and_uint16` there and on the 910; ShiftRight's devices are
the 950, A3, A2 and 310B (its page), so `shift_right_uint16` runs on the 950, A3 and A2 (the 310B refuses the flags).

Fidelity: BIT-EXACT (LeakyRelu, And and ShiftRight are BIT-EXACT, SPEC-2 0.3). The expectations: the package's
reference model (LeakyRelu: D42's product where the sign bit is set, one half rounding, with the device's half
saturation), the bitwise and of the inputs, and numpy's logical shift of uint16.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

COUNT, MASK = 512, 128
SHIFT_BITS = np.uint16(2)   # element_wise_logic.asc: constexpr uint16_t SHIFT_BITS = 2


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


def logic_custom(src0, src1, dst, scenario=1):
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
    if scenario == 1:
        aj.And(dstLocal, src0Local, src1Local, COUNT)
    elif scenario == 4:
        aj.ShiftRight(dstLocal, src0Local, SHIFT_BITS, COUNT)
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


def _run_logic(device, inputs, scenario=1):
    z = np.zeros(COUNT, np.uint16)
    aj.launch(logic_custom, 1, device, inputs["x"].copy(), inputs["y"].copy(), z, scenario)
    return {"z": z}


def _shift_inputs(size, seed):
    """gen_data.py's scenario 4: src0 = 1..512, src1 zeros (unread); a later seed draws uint16 over the whole range
    (the top bits shifted out)."""
    if seed == 0:
        return {"x": np.arange(1, COUNT + 1, dtype=np.uint16), "y": np.zeros(COUNT, np.uint16)}
    return {"x": np.random.default_rng(seed).integers(0, 65536, COUNT, dtype=np.uint16),
            "y": np.zeros(COUNT, np.uint16)}


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
    KernelSpec("shift_right_uint16", "devkit element_wise_logic, scenario 4: ShiftRight of 512 uint16 by the scalar 2",
               _shift_inputs, lambda device, inputs: _run_logic(device, inputs, 4),
               lambda device, inputs: {"z": inputs["x"] >> SHIFT_BITS},
               devices=("ascend950", "atlas-a3", "atlas-a2"),
               source=_DEVKIT + "element_wise_logic/element_wise_logic.asc", **_SIZE_RULE),
]
