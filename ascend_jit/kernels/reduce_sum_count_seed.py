"""The seed's complete count-form ReduceSum example: the first 288 elements summed; dst[1] receives
GetReduceRepeatSumSpr as in the devkit example (SPEC 9). Output [288, 288, 0 x 14] for ones."""
import numpy as np

import ascend_jit as aj

from ._base import KernelSpec
from ..devices import DEVICES
from ..order import explain_reduce_order

DST_SIZE = 16


def make_inputs(size, seed):
    x = np.ones(size, np.float16) if seed == 0 else np.random.default_rng(seed).standard_normal(size).astype(np.float16)
    return {"src": x}


def run(device, inputs):
    x = inputs["src"]
    n = x.size
    padded = np.zeros(-(-n // 16) * 16, np.float16)  # DataCopy moves whole 32-byte blocks
    padded[:n] = x
    dst_gm = aj.GlobalTensor(np.zeros(DST_SIZE, np.float16))
    with aj.Core(device) as core:
        pipe = aj.TPipe()
        in_q, out_q, work_q = aj.TQue(aj.TPosition.VECIN, 1), aj.TQue(aj.TPosition.VECOUT, 1), aj.TQue(aj.TPosition.VECCALC, 1)
        pipe.InitBuffer(in_q, 1, padded.size * 2)
        pipe.InitBuffer(out_q, 1, DST_SIZE * 2)
        pipe.InitBuffer(work_q, 1, max(aj.GetReduceSumTmpSize(core.device, "half", count=n), 16) * 2)
        src_local = in_q.AllocTensor("half")
        aj.DataCopy(src_local, aj.GlobalTensor(padded), padded.size)
        in_q.EnQue(src_local)
        src_local = in_q.DeQue("half")
        dst_local = out_q.AllocTensor("half")
        shared_tmp_buffer = work_q.AllocTensor("half")
        dst_local[:] = 0
        aj.ReduceSum(dst_local, src_local, shared_tmp_buffer, n)
        v_to_s = aj.TQueSync(aj.PIPE_V, aj.PIPE_S)   # the scalar read waits for the vector pipe (the devkit's
        v_to_s.SetFlag(0)                            # example uses SetFlag/WaitFlag<V_S>; the SPR exists on the
        v_to_s.WaitFlag(0)                           # 950, A3 and A2 only, as the example)
        dst_local.SetValue(1, aj.GetReduceRepeatSumSpr())
        out_q.EnQue(dst_local)
        in_q.FreeTensor(src_local)
        work_q.FreeTensor(shared_tmp_buffer)
        dst_local = out_q.DeQue("half")
        aj.DataCopy(dst_gm, dst_local, DST_SIZE)
        out_q.FreeTensor(dst_local)
    return {"dst": dst_gm.array}


def expected(device, inputs):
    order = explain_reduce_order(device, "count", "half", count=inputs["src"].size)
    dst = np.zeros(DST_SIZE, np.float16)
    dst[0] = dst[1] = order.evaluate(inputs["src"], saturate=aj.Core(device).half_saturating)
    return {"dst": dst}


KERNEL = KernelSpec("reduce_sum_count", "seed count-form ReduceSum: first n elements (288 ones by default), dst[1] = "
                    "GetReduceRepeatSumSpr", make_inputs, run, expected, default_size=288,
                    devices=tuple(n for n, d in DEVICES.items() if d.supported and d.reduce_repeat_sum_spr),
                    size_rule="1 .. 65536", size_ok=lambda n: 0 < n <= 65536)
