"""ReluV3 from the CANN NN operators: y = max(x, 0) and a bit mask (x > 0), one bit an element LSB first, over half,
float and int32 (the mask of int32 from its float conversion).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/activation/relu_v3:
- op_kernel/relu_v3.h (`relu_v3<T, U, V>` with the `RELU_V3_SETUP` macro and the per-type `ReluV3<T, U, V>`): the
  elements in 512-element blocks, core k of D taking blocks [blocks * k / D, blocks * (k + 1) / D) (the last core
  ending at the size); a depth-1 VECIN queue for x and VECOUT queues for y and the mask, two buffers of 30 KiB each;
  per tile of at most 30 KiB of U: DataCopy of the count rounded up to 32 bytes in; half: Relu, float: Maxs 0,
  int32: Maxs 0 then Cast CAST_RINT to float in place (V = float); then Duplicate zeros of V over the mask buffer and
  a tensor-tensor Compare GT of x against those zeros into the same buffer's first bytes, over the count rounded up
  to a 256-byte repeat; DataCopy of y (count rounded up to 32 bytes) and of the mask bytes (count / 8 rounded up to
  32) out, the mask at GM byte i / 8;
- op_kernel/relu_v3.cpp (the entry: KERNEL_TYPE_AIV_ONLY, GET_TILING_DATA of the one-int struct);
- op_host/relu_v3_tiling.cpp (the last dimension a multiple of 8; cores: 1 below 32 KiB of data, half the AIV count
  below 4 MiB, all of them above).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original: 4 cores between 32 KiB and 4 MiB).
(1) The Compare writes its bits into the first bytes of the buffer whose zeros it reads as src1: repeat 0's
destination bytes lie inside repeat 0's source bytes, a partial overlap the general overlap rule forbids (SPEC 8.2,
SPEC-2 D34 with the selection mask as a source; documented-undefined, SPEC D10): the emulator refuses it with
OverlapError (ORIGINAL_COMPARE = True runs it). The port keeps the tensor-tensor Compare and reads its zeros from a
256-byte TBuf filled once by Duplicate, in the high-dim form with src1RepStride 0 (one 256-byte repeat of zeros for
every repeat; the same count, the same bits); the Duplicate over the mask buffer goes. (2) The last tile's Compare
runs over lanes past the copy and the copy-out moves y lanes past Relu / Maxs and mask bytes past the Compare's (its
count rounded to 32 bytes): on a buffer's first use those are uninitialised (the sanitizer's init report; they land
in GM past the outputs, never read). The port zeroes them first by Duplicates (ORIGINAL_TAIL = True leaves them). The
GM arrays are padded by 64 bytes past each output and the input, as the original's rounded copies need.
Not ported: the int8 / uint8 and bfloat16 forms: besides the same Compare they Cast in place between types of
different sizes (refused, SPEC-2 D34) and Compare into the buffer of their own src0.

Devices: the operator's config is the ascend910b (A2; the A3 shares its kernels): the port runs on the A3 and A2.

Fidelity: BIT-EXACT (Relu, Maxs, Cast, Duplicate, Compare, DataCopy; SPEC-2 0.3). Relu / Maxs keep NaN and give +0
for -0 (D41); NaN > 0 is false (D43): the mask bit 0. int32 converts to float RNE, which keeps the sign.
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
MTE_BLOCK_SIZE = 512
GM_PAD_BYTES = 64
TYPE_SIZE = {"float": 4, "half": 2, "int32": 4}
_NP = {"float": np.float32, "half": np.float16, "int32": np.int32}
_V = {"float": "float", "half": "half", "int32": "float"}
DEVICES = ("atlas-a3", "atlas-a2")
ORIGINAL_COMPARE = False           # True: the Compare's bits over the zeros it reads (partial overlap: refused)
ORIGINAL_TAIL = False              # True: the lanes past the copy / the results read as the UB holds them


class ReluV3TilingData(ctypes.Structure):
    _fields_ = [("size", ctypes.c_int)]


def tiling(device, shape, dtype):
    """TilingFunc: (block dim, the tiling bytes). The last dimension must be a multiple of 8."""
    if len(shape) > 0 and shape[-1] % 8 != 0:
        raise ValueError("the last dim of `x` must be multiple of 8.")
    size = int(np.prod(shape))
    data_size = size * TYPE_SIZE[dtype]
    block_dim = CORE_NUM
    if data_size < 1 << 15:
        block_dim = 1
    elif data_size < 1 << 22:
        block_dim //= 2
    return block_dim, np.frombuffer(bytes(ReluV3TilingData(size=size)), np.uint8).copy()


def _ceil_round(x, y):
    return -(-x // y) * y


def relu_v3_tile(T, y, mask, x, n, zeros):
    """`ReluV3<T, U, V>` for half / float / int32 (U = T): y, then the mask bits of x > 0 over n rounded to a repeat."""
    V = _V[T]
    L = 256 // TYPE_SIZE[V]
    count = _ceil_round(n, L)
    if T == "half":
        aj.Relu(y, x, n)
    else:
        aj.Maxs(y, x, _NP[T](0), n)
    if T == "int32":
        x = x.ReinterpretCast("float")
        aj.Cast(x, x.ReinterpretCast("int32"), aj.RoundMode.CAST_RINT, n)
    if ORIGINAL_COMPARE:
        mask_V = mask.ReinterpretCast(V)
        aj.Duplicate(mask_V, _NP[V](0), n)
        aj.Compare(mask, x, mask_V, aj.CMPMODE.GT, count)
    else:
        # deviation (1): the zeros from their own 256-byte TBuf, every repeat reading it (src1RepStride 0)
        aj.Compare(mask, x, zeros, aj.CMPMODE.GT, L, count // L, aj.BinaryRepeatParams(1, 1, 1, 8, 8, 0))


def relu_v3(x, y, mask, workspace, tiling_bytes, T):
    """The kernel entry (relu_v3.cpp) with `relu_v3<T, U, V>` and RELU_V3_SETUP inlined."""
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    tiling = aj.GET_TILING_DATA(tiling_bytes)
    size = TYPE_SIZE[T]
    block_index, block_dim = aj.GetBlockIdx(), aj.GetBlockNum()
    compute_blocks = -(-tiling.size // MTE_BLOCK_SIZE)
    compute_start = compute_blocks * block_index // block_dim * MTE_BLOCK_SIZE
    compute_end = min(compute_blocks * (block_index + 1) // block_dim * MTE_BLOCK_SIZE, tiling.size)
    x_global, y_global, mask_global = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor("uint8")
    x_global.SetGlobalBuffer(x)
    y_global.SetGlobalBuffer(y)
    mask_global.SetGlobalBuffer(mask)
    t_pipe = aj.TPipe()
    x_t_que = aj.TQue(aj.TPosition.VECIN, 1)
    y_t_que, mask_t_que = aj.TQue(aj.TPosition.VECOUT, 1), aj.TQue(aj.TPosition.VECOUT, 1)
    MAX_TILE_SIZE = (30 << 10) // size
    t_pipe.InitBuffer(x_t_que, 2, MAX_TILE_SIZE * size)
    t_pipe.InitBuffer(y_t_que, 2, MAX_TILE_SIZE * size)
    t_pipe.InitBuffer(mask_t_que, 2, MAX_TILE_SIZE * size)
    zeros = None
    if not ORIGINAL_COMPARE:
        zero_buf = aj.TBuf(aj.TPosition.VECCALC)
        t_pipe.InitBuffer(zero_buf, 256)
        zeros = zero_buf.Get(_V[T])
        aj.Duplicate(zeros, _NP[_V[T]](0), 256 // TYPE_SIZE[_V[T]])
    L = 256 // TYPE_SIZE[_V[T]]
    for i in range(compute_start, compute_end, MAX_TILE_SIZE):
        n = min(compute_end - i, MAX_TILE_SIZE)
        xl = x_t_que.AllocTensor(T)
        tile_size = _ceil_round(n, 32 // size) if n < MAX_TILE_SIZE else n
        if not ORIGINAL_TAIL and _ceil_round(n, L) > tile_size:
            # deviation (2): zeros over the lanes the rounded Compare reads past the copy (no MTE2 overlap)
            aj.Duplicate(xl[tile_size:], _NP[T](0), _ceil_round(n, L) - tile_size)
        aj.DataCopy(xl, x_global[i], tile_size)
        x_t_que.EnQue(xl)

        xl = x_t_que.DeQue(T)
        yl = y_t_que.AllocTensor(T)
        ml = mask_t_que.AllocTensor("uint8")
        if not ORIGINAL_TAIL and n < MAX_TILE_SIZE:
            # deviation (2): zeros over the y lanes and mask bytes the rounded copy-out moves past the results
            head = n // (32 // size) * (32 // size)
            if _ceil_round(n, 32 // size) > head:
                aj.Duplicate(yl[head:], _NP[T](0), 32 // size)
            bits = _ceil_round(n, L) // 8
            out_bytes = _ceil_round(-(-n // 8), 32)
            if out_bytes > bits // 32 * 32:
                start = bits // 32 * 32
                aj.Duplicate(ml.ReinterpretCast("int16")[start // 2:], np.int16(0), (out_bytes - start) // 2)
        relu_v3_tile(T, yl, ml, xl, n, zeros)
        x_t_que.FreeTensor(xl)
        y_t_que.EnQue(yl)
        mask_t_que.EnQue(ml)

        yl = y_t_que.DeQue(T)
        ml = mask_t_que.DeQue("uint8")
        if n < MAX_TILE_SIZE:
            y_tile_size = _ceil_round(n, 32 // size)
            mask_tile_size = _ceil_round(-(-n // 8), 32)
        else:
            y_tile_size, mask_tile_size = n, n // 8
        aj.DataCopy(y_global[i], yl, y_tile_size)
        aj.DataCopy(mask_global[i // 8], ml, mask_tile_size)
        mask_t_que.FreeTensor(ml)
        y_t_que.FreeTensor(yl)


aj.REGISTER_TILING_DEFAULT(ReluV3TilingData)


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_relu_v3(device, x):
    """(y, mask bytes) of x (its last dimension a multiple of 8); the GM arrays padded past their ends."""
    T = _dtype_name(x)
    block_dim, t = tiling(device, x.shape, T)
    n = x.size
    pad = GM_PAD_BYTES // TYPE_SIZE[T]
    xg = np.zeros(n + pad, x.dtype)
    xg[:n] = x.reshape(-1)
    yg = np.zeros(n + pad, x.dtype)
    mg = np.zeros(n // 8 + GM_PAD_BYTES, np.uint8)
    aj.launch(relu_v3, block_dim, device, xg, yg, mg, None, t, T)
    return yg[:n].reshape(x.shape), mg[:n // 8]


def relu_v3_model(x):
    """y = max(x, 0) under D41 (NaN kept, -0 -> +0); the mask bits of x > 0 (int32 via float: the same sign), LSB
    first."""
    xf = x.reshape(-1)
    with np.errstate(invalid="ignore"):
        pos = xf > 0
        y = np.where(pos | np.isnan(xf.astype(np.float64)), xf, np.zeros(1, x.dtype)).astype(x.dtype)
    return y.reshape(x.shape), np.packbits(pos, bitorder="little")


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        n = _ceil_round(size, 8)
        if dtype == "int32":
            x = rng.integers(-1000, 1000, n).astype(np.int32)
        else:
            x = rng.uniform(-2.0, 2.0, n).astype(_NP[dtype])
        return {"x": x}
    return make_inputs


def _run(device, inputs):
    y, mask = run_relu_v3(device, inputs["x"])
    return {"y": y, "mask": mask}


def _expected(device, inputs):
    y, mask = relu_v3_model(inputs["x"])
    return {"y": y, "mask": mask}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/activation/relu_v3/op_kernel/relu_v3.h"
_SIZE_RULE = "a positive multiple of 8 (the last dimension's rule)"
KERNELS = [
    KernelSpec(f"relu_v3{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE, size_rule=_SIZE_RULE, size_ok=lambda n: n > 0 and n % 8 == 0)
    for suffix, dtype, size, description in (
        ("", "float", 200008, "ReluV3 over floats: y by Maxs 0 and the bit mask x > 0 by a tensor-tensor Compare "
         "GT against a 256-byte zero TBuf (src1RepStride 0) copied to GM; 512-element core blocks, 30 KiB tiles"),
        ("_half", "half", 100008, "ReluV3 over halves (Relu; the mask by Compare GT)"),
        ("_int32", "int32", 100008, "ReluV3 over int32 (Maxs 0; Cast CAST_RINT to float in place for the mask's "
         "Compare)"))
]
