"""Porting Ascend C VF code as written (README "The Ascend 950 Reg API", SPEC-2 11.1: a VF gives the same bits compiled
and as plain Python): `t[i]` inside a VF is the sub-tensor i elements in (Ascend C `xAddr + i * oneRepeatSize`, the
LocalTensor operator[] of docs/decisions.md "Indexing"), and `@R.simd_callee` helpers (`__simd_callee__`) run
compiled inside a compiled VF and as Python inside a plain one. Every test runs the VF both ways on fresh cores and
compares the whole UB byte for byte, the result, and any refusal's class and message."""
import os
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ascend_jit as aj
from ascend_jit.errors import AlignmentError, AscendJitError, OutOfBoundsError, ParameterError, StateError

pytestmark = pytest.mark.ascend_sanitize(
    checks="", reason="compiled-VF behaviour against the plain run: a sanitizing core runs every VF plain")

R = aj.Reg
NO_JIT = os.environ.get("NUMBA_DISABLE_JIT") == "1"


# --- t[i] inside a VF ------------------------------------------------------------------------------------------------
def _vf_tiles(dst, src, count, tile, T):
    """The devkit loop with the address in the tensor: LoadAlign(src[i * tile]) / StoreAlign(dst[i * tile])."""
    reg = R.RegTensor(T)
    for i in range((count + tile - 1) // tile):
        mask, count = R.UpdateMask(T, count)
        R.LoadAlign(reg, src[i * tile])
        R.Adds(reg, reg, 1, mask)
        R.StoreAlign(dst[i * tile], reg, mask)


def _vf_constants(dst, src):
    """Constant indices 0..5 (a tuple's item indices, were the tensor a tuple) and 64: each a sub-tensor."""
    reg = R.RegTensor("float")
    every = R.CreateMask("float")
    R.LoadAlign(reg, src[0])
    R.StoreAlign(dst[0], reg, every)
    R.LoadAlign(reg, src[1], 7)  # an unaligned sub-tensor, aligned again by the offset: 4 + 28 bytes
    R.StoreAlign(dst[64], reg, every)
    R.Load(reg, src[2])
    R.StoreAlign(dst[128], reg, every)
    R.Load(reg, src[3])
    R.Store(dst[195], reg)
    R.Load(reg, src[4], 1)
    R.Store(dst[260], reg, 0, 5)
    R.Load(reg, src[5])
    R.Store(dst[300], reg, 3, 2)
    R.LoadAlign(reg, src[64])
    R.StoreAlign(dst[320], reg, every)


def _vf_nested(dst, src, a, b):
    """t[a][b] is t[a + b] (an element count each time)."""
    reg = R.RegTensor("half")
    R.LoadAlign(reg, src[a][b])
    R.StoreAlign(dst[b][a], reg, R.CreateMask("half"))
    R.LoadAlign(reg, src[a][b][16])
    R.StoreAlign(dst[a][b][16], reg, R.CreateMask("half"), 128)


def _vf_index(dst, src, k, T):
    """One load and store at sub-tensors k in (any k: the refusals)."""
    reg = R.RegTensor(T)
    R.LoadAlign(reg, src[k])
    R.StoreAlign(dst[k], reg, R.CreateMask(T))


def _vf_unaligned(dst, src, k, count):
    """LoadUnAlign / StoreUnAlign through sub-tensors, which keep their ureg addresses in the UB's bytes."""
    reg, ul, us = R.RegTensor("half"), R.UnalignRegForLoad(), R.UnalignRegForStore()
    R.LoadUnAlignPre(ul, src[k])
    R.LoadUnAlign(reg, ul, src[k])
    off = R.StoreUnAlign(dst[k], reg, us, 0, count)
    R.StoreUnAlignPost(dst[k], us, off)


def _vf_forms(dst, src, mask_out, k):
    """The other load/store forms on sub-tensors: dual, DATA_BLOCK_COPY, MaskReg, a dist."""
    r0, r1, m = R.RegTensor("half"), R.RegTensor("half"), R.MaskReg()
    every = R.CreateMask("half")
    R.LoadAlign(r0, r1, src[k])
    R.StoreAlign(dst[k], r1, r0, every)
    R.LoadAlign(r0, src[k], 0, data_block_stride=2, mask=every)
    R.StoreAlign(dst[k][256], r0, 0, data_block_stride=1, mask=every)
    R.LoadAlign(m, src[k])
    R.StoreAlign(mask_out[k], m)
    R.LoadAlign(r0, src[k], dist=R.LoadDist.DIST_BRC_B16)
    R.StoreAlign(dst[k][384], r0, every, dist=R.StoreDist.DIST_NORM_B16)


def _vf_sizes(dst, src, a, b):
    """len(t), t.GetSize(), t.GetLength() (bytes) and t.GetPhyAddr([offset]) of tensors and sub-tensors."""
    return (len(src) * 1000000 + src[a].GetSize() * 1000 + len(dst[a][b]), src.GetLength(), dst[a][b].GetLength(),
            src.GetPhyAddr(), src[a].GetPhyAddr(), dst[a].GetPhyAddr(b), src.GetPhyAddr(np.int32(b)))


def _vf_slice(dst, src, a, b):
    reg = R.RegTensor("half")
    R.LoadAlign(reg, src[a:b])
    R.StoreAlign(dst, reg, R.CreateMask("half"))


TILES, CONSTANTS, NESTED, INDEX, UNALIGNED, FORMS, SIZES, SLICE = (R.simd_vf(f) for f in (
    _vf_tiles, _vf_constants, _vf_nested, _vf_index, _vf_unaligned, _vf_forms, _vf_sizes, _vf_slice))


def _outcome(vf, compiled, make, bounds="tensor", seed=0):
    """(UB bytes after the call, the result or the refusal's (class, message), whether the UB is unchanged) of vf
    on a fresh core whose UB is random; make(core) -> the VF's arguments."""
    core = aj.Core("ascend950", bounds=bounds)
    core.ub[:] = np.random.default_rng(seed).integers(0, 256, core.ub.size, dtype=np.uint8)
    args = make(core)
    before = core.ub.copy()
    try:
        with core:
            result = (vf if compiled else vf.py_func)(*args)
    except AscendJitError as e:
        result = (type(e), str(e))
    return core.ub.copy(), result, (core.ub == before).all()


def _same_both_ways(vf, make, bounds="tensor", seed=0):
    """The outcome compiled (== plain, UB byte for byte): (UB, result, UB unchanged)."""
    compiled = _outcome(vf, True, make, bounds, seed)
    plain = _outcome(vf, False, make, bounds, seed)
    assert compiled[1:] == plain[1:]
    assert compiled[0].tobytes() == plain[0].tobytes()
    return compiled


def _pair(dtype, n, dst_addr=0, src_addr=65536):
    return lambda core: (core.local_tensor(dtype, n, addr=dst_addr), core.local_tensor(dtype, n, addr=src_addr))


@pytest.mark.parametrize("bounds", ["tensor", "ub"])
@pytest.mark.parametrize("T, count, tile", [("half", 8320, 128), ("float", 1000, 64), ("int16", 300, 128),
                                            ("uint8", 1000, 256)])
def test_loops_over_sub_tensors(T, count, tile, bounds):
    ub, _, _ = _same_both_ways(TILES, lambda core: (*_pair(T, count)(core), count, tile, T), bounds)
    if T == "uint8" and bounds == "ub":  # each element + 1 (wrapping), no byte past the count (on a bounds="tensor"
        # core the last whole-vector load runs past the tensor: refused there, after the tiles before it)
        src = np.random.default_rng(0).integers(0, 256, ub.size, dtype=np.uint8)
        assert (ub[:count] == src[65536:65536 + count] + np.uint8(1)).all()
        assert (ub[count:1024] == src[count:1024]).all()


def test_constant_indices_are_sub_tensors_not_tuple_items():
    ub, _, _ = _same_both_ways(CONSTANTS, _pair("float", 512))
    src = np.random.default_rng(0).integers(0, 256, 262144, dtype=np.uint8)[65536:]
    assert ub[:256].tobytes() == src[:256].tobytes()           # src[0]
    assert ub[256:512].tobytes() == src[32:288].tobytes()      # src[1], offset 7: byte 4 + 28
    assert ub[1280:1536].tobytes() == src[256:512].tobytes()   # src[64] to dst[320]


@pytest.mark.parametrize("a, b", [(0, 0), (16, 48), (64, 0), (3, 13), (100, 0)])
def test_nested_indexing(a, b):
    _same_both_ways(NESTED, lambda core: (*_pair("half", 512)(core), a, b))


@pytest.mark.parametrize("bounds", ["tensor", "ub"])
@pytest.mark.parametrize("k", [0, 128, 383, 384, 400, 496, 511, 512, 513, -1, -128, 2**31, 2**63 - 1])
def test_offsets_up_to_and_past_the_tensors_end(k, bounds):
    """A sub-tensor whose 256 bytes run past the tensor is the loads' OutOfBoundsError on a bounds="tensor" core and
    legal inside the UB on a bounds="ub" one; one not 32-byte aligned their AlignmentError; an index at or past
    GetSize() (or negative) is LocalTensor[]'s OutOfBoundsError."""
    _, result, unchanged = _same_both_ways(INDEX, lambda core: (*_pair("half", 512)(core), k, "half"), bounds)
    if not 0 <= k < 512:
        assert result[0] is OutOfBoundsError and "LocalTensor[]" in result[1] and unchanged
    elif k % 16:
        assert result[0] is AlignmentError and unchanged
    elif k > 384 and bounds == "tensor":
        assert result[0] is OutOfBoundsError and "LoadAlign" in result[1] and unchanged
    else:
        assert result is None


@pytest.mark.parametrize("k", [2.5, True, False, 1.0, -0.0])
def test_an_index_that_is_no_integer_is_refused(k):
    _, result, unchanged = _same_both_ways(INDEX, lambda core: (*_pair("half", 512)(core), k, "half"))
    assert result[0] is ParameterError and "LocalTensor[]: parameter 'index'" in result[1] and unchanged


def test_an_empty_or_one_element_sub_tensor():
    """t[size - 1] has one element, so t[size - 1][1] is refused; a tensor of 0 elements refuses t[0]."""
    def make(core):
        return core.local_tensor("half", 0, addr=0), core.local_tensor("half", 0, addr=512), 0, "half"
    _, result, unchanged = _same_both_ways(INDEX, make)
    assert result[0] is OutOfBoundsError and unchanged
    _, result, unchanged = _same_both_ways(NESTED, lambda core: (*_pair("half", 512)(core), 511, 1))
    assert result[0] is OutOfBoundsError and "[0, 1)" in result[1] and unchanged


@pytest.mark.parametrize("k, count", [(0, 128), (5, 100), (37, 3), (200, 128)])
def test_unaligned_forms_on_sub_tensors(k, count):
    _same_both_ways(UNALIGNED, lambda core: (*_pair("half", 512)(core), k, count))


@pytest.mark.parametrize("k", [0, 16, 17, 64])
def test_other_load_store_forms_on_sub_tensors(k):
    def make(core):
        return (core.local_tensor("half", 1024, addr=0), core.local_tensor("half", 1024, addr=65536),
                core.local_tensor("half", 1024, addr=131072), k)
    _same_both_ways(FORMS, make)


@pytest.mark.parametrize("bounds", ["tensor", "ub"])
def test_sub_tensor_of_a_sub_tensor_argument(bounds):
    """A VF given a sub-tensor (a LocalTensor made by t[i] outside the VF) indexes it from its own start."""
    def make(core):
        dst, src = _pair("half", 2048)(core)
        return dst[256], src[128][64], 700, 128, "half"
    _same_both_ways(TILES, make, bounds)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(0, 600), k=st.integers(-4, 700), src_addr=st.integers(0, 4096).map(lambda a: 65536 + 2 * a),
       bounds=st.sampled_from(["tensor", "ub"]), seed=st.integers(0, 3))
def test_index_property(n, k, src_addr, bounds, seed):
    _same_both_ways(INDEX, lambda core: (*_pair("half", n, 0, src_addr)(core), k, "half"), bounds, seed)


@pytest.mark.parametrize("a, b", [(0, 0), (16, 400), (511, 0), (100, 411)])
def test_len_and_get_size(a, b):
    _, result, _ = _same_both_ways(SIZES, lambda core: (*_pair("half", 512)(core), a, b))
    assert result == (512 * 1000000 + (512 - a) * 1000 + 512 - a - b, 1024, 2 * (512 - a - b),
                      65536, 65536 + 2 * a, 2 * (a + b), 65536 + 2 * b)


@pytest.mark.skipif(NO_JIT, reason="nothing is compiled without the JIT")
def test_a_slice_in_a_vf_runs_plain():
    """t[a:b] is not compiled (its refusals name the tensor, which a handle does not carry): the VF runs plain, with
    one UncompiledVFWarning for its argument types, so slices behave as LocalTensor's (decisions.md "Indexing")."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", aj.UncompiledVFWarning)
        for a, b in ((0, 128), (16, 400), (-16, 512), (128, 600)):
            plain = _outcome(SLICE, False, lambda core: (*_pair("half", 512)(core), a, b))
            compiled = _outcome(SLICE, True, lambda core: (*_pair("half", 512)(core), a, b))
            assert compiled[1:] == plain[1:] and compiled[0].tobytes() == plain[0].tobytes()
    assert [w.category for w in caught] == [aj.UncompiledVFWarning] and "getitem" in str(caught[0].message)


@pytest.mark.skipif(NO_JIT, reason="nothing is compiled without the JIT")
def test_kernels_take_the_plain_handle():
    """A VF's handles (TensorHandle) reach the kernels as the plain handle tuple a plain Reg call passes, so a VF
    compiles no kernel again for them."""
    from numba.core.dispatcher import Dispatcher

    from ascend_jit.jit import reg as impl
    from ascend_jit.jit import reg_move
    _same_both_ways(FORMS, lambda core: (core.local_tensor("half", 1024, addr=0),
                                         core.local_tensor("half", 1024, addr=65536),
                                         core.local_tensor("half", 1024, addr=131072), 16))
    _same_both_ways(UNALIGNED, lambda core: (*_pair("half", 512)(core), 5, 7))
    kernels = [v for v in vars(reg_move).values() if isinstance(v, Dispatcher) and v.signatures]
    assert len(kernels) >= 8
    for kernel in kernels:
        for sig in kernel.signatures:
            assert not any(isinstance(t, impl.TensorHandle) for t in sig), kernel.py_func.__name__
    assert any(impl.HANDLE in sig for sig in reg_move.load_blocks.signatures)


@pytest.mark.parametrize("compiled", [True, False])
def test_set_size_changes_the_extent_a_vf_sees(compiled):
    """t.SetSize(n) after a Reg call used t: the next call sees n elements (the memoised handle is dropped)."""
    core = aj.Core("ascend950")
    dst, src = _pair("half", 512)(core)
    with core:
        (INDEX if compiled else INDEX.py_func)(dst, src, 128, "half")
        src.SetSize(200)
        with pytest.raises(OutOfBoundsError, match="LoadAlign"):   # 128 + 128 halves > 200
            (INDEX if compiled else INDEX.py_func)(dst, src, 128, "half")
        with pytest.raises(OutOfBoundsError, match=r"\[0, 200\)"):
            (INDEX if compiled else INDEX.py_func)(dst, src, 200, "half")


# --- simd_callee -----------------------------------------------------------------------------------------------------
@R.simd_callee
def _scaled_tile(dst, src, mask, factor):
    """A callee on sub-tensors, returning a value."""
    reg = R.RegTensor("half")
    R.LoadAlign(reg, src)
    R.Muls(reg, reg, factor, mask)
    R.StoreAlign(dst, reg, mask)
    return factor * 2


@R.simd_callee
def _all_tiles(dst, src, count, factor=0.5):
    """A callee calling a callee, with a default argument."""
    total = 0.0
    for i in range((count + 127) // 128):
        mask, count = R.UpdateMask("half", count)
        total += _scaled_tile(dst[i * 128], src[i * 128], mask, factor)
    return total


def _vf_callees(dst, src, count):
    first = _all_tiles(dst, src, count)
    return first + _all_tiles(dst[1024], src[1024], count, factor=0.25)


@R.simd_callee
def _tile_of(t, i):
    """A callee returning a sub-tensor to its VF."""
    return t[i * 128]


def _vf_kept(dst, src, repeats):
    """Sub-tensors kept in variables across a loop, and made by a callee."""
    reg = R.RegTensor("half")
    every = R.CreateMask("half")
    first, last = src[0], dst[(repeats - 1) * 128]
    for i in range(repeats):
        R.LoadAlign(reg, first)
        R.StoreAlign(_tile_of(dst, i), reg, every)
        R.LoadAlign(reg, _tile_of(src, i))
        R.StoreAlign(last, reg, every)
    return len(last)


@R.simd_callee
def _leave_pending(dst, count):
    """Makes an UnalignRegForStore and leaves bytes in it (SPEC-2 11.6, D68: refused when the VF returns)."""
    reg, us = R.RegTensor("half"), R.UnalignRegForStore()
    R.Duplicate(reg, 1.0)
    R.StoreUnAlign(dst, reg, us, 0, count)


def _vf_pending(dst, count):
    _leave_pending(dst, count)


@R.simd_callee
def _mask_words(out):
    R.StoreAlign(out, R.MoveMask("half"))


def _vf_move_mask(out):
    _mask_words(out)


CALLEES, PENDING, MOVE_MASK, KEPT = (R.simd_vf(f) for f in (_vf_callees, _vf_pending, _vf_move_mask, _vf_kept))


def test_simd_callee_returns_the_function_itself():
    assert _scaled_tile.__name__ == "_scaled_tile" and R.simd_callee(_scaled_tile) is _scaled_tile
    assert _all_tiles.__defaults__ == (0.5,)
    with pytest.raises(ParameterError, match="simd_callee"):
        R.simd_callee(len)


@pytest.mark.parametrize("count", [1, 128, 300, 1000])
def test_callees_compiled_and_plain(count):
    ub, result, _ = _same_both_ways(CALLEES, lambda core: (*_pair("half", 2048)(core), count))
    assert result == 1.0 * ((count + 127) // 128) + 0.5 * ((count + 127) // 128)


def test_sub_tensors_kept_and_returned_by_callees():
    """Sub-tensors hold no reference of their own to the UB (jit/reg.py _narrow): the UB array's reference count is
    the same after many calls, and the bytes are the plain run's."""
    _same_both_ways(KEPT, lambda core: (*_pair("half", 1024)(core), 8))
    core = aj.Core("ascend950")
    dst, src = _pair("half", 1024)(core)
    with core:
        KEPT(dst, src, 8)
        before = sys.getrefcount(core.ub)
        for _ in range(2000):
            KEPT(dst, src, 8)
        after = sys.getrefcount(core.ub)  # not inside the assert: pytest's rewriting holds a reference there
    assert after == before


def test_a_callee_leaving_an_unaligned_store_pending_is_refused_both_ways():
    """simd_vf finds UnalignRegForStore in the VF's callees as in its own body (the messages differ as they do for
    a VF's own: compiled code counts the registers left pending, plain Python names each one's bytes)."""
    outcomes = [_outcome(PENDING, compiled, lambda core: (core.local_tensor("half", 256, addr=0), 5))
                for compiled in (True, False)]
    assert [o[1][0] for o in outcomes] == [StateError, StateError]
    assert all("UnalignRegForStore" in o[1][1] for o in outcomes)
    assert outcomes[0][0].tobytes() == outcomes[1][0].tobytes()


def test_a_callee_calling_move_mask():
    def make(core):
        core.SetVectorMask(0x5555, 0xF0)
        return (core.local_tensor("uint8", 64, addr=0),)
    ub, result, _ = _same_both_ways(MOVE_MASK, make)
    assert result is None


def _ceil_div(a, b):
    return (a + b - 1) // b


def _vf_calling_a_plain_helper(dst, src, n):
    reg = R.RegTensor("float")
    for i in range(_ceil_div(n, 64)):
        mask, n = R.UpdateMask("float", n)
        R.LoadAlign(reg, src, i * 64)
        R.StoreAlign(dst, reg, mask, i * 64)


PLAIN_HELPER = R.simd_vf(_vf_calling_a_plain_helper)


def test_a_plain_helper_function_in_a_vf_names_simd_callee():
    """Port 58e: a VF calling an undecorated Python function runs plain (the same bytes), and the warning says what
    compiles: @aj.Reg.simd_callee, or the package's own CeilDivision / DivCeil / AlignUp."""
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("float", 128), core.local_tensor("float", 128)
    src[:] = np.arange(128, dtype=np.float32)
    with core, pytest.warns(aj.UncompiledVFWarning, match=r"_ceil_div.*@aj\.Reg\.simd_callee.*aj\.CeilDivision"):
        PLAIN_HELPER(dst, src, 100)
    assert np.array_equal(dst.numpy()[:100], np.arange(100, dtype=np.float32))
