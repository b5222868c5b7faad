"""Gather (byte offsets, SPEC-2 9.2, D57) and GatherMask (user or built-in patterns, SPEC-2 9.3, D58).

Both read addresses that depend on data (the offsets, the pattern bits): the checks that depend only on the call's
shape are cached, the data-dependent ones (every used offset aligned, in range and inside the UB and the src tensor;
rsvdCnt against dst) run on numpy views before the kernel touches anything.
"""
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import dtypes as dt
from ..core import current_core
from ..errors import (AlignmentError, OutOfBoundsError, OverlapError, ParameterError, StateError, UnsupportedDTypeError,
                      UnsupportedDeviceError)
from ..jit.gather import offset_faults, gather, gather_mask
from ..sanitizer import GATHERED_FIX, Derived, bit_mask_scratch_flags, vector_access
from ..tensor import LocalTensor
from ._common import as_int, repeat_params
from ._common import (Runs, TensorExtent, check_align, check_count_within, check_dtype, check_range, check_run_bounds,
                      high_dim_is_set_mask, mask_lane_indices, operands, plan_mask, record_mask,
                      refuse_empty_mask_on_950, split_forms)


# --- Gather -------------------------------------------------------------------------------------------------------
_GATHER_FORMS = ("(dst, src, src_offset, src_base_addr, count) or (dst, src, src_offset, src_base_addr, mask, "
                 "repeat_time, dst_rep_stride)")


def Gather(dst, src, src_offset, src_base_addr, *args, count=None, mask=None, repeat_time=None,
           dst_rep_stride=None, is_set_mask=None):
    """`Gather(dst, src, src_offset, src_base_addr, count)` or `(..., src_base_addr, mask, repeat_time,
    dst_rep_stride)`: dst[i] = the T at byte src + src_base_addr + src_offset[i] (SPEC-2 9.2)."""
    api = "Gather"
    core = operands(api, dst, src, src_offset, names=("src", "src_offset"))
    spec = core.spec
    src_base_addr = as_int(api, spec, "src_base_addr", src_base_addr)  # plain ints before the cache keys (issue 12)
    form, values = split_forms(api, args, count, dict(mask=mask, repeat_time=repeat_time,
                                                      dst_rep_stride=dst_rep_stride), 4, spec.name, _GATHER_FORMS)
    if form == "count":
        high_dim_is_set_mask(api, True, is_set_mask)
        count = as_int(api, spec, "count", values[0])
        key = (spec, dst.dtype, src.dtype, src_offset.dtype, dst.addr, src.addr, src_offset.addr, dst.size,
               src_offset.size, src_base_addr, count)
        try:
            per = _validate_gather_count(*key)
        except TypeError:
            per = _validate_gather_count.__wrapped__(*key)
        if count == 0:
            return
        lanes, repeat, last, rep_bytes = count, 1, -1, 0
        active = per
        offsets_used = src_offset._view()[:count]
        dst_bytes = dst.addr + active * dst.dtype.size
    else:
        mask = values[0]
        repeat_time, dst_rep_stride = (as_int(api, spec, name, v) for name, v in zip(("repeat_time", "dst_rep_stride"),
                                                                                      values[1:]))
        lanes_dtype = dt.HALF if (dst.dtype.size == 1 and spec.gather_offset_limited) else dst.dtype
        plan = plan_mask(api, core, lanes_dtype, mask, high_dim_is_set_mask(api, False, is_set_mask))
        key = (spec, dst.dtype, src.dtype, src_offset.dtype, dst.addr, src.addr, src_offset.addr, dst.size,
               src_offset.size, src_base_addr, core.bounds, plan, repeat_time, dst_rep_stride)
        try:
            per, lanes, repeat, last, rep_bytes = _validate_gather_high_dim(*key)
        except TypeError:
            per, lanes, repeat, last, rep_bytes = _validate_gather_high_dim.__wrapped__(*key)
        if repeat == 0 or per.size == 0:
            if core.spec.high_dim_writes_mask_register:  # SPEC-2 D31: the 310B leaves it untouched
                record_mask(core, plan, lanes_dtype, mask)
            return
        idx = [i * lanes + per[:last if (last >= 0 and i == repeat - 1) else per.size] for i in range(repeat)]
        active = np.concatenate(idx)
        active.setflags(write=False)  # as the count form's lanes: one compiled offset_faults for both forms
        offsets_used = src_offset._view()[active]
        dst_bytes = np.concatenate([dst.addr + i * rep_bytes + per[:len(ix)] * dst.dtype.size
                                    for i, ix in enumerate(idx)])
    _check_offsets(api, core, dst, src, src_offset, src_base_addr, offsets_used, dst_bytes, active)
    if core.sanitizer is not None:
        _sanitize_gather(core, dst, src, src_offset, src_base_addr, offsets_used, dst_bytes, active)
    if count is None and core.spec.high_dim_writes_mask_register:  # after every refusal and report (SPEC-2 1.5)
        record_mask(core, plan, lanes_dtype, mask)
    gather(core.ub, dst.dtype.size, dst.addr, src.addr + src_base_addr, src_offset.addr, per, lanes, rep_bytes,
           repeat, last)
    if count is not None:
        full = _gather_lanes(spec, dst.dtype)
        core._after_count_call(count % full or full)


def _gather_lanes(spec, d):
    """D57: a repeat covers 8 DataBlocks of dst, 4 for 8-bit types on 950/310B."""
    return (4 if d.size == 1 and spec.gather_offset_limited else 8) * 32 // d.size


def _gather_types(api, spec, d, s, o, count_form):
    if not spec.gather_dtypes:
        raise UnsupportedDeviceError(api, "device", spec.name, legal="ascend950, atlas-a3, atlas-a2, "
                                     "atlas-200i-500-a2, atlas-inference-aicore", detail="not offered (SPEC-2 1.9)")
    check_dtype(api, spec, d, spec.gather_dtypes)
    if s is not d:
        raise UnsupportedDTypeError(api, "src.dtype", s.name, legal=f"{d.name} (as dst)", device=spec.name)
    if o.name != "uint32":
        # port57e: int32 offsets (a CreateVecIndex / Muls result) are the same bits for the offsets a UB holds
        hint = "; for an int32 tensor of offsets pass src_offset.ReinterpretCast('uint32') (the same bits)" \
            if o.name == "int32" else ""
        raise UnsupportedDTypeError(api, "src_offset.dtype", o.name, legal=f"uint32 (byte offsets){hint}",
                                    device=spec.name)
    if not count_form and d.name in spec.gather_count_only_dtypes:
        raise UnsupportedDTypeError(api, "dtype", d.name, device=spec.name, legal=", ".join(
            n for n in spec.gather_dtypes if n not in spec.gather_count_only_dtypes),
            detail="8-bit types only through the count form on this device (SPEC-2 9.2)")


@lru_cache(maxsize=4096, typed=True)  # typed: True and 1 are different arguments
def _validate_gather_count(spec, d, s, o, addr, src_addr, off_addr, size, off_size, base, count):
    api = "Gather"
    _gather_types(api, spec, d, s, o, True)
    check_range(api, spec, "src_base_addr", base, 0, 2**32 - 1)
    count = check_range(api, spec, "count", count, 0, 2**32 - 1)
    for name, a in (("dst", addr), ("src", src_addr), ("src_offset", off_addr)):
        check_align(api, spec, name, a, 32)
    for name, n in (("dst", size), ("src_offset", off_size)):
        check_count_within(api, spec, name, n, count)
    per = np.arange(count, dtype=np.int64)
    per.setflags(write=False)
    return per


@lru_cache(maxsize=4096, typed=True)  # typed: True and 1 are different arguments
def _validate_gather_high_dim(spec, d, s, o, addr, src_addr, off_addr, size, off_size, base, bounds, plan,
                              repeat_time, dst_rep_stride):
    api = "Gather"
    _gather_types(api, spec, d, s, o, False)
    check_range(api, spec, "src_base_addr", base, 0, 2**32 - 1)
    repeat_time = check_range(api, spec, "repeat_time", repeat_time, 0, 255)
    rep = check_range(api, spec, "dst_rep_stride", dst_rep_stride, 0, 65535)
    refuse_empty_mask_on_950(api, spec, plan)
    for name, a in (("dst", addr), ("src", src_addr), ("src_offset", off_addr)):
        check_align(api, spec, name, a, 32)
    lanes = _gather_lanes(spec, d)
    repeat = plan.repeats(lanes, repeat_time)
    last = plan.last_lanes(lanes)
    per = mask_lane_indices(plan.lo, plan.hi, lanes)
    if repeat and per.size:
        n_last = per.size if last < 0 else min(last, per.size)
        top = (repeat - 1) * lanes + int(per[n_last - 1]) + 1
        if top > off_size:
            raise OutOfBoundsError(api, "src_offset", f"{top} offsets", device=spec.name,
                                   legal=f"<= src_offset.GetSize() = {off_size} (lane j of repeat i uses offset "
                                         "i*L + j, D57)")
        # the far dst byte: the last repeat writes only its n_last lanes (counter mode), the others every active lane
        full = repeat - 1 if n_last < per.size else repeat
        end = addr + max((full - 1) * rep * 32 + (int(per[-1]) + 1) * d.size if full else 0,
                         (repeat - 1) * rep * 32 + (int(per[n_last - 1]) + 1) * d.size)
        check_run_bounds(api, spec, bounds, Runs("dst", addr, end - addr, 0, 1), TensorExtent(addr, size, d))
    per.setflags(write=False)
    return per, lanes, repeat, last, rep * 32


def _element_bytes(starts, size):
    """The sorted unique bytes of elements of `size` bytes starting at `starts` (a footprint's address array)."""
    return np.unique((np.asarray(starts, np.int64)[:, None] + np.arange(size)).ravel())


def _sanitize_gather(core, dst, src, src_offset, base, offsets, dst_bytes, active):
    """Gather's footprint (D57): the src elements and the uint32 offsets of the active lanes read, their dst
    elements written; masked-off lanes neither read nor write."""
    size = dst.dtype.size
    reads = [(("src", _element_bytes(src.addr + base + offsets.astype(np.int64), size)), src),
             (("src_offset", _element_bytes(src_offset.addr + 4 * active, 4)), src_offset)]
    vector_access(core, "Gather", reads=reads, writes=[(("dst", _element_bytes(dst_bytes, size)), dst)])


def _offset_range(src, base, size, lo_t, hi_t, bounds):
    """The legal values of a src_offset element in its own frame (a byte offset from src + src_base_addr, D57): the
    offsets whose element lies inside [lo_t, hi_t) (src's tensor, or the UB with bounds="ub"), aligned as the
    AlignmentError before this check requires."""
    start = src.addr + base                       # the UB byte of offset 0
    lo, hi = max(0, lo_t - start), hi_t - size - start
    lo += -(start + lo) % size                    # the first and last element-aligned offsets of the range
    hi -= (start + hi) % size
    where = "src's tensor" if bounds != "ub" else "the UB (bounds=\"ub\")"
    frame = f"bytes from src + src_base_addr ({src.addr} + {base}), elements inside {where}, UB bytes [{lo_t}, {hi_t})"
    if hi < lo:
        return f"none: no {size}-byte element at src + src_base_addr or later lies inside {where} (UB bytes " \
               f"[{lo_t}, {hi_t}); D57)"
    aligned = f"a multiple of {size}" if start % size == 0 else f"{-start % size} modulo {size}"
    return f"[{lo}, {hi}], {aligned} ({frame}; D57)"


def _check_offsets(api, core, dst, src, src_offset, base, offsets, dst_bytes, active):
    """Every used offset: in the device's range (ParameterError), T-aligned (AlignmentError), its bytes inside the UB
    and src's tensor (OutOfBoundsError); no byte read overlaps a byte written (D34). D57."""
    spec, size = core.spec, dst.dtype.size
    if offsets.size == 0:
        return
    limit = (2**16 - 1 if size == 1 else 2**17 - 1) if spec.gather_offset_limited and size <= 2 else -1
    lo_t, hi_t = (0, spec.ub_bytes) if core.bounds == "ub" else (src.addr, src.addr + src.nbytes)
    # one compiled pass (the numpy checks cost about 25 us for a 128-offset Gather); the refusals' order as before:
    # range, alignment, bounds, each naming the first offset that fails it
    over, misaligned, outside, r_lo, r_hi, w_lo, w_hi, u_lo, u_hi = offset_faults(
        offsets, limit, src.addr + base, size, max(lo_t, 0), min(hi_t, spec.ub_bytes), dst_bytes, active)
    if over >= 0:
        raise ParameterError(api, f"src_offset[{int(active[over])}]", int(offsets[over]), device=spec.name,
                             legal=f"[0, {limit}] for {size * 8}-bit types on this device (SPEC-2 9.2)")
    if misaligned >= 0:
        offset = int(offsets[misaligned])
        # the sum is what must be aligned: a src_base_addr off the element size (audit63) makes aligned offsets fail
        detail = (f"makes src + src_base_addr + offset = {src.addr} + {base} + {offset} = {src.addr + base + offset}" +
                  (f"; src_base_addr = {base} is itself not a multiple of {size}" if base % size else ""))
        raise AlignmentError(api, f"src_offset[{int(active[misaligned])}]", offset, device=spec.name, detail=detail,
                             legal=f"src + src_base_addr + offset a multiple of {size} (D57)")
    if outside >= 0:
        raise OutOfBoundsError(api, f"src_offset[{int(active[outside])}]", int(offsets[outside]), device=spec.name,
                               legal=_offset_range(src, base, size, lo_t, hi_t, core.bounds))
    w_hi += size
    for name, lo, hi in (("dst/src", r_lo, r_hi + size), ("dst/src_offset", src_offset.addr + 4 * u_lo,
                                                          src_offset.addr + 4 * u_hi + 4)):
        # disjoint byte ranges share no byte: skip the sorting intersection (most calls: dst, src and the offsets
        # are separate buffers), which took most of a large Gather's time
        if lo >= w_hi or hi <= w_lo:
            continue
        writes = (dst_bytes[:, None] + np.arange(size)).ravel()
        if name == "dst/src":
            reads = ((src.addr + base + offsets.astype(np.int64))[:, None] + np.arange(size)).ravel()
        else:
            reads = (src_offset.addr + 4 * active[:, None] + np.arange(4)).ravel()
        common = np.intersect1d(reads, writes)
        if common.size:  # the pair named by the operand whose bytes are written
            raise OverlapError(api, name, f"byte {int(common[0])}", device=spec.name,
                               legal="no byte read (src elements, offsets) is written (SPEC-2 D34)")


# --- GatherMask ---------------------------------------------------------------------------------------------------
@dataclass(unsafe_hash=True, slots=True)  # mutable as BinaryRepeatParams: C++ sets fields of a default-made struct
class GatherMaskParams:
    """SPEC-2 1.1: src0BlockStride (uint8), repeatTimes (0..255, D58), src0RepeatStride (uint16),
    src1RepeatStride (uint8)."""
    src0BlockStride: int = 1
    repeatTimes: int = 0
    src0RepeatStride: int = 8
    src1RepeatStride: int = 8


_PATTERN_DTYPE = {1: "uint8", 2: "uint16", 4: "uint32"}


def GatherMask(dst, src0, src1_pattern, reduce_mode, mask, gather_mask_params, *rsvd_cnt):
    """Pack the elements of src0 whose pattern bit is 1 from dst[0]; returns rsvdCnt (SPEC-2 9.3, D58). Leaves the
    core in Normal mode with an undefined mask register (D31). The C++ call's seventh argument, the `uint64_t&
    rsvdCnt` it writes, has no Python counterpart (an int cannot be written through): it is refused by name."""
    api = "GatherMask"
    user = isinstance(src1_pattern, LocalTensor)
    core = operands(api, dst, src0, src1_pattern, names=("src0", "src1_pattern")) if user else \
        operands(api, dst, src0, names=("src0",))
    spec = core.spec
    if rsvd_cnt:
        raise ParameterError(api, "rsvdCnt", rsvd_cnt[0] if len(rsvd_cnt) == 1 else rsvd_cnt, device=spec.name,
                             legal="no argument: rsvdCnt = aj.GatherMask(dst, src0, src1_pattern, reduce_mode, mask, "
                                   "gather_mask_params) returns it (SPEC-2 9.3)",
                             detail=f"{6 + len(rsvd_cnt)} arguments: the C++ out-parameter is the return value here")
    # plain ints before the cache key (issue 12: 1.0 or np.bool_ must not share the entry of 1); ranges: validator
    p = repeat_params(api, spec, gather_mask_params, GatherMaskParams, hi=None)
    mask = as_int(api, spec, "mask", mask)
    if not user:
        src1_pattern = as_int(api, spec, "src1_pattern", src1_pattern)
    pat = (src1_pattern.dtype, src1_pattern.addr, src1_pattern.size, None) if user else (None, None, 0, src1_pattern)
    key = (spec, dst.dtype, src0.dtype) + pat + (dst.addr, src0.addr, dst.size, src0.size, core.bounds, reduce_mode,
                                                 mask, p)
    try:
        outer, elems, last, blk, rep, prs, src_ext = _validate_gather_mask(*key)
    except TypeError:
        outer, elems, last, blk, rep, prs, src_ext = _validate_gather_mask.__wrapped__(*key)
    size = dst.dtype.size
    per_repeat = []   # elements each outer repeat keeps
    for i in range(outer):
        n = last if i == outer - 1 else elems
        if user:
            start = src1_pattern.addr + i * prs
            per_repeat.append(int(np.unpackbits(core.ub[start:start + -(-n // 8)], bitorder="little")[:n].sum()))
        else:
            per_repeat.append(_builtin_count(src1_pattern, n))
    kept = sum(per_repeat)
    check_run_bounds(api, spec, core.bounds, Runs("dst", dst.addr, kept * size, 0, 1), dst)
    if dst.addr == src0.addr:
        # In place (src0BlockStride 1, src0RepeatStride 8: the D34 exception) outer repeat i reads from byte
        # i*rep*32 of src0; with more than L elements per outer repeat (reduce mode, D58) the elements packed before
        # it can reach that far. SPEC 8.2 (kept by D34 for every high-dim API): an earlier iteration's dst must not
        # be a later iteration's src, so refuse before anything is written.
        written = 0
        for i in range(1, outer):
            written += per_repeat[i - 1] * size
            if written > i * rep * 32:
                raise OverlapError(api, "dst/src0", f"dst bytes [{dst.addr}, {dst.addr + written})",
                                   device=spec.name, detail=f"in place, outer repeat {i} reads src0 from byte "
                                   f"{src0.addr + i * rep * 32}, which the elements packed by the repeats before it "
                                   "already overwrote",
                                   legal="in place, the elements kept by repeats 0..i-1 end at or before outer "
                                         "repeat i's first src0 byte (SPEC 8.2, SPEC-2 D34); at most L elements "
                                         "per outer repeat, or a separate dst")
    # D34 on exact byte sets (SPEC-2 1.5): a dst in the blocks src0BlockStride skips, or between the user pattern's
    # rows, shares no byte with what the call reads
    if kept and src_ext is not None and dst.addr != src0.addr and dst.addr < src_ext[1] and \
            src_ext[0] < dst.addr + kept * size and \
            _src0_meets(src0.addr, size, blk, rep, outer, elems, last, dst.addr, dst.addr + kept * size):
        raise OverlapError(api, "dst/src0", f"dst at {dst.addr}", device=spec.name,
                           legal="dst at src0's address with src0BlockStride 1 and src0RepeatStride 8, or no overlap "
                                 "(SPEC-2 D34)")
    if user and kept:
        if _pattern_meets(src1_pattern.addr, prs, outer, elems, last, dst.addr, dst.addr + kept * size):
            raise OverlapError(api, "dst/src1_pattern", f"dst at {dst.addr}", device=spec.name,
                               legal="no overlap with the user pattern (SPEC-2 D34)")
    if core.sanitizer is not None and outer:
        _sanitize_gather_mask(core, dst, src0, src1_pattern, user, outer, elems, last, blk, rep, prs, kept,
                              reduce_mode)
    done = gather_mask(core.ub, size, dst.addr, src0.addr, blk, rep, user, src1_pattern.addr if user else 0,
                       0 if user else int(src1_pattern), prs, outer, elems, last)
    if core.counter_mode:
        core.SetMaskNorm()       # D31: GatherMask forces Normal mode
    core.mask_defined = False    # D31: and leaves the mask register undefined
    core.rsvd_cnt = done         # the RSVD_CNT register GetGatherMaskRemainCount reads
    return done


# get_rsvd_cnt() in the A2/A3 (dav_c220) and 310P (dav_m200) builds of GetGatherMaskRemainCountImpl; the others assert
_RSVD_CNT_DEVICES = ("atlas-a3", "atlas-a2", "atlas-inference-aicore")


def GetGatherMaskRemainCount():
    """`GetGatherMaskRemainCount()` (DK impl/basic_api/kernel_operator_vec_gather_mask_intf_impl.h; no devkit page):
    the scalar unit's read of the RSVD_CNT register the last GatherMask on this core wrote, the count of elements it
    kept (GatherMask's return value here). A2/A3 and the 310P; refused elsewhere, where the devkit asserts, and
    before any GatherMask (the register is undefined; docs/decisions.md "GetGatherMaskRemainCount")."""
    api = "GetGatherMaskRemainCount"
    core = current_core(api)
    if core.device not in _RSVD_CNT_DEVICES:
        raise UnsupportedDeviceError(api, "device", core.device, legal=", ".join(_RSVD_CNT_DEVICES),
                                     detail="not offered here (the devkit's build asserts): use GatherMask's returned "
                                            "count")
    if core.rsvd_cnt is None:
        raise StateError(api, "RSVD_CNT", None, device=core.device, legal="after a GatherMask on this core",
                         detail="no GatherMask ran on this core: the register is undefined")
    # no sanitizer record: the devkit's own GatherMaskImpl reads the register by the same get_rsvd_cnt() straight
    # after its vreducev2 with no flag between them (dav_c220 / dav_m200 kernel_operator_vec_gather_mask_impl.h), so
    # the device orders this read after the core's last GatherMask (port66e: ops-math HansEncode had a V_S report)
    return core.rsvd_cnt


def _progression_meets(start, step, count, length, lo, hi):
    """Whether a byte range [start + j*step, start + j*step + length), j in [0, count), meets [lo, hi) (step >= 0;
    closed form: the first range that ends past lo is the only candidate)."""
    if count <= 0 or length <= 0 or lo >= hi:
        return False
    if step == 0:
        return start < hi and start + length > lo
    j = max(0, (lo - length - start) // step + 1)
    return j < count and start + j * step < hi


def _src0_meets(src_addr, size, blk, rep, outer, elems, last, lo, hi):
    """Whether the src0 bytes a GatherMask reads meet [lo, hi) (D58: outer repeat i's elements in DataBlocks
    src0BlockStride apart from src_addr + i*rep*32, `elems` each, the last repeat `last`)."""
    epb = 32 // size
    for first, count, n in ((0, outer - 1, elems), (outer - 1, 1, last)):
        full, tail = divmod(n, epb)
        if count <= 0 or n <= 0:
            continue
        if count <= full + 1:   # few repeats: each one's blocks are a progression
            for i in range(first, first + count):
                b = src_addr + i * rep * 32
                if _progression_meets(b, blk * 32, full, 32, lo, hi) or \
                        _progression_meets(b + full * blk * 32, 0, 1 if tail else 0, tail * size, lo, hi):
                    return True
        else:                   # few blocks: block k of every repeat is a progression
            for k in range(full + (1 if tail else 0)):
                if _progression_meets(src_addr + first * rep * 32 + k * blk * 32, rep * 32, count,
                                      32 if k < full else tail * size, lo, hi):
                    return True
    return False


def _pattern_meets(paddr, prs, outer, elems, last, lo, hi):
    """Whether the user pattern bytes a GatherMask reads meet [lo, hi): outer repeat i's bits from paddr + i*prs
    (prs in bytes), ceil(elems/8) bytes, the last repeat's ceil(last/8) (D58)."""
    return _progression_meets(paddr, prs, outer - 1, -(-elems // 8), lo, hi) or \
        _progression_meets(paddr + (outer - 1) * prs, 0, 1, -(-last // 8), lo, hi)


def _sanitize_gather_mask(core, dst, src0, pattern, user, outer, elems, last, blk, rep, prs, kept, reduce_mode):
    """GatherMask's footprint (D58): the pattern bytes of each repeat's elements and the src0 elements whose
    pattern bit is 1 read (an element the pattern drops is never used: not a read), the packed dst written."""
    size = dst.dtype.size
    epb = 32 // size
    starts, pattern_bytes = [], []
    for i in range(outer):
        n = last if i == outer - 1 else elems
        e = np.arange(n)
        if user:
            start = pattern.addr + i * prs
            pattern_bytes.append(np.arange(start, start + -(-n // 8)))
            keep = np.unpackbits(core.ub[start:start + -(-n // 8)], bitorder="little")[:n].astype(np.bool_)
        else:
            keep = _builtin_keep(pattern, n)
        e = e[keep]
        starts.append(src0.addr + i * rep * 32 + (e // epb) * blk * 32 + (e % epb) * size)
    gathered = np.concatenate(starts)   # the source element of each packed output element, in output order
    reads = [(("src0", _element_bytes(gathered, size)), src0)]
    if user:
        reads.append((("src1_pattern", np.unique(np.concatenate(pattern_bytes))), pattern))
    # the 310B's B32 GatherMask by a pattern tensor in reduce mode starts with S_V (dav_m300: decisions.md "The
    # implementations' own flags")
    scratch = bit_mask_scratch_flags(core.spec, user and reduce_mode and size == 4)
    derived = [Derived("src0", gathered, size, dst.addr + np.arange(gathered.size, dtype=np.int64) * size, size,
                       GATHERED_FIX)]
    vector_access(core, "GatherMask", reads=reads, writes=[(("dst", dst.addr, kept * size), dst)], own_flags=scratch,
                  derived=derived)


def _builtin_keep(pattern, n):
    """SPEC-2 9.3 built-in patterns over n elements: 1 even, 2 odd, 3..6 elements = 0..3 (mod 4), 7 every one."""
    e = np.arange(n)
    if pattern == 7:
        return np.ones(n, np.bool_)
    if pattern in (1, 2):
        return e % 2 == pattern - 1
    return e % 4 == pattern - 3


def _builtin_count(pattern, n):
    return int(np.count_nonzero(_builtin_keep(pattern, n)))


@lru_cache(maxsize=4096, typed=True)  # typed: True and 1 are different arguments
def _validate_gather_mask(spec, d, s, pdtype, paddr, psize, pattern, addr, src_addr, size, src_size, bounds, reduce_mode,
                          mask, p):
    """(outer repeats, elements per repeat, elements of the last, blkStride, repStride, pattern bytes per repeat,
    src0 extent) after every shape check (D58)."""
    api = "GatherMask"
    if not spec.gather_mask_dtypes:
        raise UnsupportedDeviceError(api, "device", spec.name, legal="ascend950, atlas-a3, atlas-a2, "
                                     "atlas-200i-500-a2, atlas-inference-aicore", detail="not offered (SPEC-2 1.9)")
    check_dtype(api, spec, d, spec.gather_mask_dtypes)
    if s is not d:
        raise UnsupportedDTypeError(api, "src0.dtype", s.name, legal=f"{d.name} (as dst)", device=spec.name)
    if pdtype is not None:
        want = _PATTERN_DTYPE[d.size]
        if pdtype.name != want:
            raise UnsupportedDTypeError(api, "src1_pattern.dtype", pdtype.name, device=spec.name,
                                        legal=f"{want} (one bit per {d.name} element, SPEC-2 9.3)")
    elif isinstance(pattern, bool) or not isinstance(pattern, (int, np.integer)) or \
            not 1 <= pattern <= spec.gather_mask_max_pattern:
        raise ParameterError(api, "src1_pattern", pattern, device=spec.name,
                             legal=f"a LocalTensor or a built-in pattern 1..{spec.gather_mask_max_pattern}")
    if not isinstance(p, GatherMaskParams):
        raise ParameterError(api, "gather_mask_params", p, device=spec.name,
                             legal="aj.GatherMaskParams or 4 integers (src0BlockStride, repeatTimes, "
                                   "src0RepeatStride, src1RepeatStride)")
    blk = check_range(api, spec, "src0BlockStride", p.src0BlockStride, 0, 255)
    times = check_range(api, spec, "repeatTimes", p.repeatTimes, 0, 255)
    rep = check_range(api, spec, "src0RepeatStride", p.src0RepeatStride, 0, 65535)
    prs = check_range(api, spec, "src1RepeatStride", p.src1RepeatStride, 0, 255) * 32
    if not isinstance(reduce_mode, (bool, np.bool_)):
        raise ParameterError(api, "reduce_mode", reduce_mode, legal="True or False", device=spec.name)
    mask = check_range(api, spec, "mask", mask, 1 if reduce_mode else 0, 2**32 - 1)
    for name, a in (("dst", addr), ("src0", src_addr)) + ((("src1_pattern", paddr),) if pdtype is not None else ()):
        check_align(api, spec, name, a, 32)
    lanes = d.lanes_per_repeat
    if not reduce_mode:
        outer, elems, last = times, lanes, lanes          # mask ignored
    elif spec.gather_mask_total_count:                    # 310P: mask is the total count
        outer, elems = -(-mask // lanes), lanes
        last = mask - (outer - 1) * lanes
    else:                                                 # each outer repeat handles `mask` elements
        outer, elems, last = times, mask, mask
    if outer == 0:
        return 0, elems, last, blk, rep, prs, None
    epb = 32 // d.size
    # the far byte of n elements: the last one's, except with src0BlockStride 0, where every DataBlock is the first
    # and n > 32/sizeof(T) elements reach its end whatever the last one's position in it
    span = lambda n: (((n - 1) // epb) * blk * 32 + ((n - 1) % epb) * d.size + d.size if blk else  # noqa: E731
                      min(n, epb) * d.size) if n else 0
    # the far byte: the last outer repeat handles `last` elements, the others `elems` (310P's total count: fewer)
    src_end = src_addr + max((outer - 2) * rep * 32 + span(elems) if outer > 1 else 0,
                             (outer - 1) * rep * 32 + span(last))
    check_run_bounds(api, spec, bounds, Runs("src0", src_addr, src_end - src_addr, 0, 1),
                     TensorExtent(src_addr, src_size, d))
    if pdtype is not None:
        p_end = paddr + max((outer - 2) * prs + -(-elems // 8) if outer > 1 else 0,
                            (outer - 1) * prs + -(-last // 8))
        check_run_bounds(api, spec, bounds, Runs("src1_pattern", paddr, p_end - paddr, 0, 1),
                         TensorExtent(paddr, psize, pdtype))
    if addr == src_addr and not (blk == 1 and rep == 8):
        raise OverlapError(api, "dst/src0", "the same address", device=spec.name,
                           legal="src0BlockStride 1 and src0RepeatStride 8 when dst == src0 (SPEC-2 D34)")
    return outer, elems, last, blk, rep, prs, (src_addr, src_end)

