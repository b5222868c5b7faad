"""The sanitizer's init check through Reg register lanes (issue 17's "init"; docs/decisions.md "A Reg load's
uninitialised bytes").

A Reg load takes no mask: a whole-vector LoadAlign of a tile's tail reads bytes past the data, which the vendor's
kernels then leave out of every operation and store with UpdateMask. Those bytes are read, but nothing computed from
them reaches memory, so reporting the load was a false report on correct kernels. Here a register carries, per byte,
whether its value was computed from UB bytes no instruction had written (a `LaneShadow`, None when every byte is
clean), and the report is made where such a value leaves the registers through an active lane: a store to the UB or
a MaskReg computed from it (Add/Sub's carry). The report still names the load, its bytes and its line, as before.

Only plain (uncompiled) Reg calls carry shadows; a VF on a sanitizing core runs uncompiled (docs/decisions.md "A
compiled VF on a sanitizing core"). Every function here runs only once a sanitizing core exists (`SANITIZING`).
"""
from dataclasses import dataclass

import numpy as np

from .jit.reg import VL


@dataclass
class LaneOrigin:
    """The load whose uninitialised bytes a register's shadow comes from: what the init report names."""
    sanitizer: object
    instr: object      # the load's sanitizer.Instr
    operand: str
    address: int       # its first uninitialised UB byte
    nbytes: int        # how many of the bytes it read were uninitialised


@dataclass
class LaneShadow:
    uninitialised: np.ndarray   # bool per register byte (VL)
    origin: LaneOrigin


def _mask_bits(words):
    """Bit i of a MaskReg's four words governs register byte i (jit/reg.py lane_on)."""
    return np.unpackbits(np.asarray(words, "<u8").view(np.uint8), bitorder="little").astype(np.bool_)


def _lanes(reg, size):
    """Per lane of `size` bytes: does it hold a value computed from uninitialised bytes? None: no lane does."""
    shadow = reg._lane_shadow
    return None if shadow is None else shadow.uninitialised.reshape(-1, size).any(axis=1)


def _set(reg, lanes, size, origin):
    reg._lane_shadow = (LaneShadow(np.repeat(lanes, size), origin)
                        if lanes is not None and lanes.any() else None)


def clear(*regs):
    """Registers every lane of which an instruction wrote from clean values (a scalar, an index, a clean load)."""
    for reg in regs:
        reg._lane_shadow = None


def elementwise(dst, srcs, words, merging):
    """dst lane i from lane i of each source where the mask is on; elsewhere dst's own (MERGING) or 0 (ZEROING).
    `srcs` may hold dst (MulAddDst, Axpy): every lane is read before dst's shadow changes."""
    keep = merging and dst._lane_shadow is not None
    if not keep and all(s._lane_shadow is None for s in srcs):
        dst._lane_shadow = None
        return
    size = dst.dtype.size
    active = _mask_bits(words)[::size]
    lanes, origin = np.zeros(active.size, np.bool_), None
    for src in srcs:
        used = _lanes(src, size)
        if used is not None and (used & active).any():
            lanes |= used & active
            origin = origin or src._lane_shadow.origin
    if keep:
        kept = _lanes(dst, size) & ~active
        if kept.any():
            lanes |= kept
            origin = origin or dst._lane_shadow.origin
    _set(dst, lanes, size, origin)


def select(dst, src0, src1, words):
    """dst lane i = src0's where the mask is on, else src1's (Select; Copy and Move pass dst as src1)."""
    if src0._lane_shadow is None and src1._lane_shadow is None:
        dst._lane_shadow = None
        return
    size = dst.dtype.size
    active = _mask_bits(words)[::size]
    lanes, origin = np.zeros(active.size, np.bool_), None
    for src, part in ((src0, active), (src1, ~active)):
        used = _lanes(src, size)
        if used is not None and (used & part).any():
            lanes |= used & part
            origin = origin or src._lane_shadow.origin
    _set(dst, lanes, size, origin)


def duplicate_lane0(dst, src, words, merging):
    """Duplicate(dst, src_reg, mask, mode): every active lane from src's lane 0."""
    size = dst.dtype.size
    lane0 = _lanes(src, size)
    if lane0 is None or not lane0[0]:
        elementwise(dst, (), words, merging)
        return
    active = _mask_bits(words)[::size]
    kept = _lanes(dst, size) if merging and dst._lane_shadow is not None else np.zeros(active.size, np.bool_)
    _set(dst, active | (kept & ~active), size, src._lane_shadow.origin)


def reduced(dst, src, words, groups, out_lanes=1):
    """A reduction: the active source lanes in `groups` equal runs (1: the whole register, Reduce; 8: per 32-byte
    block, ReduceDataBlock; VL/size/2: pairs, PairReduceElem), group g's result in dst lane g (Reduce MAX/MIN: lanes
    0 and 1, the value and its index, `out_lanes` 2); every other dst lane 0 (ZEROING only)."""
    used = _lanes(src, src.dtype.size)
    if used is None:
        dst._lane_shadow = None
        return
    per_group = (used & _mask_bits(words)[::src.dtype.size]).reshape(groups, -1).any(axis=1)
    lanes = np.zeros(VL // dst.dtype.size, np.bool_)
    lanes[:groups * out_lanes] = np.repeat(per_group, out_lanes)
    _set(dst, lanes, dst.dtype.size, src._lane_shadow.origin)


def _marked(reg, fill):
    """A copy of reg's array whose lanes hold `fill` (bytes of one lane) where its shadow marks them, else 0; the
    bytes past the lanes (kind and modes) as reg's."""
    out = reg.data.copy()
    out[:VL] = 0
    lanes = _lanes(reg, fill.size)
    if lanes is not None:
        out[:VL].reshape(-1, fill.size)[lanes] = fill
    return out


def cast(dst, src, run):
    """Cast: the conversion itself, `run(dst_array, src_array)`, run on registers holding 1 in each marked lane and
    0 elsewhere (dst's own marks kept where the Cast leaves its lanes): 1 converts to a nonzero value and 0 to 0
    between every pair, so the result's nonzero lanes are exactly those computed from a marked one, however the
    pair's layout picks and spreads its lanes."""
    if src._lane_shadow is None and dst._lane_shadow is None:
        return
    marked_dst = _marked(dst, np.ones(1, dst.dtype.np_dtype).view(np.uint8))
    run(marked_dst, _marked(src, np.ones(1, src.dtype.np_dtype).view(np.uint8)))
    lanes = marked_dst[:VL].reshape(-1, dst.dtype.size).any(axis=1)
    shadow = src._lane_shadow or dst._lane_shadow
    _set(dst, lanes, dst.dtype.size, shadow.origin)


def loaded(registers, run, ub_size, uninitialised, origin):
    """A Reg load into `registers` that read the UB bytes `uninitialised` (an address array) before any
    instruction wrote them: `run(ub, *register_arrays)` replays the load on an image of the UB holding 0xFF in those
    bytes and 0 elsewhere, into copies of the registers marked 0xFF where their shadow is; a register byte that
    comes out nonzero came from an uninitialised byte (a load moves bytes, it never makes a zero byte nonzero or
    the reverse), so every distribution's lane mapping is the load's own."""
    if not uninitialised.size and all(r._lane_shadow is None for r in registers):
        return
    image = np.zeros(ub_size, np.uint8)
    image[uninitialised] = 0xFF
    marked = [_marked(r, np.full(1, 0xFF, np.uint8)) for r in registers]
    run(image, *marked)
    for reg, array in zip(registers, marked):
        kept = reg._lane_shadow   # lanes a masked load leaves (DATA_BLOCK_COPY) keep their marks and origin
        _set(reg, array[:VL] != 0, 1, origin if uninitialised.size or kept is None else kept.origin)


def stored_origin(registers, run, ub_size):
    """The origin of the first register whose marked lanes a store writes (None: it writes none): `run(ub,
    *register_arrays)` replays the store into a zero image from copies of the registers holding 0xFF in their marked
    bytes and 0 elsewhere."""
    if all(r._lane_shadow is None for r in registers):
        return None
    image = np.zeros(ub_size, np.uint8)
    for i, reg in enumerate(registers):
        if reg._lane_shadow is None:
            continue
        arrays = [_marked(r, np.full(1, 0xFF, np.uint8)) if r is reg else _cleared(r) for r in registers]
        run(image, *arrays)
        if image.any():
            return reg._lane_shadow.origin
    return None


def _cleared(reg):
    out = reg.data.copy()
    out[:VL] = 0
    return out


def leading_lanes_origin(reg, nbytes):
    """StoreUnAlign: the origin if any of the register's first `nbytes` bytes is marked (None: none is)."""
    shadow = reg._lane_shadow
    return shadow.origin if shadow is not None and shadow.uninitialised[:nbytes].any() else None


def carry_origin(srcs, words, size):
    """Add/Sub's carry form: a MaskReg bit computed from a marked active lane takes its value out of the registers
    (a MaskReg carries no shadow), so it is reported there."""
    active = _mask_bits(words)[::size]
    for src in srcs:
        used = _lanes(src, size)
        if used is not None and (used & active).any():
            return src._lane_shadow.origin
    return None
