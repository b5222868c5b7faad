"""The devkit example `examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/reduce_pair_elem`
(mirror-cann/asc-devkit), ported line by line: InitSocState, LocalMemAllocator, DataCopy in, MTE2_V flag,
ReducePairElem with a full bit mask over one repeat, V_MTE3 flag, DataCopy out, PipeBarrier<PIPE_ALL>.
The example zeroes dst with `Duplicate(dstLocal, zero, 64)`, as the port does. Expectation: x[2i] + x[2i+1] in numpy float16 (saturated on saturating devices)."""
import numpy as np

import ascend_jit as aj

from ascend_jit.kernels._base import KernelSpec

SRC_DATA_SIZE = 128
DST_DATA_SIZE = 64


def reduce_pair_elem_custom(x, z):
    aj.InitSocState()
    srcGlobal, dstGlobal = aj.GlobalTensor(), aj.GlobalTensor()
    srcGlobal.SetGlobalBuffer(x)
    dstGlobal.SetGlobalBuffer(z)

    ubAllocator = aj.LocalMemAllocator()
    srcLocal = ubAllocator.Alloc("half", SRC_DATA_SIZE)
    dstLocal = ubAllocator.Alloc("half", DST_DATA_SIZE)

    aj.DataCopy(srcLocal, srcGlobal, SRC_DATA_SIZE)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)

    aj.Duplicate(dstLocal, 0.0, DST_DATA_SIZE)
    mask = [2**64 - 1, 2**64 - 1]  # every bit: all 128 halves take part
    repeat = 1
    aj.ReducePairElem(dstLocal, srcLocal, mask, repeat, 1, 1, 8)

    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(dstGlobal, dstLocal, DST_DATA_SIZE)
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    return {"x": (rng.uniform(-100, 100, size) if seed else rng.uniform(1, 2, size)).astype(np.float16)}


def run(device, inputs):
    z = np.zeros(DST_DATA_SIZE, np.float16)
    aj.launch(reduce_pair_elem_custom, 1, device, inputs["x"].copy(), z)
    return {"z": z}


def expected(device, inputs):
    x = inputs["x"]
    with np.errstate(all="ignore"):
        z = x[0::2] + x[1::2]
    if aj.Core(device).half_saturating:
        z = np.clip(np.where(np.isnan(z), np.float16(0), z), -65504, 65504).astype(np.float16)
    return {"z": z}


KERNEL = KernelSpec("reduce_pair_elem", "devkit reduce_pair_elem example: LocalMemAllocator, flags, one repeat of "
                    "ReducePairElem", make_inputs, run, expected, default_size=SRC_DATA_SIZE,
                    devices=tuple(n for n, d in aj.DEVICES.items() if d.supported and d.isasi_flags),
                    size_rule="128 (the example's data)", size_ok=lambda n: n == SRC_DATA_SIZE,
                    source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/"
                           "01_memory_vector_compute/reduce_pair_elem/reduce_pair_elem.asc")
