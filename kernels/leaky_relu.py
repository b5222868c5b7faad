"""The devkit's custom-operator LeakyRelu kernel: y = max(x, 0) + negative_slope * min(x, 0) over float, 8 blocks,
each walking its slice in tiles of 64 floats with statically carved UB and hand-written flags.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/02_features/99_acl_based/
00_acl_compilation/custom_op/op_kernel/leaky_relu_custom/leaky_relu_custom_kernel.cpp (`KernelLeakyRelu<64>`,
`leaky_relu_custom`), with the tiling of op_host/leaky_relu_custom/leaky_relu_custom_host.cpp (8 blocks, 16 tiles a
block and buffer, the `negative_slope` attribute).

What it exercises: `LocalMemAllocator.Alloc<float, 64>()` carving four tiles; flags set once before the loop and
waited once after it (V_MTE2 and MTE3_V, the classic "pre-armed" pattern that lets the first iteration's waits
pass), MTE2_V and V_MTE3 pairs inside; Maxs and Mins against the scalar 0.0f, Muls by the slope, Add; GM indexed as
`xGm[i * tileLength]`; the closing PipeBarrier<PIPE_ALL>. The template's tile length is a compile-time 64 that the
original asserts equal to `blockLength / tileNum / BUFFER_NUM`; the port's host tiling keeps the tile at 64 and
derives tileNum from the size (the original's host fixes tileNum = 16, its default size here).

Devices: Maxs/Mins are not offered on the 910 and ISASI SetFlag/WaitFlag not on the 310B (SPEC-2 1.9), so the kernel
runs on the 950, A3, A2 and 310P.

Fidelity: BIT-EXACT (Maxs, Mins, Muls, Add are BIT-EXACT on every device, SPEC-2 0.3). The expectation composes the
four instructions from the package's reference model (ascend_jit.reference.elementwise: Max/Min with D41's signed
zeros and NaN, Mul and Add rounded once to float32), independent of the kernels.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

BUFFER_NUM = 2
TILE_LENGTH = 64          # the template argument STATIC_TILE_LENGTH
NUM_BLOCKS = 8
NEGATIVE_SLOPE = 0.1      # the operator attribute's value in the port's runs (the op's default is 0.0f)
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-inference-aicore")


class KernelLeakyRelu:
    def Init(self, x, y, totalLength, tileNum, negativeSlope):
        self.blockLength = totalLength // aj.GetBlockNum()
        self.tileNum = tileNum
        self.negativeSlope = np.float32(negativeSlope)   # static_cast<float>
        assert self.blockLength // tileNum // BUFFER_NUM == TILE_LENGTH, "runtime tileLength must match the template"
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[self.blockLength * aj.GetBlockIdx():], self.blockLength)
        self.yGm.SetGlobalBuffer(y[self.blockLength * aj.GetBlockIdx():], self.blockLength)

    def Process(self):
        loopCount = self.tileNum * BUFFER_NUM
        ubAllocator = aj.LocalMemAllocator()
        xLocal = ubAllocator.Alloc("float", TILE_LENGTH)
        yLocal = ubAllocator.Alloc("float", TILE_LENGTH)
        tmpTensor1 = ubAllocator.Alloc("float", TILE_LENGTH)
        tmpTensor2 = ubAllocator.Alloc("float", TILE_LENGTH)
        inputVal = np.float32(0.0)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)
        aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_V)
        for i in range(loopCount):
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)
            aj.DataCopy(xLocal, self.xGm[i * TILE_LENGTH], TILE_LENGTH)
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_V)
            aj.Maxs(tmpTensor1, xLocal, inputVal, TILE_LENGTH)
            aj.Mins(tmpTensor2, xLocal, inputVal, TILE_LENGTH)
            aj.Muls(tmpTensor2, tmpTensor2, self.negativeSlope, TILE_LENGTH)
            aj.Add(yLocal, tmpTensor1, tmpTensor2, TILE_LENGTH)
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
            aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
            aj.DataCopy(self.yGm[i * TILE_LENGTH], yLocal, TILE_LENGTH)
            aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_V)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE2)
        aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE3_V)


def leaky_relu_custom(x, y, totalLength, tileNum, negativeSlope):
    aj.InitSocState()
    op = KernelLeakyRelu()
    op.Init(x, y, totalLength, tileNum, negativeSlope)
    op.Process()
    aj.PipeBarrier(aj.PIPE_ALL)


TILE_MULTIPLE = NUM_BLOCKS * BUFFER_NUM * TILE_LENGTH   # 1024 floats: one tile per block and buffer


def make_inputs(size, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(size) * 10).astype(np.float32)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, -3.0e38]   # signed zeros, infinities, NaN, denormals
    return {"x": x}


def run(device, inputs):
    x = inputs["x"]
    y = np.zeros_like(x)
    aj.launch(leaky_relu_custom, NUM_BLOCKS, device, x, y, x.size, x.size // TILE_MULTIPLE, NEGATIVE_SLOPE)
    return {"y": y}


def expected(device, inputs):
    """The four instructions through the package's reference model (its Max/Min lanes carry D41's signed-zero and
    NaN rules; Mul and Add round once to float32)."""
    from ascend_jit.reference import elementwise as ref
    env = ref.Env(device)
    x = inputs["x"].astype(np.float64)
    positive = ref.max_("float", env, x, 0.0)
    negative = ref.mul("float", env, ref.min_("float", env, x, 0.0), float(np.float32(NEGATIVE_SLOPE)))
    return {"y": ref.add("float", env, positive, negative).astype(np.float32)}


KERNEL = KernelSpec("leaky_relu", "devkit custom-op LeakyRelu: 8 blocks, 64-float tiles from LocalMemAllocator, "
                    "pre-armed V_MTE2/MTE3_V flags, Maxs/Mins/Muls/Add", make_inputs, run, expected,
                    default_size=16 * TILE_MULTIPLE, devices=DEVICES,
                    size_rule=f"a multiple of {TILE_MULTIPLE} (8 blocks x 2 buffers x 64-float tiles)",
                    size_ok=lambda n: n > 0 and n % TILE_MULTIPLE == 0,
                    source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/02_features/99_acl_based/"
                           "00_acl_compilation/custom_op/op_kernel/leaky_relu_custom/leaky_relu_custom_kernel.cpp")
