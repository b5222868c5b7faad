"""Full-size workload: the sum of a GM tensor (up to 16 Mi halves) tiled through the UB, as an Ascend C vector
kernel is written: CopyIn (DataCopy through a depth-2 queue: the next tile is in flight while this one is reduced,
double buffering), Compute (the count-form ReduceSum of the tile writes its sum straight into element t of a UB
vector of partials: ReduceSum's dst may sit at any element of a tensor, SPEC 4.5), and after the last tile one
ReduceSum over the partials; both go back to GM (CopyOut).

Tiles are 47.75 Ki halves (95.5 KiB, 382 repeats), the largest that fit the smallest UB (192 KiB, the A2/A3) two in
flight next to the partials and the tmp buffer of a 16 Mi-element sum on every device: large tiles keep the
per-tile instruction count (six calls) small against the data moved.

The result is per device: every tile and the final reduction follow that device's documented order (SPEC 4).
The expectation replays explain_reduce_order's trees with numpy (one rounding per add), independently."""
import numpy as np

import ascend_jit as aj

from ._base import KernelSpec, ones_or_random
from ..order import explain_reduce_order

TILE = 48896        # halves per tile: 95.5 KiB, two in flight (double buffering) fit every device's UB
MAX_SIZE = 16 * 1024 * 1024


def tile_plan(n):
    return [(start, min(TILE, n - start)) for start in range(0, n, TILE)]


def tile_count(n):
    """len(tile_plan(n)) without building the plan (a block's set-up holds the GIL: launch.py)."""
    return -(-n // TILE)


def reduce_kernel(x_gm, partials_gm, total_gm, n):
    """The device code: x_gm (padded to 16 elements) -> partials_gm[tile], total_gm[0]."""
    ntiles = tile_count(n)  # tile t covers [t * TILE, min((t + 1) * TILE, n))
    core = aj.current_core("reduce_kernel")
    pipe = aj.TPipe()
    in_q = aj.TQue(aj.TPosition.VECIN, 2)
    pipe.InitBuffer(in_q, 2, TILE * 2)
    calc = aj.TBuf(aj.TPosition.VECCALC)
    tmp_elems = max(aj.GetReduceSumTmpSize(core.device, "half", count=TILE),
                    aj.GetReduceSumTmpSize(core.device, "half", count=ntiles), 16)
    pipe.InitBuffer(calc, (tmp_elems + 16) * 2)
    part_buf = aj.TBuf(aj.TPosition.VECOUT)
    pipe.InitBuffer(part_buf, -(-ntiles // 16) * 32)
    work = calc.Get("half")
    tmp, dst = work[:tmp_elems], work[tmp_elems:tmp_elems + 16]
    partials = part_buf.Get("half")
    x_global = aj.GlobalTensor(x_gm)

    def copy_in(t):
        start = t * TILE
        local = in_q.AllocTensor("half")
        aj.DataCopy(local, x_global[start], -(-min(TILE, n - start) // 16) * 16)
        in_q.EnQue(local)

    # the copy-out waits for the vector pipe's last ReduceSum (V_MTE3); the scalar read of the total waits for it
    # too (V_S). TQueSync names the pipes on every device, the 310B included.
    v_to_mte3, v_to_s = aj.TQueSync(aj.PIPE_V, aj.PIPE_MTE3), aj.TQueSync(aj.PIPE_V, aj.PIPE_S)
    aj.Duplicate(partials, 0.0, partials.size)   # the padding after the last partial is copied out too
    copy_in(0)
    for t in range(ntiles):
        if t + 1 < ntiles:
            copy_in(t + 1)  # the next tile is in flight while this one is reduced
        local = in_q.DeQue("half")
        aj.ReduceSum(partials[t], local, tmp, min(TILE, n - t * TILE))
        in_q.FreeTensor(local)
    aj.ReduceSum(dst, partials, tmp, ntiles)
    v_to_mte3.SetFlag(0)
    v_to_mte3.WaitFlag(0)
    aj.DataCopy(aj.GlobalTensor(partials_gm), partials, partials.size)
    v_to_s.SetFlag(0)
    v_to_s.WaitFlag(0)
    total_gm[0] = dst.GetValue(0)  # a scalar store to GM
    pipe.Destroy()


def make_inputs(size, seed):
    return {"x": ones_or_random(size, seed, scale=1.0)}


def _padded(x, multiple):
    """The GM input: the host array itself when its size is a whole number of DataBlocks, else a padded copy."""
    if x.size % multiple == 0 and x.flags.c_contiguous:
        return x
    out = np.zeros(-(-x.size // multiple) * multiple, x.dtype)
    out[:x.size] = x
    return out


def run(device, inputs):
    x = inputs["x"]
    ntiles = tile_count(x.size)
    partials = np.zeros(-(-ntiles // 16) * 16, np.float16)
    total = np.zeros(1, np.float16)
    with aj.Core(device):
        reduce_kernel(_padded(x, 16), partials, total, x.size)
    return {"partials": partials[:ntiles], "total": total}


def expected_sums(device, x):
    """Per-tile sums and the total, replaying the documented order with numpy."""
    sat = aj.Core(device).half_saturating
    tiles = tile_plan(x.size)
    full = [t for t in tiles if t[1] == TILE]
    parts = []
    if full:
        order = explain_reduce_order(device, "count", "half", count=TILE)
        parts.append(order.evaluate_batch(x[:len(full) * TILE].reshape(len(full), TILE), sat))
    if len(full) < len(tiles):
        start, count = tiles[-1]
        order = explain_reduce_order(device, "count", "half", count=count)
        parts.append(order.evaluate_batch(x[start:start + count][None, :], sat))
    partials = np.concatenate(parts).astype(np.float16)
    total = explain_reduce_order(device, "count", "half", count=partials.size).evaluate_batch(partials[None, :], sat)
    return partials, total.astype(np.float16)


def expected(device, inputs):
    partials, total = expected_sums(device, inputs["x"])
    return {"partials": partials, "total": total}


KERNEL = KernelSpec("tiled_reduce_sum", "GM sum of up to 16 Mi halves, tiled through the UB with double buffering",
                    make_inputs, run, expected, default_size=1 << 20, size_rule=f"1 .. {MAX_SIZE}",
                    size_ok=lambda n: 0 < n <= MAX_SIZE)
