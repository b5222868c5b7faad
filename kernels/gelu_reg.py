"""The devkit's introductory Reg-API GELU: y = x / (1 + exp(-1.595769 x - 0.071405 x^3)) over float, on two cores.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7,
examples/01_simd_cpp_api/00_introduction/04_reg_compute/gelu/gelu.asc (`GeluVfMethod2`, `gelu_custom`):
each of the two blocks takes its own contiguous half of GM (GetBlockIdx() * singleCoreLength), carves an x and a y
tile with a LocalMemAllocator, DataCopy GM -> UB, MTE2_V flag, one VF (`gelu_vf`, compiled with `@aj.Reg.simd_vf`)
over 64-float steps with `UpdateMask<float>`: LoadAlign, Mul (x^2), Mul (x^3), Muls by COEFF_CUBIC, Muls of x by
COEFF_LINEAR, Add, Exp, Adds 1, Div (x / .), StoreAlign; V_MTE3 flag, DataCopy UB -> GM, PipeBarrier<PIPE_ALL>.
Muls and Adds are the devkit Reg pages' tensor-scalar instructions (docs/decisions.md "Reg API").

Sizes: the example's 256 x 32 floats (2 x 4096); any even size whose half is a multiple of 8 floats (DataCopy
moves whole 32-byte blocks) and fits the 950's UB twice. Deviation, only at a size whose half is no multiple of 64
(not the example's): the tiles are allocated rounded up to whole vectors and x's rounding lanes zeroed, because
the VF's last full-vector LoadAlign reads them (past a tile of the exact length: an out-of-bounds read, and an
uninitialised one for the sanitizer before session 54; the zeroing is kept from before, no longer needed for the
init check); UpdateMask keeps them out of every store.

Fidelity: MODELLED (Exp and Div are MODELLED, SPEC-2 0.3); tests/test_reg_scalar_unary.py checks the port bit for
bit against the same sequence composed from the reference model. Against the float64 formula: inputs lie in
[-4, 4], so the exponent's argument t = -1.595769 x - 0.071405 x^3 lies within +-11 and its two float32 products,
two Muls and the Add (terms of one sign: no cancellation) leave it within 5 roundings (3e-7 relative, so 3.3e-6
absolute at |t| = 11); exp then carries that as a relative error plus its own 1 ulp, the Adds and the Div one
rounding each: within 1e-5 relative, with margin.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
LANES = 64                         # oneRepeatSize: GetVecLen() / sizeof(float)
NUM_BLOCKS = 2                     # the example's fixed core count
COEFF_LINEAR = np.float32(-1.595769)   # the original's float constants (f-suffixed literals)
COEFF_CUBIC = np.float32(-0.071405)
ZEROING = R.MaskMergeMode.ZEROING  # named as kernels/softmax_reg.py names it: one compiled specialisation each
UB_FLOATS = 248 * 1024 // 4        # the 950's UB in floats (SPEC section 8)


def gelu_vf(x_addr, y_addr, count, loop_num):
    """The original's GeluVfMethod2."""
    x_reg, y_reg, tmp_reg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    for i in range(loop_num):
        mask, count = R.UpdateMask("float", count)
        R.LoadAlign(x_reg, x_addr, i * LANES)
        R.Mul(y_reg, x_reg, x_reg, mask, ZEROING)             # x^2
        R.Mul(y_reg, y_reg, x_reg, mask, ZEROING)             # x^3
        R.Muls(y_reg, y_reg, COEFF_CUBIC, mask, ZEROING)      # -0.071405 x^3
        R.Muls(tmp_reg, x_reg, COEFF_LINEAR, mask, ZEROING)   # -1.595769 x
        R.Add(y_reg, tmp_reg, y_reg, mask, ZEROING)
        R.Exp(y_reg, y_reg, mask, ZEROING)
        R.Adds(y_reg, y_reg, 1.0, mask)                       # 1 + exp(.)
        R.Div(y_reg, x_reg, y_reg, mask, ZEROING)             # x / (1 + exp(.))
        R.StoreAlign(y_addr, y_reg, mask, i * LANES)


GELU_VF = R.simd_vf(gelu_vf)


def gelu_custom(x_gm, y_gm, single_core_length, vf=GELU_VF):
    """The original's gelu_custom<singleCoreLength> for one block."""
    aj.InitSocState()
    x = aj.GlobalTensor(x_gm)[aj.GetBlockIdx() * single_core_length]
    y = aj.GlobalTensor(y_gm)[aj.GetBlockIdx() * single_core_length]
    loop_num = -(-single_core_length // LANES)
    tile = loop_num * LANES                      # = single_core_length in the example (see the docstring)
    allocator = aj.LocalMemAllocator()
    x_local = allocator.Alloc("float", tile)
    y_local = allocator.Alloc("float", tile)
    if tile > single_core_length:                # not in the original: the last vector's rounding lanes
        aj.Duplicate(x_local[single_core_length], 0.0, tile - single_core_length)
    aj.DataCopy(x_local, x, single_core_length)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    vf(x_local, y_local, single_core_length, loop_num)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(y, y_local, single_core_length)
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-4.0, 4.0, size).astype(np.float32)
    x[:4] = [0.0, -0.0, 4.0, -4.0]
    return {"x": x}


def run(device, inputs, vf=GELU_VF):
    x = inputs["x"]
    y = np.zeros_like(x)
    aj.launch(gelu_custom, NUM_BLOCKS, device, x, y, x.size // NUM_BLOCKS, vf=vf)
    return {"y": y}


def expected(device, inputs):
    x = inputs["x"].astype(np.float64)
    return {"y": x / (1.0 + np.exp(float(COEFF_LINEAR) * x + float(COEFF_CUBIC) * x ** 3))}


def _size_ok(n):
    half = n // NUM_BLOCKS
    return n > 0 and n % (2 * 8) == 0 and 2 * -(-half // LANES) * LANES <= UB_FLOATS


KERNEL = KernelSpec("gelu_reg", "devkit introductory Reg GELU: Mul, Muls, Add, Exp, Adds, Div in one VF on two cores",
                    make_inputs, run, expected, default_size=256 * 32, devices=("ascend950",),
                    size_rule="a multiple of 16 floats, two halves that fit the UB", size_ok=_size_ok, tolerance=1e-5,
                    source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/00_introduction/04_reg_compute/"
                           "gelu/gelu.asc")
