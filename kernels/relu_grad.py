"""ReluGradV3 from the CANN NN operators: z = y where x > 0, else 0 (the gradient y of ReLU at x), over float, half,
bfloat16, int32, int8 and uint8, each dtype by its own instruction sequence.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-nn @ 09af24b736f023c69f59865bbaf34da79b3667f7, experimental/activation/relu_grad_v3/op_kernel/
relu_grad_v3_normal.h (`ReluGradV3Normal<T>`, the same-shape tiling key) with the host tiling of
experimental/activation/relu_grad_v3/op_host/relu_grad_v3_tiling.cpp (`ReluGradV3TilingFunc`: 8 KB of the UB kept
for Select, the rest split by the bytes each element needs (double-buffered queues, the uint8 selector, the float
or half temporaries) into tiles of whole 256-byte blocks; the data spread over the cores in 256-byte aligned shares,
the last core the rest; each core walks full tiles and one short tile).

What each dtype exercises:
- the x tile and the z tile share one double-buffered `TQueBind<VECIN, VECOUT, 2>` (float, bfloat16, int8, uint8:
  z is written over x), enqueued and dequeued with the explicit user positions `EnQue<GM, VECIN, T>` /
  `DeQue<VECOUT, GM, T>`;
- float: high-dim `Compares(sel, x, 0, GT, mask, repeat, {1, 1, 8, 8})` and `Select(z, sel, y, 0,
  VSEL_TENSOR_SCALAR_MODE, mask, repeat, {1, 1, 1, 8, 8, 8})`, mask min(64, n);
- half: the count forms of the same two, z in its own VECOUT queue;
- bfloat16: Cast x and y to float (CAST_NONE), the float count forms, Cast back with CAST_RINT;
- int32: Duplicate 1, Min, Duplicate 0, Max (x clamped to {0, 1}), Mul by y;
- int8 / uint8: Cast to half, Min with the smallest subnormal half 2**-24, Max with 0, two Muls by 4096 (the
  subnormal becomes 1), Mul by y as half, Cast back with CAST_RINT; the half temporaries are TBufs handed back with
  `TBuf.FreeTensor` (a no-op in the devkit's kernel_tbuf_impl.h).

Deviations (also in docs/decisions.md "Kernel gallery"):
- The last core's short tile: the original copies it with DataCopy of its exact count, which the device rounds down
  to whole 32-byte blocks (and the emulator refuses); Compares' count form also leaves an incomplete 256-byte block
  uncompared (SPEC-2 D44, refused here). The port rounds that tile's count up to whole 256-byte blocks (the tiles
  are whole blocks, so it fits) and pads GM to 256 bytes; the GlobalTensor windows are the padded length.
  z[:n] is unchanged.
- The core count is the launch's 8 (the platform's AIV count would be 20-48).

Devices: float and half need Compares (not the 910: SPEC-2 1.9); int32 needs int32 Min/Max/Mul (not the 910);
bfloat16 needs the bfloat16 <-> float Casts (950, A3, A2, 310B); int8 and uint8 need half -> 8-bit CAST_RINT (950,
A3, A2, 310B; the 310P and 910 offer other rounding modes only, SPEC-2 7.2).

Fidelity: BIT-EXACT (Compares, Select, Min, Max, Mul, Duplicate, Cast and DataCopy are BIT-EXACT, SPEC-2 0.3):
checked bit for bit against the same instructions composed from the package's reference model (the 8-bit path's
subnormal products follow the device's half rules there); every dtype's result also equals numpy's
where(x > 0, y, 0).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
BLOCK_SIZE = 256                  # the tiling's alignment unit ("api需要")
SELECT_RESERVED_UB = 8 * 1024
CORE_NUM = 8
COMPARE_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")
BF16_DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
INT32_DEVICES = COMPARE_DEVICES
RINT_TO_8BIT_DEVICES = BF16_DEVICES       # half -> int8/uint8 CAST_RINT
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2, "int32": 4, "int8": 1, "uint8": 1}


def tiling(device, total, dtype):
    """ReluGradV3TilingFunc for same-shape x and y: (usedCoreNum, tiling data)."""
    type_size = TYPE_SIZE[dtype]
    available = aj.get_device(device).ub_bytes - SELECT_RESERVED_UB
    per_element = {"int32": BUFFER_NUM * 3 * type_size, "float": BUFFER_NUM * 2 * type_size + 1,
                   "half": BUFFER_NUM * 3 * type_size + 1, "bfloat16": BUFFER_NUM * 2 * type_size + 1 + 3 * 4,
                   "int8": BUFFER_NUM * 2 * type_size + 2 * 2, "uint8": BUFFER_NUM * 2 * type_size + 2 * 2}[dtype]
    align = BLOCK_SIZE // type_size
    ub_part = available // per_element // align * align
    used = max(1, min(CORE_NUM, -(-total // ub_part)))
    aligned_core = -(-(-(-total // used)) // align) * align
    used = -(-total // aligned_core)
    big, small = aligned_core, total - (used - 1) * aligned_core
    tail_block_num = 0 if small == big else used - 1
    if used == 1:
        big, tail_block_num = 0, 0
    big_loops = -(-big // ub_part) if big else 0
    small_loops = -(-small // ub_part)
    return used, dict(totalLength=total, ubPartDataNum=ub_part, bigCoreDataNum=big, smallCoreDataNum=small,
                      tailBlockNum=tail_block_num, bigCoreLoopNum=big_loops,
                      bigCoreTailDataNum=big - (big_loops - 1) * ub_part if big else 0,
                      smallCoreLoopNum=small_loops, smallCoreTailDataNum=small - (small_loops - 1) * ub_part)


class ReluGradV3Normal:
    def __init__(self, dtype):
        self.T = dtype

    def Init(self, x, y, z, tilingData, pipeIn):
        self.pipe = pipeIn
        assert aj.GetBlockNum() != 0, "block dim can not be zero!"
        coreIdx = aj.GetBlockIdx()
        self.totalLength = tilingData["totalLength"]
        self.ubPartDataNum = tilingData["ubPartDataNum"]
        if tilingData["tailBlockNum"] > 0 and coreIdx < tilingData["tailBlockNum"]:
            self.coreDataNum = tilingData["bigCoreDataNum"]
            self.tileNum = tilingData["bigCoreLoopNum"]
            self.tailDataNum = tilingData["bigCoreTailDataNum"]
            self.globalOffset = coreIdx * tilingData["bigCoreDataNum"]
        elif tilingData["tailBlockNum"] > 0:
            self.coreDataNum = tilingData["smallCoreDataNum"]
            self.tileNum = tilingData["smallCoreLoopNum"]
            self.tailDataNum = tilingData["smallCoreTailDataNum"]
            self.globalOffset = (tilingData["tailBlockNum"] * tilingData["bigCoreDataNum"]
                                 + (coreIdx - tilingData["tailBlockNum"]) * tilingData["smallCoreDataNum"])
        else:
            self.coreDataNum = tilingData["smallCoreDataNum"]
            self.tileNum = tilingData["smallCoreLoopNum"]
            self.tailDataNum = tilingData["smallCoreTailDataNum"]
            self.globalOffset = coreIdx * tilingData["smallCoreDataNum"]
        # deviation: the windows are the GM arrays' padded length (module docstring)
        self.xGm, self.yGm, self.zGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x, x.size)
        self.yGm.SetGlobalBuffer(y, y.size)
        self.zGm.SetGlobalBuffer(z, z.size)
        T, size = self.T, TYPE_SIZE[self.T]
        self.xzQueue = aj.TQueBind(aj.QuePosition.VECIN, aj.QuePosition.VECOUT, BUFFER_NUM)
        self.yQueue = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.zQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.tmpBuf0, self.bufXFloat, self.bufYFloat, self.bufZFloat = (aj.TBuf(aj.QuePosition.VECCALC)
                                                                        for _ in range(4))
        self.pipe.InitBuffer(self.xzQueue, BUFFER_NUM, self.ubPartDataNum * size)
        self.pipe.InitBuffer(self.yQueue, BUFFER_NUM, self.ubPartDataNum * size)
        if T in ("int32", "half"):
            self.pipe.InitBuffer(self.zQueue, BUFFER_NUM, self.ubPartDataNum * size)
        if T in ("float", "half", "bfloat16"):
            self.pipe.InitBuffer(self.tmpBuf0, self.ubPartDataNum)
        if T == "bfloat16":
            for buf in (self.bufXFloat, self.bufYFloat, self.bufZFloat):
                self.pipe.InitBuffer(buf, self.ubPartDataNum * 4)
        elif T in ("int8", "uint8"):
            self.pipe.InitBuffer(self.bufXFloat, self.ubPartDataNum * 2)
            self.pipe.InitBuffer(self.bufYFloat, self.ubPartDataNum * 2)

    def Process(self):
        offset = self.globalOffset
        for _ in range(self.tileNum - 1):
            self.CopyIn(offset, self.ubPartDataNum)
            self.Compute(self.ubPartDataNum)
            self.CopyOut(offset, self.ubPartDataNum)
            offset += self.ubPartDataNum
        align = BLOCK_SIZE // TYPE_SIZE[self.T]
        tailTileDataNum = -(-self.tailDataNum // align) * align    # deviation: whole 256-byte blocks
        self.CopyIn(offset, tailTileDataNum)
        self.Compute(tailTileDataNum)
        self.CopyOut(offset, tailTileDataNum)

    def CopyIn(self, offset, dataNum):
        xLocal = self.xzQueue.AllocTensor(self.T)
        yLocal = self.yQueue.AllocTensor(self.T)
        aj.DataCopy(xLocal, self.xGm[offset], dataNum)
        aj.DataCopy(yLocal, self.yGm[offset], dataNum)
        self.xzQueue.EnQue(aj.QuePosition.GM, aj.QuePosition.VECIN, self.T, xLocal)
        self.yQueue.EnQue(yLocal)

    def Compute(self, dataNum):
        T = self.T
        xLocal = self.xzQueue.DeQue(aj.QuePosition.GM, aj.QuePosition.VECIN, T)
        yLocal = self.yQueue.DeQue(T)
        zLocal = xLocal
        if T in ("int32", "half"):
            zLocal = self.zQueue.AllocTensor(T)
        if T == "int32":
            aj.Duplicate(zLocal, np.int32(1), dataNum)
            aj.Min(zLocal, xLocal, zLocal, dataNum)
            aj.Duplicate(xLocal, np.int32(0), dataNum)
            aj.Max(zLocal, zLocal, xLocal, dataNum)
            aj.Mul(zLocal, yLocal, zLocal, dataNum)
        elif T in ("int8", "uint8"):
            xHalf = self.bufXFloat.Get("half")
            yHalf = self.bufYFloat.Get("half")
            aj.Cast(xHalf, xLocal, aj.RoundMode.CAST_NONE, dataNum)
            aj.Duplicate(yHalf, np.float16(0.000000059604644775390625), dataNum)
            aj.Min(xHalf, xHalf, yHalf, dataNum)
            aj.Duplicate(yHalf, np.float16(0.0), dataNum)
            aj.Max(yHalf, xHalf, yHalf, dataNum)
            aj.Duplicate(xHalf, np.float16(4096), dataNum)
            aj.Mul(yHalf, xHalf, yHalf, dataNum)
            aj.Mul(yHalf, yHalf, xHalf, dataNum)
            aj.Cast(xHalf, yLocal, aj.RoundMode.CAST_NONE, dataNum)
            aj.Mul(yHalf, yHalf, xHalf, dataNum)
            aj.Cast(zLocal, yHalf, aj.RoundMode.CAST_RINT, dataNum)
            self.bufXFloat.FreeTensor(xHalf)
            self.bufYFloat.FreeTensor(yHalf)
        elif T == "half":
            sel = self.tmpBuf0.Get("uint8")
            zero = np.float16(0)
            aj.Compares(sel, xLocal, zero, aj.CMPMODE.GT, dataNum)
            aj.Select(zLocal, sel, yLocal, zero, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, dataNum)
        elif T == "bfloat16":
            sel = self.tmpBuf0.Get("uint8")
            n = dataNum
            xf, yf, zf = self.bufXFloat.Get("float"), self.bufYFloat.Get("float"), self.bufZFloat.Get("float")
            aj.Cast(xf, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(yf, yLocal, aj.RoundMode.CAST_NONE, n)
            aj.Compares(sel, xf, np.float32(0.0), aj.CMPMODE.GT, n)
            aj.Select(zf, sel, yf, np.float32(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, n)
            aj.Cast(zLocal, zf, aj.RoundMode.CAST_RINT, n)
            self.bufXFloat.FreeTensor(xf)
            self.bufYFloat.FreeTensor(yf)
            self.bufZFloat.FreeTensor(zf)
        else:
            sel = self.tmpBuf0.Get("uint8")
            zero = np.float32(0)
            mask = 64 if dataNum >= 64 else dataNum
            repeat = (dataNum + mask - 1) // mask
            aj.Compares(sel, xLocal, zero, aj.CMPMODE.GT, mask, repeat, aj.UnaryRepeatParams(1, 1, 8, 8))
            aj.Select(zLocal, sel, yLocal, zero, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, mask, repeat,
                      aj.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
        if T in ("int32", "half"):
            self.zQueue.EnQue(zLocal)
            self.xzQueue.FreeTensor(xLocal)
        else:
            self.xzQueue.EnQue(aj.QuePosition.VECOUT, aj.QuePosition.GM, T, zLocal)
        self.yQueue.FreeTensor(yLocal)

    def CopyOut(self, offset, dataNum):
        if self.T in ("int32", "half"):
            zLocal = self.zQueue.DeQue(self.T)
        else:
            zLocal = self.xzQueue.DeQue(aj.QuePosition.VECOUT, aj.QuePosition.GM, self.T)
        aj.DataCopy(self.zGm[offset], zLocal, dataNum)
        if self.T in ("int32", "half"):
            self.zQueue.FreeTensor(zLocal)
        else:
            self.xzQueue.FreeTensor(zLocal)


def relu_grad_v3(x, y, z, tiling_data, dtype):
    pipe = aj.TPipe()
    op = ReluGradV3Normal(dtype)
    op.Init(x, y, z, tiling_data, pipe)
    op.Process()


_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32, "int8": np.int8,
       "uint8": np.uint8}


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if dtype in ("int32", "int8", "uint8"):
            info = np.iinfo(_NP[dtype])
            low, high = max(info.min, -1000), min(info.max, 1000)
            x = rng.integers(low, high + 1, size).astype(_NP[dtype])
            x[rng.random(size) < 0.1] = 0                   # x == 0 takes the zero gradient
            return {"x": x, "y": rng.integers(low, high + 1, size).astype(_NP[dtype])}
        x = rng.standard_normal(size).astype(np.float32)
        x[rng.random(size) < 0.05] = 0.0
        x[rng.random(size) < 0.02] = -0.0
        return {"x": x.astype(_NP[dtype]), "y": rng.standard_normal(size).astype(np.float32).astype(_NP[dtype])}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        block = BLOCK_SIZE // x.itemsize
        padded = -(-x.size // block) * block
        gm = {}
        for key in ("x", "y"):
            gm[key] = np.zeros(padded, x.dtype)
            gm[key][:x.size] = inputs[key]
        z = np.zeros(padded, x.dtype)
        block_dim, tiling_data = tiling(device, x.size, dtype)
        aj.launch(relu_grad_v3, block_dim, device, gm["x"], gm["y"], z, tiling_data, dtype)
        return {"z": z[:x.size]}
    return run


def expected(device, inputs):
    """The float, half, bfloat16 and int32 paths select y or 0 exactly (where(x > 0, y, 0), a -0 x included); the
    8-bit path is its Cast/Min/Max/Mul chain through the reference model in half."""
    x, y = inputs["x"], inputs["y"]
    if x.dtype.kind == "f" or x.dtype == ml_dtypes.bfloat16 or x.dtype == np.int32:
        return {"z": np.where(x.astype(np.float64) > 0, y, np.zeros_like(y))}
    from ascend_jit.reference import elementwise as ref
    core = aj.Core(device)
    env = ref.Env(device, sat_half=core.half_saturating, sat_int=core.int_saturating)
    f = lambda a: np.asarray(a, np.float64)
    gate = ref.max_("half", env, ref.min_("half", env, f(x), 2.0 ** -24), 0.0)
    gate = ref.mul("half", env, ref.mul("half", env, 4096.0, gate), 4096.0)
    z = ref.mul("half", env, gate, f(y))
    return {"z": np.rint(np.asarray(z, np.float64)).astype(x.dtype)}


_SOURCE = "hicann/ops-nn@09af24b7 experimental/activation/relu_grad_v3/op_kernel/relu_grad_v3_normal.h"
KERNELS = [
    KernelSpec("relu_grad", "ReluGradV3 over floats: high-dim Compares GT 0 and Select mode 1 with a scalar 0; x and "
               "z share a TQueBind<VECIN, VECOUT, 2> (EnQue/DeQue with user positions)", _make_inputs("float"),
               _run("float"), expected, default_size=30000, devices=COMPARE_DEVICES, source=_SOURCE),
    KernelSpec("relu_grad_half", "ReluGradV3 over halves: count-form Compares and Select mode 1 into a VECOUT queue",
               _make_inputs("half"), _run("half"), expected, default_size=30000, devices=COMPARE_DEVICES,
               source=_SOURCE),
    KernelSpec("relu_grad_bf16", "ReluGradV3 over bfloat16: Cast to float, Compares/Select, Cast back CAST_RINT",
               _make_inputs("bfloat16"), _run("bfloat16"), expected, default_size=30000, devices=BF16_DEVICES,
               source=_SOURCE),
    KernelSpec("relu_grad_int32", "ReluGradV3 over int32: x clamped to {0, 1} by Duplicate/Min/Max, Mul by y",
               _make_inputs("int32"), _run("int32"), expected, default_size=30000, devices=INT32_DEVICES,
               source=_SOURCE),
    KernelSpec("relu_grad_int8", "ReluGradV3 over int8: Cast to half, a subnormal gate scaled to 1 by two Muls of "
               "4096, Cast back CAST_RINT; TBuf.FreeTensor", _make_inputs("int8"), _run("int8"), expected,
               default_size=30000, devices=RINT_TO_8BIT_DEVICES, source=_SOURCE),
    KernelSpec("relu_grad_uint8", "ReluGradV3 over uint8 (the int8 sequence)", _make_inputs("uint8"), _run("uint8"),
               expected, default_size=30000, devices=RINT_TO_8BIT_DEVICES, source=_SOURCE),
]
