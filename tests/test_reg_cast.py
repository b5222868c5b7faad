"""Ascend 950 Reg Cast (SPEC-2 11.5, 7.3; D45, D46, D65, D71): the 12.3 golden vectors on the 950, the trait
table, the saturation switches, and property tests of every pair, layout and round mode, compiled and plain, against
the reference."""
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.jit import reg_cast
from ascend_jit.reference import numerics as rnum
from ascend_jit.reference import reg as ref

R = aj.Reg
RM = aj.RoundMode
NAMES = {d.kind: d.name for d in aj.dtypes.ALL}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _vf_cast(out, src, S, D, mask, trait):
    a, b = R.RegTensor(S), R.RegTensor(D)
    R.LoadAlign(a, src)
    R.Cast(b, a, mask, trait)
    R.StoreAlign(out, b, R.CreateMask(D))


CAST = R.simd_vf(_vf_cast)


def _core(trunc_int=False, sat_half=True, trait_decides=False):
    core = aj.Core("ascend950")
    core.SetCtrlSpr(59, 59, 1 if trunc_int else 0)
    core.SetCtrlSpr(48, 48, 0 if sat_half else 1)
    core.SetCtrlSpr(60, 60, 0 if trait_decides else 1)
    return core


def _cast(S, D, raw, trait, mask=None, core=None, compiled=True):
    core = core or _core()
    src = core.local_tensor(S, 256 // aj.dtypes.resolve(S).size)
    src[:] = np.frombuffer(bytes(raw).ljust(256, b"\0"), src.dtype.np_dtype)
    out = core.local_tensor(D, 256 // aj.dtypes.resolve(D).size)
    with core:
        (CAST if compiled else CAST.py_func)(out, src, S, D, mask or R.CreateMask(S), trait)
    return out.numpy().view(UINT[out.dtype.size])


def _bits(dtype, value):
    return int.from_bytes(rnum.encode(dtype, value), "little")


def _layout(S, D):
    s, d = aj.dtypes.resolve(S).size, aj.dtypes.resolve(D).size
    return R.RegLayout.UNKNOWN if s == d else R.RegLayout.ZERO


def _one(S, D, value, mode, trunc=False, bits=None):
    """Lane 0 of Cast S->D of one value (a value of S, or its bit pattern), the global bits deciding."""
    raw = (bits if bits is not None else _bits(S, value)).to_bytes(aj.dtypes.resolve(S).size, "little")
    sats = int(reg_cast.TRAITS[aj.dtypes.resolve(S).kind, aj.dtypes.resolve(D).kind][1])
    trait = R.CastTrait(_layout(S, D), R.SatMode.SAT if sats >> R.SatMode.SAT & 1 else R.SatMode.UNKNOWN,
                        R.MaskMergeMode.ZEROING, mode)
    return int(_cast(S, D, raw, trait, core=_core(trunc_int=trunc, sat_half=not trunc))[0])


_EXACT = {(NAMES[s], NAMES[d]) for s, d in reg_cast.PAIRS if reg_cast.TRAITS[s, d][2] == 1 << RM.UNKNOWN}
MODES5 = [RM.CAST_RINT, RM.CAST_FLOOR, RM.CAST_CEIL, RM.CAST_ROUND, RM.CAST_TRUNC]
C_ROWS = [  # SPEC-2 12.3 C-1..C-11, C-13, C-14: (pair, input bits, RINT, FLOOR, CEIL, ROUND, TRUNC)
    ("float", "half", 0x3F001000, [0x3800, 0x3800, 0x3801, 0x3801, 0x3800]),
    ("float", "bfloat16", 0x3F00A000, [0x3F01, 0x3F00, 0x3F01, 0x3F01, 0x3F00]),
    ("int16", "half", 4098, [0x6C00, 0x6C00, 0x6C01, 0x6C01, 0x6C00]),
    ("int32", "float", 2**25 + 3, [0x4C000001, 0x4C000000, 0x4C000001, 0x4C000001, 0x4C000000]),
    ("int64", "float", 2**35 + 2**12 + 2**11, [0x51000002, 0x51000001, 0x51000002, 0x51000002, 0x51000001]),
    ("half", "int32", 0xBE00, [2**32 - 2, 2**32 - 2, 2**32 - 1, 2**32 - 2, 2**32 - 1]),
    ("half", "int8", 0x57F8, [127] * 5), ("half", "int16", 0x57F8, [128, 127, 128, 128, 127]),
    ("half", "uint8", 0x3F00, [2, 1, 2, 2, 1]), ("bfloat16", "int32", 0x4281, [64, 64, 65, 65, 64]),
    ("float", "int32", 0x4A800001, [4194304, 4194304, 4194305, 4194305, 4194304]),
    ("float", "int64", 0x4A800001, [4194304, 4194304, 4194305, 4194305, 4194304]),
    ("float", "int16", 0x4A800001, [32767] * 5), ("bfloat16", "half", 0x3643, [0x31, 0x30, 0x31, 0x31, 0x30])]


@pytest.mark.parametrize("S,D,bits,want", C_ROWS)
def test_c_rows(S, D, bits, want):
    assert [_one(S, D, None, m, bits=bits) for m in MODES5] == want


def test_c1_odd_and_c16_example():
    assert _one("float", "half", None, RM.CAST_ODD, bits=0x3F001000) == 0x3801
    src = np.float16([1.4, 1.5, 1.6, 2.4, 2.5, 2.6])
    for mode, want in ((RM.CAST_CEIL, [2, 2, 2, 3, 3, 3]), (RM.CAST_RINT, [1, 2, 2, 2, 2, 3]),
                       (RM.CAST_FLOOR, [1, 1, 1, 2, 2, 2]), (RM.CAST_ROUND, [1, 2, 2, 2, 3, 3]),
                       (RM.CAST_TRUNC, [1, 1, 1, 2, 2, 2])):
        assert [_one("half", "int32", float(v), mode) for v in src] == want


C15 = [("int8", "half", -1, 0xBC00, None), ("int8", "int16", 127, 127, None), ("uint8", "half", 1, 0x3C00, None),
       ("uint8", "uint32", 255, 255, None), ("int16", "uint8", 32767, 255, None),
       ("int16", "uint32", 32767, 32767, None), ("int16", "float", 32767, 0x46FFFE00, None),
       ("uint16", "uint8", 65535, 255, None), ("uint16", "uint32", 65535, 65535, None),
       ("int32", "uint8", 2**31 - 1, 255, None),  # int32 -> uint16: a Memory Cast pair only (SPEC-2 11.5)
       ("int32", "int16", 2**31 - 1, 32767, 2**16 - 1), ("int32", "int64", 2**31 - 1, 2**31 - 1, None),
       ("uint32", "uint8", 2**32 - 1, 255, None), ("uint32", "uint16", 2**32 - 1, 65535, None),
       ("uint32", "int16", 2**32 - 1, 32767, 2**16 - 1), ("int64", "int32", 2**31, 2**31 - 1, 2**31)]


@pytest.mark.parametrize("S,D,value,sat,trunc", C15)
def test_c15_exact_and_integer_pairs(S, D, value, sat, trunc):
    mode = RM.UNKNOWN
    assert _one(S, D, value, mode) == sat
    assert _one(S, D, value, mode, trunc=True) == (sat if trunc is None else trunc)


H_MIN, H_MAX, F_MAX = 0xFBFF, 0x7BFF, 0x7F7FFFFF
T34 = [  # SPEC-2 12.3 boundary rows, 950 (RegBV-T34): (S, D, input bits, trunc, sat), CAST_RINT
    ("half", "int8", H_MIN, 32, 2**8 - 128), ("half", "int8", H_MAX, 2**8 - 32, 127),
    ("half", "int8", 0x7C00, 127, 127),
    ("half", "int8", 0xFC00, 128, 128), ("half", "int8", 0x7E00, 0, 0), ("half", "uint8", H_MIN, 32, 0),
    ("half", "uint8", H_MAX, 224, 255), ("half", "uint8", 0x7C00, 255, 255), ("half", "uint8", 0xFC00, 0, 0),
    ("half", "int16", H_MAX, 32767, 32767), ("half", "int16", 0xFC00, 32768, 32768),
    ("bfloat16", "int32", 0xFF7F, 0, 2**31), ("bfloat16", "int32", 0x7F7F, 0, 2**31 - 1),
    ("bfloat16", "int32", 0x7F80, 2**31 - 1, 2**31 - 1), ("bfloat16", "int32", 0x7FC0, 0, 0),
    ("float", "int32", 0xFF7FFFFF, 0, 2**31), ("float", "int32", F_MAX, 0, 2**31 - 1),
    ("float", "int16", 0xFF7FFFFF, 0, 32768), ("float", "int16", F_MAX, 0, 32767),
    ("float", "int16", 0xFF800000, 32768, 32768), ("int32", "int16", 2**31, 0, 32768),
    ("int32", "int16", 2**31 - 1, 2**16 - 1, 32767), ("int64", "int32", 2**63, 0, 2**31),
    ("int64", "int32", 2**63 - 1, 2**32 - 1, 2**31 - 1), ("uint32", "int16", 2**32 - 1, 2**16 - 1, 32767),
    ("int16", "uint32", 0x8000, 0, 0), ("float", "half", F_MAX, 0x7C00, 0x7BFF),
    ("float", "half", 0x7FC00000, 0x7E00, 0),
    ("bfloat16", "half", 0x7F7F, 0x7C00, 0x7BFF), ("bfloat16", "half", 0x7FC0, 0x7E00, 0),
    ("float", "bfloat16", F_MAX, 0x7F80, 0x7F7F), ("float", "bfloat16", 0x7FC00000, 0x7FC0, 0),
    ("half", "bfloat16", 0x7C00, 0x7F80, 0x7F80), ("half", "bfloat16", 0x7E00, 0x7FC0, 0x7FC0)]


@pytest.mark.parametrize("S,D,bits,trunc,sat", T34)
def test_regbv_t34_rows(S, D, bits, trunc, sat):
    mode = RM.UNKNOWN if (S, D) in _EXACT else RM.CAST_RINT
    assert _one(S, D, None, mode, trunc=True, bits=bits) == trunc
    assert _one(S, D, None, mode, trunc=False, bits=bits) == sat


INF, NAN, BF_MAX, FL_MAX = float("inf"), float("nan"), 3.3895313892515355e38, 3.4028234663852886e38
_SPECIAL_ROWS = {  # the float rows of RegBV-T34 per pair: input -> (trunc column, sat column)
    ("float", "int16"): [(0.0, 0, 0), (-FL_MAX, 0, -32768), (FL_MAX, 0, 32767), (INF, 32767, 32767),
                         (-INF, -32768, -32768), (NAN, 0, 0)],
    ("float", "int32"): [(0.0, 0, 0), (-FL_MAX, 0, -2**31), (FL_MAX, 0, 2**31 - 1), (INF, 2**31 - 1, 2**31 - 1),
                         (-INF, -2**31, -2**31), (NAN, 0, 0)],
    ("float", "bfloat16"): [(0.0, 0.0, 0.0), (-FL_MAX, -INF, -BF_MAX), (FL_MAX, INF, BF_MAX), (INF, INF, BF_MAX),
                            (-INF, -INF, -BF_MAX), (NAN, NAN, 0.0)],
    ("float", "half"): [(0.0, 0.0, 0.0), (-FL_MAX, -INF, -65504.0), (FL_MAX, INF, 65504.0), (INF, INF, 65504.0),
                        (-INF, -INF, -65504.0), (NAN, NAN, 0.0)],
    ("half", "int32"): [(0.0, 0, 0), (-65504.0, -65504, -65504), (65504.0, 65504, 65504), (INF, 2**31 - 1, 2**31 - 1),
                        (-INF, -2**31, -2**31), (NAN, 0, 0)],
    ("half", "int16"): [(0.0, 0, 0), (-65504.0, -32768, -32768), (65504.0, 32767, 32767), (INF, 32767, 32767),
                        (-INF, -32768, -32768), (NAN, 0, 0)],
    ("half", "bfloat16"): [(0.0, 0.0, 0.0), (INF, INF, INF), (-INF, -INF, -INF), (NAN, NAN, NAN)],
    ("half", "int8"): [(0.0, 0, 0), (-65504.0, 32, -128), (65504.0, -32, 127), (INF, 127, 127), (-INF, -128, -128),
                       (NAN, 0, 0)],
    ("half", "uint8"): [(0.0, 0, 0), (-65504.0, 32, 0), (65504.0, 224, 255), (INF, 255, 255), (-INF, 0, 0),
                        (NAN, 0, 0)],
    ("half", "float"): [(v, v, v) for v in (0.0, -65504.0, 65504.0, INF, -INF, NAN)],
    ("bfloat16", "int32"): [(0.0, 0, 0), (-BF_MAX, 0, -2**31), (BF_MAX, 0, 2**31 - 1), (INF, 2**31 - 1, 2**31 - 1),
                            (-INF, -2**31, -2**31), (NAN, 0, 0)],
    ("bfloat16", "half"): [(0.0, 0.0, 0.0), (-BF_MAX, -INF, -65504.0), (BF_MAX, INF, 65504.0), (INF, INF, 65504.0),
                           (-INF, -INF, -65504.0), (NAN, NAN, 0.0)],
    ("bfloat16", "float"): [(v, v, v) for v in (0.0, -BF_MAX, BF_MAX, INF, -INF, NAN)]}
_INT_ROWS = {  # the integer rows of RegBV-T34 ("m"/"M": the source type's MIN/MAX) -> (trunc, sat)
    ("int8", "int16"): [("m", -128, -128), ("M", 127, 127)], ("int8", "half"): [("m", -128.0, -128.0),
                                                                                  ("M", 127.0, 127.0)],
    ("int8", "int32"): [("m", -128, -128), ("M", 127, 127)],
    ("uint8", "uint16"): [(0, 0, 0), ("M", 255, 255)], ("uint8", "half"): [(0, 0.0, 0.0), ("M", 255.0, 255.0)],
    ("uint8", "uint32"): [(0, 0, 0), ("M", 255, 255)], ("int16", "uint8"): [(0, 0, 0), ("M", 255, 255)],
    ("int32", "uint8"): [(0, 0, 0), ("M", 255, 255)], ("uint16", "uint8"): [(0, 0, 0), ("M", 255, 255)],
    ("uint32", "uint8"): [(0, 0, 0), ("M", 255, 255)], ("int16", "uint32"): [("m", 0, 0), ("M", 32767, 32767)],
    ("int16", "int32"): [("m", -32768, -32768), ("M", 32767, 32767)],
    ("int16", "float"): [("m", -32768.0, -32768.0), ("M", 32767.0, 32767.0)],
    ("int16", "half"): [("m", -32768.0, -32768.0)],  # MAX "32767" is no half value (D36)
    ("uint16", "uint32"): [(0, 0, 0), ("M", 65535, 65535)], ("uint32", "uint16"): [(0, 0, 0), ("M", 65535, 65535)],
    ("int32", "int16"): [("m", 0, -32768), ("M", -1, 32767)], ("int32", "float"): [("m", -2.0**31, -2.0**31)],
    ("int32", "int64"): [("m", -2**31, -2**31), ("M", 2**31 - 1, 2**31 - 1)],
    ("uint32", "int16"): [(0, 0, 0), ("M", -1, 32767)], ("int64", "int32"): [("m", 0, -2**31), ("M", -1, 2**31 - 1)]}


def _t34_all():
    rows = []
    for (S, D), cases in list(_SPECIAL_ROWS.items()) + list(_INT_ROWS.items()):
        for value, trunc, sat in cases:
            if isinstance(value, str):
                info = np.iinfo(aj.dtypes.resolve(S).np_dtype)
                value = int(info.min if value == "m" else info.max)
            rows.append((S, D, value, trunc, sat))
    return rows


def _pattern(dtype, value):
    d = aj.dtypes.resolve(dtype)
    return _bits(dtype, value) if d.is_float else value % 2 ** (8 * d.size)


@pytest.mark.parametrize("S,D,value,trunc,sat", _t34_all(), ids=str)
def test_every_in_scope_row_of_regbv_t34(S, D, value, trunc, sat):
    """SPEC-2 12.0 / 12.3: every RegBV-T34 row of an in-scope Reg Cast pair (SPEC-2 11.5) but D36's; "trunc" is
    CTRL[59]=1 with INF/NaN half mode, "sat" the default saturating conversion (12.0). CAST_RINT on lossy pairs."""
    mode = RM.UNKNOWN if (S, D) in _EXACT else RM.CAST_RINT
    bits = _pattern(S, value)
    assert _one(S, D, None, mode, trunc=True, bits=bits) == _pattern(D, trunc)
    assert _one(S, D, None, mode, trunc=False, bits=bits) == _pattern(D, sat)


def test_h7_mask_by_source_lanes_and_layout_one():
    odd_halves = R.MaskReg([int("1100" * 16, 2)] * 4)  # half lanes 1, 3, 5, ... active
    raw = np.arange(1, 129, dtype=np.float16).tobytes()
    zero = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, RM.UNKNOWN)
    assert (_cast("half", "float", raw, zero, odd_halves) == 0).all()  # H-7: source lanes 2j inactive
    one = zero._replace(layoutMode=R.RegLayout.ONE)
    got = _cast("half", "float", raw, one, odd_halves).view(np.float32)
    assert got.tolist() == [float(2 * j + 2) for j in range(64)]
    narrow = R.CastTrait(R.RegLayout.ONE, R.SatMode.SAT, R.MaskMergeMode.ZEROING, RM.CAST_RINT)
    got = _cast("float", "half", np.arange(64, dtype=np.float32).tobytes(), narrow).view(np.float16)
    assert got[1::2].tolist() == list(range(64)) and (got[0::2] == 0).all()  # D65: other narrow lanes 0


def test_ctrl60_trait_decides():
    raw = np.float16([300.0]).tobytes()
    for sat_mode, want in ((R.SatMode.SAT, 127), (R.SatMode.NO_SAT, 44)):  # 300 = 0x12C -> low byte 0x2C
        trait = R.CastTrait(R.RegLayout.ZERO, sat_mode, R.MaskMergeMode.ZEROING, RM.CAST_RINT)
        assert int(_cast("half", "int8", raw, trait, core=_core(trait_decides=True))[0]) == want
        assert int(_cast("half", "int8", raw, trait, core=_core())[0]) == 127  # CTRL[60]=1: CTRL[59]=0 saturates


@pytest.mark.parametrize("trait,error", [
    (R.CastTrait(R.RegLayout.TWO, R.SatMode.SAT, R.MaskMergeMode.ZEROING, RM.CAST_RINT), "layoutMode"),
    (R.CastTrait(R.RegLayout.ZERO, R.SatMode.SAT, R.MaskMergeMode.MERGING, RM.CAST_RINT), "mrgMode"),
    (R.CastTrait(R.RegLayout.ZERO, R.SatMode.SAT, R.MaskMergeMode.ZEROING, RM.CAST_NONE), "roundMode"),
    (R.CastTrait(R.RegLayout.ZERO, R.SatMode.SAT, R.MaskMergeMode.ZEROING, RM.CAST_ODD), "roundMode")])
def test_trait_refusals_leave_ub(trait, error):
    for compiled in (True, False):
        core = _core()
        src, out = core.local_tensor("half", 128), core.local_tensor("int8", 256)
        src[:] = 1.5
        out[:] = 7
        before = core.ub.copy()
        with core, pytest.raises(aj.ParameterError, match=error):
            (CAST if compiled else CAST.py_func)(out, src, "half", "int8", R.CreateMask("half"), trait)
        assert np.array_equal(before, core.ub)


@pytest.mark.parametrize("src,dst,field,layout,sat", [
    ("int32", "float", "layoutMode", R.RegLayout.ZERO, R.SatMode.UNKNOWN),
    ("int32", "float", "satMode", R.RegLayout.UNKNOWN, R.SatMode.SAT),
    ("half", "int32", "satMode", R.RegLayout.ZERO, R.SatMode.NO_SAT),
    ("float", "int32", "layoutMode", R.RegLayout.ZERO, R.SatMode.SAT)])
def test_a_field_the_pair_ignores_stays_refused_saying_so(src, dst, field, layout, sat):
    """port57d: ops-nn's arch35 kernels cast int32 -> float with {ZERO, SAT} and the devkit's digamma with {ZERO,
    NO_SAT}; the devkit's Cast of a pair whose table row lists only UNKNOWN for a field never reads that field. SPEC-2
    11.5 refuses any other value; the refusal now says the field is not read, so UNKNOWN computes the same bits,
    compiled and plain alike."""
    trait = R.CastTrait(layout, sat, R.MaskMergeMode.ZEROING, RM.CAST_RINT)
    core = _core()
    lanes = 256 // aj.dtypes.resolve(src).size
    x, out = core.local_tensor(src, lanes), core.local_tensor(dst, 256 // aj.dtypes.resolve(dst).size)
    x[:] = np.arange(lanes)
    for compiled in (True, False):
        with core, pytest.raises(aj.ParameterError, match=rf"trait.{field}.*{src} -> {dst} row.*reads no {field}"):
            (CAST if compiled else CAST.py_func)(out, x, src, dst, R.CreateMask(src), trait)


def test_unsupported_pair_and_device():
    core = _core()
    with core, pytest.raises(aj.UnsupportedDTypeError, match="Cast"):
        R.Cast(R.RegTensor("int8"), R.RegTensor("float"), R.CreateMask("float"))
    with aj.Core("atlas-a2"), pytest.raises(aj.UnsupportedDeviceError):
        R.Cast(R.RegTensor("float"), R.RegTensor("half"), R.CreateMask("half"))
    assert R.RoundMode is aj.RoundMode  # D27


def _cases():
    out = []
    for s, d in reg_cast.PAIRS:
        layouts, sats, rounds = (int(v) for v in reg_cast.TRAITS[s, d])
        for layout in range(5):
            if layouts >> layout & 1:
                for rnd in range(9):
                    if rounds >> rnd & 1:
                        out.append((NAMES[s], NAMES[d], layout, rnd, [m for m in range(3) if sats >> m & 1]))
    return out


CASES = _cases()
SPECIAL_BITS = {"half": [0x7C00, 0xFC00, 0x7E00, 0x8000, 0x7BFF, 0xFBFF, 0x0001, 0x3C00, 0x5BFF],
                "bfloat16": [0x7F80, 0xFF80, 0x7FC0, 0x8000, 0x7F7F, 0x0001, 0x4F00, 0xCF00],
                "float": [0x7F800000, 0xFF800000, 0x7FC00000, 0x80000000, 0x7F7FFFFF, 0x00000001, 0x477FF000,
                          0x4F000000, 0xDF000000, 0x33800001]}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(CASES), st.integers(0, 2**32 - 1), st.lists(st.integers(0, 2**64 - 1), min_size=4,
       max_size=4), st.booleans(), st.booleans(), st.booleans(), st.integers(0, 2), st.booleans())
def test_cast_matches_reference(case, seed, words, trunc, sat_half, trait_decides, sat_pick, compiled):
    S, D, layout, rnd, sats = case
    sat_mode = sats[sat_pick % len(sats)]
    rng = np.random.default_rng(seed)
    s = aj.dtypes.resolve(S)
    raw = rng.integers(0, 256, 256, dtype=np.uint8)
    if S in SPECIAL_BITS:
        view = raw.view(UINT[s.size])
        picks = rng.integers(0, view.size, view.size // 4)
        view[picks] = rng.choice(np.array(SPECIAL_BITS[S], view.dtype), picks.size)
    elif rng.random() < 0.5:  # small integers: exercise rounding ties of int -> half
        raw.view(s.np_dtype)[:] = rng.integers(-3000, 3000, 256 // s.size).astype(s.np_dtype)
    mask = R.MaskReg(words)
    trait = R.CastTrait(R.RegLayout(layout), R.SatMode(sat_mode), R.MaskMergeMode.ZEROING, RM(rnd))
    core = _core(trunc, sat_half, trait_decides)
    got = _cast(S, D, raw.tobytes(), trait, mask, core, compiled)
    if trait_decides and sat_mode != 0:
        sat_int = sat_float = sat_mode == 1
    else:
        sat_int, sat_float = not trunc, sat_half
    values = [float(v) if s.is_float else int(v) for v in raw.view(s.np_dtype)]
    active = [bool(R.jit_lane_on(mask.words, j * s.size)) for j in range(len(values))]
    lanes = ref.cast_lanes(S, D, values, active, max(layout - 1, 0), RM(rnd).name, sat_int, sat_float)
    want = b"".join(rnum.encode(D, v) if v is not None else bytes(aj.dtypes.resolve(D).size) for v in lanes)
    assert got.tobytes() == want


def _float_edges(rng):
    """Float32 bit patterns at float -> half's edges: every exponent from below half's subnormals to past its range,
    with the mantissas of the ties (a half ulp, at every subnormal and normal scale), their neighbours, random ones;
    +-0, +-inf, quiet and signalling NaNs of both signs."""
    out = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFBFFFFF]
    for e in range(96, 160):  # 2**-31 .. 2**32: half's subnormals start at 2**-24, its overflow at 65520
        for shift in range(0, 24):
            tie = 1 << shift
            out += [(e << 23) | m for m in (tie, tie - 1, tie + 1, 3 * tie & 0x7FFFFF)]
        out += [(e << 23) | int(m) for m in rng.integers(0, 1 << 23, 16)]
    bits = np.array(out, np.uint32)
    return np.concatenate([bits, bits | np.uint32(0x80000000)])


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("sat_half, trait_decides, sat_mode", [
    (True, False, R.SatMode.SAT), (False, False, R.SatMode.SAT), (False, True, R.SatMode.SAT),
    (True, True, R.SatMode.NO_SAT)])
def test_float_to_half_rint_takes_the_vector_lane_with_convert_bits_bits(compiled, sat_half, trait_decides, sat_mode):
    """The float -> half RINT Reg Cast (reg_cast.cast_narrow, the hardware conversion) against the
    shared conversion routine lane by lane, over float -> half's edges, in both layouts, with a partial mask (its
    inactive lanes 0), in every saturation setting (the global CTRL[48], or the trait's satMode with CTRL[60] = 0)."""
    from ascend_jit.jit.convert import convert_bits
    from ascend_jit.jit.numerics import KIND_FLOAT, KIND_HALF
    bits = _float_edges(np.random.default_rng(11))
    sat = (sat_mode == R.SatMode.SAT) if trait_decides else sat_half
    want_all = np.array([convert_bits(KIND_FLOAT, KIND_HALF, reg_cast.RINT, False, sat, np.uint64(b)) for b in bits],
                        np.uint16)
    core = _core(sat_half=sat_half, trait_decides=trait_decides)
    mask_lanes = 61
    for start in range(0, len(bits), 64):
        chunk = np.zeros(64, np.uint32)
        n = min(64, len(bits) - start)
        chunk[:n] = bits[start:start + n]
        for layout in (R.RegLayout.ZERO, R.RegLayout.ONE):
            with core:
                mask = R.UpdateMask("float", mask_lanes)[0]
            trait = R.CastTrait(layout, sat_mode, R.MaskMergeMode.ZEROING, RM.CAST_RINT)
            got = _cast("float", "half", chunk.tobytes(), trait, mask=mask, core=core, compiled=compiled)
            want = np.zeros(128, np.uint16)
            k = 0 if layout == R.RegLayout.ZERO else 1
            lanes = np.arange(mask_lanes)
            want[2 * lanes + k] = np.array([convert_bits(KIND_FLOAT, KIND_HALF, reg_cast.RINT, False, sat,
                                                         np.uint64(b)) for b in chunk[:mask_lanes]], np.uint16)
            assert np.array_equal(got, want), (start, layout)
    assert want_all.size == bits.size


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("trunc", [False, True])
def test_float_int32_casts_take_typed_lanes_with_convert_bits_bits(compiled, trunc):
    """The float <-> int32 Reg Casts (reg_cast.cast_to_int32 / cast_int32_to_float: typed loops since port65j,
    where every lane had walked its bits) against the shared conversion routine lane by lane: every round mode over
    float -> half's edges (ties at every scale) and magnitudes past int32 and int64 (the exact integer's low bits
    when CTRL[59] truncates, else the extremes), NaN, +-inf, a partial mask (its inactive lanes 0); int32 -> float
    RINT over the int32 range's edges."""
    from ascend_jit.jit.convert import convert_bits
    from ascend_jit.jit.numerics import KIND_FLOAT, KIND_INT32
    rng = np.random.default_rng(65)
    big = np.array([(e << 23) | int(m) for e in range(150, 200) for m in rng.integers(0, 1 << 23, 4)], np.uint32)
    bits = np.concatenate([_float_edges(rng), big, big | np.uint32(0x80000000)])
    core = _core(trunc_int=trunc)
    mask_lanes = 61
    for mode in MODES5:
        for start in range(0, len(bits), 64 * 7):   # every seventh chunk of 64: the file's time, every kind of lane
            chunk = np.zeros(64, np.uint32)
            n = min(64, len(bits) - start)
            chunk[:n] = bits[start:start + n]
            with core:
                mask = R.UpdateMask("float", mask_lanes)[0]
            trait = R.CastTrait(R.RegLayout.UNKNOWN, R.SatMode.SAT, R.MaskMergeMode.ZEROING, mode)
            got = _cast("float", "int32", chunk.tobytes(), trait, mask=mask, core=core, compiled=compiled)
            want = np.zeros(64, np.uint32)
            want[:mask_lanes] = [convert_bits(KIND_FLOAT, KIND_INT32, int(mode), trunc, False, np.uint64(b))
                                 for b in chunk[:mask_lanes]]
            assert np.array_equal(got, want), (mode, start)
    ints = np.concatenate([np.array([0, 1, -1, 2**31 - 1, -2**31, 2**24 + 1, -(2**24 + 1), 2**25 + 3], np.int64),
                           rng.integers(-2**31, 2**31, 56)]).astype(np.int32)
    trait = R.CastTrait(R.RegLayout.UNKNOWN, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, RM.CAST_RINT)
    got = _cast("int32", "float", ints.tobytes(), trait, core=core, compiled=compiled)
    want = [convert_bits(KIND_INT32, KIND_FLOAT, int(RM.CAST_RINT), False, False, np.uint64(int(v) & 0xFFFFFFFF))
            for v in ints]
    assert np.array_equal(got, np.array(want, np.uint32))


@pytest.mark.parametrize("src, dst, mode, says", [
    ("uint8", "half", aj.RoundMode.CAST_NONE, "an exact conversion, which rounds nothing"),
    ("int8", "half", aj.RoundMode.CAST_RINT, "an exact conversion, which rounds nothing"),
    ("half", "int8", aj.RoundMode.CAST_NONE, "CAST_NONE is not a Reg round mode: name the rounding, e.g. CAST_RINT"),
    ("half", "int8", aj.RoundMode.CAST_ODD, "the half -> int8 row of DK Cast.md tables 6-9 (SPEC-2 11.5)) on")])
def test_a_refused_round_mode_says_why_for_the_pair(src, dst, mode, says):
    """port53d: ops-cv PasteSubImg writes CAST_NONE into its u8 -> half trait (the devkit's code reads no round mode
    for an exact widening); SPEC-2 11.5 asks for UNKNOWN there and refuses CAST_NONE everywhere."""
    trait = aj.Reg.CastTrait(aj.Reg.RegLayout.ZERO, aj.Reg.SatMode.UNKNOWN if dst == "half" else aj.Reg.SatMode.SAT,
                             aj.Reg.MaskMergeMode.ZEROING, mode)
    with aj.Core("ascend950"):
        source, target = aj.Reg.RegTensor(src), aj.Reg.RegTensor(dst)
        with pytest.raises(aj.ParameterError, match=re.escape(says)) as raised:
            aj.Reg.Cast(target, source, aj.Reg.CreateMask("half"), trait)
    assert f"the {src} -> {dst} row" in str(raised.value)
