"""CastV3 from the CANN math operators (experimental, the Atlas inference AI Core): y = Cast(x) between the
numeric types and bool, the generic kernel: per UB tile one Cast or a short sequence for the pairs the 310P's Cast
table lacks. int32 -> int16 keeps each int32's low half by a counter-mode GatherMask (built-in pattern 1 over the
int16 view, the 310P's "mask is the total count" configuration); half -> int8 / uint8 casts to int32 (CAST_TRUNC),
keeps the low byte by an int16 And in counter mode (SetMaskCount, SetVectorMask<int16_t, COUNTER>, `And<int16_t,
false>` against one 32-byte block of 0x00FF words at src1 block and repeat stride 0; int8 shifted by Adds +-128
around it so that the byte wraps), then casts through half; half -> bool by CompareScalar NE 0 over the count rounded
up to 128 into the output tile's bytes, Duplicate(1), a tensor-scalar Select against 0 and Cast half -> int8. A tile
goes out by DataCopy and the last partial 32-byte block by GM SetValue after PipeBarrier<PIPE_ALL>.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/cast_v3/op_kernel/cast_generic.h
(`CastGeneric<T, U>`: ComputeFromFP32 / FP16 / Int32, a VECCALC scratch of ubProcessNum int32 for half -> 8-bit),
cast_ops.h (`PackInt32ToByte`, `PackInt32ToInt16`, `CastToBool`), cast_base.h (`CastBase`: depth-0 VECIN / VECOUT
queues of two buffers, former / tail core split, CopyIn by DataCopy of the count rounded up to 32 bytes, CopyOut by
DataCopy and the scalar tail, RunProcess over whole tiles and a tail) and cast_v3.cpp (the tiling-key dispatch),
with the host tiling of experimental/math/cast_v3/op_host/cast_v3_tiling.cpp (`CastV3Tiling::BaseTiling`: 256-byte
units over the cores, the last core taking the remainder; `SetTilingKey`: key 6 and ubProcessNum = UB / (2 *
(sizeof T + sizeof U) [+ 4 for half -> 8-bit]) rounded down to 256) and cast_tiling_data.h.

Ported pairs (the generic kernel's, tiling key 6): int32 -> int16, half -> uint8, half -> int8, half -> bool,
half -> int32, int32 -> float, half -> float, float -> half. Not ported: the keys 1, 2, 4, 5 kernels (CastBf16,
CastCopy, CastExpand: bf16, int16, int64 and 1-byte inputs), refused by `cast_v3`; and the generic pairs whose
first instruction the emulator refuses on the 310P: every float -> integer pair (Cast float -> int32 CAST_TRUNC:
SPEC-2 7.2's 310P row has no float -> int32, see tests/test_port39t_kernels.py), and int32 -> half / int8 / uint8 /
bool (Cast int32 -> half under SetDeqScale, not offered: SPEC-2 D47, 14).

Deviations:
- half -> 8-bit: `SetDeqScale((half)1.0)` and `Cast(halfView, src, CAST_NONE, length)` (int32 -> half in place:
  halfView is the int32 scratch's bytes) are not offered (SPEC-2 D47) and an in-place narrowing Cast overlaps
  (OverlapError, SPEC-2 D34). The port casts the scratch int32 -> float in place (same size, same address), then
  float -> half CAST_NONE into the input tile (dead after the first Cast), then half -> U as the original. The values
  after the And are whole numbers in [0, 255] or [-128, 127], exact in float and half: the bytes are the original's.
  `ORIGINAL_DEQ_CAST = True` runs the original's calls (SetDeqScale, then the in-place Cast) and shows the refusal.
- CopyOut's `DataCopy(yGm[offset], yLocal, length)` of a tile whose length is not whole 32-byte blocks: the
  emulator refuses a count that is not whole DataBlocks (AlignmentError, docs/decisions.md "Scaffolding"); the
  device's DataCopy moves count * sizeof(U) / 32 whole blocks (the devkit's count form divides: blockLen = count *
  sizeof(T) / 32, as that decision says), which is what the port copies; the scalar loop writes the rest,
  as in the original. `ORIGINAL_UNALIGNED_COPY_OUT = True` passes length and shows the refusal.
- half -> bool: CompareScalar and Select run over the count rounded up to 128 elements, but the copy-in wrote the
  count rounded up to 16: on the last, short tile they read input-tile lanes no instruction wrote (results never
  copied out; the sanitizer reports the read). The port zeroes those lanes by a Duplicate before the copy-in (other
  bytes than the copy's). `ORIGINAL_ROUNDED_READS = True` runs without it.
- The core count is the launch's 8 (GetCoreNumAiv would give the device's). The host pads x to 32 bytes past the
  end (CopyIn reads the count rounded up to 32 bytes) and gives the workspace the tiling's size.

Devices: the operator's one config is the 310P (ascend310p), and the kernel only works there: GatherMask with
reduceMode true and repeatTimes 0 processes `mask` elements on the 310P; on the 950 / A2 / A3 / 310B mask is a
per-repeat count and repeatTimes 0 processes nothing (SPEC-2 D58). The port runs on the 310P.

Fidelity: BIT-EXACT (Cast, GatherMask, Adds, And, Duplicate, CompareScalar, Select, DataCopy are BIT-EXACT); checked
bit for bit against numpy: truncation toward zero and wrap to the low 16 / 8 bits (C++'s conversions of the int32
values), x != 0 for bool.
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BLOCK_SIZE = 32
BUFFER_NUM = 2
RESERVED_UB_SIZE = 0
PROCESS_SIZE = 256
CORE_NUM = 8
ORIGINAL_DEQ_CAST = False
ORIGINAL_UNALIGNED_COPY_OUT = False
ORIGINAL_ROUNDED_READS = False
DEVICES = ("atlas-inference-aicore",)
_SIZE = {"float": 4, "half": 2, "int32": 4, "int16": 2, "int8": 1, "uint8": 1, "bool": 1, "int64": 8,
         "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "int32": np.int32, "int16": np.int16, "int8": np.int8,
       "uint8": np.uint8, "bool": np.bool_}
_ONE_BYTE = ("bool", "int8", "uint8")


class CastTilingData(ctypes.Structure):
    _fields_ = [("tailBatchSize", ctypes.c_uint64), ("formerCoreNum", ctypes.c_uint64),
                ("formerBatchSize", ctypes.c_uint64), ("batchSize", ctypes.c_int64),
                ("ubProcessNum", ctypes.c_int32), ("tilingKey", ctypes.c_uint32)]


def tiling(device, batch_size, x_dtype, y_dtype):
    """CastV3Tiling: (block dim, the packed CastTilingData)."""
    if batch_size == 0:
        raise ValueError("CastV3 input shape has zero dimension, product is 0")
    in_len, out_len = _SIZE[x_dtype], _SIZE[y_dtype]
    ub_size = aj.get_device(device).ub_bytes
    process_num = batch_size // (PROCESS_SIZE // in_len)
    core_num = max(min(CORE_NUM, process_num), 1)
    former_batch = process_num // core_num * (PROCESS_SIZE // in_len)
    former_cores = core_num if batch_size == former_batch * core_num else core_num - 1
    tail_batch = former_batch + batch_size - former_batch * core_num
    available = ub_size - RESERVED_UB_SIZE
    if "bfloat16" in (x_dtype, y_dtype):
        key, ub = 2, available // (BUFFER_NUM * (in_len + out_len) + 4 + 4) // 256 * 256
    elif x_dtype == "int64":
        key, ub = 1, available // (BUFFER_NUM * (in_len + out_len) + 2 * 8) // 256 * 256
    elif x_dtype == "int16" or (x_dtype == "half" and y_dtype == "int16"):
        key, ub = 1, available // (BUFFER_NUM * (in_len + out_len) + 4 + 4) // 256 * 256
    elif x_dtype in _ONE_BYTE and y_dtype in _ONE_BYTE:
        key, ub = 4, available // (BUFFER_NUM * in_len) // 256 * 256
    elif x_dtype in _ONE_BYTE and y_dtype == "half":
        key, ub = 5, available // (BUFFER_NUM * (in_len + out_len)) // 256 * 256
    elif x_dtype in _ONE_BYTE:
        key, ub = 5, available // (BUFFER_NUM * (in_len + out_len) + 2) // 256 * 256
    elif x_dtype == "half" and y_dtype in _ONE_BYTE:
        key, ub = 6, available // (BUFFER_NUM * (in_len + out_len) + 4) // 256 * 256
    else:
        key, ub = 6, available // (BUFFER_NUM * (in_len + out_len)) // 256 * 256
    t = CastTilingData(tail_batch, former_cores, former_batch, batch_size, ub, key)
    return core_num, np.frombuffer(bytes(t), np.uint8).copy()


# cast_ops.h

def PackInt32ToByte(U, dst, src, scratch, length, stage):
    """The low byte of each int32 of src as U in dst. `stage` (a free half tile of length elements) is the port's
    (deviation: the int32 -> half step, module docstring)."""
    srcI16 = src.ReinterpretCast("int16")
    maskI16 = scratch.ReinterpretCast("int16")
    aj.Duplicate(scratch, np.int32(0x000000FF), 8)          # eight words 0x00FF, 0x0000 as int16
    if U == "int8":
        aj.Adds(src, src, np.int32(128), length)
        aj.SetMaskCount()
        aj.SetVectorMask(length * 2, dtype="int16", mode=aj.MaskMode.COUNTER)
        aj.And(srcI16, srcI16, maskI16, aj.MASK_PLACEHOLDER, 1, aj.BinaryRepeatParams(1, 1, 0, 8, 8, 0),
               is_set_mask=False)
        aj.SetMaskNorm()
        aj.ResetMask()
        aj.Adds(src, src, np.int32(-128), length)
    else:
        aj.SetMaskCount()
        aj.SetVectorMask(length * 2, dtype="int16", mode=aj.MaskMode.COUNTER)
        aj.And(srcI16, srcI16, maskI16, aj.MASK_PLACEHOLDER, 1, aj.BinaryRepeatParams(1, 1, 0, 8, 8, 0),
               is_set_mask=False)
        aj.SetMaskNorm()
        aj.ResetMask()
    if ORIGINAL_DEQ_CAST:
        aj.SetDeqScale(np.float16(1.0))
        halfView = src.ReinterpretCast("half")
        aj.Cast(halfView, src, aj.RoundMode.CAST_NONE, length)
    else:
        # deviation (module docstring): int32 -> float in place, float -> half into the free stage tile
        floatView = src.ReinterpretCast("float")
        aj.Cast(floatView, src, aj.RoundMode.CAST_NONE, length)
        aj.Cast(stage, floatView, aj.RoundMode.CAST_NONE, length)
        halfView = stage
    aj.Cast(dst, halfView, aj.RoundMode.CAST_NONE, length)


def PackInt32ToInt16(dst, src, length):
    rsvdCnt = aj.GatherMask(dst, src.ReinterpretCast("int16"), 1, True, length * 2, aj.GatherMaskParams(1, 0, 8, 0))
    return rsvdCnt


def CastToBool(dst, src, length):
    maskU8 = dst.ReinterpretCast("uint8")
    alignedLen = aj.AlignUp(length, 256 // 2)
    aj.CompareScalar(maskU8, src, np.float16(0.0), aj.CMPMODE.NE, alignedLen)
    aj.Duplicate(src, np.float16(1.0), length)
    aj.Select(src, maskU8, src, np.float16(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, alignedLen)
    aj.Cast(dst, src, aj.RoundMode.CAST_NONE, length)


# cast_base.h

class CastBase:
    def __init__(self, T, U):
        self.T, self.U = T, U
        self.pipe = aj.TPipe()
        self.xQue = aj.TQue(aj.QuePosition.VECIN, 0)
        self.yQue = aj.TQue(aj.QuePosition.VECOUT, 0)
        self.xGm = aj.GlobalTensor(T)
        self.yGm = aj.GlobalTensor("int8" if U == "bool" else U)
        self.xLocal = self.yLocal = None

    def InitParams(self, tiling):
        self.blockIdx = aj.GetBlockIdx()
        self.ubProcessNum = int(tiling.ubProcessNum)
        self.globalOffset = self.blockIdx * int(tiling.formerBatchSize)
        self.batchSize = int(tiling.formerBatchSize) if self.blockIdx < int(tiling.formerCoreNum) \
            else int(tiling.tailBatchSize)

    def SetGmAddr(self, x, y, workspace):
        self.xGm.SetGlobalBuffer(x[self.globalOffset:])
        self.yGm.SetGlobalBuffer(y[self.globalOffset:])

    def InitIoBuffers(self):
        self.pipe.InitBuffer(self.xQue, BUFFER_NUM, self.ubProcessNum * _SIZE[self.T])
        self.pipe.InitBuffer(self.yQue, BUFFER_NUM, self.ubProcessNum * _SIZE[self.U])

    def CopyIn(self, length, offset):
        T = self.T
        self.xLocal = self.xQue.AllocTensor(T)
        copied = aj.AlignUp(length, BLOCK_SIZE // _SIZE[T])
        if self.U == "bool" and not ORIGINAL_ROUNDED_READS:
            # deviation (module docstring): the lanes CastToBool's rounded compare reads past the copy
            extra = aj.AlignUp(length, 256 // 2) - copied
            if T == "half" and extra > 0:
                aj.Duplicate(self.xLocal[copied], np.float16(0), extra)
        aj.DataCopy(self.xLocal, self.xGm[offset], copied)
        self.xQue.EnQue(T, self.xLocal)

    def CopyOut(self, length, offset):
        U = "int8" if self.U == "bool" else self.U
        block = BLOCK_SIZE // _SIZE[U]
        self.yLocal = self.yQue.DeQue(U, self.yLocal)
        if length >= block:
            # deviation (module docstring): the whole 32-byte blocks the device's DataCopy moves
            aj.DataCopy(self.yGm[offset], self.yLocal, length if ORIGINAL_UNALIGNED_COPY_OUT else length // block * block)
        alignedLen = aj.AlignUp(length, block)
        if alignedLen > length:
            aj.PipeBarrier(aj.PIPE_ALL)
            for i in range(alignedLen - block, length):
                self.yGm.SetValue(offset + i, self.yLocal(i))
        self.yQue.FreeTensor(self.yLocal)

    def RunProcess(self, derived):
        loops = self.batchSize // self.ubProcessNum
        tail = self.batchSize % self.ubProcessNum
        for i in range(loops):
            self.CopyIn(self.ubProcessNum, i * self.ubProcessNum)
            derived.Compute(self.ubProcessNum)
            self.CopyOut(self.ubProcessNum, i * self.ubProcessNum)
        if tail > 0:
            self.CopyIn(tail, loops * self.ubProcessNum)
            derived.Compute(tail)
            self.CopyOut(tail, loops * self.ubProcessNum)


# cast_generic.h

class CastGeneric(CastBase):
    def __init__(self, T, U, x, y, workspace, tiling):
        super().__init__(T, U)
        self.InitParams(tiling)
        self.SetGmAddr(x, y, workspace)
        self.InitIoBuffers()
        if T == "half" and U in ("int8", "uint8", "int16"):
            self.scratchI32Buf = aj.TBuf(aj.TPosition.VECCALC)
            self.pipe.InitBuffer(self.scratchI32Buf, self.ubProcessNum * 4)
        if T == "int32" and U in ("half", "bool"):
            aj.SetDeqScale(np.float16(1.0))

    def Process(self):
        self.RunProcess(self)

    def Compute(self, length):
        if self.T == "float":
            self.ComputeFromFP32(length)
        elif self.T == "half":
            self.ComputeFromFP16(length)
        elif self.T == "int32":
            self.ComputeFromInt32(length)
        else:
            raise NotImplementedError("CastGeneric<int64_t, U>: the tiling gives int64 inputs key 1 (not ported)")

    def _start(self):
        self.xLocal = self.xQue.DeQue(self.T, self.xLocal)
        self.yLocal = self.yQue.AllocTensor("int8" if self.U == "bool" else self.U)
        return self.xLocal, self.yLocal

    def _finish(self):
        self.xQue.FreeTensor(self.xLocal)
        self.yQue.EnQue("int8" if self.U == "bool" else self.U, self.yLocal)

    def ComputeFromFP32(self, length):
        xLocal, yLocal = self._start()
        U = self.U
        if U == "half":
            aj.Cast(yLocal, xLocal, aj.RoundMode.CAST_NONE, length)
        elif U == "int32":
            aj.Cast(yLocal, xLocal, aj.RoundMode.CAST_TRUNC, length)
        elif U == "int16":
            aj.Cast(xLocal.ReinterpretCast("int32"), xLocal, aj.RoundMode.CAST_TRUNC, length)
            PackInt32ToInt16(yLocal, xLocal.ReinterpretCast("int32"), length)
        elif U in ("int8", "uint8"):
            aj.Cast(xLocal.ReinterpretCast("int32"), xLocal, aj.RoundMode.CAST_TRUNC, length)
            PackInt32ToByte(U, yLocal, xLocal.ReinterpretCast("int32"), yLocal.ReinterpretCast("int32"), length,
                            None)
        elif U == "bool":
            aj.Cast(xLocal.ReinterpretCast("half"), xLocal, aj.RoundMode.CAST_NONE, length)
            CastToBool(yLocal, xLocal.ReinterpretCast("half"), length)
        self._finish()

    def ComputeFromFP16(self, length):
        xLocal, yLocal = self._start()
        U = self.U
        if U == "float":
            aj.Cast(yLocal, xLocal, aj.RoundMode.CAST_NONE, length)
        elif U == "int32":
            aj.Cast(yLocal, xLocal, aj.RoundMode.CAST_TRUNC, length)
        elif U == "int16":
            i32Scratch = self.scratchI32Buf.Get("int32")
            aj.Cast(i32Scratch, xLocal, aj.RoundMode.CAST_TRUNC, length)
            PackInt32ToInt16(yLocal, i32Scratch, length)
        elif U in ("int8", "uint8"):
            i32Scratch = self.scratchI32Buf.Get("int32")
            aj.Cast(i32Scratch, xLocal, aj.RoundMode.CAST_TRUNC, length)
            PackInt32ToByte(U, yLocal, i32Scratch, yLocal.ReinterpretCast("int32"), length, xLocal)
        elif U == "bool":
            CastToBool(yLocal, xLocal, length)
        self._finish()

    def ComputeFromInt32(self, length):
        xLocal, yLocal = self._start()
        U = self.U
        if U in ("float", "half"):
            aj.Cast(yLocal, xLocal, aj.RoundMode.CAST_NONE, length)
        elif U == "int16":
            PackInt32ToInt16(yLocal, xLocal, length)
        elif U in ("int8", "uint8"):
            PackInt32ToByte(U, yLocal, xLocal, yLocal.ReinterpretCast("int32"), length, None)
        elif U == "bool":
            aj.Cast(xLocal.ReinterpretCast("half"), xLocal, aj.RoundMode.CAST_NONE, length)
            CastToBool(yLocal, xLocal.ReinterpretCast("half"), length)
        self._finish()


aj.REGISTER_TILING_DEFAULT(CastTilingData)


def cast_v3(x, y, workspace, tiling, DTYPE_X, DTYPE_Y):
    """The kernel entry; DTYPE_X / DTYPE_Y are the build's types (macros in C++, arguments here)."""
    if workspace is None:
        return
    user = aj.GetUserWorkspace(workspace)
    if user is None:
        return
    tiling_data = aj.GET_TILING_DATA_WITH_STRUCT(CastTilingData, tiling)
    if "bfloat16" in (DTYPE_X, DTYPE_Y) or int(tiling_data.tilingKey) in (1, 4, 5):
        raise NotImplementedError(f"CastV3 tiling key {int(tiling_data.tilingKey)} ({DTYPE_X} -> {DTYPE_Y}): "
                                  "CastBf16 / CastCopy / CastExpand are not ported")
    op = CastGeneric(DTYPE_X, DTYPE_Y, x, y, workspace, tiling_data)
    op.Process()


def run_cast(device, x, y_dtype):
    x_dtype = {np.dtype(np.float32): "float", np.dtype(np.float16): "half", np.dtype(np.int32): "int32"}[x.dtype]
    n = x.size
    block_dim, tiling_bytes = tiling(device, n, x_dtype, y_dtype)
    pad = BLOCK_SIZE // x.itemsize
    gm_x = np.zeros(n + pad, x.dtype)
    gm_x[:n] = x
    y = np.zeros(n, _NP[y_dtype])
    workspace = np.zeros(aj.GetLibApiWorkSpaceSize(device) + 2 * 1024, np.uint8)
    aj.launch(cast_v3, block_dim, device, gm_x, y.view(np.int8) if y_dtype == "bool" else y, workspace,
              tiling_bytes, x_dtype, y_dtype)
    return y


def reference(x, y_dtype):
    """C++'s conversions: float / half truncated toward zero, then the low 16 or 8 bits; bool: x != 0."""
    if y_dtype == "bool":
        return x != 0
    if y_dtype in ("float", "half"):
        return x.astype(_NP[y_dtype])
    v = np.trunc(x.astype(np.float64)).astype(np.int64) if x.dtype.kind == "f" else x.astype(np.int64)
    return v.astype(_NP[y_dtype])                        # numpy's int64 -> narrower: the low bits


def _make_inputs(x_dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if x_dtype == "int32":
            x = rng.integers(-2**31, 2**31, size, dtype=np.int64).astype(np.int32)
            x[::7] = rng.integers(-300, 300, x[::7].size)
        else:
            x = (rng.standard_normal(size) * rng.choice([0.5, 30.0, 200.0], size)).astype(np.float16)
            x[::11] = 0
            x[5::13] = -x[5::13]
            x[3::17] = np.float16(-0.0)
            x[1::19] = np.float16(0.4)
        return {"x": x}
    return make_inputs


def _run(y_dtype):
    def run(device, inputs):
        return {"y": run_cast(device, inputs["x"], y_dtype)}
    return run


def _expected(y_dtype):
    def expected(device, inputs):
        return {"y": reference(inputs["x"], y_dtype)}
    return expected


_SOURCE = "hicann/ops-math@c4193324 experimental/math/cast_v3/op_kernel/cast_generic.h"
KERNELS = [
    KernelSpec("cast_v3", "CastV3 int32 -> int16: the low halves by a counter-mode GatherMask (pattern 1, reduceMode "
               "true, mask = 2 x count, repeatTimes 0: the 310P's total-count configuration); DataCopy of whole "
               "blocks and a GM SetValue tail; 8 cores", _make_inputs("int32"), _run("int16"), _expected("int16"),
               default_size=100003, devices=DEVICES, source=_SOURCE),
    KernelSpec("cast_v3_half_uint8", "CastV3 half -> uint8: Cast CAST_TRUNC to int32, counter-mode And<int16_t, "
               "false> with a 0x00FF block at src1 stride 0, Casts through float and half", _make_inputs("half"),
               _run("uint8"), _expected("uint8"), default_size=100003, devices=DEVICES, source=_SOURCE),
    KernelSpec("cast_v3_half_int8", "CastV3 half -> int8: as uint8 with Adds +128 / -128 around the And",
               _make_inputs("half"), _run("int8"), _expected("int8"), default_size=100003, devices=DEVICES,
               source=_SOURCE),
    KernelSpec("cast_v3_half_bool", "CastV3 half -> bool: CompareScalar NE 0 over 128-element rounding into the "
               "output tile, Duplicate(1), Select against 0, Cast half -> int8", _make_inputs("half"),
               _run("bool"), _expected("bool"), default_size=100003, devices=DEVICES, source=_SOURCE),
]
