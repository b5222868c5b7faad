"""The kernel gallery (top-level kernels/): each ported kernel on every device it supports, at its default size and
at a size that leaves a tail (rows or tiles that do not fill the last block), checked by its own declared
expectation (bit for bit, or within its stated tolerance for MODELLED kernels)."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import gallery_dir, registry

GALLERY = {name: k for name, k in registry().items() if k.source}
TAILS = {"softmax": 13 * 1024, "rmsnorm": 13 * 4096, "layernorm": 13 * 1024, "add_custom": None}


def test_the_gallery_is_found_from_the_checkout():
    assert gallery_dir() is not None
    assert {"softmax", "rmsnorm", "layernorm", "reduce_computation", "reduce_repeat", "add_custom"} <= set(GALLERY)


@pytest.mark.parametrize("name", sorted(GALLERY))
@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_gallery_kernel_passes_on_every_device(name, device):
    k = GALLERY[name]
    if not k.supports(device):
        pytest.skip(f"{name} is not offered on {device}")
    sizes = [k.default_size] + ([TAILS[name]] if TAILS.get(name) else [])
    for size in sizes:
        ok, lines, _, _ = k.execute(device, size, 7)
        assert ok, "\n".join(lines)


def test_modelled_kernels_state_a_tolerance_and_bit_exact_ones_do_not():
    assert GALLERY["softmax"].fidelity == "MODELLED" and GALLERY["softmax"].tolerance
    assert GALLERY["rmsnorm"].fidelity == "BIT-EXACT" and GALLERY["layernorm"].fidelity == "BIT-EXACT"


def test_a_kernel_file_runs_from_its_path(tmp_path):
    from ascend_jit.kernels import load_file
    path = tmp_path / "my_kernel.py"
    path.write_text('''
import numpy as np
import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

def run(device, inputs):
    with aj.Core(device) as core:
        a = core.local_tensor("half", 128); a[:] = inputs["x"]
        aj.Muls(a, a, 2.0, 128)
        return {"y": a.numpy()}

KERNEL = KernelSpec("double", "y = 2x", lambda n, s: {"x": np.arange(n, dtype=np.float16)}, run,
                    lambda d, i: {"y": (i["x"] * 2).astype(np.float16)}, default_size=128, source="a test")
''')
    [k] = load_file(path)
    ok, lines, _, _ = k.execute("atlas-a2")
    assert ok and k.name == "double"
