"""Reference model of Transpose (docs/decisions.md "Transpose"; devkit 数据排布转换/Transpose.md's pseudocode:
`dst = src.T` for a 16 x 16 block, numpy's transpose(0, 2, 3, 1) / (0, 3, 1, 2) for the format conversions), element
by element on a bytearray-like UB: each destination element's bytes are copied from the source element the index
arithmetic names, one at a time (a 16 x 16 block in place is read whole first, as one instruction reads its source)."""


def _element(ub, addr, size):
    return bytes(ub[addr:addr + size])


def transpose_16x16(ub, size, dst, src):
    """dst element (r, k) = src element (k, r) of the 16 x 16 blocks at byte addresses dst and src."""
    block = [_element(ub, src + i * size, size) for i in range(256)]
    for r in range(16):
        for k in range(16):
            at = dst + (r * 16 + k) * size
            ub[at:at + size] = block[k * 16 + r]


def transpose_format(ub, size, dst, src, n, c, h, w, to_nhwc):
    """to_nhwc: dst[n][h][w][c] = src[n][c][h][w]; else dst[n][c][h][w] = src[n][h][w][c] (src laid out NHWC)."""
    for a in range(n):
        for b in range(c):
            for y in range(h):
                for x in range(w):
                    nchw = ((a * c + b) * h + y) * w + x
                    nhwc = ((a * h + y) * w + x) * c + b
                    at, frm = (nhwc, nchw) if to_nhwc else (nchw, nhwc)
                    ub[dst + at * size:dst + (at + 1) * size] = _element(ub, src + frm * size, size)
