"""Pow (tensor ** scalar) from the CANN math operators, the Ascend 950 (arch35) integer kernel: y = x ** e with e a
one-element tensor read by the scalar unit, over int32, int16, uint8 and int8, wrapping two's-complement as the
hardware's non-saturating multiplies do.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-math @ c41933244c31e44fd496e3bb3212164f8c48c214, math/pow:
- op_kernel/pow_apt.cpp (the entry: KERNEL_TYPE_AIV_ONLY, a TPipe, tiling keys 4001 / 5001 / 6001 / 7001:
  `PowTensorScalarInteger<T, T>` for uint8 / int8 / int16 / int32 with GET_TILING_DATA_WITH_STRUCT);
- op_kernel/arch35/pow_tensor_scalar_integer.h (`PowTensorScalarInteger<T1, T2>`): a depth-2 VECIN queue of
  ubSize bytes for the base, depth-1 queues for the exponent (256 B) and the result, three TBufs; the exponent by
  `expGm(0)` on the scalar unit then an S_V flag pair (FetchEventID); a core's tiles [blockIdx * blockFactor,
  min(.., ubOuter)), the last of all ubTail long; by the exponent: 0: one Duplicate of 1 copied out tile after tile;
  1: a Memory-API ShiftLeft by 0 over uint32 / uint16 views (8-bit: (n + 1) / 2 uint16); 2 and 3: a __VEC_SCOPE__
  behind SetCtrlSpr<60, 60>(0) (non-saturating) and back to 1 after: int32 / int16: LoadAlign DIST_NORM, Mul
  (ZEROING) once or twice, StoreAlign DIST_NORM_B32 under UpdateMask<T>; uint8: 128 uint16 lanes a step,
  LoadAlign DIST_UNPACK_B8, Cast u8 -> u16 (RegLayout ZERO), Mul, And with a Duplicated 255, Cast u16 -> u8
  (NO_SAT), StoreAlign DIST_PACK_B16; int8: the same through int16 and Cast int16 -> half (CAST_RINT) -> int8
  (RegLayout ZERO, NO_SAT, CAST_RINT); every copy a one-block DataCopyPad of the tile's bytes;
- op_host/arch35/pow_tensor_scalar_tiling_arch35.cpp and pow_tiling_arch35.cpp (DoOpTiling: ubSize = (UB - 8 KiB -
  512 - the Power API's buffer) / (5 + its nodes) rounded down to 512 bytes; GetUbFactor: the tile is the core's
  share when that is smaller, at least 4096 / sizeof(T) elements, rounded down to 512 bytes; blockFactor tiles a
  core).

Deviations:
(1) the core count is the launch's 8 (the compile info's coreNum); GetPowerTmpBufferFactorSize (the advanced
    library's host helper, not in the repository) is taken as 0 nodes and 0 bytes: only the UB split depends on it.
(2) an exponent other than 0, 1, 2 or 3 calls the advanced API `Power<T, false, {PowerAlgo::INTRINSIC}>`, which
    the emulator does not offer (docs/decisions.md "Surveyed and not offered": the advanced math library); the port
    refuses it on the host (ValueError) instead of running a different algorithm.
(3) the int16 VF stores its int16 register with DIST_NORM_B32, the shared template's 32-bit distribution; the
    emulator refuses a B-suffix distribution whose width is not the register's (docs/decisions.md "A B8/B16/B32/B64
    distribution requires the register's element size to equal the suffix width"): the int16 instance stores with
    DIST_NORM (every active lane, the same bytes), as kernels/fused_mul_add_n.py does.
(4) the 8-bit VFs' `And(v, v, dup255)` on data registers is not offered (SPEC-2 14: Reg And/Or/Xor/Not on
    RegTensors): the port computes v - ((v >> 8) << 8) with ShiftRights, ShiftLefts and Sub, the same value, v AND
    255, in every lane (uint16: logical shifts; int16: floor(v / 256) * 256 is exact, so v minus it is in [0, 255]).
(5) at a short tile the VF's last whole-vector load reads past the DataCopyPad's 32-byte blocks (inside the queue
    buffer; its lanes are masked): the port zeroes those bytes by a Duplicate before the copy-in, as
    kernels/fused_mul_add_n.py does, which before session 54 kept the sanitizer from reporting an uninitialised
    read; kept from before, no longer needed for the init check: with the lane tracking the original
    (zero_tail=False) runs clean (those lanes never reach a store).

Devices: the arch35 build is the 950's (op_host/config/ascend950); the Reg API is the 950's only.

Fidelity: BIT-EXACT (Memory Duplicate and ShiftLeft, Reg loads / stores, Mul, shifts, Sub and Cast are BIT-EXACT,
SPEC-2 0.3; integer Mul wraps while CTRL[53] is 0, SPEC-2 D35 / D67; the NO_SAT casts while CTRL[60] is 0 keep the
low bits, D46): the expectation is x ** e modulo 2 ** bits, read as the type.
"""
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

R = aj.Reg
ZEROING = R.MaskMergeMode.ZEROING
CORE_NUM = 8                        # deviation (1)
BUFFER_ALIGN = 512
POWS_MIN_TILING_BITS_SIZE_PER_CORE = 4096
BLOCK_SIZE = 32
VECTOR_REG_WIDTH = 256
EXP_UB_SIZE = 256
DB_BUFFER = 2
EXP_SQUARED, EXP_CUBE, B8_TO_B16, SAT_POS = 2, 3, 2, 60
TILING_KEY = {"uint8": 4001, "int8": 5001, "int16": 6001, "int32": 7001}
TYPE_SIZE = {"uint8": 1, "int8": 1, "int16": 2, "int32": 4}
_NP = {"uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32}

PowTensorScalarTilingData = np.dtype([("blockNum", np.int64), ("blockFactor", np.int64), ("blockTail", np.int64),
                                      ("ubOuter", np.int64), ("ubFactor", np.int64), ("ubTail", np.int64),
                                      ("totalSize", np.int64), ("ubSize", np.int64)])

castTrait0 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, ZEROING, aj.RoundMode.UNKNOWN)
castTrait1 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, ZEROING, aj.RoundMode.UNKNOWN)
castTrait2 = R.CastTrait(R.RegLayout.UNKNOWN, R.SatMode.UNKNOWN, ZEROING, aj.RoundMode.CAST_RINT)
castTrait3 = R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, ZEROING, aj.RoundMode.CAST_RINT)


def tiling(device, total, dtype, exponent=2):
    """PowTensorScalarTiling::DoOpTiling: (tiling key, block dim, the packed PowTensorScalarTilingData)."""
    if int(exponent) not in (0, 1, EXP_SQUARED, EXP_CUBE):
        raise ValueError(f"exponent {exponent}: the original calls the advanced Power API, not offered "
                         "(deviation 2); legal 0, 1, 2, 3")
    size = TYPE_SIZE[dtype]                       # computeDtypeSize == baseDtypeSize for the integer types
    powsApiNode, powsApiTmpBuffer = 0, 0          # deviation (1)
    graphNode = 5 + powsApiNode
    powerApiTmpBuffer = 8 * 1024 + 256 + 256 + powsApiTmpBuffer
    ubSize = (aj.get_device(device).ub_bytes - powerApiTmpBuffer) // graphNode
    if ubSize >= BUFFER_ALIGN:
        ubSize = ubSize // BUFFER_ALIGN * BUFFER_ALIGN
    elif ubSize >= BLOCK_SIZE:
        ubSize = ubSize // BLOCK_SIZE * BLOCK_SIZE
    oriUbFactor = ubSize // size
    blockFactor = -(-total // CORE_NUM)           # GetUbFactor
    if blockFactor >= oriUbFactor:
        ubFactor = oriUbFactor
    else:
        ubFactor = min(max(blockFactor, POWS_MIN_TILING_BITS_SIZE_PER_CORE // size), oriUbFactor)
        if ubFactor >= BUFFER_ALIGN // size:
            ubFactor = ubFactor // (BUFFER_ALIGN // size) * (BUFFER_ALIGN // size)
    ubTail = total % ubFactor or ubFactor
    ubOuter = -(-total // ubFactor)
    blockFactor = -(-ubOuter // CORE_NUM)
    blockTail = ubOuter % blockFactor or blockFactor
    blockNum = -(-ubOuter // blockFactor)
    t = np.zeros(1, PowTensorScalarTilingData)
    for name, value in (("blockNum", blockNum), ("blockFactor", blockFactor), ("blockTail", blockTail),
                        ("ubOuter", ubOuter), ("ubFactor", ubFactor), ("ubTail", ubTail), ("totalSize", total),
                        ("ubSize", ubSize)):
        t[name] = value
    return TILING_KEY[dtype], blockNum, t.view(np.uint8).copy()


def pow_wide_vf(bufferOut0Addr, bufferIn0Addr, dataLength, T1, cube):
    """ComputeSquare / ComputeCube for int32 and int16: Mul in the type (wrapping)."""
    vreg0, vreg1, vreg2 = R.RegTensor(T1), R.RegTensor(T1), R.RegTensor(T1)
    size = dataLength
    step = VECTOR_REG_WIDTH // (4 if T1 == "int32" else 2)
    vfLoopNum = (dataLength + step - 1) // step
    for i in range(vfLoopNum):
        preg0, size = R.UpdateMask(T1, size)
        R.LoadAlign(vreg0, bufferIn0Addr, i * step, dist=R.LoadDist.DIST_NORM)
        R.Mul(vreg1, vreg0, vreg0, preg0, ZEROING)
        if cube:
            R.Mul(vreg2, vreg1, vreg0, preg0, ZEROING)
            out = vreg2
        else:
            out = vreg1
        if T1 == "int32":
            R.StoreAlign(bufferOut0Addr, out, preg0, i * step, dist=R.StoreDist.DIST_NORM_B32)
        else:                                                           # deviation (3)
            R.StoreAlign(bufferOut0Addr, out, preg0, i * step, dist=R.StoreDist.DIST_NORM)


def pow_u8_vf(bufferOut0Addr, bufferIn0Addr, dataLength, cube):
    """ComputeSquare / ComputeCube for uint8: 128 uint16 lanes a step."""
    vreg0, vreg5 = R.RegTensor("uint8"), R.RegTensor("uint8")
    vreg1, vreg2, vreg3, tmp = (R.RegTensor("uint16"), R.RegTensor("uint16"), R.RegTensor("uint16"),
                                R.RegTensor("uint16"))
    size = dataLength
    step = VECTOR_REG_WIDTH // 2
    vfLoopNum = (dataLength + step - 1) // step
    for i in range(vfLoopNum):
        preg0, size = R.UpdateMask("uint16", size)
        R.LoadAlign(vreg0, bufferIn0Addr, i * step, dist=R.LoadDist.DIST_UNPACK_B8)
        R.Cast(vreg1, vreg0, preg0, castTrait0)
        R.Mul(vreg2, vreg1, vreg1, preg0, ZEROING)
        if cube:
            R.Mul(vreg3, vreg2, vreg1, preg0, ZEROING)
        else:
            vreg3 = vreg2
        R.ShiftRights(tmp, vreg3, 8, preg0, ZEROING)                    # deviation (4): v AND 255 as
        R.ShiftLefts(tmp, tmp, 8, preg0, ZEROING)                       # v - ((v >> 8) << 8)
        R.Sub(vreg3, vreg3, tmp, preg0, ZEROING)
        R.Cast(vreg5, vreg3, preg0, castTrait1)
        R.StoreAlign(bufferOut0Addr, vreg5, preg0, i * step, dist=R.StoreDist.DIST_PACK_B16)


def pow_s8_vf(bufferOut0Addr, bufferIn0Addr, dataLength, cube):
    """ComputeSquare / ComputeCube for int8: through int16, then half, then int8."""
    vreg0, vreg6 = R.RegTensor("int8"), R.RegTensor("int8")
    vreg1, vreg2, vreg3, tmp = (R.RegTensor("int16"), R.RegTensor("int16"), R.RegTensor("int16"),
                                R.RegTensor("int16"))
    vreg5 = R.RegTensor("half")
    size = dataLength
    step = VECTOR_REG_WIDTH // 2
    vfLoopNum = (dataLength + step - 1) // step
    for i in range(vfLoopNum):
        preg0, size = R.UpdateMask("int16", size)
        R.LoadAlign(vreg0, bufferIn0Addr, i * step, dist=R.LoadDist.DIST_UNPACK_B8)
        R.Cast(vreg1, vreg0, preg0, castTrait0)
        R.Mul(vreg2, vreg1, vreg1, preg0, ZEROING)
        if cube:
            R.Mul(vreg3, vreg2, vreg1, preg0, ZEROING)
        else:
            vreg3 = vreg2
        R.ShiftRights(tmp, vreg3, 8, preg0, ZEROING)                    # deviation (4): v AND 255 as
        R.ShiftLefts(tmp, tmp, 8, preg0, ZEROING)                       # v - ((v >> 8) << 8)
        R.Sub(vreg3, vreg3, tmp, preg0, ZEROING)
        R.Cast(vreg5, vreg3, preg0, castTrait2)
        R.Cast(vreg6, vreg5, preg0, castTrait3)
        R.StoreAlign(bufferOut0Addr, vreg6, preg0, i * step, dist=R.StoreDist.DIST_PACK_B16)


POW_WIDE_VF = R.simd_vf(pow_wide_vf)
POW_U8_VF = R.simd_vf(pow_u8_vf)
POW_S8_VF = R.simd_vf(pow_s8_vf)


class PowTensorScalarInteger:
    """`PowTensorScalarInteger<T1, T2>` (T2 == T1 in every instance the entry makes)."""

    def __init__(self, T1, zero_tail=True):
        self.T1, self.zero_tail = T1, zero_tail

    def Init(self, base, exponent, pow_, tilingData, pipeIn):
        self.cBlockIdx = aj.GetBlockIdx()
        self.tilingData = tilingData
        self.pipe = pipeIn
        self.baseGm, self.expGm, self.powGm = aj.GlobalTensor(), aj.GlobalTensor(), aj.GlobalTensor()
        self.baseGm.SetGlobalBuffer(base)
        self.expGm.SetGlobalBuffer(exponent)
        self.powGm.SetGlobalBuffer(pow_)
        ubSize = int(tilingData.ubSize)
        self.vecBaseQue = aj.TQue(aj.QuePosition.VECIN, 1)
        self.vecExpQue = aj.TQue(aj.QuePosition.VECIN, 1)
        self.vecPowQue = aj.TQue(aj.QuePosition.VECOUT, 1)
        self.tmp1Tensor, self.tmp2Tensor, self.tmpExpTensor = aj.TBuf(), aj.TBuf(), aj.TBuf()
        self.pipe.InitBuffer(self.vecBaseQue, DB_BUFFER, ubSize)
        self.pipe.InitBuffer(self.vecExpQue, 1, EXP_UB_SIZE)
        self.pipe.InitBuffer(self.vecPowQue, 1, ubSize)
        self.pipe.InitBuffer(self.tmp1Tensor, ubSize)
        self.pipe.InitBuffer(self.tmp2Tensor, ubSize)
        self.pipe.InitBuffer(self.tmpExpTensor, EXP_UB_SIZE)
        self.expValue = int(self.expGm(0))                          # static_cast<int64_t>(expGm(0))
        eventID_S_V = aj.GetTPipePtr().FetchEventID(aj.HardEvent.S_V)
        aj.SetFlag(eventID_S_V, event=aj.HardEvent.S_V)
        aj.WaitFlag(eventID_S_V, event=aj.HardEvent.S_V)

    def Process(self):
        t = self.tilingData
        beginIdx = self.cBlockIdx * int(t.blockFactor)
        endIdx = min((self.cBlockIdx + 1) * int(t.blockFactor), int(t.ubOuter))
        realEndIdx = int(t.ubOuter) - 1
        curDataLength = int(t.ubFactor)
        gmOffset = beginIdx * curDataLength
        T1 = self.T1
        if self.expValue == 0:
            dstLocal = self.vecPowQue.AllocTensor(T1)
            self.ComputeZeros(dstLocal, int(t.ubFactor))
            self.vecPowQue.EnQue(T1, dstLocal)
            self.vecPowQue.DeQue(T1)
            for idx in range(beginIdx, endIdx):
                if idx == realEndIdx:
                    curDataLength = int(t.ubTail)
                self.CopyPow(dstLocal, gmOffset, curDataLength)
                gmOffset += int(t.ubFactor)
            self.vecPowQue.FreeTensor(dstLocal)
            return
        compute = {1: self.ComputeCopy, EXP_SQUARED: self.ComputeSquare, EXP_CUBE: self.ComputeCube}[self.expValue]
        for idx in range(beginIdx, endIdx):
            if idx == realEndIdx:
                curDataLength = int(t.ubTail)
            srcLocal = self.vecBaseQue.AllocTensor(T1)
            self.CopyBase(srcLocal, gmOffset, curDataLength)
            self.vecBaseQue.EnQue(T1, srcLocal)
            self.vecBaseQue.DeQue(T1)
            dstLocal = self.vecPowQue.AllocTensor(T1)
            compute(dstLocal, srcLocal, curDataLength)
            self.vecBaseQue.FreeTensor(srcLocal)
            self.vecPowQue.EnQue(T1, dstLocal)
            self.vecPowQue.DeQue(T1)
            self.CopyPow(dstLocal, gmOffset, curDataLength)
            self.vecPowQue.FreeTensor(dstLocal)
            gmOffset += int(t.ubFactor)

    def CopyBase(self, dstTensor, offset, gatherLength):
        T1, size = self.T1, TYPE_SIZE[self.T1]
        if self.zero_tail and self.expValue in (EXP_SQUARED, EXP_CUBE):
            # deviation (5): the bytes the VF's last vector reads past the copy's 32-byte blocks; past the copy's
            # bytes, so no ordering against it, and the VF follows on the vector pipe
            step = VECTOR_REG_WIDTH // (size if size > 1 else 2)
            loaded = aj.CeilDivision(gatherLength, step) * step
            copied = aj.AlignUp(gatherLength * size, BLOCK_SIZE) // size
            if loaded > copied:
                aj.Duplicate(dstTensor[copied], _NP[T1](0), loaded - copied)
        aj.DataCopyPad(dstTensor, self.baseGm[offset], aj.DataCopyExtParams(1, gatherLength * size, 0, 0, 0),
                       aj.DataCopyPadExtParams(False, 0, 0, 0))

    def CopyPow(self, srcTensor, offset, gatherLength):
        aj.DataCopyPad(self.powGm[offset], srcTensor,
                       aj.DataCopyExtParams(1, gatherLength * TYPE_SIZE[self.T1], 0, 0, 0))

    def ComputeZeros(self, dstTensor, dataLength):
        aj.Duplicate(dstTensor, _NP[self.T1](1), dataLength)

    def ComputeCopy(self, dstTensor, srcTensor, dataLength):
        size = TYPE_SIZE[self.T1]
        if size == 4:
            aj.ShiftLeft(dstTensor.ReinterpretCast("uint32"), srcTensor.ReinterpretCast("uint32"), np.uint32(0),
                         dataLength)
        elif size == 2:
            aj.ShiftLeft(dstTensor.ReinterpretCast("uint16"), srcTensor.ReinterpretCast("uint16"), np.uint16(0),
                         dataLength)
        else:                                   # the B8 length as B16 elements
            aj.ShiftLeft(dstTensor.ReinterpretCast("uint16"), srcTensor.ReinterpretCast("uint16"), np.uint16(0),
                         (dataLength + 1) // B8_TO_B16)

    def _vf(self, dstTensor, srcTensor, dataLength, cube):
        aj.SetCtrlSpr(SAT_POS, SAT_POS, 0)      # non-saturating: the NO_SAT casts keep the low bits (D46)
        T1 = self.T1
        if T1 in ("int32", "int16"):
            R.asc_vf_call(POW_WIDE_VF, dstTensor, srcTensor, dataLength, T1, cube)
        elif T1 == "uint8":
            R.asc_vf_call(POW_U8_VF, dstTensor, srcTensor, dataLength, cube)
        else:
            R.asc_vf_call(POW_S8_VF, dstTensor, srcTensor, dataLength, cube)
        aj.SetCtrlSpr(SAT_POS, SAT_POS, 1)      # back to saturating

    def ComputeSquare(self, dstTensor, srcTensor, dataLength):
        self._vf(dstTensor, srcTensor, dataLength, False)

    def ComputeCube(self, dstTensor, srcTensor, dataLength):
        self._vf(dstTensor, srcTensor, dataLength, True)


aj.REGISTER_TILING_DEFAULT(PowTensorScalarTilingData)


def pow_tensor_scalar_integer(base, exponent, y, workspace, tiling_bytes, DTYPE, zero_tail=True):
    """The kernel entry (pow_apt.cpp); DTYPE stands for the tiling key's instance."""
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    tPipe = aj.TPipe()
    tilingData = aj.GET_TILING_DATA(tiling_bytes)
    op = PowTensorScalarInteger(DTYPE, zero_tail)
    op.Init(base, exponent, y, tilingData, tPipe)
    op.Process()


def run_pow(device, x, exponent, zero_tail=True):
    dtype = {np.dtype(v): k for k, v in _NP.items()}[x.dtype]
    _, block_dim, tiling_bytes = tiling(device, x.size, dtype, exponent)
    y = np.zeros_like(x)
    exp_gm = np.zeros(32 // x.itemsize, x.dtype)
    exp_gm[0] = exponent
    workspace = np.zeros(32, np.uint8)
    aj.launch(pow_tensor_scalar_integer, block_dim, device, x, exp_gm, y, workspace, tiling_bytes, dtype, zero_tail)
    return y


def pow_model(x, exponent):
    """x ** e modulo 2 ** bits (int64 products wrap modulo 2 ** 64, a multiple of the type's modulus)."""
    wide = x.astype(np.int64)
    out = np.ones_like(wide)
    for _ in range(int(exponent)):
        out = out * wide
    return out.astype(x.dtype)


def _make_inputs(dtype):
    def make_inputs(size, seed):
        info = np.iinfo(_NP[dtype])
        x = np.random.default_rng(seed).integers(info.min, info.max, size, endpoint=True).astype(_NP[dtype])
        return {"x": x}
    return make_inputs


def _run(exponent):
    def run(device, inputs):
        return {"y": run_pow(device, inputs["x"], exponent)}
    return run


def _expected(exponent):
    def expected(device, inputs):
        return {"y": pow_model(inputs["x"], exponent)}
    return expected


_SOURCE = "hicann/ops-math@c4193324 math/pow/op_kernel/arch35/pow_tensor_scalar_integer.h"
KERNELS = [
    KernelSpec(f"pow_tensor_scalar_{dtype}{suffix}", description, _make_inputs(dtype), _run(exponent),
               _expected(exponent), default_size=size, devices=("ascend950",), size_rule="1 to 16Mi elements",
               size_ok=lambda n: 0 < n <= 1 << 24, source=_SOURCE)
    for dtype, suffix, exponent, size, description in (
        ("int32", "_cube", 3, 100003, "Pow tensor-scalar over int32, 950 arch35: exponent by expGm(0), a VF of "
         "LoadAlign, two wrapping Mul, StoreAlign DIST_NORM_B32 behind SetCtrlSpr<60,60>(0); uneven tiles / cores"),
        ("int16", "_square", 2, 70001, "Pow tensor-scalar over int16 squared (DIST_NORM store, deviation 3)"),
        ("uint8", "_cube", 3, 90001, "Pow tensor-scalar over uint8 cubed: DIST_UNPACK_B8, Cast u8 -> u16, Mul, "
         "AND 255 by shifts (deviation 4), Cast NO_SAT, DIST_PACK_B16"),
        ("int8", "_square", 2, 50001, "Pow tensor-scalar over int8 squared: through int16 and half (CAST_RINT), "
         "Cast half -> int8 NO_SAT"),
        ("int32", "_one", 1, 40001, "Pow tensor-scalar exponent 1: Memory-API ShiftLeft by 0 over a uint32 view"),
        ("int8", "_zero", 0, 30001, "Pow tensor-scalar exponent 0: one Duplicate of 1 copied out tile after tile"))
]
