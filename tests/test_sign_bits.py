"""kernels/sign_bits_pack.py and kernels/sign_bits_unpack.py (ops-math SignBitsPack / SignBitsUnpack): what the
originals do at the edges, kept by the ports, and the pack port's one deviation."""

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry
from ported import module as _module


def test_pack_round_trips_through_unpack():
    """unpack(pack(x)) is sign(x) with 0 and -0 as +1: the two ports agree on the bit order (LSB first)."""
    pack, unpack = registry()["sign_bits_pack"], registry()["sign_bits_unpack"]
    x = pack.make_inputs(4000, 2)["x"]
    y = pack.run("atlas-a2", {"x": x})["y"]
    out = unpack.run("atlas-a2", {"x": y})["out"]
    assert out.tolist() == np.where(x >= 0, 1.0, -1.0).astype(np.float32).tolist()


@pytest.mark.parametrize("dtype, n", [("float", 1001), ("half", 2003)])
def test_pack_last_core_copies_out_past_the_output(dtype, n):
    """The original's Process ends with CopyOut on every core (its CopyOutLast is never called): the last tile leaves
    lastCalcLength / 8 bytes, the output's ceil(n / 8) and then the padding's zero bits up to the 256-byte rounded
    count (1024 floats: 128 bytes; 2048 halves: 256 bytes). GM past them keeps what it held."""
    m = _module("sign_bits_pack")
    x = m._make_inputs(dtype)(n, 1)["x"]
    per_block = m.GM_ALIGN // m._SIZE[dtype]
    gm_x = np.zeros(-(-n // per_block) * per_block, m._NP[dtype])
    gm_x[:n] = x
    gm_y = np.full(gm_x.size // 8, 0xAA, np.uint8)
    block_dim, raw = m.tiling(n, dtype)
    t = np.frombuffer(raw.tobytes(), m.SignBitsPackTilingData)[0]
    assert block_dim == 1 and int(t["lastCopyLength"]) == n
    aj.launch(m.sign_bits_pack, block_dim, "atlas-a2", gm_x, gm_y, np.zeros(32, np.uint8), raw, dtype)
    size = -(-n // 8)
    written = int(t["lastCalcLength"]) // 8
    assert gm_y[:size].tobytes() == m.expected("atlas-a2", {"x": x})["y"].tobytes()
    assert written > size and (gm_y[size:written] == 0).all() and (gm_y[written:] == 0xAA).all()


def test_pack_original_compares_lanes_nothing_wrote(monkeypatch):
    """Without the port's Duplicate of -1 past the padded copy, the last tile's CompareScalar reads queue bytes
    nothing wrote (the sanitizer's init report); the output's bytes are the same."""
    k = registry()["sign_bits_pack"]
    m = _module("sign_bits_pack")
    inputs = k.make_inputs(2961, 4)          # one core: 2961 floats copied as 2968, compared as 3008
    want = k.run("atlas-a2", inputs)["y"]
    monkeypatch.setattr(m.aj, "Duplicate", lambda *a: None)
    with aj.sanitize_session("report") as session:
        y = k.run("atlas-a2", inputs)["y"]
    assert y.tobytes() == want.tobytes()
    assert session.reports and {r.check for r in session.reports} == {"init"}


@pytest.mark.parametrize("dtype, n, want", [
    # A2: one buffer below 8 cores' single-buffer tiles; 64-byte blocks over 8 cores, 4 of them one block more
    ("float", 20000, (8, 0, 2496, 2560, 0)),
    # two buffers past it: tiles of (196608 - ceil(196608 / 34) * 32) // 64 // 2 blocks
    ("half", 400000, (8, 1, 49984, 50048, 5760)),
])
def test_unpack_tiling_follows_the_host_formulas(dtype, n, want):
    m = _module("sign_bits_unpack")
    block_dim, key, raw = m.tiling("atlas-a2", n, dtype)
    t = np.frombuffer(raw.tobytes(), m.SignBitsUnpackTilingData)[0]
    got = (block_dim, int(t["bufferOpen"]), int(t["smallCoreDataNum"]), int(t["bigCoreDataNum"]))
    assert got == want[:4] and key == (1 if dtype == "half" else 0)
    if want[4]:
        assert int(t["tileDataNum"]) == want[4]
