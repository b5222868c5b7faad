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
whose copy-out skips the padding is clean too. A MaskReg carries no marks: Add/Sub's carry computed from a marked
active lane is reported where it is made (a MaskReg() no instruction wrote is followed whole, not here: reg.py
MaskReg._fresh). A RegTensor made in a sanitizing core's code starts with every byte marked (`fresh`): the hardware
leaves a register's lanes undefined until an instruction writes them.

Only plain (uncompiled) Reg calls carry shadows: a VF given a tensor of a sanitizing core, or a register carrying
marks, runs uncompiled (docs/decisions.md "Sanitizer"). The operations follow marks once a register has been marked
in the process (`MARKING`).
"""
import threading
import weakref
from dataclasses import dataclass

import numpy as np

from .jit.reg import VL
from .sanitizer import _mask_bits   # bit i of a MaskReg's words governs register byte i


@dataclass
class LaneOrigin:
    """A load that read uninitialised UB bytes into register lanes, or a register made and never written: what the
    init report names."""
    sanitizer: object  # a weakref to the Sanitizer of the first core it was met on (ORIGINS keeps no core alive)
    instr: object      # the load's sanitizer.Instr; a fresh register's: "RegTensor" at the line that made it
    operand: str
    address: int       # its first uninitialised UB byte (a fresh register: -1)
    nbytes: int        # how many of the bytes it read were uninitialised (a fresh register: VL)
    register: bool = False   # a RegTensor's lanes that no instruction wrote (`fresh`), not a load's
    # the report's fix where the bytes are a count-form Compare's bits or a GatherMask's elements computed from
    # never-written ones (Sanitizer.mark_derived), followed on through registers; None: the load's own texts
    fix: str = None


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


def origin_index(sanitizer, instr, operand, address, nbytes, register=False, fix=None):
    """The ORIGINS index of a load's uninitialised bytes (made once per line, operand, first byte and count), or of
    the lanes of registers made at one line (`register`), or of an instruction's outputs computed from never-written
    bytes (`fix`: their report's text)."""
    key = (instr.where, operand, address, nbytes)
    index = _ORIGIN_IDS.get(key)
    if index is None:
        with _ORIGINS_LOCK:
            ORIGINS.append(LaneOrigin(weakref.ref(sanitizer), instr, operand, address, nbytes, register, fix))
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


def elementwise(dst, srcs, words, merging):
    """dst lane i from lane i of each source where the mask is on; elsewhere dst's own (MERGING) or 0 (ZEROING).
    `srcs` may hold dst (MulAddDst, Axpy): every lane is read before dst's shadow changes."""
    keep = merging and dst._lane_shadow is not None
    if not keep and all(s._lane_shadow is None for s in srcs):
        dst._lane_shadow = None
        return
    size = dst.dtype.size
    active = _mask_bits(words)[::size]
    lanes = np.full(active.size, _CLEAN)
    for src in srcs:
        _take(lanes, _lanes(src, size), active)
    if keep:
        _take(lanes, _lanes(dst, size), ~active)
    _set(dst, lanes, size)


def select(dst, src0, src1, words):
    """dst lane i = src0's where the mask is on, else src1's (Select; Copy and Move pass dst as src1)."""
    if src0._lane_shadow is None and src1._lane_shadow is None:
        dst._lane_shadow = None
        return
    size = dst.dtype.size
    active = _mask_bits(words)[::size]
    lanes = np.full(active.size, _CLEAN)
    _take(lanes, _lanes(src0, size), active)
    _take(lanes, _lanes(src1, size), ~active)
    _set(dst, lanes, size)


def duplicate_lane0(dst, src, words, merging):
    """Duplicate(dst, src_reg, mask, mode): every active lane from src's lane 0."""
    size = dst.dtype.size
    lane0 = _lanes(src, size)
    if lane0 is None or lane0[0] < 0:
        elementwise(dst, (), words, merging)
        return
    active = _mask_bits(words)[::size]
    lanes = np.where(active, lane0[0], _CLEAN).astype(np.int32)
    if merging:
        _take(lanes, _lanes(dst, size), ~active)
    _set(dst, lanes, size)


def reduced(dst, src, words, groups, out_lanes=1):
    """A reduction: the active source lanes in `groups` equal runs (1: the whole register, Reduce; 8: per 32-byte
    block, ReduceDataBlock; VL/size/2: pairs, PairReduceElem), group g's result in dst lane g (Reduce MAX/MIN: lanes
    0 and 1, the value and its index, `out_lanes` 2); every other dst lane 0 (ZEROING only)."""
    used = _lanes(src, src.dtype.size)
    if used is None:
        dst._lane_shadow = None
        return
    per_group = np.where(_mask_bits(words)[::src.dtype.size], used, _CLEAN).reshape(groups, -1).max(axis=1)
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


def cast(dst, src, run):
    """Cast: the conversion itself, `run(dst_array, src_array)`, run once per load the marks name, on registers
    holding 1 in that load's lanes and 0 elsewhere (dst's own kept where the Cast leaves its lanes): 1 converts to a
    nonzero value and 0 to 0 between every pair, so the result's nonzero lanes are exactly those computed from a
    lane of that load, however the pair's layout picks and spreads its lanes."""
    if src._lane_shadow is None and dst._lane_shadow is None:
        return
    dst_one, src_one = (np.ones(1, r.dtype.np_dtype).view(np.uint8) for r in (dst, src))
    lanes = np.full(VL // dst.dtype.size, _CLEAN)
    for origin in _origins_in(src, dst):
        marked = _marked(dst, dst_one, origin)
        run(marked, _marked(src, src_one, origin))
        _take(lanes, np.where(marked[:VL].reshape(-1, dst.dtype.size).any(axis=1), origin, _CLEAN), True)
    _set(dst, lanes, dst.dtype.size)


def loaded(registers, run, window, groups):
    """A Reg load into `registers` that read uninitialised UB bytes: `groups` [(ORIGINS index, UB addresses)].
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


def stored_bytes(registers, run, window):
    """[(ORIGINS index, UB addresses)] a store writes from marked lanes, one entry per register and load: `run(handle,
    *register_arrays)` replays the store through `window` into a zero image from copies of the registers holding
    0xFF in one register's bytes of one load and 0 elsewhere."""
    found = []
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


def carry_origin(srcs, words, size):
    """Add/Sub's carry form: a MaskReg bit computed from a marked active lane takes its value out of the registers
    (a MaskReg carries no shadow), so it is reported there: the LaneOrigin of the first such lane."""
    active = _mask_bits(words)[::size]
    for src in srcs:
        used = _lanes(src, size)
        if used is not None and (marked := used[active & (used >= 0)]).size:
            return ORIGINS[marked[0]]
    return None
