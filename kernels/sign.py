"""Sign from the CANN math operators: y = -1, 0 or 1 by the sign of x (0 for +-0 and NaN), element by element, over
float, half, bfloat16 (in float), int32 and int16.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/sign:
- op_kernel/sign.h (`NsSign::KernelSign<TYPE_X>`: the first tailBlockNum ("big") cores take one 32-byte block more;
  depth-1 VECIN / VECOUT queues of two buffers of tileDataNum elements, two float TBufs for bfloat16; per tile
  DataCopy in (count form), Compute, DataCopy out, the last tile of a core tailDataNum elements. Compute: float and
  half: the advanced API's Sign(y, x, n); bfloat16: Cast CAST_NONE to float, Sign, Cast CAST_RINT back; int32 and
  int16: Maxs -1 in place, Mins 1 into y);
- op_kernel/sign.cpp (the entry) and op_host/sign_tiling.cpp (`SignTilingFunc`: 32-byte blocks; tiles of UB / 32 / 5
  blocks (9 for bfloat16); one core when a tile holds the input, else min(cores, blocks); the big/small split of
  ascend_jit.kernels._base.big_small_core_tiling, whose tail rule is the same).

The advanced API's Sign(dst, src, calCount) in the A2/A3 build (mirror-cann/asc-devkit,
include/adv_api/math/sign.h and impl/adv_api/detail/math/sign/sign_common_impl.h; `sign_api` below): a
PopStackBuffer'd sharedTmpBuffer (the UB past the TPipe's buffers) split into two bit masks of AlignUp(splitCount / 8,
32) bytes and two T tensors of splitCount = bytes / sizeof(T) / 3 rounded down to 32; counter mode (SetMaskCount,
SetVectorMask COUNTER) over chunks of splitCount and a tail; per chunk, every instruction with isSetMask false and one
repeat (counter mode counts the elements): Duplicate 0 into dst, PipeBarrier<PIPE_V>, Compare LT and GT of src
against it over the chunk's whole 256-byte repeats (A2 / A3 ignore Compare's mask, SPEC-2 D44), Duplicate 1,
SetCmpMask, Select (x < 0 ? 0 : 1), Duplicate -1, SetCmpMask, Select (x > 0 ? 0 : -1), Add; then SetMaskNorm and
ResetMask.

Deviations: the core count is at most the launch's 8 (GetCoreNum in the original); the last core copies whole 32-byte
blocks: the host pads GM to 32 bytes. In the Sign:
1. SetCmpMask with the Select prototype that takes its scalar from the CMPMASK register is not offered (SPEC-2 14,
   D59): the port's Select is mode 1 (VSEL_TENSOR_SCALAR_MODE) with the scalar the Duplicate wrote (1, then -1),
   the same lanes with the same bits.
2. SPEC-2 D31 leaves the mask register undefined after an A2 / A3 Compare (its mask is ignored there), so the second
   Compare and the Duplicate after it, both isSetMask false, are refused (StateError): the port sets the chunk's
   counter-mode mask again after each Compare. The devkit's A2 Compare (impl/basic_api/dav_c220/
   kernel_operator_vec_cmp_impl.h, VcmpvImpl) neither reads nor writes the register, so this changes no value;
   `original_mask=True` runs the original's sequence and tests/test_port46m_kernels.py shows the refusal.
3. The Compares read whole 256-byte repeats: past the chunk's count into lanes of src and dst nothing wrote yet (the
   next chunk's dst lanes, the lanes past a short tile: uninitialised on a buffer's first use, whose bits no Select
   uses: no sanitizer report since session 66, which follows them to the bits) and, where a full tile's last chunk
   ends inside a repeat (the A2/A3 float tile of 9824 elements ends 32 floats into one), past the tile's buffer,
   which the emulator refuses (OutOfBoundsError naming Compare; `original_buffers=True` shows both). The port's queue
   buffers and float TBufs are one 256-byte repeat longer and the bytes past the tile's data are Duplicated to 0
   before the Sign; the bits those lanes give are never selected.

Devices: the original is built for ascend910b / ascend910_93; the port runs on the A3 and A2.

Fidelity: BIT-EXACT (Duplicate, Compare, Select, Add, Cast, Maxs, Mins; SPEC-2 0.3). -0, +0 and NaN give +0 (both
compares false: 1 + -1); +-inf give +-1.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec, big_small_core_tiling

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNum in the original)
BLOCK_SIZE = 32
BUFFER_NUM = 2
QUEUE_DEPTH = 1
REPEAT = 256                       # deviation 3: one repeat more a buffer
SIGN_CALC_PROC = 3
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2, "int32": 4, "int16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32,
       "int16": np.int16}
DEVICES = ("atlas-a3", "atlas-a2")


def tiling(device, total, dtype):
    """SignTilingFunc: (block dim, tiling data)."""
    size = TYPE_SIZE[dtype]
    ub_data_number = 9 if dtype == "bfloat16" else 5
    tile_block_num = aj.get_device(device).ub_bytes // BLOCK_SIZE // ub_data_number
    tile_data_num = tile_block_num * BLOCK_SIZE // size
    blocks = -(-total * size // BLOCK_SIZE)
    core_num = 1 if tile_data_num >= total else min(CORE_NUM, blocks)
    small, big, tail_block_num = big_small_core_tiling(total, size, tile_data_num, core_num, block=BLOCK_SIZE)
    return core_num, dict(smallCoreDataNum=small.data_num, bigCoreDataNum=big.data_num,
                          finalBigTileNum=big.tile_num, finalSmallTileNum=small.tile_num, tileDataNum=tile_data_num,
                          smallTailDataNum=small.tail_data_num, bigTailDataNum=big.tail_data_num,
                          tailBlockNum=tail_block_num)


def _counter_mask(T, count):
    aj.SetVectorMask(0, count, dtype=T, mode=aj.MaskMode.COUNTER)


def _sign_compute_impl(T, dst, src, tmpBuffer1, tmpBuffer2, tmpBuffer3, tmpBuffer4, calCount, repeatTimes,
                       original_mask):
    """SignComputeImpl: one counter-mode chunk of calCount elements."""
    binaryParams = aj.BinaryRepeatParams()
    np_t = _NP[T]
    aj.Duplicate(dst, np_t(0), aj.MASK_PLACEHOLDER, 1, 1, 8, is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Compare(tmpBuffer1, src, dst, aj.CMPMODE.LT, aj.MASK_PLACEHOLDER, repeatTimes, binaryParams, is_set_mask=False)
    if not original_mask:                              # deviation 2: D31 leaves the register undefined
        _counter_mask(T, calCount)
    aj.Compare(tmpBuffer2, src, dst, aj.CMPMODE.GT, aj.MASK_PLACEHOLDER, repeatTimes, binaryParams, is_set_mask=False)
    if not original_mask:
        _counter_mask(T, calCount)
    aj.Duplicate(tmpBuffer3, np_t(1), aj.MASK_PLACEHOLDER, 1, 1, 8, is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)
    # deviation 1: SetCmpMask(tmpBuffer3) + Select(tmpBuffer4, tmpBuffer1, dst, 1, params) as mode 1 with its scalar
    aj.Select(tmpBuffer4, tmpBuffer1, dst, np_t(1), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, aj.MASK_PLACEHOLDER, 1,
              binaryParams, is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Duplicate(tmpBuffer3, np_t(-1), aj.MASK_PLACEHOLDER, 1, 1, 8, is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Select(dst, tmpBuffer2, dst, np_t(-1), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, aj.MASK_PLACEHOLDER, 1,
              binaryParams, is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)
    aj.Add(dst, tmpBuffer4, dst, aj.MASK_PLACEHOLDER, 1, binaryParams, is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)


def sign_api(T, dstTensor, srcTensor, calCount, original_mask=False):
    """AscendC::Sign(dst, src, calCount), the A2/A3 build: SignCompute over a PopStackBuffer'd sharedTmpBuffer."""
    ok, sharedTmpBuffer = aj.PopStackBuffer("uint8", aj.TPosition.LCM)
    assert ok, "PopStackBuffer Error!"
    size = TYPE_SIZE[T]
    splitCount = sharedTmpBuffer.GetSize() // size // SIGN_CALC_PROC // aj.ONE_BLK_SIZE * aj.ONE_BLK_SIZE
    assert splitCount > 0, "the stack buffer holds no chunk"
    loopCount, calcTail = divmod(calCount, splitCount)
    aj.SetMaskCount()
    _counter_mask(T, splitCount)
    tmpLen = aj.AlignUp(splitCount // 8, aj.ONE_BLK_SIZE)
    tmpBuffer1, tmpBuffer2 = sharedTmpBuffer, sharedTmpBuffer[tmpLen]
    stackTensor = sharedTmpBuffer[tmpLen * 2].ReinterpretCast(T)
    offset = 0
    repeatTimes = -(-splitCount * size // REPEAT)
    for _ in range(loopCount):
        _sign_compute_impl(T, dstTensor[offset], srcTensor[offset], tmpBuffer1, tmpBuffer2, stackTensor,
                           stackTensor[splitCount], splitCount, repeatTimes, original_mask)
        offset += splitCount
    if calcTail > 0:
        _counter_mask(T, calcTail)
        repeatTimes = -(-calcTail * size // REPEAT)
        _sign_compute_impl(T, dstTensor[offset], srcTensor[offset], tmpBuffer1, tmpBuffer2, stackTensor,
                           stackTensor[splitCount], calcTail, repeatTimes, original_mask)
    aj.SetMaskNorm()
    aj.ResetMask()


class KernelSign:
    """`KernelSign<TYPE_X>`."""

    def __init__(self, T, original_mask=False, original_buffers=False):
        self.T, self.original_mask, self.original_buffers = T, original_mask, original_buffers
        self.pipe = aj.TPipe()                         # a member: constructed with the op, before Init

    def Init(self, x, y, smallCoreDataNum, bigCoreDataNum, finalBigTileNum, finalSmallTileNum, tileDataNum,
             smallTailDataNum, bigTailDataNum, tailBlockNum):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        T = self.T
        coreId = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * coreId
        self.tileDataNum = tileDataNum
        if coreId < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, finalBigTileNum, bigTailDataNum
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, finalSmallTileNum, smallTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (coreId - tailBlockNum)
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        self.inQueueX = aj.TQue(aj.QuePosition.VECIN, QUEUE_DEPTH)
        self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, QUEUE_DEPTH)
        self.tmp1, self.tmp2 = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        extra = 0 if self.original_buffers or T in ("int32", "int16") else REPEAT    # deviation 3
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum * TYPE_SIZE[T] + extra)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * TYPE_SIZE[T] + extra)
        if T == "bfloat16":
            self.pipe.InitBuffer(self.tmp1, self.tileDataNum * 4 + extra)
            self.pipe.InitBuffer(self.tmp2, self.tileDataNum * 4 + extra)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.T)
        aj.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.T)
        aj.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)

    def Compute(self, progress):
        T, n = self.T, self.processDataNum
        xLocal = self.inQueueX.DeQue(T)
        yLocal = self.outQueueY.AllocTensor(T)
        if T == "bfloat16":
            xFP32 = self.tmp1.Get("float")
            tmp = self.tmp2.Get("float")
            aj.Cast(xFP32, xLocal, aj.RoundMode.CAST_NONE, n)
            self._zero(xFP32, n, "float")
            self._zero(tmp, 0, "float")
            sign_api("float", tmp, xFP32, n, self.original_mask)
            aj.Cast(yLocal, tmp, aj.RoundMode.CAST_RINT, n)
        elif T in ("int32", "int16"):
            aj.Maxs(xLocal, xLocal, _NP[T](-1), n)
            aj.Mins(yLocal, xLocal, _NP[T](1), n)
        else:
            self._zero(xLocal, n, T)
            self._zero(yLocal, 0, T)
            sign_api(T, yLocal, xLocal, n, self.original_mask)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)

    def _zero(self, t, n, dtype):
        """Deviation 3: zeros over the lanes of t (of dtype) from n to its end (t[n] is 32-byte aligned: n is whole
        32-byte blocks)."""
        if self.original_buffers or t.GetSize() <= n:
            return
        aj.Duplicate(t[n], _NP[dtype](0), t.GetSize() - n)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.tileDataNum
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)
        self.processDataNum = self.tailDataNum
        self.CopyIn(loopCount - 1)
        self.Compute(loopCount - 1)
        self.CopyOut(loopCount - 1)


def sign(x, y, workspace, t, dtype, original_mask=False, original_buffers=False):
    """The kernel entry (sign.cpp)."""
    op = KernelSign(dtype, original_mask, original_buffers)
    op.Init(x, y, t["smallCoreDataNum"], t["bigCoreDataNum"], t["finalBigTileNum"], t["finalSmallTileNum"],
            t["tileDataNum"], t["smallTailDataNum"], t["bigTailDataNum"], t["tailBlockNum"])
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_sign(device, x, original_mask=False, original_buffers=False):
    dtype = _dtype_name(x)
    block_dim, t = tiling(device, x.size, dtype)
    elems = BLOCK_SIZE // TYPE_SIZE[dtype]
    padded = -(-x.size // elems) * elems                    # deviation: GM padded to 32 bytes
    gm_x, gm_y = np.zeros(padded, x.dtype), np.zeros(padded, x.dtype)
    gm_x[:x.size] = x
    aj.launch(sign, block_dim, device, gm_x, gm_y, None, t, dtype, original_mask, original_buffers)
    return gm_y[:x.size]


def sign_model(x):
    """-1 below 0, 1 above, +0 for +-0 and NaN (float types); the integers' clamp to [-1, 1]."""
    dtype = _dtype_name(x)
    if dtype in ("int32", "int16"):
        return np.clip(x, -1, 1).astype(x.dtype)
    f = x.astype(np.float32)
    out = np.where(f < 0, np.float32(-1.0), np.where(f > 0, np.float32(1.0), np.float32(0.0)))
    return out.astype(np.float32).astype(x.dtype)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if dtype in ("int32", "int16"):
            lim = 2 ** 31 if dtype == "int32" else 2 ** 15
            x = rng.integers(-lim, lim, size)
            x[::7] = 0
            x[1::11] = rng.integers(-1, 2, len(x[1::11]))
        else:
            x = rng.standard_normal(size) * rng.choice([1.0, 1e-30, 1e30], size)
            x[::13] = 0.0
            x[1::17] = -0.0
            x[2::97] = np.nan
            x[3::89] = np.inf
            x[4::83] = -np.inf
        with np.errstate(over="ignore"):
            return {"x": x.astype(_NP[dtype])}           # 1e30 is +-inf in half
    return make_inputs


def _run(device, inputs):
    return {"y": run_sign(device, inputs["x"])}


def _expected(device, inputs):
    return {"y": sign_model(inputs["x"])}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/sign/op_kernel/sign.h"
KERNELS = [
    KernelSpec(f"sign{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 50003, "Sign over floats (the advanced API's Sign written out: counter-mode chunks of a "
         "PopStackBuffer'd tmp, Duplicate / Compare LT, GT / Select mode 1 / Add with isSetMask false; 32-byte "
         "big/small cores, depth-1 queues of two buffers)"),
        ("_half", "half", 50003, "Sign over halves (the chunks' Compares past the 32-element counts)"),
        ("_bf16", "bfloat16", 20001, "Sign over bfloat16 (Cast CAST_NONE to float, Sign, Cast CAST_RINT)"),
        ("_int32", "int32", 50003, "Sign over int32 (Maxs -1 in place, Mins 1)"),
        ("_int16", "int16", 30001, "Sign over int16 (Maxs -1, Mins 1)"))
]
