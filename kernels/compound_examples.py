"""The devkit example `element_wise_compound_compute`, both scenarios, ported line by line (InitSocState, three
LocalMemAllocator tensors of 512 halves, MTE2_V and V_MTE3 flag pairs, the final PipeBarrier<PIPE_ALL>):
1. `AddRelu<half>(dst, src0, src1, 512)`: max(src0 + src1, 0);
2. `Axpy<half, half>(dst, src0, (half)2.0, 512)` onto dst = src1, which a UB -> UB DataCopy brings into dst first
   (a PipeBarrier<PIPE_V> between them: the copy runs on the vector pipe).

Source: mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
01_memory_vector_compute/element_wise_compound_compute/element_wise_compound_compute.asc
(`element_wise_compound_compute_custom<512>`, SCENARIO_NUM 1, 2; inputs uniform in [-1, 1] as its
scripts/gen_data.py draws them, with signed zeros, exact cancellations and the half overflow edge mixed in).

Devices: AddRelu is not offered on the 910, the ISASI SetFlag/WaitFlag not on the 310B (SPEC-2 1.9): `add_relu`
runs on the 950, A3, A2 and 310P, `axpy` on the 950, A3, A2, 310P and 910.

Fidelity: `add_relu` BIT-EXACT (AddRelu is BIT-EXACT, SPEC-2 0.3): checked bit for bit against the reference
model's lane (ascend_jit.reference.elementwise.add_relu) with the device's half saturation. `axpy` is BIT-EXACT on
the 950 (fma) and MODELLED elsewhere (D39); with the scalar 2.0 the product is exact, so every device rounds the
exact 2 * src0 + src1 once to half: checked within 2**-11 relative of the float64 formula (one half rounding).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

TOTAL_LENGTH = 512


def element_wise_compound_compute_custom(src0Gm, src1Gm, dstGm, scenario):
    aj.InitSocState()
    src0Global, src1Global, dstGlobal = aj.GlobalTensor(src0Gm), aj.GlobalTensor(src1Gm), aj.GlobalTensor(dstGm)
    ubAllocator = aj.LocalMemAllocator()
    src0Local = ubAllocator.Alloc("half", TOTAL_LENGTH)
    src1Local = ubAllocator.Alloc("half", TOTAL_LENGTH)
    dstLocal = ubAllocator.Alloc("half", TOTAL_LENGTH)
    aj.DataCopy(src0Local, src0Global, TOTAL_LENGTH)
    aj.DataCopy(src1Local, src1Global, TOTAL_LENGTH)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    if scenario == 1:
        aj.AddRelu(dstLocal, src0Local, src1Local, TOTAL_LENGTH)
    else:
        aj.DataCopy(dstLocal, src1Local, TOTAL_LENGTH)
        aj.PipeBarrier(aj.PIPE_V)
        scalar = np.float16(2.0)
        aj.Axpy(dstLocal, src0Local, scalar, TOTAL_LENGTH)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(dstGlobal, dstLocal, TOTAL_LENGTH)
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1.0, 1.0, TOTAL_LENGTH).astype(np.float16)
    b = rng.uniform(-1.0, 1.0, TOTAL_LENGTH).astype(np.float16)
    a[:6] = [0.0, -0.0, 0.5, 60000.0, -60000.0, 6e-8]
    b[:6] = [-0.0, -0.0, -0.5, 60000.0, -60000.0, -6e-8]   # signed zeros, exact cancellation, overflow to +-inf
    return {"src0": a, "src1": b}


def _run(device, inputs, scenario):
    dst = np.zeros(TOTAL_LENGTH, np.float16)
    aj.launch(element_wise_compound_compute_custom, 1, device, inputs["src0"], inputs["src1"], dst, scenario)
    return {"dst": dst}


def _add_relu_expected(device, inputs):
    from ascend_jit.reference import elementwise as ref
    env = ref.Env(device, sat_half=aj.Core(device).half_saturating)
    lanes = ref.add_relu("half", env, inputs["src0"].astype(np.float64), inputs["src1"].astype(np.float64))
    return {"dst": lanes.astype(np.float16)}


def _axpy_expected(device, inputs):
    return {"dst": 2.0 * inputs["src0"].astype(np.float64) + inputs["src1"].astype(np.float64)}


def _axpy_inputs(size, seed):
    inputs = make_inputs(size, seed)
    inputs["src0"][3:5] = inputs["src1"][3:5] = 0.25   # finite results only: the check is a relative tolerance
    return inputs


_COMMON = dict(default_size=TOTAL_LENGTH, size_rule=f"{TOTAL_LENGTH} (the example's data)",
               size_ok=lambda n: n == TOTAL_LENGTH,
               source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/"
                      "element_wise_compound_compute/element_wise_compound_compute.asc")

KERNELS = [
    KernelSpec("add_relu", "devkit element_wise_compound_compute, scenario 1: AddRelu of 512 halves", make_inputs,
               lambda device, inputs: _run(device, inputs, 1), _add_relu_expected,
               devices=("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore"), **_COMMON),
    KernelSpec("axpy", "devkit element_wise_compound_compute, scenario 2: UB -> UB DataCopy, PipeBarrier<PIPE_V>, "
               "Axpy<half, half> by 2.0", _axpy_inputs, lambda device, inputs: _run(device, inputs, 2),
               _axpy_expected, devices=("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore",
                                        "atlas-training"), tolerance=2.0 ** -11, **_COMMON),
]
