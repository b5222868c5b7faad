"""Audit 36c: an independent model of SPEC-2 9.2 Gather, 9.3 GatherMask, 9.4 Compare/Compares and 9.5 Select, with
the common machinery of SPEC-2 1 (masks, counter mode, strides, refusals 1.8, devices 1.9).

The model below is written from the SPEC text alone (D30, D31, D43, D44, D57, D58, D59, SPEC 1.2, 2.1, 2.2, 2.6) and
shares no code with ascend_jit.reference or ascend_jit.jit: it reads and writes a copy of the UB byte by byte in plain
Python. Every test compares the WHOLE UB after the call (bytes the instruction must not write stay as they were) and
the core state the SPEC defines (mask register, counter mode)."""
import math
import struct

import numpy as np
import pytest

import ascend_jit as aj

C, S = aj.CMPMODE, aj.SELMODE
A950, A3, A2, B310, P310, T910 = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore",
                                  "atlas-training")
DEVICES = (A950, A3, A2, B310, P310, T910)
UB = {A950: 253952, A3: 196608, A2: 196608, B310: 253952, P310: 262144, T910: 262144}   # SPEC D4 / UB sizes
SZ = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "half": 2, "bfloat16": 2, "int32": 4, "uint32": 4, "float": 4,
      "int64": 8, "uint64": 8}
ONES = 2**64 - 1
MASK_EFFECTIVE = (A950, B310)     # D44: Compare masks are effective on 950/310B, ignored elsewhere
NE_NAN_TRUE = (A950, B310)        # D43

# SPEC-2 9.4 dtype tables (¹ = count form only)
_ALL950 = ["int16", "uint16", "half", "bfloat16", "int32", "uint32", "float"]
_CNT950 = ["int8", "uint8", "int64", "uint64"]
COMPARE_T = {A950: _ALL950 + _CNT950, A3: ["half", "float", "int32"], A2: ["half", "float", "int32"],
             B310: ["half", "float"], P310: ["half", "float"], T910: ["half", "float"]}
COMPARES_T = {A950: _ALL950 + _CNT950, A3: ["half", "float", "int32"], A2: ["half", "float", "int32"],
              B310: ["int16", "uint16", "half", "int32", "uint32", "float"], P310: ["half", "float"], T910: []}
SELECT_T = {A950: _ALL950 + _CNT950, **{d: ["half", "float"] for d in DEVICES[1:]}}
GATHER_T = {A950: _ALL950 + _CNT950, A3: ["int16", "uint16", "half", "bfloat16", "int32", "uint32", "float"],
            A2: ["int16", "uint16", "half", "bfloat16", "int32", "uint32", "float"],
            B310: ["int8", "uint8", "int16", "uint16", "half", "int32", "uint32", "float"],
            P310: ["int16", "uint16", "half", "int32", "uint32", "float"], T910: []}
GMASK_T = {A950: ["int8", "uint8", "int16", "uint16", "half", "bfloat16", "int32", "uint32", "float"],
           A3: GATHER_T[A3], A2: GATHER_T[A2], B310: GATHER_T[P310], P310: GATHER_T[P310], T910: []}


# ---------------------------------------------------------------------------------------------------------------
# the model: raw bytes in, raw bytes out
def bits_of(ub, addr, n):
    return int.from_bytes(bytes(ub[addr:addr + n]), "little")


def value(ub, addr, t):
    """The exact value of the element of type t at addr (a Python int or float)."""
    b = bytes(ub[addr:addr + SZ[t]])
    if t == "half":
        return float(np.frombuffer(b, np.float16)[0])
    if t == "float":
        return struct.unpack("<f", b)[0]
    if t == "bfloat16":
        return struct.unpack("<f", b"\0\0" + b)[0]
    return int.from_bytes(b, "little", signed=t.startswith("int"))


def scalar_value(bits, t):
    return value(np.frombuffer(bits.to_bytes(SZ[t], "little"), np.uint8), 0, t)


def lanes_of(mask, lanes):
    """SPEC 2.1/2.2: continuous m -> lanes 0..min(m, L)-1; bit mask [lo, hi] -> bit j of lo (j < 64), of hi."""
    if isinstance(mask, int):
        return list(range(min(mask, lanes)))
    lo, hi = (list(mask) + [0])[:2]
    return [j for j in range(lanes) if ((lo >> j) & 1 if j < 64 else (hi >> (j - 64)) & 1)]


def repeats_of(mask, repeat, lanes, counter):
    """[(i, active lanes)] per repeat: Normal mode the mask on every repeat; counter mode (SPEC 2.6, SPEC-2 1.4)
    the element count N = the int (or mask[0]), ceil(N/L) repeats, full except the last."""
    if counter:
        n = mask if isinstance(mask, int) else mask[0]
        return [(i, list(range(min(lanes, n - i * lanes)))) for i in range(-(-n // lanes))]
    act = lanes_of(mask, lanes)
    return [(i, act) for i in range(repeat)]


def lane_addr(base, i, j, size, blk, rep):
    """SPEC 1.2 / SPEC-2 1.3."""
    epb = 32 // size
    return base + i * rep * 32 + (j // epb) * blk * 32 + (j % epb) * size


def cmp_bit(x, y, mode, device):
    nan = (isinstance(x, float) and x != x) or (isinstance(y, float) and y != y)
    if mode == "NE":
        return int(device in NE_NAN_TRUE) if nan else int(x != y)   # D43
    return int({"LT": x < y, "GT": x > y, "LE": x <= y, "GE": x >= y, "EQ": x == y}[mode])  # IEEE ordered


def put_bits(ub, addr, bits, nbytes):
    ub[addr:addr + nbytes] = np.frombuffer(bits.to_bytes(nbytes, "little"), np.uint8)


def model_compare_count(ub, device, t, mode, d, a, b, scalar, count):
    """D44 count form: whole 256-B repeats, bit k of byte k//8 is element k."""
    s = SZ[t]
    assert count * s % 256 == 0
    src = ub.copy()
    out = 0
    for k in range(count):
        y = scalar if b is None else value(src, b + k * s, t)
        out |= cmp_bit(value(src, a + k * s, t), y, mode, device) << k
    put_bits(ub, d, out, count // 8)


def model_compare_hd(ub, device, t, mode, d, a, b, scalar, mask, repeat, blk0, rep0, blk1, rep1, counter):
    """D44 high-dim: repeat i writes L/8 bytes at d + i*L/8 (dst strides ignored); masked lanes give 0 bits on
    950/310B; every lane computed, repeat_time used (counter mode ignored) elsewhere; mask 0 a NOP (D30)."""
    s = SZ[t]
    lanes = 256 // s
    if device in MASK_EFFECTIVE:
        reps = repeats_of(mask, repeat, lanes, counter)
        if not counter and not lanes_of(mask, lanes):
            return
    else:
        if not counter and not lanes_of(mask, lanes):
            return   # decisions.md: mask 0 NOP on A2/A3/310P/910
        reps = [(i, list(range(lanes))) for i in range(repeat)]
    src = ub.copy()
    for i, act in reps:
        out = 0
        for j in act:
            x = value(src, lane_addr(a, i, j, s, blk0, rep0), t)
            y = scalar if b is None else value(src, lane_addr(b, i, j, s, blk1, rep1), t)
            out |= cmp_bit(x, y, mode, device) << j
        put_bits(ub, d + i * lanes // 8, out, lanes // 8)


def sel_bit(ub, m, k):
    return (ub[m + k // 8] >> (k % 8)) & 1


def model_select_count(ub, t, mode, d, m, a, b, scalar_bits, count):
    """D59 count form: element k uses bit k (modes 1, 2) or bit k mod L (mode 0)."""
    s = SZ[t]
    lanes = 256 // s
    src = ub.copy()
    for k in range(count):
        bit = sel_bit(src, m, k % lanes if mode == 0 else k)
        if bit:
            ub[d + k * s:d + k * s + s] = src[a + k * s:a + k * s + s]
        elif b is None:
            put_bits(ub, d + k * s, scalar_bits, s)
        else:
            ub[d + k * s:d + k * s + s] = src[b + k * s:b + k * s + s]


def model_select_hd(ub, t, mode, d, m, a, b, scalar_bits, mask, repeat, params, counter):
    s = SZ[t]
    lanes = 256 // s
    db, ab, bb, dr, ar, br = params
    src = ub.copy()
    for i, act in repeats_of(mask, repeat, lanes, counter):
        for j in act:
            bit = sel_bit(src, m, j if mode == 0 else i * lanes + j)
            o = lane_addr(d, i, j, s, db, dr)
            if bit:
                x = lane_addr(a, i, j, s, ab, ar)
                ub[o:o + s] = src[x:x + s]
            elif b is None:
                put_bits(ub, o, scalar_bits, s)
            else:
                x = lane_addr(b, i, j, s, bb, br)
                ub[o:o + s] = src[x:x + s]


def model_gather_count(ub, t, d, src, offs, base, count):
    s = SZ[t]
    old = ub.copy()
    for k in range(count):
        x = src + base + bits_of(old, offs + 4 * k, 4)
        ub[d + k * s:d + k * s + s] = old[x:x + s]


def gather_lanes(device, t):
    return 128 if SZ[t] == 1 and device in (A950, B310) else 256 // SZ[t]    # D57: 4 blocks for 8-bit T


def model_gather_hd(ub, device, t, d, src, offs, base, mask, repeat, drs, counter):
    s = SZ[t]
    lanes = gather_lanes(device, t)
    old = ub.copy()
    for i, act in repeats_of(mask, repeat, lanes, counter):
        for j in act:
            x = src + base + bits_of(old, offs + 4 * (i * lanes + j), 4)
            o = d + i * drs * 32 + j * s
            ub[o:o + s] = old[x:x + s]


BUILTIN = {1: (2, 0), 2: (2, 1), 3: (4, 0), 4: (4, 1), 5: (4, 2), 6: (4, 3), 7: (1, 0)}


def model_gather_mask(ub, device, t, d, a, pattern, reduce_mode, mask, params, reads=None):
    """SPEC-2 9.3 / D58: the selected elements in (repeat, element) order packed from d; returns rsvdCnt.
    pattern: a built-in number 1..7 or ("user", address of the pattern bits)."""
    s = SZ[t]
    lanes = 256 // s
    bs, rt, rs, prs = params
    old = ub.copy()
    jobs = []    # (outer repeat i, element e, address)
    if not reduce_mode:
        for i in range(rt):
            jobs += [(i, e, lane_addr(a, i, e, s, bs, rs)) for e in range(lanes)]
    elif device == P310:   # configuration 2: mask is the total count
        for i in range(-(-mask // lanes)):
            jobs += [(i, e, lane_addr(a, i, e, s, bs, rs)) for e in range(min(lanes, mask - i * lanes))]
    else:                  # configuration 1: each outer repeat handles mask elements in chunks of L
        for i in range(rt):
            for e in range(mask):
                c, j = divmod(e, lanes)
                jobs.append((i, e, a + i * rs * 32 + c * 8 * bs * 32 + lane_addr(0, 0, j, s, bs, 0)))
    kept = []
    if reads is not None:
        reads += [x for _, _, x in jobs]
    for i, e, x in jobs:
        if not isinstance(pattern, tuple):
            period, rem = BUILTIN[pattern]
            keep = (e % lanes) % period == rem
        else:
            keep = sel_bit(old, pattern[1] + i * prs * 32, e)
        if keep:
            kept.append(x)
    for k, x in enumerate(kept):
        ub[d + k * s:d + k * s + s] = old[x:x + s]
    return len(kept)


# ---------------------------------------------------------------------------------------------------------------
# inputs
def _int_pool(t):
    bits = 8 * SZ[t]
    if t.startswith("u"):
        return [0, 1, 2, 2**(bits - 1) - 1, 2**(bits - 1), 2**bits - 2, 2**bits - 1]
    return [0, 1, 2**bits - 1, 2**(bits - 1) - 1, 2**(bits - 1), 2**(bits - 1) + 1, 2**(bits - 1) - 2, 2**bits - 2]


POOL = {
    "half": [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE01, 0x7C01, 0x0001, 0x8001, 0x03FF, 0x3C00, 0xBC00, 0x3C01,
             0x7BFF, 0xFBFF, 0x4000],
    "float": [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 1, 0x80000001,
              0x3F800000, 0xBF800000, 0x3F800001, 0x7F7FFFFF, 0xFF7FFFFF, 0x40000000],
    "bfloat16": [0, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x7F81, 1, 0x8001, 0x3F80, 0xBF80, 0x3F81, 0x7F7F,
                 0xFF7F],
}


def edge_bits(rng, t, n):
    pool = POOL.get(t) or _int_pool(t)
    return [int(pool[i]) for i in rng.integers(0, len(pool), n)]


def write_elems(core, addr, t, bits):
    s = SZ[t]
    for k, v in enumerate(bits):
        core.ub[addr + k * s:addr + k * s + s] = np.frombuffer(int(v).to_bytes(s, "little"), np.uint8)


def fresh(device, seed, bounds="ub"):
    core = aj.Core(device, bounds=bounds)
    rng = np.random.default_rng(seed)
    core.ub[:] = np.frombuffer(rng.bytes(core.ub.size), np.uint8)
    core.ub_written_by_host()
    return core, rng


def tensor(core, t, addr, n=None):
    """An address handle running to the end of the UB (bounds='ub' cores), or n elements."""
    if n is None:
        n = (UB[core.device] - addr) // SZ[t]
    return core.local_tensor(t, n, addr=addr)


def np_scalar(t, bits, like):
    return np.frombuffer(bits.to_bytes(SZ[t], "little"), like.dtype.np_dtype)[0]


def edge_pair(core, rng, t, a, b, n):
    """src0 and src1 from the edge pools, with a quarter of the lanes equal (same bits) and some +0/-0 pairs."""
    x, y = edge_bits(rng, t, n), edge_bits(rng, t, n)
    for k in range(n):
        if k % 4 == 1:
            y[k] = x[k]
    write_elems(core, a, t, x)
    write_elems(core, b, t, y)
    return x, y


# ---------------------------------------------------------------------------------------------------------------
def test_model_self_check():
    """The model against the vendor examples quoted in SPEC-2 12.6 (K-1, K-3, K-4, K-5) and 12.7 (S-1 bits)."""
    ub = np.zeros(4096, np.uint8)
    x = np.repeat([2, 3, 5, 7, 11, 13, 17, 19], 8).astype(np.float32)
    y = np.repeat([2, 4, 6, 8, 10, 12, 14, 16], 8).astype(np.float32)
    ub[256:512], ub[512:768] = x.view(np.uint8), y.view(np.uint8)
    model_compare_count(ub, A2, "float", "LT", 0, 256, 512, None, 64)
    assert ub[:8].tolist() == [0, 255, 255, 255, 0, 0, 0, 0]
    model_compare_hd(ub, A950, "float", "LE", 0, 256, 512, None, [0x33333333, 0], 1, 1, 8, 1, 8, False)
    assert ub[:8].tolist() == [51, 51, 51, 51, 0, 0, 0, 0]
    model_compare_hd(ub, A950, "float", "LE", 0, 256, 512, None, 28, 1, 1, 8, 1, 8, False)
    assert ub[:8].tolist() == [255, 255, 255, 15, 0, 0, 0, 0]
    ub[256:512] = np.resize(np.array([2, 3, 5, 7, 11, 13, 17, 19], np.float32), 64).view(np.uint8)
    ub[512:768] = np.resize(np.array([2, 4, 6, 8, 10, 12, 14, 16], np.float32), 64).view(np.uint8)
    for mode, byte in (("GT", 0xF0), ("GE", 0xF1), ("LE", 0x0F), ("EQ", 1), ("NE", 0xFE), ("LT", 0x0E)):
        model_compare_count(ub, A2, "float", mode, 0, 256, 512, None, 64)
        assert ub[0] == byte
    assert cmp_bit(0.0, -0.0, "EQ", A2) == 1 and cmp_bit(0.0, -0.0, "LT", A2) == 0
    assert cmp_bit(math.nan, 1.0, "NE", A2) == 0 and cmp_bit(math.nan, 1.0, "NE", A950) == 1


# --- Compare / Compares count form ----------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
def test_compare_count_every_mode_edge_values(device):
    """SPEC-2 9.4, D43, D44: every dtype the device offers (count form), every CMPMODE, NaN/±0/±inf/extremes/equal
    values; dst bytes past the compared repeats, and the rest of the UB, unchanged."""
    core, rng = fresh(device, 3601)
    for n_t, t in enumerate(COMPARE_T[device]):
        s = SZ[t]
        lanes = 256 // s
        count = 2 * lanes
        modes = [C.EQ] if (t == "int32" and device in (A2, A3)) else list(C)
        for mode in modes:
            a, b, d = 1024 + 2048 * n_t, 40960 + 2048 * n_t, 96 + 128 * n_t
            edge_pair(core, rng, t, a, b, count)
            want = core.ub.copy()
            dt = tensor(core, "uint8", d)
            model_compare_count(want, device, t, mode.name, d, a, b, None, count)
            aj.Compare(dt, tensor(core, t, a), tensor(core, t, b), mode, count)
            assert np.array_equal(core.ub, want), (t, mode)


@pytest.mark.parametrize("device", [d for d in DEVICES if COMPARES_T[d]])
def test_compares_count_every_mode_edge_scalars(device):
    """Compares (SPEC-2 9.4) with the scalar a numpy scalar of the operand type (D29, bit for bit): NaN, -0, inf,
    extremes as scalars."""
    core, rng = fresh(device, 3602)
    for n_t, t in enumerate(COMPARES_T[device]):
        s = SZ[t]
        count = 256 // s
        modes = [C.EQ] if (t == "int32" and device in (A2, A3)) else list(C)
        pool = POOL.get(t) or _int_pool(t)
        a, d = 2048 + 1024 * n_t, 64 * n_t
        x = edge_bits(rng, t, count)
        x[:len(pool)] = pool
        write_elems(core, a, t, x)
        at = tensor(core, t, a)
        for k, mode in enumerate(modes):
            sbits = int(pool[(3 * k + n_t) % len(pool)])
            want = core.ub.copy()
            model_compare_count(want, device, t, mode.name, d, a, None, scalar_value(sbits, t), count)
            aj.Compares(tensor(core, "uint8", d), at, np_scalar(t, sbits, at), mode, count)
            assert np.array_equal(core.ub, want), (t, mode, hex(sbits))


# --- Compare / Compares high-dim --------------------------------------------------------------------------------
HD_CASES = [   # (mask, repeat, (blk0, blk1, rep0, rep1), counter)
    ([0xF0F0000000FFFF01, 0x8000000000000F0F], 3, (1, 2, 8, 16), False),
    (77, 2, (0, 1, 0, 8), False),      # src0 block stride 0 and repeat stride 0
    ([0x8000000000000001, 0], 2, (2, 1, 3, 1), False),   # overlapping repeats
    (300, 9, (1, 1, 8, 8), True),      # counter mode: 300 elements, repeat_time ignored on 950/310B
]


def _hd_case_mask(mask, lanes):
    if isinstance(mask, list) and lanes <= 64:
        return [mask[0] & (2**lanes - 1 if lanes < 64 else ONES), 0]
    return mask


@pytest.mark.parametrize("device", DEVICES)
def test_compare_high_dim_masks_strides_counter(device):
    """D44 high-dim: masks with holes, stride 0, overlapping repeats, counter mode; dst strides ignored (passed as
    blk 3 / rep 0); the whole UB checked. Also the mask register afterwards (D31: undefined on A2/A3/310P/910)."""
    core, rng = fresh(device, 3603)
    types = [t for t in COMPARE_T[device] if t not in _CNT950]
    for n_t, t in enumerate(types):
        lanes = 256 // SZ[t]
        mode = C.EQ if (t == "int32" and device in (A2, A3)) else list(C)[n_t % 6]
        for n_c, (mask, repeat, (b0, b1, r0, r1), counter) in enumerate(HD_CASES):
            mask = _hd_case_mask(mask, lanes)
            a, b, d = 8192, 32768, 128
            edge_pair(core, rng, t, a, b, 4096 // SZ[t])
            if counter:
                core.SetMaskCount()
            want = core.ub.copy()
            model_compare_hd(want, device, t, mode.name, d, a, b, None, mask, repeat, b0, r0, b1, r1, counter)
            aj.Compare(tensor(core, "uint8", d), tensor(core, t, a), tensor(core, t, b), mode, mask, repeat,
                       aj.BinaryRepeatParams(3, b0, b1, 0, r0, r1))
            assert np.array_equal(core.ub, want), (t, mode, n_c)
            if device not in MASK_EFFECTIVE:
                assert core.mask_defined is False     # D31
            if counter:
                core.SetMaskNorm()
            core.ResetMask()
            # Compares, same case
            sbits = edge_bits(rng, t, 1)[0]
            at = tensor(core, t, a)
            if t in COMPARES_T[device]:
                if counter:
                    core.SetMaskCount()
                want = core.ub.copy()
                model_compare_hd(want, device, t, mode.name, d, a, None, scalar_value(sbits, t), mask, repeat, b0,
                                 r0, 0, 0, counter)
                aj.Compares(tensor(core, "uint8", d), at, np_scalar(t, sbits, at), mode, mask, repeat,
                            aj.UnaryRepeatParams(5, b0, 1, r0))
                assert np.array_equal(core.ub, want), ("Compares", t, mode, n_c)
                if counter:
                    core.SetMaskNorm()
                core.ResetMask()


@pytest.mark.parametrize("device", DEVICES)
def test_compare_mask_zero_and_repeat_zero(device):
    """D30: mask 0 refused on the 950 (ParameterError), a NOP elsewhere; repeat 0 a NOP everywhere."""
    core, rng = fresh(device, 3604)
    a, b, d = 4096, 8192, 0
    edge_pair(core, rng, "half", a, b, 256)
    args = (tensor(core, "uint8", d), tensor(core, "half", a), tensor(core, "half", b), C.NE)
    before = core.ub.copy()
    for mask in (0, [0, 0]):
        if device == A950:
            with pytest.raises(aj.ParameterError):
                aj.Compare(*args, mask, 1, aj.BinaryRepeatParams())
        else:
            aj.Compare(*args, mask, 1, aj.BinaryRepeatParams())
        assert np.array_equal(core.ub, before)
        core.ResetMask()
    aj.Compare(*args, 128, 0, aj.BinaryRepeatParams())
    assert np.array_equal(core.ub, before)


def test_compare_mask_register_on_mask_effective_devices():
    """SPEC-2 D31 does not list Compare on the 950/310B: SPEC D22's high-dim Add rule then applies (950 bit masks
    overwrite the register, continuous masks do not; 310B untouched); is_set_mask=False reads the register."""
    for device in (A950, B310):
        core, rng = fresh(device, 3605)
        a, b, d = 4096, 8192, 0
        edge_pair(core, rng, "float", a, b, 128)
        args = (tensor(core, "uint8", d), tensor(core, "float", a), tensor(core, "float", b), C.GE)
        core.SetVectorMask(0, 0xFF00FF)
        aj.Compare(*args, [0x0F0F0F0F0F0F0F0F, 0], 1, aj.BinaryRepeatParams())
        assert (core.mask_high, core.mask_low) == ((0, 0x0F0F0F0F0F0F0F0F) if device == A950 else (0, 0xFF00FF))
        aj.Compare(*args, 17, 1, aj.BinaryRepeatParams())
        assert (core.mask_high, core.mask_low) == ((0, 0x0F0F0F0F0F0F0F0F) if device == A950 else (0, 0xFF00FF))
        want = core.ub.copy()
        reg = [core.mask_low, core.mask_high]
        model_compare_hd(want, device, "float", "GE", d, a, b, None, reg, 2, 1, 8, 1, 8, False)
        aj.Compare(*args, aj.MASK_PLACEHOLDER, 2, aj.BinaryRepeatParams(), is_set_mask=False)
        assert np.array_equal(core.ub, want)


# --- Select ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
def test_select_count_every_mode(device):
    """D59 count form: mode 0 reuses bits 0..L-1, modes 1/2 consume bit k; values copied bit for bit (NaN payloads
    and -0 kept); 910 offers mode 0 only. Also a count that is not a multiple of L."""
    core, rng = fresh(device, 3606)
    modes = [0] if device == T910 else [0, 1, 2]
    for n_t, t in enumerate(SELECT_T[device]):
        s = SZ[t]
        lanes = 256 // s
        for mode in modes:
            count = 2 * lanes + 5
            a, b, m, d = 16384, 32768, 1024, 49152
            edge_pair(core, rng, t, a, b, count)
            mdt = ("uint8", "uint16", "uint32", "uint64")[(n_t + mode) % 4]
            msk = tensor(core, mdt, m, 256 // SZ[mdt])
            sbits = edge_bits(rng, t, 1)[0]
            at = tensor(core, t, a, count)
            want = core.ub.copy()
            model_select_count(want, t, mode, d, m, a, None if mode == 1 else b, sbits, count)
            src1 = np_scalar(t, sbits, at) if mode == 1 else tensor(core, t, b, count)
            aj.Select(tensor(core, t, d, count), msk, at, src1, S(mode), count)
            assert np.array_equal(core.ub, want), (t, mode)


SEL_CASES = [   # mask, repeat, (dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep), counter
    ([0xF0F0000000FFFF01, 0x8000000000000F0F], 3, (1, 2, 1, 8, 16, 8), False),
    (37, 3, (2, 0, 1, 16, 0, 8), False),
    (200, 9, (1, 1, 1, 8, 8, 8), True),
]


@pytest.mark.parametrize("device", DEVICES)
def test_select_high_dim_masks_strides_counter(device):
    """D59 high-dim: lanes with mask bit 0 keep dst, mode 0 the same L bits every repeat, modes 1/2 bit i*L+j;
    strides incl. 0; counter mode. The mask register after (D31 = SPEC D22's high-dim Add rule)."""
    core, rng = fresh(device, 3607)
    modes = [0] if device == T910 else [0, 1, 2]
    for t in ("half", "float") + (("int16", "bfloat16", "uint32") if device == A950 else ()):
        lanes = 256 // SZ[t]
        for mode in modes:
            for n_c, (mask, repeat, params, counter) in enumerate(SEL_CASES):
                mask = _hd_case_mask(mask, lanes)
                a, b, m, d = 16384, 32768, 1024, 49152
                edge_pair(core, rng, t, a, b, 8192 // SZ[t])
                sbits = edge_bits(rng, t, 1)[0]
                at = tensor(core, t, a)
                if counter:
                    core.SetMaskCount()
                else:
                    core.SetVectorMask(0x5, 0x5)
                want = core.ub.copy()
                model_select_hd(want, t, mode, d, m, a, None if mode == 1 else b, sbits, mask, repeat, params,
                                counter)
                src1 = np_scalar(t, sbits, at) if mode == 1 else tensor(core, t, b)
                aj.Select(tensor(core, t, d), tensor(core, "uint16", m), at, src1, S(mode), mask, repeat,
                          aj.BinaryRepeatParams(*params))
                assert np.array_equal(core.ub, want), (t, mode, n_c)
                if not counter:
                    if device == B310 or (device == A950 and isinstance(mask, int)):
                        assert (core.mask_high, core.mask_low) == (0x5, 0x5)
                    else:
                        lo, hi = (mask + [0])[:2] if isinstance(mask, list) else (2**mask - 1, 0)
                        assert (core.mask_high, core.mask_low) == (hi, lo), (t, mode, n_c)
                else:
                    core.SetMaskNorm()
                core.ResetMask()


def test_select_is_set_mask_false_reads_the_register():
    for device in (A2, A950, P310):
        core, rng = fresh(device, 3608)
        a, b, m, d = 16384, 32768, 1024, 49152
        edge_pair(core, rng, "half", a, b, 512)
        core.SetVectorMask(0x8000000000000001, 0x00F0000000000F0F)
        want = core.ub.copy()
        model_select_hd(want, "half", 2, d, m, a, b, 0, [0x00F0000000000F0F, 0x8000000000000001], 2,
                        (1, 1, 1, 8, 8, 8), False)
        aj.Select(tensor(core, "half", d), tensor(core, "uint8", m), tensor(core, "half", a), tensor(core, "half", b),
                  S.VSEL_TENSOR_TENSOR_MODE, aj.MASK_PLACEHOLDER, 2, aj.BinaryRepeatParams(), is_set_mask=False)
        assert np.array_equal(core.ub, want), device


# --- Gather ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", [d for d in DEVICES if GATHER_T[d]])
def test_gather_count_offsets_to_the_ub_end(device):
    """SPEC-2 9.2 count form: dst[k] = the T at src + base + offset[k]; offsets reach the last element of the UB
    (src at the UB's last 4 KiB), repeat, go backwards; every dtype the device offers."""
    core, rng = fresh(device, 3609)
    ub = UB[device]
    for t in GATHER_T[device]:
        s = SZ[t]
        count = 3 * (256 // s) // 2 + 3
        src, base = ub - 4096, 96
        limit = (2**16 - 1) if (s == 1 and device in (A950, B310)) else (2**17 - 1) if s == 2 and \
            device in (A950, B310) else 2**32 - 1
        offs = [int(x) * s for x in rng.integers(0, (4096 - base) // s, count)]
        offs[0] = 4096 - base - s      # the last element of the UB
        offs[1] = offs[2] = 0
        assert max(offs) <= limit
        write_elems(core, 8192, "uint32", offs)
        want = core.ub.copy()
        model_gather_count(want, t, 1024, src, 8192, base, count)
        aj.Gather(tensor(core, t, 1024, count), tensor(core, t, src), tensor(core, "uint32", 8192, count), base,
                  count)
        assert np.array_equal(core.ub, want), t


@pytest.mark.parametrize("device", [d for d in DEVICES if GATHER_T[d]])
def test_gather_high_dim_masks_counter(device):
    """D57: contiguous dst lanes in a repeat, repeat i at dst + i*dstRepStride*32 (0 included), lane j of repeat i
    uses offset[i*L' + j], masked lanes neither read nor write (their offsets may point anywhere, even outside the
    UB), counter mode; 8-bit T on the 310B: 4 blocks (128 lanes) per repeat."""
    core, rng = fresh(device, 3610)
    ub = UB[device]
    types = [t for t in GATHER_T[device] if not (device == A950 and SZ[t] == 1)]   # 9.2: 950 8-bit count only
    types = sorted(set(types) & {"int8", "half", "float", "uint16", "bfloat16", "int64"})
    for t in types:
        s = SZ[t]
        lanes = gather_lanes(device, t)
        for n_c, (mask, repeat, drs, counter) in enumerate([
                ([0xF0F0000000FFFF01, 0x8000000000000F0F], 3, 9, False), (37, 2, 0, False),
                (lanes + 7, 5, 8, True)]):
            mask = _hd_case_mask(mask, lanes)
            src, base = ub - 8192, 32
            nofs = 3 * lanes
            offs = [int(x) * s for x in rng.integers(0, (8192 - base) // s, nofs)]
            offs[lanes - 1] = 8192 - base - s
            act = [(i, j) for i, js in repeats_of(mask, repeat, lanes, counter) for j in js]
            for k in range(nofs):   # offsets of masked lanes: garbage (D57: not validated)
                if (k // lanes, k % lanes) not in act:
                    offs[k] = 0xFFFFFFF0 - 3 * k
            write_elems(core, 4096, "uint32", offs)
            if counter:
                core.SetMaskCount()
            want = core.ub.copy()
            model_gather_hd(want, device, t, 64, src, 4096, base, mask, repeat, drs, counter)
            aj.Gather(tensor(core, t, 64, 3072 // s), tensor(core, t, src), tensor(core, "uint32", 4096, nofs), base,
                      mask, repeat, drs)
            assert np.array_equal(core.ub, want), (t, n_c)
            if counter:
                core.SetMaskNorm()
            core.ResetMask()


# --- GatherMask -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", [d for d in DEVICES if GMASK_T[d]])
def test_gather_mask_builtin_patterns(device):
    """SPEC-2 9.3: built-in patterns 1..7 (310P: 1..6, 7 refused), normal mode (mask ignored), block/repeat strides;
    rsvdCnt returned; dst beyond rsvdCnt and the rest of the UB untouched; Normal mode and an undefined mask register
    afterwards (D31)."""
    core, rng = fresh(device, 3611)
    for t in ("half", "float", "int16") + (("int8",) if device == A950 else ()):
        for p in range(1, 8):
            a, d = 16384, 1024
            params = (2, 3, 10, 8) if p % 2 else (1, 2, 0, 8)
            if device == P310 and p == 7:
                before = core.ub.copy()
                with pytest.raises(aj.ParameterError):
                    aj.GatherMask(tensor(core, t, d), tensor(core, t, a), 7, False, 0, aj.GatherMaskParams(*params))
                assert np.array_equal(core.ub, before)
                continue
            core.SetMaskCount()
            want = core.ub.copy()
            n = model_gather_mask(want, device, t, d, a, p, False, 0, params)
            got = aj.GatherMask(tensor(core, t, d), tensor(core, t, a), p, False, 123, aj.GatherMaskParams(*params))
            assert got == n and np.array_equal(core.ub, want), (t, p)
            assert core.counter_mode is False and core.mask_defined is False
            core.ResetMask()


@pytest.mark.parametrize("device", [d for d in DEVICES if GMASK_T[d]])
def test_gather_mask_user_pattern_and_reduce_mode(device):
    """D58: user pattern (one bit per element LSB-first from src1 + i*src1RepeatStride*32), normal mode and reduce
    mode (configuration 1 on 950/A2/A3/310B: repeatTimes outer repeats of `mask` elements in chunks of L;
    configuration 2 on the 310P: `mask` is the total count, repeatTimes ignored)."""
    core, rng = fresh(device, 3612)
    for t in ("half", "float") + (("uint8",) if device == A950 else ()):
        pt = {1: "uint8", 2: "uint16", 4: "uint32"}[SZ[t]]
        lanes = 256 // SZ[t]
        for n_c, (reduce_mode, mask, params) in enumerate([
                (False, 0, (1, 3, 8, 1)), (False, 0, (3, 2, 16, 0)),
                (True, lanes + 9, (1, 2, 24, 2)), (True, 2 * lanes + 3, (2, 2, 48, 3)), (True, 5, (1, 3, 1, 1))]):
            a, d, m = 16384, 1024, 512
            edge_bits_src = edge_bits(rng, t, 8192 // SZ[t])
            write_elems(core, a, t, edge_bits_src)
            pat = tensor(core, pt, m, 256 // SZ[pt])
            want = core.ub.copy()
            n = model_gather_mask(want, device, t, d, a, ("user", m), reduce_mode, mask, params)
            got = aj.GatherMask(tensor(core, t, d), tensor(core, t, a), pat, reduce_mode, mask,
                                aj.GatherMaskParams(*params))
            assert got == n and np.array_equal(core.ub, want), (t, n_c)
            assert core.mask_defined is False
            core.ResetMask()


# --- availability (SPEC-2 1.9) and refusals (1.8) ---------------------------------------------------------------
def test_availability_and_refusals():
    core, _ = fresh(T910, 3613)
    h = tensor(core, "half", 4096, 512)
    u8 = tensor(core, "uint8", 0, 256)
    before = core.ub.copy()
    for call in (lambda: aj.Gather(h, tensor(core, "half", 16384, 128), tensor(core, "uint32", 8192, 128), 0, 128),
                 lambda: aj.GatherMask(h, tensor(core, "half", 16384, 256), 1, False, 0,
                                       aj.GatherMaskParams(1, 1, 8, 8)),
                 lambda: aj.Compares(u8, h, np.float16(1), C.LT, 128)):
        with pytest.raises(aj.UnsupportedDeviceError):
            call()
    for mode in (S.VSEL_TENSOR_SCALAR_MODE, S.VSEL_TENSOR_TENSOR_MODE):   # 910: mode 0 only (D59)
        with pytest.raises(aj.ParameterError):
            aj.Select(h, u8, h[128], np.float16(0) if mode == 1 else h[256], mode, 128)
    assert np.array_equal(core.ub, before)
    core, _ = fresh(A2, 3614)
    i32 = tensor(core, "int32", 4096, 256)
    u8 = tensor(core, "uint8", 0, 256)
    before = core.ub.copy()
    with pytest.raises(aj.UnsupportedDTypeError):                   # A2: int32 EQ only
        aj.Compare(u8, i32, i32[64], C.LT, 64)
    with pytest.raises(aj.ParameterError):                          # decisions.md: incomplete 256-B block
        aj.Compare(u8, tensor(core, "float", 8192, 256), tensor(core, "float", 16384, 256), C.LT, 72)
    assert np.array_equal(core.ub, before)
    core, _ = fresh(A950, 3615)
    i8 = tensor(core, "int8", 4096, 512)
    with pytest.raises(aj.UnsupportedDTypeError):                   # 950 int8: count form only
        aj.Compare(tensor(core, "uint8", 0, 64), i8, i8[256], C.LT, 128, 1, aj.BinaryRepeatParams())


# --- more corners -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", (A950, B310))
def test_compares_high_dim_integer_types_310b_950(device):
    """Compares' integer types (310B: int16, uint16, int32, uint32 in every form), extremes, masks with holes."""
    core, rng = fresh(device, 3616)
    for n_t, t in enumerate(["int16", "uint16", "int32", "uint32"]):
        lanes = 256 // SZ[t]
        for n_c, (mask, repeat, (b0, _, r0, _), counter) in enumerate(HD_CASES):
            mask = _hd_case_mask(mask, lanes)
            mode = list(C)[(n_t + n_c) % 6]
            a, d = 8192, 128
            write_elems(core, a, t, edge_bits(rng, t, 4096 // SZ[t]))
            at = tensor(core, t, a)
            sbits = _int_pool(t)[(n_t + 2 * n_c) % len(_int_pool(t))]
            if counter:
                core.SetMaskCount()
            want = core.ub.copy()
            model_compare_hd(want, device, t, mode.name, d, a, None, scalar_value(sbits, t), mask, repeat, b0, r0,
                             0, 0, counter)
            aj.Compares(tensor(core, "uint8", d), at, np_scalar(t, sbits, at), mode, mask, repeat,
                        aj.UnaryRepeatParams(1, b0, 8, r0))
            assert np.array_equal(core.ub, want), (t, mode, n_c)
            if counter:
                core.SetMaskNorm()


def test_compare_operator_and_int8_dst():
    """SPEC-2 9.4: `dst[:] = a < b` counts src0's elements; refused on the 310B; Compare's dst may be int8."""
    for device in (A2, P310, A950, B310):
        core, rng = fresh(device, 3617)
        a, b, d = 8192, 16384, 0
        edge_pair(core, rng, "float", a, b, 128)
        at, bt, dt = tensor(core, "float", a, 128), tensor(core, "float", b, 128), tensor(core, "uint8", d, 16)
        want = core.ub.copy()
        if device == B310:
            with pytest.raises(aj.AscendJitError):
                dt[:] = at <= bt
            assert np.array_equal(core.ub, want)
            continue
        model_compare_count(want, device, "float", "LE", d, a, b, None, 128)
        dt[:] = at <= bt
        assert np.array_equal(core.ub, want)
        want = core.ub.copy()
        model_compare_count(want, device, "float", "NE", 64, a, b, None, 128)
        aj.Compare(tensor(core, "int8", 64, 16), at, bt, C.NE, 128)
        assert np.array_equal(core.ub, want)


def test_python_scalars_d29():
    """D29: a Python float is rounded once (RNE) to the operand type, overflow to inf, subnormals kept, NaN
    canonical; a Python int for an integer operand must be in range; a bool is refused."""
    core, rng = fresh(A2, 3618)
    a, m, d = 8192, 1024, 32768
    write_elems(core, a, "half", [0x3C00] * 128)
    write_elems(core, m, "uint8", [0] * 16)            # every lane takes the scalar
    at, mt, dt = tensor(core, "half", a, 128), tensor(core, "uint8", m, 16), tensor(core, "half", d, 128)
    for x, bits in ((1e6, 0x7C00), (65520.0, 0x7C00), (65519.99, 0x7BFF), (float("nan"), 0x7E00), (-0.0, 0x8000),
                    (2.0**-25, 0x0000), (3 * 2.0**-26, 0x0001), (1.0 + 2.0**-11, 0x3C00), (1.0 + 3 * 2.0**-12, 0x3C01),
                    (-7, 0xC700)):
        want = core.ub.copy()
        model_select_count(want, "half", 1, d, m, a, None, bits, 128)
        aj.Select(dt, mt, at, x, S.VSEL_TENSOR_SCALAR_MODE, 128)
        assert np.array_equal(core.ub, want), x
    with pytest.raises(aj.ParameterError):
        aj.Select(dt, mt, at, True, S.VSEL_TENSOR_SCALAR_MODE, 128)
    # Compares half EQ with 1.0 + 2**-11 (a tie: rounds to 1.0) is all ones
    want = core.ub.copy()
    model_compare_count(want, A2, "half", "EQ", 0, a, None, 1.0, 128)
    aj.Compares(tensor(core, "uint8", 0, 16), at, 1.0 + 2.0**-11, C.EQ, 128)
    assert np.array_equal(core.ub, want) and core.ub[:16].tolist() == [255] * 16
    core, _ = fresh(B310, 3619)
    i16 = tensor(core, "int16", 8192, 128)
    with pytest.raises(aj.ParameterError):
        aj.Compares(tensor(core, "uint8", 0, 16), i16, 40000, C.EQ, 128)
    with pytest.raises(aj.ParameterError):
        aj.Compares(tensor(core, "uint8", 0, 16), i16, False, C.EQ, 128)


@pytest.mark.parametrize("device", DEVICES)
def test_select_and_gather_zero_parameters(device):
    """D30: repeat 0 a NOP; mask 0 refused on the 950, a NOP elsewhere; count 0 a NOP."""
    core, rng = fresh(device, 3620)
    a, b, m, d, o = 8192, 16384, 1024, 32768, 4096
    h = lambda x, n=512: tensor(core, "half", x, n)
    sel = lambda *args: aj.Select(h(d), tensor(core, "uint8", m, 64), h(a), h(b), S.VSEL_CMPMASK_SPR, *args)
    calls = [sel]
    if GATHER_T[device]:
        write_elems(core, o, "uint32", [2 * k for k in range(256)])
        calls.append(lambda *args: aj.Gather(h(d), h(a), tensor(core, "uint32", o, 256), 0, *args))
    before = core.ub.copy()
    for n, call in enumerate(calls):
        call(0)
        call(128, 0, aj.BinaryRepeatParams() if n == 0 else 8)
        for mask in (0, [0, 0]):
            if device == A950:
                with pytest.raises(aj.ParameterError):
                    call(mask, 1, aj.BinaryRepeatParams() if n == 0 else 8)
            else:
                call(mask, 1, aj.BinaryRepeatParams() if n == 0 else 8)
        assert np.array_equal(core.ub, before), n
        core.ResetMask()


def test_mask_register_after_count_forms():
    """D31: count forms leave the register as SPEC D22's count Add (A2/A3: Normal mode, all ones; 950, 310B:
    untouched; 910: the last repeat's mask); Compare on A2/A3/310P/910 leaves it undefined."""
    for device in (A2, A950, B310, T910):
        core, rng = fresh(device, 3621)
        a, b, m, d, o = 8192, 16384, 1024, 32768, 4096
        h = lambda x, n=512: tensor(core, "half", x, n)
        core.SetVectorMask(0x3, 0x30)
        aj.Select(h(d), tensor(core, "uint8", m, 64), h(a), h(b), S.VSEL_CMPMASK_SPR, 130)
        reg = (core.mask_high, core.mask_low, core.mask_defined)
        want = {A2: (ONES, ONES, True), A950: (3, 0x30, True), B310: (3, 0x30, True), T910: (0, 3, True)}[device]
        assert reg == want, device
        if device != T910:
            core.SetVectorMask(0x3, 0x30)
            write_elems(core, o, "uint32", [2 * k for k in range(256)])
            aj.Gather(h(d), h(a), tensor(core, "uint32", o, 256), 0, 130)
            reg = (core.mask_high, core.mask_low, core.mask_defined)
            assert reg == want, device
        core.SetVectorMask(0x3, 0x30)
        aj.Compare(tensor(core, "uint8", 0, 32), h(a), h(b), C.LT, 256)
        if device in MASK_EFFECTIVE:
            assert (core.mask_high, core.mask_low, core.mask_defined) == (3, 0x30, True)
        else:
            assert core.mask_defined is False


@pytest.mark.parametrize("device", [d for d in DEVICES if GMASK_T[d]])
def test_gather_mask_in_place_and_refusals(device):
    """D34: dst == src0 with src0BlockStride 1 and src0RepeatStride 8 is allowed (normal mode); reduce-mode mask 0
    and repeatTimes 256 are ParameterErrors (SPEC-2 9.3, D58); a refusal writes nothing."""
    core, rng = fresh(device, 3622)
    a = 8192
    write_elems(core, a, "float", edge_bits(rng, "float", 256))
    want = core.ub.copy()
    n = model_gather_mask(want, device, "float", a, a, 2, False, 0, (1, 4, 8, 8))
    assert aj.GatherMask(tensor(core, "float", a, 256), tensor(core, "float", a, 256), 2, False, 0,
                         aj.GatherMaskParams(1, 4, 8, 8)) == n == 128
    assert np.array_equal(core.ub, want)
    before = core.ub.copy()
    dt, st_ = tensor(core, "float", 0, 512), tensor(core, "float", 16384, 4096)
    for reduce_mode, mask, params in ((True, 0, (1, 1, 8, 8)), (False, 0, (1, 256, 8, 8)), (True, 2**32, (1, 1, 8, 8))):
        with pytest.raises(aj.ParameterError):
            aj.GatherMask(dt, st_, 1, reduce_mode, mask, aj.GatherMaskParams(*params))
    assert np.array_equal(core.ub, before)


@pytest.mark.parametrize("device", [d for d in DEVICES if GATHER_T[d]])
def test_gather_offset_refusals(device):
    """SPEC-2 9.2 / D57: misaligned used offset AlignmentError, past the UB OutOfBoundsError, past the per-device
    range (950/310B 16-bit T: 2**17-1) ParameterError; nothing written."""
    core, _ = fresh(device, 3623)
    ub = UB[device]
    d, src, o = 0, ub - 4096, 4096
    cases = [(3, aj.AlignmentError), (ub - src, aj.OutOfBoundsError)]
    if device in (A950, B310):
        cases.append((2**17, aj.ParameterError))
    for off, err in cases:
        write_elems(core, o, "uint32", [0, off] + [0] * 126)
        before = core.ub.copy()
        with pytest.raises(err):
            aj.Gather(tensor(core, "half", d, 128), tensor(core, "half", src), tensor(core, "uint32", o, 128), 0, 128)
        assert np.array_equal(core.ub, before), off


@pytest.mark.parametrize("device", DEVICES)
def test_counter_mode_bit_form_and_register(device):
    """SPEC-2 1.4: in counter mode a bit-form mask gives its mask[0] as the count; with is_set_mask=False the count
    is the register (SetVectorMask(len) in counter mode). Select, Compare and Gather."""
    core, rng = fresh(device, 3624)
    a, b, m, d, o = 8192, 16384, 1024, 32768, 4096
    edge_pair(core, rng, "float", a, b, 1024)
    write_elems(core, o, "uint32", [4 * int(k) for k in rng.integers(0, 1024, 512)])
    f = lambda x: tensor(core, "float", x, 1024)
    for n_c, (mask, set_mask) in enumerate((([150, 0], True), (aj.MASK_PLACEHOLDER, False))):
        core.SetMaskCount()
        if not set_mask:
            core.SetVectorMask(150)
        kw = {} if set_mask else {"is_set_mask": False}
        want = core.ub.copy()
        sm = 0 if device == T910 else 2
        model_select_hd(want, "float", sm, d, m, a, b, 0, [150], 7, (1, 1, 1, 8, 8, 8), True)
        aj.Select(f(d), tensor(core, "uint8", m, 64), f(a), f(b), S(sm), mask, 7,
                  aj.BinaryRepeatParams(), **kw)
        assert np.array_equal(core.ub, want), ("Select", n_c)
        if GATHER_T[device]:
            if not set_mask:
                core.SetVectorMask(150)
            want = core.ub.copy()
            model_gather_hd(want, device, "float", d, a, o, 0, [150], 7, 8, True)
            aj.Gather(f(d), f(a), tensor(core, "uint32", o, 512), 0, mask, 7, 8, **kw)
            assert np.array_equal(core.ub, want), ("Gather", n_c)
        if not set_mask:
            core.SetVectorMask(150)
        want = core.ub.copy()
        model_compare_hd(want, device, "float", "LT", 0, a, b, None, [150], 2, 1, 8, 1, 8, True)
        aj.Compare(tensor(core, "uint8", 0, 256), f(a), f(b), C.LT, mask, 2, aj.BinaryRepeatParams(), **kw)
        assert np.array_equal(core.ub, want), ("Compare", n_c)
        core.SetMaskNorm()
        core.ResetMask()


@pytest.mark.parametrize("device", [d for d in DEVICES if GMASK_T[d]])
def test_gather_mask_builtin_reduce_mode(device):
    """D58 reduce mode with built-in patterns: configuration 1 (mask elements per outer repeat, chunks of L at
    8*src0BlockStride blocks) or configuration 2 (310P: mask is the total, repeatTimes ignored)."""
    core, rng = fresh(device, 3625)
    a, d = 16384, 1024
    for t in ("half", "float") + (("uint8",) if device == A950 else ()):
        lanes = 256 // SZ[t]
        write_elems(core, a, t, edge_bits(rng, t, 16384 // SZ[t]))
        for p, mask, params in ((1, 3 * lanes + 5, (1, 2, 40, 8)), (4, lanes + 1, (2, 3, 24, 8)), (6, 7, (1, 1, 0, 0)),
                                (7 if device != P310 else 5, lanes, (1, 2, 8, 8))):
            want = core.ub.copy()
            n = model_gather_mask(want, device, t, d, a, p, True, mask, params)
            got = aj.GatherMask(tensor(core, t, d), tensor(core, t, a), p, True, mask, aj.GatherMaskParams(*params))
            assert got == n and np.array_equal(core.ub, want), (t, p, mask)
            core.ResetMask()


@pytest.mark.parametrize("device", (A950, A2, B310))
def test_high_dim_reaching_the_ub_end_and_one_byte_past(device):
    """SPEC-2 1.5: the last byte of a strided footprint may be the UB's last byte; one block more is an
    OutOfBoundsError and nothing is written. Compare (src0) and Select (dst)."""
    core, rng = fresh(device, 3626)
    ub = UB[device]
    # 3 repeats, srcRepStride 16, srcBlkStride 2: last byte = a + 2*16*32 + 7*2*32 + 31
    a = ub - (2 * 16 * 32 + 7 * 2 * 32 + 32)
    b = 8192
    edge_pair(core, rng, "half", a, b, 64)
    write_elems(core, b, "half", edge_bits(rng, "half", 384))
    want = core.ub.copy()
    model_compare_hd(want, device, "half", "GE", 0, a, b, None, 128, 3, 2, 16, 1, 8, False)
    aj.Compare(tensor(core, "uint8", 0, 96), tensor(core, "half", a), tensor(core, "half", b, 384), C.GE, 128, 3,
               aj.BinaryRepeatParams(1, 2, 1, 8, 16, 8))
    assert np.array_equal(core.ub, want)
    before = core.ub.copy()
    with pytest.raises(aj.OutOfBoundsError):
        aj.Compare(tensor(core, "uint8", 0, 128), tensor(core, "half", a), tensor(core, "half", b, 512), C.GE, 128, 4,
                   aj.BinaryRepeatParams(1, 2, 1, 8, 16, 8))
    d = ub - (2 * 16 * 32 + 7 * 2 * 32 + 32)
    want = core.ub.copy()
    model_select_hd(want, "half", 0, d, 1024, b, 4096, 0, 128, 3, (2, 1, 1, 16, 8, 8), False)
    aj.Select(tensor(core, "half", d), tensor(core, "uint8", 1024, 16), tensor(core, "half", b, 384),
              tensor(core, "half", 4096, 384), S.VSEL_CMPMASK_SPR, 128, 3, aj.BinaryRepeatParams(2, 1, 1, 16, 8, 8))
    assert np.array_equal(core.ub, want)
    before = core.ub.copy()
    with pytest.raises(aj.OutOfBoundsError):
        aj.Select(tensor(core, "half", d), tensor(core, "uint8", 1024, 16), tensor(core, "half", b, 512),
                  tensor(core, "half", 4096, 512), S.VSEL_CMPMASK_SPR, 128, 4, aj.BinaryRepeatParams(2, 1, 1, 16, 8, 8))
    assert np.array_equal(core.ub, before)


def test_more_refusals():
    """SPEC 2.1: a 32-bit bit mask with mask[1] != 0 is a ParameterError; 950 count-only dtypes refuse the high-dim
    Select/Gather (UnsupportedDTypeError); Compare count 0 is a NOP (D30)."""
    core, rng = fresh(A950, 3627)
    f = lambda x, n=256: tensor(core, "float", x, n)
    before = core.ub.copy()
    with pytest.raises(aj.ParameterError):
        aj.Compare(tensor(core, "uint8", 0, 32), f(8192), f(16384), C.LT, [1, 1], 1, aj.BinaryRepeatParams())
    with pytest.raises(aj.ParameterError):
        aj.Select(f(32768), tensor(core, "uint8", 0, 32), f(8192), f(16384), S.VSEL_CMPMASK_SPR, [1, 1], 1,
                  aj.BinaryRepeatParams())
    i64 = lambda x: tensor(core, "int64", x, 64)
    with pytest.raises(aj.UnsupportedDTypeError):
        aj.Select(i64(32768), tensor(core, "uint8", 0, 32), i64(8192), i64(16384), S.VSEL_CMPMASK_SPR, 32, 1,
                  aj.BinaryRepeatParams())
    with pytest.raises(aj.UnsupportedDTypeError):
        aj.Gather(tensor(core, "int8", 32768, 256), tensor(core, "int8", 8192, 256),
                  tensor(core, "uint32", 16384, 256), 0, 128, 1, 8)
    aj.Compare(tensor(core, "uint8", 0, 32), f(8192), f(16384), C.LT, 0)
    assert np.array_equal(core.ub, before)


def test_tensor_bounds_are_the_written_and_read_bytes():
    """SPEC-2 1.5 with README's tensor bounds (default bounds): Compare's dst footprint is R*L/8 contiguous bytes
    whatever dstRepStride says (D44); Select's dst footprint ends at the last active lane (D59); Gather's offsets
    end at the last active lane's offset (D57); one element less is an OutOfBoundsError."""
    core = aj.Core(A950)
    rng = np.random.default_rng(3628)
    core.ub[:] = np.frombuffer(rng.bytes(core.ub.size), np.uint8)
    core.ub_written_by_host()
    f = lambda x, n=256: core.local_tensor("float", n, addr=x)
    want = core.ub.copy()
    model_compare_hd(want, A950, "float", "LT", 0, 8192, 16384, None, 64, 3, 1, 8, 1, 8, False)
    aj.Compare(core.local_tensor("uint8", 24, addr=0), f(8192, 192), f(16384, 192), C.LT, 64, 3,
               aj.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    assert np.array_equal(core.ub, want)
    with pytest.raises(aj.OutOfBoundsError):
        aj.Compare(core.local_tensor("uint8", 23, addr=0), f(8192, 192), f(16384, 192), C.LT, 64, 3,
                   aj.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    # Select: lane 0 only, 2 repeats, dst repeat stride 8 -> the last byte written is float 64
    want = core.ub.copy()
    model_select_hd(want, "float", 2, 32768, 1024, 8192, 16384, 0, [1], 2, (1, 1, 1, 8, 8, 8), False)
    aj.Select(f(32768, 65), core.local_tensor("uint8", 9, addr=1024), f(8192, 65), f(16384, 65),
              S.VSEL_TENSOR_TENSOR_MODE, [1], 2, aj.BinaryRepeatParams())
    assert np.array_equal(core.ub, want)
    with pytest.raises(aj.OutOfBoundsError):
        aj.Select(f(32768, 64), core.local_tensor("uint8", 9, addr=1024), f(8192, 65), f(16384, 65),
                  S.VSEL_TENSOR_TENSOR_MODE, [1], 2, aj.BinaryRepeatParams())
    # Gather: mask 3 lanes, 2 repeats -> offsets 0..66 used
    write_elems(core, 4096, "uint32", [4 * k for k in range(80)])
    want = core.ub.copy()
    model_gather_hd(want, A950, "float", 32768, 8192, 4096, 0, 3, 2, 1, False)
    aj.Gather(f(32768, 11), f(8192, 80), core.local_tensor("uint32", 67, addr=4096), 0, 3, 2, 1)
    assert np.array_equal(core.ub, want)
    with pytest.raises(aj.OutOfBoundsError):
        aj.Gather(f(32768, 11), f(8192, 80), core.local_tensor("uint32", 66, addr=4096), 0, 3, 2, 1)


def test_gather_offset_range_limits_950_310b():
    """SPEC-2 9.2: 950/310B offsets: 8-bit T <= 2**16-1, 16-bit T <= 2**17-1; A2 any uint32 inside the UB."""
    for device, t, ok, bad in ((A950, "half", 2**17 - 2, 2**17), (B310, "int8", 2**16 - 1, 2**16),
                               (B310, "half", 2**17 - 2, 2**17), (A2, "half", 2**17 + 2, None),
                               (P310, "float", 2**17 + 4, None)):
        core, _ = fresh(device, 3629)
        write_elems(core, 4096, "uint32", [ok] + [0] * 31)
        want = core.ub.copy()
        model_gather_count(want, t, 0, 8192, 4096, 0, 32)
        aj.Gather(tensor(core, t, 0, 32), tensor(core, t, 8192), tensor(core, "uint32", 4096, 32), 0, 32)
        assert np.array_equal(core.ub, want), (device, t)
        if bad is not None:
            write_elems(core, 4096, "uint32", [bad] + [0] * 31)
            before = core.ub.copy()
            with pytest.raises(aj.ParameterError):
                aj.Gather(tensor(core, t, 0, 32), tensor(core, t, 8192), tensor(core, "uint32", 4096, 32), 0, 32)
            assert np.array_equal(core.ub, before)


def test_same_tensor_sources_and_in_place_select():
    """Compare(x, x, EQ) is the NaN test (0 for NaN lanes, 1 for every other, -0 and inf included); Select with dst
    == src0 (100% overlap, SPEC 8.2) selects in place."""
    for device in (A2, A950):
        core, rng = fresh(device, 3630)
        write_elems(core, 8192, "half", edge_bits(rng, "half", 256))
        x = tensor(core, "half", 8192, 256)
        want = core.ub.copy()
        model_compare_count(want, device, "half", "EQ", 0, 8192, 8192, None, 256)
        aj.Compare(tensor(core, "uint8", 0, 32), x, x, C.EQ, 256)
        assert np.array_equal(core.ub, want)
        want = core.ub.copy()
        model_select_count(want, "half", 2, 8192, 0, 8192, 16384, 0, 256)   # dst == src0 == x
        aj.Select(x, tensor(core, "uint8", 0, 32), x, tensor(core, "half", 16384, 256), S.VSEL_TENSOR_TENSOR_MODE, 256)
        assert np.array_equal(core.ub, want)


def test_compares_bf16_python_float_scalar_950():
    """D29 for bfloat16: 1.0 + 2**-8 is a tie between 1.0 and 1.0078125 -> 1.0 (even); 1.0 + 3*2**-9 -> 1.0078125."""
    core, _ = fresh(A950, 3631)
    write_elems(core, 8192, "bfloat16", [0x3F80, 0x3F81] * 64)
    x = tensor(core, "bfloat16", 8192, 128)
    for scalar, val in ((1.0 + 2.0**-8, 1.0), (1.0 + 3 * 2.0**-9, 1.0078125)):
        want = core.ub.copy()
        model_compare_count(want, A950, "bfloat16", "EQ", 0, 8192, None, val, 128)
        aj.Compares(tensor(core, "uint8", 0, 16), x, scalar, C.EQ, 128)
        assert np.array_equal(core.ub, want), scalar


@pytest.mark.parametrize("device", DEVICES)
def test_mask_register_after_high_dim_gather_compares_and_zero_calls(device):
    """D31: Gather high-dim with is_set_mask=True leaves the register as SPEC D22's high-dim Add (A2/A3/310P/910:
    its own mask, mask 0 included (D14); 950: bit masks overwrite it; 310B: untouched); D30: repeat 0 still sets
    the mask."""
    core, rng = fresh(device, 3632)
    a, d, o = 8192, 32768, 4096
    write_elems(core, o, "uint32", [2 * k for k in range(256)])
    h = lambda x, n=512: tensor(core, "half", x, n)
    calls = [lambda mask, r: aj.Select(h(d), tensor(core, "uint8", 1024, 64), h(a), h(16384), S.VSEL_CMPMASK_SPR,
                                       mask, r, aj.BinaryRepeatParams())]
    if GATHER_T[device]:
        calls.append(lambda mask, r: aj.Gather(h(d), h(a), tensor(core, "uint32", o, 256), 0, mask, r, 8))
    for n, call in enumerate(calls):
        for mask, r in (([0x00FF00FF00FF00FF, 0x1], 1), ([0x10, 0x20], 0), ([0, 0], 1), (33, 1)):
            if device == A950 and mask == [0, 0]:
                continue
            core.SetVectorMask(0x5, 0x5)
            call(mask, r)
            if device == B310 or (device == A950 and isinstance(mask, int)):
                want = (0x5, 0x5)
            else:
                want = (mask[1], mask[0]) if isinstance(mask, list) else (0, 2**33 - 1)
            assert (core.mask_high, core.mask_low, core.mask_defined) == want + (True,), (n, mask, r)
    if COMPARES_T[device]:
        core.SetVectorMask(0x5, 0x5)
        aj.Compares(tensor(core, "uint8", 0, 64), h(a), np.float16(0), C.GT, [0xFF, 0xF], 1, aj.UnaryRepeatParams())
        if device in MASK_EFFECTIVE:
            assert (core.mask_high, core.mask_low) == ((0xF, 0xFF) if device == A950 else (0x5, 0x5))
        else:
            assert core.mask_defined is False


def test_count_form_keyword_and_pattern_dtype_refusals():
    """D32: Compare/Select/Gather count forms take no is_set_mask (TypeError); SPEC-2 9.3: a user pattern of the
    wrong width is refused; nothing written."""
    core, _ = fresh(A2, 3633)
    h = lambda x, n=256: tensor(core, "half", x, n)
    before = core.ub.copy()
    with pytest.raises(TypeError):
        aj.Compare(tensor(core, "uint8", 0, 32), h(8192), h(16384), C.LT, 256, is_set_mask=False)
    with pytest.raises(TypeError):
        aj.Select(h(32768), tensor(core, "uint8", 0, 32), h(8192), h(16384), S.VSEL_CMPMASK_SPR, 256,
                  is_set_mask=False)
    with pytest.raises(aj.AscendJitError):
        aj.GatherMask(h(32768), h(8192), tensor(core, "uint32", 0, 8), False, 0, aj.GatherMaskParams(1, 1, 8, 8))
    assert np.array_equal(core.ub, before)


def test_scalar_conversions_of_other_numpy_widths_and_ints():
    """D29: a numpy scalar of exactly the operand type is used bit for bit (NaN payloads kept, D59); one of another
    width is rounded once (RNE) and its NaN becomes canonical; Python ints for float operands round, for integer
    operands must be in range."""
    core, _ = fresh(A950, 3634)
    a, m, d = 8192, 1024, 32768
    write_elems(core, m, "uint8", [0] * 32)
    for t, scalar, bits in (("half", np.frombuffer(b"\x01\xfe", np.float16)[0], 0xFE01),
                            ("half", np.frombuffer(struct.pack("<I", 0x7FC00001), np.float32)[0], 0x7E00),
                            ("half", np.float32(1.0 + 2.0**-11), 0x3C00), ("half", np.float64(65520.0), 0x7C00),
                            ("float", np.frombuffer(b"\x01\x7e", np.float16)[0], 0x7FC00000),
                            ("half", 2049, 0x6800), ("half", 2051, 0x6802), ("half", 65520, 0x7C00),
                            ("bfloat16", 257, 0x4380), ("float", 16777217, 0x4B800000),
                            ("uint16", 65535, 0xFFFF), ("int16", -32768, 0x8000), ("int32", -1, 0xFFFFFFFF)):
        n = 256 // SZ[t]
        want = core.ub.copy()
        model_select_count(want, t, 1, d, m, a, None, bits, n)
        aj.Select(tensor(core, t, d, n), tensor(core, "uint8", m, 32), tensor(core, t, a, n), scalar,
                  S.VSEL_TENSOR_SCALAR_MODE, n)
        assert np.array_equal(core.ub, want), (t, scalar)
    before = core.ub.copy()
    for t, scalar in (("uint16", -1), ("uint16", 65536), ("int16", 32768), ("int32", 2**31)):
        n = 256 // SZ[t]
        with pytest.raises(aj.ParameterError):
            aj.Select(tensor(core, t, d, n), tensor(core, "uint8", m, 32), tensor(core, t, a, n), scalar,
                      S.VSEL_TENSOR_SCALAR_MODE, n)
    assert np.array_equal(core.ub, before)


def test_unary_params_uint16_block_stride_and_clamped_mask():
    """SPEC-2 1.1: UnaryRepeatParams block strides are uint16 (Compares srcBlkStride 300 accepted) while
    BinaryRepeatParams fields are uint8 (300 refused); SPEC D15: a continuous mask above L clamps to L."""
    core, rng = fresh(A950, 3635)
    a, b = 4096, 8192
    write_elems(core, a, "float", edge_bits(rng, "float", 64 * 8 * 40 // 8 + 64))
    at = tensor(core, "float", a)
    # blk stride 300 with repeat 1 and 8 lanes per block: block j at a + j*300*32
    want = core.ub.copy()
    model_compare_hd(want, A950, "float", "GE", 0, a, None, 0.0, 200, 2, 300, 1, 0, 0, False)
    aj.Compares(tensor(core, "uint8", 0, 16), at, np.float32(0), C.GE, 200, 2, aj.UnaryRepeatParams(1, 300, 8, 1))
    assert np.array_equal(core.ub, want)
    before = core.ub.copy()
    with pytest.raises(aj.ParameterError):
        aj.Compare(tensor(core, "uint8", 0, 16), at, tensor(core, "float", b, 64), C.GE, 64, 1,
                   aj.BinaryRepeatParams(1, 300, 1, 8, 8, 8))
    assert np.array_equal(core.ub, before)


def test_overlap_refusals_d34():
    """D34: Compare's bit output inside a source, Select's dst over its selMask bytes, Gather's dst over the src
    bytes it reads or its offsets, GatherMask's dst over its user pattern or dst == src0 with src0BlockStride 2:
    OverlapError, nothing written."""
    core, rng = fresh(A2, 3636)
    f = lambda x, n=512: tensor(core, "float", x, n)
    u8 = lambda x, n=64: tensor(core, "uint8", x, n)
    before = core.ub.copy()
    calls = [
        lambda: aj.Compare(u8(8192 + 512), f(8192), f(16384), C.LT, 512),
        lambda: aj.Compare(u8(16384), f(8192), f(16384), C.LT, 64, 2, aj.BinaryRepeatParams()),
        lambda: aj.Select(f(1024, 64), u8(1024 + 128), f(8192, 64), f(16384, 64), S.VSEL_TENSOR_TENSOR_MODE, 64),
        lambda: aj.Gather(f(8192, 16), f(8192), tensor(core, "uint32", 4096, 16), 0, 16),
        lambda: aj.Gather(f(4096, 16), f(8192), tensor(core, "uint32", 4096, 16), 0, 16),
        lambda: aj.GatherMask(f(4096, 64), f(8192), tensor(core, "uint32", 4096, 16), False, 0,
                              aj.GatherMaskParams(1, 1, 8, 8)),
        lambda: aj.GatherMask(f(8192), f(8192), 7, False, 0, aj.GatherMaskParams(2, 1, 8, 8)),
    ]
    write_elems(core, 4096, "uint32", [4 * k for k in range(16)])
    write_elems(core, 4096 + 64, "uint32", [0xFFFFFFFF] * 16)
    before = core.ub.copy()
    for n, call in enumerate(calls):
        with pytest.raises(aj.OverlapError):
            call()
        assert np.array_equal(core.ub, before), n


@pytest.mark.parametrize("device", (A950, A3, P310))
def test_overlapping_dst_repeats_and_unaligned_base(device):
    """Repeats whose dst ranges overlap (Gather dst_rep_stride 1, Select dstRepStride 2): later repeats win (SPEC
    8.2 forbids only an earlier dst feeding a later src). Gather's src_base_addr need not be T-aligned when
    base + offset is (D57: the used address is checked)."""
    core, rng = fresh(device, 3637)
    a, b, m, o = 8192, 16384, 1024, 4096
    write_elems(core, a, "float", edge_bits(rng, "float", 1024))
    write_elems(core, o, "uint32", [4 * int(k) + 2 for k in rng.integers(0, 1000, 256)])
    want = core.ub.copy()
    model_gather_hd(want, device, "float", 32768, a, o, 2, [0xFFFF00000000FFFF], 3, 1, False)
    aj.Gather(tensor(core, "float", 32768, 512), tensor(core, "float", a, 1024), tensor(core, "uint32", o, 256), 2,
              [0xFFFF00000000FFFF], 3, 1)
    assert np.array_equal(core.ub, want)
    edge_pair(core, rng, "half", a, b, 1024)
    want = core.ub.copy()
    model_select_hd(want, "half", 0, 32768, m, a, b, 0, [ONES, 0xF0F], 4, (1, 1, 1, 2, 8, 8), False)
    aj.Select(tensor(core, "half", 32768, 1024), tensor(core, "uint8", m, 32), tensor(core, "half", a, 1024),
              tensor(core, "half", b, 1024), S.VSEL_CMPMASK_SPR, [ONES, 0xF0F], 4,
              aj.BinaryRepeatParams(1, 1, 1, 2, 8, 8))
    assert np.array_equal(core.ub, want)


@pytest.mark.parametrize("device", (A950, A2, B310, P310))
def test_gather_mask_tensor_bounds_exact(device):
    """Default bounds: src0's tensor must hold the far element D58 addresses (configuration 1 or 2) and dst the
    rsvdCnt packed elements (decisions.md); one element less of either is an OutOfBoundsError."""
    core, rng = fresh(device, 3638, bounds="tensor")
    a, d = 16384, 1024
    write_elems(core, a, "half", edge_bits(rng, "half", 8192))
    for reduce_mode, mask, params in ((True, 300, (2, 2, 40, 8)), (False, 0, (3, 2, 20, 8)), (True, 5, (1, 3, 1, 8)),
                                      (True, 17, (0, 1, 8, 8)), (True, 40, (0, 2, 0, 8))):
        reads = []
        want = core.ub.copy()
        n = model_gather_mask(want, device, "half", d, a, 1, reduce_mode, mask, params, reads)
        src_n = (max(reads) - a) // 2 + 1
        got = aj.GatherMask(tensor(core, "half", d, n), tensor(core, "half", a, src_n), 1, reduce_mode, mask,
                            aj.GatherMaskParams(*params))
        assert got == n and np.array_equal(core.ub, want), (reduce_mode, mask)
        before = core.ub.copy()
        for dn, sn in ((n - 1, src_n), (n, src_n - 1)):
            with pytest.raises(aj.OutOfBoundsError):
                aj.GatherMask(tensor(core, "half", d, dn), tensor(core, "half", a, sn), 1, reduce_mode, mask,
                              aj.GatherMaskParams(*params))
            assert np.array_equal(core.ub, before)
        core.ResetMask()


def _random_mask(rng, lanes):
    kind = rng.integers(0, 3)
    if kind == 0:
        return int(rng.integers(1, lanes + 40))
    lo = int(rng.integers(1, 2**63)) * int(rng.integers(1, 3)) & ONES
    if kind == 2:
        lo &= int(rng.integers(0, 2**63))
    lo = lo or 1
    if lanes <= 64:
        return [lo & ((1 << lanes) - 1) or 1, 0]
    return [lo, int(rng.integers(0, 2**63)) * int(rng.integers(1, 3)) & ONES]


@pytest.mark.parametrize("device", DEVICES)
def test_seeded_random_sweep(device, n_iter=int(__import__("os").environ.get("AUDIT36_ITERS", "6"))):
    """Seeded random high-dim calls of every API against the model: masks, strides (0 included), counter mode,
    every offered non-count-only dtype."""
    core, rng = fresh(device, 3700 + DEVICES.index(device))
    for it in range(n_iter):
        for api in ("Compare", "Compares", "Select", "Gather"):
            offered = {"Compare": COMPARE_T, "Compares": COMPARES_T, "Select": SELECT_T, "Gather": GATHER_T}[api]
            types = [t for t in offered[device] if not (device == A950 and t in _CNT950) or
                     (api == "Gather" and SZ[t] == 8)]   # 9.2: the 950's 64-bit Gather has the high-dim form
            if not types:
                continue
            t = types[int(rng.integers(0, len(types)))]
            s = SZ[t]
            lanes = gather_lanes(device, t) if api == "Gather" else 256 // s
            counter = bool(rng.integers(0, 4) == 0)
            mask = int(rng.integers(1, 4 * lanes)) if counter else _random_mask(rng, lanes)
            repeat = int(rng.integers(0, 5))
            a, b, m, o, d = 16384, 49152, 1024, 4096, 81920
            edge_pair(core, rng, t, a, b, 16384 // s)
            st_ = [int(x) for x in rng.integers(0, 12, 6)]
            st_[0] = st_[0] or 1
            write_elems(core, o, "uint32", [s * int(k) for k in rng.integers(0, 8192 // s, 4 * lanes + 64)])
            if counter:
                core.SetMaskCount()
            want = core.ub.copy()
            where = (api, it, t, mask, repeat, st_, counter)
            if api in ("Compare", "Compares"):
                mode = C.EQ if (t == "int32" and device in (A2, A3)) else list(C)[int(rng.integers(0, 6))]
                sbits = edge_bits(rng, t, 1)[0]
                at = tensor(core, t, a)
                if api == "Compare":
                    model_compare_hd(want, device, t, mode.name, 0, a, b, None, mask, repeat, st_[1], st_[4],
                                     st_[2], st_[5], counter)
                    aj.Compare(tensor(core, "uint8", 0), at, tensor(core, t, b), mode, mask, repeat,
                               aj.BinaryRepeatParams(*st_))
                else:
                    model_compare_hd(want, device, t, mode.name, 0, a, None, scalar_value(sbits, t), mask, repeat,
                                     st_[1], st_[4], 0, 0, counter)
                    aj.Compares(tensor(core, "uint8", 0), at, np_scalar(t, sbits, at), mode, mask, repeat,
                                aj.UnaryRepeatParams(st_[0], st_[1], st_[3], st_[4]))
            elif api == "Select":
                mode = 0 if device == T910 else int(rng.integers(0, 3))
                sbits = edge_bits(rng, t, 1)[0]
                at = tensor(core, t, a)
                model_select_hd(want, t, mode, d, m, a, None if mode == 1 else b, sbits, mask, repeat, st_, counter)
                src1 = np_scalar(t, sbits, at) if mode == 1 else tensor(core, t, b)
                aj.Select(tensor(core, t, d), tensor(core, "uint8", m), at, src1, S(mode), mask, repeat,
                          aj.BinaryRepeatParams(*st_))
            else:
                base = 32 * int(rng.integers(0, 4))
                model_gather_hd(want, device, t, d, a, o, base, mask, repeat, st_[3], counter)
                aj.Gather(tensor(core, t, d), tensor(core, t, a), tensor(core, "uint32", o, 4 * lanes + 64), base,
                          mask, repeat, st_[3])
            assert np.array_equal(core.ub, want), where
            if counter:
                core.SetMaskNorm()
            core.ResetMask()


@pytest.mark.parametrize("device", [d for d in DEVICES if GMASK_T[d]])
def test_seeded_random_gather_mask(device, n_iter=int(__import__("os").environ.get("AUDIT36_ITERS", "6"))):
    """Seeded random GatherMask calls: dtype, built-in or user pattern, reduce mode, mask, strides."""
    core, rng = fresh(device, 3800 + DEVICES.index(device))
    for it in range(n_iter):
        t = GMASK_T[device][int(rng.integers(0, len(GMASK_T[device])))]
        s = SZ[t]
        lanes = 256 // s
        reduce_mode = bool(rng.integers(0, 2))
        mask = int(rng.integers(1, 3 * lanes)) if reduce_mode else int(rng.integers(0, 1000))
        params = (int(rng.integers(0, 4)), int(rng.integers(0, 4)), int(rng.integers(0, 300)), int(rng.integers(0, 9)))
        a, m, d = 32768, 1024, 8192
        write_elems(core, a, t, edge_bits(rng, t, 16384 // s))
        user = bool(rng.integers(0, 2))
        if user:
            pt = {1: "uint8", 2: "uint16", 4: "uint32"}[s]
            pattern, arg = ("user", m), tensor(core, pt, m, 4096 // SZ[pt])
        else:
            pattern = arg = int(rng.integers(1, 7 if device == P310 else 8))
        if rng.integers(0, 3) == 0:
            core.SetMaskCount()
        want = core.ub.copy()
        n = model_gather_mask(want, device, t, d, a, pattern, reduce_mode, mask, params)
        got = aj.GatherMask(tensor(core, t, d), tensor(core, t, a), arg, reduce_mode, mask,
                            aj.GatherMaskParams(*params))
        assert got == n and np.array_equal(core.ub, want), (it, t, pattern, reduce_mode, mask, params)
        assert core.counter_mode is False and core.mask_defined is False
        core.ResetMask()


@pytest.mark.parametrize("device", DEVICES)
def test_seeded_random_count_forms(device, n_iter=int(__import__("os").environ.get("AUDIT36_ITERS", "6"))):
    """Seeded random count forms: Compare/Compares (whole 256-B blocks), Select (any count), Gather."""
    core, rng = fresh(device, 3900 + DEVICES.index(device))
    for it in range(n_iter):
        a, b, m, o, d = 16384, 49152, 1024, 4096, 81920
        for api, offered in (("Compare", COMPARE_T), ("Compares", COMPARES_T), ("Select", SELECT_T),
                             ("Gather", GATHER_T)):
            if not offered[device]:
                continue
            t = offered[device][int(rng.integers(0, len(offered[device])))]
            s = SZ[t]
            lanes = 256 // s
            edge_pair(core, rng, t, a, b, 4096 // s)
            write_elems(core, o, "uint32", [s * int(k) for k in rng.integers(0, 8192 // s, 4096 // s)])
            want = core.ub.copy()
            if api.startswith("Compare"):
                count = lanes * int(rng.integers(0, 5))
                mode = C.EQ if (t == "int32" and device in (A2, A3)) else list(C)[int(rng.integers(0, 6))]
                at = tensor(core, t, a)
                if api == "Compare":
                    model_compare_count(want, device, t, mode.name, 0, a, b, None, count)
                    aj.Compare(tensor(core, "uint8", 0), at, tensor(core, t, b), mode, count)
                else:
                    sbits = edge_bits(rng, t, 1)[0]
                    model_compare_count(want, device, t, mode.name, 0, a, None, scalar_value(sbits, t), count)
                    aj.Compares(tensor(core, "uint8", 0), at, np_scalar(t, sbits, at), mode, count)
            elif api == "Select":
                count = int(rng.integers(0, 4096 // s))
                mode = 0 if device == T910 else int(rng.integers(0, 3))
                sbits = edge_bits(rng, t, 1)[0]
                at = tensor(core, t, a)
                model_select_count(want, t, mode, d, m, a, None if mode == 1 else b, sbits, count)
                aj.Select(tensor(core, t, d), tensor(core, "uint8", m), at,
                          np_scalar(t, sbits, at) if mode == 1 else tensor(core, t, b), S(mode), count)
            else:
                count = int(rng.integers(0, 4096 // s))
                base = int(rng.integers(0, 64)) * s
                model_gather_count(want, t, d, a, o, base, count)
                aj.Gather(tensor(core, t, d), tensor(core, t, a), tensor(core, "uint32", o, 4096 // s), base, count)
            assert np.array_equal(core.ub, want), (api, it, t, count)


@pytest.mark.parametrize("device", DEVICES)
def test_dtype_tables_every_type(device):
    """SPEC-2 9.2-9.5 dtype tables: each API's count form accepts exactly the listed types (UnsupportedDTypeError
    otherwise, UnsupportedDeviceError where the API is not offered, SPEC-2 1.8/1.9); the high-dim forms refuse the
    950's count-only types; GatherMask's (high-dim only) table likewise."""
    core, _ = fresh(device, 3640)
    a, b, m, o, d = 16384, 49152, 1024, 4096, 81920
    write_elems(core, o, "uint32", [0] * 256)
    for t in SZ:
        s = SZ[t]
        n = 256 // s
        T = lambda x: tensor(core, t, x, n)   # noqa: E731
        calls = {
            "Compare": (COMPARE_T, lambda: aj.Compare(tensor(core, "uint8", 0, 32), T(a), T(b), C.EQ, n)),
            "Compares": (COMPARES_T, lambda: aj.Compares(tensor(core, "uint8", 0, 32), T(a), 0, C.EQ, n)),
            "Select": (SELECT_T, lambda: aj.Select(T(d), tensor(core, "uint8", m, 32), T(a), T(b),
                                                   S.VSEL_CMPMASK_SPR, n)),
            "Gather": (GATHER_T, lambda: aj.Gather(T(d), T(a), tensor(core, "uint32", o, 256), 0, n)),
            "GatherMask": (GMASK_T, lambda: aj.GatherMask(T(d), T(a), 1, False, 0, aj.GatherMaskParams(1, 1, 8, 8))),
        }
        hd = {  # SPEC-2 9.2/9.4/9.5: the 950's ¹ types have the count form only (Gather: its 8-bit ones)
            "Compare": (lambda: aj.Compare(tensor(core, "uint8", 0, 32), T(a), T(b), C.EQ, 16, 1,
                                           aj.BinaryRepeatParams()), t in _CNT950),
            "Compares": (lambda: aj.Compares(tensor(core, "uint8", 0, 32), T(a), 0, C.EQ, 16, 1,
                                             aj.UnaryRepeatParams()), t in _CNT950),
            "Select": (lambda: aj.Select(T(d), tensor(core, "uint8", m, 32), T(a), T(b), S.VSEL_CMPMASK_SPR, 16, 1,
                                         aj.BinaryRepeatParams()), t in _CNT950),
            "Gather": (lambda: aj.Gather(T(d), T(a), tensor(core, "uint32", o, 256), 0, 16, 1, 8), s == 1),
        }
        for api, (table, call) in calls.items():
            if api in hd and device == A950 and t in table[device]:
                hd_call, count_only = hd[api]
                if count_only:
                    with pytest.raises(aj.UnsupportedDTypeError):
                        hd_call()
                else:
                    hd_call()
            if not table[device]:
                with pytest.raises(aj.UnsupportedDeviceError):
                    call()
            elif t in table[device]:
                call()
            else:
                with pytest.raises(aj.UnsupportedDTypeError):
                    call()


def test_vector_core_and_operator_on_310b_refusal_classes():
    """SPEC D13: the inference Vector Core is refused by every API; SPEC-2 9.4: the 310B has no Compare operator
    (1.8: an API not offered on the device is an UnsupportedDeviceError)."""
    core = aj.Core("atlas-inference-vectorcore")
    with pytest.raises(aj.UnsupportedDeviceError):
        h = core.local_tensor("half", 128)
        aj.Compare(core.local_tensor("uint8", 16), h, h, C.EQ, 128)
    core, _ = fresh(B310, 3641)
    f = tensor(core, "float", 8192, 64)
    with pytest.raises(aj.UnsupportedDeviceError):
        tensor(core, "uint8", 0, 8)[:] = f == f


@pytest.mark.parametrize("device", (A950, A2, B310, T910))
def test_refused_calls_change_no_core_state(device):
    """SPEC-2 1.5: a refused call writes nothing and changes no core state (counter mode, the mask register and
    whether it is defined), whichever check refuses it (bounds, offsets, overlap, ranges)."""
    core, rng = fresh(device, 3642, bounds="tensor")
    h = lambda x, n=512: tensor(core, "half", x, n)
    write_elems(core, 4096, "uint32", [2 * k for k in range(255)] + [3])
    calls = [
        lambda: aj.Compare(tensor(core, "uint8", 0, 8), h(8192), h(16384), C.LT, [7, 9], 2, aj.BinaryRepeatParams()),
        lambda: aj.Select(h(32768), tensor(core, "uint8", 1024, 1), h(8192), h(16384), S.VSEL_CMPMASK_SPR,
                          [200, 1 << 63], 1, aj.BinaryRepeatParams()),
        lambda: aj.Select(h(32768), tensor(core, "uint8", 1024, 32), h(8192), h(16384), S.VSEL_CMPMASK_SPR, 128, 256,
                          aj.BinaryRepeatParams()),
    ]
    if GATHER_T[device]:
        calls += [lambda: aj.Gather(h(32768), h(8192), tensor(core, "uint32", 4096, 256), 0, [ONES, ONES], 2, 8),
                  lambda: aj.GatherMask(h(32768), h(8192), 3, True, 0, aj.GatherMaskParams(1, 1, 8, 8)),
                  lambda: aj.GatherMask(h(32768, 10), h(8192), 7 if device != A950 else 1, False, 0,
                                        aj.GatherMaskParams(1, 1, 8, 8))]
    for counter in (False, True):
        for n, call in enumerate(calls):
            if counter:
                core.SetMaskCount()
                core.SetVectorMask(200)
            else:
                core.SetVectorMask(0x1234, 0x5678)
            state = (core.counter_mode, core.mask_high, core.mask_low, core.mask_defined)
            before = core.ub.copy()
            with pytest.raises(aj.AscendJitError):
                call()
            assert np.array_equal(core.ub, before), (counter, n)
            assert (core.counter_mode, core.mask_high, core.mask_low, core.mask_defined) == state, (counter, n)
            core.SetMaskNorm()
            core.ResetMask()


def test_parameter_range_and_alignment_refusals():
    """SPEC-2 1.2 / 1.5 / 1.8: dstBlkStride 0 (any API with one), repeat_time 256, dst_rep_stride 65536, negative
    or 2**32 base / counts, misaligned operands: refused (ParameterError / AlignmentError), nothing written."""
    core, _ = fresh(A2, 3643)
    h = lambda x, n=512: tensor(core, "half", x, n)
    u8 = lambda x, n=64: tensor(core, "uint8", x, n)
    o = tensor(core, "uint32", 4096, 256)
    write_elems(core, 4096, "uint32", [0] * 256)
    P, A = aj.ParameterError, aj.AlignmentError
    cases = [
        (P, lambda: aj.Compare(u8(0), h(8192), h(16384), C.LT, 128, 1, aj.BinaryRepeatParams(0, 1, 1, 8, 8, 8))),
        (P, lambda: aj.Compares(u8(0), h(8192), np.float16(0), C.LT, 128, 1, aj.UnaryRepeatParams(0, 1, 8, 8))),
        (P, lambda: aj.Compare(u8(0), h(8192), h(16384), C.LT, 128, 256, aj.BinaryRepeatParams())),
        (P, lambda: aj.Select(h(32768), u8(1024), h(8192), h(16384), S.VSEL_CMPMASK_SPR, 128, 1,
                              aj.BinaryRepeatParams(0, 1, 1, 8, 8, 8))),
        (P, lambda: aj.Select(h(32768), u8(1024), h(8192), h(16384), S.VSEL_CMPMASK_SPR, -1)),
        (P, lambda: aj.Select(h(32768), u8(1024), h(8192), h(16384), S.VSEL_CMPMASK_SPR, -5, 1,
                              aj.BinaryRepeatParams())),
        (P, lambda: aj.Gather(h(32768), h(8192), o, 0, 128, 256, 8)),
        (P, lambda: aj.Gather(h(32768), h(8192), o, 0, 128, 1, 65536)),
        (P, lambda: aj.Gather(h(32768), h(8192), o, -2, 128)),
        (P, lambda: aj.Gather(h(32768), h(8192), o, 2**32, 128)),
        (P, lambda: aj.GatherMask(h(32768), h(8192), 1, False, 0, aj.GatherMaskParams(256, 1, 8, 8))),
        (P, lambda: aj.GatherMask(h(32768), h(8192), 1, False, 0, aj.GatherMaskParams(1, 1, 65536, 8))),
        (P, lambda: aj.GatherMask(h(32768), h(8192), 1, False, 0, aj.GatherMaskParams(1, 1, 8, 256))),
        (P, lambda: aj.GatherMask(h(32768), h(8192), 0, False, 0, aj.GatherMaskParams(1, 1, 8, 8))),
        (A, lambda: aj.Compare(u8(16), h(8192), h(16384), C.LT, 128)),
        (A, lambda: aj.Compare(u8(0), h(8192 + 16), h(16384), C.LT, 128)),
        (A, lambda: aj.Select(h(32768 + 2), u8(1024), h(8192), h(16384), S.VSEL_CMPMASK_SPR, 128)),
        (A, lambda: aj.Select(h(32768), u8(1024 + 8), h(8192), h(16384), S.VSEL_CMPMASK_SPR, 128)),
        (A, lambda: aj.Gather(h(32768), h(8192), tensor(core, "uint32", 4100, 128), 0, 128)),
        (A, lambda: aj.Gather(h(32768), h(8192), o, 1, 128)),
        (A, lambda: aj.GatherMask(h(32768 + 4), h(8192), 1, False, 0, aj.GatherMaskParams(1, 1, 8, 8))),
        (A, lambda: aj.GatherMask(h(32768), h(8192), tensor(core, "uint16", 1040, 8), False, 0,
                                  aj.GatherMaskParams(1, 1, 8, 8))),
    ]
    before = core.ub.copy()
    for n, (err, call) in enumerate(cases):
        with pytest.raises(err):
            call()
        assert np.array_equal(core.ub, before), n


@pytest.mark.parametrize("device", (A2, A950, B310, T910))
def test_count_forms_while_in_counter_mode(device):
    """Count forms use their count whatever the core's mode (SPEC 2.6 / D22: A2/A3 count calls return to Normal
    mode with an all-ones mask; the 950 and 310B leave mode and register alone)."""
    core, rng = fresh(device, 3644)
    a, b, m, o, d = 16384, 49152, 1024, 4096, 81920
    edge_pair(core, rng, "half", a, b, 1024)
    write_elems(core, o, "uint32", [2 * int(k) for k in rng.integers(0, 1000, 300)])
    H = lambda x: tensor(core, "half", x, 1024)   # noqa: E731
    calls = [("Select", lambda w: model_select_count(w, "half", 0, d, m, a, b, 0, 300),
              lambda: aj.Select(H(d), tensor(core, "uint8", m, 64), H(a), H(b), S.VSEL_CMPMASK_SPR, 300)),
             ("Compare", lambda w: model_compare_count(w, device, "half", "GT", 0, a, b, None, 384),
              lambda: aj.Compare(tensor(core, "uint8", 0, 64), H(a), H(b), C.GT, 384))]
    if GATHER_T[device]:
        calls.append(("Gather", lambda w: model_gather_count(w, "half", d, a, o, 0, 300),
                      lambda: aj.Gather(H(d), H(a), tensor(core, "uint32", o, 300), 0, 300)))
    for name, model, call in calls:
        core.SetMaskCount()
        core.SetVectorMask(17)
        want = core.ub.copy()
        model(want)
        call()
        assert np.array_equal(core.ub, want), name
        if device in (A950, B310):
            assert (core.counter_mode, core.mask_low) == (True, 17), name
        elif device == A2 and name != "Compare":
            assert (core.counter_mode, core.mask_high, core.mask_low) == (False, ONES, ONES), name
        core.SetMaskNorm()
        core.ResetMask()


def test_operator_forms_more():
    """SPEC-2 9.4 operators: every comparison operator, the 950's 8/64-bit types, A2's int32 `==` only, counts that
    do not fill whole 256-B blocks refused."""
    core, rng = fresh(A950, 3645)
    ops = {"LT": lambda x, y: x < y, "GT": lambda x, y: x > y, "LE": lambda x, y: x <= y, "GE": lambda x, y: x >= y,
           "EQ": lambda x, y: x == y, "NE": lambda x, y: x != y}
    for t in ("int8", "uint64", "bfloat16"):
        n = 512 // SZ[t]
        edge_pair(core, rng, t, 8192, 16384, n)
        for name, op in ops.items():
            want = core.ub.copy()
            model_compare_count(want, A950, t, name, 0, 8192, 16384, None, n)
            tensor(core, "uint8", 0, n // 8)[:] = op(tensor(core, t, 8192, n), tensor(core, t, 16384, n))
            assert np.array_equal(core.ub, want), (t, name)
    core, rng = fresh(A2, 3646)
    edge_pair(core, rng, "int32", 8192, 16384, 64)
    x, y = tensor(core, "int32", 8192, 64), tensor(core, "int32", 16384, 64)
    want = core.ub.copy()
    model_compare_count(want, A2, "int32", "EQ", 0, 8192, 16384, None, 64)
    tensor(core, "uint8", 0, 8)[:] = x == y
    assert np.array_equal(core.ub, want)
    with pytest.raises(aj.UnsupportedDTypeError):
        tensor(core, "uint8", 0, 8)[:] = x < y
    with pytest.raises(aj.ParameterError):
        tensor(core, "uint8", 0, 8)[:] = tensor(core, "float", 8192, 72) < tensor(core, "float", 16384, 72)
    assert np.array_equal(core.ub, want)


@pytest.mark.parametrize("device", (A950, A2, B310, P310))
def test_gather_mask_dst_in_the_unread_gaps_is_legal(device):
    """SPEC-2 1.5 "Overlap: D34 (checked on exact byte sets)" and decisions.md ("GatherMask over its own user
    pattern", "Overlap (SPEC 8.2)"): a dst lying in the blocks src0BlockStride skips, or between the rows of a user
    pattern spaced by src1RepeatStride, shares no byte with what the call reads: accepted, and the result is the
    model's. A dst meeting one read byte stays an OverlapError."""
    core, rng = fresh(device, 3647)
    a, p = 16384, 1024
    write_elems(core, a, "half", edge_bits(rng, "half", 4096))
    write_elems(core, p, "uint8", [0x01] * 16 + [0] * 112 + [0x11] * 16)   # pattern rows at p and p + 128
    cases = [  # (dst, pattern, reduce_mode, mask, params, legal)
        (a + 32, 3, False, 0, (3, 1, 24, 8), True),                  # blocks at a + 96k: dst [a+32, a+96)
        (a + 32, 3, False, 0, (5, 2, 40, 8), True),                  # blocks at a + 160k: dst [a+32, a+160)
        (a + 3 * 256 + 32, 3, True, 40, (3, 2, 12, 8), True),        # configuration 1/2 with gaps
        (a + 64, 3, False, 0, (3, 1, 24, 8), False),                 # dst [a+64, a+128) meets block 1 at a+96
        (p + 32, ("user", p), False, 0, (1, 2, 8, 4), True),         # between the pattern rows
        (p + 96, ("user", p), False, 0, (1, 2, 8, 4), False),        # dst meets row 1 at p + 128
    ]
    for n_c, (d, pattern, reduce_mode, mask, params, legal) in enumerate(cases):
        reads = []
        want = core.ub.copy()
        n = model_gather_mask(want, device, "half", d, a, pattern, reduce_mode, mask, params, reads)
        read_bytes = {x + k for x in reads for k in range(2)}
        if isinstance(pattern, tuple):
            rows = [(p + i * params[3] * 32, p + i * params[3] * 32 + 16) for i in range(params[1])]
            read_bytes |= {x for lo, hi in rows for x in range(lo, hi)}
        meets = any(d <= x < d + 2 * n for x in read_bytes)
        assert meets != legal, n_c    # the case table itself
        arg = tensor(core, "uint16", p, 72) if isinstance(pattern, tuple) else pattern
        call = lambda: aj.GatherMask(tensor(core, "half", d, n), tensor(core, "half", a), arg,  # noqa: E731
                                     reduce_mode, mask, aj.GatherMaskParams(*params))
        if legal:
            assert call() == n and np.array_equal(core.ub, want), n_c
        else:
            before = core.ub.copy()
            with pytest.raises(aj.OverlapError):
                call()
            assert np.array_equal(core.ub, before), n_c
        core.ResetMask()


@pytest.mark.parametrize("device", (A950, A2, B310))
def test_allowed_overlaps_on_exact_byte_sets(device):
    """SPEC 8.2, SPEC-2 D34 on exact byte sets (SPEC-2 1.5): a later repeat's dst over an earlier repeat's source, a dst in
    the blocks a source's block stride skips, a selMask in a later repeat's dst rows (950 int8) are legal, and the
    result is the one of reading every source first (the model)."""
    core, rng = fresh(device, 3648)
    a, b = 16384, 32768
    edge_pair(core, rng, "half", a, b, 4096)
    H = lambda x: tensor(core, "half", x)   # noqa: E731
    cases = [
        # Compare count: repeat i's bits at a - 32 + 16i, inside src0 repeat <= i - 2
        (lambda w: model_compare_count(w, device, "half", "LT", a - 32, a, b, None, 4096),
         lambda: aj.Compare(tensor(core, "uint8", a - 32), H(a), H(b), C.LT, 4096)),
        # Compare high-dim: bits in the blocks srcBlkStride 2 skips (repeat stride 16: a + 32 + 16i stays in block 1)
        (lambda w: model_compare_hd(w, device, "half", "GE", a + 32, a, b, None, 128, 2, 2, 16, 1, 8, False),
         lambda: aj.Compare(tensor(core, "uint8", a + 32), H(a), H(b), C.GE, 128, 2,
                            aj.BinaryRepeatParams(1, 2, 1, 8, 16, 8))),
        # Select count: dst = src0 - 256 (repeat i + 1 writes src0's repeat i)
        (lambda w: model_select_count(w, "half", 0, a - 256, 1024, a, b, 0, 1024),
         lambda: aj.Select(H(a - 256), tensor(core, "uint8", 1024), H(a), H(b), S.VSEL_CMPMASK_SPR, 1024)),
        # Select high-dim: dst in the odd blocks, src0 in the even ones
        (lambda w: model_select_hd(w, "half", 2, a + 32, a + 1536, a, b, 0, [ONES, ONES], 2,
                                   (2, 2, 1, 16, 16, 8), False),
         lambda: aj.Select(H(a + 32), tensor(core, "uint8", a + 1536), H(a), H(b), S.VSEL_TENSOR_TENSOR_MODE,
                           [ONES, ONES], 2, aj.BinaryRepeatParams(2, 2, 1, 16, 16, 8))),
    ]
    for n, (model, call) in enumerate(cases):
        want = core.ub.copy()
        model(want)
        call()
        assert np.array_equal(core.ub, want), n
    if device == A950:   # int8 count, mode 2: repeat 0's selMask bytes in dst's repeat 1 row, repeat 1's past dst
        d = 49152
        edge_pair(core, rng, "int8", a, b, 512)
        want = core.ub.copy()
        model_select_count(want, "int8", 2, d, d + 480, a, b, 0, 512)
        aj.Select(tensor(core, "int8", d), tensor(core, "uint8", d + 480), tensor(core, "int8", a),
                  tensor(core, "int8", b), S.VSEL_TENSOR_TENSOR_MODE, 512)
        assert np.array_equal(core.ub, want)


@pytest.mark.parametrize("device", DEVICES)
def test_undefined_mask_register_refuses_is_set_mask_false(device):
    """D31 (D22 mechanism): after GatherMask (every device) or Compare/Compares on A2/A3/310P/910, an
    is_set_mask=False call before SetVectorMask/ResetMask is a StateError that writes nothing; after ResetMask it
    runs."""
    core, rng = fresh(device, 3649)
    a, b, m, d = 16384, 32768, 1024, 49152
    edge_pair(core, rng, "half", a, b, 1024)
    H = lambda x: tensor(core, "half", x, 1024)   # noqa: E731
    sel = lambda: aj.Select(H(d), tensor(core, "uint8", m, 64), H(a), H(b), S.VSEL_CMPMASK_SPR,  # noqa: E731
                            aj.MASK_PLACEHOLDER, 2, aj.BinaryRepeatParams(), is_set_mask=False)
    setters = [lambda: aj.Compare(tensor(core, "uint8", 0, 64), H(a), H(b), C.LT, 128, 1, aj.BinaryRepeatParams())]
    if GMASK_T[device]:
        setters.append(lambda: aj.GatherMask(H(d + 4096), H(a), 1, False, 0, aj.GatherMaskParams(1, 1, 8, 8)))
    for n, setter in enumerate(setters):
        core.ResetMask()
        setter()
        undefined = n == 1 or device not in MASK_EFFECTIVE
        before = core.ub.copy()
        if undefined:
            with pytest.raises(aj.StateError):
                sel()
            assert np.array_equal(core.ub, before)
            core.ResetMask()
        want = core.ub.copy()
        model_select_hd(want, "half", 0, d, m, a, b, 0, [core.mask_low, core.mask_high], 2, (1, 1, 1, 8, 8, 8), False)
        sel()
        assert np.array_equal(core.ub, want), n


@pytest.mark.parametrize("device", (A950, A2))
def test_source_tensor_bounds_follow_the_active_lanes(device):
    """Tensor bounds (README, SPEC-2 1.5) on the bytes read: with a bit mask of lane 0 only, 2 repeats of float,
    src0 needs 65 elements (A2/A3 compute every lane: 128); Compares and Select alike."""
    core, rng = fresh(device, 3650, bounds="tensor")
    a, b = 8192, 16384
    edge_pair(core, rng, "float", a, b, 256)
    need = 65 if device == A950 else 128
    F = lambda x, n: tensor(core, "float", x, n)   # noqa: E731
    for n in (need, need - 1):
        want = core.ub.copy()
        model_compare_hd(want, device, "float", "NE", 0, a, None, 1.0, [1], 2, 1, 8, 0, 0, False)
        call = lambda: aj.Compares(tensor(core, "uint8", 0, 16), F(a, n), np.float32(1), C.NE, [1], 2,  # noqa: E731
                                   aj.UnaryRepeatParams())
        if n == need:
            call()
            assert np.array_equal(core.ub, want)
        else:
            with pytest.raises(aj.OutOfBoundsError):
                call()
            assert np.array_equal(core.ub, want)
    for n in (65, 64):
        want = core.ub.copy()
        model_select_hd(want, "float", 2, 32768, 1024, a, b, 0, [1], 2, (1, 1, 1, 8, 8, 8), False)
        call = lambda: aj.Select(F(32768, 65), tensor(core, "uint8", 1024, 9), F(a, n), F(b, 65),  # noqa: E731
                                 S.VSEL_TENSOR_TENSOR_MODE, [1], 2, aj.BinaryRepeatParams())
        if n == 65:
            call()
            assert np.array_equal(core.ub, want)
        else:
            with pytest.raises(aj.OutOfBoundsError):
                call()
            assert np.array_equal(core.ub, want)
