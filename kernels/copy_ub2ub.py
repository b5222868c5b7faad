"""The devkit's copy_ub2ub example: int32 data moved inside the UB by the mask-form Copy, in three scenarios:
1. [1, 512] -> [1, 512]: continuous mask 64, repeatTime 8, CopyRepeatParams {1, 1, 8, 8};
2. [18, 64] -> [18, 8] (the first 8 columns): mask 8, repeatTime 18, {dstStride 1, srcStride 1, dstRepeatSize 1,
   srcRepeatSize 8}: one row per repeat;
3. the same cut in counter mode: SetMaskCount, SetVectorMask<int32_t, COUNTER>(144), `Copy<int32_t, false>(dst,
   src, MASK_PLACEHOLDER, 1, {1, 8, 8, 8})` (one repeat of 144 elements = 18 DataBlocks, block b read 8 blocks
   apart: the first block of each row), then SetMaskNorm and ResetMask.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
mirror-cann/asc-devkit @ 82b89a15f26329511fc7fbc807d5132a1f9b4ba7, examples/01_simd_cpp_api/03_basic_api/
00_data_movement/copy_ub2ub/copy.asc (`KernelCopy<srcTotalLength, dstTotalLength>`, `copy_custom`, SCENARIO_NUM
1..3, one block) and scripts/gen_data.py (x random int32 in [-1000, 1000); golden x, or x[:, :8]). The devkit
page: SIMD-API/基础API/Memory矢量计算/数据搬运/Copy（UBToUB掩码式高维数据搬运）.md (scenario 3 is its 图1 case).

Each: two hand-placed LocalTensors (src VECIN at UB address 0, dst VECOUT right after it), DataCopy GM -> UB,
MTE2_V flag, the Copy, V_MTE3 flag, DataCopy UB -> GM, PipeBarrier<PIPE_ALL>.

Sizes: scenario 1 takes the element count (the example's 512; any multiple of 64 up to 255 x 64: mask 64, one
repeat a vector); scenarios 2 and 3 take the row count of the [rows, 64] source (the example's 18; 1..255, as the
uint8 repeatTime of scenario 2 allows). Devices: the example's README lists the 950, A3 and A2 (Copy's mask forms
also exist on the 310B; the emulator follows the page there, docs/decisions.md "Copy").
Fidelity: BIT-EXACT (Copy moves bytes).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

INT32_BYTES = 4
ROW, COLS_OUT = 64, 8
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")


def compute(scenarioNum, dstLocal, srcLocal, rows):
    """KernelCopy::Compute."""
    if scenarioNum == 1:
        mask = 64                                    # 64 int32 a repeat, repeats of 8 blocks back to back
        aj.Copy(dstLocal, srcLocal, mask, srcLocal.GetSize() // 64, aj.CopyRepeatParams(1, 1, 8, 8))
    elif scenarioNum == 2:
        mask = 8                                     # one row's first block a repeat; dst rows packed
        aj.Copy(dstLocal, srcLocal, mask, rows, aj.CopyRepeatParams(1, 1, 1, 8))
    else:
        aj.SetMaskCount()                            # one counter-mode repeat of rows * 8 elements
        aj.SetVectorMask(rows * COLS_OUT, dtype="int32", mode=aj.MaskMode.COUNTER)
        aj.Copy(dstLocal, srcLocal, aj.MASK_PLACEHOLDER, 1, aj.CopyRepeatParams(1, 8, 8, 8), is_set_mask=False)
        aj.SetMaskNorm()
        aj.ResetMask()


def copy_custom(x, z, srcTotalLength, dstTotalLength, scenarioNum, rows):
    aj.InitSocState()
    srcGlobal, dstGlobal = aj.GlobalTensor(), aj.GlobalTensor()
    srcGlobal.SetGlobalBuffer(x)
    dstGlobal.SetGlobalBuffer(z)
    srcAddr = 0
    dstAddr = srcAddr + srcTotalLength * INT32_BYTES
    srcLocal = aj.LocalTensor(aj.TPosition.VECIN, srcAddr, srcTotalLength, dtype="int32")
    dstLocal = aj.LocalTensor(aj.TPosition.VECOUT, dstAddr, dstTotalLength, dtype="int32")
    aj.DataCopy(srcLocal, srcGlobal, srcTotalLength)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.MTE2_V)
    compute(scenarioNum, dstLocal, srcLocal, rows)
    aj.SetFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.WaitFlag(aj.EVENT_ID0, event=aj.HardEvent.V_MTE3)
    aj.DataCopy(dstGlobal, dstLocal, dstTotalLength)
    aj.PipeBarrier(aj.PIPE_ALL)


def _make_inputs(scenario):
    def make_inputs(size, seed):
        """gen_data.py: random int32 in [-1000, 1000); scenarios 2, 3 take `size` rows of 64."""
        n = size if scenario == 1 else size * ROW
        return {"x": np.random.default_rng(seed).integers(-1000, 1000, n).astype(np.int32)}
    return make_inputs


def run_scenario(scenario, device, inputs):
    x = inputs["x"]
    rows = x.size // ROW
    dst_len = x.size if scenario == 1 else rows * COLS_OUT
    z = np.zeros(dst_len, np.int32)
    aj.launch(copy_custom, 1, device, x, z, x.size, dst_len, scenario, rows)
    return {"z": z}


def _expected(scenario):
    def expected(device, inputs):
        """gen_data.py's golden: x itself (scenario 1), else the first 8 columns of each 64-element row."""
        x = inputs["x"]
        return {"z": x.copy() if scenario == 1 else x.reshape(-1, ROW)[:, :COLS_OUT].flatten()}
    return expected


def _spec(name, scenario, description, default_size, size_rule, size_ok):
    return KernelSpec(name, description, _make_inputs(scenario),
                      lambda device, inputs: run_scenario(scenario, device, inputs), _expected(scenario),
                      default_size=default_size, devices=DEVICES, size_rule=size_rule, size_ok=size_ok,
                      source="mirror-cann/asc-devkit@82b89a15 examples/01_simd_cpp_api/03_basic_api/00_data_movement/"
                             "copy_ub2ub/copy.asc")


KERNELS = [
    _spec("copy_ub2ub", 1, "devkit copy_ub2ub example, scenario 1: int32 UB -> UB Copy, mask 64, {1, 1, 8, 8}", 512,
          "a multiple of 64 int32, at most 255 x 64", lambda n: 0 < n <= 255 * 64 and n % 64 == 0),
    _spec("copy_ub2ub_rows", 2, "devkit copy_ub2ub example, scenario 2: the first 8 columns of [rows, 64] int32, one "
          "row a repeat (mask 8, {1, 1, 1, 8})", 18, "rows of 64 int32, 1..255", lambda n: 0 < n <= 255),
    _spec("copy_ub2ub_counter", 3, "devkit copy_ub2ub example, scenario 3: the same cut as one counter-mode repeat of "
          "rows x 8 elements, srcStride 8 blocks", 18, "rows of 64 int32, 1..255", lambda n: 0 < n <= 255),
]
