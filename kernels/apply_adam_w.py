"""ApplyAdamW from the CANN NN operators: one AdamW step over float, half and bfloat16 tensors (the 16-bit types
computed in float), optionally amsgrad (the denominator from max(max_grad_norm, v)) and maximize (the gradient negated):
    m' = beta1 * m + (1 - beta1) * g,  v' = beta2 * v + (1 - beta2) * g**2,
    var' = var * (1 - lr * wd) + lr / (beta1_power * beta1 - 1) * m' / (sqrt(v'' / (1 - beta2_power * beta2)) + eps)
with v'' = v' or max(max_grad_norm, v'), the scalars (beta1_power, beta2_power, lr, wd, beta1, beta2, eps) one-element
tensors of the same type.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/ops-nn @ e5c3fa9327ea95ba26d06227e746923580d10921, experimental/optim/apply_adam_w:
- op_kernel/apply_adam_w.h (`MyApplyAdamW::KernelApplyAdamW<T, BUFFER_NUM>`): big cores (the first tailBlockNum)
  take one 32-byte block more than the small ones. Init reads the seven scalars by GlobalTensor GetValue (float),
  or (half / bfloat16) SetValues them into a 16-element TBuf, S_V flag, Cast CAST_NONE of 16 to a float TBuf, V_S
  flag, GetValue, then TPipe::Reset; derives 1 - beta1, 1 - beta2, 1 - lr * wd, 1 / (1 - beta2_power * beta2) and
  lr / (beta1_power * beta1 - 1) on the scalar unit (event ids by FetchEventID); one TQueBind<VECIN, VECOUT> of 4
  tiles a buffer (5 with amsgrad) and a float TBuf (one tile, five for the 16-bit types). Per tile, with no
  EnQue / DeQue: AllocTensor, four or five count-form DataCopys in, MTE2_V flag, the m update (Muls, Muls, Add; 16-bit:
  Casts CAST_NONE in, CAST_RINT back), V_MTE3 flag, DataCopy m out, the v update, V_MTE3, DataCopy v out, Muls var,
  [Max], Muls, Sqrt, Adds eps, Div, Muls, Add, V_MTE3, DataCopy var out, FreeTensor;
- op_kernel/apply_adam_w.cpp (the entry: a caller-made TPipe, BUFFER_NUM by the tiling key) and
  op_host/apply_adam_w_tiling.cpp (`ApplyAdamWTilingFunc`: cores = ceil(n / 1024) at most the AIV count; single
  buffering while the aligned input times ubDataNumber fits the cores' UB, else double; tileBlockNum = UB blocks /
  BUFFER_NUM / ubDataNumber with ubDataNumber 5 (float), 12 (half, bfloat16), +1 with amsgrad (+3 for half)).

Deviations:
1. The core count is the launch's 8 (GetCoreNumAiv in the original). GM is padded to 32 bytes (the tiling's blocks),
   the scalar tensors to the 16 elements their SetGlobalBuffer declares.
2. UB (`original_ub=False`): the host's ubDataNumber for the 16-bit types undercounts what Init allocates (per element
   4 or 5 tiles of T in the bind queue and 5 float tiles: 28 or 30 bytes, 14 or 15 units of 2 bytes, where the tiling
   counts 12, or 13 for bfloat16 with amsgrad): single-buffered, the float TBuf's InitBuffer runs past the A2/A3's
   196608-byte UB, which the emulator refuses (OutOfBoundsError; `original_ub=True` shows it). Where the original's
   tile does not fit, the port's tiling counts the units the kernel takes (14, or 15 with amsgrad).
3. The 16-bit scalar Cast converts 16 elements of which Init set 7 (`zero_tail=True`): the other 9 are uninitialised
   UB (harmless: never read back), an uninitialised read for the sanitizer; the port SetValues them to 0 first.
4. The 16-bit tile forms `mgnLocal = gradLocal[processDataNum]` with or without amsgrad. Without it the bind queue's
   buffer holds 4 tiles, so at a full tile that view starts at the buffer's end: legal C++ (an empty view, never
   used), an OutOfBoundsError here (decisions.md "Indexing": an index at or past the end is refused). The port forms
   it only with amsgrad (`original_views=True` runs the original's form).

5. The 16-bit kernels' bind queue reuses the scalars' TBuf bytes after TPipe::Reset, and its first AllocTensor
   waits on no event, so under SPEC-2 10.4's model the first tile's DataCopys race the scalar SetValues and the Cast.
   The device orders them (its scalar unit waited V_S before issuing the copies; "report,device-sync" is clean
   either way); the port adds a PipeBarrier<PIPE_ALL> after the Reset (`original_sync=True` leaves it out).

Devices: the original is built for the ascend910b (the A2/A3 config); the port runs on the A3 and A2.

Fidelity: MODELLED (Sqrt, Div: D37), the rest BIT-EXACT (DataCopy, Muls, Mul, Add, Adds, Max, Cast; SPEC-2 0.3).
The emulator's Sqrt and Div are the exact value rounded once (RNE; the A2/A3 keep subnormals, D38), as numpy's float32
sqrt and division are, so the model replays the float32 chain in numpy and is checked bit for bit.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation 1: the launch's cores (GetCoreNumAiv in the original)
BLOCK_SIZE = 32                    # GetUbBlockSize
TILE_SPLIT_NUM = 1024
SCALAR_LEN = 16                    # the scalars' SetGlobalBuffer length
DATA_NUM_FP32, DATA_NUM_16BIT = 5, 12
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("atlas-a3", "atlas-a2")
SCALARS = ("beta1_power", "beta2_power", "lr", "weight_decay", "beta1", "beta2", "epsilon")
F32 = np.float32


def _ub_data_number(dtype, amsgrad):
    """GetShapeAttrsInfo's units of UB a tile element takes, in elements of T."""
    if dtype == "float":
        return DATA_NUM_FP32 + (1 if amsgrad else 0)
    if dtype == "bfloat16":
        return DATA_NUM_16BIT + (1 if amsgrad else 0)
    return DATA_NUM_16BIT + (3 if amsgrad else 0)


def _ub_bytes_used(dtype, tile, buffer_num, amsgrad):
    """What Init allocates for a tile: the bind queue's buffers and the float TBuf."""
    tiles = 5 if amsgrad else 4
    tmp = 1 if dtype == "float" else 5
    return buffer_num * tile * TYPE_SIZE[dtype] * tiles + tile * 4 * tmp


def tiling(device, total, dtype, amsgrad=False, maximize=False, original_ub=False):
    """ApplyAdamWTilingFunc: (core count, BUFFER_NUM, tiling data)."""
    ub_size = aj.get_device(device).ub_bytes
    size = TYPE_SIZE[dtype]
    aligned = -(-total * size // BLOCK_SIZE) * BLOCK_SIZE
    units = _ub_data_number(dtype, amsgrad)
    buffer_num = 1 if aligned * units <= CORE_NUM * ub_size else 2
    tile_block_num = ub_size // buffer_num // BLOCK_SIZE // units
    tile = tile_block_num * BLOCK_SIZE // size
    if not original_ub and _ub_bytes_used(dtype, tile, buffer_num, amsgrad) > ub_size:
        # deviation 2: the units the kernel really takes (docstring)
        units = (5 if amsgrad else 4) * buffer_num + 5 * 4 // size
        tile_block_num = ub_size // buffer_num // BLOCK_SIZE // units
        tile = tile_block_num * BLOCK_SIZE // size
    core_num = max(1, min(CORE_NUM, -(-total // TILE_SPLIT_NUM)))
    every = aligned // BLOCK_SIZE // core_num
    t = dict(tailBlockNum=aligned // BLOCK_SIZE % core_num, tileDataNum=tile, amsgrad=int(amsgrad),
             maximize=int(maximize))
    for kind, blocks in (("Small", every), ("Big", every + 1)):
        data = blocks * BLOCK_SIZE // size
        tiles = blocks // tile_block_num
        t[f"final{kind}TileNum"] = tiles if blocks % tile_block_num == 0 else tiles + 1
        tail = data - tile * tiles
        t[f"{kind.lower()}TailDataNum"] = tail if tail else tile
        t[f"{kind.lower()}CoreDataNum"] = data
    return core_num, buffer_num, t


class KernelApplyAdamW:
    """`KernelApplyAdamW<T, BUFFER_NUM>`."""

    def __init__(self, T, BUFFER_NUM, zero_tail=True, original_views=False, original_sync=False):
        self.T, self.BUFFER_NUM, self.zero_tail, self.original_views = T, BUFFER_NUM, zero_tail, original_views
        self.original_sync = original_sync

    def Init(self, var, m, v, beta1_power, beta2_power, lr, weight_decay, beta1, beta2, epsilon, grad,
             max_grad_norm, var_out, m_out, v_out, tilingData, pipeIn):
        T = self.T
        coreIdx = aj.GetBlockIdx()
        globalBufferIndex = tilingData["bigCoreDataNum"] * coreIdx
        self.tileDataNum = tilingData["tileDataNum"]
        self.pipe = pipeIn
        if coreIdx < tilingData["tailBlockNum"]:
            self.coreDataNum = tilingData["bigCoreDataNum"]
            self.tileNum = tilingData["finalBigTileNum"]
            self.tailDataNum = tilingData["bigTailDataNum"]
        else:
            self.coreDataNum = tilingData["smallCoreDataNum"]
            self.tileNum = tilingData["finalSmallTileNum"]
            self.tailDataNum = tilingData["smallTailDataNum"]
            globalBufferIndex -= ((tilingData["bigCoreDataNum"] - tilingData["smallCoreDataNum"])
                                  * (coreIdx - tilingData["tailBlockNum"]))
        gms = {}
        for name, arr in (("var", var), ("m", m), ("v", v), ("grad", grad), ("mgn", max_grad_norm),
                          ("varOut", var_out), ("mOut", m_out), ("vOut", v_out)):
            gms[name] = aj.GlobalTensor()
            if arr is not None:
                gms[name].SetGlobalBuffer(arr[globalBufferIndex:], self.coreDataNum)
        self.varGm, self.mGm, self.vGm, self.gradGm, self.mgnGm = (gms[k] for k in ("var", "m", "v", "grad", "mgn"))
        self.varOutGm, self.mOutGm, self.vOutGm = gms["varOut"], gms["mOut"], gms["vOut"]
        scalarGms = []
        for arr in (beta1_power, beta2_power, lr, weight_decay, beta1, beta2, epsilon):
            g = aj.GlobalTensor()
            g.SetGlobalBuffer(arr, SCALAR_LEN)
            scalarGms.append(g)
        if T in ("half", "bfloat16"):
            scalarTmpBuf, scalarCastBuf = aj.TBuf(aj.QuePosition.VECCALC), aj.TBuf(aj.QuePosition.VECCALC)
            self.pipe.InitBuffer(scalarTmpBuf, SCALAR_LEN * TYPE_SIZE[T])
            self.pipe.InitBuffer(scalarCastBuf, SCALAR_LEN * 4)
            castLocal = scalarTmpBuf.Get(T)
            castLocalFp = scalarCastBuf.Get("float")
            eventIDSToV = aj.GetTPipePtr().FetchEventID(aj.HardEvent.S_V)
            eventIDVToS = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_S)
            for i, g in enumerate(scalarGms):
                castLocal.SetValue(i, g.GetValue(0))
            if self.zero_tail:
                # deviation 3: the lanes the Cast converts and nothing set
                for i in range(len(scalarGms), SCALAR_LEN):
                    castLocal.SetValue(i, _NP[T](0))
            aj.SetFlag(eventIDSToV, event=aj.HardEvent.S_V)
            aj.WaitFlag(eventIDSToV, event=aj.HardEvent.S_V)
            aj.Cast(castLocalFp, castLocal, aj.RoundMode.CAST_NONE, SCALAR_LEN)
            aj.SetFlag(eventIDVToS, event=aj.HardEvent.V_S)
            aj.WaitFlag(eventIDVToS, event=aj.HardEvent.V_S)
            values = [F32(castLocalFp.GetValue(i)) for i in range(len(scalarGms))]
            self.pipe.Reset()
            if not self.original_sync:   # deviation 5: the bind queue goes on these bytes
                aj.PipeBarrier(aj.PIPE_ALL)
        else:
            values = [F32(g.GetValue(0)) for g in scalarGms]
        (self.beta1PowValue, self.beta2PowValue, self.lrValue, self.wdValue, self.beta1Value, self.beta2Value,
         self.epsilonValue) = values
        # the scalar unit's float arithmetic, one rounding an operation
        one = F32(1.0)
        self.negBeta1S1 = F32(one - self.beta1Value)
        self.negBeta2S1 = F32(one - self.beta2Value)
        self.varTP = F32(one - F32(self.lrValue * self.wdValue))
        with np.errstate(divide="ignore"):
            self.negBeta2PowOutS1 = F32(one / F32(one - F32(self.beta2PowValue * self.beta2Value)))
            self.lrDBeta1PowOutS1 = F32(self.lrValue / F32(F32(self.beta1PowValue * self.beta1Value) - one))
        self.amsgrad, self.maximize = tilingData["amsgrad"], tilingData["maximize"]
        self.eventIDMTE2ToV = aj.GetTPipePtr().FetchEventID(aj.HardEvent.MTE2_V)
        self.eventIDVToMTE3 = aj.GetTPipePtr().FetchEventID(aj.HardEvent.V_MTE3)
        self.bindQue = aj.TQueBind(aj.QuePosition.VECIN, aj.QuePosition.VECOUT, self.BUFFER_NUM)
        self.tmpBuf = aj.TBuf(aj.QuePosition.VECCALC)
        tiles = 5 if self.amsgrad else 4
        self.pipe.InitBuffer(self.bindQue, self.BUFFER_NUM, self.tileDataNum * TYPE_SIZE[T] * tiles)
        if T in ("half", "bfloat16"):
            self.pipe.InitBuffer(self.tmpBuf, self.tileDataNum * 4 * 5)
        else:
            self.pipe.InitBuffer(self.tmpBuf, self.tileDataNum * 4)

    def _mte2_v(self):
        aj.SetFlag(self.eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)
        aj.WaitFlag(self.eventIDMTE2ToV, event=aj.HardEvent.MTE2_V)

    def _v_mte3(self):
        aj.SetFlag(self.eventIDVToMTE3, event=aj.HardEvent.V_MTE3)
        aj.WaitFlag(self.eventIDVToMTE3, event=aj.HardEvent.V_MTE3)

    def DoRunOp(self, offset):
        n = self.processDataNum
        varLocal = self.bindQue.AllocTensor("float")
        mLocal = varLocal[n]
        vLocal = mLocal[n]
        gradLocal = vLocal[n]
        mgnLocal = None
        tmpLocal = self.tmpBuf.Get("float")
        aj.DataCopy(varLocal, self.varGm[offset], n)
        aj.DataCopy(mLocal, self.mGm[offset], n)
        aj.DataCopy(vLocal, self.vGm[offset], n)
        aj.DataCopy(gradLocal, self.gradGm[offset], n)
        if self.amsgrad:
            mgnLocal = gradLocal[n]
            aj.DataCopy(mgnLocal, self.mgnGm[offset], n)
        self._mte2_v()
        if self.maximize:
            aj.Muls(gradLocal, gradLocal, F32(-1.0), n)
        aj.Muls(tmpLocal, gradLocal, self.negBeta1S1, n)
        aj.Muls(mLocal, mLocal, self.beta1Value, n)
        aj.Add(mLocal, mLocal, tmpLocal, n)
        self._v_mte3()
        aj.DataCopy(self.mOutGm[offset], mLocal, n)
        aj.Mul(gradLocal, gradLocal, gradLocal, n)
        aj.Muls(gradLocal, gradLocal, self.negBeta2S1, n)
        aj.Muls(vLocal, vLocal, self.beta2Value, n)
        aj.Add(vLocal, vLocal, gradLocal, n)
        self._v_mte3()
        aj.DataCopy(self.vOutGm[offset], vLocal, n)
        aj.Muls(varLocal, varLocal, self.varTP, n)
        if self.amsgrad:
            aj.Max(tmpLocal, mgnLocal, vLocal, n)
            aj.Muls(tmpLocal, tmpLocal, self.negBeta2PowOutS1, n)
        else:
            aj.Muls(tmpLocal, vLocal, self.negBeta2PowOutS1, n)
        aj.Sqrt(tmpLocal, tmpLocal, n)
        aj.Adds(tmpLocal, tmpLocal, self.epsilonValue, n)
        aj.Div(tmpLocal, mLocal, tmpLocal, n)
        aj.Muls(tmpLocal, tmpLocal, self.lrDBeta1PowOutS1, n)
        aj.Add(varLocal, varLocal, tmpLocal, n)
        self._v_mte3()
        aj.DataCopy(self.varOutGm[offset], varLocal, n)
        self.bindQue.FreeTensor(varLocal)

    def DoRunOpLowPrecision(self, offset):
        T, n = self.T, self.processDataNum
        mLocal = self.bindQue.AllocTensor(T)
        vLocal = mLocal[n]
        varLocal = vLocal[n]
        gradLocal = varLocal[n]
        # deviation 4: the original forms this view without amsgrad too, one past the 4-tile buffer at a full tile
        mgnLocal = gradLocal[n] if self.amsgrad or self.original_views else None
        varLocalFp = self.tmpBuf.Get("float")
        mLocalFp = varLocalFp[n]
        gradLocalFp = mLocalFp[n]
        vLocalFp = gradLocalFp[n]
        tmpLocalFp = vLocalFp[n]
        mgnLocalFp = tmpLocalFp                    # the original shares the slot (Max in place, mgn not read after)
        aj.DataCopy(varLocal, self.varGm[offset], n)
        aj.DataCopy(mLocal, self.mGm[offset], n)
        aj.DataCopy(vLocal, self.vGm[offset], n)
        aj.DataCopy(gradLocal, self.gradGm[offset], n)
        if self.amsgrad:
            aj.DataCopy(mgnLocal, self.mgnGm[offset], n)
        self._mte2_v()
        aj.Cast(mLocalFp, mLocal, aj.RoundMode.CAST_NONE, n)
        aj.Cast(gradLocalFp, gradLocal, aj.RoundMode.CAST_NONE, n)
        if self.maximize:
            aj.Muls(gradLocalFp, gradLocalFp, F32(-1.0), n)
        aj.Muls(varLocalFp, gradLocalFp, self.negBeta1S1, n)
        aj.Muls(mLocalFp, mLocalFp, self.beta1Value, n)
        aj.Add(mLocalFp, mLocalFp, varLocalFp, n)
        aj.Cast(mLocal, mLocalFp, aj.RoundMode.CAST_RINT, n)
        self._v_mte3()
        aj.DataCopy(self.mOutGm[offset], mLocal, n)
        aj.Cast(vLocalFp, vLocal, aj.RoundMode.CAST_NONE, n)
        aj.Mul(gradLocalFp, gradLocalFp, gradLocalFp, n)
        aj.Muls(gradLocalFp, gradLocalFp, self.negBeta2S1, n)
        aj.Muls(vLocalFp, vLocalFp, self.beta2Value, n)
        aj.Add(vLocalFp, vLocalFp, gradLocalFp, n)
        aj.Cast(vLocal, vLocalFp, aj.RoundMode.CAST_RINT, n)
        self._v_mte3()
        aj.DataCopy(self.vOutGm[offset], vLocal, n)
        aj.Cast(varLocalFp, varLocal, aj.RoundMode.CAST_NONE, n)
        aj.Muls(varLocalFp, varLocalFp, self.varTP, n)
        if self.amsgrad:
            aj.Cast(mgnLocalFp, mgnLocal, aj.RoundMode.CAST_NONE, n)
            aj.Max(tmpLocalFp, mgnLocalFp, vLocalFp, n)
            aj.Muls(tmpLocalFp, tmpLocalFp, self.negBeta2PowOutS1, n)
        else:
            aj.Muls(tmpLocalFp, vLocalFp, self.negBeta2PowOutS1, n)
        aj.Sqrt(tmpLocalFp, tmpLocalFp, n)
        aj.Adds(tmpLocalFp, tmpLocalFp, self.epsilonValue, n)
        aj.Div(tmpLocalFp, mLocalFp, tmpLocalFp, n)
        aj.Muls(tmpLocalFp, tmpLocalFp, self.lrDBeta1PowOutS1, n)
        aj.Add(varLocalFp, varLocalFp, tmpLocalFp, n)
        aj.Cast(varLocal, varLocalFp, aj.RoundMode.CAST_RINT, n)
        self._v_mte3()
        aj.DataCopy(self.varOutGm[offset], varLocal, n)
        self.bindQue.FreeTensor(mLocal)

    def Process(self):
        run = self.DoRunOp if self.T == "float" else self.DoRunOpLowPrecision
        loopCount = self.tileNum - 1
        self.processDataNum = self.tileDataNum
        offset = 0
        for _ in range(loopCount):
            run(offset)
            offset += self.tileDataNum
        self.processDataNum = self.tailDataNum
        run(offset)


def apply_adam_w(var, m, v, beta1_power, beta2_power, lr, weight_decay, beta1, beta2, epsilon, grad, max_grad_norm,
                 var_out, m_out, v_out, workspace, tilingData, dtype, buffer_num, zero_tail=True, original_views=False,
                 original_sync=False):
    """The kernel entry (apply_adam_w.cpp): KERNEL_TYPE_AIV_ONLY, a caller-made TPipe, BUFFER_NUM by the key."""
    aj.KERNEL_TASK_TYPE_DEFAULT(aj.KERNEL_TYPE_AIV_ONLY)
    pipe = aj.TPipe()
    op = KernelApplyAdamW(dtype, buffer_num, zero_tail, original_views, original_sync)
    op.Init(var, m, v, beta1_power, beta2_power, lr, weight_decay, beta1, beta2, epsilon, grad, max_grad_norm,
            var_out, m_out, v_out, tilingData, pipe)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_apply_adam_w(device, var, m, v, grad, scalars, max_grad_norm=None, maximize=False, zero_tail=True,
                     original_ub=False, original_views=False, original_sync=False):
    """(var_out, m_out, v_out); scalars maps SCALARS' names to values; amsgrad when max_grad_norm is given."""
    dtype = _dtype_name(var)
    amsgrad = max_grad_norm is not None
    core_num, buffer_num, t = tiling(device, var.size, dtype, amsgrad, maximize, original_ub)
    pad = BLOCK_SIZE // var.itemsize
    n = -(-var.size // pad) * pad                 # deviation 1: GM padded to 32 bytes

    def gm(a):
        out = np.zeros(n, var.dtype)
        out[:var.size] = a
        return out
    tensors = [gm(a) for a in (var, m, v)]
    scalar_gms = [np.full(SCALAR_LEN, scalars[k], var.dtype) for k in SCALARS]
    outs = [np.zeros(n, var.dtype) for _ in range(3)]
    aj.launch(apply_adam_w, core_num, device, *tensors, *scalar_gms, gm(grad),
              gm(max_grad_norm) if amsgrad else None, *outs, None, t, dtype, buffer_num, zero_tail, original_views,
              original_sync)
    return tuple(o[:var.size] for o in outs)


def apply_adam_w_model(var, m, v, grad, scalars, max_grad_norm=None, maximize=False):
    """The kernel's float32 chain in numpy, each vector instruction one rounding (Sqrt and Div correctly rounded,
    D37), the 16-bit types cast in exactly and back by RNE; the scalars as the kernel derives them."""
    T = var.dtype
    b1p, b2p, lr, wd, b1, b2, eps = (F32(np.array(scalars[k], T).astype(F32)) for k in SCALARS)
    one = F32(1.0)
    nb1, nb2 = F32(one - b1), F32(one - b2)
    var_tp = F32(one - F32(lr * wd))
    with np.errstate(all="ignore"):
        nb2p = F32(one / F32(one - F32(b2p * b2)))
        lrd = F32(lr / F32(F32(b1p * b1) - one))
        g = grad.astype(F32)
        if maximize:
            g = g * F32(-1.0)
        m_new = m.astype(F32) * b1 + g * nb1
        v_new = v.astype(F32) * b2 + (g * g) * nb2
        den = v_new if max_grad_norm is None else np.maximum(max_grad_norm.astype(F32), v_new)
        den = np.sqrt(den * nb2p) + eps
        var_new = var.astype(F32) * var_tp + (m_new / den) * lrd
    return tuple(a.astype(T) for a in (var_new, m_new, v_new))


DEFAULT_SCALARS = dict(beta1_power=0.9 ** 3, beta2_power=0.999 ** 3, lr=1e-3, weight_decay=1e-2, beta1=0.9,
                       beta2=0.999, epsilon=1e-8)


def _make_inputs(dtype, amsgrad):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        t = _NP[dtype]
        out = {"var": rng.standard_normal(size).astype(np.float32).astype(t),
               "m": (rng.standard_normal(size) * 0.1).astype(np.float32).astype(t),
               "v": rng.uniform(0.0, 0.05, size).astype(np.float32).astype(t),
               "grad": rng.standard_normal(size).astype(np.float32).astype(t)}
        if amsgrad:
            out["max_grad_norm"] = rng.uniform(0.0, 0.1, size).astype(np.float32).astype(t)
        return out
    return make_inputs


def _run(maximize):
    def run(device, inputs):
        var, m, v = run_apply_adam_w(device, inputs["var"], inputs["m"], inputs["v"], inputs["grad"],
                                     DEFAULT_SCALARS, inputs.get("max_grad_norm"), maximize)
        return {"var": var, "m": m, "v": v}
    return run


def _expected(maximize):
    def expected(device, inputs):
        var, m, v = apply_adam_w_model(inputs["var"], inputs["m"], inputs["v"], inputs["grad"], DEFAULT_SCALARS,
                                       inputs.get("max_grad_norm"), maximize)
        return {"var": var, "m": m, "v": v}
    return expected


_SOURCE = "hicann/ops-nn@e5c3fa93 experimental/optim/apply_adam_w/op_kernel/apply_adam_w.h"
KERNELS = [
    KernelSpec(name, description, _make_inputs(dtype, amsgrad), _run(maximize), _expected(maximize),
               default_size=size, devices=DEVICES, source=_SOURCE)
    for name, dtype, amsgrad, maximize, size, description in (
        ("apply_adam_w", "float", False, False, 100003,
         "ApplyAdamW over floats (scalars by GM GetValue; a TQueBind<VECIN, VECOUT> of 4 tiles without EnQue / DeQue, "
         "FetchEventID'd MTE2_V / V_MTE3 flags; Muls, Add, Mul, Sqrt, Adds, Div; 32-byte big/small cores, double "
         "buffering past the cores' UB)"),
        ("apply_adam_w_half_amsgrad", "half", True, False, 30001,
         "ApplyAdamW amsgrad over halves (scalars through SetValue, S_V, a 16-lane Cast, V_S, GetValue and "
         "TPipe::Reset; Casts CAST_NONE / CAST_RINT around the float chain; Max)"),
        ("apply_adam_w_bf16_maximize", "bfloat16", False, True, 20001,
         "ApplyAdamW maximize over bfloat16 (as the half kernel; the gradient negated by Muls -1)"))
]
