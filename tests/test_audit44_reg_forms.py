"""Audit 44r: the call forms of the Ascend 950 Reg API as a port of Ascend C (arch35) code writes them.

Audited against docs/SPEC-2.md 11 (11.1 conventions, 11.2-11.7 every function), 12.8 (Reg golden vectors) and 14
(what is not offered), docs/SPEC.md 7, /work/shared/DESIGN.md 2 and 6, and docs/decisions.md ("Reg API", "Reg
Arange", "Reg DataCopy names", "Reg Div modes", "Reg MaskReg names", "Reg Copy", "Reg MaskRegs made in a VF", ...).

Each test runs ONE body twice, plain (inside `with core:`) and compiled (`@R.simd_vf`), on two cores whose whole UB
starts from the same random bytes, and asserts: both accepted, the whole UB byte-identical between the runs, the
result equal to a numpy model written here from the SPEC text, and no `aj.UncompiledVFWarning` for the compiled run.
Refusals: the same AscendJitError subclass in both runs, naming the API and the parameter, with the UB unchanged.

The forms aimed at are the ones the earlier audits (test_reg*.py, audit36/37/43/44) do not combine: positional
merge modes and int enum values, keyword names, dtype spellings ("half"/"float16"/np.float16/np.dtype), tensor[i]
sub-tensors against the offset argument, masks from UpdateMask/CreateMask/MaskReg operations, the old names,
run-time dtype arguments, simd_callee, asc_vf_call, explicit None defaults, tensor tails, aliased operands.
No test here is named test_found_*: every form tried behaved as the contract says, plain and compiled alike.
"""
import warnings

import numpy as np
import pytest

import ascend_jit as aj

# about 70 s cold for forms the default suite's Reg tests already reach one by one: run with the slow suite
pytestmark = pytest.mark.slow

R = aj.Reg
Z, MG = R.MaskMergeMode.ZEROING, R.MaskMergeMode.MERGING


# ----------------------------------------------------------------------------------------------------------------
# Harness
# ----------------------------------------------------------------------------------------------------------------
class Run:
    """The result of one body run plain and compiled: UB before/after and the tensors' addresses."""

    def __init__(self, before, after, addrs, decls, ret):
        self.before, self.after, self.addrs, self.decls, self.ret = before, after, addrs, decls, ret

    def _view(self, ub, i):
        dt, n = self.decls[i][0], self.decls[i][1]
        size = aj.sizeof(dt)
        npdt = {"half": np.float16, "float": np.float32}.get(dt, dt)
        return ub[self.addrs[i]:self.addrs[i] + n * size].view(npdt).copy()

    def pre(self, i):
        return self._view(self.before, i)

    def post(self, i):
        return self._view(self.after, i)


def _fresh(decls, seed, setup=None):
    core = aj.Core("ascend950")
    core.ub[:] = np.random.default_rng(seed).integers(0, 256, core.ub.size, dtype=np.uint8)
    ts = []
    for d in decls:
        t = core.local_tensor(d[0], d[1])
        if len(d) > 2 and d[2] is not None:
            t[:] = np.asarray(d[2])
        ts.append(t)
    if setup is not None:
        setup(core)
    return core, ts


def both(fn):
    fn.vf = R.simd_vf(fn)
    return fn


def run(body, decls, args=(), seed=0, setup=None):
    """Run body plain and compiled; assert identical UB and no UncompiledVFWarning; return a Run."""
    results = []
    for compiled in (False, True):
        core, ts = _fresh(decls, seed, setup)
        before = core.ub.copy()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with core:
                ret = (body.vf if compiled else body.vf.py_func)(*ts, *args)
        unc = [str(x.message) for x in w if issubclass(x.category, aj.UncompiledVFWarning)]
        assert not unc, f"{body.__name__} compiled ran plain: {unc[0][:600]}"
        results.append((before, core.ub.copy(), [t.GetPhyAddr() for t in ts], ret))
    (b0, a0, ad0, r0), (b1, a1, ad1, r1) = results
    assert np.array_equal(b0, b1) and ad0 == ad1
    diff = np.nonzero(a0 != a1)[0]
    assert diff.size == 0, f"{body.__name__}: UB differs plain vs compiled at bytes {diff[:10]}"
    assert r0 == r1 or (r0 is None and r1 is None), (r0, r1)
    return Run(b0, a0, ad0, decls, r0)


def refused_alike(body, decls, args, cls, api, param, seed=1, setup=None, unchanged=True):
    """Both runs raise cls naming api and param, UB unchanged (or, unchanged=False, the same in both runs)."""
    msgs, ubs = [], []
    for compiled in (False, True):
        core, ts = _fresh(decls, seed, setup)
        before = core.ub.copy()
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            with core:
                with pytest.raises(aj.AscendJitError) as ei:
                    (body.vf if compiled else body.vf.py_func)(*ts, *args)
        assert type(ei.value) is cls, f"{compiled=}: {type(ei.value).__name__}: {ei.value}"
        msg = str(ei.value)
        assert api in msg and param in msg, f"{compiled=}: {msg}"
        assert not unchanged or np.array_equal(core.ub, before), f"{compiled=}: UB changed by a refused call"
        msgs.append(msg)
        ubs.append(core.ub.copy())
    assert np.array_equal(ubs[0], ubs[1])
    return msgs


# inputs: quarter-integer floats, nonzero, so every op below but Div is exact in float32
RNG = np.random.default_rng(44)
XF = (RNG.integers(1, 33, 128) * RNG.choice([-1, 1], 128) / 4).astype(np.float32)
YF = (RNG.integers(1, 33, 128) * RNG.choice([-1, 1], 128) / 4).astype(np.float32)
WF = (RNG.integers(-32, 33, 64) / 4).astype(np.float32)
SQ = (RNG.integers(0, 200, 64) ** 2).astype(np.float32)
FL = 64
ACT40 = np.arange(FL) < 40                       # UpdateMask("float", 40)
M3 = np.arange(FL) % 3 == 0                      # CreateMask(.., M3)


# ----------------------------------------------------------------------------------------------------------------
# 1. Arithmetic (SPEC-2 11.2, decisions "Reg API" issue 8 and issue 16/18): modes positional / keyword / int
# ----------------------------------------------------------------------------------------------------------------
@both
def _arith(x, y, w, sq, out):
    a = R.RegTensor("float")
    b = R.RegTensor("float32")
    o = R.RegTensor(np.float32)
    s = R.RegTensor(np.dtype("float32"))
    full = R.CreateMask("float")
    m, rest = R.UpdateMask("float", 40)
    m3 = R.CreateMask("float", R.MaskPattern.M3)
    R.LoadAlign(a, x)
    R.LoadAlign(b, y[64], 0)                                 # sub-tensor
    R.LoadAlign(s, sq, offset=0)
    k = 0
    R.LoadAlign(o, w)
    R.Add(o, a, b, m, R.MaskMergeMode.MERGING)               # 0 positional MERGING
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.Add(o, a, b, mask=m3, mode=1)                          # 1 int MERGING, keywords
    R.StoreAlign(out[k * 64], o, full)
    k += 1
    R.LoadAlign(o, w)
    R.Sub(o, a, b, m)                                        # 2 ZEROING default
    R.StoreAlign(out, o, mask=full, offset=k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.Mul(o, a, b, m3, Z)                                    # 3
    R.StoreAlign(out, o, full, offset=k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.Max(o, a, b, m, mode=MG)                               # 4
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.Min(o, a, b, m3, 0)                                    # 5
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.Div(o, a, b, m, R.DivSpecificMode(R.MaskMergeMode.ZEROING, True, aj.DivAlgo.PRECISION_0ULP_FTZ_TRUE))  # 6
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.Adds(o, a, 1.5, m)                                     # 7
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.Muls(o, a, scalar=-2.0, mask=m3, mode=R.MaskMergeMode.ZEROING)   # 8
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.Maxs(o, a, 0.5, m, 0)                                  # 9
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.Mins(o, a, 2, m)                                       # 10 an int scalar for a float register (D29)
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.LeakyRelu(o, a, 0.25, mask=m)                          # 11
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.Abs(o, a, m)                                           # 12
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.Relu(o, a, mask=m3)                                    # 13
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.Neg(o, a, m, R.MaskMergeMode.ZEROING)                  # 14
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.Sqrt(o, s, m)                                          # 15
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.MulAddDst(o, a, b, m)                                  # 16 o = a*b + o
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.MulDstAdd(o, a, b, mask=m)                             # 17 o = o*a + b
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.Axpy(o, a, 0.5, m)                                     # 18 o = 0.5*a + o
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.AbsSub(o, a, b, m3)                                    # 19
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LoadAlign(o, w)
    R.Prelu(o, a, b, m, mode=R.MaskMergeMode.ZEROING)        # 20
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.PairReduceElem(o, a, m)                                # 21
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.ReduceDataBlock(o, a, m3, R.ReduceType.SUM)            # 22
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.Reduce(o, a, m, R.ReduceType.MAX)                      # 23
    R.StoreAlign(out, o, full, k * 64)
    k += 1
    R.LocalMemBar(R.MemType.VEC_STORE, R.MemType.VEC_LOAD)
    R.LocalMemBar()
    R.LocalMemBar(before=R.MemType.VEC_ALL, after=R.MemType.VEC_ALL)
    return k, rest


def test_arith_forms_float():
    r = run(_arith, [("float", 128, XF), ("float", 128, YF), ("float", 64, WF), ("float", 64, SQ),
                     ("float", 24 * 64)])
    assert r.ret == (24, 0)
    a, b, w, s = XF[:64], YF[64:], WF, SQ
    out = r.post(4).reshape(24, 64)
    f32 = np.float32

    def sel(mask, val, merge=False):
        return np.where(mask, val, w if merge else f32(0)).astype(f32)

    exp = [sel(ACT40, a + b, True), sel(M3, a + b, True), sel(ACT40, a - b), sel(M3, a * b),
           sel(ACT40, np.maximum(a, b), True), sel(M3, np.minimum(a, b)), sel(ACT40, a / b),
           sel(ACT40, a + f32(1.5)), sel(M3, a * f32(-2)), sel(ACT40, np.maximum(a, f32(0.5))),
           sel(ACT40, np.minimum(a, f32(2))), sel(ACT40, np.where(a < 0, a * f32(0.25), a)),
           sel(ACT40, np.abs(a)), sel(M3, np.maximum(a, f32(0))), sel(ACT40, -a), sel(ACT40, np.sqrt(s)),
           sel(ACT40, a * b + w), sel(ACT40, w * a + b), sel(ACT40, f32(0.5) * a + w), sel(M3, np.abs(a - b)),
           sel(ACT40, np.where(a < 0, a * b, a))]
    pr = np.zeros(64, f32)
    aa = np.where(ACT40, a, f32(0))
    pr[:32] = aa[0::2] + aa[1::2]
    exp.append(pr)
    rdb = np.zeros(64, f32)
    am = np.where(M3, a, f32(0)).reshape(8, 8)
    for blk in range(8):                                          # adjacent-pair tree, exact here
        rdb[blk] = am[blk].sum()
    exp.append(rdb)
    red = np.zeros(64, f32)
    act = np.where(ACT40)[0]
    red[0] = a[act].max()
    red.view(np.int32)[1] = act[np.argmax(a[act])]
    exp.append(red)
    for k, e in enumerate(exp):
        assert np.array_equal(out[k].view(np.uint32), e.view(np.uint32)), (k, out[k], e)


# ----------------------------------------------------------------------------------------------------------------
# 2. Integer forms: carry, Duplicate, Arange, Reduce names, shifts, Copy/Move/Select on registers
# ----------------------------------------------------------------------------------------------------------------
U32A = np.r_[np.full(8, 0xFFFFFFFF), np.full(8, 0x7FFFFFFF), np.arange(48) * 977 + 5].astype(np.uint32)
U32B = np.r_[np.full(8, 1), np.full(8, 1), np.arange(48) * 1201 + 7].astype(np.uint32)
I16 = (np.random.default_rng(5).integers(-3000, 3000, 128)).astype(np.int16)
I32W = np.random.default_rng(6).integers(-2 ** 31, 2 ** 31, 64).astype(np.int32)


@both
def _ints(u, v, s16, w32, out, mb):
    a = R.RegTensor("uint32")
    b = R.RegTensor("uint32")
    c = R.RegTensor("uint32")
    carry = R.MaskReg()
    borrow = R.MaskReg()
    full32 = R.CreateMask("uint32")
    m40, _ = R.UpdateMask("uint32", 40)
    R.LoadAlign(a, u)
    R.LoadAlign(b, v)
    R.Add(carry, c, a, b, m40)                                # carry form
    R.StoreAlign(out, c, full32, 0)
    R.StoreAlign(mb, carry, 0)
    R.Sub(borrow, c, a, b, full32)
    R.StoreAlign(out, c, full32, 64)
    R.StoreAlign(mb, borrow, 32, dist=R.MaskDist.DIST_NORM)
    d = R.RegTensor("int32")
    R.LoadAlign(d, w32)
    R.Duplicate(d, 7, m40, R.MaskMergeMode.MERGING)           # scalar, mask, positional mode
    R.StoreAlign(out, d, full32, 128)
    R.LoadAlign(d, w32)
    R.Duplicate(d, scalar=-9, mask=m40)                       # keywords, ZEROING
    R.StoreAlign(out, d, full32, 192)
    e = R.RegTensor("int32")
    R.Arange(e, 100)
    R.LoadAlign(d, w32)
    R.Duplicate(d, e, R.CreateMask("int32", R.MaskPattern.VL16), mode=1)     # register form, MERGING
    R.StoreAlign(out, d, full32, 256)
    R.Duplicate(d, src_reg=e, mask=full32)                    # keyword register form
    R.StoreAlign(out, d, full32, 320)
    R.Arange(e, scalar=-3, order=R.IndexOrder.INCREASE_ORDER)
    R.StoreAlign(out, e, full32, 384)
    R.Duplicate(e, 11)                                        # every lane
    R.StoreAlign(out, e, full32, 448)
    h = R.RegTensor("int16")
    R.LoadAlign(h, s16)
    full16 = R.CreateMask("int16")
    m100, _ = R.UpdateMask("int16", 100)
    R.Reduce(d, h, m100)                                      # SUM int16 -> int32
    R.StoreAlign(out, d, full32, 512)
    g = R.RegTensor("int16")
    R.Reduce(g, h, m100, reduce_type=2)                       # MIN, int value
    R.StoreAlign(out[576], g, full16)                         # 128 int16 = 64 int32 slots
    R.ReduceMax(g, h, full16)
    R.StoreAlign(out[640], g, full16)
    R.ReduceSum(d, h, full16)
    R.StoreAlign(out, d, full32, 704)
    R.ReduceMin(g, h, m100, R.MaskMergeMode.ZEROING)
    R.StoreAlign(out, g, full16, 768)
    R.ReduceDataBlock(g, h, full16, reduce_type=R.ReduceType.MAX)
    R.StoreAlign(out, g, full16, 832)
    R.ShiftLefts(g, h, 3, m100)
    R.StoreAlign(out, g, full16, 896)
    R.ShiftRights(g, h, scalar=2, mask=full16, mode=R.MaskMergeMode.ZEROING)
    R.StoreAlign(out, g, full16, 960)
    q = R.RegTensor("int16")
    R.Duplicate(q, -1)
    R.Copy(q, h, m100)                                        # masked copy merges
    R.StoreAlign(out, q, full16, 1024)
    R.Duplicate(q, -1)
    R.Move(q, h, R.CreateMask("int16", R.MaskPattern.M4))     # Move on data registers is Copy
    R.StoreAlign(out, q, full16, 1088)
    R.Copy(q, h)
    R.Adds(q, q, 1, full16)
    R.Select(g, q, h, m100)
    R.StoreAlign(out, g, full16, 1152)
    R.Muls(g, h, 3, m100, 0)
    R.StoreAlign(out, g, full16, 1216)


def test_integer_forms():
    r = run(_ints, [("uint32", 64, U32A), ("uint32", 64, U32B), ("int16", 128, I16), ("int32", 64, I32W),
                    ("int32", 1280), ("uint8", 64)])
    out = r.post(4)
    mb = np.unpackbits(r.post(5), bitorder="little")
    a, b = U32A.astype(np.int64), U32B.astype(np.int64)
    act = np.arange(64) < 40
    s = (a + b)
    assert np.array_equal(out[:64].view(np.uint32), np.where(act, s % 2 ** 32, 0).astype(np.uint32))
    carry = np.zeros(256, np.uint8)
    carry[0::4] = act & (s >= 2 ** 32)
    assert np.array_equal(mb[:256], carry), "SPEC-2 11.2/G-3: carry of lane k is bit 4k, inactive lanes 0"
    assert np.array_equal(out[64:128].view(np.uint32), ((a - b) % 2 ** 32).astype(np.uint32))
    borrow = np.zeros(256, np.uint8)
    borrow[0::4] = a >= b
    assert np.array_equal(mb[256:], borrow)
    assert np.array_equal(out[128:192], np.where(act, 7, I32W))
    assert np.array_equal(out[192:256], np.where(act, -9, 0))
    assert np.array_equal(out[256:320], np.where(np.arange(64) < 16, 100, I32W))
    assert np.array_equal(out[320:384], np.full(64, 100))
    assert np.array_equal(out[384:448], np.arange(64) - 3)
    assert np.array_equal(out[448:512], np.full(64, 11))
    h = I16.astype(np.int64)
    act16 = np.arange(128) < 100
    e = np.zeros(64, np.int64)
    e[0] = h[act16].sum()
    assert np.array_equal(out[512:576], e)
    g = out[576:640].view(np.int16)
    hm = h[:100]
    assert g[0] == hm.min() and g[1] == np.argmin(hm) and not g[2:].any()
    g = out[640:704].view(np.int16)
    assert g[0] == h.max() and g[1] == np.argmax(h) and not g[2:].any()
    assert out[704] == h.sum() and not out[705:768].any()
    g = out[768:832].view(np.int16)
    assert g[0] == hm.min() and g[1] == np.argmin(hm) and not g[2:].any()
    g = out[832:896].view(np.int16)
    assert np.array_equal(g[:8], h.reshape(8, 16).max(axis=1)) and not g[8:].any()
    g = out[896:960].view(np.int16)
    assert np.array_equal(g, np.where(act16, (h << 3), 0).astype(np.int16))     # |h| < 3000: no overflow
    g = out[960:1024].view(np.int16)
    assert np.array_equal(g, (h >> 2).astype(np.int16))
    assert np.array_equal(out[1024:1088].view(np.int16), np.where(act16, h, -1))
    assert np.array_equal(out[1088:1152].view(np.int16), np.where(np.arange(128) % 4 == 0, h, -1))
    assert np.array_equal(out[1152:1216].view(np.int16), np.where(act16, h + 1, h))
    assert np.array_equal(out[1216:1280].view(np.int16), np.where(act16, h * 3, 0))


# ----------------------------------------------------------------------------------------------------------------
# 3. Cast (SPEC-2 11.5, D65): trait positional / keyword / default, layouts, a PACK store after narrowing
# ----------------------------------------------------------------------------------------------------------------
HX = (np.random.default_rng(7).integers(-2000, 2000, 128) / 8).astype(np.float16)


@both
def _casts(hx, out, outh):
    h = R.RegTensor("float16")
    f = R.RegTensor("float")
    i = R.RegTensor("int32")
    R.LoadAlign(h, hx)
    mh = R.CreateMask("half")
    ff = R.CreateMask("float")
    R.Cast(f, h, mh, R.CastTrait(R.RegLayout.ZERO))                       # positional trait, other fields default
    R.StoreAlign(out, f, ff, 0)
    R.Cast(f, h, mh, trait=R.CastTrait(2))                                # layout ONE (value 2): odd lanes
    R.StoreAlign(out, f, ff, 64)
    R.Cast(f, h, mask=mh, trait=R.CastTrait(layoutMode=R.RegLayout.ZERO, satMode=R.SatMode.UNKNOWN,
                                            mrgMode=R.MaskMergeMode.ZEROING, roundMode=R.RoundMode.UNKNOWN))
    R.StoreAlign(out, f, ff, 128)
    R.Cast(i, f, ff, R.CastTrait(R.RegLayout.UNKNOWN, R.SatMode.SAT, R.MaskMergeMode.ZEROING,
                                 R.RoundMode.CAST_FLOOR))
    R.StoreAlign(out, i, ff, 192)
    R.Muls(f, f, 0.5, ff)
    R.Cast(h, f, ff, R.CastTrait(R.RegLayout.ZERO, R.SatMode.NO_SAT, R.MaskMergeMode.ZEROING, R.RoundMode.CAST_RINT))
    R.StoreAlign(outh, h, ff, 0, dist=R.StoreDist.DIST_PACK_B32)          # low halves of the 32-bit slots
    R.StoreAlign(outh, h, mh, 64)                                         # the whole narrow register


def test_cast_forms():
    r = run(_casts, [("half", 128, HX), ("float", 256), ("half", 192)])
    out = r.post(1)
    x = HX.astype(np.float32)
    for off, lay in ((0, 0), (64, 1), (128, 0)):
        assert np.array_equal(out[off:off + 64], x[lay::2]), (off, lay)
    i = out[192:256].view(np.int32)
    assert np.array_equal(i, np.floor(x[0::2]).astype(np.int32))
    oh = r.post(2)
    half = (x[0::2] * np.float32(0.5)).astype(np.float16)                 # exact: eighths, |x| < 250
    assert np.array_equal(oh[:64], half)
    wide = np.zeros(128, np.float16)
    wide[0::2] = half                                                     # D65: narrowing, other lanes 0
    assert np.array_equal(oh[64:192].view(np.uint16), wide.view(np.uint16))


# ----------------------------------------------------------------------------------------------------------------
# 4. MaskReg operations (SPEC-2 11.7, G-5, decisions "Reg MaskReg names")
# ----------------------------------------------------------------------------------------------------------------
def _bits(words):
    return np.unpackbits(np.asarray(words, np.uint64).view(np.uint8), bitorder="little")


@both
def _masks(mb, mbin):
    s = R.sizeof("half") + R.sizeof(np.float32) + R.GetVecLen()          # 2 + 4 + 256
    a, n = R.UpdateMask("float16", 100)                                 # 100 half lanes
    b = R.CreateMask(np.float16, R.MaskPattern.M3)
    c = R.CreateMask("half", pattern=R.MaskPattern.VL32)
    d = R.CreateMask("half", 13)                                        # Q as its int value
    e = R.MaskReg()
    R.And(e, a, b, c)
    R.StoreAlign(mb, e, 0)
    R.Or(e, a, b, mask=c)
    R.StoreAlign(mb, e, 32)
    R.Xor(e, a, d, a)
    R.StoreAlign(mb, e, 64)
    R.Not(e, a, d)
    R.StoreAlign(mb, e, 96)
    R.Select(e, b, c, a)
    R.StoreAlign(mb, e, 128)
    R.MaskSel(e, c, b, a)
    R.StoreAlign(mb, e, 160)
    R.Move(e, b)
    R.StoreAlign(mb, e, 192)
    R.Move(e, b, c)
    R.StoreAlign(mb, e, 224)
    R.Pack(e, b)
    R.StoreAlign(mb, e, 256)
    R.UnPack(e, c, part=R.HighLowPart.HIGHEST)
    R.StoreAlign(mb, e, 288)
    R.MaskUnPack(e, c, 1)
    R.StoreAlign(mb, e, 320)
    e2 = R.MaskReg()
    R.Interleave(e, e2, R.CreateMask("uint16"), R.CreateMask("uint16", R.MaskPattern.ALLF), "float16")
    R.StoreAlign(mb, e, 352)
    R.StoreAlign(mb, e2, 384)
    R.DeInterleave(e, e2, a, b, np.float16)
    R.StoreAlign(mb, e, 416)
    R.StoreAlign(mb, e2, 448)
    R.StoreAlign(mb, a, 480, dist=R.MaskDist.DIST_PACK)                  # 16 bytes
    g = R.MaskReg()
    R.LoadAlign(g, mbin, 0, dist=R.MaskDist.DIST_US)
    R.StoreAlign(mb, g, 512)
    R.LoadAlign(g, mbin, dist=R.MaskDist.DIST_DS)
    R.StoreAlign(mb, g, 544)
    R.LoadAlign(a, mbin[32])                                           # into an UpdateMask result (session 42)
    R.StoreAlign(mb, a, 576)
    return s, n


MBIN = np.random.default_rng(9).integers(0, 256, 64).astype(np.uint8)


def test_maskreg_forms():
    r = run(_masks, [("uint8", 608), ("uint8", 64, MBIN)])
    assert r.ret == (262, 0)
    mb = np.unpackbits(r.post(0), bitorder="little").reshape(19, 256)

    def lanebits(lanes, size=2):
        v = np.zeros(256, np.uint8)
        for j in lanes:
            v[j * size:(j + 1) * size] = 1
        return v
    a = lanebits(range(100))
    b = lanebits(range(0, 128, 3))
    c = lanebits(range(32))
    d = lanebits(range(32))                                             # Q: lowest quarter of 128 lanes
    exp = [a & b & c, (a | b) & c, (a ^ d) & a, (1 - a) & d, np.where(a == 1, b, c), np.where(a == 1, c, b), b,
           b & c]
    pk = np.zeros(256, np.uint8)
    pk[:128] = b[0::2]
    exp.append(pk)
    up = np.zeros(256, np.uint8)
    up[0::2] = c[128:]
    up[1::2] = 0
    exp += [up, up]
    exp += [np.tile([1, 1, 0, 0], 64).astype(np.uint8)] * 2               # G-5: bytes 0x33
    for k, e in enumerate(exp):
        assert np.array_equal(mb[k], e), k
    # DeInterleave (D64), checked as the inverse of Interleave: re-interleaving gives (a, b)
    d0, d1 = mb[13], mb[14]
    inter = np.r_[d0, d1].reshape(2, 128, 2).transpose(1, 0, 2).reshape(-1)       # b16 pairs alternate
    assert np.array_equal(inter, np.r_[a, b]), "DeInterleave<b16> is not Interleave's inverse"
    pack = np.unpackbits(r.post(0)[480:496], bitorder="little")
    assert np.array_equal(pack, a[0::2])
    src = np.unpackbits(MBIN, bitorder="little")
    assert np.array_equal(mb[16], np.repeat(src[:128], 2))
    assert np.array_equal(mb[17], src[0::2])
    assert np.array_equal(mb[18], src[256:512])


@both
def _movemask(mb):
    a = R.MoveMask("half")
    R.StoreAlign(mb, a, 0)
    b = R.MoveMask(np.float32)
    R.StoreAlign(mb, b, 32)
    e = R.MaskReg()
    R.Not(e, a, R.CreateMask("int8"))
    R.StoreAlign(mb[64], e)


def test_movemask_forms():
    """G-5: MoveMask(half) after SetVectorMask(hi=0, lo=0b101) -> bits 0, 1, 4, 5; MoveMask(float) -> 0..3, 8..11."""
    r = run(_movemask, [("uint8", 96)], setup=lambda core: (core.SetMaskNorm(), core.SetVectorMask(0, 0b101)))
    mb = np.unpackbits(r.post(0), bitorder="little").reshape(3, 256)
    exp0 = np.zeros(256, np.uint8)
    exp0[[0, 1, 4, 5]] = 1
    exp1 = np.zeros(256, np.uint8)
    exp1[[0, 1, 2, 3, 8, 9, 10, 11]] = 1
    assert np.array_equal(mb[0], exp0) and np.array_equal(mb[1], exp1) and np.array_equal(mb[2], 1 - exp0)


# ----------------------------------------------------------------------------------------------------------------
# 5. Loads and stores (SPEC-2 11.6, G-4; decisions "Reg DataCopy names"): dist forms, post-update, DATA_BLOCK_COPY,
#    unaligned, Load/Store, the old names, offsets given as sub-tensors, positionally or by keyword
# ----------------------------------------------------------------------------------------------------------------
XH = (np.arange(640) - 200).astype(np.float16)
XU = np.arange(1, 257).astype(np.uint16)


@both
def _moves(x, xu, z, zu):
    r = R.RegTensor("half")
    full = R.CreateMask("half")
    R.LoadAlign(r, x, 5, dist=R.LoadDist.DIST_BRC_B16)                    # 0: element 5 everywhere
    R.StoreAlign(z, r, full, 0)
    R.LoadAlign(r, x[16], dist=R.LoadDist.DIST_US_B16)                    # 1
    R.StoreAlign(z, r, full, 128)
    R.LoadAlign(r, x, offset=32, dist=7)                                  # 2: DIST_DS_B16 by value
    R.StoreAlign(z, r, full, 256)
    R.LoadAlign(r, x, 48, dist=R.LoadDist.DIST_BLK)                       # 3
    R.StoreAlign(z, r, full, 384)
    R.LoadAlign(r, x, 64, dist=R.LoadDist.DIST_E2B_B16)                   # 4
    R.StoreAlign(z, r, full, 512)
    off = 0
    for i in range(2):                                                    # 5, 6: post-update loop
        off = R.LoadAlign(r, x, off, post_update_stride=192)
        R.StoreAlign(z, r, full, 640 + 128 * i)
    m40, _ = R.UpdateMask("half", 40)
    R.Duplicate(r, 0.5)
    o1 = R.LoadAlign(r, x, 0, data_block_stride=2, mask=m40, repeat_stride=4,
                     post_mode=R.PostLiteral.POST_MODE_UPDATE)            # 7
    R.StoreAlign(z, r, full, 896)
    R.LoadAlign(r, x, 0, data_block_stride=1, mask=m40, repeat_stride=4)  # 8: reads at offset + 64 elements
    R.StoreAlign(z, r, 1024, data_block_stride=1, mask=m40)               # DATA_BLOCK_COPY store, 40 lanes
    u = R.UnalignRegForLoad()
    R.LoadUnAlignPre(u, x, 3)
    o2 = R.LoadUnAlign(r, u, x, 3)                                        # 9
    R.StoreAlign(z, r, full, 1152)
    o3 = R.LoadUnAlign(r, u, x, o2, post_update_stride=7)                 # 10: the next VL bytes, returns o2 + 7
    R.StoreAlign(z, r, full, 1280)
    s = R.UnalignRegForStore()
    o4 = R.StoreUnAlign(z, r, s, 1413, 100)                               # 11: lanes 0..99 at 1413
    o5 = R.StoreUnAlignPost(z, s, o4)
    R.Load(r, x, 9)                                                       # 12
    R.Store(z, r, 1536, 10)
    R.Store(z[1600], r)                                                   # 13: a VL's worth
    o6 = R.StoreAlign(z, r, full, 1728, dist=R.StoreDist.DIST_FIRST_ELEMENT_B16, post_update_stride=16)   # 14
    R.DataCopy(r, x, 128)                                                 # 15: old names
    R.DataCopy(z, r, m40, 1760)
    R.DataCopyUnAlignPre(u, x, 1)
    R.DataCopyUnAlign(r, u, x, 1)                                         # 16
    R.DataCopyUnAlign(z, r, s, 1890, 20)
    o7 = R.DataCopyUnAlignPost(z, s, 1910)
    q = R.RegTensor("uint16")
    R.LoadAlign(q, xu, 0, dist=R.LoadDist.DIST_UNPACK_B16)                # 17: uint16 1, 2, ... -> uint32 lanes
    R.StoreAlign(zu, q, R.CreateMask("uint16"), 0)
    q2 = R.RegTensor("uint16")
    R.LoadAlign(q, q2, xu, offset=0, dist=R.LoadDist.DIST_DINTLV_B16)     # 18: dual
    R.StoreAlign(zu, q, R.CreateMask("uint16"), 128)
    R.StoreAlign(zu, q2, R.CreateMask("uint16"), 256)
    R.StoreAlign(zu, q2, q, R.CreateMask("uint16"), offset=384, dist=R.StoreDist.DIST_INTLV_B16)    # 19
    return off, o1, o2, o3, o4, o5, o6, o7


def test_load_store_forms():
    r = run(_moves, [("half", 640, XH), ("uint16", 256, XU), ("half", 2048), ("uint16", 640)])
    assert r.ret == (384, 64, 131, 138, 1513, 1513, 1744, 1910)
    z0, z = r.pre(2), r.post(2)
    x = XH
    e = z0.copy()
    e[0:128] = x[5]
    e[128:256] = np.repeat(x[16:80], 2)
    e[256:384] = x[32:288:2]
    e[384:512] = np.tile(x[48:64], 8)
    e[512:640] = np.repeat(x[64:72], 16)
    e[640:768], e[768:896] = x[0:128], x[192:320]
    blk = np.zeros(128, np.float16)
    for b in range(3):                                                    # active blocks 0..2 of a 40-lane mask
        blk[16 * b:16 * b + 16] = x[32 * b:32 * b + 16]
    e[896:1024] = blk
    e[1024:1064] = x[64:104]
    e[1152:1280] = x[3:131]
    e[1280:1408] = x[131:259]
    e[1413:1513] = x[131:231]
    e[1536:1546] = x[9:19]
    e[1600:1728] = x[9:137]
    e[1728] = x[9]
    e[1760:1800] = x[128:168]
    e[1890:1910] = x[1:21]
    assert np.array_equal(z.view(np.uint16), e.view(np.uint16)), np.nonzero(z.view(np.uint16) != e.view(np.uint16))
    zu0, zu = r.pre(3), r.post(3)
    eu = zu0.copy()
    eu[0:128] = np.stack([XU[:64], np.zeros(64, np.uint16)], 1).ravel()          # G-4: read as uint32 = [1, 2, ..]
    eu[128:256], eu[256:384] = XU[0::2], XU[1::2]
    eu[384:640] = np.stack([XU[1::2], XU[0::2]], 1).ravel()
    assert np.array_equal(zu, eu)


# ----------------------------------------------------------------------------------------------------------------
# 6. A VF taking its dtype as an argument, simd_callee, asc_vf_call (README; decisions "simd_vf passes dtype names")
# ----------------------------------------------------------------------------------------------------------------
@R.simd_callee
def _scale(dst, src, mask, k):
    R.Muls(dst, src, k, mask)


@both
def _generic(x, z, T, n):
    r = R.RegTensor(T)
    o = R.RegTensor(T)
    step = R.GetVecLen() // R.sizeof(T)
    i = 0
    while n > 0:
        m, n = R.UpdateMask(T, n)
        R.LoadAlign(r, x, i * step)
        if T == "half":
            _scale(o, r, m, 2)
        else:
            _scale(o, r, m, 3)
        R.StoreAlign(z[i * step], o, m)
        i += 1
    return i


@pytest.mark.parametrize("T", ["half", "float16", "float", "float32", "int16", "int32"])
def test_vf_dtype_argument_and_callee(T):
    npt = {"half": np.float16, "float16": np.float16, "float": np.float32, "float32": np.float32}.get(T, T)
    xs = (np.arange(384) % 97 - 40).astype(npt)
    canon = {"float16": "half", "float32": "float"}.get(T, T)
    r = run(_generic, [(canon, 384, xs), (canon, 384)], args=(T, 300))
    lanes = 256 // np.dtype(npt).itemsize
    assert r.ret == -(-300 // lanes)
    e = r.pre(1)
    e[:300] = xs[:300] * (2 if T == "half" else 3)       # T == "half": "float16" is another spelling (decisions)
    assert np.array_equal(r.post(1).view(np.uint8), e.view(np.uint8))


def test_asc_vf_call_runs_the_compiled_vf():
    core, (x, z) = _fresh([("float", 64, XF[:64]), ("float", 64)], 3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with core:
            got = R.asc_vf_call(_generic.vf, x, z, "float", 64)
    assert got == 1 and not [x for x in w if issubclass(x.category, aj.UncompiledVFWarning)]
    assert np.array_equal(z.numpy(), XF[:64] * 3)


# ----------------------------------------------------------------------------------------------------------------
# 7. The b8 / b32 distributions, PACK stores with post-update, MaskReg loads/stores with byte post-update
# ----------------------------------------------------------------------------------------------------------------
X8 = (np.arange(1024) * 7 % 251).astype(np.uint8)
X32 = (np.arange(256) * 0x01010101 + 0x11111111).astype(np.uint32)
MB8 = (np.arange(160) * 13 % 256).astype(np.uint8)


@both
def _dists(x8, x32, z8, z32, zm, mb):
    a = R.RegTensor("uint8")
    b = R.RegTensor("uint8")
    f8 = R.CreateMask("uint8")
    R.LoadAlign(a, x8, 3, dist=R.LoadDist.DIST_BRC_B8)
    R.StoreAlign(z8, a, f8, 0)
    R.LoadAlign(a, x8, 32, dist=R.LoadDist.DIST_US_B8)
    R.StoreAlign(z8, a, f8, 256)
    R.LoadAlign(a, x8, 64, dist=R.LoadDist.DIST_DS_B8)
    R.StoreAlign(z8, a, f8, 512)
    R.LoadAlign(a, x8, 96, dist=R.LoadDist.DIST_UNPACK_B8)
    R.StoreAlign(z8, a, f8, 768)
    R.LoadAlign(a, x8, 128, dist=R.LoadDist.DIST_UNPACK4_B8)
    R.StoreAlign(z8, a, f8, 1024)
    R.LoadAlign(a, b, x8, 0, dist=R.LoadDist.DIST_DINTLV_B8)
    R.StoreAlign(z8, a, b, f8, 1280, dist=R.StoreDist.DIST_INTLV_B8)
    R.StoreAlign(z8, a, f8, 1792, dist=R.StoreDist.DIST_FIRST_ELEMENT_B8)
    R.StoreAlign(z8, a, f8, 1824, dist=R.StoreDist.DIST_NORM_B8)
    c = R.RegTensor("uint32")
    d = R.RegTensor("uint32")
    f32 = R.CreateMask("uint32")
    R.LoadAlign(c, x32, 1, dist=R.LoadDist.DIST_BRC_B32)
    R.StoreAlign(z32, c, f32, 0)
    R.LoadAlign(c, x32, 8, dist=R.LoadDist.DIST_E2B_B32)
    R.StoreAlign(z32, c, f32, 64)
    R.LoadAlign(c, x32, 16, dist=R.LoadDist.DIST_UNPACK_B32)
    R.StoreAlign(z32, c, f32, 128)
    R.LoadAlign(c, d, x32, 0, dist=R.LoadDist.DIST_DINTLV_B32)
    R.StoreAlign(z32, c, d, f32, 192, dist=R.StoreDist.DIST_INTLV_B32)
    R.LoadAlign(c, x32)
    R.StoreAlign(z32, c, f32, 320, dist=R.StoreDist.DIST_FIRST_ELEMENT_B32)
    o = R.StoreAlign(zm, c, f32, 0, dist=R.StoreDist.DIST_PACK_B32, post_update_stride=64)
    o2 = R.StoreAlign(zm, c, f32, o, dist=R.StoreDist.DIST_PACK4_B32)
    mm = R.MaskReg()
    p = R.LoadAlign(mm, mb, 0, post_update_stride=32)                     # bytes (the doc), offset in elements
    R.StoreAlign(mb, mm, 64)
    p2 = R.LoadAlign(mm, mb, p, dist=R.MaskDist.DIST_US, post_update_stride=16)
    q = R.StoreAlign(mb, mm, 96, post_update_stride=32)
    q2 = R.StoreAlign(mb, mm, q, dist=R.MaskDist.DIST_PACK, post_update_stride=16)
    return o, o2, p, p2, q, q2


def test_b8_b32_distributions_and_mask_post_update():
    r = run(_dists, [("uint8", 1024, X8), ("uint32", 256, X32), ("uint8", 2304), ("uint32", 384), ("uint16", 256),
                     ("uint8", 160, MB8)])
    assert r.ret == (64, 64, 32, 48, 128, 144)
    e, x = r.pre(2), X8
    e[0:256] = x[3]
    e[256:512] = np.repeat(x[32:160], 2)
    e[512:768] = x[64:576:2]
    e[768:1024] = 0
    e[768:1024:2] = x[96:224]
    e[1024:1280] = 0
    e[1024:1280:4] = x[128:192]
    e[1280:1792] = x[0:512]
    e[1792] = x[0]
    e[1824:2080] = x[0:512:2]
    assert np.array_equal(r.post(2), e)
    e, x = r.pre(3), X32
    e[0:64] = x[1]
    e[64:128] = np.repeat(x[8:16], 8)
    e[128:192] = 0
    e[128:192:2] = x[16:48]
    e[192:320] = x[0:128]
    e[320] = x[0]
    assert np.array_equal(r.post(3), e)
    e = r.pre(4)
    e[0:64] = x[:64] & 0xFFFF                                           # G-4: DIST_PACK_B32 -> [0x1111, 0x2222, ...]
    e[64:96] = (x[:64] & 0xFF).astype(np.uint8).view(np.uint16)
    assert np.array_equal(r.post(4), e)
    mb = r.post(5)
    assert np.array_equal(mb[64:96], MB8[0:32])
    us = np.repeat(np.unpackbits(MB8[32:48], bitorder="little"), 2)
    assert np.array_equal(np.unpackbits(mb[96:128], bitorder="little"), us)
    assert np.array_equal(np.unpackbits(mb[128:144], bitorder="little"), us[0::2])


# ----------------------------------------------------------------------------------------------------------------
# 8. The old names with keywords, Load/Store keywords, the unaligned family's keyword forms
# ----------------------------------------------------------------------------------------------------------------
@both
def _old_names(x, z, mb):
    r = R.RegTensor("half")
    q = R.RegTensor("half")
    full = R.CreateMask("half")
    o = R.DataCopy(r, x, 0, dist=R.LoadDist.DIST_NORM, post_update_stride=128)
    R.DataCopy(z, r, full, o)
    R.DataCopy(r, x, 0, data_block_stride=2, mask=full)
    o1 = R.DataCopy(z, r, 256, data_block_stride=1, mask=full, repeat_stride=8,
                    post_mode=R.PostLiteral.POST_MODE_UPDATE)
    R.DataCopy(r, q, x, offset=0, dist=R.LoadDist.DIST_DINTLV_B16)
    R.DataCopy(z, q, r, full, offset=512, dist=R.StoreDist.DIST_INTLV_B16)
    m = R.MaskReg()
    R.DataCopy(m, mb, 0)
    R.DataCopy(mb, m, 32, dist=R.MaskDist.DIST_NORM)
    R.Load(r, x, offset=5)
    R.Store(z, r, offset=800, count=7)
    u = R.UnalignRegForLoad()
    R.LoadUnAlignPre(u, x, offset=0)
    o2 = R.LoadUnAlign(r, u, x, post_update_stride=64)
    R.Store(z[832], r)
    o3 = R.DataCopyUnAlign(r, u, x, o2, post_update_stride=64)
    R.Store(z, r, 960)
    s = R.UnalignRegForStore()
    o4 = R.StoreUnAlign(z, r, s, offset=1090, post_update_stride=30)
    o5 = R.StoreUnAlignPost(z, s, o4, post_update_stride=3)
    return o, o1, o2, o3, o4, o5


def test_old_names_and_keyword_forms():
    r = run(_old_names, [("half", 640, XH), ("half", 1200), ("uint8", 64, np.arange(64))])
    assert r.ret == (128, 384, 64, 128, 1120, 1123)
    z, e, x = r.post(1), r.pre(1), XH
    e[128:256] = x[0:128]
    e[256:384] = np.concatenate([x[32 * b:32 * b + 16] for b in range(8)])
    e[512:768] = np.stack([x[1:256:2], x[0:256:2]], 1).ravel()
    e[800:807] = x[5:12]
    e[832:960] = x[0:128]
    e[960:1088] = x[64:192]
    e[1090:1120] = x[64:94]
    assert np.array_equal(z.view(np.uint16), e.view(np.uint16))
    assert np.array_equal(r.post(2)[32:64], np.arange(32))


# ----------------------------------------------------------------------------------------------------------------
# 9. Overflow modes of the VF's core (SPEC-2 11.1, D35, D46, D67; decisions "Reg API": registers made in a VF carry
#    the modes of the core the VF runs on), 64-bit and bfloat16 registers, Arange, scalars by D29
# ----------------------------------------------------------------------------------------------------------------
X16S = np.r_[np.full(64, -32768), np.full(64, 300)].astype(np.int16)


@both
def _modes(x16, z16, zh, zi8):
    a = R.RegTensor("int16")
    m = R.CreateMask("int16")
    R.Duplicate(a, 30000)
    R.Adds(a, a, 30000, m)
    R.StoreAlign(z16, a, m, 0)
    R.LoadAlign(a, x16)
    R.Mul(a, a, a, m)
    R.StoreAlign(z16, a, m, 128)
    R.LoadAlign(a, x16)
    R.Neg(a, a, m)
    R.StoreAlign(z16, a, m, 256)
    R.ShiftLefts(a, a, 1, m)
    R.StoreAlign(z16, a, m, 384)
    h = R.RegTensor("half")
    mh = R.CreateMask("half")
    R.Duplicate(h, 65504.0)
    R.Adds(h, h, 65504.0, mh)
    R.StoreAlign(zh, h, mh, 0)
    R.Duplicate(h, 65504.0)
    R.MulAddDst(h, h, h, mh)
    R.StoreAlign(zh, h, mh, 128)
    f = R.RegTensor("float")
    R.Duplicate(f, 1e6)
    R.Cast(h, f, R.CreateMask("float"), R.CastTrait(R.RegLayout.ZERO, R.SatMode.SAT, R.MaskMergeMode.ZEROING,
                                                    R.RoundMode.CAST_RINT))
    R.StoreAlign(zh, h, mh, 256)
    R.Cast(a, f, R.CreateMask("float"), R.CastTrait(R.RegLayout.ZERO, R.SatMode.SAT, R.MaskMergeMode.ZEROING,
                                                    R.RoundMode.CAST_RINT))
    R.StoreAlign(z16, a, m, 512)
    i8 = R.RegTensor("int8")
    R.Duplicate(i8, 127)
    R.Adds(i8, i8, 1, R.CreateMask("int8"))
    R.StoreAlign(zi8, i8, R.CreateMask("int8"))


def _saturating(core):
    core.SetCtrlSpr(53, 53, 1)
    core.SetCtrlSpr(48, 48, 0)


@pytest.mark.parametrize("sat", [False, True])
def test_overflow_modes_of_the_vf_core(sat):
    """G-1: Mul int16 -32768 x -32768 -> 0 / 32767; D35 int16 wrap / clamp; half INF/NaN vs SAT; int8 wraps."""
    r = run(_modes, [("int16", 128, X16S), ("int16", 640), ("half", 384), ("int8", 256)],
            setup=_saturating if sat else None)
    z, h = r.post(1), r.post(2)
    if sat:
        exp = (32767, 32767, 32767, 32767, 32766, 32767)
        hv = np.float16(65504)
    else:
        exp = (-5536, 0, 24464, -32768, -32768, 32767)
        hv = np.float16(np.inf)
    assert (z[0], z[128], z[192], z[256], z[384], z[512]) == exp
    assert np.all(h[0:256] == hv) and np.all(h[256:384:2] == hv) and not h[257:384:2].any()      # D65 narrowing
    assert np.all(z[512:640:2] == 32767) and not z[513:640:2].any() and np.all(r.post(3) == -128)


@both
def _wide(x, z, zm, zb):
    a = R.RegTensor("int64")
    b = R.RegTensor("int64")
    R.LoadAlign(a, x)
    m, n = R.UpdateMask("int64", 20)
    R.Duplicate(b, -2 ** 62 + 3)
    R.Add(b, a, b, m, R.MaskMergeMode.MERGING)
    R.StoreAlign(z, b, R.CreateMask("int64"))
    R.Reduce(b, a, m)
    R.StoreAlign(z, b, R.CreateMask("int64"), 32)
    R.StoreAlign(zm, m)
    R.StoreAlign(z, a, m, 64, dist=R.StoreDist.DIST_PACK_B64)
    R.Arange(b, 2 ** 62)
    R.StoreAlign(z, b, R.CreateMask("int64"), 96)
    c = R.RegTensor("bfloat16")
    d = R.RegTensor("bfloat16")
    R.Duplicate(c, 1.5)
    R.Duplicate(d, -3.0)
    R.Add(d, d, c, R.CreateMask("bfloat16"), R.MaskMergeMode.MERGING)
    R.StoreAlign(zb, d, R.CreateMask("bfloat16"))
    return n


def test_b64_and_bfloat16_forms():
    """SPEC-2 11.1: b64 lane k active iff bit 8k (UpdateMask sets its 8 bits); DIST_PACK_B64; Reduce int64 SUM."""
    x = (np.arange(32) * 10 ** 15).astype(np.int64)
    r = run(_wide, [("int64", 32, x), ("int64", 128), ("uint8", 32), ("uint16", 128)])
    assert r.ret == 0
    z, z0 = r.post(1), r.pre(1)
    act = np.arange(32) < 20
    assert np.array_equal(z[:32], np.where(act, x - 2 ** 62 + 3, -2 ** 62 + 3))
    assert z[32] == x[:20].sum() and not z[33:64].any()
    assert np.array_equal(np.unpackbits(r.post(2), bitorder="little"), np.repeat(act, 8).astype(np.uint8))
    packed = z0[64:96].view(np.uint32).copy()
    packed[:20] = x[:20] & 0xFFFFFFFF
    assert np.array_equal(z[64:96].view(np.uint32)[:32], packed[:32])
    assert np.array_equal(z[96:128], np.arange(32) + 2 ** 62)
    bf = np.full(128, 0xBFC0, np.uint16)                                  # -1.5 in bfloat16
    assert np.array_equal(r.post(3), bf)


@both
def _dup(z, s, T):
    a = R.RegTensor(T)
    R.Duplicate(a, s)
    R.StoreAlign(z, a, R.CreateMask(T))


@pytest.mark.parametrize("T,s,bits", [("half", 70000.0, 0x7C00), ("half", 2 ** 70, 0x7C00),
                                      ("half", np.float16(2.5), 0x4100),
                                      ("half", np.float32(2.5), 0x4100), ("half", 3, 0x4200),
                                      ("uint64", 2 ** 64 - 1, 2 ** 64 - 1), ("int64", -2 ** 63, -2 ** 63)])
def test_duplicate_scalar_spellings(T, s, bits):
    """D29: the scalar converted to the register type (RN, overflow to inf for a half register in INF/NaN mode)."""
    size = aj.sizeof(T)
    r = run(_dup, [(T, 256 // size)], args=(s, T))
    got = r.post(0).view({2: np.uint16, 8: np.int64 if T == "int64" else np.uint64}[size])
    assert np.all(got == bits)


@both
def _um(z, n):
    m, k = R.UpdateMask("half", n)
    R.StoreAlign(z, m)
    return k


@pytest.mark.parametrize("n", [0, 128, 129, 2 ** 32 - 1, np.uint32(300), np.int64(30)])
def test_update_mask_counts(n):
    """SPEC 7.2: lowest min(n, VL_T) lanes, n -> n < VL_T ? 0 : n - VL_T (uint32_t n)."""
    r = run(_um, [("uint8", 32)], args=(n,))
    k = min(int(n), 128)
    assert r.ret == int(n) - k
    assert np.array_equal(np.unpackbits(r.post(0), bitorder="little"), (np.arange(256) < 2 * k).astype(np.uint8))


# ----------------------------------------------------------------------------------------------------------------
# 10. Sub-tensors, a simd_callee making registers of a dtype argument, MaskReg argument written back
# ----------------------------------------------------------------------------------------------------------------
@R.simd_callee
def _callee(dst_t, src_t, mreg, off, T):
    r = R.RegTensor(T)
    o = R.LoadAlign(r, src_t, off, post_update_stride=R.GetVecLen() // R.sizeof(T))
    R.Not(mreg, mreg, R.CreateMask(T))
    R.StoreAlign(dst_t, r, mreg, off)
    return o


@both
def _subs(x, z, mreg, T="float", n=2):
    r = R.RegTensor(T)
    R.LoadAlign(r, x[64], 64)
    R.StoreAlign(z[32], r, R.CreateMask(T), 32)
    o = R.StoreAlign(z[256], r, R.CreateMask(T), 0, post_update_stride=64)
    off = 0
    for i in range(n):
        off = _callee(z[320], x, mreg, off, T)
    return o, off


def test_sub_tensors_callee_and_mask_argument():
    X = np.arange(256).astype(np.float32)
    r = run(_subs, [("float", 256, X), ("float", 512)], args=(R.MaskReg((2 ** 64 - 1, 0, 0, 0)),))
    assert r.ret == (64, 128)
    z, e = r.post(1), r.pre(1)
    e[64:128] = X[128:192]
    e[256:320] = X[128:192]
    on = np.arange(64) >= 16                              # Not of the 16 float lanes words[0] selects
    e[320:384] = np.where(on, X[0:64], e[320:384])
    e[384:448] = np.where(~on, X[64:128], e[384:448])
    assert np.array_equal(z.view(np.uint32), e.view(np.uint32))
    # the MaskReg argument: both runs wrote it back (the UB comparison above does not see it)
    for vf in (_subs.vf.py_func, _subs.vf):
        core, (x, zz) = _fresh([("float", 256, X), ("float", 512)], 0)
        m = R.MaskReg((2 ** 64 - 1, 0, 0, 0))
        with core:
            vf(x, zz, m, "float", 1)
        mb = core.local_tensor("uint8", 32)
        with core:
            R.StoreAlign(mb, m)
        bits = np.unpackbits(mb.numpy(), bitorder="little")
        assert bits[:64].sum() == 0 and bits[64:].all()


# ----------------------------------------------------------------------------------------------------------------
# 11. CreateMask patterns (int values) per lane width, UpdateMask, Interleave/DeInterleave (D64) with a run-time dtype
# ----------------------------------------------------------------------------------------------------------------
@both
def _patterns(mb, T):
    i = 0
    for p in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15):
        m = R.CreateMask(T, p)
        R.StoreAlign(mb, m, i * 32)
        i += 1
    m, n = R.UpdateMask(T, 300)
    R.StoreAlign(mb, m, i * 32)
    e0 = R.MaskReg()
    e1 = R.MaskReg()
    a = R.CreateMask(T, R.MaskPattern.M3)
    b = R.CreateMask(T, R.MaskPattern.H)
    R.Interleave(e0, e1, a, b, T)
    R.StoreAlign(mb, e0, 16 * 32)
    R.StoreAlign(mb, e1, 17 * 32)
    R.DeInterleave(e0, e1, a, b, T)
    R.StoreAlign(mb, e0, 18 * 32)
    R.StoreAlign(mb, e1, 19 * 32)
    return n


@pytest.mark.parametrize("T", ["int8", "half", "float"])
def test_create_mask_patterns_and_interleave(T):
    """decisions "Reg API": VLk lowest min(k, lanes), M3/M4 multiples, H/Q low half/quarter, ALLF none; D64."""
    r = run(_patterns, [("uint8", 640)], args=(T,))
    s = aj.sizeof(T)
    L = 256 // s
    assert r.ret == 300 - min(300, L)
    got = np.unpackbits(r.post(0), bitorder="little").reshape(20, 256)

    def lb(lanes):
        v = np.zeros(256, np.uint8)
        for j in lanes:
            v[j * s:(j + 1) * s] = 1
        return v
    exp = [lb(range(L))] + [lb(range(min(k, L))) for k in (1, 2, 3, 4, 8, 16, 32, 64, 128)]
    exp += [lb(range(0, L, 3)), lb(range(0, L, 4)), lb(range(L // 2)), lb(range(L // 4)), lb([])]
    exp.append(lb(range(min(300, L))))
    for k in range(16):
        assert np.array_equal(got[k], exp[k]), k
    ga, gb = exp[10].reshape(L, s), exp[12].reshape(L, s)               # g-bit groups
    inter = np.stack([ga, gb], 1).reshape(-1)
    assert np.array_equal(got[16], inter[:256]) and np.array_equal(got[17], inter[256:])
    cat = np.r_[ga, gb]
    assert np.array_equal(got[18], cat[0::2].reshape(-1)) and np.array_equal(got[19], cat[1::2].reshape(-1))


@R.simd_callee
def _movemask_callee(mb, T):
    m = R.MoveMask(T)
    R.StoreAlign(mb, m, 32)


@both
def _movemask_t(mb, x, z, T):
    m = R.MoveMask(T)
    R.StoreAlign(mb, m)
    _movemask_callee(mb, T)
    a = R.RegTensor(T)
    b = R.RegTensor(T)
    R.LoadAlign(a, x)
    R.Duplicate(b, 0)
    R.Select(b, a, b, m)
    R.StoreAlign(z, b, R.CreateMask(T))


@pytest.mark.parametrize("T", ["half", "float"])
def test_movemask_run_time_dtype_and_callee(T):
    """SPEC 7.1 / SPEC-2 11.7: b16 takes all 128 bits, each twice; b32 takes MASK0, each 4 times."""
    lo, hi = 0x1234_5678_9ABC_DEF0, 0xF0F0

    def setup(core):
        core.SetMaskNorm()
        core.SetVectorMask(hi, lo)
    L = 256 // aj.sizeof(T)
    x = np.arange(L).astype(T if T != "half" else np.float16)
    r = run(_movemask_t, [("uint8", 64), (T, L, x), (T, L)], args=(T,), setup=setup)
    bits = np.array([(lo >> i) & 1 for i in range(64)] + [(hi >> i) & 1 for i in range(64)], np.uint8)[:L]
    got = np.unpackbits(r.post(0), bitorder="little")
    assert np.array_equal(got[:256], np.repeat(bits, 256 // L)) and np.array_equal(got[256:], got[:256])
    assert np.array_equal(r.post(2), np.where(bits == 1, x, 0).astype(x.dtype))


# ----------------------------------------------------------------------------------------------------------------
# 12. Refusals: the same class naming the API and parameter, plain and compiled, nothing written
# ----------------------------------------------------------------------------------------------------------------
def _refusal_body(stmt):
    src = ("def body(x, z, mb):\n"
           "    r = R.RegTensor('half')\n    q = R.RegTensor('half')\n    f = R.RegTensor('float')\n"
           "    m = R.CreateMask('half')\n    k = R.MaskReg()\n"
           f"    {stmt}\n    R.StoreAlign(z, r, m)\n")
    ns = {"R": R, "aj": aj}
    exec(src, ns)
    return both(ns["body"])


REFUSALS = [
    ("R.LoadAlign(r, x); R.Sub(r, r, r, m, R.MaskMergeMode.MERGING)", aj.ParameterError, "Sub", "mode"),
    ("R.LoadAlign(r, x); R.Mul(r, r, r, m, mode=R.MaskMergeMode.MERGING)", aj.ParameterError, "Mul", "mode"),
    ("R.LoadAlign(r, x); R.Adds(r, r, 1.0, m, 1)", aj.ParameterError, "Adds", "mode"),
    ("R.LoadAlign(r, x); R.Reduce(r, r, m, R.ReduceType.SUM, R.MaskMergeMode.MERGING)", aj.ParameterError, "Reduce",
     "mode"),
    ("R.LoadAlign(r, x); R.Reduce(r, r, m, reduce_type=3)", aj.ParameterError, "Reduce", "reduce_type"),
    ("R.LoadAlign(r, x, 3)", aj.AlignmentError, "LoadAlign", "address"),
    ("R.LoadAlign(r, x, 256)", aj.OutOfBoundsError, "LoadAlign", "address"),
    ("R.LoadAlign(r, x[192])", aj.OutOfBoundsError, "LoadAlign", "address"),
    ("R.LoadAlign(r, x); R.StoreAlign(z, r, m, 8, dist=R.StoreDist.DIST_NORM_B16)", aj.AlignmentError, "StoreAlign",
     "address"),
    ("R.LoadAlign(f, x, dist=R.LoadDist.DIST_BRC_B16)", aj.UnsupportedDTypeError, "LoadAlign", "register"),
    ("R.LoadAlign(r, x, dist=R.StoreDist.DIST_NORM_B16)", aj.ParameterError, "LoadAlign", "dist"),
    ("R.LoadAlign(r, x, 0, data_block_stride=1, mask=m, post_update_stride=16)", aj.ParameterError, "LoadAlign",
     "post_update_stride"),
    ("R.LoadAlign(r, x, 0, mask=m)", aj.ParameterError, "LoadAlign", "mask"),
    ("R.LoadAlign(r, x); R.Cast(f, r, m, R.CastTrait(R.RegLayout.TWO))", aj.ParameterError, "Cast",
     "trait.layoutMode"),
    ("R.LoadAlign(r, x); R.Cast(r, f, m, R.CastTrait(R.RegLayout.ZERO, R.SatMode.SAT, R.MaskMergeMode.ZEROING, "
     "aj.RoundMode.CAST_NONE))", aj.ParameterError, "Cast", "trait.roundMode"),
    ("R.LoadAlign(r, x); R.Cast(f, r, m, R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.MERGING))",
     aj.ParameterError, "Cast", "trait.mrgMode"),
    ("i = R.RegTensor('int16'); R.ShiftLefts(i, i, -1, R.CreateMask('int16'))", aj.ParameterError, "ShiftLefts",
     "scalar"),
    ("R.Duplicate(r, 1.0, m, src_reg=q)", aj.ParameterError, "Duplicate", "scalar"),
    ("i = R.RegTensor('int8'); R.Duplicate(i, 300)", aj.ParameterError, "Duplicate", "scalar"),
    ("R.Interleave(k, k, m, m, 'int64')", aj.UnsupportedDTypeError, "Interleave", "dtype"),
    ("R.Pack(k, m, 5)", aj.ParameterError, "Pack", "part"),
    ("mm, n = R.UpdateMask('half', -1)", aj.ParameterError, "UpdateMask", "n"),
    ("mm, n = R.UpdateMask('float64', 3)", aj.UnsupportedDTypeError, "UpdateMask", "dtype"),
    ("R.And(r, m, m, m)", aj.ParameterError, "And", "dst"),
    ("i = R.RegTensor('int8'); R.Mul(i, i, i, R.CreateMask('int8'))", aj.UnsupportedDTypeError, "Mul", "dtype"),
    ("R.Select(r, r, f, m)", aj.UnsupportedDTypeError, "Select", "dtypes"),
    ("R.Add(k, f, f, f, R.CreateMask('float'))", aj.UnsupportedDTypeError, "Add", "dtypes"),
    ("i = R.RegTensor('int32'); R.Arange(i, 0, 2)", aj.ParameterError, "Arange", "order"),
    ("R.LoadAlign(r, x); R.Store(z, r, 0, 129)", aj.ParameterError, "Store", "count"),
    ("u = R.UnalignRegForLoad(); R.LoadUnAlignPre(u, x, 2); R.LoadUnAlign(r, u, x, 4)", aj.StateError, "LoadUnAlign",
     "address"),
    ("R.LoadAlign(r, x); s = R.UnalignRegForStore(); R.StoreUnAlign(z, r, s, 1, 10)", aj.StateError, "body",
     "UnalignRegForStore"),
    ("R.Div(r, r, r, m, R.DivSpecificMode(R.MaskMergeMode.ZEROING, True))", aj.ParameterError, "Div",
     "mode.precisionMode"),
    ("R.LoadAlign(k, mb, 8)", aj.AlignmentError, "LoadAlign", "address"),
    ("R.StoreAlign(mb, k, 0, dist=R.MaskDist.DIST_US)", aj.ParameterError, "StoreAlign", "dist"),
    ("R.Copy(q, r, m, R.MaskMergeMode.ZEROING)", aj.ParameterError, "Copy", "mode"),
    ("R.MaskSel(k, r, r, m)", aj.ParameterError, "MaskSel", ""),
    ("R.LocalMemBar(6)", aj.ParameterError, "LocalMemBar", "before"),
    ("R.LocalMemBar(R.MemType.VEC_LOAD, R.MemType.VEC_LOAD)", aj.ParameterError, "LocalMemBar", "before/after"),
]


@pytest.mark.parametrize("stmt,cls,api,param", REFUSALS, ids=[f"{i}-{r[2]}" for i, r in enumerate(REFUSALS)])
def test_refused_alike_plain_and_compiled(stmt, cls, api, param):
    body = _refusal_body(stmt)
    # SPEC-2 11.6 / decisions: the pending-store refusal comes at the VF's return, after the VF's stores were written
    refused_alike(body, [("half", 256, XH[:256]), ("half", 128), ("uint8", 64)], (), cls, api, param,
                  unchanged=api != "body")


# ----------------------------------------------------------------------------------------------------------------
# 13. Tensor tails: what lies inside the operand's tensor is accepted, what does not is refused (SPEC-2 11.6, D68,
#     DESIGN 6 "every instruction's footprint stays inside each operand's extent")
# ----------------------------------------------------------------------------------------------------------------
TAIL_OK = [
    ("u = R.UnalignRegForLoad(); R.LoadUnAlignPre(u, x[72], 0); R.LoadUnAlign(r, u, x[72], 0)", "load", 72),
    ("R.Load(r, x[72])", "load", 72),
    ("R.LoadAlign(r, x, 199, dist=R.LoadDist.DIST_BRC_B16)", "brc", 199),
    ("R.Duplicate(r, 2.0); R.StoreAlign(x, r, 192, data_block_stride=1, mask=R.CreateMask('half', 5))", "tail", 192),
    ("R.Duplicate(r, 2.0); R.StoreAlign(x, r, R.CreateMask('half', R.MaskPattern.VL8), 192)", "tail", 192),
    ("R.Duplicate(r, 2.0); R.StoreAlign(x, r, R.CreateMask('half', R.MaskPattern.ALLF), 1024)", "none", 0),
    ("R.Duplicate(r, 2.0); s = R.UnalignRegForStore(); o = R.StoreUnAlign(x, r, s, 195, 5); "
     "R.StoreUnAlignPost(x, s, o)", "tail", 195),
    ("R.Duplicate(r, 2.0); R.Store(x, r, 190, 10)", "tail", 190),
    ("R.Duplicate(r, 2.0); R.StoreAlign(x, r, m, 199, dist=R.StoreDist.DIST_FIRST_ELEMENT_B16)", "tail", 199),
]


def _tail_body(stmt):
    ns = {"R": R}
    exec("def body(x, z):\n    r = R.RegTensor('half')\n    m = R.CreateMask('half')\n    R.Duplicate(r, 0.0)\n"
         f"    {stmt}\n    R.StoreAlign(z, r, m)\n", ns)
    return both(ns["body"])


@pytest.mark.parametrize("stmt,kind,at", TAIL_OK, ids=[str(i) for i in range(len(TAIL_OK))])
def test_tail_forms_accepted(stmt, kind, at):
    xs = np.arange(200).astype(np.float16)
    r = run(_tail_body(stmt), [("half", 200, xs), ("half", 128)])
    x, z = r.post(0), r.post(1)
    if kind == "load":
        assert np.array_equal(z, xs[at:at + 128])
    elif kind == "brc":
        assert np.all(z == xs[at])
    else:
        e = xs.copy()
        e[at:200] = 2.0 if kind == "tail" else e[at:200]
        assert np.array_equal(x, e)


TAIL_REFUSED = [
    ("u = R.UnalignRegForLoad(); R.LoadUnAlignPre(u, x, 73); R.LoadUnAlign(r, u, x, 73)", "LoadUnAlign"),
    ("R.Load(r, x[73])", "Load"),
    ("R.LoadAlign(r, x, 192, data_block_stride=1, mask=R.CreateMask('half', R.MaskPattern.VL8))", "LoadAlign"),
    ("R.StoreAlign(x, r, R.CreateMask('half', R.MaskPattern.VL16), 192)", "StoreAlign"),
    ("R.Store(x, r, 190, 11)", "Store"),
    ("R.LoadAlign(r, x, 200, dist=R.LoadDist.DIST_BRC_B16)", "LoadAlign"),
]


@pytest.mark.parametrize("stmt,api", TAIL_REFUSED, ids=[str(i) for i in range(len(TAIL_REFUSED))])
def test_tail_forms_refused(stmt, api):
    """A DATA_BLOCK_COPY block with an active lane is read whole (SPEC-2 11.6), so its tail past x is refused."""
    refused_alike(_tail_body(stmt), [("half", 200, np.arange(200)), ("half", 128)], (), aj.OutOfBoundsError, api,
                  "address")


# ----------------------------------------------------------------------------------------------------------------
# 14. Aliased operands (an instruction reads its sources before it writes; decisions "Reg API") and hand-made masks
#     whose lanes are decided by their lowest bit only (SPEC-2 11.1: lane i active iff bit i*sizeof(T))
# ----------------------------------------------------------------------------------------------------------------
MA = (0x0123456789ABCDEF, 0xFEDCBA9876543210, 0x0F0F0F0F0F0F0F0F, 0x3333333355555555)
MBW = (0xAAAAAAAAAAAAAAAA, 0x123, 0xFFFF0000FFFF0000, 0x8000000000000001)


def _wbits(w):
    return np.unpackbits(np.asarray(w, np.uint64).view(np.uint8), bitorder="little")


@both
def _mask_alias(mb, T):
    i = 0
    for op in range(10):
        a = R.MaskReg()
        b = R.MaskReg()
        R.LoadAlign(a, mb, 0)
        R.LoadAlign(b, mb, 32)
        if op == 0:
            R.Interleave(a, b, a, b, T)
        elif op == 1:
            R.Interleave(b, a, a, b, T)
        elif op == 2:
            R.DeInterleave(a, b, a, b, T)
        elif op == 3:
            R.MaskDeInterleave(b, a, a, b, T)
        elif op == 4:
            R.Pack(a, a, 1)
        elif op == 5:
            R.MaskUnPack(a, a, 1)
        elif op == 6:
            R.And(a, b, a, a)
        elif op == 7:
            R.Select(a, b, a, a)
        elif op == 8:
            R.MaskNot(a, a, b)
        else:
            R.MaskMov(a, a, b)
        R.StoreAlign(mb, a, 64 + i * 64)
        R.StoreAlign(mb, b, 96 + i * 64)
        i += 1


@pytest.mark.parametrize("T", ["int8", "half", "float"])
def test_maskreg_operations_with_aliased_operands(T):
    src = np.r_[np.asarray(MA, np.uint64).view(np.uint8), np.asarray(MBW, np.uint64).view(np.uint8),
                np.zeros(640, np.uint8)]
    r = run(_mask_alias, [("uint8", 704, src)], args=(T,))
    got = np.unpackbits(r.post(0)[64:], bitorder="little").reshape(10, 2, 256)
    a, b = _wbits(MA), _wbits(MBW)
    g = aj.sizeof(T)
    ga, gb = a.reshape(256 // g, g), b.reshape(256 // g, g)
    inter = np.stack([ga, gb], 1).reshape(-1)
    cat = np.r_[ga, gb]
    d0, d1 = cat[0::2].reshape(-1), cat[1::2].reshape(-1)
    pk = np.zeros(256, np.uint8)
    pk[128:] = a[0::2]
    up = np.zeros(256, np.uint8)
    up[0::2] = a[128:]
    exp = [(inter[:256], inter[256:]), (inter[256:], inter[:256]), (d0, d1), (d1, d0), (pk, b), (up, b), (b & a, b),
           (np.where(a == 1, b, a), b), ((1 - a) & b, b), (a & b, b)]
    for k, (e0, e1) in enumerate(exp):
        assert np.array_equal(got[k, 0], e0) and np.array_equal(got[k, 1], e1), k


def _words(bits):
    v = np.zeros(256, np.uint8)
    v[bits] = 1
    return tuple(int(w) for w in np.packbits(v, bitorder="little").view(np.uint64))


@both
def _lane_bits(x, y, z, mlow, mhigh, T):
    a = R.RegTensor(T)
    b = R.RegTensor(T)
    d = R.RegTensor(T)
    full = R.CreateMask(T)
    R.LoadAlign(a, x)
    R.LoadAlign(b, y)
    L = R.GetVecLen() // R.sizeof(T)
    i = 0
    for m in (mlow, mhigh):
        R.Add(d, a, b, m)
        R.StoreAlign(z, d, full, i)
        R.Adds(d, a, 1, m)
        R.StoreAlign(z, d, full, i + L)
        R.Max(d, a, b, m)
        R.StoreAlign(z, d, full, i + 2 * L)
        R.Duplicate(d, 3, m)
        R.StoreAlign(z, d, full, i + 3 * L)
        R.Duplicate(d, -1)
        R.Copy(d, a, m)
        R.StoreAlign(z, d, full, i + 4 * L)
        R.Select(d, a, b, m)
        R.StoreAlign(z, d, full, i + 5 * L)
        R.Duplicate(d, -1)
        R.StoreAlign(z, d, full, i + 6 * L)
        R.StoreAlign(z, a, m, i + 6 * L)
        R.Abs(d, a, m)
        R.StoreAlign(z, d, full, i + 7 * L)
        i += 8 * L


@pytest.mark.parametrize("T", ["int16", "int32", "int64"])
def test_hand_made_masks_decided_by_the_lowest_lane_bit(T):
    s = aj.sizeof(T)
    L = 256 // s
    lanes = list(range(0, L, 3))
    low = R.MaskReg(_words([j * s for j in lanes]))
    high = R.MaskReg(_words([j * s + 1 for j in lanes] + [j * s + s - 1 for j in lanes]))
    x = (np.arange(L) * 3 - 20).astype(T)
    y = (100 - np.arange(L) * 2).astype(T)
    r = run(_lane_bits, [(T, L, x), (T, L, y), (T, 16 * L)], args=(low, high, T))
    z = r.post(2).reshape(16, L)
    for half, m in ((0, np.isin(np.arange(L), lanes)), (1, np.zeros(L, bool))):
        exp = [np.where(m, x + y, 0), np.where(m, x + 1, 0), np.where(m, np.maximum(x, y), 0), np.where(m, 3, 0),
               np.where(m, x, -1), np.where(m, x, y), np.where(m, x, -1), np.where(m, np.abs(x), 0)]
        for k, e in enumerate(exp):
            assert np.array_equal(z[8 * half + k], e.astype(T)), (half, k)


# ----------------------------------------------------------------------------------------------------------------
# 15. An explicit None where the Python default is None (decisions "Bad operands ...": only a None for a parameter
#     whose default is not None is refused)
# ----------------------------------------------------------------------------------------------------------------
@both
def _nones(x, z):
    r = R.RegTensor("half")
    q = R.RegTensor("half")
    R.LoadAlign(r, x, None)
    R.Duplicate(q, 1.0, None)
    R.StoreAlign(z, q, R.CreateMask("half"), 0)
    R.Copy(q, r, None)
    R.StoreAlign(z, q, R.CreateMask("half"), 128)
    R.Move(q, r, None, None)
    R.Store(z, q, 256, None)
    u = R.UnalignRegForLoad()
    R.LoadUnAlignPre(u, x, 1)
    R.LoadUnAlign(q, u, x, 1, None)
    R.StoreAlign(z, q, R.CreateMask("half"), 384)
    R.LoadAlign(r, x, 128, dist=None)
    R.StoreAlign(z, r, R.CreateMask("half"), None, dist=None)


def test_explicit_none_defaults():
    r = run(_nones, [("half", 256, XH[:256]), ("half", 512)])
    z = r.post(1)
    e = np.r_[np.ones(128), XH[:128], XH[:128], XH[1:129]].astype(np.float16)
    e[:128] = XH[128:256]                                                 # the last store, offset None = 0
    assert np.array_equal(z.view(np.uint16), e.view(np.uint16))
