"""The cann-samples SIMD VF story's broadcast adds on the 950 (Reg API), y = x + a with a broadcast along one axis of
x: the head axis (x [m, n], a [n]: every row plus a), the middle axis (x [m, b, n], a [m, n]: each of a row's b
copies plus a[m]) and the tail axis (x [m, n], a [m]: each row plus its scalar), n = 653 floats (10 vectors and 13).

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/cann-samples @ a934ed961db39999427f80612f6dd4c821822811, Samples/2_Performance/simd_vf_story/broadcast/src:
- broadcast_common.h, ../../include/kernel_utils.h (rows DataCopyPad'ed one by one to 32-byte aligned UB rows of
  nElemsAligned = 656 floats and back; single depth-1 queues for x, a and y in one TPipe; VFLoopNumForB32);
- head_axis_1_naive.asc (per row one VF: UpdateMask steps of LoadAlign x, LoadAlign a, Add, StoreAlign),
  mid_axis_1_naive.asc (per (m, b) row the same VF against a's row m), tail_axis_1_naive_getvalue.asc (per row the
  row's scalar by LocalTensor GetValue into a VF of LoadAlign, Adds, StoreAlign) and tail_axis_2_distbrc.asc (one VF
  over all rows: LoadAlign DIST_BRC_B32 of a[j] into a register, then the row's Add steps);
- head_axis_common.h, mid_axis_common.h, tail_axis_common.h (m = 17, n = 653; the middle case m = 8, b = 3; the
  buffers' sizes: x and y m * 656 floats, a 656 or m * 656 or m rounded up to 8).

Sizes: the gallery size is m (rows; the middle case's m, with b = 3); n = 653, as the samples.

Deviations: (1) the VFs load whole 64-float vectors: a row's last load (at 640) reaches 704 floats, 48 past the
656-float row, so the last row's load passes the end of the x buffer, and the head case's loads of a pass the end
of a's (a of 656 floats); on the device they read the next buffer (never written there for a: the y buffer). The
emulator refuses a load past its tensor (`slack=False` runs the original's sizes, tests/test_port47l_kernels.py
shows it): the port gives x and a one vector more and zeroes it; UpdateMask keeps those lanes out of every store.
(2) The tail case reads a's scalars with GetValue right after the queue's DeQue, whose MTE2_V event orders the
vector pipe after the copy but not the scalar unit (the sanitizer's device-sync race report, docs/decisions.md "The
device's synchronisation"; `original_sync=True`): the port adds an MTE2_S flag pair before the reads.

Devices: the samples are built for the 950 (dav-3510); the port runs there.

Fidelity: BIT-EXACT (LoadAlign, StoreAlign, Add, Adds, DataCopyPad; SPEC-2 0.3): y = x + a rounded once, as numpy's
float32 addition.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
VL_B32 = 64
N = 653                            # VL_B32 * 10 + 13
M_HEAD_TAIL, M_MID, B_MID = 17, 8, 3
DEVICES = ("ascend950",)


def elem_aligned(n):
    """ElemAlignedForB32: n floats rounded up to a 32-byte block."""
    return -(-n * 4 // 32) * 32 // 4


def vf_loop_num(n):
    return -(-n // VL_B32)


def add_vf(xAddr, xOff, aAddr, aOff, yAddr, yOff, n, vfLoopN):
    """The head / middle ComputeVF: one row plus one row of a."""
    xReg, aReg, yReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    remain = n
    for i in range(vfLoopN):
        mask, remain = R.UpdateMask("float", remain)
        R.LoadAlign(xReg, xAddr, xOff + i * VL_B32)
        R.LoadAlign(aReg, aAddr, aOff + i * VL_B32)
        R.Add(yReg, xReg, aReg, mask)
        R.StoreAlign(yAddr, yReg, mask, yOff + i * VL_B32)


def adds_vf(xAddr, xOff, yAddr, yOff, n, vfLoopN, aVal):
    """tail_axis_1's ComputeVF: one row plus a scalar."""
    xReg, yReg = R.RegTensor("float"), R.RegTensor("float")
    remain = n
    for i in range(vfLoopN):
        mask, remain = R.UpdateMask("float", remain)
        R.LoadAlign(xReg, xAddr, xOff + i * VL_B32)
        R.Adds(yReg, xReg, aVal, mask)
        R.StoreAlign(yAddr, yReg, mask, yOff + i * VL_B32)


def distbrc_vf(xAddr, aAddr, yAddr, n, nElemsAligned, vfLoopM, vfLoopN):
    """tail_axis_2's ComputeVF: every row, its scalar broadcast by a DIST_BRC_B32 load."""
    xReg, aReg, yReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    for j in range(vfLoopM):
        remain = n
        R.LoadAlign(aReg, aAddr, j, dist=R.LoadDist.DIST_BRC_B32)
        for i in range(vfLoopN):
            mask, remain = R.UpdateMask("float", remain)
            R.LoadAlign(xReg, xAddr, j * nElemsAligned + i * VL_B32)
            R.Add(yReg, xReg, aReg, mask)
            R.StoreAlign(yAddr, yReg, mask, j * nElemsAligned + i * VL_B32)


ADD_VF, ADDS_VF, DISTBRC_VF = R.simd_vf(add_vf), R.simd_vf(adds_vf), R.simd_vf(distbrc_vf)


def _copy_rows(dst, src, rows, elems, aligned, out=False):
    """RowiseCopyIn / RowiseCopyOut: a DataCopyPad of `elems` floats a row."""
    params = aj.DataCopyExtParams(1, elems * 4, 0, 0, 0)
    for row in range(rows):
        if out:
            aj.DataCopyPad(dst[row * elems], src[row * aligned], params)
        else:
            aj.DataCopyPad(dst[row * aligned], src[row * elems], params,
                           aj.DataCopyPadExtParams(False, 0, 0, np.float32(0.0)))


def broadcast_kernel(x, a, y, case, m, b, n, slack=True, original_sync=False):
    """brc_head_axis_1_naive_k, brc_mid_axis_1_naive_k, brc_tail_axis_1_naive_getvalue_k, brc_tail_axis_2_distbrc_k."""
    nElemsAligned = elem_aligned(n)
    rows = m * b
    aRows = {"head": 1, "mid": m}.get(case, 0)
    xElems = rows * nElemsAligned
    aElems = aRows * nElemsAligned if aRows else elem_aligned(m)
    extra = VL_B32 if slack else 0                   # deviation (1): one vector of slack past x and a
    xGlobal, aGlobal, yGlobal = aj.GlobalTensor("float"), aj.GlobalTensor("float"), aj.GlobalTensor("float")
    xGlobal.SetGlobalBuffer(x)
    aGlobal.SetGlobalBuffer(a)
    yGlobal.SetGlobalBuffer(y)
    pipe = aj.TPipe()
    xQueue, aQueue = aj.TQue(aj.QuePosition.VECIN, 1), aj.TQue(aj.QuePosition.VECIN, 1)
    yQueue = aj.TQue(aj.QuePosition.VECOUT, 1)
    pipe.InitBuffer(xQueue, 1, (xElems + extra) * 4)
    pipe.InitBuffer(aQueue, 1, (aElems + (extra if aRows else 0)) * 4)
    pipe.InitBuffer(yQueue, 1, xElems * 4)
    xLocal, aLocal, yLocal = xQueue.AllocTensor("float"), aQueue.AllocTensor("float"), yQueue.AllocTensor("float")
    if slack:
        aj.Duplicate(xLocal[xElems], np.float32(0.0), extra)
        if aRows:
            aj.Duplicate(aLocal[aElems], np.float32(0.0), extra)
    _copy_rows(xLocal, xGlobal, rows, n, nElemsAligned)
    if aRows:
        _copy_rows(aLocal, aGlobal, aRows, n, nElemsAligned)
    else:
        _copy_rows(aLocal, aGlobal, 1, m, aElems)
    xQueue.EnQue(xLocal)
    aQueue.EnQue(aLocal)
    xLocal = xQueue.DeQue("float")
    aLocal = aQueue.DeQue("float")
    loops = vf_loop_num(n)
    if case == "head":
        for j in range(m):
            R.asc_vf_call(ADD_VF, xLocal, j * nElemsAligned, aLocal, 0, yLocal, j * nElemsAligned, n, loops)
    elif case == "mid":
        for mi in range(m):
            for bi in range(b):
                rowOffset = (mi * b + bi) * nElemsAligned
                R.asc_vf_call(ADD_VF, xLocal, rowOffset, aLocal, mi * nElemsAligned, yLocal, rowOffset, n, loops)
    elif case == "tail":
        if not original_sync:                         # deviation (2): the scalar unit after the copy
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_S)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_S)
        for j in range(m):
            R.asc_vf_call(ADDS_VF, xLocal, j * nElemsAligned, yLocal, j * nElemsAligned, n, loops,
                          np.float32(aLocal.GetValue(j)))
    else:
        R.asc_vf_call(DISTBRC_VF, xLocal, aLocal, yLocal, n, nElemsAligned, m, loops)
    xQueue.FreeTensor(xLocal)
    aQueue.FreeTensor(aLocal)
    yQueue.EnQue(yLocal)
    yLocal = yQueue.DeQue("float")
    _copy_rows(yGlobal, yLocal, rows, n, nElemsAligned, out=True)
    yQueue.FreeTensor(yLocal)
    pipe.Destroy()


def run_broadcast(case, x, a, slack=True, original_sync=False):
    """case head: x (m, n), a (n,); mid: x (m, b, n), a (m, n); tail / distbrc: x (m, n), a (m,)."""
    if case == "mid":
        m, b, n = x.shape
    else:
        (m, n), b = x.shape, 1
    y = np.zeros(x.size, np.float32)
    aj.launch(broadcast_kernel, 1, "ascend950", np.ascontiguousarray(x).reshape(-1),
              np.ascontiguousarray(a).reshape(-1), y, case, m, b, n, slack, original_sync)
    return y.reshape(x.shape)


def broadcast_model(case, x, a):
    if case == "head":
        return (x + a[None, :]).astype(np.float32)
    if case == "mid":
        return (x + a[:, None, :]).astype(np.float32)
    return (x + a[:, None]).astype(np.float32)


def make_case_inputs(case, m, seed):
    rng = np.random.default_rng(seed)
    shape = (m, B_MID, N) if case == "mid" else (m, N)
    a_shape = {"head": (N,), "mid": (m, N)}.get(case, (m,))
    return {"x": rng.uniform(-100, 100, shape).astype(np.float32),
            "a": rng.uniform(-100, 100, a_shape).astype(np.float32)}


def _spec(case, file, what):
    return KernelSpec(
        f"vf_broadcast_{case}", f"cann-samples SIMD VF story: broadcast add along the {what}",
        lambda size, seed: make_case_inputs(case, size, seed),
        lambda device, inputs: {"y": run_broadcast(case, inputs["x"], inputs["a"]).reshape(-1)},
        lambda device, inputs: {"y": broadcast_model(case, inputs["x"], inputs["a"]).reshape(-1)},
        default_size=M_MID if case == "mid" else M_HEAD_TAIL, devices=DEVICES,
        size_rule="rows of 653 floats (1 to 64)", size_ok=lambda n: 0 < n <= 64,
        source="hicann/cann-samples@a934ed96 Samples/2_Performance/simd_vf_story/broadcast/src/" + file)


KERNELS = [
    _spec("head", "head_axis_1_naive.asc", "head axis (a [n] onto every row of x [m, n]: a VF a row of LoadAlign "
          "x and a, Add, StoreAlign under UpdateMask)"),
    _spec("mid", "mid_axis_1_naive.asc", "middle axis (a [m, n] onto x [m, 3, n]: a VF a row against a's row m)"),
    _spec("tail", "tail_axis_1_naive_getvalue.asc", "tail axis (a [m] onto x [m, n]: each row's scalar by GetValue "
          "into a VF of Adds; an MTE2_S flag pair the original lacks)"),
    _spec("distbrc", "tail_axis_2_distbrc.asc", "tail axis in one VF (each row's scalar broadcast into a register by "
          "a DIST_BRC_B32 LoadAlign, then Add steps)"),
]
