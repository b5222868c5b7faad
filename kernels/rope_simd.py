"""RoPE over pre-split pairs from the CANN learning hub's parallel-programming course: out_even = x_even * cos -
x_odd * sin, out_odd = x_even * sin + x_odd * cos, for 384 float pairs (12 heads x 32 pairs, split into even and odd
arrays by the host), on one vector core in one tile.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/cann-learning-hub @ 1bac4c6f3ef7165037ccd0ef39a56ae0b8f2b1a7,
contrib/tutorials/parallel_programming_principles_and_practice/06_ascendc_operator_development/02_rope_operator/src/
rope_simd_kernel.cpp (`KernelRopeSimd`, `rope_simd`: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY); a TPipe with
single-buffer VECIN queues for x_even, x_odd, cos and sin, VECOUT queues for the two outputs and four VECCALC TQues
for the products, all of TOTAL_PAIRS floats; CopyIn: four DataCopies of TOTAL_PAIRS floats, EnQue; Compute: DeQue,
AllocTensor of the four temporaries (never EnQue'd, freed after use) and the outputs, Mul, Mul, Sub, Mul, Mul, Add,
EnQue of the outputs; CopyOut: two DataCopies). The later revision of the repository no longer holds the file.

Sizes: the kernel's TOTAL_PAIRS = 384 (a compile-time constant; the port takes it as a parameter: any multiple of 8
pairs, a DataCopy's whole 32-byte blocks, whose ten buffers fit the UB; the gallery runs the original's 384).

Deviations: none.

Devices: the original targets the Ascend 910B3 (dav-2201, A2); the port runs on the A3 and A2.

Fidelity: BIT-EXACT (Mul, Sub, Add, DataCopy; SPEC-2 0.3): numpy's float32 products and the sum / difference, each
rounded once.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

TOTAL_PAIRS = 384                  # 12 heads x 32 pairs
BUFFER_NUM = 1
DEVICES = ("atlas-a3", "atlas-a2")


class KernelRopeSimd:
    """KernelRopeSimd."""

    def __init__(self, totalPairs=TOTAL_PAIRS):
        self.n = totalPairs
        self.pipe = aj.TPipe()
        P = aj.TPosition
        self.inQueueXEven, self.inQueueXOdd, self.inQueueCos, self.inQueueSin = (
            aj.TQue(P.VECIN, BUFFER_NUM) for _ in range(4))
        self.outQueueEven, self.outQueueOdd = aj.TQue(P.VECOUT, BUFFER_NUM), aj.TQue(P.VECOUT, BUFFER_NUM)
        self.tmpEven1, self.tmpEven2, self.tmpOdd1, self.tmpOdd2 = (aj.TQue(P.VECCALC, BUFFER_NUM) for _ in range(4))

    def Init(self, xEven, xOdd, cos, sin, outEven, outOdd):
        n = self.n
        self.xEvenGm, self.xOddGm, self.cosGm, self.sinGm, self.outEvenGm, self.outOddGm = (
            aj.GlobalTensor("float") for _ in range(6))
        for gm, arr in ((self.xEvenGm, xEven), (self.xOddGm, xOdd), (self.cosGm, cos), (self.sinGm, sin),
                        (self.outEvenGm, outEven), (self.outOddGm, outOdd)):
            gm.SetGlobalBuffer(arr, n)
        for q in (self.inQueueXEven, self.inQueueXOdd, self.inQueueCos, self.inQueueSin, self.tmpEven1,
                  self.tmpEven2, self.tmpOdd1, self.tmpOdd2, self.outQueueEven, self.outQueueOdd):
            self.pipe.InitBuffer(q, BUFFER_NUM, n * 4)

    def Process(self):
        self.CopyIn()
        self.Compute()
        self.CopyOut()

    def CopyIn(self):
        n = self.n
        xe, xo = self.inQueueXEven.AllocTensor("float"), self.inQueueXOdd.AllocTensor("float")
        c, s = self.inQueueCos.AllocTensor("float"), self.inQueueSin.AllocTensor("float")
        aj.DataCopy(xe, self.xEvenGm, n)
        aj.DataCopy(xo, self.xOddGm, n)
        aj.DataCopy(c, self.cosGm, n)
        aj.DataCopy(s, self.sinGm, n)
        self.inQueueXEven.EnQue(xe)
        self.inQueueXOdd.EnQue(xo)
        self.inQueueCos.EnQue(c)
        self.inQueueSin.EnQue(s)

    def Compute(self):
        n = self.n
        xe, xo = self.inQueueXEven.DeQue("float"), self.inQueueXOdd.DeQue("float")
        c, s = self.inQueueCos.DeQue("float"), self.inQueueSin.DeQue("float")
        te1, te2 = self.tmpEven1.AllocTensor("float"), self.tmpEven2.AllocTensor("float")
        to1, to2 = self.tmpOdd1.AllocTensor("float"), self.tmpOdd2.AllocTensor("float")
        oe, oo = self.outQueueEven.AllocTensor("float"), self.outQueueOdd.AllocTensor("float")
        aj.Mul(te1, xe, c, n)                 # out_even = x_even * cos - x_odd * sin
        aj.Mul(te2, xo, s, n)
        aj.Sub(oe, te1, te2, n)
        aj.Mul(to1, xe, s, n)                 # out_odd = x_even * sin + x_odd * cos
        aj.Mul(to2, xo, c, n)
        aj.Add(oo, to1, to2, n)
        self.outQueueEven.EnQue(oe)
        self.outQueueOdd.EnQue(oo)
        for q, t in ((self.tmpEven1, te1), (self.tmpEven2, te2), (self.tmpOdd1, to1), (self.tmpOdd2, to2),
                     (self.inQueueXEven, xe), (self.inQueueXOdd, xo), (self.inQueueCos, c), (self.inQueueSin, s)):
            q.FreeTensor(t)

    def CopyOut(self):
        n = self.n
        oe, oo = self.outQueueEven.DeQue("float"), self.outQueueOdd.DeQue("float")
        aj.DataCopy(self.outEvenGm, oe, n)
        aj.DataCopy(self.outOddGm, oo, n)
        self.outQueueEven.FreeTensor(oe)
        self.outQueueOdd.FreeTensor(oo)


def rope_simd(xEven, xOdd, cos, sin, outEven, outOdd, totalPairs=TOTAL_PAIRS):
    """The kernel entry (an AIV-only task: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY))."""
    op = KernelRopeSimd(totalPairs)
    op.Init(xEven, xOdd, cos, sin, outEven, outOdd)
    op.Process()


def run_rope_simd(device, x_even, x_odd, cos, sin):
    n = x_even.size
    out_even, out_odd = np.zeros(n, np.float32), np.zeros(n, np.float32)
    aj.launch(rope_simd, 1, device, x_even, x_odd, cos, sin, out_even, out_odd, n)
    return out_even, out_odd


def rope_simd_model(x_even, x_odd, cos, sin):
    return x_even * cos - x_odd * sin, x_even * sin + x_odd * cos


def split_pairs(x):
    """The host's step: a [heads, 64] row-major tensor's interleaved pairs as contiguous even and odd arrays."""
    flat = np.ascontiguousarray(x, np.float32).reshape(-1)
    return flat[0::2].copy(), flat[1::2].copy()


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    x_even, x_odd = split_pairs(rng.uniform(-2, 2, 2 * size))
    theta = rng.uniform(-np.pi, np.pi, size)
    return {"x_even": x_even, "x_odd": x_odd, "cos": np.cos(theta).astype(np.float32),
            "sin": np.sin(theta).astype(np.float32)}


def _run(device, inputs):
    e, o = run_rope_simd(device, inputs["x_even"], inputs["x_odd"], inputs["cos"], inputs["sin"])
    return {"out_even": e, "out_odd": o}


def _expected(device, inputs):
    e, o = rope_simd_model(inputs["x_even"], inputs["x_odd"], inputs["cos"], inputs["sin"])
    return {"out_even": e, "out_odd": o}


KERNEL = KernelSpec(
    "rope_simd", "learning-hub RoPE over host-split even / odd pairs (Mul, Mul, Sub and Mul, Mul, Add over 384 "
    "pairs on one core; VECCALC TQue temporaries)", make_inputs, _run, _expected, default_size=TOTAL_PAIRS,
    devices=DEVICES, size_rule="pairs, a multiple of 8 (1 to 4096; the original's 384)",
    size_ok=lambda n: 0 < n <= 4096 and n % 8 == 0,
    source="hicann/cann-learning-hub@1bac4c6f contrib/tutorials/parallel_programming_principles_and_practice/"
           "06_ascendc_operator_development/02_rope_operator/src/rope_simd_kernel.cpp")
