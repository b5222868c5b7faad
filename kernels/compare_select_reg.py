"""The devkit's Reg Compare and Select examples: z = select(x, y) by a MaskReg, over float.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7:
- examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/compare/compare.asc (`CompareVF`, `ComparesVF`,
  `Kernel<float, 256>`, scenario 1 and 2): per 64-float step, LoadAlign of x and y with POST_MODE_UPDATE,
  Compare<float, GT>(x, y) (scenario 1: z = max(x, y) by selection) or Compares<float, GT>(x, 0) (scenario 2: z = x
  where x > 0, else y), Select(z, x, y, cmp), StoreAlign with POST_MODE_UPDATE;
- examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/select/select.asc (`SelectVF`, `Kernel<float, 256,
  128>`): the selection mask loaded from UB (a MaskReg LoadAlign of 32 bytes per step, POST_MODE_UPDATE), then
  Select(z, x, y, mask): lane j takes x where mask bit 4j is set (a b32 lane's lowest bit, as its gen_data.py reads
  it).
Each: LocalMemAllocator tiles, DataCopy GM -> UB, MTE2_V flag, the VF (compiled with `@aj.Reg.simd_vf`), V_MTE3
flag, DataCopy UB -> GM, PipeBarrier<PIPE_ALL>. Compare, Compares and Select on data registers are the devkit Reg
pages' instructions (docs/decisions.md "Reg API").

Sizes: the examples' 256 floats; any multiple of 64 floats up to 8192 runs (whole vectors, as the originals' loops).
Fidelity: BIT-EXACT (comparisons and lane copies), checked against the reference model's compare and select.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec
from ascend_jit.reference import reg as ref

R = aj.Reg
LANES = 64                       # oneRepeatSize: GetVecLen() / sizeof(float)
MASK_BYTES = 32                  # maskRepeatSize: GetVecLen() / 8
SCALAR = 0.0                     # compare.asc's `float scalar = 0`


def compare_vf(x, y, z, scalar, repeat_times, use_scalar):
    """CompareVF (use_scalar False) and ComparesVF (True)."""
    mask = R.CreateMask("float", R.MaskPattern.ALL)
    x_reg, y_reg, z_reg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    cmp = R.MaskReg()
    x_off = y_off = z_off = 0
    for _ in range(repeat_times):
        x_off = R.LoadAlign(x_reg, x, x_off, post_update_stride=LANES)
        y_off = R.LoadAlign(y_reg, y, y_off, post_update_stride=LANES)
        if use_scalar:
            R.Compares(cmp, x_reg, scalar, mask, aj.CMPMODE.GT)
        else:
            R.Compare(cmp, x_reg, y_reg, mask, aj.CMPMODE.GT)
        R.Select(z_reg, x_reg, y_reg, cmp)
        z_off = R.StoreAlign(z, z_reg, mask, z_off, post_update_stride=LANES)


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


COMPARE_VF, SELECT_VF = R.simd_vf(compare_vf), R.simd_vf(select_vf)


def _kernel(x_gm, y_gm, z_gm, total, compute, m_gm=None):
    """The examples' Kernel::Process: tiles, copy in, the VF, copy out."""
    aj.InitSocState()
    allocator = aj.LocalMemAllocator()
    x_local, y_local = allocator.Alloc("float", total), allocator.Alloc("float", total)
    m_local = None if m_gm is None else allocator.Alloc("uint8", total // LANES * MASK_BYTES)
    z_local = allocator.Alloc("float", total)
    aj.DataCopy(x_local, aj.GlobalTensor(x_gm), total)
    aj.DataCopy(y_local, aj.GlobalTensor(y_gm), total)
    if m_gm is not None:
        aj.DataCopy(m_local, aj.GlobalTensor(m_gm), m_local.GetSize())
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    compute(x_local, y_local, m_local, z_local, total // LANES)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(aj.GlobalTensor(z_gm), z_local, total)
    aj.PipeBarrier(aj.PIPE_ALL)


def _inputs(with_mask):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-2, 2, size).astype(np.float32)
        y = rng.uniform(-2, 2, size).astype(np.float32)
        x[:6], y[:6] = [0.0, -0.0, np.nan, 1.0, np.inf, 0.0], [-0.0, 0.0, 1.0, np.nan, 1.0, 0.0]
        out = {"x": x, "y": y}
        if with_mask:
            out["mask"] = rng.integers(0, 255, size // LANES * MASK_BYTES).astype(np.uint8)
        return out
    return make_inputs


def _run(scenario):
    def run(device, inputs, compiled=True):
        x, y = inputs["x"], inputs["y"]
        z = np.zeros_like(x)
        with aj.Core(device):
            if scenario == "select":
                vf = SELECT_VF if compiled else select_vf
                _kernel(x, y, z, x.size, lambda a, b, m, c, n: vf(a, b, m, c, n), inputs["mask"])
            else:
                vf = COMPARE_VF if compiled else compare_vf
                _kernel(x, y, z, x.size, lambda a, b, m, c, n: vf(a, b, c, SCALAR, n, scenario == "compares"))
        return {"z": z}
    return run


def _expected(scenario):
    def expected(device, inputs):
        x, y = inputs["x"], inputs["y"]
        xs, ys = [float(v) for v in x], [float(v) for v in y]
        if scenario == "select":
            bits = int.from_bytes(inputs["mask"].tobytes(), "little")
        else:
            bits = ref.compare("GT", "float", xs, [SCALAR] * len(xs) if scenario == "compares" else ys,
                               [True] * len(xs))
        return {"z": np.array(ref.select(list(x), list(y), bits, 4), np.float32)}
    return expected


def _spec(name, scenario, description, source_path):
    return KernelSpec(name, description, _inputs(scenario == "select"), _run(scenario), _expected(scenario),
                      default_size=256, devices=("ascend950",), size_rule="a multiple of 64 floats, at most 8192",
                      size_ok=lambda n: 0 < n <= 8192 and n % LANES == 0,
                      source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/"
                             f"02_reg_vector_compute/{source_path}")


KERNELS = [
    _spec("compare_reg", "compare", "devkit Reg compare example, scenario 1: Compare GT then Select (max of x, y)",
          "compare/compare.asc (scenario 1)"),
    _spec("compares_reg", "compares", "devkit Reg compare example, scenario 2: Compares GT 0 then Select",
          "compare/compare.asc (scenario 2)"),
    _spec("select_reg", "select", "devkit Reg select example: Select by a MaskReg loaded from UB",
          "select/select.asc"),
]
