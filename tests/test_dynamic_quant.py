"""The DynamicQuant port (port36g, kernels/dynamic_quant.py): the host tiling's key choice, the original's in-place
ReduceMaxInplace (Max folds with dst = src1, WholeReduceMax(t, t, ...)) on a core directly, the keys not ported, and
the port's one deviation: without its zeroes the sanitizer reports the Muls' reads of pad lanes nothing wrote."""

import numpy as np
import pytest

import ascend_jit as aj
from ported import spec_and_module as _spec_and_module


def test_tiling_sends_short_or_unaligned_rows_to_the_double_buffered_kernel():
    _, m = _spec_and_module("dynamic_quant")
    key = lambda rows, row_len, dtype="half", smooth=False: m.tiling("atlas-a2", rows, row_len, dtype, smooth)[0]
    assert key(243, 700) == m.TILING_KEY_DB_HALF
    assert key(243, 1001, "bfloat16") == m.TILING_KEY_DB_BF16
    assert key(320, 77, "half", True) == m.TILING_KEY_DB_HALF
    assert key(8, 1024) == m.TILING_KEY_MULTI_ROW            # >= 128 and a multiple of 8
    assert key(8, 4096) == m.TILING_KEY_SPECIAL_LAST_DIM
    fields = np.frombuffer(m.tiling("atlas-a2", 427, 700, "half", False)[2].tobytes(), m.DynamicQuantTilingData)[0]
    assert [int(fields[f]) for f in ("coreNum", "headCoreNum", "rowPerHeadCore", "rowPerTailCore",
                                     "multiRowNumHeadCore")] == [8, 3, 54, 53, 25]


def test_keys_not_ported_are_refused():
    _, m = _spec_and_module("dynamic_quant")
    with pytest.raises(NotImplementedError, match="key 10"):
        m.quantize_rows("atlas-a2", np.ones((8, 1024), np.float16))


@pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync,dcache", reason="reads the row maximum by GetValue right "
                             "after the kernel's WholeReduceMax, with no V_S flag between them")
@pytest.mark.parametrize("dtype, count", [("half", 700), ("half", 77), ("float", 1001), ("float", 64 * 300 + 5)])
def test_reduce_max_inplace_as_written_gives_the_row_maximum(dtype, count):
    _, m = _spec_and_module("dynamic_quant")
    core = aj.Core("atlas-a2")
    rng = np.random.default_rng(count)
    row = np.abs(rng.standard_normal(count)).astype(np.float16 if dtype == "half" else np.float32)
    row[count - 1] = 9.0                                     # the maximum in the partial last repeat
    t = core.local_tensor(dtype, (count + 127) // 128 * 128)
    t[:count] = row
    with core:
        m.DynamicQuantBase.ReduceMaxInplace(t, count)
    assert t.GetValue(0) == row.max()


@pytest.mark.parametrize("name, size", [("dynamic_quant", 13 * 700), ("dynamic_quant_smooth_half", 9 * 77)])
def test_original_reads_pad_lanes_nothing_wrote(monkeypatch, name, size):
    k, m = _spec_and_module(name)
    inputs = k.make_inputs(size, 2)
    want = k.run("atlas-a2", inputs)
    monkeypatch.setattr(m.DynamicQuantDbOpt, "ZeroPadLanes", lambda self: None)
    with aj.sanitize_session("report") as session:
        got = k.run("atlas-a2", inputs)
    assert all(got[key].tobytes() == want[key].tobytes() for key in want)
    assert session.reports and {r.check for r in session.reports} == {"init"}
    assert {r.instruction.api for r in session.reports} == {"Mul"}
