"""The sanitizer's per-byte shadow walks (issue 17, SPEC-2 10.4): compiled passes that check an operand (init bits,
the last writer against the accessing pipe's vector clock, the readers since that write). The sanitizer records an
operand with numpy's slice and index-array stores. For a contiguous run it first asks numpy's vectorised reductions
whether a check can fail at all (the common answer is no) and walks only the checks that can; address arrays
(strided operands) are walked directly.

A footprint reaches these functions as `(lo, hi, addrs)`: the contiguous run [lo, hi) when `addrs` is empty, else the
sorted byte addresses in `addrs`. Shadow arrays (see ascend_jit/sanitizer.py Sanitizer):
  init[i]             the byte was written (by the host or an instruction)
  writer_pipe[i]      pipe of the last write (-1: none since the core started or the last hand-off)
  writer_bits[i]      the same as a bit (1 << pipe, 0: none), for the vectorised "any other writer?" pre-check
  writer_seq[i]       that write's number in its own pipe (its vector-clock component)
  writer_instr[i]     its index in the instruction log; a hand-off sets the log position it happened at
  reader_seq[q, i]    number (in pipe q) of the last read of the byte by pipe q (0: none)
  reader_instr[q, i]  its log index: the read is since the last write (or hand-off) iff it is > writer_instr[i]
"""
import numpy as np
from numba import njit

from .numerics import internal


@njit(cache=True, inline="always")
def _byte(lo, addrs, k):
    return lo + k if addrs.size == 0 else addrs[k]


@njit(cache=True, inline="always")
def _length(lo, hi, addrs):
    return hi - lo if addrs.size == 0 else addrs.size


@njit(cache=True, inline="always")
def _unordered(wp, ws, clock_p, p, strict_same, barrier_p):
    """The last write (pipe wp, its number ws) is one pipe p is not ordered after (wp < 0: no write since the start
    or the last hand-off)."""
    if wp < 0:
        return False
    if wp != p:
        return clock_p[wp] < ws
    return strict_same and ws > barrier_p


@internal(nogil=True)
def _scan_writers(lo, hi, addrs, writer_pipe, writer_seq, clock_p, p, strict_same, barrier_p, out, at):
    """out[at], out[at + 1] = (bytes whose last write pipe p is not ordered after, index of the first)."""
    count = 0
    out[at + 1] = -1
    for k in range(_length(lo, hi, addrs)):
        i = _byte(lo, addrs, k)
        if _unordered(writer_pipe[i], writer_seq[i], clock_p, p, strict_same, barrier_p):
            if count == 0:
                out[at + 1] = k
            count += 1
    out[at] = count


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def scan_read(lo, hi, addrs, init, writer_pipe, writer_seq, clock_p, p, check_init, check_race, strict_same,
              barrier_p, out):
    """A read by pipe p. out[0:2] = (uninitialised bytes, index of the first), out[2:4] = (bytes whose last write
    p is not ordered after, index of the first); `strict_same` also counts p's own writes since its last barrier."""
    out[0], out[1], out[2], out[3] = 0, -1, 0, -1
    if check_init:
        count = 0
        for k in range(_length(lo, hi, addrs)):
            if not init[_byte(lo, addrs, k)]:
                if count == 0:
                    out[1] = k
                count += 1
        out[0] = count
    if check_race:
        # np.int64: a literal slot compiled the scan once per caller
        _scan_writers(lo, hi, addrs, writer_pipe, writer_seq, clock_p, p, strict_same, barrier_p, out,
                      np.int64(2))


@njit(cache=True, no_cfunc_wrapper=True, nogil=True)
def scan_write(lo, hi, addrs, writer_pipe, writer_seq, writer_instr, reader_seq, reader_instr, clock_p, p,
               check_waw, war_pipes, strict_same, barrier_p, out, war):
    """A write by pipe p. out[0:2] = (bytes whose last write p is not ordered after, index of the first) (WAW, when
    check_waw); war[q, 0:2] the same for reads by pipe q since that write, for each pipe q in the bit set war_pipes
    (WAR)."""
    out[0], out[1] = 0, -1
    if check_waw:
        _scan_writers(lo, hi, addrs, writer_pipe, writer_seq, clock_p, p, strict_same, barrier_p, out,
                      np.int64(0))
    for q in range(war.shape[0]):
        war[q, 0], war[q, 1] = 0, -1
        if not (war_pipes >> q) & 1:
            continue
        known = clock_p[q]
        seqs, instrs = reader_seq[q], reader_instr[q]
        count = 0
        for k in range(_length(lo, hi, addrs)):
            i = _byte(lo, addrs, k)
            if seqs[i] > known and instrs[i] > writer_instr[i]:
                if count == 0:
                    war[q, 1] = k
                count += 1
        war[q, 0] = count

