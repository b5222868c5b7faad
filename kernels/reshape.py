"""Reshape from a CANN operator collection: the data copied GM -> UB -> GM unchanged (a reshape moves no element),
through a depth-2 TQueBind<VECIN, VECOUT> (MTE2 fills a buffer, MTE3 drains it, no vector stage), in tiles that
fill the UB, the last tile rounded up to whole 32-byte blocks.

Ported (structure and instruction sequence; written in our own words) from
Hayden727/cann-ops @ fd1e257cee42a8ba666e864860cbe5f37100a2a3, src/math/reshape/op_kernel/reshape.cpp
(`MyReshape<DATA, SHAPE, 1>`: CopyIn AllocTensor / DataCopy / EnQue, CopyOut DeQue / DataCopy / FreeTensor, exec
over tileNumber tiles and the reminder) with the host tiling of src/math/reshape/op_host/reshape.cpp (tileLength =
UB / (2 * sizeof) rounded down to 32 bytes, tileNumber = n / tileLength, reminder = the rest rounded up to 32 bytes).

Deviations: the original launches GetCoreNum blocks that each copy the whole tensor (every core writes the same
bytes: a cross-core write-write race the sanitizer reports); the port launches one. The host side pads GM to the
32 bytes the reminder tile reads and writes (device allocations are so rounded).

Devices: DataCopy and the queues are offered everywhere: every device.

Fidelity: BIT-EXACT (DataCopy moves bytes). The expectation is the input, bit for bit (NaN payloads included).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2


def tiling(device, n, itemsize):
    mini_batch = 32 // itemsize
    tile_length = aj.get_device(device).ub_bytes // (2 * itemsize) // mini_batch * mini_batch
    return dict(tileLength=tile_length, tileNumber=n // tile_length,
                reminder=(n % tile_length + mini_batch - 1) // mini_batch * mini_batch)


class MyReshape:
    def __init__(self, x, shape, y, ti, p, dtype):
        self.ti, self.dtype = ti, dtype
        self.gm_x, self.gm_shape, self.gm_y = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.gm_x.SetGlobalBuffer(x)
        self.gm_shape.SetGlobalBuffer(shape)
        self.gm_y.SetGlobalBuffer(y)
        self.q_data = aj.TQueBind(aj.TPosition.VECIN, aj.TPosition.VECOUT, BUFFER_NUM)
        p.InitBuffer(self.q_data, BUFFER_NUM, ti["tileLength"] * aj.dtypes.resolve(dtype).size)

    def CopyIn(self, offset, length):
        data = self.q_data.AllocTensor(self.dtype)
        aj.DataCopy(data, self.gm_x[offset], length)
        self.q_data.EnQue(data)

    def CopyOut(self, offset, length):
        data = self.q_data.DeQue(self.dtype)
        aj.DataCopy(self.gm_y[offset], data, length)
        self.q_data.FreeTensor(data)

    def exec(self):
        ti = self.ti
        for i in range(ti["tileNumber"]):
            self.CopyIn(i * ti["tileLength"], ti["tileLength"])
            self.CopyOut(i * ti["tileLength"], ti["tileLength"])
        self.CopyIn(ti["tileNumber"] * ti["tileLength"], ti["reminder"])
        self.CopyOut(ti["tileNumber"] * ti["tileLength"], ti["reminder"])


def reshape(x, shape, y, ti, dtype):
    MyReshape(x, shape, y, ti, aj.TPipe(), dtype).exec()


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(size).astype(np.float32)
    x[:min(size, 3)] = np.array([np.nan, -0.0, np.inf], np.float32)[:size]
    if size > 3:
        x[3] = np.array([0x7FC12345], np.uint32).view(np.float32)[0]   # a NaN with a payload
    return {"x": x, "shape": np.array([size // 2 if size % 2 == 0 else size, -1], np.int64)}


def run(device, inputs):
    x = inputs["x"]
    padded = -(-x.size * 4 // 32) * 32 // 4
    gm_x, gm_y = np.zeros(padded, np.float32), np.zeros(padded, np.float32)
    gm_x[:x.size] = x
    aj.launch(reshape, 1, device, gm_x, inputs["shape"].copy(), gm_y, tiling(device, x.size, 4), "float")
    return {"y": gm_y[:x.size]}


KERNEL = KernelSpec("reshape", "Reshape: GM -> UB -> GM through a depth-2 TQueBind<VECIN, VECOUT>, UB-filling tiles "
                    "and a 32-byte-rounded reminder", make_inputs, run, lambda device, inputs: {"y": inputs["x"]},
                    default_size=30000,
                    source="Hayden727/cann-ops@fd1e257c src/math/reshape/op_kernel/reshape.cpp")
