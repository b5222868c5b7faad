"""audit36e: an independent model of the 950 Reg API's data movement and MaskReg operations (SPEC-2 11.1, 11.6,
11.7, D64, D68, 12.8 G-4/G-5; SPEC 7.1-7.3; docs/decisions.md "Reg API"), written from the SPEC text alone (no code
shared with ascend_jit.reference or ascend_jit.jit). Every case runs as plain-Python calls and inside a compiled
`@aj.Reg.simd_vf` VF; both must equal the model on the WHOLE UB (byte for byte), every register lane, every MaskReg
bit and the returned offsets, and a refused call must leave the UB, the registers and the MaskRegs unchanged."""
import numpy as np
import pytest

import ascend_jit as aj

R = aj.Reg
VL = 256
SIZES = {"int8": 1, "uint8": 1, "half": 2, "bfloat16": 2, "int16": 2, "uint16": 2, "float": 4, "int32": 4,
         "uint32": 4, "int64": 8, "uint64": 8}
DTYPES = list(SIZES)
BY_SIZE = {s: [d for d in DTYPES if SIZES[d] == s] for s in (1, 2, 4, 8)}
ALIGN_E, BOUNDS_E, DTYPE_E, STATE_E, PARAM_E = (aj.AlignmentError, aj.OutOfBoundsError, aj.UnsupportedDTypeError,
                                                aj.StateError, aj.ParameterError)

pytestmark = pytest.mark.filterwarnings("error::ascend_jit.UncompiledVFWarning")


# ===================================================================================================================
# The model (SPEC-2 11.6 / 11.7 tables, numpy on byte arrays; masks as 256-bit Python ints)
# ===================================================================================================================
def bit(m, i):
    return (m >> i) & 1


def lane_on(m, lane, size):
    """SPEC-2 11.1: lane i of a size-byte type is active iff mask bit i*size is set."""
    return bit(m, lane * size) == 1


# LoadDist: (suffix width or None = register's own, bytes read, alignment in bytes)        SPEC-2 11.6 load table
LOADS = {"DIST_NORM": (None, 256, 32), "DIST_BRC_B8": (1, 1, 1), "DIST_BRC_B16": (2, 2, 2),
         "DIST_BRC_B32": (4, 4, 4), "DIST_US_B8": (1, 128, 32), "DIST_US_B16": (2, 128, 32),
         "DIST_DS_B8": (1, 512, 32), "DIST_DS_B16": (2, 512, 32), "DIST_UNPACK_B8": (1, 128, 32),
         "DIST_UNPACK_B16": (2, 128, 32), "DIST_UNPACK_B32": (4, 128, 32), "DIST_UNPACK4_B8": (1, 64, 32),
         "DIST_BLK": (None, 32, 32), "DIST_E2B_B16": (2, 16, 16), "DIST_E2B_B32": (4, 32, 32)}
DUAL_LOADS = {"DIST_DINTLV_B8": 1, "DIST_DINTLV_B16": 2, "DIST_DINTLV_B32": 4}
# StoreDist: (suffix width or None, output bytes per lane or None = width, alignment, mask used)   store table
STORES = {"DIST_NORM": (None, None, 32, True), "DIST_NORM_B8": (1, None, 32, True),
          "DIST_NORM_B16": (2, None, 32, True), "DIST_NORM_B32": (4, None, 32, True),
          "DIST_FIRST_ELEMENT_B8": (1, None, 1, False), "DIST_FIRST_ELEMENT_B16": (2, None, 2, False),
          "DIST_FIRST_ELEMENT_B32": (4, None, 4, False), "DIST_PACK_B16": (2, 1, 32, True),
          "DIST_PACK_B32": (4, 2, 32, True), "DIST_PACK_B64": (8, 4, 32, True), "DIST_PACK4_B32": (4, 1, 32, True)}
DUAL_STORES = {"DIST_INTLV_B8": 1, "DIST_INTLV_B16": 2, "DIST_INTLV_B32": 4}


def load_dtypes(dist):
    w = LOADS[dist][0]
    if w is None:  # DIST_NORM: every type; DIST_BLK: b64 registers support DIST_NORM only
        return DTYPES if dist == "DIST_NORM" else [d for d in DTYPES if SIZES[d] < 8]
    return BY_SIZE[w]


def store_dtypes(dist):
    w, out, _, _ = STORES[dist]
    if w is None:
        return DTYPES
    if dist.startswith("DIST_PACK"):  # decisions.md: the register may also have the packed output type
        return BY_SIZE[w] + BY_SIZE[out]
    return BY_SIZE[w]


def model_load(dist, ub, addr, size):
    w, n, _ = LOADS[dist]
    src = ub[addr:addr + n]
    if dist == "DIST_NORM":
        return src.copy()
    if dist == "DIST_BLK":
        return np.tile(src, 8)
    elems = src.reshape(-1, w)
    lanes = VL // w
    if dist.startswith("DIST_BRC"):
        return np.tile(src, lanes)
    if dist.startswith("DIST_US"):
        return np.repeat(elems, 2, axis=0).ravel()
    if dist.startswith("DIST_DS"):
        return elems[0::2].ravel().copy()
    if dist.startswith("DIST_E2B"):
        return np.repeat(elems, 32 // w, axis=0).ravel()
    out = np.zeros((lanes, w), np.uint8)
    out[0::4 if dist.startswith("DIST_UNPACK4") else 2] = elems
    return out.ravel()


def model_store_writes(dist, reg, size, m):
    """[(byte offset from the address, bytes)] that StoreAlign(dist) writes."""
    w, out, _, masked = STORES[dist]
    w = w or size
    out = out or w
    lanes = 1 if dist.startswith("DIST_FIRST") else VL // w
    return [(i * out, reg[i * w:i * w + out]) for i in range(lanes) if not masked or lane_on(m, i, w)]


# ===================================================================================================================
# Harness: a fresh 950 core per run with a given UB image; tensors as raw views at chosen addresses
# ===================================================================================================================
UB_SIZE = aj.Core("ascend950").ub.size


def new_core(ub0, bounds="tensor"):
    core = aj.Core("ascend950", bounds=bounds)
    core.ub[:] = ub0
    return core


def new_reg(T, data):
    r = R.RegTensor(T)
    r.data[:VL] = data
    return r


def reg_bytes(r):
    return r.data[:VL].copy()


def words(m):
    return tuple((m >> (64 * k)) & (2**64 - 1) for k in range(4))


def mbits(mr):
    return sum(int(w) << (64 * k) for k, w in enumerate(mr.words))


def outcome(fn):
    try:
        return fn(), None
    except (ALIGN_E, BOUNDS_E, DTYPE_E, STATE_E, PARAM_E) as e:
        return None, type(e)


def check_outcome(got, err, want, want_err, ub, ub_want, what):
    """want_err: None, an error class, or a set of acceptable classes (a call with two faults)."""
    if want_err is None:
        assert err is None, f"{what}: refused with {err.__name__ if err else None}"
        assert got == want, f"{what}: returned {got}, model {want}"
    else:
        ok = want_err if isinstance(want_err, set) else {want_err}
        assert err in ok, f"{what}: {err} not in {ok} (returned {got})"
    diff = np.flatnonzero(ub != ub_want)
    assert diff.size == 0, f"{what}: UB differs at {diff[:8]} (got {ub[diff[:8]]}, model {ub_want[diff[:8]]})"


# ===================================================================================================================
# VFs (module level, several operations each, so numba caches them)
# ===================================================================================================================
@R.simd_vf
def VF_MOVE(kind, r0, r1, m, t, off, dist, step, use_step):
    if kind == 0:
        if use_step:
            return R.LoadAlign(r0, t, off, dist=dist, post_update_stride=step)
        return R.LoadAlign(r0, t, off, dist=dist)
    if kind == 1:
        if use_step:
            return R.LoadAlign(r0, r1, t, off, dist=dist, post_update_stride=step)
        return R.LoadAlign(r0, r1, t, off, dist=dist)
    if kind == 2:
        if use_step:
            return R.StoreAlign(t, r0, m, off, dist=dist, post_update_stride=step)
        return R.StoreAlign(t, r0, m, off, dist=dist)
    if kind == 3:
        if use_step:
            return R.StoreAlign(t, r0, r1, m, off, dist=dist, post_update_stride=step)
        return R.StoreAlign(t, r0, r1, m, off, dist=dist)
    # the forms' default distributions left out (DIST_NORM; the dual forms' DINTLV_B16 / INTLV_B16)
    if kind == 4:
        if use_step:
            return R.LoadAlign(r0, t, off, post_update_stride=step)
        return R.LoadAlign(r0, t, off)
    if kind == 5:
        if use_step:
            return R.LoadAlign(r0, r1, t, off, post_update_stride=step)
        return R.LoadAlign(r0, r1, t, off)
    if kind == 6:
        if use_step:
            return R.StoreAlign(t, r0, m, off, post_update_stride=step)
        return R.StoreAlign(t, r0, m, off)
    if use_step:
        return R.StoreAlign(t, r0, r1, m, off, post_update_stride=step)
    return R.StoreAlign(t, r0, r1, m, off)


@R.simd_vf
def VF_BLOCKS(store, reg, t, off, bs, m, rs, pm):
    if store:
        return R.StoreAlign(t, reg, off, data_block_stride=bs, mask=m, repeat_stride=rs, post_mode=pm)
    return R.LoadAlign(reg, t, off, data_block_stride=bs, mask=m, repeat_stride=rs, post_mode=pm)


@R.simd_vf
def VF_MASK_IO(store, mr, t, off, dist, step):
    if store:
        return R.StoreAlign(t, mr, off, dist=dist, post_update_stride=step)
    return R.LoadAlign(mr, t, off, dist=dist, post_update_stride=step)


def plain_move(kind, r0, r1, m, t, off, dist, step, use_step):
    kw = {"post_update_stride": step} if use_step else {}
    if kind >= 4:
        kind -= 4
    else:
        kw["dist"] = dist
    if kind == 0:
        return R.LoadAlign(r0, t, off, **kw)
    if kind == 1:
        return R.LoadAlign(r0, r1, t, off, **kw)
    if kind == 2:
        return R.StoreAlign(t, r0, m, off, **kw)
    return R.StoreAlign(t, r0, r1, m, off, **kw)


def _tensor_at(rng, s, nbytes, at_end):
    """A tensor's byte address: at the very end of the UB, or anywhere (element aligned, not always 32-B aligned)."""
    if at_end:
        return UB_SIZE - nbytes
    return 32 * int(rng.integers(0, (UB_SIZE - nbytes - 64) // 32)) + s * int(rng.integers(0, 32 // s))


def _offsets(t_addr, s, align, nbytes, span):
    """Element offsets whose address is `align`-aligned and whose span lies in the tensor."""
    return [o for o in range(0, (nbytes - span) // s + 1) if (t_addr + o * s) % align == 0]


def gen_move_case(rng, store):
    table = (STORES if store else LOADS)
    duals = DUAL_STORES if store else DUAL_LOADS
    dist = str(rng.choice(list(table) + list(duals)))
    dual = dist in duals
    if dual:
        w = duals[dist]
        span, align, dts = 512, 32, BY_SIZE[w]
    elif store:
        w, out, align, _ = STORES[dist]
        dts = store_dtypes(dist)
        span = None
    else:
        w, span, align = LOADS[dist]
        dts = load_dtypes(dist)
    fault = str(rng.choice(["none"] * 6 + ["align", "bounds", "step", "dtype"]))
    T = str(rng.choice(dts))
    if fault == "dtype":
        other = [d for d in DTYPES if d not in dts]
        if other:
            T = str(rng.choice(other))
        else:
            fault = "none"
    s = SIZES[T]
    if span is None:  # single store: the span of the distribution at the register's lane width
        ww = w or s
        if dist.startswith("DIST_FIRST"):
            span = ww
        else:
            span = (VL // ww) * (out or ww)
    nbytes = span + s * int(rng.integers(0, 96 // s + 1))
    at_end = rng.random() < 0.2
    t_addr = _tensor_at(rng, s, nbytes, at_end)
    legal = _offsets(t_addr, s, align, nbytes, span)
    if not legal:  # a start that no aligned offset fits: move the tensor to an aligned address
        t_addr -= t_addr % 32
        legal = _offsets(t_addr, s, align, nbytes, span)
    off = legal[-1] if rng.random() < 0.3 else int(rng.choice(legal))
    astep = max(1, align // s)
    use_step = bool(rng.random() < 0.6)
    step = astep * int(rng.integers(-4, 9))
    if fault == "align":
        if astep > 1:
            off += int(rng.integers(1, astep))
        else:
            fault = "none"
    elif fault == "bounds":
        off = legal[-1] + astep * int(rng.integers(1, 4)) if rng.random() < 0.7 else legal[0] - astep
    elif fault == "step":
        if astep > 1:
            use_step, step = True, step + int(rng.integers(1, astep))
        else:
            fault = "none"
    return dict(dist=dist, dual=dual, store=store, T=T, t_addr=t_addr, n=nbytes // s, off=off, step=step,
                use_step=use_step, fault=fault, dts=dts, align=align, implicit=bool(rng.random() < 0.5))


def gen_mask(rng, size):
    lanes = VL // size
    kind = int(rng.integers(0, 6))
    if kind == 0:
        return (1 << 256) - 1
    if kind == 1:
        return 0
    if kind == 2:
        return int.from_bytes(rng.integers(0, 256, 32, dtype=np.uint8).tobytes(), "little")
    junk = int.from_bytes(rng.integers(0, 256, 32, dtype=np.uint8).tobytes(), "little")
    sig = sum(1 << (i * size) for i in range(lanes))
    junk &= ~sig  # bits that are no lane's lowest: never read (SPEC 7.1)
    if kind == 3:
        k = int(rng.integers(0, lanes + 1))
        return junk | sum(1 << (i * size) for i in range(k))
    if kind == 4:
        return junk | sum(1 << (i * size) for i in range(lanes) if rng.random() < 0.5)
    return junk | (1 << (int(rng.integers(0, lanes)) * size))


def model_move(case, ub0, r0, r1, m):
    """-> (returned, error or set of errors, ub, reg0, reg1)."""
    T, s, off, step = case["T"], SIZES[case["T"]], case["off"], case["step"]
    dist, dual, store = case["dist"], case["dual"], case["store"]
    ub = ub0.copy()
    lo, hi = case["t_addr"], case["t_addr"] + case["n"] * s
    if case.get("bounds") == "ub":  # aj.Core(bounds="ub"): only the UB limit (SPEC-2 11.6, 1.5)
        lo, hi = 0, UB_SIZE
    if T not in case["dts"]:
        return None, DTYPE_E, ub, r0, r1
    addr = case["t_addr"] + off * s
    align = case["align"]
    errs = set()
    if addr % align or (case["use_step"] and (step * s) % align):
        errs.add(ALIGN_E)
    if store:
        if dual:
            w = DUAL_STORES[dist]
            inter = np.stack([r0.reshape(-1, w), r1.reshape(-1, w)], axis=1).ravel()
            writes = [(0, inter)]
        else:
            writes = model_store_writes(dist, r0, s, m)
        for at, b in writes:
            if addr + at < lo or addr + at + len(b) > hi:
                errs.add(BOUNDS_E)
    else:
        span = 512 if dual else LOADS[dist][1]
        if addr < lo or addr + span > hi:
            errs.add(BOUNDS_E)
    if errs:
        return None, (errs.pop() if len(errs) == 1 else errs), ub, r0, r1
    ret = off + step if case["use_step"] else off
    if store:
        for at, b in writes:
            ub[addr + at:addr + at + len(b)] = b
        return ret, None, ub, r0, r1
    if dual:
        w = DUAL_LOADS[dist]
        el = ub0[addr:addr + 512].reshape(-1, w)
        return ret, None, ub, el[0::2].ravel().copy(), el[1::2].ravel().copy()
    return ret, None, ub, model_load(dist, ub0, addr, s), r1


def run_move(case, ub0, i0, i1, m, compiled):
    core = new_core(ub0, case.get("bounds", "tensor"))
    T = case["T"]
    t = core.local_tensor(T, case["n"], addr=case["t_addr"])
    r0, r1 = new_reg(T, i0), new_reg(T, i1)
    enum = R.StoreDist if case["store"] else R.LoadDist
    kind = 2 * case["store"] + case["dual"]
    if case["dist"] in ("DIST_NORM", "DIST_DINTLV_B16", "DIST_INTLV_B16") and case["implicit"]:
        kind += 4  # the default distribution, not passed
    mr = R.MaskReg(words(m))
    fn = VF_MOVE if compiled else plain_move
    with core:
        got, err = outcome(lambda: fn(kind, r0, r1, mr, t, case["off"], enum[case["dist"]], case["step"],
                                      case["use_step"]))
    return got, err, core.ub.copy(), reg_bytes(r0), reg_bytes(r1), mbits(mr)


def _random_ub(rng):
    return rng.integers(0, 256, UB_SIZE, dtype=np.uint8)


def _check_moves(store, n_cases, seed, ub_rule=False):
    rng = np.random.default_rng(seed)
    failures = []
    for k in range(n_cases):
        case = gen_move_case(rng, store)
        if ub_rule:  # a short tensor near the UB's end, accesses around it: only the UB limit applies
            s = SIZES[case["T"]]
            case.update(bounds="ub", n=32 // s, t_addr=UB_SIZE - 32 * int(rng.integers(1, 12)))
            span = 512 if case["dual"] else 256
            astep = max(1, case["align"] // s)
            case["off"] = astep * int(rng.integers(-(span // 32) - 2, 12)) * (32 // s) // astep
            if rng.random() < 0.1 and astep > 1:
                case["off"] += 1
        ub0 = _random_ub(rng)
        i0, i1 = (rng.integers(0, 256, VL, dtype=np.uint8) for _ in range(2))
        m = gen_mask(rng, SIZES[case["T"]])
        want = model_move(case, ub0, i0, i1, m)
        for compiled in (False, True):
            got = run_move(case, ub0, i0, i1, m, compiled)
            what = f"case {k} {'compiled' if compiled else 'plain'} {case} mask={m:#x}"
            try:
                check_outcome(got[0], got[1], want[0], want[1], got[2], want[2], what)
                assert (got[3] == want[3]).all(), f"{what}: reg0 {got[3]} model {want[3]}"
                assert (got[4] == want[4]).all(), f"{what}: reg1 differs"
                assert got[5] == m, f"{what}: mask changed"
            except AssertionError as e:
                failures.append(str(e)[:1500])
    assert not failures, f"{len(failures)} disagreements:\n" + "\n".join(failures[:6])


def test_loads_against_model():
    _check_moves(False, 220, 3601)


def test_stores_against_model():
    _check_moves(True, 220, 3602)


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync,dcache", reason="loads and stores past their tensors at "
                             "the UB end on purpose, through the bounds=\"ub\" escape hatch")
def test_loads_and_stores_at_the_ub_end_on_a_ub_bounds_core():
    _check_moves(False, 70, 3608, ub_rule=True)
    _check_moves(True, 70, 3609, ub_rule=True)


# ---- DATA_BLOCK_COPY (SPEC-2 11.6, D68; SPEC 7.3) ------------------------------------------------------------------
def gen_block_case(rng):
    T = str(rng.choice(BY_SIZE[1] + BY_SIZE[2] + BY_SIZE[4] + (BY_SIZE[8] if rng.random() < 0.1 else [])))
    s = SIZES[T]
    store = bool(rng.random() < 0.5)
    bs = int(rng.choice([0, 1, 1, 2, 3, 5])) if not store or rng.random() < 0.2 else int(rng.choice([1, 1, 2, 3, 5]))
    rs = int(rng.integers(0, 9))
    pm = int(rng.integers(0, 2))  # 0 POST_MODE_NORMAL, 1 POST_MODE_UPDATE
    nbytes = 32 * int(rng.integers(4, 48)) + s * int(rng.integers(0, 32 // s))
    t_addr = _tensor_at(rng, s, nbytes, rng.random() < 0.2)
    first = (-t_addr % 32) // s
    base = first + (32 // s) * int(rng.integers(0, max(1, (nbytes - first * s) // 32)))  # an aligned element
    if rng.random() < 0.12 and s < 32:
        base += int(rng.integers(1, 32 // s))  # misaligned
    off = base - rs * 32 // s if pm == 0 else base
    return dict(T=T, store=store, bs=bs, rs=rs, pm=pm, t_addr=t_addr, n=nbytes // s, off=off)


def model_blocks(case, ub0, r, m):
    s = SIZES[case["T"]]
    ub = ub0.copy()
    if s == 8:  # "Types b8/b16/b32"
        return None, DTYPE_E, ub, r
    lo, hi = case["t_addr"], case["t_addr"] + case["n"] * s
    moved = case["off"] + case["rs"] * 32 // s
    base_el, ret = (moved, case["off"]) if case["pm"] == 0 else (case["off"], moved)
    base = lo + base_el * s
    errs = set()
    if base % 32:
        errs.add(ALIGN_E)
    per = 32 // s
    plan = []
    for b in range(8):
        act = [j for j in range(b * per, (b + 1) * per) if lane_on(m, j, s)]
        if not act:
            continue
        at = base + b * case["bs"] * 32
        if case["store"]:
            for j in act:
                a = at + (j - b * per) * s
                if a < lo or a + s > hi:
                    errs.add(BOUNDS_E)
                plan.append((a, r[j * s:(j + 1) * s]))
        else:
            if at < lo or at + 32 > hi:
                errs.add(BOUNDS_E)
            plan.append((b, at))
    if errs:
        return None, (errs.pop() if len(errs) == 1 else errs), ub, r
    if case["store"]:
        for a, v in plan:
            ub[a:a + s] = v
        return ret, None, ub, r
    out = np.zeros(VL, np.uint8)
    for b, at in plan:
        out[b * 32:(b + 1) * 32] = ub0[at:at + 32]
    return ret, None, ub, out


def run_blocks(case, ub0, i0, m, compiled):
    core = new_core(ub0)
    t = core.local_tensor(case["T"], case["n"], addr=case["t_addr"])
    r = new_reg(case["T"], i0)
    mr = R.MaskReg(words(m))
    pm = R.PostLiteral.POST_MODE_NORMAL if case["pm"] == 0 else R.PostLiteral.POST_MODE_UPDATE
    with core:
        if compiled:
            got, err = outcome(lambda: VF_BLOCKS(case["store"], r, t, case["off"], case["bs"], mr, case["rs"], pm))
        elif case["store"]:
            got, err = outcome(lambda: R.StoreAlign(t, r, case["off"], data_block_stride=case["bs"], mask=mr,
                                                    repeat_stride=case["rs"], post_mode=pm))
        else:
            got, err = outcome(lambda: R.LoadAlign(r, t, case["off"], data_block_stride=case["bs"], mask=mr,
                                                   repeat_stride=case["rs"], post_mode=pm))
    return got, err, core.ub.copy(), reg_bytes(r), mbits(mr)


def test_data_block_copy_against_model():
    rng = np.random.default_rng(3603)
    failures = []
    for k in range(200):
        case = gen_block_case(rng)
        ub0 = _random_ub(rng)
        i0 = rng.integers(0, 256, VL, dtype=np.uint8)
        m = gen_mask(rng, SIZES[case["T"]])
        if rng.random() < 0.3:  # whole blocks off: the skipped blocks may lie past the tensor
            keep = [b for b in range(8) if rng.random() < 0.5]
            m &= sum(((1 << 32) - 1) << (32 * b) for b in keep)
        want = model_blocks(case, ub0, i0, m)
        for compiled in (False, True):
            got = run_blocks(case, ub0, i0, m, compiled)
            what = f"block case {k} {'compiled' if compiled else 'plain'} {case} mask={m:#x}"
            try:
                check_outcome(got[0], got[1], want[0], want[1], got[2], want[2], what)
                assert (got[3] == want[3]).all(), f"{what}: reg {got[3]} model {want[3]}"
                assert got[4] == m
            except AssertionError as e:
                failures.append(str(e)[:1500])
    assert not failures, f"{len(failures)} disagreements:\n" + "\n".join(failures[:6])


# ---- MaskReg loads and stores (SPEC-2 11.6 MaskDist table) ---------------------------------------------------------
MASK_LOADS = {"DIST_NORM": (32, 32), "DIST_US": (16, 16), "DIST_DS": (64, 32)}
MASK_STORES = {"DIST_NORM": (32, 32), "DIST_PACK": (16, 16)}


@R.simd_vf
def VF_MASK_STORE_THEN_LOAD(t, a, b, off):
    """Store a, load it back into b: the NORM round trip in one VF."""
    R.StoreAlign(t, a, off)
    R.LoadAlign(b, t, off)


def model_mask_io(case, ub0, m):
    s = SIZES[case["T"]]
    ub = ub0.copy()
    table = MASK_STORES if case["store"] else MASK_LOADS
    if case["dist"] not in table:
        return None, PARAM_E, ub, m
    n, align = table[case["dist"]]
    lo, hi = case["t_addr"], case["t_addr"] + case["n"] * s
    addr = lo + case["off"] * s
    errs = set()
    if addr % align or case["step"] % align:  # SPEC-2 1.8: a misaligned post-update step is an AlignmentError
        errs.add(ALIGN_E)
    if addr < lo or addr + n > hi:
        errs.add(BOUNDS_E)
    if errs:
        return None, (errs.pop() if len(errs) == 1 else errs), ub, m
    ret = case["off"] + case["step"] // s  # post_update_stride in bytes, the offset in elements
    if case["store"]:
        if case["dist"] == "DIST_NORM":
            ub[addr:addr + 32] = np.frombuffer(m.to_bytes(32, "little"), np.uint8)
        else:
            p = sum(bit(m, 2 * k) << k for k in range(128))
            ub[addr:addr + 16] = np.frombuffer(p.to_bytes(16, "little"), np.uint8)
        return ret, None, ub, m
    src = int.from_bytes(ub0[addr:addr + n].tobytes(), "little")
    if case["dist"] == "DIST_NORM":
        new = src
    elif case["dist"] == "DIST_US":
        new = sum(bit(src, k) * (3 << (2 * k)) for k in range(128))
    else:
        new = sum(bit(src, 2 * k) << k for k in range(256))
    return ret, None, ub, new


def gen_mask_io_case(rng):
    store = bool(rng.random() < 0.5)
    table = MASK_STORES if store else MASK_LOADS
    dist = str(rng.choice(list(table))) if rng.random() < 0.93 else str(rng.choice(
        [d for d in ("DIST_NORM", "DIST_US", "DIST_DS", "DIST_PACK") if d not in table]))
    n, align = (table.get(dist) or (32, 32))
    T = str(rng.choice(DTYPES))
    s = SIZES[T]
    nbytes = n + s * int(rng.integers(0, 64 // s + 1))
    t_addr = _tensor_at(rng, s, nbytes, rng.random() < 0.2)
    legal = _offsets(t_addr, s, align, nbytes, n)
    if not legal:
        t_addr -= t_addr % 32
        legal = _offsets(t_addr, s, align, nbytes, n)
    off = legal[-1] if rng.random() < 0.3 else int(rng.choice(legal))
    r = rng.random()
    if r < 0.08 and align > s:
        off += int(rng.integers(1, align // s))
    elif r < 0.16:
        off = legal[-1] + max(1, align // s) if rng.random() < 0.7 else legal[0] - max(1, align // s)
    step = align * int(rng.integers(-4, 6))  # bytes (the doc), meeting the distribution's alignment
    if rng.random() < 0.08 and s < align:
        step += s * int(rng.integers(1, align // s))
    return dict(store=store, dist=dist, T=T, t_addr=t_addr, n=nbytes // s, off=off, step=step)


def run_mask_io(case, ub0, m, compiled):
    core = new_core(ub0)
    t = core.local_tensor(case["T"], case["n"], addr=case["t_addr"])
    mr = R.MaskReg(words(m))
    d = R.MaskDist[case["dist"]]
    with core:
        if compiled:
            got, err = outcome(lambda: VF_MASK_IO(case["store"], mr, t, case["off"], d, case["step"]))
        elif case["store"]:
            got, err = outcome(lambda: R.StoreAlign(t, mr, case["off"], dist=d, post_update_stride=case["step"]))
        else:
            got, err = outcome(lambda: R.LoadAlign(mr, t, case["off"], dist=d, post_update_stride=case["step"]))
    return got, err, core.ub.copy(), mbits(mr)


def test_mask_loads_and_stores_against_model():
    rng = np.random.default_rng(3604)
    failures = []
    for k in range(160):
        case = gen_mask_io_case(rng)
        ub0 = _random_ub(rng)
        m = int.from_bytes(rng.integers(0, 256, 32, dtype=np.uint8).tobytes(), "little")
        want = model_mask_io(case, ub0, m)
        for compiled in (False, True):
            got = run_mask_io(case, ub0, m, compiled)
            what = f"mask io case {k} {'compiled' if compiled else 'plain'} {case} mask={m:#x}"
            try:
                check_outcome(got[0], got[1], want[0], want[1], got[2], want[2], what)
                assert got[3] == want[3], f"{what}: mask {got[3]:#x} model {want[3]:#x}"
            except AssertionError as e:
                failures.append(str(e)[:1500])
    assert not failures, f"{len(failures)} disagreements:\n" + "\n".join(failures[:6])


def test_mask_norm_round_trip_in_one_vf():
    rng = np.random.default_rng(3605)
    ub0 = _random_ub(rng)
    m = int.from_bytes(rng.integers(0, 256, 32, dtype=np.uint8).tobytes(), "little")
    for compiled in (False, True):
        core = new_core(ub0)
        t = core.local_tensor("uint8", 96, addr=UB_SIZE - 96)  # at the UB's end
        a, b = R.MaskReg(words(m)), R.MaskReg((1, 2, 3, 4))
        with core:
            (VF_MASK_STORE_THEN_LOAD if compiled else VF_MASK_STORE_THEN_LOAD.py_func)(t, a, b, 64)
        want = ub0.copy()
        want[UB_SIZE - 32:] = np.frombuffer(m.to_bytes(32, "little"), np.uint8)
        assert (core.ub == want).all() and mbits(b) == m and mbits(a) == m


# ---- MaskReg operations (SPEC-2 11.7, D64; SPEC 7.1, 7.2; decisions.md "Reg API" CreateMask patterns) --------------
ALL = (1 << 256) - 1
OPS = ["And", "Or", "Xor", "Not", "Move", "MoveM", "Select", "Pack", "UnPack", "Interleave", "DeInterleave",
       "CreateMask", "UpdateMask", "MoveMask"]


def lanes_mask(size, lanes):
    """Every mask bit of each lane in `lanes` (UpdateMask/CreateMask set all of a lane's bits, decisions.md)."""
    return sum(((1 << size) - 1) << (j * size) for j in lanes)


PATTERNS = {"ALL": lambda n: range(n), "ALLF": lambda n: [], "H": lambda n: range(n // 2), "Q": lambda n: range(n // 4),
            "M3": lambda n: range(0, n, 3), "M4": lambda n: range(0, n, 4),
            **{f"VL{k}": (lambda k: lambda n: range(min(k, n)))(k) for k in (1, 2, 3, 4, 8, 16, 32, 64, 128)}}


def groups(m, g):
    return [(m >> (g * i)) & ((1 << g) - 1) for i in range(256 // g)]


def ungroup(gs, g):
    return sum(v << (g * i) for i, v in enumerate(gs))


def model_mask_op(op, d0, d1, a, b, m, part, T, pattern, n, core_mask):
    """-> (returned n, error, d0, d1)."""
    hi = part == 1
    if op == "And":
        return n, None, a & b & m, d1
    if op == "Or":
        return n, None, (a | b) & m, d1
    if op == "Xor":
        return n, None, (a ^ b) & m, d1
    if op == "Not":
        return n, None, ~a & m & ALL, d1
    if op == "Move":
        return n, None, a, d1
    if op == "MoveM":
        return n, None, a & m, d1
    if op == "Select":
        return n, None, (a & m) | (b & ~m & ALL), d1
    if op == "Pack":
        p = sum(bit(a, 2 * k) << k for k in range(128))
        return n, None, p << 128 if hi else p, d1
    if op == "UnPack":
        src = (a >> 128) if hi else a & ((1 << 128) - 1)
        return n, None, sum(bit(src, k) << (2 * k) for k in range(128)), d1
    s = SIZES[T]
    lanes = VL // s
    if op in ("Interleave", "DeInterleave"):
        if s == 8:   # b8/b16/b32 only (SPEC-2 11.7): a dtype outside the table, 1.8 row 2 (audit 45a)
            return n, DTYPE_E, d0, d1
        ga, gb = groups(a, s), groups(b, s)
        if op == "Interleave":
            seq = [v for pair in zip(ga, gb) for v in pair]
        else:
            cat = ga + gb
            seq = cat[0::2] + cat[1::2]
        half = len(seq) // 2
        return n, None, ungroup(seq[:half], s), ungroup(seq[half:], s)
    if op == "CreateMask":
        return n, None, lanes_mask(s, PATTERNS[pattern](lanes)), d1
    if op == "UpdateMask":
        return max(0, n - lanes), None, lanes_mask(s, range(min(n, lanes))), d1
    # MoveMask: {MASK1, MASK0} of the core's mask register (SPEC 7.1, SPEC-2 11.7)
    if core_mask is None:
        return n, STATE_E, d0, d1
    low, high = core_mask
    reg128 = low | (high << 64)
    if s == 2:
        return n, None, sum(bit(reg128, i) * (3 << (2 * i)) for i in range(128)), d1
    if s == 4:
        return n, None, sum(bit(low, i) * (15 << (4 * i)) for i in range(64)), d1
    return n, {PARAM_E, DTYPE_E}, d0, d1


@R.simd_vf
def VF_MASK_OPS(op, d0, d1, a, b, m, part, T, pattern, n):
    if op == 0:
        R.And(d0, a, b, m)
    elif op == 1:
        R.Or(d0, a, b, m)
    elif op == 2:
        R.Xor(d0, a, b, m)
    elif op == 3:
        R.Not(d0, a, m)
    elif op == 4:
        R.Move(d0, a)
    elif op == 5:
        R.Move(d0, a, m)
    elif op == 6:
        R.Select(d0, a, b, m)
    elif op == 7:
        R.Pack(d0, a, part)
    elif op == 8:
        R.UnPack(d0, a, part)
    elif op == 9:
        R.Interleave(d0, d1, a, b, T)
    elif op == 10:
        R.DeInterleave(d0, d1, a, b, T)
    elif op == 11:
        R.Move(d0, R.CreateMask(T, pattern))
    elif op == 12:
        mk, n = R.UpdateMask(T, n)
        R.Move(d0, mk)
    else:
        R.Move(d0, R.MoveMask(T))
    return n


def plain_mask_op(op, d0, d1, a, b, m, part, T, pattern, n):
    name = OPS[op]
    if name == "And":
        R.And(d0, a, b, m)
    elif name == "Or":
        R.Or(d0, a, b, m)
    elif name == "Xor":
        R.Xor(d0, a, b, m)
    elif name == "Not":
        R.Not(d0, a, m)
    elif name == "Move":
        R.Move(d0, a)
    elif name == "MoveM":
        R.Move(d0, a, m)
    elif name == "Select":
        R.Select(d0, a, b, m)
    elif name == "Pack":
        R.Pack(d0, a, part)
    elif name == "UnPack":
        R.UnPack(d0, a, part)
    elif name == "Interleave":
        R.Interleave(d0, d1, a, b, T)
    elif name == "DeInterleave":
        R.DeInterleave(d0, d1, a, b, T)
    elif name == "CreateMask":
        d0.words = R.CreateMask(T, pattern).words
    elif name == "UpdateMask":
        mk, n = R.UpdateMask(T, n)
        d0.words = mk.words
    else:
        d0.words = R.MoveMask(T).words
    return n


def _rand_bits(rng):
    return int.from_bytes(rng.integers(0, 256, 32, dtype=np.uint8).tobytes(), "little")


COMPILED_OP_TYPES = ("uint8", "half", "float", "uint64")  # one specialisation of VF_MASK_OPS per dtype name


def test_mask_operations_against_model():
    rng = np.random.default_rng(3606)
    failures = []
    for k in range(260):
        op = int(rng.integers(0, len(OPS)))
        T = str(rng.choice(COMPILED_OP_TYPES))
        plain_T = str(rng.choice(DTYPES))
        a, b, m, d0, d1 = (_rand_bits(rng) for _ in range(5))
        if rng.random() < 0.3:
            m = gen_mask(rng, int(rng.choice([1, 2, 4, 8])))
        part = int(rng.integers(0, 2))
        pattern = str(rng.choice(list(PATTERNS)))
        n = int(rng.choice([0, 1, 7, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 2**32 - 1]))
        alias = int(rng.integers(0, 4))  # 0: distinct; 1: d0 is a; 2: d0 is b; 3: d0 is m
        counter = rng.random() < 0.1
        lo_hi = (int(rng.integers(0, 2**63)) * 2 + int(rng.integers(0, 2)), int(rng.integers(0, 2**63)))
        for compiled in (False, True):
            TT = T if compiled else plain_T
            s_a = {1: a, 2: b, 3: m}.get(alias, d0)
            want_d0 = s_a
            want = model_mask_op(OPS[op], s_a, d1, a, b, m, part, TT, pattern, n,
                                 None if counter else lo_hi)
            core = aj.Core("ascend950")
            with core:
                core.SetVectorMask(lo_hi[1], lo_hi[0], dtype="half")
                if counter:
                    core.SetMaskCount()
                ra, rb, rm, r1 = (R.MaskReg(words(v)) for v in (a, b, m, d1))
                r0 = {1: ra, 2: rb, 3: rm}.get(alias) or R.MaskReg(words(d0))
                before = [mbits(x) for x in (ra, rb, rm)]
                if compiled:
                    got, err = outcome(lambda: VF_MASK_OPS(op, r0, r1, ra, rb, rm, R.HighLowPart(part), TT,
                                                           R.MaskPattern[pattern], n))
                else:
                    got, err = outcome(lambda: plain_mask_op(op, r0, r1, ra, rb, rm, R.HighLowPart(part), TT,
                                                             R.MaskPattern[pattern], n))
            what = (f"mask op {k} {OPS[op]} {'compiled' if compiled else 'plain'} T={TT} part={part} pattern={pattern}"
                    f" n={n} alias={alias} counter={counter} mask reg={lo_hi}")
            try:
                werr = want[1]
                if werr is None:
                    assert err is None, f"{what}: refused {err}"
                    assert got == want[0], f"{what}: n {got} model {want[0]}"
                    assert mbits(r0) == want[2], f"{what}: d0 {mbits(r0):#x} model {want[2]:#x}"
                    if OPS[op] in ("Interleave", "DeInterleave"):
                        assert mbits(r1) == want[3], f"{what}: d1 {mbits(r1):#x} model {want[3]:#x}"
                else:
                    assert err in (werr if isinstance(werr, set) else {werr}), f"{what}: {err} model {werr}"
                    assert mbits(r0) == want_d0 and mbits(r1) == d1, f"{what}: refused call changed a MaskReg"
                others = [x for x in (ra, rb, rm) if x is not r0]
                assert all(mbits(x) == v for x, v in zip((ra, rb, rm), before) if x in others), \
                    f"{what}: a source changed"
            except AssertionError as e:
                failures.append(str(e)[:1500])
    assert not failures, f"{len(failures)} disagreements:\n" + "\n".join(failures[:8])


# ---- Unaligned loads and stores (SPEC-2 11.6 functional model, D68) -----------------------------------------------
@R.simd_vf
def VF_UNALIGNED(r0, r1, tin, p, a1, s1, use_s1, da2, tout, b1, n1, db2, n2, post, flush):
    ul = R.UnalignRegForLoad()
    R.LoadUnAlignPre(ul, tin, p)
    if use_s1:
        o1 = R.LoadUnAlign(r0, ul, tin, a1, s1)
    else:
        o1 = R.LoadUnAlign(r0, ul, tin, a1)
    o2 = R.LoadUnAlign(r1, ul, tin, o1 + da2)
    us = R.UnalignRegForStore()
    q1 = R.StoreUnAlign(tout, r0, us, b1, n1)
    q2 = R.StoreUnAlign(tout, r1, us, q1 + db2, n2)
    q3 = q2
    if flush:
        q3 = R.StoreUnAlignPost(tout, us, q2, post)
    return o1, o2, q1, q2, q3


class Refused(Exception):
    pass


def model_unaligned(c, ub0, i0, i1):
    """The sequence of VF_UNALIGNED on the model: -> (returned tuple, error, ub, r0, r1)."""
    s = SIZES[c["T"]]
    ub = ub0.copy()
    regs = [i0.copy(), i1.copy()]
    lo_in, hi_in = c["tin"], c["tin"] + c["nin"] * s
    lo_out, hi_out = c["tout"], c["tout"] + c["nout"] * s
    try:
        expected = lo_in + c["p"] * s

        def load(k, off, stride):
            nonlocal expected
            addr = lo_in + off * s
            if addr != expected:
                raise Refused(STATE_E)
            if addr < lo_in or addr + VL > hi_in:
                raise Refused(BOUNDS_E)
            regs[k] = ub[addr:addr + VL].copy()
            if stride is None:
                expected = addr + VL
                return off + VL // s
            expected = addr + stride * s
            return off + stride

        o1 = load(0, c["a1"], c["s1"] if c["use_s1"] else None)
        o2 = load(1, o1 + c["da2"], None)
        pend = None  # (address, bytes)

        def store(k, off, n):
            nonlocal pend
            a = lo_out + off * s
            if pend is not None and len(pend[1]) and pend[0] + len(pend[1]) != a:
                raise Refused(STATE_E)
            if a < lo_out or a + n * s > hi_out:
                raise Refused(BOUNDS_E)
            start, run = (pend if pend is not None and len(pend[1]) else (a, np.zeros(0, np.uint8)))
            run = np.concatenate([run, regs[k][:n * s]])
            cut = (a + n * s) // 32 * 32
            now = max(0, cut - start)
            ub[start:start + now] = run[:now]
            pend = (start + now, run[now:])
            return off + n

        q1 = store(0, c["b1"], c["n1"])
        q2 = store(1, q1 + c["db2"], c["n2"])
        q3 = q2
        if c["flush"]:
            if pend is not None:
                ub[pend[0]:pend[0] + len(pend[1])] = pend[1]
            pend = None
            q3 = q2 + c["post"]
        elif pend is not None and len(pend[1]):
            raise Refused(STATE_E)  # the VF ends with bytes pending (SPEC-2 11.6)
        return (o1, o2, q1, q2, q3), None, ub, regs[0], regs[1]
    except Refused as e:
        return None, e.args[0], ub, regs[0], regs[1]


def gen_unaligned_case(rng):
    T = str(rng.choice(DTYPES))
    s = SIZES[T]
    lanes = VL // s
    nin = (2 * VL + int(rng.integers(0, 200))) // s
    nout = (2 * VL + int(rng.integers(0, 200))) // s
    at_end = rng.random() < 0.4
    tin = s * int(rng.integers(0, 60000 // s))
    tout = UB_SIZE - nout * s if at_end else 120000 + s * int(rng.integers(0, 60000 // s))
    use_s1 = bool(rng.random() < 0.5)
    s1 = int(rng.integers(0, lanes + 1))
    first = (s1 if use_s1 else lanes)
    a1 = int(rng.integers(0, nin - lanes - first + 1))
    if rng.random() < 0.1:
        a1 = nin - lanes + int(rng.integers(1, 4))  # the first load passes the tensor end
    p = a1 + (int(rng.integers(1, 3)) if rng.random() < 0.08 else 0)
    da2 = int(rng.integers(1, 3)) if rng.random() < 0.08 else 0
    n1 = int(rng.integers(1, lanes + 1))
    n2 = int(rng.integers(1, lanes + 1))
    b1 = int(rng.integers(0, nout - n1 - n2 + 1))
    if rng.random() < 0.3:
        b1 = nout - n1 - n2  # the runs end at the tensor's (and maybe the UB's) end
    if rng.random() < 0.08:
        n2 = min(lanes, nout - b1 - n1 + int(rng.integers(1, 3)))  # past the tensor end
    db2 = int(rng.integers(1, 3)) * (1 if rng.random() < 0.5 else -1) if rng.random() < 0.1 else 0
    return dict(T=T, tin=tin, nin=nin, tout=tout, nout=nout, p=p, a1=a1, s1=s1, use_s1=use_s1, da2=da2, b1=b1,
                n1=n1, db2=db2, n2=n2, post=int(rng.integers(-3, 40)), flush=bool(rng.random() < 0.85))


def test_unaligned_loads_and_stores_against_model():
    rng = np.random.default_rng(3607)
    failures = []
    for k in range(150):
        c = gen_unaligned_case(rng)
        ub0 = _random_ub(rng)
        i0, i1 = (rng.integers(0, 256, VL, dtype=np.uint8) for _ in range(2))
        want = model_unaligned(c, ub0, i0, i1)
        for compiled in (False, True):
            core = new_core(ub0)
            tin = core.local_tensor(c["T"], c["nin"], addr=c["tin"])
            tout = core.local_tensor(c["T"], c["nout"], addr=c["tout"])
            r0, r1 = new_reg(c["T"], i0), new_reg(c["T"], i1)
            fn = VF_UNALIGNED if compiled else VF_UNALIGNED.py_func
            with core:
                got, err = outcome(lambda: fn(r0, r1, tin, c["p"], c["a1"], c["s1"], c["use_s1"], c["da2"], tout,
                                              c["b1"], c["n1"], c["db2"], c["n2"], c["post"], c["flush"]))
            what = f"unaligned case {k} {'compiled' if compiled else 'plain'} {c}"
            try:
                check_outcome(tuple(got) if got is not None else None, err, want[0], want[1], core.ub, want[2],
                              what)
                assert (reg_bytes(r0) == want[3]).all(), f"{what}: r0 differs"
                assert (reg_bytes(r1) == want[4]).all(), f"{what}: r1 differs"
            except AssertionError as e:
                failures.append(str(e)[:1500])
    assert not failures, f"{len(failures)} disagreements:\n" + "\n".join(failures[:6])


# ---- SPEC-2 12.8 golden vectors G-4 / G-5 and H-11, through the model's VFs and plain calls ------------------------
@pytest.mark.parametrize("compiled", [False, True])
def test_g4_vectors(compiled):
    fn = VF_MOVE if compiled else plain_move
    core = aj.Core("ascend950")
    a = core.local_tensor("uint16", 256, addr=UB_SIZE - 512)  # at the UB's end
    a[:] = np.arange(1, 257, dtype=np.uint16)
    h = core.local_tensor("half", 16, addr=1024)
    h[:] = np.float16(1.0)
    all_m = R.MaskReg(words(ALL))
    L = R.LoadDist
    with core:
        r, r1 = R.RegTensor("half"), R.RegTensor("half")
        fn(0, r, r1, all_m, h, 3, L.DIST_BRC_B16, 0, False)
        assert (r.numpy().view(np.uint16) == 0x3C00).all()
        u, u1 = R.RegTensor("uint16"), R.RegTensor("uint16")
        fn(0, u, u1, all_m, a, 0, L.DIST_US_B16, 0, False)
        assert u.numpy().tolist() == [1 + i // 2 for i in range(128)]
        fn(0, u, u1, all_m, a, 0, L.DIST_DS_B16, 0, False)
        assert u.numpy().tolist() == list(range(1, 257, 2))
        fn(0, u, u1, all_m, a, 128, L.DIST_UNPACK_B16, 0, False)
        assert reg_bytes(u).view(np.uint32).tolist() == list(range(129, 193))
        fn(1, u, u1, all_m, a, 0, L.DIST_DINTLV_B16, 0, False)
        assert u.numpy().tolist() == list(range(1, 257, 2)) and u1.numpy().tolist() == list(range(2, 257, 2))
        back = core.local_tensor("uint16", 256, addr=4096)
        fn(3, u, u1, R.MaskReg(), back, 0, R.StoreDist.DIST_INTLV_B16, 0, False)  # mask ignored
        assert back.numpy().tolist() == list(range(1, 257))
        src = core.local_tensor("int32", 64, addr=8192)
        src[:] = [0x11111111 * (k % 8 + 1) for k in range(64)]
        i, i1 = R.RegTensor("int32"), R.RegTensor("int32")
        fn(0, i, i1, all_m, src, 0, L.DIST_NORM, 0, False)
        out = core.local_tensor("uint16", 128, addr=12288)
        out[:] = 0xABCD
        fn(2, i, i1, all_m, out, 0, R.StoreDist.DIST_PACK_B32, 0, False)
        assert out.numpy()[:64].tolist() == [0x1111 * (k % 8 + 1) for k in range(64)]
        assert (out.numpy()[64:] == 0xABCD).all()
        out[:] = 0xABCD
        fn(2, i, i1, R.MaskReg(words(1 << 4)), out, 0, R.StoreDist.DIST_PACK_B32, 0, False)  # H-11: lane 1 only
        assert out.numpy().tolist() == [0xABCD, 0x2222] + [0xABCD] * 126
        o32 = core.local_tensor("int32", 64, addr=16384)
        o32[:] = -1
        fn(2, i, i1, R.MaskReg(), o32, 3, R.StoreDist.DIST_FIRST_ELEMENT_B32, 0, False)  # mask ignored
        assert o32.numpy().tolist() == [-1] * 3 + [0x11111111] + [-1] * 60


@pytest.mark.parametrize("compiled", [False, True])
def test_g5_vectors(compiled):
    core = aj.Core("ascend950")
    fn = VF_MASK_OPS if compiled else plain_mask_op
    T = "half"

    def op(name, a=0, b=0, m=0, part=0, dtype=T):
        d0, d1 = R.MaskReg(), R.MaskReg()
        fn(OPS.index(name), d0, d1, R.MaskReg(words(a)), R.MaskReg(words(b)), R.MaskReg(words(m)),
           R.HighLowPart(part), dtype, R.MaskPattern.ALL, 0)
        return mbits(d0), mbits(d1)

    with core:
        assert op("Pack", 1 << 2)[0] == 1 << 1
        assert op("UnPack", 1 << 1)[0] == 1 << 2
        d0, d1 = op("Interleave", ALL, 0)
        assert d0 == d1 == int.from_bytes(b"\x33" * 32, "little")
        assert op("DeInterleave", d0, d1) == (ALL, 0)
        assert op("And", 0b1110, 0b0111, 0b1101)[0] == 0b0100
        core.SetVectorMask(0, 0b101, dtype="half")
        assert op("MoveMask")[0] == 0b110011
        assert op("MoveMask", dtype="float")[0] == 0xF0F


@pytest.mark.parametrize("compiled", [False, True])
def test_load_and_store_whole_register_at_the_ub_end(compiled):
    """R.Load / R.Store (LoadUnAlignPre + LoadUnAlign, StoreUnAlign + StoreUnAlignPost) at odd addresses, the last
    byte of the UB included."""
    rng = np.random.default_rng(3610)
    ub0 = _random_ub(rng)
    core = new_core(ub0)
    t = core.local_tensor("uint8", 600, addr=UB_SIZE - 600)
    r = R.RegTensor("uint8")
    run = VF_LOAD_STORE if compiled else VF_LOAD_STORE.py_func
    with core:
        run(r, t, 17, t, 600 - 256 - 5, 256)
        run(r, t, 600 - 256, t, 3, 7)
    want = ub0.copy()
    base = UB_SIZE - 600
    want[base + 339:base + 595] = ub0[base + 17:base + 273]
    want[base + 3:base + 10] = want[base + 344:base + 351]
    assert (core.ub == want).all()
    assert (reg_bytes(r) == want[UB_SIZE - 256:]).all()


@R.simd_vf
def VF_LOAD_STORE(r, tin, a, tout, b, count):
    R.Load(r, tin, a)
    R.Store(tout, r, b, count)


# ---- registers and masks made inside a VF (the devkit's pattern), against the model -------------------------------
@R.simd_vf
def VF_INSIDE(T, tin, tout, off, dist, pattern, n, bs, moff, lanes):
    reg = R.RegTensor(T)
    R.LoadAlign(reg, tin, off, dist=dist)
    m, n = R.UpdateMask(T, n)
    R.StoreAlign(tout, reg, m, 0)
    R.StoreAlign(tout, reg, R.CreateMask(T, pattern), lanes)
    blk = R.RegTensor(T)
    R.LoadAlign(blk, tin, moff, data_block_stride=bs, mask=R.CreateMask(T, pattern))
    R.StoreAlign(tout, blk, 0, data_block_stride=1, mask=R.CreateMask(T, R.MaskPattern.ALL), repeat_stride=16,
                 post_mode=R.PostLiteral.POST_MODE_NORMAL)
    mk = R.MaskReg()
    R.LoadAlign(mk, tin, moff, dist=R.MaskDist.DIST_US)
    R.StoreAlign(tout, mk, 3 * lanes)
    return n


def model_inside(T, ub0, tin, tout, off, dist, pattern, n, bs, moff):
    s = SIZES[T]
    lanes = VL // s
    ub = ub0.copy()
    reg = model_load(dist, ub0, tin + off * s, s)
    m = lanes_mask(s, range(min(n, lanes)))
    for at, b in model_store_writes("DIST_NORM", reg, s, m):
        ub[tout + at:tout + at + len(b)] = b
    pm = lanes_mask(s, PATTERNS[pattern](lanes))
    for at, b in model_store_writes("DIST_NORM", reg, s, pm):
        ub[tout + 256 + at:tout + 256 + at + len(b)] = b
    blk = np.zeros(VL, np.uint8)
    for b in range(8):
        if any(lane_on(pm, j, s) for j in range(b * 32 // s, (b + 1) * 32 // s)):
            a = tin + moff * s + b * bs * 32
            blk[b * 32:(b + 1) * 32] = ub[a:a + 32]
    ub[tout + 512:tout + 768] = blk
    ub[tout + 768:tout + 800] = np.repeat(np.unpackbits(ub[tin + moff * s:tin + moff * s + 16], bitorder="little"),
                                          2).reshape(-1, 8) @ (1 << np.arange(8))
    return max(0, n - lanes), ub


@pytest.mark.parametrize("T", ["int8", "bfloat16", "float"])
def test_registers_and_masks_made_inside_a_vf(T):
    rng = np.random.default_rng(3611 + SIZES[T])
    s = SIZES[T]
    dists = [d for d in LOADS if T in load_dtypes(d)]
    for k in range(12):
        ub0 = _random_ub(rng)
        tin, tout = 32 * int(rng.integers(0, 3000)), 32 * int(rng.integers(4000, 7000))
        dist = str(rng.choice(dists))
        off = LOADS[dist][2] // s * int(rng.integers(0, 16))
        pattern = str(rng.choice(list(PATTERNS)))
        n = int(rng.choice([0, 1, 5, VL // s - 1, VL // s, 1000]))
        bs, moff = int(rng.integers(0, 4)), 32 // s * int(rng.integers(0, 8))
        want_n, want = model_inside(T, ub0, tin, tout, off, dist, pattern, n, bs, moff)
        for compiled in (False, True):
            core = new_core(ub0)
            a = core.local_tensor(T, 2048 // s, addr=tin)
            b = core.local_tensor(T, 1024 // s, addr=tout)
            with core:
                got = (VF_INSIDE if compiled else VF_INSIDE.py_func)(T, a, b, off, R.LoadDist[dist],
                                                                      R.MaskPattern[pattern], n, bs, moff, VL // s)
            what = f"inside {T} case {k} compiled={compiled} dist={dist} off={off} pattern={pattern} n={n} bs={bs}"
            diff = np.flatnonzero(core.ub != want)
            assert diff.size == 0, f"{what}: UB differs at {diff[:8] - tout}"
            assert got == want_n, what


# ---- targeted corners ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("compiled", [False, True])
def test_block_copy_partial_block_at_the_tensor_end(compiled):
    """A store block whose active lanes lie in the tensor writes them although its inactive lanes pass the end (the
    model: every byte written lies in the tensor); a load block with one active lane is read whole (SPEC 7.3), so
    the same block refuses the load."""
    rng = np.random.default_rng(3612)
    ub0 = _random_ub(rng)
    i0 = rng.integers(0, 256, VL, dtype=np.uint8)
    m = ((1 << 256) - 1) >> 32 | (0x5555 << 224)  # blocks 0..6 whole, block 7: lanes 112..119 (its first 16 B)
    base = dict(T="uint16", bs=1, rs=0, pm=1, t_addr=UB_SIZE - 256, n=120, off=0)  # ends 16 B into block 7
    for store in (True, False):
        case = dict(base, store=store)
        want = model_blocks(case, ub0, i0, m)
        got = run_blocks(case, ub0, i0, m, compiled)
        check_outcome(got[0], got[1], want[0], want[1], got[2], want[2], f"store={store}")
        assert (got[3] == want[3]).all()
    assert want[1] is BOUNDS_E


@R.simd_vf
def VF_MOVE_MASK(d, T):
    R.Move(d, R.MoveMask(T))


@pytest.mark.parametrize("compiled", [False, True])
def test_move_mask_needs_a_defined_mask_register_in_normal_mode(compiled):
    fn = VF_MOVE_MASK if compiled else VF_MOVE_MASK.py_func
    core = aj.Core("ascend950")
    d = R.MaskReg((1, 2, 3, 4))
    with core:
        core.SetVectorMask(2**64 - 1, 1 << 63, dtype="half")
        fn(d, "int16")
        assert mbits(d) == (3 << 126) | (((1 << 128) - 1) << 128)
        fn(d, "uint32")
        assert mbits(d) == 0xF << 252
        core.mask_defined = False  # as D31 leaves it after e.g. GatherMask
        with pytest.raises(STATE_E):
            fn(d, "half")
        assert mbits(d) == 0xF << 252
        core.SetVectorMask(0, 5, dtype="half")
        core.SetMaskCount()
        with pytest.raises(STATE_E):
            fn(d, "half")
        assert mbits(d) == 0xF << 252
        with pytest.raises((PARAM_E, DTYPE_E)):
            core.SetMaskNorm()
            fn(d, "int8")
        assert mbits(d) == 0xF << 252


@R.simd_vf
def VF_STORE_UNALIGN(t, r, us, off, n):
    return R.StoreUnAlign(t, r, us, off, n)


@R.simd_vf
def VF_STORE_UNALIGN_POST(t, us, off):
    return R.StoreUnAlignPost(t, us, off)


@pytest.mark.parametrize("compiled", [False, True])
def test_an_unalign_store_register_argument_left_pending_is_refused(compiled):
    """SPEC-2 11.6: a VF that ends with bytes pending in an UnalignRegForStore (an argument too) is a StateError;
    the bytes written before stay; a later VF flushes the pending run."""
    rng = np.random.default_rng(3613)
    ub0 = _random_ub(rng)
    core = new_core(ub0)
    t = core.local_tensor("half", 100, addr=UB_SIZE - 200)
    r = new_reg("half", rng.integers(0, 256, VL, dtype=np.uint8))
    us = R.UnalignRegForStore()
    run, post = ((VF_STORE_UNALIGN, VF_STORE_UNALIGN_POST) if compiled else
                 (VF_STORE_UNALIGN.py_func, VF_STORE_UNALIGN_POST.py_func))
    with core:
        with pytest.raises(STATE_E):
            run(t, r, us, 3, 30)  # tensor bytes 6..66: written up to the UB's 32-B grid, the rest pending
        a = UB_SIZE - 200
        cut = (a + 66) // 32 * 32 - a
        assert 6 < cut < 66
        want = ub0.copy()
        want[a + 6:a + cut] = reg_bytes(r)[:cut - 6]
        assert (core.ub == want).all()
        assert post(t, us, 33) == 33
        want[a + cut:a + 66] = reg_bytes(r)[cut - 6:60]
        assert (core.ub == want).all()
        assert run(t, r, us, 84, 16) == 100  # ends at the UB's end: nothing pending
        want[UB_SIZE - 32:] = reg_bytes(r)[:32]
        assert (core.ub == want).all()


@pytest.mark.parametrize("compiled", [False, True])
def test_store_unalign_count_outside_the_lanes_is_refused_unchanged(compiled):
    """StoreUnAlign's run is lanes 0..n-1 (SPEC-2 11.6): n outside 0..VL/sizeof(T) is a ParameterError that writes
    nothing and leaves the pending run as it was."""
    rng = np.random.default_rng(3614)
    ub0 = _random_ub(rng)
    core = new_core(ub0)
    t = core.local_tensor("float", 200, addr=4096)
    r = new_reg("float", rng.integers(0, 256, VL, dtype=np.uint8))
    run, post = ((VF_STORE_UNALIGN, VF_STORE_UNALIGN_POST) if compiled else
                 (VF_STORE_UNALIGN.py_func, VF_STORE_UNALIGN_POST.py_func))
    with core:
        us = R.UnalignRegForStore()
        for n in (65, -1):
            with pytest.raises(PARAM_E):
                run(t, r, us, 1, n)
            assert (core.ub == ub0).all()
        assert run(t, r, us, 8, 64) == 72  # the whole register, ending on the 32-B grid: nothing pending
        assert post(t, us, 72) == 72
    want = ub0.copy()
    want[4128:4384] = reg_bytes(r)
    assert (core.ub == want).all()
