"""EluV2 from the CANN NN operators: y = scale * x where x >= 0, scale * alpha * (exp(inputScale * x) - 1) elsewhere,
element by element, over float, half and bfloat16 (the 16-bit types computed in float).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/activation/elu_v2:
- op_kernel/elu_v2.h (`NsEluV2::EluV2<T>`: big cores (the first bigCoreNum) take one 256-byte block more than the
  small ones; depth-2 VECIN / VECOUT queues of tileDataNum elements, a uint8 mask TBuf of tileDataNum bytes and, for
  the 16-bit types, two float TBufs; per tile CopyIn by count-form DataCopy, Compute, CopyOut by DataCopy. Compute:
  float: CompareScalar(x, 0.0, GE) into the mask, Muls inputScale, Exp, Adds -1, Muls scale * alpha (the negative
  branch, in y), Muls x by scale in place (the positive branch), tensor-tensor Select (x where the bit is set);
  half / bfloat16: Cast CAST_NONE to float first, the same sequence on the float TBufs, Cast CAST_RINT back);
- op_kernel/elu_v2.cpp (the entry) and op_host/elu_v2_tiling.cpp (`EluV2TilingFunc`: 256-byte blocks; tileBlockNum =
  UB blocks / 5 (float) or / 9 (16-bit); cores = ceil(input blocks / tileBlockNum), at most the AIV count;
  smallCoreDataNum = blocks / cores whole blocks, the first blocks % cores cores one block more).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). The host pads GM to the tiling's
256-byte block, as the original's tiling assumes (the last core copies whole blocks past the tensor's end; those
lanes are computed from the padding's zeros and never returned). Nothing else: every count the kernel passes is a
whole number of 256-byte blocks of its type, so the count-form CompareScalar compares every lane (SPEC-2 D44).

Devices: the original is built for the ascend910b (the A2/A3 config); the port runs on the A3 and A2.

Fidelity: MODELLED (Exp, D37), the rest BIT-EXACT (CompareScalar, Muls, Adds, Select, Cast, DataCopy; SPEC-2 0.3).
The emulator's Exp is the exact value rounded once to float (D37), so the model replays the float chain in numpy
with exp taken in float64 and rounded to float32, and is checked bit for bit (a float64 exp can round differently
from the exact value only within 2**-29 relative of a midpoint: none of the tests' inputs). NaN: CompareScalar GE
is false for a NaN (D43 covers only NE), so a NaN takes the negative branch, where exp(NaN) keeps it NaN.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
BLOCK_SIZE = 256                   # the tiling's block (bytes)
BUFFER_NUM = 2
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("atlas-a3", "atlas-a2")


def tiling(device, total, dtype, alpha=1.0, scale=1.0, input_scale=1.0):
    """EluV2TilingFunc: (used cores, tiling data)."""
    ub_size = aj.get_device(device).ub_bytes
    type_len = TYPE_SIZE[dtype]
    block_elem = BLOCK_SIZE // type_len
    ub_block_num = ub_size // BLOCK_SIZE
    ub_part_num = 5 if type_len == 4 else 9
    tile_block_num = ub_block_num // ub_part_num
    tile_data_num = tile_block_num * block_elem
    input_block_num = -(-total // block_elem)
    max_core_num = -(-input_block_num // tile_block_num)
    used = max(1, min(CORE_NUM, max_core_num))
    small_blocks = input_block_num // used
    big_core_num = input_block_num % used
    small = small_blocks * block_elem
    return used, dict(bigCoreDataNum=small + block_elem, smallCoreDataNum=small, tileDataNum=tile_data_num,
                      bigCoreNum=big_core_num, alpha=np.float32(alpha), scale=np.float32(scale),
                      inputScale=np.float32(input_scale))


class EluV2:
    """`EluV2<T>`."""

    def __init__(self, T):
        self.T = T

    def Init(self, x, y, bigCoreDataNum, smallCoreDataNum, tileDataNum, bigCoreNum, alpha, scale, inputScale):
        T = self.T
        coreIdx = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * coreIdx
        if coreIdx < bigCoreNum:
            self.coreDataNum = bigCoreDataNum
        else:
            self.coreDataNum = smallCoreDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (coreIdx - bigCoreNum)
        self.tileDataNum = tileDataNum
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex:], self.coreDataNum)
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.TPosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.selMaskBuf = aj.TBuf(aj.QuePosition.VECCALC)
        self.castXBuf, self.castYBuf = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * TYPE_SIZE[T])
        self.pipe.InitBuffer(self.selMaskBuf, self.tileDataNum * 1)
        # scalars stay float32, as the C++ members are (scale * alpha rounded once)
        self.alpha, self.scale, self.inputScale = np.float32(alpha), np.float32(scale), np.float32(inputScale)
        self.scale_alpha = np.float32(self.scale * self.alpha)
        if T != "float":
            self.pipe.InitBuffer(self.castXBuf, self.tileDataNum * 4)
            self.pipe.InitBuffer(self.castYBuf, self.tileDataNum * 4)

    def CopyIn(self, offset, processDataNum):
        xLocal = self.inQueueX.AllocTensor(self.T)
        aj.DataCopy(xLocal, self.xGm[offset], processDataNum)
        self.inQueueX.EnQue(xLocal)

    def CopyOut(self, offset, processDataNum):
        yLocal = self.outQueueY.DeQue(self.T)
        aj.DataCopy(self.yGm[offset], yLocal, processDataNum)
        self.outQueueY.FreeTensor(yLocal)

    def Compute(self, processDataNum):
        T = self.T
        xLocal = self.inQueueX.DeQue(T)
        yLocal = self.outQueueY.AllocTensor(T)
        selMask = self.selMaskBuf.Get("uint8")
        n = processDataNum
        if T == "float":
            aj.CompareScalar(selMask, xLocal, np.float32(0.0), aj.CMPMODE.GE, n)
            aj.Muls(yLocal, xLocal, self.inputScale, n)
            aj.Exp(yLocal, yLocal, n)
            aj.Adds(yLocal, yLocal, np.float32(-1.0), n)
            aj.Muls(yLocal, yLocal, self.scale_alpha, n)          # the negative branch
            aj.Muls(xLocal, xLocal, self.scale, n)                # the positive branch, in place
            aj.Select(yLocal, selMask, xLocal, yLocal, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
        else:
            xCast = self.castXBuf.Get("float")
            yCast = self.castYBuf.Get("float")
            aj.Cast(xCast, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.CompareScalar(selMask, xCast, np.float32(0.0), aj.CMPMODE.GE, n)
            aj.Muls(yCast, xCast, self.inputScale, n)
            aj.Exp(yCast, yCast, n)
            aj.Adds(yCast, yCast, np.float32(-1.0), n)
            aj.Muls(yCast, yCast, self.scale_alpha, n)
            aj.Muls(xCast, xCast, self.scale, n)
            aj.Select(yCast, selMask, xCast, yCast, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
            aj.Cast(yLocal, yCast, aj.RoundMode.CAST_RINT, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)

    def Process(self):
        offset = 0
        while offset < self.coreDataNum:
            processDataNum = min(self.tileDataNum, self.coreDataNum - offset)
            self.CopyIn(offset, processDataNum)
            self.Compute(processDataNum)
            self.CopyOut(offset, processDataNum)
            offset += self.tileDataNum


def elu_v2(x, y, workspace, t, dtype):
    """The kernel entry (elu_v2.cpp)."""
    op = EluV2(dtype)
    op.Init(x, y, t["bigCoreDataNum"], t["smallCoreDataNum"], t["tileDataNum"], t["bigCoreNum"], t["alpha"],
            t["scale"], t["inputScale"])
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_elu_v2(device, x, alpha=1.0, scale=1.0, input_scale=1.0):
    dtype = _dtype_name(x)
    block_num, t = tiling(device, x.size, dtype, alpha, scale, input_scale)
    block_elem = BLOCK_SIZE // TYPE_SIZE[dtype]
    padded = -(-x.size // block_elem) * block_elem            # deviation: GM padded to the tiling's block
    gm_x, gm_y = np.zeros(padded, x.dtype), np.zeros(padded, x.dtype)
    gm_x[:x.size] = x
    aj.launch(elu_v2, block_num, device, gm_x, gm_y, None, t, dtype)
    return gm_y[:x.size]


def _exp32(v):
    """exp rounded once to float32 (D37), from float64."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.exp(v.astype(np.float64)).astype(np.float32)


def elu_v2_model(x, alpha=1.0, scale=1.0, input_scale=1.0):
    """The kernel's float chain: each step rounded to float32, the 16-bit types back by RNE."""
    a, s, i = np.float32(alpha), np.float32(scale), np.float32(input_scale)
    sa = np.float32(s * a)
    xf = x.astype(np.float32)
    with np.errstate(all="ignore"):
        neg = (_exp32(xf * i) + np.float32(-1.0)) * sa
        pos = xf * s
        y = np.where(xf >= 0, pos, neg).astype(np.float32)
    return y if x.dtype == np.float32 else y.astype(x.dtype)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-6.0, 4.0, size).astype(np.float32)
        x[::101] = 0.0
        x[1::101] = -0.0
        return {"x": x.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"y": run_elu_v2(device, inputs["x"], alpha=1.5, scale=1.0507, input_scale=0.75)}


def _expected(device, inputs):
    return {"y": elu_v2_model(inputs["x"], alpha=1.5, scale=1.0507, input_scale=0.75)}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/elu_v2/op_kernel/elu_v2.h"
KERNELS = [
    KernelSpec(f"elu_v2{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 50003, "EluV2 over floats (CompareScalar GE, Muls, Exp, Adds, Muls, tensor-tensor Select; "
         "256-byte-block big/small cores, double-buffered count-form DataCopy tiles)"),
        ("_half", "half", 30001, "EluV2 over halves (Cast CAST_NONE to float, the float sequence, Cast CAST_RINT)"),
        ("_bf16", "bfloat16", 20001, "EluV2 over bfloat16 (as the half kernel)"))
]
