"""Audit 38: the porting surface (tensors, GM, DataCopy, TPipe/TQue/TBuf/TBufPool, sync), checked against an
independent numpy model written from the documents only:

- /work/shared/DESIGN.md sections 2 and 6 (`tensor[i]` is the sub-tensor at offset i, GetValue/SetValue, bounds,
  refusals write nothing and name the API, parameter, value, legal range and device),
- docs/SPEC-2.md 0.2 (D29 scalars, D62), 1.4-1.8 (bounds, refusal classes), 9.1, 10 (sync),
- docs/decisions.md "Addressing, bounds and overlap" (Indexing, Slices, Count forms, Tensor bounds, Hand-made
  tensors), "Scaffolding" (DataCopy, DataCopyParams, TQue, Buffer lengths, TQue buffer order, Freed handles, TBuf's
  queue calls, TBufPool, SetValue, GlobalTensor.ReinterpretCast), "Synchronisation and kernel boilerplate".

Nothing here imports from ascend_jit's internals: the model below is plain numpy (and ml_dtypes for bfloat16).
"""
import numpy as np
import ml_dtypes
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import ascend_jit as aj

DEV = "atlas-a2"
UB_BYTES = 196608  # SPEC.md section 8: A2 UB 192 KB
HSET = settings(derandomize=True, max_examples=20, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# name -> numpy dtype (the emulator's dtypes, SPEC-2 D28 / decisions "Positions and host data")
DTYPES = {
    "int8": np.dtype(np.int8), "uint8": np.dtype(np.uint8), "int16": np.dtype(np.int16),
    "uint16": np.dtype(np.uint16), "half": np.dtype(np.float16), "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "int32": np.dtype(np.int32), "uint32": np.dtype(np.uint32), "float": np.dtype(np.float32),
    "int64": np.dtype(np.int64), "uint64": np.dtype(np.uint64),
}
DT_NAMES = sorted(DTYPES)
UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


# ----------------------------------------------------------------------------------------------------------------
# The independent model
# ----------------------------------------------------------------------------------------------------------------
class Model:
    """A UB as a flat uint8 array; tensors as (addr, dtype, size). Written from DESIGN.md 6 / decisions Indexing."""

    def __init__(self, ub_bytes):
        self.ub = np.array(ub_bytes, dtype=np.uint8, copy=True)

    def view(self, addr, dt, n):
        dt = np.dtype(dt)
        return self.ub[addr:addr + n * dt.itemsize].view(dt)

    @staticmethod
    def sub(addr, dt, size, i):
        """operator[](i): the sub-tensor i elements in; GetSize() = size - i."""
        return addr + i * np.dtype(dt).itemsize, size - i

    @staticmethod
    def reinterpret(addr, dt, size, new_dt):
        """ReinterpretCast<U>: same bytes, GetSize() = size * sizeof(T) / sizeof(U) (rounded down)."""
        return addr, size * np.dtype(dt).itemsize // np.dtype(new_dt).itemsize

    def copy_runs(self, dst_buf, dst_byte, src_buf, src_byte, block_count, block_len, src_stride, dst_stride):
        """DataCopy with DataCopyParams: blockLen and both gaps in 32-B DataBlocks (decisions.md "DataCopy")."""
        for k in range(block_count):
            s = src_byte + k * (block_len + src_stride) * 32
            d = dst_byte + k * (block_len + dst_stride) * 32
            dst_buf[d:d + block_len * 32] = src_buf[s:s + block_len * 32].copy()


def snapshot(core, gms=()):
    """Everything a refused call must leave unchanged: UB bytes, CTRL, mask register, counter mode, flags, GM."""
    return (bytes(core.ub), core.ctrl, core.mask_high, core.mask_low, core.counter_mode,
            dict(core.flags), sorted(map(str, core.pending_flags())), [bytes(np.asarray(g).view(np.uint8)) for g in gms])


def refused(core, fn, cls, api, *needles, gms=(), device=DEV):
    """fn must raise `cls` (an AscendJitError subclass) naming api, needles, a legal range and the device, and leave
    the core and GM byte-identical (DESIGN.md 2 "Errors"; SPEC-2 1.5 last bullet)."""
    before = snapshot(core, gms)
    with pytest.raises(cls) as ei:
        fn()
    e = ei.value
    assert isinstance(e, aj.AscendJitError)
    msg = str(e)
    assert api in msg, msg
    for n in needles:
        assert str(n) in msg, (n, msg)
    assert "legal" in msg.lower(), msg
    assert device in msg, msg
    assert snapshot(core, gms) == before
    return msg


def rand_values(rng, dt, n):
    dt = np.dtype(dt)
    if dt.kind == "f" or dt == DTYPES["bfloat16"]:
        return rng.uniform(-8, 8, n).astype(np.float32).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, int(info.max) + 1, n, dtype=np.int64 if info.min < 0 else np.uint64).astype(dt)


def bits(a):
    a = np.asarray(a)
    return a.view(UINT_OF_SIZE[a.dtype.itemsize])


@pytest.fixture
def core():
    return aj.Core(DEV)


def fresh(dt, n, core, rng):
    t = core.local_tensor(dt, n)
    t[:] = rand_values(rng, dt, n)
    return t


# ----------------------------------------------------------------------------------------------------------------
# 1. LocalTensor sub-tensors, element access, ReinterpretCast, host copies
# ----------------------------------------------------------------------------------------------------------------
@HSET
@given(name=st.sampled_from(DT_NAMES), n=st.integers(1, 300), data=st.data())
def test_subtensor_offsets_every_dtype(name, n, data):
    core = aj.Core(DEV)
    dt = DTYPES[name]
    rng = np.random.default_rng(n)
    t = fresh(dt, n, core, rng)
    host = t.numpy()
    i = data.draw(st.integers(0, n - 1))
    s = t[i]
    addr, size = Model.sub(t.addr, dt, n, i)
    assert (s.addr, s.GetSize(), s.size) == (addr, size, size)
    assert s.GetPhyAddr() == addr and t.GetPhyAddr(i) == addr
    assert np.dtype(s.numpy().dtype) == dt
    assert np.array_equal(bits(s.numpy()), bits(host[i:]))
    # nested offsets: t[i][j] is t[i + j]
    j = data.draw(st.integers(0, size - 1))
    nested = s[j]
    a2, s2 = Model.sub(addr, dt, size, j)
    assert (nested.addr, nested.GetSize()) == (a2, s2) == (t[i + j].addr, t[i + j].GetSize())
    # element access through the sub-tensor reads the parent's element i + j
    assert bits(np.asarray(s.GetValue(j), dt)) == bits(host[i + j])
    # a slice t[a:b] is b - a elements at a
    b = data.draw(st.integers(i, n))
    sl = t[i:b]
    assert (sl.addr, sl.GetSize()) == (addr, b - i)
    assert np.array_equal(bits(sl.numpy()), bits(host[i:b]))


@pytest.mark.parametrize("name", DT_NAMES)
def test_subtensor_index_refusals(core, name):
    dt = DTYPES[name]
    n = 64
    t = core.local_tensor(dt, n)
    t[:] = np.zeros(n, dt)
    # decisions.md Indexing: integer indices lie in [0, GetSize()); negative ones do not wrap
    refused(core, lambda: t[n], aj.OutOfBoundsError, "LocalTensor", n)
    refused(core, lambda: t[-1], aj.OutOfBoundsError, "LocalTensor", -1)
    refused(core, lambda: t[5][n - 5], aj.OutOfBoundsError, "LocalTensor", n - 5)
    # slices: 0 <= a <= b <= GetSize(); step 1 only
    refused(core, lambda: t[0:n + 1], aj.OutOfBoundsError, "stop", n + 1)
    refused(core, lambda: t[10:5], aj.OutOfBoundsError, "stop", 5)
    refused(core, lambda: t[-16:], aj.OutOfBoundsError, "start", -16)
    refused(core, lambda: t[0:8:2], aj.ParameterError, "step")
    refused(core, lambda: t[1.0], (aj.ParameterError, aj.OutOfBoundsError), "LocalTensor")

    # t[i] = v is refused with a pointer to SetValue
    def assign():
        t[3] = 1
    msg = refused(core, assign, aj.AscendJitError, "LocalTensor")
    assert "SetValue" in msg
    refused(core, lambda: t.GetValue(n), aj.OutOfBoundsError, "GetValue", n)
    refused(core, lambda: t.SetValue(n, 0), aj.OutOfBoundsError, "SetValue", n)
    refused(core, lambda: t.SetValue(-1, 0), aj.OutOfBoundsError, "SetValue", -1)


@HSET
@given(name=st.sampled_from(DT_NAMES), seed=st.integers(0, 2**31))
def test_getvalue_setvalue_bit_exact(name, seed):
    core = aj.Core(DEV)
    dt = DTYPES[name]
    rng = np.random.default_rng(seed)
    n = 48
    t = fresh(dt, n, core, rng)
    model = Model(core.ub)
    vals = rand_values(rng, dt, 8)
    idx = rng.integers(0, n, 8)
    for k, v in zip(idx, vals):
        t.SetValue(int(k), v)  # a numpy scalar of the tensor's dtype: stored bit for bit (D29)
        model.view(t.addr, dt, n)[k] = v
    assert bytes(core.ub) == bytes(model.ub)
    for k in range(n):
        g = t.GetValue(k)
        assert type(g) is dt.type  # a numpy scalar of the tensor's dtype
        assert bits(np.asarray(g, dt)) == bits(model.view(t.addr, dt, n)[k])
        # Ascend C operator(): t(i) is GetValue(i)
        assert bits(np.asarray(t(k), dt)) == bits(np.asarray(g, dt))


def test_setvalue_python_scalars_d29(core):
    # bfloat16: one RNE rounding from the exact value (decisions.md "SetValue": 1 + 2^-8 + 2^-40 -> 0x3F81)
    b = core.local_tensor("bfloat16", 16)
    b.SetValue(0, 1 + 2**-8 + 2**-40)
    assert int(bits(np.asarray(b.GetValue(0), DTYPES["bfloat16"]))) == 0x3F81
    # half: a Python float is rounded once, overflow gives inf (D29)
    h = core.local_tensor(np.float16, 16)
    h.SetValue(1, 1e6)
    assert np.isinf(float(h.GetValue(1))) and float(h.GetValue(1)) > 0
    h.SetValue(2, float("nan"))
    assert int(bits(np.asarray(h.GetValue(2), np.float16))) == 0x7E00  # canonical NaN
    # integer tensors: range-checked, never wrapped; floats and bool refused
    i8 = core.local_tensor(np.int8, 32)
    i8.SetValue(0, -128)
    assert int(i8.GetValue(0)) == -128
    refused(core, lambda: i8.SetValue(1, 128), aj.ParameterError, "SetValue", 128, "[-128, 127]")
    refused(core, lambda: i8.SetValue(1, 1.5), aj.ParameterError, "SetValue")
    refused(core, lambda: i8.SetValue(1, True), aj.ParameterError, "SetValue")
    u16 = core.local_tensor(np.uint16, 16)
    refused(core, lambda: u16.SetValue(0, -1), aj.ParameterError, "SetValue", -1)
    refused(core, lambda: h.SetValue(0, False), aj.ParameterError, "SetValue")


@pytest.mark.parametrize("src,dst", [("half", "float"), ("float", "half"), ("half", "int8"), ("int8", "bfloat16"),
                                     ("float", "uint64"), ("int64", "int16"), ("bfloat16", "uint8")])
def test_reinterpret_cast_scaling(core, src, dst):
    sdt, ddt = DTYPES[src], DTYPES[dst]
    n = 64
    t = core.local_tensor(sdt, n)
    rng = np.random.default_rng(1)
    t[:] = rand_values(rng, sdt, n)
    for off in (0, 1, 3, 17):
        base = t[off]
        r = base.ReinterpretCast(ddt)
        addr, size = Model.reinterpret(base.addr, sdt, base.GetSize(), ddt)
        assert (r.addr, r.GetSize()) == (addr, size), (off, r.addr, r.GetSize())
        assert np.dtype(r.numpy().dtype) == ddt
        raw = np.frombuffer(bytes(core.ub[addr:addr + size * ddt.itemsize]), ddt)
        assert np.array_equal(bits(r.numpy()), bits(raw))
    # writes through the reinterpretation land in the parent's bytes
    r = t.ReinterpretCast(ddt)
    r.SetValue(0, np.zeros((), ddt)[()])
    assert bytes(core.ub[t.addr:t.addr + ddt.itemsize]) == bytes(ddt.itemsize)


def test_host_copies(core):
    rng = np.random.default_rng(5)
    for name in DT_NAMES:
        dt = DTYPES[name]
        t = core.local_tensor(dt, 40)
        model = Model(core.ub)
        x = rand_values(rng, dt, 40)
        t[:] = x
        model.view(t.addr, dt, 40)[:] = x
        y = rand_values(rng, dt, 7)
        t[10:17] = y
        model.view(t.addr, dt, 40)[10:17] = y
        t[20][0:3] = y[:3]
        model.view(t.addr, dt, 40)[20:23] = y[:3]
        assert bytes(core.ub) == bytes(model.ub)
        out = t.numpy()
        out[:] = 0  # a copy: the UB keeps its bytes
        assert bytes(core.ub) == bytes(model.ub)
    h = core.local_tensor(np.float16, 16)
    refused(core, lambda: h.__setitem__(slice(None), np.zeros(17, np.float16)), aj.AscendJitError, "")
    refused(core, lambda: h.__setitem__(slice(None), None), aj.ParameterError, "")


# Instructions on sub-tensor operands: offsets in elements, every operand addressed from its sub-tensor's start.
ALIGN = lambda dt: 32 // np.dtype(dt).itemsize  # noqa: E731  elements per DataBlock


@HSET
@given(blocks=st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(0, 6)), count=st.integers(1, 200),
       name=st.sampled_from(["half", "float", "int16", "int32"]))
def test_add_on_subtensors(blocks, count, name):
    core = aj.Core(DEV)
    dt = DTYPES[name]
    rng = np.random.default_rng(count)
    n = 512
    a, b, d = (fresh(dt, n, core, rng) for _ in range(3))
    oa, ob, od = (k * ALIGN(dt) for k in blocks)
    model = Model(core.ub)
    va, vb = model.view(a.addr, dt, n)[oa:oa + count], model.view(b.addr, dt, n)[ob:ob + count]
    if dt.kind == "f":
        res = (va + vb).astype(dt)  # IEEE RNE in the type; |values| <= 16, no overflow
    else:
        res = (va.astype(np.int64) + vb.astype(np.int64)).astype(dt)  # small ints: no wrap needed
    model.view(d.addr, dt, n)[od:od + count] = res
    aj.Add(d[od], a[oa], b[ob], count)
    assert bytes(core.ub) == bytes(model.ub)


@HSET
@given(k=st.integers(0, 8), count=st.integers(1, 160), scal=st.floats(-4, 4, width=16))
def test_muls_duplicate_cast_datacopy_on_subtensors(k, count, scal):
    core = aj.Core(DEV)
    rng = np.random.default_rng(k * 1000 + count)
    n = 512
    src = fresh(np.float16, n, core, rng)
    dst = fresh(np.float16, n, core, rng)
    f32 = fresh(np.float32, n, core, rng)
    i8 = fresh(np.int8, n, core, rng)
    bf = fresh(DTYPES["bfloat16"], n, core, rng)
    model = Model(core.ub)
    oh, of, ob = k * 16, k * 8, k * 32
    # Muls: half * half scalar, exact product rounded once
    s16 = np.float16(scal)
    prod = (model.view(src.addr, np.float16, n)[oh:oh + count].astype(np.float64) * float(s16)).astype(np.float16)
    model.view(dst.addr, np.float16, n)[oh:oh + count] = prod
    aj.Muls(dst[oh], src[oh], s16, count)
    assert bytes(core.ub) == bytes(model.ub)
    # Duplicate into an int16 view of the int8 tensor and a bfloat16 sub-tensor (bit copies)
    i16 = i8.ReinterpretCast(np.int16)
    model.view(i8.addr, np.int16, n // 2)[oh:oh + count // 2] = np.int16(-7)
    aj.Duplicate(i16[oh], np.int16(-7), count // 2)
    # DataCopy UB -> UB on int8 sub-tensors (32 elements a block)
    model.view(i8.addr, np.int8, n)[ob + 32:ob + 64] = model.view(i8.addr, np.int8, n)[ob + 128:ob + 160]
    aj.DataCopy(i8[ob + 32], i8[ob + 128], 32)
    bv = np.asarray(1.5, DTYPES["bfloat16"])[()]
    model.view(bf.addr, DTYPES["bfloat16"], n)[oh:oh + count] = bv
    aj.Duplicate(bf[oh], bv, count)
    assert bytes(core.ub) == bytes(model.ub)
    # Cast half -> float (exact widening) from a sub-tensor to a sub-tensor
    model.view(f32.addr, np.float32, n)[of:of + count] = model.view(dst.addr, np.float16, n)[oh:oh + count]
    aj.Cast(f32[of], dst[oh], aj.RoundMode.CAST_NONE, count)
    assert bytes(core.ub) == bytes(model.ub)
    # DataCopy UB -> UB, element-count form: count * 2 B a multiple of 32 B
    c16 = max(16, count // 16 * 16)
    model.view(src.addr, np.float16, n)[oh:oh + c16] = model.view(dst.addr, np.float16, n)[oh + 16:oh + 16 + c16]
    aj.DataCopy(src[oh], dst[oh + 16], c16)
    assert bytes(core.ub) == bytes(model.ub)


def test_subtensor_extent_bounds(core):
    """decisions.md "Tensor bounds": every byte an instruction touches through an operand lies inside that operand's
    tensor, [addr, addr + GetSize()*sizeof(T)); count forms also refuse count > GetSize() on every core."""
    t = core.local_tensor(np.float16, 256)
    u = core.local_tensor(np.float16, 256)
    t[:] = np.arange(256, dtype=np.float16)
    u[:] = np.ones(256, np.float16)
    # count form: count past the sub-tensor's extent
    refused(core, lambda: aj.Add(t[128], u[0], u[0], 129), aj.OutOfBoundsError, "Add", 129)
    refused(core, lambda: aj.Duplicate(t[240], np.float16(1), 17), aj.OutOfBoundsError, "Duplicate", 17)
    refused(core, lambda: aj.Muls(t[0], u[128], np.float16(2), 129), aj.OutOfBoundsError, "Muls", 129)
    # high-dim form, one 128-lane repeat from a sub-tensor of 64 elements
    refused(core, lambda: aj.Add(t[192], u[0], u[0], 128, 1, aj.BinaryRepeatParams()), aj.OutOfBoundsError,
            "Add", "dst")
    # a hand-made 16-element tensor at the same place is as small as a sub-tensor of 16 elements
    refused(core, lambda: aj.Add(t[240], u[0], u[0], 128, 1, aj.BinaryRepeatParams()), aj.OutOfBoundsError, "Add")


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync,dcache", reason="a high-dim Add past its tensor's end "
                             "on purpose, through the bounds=\"ub\" escape hatch")
def test_bounds_ub_allows_high_dim_past_tensor_not_count():
    core = aj.Core(DEV, bounds="ub")
    t = core.local_tensor(np.float16, 256)
    pad = core.local_tensor(np.float16, 256)
    u = core.local_tensor(np.float16, 256)
    rng = np.random.default_rng(3)
    for x in (t, pad, u):
        x[:] = rand_values(rng, np.float16, 256)
    model = Model(core.ub)
    uu = model.view(u.addr, np.float16, 256)[:128]
    # one 128-lane repeat from t[192]: 64 lanes inside t, 64 past its end (inside the UB); bytes at byte level
    wr = (uu + uu).astype(np.float16)
    model.ub[t.addr + 384:t.addr + 384 + 256] = wr.view(np.uint8)
    aj.Add(t[192], u[0], u[0], 128, 1, aj.BinaryRepeatParams())
    assert bytes(core.ub) == bytes(model.ub)
    # the count form stays bounded by GetSize() on a bounds="ub" core (decisions.md "Count forms")
    refused(core, lambda: aj.Add(t[192], u[0], u[0], 65), aj.OutOfBoundsError, "Add", 65)


# ----------------------------------------------------------------------------------------------------------------
# 2. GlobalTensor and DataCopy
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", DT_NAMES)
def test_global_tensor_views_and_scalars(name):
    dt = DTYPES[name]
    rng = np.random.default_rng(7)
    arr = rand_values(rng, dt, 100)
    g = aj.GlobalTensor(arr)
    assert g.GetSize() == 100
    s = g[30]
    assert s.GetSize() == 70 and np.array_equal(bits(s.numpy()), bits(arr[30:]))
    assert s[10].GetSize() == 60
    v = rand_values(rng, dt, 1)[0]
    s[10].SetValue(5, v)  # element 45 of the host array: GM is the host array itself
    assert bits(arr[45]) == bits(v)
    assert bits(np.asarray(g.GetValue(45), dt)) == bits(v)
    g2 = aj.GlobalTensor()
    g2.SetGlobalBuffer(arr, 50)
    assert g2.GetSize() == 50
    g2[3:5] = arr[:2]
    assert bits(arr[3:5]).tolist() == bits(arr[:2]).tolist()
    with pytest.raises(aj.OutOfBoundsError):
        g[100]
    with pytest.raises(aj.OutOfBoundsError):
        g2.GetValue(50)
    with pytest.raises(aj.OutOfBoundsError):
        aj.GlobalTensor().SetGlobalBuffer(arr, 101)


def test_global_tensor_typed_buffer_views_bytes():
    # decisions.md: GlobalTensor(dtype=T) keeps T; SetGlobalBuffer(array) views the array's bytes as T
    arr = np.arange(16, dtype=np.float32)
    g = aj.GlobalTensor(dtype=np.float16)
    g.SetGlobalBuffer(arr)
    assert g.GetSize() == 32
    assert bits(np.asarray(g.GetValue(2), np.float16)) == arr.view(np.uint16)[2]


@pytest.mark.ascend_sanitize(checks="init,memory,blocks,sync,dcache", reason="copies GM -> UB -> GM back to back "
                             "with no MTE2_MTE3 flag between them: it checks the copies' bytes, not their order")
@HSET
@given(name=st.sampled_from(DT_NAMES), gm_off=st.integers(0, 40), blocks=st.integers(1, 6), ub_blk=st.integers(0, 3))
def test_datacopy_count_form_gm_ub(name, gm_off, blocks, ub_blk):
    core = aj.Core(DEV)
    dt = DTYPES[name]
    per = ALIGN(dt)
    count = blocks * per
    rng = np.random.default_rng(gm_off * 7 + blocks)
    src = rand_values(rng, dt, gm_off + count + 5)
    out = rand_values(rng, dt, gm_off + count + 5)
    out0 = out.copy()
    t = fresh(dt, 4 * per + count, core, rng)
    model = Model(core.ub)
    gin, gout = aj.GlobalTensor(src), aj.GlobalTensor(out)
    ub_off = ub_blk * per
    # GM -> UB at any GM element offset (GM has no alignment rule, SPEC 8.2)
    model.view(t.addr, dt, 4 * per + count)[ub_off:ub_off + count] = src[gm_off:gm_off + count]
    aj.DataCopy(t[ub_off], gin[gm_off], count)
    assert bytes(core.ub) == bytes(model.ub)
    # UB -> GM
    aj.DataCopy(gout[gm_off], t[ub_off], count)
    exp = out0.copy()
    exp[gm_off:gm_off + count] = src[gm_off:gm_off + count]
    assert np.array_equal(bits(out), bits(exp))
    assert bytes(core.ub) == bytes(model.ub)


@HSET
@given(bc=st.integers(1, 5), bl=st.integers(1, 3), ss=st.integers(0, 3), ds=st.integers(0, 3),
       gm_off=st.integers(0, 20), name=st.sampled_from(["half", "float", "int8", "bfloat16", "int64"]))
def test_datacopy_params_form(bc, bl, ss, ds, gm_off, name):
    core = aj.Core(DEV)
    dt = DTYPES[name]
    rng = np.random.default_rng(bc * 100 + bl * 10 + ss)
    isz = dt.itemsize
    span_src = (bc * (bl + ss)) * 32 // isz
    span_dst = (bc * (bl + ds)) * 32 // isz
    gsrc = rand_values(rng, dt, gm_off + span_src + 3)
    ub_src = fresh(dt, span_src, core, rng)
    ub_dst = fresh(dt, span_dst, core, rng)
    ub_dst2 = fresh(dt, span_dst, core, rng)
    gdst = rand_values(rng, dt, gm_off + span_dst + 3)
    model = Model(core.ub)
    p = aj.DataCopyParams(bc, bl, ss, ds)
    # GM -> UB
    gbytes = gsrc.view(np.uint8)
    model.copy_runs(model.ub, ub_dst.addr, gbytes, gm_off * isz, bc, bl, ss, ds)
    aj.DataCopy(ub_dst, aj.GlobalTensor(gsrc)[gm_off], p)
    assert bytes(core.ub) == bytes(model.ub)
    # UB -> UB (brace-list form)
    model.copy_runs(model.ub, ub_dst2.addr, model.ub, ub_src.addr, bc, bl, ss, ds)
    aj.DataCopy(ub_dst2, ub_src, (bc, bl, ss, ds))
    assert bytes(core.ub) == bytes(model.ub)
    # UB -> GM
    exp = gdst.copy()
    model.copy_runs(exp.view(np.uint8), gm_off * isz, model.ub, ub_src.addr, bc, bl, ss, ds)
    aj.DataCopy(aj.GlobalTensor(gdst)[gm_off], ub_src, p)
    assert np.array_equal(bits(gdst), bits(exp))


def test_datacopy_refusals(core):
    g_arr = np.zeros(200, np.float16)
    g = aj.GlobalTensor(g_arr)
    t = core.local_tensor(np.float16, 64)
    gms = (g_arr,)
    # count * sizeof(T) a multiple of 32 (partial blocks are refused: decisions.md "DataCopy")
    refused(core, lambda: aj.DataCopy(t, g, 8), aj.AlignmentError, "DataCopy", "count", 8, gms=gms)
    refused(core, lambda: aj.DataCopy(g, t, 24), aj.AlignmentError, "DataCopy", "count", 24, gms=gms)
    # UB address 32-B aligned
    refused(core, lambda: aj.DataCopy(t[8], g, 16), aj.AlignmentError, "DataCopy", gms=gms)
    refused(core, lambda: aj.DataCopy(g, t[1], 16), aj.AlignmentError, "DataCopy", gms=gms)
    # past either tensor's end
    refused(core, lambda: aj.DataCopy(t, g[176], 32), aj.OutOfBoundsError, "DataCopy", gms=gms)
    refused(core, lambda: aj.DataCopy(t[16], g, 64), aj.OutOfBoundsError, "DataCopy", gms=gms)
    refused(core, lambda: aj.DataCopy(g[160], t, 64), aj.OutOfBoundsError, "DataCopy", gms=gms)
    # DataCopyParams ranges: blockCount [1, 4095], blockLen [1, 65535]
    refused(core, lambda: aj.DataCopy(t, g, aj.DataCopyParams(0, 1, 0, 0)), aj.ParameterError, "DataCopy",
            "blockCount", 0, "[1, 4095]", gms=gms)
    refused(core, lambda: aj.DataCopy(t, g, aj.DataCopyParams(4096, 1, 0, 0)), aj.ParameterError, "DataCopy",
            "blockCount", 4096, gms=gms)
    refused(core, lambda: aj.DataCopy(t, g, aj.DataCopyParams(1, 0, 0, 0)), aj.ParameterError, "DataCopy",
            "blockLen", gms=gms)
    refused(core, lambda: aj.DataCopy(t, g, aj.DataCopyParams(2, 2, 0, 1)), aj.OutOfBoundsError, "DataCopy",
            gms=gms)
    refused(core, lambda: aj.DataCopy(t, g, (1, 1, 0)), aj.ParameterError, "DataCopy", gms=gms)
    # GM -> GM and host arrays are not copies the hardware has
    with core:  # no LocalTensor operand: the device is the current core's (decisions.md "The device of ...")
        refused(core, lambda: aj.DataCopy(g, g[32], 16), aj.ParameterError, "DataCopy", gms=gms)
    refused(core, lambda: aj.DataCopy(t, g_arr, 16), aj.ParameterError, "DataCopy", gms=gms)
    # a read-only GM destination
    ro = np.zeros(64, np.float16)
    ro.flags.writeable = False
    refused(core, lambda: aj.DataCopy(aj.GlobalTensor(ro), t, 32), aj.ParameterError, "DataCopy", gms=gms)


def test_global_tensor_refusals(core):
    arr = np.zeros(64, np.float32)
    with core:
        refused(core, lambda: aj.GlobalTensor().SetGlobalBuffer(arr, 65), aj.OutOfBoundsError,
                "SetGlobalBuffer", 65, "after its GetBlockIdx() guard", gms=(arr,))   # C++ only records it: port52c
        refused(core, lambda: aj.GlobalTensor().SetGlobalBuffer([1.0, 2.0]), aj.ParameterError,
                "SetGlobalBuffer", gms=(arr,))
        g = aj.GlobalTensor(arr)
        refused(core, lambda: g[64], aj.OutOfBoundsError, "GlobalTensor", 64, gms=(arr,))
        refused(core, lambda: g.GetValue(-1), aj.OutOfBoundsError, "GetValue", -1, gms=(arr,))
        refused(core, lambda: g.SetValue(64, 1.0), aj.OutOfBoundsError, "SetValue", 64, gms=(arr,))


# ----------------------------------------------------------------------------------------------------------------
# 3. TPipe / TQue / TBuf / TQueBind / TBufPool
# ----------------------------------------------------------------------------------------------------------------
def round32(n):
    return (n + 31) // 32 * 32


@HSET
@given(lens=st.lists(st.integers(1, 3000), min_size=1, max_size=5), nums=st.lists(st.integers(1, 3), min_size=5,
                                                                                    max_size=5),
       name=st.sampled_from(DT_NAMES))
def test_initbuffer_rounding_and_addresses(lens, nums, name):
    core = aj.Core(DEV)
    dt = DTYPES[name]
    pipe = aj.TPipe(core)
    ranges = []
    for ln, num in zip(lens, nums):
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, num, ln)
        ts = [q.AllocTensor(dt) for _ in range(num)]
        for t in ts:
            assert t.addr % 32 == 0
            assert t.GetSize() == round32(ln) // dt.itemsize  # decisions.md "Buffer lengths"
            ranges.append((t.addr, t.addr + round32(ln)))
        tb = aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(tb, ln)
        whole = tb.Get(dt)
        assert whole.addr % 32 == 0 and whole.GetSize() == round32(ln) // dt.itemsize
        ranges.append((whole.addr, whole.addr + round32(ln)))
        part = tb.Get(dt, 1)
        assert (part.addr, part.GetSize()) == (whole.addr, 1)
    ranges.sort()
    for (a0, a1), (b0, b1) in zip(ranges, ranges[1:]):
        assert a1 <= b0  # disjoint
    assert ranges[-1][1] <= UB_BYTES


def test_initbuffer_beyond_ub(core):
    pipe = aj.TPipe(core)
    q = aj.TQue(aj.TPosition.VECIN, 1)
    refused(core, lambda: pipe.InitBuffer(q, 1, UB_BYTES + 1), (aj.ParameterError, aj.OutOfBoundsError),
            "InitBuffer", UB_BYTES + 1)
    pipe.InitBuffer(q, 2, 64 * 1024)
    b = aj.TBuf()
    refused(core, lambda: pipe.InitBuffer(b, 64 * 1024 + 32), (aj.ParameterError, aj.OutOfBoundsError),
            "InitBuffer")
    q2 = aj.TQue(aj.TPosition.VECOUT, 1)
    refused(core, lambda: pipe.InitBuffer(q2, 2, 32 * 1024 + 1), (aj.ParameterError, aj.OutOfBoundsError),
            "InitBuffer")
    pipe.InitBuffer(q2, 1, 0)   # a 0-byte buffer, as the device build gives (its len > 0 assert is CPU-debug's)
    assert q2.AllocTensor(np.float16).GetSize() == 0
    # what does fit still fits
    pipe.InitBuffer(b, 64 * 1024)
    assert b.Get(np.uint8).GetSize() == 64 * 1024


def test_tque_ordering_rules(core):
    pipe = aj.TPipe(core)
    q = aj.TQue(aj.TPosition.VECIN, 2)
    pipe.InitBuffer(q, 2, 256)
    a = q.AllocTensor(np.float16)
    b = q.AllocTensor(np.float16)
    assert a.addr != b.addr
    refused(core, lambda: q.AllocTensor(np.float16), aj.StateError, "AllocTensor")
    refused(core, lambda: q.DeQue(np.float16), aj.StateError, "DeQue")
    a.SetValue(0, np.float16(3))
    q.EnQue(a)
    q.EnQue(b)
    x = q.DeQue(np.float16)  # FIFO
    assert x.addr == a.addr and float(x.GetValue(0)) == 3.0
    y = q.DeQue(np.float16)
    assert y.addr == b.addr
    q.FreeTensor(x)
    refused(core, lambda: q.FreeTensor(x), aj.StateError, "FreeTensor")
    refused(core, lambda: x.GetValue(0), aj.StateError, "GetValue")
    refused(core, lambda: aj.Duplicate(x, np.float16(1), 16), aj.StateError, "Duplicate")
    q.FreeTensor(y)
    # a depth-2 queue alternates its buffers even when each is freed first (decisions.md "TQue buffer order")
    addrs = []
    for _ in range(4):
        t = q.AllocTensor(np.float16)
        addrs.append(t.addr)
        q.FreeTensor(t)
    assert addrs[0] != addrs[1] and addrs[0] == addrs[2] and addrs[1] == addrs[3]
    # a tensor of another queue
    q2 = aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(q2, 1, 64)
    o = q2.AllocTensor(np.float16)
    refused(core, lambda: q.FreeTensor(o), aj.StateError, "FreeTensor")
    refused(core, lambda: q.EnQue(o), aj.StateError, "EnQue")
    loose = core.local_tensor(np.float16, 32)
    refused(core, lambda: q.EnQue(loose), aj.StateError, "EnQue")


def test_tque_depth(core):
    pipe = aj.TPipe(core)
    q = aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(q, 2, 64)
    a, b = q.AllocTensor(np.int32), q.AllocTensor(np.int32)
    q.EnQue(a)
    refused(core, lambda: q.EnQue(b), aj.StateError, "EnQue", "depth")
    # EnQue<T> / DeQue<T> with the C++ template arguments first
    got = q.DeQue("int32")
    q.EnQue("int32", got)
    got = q.DeQue(np.int32)
    q.FreeTensor(got)
    q.FreeTensor(b)
    with core:
        refused(core, lambda: aj.TQue(2), aj.ParameterError, "TQue")


def test_tquebind_and_tbuf_queue_calls(core):
    pipe = aj.TPipe(core)
    qb = aj.TQueBind(aj.TPosition.VECIN, aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(qb, 1, 96)
    t = qb.AllocTensor(np.float32)
    assert t.GetSize() == 96 // 4 and t.addr % 32 == 0
    t[:] = np.arange(24, dtype=np.float32)
    qb.EnQue(t)
    u = qb.DeQue(np.float32)
    assert np.array_equal(u.numpy(), np.arange(24, dtype=np.float32))
    qb.FreeTensor(u)
    tb = aj.TBuf(aj.TPosition.VECCALC)
    pipe.InitBuffer(tb, 100)
    g = tb.Get(np.float16)
    assert g.GetSize() == 128 // 2
    w = tb.GetWithOffset(np.float16, 16, 32)
    assert (w.addr, w.GetSize()) == (g.addr + 32, 16)
    refused(core, lambda: tb.GetWithOffset(np.float16, 16, 16), aj.AlignmentError, "GetWithOffset")
    refused(core, lambda: tb.GetWithOffset(np.float16, 49, 32), (aj.OutOfBoundsError, aj.ParameterError),
            "GetWithOffset")
    refused(core, lambda: tb.Get(np.float16, 65), (aj.OutOfBoundsError, aj.ParameterError), "Get", 65)
    # TBuf's queue calls are Get / no-ops (decisions.md "TBuf's queue calls")
    a = tb.AllocTensor(np.float16)
    assert (a.addr, a.GetSize()) == (g.addr, g.GetSize())
    tb.EnQue(a)
    tb.FreeTensor(a)
    a.SetValue(0, np.float16(1))  # still usable: FreeTensor is a no-op on a TBuf


def test_tbufpool_reset_destroy(core):
    pipe = aj.TPipe(core)
    pool = aj.TBufPool(aj.TPosition.VECCALC)
    pipe.InitBufPool(pool, 1000)
    q = aj.TQue(aj.TPosition.VECIN, 1)
    pool.InitBuffer(q, 2, 300)
    tb = aj.TBuf()
    pool.InitBuffer(tb, 100)
    t0 = q.AllocTensor(np.uint8)
    base = t0.addr
    assert base % 32 == 0 and t0.GetSize() == 320
    assert tb.Get(np.uint8).addr == base + 640
    # past the pool's 1024 bytes
    tb2 = aj.TBuf()
    refused(core, lambda: pool.InitBuffer(tb2, 300), aj.OutOfBoundsError, "InitBuffer")
    q.FreeTensor(t0)
    tbt = tb.Get(np.uint8)
    pool.Reset()
    with core:
        refused(core, lambda: q.AllocTensor(np.uint8), aj.StateError, "AllocTensor")
    refused(core, lambda: tbt.GetValue(0), aj.StateError, "GetValue")
    # Destroy kills live tensors of the pipe
    q3 = aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(q3, 1, 64)
    live = q3.AllocTensor(np.float16)
    pipe.Destroy()
    refused(core, lambda: live.SetValue(0, np.float16(1)), aj.StateError, "SetValue")
    # the UB is free again: a new pipe can take almost all of it
    p2 = aj.TPipe(core)
    big = aj.TBuf()
    p2.InitBuffer(big, 160 * 1024)
    assert big.Get(np.uint8).GetSize() == 160 * 1024


class QueueModel:
    """decisions.md "TQue", "TQue buffer order", "Freed handles stay dead": num buffers, a cursor that moves on at
    every look (wrapping) and takes the first free buffer it looks at (a refused AllocTensor leaves it), a FIFO of at
    most `depth` enqueued tensors."""

    def __init__(self, num, depth):
        self.num, self.depth = num, depth
        self.cursor = 0
        self.busy = [False] * num
        self.fifo = []

    def alloc(self):
        if all(self.busy):
            return None
        while True:
            b = self.cursor
            self.cursor = (self.cursor + 1) % self.num
            if not self.busy[b]:
                self.busy[b] = True
                return b


@settings(derandomize=True, max_examples=25, deadline=None, database=None)
@given(num=st.integers(1, 4), depth=st.integers(1, 3), ops=st.lists(st.tuples(st.sampled_from(
    ["alloc", "enq", "deq", "free", "free_again"]), st.integers(0, 7)), min_size=1, max_size=30))
def test_tque_sequences_against_model(num, depth, ops):
    core = aj.Core(DEV)
    pipe = aj.TPipe(core)
    q = aj.TQue(aj.TPosition.VECOUT, depth)
    pipe.InitBuffer(q, num, 64)
    m = QueueModel(num, depth)
    base = None
    held = []  # (tensor, buffer index) allocated or dequeued, not enqueued
    queued = []  # FIFO of (tensor, buffer)
    freed = []
    for op, k in ops:
        if op == "alloc":
            b = m.alloc()
            if b is None:
                refused(core, lambda: q.AllocTensor(np.float16), aj.StateError, "AllocTensor")
                continue
            t = q.AllocTensor(np.float16)
            if base is None:
                base = t.addr - b * 64
            assert t.addr == base + b * 64, (t.addr, base, b)
            assert t.GetSize() == 32
            held.append((t, b))
        elif op == "enq":
            if not held:
                continue
            j = k % len(held)
            t, b = held[j]
            if len(queued) >= depth:
                refused(core, lambda: q.EnQue(t), aj.StateError, "EnQue")
                continue
            q.EnQue(t)
            del held[j]  # by position: tensors compare by identity only (== makes an expression)
            queued.append((t, b))
        elif op == "deq":
            if not queued:
                refused(core, lambda: q.DeQue(np.float16), aj.StateError, "DeQue")
                continue
            t, b = queued.pop(0)
            d = q.DeQue(np.float16)
            assert d.addr == base + b * 64
            held.append((d, b))
        elif op == "free":
            if not held:
                continue
            t, b = held.pop(k % len(held))
            q.FreeTensor(t)
            m.busy[b] = False
            freed.append(t)
        else:
            if not freed:
                continue
            t = freed[k % len(freed)]
            refused(core, lambda: q.FreeTensor(t), aj.StateError, "FreeTensor")
            refused(core, lambda: t.GetValue(0), aj.StateError, "GetValue")


def test_freed_subtensors_and_reinterpretations_die(core):
    pipe = aj.TPipe(core)
    q = aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(q, 1, 128)
    x = q.AllocTensor(np.float16)
    sub, rc = x[16], x.ReinterpretCast(np.int32)
    q.FreeTensor(x)
    refused(core, lambda: sub.GetValue(0), aj.StateError, "GetValue")
    refused(core, lambda: rc.SetValue(0, 1), aj.StateError, "SetValue")
    refused(core, lambda: x[8].GetValue(0), aj.StateError, "GetValue")
    refused(core, lambda: x.numpy(), aj.StateError, "")
    y = q.AllocTensor(np.float16)  # the same buffer under a new lease: the old handles stay dead
    assert y.addr == x.addr
    refused(core, lambda: aj.Duplicate(sub, np.float16(1), 16), aj.StateError, "Duplicate")
    y.SetValue(0, np.float16(2))


def test_hard_event_values_and_pipe_pairs(core):
    # decisions.md: HardEvent values are the devkit header's order, MTE2_MTE1 = 0 ... FIX_FIX = 34; an event is the
    # hardware flag of its (src pipe, dst pipe), shared with TQueSync<src, dst> (SPEC-2 10.1/10.2)
    pipes = {"S": "PIPE_S", "V": "PIPE_V", "M": "PIPE_M", "MTE1": "PIPE_MTE1", "MTE2": "PIPE_MTE2",
             "MTE3": "PIPE_MTE3", "FIX": "PIPE_FIX"}
    with core:
        for value, name in enumerate(HARD_EVENTS):
            ev = getattr(aj.HardEvent, name)
            assert ev.value == value
            src, dst = name.split("_")
            if src == dst:   # V_V, FIX_FIX: TQueSync static_asserts src != dst (audit 45s); the ISASI call sets them
                aj.SetFlag(2, event=value)
            else:
                aj.TQueSync(getattr(aj, pipes[src]), getattr(aj, pipes[dst])).SetFlag(2)
            assert core.pending_flags()
            aj.WaitFlag(2, event=value)  # the integer value is accepted where the member is
            assert not core.pending_flags()
    assert (int(aj.PIPE_S), int(aj.PIPE_ALL), int(aj.PIPE_FIX)) == (1, 10, 11)


def test_hard_event_is_int_enum():
    """SPEC-2 1.1 lists aj.HardEvent among the IntEnums (a plain Enum until session 38)."""
    for value, name in enumerate(HARD_EVENTS):
        ev = getattr(aj.HardEvent, name)
        assert isinstance(ev, int) and int(ev) == value


@pytest.mark.parametrize("which", ["DeQue-empty", "AllocTensor-unbound"])
def test_refusal_messages_name_parameter_and_value(core, which):
    """DESIGN.md 2 "Errors": every refusal's message names the API, the parameter, the value, the legal range and
    the device. These two queue refusals had named neither a parameter nor a value until session 38."""
    pipe = aj.TPipe(core)
    q = aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(q, 1, 64)
    if which == "DeQue-empty":
        msg = refused(core, lambda: q.DeQue(np.float16), aj.StateError, "DeQue")
    else:
        with core:
            q2 = aj.TQue(aj.TPosition.VECIN, 1)
            msg = refused(core, lambda: q2.AllocTensor(np.float16), aj.StateError, "AllocTensor")
    assert "parameter '" in msg and "' = " in msg, msg


# ----------------------------------------------------------------------------------------------------------------
# 4. Refusal hygiene with non-default core state
# ----------------------------------------------------------------------------------------------------------------
def test_refusals_keep_core_state(core):
    with core:
        aj.SetMaskCount()
        aj.SetVectorMask(0x1234, 0x5678)
        aj.SetSaturationFlag(True) if hasattr(aj, "SetSaturationFlag") else None
        aj.SetFlag(3, event=aj.HardEvent.MTE2_V)
        arr = np.arange(64, dtype=np.float16)
        g = aj.GlobalTensor(arr)
        t = core.local_tensor(np.float16, 64)
        t[:] = arr
        gms = (arr,)
        refused(core, lambda: aj.SetFlag(3, event=aj.HardEvent.MTE2_V), aj.StateError, "SetFlag", gms=gms)
        refused(core, lambda: aj.DataCopy(t, g, aj.DataCopyParams(2, 2, 1, 0)), aj.OutOfBoundsError, "DataCopy",
                gms=gms)
        refused(core, lambda: aj.DataCopy(g[1], t[16], 64), aj.OutOfBoundsError, "DataCopy", gms=gms)
        refused(core, lambda: t.SetValue(0, 1j), aj.ParameterError, "SetValue", gms=gms)
        refused(core, lambda: g.SetValue(0, True), aj.ParameterError, "SetValue", gms=gms)
        refused(core, lambda: t.ReinterpretCast("complex64"), aj.UnsupportedDTypeError, "ReinterpretCast", gms=gms)
        refused(core, lambda: aj.Add(t[16], t[0], t[32], 64), aj.OutOfBoundsError, "Add", gms=gms)
        aj.WaitFlag(3, event=aj.HardEvent.MTE2_V)
        assert core.pending_flags() == [] or not core.pending_flags()


# ----------------------------------------------------------------------------------------------------------------
# 5. Sync calls
# ----------------------------------------------------------------------------------------------------------------
HARD_EVENTS = ["MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1", "MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3", "M_V", "V_M",
               "V_V", "MTE3_MTE1", "MTE1_MTE3", "MTE1_V", "MTE2_M", "M_MTE2", "V_MTE1", "M_FIX", "FIX_M",
               "MTE3_MTE2", "MTE2_MTE3", "S_V", "V_S", "S_MTE2", "MTE2_S", "S_MTE3", "MTE3_S", "MTE2_FIX",
               "FIX_MTE2", "FIX_S", "M_S", "FIX_MTE3", "MTE1_FIX", "FIX_MTE1", "FIX_FIX"]


def test_hard_event_names_and_flags(core):
    assert len(HARD_EVENTS) == 35
    with core:
        for name in HARD_EVENTS:
            ev = getattr(aj.HardEvent, name)
            for i in (0, 7):
                aj.SetFlag(i, event=ev)
                aj.WaitFlag(i, event=ev)
            aj.SetFlag(event_id=aj.EVENT_ID5, event=ev)
            aj.WaitFlag(event_id=aj.EVENT_ID5, event=ev)
        assert not core.pending_flags()
        refused(core, lambda: aj.SetFlag(8, event=aj.HardEvent.V_S), aj.ParameterError, "SetFlag", 8, "[0, 7]")
        refused(core, lambda: aj.WaitFlag(0, event=aj.HardEvent.V_S), aj.StateError, "WaitFlag")
        refused(core, lambda: aj.SetFlag(aj.HardEvent.V_MTE3, 0), aj.ParameterError, "SetFlag")
        for p in ("PIPE_V", "PIPE_ALL", "PIPE_MTE2", "PIPE_MTE3"):
            aj.PipeBarrier(getattr(aj, p))
            aj.PipeBarrier(getattr(aj.Pipe, p))
        refused(core, lambda: aj.PipeBarrier(aj.PIPE_S), aj.ParameterError, "PipeBarrier", "PIPE_S")
        s = aj.TQueSync(aj.PIPE_MTE2, aj.PIPE_V)
        s.SetFlag(1)
        aj.WaitFlag(1, event=aj.HardEvent.MTE2_V)  # the same hardware flag
    assert not core.pending_flags()


def test_event_ids_910_and_310b():
    c910 = aj.Core("atlas-training")
    with c910:
        aj.SetFlag(3, event=aj.HardEvent.V_S)
        aj.WaitFlag(3, event=aj.HardEvent.V_S)
        refused(c910, lambda: aj.SetFlag(4, event=aj.HardEvent.V_S), aj.ParameterError, "SetFlag", 4,
                device="atlas-training")
    c310b = aj.Core("atlas-200i-500-a2")
    with c310b:
        refused(c310b, lambda: aj.SetFlag(0, event=aj.HardEvent.V_S), aj.UnsupportedDeviceError, "SetFlag",
                device="atlas-200i-500-a2")
        s = aj.TQueSync(aj.PIPE_V, aj.PIPE_S)
        s.SetFlag(0)
        s.WaitFlag(0)


def _block_kernel(out):
    i = aj.GetBlockIdx()
    n = aj.GetBlockNum()
    aj.SetFlag(0, event=aj.HardEvent.S_V)
    aj.WaitFlag(0, event=aj.HardEvent.S_V)
    aj.PipeBarrier(aj.PIPE_ALL)
    out[i] = i * 100 + n
    return i


def _dangling_kernel():
    aj.SetFlag(0, event=aj.HardEvent.S_V)


@pytest.mark.parametrize("parallel", [False, True])
def test_launch_block_idx_num(parallel):
    out = np.zeros(4, np.int64)
    res = aj.launch(_block_kernel, 4, DEV, out, parallel=parallel)
    assert list(res) == [0, 1, 2, 3]
    assert out.tolist() == [4, 104, 204, 304]
    with pytest.raises(aj.StateError):
        aj.launch(_dangling_kernel, 2, DEV, parallel=False)



UB_OF = {"ascend950": 253952, "atlas-a3": 196608, "atlas-a2": 196608, "atlas-200i-500-a2": 253952,
         "atlas-inference-aicore": 262144, "atlas-training": 262144}  # SPEC.md 8, decisions TOTAL_UB_SIZE


@pytest.mark.parametrize("dev", sorted(UB_OF))
def test_ub_size_and_pipe_limits_per_device(dev):
    core = aj.Core(dev)
    assert core.ub.size == UB_OF[dev]
    pipe = aj.TPipe(core)
    a, b = aj.TBuf(), aj.TBuf()
    pipe.InitBuffer(a, UB_OF[dev] - 64)
    refused(core, lambda: pipe.InitBuffer(b, 65), (aj.OutOfBoundsError, aj.ParameterError), "InitBuffer",
            device=dev)
    pipe.InitBuffer(b, 33)  # rounds to 64 bytes: exactly fills the UB
    assert b.Get(np.uint8).GetSize() == 64 and b.Get(np.uint8).addr + 64 <= UB_OF[dev]
    t = a.Get(np.float16)
    refused(core, lambda: t[UB_OF[dev] // 2], aj.OutOfBoundsError, "LocalTensor", device=dev)


@pytest.mark.parametrize("dev", ["atlas-a2", "ascend950"])
def test_refused_high_dim_calls_keep_mask_register(dev):
    core = aj.Core(dev)
    t = core.local_tensor(np.float16, 256)
    u = core.local_tensor(np.float16, 256)
    with core:
        aj.SetVectorMask(0xF0F0, 0x0F0F)
        # bit-mask high-dim calls write the mask register on these devices (SPEC D22 / SPEC-2 D31) when they run;
        # refused ones must not
        refused(core, lambda: aj.Add(t[192], u, u, [0xFFFF, 0xFFFF], 1, aj.BinaryRepeatParams()),
                aj.OutOfBoundsError, "Add", device=dev)
        refused(core, lambda: aj.Muls(t[8], u, np.float16(2), [1, 0], 1, aj.UnaryRepeatParams()),
                aj.AlignmentError, "Muls", device=dev)
        refused(core, lambda: aj.Duplicate(t, np.float16(1), [1, 0], 256, 1, 8), aj.ParameterError,
                "Duplicate", 256, device=dev)
        refused(core, lambda: aj.SetVectorMask(2**64, 0), aj.ParameterError, "SetVectorMask", device=dev)
        aj.SetMaskCount()
        refused(core, lambda: aj.Add(t, u, u, 257, 1, aj.BinaryRepeatParams()), aj.OutOfBoundsError, "Add",
                device=dev)


def test_datacopy_across_cores_refused(core):
    other = aj.Core(DEV)
    t = core.local_tensor(np.float16, 64)
    o = other.local_tensor(np.float16, 64)
    before = bytes(other.ub)
    refused(core, lambda: aj.DataCopy(t, o, 64), aj.ParameterError, "DataCopy")
    refused(core, lambda: aj.DataCopy(o, t, 64), aj.ParameterError, "DataCopy")
    assert bytes(other.ub) == before


def test_datacopy_ub_to_ub_overlap_is_memmove(core):
    # decisions.md "DataCopy per call": UB -> UB runs are one memmove each; a later run reads what an earlier wrote
    t = core.local_tensor(np.float16, 256)
    t[:] = np.arange(256, dtype=np.float16)
    model = Model(core.ub)
    v = model.view(t.addr, np.float16, 256)
    v[16:80] = v[0:64].copy()
    aj.DataCopy(t[16], t[0], 64)
    assert bytes(core.ub) == bytes(model.ub)
    # params form: three runs of two blocks each, dst one block... runs overlap their successors' sources
    model.copy_runs(model.ub, t.addr + 64, model.ub, t.addr, 3, 2, 0, 0)
    aj.DataCopy(t[32], t[0], aj.DataCopyParams(3, 2, 0, 0))
    assert bytes(core.ub) == bytes(model.ub)


def test_global_tensor_scalars_d29():
    core = aj.Core(DEV)
    arr = np.zeros(8, np.int8)
    g = aj.GlobalTensor(arr)
    with core:
        g.SetValue(0, -5)
        assert arr[0] == -5 and int(g.GetValue(0)) == -5
        refused(core, lambda: g.SetValue(1, 300), aj.ParameterError, "SetValue", 300, gms=(arr,))
        refused(core, lambda: g.SetValue(1, 0.5), aj.ParameterError, "SetValue", gms=(arr,))
        bf = np.zeros(4, DTYPES["bfloat16"])
        aj.GlobalTensor(bf).SetValue(2, 1 + 2**-8 + 2**-40)
        assert bf.view(np.uint16)[2] == 0x3F81
        sl = aj.GlobalTensor(arr)[2:6]
        assert sl.GetSize() == 4
        refused(core, lambda: aj.GlobalTensor(arr)[2:9], aj.OutOfBoundsError, "stop", 9, gms=(arr,))
        refused(core, lambda: sl.GetValue(4), aj.OutOfBoundsError, "GetValue", 4, gms=(arr,))


def test_global_reinterpret_cast_950_only():
    c9 = aj.Core("ascend950")
    arr = np.arange(9, dtype=np.float16)
    with c9:
        g = aj.GlobalTensor(arr)
        r = g.ReinterpretCast(np.float32)
        assert r.GetSize() == 4  # 18 bytes as float: rounded down
        r.SetValue(0, np.float32(0))
        assert arr.view(np.uint16)[:2].tolist() == [0, 0]
        refused(c9, lambda: g[1].ReinterpretCast(np.float32), aj.ParameterError, "ReinterpretCast", device="ascend950",
                gms=(arr,))
    c2 = aj.Core(DEV)
    with c2:
        refused(c2, lambda: aj.GlobalTensor(arr).ReinterpretCast(np.float32), aj.UnsupportedDeviceError,
                "ReinterpretCast", gms=(arr,))


FLOAT_FMT = {"half": (5, 10, 0x7E00), "bfloat16": (8, 7, 0x7FC0), "float": (8, 23, 0x7FC00000)}


def rne_bits(x, name):
    """Round the exact value x (a Python float or int) to the format with one RNE rounding; IEEE overflow to inf,
    gradual underflow, NaN -> the canonical NaN (SPEC-2 D29). Plain integer arithmetic on Fractions."""
    from fractions import Fraction
    import math
    ebits, mbits, qnan = FLOAT_FMT[name]
    if isinstance(x, float) and math.isnan(x):
        return qnan
    sign = 0
    if (isinstance(x, float) and math.copysign(1.0, x) < 0) or (not isinstance(x, float) and x < 0):
        sign = 1
    total = 1 + ebits + mbits
    sbit = sign << (total - 1)
    if isinstance(x, float) and math.isinf(x):
        return sbit | (((1 << ebits) - 1) << mbits)
    a = abs(Fraction(x))
    if a == 0:
        return sbit
    bias = (1 << (ebits - 1)) - 1
    emin = 1 - bias
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, emin)
    q = a / Fraction(2) ** (e - mbits)
    n = q.numerator // q.denominator
    rem = q - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1):
        n += 1
    if n == 1 << (mbits + 1):
        n >>= 1
        e += 1
    if e > bias:
        return sbit | (((1 << ebits) - 1) << mbits)
    if n < (1 << mbits):
        return sbit | n
    return sbit | ((e + bias) << mbits) | (n - (1 << mbits))


def test_rne_model_self_check():
    # the model against numpy's own correctly rounded double -> half and -> float conversions on easy values
    np.seterr(over="ignore")
    for v in (1.0, -2.5, 65504.0, 65520.0, 2.0**-24, 2.0**-25, 3 * 2.0**-26, 1e-30, 0.1, -0.0):
        assert rne_bits(v, "half") == int(np.array(v, np.float64).astype(np.float16).view(np.uint16))
        assert rne_bits(v, "float") == int(np.array(v, np.float64).astype(np.float32).view(np.uint32))
    assert rne_bits(1 + 2**-8 + 2**-40, "bfloat16") == 0x3F81


@settings(derandomize=True, max_examples=60, deadline=None, database=None)
@given(name=st.sampled_from(sorted(FLOAT_FMT)), x=st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-70000, 70000), st.floats(-1e-6, 1e-6),
    st.integers(-2**130, 2**130), st.integers(-70000, 70000)), gm=st.booleans())
def test_setvalue_python_number_rounds_once(name, x, gm):
    core = aj.Core(DEV)
    dt = DTYPES[name]
    with core:
        if gm:
            arr = np.zeros(4, dt)
            aj.GlobalTensor(arr).SetValue(1, x)
            got = int(arr.view(UINT_OF_SIZE[dt.itemsize])[1])
        else:
            t = core.local_tensor(dt, 32)
            t.SetValue(1, x)
            got = int(bits(np.asarray(t.GetValue(1), dt)))
    assert got == rne_bits(x, name), (hex(got), hex(rne_bits(x, name)))


@pytest.mark.parametrize("name", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"])
def test_setvalue_integer_ranges(core, name):
    dt = DTYPES[name]
    info = np.iinfo(dt)
    t = core.local_tensor(dt, 32)
    for v in (int(info.min), int(info.max), 0, np.int8(-1) if info.min < 0 else np.uint8(255)):
        t.SetValue(3, v)
        assert int(t.GetValue(3)) == int(v)
    t.SetValue(4, np.iinfo(dt).max)
    refused(core, lambda: t.SetValue(3, int(info.max) + 1), aj.ParameterError, "SetValue", int(info.max) + 1)
    refused(core, lambda: t.SetValue(3, int(info.min) - 1), aj.ParameterError, "SetValue", int(info.min) - 1)
    refused(core, lambda: t.SetValue(3, 2.0), aj.ParameterError, "SetValue")
    # numpy integer indices of any width are indices (decisions.md "Integer parameters")
    for idx in (np.int8(3), np.uint64(3), np.int64(3)):
        assert int(t.GetValue(idx)) == int(t(3))
        assert t[idx].addr == t.addr + 3 * dt.itemsize
    assert t[np.int32(2):np.uint16(5)].GetSize() == 3


def test_slice_and_handle_rules(core):
    t = core.local_tensor(np.float32, 32)
    assert t[::1].GetSize() == 32 and t[4:4].GetSize() == 0 and t[32:].GetSize() == 0
    refused(core, lambda: t[1.0:3], aj.ParameterError, "start")
    refused(core, lambda: t[True:3], aj.ParameterError, "start")
    refused(core, lambda: t[0:3:-1], aj.ParameterError, "step")
    # hand-made tensors are read-only after they are made (ReadOnlyError: AscendJitError and AttributeError)
    for attr, val in (("addr", 64), ("size", 8), ("dtype", np.int32), ("position", aj.TPosition.VECIN)):
        with pytest.raises(aj.ReadOnlyError) as ei:
            setattr(t, attr, val)
        assert isinstance(ei.value, aj.AscendJitError) and isinstance(ei.value, AttributeError)
    assert (t.addr, t.GetSize()) == (t[0].addr, 32)
    # UB positions only (decisions.md "Positions and host data")
    with core:
        refused(core, lambda: aj.TQue(aj.TPosition.GM, 1), aj.ParameterError, "TQue")
        refused(core, lambda: aj.TBuf(aj.TPosition.GM), aj.ParameterError, "TBuf")
        refused(core, lambda: core.local_tensor(np.float16, 16, position=aj.TPosition.GM), aj.ParameterError, "")
    # host copies take real numbers only; expressions take tensors only
    refused(core, lambda: t.__setitem__(slice(0, 2), np.array([1j, 2j])), aj.ParameterError, "")
    refused(core, lambda: t.__setitem__(slice(0, 2), "ab"), aj.ParameterError, "")
    refused(core, lambda: t.__setitem__(slice(None), np.ones(32, np.float32) + t), aj.ParameterError, "")
    refused(core, lambda: t.__setitem__(slice(None), t + 1.0), aj.ParameterError, "")


@settings(derandomize=True, max_examples=20, deadline=None, database=None)
@given(reqs=st.lists(st.tuples(st.sampled_from(DT_NAMES), st.integers(1, 500)), min_size=1, max_size=12),
       frees=st.lists(st.integers(0, 11), max_size=4))
def test_core_allocator_aligned_disjoint(reqs, frees):
    core = aj.Core(DEV)
    live = {}
    for k, (name, n) in enumerate(reqs):
        t = core.local_tensor(DTYPES[name], n)
        assert t.addr % 32 == 0 and t.addr + t.GetLength() <= UB_BYTES
        assert t.GetLength() == n * DTYPES[name].itemsize
        live[k] = t
    spans = sorted((t.addr, t.addr + t.GetLength()) for t in live.values())
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    for f in frees:
        if f in live:
            t = live.pop(f)
            core.free(t.addr)
            refused(core, lambda: t.GetValue(0), aj.StateError, "GetValue")
    again = core.local_tensor(np.uint8, 64)
    spans = [(t.addr, t.addr + t.GetLength()) for t in live.values()]
    assert all(again.addr + 64 <= a or b <= again.addr for a, b in spans)


def test_datacopy_param_spellings(core):
    arr = np.arange(256, dtype=np.float16)
    g = aj.GlobalTensor(arr)
    t = core.local_tensor(np.float16, 256)
    p = aj.DataCopyParams(2, 1, 1, 0)
    assert (p.srcGap, p.dstGap) == (1, 0)
    p.dstGap = 1
    assert p.dstStride == 1
    aj.DataCopy(t, g, repeat_params=p)
    exp = np.zeros(64, np.float16)
    exp[:16], exp[32:48] = arr[:16], arr[32:48]
    got = t.numpy()[:64]
    assert np.array_equal(got[:16], exp[:16]) and np.array_equal(got[32:48], exp[32:48])
    aj.DataCopy(t, g[16], count=32)
    assert np.array_equal(t.numpy()[:32], arr[16:48])
    refused(core, lambda: aj.DataCopy(t, g), aj.ParameterError, "DataCopy")
    ro = np.zeros(64, np.float16)
    gro = aj.GlobalTensor(ro)
    ro.flags.writeable = False
    with core:
        refused(core, lambda: gro.SetValue(0, 1.0), aj.ParameterError, "SetValue", gms=(ro,))
        refused(core, lambda: gro.__setitem__(slice(0, 2), np.ones(2)), aj.ParameterError, "", gms=(ro,))
        refused(core, lambda: aj.DataCopy(gro, t, 32), aj.ParameterError, "DataCopy", gms=(ro,))
    aj.DataCopy(t, gro, 32)  # a read-only GM source is fine


def test_initbuffer_rebind_and_foreign(core):
    pipe = aj.TPipe(core)
    q = aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(q, 1, 64)
    a = q.AllocTensor(np.uint8)
    first = a.addr
    refused(core, lambda: pipe.InitBuffer(q, 1, 64), aj.StateError, "InitBuffer")
    q.FreeTensor(a)
    tb = aj.TBuf()
    pipe.InitBuffer(tb, 32)
    pipe.InitBuffer(q, 2, 96)  # carved after the pipe's others
    b = q.AllocTensor(np.uint8)
    assert b.addr >= tb.Get(np.uint8).addr + 32 and b.GetSize() == 96 and b.addr != first
    q.FreeTensor(b)
    other = aj.TPipe(aj.Core(DEV))
    refused(core, lambda: other.InitBuffer(q, 1, 64), aj.StateError, "InitBuffer")
    # a TBuf's queue calls refuse a tensor outside its buffer
    loose = core.local_tensor(np.uint8, 32)
    refused(core, lambda: tb.FreeTensor(loose), aj.StateError, "FreeTensor")


def test_depth0_queue(core):
    pipe = aj.TPipe(core)
    q = aj.TQue(aj.TPosition.VECIN, 0)
    pipe.InitBuffer(q, 3, 64)
    ts = [q.AllocTensor(np.float16) for _ in range(3)]
    for t in ts:
        q.EnQue(t)  # no depth bound
    assert q.DeQue(ts[2]).addr == ts[2].addr  # any order
    assert q.DeQue(np.float16, ts[0]).addr == ts[0].addr
    refused(core, lambda: q.DeQue(ts[2]), aj.StateError, "DeQue")
    refused(core, lambda: q.DeQue(np.float16), aj.ParameterError, "DeQue")
    q1 = aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(q1, 1, 64)
    x = q1.AllocTensor(np.float16)
    q1.EnQue(x)
    refused(core, lambda: q1.DeQue(x), aj.ParameterError, "DeQue")


def test_event_id_pool(core):
    pipe = aj.TPipe(core)
    with core:
        tp = aj.GetTPipePtr()
        assert tp is pipe
        ev = aj.HardEvent.V_S
        assert tp.FetchEventID(ev) == 0 and tp.FetchEventID(ev) == 0  # fetch does not occupy
        ids = [tp.AllocEventID(ev) for _ in range(8)]
        assert ids == list(range(8))
        refused(core, lambda: tp.AllocEventID(ev), aj.StateError, "AllocEventID")
        refused(core, lambda: tp.FetchEventID(ev), aj.StateError, "FetchEventID")
        tp.ReleaseEventID(5, ev)
        assert tp.FetchEventID(ev) == 5 and tp.AllocEventID(ev) == 5
        assert tp.AllocEventID(aj.HardEvent.MTE2_V) == 0  # a pool per event


def test_bufpool_share(core):
    pipe = aj.TPipe(core)
    a, b = aj.TBufPool(), aj.TBufPool()
    pipe.InitBufPool(a, 100)
    pipe.InitBufPool(b, 128, a)  # lays over a's 128 bytes
    ta, tb = aj.TBuf(), aj.TBuf()
    a.InitBuffer(ta, 64)
    b.InitBuffer(tb, 64)
    assert ta.Get(np.uint8).addr == tb.Get(np.uint8).addr
    c = aj.TBufPool()
    refused(core, lambda: pipe.InitBufPool(c, 160, a), aj.ParameterError, "InitBufPool")


@pytest.mark.parametrize("dev,ids", [("ascend950", 8), ("atlas-a3", 8), ("atlas-a2", 8),
                                     ("atlas-inference-aicore", 8), ("atlas-training", 4)])
def test_event_id_range_per_device(dev, ids):
    # SPEC-2 10.1: event ids 0..7 (950, A2, A3, 310B, 310P), 0..3 (910); 10.3: out of range is a ParameterError
    core = aj.Core(dev)
    with core:
        aj.SetFlag(ids - 1, event=aj.HardEvent.MTE3_MTE2)
        aj.WaitFlag(ids - 1, event=aj.HardEvent.MTE3_MTE2)
        refused(core, lambda: aj.SetFlag(ids, event=aj.HardEvent.MTE3_MTE2), aj.ParameterError, "SetFlag", ids,
                f"[0, {ids - 1}]", device=dev)
        refused(core, lambda: aj.WaitFlag(-1, event=aj.HardEvent.MTE3_MTE2), aj.ParameterError, "WaitFlag", -1,
                device=dev)
        aj.PipeBarrier(aj.PIPE_V)
        aj.PipeBarrier(aj.PIPE_ALL)
