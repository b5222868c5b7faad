"""LogAddExp from the CANN math operators: out = max(x, y) + ln(1 + exp(-|x - y|)), element by element with NumPy
broadcasting, over float, half and bfloat16 (the 16-bit types in float).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/log_add_exp:
- op_kernel/log_add_exp.h (`NsLogAddExp::LogAddExp<T_IN, T_COMPUTE>`: cores of blockFactor output elements; depth-2
  VECIN queues for x and y and a VECOUT queue of the tile (ubFactor rounded to 32 bytes), three float TBufs; per tile
  CopyIn, Compute, CopyOut by DataCopyPad with DataCopyParams. CopyIn has three paths: no broadcast, one
  DataCopyPad each with the older structs' brace list {false, 0, 0, 0}; a (1, N) tensor against an (M, N) one
  ("useBinaryDoubling", whose workspace expansion the original has emptied): the (M, N) tile by one DataCopyPad, the
  (1, N) row by DataCopyPads of its wrapped pieces into successive sub-tensors of the tile; any other broadcast: per
  element, the strides' offsets computed on the scalar unit and each value moved by GlobalTensor GetValue and
  LocalTensor SetValue. Compute, float: Max, Sub, Abs, Muls -1, Exp, Adds 1, Ln, Add into the output tile, then a
  scalar loop that writes max(x, y) where it is +-inf and the sum NaN (x = y = +-inf); half / bfloat16: Cast
  CAST_NONE of both inputs, the same chain into a float TBuf, Cast CAST_ROUND into the output tile, no fix loop);
- op_kernel/log_add_exp.cpp (the entry, float / half / bfloat16 by the tiling key) and op_host/log_add_exp_tiling.cpp
  (`LogAddExpTilingFunc`: ubFactor = UB / 4 / (8 float, 10 half / bfloat16) rounded down to 8 / 16 elements;
  blockFactor = ceil(total / cores), rounded up to whole rows of N on the (1, N) path; cores = ceil(total /
  blockFactor); right-aligned shapes and strides, 0 along a broadcast dimension).

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original). (1) The float tiling counts 8
tile-sized float buffers where Init places nine (six queue buffers and three TBufs: 221184 bytes at ubFactor 6144,
past the A2 / A3's 196608): the emulator refuses the last InitBuffer (OutOfBoundsError; `original_ub=True` shows
it), so the port's float tiling divides by 9. (2) The scalar unit's accesses are ordered by nothing but program
order in the original. The float fix loop reads the Max and Add results after the vector writes them: a V -> S RAW
the sanitizer reports on every element (`original_sync=True`). The loop's SetValues before the copy-out, and the
general path's SetValues before the vector reads, are ordered by the queues' EnQue / DeQue hand-offs in SPEC-2
10.4's reading, but not by the flags those hand-offs are on the device (V_MTE3, MTE2_V: the sanitizer's "device-
sync" mode reports both). The port sets FetchEventID'd V_S pairs before the fix loop, S_MTE3 before the float copy-
out and S_V after the general path's SetValue loop. (3) The (1, N) path copies the row's pieces to UB addresses
filled * sizeof (T) bytes in: DataCopyPad needs 32-byte aligned UB addresses, so N must be a multiple of 8 (float)
or 16 (half, bfloat16) there, as on the device; other N are an AlignmentError (tested), not patched.

Devices: the original is built for the ascend910b (A2 / A3); the port runs on the A3 and A2.

Fidelity: MODELLED (Exp, Ln: SPEC-2 D37), the rest BIT-EXACT (Max, Sub, Abs, Muls, Adds, Add, Cast, DataCopyPad):
the model replays the float chain with exp and ln taken in float64 and rounded once to float32 (as the emulator's
exact-then-RNE; a float64 evaluation can differ only within 2**-29 relative of a midpoint), Max by D41 (a NaN operand
gives NaN), CAST_ROUND as round-half-away, and is checked bit for bit. half / bfloat16 keep NaN for x = y = +-inf (no
fix loop), float gives +-inf.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
BUFFER_NUM = 2
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("atlas-a3", "atlas-a2")


def _ceil_div(a, b):
    return -(-a // b)


def tiling(device, x_shape, y_shape, dtype, original_ub=False):
    """LogAddExpTilingFunc: (used cores, tiling data)."""
    dim_x, dim_y = len(x_shape), len(y_shape)
    max_dim = max(dim_x, dim_y)
    xs = [1] * (max_dim - dim_x) + list(x_shape)
    ys = [1] * (max_dim - dim_y) + list(y_shape)
    out_shape, need_broadcast = [], False
    for a, b in zip(xs, ys):
        if a == b:
            out_shape.append(a)
        elif a == 1 or b == 1:
            out_shape.append(max(a, b))
            need_broadcast = True
        else:
            raise ValueError(f"shapes {x_shape} and {y_shape} do not broadcast")
    total = int(np.prod(out_shape))
    ub = aj.get_device(device).ub_bytes
    buffer_num = 8 if dtype == "float" else 10
    if dtype == "float" and not original_ub:
        buffer_num = 9                                  # deviation 1: the nine float tiles Init places
    align = 8 if dtype == "float" else 16
    ub_factor = ub // 4 // buffer_num // align * align or align
    use_bd, inner, expand_rows, src_is_x = False, 0, 0, 1
    if need_broadcast and max_dim == 2:
        if xs[0] == 1 and ys[0] > 1 and xs[1] == ys[1]:
            use_bd, inner, expand_rows, src_is_x = True, out_shape[1], out_shape[0], 1
        elif ys[0] == 1 and xs[0] > 1 and xs[1] == ys[1]:
            use_bd, inner, expand_rows, src_is_x = True, out_shape[1], out_shape[0], 0
    block_factor = _ceil_div(total, CORE_NUM)
    if use_bd and inner > 0:
        block_factor = _ceil_div(block_factor, inner) * inner
    used = _ceil_div(total, block_factor)
    t = dict(totalLength=total, blockFactor=block_factor, ubFactor=ub_factor, needBroadcast=int(need_broadcast),
             dimNum=max_dim, useBinaryDoubling=int(use_bd), expandSrcIsX=src_is_x, innerSize=inner,
             expandRows=expand_rows, xStrides=[0] * 8, yStrides=[0] * 8, outStrides=[0] * 8)
    if need_broadcast:
        x_stride = y_stride = out_stride = 1
        for i in range(max_dim - 1, -1, -1):
            t["outStrides"][i] = out_stride
            out_stride *= out_shape[i]
            if xs[i] == 1 and out_shape[i] > 1:
                t["xStrides"][i] = 0
            else:
                t["xStrides"][i] = x_stride
                x_stride *= xs[i]
            if ys[i] == 1 and out_shape[i] > 1:
                t["yStrides"][i] = 0
            else:
                t["yStrides"][i] = y_stride
                y_stride *= ys[i]
    return used, t


class LogAddExp:
    """`LogAddExp<T_IN, T_COMPUTE>` (T_COMPUTE is float)."""

    def __init__(self, T, original_sync=False):
        self.T, self.original_sync = T, original_sync
        self.pipe = aj.TPipe()                         # a member: constructed with the op, before Init

    def Init(self, x, y, out, workspace, tilingData):
        T = self.T
        t = self.tilingData_ = tilingData
        blockIdx = aj.GetBlockIdx()
        remainderLength = t["totalLength"] - t["blockFactor"] * blockIdx
        self.blockLength_ = min(remainderLength, t["blockFactor"])
        self.ubLength_ = t["ubFactor"]
        self.inputGMX, self.inputGMY, self.outputGM = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor(T)
        if t["useBinaryDoubling"]:
            coreOffset = t["blockFactor"] * blockIdx
            if t["expandSrcIsX"]:                      # x is the (1, N) row, y the (M, N) tensor
                self.inputGMX.SetGlobalBuffer(x, t["innerSize"])
                self.inputGMY.SetGlobalBuffer(y[coreOffset:], self.blockLength_)
            else:
                self.inputGMX.SetGlobalBuffer(x[coreOffset:], self.blockLength_)
                self.inputGMY.SetGlobalBuffer(y, t["innerSize"])
        elif t["needBroadcast"] == 0:
            self.inputGMX.SetGlobalBuffer(x[t["blockFactor"] * blockIdx:], self.blockLength_)
            self.inputGMY.SetGlobalBuffer(y[t["blockFactor"] * blockIdx:], self.blockLength_)
        else:                                           # the general path: whole tensors, offsets per element
            self.inputGMX.SetGlobalBuffer(x)
            self.inputGMY.SetGlobalBuffer(y)
        self.outputGM.SetGlobalBuffer(out[t["blockFactor"] * blockIdx:], self.blockLength_)
        alignIn, alignCompute = 32 // TYPE_SIZE[T], 8
        alignedUbIn = _ceil_div(self.ubLength_, alignIn) * alignIn
        alignedUbCompute = _ceil_div(self.ubLength_, alignCompute) * alignCompute
        self.inputQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.inputQueueY = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outputQueue = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.tmpBuf1, self.tmpBuf2, self.tmpBuf3 = (aj.TBuf(aj.QuePosition.VECCALC) for _ in range(3))
        for que in (self.inputQueueX, self.inputQueueY, self.outputQueue):
            self.pipe.InitBuffer(que, BUFFER_NUM, alignedUbIn * TYPE_SIZE[T])
        for buf in (self.tmpBuf1, self.tmpBuf2, self.tmpBuf3):
            self.pipe.InitBuffer(buf, alignedUbCompute * 4)

    def ComputeOffset(self, linearIdx, strides, dimNum):
        offset, remaining = 0, linearIdx
        for i in range(dimNum):
            if i == dimNum - 1:
                dimIdx = remaining
            else:
                dimStride = self.tilingData_["outStrides"][i]
                dimIdx, remaining = divmod(remaining, dimStride)
            offset += dimIdx * strides[i]
        return offset

    def _flag(self, event):
        e = aj.GetTPipePtr().FetchEventID(event)
        aj.SetFlag(e, event=event)
        aj.WaitFlag(e, event=event)

    def CopyIn(self, progress, currentNum):
        T, t, size = self.T, self.tilingData_, TYPE_SIZE[self.T]
        xLocal = self.inputQueueX.AllocTensor(T)
        yLocal = self.inputQueueY.AllocTensor(T)
        if t["useBinaryDoubling"]:
            offset = progress * self.ubLength_
            N = t["innerSize"]
            globalStart = t["blockFactor"] * aj.GetBlockIdx() + offset
            modStart = globalStart % N
            copyParams = aj.DataCopyParams()
            copyParams.blockCount = 1
            copyParams.srcStride = 0
            copyParams.dstStride = 0
            copyParams.blockLen = currentNum * size
            if t["expandSrcIsX"]:
                aj.DataCopyPad(yLocal, self.inputGMY[offset], copyParams, (False, 0, 0, 0))
            else:
                aj.DataCopyPad(xLocal, self.inputGMX[offset], copyParams, (False, 0, 0, 0))
            bcastLocal = xLocal if t["expandSrcIsX"] else yLocal
            bcastGM = self.inputGMX if t["expandSrcIsX"] else self.inputGMY
            chunk = min(N - modStart, currentNum)       # the row from modStart, then whole rows, then a piece
            copyParams.blockLen = chunk * size
            aj.DataCopyPad(bcastLocal, bcastGM[modStart], copyParams, (False, 0, 0, 0))
            filled = chunk
            while filled + N <= currentNum:
                copyParams.blockLen = N * size
                aj.DataCopyPad(bcastLocal[filled], bcastGM[0], copyParams, (False, 0, 0, 0))
                filled += N
            if filled < currentNum:
                copyParams.blockLen = (currentNum - filled) * size
                aj.DataCopyPad(bcastLocal[filled], bcastGM[0], copyParams, (False, 0, 0, 0))
        elif t["needBroadcast"] == 0:
            offset = progress * self.ubLength_
            copyParams = aj.DataCopyParams()
            copyParams.blockCount = 1
            copyParams.blockLen = currentNum * size
            copyParams.srcStride = 0
            copyParams.dstStride = 0
            aj.DataCopyPad(xLocal, self.inputGMX[offset], copyParams, (False, 0, 0, 0))
            aj.DataCopyPad(yLocal, self.inputGMY[offset], copyParams, (False, 0, 0, 0))
        else:
            blockOffset = t["blockFactor"] * aj.GetBlockIdx()
            tileOffset = progress * self.ubLength_
            for i in range(currentNum):
                globalIdx = blockOffset + tileOffset + i
                xOffset = self.ComputeOffset(globalIdx, t["xStrides"], t["dimNum"])
                yOffset = self.ComputeOffset(globalIdx, t["yStrides"], t["dimNum"])
                xLocal.SetValue(i, self.inputGMX.GetValue(xOffset))
                yLocal.SetValue(i, self.inputGMY.GetValue(yOffset))
            if not self.original_sync:                  # deviation 2: the SetValues before the vector reads
                self._flag(aj.HardEvent.S_V)
        self.inputQueueX.EnQue(xLocal)
        self.inputQueueY.EnQue(yLocal)

    def CopyOut(self, progress, currentNum):
        outLocal = self.outputQueue.DeQue(self.T)
        offset = progress * self.ubLength_
        copyParams = aj.DataCopyParams()
        copyParams.blockCount = 1
        copyParams.blockLen = currentNum * TYPE_SIZE[self.T]
        copyParams.srcStride = 0
        copyParams.dstStride = 0
        if self.T == "float" and not self.original_sync:   # deviation 2: the fix loop's SetValues
            self._flag(aj.HardEvent.S_MTE3)
        aj.DataCopyPad(self.outputGM[offset], outLocal, copyParams)
        self.outputQueue.FreeTensor(outLocal)

    def Compute(self, currentNum):
        T, n = self.T, currentNum
        xLocal = self.inputQueueX.DeQue(T)
        yLocal = self.inputQueueY.DeQue(T)
        outLocal = self.outputQueue.AllocTensor(T)
        tmp1 = self.tmpBuf1.Get("float")
        tmp2 = self.tmpBuf2.Get("float")
        if T == "float":
            aj.Max(tmp2, xLocal, yLocal, n)
            aj.Sub(tmp1, xLocal, yLocal, n)
            aj.Abs(tmp1, tmp1, n)
            aj.Muls(tmp1, tmp1, np.float32(-1.0), n)
            aj.Exp(tmp1, tmp1, n)
            aj.Adds(tmp1, tmp1, np.float32(1.0), n)
            aj.Ln(tmp1, tmp1, n)
            aj.Add(outLocal, tmp2, tmp1, n)
            if not self.original_sync:                  # deviation 2: the vector results before the scalar reads
                self._flag(aj.HardEvent.V_S)
            for i in range(n):                           # inf + NaN = inf when both inputs are the same inf
                maxVal = tmp2.GetValue(i)
                outVal = outLocal.GetValue(i)
                if np.isinf(maxVal) and outVal != outVal:
                    outLocal.SetValue(i, maxVal)
        else:
            tmp3 = self.tmpBuf3.Get("float")
            aj.Cast(tmp1, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.Cast(tmp3, yLocal, aj.RoundMode.CAST_NONE, n)
            aj.Max(tmp2, tmp1, tmp3, n)
            aj.Sub(tmp1, tmp1, tmp3, n)
            aj.Abs(tmp1, tmp1, n)
            aj.Muls(tmp1, tmp1, np.float32(-1.0), n)
            aj.Exp(tmp1, tmp1, n)
            aj.Adds(tmp1, tmp1, np.float32(1.0), n)
            aj.Ln(tmp1, tmp1, n)
            aj.Add(tmp2, tmp2, tmp1, n)
            aj.Cast(outLocal, tmp2, aj.RoundMode.CAST_ROUND, n)
        self.outputQueue.EnQue(outLocal)
        self.inputQueueX.FreeTensor(xLocal)
        self.inputQueueY.FreeTensor(yLocal)

    def Process(self):
        loopCount = _ceil_div(self.blockLength_, self.ubLength_)
        for i in range(loopCount):
            currentNum = self.blockLength_ - self.ubLength_ * i if i == loopCount - 1 else self.ubLength_
            self.CopyIn(i, currentNum)
            self.Compute(currentNum)
            self.CopyOut(i, currentNum)


def log_add_exp(x, y, out, workspace, tilingData, dtype, original_sync=False):
    """The kernel entry (log_add_exp.cpp)."""
    op = LogAddExp(dtype, original_sync)
    op.Init(x, y, out, workspace, tilingData)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_log_add_exp(device, x, y, original_sync=False, original_ub=False):
    dtype = _dtype_name(x)
    used, t = tiling(device, x.shape, y.shape, dtype, original_ub)
    out = np.zeros(np.broadcast_shapes(x.shape, y.shape), x.dtype)
    aj.launch(log_add_exp, used, device, np.ascontiguousarray(x).reshape(-1), np.ascontiguousarray(y).reshape(-1),
              out.reshape(-1), None, t, dtype, original_sync)
    return out


def _round_away(y, np_t):
    """float32 -> half / bfloat16 with ties away from zero (CAST_ROUND; overflow to +-inf, D45)."""
    with np.errstate(invalid="ignore", over="ignore"):
        y64 = y.astype(np.float64)
        near = y.astype(np_t)                            # RNE: differs from ROUND only at a tie
        near64 = near.astype(np.float64)
        bits = near.view(np.uint16).astype(np.int32)
        other = np.where(np.abs(near64) < np.abs(y64), bits + 1, bits - 1).astype(np.uint16).view(np_t)
        other64 = other.astype(np.float64)
        tie = (np.abs(other64 - y64) == np.abs(near64 - y64)) & (y64 != near64)
        away = np.where(np.abs(other64) > np.abs(near64), other, near)
        return np.where(tie, away, near).astype(np_t)


def log_add_exp_model(x, y):
    """The kernel's float chain in numpy (exp and ln from float64, rounded once to float32)."""
    dtype = _dtype_name(x)
    xf, yf = np.broadcast_arrays(x.astype(np.float32), y.astype(np.float32))
    with np.errstate(all="ignore"):
        mx = np.maximum(xf, yf)                          # NaN if either is (D41)
        both_zero = (xf == 0) & (yf == 0)                # max(-0, +0) = +0, max(-0, -0) = -0 (D41)
        mx = np.where(both_zero, np.where(np.signbit(xf) & np.signbit(yf), np.float32(-0.0), np.float32(0.0)), mx)
        mx = mx.astype(np.float32)
        d = np.abs((xf - yf).astype(np.float32))
        e = np.exp((-d).astype(np.float64)).astype(np.float32)
        lg = np.log((e + np.float32(1.0)).astype(np.float32).astype(np.float64)).astype(np.float32)
        out = (mx + lg).astype(np.float32)
        if dtype == "float":
            fix = np.isinf(mx) & np.isnan(out)
            return np.where(fix, mx, out).astype(np.float32)
        return _round_away(out, _NP[dtype])


ROW_N = 48                         # the (1, N) entries' row: 192 / 96 bytes, whole 32-byte blocks


def _make_inputs(dtype, layout):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if layout == "same":
            xs, ys = (size,), (size,)
        elif layout == "row":
            xs, ys = (size // ROW_N, ROW_N), (1, ROW_N)
        else:
            xs, ys = (size // ROW_N, 1), (1, ROW_N)
        x = rng.standard_normal(xs) * 4
        y = rng.standard_normal(ys) * 4
        x.reshape(-1)[::53] = y.reshape(-1)[0]          # equal operands: ln 2
        return {"x": x.astype(_NP[dtype]), "y": y.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    return {"out": run_log_add_exp(device, inputs["x"], inputs["y"]).reshape(-1)}


def _expected(device, inputs):
    return {"out": log_add_exp_model(inputs["x"], inputs["y"]).reshape(-1)}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/log_add_exp/op_kernel/log_add_exp.h"
_ROWS = dict(size_rule=f"whole rows of {ROW_N}", size_ok=lambda n: n > 0 and n % ROW_N == 0)
KERNELS = [
    KernelSpec(f"log_add_exp{suffix}", description, _make_inputs(dtype, layout), _run, _expected,
               default_size=size, devices=DEVICES, source=_SOURCE, **(_ROWS if layout != "same" else {}))
    for suffix, dtype, layout, size, description in (
        ("", "float", "same", 100003, "LogAddExp over floats (DataCopyPad with the older structs; Max, Sub, Abs, "
         "Muls, Exp, Adds, Ln, Add; the scalar unit's +-inf fix loop behind a V_S flag)"),
        ("_half", "half", "same", 50003, "LogAddExp over halves (Casts CAST_NONE to float, the chain, Cast "
         "CAST_ROUND)"),
        ("_bf16_row", "bfloat16", "row", 1001 * ROW_N, "LogAddExp of a (M, 48) bfloat16 tensor and a (1, 48) row "
         "(the row's wrapped pieces DataCopyPad'ed into successive sub-tensors of the tile)"),
        ("_outer", "float", "outer", 301 * ROW_N, "LogAddExp of (M, 1) and (1, 48) floats (the general broadcast: "
         "per element strided offsets, GM GetValue, UB SetValue)"))
]
