"""The devkit's first Reg-API (950) examples: the introductory Reg add and the basic mul, duplicate, arange and reduce.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/:
- 00_introduction/04_reg_compute/add/add.asc (`AddVF<float, 16384>`, `vector_add`, 4 blocks of 256 * 256 / 4
  floats): one tile a block, DataCopy in, MTE2_V, a VF adding the tile to itself in place under UpdateMask, V_MTE3,
  DataCopy out; gen_data.py: x all ones, golden x + x.
- 03_basic_api/02_reg_vector_compute/mul/mul.asc (`MulVF<float>`, `KernelMul<float, 256>`, 4 blocks of 256):
  Mul(z, y, x) under CreateMask<float, ALL>; gen_data.py: x, y uniform in [1, 2).
- duplicate/duplicate.asc (`DuplicateScalarVF<float>`, 256 floats, one block): Duplicate of
  static_cast<float>(3.14) under CreateMask<float>(), no input.
- arange/arange.asc (`ArangeVF<float>`, 256 floats): one VF call a 64-lane repeat, Arange(dst, start) with start
  advanced by 64 on the scalar unit between calls; golden 0..255.
- reduce/reduce.asc (`ReduceSumVF<float>`, 256 floats): Duplicate 0 into an accumulator, per repeat Reduce<SUM> and
  Add into it, one StoreAlign of the whole register; 8 floats (32 bytes) copied out; golden [sum(x), 0 x 7].

Each kernel: InitSocState, a LocalMemAllocator's tiles, the examples' flags and a closing PipeBarrier<PIPE_ALL>;
`asc_vf_call<VF>(addr, ...)` is the `@aj.Reg.simd_vf` VF called on the tensor (an address `addr + i * n` is the
offset argument of LoadAlign / StoreAlign, or the sub-tensor `t[i * n]`).

Sizes: the examples' sizes are the defaults. add_reg_intro takes any multiple of 4 * 64 floats up to 4 * 16384 (its
LoadAlign reads whole registers: a block's tile that is not whole vectors would be read past, which the emulator's
tensor bounds refuse); mul_reg a multiple of 4 * 64 up to 4 * 8192; duplicate_reg, arange_reg and
reduce_sum_reg a multiple of 64 up to 8192 (their whole-vector loops; reduce_sum_reg's output stays 8 floats).
Fidelity: BIT-EXACT (Add, Mul, Duplicate exact lane ops; Arange of small integers exact; Reduce SUM in SPEC-2 11.4's
tree, reproduced by the reference model). The examples' goldens (x + x, x * y, 3.14, 0..255, sum(x) within 1e-4) are
what the kernels give: tests/test_port46dk_kernels.py checks them.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec
from ascend_jit.reference import reg as ref

R = aj.Reg
LANES = 64                      # GetVecLen() / sizeof(float)
SOURCE = "mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/"
FILL_VALUE = np.float32(3.14)   # duplicate.asc: static_cast<float>(3.14)


# ---- 00_introduction/04_reg_compute/add

@R.simd_vf
def AddVF(dstAddr, count, singleCoreLength):
    oneRepeatSize = R.GetVecLen() // 4
    repeatTimes = aj.DivCeil(singleCoreLength, oneRepeatSize)
    srcReg, dstReg = R.RegTensor("float"), R.RegTensor("float")
    for i in range(repeatTimes):
        mask, count = R.UpdateMask("float", count)
        R.LoadAlign(srcReg, dstAddr, i * oneRepeatSize)
        R.LoadAlign(dstReg, dstAddr, i * oneRepeatSize)
        R.Add(dstReg, dstReg, srcReg, mask)
        R.StoreAlign(dstAddr, dstReg, mask, i * oneRepeatSize)


def vector_add(x, y, singleCoreLength):
    aj.InitSocState()
    xGm, yGm = aj.GlobalTensor("float"), aj.GlobalTensor("float")
    xGm.SetGlobalBuffer(x)
    yGm.SetGlobalBuffer(y)
    coreOffset = aj.GetBlockIdx() * singleCoreLength
    ubAllocator = aj.LocalMemAllocator()
    yLocal = ubAllocator.Alloc("float", singleCoreLength)
    aj.DataCopy(yLocal, xGm[coreOffset], singleCoreLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    R.asc_vf_call(AddVF, yLocal, singleCoreLength, singleCoreLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(yGm[coreOffset], yLocal, singleCoreLength)
    aj.PipeBarrier(aj.PIPE_ALL)


# ---- 03_basic_api/02_reg_vector_compute/mul

@R.simd_vf
def MulVF(xAddr, yAddr, zAddr, repeatTimes, oneRepeatSize):
    mask = R.CreateMask("float", R.MaskPattern.ALL)
    xReg, yReg, zReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    for i in range(repeatTimes):
        R.LoadAlign(xReg, xAddr, i * oneRepeatSize)
        R.LoadAlign(yReg, yAddr, i * oneRepeatSize)
        R.Mul(zReg, yReg, xReg, mask)
        R.StoreAlign(zAddr, zReg, mask, i * oneRepeatSize)


def mul(x, y, z, singleCoreLength):
    aj.InitSocState()
    xGm, yGm, zGm = aj.GlobalTensor("float"), aj.GlobalTensor("float"), aj.GlobalTensor("float")
    xGm.SetGlobalBuffer(x)
    yGm.SetGlobalBuffer(y)
    zGm.SetGlobalBuffer(z)
    coreOffset = aj.GetBlockIdx() * singleCoreLength
    ubAllocator = aj.LocalMemAllocator()
    xLocal = ubAllocator.Alloc("float", singleCoreLength)
    yLocal = ubAllocator.Alloc("float", singleCoreLength)
    zLocal = ubAllocator.Alloc("float", singleCoreLength)
    aj.DataCopy(xLocal, xGm[coreOffset], singleCoreLength)
    aj.DataCopy(yLocal, yGm[coreOffset], singleCoreLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    oneRepeatSize = aj.GetVecLen() // aj.sizeof("float")
    repeatTimes = aj.DivCeil(singleCoreLength, oneRepeatSize)
    R.asc_vf_call(MulVF, xLocal, yLocal, zLocal, repeatTimes, oneRepeatSize)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(zGm[coreOffset], zLocal, singleCoreLength)
    aj.PipeBarrier(aj.PIPE_ALL)


# ---- duplicate, arange (no input)

@R.simd_vf
def DuplicateScalarVF(dstAddr, scalarValue, repeatTimes, oneRepeatSize):
    dstReg = R.RegTensor("float")
    mask = R.CreateMask("float")
    for i in range(repeatTimes):
        R.Duplicate(dstReg, scalarValue, mask)
        R.StoreAlign(dstAddr, dstReg, mask, i * oneRepeatSize)


@R.simd_vf
def ArangeVF(dstAddr, scalarValue, oneRepeatSize):
    dstReg = R.RegTensor("float")
    mask = R.CreateMask("float")
    R.Arange(dstReg, scalarValue)
    R.StoreAlign(dstAddr, dstReg, mask)


def fill_kernel(y, totalLength, which):
    """duplicate.asc / arange.asc: Kernel<float>::Process (`which` picks the example)."""
    aj.InitSocState()
    yGm = aj.GlobalTensor("float")
    yGm.SetGlobalBuffer(y)
    ubAllocator = aj.LocalMemAllocator()
    yLocal = ubAllocator.Alloc("float", totalLength)   # the originals' Alloc<T, 256>: the tile is the data
    oneRepeatSize = aj.GetVecLen() // aj.sizeof("float")
    repeatTimes = aj.DivCeil(totalLength, oneRepeatSize)
    if which == "duplicate":
        R.asc_vf_call(DuplicateScalarVF, yLocal, FILL_VALUE, repeatTimes, oneRepeatSize)
    else:
        startValue = np.float32(0)
        for i in range(repeatTimes):
            R.asc_vf_call(ArangeVF, yLocal[i * oneRepeatSize], startValue, oneRepeatSize)
            startValue += np.float32(oneRepeatSize)   # the scalar unit's float add (exact below 2**24)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(yGm, yLocal, totalLength)
    aj.PipeBarrier(aj.PIPE_ALL)


# ---- reduce

@R.simd_vf
def ReduceSumVF(dstAddr, srcAddr, totalCount, repeatTimes, oneRepeatSize):
    mask = R.CreateMask("float", R.MaskPattern.ALL)
    srcReg, dstReg, accReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    R.Duplicate(accReg, np.float32(0), mask)
    for i in range(repeatTimes):
        R.LoadAlign(srcReg, srcAddr, i * oneRepeatSize)
        R.Reduce(dstReg, srcReg, mask, R.ReduceType.SUM)
        R.Add(accReg, accReg, dstReg, mask)
    R.StoreAlign(dstAddr, accReg, mask)


def reduce(x, y, totalLength):
    aj.InitSocState()
    xGm, yGm = aj.GlobalTensor("float"), aj.GlobalTensor("float")
    xGm.SetGlobalBuffer(x)
    yGm.SetGlobalBuffer(y)
    ubAllocator = aj.LocalMemAllocator()
    xLocal = ubAllocator.Alloc("float", totalLength)
    yLocal = ubAllocator.Alloc("float", max(totalLength, LANES))   # one whole register is stored
    aj.DataCopy(xLocal, xGm, totalLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    oneRepeatSize = aj.GetVecLen() // aj.sizeof("float")
    repeatTimes = aj.DivCeil(totalLength, oneRepeatSize)
    R.asc_vf_call(ReduceSumVF, yLocal, xLocal, totalLength, repeatTimes, oneRepeatSize)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    outAlignSize = 8
    aj.DataCopy(yGm, yLocal, outAlignSize)
    aj.PipeBarrier(aj.PIPE_ALL)


# ---- inputs, runs, models

def _uniform(lo, hi, names):
    def make_inputs(size, seed):
        """The examples' uniform draws; seed 0 keeps them in the golden's range, a later seed puts the specials
        (+-0, +-inf, NaN, a subnormal, the largest float) in the first lanes."""
        rng = np.random.default_rng(seed)
        out = {n: rng.uniform(lo, hi, size).astype(np.float32) for n in names}
        if seed:
            for n in names:
                out[n][:7] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, np.finfo(np.float32).max]
        return out
    return make_inputs


def _ones(size, seed):
    """gen_data.py: ones; a later seed draws standard normals (x + x is exact either way, 2x)."""
    x = np.ones(size, np.float32) if seed == 0 else np.random.default_rng(seed).standard_normal(size).astype(np.float32)
    return {"x": x}


def _no_input(size, seed):
    return {"n": np.zeros(size, np.float32)}   # only the size: the examples read no input


def _canon(z):
    z[np.isnan(z)] = np.float32(np.nan)        # SPEC-2 D35: every NaN written is the canonical one
    return z


def run_add(device, inputs):
    x = inputs["x"]
    y = np.zeros_like(x)
    aj.launch(vector_add, 4, device, x, y, x.size // 4)
    return {"y": y}


def run_mul(device, inputs):
    x, y = inputs["x"], inputs["y"]
    z = np.zeros_like(x)
    aj.launch(mul, 4, device, x, y, z, x.size // 4)
    return {"z": z}


def _run_fill(which):
    def run(device, inputs):
        y = np.zeros(inputs["n"].size, np.float32)
        aj.launch(fill_kernel, 1, device, y, y.size, which)
        return {"y": y}
    return run


def run_reduce(device, inputs):
    x = inputs["x"]
    y = np.zeros(8, np.float32)
    aj.launch(reduce, 1, device, x, y, x.size)
    return {"y": y}


def expected_add(device, inputs):
    with np.errstate(over="ignore", invalid="ignore"):
        return {"y": _canon(inputs["x"] + inputs["x"])}


def expected_mul(device, inputs):
    """z = y * x lane by lane: float32 products (numpy's are IEEE's, the 950's Mul is BIT-EXACT)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return {"z": _canon(inputs["y"] * inputs["x"])}


def expected_duplicate(device, inputs):
    return {"y": np.full(inputs["n"].size, FILL_VALUE, np.float32)}


def expected_arange(device, inputs):
    """Per 64-lane call: lane j = start + j rounded once (ref.arange), start = 64 * call."""
    n = inputs["n"].size
    lanes = [v for k in range(n // LANES) for v in ref.arange("float", float(k * LANES), LANES)]
    return {"y": np.array(lanes, np.float32)}


def expected_reduce(device, inputs):
    """acc lane 0 = ((0 + tree(repeat 0)) + tree(repeat 1)) + ... in float32; Reduce zeroes lanes 1..63 (SPEC-2
    11.4, ZEROING), so the other 7 floats copied out are 0 + 0."""
    x = inputs["x"]
    acc = np.float32(0)
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(x.size // LANES):
            s, _ = ref.reduce("sum", "float", "float", [float(v) for v in x[k * LANES:(k + 1) * LANES]],
                              [True] * LANES)
            acc = np.float32(acc + np.float32(s))
    y = np.zeros(8, np.float32)
    y[0] = acc
    return {"y": _canon(y)}


def _spec(name, description, make_inputs, run, expected, default, unit, limit, path):
    return KernelSpec(name, description, make_inputs, run, expected, default_size=default, devices=("ascend950",),
                      size_rule=f"a multiple of {unit} floats, at most {limit}",
                      size_ok=lambda n: 0 < n <= limit and n % unit == 0, source=SOURCE + path)


KERNELS = [
    _spec("add_reg_intro", "devkit introductory Reg add (4 blocks: a VF adding a tile to itself in place under "
          "UpdateMask)", _ones, run_add, expected_add, 256 * 256, 256, 4 * 16384,
          "00_introduction/04_reg_compute/add/add.asc"),
    _spec("mul_reg", "devkit Reg mul example (4 blocks of 256 floats: Mul under CreateMask ALL in a VF)",
          _uniform(1, 2, ("x", "y")), run_mul, expected_mul, 1024, 256, 4 * 8192,
          "03_basic_api/02_reg_vector_compute/mul/mul.asc"),
    _spec("duplicate_reg", "devkit Reg duplicate example (Duplicate of (float)3.14 into 256 floats)", _no_input,
          _run_fill("duplicate"), expected_duplicate, 256, 64, 8192,
          "03_basic_api/02_reg_vector_compute/duplicate/duplicate.asc"),
    _spec("arange_reg", "devkit Reg arange example (one Arange VF call a 64-float repeat, the start advanced on the "
          "scalar unit)", _no_input, _run_fill("arange"), expected_arange, 256, 64, 8192,
          "03_basic_api/02_reg_vector_compute/arange/arange.asc"),
    _spec("reduce_sum_reg", "devkit Reg reduce example (Reduce SUM per repeat, Add into a Duplicated-0 accumulator, "
          "8 floats out)", _uniform(1, 2, ("x",)), run_reduce, expected_reduce, 256, 64, 8192,
          "03_basic_api/02_reg_vector_compute/reduce/reduce.asc"),
]
