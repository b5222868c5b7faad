"""kernels/relu6_d.py (ops-nn Relu6D, the 950 RegBase kernel): its host tiling against the original's formulas, and
its two VFs (the current names, and the bf16 one through the devkit's earlier MicroAPI::DataCopy names) compiled and
as plain Python giving the same bits over a tile with the clamp's corner values."""
import inspect

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry


def _module():
    return inspect.getmodule(registry()["relu6_d"].run)


@pytest.mark.parametrize("dtype, dim0, want", [
    # cores for >= 4 KB each, at most 8; blockFormer rounded up to 512; ubFormer (UB - 256) / 4 buffers, 256-B aligned
    ("float", 300003, dict(coreNum=8, blockFormer=37888, blockNum=8, ubFormer=15808, ubLoopOfFormerBlock=3,
                           ubTailOfFormerBlock=6272, ubLoopOfTailBlock=3, ubTailOfTailBlock=3171)),
    ("half", 3001, dict(coreNum=2, blockFormer=1536, blockNum=2, ubFormer=31616, ubLoopOfFormerBlock=1,
                        ubTailOfFormerBlock=1536, ubLoopOfTailBlock=1, ubTailOfTailBlock=1465)),
    ("int32", 100, dict(coreNum=1, blockFormer=512, blockNum=1, ubFormer=15808, ubLoopOfFormerBlock=1,
                        ubTailOfFormerBlock=512, ubLoopOfTailBlock=1, ubTailOfTailBlock=100)),
])
def test_tiling_follows_the_host_formulas(dtype, dim0, want):
    m = _module()
    block_dim, raw = m.tiling("ascend950", dim0, dtype, 1.1)
    t = np.frombuffer(raw.tobytes(), m.Relu6DTilingData)[0]
    assert block_dim == want["blockNum"]
    assert {k: int(t[k]) for k in want} == want
    assert t["upperThreshold"] == np.float32(6.0) * np.float32(1.1)


@pytest.mark.parametrize("dtype", ["half", "bfloat16"])
def test_vfs_compiled_and_plain_agree_on_the_clamp_corners(dtype):
    """A 200-element tile (a partial last vector) of -0, +-inf, the threshold's neighbours, huge and tiny values:
    the compiled VF (which the gallery runs) and its plain-Python function write the same UB bytes."""
    m = _module()
    np_t = np.float16 if dtype == "half" else ml_dtypes.bfloat16
    values = np.array([-0.0, 0.0, np.inf, -np.inf, 6.0, 6.6, 6.59, 6.61, 1e-7, -1e-7, 65000.0, -65000.0, 3.0],
                      np.float32)
    x = np.resize(values, 200).astype(np_t)
    lanes = 64 if dtype == "bfloat16" else 128
    repeat = -(-x.size // lanes)
    results = []
    for compiled in (True, False):
        core = aj.Core("ascend950")
        src, dst = core.local_tensor(dtype, repeat * lanes), core.local_tensor(dtype, repeat * lanes)
        src[:] = np.concatenate([x, np.zeros(repeat * lanes - x.size, np_t)])
        with core:
            if dtype == "bfloat16":
                vf = m.RELU6_D_VF_BF16 if compiled else m.RELU6_D_VF_BF16.py_func
                vf(dst, src, np.float32(0.0), np.float32(6.6), x.size, lanes, repeat)
            else:
                vf = m.RELU6_D_VF if compiled else m.RELU6_D_VF.py_func
                vf(dst, src, np.float16(0.0), np.float16(6.6), x.size, lanes, repeat, "half")
        results.append(dst.numpy()[:x.size])
    assert results[0].view(np.uint16).tolist() == results[1].view(np.uint16).tolist()
    work = np.float32 if dtype == "bfloat16" else np.float16
    thr = work(np.float32(6.6))
    z = x.astype(work)
    want = np.where(z < thr, np.where(z > 0, z, work(0.0)), thr).astype(np_t)
    assert results[0].view(np.uint16).tolist() == want.view(np.uint16).tolist()
