"""Traceability of the contract: statements of SPEC (D1-D26) and SPEC-2 (0.2 D27-D75, the 0.3 fidelity table,
section 13's settlements, section 14's out-of-scope rows) that no other test pinned down, each checked against the
public API. Cheap by construction: metadata, refusals and one-repeat calls on families the suite compiles anyway."""
import re
from pathlib import Path

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.api.registry import INSTRUCTIONS
from ascend_jit.devices import get_device

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
D950, A3, A2, B310, P310, T910 = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore",
                                  "atlas-training")
ALL = (D950, A3, A2, B310, P310, T910)
BIT, MOD = aj.Fidelity.BIT_EXACT, aj.Fidelity.MODELLED
R = aj.Reg


# --- the contract ships, and every citation of it resolves ----------------------------------------------------------
def _headings(name):
    return {m.group(1) for m in re.finditer(r"^#+ (\d+(?:\.\d+)*)\.?\s", (DOCS / name).read_text("utf-8"), re.M)}


def test_docs_ship_every_decision_of_the_contract():
    """SPEC.md holds D1-D26 and SPEC-2.md D27-D75 (one table row each), and the SPEC-2 sections 0.3, 12.9, 13, 14."""
    for name, numbers in (("SPEC.md", range(1, 27)), ("SPEC-2.md", range(27, 76))):
        rows = re.findall(r"^\| (D\d+) \|", (DOCS / name).read_text("utf-8"), re.M)
        assert rows == [f"D{n}" for n in numbers], name
    assert {"0.3", "0.4", "12.9", "13", "14"} <= _headings("SPEC-2.md")


# "SPEC 4.4", "SPEC §2.5", "SPEC-2 section 9.1", "SPEC D14", "SPEC-2 D62", and lists continuing one ("SPEC 1.2, D10"):
# a section must be a heading of that file, a decision must belong to that file (D1-D26 SPEC, D27-D75 SPEC-2)
_CITE = re.compile(r"SPEC(-2)?(?:\.md)?\s*((?:(?:§\s*|section\s+)?(?:D\d+|\d+(?:\.\d+)*)(?:\s*(?:,|/|and)\s*)?)+)")
_REF = re.compile(r"(?:§\s*|section\s+)?(D\d+|\d+(?:\.\d+)*)")


def _citations():
    skip = {"SPEC.md", "SPEC-2.md", "SPEC-audit.md"}
    paths = [p for p in (ROOT / "ascend_jit").rglob("*.py")] + [p for p in (ROOT / "tests").glob("*.py")]
    paths += [p for p in (ROOT / "kernels").rglob("*.py")] + [p for p in ROOT.glob("*.md")]
    paths += [p for p in DOCS.glob("*.md") if p.name not in skip]
    for path in paths:
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            for match in _CITE.finditer(line):
                for ref in _REF.findall(match.group(2)):
                    yield f"{path.relative_to(ROOT)}:{number}", bool(match.group(1)), ref


def test_every_spec_citation_in_code_and_docs_resolves():
    spec1, spec2 = _headings("SPEC.md"), _headings("SPEC-2.md")
    broken, cited = [], 0
    for where, two, ref in _citations():
        cited += 1
        if ref.startswith("D"):
            ok = 27 <= int(ref[1:]) <= 75 if two else 1 <= int(ref[1:]) <= 26
        else:
            ok = ref in (spec2 if two else spec1)
        if not ok:
            broken.append(f"{where}: SPEC{'-2' if two else ''} {ref}")
    assert cited > 500 and not broken, "\n".join(broken)


# --- SPEC-2 0.3 (with 1.9's availability): aj.FIDELITY holds exactly the table ---------------------------------------
NOT910, NO310B = (D950, A3, A2, B310, P310), (D950, A3, A2, P310, T910)
# api -> (devices offering it, default level: one for all, or {device: level} with MODELLED for the others)
TABLE_0_3 = {
    **{api: (ALL, BIT) for api in ("Add", "Sub", "Max", "Min", "Adds", "Abs", "Relu", "And", "Or", "Duplicate", "Mul",
                                   "Muls", "Cast", "Compare", "Select", "ReduceRepeat", "ReduceDataBlock",
                                   "WholeReduceSum", "WholeReduceMax", "WholeReduceMin", "BlockReduceSum",
                                   "BlockReduceMax", "BlockReduceMin", "ReduceMax", "ReduceMin", "PipeBarrier")},
    **{api: (NOT910, BIT) for api in ("Maxs", "Mins", "LeakyRelu", "AddRelu", "SubRelu", "Gather", "GatherMask",
                                      "Compares")},
    "Brcb": ((D950, A3, A2, P310), BIT),
    "DataCopyPad": ((D950, A3, A2, B310), BIT),
    "RepeatReduceSum": (NO310B, BIT),
    "GetReduceRepeatMaxMinSpr": ((A3, A2, P310), BIT),
    "SetFlag": (NO310B, BIT), "WaitFlag": (NO310B, BIT),
    **{api: (ALL, MOD) for api in ("Div", "Exp", "Ln", "Reciprocal", "Sqrt", "Rsqrt")},
    "Axpy": (ALL, {D950: BIT}),
    "MulAddDst": (NOT910, {D950: BIT}), "FusedMulAdd": (NOT910, {D950: BIT}),
}


@pytest.mark.parametrize("api", sorted(TABLE_0_3))
def test_fidelity_rows_present_per_device_with_the_table_default(api):
    devices, level = TABLE_0_3[api]
    for device in ALL:
        rule = aj.FIDELITY.get((api, device))
        if device not in devices:
            assert rule is None, (api, device)      # "An API absent on a device has no entry" (0.3)
            continue
        want = level.get(device, MOD) if isinstance(level, dict) else level
        assert rule is not None and rule.default is want, (api, device, rule)


# (api, device, dtype, config) -> level: the conditions of 0.3's cells
CONDITIONS = [
    ("Div", D950, "float", "DIFF_COMPENSATION", BIT), ("Div", D950, "float", "PRECISION_0ULP_FTZ_TRUE", BIT),
    ("Div", D950, "float", "PRECISION_0ULP_FTZ_FALSE", BIT), ("Div", D950, "float", "INTRINSIC", MOD),
    ("Div", D950, "float", "PRECISION_1ULP_FTZ_TRUE", MOD), ("Div", D950, "float", "PRECISION_1ULP_FTZ_FALSE", MOD),
    ("Div", D950, "half", "DIFF_COMPENSATION", MOD), ("Div", D950, "int32", None, MOD), ("Div", A2, "float", None, MOD),
    ("Sqrt", D950, "float", "FAST_INVERSE", BIT), ("Sqrt", D950, "float", "PRECISION_0ULP_FTZ_FALSE", BIT),
    ("Sqrt", D950, "float", "INTRINSIC", MOD), ("Sqrt", D950, "half", "FAST_INVERSE", MOD),
    ("Rsqrt", D950, "float", "FAST_INVERSE", MOD), ("Rsqrt", D950, "float", "PRECISION_0ULP_FTZ_FALSE", MOD),
    ("Exp", D950, "float", None, MOD), ("Ln", B310, "half", None, MOD),
    *[(api, D950, t, None, BIT) for api in ("MulAddDst", "FusedMulAdd", "Axpy") for t in ("half", "float")],
    ("MulAddDst", D950, "half->float", None, BIT), ("Axpy", D950, "half->float", None, BIT),
    ("MulAddDst", D950, "int64", None, BIT), ("MulAddDst", D950, "uint64", None, BIT),
    ("Axpy", D950, "bfloat16", None, BIT), ("FusedMulAdd", D950, "bfloat16", None, MOD),
    *[(api, d, t, None, MOD) for api in ("MulAddDst", "FusedMulAdd") for d in (A3, A2, B310, P310)
      for t in ("half", "float")],
    *[("Axpy", d, t, None, MOD) for d in (A3, A2, B310, P310, T910) for t in ("half", "float")],
    *[("MulAddDst", d, "half->float", None, BIT) for d in (A3, A2, P310)],
    *[("Axpy", d, "half->float", None, BIT) for d in (A3, A2, B310, P310, T910)],
    *[("MulAddDst", B310, t, None, BIT) for t in ("int16", "uint16", "int32", "uint32")],
    ("Sub", D950, "bfloat16", None, BIT), ("Adds", D950, "bfloat16", None, BIT),
]


@pytest.mark.parametrize("api, device, dtype, config, want", CONDITIONS,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}-{c[3]}" for c in CONDITIONS])
def test_fidelity_conditions_of_the_table_cells(api, device, dtype, config, want):
    assert aj.fidelity(api, device, dtype, config) is want


def test_fidelity_availability_is_the_instructions_availability():
    """An instruction (Memory or Reg API) has a FIDELITY entry on a device iff the device offers it (SPEC-2 0.3 last
    paragraph, 1.9): the registry's `offered` and the table cannot drift apart."""
    drift = []
    for inst in INSTRUCTIONS:
        name = inst.name.split(" ")[0]   # "Reg.Select (registers)" is Reg.Select
        for device in ALL:
            spec = get_device(device)
            offered = bool(inst.offered(spec) and inst.dtypes(spec))
            if offered != ((name, device) in aj.FIDELITY):
                drift.append((name, device, offered))
    assert not drift, drift


# --- SPEC-2 14: out of scope, each refused with its error class or absent --------------------------------------------
@pytest.mark.parametrize("name", ["CastDequant", "SetDeqScale", "Subs", "Divs", "SetCmpMask", "GetCmpMask",
                                  "MulAddRelu", "AddReluCast", "SubReluCast", "MulCast", "Mull", "Neg", "Prelu",
                                  "BilinearInterpolation", "SetLoopModePara", "ResetLoopModePara",
                                  "CrossCoreSetFlag"])
def test_out_of_scope_memory_apis_are_not_offered(name):
    assert not hasattr(aj, name) and name not in aj.__all__
    assert not any((name, d) in aj.FIDELITY for d in ALL)


@pytest.mark.parametrize("name", ["Truncate", "Gather", "GatherB", "Scatter", "AddC", "SubC", "Compare", "Compares",
                                  "MaskGenWithRegTensor", "AddrReg", "RegTraitNumTwo"])
def test_out_of_scope_reg_apis_are_not_offered(name):
    assert not hasattr(R, name)


@pytest.mark.parametrize("dtype", ["complex32", "complex64", "double", "bool", "int4b_t", "int4x2_t", "fp4x2_e2m1_t",
                                   "fp8_e4m3", "fp8_e5m2", "fp8_e8m0", "hifloat8", np.float64, np.bool_,
                                   np.complex64])
def test_d28_types_are_refused_naming_d28(dtype):
    core = aj.Core(D950)
    with pytest.raises(aj.UnsupportedDTypeError, match="D28"):
        core.local_tensor(dtype, 16)
    with pytest.raises(aj.UnsupportedDTypeError, match="D28"):
        R.RegTensor(dtype)
    with pytest.raises(aj.UnsupportedDTypeError, match="D28"):
        aj.GlobalTensor(np.zeros(8, dtype if not isinstance(dtype, str) else np.float64))


def test_cast_hybrid_is_refused_naming_d28_in_memory_and_reg_cast():
    """SPEC-2 14 row 2: CAST_HYBRID -> UnsupportedDTypeError naming D28, for the Memory Cast, the Reg Cast (before:
    a ParameterError about the pair's round modes) and aj.fidelity (before: BIT-EXACT for a refused call)."""
    core = aj.Core(D950)
    dst, src = core.local_tensor("half", 64), core.local_tensor("float", 64)
    with pytest.raises(aj.UnsupportedDTypeError, match="D28"):
        aj.Cast(dst, src, aj.RoundMode.CAST_HYBRID, 64)
    with core:
        h, f = R.RegTensor("half"), R.RegTensor("float")
        before = h.data.copy()
        trait = R.CastTrait(R.RegLayout.ZERO, R.SatMode.SAT, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_HYBRID)
        with pytest.raises(aj.UnsupportedDTypeError, match="D28"):
            R.Cast(h, f, R.CreateMask("float"), trait)
        assert np.array_equal(h.data, before)
    with pytest.raises(aj.UnsupportedDTypeError, match="D28"):
        aj.fidelity("Cast", D950, round_mode=aj.RoundMode.CAST_HYBRID)


@pytest.mark.parametrize("device", [D950, A3, A2, P310])
def test_cast_int32_to_half_is_refused_naming_d47_except_on_the_310b(device):
    core = aj.Core(device)
    dst, src = core.local_tensor("half", 64), core.local_tensor("int32", 64)
    with pytest.raises(aj.UnsupportedDTypeError, match="D47"):
        aj.Cast(dst, src, aj.RoundMode.CAST_NONE, 64)


@pytest.mark.parametrize("device", [D950, A2])
def test_ctrl_bit_50_is_not_modelled(device):
    """SPEC-2 14: SetCtrlSpr of bit 50 raises ParameterError (CTRL unchanged)."""
    core = aj.Core(device)
    with pytest.raises(aj.ParameterError):
        core.SetCtrlSpr(50, 50, 1)


def test_kirin_is_not_a_device():
    with pytest.raises(aj.UnsupportedDeviceError):
        aj.Core("kirin9000")
