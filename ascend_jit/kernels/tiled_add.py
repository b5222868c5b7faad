"""Full-size workload: z = x + y over GM tensors of halves, tiled through the UB with depth-2 queues (double
buffering): CopyIn / Compute / CopyOut per tile, as an Ascend C vector kernel is written. Tiles are 16 Ki halves:
three queues of two 32 KiB buffers fill the smallest UB (192 KiB), the largest tiles that keep double buffering.
The expectation is numpy's float16 add (IEEE, RNE), with the saturation rules applied on saturating devices
(SPEC 5.2)."""
import numpy as np

import ascend_jit as aj

from ._base import KernelSpec, ones_or_random

TILE = 16384
MAX_SIZE = 16 * 1024 * 1024


def add_kernel(x_gm, y_gm, z_gm, n):
    """The device code: n elements (GM arrays padded to 16 elements)."""
    pipe = aj.TPipe()
    in_x, in_y, out_z = (aj.TQue(pos, 2) for pos in (aj.TPosition.VECIN, aj.TPosition.VECIN, aj.TPosition.VECOUT))
    for q in (in_x, in_y, out_z):
        pipe.InitBuffer(q, 2, TILE * 2)
    xg, yg, zg = aj.GlobalTensor(x_gm), aj.GlobalTensor(y_gm), aj.GlobalTensor(z_gm)
    for start in range(0, n, TILE):
        count = min(TILE, n - start)
        blocks = -(-count // 16) * 16
        x, y = in_x.AllocTensor("half"), in_y.AllocTensor("half")      # CopyIn
        aj.DataCopy(x, xg[start], blocks)
        aj.DataCopy(y, yg[start], blocks)
        in_x.EnQue(x)
        in_y.EnQue(y)
        x, y = in_x.DeQue("half"), in_y.DeQue("half")                     # Compute
        z = out_z.AllocTensor("half")
        aj.Add(z, x, y, count)
        out_z.EnQue(z)
        in_x.FreeTensor(x)
        in_y.FreeTensor(y)
        z = out_z.DeQue("half")                                           # CopyOut
        aj.DataCopy(zg[start], z, blocks)
        out_z.FreeTensor(z)
    pipe.Destroy()


def make_inputs(size, seed):
    return {"x": ones_or_random(size, seed, scale=1000.0), "y": ones_or_random(size, seed + 1, scale=1000.0)}


def run(device, inputs):
    n = inputs["x"].size
    padded = -(-n // 16) * 16
    if padded == n:  # whole DataBlocks: the host arrays are the GM buffers
        x, y, z = np.ascontiguousarray(inputs["x"]), np.ascontiguousarray(inputs["y"]), np.empty(n, np.float16)
    else:
        x, y, z = (np.zeros(padded, np.float16) for _ in range(3))
        x[:n], y[:n] = inputs["x"], inputs["y"]
    with aj.Core(device):
        add_kernel(x, y, z, n)
    return {"z": z[:n]}


def expected(device, inputs):
    with np.errstate(all="ignore"):
        z = inputs["x"] + inputs["y"]
    if aj.Core(device).half_saturating:
        z = np.clip(np.where(np.isnan(z), np.float16(0), z), -65504, 65504).astype(np.float16)
    return {"z": z}


KERNEL = KernelSpec("tiled_add", "GM z = x + y of up to 16 Mi halves, tiled with double buffering", make_inputs, run,
                    expected, default_size=1 << 20, size_rule=f"1 .. {MAX_SIZE}", size_ok=lambda n: 0 < n <= MAX_SIZE)
