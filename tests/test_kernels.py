"""Every example kernel passes its bit-exact check on every device it supports; multi-block is schedule-free."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry

KERNELS = registry()
SMALL = {"tiled_reduce_sum": 50_000, "tiled_add": 20_000, "multi_block_reduce_sum": 70_000}


# the package's own kernels (ascend_jit/kernels); tests/test_gallery.py runs the gallery's on every device at their
# default and tail sizes
@pytest.mark.parametrize("name", [name for name, k in KERNELS.items() if not k.source])
@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_kernel_passes_its_check(name, device):
    k = KERNELS[name]
    if not k.supports(device):
        pytest.skip(f"{name} is not offered on {device}")
    for seed in (0, 7):
        ok, lines, _, _ = k.execute(device, SMALL.get(name), seed)
        assert ok, "\n".join(lines)


def test_seed_kernel_outputs_are_the_documented_ones():
    out = KERNELS["reduce_sum_highdim"].run("atlas-a2", KERNELS["reduce_sum_highdim"].make_inputs(8320, 0))
    assert out["continuous"].tolist() == [8320] + [0] * 15
    out = KERNELS["reduce_sum_count"].run("atlas-a2", KERNELS["reduce_sum_count"].make_inputs(288, 0))
    assert out["dst"].tolist() == [288, 288] + [0] * 14
    out = KERNELS["reduce_pair"].run("atlas-a2", KERNELS["reduce_pair"].make_inputs(128, 0))
    assert out["bits"][:8].tolist() == [2, 0, 4, 1, 6, 2, 8, 2]


def test_multi_block_bits_do_not_depend_on_the_schedule():
    from ascend_jit.kernels import multi_block_reduce_sum as mb
    inputs = mb.make_inputs(300_000, 5)
    serial = mb.run("atlas-a2", inputs, parallel=False)
    for _ in range(3):
        parallel = mb.run("atlas-a2", inputs, parallel=True)
        for key in serial:
            assert serial[key].tobytes() == parallel[key].tobytes()


@pytest.mark.ascend_sanitize(checks="", reason="checks when run() picks worker processes, which it never does while "
                             "sanitizing (aj.launch(parallel=\"processes\") refuses the sanitizer)")
def test_multi_block_runs_short_blocks_serially_by_default(monkeypatch):
    """run(parallel=None) launches in processes only when every block has PARALLEL_MIN_TILES tiles and the host
    has two cores or more (issue 21)."""
    from ascend_jit.kernels import multi_block_reduce_sum as mb
    chosen, launch = [], mb.aj.launch

    def recording_launch(kernel, block_dim, device, *args, parallel=True, **kwargs):
        chosen.append((block_dim, parallel))
        return launch(kernel, block_dim, device, *args, parallel=parallel, **kwargs)
    monkeypatch.setattr(mb.aj, "launch", recording_launch)
    monkeypatch.setattr(mb, "host_cores", lambda: 2)
    from ascend_jit.kernels.tiled_reduce_sum import TILE
    assert not mb.parallel_pays(3 * 8 * TILE) and mb.parallel_pays(3 * 8 * TILE + 8 * 16)  # a 4th (partial) tile
    inputs = mb.make_inputs(300_000, 5)  # 37,504 halves per block: one tile
    serial = mb.run("atlas-a2", inputs)
    monkeypatch.setattr(mb, "PARALLEL_MIN_TILES", 1)
    try:
        in_processes = mb.run("atlas-a2", inputs)
    finally:
        aj.close_block_processes()
    assert chosen == [(8, False), (1, True), (8, "processes"), (1, True)]
    assert all(serial[key].tobytes() == in_processes[key].tobytes() for key in serial)


def test_tiled_reduce_sum_differs_per_device_family():
    from ascend_jit.kernels import tiled_reduce_sum as tr
    x = tr.make_inputs(200_000, 3)
    totals = {dev: tr.run(dev, x)["total"].tobytes() for dev in ("atlas-a2", "atlas-training")}
    partial_a2 = tr.run("atlas-a2", x)["partials"]
    partial_910 = tr.run("atlas-training", x)["partials"]
    assert not np.array_equal(partial_a2, partial_910) or totals["atlas-a2"] != totals["atlas-training"]


@pytest.mark.slow
@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_full_size_16mi_reduction(device):
    ok, lines, _, rate = KERNELS["tiled_reduce_sum"].execute(device, 16 * 1024 * 1024, 1)
    assert ok, "\n".join(lines)
