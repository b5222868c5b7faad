"""ApplyRMSProp from the CANN NN optimizers: ms' = ms + (grad^2 - ms) * (1 - rho), mom' = mom * momentum + lr * grad /
sqrt(ms' + epsilon), var' = var - mom', element by element over float, half and bfloat16 (the 16-bit types in
float), three outputs.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/optim/apply_rms_prop:
- op_kernel/apply_rms_prop.h (`ApplyRmsPropBase<T>` with `ApplyRmsPropFp32<T>` and `ApplyRmsPropCast<T>`): cores
  of blockLength elements (the last lastBlockLength) from blockIdx * blockLength; seven depth-1 queues (var, ms,
  mom, grad in; var', ms', mom' out) of tileLength elements; per tile four DataCopyPads in (DataCopyExtParams
  {1, n * sizeof(T), 0, 0, 0}, DataCopyPadExtParams {false, 0, 0, 0}), Compute, three DataCopyPads out. float:
  four float TBufs; Mul (grad^2), Sub ms, Muls rho1m, Add ms -> ms', Adds eps, Sqrt, **Reciprocal**, Mul grad, Muls
  lr, Muls mom by momentum, Add -> mom', Sub -> var'. half / bfloat16: eight float TBufs; the four inputs Cast
  CAST_NONE to float and their tiles freed at once, the same chain in float (Sqrt and Reciprocal in place), the
  output tiles allocated after it and the three results Cast CAST_RINT into them;
- op_kernel/apply_rms_prop.cpp (the entry, KERNEL_TYPE_AIV_ONLY: the dtype picks the class);
- op_host/apply_rms_prop_tiling.cpp (`ComputeSplit`: blockLength = ceil(total / cores) rounded up to a 32-byte block
  of elements, cores = ceil(total / blockLength); tileLength = UB / (44 bytes an element for float, 7 * 2 + 8 * 4 for
  the 16-bit types) rounded down to a block, at most blockLength; rho1m = 1 - rho computed in float on the host).

Deviations: the core count is the launch's 8 (GetCoreNumAiv in the original). Nothing else: each core's elements
are whole tiles and a tail, every instruction's count the tile's element count, the copies exact in bytes.

Devices: the operator's config is the ascend950 (op_host/apply_rms_prop_def.cpp): the port runs on the 950.

Fidelity: MODELLED (Sqrt and Reciprocal, SPEC-2 D37 / D40: the exact value rounded once to float, Reciprocal the 950's
Div(1, x); both INTRINSIC: DAZ / FTZ, D38), the rest BIT-EXACT (Mul, Sub, Muls, Add, Adds, Cast, DataCopyPad); the
model (numpy's float32 ops, correctly rounded sqrt and division) is checked bit for bit. A negative ms' + eps gives
NaN through Sqrt and into mom' and var'; a zero one gives +inf (Reciprocal of +0), lr * grad * inf.
"""
import ctypes

import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNumAiv in the original)
UB_BLOCK_SIZE = 32
BUFFER_NUM = 1
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("ascend950",)


class ApplyRmsPropTilingData(ctypes.Structure):
    _fields_ = [("lr", ctypes.c_float), ("rho1m", ctypes.c_float), ("mom", ctypes.c_float), ("eps", ctypes.c_float),
                ("totalLength", ctypes.c_int64), ("blockLength", ctypes.c_int64),
                ("lastBlockLength", ctypes.c_int64), ("tileLength", ctypes.c_int64), ("tileNum", ctypes.c_int64),
                ("lastTileLength", ctypes.c_int64), ("lastBlockTileNum", ctypes.c_int64),
                ("lastBlockLastTileLength", ctypes.c_int64), ("usedCoreNum", ctypes.c_int32),
                ("reserved", ctypes.c_int32)]


def _ceil_align(v, a):
    return -(-v // a) * a


def tiling(device, total, dtype, lr, rho, momentum, epsilon):
    """ApplyRmsPropTilingFunc / ComputeSplit: (used cores, the tiling bytes)."""
    ub_size = aj.get_device(device).ub_bytes
    size = TYPE_SIZE[dtype]
    elem_per_block = UB_BLOCK_SIZE // size
    block_length = _ceil_align(-(-total // CORE_NUM), elem_per_block)
    used = -(-total // block_length)
    last_block_length = total - block_length * (used - 1)
    if last_block_length <= 0:
        last_block_length = block_length
    bytes_per_elem = 7 * size + 8 * 4 if dtype != "float" else 11 * 4
    max_tile = ub_size // bytes_per_elem // elem_per_block * elem_per_block
    tile_length = max_tile
    if tile_length > block_length:
        tile_length = _ceil_align(block_length, elem_per_block)
    tile_length = min(tile_length, max_tile)
    tile_num = -(-block_length // tile_length)
    last_tile = block_length - tile_length * (tile_num - 1) or tile_length
    last_block_tiles = -(-last_block_length // tile_length)
    last_block_last_tile = last_block_length - tile_length * (last_block_tiles - 1) or tile_length
    t = ApplyRmsPropTilingData(
        lr=lr, rho1m=np.float32(1.0) - np.float32(rho), mom=momentum, eps=epsilon, totalLength=total,
        blockLength=block_length, lastBlockLength=last_block_length, tileLength=tile_length, tileNum=tile_num,
        lastTileLength=last_tile, lastBlockTileNum=last_block_tiles, lastBlockLastTileLength=last_block_last_tile,
        usedCoreNum=used)
    return used, np.frombuffer(bytes(t), np.uint8).copy()


class ApplyRmsPropBase:
    """`ApplyRmsPropBase<T>`: the shared Init, queues, copies and tile loop."""

    def __init__(self, T):
        self.T = T

    def InitCommon(self, var, ms, mom, grad, varOut, msOut, momOut, td):
        T = self.T
        self.blockIdx_ = aj.GetBlockIdx()
        self.usedCores_ = td.usedCoreNum
        if self.blockIdx_ >= self.usedCores_:
            self.isValid_ = False
            return
        self.isValid_ = True
        isLastCore = self.blockIdx_ == self.usedCores_ - 1
        self.coreLength_ = td.lastBlockLength if isLastCore else td.blockLength
        self.tileNum_ = td.lastBlockTileNum if isLastCore else td.tileNum
        self.lastTileLength_ = td.lastBlockLastTileLength if isLastCore else td.lastTileLength
        self.tileLength_ = td.tileLength
        self.lr_, self.rho1m_ = np.float32(td.lr), np.float32(td.rho1m)
        self.mom_, self.eps_ = np.float32(td.mom), np.float32(td.eps)
        gmOffset = self.blockIdx_ * td.blockLength
        self.gms = {}
        for name, gm in (("var", var), ("ms", ms), ("mom", mom), ("grad", grad), ("varOut", varOut),
                         ("msOut", msOut), ("momOut", momOut)):
            g = aj.GlobalTensor(T)
            g.SetGlobalBuffer(gm[gmOffset:], self.coreLength_)
            self.gms[name] = g
        self.pipe_ = aj.TPipe()
        self.qVar_, self.qMs_, self.qMom_, self.qGrad_ = (aj.TQue(aj.QuePosition.VECIN, BUFFER_NUM) for _ in range(4))
        self.qVarOut_, self.qMsOut_, self.qMomOut_ = (aj.TQue(aj.QuePosition.VECOUT, BUFFER_NUM) for _ in range(3))
        for q in (self.qVar_, self.qMs_, self.qMom_, self.qGrad_, self.qVarOut_, self.qMsOut_, self.qMomOut_):
            self.pipe_.InitBuffer(q, BUFFER_NUM, self.tileLength_ * TYPE_SIZE[T])

    def Process(self):
        if not self.isValid_:
            return
        for i in range(self.tileNum_):
            curLen = self.lastTileLength_ if i == self.tileNum_ - 1 else self.tileLength_
            self.CopyIn(i, curLen)
            self.Compute(curLen)
            self.CopyOut(i, curLen)

    def CopyIn(self, progress, curLen):
        T = self.T
        varL, msL = self.qVar_.AllocTensor(T), self.qMs_.AllocTensor(T)
        momL, gradL = self.qMom_.AllocTensor(T), self.qGrad_.AllocTensor(T)
        params = aj.DataCopyExtParams(1, curLen * TYPE_SIZE[T], 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(False, 0, 0, _NP[T](0))
        off = progress * self.tileLength_
        aj.DataCopyPad(varL, self.gms["var"][off], params, padParams)
        aj.DataCopyPad(msL, self.gms["ms"][off], params, padParams)
        aj.DataCopyPad(momL, self.gms["mom"][off], params, padParams)
        aj.DataCopyPad(gradL, self.gms["grad"][off], params, padParams)
        self.qVar_.EnQue(varL)
        self.qMs_.EnQue(msL)
        self.qMom_.EnQue(momL)
        self.qGrad_.EnQue(gradL)

    def CopyOut(self, progress, curLen):
        T = self.T
        varNewL, msNewL, momNewL = self.qVarOut_.DeQue(T), self.qMsOut_.DeQue(T), self.qMomOut_.DeQue(T)
        params = aj.DataCopyExtParams(1, curLen * TYPE_SIZE[T], 0, 0, 0)
        off = progress * self.tileLength_
        aj.DataCopyPad(self.gms["varOut"][off], varNewL, params)
        aj.DataCopyPad(self.gms["msOut"][off], msNewL, params)
        aj.DataCopyPad(self.gms["momOut"][off], momNewL, params)
        self.qVarOut_.FreeTensor(varNewL)
        self.qMsOut_.FreeTensor(msNewL)
        self.qMomOut_.FreeTensor(momNewL)


class ApplyRmsPropFp32(ApplyRmsPropBase):
    """`ApplyRmsPropFp32<float>`."""

    def Init(self, var, ms, mom, grad, varOut, msOut, momOut, td):
        self.InitCommon(var, ms, mom, grad, varOut, msOut, momOut, td)
        if not self.isValid_:
            return
        self.tmpG2_, self.tmpDiff_, self.tmpEps_, self.tmpSq_ = (aj.TBuf(aj.TPosition.VECCALC) for _ in range(4))
        for b in (self.tmpG2_, self.tmpDiff_, self.tmpEps_, self.tmpSq_):
            self.pipe_.InitBuffer(b, self.tileLength_ * 4)

    def Compute(self, n):
        T = self.T
        varL, msL, momL, gradL = self.qVar_.DeQue(T), self.qMs_.DeQue(T), self.qMom_.DeQue(T), self.qGrad_.DeQue(T)
        g2, diff = self.tmpG2_.Get(T), self.tmpDiff_.Get(T)
        eps, sq = self.tmpEps_.Get(T), self.tmpSq_.Get(T)
        msNewL, momNewL = self.qMsOut_.AllocTensor(T), self.qMomOut_.AllocTensor(T)
        varNewL = self.qVarOut_.AllocTensor(T)
        aj.Mul(g2, gradL, gradL, n)
        aj.Sub(diff, g2, msL, n)
        aj.Muls(diff, diff, self.rho1m_, n)
        aj.Add(msNewL, msL, diff, n)
        aj.Adds(eps, msNewL, self.eps_, n)
        aj.Sqrt(sq, eps, n)
        aj.Reciprocal(eps, sq, n)
        aj.Mul(diff, eps, gradL, n)
        aj.Muls(diff, diff, self.lr_, n)
        aj.Muls(momNewL, momL, self.mom_, n)
        aj.Add(momNewL, momNewL, diff, n)
        aj.Sub(varNewL, varL, momNewL, n)
        self.qVarOut_.EnQue(T, varNewL)
        self.qMsOut_.EnQue(T, msNewL)
        self.qMomOut_.EnQue(T, momNewL)
        for q, t in ((self.qVar_, varL), (self.qMs_, msL), (self.qMom_, momL), (self.qGrad_, gradL)):
            q.FreeTensor(t)


class ApplyRmsPropCast(ApplyRmsPropBase):
    """`ApplyRmsPropCast<half / bfloat16>`: to float, the chain, CAST_RINT back."""

    def Init(self, var, ms, mom, grad, varOut, msOut, momOut, td):
        self.InitCommon(var, ms, mom, grad, varOut, msOut, momOut, td)
        if not self.isValid_:
            return
        self.fp = [aj.TBuf(aj.TPosition.VECCALC) for _ in range(8)]
        for b in self.fp:
            self.pipe_.InitBuffer(b, self.tileLength_ * 4)

    def Compute(self, n):
        T = self.T
        varL, msL, momL, gradL = self.qVar_.DeQue(T), self.qMs_.DeQue(T), self.qMom_.DeQue(T), self.qGrad_.DeQue(T)
        varF, msF, momF, gradF, msNewF, momNewF, varNewF, tmpF = (b.Get("float") for b in self.fp)
        aj.Cast(varF, varL, aj.RoundMode.CAST_NONE, n)
        aj.Cast(msF, msL, aj.RoundMode.CAST_NONE, n)
        aj.Cast(momF, momL, aj.RoundMode.CAST_NONE, n)
        aj.Cast(gradF, gradL, aj.RoundMode.CAST_NONE, n)
        for q, t in ((self.qVar_, varL), (self.qMs_, msL), (self.qMom_, momL), (self.qGrad_, gradL)):
            q.FreeTensor(t)
        aj.Mul(tmpF, gradF, gradF, n)
        aj.Sub(tmpF, tmpF, msF, n)
        aj.Muls(tmpF, tmpF, self.rho1m_, n)
        aj.Add(msNewF, msF, tmpF, n)
        aj.Adds(tmpF, msNewF, self.eps_, n)
        aj.Sqrt(tmpF, tmpF, n)
        aj.Reciprocal(tmpF, tmpF, n)
        aj.Mul(tmpF, tmpF, gradF, n)
        aj.Muls(tmpF, tmpF, self.lr_, n)
        aj.Muls(momNewF, momF, self.mom_, n)
        aj.Add(momNewF, momNewF, tmpF, n)
        aj.Sub(varNewF, varF, momNewF, n)
        msNewL, momNewL = self.qMsOut_.AllocTensor(T), self.qMomOut_.AllocTensor(T)
        varNewL = self.qVarOut_.AllocTensor(T)
        aj.Cast(msNewL, msNewF, aj.RoundMode.CAST_RINT, n)
        aj.Cast(momNewL, momNewF, aj.RoundMode.CAST_RINT, n)
        aj.Cast(varNewL, varNewF, aj.RoundMode.CAST_RINT, n)
        self.qMsOut_.EnQue(T, msNewL)
        self.qMomOut_.EnQue(T, momNewL)
        self.qVarOut_.EnQue(T, varNewL)


aj.REGISTER_TILING_DEFAULT(ApplyRmsPropTilingData)


def apply_rms_prop(var, ms, mom, grad, var_out, ms_out, mom_out, workspace, tiling_bytes, dtype):
    """The kernel entry (apply_rms_prop.cpp; the template's D_T_VAR as an argument)."""
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    tilingData = aj.GET_TILING_DATA_WITH_STRUCT(ApplyRmsPropTilingData, tiling_bytes)
    op = ApplyRmsPropFp32(dtype) if dtype == "float" else ApplyRmsPropCast(dtype)
    op.Init(var, ms, mom, grad, var_out, ms_out, mom_out, tilingData)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


LR, RHO, MOMENTUM, EPSILON = 0.01, 0.9, 0.9, 1e-6


def run_apply_rms_prop(device, var, ms, mom, grad, lr=LR, rho=RHO, momentum=MOMENTUM, epsilon=EPSILON):
    dtype = _dtype_name(var)
    used, t = tiling(device, var.size, dtype, lr, rho, momentum, epsilon)
    outs = [np.zeros_like(var) for _ in range(3)]
    aj.launch(apply_rms_prop, used, device, *(np.ascontiguousarray(a) for a in (var, ms, mom, grad)), *outs, None,
              t, dtype)
    return tuple(outs)                                    # var', ms', mom'


def apply_rms_prop_model(var, ms, mom, grad, lr=LR, rho=RHO, momentum=MOMENTUM, epsilon=EPSILON):
    """The kernel's chain in float32, each step rounded once (numpy's sqrt and division are correctly rounded: D37),
    the 16-bit results RNE: (var', ms', mom')."""
    f32 = np.float32
    rho1m = f32(1.0) - f32(rho)
    v, s, m, g = (a.astype(f32) for a in (var, ms, mom, grad))
    with np.errstate(all="ignore"):
        ms_new = s + (g * g - s) * rho1m
        r = f32(1.0) / np.sqrt(ms_new + f32(epsilon))
        mom_new = m * f32(momentum) + r * g * f32(lr)
        var_new = v - mom_new
    return tuple(a.astype(var.dtype) for a in (var_new, ms_new, mom_new))


def _make_inputs(dtype):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        t = _NP[dtype]
        return {"var": rng.uniform(-2.0, 2.0, size).astype(np.float32).astype(t),
                "ms": rng.uniform(0.0, 1.0, size).astype(np.float32).astype(t),
                "mom": rng.uniform(-0.5, 0.5, size).astype(np.float32).astype(t),
                "grad": (rng.standard_normal(size) * 0.3).astype(np.float32).astype(t)}
    return make_inputs


def _run(device, inputs):
    v, s, m = run_apply_rms_prop(device, inputs["var"], inputs["ms"], inputs["mom"], inputs["grad"])
    return {"var": v, "ms": s, "mom": m}


def _expected(device, inputs):
    v, s, m = apply_rms_prop_model(inputs["var"], inputs["ms"], inputs["mom"], inputs["grad"])
    return {"var": v, "ms": s, "mom": m}


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/optim/apply_rms_prop/op_kernel/apply_rms_prop.h"
KERNELS = [
    KernelSpec(f"apply_rms_prop{suffix}", description, _make_inputs(dtype), _run, _expected, default_size=size,
               devices=DEVICES, source=_SOURCE)
    for suffix, dtype, size, description in (
        ("", "float", 100003, "ApplyRMSProp over floats (Mul, Sub, Muls, Add, Adds, Sqrt, Reciprocal, Mul, Muls, "
         "Add, Sub; seven depth-1 queues of DataCopyPad tiles, three outputs)"),
        ("_half", "half", 50003, "ApplyRMSProp over halves (four Casts to float, the float chain with Sqrt / "
         "Reciprocal in place, three Casts CAST_RINT back)"),
        ("_bf16", "bfloat16", 50003, "ApplyRMSProp over bfloat16 (as the half kernel)"))
]
