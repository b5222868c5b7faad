"""The typed conversion (jit/convert.py typed_run: values decoded to float64, converted in typed lanes, the lanes it
cannot convert exactly handed to the element routine) must give the element routine's bits (convert_bits, SPEC-2
7.3, D45, D46) for every pair, round mode and overflow flag: every 8- and 16-bit source pattern exhaustively, the
32-bit sources over their rounding and range edges and random patterns, also where dst lies over src; and the Reg
Cast's typed loops (half -> int32, float -> half / bfloat16 RINT, int8 / uint8 <-> half) and lane walk the element
routine's bits lane by lane (SPEC-2 11.5, D65)."""
import itertools

import numpy as np
import pytest
from numba import njit

import ascend_jit as aj
from ascend_jit.jit import reg_cast
from ascend_jit.jit.convert import MODE_ODD, MODE_RINT, _load, _store, cast_contiguous, convert_bits
from ascend_jit.jit.numerics import KIND_BF16, KIND_FLOAT, KIND_HALF, kind_size
from ascend_jit.jit.reg import H_CTRL, H_KIND, M_CAST_TRUNC, M_HALF_SAT, M_TRAIT_SAT, REG_BYTES, VL

KINDS = range(11)   # half, float, bfloat16, int8, uint8, int16, uint16, int32, uint32, int64, uint64
SIZES = [kind_size(k) for k in KINDS]


@njit(cache=True)
def _element_by_element(sk, dk, mode, trunc, sat, d, s, n):
    """The reference: the element routine on each element in turn (what every non-vector Cast ran before)."""
    for i in range(n):
        _store(d, kind_size(dk), i, convert_bits(sk, dk, mode, trunc, sat, _load(s, kind_size(sk), i)))


def _float_edges():
    """float32 patterns at the edges the typed lanes decide on: around every half value and midpoint (float -> half in
    each mode), around bfloat16 values, around the integer types' ranges and the .5 ties, zeros, infinities, NaNs."""
    halves = np.arange(0, 0x7C01, dtype=np.uint16).view(np.float16).astype(np.float32)
    near_halves = halves.view(np.uint32)[::7, None] + np.arange(-2, 3, dtype=np.int64)[None, :]
    mids = ((halves[:-1].astype(np.float64) + halves[1:]) / 2).astype(np.float32).view(np.uint32)[::5]
    bf16 = (np.arange(0, 0x7F81, 3, dtype=np.uint32) << 16)[:, None] + np.array([-1, 0, 1, 0x7FFF, 0x8000, 0x8001])
    limits = np.array([2.0 ** p for p in (7, 8, 15, 16, 31, 32, 63, 64)] + [0.5, 1.5, 2.5, 127.5, 128.5, 255.5,
                                                                            32767.5, 65535.5, 65504.0, 65520.0])
    ints = np.concatenate([limits, limits - 1, limits + 1]).astype(np.float32).view(np.uint32)
    near_ints = ints[:, None].astype(np.int64) + np.arange(-2, 3)[None, :]
    specials = np.array([0, 0x7F800000, 0x7FC00000, 0x7F800001, 0x7F7FFFFF, 0x00000001, 0x007FFFFF], np.int64)
    positive = np.concatenate([near_halves.ravel(), mids, bf16.ravel(), near_ints.ravel(), specials])
    positive = positive.clip(0, 0x7FFFFFFF).astype(np.uint32)
    return np.concatenate([positive, positive | np.uint32(0x80000000)])


def _sources(sk, rng):
    """Packed source bytes: every pattern of an 8- or 16-bit kind; edges and random patterns of the wider ones."""
    if SIZES[sk] <= 2:
        return np.arange(1 << 8 * SIZES[sk], dtype=np.uint16 if SIZES[sk] == 2 else np.uint8).view(np.uint8)
    if sk == KIND_FLOAT:
        bits = np.concatenate([_float_edges(), rng.integers(0, 1 << 32, 1 << 15, dtype=np.uint64).astype(np.uint32)])
        return bits.view(np.uint8)
    near = np.array([0, 1, 127, 128, 255, 256, 2047, 2048, 2049, 4097, 32767, 32768, 65504, 65519, 65520, 65535,
                     65536, 1 << 24, (1 << 24) + 1, (1 << 24) + 3, (1 << 31) - 1, 1 << 31, (1 << 32) - 1])
    values = np.concatenate([near, -near, rng.integers(-(1 << 40), 1 << 40, 1 << 14)])
    dtype = {4: np.uint32, 8: np.uint64}[SIZES[sk]]
    return values.astype(np.int64).astype(dtype).view(np.uint8) if SIZES[sk] == 8 else \
        (values & 0xFFFFFFFF).astype(dtype).view(np.uint8)


@pytest.mark.parametrize("sk", KINDS)
def test_typed_conversion_gives_the_element_routines_bits(sk):
    s = _sources(sk, np.random.default_rng(sk))
    n = s.size // SIZES[sk]
    failures = []
    for dk, mode, trunc, sat in itertools.product(KINDS, range(MODE_RINT, MODE_ODD + 1), (False, True), (False, True)):
        ub = np.concatenate([s, np.zeros(n * SIZES[dk], np.uint8)])   # the count form's kernel: typed_run always
        cast_contiguous(ub, sk, dk, mode, trunc, sat, s.size, 0, n)
        got, want = ub[s.size:], np.zeros(n * SIZES[dk], np.uint8)
        _element_by_element(sk, dk, mode, trunc, sat, want, s, n)
        if not np.array_equal(got, want):
            lane = np.flatnonzero(got != want)[0] // SIZES[dk]
            failures.append((dk, mode, trunc, sat, s[lane * SIZES[sk]:(lane + 1) * SIZES[sk]].tobytes().hex(),
                             got[lane * SIZES[dk]:(lane + 1) * SIZES[dk]].tobytes().hex(),
                             want[lane * SIZES[dk]:(lane + 1) * SIZES[dk]].tobytes().hex()))
    assert not failures, failures[:10]


def _lane_walk(dst, src, words, layout, sat_mode, rnd):
    """The Reg Cast as a lane walk in Python: each active lane through the element routine with the pair's overflow
    flags (D45, D46, D71), the other destination lanes 0 (D65)."""
    sk, dk, modes = int(src[H_KIND]), int(dst[H_KIND]), int(src[H_CTRL])
    if modes & M_TRAIT_SAT and sat_mode != reg_cast.SAT_UNKNOWN:
        sat_int = sat_float = sat_mode == reg_cast.SAT_SAT
    else:
        sat_int, sat_float = not modes & M_CAST_TRUNC, bool(modes & M_HALF_SAT)
    widening_unsigned = sk > KIND_BF16 and dk in (6, 8) and SIZES[dk] > SIZES[sk]
    trunc = not (sat_int or (sk == KIND_HALF and dk == 5) or widening_unsigned)
    sat = sat_float and dk in (KIND_HALF, KIND_BF16) and not (sk == KIND_HALF and dk == KIND_BF16)
    mode = reg_cast.RINT if rnd == reg_cast.ROUND_UNKNOWN else rnd
    ss, ds = SIZES[sk], SIZES[dk]
    k = max(layout - reg_cast.LAYOUT_ZERO, 0)
    active = np.unpackbits(words.view(np.uint8), bitorder="little").astype(bool)
    out = np.zeros(VL, np.uint8)
    widening = ds >= ss
    r = ds // ss if widening else ss // ds
    for j in range(VL // max(ss, ds)):
        lane = r * j + k if widening else j
        if active[lane * ss]:
            bits = convert_bits(sk, dk, mode, trunc, sat, np.uint64(int.from_bytes(src[lane * ss:(lane + 1) * ss]
                                                                                   .tobytes(), "little")))
            at = j * ds if widening else (r * j + k) * ds
            out[at:at + ds] = np.frombuffer(int(bits).to_bytes(8, "little")[:ds], np.uint8)
    return out


def _register(kind, rng, data_kind):
    reg = np.zeros(REG_BYTES, np.uint8)
    if data_kind == 0:
        reg[:VL] = rng.integers(0, 256, VL, dtype=np.uint8)
    else:   # values near the integer ranges and the rounding ties
        values = rng.standard_normal(VL) * rng.choice([1.0, 100.0, 300.0, 40000.0, 3e9], VL)
        ties = rng.random(VL) < 0.2
        values[ties] = np.round(values[ties]) + 0.5
        if kind == KIND_FLOAT:
            reg[:VL] = values[:64].astype(np.float32).view(np.uint8)
        elif kind == KIND_HALF:
            with np.errstate(over="ignore"):
                reg[:VL] = values[:128].astype(np.float16).view(np.uint8)
        elif kind == KIND_BF16:
            reg[:VL] = (values[:128].astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).view(np.uint8)
        else:
            info = np.iinfo({1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[SIZES[kind]])
            reg[:VL] = np.clip(values, info.min, info.max).astype(info.dtype).view(np.uint8)[:VL]
    return reg


@pytest.mark.parametrize("pair", reg_cast.PAIRS)
def test_reg_cast_gives_the_lane_walks_bits(pair):
    sk, dk = pair
    rng = np.random.default_rng(sk * 11 + dk)
    layouts, sats, rnds = (int(v) for v in reg_cast.TRAITS[sk, dk])
    traits = [(layout, sat, rnd) for layout in range(5) for sat in range(3) for rnd in range(9)
              if (layouts >> layout) & 1 and (sats >> sat) & 1 and (rnds >> rnd) & 1]
    # the CTRL bits the conversion reads (D46): trait or global saturation, CTRL[59] truncation, CTRL[48] half sat
    modes = (0, M_TRAIT_SAT, M_CAST_TRUNC | M_HALF_SAT, M_TRAIT_SAT | M_CAST_TRUNC | M_HALF_SAT)
    for (layout, sat, rnd), ctrl, data_kind in itertools.product(traits, modes, (0, 1)):
        src = _register(sk, rng, data_kind)
        src[H_KIND], src[H_CTRL] = sk, ctrl
        dst = np.zeros(REG_BYTES, np.uint8)
        dst[H_KIND] = dk
        random_words = (rng.integers(0, 1 << 63, 4, dtype=np.uint64) << np.uint64(1)) | \
            rng.integers(0, 2, 4, dtype=np.uint64)
        words = random_words if rng.random() < 0.5 else np.full(4, (1 << 64) - 1, np.uint64)
        want = _lane_walk(dst, src, words, layout, sat, rnd)
        reg_cast.cast(dst, src, words, layout, sat, 0, rnd, None)
        assert np.array_equal(dst[:VL], want), (layout, sat, rnd, ctrl, data_kind)
        assert dst[H_CTRL] == ctrl


def _reg_cast_chunks(sk, dk, values, layout, sat_mode, rnd, ctrl):
    """Reg Cast over `values` (the source kind's bit patterns) a register at a time, every lane active: the
    destination lanes (D65 with layout k) concatenated."""
    ss, ds = SIZES[sk], SIZES[dk]
    per = VL // max(ss, ds)   # lanes converted per register
    k = max(layout - reg_cast.LAYOUT_ZERO, 0)
    narrow = ds < ss
    out = []
    for start in range(0, values.size, per):
        chunk = values[start:start + per]
        lanes = np.zeros(VL // ss, values.dtype)
        if narrow:   # dst lane r*j + k <- src lane j
            lanes[:chunk.size] = chunk
        else:        # dst lane j <- src lane r*j + k
            lanes[k::ds // ss][:chunk.size] = chunk
        src, dst = np.zeros(REG_BYTES, np.uint8), np.zeros(REG_BYTES, np.uint8)
        src[:VL] = lanes.view(np.uint8)
        src[H_KIND], src[H_CTRL], dst[H_KIND] = sk, ctrl, dk
        reg_cast.cast(dst, src, np.full(4, (1 << 64) - 1, np.uint64), layout, sat_mode, 0, rnd, None)
        out.append(dst[:VL].view(values.dtype if ds == ss else {1: np.uint8, 2: np.uint16, 4: np.uint32}[ds])
                   [(k if narrow else 0)::(ss // ds if narrow else 1)][:chunk.size])
    return np.concatenate(out)


@pytest.mark.parametrize("layout", [reg_cast.LAYOUT_ZERO, reg_cast.LAYOUT_ONE])
def test_reg_cast_typed_paths_on_every_edge(layout):
    """The Reg Cast's typed paths of their own (port67f: half -> int32, the 950 quantise kernels' Cast; float ->
    bfloat16 RINT, their bf16 outputs; float -> half RINT; port67j: int8 / uint8 <-> half) against the element
    routine: every half in every round mode and truncation setting, every byte, the float edges in both saturation
    settings."""
    halves = np.arange(1 << 16, dtype=np.uint16)
    for dk, rnd, ctrl in itertools.product((7, 3, 4), range(reg_cast.RINT, reg_cast.TRUNC + 1), (0, M_CAST_TRUNC)):
        # half -> int32, int8, uint8 (the last two: satMode NO_SAT, the global CTRL[59] deciding)
        sat_mode = reg_cast.SAT_UNKNOWN if dk == 7 else reg_cast.SAT_NO_SAT
        got = _reg_cast_chunks(KIND_HALF, dk, halves, layout, sat_mode, rnd, ctrl)
        want = np.zeros(halves.size * SIZES[dk], np.uint8)
        _element_by_element(KIND_HALF, dk, rnd, bool(ctrl), False, want, halves.view(np.uint8), halves.size)
        assert np.array_equal(got.view(np.uint8), want), (dk, rnd, ctrl)
    for sk in (3, 4):   # int8, uint8 -> half: every byte
        values = np.arange(256, dtype=np.uint8)
        got = _reg_cast_chunks(sk, KIND_HALF, values, layout, reg_cast.SAT_UNKNOWN, reg_cast.ROUND_UNKNOWN, 0)
        want = np.zeros(256 * 2, np.uint8)
        _element_by_element(sk, KIND_HALF, MODE_RINT, False, False, want, values, 256)
        assert np.array_equal(got.view(np.uint8), want), sk
    floats = _float_edges()
    for dk, ctrl in itertools.product((KIND_HALF, KIND_BF16), (0, M_HALF_SAT)):
        # satMode NO_SAT without CTRL[60] = 0 (M_TRAIT_SAT): the global CTRL[48] decides (D46)
        got = _reg_cast_chunks(KIND_FLOAT, dk, floats, layout, reg_cast.SAT_NO_SAT, reg_cast.RINT, ctrl)
        want = np.zeros(floats.size * 2, np.uint8)
        _element_by_element(KIND_FLOAT, dk, MODE_RINT, True, bool(ctrl), want, floats.view(np.uint8), floats.size)
        assert np.array_equal(got.view(np.uint8), want), (dk, ctrl)


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
@pytest.mark.parametrize("pair", [("float", "int32", "CAST_RINT"), ("half", "int16", "CAST_ROUND"),
                                  ("float", "float", "CAST_FLOOR")])
def test_a_same_size_cast_writing_over_its_earlier_repeats_reads_them_first(device, pair):
    """Review 67: a high-dim same-size Cast with dst one repeat behind src (SPEC 8.2: a repeat may write bytes an
    earlier repeat read) runs as one contiguous call; the lanes handed to the element routine (NaN, infinities, out
    of range) read their source again, which the typed lanes had already overwritten: every result goes through a
    scratch buffer now. The result must be the same call's with dst apart from src."""
    src_type, dst_type, mode = pair
    values = (np.arange(256) * 37.25 - 1000).astype(np.float32)
    values[:8] = [np.nan, np.inf, -np.inf, 3e9, -3e9, 1e20, np.nan, 7.5]
    with np.errstate(over="ignore", invalid="ignore"):
        raw = values.astype(np.float16).view(np.uint8) if src_type == "half" else values[:128].view(np.uint8)
    lanes = 256 // (2 if src_type == "half" else 4)
    results = []
    for dst_addr in (256, 2048):   # one repeat behind src, then apart from it
        core = aj.Core(device)
        core.ub[512:1024] = raw
        core.ub_written_by_host()
        src = core.local_tensor(src_type, 2 * lanes, addr=512)
        dst = core.local_tensor(dst_type, 2 * lanes, addr=dst_addr)
        aj.Cast(dst, src, getattr(aj.RoundMode, mode), lanes, 2, aj.UnaryRepeatParams(1, 1, 8, 8))
        results.append(core.ub[dst_addr:dst_addr + 512].copy())
    assert np.array_equal(results[0], results[1])
