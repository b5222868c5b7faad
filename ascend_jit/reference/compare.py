"""Reference model of Compare/Compares and Select, lane by lane from SPEC-2 9.4, 9.5, D43, D44 and D59."""
import math

from .model import lane_address
from .numerics import SIZES, decode, is_float

_MODES = {"LT": lambda x, y: x < y, "GT": lambda x, y: x > y, "EQ": lambda x, y: x == y,
          "LE": lambda x, y: x <= y, "GE": lambda x, y: x >= y, "NE": lambda x, y: x != y}


def compare_value(dtype, mode, x, y, ne_nan):
    """One bit (D43: NE with a NaN operand is `ne_nan`; every other mode IEEE, NaN compares false)."""
    if is_float(dtype) and mode == "NE" and (math.isnan(x) or math.isnan(y)):
        return ne_nan
    return int(_MODES[mode](x, y))


def _write_bits(ub, addr, bits):
    """D44: bit k of byte b is element 8b + k."""
    for b in range(len(bits) // 8):
        ub[addr + b] = sum(bits[8 * b + k] << k for k in range(8))


def compare_count(ub, dtype, mode, dst, src0, src1, count, ne_nan, scalar=None):
    """Count form: the floor(count*size/256) whole repeats (D44); src1 None means Compares with `scalar`."""
    size = SIZES[dtype]
    n = count * size // 256 * (256 // size)
    bits = []
    for k in range(n):
        x = decode(dtype, ub[src0 + k * size:src0 + (k + 1) * size])
        y = scalar if src1 is None else decode(dtype, ub[src1 + k * size:src1 + (k + 1) * size])
        bits.append(compare_value(dtype, mode, x, y, ne_nan))
    _write_bits(ub, dst, bits)


def compare_high_dim(ub, dtype, mode, dst, src0, src1, lanes, repeat, strides, ne_nan, scalar=None, last_lanes=None):
    """Repeat i writes L/8 bytes at dst + i*L/8; lanes outside `lanes` (the active ones) give 0 (D44).
    strides = (src0Blk, src1Blk, src0Rep, src1Rep)."""
    size = SIZES[dtype]
    nlanes = 256 // size
    b0, b1, r0, r1 = strides
    for i in range(repeat):
        act = set(range(last_lanes)) if (last_lanes is not None and i == repeat - 1) else set(lanes)
        bits = []
        for j in range(nlanes):
            if j not in act:
                bits.append(0)
                continue
            a = lane_address(src0, size, i, j, b0, r0)
            x = decode(dtype, ub[a:a + size])
            if src1 is None:
                y = scalar
            else:
                a = lane_address(src1, size, i, j, b1, r1)
                y = decode(dtype, ub[a:a + size])
            bits.append(compare_value(dtype, mode, x, y, ne_nan))
        _write_bits(ub, dst + i * nlanes // 8, bits)


def _sel_bit(ub, sel, k):
    return (int(ub[sel + k // 8]) >> (k % 8)) & 1


def select_count(ub, dtype, mode, dst, sel, src0, src1, count, scalar_bytes=None):
    """D59 count form: element k uses bit k (modes 1, 2) or bit k mod L (mode 0); src1 None: the scalar."""
    size = SIZES[dtype]
    nlanes = 256 // size
    for k in range(count):
        bit = _sel_bit(ub, sel, k % nlanes if mode == 0 else k)
        if bit:
            value = bytes(ub[src0 + k * size:src0 + (k + 1) * size])
        else:
            value = scalar_bytes if src1 is None else bytes(ub[src1 + k * size:src1 + (k + 1) * size])
        ub[dst + k * size:dst + (k + 1) * size] = list(value)


def select_high_dim(ub, dtype, mode, dst, sel, src0, src1, lanes, repeat, strides, scalar_bytes=None,
                    last_lanes=None):
    """D59 high-dim form: lane j of repeat i uses bit j (mode 0) or i*L + j (modes 1, 2); inactive lanes keep dst.
    strides = BinaryRepeatParams order. Each repeat reads everything before writing."""
    size = SIZES[dtype]
    nlanes = 256 // size
    db, b0, b1, dr, r0, r1 = strides
    for i in range(repeat):
        act = list(range(last_lanes)) if (last_lanes is not None and i == repeat - 1) else list(lanes)
        out = []
        for j in act:
            bit = _sel_bit(ub, sel, j if mode == 0 else i * nlanes + j)
            if bit:
                a = lane_address(src0, size, i, j, b0, r0)
                out.append((j, bytes(ub[a:a + size])))
            elif src1 is None:
                out.append((j, scalar_bytes))
            else:
                a = lane_address(src1, size, i, j, b1, r1)
                out.append((j, bytes(ub[a:a + size])))
        for j, value in out:
            a = lane_address(dst, size, i, j, db, dr)
            ub[a:a + size] = list(value)
