"""SignBitsUnpack from the CANN math operators: every bit of a uint8 tensor becomes one element, +1 where the bit is 1
and -1 where it is 0, least significant bit first (out[8 * i + j] = bit j of x[i] ? +1 : -1), as half or float.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c4193324, experimental/math/sign_bits_unpack/op_kernel/sign_bits_unpack.cpp (the entry:
REGISTER_TILING_DEFAULT + GET_TILING_DATA_WITH_STRUCT(SignBitsUnpackTilingData), tiling key 1 the half kernel, any
other the float one), op_kernel/sign_bits_unpack.h (`KernelSignBitsUnpack<T>`: big cores one 64-byte block more than
small ones, per tile DataCopy of the bytes into a VECIN queue, Duplicate of +1 over the output tile, then
Select in VSEL_TENSOR_SCALAR_MODE with the input bytes as the selection mask and -1 as the scalar, count-form over
8 elements a byte, DataCopy out; the half kernel issues a first Select with +1 as the scalar, which changes nothing,
then the -1 one; the float kernel also initialises a half TBuf it only "allocates") and
op_host/sign_bits_unpack_tiling.cpp (64-byte blocks; UB shares of 1 + 16 bytes a byte for half, 1 + 32 + 16 for
float, twice the queues when the input is too long for one buffer a core; one core when a tile holds the input).

Select's selection mask is the uint8 input itself: mode 1 consumes 256 / sizeof(T) mask bits a repeat, continuing
across repeats (SPEC-2 9.5), so the tile's bytes are read as one LSB-first bit stream, 8 elements a byte.

Deviations: the core count is the launch's 8 (GetCoreNum in the original); GM is padded to whole 64-byte blocks
(the last core copies and unpacks its last block whole, as device allocations allow); the float kernel's
`tmpQueue0.AllocTensor<half>()` is kept (TBuf.AllocTensor), unused as in the original.

Devices: Select mode 1 (not the 910, SPEC-2 9.5) on half and float: the 950, A3, A2, 310B, 310P.

Fidelity: BIT-EXACT (Duplicate and Select are bit copies, SPEC-2 0.3). The expectation is numpy's unpackbits.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                   # deviation: the launch's cores (GetCoreNum in the original)
BLOCK_SIZE = 64                # the tiling's block, in input bytes
DOUBLE_BUFFER, SINGLE_BUFFER = 2, 1
DEVICES = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")
_NP = {"half": np.float16, "float": np.float32}

SignBitsUnpackTilingData = np.dtype([(name, np.uint64) for name in (
    "smallCoreDataNum", "bigCoreDataNum", "finalBigTileNum", "finalSmallTileNum", "tileDataNum", "smallTailDataNum",
    "bigTailDataNum", "tailBlockNum", "bufferOpen")])


def tiling(device, input_num, out_dtype):
    """SignBitsUnpackTilingFunc: (block dim, tiling key, the packed SignBitsUnpackTilingData)."""
    ub = aj.get_device(device).ub_bytes
    type_length_out = 2 if out_dtype == "half" else 4
    input_bytes = 1
    ub_data_number, buffer_open = 2, 1
    aligned = -(-input_num // BLOCK_SIZE) * BLOCK_SIZE
    # single buffer: 1 byte in and 16 bytes (half) or 32 + 16 bytes (float, with the half TBuf) out per input byte
    share = 17 if type_length_out == 2 else 49
    ub_tmp = ub - -(-ub // share) * (share - 1)
    if aligned < CORE_NUM * (ub_tmp // BLOCK_SIZE * BLOCK_SIZE):
        ub_data_number, buffer_open = 1, 0
    if buffer_open == 1:
        share = 34 if type_length_out == 2 else 82
        ub_tmp = ub - -(-ub // share) * (share - 2)
    tile_block_num = ub_tmp // BLOCK_SIZE // ub_data_number
    tile_data_num = tile_block_num * BLOCK_SIZE // input_bytes
    blocks = aligned // BLOCK_SIZE
    core_num = 1 if tile_data_num >= input_num else min(CORE_NUM, blocks)
    t = np.zeros(1, SignBitsUnpackTilingData)
    every = blocks // core_num
    t["tailBlockNum"] = blocks % core_num
    for kind, n in (("small", every), ("big", every + 1)):
        data = n * BLOCK_SIZE // input_bytes
        tiles = n // tile_block_num
        t[f"{kind}CoreDataNum"] = data
        t[f"final{kind.capitalize()}TileNum"] = tiles if n % tile_block_num == 0 else tiles + 1
        t[f"{kind}TailDataNum"] = (data - tile_data_num * tiles) or tile_data_num
    t["tileDataNum"] = tile_data_num
    t["bufferOpen"] = buffer_open
    return core_num, (1 if type_length_out == 2 else 0), t.view(np.uint8).copy()


class KernelSignBitsUnpack:
    def __init__(self, T):
        self.T = T

    def Init(self, x, out, smallCoreDataNum, bigCoreDataNum, finalBigTileNum, finalSmallTileNum, tileDataNum,
             smallTailDataNum, bigTailDataNum, tailBlockNum, bufferOpen):
        coreId = aj.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * coreId
        outCoreIndx = bigCoreDataNum * coreId * 8
        self.tileDataNum = tileDataNum
        if coreId < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, finalBigTileNum, bigTailDataNum
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, finalSmallTileNum, smallTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (coreId - tailBlockNum)
            outCoreIndx -= 8 * (bigCoreDataNum - smallCoreDataNum) * (coreId - tailBlockNum)
        BUFFER_NUM = SINGLE_BUFFER if bufferOpen == 0 else DOUBLE_BUFFER
        self.tileDataNumOut = self.tileDataNum * 8
        self.selfGm, self.outGm = aj.GlobalTensor(), aj.GlobalTensor()
        self.selfGm.SetGlobalBuffer(x[globalBufferIndex:], self.coreDataNum)
        self.outGm.SetGlobalBuffer(out[outCoreIndx:], self.coreDataNum * 8)
        self.pipe = aj.TPipe()
        self.inQueueSelf = aj.TQue(aj.TPosition.VECIN, DOUBLE_BUFFER)
        self.outQueueOut = aj.TQue(aj.TPosition.VECOUT, DOUBLE_BUFFER)
        self.tmpQueue0 = aj.TBuf(aj.TPosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueSelf, BUFFER_NUM, self.tileDataNum)
        self.pipe.InitBuffer(self.outQueueOut, BUFFER_NUM, self.tileDataNumOut * (2 if self.T == "half" else 4))
        if self.T == "float":
            self.pipe.InitBuffer(self.tmpQueue0, self.tileDataNumOut * 2)

    def CopyIn(self, progress):
        selfLocal = self.inQueueSelf.AllocTensor("uint8")
        aj.DataCopy(selfLocal, self.selfGm[progress * self.tileDataNum], self.processDataNumIn)
        self.inQueueSelf.EnQue(selfLocal)

    def CopyOut(self, progress):
        outLocal = self.outQueueOut.DeQue(self.T)
        aj.DataCopy(self.outGm[progress * self.tileDataNumOut], outLocal, self.processDataNumOut)
        self.outQueueOut.FreeTensor(outLocal)

    def Compute(self, progress):
        selfLocal = self.inQueueSelf.DeQue("uint8")
        outLocal = self.outQueueOut.AllocTensor(self.T)
        mode = aj.SELMODE.VSEL_TENSOR_SCALAR_MODE
        if self.T == "float":
            tmp0Local = self.tmpQueue0.AllocTensor("half")   # noqa: F841  (allocated and unused, as in the original)
            aj.Duplicate(outLocal, 1.0, self.processDataNumOut)
            aj.Select(outLocal, selfLocal, outLocal, -1.0, mode, self.processDataNumOut)
        else:
            aj.Duplicate(outLocal, 1.0, self.processDataNumOut)
            aj.Select(outLocal, selfLocal, outLocal, 1.0, mode, self.processDataNumOut)
            aj.Select(outLocal, selfLocal, outLocal, -1.0, mode, self.processDataNumOut)
        self.outQueueOut.EnQue(outLocal)
        self.inQueueSelf.FreeTensor(selfLocal)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNumIn = self.tileDataNum
        self.processDataNumOut = self.processDataNumIn * 8
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)
        self.processDataNumIn = self.tailDataNum
        self.processDataNumOut = self.processDataNumIn * 8
        self.CopyIn(loopCount - 1)
        self.Compute(loopCount - 1)
        self.CopyOut(loopCount - 1)


aj.REGISTER_TILING_DEFAULT(SignBitsUnpackTilingData)


def sign_bits_unpack(x, out, workspace, tiling_bytes, tiling_key):
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(SignBitsUnpackTilingData, tiling_bytes)
    op = KernelSignBitsUnpack("half" if tiling_key == 1 else "float")
    op.Init(x, out, int(tilingData.smallCoreDataNum), int(tilingData.bigCoreDataNum),
            int(tilingData.finalBigTileNum), int(tilingData.finalSmallTileNum), int(tilingData.tileDataNum),
            int(tilingData.smallTailDataNum), int(tilingData.bigTailDataNum), int(tilingData.tailBlockNum),
            int(tilingData.bufferOpen))
    op.Process()


def make_inputs(size, seed):
    x = np.random.default_rng(seed).integers(0, 256, size, dtype=np.uint8)
    x[:min(size, 4)] = np.array([0, 255, 1, 128], np.uint8)[:size]
    return {"x": x}


def _run(dtype):
    def run(device, inputs):
        x = inputs["x"]
        padded = -(-x.size // BLOCK_SIZE) * BLOCK_SIZE          # deviation: GM in whole 64-byte blocks
        gm_x = np.zeros(padded, np.uint8)
        gm_x[:x.size] = x
        gm_out = np.zeros(padded * 8, _NP[dtype])
        block_dim, key, tiling_bytes = tiling(device, x.size, dtype)
        aj.launch(sign_bits_unpack, block_dim, device, gm_x, gm_out, np.zeros(32, np.uint8), tiling_bytes, key)
        return {"out": gm_out[:x.size * 8]}
    return run


def _expected(dtype):
    def expected(device, inputs):
        bits = np.unpackbits(inputs["x"], bitorder="little")
        return {"out": np.where(bits == 1, 1.0, -1.0).astype(_NP[dtype])}
    return expected


_SOURCE = "hicann/ops-math@c4193324 experimental/math/sign_bits_unpack/op_kernel/sign_bits_unpack.h"
KERNELS = [
    KernelSpec("sign_bits_unpack", "SignBitsUnpack to float: uint8 bits as Select mode 1's mask over a Duplicate'd "
               "+1, scalar -1; 64-byte core blocks, big and small cores, one or two buffers",
               make_inputs, _run("float"), _expected("float"), default_size=30011, devices=DEVICES,
               size_rule="1 to 4Mi bytes", size_ok=lambda n: 0 < n <= 1 << 22, source=_SOURCE),
    KernelSpec("sign_bits_unpack_half", "SignBitsUnpack to half (two Selects, +1 then -1)", make_inputs,
               _run("half"), _expected("half"), default_size=1000, devices=DEVICES,
               size_rule="1 to 4Mi bytes", size_ok=lambda n: 0 < n <= 1 << 22, source=_SOURCE),
]
