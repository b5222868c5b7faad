"""The devkit best practice "非对齐场景减少无效数据的搬运" (fewer useless bytes moved for unaligned blocks): three
48-byte float blocks brought into a zeroed UB tile by DataCopyPad with the older parameter structs, set field by
field (`DataCopyParams dataCopyParams; dataCopyParams.blockCount = 3; ...`, `DataCopyPadParams dataCopyPadParams;
dataCopyPadParams.isPad = 1; ... rightPadding = 4;`), in its counter-example mode `PaddingMode::Normal` (each block
padded to 64 bytes: 192 bytes moved) and its example mode `PaddingMode::Compact` (the blocks back to back, one pad
to 160 bytes); the tile is then copied out to GM whole so the layout can be checked.

Ported (the CopyIn of both listings; written in our own words) from mirror-cann/asc-devkit @
82b89a15f26329511fc7fbc807d5132a1f9b4ba7, docs/zh/guide/算子实践参考/SIMD算子性能优化/内存访问/
非对齐场景减少无效数据的搬运.md. The page shows CopyIn only: the port wraps it in the usual TPipe/TQue kernel (a
depth-1 VECIN queue of 64 floats, CopyIn, EnQue/DeQue, DataCopy of the 64 floats to GM).

Deviation: the listing's Duplicate (vector pipe) and DataCopyPad (MTE2) write the same tile with nothing ordering
them, a write-after-write race on the device (the sanitizer reports it); the port orders them with a
TQueSync<PIPE_V, PIPE_MTE2> flag pair.

Devices: the page's `DataCopyPad<T, PaddingMode::Normal>` template form is a 950 prototype; the Normal copy itself is
the plain DataCopyPad of every device that offers DataCopyPad (SPEC-2 1.9): `data_copy_pad_modes` (Normal) runs on
the 950, A3, A2 and 310B, `data_copy_pad_modes_950` (Compact) on the 950.

Fidelity: BIT-EXACT (Duplicate, DataCopyPad are BIT-EXACT, SPEC-2 0.3). The expectation is the page's printed UB
layout rule: Normal [12 data, 4 zeros] x 3 then the Duplicate's zeros; Compact 36 data, 4 zeros (isPad with the
paddingValue 0: D56 with decisions.md "DataCopyPad fill order"), then zeros. tests/test_gallery.py also checks the
page's printouts (all-ones input) value for value.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

COUNT = 64                # the tile: 64 floats (256 B), zeroed by Duplicate
BLOCKS, BLOCK_LEN = 3, 48  # three 48-byte blocks of floats


class KernelDataCopyPadModes:
    def __init__(self, mode):
        self.mode = mode

    def Init(self, x, y):
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x)
        self.yGm.SetGlobalBuffer(y)
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.QuePosition.VECIN, 1)
        self.pipe.InitBuffer(self.inQueueX, 1, COUNT * 4)

    def Process(self):
        self.CopyIn()
        self.CopyOut()

    def CopyIn(self):
        xLocal = self.inQueueX.AllocTensor("float")
        aj.Duplicate(xLocal, 0.0, COUNT)
        order = aj.TQueSync(aj.PIPE_V, aj.PIPE_MTE2)      # the port's deviation: Duplicate before the copy lands
        order.SetFlag(0)
        order.WaitFlag(0)
        dataCopyParams = aj.DataCopyParams()
        dataCopyParams.blockCount = BLOCKS
        dataCopyParams.blockLen = BLOCK_LEN
        dataCopyParams.srcStride = 0
        dataCopyParams.dstStride = 0
        dataCopyPadParams = aj.DataCopyPadParams()
        dataCopyPadParams.isPad = 1
        dataCopyPadParams.leftPadding = 0
        dataCopyPadParams.rightPadding = 4
        dataCopyPadParams.paddingValue = 0
        aj.DataCopyPad(xLocal, self.xGm, dataCopyParams, dataCopyPadParams, mode=self.mode)
        self.inQueueX.EnQue(xLocal)

    def CopyOut(self):
        xLocal = self.inQueueX.DeQue("float")
        aj.DataCopy(self.yGm, xLocal, COUNT)
        self.inQueueX.FreeTensor(xLocal)


def data_copy_pad_modes(x, y, mode):
    op = KernelDataCopyPadModes(mode)
    op.Init(x, y)
    op.Process()


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    return {"x": rng.uniform(-10, 10, BLOCKS * BLOCK_LEN // 4).astype(np.float32)}


def _run(mode):
    def run(device, inputs):
        y = np.full(COUNT, np.nan, np.float32)
        aj.launch(data_copy_pad_modes, 1, device, inputs["x"].copy(), y, mode)
        return {"y": y}
    return run


def _expected(mode):
    def expected(device, inputs):
        x, y = inputs["x"], np.zeros(COUNT, np.float32)
        if mode == aj.PaddingMode.Compact:
            y[:x.size] = x                        # back to back; 4 pad zeros and the Duplicate's zeros follow
        else:
            per = BLOCK_LEN // 4
            for k in range(BLOCKS):               # each block padded to 64 bytes with 4 zeros
                y[k * 16:k * 16 + per] = x[k * per:(k + 1) * per]
        return {"y": y}
    return expected


_SIZE_RULE = dict(default_size=COUNT, size_rule=f"{COUNT} (the page's data)", size_ok=lambda n: n == COUNT,
                  source="mirror-cann/asc-devkit@82b89a15 docs/zh/guide/算子实践参考/SIMD算子性能优化/内存访问/"
                         "非对齐场景减少无效数据的搬运.md")
KERNELS = [
    KernelSpec("data_copy_pad_modes", "devkit best practice, counter-example: three 48-byte blocks by DataCopyPad "
               "with DataCopyParams + DataCopyPadParams in Normal mode (each padded to 64 bytes)", make_inputs,
               _run(aj.PaddingMode.Normal), _expected(aj.PaddingMode.Normal),
               devices=("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2"), **_SIZE_RULE),
    KernelSpec("data_copy_pad_modes_950", "devkit best practice, example (Ascend 950): the same blocks in Compact "
               "mode (back to back, one pad)", make_inputs, _run(aj.PaddingMode.Compact),
               _expected(aj.PaddingMode.Compact), devices=("ascend950",), **_SIZE_RULE),
]
