"""Fidelity as data (SPEC-2 section 0.3, D69): for every instruction a device offers, whether the emulator claims the
device's bits (BIT_EXACT) or follows the modelling rule of D37-D40 (MODELLED: the exact result rounded once, the
documented special values, the subnormal rule and the stage saturation; not claimed bit-exact).

`FIDELITY[(api, device)]` is a `FidelityRule`; `fidelity(api, device, dtype=None, config=None, round_mode=None)`
answers for one call shape. An API a device does not offer (SPEC-2 1.9) has no entry.
"""
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .devices import NAMES, get_device
from .dtypes import resolve
from .errors import AscendJitError, ParameterError, UnsupportedDeviceError, UnsupportedDTypeError


class Fidelity(enum.Enum):
    BIT_EXACT = "BIT-EXACT"
    MODELLED = "MODELLED"

    def __str__(self):
        return self.value


BIT_EXACT, MODELLED = Fidelity.BIT_EXACT, Fidelity.MODELLED

D950, A3, A2, B310, P310, T910 = ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore",
                                  "atlas-training")
ALL_DEVICES = (D950, A3, A2, B310, P310, T910)
NOT_910 = (D950, A3, A2, B310, P310)


@dataclass(frozen=True)
class Condition:
    """A call shape that overrides the default level: every field that is not None must match."""
    level: Fidelity
    dtypes: tuple = None       # dtype names (the destination's unless stated)
    configs: tuple = None      # algorithm names (e.g. "DIFF_COMPENSATION")
    note: str = ""


@dataclass(frozen=True)
class FidelityRule:
    api: str
    device: str
    default: Fidelity
    conditions: tuple = ()
    note: str = ""

    def level(self, dtype=None, config=None, round_mode=None):
        name = _dtype_name(dtype)
        # a Reg SpecificMode names the Memory-API algorithm whose code it runs (precisionMode reroutes its algo)
        algo = getattr(config, "fidelity_algo", None) or getattr(config, "algo", config)
        algo = getattr(algo, "name", algo)
        for c in self.conditions:
            if c.dtypes is not None and (name is None or name not in c.dtypes):
                continue
            if c.configs is not None and (algo is None or algo not in c.configs):
                continue
            return c.level
        return self.default

    def describe(self):
        parts = [str(self.default)]
        for c in self.conditions:
            when = []
            if c.dtypes is not None:
                when.append("/".join(c.dtypes))
            if c.configs is not None:
                when.append("/".join(c.configs))
            parts.append(f"{c.level} for {' '.join(when)}")
        return "; ".join(parts) + (f" ({self.note})" if self.note else "")


def _dtype_name(dtype):
    """The emulator's name of a dtype given in any spelling dtypes.resolve accepts ("float32", np.float32, a numpy
    dtype: "float"), so conditions on "float" match them all; mixed shapes such as "half->float" pass as they are,
    and a pair of dtypes in either order, e.g. (dst, src) as in `MulAddDst<T, U>`, names the same shape (every mixed
    shape of SPEC-2 widens: the narrower type is the source)."""
    if dtype is None or (isinstance(dtype, str) and "->" in dtype):
        return dtype
    if isinstance(dtype, (tuple, list)) and len(dtype) == 2:
        try:
            a, b = sorted((resolve(t) for t in dtype), key=lambda t: t.size)
        except UnsupportedDTypeError:
            return tuple(dtype)
        return a.name if a is b else f"{a.name}->{b.name}"
    try:
        return resolve(dtype).name
    except UnsupportedDTypeError:
        return getattr(dtype, "name", dtype)


_rules = {}


def _row(apis, devices, default, *conditions, note=""):
    for api in apis:
        for device in devices:
            _rules[(api, device)] = FidelityRule(api, device, default, tuple(conditions), note)


# --- the first release (SPEC.md): every form bit-exact --------------------------------------------------------------
_row(("Add", "ReduceSum", "ReducePairElem", "PairReduceSum"), ALL_DEVICES, BIT_EXACT)
# the one ReduceSum order resting on a decision rather than a documented precision (port60h)
_row(("ReduceSum",), (A3, A2), BIT_EXACT,
     note="the count form's accumulator holding T is decision D1, SPEC 4.2 leaving its precision to a hardware check; "
          "`ascend-jit study` shows the fp32-accumulator reading beside it")
_row(("Reg.ReduceDataBlock", "Reg.PairReduceElem"), (D950,), BIT_EXACT)

# --- SPEC-2 0.3, row by row (availability from 1.9) ----------------------------------------------------------------
_row(("Sub", "Max", "Min", "Adds", "Abs", "Relu", "And", "Or", "Duplicate"), ALL_DEVICES, BIT_EXACT)
_row(("Maxs", "Mins"), NOT_910, BIT_EXACT)
_row(("Brcb",), (D950, A3, A2, P310), BIT_EXACT)
_row(("Copy",), (D950, A3, A2, B310), BIT_EXACT, note="bit copies; the devkit Copy pages, docs/decisions.md \"Copy\"")
_row(("ShiftLeft", "ShiftRight"), (D950, A3, A2, B310), BIT_EXACT,
     note="integer shifts; the devkit ShiftLeft/ShiftRight pages, docs/decisions.md \"ShiftLeft, ShiftRight, Not\"")
_row(("Not",), ALL_DEVICES, BIT_EXACT, note="bit inversion; the devkit Not page")
_row(("Ands", "Ors"), (D950,), BIT_EXACT,
     note="bit operations; the devkit Ands/Ors pages, docs/decisions.md \"Ands, Ors\"")
_row(("Truncate",), (D950,), BIT_EXACT,
     note="rounding to an integral value of the same type, exact; the devkit Truncate(ISASI) page, "
          "docs/decisions.md \"Truncate\"")
_row(("ArithProgression", "Arange"), (D950, A3, A2, P310), BIT_EXACT,
     note="the devkit implementation's order: float32 scalar arithmetic (product then sum, no contraction: assumed), "
          "then Adds (A2/A3/310P) or Muls/Adds/Add (950) of the emulator's own instructions; docs/decisions.md "
          "\"ArithProgression\"")
_row(("CreateVecIndex",), (A3, A2, P310), BIT_EXACT,
     note="the devkit implementation's order: the scalar unit's first DataBlock (float32 sums, C++ conversions: "
          "assumed), then the emulator's own Adds; docs/decisions.md \"CreateVecIndex\"")
_row(("CreateVecIndex",), (D950, B310), MODELLED, Condition(BIT_EXACT, dtypes=("int8", "int16", "int32", "int64")),
     note="the register's first + j (950 Reg::Arange, 310B vci) is the exact sum rounded once (half/float: the "
          "instruction's rounding is not documented), then the emulator's own Adds; docs/decisions.md "
          "\"CreateVecIndex\"")
_row(("Mul", "Muls"), ALL_DEVICES, BIT_EXACT)
_row(("LeakyRelu", "AddRelu", "SubRelu"), NOT_910, BIT_EXACT)
_row(("Div",), (D950,), MODELLED,
     Condition(BIT_EXACT, dtypes=("float",), configs=("DIFF_COMPENSATION", "PRECISION_0ULP_FTZ_TRUE",
                                                       "PRECISION_0ULP_FTZ_FALSE")),
     note="D37, D48: INTRINSIC, PRECISION_1ULP_*, half and integer Div are MODELLED")
_row(("Div",), (A3, A2, B310, P310, T910), MODELLED, note="D37")
_row(("Exp", "Ln", "Reciprocal"), (D950,), MODELLED, note="D37: 1 ulp documented")
_row(("Exp", "Ln", "Reciprocal"), (A3, A2, B310, P310, T910), MODELLED, note="D37")
_row(("Sqrt",), (D950,), MODELLED,
     Condition(BIT_EXACT, dtypes=("float",), configs=("FAST_INVERSE", "PRECISION_0ULP_FTZ_FALSE")), note="D49")
_row(("Sqrt",), (A3, A2, B310, P310, T910), MODELLED, note="D37")
_row(("Rsqrt",), ALL_DEVICES, MODELLED, note="D37, D40")
# Multiply-add: same-type half/float is an fma on the 950, D39 elsewhere; half inputs into a float dst are exact.
_MIXED = Condition(BIT_EXACT, dtypes=("half->float",), note="product exact in float, one rounding")
_row(("MulAddDst",), (D950,), BIT_EXACT, note="fma (RegPrec)")
_row(("FusedMulAdd",), (D950,), BIT_EXACT, Condition(MODELLED, dtypes=("bfloat16",), note="FusedMulAdd bf16"),
     note="fma (RegPrec)")
_row(("Axpy",), (D950,), BIT_EXACT, note="fma (RegPrec); bf16 by D40")
_row(("MulAddDst",), (A3, A2, P310), MODELLED, _MIXED, note="D39")
_row(("MulAddDst",), (B310,), MODELLED, Condition(BIT_EXACT, dtypes=("int16", "uint16", "int32", "uint32")),
     note="D39")
_row(("FusedMulAdd",), (A3, A2, B310, P310), MODELLED, note="D39")
_row(("Axpy",), (A3, A2, B310, P310, T910), MODELLED, _MIXED, note="D39")
_row(("Cast",), ALL_DEVICES, BIT_EXACT)
_row(("Compare", "Select"), ALL_DEVICES, BIT_EXACT)
_row(("Compares", "CompareScalar", "Gather", "GatherMask"), NOT_910, BIT_EXACT)  # CompareScalar: its old name (9.4)
_row(("DataCopyPad",), (D950, A3, A2, B310), BIT_EXACT, note="the poison bytes of D56 are not claimed")
_row(("Transpose",), ALL_DEVICES, BIT_EXACT, note="whole elements moved; the format conversions' tmp bytes are not "
     "claimed (docs/decisions.md \"Transpose\")")
_row(("ReduceDataBlock", "WholeReduceSum", "BlockReduceSum", "BlockReduceMax", "BlockReduceMin"), ALL_DEVICES,
     BIT_EXACT)
_row(("ReduceRepeat", "WholeReduceMax", "WholeReduceMin"), ALL_DEVICES, BIT_EXACT,
     note="the MAX/MIN index of a NaN result is a decision (D50, H-4)")
_row(("RepeatReduceSum",), (D950, A3, A2, P310, T910), BIT_EXACT)
_row(("ReduceMax", "ReduceMin"), ALL_DEVICES, BIT_EXACT, note="a NaN result's index is a decision (D50, D52, D53)")
_row(("GetReduceRepeatMaxMinSpr", "GetReduceMaxMinCount"), (A3, A2, P310), BIT_EXACT,  # its old name (SPEC-2 8.4)
     note="the index after ReduceMax/ReduceMin is a placeholder (D55)")
# every Reg name of SPEC-2 11.2-11.7 (loads and stores 11.6, the MaskReg operations 11.7) has its own row;
# "Reg.MaskReg" stands for the MaskReg operations as a group
_row(("Reg.Add", "Reg.Sub", "Reg.Mul", "Reg.Duplicate", "Reg.Reduce", "Reg.Cast", "Reg.LoadAlign", "Reg.StoreAlign",
      "Reg.LoadUnAlignPre", "Reg.LoadUnAlign", "Reg.StoreUnAlign", "Reg.StoreUnAlignPost", "Reg.Load", "Reg.Store",
      "Reg.MaskReg", "Reg.UpdateMask", "Reg.CreateMask", "Reg.MoveMask", "Reg.Move", "Reg.Select", "Reg.Pack",
      "Reg.UnPack", "Reg.Interleave", "Reg.DeInterleave", "Reg.And", "Reg.Or", "Reg.Xor", "Reg.Not"), (D950,),
     BIT_EXACT, note="MaskReg layouts (D64) and DIST_PACK (D68) are decisions")
# the devkit's earlier names of the loads and stores: the same instructions (docs/decisions.md "Reg DataCopy names")
_row(("Reg.DataCopy", "Reg.DataCopyUnAlign", "Reg.DataCopyUnAlignPre", "Reg.DataCopyUnAlignPost"), (D950,), BIT_EXACT,
     note="LoadAlign / StoreAlign and the unaligned loads and stores under their earlier names")
_row(("Reg.MaskNot", "Reg.MaskAnd", "Reg.MaskOr", "Reg.MaskXor", "Reg.MaskMov", "Reg.MaskSel", "Reg.MaskPack",
      "Reg.MaskUnPack", "Reg.MaskInterleave", "Reg.MaskDeInterleave"), (D950,), BIT_EXACT,
     note="the MaskReg operations under their earlier names (docs/decisions.md \"Reg MaskReg names\")")
# Reg Copy on data registers (vmov; docs/decisions.md "Reg Copy"): bits moved, no arithmetic
_row(("Reg.Copy",), (D950,), BIT_EXACT, note="MERGING only")
# SPEC-2 0.3's last row: ordering events, no values involved (ISASI SetFlag/WaitFlag are not offered on the 310B,
# SPEC-2 1.9); D69 has two levels, and nothing here can differ from the device
_row(("PipeBarrier",), ALL_DEVICES, BIT_EXACT, note="no values involved")
_row(("SetFlag", "WaitFlag"), (D950, A3, A2, P310, T910), BIT_EXACT, note="no values involved")
_row(("DataSyncBarrier",), (D950, A3, A2, B310), BIT_EXACT, note="no values involved (docs/decisions.md "
     "\"DataSyncBarrier\")")
# Not in SPEC-2 11 (docs/decisions.md "Reg API"): the 950 Memory-API instruction's numerics on a register
_row(("Reg.Max", "Reg.Min", "Reg.ReduceMax", "Reg.ReduceMin", "Reg.ReduceSum", "Reg.LocalMemBar"), (D950,), BIT_EXACT,
     note="Max/Min as the 950 Memory-API Max/Min (D41); ReduceMax/ReduceMin/ReduceSum = Reduce MAX/MIN/SUM")
_row(("Reg.Div",), (D950,), MODELLED,
     Condition(BIT_EXACT, dtypes=("float",), configs=("PRECISION_0ULP_FTZ_TRUE",)),
     note="the 950 Memory-API Div of the code the mode runs (D37, D38, D48): BIT-EXACT for float where it runs "
          "DivPrecisionImpl (precisionMode, or algo PRECISION_0ULP_FTZ_TRUE); MODELLED elsewhere, "
          "PRECISION_0ULP_FTZ_FALSE included (its code rounds subnormal results twice); docs/decisions.md "
          "\"Reg Div modes\"")
_row(("Reg.Exp",), (D950,), MODELLED, note="the 950 Memory-API Exp of the mode's algorithm (D37, D38: 1 ulp "
     "documented); docs/decisions.md \"Reg Exp, Ln, Log and Sqrt modes\"")
# The devkit's Reg pages (DK R/基础算术/*.md, docs/decisions.md "Reg API"): tensor-scalar forms on Add/Mul/Max/Min's
# lanes (RegPrec: Adds/Muls 0 ulp), exact unary ops, and Ln/Log/Sqrt's INTRINSIC algorithm (1 ulp documented)
_row(("Reg.Adds", "Reg.Muls", "Reg.Maxs", "Reg.Mins", "Reg.LeakyRelu", "Reg.Prelu", "Reg.Abs", "Reg.Relu",
      "Reg.Neg", "Reg.MulAddDst", "Reg.MulDstAdd", "Reg.Axpy", "Reg.AbsSub"), (D950,), BIT_EXACT,
     note="Add/Mul/Max/Min's lanes with the D29 scalar; Abs/Relu/Neg exact; the multiply-adds one rounding "
          "(RegPrec: = Fma); then SAT (D35); NaN canonical")
_row(("Reg.ShiftLefts", "Reg.ShiftRights"), (D950,), BIT_EXACT,
     note="bit operations; signed ShiftLefts keep the sign bit (the page's example)")
_row(("Reg.Ln", "Reg.Log"), (D950,), MODELLED,
     note="the 950 Memory-API Ln of the mode's algorithm (D37, D38: 1 ulp documented)")
_row(("Reg.Sqrt",), (D950,), MODELLED,
     Condition(BIT_EXACT, dtypes=("float",), configs=("PRECISION_0ULP_FTZ_FALSE",)),
     note="the 950 Memory-API Sqrt of the code the mode runs (D37, D38, D49): BIT-EXACT for float where it runs the "
          "fast-inverse code (precisionMode, or algo PRECISION_0ULP_FTZ_FALSE); docs/decisions.md \"Reg Exp, Ln, "
          "Log and Sqrt modes\"")
_row(("Reg.Arange",), (D950,), MODELLED, Condition(BIT_EXACT, dtypes=("int8", "int16", "int32", "int64")),
     note="lane j = Add(j, scalar): integer lanes exact (modular), half/float one rounding, which the page does not "
          "document (as the 950's CreateVecIndex); docs/decisions.md \"Reg Arange\"")

class _FidelityTable(Mapping):
    """aj.FIDELITY: a read-only mapping of (api, device) to its FidelityRule, keyed by canonical device names and
    found by any alias too ("A2", "910B"), as aj.fidelity takes them (port60h: FIDELITY[("ReduceSum", "A2")] was a
    bare KeyError)."""

    def __init__(self, rules):
        self._rules = MappingProxyType(rules)

    def __getitem__(self, key):
        rule = self._rules.get(key)
        if rule is not None:
            return rule
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], str):
            try:
                canonical = (key[0], get_device(key[1]).name)
            except AscendJitError:
                canonical = None
            if canonical in self._rules:
                return self._rules[canonical]
        raise KeyError(f"{key!r}: no (api, device) of aj.FIDELITY; aj.fidelity(api, device) says why")

    def __iter__(self):
        return iter(self._rules)

    def __len__(self):
        return len(self._rules)

    def __repr__(self):
        return f"aj.FIDELITY({len(self)} (api, device) rules)"


FIDELITY = _FidelityTable(_rules)


# Names a port asks about that the table, which holds computing instructions, has no row for (port61f)
_NOT_IN_THE_TABLE = {
    "DataCopy": ("no row: data movement copies bytes exactly; an atomic copy (SetAtomicAdd / Max / Min) is BIT-EXACT "
                 "too, one rounded add in the type per element and the core's overflow mode (docs/decisions.md "
                 "\"Synchronisation and kernel boilerplate\", Atomics)"),
    **dict.fromkeys(("SetAtomicAdd", "SetAtomicMax", "SetAtomicMin"),
                    "no row: not an instruction but the mode of the next copies to GM, BIT-EXACT: ADD one rounded add "
                    "in the type per element, then the core's overflow mode; MAX / MIN as D35 (docs/decisions.md "
                    "\"Synchronisation and kernel boilerplate\", Atomics)"),
}


def fidelity(api, device, dtype=None, config=None, round_mode=None):
    """The fidelity level of one call shape: `aj.fidelity("Div", "ascend950", "float", aj.DivAlgo.DIFF_COMPENSATION)`.

    Mixed-width multiply-adds take dtype "half->float". round_mode is accepted for symmetry with Cast (every in-scope
    Cast pair and mode is BIT_EXACT)."""
    spec = get_device(device)
    # the Vector Core offers no instruction (SPEC D13, SPEC-2 1.8): its refusal had been a ParameterError with an
    # empty legal range (audit 45a)
    spec.require_supported("fidelity")
    rule = FIDELITY.get((api, spec.name)) if isinstance(api, str) else None   # a list had raised TypeError (audit17h)
    if rule is None:
        elsewhere = [n for n in NAMES if (api, n) in FIDELITY] if isinstance(api, str) else []
        if elsewhere:   # offered on other devices: the call's own refusal (SPEC-2 1.8 row 1), not an unknown name
            raise UnsupportedDeviceError("fidelity", "device", spec.name, legal=", ".join(elsewhere),
                                         device=spec.name, detail=f"the device does not offer {api} (SPEC-2 1.9)")
        offered = sorted({a for (a, d) in FIDELITY if d == spec.name})
        raise ParameterError("fidelity", "api", api, legal=", ".join(offered), device=spec.name,
                             detail=_NOT_IN_THE_TABLE.get(api) if isinstance(api, str) and api in _NOT_IN_THE_TABLE
                             else "no instruction of this name (SPEC-2 0.3)")
    name = _dtype_name(dtype)
    if name is not None and "->" not in name:
        from .api.registry import INSTRUCTIONS   # at call time: the registry imports every API module
        inst = next((i for i in INSTRUCTIONS if i.name == api), None)
        offered = inst.dtypes(spec) if inst is not None else None
        if offered and name not in offered:   # the instruction refuses the dtype there: no fidelity to report
            raise UnsupportedDTypeError("fidelity", "dtype", name, legal=", ".join(offered), device=spec.name,
                                        detail=f"{api} does not take this dtype on this device")
    elif name is not None:   # a mixed shape "src->dst": one the call takes there (D33), as for a plain dtype
        from .api.elementwise import OPS
        row = OPS.get(api)
        pairs = tuple(f"{a}->{b}" for a, b in ((row.mixed or {}).get(spec.name, ()) if row is not None else ()))
        if api in ("Cast", "Reg.Cast"):   # a Cast pair of the device's table (SPEC-2 7.2, 11.5), either direction
            from .reg import CAST_PAIRS
            pairs = tuple(f"{a}->{b}" for a, b in (spec.cast_pairs if api == "Cast" else CAST_PAIRS))
            name = "->".join(resolve(side.strip()).name for side in name.split("->", 1))
        if name not in pairs:
            raise UnsupportedDTypeError("fidelity", "dtype", name, legal=", ".join(pairs) or "no mixed shape",
                                        device=spec.name, detail=f"{api} does not take this shape on this device")
    algo, config = _config_name(api, config, spec.name)
    if config is not None and algo != "INTRINSIC" and spec.name != D950:   # refused by the call itself (D48)
        raise UnsupportedDeviceError("fidelity", "config", algo, legal="the default (INTRINSIC) off the 950",
                                     device=spec.name, detail="algorithm configs exist on the 950 only (SPEC-2 D48)")
    if algo is not None and name is not None and "->" not in name:
        _refuse_config_the_call_refuses(api, spec, name, algo, config)
    if getattr(round_mode, "name", round_mode) == "CAST_HYBRID":   # refused by Memory and Reg Cast (SPEC-2 14, D28)
        raise UnsupportedDTypeError("fidelity", "round_mode", "CAST_HYBRID", legal="the Cast round modes of SPEC-2 7.2",
                                    device=spec.name,
                                    detail="CAST_HYBRID serves the fp8/hifloat8 types (SPEC-2 D47, D28)")
    return rule.level(dtype, config, round_mode)


def _specific_modes(api):
    """(the SpecificMode structs, their algo enum) of a Reg instruction taking one (reg.py _SPECIFIC_MODES), or
    None."""
    from .reg import _SPECIFIC_MODES   # at call time, as the registry below: api modules import widely
    entry = _SPECIFIC_MODES.get(api[4:]) if api.startswith("Reg.") else None
    return None if entry is None else (entry[0], type(entry[0][0]._field_defaults["algo"]))


def _config_name(api, config, device):
    """(the algorithm name, the config) of a `config` the instruction's call accepts, or ParameterError as the call
    refuses it: a member (or its name) of the instruction's own algo enum, or the aj.*Config holding one (a Reg
    instruction taking a SpecificMode: _mode_config); no config at all for an instruction without one (SPEC-2 D48,
    D69: the level of a call shape that can run). A junk value on the 950 had answered the default level
    (review18)."""
    if config is None:
        return None, None
    modes = _specific_modes(api)
    if modes is not None:
        return _mode_config(api, modes, config, device)
    from .api.elementwise import OPS   # at call time, as the registry below: api modules import widely
    row = OPS.get(api)
    algos = type(row.config().algo) if row is not None and row.config is not None else None
    obj = getattr(config, "algo", config)   # a DivConfig/ExpConfig/... holds the algo
    if algos is not None and (type(obj) is algos or (type(obj) is str and obj in algos.__members__)):
        return (obj if type(obj) is str else obj.name), config
    legal = "no config for this instruction" if algos is None else \
        f"an aj.{algos.__name__} member or its name, or aj.{algos.__name__.replace('Algo', 'Config')}(...)"
    raise ParameterError("fidelity", "config", config, legal=legal, device=device,
                         detail=f"{api} takes no such config (SPEC-2 D48)")


def _mode_config(api, modes, config, device):
    """(the algorithm name, the SpecificMode) of a Reg instruction taking one (Div, Exp, Ln, Log, Sqrt): a
    MaskMergeMode (ZEROING, the default algorithm: no config), the API's struct or a plain tuple of its fields, or a
    bare algo (a member, its name or value, or an aj.*Config holding one) standing for the struct of that algo with
    its other fields left to their defaults; each checked by the call's own rules (reg.py specific_mode_check, here
    on a float register: a dtype's own in _refuse_config_the_call_refuses), so a mode the call refuses has no level.
    The level then follows the code the struct runs (its fidelity_algo)."""
    from .reg import MaskMergeMode   # at call time, as _specific_modes
    classes, algos = modes
    if type(config) is MaskMergeMode:
        if config != MaskMergeMode.ZEROING:   # MERGING and UNKNOWN: every one of these calls refuses them
            raise ParameterError("fidelity", "config", config, legal="MaskMergeMode.ZEROING (DK Reg MergeMode table 2)",
                                 device=device, detail=f"{api} refuses this mode")
        return None, None
    struct = config
    if not isinstance(config, tuple):
        obj = getattr(config, "algo", config)
        if type(obj) is str and obj in algos.__members__:
            obj = algos[obj]
        if isinstance(obj, bool) or not (type(obj) is algos or (type(obj) is int and obj in set(algos))):
            structs = " or ".join(f"aj.Reg.{c.__name__}" for c in classes)
            raise ParameterError("fidelity", "config", config, device=device,
                                 legal=f"an aj.{algos.__name__} member, its name or value, or an {structs}",
                                 detail=f"{api} takes no such config (SPEC-2 D48)")
        struct = classes[0](algo=algos(obj))
    _checked_mode(api, "float", struct, device)
    if type(struct) is tuple:   # a plain tuple of the fields, as the call takes it
        struct = classes[0](*struct)
    return algos(int(struct.algo)).name, struct


def _checked_mode(api, dtype_name, mode, device):
    """reg.py specific_mode_check's refusal of `mode` on registers of `dtype_name`, as aj.fidelity's."""
    from .reg import specific_mode_check
    try:
        specific_mode_check(api[4:], dtype_name, mode)
    except ParameterError as refusal:
        raise ParameterError("fidelity", "config", mode, legal=refusal.legal, device=device,
                             detail=f"{api} refuses this mode for {dtype_name} ({refusal.parameter} = "
                                    f"{refusal.value!r})") from None


def _refuse_config_the_call_refuses(api, spec, dtype_name, algo, config):
    """An algorithm the call refuses for this dtype (DIFF_COMPENSATION on half, ...) is refused here in the call's words
    (api/elementwise.py _config_flags), as a dtype the instruction does not take is: a call shape that cannot run has
    no level (D69). A Reg SpecificMode (Div, Exp, Ln, Log, Sqrt) is checked by the call's own rules on that dtype
    (jit/reg_ops.py specific_mode_op: the algorithms the pages give float alone, precisionMode for float)."""
    if _specific_modes(api) is not None:
        if config is not None:
            _checked_mode(api, dtype_name, config, spec.name)
        return
    from .api.elementwise import OPS, _config_flags   # at call time, as _config_name
    row = OPS.get(api)
    if row is None or row.config is None:
        return
    dtype = resolve(dtype_name)
    algos = type(row.config().algo)
    try:
        _config_flags(row, spec, dtype, algos[algo])
    except ParameterError as refusal:
        raise ParameterError("fidelity", "config", algo, legal=refusal.legal, device=spec.name,
                             detail=f"{api} refuses this algorithm for {dtype.name}") from None


def table_rows():
    """(api, {device: description}) rows for `ascend-jit devices --fidelity`."""
    apis = sorted({a for a, _ in FIDELITY})
    return [(api, {d: FIDELITY[(api, d)].describe() for d in ALL_DEVICES if (api, d) in FIDELITY}) for api in apis]


def format_table():
    """The fidelity table as text, one line per (instruction, device): `ascend-jit devices --fidelity`."""
    lines = ["MODELLED = the exact result rounded once to the destination type, the documented special values, the",
             "subnormal rule and the stage saturation (SPEC-2 D37-D40); not claimed bit-exact. BIT-EXACT = the",
             "device's bits under the SPEC decisions.", ""]
    rows = [(api, device, text) for api, per in table_rows() for device, text in per.items()]
    w0, w1 = max(len(r[0]) for r in rows), max(len(r[1]) for r in rows)
    lines.append(f"{'instruction'.ljust(w0)}  {'device'.ljust(w1)}  fidelity")
    lines.append(f"{'-' * w0}  {'-' * w1}  --------")
    lines += [f"{a.ljust(w0)}  {d.ljust(w1)}  {t}" for a, d, t in rows]
    return "\n".join(lines)
