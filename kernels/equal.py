"""Equal from the CANN math operators: y = (x1 == x2) as int8 (bool), one instruction sequence per input type:
float and int32 by Compare EQ into a bit mask and a tensor-scalar Select of Duplicated ones against 0, half and int8
arithmetically (|x1 - x2| clamped by Mins, scaled up to 1, subtracted from 1), each narrowed to int8 by Cast.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/equal/op_kernel/equal.h
(`NsEqual::KernelEqual<TYPE_X>`: depth-2 VECIN queues for x1 and x2 and a VECOUT int8 queue, 256 bytes more each for
the 32-bit types, VECCALC TBufs by type; per tile DataCopy in of the tile's count, Compute, DataCopy out.
half: Sub, Abs, Mins(2**-24), Muls(4096) twice, Duplicate(1) into x1's tile, Sub(1 - t), Cast half -> int8
CAST_NONE. float: Compare(y, x1, x2, EQ) over the count rounded up to 256 bytes, Duplicate<float>(1) into x1's tile,
Select(x1, y, x1, 0.0f, VSEL_TENSOR_SCALAR_MODE), Cast float -> half and half -> int8 CAST_NONE (the mask's bytes in
y overwritten by the result). int8: Cast both to half, Sub, Abs, Mins(1), Duplicate(1), Sub, Cast to int8. int32:
Compare EQ into y, Duplicate<half>(1), Select(half, y, ones, 0), Cast half -> int8), equal.cpp
(REGISTER_TILING_DEFAULT(EqualTilingData), GET_TILING_DATA_WITH_STRUCT, KernelEqual<DTYPE_X1>) and
equal_tiling_data.h, with the host tiling of experimental/math/equal/op_host/equal_tiling.cpp (`EqualTilingFunc`:
UB shares of 6 tiles (int8: 12; float and int32: 5, after 256 x 7 + 8 KiB reserved) in runs of 32 elements; one core
when a tile holds the input, else one core a 32-element run up to the core count; big and small cores run by run;
the compare counts rounded up to 256 bytes).

uint8 and uint32 run the int8 and int32 sequences (the original views them so: equality is unchanged); bfloat16,
which the original reads through its half sequence (bfloat16 bits taken as half), is not ported.

Deviations:
- The float and int32 sequences pass the int8 output tile, which Compare filled with bits, to Select as its selMask.
  The devkit's Select takes a uint8, uint16, uint32 or uint64 selMask (DK Select.md; its implementation's
  ASCENDC_ASSERT "selMask: uint8_t / uint16_t / uint32_t / uint64_t", a check the device build compiles out, so the
  original runs there), and the emulator refuses int8 (UnsupportedDTypeError, SPEC-2 9.5). The port passes the same
  bytes as `y_local.ReinterpretCast<uint8_t>()`; `ORIGINAL_INT8_SEL_MASK = True` passes the int8 tensor and shows the
  refusal (tests/test_port39m_kernels.py). Compare itself takes the int8 dst (SPEC-2 9.4).
- The float and int32 Compare (and the Select after it) runs over the tile's count rounded up to 256 bytes; for a
  tile that is not whole 64 elements (the last, short tile) it reads x1's and x2's lanes past the copy, which no
  instruction wrote (uninitialised UB at a queue buffer's first use; their results are never copied out). The port
  zeroes those lanes with a Duplicate before the tile's copy-in (other bytes than the copy's: no MTE2 ordering
  needed); the copied lanes' results are the original's. The original's Select over the rounded count reads the
  bits of those lanes, which the sanitizer reports there (docs/decisions.md "Sanitizer").
  `ORIGINAL_ROUNDED_READS = True` runs without them.
- The core count is the launch's 8 (GetCoreNumAiv would give the device's). The host pads GM to the 32-element
  runs the tiling copies (the last core copies whole runs; device allocations are so rounded).

Devices: the operator's one config is the A2 (ascend910b); the port runs on the A3, A2, 310B and 310P (the float,
half and int8 sequences; the int32 one on the A3 and A2, the only devices whose Compare takes int32, EQ only, SPEC-2
9.4). The 950 refuses Cast half -> int8 CAST_NONE (SPEC-2 7.2, D72), which every sequence ends with, and the 910
the tiling macros (GET_TILING_DATA_WITH_STRUCT, DK Kernel-Tiling pages).

Fidelity: BIT-EXACT (Sub, Abs, Mins, Muls, Duplicate, Compare, Select and Cast are BIT-EXACT, SPEC-2 0.3): checked
bit for bit against numpy's x1 == x2 as int8 over finite inputs (the half sequence is equality for finite halves:
a nonzero |x1 - x2| is at least 2**-24, which the Mins and the two Muls take to exactly 1; -0 equals +0; two halves
whose difference overflows to inf still give 1 - 1 = 0).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
BLOCK_SIZE = 32                      # elements (the tiling's runs), not bytes
ALIGN_BYTES = 256
INT32_FP_UB_COMPUTE_RESERVE = 256 * 7
INT32_FP_UB_SYS_RESERVE = 8 * 1024
UB_DATA_NUMBER_DEFAULT, UB_DATA_NUMBER_INT8, UB_DATA_NUMBER_INT32_FP = 6, 12, 5
CORE_NUM = 8
POSITIVE_ONE_FP32 = 1.0
MIN_ACCURACY_FP16 = 0.00000005960464477539063
MAX_MUL_FP16 = 4096.0
ORIGINAL_ROUNDED_READS = False
ORIGINAL_INT8_SEL_MASK = False
DEVICES = ("atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")
INT32_DEVICES = ("atlas-a3", "atlas-a2")             # Compare int32 (EQ): the A2 and A3 only (SPEC-2 9.4)
TYPE_SIZE = {"float": 4, "half": 2, "int8": 1, "uint8": 1, "int32": 4, "uint32": 4}
_NP = {"float": np.float32, "half": np.float16, "int8": np.int8, "uint8": np.uint8, "int32": np.int32,
       "uint32": np.uint32}
# the sequence each type takes (the original's `std::is_same_v<DTYPE_X1, ...>` branches)
_PATH = {"float": "float", "half": "half", "int8": "int8", "uint8": "int8", "int32": "int32", "uint32": "int32"}

EqualTilingData = np.dtype([(name, np.uint32) for name in (
    "smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum", "tileDataNum", "smallTailDataNum",
    "bigTailDataNum", "tailBlockNum", "bigprocessDataNum_computes", "smallprocessDataNum_computes",
    "tailbigprocessDataNum_computes", "tailsmallprocessDataNum_computes")])


def tiling(device, input_num, dtype):
    """EqualTilingFunc: (block dim, the packed EqualTilingData)."""
    ub_size, core_num = aj.get_device(device).ub_bytes, CORE_NUM
    type_length = TYPE_SIZE[dtype]
    ub_data_number = UB_DATA_NUMBER_DEFAULT
    if _PATH[dtype] == "int8":
        ub_data_number = UB_DATA_NUMBER_INT8
    if _PATH[dtype] in ("int32", "float"):
        ub_data_number = UB_DATA_NUMBER_INT32_FP
        ub_size -= INT32_FP_UB_COMPUTE_RESERVE + INT32_FP_UB_SYS_RESERVE
    ub_size //= type_length
    tile_block_num = ub_size // BLOCK_SIZE // ub_data_number
    tile_data_num = tile_block_num * BLOCK_SIZE
    align32 = (input_num + BLOCK_SIZE - 1) // BLOCK_SIZE * BLOCK_SIZE
    core_num = 1 if tile_data_num >= input_num else min(core_num, align32 // BLOCK_SIZE)

    def computes(n):
        return (n * type_length + ALIGN_BYTES - 1) // ALIGN_BYTES * ALIGN_BYTES // type_length

    every = align32 // BLOCK_SIZE // core_num
    tail_block_num = align32 // BLOCK_SIZE % core_num
    small_data = every * BLOCK_SIZE
    small_tiles = every // tile_block_num
    final_small = small_tiles + (every % tile_block_num != 0)
    small_tail = small_data - tile_data_num * small_tiles or tile_data_num
    every += 1
    big_data = every * BLOCK_SIZE
    big_tiles = every // tile_block_num
    final_big = big_tiles + (every % tile_block_num != 0)
    big_tail = big_data - tile_data_num * big_tiles or tile_data_num
    t = np.zeros(1, EqualTilingData)
    for name, value in (("smallCoreDataNum", small_data), ("bigCoreDataNum", big_data),
                        ("finalBigTileNum", final_big), ("finalSmallTileNum", final_small),
                        ("tileDataNum", tile_data_num), ("smallTailDataNum", small_tail),
                        ("bigTailDataNum", big_tail), ("tailBlockNum", tail_block_num),
                        ("bigprocessDataNum_computes", computes(tile_data_num)),
                        ("smallprocessDataNum_computes", computes(tile_data_num)),
                        ("tailbigprocessDataNum_computes", computes(big_tail)),
                        ("tailsmallprocessDataNum_computes", computes(small_tail))):
        t[name] = value
    return core_num, t.view(np.uint8).copy()


class KernelEqual:
    def __init__(self, TYPE_X):
        self.TYPE_X = TYPE_X
        self.path = _PATH[TYPE_X]

    def Init(self, x1, x2, y, smallCoreDataNum, bigCoreDataNum, finalBigTileNum, finalSmallTileNum, tileDataNum,
             smallTailDataNum, bigTailDataNum, tailBlockNum, bigprocessDataNum_computes,
             smallprocessDataNum_computes, tailbigprocessDataNum_computes, tailsmallprocessDataNum_computes):
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        coreNum = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * aj.GetBlockIdx()
        increment = 0
        self.tileDataNum = tileDataNum
        if coreNum < tailBlockNum:
            self.coreDataNum = bigCoreDataNum
            self.tileNum = finalBigTileNum
            self.tailDataNum = bigTailDataNum
            self.processDataNum_computes = bigprocessDataNum_computes
            self.tailprocessDataNum_computes = tailbigprocessDataNum_computes
        else:
            self.coreDataNum = smallCoreDataNum
            self.tileNum = finalSmallTileNum
            self.tailDataNum = smallTailDataNum
            self.processDataNum_computes = smallprocessDataNum_computes
            self.tailprocessDataNum_computes = tailsmallprocessDataNum_computes
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (aj.GetBlockIdx() - tailBlockNum)
        self.x1Gm, self.x2Gm = aj.GlobalTensor(self.TYPE_X), aj.GlobalTensor(self.TYPE_X)
        self.yGm = aj.GlobalTensor("int8")
        self.x1Gm.SetGlobalBuffer(x1[globalBufferIndex:], self.coreDataNum)
        self.x2Gm.SetGlobalBuffer(x2[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        if self.path in ("int32", "float"):
            increment = 256
        self.pipe = aj.TPipe()
        self.inQueueX1 = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.inQueueX2 = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.tmp1, self.tmp2, self.tmp3, self.tmp4 = (aj.TBuf(aj.QuePosition.VECCALC) for _ in range(4))
        size = TYPE_SIZE[self.TYPE_X]
        self.pipe.InitBuffer(self.inQueueX1, BUFFER_NUM, self.tileDataNum * size + increment)
        self.pipe.InitBuffer(self.inQueueX2, BUFFER_NUM, self.tileDataNum * size + increment)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * 1 + increment)
        if self.path == "half":
            self.pipe.InitBuffer(self.tmp1, self.tileDataNum * 2)
        elif self.path == "float":
            self.pipe.InitBuffer(self.tmp2, self.tileDataNum * 2 + increment)
        elif self.path == "int8":
            self.pipe.InitBuffer(self.tmp2, self.tileDataNum * 2)
            self.pipe.InitBuffer(self.tmp3, self.tileDataNum * 2)
            self.pipe.InitBuffer(self.tmp4, self.tileDataNum * 2)
        elif self.path == "int32":
            self.pipe.InitBuffer(self.tmp2, self.tileDataNum * 2 + increment)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.tileDataNum
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)
        self.processDataNum = self.tailDataNum
        self.processDataNum_computes = self.tailprocessDataNum_computes
        self.CopyIn(loopCount - 1)
        self.Compute(loopCount - 1)
        self.CopyOut(loopCount - 1)

    def CopyIn(self, progress):
        x1Local = self.inQueueX1.AllocTensor(self.TYPE_X)
        x2Local = self.inQueueX2.AllocTensor(self.TYPE_X)
        if self.path in ("float", "int32") and not ORIGINAL_ROUNDED_READS:
            # deviation (module docstring): the compare's lanes past the copy are zeroed
            extra = self.processDataNum_computes - self.processDataNum
            if extra > 0:
                zero = _NP[self.TYPE_X](0)
                aj.Duplicate(x1Local[self.processDataNum], zero, extra)
                aj.Duplicate(x2Local[self.processDataNum], zero, extra)
        aj.DataCopy(x1Local, self.x1Gm[progress * self.tileDataNum], self.processDataNum)
        aj.DataCopy(x2Local, self.x2Gm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX1.EnQue(x1Local)
        self.inQueueX2.EnQue(x2Local)

    def Compute(self, progress):
        n = self.processDataNum
        if self.path == "half":
            x1_local = self.inQueueX1.DeQue("half")
            x2_local = self.inQueueX2.DeQue("half")
            y_local = self.outQueueY.AllocTensor("int8")
            y_compute = self.tmp1.Get("half")
            aj.Sub(y_compute, x1_local, x2_local, n)                        # diff = x1 - x2
            aj.Abs(y_compute, y_compute, n)                                 # |diff|
            aj.Mins(y_compute, y_compute, np.float16(MIN_ACCURACY_FP16), n)  # 0 or the smallest subnormal
            aj.Muls(y_compute, y_compute, np.float16(MAX_MUL_FP16), n)       # ... scaled up to 0 or 1
            aj.Muls(y_compute, y_compute, np.float16(MAX_MUL_FP16), n)
            aj.Duplicate(x1_local, np.float16(POSITIVE_ONE_FP32), n)
            aj.Sub(y_compute, x1_local, y_compute, n)                       # 1 where equal, 0 elsewhere
            aj.Cast(y_local, y_compute, aj.RoundMode.CAST_NONE, n)
            self.outQueueY.EnQue("int8", y_local)
            self.inQueueX1.FreeTensor(x1_local)
            self.inQueueX2.FreeTensor(x2_local)
        elif self.path == "float":
            m = self.processDataNum_computes
            x1_local = self.inQueueX1.DeQue("float")
            x2_local = self.inQueueX2.DeQue("float")
            y_local = self.outQueueY.AllocTensor("int8")
            p1 = self.tmp2.Get("half")
            aj.Compare(y_local, x1_local, x2_local, aj.CMPMODE.EQ, m)
            aj.Duplicate(x1_local, np.float32(1), m)
            aj.Select(x1_local, self._sel_mask(y_local), x1_local, np.float32(0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE,
                      m)
            aj.Cast(p1, x1_local, aj.RoundMode.CAST_NONE, m)
            aj.Cast(y_local, p1, aj.RoundMode.CAST_NONE, m)
            self.outQueueY.EnQue("int8", y_local)
            self.inQueueX1.FreeTensor(x1_local)
            self.inQueueX2.FreeTensor(x2_local)
        elif self.path == "int8":
            x1_local = self.inQueueX1.DeQue("int8")
            x2_local = self.inQueueX2.DeQue("int8")
            y_local = self.outQueueY.AllocTensor("int8")
            x1_local_fp16 = self.tmp2.Get("half")
            x2_local_fp16 = self.tmp3.Get("half")
            y_local_fp16 = self.tmp4.Get("half")
            aj.Cast(x1_local_fp16, x1_local, aj.RoundMode.CAST_NONE, n)
            aj.Cast(x2_local_fp16, x2_local, aj.RoundMode.CAST_NONE, n)
            aj.Sub(y_local_fp16, x1_local_fp16, x2_local_fp16, n)
            aj.Abs(y_local_fp16, y_local_fp16, n)
            aj.Mins(y_local_fp16, y_local_fp16, np.float16(POSITIVE_ONE_FP32), n)
            aj.Duplicate(x1_local_fp16, np.float16(POSITIVE_ONE_FP32), n)
            aj.Sub(y_local_fp16, x1_local_fp16, y_local_fp16, n)
            aj.Cast(y_local, y_local_fp16, aj.RoundMode.CAST_NONE, n)
            self.outQueueY.EnQue("int8", y_local)
            self.inQueueX1.FreeTensor(x1_local)
            self.inQueueX2.FreeTensor(x2_local)
        else:
            m = self.processDataNum_computes
            x1_local = self.inQueueX1.DeQue("int32")
            x2_local = self.inQueueX2.DeQue("int32")
            y_local = self.outQueueY.AllocTensor("int8")
            y_fp16 = self.tmp2.Get("half")
            aj.Compare(y_local, x1_local, x2_local, aj.CMPMODE.EQ, m)
            aj.Duplicate(y_fp16, np.float16(1), m)
            aj.Select(y_fp16, self._sel_mask(y_local), y_fp16, np.float16(0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, m)
            aj.Cast(y_local, y_fp16, aj.RoundMode.CAST_NONE, m)
            self.inQueueX1.FreeTensor(x1_local)
            self.inQueueX2.FreeTensor(x2_local)
            self.outQueueY.EnQue("int8", y_local)

    @staticmethod
    def _sel_mask(y_local):
        """Deviation (module docstring): the int8 output tile read as the uint8 selMask the Select page takes."""
        return y_local if ORIGINAL_INT8_SEL_MASK else y_local.ReinterpretCast("uint8")

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue("int8")
        aj.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


aj.REGISTER_TILING_DEFAULT(EqualTilingData)


def equal(x1, x2, y, workspace, tiling, DTYPE_X1):
    """The kernel entry; DTYPE_X1 is the build's input type (a macro in C++, an argument here). The uint types are
    read through the signed views the original's branches take."""
    t = aj.GET_TILING_DATA_WITH_STRUCT(EqualTilingData, tiling)
    op = KernelEqual(DTYPE_X1)
    op.Init(x1, x2, y, int(t.smallCoreDataNum), int(t.bigCoreDataNum), int(t.finalBigTileNum),
            int(t.finalSmallTileNum), int(t.tileDataNum), int(t.smallTailDataNum), int(t.bigTailDataNum),
            int(t.tailBlockNum), int(t.bigprocessDataNum_computes), int(t.smallprocessDataNum_computes),
            int(t.tailbigprocessDataNum_computes), int(t.tailsmallprocessDataNum_computes))
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if dtype in ("float", "half"):
            x1 = (rng.integers(-4, 5, size) * rng.choice([1.0, 0.5, 2.0 ** -20, 1e-30], size)).astype(_NP[dtype])
            x2 = x1.copy()
            change = rng.random(size) < 0.5
            step = np.finfo(_NP[dtype]).smallest_subnormal
            x2[change] = (x1[change].astype(np.float64) + rng.choice([step, -step, 1.0], int(change.sum()))
                          ).astype(_NP[dtype])
            x2[3::17] = -x1[3::17]                         # -0 against +0 among them
            big = np.finfo(_NP[dtype]).max
            x1[5::101], x2[5::101] = big, -big             # a difference that overflows
        else:
            info = np.iinfo(_NP[dtype])
            x1 = rng.integers(info.min, int(info.max) + 1, size, dtype=_NP[dtype])
            x2 = np.where(rng.random(size) < 0.5, x1, rng.integers(info.min, int(info.max) + 1, size,
                                                                    dtype=_NP[dtype]))
            x2[7::13] = x1[7::13] ^ _NP[dtype](1)          # one bit apart
        return {"x1": x1, "x2": x2}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x1, x2 = inputs["x1"], inputs["x2"]
        n = x1.size
        padded = -(-n // BLOCK_SIZE) * BLOCK_SIZE
        gm1, gm2 = np.zeros(padded, x1.dtype), np.zeros(padded, x1.dtype)
        gm1[:n], gm2[:n] = x1, x2
        y = np.zeros(padded, np.bool_)
        block_dim, tiling_bytes = tiling(device, n, dtype)
        workspace = np.zeros(BLOCK_SIZE, np.uint8)         # the tiling asks for none
        view = {"uint8": "int8", "uint32": "int32"}.get(dtype, dtype)
        aj.launch(equal, block_dim, device, gm1.view(_NP[view]), gm2.view(_NP[view]), y, workspace, tiling_bytes,
                  view)
        return {"y": y[:n].view(np.int8)}
    return run


def expected(device, inputs):
    with np.errstate(over="ignore"):
        return {"y": (inputs["x1"] == inputs["x2"]).astype(np.int8)}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/equal/op_kernel/equal.h"
KERNELS = [
    KernelSpec("equal", "Equal over floats: Compare EQ into the int8 output tile over 256-byte rounded counts, "
               "Duplicate ones, tensor-scalar Select against 0.0f, Cast float -> half -> int8; big/small cores",
               _make_inputs("float"), _run("float"), expected, default_size=100003, devices=DEVICES, source=_SOURCE),
    KernelSpec("equal_half", "Equal over halves without a compare: Sub, Abs, Mins(2**-24), Muls(4096) twice, "
               "1 - t, Cast half -> int8 CAST_NONE", _make_inputs("half"), _run("half"), expected,
               default_size=100003, devices=DEVICES, source=_SOURCE),
    KernelSpec("equal_int32", "Equal over int32: Compare EQ, tensor-scalar Select of half ones against 0, Cast",
               _make_inputs("int32"), _run("int32"), expected, default_size=100003, devices=INT32_DEVICES,
               source=_SOURCE),
    KernelSpec("equal_int8", "Equal over int8: Cast to half, Sub, Abs, Mins(1), 1 - t, Cast back",
               _make_inputs("int8"), _run("int8"), expected, default_size=100003, devices=DEVICES, source=_SOURCE),
    KernelSpec("equal_uint32", "Equal over uint32 through the int32 sequence", _make_inputs("uint32"),
               _run("uint32"), expected, default_size=4099, devices=INT32_DEVICES, source=_SOURCE),
]
