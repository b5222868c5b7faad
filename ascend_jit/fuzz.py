"""Hostile-input fuzzer (issue 12): every public API called with hostile Python values, in child processes.

Each *form* is one valid call: the registered instructions' examples (`api/registry.py`, `example` and `forms`,
captured by running them with a recorder in place of the entry point, so a newly registered instruction is fuzzed
without new code) and the state, scaffolding and Reg APIs below. Each case replaces one argument of one form on one
device and dtype by a hostile variant: numpy integers of every width (which must compute exactly what the plain int
computes), bool, floats, nan, strings, None, 2**64, 2**70, negatives, wrong-length and wrong-shape masks, tensors of
another core or dtype, freed tensors and hand-made tensors.

A child process runs a batch of cases on fresh cores and reports a verdict per case; the parent catches crashes (the
child's exit status) and hangs (a time limit per call) and re-runs such a batch one call at a time to name the case.
Checked per call: only AscendJitError refusals, the UB, GM, mask register, CTRL, allocator and Reg registers unchanged
on every refusal, and accepted numpy-integer or hand-made-twin variants byte-identical to the plain call, whose bytes
the reference model reproduces (where the fuzzer has an oracle for the form).

    python -m ascend_jit.fuzz [--all] [--sample N] [--seed S]     # prints the counts
"""
import argparse
import dataclasses
import enum
import hashlib
import inspect
import json
import math
import os
import selectors
import subprocess
import sys
import types
from dataclasses import dataclass
from typing import Callable

import numpy as np

NUMPY_INTS = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)
# variant kinds: must match the plain call / refused (or, for scalar operands, equal) / refused or equal / free
EQUIV, COERCE, ALIAS, ANY = "equiv", "coerce", "alias", "any"
BATCH = 1000
CALL_SECONDS = 60           # per-call limit (generous: a cold child compiles a family's kernels on its first call)
STARTUP_SECONDS = 60        # one child's imports and case list


@dataclass(frozen=True)
class Form:
    name: str
    devices: tuple
    build: Callable              # (core, dtype) -> (fn, args, kwargs)
    dtypes: Callable = None      # DeviceSpec -> dtype names (None: half)
    oracle: Callable = None      # (ub, core, dtype, args, kwargs) -> None: applies the reference model to ub
    strict: bool = True          # integer parameters: floats/str/bool must be refused, not coerced


# --- forms ---------------------------------------------------------------------------------------------------------
def _capture(inst, example, core, dtype):
    """(entry, args, kwargs) of the registry example's call, by running it with a recorder for the entry point."""
    tensors, call = example(core, dtype)
    recorded = []

    def recorder(*args, **kwargs):
        recorded.append((args, kwargs))
    code = getattr(call, "__code__", None)
    if code is not None:  # the entry point as a global name of the example, or as a variable it closes over
        names = [n for n in code.co_names if call.__globals__.get(n) is inst.entry]
        cells = call.__closure__ or ()
        closed = [c.cell_contents is inst.entry for c in cells]
        if names or any(closed):
            glob = dict(call.__globals__, **{n: recorder for n in names})
            closure = tuple(types.CellType(recorder) if hit else c for c, hit in zip(cells, closed)) or None
            types.FunctionType(code, glob, call.__name__, call.__defaults__, closure)(*tensors)
    if len(recorded) == 1:
        return inst.entry, recorded[0][0], recorded[0][1]
    return call, tuple(tensors), {}   # opaque example: its tensors are still fuzzed


def _registry_forms():
    from . import SUPPORTED_NAMES
    from .api.registry import INSTRUCTIONS
    forms = []
    for inst in INSTRUCTIONS:
        examples = (inst.example,) + tuple(getattr(inst, "forms", ()))
        for k, example in enumerate(examples):
            def build(core, dtype, inst=inst, example=example):
                return _capture(inst, example, core, dtype)
            forms.append(Form(f"{inst.name}#{k}", tuple(SUPPORTED_NAMES), build, inst.dtypes,
                              _ORACLES.get((inst.name, k)), strict=True))
    return forms


def _state_forms():
    import ascend_jit as aj
    a2, a3, n950 = "atlas-a2", "atlas-a3", "ascend950"
    every = tuple(aj.SUPPORTED_NAMES)

    def counter(core, dtype):
        core.SetMaskCount()
        return core.SetVectorMask, (300,), {"dtype": dtype, "mode": aj.MaskMode.COUNTER}

    def tbuf(core, dtype):
        pipe = aj.TPipe(core)
        buf = aj.TBuf()
        pipe.InitBuffer(buf, 1024)
        return buf.Get, (dtype, 32), {}

    def init_buffer(core, dtype):
        return aj.TPipe(core).InitBuffer, (aj.TQue(aj.TPosition.VECIN, 2), 2, 512), {}

    def gm(dtype):
        return aj.GlobalTensor(np.arange(2048).astype(np.float16))

    def reg_tensors(core, dtype):
        t = core.local_tensor(dtype, 1024)
        r1, r2 = aj.Reg.RegTensor(dtype), aj.Reg.RegTensor(dtype)
        aj.Reg.LoadAlign(r1, t, 0)
        return t, r1, r2, aj.Reg.CreateMask(dtype, aj.Reg.MaskPattern.VL16)

    def load(core, dtype):
        t, r1, _, _ = reg_tensors(core, dtype)
        return aj.Reg.LoadAlign, (r1, t, 128), {}

    def store(core, dtype):
        t, r1, _, m = reg_tensors(core, dtype)
        return aj.Reg.StoreAlign, (t, r1, m, 256), {}

    def reduce_block(core, dtype):
        _, r1, r2, m = reg_tensors(core, dtype)
        return aj.Reg.ReduceDataBlock, (r2, r1, m, aj.Reg.ReduceType.SUM, aj.Reg.MaskMergeMode.ZEROING), {}

    def wait_flag(core, dtype):
        core.SetFlag(2, event=aj.HardEvent.V_MTE3)
        return core.WaitFlag, (2,), {"event": aj.HardEvent.V_MTE3}

    def release_event(core, dtype):
        pipe = aj.TPipe(core)
        return pipe.ReleaseEventID, (pipe.AllocEventID(aj.HardEvent.MTE2_V), aj.HardEvent.MTE2_V), {}

    def mem_alloc(core, dtype):
        with core:
            return aj.LocalMemAllocator().Alloc, (dtype, 64), {}

    return [
        Form("launch", (a2,), lambda c, d: (aj.launch, (_block_index, 3, c.device), {"atomic_order": "shuffle",
                                                                                     "seed": 5})),
        Form("SetFlag", (a2, n950), lambda c, d: (c.SetFlag, (2,), {"event": aj.HardEvent.V_MTE3})),
        Form("WaitFlag", (a2,), wait_flag),
        Form("PipeBarrier", (a2,), lambda c, d: (c.PipeBarrier, (aj.PIPE_V,), {})),
        Form("ReleaseEventID", (a2,), release_event),
        Form("LocalMemAllocator.Alloc", (a2,), mem_alloc),
        Form("SetVectorMask/len", every, lambda c, d: (c.SetVectorMask, (100,), {})),
        Form("SetVectorMask/words", every, lambda c, d: (c.SetVectorMask, (5, 2**40 + 7), {})),
        Form("SetVectorMask/counter", every, counter),
        Form("SetSaturationFlag", (a2, a3), lambda c, d: (c.SetSaturationFlag, (True, aj.SaturationMode.INT), {})),
        Form("SetCtrlSpr", (a2, n950), lambda c, d: (c.SetCtrlSpr, (53, 53, 1), {})),
        Form("GetCtrlSpr", (a2,), lambda c, d: (c.GetCtrlSpr, (48, 53), {})),
        Form("local_tensor", (a2, n950), lambda c, d: (c.local_tensor, (d, 64), {})),
        Form("local_tensor/addr", (a2,), lambda c, d: (c.local_tensor, (d, 64), {"addr": 1024})),
        Form("LocalTensor", (a2, n950), lambda c, d: (aj.LocalTensor, (c, d, 1024, 64, aj.TPosition.VECIN), {})),
        Form("TBuf.Get", (a2,), tbuf),
        Form("InitBuffer", (a2,), init_buffer),
        Form("DataCopy/count", (a2, n950), lambda c, d: (aj.DataCopy, (c.local_tensor(d, 512), gm(d), 256), {})),
        Form("DataCopy/params", (a2,), lambda c, d: (aj.DataCopy, (c.local_tensor(d, 512), gm(d),
                                                                  aj.DataCopyParams(4, 2, 1, 0)), {})),
        Form("DataCopy/out", (a2,), lambda c, d: (aj.DataCopy, (gm(d), c.local_tensor(d, 512), 256), {})),
        Form("Reg.UpdateMask", (n950,), lambda c, d: (aj.Reg.UpdateMask, (d, 100), {})),
        Form("Reg.CreateMask", (n950,), lambda c, d: (aj.Reg.CreateMask, (d, aj.Reg.MaskPattern.VL16), {})),
        Form("Reg.MaskReg", (n950,), lambda c, d: (aj.Reg.MaskReg, ((1, 2**63, 3, 4),), {})),
        Form("Reg.LoadAlign", (n950,), load),
        Form("Reg.StoreAlign", (n950,), store),
        Form("Reg.ReduceDataBlock", (n950,), reduce_block),
    ]


def _block_index():
    """A kernel for the launch form: each block returns its index (the launch's return value is compared)."""
    import ascend_jit as aj
    return aj.GetBlockIdx()


# --- reference oracles for the registry examples (the plain call's bytes must be the reference model's) -----------
def _oracle_add_count(ub, core, dtype, args, kwargs):
    from .reference import model as ref
    dst, a, b, count = args
    ref.add_count(ub, dtype, dst.addr, a.addr, b.addr, count, core.half_saturating, core.int_saturating)


def _oracle_reduce_sum_count(ub, core, dtype, args, kwargs):
    from .reference import model as ref
    dst, src, tmp, count = args
    ref.reduce_sum_count(ub, core.spec, dtype, dst.addr, src.addr, tmp.addr, count, core.half_saturating)


def _lanes(mask, nlanes):
    from .reference import model as ref
    if isinstance(mask, list):
        return ref.lanes_of_mask(mask[0], mask[1] if len(mask) > 1 and nlanes == 128 else 0, nlanes)
    return ref.continuous_lanes(mask, nlanes)


def _oracle_add_high_dim(ub, core, dtype, args, kwargs):
    from .reference import model as ref
    dst, a, b, mask, repeat, p = args
    strides = (p.dstBlkStride, p.src0BlkStride, p.src1BlkStride, p.dstRepStride, p.src0RepStride, p.src1RepStride)
    ref.add_high_dim(ub, dtype, dst.addr, a.addr, b.addr, _lanes(mask, 256 // dst.dtype.size), repeat, strides,
                     core.half_saturating, core.int_saturating)


def _oracle_reduce_sum_high_dim(ub, core, dtype, args, kwargs):
    from .reference import model as ref
    dst, src, tmp, mask, repeat, stride = args
    ref.reduce_sum_high_dim(ub, core.spec, dtype, dst.addr, src.addr, tmp.addr, _lanes(mask, 256 // src.dtype.size),
                            repeat, stride, core.half_saturating)


def _oracle_pair(ub, core, dtype, args, kwargs):
    from .reference import model as ref
    dst, src, mask, repeat, dst_rep, src_blk, src_rep = args
    ref.reduce_pair(ub, core.spec, dtype, dst.addr, src.addr, _lanes(mask, 256 // src.dtype.size), repeat, dst_rep,
                    src_blk, src_rep, core.half_saturating)


_ORACLES = {("Add", 0): _oracle_add_count, ("Add", 1): _oracle_add_high_dim, ("Add", 2): _oracle_add_high_dim,
            ("ReduceSum", 0): _oracle_reduce_sum_count, ("ReduceSum", 1): _oracle_reduce_sum_high_dim,
            ("ReducePairElem", 0): _oracle_pair, ("ReducePairElem", 1): _oracle_pair}


def all_forms():
    return _registry_forms() + _state_forms()


# --- variants ------------------------------------------------------------------------------------------------------
def _int_variants(v):
    out = [(f"{t.__name__}", EQUIV, lambda x, t=t: t(x)) for t in NUMPY_INTS if np.can_cast(np.min_scalar_type(v), t)]
    out += [("bool", COERCE, lambda x: bool(x)), ("np.bool_", COERCE, lambda x: np.bool_(x)),
            ("float", COERCE, float), ("np.float32", COERCE, np.float32), ("float+0.5", COERCE, lambda x: x + 0.5),
            ("nan", COERCE, lambda x: math.nan), ("str", COERCE, str), ("None", ANY, lambda x: None),
            ("2**64", ANY, lambda x: 2**64), ("2**70", ANY, lambda x: 2**70), ("-1", ANY, lambda x: -1),
            ("-2**63", ANY, lambda x: -2**63), ("2**31", ANY, lambda x: 2**31), ("v+1", ANY, lambda x: x + 1)]
    return out


def _list_variants(words):
    words = list(words)
    out = [(f"[{t.__name__}]", EQUIV, lambda w, t=t: [t(x) for x in w]) for t in NUMPY_INTS
           if all(isinstance(x, int) and np.can_cast(np.min_scalar_type(x), t) for x in words)]
    if all(isinstance(x, int) and 0 <= x < 2**64 for x in words):
        out.append(("array-u64", ALIAS, lambda w: np.array(w, np.uint64)))  # a mask: equal; repeat params: refused
        out.append(("tuple", EQUIV, tuple))
    out += [("[]", ANY, lambda w: []), ("3 words", ANY, lambda w: list(w) + [0, 0, 0][:3 - len(w) + 1]),
            ("0-d", COERCE, lambda w: np.array(w[0], np.uint64)), ("2-d", COERCE, lambda w: np.array([w], np.uint64)),
            ("[float]", COERCE, lambda w: [float(x) for x in w]), ("[nan]", COERCE, lambda w: [math.nan] * len(w)),
            ("[None]", COERCE, lambda w: [None] * len(w)), ("[str]", COERCE, lambda w: [str(x) for x in w]),
            ("[bool]", COERCE, lambda w: [True] * len(w)), ("[2**64]", ANY, lambda w: [2**64] * len(w)),
            ("[-1]", ANY, lambda w: [-1] * len(w)), ("nested", COERCE, lambda w: [list(w)])]
    return out


def _enum_variants(v):
    out = [("None", COERCE, lambda x: None), ("99", ANY, lambda x: 99), ("str", COERCE, lambda x: x.name),
           ("float", COERCE, lambda x: 0.0), ("bool", COERCE, lambda x: True), ("other enum", ANY, _other_enum)]
    if isinstance(v, int):  # an IntEnum's value: refused, or the same call (as_enum accepts it)
        out.insert(0, ("int value", ALIAS, int))
    return out


def _other_enum(x):
    import ascend_jit as aj
    return aj.TPosition.GM if not isinstance(x, aj.TPosition) else aj.MaskMode.NORMAL


def _bool_variants(v):
    return [("np.bool_", EQUIV, np.bool_), ("int", COERCE, int), ("str", COERCE, lambda x: "no"),
            ("None", COERCE, lambda x: None), ("float", COERCE, float)]


def _tensor_variants(t):
    return [("hand-made twin", EQUIV, "twin"), ("other core", ANY, "other core"), ("other dtype", ANY, "other dtype"),
            ("freed", ANY, "freed"), ("hand-made end of UB", ANY, "ub end"), ("hand-made past UB", ANY, "past ub"),
            ("resized", ANY, "resized"), ("numpy array", ANY, "numpy")]


def _variants(value):
    """(path suffix, label, kind, transform) for one argument value, recursing into repeat-param objects."""
    from .tensor import LocalTensor
    if isinstance(value, LocalTensor):
        return [((), *v) for v in _tensor_variants(value)]
    if isinstance(value, (bool, np.bool_)):
        return [((), *v) for v in _bool_variants(value)]
    if isinstance(value, enum.Enum):
        return [((), *v) for v in _enum_variants(value)]
    if isinstance(value, int):
        return [((), *v) for v in _int_variants(value)]
    if isinstance(value, (list, tuple)) and value and all(isinstance(x, int) for x in value):
        return [((), *v) for v in _list_variants(value)]
    fields = _int_fields(value)
    return [((f,), *v) for f in fields for v in _int_variants(getattr(value, f))]


def _int_fields(value):
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = [f.name for f in dataclasses.fields(value)]
    elif type(value).__name__.endswith("Params") and hasattr(value, "__dict__"):  # DataCopyParams and the like
        names = list(vars(value))
    else:
        return []
    return [n for n in names if type(getattr(value, n)) is int]


def _replace_field(obj, field, new):
    """A copy of a repeat-parameter object with one field replaced (constructors are not asked to validate)."""
    if dataclasses.is_dataclass(obj):
        return dataclasses.replace(obj, **{field: new})
    clone = object.__new__(type(obj))
    clone.__dict__.update(vars(obj))
    clone.__dict__[field] = new
    return clone


PLAIN = ("plain",)  # the slot of a form's unmodified call: run again, it must give the baseline's bits


@dataclass(frozen=True)
class Case:
    form: int
    device: str
    dtype: str
    slot: tuple            # ("arg", i) or ("kw", name)
    sub: tuple             # () or (field,)
    label: str
    kind: str


def _arg_slots(args, kwargs):
    return [("arg", i) for i in range(len(args))] + [("kw", k) for k in kwargs]


def _get(args, kwargs, slot):
    return args[slot[1]] if slot[0] == "arg" else kwargs[slot[1]]


def enumerate_cases(forms):
    """Every case, in a deterministic order (the child processes rebuild the same list)."""
    import ascend_jit as aj
    cases = []
    for fi, form in enumerate(forms):
        for device in form.devices:
            spec = aj.get_device(device)
            dtypes = tuple(form.dtypes(spec)) if form.dtypes else ("half",)
            for dtype in dtypes:
                try:
                    # sanitize=False: the same list in a parent inside a sanitize session (pytest
                    # --ascend-sanitize) and in its children, which run outside one
                    fn, args, kwargs = form.build(aj.Core(device, sanitize=False), dtype)
                except aj.AscendJitError:
                    continue  # a form the device does not offer (refused by the registry tests)
                cases.append(Case(fi, device, dtype, PLAIN, (), "plain", EQUIV))  # the call itself, on a fresh core
                for slot in _arg_slots(args, kwargs):
                    if slot == ("arg", 0) and isinstance(args[0], aj.Core):
                        continue
                    for sub, label, kind, _ in _variants(_get(args, kwargs, slot)):
                        cases.append(Case(fi, device, dtype, slot, sub, label, kind))
    return cases


def _transform(case, value):
    for sub, label, kind, fn in _variants(value):
        if sub == case.sub and label == case.label:
            return fn
    raise KeyError(case)


# --- running one case (in the child) -------------------------------------------------------------------------------
def _fresh_core(device, seed=11):
    import ascend_jit as aj
    core = aj.Core(device)
    rng = np.random.default_rng(seed)
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    core.ub.view(np.uint16)[:] &= 0x3BFF  # finite moderate halves (and valid floats/ints): comparable sums
    return core


def _state(core, args, kwargs):
    """Everything a refused call must leave alone: UB, GM, mask register, CTRL, allocator, registers."""
    import ascend_jit as aj
    h = hashlib.sha1(core.ub.tobytes())
    h.update(repr((core.mask_high, core.mask_low, core.mask_defined, core.ctrl, core.acc_val, core._free,
                   sorted(core._allocated.items()), sorted(core.pending_flags()), core.atomic,
                   getattr(core.local_mem_allocator, "cur", None),
                   sorted((k.name, sorted(v)) for k, v in getattr(core.tpipe, "occupied", {}).items()))).encode())
    for v in list(args) + list(kwargs.values()):
        if isinstance(v, aj.GlobalTensor) and v.array is not None:
            h.update(v.array.tobytes())
        elif isinstance(v, aj.Reg.RegTensor):
            h.update(v.data.tobytes())
    return h.hexdigest()


def _result_repr(result):
    import ascend_jit as aj
    if isinstance(result, tuple):
        return "(" + ", ".join(_result_repr(r) for r in result) + ")"
    if isinstance(result, aj.LocalTensor):
        return f"LocalTensor({result.dtype.name}, {result.addr}, {result.size})"
    if isinstance(result, aj.Reg.MaskReg):
        return repr(result)
    return repr(result) if isinstance(result, (int, float, bool, type(None), np.generic)) else type(result).__name__


def _run(fn, args, kwargs, core):
    """("ok", state, result) or ("refused", error class, unchanged?) or ("bad", description)."""
    import ascend_jit as aj
    before = _state(core, args, kwargs)
    try:
        result = fn(*args, **kwargs)
    except aj.AscendJitError as e:
        return ("refused", type(e).__name__, _state(core, args, kwargs) == before)
    except Exception as e:  # noqa: BLE001 - the fuzzer's job is to find these
        return ("bad", f"{type(e).__name__}: {str(e)[:200]}")
    return ("ok", _state(core, args, kwargs), _result_repr(result))


def _hostile_tensor(how, t, core):
    import ascend_jit as aj
    if how == "twin":
        return aj.LocalTensor(core, t.dtype, t.addr, t.size, t.position)
    if how == "other core":
        other = aj.Core("atlas-a2" if core.device != "atlas-a2" else "ascend950")
        return other.local_tensor(t.dtype, t.size, addr=t.addr)
    if how == "other dtype":
        d = "float" if t.dtype.size == 2 else "half"
        return core.local_tensor(d, t.nbytes // (4 if d == "float" else 2), addr=t.addr)
    if how == "freed":
        pipe = aj.TPipe(core)
        que = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(que, 1, max(t.nbytes, 32))
        freed = que.AllocTensor(t.dtype)
        que.FreeTensor(freed)
        return freed
    if how == "ub end":
        return aj.LocalTensor(core, t.dtype, core.spec.ub_bytes - 32, 32 // t.dtype.size)
    if how == "past ub":  # issue 12 defect 5: a hand-made tensor that reaches past the UB end
        return aj.LocalTensor(core, t.dtype, core.spec.ub_bytes - 32, max(t.size, 4096))
    if how == "resized":
        t.size = 65536  # read-only: refused (a ReadOnlyError is an AscendJitError)
        return t
    return t.numpy()


def run_case(forms, case, baselines):
    """The verdict on one case: "refused:<error class>", "accepted:<state digest>" or a failure description (a
    string starting with "FAIL"); the JIT-off run must give the same verdicts, digests included."""
    import ascend_jit as aj
    form = forms[case.form]
    key = (case.form, case.device, case.dtype)
    if key not in baselines:
        core = _fresh_core(case.device)
        fn, args, kwargs = form.build(core, case.dtype)
        expected = None
        if form.oracle is not None:
            ub = core.ub.copy()
            form.oracle(ub, core, case.dtype, args, kwargs)
            expected = ub.tobytes()
        outcome = _run(fn, args, kwargs, core)
        if expected is not None and outcome[0] == "ok" and core.ub.tobytes() != expected:
            return "FAIL plain call differs from the reference model"
        baselines[key] = outcome
    baseline = baselines[key]
    if baseline[0] == "bad":
        return f"FAIL the plain call raised {baseline[1]}"
    core = _fresh_core(case.device)
    fn, args, kwargs = form.build(core, case.dtype)
    if case.slot == PLAIN:
        outcome = _run(fn, args, kwargs, core)
        if outcome != baseline:
            return f"FAIL the same call twice gives different results: {outcome[:2]} vs {baseline[:2]}"
        return f"accepted:{outcome[1][:16]}" if outcome[0] == "ok" else f"refused:{outcome[1]}"
    try:
        value = _get(args, kwargs, case.slot)
        transform = _transform(case, value)
        if isinstance(transform, str):
            new = _hostile_tensor(transform, value, core)
        elif case.sub:
            new = _replace_field(value, case.sub[0], transform(getattr(value, case.sub[0])))
        else:
            new = transform(value)
    except aj.AscendJitError as e:  # the hostile value itself cannot be made (a hand-made tensor past the UB, ...)
        return f"refused:{type(e).__name__}"
    args, kwargs = list(args), dict(kwargs)
    if case.slot[0] == "arg":
        args[case.slot[1]] = new
    else:
        kwargs[case.slot[1]] = new
    outcome = _run(fn, tuple(args), kwargs, core)
    if outcome[0] == "bad":
        return f"FAIL non-AscendJitError: {outcome[1]}"
    if outcome[0] == "refused" and not outcome[2]:
        return f"FAIL {outcome[1]} after changing state"
    if case.kind == EQUIV and outcome[:2] != baseline[:2]:
        return f"FAIL differs from the plain call: {outcome[:2]} vs {baseline[:2]}"
    if case.kind == EQUIV and outcome[0] == "ok" and outcome != baseline:
        return "FAIL a different result than the plain call"
    if case.kind == ALIAS and outcome[0] == "ok" and outcome != baseline:
        return "FAIL an alias of the plain value gives another result"
    if case.kind == COERCE and outcome[0] == "ok" and _strict_slot(form, fn, case):
        return "FAIL silently coerced"
    return f"accepted:{outcome[1][:16]}" if outcome[0] == "ok" else f"refused:{outcome[1]}"


def _strict_slot(form, fn, case):
    """Integer parameters must refuse floats and strings; a scalar operand may take them (SPEC-2 D29), so the fuzzer
    only asks the invariants there."""
    if not form.strict:
        return False
    if case.slot[0] == "kw":
        return not _is_scalar_operand(case.slot[1])
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return True
    i = case.slot[1]
    return not (i < len(params) and _is_scalar_operand(params[i].name))


def _is_scalar_operand(name):
    """A scalar operand (Adds' `scalar`, Duplicate's `value`, ArithProgression's `first_value` and `diff_value`)
    takes floats by design (SPEC-2 D29)."""
    return "scalar" in name or name == "value" or name.endswith("_value")


def child_main(total, indices):
    forms = all_forms()
    cases = enumerate_cases(forms)
    if len(cases) != total:  # the parent numbered another case list (the fuzzer changed under a running parent)
        raise SystemExit(f"case list mismatch: {len(cases)} cases here, {total} in the parent")
    baselines = {}
    for i in indices:
        try:
            verdict = run_case(forms, cases[i], baselines)
        except Exception as e:  # noqa: BLE001 - e.g. an accepted call that returned a broken object
            verdict = f"FAIL outside the call: {type(e).__name__}: {str(e)[:200]}"
        sys.stdout.write(json.dumps([i, verdict]) + "\n")
        sys.stdout.flush()


# --- the parent ----------------------------------------------------------------------------------------------------
def select(cases, sample, seed):
    """A deterministic sample of case indices: every plain call, and about `sample` hostile ones spread over the
    forms (None: every case)."""
    if sample is None or sample >= len(cases):
        return list(range(len(cases)))
    rng = np.random.default_rng(seed)
    by_form = {}
    chosen = []
    for i, c in enumerate(cases):
        if c.slot == PLAIN:
            chosen.append(i)
        else:
            by_form.setdefault(c.form, []).append(i)
    per = max(1, sample // len(by_form))
    for idx in by_form.values():
        chosen += sorted(rng.choice(idx, size=min(per, len(idx)), replace=False).tolist())
    return sorted(chosen)


def _stream(indices, env, total):
    """Run cases in one child; yields ("verdict", i, verdict) as they arrive, then ("hang", i) if the next case took
    longer than CALL_SECONDS (the child is killed) or ("exit", status, stderr tail) when the child ends."""
    cmd = [sys.executable, "-c", "import sys, ascend_jit.fuzz as f; "
           "f.child_main(int(sys.argv[1]), [int(x) for x in sys.argv[2:]])", str(total), *map(str, indices)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    done, limit = 0, STARTUP_SECONDS + CALL_SECONDS
    try:
        while True:
            if not sel.select(timeout=limit):
                proc.kill()
                yield ("hang", indices[done])
                return
            line = proc.stdout.readline()
            if not line:
                break
            i, verdict = json.loads(line)
            done += 1
            limit = CALL_SECONDS
            yield ("verdict", i, verdict)
        proc.wait()
        yield ("exit", proc.returncode, proc.stderr.read()[-300:])
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def run(indices, total, jit=True, batch=BATCH, env=None):
    """Run cases in child processes: {"calls", "refused", "accepted", "crashes", "hangs", "failures", "verdicts"}.
    A hang (no verdict within CALL_SECONDS) or a crash (the child dies) names the case that was running; the rest of
    the batch continues in a new child. `total` is the length of the case list the indices number."""
    env = dict(os.environ if env is None else env)
    if not jit:
        env["NUMBA_DISABLE_JIT"] = "1"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    verdicts, crashes, hangs = {}, [], []
    pending = list(indices)
    while pending:
        chunk, pending = pending[:batch], pending[batch:]
        while chunk:
            events = list(_stream(chunk, env, total))
            for event in events:
                if event[0] == "verdict":
                    verdicts[event[1]] = event[2]
            rest = [i for i in chunk if i not in verdicts]
            last = events[-1]
            if last[0] == "exit" and "case list mismatch" in last[2]:
                raise RuntimeError(last[2].strip())
            if not rest:
                if last[0] == "exit" and last[1] != 0:  # died after its last verdict (at interpreter shutdown)
                    crashes.append((chunk[-1], f"exit {last[1]} after the batch", last[2]))
                break
            if last[0] == "hang":
                hangs.append(rest[0])
            else:  # the child died: confirm the suspect alone (an earlier call may have corrupted memory)
                alone = list(_stream([rest[0]], env, total))
                if alone[0][0] == "verdict" and alone[-1][1] == 0:
                    crashes.append((rest[0], f"exit {last[1]} in a batch, not alone", last[2]))
                else:
                    crashes.append((rest[0], f"{alone[-1][0]} {alone[-1][1]}", str(alone[-1][-1])))
            chunk = rest[1:]
    failures = {i: v for i, v in verdicts.items() if v.startswith("FAIL")}
    return {"calls": len(indices), "refused": sum(v.startswith("refused") for v in verdicts.values()),
            "accepted": sum(v.startswith("accepted") for v in verdicts.values()), "crashes": crashes, "hangs": hangs,
            "failures": failures, "verdicts": verdicts}


def describe(cases, forms, i):
    c = cases[i]
    return f"{forms[c.form].name} {c.device} {c.dtype} {c.slot}{c.sub} <- {c.label}"


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m ascend_jit.fuzz", description=__doc__.split("\n")[0])
    p.add_argument("--all", action="store_true", help="every case (the long run)")
    p.add_argument("--sample", type=int, default=1500, help="cases in the short run (default 1500)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-jit", action="store_true", help="run the children with NUMBA_DISABLE_JIT=1")
    a = p.parse_args(argv)
    forms = all_forms()
    cases = enumerate_cases(forms)
    indices = select(cases, None if a.all else a.sample, a.seed)
    res = run(indices, len(cases), jit=not a.no_jit)
    print(f"forms {len(forms)}, cases {len(cases)}, calls {res['calls']}, refused {res['refused']}, "
          f"accepted {res['accepted']}, crashes {len(res['crashes'])}, hangs {len(res['hangs'])}, "
          f"failures {len(res['failures'])}")
    for i, v in sorted(res["failures"].items())[:50]:
        print(f"  {describe(cases, forms, i)}: {v}")
    for i, *_ in res["crashes"]:
        print(f"  CRASH {describe(cases, forms, i)}")
    for i in res["hangs"]:
        print(f"  HANG {describe(cases, forms, i)}")
    return 0 if not (res["failures"] or res["crashes"] or res["hangs"]) else 1


if __name__ == "__main__":
    sys.exit(main())
