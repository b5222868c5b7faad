"""The sanitizer's init check through Reg register lanes (issue 17's "init"; docs/decisions.md "A Reg load's
uninitialised bytes").

A Reg load takes no mask: a whole-vector LoadAlign of a tile's tail reads bytes past the data, which the vendor's
kernels then leave out of every operation and store with UpdateMask. Those bytes are read, but nothing computed from
them is used, so reporting the load was a false report on correct kernels. Here a register carries, per byte,
whether its value was computed from UB bytes no instruction had written (a `LaneShadow`, None when every byte is
clean), through every Reg operation. A store writes such values into the UB as what they are: bytes that stay
uninitialised, remembered with the store and the load (`Sanitizer.lanes_stored`), so the init report is made where
something reads them through an active lane (a Memory-API instruction, the copy-out to GM; a Reg load marks its
lanes again) and names the store, and in its fix the load and its bytes. A row stored whole into a padded buffer
whose copy-out skips the padding is clean too. A RegTensor made in a sanitizing core's code starts with every byte
marked (`fresh`): the hardware leaves a register's lanes undefined until an instruction writes them.

A MaskReg carries marks the same way, one per bit (bit i governs register byte i): a MaskReg load marks the bits its
uninitialised bytes feed (a count-form Compare's bits of never-written lanes among them: the recipe of the Reg
Compare refusal) instead of being reported (`mask_loaded`); an operation predicated by a marked bit marks the lanes
it governs, active or not being unknown (`_governing`), so the report comes where such a lane's value is read, as for
a data register's; bit-moving MaskReg operations (Pack, UnPack, Interleave) carry the marks bit by bit
(`mask_moved`), the logical ones mark the bits their known operands do not decide (`mask_logic`), a MaskReg store
leaves the bytes of marked bits uninitialised (`mask_stored_bytes`), and CreateMask, UpdateMask and MoveMask make
clean ones. Add/Sub's carry computed from a marked active lane, or under a marked bit, is reported where it is made
(`carry_origin`). A MaskReg() no instruction wrote is followed whole, not here (reg.py MaskReg._fresh).
docs/decisions.md "A MaskReg's bits carry marks".

The memory check rides on the same marks (session 66): on a bounds="ub" core a Reg load into data registers reads
past its tensor as the device does, so the register bytes fed by UB bytes outside the tensor are marked with an
origin whose `check` is "memory" (a byte outside and uninitialised too takes that one) and followed exactly as
above; where such a lane is used (its stored bytes read, a carry) the report is a memory report naming the load. A
MaskReg load past its tensor marks the bits those bytes feed the same way (session 67, `mask_loaded`: all eight bits
of such a byte), so the report comes where a lane such a bit governs is used.

Only plain (uncompiled) Reg calls carry shadows: a VF given a tensor of a sanitizing core, or a register (data or
MaskReg) carrying marks, runs uncompiled (docs/decisions.md "Sanitizer"). The operations follow marks once a
register has been marked in the process (`MARKING`).
"""
import threading
import weakref
from dataclasses import dataclass

import numpy as np

from .jit.reg import VL
from .jit.reg_move import LOGIC_AND, LOGIC_NOT, LOGIC_OR, LOGIC_SELECT, LOGIC_XOR
from .sanitizer import _mask_bits   # bit i of a MaskReg's words governs register byte i


@dataclass
class LaneOrigin:
    """A load that read uninitialised UB bytes into register lanes, or a register made and never written: what the
    init report names; or (`check` "memory") a load that read UB bytes outside its operand's tensor on a bounds="ub"
    core, whose use the memory check reports."""
    sanitizer: object  # a weakref to the Sanitizer of the first core it was met on (ORIGINS keeps no core alive)
    instr: object      # the load's sanitizer.Instr; a fresh register's: "RegTensor" at the line that made it
    operand: str
    address: int       # its first uninitialised UB byte (a fresh register: -1)
    nbytes: int        # how many of the bytes it read were uninitialised (a fresh register: VL)
    register: bool = False   # a RegTensor's lanes that no instruction wrote (`fresh`), not a load's
    # the report's fix where the bytes are a count-form Compare's bits or a GatherMask's elements computed from
    # never-written ones (Sanitizer.mark_derived), followed on through registers, or bytes outside the tensor (it
    # names the tensor's [lo, hi)); None: the load's own texts
    fix: str = None
    # the check whose report a use of these lanes is: "init", or "memory" for bytes outside the load's tensor
    # (address and nbytes: its first such byte and their count), which win over their being uninitialised too, or
    # "race" for bytes a store of the same VF wrote with no LocalMemBar between ("strict"), whose `reports` a store
    # of such a lane makes (Sanitizer.deferred_strict_reads)
    check: str = "init"
    reports: list = None


# Every LaneOrigin made, so that a register's shadow is an int array (an index here per byte): each byte names the
# load its value came from, a register mixing lanes of two loads included (one origin per register had named the
# first source's load for a lane another load's bytes fed). A load met again (a loop's tail, another block or
# launch of the kernel: the same line, operand and bytes) reuses its entry, so the list grows with a kernel's
# distinct tail loads, not with its iterations or cores.
ORIGINS = []
_ORIGIN_IDS = {}   # (line, operand, first byte, count) -> ORIGINS index
_ORIGINS_LOCK = threading.Lock()   # blocks of a launch load in threads
# Non-empty once a register has been marked in this process: the Reg operations test it before they follow marks,
# so a process whose sanitizing cores never load an uninitialised byte pays one list truth test per call
MARKING = []


def origin_index(sanitizer, instr, operand, address, nbytes, register=False, fix=None, check="init", reports=None):
    """The ORIGINS index of a load's uninitialised bytes (made once per line, operand, first byte, count and check),
    or of the lanes of registers made at one line (`register`), or of an instruction's outputs computed from
    never-written bytes (`fix`: their report's text), or of a load's bytes outside its tensor (`check` "memory"), or
    of its bytes racing with a store of the same VF (`check` "race", the `reports` a use makes)."""
    key = (instr.where, operand, address, nbytes, check)
    index = _ORIGIN_IDS.get(key)
    if index is None:
        with _ORIGINS_LOCK:
            ORIGINS.append(LaneOrigin(weakref.ref(sanitizer), instr, operand, address, nbytes, register, fix, check,
                                      reports))
            index = _ORIGIN_IDS[key] = len(ORIGINS) - 1
    return index


def fresh(reg, sanitizer, instr):
    """A RegTensor made in a sanitizing core's code (`instr`: "RegTensor" at the line that made it): every lane is
    undefined until an instruction writes it, as the hardware's registers hold whatever was last there (the
    emulator's start at 0), so its bytes are marked as a load's uninitialised ones are and followed the same way: a
    MERGING operation, a masked Copy or a partial write keeps the marks of the lanes it leaves, and the init report
    is made where something reads them after a store."""
    mark(reg, np.full(VL, origin_index(sanitizer, instr, "register", -1, VL, register=True), np.int32))


@dataclass
class LaneShadow:
    origin: np.ndarray   # int32 per register byte (VL): the ORIGINS index of its load, -1 for a clean byte


_CLEAN = np.int32(-1)


def _origin_ids(origin):
    """The distinct ORIGINS indices of an origin array, in order of first appearance."""
    return list(dict.fromkeys(origin[origin >= 0].tolist()))


def _lanes(reg, size):
    """Per lane of `size` bytes, the ORIGINS index of the load its value came from (-1: clean). None: every lane is
    clean."""
    shadow = reg._lane_shadow
    return None if shadow is None else shadow.origin.reshape(-1, size).max(axis=1)


def _set(reg, lanes, size):
    if lanes is None or not (lanes >= 0).any():
        reg._lane_shadow = None
        return
    reg._lane_shadow = LaneShadow(np.repeat(lanes.astype(np.int32), size))
    if not MARKING:
        MARKING.append(True)


def mark(reg, origin):
    """reg's shadow from a per-byte ORIGINS index array (-1: clean)."""
    _set(reg, origin, 1)


def clear(*regs):
    """Registers every lane of which an instruction wrote from clean values (a scalar, an index, a clean load)."""
    for reg in regs:
        reg._lane_shadow = None


def _take(lanes, source, where):
    """lanes[i] = source[i] where `where` holds and lanes[i] is still clean (the first source marking a lane names
    its load)."""
    if source is not None:
        pick = where & (lanes < 0) & (source >= 0)
        lanes[pick] = source[pick]


def _shadow(mask):
    """A mask operand's shadow: a MaskReg's, None for clean bits (a MaskReg's words given as a tuple, a mask left
    out)."""
    return getattr(mask, "_lane_shadow", None)


def _governing(mask, size):
    """Per lane of `size` bytes, the ORIGINS index of the marked bit of `mask` that governs it (the bit of its first
    byte, as jit/reg.py lane_on reads it; -1: a clean bit), or None when every bit is clean. Whether such a lane is
    active is unknown, so an operation's output lane it governs is marked, named by the mask's origin."""
    shadow = _shadow(mask)
    return None if shadow is None else shadow.origin[::size]


def _maybe(active, unknown):
    """The lanes an operation may have found active: the active ones and those a marked bit governs."""
    return active if unknown is None else active | (unknown >= 0)


def elementwise(dst, srcs, words, merging, mask=None):
    """dst lane i from lane i of each source where the mask is on; elsewhere dst's own (MERGING) or 0 (ZEROING); a
    lane under a marked bit of `mask` (the MaskReg the words are of) is marked. `srcs` may hold dst (MulAddDst,
    Axpy): every lane is read before dst's shadow changes."""
    keep = merging and dst._lane_shadow is not None
    size = dst.dtype.size
    unknown = _governing(mask, size)
    if not keep and unknown is None and all(s._lane_shadow is None for s in srcs):
        dst._lane_shadow = None
        return
    active = _mask_bits(words)[::size]
    lanes = np.full(active.size, _CLEAN)
    _take(lanes, unknown, True)
    for src in srcs:
        _take(lanes, _lanes(src, size), active)
    if keep:
        _take(lanes, _lanes(dst, size), ~active)
    _set(dst, lanes, size)


def select(dst, src0, src1, words, mask=None):
    """dst lane i = src0's where the mask is on, else src1's (Select; Copy and Move pass dst as src1); a lane under
    a marked bit of `mask` is marked."""
    size = dst.dtype.size
    # a marked mask bit decides nothing where both sources are one register (Select(d, a, a, m); review 62)
    unknown = None if src0 is src1 else _governing(mask, size)
    if src0._lane_shadow is None and src1._lane_shadow is None and unknown is None:
        dst._lane_shadow = None
        return
    active = _mask_bits(words)[::size]
    lanes = np.full(active.size, _CLEAN)
    _take(lanes, unknown, True)
    _take(lanes, _lanes(src0, size), active)
    _take(lanes, _lanes(src1, size), ~active)
    _set(dst, lanes, size)


def duplicate_lane0(dst, src, words, merging, mask=None):
    """Duplicate(dst, src_reg, mask, mode): every active lane from src's lane 0."""
    size = dst.dtype.size
    lane0 = _lanes(src, size)
    if lane0 is None or lane0[0] < 0:
        elementwise(dst, (), words, merging, mask)
        return
    active = _mask_bits(words)[::size]
    lanes = np.where(_maybe(active, _governing(mask, size)), lane0[0], _CLEAN).astype(np.int32)
    if merging:
        _take(lanes, _lanes(dst, size), ~active)
    _set(dst, lanes, size)


def governed(reg, mask):
    """reg's lanes under a marked bit of `mask` are marked (a DATA_BLOCK_COPY load, which leaves its inactive lanes:
    whether it wrote them is unknown); the others keep their marks."""
    size = reg.dtype.size
    unknown = _governing(mask, size)
    if unknown is None:
        return
    lanes = _lanes(reg, size)   # a new array, or None
    lanes = np.full(unknown.size, _CLEAN) if lanes is None else lanes
    _take(lanes, unknown, True)
    _set(reg, lanes, size)


def reduced(dst, src, words, groups, out_lanes=1, mask=None):
    """A reduction: the active source lanes in `groups` equal runs (1: the whole register, Reduce; 8: per 32-byte
    block, ReduceDataBlock; VL/size/2: pairs, PairReduceElem), group g's result in dst lane g (Reduce MAX/MIN: lanes
    0 and 1, the value and its index, `out_lanes` 2); every other dst lane 0 (ZEROING only). A group with a lane
    under a marked bit of `mask` is marked (whether that lane counts is unknown)."""
    used = _lanes(src, src.dtype.size)
    unknown = _governing(mask, src.dtype.size)
    if used is None and unknown is None:
        dst._lane_shadow = None
        return
    active = _mask_bits(words)[::src.dtype.size]
    read = np.full(active.size, _CLEAN)
    _take(read, unknown, True)
    _take(read, used, active)
    per_group = read.reshape(groups, -1).max(axis=1)
    lanes = np.full(VL // dst.dtype.size, _CLEAN)
    lanes[:groups * out_lanes] = np.repeat(per_group, out_lanes)
    _set(dst, lanes, dst.dtype.size)


_BYTE = np.full(1, 0xFF, np.uint8)   # the fill of a marked byte in the replays of loads and stores
_NONE = -2                          # an origin no byte has: _marked of no lane


def _marked(reg, fill, origin=None):
    """A copy of reg's array whose lanes hold `fill` (bytes of one lane) where its shadow marks them (from load
    `origin` alone, when given), else 0; the bytes past the lanes (kind and modes) as reg's."""
    out = reg.data.copy()
    out[:VL] = 0
    lanes = _lanes(reg, fill.size)
    if lanes is not None:
        out[:VL].reshape(-1, fill.size)[lanes >= 0 if origin is None else lanes == origin] = fill
    return out


def _origins_in(*regs):
    return list(dict.fromkeys(k for r in regs if r._lane_shadow is not None
                              for k in _origin_ids(r._lane_shadow.origin)))


def _words(bits):
    """MaskReg words (a tuple of four uint64, as the plain calls pass them) from 256 bits."""
    return tuple(np.packbits(bits, bitorder="little").view("<u8").astype(np.uint64))


def _filled(reg, fill):
    """A copy of reg's array with `fill` (bytes of one lane) in every lane."""
    out = reg.data.copy()
    out[:VL].reshape(-1, fill.size)[:] = fill
    return out


def cast(dst, src, run, mask=None):
    """Cast: the conversion itself, `run(dst_array, src_array[, selected words])`, run once per load the marks name,
    on registers holding 1 in that load's lanes and 0 elsewhere (dst's own kept where the Cast leaves its lanes): 1
    converts to a nonzero value and 0 to 0 between every pair, so the result's nonzero lanes are exactly those
    computed from a lane of that load, however the pair's layout picks and spreads its lanes. Once per origin of
    `mask`'s marked bits, a source of 1s under words holding those bits alone: the lanes they govern."""
    mask_shadow = _shadow(mask)
    if src._lane_shadow is None and dst._lane_shadow is None and mask_shadow is None:
        return
    dst_one, src_one = (np.ones(1, r.dtype.np_dtype).view(np.uint8) for r in (dst, src))
    lanes = np.full(VL // dst.dtype.size, _CLEAN)
    for origin in _origins_in(mask) if mask_shadow is not None else ():
        marked = _marked(dst, dst_one, _NONE)
        run(marked, _filled(src, src_one), _words(mask_shadow.origin == origin))
        _take(lanes, np.where(marked[:VL].reshape(-1, dst.dtype.size).any(axis=1), origin, _CLEAN), True)
    for origin in _origins_in(src, dst):
        marked = _marked(dst, dst_one, origin)
        run(marked, _marked(src, src_one, origin))
        _take(lanes, np.where(marked[:VL].reshape(-1, dst.dtype.size).any(axis=1), origin, _CLEAN), True)
    _set(dst, lanes, dst.dtype.size)


def loaded(registers, run, window, groups):
    """A Reg load into `registers` that read uninitialised UB bytes, or bytes outside its tensor: `groups` [(ORIGINS
    index, UB addresses)].
    `run(handle, *register_arrays)` replays the load through `window` (a Window: an image of the bytes the load
    touches) holding 0xFF in one group's bytes and 0 elsewhere; a register byte that comes out nonzero came from that
    group (a load moves bytes, it never makes a zero byte nonzero or the reverse), so every distribution's lane
    mapping is the load's own. A replay on a zero image from copies of the registers marked 0xFF finds the marked
    bytes a masked load leaves (DATA_BLOCK_COPY)."""
    if not groups and all(r._lane_shadow is None for r in registers):
        return
    result = [np.full(VL, _CLEAN) for _ in registers]
    for origin, addresses in groups:
        image = window.image()
        image[addresses - window.base] = 0xFF
        arrays = [_marked(r, _BYTE, _NONE) for r in registers]
        run(window.handle(image), *arrays)
        for bytes_, array in zip(result, arrays):
            bytes_[(array[:VL] != 0) & (bytes_ < 0)] = origin
    if any(r._lane_shadow is not None for r in registers):
        arrays = [_marked(r, _BYTE) for r in registers]
        run(window.handle(window.image()), *arrays)
        for reg, bytes_, array in zip(registers, result, arrays):
            if reg._lane_shadow is not None:
                kept = (array[:VL] != 0) & (bytes_ < 0)
                bytes_[kept] = reg._lane_shadow.origin[kept]
    for reg, bytes_ in zip(registers, result):
        _set(reg, bytes_, 1)


def stored_bytes(registers, run, window, mask=None):
    """[(ORIGINS index, UB addresses)] a store writes from marked lanes, one entry per register and load: `run(handle,
    *register_arrays[, selected=words])` replays the store through `window` into a zero image from copies of the
    registers holding 0xFF in one register's bytes of one load and 0 elsewhere. The lanes under a marked bit of
    `mask` may or may not be written: once per origin of its marks, every lane 0xFF under words holding those bits
    alone, the bytes written are left uninitialised too (first: a lane's own marks, after, name its load)."""
    found = []
    for origin in _origins_in(mask) if _shadow(mask) is not None else ():
        image = window.image()
        run(window.handle(image), *[_filled(r, _BYTE) for r in registers],
            selected=_words(mask._lane_shadow.origin == origin))
        written = np.flatnonzero(image)
        if written.size:
            found.append((origin, window.base + written))
    for reg in registers:
        for origin in _origins_in(reg):
            image = window.image()
            run(window.handle(image), *[_marked(r, _BYTE, origin if r is reg else _NONE) for r in registers])
            written = np.flatnonzero(image)
            if written.size:
                found.append((origin, window.base + written))
    return found


@dataclass
class Window:
    """The UB bytes a replay touches: from the operation's element address or first byte, whichever is lower, down to
    a 32-byte boundary (so the replayed addresses keep their alignment), to its last byte; and the handle (jit/
    reg_move.py's) of an image of them, whose bounds are the window's: a replay costs the bytes the operation
    touches, not the tensor's or the UB's."""
    handle_of: tuple     # the operation's own handle (ub, byte address, element size, modes, lo, hi)
    first: int           # the operation's element address and its footprint's span [first, end)
    end: int

    @property
    def base(self):
        return self.first - self.first % 32

    def image(self):
        return np.zeros(self.end - self.base, np.uint8)

    def handle(self, image):
        _, address, size, modes, _, _ = self.handle_of
        return (image, address - self.base, size, modes, self.first - self.base, self.end - self.base)


def leading_bytes(reg, nbytes, start):
    """StoreUnAlign of the register's first `nbytes` bytes to UB byte `start`: [(ORIGINS index, the addresses of its
    bytes)] per load among them."""
    shadow = reg._lane_shadow
    if shadow is None:
        return []
    first = shadow.origin[:nbytes]
    return [(k, start + np.flatnonzero(first == k)) for k in _origin_ids(first)]


def carry_origin(srcs, words, size, mask=None):
    """Add/Sub's carry form: a carry bit computed from a marked active lane, or under a marked bit of `mask`, is
    reported where it is made (the carry's value leaves the lanes for integer arithmetic on bits a later operation
    predicates by; docs/decisions.md "Sanitizer"): (the LaneOrigin of the first such lane, the mask's first, and the
    operand it came through), or None."""
    unknown = _governing(mask, size)
    if unknown is not None and (marked := unknown[unknown >= 0]).size:
        return ORIGINS[marked[0]], "mask"
    active = _mask_bits(words)[::size]
    for src in srcs:
        used = _lanes(src, size)
        if used is not None and (marked := used[active & (used >= 0)]).size:
            return ORIGINS[marked[0]], "src"
    return None


# --- MaskRegs: a mark per bit (bit i governs register byte i) -----------------------------------------------------
def mask_loaded(mask, run, window, groups, unknown_bits):
    """A MaskReg load that read uninitialised UB bytes, or bytes outside its tensor, `groups` [(ORIGINS index, UB
    addresses)] (none: clean bits): `run(handle, words)` replays the load through `window` holding, in one group's
    bytes, the bits of each that hold no written value (`unknown_bits(addresses)`: all eight but in a Compare's bit
    bytes; all eight of a byte outside the tensor) and 0 elsewhere, into zero words; a bit that comes out set came
    from that group (each distribution's bit mapping is the load's own: NORM, US doubling, DS halving). The load
    writes every bit."""
    if not groups:
        mask._lane_shadow = None
        return
    bits = np.full(VL, _CLEAN)
    for origin, addresses in groups:
        image = window.image()
        image[addresses - window.base] = unknown_bits(addresses)
        words = np.zeros(4, np.uint64)
        run(window.handle(image), words)
        bits[_mask_bits(words) & (bits < 0)] = origin
    _set(mask, bits, 1)


def mask_stored_bytes(mask, run, window):
    """[(ORIGINS index, UB addresses, their marked bits)] a MaskReg store writes from marked bits: `run(handle,
    words)` replays the store through `window` into a zero image from words holding one origin's marked bits alone;
    a byte holding a marked bit is left uninitialised whole for the UB's per-byte shadow, and its marked bits are
    what a MaskReg load of it marks again (Sanitizer.derived_bits; review 62: a mask spilled and reloaded)."""
    found = []
    for origin in _origins_in(mask):
        image = window.image()
        run(window.handle(image), _words(mask._lane_shadow.origin == origin))
        written = np.flatnonzero(image)
        if written.size:
            found.append((origin, window.base + written, image[written]))
    return found


def mask_moved(dsts, srcs, run):
    """A MaskReg operation that moves bits (Pack, UnPack, Interleave, DeInterleave; SPEC-2 D64): `run(*dst_words,
    *src_words)` replayed once per origin on sources holding that origin's marked bits alone; a destination bit that
    comes out set came from one of them (moves never set a bit from clear ones), every other bit is clean. The
    destinations may be sources: every source is read before a destination's shadow changes."""
    shadows = [_shadow(s) for s in srcs]
    result = [np.full(VL, _CLEAN) for _ in dsts]
    for origin in dict.fromkeys(k for shadow in shadows if shadow is not None for k in _origin_ids(shadow.origin)):
        outs = [np.zeros(4, np.uint64) for _ in dsts]
        run(*outs, *[_words(np.zeros(VL, np.bool_) if shadow is None else shadow.origin == origin)
                     for shadow in shadows])
        for bits, out in zip(result, outs):
            bits[_mask_bits(out) & (bits < 0)] = origin
    for dst, bits in zip(dsts, result):
        _set(dst, bits, 1)


def mask_logic(dst, op, operands, words):
    """A MaskReg And/Or/Xor/Not/Move (f(a, b) & m) or Select (m ? a : b) bit by bit (SPEC-2 11.7, D64) on `operands`
    (a, b, m: MaskRegs, or words, which are clean) whose words are `words`: a result bit is marked unless its clean
    operand bits decide it (a clean 0 of m or of an And operand, a clean 1 of an Or operand, the clean source a clean
    selector picks, two equal clean sources), named by the first marked operand bit of m, a, b. So And with an
    UpdateMask keeps the tail's uninitialised bits out."""
    shadows = [_shadow(x) for x in operands]
    if all(shadow is None for shadow in shadows):
        dst._lane_shadow = None
        return
    origin_a, origin_b, origin_m = (np.full(VL, _CLEAN) if shadow is None else shadow.origin for shadow in shadows)
    known_a, known_b, known_m = origin_a < 0, origin_b < 0, origin_m < 0
    a, b, m = (_mask_bits(w) for w in words)
    same = operands[0] is operands[1]   # one register given twice: its unknown bits are equal to themselves
    if op == LOGIC_SELECT:
        decided = known_a if same else known_m & np.where(m, known_a, known_b) | known_a & known_b & (a == b)
    else:
        if same and op in (LOGIC_AND, LOGIC_OR, LOGIC_XOR):   # a & a = a | a = a, a ^ a = 0 (review 62)
            value, known = (a & ~a, np.ones(VL, np.bool_)) if op == LOGIC_XOR else (a, known_a)
        elif op == LOGIC_AND:
            value, known = a & b, known_a & known_b | known_a & ~a | known_b & ~b
        elif op == LOGIC_OR:
            value, known = a | b, known_a & known_b | known_a & a | known_b & b
        elif op == LOGIC_XOR:
            value, known = a ^ b, known_a & known_b
        else:   # Not, Move: of a alone
            value, known = ~a if op == LOGIC_NOT else a, known_a
        decided = known_m & ~m | known & (known_m | ~value)
    bits = np.full(VL, _CLEAN)
    for origin in (origin_m, origin_a, origin_b):
        _take(bits, origin, ~decided)
    _set(dst, bits, 1)
