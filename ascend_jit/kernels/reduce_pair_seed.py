"""The seed ReducePairElem example: [1,1,1,-1,2,2,-1,2,3,3,3,-1,4,4,-2,4,...] -> [2,0,4,1,6,2,8,2,...], mask 128,
repeat size/128, dstRepStride 1, srcBlkStride 1, srcRepStride 8, in both mask modes. The expectation is the
devkit example's own golden: x[2i] + x[2i+1] in numpy float16."""
import numpy as np

import ascend_jit as aj

from ._base import KernelSpec

PATTERN = [1, 1, 1, -1, 2, 2, -1, 2, 3, 3, 3, -1, 4, 4, -2, 4]


def make_inputs(size, seed):
    if seed == 0:
        return {"src": np.resize(np.array(PATTERN, np.float16), size)}
    return {"src": np.random.default_rng(seed).standard_normal(size).astype(np.float16)}


def run(device, inputs):
    x = inputs["src"]
    out = {}
    for form, mask in (("continuous", 128), ("bits", [2**64 - 1, 2**64 - 1])):
        dst_gm = aj.GlobalTensor(np.zeros(x.size // 2, np.float16))
        with aj.Core(device):
            pipe = aj.TPipe()
            in_q, out_q = aj.TQue(aj.TPosition.VECIN, 1), aj.TQue(aj.TPosition.VECOUT, 1)
            pipe.InitBuffer(in_q, 1, x.size * 2)
            pipe.InitBuffer(out_q, 1, x.size)
            src_local = in_q.AllocTensor("half")
            aj.DataCopy(src_local, aj.GlobalTensor(x), x.size)
            in_q.EnQue(src_local)                        # the queue hand-offs order copy-in, compute, copy-out
            src_local = in_q.DeQue("half")
            dst_local = out_q.AllocTensor("half")
            aj.ReducePairElem(dst_local, src_local, mask, x.size // 128, 1, 1, 8)
            out_q.EnQue(dst_local)
            dst_local = out_q.DeQue("half")
            aj.DataCopy(dst_gm, dst_local, x.size // 2)
            in_q.FreeTensor(src_local)
            out_q.FreeTensor(dst_local)
        out[form] = dst_gm.array
    return out


def expected(device, inputs):
    x = inputs["src"]
    with np.errstate(all="ignore"):
        golden = x[0::2] + x[1::2]
    if aj.Core(device).half_saturating:
        golden = np.clip(np.where(np.isnan(golden), np.float16(0), golden), -65504, 65504).astype(np.float16)
    return {"continuous": golden, "bits": golden}


KERNEL = KernelSpec("reduce_pair", "seed ReducePairElem: adjacent-pair sums of the seed pattern (seed 0) or normal "
                    "values", make_inputs, run, expected, default_size=128,
                    size_rule="a multiple of 128, at most 255 repeats", size_ok=lambda n: n > 0 and n % 128 == 0 and n <= 255 * 128)
