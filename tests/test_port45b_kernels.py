"""The session-45b ports from hicann/ops-math: kernels/pow_tensor_scalar_integer.py (Pow tensor ** scalar, the 950's
arch35 integer kernel: Reg Mul wrapping behind SetCtrlSpr<60, 60>(0), DIST_UNPACK_B8 / Cast u8 -> u16 / int8 ->
int16 -> half -> int8 NO_SAT / DIST_PACK_B16, a Memory-API ShiftLeft by 0), kernels/pows.py (Pows: Cast CAST_NONE
/ CAST_RINT around a PipeBarrier'd Mul / Duplicate / Div / Sqrt chain over float, half and bfloat16, main and last
cores, DataCopyPad on the A2 / A3 and whole-block DataCopy on the 310P) and kernels/select_v3.py (SelectV3: Cast int8
-> half, CompareScalar NE into a bit mask, tensor-tensor Select; big and small cores). Each against a numpy model
bit for bit (the MODELLED Div / Sqrt round once, as numpy's IEEE float32 operations do) and, for Pows, against the
float64 formula within the roundings; the host tilings; each deviation's reason (the original's form refused or
reported by the sanitizer)."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ported import sanitizer_reports as _reports, bits as _bits, same_bits as _same, spec_and_module as _spec_and_module

R = aj.Reg
BF16 = ml_dtypes.bfloat16
D950 = "ascend950"
P310 = "atlas-inference-aicore"


def _ints(dtype, n, seed):
    info = np.iinfo(dtype)
    return np.random.default_rng(seed).integers(info.min, info.max, n, endpoint=True).astype(dtype)


# kernels/pow_tensor_scalar_integer.py

def test_pow_integer_tiling_tiles_and_cores():
    """DoOpTiling: (UB - 8 KiB - 512) / 5 rounded down to 512 bytes a buffer; the tile is that buffer's elements
    when a core's share is larger, else the share (at least 4096 bytes' worth) rounded down to 512 bytes; whole
    tiles spread over the cores, the last of all ubTail long."""
    _, m = _spec_and_module("pow_tensor_scalar_int32_cube")
    ub = aj.get_device(D950).ub_bytes
    ub_size = (ub - 8704) // 5 // 512 * 512
    key, blocks, t = m.tiling(D950, 100003, "int32")
    t = t.view(m.PowTensorScalarTilingData)[0]
    assert key == 7001 and t["ubSize"] == ub_size and t["ubFactor"] == ub_size // 4
    assert (t["ubOuter"], t["blockFactor"], blocks) == (9, 2, 5)       # the last core one tile
    assert t["ubTail"] == 100003 - 8 * (ub_size // 4)
    key, blocks, t = m.tiling(D950, 3000, "int16", 2)
    t = t.view(m.PowTensorScalarTilingData)[0]
    assert (key, blocks, t["ubFactor"], t["ubOuter"], t["ubTail"]) == (6001, 2, 2048, 2, 952)   # a tile a core
    key, blocks, t = m.tiling(D950, 20000, "int8", 3)                   # 2500 a core: 4096 bytes at least
    t = t.view(m.PowTensorScalarTilingData)[0]
    assert (key, blocks, t["ubFactor"], t["ubOuter"]) == (5001, 5, 4096, 5)


@pytest.mark.parametrize("dtype", [np.int32, np.int16, np.uint8, np.int8])
@pytest.mark.parametrize("exponent", [0, 1, 2, 3])
def test_pow_integer_is_the_wrapping_power_bit_for_bit(dtype, exponent):
    """x ** e modulo 2 ** bits over the whole range: several tiles on several cores with an uneven last tile and
    last core, and a short single tile (8-bit: an odd count, the exponent-1 ShiftLeft over (n + 1) / 2 uint16)."""
    _, m = _spec_and_module("pow_tensor_scalar_int32_cube")
    n_tiles = 90001 if np.dtype(dtype).itemsize == 1 else 50001
    for n in (n_tiles, 77):
        x = _ints(dtype, n, n + exponent)
        y = m.run_pow(D950, x, exponent)
        assert y.dtype == x.dtype and np.array_equal(y, m.pow_model(x, exponent)), (dtype, exponent, n)


def test_pow_integer_wraps_at_the_types_edges():
    """The non-saturating multiplies (CTRL[53] 0, SPEC-2 D35 / D67) and NO_SAT narrowing casts (CTRL[60] 0, D46)."""
    _, m = _spec_and_module("pow_tensor_scalar_int32_cube")
    x32 = np.array([65536, -65536, 46341, 2 ** 31 - 1, -2 ** 31, 1291, -1], np.int32)
    assert m.run_pow(D950, x32, 2).tolist() == [0, 0, -2147479015, 1, 0, 1666681, 1]
    assert m.run_pow(D950, x32, 3).tolist() == [0, 0, (46341 ** 3 + 2 ** 31) % 2 ** 32 - 2 ** 31, 2 ** 31 - 1,
                                                0, (1291 ** 3 + 2 ** 31) % 2 ** 32 - 2 ** 31, -1]
    x8 = np.array([-128, 127, 16, 15, -3, 0], np.int8)
    assert m.run_pow(D950, x8, 2).tolist() == [0, 1, 0, -31, 9, 0]     # 225 -> -31 through half and NO_SAT
    assert m.run_pow(D950, x8, 3).tolist() == [0, 127, 0, 47, -27, 0]
    u8 = np.array([255, 16, 7, 2], np.uint8)
    assert m.run_pow(D950, u8, 3).tolist() == [255, 0, 87, 8]


@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync,dcache", reason="copies out the whole 256-byte dst of a "
                                                                             "128-element VF, whose upper half nothing "
                                                                             "writes (only y[:3] is checked)")
def test_pow_integer_needs_the_non_saturating_switch():
    """Why SetCtrlSpr<60, 60>(0) wraps the VF: with CTRL[60] at its default 1 the int8 VF's half -> int8 Cast
    saturates (200 -> 127) although its trait says NO_SAT (SPEC-2 D46)."""
    _, m = _spec_and_module("pow_tensor_scalar_int8_square")

    def kernel(x, y, switch):
        pipe, buf_in, buf_out = aj.TPipe(), aj.TBuf(), aj.TBuf()
        pipe.InitBuffer(buf_in, 256)
        pipe.InitBuffer(buf_out, 256)
        src, dst = buf_in.Get("int8"), buf_out.Get("int8")
        x_gm, y_gm = aj.GlobalTensor(), aj.GlobalTensor()
        x_gm.SetGlobalBuffer(x)
        y_gm.SetGlobalBuffer(y)
        aj.DataCopy(src, x_gm, 256)
        aj.PipeBarrier(aj.PIPE_ALL)
        if switch:
            aj.SetCtrlSpr(60, 60, 0)
        R.asc_vf_call(m.POW_S8_VF, dst, src, 128, False)
        aj.SetCtrlSpr(60, 60, 1)
        aj.PipeBarrier(aj.PIPE_ALL)
        aj.DataCopy(y_gm, dst, 256)

    x = np.zeros(256, np.int8)
    x[:3] = [15, -15, 11]                       # 225, 225, 121
    outs = {}
    for switch in (True, False):
        y = np.zeros(256, np.int8)
        aj.launch(kernel, 1, D950, x, y, switch)
        outs[switch] = y[:3].tolist()
    assert outs == {True: [-31, -31, 121], False: [127, 127, 121]}


def test_pow_integer_originals_forms_are_refused_as_the_docstring_says():
    """Deviations (2)-(4): another exponent needs the advanced Power API (not offered); the int16 register stored
    with DIST_NORM_B32 and the Reg And of data registers (SPEC-2 14) are refused."""
    _, m = _spec_and_module("pow_tensor_scalar_int16_square")
    with pytest.raises(ValueError, match="advanced Power"):
        m.tiling(D950, 100, "int32", 4)
    assert not hasattr(aj, "Power")

    def store_b32(x):
        r = R.RegTensor("int16")
        R.LoadAlign(r, x, 0)
        R.StoreAlign(x, r, R.UpdateMask("int16", 128)[0], 0, dist=R.StoreDist.DIST_NORM_B32)

    def data_and(x):
        a, c = R.RegTensor("uint16"), R.RegTensor("uint16")
        R.LoadAlign(a, x, 0)
        R.And(c, a, a, R.CreateMask("uint16"))

    def kernel(vf):
        pipe, buf = aj.TPipe(), aj.TBuf()
        pipe.InitBuffer(buf, 512)
        dtype = np.uint16 if vf is data_and else np.int16
        t = buf.Get(np.dtype(dtype).name)
        aj.Duplicate(t, dtype(0), 256)
        R.asc_vf_call(R.simd_vf(vf), t)

    with pytest.raises(aj.UnsupportedDTypeError, match="register element size"):
        aj.launch(kernel, 1, D950, store_b32)
    with pytest.raises(aj.ParameterError, match="SPEC-2 14"):
        aj.launch(kernel, 1, D950, data_and)


def test_pow_integer_short_tiles_read_lanes_nothing_wrote_which_the_port_zeroes():
    """Deviation (5): the VF's last whole-vector load reads past the DataCopyPad's blocks; the port's Duplicate makes
    them zeros; the stored results are the same. Session 54: the lanes carry the init check, so the original's
    sequence (zero_tail=False), reported before, runs clean too: its tail lanes never reach a store."""
    _, m = _spec_and_module("pow_tensor_scalar_int32_cube")
    x = _ints(np.int32, 1001, 3)
    ys = {}

    def run(zero_tail):
        ys[zero_tail] = m.run_pow(D950, x, 3, zero_tail=zero_tail)
    assert _reports(lambda: run(False)) == []
    assert _reports(lambda: run(True)) == []
    assert np.array_equal(ys[False], ys[True])


def test_pow_integer_default_sizes_run_clean_under_the_sanitizer():
    for name in ("pow_tensor_scalar_int32_cube", "pow_tensor_scalar_int16_square", "pow_tensor_scalar_uint8_cube",
                 "pow_tensor_scalar_int8_square", "pow_tensor_scalar_int32_one", "pow_tensor_scalar_int8_zero"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run(D950, k.make_inputs(20001, 0))) == [], name


# kernels/pows.py

def test_pows_tiling_non_cut_and_big_case():
    _, m = _spec_and_module("pows")
    ub = aj.get_device("atlas-a2").ub_bytes
    blocks, t = m.tiling("atlas-a2", 4095, "float")            # under 4096: one core, one tile of everything
    t = t.view(m.PowsTilingData)[0]
    assert (blocks, t["mainCoreLoopNum"], t["dataLength"], t["tailCoreTailLength"]) == (1, 1, 4095, 0)
    assert t["bufSize"] == ub // 12 // 256 * 256 and t["tilingKey"] == 301 and t["blockSize"] == 8
    blocks, t = m.tiling("atlas-a2", 300001, "half")           # 37504 halves a core, tiles of UB / 14
    t = t.view(m.PowsTilingData)[0]
    buf = ub // 14 // 256 * 256
    assert (blocks, t["numPerCore"], t["dataLength"], t["bufSize"]) == (8, 37504, buf, buf)
    assert (t["mainCoreLoopNum"], t["mainCoreTailLength"]) == (37504 // buf, 37504 % buf)
    last = 300001 - 7 * 37504
    assert (t["tailCoreLoopNum"], t["tailCoreTailLength"]) == (last // buf, last % buf)
    blocks, t = m.tiling("atlas-a2", 8 * 4096, "bfloat16")     # an even split: no last-core branch
    t = t.view(m.PowsTilingData)[0]
    assert (blocks, t["tailCoreLoopNum"], t["tailCoreTailLength"], t["tilingKey"]) == (8, 0, 0, 201)


@pytest.mark.parametrize("device, dtype", [("atlas-a2", np.float32), ("atlas-a2", np.float16), ("atlas-a3", BF16),
                                           (P310, np.float32), (P310, np.float16)])
def test_pows_is_the_float_chain_bit_for_bit(device, dtype):
    """Every recognised exponent over signed inputs (NaN from sqrt of a negative, inf from 1 / 0 or overflow):
    several tiles on a core, main and last cores, the non-cut single tile; the 310P's half results saturate."""
    _, m = _spec_and_module("pows")
    rng = np.random.default_rng(5)
    # float on the A2 / A3: at most 16383 a core (test_pows_float_full_tile_overflows_the_uint16_block_length)
    for n in (100003 if (dtype == np.float32 and device != P310) else 300001, 4001):
        x = rng.uniform(-300, 300, n).astype(np.float32).astype(dtype)
        x[:4] = [0.0, -0.0, 1e-3, -2.5]
        for exponent in (-2.0, -1.0, -0.5, 0.5, 2.0, 3.0):
            y = m.run_pows(device, x, exponent)
            assert _same(y, m.pows_model(x, exponent, device)), (n, exponent)


def test_pows_float_full_tile_overflows_the_uint16_block_length():
    """Found in the original (kept, not a deviation): on the A2 / A3 a full float tile is UB / 12 rounded down to
    256 = 16384 floats, whose 65536 bytes DataCopyParams' uint16_t blockLen cannot hold (C++ would store 0 and copy
    nothing); the emulator refuses the field (ParameterError naming it). Every float input with a core's share of
    16384 or more (so more than 7 * 16384 elements) hits it; half and bfloat16 tiles (13824) do not; the 310P's
    DataCopy takes a count."""
    _, m = _spec_and_module("pows")
    assert m.tiling("atlas-a2", 8 * 16384, "float")[1].view(m.PowsTilingData)[0]["dataLength"] == 16384
    x = np.ones(8 * 16384, np.float32)
    with pytest.raises(aj.ParameterError, match="DataCopyParams.blockLen.*C\\+\\+ would store 0"):
        m.run_pows("atlas-a2", x, 2.0)
    assert np.all(m.run_pows("atlas-a2", x[:7 * 16384], 2.0) == 1)
    assert np.all(m.run_pows(P310, x, 2.0) == 1)


def test_pows_specials_saturation_and_the_formula():
    """IEEE specials through the float chain; the 310P's half outputs saturate (SPEC D6, SPEC-2 D35: inf -> 65504,
    NaN -> 0) where the A2's keep them; against float64 x ** s within the chain's float roundings and the type's."""
    _, m = _spec_and_module("pows")
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -4.0, 1e-3, 300.0] * 4, np.float16)
    a2 = m.run_pows("atlas-a2", x, -1.0)
    assert a2[:5].tolist()[:4] == [np.inf, -np.inf, 0.0, -0.0] and np.isnan(a2[4])
    sq = m.run_pows("atlas-a2", x, 0.5)
    assert np.isnan(sq[5]) and sq[2] == np.inf and _bits(sq[1:2]).tolist() == [0x8000]      # sqrt(-0) = -0
    p310 = m.run_pows(P310, x, 3.0)
    assert p310[7] == 65504 and p310[3] == -65504 and p310[4] == 0 and m.run_pows("atlas-a2", x, 3.0)[7] == np.inf
    for dtype, rtol in ((np.float32, 4e-7), (np.float16, 2 ** -11 + 4e-7), (BF16, 2 ** -8 + 4e-7)):
        xx = np.random.default_rng(1).uniform(0.25, 4, 9000).astype(np.float32).astype(dtype)
        xf = xx.astype(np.float64)
        for s in (-2.0, -1.0, -0.5, 0.5, 2.0, 3.0):
            got = m.run_pows("atlas-a2", xx, s).astype(np.float64)
            assert np.allclose(got, xf ** s, rtol=rtol, atol=0), (dtype, s)


def test_pows_exponent_windows_and_the_bf16_scalar():
    """The recognised windows are +-1e-9 in float (so a float exponent of 2 + 2**-22 is not 2 and the output is
    never written: the sanitizer says so); the bf16 exponent becomes the float of the same value by the high-half
    store."""
    _, m = _spec_and_module("pows_bf16")
    x = np.linspace(0.5, 3, 64).astype(BF16)
    for s in (-2.0, 0.5, 3.0):
        assert _same(m.run_pows("atlas-a2", x, s), m.pows_model(x, s))
    xf = np.linspace(0.5, 3, 64).astype(np.float32)
    off = np.float32(2 + 2 ** -22)
    assert m.pows_model(xf, off) is None
    reports = _reports(lambda: m.run_pows("atlas-a2", xf, off))
    assert reports and {r.check for r in reports} == {"init"}


def test_pows_310p_whole_block_copy_out_reads_lanes_the_chain_never_wrote():
    """The deviation's reason: the 310P's DataCopy out of a short tile's whole blocks reads lanes past the chain's
    count (the original's sequence, whole_blocks=False, is reported); the port computes them; y[:n] the same."""
    _, m = _spec_and_module("pows")
    x = np.random.default_rng(2).uniform(0.5, 2, 77).astype(np.float16)
    ys = {}

    def run(whole):
        ys[whole] = m.run_pows(P310, x, 2.0, whole_blocks=whole)
    original = _reports(lambda: run(False))
    assert original and {r.check for r in original} == {"init"} and "DataCopy" in str(original[0])
    assert _reports(lambda: run(True)) == []
    assert _same(ys[False], ys[True])


def test_pows_default_sizes_run_clean_under_the_sanitizer():
    for name, devices in (("pows", ("atlas-a2", P310)), ("pows_half", ("atlas-a3", P310)),
                          ("pows_bf16", ("atlas-a2",))):
        k, _ = _spec_and_module(name)
        for device in devices:
            assert _reports(lambda: k.run(device, k.make_inputs(20001, 0))) == [], (name, device)


# kernels/select_v3.py

def test_select_v3_tiling_big_and_small_cores():
    _, m = _spec_and_module("select_v3")
    blocks, t = m.tiling("atlas-a2", 100003, "float")
    t = t.view(m.SelectV3TilingData)[0]
    # 12501 blocks of 8 floats over 8 cores: 5 cores of 1563 blocks, 3 of 1562; tiles of 512 blocks
    assert (blocks, t["tailBlockNum"], t["bigCoreDataNum"], t["smallCoreDataNum"]) == (8, 5, 12504, 12496)
    assert (t["tileDataNum"], t["finalBigTileNum"], t["bigTailDataNum"]) == (4096, 4, 12504 - 3 * 4096)
    blocks, t = m.tiling("atlas-a2", 40, "half")               # 3 blocks: 3 cores of one block
    t = t.view(m.SelectV3TilingData)[0]
    assert (blocks, t["smallCoreDataNum"], t["finalSmallTileNum"], t["smallTailDataNum"]) == (3, 16, 1, 16)


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-a3"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_select_v3_is_where_bit_for_bit(device, dtype):
    """z = b ? x : y with values copied bit for bit (NaN payloads, -0): several tiles on big and small cores, a
    tile whose b row is whole 32-byte blocks, a short one, one element; b as int8 0 / 1 and other non-zero bytes."""
    _, m = _spec_and_module("select_v3")
    rng = np.random.default_rng(9)
    for n in (300001, 4096 * 8, 77, 1):
        x = rng.standard_normal(n).astype(dtype)
        y = rng.standard_normal(n).astype(dtype)
        x[: min(n, 3)] = np.array([0x7FC1, 0x8000, 0xFC00], np.uint16).view(np.float16)[: min(n, 3)].astype(dtype)
        b = rng.integers(0, 2, n).astype(np.int8)
        b[rng.random(n) < 0.1] = -3
        z = m.run_select_v3(device, x, y, b)
        want = m.select_v3_model(x, y, b)
        assert np.array_equal(_bits(z), _bits(want)), n


def test_select_v3_original_right_padding_writes_past_bs_queue_buffer():
    """Deviation (2)'s reason: with the original's rightPadding 2 on a full tile (4096 bytes of b) the padded row is
    32 bytes longer than b's queue buffer: refused on a tensor-bounds core (SPEC-2 9.1 / D56); on a bounds="ub"
    core it runs (into the queue's other buffer, free at that point; the sanitizer reports the access outside the
    tensor) and gives the port's results."""
    _, m = _spec_and_module("select_v3")
    n = 40000
    x = np.arange(n, dtype=np.float32)
    y = -x
    b = (np.arange(n) % 3 == 0).astype(np.int8)
    with pytest.raises(aj.OutOfBoundsError, match="DataCopyPad"):
        m.run_select_v3("atlas-a2", x, y, b, original_padding=True)
    blocks, tiling_bytes = m.tiling("atlas-a2", n, "float")
    z = np.zeros(n, np.float32)
    reports = _reports(lambda: aj.launch(m.select_v3, blocks, "atlas-a2", x, y, b, z, np.zeros(32, np.uint8),
                                         tiling_bytes, 0, True, bounds="ub"))
    assert reports and {r.check for r in reports} == {"memory"} and "DataCopyPad" in str(reports[0])
    assert np.array_equal(z, m.run_select_v3("atlas-a2", x, y, b)) and np.array_equal(z, np.where(b != 0, x, y))


def test_select_v3_compare_past_the_cast_leaves_bits_the_select_never_reads():
    """Deviation (3)'s reason: CompareScalar over the count rounded up to 256 reads the half row past the Cast's
    elements; the port casts the zeroed rest. The original's sequence (zero_tail=False: 7 cores of 128 and one of
    112, compared as 256) now runs clean: the compared lanes nothing wrote leave their mask bits uninitialised, and
    the Select of the Cast's count reads only its lanes' bytes (docs/decisions.md "Sanitizer": a count-form
    Compare's never-written lanes are followed to what reads their bits; it was reported at the CompareScalar)."""
    _, m = _spec_and_module("select_v3")
    x = np.ones(1000, np.float16)
    b = np.ones(1000, np.int8)
    zs = {}

    def run(zero_tail):
        zs[zero_tail] = m.run_select_v3("atlas-a2", x, -x, b, zero_tail=zero_tail)
    assert _reports(lambda: run(False)) == []
    assert _reports(lambda: run(True)) == []
    assert np.array_equal(zs[False], zs[True]) and np.all(zs[True] == 1)


def test_select_v3_default_sizes_run_clean_under_the_sanitizer():
    for name in ("select_v3", "select_v3_half"):
        k, _ = _spec_and_module(name)
        assert _reports(lambda: k.run("atlas-a2", k.make_inputs(30001, 0))) == [], name
