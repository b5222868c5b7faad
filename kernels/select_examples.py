"""The devkit example `select`, its four scenarios, ported line by line (InitSocState, the LocalMemAllocator carving,
the flags and the final PipeBarrier<PIPE_ALL> included): Select of 256 floats with a uint8 selMask,
1. VSEL_CMPMASK_SPR: an 8-byte selMask brought in by DataCopyPad with a default-made DataCopyPadExtParams whose
   fields are set one by one (isPad = false, rightPadding = 24 bytes) after SetPadValue((uint8_t)0); the 64 bits
   serve every repeat (SPEC-2 D59);
2. VSEL_TENSOR_SCALAR_MODE with the scalar read on the scalar unit (`src1Local.GetValue(0)` after an MTE2_S pair,
   then an S_V pair);
3. VSEL_TENSOR_TENSOR_MODE;
4. (Ascend 950 only) VSEL_TENSOR_SCALAR_MODE with the scalar given as the tensor element `src1Local[0]`, read by
   the vector unit (the original's `Select<BinaryDefaultType, U, config>` with the scalar last, its default).

Source: mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
01_memory_vector_compute/select/select.asc (`select_custom<float, uint8_t, ...>`, SCENARIO_NUM 1..4; the inputs'
shapes from its scripts/gen_data.py).

Devices: DataCopyPad (scenario 1) is not offered on the 310P and the 910, the ISASI SetFlag/WaitFlag not on the
310B (SPEC-2 1.9): scenarios 1-3 run on the 950, A3 and A2 (`select`), scenario 4 on the 950 (`select_950`).

Fidelity: BIT-EXACT (DataCopyPad, Select are BIT-EXACT, SPEC-2 0.3; Select copies bits). The expectation is the
original's golden rule (gen_data.py: bit i % 64 of the selMask in scenario 1, bit i in the others; 1 takes x[i], 0
y[i] or y[0]) on the raw bits, with the inputs' NaNs, infinities and signed zeros carried bit for bit.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

INPUT_SIZE = 256
SEL_SIZE = {1: 8, 2: 32, 3: 32, 4: 32}     # selMask bytes per scenario (uint8)
Y_SIZE = {1: 256, 2: 8, 3: 256, 4: 8}      # y floats per scenario
MASK_NUM = 64                              # the bits one repeat of floats uses in VSEL_CMPMASK_SPR


def select_custom(x, y, sel, z, scenario):
    aj.InitSocState()
    src0Global, src1Global, dstGlobal, selMaskGlobal = (aj.GlobalTensor() for _ in range(4))
    src0Global.SetGlobalBuffer(x)
    src1Global.SetGlobalBuffer(y)
    selMaskGlobal.SetGlobalBuffer(sel)
    dstGlobal.SetGlobalBuffer(z)
    ubAllocator = aj.LocalMemAllocator()
    src0Local = ubAllocator.Alloc("float", INPUT_SIZE)
    src1Local = ubAllocator.Alloc("float", Y_SIZE[scenario])
    # scenario 1's selMask holds 8 valid bytes but DataCopyPad pads 24 more on the right: at least 32 bytes
    selMaskLocal = ubAllocator.Alloc("uint8", 32 if scenario == 1 else SEL_SIZE[scenario])
    dstLocal = ubAllocator.Alloc("float", INPUT_SIZE)

    aj.DataCopy(src0Local, src0Global, INPUT_SIZE)
    aj.DataCopy(src1Local, src1Global, Y_SIZE[scenario])
    if scenario == 1:
        copyParams = aj.DataCopyExtParams(1, SEL_SIZE[1] * 1, 0, 0, 0)
        padParams = aj.DataCopyPadExtParams()
        padParams.isPad = False
        padParams.leftPadding = 0
        padParams.rightPadding = 24
        aj.SetPadValue(np.uint8(0))
        aj.DataCopyPad(selMaskLocal, selMaskGlobal, copyParams, padParams)   # an unaligned copy
    else:
        aj.DataCopy(selMaskLocal, selMaskGlobal, SEL_SIZE[scenario])
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)

    if scenario in (1, 3):
        selMode = aj.SELMODE.VSEL_CMPMASK_SPR if scenario == 1 else aj.SELMODE.VSEL_TENSOR_TENSOR_MODE
        aj.Select(dstLocal, selMaskLocal, src0Local, src1Local, selMode, INPUT_SIZE)
    elif scenario == 2:
        # tensor vs scalar: the scalar unit reads y[0] after MTE2, the vector unit waits for the scalar unit
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_S)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_S)
        src1Scalar = src1Local.GetValue(0)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
        aj.Select(dstLocal, selMaskLocal, src0Local, src1Scalar, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, INPUT_SIZE)
    else:
        # the 950's scalar given as a tensor element, read by the vector unit (no scalar-unit flags)
        aj.Select(dstLocal, selMaskLocal, src0Local, src1Local[0], aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, INPUT_SIZE)

    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(dstGlobal, dstLocal, INPUT_SIZE)
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    """gen_data.py's inputs (uniform over the float range, random selMask bytes) with special values mixed in."""
    rng = np.random.default_rng(seed)
    info = np.finfo(np.float32)
    x = rng.uniform(info.min, info.max, INPUT_SIZE).astype(np.float32)
    y = rng.uniform(info.min, info.max, INPUT_SIZE).astype(np.float32)
    x[:6] = [np.nan, -0.0, np.inf, -np.inf, 1e-45, 0.0]
    y[:6] = [-0.0, np.nan, 1.0, -1e-45, -np.inf, 0.0]
    sel = rng.integers(0, 256, 32, dtype=np.uint8)
    return {"x": x, "y": y, "sel": sel}


def _run(device, inputs, scenarios):
    out = {}
    for scenario in scenarios:
        z = np.zeros(INPUT_SIZE, np.float32)
        aj.launch(select_custom, 1, device, inputs["x"].copy(), inputs["y"][:Y_SIZE[scenario]].copy(),
                  inputs["sel"][:SEL_SIZE[scenario]].copy(), z, scenario)
        out[f"scenario{scenario}"] = z
    return out


def _expected(inputs, scenarios):
    bits = np.unpackbits(inputs["sel"], bitorder="little").astype(bool)    # bit k of byte b: element 8b + k
    i = np.arange(INPUT_SIZE)
    x, y = inputs["x"].view(np.uint32), inputs["y"].view(np.uint32)
    out = {}
    for scenario in scenarios:
        pick = bits[i % MASK_NUM] if scenario == 1 else bits[i]
        other = y if scenario in (1, 3) else np.full(INPUT_SIZE, y[0], np.uint32)
        out[f"scenario{scenario}"] = np.where(pick, x, other).astype(np.uint32).view(np.float32)
    return out


_SIZE_RULE = dict(default_size=INPUT_SIZE, size_rule=f"{INPUT_SIZE} (the example's data)",
                  size_ok=lambda n: n == INPUT_SIZE,
                  source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/"
                         "01_memory_vector_compute/select/select.asc")

KERNELS = [
    KernelSpec("select", "devkit select, scenarios 1-3: VSEL_CMPMASK_SPR with a DataCopyPad'ed 8-byte selMask, "
               "tensor-scalar through GetValue and MTE2_S/S_V flags, tensor-tensor", make_inputs,
               lambda device, inputs: _run(device, inputs, (1, 2, 3)),
               lambda device, inputs: _expected(inputs, (1, 2, 3)),
               devices=("ascend950", "atlas-a3", "atlas-a2"), **_SIZE_RULE),
    KernelSpec("select_950", "devkit select, scenario 4 (Ascend 950): the scalar as the tensor element src1Local[0]",
               make_inputs, lambda device, inputs: _run(device, inputs, (4,)),
               lambda device, inputs: _expected(inputs, (4,)), devices=("ascend950",), **_SIZE_RULE),
]
