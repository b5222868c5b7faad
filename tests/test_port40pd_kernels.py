"""Session 40pd's port probe of Transpose (kernels/transpose.py, the devkit's transpose example, scenarios 1 and 2):
each scenario against an expectation written here from the example's scripts/gen_data.py (not the kernel's own
`expected`), and aj.Transpose against a replay of the devkit's implementation (not only its page): the data movement
of impl/basic_api/dav_c220 (and dav_3510, the same code) kernel_operator_vec_transpose_impl.h, Transpose4DImpl,
behind the dispatch of impl/basic_api/kernel_operator_vec_transpose_intf_impl.h, over a byte UB, with the
scatter_vnchwconv_b8 / b16 / b32 element maps of the CCE intrinsic page (cceapi scatter_vnchwconv) and UB -> UB
DataCopy in 32-byte blocks. The replay is ours (written from reading that code, in its sequence); the places where
the devkit and ascend_jit part are pinned as what ascend_jit does today (update them when the library changes)."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry

T = aj.TransposeType
NCHW, NHWC = T.TRANSPOSE_NCHW2NHWC, T.TRANSPOSE_NHWC2NCHW
DEVICES = ("ascend950", "atlas-a3", "atlas-a2")
BLK = 32
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


# ---- the devkit replay (dav_c220 / dav_3510 Transpose4DImpl)

class _UB:
    """A byte UB that logs every access as (start, end)."""

    def __init__(self, nbytes, rng):
        self.b = rng.integers(0, 256, nbytes, dtype=np.uint8)
        self.reads, self.writes = [], []

    def get(self, a, n):
        self.reads.append((a, a + n))
        return self.b[a:a + n].copy()

    def put(self, a, data):
        self.writes.append((a, a + len(data)))
        self.b[a:a + len(data)] = data


def _vnchwconv(ub, size, dsts, srcs, repeat, dst_rep=0, src_rep=0, dst_high=False, src_high=False):
    """TransDataTo5HD: 16 source blocks to 16 destination blocks a repeat (repeatTimes is a uint8_t; one repeat
    starts at the lists plus the strides, more start there and step by them: the TransDataTo5HD page)."""
    repeat &= 0xFF
    for r in range(repeat):
        k = 1 if repeat == 1 else r
        blocks = [ub.get(a + k * src_rep * BLK, BLK) for a in srcs]
        d = [a + k * dst_rep * BLK for a in dsts]
        if size == 2:      # dst[e][j] = src[j][e]
            for e in range(16):
                ub.put(d[e], np.concatenate([blk[2 * e:2 * e + 2] for blk in blocks]))
        elif size == 4:    # dst[2e'][j] = src[j][e'], dst[2e' + 1][j] = src[j + 8][e']
            for e in range(8):
                ub.put(d[2 * e], np.concatenate([blk[4 * e:4 * e + 4] for blk in blocks[:8]]))
                ub.put(d[2 * e + 1], np.concatenate([blk[4 * e:4 * e + 4] for blk in blocks[8:]]))
        else:              # half a block: dst[e][j + 16 dh] = src[j][e + 16 sh]
            for e in range(16):
                ub.put(d[e] + 16 * dst_high, np.array([blk[e + 16 * src_high] for blk in blocks], np.uint8))


def _copy(ub, dst, src, count, length, src_gap=0, dst_gap=0):
    """UB -> UB DataCopy(DataCopyParams{count, length, src_gap, dst_gap}) in 32-byte blocks (uint16_t fields)."""
    count, length, src_gap, dst_gap = (v & 0xFFFF for v in (count, length, src_gap, dst_gap))
    for i in range(count):
        ub.put(dst + i * (length + dst_gap) * BLK, ub.get(src + i * (length + src_gap) * BLK, length * BLK))


class _State:
    """Transpose4dParams: the counters the loops share (uint16_t unless noted)."""

    def __init__(self, size, c, h, w, kind):
        self.hw = (h * w) & 0xFFFF
        self.hw_blocks = self.hw * size // BLK
        self.chw = self.hw * c
        self.epb = BLK // size                                   # elements a block
        self.load_rows = BLK if size == 1 else self.epb          # tmp1NeedRowCount
        self.rep1 = c & 0xFF                                     # transDataParams1.repeatTimes = cSize (uint8_t)
        self.frac_rows = 32 if size == 1 else 16                 # transRowCount
        self.col_step = 32 if size == 1 else (8 if size == 4 and kind == NHWC else 16)   # copyColCount
        self.part = {1: 1024, 2: 256, 4: 128}[size]              # preTmpLen, elements
        self.chan_step = 1024 if size == 1 else 512 // size      # transLen, elements
        self.left1 = self.copied1 = self.count2 = self.out_rows = self.cidx = 0
        self.src_blk = self.dst_blk = self.dst_need = self.dst_all = 0
        self.need2 = 16

    def step(self, c):                                           # UpdateCopyToTmp2ParamCal
        self.cidx = (self.cidx + 1) % c
        self.need2 = (self.need2 - 1) & 0xFFFF
        self.copied1 += 1
        self.count2 += 1
        self.left1 = (self.left1 - 1) & 0xFFFF


def _spread(ub, size, a, src, s):
    """TransBroadCastCal: each element of source block s.src_blk (of every channel, by repeats) made a whole row."""
    one = src + s.src_blk * BLK
    dst_rep, src_rep = (32 if size == 1 else 16, s.hw_blocks) if s.rep1 > 1 else (0, 0)
    if size == 2:
        _vnchwconv(ub, 2, [a + m * BLK for m in range(16)], [one] * 16, s.rep1, dst_rep, src_rep)
    elif size == 4:
        _vnchwconv(ub, 4, [a + m * BLK for m in range(16)], [one] * 16, s.rep1, dst_rep, src_rep)
    else:
        for base, high in ((0, False), (512, True)):
            rows = [a + base + m * BLK for m in range(16)]
            _vnchwconv(ub, 1, rows, [one] * 16, s.rep1, dst_rep, src_rep, False, high)
            _vnchwconv(ub, 1, rows, [one] * 16, s.rep1, dst_rep, src_rep, True, high)


def _fractal(ub, size, out, rows, last=False):
    """TransFracCal (TransLastFracCal: the b32 map with the first 8 rows read twice)."""
    if size == 2 or size == 4:
        srcs = [rows + k * BLK for k in range(8)] * 2 if last else [rows + k * BLK for k in range(16)]
        _vnchwconv(ub, size, [out + m * BLK for m in range(16)], srcs, 1)
    else:
        for dofs, sofs, dh, sh in ((0, 0, False, False), (512, 0, False, True), (0, 512, True, False),
                                   (512, 512, True, True)):
            _vnchwconv(ub, 1, [out + dofs + m * BLK for m in range(16)], [rows + sofs + m * BLK for m in range(16)],
                       1, 0, 0, dh, sh)


def _to_nhwc(ub, size, dst, src, tmp, c, s):
    """Transpose2HwcCal."""
    a, b, cc = tmp, tmp + c * s.part * size, tmp + (c + 1) * s.part * size
    while s.dst_need:
        if s.left1 == 0:
            _spread(ub, size, a, src, s)
            s.src_blk += 1
            tail = s.chw % s.load_rows
            s.left1 = (c * s.load_rows if s.dst_need != 1 or tail == 0 else tail) & 0xFFFF
        while s.need2:
            _copy(ub, b + (s.count2 % s.frac_rows) * BLK,
                  a + (s.chan_step * s.cidx + s.col_step * (s.copied1 // c)) * size, 1, 1)
            s.step(c)
            if s.left1 == 0:
                s.copied1 = 0
                break
        if s.need2 == 0:
            _fractal(ub, size, cc, b)
            s.out_rows, s.count2 = 1, 0
            s.need2 = (s.hw % s.frac_rows or s.frac_rows) if s.dst_need == 1 else s.frac_rows
            if s.dst_need > 1 and size == 4:
                s.out_rows = 2
        if s.dst_need and s.out_rows:
            _copy(ub, dst + s.dst_blk * BLK, cc, 1, s.out_rows)
            s.dst_need = (s.dst_need - s.out_rows) & 0xFFFF
            s.dst_blk += s.out_rows
            s.out_rows = 0


def _to_nchw(ub, size, dst, src, tmp, c, s):
    """Transpose2ChwCal."""
    a, b, cc = tmp, tmp + s.part * size, tmp + (c + 1) * s.part * size
    while s.dst_need:
        if s.left1 == 0:
            _spread(ub, size, a, src, s)
            s.src_blk += 1
            tail = s.chw % s.load_rows
            s.left1 = s.load_rows if s.dst_need != 1 or tail == 0 else tail
        while s.left1:
            _copy(ub, b + (s.chan_step * s.cidx + s.col_step * (s.count2 // c)) * size,
                  a + (s.count2 % s.epb) * s.frac_rows * size, 1, 1)
            s.step(c)
            if s.left1 == 0:
                s.copied1 = 0
                break
        if s.need2 == 0:
            last = s.hw % 16 != 0 and s.dst_need == 1
            for k in range(c):
                _fractal(ub, size, cc + k * s.part * size, b + k * s.part * size, last)
            s.out_rows, s.count2 = 1, 0
            s.need2 = (c * s.frac_rows) & 0xFFFF
            if size == 4 and s.dst_need != 1:
                s.out_rows = 2
        rows = s.out_rows
        if s.dst_need and rows:
            _copy(ub, dst + s.dst_blk * BLK, cc, c, rows, s.part * size // BLK - rows, s.hw_blocks - rows)
            s.dst_need = (s.dst_need - rows) & 0xFFFF
            s.dst_blk += rows
            s.dst_all = rows * c
            s.out_rows = 0
        if size == 4 and s.dst_need == 1 and s.dst_all and s.src_blk % s.dst_all == 0:
            s.need2 = c * (s.hw % 16)


def devkit_transpose(x, n, c, h, w, kind, tmp_bytes=None, seed=0):
    """The devkit's result for src x (its bytes: UB garbage around them): (dst bits, src, dst, tmp extents as byte
    ranges, the UB's access log). cSize 1 is the intf's TransposeUB2UBImpl: one DataCopy of n*h*w / C0 blocks."""
    size = x.dtype.itemsize
    total = x.size * size
    block_bytes = (32 if size == 1 else 16) * 32
    need = (c + 2 if kind == NCHW else 2 * c + 1) * block_bytes
    tmp_bytes = need if tmp_bytes is None else tmp_bytes
    src, dst = 4096, 4096 + total + 4096
    tmp = dst + total + 4096
    ub = _UB(tmp + tmp_bytes + 4096, np.random.default_rng(seed))
    ub.b[src:src + total] = x.view(np.uint8)
    if c == 1:
        _copy(ub, dst, src, 1, n * h * w // (BLK // size))
    else:
        s = _State(size, c, h, w, kind)
        for i in range(n):
            off = i * s.chw * size
            s.src_blk = s.dst_blk = 0
            if kind == NCHW:
                s.cidx = s.left1 = s.copied1 = 0
                s.dst_need = s.chw * size // BLK
                s.need2 = (s.hw % s.frac_rows) if s.dst_need == 1 else s.frac_rows
                _to_nhwc(ub, size, dst + off, src + off, tmp, c, s)
            else:
                s.rep1, s.dst_all = 1, 0
                s.dst_need = s.hw_blocks
                s.need2 = (s.hw % s.frac_rows) if s.chw * size // BLK == 1 else c * s.frac_rows
                if size == 4 and s.dst_need == 1:
                    s.need2 = c * s.epb
                _to_nchw(ub, size, dst + off, src + off, tmp, c, s)
    extents = {"src": (src, src + total), "dst": (dst, dst + total), "tmp": (tmp, tmp + tmp_bytes)}
    return ub.b[dst:dst + total].copy(), extents, ub


def _numpy(x, n, c, h, w, kind):
    if kind == NCHW:
        return x.reshape(n, c, h, w).transpose(0, 2, 3, 1).reshape(-1)
    return x.reshape(n, h, w, c).transpose(0, 3, 1, 2).reshape(-1)


def _aj(device, x, n, c, h, w, kind, tmp_bytes=None, tmp_is_src=False):
    """aj.Transpose's result on a fresh core (src, dst and tmp exactly sized)."""
    size = x.dtype.itemsize
    need = (c + 2 if kind == NCHW else 2 * c + 1) * (32 if size == 1 else 16) * 32
    with aj.Core(device) as core:
        src = core.local_tensor(x.dtype, x.size)
        dst = core.local_tensor(x.dtype, x.size)
        src[:] = x
        tmp = src.ReinterpretCast("uint8") if tmp_is_src else \
            core.local_tensor("uint8", need if tmp_bytes is None else tmp_bytes)
        aj.Transpose(dst, src, tmp, aj.TransposeParamsExt(n, c, h, w, kind))
        return dst.numpy()


def _random(size, count, seed):
    return np.random.default_rng(seed).integers(0, 256, count * size, dtype=np.uint8).view(_UNSIGNED[size])


# ---- the example's two scenarios

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("size", [256, 1280])
def test_transpose_scenario_1_matches_gen_data(device, size):
    k = registry()["transpose"]
    x = np.random.default_rng(size).integers(0, 1 << 16, size, dtype=np.uint16).view(np.float16)  # NaNs too
    want = x.reshape(-1, 16, 16).transpose(0, 2, 1).reshape(-1)                                    # input.T
    assert _bits(k.run(device, {"x": x})["z"]) == _bits(want)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [3, 7, 1000])
def test_transpose_scenario_2_matches_gen_data(device, n):
    k = registry()["transpose_nchw2nhwc"]
    x = np.random.default_rng(n).integers(0, 1 << 16, n * 48, dtype=np.uint16).view(np.float16)
    want = np.transpose(x.reshape(n, 3, 2, 8), (0, 2, 3, 1)).reshape(-1)
    assert _bits(k.run(device, {"x": x})["z"]) == _bits(want)


def test_scenario_2_tmp_is_the_page_minimum_and_the_devkit_touches_all_of_it():
    """The example's 1280 halves = 2560 bytes = (3 + 2) * 16 * 16 * 2: the replay writes exactly those bytes; 32 fewer
    are refused by ascend_jit (the page's minimum)."""
    x = _random(2, 144, 1)
    got, ext, ub = devkit_transpose(x, 3, 3, 2, 8, NCHW)
    assert _bits(got) == _bits(_numpy(x, 3, 3, 2, 8, NCHW))
    t0, t1 = ext["tmp"]
    assert t1 - t0 == 2560 and max(b for a, b in ub.writes if a >= t0) == t1
    with pytest.raises(aj.ParameterError, match=">= 2560 bytes"):
        _aj("atlas-a2", x, 3, 3, 2, 8, NCHW, tmp_bytes=2528)


def test_scenario_3_transdata_to_5hd_is_not_offered():
    assert not hasattr(aj, "TransDataTo5HD")


# ---- aj.Transpose against the devkit replay

_GRID = [(size, kind, n, c, hw) for size in (1, 2, 4) for kind in (NCHW, NHWC) for n in (1, 3)
         for c in (2, 3, 5, 16, 17) for hw in (BLK // size, 3 * BLK // size)]


@pytest.mark.parametrize("size, kind, n, c, hw", _GRID)
def test_format_conversion_is_numpys_on_the_devkit_and_in_ascend_jit(size, kind, n, c, hw):
    """For cSize < 256 the devkit's 1-, 2- and 4-byte walks give numpy's transpose, and so does ascend_jit (A2)."""
    x = _random(size, n * c * hw, n * 100 + c)
    want = _numpy(x, n, c, 1, hw, kind)
    got, _, _ = devkit_transpose(x, n, c, 1, hw, kind)
    assert _bits(got) == _bits(want)
    assert _bits(_aj("atlas-a2", x, n, c, 1, hw, kind)) == _bits(want)


@pytest.mark.parametrize("size", [1, 2, 4])
@pytest.mark.parametrize("kind", [NCHW, NHWC])
def test_tmp_minimum_matches_what_the_devkit_touches(size, kind):
    c, hw = 5, 2 * BLK // size
    x = _random(size, 2 * c * hw, 3)
    _, ext, ub = devkit_transpose(x, 2, c, 1, hw, kind)
    t0, t1 = ext["tmp"]
    assert max(b for a, b in ub.reads + ub.writes if a >= t0) == t1
    with pytest.raises(aj.ParameterError, match=f">= {t1 - t0} bytes"):
        _aj("atlas-a2", x, 2, c, 1, hw, kind, tmp_bytes=t1 - t0 - 32)


# ---- where the devkit and ascend_jit part (pinned as ascend_jit does today)

@pytest.mark.parametrize("size, c, hw", [(2, 256, 16), (2, 257, 16), (4, 256, 8)])
def test_nchw2nhwc_csize_from_256_is_garbage_on_the_devkit_and_refused(size, c, hw):
    """Transpose4DImpl sets TransDataTo5HDParams.repeatTimes (uint8_t) = cSize, so from cSize 256 the broadcast
    covers cSize % 256 channels and the rest of dst is stale tmp bytes; the page allows cSize up to 4095 and these fit
    the A2's UB (half: 8 KiB + 8 KiB + 132 KiB tmp). Reported by this probe: ascend_jit now refuses cSize > 255."""
    x = _random(size, c * hw, c)
    want = _numpy(x, 1, c, 1, hw, NCHW)
    got, _, _ = devkit_transpose(x, 1, c, 1, hw, NCHW)
    assert _bits(got) != _bits(want)
    below = _random(size, 255 * hw, 1)                                       # the control: cSize 255 is right
    assert _bits(devkit_transpose(below, 1, 255, 1, hw, NCHW)[0]) == _bits(_numpy(below, 1, 255, 1, hw, NCHW))
    assert _bits(_aj("atlas-a2", below, 1, 255, 1, hw, NCHW)) == _bits(_numpy(below, 1, 255, 1, hw, NCHW))
    with pytest.raises(aj.ParameterError, match=r"cSize' = 25[67] .*uint8_t repeatTimes"):
        _aj("atlas-a2", x, 1, c, 1, hw, NCHW)


def test_gap_nhwc2nchw_csize_from_256_is_right_on_the_devkit():
    """NHWC2NCHW sets repeatTimes 1: no wrap (and its (2c + 1) * 512-byte tmp does not fit the UB from c = 256)."""
    x = _random(2, 256 * 16, 1)
    got, _, _ = devkit_transpose(x, 1, 256, 1, 16, NHWC)
    assert _bits(got) == _bits(_numpy(x, 1, 256, 1, 16, NHWC))


@pytest.mark.parametrize("c, hw", [(3, 8), (5, 24), (7, 40)])
def test_gap_float_nchw2nhwc_reads_a_block_past_src(c, hw):
    """GAP (footprint only): 4-byte NCHW2NHWC with odd cSize and odd hSize*wSize/8 reloads one more source block on
    the last image: 32 bytes past n*c*h*w (value-neutral: those rows are never copied out). ascend_jit accepts a src
    of exactly n*c*h*w elements and its sanitizer records no read past it."""
    x = _random(4, c * hw, c)
    got, ext, ub = devkit_transpose(x, 1, c, 1, hw, NCHW)
    assert _bits(got) == _bits(_numpy(x, 1, c, 1, hw, NCHW))
    s0, s1 = ext["src"]
    assert max(b for a, b in ub.reads if s0 <= a < ext["dst"][0]) == s1 + BLK
    with aj.sanitize_session("report") as session:
        assert _bits(_aj("atlas-a2", x, 1, c, 1, hw, NCHW)) == _bits(_numpy(x, 1, c, 1, hw, NCHW))
    assert session.reports == []


def test_csize_1_is_a_copy_that_needs_no_tmp_on_the_devkit():
    """The intf sends cSize 1 to TransposeUB2UBImpl (one DataCopy, no tmp, no hSize*wSize checks); ascend_jit applies
    the page's minimum ((1 + 2) * 512 bytes) and range (<= 4095) to it (docs/decisions.md "Transpose")."""
    x = _random(2, 3 * 16, 2)
    got, ext, ub = devkit_transpose(x, 3, 1, 1, 16, NCHW, tmp_bytes=32)
    assert _bits(got) == _bits(x)
    t0 = ext["tmp"][0]
    assert not [r for r in ub.reads + ub.writes if r[0] >= t0]
    with pytest.raises(aj.ParameterError, match=">= 1536 bytes for cSize 1"):
        _aj("atlas-a2", x, 3, 1, 1, 16, NCHW, tmp_bytes=32)
    big = _random(2, 8192, 3)
    assert _bits(devkit_transpose(big, 1, 1, 64, 128, NCHW, tmp_bytes=32)[0]) == _bits(big)
    with pytest.raises(aj.ParameterError, match=r"hSize \* wSize' = 8192"):
        _aj("atlas-a2", big, 1, 1, 64, 128, NCHW)


@pytest.mark.parametrize("h, w", [(8, 16), (16, 32)])
def test_nd2nd_b16_other_than_16_x_16_is_a_no_op_on_the_devkit_and_refused_here(h, w):
    """The intf transposes only for hSize == wSize == 16; another size matches neither branch and writes nothing.
    ascend_jit refuses it (docs/decisions.md "Transpose": the page's 固定传入16)."""
    with aj.Core("atlas-a2") as core:
        src, dst, tmp = core.local_tensor("uint16", 256), core.local_tensor("uint16", 256), \
            core.local_tensor("uint8", 32)
        with pytest.raises(aj.ParameterError, match="transposeParams.hSize|transposeParams.wSize"):
            aj.Transpose(dst, src, tmp, aj.TransposeParamsExt(0, 0, h, w, T.TRANSPOSE_ND2ND_B16))


def test_the_950s_extra_transpose_types_are_in_the_enum_and_refused():
    """kernel_struct_transpose.h adds TRANSPOSE_ND2ND_021 / _102 / _210 and TRANSPOSE_ND2NZ_WITH_INTLV (13..16) on
    __NPU_ARCH__ 3510; the basic Transpose's dispatch ignores them (nothing written). Reported by this probe: the
    enum has them, and Transpose refuses them as it refuses the page's unsupported types."""
    assert [int(T[n]) for n in ("TRANSPOSE_ND2ND_021", "TRANSPOSE_ND2ND_102", "TRANSPOSE_ND2ND_210",
                                "TRANSPOSE_ND2NZ_WITH_INTLV")] == [13, 14, 15, 16]


def test_310p_tmp_may_be_src_itself():
    """ops-nn's ms_deform_attn_310p.h (OutTranspose / outTransCal) pass src.ReinterpretCast<uint8_t>() as the tmp
    buffer on the 310P, whose v4dtrans needs none: accepted, numpy's result."""
    x = _random(4, 8 * 128, 5)
    got = _aj("atlas-inference-aicore", x, 1, 8, 1, 128, NHWC, tmp_is_src=True)
    assert _bits(got) == _bits(_numpy(x, 1, 8, 1, 128, NHWC))


def test_basic_form_in_place_and_partial_overlap():
    with aj.Core("atlas-a2") as core:
        t = core.local_tensor("half", 512)
        x = np.arange(256, dtype=np.float16)
        t[:256] = x
        aj.Transpose(t, t)                                         # the page: src and dst may be the same
        assert _bits(t.numpy()[:256]) == _bits(x.reshape(16, 16).T.reshape(-1))
        with pytest.raises(aj.OverlapError):
            aj.Transpose(t, t[16])
