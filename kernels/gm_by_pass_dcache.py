"""The devkit's gm_by_pass_dcache utility example: one int32 read from GM and one written back + 100, both by the
scalar unit bypassing its data cache, a DataSyncBarrier<DDR> between them.

Ported (structure and instruction sequence; written in our own words) from mirror-cann/asc-devkit @
82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/09_utils/gm_by_pass_dcache/
gm_by_pass_dcache.asc (`KernelGmByPassDcache<int32_t>`, `kernel_gm_by_pass_dcache`, DATA_SIZE 1024, ADD_VALUE 100,
one block) and scripts/gen_data.py (x random over int32; golden zeros but golden[0] = x[0] + 100). The devkit
pages: SIMD-API/基础API/标量计算/ReadGmByPassDCache(ISASI).md and WriteGmByPassDCache(ISASI).md, 同步控制/核内同步/
DataSyncBarrier(ISASI).md.

The kernel: value = ReadGmByPassDCache<int32_t>(src.GetPhyAddr()); DataSyncBarrier<MemDsbT::DDR>();
WriteGmByPassDCache<int32_t>(dst.GetPhyAddr(), value + ADD_VALUE); PipeBarrier<PIPE_ALL>.

`value + ADD_VALUE` wraps as int32 (the input spans the whole int32 range; C++ signed overflow, two's complement on
the device).

Sizes: the example's 1024 int32 (only element 0 is read and written; the other dst elements stay the host's
zeros, as the golden has them); any size of 8 or more runs. Devices: the pages' 950, A3, A2.
Fidelity: BIT-EXACT (integer arithmetic).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

ADD_VALUE = 100
DATA_SIZE = 1024


class KernelGmByPassDcache:
    """KernelGmByPassDcache<int32_t>."""

    def Init(self, srcGm, dstGm):
        self.srcGlobal, self.dstGlobal = aj.GlobalTensor(), aj.GlobalTensor()
        self.srcGlobal.SetGlobalBuffer(srcGm)
        self.dstGlobal.SetGlobalBuffer(dstGm)

    def Process(self):
        value = aj.ReadGmByPassDCache(self.srcGlobal)   # C++ src.GetPhyAddr(): element 0
        aj.DataSyncBarrier(aj.MemDsbT.DDR)           # wait for the GM read before the GM write
        aj.WriteGmByPassDCache(self.dstGlobal, _int32_add(value, ADD_VALUE))


def _int32_add(a, b):
    """int32_t a + b as the device computes it (two's complement wrap)."""
    return int(np.array([int(a) + b], np.int64).astype(np.int32)[0])


def kernel_gm_by_pass_dcache(srcGm, dstGm):
    aj.InitSocState()
    op = KernelGmByPassDcache()
    op.Init(srcGm, dstGm)
    op.Process()
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    """gen_data.py: random int32 over [INT32_MIN, INT32_MAX); x[0] near the top at seed 1 to cover the wrap."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-2**31, 2**31 - 1, size, dtype=np.int64).astype(np.int32)
    if seed == 1:
        x[0] = 2**31 - 50
    return {"x": x}


def run(device, inputs):
    x = inputs["x"]
    z = np.zeros_like(x)
    aj.launch(kernel_gm_by_pass_dcache, 1, device, x, z)
    return {"z": z}


def expected(device, inputs):
    """gen_data.py's golden: zeros, golden[0] = x[0] + 100 (int32 wrap)."""
    x = inputs["x"]
    z = np.zeros_like(x)
    z[0] = _int32_add(x[0], ADD_VALUE)
    return {"z": z}


KERNEL = KernelSpec(
    "gm_by_pass_dcache", "devkit gm_by_pass_dcache example: one int32 read from GM, DataSyncBarrier<DDR>, written "
    "back + 100", make_inputs, run, expected,
    default_size=DATA_SIZE, devices=("ascend950", "atlas-a3", "atlas-a2"), size_rule="at least 8 int32",
    size_ok=lambda n: n >= 8,
    source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/09_utils/gm_by_pass_dcache/"
           "gm_by_pass_dcache.asc")
