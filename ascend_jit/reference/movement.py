"""Reference model of DataCopyPad (SPEC-2 9.1, D56), block by block and byte by byte."""
POISON = 0xCD


def _fill_bytes(n, element):
    return [element[k % len(element)] for k in range(n)]


def data_copy_pad_gm_to_ub(ub, gm, size, dst, count, block_len, src_stride, dst_stride, left, right, pad_element,
                           compact=False):
    """gm: the GlobalTensor's bytes; left/right in elements as given; pad_element: the bytes of the pad value
    (isPad's paddingValue, else SetPadValue's value), or None when neither applies. D56 with H-13: without pads the
    dummy repeats the block's first element; with pads the pad value fills pads and dummy, else the poison byte."""
    no_pads = left == right == 0
    if compact:
        left = right = 0
    for k in range(count):
        src = k * (block_len + src_stride)
        data = list(gm[src:src + block_len])
        element = data[:size] if no_pads else (pad_element or [POISON] * size)
        if compact:
            at = dst + k * block_len
            ub[at:at + block_len] = data
            if k == count - 1:
                end = at + block_len
                filler = -(-end // 32) * 32 - end
                ub[end:end + filler] = _fill_bytes(filler, element)
            continue
        padded = -(-(left * size + block_len + right * size) // 32) * 32
        at = dst + k * (padded + 32 * dst_stride)
        row = _fill_bytes(left * size, element) + data
        row += _fill_bytes(padded - len(row), element)
        ub[at:at + padded] = row


def data_copy_pad_ub_to_gm(gm, ub, src, count, block_len, src_stride, dst_stride, compact=False):
    for k in range(count):
        at = src + (k * block_len if compact else k * (-(-block_len // 32) * 32 + 32 * src_stride))
        out = k * (block_len + dst_stride)
        gm[out:out + block_len] = ub[at:at + block_len]
