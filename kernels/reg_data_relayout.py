"""The devkit example `data_relayout` (Ascend 950), both scenarios:
- scenario 1 (`reg_interleave`): two uint16 vectors interleaved: per 128-lane step, POST_MODE_UPDATE loads of x
  and y, `Interleave<T>(dst0, dst1, src0, src1)` on data registers (dst0 = x[0], y[0], x[1], y[1], ..., x[63],
  y[63]; dst1 the same from lane 64), two POST_MODE_UPDATE stores under an ALL mask;
- scenario 2 (`reg_pack`): uint32 -> uint16 by `Pack<uint16_t, uint32_t, HighLowPart::LOWEST>(dst, src)` on data
  registers (the low 16 bits of each lane into the lower half of dst), a POST_MODE_UPDATE store of 128 uint16 at a
  step of 64.
Each: LocalMemAllocator tiles, DataCopy GM -> UB, MTE2_V flag, the VF (compiled with `@aj.Reg.simd_vf`), V_MTE3
flag, DataCopy UB -> GM, PipeBarrier<PIPE_ALL>.

Source: mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
02_reg_vector_compute/data_relayout/data_relayout.asc (`InterleaveVF`, `KernelInterleave<uint16_t, 128>`,
`PackVF`, `KernelPack<uint32_t, uint16_t, 128>`) and scripts/gen_data.py (the goldens). The devkit pages:
docs/zh/api/SIMD-API/基础API/Reg矢量计算/数据重排/Interleave.md and 数据压缩/Pack.md.

Deviations (porting gaps, docs/reg38 report): ascend_jit offers Interleave / Pack only on MaskRegs (SPEC-2 11.7; a
RegTensor is a ParameterError "legal: an aj.Reg.MaskReg"), not the data-register forms of those pages. So:
- scenario 1 interleaves through the UB: a dual StoreAlign with DIST_INTLV_B16 of (src0, src1) into a 256-element
  scratch tile (element 2i = src0 lane i, 2i+1 = src1 lane i: dst0's lanes then dst1's), a LocalMemBar
  VEC_STORE -> VEC_LOAD, and two LoadAlign of dst0 and dst1 from it; the original's stores follow unchanged. The
  scratch tile (one vector pair) is an extra LocalMemAllocator allocation.
- scenario 2 stores the uint32 register through StoreAlign DIST_PACK_B32 (the low 16 bits of each lane, 64 uint16
  a step) instead of Pack + a 128-lane store; the original's last step also writes the 64 lanes of dst's upper
  half past dstLocal's end (into the UB beyond the allocation, overwritten by nothing); the PACK store writes
  exactly the results.
Sizes: the example's 128 elements; any multiple of 128 up to 16384 runs (whole steps, as the original).

Devices: ascend950 only. Fidelity: BIT-EXACT (lane copies and truncation to 16 bits), expectation from numpy (the
example's gen_data.py formulas).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg


def interleave_vf(dst0Addr, dst1Addr, src0Addr, src1Addr, tmpAddr, repeatTimes, oneRepeatSize):
    """InterleaveVF; Interleave<T>(dst0, dst1, src0, src1) through an INTLV store and two loads (docstring)."""
    src0Reg, src1Reg = R.RegTensor("uint16"), R.RegTensor("uint16")
    dst0Reg, dst1Reg = R.RegTensor("uint16"), R.RegTensor("uint16")
    mask = R.CreateMask("uint16", R.MaskPattern.ALL)
    s0 = s1 = d0 = d1 = 0
    for _ in range(repeatTimes):
        s0 = R.LoadAlign(src0Reg, src0Addr, s0, post_update_stride=oneRepeatSize)
        s1 = R.LoadAlign(src1Reg, src1Addr, s1, post_update_stride=oneRepeatSize)
        # Interleave(dst0Reg, dst1Reg, src0Reg, src1Reg):
        R.StoreAlign(tmpAddr, src0Reg, src1Reg, mask, dist=R.StoreDist.DIST_INTLV_B16)
        R.LocalMemBar(R.MemType.VEC_STORE, R.MemType.VEC_LOAD)
        R.LoadAlign(dst0Reg, tmpAddr, 0)
        R.LoadAlign(dst1Reg, tmpAddr, oneRepeatSize)
        d0 = R.StoreAlign(dst0Addr, dst0Reg, mask, d0, post_update_stride=oneRepeatSize)
        d1 = R.StoreAlign(dst1Addr, dst1Reg, mask, d1, post_update_stride=oneRepeatSize)


def pack_vf(dstAddr, srcAddr, repeatTimes, oneRepeatSize):
    """PackVF; Pack LOWEST + the 128-lane store as one DIST_PACK_B32 store of the uint32 register (docstring)."""
    srcReg = R.RegTensor("uint32")
    mask32 = R.CreateMask("uint32", R.MaskPattern.ALL)
    s = d = 0
    for _ in range(repeatTimes):
        s = R.LoadAlign(srcReg, srcAddr, s, post_update_stride=oneRepeatSize)
        d = R.StoreAlign(dstAddr, srcReg, mask32, d, dist=R.StoreDist.DIST_PACK_B32, post_update_stride=oneRepeatSize)


INTERLEAVE_VF = R.simd_vf(interleave_vf)
PACK_VF = R.simd_vf(pack_vf)


def interleave_kernel(x, y, dst0, dst1, singleCoreLength, vf):
    """data_relayout scenario 1: KernelInterleave<uint16_t, singleCoreLength>::Process."""
    aj.InitSocState()
    xGm, yGm, dst0Gm, dst1Gm = (aj.GlobalTensor() for _ in range(4))
    xGm.SetGlobalBuffer(x)
    yGm.SetGlobalBuffer(y)
    dst0Gm.SetGlobalBuffer(dst0)
    dst1Gm.SetGlobalBuffer(dst1)
    ubAllocator = aj.LocalMemAllocator()
    xLocal = ubAllocator.Alloc("uint16", singleCoreLength)
    yLocal = ubAllocator.Alloc("uint16", singleCoreLength)
    dst0Local = ubAllocator.Alloc("uint16", singleCoreLength)
    dst1Local = ubAllocator.Alloc("uint16", singleCoreLength)
    oneRepeatSize = aj.GetVecLen() // 2
    tmpLocal = ubAllocator.Alloc("uint16", 2 * oneRepeatSize)          # not in the original (docstring)
    aj.DataCopy(xLocal, xGm, singleCoreLength)
    aj.DataCopy(yLocal, yGm, singleCoreLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    repeatTimes = aj.DivCeil(singleCoreLength, oneRepeatSize)
    R.asc_vf_call(vf, dst0Local, dst1Local, xLocal, yLocal, tmpLocal, repeatTimes, oneRepeatSize)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(dst0Gm, dst0Local, singleCoreLength)
    aj.DataCopy(dst1Gm, dst1Local, singleCoreLength)
    aj.PipeBarrier(aj.PIPE_ALL)


def pack_kernel(src, dst, singleCoreLength, vf):
    """data_relayout scenario 2: KernelPack<uint32_t, uint16_t, singleCoreLength>::Process."""
    aj.InitSocState()
    srcGm, dstGm = aj.GlobalTensor(), aj.GlobalTensor()
    srcGm.SetGlobalBuffer(src)
    dstGm.SetGlobalBuffer(dst)
    ubAllocator = aj.LocalMemAllocator()
    srcLocal = ubAllocator.Alloc("uint32", singleCoreLength)
    dstLocal = ubAllocator.Alloc("uint16", singleCoreLength)
    aj.DataCopy(srcLocal, srcGm, singleCoreLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    oneRepeatSize = aj.GetVecLen() // 4
    repeatTimes = aj.DivCeil(singleCoreLength, oneRepeatSize)
    R.asc_vf_call(vf, dstLocal, srcLocal, repeatTimes, oneRepeatSize)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(dstGm, dstLocal, singleCoreLength)
    aj.PipeBarrier(aj.PIPE_ALL)


def _interleave_inputs(size, seed):
    rng = np.random.default_rng(seed)
    return {"x": rng.integers(0, 65536, size, dtype=np.uint16), "y": rng.integers(0, 65536, size, dtype=np.uint16)}


def run_interleave(device, inputs, compiled=True):
    x, y = inputs["x"], inputs["y"]
    dst0, dst1 = np.zeros_like(x), np.zeros_like(x)
    aj.launch(interleave_kernel, 1, device, x, y, dst0, dst1, x.size, INTERLEAVE_VF if compiled else interleave_vf)
    return {"dst0": dst0, "dst1": dst1}


def expected_interleave(device, inputs):
    """gen_data.py: per 128-lane step, dst0 interleaves the lower 64 lanes of x and y, dst1 the upper 64."""
    x, y = inputs["x"].reshape(-1, 2, 64), inputs["y"].reshape(-1, 2, 64)
    both = np.stack([x, y], axis=-1)                   # step, half, lane, (x, y)
    return {"dst0": both[:, 0].reshape(-1).copy(), "dst1": both[:, 1].reshape(-1).copy()}


def _pack_inputs(size, seed):
    return {"x": np.random.default_rng(seed).integers(0, 2**32, size, dtype=np.uint32)}


def run_pack(device, inputs, compiled=True):
    x = inputs["x"]
    dst = np.zeros(x.size, np.uint16)
    aj.launch(pack_kernel, 1, device, x, dst, x.size, PACK_VF if compiled else pack_vf)
    return {"dst": dst}


def expected_pack(device, inputs):
    return {"dst": (inputs["x"] & 0xFFFF).astype(np.uint16)}


_SOURCE = ("mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/"
           "data_relayout/data_relayout.asc")
KERNELS = [
    KernelSpec("reg_interleave", "devkit data_relayout, scenario 1: Interleave of two uint16 vectors (data-register "
               "Interleave ported as an INTLV dual store and two loads)", _interleave_inputs, run_interleave,
               expected_interleave, default_size=128, devices=("ascend950",),
               size_rule="a multiple of 128 elements, at most 16384",
               size_ok=lambda n: 0 < n <= 16384 and n % 128 == 0, source=_SOURCE),
    KernelSpec("reg_pack", "devkit data_relayout, scenario 2: Pack LOWEST uint32 -> uint16 (ported as a "
               "DIST_PACK_B32 store)", _pack_inputs, run_pack, expected_pack, default_size=128,
               devices=("ascend950",), size_rule="a multiple of 64 elements, at most 16384",
               size_ok=lambda n: 0 < n <= 16384 and n % 64 == 0, source=_SOURCE),
]
