"""The seed Add example (Add.zh.txt): src0 = 1..512, src1 = 513..1024, in the count, continuous-mask, bit-mask
and operator forms; each form's result must be dst[i] = 514 + 2i."""
import numpy as np

import ascend_jit as aj

from ._base import KernelSpec

FORMS = ("count", "continuous", "bits", "operator")


def make_inputs(size, seed):
    return {"src0": np.arange(1, 513, dtype=np.float16), "src1": np.arange(513, 1025, dtype=np.float16)}


def run(device, inputs):
    core = aj.Core(device)
    out = {}
    with core:
        pipe = aj.TPipe()
        in_x, in_y, out_z = aj.TQue(aj.TPosition.VECIN, 1), aj.TQue(aj.TPosition.VECIN, 1), aj.TQue(aj.TPosition.VECOUT, 1)
        for q in (in_x, in_y, out_z):
            pipe.InitBuffer(q, 1, 512 * 2)
        src0_gm, src1_gm = aj.GlobalTensor(inputs["src0"]), aj.GlobalTensor(inputs["src1"])
        for form in FORMS:
            dst_gm = aj.GlobalTensor(np.zeros(512, np.float16))
            x, y = in_x.AllocTensor("half"), in_y.AllocTensor("half")
            aj.DataCopy(x, src0_gm, 512)
            aj.DataCopy(y, src1_gm, 512)
            in_x.EnQue(x)
            in_y.EnQue(y)
            src0_local, src1_local = in_x.DeQue("half"), in_y.DeQue("half")
            dst_local = out_z.AllocTensor("half")
            if form == "count":
                aj.Add(dst_local, src0_local, src1_local, 512)
            elif form == "continuous":
                aj.Add(dst_local, src0_local, src1_local, 128, 4, aj.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
            elif form == "bits":
                aj.Add(dst_local, src0_local, src1_local, [2**64 - 1, 2**64 - 1], 4, aj.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
            else:
                dst_local[:] = src0_local + src1_local
            out_z.EnQue(dst_local)
            in_x.FreeTensor(src0_local)
            in_y.FreeTensor(src1_local)
            z = out_z.DeQue("half")
            aj.DataCopy(dst_gm, z, 512)
            out_z.FreeTensor(z)
            out[form] = dst_gm.array
    return out


def expected(device, inputs):
    return {form: (514 + 2 * np.arange(512)).astype(np.float16) for form in FORMS}


KERNEL = KernelSpec("add", "seed Add: 1..512 + 513..1024 in all four interface forms", make_inputs, run, expected,
                    default_size=512, size_rule="512 (the seed's size)", size_ok=lambda n: n == 512)
