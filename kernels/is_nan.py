"""IsNan, a competition entry: y = isnan(x) as bool (int8 0 / 1), over half, float and bfloat16, without an isnan
instruction: x == x by Compare EQ into a bit mask, then a tensor-scalar Select of Duplicated half zeros (equal, not
NaN) against 1.0 (unequal: NaN), narrowed to int8 by Cast CAST_ROUND.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/cann-ops-competitions @ e21e3e431b3628e3a580e3cba090a367d0576902,
01_official/operator-challenge/operator-challenge-champ2/submissions/IsNan/ieu小队:
- op_kernel/is_nan.cpp (`KernelIsNanHalf` / `KernelIsNanFloat` / `KernelIsNanBf16`, one hand-written class a type,
  the tiling key picks it): cores of blockLength elements from blockIdx * blockLength, the last core what is left;
  depth-2 VECIN / VECOUT queues of tileLength elements, a mask TBuf of tileLength / 8 bytes, a half TBuf Duplicated
  to zeros once a core; per tile: a full tile by DataCopy, the short last one by DataCopyPad (DataCopyExtParams,
  no padding); Compare(mask, x, x, EQ, n) with n = the tile's count rounded up to 128; the Select's half result
  written in place over the input tile (float: the input tile reinterpreted as half; bfloat16: the input Cast to a
  float TBuf first, CAST_NONE over n, and compared there); Cast half -> int8 CAST_ROUND of the tile's count; out by
  DataCopy, or DataCopyPad for the short tile;
- op_host/is_nan.cpp (`TilingFunc`: blockLength = ceil(total / cores) rounded up to 256, cores = ceil(total /
  blockLength); tileLength = min(blockLength, 21504 half / 12288 float and bfloat16) rounded up to 256).

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original, 40 without platform info). The
original compares (and Casts, for bfloat16) n lanes, the short tile's count rounded up to 128, where DataCopyPad
wrote the count rounded up to 32 bytes: on a buffer's first use the lanes past that are uninitialised (the
sanitizer's init report; `zero_tail=False` runs the original's form and tests/test_port47c_kernels.py shows the
report), so the port Duplicates zeros (int16 view) over those bytes of the input tile first. Those lanes are never
copied out either way.

Devices: the operator's config is the ascend910b (A2; the A3 shares its kernels): the port runs on the A3 and A2.

Fidelity: BIT-EXACT (Compare, Select, Duplicate, Cast, DataCopy, DataCopyPad; SPEC-2 0.3). Compare EQ of a NaN with
itself is false (SPEC-2 D41's IEEE compares), so NaN -> 1 and every other value, the infinities included, -> 0;
bfloat16 widens exactly to float, so its NaNs stay NaNs.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
BUFFER_NUM = 2
TILE_ALIGN = 256
COMPARE_ALIGN = 128
MAX_TILE = {"half": 21504, "float": 12288, "bfloat16": 12288}
TILING_KEY = {"half": 0, "float": 1, "bfloat16": 2}
TYPE_SIZE = {"half": 2, "float": 4, "bfloat16": 2}
_NP = {"half": np.float16, "float": np.float32, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("atlas-a3", "atlas-a2")


def _round_up(v, a):
    return -(-v // a) * a


def tiling(total, dtype, core_num=CORE_NUM):
    """TilingFunc: (block dim, tiling key, tiling data)."""
    block_len = -(-total // core_num)
    if block_len == 0:
        block_len = TILE_ALIGN
    block_len = _round_up(block_len, TILE_ALIGN)
    block_dim = min(max(1, -(-total // block_len)), core_num)
    tile_len = _round_up(min(block_len, MAX_TILE[dtype]), TILE_ALIGN) or TILE_ALIGN
    tile_num = max(1, -(-block_len // tile_len))
    return block_dim, TILING_KEY[dtype], dict(totalLength=total, blockLength=block_len, tileLength=tile_len,
                                              tileNum=tile_num)


class KernelIsNan:
    """The three classes in one: T picks the half / float / bfloat16 body as the original's tiling key does."""

    def __init__(self, T, zero_tail=True):
        self.T, self.zero_tail = T, zero_tail

    def Init(self, x, y, totalLength, blockLength, tileLength):
        T = self.T
        self.tileLength = tileLength
        offset = blockLength * aj.GetBlockIdx()
        remaining = totalLength - offset if offset < totalLength else 0
        self.actualLength = min(blockLength, remaining)
        if self.actualLength > 0:
            self.pipe = aj.TPipe()
            self.inQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
            self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
            self.maskBuf, self.zeroBuf, self.fxBuf = (aj.TBuf(aj.QuePosition.VECCALC) for _ in range(3))
            self.xGm, self.yGm = aj.GlobalTensor(T), aj.GlobalTensor("int8")
            self.xGm.SetGlobalBuffer(x[offset:], self.actualLength)
            self.yGm.SetGlobalBuffer(y[offset:], self.actualLength)
            self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, tileLength * TYPE_SIZE[T])
            self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, tileLength)
            self.pipe.InitBuffer(self.maskBuf, tileLength // 8)
            self.pipe.InitBuffer(self.zeroBuf, tileLength * 2)
            if T == "bfloat16":
                self.pipe.InitBuffer(self.fxBuf, tileLength * 4)

    def Process(self):
        if self.actualLength == 0:
            return
        zeros = self.zeroBuf.Get("half")
        aj.Duplicate(zeros, np.float16(0.0), self.tileLength)
        loopCount = -(-self.actualLength // self.tileLength)
        for i in range(loopCount):
            curLen = self.actualLength - i * self.tileLength if i == loopCount - 1 else self.tileLength
            self.CopyIn(i, curLen)
            self.Compute(curLen, zeros)
            self.CopyOut(i, curLen)

    def CopyIn(self, progress, curLen):
        T = self.T
        xLocal = self.inQueueX.AllocTensor(T)
        if curLen == self.tileLength:
            aj.DataCopy(xLocal, self.xGm[progress * self.tileLength], self.tileLength)
        else:
            self._zero_past_copy(xLocal, curLen)
            params = aj.DataCopyExtParams(1, curLen * TYPE_SIZE[T], 0, 0, 0)
            aj.DataCopyPad(xLocal, self.xGm[progress * self.tileLength], params,
                           aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0)))
        self.inQueueX.EnQue(xLocal)

    def _zero_past_copy(self, xLocal, curLen):
        """The deviation: zeros over the lanes [curLen, n) past the bytes DataCopyPad writes (32-byte rounded)."""
        if not self.zero_tail:
            return
        size = TYPE_SIZE[self.T]
        written = _round_up(curLen * size, 32)
        end = _round_up(curLen, COMPARE_ALIGN) * size
        if end > written:
            aj.Duplicate(xLocal.ReinterpretCast("int16")[written // 2], np.int16(0), (end - written) // 2)

    def Compute(self, curLen, zeros):
        T = self.T
        xLocal = self.inQueueX.DeQue(T)
        yLocal = self.outQueueY.AllocTensor("int8")
        mask = self.maskBuf.Get("uint8")
        n = _round_up(curLen, COMPARE_ALIGN)
        if T == "bfloat16":
            fx = self.fxBuf.Get("float")
            aj.Cast(fx, xLocal, aj.RoundMode.CAST_NONE, n)
            aj.Compare(mask, fx, fx, aj.CMPMODE.EQ, n)
        else:
            aj.Compare(mask, xLocal, xLocal, aj.CMPMODE.EQ, n)
        # the Select's half result over the input tile (float and bfloat16: the tile reinterpreted as half)
        sel = xLocal if T == "half" else xLocal.ReinterpretCast("half")
        aj.Select(sel, mask, zeros, np.float16(1.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, n)
        aj.Cast(yLocal, sel, aj.RoundMode.CAST_ROUND, curLen)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)

    def CopyOut(self, progress, curLen):
        yLocal = self.outQueueY.DeQue("int8")
        if curLen == self.tileLength:
            aj.DataCopy(self.yGm[progress * self.tileLength], yLocal, self.tileLength)
        else:
            aj.DataCopyPad(self.yGm[progress * self.tileLength], yLocal, aj.DataCopyExtParams(1, curLen, 0, 0, 0))
        self.outQueueY.FreeTensor(yLocal)


def is_nan(x, y, workspace, td, tiling_key, zero_tail=True):
    """The kernel entry: TILING_KEY_IS(0 / 1 / 2) picks the half / float / bfloat16 class."""
    T = {v: k for k, v in TILING_KEY.items()}[tiling_key]
    op = KernelIsNan(T, zero_tail)
    op.Init(x, y, td["totalLength"], td["blockLength"], td["tileLength"])
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_is_nan(device, x, zero_tail=True):
    T = _dtype_name(x)
    n = x.size
    block_dim, key, td = tiling(n, T)
    y = np.zeros(n, np.int8)
    aj.launch(is_nan, block_dim, device, np.ascontiguousarray(x), y, None, td, key, zero_tail)
    return y


def is_nan_model(x):
    return np.isnan(x.astype(np.float32)).astype(np.int8)


def _make_inputs(T):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = (rng.standard_normal(size) * rng.choice([1.0, 1e3, 1e-3], size)).astype(np.float32)
        pick = rng.random(size)
        x[pick < 0.2] = np.nan
        x[(pick >= 0.2) & (pick < 0.25)] = np.inf
        x[(pick >= 0.25) & (pick < 0.3)] = -np.inf
        x = x.astype(_NP[T])
        # NaNs of other payloads and signs: bits with an all-ones exponent and a non-zero fraction
        b = x.view({2: np.uint16, 4: np.uint32}[TYPE_SIZE[T]])
        payload = {"half": (0x7C01, 0xFE00), "bfloat16": (0x7F81, 0xFFC1), "float": (0x7F800001, 0xFFFFFFFF)}[T]
        b[7::97], b[11::89] = payload
        return {"x": x}
    return make_inputs


def _run(device, inputs):
    return {"y": run_is_nan(device, inputs["x"])}


def _expected(device, inputs):
    return {"y": is_nan_model(inputs["x"])}


_SOURCE = ("hicann/cann-ops-competitions@e21e3e43 01_official/operator-challenge/operator-challenge-champ2/"
           "submissions/IsNan/ieu小队/op_kernel/is_nan.cpp")
KERNELS = [
    KernelSpec(f"is_nan{suffix}", description, _make_inputs(T), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, T, size, description in (
        ("", "float", 100003, "IsNan over floats (competition entry): Compare EQ of x with itself over 128-rounded "
         "counts, tensor-scalar Select of half zeros against 1.0 into the input tile reinterpreted as half, Cast "
         "half -> int8 CAST_ROUND; DataCopy for full tiles, DataCopyPad for the short one"),
        ("_half", "half", 100003, "IsNan over halves: Compare EQ, Select in place over the input tile, Cast"),
        ("_bf16", "bfloat16", 100003, "IsNan over bfloat16: Cast to a float TBuf, Compare EQ there, Select into "
         "the input tile as half, Cast"))
]
