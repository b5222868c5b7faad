"""Reference model of Gather and GatherMask (SPEC-2 9.2, 9.3, D57, D58), element by element."""
from .numerics import SIZES


def _u32(ub, addr):
    return int.from_bytes(bytes(ub[addr:addr + 4]), "little")


def gather(ub, dtype, dst, src, offsets, base, lanes, repeat, lanes_per_repeat, dst_rep_stride, last_lanes=None):
    """Lane j of repeat i (j in `lanes`, the active ones): dst + i*dstRepStride*32 + j*size gets the element at
    src + base + srcOffset[i*L' + j]. Count form: lanes = range(count), repeat 1."""
    size = SIZES[dtype]
    for i in range(repeat):
        act = lanes[:last_lanes] if (last_lanes is not None and i == repeat - 1) else lanes
        for j in act:
            at = src + base + _u32(ub, offsets + 4 * (i * lanes_per_repeat + j))
            to = dst + i * dst_rep_stride * 32 + j * size
            ub[to:to + size] = ub[at:at + size].copy()


def _builtin(pattern, e):
    return {1: e % 2 == 0, 2: e % 2 == 1, 3: e % 4 == 0, 4: e % 4 == 1, 5: e % 4 == 2, 6: e % 4 == 3, 7: True}[pattern]


def gather_mask(ub, dtype, dst, src0, pattern, pattern_addr, repeats, blk, rep, pattern_rep):
    """repeats: the number of elements each outer repeat processes (D58); element e of outer repeat i lies at
    src0 + i*rep*32 + (e // epb)*blk*32 + (e % epb)*size; pattern None: a user pattern at pattern_addr whose repeat i
    starts pattern_rep*32 bytes further. Kept elements packed from dst; returns rsvdCnt."""
    size = SIZES[dtype]
    epb = 32 // size
    kept = []
    for i, n in enumerate(repeats):
        for e in range(n):
            if pattern is None:
                bit = (int(ub[pattern_addr + i * pattern_rep * 32 + e // 8]) >> (e % 8)) & 1
            else:
                bit = _builtin(pattern, e)
            if bit:
                at = src0 + i * rep * 32 + (e // epb) * blk * 32 + (e % epb) * size
                kept.append(bytes(ub[at:at + size]))
    for k, value in enumerate(kept):
        ub[dst + k * size:dst + (k + 1) * size] = list(value)
    return len(kept)
