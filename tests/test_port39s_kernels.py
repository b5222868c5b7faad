"""The session-39 ports (port39s) of three hicann/cann-ops-competitions submissions: kernels/atanh.py, kernels/erfinv.py
and kernels/fills.py. Each against an expectation computed with numpy alone, on two devices and at tail sizes; the
host tilings' choices; and each deviation: the original's sequence run and reported, or its effect shown."""

import numpy as np
import pytest

import ascend_jit as aj
from ported import spec_and_module as _spec_and_module

DEVICES = ["atlas-a2", "ascend950"]
TAIL_SIZES = {"atanh": 300007, "atanh_half": 5, "atanh_bf16": 1001, "erfinv": 17, "fills": 5,
              "fills_half": 1001, "fills_bf16": 3, "fills_int8": 100000}


def _fields(raw, struct):
    return np.frombuffer(raw.tobytes(), struct)[0]


@pytest.mark.parametrize("name", sorted(TAIL_SIZES))
@pytest.mark.parametrize("device", DEVICES)
def test_each_port_passes_at_a_tail_size(name, device):
    """Sizes that leave short or empty cores, short last tiles, or (atanh 300007) four ping-pong tiles a core."""
    k, _ = _spec_and_module(name)
    ok, lines, _, _ = k.execute(device, TAIL_SIZES[name], 3)
    assert ok, "\n".join(lines)


# kernels/atanh.py

def test_atanh_tiling_packs_the_tail_cores_and_fills_the_ub():
    _, m = _spec_and_module("atanh")
    block_dim, raw, ws = m.tiling("atlas-a2", 100003, "float")
    t = _fields(raw, m.AtanhTilingData)
    # 782 blocks of 128 floats over 8 cores: 97 each, the first 6 one more; the low 7 bits carry the 6
    assert (block_dim, int(t["smallCoreDataNum"]), int(t["tileLength"])) == (8, 97 * 128 | 6, 12288)
    assert ws == aj.GetLibApiWorkSpaceSize("atlas-a2")
    assert m.tiling("atlas-a2", 300, "half")[0] == 2           # 2 blocks of 256 halves: 2 cores
    for T in ("float", "half", "bfloat16", "int32", "int16", "int8", "uint8"):
        tile = int(_fields(m.tiling("atlas-a2", 10 ** 6, T)[1], m.AtanhTilingData)["tileLength"])
        size, comp = m.TYPE_SIZE[T], m.TYPE_SIZE[m.comp_type(T)]
        used = 4 * tile * size + (2 * tile * comp if m.comp_type(T) != T else 0)
        assert used == 196608, T                                # the four slots and temporaries: the whole UB


@pytest.mark.parametrize("device", DEVICES)
def test_atanh_writes_whole_512_byte_blocks_past_n(device):
    """1000 floats end 4000 bytes in: the last core copies 96 floats more, in and out (GM padded by the host)."""
    _, m = _spec_and_module("atanh")
    n = 1000
    x = np.full(m.padded_length(n, "float"), 0.5, np.float32)
    x[:n] = np.linspace(-0.9, 0.9, n)
    y = np.full_like(x, np.nan)
    block_dim, raw, ws = m.tiling(device, n, "float")
    aj.launch(m.atanh, block_dim, device, x, y, np.zeros(ws, np.uint8), raw, "float")
    assert x.size == 1024
    assert np.allclose(y[:n], np.arctanh(x[:n].astype(np.float64)), rtol=2e-6, atol=1e-6)
    assert np.allclose(y[n:], np.arctanh(0.5), rtol=2e-6)      # the padding was read and written


@pytest.mark.parametrize("T", ["int16", "int32", "int8", "uint8"])
def test_atanh_integer_types_follow_the_cast_rules(T):
    """Widened (int8/uint8 to half, the rest to float), narrowed by CAST_ROUND: atanh(0) = 0; atanh(+-1) = +-inf
    saturates to the type's MAX / MIN; |x| > 1 gives ln of a negative, NaN, which narrows to 0 (SPEC-2 D45)."""
    _, m = _spec_and_module("atanh")
    x = np.array(([0, 1, 2, 3] if T == "uint8" else [-1, 0, 1, 2, -3]) * 61, m.NP[T])
    y = m._run(T)("atlas-a2", {"x": x})["y"]
    info = np.iinfo(m.NP[T])
    want = np.where(x == 1, info.max, np.where(x == -1, info.min, 0)).astype(m.NP[T])
    assert y.dtype == x.dtype and y.tolist() == want.tolist()


def test_atanh_int32_is_not_on_the_950():
    """The 950's Cast table has no int32 -> float CAST_NONE (SPEC-2 D72): the original's widening is refused."""
    _, m = _spec_and_module("atanh")
    with pytest.raises(aj.UnsupportedDTypeError, match="CAST_NONE"):
        m._run("int32")("ascend950", {"x": np.zeros(300, np.int32)})


# kernels/erfinv.py

def test_erfinv_tiling():
    _, m = _spec_and_module("erfinv")
    t = lambda dev, n: (lambda r: (r[0], tuple(int(v) for v in _fields(r[1], m.ErfinvTilingData))))(m.tiling(dev, n))
    assert t("atlas-a2", 100003) == (8, (100003, 12501, 4096))      # (196608 - 1024) / 32 = 6112 > 4096
    assert t("atlas-a2", 17) == (8, (17, 3, 4096))                  # cores 6 and 7 get nothing
    assert t("atlas-a2", 5) == (5, (5, 1, 4096))


@pytest.mark.parametrize("size", [5, 17, 8195, 100003])
@pytest.mark.parametrize("device", DEVICES)
def test_erfinv_is_its_float32_replay_bit_for_bit(size, device):
    k, m = _spec_and_module("erfinv")
    inputs = k.make_inputs(size, 9)
    y = k.run(device, inputs)["y"]
    assert y.tobytes() == m.replay(inputs["x"]).tobytes()


def test_erfinv_submission_computes_erf():
    """The submission's rational function is erf(x) to 5e-6 on [-1, 1], far from erfinv."""
    special = pytest.importorskip("scipy.special")
    _, m = _spec_and_module("erfinv")
    x = np.linspace(-0.999, 0.999, 4001).astype(np.float32)
    y = m.run("atlas-a2", {"x": x})["y"].astype(np.float64)
    assert np.max(np.abs(y - special.erf(x.astype(np.float64)))) < 5e-6
    assert np.max(np.abs(y - special.erfinv(x.astype(np.float64)))) > 1.0


# kernels/fills.py

def test_fills_tiling_keys_and_cores():
    _, m = _spec_and_module("fills")
    block_dim, key, raw, _ = m.tiling("atlas-a2", 500003, "float", 1.0)
    t = _fields(raw, m.FillsTilingData)
    # 3907 blocks of 128 words: 488 a core, the first 3 one more (62592 words > the 49152-word tile: key 1)
    assert (block_dim, key, int(t["smallCoreDataNum"])) == (8, m.KEY_LARGE, 488 * 128 | 3)
    assert m.tiling("atlas-a2", 100003, "half", 1.0)[:2] == (8, m.KEY_SMALL)
    block_dim, key, raw, _ = m.tiling("atlas-a2", 5, "float", 1.0)
    assert (block_dim, int(_fields(raw, m.FillsTilingData)["smallCoreDataNum"])) == (2, 0 | 1)  # core 1 returns


def test_fills_host_value_conversions():
    _, m = _spec_and_module("fills")
    assert m.value_bits(-77.0, "int8") == 0xB3B3B3B3
    assert m.value_bits(200.0, "uint8") == 0xC8C8C8C8
    h = int(np.float16(3.1416).view(np.uint16))
    assert m.value_bits(3.1416, "half") == h | h << 16
    assert m.value_bits(1e-6, "half") == 0                     # below 2^-14: flushed (numpy keeps a subnormal)
    assert m.value_bits(-1e-6, "half") == 0x80008000
    assert m.value_bits(float("nan"), "half") & 0xFFFF == 0x7C00  # NaN becomes +inf
    assert m.value_bits(65519.0, "half") & 0xFFFF == 0x7BFF       # RNE below the halfway point to inf
    assert m.value_bits(-123456.9, "int32") == (-123456) & 0xFFFFFFFF


@pytest.mark.parametrize("value, want", [(1e-6, 0.0), (6e-5, 0.0), (float("nan"), np.inf), (7e-5, np.float16(7e-5))])
def test_fills_half_uses_the_hosts_conversion(value, want):
    k, m = _spec_and_module("fills_half")
    y = k.run("atlas-a2", {"x": np.zeros(37, np.float16), "value": np.float32(value)})["y"]
    assert y.tobytes() == np.full(37, want, np.float16).tobytes()


@pytest.mark.parametrize("device", DEVICES)
def test_fills_writes_whole_512_byte_blocks_past_n(device):
    k, _ = _spec_and_module("fills_int8")
    out = k.run(device, {"x": np.zeros(1001, np.int8), "value": np.float32(-77.0)})
    assert out["y_padded"].size == 1024 and (out["y_padded"] == -77).all()


def test_fills_original_sync_races_the_copy_against_the_duplicate(monkeypatch):
    """pipe_barrier(PIPE_V) alone leaves MTE3 free to read the stamp before the Duplicate wrote it: the sanitizer
    reports the RAW in every block (the sequential emulator still writes the right values)."""
    k, m = _spec_and_module("fills")
    monkeypatch.setattr(m, "ORIGINAL_SYNC", True)
    inputs = k.make_inputs(1001, 1)
    with aj.sanitize_session("report") as session:
        y = k.run("atlas-a2", inputs)["y"]
    assert {(r.check, r.instruction.api, r.earlier.api) for r in session.reports} == \
        {("race", "DataCopy", "Duplicate")}
    assert sorted({r.block for r in session.reports}) == list(range(8))
    assert y.tobytes() == k.expected("atlas-a2", inputs)["y"].tobytes()


def test_fills_unpadded_output_is_refused_where_the_original_writes_past_y():
    _, m = _spec_and_module("fills")
    n = 1001
    block_dim, key, raw, ws = m.tiling("atlas-a2", n, "float", 1.0)
    with pytest.raises(aj.OutOfBoundsError, match="SetGlobalBuffer"):
        aj.launch(m.fills, block_dim, "atlas-a2", np.zeros(n, np.float32), np.zeros(n, np.int32),
                  np.zeros(ws, np.uint8), raw, key)


@pytest.mark.parametrize("name, pattern", [("atanh", r"Adds \[PIPE_V\].*after Muls \[PIPE_V\]"),
                                           ("erfinv", r"Min \[PIPE_V\].*after Duplicate \[PIPE_V\]")])
def test_the_originals_have_no_vector_barriers_strict_mode_says_so(name, pattern):
    """Neither original puts PipeBarrier<PIPE_V> between dependent vector instructions (the ports keep that): the
    default sanitizer mode passes them, "strict" stops at the first same-pipe RAW."""
    k, _ = _spec_and_module(name)
    with pytest.raises(aj.SanitizerError, match=pattern):
        with aj.sanitize_session("strict"):
            k.run("atlas-a2", k.make_inputs(1001, 1))
