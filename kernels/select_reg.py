"""The devkit's Reg Select example: z = select(x, y) by a MaskReg loaded from UB, over float.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7:
examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/select/select.asc (`SelectVF`, `Kernel<float, 256,
128>`): per 64-float step, LoadAlign of x and y with POST_MODE_UPDATE, the selection mask loaded from UB (a MaskReg
LoadAlign of 32 bytes per step, POST_MODE_UPDATE), then Select(z, x, y, mask): lane j takes x where mask bit 4j is
set (a b32 lane's lowest bit, as its gen_data.py reads it), StoreAlign with POST_MODE_UPDATE. LocalMemAllocator
tiles, DataCopy GM -> UB, MTE2_V flag, the VF (compiled with `@aj.Reg.simd_vf`), V_MTE3 flag, DataCopy UB -> GM,
PipeBarrier<PIPE_ALL>. Select on data registers is the devkit Reg page's instruction (docs/decisions.md "Reg API");
the devkit's compare example is not ported: Reg Compare/Compares are not offered (SPEC-2 14).

Sizes: the example's 256 floats; any multiple of 64 floats up to 8192 runs (whole vectors, as the original's loop).
Fidelity: BIT-EXACT (lane copies), checked against the reference model's select.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec
from ascend_jit.reference import reg as ref

R = aj.Reg
LANES = 64                       # oneRepeatSize: GetVecLen() / sizeof(float)
MASK_BYTES = 32                  # maskRepeatSize: GetVecLen() / 8


def select_vf(x, y, sel, z, repeat_times):
    """SelectVF: the selection mask of each step from UB."""
    store_mask = R.CreateMask("float", R.MaskPattern.ALL)
    x_reg, y_reg, z_reg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    mask = R.MaskReg()
    x_off = y_off = m_off = z_off = 0
    for _ in range(repeat_times):
        x_off = R.LoadAlign(x_reg, x, x_off, post_update_stride=LANES)
        y_off = R.LoadAlign(y_reg, y, y_off, post_update_stride=LANES)
        m_off = R.LoadAlign(mask, sel, m_off, post_update_stride=MASK_BYTES)
        R.Select(z_reg, x_reg, y_reg, mask)
        z_off = R.StoreAlign(z, z_reg, store_mask, z_off, post_update_stride=LANES)


SELECT_VF = R.simd_vf(select_vf)


def _kernel(x_gm, y_gm, m_gm, z_gm, total, compute):
    """The example's Kernel::Process: tiles, copy in, the VF, copy out."""
    aj.InitSocState()
    allocator = aj.LocalMemAllocator()
    x_local, y_local = allocator.Alloc("float", total), allocator.Alloc("float", total)
    m_local = allocator.Alloc("uint8", total // LANES * MASK_BYTES)
    z_local = allocator.Alloc("float", total)
    aj.DataCopy(x_local, aj.GlobalTensor(x_gm), total)
    aj.DataCopy(y_local, aj.GlobalTensor(y_gm), total)
    aj.DataCopy(m_local, aj.GlobalTensor(m_gm), m_local.GetSize())
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    compute(x_local, y_local, m_local, z_local, total // LANES)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(aj.GlobalTensor(z_gm), z_local, total)
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, size).astype(np.float32)
    y = rng.uniform(-2, 2, size).astype(np.float32)
    x[:6], y[:6] = [0.0, -0.0, np.nan, 1.0, np.inf, 0.0], [-0.0, 0.0, 1.0, np.nan, 1.0, 0.0]
    return {"x": x, "y": y, "mask": rng.integers(0, 255, size // LANES * MASK_BYTES).astype(np.uint8)}


def run(device, inputs, compiled=True):
    x, y = inputs["x"], inputs["y"]
    z = np.zeros_like(x)
    vf = SELECT_VF if compiled else select_vf
    with aj.Core(device):
        _kernel(x, y, inputs["mask"], z, x.size, vf)
    return {"z": z}


def expected(device, inputs):
    x, y = inputs["x"], inputs["y"]
    bits = int.from_bytes(inputs["mask"].tobytes(), "little")
    return {"z": np.array(ref.select(list(x), list(y), bits, 4), np.float32)}


KERNELS = [
    KernelSpec("select_reg", "devkit Reg select example: Select by a MaskReg loaded from UB", make_inputs, run, expected,
               default_size=256, devices=("ascend950",), size_rule="a multiple of 64 floats, at most 8192",
               size_ok=lambda n: 0 < n <= 8192 and n % LANES == 0,
               source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/"
                      "select/select.asc"),
]
