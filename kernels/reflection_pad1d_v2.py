"""ReflectionPad1dV2 from the CANN math operators: pads the last axis W of an [N, C, W] tensor by reflection (the
left pad mirrors x[1..left], the right pad x[W-2..W-1-right], the edge elements themselves not repeated), over
float, half and bfloat16. Rows are split over the cores; each row is copied in by a DataCopyPad whose padding
fills the 32-byte block past W, rearranged element by element by the scalar unit (GetValue / SetValue) and copied
out by a DataCopyPad of the padded row's exact bytes.

Ported (structure and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214,
experimental/math/reflection_pad1d_v2/op_kernel/reflection_pad1d_v2.h (`NsReflectionPad1dV2::ReflectionPad1dV2<T>`:
depth-2 VECIN and VECOUT queues of alignWSize and outWSize elements; the first tailNC cores one row more; per row
CopyIn: `DataCopyPad(xLocal, xGm[row * W], DataCopyExtParams{1, W * sizeof(T), 0, 0, 0},
DataCopyPadExtParams<T>{true, 0, alignWSize - W, 0})`; Compute: the left pad, the row and the right pad written by
SetValue from GetValue of the clamped reflected index; CopyOut: `DataCopyPad(yGm[row * outW], yLocal,
DataCopyExtParams{1, outW * sizeof(T), 0, 0, 0})`) and reflection_pad1d_v2.cpp (the TYPE_X template key, the
early return on a null workspace, REGISTER_TILING_DEFAULT / GET_TILING_DATA_WITH_STRUCT) and
reflection_pad1d_v2_tiling_data.h, with the host tiling of
experimental/math/reflection_pad1d_v2/op_host/reflection_pad1d_v2_tiling.cpp (`ReflectionPad1dV2TilingFunc`: W
rounded up to 32 bytes; one row a core when N x C <= cores, else N x C / cores rows a core and the remainder one
more on the first cores; ubElementNum from (UB - 32 KiB - the tiling struct) / 5 in 256-byte units; a workspace of
outW x rows-a-core elements a core when the pads are large (the kernel never uses it) plus the library's).

Deviations: the scalar unit reads the row right after the VECIN DeQue and writes the padded row right before the
VECOUT EnQue. On the device those hand-offs are SetFlag/WaitFlag<MTE2_V> and <V_MTE3> pairs, which order the
vector unit, not the scalar one: the GetValue can run before the DataCopyPad has landed and the DataCopyPad out
before the last SetValue; and the VECOUT AllocTensor waits on the buffer's free event, MTE3_V, which lets the
scalar unit write the buffer an earlier row's copy-out still reads. The port adds SetFlag/WaitFlag MTE2_S and
MTE3_S after the DeQue and AllocTensor, and S_MTE3 before the EnQue (`ORIGINAL_SYNC = True` leaves them out;
MTE3_S since session 64, port64e). The default sanitizer does not ask for them: SPEC-2 10.4 counts a TQue hand-off
as ordering every pipe (docs/decisions.md, the ReduceMaxV2 port's note), so it reports the original clean too;
"report,device-sync" reports the original and not the port.
The core count is the launch's 8 (GetCoreNum would give the device's). The original sizes the output
queue to outW elements, so a row of more than about 12 K floats (the whole UB in four buffers) is refused at
InitBuffer, as it would overrun the device's UB; the tiling's large-pad workspace does not help the kernel (it is
never read) and the gallery's rows are short. Pads are taken below W (torch's rule for reflection; the kernel
clamps the reflected index into [0, W - 1], so larger pads would repeat the edge).

Devices: the original's configs are the A2 (ascend910b), 910, 310B and 310P; the port runs on the 950, A3 and A2.
DataCopyPad is not offered on the 310P and 910 (SPEC-2 1.9), so those two configs could not have run it either, and
the host tiling's GetLibApiWorkSpaceSize not on the 310B (DK 资源管理/workspace/GetUserWorkspace.md; the kernel itself
would run there).

Fidelity: BIT-EXACT (DataCopyPad and the scalar copies move bits): checked bit for bit against
numpy.pad(mode="reflect").
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
BYTE_BLOCK = 32
RESERVED_UB = 32 * 1024
ALIGN_256_BYTES = 256
UB_PARTITION_NUM = 5
MIN_UB_ELEMENTS = 32
CORE_NUM = 8
ORIGINAL_SYNC = False
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
# the template key (ReflectionPad1dV2TilingKey) of each type the kernel instantiates
TILING_KEY = {"bfloat16": 27, "half": 1, "float": 0}

ReflectionPad1dV2TilingData = np.dtype([("wSize", np.uint32), ("alignWSize", np.uint32), ("padLeft", np.uint32),
                                        ("padRight", np.uint32), ("blockNum", np.uint32), ("ncPerCore", np.uint32),
                                        ("tailNC", np.uint32), ("ubElementNum", np.uint32),
                                        ("workspacePerCore", np.uint64)], align=True)


def tiling(device, shape, pads, dtype):
    """ReflectionPad1dV2TilingFunc: (block dim, the packed tiling data, workspace bytes)."""
    ub_size, core_num = aj.get_device(device).ub_bytes, CORE_NUM
    n, c, w = (1,) * (3 - len(shape)) + tuple(shape)
    pad_left, pad_right = pads
    dtype_bytes = TYPE_SIZE[dtype]
    out_w = w + pad_left + pad_right
    align_w = -(-w // (BYTE_BLOCK // dtype_bytes)) * (BYTE_BLOCK // dtype_bytes)
    total_nc = n * c
    if total_nc <= core_num:
        block_num, nc_per_core, tail_nc = total_nc, 1, 0
    else:
        nc_per_core, tail_nc, block_num = total_nc // core_num, total_nc % core_num, core_num
    tiling_size = -(-ReflectionPad1dV2TilingData.itemsize // BYTE_BLOCK) * BYTE_BLOCK
    available = (ub_size - RESERVED_UB - tiling_size) // BYTE_BLOCK * BYTE_BLOCK
    ub_elements = available // UB_PARTITION_NUM // dtype_bytes
    ub_elements = max(ub_elements // (ALIGN_256_BYTES // dtype_bytes) * (ALIGN_256_BYTES // dtype_bytes),
                      MIN_UB_ELEMENTS)
    workspace_per_core = 0
    large = pad_left + pad_right > ub_elements // 2 or w + pad_left + pad_right > ub_elements
    if (pad_left > 0 or pad_right > 0) and large:
        workspace_per_core = out_w * nc_per_core * dtype_bytes
        if tail_nc > 0:
            workspace_per_core = max(workspace_per_core, out_w * (nc_per_core + 1) * dtype_bytes)
        workspace_per_core = -(-workspace_per_core // BYTE_BLOCK) * BYTE_BLOCK
    t = np.zeros(1, ReflectionPad1dV2TilingData)
    for name, value in (("wSize", w), ("alignWSize", align_w), ("padLeft", pad_left), ("padRight", pad_right),
                        ("blockNum", block_num), ("ncPerCore", nc_per_core), ("tailNC", tail_nc),
                        ("ubElementNum", ub_elements), ("workspacePerCore", workspace_per_core)):
        t[name] = value
    workspace = workspace_per_core * block_num + aj.GetLibApiWorkSpaceSize(device)
    return block_num, t.view(np.uint8).copy(), workspace


class ReflectionPad1dV2:
    def __init__(self, T):
        self.T = T

    def Init(self, x, y, tilingData):
        self.ParseTilingData(tilingData)
        currentTaskCount = self.endNC - self.startNC
        self.xGm, self.yGm = aj.GlobalTensor(self.T), aj.GlobalTensor(self.T)
        self.xGm.SetGlobalBuffer(x[self.startNC * self.wSize:], currentTaskCount * self.wSize)
        self.yGm.SetGlobalBuffer(y[self.startNC * self.outWSize:], currentTaskCount * self.outWSize)
        self.pipe = aj.TPipe()
        self.inQueueX = aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.alignWSize * TYPE_SIZE[self.T])
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.outWSize * TYPE_SIZE[self.T])

    def Process(self):
        for nc in range(self.startNC, self.endNC):
            localNcIdx = nc - self.startNC
            self.CopyIn(localNcIdx * self.wSize)
            self.Compute()
            self.CopyOut(localNcIdx * self.outWSize)

    def ParseTilingData(self, t):
        self.left = int(t.padLeft)
        self.right = int(t.padRight)
        self.wSize = int(t.wSize)
        self.outWSize = self.wSize + self.left + self.right
        self.alignWSize = int(t.alignWSize)
        self.blockIdx = aj.GetBlockIdx()
        ncPerCore, tailNC = int(t.ncPerCore), int(t.tailNC)
        if self.blockIdx < tailNC:
            self.startNC = self.blockIdx * (ncPerCore + 1)
            self.endNC = self.startNC + ncPerCore + 1
        else:
            self.startNC = tailNC * (ncPerCore + 1) + (self.blockIdx - tailNC) * ncPerCore
            self.endNC = self.startNC + ncPerCore

    def CopyIn(self, inGmOffset):
        xLocal = self.inQueueX.AllocTensor(self.T)
        copyParams = aj.DataCopyExtParams(1, self.wSize * TYPE_SIZE[self.T], 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(True, 0, self.alignWSize - self.wSize, 0)
        aj.DataCopyPad(xLocal, self.xGm[inGmOffset], copyParams, padParams)
        self.inQueueX.EnQue(xLocal)

    def Compute(self):
        xLocal = self.inQueueX.DeQue(self.T)
        yLocal = self.outQueueY.AllocTensor(self.T)
        self._sync(aj.HardEvent.MTE2_S)                 # deviation (module docstring)
        self._sync(aj.HardEvent.MTE3_S)                 # deviation (module docstring)
        left, wSize = self.left, self.wSize
        for i in range(left):                          # the left pad
            refIdx = max(left - i, 0)
            refIdx = max(0, min(refIdx, wSize - 1))
            yLocal.SetValue(i, xLocal.GetValue(refIdx))
        for i in range(wSize):                         # the row itself
            yLocal.SetValue(left + i, xLocal.GetValue(i))
        for i in range(self.right):                    # the right pad
            refIdx = max(wSize - 2 - i, 0)
            refIdx = max(0, min(refIdx, wSize - 1))
            yLocal.SetValue(left + wSize + i, xLocal.GetValue(refIdx))
        self._sync(aj.HardEvent.S_MTE3)                 # deviation (module docstring)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)

    @staticmethod
    def _sync(event):
        """Deviation (module docstring): the scalar unit's flag pair the queue hand-off does not give it."""
        if ORIGINAL_SYNC:
            return
        eventId = int(aj.GetTPipePtr().FetchEventID(event))
        aj.SetFlag(eventId, event=event)
        aj.WaitFlag(eventId, event=event)

    def CopyOut(self, outGmOffset):
        yLocal = self.outQueueY.DeQue(self.T)
        copyParams = aj.DataCopyExtParams(1, self.outWSize * TYPE_SIZE[self.T], 0, 0, 0)
        aj.DataCopyPad(self.yGm[outGmOffset], yLocal, copyParams)
        self.outQueueY.FreeTensor(yLocal)


aj.REGISTER_TILING_DEFAULT(ReflectionPad1dV2TilingData)


def reflection_pad1d_v2(x, padding, y, workspace, tiling, TYPE_X):
    """The kernel entry; TYPE_X is the template key (ReflectionPad1dV2TilingKey) of the input type."""
    if workspace is None:
        return
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ReflectionPad1dV2TilingData, tiling)
    for T, key in TILING_KEY.items():
        if TYPE_X == key:
            op = ReflectionPad1dV2(T)
            op.Init(x, y, tilingData)
            op.Process()


def _shape(dtype, w):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        x = rng.standard_normal(size).astype(np.float32).astype(_NP[dtype])
        return {"x": x.reshape(-1, 3, w) if size % (3 * w) == 0 else x.reshape(-1, w)}
    return make_inputs


def _run(dtype, pads):
    def run(device, inputs):
        x = inputs["x"]
        w = x.shape[-1]
        out_w = w + sum(pads)
        y = np.zeros(x.size // w * out_w, x.dtype)
        padding = np.array(pads, np.int64)
        block_dim, tiling_bytes, ws = tiling(device, x.shape, pads, dtype)
        workspace = np.zeros(max(ws, BYTE_BLOCK), np.uint8)
        aj.launch(reflection_pad1d_v2, block_dim, device, x.reshape(-1), padding, y, workspace, tiling_bytes,
                  TILING_KEY[dtype])
        return {"y": y.reshape(x.shape[:-1] + (out_w,))}
    return run


def _expected(pads):
    def expected(device, inputs):
        x = inputs["x"]
        width = [(0, 0)] * (x.ndim - 1) + [pads]
        return {"y": np.pad(x.view(np.uint16 if x.itemsize == 2 else np.uint32), width, mode="reflect").view(x.dtype)}
    return expected


def _spec(name, dtype, w, pads, default, description):
    return KernelSpec(name, description, _shape(dtype, w), _run(dtype, pads), _expected(pads), default_size=default,
                      devices=DEVICES, size_rule=f"a multiple of W = {w}", size_ok=lambda n: n > 0 and n % w == 0,
                      source="hicann/ops-math@c4193324 experimental/math/reflection_pad1d_v2/op_kernel/"
                             "reflection_pad1d_v2.h")


KERNELS = [
    _spec("reflection_pad1d_v2", "float", 37, (5, 9), 3 * 37 * 23, "ReflectionPad1dV2 over float rows of 37: "
          "DataCopyPad in with rightPadding to the 32-byte block, GetValue / SetValue reflection, DataCopyPad out of "
          "51 floats; 69 rows over 8 cores (5 of them 9 rows)"),
    _spec("reflection_pad1d_v2_half", "half", 100, (0, 99), 3 * 100 * 5, "ReflectionPad1dV2 over half rows of 100, "
          "right pad only, the widest reflection (W - 1)"),
    _spec("reflection_pad1d_v2_bf16", "bfloat16", 7, (6, 3), 5 * 7, "ReflectionPad1dV2 over bfloat16 rows of 7 "
          "(one row a core on 5 cores: the tiling's N x C <= cores branch)"),
]
