"""The tensor-bounds rule (docs/decisions.md "Tensor bounds"): every byte ReduceSum and ReducePairElem touch through
an operand lies inside that operand's tensor, in every form; `aj.Core(device, bounds="ub")` checks the UB only.
A refusal names the operand, the first byte outside and the repeat reaching it, and leaves the UB untouched."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.reference import model as ref

# every test here also runs the bounds="ub" escape hatch, whose out-of-tensor accesses the memory check reports by design
pytestmark = pytest.mark.ascend_sanitize(checks="race,init,blocks,sync", reason="runs the bounds=\"ub\" escape hatch")


def _layout(core, src_elems, dst_elems=16):
    src = core.local_tensor("half", src_elems, addr=0)
    tmp = core.local_tensor("half", 512, addr=65536)
    dst = core.local_tensor("half", dst_elems, addr=80000)
    core.ub[:] = np.random.default_rng(1).integers(0, 256, core.ub.size, dtype=np.uint8) & 0x3B  # small halves
    core.ub_written_by_host()   # raw UB bytes: initialised for the sanitizer
    return dst, src, tmp


def _refused(core, call, *words):
    before = core.ub.copy()
    with pytest.raises(aj.OutOfBoundsError) as info:
        call()
    assert np.array_equal(core.ub, before)
    for w in words:
        assert w in str(info.value)
    return str(info.value)


# Each case: (form, call(dst, src, tmp), src elements that make it overrun src, the refusal's words).
CASES = [
    ("count", lambda d, s, t: aj.ReduceSum(d, s, t, 300), 256, ("'count' = 300", "src.GetSize() = 256")),
    ("high-dim continuous", lambda d, s, t: aj.ReduceSum(d, s, t, 128, 3, 8), 300,
     ("outside src", "byte 600", "repeat 2")),
    ("high-dim bits", lambda d, s, t: aj.ReduceSum(d, s, t, [0, 1], 2, 16), 256,
     ("outside src", "byte 640", "repeat 1")),
    ("high-dim stride", lambda d, s, t: aj.ReduceSum(d, s, t, 16, 4, 20), 400,
     ("outside src", "byte 1280", "repeat 2")),
]


@pytest.mark.parametrize("form,call,src_elems,words", CASES, ids=[c[0] for c in CASES])
def test_reduce_sum_bounds_every_form(device, form, call, src_elems, words):
    core = aj.Core(device)
    dst, src, tmp = _layout(core, src_elems)
    _refused(core, lambda: call(dst, src, tmp), *words)
    lax = aj.Core(device, bounds="ub")
    dst, src, tmp = _layout(lax, src_elems)
    if form == "count":  # a count past a tensor is refused on every core (decisions.md "Count forms")
        message = _refused(lax, lambda: call(dst, src, tmp), *words, 'bounds="ub" included')
        assert "make the core with" not in message   # the opt-out would not lift it: not advised (port52b)
    else:
        call(dst, src, tmp)  # the opt-out: only the UB limit applies


def test_reduce_sum_dst_bounds(device):
    core = aj.Core(device)
    dst, src, tmp = _layout(core, 256, dst_elems=0)
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 128), "outside dst")
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 128, 1, 8), "outside dst")


def test_reduce_sum_counter_mode_bounds_on_the_950():
    core = aj.Core("950")
    dst, src, tmp = _layout(core, 200)
    core.SetMaskCount()
    _refused(core, lambda: aj.ReduceSum(dst, src, tmp, 300, 1, 8), "outside src", "byte 400")
    aj.ReduceSum(dst, src, tmp, 200, 1, 8)


def test_reduce_pair_bounds(device):
    """The README's old example: 64 pair sums into a 16-element dst overwrote the next tensor."""
    core = aj.Core(device)
    src = core.local_tensor("half", 128, addr=0)
    dst = core.local_tensor("half", 16, addr=1024)
    neighbour = core.local_tensor("half", 64, addr=1056)
    src[:] = 1
    neighbour[:] = 7
    _refused(core, lambda: aj.ReducePairElem(dst, src, 128, 1, 1, 1, 8), "outside dst", "byte 1056", "repeat 0")
    _refused(core, lambda: aj.ReducePairElem(neighbour, src[64], 128, 1, 1, 1, 8), "outside src", "byte 256")
    _refused(core, lambda: aj.ReducePairElem(neighbour, src, 128, 2, 1, 1, 8), "outside", "repeat 1")
    big = core.local_tensor("half", 64, addr=2048)
    aj.ReducePairElem(big, src, 128, 1, 1, 1, 8)
    assert (big.numpy() == 2).all() and (neighbour.numpy() == 7).all()
    lax = aj.Core(device, bounds="ub")
    src, dst = lax.local_tensor("half", 128, addr=0), lax.local_tensor("half", 16, addr=1024)
    src[:] = 1
    before = lax.ub.copy()
    aj.ReducePairElem(dst, src, 128, 1, 1, 1, 8)  # opt-out: writes past dst, as the hardware would
    ref.reduce_pair(before, lax.spec, "half", 1024, 0, list(range(128)), 1, 1, 1, 8, lax.half_saturating)
    assert np.array_equal(lax.ub, before)


def test_bounds_rule_is_part_of_the_memo_key():
    core, lax = aj.Core("a2"), aj.Core("a2", bounds="ub")
    for c in (lax, core, lax):  # the same layout on both kinds of core, alternately
        dst, src, tmp = _layout(c, 300)
        if c.bounds == "ub":
            aj.ReduceSum(dst, src, tmp, 128, 3, 8)
        else:
            _refused(c, lambda: aj.ReduceSum(dst, src, tmp, 128, 3, 8), "outside src")
    with pytest.raises(aj.ParameterError, match="bounds"):
        aj.Core("a2", bounds="tensors")


def test_global_tensor_index_refusals_name_the_current_device():
    """GM is host memory with no device of its own: an index refusal names the current core's device (every
    refusal names one, errors.py), and the array is unchanged."""
    array = np.arange(16, dtype=np.float16)
    gm = aj.GlobalTensor(array)
    with aj.Core("atlas-a2"):
        for call, error in ((lambda: gm.GetValue(16), aj.OutOfBoundsError), (lambda: gm.SetValue(-1, 1.0),
                            aj.OutOfBoundsError), (lambda: gm.GetValue(1.5), aj.ParameterError),
                            (lambda: gm[20], aj.OutOfBoundsError)):
            with pytest.raises(error, match="on device atlas-a2"):
                call()
    assert np.array_equal(array, np.arange(16, dtype=np.float16))


COUNT_FORMS = {   # a count past the 64 floats of every operand (the 950 offers each of them)
    "Abs": lambda t, n: aj.Abs(t["a"], t["b"], n),
    "Add": lambda t, n: aj.Add(t["a"], t["b"], t["c"], n),
    "Cast": lambda t, n: aj.Cast(t["i"], t["a"], aj.RoundMode.CAST_RINT, n),
    "Compare": lambda t, n: aj.Compare(t["bits"], t["a"], t["b"], aj.CMPMODE.LT, 128),   # whole 256-byte blocks
    "ReduceMax": lambda t, n: aj.ReduceMax(t["a"], t["b"], t["c"], n),
    "ReduceSum": lambda t, n: aj.ReduceSum(t["a"], t["b"], t["c"], n),
    "ArithProgression": lambda t, n: aj.ArithProgression(t["a"], 0.0, 1.0, n),
    "CreateVecIndex": lambda t, n: aj.CreateVecIndex(t["i"], 0, n),
    "Truncate": lambda t, n: aj.Truncate(t["a"], t["b"], aj.RoundMode.CAST_TRUNC, n),
}


@pytest.mark.parametrize("api", sorted(COUNT_FORMS))
def test_a_count_past_a_tensor_is_refused_on_a_lax_core_saying_so(api):
    """decisions.md "Count forms": bounds="ub" never lifts a count past a tensor, so the refusal says so and does not
    advise it (ReduceSum's count form advised bounds="ub" on a core that had it: port52b)."""
    core = aj.Core("ascend950", bounds="ub")
    tensors = {name: core.local_tensor(dtype, 64) for name, dtype in
               (("a", "float"), ("b", "float"), ("c", "float"), ("i", "int32"), ("bits", "uint8"))}
    for t in tensors.values():
        t[:] = np.zeros(64, t.numpy().dtype)
    with core:
        message = _refused(core, lambda: COUNT_FORMS[api](tensors, 65), "'count' = ", "GetSize() = ",
                           'bounds="ub" included')
    assert "make the core with" not in message


def test_an_element_refusal_names_the_tensor_and_its_queue():
    """port53b: "GetValue: 'index' = 256 (legal: [0, 256))" left a kernel of ten buffers to guess which tensor.
    (LocalTensor[]'s refusal keeps its words: a compiled VF's t[i] refuses in them, tests/test_reg_vf_porting.py.)"""
    core = aj.Core("atlas-a2")
    plain = core.local_tensor("half", 256)
    for call in (lambda: plain.GetValue(256), lambda: plain.SetValue(-1, 1.0)):
        with pytest.raises(aj.OutOfBoundsError, match=r"of the tensor LocalTensor\(half, addr=0, size=256, VECCALC\) "
                                                      r"\(legal: \[0, 256\)\)"):
            call()
    with pytest.raises(aj.ParameterError, match=r"got float, of the tensor LocalTensor\(half"):
        plain.GetValue(1.5)

    def kernel():
        pipe, que = aj.TPipe(), aj.TQue(aj.TPosition.VECIN, 2)
        pipe.InitBuffer(que, 2, 512)
        que.AllocTensor("float").GetValue(128)
    with pytest.raises(aj.OutOfBoundsError, match=r"'index' = 128 of the tensor LocalTensor\(float, addr=\d+, "
                                                  r"size=128, VECIN\) from a TQue\(VECIN, depth 2\)"):
        aj.launch(kernel, 1, "atlas-a2")


def test_an_element_refusal_on_a_ub_bounds_core_says_the_escape_does_not_reach_it():
    """port56c (ops-nn CrossEntropyLossGrad's off-by-one GetValue at a chunk's end, launched with bounds="ub"): the
    refusal says that bounds="ub" covers the vector forms' strided footprints, not an element index; on a tensor
    core it keeps its words."""
    for bounds, noted in (("ub", True), ("tensor", False)):
        core = aj.Core("atlas-a2", bounds=bounds)
        with core:
            t = core.local_tensor("float", 16)
            for access in (lambda: t.GetValue(16), lambda: t.SetValue(16, 1.0)):
                with pytest.raises(aj.OutOfBoundsError, match=r"'index' = 16 of the tensor") as refusal:
                    access()
                assert ('bounds="ub" lets the vector instructions\' strided footprints leave a tensor, not an '
                        'element index' in str(refusal.value)) is noted
            empty = t[16:16]   # a size-0 tensor (its len() is 0): refused as any other, never a TypeError
            for access in (lambda: empty.GetValue(0), lambda: empty.SetValue(0, 1.0)):
                with pytest.raises(aj.OutOfBoundsError, match=r"'index' = 0 of the tensor LocalTensor\(float"):
                    access()
