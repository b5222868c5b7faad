"""Fills from the CANN operator challenge (season 8): y = a tensor of x's shape and type filled with the float attribute
`value` converted to that type; every type is written as int32 words (the host packs the value's bits two or four
times into a 32-bit pattern for the 16- and 8-bit types), from one UB tile that Duplicate fills once.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/cann-ops-competitions @ c2a5c68d2031b76f8773ca852d207134228da6aa,
01_official/operator-challenge/cann-ops-challenge-S8/submissions/Fills/Cishoon/op_kernel/fills.cpp
(`KernelFills<T>` with WorkT = int32_t: no TPipe; one hand-placed `LocalTensor<int32_t> stamp(TPosition::VECCALC, 0,
49152)` -- the A2's whole 192 KiB UB, the comment says the 256 bytes the platform reports as reserved are writable
without dump/printf; ProcessSmall (tiling key 0): Duplicate coreDataNum words, `pipe_barrier(PIPE_V)`, one DataCopy to
GM; ProcessLarge (key 1): Duplicate the whole tile, `pipe_barrier(PIPE_V)`, DataCopy the tile coreDataNum / 49152
times and a tail; the entry: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY), the tiling read as one 64-bit GM load --
smallCoreDataNum with tailBlockNum in its low 7 bits, and the value's 32-bit pattern --, bigCoreDataNum =
smallCoreDataNum + 128, the first tailBlockNum cores take the big share, a core with nothing to do returns,
TILING_KEY_IS(0) / (1)) and op_host/fills.cpp, op_host/fills_tiling.h (`TilingFunc`: the byte size in 4-byte words,
512-byte blocks of words over min(blocks, cores) cores but at least 2 (a one-core launch is slower; the extra core
returns at once); the value converted by hand -- float bits; int32 by truncation; half by `float_to_half_bits`, which
rounds to nearest even but flushes every value below 2^-14 in magnitude to a signed zero and turns a NaN into an
infinity; bfloat16 by adding a round-to-nearest-even bias; int16 / int8 / uint8 by C casts -- and replicated to 32
bits; key 0 when the big share fits the 49152-word tile, else key 1).

Deviations:
- Synchronisation (ORIGINAL_SYNC): `pipe_barrier(PIPE_V)` orders the vector pipe against itself only; the DataCopy
  that follows runs on MTE3 and reads the stamp the Duplicate is writing (SPEC-2 10.1, after DK
  `SYNC/PipeBarrier(ISASI).md`: PipeBarrier<pipe> orders that pipe's own instructions; another pipe waits on a
  SetFlag/WaitFlag, here V_MTE3). The sanitizer reports that race (tests/test_port39s_kernels.py); the
  port keeps the barrier and adds `SetFlag/WaitFlag<HardEvent::V_MTE3>(EVENT_ID0)` after it. `ORIGINAL_SYNC = True`
  runs the barrier alone. The C++ `pipe_barrier(PIPE_V)` (the older intrinsic name) is spelled
  `aj.PipeBarrier(aj.PIPE_V)`: ascend_jit has no `pipe_barrier`.
- The original writes whole 512-byte blocks: when y's byte size is not a multiple of 512 the last core writes up to
  511 bytes past y on the device. The port's host pads y to a multiple of 512 bytes and returns the first n elements
  (the test shows the fill landing in the padding). The core count is the launch's 8; DTYPE_INPUT is not used by
  the kernel (WorkT is int32 for every type); TILING_KEY_IS is not offered (docs/decisions.md "Tiling macros"): the
  entry branches on the key the host tiling returns, passed as an argument.

Devices: the original is built for the A2 (ascend910b); the port runs on the 950, A3 and A2 (the 49152-word tile
fits each UB). The 310P's only kernel type is KERNEL_TYPE_AICORE (DK 设置Kernel类型.md: the entry's AIV_ONLY is
refused there) and the 310B does not offer the host tiling's GetLibApiWorkSpaceSize (DK GetUserWorkspace.md).

Fidelity: BIT-EXACT (Duplicate and DataCopy, SPEC-2 0.3): checked bit for bit against numpy's full() of the value
converted to T as the host does (numpy's conversion for every value the gallery uses; the host's own rules for
half subnormals and NaN are in the test).
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

TILE_LENGTH = 49152
BLOCK_DATA_NUM = 128                   # 512 bytes of int32 words
CORE_NUM = 8
KEY_SMALL, KEY_LARGE = 0, 1
ORIGINAL_SYNC = False
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32,
      "int16": np.int16, "int8": np.int8, "uint8": np.uint8}

FillsTilingData = np.dtype([("smallCoreDataNum", np.uint32), ("valueUint32", np.uint32)])   # #pragma pack(1)


def as_uint(x):
    return int(np.float32(x).view(np.uint32))


def float_to_half_bits(x):
    """The host's conversion: RNE on the 13 discarded bits; |x| < 2^-14 -> signed 0; exponent >= 16 -> inf."""
    f = as_uint(x)
    sign = (f >> 31) & 1
    exp = ((f >> 23) & 0xFF) - 127
    mant = f & 0x7FFFFF
    if exp >= 16:
        return (sign << 15) | 0x7C00
    if exp <= -15:
        return sign << 15
    half_exp = ((exp + 15) & 0x1F) << 10
    half_mant = (mant >> 13) & 0x3FF
    remainder = mant & 0x1FFF
    if remainder > 0x1000 or (remainder == 0x1000 and half_mant & 1):
        half_mant += 1
        if half_mant > 0x3FF:
            half_mant = 0
            half_exp += 0x0400
            if half_exp >= 0x7C00:
                return (sign << 15) | 0x7C00
    return (sign << 15) | half_exp | half_mant


def float_to_bfloat16_bits(x):
    f = as_uint(x)
    f = (f + ((f >> 16) & 1) + 0x7FFF) & 0xFFFFFFFF
    return (f >> 16) & 0xFFFF


def value_bits(value, T):
    """The value attribute (a C float) as the 32-bit pattern the kernel duplicates."""
    v = float(np.float32(value))
    if T == "float":
        return as_uint(v)
    if T == "int32":
        return int(v) & 0xFFFFFFFF                      # (uint32_t)(int32_t)valueFloat
    if T == "half":
        h = float_to_half_bits(v)
        return h | (h << 16)
    if T == "bfloat16":
        b = float_to_bfloat16_bits(v)
        return b | (b << 16)
    if T == "int16":
        w = int(v) & 0xFFFF
        return w | (w << 16)
    if T in ("int8", "uint8"):
        b = int(v) & 0xFF
        return b | (b << 8) | (b << 16) | (b << 24)
    return 0


def tiling(device, total, T, value):
    """TilingFunc: (block dim, tiling key, the packed FillsTilingData, workspace bytes)."""
    total_bytes = total * np.dtype(NP[T]).itemsize
    total_words = (total_bytes + 3) // 4
    core_num = CORE_NUM
    total_blocks = (total_words + BLOCK_DATA_NUM - 1) // BLOCK_DATA_NUM
    used = min(total_blocks, core_num) or 1
    if used < 2 and core_num >= 2:
        used = 2
    blocks_per_core, tail_block_num = total_blocks // used, total_blocks % used
    big = (blocks_per_core + 1) * BLOCK_DATA_NUM
    small = blocks_per_core * BLOCK_DATA_NUM
    t = np.zeros(1, FillsTilingData)
    t["smallCoreDataNum"], t["valueUint32"] = small | tail_block_num, value_bits(value, T)
    key = KEY_SMALL if big <= TILE_LENGTH else KEY_LARGE
    return used, key, t.view(np.uint8).copy(), aj.GetLibApiWorkSpaceSize(device)


def _vector_to_mte3():
    """pipe_barrier(PIPE_V) as written, then (the port's deviation) the V_MTE3 flag the copy out needs."""
    aj.PipeBarrier(aj.PIPE_V)
    if not ORIGINAL_SYNC:
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)


class KernelFills:
    def Init(self, output, valueBits, coreDataNum, globalOffset):
        self.gmOut = aj.GlobalTensor(dtype="int32")
        self.gmOut.SetGlobalBuffer(output[globalOffset:], coreDataNum)
        self.fillValue = np.uint32(valueBits).view(np.int32)     # static_cast<int32_t>(valueBits)

    def ProcessSmall(self, coreDataNum):
        stamp = aj.LocalTensor(aj.TPosition.VECCALC, 0, TILE_LENGTH, dtype="int32")
        aj.Duplicate(stamp, self.fillValue, coreDataNum)
        _vector_to_mte3()
        aj.DataCopy(self.gmOut, stamp, coreDataNum)

    def ProcessLarge(self, coreDataNum):
        stamp = aj.LocalTensor(aj.TPosition.VECCALC, 0, TILE_LENGTH, dtype="int32")
        aj.Duplicate(stamp, self.fillValue, TILE_LENGTH)
        loopCount = coreDataNum // TILE_LENGTH
        tailLen = coreDataNum - loopCount * TILE_LENGTH
        _vector_to_mte3()
        for i in range(loopCount):
            aj.DataCopy(self.gmOut[i * TILE_LENGTH], stamp, TILE_LENGTH)
        if tailLen > 0:
            aj.DataCopy(self.gmOut[loopCount * TILE_LENGTH], stamp, tailLen)


def fills(input, output, workspace, tiling, tiling_key):
    """The kernel entry; output is y's GM viewed as int32 words ((__gm__ int32_t*)output); tiling_key stands for
    TILING_KEY_IS (not offered)."""
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    packed = int(tiling.view(np.uint64)[0])            # the one 64-bit GM load of the tiling
    packedSmallCoreDataNum = packed & 0xFFFFFFFF
    valueUint32 = packed >> 32
    coreIdx = aj.GetBlockIdx()
    tailBlockNum = packedSmallCoreDataNum & 127
    smallCoreDataNum = packedSmallCoreDataNum & ~127 & 0xFFFFFFFF
    bigCoreDataNum = smallCoreDataNum + BLOCK_DATA_NUM
    if coreIdx < tailBlockNum:
        coreDataNum = bigCoreDataNum
        globalOffset = bigCoreDataNum * coreIdx
    else:
        coreDataNum = smallCoreDataNum
        globalOffset = bigCoreDataNum * tailBlockNum + smallCoreDataNum * (coreIdx - tailBlockNum)
    if coreDataNum == 0:
        return
    op = KernelFills()
    op.Init(output, valueUint32, coreDataNum, globalOffset)
    if tiling_key == KEY_SMALL:
        op.ProcessSmall(coreDataNum)
    elif tiling_key == KEY_LARGE:
        op.ProcessLarge(coreDataNum)


def padded_words(n, T):
    """y's int32 words in whole 512-byte blocks (the port's GM padding, docstring)."""
    words = (n * np.dtype(NP[T]).itemsize + 3) // 4
    return -(-words // BLOCK_DATA_NUM) * BLOCK_DATA_NUM


DEFAULT_VALUE = {"float": -2.7182817, "half": 3.1416, "bfloat16": -0.3333, "int32": -123456.9, "int16": 1234.0,
                 "int8": -77.0, "uint8": 200.0}


def _make_inputs(T):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.standard_normal(size).astype(NP[T]) if T in ("float", "half", "bfloat16") else \
            rng.integers(0, 100, size).astype(NP[T])
        return {"x": x, "value": np.float32(DEFAULT_VALUE[T])}
    return make_inputs


def _run(T):
    def run(device, inputs):
        x, value = inputs["x"], inputs["value"]
        n = x.size
        y_words = np.zeros(padded_words(n, T), np.int32)
        block_dim, key, tiling_bytes, ws = tiling(device, n, T, value)
        aj.launch(fills, block_dim, device, x, y_words, np.zeros(ws, np.uint8), tiling_bytes, key)
        y_all = y_words.view(NP[T])
        return {"y": y_all[:n], "y_padded": y_all}
    return run


def _expected(T):
    def expected(device, inputs):
        v = np.float32(inputs["value"])
        value = NP[T](v) if T in ("float", "half", "bfloat16") else NP[T](int(v))
        return {"y": np.full(inputs["x"].size, value, NP[T])}
    return expected


_SOURCE = ("hicann/cann-ops-competitions@c2a5c68d 01_official/operator-challenge/cann-ops-challenge-S8/submissions/"
           "Fills/Cishoon/op_kernel/fills.cpp")
KERNELS = [
    KernelSpec("fills", "Fills over floats: one hand-placed 49152-word int32 LocalTensor at UB address 0 filled by "
               "Duplicate, DataCopied to GM in whole tiles and a tail (tiling key 1 past 192 KiB a core); the value's "
               "bits and the core split packed in one 64-bit tiling load", _make_inputs("float"), _run("float"),
               _expected("float"), default_size=500003, devices=DEVICES, source=_SOURCE),
    KernelSpec("fills_half", "Fills over halves: the value's half bits twice in each int32 word (tiling key 0)",
               _make_inputs("half"), _run("half"), _expected("half"), default_size=100003, devices=DEVICES,
               source=_SOURCE),
    KernelSpec("fills_bf16", "Fills over bfloat16 (the host's RNE bias conversion)", _make_inputs("bfloat16"),
               _run("bfloat16"), _expected("bfloat16"), default_size=100003, devices=DEVICES, source=_SOURCE),
    KernelSpec("fills_int8", "Fills over int8: the value's byte four times in each int32 word",
               _make_inputs("int8"), _run("int8"), _expected("int8"), default_size=100003, devices=DEVICES,
               source=_SOURCE),
]
