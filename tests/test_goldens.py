"""The seed kernels' outputs on every device, pinned bit for bit in tests/goldens (recorded with
`ascend-jit golden record tests/goldens --kernels ...`). A change to any kernel's bits fails here with an ulp report.
These goldens come from the emulator itself: they guard against regressions; correctness is the job of the
reference-model and SPEC-vector tests."""
from pathlib import Path

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry

GOLDENS = Path(__file__).parent / "goldens"
PINNED = ("add", "reduce_sum_highdim", "reduce_sum_count", "reduce_pair", "reduce_data_block")
KERNELS = registry()


@pytest.mark.parametrize("name", PINNED)
@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_seed_kernels_match_their_goldens(name, device):
    k = KERNELS[name]
    if not k.supports(device):
        pytest.skip(f"{name} not on {device}")
    outputs = k.run(device, k.make_inputs(k.default_size, 0))
    for key, value in sorted(outputs.items()):
        aj.testing.check_golden(f"{name}.{device}.{key}", np.asarray(value), GOLDENS)


def test_golden_metadata_names_device_and_decisions():
    _, meta = aj.testing.load_golden("reduce_sum_count.atlas-a2.dst", GOLDENS)
    assert meta["device"] == "atlas-a2" and meta["dtype"] == "half" and "D1" in meta["spec_decisions"]
