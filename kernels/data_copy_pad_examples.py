"""The devkit example `data_copy_pad_gm2ub_ub2gm`, scenarios 1-3, ported line by line (InitSocState, the
LocalMemAllocator tensor, the MTE2_MTE3 flag pair between the copy in and the copy out, the final
PipeBarrier<PIPE_ALL>): rows that are not 32-byte multiples brought into the UB with padding, then the padded
layout copied back to GM with one DataCopyPad of the whole tensor.
1. [1, 20] halves (40 B) -> [1, 32]: `DataCopyPadExtParams<half> padParams;` set field by field (isPad = false,
   rightPadding = 12) after `SetPadValue((half)1)`: the pad takes the SetPadValue value (SPEC-2 D56);
2. [32, 59] floats -> [32, 64]: blockCount = 32 rows of 236 B, isPad = true, rightPadding = 5: zeros;
3. (Ascend 950 only) [3, 24] halves -> [1, 80] with PaddingMode::Compact: the three rows back to back, then 8 padding
   halves (isPad = true: zeros).
Scenarios 4-6 (SetLoopModePara loop mode) are not ported: loop mode is out of scope (SPEC-2 section 14).

Source: mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
00_data_movement/data_copy_pad_gm2ub_ub2gm/data_copy_pad.asc (`KernelDataCopyPad`, `data_copy_pad_custom`,
SCENARIO_NUM 1..3; its scripts/gen_data.py draws the inputs uniform in [-10, 10]).

Devices: DataCopyPad is not offered on the 310P and the 910, the ISASI SetFlag/WaitFlag not on the 310B, SetPadValue
only on the 950, A3 and A2 (SPEC-2 1.9): `data_copy_pad` (scenarios 1, 2) runs there, `data_copy_pad_950`
(Compact) on the 950.

Fidelity: BIT-EXACT (DataCopyPad is BIT-EXACT, SPEC-2 0.3; every byte copied out is data or a documented pad value,
none of D56's poison bytes). The expectation is gen_data.py's golden layout: each row followed by its pad values.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

# scenario -> (dtype, source rows, source columns, destination columns, destination elements)
SHAPES = {1: ("half", 1, 20, 32, 32), 2: ("float", 32, 59, 64, 32 * 64), 3: ("half", 3, 24, 80, 80)}
_NP = {"half": np.float16, "float": np.float32}


class KernelDataCopyPad:
    def __init__(self, scenario):
        self.scenario = scenario
        self.dtype, self.srcRows, self.srcCols, self.dstCols, self.dstTotalLength = SHAPES[scenario]
        self.size = 2 if self.dtype == "half" else 4

    def Init(self, x, z):
        self.srcGlobal, self.dstGlobal = aj.GlobalTensor(), aj.GlobalTensor()
        self.srcGlobal.SetGlobalBuffer(x)
        self.dstGlobal.SetGlobalBuffer(z)

    def Process(self):
        ubAllocator = aj.LocalMemAllocator()
        srcLocal = ubAllocator.Alloc(self.dtype, self.dstTotalLength)
        self.CopyIn(srcLocal)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_MTE3)
        copyParams = aj.DataCopyExtParams(1, self.dstTotalLength * self.size, 0, 0, 0)
        aj.DataCopyPad(self.dstGlobal, srcLocal, copyParams)

    def CopyIn(self, srcLocal):
        padParams = aj.DataCopyPadExtParams()
        if self.scenario == 1:     # a custom pad value through SetPadValue, isPad = false
            copyParams = aj.DataCopyExtParams(1, self.srcCols * self.size, 0, 0, 0)
            padParams.isPad = False
            padParams.leftPadding = 0
            padParams.rightPadding = self.dstCols - self.srcCols
            aj.SetPadValue(np.float16(1))                    # (T)1 with T = half
            aj.DataCopyPad(srcLocal, self.srcGlobal, copyParams, padParams)
        elif self.scenario == 2:   # the default pad (isPad = true, paddingValue 0)
            copyParams = aj.DataCopyExtParams(self.srcRows, self.srcCols * 4, 0, 0, 0)
            padParams.isPad = True
            padParams.leftPadding = 0
            padParams.rightPadding = self.dstCols - self.srcCols
            aj.DataCopyPad(srcLocal, self.srcGlobal, copyParams, padParams)
        else:                      # Compact: the rows back to back, the padding after the last one
            copyParams = aj.DataCopyExtParams(self.srcRows, self.srcCols * self.size, 0, 0, 0)
            padParams.isPad = True
            padParams.leftPadding = 0
            padParams.rightPadding = self.dstCols - self.srcCols * self.srcRows
            aj.DataCopyPad(srcLocal, self.srcGlobal, copyParams, padParams, mode=aj.PaddingMode.Compact)


def data_copy_pad_custom(x, z, scenario):
    aj.InitSocState()
    op = KernelDataCopyPad(scenario)
    op.Init(x, z)
    op.Process()
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    return {f"x{s}": rng.uniform(-10, 10, (rows, cols)).astype(_NP[dtype])
            for s, (dtype, rows, cols, _, _) in SHAPES.items()}


def _run(device, inputs, scenarios):
    out = {}
    for s in scenarios:
        dtype, _, _, _, total = SHAPES[s]
        z = np.full(total, np.nan, _NP[dtype])       # every element is written: no NaN may survive
        aj.launch(data_copy_pad_custom, 1, device, inputs[f"x{s}"].reshape(-1).copy(), z, s)
        out[f"scenario{s}"] = z
    return out


def _expected(inputs, scenarios):
    out = {}
    for s in scenarios:
        dtype, rows, cols, dst_cols, total = SHAPES[s]
        x = inputs[f"x{s}"]
        if s == 3:
            z = np.concatenate([x.reshape(-1), np.zeros(total - x.size, _NP[dtype])])
        else:
            z = np.full((rows, dst_cols), 1 if s == 1 else 0, _NP[dtype])
            z[:, :cols] = x
        out[f"scenario{s}"] = z.reshape(-1)
    return out


_COMMON = dict(default_size=sum(r * c for _, r, c, _, _ in SHAPES.values()), size_rule="the example's data (1980)",
               size_ok=lambda n: n == 1980,
               source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/00_data_movement/"
                      "data_copy_pad_gm2ub_ub2gm/data_copy_pad.asc")

KERNELS = [
    KernelSpec("data_copy_pad", "devkit data_copy_pad, scenarios 1-2: unaligned rows padded by SetPadValue "
               "(isPad = false) and by isPad = true, parameter structs set field by field", make_inputs,
               lambda device, inputs: _run(device, inputs, (1, 2)), lambda device, inputs: _expected(inputs, (1, 2)),
               devices=("ascend950", "atlas-a3", "atlas-a2"), **_COMMON),
    KernelSpec("data_copy_pad_950", "devkit data_copy_pad, scenario 3 (Ascend 950): PaddingMode::Compact",
               make_inputs, lambda device, inputs: _run(device, inputs, (3,)),
               lambda device, inputs: _expected(inputs, (3,)), devices=("ascend950",), **_COMMON),
]
