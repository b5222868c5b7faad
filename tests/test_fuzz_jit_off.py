"""The hostile-input fuzzer (issue 12, ascend_jit/fuzz.py) with the JIT off: a sample must give the same verdicts
and bits as with it (issue 12 defect 11). Apart from tests/test_fuzz.py so that the two long runs can go to two
pytest-xdist workers."""
import pytest
from fuzz_checks import check, plan

from ascend_jit import fuzz

pytestmark = pytest.mark.child_processes(seconds=40)


def test_jit_off_gives_the_same_verdicts_and_bits():
    forms, cases = plan()
    sample = fuzz.select(cases, 250, seed=1)
    jit, plain = fuzz.run(sample, len(cases)), fuzz.run(sample, len(cases), jit=False)
    check(jit, forms, cases)
    check(plain, forms, cases)
    differ = [fuzz.describe(cases, forms, i) for i in sample if jit["verdicts"][i] != plain["verdicts"][i]]
    assert not differ, differ[:20]
