"""Ascend 950 Reg loads and stores (every LoadDist / StoreDist, DATA_BLOCK_COPY, post-update, unaligned, MaskReg
forms; SPEC-2 11.6, D68) and the MaskReg operations (SPEC-2 11.7, D63, D64): the 12.8 G-4 / G-5 vectors and
property tests of the compiled and plain-Python paths against the reference, with refusals leaving the UB alone."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.reference import reg as ref

R = aj.Reg
WIDTH_TYPES = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}


def _vf_load(out, src, T, offset, dist, step):
    reg = R.RegTensor(T)
    new = R.LoadAlign(reg, src, offset, dist=dist, post_update_stride=step)
    R.StoreAlign(out, reg, R.CreateMask(T))
    return new


def _vf_load_dual(out0, out1, src, T, offset, dist):
    r0, r1 = R.RegTensor(T), R.RegTensor(T)
    R.LoadAlign(r0, r1, src, offset, dist=dist)
    R.StoreAlign(out0, r0, R.CreateMask(T))
    R.StoreAlign(out1, r1, R.CreateMask(T))


def _vf_store(out, src, T, mask, offset, dist, step):
    reg = R.RegTensor(T)
    R.LoadAlign(reg, src)
    return R.StoreAlign(out, reg, mask, offset, dist=dist, post_update_stride=step)


def _vf_store_dual(out, src0, src1, T, dist):
    r0, r1 = R.RegTensor(T), R.RegTensor(T)
    R.LoadAlign(r0, src0)
    R.LoadAlign(r1, src1)
    R.StoreAlign(out, r0, r1, R.CreateMask(T), 0, dist=dist)


def _vf_blocks(out, src, T, mask, offset, block_stride, repeat_stride, post_mode, store):
    reg = R.RegTensor(T)
    if store:
        R.LoadAlign(reg, src)
        return R.StoreAlign(out, reg, offset, data_block_stride=block_stride, mask=mask, repeat_stride=repeat_stride,
                            post_mode=post_mode)
    new = R.LoadAlign(reg, src, offset, data_block_stride=block_stride, mask=mask, repeat_stride=repeat_stride,
                      post_mode=post_mode)
    R.StoreAlign(out, reg, R.CreateMask(T))
    return new


def _vf_mask_io(out, src, dist_in, dist_out, mask):
    R.LoadAlign(mask, src, 0, dist=dist_in)
    R.StoreAlign(out, mask, 0, dist=dist_out)


def _vf_mask_ops(d0, d1, a, b, m, op, part, T):
    if op == 0:
        R.And(d0, a, b, m)
    elif op == 1:
        R.Or(d0, a, b, m)
    elif op == 2:
        R.Xor(d0, a, b, m)
    elif op == 3:
        R.Not(d0, a, m)
    elif op == 4:
        R.Move(d0, a, m)
    elif op == 5:
        R.Select(d0, a, b, m)
    elif op == 6:
        R.Pack(d0, a, part)
    elif op == 7:
        R.UnPack(d0, a, part)
    elif op == 8:
        R.Interleave(d0, d1, a, b, T)
    elif op == 9:
        R.DeInterleave(d0, d1, a, b, T)
    else:
        R.Move(d0, a)


def _vf_unaligned(out, src, T, load_offset, store_offset, count):
    reg, ul, us = R.RegTensor(T), R.UnalignRegForLoad(), R.UnalignRegForStore()
    R.LoadUnAlignPre(ul, src, load_offset)
    R.LoadUnAlign(reg, ul, src, load_offset)
    off = R.StoreUnAlign(out, reg, us, store_offset, count)
    R.StoreUnAlignPost(out, us, off)
    return R.GetVecLen()


@R.simd_vf
def MASK_LOAD_STORE(out, src, mask):
    R.LoadAlign(mask, src, 0)
    R.StoreAlign(out, mask, 0)


LOAD, LOAD_DUAL, STORE, STORE_DUAL, BLOCKS, MASK_IO, MASK_OPS, UNALIGNED = (R.simd_vf(f) for f in (
    _vf_load, _vf_load_dual, _vf_store, _vf_store_dual, _vf_blocks, _vf_mask_io, _vf_mask_ops, _vf_unaligned))


def _run(vf, compiled, *args):
    return (vf if compiled else vf.py_func)(*args)


def _setup(nbytes=2048, dtype="uint8", seed=0):
    core = aj.Core("ascend950")
    src = core.local_tensor(dtype, nbytes // aj.dtypes.resolve(dtype).size)
    rng = np.random.default_rng(seed)
    src[:] = np.frombuffer(rng.integers(0, 256, nbytes, dtype=np.uint8).tobytes(), src.dtype.np_dtype)
    return core, src


def _bytes(t):
    return t.numpy().tobytes()


# --- loads ---------------------------------------------------------------------------------------------------------
def _load(dist, T, raw, compiled=True, offset=0, step=None):
    core = aj.Core("ascend950")
    d = aj.dtypes.resolve(T)
    src = core.local_tensor(T, 1024 // d.size)
    src[:] = np.frombuffer(np.resize(np.frombuffer(bytes(raw), np.uint8), 1024).tobytes(), d.np_dtype)
    out = core.local_tensor(T, 256 // d.size)
    with core:
        new = _run(LOAD, compiled, out, src, T, offset, dist, step)
    return out.numpy(), new


def test_g4_load_vectors():
    a = np.arange(1, 513, dtype=np.uint16)
    got, _ = _load(R.LoadDist.DIST_BRC_B16, "half", np.float16([1.0]).tobytes())
    assert (got.view(np.uint16) == 0x3C00).all()
    got, _ = _load(R.LoadDist.DIST_US_B16, "uint16", a.tobytes())
    assert got[:6].tolist() == [1, 1, 2, 2, 3, 3]
    got, _ = _load(R.LoadDist.DIST_DS_B16, "uint16", a.tobytes())
    assert got[:4].tolist() == [1, 3, 5, 7]
    got, _ = _load(R.LoadDist.DIST_UNPACK_B16, "uint16", a.tobytes())
    assert got.view(np.uint32)[:4].tolist() == [1, 2, 3, 4]
    got, _ = _load(R.LoadDist.DIST_E2B_B32, "uint32", np.arange(8, dtype=np.uint32).tobytes())
    assert got.reshape(8, 8).tolist() == [[k] * 8 for k in range(8)]


@pytest.mark.parametrize("compiled", [True, False])
def test_g4_dual_load_and_interleaved_store(compiled):
    core, _ = _setup()
    src = core.local_tensor("uint16", 256)
    src[:] = np.arange(256)
    r0, r1, back = (core.local_tensor("uint16", n) for n in (128, 128, 256))
    with core:
        _run(LOAD_DUAL, compiled, r0, r1, src, "uint16", 0, R.LoadDist.DIST_DINTLV_B16)
        _run(STORE_DUAL, compiled, back, r0, r1, "uint16", R.StoreDist.DIST_INTLV_B16)
    assert r0.numpy().tolist() == list(range(0, 256, 2)) and r1.numpy().tolist() == list(range(1, 256, 2))
    assert back.numpy().tolist() == list(range(256))


LOAD_CASES = [(dist, WIDTH_TYPES[ref.LOAD_DISTS[dist.name][0] or w])
              for dist in R.LoadDist if dist.name in ref.LOAD_DISTS for w in ((1, 2, 4, 8) if dist.name in (
                  "DIST_NORM", "DIST_BLK") else (0,)) if dist.name == "DIST_NORM" or w != 8]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(LOAD_CASES), st.integers(0, 2**32 - 1), st.booleans())
def test_loads_match_reference(case, seed, compiled):
    dist, T = case
    raw = np.random.default_rng(seed).integers(0, 256, 1024, dtype=np.uint8).tobytes()
    size = aj.dtypes.resolve(T).size
    got, new = _load(dist, T, raw, compiled, offset=32 // size, step=64 // size)
    assert got.tobytes() == ref.load(dist.name, raw, 32, size)
    assert new == 32 // size + 64 // size  # POST_MODE_UPDATE: the advanced offset


STORE_CASES = [(dist, WIDTH_TYPES[ref.STORE_DISTS[dist.name][0] or w])
               for dist in R.StoreDist if dist.name in ref.STORE_DISTS
               for w in ((1, 2, 4, 8) if dist.name == "DIST_NORM" else (0,))]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(STORE_CASES), st.integers(0, 2**32 - 1),
       st.lists(st.integers(0, 2**64 - 1), min_size=4, max_size=4), st.booleans())
def test_stores_match_reference(case, seed, words, compiled):
    dist, T = case
    core, src = _setup(256, T, seed)
    out = core.local_tensor("uint8", 512)
    out[:] = 0x5A
    mask = R.MaskReg(words)
    size = src.dtype.size
    with core:
        new = _run(STORE, compiled, out, src, T, mask, 32, dist, 32)  # out is uint8: offsets in bytes
    want = bytearray(b"\x5a" * 512)
    ref.store(dist.name, want, 32, _bytes(src), size, lambda i: R.jit_lane_on(mask.words, i))
    assert _bytes(out) == bytes(want)
    assert new == 64


def test_g4_pack_and_first_element():
    core = aj.Core("ascend950")
    src = core.local_tensor("int32", 64)
    src[:] = [0x11111111 * (k % 8 + 1) for k in range(64)]
    out = core.local_tensor("uint16", 128)
    out[:] = 0
    with core:
        STORE(out, src, "int32", R.CreateMask("int32"), 0, R.StoreDist.DIST_PACK_B32, 0)
    assert out.numpy()[:3].tolist() == [0x1111, 0x2222, 0x3333] and (out.numpy()[64:] == 0).all()
    out[:] = 0  # H-11: only lane 1 active -> only output position 1
    lane1 = R.MaskReg([0xF0, 0, 0, 0])
    with core:
        STORE(out, src, "int32", lane1, 0, R.StoreDist.DIST_PACK_B32, 0)
    assert out.numpy()[:3].tolist() == [0, 0x2222, 0] and (out.numpy()[3:] == 0).all()
    first = core.local_tensor("int32", 64)
    first[:] = -1
    with core:
        STORE(first, src, "int32", R.CreateMask("int32", R.MaskPattern.ALLF), 0,
              R.StoreDist.DIST_FIRST_ELEMENT_B32, 0)
    assert first.numpy()[0] == 0x11111111 and (first.numpy()[1:] == -1).all()


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["uint8", "uint16", "uint32"]), st.integers(0, 2**32 - 1), st.integers(0, 3),
       st.integers(0, 3), st.sampled_from(list(R.PostLiteral)), st.booleans(), st.booleans(),
       st.lists(st.integers(0, 2**64 - 1), min_size=4, max_size=4))
def test_data_block_copy_matches_reference(T, seed, block_stride, repeat_stride, post_mode, store, compiled, words):
    core, src = _setup(2048, T, seed)
    out = core.local_tensor(T, 2048 // src.dtype.size)
    out[:] = np.frombuffer(b"\x5a" * 2048, src.dtype.np_dtype)
    size, mask = src.dtype.size, R.MaskReg(words)
    with core:
        new = _run(BLOCKS, compiled, out, src, T, mask, 32 // size, block_stride, repeat_stride, post_mode, store)
    step = repeat_stride * 32
    addr = 32 + (0 if post_mode == R.PostLiteral.POST_MODE_UPDATE else step)
    active = lambda i: R.jit_lane_on(mask.words, i)  # noqa: E731
    if store:
        want = bytearray(b"\x5a" * 2048)
        ref.block_copy_store(want, addr, block_stride, _bytes(src), size, active)
        assert _bytes(out) == bytes(want)
    else:
        assert _bytes(out)[:256] == ref.block_copy_load(_bytes(src), addr, block_stride, size, active)
    # SPEC-2 11.6: POST_MODE_UPDATE returns offset + repeat_stride blocks; POST_MODE_NORMAL reads there but the
    # offset "is not updated" (it returned offset + step too)
    assert new == (32 + (step if post_mode == R.PostLiteral.POST_MODE_UPDATE else 0)) // size


def test_data_block_copy_skips_inactive_blocks_past_the_tensor():
    core = aj.Core("ascend950")
    src = core.local_tensor("uint16", 16)  # one DataBlock: blocks 1..7 lie outside
    src[:] = np.arange(16)
    out = core.local_tensor("uint16", 128)
    with core:
        BLOCKS(out, src, "uint16", R.CreateMask("uint16", R.MaskPattern.VL16), 0, 1, 0, R.PostLiteral.POST_MODE_NORMAL,
               False)  # the enum, as the property test passes it: the VF compiled once
        assert out.numpy()[:16].tolist() == list(range(16)) and (out.numpy()[16:] == 0).all()
        with pytest.raises(aj.OutOfBoundsError):
            BLOCKS(out, src, "uint16", R.CreateMask("uint16", R.MaskPattern.VL32), 0, 1, 0,
                   R.PostLiteral.POST_MODE_NORMAL, False)


# --- unaligned --------------------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 255), st.integers(0, 255), st.integers(0, 128), st.booleans())
def test_unaligned_load_store_round_trip(load_offset, store_offset, count, compiled):
    core, src = _setup(1024, "uint16", load_offset)
    out = core.local_tensor("uint16", 512)
    out[:] = 0x5A5A
    with core:
        assert _run(UNALIGNED, compiled, out, src, "uint16", load_offset, store_offset, count) == 256
    want = np.full(512, 0x5A5A, np.uint16)
    want[store_offset:store_offset + count] = src.numpy()[load_offset:load_offset + count]
    assert (out.numpy() == want).all()


def test_unaligned_state_refusals():
    core, src = _setup(1024, "uint16")
    reg, ul, us = R.RegTensor("uint16"), R.UnalignRegForLoad(), R.UnalignRegForStore()
    with core:
        R.LoadUnAlignPre(ul, src, 3)
        with pytest.raises(aj.StateError, match="LoadUnAlign"):
            R.LoadUnAlign(reg, ul, src, 5)
        assert R.LoadUnAlign(reg, ul, src, 3) == 3 + 128  # the expected address moves on by VL
        R.StoreUnAlign(src, reg, us, 1, 3)
        before = core.ub.copy()
        with pytest.raises(aj.StateError, match="StoreUnAlign"):
            R.StoreUnAlign(src, reg, us, 9, 3)  # not where the pending run ends
        assert np.array_equal(before, core.ub)
        R.Load(reg, src, 7)
        R.Store(src, reg, 300, 5)
    assert (src.numpy()[300:305] == src.numpy()[7:12]).all()


# --- MaskReg loads / stores and operations --------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(R.MaskDist.DIST_NORM, R.MaskDist.DIST_NORM), (R.MaskDist.DIST_US, R.MaskDist.DIST_NORM),
                        (R.MaskDist.DIST_DS, R.MaskDist.DIST_NORM), (R.MaskDist.DIST_NORM, R.MaskDist.DIST_PACK)]),
       st.integers(0, 2**32 - 1), st.booleans())
def test_mask_load_store_match_reference(dists, seed, compiled):
    core, src = _setup(256, "uint8", seed)
    out = core.local_tensor("uint8", 64)
    out[:] = 0x5A
    mask = R.MaskReg()
    with core:
        _run(MASK_IO, compiled, out, src, dists[0], dists[1], mask)
    bits = ref.mask_load(dists[0].name, _bytes(src), 0)
    assert mask.bits() == bits  # written in place (D63)
    written = ref.mask_store(dists[1].name, bits)
    assert _bytes(out) == written + b"\x5a" * (64 - len(written))


MASK_OPS_NAMES = ["and", "or", "xor", "not", "move", "select", "pack", "unpack", "interleave", "deinterleave"]


def _words(bits):
    return [(bits >> (64 * i)) & (2**64 - 1) for i in range(4)]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(range(10)), st.integers(0, 2**256 - 1), st.integers(0, 2**256 - 1),
       st.integers(0, 2**256 - 1), st.sampled_from(list(R.HighLowPart)), st.sampled_from(["uint8", "half", "float"]),
       st.booleans())
def test_mask_operations_match_reference(op, a, b, m, part, T, compiled):
    d0, d1 = R.MaskReg(_words(2**256 - 1)), R.MaskReg(_words(2**256 - 1))
    core = aj.Core("ascend950")
    with core:
        _run(MASK_OPS, compiled, d0, d1, R.MaskReg(_words(a)), R.MaskReg(_words(b)), R.MaskReg(_words(m)), op, part,
             T)
    name, g = MASK_OPS_NAMES[op], aj.dtypes.resolve(T).size
    if name in ("interleave", "deinterleave"):
        assert (d0.bits(), d1.bits()) == getattr(ref, name)(a, b, g)
    elif name in ("pack", "unpack"):
        assert d0.bits() == getattr(ref, name)(a, part == R.HighLowPart.HIGHEST)
    else:
        assert d0.bits() == ref.mask_logic(name, a, b, m)


def test_g5_mask_vectors():
    core = aj.Core("ascend950")
    dst, dst1 = R.MaskReg(), R.MaskReg()
    with core:
        R.Pack(dst, R.MaskReg([4, 0, 0, 0]))
        assert dst.bits() == 2
        R.UnPack(dst, R.MaskReg([2, 0, 0, 0]))
        assert dst.bits() == 4
        R.Interleave(dst, dst1, R.CreateMask("half"), R.MaskReg((0, 0, 0, 0)), "half")
        assert dst.bits() == dst1.bits() == int.from_bytes(b"\x33" * 32, "little")
        R.DeInterleave(dst, dst1, R.MaskReg(dst.words), R.MaskReg(dst1.words), "half")
        assert dst.bits() == 2**256 - 1 and dst1.bits() == 0
        core.SetVectorMask(0, 0b101, dtype="half")
        assert R.MoveMask("half").bits() == 0b110011
        assert R.MoveMask("float").bits() == 0xF0F
        core.SetMaskCount()
        with pytest.raises(aj.StateError, match="MoveMask"):
            R.MoveMask("half")


# --- refusals ---------------------------------------------------------------------------------------------------
def _unchanged(core, fn, error, match=None):
    before = core.ub.copy()
    with pytest.raises(error, match=match):
        fn()
    assert np.array_equal(before, core.ub)


@pytest.mark.parametrize("compiled", [True, False])
def test_load_store_refusals(compiled):
    core, src = _setup(1024, "uint16")
    out = core.local_tensor("uint16", 128)
    mask = R.CreateMask("uint16")
    with core:
        _unchanged(core, lambda: _run(LOAD, compiled, out, src, "uint16", 1, R.LoadDist.DIST_US_B16, None),
                   aj.AlignmentError, "32")
        _unchanged(core, lambda: _run(LOAD, compiled, out, src, "uint16", 0, R.LoadDist.DIST_US_B16, 3),
                   aj.AlignmentError, "post_update_stride")
        _unchanged(core, lambda: _run(LOAD, compiled, out, src, "uint16", 0, R.LoadDist.DIST_BRC_B32, None),
                   aj.UnsupportedDTypeError)
        _unchanged(core, lambda: _run(LOAD, compiled, out, src, "uint16", 384, R.LoadDist.DIST_DS_B16, None),
                   aj.OutOfBoundsError)  # 512 bytes from element 384 pass the 1024-byte tensor
        _unchanged(core, lambda: _run(STORE, compiled, out, src, "uint16", mask, 8, R.StoreDist.DIST_NORM, None),
                   aj.AlignmentError)
        _unchanged(core, lambda: _run(STORE, compiled, out, src, "uint16", mask, 64, R.StoreDist.DIST_NORM, None),
                   aj.OutOfBoundsError)
    a2 = aj.Core("atlas-a2")
    t = a2.local_tensor("uint16", 128)
    _unchanged(a2, lambda: _run(LOAD, compiled, t, t, "uint16", 0, 0, None), aj.UnsupportedDeviceError, "950")


@pytest.mark.ascend_sanitize(checks="race,init,blocks,sync", reason="loads past its tensor through the bounds=\"ub\" "
                             "escape hatch, which the memory check reports by design")
def test_bounds_ub_core_allows_a_load_past_the_tensor():
    core = aj.Core("ascend950", bounds="ub")
    small = core.local_tensor("uint16", 16)
    out = core.local_tensor("uint16", 128)
    small[:], out[:] = np.arange(16, dtype=np.uint16), np.zeros(128, np.uint16)
    with core:
        R.asc_vf_call(LOAD, out, small, "uint16", 0, R.LoadDist.DIST_NORM, None)  # only the UB limit applies
    assert (out.numpy()[:16] == small.numpy()).all()


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([1, 2, 4]), st.integers(0, 2**32 - 1), st.booleans())
def test_dual_load_and_store_match_reference(width, seed, compiled):
    T = WIDTH_TYPES[width]
    core, src = _setup(1024, T, seed)
    r0, r1 = (core.local_tensor(T, 256 // width) for _ in range(2))
    back = core.local_tensor(T, 512 // width)
    names = {1: "B8", 2: "B16", 4: "B32"}
    with core:
        _run(LOAD_DUAL, compiled, r0, r1, src, T, 32 // width, R.LoadDist[f"DIST_DINTLV_{names[width]}"])
        _run(STORE_DUAL, compiled, back, r0, r1, T, R.StoreDist[f"DIST_INTLV_{names[width]}"])
    want0, want1 = ref.load_dual(_bytes(src), 32, width)
    assert (_bytes(r0), _bytes(r1)) == (want0, want1)
    mem = bytearray(512)
    ref.store_dual(mem, 0, want0, want1, width)
    assert _bytes(back) == bytes(mem) == _bytes(src)[32:544]


# --- audit16r: cases from an independent model of SPEC-2 11.6 / 11.7 -----------------------------------------------
@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("store", [False, True])
def test_data_block_copy_misaligned_address_refused_with_no_active_lane(compiled, store):
    """SPEC-2 11.6: DATA_BLOCK_COPY's address is 32-B aligned whatever the mask (only the bounds check skips fully
    inactive blocks, D68); with an all-zero mask a misaligned address had been accepted."""
    core, src = _setup(2048, "uint16")
    out = core.local_tensor("uint16", 1024)
    with core:
        for post in R.PostLiteral:  # POST_MODE_NORMAL: the address is offset + repeat_stride blocks
            _unchanged(core, lambda: _run(BLOCKS, compiled, out, src, "uint16", R.MaskReg((0, 0, 0, 0)), 3, 1, 0,
                                          post, store),
                       aj.AlignmentError, "address")


def test_mask_reg_passed_twice_to_a_compiled_vf_is_one_register():
    """SPEC-2 11.1 (compiled and plain identical) and D63: a MaskReg given in two argument positions is one
    register; compiled, each position had its own copy and the write through dst was lost to the other copy's
    write-back (Move(d0, d0, m) left d0 unchanged). Both the first call and the planned later calls."""
    core = aj.Core("ascend950")
    m = R.MaskReg([0xF0F0, 0, 0, 2**63])
    for compiled in (True, True, False):
        d0, d1 = R.MaskReg([2**64 - 1] * 4), R.MaskReg([2**64 - 1] * 4)
        with core:
            _run(MASK_OPS, compiled, d0, d1, d0, d1, m, 4, R.HighLowPart.LOWEST, "uint8")  # Move(d0, d0, m)
        assert d0.words == m.words and d1.bits() == 2**256 - 1
    a, b = R.MaskReg(_words(0x0F)), R.MaskReg(_words(0x3C))
    with core:  # Interleave(a, b, a, b): the sources are read before either destination is written (D64)
        MASK_OPS(a, b, a, b, m, 8, R.HighLowPart.LOWEST, "uint8")
    assert (a.bits(), b.bits()) == ref.interleave(0x0F, 0x3C, 1)


def test_a_mask_reg_argument_keeps_what_the_vf_wrote_before_it_raised():
    """SPEC-2 11.1 (compiled and plain identical) and D63: a VF that loads a MaskReg argument and then makes a
    refused store leaves the loaded bits in the MaskReg, as plain Python's in-place write does; compiled, the words
    were written back only when the VF returned. The first (generic) call path and a planned later call."""
    core, src = _setup(256, "uint8", 3)
    bits = ref.mask_load("DIST_NORM", _bytes(src), 0)
    out, short = core.local_tensor("uint8", 32), core.local_tensor("uint8", 16)
    for compiled, runs_first in ((True, False), (True, True), (True, True), (False, False)):
        with core:
            if runs_first:  # a returning call first: the next one takes the plan it made (every argument plannable)
                _run(MASK_LOAD_STORE, compiled, out, src, R.MaskReg())
            mask = R.MaskReg()
            with pytest.raises(aj.AscendJitError):
                _run(MASK_LOAD_STORE, compiled, short, src, mask)
        assert mask.bits() == bits, compiled


@pytest.mark.parametrize("compiled", [True, False])
def test_deinterleave_b64_refusal_names_deinterleave(compiled):
    """SPEC-2 11.7 (b8/b16/b32 only) and 1.8 (a dtype outside the table: UnsupportedDTypeError, audit 45a): the
    refusal names the API called; compiled DeInterleave had named Interleave."""
    core = aj.Core("ascend950")
    regs = [R.MaskReg() for _ in range(5)]
    with core:
        with pytest.raises(aj.UnsupportedDTypeError, match="^DeInterleave: .*dtype"):
            _run(MASK_OPS, compiled, *regs, 9, R.HighLowPart.LOWEST, "int64")


def _load_block_with_step(reg, src, mask):
    return R.LoadAlign(reg, src, 0, data_block_stride=1, mask=mask, post_update_stride=16)


def _store_with_repeat_stride(out, reg, mask):
    return R.StoreAlign(out, reg, mask, 0, repeat_stride=1)


def _dual_store_int_mask(out, reg, mask):
    return R.StoreAlign(out, reg, reg, 0)  # the mask slot holds 0, not a MaskReg


OTHER_FORM_VFS = [R.simd_vf(f) for f in (_load_block_with_step, _store_with_repeat_stride, _dual_store_int_mask)]


def test_arguments_of_another_load_store_form_are_refused():
    """SPEC-2 11.6 / 1.8: an argument the chosen form does not take (a DATA_BLOCK_COPY mask= / repeat_stride= /
    post_mode= elsewhere, dist= / post_update_stride= on DATA_BLOCK_COPY) is a ParameterError naming it, compiled as
    plain; each had been ignored, so the call ran another form (an unmasked load; an offset that did not advance)."""
    core, src = _setup(2048, "uint16")
    reg, reg1, mask, m = R.RegTensor("uint16"), R.RegTensor("uint16"), R.CreateMask("uint16"), R.MaskReg()
    blk = dict(data_block_stride=1, mask=mask)
    calls = [("mask", lambda: R.LoadAlign(reg, src, 0, mask=mask)),
             ("repeat_stride", lambda: R.LoadAlign(reg, src, 0, repeat_stride=0)),
             ("post_mode", lambda: R.LoadAlign(reg, src, 0, post_mode=R.PostLiteral.POST_MODE_UPDATE)),
             ("dist", lambda: R.LoadAlign(reg, src, 0, dist=R.LoadDist.DIST_NORM, **blk)),
             ("post_update_stride", lambda: R.LoadAlign(reg, src, 0, post_update_stride=16, **blk)),
             ("data_block_stride", lambda: R.LoadAlign(reg, reg1, src, 0, data_block_stride=1)),
             ("mask", lambda: R.LoadAlign(m, src, 0, mask=mask)),
             ("repeat_stride", lambda: R.StoreAlign(src, reg, mask, 0, repeat_stride=1)),
             ("post_update_stride", lambda: R.StoreAlign(src, reg, 0, post_update_stride=16, **blk)),
             ("dist", lambda: R.StoreAlign(src, reg, 0, dist=R.StoreDist.DIST_NORM, **blk)),
             ("mask", lambda: R.StoreAlign(src, m, 0, mask=mask)),
             ("post_mode", lambda: R.StoreAlign(src, reg, reg1, mask, 0, post_mode=0))]
    with core:
        for name, call in calls:
            _unchanged(core, call, aj.ParameterError, f"parameter '{name}'.*form does not take it")
        for vf, args, match in zip(OTHER_FORM_VFS, ((reg, src, mask), (src, reg, mask), (src, reg, mask)),
                                   ("form does not take it",) * 2 + ("'mask' = 'int'",)):
            for compiled in (True, False):  # the dual store's mask operand: compiled code had not checked it
                _unchanged(core, lambda: _run(vf, compiled, *args), aj.ParameterError, match)
        # None is no argument (the DIST_NORM form takes it, decisions.md "Reg API"); the block form's defaults hold
        assert R.LoadAlign(reg, src, 32, repeat_stride=None, post_mode=None) == 32
        assert R.LoadAlign(reg, src, 0, data_block_stride=1, mask=mask) == 0


def _store_lanes(out, reg, count):
    R.Store(out, reg, 0, count)


def _load_brc(src, reg):
    R.LoadAlign(reg, src, 0, dist=R.LoadDist.DIST_BRC_B16)


def _load_any(src, reg):
    R.Load(reg, src, 0)


KIND_VFS = [R.simd_vf(f) for f in (_store_lanes, _load_brc, _load_any)]


@pytest.mark.parametrize("compiled", [True, False])
def test_loads_and_stores_refuse_other_register_kinds(compiled):
    """SPEC-2 11.1 (plain and compiled identical), 1.8: a MaskReg or unaligned register where a RegTensor is read or
    written is a ParameterError naming the call and `reg`. Compiled code had read or written their (shorter) arrays
    as a register's 256 bytes: Store(t, MaskReg) crashed the process, LoadAlign into an UnalignRegForLoad crashed,
    Load into a MaskReg overwrote memory past its four words; plain Store raised AttributeError. Store's count is
    Store's own argument: refused naming it (it named StoreUnAlign's post_update_stride)."""
    core, src = _setup(2048, "uint16")
    out = core.local_tensor("uint16", 256)
    store, load_brc, load_any = KIND_VFS
    with core:
        for other in (R.MaskReg(), R.UnalignRegForLoad(), R.UnalignRegForStore()):
            name = type(other).__name__
            _unchanged(core, lambda: _run(store, compiled, out, other, 3), aj.ParameterError,
                       f"^Store: parameter 'reg' = '{name}'")
            if name != "MaskReg":  # a MaskReg first is LoadAlign's MaskReg form
                _unchanged(core, lambda: _run(load_brc, compiled, src, other), aj.ParameterError,
                           f"^LoadAlign: parameter 'reg' = '{name}'")
            _unchanged(core, lambda: _run(load_any, compiled, src, other), aj.ParameterError,
                       f"^LoadUnAlign: parameter 'reg' = '{name}'")
        reg = R.RegTensor("uint16")
        for count in (129, -1):
            _unchanged(core, lambda: _run(store, compiled, out, reg, count), aj.ParameterError,
                       f"^Store: parameter 'count' = {count} ")
        _run(store, compiled, out, reg, 128)  # every lane is a legal count


def _mask_and_into(dst, m):
    R.And(dst, m, m, m)


def _mask_interleave_into(dst, m):
    R.Interleave(dst, m, m, m, "half")


def _mask_select_into(dst, m):
    R.Select(dst, m, m, m)


MASK_DST_VFS = [R.simd_vf(f) for f in (_mask_and_into, _mask_interleave_into, _mask_select_into)]


@pytest.mark.parametrize("compiled", [True, False])
def test_mask_operations_refuse_other_register_kinds_as_destinations(compiled):
    """SPEC-2 11.1, 11.7: a MaskReg operation's destination is a MaskReg (plain Python's ParameterError naming it).
    Compiled code had written the four words into an UnalignRegForLoad's one-word state (past its end: "free():
    invalid pointer") or an UnalignRegForStore's, and Interleave into a data register; Select with a data-register
    dst read MaskRegs' words as register bytes (an UnsupportedDTypeError of garbage kinds). Small VFs: a typing
    failure is not cached across processes."""
    core = aj.Core("ascend950")
    and_into, interleave_into, select_into = MASK_DST_VFS
    with core:
        for vf, name in ((and_into, "And"), (interleave_into, "Interleave"), (select_into, "Select")):
            for other in (R.UnalignRegForLoad(), R.UnalignRegForStore()):
                before = other.state.copy()
                with pytest.raises(aj.ParameterError, match=f"^{name}: parameter 'dst0?' = '{type(other).__name__}'"):
                    _run(vf, compiled, other, R.MaskReg((0, 0, 0, 0)))   # written: the refusal, not an init read
                assert np.array_equal(before, other.state)
        reg = R.RegTensor("half")
        with pytest.raises(aj.ParameterError, match="^Interleave: parameter 'dst0' = 'RegTensor'"):
            _run(interleave_into, compiled, reg, R.MaskReg())
        with pytest.raises(aj.ParameterError, match="^Select: parameter 'src0' = 'MaskReg'"):
            _run(select_into, compiled, reg, R.MaskReg())


def _unaligned_pre(src, ureg):
    R.LoadUnAlignPre(ureg, src, 0)


UREG_VF = R.simd_vf(_unaligned_pre)


@pytest.mark.parametrize("compiled", [True, False])
def test_unaligned_register_slot_refusal_names_the_type_given(compiled):
    """SPEC-2 1.8: the refusal names the value given; compiled code, telling the unaligned kinds apart by their
    state's size, had called a MaskReg or a data register in the ureg slot 'UnalignRegForStore'."""
    core, src = _setup(1024, "uint16")
    with core:
        for other in (R.MaskReg(), R.RegTensor("uint16"), R.UnalignRegForStore()):
            with pytest.raises(aj.ParameterError, match=f"^LoadUnAlignPre: parameter 'ureg' = '{type(other).__name__}'"):
                _run(UREG_VF, compiled, src, other)
