import numpy as np
import pytest

import ascend_jit as aj


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(0)


def half_tensors(core, n, count, rng):
    ts = [core.local_tensor("half", n) for _ in range(count)]
    for t in ts:
        t[:] = (rng.standard_normal(n) * 100).astype(np.float16)
    return ts


@pytest.fixture
def a2():
    return aj.Core("atlas-a2")
