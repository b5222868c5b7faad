"""DataCopyPad kernels (SPEC-2 9.1, D56): byte runs between a GM byte array and the UB, with pad and dummy fills."""
from numba import njit

from .reg_move import copy_bytes


@njit(cache=True, inline="always")
def _fill(ub, at, nbytes, pattern, size, first_of_block, src, block_start):
    """ub[at:at + nbytes] = the element pattern repeated, or (first_of_block) the block's first element."""
    for k in range(nbytes):
        ub[at + k] = src[block_start + k % size] if first_of_block else pattern[k % size]


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def pad_gm_to_ub(ub, gm, src, params, pattern):
    """params = (dst, count, block_len, src_step, dst_step, left, tail, last_tail, size, first_of_block), fixed by
    the proven call shape. Block k: `left` pad bytes, block_len data bytes from gm[src + k*src_step], then `tail`
    pad/dummy bytes (`last_tail` after the last block), at ub[dst + k*dst_step] (Normal: dst_step = P +
    32*dstStride; Compact: dst_step = block_len, left = tail = 0 and last_tail the filler to the next 32-B
    boundary)."""
    dst, count, block_len, src_step, dst_step = params[0], params[1], params[2], params[3], params[4]
    left, tail, last_tail, size, first_of_block = params[5], params[6], params[7], params[8], params[9] != 0
    for k in range(count):
        s0 = src + k * src_step
        d0 = dst + k * dst_step
        _fill(ub, d0, left, pattern, size, first_of_block, gm, s0)
        copy_bytes(ub, d0 + left, gm, s0, block_len)
        _fill(ub, d0 + left + block_len, last_tail if k == count - 1 else tail, pattern, size, first_of_block, gm, s0)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def pad_ub_to_gm(gm, ub, dst, params):
    """params = (src, count, block_len, src_step, dst_step), fixed by the proven call shape. Block k: block_len
    bytes of ub[src + k*src_step] to gm[dst + k*dst_step]; the UB dummy bytes are dropped."""
    src, count, block_len, src_step, dst_step = params[0], params[1], params[2], params[3], params[4]
    for k in range(count):
        copy_bytes(gm, dst + k * dst_step, ub, src + k * src_step, block_len)


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def copy_runs(dst, dst_at, src, src_at, count, run_bytes, src_step, dst_step):
    """DataCopy: run k moves run_bytes bytes from src[src_at + k*src_step] to dst[dst_at + k*dst_step] (uint8
    arrays: the UB or a GM buffer's bytes), each run as one memmove (UB -> UB runs may overlap)."""
    for k in range(count):
        copy_bytes(dst, dst_at + k * dst_step, src, src_at + k * src_step, run_bytes)
