"""The devkit example `compare`, ported line by line (InitSocState, TPipe with three depth-1 queues, EnQue/DeQue,
the final PipeBarrier<PIPE_ALL> included): 256 floats compared with CMPMODE::LT into a 32-byte uint8 bit mask,
1. Compare(dst, src0, src1, LT, 256), tensor against tensor;
3. Compares(dst, src0, y[0], LT, 256) with y[0] read on the scalar unit: GetValue(0) after an MTE2_S flag pair and
   before an S_V pair, both event ids from `GetTPipePtr()->FetchEventID`;
4. (Ascend 950 only) Compares(dst, src0, src1Local[0], LT, 256): the scalar as a tensor element, read by the
   vector unit.
Scenario 2 (Compare into the CMPMASK register, then GetCmpMask) is not ported: the register form and GetCmpMask are
out of scope (SPEC-2 D59, section 14: the register's layout after Compare is not documented per device).

Source: mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
01_memory_vector_compute/compare/compare.asc (`compare_custom<float, 256, ...>`, SCENARIO_NUM 1, 3, 4; the inputs'
shapes from its scripts/gen_data.py: x 256 floats, y 256 floats in scenario 1 and 16 in 3 and 4).

Devices: Compare runs everywhere but Compares is not offered on the 910, the ISASI SetFlag/WaitFlag not on the 310B
and the TPipe event ids only where the pipe has them (SPEC-2 1.9, 10): `compare` (scenarios 1 and 3) runs on the
950, A3, A2 and 310P, `compare_950` (scenario 4) on the 950.

Fidelity: BIT-EXACT (Compare, Compares are BIT-EXACT, SPEC-2 0.3). The expectation is the original's golden rule
(gen_data.py: x < y element by element, packed LSB first into bytes, D44) on float32 values; NaN compares false
under LT on every device (D43 concerns NE only).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

INPUT_SIZE = 256
Y_SIZE = {1: 256, 3: 16, 4: 16}
OUTPUT_SIZE = 32


def compare_custom(x, y, z, scenario):
    aj.InitSocState()
    pipe = aj.TPipe()
    inQueueSrc0 = aj.TQue(aj.TPosition.VECIN, 1)
    inQueueSrc1 = aj.TQue(aj.TPosition.VECIN, 1)
    outQueueDst = aj.TQue(aj.TPosition.VECOUT, 1)
    src0Global, src1Global, dstGlobal = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
    cmpMode = aj.CMPMODE.LT
    src0Global.SetGlobalBuffer(x)
    src1Global.SetGlobalBuffer(y)
    dstGlobal.SetGlobalBuffer(z)
    pipe.InitBuffer(inQueueSrc0, 1, INPUT_SIZE * 4)
    pipe.InitBuffer(inQueueSrc1, 1, Y_SIZE[scenario] * 4)
    pipe.InitBuffer(outQueueDst, 1, OUTPUT_SIZE)

    src0LocalIn = inQueueSrc0.AllocTensor("float")
    src1LocalIn = inQueueSrc1.AllocTensor("float")
    aj.DataCopy(src0LocalIn, src0Global, INPUT_SIZE)
    aj.DataCopy(src1LocalIn, src1Global, Y_SIZE[scenario])
    inQueueSrc0.EnQue(src0LocalIn)
    inQueueSrc1.EnQue(src1LocalIn)

    src0Local = inQueueSrc0.DeQue("float")
    src1Local = inQueueSrc1.DeQue("float")
    dstLocal = outQueueDst.AllocTensor("uint8")
    if scenario == 1:
        aj.Compare(dstLocal, src0Local, src1Local, cmpMode, INPUT_SIZE)
    elif scenario == 3:
        eventID = aj.GetTPipePtr().FetchEventID(aj.HardEvent.MTE2_S)
        aj.SetFlag(eventID, event=aj.HardEvent.MTE2_S)
        aj.WaitFlag(eventID, event=aj.HardEvent.MTE2_S)
        src1Scalar = src1Local.GetValue(0)
        eventID = aj.GetTPipePtr().FetchEventID(aj.HardEvent.S_V)
        aj.SetFlag(eventID, event=aj.HardEvent.S_V)
        aj.WaitFlag(eventID, event=aj.HardEvent.S_V)
        aj.Compares(dstLocal, src0Local, np.float32(src1Scalar), cmpMode, INPUT_SIZE)
    else:
        aj.Compares(dstLocal, src0Local, src1Local[0], cmpMode, INPUT_SIZE)

    outQueueDst.EnQue(dstLocal)
    inQueueSrc0.FreeTensor(src0Local)
    inQueueSrc1.FreeTensor(src1Local)
    dstLocalOut = outQueueDst.DeQue("uint8")
    aj.DataCopy(dstGlobal, dstLocalOut, OUTPUT_SIZE)
    outQueueDst.FreeTensor(dstLocalOut)
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    """gen_data.py's inputs (uniform over the float range) with equal pairs, signed zeros, infinities and NaN."""
    rng = np.random.default_rng(seed)
    info = np.finfo(np.float32)
    x = rng.uniform(info.min, info.max, INPUT_SIZE).astype(np.float32)
    y = rng.uniform(info.min, info.max, INPUT_SIZE).astype(np.float32)
    x[1:10] = [-0.0, 0.0, np.nan, 1.0, np.inf, -np.inf, 1e-45, -1e-45, 5.0]
    y[1:10] = [0.0, -0.0, 1.0, np.nan, np.inf, 0.0, 0.0, 0.0, 5.0]
    x[10:138] = (np.linspace(-1.0, 1.0, 128) * abs(float(y[0]))).astype(np.float32)   # both sides of y[0], y[0] too
    return {"x": x, "y": y}


def _run(device, inputs, scenarios):
    out = {}
    for scenario in scenarios:
        z = np.zeros(OUTPUT_SIZE, np.uint8)
        aj.launch(compare_custom, 1, device, inputs["x"].copy(), inputs["y"][:Y_SIZE[scenario]].copy(), z, scenario)
        out[f"scenario{scenario}"] = z
    return out


def _expected(inputs, scenarios):
    x, y = inputs["x"], inputs["y"]
    out = {}
    for scenario in scenarios:
        with np.errstate(invalid="ignore"):
            bits = x < (y if scenario == 1 else y[0])
        out[f"scenario{scenario}"] = np.packbits(bits, bitorder="little")
    return out


_SIZE_RULE = dict(default_size=INPUT_SIZE, size_rule=f"{INPUT_SIZE} (the example's data)",
                  size_ok=lambda n: n == INPUT_SIZE,
                  source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/"
                         "01_memory_vector_compute/compare/compare.asc")

KERNELS = [
    KernelSpec("compare", "devkit compare, scenarios 1 and 3: Compare LT tensor-tensor, Compares with y[0] read by "
               "GetValue between FetchEventID'd MTE2_S and S_V flag pairs", make_inputs,
               lambda device, inputs: _run(device, inputs, (1, 3)), lambda device, inputs: _expected(inputs, (1, 3)),
               devices=("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore"), **_SIZE_RULE),
    KernelSpec("compare_950", "devkit compare, scenario 4 (Ascend 950): Compares with the scalar as the tensor element "
               "src1Local[0]", make_inputs, lambda device, inputs: _run(device, inputs, (4,)),
               lambda device, inputs: _expected(inputs, (4,)), devices=("ascend950",), **_SIZE_RULE),
]
