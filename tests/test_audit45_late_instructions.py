"""Audit 45 (i45): an independent check of the instructions added after the first contract audits. None of them is in
SPEC/SPEC-2; their contracts are docs/decisions.md "Copy", "ShiftLeft, ShiftRight, Not", "Ands, Ors", "Truncate",
"ArithProgression", "CreateVecIndex", "Reg Arange", "Reg API" (Reg ShiftLefts/ShiftRights), "Transpose", and SPEC-2 8.4
/ D55 (GetReduceRepeatMaxMinSpr). Every expected value here comes from a small numpy / Python-int model written for
this file (not ascend_jit.reference), and the whole UB is compared byte for byte before/after, so nothing outside the
documented bytes may change. Refusals: the SPEC-2 1.8 subclass, naming API, parameter and device, UB unchanged."""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_jit as aj

D950, A3, A2, B310, P310, T910 = aj.SUPPORTED_NAMES   # SPEC-2 1.9's six devices, in this order
U = aj.UnaryRepeatParams
SIZE = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "half": 2, "bfloat16": 2, "int32": 4, "uint32": 4,
        "float": 4, "int64": 8, "uint64": 8}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
HYP = settings(max_examples=30, deadline=None, derandomize=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --- helpers: whole-UB snapshots and the generic high-dim walk (SPEC 2.1 masks, SPEC-2 1.2 addressing) ----------------
def _fill(core, seed):
    """Random bytes over the whole UB, so an untouched byte is recognisable."""
    core.ub[:] = np.random.default_rng(seed).integers(0, 256, core.ub.size, dtype=np.uint8)
    core.ub_written_by_host()
    return core.ub.copy()


def _state(core):
    return core.ub.copy(), core.mask_high, core.mask_low, core.mask_defined, core.ctrl


def _refused(core, cls, api, param, fn):
    """SPEC-2 1.8: the subclass, the message names API, parameter and device; UB, mask register and CTRL unchanged."""
    before = _state(core)
    with pytest.raises(cls) as info:
        fn()
    msg = str(info.value)
    assert api in msg and core.device in msg and "legal" in msg, msg
    if param is not None:
        assert param in msg, msg
    after = _state(core)
    assert np.array_equal(before[0], after[0]) and before[1:] == after[1:]
    return msg


def _ival(raw, size, signed):
    v = int.from_bytes(bytes(raw), "little")
    return v - (1 << 8 * size) if signed and v >> (8 * size - 1) else v


def _put(ub, addr, value, size):
    ub[addr:addr + size] = np.frombuffer((value % (1 << 8 * size)).to_bytes(size, "little"), np.uint8)


def _active(mask, lane):
    if isinstance(mask, int):
        return lane < mask
    return bool((mask[lane // 64] >> (lane % 64)) & 1)


def _walk_unary(want, src_ub, size, dst, src, mask, repeat, p, lane_fn):
    """Model of a high-dim unary-shaped call (SPEC-2 1.2): repeat r, block b, element k of the block at
    base + (r * RepStride + b * BlkStride) * 32 + k * size; inactive lanes keep dst (SPEC 2.1)."""
    epb, lanes = 32 // size, 256 // size
    for r in range(repeat):
        for lane in range(lanes):
            if not _active(mask, lane):
                continue
            b, k = divmod(lane, epb)
            s = src + (r * p.srcRepStride + b * p.srcBlkStride) * 32 + k * size
            d = dst + (r * p.dstRepStride + b * p.dstBlkStride) * 32 + k * size
            want[d:d + size] = lane_fn(src_ub[s:s + size])


def _ub_equal(core, want):
    got = core.ub
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, f"{bad.size} bytes differ, first at {bad[:8].tolist()}: got {got[bad[:8]].tolist()} " \
                          f"want {want[bad[:8]].tolist()}"


# --- ShiftLeft / ShiftRight / Not (decisions "ShiftLeft, ShiftRight, Not") --------------------------------------------
def _shift_model(x, bits, signed, op, n, round_en=False):
    """x a Python int in the type's range. Signed ShiftLeft keeps the sign bit and drops the bit below it; signed
    ShiftRight is arithmetic; an amount >= the width gives 0 (or -1 for a negative signed right shift); roundEn adds
    bit n-1 (x / 2**n rounded half up)."""
    if op == "ShiftLeft":
        if n >= bits:
            return 0
        if not signed:
            return (x << n) % (1 << bits)
        sign = (x % (1 << bits)) >> (bits - 1)
        low = (x << n) % (1 << (bits - 1))
        return low - (1 << (bits - 1)) if sign else low
    if not signed:
        return 0 if n >= bits else x >> n
    if round_en and n >= 1:
        return (x >> n) + ((x >> (n - 1)) & 1)
    return x >> min(n, bits)


SHIFT_TYPES = {D950: ["int16", "uint16", "int32", "uint32"], A2: ["int16", "uint16", "int32", "uint32"],
               A3: ["int16", "uint16", "int32", "uint32"], B310: ["int16", "uint16", "int32", "uint32"]}
SHIFT_COUNT_ONLY_950 = ["int8", "uint8", "int64", "uint64"]


@st.composite
def _shift_case(draw):
    op = draw(st.sampled_from(["ShiftLeft", "ShiftRight", "Not"]))
    device = draw(st.sampled_from(sorted(SHIFT_TYPES) + ([P310, T910] if op == "Not" else [])))
    if op == "Not":   # every device int16/uint16; the 950 adds 32-bit and half/float (8/64-bit: count form)
        types = ["int16", "uint16"] + (["int32", "uint32", "half", "float"] if device == D950 else [])
    else:
        types = list(SHIFT_TYPES[device])
    form = draw(st.sampled_from(["count", "continuous", "bits"]))
    if device == D950 and form == "count":
        types += SHIFT_COUNT_ONLY_950
    dtype = draw(st.sampled_from(types))
    bits = 8 * SIZE[dtype]
    top = 32767 if device == D950 else bits
    if device == D950 and dtype in ("int8", "uint8"):
        top = 127 if dtype == "int8" else 255
    n = draw(st.one_of(st.integers(0, min(bits + 2, top)), st.just(top)))
    lanes = 256 // SIZE[dtype]
    if form == "continuous":
        mask = draw(st.integers(1, lanes))
    elif form == "bits":
        mask = [draw(st.integers(0, 2**64 - 1)), draw(st.integers(0, 2**64 - 1)) if SIZE[dtype] == 2 else 0]
    else:
        mask = draw(st.integers(0, 700))
    repeat = draw(st.integers(0, 4))
    p = U(draw(st.integers(1, 3)), draw(st.integers(0, 3)), draw(st.integers(0, 12)), draw(st.integers(0, 12)))
    round_en = op == "ShiftRight" and form != "count" and device in (A2, A3) and draw(st.booleans())
    return device, op, dtype, n, form, mask, repeat, p, round_en, draw(st.integers(0, 2**31))


@HYP
@given(_shift_case())
def test_shift_not_whole_ub_against_the_model(case):
    """Every form (count, continuous and bit masks with repeats and strides, 0 counts and repeats), every device and
    type the pages offer; the whole UB compared with the model."""
    device, op, dtype, n, form, mask, repeat, p, round_en, seed = case
    core = aj.Core(device)
    size = SIZE[dtype]
    span = 8192
    dst, src = core.local_tensor(dtype, span // size), core.local_tensor(dtype, span // size)
    before = _fill(core, seed)
    want = before.copy()
    signed = dtype.startswith("int")
    bits = 8 * size
    amount = np.dtype(UINT[size] if dtype[0] == "u" else dtype if dtype not in ("half", "float") else "int16").type(n)

    def lane(raw):
        if op == "Not":
            return (~np.frombuffer(bytes(raw), np.uint8)).astype(np.uint8)
        v = _shift_model(_ival(raw, size, signed), bits, signed, op, n, round_en)
        out = np.zeros(size, np.uint8)
        _put(out, 0, v, size)
        return out

    scalar = () if op == "Not" else (amount,)
    if form == "count":
        count = min(mask, span // size)
        for i in range(count):
            want[dst.addr + i * size:dst.addr + (i + 1) * size] = lane(before[src.addr + i * size:
                                                                            src.addr + (i + 1) * size])
        getattr(aj, op)(dst, src, *scalar, count)
    else:
        extra = (round_en,) if op == "ShiftRight" else ()
        if device == D950 and mask in ([0, 0], 0):   # SPEC-2 D30 / SPEC D14: mask 0 refused on the 950
            _refused(core, aj.ParameterError, op, "mask", lambda: getattr(aj, op)(dst, src, *scalar, mask, repeat, p,
                                                                                 *extra))
            return
        _walk_unary(want, before, size, dst.addr, src.addr, mask, repeat, p, lane)
        getattr(aj, op)(dst, src, *scalar, mask, repeat, p, *extra)
    _ub_equal(core, want)


def test_shift_refusals():
    """Amount outside the device's range (ParameterError), 310P/910 (UnsupportedDeviceError), roundEn True on the 950
    and 310B (UnsupportedDeviceError), a count-only type in a mask form on the 950, a float amount (D29)."""
    for device, dtype, bad in ((A2, "int16", 17), (A2, "int32", 33), (B310, "uint16", 17), (D950, "int32", 32768),
                               (D950, "uint16", 40000), (D950, "uint32", 2**31)):
        core = aj.Core(device)
        d, s = core.local_tensor(dtype, 128), core.local_tensor(dtype, 128)
        _fill(core, 1)
        for op in ("ShiftLeft", "ShiftRight"):
            _refused(core, aj.ParameterError, op, "scalar",
                     lambda: getattr(aj, op)(d, s, np.dtype(dtype).type(bad), 64))
            _refused(core, aj.ParameterError, op, "scalar", lambda: getattr(aj, op)(d, s, np.dtype(dtype).type(-1)
                                                                                   if dtype[0] == "i" else 1.5, 64))
    for device in (P310, T910):
        core = aj.Core(device)
        d, s = core.local_tensor("int16", 128), core.local_tensor("int16", 128)
        for op in ("ShiftLeft", "ShiftRight"):
            _refused(core, aj.UnsupportedDeviceError, op, None, lambda: getattr(aj, op)(d, s, np.int16(1), 64))
    for device in (P310, T910, A2, B310):
        core = aj.Core(device)
        i32 = core.local_tensor("int32", 64)
        _refused(core, aj.UnsupportedDTypeError, "Not", None, lambda: aj.Not(i32, i32, 64))
    for device in (D950, B310):
        core = aj.Core(device)
        d, s = core.local_tensor("int16", 128), core.local_tensor("int16", 128)
        _refused(core, aj.UnsupportedDeviceError, "ShiftRight", None,
                 lambda: aj.ShiftRight(d, s, np.int16(1), 128, 1, U(1, 1, 8, 8), True))
    core = aj.Core(D950)
    for dtype in SHIFT_COUNT_ONLY_950:
        d, s = core.local_tensor(dtype, 256), core.local_tensor(dtype, 256)
        amount = np.dtype(dtype).type(1)
        _refused(core, aj.UnsupportedDTypeError, "ShiftLeft", None, lambda: aj.ShiftLeft(d, s, amount, 8, 1, U()))
        _refused(core, aj.UnsupportedDTypeError, "Not", None, lambda: aj.Not(d, s, 8, 1, U()))
    b = core.local_tensor("bfloat16", 128)
    _refused(core, aj.UnsupportedDTypeError, "Not", None, lambda: aj.Not(b, b, 128))
    d = core.local_tensor("int16", 128)
    with pytest.raises(TypeError):
        aj.ShiftRight(d, d, np.int16(1), 128, round_en=False)    # the count prototype has no roundEn


def test_not_on_floats_keeps_every_payload():
    """950 Not on half/float inverts the bits, NaN payloads and -0 included (the lanes are never decoded)."""
    core = aj.Core(D950)
    for dtype, u in (("half", np.uint16), ("float", np.uint32)):
        n = 256 // SIZE[dtype]
        d, s = core.local_tensor(dtype, n), core.local_tensor(dtype, n)
        pat = np.random.default_rng(5).integers(0, np.iinfo(u).max, n, dtype=u, endpoint=True)
        pat[:4] = [0, 1 << (8 * SIZE[dtype] - 1), np.iinfo(u).max, np.iinfo(u).max >> 1]
        core.ub[s.addr:s.addr + 256] = pat.view(np.uint8)
        core.ub_written_by_host(s.addr, 256)
        aj.Not(d, s, n)
        assert np.array_equal(d.numpy().view(u), ~pat)


# --- Ands / Ors (decisions "Ands, Ors": the 950 only; int16/uint16 every form, int64/uint64 count form) ---------------
@st.composite
def _ands_case(draw):
    op = draw(st.sampled_from(["Ands", "Ors"]))
    form = draw(st.sampled_from(["count", "continuous", "bits"]))
    dtype = draw(st.sampled_from(["int16", "uint16"] + (["int64", "uint64"] if form == "count" else [])))
    info = np.iinfo(dtype)
    scalar = draw(st.one_of(st.sampled_from([info.min, info.max, 0, -1 if info.min else 1]),
                            st.integers(int(info.min), int(info.max))))
    mask = (draw(st.integers(0, 600)) if form == "count" else draw(st.integers(1, 128)) if form == "continuous"
            else [draw(st.integers(0, 2**64 - 1)), draw(st.integers(0, 2**64 - 1))])
    p = U(draw(st.integers(1, 3)), draw(st.integers(0, 3)), draw(st.integers(0, 12)), draw(st.integers(0, 12)))
    in_place = draw(st.booleans()) and form == "count"
    return op, dtype, scalar, form, mask, draw(st.integers(0, 4)), p, in_place, draw(st.integers(0, 2**31))


@HYP
@given(_ands_case())
def test_ands_ors_whole_ub_against_the_model(case):
    op, dtype, scalar, form, mask, repeat, p, in_place, seed = case
    core = aj.Core(D950)
    size = SIZE[dtype]
    dst, src = core.local_tensor(dtype, 8192 // size), core.local_tensor(dtype, 8192 // size)
    if in_place:
        src = dst
    before = _fill(core, seed)
    want = before.copy()
    sbits = np.frombuffer((scalar % (1 << 8 * size)).to_bytes(size, "little"), np.uint8)
    fn = np.bitwise_and if op == "Ands" else np.bitwise_or
    value = np.dtype(dtype).type(scalar)
    if form == "count":
        count = min(mask, 8192 // size)
        want[dst.addr:dst.addr + count * size] = fn(np.tile(sbits, count), before[src.addr:src.addr + count * size])
        getattr(aj, op)(dst, src, value, count)
    elif mask == [0, 0]:
        _refused(core, aj.ParameterError, op, "mask", lambda: getattr(aj, op)(dst, src, value, mask, repeat, p))
        return
    else:
        _walk_unary(want, before, size, dst.addr, src.addr, mask, repeat, p, lambda raw: fn(raw, sbits))
        getattr(aj, op)(dst, src, value, mask, repeat, p)
    _ub_equal(core, want)


def test_ands_ors_refusals():
    """Off the 950: UnsupportedDeviceError; int32 / half: UnsupportedDTypeError; int64 in a mask form:
    UnsupportedDTypeError; a scalar the type cannot hold (SPEC-2 D29): ParameterError."""
    for device in (A2, A3, B310, P310, T910):
        core = aj.Core(device)
        t = core.local_tensor("int16", 128)
        for op in ("Ands", "Ors"):
            _refused(core, aj.UnsupportedDeviceError, op, None, lambda: getattr(aj, op)(t, t, np.int16(1), 128))
    core = aj.Core(D950)
    for dtype in ("int32", "uint32", "half", "int8"):
        t = core.local_tensor(dtype, 128)
        _refused(core, aj.UnsupportedDTypeError, "Ands", None, lambda: aj.Ands(t, t, np.dtype(dtype).type(1), 64))
    for dtype in ("int64", "uint64"):
        t = core.local_tensor(dtype, 64)
        _refused(core, aj.UnsupportedDTypeError, "Ors", None, lambda: aj.Ors(t, t, np.dtype(dtype).type(1), 32, 1,
                                                                              U()))
    t = core.local_tensor("int16", 128)
    _refused(core, aj.ParameterError, "Ands", None, lambda: aj.Ands(t, t, 70000, 128))
    _refused(core, aj.ParameterError, "Ors", None, lambda: aj.Ors(t, t, 1.5, 128))
    u = core.local_tensor("uint16", 128)
    _refused(core, aj.ParameterError, "Ands", None, lambda: aj.Ands(u, u, -1, 128))


# --- Copy (decisions "Copy": mask forms 950/A3/A2/310B on 16/32-bit; count form 950 on 8..64-bit) --------------------
class _CP:
    """CopyRepeatParams read as the walk's stride names (dstStride, srcStride, dstRepeatSize, srcRepeatSize)."""
    def __init__(self, ds, ss, dr, sr):
        self.dstBlkStride, self.srcBlkStride, self.dstRepStride, self.srcRepStride = ds, ss, dr, sr


COPY_DEVICES = (D950, A3, A2, B310)


@st.composite
def _copy_case(draw):
    device = draw(st.sampled_from(COPY_DEVICES))
    form = draw(st.sampled_from(["count", "continuous", "bits", "counter"] if device == D950
                                else ["continuous", "bits", "counter"]))
    types = ["int16", "uint16", "half", "bfloat16", "int32", "uint32", "float"]
    if form == "count":
        types += ["int8", "uint8", "int64", "uint64"]
    dtype = draw(st.sampled_from(types))
    lanes = 256 // SIZE[dtype]
    if form == "continuous":
        mask = draw(st.integers(1, lanes))
    elif form == "bits":
        mask = [draw(st.integers(1, 2**64 - 1)), draw(st.integers(0, 2**64 - 1)) if SIZE[dtype] == 2 else 0]
    elif form == "counter":
        mask = draw(st.integers(0, 3 * lanes))
    else:
        mask = draw(st.integers(0, 8192 // SIZE[dtype]))
    cp = (draw(st.integers(1, 3)), draw(st.integers(0, 3)), draw(st.integers(0, 40)), draw(st.integers(0, 40)))
    return device, form, dtype, mask, draw(st.integers(0, 3)), cp, draw(st.integers(0, 2**31))


@HYP
@given(_copy_case())
def test_copy_whole_ub_against_the_model(case):
    """Bits unchanged (NaN payloads included: the random UB holds them); inactive lanes keep dst; counter mode per the
    page: the mask counts each repeat's elements over ceil(count * size / 32) blocks (decisions "Copy")."""
    device, form, dtype, mask, repeat, cp, seed = case
    core = aj.Core(device)
    size = SIZE[dtype]
    dst, src = core.local_tensor(dtype, 16384 // size), core.local_tensor(dtype, 16384 // size)
    before = _fill(core, seed)
    want = before.copy()
    params = aj.CopyRepeatParams(*cp)
    if form == "count":
        want[dst.addr:dst.addr + mask * size] = before[src.addr:src.addr + mask * size]
        aj.Copy(dst, src, mask)
    elif form == "counter":
        epb = 32 // size
        for r in range(repeat):
            for i in range(mask):
                b, k = divmod(i, epb)
                s = src.addr + (r * cp[3] + b * cp[1]) * 32 + k * size
                d = dst.addr + (r * cp[2] + b * cp[0]) * 32 + k * size
                want[d:d + size] = before[s:s + size]
        core.SetMaskCount()
        if seed % 2:   # the count from the register (is_set_mask=False): the same per-repeat rule
            core.SetVectorMask(0, mask)
            aj.Copy(dst, src, aj.MASK_PLACEHOLDER, repeat, params, is_set_mask=False)
        else:
            aj.Copy(dst, src, mask, repeat, params)
        core.SetMaskNorm()
    else:
        _walk_unary(want, before, size, dst.addr, src.addr, mask, repeat, _CP(*cp), lambda raw: raw)
        aj.Copy(dst, src, mask, repeat, params)
    _ub_equal(core, want)


def test_copy_refusals():
    """310P/910: UnsupportedDeviceError; the count form off the 950: UnsupportedDeviceError; 8/64-bit in a mask form
    on the 950: UnsupportedDTypeError; dstStride 0: ParameterError; repeat sizes past 4095 and strides past 65535:
    ParameterError; a misaligned operand: AlignmentError; partial overlap within a repeat: OverlapError."""
    for device in (P310, T910):
        core = aj.Core(device)
        t = core.local_tensor("int16", 256)
        _refused(core, aj.UnsupportedDeviceError, "Copy", None, lambda: aj.Copy(t, t[128:], 128, 1,
                                                                               aj.CopyRepeatParams(1, 1, 8, 8)))
    for device in (A2, A3, B310):
        core = aj.Core(device)
        d, s = core.local_tensor("int16", 256), core.local_tensor("int16", 256)
        _refused(core, aj.UnsupportedDeviceError, "Copy", None, lambda: aj.Copy(d, s, 256))
    core = aj.Core(D950)
    for dtype in ("int8", "uint8", "int64", "uint64"):
        d, s = core.local_tensor(dtype, 256), core.local_tensor(dtype, 256)
        _refused(core, aj.UnsupportedDTypeError, "Copy", None,
                 lambda: aj.Copy(d, s, 32, 1, aj.CopyRepeatParams(1, 1, 8, 8)))
    d, s = core.local_tensor("float", 4096), core.local_tensor("float", 4096)
    for cp, name in (((0, 1, 8, 8), "dstStride"), ((1, 1, 4096, 8), "dstRepeatSize"),
                     ((1, 1, 8, 4096), "srcRepeatSize"), ((1, 65536, 8, 8), "srcStride")):
        with pytest.raises(aj.ParameterError, match=name):
            aj.Copy(d, s, 64, 1, aj.CopyRepeatParams(*cp))
    _refused(core, aj.AlignmentError, "Copy", None, lambda: aj.Copy(d[1:], s, 32, 1, aj.CopyRepeatParams(1, 1, 8, 8)))
    _refused(core, aj.OverlapError, "Copy", None, lambda: aj.Copy(d[8:], d, 64, 1, aj.CopyRepeatParams(1, 1, 8, 8)))
    _refused(core, aj.OutOfBoundsError, "Copy", None, lambda: aj.Copy(d, s, 64, 2, aj.CopyRepeatParams(1, 1, 8, 511)))


# --- Truncate (decisions "Truncate": the 950 only, half/float/bfloat16, five modes, count >= 1) ----------------------
FLOAT_LAYOUT = {"half": (np.uint16, 0x7E00), "float": (np.uint32, 0x7FC00000), "bfloat16": (np.uint16, 0x7FC0)}


def _float_of(bits, dtype):
    """Exact value of a half/float/bfloat16 bit pattern as a float64."""
    if dtype == "half":
        return float(np.uint16(bits).view(np.float16))
    if dtype == "float":
        return float(np.uint32(bits).view(np.float32))
    return float(np.uint32(int(bits) << 16).view(np.float32))


def _bits_of(x, dtype):
    """x is exactly representable in dtype (an integral value of a representable input)."""
    if dtype == "half":
        return int(np.float16(x).view(np.uint16))
    if dtype == "float":
        return int(np.float32(x).view(np.uint32))
    return int(np.float32(x).view(np.uint32)) >> 16


ROUNDERS = {"CAST_RINT": np.rint, "CAST_FLOOR": math.floor, "CAST_CEIL": math.ceil, "CAST_TRUNC": math.trunc,
            "CAST_ROUND": lambda x: math.copysign(math.floor(abs(x) + 0.5), x)}


def _truncate_model(bits, dtype, mode):
    """SPEC-2 7.3 step 5: round to integral, zero results +0, +-inf pass, NaN -> the canonical NaN."""
    x = _float_of(bits, dtype)
    if math.isnan(x):
        return FLOAT_LAYOUT[dtype][1]
    if math.isinf(x):
        return int(bits)
    y = float(ROUNDERS[mode](x))
    return 0 if y == 0 else _bits_of(y, dtype)


@HYP
@given(st.sampled_from(["half", "float", "bfloat16"]), st.sampled_from(sorted(ROUNDERS)), st.integers(1, 300),
       st.booleans(), st.integers(0, 2**31))
def test_truncate_whole_ub_against_the_model(dtype, mode, count, saturating, seed):
    """Random bit patterns (subnormals, NaN payloads of both signs, +-inf, -0 and halves .5 planted) in either overflow
    mode: never saturated (decisions "Truncate")."""
    core = aj.Core(D950)
    core.SetCtrlSpr(48, 48, 0 if saturating else 1)
    u, _ = FLOAT_LAYOUT[dtype]
    size = SIZE[dtype]
    dst, src = core.local_tensor(dtype, 512), core.local_tensor(dtype, 512)
    before = _fill(core, seed)
    pats = before[src.addr:src.addr + 512 * size].view(u).copy()
    plant = [0.5, -0.5, 1.5, -2.5, 2.5, -0.0, 0.0, float("inf"), -float("inf"), 0.49999997, 3.5, -1e-3, 1024.5]
    for i, v in enumerate(plant):
        pats[(seed + 7 * i) % 512] = _bits_of(v, dtype) if dtype == "float" else \
            _bits_of(float(np.float16(v)), "half") if dtype == "half" else int(np.float32(v).view(np.uint32)) >> 16
    before[src.addr:src.addr + 512 * size] = pats.view(np.uint8)
    core.ub[:] = before
    core.ub_written_by_host()
    want = before.copy()
    out = np.array([_truncate_model(b, dtype, mode) for b in pats[:count]], u)
    want[dst.addr:dst.addr + count * size] = out.view(np.uint8)
    aj.Truncate(dst, src, getattr(aj.RoundMode, mode), count)
    _ub_equal(core, want)


def test_truncate_in_place_and_refusals():
    """In place (SPEC 3.3 count forms); refused: other devices (UnsupportedDeviceError), integer and mixed dtypes and
    the non-listed modes (UnsupportedDTypeError), count 0 (ParameterError: the page's 不保证NOP), count past dst
    (OutOfBoundsError), partial overlap (OverlapError)."""
    core = aj.Core(D950)
    t = core.local_tensor("half", 256)
    t[:] = np.linspace(-4, 4, 256)
    aj.Truncate(t, t, aj.RoundMode.CAST_FLOOR, 256)
    assert np.array_equal(t.numpy(), np.floor(np.linspace(-4, 4, 256).astype(np.float16)) + 0.0)
    short, out = core.local_tensor("half", 100), core.local_tensor("half", 100)   # only count elements are read
    short[:] = np.linspace(-9.5, 9.5, 100)
    aj.Truncate(out, short, aj.RoundMode.CAST_ROUND, 100)
    x = np.linspace(-9.5, 9.5, 100).astype(np.float16).astype(np.float64)
    assert np.array_equal(out.numpy(), (np.sign(x) * np.floor(np.abs(x) + 0.5) + 0.0).astype(np.float16))
    f, i = core.local_tensor("float", 128), core.local_tensor("int32", 128)
    _refused(core, aj.UnsupportedDTypeError, "Truncate", None, lambda: aj.Truncate(i, i, aj.RoundMode.CAST_RINT, 8))
    _refused(core, aj.UnsupportedDTypeError, "Truncate", None, lambda: aj.Truncate(f, t, aj.RoundMode.CAST_RINT, 8))
    for mode in ("CAST_NONE", "CAST_ODD"):
        _refused(core, aj.UnsupportedDTypeError, "Truncate", "round_mode",
                 lambda: aj.Truncate(f, f, getattr(aj.RoundMode, mode), 8))
    _refused(core, aj.ParameterError, "Truncate", "count", lambda: aj.Truncate(f, f, aj.RoundMode.CAST_RINT, 0))
    _refused(core, aj.OutOfBoundsError, "Truncate", "count", lambda: aj.Truncate(f, f, aj.RoundMode.CAST_RINT, 129))
    _refused(core, aj.OverlapError, "Truncate", None, lambda: aj.Truncate(f[8:], f, aj.RoundMode.CAST_RINT, 64))
    for device in (A2, A3, B310, P310, T910):
        c = aj.Core(device)
        h = c.local_tensor("half", 128)
        _refused(c, aj.UnsupportedDeviceError, "Truncate", None, lambda: aj.Truncate(h, h, aj.RoundMode.CAST_RINT, 8))


# --- ArithProgression / Arange (decisions "ArithProgression") ---------------------------------------------------------
def _rn(x, dtype):
    """x (a float64 holding an exact value) rounded once, RNE, to dtype (overflow: +-inf); returned as float64."""
    with np.errstate(over="ignore"):
        return float(np.float16(x)) if dtype == "half" else float(np.float32(x))


def _f32(x):
    return float(np.float32(x))


def _stage(dtype, half_sat=False, int_sat=False):
    """SPEC-2 D35 for one Adds/Muls stage: RNE (half: +-inf -> +-65504, NaN -> +0 when saturating), or an integer
    wrapped (clamped for int16/int32 under CTRL[53])."""
    bits = 8 * SIZE[dtype]
    if dtype.startswith("int"):
        lo, hi = -(1 << bits - 1), (1 << bits - 1) - 1
        if int_sat and dtype in ("int16", "int32"):
            return lambda v: min(max(v, lo), hi)
        return lambda v: ((v - lo) % (1 << bits)) + lo

    def rn(x):
        y = _rn(x, dtype)
        if half_sat and dtype == "half":
            return 0.0 if math.isnan(y) else math.copysign(65504.0, y) if math.isinf(y) else y
        return y
    return rn


def _arith_model(device, dtype, first, diff, count, half_sat=False, int_sat=False):
    """The expected elements and how many the call writes. Integers: Python ints, the scalar unit's wrapped, the
    Adds' per D35; floats per the implementation's order (decisions "ArithProgression")."""
    size = SIZE[dtype]
    integer = dtype.startswith("int")
    wrap = _stage(dtype)
    stage = _stage(dtype, half_sat, int_sat)
    if device == D950:
        lanes = 64 if dtype == "int64" else 256 // size
        if integer:
            base, step = [stage(stage(j * diff) + first) for j in range(lanes)], stage(lanes * diff)
        else:
            base = [stage(stage(j * diff) + first) for j in range(lanes)]
            step = stage(lanes * diff)
        out, reg = [], base
        while len(out) < count:
            out += reg
            reg = [stage(v + step) for v in reg]
        return out[:count], count
    blk, rep = 32 // size, 256 // size
    if integer:
        scalar = [wrap(first + diff * i) for i in range(min(count, blk))]
    else:   # float32 product then float32 sum, then (half) one RNE to half
        scalar = [_rn(_f32(first + _f32(diff * i)), dtype) for i in range(min(count, blk))]
    if count <= blk:
        return scalar, count
    total = -(-count // blk) * blk
    out = scalar + [None] * (total - blk)
    step1 = wrap(blk * diff) if integer else _rn(_f32(diff * blk), dtype)
    for i in range(blk, min(total, rep)):
        out[i] = stage(out[i - blk] + step1)
    step2 = wrap(rep * diff) if integer else _rn(_f32(diff * rep), dtype)
    for i in range(rep, total):
        out[i] = stage(out[i - rep] + step2)
    return out, total


ARITH = {D950: ["int16", "half", "int32", "float", "int64"], A3: ["int16", "half", "int32", "float"],
         A2: ["int16", "half", "int32", "float"], P310: ["int16", "half", "int32", "float"]}


@st.composite
def _arith_case(draw):
    device = draw(st.sampled_from(sorted(ARITH)))
    dtype = draw(st.sampled_from(ARITH[device]))
    count = draw(st.one_of(st.integers(1, 40), st.integers(1, 1100)))
    if dtype.startswith("int"):
        info = np.iinfo(dtype)
        top = int(info.max) // (2 * max(count, 1))
        first = draw(st.integers(int(info.min) // 2, int(info.max) // 2))
        diff = draw(st.integers(0, max(0, top)))
    elif dtype == "half":
        first = float(np.float16(draw(st.floats(-100, 100, width=16))))
        diff = float(np.float16(draw(st.floats(0, 4, width=16))))
    else:
        first = _f32(draw(st.floats(-1e4, 1e4, width=32)))
        diff = _f32(draw(st.one_of(st.floats(0, 10, width=32), st.sampled_from([0.1, 0.3, 1 / 3]))))
    return device, dtype, first, diff, count, draw(st.integers(0, 2**31))


@pytest.mark.slow   # about 20 s of cold compiles (every device's Adds/Muls rows); the default run keeps the tests below
@HYP
@given(_arith_case())
def test_arith_progression_whole_ub_against_the_model(case):
    """On a `bounds="ub"` core (the off-950 whole-DataBlock footprint is the device's): every byte the model does not
    write keeps its value, and the written ones are the model's bits."""
    device, dtype, first, diff, count, seed = case
    core = aj.Core(device, bounds="ub")
    size = SIZE[dtype]
    dst = core.local_tensor(dtype, 1120)
    before = _fill(core, seed)
    want = before.copy()
    vals, n = _arith_model(device, dtype, first, diff, count)
    np_t = aj.dtypes.resolve(dtype).np_dtype
    want[dst.addr:dst.addr + n * size] = np.array(vals, np.float64 if dtype in ("half", "float") else np.int64
                                                  ).astype(np_t).view(np.uint8)
    npf = np_t.type
    aj.ArithProgression(dst, npf(first), npf(diff), count)
    _ub_equal(core, want)


def test_arith_progression_footprint_and_refusals():
    """Off the 950 under bounds="tensor" a call whose DataBlocks pass dst's GetSize() is refused (OutOfBoundsError);
    refused: 310B/910 (UnsupportedDeviceError), int8/uint16 (UnsupportedDTypeError), diff < 0 or NaN and count <= 0
    (ParameterError), a misaligned dst (AlignmentError), counter mode off the 950 with count > B (StateError)."""
    core = aj.Core(A2)
    t = core.local_tensor("float", 20)
    _refused(core, aj.OutOfBoundsError, "ArithProgression", None, lambda: aj.ArithProgression(t, 0.0, 1.0, 20))
    aj.ArithProgression(t, np.float32(0), np.float32(1), 16)
    assert list(t.numpy()[:16]) == list(range(16))
    h = core.local_tensor("half", 256)
    _refused(core, aj.ParameterError, "ArithProgression", None, lambda: aj.ArithProgression(h, 0.0, -1.0, 16))
    _refused(core, aj.ParameterError, "ArithProgression", None, lambda: aj.ArithProgression(h, 0.0, float("nan"), 16))
    _refused(core, aj.ParameterError, "ArithProgression", "count", lambda: aj.ArithProgression(h, 0.0, 1.0, 0))
    _refused(core, aj.ParameterError, "ArithProgression", "count", lambda: aj.ArithProgression(h, 0.0, 1.0, -3))
    _refused(core, aj.AlignmentError, "ArithProgression", None, lambda: aj.ArithProgression(h[1:], 0.0, 1.0, 8))
    for dtype in ("int8", "uint16", "uint32"):
        x = core.local_tensor(dtype, 256)
        _refused(core, aj.UnsupportedDTypeError, "ArithProgression", None,
                 lambda: aj.ArithProgression(x, 0, 1, 8))
    core.SetMaskCount()
    _refused(core, aj.StateError, "ArithProgression", None, lambda: aj.ArithProgression(h, 0.0, 1.0, 100))
    aj.ArithProgression(h, np.float16(2), np.float16(0.5), 16)      # the scalar-only path runs in counter mode
    assert np.array_equal(h.numpy()[:16], (2 + 0.5 * np.arange(16)).astype(np.float16))
    core.SetMaskNorm()
    g = core.local_tensor("float", 1024)
    aj.Arange(g, np.float32(0.1), np.float32(0.3), 1000)              # Arange is ArithProgression's current name
    want, n = _arith_model(A2, "float", float(np.float32(0.1)), float(np.float32(0.3)), 1000)
    assert n == 1000 and np.array_equal(g.numpy()[:1000], np.array(want, np.float32))
    for device in (B310, T910):
        c = aj.Core(device)
        x = c.local_tensor("half", 256)
        _refused(c, aj.UnsupportedDeviceError, "ArithProgression", None, lambda: aj.ArithProgression(x, 0.0, 1.0, 8))


# --- CreateVecIndex (decisions "CreateVecIndex") ----------------------------------------------------------------------
CVI = {D950: ["int8", "int16", "half", "int32", "float", "int64"], A3: ["int16", "half", "int32", "float"],
       A2: ["int16", "half", "int32", "float"], B310: ["int16", "half", "int32", "float"],
       P310: ["int16", "half", "int32", "float"]}


def _cvi_model(device, dtype, first, count, half_sat=False, int_sat=False):
    size = SIZE[dtype]
    integer = dtype.startswith("int")
    wrap, stage = _stage(dtype), _stage(dtype, half_sat, int_sat)
    add = lambda a, b: stage(a + b)   # noqa: E731
    if device in (D950, B310):
        lanes = 64 if dtype == "int64" else 256 // size
        out, reg = [], [add(first, j) for j in range(lanes)]
        while len(out) < count:
            out += reg
            reg = [add(v, wrap(lanes) if integer else lanes) for v in reg]
        return out[:count]
    blk, rep = 32 // size, 256 // size
    out = []
    for i in range(min(count, blk)):
        if integer and device != P310:
            out.append(wrap(first + i))
        elif integer:   # dav_m200: float(first) + float(i) in float32, then to T
            out.append(int(_f32(_f32(first) + i)))
        else:
            out.append(_rn(_f32(first + i), dtype))
    for i in range(blk, count):
        out.append(add(out[i - blk], blk) if i < rep else add(out[i - rep], rep))
    return out


@st.composite
def _cvi_case(draw):
    device = draw(st.sampled_from(sorted(CVI)))
    dtype = draw(st.sampled_from(CVI[device]))
    count = draw(st.one_of(st.integers(0, 40), st.integers(0, 2200)))
    if dtype.startswith("int"):
        info = np.iinfo(dtype)
        lo, hi = int(info.min), int(info.max)
        if device == P310 and dtype == "int32":
            lo, hi = -2**30, 2**30
        if device == P310 and dtype == "int16":
            hi = hi - 40
        first = draw(st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi, 0, 2**24 - 3]) if hi > 2**24 else
                               st.sampled_from([lo, hi, 0])))
    elif dtype == "half":
        first = float(np.float16(draw(st.floats(-3000, 3000, width=16))))
    else:
        first = _f32(draw(st.one_of(st.floats(-1e8, 1e8, width=32), st.sampled_from([0.3, 16777215.0, -0.1]))))
    return device, dtype, first, count, draw(st.integers(0, 2**31))


@HYP
@given(_cvi_case())
def test_create_vec_index_whole_ub_against_the_model(case):
    """Exactly count elements written on every device; the scalar block and the Adds chains of each implementation."""
    device, dtype, first, count, seed = case
    core = aj.Core(device)
    size = SIZE[dtype]
    dst = core.local_tensor(dtype, 2208)
    before = _fill(core, seed)
    want = before.copy()
    np_t = aj.dtypes.resolve(dtype).np_dtype
    vals = _cvi_model(device, dtype, first, count)
    want[dst.addr:dst.addr + count * size] = np.array(vals, np.float64 if dtype in ("half", "float") else np.int64
                                                      ).astype(np_t).view(np.uint8)
    aj.CreateVecIndex(dst, np_t.type(first), count)
    _ub_equal(core, want)


def test_create_vec_index_refusals():
    """910 (UnsupportedDeviceError), uint16/int8 off the 950 (UnsupportedDTypeError), count past dst
    (OutOfBoundsError), count negative (ParameterError), first_value outside T or a fraction for an integer T
    (ParameterError), a misaligned dst (AlignmentError)."""
    c = aj.Core(T910)
    x = c.local_tensor("half", 128)
    _refused(c, aj.UnsupportedDeviceError, "CreateVecIndex", None, lambda: aj.CreateVecIndex(x, 0.0, 16))
    core = aj.Core(A2)
    for dtype in ("uint16", "int8", "uint32"):
        x = core.local_tensor(dtype, 256)
        _refused(core, aj.UnsupportedDTypeError, "CreateVecIndex", None, lambda: aj.CreateVecIndex(x, 0, 16))
    t = core.local_tensor("int16", 128)
    _refused(core, aj.OutOfBoundsError, "CreateVecIndex", "count", lambda: aj.CreateVecIndex(t, 0, 129))
    _refused(core, aj.ParameterError, "CreateVecIndex", "count", lambda: aj.CreateVecIndex(t, 0, -1))
    _refused(core, aj.ParameterError, "CreateVecIndex", "first", lambda: aj.CreateVecIndex(t, 40000, 8))
    _refused(core, aj.ParameterError, "CreateVecIndex", "first", lambda: aj.CreateVecIndex(t, 1.5, 8))
    _refused(core, aj.AlignmentError, "CreateVecIndex", None, lambda: aj.CreateVecIndex(t[1:], 0, 8))
    p = aj.Core(P310)
    i32 = p.local_tensor("int32", 64)
    _refused(p, aj.ParameterError, "CreateVecIndex", "first", lambda: aj.CreateVecIndex(i32, np.int32(2**31 - 1), 8))


@pytest.mark.parametrize("device", [D950, A2, P310, B310])
@pytest.mark.parametrize("half_sat", [False, True])
@pytest.mark.parametrize("int_sat", [False, True])
def test_arith_progression_and_create_vec_index_overflow_modes(device, half_sat, int_sat):
    """Past the type's range: the scalar unit's elements convert without saturation (inf / modular), every Adds and
    Muls stage follows SPEC-2 D35 with the core's half overflow mode and CTRL[53] (decisions "ArithProgression",
    "CreateVecIndex")."""
    from conftest import set_int_sat, set_sat_mode
    core = aj.Core(device, bounds="ub")
    if not set_sat_mode(core, half_sat) or not set_int_sat(core, int_sat):
        pytest.skip("the device has no such mode (SPEC D6)")
    cases = []
    if device in ARITH:
        cases += [("arith", "half", 65000.0, 100.0, 300), ("arith", "int16", 32000, 100, 300),
                  ("arith", "int32", 2**31 - 5000, 3, 3000), ("arith", "half", -65504.0, 2.0, 9)]
    cases += [("cvi", "int16", 32700, None, 300), ("cvi", "half", 65000.0, None, 2000),
              ("cvi", "half", 65504.0, None, 40),
              ("cvi", "int32", 2**31 - 200, None, 300)]
    for kind, dtype, first, diff, count in cases:
        if kind == "cvi" and device == P310 and dtype == "int32":
            continue   # dav_m200's float32 path: a sum outside int32 is refused (tested above)
        size = SIZE[dtype]
        dst = core.local_tensor(dtype, 3008)
        before = _fill(core, count)
        want = before.copy()
        np_t = aj.dtypes.resolve(dtype).np_dtype
        if dtype == "half":   # SPEC-2 D29: the scalars are converted to T first (65000 -> 64992)
            first, diff = float(np.float16(first)), None if diff is None else float(np.float16(diff))
        if kind == "arith":
            vals, n = _arith_model(device, dtype, first, diff, count, half_sat, int_sat)
            aj.ArithProgression(dst, np_t.type(first), np_t.type(diff), count)
        else:
            vals, n = _cvi_model(device, dtype, first, count, half_sat, int_sat), count
            aj.CreateVecIndex(dst, np_t.type(first), count)
        want[dst.addr:dst.addr + n * size] = np.array(vals, np.float64 if dtype == "half" else np.int64
                                                      ).astype(np_t).view(np.uint8)
        _ub_equal(core, want)


# --- GetReduceRepeatMaxMinSpr (SPEC-2 8.4, D55) ----------------------------------------------------------------------
@st.composite
def _spr_case(draw):
    device = draw(st.sampled_from([A2, A3, P310]))
    dtype = draw(st.sampled_from(["half", "float"]))
    lanes = 256 // SIZE[dtype]
    repeat = draw(st.integers(1, 5))
    mask = draw(st.integers(1, lanes))
    op = draw(st.sampled_from(["MAX", "MIN"]))
    return device, dtype, repeat, mask, op, draw(st.integers(0, 2**31))


@pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync,dcache", reason="reads GetReduceRepeatMaxMinSpr right "
                             "after ReduceRepeat with no V_S flag between them")
@HYP
@given(_spr_case())
def test_get_reduce_repeat_max_min_spr_against_the_model(case):
    """Distinct finite values over every repeat (contiguous: srcBlkStride 1, srcRepStride 8): value = the extreme of
    the active lanes over all repeats, index = i * L + j (A2/A3), the 310P the value only; a later ReduceRepeat SUM
    does not change it (D55 names MAX/MIN only)."""
    device, dtype, repeat, mask, op, seed = case
    core = aj.Core(device)
    lanes = 256 // SIZE[dtype]
    np_t = aj.dtypes.resolve(dtype).np_dtype
    src, dst = core.local_tensor(dtype, 5 * lanes), core.local_tensor(dtype, 64)
    rng = np.random.default_rng(seed)
    vals = (rng.permutation(2000)[:repeat * lanes] - 1000).astype(np_t) / np_t.type(8)
    src[:repeat * lanes] = vals
    aj.ReduceRepeat(dst, src, mask, repeat, 1, 1, 8, reduce_type=getattr(aj.ReduceType, op))
    active = [(float(vals[i * lanes + j]), i * lanes + j) for i in range(repeat) for j in range(mask)]
    pick = max if op == "MAX" else min
    value, index = pick(active, key=lambda t: t[0])
    aj.ReduceRepeat(dst[32:], src, lanes, 1, 1, 1, 8, reduce_type=aj.ReduceType.SUM)
    got = aj.GetReduceRepeatMaxMinSpr(dtype, core=core)
    if device == P310:
        assert isinstance(got, np_t.type) and float(got) == value
    else:
        assert isinstance(got[0], np_t.type) and float(got[0]) == value
        assert int(got[1].view(UINT[SIZE[dtype]])) == index


@pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync,dcache", reason="reads GetReduceRepeatMaxMinSpr right "
                             "after ReduceRepeat with no V_S flag between them")
def test_get_reduce_repeat_max_min_spr_specials_and_states():
    """H-19's example; D41 -0 < +0 and NaN wins (its first lane); saturation mode: the value saturated like the written
    one (D55); after ReduceMax the index is all ones; refusals (StateError, UnsupportedDeviceError) leave the UB and
    the register state as they were."""
    core = aj.Core(A2)
    src, dst = core.local_tensor("half", 256), core.local_tensor("half", 64)
    x = np.zeros(256, np.float16)
    x[128 + 3] = 9.0
    src[:] = x
    aj.ReduceRepeat(dst, src, 128, 2, 1, 1, 8, reduce_type=aj.ReduceType.MAX)
    v, i = aj.GetReduceRepeatMaxMinSpr("half", core=core)
    assert float(v) == 9.0 and int(i.view(np.uint16)) == 131                      # H-19: (9.0, 131)
    x = np.full(256, 1.0, np.float16)
    x[5], x[200], x[201] = -0.0, np.nan, np.nan
    src[:] = x
    aj.ReduceRepeat(dst, src, 128, 2, 1, 1, 8, reduce_type=aj.ReduceType.MAX)
    v, i = aj.GetReduceRepeatMaxMinSpr("half", core=core)
    assert np.isnan(v) and int(i.view(np.uint16)) == 200
    src[:] = np.where(np.arange(256) == 7, np.float16(-0.0), np.float16(0.0)).astype(np.float16)
    aj.ReduceRepeat(dst, src, 128, 2, 1, 1, 8, reduce_type=aj.ReduceType.MIN)
    v, i = aj.GetReduceRepeatMaxMinSpr("half", core=core)
    assert v.view(np.uint16) == 0x8000 and int(i.view(np.uint16)) == 7
    core.SetCtrlSpr(48, 48, 0)                                                     # half saturation (D35)
    x = np.zeros(256, np.float16)
    x[130] = np.inf
    src[:] = x
    aj.ReduceRepeat(dst, src, 128, 2, 1, 1, 8, reduce_type=aj.ReduceType.MAX)
    v, i = aj.GetReduceRepeatMaxMinSpr("half", core=core)
    assert float(v) == 65504.0 and float(dst.numpy()[2]) == 65504.0 and int(i.view(np.uint16)) == 130
    core.SetCtrlSpr(48, 48, 1)
    f, fd, tmp = core.local_tensor("float", 256), core.local_tensor("float", 64), core.local_tensor("float", 1024)
    f[:] = np.arange(256, dtype=np.float32)
    aj.ReduceMax(fd, f, tmp, 256, True)
    v, i = aj.GetReduceRepeatMaxMinSpr("float", core=core)
    assert float(v) == 255.0 and int(i.view(np.uint32)) == 0xFFFFFFFF
    _refused(core, aj.StateError, "GetReduceRepeatMaxMinSpr", "dtype",
             lambda: aj.GetReduceRepeatMaxMinSpr("half", core=core))
    aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 16, reduce_type=aj.ReduceType.MAX)   # srcRepStride 16
    _refused(core, aj.StateError, "GetReduceRepeatMaxMinSpr", None,
             lambda: aj.GetReduceRepeatMaxMinSpr("half", core=core))
    aj.ReduceRepeat(dst, src, 64, 1, 1, 2, 8, reduce_type=aj.ReduceType.MAX)     # srcBlkStride 2
    _refused(core, aj.StateError, "GetReduceRepeatMaxMinSpr", None,
             lambda: aj.GetReduceRepeatMaxMinSpr("half", core=core))
    core.SetMaskCount()
    aj.ReduceRepeat(dst, src, 128, 1, 1, 1, 8, reduce_type=aj.ReduceType.MAX)
    core.SetMaskNorm()
    _refused(core, aj.StateError, "GetReduceRepeatMaxMinSpr", None,
             lambda: aj.GetReduceRepeatMaxMinSpr("half", core=core))
    fresh = aj.Core(A3)
    _refused(fresh, aj.StateError, "GetReduceRepeatMaxMinSpr", None,
             lambda: aj.GetReduceRepeatMaxMinSpr("float", core=fresh))
    for device in (D950, B310, T910):
        c = aj.Core(device)
        _refused(c, aj.UnsupportedDeviceError, "GetReduceRepeatMaxMinSpr", None,
                 lambda: aj.GetReduceRepeatMaxMinSpr("half", core=c))
    _refused(fresh, aj.UnsupportedDTypeError, "GetReduceRepeatMaxMinSpr", None,
             lambda: aj.GetReduceRepeatMaxMinSpr("int32", core=fresh))


# --- Transpose (decisions "Transpose"; DK 数据排布转换/Transpose.md) ------------------------------------------------------
TT = aj.TransposeType
FORMAT_T = ["int8", "uint8", "int16", "uint16", "half", "int32", "uint32", "float"]


def _tmp_min(dtype, c, kind):
    """The page's table: (c + 2) or (2c + 1) blocks of h0 x w0 elements (h0 32 for 8-bit types, else 16)."""
    size = SIZE[dtype]
    return (c + 2 if kind == TT.TRANSPOSE_NCHW2NHWC else 2 * c + 1) * (32 if size == 1 else 16) * (32 // size) * size


@HYP
@given(st.sampled_from(aj.SUPPORTED_NAMES), st.sampled_from(["int16", "uint16", "half"]), st.booleans(),
       st.booleans(), st.integers(0, 2**31))
def test_transpose_16x16_whole_ub(device, dtype, in_place, enhanced, seed):
    """Basic form on every device (int16/uint16/half), in place allowed; the enhanced ND2ND_B16 (h = w = 16) where the
    page lists it (uint16 off the 950, not on the 910); the other bytes unchanged."""
    core = aj.Core(device)
    if enhanced and (device == T910 or (device != D950 and dtype != "uint16")):
        return
    src = core.local_tensor(dtype, 256)
    dst = src if in_place else core.local_tensor(dtype, 256)
    tmp = core.local_tensor("uint8", 64)
    before = _fill(core, seed)
    want = before.copy()
    block = before[src.addr:src.addr + 512].view(np.uint16).reshape(16, 16)
    want[dst.addr:dst.addr + 512] = block.T.copy().view(np.uint8).ravel()
    if enhanced:
        aj.Transpose(dst, src, tmp, aj.TransposeParamsExt(0, 0, 16, 16, TT.TRANSPOSE_ND2ND_B16))
    else:
        aj.Transpose(dst, src)
    _ub_equal(core, want)


@st.composite
def _format_case(draw):
    device = draw(st.sampled_from([D950, A3, A2, P310]))
    dtype = draw(st.sampled_from(FORMAT_T + (["bfloat16"] if device == D950 else [])))
    size = SIZE[dtype]
    kind = draw(st.sampled_from([TT.TRANSPOSE_NCHW2NHWC, TT.TRANSPOSE_NHWC2NCHW]))
    unit = 32 // size                    # h * w * size a multiple of 32 bytes
    hw = unit * draw(st.integers(0, 6))
    h = draw(st.sampled_from([d for d in range(1, hw + 1) if hw % d == 0] or [0]))
    w = hw // h if h else draw(st.integers(0, 3))
    return device, dtype, kind, draw(st.integers(0, 3)), draw(st.integers(0, 20)), h, w, draw(st.integers(0, 2**31))


@HYP
@given(_format_case())
def test_transpose_format_conversions_whole_ub(case):
    """numpy's transpose(0, 2, 3, 1) / (0, 3, 1, 2) of the page's pseudocode; sizes 0 write nothing; the tmp buffer
    (exactly the page's minimum, none on the 310P) keeps its bytes (decisions "Transpose")."""
    device, dtype, kind, n, c, h, w, seed = case
    core = aj.Core(device)
    size = SIZE[dtype]
    cap = 4 * 20 * 6 * 32
    src, dst = core.local_tensor(dtype, cap // size), core.local_tensor(dtype, cap // size)
    need = 0 if device == P310 else _tmp_min(dtype, c, kind)
    tmp = core.local_tensor("uint8", max(need, 32))
    before = _fill(core, seed)
    want = before.copy()
    elements = n * c * h * w
    u = UINT[size]
    if elements:
        x = before[src.addr:src.addr + elements * size].view(u)
        if kind == TT.TRANSPOSE_NCHW2NHWC:
            y = x.reshape(n, c, h, w).transpose(0, 2, 3, 1)
        else:
            y = x.reshape(n, h, w, c).transpose(0, 3, 1, 2)
        want[dst.addr:dst.addr + elements * size] = np.ascontiguousarray(y).view(np.uint8).ravel()
    tmp_t = tmp if need else core.local_tensor("uint8", 32)
    aj.Transpose(dst, src, tmp_t[:need] if need else tmp_t, aj.TransposeParamsExt(n, c, h, w, kind))
    _ub_equal(core, want)


@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync,dcache", reason="transposes a fresh 310P tensor and "
                             "compares the result with whatever bytes it held")
def test_transpose_refusals_and_none():
    """TRANSPOSE_TYPE_NONE writes nothing; refused: a 当前不支持 type (ParameterError), ND2ND_B16 with h or w not 16
    (ParameterError), a dtype off the page (UnsupportedDTypeError), cSize > 255 for NCHW2NHWC off the 310P and > 4095
    anywhere, h * w * sizeof(T) not a 32-B multiple, a tmp buffer one byte short (ParameterError), src and dst shared
    by a format conversion and partial overlap in the 16 x 16 form (OverlapError), the 910's format conversion and the
    310B's (UnsupportedDeviceError or UnsupportedDTypeError)."""
    core = aj.Core(A2)
    src, dst = core.local_tensor("half", 4096), core.local_tensor("half", 4096)
    tmp = core.local_tensor("uint8", 40000)
    before = _fill(core, 3)
    aj.Transpose(dst, src, tmp, aj.TransposeParamsExt(1, 2, 16, 16, TT.TRANSPOSE_TYPE_NONE))
    _ub_equal(core, before)
    P = aj.TransposeParamsExt
    _refused(core, aj.ParameterError, "Transpose", "transposeType",
             lambda: aj.Transpose(dst, src, tmp, P(1, 2, 16, 16, TT.TRANSPOSE_NZ2ND_0213)))
    u = core.local_tensor("uint16", 256)
    _refused(core, aj.ParameterError, "Transpose", "Size",
             lambda: aj.Transpose(u, u, tmp, P(0, 0, 16, 8, TT.TRANSPOSE_ND2ND_B16)))
    _refused(core, aj.UnsupportedDTypeError, "Transpose", None,
             lambda: aj.Transpose(dst, src, tmp, P(0, 0, 16, 16, TT.TRANSPOSE_ND2ND_B16)))
    f = core.local_tensor("float", 256)
    _refused(core, aj.UnsupportedDTypeError, "Transpose", None, lambda: aj.Transpose(f, f))
    _refused(core, aj.ParameterError, "Transpose", "cSize",
             lambda: aj.Transpose(dst, src, tmp, P(1, 256, 1, 16, TT.TRANSPOSE_NCHW2NHWC)))
    _refused(core, aj.ParameterError, "Transpose", "cSize",
             lambda: aj.Transpose(dst, src, tmp, P(1, 4096, 1, 16, TT.TRANSPOSE_NHWC2NCHW)))
    _refused(core, aj.ParameterError, "Transpose", "hSize * wSize",
             lambda: aj.Transpose(dst, src, tmp, P(1, 2, 1, 8, TT.TRANSPOSE_NCHW2NHWC)))
    short = tmp[:_tmp_min("half", 3, TT.TRANSPOSE_NHWC2NCHW) - 1]
    _refused(core, aj.ParameterError, "Transpose", "sharedTmpBuffer",
             lambda: aj.Transpose(dst, src, short, P(1, 3, 1, 16, TT.TRANSPOSE_NHWC2NCHW)))
    _refused(core, aj.OverlapError, "Transpose", None,
             lambda: aj.Transpose(src, src, tmp, P(1, 3, 1, 16, TT.TRANSPOSE_NHWC2NCHW)))
    _refused(core, aj.OverlapError, "Transpose", None, lambda: aj.Transpose(src[16:], src))
    _refused(core, aj.AlignmentError, "Transpose", None, lambda: aj.Transpose(dst[8:], src))
    p = aj.Core(P310)
    ps, pd = p.local_tensor("half", 4096), p.local_tensor("half", 4096)
    pt = p.local_tensor("uint8", 32)
    aj.Transpose(pd, ps, pt, P(1, 256, 1, 16, TT.TRANSPOSE_NCHW2NHWC))     # the 310P's v4dtrans: 4095 channels
    assert np.array_equal(pd.numpy(), ps.numpy().reshape(256, 16).T.ravel())
    for device in (T910, B310):
        c = aj.Core(device)
        cs, cd = c.local_tensor("half", 256), c.local_tensor("half", 256)
        ct = c.local_tensor("uint8", 4096)
        with pytest.raises((aj.UnsupportedDeviceError, aj.UnsupportedDTypeError)):
            aj.Transpose(cd, cs, ct, P(1, 2, 1, 16, TT.TRANSPOSE_NCHW2NHWC))


# --- Reg Arange and the Reg scalar shifts (decisions "Reg Arange", "Reg API"), plain and in a compiled VF -------------
R = aj.Reg
REG_INT = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


def _reg_shift_vf(out, a, T, op, amount, n):
    reg, res = R.RegTensor(T), R.RegTensor(T)
    R.LoadAlign(reg, a, 0)
    R.Duplicate(res, 0)
    if op == 0:
        R.ShiftLefts(res, reg, amount, R.UpdateMask(T, n)[0])
    else:
        R.ShiftRights(res, reg, amount, R.UpdateMask(T, n)[0], R.MaskMergeMode.ZEROING)
    R.StoreAlign(out, res, R.CreateMask(T), 0)


REG_SHIFT_VF = R.simd_vf(_reg_shift_vf)


def _reg_shift_expected(dtype, raw, op, amount, active):
    size = SIZE[dtype]
    signed = dtype.startswith("int")
    out = np.zeros(len(raw), np.uint8)
    for j in range(len(raw) // size if active is None else active):
        v = _shift_model(_ival(raw[j * size:(j + 1) * size], size, signed), 8 * size, signed, op, amount)
        _put(out, j * size, v, size)
    return out   # ZEROING: inactive lanes 0


@pytest.mark.parametrize("dtype", REG_INT)
def test_reg_shifts_plain_and_compiled_against_the_model(dtype):
    """Every integer register type, amounts 0, 1, width-1, width, width+1 and 32767 (the int16 scalarValue's top),
    a prefix mask (ZEROING: inactive lanes 0); the compiled VF gives the same bytes as plain Python and the model."""
    core = aj.Core(D950)
    size = SIZE[dtype]
    lanes = 256 // size
    a, out = core.local_tensor(dtype, lanes), core.local_tensor(dtype, lanes)
    raw = np.random.default_rng(size).integers(0, 256, 256, dtype=np.uint8)
    raw[:size] = 0xFF
    raw[size:2 * size] = [0] * (size - 1) + [0x80]
    raw[2 * size:3 * size] = [0xFF] * (size - 1) + [0x7F]
    core.ub[a.addr:a.addr + 256] = raw
    core.ub_written_by_host(a.addr, 256)
    width = 8 * size
    active = lanes - 5
    for op_i, op in enumerate(("ShiftLeft", "ShiftRight")):
        for amount in (0, 1, width - 1, width, width + 1, 32767):
            want = _reg_shift_expected(dtype, raw, op, amount, active)
            with core:
                before = core.ub.copy()
                REG_SHIFT_VF(out, a, dtype, op_i, amount, active)
                want_ub = before.copy()
                want_ub[out.addr:out.addr + 256] = want
                _ub_equal(core, want_ub)
                ra, rd = R.RegTensor(dtype), R.RegTensor(dtype)
                R.LoadAlign(ra, a, 0)
                getattr(R, op + "s")(rd, ra, amount, R.UpdateMask(dtype, active)[0])
                assert np.array_equal(rd.numpy().view(np.uint8), want), (op, amount)


def test_reg_shift_refusals():
    """A negative amount, one past int16 (the pages' scalarValue is int16_t), a bool, a float; a float register;
    MERGING; off the 950: the refusal's class, the register unchanged."""
    core = aj.Core(D950)
    with core:
        src, dst = R.RegTensor("int32"), R.RegTensor("int32")
        R.Duplicate(src, 7)
        R.Duplicate(dst, 3)
        m = R.CreateMask("int32")
        for amount, cls in ((-1, aj.ParameterError), (32768, aj.ParameterError), (True, aj.ParameterError),
                            (2.0, aj.ParameterError)):
            for op in ("ShiftLefts", "ShiftRights"):
                with pytest.raises(cls, match=op):
                    getattr(R, op)(dst, src, amount, m)
                assert np.all(dst.numpy() == 3)
        f = R.RegTensor("float")
        with pytest.raises(aj.UnsupportedDTypeError, match="ShiftLefts"):
            R.ShiftLefts(f, f, 1, m)
    with aj.Core(A2), pytest.raises(aj.UnsupportedDeviceError, match="ShiftRights"):
        R.ShiftRights(dst, src, 1, m)


@R.simd_vf
def _reg_arange_vf(dst, first, T):
    reg = R.RegTensor(T)
    R.Arange(reg, first)
    R.StoreAlign(dst, reg, R.CreateMask(T), 0)


REG_ARANGE = {"int8": [-128, 127, 5], "int16": [32767, -32768, 100], "int32": [2**31 - 10, -2**31, 0],
              "int64": [2**63 - 3, -2**63], "half": [0.3, 2047.0, 65500.0, -0.0, 1e-7], "float": [0.1, 16777200.0,
                                                                                                     3.4028235e38]}


def _arange_expected(dtype, first, int_sat=False, half_sat=False):
    lanes = 256 // SIZE[dtype]
    np_t = aj.dtypes.resolve(dtype).np_dtype
    stage = _stage(dtype, half_sat, int_sat)
    f = float(np_t.type(first)) if dtype in ("half", "float") else int(first)
    vals = [stage(f + j) for j in range(lanes)]
    return np.array(vals, np.float64 if dtype in ("half", "float") else object).astype(np_t)


@pytest.mark.parametrize("dtype", sorted(REG_ARANGE))
def test_reg_arange_plain_compiled_and_modes(dtype):
    """Lane j = scalar + j, the exact sum rounded once (integers wrap; int16/int32 clamp under CTRL[53]; half
    saturates under CTRL[48] = 0, SPEC-2 D35 as Add's lane); the compiled VF's bytes equal plain Python's and the
    model's, and nothing else in the UB changes."""
    from conftest import set_int_sat, set_sat_mode
    core = aj.Core(D950)
    np_t = aj.dtypes.resolve(dtype).np_dtype
    lanes = 256 // SIZE[dtype]
    out = core.local_tensor(dtype, lanes)
    for int_sat, half_sat in ((False, False), (True, True)):
        set_int_sat(core, int_sat)
        set_sat_mode(core, half_sat)
        for first in REG_ARANGE[dtype]:
            want = _arange_expected(dtype, first, int_sat, half_sat)
            u = UINT[SIZE[dtype]]
            with core:
                before = _fill(core, lanes)
                _reg_arange_vf(out, np_t.type(first), dtype)
                expect = before.copy()
                expect[out.addr:out.addr + 256] = want.view(np.uint8)
                _ub_equal(core, expect)
                r = R.RegTensor(dtype)
                R.Arange(r, np_t.type(first))
                assert np.array_equal(r.numpy().view(u), want.view(u)), (first, int_sat, half_sat)


def test_reg_arange_refusals():
    """An order outside IndexOrder (ParameterError), dtypes off the page (UnsupportedDTypeError), a value
    outside T or a fraction for an integer T (SPEC-2 D29, ParameterError), off the 950 (UnsupportedDeviceError)."""
    with aj.Core(D950):
        r = R.RegTensor("int16")
        R.Duplicate(r, 9)
        for call, cls in ((lambda: R.Arange(r, 0, order=2), aj.ParameterError),
                          (lambda: R.Arange(r, 40000), aj.ParameterError),
                          (lambda: R.Arange(r, 1.5), aj.ParameterError),
                          (lambda: R.Arange(R.RegTensor("uint16"), 0), aj.UnsupportedDTypeError),
                          (lambda: R.Arange(R.RegTensor("bfloat16"), 0), aj.UnsupportedDTypeError)):
            with pytest.raises(cls, match="Arange"):
                call()
            assert np.all(r.numpy() == 9)
    with aj.Core(A2), pytest.raises(aj.UnsupportedDeviceError, match="Arange"):
        R.Arange(r, 0)


# --- the vector mask register after the calls (SPEC-2 D31 with decisions "ArithProgression", "CreateVecIndex") --------
def _lanes_words(n):
    """SetVectorMask of a continuous n lanes: (high, low) with bits 0..n-1 set (SPEC 2.1)."""
    bits = (1 << n) - 1
    return bits >> 64, bits & (2**64 - 1)


def _arith_mask(device, dtype, count, old):
    if device == D950:
        return old
    blk, rep = 32 // SIZE[dtype], 256 // SIZE[dtype]
    if count <= blk:
        return old
    if count <= rep:
        return _lanes_words(blk)
    tail = count % rep
    return _lanes_words(-(-tail // blk) * blk) if tail else (2**64 - 1, 2**64 - 1)   # ResetMask: every bit


def _cvi_mask(device, dtype, count, old):
    if device in (D950, B310):
        return old
    blk, rep = 32 // SIZE[dtype], 256 // SIZE[dtype]
    if count <= blk:
        return old
    if count <= rep:
        return _lanes_words(count % blk or blk)
    return _lanes_words(count % rep or rep)


@pytest.mark.parametrize("device", [D950, A2, P310, B310])
@pytest.mark.parametrize("dtype", ["half", "float", "int16", "int32"])
def test_mask_register_after_arith_progression_and_create_vec_index(device, dtype):
    """ArithProgression leaves SetVectorMask(B lanes) / the tail's blocks / ResetMask; CreateVecIndex its last Adds'
    mask (B, the tail's count, or R); the scalar-only path, the 950 and (CreateVecIndex) the 310B leave it as it was."""
    np_t = aj.dtypes.resolve(dtype).np_dtype
    for count in (1, 32 // SIZE[dtype], 32 // SIZE[dtype] + 3, 100, 256 // SIZE[dtype], 200, 256, 300, 1000):
        for kind in ("arith", "cvi"):
            if kind == "arith" and device == B310:
                continue
            core = aj.Core(device, bounds="ub")
            core.SetVectorMask(0x1234, 0x5678)
            t = core.local_tensor(dtype, 1024)
            if kind == "arith":
                aj.ArithProgression(t, np_t.type(1), np_t.type(1), count)
                want = _arith_mask(device, dtype, count, (0x1234, 0x5678))
            else:
                aj.CreateVecIndex(t, np_t.type(1), count)
                want = _cvi_mask(device, dtype, count, (0x1234, 0x5678))
            assert (core.mask_high, core.mask_low) == want and core.mask_defined, (kind, count)


def _after(device, call, dtype):
    core = aj.Core(device)
    core.SetVectorMask(0x1234, 0x5678)
    call(core, dtype)
    return core.mask_high, core.mask_low, core.mask_defined


@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync,dcache", reason="calls on fresh tensors: it checks the "
                             "mask register the calls leave, not the values they compute")
@pytest.mark.parametrize("device", [D950, A3, A2, B310])
def test_mask_register_after_high_dim_calls_is_adds(device):
    """D31: the high-dim element-wise rows leave the register exactly as a high-dim Add on the same device (A2/A3
    their own mask, the 950 bit-mask calls only); count forms as count Add; the 310B untouched by both (D31's
    parenthesis and D22's 310B count rule; decisions "Mask register after high-dim element-wise calls on the 310B")."""
    def make(name):
        def call(core, dtype):
            d, s = core.local_tensor(dtype, 512), core.local_tensor(dtype, 512)
            for tail in ((77, 2, U(1, 1, 8, 8)), ([0xF0F0, 0xFF00FF], 2, U(1, 1, 8, 8)), (300,)):
                if name == "Add":
                    aj.Add(d, s, s, *tail[:1], *((tail[1], aj.BinaryRepeatParams()) if len(tail) > 1 else ()))
                elif name == "Copy":
                    if len(tail) > 1:
                        aj.Copy(d, s, tail[0], 2, aj.CopyRepeatParams(1, 1, 8, 8))
                    elif core.device == D950:
                        aj.Copy(d, s, 300)
                    else:
                        aj.Add(d, s, s, 300)   # no count Copy off the 950: the same register as count Add
                elif name in ("Ands", "Ors", "ShiftLeft", "ShiftRight"):
                    getattr(aj, name)(d, s, np.int16(1), *tail)
                else:
                    aj.Not(d, s, *tail)
                yield core.mask_high, core.mask_low, core.mask_defined
        return call
    names = ["Copy", "ShiftLeft", "ShiftRight", "Not"] + (["Ands", "Ors"] if device == D950 else [])
    for name in names:
        dtype = "int16"
        ref_core, got_core = aj.Core(device), aj.Core(device)
        for c in (ref_core, got_core):
            c.SetVectorMask(0x1234, 0x5678)
        want = list(make("Add")(ref_core, dtype)) if device != B310 else [(0x1234, 0x5678, True)] * 3
        got = list(make(name)(got_core, dtype))
        assert got == want, name


@pytest.mark.parametrize("device", [D950, A3, A2, B310])
@pytest.mark.parametrize("name", ["Copy", "ShiftLeft", "ShiftRight", "Not", "Ands", "Ors"])
def test_is_set_mask_false_reads_the_register(device, name):
    """is_set_mask=False with MASK_PLACEHOLDER: the lanes are the register's (SPEC 2.5, Normal mode), the rest of the
    UB unchanged; 16- and 32-bit lanes (32-bit: mask[0] only)."""
    if name in ("Ands", "Ors") and device != D950:
        return
    for dtype in ("int16", "int32") if name not in ("Ands", "Ors", "Not") else ("int16",):
        core = aj.Core(device)
        size = SIZE[dtype]
        hi, lo = (0x8000_0000_0000_0001 if size == 2 else 0), 0xF0F0_0000_FFFF_1234
        core.SetVectorMask(hi, lo)
        d, s = core.local_tensor(dtype, 1024), core.local_tensor(dtype, 1024)
        before = _fill(core, 11)
        want = before.copy()
        p = U(1, 2, 8, 16)
        amount = np.dtype(dtype).type(3)
        lane_fn = {"Copy": lambda raw: raw, "Not": lambda raw: ~raw,
                   "Ands": lambda raw: raw & np.frombuffer(int(3).to_bytes(size, "little"), np.uint8),
                   "Ors": lambda raw: raw | np.frombuffer(int(3).to_bytes(size, "little"), np.uint8)}.get(name)
        if lane_fn is None:
            def lane_fn(raw):
                out = np.zeros(size, np.uint8)
                _put(out, 0, _shift_model(_ival(raw, size, True), 8 * size, True, name, 3), size)
                return out
        _walk_unary(want, before, size, d.addr, s.addr, [lo, hi], 3, p, lane_fn)
        scalar = () if name in ("Copy", "Not") else (amount,)
        params = aj.CopyRepeatParams(1, 2, 8, 16) if name == "Copy" else p
        getattr(aj, name)(d, s, *scalar, aj.MASK_PLACEHOLDER, 3, params, is_set_mask=False)
        _ub_equal(core, want)


@pytest.mark.parametrize("device", [D950, A2, B310, P310])
@pytest.mark.parametrize("name", ["ShiftLeft", "ShiftRight", "Not", "Ands"])
def test_counter_mode_high_dim_forms(device, name):
    """SPEC-2 1.4: in counter mode the mask is the element count, repeat_time is ignored, the repeats are full but the
    last; strides apply. (Copy has the page's own per-repeat rule: test_copy_whole_ub_against_the_model.)"""
    if (name == "Ands" and device != D950) or (name.startswith("Shift") and device == P310):
        return
    core = aj.Core(device)
    d, s = core.local_tensor("int16", 2048), core.local_tensor("int16", 2048)
    for count, words in ((300, (0, 300)), (128, (0, 128)), (1, (0, 1))):
        for is_set in (True, False):
            before = _fill(core, count)
            want = before.copy()
            p = U(2, 1, 20, 9)
            fn = {"Not": lambda raw: ~raw, "Ands": lambda raw: raw & np.array([0x0F, 0xF0], np.uint8)}.get(name)
            if fn is None:
                def fn(raw):
                    out = np.zeros(2, np.uint8)
                    _put(out, 0, _shift_model(_ival(raw, 2, True), 16, True, name, 5), 2)
                    return out
            for r in range(-(-count // 128)):
                _walk_unary(want[:], before, 2, d.addr + r * p.dstRepStride * 32, s.addr + r * p.srcRepStride * 32,
                            min(128, count - 128 * r), 1, p, fn)
            core.SetMaskCount()
            if not is_set:
                core.SetVectorMask(*words)
            scalar = () if name == "Not" else (np.int16(5) if name != "Ands" else np.int16(-0x0FF1),)
            mask = count if is_set else aj.MASK_PLACEHOLDER
            getattr(aj, name)(d, s, *scalar, mask, 7, p, is_set_mask=is_set)
            core.SetMaskNorm()
            _ub_equal(core, want)


# --- the sanitizer's view (SPEC-2 10.4): every one is a PIPE_V instruction reading src and writing dst ----------------
SANITIZED = {
    "Copy": (A2, "int16", lambda d, s: aj.Copy(d, s, 128, 1, aj.CopyRepeatParams(1, 1, 8, 8))),
    "ShiftLeft": (A2, "int16", lambda d, s: aj.ShiftLeft(d, s, np.int16(1), 128)),
    "ShiftRight": (A3, "int16", lambda d, s: aj.ShiftRight(d, s, np.int16(1), 128)),
    "Not": (P310, "int16", lambda d, s: aj.Not(d, s, 128)),
    "Ands": (D950, "int16", lambda d, s: aj.Ands(d, s, np.int16(1), 128)),
    "Ors": (D950, "uint16", lambda d, s: aj.Ors(d, s, np.uint16(1), 128)),
    "Truncate": (D950, "half", lambda d, s: aj.Truncate(d, s, aj.RoundMode.CAST_CEIL, 128)),
    "Transpose": (T910, "half", lambda d, s: aj.Transpose(d, s)),
}


@pytest.mark.parametrize("name", sorted(SANITIZED))
def test_sanitizer_orders_mte2_before_the_vector_read(name):
    """A DataCopy GM -> UB into src, then the instruction: without an MTE2 -> V flag a RAW race on src is reported
    (naming the instruction); with SetFlag/WaitFlag<MTE2_V> nothing is; the values are the same either way."""
    device, dtype, call = SANITIZED[name]
    np_t = aj.dtypes.resolve(dtype).np_dtype
    host = (np.arange(256) % 50).astype(np_t)
    results = []
    for ordered in (False, True):
        with aj.Core(device, sanitize="report") as core:
            s, d = core.local_tensor(dtype, 256), core.local_tensor(dtype, 256)
            aj.DataCopy(s, aj.GlobalTensor(host), 256)
            if ordered:
                aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
                aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
            call(d, s)
            reports = [(r.instruction.api, r.kind) for r in core.sanitizer.reports]
            assert reports == ([] if ordered else [(name, "RAW")]), reports
            results.append(d.numpy().copy())
    assert np.array_equal(results[0].view(np.uint8), results[1].view(np.uint8))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "int64"])
def test_reg_shifts_with_pattern_masks(dtype):
    """Plain Reg shifts under CreateMask patterns (decisions "Reg API": M3 / M4 the lanes whose index is a multiple
    of 3 / 4, H the low half, Q the low quarter, ALLF none): ZEROING writes 0 to every other lane."""
    core = aj.Core(D950)
    size = SIZE[dtype]
    lanes = 256 // size
    a = core.local_tensor(dtype, lanes)
    raw = np.random.default_rng(9).integers(0, 256, 256, dtype=np.uint8)
    core.ub[a.addr:a.addr + 256] = raw
    core.ub_written_by_host(a.addr, 256)
    signed = dtype.startswith("int")
    pats = {"M3": lambda j: j % 3 == 0, "M4": lambda j: j % 4 == 0, "H": lambda j: j < lanes // 2,
            "Q": lambda j: j < lanes // 4, "ALLF": lambda j: False, "VL3": lambda j: j < 3}
    with core:
        src, dst = R.RegTensor(dtype), R.RegTensor(dtype)
        R.LoadAlign(src, a, 0)
        for pat, on in pats.items():
            for op in ("ShiftLeft", "ShiftRight"):
                getattr(R, op + "s")(dst, src, 3, R.CreateMask(dtype, getattr(R.MaskPattern, pat)))
                want = np.zeros(256, np.uint8)
                for j in range(lanes):
                    if on(j):
                        v = _shift_model(_ival(raw[j * size:(j + 1) * size], size, signed), 8 * size, signed, op, 3)
                        _put(want, j * size, v, size)
                assert np.array_equal(dst.numpy().view(np.uint8), want), (pat, op)
