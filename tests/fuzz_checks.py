"""What the fuzzer's two test files share (tests/test_fuzz.py, tests/test_fuzz_jit_off.py): the case list and the
check of a run's result. Two files so that pytest-xdist can run them on two workers at once (each is a long run of
child processes; docs/decisions.md "Running the tests on every core")."""
import functools

from ascend_jit import fuzz


@functools.cache
def plan():
    forms = fuzz.all_forms()
    return forms, fuzz.enumerate_cases(forms)


def check(res, forms, cases):
    report = (f"calls {res['calls']}, refused {res['refused']}, accepted {res['accepted']}, "
              f"crashes {len(res['crashes'])}, hangs {len(res['hangs'])}, failures {len(res['failures'])}")
    print(report)
    named = [f"{fuzz.describe(cases, forms, i)}: {v}" for i, v in sorted(res["failures"].items())[:20]]
    named += [f"CRASH {fuzz.describe(cases, forms, c[0])}: {c[1]} {c[2]}" for c in res["crashes"]]
    named += [f"HANG {fuzz.describe(cases, forms, i)}" for i in res["hangs"]]
    assert not named, report + "\n" + "\n".join(named)
    assert res["refused"] + res["accepted"] == res["calls"]
