"""The byte footprint the API layer proves safe equals the bytes the reference model's lane walk touches
(SPEC 1.2, 2.1, 2.6): memory safety rests on this."""
from hypothesis import given, settings, strategies as st

from ascend_jit.api._common import Operand
from ascend_jit.reference import model as ref

SIZES = {"int8": 1, "half": 2, "float": 4, "int64": 8}


@st.composite
def operands(draw):
    dtype = draw(st.sampled_from(list(SIZES)))
    size = SIZES[dtype]
    lanes = min(256 // size, 128)
    lo = draw(st.integers(0, 2**64 - 1) | st.sampled_from([0, 1, 2**64 - 1]))
    hi = draw(st.integers(0, 2**64 - 1)) if lanes > 64 else 0
    if lanes < 64:
        lo &= (1 << lanes) - 1
    repeat = draw(st.integers(0, 20))
    counter = draw(st.booleans()) and repeat > 0
    last = draw(st.integers(1, lanes)) if counter else -1
    if counter:
        lo, hi = (2**64 - 1, (2**64 - 1) if lanes > 64 else 0) if lanes >= 64 else ((1 << lanes) - 1, 0)
    return dtype, size, lo, hi, repeat, draw(st.integers(0, 255)), draw(st.integers(0, 255)), last, draw(
        st.integers(0, 1000)) * 32


@settings(max_examples=400, deadline=None)
@given(operands())
def test_footprint_equals_reference_walk(case):
    dtype, size, lo, hi, repeat, blk, rep, last, base = case
    op = Operand("x", base, size, lo, hi, repeat, blk, rep, last)
    lanes = ref.lanes_of_mask(lo, hi, 256 // size)
    touched = set()
    for _, _, addr in ref.walk(base, "half" if size == 2 else "float" if size == 4 else
                               "int8" if size == 1 else "int64", lanes, repeat, blk, rep,
                               None if last < 0 else last):
        touched.update(range(addr, addr + size))
    assert set(op.footprint().tolist()) == touched
    ext = op.extent()
    if touched:
        assert ext == (min(touched), max(touched) + 1)
    else:
        assert ext is None
