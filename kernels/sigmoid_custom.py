"""SigmoidCustom from the CANN learning hub's intermediate vector-operator course: y = 1 / (1 + exp(-x)) by the
advanced API's Sigmoid, over float and half (computed in the input type).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/cann-learning-hub @ a3989658fa1dce436d4ab402042e0682a2e9bdc7,
tutorials/ascendc_operator_development/03_intermediate_vector_operator_development/answer/03.06_answer:
- op_kernel/sigmoid_custom.cpp (`KernelSigmoid<TYPE_X, TYPE_Y>`: the first tailBlockNum cores take one 32-byte
  block more; a TPipe with a depth-2 VECIN queue for x and a depth-2 VECOUT queue for y, two buffers of tileDataNum
  elements each; per tile DataCopy of processDataNum elements in, `AscendC::Sigmoid(y, x, processDataNum)`, DataCopy
  out; the last tile takes tailDataNum elements);
- op_kernel/sigmoid_custom_tiling.h and op_host/sigmoid_custom.cpp (`TilingFunc`: the input's bytes rounded up to 32
  spread over min(cores, blocks) cores, blocks % cores of them one block more; tileBlockNum = UB / 32 / 2 buffers /
  2 tensors; configured for ascend910b);
- the advanced Sigmoid without a temporary as the devkit builds it for the A2 / A3 (mirror-cann/asc-devkit,
  impl/adv_api/detail/activation/sigmoid/sigmoid_common_impl.h and sigmoid_impl.h): PopStackBuffer of the UB past
  the TPipe's buffers, splitSize = its bytes / sizeof(T), counter mode (SetMaskCount, SetVectorMask COUNTER of
  splitSize, then of the tail), per chunk behind PipeBarrier<PIPE_V>s: Muls -1, Exp, Adds 1, Duplicate 1 into the
  stack buffer, Div (1 / t), each one repeat with isSetMask false and MASK_PLACEHOLDER; SetMaskNorm, ResetMask.

Deviations: the core count is at most the launch's 8 (GetCoreNum in the original). GM arrays are padded to whole
32-byte blocks, as for square_diff (the DataCopies move whole blocks past the tensors' end). And the original's
tiling hands the TPipe the whole UB (2 queues x 2 buffers x UB / 4 bytes): the stack buffer the advanced Sigmoid
pops is then empty (the devkit's PopStackBuffer asserts that no UB space is left; past it, splitSize would be 0 and
the chunk count a division by it); the emulator refuses the empty PopStackBuffer (OutOfBoundsError;
`original_tiling=True` runs the original's tiling, tests/test_port47l_kernels.py shows it). The port's tiling leaves
the last 8 KB of the UB to the stack buffer (tiles of (UB - 8192) / 32 / 2 / 2 blocks), so Sigmoid computes in
chunks of 2048 floats or 4096 halves.

Devices: the operator is configured for ascend910b (A2); the port runs on the A3 and A2.

Fidelity: MODELLED (Exp and Div, SPEC-2 D37: the exact value rounded once to T), Muls / Adds / Duplicate BIT-EXACT:
the model (-x exact, exp in float64 rounded to T, + 1 in T, 1 / t in T by float64 rounded once) is checked bit for
bit; against the float64 sigmoid within 3 roundings of T (4e-7 for float, 2e-3 for half, relative).
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNum in the original)
BUFFER_NUM = 2
QUEUE_DEPTH = 2
BLOCK_SIZE = 32
UB_DATA_NUMBER = 2                 # the x and y tiles
STACK_RESERVE = 8192               # deviation: UB bytes left to the advanced Sigmoid's stack buffer
TYPE_SIZE = {"float": 4, "half": 2}
_NP = {"float": np.float32, "half": np.float16}
DEVICES = ("atlas-a3", "atlas-a2")


class SigmoidCustomTilingData(ctypes.Structure):
    _fields_ = [("smallCoreDataNum", ctypes.c_uint32), ("bigCoreDataNum", ctypes.c_uint32),
                ("finalBigTileNum", ctypes.c_uint32), ("finalSmallTileNum", ctypes.c_uint32),
                ("tileDataNum", ctypes.c_uint32), ("smallTailDataNum", ctypes.c_uint32),
                ("bigTailDataNum", ctypes.c_uint32), ("tailBlockNum", ctypes.c_uint32)]


def tiling(device, total, dtype, original_tiling=False):
    """TilingFunc: (block dim, the tiling bytes)."""
    type_length = TYPE_SIZE[dtype]
    input_length_align32 = -(-total * type_length // BLOCK_SIZE) * BLOCK_SIZE
    core_num = max(min(CORE_NUM, input_length_align32 // BLOCK_SIZE), 1)
    every_core_input_block_num = input_length_align32 // BLOCK_SIZE // core_num
    tail_block_num = (input_length_align32 // BLOCK_SIZE) % core_num
    ub_size = aj.get_device(device).ub_bytes - (0 if original_tiling else STACK_RESERVE)
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

    t = SigmoidCustomTilingData(
        smallCoreDataNum=small_core_data_num, bigCoreDataNum=big_core_data_num, finalBigTileNum=final_big_tile_num,
        finalSmallTileNum=final_small_tile_num, tileDataNum=tile_data_num, smallTailDataNum=small_tail_data_num,
        bigTailDataNum=big_tail_data_num, tailBlockNum=tail_block_num)
    return core_num, np.frombuffer(bytes(t), np.uint8).copy()


# --- the advanced API's Sigmoid(dst, src, calCount), the A2 / A3 build -------------------------------------------
def _sigmoid_intrinsics(T, dst, src, stackBuffer):
    """SigmoidIntrinsicsImpl: one repeat under the counter-mode mask the caller set."""
    one = _NP[T](1.0)
    repeatParams, binaryRepeatParams = aj.UnaryRepeatParams(), aj.BinaryRepeatParams()
    mask = aj.MASK_PLACEHOLDER
    aj.PipeBarrier(aj.PIPE_V)
    aj.Muls(dst, src, _NP[T](-1.0), mask, 1, repeatParams, is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Exp(dst, dst, mask, 1, repeatParams, is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Adds(dst, dst, one, mask, 1, repeatParams, is_set_mask=False)
    aj.Duplicate(stackBuffer, one, mask, 1, 1, 8, is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Div(dst, stackBuffer, dst, mask, 1, binaryRepeatParams, is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)


def Sigmoid(T, dstTensor, srcTensor, calCount):
    """SigmoidImpl without a temporary: the popped stack buffer sets the chunk size (SigmoidCompute)."""
    ok, stackBuffer = aj.PopStackBuffer("uint8", aj.TPosition.LCM)
    assert ok, "PopStackBuffer Error!"
    splitSize = stackBuffer.GetSize() // TYPE_SIZE[T]
    assert splitSize != 0, "splitSize should not be 0!"
    loopCount, calcTail = divmod(calCount, splitSize)
    tmpBuffer = stackBuffer.ReinterpretCast(T)
    aj.SetMaskCount()
    aj.SetVectorMask(0, splitSize, dtype=T, mode=aj.MaskMode.COUNTER)
    for i in range(loopCount):
        _sigmoid_intrinsics(T, dstTensor[i * splitSize], srcTensor[i * splitSize], tmpBuffer)
    if calcTail > 0:
        aj.SetVectorMask(0, calcTail, dtype=T, mode=aj.MaskMode.COUNTER)
        _sigmoid_intrinsics(T, dstTensor[loopCount * splitSize], srcTensor[loopCount * splitSize], tmpBuffer)
    aj.SetMaskNorm()
    aj.ResetMask()


class KernelSigmoid:
    """`KernelSigmoid<TYPE_X, TYPE_Y>` (the two types equal)."""

    def __init__(self, T):
        self.T = T
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.QuePosition.VECIN, QUEUE_DEPTH)
        self.outQueueZ = aj.TQue(aj.QuePosition.VECOUT, QUEUE_DEPTH)

    def Init(self, x, y, smallCoreDataNum, bigCoreDataNum, finalBigTileNum, finalSmallTileNum, tileDataNum,
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
        self.xGm, self.zGm = aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.zGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum * TYPE_SIZE[T])
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
        aj.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def Compute(self, progress):
        xLocal = self.inQueueX.DeQue(self.T)
        zLocal = self.outQueueZ.AllocTensor(self.T)
        Sigmoid(self.T, zLocal, xLocal, self.processDataNum)
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)

    def CopyOut(self, progress):
        zLocal = self.outQueueZ.DeQue(self.T)
        aj.DataCopy(self.zGm[progress * self.tileDataNum], zLocal, self.processDataNum)
        self.outQueueZ.FreeTensor(zLocal)


aj.REGISTER_TILING_DEFAULT(SigmoidCustomTilingData)


def sigmoid_custom(x, y, workspace, tiling_bytes, dtype):
    """The kernel entry (sigmoid_custom.cpp; DTYPE_X = DTYPE_Y = dtype)."""
    t = aj.GET_TILING_DATA(tiling_bytes)
    op = KernelSigmoid(dtype)
    op.Init(x, y, t.smallCoreDataNum, t.bigCoreDataNum, t.finalBigTileNum, t.finalSmallTileNum, t.tileDataNum,
            t.smallTailDataNum, t.bigTailDataNum, t.tailBlockNum)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_sigmoid_custom(device, x, original_tiling=False):
    dtype = _dtype_name(x)
    n = x.size
    block_dim, t = tiling(device, n, dtype, original_tiling)
    size = -(-n * TYPE_SIZE[dtype] // BLOCK_SIZE) * BLOCK_SIZE // TYPE_SIZE[dtype]     # deviation: GM padding
    gx = np.zeros(size, x.dtype)
    gx[:n] = x
    y = np.zeros(size, x.dtype)
    aj.launch(sigmoid_custom, block_dim, device, gx, y, None, t, dtype)
    return y[:n]


def sigmoid_custom_model(x):
    """-x exact, Exp rounded once to T, + 1 in T, 1 / t rounded once to T."""
    T = x.dtype.type
    with np.errstate(over="ignore"):
        e = np.exp(-x.astype(np.float64)).astype(T)
        t = (e + T(1.0)).astype(T)
        return (1.0 / t.astype(np.float64)).astype(T)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        lim = 20.0 if dtype == "float" else 8.0     # half: exp(-x) stays normal
        return {"x": np.random.default_rng(seed).uniform(-lim, lim, size).astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"y": run_sigmoid_custom(device, inputs["x"])}


def _expected(device, inputs):
    return {"y": sigmoid_custom_model(inputs["x"])}


_SOURCE = ("hicann/cann-learning-hub@a3989658 tutorials/ascendc_operator_development/"
           "03_intermediate_vector_operator_development/answer/03.06_answer/op_kernel/sigmoid_custom.cpp")
KERNELS = [
    KernelSpec(f"sigmoid_custom{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=100003,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, description in (
        ("", "float", "learning-hub SigmoidCustom over floats (the advanced Sigmoid on a popped stack buffer: "
         "counter-mode chunks of Muls -1, Exp, Adds 1, Duplicate 1, Div; 32-byte blocks over big / small cores, "
         "double-buffered DataCopy tiles; GM padded, 8 KB of UB left to the stack buffer)"),
        ("_half", "half", "learning-hub SigmoidCustom over halves (the float kernel in half)"))
]
