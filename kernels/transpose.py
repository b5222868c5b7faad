"""The devkit's transpose example, scenarios 1 and 2: half data transposed by the basic API's Transpose, as a
16 x 16 block (the plain form) and as [N, C, H, W] -> [N, H, W, C] (the enhanced form, with a shared tmp buffer and
TransposeParamsExt of type TRANSPOSE_NCHW2NHWC).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
01_memory_vector_compute/transpose/transpose.asc (`transpose_custom<INPUT_SIZE, N, C, H, W>`, SCENARIO_NUM 1 and 2,
one block; the host's `<256, 1, 1, 16, 16>` and `<144, 3, 3, 2, 8>`) and scripts/gen_data.py (half drawn uniformly
over the half range; goldens input.T and np.transpose(input, (0, 2, 3, 1))). The devkit page:
SIMD-API/基础API/Memory矢量计算/数据排布转换/Transpose.md; the implementation impl/basic_api/
kernel_operator_vec_transpose_intf_impl.h and dav_c220 / dav_3510 kernel_operator_vec_transpose_impl.h
(Transpose4DImpl: each pixel broadcast over a row by TransDataTo5HD, rows gathered by one-block DataCopys into a
16 x 16 fractal, transposed again, copied out; tests/test_port40pd_kernels.py replays it).

The kernel: a TPipe with VECIN and VECOUT queues of INPUT_SIZE halves (and, in scenario 2, a VECIN queue of 1280
halves = 2560 bytes for the tmp buffer: the page's (cSize + 2) * 16 * 16 * 2 bytes for C = 3); DataCopy GM -> UB,
EnQue / DeQue; scenario 1 `Transpose<half>(dst, src)`, scenario 2 `Transpose(dst, src, stackBuffer, {N, C, H, W,
TRANSPOSE_NCHW2NHWC})` with the tmp tensor allocated from its queue and freed after; EnQue / DeQue; DataCopy UB ->
GM; PipeBarrier<PIPE_ALL>.

Sizes: scenario 1 takes the element count, a multiple of 256: the host launches the example's one-block kernel once
per 16 x 16 matrix (the example: 256, one launch). Scenario 2 takes N * 48 halves (C = 3, H = 2, W = 8 as in the
example; the example's 144 is N = 3), N in 1..1000 (two tiles of N * 96 bytes and the 2560-byte tmp fit the A2's
UB).

Deviations: none in the two scenarios ported. Not ported: scenario 3 (TransDataTo5HD, NCHW -> NC1HWC0), which the
emulator does not offer (docs/decisions.md "Transpose" / SPEC-2 14; `aj.TransDataTo5HD` does not exist).

Devices: the example's README lists the 950, A3 and A2 (dav-3510, dav-2201); the page also offers the 16 x 16 form
on the 310B, 310P and 910 and the format conversion on the 310P (no tmp buffer there).
Fidelity: BIT-EXACT (Transpose moves whole elements; checked bit for bit, NaN payloads included).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
BLOCK = 256                                  # one 16 x 16 matrix of halves
C2, H2, W2 = 3, 2, 8                         # scenario 2's C, H, W
IMAGE = C2 * H2 * W2
TMP_HALVES = 1280                            # scenario 2's tmp buffer: 1280 halves = (3 + 2) * 16 * 16 * 2 bytes
MAX_N = 1000


def transpose_custom(x, z, INPUT_SIZE, N, C, H, W, SCENARIO_NUM):
    """transpose_custom<INPUT_SIZE, N, C, H, W> with SCENARIO_NUM (a compile-time macro in C++, an argument here)."""
    aj.InitSocState()
    pipe = aj.TPipe()
    inQueueSrc = aj.TQue(aj.QuePosition.VECIN, 1)
    outQueueDst = aj.TQue(aj.QuePosition.VECOUT, 1)
    tmpQueue = aj.TQue(aj.QuePosition.VECIN, 1)
    srcGlobal, dstGlobal = aj.GlobalTensor("half"), aj.GlobalTensor("half")
    srcGlobal.SetGlobalBuffer(x)
    dstGlobal.SetGlobalBuffer(z)
    pipe.InitBuffer(inQueueSrc, 1, INPUT_SIZE * 2)
    pipe.InitBuffer(outQueueDst, 1, INPUT_SIZE * 2)
    if SCENARIO_NUM == 2:
        tmpBufferSize = TMP_HALVES                   # the page's NCHW2NHWC minimum for C = 3, in halves
        pipe.InitBuffer(tmpQueue, 1, tmpBufferSize * 2)

    srcLocalIn = inQueueSrc.AllocTensor("half")
    aj.DataCopy(srcLocalIn, srcGlobal, INPUT_SIZE)
    inQueueSrc.EnQue(srcLocalIn)

    srcLocal = inQueueSrc.DeQue("half")
    dstLocal = outQueueDst.AllocTensor("half")
    if SCENARIO_NUM == 1:
        aj.Transpose(dstLocal, srcLocal)             # the plain 16 x 16 form
    elif SCENARIO_NUM == 2:
        stackBuffer = tmpQueue.AllocTensor("uint8")
        transposeParams = aj.TransposeParamsExt()
        transposeParams.nSize = N
        transposeParams.cSize = C
        transposeParams.hSize = H
        transposeParams.wSize = W
        transposeParams.transposeType = aj.TransposeType.TRANSPOSE_NCHW2NHWC
        aj.Transpose(dstLocal, srcLocal, stackBuffer, transposeParams)
        tmpQueue.FreeTensor(stackBuffer)
    outQueueDst.EnQue(dstLocal)
    inQueueSrc.FreeTensor(srcLocal)

    dstLocalOut = outQueueDst.DeQue("half")
    aj.DataCopy(dstGlobal, dstLocalOut, INPUT_SIZE)
    outQueueDst.FreeTensor(dstLocalOut)
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    """gen_data.py: half drawn uniformly over [-65504, 65504]; a few NaN / inf / -0 patterns mixed in so the check
    sees every bit moved."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-65504.0, 65504.0, size).astype(np.float16)
    special = np.array([0x7E01, 0xFC00, 0x7C00, 0x8000, 0x0001, 0xFFFF], np.uint16).view(np.float16)
    x[rng.integers(0, size, 8)] = special[rng.integers(0, special.size, 8)]
    return {"x": x}


def run_16x16(device, inputs):
    """The host: the one-block kernel launched for each 16 x 16 matrix (the example has one)."""
    x = inputs["x"]
    z = np.zeros_like(x)
    for k in range(x.size // BLOCK):
        part = np.zeros(BLOCK, np.float16)
        aj.launch(transpose_custom, 1, device, x[k * BLOCK:(k + 1) * BLOCK].copy(), part, BLOCK, 1, 1, 16, 16, 1)
        z[k * BLOCK:(k + 1) * BLOCK] = part
    return {"z": z}


def run_nchw2nhwc(device, inputs):
    x = inputs["x"]
    z = np.zeros_like(x)
    aj.launch(transpose_custom, 1, device, x, z, x.size, x.size // IMAGE, C2, H2, W2, 2)
    return {"z": z}


def expected_16x16(device, inputs):
    """gen_data.py scenario 1: input.T, matrix by matrix."""
    return {"z": inputs["x"].reshape(-1, 16, 16).transpose(0, 2, 1).reshape(-1)}


def expected_nchw2nhwc(device, inputs):
    """gen_data.py scenario 2: np.transpose(input, (0, 2, 3, 1))."""
    return {"z": inputs["x"].reshape(-1, C2, H2, W2).transpose(0, 2, 3, 1).reshape(-1)}


_SOURCE = ("mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/"
           "transpose/transpose.asc")
KERNELS = [
    KernelSpec("transpose", "devkit transpose example, scenario 1: Transpose<half>(dst, src) of a 16 x 16 block "
               "(one launch a matrix)", make_inputs, run_16x16, expected_16x16, default_size=BLOCK, devices=DEVICES,
               size_rule="a multiple of 256 halves (16 x 16 matrices), at most 64 of them",
               size_ok=lambda n: 0 < n <= 64 * BLOCK and n % BLOCK == 0, source=_SOURCE),
    KernelSpec("transpose_nchw2nhwc", "devkit transpose example, scenario 2: [N, 3, 2, 8] -> [N, 2, 8, 3] half by "
               "the enhanced Transpose (TRANSPOSE_NCHW2NHWC, a 2560-byte tmp buffer)", make_inputs, run_nchw2nhwc,
               expected_nchw2nhwc, default_size=3 * IMAGE, devices=DEVICES,
               size_rule=f"N * {IMAGE} halves, N in 1..{MAX_N}",
               size_ok=lambda n: 0 < n <= MAX_N * IMAGE and n % IMAGE == 0, source=_SOURCE),
]
