"""SquareDiff from the CANN learning hub's fused-operator course: z = x * x - y * y, element by element, over float
and half (computed in the input type).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/cann-learning-hub @ a3989658fa1dce436d4ab402042e0682a2e9bdc7,
tutorials/ascendc_operator_development/05_fused_operator_development/answer/05.03_answer:
- op_kernel/square_diff.cpp (`KernelSquareDiff<TYPE_X, TYPE_Y, TYPE_Z>`: the first tailBlockNum cores take one
  32-byte block more (big cores); the GM offset is bigCoreDataNum * blockIdx, less (big - small) per small core
  past them; a TPipe with depth-2 VECIN queues for x and y and a depth-2 VECOUT queue for z, two buffers of
  tileDataNum elements each; per tile CopyIn (DataCopy of processDataNum elements), Compute (Mul x * x in place,
  Mul y * y in place, Sub into the output tile), CopyOut (DataCopy); the last tile takes tailDataNum elements);
- op_kernel/square_diff_tiling.h (`SquareDiffTilingData`, eight uint32 fields) and op_host/square_diff.cpp
  (`TilingFunc`: the input's bytes rounded up to 32, its blocks spread over min(cores, blocks) cores,
  everyCoreInputBlockNum a core and blocks % cores cores one block more; tileBlockNum = UB / 32 / 2 buffers / 3
  tensors, tileDataNum its elements; per core ceil(blocks / tileBlockNum) tiles, the last the remainder or a full
  tile).

Deviations: the core count is at most the launch's 8 (GetCoreNum in the original). The tiling splits the input's
bytes rounded up to whole 32-byte blocks and every DataCopy moves whole blocks, so when n elements are not a whole
number of blocks the last core reads past the end of x and y and writes past the end of z (on the device it touches
whatever follows the tensors; the emulator refuses the access, `pad_gm=False` shows it in
tests/test_port47l_kernels.py): the port's host pads the three GM arrays to whole 32-byte blocks, as other ports
do, and returns the first n elements.

Devices: the operator is configured for ascend910b (A2); the port runs on the A3 and A2.

Fidelity: BIT-EXACT (Mul, Sub, DataCopy; SPEC-2 0.3): numpy's float32 / float16 products and differences, each
rounded once to the type (numpy's float16 arithmetic rounds the float32 result, which is exact for products of
halves and innocuous for differences: 24 bits >= 2 * 11 + 2), are the device's.
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNum in the original)
BUFFER_NUM = 2
QUEUE_DEPTH = 2
BLOCK_SIZE = 32
UB_DATA_NUMBER = 3                 # x, y and z tiles
TYPE_SIZE = {"float": 4, "half": 2}
_NP = {"float": np.float32, "half": np.float16}
DEVICES = ("atlas-a3", "atlas-a2")


class SquareDiffTilingData(ctypes.Structure):
    _fields_ = [("smallCoreDataNum", ctypes.c_uint32), ("bigCoreDataNum", ctypes.c_uint32),
                ("finalBigTileNum", ctypes.c_uint32), ("finalSmallTileNum", ctypes.c_uint32),
                ("tileDataNum", ctypes.c_uint32), ("smallTailDataNum", ctypes.c_uint32),
                ("bigTailDataNum", ctypes.c_uint32), ("tailBlockNum", ctypes.c_uint32)]


def tiling(device, total, dtype):
    """TilingFunc: (block dim, the tiling bytes)."""
    type_length = TYPE_SIZE[dtype]
    input_length_align32 = -(-total * type_length // BLOCK_SIZE) * BLOCK_SIZE
    core_num = max(min(CORE_NUM, input_length_align32 // BLOCK_SIZE), 1)
    every_core_input_block_num = input_length_align32 // BLOCK_SIZE // core_num
    tail_block_num = (input_length_align32 // BLOCK_SIZE) % core_num
    ub_size = aj.get_device(device).ub_bytes
    tile_block_num = ub_size // BLOCK_SIZE // BUFFER_NUM // UB_DATA_NUMBER
    tile_data_num = tile_block_num * BLOCK_SIZE // type_length

    small_core_data_num = every_core_input_block_num * BLOCK_SIZE // type_length
    small_tile_num = every_core_input_block_num // tile_block_num
    final_small_tile_num = small_tile_num + (1 if every_core_input_block_num % tile_block_num else 0)
    small_tail_data_num = small_core_data_num - tile_data_num * small_tile_num
    small_tail_data_num = small_tail_data_num or tile_data_num

    every_core_input_block_num += 1                 # a big core: one 32-byte block more
    big_core_data_num = every_core_input_block_num * BLOCK_SIZE // type_length
    big_tile_num = every_core_input_block_num // tile_block_num
    final_big_tile_num = big_tile_num + (1 if every_core_input_block_num % tile_block_num else 0)
    big_tail_data_num = big_core_data_num - tile_data_num * big_tile_num
    big_tail_data_num = big_tail_data_num or tile_data_num

    t = SquareDiffTilingData(
        smallCoreDataNum=small_core_data_num, bigCoreDataNum=big_core_data_num, finalBigTileNum=final_big_tile_num,
        finalSmallTileNum=final_small_tile_num, tileDataNum=tile_data_num, smallTailDataNum=small_tail_data_num,
        bigTailDataNum=big_tail_data_num, tailBlockNum=tail_block_num)
    return core_num, np.frombuffer(bytes(t), np.uint8).copy()


class KernelSquareDiff:
    """`KernelSquareDiff<TYPE_X, TYPE_Y, TYPE_Z>` (the three types equal)."""

    def __init__(self, T):
        self.T = T
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.QuePosition.VECIN, QUEUE_DEPTH)
        self.inQueueY = aj.TQue(aj.QuePosition.VECIN, QUEUE_DEPTH)
        self.outQueueZ = aj.TQue(aj.QuePosition.VECOUT, QUEUE_DEPTH)

    def Init(self, x, y, z, smallCoreDataNum, bigCoreDataNum, finalBigTileNum, finalSmallTileNum, tileDataNum,
             smallTailDataNum, bigTailDataNum, tailBlockNum):
        T = self.T
        blockIdx = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * blockIdx
        self.tileDataNum = tileDataNum
        if blockIdx < tailBlockNum:
            self.coreDataNum = bigCoreDataNum
            self.tileNum = finalBigTileNum
            self.tailDataNum = bigTailDataNum
        else:
            self.coreDataNum = smallCoreDataNum
            self.tileNum = finalSmallTileNum
            self.tailDataNum = smallTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (blockIdx - tailBlockNum)
        self.xGm, self.yGm, self.zGm = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        self.zGm.SetGlobalBuffer(z[globalBufferIndex:], self.coreDataNum)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.inQueueY, BUFFER_NUM, self.tileDataNum * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.outQueueZ, BUFFER_NUM, self.tileDataNum * TYPE_SIZE[T])

    def Process(self):
        self.processDataNum = self.tileDataNum
        for i in range(self.tileNum):
            if i == self.tileNum - 1:
                self.processDataNum = self.tailDataNum
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.T)
        yLocal = self.inQueueY.AllocTensor(self.T)
        aj.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        aj.DataCopy(yLocal, self.yGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)
        self.inQueueY.EnQue(yLocal)

    def Compute(self, progress):
        n = self.processDataNum
        xLocal = self.inQueueX.DeQue(self.T)
        yLocal = self.inQueueY.DeQue(self.T)
        zLocal = self.outQueueZ.AllocTensor(self.T)
        aj.Mul(xLocal, xLocal, xLocal, n)
        aj.Mul(yLocal, yLocal, yLocal, n)
        aj.Sub(zLocal, xLocal, yLocal, n)
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)
        self.inQueueY.FreeTensor(yLocal)

    def CopyOut(self, progress):
        zLocal = self.outQueueZ.DeQue(self.T)
        aj.DataCopy(self.zGm[progress * self.tileDataNum], zLocal, self.processDataNum)
        self.outQueueZ.FreeTensor(zLocal)


aj.REGISTER_TILING_DEFAULT(SquareDiffTilingData)


def square_diff(x, y, z, workspace, tiling_bytes, dtype):
    """The kernel entry (square_diff.cpp; DTYPE_X = DTYPE_Y = DTYPE_Z = dtype)."""
    t = aj.GET_TILING_DATA(tiling_bytes)
    op = KernelSquareDiff(dtype)
    op.Init(x, y, z, t.smallCoreDataNum, t.bigCoreDataNum, t.finalBigTileNum, t.finalSmallTileNum, t.tileDataNum,
            t.smallTailDataNum, t.bigTailDataNum, t.tailBlockNum)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_square_diff(device, x, y, pad_gm=True):
    dtype = _dtype_name(x)
    n = x.size
    block_dim, t = tiling(device, n, dtype)
    size = -(-n * TYPE_SIZE[dtype] // BLOCK_SIZE) * BLOCK_SIZE // TYPE_SIZE[dtype] if pad_gm else n
    gx, gy = np.zeros(size, x.dtype), np.zeros(size, x.dtype)
    gx[:n], gy[:n] = x, y
    z = np.zeros(size, x.dtype)
    aj.launch(square_diff, block_dim, device, gx, gy, z, None, t, dtype)
    return z[:n]


def square_diff_model(x, y):
    with np.errstate(over="ignore", invalid="ignore"):
        return (x * x - y * y).astype(x.dtype)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        return {"x": rng.uniform(-100.0, 100.0, size).astype(_NP[dtype]),
                "y": rng.uniform(-100.0, 100.0, size).astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"z": run_square_diff(device, inputs["x"], inputs["y"])}


def _expected(device, inputs):
    return {"z": square_diff_model(inputs["x"], inputs["y"])}


_SOURCE = ("hicann/cann-learning-hub@a3989658 tutorials/ascendc_operator_development/05_fused_operator_development/"
           "answer/05.03_answer/op_kernel/square_diff.cpp")
KERNELS = [
    KernelSpec(f"square_diff{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 100003, "learning-hub SquareDiff over floats (Mul x * x and y * y in place, Sub; 32-byte "
         "blocks over big / small cores, double-buffered DataCopy tiles; GM padded to 32 bytes)"),
        ("_half", "half", 100003, "learning-hub SquareDiff over halves (the float kernel in half)"))
]
