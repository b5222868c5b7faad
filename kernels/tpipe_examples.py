"""The devkit's two TPipe/TQue examples, ported line by line:
- `get_tpipe_ptr`: the kernel makes a TPipe and a helper reaches it only through `GetTPipePtr()` to InitBuffer three
  depth-2 queues, then adds two float vectors over 8 blocks, each block's 2048 floats in 16 tiles of 128 (tileNum is
  the block count, 8, as the original's template instantiation passes it), AllocTensor / EnQue / DeQue / FreeTensor
  around each step;
- `tpipe_reuse`: one kernel runs the same Muls-by-3 process twice, each with its own TPipe, the first Destroy()ed
  before the second is made (the original's comment: a new TPipe can only initialise after the previous one is
  destroyed).

Source: mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
07_tpipe_tque/get_tpipe_ptr/get_tpipe_ptr.asc (`Process<totalLength, tileNum>`, `get_tpipe_ptr_custom`, main's
8 x 2048 floats of 1.2 + 2.3) and 07_tpipe_tque/tpipe_reuse/tpipe_reuse.asc (`Process<float, 128>`,
`tpipe_reuse_custom`).

Devices: Add, Muls, DataCopy and the queues are offered everywhere: all six devices.

Fidelity: BIT-EXACT (Add, Muls are BIT-EXACT, SPEC-2 0.3). The expectations are numpy's float32 add and multiply
(IEEE, round to nearest even; float never saturates, SPEC 5.2), on random data beside the originals' constants.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
NUM_BLOCKS = 8
REUSE_LENGTH = 128


def get_tpipe_ptr_process(x, y, z, totalLength, tileNum):
    blockNum = aj.GetBlockNum()
    blockLength = totalLength // blockNum
    tileLength = blockLength // tileNum // BUFFER_NUM
    xGm, yGm, zGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
    xGm.SetGlobalBuffer(x[blockLength * aj.GetBlockIdx():], blockLength)
    yGm.SetGlobalBuffer(y[blockLength * aj.GetBlockIdx():], blockLength)
    zGm.SetGlobalBuffer(z[blockLength * aj.GetBlockIdx():], blockLength)
    inQueueX, inQueueY = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM), aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
    outQueueZ = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
    aj.GetTPipePtr().InitBuffer(inQueueX, BUFFER_NUM, tileLength * 4)     # the pipe, through its pointer only
    aj.GetTPipePtr().InitBuffer(inQueueY, BUFFER_NUM, tileLength * 4)
    aj.GetTPipePtr().InitBuffer(outQueueZ, BUFFER_NUM, tileLength * 4)
    for i in range(tileNum * BUFFER_NUM):
        xLocal, yLocal = inQueueX.AllocTensor("float"), inQueueY.AllocTensor("float")
        aj.DataCopy(xLocal, xGm[i * tileLength], tileLength)
        aj.DataCopy(yLocal, yGm[i * tileLength], tileLength)
        inQueueX.EnQue(xLocal)
        inQueueY.EnQue(yLocal)
        xLocal, yLocal = inQueueX.DeQue("float"), inQueueY.DeQue("float")
        zLocal = outQueueZ.AllocTensor("float")
        aj.Add(zLocal, xLocal, yLocal, tileLength)
        outQueueZ.EnQue(zLocal)
        inQueueX.FreeTensor(xLocal)
        inQueueY.FreeTensor(yLocal)
        zLocal = outQueueZ.DeQue("float")
        aj.DataCopy(zGm[i * tileLength], zLocal, tileLength)
        outQueueZ.FreeTensor(zLocal)


def get_tpipe_ptr_custom(x, y, z, totalLength, tileNum):
    aj.TPipe()            # the kernel's `TPipe pipe;`: the helper reaches it by GetTPipePtr() only
    get_tpipe_ptr_process(x, y, z, totalLength, tileNum)


def tpipe_reuse_process(src_gm, dst_gm, pipe, totalLength):
    src_global, dst_global = aj.GlobalTensor(), aj.GlobalTensor()
    src_global.SetGlobalBuffer(src_gm, totalLength)
    dst_global.SetGlobalBuffer(dst_gm, totalLength)
    inQueueX, outQueue = aj.TQue(aj.TPosition.VECIN, 1), aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(inQueueX, 1, totalLength * 4)
    pipe.InitBuffer(outQueue, 1, totalLength * 4)
    srcLocal = inQueueX.AllocTensor("float")
    aj.DataCopy(srcLocal, src_global, totalLength)
    inQueueX.EnQue(srcLocal)
    srcLocal = inQueueX.DeQue("float")
    dstLocal = outQueue.AllocTensor("float")
    scalar_value = np.float32(3)
    aj.Muls(dstLocal, srcLocal, scalar_value, totalLength)
    outQueue.EnQue(dstLocal)
    inQueueX.FreeTensor(srcLocal)
    dstLocal = outQueue.DeQue("float")
    aj.DataCopy(dst_global, dstLocal, totalLength)
    outQueue.FreeTensor(dstLocal)


def tpipe_reuse_custom(x, z):
    pipe1 = aj.TPipe()
    tpipe_reuse_process(x, z, pipe1, REUSE_LENGTH)
    pipe1.Destroy()       # the next TPipe may only initialise after the previous one is destroyed
    pipe2 = aj.TPipe()
    tpipe_reuse_process(x, z, pipe2, REUSE_LENGTH)
    pipe2.Destroy()


def _add_inputs(size, seed):
    rng = np.random.default_rng(seed)
    x, y = np.full(size, 1.2, np.float32), np.full(size, 2.3, np.float32)   # main's constants
    x[size // 2:] = rng.standard_normal(size - size // 2).astype(np.float32)
    y[size // 2:] = rng.standard_normal(size - size // 2).astype(np.float32)
    return {"x": x, "y": y}


def _add_run(device, inputs):
    z = np.zeros_like(inputs["x"])
    aj.launch(get_tpipe_ptr_custom, NUM_BLOCKS, device, inputs["x"], inputs["y"], z, inputs["x"].size, NUM_BLOCKS)
    return {"z": z}


def _reuse_run(device, inputs):
    z = np.zeros_like(inputs["x"])
    aj.launch(tpipe_reuse_custom, 1, device, inputs["x"], z)
    return {"z": z}


_ORIGINAL = "mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/07_tpipe_tque/"
_ADD_MULTIPLE = NUM_BLOCKS * NUM_BLOCKS * BUFFER_NUM * 8   # whole 32-byte tiles on every block
KERNELS = [
    KernelSpec("get_tpipe_ptr", "devkit get_tpipe_ptr: queues initialised through GetTPipePtr(), float Add over 8 "
               "blocks of 16 double-buffered tiles", _add_inputs, _add_run,
               lambda device, inputs: {"z": inputs["x"] + inputs["y"]}, default_size=8 * 2048,
               size_rule=f"a multiple of {_ADD_MULTIPLE}", size_ok=lambda n: n > 0 and n % _ADD_MULTIPLE == 0,
               source=_ORIGINAL + "get_tpipe_ptr/get_tpipe_ptr.asc"),
    KernelSpec("tpipe_reuse", "devkit tpipe_reuse: two TPipes one after the other (Destroy between), Muls by 3",
               lambda size, seed: {"x": np.random.default_rng(seed).standard_normal(REUSE_LENGTH).astype(np.float32)},
               _reuse_run, lambda device, inputs: {"z": inputs["x"] * np.float32(3)}, default_size=REUSE_LENGTH,
               size_rule=f"{REUSE_LENGTH} (the example's data)", size_ok=lambda n: n == REUSE_LENGTH,
               source=_ORIGINAL + "tpipe_reuse/tpipe_reuse.asc"),
]
