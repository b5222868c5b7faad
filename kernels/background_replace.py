"""BackgroundReplace from the CANN CV operators: out = bkg * (1 - mask) + src * mask, written
out = (bkg - bkg * mask) + src * mask, element by element, for one-channel images (mask the same size as the image)
of half or uint8 pixels with a half mask.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-cv @ 6ae87653464d2afb064c829e529abba2e278b0c4, objdetect/background_replace:
- op_kernel/vector_scheduler.h (`VectorScheduler`, shared with MrgbaCustom and BlendImagesCustom): the elements
  split over GetBlockNum() cores, contentLen / cores each (fewer than 32 bytes of elements a core: core 0 takes them
  all), the last core the remainder too; a UB-filling loop length of (248 KiB / ubVarCount / bufferNum) bytes rounded
  down to 32; `run`: whole loops, then the tail rounded down to 32 bytes, then, if elements are left, one more 32-byte
  step ending at the core's last element (it overlaps elements already written and writes them again, same values);
- op_kernel/background_replace.cpp (`KernelBackgroundReplaceC1<T1, T2>`: depth-1 queues for bkg, src, mask and
  out of the loop's bytes (mask: twice that for uint8 pixels) and, for uint8 pixels, two half TBufs; per step
  DataCopy of bkg, src and mask, EnQue / DeQue, half pixels: Mul(src, src, mask), Mul(mask, bkg, mask), Sub(bkg,
  bkg, mask), Add(out, bkg, src), in place in the queue buffers; uint8 pixels: Cast CAST_NONE to half first and
  Cast half -> uint8 CAST_NONE of the result; DataCopy out. The entry picks the kernel by tiling key: 1 half, 2
  uint8 (ubVarCount 5 and 12));
- op_host/background_replace_tiling.cpp (`TilingBackgroundReplace`: the mask's size, the key from the pixel type and
  whether the mask is the image's size, 8 cores, the 310P's block dim).

Not ported: the three-channel keys 3 and 4 (`KernelBackgroundReplaceC3`: a (n, 3) image with an (n,) mask),
which widen the mask with the advanced API's BroadCast<half, 2, 1>, an API the emulator does not offer.

Deviations: none. The original reads and writes whole 32-byte DataCopy blocks; with fewer than 32 bytes of
elements in all (16 halves, 32 uint8) core 0's one 32-byte step reads past the GM tensors, which the emulator
refuses (tests/test_port47cv_kernels.py shows it); the host tiling does not guard this, so the port's size rule
asks for at least 32 elements.

Devices: the operator's config is the ascend310p (op_host/background_replace_def.cpp): the port runs on the Atlas
inference AI Core (310P). The scheduler's 248 KiB of UB does not fit the A2/A3's 192 KiB.

Fidelity: BIT-EXACT (Mul, Sub, Add, Cast, DataCopy; SPEC-2 0.3): each half operation rounds once (RNE) and, the
310P's half overflow mode being saturating (SPEC D6, SPEC-2 D35), an infinite result becomes +-65504 and a NaN
result +0 at every stage; uint8 pixels come back by Cast half -> uint8 CAST_NONE = CAST_RINT (SPEC-2 D45),
saturating to 0..255.
"""
import ctypes

import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 1
BLOCK_DIM = 8                      # ASCEND_310P_BLOCK_DIM of the host tiling
UB_SIZE_BYTE = 248 * 1024
BLOCK_SIZE_BYTES = 32
TILING_KEY_HALF_C1, TILING_KEY_UINT8_C1 = 1, 2
UB_VAR_NUM = {TILING_KEY_HALF_C1: 5, TILING_KEY_UINT8_C1: 12}
TYPE_SIZE = {"half": 2, "uint8": 1}
_NP = {"half": np.float16, "uint8": np.uint8}
DEVICES = ("atlas-inference-aicore",)


class TilingDataBackgroundReplace(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32)]


def tiling(bkg_size, mask_size, dtype):
    """TilingBackgroundReplace: (block dim, tiling key, tiling bytes)."""
    if mask_size != bkg_size:
        raise NotImplementedError("the three-channel keys need the advanced BroadCast (not offered)")
    key = TILING_KEY_HALF_C1 if dtype == "half" else TILING_KEY_UINT8_C1
    return BLOCK_DIM, key, np.frombuffer(bytes(TilingDataBackgroundReplace(mask_size)), np.uint8).copy()


def _up_align(n, a):
    return (n + a - 1) // a * a if a else 0


def _down_align(n, a):
    return n // a * a if a else 0


class VectorScheduler:
    """`VectorScheduler`: the core split and the UB loop length."""

    def __init__(self, contentLen, numBlocks, bufferNum, ubVarCount, sizeofT):
        self.numBlocks, self.bufferNum, self.ubVarCount, self.sizeofT = numBlocks, bufferNum, ubVarCount, sizeofT
        blockIdx = aj.GetBlockIdx()
        self.dataLenPer32B = BLOCK_SIZE_BYTES // sizeofT
        self.dataLenPerCore = contentLen // numBlocks
        if self.dataLenPerCore < self.dataLenPer32B:
            self.dataLenPerCore = contentLen if blockIdx == 0 else 0
            self.dataLenTailL1 = 0
        else:
            self.dataLenTailL1 = contentLen % numBlocks
        maxUbSizePerVar = int(np.float32(UB_SIZE_BYTE) / np.float32(ubVarCount) / np.float32(bufferNum))
        self.dataBytesPerLoop = _down_align(maxUbSizePerVar, BLOCK_SIZE_BYTES)
        self.dataLenPerLoop = self.dataBytesPerLoop // sizeofT
        self.dataLen = self.dataLenPerCore
        if blockIdx == numBlocks - 1:
            self.dataLen += self.dataLenTailL1

    def run(self, computer, length):
        if length <= 0:
            return
        loops, tailLen = divmod(length, self.dataLenPerLoop)
        tailLenA32 = _down_align(tailLen, self.dataLenPer32B)
        tailLenBackoff = tailLen - tailLenA32
        idx = 0
        for _ in range(loops):
            computer.CalcForAlign32(idx, self.dataLenPerLoop)
            idx += self.dataLenPerLoop
        if tailLenA32:
            computer.CalcForAlign32(loops * self.dataLenPerLoop, tailLenA32)
        if tailLenBackoff > 0:                       # one 32-byte step ending at the last element
            idx = length - self.dataLenPer32B if length >= self.dataLenPer32B else 0
            computer.CalcForAlign32(idx, self.dataLenPer32B)


class KernelBackgroundReplaceC1:
    """`KernelBackgroundReplaceC1<T1, T2>` (T2 = half)."""

    def __init__(self, T1, T2="half"):
        self.T1, self.T2 = T1, T2

    def Init(self, bkg, src, mask, out, workspace, bufferNum, bufferBytes, gmIdx, gmDataLen):
        if bufferBytes <= 0:
            return
        self.pipe = aj.TPipe()
        self.inQueueBkg, self.inQueueSrc, self.inQueueMask = (aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM)
                                                              for _ in range(3))
        self.outQueuedst = aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM)
        self.calcBufX1, self.calcBufX2 = aj.TBuf(aj.TPosition.VECCALC), aj.TBuf(aj.TPosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueBkg, bufferNum, bufferBytes)
        self.pipe.InitBuffer(self.inQueueSrc, bufferNum, bufferBytes)
        self.pipe.InitBuffer(self.outQueuedst, bufferNum, bufferBytes)
        if TYPE_SIZE[self.T1] == 1:
            self.pipe.InitBuffer(self.calcBufX1, bufferBytes * 2)
            self.pipe.InitBuffer(self.calcBufX2, bufferBytes * 2)
            self.pipe.InitBuffer(self.inQueueMask, bufferNum, bufferBytes * 2)
        else:
            self.pipe.InitBuffer(self.inQueueMask, bufferNum, bufferBytes)
        self.x1Gm, self.x2Gm = aj.GlobalTensor(self.T1), aj.GlobalTensor(self.T1)
        self.x3Gm, self.zGm = aj.GlobalTensor(self.T2), aj.GlobalTensor(self.T1)
        self.x1Gm.SetGlobalBuffer(bkg[gmIdx:], gmDataLen)
        self.x2Gm.SetGlobalBuffer(src[gmIdx:], gmDataLen)
        self.x3Gm.SetGlobalBuffer(mask[gmIdx:], gmDataLen)
        self.zGm.SetGlobalBuffer(out[gmIdx:], gmDataLen)

    def CalcForAlign32(self, idx, length):
        if length <= 0:
            return
        T1, T2 = self.T1, self.T2
        bkgLocal = self.inQueueBkg.AllocTensor(T1)
        srcLocal = self.inQueueSrc.AllocTensor(T1)
        maskLocal = self.inQueueMask.AllocTensor(T2)
        dstLocal = self.outQueuedst.AllocTensor(T1)
        aj.DataCopy(bkgLocal, self.x1Gm[idx], length)
        aj.DataCopy(srcLocal, self.x2Gm[idx], length)
        aj.DataCopy(maskLocal, self.x3Gm[idx], length)
        self.inQueueBkg.EnQue(bkgLocal)
        self.inQueueSrc.EnQue(srcLocal)
        self.inQueueMask.EnQue(maskLocal)
        bkgLocal = self.inQueueBkg.DeQue(T1)
        srcLocal = self.inQueueSrc.DeQue(T1)
        maskLocal = self.inQueueMask.DeQue(T2)
        if TYPE_SIZE[T1] == 1:
            bkgTmpLocal = self.calcBufX1.Get("half")
            srcTmpLocal = self.calcBufX2.Get("half")
            aj.Cast(bkgTmpLocal, bkgLocal, aj.RoundMode.CAST_NONE, length)
            aj.Cast(srcTmpLocal, srcLocal, aj.RoundMode.CAST_NONE, length)
            aj.Mul(srcTmpLocal, srcTmpLocal, maskLocal, length)
            aj.Mul(maskLocal, bkgTmpLocal, maskLocal, length)
            aj.Sub(bkgTmpLocal, bkgTmpLocal, maskLocal, length)
            aj.Add(bkgTmpLocal, bkgTmpLocal, srcTmpLocal, length)
            aj.Cast(dstLocal, bkgTmpLocal, aj.RoundMode.CAST_NONE, length)
        else:
            aj.Mul(srcLocal, srcLocal, maskLocal, length)
            aj.Mul(maskLocal, bkgLocal, maskLocal, length)
            aj.Sub(bkgLocal, bkgLocal, maskLocal, length)
            aj.Add(dstLocal, bkgLocal, srcLocal, length)
        self.outQueuedst.EnQue(dstLocal)
        self.inQueueBkg.FreeTensor(bkgLocal)
        self.inQueueSrc.FreeTensor(srcLocal)
        self.inQueueMask.FreeTensor(maskLocal)
        dstLocal = self.outQueuedst.DeQue(T1)
        aj.DataCopy(self.zGm[idx], dstLocal, length)
        self.outQueuedst.FreeTensor(dstLocal)


aj.REGISTER_TILING_DEFAULT(TilingDataBackgroundReplace)


def run_op(bkg, src, mask, out, workspace, tilingData, T1, ubVarNum):
    """run_op<T1, half> with isRGB false."""
    sch = VectorScheduler(tilingData.size, aj.GetBlockNum(), BUFFER_NUM, ubVarNum, TYPE_SIZE[T1])
    orgVecIdx = aj.GetBlockIdx() * sch.dataLenPerCore
    op = KernelBackgroundReplaceC1(T1)
    op.Init(bkg, src, mask, out, workspace, sch.bufferNum, sch.dataBytesPerLoop, orgVecIdx, sch.dataLen)
    sch.run(op, sch.dataLen)


def background_replace(bkg, src, mask, out, workspace, tiling_bytes, tiling_key):
    """The kernel entry: TILING_KEY_IS(1) half pixels, (2) uint8 pixels."""
    tilingData = aj.GET_TILING_DATA(tiling_bytes)
    if tiling_key == TILING_KEY_HALF_C1:
        run_op(bkg, src, mask, out, workspace, tilingData, "half", UB_VAR_NUM[TILING_KEY_HALF_C1])
    elif tiling_key == TILING_KEY_UINT8_C1:
        run_op(bkg, src, mask, out, workspace, tilingData, "uint8", UB_VAR_NUM[TILING_KEY_UINT8_C1])


def run_background_replace(device, bkg, src, mask):
    dtype = "uint8" if bkg.dtype == np.uint8 else "half"
    block_dim, key, t = tiling(bkg.size, mask.size, dtype)
    out = np.zeros(bkg.size, bkg.dtype)
    aj.launch(background_replace, block_dim, device, np.ascontiguousarray(bkg).reshape(-1),
              np.ascontiguousarray(src).reshape(-1), np.ascontiguousarray(mask, np.float16).reshape(-1), out,
              None, t, key)
    return out.reshape(bkg.shape)


def _half_stage(x):
    """One half stage on the 310P: the exact result rounded once to half (RNE), then saturated (SPEC D6, SPEC-2
    D35: +-inf -> +-65504, NaN -> +0)."""
    with np.errstate(all="ignore"):
        r = x.astype(np.float16)
    r = np.where(np.isnan(r), np.float16(0), np.clip(r, np.float16(-65504), np.float16(65504))).astype(np.float16)
    return r.astype(np.float64)


def background_replace_model(bkg, src, mask):
    """(bkg - bkg * mask) + src * mask in half, each operation rounded once (the exact float64 result of two halves,
    then RNE) and saturated as the 310P's half stages are; uint8 pixels converted exactly and rounded back by RINT,
    saturated to 0..255."""
    with np.errstate(all="ignore"):
        b, s, m = (a.astype(np.float16).astype(np.float64) for a in (bkg, src, mask))
        sm = _half_stage(s * m)
        bm = _half_stage(b * m)
        r = _half_stage(_half_stage(b - bm) + sm)
    if bkg.dtype == np.uint8:
        return np.clip(np.rint(r), 0, 255).astype(np.uint8)
    return r.astype(np.float16)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        mask = rng.uniform(0.0, 1.0, size).astype(np.float16)
        mask[::7] = np.where(rng.random(mask[::7].size) < 0.5, 0.0, 1.0)
        if dtype == "uint8":
            bkg, src = (rng.integers(0, 256, size).astype(np.uint8) for _ in range(2))
        else:
            bkg, src = (rng.uniform(0.0, 255.0, size).astype(np.float16) for _ in range(2))
        return {"bkg": bkg, "src": src, "mask": mask}
    return make_inputs


def _run(device, inputs):
    return {"out": run_background_replace(device, inputs["bkg"], inputs["src"], inputs["mask"])}


def _expected(device, inputs):
    return {"out": background_replace_model(inputs["bkg"], inputs["src"], inputs["mask"])}


_SOURCE = "hicann/ops-cv@6ae87653 objdetect/background_replace/op_kernel/background_replace.cpp"
KERNELS = [
    KernelSpec(f"background_replace{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE, size_rule="32 or more (the 32-byte DataCopy steps)",
               size_ok=lambda n: n >= 32)
    for suffix, dtype, size, description in (
        ("", "half", 200003, "BackgroundReplace over half one-channel images (Mul, Mul, Sub, Add in place in the "
         "queue buffers; the VectorScheduler's UB-filling DataCopy steps, a 32-byte-rounded tail and a backed-off "
         "32-byte last step)"),
        ("_uint8", "uint8", 200003, "BackgroundReplace over uint8 one-channel images with a half mask (Cast uint8 "
         "-> half CAST_NONE, the half chain, Cast half -> uint8 CAST_NONE)"))
]
