"""The devkit's basic Reg-API examples muls and abs: y = op(x) over 256 floats, one VF.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
02_reg_vector_compute/:
- muls/muls.asc (`MulsVF`, `Kernel<float>`, scalar 2.0f): Muls(z, x, scalar, mask);
- abs/abs.asc (`AbsVF`): Abs(y, x, mask).
(The devkit's truncate example is not ported: Reg Truncate is not offered, SPEC-2 14.)
Each: a LocalMemAllocator's two 256-element tiles, DataCopy GM -> UB, MTE2_V flag, the VF (compiled with
`@aj.Reg.simd_vf`: per 64-float step LoadAlign, the instruction under CreateMask<float, ALL>, StoreAlign), V_MTE3 flag,
DataCopy UB -> GM, PipeBarrier<PIPE_ALL>. Muls and Abs are the devkit Reg pages' instructions
(docs/decisions.md "Reg API").

Sizes: the examples' 256 floats; any multiple of 64 floats up to 8192 runs (whole vectors, as the originals' loops).
The inputs are the examples' uniform draws with the specials (+-0, +-inf, NaN, a tie) in the first lanes.
Fidelity: BIT-EXACT (Muls: RegPrec 0 ulp; Abs exact), checked against the reference model's lanes.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec
from ascend_jit.reference import reg as ref

R = aj.Reg
LANES = 64                 # oneRepeatSize: GetVecLen() / sizeof(float)
MULS_SCALAR = 2.0          # muls.asc's `float scalar = 2.0f`
MULS, ABS = 0, 1


def basic_vf(x, y, repeat_times, op, scalar):
    """MulsVF / AbsVF (`op` picks the instruction, `scalar` Muls's)."""
    mask = R.CreateMask("float", R.MaskPattern.ALL)
    x_reg, y_reg = R.RegTensor("float"), R.RegTensor("float")
    for i in range(repeat_times):
        R.LoadAlign(x_reg, x, i * LANES)
        if op == MULS:
            R.Muls(y_reg, x_reg, scalar, mask)
        else:
            R.Abs(y_reg, x_reg, mask)
        R.StoreAlign(y, y_reg, mask, i * LANES)


BASIC_VF = R.simd_vf(basic_vf)


def basic_kernel(x_gm, y_gm, total, op, vf=BASIC_VF):
    """The examples' Kernel<float>::Process."""
    aj.InitSocState()
    allocator = aj.LocalMemAllocator()
    x_local, y_local = allocator.Alloc("float", total), allocator.Alloc("float", total)
    aj.DataCopy(x_local, aj.GlobalTensor(x_gm), total)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    vf(x_local, y_local, -(-total // LANES), op, MULS_SCALAR)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(aj.GlobalTensor(y_gm), y_local, total)
    aj.PipeBarrier(aj.PIPE_ALL)


def _make_inputs(low, high):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(low, high, size).astype(np.float32)
        x[:7] = [0.0, -0.0, np.inf, -np.inf, np.nan, -2.5, 1e-40]
        return {"x": x}
    return make_inputs


def _run(op):
    def run(device, inputs, compiled=True):
        x = inputs["x"]
        y = np.zeros_like(x)
        with aj.Core(device):
            basic_kernel(x, y, x.size, op, BASIC_VF if compiled else basic_vf)
        return {"y": y}
    return run


def _expected(op):
    def expected(device, inputs):
        xs = [float(v) for v in inputs["x"]]
        on = [True] * len(xs)
        if op == MULS:
            lanes = ref.tensor_scalar("muls", "float", xs, MULS_SCALAR, on)
        else:
            lanes = ref.unary("abs", "float", xs, on)
        return {"y": np.array(lanes, np.float32)}
    return expected


def _spec(name, op, low, high, description, path):
    return KernelSpec(name, description, _make_inputs(low, high), _run(op), _expected(op), default_size=256,
                      devices=("ascend950",), size_rule="a multiple of 64 floats, at most 8192",
                      size_ok=lambda n: 0 < n <= 8192 and n % LANES == 0,
                      source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/"
                             f"02_reg_vector_compute/{path}")


KERNELS = [
    _spec("muls_reg", MULS, -2.0, 2.0, "devkit Reg muls example: Muls by 2.0 in a VF", "muls/muls.asc"),
    _spec("abs_reg", ABS, -2.0, 2.0, "devkit Reg abs example: Abs in a VF", "abs/abs.asc"),
]
