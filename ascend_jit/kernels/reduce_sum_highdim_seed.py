"""The seed's complete high-dim ReduceSum example (ReduceSum.zh.txt): 8320 ones, mask 128, repeat 65,
srcRepStride 8, with the queues the seed uses (inQueueSrc, outQueueDst, workQueue). Output [8320, 0 x 15]."""
import numpy as np

import ascend_jit as aj

from ._base import KernelSpec
from ..order import explain_reduce_order

DST_SIZE = 16


class KernelReduceSum:
    def Init(self, src_gm, dst_gm, size, mask_form):
        self.size, self.mask_form = size, mask_form
        self.repeat = size // 128
        self.src_global, self.dst_global = aj.GlobalTensor(src_gm), aj.GlobalTensor(dst_gm)
        self.pipe = aj.TPipe()
        self.inQueueSrc = aj.TQue(aj.TPosition.VECIN, 1)
        self.outQueueDst = aj.TQue(aj.TPosition.VECOUT, 1)
        self.workQueue = aj.TQue(aj.TPosition.VECCALC, 1)
        self.pipe.InitBuffer(self.inQueueSrc, 1, size * 2)
        self.pipe.InitBuffer(self.outQueueDst, 1, DST_SIZE * 2)
        self.pipe.InitBuffer(self.workQueue, 1, max(aj.GetReduceSumTmpSize(aj.current_core().device, "half",
                                                                           repeat_time=self.repeat), 16) * 2)

    def Process(self):
        self.CopyIn()
        self.Compute()
        self.CopyOut()

    def CopyIn(self):
        src_local = self.inQueueSrc.AllocTensor("half")
        aj.DataCopy(src_local, self.src_global, self.size)
        self.inQueueSrc.EnQue(src_local)

    def Compute(self):
        src_local = self.inQueueSrc.DeQue("half")
        dst_local = self.outQueueDst.AllocTensor("half")
        shared_tmp_buffer = self.workQueue.AllocTensor("half")
        dst_local[:] = 0
        mask = 128 if self.mask_form == "continuous" else [0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF]
        aj.ReduceSum(dst_local, src_local, shared_tmp_buffer, mask, self.repeat, 8)
        self.outQueueDst.EnQue(dst_local)
        self.inQueueSrc.FreeTensor(src_local)
        self.workQueue.FreeTensor(shared_tmp_buffer)

    def CopyOut(self):
        dst_local = self.outQueueDst.DeQue("half")
        aj.DataCopy(self.dst_global, dst_local, DST_SIZE)
        self.outQueueDst.FreeTensor(dst_local)


def make_inputs(size, seed):
    x = np.ones(size, np.float16) if seed == 0 else np.random.default_rng(seed).standard_normal(size).astype(np.float16)
    return {"src": x}


def run(device, inputs):
    out = {}
    for form in ("continuous", "bits"):
        dst = np.zeros(DST_SIZE, np.float16)
        with aj.Core(device):
            op = KernelReduceSum()
            op.Init(inputs["src"], dst, inputs["src"].size, form)
            op.Process()
        out[form] = dst
    return out


def expected(device, inputs):
    order = explain_reduce_order(device, "highdim", "half", mask=128, repeat_time=inputs["src"].size // 128)
    dst = np.zeros(DST_SIZE, np.float16)
    dst[0] = order.evaluate(inputs["src"], saturate=aj.Core(device).half_saturating)
    return {"continuous": dst, "bits": dst}


KERNEL = KernelSpec("reduce_sum_highdim", "seed high-dim ReduceSum: 8320 ones (seed 0) or normal values, mask 128, "
                    "repeat size/128 (continuous and bit masks)", make_inputs, run, expected, default_size=8320,
                    size_rule="a multiple of 128 that fits the UB", size_ok=lambda n: n > 0 and n % 128 == 0 and n <= 65536)
