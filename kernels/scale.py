"""Scale (the Caffe layer), a competition entry: y = x * scale + bias, scale and bias spanning the axes [axis, axis +
num_axes) of x and broadcast over the others, over float, half and bfloat16 (bfloat16 in float, rounded back after
the product as well as after the sum), with three kernels picked by where the scale's axes sit.

Ported (structure, synchronisation and instruction sequence; written in our own words) from
hicann/cann-ops-competitions @ 45b8fda0c85697c65bf249c19494bb04e53b3754,
01_official/operator-challenge/cann-ops-challenge-S8/submissions/Scale/HustAga:
- op_kernel/scale.cpp: `ScaleKernel_0<T>` (scale and bias of x's shape: each core its big or small element range,
  depth-1 queues for x, scale, bias and y of tileDataNum elements; per tile three DataCopyPads in, Mul, Add (bfloat16:
  Casts to float TBufs, Mul, Cast CAST_RINT to bfloat16 and CAST_NONE back, Add, Cast CAST_RINT), DataCopyPad out);
  `ScaleKernel_1<T>` (scale over the trailing axes: per tile of the scale its slice copied in once, then every row of
  the core's rows copied in, multiplied, added and copied out against it); `ScaleKernel_2<T>` (scale over middle
  axes: per row its scale and bias by GM GetValue (bfloat16: ToFloat), the row's inner elements in tiles by Muls and
  Adds (bfloat16 in float with the same rounding back)); each kernel's last tile is `count % tileDataNum` elements;
- op_host/scale.cpp (`TilingFunc`: the axes from axis / num_axes / scale_from_blob, the key, tiles of UB / 32 / 4
  blocks (bfloat16 / 10; key 2: / 3, bfloat16 / 4), cores = min(rows, cores), big cores one row more).

Deviations: the core count is at most the launch's 8 (GetCoreNum in the original). Key 2 on float / half with rows
that fit a tile (tileDataNum >= innerStride) uses the advanced API `Broadcast<T, 2, 1>` of the scale and bias
columns, which the emulator does not offer: the port runs those shapes through the kernel's own per-row branch (GM
GetValue, Muls, Adds), the same arithmetic (one rounding each), so the same results. The original's last tile is
`count % tileDataNum` elements, 0 when the count is a whole number of tiles: its DataCopyPads of 0 bytes and its
0-count Mul / Add are NOPs (SPEC-2 D30 and the DataCopyPad parameter rules), so that whole tile of y is never
written; the port takes a full tile there. `zero_tail=True` runs the original's form (tests/test_port47c_kernels.py
shows y's tile left as it was).

Devices: the operator's config is the ascend910b: the port runs on the A3 and A2.

Fidelity: BIT-EXACT (Mul, Add, Muls, Adds, Cast, DataCopyPad; SPEC-2 0.3); bfloat16's products are rounded to
bfloat16 before the bias is added, as the original does.
"""
import ml_dtypes
import numpy as np

import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

CORE_NUM = 8                       # deviation: the launch's cores (GetCoreNum in the original)
BLOCK_SIZE = 32
TYPE_SIZE = {"float": 4, "half": 2, "bfloat16": 2}
_NP = {"float": np.float32, "half": np.float16, "bfloat16": ml_dtypes.bfloat16}
DEVICES = ("atlas-a3", "atlas-a2")


def tiling(device, x_shape, scale_shape, dtype, axis=1, num_axes=1, scale_from_blob=True, core_num=CORE_NUM):
    """TilingFunc: (block dim, tiling key, tiling data)."""
    ndim = len(x_shape)
    start = axis + ndim if axis < 0 else axis
    if scale_from_blob:
        end = ndim if num_axes == -1 else start + num_axes
    else:
        end = start + len(scale_shape)
    ub_blocks = aj.get_device(device).ub_bytes // BLOCK_SIZE
    size = TYPE_SIZE[dtype]
    inner = outer = 1
    if end == ndim:
        batch = int(np.prod(x_shape)) if start == 0 else int(np.prod(x_shape[:start]))
        inner = 1 if start == 0 else int(np.prod(x_shape[start:end]))
        key = 0 if start == 0 else 1
        tile_blocks = ub_blocks // (4 if dtype in ("float", "half") else 10)
    else:
        batch = int(np.prod(x_shape[:end]))
        inner = int(np.prod(x_shape[end:]))
        outer = int(np.prod(x_shape[start:end]))
        key = 2
        tile_blocks = ub_blocks // (4 if dtype == "bfloat16" else 3)
    tile = tile_blocks * BLOCK_SIZE // size
    use = min(batch, core_num)
    big_cores = batch % use
    small = batch // use
    big = small if big_cores == 0 else small + 1
    return use, key, dict(tileDataNum=tile, innerStride=inner, outerStride=outer, bigCoreNum=big_cores,
                          bigCoreProcessNum=big, smallCoreProcessNum=small)


def _last(count, tile, zero_tail):
    """The last tile's count: `count % tile` in the original (0 for whole tiles: the deviation takes a tile)."""
    r = count % tile
    return tile if (r == 0 and not zero_tail) else r


class _ScaleBase:
    def __init__(self, T, td, zero_tail):
        self.T, self.zero_tail = T, zero_tail
        self.tileDataNum = td["tileDataNum"]
        self.innerStride = td["innerStride"]
        self.outerStride = td["outerStride"]
        core = aj.GetBlockIdx()
        self.globalBufferIndex = core * td["bigCoreProcessNum"]
        if core < td["bigCoreNum"]:
            self.processNum = td["bigCoreProcessNum"]
        else:
            self.processNum = td["smallCoreProcessNum"]
            self.globalBufferIndex -= (td["bigCoreProcessNum"] - td["smallCoreProcessNum"]) * (core - td["bigCoreNum"])

    def _params(self, n):
        return (aj.DataCopyExtParams(1, n * TYPE_SIZE[self.T], 0, 0, 0),
                aj.DataCopyPadExtParams(False, 0, 0, _NP[self.T](0)))

    def _queues(self, pipe, names):
        for name in names:
            q = aj.TQue(aj.QuePosition.VECOUT if name == "Qout" else aj.QuePosition.VECIN, 1)
            pipe.InitBuffer(q, 1, self.tileDataNum * TYPE_SIZE[self.T])
            setattr(self, name, q)

    def _float_bufs(self, pipe, names):
        for name in names:
            b = aj.TBuf(aj.QuePosition.VECCALC)
            pipe.InitBuffer(b, self.tileDataNum * 4)
            setattr(self, name, b)

    def _bf16_mul_add(self, out, inp, in_f, scale_f, bias_f, n, scalar=False):
        """bfloat16: the product in float rounded to bfloat16 (CAST_RINT) and back, then the bias in float."""
        aj.Cast(in_f, inp, aj.RoundMode.CAST_NONE, n)
        if scalar:
            aj.Muls(in_f, in_f, scale_f, n)
        else:
            aj.Mul(in_f, in_f, scale_f, n)
        aj.Cast(inp, in_f, aj.RoundMode.CAST_RINT, n)
        aj.Cast(in_f, inp, aj.RoundMode.CAST_NONE, n)
        if scalar:
            aj.Adds(in_f, in_f, bias_f, n)
        else:
            aj.Add(in_f, in_f, bias_f, n)
        aj.Cast(out, in_f, aj.RoundMode.CAST_RINT, n)


class ScaleKernel0(_ScaleBase):
    """`ScaleKernel_0<T>`: scale and bias of x's shape, element ranges a core."""

    def Init(self, inp, scale, bias, output, pipe):
        T, g, n = self.T, self.globalBufferIndex, self.processNum
        self.inputGm, self.scaleGm, self.biasGm, self.outputGm = (aj.GlobalTensor(T) for _ in range(4))
        self.inputGm.SetGlobalBuffer(inp[g:], n)
        self.scaleGm.SetGlobalBuffer(scale[g:], n)
        self.biasGm.SetGlobalBuffer(bias[g:], n)
        self.outputGm.SetGlobalBuffer(output[g:], n)
        self._queues(pipe, ("Qin_input", "Qin_scale", "Qin_bias", "Qout"))
        if T == "bfloat16":
            self._float_bufs(pipe, ("B_input", "B_scale", "B_bias"))

    def Process(self):
        T, tile = self.T, self.tileDataNum
        count = -(-self.processNum // tile)
        n = tile
        for i in range(count):
            if i == count - 1:
                n = _last(self.processNum, tile, self.zero_tail)
            cp, pad = self._params(n)
            inp, sc, bi = self.Qin_input.AllocTensor(T), self.Qin_scale.AllocTensor(T), self.Qin_bias.AllocTensor(T)
            aj.DataCopyPad(inp, self.inputGm[i * tile], cp, pad)
            aj.DataCopyPad(sc, self.scaleGm[i * tile], cp, pad)
            aj.DataCopyPad(bi, self.biasGm[i * tile], cp, pad)
            self.Qin_input.EnQue(inp)
            self.Qin_scale.EnQue(sc)
            self.Qin_bias.EnQue(bi)
            inp, sc, bi = self.Qin_input.DeQue(T), self.Qin_scale.DeQue(T), self.Qin_bias.DeQue(T)
            out = self.Qout.AllocTensor(T)
            if T == "bfloat16":
                in_f, sc_f, bi_f = self.B_input.Get("float"), self.B_scale.Get("float"), self.B_bias.Get("float")
                aj.Cast(sc_f, sc, aj.RoundMode.CAST_NONE, n)
                aj.Cast(bi_f, bi, aj.RoundMode.CAST_NONE, n)
                self._bf16_mul_add(out, inp, in_f, sc_f, bi_f, n)
            else:
                aj.Mul(out, inp, sc, n)
                aj.Add(out, out, bi, n)
            self.Qout.EnQue(out)
            out = self.Qout.DeQue(T)
            aj.DataCopyPad(self.outputGm[i * tile], out, cp)
            self.Qin_input.FreeTensor(inp)
            self.Qin_scale.FreeTensor(sc)
            self.Qin_bias.FreeTensor(bi)
            self.Qout.FreeTensor(out)


class ScaleKernel1(_ScaleBase):
    """`ScaleKernel_1<T>`: scale over the trailing axes; per scale tile, every row of the core against it."""

    def Init(self, inp, scale, bias, output, pipe):
        T, g, n, s = self.T, self.globalBufferIndex, self.processNum, self.innerStride
        self.inputGm, self.scaleGm, self.biasGm, self.outputGm = (aj.GlobalTensor(T) for _ in range(4))
        self.inputGm.SetGlobalBuffer(inp[g * s:], n * s)
        self.scaleGm.SetGlobalBuffer(scale)
        self.biasGm.SetGlobalBuffer(bias)
        self.outputGm.SetGlobalBuffer(output[g * s:], n * s)
        self._queues(pipe, ("Qin_input", "Qin_scale", "Qin_bias", "Qout"))
        if T == "bfloat16":
            self._float_bufs(pipe, ("B_input", "B_scale", "B_bias"))

    def Process(self):
        T, tile, s = self.T, self.tileDataNum, self.innerStride
        count = -(-s // tile)
        n = tile
        for i in range(count):
            if i == count - 1:
                n = _last(s, tile, self.zero_tail)
            cp, pad = self._params(n)
            sc, bi = self.Qin_scale.AllocTensor(T), self.Qin_bias.AllocTensor(T)
            aj.DataCopyPad(sc, self.scaleGm[i * tile], cp, pad)
            aj.DataCopyPad(bi, self.biasGm[i * tile], cp, pad)
            self.Qin_scale.EnQue(sc)
            self.Qin_bias.EnQue(bi)
            sc, bi = self.Qin_scale.DeQue(T), self.Qin_bias.DeQue(T)
            if T == "bfloat16":
                sc_f, bi_f = self.B_scale.Get("float"), self.B_bias.Get("float")
                aj.Cast(sc_f, sc, aj.RoundMode.CAST_NONE, n)
                aj.Cast(bi_f, bi, aj.RoundMode.CAST_NONE, n)
            for j in range(self.processNum):
                inp = self.Qin_input.AllocTensor(T)
                aj.DataCopyPad(inp, self.inputGm[j * s + i * tile], cp, pad)
                self.Qin_input.EnQue(inp)
                inp = self.Qin_input.DeQue(T)
                out = self.Qout.AllocTensor(T)
                if T == "bfloat16":
                    self._bf16_mul_add(out, inp, self.B_input.Get("float"), sc_f, bi_f, n)
                else:
                    aj.Mul(out, inp, sc, n)
                    aj.Add(out, out, bi, n)
                self.Qout.EnQue(out)
                out = self.Qout.DeQue(T)
                aj.DataCopyPad(self.outputGm[j * s + i * tile], out, cp)
                self.Qin_input.FreeTensor(inp)
                self.Qout.FreeTensor(out)
            self.Qin_scale.FreeTensor(sc)
            self.Qin_bias.FreeTensor(bi)


class ScaleKernel2(_ScaleBase):
    """`ScaleKernel_2<T>`: scale over middle axes; per row a scalar scale and bias by GM GetValue."""

    def Init(self, inp, scale, bias, output, pipe):
        T, g, n, s = self.T, self.globalBufferIndex, self.processNum, self.innerStride
        self.inputGm, self.scaleGm, self.biasGm, self.outputGm = (aj.GlobalTensor(T) for _ in range(4))
        self.inputGm.SetGlobalBuffer(inp[g * s:], n * s)
        self.scaleGm.SetGlobalBuffer(scale, self.outerStride)
        self.biasGm.SetGlobalBuffer(bias, self.outerStride)
        self.outputGm.SetGlobalBuffer(output[g * s:], n * s)
        self._queues(pipe, ("Qin_input", "Qout"))
        if T == "bfloat16":
            self._float_bufs(pipe, ("B_input",))
        # the float / half Broadcast branch's Qin_broad is not made: that branch is not ported (the deviation)

    def Process(self):
        T, tile, s = self.T, self.tileDataNum, self.innerStride
        for i in range(self.processNum):
            idx = (i + self.globalBufferIndex) % self.outerStride
            scale, bias = self.scaleGm.GetValue(idx), self.biasGm.GetValue(idx)
            if T == "bfloat16":
                scale, bias = aj.ToFloat(scale), aj.ToFloat(bias)
            count = -(-s // tile)
            n = tile
            for j in range(count):
                if j == count - 1:
                    n = _last(s, tile, self.zero_tail)
                cp, pad = self._params(n)
                inp = self.Qin_input.AllocTensor(T)
                aj.DataCopyPad(inp, self.inputGm[i * s + j * tile], cp, pad)
                self.Qin_input.EnQue(inp)
                inp = self.Qin_input.DeQue(T)
                out = self.Qout.AllocTensor(T)
                if T == "bfloat16":
                    self._bf16_mul_add(out, inp, self.B_input.Get("float"), scale, bias, n, scalar=True)
                else:
                    aj.Muls(out, inp, scale, n)
                    aj.Adds(out, out, bias, n)
                self.Qout.EnQue(out)
                out = self.Qout.DeQue(T)
                aj.DataCopyPad(self.outputGm[i * s + j * tile], out, cp)
                self.Qin_input.FreeTensor(inp)
                self.Qout.FreeTensor(out)


def scale_kernel(inp, scale, bias, output, workspace, td, tiling_key, T, zero_tail=False):
    """The kernel entry (scale.cpp): a caller-made TPipe, TILING_KEY_IS(0 / 1 / 2)."""
    pipe = aj.TPipe()
    op = (ScaleKernel0, ScaleKernel1, ScaleKernel2)[tiling_key](T, td, zero_tail)
    op.Init(inp, scale, bias, output, pipe)
    op.Process()


def _dtype_name(arr):
    return {np.dtype(v): k for k, v in _NP.items()}[arr.dtype]


def run_scale(device, x, scale, bias, axis=1, num_axes=1, scale_from_blob=True, zero_tail=False):
    T = _dtype_name(x)
    block_dim, key, td = tiling(device, x.shape, scale.shape, T, axis, num_axes, scale_from_blob)
    y = np.zeros(x.size, x.dtype)
    aj.launch(scale_kernel, block_dim, device, np.ascontiguousarray(x).reshape(-1),
              np.ascontiguousarray(scale).reshape(-1), np.ascontiguousarray(bias).reshape(-1), y, None, td, key, T,
              zero_tail)
    return y.reshape(x.shape)


def _broadcast_shape(x_shape, scale, axis):
    start = axis + len(x_shape) if axis < 0 else axis
    return scale.reshape((1,) * start + scale.shape + (1,) * (len(x_shape) - start - scale.ndim))


def scale_model(x, scale, bias, axis=1):
    """One rounding for the product and one for the sum, in the type (bfloat16: in float, the product rounded to
    bfloat16 first, then the float sum rounded to bfloat16)."""
    s, b = _broadcast_shape(x.shape, scale, axis), _broadcast_shape(x.shape, bias, axis)
    with np.errstate(all="ignore"):
        if x.dtype == ml_dtypes.bfloat16:
            p = (x.astype(np.float32) * s.astype(np.float32)).astype(ml_dtypes.bfloat16).astype(np.float32)
            return (p + b.astype(np.float32)).astype(ml_dtypes.bfloat16)
        return ((x * s).astype(x.dtype) + b).astype(x.dtype)


def scale_formula(x, scale, bias, axis=1):
    s, b = _broadcast_shape(x.shape, scale, axis), _broadcast_shape(x.shape, bias, axis)
    return x.astype(np.float64) * s.astype(np.float64) + b.astype(np.float64)


# the gallery's cases: (x shape from the size, scale's axis, its number of axes)
def _shape(size, case):
    if case == "same":
        return (size,), 0, -1
    if case == "trailing":
        return (size // 1000, 1000), 1, 1
    return (3, size // 3000, 1000), 1, 1


def _make_inputs(T, case):
    def make_inputs(size, seed):
        rng = np.random.default_rng(seed)
        shape, axis, num_axes = _shape(size, case)
        start = axis
        end = len(shape) if num_axes == -1 else start + num_axes
        x = rng.uniform(-10, 10, shape).astype(np.float32).astype(_NP[T])
        s = rng.uniform(-2, 2, shape[start:end]).astype(np.float32).astype(_NP[T])
        b = rng.uniform(-1, 1, shape[start:end]).astype(np.float32).astype(_NP[T])
        return {"x": x, "scale": s, "bias": b}
    return make_inputs


def _run(case):
    def run(device, inputs):
        _, axis, num_axes = _shape(inputs["x"].size, case)
        return {"y": run_scale(device, inputs["x"], inputs["scale"], inputs["bias"], axis, num_axes)}
    return run


def _expected(case):
    def expected(device, inputs):
        _, axis, _ = _shape(inputs["x"].size, case)
        return {"y": scale_model(inputs["x"], inputs["scale"], inputs["bias"], axis)}
    return expected


_SOURCE = ("hicann/cann-ops-competitions@45b8fda0 01_official/operator-challenge/cann-ops-challenge-S8/submissions/"
           "Scale/HustAga/op_kernel/scale.cpp")
KERNELS = [
    KernelSpec(f"scale{suffix}", description, _make_inputs(T, case), _run(case), _expected(case),
               default_size=size, devices=DEVICES, source=_SOURCE, size_rule=rule or "any positive size",
               size_ok=(lambda n: n > 0) if rule is None else (lambda n, m=multiple: n > 0 and n % m == 0))
    for suffix, T, case, size, multiple, rule, description in (
        ("", "float", "same", 100003, 1, None, "Scale over floats, scale of x's shape (competition entry; key 0): "
         "big/small element ranges, three DataCopyPads a tile, Mul, Add"),
        ("_trailing_half", "half", "trailing", 100000, 1000, "a multiple of 1000 (rows of 1000)", "Scale over halves, "
         "scale over the last axis (key 1): the scale's tile copied once, every row of the core against it"),
        ("_middle_bf16", "bfloat16", "middle", 30000, 3000, "a multiple of 3000 (3 x n x 1000)", "Scale over bfloat16, "
         "scale over a middle axis (key 2): per row GM GetValue and ToFloat, Casts, Muls, Cast CAST_RINT and back, "
         "Adds, Cast CAST_RINT"))
]
