"""The devkit's tmp_buffer example: z = x + y of bfloat16 computed in float through two TBuf<VECCALC> temporaries.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
04_memory_management/tmp_buffer/tmp_buffer.asc (`tmp_buffer_custom<2048>`, one block) and scripts/gen_data.py (x, y
uniform in [-50, 50) as bfloat16; golden (x + y).astype(bfloat16) with ml_dtypes).

One block: a TPipe with TQue<VECIN, 1> x2 and TQue<VECOUT, 1> of totalLength bfloat16 each and two TBuf<VECCALC>
of totalLength floats; DataCopy x and y in, EnQue / DeQue; tmp0 = Cast(x, CAST_NONE), tmp1 = Cast(y, CAST_NONE),
Add(tmp0, tmp0, tmp1), z = Cast(tmp0, CAST_RINT); EnQue<bfloat16_t> / DeQue; DataCopy out; FreeTensor. The
vector instructions follow each other on one pipe with no barrier, as in the original.

Sizes: the example's 2048 by default; any multiple of 16 (whole 32-byte DataBlocks of bfloat16) whose
3 * 2 + 2 * 4 bytes an element fit the device's UB (at most 12288). Devices: the README's 950, A3 and A2 (bfloat16
Cast, SPEC-2 7).
Fidelity: BIT-EXACT: bfloat16 -> float is exact, the float Add rounds once, CAST_RINT rounds once to bfloat16 (RNE):
ml_dtypes' bfloat16 x + y (float32 sum rounded to nearest even) is the same value, so gen_data.py's golden is the
expectation bit for bit.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BF16 = ml_dtypes.bfloat16
SOURCE = ("mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/04_memory_management/tmp_buffer/"
          "tmp_buffer.asc")


def tmp_buffer_custom(x, y, z, totalLength):
    pipe = aj.TPipe()
    xGm, yGm, zGm = aj.GlobalTensor("bfloat16"), aj.GlobalTensor("bfloat16"), aj.GlobalTensor("bfloat16")
    xGm.SetGlobalBuffer(x, totalLength)
    yGm.SetGlobalBuffer(y, totalLength)
    zGm.SetGlobalBuffer(z, totalLength)
    inQueueX = aj.TQue(aj.TPosition.VECIN, 1)
    inQueueY = aj.TQue(aj.TPosition.VECIN, 1)
    outQueueZ = aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(inQueueX, 1, totalLength * 2)
    pipe.InitBuffer(inQueueY, 1, totalLength * 2)
    pipe.InitBuffer(outQueueZ, 1, totalLength * 2)
    tmpBuf0 = aj.TBuf(aj.TPosition.VECCALC)
    tmpBuf1 = aj.TBuf(aj.TPosition.VECCALC)
    pipe.InitBuffer(tmpBuf0, totalLength * 4)
    pipe.InitBuffer(tmpBuf1, totalLength * 4)
    xLocal = inQueueX.AllocTensor("bfloat16")
    yLocal = inQueueY.AllocTensor("bfloat16")
    aj.DataCopy(xLocal, xGm, totalLength)
    aj.DataCopy(yLocal, yGm, totalLength)
    inQueueX.EnQue(xLocal)
    inQueueY.EnQue(yLocal)
    xLocal = inQueueX.DeQue("bfloat16")
    yLocal = inQueueY.DeQue("bfloat16")
    zLocal = outQueueZ.AllocTensor("bfloat16")
    tmpTensor0 = tmpBuf0.Get("float")
    tmpTensor1 = tmpBuf1.Get("float")
    aj.Cast(tmpTensor0, xLocal, aj.RoundMode.CAST_NONE, totalLength)
    aj.Cast(tmpTensor1, yLocal, aj.RoundMode.CAST_NONE, totalLength)
    aj.Add(tmpTensor0, tmpTensor0, tmpTensor1, totalLength)
    aj.Cast(zLocal, tmpTensor0, aj.RoundMode.CAST_RINT, totalLength)
    outQueueZ.EnQue("bfloat16", zLocal)
    inQueueX.FreeTensor(xLocal)
    inQueueY.FreeTensor(yLocal)
    zLocal = outQueueZ.DeQue("bfloat16")
    aj.DataCopy(zGm, zLocal, totalLength)
    outQueueZ.FreeTensor(zLocal)


def make_inputs(size, seed):
    """gen_data.py's draws (uniform in [-50, 50) as bfloat16); a later seed adds the specials (+-0, +-inf, NaN, the
    largest bfloat16 twice: its float sum rounds to inf)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-50, 50, size).astype(BF16)
    y = rng.uniform(-50, 50, size).astype(BF16)
    if seed:
        big = ml_dtypes.finfo(BF16).max
        x[:6] = np.array([0.0, -0.0, np.inf, np.nan, big, 1.0], np.float32).astype(BF16)
        y[:6] = np.array([-0.0, -0.0, -1.0, 1.0, big, -1.0], np.float32).astype(BF16)
    return {"x": x, "y": y}


def run(device, inputs):
    x, y = inputs["x"], inputs["y"]
    z = np.zeros_like(x)
    aj.launch(tmp_buffer_custom, 1, device, x, y, z, x.size)
    return {"z": z}


def expected(device, inputs):
    """gen_data.py's golden: (x + y).astype(bfloat16) (ml_dtypes adds in float32 and rounds to nearest even), NaN
    canonical (SPEC-2 D35)."""
    with np.errstate(over="ignore", invalid="ignore"):
        z = (inputs["x"].astype(np.float32) + inputs["y"].astype(np.float32)).astype(BF16)
    z[np.isnan(z.astype(np.float32))] = BF16(np.nan)
    return {"z": z}


KERNEL = KernelSpec("tmp_buffer", "devkit tmp_buffer example (bfloat16 x + y in float through two TBuf<VECCALC> "
                    "temporaries: Cast CAST_NONE, Add, Cast CAST_RINT)", make_inputs, run, expected,
                    default_size=2048, devices=("ascend950", "atlas-a3", "atlas-a2"),
                    size_rule="a multiple of 16 bfloat16, at most 12288",
                    size_ok=lambda n: 0 < n <= 12288 and n % 16 == 0, source=SOURCE)
