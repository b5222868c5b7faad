"""StackGroupPoints from the CANN CV operators (the PointNet++ stacked grouping): out[p, c, s] =
features[start_b + indices[p, s], c] for the points p of batch b (indices_batch_cnt counts the points a batch,
features_batch_cnt the feature rows a batch, start_b the rows before batch b), 0 where the index fails the kernel's
bounds; features (N, C) half or float, indices (M, nsample) int32, output (M, C, nsample).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-cv @ 6ae87653464d2afb064c829e529abba2e278b0c4, objdetect/stack_group_points:
- op_kernel/stack_group_points.h (`StackGroupPoints<T>`): the outputs in 16-element blocks dealt round-robin to the
  cores (block i of core k at (i x actCore + k) x 16; res blocks a core, the first reminder one more); a 16-element
  TBuf; per block: Duplicate 0, a scalar loop over its 16 outputs (skipping those past `standard`): the point's batch
  by walking indices_batch_cnt, the batch's feature rows by walking features_batch_cnt, the index and the feature
  read from GM on the scalar unit (`*GetPhyAddr(i)`), SetValue into the TBuf; PipeBarrier<PIPE_ALL>, DataCopy of
  the 16 elements to GM, PipeBarrier<PIPE_ALL>;
- op_kernel/stack_group_points.cpp (the entry: tiling key 0 half, 1 float) and op_host/stack_group_points_tiling.cpp
  (`StackGroupPointsTiling`: blocks = ceil(M C nsample / 16), res and reminder over the cores, min(cores, blocks)
  launched; standard = M C nsample; the GM sizes in bytes rounded up to 32).

Deviations: the core count is at most the launch's 8 (the compile info's core count in the original). The GM reads
through dereferenced physical addresses are GlobalTensor GetValues (the same scalar reads). The SetValues write
the TBuf the block's Duplicate (vector) is writing with no V -> S order: a write-after-write race on the device; the
port adds a FetchEventID'd V_S pair after the Duplicate (ORIGINAL_SYNC = True runs the original's form and
tests/test_port47cv2_kernels.py shows the sanitizer's report). Each block's DataCopy writes 16 elements, past the
output when M C nsample is no multiple of 16 (the host's outLength, bytes rounded up to 32, gives the GlobalTensor
its window in elements; the last core's block writes the whole block): the port's host pads the output to a
multiple of 16 elements and returns the first M C nsample (the padding is where the kernel's `index > standard`
lets the element at `standard` be computed too). The original's GM windows count bytes as elements; the port sets
each GlobalTensor over its whole array.

Devices: the operator's configs are the ascend910b and ascend910_93 (and two Kirin SoCs, not modelled): the port runs
on the A3 and A2.

Fidelity: BIT-EXACT (Duplicate, DataCopy, the scalar copies; SPEC-2 0.3): every output is a feature element or 0.
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (the compile info's totalCoreNum)
BYTE_SIZE = 16                     # the outputs a block (the original's name)
TEMP, BLOCK = 31, 32
TYPE_SIZE = {"half": 2, "float": 4}
_NP = {"half": np.float16, "float": np.float32}
DEVICES = ("atlas-a3", "atlas-a2")
ORIGINAL_SYNC = False              # True: the SetValues right after the Duplicate, no V_S pair


class StackGroupPointsTilingData(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in (
        "b", "m", "c", "nsample", "res", "featuresSize", "indicesSize", "fbcSize", "ibcSize", "reminder",
        "outLength", "n", "standard", "actCore")]


def tiling(features_shape, indices_shape, b, dtype):
    """StackGroupPointsTiling: (cores, tiling key, tiling bytes)."""
    n, c = features_shape
    m, nsample = indices_shape
    total = m * c * nsample
    blocks = -(-total // BYTE_SIZE)
    size = TYPE_SIZE[dtype]
    t = StackGroupPointsTilingData(
        b=b, m=m, c=c, nsample=nsample, res=blocks // CORE_NUM, reminder=blocks % CORE_NUM,
        featuresSize=(n * c * size + TEMP) // BLOCK * BLOCK, indicesSize=(m * nsample * 4 + TEMP) // BLOCK * BLOCK,
        fbcSize=((b + 1) * 4 + TEMP) // BLOCK * BLOCK, ibcSize=(b * 4 + TEMP) // BLOCK * BLOCK,
        outLength=(total * size + TEMP) // BLOCK * BLOCK, n=n, standard=total, actCore=CORE_NUM)
    cores = min(CORE_NUM, blocks)
    return cores, (0 if dtype == "half" else 1), np.frombuffer(bytes(t), np.uint8).copy()


class StackGroupPoints:
    """`StackGroupPoints<T>`."""

    def __init__(self, T):
        self.T = T

    def Init(self, features, features_batch_cnt, indices, indices_batch_cnt, y, td):
        T = self.T
        self.m, self.b, self.c, self.n, self.nsample = td.m, td.b, td.c, td.n, td.nsample
        self.res, self.reminder, self.actCore, self.standard = td.res, td.reminder, td.actCore, td.standard
        self.featuresGm, self.outputGm = aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.fbcGm, self.indicesGm, self.ibcGm = (aj.GlobalTensor("int32") for _ in range(3))
        # deviation: each window the whole array (the original passes byte counts as element counts)
        self.featuresGm.SetGlobalBuffer(features)
        self.fbcGm.SetGlobalBuffer(features_batch_cnt)
        self.indicesGm.SetGlobalBuffer(indices)
        self.ibcGm.SetGlobalBuffer(indices_batch_cnt)
        self.outputGm.SetGlobalBuffer(y)
        self.pipe = aj.TPipe()
        self.out = aj.TBuf(aj.QuePosition.VECCALC)
        self.pipe.InitBuffer(self.out, BYTE_SIZE * TYPE_SIZE[T])
        self.outputLocal = self.out.Get(T)

    def Process(self):
        tmp = self.res + (1 if aj.GetBlockIdx() < self.reminder else 0)
        for i in range(tmp):
            self.ComputeAndCopyOut(i)

    def ComputeAndCopyOut(self, progress):
        T, nsample, c = self.T, self.nsample, self.c
        outputLocal = self.outputLocal
        aj.Duplicate(outputLocal, _NP[T](0), BYTE_SIZE)
        if not ORIGINAL_SYNC:
            pipe = aj.GetTPipePtr()
            evt = pipe.FetchEventID(aj.HardEvent.V_S)  # deviation: the SetValues after the Duplicate's writes
            aj.SetFlag(evt, event=aj.HardEvent.V_S)
            aj.WaitFlag(evt, event=aj.HardEvent.V_S)
        base = progress * self.actCore * BYTE_SIZE + aj.GetBlockIdx() * BYTE_SIZE
        for index in range(base, base + BYTE_SIZE):
            if index > self.standard:
                continue
            sample_idx = index % nsample
            c_idx = index // nsample % c
            pt_idx = index // nsample // c
            pt_cnt = int(self.ibcGm.GetValue(0))
            bs_idx = 0
            for k in range(1, self.b):
                if pt_idx >= pt_cnt:
                    bs_idx = k
                    pt_cnt += int(self.ibcGm.GetValue(k))
            start = 0
            end = int(self.fbcGm.GetValue(0))
            for k in range(bs_idx):
                start += int(self.fbcGm.GetValue(k))
                end = start + int(self.fbcGm.GetValue(k + 1))
            tmp_cin = pt_idx * nsample + sample_idx
            cin = int(self.indicesGm.GetValue(tmp_cin)) if tmp_cin < self.m * nsample else 0
            in_idx = cin * c + c_idx
            if in_idx < end * c and in_idx < self.n * c - start * c:
                outputLocal.SetValue(index - base, self.featuresGm.GetValue(in_idx + start * c))
        aj.PipeBarrier(aj.PIPE_ALL)
        aj.DataCopy(self.outputGm[base], outputLocal[0], BYTE_SIZE)
        aj.PipeBarrier(aj.PIPE_ALL)


aj.REGISTER_TILING_DEFAULT(StackGroupPointsTilingData)


def stack_group_points(features, features_batch_cnt, indices, indices_batch_cnt, y, workspace, tiling_bytes,
                       tiling_key):
    """The kernel entry (stack_group_points.cpp)."""
    td = aj.GET_TILING_DATA(tiling_bytes)
    op = StackGroupPoints("half" if tiling_key == 0 else "float")
    op.Init(features, features_batch_cnt, indices, indices_batch_cnt, y, td)
    op.Process()


def run_stack_group_points(device, features, features_batch_cnt, indices, indices_batch_cnt):
    """features (N, C), features_batch_cnt (B,) int32, indices (M, nsample) int32, indices_batch_cnt (B,) ->
    (M, C, nsample)."""
    dtype = "half" if features.dtype == np.float16 else "float"
    b = len(indices_batch_cnt)
    cores, key, t = tiling(features.shape, indices.shape, b, dtype)
    m, nsample = indices.shape
    total = m * features.shape[1] * nsample
    out = np.zeros(-(-total // BYTE_SIZE) * BYTE_SIZE, features.dtype)   # deviation: whole 16-element blocks
    aj.launch(stack_group_points, cores, device, np.ascontiguousarray(features).reshape(-1),
              np.asarray(features_batch_cnt, np.int32),
              np.ascontiguousarray(indices, np.int32).reshape(-1), np.asarray(indices_batch_cnt, np.int32), out,
              None, t, key)
    return out[:total].reshape(m, features.shape[1], nsample)


def stack_group_points_model(features, features_batch_cnt, indices, indices_batch_cnt):
    """numpy: each point's batch, its feature rows' start and end, the kernel's bounds on the index."""
    n, c = features.shape
    m, nsample = indices.shape
    pt_batch = np.repeat(np.arange(len(indices_batch_cnt)), indices_batch_cnt)
    pt_batch = np.concatenate([pt_batch, np.full(max(0, m - len(pt_batch)), len(indices_batch_cnt) - 1)])[:m]
    starts = np.concatenate([[0], np.cumsum(features_batch_cnt)])[:-1]
    start = starts[pt_batch][:, None]
    end = (start[:, 0] + np.asarray(features_batch_cnt)[pt_batch])[:, None]
    cin = indices.astype(np.int64)
    ok = (cin < end) & (cin < n - start)                    # in_idx < end C and < (n - start) C, per channel
    rows = np.where(ok, start + cin, 0)
    out = features[rows].transpose(0, 2, 1)                 # (m, c, nsample)
    return np.where(ok[:, None, :], out, features.dtype.type(0)).astype(features.dtype)


def make_inputs(m, seed, dtype=np.float32, c=5, nsample=6, b=3):
    rng = np.random.default_rng(seed)
    fbc = rng.integers(4, 40, b).astype(np.int32)
    ibc = np.diff(np.sort(np.concatenate([[0, m], rng.integers(0, m + 1, b - 1)]))).astype(np.int32)
    feats = rng.uniform(-10, 10, (int(fbc.sum()), c)).astype(dtype)
    idx = np.concatenate([rng.integers(0, f + 3, (k, nsample)) for f, k in zip(fbc, ibc)]).astype(np.int32)
    return feats, fbc, idx, ibc


def _make_inputs(dtype):
    def make(size, seed):
        f, fbc, idx, ibc = make_inputs(max(1, size), seed, dtype)
        return {"features": f, "features_batch_cnt": fbc, "indices": idx, "indices_batch_cnt": ibc}
    return make


def _run(device, inputs):
    return {"y": run_stack_group_points(device, inputs["features"], inputs["features_batch_cnt"], inputs["indices"],
                                        inputs["indices_batch_cnt"])}


def _expected(device, inputs):
    return {"y": stack_group_points_model(inputs["features"], inputs["features_batch_cnt"], inputs["indices"],
                                          inputs["indices_batch_cnt"])}


_SOURCE = "hicann/ops-cv@6ae87653 objdetect/stack_group_points/op_kernel/stack_group_points.h"
KERNELS = [
    KernelSpec(f"stack_group_points{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=64,
               devices=DEVICES, source=_SOURCE, size_rule="the point count M (C 5, nsample 6, 3 batches)",
               size_ok=lambda n: n >= 1)
    for suffix, dtype, description in (
        ("", np.float32, "StackGroupPoints over float (16-output blocks round-robin over the cores: Duplicate 0, "
         "a scalar loop finding each point's batch and feature row from GM GetValues, SetValue; DataCopy out "
         "between PipeBarrier<PIPE_ALL>)"),
        ("_half", np.float16, "StackGroupPoints over half"))
]
