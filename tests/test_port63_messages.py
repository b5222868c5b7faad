"""Session 63's fresh ports (docs/decisions.md "What the session-63 ports found"): the refusals and docs they met."""
import inspect
import os
import warnings

import numpy as np
import pytest

import ascend_jit as aj

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("name", ["CastDequant", "SetDeqScale"])
def test_dequantisation_refusal_names_what_to_write(name):
    """port63b: the refusal said why (D47) but named no way to dequantise (Cast's own int32 -> half refusal names
    the legal destinations)."""
    with pytest.raises(aj.NotOfferedError) as caught:
        getattr(aj, name)
    text = str(caught.value)
    assert "D47" in text and "Cast the integers to float, Muls by the scale" in text


def test_readme_names_every_refusal_class():
    """port63b: NotOfferedError (an AttributeError too) was missing from the README's list of refusal classes."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    start = readme.index("- Every refusal is an `aj.AscendJitError`")
    paragraph = readme[start:readme.index("\n- ", start + 2)]
    classes = [n for n, c in vars(aj).items()
               if inspect.isclass(c) and issubclass(c, aj.AscendJitError) and c is not aj.AscendJitError
               and c is not aj.SanitizerError]  # the sanitizer's reports, not refusals: README "Sanitizer"
    missing = [n for n in classes if f"`{n}`" not in paragraph]
    assert not missing, missing


@pytest.mark.parametrize("name", ["Sort", "TopK", "Concat", "Extract", "GetSortLen", "GetSortOffset", "Sort32",
                                  "MrgSort", "MrgSort4", "GetMrgSortResult", "MrgSortSrcList", "RpSort16"])
def test_sort_family_refusal_says_no_sort_instruction_exists(name):
    """port63c: Sort's refusal said to write the basic instructions its devkit build uses, which are Sort32 and
    MrgSort, refused in turn; GetMrgSortResult was a bare AttributeError."""
    with pytest.raises(aj.NotOfferedError) as caught:
        getattr(aj, name)
    text = str(caught.value)
    assert "no sort instruction is offered" in text and "argsort" in text
    assert "write its basic instructions" not in text


def test_gather_misaligned_base_names_the_sum():
    """audit63: a src_base_addr off the element size made an aligned offset the named fault, with no word of the
    base or the sum that is misaligned."""
    core = aj.Core("atlas-a2")
    src, dst = core.local_tensor("half", 256), core.local_tensor("half", 16)
    offsets = core.local_tensor("uint32", 16)
    offsets[:] = np.full(16, 2, np.uint32)
    before = core.ub.copy()
    expected = (r"src_offset\[0\]' = 2 makes src \+ src_base_addr \+ offset = \d+ \+ 1 \+ 2 = \d+; "
                r"src_base_addr = 1 is itself not a multiple of 2")
    with pytest.raises(aj.AlignmentError, match=expected):
        aj.Gather(dst, src, offsets, 1, 16)
    assert np.array_equal(core.ub, before)


@pytest.mark.parametrize("compare, mode", [(lambda x: x < 3.0, "LT"), (lambda x: x >= np.float32(3), "GE"),
                                           (lambda x: 2.0 < x, "GT"), (lambda x: x != 1, "NE")])
def test_compare_operator_with_a_scalar_names_compares(compare, mode):
    """audit63: `dst[:] = x < 3.0` was told to pass a LocalTensor; a comparison with a scalar is Compares'."""
    core = aj.Core("atlas-a2")
    x, dst = core.local_tensor("float", 64), core.local_tensor("uint8", 8)
    with pytest.raises(aj.ParameterError, match=rf"aj\.Compares\(dst, src0, scalar, aj\.CMPMODE\.{mode}, count\)"):
        dst[:] = compare(x)


def test_free_on_the_wrong_queue_names_the_queue_it_came_from():
    """port63d: ops-nn BinaryCrossEntropyV2 frees y on x's queue; the refusal said only "not allocated by this queue"
    (the devkit's debug build asserts the same), not whose tensor it was."""
    core = aj.Core("atlas-a2")
    with core:
        pipe, in_x, out_y = aj.TPipe(), aj.TQue(aj.QuePosition.VECIN, 2), aj.TQue(aj.QuePosition.VECOUT, 2)
        tbuf = aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(in_x, 2, 256)
        pipe.InitBuffer(out_y, 2, 256)
        pipe.InitBuffer(tbuf, 256)
        y = out_y.AllocTensor("float")
        with pytest.raises(aj.StateError, match=r"a buffer of another TQue \(VECOUT, UB \[512, 768\), \[768, 1024\)\); "
                                                r"this queue's buffers: UB \[0, 256\), \[256, 512\)"):
            in_x.FreeTensor(y)
        with pytest.raises(aj.StateError, match=r"EnQue: .*a buffer of another TQue \(VECOUT"):
            in_x.EnQue(y)
        with pytest.raises(aj.StateError, match="not a queue's buffer: a TBuf's tensor or one made by hand"):
            in_x.FreeTensor(tbuf.Get("float"))
        out_y.FreeTensor(y)  # still its own queue's to free


def test_datacopy_overrun_names_the_copy_shape():
    """port63e (ops-math Segsum's tiling keeps dataTypeSize 4 for half): "the copy needs 128" named no argument; the
    count form now says count x element size, the params form its blocks and strides."""
    core = aj.Core("atlas-a2")
    with core:
        dst, src = core.local_tensor("float", 24), core.local_tensor("float", 64)
        before = core.ub.copy()
        with pytest.raises(aj.OutOfBoundsError, match=r"the copy needs 128: count 32 x 4 B\)"):
            aj.DataCopy(dst, src, 32)
        needs = r"the copy needs 192: blockCount 2, blockLen 1, srcStride 0, dstStride 4\)"
        with pytest.raises(aj.OutOfBoundsError, match=needs):
            aj.DataCopy(dst, src, aj.DataCopyParams(2, 1, 0, 4))
        assert np.array_equal(core.ub, before)


@pytest.mark.parametrize("name", ["PlatformAscendC", "platform_ascendc"])
def test_the_platform_query_object_is_not_offered_with_its_substitutes(name):
    """port63f: a host tiling starts with `platform_ascendc::PlatformAscendC`; it was a bare AttributeError (its
    methods GetCoreNumAiv / GetCoreMemSize already said what to write)."""
    with pytest.raises(aj.NotOfferedError, match=r"aj\.launch\(kernel, block_dim, device.*aj\.get_device\(device\)"
                                                  r"\.ub_bytes"):
        getattr(aj, name)


@pytest.mark.parametrize("shared", ["tmp", "dst", "both"])
def test_reduce_max_over_its_source_says_what_to_give_instead(shared):
    """port63g (ops-nn SwiGluQuant's `ReduceMax(t, t, t, n)`): SPEC-2 8.3.1 (D34) refuses a tmp or dst over src off the
    950; the refusal named the rule but no way out. With both over src, the advice for dst is tmp's own buffer (review:
    "dst may share sharedTmpBuffer's bytes" led to the tmp refusal next)."""
    core = aj.Core("atlas-a2")
    src, other = core.local_tensor("float", 64), core.local_tensor("float", 64)
    dst, tmp = {"tmp": (other, src), "dst": (src, other), "both": (src, src)}[shared]
    own = (r"give sharedTmpBuffer a buffer of its own of at least 8 elements \(GetReduceMaxMinTmpSize\); "
           r"dst may go there")
    expected = {"tmp": own, "both": r"'src/dst' .*" + own,
                "dst": r"write the result elsewhere \(dst may share sharedTmpBuffer's bytes\)"}[shared]
    before = core.ub.copy()
    with pytest.raises(aj.OverlapError, match=expected):
        aj.ReduceMax(dst, src, tmp, 64, False)
    assert np.array_equal(core.ub, before)


@pytest.mark.parametrize("given", [None, "tensor", "global"])
def test_free_tensor_of_a_non_local_tensor_is_a_parameter_error(given):
    """review of session 63: FreeTensor(None) or of a GlobalTensor said "a TBuf's tensor or one made by hand"; it is
    refused as EnQue refuses it, naming what was given."""
    core = aj.Core("atlas-a2")
    with core:
        pipe, que = aj.TPipe(), aj.TQue(aj.QuePosition.VECIN, 1)
        pipe.InitBuffer(que, 1, 256)
        g = aj.GlobalTensor("float")
        g.SetGlobalBuffer(np.zeros(64, np.float32), 64)
        value = {None: None, "tensor": np.zeros(4, np.float32), "global": g}[given]
        with pytest.raises(aj.ParameterError, match=r"FreeTensor: parameter 'tensor' = '\w+' \(legal: a LocalTensor\)"):
            que.FreeTensor(value)


def test_cast_hybrid_names_d47_in_both_apis():
    """audit63c: SPEC-2 D47 refuses "every pair with a D28 type (..., CAST_HYBRID)" naming D47; both Casts named D28
    only, and the Reg Cast showed the mode as its code, 7."""
    core = aj.Core("ascend950")
    with core:
        src, dst = core.local_tensor("half", 128), core.local_tensor("int8", 128)
        with pytest.raises(aj.UnsupportedDTypeError, match=r"SPEC-2 D47, D28"):
            aj.Cast(dst, src, aj.RoundMode.CAST_HYBRID, 128)
        R = aj.Reg
        trait = R.CastTrait(R.RegLayout.ZERO, R.SatMode.SAT, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_HYBRID)
        with pytest.raises(aj.UnsupportedDTypeError,
                           match=r"'trait\.roundMode' = 'RoundMode\.CAST_HYBRID' .*SPEC-2 D47, D28"):
            R.Cast(R.RegTensor("int8"), R.RegTensor("half"), R.CreateMask("half"), trait)


@aj.Reg.simd_vf
def _fused_mul_dst_add(out, x, y, z, count):
    R = aj.Reg
    mask, count = R.UpdateMask("float", count)
    a, b, d = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
    R.LoadAlign(a, x, 0)
    R.LoadAlign(b, y, 0)
    R.LoadAlign(d, z, 0)
    R.FusedMulDstAdd(d, a, b, mask)
    R.StoreAlign(out, d, mask, 0)


def test_fused_mul_dst_add_is_mul_dst_add_compiled_and_plain():
    """port63h: the devkit's FusedMulDstAdd and MulDstAdd both call FusedMulDstAddImpl (the 950's fma, atan, erf and
    ops-nn's arch35 norms call the first); it was refused as not offered. Compiled equals plain over the whole UB."""
    assert aj.Reg.FusedMulDstAdd is aj.Reg.MulDstAdd
    results = []
    for compiled in (True, False):
        core = aj.Core("ascend950")
        rng = np.random.default_rng(63)
        core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
        out, x, y, z = (core.local_tensor("float", 64) for _ in range(4))
        for t in (x, y, z):
            t[:] = rng.standard_normal(64).astype(np.float32)
        with core, warnings.catch_warnings():
            warnings.simplefilter("error", aj.errors.UncompiledVFWarning)   # the compiled run is compiled
            (_fused_mul_dst_add if compiled else _fused_mul_dst_add.py_func)(out, x, y, z, 40)
        results.append(core.ub.copy())
        exact = (z.numpy()[:40].astype(np.float64) * x.numpy()[:40] + y.numpy()[:40]).astype(np.float32)
        assert np.array_equal(out.numpy()[:40], exact)   # one rounding
    assert np.array_equal(*results)
