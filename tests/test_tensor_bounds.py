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


# Each case: (form, call(dst, src, tmp), src elements that make it overrun src, first byte outside, repeat).
CASES = [
    ("count", lambda d, s, t: aj.ReduceSum(d, s, t, 300), 256, 512, "repeat 2"),
    ("high-dim continuous", lambda d, s, t: aj.ReduceSum(d, s, t, 128, 3, 8), 300, 600, "repeat 2"),
    ("high-dim bits", lambda d, s, t: aj.ReduceSum(d, s, t, [0, 1], 2, 16), 256, 640, "repeat 1"),
    ("high-dim stride", lambda d, s, t: aj.ReduceSum(d, s, t, 16, 4, 20), 400, 1280, "repeat 2"),
]


@pytest.mark.parametrize("form,call,src_elems,first,repeat", CASES, ids=[c[0] for c in CASES])
def test_reduce_sum_bounds_every_form(device, form, call, src_elems, first, repeat):
    core = aj.Core(device)
    dst, src, tmp = _layout(core, src_elems)
    _refused(core, lambda: call(dst, src, tmp), "outside src", f"byte {first}", repeat)
    lax = aj.Core(device, bounds="ub")
    dst, src, tmp = _layout(lax, src_elems)
    if form == "count":  # a count past a tensor is refused on every core (decisions.md "Count forms")
        _refused(lax, lambda: call(dst, src, tmp), "outside src")
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
