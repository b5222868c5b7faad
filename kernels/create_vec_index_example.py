"""The devkit's create_vec_index example: a VECOUT queue tile of int16 zeroed by Duplicate, filled with 0, 1, ...,
count - 1 by CreateVecIndex, EnQue / DeQue'd and copied to GM, by each of 8 blocks into the same GM output.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
01_memory_vector_compute/create_vec_index/create_vec_index.asc (`testCreateVecIndex<int16_t, 128>`, launched on
numBlocks = 8) and scripts/gen_data.py (golden np.arange(128) as int16). The devkit page:
SIMD-API/基础API/Memory矢量计算/数据填充/CreateVecIndex.md.

The kernel: TPipe, a depth-1 VECOUT TQue of count * sizeof(T) bytes; AllocTensor; Duplicate(dst, 0, count);
PipeBarrier<PIPE_V>; CreateVecIndex(dst, 0, count); EnQue; DeQue; DataCopy of count elements to GM; FreeTensor;
PipeBarrier<PIPE_ALL>.

Deviations (two hazards of the original that the sanitizer reports; each behind a flag, `run(..., original=True)`
sets both; tests/test_port40pc_kernels.py pins the reports):
- On the A2/A3 CreateVecIndex writes its first DataBlock with the scalar unit (`SetValue`, then an S_V flag and
  vector Adds: the devkit's impl/basic_api/dav_c220/kernel_operator_vec_createvecindex_impl.h, docs/decisions.md
  "CreateVecIndex"), with no V_S wait before those scalar writes. The original's Duplicate (PIPE_V) then
  PipeBarrier<PIPE_V> leaves them unordered: a WAW race on the tile's first 32 bytes, the zeros of a late
  Duplicate could land over the indices (on the device the compiler's automatic synchronisation, --cce-auto-sync,
  on by default, would likely insert this flag around the library's SetValue; the emulator follows SPEC-2 10.4
  and does not model it, SPEC-2 14). The port adds a V_S SetFlag / WaitFlag after the PipeBarrier<PIPE_V> (on
  every device: on the 950 CreateVecIndex is a vector instruction and the pair only waits);
  `ORIGINAL_SYNC = True` runs the barrier alone.
- Every one of the 8 blocks copies its tile to the same GM bytes (the kernel never uses GetBlockIdx()), a
  write-write race between blocks (the bytes are the same, so the result is too). The port lets block 0 alone copy
  out (the other blocks still build the tile); `ORIGINAL_ALL_BLOCKS_WRITE = True` runs the eight copies.

Sizes: count (the example's 128); any multiple of 16 int16 (DataCopy's 32-byte unit) up to 65536 (CreateVecIndex of
int16 wraps past 32767: the expectation wraps too, as the page's modular integer lanes do). Devices: the example's
README lists the 950, A3 and A2. Fidelity: BIT-EXACT (integer CreateVecIndex, Duplicate, DataCopy).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

NUM_BLOCKS = 8
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
ORIGINAL_ALL_BLOCKS_WRITE = False
ORIGINAL_SYNC = False
SOURCE = ("mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/"
          "create_vec_index/create_vec_index.asc")


def testCreateVecIndex(dstGm, count, allBlocksWrite=False, originalSync=False):
    """testCreateVecIndex<int16_t, count>."""
    aj.InitSocState()
    pipe = aj.TPipe()
    dstGlobal = aj.GlobalTensor()
    queOut = aj.TQue(aj.TPosition.VECOUT, 1)
    dstGlobal.SetGlobalBuffer(dstGm)
    pipe.InitBuffer(queOut, 1, count * 2)                          # count * sizeof(int16_t)

    dstLocal = queOut.AllocTensor("int16")
    aj.Duplicate(dstLocal, np.int16(0), count)
    aj.PipeBarrier(aj.PIPE_V)
    if not originalSync:                                            # deviation: the A2/A3 SetValue writes wait
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_S)
    aj.CreateVecIndex(dstLocal, np.int16(0), count)
    queOut.EnQue(dstLocal)

    dstLocalOut = queOut.DeQue("int16")
    if allBlocksWrite or aj.GetBlockIdx() == 0:                     # deviation: block 0 alone writes the output
        aj.DataCopy(dstGlobal, dstLocalOut, count)
    queOut.FreeTensor(dstLocalOut)
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    """No input: the output's length (seed unused)."""
    return {"count": np.array([size], np.int64)}


def run(device, inputs, original=None):
    all_write = ORIGINAL_ALL_BLOCKS_WRITE if original is None else original
    sync = ORIGINAL_SYNC if original is None else original
    count = int(inputs["count"][0])
    y = np.full(count, -1, np.int16)
    aj.launch(testCreateVecIndex, NUM_BLOCKS, device, y, count, all_write, sync)
    return {"y": y}


def expected(device, inputs):
    """gen_data.py's golden: np.arange(count) as int16 (wrapping past 32767)."""
    return {"y": (np.arange(int(inputs["count"][0])) & 0xFFFF).astype(np.uint16).view(np.int16)}


KERNEL = KernelSpec(
    "create_vec_index", "devkit create_vec_index example: Duplicate 0, CreateVecIndex 0..count-1 of int16 in a VECOUT "
    "TQue, EnQue/DeQue, DataCopy out (8 blocks; a V_S flag and block 0 alone writing: the original's races behind "
    "flags)",
    make_inputs, run, expected, default_size=128, devices=DEVICES,
    size_rule="a multiple of 16 int16, at most 65536", size_ok=lambda n: 0 < n <= 65536 and n % 16 == 0,
    source=SOURCE)
