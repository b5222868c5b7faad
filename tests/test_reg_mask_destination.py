"""A MaskReg made by UpdateMask, CreateMask or MoveMask in a compiled VF as the destination of a later operation
(docs/decisions.md "Reg MaskRegs made in a VF"): kernel ports write `mask = CreateMask<T>(); LoadAlign(mask, ...)`,
`mask = UpdateMask<T>(count); MaskNot(mask, mask, ...)` and reuse a mask variable in a loop. Those VFs ran as plain
Python with an UncompiledVFWarning (their masks were word tuples, which nothing can write); they compile now and
write, over the whole UB, the bytes their plain runs write. A VF that only reads its masks keeps them tuples."""
import os
import textwrap
import warnings

import numpy as np
import pytest

import ascend_jit as aj

pytestmark = pytest.mark.ascend_sanitize(
    checks="", reason="compiled-VF behaviour against the plain run: a sanitizing core runs every VF plain")

R = aj.Reg
NO_JIT = os.environ.get("NUMBA_DISABLE_JIT") == "1"
MASK_BYTES = 32  # a MaskReg stored: VL / 8 bytes


def _loads(out, src, T, count):
    """LoadAlign into a CreateMask and an UpdateMask mask, one with post_update_stride."""
    m = R.CreateMask(T)
    R.LoadAlign(m, src, 0)
    R.StoreAlign(out, m, 0)
    u, count = R.UpdateMask(T, count)
    off = R.LoadAlign(u, src, MASK_BYTES, post_update_stride=MASK_BYTES)
    R.StoreAlign(out, u, MASK_BYTES)
    R.LoadAlign(m, src, off)
    R.StoreAlign(out, m, 2 * MASK_BYTES)


def _logic(out, src, T, count):
    """Not / And / Or / Xor / MaskSel / Select / Move into made masks, under the old names too."""
    every = R.CreateMask(T)
    m = R.CreateMask(T, R.MaskPattern.H)
    u, count = R.UpdateMask(T, count)
    R.MaskNot(m, m, every)
    R.StoreAlign(out, m, 0)
    R.MaskAnd(u, u, m, R.CreateMask(T, R.MaskPattern.VL32))
    R.StoreAlign(out, u, MASK_BYTES)
    v, count = R.UpdateMask(T, count)
    R.Or(v, v, m, every)
    R.StoreAlign(out, v, 2 * MASK_BYTES)
    R.Xor(m, m, v, every)
    R.StoreAlign(out, m, 3 * MASK_BYTES)
    R.MaskSel(m, u, v, R.CreateMask(T, R.MaskPattern.M3))
    R.StoreAlign(out, m, 4 * MASK_BYTES)
    R.Select(u, m, v, R.CreateMask(T, R.MaskPattern.Q))
    R.StoreAlign(out, u, 5 * MASK_BYTES)
    R.Not(u, u, every)
    R.StoreAlign(out, u, 6 * MASK_BYTES)
    R.Move(v, m)
    R.MaskMov(every, u, m)
    R.StoreAlign(out, v, 7 * MASK_BYTES)
    R.StoreAlign(out, every, 8 * MASK_BYTES)


def _pack_interleave(out, src, T, count):
    """Pack / UnPack / Interleave / DeInterleave into made masks."""
    m = R.CreateMask(T, R.MaskPattern.M4)
    u, count = R.UpdateMask(T, count)
    R.Pack(m, m)
    R.StoreAlign(out, m, 0)
    R.UnPack(u, u, R.HighLowPart.HIGHEST)
    R.StoreAlign(out, u, MASK_BYTES)
    d0, d1 = R.CreateMask(T), R.CreateMask(T, R.MaskPattern.VL16)
    R.Interleave(d0, d1, m, u, T)
    R.StoreAlign(out, d0, 2 * MASK_BYTES)
    R.StoreAlign(out, d1, 3 * MASK_BYTES)
    R.DeInterleave(m, u, d1, d0, T)
    R.StoreAlign(out, m, 4 * MASK_BYTES)
    R.StoreAlign(out, u, 5 * MASK_BYTES)


def _loops(out, src, T, count):
    """A MaskReg() variable assigned UpdateMask's mask in a loop and written there; a CreateMask mask loaded into
    in a loop, then assigned UpdateMask's."""
    m = R.MaskReg()
    for i in range(4):
        m, count = R.UpdateMask(T, count)
        R.MaskNot(m, m, R.CreateMask(T))
        R.StoreAlign(out, m, i * MASK_BYTES)
    c = R.CreateMask(T, R.MaskPattern.VL8)
    for i in range(3):
        R.StoreAlign(out, c, (4 + i) * MASK_BYTES)
        R.LoadAlign(c, src, i * MASK_BYTES)
        R.MaskAnd(c, c, m, R.CreateMask(T))
        c, count = R.UpdateMask(T, count + 7)
    R.StoreAlign(out, c, 7 * MASK_BYTES)


def _move_mask(out, src, T, count):
    """MoveMask's mask (the core's vector mask register) as a destination."""
    d = R.MoveMask(T)
    R.Not(d, d, R.CreateMask(T, R.MaskPattern.H))
    R.StoreAlign(out, d, 0)
    R.LoadAlign(d, src, 0)
    R.StoreAlign(out, d, MASK_BYTES)


def _carry(out, src, T, count):
    """Add's carry form writing its carry into a CreateMask mask (32-bit integers)."""
    carry = R.CreateMask(T)
    dst, a, b = R.RegTensor(T), R.RegTensor(T), R.RegTensor(T)
    R.LoadAlign(a, src, 0)
    R.LoadAlign(b, src, 256)
    R.Add(carry, dst, a, b, R.CreateMask(T))
    R.StoreAlign(out, carry, 0)


VFS = {f.__name__: (f, R.simd_vf(f)) for f in (_loads, _logic, _pack_interleave, _loops, _move_mask, _carry)}


def _ub_after(fn, dtype, count):
    """The whole UB after fn(out, src, dtype, count) on a fresh core: src 1024 random bytes, out zeros."""
    with aj.Core("ascend950") as core:
        core.SetVectorMask(0x0123456789ABCDEF, 0xF0E1D2C3B4A59687, dtype="half")
        src = core.local_tensor("uint8", 1024)
        out = core.local_tensor("uint8", 1024)
        src[:] = np.random.default_rng(7).integers(0, 256, 1024).astype(np.uint8)
        out[:] = np.zeros(1024, np.uint8)
        fn(out, src, dtype, count)
        return core.ub.tobytes(), out.numpy()


@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("name", ["_loads", "_logic", "_pack_interleave", "_loops", "_move_mask"])
def test_a_made_mask_as_destination_compiles_with_the_plain_runs_bytes(name, dtype):
    plain, vf = VFS[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled_ub, out = _ub_after(vf, dtype, 37)
    assert not [w for w in caught if issubclass(w.category, aj.UncompiledVFWarning)]
    plain_ub, _ = _ub_after(plain, dtype, 37)
    assert compiled_ub == plain_ub
    assert out.any()  # the VF wrote its masks


def test_the_carry_form_writes_a_made_mask_compiled():
    plain, vf = VFS["_carry"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled_ub, out = _ub_after(vf, "uint32", 0)
    assert not [w for w in caught if issubclass(w.category, aj.UncompiledVFWarning)]
    assert compiled_ub == _ub_after(plain, "uint32", 0)[0]
    assert out[:MASK_BYTES].any()


def test_a_made_mask_loaded_into_holds_the_loaded_bits():
    """The compiled LoadAlign writes the CreateMask mask itself (not a copy): its store gives the source bytes."""
    _, out = _ub_after(VFS["_loads"][1], "half", 37)
    src = np.random.default_rng(7).integers(0, 256, 1024).astype(np.uint8)
    assert out[:3 * MASK_BYTES].tolist() == src[:3 * MASK_BYTES].tolist()


_READS_ONLY = """
def vf(out, T, count):
    mask, count = R.UpdateMask(T, count)
    every = R.CreateMask(T)
    R.StoreAlign(out, mask, 0)
    R.StoreAlign(out, every, 32)
"""


@pytest.mark.skipif(NO_JIT, reason="with the JIT disabled every VF runs plain")
def test_a_vf_that_only_reads_its_masks_keeps_them_tuples():
    """The masks stay word tuples where nothing writes them (no allocation per UpdateMask: the VF loops' speed).
    The VF is exec'd, so it compiles in this process and keeps its type annotation."""
    namespace = {"R": R}
    exec(textwrap.dedent(_READS_ONLY), namespace)  # noqa: S102 (the test's own source)
    vf = R.simd_vf(namespace["vf"])
    with aj.Core("ascend950") as core:
        out = core.local_tensor("uint8", 64)
        vf(out, "half", 5)
    assert out.numpy()[:MASK_BYTES].tolist() == [255, 3] + [0] * 30  # 5 half lanes: 10 bits
    typemap = vf.compiled.overloads[vf.compiled.signatures[0]].type_annotation.typemap
    assert str(typemap["mask"]) == str(typemap["every"]) == "UniTuple(uint64 x 4)"
