"""Median from the CANN NN operators: the lower median of each row along the last dimension (the (L - 1) / 2-th
smallest) and the index of its first occurrence: the BIGSEL path (float, half, bfloat16 with 8192 < L <= 24576, the
whole row resident in the UB, the median found by vector bisection counting) and the BIG path (the floating types
with L > 24576 over several rows, int32 / int16 / int8 / uint8 with L > 8192: the row re-read from GM every pass).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/index/median:
- op_kernel/median.h (`NsMedian::MedianBigSel<T>`): rows split over cores (ceil(batch / cores) each); a T input TBuf
  of 8192 elements, one-element value and index TBufs and a work TBuf cut by GetWithOffset into the resident float
  row (24576), an indicator chunk (8192), a reduce work area (1024), 64 reduce slots and a compare mask. Per row:
  Duplicate +3e38 over the row rounded up to 64, V_MTE2; per 8192-element chunk a DataCopyPad in, MTE2_V, Adds 0
  (float) or Cast CAST_NONE into the row, V_MTE2. Then a range scan (ReduceMin / ReduceMax per chunk into separate
  slots, PipeBarrier<PIPE_V>, the scalar min / max by GetValue); 22 bisection steps m = (lo + hi) * 0.5, counting
  x <= m by CompareScalar LE, Duplicate 1, Select VSEL_TENSOR_SCALAR_MODE (else 0), ReduceSum per chunk (hi = m when
  the count reaches mid + 1, else lo = m); the value min{x > lo} by CompareScalar GT, Select (else +3e38),
  ReduceMin; the index min{j : x[j] == v} by CompareScalar EQ, CreateVecIndex, Cast int32 -> float CAST_RINT,
  Select, ReduceMin; the value SetValue'd (16-bit types: into a float slot, S_V, Cast CAST_RINT), the index
  SetValue'd, S_MTE3, two DataCopyPads of one element out. `MedianBig<T>`: an 8192-element float chunk TBuf; per
  chunk load a DataCopyPad, MTE2_V and Adds 0 / CastInRow (8-bit types through half); the range scan by ReduceMin /
  ReduceMax and GetValue a chunk; 40 bisection steps, each re-reading every chunk (CompareScalar LE, Duplicate 1,
  Select, ReduceSum, GetValue); the value hi itself and its index by a scalar GetValue scan of the chunks (0 if no
  element equals hi); CastOutRow (CAST_RINT; 8-bit types through half);
- op_kernel/median.cpp (the entry: the tiling key picks the path) and op_host/median_tiling.cpp (MedianTilingFunc:
  batch = numel / L, mid = (L - 1) / 2; BIGSEL for floating types with 8192 < L <= 24576, BIG above it with several
  rows or for integer types over 8192; cores = min(batch, cores), 8 for integer rows fewer than 8).

Tiling modes ported: BIGSEL and BIG. Refused by the port's host code with a ParameterError naming the path: MAIN
and SMALL (L <= 8192: Sort32 and MrgSort, which the emulator does not offer), HEAP (int64), BIGSORT (one floating
row over 24576: Sort and a cross-core combine).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). (1) The scalar GetValues of the reduce
slots follow the vector ReduceSum / ReduceMin / ReduceMax after only a PipeBarrier<PIPE_V> ("V -> S: one
PipeBarrier is enough", the original's comment), which orders no scalar access (the barrier is the V pipe's); the
A2 / A3 CreateVecIndex writes its first 32 bytes on the scalar unit (decisions.md, "CreateVecIndex") over the
indicator chunk the previous chunk's Select wrote and ReduceMin read; the next row's SetValues into the output slots
follow the last row's copy-out with no MTE3 -> S order; MedianBig's chunk loads overwrite the input TBuf the last
chunk's Adds / Cast read, and its index scan GetValues the chunk behind only a PipeBarrier<PIPE_V>: the port adds
SetFlag / WaitFlag V_S after each barrier and before each CreateVecIndex, MTE3_S before the SetValues and V_MTE2
before each MedianBig load; ORIGINAL_SYNC = True leaves them out (the sanitizer reports the races). (2) For the
non-float types the value's CastOutRow converts 8 floats of a reduce slot of which the scalar wrote one: the port
Duplicates zeros over the 64 slots once (only element 0 is copied out either way); ORIGINAL_SLOT = True leaves them
uninitialised (the sanitizer's init report).

Devices: the operator's config is the ascend910b / ascend910_93: the port runs on the A3 and A2.

Fidelity: BIT-EXACT (Duplicate, Adds 0, Casts to float (exact below 2**24), CompareScalar, Select, ReduceSum of
0 / 1 values (exact below 2**24), ReduceMin / ReduceMax, CreateVecIndex, Cast of indices below 2**24, CastOutRow,
scalar float arithmetic in float); the model replays the original's algorithm. BIGSEL narrows [min, max] 22 times:
the value is the lower median whenever no other element lies in the last interval (checked against numpy's sorted
rows for random rows). BIG's value is hi, the last bisection bound after 40 steps: the median once the bisection
reaches adjacent floats, else a value between elements with index 0. A float row is loaded by Adds 0, which turns
-0 into +0 (a float median of zero is +0); half / bfloat16 rows keep -0 (Cast), the reduces order -0 below +0
(SPEC-2 D41 / D52). The original's misses, kept: a row whose lower median is its minimum (a constant row, or half
of it at the minimum) is missed by BIGSEL (lo starts at the minimum and the value search takes x > lo only: the next
larger element, or, if none, the +3e38 fill, whose first lane past L becomes the index L when L is not a multiple of
64); infinities break the bisection (with -inf and no +inf lo stays -inf and the value is the smallest element above
it; with both, lo + hi is NaN and nothing is found). Where nothing is found and no fill lane follows the row, the
original converts the 3e38 sentinel to int32 (undefined behaviour): the port refuses that (ParameterError).
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
NEG = np.float32(-3.0e38)
POS = np.float32(3.0e38)
BIGSEL_FIT = 24576
BIG_CHUNK = 8192
BIG_RDW = 1024
P_MAIN = 8192
ITERATIONS = 22
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2, "int32": 4, "int16": 2, "int8": 1, "uint8": 1}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "int32": np.int32, "int16": np.int16,
       "int8": np.int8, "uint8": np.uint8}
FP_TYPES = ("float", "half", "bfloat16")
BIG_ITERATIONS = 40
DEVICES = ("atlas-a3", "atlas-a2")
ORIGINAL_SYNC = False              # True: no V_S / MTE3_S flags around the scalar accesses (deviation 1)
ORIGINAL_SLOT = False              # True: the reduce slots CastOutRow reads left uninitialised (deviation 2)
MEDIAN_PATH_BIGSEL = 2
MEDIAN_PATH_BIG = 3


class MedianTilingData(ctypes.Structure):
    _fields_ = [("batch", ctypes.c_int64), ("redLen", ctypes.c_int64), ("mid", ctypes.c_int64),
                ("nSeg", ctypes.c_int64), ("pad", ctypes.c_int64)]


def tiling(device, shape, dtype):
    """MedianTilingFunc, the BIGSEL and BIG paths: (core count, path, tiling bytes); the other paths refused."""
    numel = int(np.prod(shape, dtype=np.int64))
    red_len = max(1, shape[-1] if len(shape) else 1)
    batch = numel // red_len
    fp = dtype in FP_TYPES

    def refuse(path):
        raise aj.ParameterError("Median tiling", "path", path, legal="BIGSEL (a floating type, 8192 < L <= 24576) or "
                                "BIG (a floating type, L > 24576 over several rows; int32 / int16 / int8 / uint8, L > "
                                "8192): the port's paths",
                                detail=f"x {tuple(shape)} {dtype} selects {path}, not ported")
    if dtype == "int64":
        refuse("HEAP")
    if dtype not in TYPE_SIZE:
        raise aj.ParameterError("Median tiling", "dtype", dtype, legal=", ".join(TYPE_SIZE) + ", int64")
    if red_len <= P_MAIN:
        refuse("SMALL" if red_len <= 32 and fp else "MAIN")
    if fp and red_len > BIGSEL_FIT and batch == 1:
        refuse("BIGSORT")
    path = MEDIAN_PATH_BIGSEL if fp and red_len <= BIGSEL_FIT else MEDIAN_PATH_BIG
    cores = max(1, min(batch, CORE_NUM))
    if not fp and batch < 8:
        cores = 8                                       # int large L, few rows: 8 cores
    t = MedianTilingData(batch=batch, redLen=red_len, mid=(red_len - 1) // 2, nSeg=0, pad=0)
    return cores, path, np.frombuffer(bytes(t), np.uint8).copy()


def _cast_in_row(tmpHalf, dst, src, length):
    """CastInRow: 8-bit types through half, the others one Cast CAST_NONE."""
    if src.dtype.size == 1:
        aj.Cast(tmpHalf, src, aj.RoundMode.CAST_NONE, length)
        aj.Cast(dst, tmpHalf, aj.RoundMode.CAST_NONE, length)
    else:
        aj.Cast(dst, src, aj.RoundMode.CAST_NONE, length)


def _cast_out_row(tmpHalf, dst, src, cnt):
    """CastOutRow: 8-bit types through half (CAST_RINT twice), the others one Cast CAST_RINT."""
    if dst.dtype.size == 1:
        aj.Cast(tmpHalf, src, aj.RoundMode.CAST_RINT, cnt)
        aj.Cast(dst, tmpHalf, aj.RoundMode.CAST_RINT, cnt)
    else:
        aj.Cast(dst, src, aj.RoundMode.CAST_RINT, cnt)


def _sync(event):
    """Deviation (1): a SetFlag / WaitFlag pair the original lacks."""
    if not ORIGINAL_SYNC:
        aj.SetFlag(aj.EVENT_ID0, event=event)
        aj.WaitFlag(aj.EVENT_ID0, event=event)


class MedianBigSel:
    """`MedianBigSel<T>` (T float, half, bfloat16)."""

    def __init__(self, T):
        self.T = T

    def Init(self, pipe, x, val, idxo, rowStart, rowEnd, L, mid):
        T = self.T
        self.pipe, self.rb, self.re, self.L, self.mid = pipe, rowStart, rowEnd, L, mid
        self.Lp = (L + 63) // 64 * 64
        self.inGm, self.valGm, self.idxGm = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor("int32")
        self.inGm.SetGlobalBuffer(x)
        self.valGm.SetGlobalBuffer(val)
        self.idxGm.SetGlobalBuffer(idxo)
        self.inBuf, self.outValBuf = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        self.outIdxBuf, self.workBuf = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(self.inBuf, BIG_CHUNK * TYPE_SIZE[T])
        pipe.InitBuffer(self.outValBuf, 32)
        pipe.InitBuffer(self.outIdxBuf, 32)
        pipe.InitBuffer(self.workBuf, BIGSEL_FIT * 4 + BIG_CHUNK * 4 + BIG_RDW * 4 + 256 + (BIG_CHUNK // 8 + 32))

    def Process(self):
        wb = self.workBuf
        self.data = wb.GetWithOffset("float", BIGSEL_FIT, 0)
        self.ind = wb.GetWithOffset("float", BIG_CHUNK, BIGSEL_FIT * 4)
        self.rdw = wb.GetWithOffset("float", BIG_RDW, (BIGSEL_FIT + BIG_CHUNK) * 4)
        self.red = wb.GetWithOffset("float", 64, (BIGSEL_FIT + BIG_CHUNK + BIG_RDW) * 4)
        self.mk = wb.GetWithOffset("uint8", BIG_CHUNK // 8 + 32, (BIGSEL_FIT + BIG_CHUNK + BIG_RDW + 64) * 4)
        if not ORIGINAL_SLOT and self.T != "float":
            aj.Duplicate(self.red, np.float32(0.0), 64)     # deviation (2): the 8-float CastOutRow's other lanes
        for r in range(self.rb, self.re):
            self.LoadRowToData(r)
            v, idx = self.ComputeMedian()
            self.EnqueueAndCopyOut(r, v, idx)

    def _chunks(self):
        for off in range(0, self.L, BIG_CHUNK):
            yield off, min(self.L - off, BIG_CHUNK)

    def LoadRowToData(self, r):
        T = self.T
        aj.Duplicate(self.data, POS, self.Lp)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)
        raw = self.inBuf.Get(T)
        for off, clen in self._chunks():
            aj.DataCopyPad(raw, self.inGm[r * self.L + off], aj.DataCopyExtParams(1, clen * TYPE_SIZE[T], 0, 0, 0),
                           aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0)))
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
            if T == "float":
                aj.Adds(self.data[off], raw, np.float32(0.0), clen)
            else:
                _cast_in_row(None, self.data[off], raw, clen)
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)

    def _barrier_then_scalar(self):
        aj.PipeBarrier(aj.PIPE_V)
        _sync(aj.HardEvent.V_S)                        # deviation (1): the GetValues read the Reduce results

    def CountLE(self, m):
        nc = 0
        for off, clen in self._chunks():
            cl = (clen + 63) // 64 * 64
            aj.Compares(self.mk, self.data[off], m, aj.CMPMODE.LE, cl)
            aj.Duplicate(self.ind, np.float32(1.0), cl)
            aj.Select(self.ind, self.mk, self.ind, np.float32(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, cl)
            aj.ReduceSum(self.red[nc * 8], self.ind, self.rdw, cl)
            nc += 1
        self._barrier_then_scalar()
        le = np.float32(0.0)
        for i in range(nc):
            le = np.float32(le + self.red[i * 8].GetValue(0))
        return le

    def ComputeMedian(self):
        lo, hi = POS, NEG
        nr = 0
        for off, clen in self._chunks():                # 1) the range scan
            aj.ReduceMin(self.red[nr * 16], self.data[off], self.rdw, clen)
            aj.ReduceMax(self.red[nr * 16 + 8], self.data[off], self.rdw, clen)
            nr += 1
        self._barrier_then_scalar()
        for i in range(nr):
            mn, mx = self.red[i * 16].GetValue(0), self.red[i * 16 + 8].GetValue(0)
            lo = mn if mn < lo else lo
            hi = mx if mx > hi else hi
        mid1 = np.float32(self.mid + 1)
        for _ in range(ITERATIONS):                     # 2) the bisection by counting
            with np.errstate(invalid="ignore"):         # -inf + inf: NaN, as the device's float add
                m = np.float32(np.float32(lo + hi) * np.float32(0.5))
            if self.CountLE(m) >= mid1:
                hi = m
            else:
                lo = m
        best, nc = POS, 0                               # 3) the value: min{x > lo}
        for off, clen in self._chunks():
            cl = (clen + 63) // 64 * 64
            aj.Compares(self.mk, self.data[off], lo, aj.CMPMODE.GT, cl)
            aj.Select(self.ind, self.mk, self.data[off], POS, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, cl)
            aj.ReduceMin(self.red[nc * 8], self.ind, self.rdw, cl)
            nc += 1
        self._barrier_then_scalar()
        for i in range(nc):
            b2 = self.red[i * 8].GetValue(0)
            best = b2 if b2 < best else best
        v = best
        best, nc = POS, 0                               # 4) the index: min{j : x[j] == v}
        for off, clen in self._chunks():
            cl = (clen + 63) // 64 * 64
            aj.Compares(self.mk, self.data[off], v, aj.CMPMODE.EQ, cl)
            indI = self.ind.ReinterpretCast("int32")
            _sync(aj.HardEvent.V_S)                    # deviation (1): the A2 CreateVecIndex's first block is scalar
            aj.CreateVecIndex(indI, np.int32(off), cl)
            aj.Cast(self.ind, indI, aj.RoundMode.CAST_RINT, cl)
            aj.Select(self.ind, self.mk, self.ind, POS, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, cl)
            aj.ReduceMin(self.red[nc * 8], self.ind, self.rdw, cl)
            nc += 1
        self._barrier_then_scalar()
        for i in range(nc):
            b2 = self.red[i * 8].GetValue(0)
            best = b2 if b2 < best else best
        if not best < 2.0 ** 31:
            raise aj.ParameterError("Median", "x", "a row without its bisection value", detail="no element equals "
                                    f"{v} (a row with +inf and -inf, or NaN): the original converts {best} to int32, "
                                    "undefined in C++")
        return v, np.int32(best)

    def EnqueueAndCopyOut(self, r, v, idx):
        T = self.T
        outV = self.outValBuf.Get(T)
        outI = self.outIdxBuf.Get("int32")
        _sync(aj.HardEvent.MTE3_S)                     # deviation (1): the last row's copy-out read the slots
        if T == "float":
            outV.SetValue(0, v)
        else:
            tmpFp = self.workBuf.GetWithOffset("float", 64, (BIGSEL_FIT + BIG_CHUNK + BIG_RDW) * 4)
            tmpFp.SetValue(0, v)
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
            _cast_out_row(None, outV, tmpFp, 8)
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        outI.SetValue(0, idx)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_MTE3)
        aj.DataCopyPad(self.valGm[r], outV, aj.DataCopyExtParams(1, TYPE_SIZE[T], 0, 0, 0))
        aj.DataCopyPad(self.idxGm[r], outI, aj.DataCopyExtParams(1, 4, 0, 0, 0))


class MedianBig:
    """`MedianBig<T>` (floating types with L > 24576 over several rows, int32 / int16 / int8 / uint8 with L > 8192):
    every pass re-reads the row from GM chunk by chunk."""

    def __init__(self, T):
        self.T = T

    def Init(self, pipe, x, val, idxo, rowStart, rowEnd, L, mid):
        T = self.T
        self.rb, self.re, self.L, self.mid = rowStart, rowEnd, L, mid
        self.inGm, self.valGm, self.idxGm = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor("int32")
        self.inGm.SetGlobalBuffer(x)
        self.valGm.SetGlobalBuffer(val)
        self.idxGm.SetGlobalBuffer(idxo)
        self.inBuf, self.outValBuf = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        self.outIdxBuf, self.workBuf = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(self.inBuf, BIG_CHUNK * TYPE_SIZE[T])
        pipe.InitBuffer(self.outValBuf, 32)
        pipe.InitBuffer(self.outIdxBuf, 32)
        half_bytes = BIG_CHUNK * 2 if TYPE_SIZE[T] == 1 else 0
        pipe.InitBuffer(self.workBuf, BIG_CHUNK * 4 + BIG_RDW * 4 + 256 + (BIG_CHUNK // 8 + 32) + half_bytes)

    def Process(self):
        wb = self.workBuf
        self.sc = wb.GetWithOffset("float", BIG_CHUNK, 0)
        self.rdw = wb.GetWithOffset("float", BIG_RDW, BIG_CHUNK * 4)
        self.red = wb.GetWithOffset("float", 64, (BIG_CHUNK + BIG_RDW) * 4)
        self.mk = wb.GetWithOffset("uint8", BIG_CHUNK // 8 + 32, (BIG_CHUNK + BIG_RDW) * 4 + 256)
        self.tmpHalf = None
        if TYPE_SIZE[self.T] == 1:
            self.tmpHalf = wb.GetWithOffset("half", BIG_CHUNK, (BIG_CHUNK + BIG_RDW) * 4 + 256 + BIG_CHUNK // 8 + 32)
        if not ORIGINAL_SLOT and self.T != "float":
            aj.Duplicate(self.red, np.float32(0.0), 64)     # deviation (2)
        for r in range(self.rb, self.re):
            v, idx = self.ComputeRowMedian(r)
            self.CopyOutOne(r, v, idx)

    def _chunks(self):
        for off in range(0, self.L, BIG_CHUNK):
            yield off, min(self.L - off, BIG_CHUNK)

    def LoadChunk(self, r, off, clen):
        T = self.T
        raw = self.inBuf.Get(T)
        _sync(aj.HardEvent.V_MTE2)                     # deviation (1): the last chunk's Adds / Cast read raw
        aj.DataCopyPad(raw, self.inGm[r * self.L + off], aj.DataCopyExtParams(1, clen * TYPE_SIZE[T], 0, 0, 0),
                       aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0)))
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        if T == "float":
            aj.Adds(self.sc, raw, np.float32(0.0), clen)
        else:
            _cast_in_row(self.tmpHalf, self.sc, raw, clen)

    def _barrier_then_scalar(self):
        aj.PipeBarrier(aj.PIPE_V)
        _sync(aj.HardEvent.V_S)                        # deviation (1): the GetValues read the vector's results

    def ComputeRowMedian(self, r):
        lo, hi = POS, NEG
        for off, clen in self._chunks():               # 1) the range scan
            self.LoadChunk(r, off, clen)
            aj.ReduceMin(self.red, self.sc, self.rdw, clen)
            aj.ReduceMax(self.red[8], self.sc, self.rdw, clen)
            self._barrier_then_scalar()
            mn, mx = self.red.GetValue(0), self.red[8].GetValue(0)
            lo = mn if mn < lo else lo
            hi = mx if mx > hi else hi
        mid1 = np.float32(self.mid + 1)
        for _ in range(BIG_ITERATIONS):                # 2) 40 bisection steps, each re-reading the row
            with np.errstate(invalid="ignore"):
                m = np.float32(np.float32(lo + hi) * np.float32(0.5))
            le = np.float32(0.0)
            for off, clen in self._chunks():
                self.LoadChunk(r, off, clen)
                cl = (clen + 63) // 64 * 64
                aj.Compares(self.mk, self.sc, m, aj.CMPMODE.LE, cl)
                aj.Duplicate(self.sc, np.float32(1.0), clen)
                aj.Select(self.sc, self.mk, self.sc, np.float32(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, clen)
                aj.ReduceSum(self.red, self.sc, self.rdw, clen)
                self._barrier_then_scalar()
                le = np.float32(le + self.red.GetValue(0))
            if le >= mid1:
                hi = m
            else:
                lo = m
        v, idx = hi, 0                                  # 3) the value is hi; its first index by a scalar scan
        for off, clen in self._chunks():
            self.LoadChunk(r, off, clen)
            self._barrier_then_scalar()
            hits = [j for j in range(clen) if self.sc.GetValue(j) == v][:1]
            if hits:
                idx = off + hits[0]
                break
        return v, np.int32(idx)

    def CopyOutOne(self, r, v, idx):
        T = self.T
        outV = self.outValBuf.Get(T)
        outI = self.outIdxBuf.Get("int32")
        _sync(aj.HardEvent.MTE3_S)                     # deviation (1): the last row's copy-out read the slots
        if T == "float":
            outV.SetValue(0, v)
        else:
            tmpFp = self.workBuf.GetWithOffset("float", 64, (BIG_CHUNK + BIG_RDW) * 4)
            tmpFp.SetValue(0, v)
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_V)
            _cast_out_row(self.tmpHalf, outV, tmpFp, 8)
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        outI.SetValue(0, idx)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.S_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.S_MTE3)
        aj.DataCopyPad(self.valGm[r], outV, aj.DataCopyExtParams(1, TYPE_SIZE[T], 0, 0, 0))
        aj.DataCopyPad(self.idxGm[r], outI, aj.DataCopyExtParams(1, 4, 0, 0, 0))


aj.REGISTER_TILING_DEFAULT(MedianTilingData)


def median(x, y, z, workspace, tiling_bytes, dtype, path=MEDIAN_PATH_BIGSEL):
    """The kernel entry (median.cpp: schMode MEDIAN_PATH_BIGSEL or MEDIAN_PATH_BIG)."""
    td = aj.GET_TILING_DATA_WITH_STRUCT(MedianTilingData, tiling_bytes)
    b, L, m = td.batch, td.redLen, td.mid
    bid, bn = aj.GetBlockIdx(), aj.GetBlockNum()
    if bn == 0:
        return
    pipe = aj.TPipe()
    per = (b + bn - 1) // bn
    s = bid * per
    e = min(s + per, b)
    if s >= b:
        return
    op = MedianBigSel(dtype) if path == MEDIAN_PATH_BIGSEL else MedianBig(dtype)
    op.Init(pipe, x, y, z, s, e, L, m)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_median(device, x):
    """(values, indices int32) of x's lower median along the last dimension."""
    dtype = _dtype_name(x)
    cores, path, t = tiling(device, x.shape, dtype)
    batch = x.size // x.shape[-1]
    values, indices = np.zeros(batch, x.dtype), np.zeros(batch, np.int32)
    aj.launch(median, cores, device, np.ascontiguousarray(x).reshape(-1), values, indices, None, t, dtype, path)
    return values.reshape(x.shape[:-1]), indices.reshape(x.shape[:-1])


def _first_extreme(a, fn):
    """ReduceMin / ReduceMax's value (SPEC-2 D50 / D52): ties, -0 and +0 among them, go to the earliest element."""
    return a[np.flatnonzero(a == fn(a))[0]]


def _bigsel_model(x):
    """The kernel's bisection in numpy (float32 arithmetic, exact counts), row by row."""
    L = x.shape[-1]
    rows = x.reshape(-1, L).astype(np.float32)
    if x.dtype == np.float32:
        rows = rows + np.float32(0.0)                   # the load's Adds 0: -0 becomes +0
    mid1 = np.float32((L - 1) // 2 + 1)
    vals, idxs = [], []
    Lp = (L + 63) // 64 * 64
    for row in rows:
        lo, hi = _first_extreme(row, np.min), _first_extreme(row, np.max)     # the range scan: the real elements
        padded = np.concatenate([row, np.full(Lp - L, POS, np.float32)])      # the rest: the +3e38 fill too
        with np.errstate(invalid="ignore"):
            for _ in range(ITERATIONS):
                m = np.float32(np.float32(lo + hi) * np.float32(0.5))
                if np.float32(np.count_nonzero(padded <= m)) >= mid1:
                    hi = m
                else:
                    lo = m
        above = padded[padded > lo]
        v = _first_extreme(above, np.min) if above.size else POS
        hits = np.flatnonzero(padded == v)
        vals.append(v)
        idxs.append(hits[0] if hits.size else -1)
    return (np.array(vals, np.float32).astype(x.dtype).reshape(x.shape[:-1]),
            np.array(idxs, np.int32).reshape(x.shape[:-1]))


def _to_type(v, dtype):
    """CastOutRow of float values: CAST_RINT (8-bit types through half), integers saturated (SPEC-2 D45)."""
    v = np.asarray(v, np.float32)
    if dtype in (np.float32, np.float16, ml_dtypes.bfloat16):
        return v.astype(dtype)
    if np.dtype(dtype).itemsize == 1:
        v = v.astype(np.float16).astype(np.float32)
    info = np.iinfo(dtype)
    return np.clip(np.rint(v.astype(np.float64)), info.min, info.max).astype(dtype)


def _big_model(x):
    """MedianBig in numpy: the range of the row, 40 bisection steps counting x <= m, the value hi, the index of the
    first element equal to it (0 if none)."""
    L = x.shape[-1]
    rows = x.reshape(-1, L).astype(np.float32)
    if x.dtype == np.float32:
        rows = rows + np.float32(0.0)
    mid1 = np.float32((L - 1) // 2 + 1)
    vals, idxs = [], []
    for row in rows:
        lo, hi = row.min(), row.max()
        with np.errstate(invalid="ignore"):
            for _ in range(BIG_ITERATIONS):
                m = np.float32(np.float32(lo + hi) * np.float32(0.5))
                if np.float32(np.count_nonzero(row <= m)) >= mid1:
                    hi = m
                else:
                    lo = m
        hits = np.flatnonzero(row == hi)
        vals.append(hi)
        idxs.append(hits[0] if hits.size else 0)
    return (_to_type(vals, x.dtype.type).reshape(x.shape[:-1]), np.array(idxs, np.int32).reshape(x.shape[:-1]))


def median_model(x):
    """The kernel's algorithm in numpy for the path the tiling picks (BIGSEL or BIG)."""
    dtype = _dtype_name(x)
    if dtype in FP_TYPES and x.shape[-1] <= BIGSEL_FIT:
        return _bigsel_model(x)
    return _big_model(x)


_GALLERY = {"median": ("float", 10007), "median_half": ("half", 9000), "median_bf16": ("bfloat16", 24576),
            "median_big": ("float", 30000), "median_int32": ("int32", 9000), "median_uint8": ("uint8", 8500)}


def _make_inputs(name):
    dtype, L = _GALLERY[name]

    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        if dtype in ("int32", "uint8"):
            hi = 256 if dtype == "uint8" else 10 ** 6
            return {"x": rng.integers(0 if dtype == "uint8" else -hi, hi, (size // L, L)).astype(_NP[dtype])}
        x = rng.standard_normal((size // L, L)).astype(np.float32)
        x[:, ::97] = np.round(x[:, ::97] * 4) / 4       # repeated values
        return {"x": x.astype(_NP[dtype])}
    return make_inputs


def _run(device, inputs):
    values, indices = run_median(device, inputs["x"])
    return {"values": values, "indices": indices}


def _expected(device, inputs):
    values, indices = median_model(inputs["x"])
    return {"values": values, "indices": indices}


def _rule(name):
    L = _GALLERY[name][1]
    return f"a multiple of {L} elements (rows of {L})", lambda n: n > 0 and n % L == 0


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/index/median/op_kernel/median.h"
KERNELS = [
    KernelSpec(name, description, _make_inputs(name), _run, _expected, default_size=size, devices=DEVICES,
               size_rule=_rule(name)[0], size_ok=_rule(name)[1], source=_SOURCE)
    for name, size, description in (
        ("median", 8 * 10007, "Median of rows of 10007 floats (BIGSEL: the row resident in float, a range scan by "
         "ReduceMin / ReduceMax, 22 bisection steps counting by CompareScalar LE / Select / ReduceSum, the value "
         "and first index by CompareScalar / Select / CreateVecIndex / ReduceMin)"),
        ("median_half", 4 * 9000, "Median of rows of 9000 halves (Cast to the float row, Cast CAST_RINT back)"),
        ("median_bf16", 2 * 24576, "Median of rows of 24576 bfloat16 (three 8192-element chunks, the largest "
         "BIGSEL row)"),
        ("median_big", 2 * 30000, "Median of rows of 30000 floats (BIG: every pass re-reads the row from GM in "
         "8192-element chunks, 40 bisection steps, the value hi and its first index by a scalar scan)"),
        ("median_int32", 3 * 9000, "Median of rows of 9000 int32 (BIG: Cast to float, the value Cast CAST_RINT "
         "back; 8 cores for fewer than 8 rows)"),
        ("median_uint8", 2 * 8500, "Median of rows of 8500 uint8 (BIG: Casts through half in and out)"))
]
