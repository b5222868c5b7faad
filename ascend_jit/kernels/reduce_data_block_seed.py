"""The seed's ReduceDataBlockVF (ReduceDataBlock.zh.txt), ported line by line and compiled with @aj.Reg.simd_vf:
per repeat LoadAlign, UpdateMask, ReduceDataBlock<SUM>, StoreAlign. Ascend 950 only. With the default float data
(256 values in [1, 2), 4 repeats: the official example), each repeat's lanes 0..7 hold the block sums.
The expectation replays the per-block adjacent-pair trees with numpy (one rounding per add)."""
import numpy as np

import ascend_jit as aj

from ._base import KernelSpec

R = aj.Reg


def ReduceDataBlockVF(dstAddr, srcAddr, count, oneRepeatSize, repeatTimes, T):
    srcReg = R.RegTensor(T)
    dstReg = R.RegTensor(T)
    for i in range(repeatTimes):
        R.LoadAlign(srcReg, srcAddr, i * oneRepeatSize)
        mask, count = R.UpdateMask(T, count)
        # type = ReduceType::SUM
        R.ReduceDataBlock(dstReg, srcReg, mask)
        R.StoreAlign(dstAddr, dstReg, mask, i * oneRepeatSize)


ReduceDataBlockVF_compiled = R.simd_vf(ReduceDataBlockVF)


def make_inputs(size, seed):
    dtype = np.float32 if size == 256 else np.float16
    rng = np.random.default_rng(seed)
    return {"src": rng.uniform(1, 2, size).astype(dtype)}


def run(device, inputs, compiled=True):
    x = inputs["src"]
    T = "float" if x.dtype == np.float32 else "half"
    one_repeat = 256 // x.dtype.itemsize
    repeats = -(-x.size // one_repeat)
    core = aj.Core(device)
    src = core.local_tensor(T, repeats * one_repeat)
    dst = core.local_tensor(T, repeats * one_repeat)
    src[:] = np.concatenate([x, np.zeros(src.size - x.size, x.dtype)])   # the padded tail a full VL load reads too
    with core:
        vf = ReduceDataBlockVF_compiled if compiled else ReduceDataBlockVF
        vf(dst, src, x.size, one_repeat, repeats, T)
    out = dst.numpy().reshape(repeats, one_repeat)[:, :8]
    return {"block_sums": out.reshape(-1).copy()}


def expected(device, inputs):
    """Per 32-byte block: the adjacent-pair tree (numpy rounds each add once); lanes past the count are 0."""
    x = inputs["src"]
    one_repeat = 256 // x.dtype.itemsize
    epb = 32 // x.dtype.itemsize
    repeats = -(-x.size // one_repeat)
    padded = np.zeros(repeats * one_repeat, x.dtype)
    padded[:x.size] = x
    level = padded.reshape(-1, epb)
    while level.shape[1] > 1:
        level = level[:, 0::2] + level[:, 1::2]
    sums = level[:, 0].reshape(repeats, 8)
    lanes_in_last = x.size - (repeats - 1) * one_repeat
    stored = np.ones((repeats, 8), bool)
    stored[-1] = np.arange(8) < lanes_in_last  # StoreAlign writes only lanes the mask keeps
    return {"block_sums": np.where(stored, sums, 0).astype(x.dtype).reshape(-1)}


KERNEL = KernelSpec("reduce_data_block", "seed Reg ReduceDataBlockVF (950): block sums over repeats, compiled with "
                    "@aj.Reg.simd_vf", make_inputs, run, expected, default_size=256, devices=("ascend950",),
                    size_rule="256 (the float example) or any count of halves up to 60000",
                    size_ok=lambda n: n == 256 or 0 < n <= 60000)
