"""TruncateDiv from the CANN math operators: y = trunc(x1 / x2), element by element, for the twelve (x1, x2, y) type
combinations of the original: bf16, half, float, int32, int8, uint8, int16 with themselves, the mixed half / float
and float / int32 pairs (y float), every one divided in float; int64 on the scalar unit.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, experimental/math/truncate_div:
- op_kernel/truncate_div.h (`TruncateDivKernel<TX1, TX2, TY>`: cores of coreLength elements from blockIdx *
  coreLength; depth-1 VECIN queues for x1 and x2, a VECOUT queue for y of tileLength elements, three float TBufs and
  a half TBuf of the tile rounded up to 64 lanes; per tile: DataCopyPad of len elements in (DataCopyExtParams, no
  padding), EnQue / DeQue at once, each input to float over clen = len rounded up to 64 (float: a UB -> UB
  DataCopy; int8 / uint8: Cast CAST_NONE to half and on to float; the rest one Cast CAST_NONE), then Div, Mins 0,
  Ceil, Maxs 0, Floor, Add (trunc(t) = ceil(min(t, 0)) + floor(max(t, 0))), back to TY (float: DataCopy; int8 /
  uint8: Cast float -> half CAST_NONE and half -> TY CAST_RINT; the rest Cast CAST_RINT), EnQue / DeQue, DataCopyPad
  of len elements out. `RunInt64`: GlobalTensor GetValue / SetValue, C++ division, 0 for a zero divisor);
- op_kernel/truncate_div.cpp (the entry: the tiling key picks the combination) and op_host/truncate_div_tiling.cpp
  (`ComputeSplit`: cores = ceil(total / 1024) at most the AIV count, coreLength = ceil(total / cores) rounded up to
  64, cores again = ceil(total / coreLength); tileLength = (UB - 8192) / (x1 + x2 + y + 3 * 4 + 2 bytes) rounded
  down to 64, at most coreLength).

The advanced API's Ceil and Floor on float tensors, in the A2/A3 build (mirror-cann/asc-devkit,
impl/adv_api/detail/math/ceil/ceil_common_impl.h with ceil_v220_impl.h, floor/floor_v220_impl.h): Floor is one
count-form Cast float -> float CAST_FLOOR (`floor_api`); Ceil takes the UB past the TPipe's buffers by
PopStackBuffer, splits the count into chunks of (its bytes / 4) rounded down to 32 elements and, in counter mode
(SetMaskCount, SetVectorMask COUNTER), runs a high-dim Cast float -> float CAST_CEIL with isSetMask false, one
repeat, and PipeBarrier<PIPE_V> per chunk, then SetMaskNorm and ResetMask (`ceil_api`).

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original). The original converts,
divides and rounds clen lanes, the tile's len rounded up to 64, where DataCopyPad wrote len elements rounded up to
32 bytes: on a buffer's first use the lanes past that are uninitialised (the sanitizer's init report,
`zero_tail=False` runs the original's form and tests/test_port46m_kernels.py shows the report), so the port Duplicates
zeros (int16 view) over those bytes of each input tile first. They are computed and never copied out either way.

Devices: the original is built for ascend910b / ascend910_93; the port runs on the A3 and A2.

Fidelity: Div MODELLED (SPEC-2 D37: the exact quotient rounded once to float, IEEE division), the rest BIT-EXACT
(Cast, Mins, Maxs, Add, DataCopy, DataCopyPad; SPEC-2 0.3), so the model (numpy's float32 division, Mins / Maxs by
D41's order, ceil / floor with +0 zeros (SPEC-2 7.3 step 5), the Casts back by SPEC-2 7.3 / D45) is checked bit for
bit. Specials: a zero divisor gives +-inf or NaN in float, so +-inf (integer types: MAX / MIN) and NaN (integer types:
0, D45); int32 operands past 2**24 round to float first (RNE); int64 divides exactly, 0 for a zero divisor.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
VEC_ALIGN = 64                     # 256 bytes of float
MIN_ELEMS_PER_CORE = 1024
UB_RESERVE = 8192
TYPE_SIZE = {"float": 4, "int32": 4, "half": 2, "bfloat16": 2, "int16": 2, "int8": 1, "uint8": 1, "int64": 8}
_NP = {"float": np.float32, "int32": np.int32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16,
       "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "int64": np.int64}
# the tiling's combinations: (x1, x2) -> y
COMBOS = {("bfloat16", "bfloat16"): "bfloat16", ("half", "half"): "half", ("half", "float"): "float",
          ("float", "half"): "float", ("float", "float"): "float", ("float", "int32"): "float",
          ("int32", "int32"): "int32", ("int32", "float"): "float", ("uint8", "uint8"): "uint8",
          ("int8", "int8"): "int8", ("int64", "int64"): "int64", ("int16", "int16"): "int16"}
DEVICES = ("atlas-a3", "atlas-a2")


def _ceil_div(a, b):
    return -(-a // b)


def _align_up(v, a):
    return a if v == 0 else _ceil_div(v, a) * a


def tiling(device, total, x1, x2):
    """TruncateDivTilingFunc / ComputeSplit: (core count, tiling data)."""
    y = COMBOS[(x1, x2)]
    core_num = max(1, min(CORE_NUM, _ceil_div(total, MIN_ELEMS_PER_CORE)))
    core_length = _align_up(_ceil_div(total, core_num), VEC_ALIGN)
    core_num = max(1, _ceil_div(total, core_length))
    per_elem = TYPE_SIZE[x1] + TYPE_SIZE[x2] + TYPE_SIZE[y] + 3 * 4 + 2
    ub = aj.get_device(device).ub_bytes
    usable = ub - UB_RESERVE if ub > UB_RESERVE else ub
    tile_length = usable // per_elem // VEC_ALIGN * VEC_ALIGN or VEC_ALIGN
    tile_length = min(tile_length, core_length)
    return core_num, dict(coreNum=core_num, totalLength=total, coreLength=core_length, tileLength=tile_length)


def floor_api(dst, src, calCount):
    """AscendC::Floor on float tensors, the A2/A3 build: one count-form Cast CAST_FLOOR."""
    aj.Cast(dst, src, aj.RoundMode.CAST_FLOOR, calCount)


def ceil_api(dst, src, calCount):
    """AscendC::Ceil(dst, src, calCount) on float tensors, the A2/A3 build (CeilImpl with a PopStackBuffer'd
    sharedTmpBuffer): counter-mode chunks of one high-dim CAST_CEIL Cast each."""
    ok, sharedTmpBuffer = aj.PopStackBuffer("uint8", aj.TPosition.LCM)
    assert ok, "PopStackBuffer Error!"
    splitCount = sharedTmpBuffer.GetSize() // 4 // aj.ONE_BLK_SIZE * aj.ONE_BLK_SIZE
    assert splitCount > 0, "the stack buffer holds no chunk"
    loopCount, calcTail = divmod(calCount, splitCount)
    aj.SetMaskCount()
    aj.SetVectorMask(0, splitCount, dtype="float", mode=aj.MaskMode.COUNTER)
    for i in range(loopCount):
        _ceil_process(dst[i * splitCount], src[i * splitCount])
    if calcTail > 0:
        aj.SetVectorMask(0, calcTail, dtype="float", mode=aj.MaskMode.COUNTER)
        _ceil_process(dst[loopCount * splitCount], src[loopCount * splitCount])
    aj.SetMaskNorm()
    aj.ResetMask()


def _ceil_process(dst, src):
    aj.Cast(dst, src, aj.RoundMode.CAST_CEIL, aj.MASK_PLACEHOLDER, 1, (1, 1, 8, 8), is_set_mask=False)
    aj.PipeBarrier(aj.PIPE_V)


class TruncateDivKernel:
    """`TruncateDivKernel<TX1, TX2, TY>`."""

    def __init__(self, TX1, TX2, TY, tilingData, zero_tail=True):
        self.TX1, self.TX2, self.TY, self.zero_tail = TX1, TX2, TY, zero_tail
        self.totalLength = tilingData["totalLength"]
        self.coreLength = tilingData["coreLength"]
        self.tileLength = tilingData["tileLength"]
        blockIdx = aj.GetBlockIdx()
        self.start = blockIdx * self.coreLength
        if self.start >= self.totalLength:
            self.myLength = 0
        else:
            remain = self.totalLength - self.start
            self.myLength = min(self.coreLength, remain)
        alignedTile = _align_up(self.tileLength, VEC_ALIGN)
        self.pipe = aj.TPipe()
        self.inQue0 = aj.TQue(aj.QuePosition.VECIN, 1)
        self.inQue1 = aj.TQue(aj.QuePosition.VECIN, 1)
        self.outQue = aj.TQue(aj.QuePosition.VECOUT, 1)
        self.calcBuf0, self.calcBuf1, self.tmpBuf, self.halfBuf = (aj.TBuf(aj.QuePosition.VECCALC) for _ in range(4))
        self.pipe.InitBuffer(self.inQue0, 1, self.tileLength * TYPE_SIZE[TX1])
        self.pipe.InitBuffer(self.inQue1, 1, self.tileLength * TYPE_SIZE[TX2])
        self.pipe.InitBuffer(self.outQue, 1, self.tileLength * TYPE_SIZE[TY])
        self.pipe.InitBuffer(self.calcBuf0, alignedTile * 4)
        self.pipe.InitBuffer(self.calcBuf1, alignedTile * 4)
        self.pipe.InitBuffer(self.tmpBuf, alignedTile * 4)
        self.pipe.InitBuffer(self.halfBuf, alignedTile * 2)

    def Init(self, x1, x2, y):
        self.src0Global, self.src1Global = aj.GlobalTensor(self.TX1), aj.GlobalTensor(self.TX2)
        self.dstGlobal = aj.GlobalTensor(self.TY)
        self.src0Global.SetGlobalBuffer(x1[self.start:])
        self.src1Global.SetGlobalBuffer(x2[self.start:])
        self.dstGlobal.SetGlobalBuffer(y[self.start:])

    def Process(self):
        if self.myLength == 0:
            return
        calc0 = self.calcBuf0.Get("float")
        calc1 = self.calcBuf1.Get("float")
        tmp = self.tmpBuf.Get("float")
        off = 0
        while off < self.myLength:
            length = min(self.myLength - off, self.tileLength)
            clen = _align_up(length, VEC_ALIGN)
            self.CopyInAndCast(calc0, calc1, off, length, clen)
            # t = x1 / x2; trunc(t) = ceil(min(t, 0)) + floor(max(t, 0))
            aj.Div(tmp, calc0, calc1, clen)
            aj.Mins(calc0, tmp, np.float32(0.0), clen)
            ceil_api(calc0, calc0, clen)
            aj.Maxs(calc1, tmp, np.float32(0.0), clen)
            floor_api(calc1, calc1, clen)
            aj.Add(calc0, calc0, calc1, clen)
            self.CastAndCopyOut(calc0, off, length)
            off += length

    def _zero_past_copy(self, s, T, length, clen):
        """The deviation: zeros over the lanes [len, clen) past the bytes DataCopyPad writes (32-byte rounded)."""
        if not self.zero_tail:
            return
        written = _align_up(length * TYPE_SIZE[T], 32)
        end = clen * TYPE_SIZE[T]
        if end > written:
            aj.Duplicate(s.ReinterpretCast("int16")[written // 2], np.int16(0), (end - written) // 2)

    def CopyInAndCast(self, calc0, calc1, off, length, clen):
        TX1, TX2 = self.TX1, self.TX2
        s0 = self.inQue0.AllocTensor(TX1)
        s1 = self.inQue1.AllocTensor(TX2)
        self._zero_past_copy(s0, TX1, length, clen)
        self._zero_past_copy(s1, TX2, length, clen)
        p0 = aj.DataCopyExtParams(1, length * TYPE_SIZE[TX1], 0, 0, 0)
        p1 = aj.DataCopyExtParams(1, length * TYPE_SIZE[TX2], 0, 0, 0)
        pad0 = aj.DataCopyPadExtParams(False, 0, 0, _NP[TX1](0))
        pad1 = aj.DataCopyPadExtParams(False, 0, 0, _NP[TX2](0))
        aj.DataCopyPad(s0, self.src0Global[off], p0, pad0)
        aj.DataCopyPad(s1, self.src1Global[off], p1, pad1)
        self.inQue0.EnQue(s0)
        self.inQue1.EnQue(s1)
        s0 = self.inQue0.DeQue(TX1)
        s1 = self.inQue1.DeQue(TX2)
        htmp = self.halfBuf.Get("half")
        self.CastToFloat(TX1, calc0, s0, htmp, clen)
        self.CastToFloat(TX2, calc1, s1, htmp, clen)
        self.inQue0.FreeTensor(s0)
        self.inQue1.FreeTensor(s1)

    @staticmethod
    def CastToFloat(TX, dst, src, htmp, clen):
        if TX == "float":
            aj.DataCopy(dst, src, clen)                       # clen is whole 64-float repeats: UB -> UB
        elif TX in ("int8", "uint8"):
            aj.Cast(htmp, src, aj.RoundMode.CAST_NONE, clen)  # no int8 / uint8 -> float Cast: through half
            aj.Cast(dst, htmp, aj.RoundMode.CAST_NONE, clen)
        else:
            aj.Cast(dst, src, aj.RoundMode.CAST_NONE, clen)

    def CastAndCopyOut(self, calc0, off, length):
        TY = self.TY
        dstLocal = self.outQue.AllocTensor(TY)
        clen = _align_up(length, VEC_ALIGN)
        if TY == "float":
            aj.DataCopy(dstLocal, calc0, clen)
        elif TY in ("int8", "uint8"):
            htmp = self.halfBuf.Get("half")
            aj.Cast(htmp, calc0, aj.RoundMode.CAST_NONE, clen)
            aj.Cast(dstLocal, htmp, aj.RoundMode.CAST_RINT, clen)
        else:
            aj.Cast(dstLocal, calc0, aj.RoundMode.CAST_RINT, clen)
        self.outQue.EnQue(dstLocal)
        dstLocal = self.outQue.DeQue(TY)
        aj.DataCopyPad(self.dstGlobal[off], dstLocal, aj.DataCopyExtParams(1, length * TYPE_SIZE[TY], 0, 0, 0))
        self.outQue.FreeTensor(dstLocal)


def run_int64(x1, x2, y, tilingData):
    """RunInt64: the scalar unit, element by element through GlobalTensor GetValue / SetValue."""
    totalLength, coreLength = tilingData["totalLength"], tilingData["coreLength"]
    start = aj.GetBlockIdx() * coreLength
    if start >= totalLength:
        return
    myLength = min(coreLength, totalLength - start)
    gx1, gx2, gy = aj.GlobalTensor("int64"), aj.GlobalTensor("int64"), aj.GlobalTensor("int64")
    gx1.SetGlobalBuffer(x1)
    gx2.SetGlobalBuffer(x2)
    gy.SetGlobalBuffer(y)
    for i in range(myLength):
        idx = start + i
        a, b = int(gx1.GetValue(idx)), int(gx2.GetValue(idx))
        gy.SetValue(idx, np.int64(0 if b == 0 else _c_div(a, b)))


def _c_div(a, b):
    """C++ integer division (toward zero) of two int64 values; INT64_MIN / -1 wraps as the device's would."""
    q = abs(a) // abs(b)
    q = -q if (a < 0) != (b < 0) else q
    return (q + 2 ** 63) % 2 ** 64 - 2 ** 63


def truncate_div(x1, x2, y, workspace, tilingData, TX1, TX2, TY, zero_tail=True):
    """The kernel entry (truncate_div.cpp: Run<TX1, TX2, TY>)."""
    if TY == "int64":
        run_int64(x1, x2, y, tilingData)
    else:
        op = TruncateDivKernel(TX1, TX2, TY, tilingData, zero_tail)
        op.Init(x1, x2, y)
        op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_truncate_div(device, x1, x2, zero_tail=True):
    TX1, TX2 = _dtype_name(x1), _dtype_name(x2)
    TY = COMBOS[(TX1, TX2)]
    block_dim, t = tiling(device, x1.size, TX1, TX2)
    y = np.zeros(x1.size, _NP[TY])
    aj.launch(truncate_div, block_dim, device, np.ascontiguousarray(x1), np.ascontiguousarray(x2), y, None, t,
              TX1, TX2, TY, zero_tail)
    return y


_INT_RANGE = {"int32": (-2 ** 31, 2 ** 31 - 1), "int16": (-2 ** 15, 2 ** 15 - 1), "int8": (-128, 127),
              "uint8": (0, 255)}


def _to_int(r, dtype):
    """An integral float (or special) to an integer type: NaN -> 0, out of range and +-inf saturated (D45)."""
    lo, hi = _INT_RANGE[dtype]
    r = r.astype(np.float64)
    return np.where(np.isnan(r), 0.0, np.clip(r, lo, hi)).astype(_NP[dtype])


def _plus_zero(a):
    a[a == 0] = np.float32(0.0)            # float -> float round-to-integral gives +0 (SPEC-2 7.3 step 5)
    return a


def truncate_div_model(x1, x2):
    """The kernel's chain in numpy: to float (RNE for int32, exact otherwise), IEEE float division, Mins / Maxs 0 in
    D41's order (NaN kept, min(-0, +0) = -0, max(-0, +0) = +0), ceil / floor with +0 zeros, their sum, then to y."""
    TX1, TX2 = _dtype_name(x1), _dtype_name(x2)
    TY = COMBOS[(TX1, TX2)]
    if TY == "int64":
        return np.array([0 if b == 0 else _c_div(int(a), int(b)) for a, b in zip(x1, x2)], np.int64)
    with np.errstate(all="ignore"):
        t = (x1.astype(np.float32) / x2.astype(np.float32)).astype(np.float32)
        mn = np.where(np.isnan(t) | (t <= 0), t, np.float32(0.0)).astype(np.float32)
        mx = np.where(np.isnan(t) | (t > 0), t, np.float32(0.0)).astype(np.float32)
        r = (_plus_zero(np.ceil(mn)) + _plus_zero(np.floor(mx))).astype(np.float32)
        if TY == "float":
            return r
        if TY in ("half", "bfloat16"):
            return r.astype(_NP[TY])
        if TY in ("int8", "uint8"):
            return _to_int(r.astype(np.float16).astype(np.float32), TY)
        return _to_int(r, TY)


def _make_inputs(TX1, TX2):
    def make(dtype, rng, size, divisor):
        if dtype == "int64":
            v = rng.integers(-10 ** 12, 10 ** 12, size)
            if divisor:
                v = v // rng.choice([1, 10 ** 3, 10 ** 9], size)
                v[v == 0] = 7
            return v.astype(np.int64)
        if dtype in _INT_RANGE:
            lo, hi = _INT_RANGE[dtype]
            lo, hi = max(lo, -10 ** 6), min(hi, 10 ** 6)
            v = rng.integers(lo, hi + 1, size)
            if divisor:
                v = v // rng.choice([1, 7, 1000], size)
                v[v == 0] = 3
            return v.astype(_NP[dtype])
        if divisor:
            v = rng.uniform(-20.0, 20.0, size)
            v[np.abs(v) < 0.01] = 0.5
        else:
            v = rng.uniform(-300.0, 300.0, size) * rng.choice([1.0, 1e-3], size)
        return v.astype(_NP[dtype])

    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        return {"x1": make(TX1, rng, size, False), "x2": make(TX2, rng, size, True)}
    return make_inputs


def _run(device, inputs):
    return {"y": run_truncate_div(device, inputs["x1"], inputs["x2"])}


def _expected(device, inputs):
    return {"y": truncate_div_model(inputs["x1"], inputs["x2"])}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/truncate_div/op_kernel/truncate_div.h"
KERNELS = [
    KernelSpec(f"truncate_div{suffix}", description, _make_inputs(x1, x2), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, x1, x2, size, description in (
        ("", "float", "float", 50003, "TruncateDiv over floats (DataCopyPad in, UB -> UB DataCopy, Div, Mins 0, the "
         "advanced Ceil as counter-mode Casts CAST_CEIL, Maxs 0, Floor as Cast CAST_FLOOR, Add; 64-aligned cores)"),
        ("_half_float", "half", "float", 30001, "TruncateDiv of half by float into float (Cast half -> float "
         "CAST_NONE beside a UB -> UB DataCopy)"),
        ("_int32", "int32", "int32", 50003, "TruncateDiv over int32 (Casts to float, the float chain, Cast "
         "float -> int32 CAST_RINT)"),
        ("_int16", "int16", "int16", 30001, "TruncateDiv over int16 (Cast int16 -> float, Cast float -> int16 "
         "CAST_RINT)"),
        ("_int8", "int8", "int8", 50003, "TruncateDiv over int8 (Casts int8 -> half -> float, float -> half "
         "CAST_NONE -> int8 CAST_RINT)"),
        ("_bf16", "bfloat16", "bfloat16", 20001, "TruncateDiv over bfloat16 (Cast to float, Cast CAST_RINT back)"),
        ("_int64", "int64", "int64", 3001, "TruncateDiv over int64 (the scalar unit: GlobalTensor GetValue / "
         "SetValue, C++ division, 0 for a zero divisor)"))
]
