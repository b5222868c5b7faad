"""SPEC-2 14 scopes out Reg Truncate, Reg Compare (and Compares) and Reg And/Or/Xor/Not on RegTensors: the first two
are absent from aj.Reg, the bitwise four refuse a data register with a ParameterError in plain Python and in a
compiled VF (nothing written), and their MaskReg forms (SPEC-2 11.7, D64) keep working."""
import warnings

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.api.registry import REG_INSTRUCTIONS
from ascend_jit.reference import reg as ref

R = aj.Reg
D950 = "ascend950"
BITWISE = ("And", "Or", "Xor", "Not")


@pytest.mark.parametrize("name", ["Truncate", "Compare", "Compares"])
def test_truncate_and_compare_are_not_in_the_reg_api(name):
    assert not hasattr(R, name)
    assert f"Reg.{name}" not in {i.name for i in REG_INSTRUCTIONS}
    assert (f"Reg.{name}", D950) not in aj.FIDELITY
    with pytest.raises(aj.ParameterError, match="no instruction of this name"):   # SPEC-2 14: nowhere
        aj.fidelity(f"Reg.{name}", D950, "half")


@R.simd_vf
def _select_by_memory_compare_repeat(dst, src, bits, zero_bits, repeat, k, T):
    """The refusal's recipe for repeat `repeat` of a k-byte type T: the 32 bytes holding k repeats' bits, then
    MaskUnPack by the repeat's place among them (k = 4: twice); `zero_bits` gets the mask as a MaskReg store leaves
    it."""
    x, zero, out = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    mask = R.MaskReg()
    R.LoadAlign(mask, bits, (repeat // k) * 32)
    if k == 4:
        R.MaskUnPack(mask, mask, R.HighLowPart.HIGHEST if repeat % 4 >= 2 else R.HighLowPart.LOWEST)
    R.MaskUnPack(mask, mask, R.HighLowPart.HIGHEST if repeat % 2 else R.HighLowPart.LOWEST)
    R.LoadAlign(x, src, repeat * (256 // k))
    R.Duplicate(zero, 0)
    R.Select(out, x, zero, mask)
    R.StoreAlign(dst, out, R.CreateMask(T), repeat * (256 // k))
    R.StoreAlign(zero_bits, mask, 32 * repeat)


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("dtype", ["float", "half"])
def test_the_reg_compare_refusal_names_a_recipe_that_works(compiled, dtype):
    """Reg.Compare / CompareScalar's refusal says what to write instead: a Memory-API compare before the VF, its
    bits loaded into a MaskReg inside (session 51: it had said "build lanes with Max/Min and Select", which gives no
    mask). Session 56: for float, "MaskUnPack once more" failed at repeat 1 (AlignmentError). Session 57 (port57c,
    cann-samples reg_data_movement scene9, whose device check reads a b32 Reg Compares mask as 0x11111111): the
    DIST_US recipe gave the right lanes but two bits a lane (0x55555555); the refusal's recipe now leaves one bit at
    each lane's first byte, as the device does. Run: Select by x > 0 over four repeats, the masks stored too."""
    for name in ("Compare", "CompareScalar"):
        with pytest.raises(aj.NotOfferedError, match=r"Compare/Compares/CompareScalar before the VF.*"
                                                      r"LoadAlign\(mask, bits, \(i // k\) \* 32\).*for k = 4 twice"):
            getattr(R, name)
    k = 4 if dtype == "float" else 2
    n = 4 * 256 // k
    npt = np.float32 if dtype == "float" else np.float16
    x = np.random.default_rng(56).standard_normal(n).astype(npt)
    core = aj.Core(D950)
    with core:
        src, dst, bits, masks = (core.local_tensor(dtype, n), core.local_tensor(dtype, n),
                                 core.local_tensor("uint8", n // 8), core.local_tensor("uint8", 4 * 32))
        src[:] = x
        bits[:] = np.zeros(n // 8, np.uint8)
        aj.CompareScalar(bits, src, npt(0.0), aj.CMPMODE.GT, n)
        vf = _select_by_memory_compare_repeat if compiled else _select_by_memory_compare_repeat.py_func
        for repeat in range(4):
            vf(dst, src, bits, masks, repeat, k, dtype)
        assert np.array_equal(dst.numpy(), np.where(x > 0, x, npt(0)))
    lane_bits = np.unpackbits(masks.numpy(), bitorder="little").reshape(4, 256)
    want = np.zeros((4, 256), np.uint8)
    want[:, ::k] = (x > 0).reshape(4, 256 // k)
    assert np.array_equal(lane_bits, want)


def _and(d, a, b, m):
    R.And(d, a, b, m)


def _or(d, a, b, m):
    R.Or(d, a, b, m)


def _xor(d, a, b, m):
    R.Xor(d, a, b, m)


def _not(d, a, b, m):  # (b unused: one signature for the four)
    R.Not(d, a, m)


PLAIN = dict(zip(BITWISE, (_and, _or, _xor, _not)))
COMPILED = {name: R.simd_vf(fn) for name, fn in PLAIN.items()}


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("name", BITWISE)
def test_bitwise_on_data_registers_is_refused(name, compiled):
    run = (COMPILED if compiled else PLAIN)[name]
    core = aj.Core(D950)
    with core:
        reg, other, m = R.RegTensor("int16"), R.RegTensor("int16"), R.CreateMask("int16")
        R.Duplicate(reg, 7)
        R.Duplicate(other, 9)
        dst_mask = R.MaskReg((1, 2, 3, 4))
        before, words = (reg.data.copy(), other.data.copy()), dst_mask.words
        for dst, param in ((other, "dst"), (dst_mask, "src")):
            with pytest.raises(aj.ParameterError, match=f"{name}.*{param}.*not offered.*SPEC-2 14"):
                run(dst, reg, reg, m)
    assert np.array_equal(reg.data, before[0]) and np.array_equal(other.data, before[1])
    assert dst_mask.words == words


def _words(bits):
    return tuple(np.uint64((bits >> (64 * i)) & (2**64 - 1)) for i in range(4))


@pytest.mark.parametrize("compiled", [False, True])
def test_the_mask_forms_still_work(compiled):
    rng = np.random.default_rng(14)
    a, b, m = (int.from_bytes(rng.bytes(32), "little") for _ in range(3))
    core = aj.Core(D950)
    for name in BITWISE:
        d = R.MaskReg(_words(2**256 - 1))
        with core:
            (COMPILED if compiled else PLAIN)[name](d, R.MaskReg(_words(a)), R.MaskReg(_words(b)), R.MaskReg(_words(m)))
        assert d.bits() == ref.mask_logic(name.lower(), a, b, m), name


@pytest.mark.parametrize("name", ["Compare", "CompareScalar", "CreateAddrReg", "RegTraitNumOne", "RegTraitNumTwo",
                                  "Gather", "UnalignReg", "Histograms", "Mull", "Truncate"])
def test_devkit_names_not_offered_say_why(name):
    """reg38: names ops-nn / ops-math arch35 kernels use that aj.Reg does not offer (SPEC-2 14) are a
    NotOfferedError naming the API, the name and what to use instead (an AttributeError too: hasattr stays False);
    any other missing name is a plain AttributeError."""
    assert not hasattr(R, name)
    with pytest.raises(aj.NotOfferedError, match=rf"Reg\.{name}: parameter 'name' = '{name}' \(legal: .*\) on "
                       "device ascend950"):
        getattr(R, name)
    with pytest.raises(AttributeError) as info:
        R.NoSuchName
    assert not isinstance(info.value, aj.AscendJitError)


@pytest.mark.parametrize("api, call", [("Pack", lambda m, r: R.Pack(m, r)), ("UnPack", lambda m, r: R.UnPack(m, r)),
                                       ("Interleave", lambda m, r: R.Interleave(m, m, r, r, "uint16")),
                                       ("DeInterleave", lambda m, r: R.DeInterleave(r, r, m, m, "uint16"))])
def test_data_register_relayouts_are_refused_naming_the_store_that_does_it(api, call):
    """reg38 (devkit data_relayout.asc): Pack / UnPack / Interleave / DeInterleave of data registers are not
    offered; the refusal says so and names the load or store that moves the lanes, in a compiled VF too (port57f:
    compiled Pack / UnPack had said only "an aj.Reg.MaskReg")."""
    words = f"{api} of data registers is not offered .SPEC-2 11.7 has it on MaskRegs only, 14.; a DIST_"
    with aj.Core(D950) as core:
        with pytest.raises(aj.ParameterError, match=words):
            call(R.MaskReg(), R.RegTensor("uint16"))
        t = core.local_tensor("uint16", 128)
        t[:] = np.zeros(128, np.uint16)
        with pytest.raises(aj.ParameterError, match=words), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", aj.UncompiledVFWarning)
            _relayout_vf(t, RELAYOUTS.index(api))
        assert not caught, [str(w.message) for w in caught]   # refused by the compiled VF, not a plain run


RELAYOUTS = ("Pack", "UnPack", "Interleave", "DeInterleave")


@R.simd_vf
def _relayout_vf(t, which):
    r, m = R.RegTensor("uint16"), R.MaskReg()
    R.LoadAlign(r, t, 0)
    if which == 0:
        R.Pack(m, r)
    elif which == 1:
        R.UnPack(m, r)
    elif which == 2:
        R.Interleave(m, m, r, r, "uint16")
    else:
        R.DeInterleave(r, r, m, m, "uint16")



def test_the_data_register_unpack_refusal_names_a_recipe_that_works():
    """Session 56 (port56a): UnPack's refusal had said "a DIST_UNPACK_B16 LoadAlign moves the lanes so", and that
    load into the uint32 destination is refused in turn (the distribution's lane width is 2 bytes). The recipe it
    names now, run: the half UnPack takes, loaded DIST_UNPACK_B16 into a uint16 register, then Cast to uint32 with
    RegLayout.ZERO, is UnPack<uint32_t, uint16_t> LOWEST / HIGHEST of the register loaded whole."""
    with aj.Core(D950) as core:
        with pytest.raises(aj.ParameterError, match="DIST_UNPACK_B8/B16 LoadAlign of the half UnPack takes .*"
                                                    "register of the narrow type.*RegLayout.ZERO"):
            R.UnPack(R.RegTensor("uint32"), R.RegTensor("uint16"))
        values = np.random.default_rng(56).integers(0, 2 ** 16, 128).astype(np.uint16)
        src, dst = core.local_tensor("uint16", 128), core.local_tensor("uint32", 64)
        src[:] = values
        narrow, wide = R.RegTensor("uint16"), R.RegTensor("uint32")
        widen = R.CastTrait(R.RegLayout.ZERO, R.SatMode.UNKNOWN, R.MaskMergeMode.ZEROING, aj.RoundMode.UNKNOWN)
        for half in (0, 1):   # LOWEST: elements 0-63, HIGHEST: 64-127
            R.LoadAlign(narrow, src, 64 * half, dist=R.LoadDist.DIST_UNPACK_B16)
            R.Cast(wide, narrow, R.CreateMask("uint16"), widen)
            R.StoreAlign(dst, wide, R.CreateMask("uint32"))
            assert np.array_equal(dst.numpy(), values[64 * half:64 * half + 64].astype(np.uint32))


@pytest.mark.parametrize("trait", ["RegTraitNumOne", "RegTraitNumTwo", 1])
def test_a_register_trait_given_as_an_argument_is_a_parameter_error(trait):
    """`RegTensor<T, RegTraitNumOne>` ported as RegTensor("float", "RegTraitNumOne") raised Python's TypeError
    (session 51's ports): it names the trait, the default it is, and RegTraitNumTwo's absence."""
    with pytest.raises(aj.ParameterError, match=r"RegTensor: parameter 'trait' .*RegTraitNumOne: RegTensor\(dtype\) "
                                                r"is the one-register tensor.*RegTraitNumTwo: .* not offered"):
        R.RegTensor("float", trait)


def test_a_distribution_given_positionally_is_named_as_its_keyword():
    """A port of `LoadAlign<T, dist>(reg, src, offset)` passing dist after the offset was told only the forms;
    it is told the keyword (dist=...). Nothing is written."""
    core = aj.Core(D950)
    with core:
        t, r = core.local_tensor("float", 64), R.RegTensor("float")
        before = core.ub.copy()
        with pytest.raises(aj.ParameterError, match=r"dist=LoadDist\.DIST_NORM\)"):
            R.LoadAlign(r, t, 0, R.LoadDist.DIST_NORM)
        with pytest.raises(aj.ParameterError, match=r"dist=StoreDist\.DIST_NORM_B32\)"):
            R.StoreAlign(t, r, R.CreateMask("float"), 0, R.StoreDist.DIST_NORM_B32)
        with pytest.raises(aj.ParameterError) as info:
            R.LoadAlign(r, t, 0, 5)
        assert "dist=" not in str(info.value)
        assert np.array_equal(core.ub, before)


@R.simd_vf
def _store_offset_first(dst, src):
    r = R.RegTensor("float")
    R.LoadAlign(r, src, 0)
    R.StoreAlign(dst, r, 64, R.CreateMask("float"))


def test_refusals_a_port_of_arch35_sources_met_say_what_to_write():
    """port57a: `StoreAlign(dst, reg, offset, mask)` in LoadAlign(reg, src, offset)'s order is refused saying the mask
    comes first (compiled too); RegTraitNumTwo's says the one-register int64 has 32 lanes, so a loop stepped by the
    source's two-register width copies half (it had named no alternative); the algorithm modes' refusal says the
    default flushes subnormals (it had said "take no mode", and a float Exp(-100) reads 0); a Div precisionMode
    refused for half names the value True, not 1."""
    with aj.Core(D950) as core:
        t = core.local_tensor("float", 128)
        t[:] = np.zeros(128, np.float32)
        order = r"StoreAlign: parameter 'mask' = 'int' \(legal: .*mask, offset\) takes the mask before the offset"
        with pytest.raises(aj.ParameterError, match=order):
            _store_offset_first.py_func(t, t)
        with pytest.raises(aj.ParameterError, match=order):
            _store_offset_first(t, t)
        with pytest.raises(aj.NotOfferedError, match=r"RegTensor\('int64'\) is the one-register form, 32 lanes"):
            R.RegTraitNumTwo
        with pytest.raises(aj.NotOfferedError, match=r"StoreAlign\(dst, reg, mask, offset\) with the offset after"):
            R.CreateAddrReg   # port57d: C++ StoreAlign(dstAddr, srcReg, addrReg, mask) put the offset first
        h = R.RegTensor("half")
        with pytest.raises(aj.ParameterError, match="'mode.precisionMode' = 'True'"):
            R.Div(h, h, h, R.CreateMask("half"), R.DivSpecificMode(R.MaskMergeMode.ZEROING, True))


def _pack_a_pair(x):
    R.Pack(R.MaskReg(), R.UpdateMask("uint16", 5))


def test_an_update_mask_pair_given_to_pack_is_refused_in_one_set_of_words():
    """Review 57: the compiled refusal of Pack's operand had kept only the data-register recipe of plain Python's
    words; an UpdateMask (mask, count) pair got "an aj.Reg.MaskReg" compiled and the unpacking advice plain."""
    with aj.Core(D950) as core:
        x = core.local_tensor("uint16", 128)
        for run in (_pack_a_pair, R.simd_vf(_pack_a_pair)):
            with pytest.raises(aj.ParameterError, match=r"Pack: parameter 'src' = 'tuple' .*not UpdateMask's "
                                                        r"\(mask, count left\) pair: unpack it"):
                run(x)
