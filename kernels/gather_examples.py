"""The devkit example `gather`, scenarios 1-3, ported line by line (InitSocState, the LocalMemAllocator carving, MTE2_V
and V_MTE3 flag pairs, the final PipeBarrier<PIPE_ALL>):
1. GatherMask in place (dst is src0) over 256 uint32 with the built-in pattern 2 (odd elements), normal mode, mask 0,
   GatherMaskParams {1, 4, 8, 0}: the first 128 elements become src0's odd elements, rsvdCnt = 128;
2. GatherMask with a user pattern (32 uint32 reinterpreted as the source type) in counter mode (reduceMode = true),
   mask 70, GatherMaskParams {1, 2, 4, 0}, into a dst zeroed by Duplicate first; how many elements each outer repeat
   takes is the device's (D58: 70 per outer repeat, 2 repeats, on the 950/A3/A2; 70 in total on the 310P);
3. Gather of 128 halves (the sources are uint16 in the C++) by byte offsets (reversed order) after
   `src0Local.SetSize(128)`.
Scenario 4 (Gatherb, DataBlock offsets) is not ported: the Memory-API Gatherb is not in the emulator's contract
(SPEC-2 9.2 lists Gather and GatherMask).

Source: mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
01_memory_vector_compute/gather/gather.asc (`gather_custom`, SCENARIO_NUM 1..3; inputs as its scripts/gen_data.py
makes them: 1..256, random uint32 with the pattern 0x7E7C00A5 repeated, 0..127 with offsets 254, 252, ..., 0).

Devices: Gather and GatherMask are not offered on the 910, the ISASI SetFlag/WaitFlag not on the 310B (SPEC-2 1.9):
the kernel runs on the 950, A3, A2 and 310P.

Fidelity: BIT-EXACT (Gather, GatherMask are BIT-EXACT, SPEC-2 0.3). The expectations are gen_data.py's goldens for
scenarios 1 and 3 (device-independent) and the reference model's GatherMask (ascend_jit.reference.gather, with D58's
per-device outer repeats) on a host UB laid out as the kernel's for scenario 2; rsvdCnt is checked too, and GatherMask's
dst only up to rsvdCnt (D58: what lies past it is not claimed).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore")
# scenario -> (dtype, INPUT_SIZE, INPUT_Y_SIZE, OUTPUT_SIZE)
SHAPES = {1: ("uint32", 256, 0, 256), 2: ("uint32", 256, 32, 256), 3: ("uint16", 128, 128, 128)}
PATTERN_WORD = 0x7E7C00A5


def gather_custom(x, y, z, rsvd, scenario):
    dtype, INPUT_SIZE, INPUT_Y_SIZE, OUTPUT_SIZE = SHAPES[scenario]
    aj.InitSocState()
    src0Global, dstGlobal = aj.GlobalTensor(x), aj.GlobalTensor(z)
    ubAllocator = aj.LocalMemAllocator()
    src0Local = ubAllocator.Alloc(dtype, INPUT_SIZE)
    aj.DataCopy(src0Local, src0Global, INPUT_SIZE)
    if scenario == 1:
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        mask = 0            # normal mode: the mask is not used
        src1Pattern = 2     # built-in pattern: elements 1, 3, 5, ...
        rsvdCnt = aj.GatherMask(src0Local, src0Local, src1Pattern, False, mask, aj.GatherMaskParams(1, 4, 8, 0))
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(dstGlobal, src0Local, OUTPUT_SIZE)
    else:
        src1Global = aj.GlobalTensor(y)
        src1Local = ubAllocator.Alloc("uint32", INPUT_Y_SIZE)
        dstLocal = ubAllocator.Alloc(dtype, OUTPUT_SIZE)
        aj.DataCopy(src1Local, src1Global, INPUT_Y_SIZE)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        if scenario == 2:
            aj.Duplicate(dstLocal, np.uint32(0), OUTPUT_SIZE)   # counter mode leaves the rest of dst unwritten
            mask = 70
            rsvdCnt = aj.GatherMask(dstLocal, src0Local, src1Local.ReinterpretCast(dtype), True, mask,
                                    aj.GatherMaskParams(1, 2, 4, 0))
        else:
            src0Local.SetSize(INPUT_Y_SIZE)
            aj.Gather(dstLocal, src0Local, src1Local, 0, INPUT_Y_SIZE)
            rsvdCnt = 0
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(dstGlobal, dstLocal, OUTPUT_SIZE)
    aj.PipeBarrier(aj.PIPE_ALL)
    rsvd[0] = rsvdCnt    # the host reads the kernel's rsvdCnt (the C++ keeps it in a local)


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    return {"x1": np.arange(1, 257, dtype=np.uint32),
            "x2": rng.integers(0, 2 ** 32, 256, dtype=np.uint32), "y2": np.full(32, PATTERN_WORD, np.uint32),
            "x3": np.arange(128, dtype=np.uint16), "y3": np.arange(0, 256, 2, dtype=np.uint32)[::-1].copy()}


def run(device, inputs):
    out = {}
    for scenario, (dtype, _, _, n_out) in SHAPES.items():
        z = np.zeros(n_out, np.dtype(dtype))
        rsvd = np.zeros(1, np.int64)
        aj.launch(gather_custom, 1, device, inputs[f"x{scenario}"], inputs.get(f"y{scenario}"), z, rsvd, scenario)
        # GatherMask's dst past rsvdCnt is not claimed (D58: the doc calls it undefined): the kept elements only
        out[f"scenario{scenario}"] = z[:rsvd[0]] if scenario != 3 else z
        out[f"rsvdCnt{scenario}"] = rsvd
    return out


def _gather_mask_counter(device, x, pattern):
    """Scenario 2 through the reference model on a host UB: src0 at 0, the pattern at 1024, dst at 1152."""
    from ascend_jit.reference.gather import gather_mask
    spec = aj.get_device(device)
    ub = np.zeros(spec.ub_bytes, np.uint8)
    ub[:1024] = x.view(np.uint8)
    ub[1024:1152] = pattern.view(np.uint8)
    lanes, mask, times = 64, 70, 2
    if spec.gather_mask_total_count:          # D58 "配置方式二": mask is the total count, repeatTimes ignored
        outer = -(-mask // lanes)
        repeats = [lanes] * (outer - 1) + [mask - (outer - 1) * lanes]
    else:                                     # "配置方式一": mask elements in each of repeatTimes outer repeats
        repeats = [mask] * times
    kept = gather_mask(ub, "uint32", 1152, 0, None, 1024, repeats, 1, 4, 0)
    return ub[1152:1152 + 1024].view(np.uint32).copy(), kept


def expected(device, inputs):
    s1 = np.arange(2, 257, 2, dtype=np.uint32)
    s2, kept = _gather_mask_counter(device, inputs["x2"], inputs["y2"])
    s2 = s2[:kept]
    s3 = inputs["x3"][inputs["y3"] // 2]
    return {"scenario1": s1, "rsvdCnt1": np.array([128]), "scenario2": s2, "rsvdCnt2": np.array([kept]),
            "scenario3": s3, "rsvdCnt3": np.array([0])}


KERNEL = KernelSpec("gather", "devkit gather, scenarios 1-3: GatherMask in place with a built-in pattern, GatherMask "
                    "with a user pattern in counter mode (mask 70), Gather by byte offsets after SetSize", make_inputs,
                    run, expected, default_size=640, devices=DEVICES, size_rule="640 (the example's data)",
                    size_ok=lambda n: n == 640,
                    source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/"
                           "01_memory_vector_compute/gather/gather.asc")
