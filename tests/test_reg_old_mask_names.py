"""The devkit's earlier MaskReg names (docs/decisions.md "Reg MaskReg names"): asc-devkit 7e76732e7
impl/micro_api/kernel_micro_maskreg_intf_impl.h defines MaskNot, MaskAnd, MaskOr, MaskXor, MaskMov, MaskSel, MaskPack,
MaskUnPack, MaskInterleave and MaskDeInterleave beside Not, And, Or, Xor, Move, Select, Pack, UnPack, Interleave and
DeInterleave, each calling the same Mask*Impl; ops-math DropOutV3Grad (MaskUnPack) and PadV3 (MaskNot) call them.
Compiled and plain, each old name gives the new name's bits; MaskSel takes MaskRegs only."""
import numpy as np
import pytest

import ascend_jit as aj

R = aj.Reg
HIGHEST = R.HighLowPart.HIGHEST


def _old(a, b, m, out):
    """Every old name once, in place where the originals use it so (MaskUnPack(x, x))."""
    d = [R.MaskReg() for _ in range(10)]
    R.MaskNot(d[0], a, m)
    R.MaskAnd(d[1], a, b, m)
    R.MaskOr(d[2], a, b, m)
    R.MaskXor(d[3], a, b, m)
    R.MaskMov(d[4], a, m)
    R.MaskSel(d[5], a, b, m)
    R.MaskPack(d[6], a)
    R.MaskUnPack(d[7], a, HIGHEST)
    R.MaskMov(d[8], b)
    R.MaskUnPack(d[8], d[8])
    R.MaskInterleave(d[9], d[4], a, b, "half")
    for i in range(10):
        R.StoreAlign(out, d[i], i * 16)


def _new(a, b, m, out):
    d = [R.MaskReg() for _ in range(10)]
    R.Not(d[0], a, m)
    R.And(d[1], a, b, m)
    R.Or(d[2], a, b, m)
    R.Xor(d[3], a, b, m)
    R.Move(d[4], a, m)
    R.Select(d[5], a, b, m)
    R.Pack(d[6], a)
    R.UnPack(d[7], a, HIGHEST)
    R.Move(d[8], b)
    R.UnPack(d[8], d[8])
    R.Interleave(d[9], d[4], a, b, "half")
    for i in range(10):
        R.StoreAlign(out, d[i], i * 16)


OLD_VF = R.simd_vf(_old)


@pytest.mark.parametrize("compiled", [True, False])
def test_old_mask_names_are_the_new_ones(compiled):
    rng = np.random.default_rng(3)
    words = [tuple(int(w) for w in rng.integers(0, 2**63, 4, dtype=np.uint64) * 2 + 1) for _ in range(3)]
    results = []
    for fn in (OLD_VF if compiled else _old, _new):
        core = aj.Core("ascend950")
        out = core.local_tensor("uint16", 160)
        with core:
            fn(R.MaskReg(words[0]), R.MaskReg(words[1]), R.MaskReg(words[2]), out)
        results.append(out.numpy())
    assert results[0].tolist() == results[1].tolist()
    # MaskDeInterleave undoes MaskInterleave
    core = aj.Core("ascend950")
    with core:
        lo, hi, back0, back1 = R.MaskReg(), R.MaskReg(), R.MaskReg(), R.MaskReg()
        R.MaskInterleave(lo, hi, R.MaskReg(words[0]), R.MaskReg(words[1]), "float")
        R.MaskDeInterleave(back0, back1, lo, hi, "float")
    assert (back0.bits(), back1.bits()) == (R.MaskReg(words[0]).bits(), R.MaskReg(words[1]).bits())


def test_mask_sel_takes_mask_registers_only():
    """Select also selects data-register lanes; its MaskReg-only old name refuses a RegTensor and writes nothing."""
    core = aj.Core("ascend950")
    with core:
        dst = R.RegTensor("float")
        before = dst.numpy().copy()
        with pytest.raises(aj.ParameterError, match="MaskSel"):
            R.MaskSel(dst, R.RegTensor("float"), R.RegTensor("float"), R.CreateMask("float"))
        assert dst.numpy().tobytes() == before.tobytes()
        with pytest.raises(aj.ParameterError, match="Not"):
            R.MaskNot(dst, R.RegTensor("float"), R.CreateMask("float"))


def _sel_on_registers(dst, a, b, m):
    R.MaskSel(dst, a, b, m)


def test_mask_sel_on_registers_is_refused_in_a_compiled_vf_too():
    core = aj.Core("ascend950")
    with core:
        with pytest.raises(aj.ParameterError, match="MaskSel"):
            R.simd_vf(_sel_on_registers)(R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float"),
                                         R.CreateMask("float"))
