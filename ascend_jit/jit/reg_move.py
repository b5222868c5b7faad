"""Ascend 950 Reg loads and stores with every distribution, DATA_BLOCK_COPY, post-update addressing, MaskReg
loads/stores (SPEC-2 11.6, D68) and the MaskReg operations (SPEC-2 11.7, D63, D64).

A tensor reaches these functions as a handle `(ub, byte address, element size, modes, lo, hi)`: [lo, hi) is the
byte range the operand may touch (its tensor, or the whole UB on a `bounds="ub"` core; issue 11's tensor-bounds
rule). A VF computes addresses at run time, so each function checks alignment and bounds itself, before writing.
One table per direction gives each distribution's lane width (0: the register's own), bytes and alignment; one
lane map gives the element each register lane comes from (loads) or the position it goes to (stores).

Like every Reg kernel module (jit/reg.py REG_KERNEL_MODULES), its kernels are optimised twice when they compile,
and compiled VFs call the larger ones through pointers (docs/decisions.md "Kernels called through a pointer").
"""
import numpy as np
from llvmlite import binding as llvm_binding
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ..devices import get_device
from ..errors import (ALIGN_32_BYTES, OUTSIDE, OUTSIDE_VECTOR_LOAD, OUTSIDE_VECTOR_STORE, AlignmentError,
                      OutOfBoundsError, ParameterError, StateError, UnsupportedDeviceError, UnsupportedDTypeError)
from .lowered import empty_array, larger, lowered, zeroed_array
from .numerics import kind_size
from .reg import (H_CTRL, H_KIND, VL, all_active, byte_address, bytes_like, external_global, internal, lane_on,
                  mask_register_of, set_u16, set_u32, u16_at_byte, u32_at)

DEVICE = "ascend950"
UB_BYTES = get_device(DEVICE).ub_bytes  # an OUTSIDE refusal names the UB, not the tensor, when that is its range

# LoadDist codes (aj.Reg.LoadDist) and their (lane width, bytes read, alignment) (SPEC-2 11.6 table)
L_NORM, L_BRC_B8, L_BRC_B16, L_BRC_B32, L_US_B8, L_US_B16, L_DS_B8, L_DS_B16 = 0, 1, 2, 3, 4, 5, 6, 7
L_UNPACK_B8, L_UNPACK_B16, L_UNPACK_B32, L_UNPACK4_B8, L_BLK, L_E2B_B16, L_E2B_B32 = 8, 9, 10, 11, 12, 13, 14
L_DINTLV_B8, L_DINTLV_B16, L_DINTLV_B32 = 15, 16, 17
LOAD_WIDTH = np.array([0, 1, 2, 4, 1, 2, 1, 2, 1, 2, 4, 1, 0, 2, 4, 1, 2, 4], np.int64)
LOAD_BYTES = np.array([256, 1, 2, 4, 128, 128, 512, 512, 128, 128, 128, 64, 32, 16, 32, 512, 512, 512], np.int64)
LOAD_ALIGN = np.array([32, 1, 2, 4, 32, 32, 32, 32, 32, 32, 32, 32, 32, 16, 32, 32, 32, 32], np.int64)

# StoreDist codes (aj.Reg.StoreDist): (lane width, output element bytes, span, alignment)
S_NORM, S_NORM_B8, S_NORM_B16, S_NORM_B32, S_FIRST_B8, S_FIRST_B16, S_FIRST_B32 = 0, 1, 2, 3, 4, 5, 6
S_PACK_B16, S_PACK_B32, S_PACK_B64, S_PACK4_B32, S_INTLV_B8, S_INTLV_B16, S_INTLV_B32 = 7, 8, 9, 10, 11, 12, 13
STORE_WIDTH = np.array([0, 1, 2, 4, 1, 2, 4, 2, 4, 8, 4, 1, 2, 4], np.int64)
STORE_ALIGN = np.array([32, 32, 32, 32, 1, 2, 4, 32, 32, 32, 32, 32, 32, 32], np.int64)

# MaskDist codes (aj.Reg.MaskDist)
MD_NORM, MD_US, MD_DS, MD_PACK = 0, 1, 2, 3
POST_NORMAL, POST_UPDATE = 0, 1
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, inline="always")
def _misaligned(api, name, value, align):
    """AlignmentError naming the distribution's alignment (numba raises constant messages: one per value). Inlined:
    its callers pass literal names, and a function of its own compiled once per (api, name, align) literal
    combination (12 specialisations in the test suite, 0.1 s each; issue 20)."""
    if align == 32:
        raise AlignmentError(api, name, value, ALIGN_32_BYTES, DEVICE)
    if align == 16:
        raise AlignmentError(api, name, value, "a multiple of 16 bytes (SPEC-2 11.6)", DEVICE)
    if align == 4:
        raise AlignmentError(api, name, value, "a multiple of 4 bytes (SPEC-2 11.6)", DEVICE)
    raise AlignmentError(api, name, value, "a multiple of 2 bytes (SPEC-2 11.6)", DEVICE)


@njit(cache=True, inline="always")
def _check_place(api, lo, hi, addr, align, start, stop):
    """addr aligned; bytes [start, stop) inside the operand's allowed range [lo, hi) (the handle's h[4], h[5];
    AlignmentError / OutOfBoundsError). Takes the two ints, not the handle: a tuple holding an array, passed on
    into a nested inlined function, cost a VF more per LoadAlign than the 256-byte copy itself."""
    if addr % align != 0:
        _misaligned(api, "address", addr, align)
    if stop > start and (start < lo or stop > hi):
        raise OutOfBoundsError(api, "address", start, _INSIDE, DEVICE, (OUTSIDE, start, stop, lo, hi, UB_BYTES))


@njit(cache=True, inline="always")
def _check_width(api, kind, width):
    """A B8/B16/B32/B64 distribution moves lanes of that width: the register's element size must match; b64
    registers move only with DIST_NORM (and DIST_PACK_B64 for stores)."""
    size = kind_size(kind)
    if width == 0:
        return size
    if size != width:
        # port60e: ops-cv loads DIST_UNPACK_B16 into `(RegTensor<T1>&)` a 32-bit register, a reinterpretation
        # the Python API has no form of: the refusal gives the recipe
        raise UnsupportedDTypeError(api, "register element size", size, "the distribution's lane width (SPEC-2 "
                                    "11.6): a register of that width, the B8 / B16 / B32 in the distribution's "
                                    "name (a 16-bit type for DIST_UNPACK_B16 or DIST_BRC_B16, a 32-bit one for "
                                    "DIST_UNPACK_B32 or DIST_BRC_B32); C++'s "
                                    "(RegTensor<U>&) reinterpretation is not offered: Cast the register to the wide "
                                    "type with RegLayout.ZERO (SPEC-2 D65; a Cast converts values, int32 -> int64 "
                                    "sign-extends), or, for the bytes as they are (a zero-extended word), store it "
                                    "and load the bytes again as the other type", DEVICE)
    return size


@njit(cache=True, inline="always")
def _check_step(api, step, esize, align):
    if (step * esize) % align != 0:
        _misaligned(api, "post_update_stride (bytes)", step * esize, align)


def copy_bytes(dst, dst_start, src, src_start, n):
    """dst[dst_start:+n] = src[src_start:+n] for uint8 arrays or registers' data pointers (plain Python:
    NUMBA_DISABLE_JIT)."""
    dst[dst_start:dst_start + n] = src[src_start:src_start + n]


def _memmove(context, builder, sig, args):
    """copy_bytes compiled: llvm.memmove between two uint8 arrays or data pointers, no slice or view objects (their
    reference counting dominated the hot loads and stores)."""
    d = byte_address(context, builder, sig.args[0], args[0])
    s = byte_address(context, builder, sig.args[2], args[2])
    cgutils.raw_memmove(builder, builder.gep(d, [args[1]]), builder.gep(s, [args[3]]), args[4],
                        context.get_constant(types.intp, 1))
    return context.get_dummy_value()


lowered(copy_bytes, (bytes_like, types.intp, bytes_like, types.intp, types.intp), types.none, _memmove)


# the words of plain Python's _offset and _step (as_int), so a compiled VF refuses an offset or a post_update_stride
# outside int32 (decisions.md "Reg API") with the message plain Python gives (SPEC-2 11.1)
_INT32 = "an integer in [-2147483648, 2147483647]"


@internal
def _refuse_offset(api, offset):
    """element_address's refusal, a function of its own: raised inline, with its run-time value, it made every load
    and store slower (the add/mul VF over 8320 halves 10.7 -> 20.1 us). `api` is the caller's literal name, so each
    API compiles a small refusal of its own (a run-time string, `str(api)`, had compiled numba's str/repr/concat
    machinery into the first load or store of every process: 1.8 s of a first Reg call, issue 20)."""
    raise ParameterError(api, "offset", offset, _INT32, DEVICE)


def _outside_int32(offset):
    """Whether an offset or step lies outside int32 (a bool always): the kernels run as this Python with the JIT off
    (NUMBA_DISABLE_JIT), compiled as _outside_int32_codegen below."""
    return isinstance(offset, (bool, np.bool_)) or not -2147483648 <= int(offset) <= 2147483647


def _outside_int32_codegen(context, builder, sig, args):
    """_outside_int32 compiled, one unsigned compare for each offset type. An unsigned offset (a VF's
    np.uint32/uint64 argument) is compared as it is: adding 2**31 to uint64 2**64 - 64 wrapped it into range, and
    the offset, -64 as an address, loaded another tensor's elements on a bounds="ub" core where plain Python refuses
    it. A bool is outside (plain Python's as_int refuses it; the step's compiled reader passes it on)."""
    offset_type = sig.args[0]
    if isinstance(offset_type, types.Boolean):
        return context.get_constant(types.boolean, True)
    i64 = ir.IntType(64)
    if isinstance(offset_type, types.Integer) and not offset_type.signed:
        return builder.icmp_unsigned(">", context.cast(builder, args[0], offset_type, types.uint64),
                                     ir.Constant(i64, 2147483647))
    shifted = builder.add(context.cast(builder, args[0], offset_type, types.int64), ir.Constant(i64, 2147483648))
    return builder.icmp_unsigned(">", shifted, ir.Constant(i64, 4294967295))


lowered(_outside_int32, (lambda t: isinstance(t, (types.Integer, types.Boolean)),), types.boolean,
        _outside_int32_codegen)


@internal
def _refuse_step(api, step):
    """A post_update_stride outside int32, refused as plain Python's _step refuses it: unchecked, a compiled load
    had run and returned offset + step (2**40, or a wrapped uint64 2**64 - 64 as -64) where plain Python refuses."""
    raise ParameterError(api, "post_update_stride", step, _INT32, DEVICE)


@njit(cache=True, inline="always")
def _check_step_then_offset(api, offset, step):
    """post_update_stride, then offset, each an int32, in plain Python's order (its _step, then _offset) and before
    the dist and register checks, so a compiled VF refuses first what plain Python refuses first (SPEC-2 11.1)."""
    if _outside_int32(step):
        _refuse_step(api, step)
    if _outside_int32(offset):
        _refuse_offset(api, offset)


@njit(cache=True, inline="always")
def element_address(api, h, offset):
    """The UB byte address of element `offset` of the handle's tensor. The offset is an int32 (plain Python's
    `_offset` checks the same range): a VF computes it at run time, and an int64 one could wrap `offset * size`
    back into the tensor (offset -2**63 + 128 loaded element 128). One unsigned compare."""
    if _outside_int32(offset):
        _refuse_offset(api, offset)
    return h[1] + offset * h[2]


# the tensor rule is the package's (docs/decisions.md "Tensor bounds", binding since issue 11); SPEC-2 11.6 and 1.5
# ask only for the UB (port56a: the refusal had cited SPEC-2 11.6 for it)
_INSIDE = ("every accessed byte inside the operand's tensor (docs/decisions.md \"Tensor bounds\"; or the UB on a core "
           "made with bounds=\"ub\": aj.launch(..., bounds=\"ub\"), SPEC-2 11.6)")


# LoadAlign / StoreAlign DIST_NORM, the hot cases, are small functions of their own whose checks raise directly:
# a call of a shared checking function with string arguments, or a fall-back call with the arrays inside a
# branch, cost a VF more per call than the 256-byte copy (numba materialises the strings and updates reference
# counts on every call, not only when the check fails). They keep their CPython entries: a plain LoadAlign/StoreAlign
# with DIST_NORM calls them as they are, and a VF's call (the same plain handle type: kernels never see the VF's
# TensorHandle) reuses the same cached specialisation (a separate entry function linked them and optimised them
# again: 0.46 s of a first plain Reg call; issue 20).
@njit(cache=True, no_cfunc_wrapper=True)
def load_norm(reg, h, offset, step):
    """LoadAlign DIST_NORM (SPEC-2 11.6): 256 bytes from a 32-byte aligned address inside the operand; returns
    offset + step (the post-update form)."""
    if _outside_int32(step):  # first, as plain Python's _step
        _refuse_step("LoadAlign", step)
    addr = element_address("LoadAlign", h, offset)
    if addr % 32 != 0:
        raise AlignmentError("LoadAlign", "address", addr, ALIGN_32_BYTES, DEVICE)
    if addr < h[4] or addr + VL > h[5]:
        raise OutOfBoundsError("LoadAlign", "address", addr, _INSIDE, DEVICE, (OUTSIDE, addr, addr + VL, h[4], h[5],
                                                                               UB_BYTES, OUTSIDE_VECTOR_LOAD))
    if (step * h[2]) % 32 != 0:
        raise AlignmentError("LoadAlign", "post_update_stride (bytes)", step * h[2], ALIGN_32_BYTES, DEVICE)
    copy_bytes(reg, 0, h[0], addr, VL)
    reg[H_CTRL] = h[3]
    return offset + step


@njit(cache=True, no_cfunc_wrapper=True)
def load(reg, h, offset, dist, step):
    """LoadAlign(reg, tensor, offset, dist) (SPEC-2 11.6); returns offset + step (the post-update form)."""
    api = "LoadAlign"
    _check_step_then_offset(api, offset, step)
    if dist < 0 or dist >= L_DINTLV_B8:
        raise ParameterError(api, "dist", dist, "a single-register LoadDist (DINTLV needs two registers)", DEVICE)
    w = _check_width(api, reg[H_KIND], LOAD_WIDTH[dist])
    if kind_size(reg[H_KIND]) == 8 and dist != L_NORM:
        raise UnsupportedDTypeError(api, "dist", dist, "DIST_NORM for b64 registers (SPEC-2 11.6)", DEVICE)
    if dist == L_NORM:   # its refusals in the same order, with a whole-vector load's fix (errors.py _OUTSIDE_FIX)
        return load_norm(reg, h, offset, step)
    addr = element_address(api, h, offset)
    nbytes = LOAD_BYTES[dist]
    if addr % LOAD_ALIGN[dist] != 0:   # _check_place's two checks, the second with a load's fix (port62d: a half
        _misaligned(api, "address", addr, LOAD_ALIGN[dist])   # DIST_UNPACK_B16 past a 16-element tensor)
    if addr < h[4] or addr + nbytes > h[5]:
        # the fix for the loads of a vector's bytes (US, DS, UNPACK: 64-512 bytes); a broadcast / E2B / BLK load of
        # one element or block past its tensor is an offset, not a length, mistake (review 62)
        form = OUTSIDE_VECTOR_LOAD if nbytes >= 64 else 0
        raise OutOfBoundsError(api, "address", addr, _INSIDE, DEVICE, (OUTSIDE, addr, addr + nbytes, h[4], h[5],
                                                                       UB_BYTES, form))
    _check_step(api, step, h[2], LOAD_ALIGN[dist])
    ub = h[0]
    if dist == L_UNPACK_B16:  # the devkit's half -> float pattern: a straight loop of typed lanes
        for i in range(VL // 4):
            set_u32(reg, i, u16_at_byte(ub, addr + 2 * i))
    elif dist == L_UNPACK4_B8:  # byte i to lane 4i, the other three bytes 0 (port67j: int8 masks in; the lane
        for i in range(VL // 4):  # walk below cost 175 ns a call)
            set_u32(reg, i, np.uint32(ub[addr + i]))
    elif dist == L_UNPACK_B8:   # byte i to lane 2i, lane 2i + 1 0
        for i in range(VL // 2):
            set_u16(reg, i, np.uint16(ub[addr + i]))
    elif dist == L_BLK:
        for i in range(VL):
            reg[i] = ub[addr + i % 32]
    elif dist == L_E2B_B16 or dist == L_E2B_B32:
        for i in range(VL):
            reg[i] = ub[addr + (i // 32) * w + i % w]
    else:  # element e of the source to register lanes: one loop per distribution, no per-lane branch
        lanes = VL // w
        if dist >= L_UNPACK_B8 and dist <= L_UNPACK4_B8:
            for i in range(VL):
                reg[i] = 0
        for lane in range(lanes):
            if dist <= L_BRC_B32:
                e, to = 0, lane
            elif dist <= L_US_B16:
                e, to = lane // 2, lane
            elif dist <= L_DS_B16:
                e, to = 2 * lane, lane
            elif dist == L_UNPACK4_B8:
                if lane >= lanes // 4:
                    break
                e, to = lane, 4 * lane
            else:  # UNPACK_Bn: element i to lane 2i (lane 2i+1 stays 0)
                if lane >= lanes // 2:
                    break
                e, to = lane, 2 * lane
            for b in range(w):
                reg[to * w + b] = ub[addr + e * w + b]
    reg[H_CTRL] = h[3]
    return offset + step


@njit(cache=True, no_cfunc_wrapper=True)
def load_dual(reg0, reg1, h, offset, dist, step):
    """LoadAlign(reg0, reg1, tensor, offset, DIST_DINTLV_Bn): even elements to reg0, odd to reg1."""
    api = "LoadAlign"
    _check_step_then_offset(api, offset, step)
    if dist < L_DINTLV_B8 or dist > L_DINTLV_B32:
        raise ParameterError(api, "dist", dist, "DIST_DINTLV_B8/B16/B32 for a dual load (SPEC-2 11.6)", DEVICE)
    w = _check_width(api, reg0[H_KIND], LOAD_WIDTH[dist])
    _check_width(api, reg1[H_KIND], w)
    addr = element_address(api, h, offset)
    _check_place(api, h[4], h[5], addr, 32, addr, addr + 2 * VL)
    _check_step(api, step, h[2], 32)
    src = h[0][addr:addr + 2 * VL]
    for lane in range(VL // w):
        for b in range(w):
            reg0[lane * w + b] = src[2 * lane * w + b]
            reg1[lane * w + b] = src[(2 * lane + 1) * w + b]
    reg0[H_CTRL] = h[3]
    reg1[H_CTRL] = h[3]
    return offset + step


@internal
def _block_active(words, size, blk):
    """Any lane of DataBlock blk active (the mask read at the register's element size)."""
    for lane in range(blk * 32 // size, (blk + 1) * 32 // size):
        if lane_on(words, lane * size):
            return True
    return False


@njit(cache=True, inline="always")
def _block_copy_arguments(api, block_stride, repeat_stride, post_mode):
    """The DATA_BLOCK_COPY strides and post mode, checked before the register's element size as plain Python's
    _block_arguments checks them before calling load_blocks/store_blocks (SPEC-2 11.1: the same first refusal)."""
    # int32 as in plain Python (no address wraps), named and ranged as plain Python's _block_arguments names them,
    # data_block_stride first (SPEC-2 11.1: the same refusal compiled and plain)
    if block_stride < 0 or block_stride > 2147483647:
        raise ParameterError(api, "data_block_stride", block_stride, "an integer in [0, 2147483647]", DEVICE)
    if repeat_stride < 0 or repeat_stride > 2147483647:
        raise ParameterError(api, "repeat_stride", repeat_stride, "an integer in [0, 2147483647]", DEVICE)
    if post_mode != POST_NORMAL and post_mode != POST_UPDATE:
        raise ParameterError(api, "post_mode", post_mode, "a PostLiteral: POST_MODE_NORMAL or POST_MODE_UPDATE", DEVICE)


@njit(cache=True, inline="always")
def _block_copy_address(api, h, offset, block_stride, repeat_stride, post_mode):
    # SPEC-2 11.6: POST_MODE_NORMAL reads at offset + step and leaves the offset as it was (returned unchanged);
    # POST_MODE_UPDATE reads at offset and returns offset + step
    step = repeat_stride * 32 // h[2]
    if post_mode == POST_UPDATE:
        addr, new_offset = element_address(api, h, offset), offset + step
    else:
        addr, new_offset = element_address(api, h, offset + step), offset
    # SPEC-2 11.6 "address 32-B aligned" whatever the mask: a malformed address operand, as StoreAlign DIST_NORM
    # with no active lane (decisions.md "Reg API"); only the bounds check skips fully inactive blocks (D68)
    if addr % 32 != 0:
        _misaligned(api, "address", addr, 32)
    return addr, new_offset


@njit(cache=True, no_cfunc_wrapper=True)
def load_blocks(reg, h, offset, block_stride, words, repeat_stride, post_mode):
    """DATA_BLOCK_COPY load (SPEC-2 11.6, D68): block b from address + b*block_stride*32 when any of its lanes is
    active, else zeros (not read, not bounds-checked). Returns the updated offset (POST_MODE_UPDATE)."""
    api = "LoadAlign"
    _block_copy_arguments(api, block_stride, repeat_stride, post_mode)
    if _outside_int32(offset):  # then the offset, as plain Python's _offset, before the register's size
        _refuse_offset(api, offset)
    size = kind_size(reg[H_KIND])
    if size == 8:
        raise UnsupportedDTypeError(api, "register element size", 8, "b8, b16 or b32 (DATA_BLOCK_COPY)", DEVICE)
    addr, new_offset = _block_copy_address(api, h, offset, block_stride, repeat_stride, post_mode)
    for blk in range(8):
        a = addr + blk * block_stride * 32
        if _block_active(words, size, blk):
            _check_place(api, h[4], h[5], addr, 32, a, a + 32)
    ub = h[0]
    for blk in range(8):
        a = addr + blk * block_stride * 32
        active = _block_active(words, size, blk)
        for i in range(32):
            reg[blk * 32 + i] = ub[a + i] if active else 0
    reg[H_CTRL] = h[3]
    return new_offset


@njit(cache=True, no_cfunc_wrapper=True)  # with a CPython entry, as load_norm
def store_norm(h, reg, words, offset, step):
    """StoreAlign DIST_NORM (SPEC-2 11.6, D68): the active lanes (the mask read at the register's type) to a
    32-byte aligned address; only their bytes must lie inside the operand. Returns offset + step."""
    if _outside_int32(step):  # first, as plain Python's _step
        _refuse_step("StoreAlign", step)
    addr = element_address("StoreAlign", h, offset)
    if addr % 32 != 0:
        raise AlignmentError("StoreAlign", "address", addr, ALIGN_32_BYTES, DEVICE)
    full = all_active(words)
    size = kind_size(reg[H_KIND])
    first, last = 0, VL
    if not full:
        first, last = active_span(words, size)
    if last > first and (addr + first < h[4] or addr + last > h[5]):
        raise OutOfBoundsError("StoreAlign", "address", addr + first, _INSIDE, DEVICE,
                               (OUTSIDE, addr + first, addr + last, h[4], h[5], UB_BYTES, OUTSIDE_VECTOR_STORE))
    if (step * h[2]) % 32 != 0:
        raise AlignmentError("StoreAlign", "post_update_stride (bytes)", step * h[2], ALIGN_32_BYTES, DEVICE)
    if full:  # every lane written: one straight copy
        copy_bytes(h[0], addr, reg, 0, VL)
    else:
        _store_active(h[0], addr, reg, words, size)
    return offset + step


@njit(cache=True, no_cfunc_wrapper=True)
def store_norm_hot(h, reg, words, offset, step):
    """store_norm's hot case in a VF, on data pointers (h a POINTER_HANDLE, reg a register's data pointer; jit/reg.py
    direct_call's `hot`): every lane active, offset and step in int32, the address 32-byte aligned and its 256 bytes
    inside the operand, the step's bytes a multiple of 32: the copy, (True, offset + step); anything else (False, 0),
    and store_norm then runs (and refuses what it refuses)."""
    if _outside_int32(step) or _outside_int32(offset) or not all_active(words):
        return False, np.int64(0)
    addr = h[1] + offset * h[2]
    if addr % 32 != 0 or addr < h[4] or addr + VL > h[5] or (step * h[2]) % 32 != 0:
        return False, np.int64(0)
    copy_bytes(h[0], addr, reg, 0, VL)
    return True, offset + step


@njit(cache=True, inline="always")  # store_norm's alone: no level of its own (issue 20)
def active_span(words, size):
    """[first byte, end byte) of the active lanes of a size-byte type; (0, 0) when none is active."""
    first, last = -1, -1
    for lane in range(VL // size):
        if lane_on(words, lane * size):
            if first < 0:
                first = lane * size
            last = lane * size + size
    return larger(first, 0), larger(last, 0)


@njit(cache=True, inline="always")  # store_norm's alone: no level of its own (issue 20)
def _store_active(ub, addr, reg, words, size):
    for lane in range(VL // size):
        if lane_on(words, lane * size):
            for b in range(size):
                ub[addr + lane * size + b] = reg[lane * size + b]


@njit(cache=True, no_cfunc_wrapper=True)
def store(h, reg, words, offset, dist, step):
    """StoreAlign(tensor, reg, mask, offset, dist) (SPEC-2 11.6, D68); returns offset + step."""
    api = "StoreAlign"
    _check_step_then_offset(api, offset, step)
    if dist < 0 or dist >= S_INTLV_B8:
        raise ParameterError(api, "dist", dist, "a single-register StoreDist (INTLV needs two registers)", DEVICE)
    w = STORE_WIDTH[dist]
    narrow = kind_size(reg[H_KIND]) * (4 if dist == S_PACK4_B32 else 2)
    if not (dist >= S_PACK_B16 and dist <= S_PACK4_B32 and narrow == w):  # a PACK may name its output type
        w = _check_width(api, reg[H_KIND], w)
    if w == 8 and dist != S_NORM and dist != S_PACK_B64:
        raise UnsupportedDTypeError(api, "dist", dist, "DIST_NORM or DIST_PACK_B64 for b64 registers", DEVICE)
    if dist <= S_NORM_B32:  # DIST_NORM and DIST_NORM_Bn (lanes of the register's own width, checked above)
        return store_norm(h, reg, words, offset, step)
    addr = element_address(api, h, offset)
    if dist >= S_FIRST_B8 and dist <= S_FIRST_B32:
        out_bytes, all_lanes, lanes = w, True, 1
    elif dist >= S_PACK_B16 and dist <= S_PACK_B64:
        out_bytes, all_lanes, lanes = w // 2, False, VL // w
    else:  # DIST_PACK4_B32
        out_bytes, all_lanes, lanes = 1, False, VL // w
    first, last = -1, -1
    for lane in range(lanes):
        if all_lanes or lane_on(words, lane * w):
            if first < 0:
                first = lane * out_bytes
            last = lane * out_bytes + out_bytes
    _check_place(api, h[4], h[5], addr, STORE_ALIGN[dist], addr + larger(first, 0), addr + larger(last, 0))
    _check_step(api, step, h[2], STORE_ALIGN[dist])
    ub = h[0]
    if dist == S_PACK_B32 and all_active(words):
        # DIST_PACK_B32 of every lane (the store after a float -> half Cast): the low half of each 32-bit lane as
        # typed lanes, one vectorised loop (the byte loop below cost 340 ns a call; addr is 32-byte aligned)
        for lane in range(lanes):
            set_u16(ub, (addr >> 1) + lane, np.uint16(u32_at(reg, lane) & np.uint32(0xFFFF)))
        return offset + step
    if dist == S_PACK4_B32 and all_active(words):   # the low byte of each 32-bit lane (port67j: the int8 store after a
        for lane in range(lanes):                     # half -> int8 Cast; the byte loop below cost 217 ns a call)
            ub[addr + lane] = np.uint8(u32_at(reg, lane) & np.uint32(0xFF))
        return offset + step
    for lane in range(lanes):
        if all_lanes or lane_on(words, lane * w):
            for b in range(out_bytes):
                ub[addr + lane * out_bytes + b] = reg[lane * w + b]
    return offset + step


@njit(cache=True, no_cfunc_wrapper=True)
def store_dual(h, reg0, reg1, offset, dist, step):
    """StoreAlign(tensor, reg0, reg1, mask, offset, DIST_INTLV_Bn): element 2i = reg0 lane i, 2i+1 = reg1 lane i;
    the mask is ignored (SPEC-2 11.6)."""
    api = "StoreAlign"
    _check_step_then_offset(api, offset, step)
    if dist < S_INTLV_B8 or dist > S_INTLV_B32:
        raise ParameterError(api, "dist", dist, "DIST_INTLV_B8/B16/B32 for a dual store (SPEC-2 11.6)", DEVICE)
    w = _check_width(api, reg0[H_KIND], STORE_WIDTH[dist])
    _check_width(api, reg1[H_KIND], w)
    addr = element_address(api, h, offset)
    _check_place(api, h[4], h[5], addr, 32, addr, addr + 2 * VL)
    _check_step(api, step, h[2], 32)
    ub = h[0]
    for lane in range(VL // w):
        for b in range(w):
            ub[addr + 2 * lane * w + b] = reg0[lane * w + b]
            ub[addr + (2 * lane + 1) * w + b] = reg1[lane * w + b]
    return offset + step


@njit(cache=True, no_cfunc_wrapper=True)
def store_blocks(h, reg, offset, block_stride, words, repeat_stride, post_mode):
    """DATA_BLOCK_COPY store (SPEC-2 11.6, D68): the active lanes of each block with any active lane."""
    api = "StoreAlign"
    _block_copy_arguments(api, block_stride, repeat_stride, post_mode)
    if _outside_int32(offset):  # then the offset, as plain Python's _offset, before the register's size
        _refuse_offset(api, offset)
    size = kind_size(reg[H_KIND])
    if size == 8:
        raise UnsupportedDTypeError(api, "register element size", 8, "b8, b16 or b32 (DATA_BLOCK_COPY)", DEVICE)
    addr, new_offset = _block_copy_address(api, h, offset, block_stride, repeat_stride, post_mode)
    for blk in range(8):
        if _block_active(words, size, blk):
            a = addr + blk * block_stride * 32
            lo, hi = -1, -1
            for lane in range(blk * 32 // size, (blk + 1) * 32 // size):
                if lane_on(words, lane * size):
                    if lo < 0:
                        lo = (lane * size) % 32
                    hi = (lane * size) % 32 + size
            _check_place(api, h[4], h[5], addr, 32, a + lo, a + hi)
    ub = h[0]
    for blk in range(8):
        a = addr + blk * block_stride * 32
        for lane in range(blk * 32 // size, (blk + 1) * 32 // size):
            if lane_on(words, lane * size):
                for b in range(size):
                    ub[a + (lane * size) % 32 + b] = reg[lane * size + b]
    return new_offset


# --- MaskReg loads and stores -----------------------------------------------------------------------------------
@internal
def _set_bits(out, bits):
    """out[0..3] <- the 256 bits of `bits` (a uint8 0/1 array)."""
    for w in range(4):
        word = np.uint64(0)
        for i in range(64):
            if bits[64 * w + i]:
                word |= np.uint64(1) << np.uint64(i)
        out[w] = word


@njit(cache=True, no_cfunc_wrapper=True)
def load_mask(out, h, offset, dist, step):
    """LoadAlign(mask_reg, tensor, offset, MaskDist) (SPEC-2 11.6): NORM 32 bytes, US 16 bytes with every bit
    doubled, DS 64 bytes keeping every other bit. `step` is in bytes (doc); returns the updated offset."""
    api = "LoadAlign"
    _check_step_then_offset(api, offset, step)
    if dist == MD_NORM:
        nbytes, align = 32, 32
    elif dist == MD_US:
        nbytes, align = 16, 16
    elif dist == MD_DS:
        nbytes, align = 64, 32
    else:
        raise ParameterError(api, "dist", dist, "MaskDist DIST_NORM, DIST_US or DIST_DS for a MaskReg load", DEVICE)
    addr = element_address(api, h, offset)
    _check_place(api, h[4], h[5], addr, align, addr, addr + nbytes)
    _check_mask_step(api, step, h[2], align)
    src = h[0][addr:addr + nbytes]
    bits = zeroed_array(VL, np.uint8)
    for i in range(VL):
        k = i if dist == MD_NORM else (i // 2 if dist == MD_US else 2 * i)
        bits[i] = (src[k >> 3] >> (k & 7)) & 1
    _set_bits(out, bits)
    return offset + step // h[2]


@njit(cache=True, inline="always")
def _check_mask_step(api, step, esize, align):
    if step % esize != 0:
        raise AlignmentError(api, "post_update_stride", step, "bytes, a multiple of the tensor's element size "
                             "(SPEC-2 11.6)", DEVICE)
    if step % align != 0:
        _misaligned(api, "post_update_stride", step, align)


@njit(cache=True, no_cfunc_wrapper=True)
def store_mask(h, words, offset, dist, step):
    """StoreAlign(tensor, mask_reg, offset, MaskDist): NORM 32 bytes, PACK 16 bytes of the even bits."""
    api = "StoreAlign"
    _check_step_then_offset(api, offset, step)
    if dist == MD_NORM:
        nbytes, align = 32, 32
    elif dist == MD_PACK:
        nbytes, align = 16, 16
    else:
        raise ParameterError(api, "dist", dist, "MaskDist DIST_NORM or DIST_PACK for a MaskReg store", DEVICE)
    addr = element_address(api, h, offset)
    _check_place(api, h[4], h[5], addr, align, addr, addr + nbytes)
    _check_mask_step(api, step, h[2], align)
    ub = h[0]
    for byte in range(nbytes):
        v = 0
        for k in range(8):
            i = 8 * byte + k if dist == MD_NORM else 2 * (8 * byte + k)
            v |= np.int64(lane_on(words, i)) << k
        ub[addr + byte] = v
    return offset + step // h[2]


# --- MaskReg operations (SPEC-2 11.7, D64) ------------------------------------------------------------------------
LOGIC_AND, LOGIC_OR, LOGIC_XOR, LOGIC_NOT, LOGIC_MOVE, LOGIC_SELECT = 0, 1, 2, 3, 4, 5


@njit(cache=True, no_cfunc_wrapper=True)
def mask_logic(out, a, b, m, op):
    """And/Or/Xor/Not/Move (then ANDed with the mask m) and Select (m ? a : b), on all 256 bits (D64)."""
    for w in range(4):
        if op == LOGIC_AND:
            r = a[w] & b[w] & m[w]
        elif op == LOGIC_OR:
            r = (a[w] | b[w]) & m[w]
        elif op == LOGIC_XOR:
            r = (a[w] ^ b[w]) & m[w]
        elif op == LOGIC_NOT:
            r = (a[w] ^ ALL) & m[w]
        elif op == LOGIC_MOVE:
            r = a[w] & m[w]
        else:
            r = (a[w] & m[w]) | (b[w] & (m[w] ^ ALL))
        out[w] = r


@njit(cache=True, no_cfunc_wrapper=True)
def pack(out, src, highest):
    """Pack (D64): dst bit k = src bit 2k (k < 128) in the lower (LOWEST) or upper (HIGHEST) half, the other 0."""
    bits = zeroed_array(VL, np.uint8)
    base = 128 if highest else 0
    for k in range(128):
        bits[base + k] = lane_on(src, 2 * k)
    _set_bits(out, bits)


@njit(cache=True, no_cfunc_wrapper=True)
def unpack(out, src, highest):
    """UnPack (D64): src bits 0..127 (LOWEST) or 128..255 (HIGHEST); dst bit 2k = that bit k, bit 2k+1 = 0."""
    bits = zeroed_array(VL, np.uint8)
    base = 128 if highest else 0
    for k in range(128):
        bits[2 * k] = lane_on(src, base + k)
    _set_bits(out, bits)


@njit(cache=True, no_cfunc_wrapper=True)
def interleave(out0, out1, src0, src1, group, inverse):
    """Interleave<T> / DeInterleave<T> (D64) in g-bit groups (g = 1, 2, 4 for b8, b16, b32)."""
    n = VL // group
    bits = zeroed_array(2 * VL, np.uint8)
    for s in range(2 * n):  # s: position in the output sequence dst0 || dst1
        if inverse:  # even groups of src0 || src1 to dst0, odd to dst1
            src_group = 2 * s if s < n else 2 * (s - n) + 1
        else:  # output group s takes src0[s/2] (even s) or src1[s/2] (odd s)
            src_group = (s // 2) if s % 2 == 0 else n + s // 2
        for b in range(group):
            i = src_group * group + b
            bits[s * group + b] = lane_on(src0, i) if i < VL else lane_on(src1, i - VL)
    _set_bits(out0, bits[:VL])
    _set_bits(out1, bits[VL:])


@njit(cache=True, no_cfunc_wrapper=True)
def move_mask(kind, lo, hi):
    """MoveMask<T> (SPEC-2 11.7): b16 lane i <- mask-register bit i (i < 128), b32 lane i <- MASK0 bit i (i < 64)."""
    size = kind_size(kind)
    if size != 2 and size != 4:
        raise UnsupportedDTypeError("MoveMask", "kind", kind, "a 16- or 32-bit type (SPEC-2 11.7)", DEVICE)
    bits = zeroed_array(VL, np.uint8)
    for i in range(VL // size):
        reg = lo if i < 64 else hi
        on = (reg >> np.uint64(i & 63)) & np.uint64(1)
        for b in range(size):
            bits[i * size + b] = on
    out = zeroed_array(4, np.uint64)
    _set_bits(out, bits)
    return (out[0], out[1], out[2], out[3])


# --- unaligned loads and stores: the functional model of SPEC-2 11.6 / D68 -----------------------------------------
USTATE_SIZE = 2 + 32  # UnalignRegForStore: pending address, pending length, up to 32 pending bytes


@njit(cache=True, no_cfunc_wrapper=True)
def new_load_state():
    """UnalignRegForLoad() in a VF: the state of no LoadUnAlignPre yet (-1), allocated here, not in the VF (an
    allocation there compiled numba's np.full and array allocator in every VF's process, issue 20)."""
    state = empty_array(1, np.int64)
    state[0] = -1
    return state


@njit(cache=True, no_cfunc_wrapper=True)
def new_store_state():
    """UnalignRegForStore() in a VF: nothing pending (new_load_state's reason)."""
    return zeroed_array(USTATE_SIZE, np.int64)
# How many UnalignRegForStore states hold pending bytes, over the process (SPEC-2 11.6, D68: a VF must not end with
# one): simd_vf compares it before and after a compiled call of a VF that makes UnalignRegForStore objects, which
# it cannot otherwise see. Compiled code updates it through an external symbol (as MOVE_MASK_STATE below), so the
# kernels stay disk-cacheable; plain Python (NUMBA_DISABLE_JIT) updates the array itself.
PENDING_STORES = np.zeros(1, np.int64)
_PENDING_SYMBOL = "ascend_jit_pending_unaligned_stores"
llvm_binding.add_symbol(_PENDING_SYMBOL, PENDING_STORES.ctypes.data)


def count_pending_stores(delta):
    PENDING_STORES[0] += delta


def _add_pending_stores(context, builder, sig, args):
    counter = external_global(builder.module, _PENDING_SYMBOL, ir.IntType(64))
    builder.store(builder.add(builder.load(counter), args[0]), counter)
    return context.get_dummy_value()


lowered(count_pending_stores, (types.int64,), types.none, _add_pending_stores)


# the devkit's one unaligned register type, vector_align, is two here, each with its own state (SPEC-2 11.6)
UREG_TWO_TYPES = (" (the devkit's one vector_align type is two here, each with its own state: UnalignRegForLoad() "
                  "for the unaligned loads, UnalignRegForStore() for the stores)")
_UREG_LOAD_LEGAL = "an aj.Reg.UnalignRegForLoad" + UREG_TWO_TYPES
_UREG_STORE_LEGAL = "an aj.Reg.UnalignRegForStore" + UREG_TWO_TYPES


@internal
def _refuse_ureg(api, size):
    """check_ureg's refusal, a function of its own: no strings built on the hot path. `api` is the caller's literal
    name (one small specialisation per API; a run-time `str(api)` compiled numba's string machinery, as
    _refuse_offset's did) and the size a run-time value."""
    given, legal = ("UnalignRegForStore", _UREG_LOAD_LEGAL) if size == 1 else ("UnalignRegForLoad", _UREG_STORE_LEGAL)
    raise ParameterError(api, "ureg", given, legal, DEVICE)


@njit(cache=True, inline="always")
def check_ureg(api, state, size):
    """The unaligned register of a compiled call: both kinds are int64 state arrays to numba, told apart by their
    size (1: UnalignRegForLoad, USTATE_SIZE: UnalignRegForStore). The other kind is refused as plain Python's type
    check refuses it; read as this kind it had been indexed past its end."""
    if state.size != size:
        _refuse_ureg(api, np.int64(size))


@njit(cache=True, no_cfunc_wrapper=True)
def load_unalign_pre(state, h, offset):
    """LoadUnAlignPre: the expected address of the next LoadUnAlign becomes (tensor, offset)."""
    check_ureg("LoadUnAlignPre", state, 1)
    state[0] = element_address("LoadUnAlignPre", h, offset)


@njit(cache=True, no_cfunc_wrapper=True)
def load_unalign(reg, state, h, offset, step, has_step):
    """LoadUnAlign: VL bytes from an address equal to the expected one (StateError otherwise: the hardware would
    splice stale bytes); the 32-byte blocks around them must lie in the operand's range. Returns the new offset."""
    api = "LoadUnAlign"
    check_ureg(api, state, 1)
    addr = element_address(api, h, offset)
    if _outside_int32(step):  # after the offset, as plain Python's _offset and _step run (SPEC-2 11.1)
        _refuse_step(api, step)
    if addr != state[0]:
        raise StateError(api, "address", addr, "the address LoadUnAlignPre (or the previous LoadUnAlign) set "
                         "(SPEC-2 11.6, D68)", DEVICE)
    # the VL bytes it returns lie in the operand's tensor; the 32-byte blocks around them, which the hardware also
    # reads but whose extra bytes reach no lane, in the UB (SPEC-2 11.6; as ReduceSum's whole-repeat reads)
    ub = h[0]
    _check_place(api, h[4], h[5], addr, 1, addr, addr + VL)
    _check_place(api, 0, ub.size, addr, 1, addr - addr % 32, -(-(addr + VL) // 32) * 32)
    for i in range(VL):
        reg[i] = ub[addr + i]
    reg[H_CTRL] = h[3]
    advance = step if has_step else VL // h[2]
    state[0] = addr + advance * h[2]
    return offset + advance


@njit(cache=True, no_cfunc_wrapper=True)
def store_unalign(h, reg, state, offset, count):
    """StoreUnAlign: lanes 0..count-1 of reg as bytes at A = (tensor, offset), after the pending run (which must end
    at A); every byte below the last 32-byte boundary is written now, the rest stays pending. Returns offset+count."""
    api = "StoreUnAlign"
    check_ureg(api, state, USTATE_SIZE)
    # plain Python's order (SPEC-2 11.1: the same refusal compiled and plain): the count as an int32, the offset,
    # then the count as lanes
    if _outside_int32(count):
        _refuse_step(api, count)
    if _outside_int32(offset):
        _refuse_offset(api, offset)
    size = kind_size(reg[H_KIND])
    if count < 0 or count > VL // size:
        raise ParameterError(api, "post_update_stride", count, "0 .. VL / sizeof(T) lanes (SPEC-2 11.6)", DEVICE)
    addr = element_address(api, h, offset)
    pending = state[1]
    if pending > 0 and state[0] + pending != addr:
        raise StateError(api, "address", addr, "the end of the pending UnalignRegForStore run (SPEC-2 11.6, D68)",
                         DEVICE)
    _check_place(api, h[4], h[5], addr, 1, addr, addr + count * size)
    start = state[0] if pending > 0 else addr
    end = addr + count * size
    cut = larger(start, end - end % 32)
    run = empty_array(end - start, np.uint8)
    for i in range(pending):
        run[i] = state[2 + i]
    for i in range(count * size):
        run[addr - start + i] = reg[i]
    ub = h[0]
    for i in range(cut - start):
        ub[start + i] = run[i]
    state[0] = cut
    state[1] = end - cut
    for i in range(end - cut):
        state[2 + i] = run[cut - start + i]
    count_pending_stores(np.int64(state[1] > 0) - np.int64(pending > 0))
    return offset + count


STORE_LANES = "0 .. VL / sizeof(T) lanes (SPEC-2 11.6)"


@njit(cache=True, no_cfunc_wrapper=True)  # called by plain Store and by compiled code: one refusal
def refuse_store_count(count):
    """Store's count outside the register's lanes (SPEC-2 11.6), plain and compiled alike; one outside int32 is
    refused with plain Python's as_int range, which plain Store checks first (compiled code named the lanes)."""
    if count < -2147483648 or count > 2147483647:
        raise ParameterError("Store", "count", count, _INT32, DEVICE)
    raise ParameterError("Store", "count", count, STORE_LANES, DEVICE)


@njit(cache=True, no_cfunc_wrapper=True)
def load_lanes(reg, h, offset):
    """Reg Load(reg, tensor, offset) in a VF: LoadUnAlignPre, then LoadUnAlign with no step, as plain Load calls
    them."""
    state = zeroed_array(1, np.int64)
    load_unalign_pre(state, h, offset)
    load_unalign(reg, state, h, offset, np.int64(0), bool(False))


@njit(cache=True, no_cfunc_wrapper=True)
def store_lanes(h, reg, offset, count, whole):
    """Reg Store(tensor, reg, offset[, count]) in a VF: StoreUnAlign of `count` lanes (`whole`: every lane of the
    register's kind) to any byte address, then StoreUnAlignPost, as plain Store calls them."""
    lanes = VL // kind_size(reg[H_KIND])
    n = lanes if whole else count
    if n < 0 or n > lanes:
        refuse_store_count(n)
    state = zeroed_array(USTATE_SIZE, np.int64)
    store_unalign(h, reg, state, offset, n)
    store_unalign_post(h, state, offset, 0)


@njit(cache=True, no_cfunc_wrapper=True)
def store_unalign_post(h, state, offset, step):
    """StoreUnAlignPost: writes the pending run and empties the register; returns offset + step."""
    check_ureg("StoreUnAlignPost", state, USTATE_SIZE)
    # int32 as plain Python's _offset and _step check them: unchecked, a compiled call returned offset + 2**31
    if _outside_int32(offset):
        _refuse_offset("StoreUnAlignPost", offset)
    if _outside_int32(step):
        _refuse_step("StoreUnAlignPost", step)
    ub = h[0]
    for i in range(state[1]):
        ub[state[0] + i] = state[2 + i]
    count_pending_stores(-np.int64(state[1] > 0))
    state[1] = 0
    return offset + step


# --- MoveMask inside a compiled VF (SPEC-2 11.1, 11.7) -------------------------------------------------------------
# A compiled VF sees its arguments only, but MoveMask reads the current core's vector mask register. A VF whose body
# calls MoveMask gets that register through MOVE_MASK_STATE: simd_vf fills it right before the compiled call (the
# VF holds the GIL, so no other thread's call can change it meanwhile) and clears it after. Compiled code reads it
# through a named external symbol (registered in every process at import), so a VF using it stays disk-cacheable.
# Words: [status, MASK0, MASK1]; status MM_* says whether the register may be read and else why not.
MM_NOT_PREPARED, MM_READY, MM_NO_CORE, MM_OTHER_DEVICE, MM_UNDEFINED, MM_COUNTER = 0, 1, 2, 3, 4, 5
MOVE_MASK_STATE = np.zeros(3, np.uint64)
_MOVE_MASK_SYMBOL = "ascend_jit_move_mask_state"
llvm_binding.add_symbol(_MOVE_MASK_SYMBOL, MOVE_MASK_STATE.ctypes.data)


@intrinsic
def _move_mask_word(typingctx, i):
    """Word i of MOVE_MASK_STATE, read through the external symbol."""
    def codegen(context, builder, sig, args):
        state = external_global(builder.module, _MOVE_MASK_SYMBOL, ir.ArrayType(ir.IntType(64), 3))
        return builder.load(builder.gep(state, [ir.Constant(ir.IntType(32), 0), args[0]]))
    return types.uint64(types.int64), codegen


@njit(cache=True, no_cfunc_wrapper=True)
def move_mask_in_vf(kind):
    """MoveMask<T> in a compiled VF: the refusals of the plain call (SPEC-2 11.7: no current core, a non-950 core,
    an undefined register, counter mode), then move_mask of the register simd_vf passed in."""
    status = _move_mask_word(0)
    if status == MM_NO_CORE:
        raise StateError("MoveMask", None, None, None, None,
                         "no current core: use `with core:` or call the method on a Core")
    if status == MM_OTHER_DEVICE:
        raise UnsupportedDeviceError("MoveMask", "device", "the current core's (not ascend950)", DEVICE, None,
                                     "the Reg API exists on the Ascend 950 only (SPEC 7)")
    if status == MM_UNDEFINED:
        raise StateError("MoveMask", "mask register", "undefined", "set by SetVectorMask (SPEC-2 D31)", DEVICE)
    if status == MM_COUNTER:
        raise StateError("MoveMask", "mask mode", "counter", "Normal mode (SetMaskNorm; SPEC-2 11.7)", DEVICE)
    if status != MM_READY:
        raise StateError("MoveMask", "vector mask register", "not passed to this compiled code",
                         "R.MoveMask called in the @simd_vf function's own body or an @R.simd_callee defined before "
                         "it (simd_vf then passes the core's register in), or the VF's py_func (SPEC-2 11.7)", DEVICE)
    return move_mask(kind, _move_mask_word(1), _move_mask_word(2))


@njit(cache=True, no_cfunc_wrapper=True)
def move_mask_register(kind):
    """move_mask_in_vf's words as a MaskReg word array (a VF compiled with jit/reg.py MASK_ARRAYS)."""
    return mask_register_of(move_mask_in_vf(kind))
