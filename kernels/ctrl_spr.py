"""The devkit's ctrl_spr utility example: the 950's CTRL register bits set, read back and reset around a half Adds.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
09_utils/ctrl_spr/ctrl_spr.asc (`KernelCtrlSpr<half, DATA_SIZE, CTRL_SIZE>`, `kernel_ctrl_spr<256, 8>`, one block)
and scripts/gen_data.py (input: 0, 1, ..., 127 then 128 x +inf; goldens: ctrl [1, 1, 1, 1, 0, 0, 0, 0], sat
= input + 1 with the infs kept). The devkit pages: SIMD-API/基础API/特殊寄存器访问/SetCtrlSpr(ISASI).md,
GetCtrlSpr(ISASI).md, ResetCtrlSpr(ISASI).md; the 950 implementation impl/basic_api/dav_3510/
kernel_operator_common_impl.h (`ResetCtrlSprImpl`: the bits go back to those of defaultCtrl 0x1000000000000008,
so CTRL[48] becomes 0 and CTRL[60] 1).

The kernel: a LocalMemAllocator's src, dst (DATA_SIZE halves) and ctrl (CTRL_SIZE int64) tiles; DataCopy src in;
MTE2_V flag; SetCtrlSpr<60, 60>(1) (the global saturation switch) and SetCtrlSpr<48, 48>(1) (half results
INF/NaN, non-saturating); GetCtrlSpr<48, 48>() Duplicated into ctrl[0:4]; Adds(dst, src, 1.0); V_MTE3 flag;
DataCopy dst out; ResetCtrlSpr<48, 48>() and ResetCtrlSpr<60, 60>(); GetCtrlSpr<48, 48>() Duplicated into
ctrl[4:8]; V_MTE3 flag; DataCopy ctrl out; PipeBarrier<PIPE_ALL>.

Sizes: the example's 256 halves (the first half 0, 1, 2, ..., the second +inf); any multiple of 32 halves up to
32768 runs. Devices: ascend950 only (ResetCtrlSpr and CTRL[60] are 950-only, DK ResetCtrlSpr(ISASI).md).
Fidelity: BIT-EXACT (Adds half: fp32 add then RNE, INF/NaN mode while CTRL[48] = 1; SPEC-2 0.3; the CTRL reads
are integers).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CTRL_SIZE = 8


class KernelCtrlSpr:
    """KernelCtrlSpr<half, DATA_SIZE, CTRL_SIZE>."""

    def Init(self, srcAddr, dstCtrlAddr, dstSatAddr, dataSize):
        self.dataSize = dataSize
        self.srcGlobal, self.dstCtrlGlobal, self.dstSatGlobal = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.srcGlobal.SetGlobalBuffer(srcAddr, dataSize)
        self.dstCtrlGlobal.SetGlobalBuffer(dstCtrlAddr, CTRL_SIZE)
        self.dstSatGlobal.SetGlobalBuffer(dstSatAddr, dataSize)

    def Process(self):
        ubAllocator = aj.LocalMemAllocator()
        srcLocal = ubAllocator.Alloc("half", self.dataSize)
        dstLocal = ubAllocator.Alloc("half", self.dataSize)
        ctrlLocal = ubAllocator.Alloc("int64", CTRL_SIZE)
        aj.DataCopy(srcLocal, self.srcGlobal, self.dataSize)
        aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
        aj.SetCtrlSpr(60, 60, 1)
        aj.SetCtrlSpr(48, 48, 1)
        valueCtrlAfterSet = aj.GetCtrlSpr(48, 48)
        aj.Duplicate(ctrlLocal, np.int64(valueCtrlAfterSet), CTRL_SIZE // 2)
        aj.Adds(dstLocal, srcLocal, np.float16(1.0), self.dataSize)
        aj.SetFlag(0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(0, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(self.dstSatGlobal, dstLocal, self.dataSize)
        aj.ResetCtrlSpr(48, 48)
        aj.ResetCtrlSpr(60, 60)
        valueCtrlAfterReset = aj.GetCtrlSpr(48, 48)
        aj.Duplicate(ctrlLocal[CTRL_SIZE // 2], np.int64(valueCtrlAfterReset), CTRL_SIZE // 2)
        aj.SetFlag(0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(0, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(self.dstCtrlGlobal, ctrlLocal, CTRL_SIZE)
        aj.PipeBarrier(aj.PIPE_ALL)


def kernel_ctrl_spr(srcGm, dstCtrlGm, dstSatGm, dataSize):
    aj.InitSocState()
    op = KernelCtrlSpr()
    op.Init(srcGm, dstCtrlGm, dstSatGm, dataSize)
    op.Process()


def make_inputs(size, seed):
    """gen_data.py: 0, 1, ..., size/2 - 1 then +inf (seed unused: the example's input is fixed)."""
    src = np.full(size, np.inf, np.float16)
    src[:size // 2] = np.arange(size // 2, dtype=np.float16)
    return {"src": src}


def run(device, inputs):
    src = inputs["src"]
    ctrl = np.zeros(CTRL_SIZE, np.int64)
    sat = np.zeros_like(src)
    aj.launch(kernel_ctrl_spr, 1, device, src, ctrl, sat, src.size)
    return {"ctrl": ctrl, "sat": sat}


def expected(device, inputs):
    """gen_data.py's goldens: CTRL[48] reads 1 after the set and 0 after the reset; sat = src + 1 in half (the infs
    stay inf: INF/NaN mode)."""
    src = inputs["src"]
    ctrl = np.zeros(CTRL_SIZE, np.int64)
    ctrl[:CTRL_SIZE // 2] = 1
    with np.errstate(over="ignore"):
        sat = (src.astype(np.float32) + np.float32(1)).astype(np.float16)
    return {"ctrl": ctrl, "sat": sat}


KERNEL = KernelSpec(
    "ctrl_spr", "devkit ctrl_spr example: SetCtrlSpr / GetCtrlSpr / ResetCtrlSpr of CTRL[48] and CTRL[60] around a "
    "half Adds", make_inputs, run, expected, default_size=256,
    devices=("ascend950",), size_rule="a multiple of 32 halves, at most 32768",
    size_ok=lambda n: 0 < n <= 32768 and n % 32 == 0,
    source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/09_utils/ctrl_spr/ctrl_spr.asc")
