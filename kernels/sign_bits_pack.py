"""SignBitsPack from the CANN math operators (1-bit Adam's packing): y[i] = the byte whose bit j (least significant
first) is x[8 * i + j] >= 0, for float or half x.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c4193324, experimental/math/sign_bits_pack/op_kernel/sign_bits_pack.cpp (the entry:
REGISTER_TILING_DEFAULT + GET_TILING_DATA_WITH_STRUCT(SignBitsPackTilingData), a TPipe passed to Init by pointer),
op_kernel/sign_bits_pack.h (`KernelSignBitsPack<T>`: big cores one 512-byte block more than small ones; per tile a
DataCopy in, CompareScalar GE 0 count-form into a uint8 VECOUT tile, DataCopyPad out of count / 8 bytes; the last
core's last tile comes in by DataCopyPad of its real elements with isPad true and -1 as the right padding up to a
32-byte block, and is compared over its length rounded up to 256 bytes) and op_host/sign_bits_pack_tiling.cpp
(512-byte GM blocks, at most 18Ki (float) or 36Ki (half) elements a tile, two buffers unless a core holds less than
9Ki elements, the core count doubled when few cores would hold many elements).

Kept from the original: its Process ends every core with CopyOut, never the CopyOutLast it defines (which would
copy `lastCopyLength / 8` bytes, rounded down, and so drop the last partial byte of an element count that is not a
multiple of 8), so the last core copies out `lastCalcLength / 8` bytes: the output's N // 8 + 1 bytes (the aclnn
page's size) and then up to 7 (float) or 15 (half) bytes more, the bits of the -1 padding and of the lanes up to the
256-byte rounded count. Inside the padded GM below; on the device, past the output tensor's elements (inside the
allocation's 512-byte rounding, as far as the launch is concerned). tests/test_sign_bits.py shows those bytes
written.

Deviations: the core count is the launch's 8 (GetCoreNum in the original); GM is padded to whole 512-byte blocks, as
the tiling splits it; the last tile's CompareScalar lanes past the DataCopyPad's 32-byte padded length (up to the
256-byte rounded count) are set to -1 by a Duplicate before the copy: the original compares UB nothing wrote there
(the sanitizer's init report without it, tested), and its bits reach GM past the output's bytes (above).

Devices: DataCopyPad (not the 310P, 910) and CompareScalar on half and float: the 950, A3, A2, 310B.

Fidelity: BIT-EXACT (CompareScalar, Duplicate and the copies, SPEC-2 0.3). The expectation is numpy's packbits of
x >= 0 (NaN compares false; -0.0 >= 0).
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                 # deviation: the launch's cores (GetCoreNum in the original)
BUFFER_NUM = 2
UB_ALIGN, REPEAT_ALIGN, GM_ALIGN = 32, 256, 512
MAX_TILEDATA = 18 * 1024
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
_NP = {"half": np.float16, "float": np.float32}
_SIZE = {"half": 2, "float": 4}

SignBitsPackTilingData = np.dtype([(name, np.uint64) for name in (
    "smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum", "tileDataNum", "smallTailDataNum",
    "bigTailDataNum", "tailBlockNum")] + [(name, np.uint32) for name in (
        "usedDb", "lastCopyLength", "rightPaddingElemNums", "lastCalcLength")])


def tiling(input_num, dtype, real_core_num=CORE_NUM):
    """CalcAndSetTilingData: (block dim, the packed SignBitsPackTilingData)."""
    type_length = _SIZE[dtype]
    per_gm_block = GM_ALIGN // type_length
    aligned = -(-input_num // per_gm_block) * per_gm_block
    tile_data_num = MAX_TILEDATA * (2 if type_length == 2 else 1)
    need_core_num = -(-aligned // (tile_data_num * BUFFER_NUM))
    core_num = min(real_core_num, need_core_num)
    need_core_data = -(-aligned // core_num)
    if core_num < real_core_num // 4 and need_core_data > MAX_TILEDATA // 4:
        core_num *= 2
        need_core_data = -(-aligned // core_num)
    buffer_num, used_db = BUFFER_NUM, 1
    if need_core_data < MAX_TILEDATA // 2:
        buffer_num, used_db = 1, 0
    need_tile = -(-need_core_data // buffer_num)
    need_tile = -(-need_tile // per_gm_block) * per_gm_block
    tile_data_num = min(tile_data_num, need_tile)
    t = np.zeros(1, SignBitsPackTilingData)
    every = aligned // per_gm_block // core_num
    small = every * per_gm_block
    big = small + per_gm_block
    for kind, n in (("small", small), ("big", big)):
        tiles = -(-n // tile_data_num)
        t[f"{kind}CoreDataNum"] = n
        t[f"final{kind.capitalize()}TileNum"] = tiles
        t[f"{kind}TailDataNum"] = n - (tiles - 1) * tile_data_num
    real_last = int(t["smallTailDataNum"][0]) - (aligned - input_num)
    per_repeat = REPEAT_ALIGN // type_length
    per_ub_block = UB_ALIGN // type_length
    t["tileDataNum"] = tile_data_num
    t["tailBlockNum"] = aligned // per_gm_block % core_num
    t["usedDb"] = used_db
    t["lastCopyLength"] = real_last
    t["rightPaddingElemNums"] = -(-real_last // per_ub_block) * per_ub_block - real_last
    t["lastCalcLength"] = -(-real_last // per_repeat) * per_repeat
    return core_num, t.view(np.uint8).copy()


class KernelSignBitsPack:
    def __init__(self, T):
        self.T = T

    def Init(self, x, y, tilingData, pipeIn):
        coreId = aj.GetBlockIdx()
        globalBufferIndex = int(tilingData.bigCoreDataNum) * coreId
        self.tileDataNum = int(tilingData.tileDataNum)
        if coreId < tilingData.tailBlockNum:
            self.coreDataNum = int(tilingData.bigCoreDataNum)
            self.tileNum = int(tilingData.finalBigTileNum)
            self.tailDataNum = int(tilingData.bigTailDataNum)
        else:
            self.coreDataNum = int(tilingData.smallCoreDataNum)
            self.tileNum = int(tilingData.finalSmallTileNum)
            self.tailDataNum = int(tilingData.smallTailDataNum)
            globalBufferIndex -= (int(tilingData.bigCoreDataNum) - int(tilingData.smallCoreDataNum)) * \
                (coreId - int(tilingData.tailBlockNum))
        self.rightPaddingElemNums = int(tilingData.rightPaddingElemNums)
        self.lastCopyLength = int(tilingData.lastCopyLength)
        self.lastCalcLength = int(tilingData.lastCalcLength)
        self.bufferNum = 2 if int(tilingData.usedDb) == 1 else 1
        self.xGm, self.yGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.xGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.yGm.SetGlobalBuffer(y[globalBufferIndex // 8:], self.coreDataNum // 8)
        self.inQueueIN = aj.TQue(aj.QuePosition.VECIN, 1)
        self.outQueueOUT = aj.TQue(aj.QuePosition.VECOUT, 1)
        pipeIn.InitBuffer(self.inQueueIN, self.bufferNum, self.tileDataNum * _SIZE[self.T])
        pipeIn.InitBuffer(self.outQueueOUT, self.bufferNum, self.tileDataNum // 4)

    def CopyIn(self, progress):
        xLocal = self.inQueueIN.AllocTensor(self.T)
        aj.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueIN.EnQue(xLocal)

    def CopyInLast(self, progress):
        xLocal = self.inQueueIN.AllocTensor(self.T)
        copied = self.lastCopyLength + self.rightPaddingElemNums
        if self.lastCalcLength > copied:
            # not in the original: the CompareScalar's lanes past the padded copy (docstring); past the copy's
            # bytes, so no ordering against it, and the compare follows on the vector pipe
            aj.Duplicate(xLocal[copied], -1.0, self.lastCalcLength - copied)
        copyParams = aj.DataCopyExtParams(1, self.lastCopyLength * _SIZE[self.T], 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(True, 0, self.rightPaddingElemNums, _NP[self.T](-1))
        aj.DataCopyPad(xLocal, self.xGm[progress * self.tileDataNum], copyParams, padParams)
        self.inQueueIN.EnQue(xLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueOUT.DeQue("uint8")
        copyParams = aj.DataCopyExtParams(1, self.processDataNum // 8, 0, 0, 0)
        aj.DataCopyPad(self.yGm[progress * self.tileDataNum // 8], yLocal, copyParams)
        self.outQueueOUT.FreeTensor(yLocal)

    def CopyOutLast(self, progress):
        """Defined and never called, as in the original."""
        yLocal = self.outQueueOUT.DeQue("uint8")
        copyParams = aj.DataCopyExtParams(1, self.lastCopyLength // 8, 0, 0, 0)   # rounded down (docstring)
        aj.DataCopyPad(self.yGm[progress * self.tileDataNum // 8], yLocal, copyParams)
        self.outQueueOUT.FreeTensor(yLocal)

    def Compute(self, progress):
        xLocal = self.inQueueIN.DeQue(self.T)
        yLocal = self.outQueueOUT.AllocTensor("uint8")
        aj.CompareScalar(yLocal, xLocal, _NP[self.T](0), aj.CMPMODE.GE, self.processDataNum)
        self.outQueueOUT.EnQue(yLocal)
        self.inQueueIN.FreeTensor(xLocal)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.tileDataNum
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)
        if aj.GetBlockIdx() == aj.GetBlockNum() - 1:   # the last core
            self.processDataNum = self.lastCalcLength
            self.CopyInLast(loopCount - 1)
        else:
            self.processDataNum = self.tailDataNum
            self.CopyIn(loopCount - 1)
        self.Compute(loopCount - 1)
        self.CopyOut(loopCount - 1)   # CopyOut, not CopyOutLast, for the last core too, as in the original (docstring)


aj.REGISTER_TILING_DEFAULT(SignBitsPackTilingData)


def sign_bits_pack(x, y, workspace, tiling_bytes, DTYPE_X):
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(SignBitsPackTilingData, tiling_bytes)
    pipe = aj.TPipe()
    op = KernelSignBitsPack(DTYPE_X)
    op.Init(x, y, tilingData, pipe)
    op.Process()


def _make_inputs(dtype):
    def make_inputs(size, seed):
        x = np.random.default_rng(seed).standard_normal(size).astype(_NP[dtype])
        x[:min(size, 4)] = np.array([0.0, -0.0, -1e-30, np.inf], _NP[dtype])[:size]
        return {"x": x}
    return make_inputs


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        per_gm_block = GM_ALIGN // _SIZE[dtype]
        gm_x = np.zeros(-(-x.size // per_gm_block) * per_gm_block, _NP[dtype])   # deviation: whole 512-byte blocks
        gm_x[:x.size] = x
        gm_y = np.zeros(gm_x.size // 8, np.uint8)
        block_dim, tiling_bytes = tiling(x.size, dtype)
        aj.launch(sign_bits_pack, block_dim, device, gm_x, gm_y, np.zeros(32, np.uint8), tiling_bytes, dtype)
        return {"y": gm_y[:-(-x.size // 8)]}
    return run


def expected(device, inputs):
    with np.errstate(invalid="ignore"):
        return {"y": np.packbits(inputs["x"] >= 0, bitorder="little")}


_SOURCE = "hicann/ops-math@c4193324 experimental/math/sign_bits_pack/op_kernel/sign_bits_pack.h"
_RULE = "1 to 16Mi elements"
KERNELS = [
    KernelSpec("sign_bits_pack", "SignBitsPack of float: CompareScalar GE 0 count-form into uint8 bits, 512-byte "
               "core blocks, the last core's last tile by DataCopyPad with a -1 right padding",
               _make_inputs("float"), _run("float"), expected, default_size=100000, devices=DEVICES,
               size_rule=_RULE, size_ok=lambda n: 0 < n <= 1 << 24, source=_SOURCE),
    KernelSpec("sign_bits_pack_half", "SignBitsPack of half", _make_inputs("half"), _run("half"), expected,
               default_size=2000, devices=DEVICES, size_rule=_RULE,
               size_ok=lambda n: 0 < n <= 1 << 24, source=_SOURCE),
]
