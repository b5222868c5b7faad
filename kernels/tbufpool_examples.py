"""The devkit example `tbufpool_management`, scenarios 1 and 2, ported line by line (TPipe, TBufPools of VECCALC,
depth-1 queues carved from them, Reset between the two halves of each scenario): two copies of z = x + y over the
first `mask` halves, each through its own queues, the second reusing the first's UB bytes.
1. Memory reuse: `pipe->InitBufPool(tbufPool1, 3 * bufSize)` and `pipe->InitBufPool(tbufPool2, 3 * bufSize,
   tbufPool1)` (pool 2 over pool 1's range); pool 1 carves srcQue0, srcQue1, dstQue0 (64 KiB each), computes,
   Reset; pool 2 carves srcQue2, srcQue3, dstQue1 at the same addresses, computes again, Reset (mask 512).
2. Subdivision: pool 0 of 4 x 32 KiB holds sub-pool 1 (2 x 32 KiB) and srcQue0 (64 KiB); sub-pool 2 lays over
   sub-pool 1; pool 1 carves srcQue1 and dstQue0, pool 2 srcQue2 and dstQue1 after pool 1's Reset; then pool 2,
   pool 0 and the pipe are Reset (mask 16384).
Scenario 3 (a user TBufPool through the EXTERN_IMPL_BUFPOOL macro and the internal buffer-handle calls) is not
ported: it programs the pool's internals, not the documented API.

Source: mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
04_memory_management/tbufpool_management/tbufpool_management.asc (`KernelBufPool<65536, 512>` ProcessBufPoolReuse,
`KernelBufPool<32768, 16384>` ProcessBufPoolSubdivision); scripts/gen_data.py: x, y of shapes [3, 65536] and
[4, 32768] halves, z = x + y over the first `mask` elements.

Devices: TBufPool, the queues, DataCopy and Add are offered everywhere; scenario 1's pool is 192 KiB, the whole UB of
the A2/A3 (SPEC section 8): both scenarios run on every device.

Fidelity: BIT-EXACT (Add is BIT-EXACT, SPEC-2 0.3). The expectation composes the package's reference Add (the
device's half saturation) over the first `mask` elements; the rest of z stays as the host left it (zeros).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

SCENARIOS = {1: (65536, 512, 3 * 65536), 2: (32768, 16384, 4 * 32768)}   # bufSize (bytes), mask, GM halves


class KernelBufPool:
    def __init__(self, bufSize, mask, scenario):
        self.bufSize, self.mask, self.scenario = bufSize, mask, scenario

    def Init(self, src0Gm, src1Gm, dstGm, pipeIn):
        self.pipe = pipeIn
        self.src0Global, self.src1Global, self.dstGlobal = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.src0Global.SetGlobalBuffer(src0Gm)
        self.src1Global.SetGlobalBuffer(src1Gm)
        self.dstGlobal.SetGlobalBuffer(dstGm)
        self.tbufPool0, self.tbufPool1, self.tbufPool2 = (aj.TBufPool(aj.TPosition.VECCALC) for _ in range(3))
        self.srcQue0, self.srcQue1, self.srcQue2, self.srcQue3 = (aj.TQue(aj.TPosition.VECIN, 1) for _ in range(4))
        self.dstQue0, self.dstQue1 = aj.TQue(aj.TPosition.VECOUT, 1), aj.TQue(aj.TPosition.VECOUT, 1)

    def ProcessBufPoolReuse(self):
        # pool 2 reuses pool 1's start address and length
        self.pipe.InitBufPool(self.tbufPool1, self.bufSize * 3)
        self.pipe.InitBufPool(self.tbufPool2, self.bufSize * 3, self.tbufPool1)
        self.tbufPool1.InitBuffer(self.srcQue0, 1, self.bufSize)
        self.tbufPool1.InitBuffer(self.srcQue1, 1, self.bufSize)
        self.tbufPool1.InitBuffer(self.dstQue0, 1, self.bufSize)
        self.CopyIn()
        self.Compute()
        self.CopyOut()
        self.tbufPool1.Reset()
        self.tbufPool2.InitBuffer(self.srcQue2, 1, self.bufSize)
        self.tbufPool2.InitBuffer(self.srcQue3, 1, self.bufSize)
        self.tbufPool2.InitBuffer(self.dstQue1, 1, self.bufSize)
        self.CopyIn1(self.srcQue2, self.srcQue3)
        self.Compute1(self.srcQue2, self.srcQue3)
        self.CopyOut1()
        self.tbufPool2.Reset()

    def ProcessBufPoolSubdivision(self):
        # pool 0 holds pool 1 and srcQue0; pool 2 reuses pool 1's start address and length
        self.pipe.InitBufPool(self.tbufPool0, self.bufSize * 4)
        self.tbufPool0.InitBufPool(self.tbufPool1, self.bufSize * 2)
        self.tbufPool0.InitBuffer(self.srcQue0, 1, self.bufSize * 2)
        self.tbufPool0.InitBufPool(self.tbufPool2, self.bufSize * 2, self.tbufPool1)
        self.tbufPool1.InitBuffer(self.srcQue1, 1, self.bufSize)
        self.tbufPool1.InitBuffer(self.dstQue0, 1, self.bufSize)
        self.CopyIn()
        self.Compute()
        self.CopyOut()
        self.tbufPool1.Reset()
        self.tbufPool2.InitBuffer(self.srcQue2, 1, self.bufSize)
        self.tbufPool2.InitBuffer(self.dstQue1, 1, self.bufSize)
        self.CopyIn1(self.srcQue0, self.srcQue2)
        self.Compute1(self.srcQue0, self.srcQue2)
        self.CopyOut1()
        self.tbufPool2.Reset()
        self.tbufPool0.Reset()
        self.pipe.Reset()

    def CopyIn(self):
        src0Local, src1Local = self.srcQue0.AllocTensor("half"), self.srcQue1.AllocTensor("half")
        aj.DataCopy(src0Local, self.src0Global, self.mask)
        aj.DataCopy(src1Local, self.src1Global, self.mask)
        self.srcQue0.EnQue(src0Local)
        self.srcQue1.EnQue(src1Local)

    def Compute(self):
        src0Local, src1Local = self.srcQue0.DeQue("half"), self.srcQue1.DeQue("half")
        dstLocal = self.dstQue0.AllocTensor("half")
        aj.Add(dstLocal, src0Local, src1Local, self.mask)
        self.dstQue0.EnQue(dstLocal)
        self.srcQue0.FreeTensor(src0Local)
        self.srcQue1.FreeTensor(src1Local)

    def CopyOut(self):
        dstLocal = self.dstQue0.DeQue("half")
        aj.DataCopy(self.dstGlobal, dstLocal, self.mask)
        self.dstQue0.FreeTensor(dstLocal)

    def CopyIn1(self, que0, que1):
        src0Local, src1Local = que0.AllocTensor("half"), que1.AllocTensor("half")
        aj.DataCopy(src0Local, self.src0Global, self.mask)
        aj.DataCopy(src1Local, self.src1Global, self.mask)
        que0.EnQue(src0Local)
        que1.EnQue(src1Local)

    def Compute1(self, que0, que1):
        src0Local, src1Local = que0.DeQue("half"), que1.DeQue("half")
        dstLocal = self.dstQue1.AllocTensor("half")
        aj.Add(dstLocal, src0Local, src1Local, self.mask)
        self.dstQue1.EnQue(dstLocal)
        que0.FreeTensor(src0Local)
        que1.FreeTensor(src1Local)

    def CopyOut1(self):
        dstLocal = self.dstQue1.DeQue("half")
        aj.DataCopy(self.dstGlobal, dstLocal, self.mask)
        self.dstQue1.FreeTensor(dstLocal)


def tbufpool_management_custom(x, y, z, scenario):
    pipe = aj.TPipe()
    bufSize, mask, _ = SCENARIOS[scenario]
    op = KernelBufPool(bufSize, mask, scenario)
    op.Init(x, y, z, pipe)
    if scenario == 1:
        op.ProcessBufPoolReuse()
    else:
        op.ProcessBufPoolSubdivision()


def _make_inputs(scenario):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        n = SCENARIOS[scenario][2]
        return {"x": rng.uniform(-100, 100, n).astype(np.float16), "y": rng.uniform(-100, 100, n).astype(np.float16)}
    return make_inputs


def _run(scenario):
    def run(device, inputs):
        z = np.zeros(SCENARIOS[scenario][2], np.float16)
        aj.launch(tbufpool_management_custom, 1, device, inputs["x"].copy(), inputs["y"].copy(), z, scenario)
        return {"z": z}
    return run


def _expected(scenario):
    def expected(device, inputs):
        from ascend_jit.reference import elementwise as ref
        mask = SCENARIOS[scenario][1]
        env = ref.Env(device, sat_half=aj.Core(device).half_saturating)
        z = np.zeros(SCENARIOS[scenario][2], np.float16)
        z[:mask] = ref.add("half", env, inputs["x"][:mask].astype(np.float64), inputs["y"][:mask].astype(np.float64))
        return {"z": z}
    return expected


_SOURCE = ("mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/04_memory_management/"
           "tbufpool_management/tbufpool_management.asc")
KERNELS = [
    KernelSpec(f"tbufpool_{name}", f"devkit tbufpool_management, scenario {scenario}: {what}", _make_inputs(scenario),
               _run(scenario), _expected(scenario), default_size=SCENARIOS[scenario][2],
               size_rule=f"{SCENARIOS[scenario][2]} (the example's data)",
               size_ok=lambda n, scenario=scenario: n == SCENARIOS[scenario][2], source=_SOURCE, devices=devices)
    for scenario, name, what, devices in (
        (1, "reuse", "two pools over one 192 KiB range, Reset between their queues", aj.SUPPORTED_NAMES),
        (2, "subdivision", "sub-pools carved from a pool, one laid over the other; pool and pipe Reset",
         aj.SUPPORTED_NAMES))
]
