"""The devkit's tensor_allocation example: z = x + y over 1024 floats, the UB tensors obtained four ways.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
04_memory_management/tensor_allocation/tensor_allocation.asc (`TensorAllocationKernel<float, 1024>`,
`tensor_allocate_custom`, one block, SCENARIO_NUM 1..4; the host fills x[i] = (i % 100) * 0.1f,
y[i] = ((i + 50) % 100) * 0.2f and checks |z - (x + y)| <= 1e-3):
1. TPipe + TQue<VECIN, 1> x2 / TQue<VECOUT, 1>: AllocTensor, DataCopy, EnQue / DeQue, Add, EnQue / DeQue, DataCopy;
2. LocalMemAllocator<Hardware::UB> (Alloc<T, N>() and Alloc<T>(N)), MTE2_V and V_MTE3 flags around Add;
3. LocalTensor<T>(TPosition, addr, N) at the fixed UB addresses 0, N * 4, 2N * 4, the same flags;
4. (the 950 only, `__NPU_ARCH__ == 3510`) the allocator's tiles and a Reg VF: per 64-float repeat LoadAlign x and
   y, Add(z, y, x) under CreateMask<float, ALL>, StoreAlign, CeilDivision(N, 64) repeats.
Each scenario ends with PipeBarrier<PIPE_ALL> (the kernel entry's). On other devices the original's scenario 4
compiles to an empty Process4 (z stays as the host left it); its port refuses those devices instead (the KernelSpec
lists the 950 only), since its output would be no computation.

Sizes: TOTAL_LENGTH, the example's 1024 floats; any multiple of 64 (whole vectors for scenario 4, whole DataBlocks
for the copies) whose three tiles fit the UB (at most 16384). Devices: the README's 950, A3 and A2; Add, the queues,
the allocator and fixed-address tensors run on every device, so scenario 1 runs everywhere the emulator does and
scenarios 2-3 wherever SetFlag<HardEvent> does (not the 310B, SPEC-2 D62).
Fidelity: BIT-EXACT (float Add, Memory or Reg; the host golden x + y in float is the expectation bit for bit).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
SOURCE = ("mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/04_memory_management/"
          "tensor_allocation/tensor_allocation.asc")


@R.simd_vf
def AddVF(xAddr, yAddr, zAddr, repeatTimes, oneRepeatSize):
    mask = R.CreateMask("float", R.MaskPattern.ALL)
    xReg, yReg, zReg = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    for i in range(repeatTimes):
        R.LoadAlign(xReg, xAddr, i * oneRepeatSize)
        R.LoadAlign(yReg, yAddr, i * oneRepeatSize)
        R.Add(zReg, yReg, xReg, mask)
        R.StoreAlign(zAddr, zReg, mask, i * oneRepeatSize)


class TensorAllocationKernel:
    T = "float"

    def Init(self, x, y, z, totalLength):
        self.TOTAL_LENGTH = totalLength
        self.xGlobal, self.yGlobal, self.zGlobal = (aj.GlobalTensor(self.T) for _ in range(3))
        self.xGlobal.SetGlobalBuffer(x, totalLength)
        self.yGlobal.SetGlobalBuffer(y, totalLength)
        self.zGlobal.SetGlobalBuffer(z, totalLength)

    def Process1(self):
        T, n = self.T, self.TOTAL_LENGTH
        pipe = aj.TPipe()
        inQueueX = aj.TQue(aj.TPosition.VECIN, 1)
        inQueueY = aj.TQue(aj.TPosition.VECIN, 1)
        outQueueZ = aj.TQue(aj.TPosition.VECOUT, 1)
        pipe.InitBuffer(inQueueX, 1, n * aj.sizeof(T))
        pipe.InitBuffer(inQueueY, 1, n * aj.sizeof(T))
        pipe.InitBuffer(outQueueZ, 1, n * aj.sizeof(T))
        xLocal = inQueueX.AllocTensor(T)
        yLocal = inQueueY.AllocTensor(T)
        aj.DataCopy(xLocal, self.xGlobal, n)
        aj.DataCopy(yLocal, self.yGlobal, n)
        inQueueX.EnQue(xLocal)
        inQueueY.EnQue(yLocal)
        xLocal = inQueueX.DeQue(T)
        yLocal = inQueueY.DeQue(T)
        zLocal = outQueueZ.AllocTensor(T)
        aj.Add(zLocal, xLocal, yLocal, n)
        outQueueZ.EnQue(T, zLocal)
        zLocal = outQueueZ.DeQue(T)
        aj.DataCopy(self.zGlobal, zLocal, n)

    def _add_with_flags(self, xLocal, yLocal, zLocal):
        """Processes 2 and 3 after their allocation: copies in, MTE2_V, Add, V_MTE3, copy out."""
        n = self.TOTAL_LENGTH
        aj.DataCopy(xLocal, self.xGlobal, n)
        aj.DataCopy(yLocal, self.yGlobal, n)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.Add(zLocal, xLocal, yLocal, n)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(self.zGlobal, zLocal, n)

    def Process2(self):
        T, n = self.T, self.TOTAL_LENGTH
        ubAllocator = aj.LocalMemAllocator()
        xLocal = ubAllocator.Alloc(T, n)    # Alloc<T, TOTAL_LENGTH>()
        yLocal = ubAllocator.Alloc(T, n)    # Alloc<T>(TOTAL_LENGTH)
        zLocal = ubAllocator.Alloc(T, n)
        self._add_with_flags(xLocal, yLocal, zLocal)

    def Process3(self):
        T, n = self.T, self.TOTAL_LENGTH
        xAddr = 0
        yAddr = n * aj.sizeof(T)
        zAddr = yAddr + n * aj.sizeof(T)
        xLocal = aj.LocalTensor(aj.TPosition.VECIN, xAddr, n, T)
        yLocal = aj.LocalTensor(aj.TPosition.VECIN, yAddr, n, T)
        zLocal = aj.LocalTensor(aj.TPosition.VECOUT, zAddr, n, T)
        self._add_with_flags(xLocal, yLocal, zLocal)

    def Process4(self):
        if aj.get_device(aj.current_core().device).arch != 3510:   # `#if __NPU_ARCH__ == 3510`
            return
        T, n = self.T, self.TOTAL_LENGTH
        ubAllocator = aj.LocalMemAllocator()
        xLocal = ubAllocator.Alloc(T, n)
        yLocal = ubAllocator.Alloc(T, n)
        zLocal = ubAllocator.Alloc(T, n)
        aj.DataCopy(xLocal, self.xGlobal, n)
        aj.DataCopy(yLocal, self.yGlobal, n)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
        oneRepeatSize = aj.GetVecLen() // aj.sizeof(T)
        repeatTimes = aj.CeilDivision(n, oneRepeatSize)
        R.asc_vf_call(AddVF, xLocal, yLocal, zLocal, repeatTimes, oneRepeatSize)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
        aj.DataCopy(self.zGlobal, zLocal, n)


def tensor_allocate_custom(x, y, z, totalLength, scenarioNum):
    aj.InitSocState()
    op = TensorAllocationKernel()
    op.Init(x, y, z, totalLength)
    (op.Process1, op.Process2, op.Process3, op.Process4)[scenarioNum - 1]()
    aj.PipeBarrier(aj.PIPE_ALL)


def make_inputs(size, seed):
    """The host's data: x[i] = (i % 100) * 0.1f, y[i] = ((i + 50) % 100) * 0.2f (seed 0); a later seed draws
    normals with the specials (+-0, +-inf, NaN, a subnormal) in the first lanes."""
    if seed == 0:
        i = np.arange(size)
        return {"x": (i % 100).astype(np.float32) * np.float32(0.1),
                "y": ((i + 50) % 100).astype(np.float32) * np.float32(0.2)}
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal(size).astype(np.float32), rng.standard_normal(size).astype(np.float32)
    x[:6] = [0.0, -0.0, np.inf, np.inf, np.nan, 1e-40]
    y[:6] = [-0.0, -0.0, -np.inf, 1.0, 1.0, 1e-40]
    return {"x": x, "y": y}


def _run(scenario):
    def run(device, inputs):
        z = np.zeros_like(inputs["x"])
        aj.launch(tensor_allocate_custom, 1, device, inputs["x"], inputs["y"], z, z.size, scenario)
        return {"z": z}
    return run


def expected(device, inputs):
    with np.errstate(over="ignore", invalid="ignore"):
        z = inputs["x"] + inputs["y"]
    z[np.isnan(z)] = np.float32(np.nan)      # SPEC-2 D35: the canonical NaN
    return {"z": z}


_ALL = tuple(n for n, d in aj.DEVICES.items() if d.supported)
_FLAGS = tuple(n for n in _ALL if n != "atlas-200i-500-a2")   # SetFlag<HardEvent>: not the 310B (SPEC-2 D62)
_HOW = {1: "TPipe and TQues", 2: "LocalMemAllocator, flags", 3: "LocalTensor at fixed UB addresses, flags",
        4: "LocalMemAllocator and a Reg Add VF (950)"}

KERNELS = [KernelSpec(f"tensor_allocation_{s}", f"devkit tensor_allocation, scenario {s}: x + y, tensors by {_HOW[s]}",
                      make_inputs, _run(s), expected, default_size=1024,
                      devices=("ascend950",) if s == 4 else _ALL if s == 1 else _FLAGS,
                      size_rule="a multiple of 64 floats, at most 16384",
                      size_ok=lambda n: 0 < n <= 16384 and n % 64 == 0, source=SOURCE) for s in (1, 2, 3, 4)]
