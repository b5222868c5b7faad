"""Texts the session-68 ports asked for (docs/decisions.md "What the session-68 ports found"): what to write
instead of an end pointer in a VF, of a sub-tensor past its tensor, and what aj.Power's three instructions give."""
import numpy as np
import pytest

import ascend_jit as aj

R = aj.Reg


def _tail_slice(dst, x, n, reps):
    """port68a: ops-nn reduce_common_regbase.h's `x.GetPhyAddr() + powerSplit`, never read when reps is 0."""
    tail = x[n:]
    r = R.RegTensor("float")
    for i in range(reps):
        R.LoadAlign(r, tail[i * 64])
        R.StoreAlign(dst[i * 64], r, R.CreateMask("float"))


@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_an_end_pointer_in_a_vf_says_what_compiles():
    vf = R.simd_vf(_tail_slice)
    with aj.Core("ascend950") as core:
        x, dst = core.local_tensor("float", 128), core.local_tensor("float", 64)
        x[:] = np.arange(128, dtype=np.float32)
        with pytest.raises(aj.OutOfBoundsError, match=r"slice \[128:\].*in a @Reg\.simd_vf VF, where a slice runs "
                                                      r"the VF uncompiled, pass the tensor and the offset"):
            x[128]
        with pytest.warns(aj.UncompiledVFWarning, match=r"slice<a:b>\); a slice t\[a:b\] of a tensor does not "
                                                        r"compile in a VF .* pass the tensor and an integer offset"):
            vf(dst, x, 64, 1)
        assert dst.numpy().tolist() == list(range(64, 128))


def test_a_sub_tensor_past_the_end_says_what_to_write():
    """port68d: MaskedScatter's rows at a padded stride past a buffer sized for packed rows; port68h2: a negative
    offset."""
    with aj.Core("atlas-a2", bounds="ub") as core:
        t = core.local_tensor("float", 64)
        with pytest.raises(aj.OutOfBoundsError, match=r"'index' = 80 a sub-tensor starting past the tensor's end .*"
                                                      r"size the InitBuffer / TBuf for it.*aj\.LocalTensor\(position, "
                                                      r"t\.GetPhyAddr\(i\), n, dtype=\.\.\.\)"):
            t[80]
        with pytest.raises(aj.OutOfBoundsError, match=r"'index' = -48 Ascend C offsets are unsigned: a negative one "
                                                      r"addresses the UB bytes before the tensor"):
            t[-48]   # port68h2: UpsampleNearestExact2dGrad's (batch - n) for (n - batch)
        g = aj.GlobalTensor()
        g.SetGlobalBuffer(np.zeros(64, np.float32))
        with pytest.raises(aj.OutOfBoundsError) as refused:
            g[80]
        assert "LocalTensor(position" not in str(refused.value)
        # port68m3: a window the kernel indexes at its end says the device does not check it
        with pytest.raises(aj.OutOfBoundsError, match=r"the device does not check the window, and a kernel that "
                                                      r"reaches past it on purpose widens it"):
            g[64]


def test_power_says_which_devices_the_three_instructions_match():
    """port68c: on the A2 / A3, Ln, Muls and Exp are the devkit's CommonPowerF for a positive base (its value path is
    Abs, Ln, Mul by the Duplicate'd exponent, Exp): the same bits, checked here against that path."""
    with pytest.raises(aj.NotOfferedError, match=r"Exp of float give base \*\* exponent: on the A2 / A3 the bits "
                                                 r"of the devkit's CommonPowerF for such a base .* for half it Casts "
                                                 r"to float .* on the 950 not those of its power_3510_impl\.h"):
        aj.Power
    base = np.exp(np.random.default_rng(68).uniform(-20, 5, 64)).astype(np.float32)
    with aj.Core("atlas-a2") as core:
        x, e, path, three = (core.local_tensor("float", 64) for _ in range(4))
        x[:] = base
        aj.Abs(path, x, 64)   # the devkit's value path
        aj.PipeBarrier(aj.PIPE_V)
        aj.Ln(path, path, 64)
        aj.Duplicate(e, np.float32(2.5), 64)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Mul(path, path, e, 64)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Exp(path, path, 64)
        aj.Ln(three, x, 64)   # the refusal's three
        aj.PipeBarrier(aj.PIPE_V)
        aj.Muls(three, three, np.float32(2.5), 64)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Exp(three, three, 64)
        assert np.array_equal(path.numpy().view(np.uint32), three.numpy().view(np.uint32))


def test_unpack_of_a_computed_register_says_how_to_store_and_load_it():
    """port68f2: SoftmaxCrossEntropyWithLogits UnPacks a row maximum computed in registers: no UB address to load."""
    with aj.Core("ascend950"):
        with pytest.raises(aj.ParameterError, match=r"UnPack of data registers is not offered .* a register the VF "
                                                    r"computed is first stored \(StoreAlign to a scratch tensor, then "
                                                    r"Reg\.LocalMemBar\(MemType\.VEC_STORE, MemType\.VEC_LOAD\)\)"):
            R.UnPack(R.RegTensor("int32"), R.RegTensor("half"), R.HighLowPart.LOWEST)


@pytest.mark.parametrize("device", ["ascend950", "atlas-a2"])
def test_a_data_copy_pad_refusal_comes_alone(device):
    """port68e2: a refused DataCopyPad shape is validated again with the GM size inside the first refusal's except
    block, so Python printed two tracebacks joined by "During handling of the above exception"."""
    with aj.Core(device) as core:
        ub = core.local_tensor("float", 64)
        g = aj.GlobalTensor("float")
        g.SetGlobalBuffer(np.zeros(64, np.float32))
        for dst, params in ((ub[3], aj.DataCopyExtParams(1, 16, 0, 0, 0)), (ub, aj.DataCopyExtParams(1, 512, 0, 0, 0))):
            with pytest.raises((aj.AlignmentError, aj.OutOfBoundsError)) as refused:
                aj.DataCopyPad(dst, g, params, aj.DataCopyPadExtParams(False, 0, 0, 0))
            assert refused.value.__context__ is None and refused.value.__cause__ is None


def _accumulate(x, v_to_mte2):
    """port68h2 (ops-cv UpsampleNearest2dGrad's float loop): Add into d, V_MTE2, a copy-in through a VECIN queue,
    Add into d again: the same-pipe RAW on d is ordered by the chain V -> MTE2 -> (EnQue/DeQue) -> V."""
    g = aj.GlobalTensor("float")
    g.SetGlobalBuffer(x, 128)
    pipe = aj.TPipe()
    q, o = aj.TQue(aj.TPosition.VECIN, 1), aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(q, 1, 512)
    pipe.InitBuffer(o, 1, 512)
    d = o.AllocTensor("float")
    aj.Duplicate(d, np.float32(0), 128)
    aj.PipeBarrier(aj.PIPE_V)
    for _ in range(2):
        s = q.AllocTensor("float")
        aj.DataCopy(s, g, 128)
        q.EnQue(s)
        s = q.DeQue("float")
        aj.Add(d, d, s, 128)
        if v_to_mte2:
            aj.SetFlag(0, event=aj.HardEvent.V_MTE2)
            aj.WaitFlag(0, event=aj.HardEvent.V_MTE2)
        q.FreeTensor(s)
    o.FreeTensor(d)


@pytest.mark.parametrize("v_to_mte2", [True, False])
def test_strict_orders_a_vector_pipe_through_a_queue_chain(v_to_mte2):
    with aj.sanitize_session("report,strict") as session:
        aj.launch(_accumulate, 1, "atlas-a2", np.ones(128, np.float32), v_to_mte2)
    reports = [(r.check, r.kind, r.instruction.api, r.earlier.api, r.operand) for r in session.reports]
    assert reports == ([] if v_to_mte2 else [("race", "RAW", "Add", "Add", "src0")])


def test_compare_into_a_wider_mask_tensor_names_the_uint8_view():
    """port68l3: AdaptiveMaxPool3d's LocalTensor<uint16_t> mask bits (SPEC-2 9.4 keeps dst uint8 / int8)."""
    with aj.Core("atlas-a2") as core:
        x, bits = core.local_tensor("float", 256), core.local_tensor("uint16", 16)
        x[:] = 1
        with pytest.raises(aj.UnsupportedDTypeError, match=r"a uint16 tensor of mask bits is passed as "
                                                           r"dst\.ReinterpretCast\('uint8'\)"):
            aj.Compare(bits, x, x, aj.CMPMODE.EQ, 256)
        aj.Compare(bits.ReinterpretCast("uint8"), x, x, aj.CMPMODE.EQ, 256)
        assert bits.numpy().tolist() == [0xFFFF] * 16


def test_scalar_cast_names_the_devkit_modes():
    """port68l3: ScalarCast<float, half> rounds to odd only; the hint had said nearest even."""
    with pytest.raises(aj.NotOfferedError, match=r"ScalarCast<float, half> rounds to odd \(CAST_ODD\) only and "
                                                 r"<float, int32> takes CAST_ROUND / CEIL / FLOOR / RINT"):
        aj.ScalarCast
