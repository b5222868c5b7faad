"""BlendFaceBgPartTwo from the CANN CV operators: the second half of a face-swap blend,
fused = acc_face / (acc_mask + epsilon) * max_mask + bg_img * (1 - max_mask), element by element over float, the
background image float or uint8.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-cv @ 6ae87653464d2afb064c829e529abba2e278b0c4, experimental/image/blend_face_bg_part_two:
- op_kernel/blend_face_bg_part_two.h (`NsBlendFaceBgPartTwo::KernelBlendFaceBgPartTwo<T, BgT>`): the element split
  of the tiling (the first `pivot` cores take one element more, every later core starting at an unaligned GM
  element); depth-2 VECIN queues for acc_face, acc_mask, max_mask and bg_img and a depth-2 VECOUT queue of tileSize
  elements, four T TBufs (fusion face, 1 - max, the two products) and, for a uint8 background, a half and a T TBuf;
  per tile CopyIn by DataCopyPad (DataCopyExtParams {1, n * sizeof, 0, 0, 0}, DataCopyPadExtParams padding the
  tile to 32 bytes with zeros: `MakeCopyInPadParams`), Compute: uint8 bg Cast CAST_NONE to half and on to float,
  Adds epsilon in place on acc_mask, Div, Muls -1, Adds 1, Mul, Mul, Add, all over the tile's count; CopyOut by
  DataCopyPad;
- op_kernel/blend_face_bg_part_two.cpp (the entry: a caller-made TPipe, GET_TILING_DATA_WITH_STRUCT, KERNEL_TYPE
  AIV_ONLY) and op_host/blend_face_bg_part_two_tiling.cpp (`BlendFaceBgPartTwoTilingFunc`: cores = min(total, AIV
  cores), baseElems = total / cores, pivot = total % cores; tileSize = (UB - 8 KiB) / 56 bytes, at most 2048,
  rounded down to 32; epsilon from the attribute, 1e-12 by default).

Deviations: the core count is at most the launch's 8 (GetCoreNumAiv in the original). Nothing else: DataCopyPad
moves each tile's bytes exactly (its padding lanes are zeros), and every instruction's count is the tile's count.

Devices: the operator's configs are the ascend910b, ascend910_93 and ascend950 (op_host/..._def.cpp): the port runs
on the A3, A2 and 950.

Fidelity: Div MODELLED (SPEC-2 D37: the exact quotient rounded once to float), the rest BIT-EXACT (Cast, Adds, Muls,
Mul, Add, DataCopyPad; SPEC-2 0.3), so the numpy model (float32 division and float32 products and sums, each rounded
once) is checked bit for bit. A zero acc_mask + epsilon divides to +-inf or NaN as IEEE division does; inf * 0 gives
NaN; a NaN operand propagates.
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
BUFFER_NUM = 2
DMA_ALIGN_BYTES = 32
MAX_TILE_SIZE, MIN_TILE_SIZE = 2048, 32
UB_RESERVE_BYTES = 8 * 1024
UB_BYTES_PER_ELEM = 56
DEFAULT_EPSILON = 1e-12
TYPE_SIZE = {"float": 4, "uint8": 1, "half": 2}
_NP = {"float": np.float32, "uint8": np.uint8}
DEVICES = ("atlas-a3", "atlas-a2", "ascend950")


class BlendFaceBgPartTwoTilingData(ctypes.Structure):
    _fields_ = [("totalElems", ctypes.c_uint32), ("baseElems", ctypes.c_uint32), ("pivot", ctypes.c_uint32),
                ("tileSize", ctypes.c_uint32), ("epsilon", ctypes.c_float)]


def tiling(device, total, epsilon=DEFAULT_EPSILON):
    """BlendFaceBgPartTwoTilingFunc: (used cores, the tiling bytes)."""
    if total == 0:
        t = BlendFaceBgPartTwoTilingData(0, 0, 0, MAX_TILE_SIZE, DEFAULT_EPSILON)
        return 1, np.frombuffer(bytes(t), np.uint8).copy()
    ub_size = aj.get_device(device).ub_bytes
    available = ub_size - UB_RESERVE_BYTES if ub_size > UB_RESERVE_BYTES else 0
    max_elems = available // UB_BYTES_PER_ELEM
    if max_elems < MIN_TILE_SIZE:
        raise ValueError("UB is too small for minimum tile")
    tile_size = min(max_elems, MAX_TILE_SIZE) // MIN_TILE_SIZE * MIN_TILE_SIZE
    used = min(total, CORE_NUM)
    t = BlendFaceBgPartTwoTilingData(total, total // used, total % used, tile_size, epsilon)
    return used, np.frombuffer(bytes(t), np.uint8).copy()


def make_copy_in_pad_params(CopyT, count):
    """MakeCopyInPadParams: pad the tile's bytes up to 32 with zeros (no padding when already whole)."""
    tail_bytes = count * TYPE_SIZE[CopyT] % DMA_ALIGN_BYTES
    right_padding = (DMA_ALIGN_BYTES - tail_bytes) // TYPE_SIZE[CopyT] if tail_bytes else 0
    return aj.DataCopyPadExtParams(right_padding != 0, 0, right_padding, _NP[CopyT](0))


class KernelBlendFaceBgPartTwo:
    """`KernelBlendFaceBgPartTwo<T, BgT>`."""

    def __init__(self, T, BgT):
        self.T, self.BgT = T, BgT

    def Init(self, acc_face, acc_mask, max_mask, bg_img, fused_img, tilingData, pipe):
        T, BgT = self.T, self.BgT
        self.pipe = pipe
        self.tileSize = tilingData.tileSize
        self.epsilon = np.float32(tilingData.epsilon)
        baseElems, pivot = tilingData.baseElems, tilingData.pivot
        blockId = aj.GetBlockIdx()
        self.myElems = baseElems + (1 if blockId < pivot else 0)
        myStart = blockId * baseElems + (blockId if blockId < pivot else pivot)
        self.innerLoops = (self.myElems + self.tileSize - 1) // self.tileSize
        self.accFaceGm, self.accMaskGm, self.maxMaskGm = aj.GlobalTensor(T), aj.GlobalTensor(T), aj.GlobalTensor(T)
        self.bgImgGm, self.fusedImgGm = aj.GlobalTensor(BgT), aj.GlobalTensor(T)
        self.accFaceGm.SetGlobalBuffer(acc_face[myStart:], self.myElems)
        self.accMaskGm.SetGlobalBuffer(acc_mask[myStart:], self.myElems)
        self.maxMaskGm.SetGlobalBuffer(max_mask[myStart:], self.myElems)
        self.bgImgGm.SetGlobalBuffer(bg_img[myStart:], self.myElems)
        self.fusedImgGm.SetGlobalBuffer(fused_img[myStart:], self.myElems)
        self.inQueueAccFace, self.inQueueAccMask, self.inQueueMaxMask, self.inQueueBgImg = (
            aj.TQue(aj.TPosition.VECIN, BUFFER_NUM) for _ in range(4))
        self.outQueueFusedImg = aj.TQue(aj.TPosition.VECOUT, BUFFER_NUM)
        self.fusionFaceBuf, self.invMaxBuf, self.bgPartBuf, self.facePartBuf = (
            aj.TBuf(aj.TPosition.VECCALC) for _ in range(4))
        self.bgImgHalfBuf, self.bgImgCastBuf = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        size_t, size_bg = TYPE_SIZE[T], TYPE_SIZE[BgT]
        pipe.InitBuffer(self.inQueueAccFace, BUFFER_NUM, self.tileSize * size_t)
        pipe.InitBuffer(self.inQueueAccMask, BUFFER_NUM, self.tileSize * size_t)
        pipe.InitBuffer(self.inQueueMaxMask, BUFFER_NUM, self.tileSize * size_t)
        pipe.InitBuffer(self.inQueueBgImg, BUFFER_NUM, self.tileSize * size_bg)
        pipe.InitBuffer(self.outQueueFusedImg, BUFFER_NUM, self.tileSize * size_t)
        pipe.InitBuffer(self.fusionFaceBuf, self.tileSize * size_t)
        pipe.InitBuffer(self.invMaxBuf, self.tileSize * size_t)
        pipe.InitBuffer(self.bgPartBuf, self.tileSize * size_t)
        pipe.InitBuffer(self.facePartBuf, self.tileSize * size_t)
        if size_bg != size_t:
            pipe.InitBuffer(self.bgImgHalfBuf, self.tileSize * TYPE_SIZE["half"])
            pipe.InitBuffer(self.bgImgCastBuf, self.tileSize * size_t)

    def Process(self):
        for i in range(self.innerLoops):
            curTile = self.tileSize
            if i == self.innerLoops - 1:
                curTile = self.myElems - i * self.tileSize
            self.CopyIn(i, curTile)
            self.Compute(curTile)
            self.CopyOut(i, curTile)

    def CopyIn(self, idx, curTile):
        T, BgT = self.T, self.BgT
        offset = idx * self.tileSize
        copyParams = aj.DataCopyExtParams(1, curTile * TYPE_SIZE[T], 0, 0, 0)
        padParams = make_copy_in_pad_params(T, curTile)
        bgCopyParams = aj.DataCopyExtParams(1, curTile * TYPE_SIZE[BgT], 0, 0, 0)
        bgPadParams = make_copy_in_pad_params(BgT, curTile)
        accFaceLocal = self.inQueueAccFace.AllocTensor(T)
        accMaskLocal = self.inQueueAccMask.AllocTensor(T)
        maxMaskLocal = self.inQueueMaxMask.AllocTensor(T)
        bgImgLocal = self.inQueueBgImg.AllocTensor(BgT)
        aj.DataCopyPad(accFaceLocal, self.accFaceGm[offset], copyParams, padParams)
        aj.DataCopyPad(accMaskLocal, self.accMaskGm[offset], copyParams, padParams)
        aj.DataCopyPad(maxMaskLocal, self.maxMaskGm[offset], copyParams, padParams)
        aj.DataCopyPad(bgImgLocal, self.bgImgGm[offset], bgCopyParams, bgPadParams)
        self.inQueueAccFace.EnQue(accFaceLocal)
        self.inQueueAccMask.EnQue(accMaskLocal)
        self.inQueueMaxMask.EnQue(maxMaskLocal)
        self.inQueueBgImg.EnQue(bgImgLocal)

    def Compute(self, count):
        T, BgT = self.T, self.BgT
        accFaceLocal = self.inQueueAccFace.DeQue(T)
        accMaskLocal = self.inQueueAccMask.DeQue(T)
        maxMaskLocal = self.inQueueMaxMask.DeQue(T)
        bgImgLocal = self.inQueueBgImg.DeQue(BgT)
        fusionFaceLocal = self.fusionFaceBuf.Get(T)
        invMaxLocal = self.invMaxBuf.Get(T)
        bgPartLocal = self.bgPartBuf.Get(T)
        facePartLocal = self.facePartBuf.Get(T)
        fusedImgLocal = self.outQueueFusedImg.AllocTensor(T)
        if TYPE_SIZE[BgT] == TYPE_SIZE[T]:
            bgImgCalcLocal = bgImgLocal
        else:
            bgImgHalfLocal = self.bgImgHalfBuf.Get("half")
            bgImgCalcLocal = self.bgImgCastBuf.Get(T)
            aj.Cast(bgImgHalfLocal, bgImgLocal, aj.RoundMode.CAST_NONE, count)
            aj.Cast(bgImgCalcLocal, bgImgHalfLocal, aj.RoundMode.CAST_NONE, count)
        aj.Adds(accMaskLocal, accMaskLocal, self.epsilon, count)            # acc_mask + epsilon, in place
        aj.Div(fusionFaceLocal, accFaceLocal, accMaskLocal, count)          # the fused face
        aj.Muls(invMaxLocal, maxMaskLocal, np.float32(-1.0), count)         # 1 - max_mask
        aj.Adds(invMaxLocal, invMaxLocal, np.float32(1.0), count)
        aj.Mul(bgPartLocal, bgImgCalcLocal, invMaxLocal, count)
        aj.Mul(facePartLocal, fusionFaceLocal, maxMaskLocal, count)
        aj.Add(fusedImgLocal, facePartLocal, bgPartLocal, count)
        self.outQueueFusedImg.EnQue(fusedImgLocal)
        self.inQueueAccFace.FreeTensor(accFaceLocal)
        self.inQueueAccMask.FreeTensor(accMaskLocal)
        self.inQueueMaxMask.FreeTensor(maxMaskLocal)
        self.inQueueBgImg.FreeTensor(bgImgLocal)

    def CopyOut(self, idx, curTile):
        fusedImgLocal = self.outQueueFusedImg.DeQue(self.T)
        copyParams = aj.DataCopyExtParams(1, curTile * TYPE_SIZE[self.T], 0, 0, 0)
        aj.DataCopyPad(self.fusedImgGm[idx * self.tileSize], fusedImgLocal, copyParams)
        self.outQueueFusedImg.FreeTensor(fusedImgLocal)


aj.REGISTER_TILING_DEFAULT(BlendFaceBgPartTwoTilingData)


def blend_face_bg_part_two(acc_face, acc_mask, max_mask, bg_img, fused_img, workspace, tiling_bytes, T, BgT):
    """The kernel entry (blend_face_bg_part_two.cpp, schMode 0)."""
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(BlendFaceBgPartTwoTilingData, tiling_bytes)
    pipe = aj.TPipe()
    op = KernelBlendFaceBgPartTwo(T, BgT)
    op.Init(acc_face, acc_mask, max_mask, bg_img, fused_img, tilingData, pipe)
    op.Process()


def run_blend_face_bg_part_two(device, acc_face, acc_mask, max_mask, bg_img, epsilon=DEFAULT_EPSILON):
    BgT = "uint8" if bg_img.dtype == np.uint8 else "float"
    used, t = tiling(device, acc_face.size, epsilon)
    fused = np.zeros(acc_face.size, np.float32)
    aj.launch(blend_face_bg_part_two, used, device, *(np.ascontiguousarray(a).reshape(-1) for a in (
        acc_face, acc_mask, max_mask, bg_img)), fused, None, t, "float", BgT)
    return fused.reshape(acc_face.shape)


def blend_face_bg_part_two_model(acc_face, acc_mask, max_mask, bg_img, epsilon=DEFAULT_EPSILON):
    """The kernel's float chain, each operation rounded once to float: (acc_mask + eps), the IEEE quotient,
    max_mask * -1 + 1 (exact negation), the two products and their sum."""
    f32 = np.float32
    with np.errstate(all="ignore"):
        m = (acc_mask.astype(f32) + f32(epsilon)).astype(f32)
        face = (acc_face.astype(f32) / m).astype(f32)
        inv = (max_mask.astype(f32) * f32(-1.0) + f32(1.0)).astype(f32)
        bg = (bg_img.astype(f32) * inv).astype(f32)
        return (face * max_mask.astype(f32) + bg).astype(f32)


def _make_inputs(BgT):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        acc_mask = rng.uniform(0.0, 4.0, size).astype(np.float32)
        acc_mask[::97] = 0.0                                       # epsilon alone divides
        acc_face = (acc_mask * rng.uniform(0.0, 255.0, size)).astype(np.float32)
        acc_face[::97] = 0.0
        max_mask = rng.uniform(0.0, 1.0, size).astype(np.float32)
        max_mask[::5] = np.where(rng.random(max_mask[::5].size) < 0.5, 0.0, 1.0)
        bg = rng.integers(0, 256, size)
        bg_img = bg.astype(np.uint8) if BgT == "uint8" else (bg + rng.random(size)).astype(np.float32)
        return {"acc_face": acc_face, "acc_mask": acc_mask, "max_mask": max_mask, "bg_img": bg_img}
    return make_inputs


def _run(device, inputs):
    return {"fused_img": run_blend_face_bg_part_two(device, inputs["acc_face"], inputs["acc_mask"],
                                                    inputs["max_mask"], inputs["bg_img"])}


def _expected(device, inputs):
    return {"fused_img": blend_face_bg_part_two_model(inputs["acc_face"], inputs["acc_mask"], inputs["max_mask"],
                                                      inputs["bg_img"])}


_SOURCE = ("hicann/ops-cv@6ae87653 experimental/image/blend_face_bg_part_two/op_kernel/"
           "blend_face_bg_part_two.h")
KERNELS = [
    KernelSpec(f"blend_face_bg_part_two{suffix}", description, _make_inputs(bgt), _run, _expected,
               default_size=size, devices=DEVICES, source=_SOURCE)
    for suffix, bgt, size, description in (
        ("", "float", 100003, "BlendFaceBgPartTwo over floats (Adds epsilon, Div, Muls -1, Adds 1, Mul, Mul, Add; "
         "element-split big/small cores from unaligned GM starts, double-buffered 2048-element DataCopyPad tiles "
         "padded to 32 bytes)"),
        ("_uint8_bg", "uint8", 100003, "BlendFaceBgPartTwo with a uint8 background (Cast uint8 -> half -> float "
         "CAST_NONE, then the float chain)"))
]
