"""kernels/cross_entropy_loss.py (ops-nn CrossEntropyLoss, the A2/A3 float kernel): the original's sequences the
port deviates from, each shown refused or reported, and the port's results the same with and without its flags."""
import inspect

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry


def _kernel(name):
    """The kernel and its module, from one registry() call (an edited file is loaded afresh: a class patched in one
    load's module is not the class another load's kernel runs)."""
    k = registry()[name]
    return k, inspect.getmodule(k.run)


def test_the_original_in_place_reductions_give_the_ports_results(monkeypatch):
    """With the second stages reduced into the work area itself, as the original does (`BlockReduceMax(work, work,
    16, ...)` for an 8192-float chunk, then BlockReduceMax / WholeReduceMax of the results in place), every stage's
    results start at their repeat's own source or land in an earlier repeat's (docs/decisions.md "Reductions in
    place"): the kernel runs as written and gives the port's bytes, which reduces into a separate pong area."""
    k, m = _kernel("cross_entropy_loss")
    inputs = k.make_inputs(k.default_size, 0)
    want = k.run("atlas-a2", inputs)
    init_ub = m.CrossEntropyLoss.InitUB

    def literal(self):
        init_ub(self)
        self.pongLocal = self.calcBuf.GetWithOffset("float", m.NUM_1024, self.workLocalOffset)
    monkeypatch.setattr(m.CrossEntropyLoss, "InitUB", literal)
    got = k.run("atlas-a2", inputs)
    assert all(got[key].tobytes() == want[key].tobytes() for key in want)


def test_the_original_smoothing_sum_writes_through_an_empty_tensor(monkeypatch):
    """GetSmoothingLossSum reduces into castTmpBuf, which the float kernel carves with 0 floats: with one row a core
    its in-place tail WholeReduceSum overlaps 100% (legal) and the last one's dst is refused."""
    k, m = _kernel("cross_entropy_loss_sum_big_c")

    def literal(self):
        self.GetReduceSum(self.smoothingLossLocal, self.smoothingLossLocal, self.castTmpBuf, self.batchNum)
    monkeypatch.setattr(m.CrossEntropyLoss, "GetSmoothingLossSum", literal)
    assert k.default_size // 50000 <= m.CORE_NUM               # one row a core
    with pytest.raises(aj.OutOfBoundsError, match="WholeReduceSum: parameter 'dst'"):
        k.run("atlas-a2", k.make_inputs(k.default_size, 0))


def test_without_the_ports_flags_the_sanitizer_reports_the_scalar_races(monkeypatch):
    """With its flags the port runs clean under the sanitizer. The original orders none of its scalar-unit UB
    accesses against the vector pipe (-FLT_MAX before the Max folds, the row maximum and the Log result read back,
    ...): without the flags the results agree (the emulator runs in program order) and the sanitizer reports the
    races."""
    k, m = _kernel("cross_entropy_loss_none_smoothing")
    inputs = k.make_inputs(3 * 1000, 2)
    with aj.sanitize_session("report") as session:
        want = k.run("atlas-a2", inputs)
    assert session.reports == [], aj.format_reports(session.reports)
    monkeypatch.setattr(m.CrossEntropyLoss, "Fence", lambda self, event: None)
    with aj.sanitize_session("report") as session:
        got = k.run("atlas-a2", inputs)
    assert all(got[key].tobytes() == want[key].tobytes() for key in want)
    assert session.reports and {r.check for r in session.reports} == {"race"}


def test_tiling_splits_rows_and_tiles_as_the_host_code():
    """13 rows of 13192 over 8 cores: 5 front cores of 2 rows, 3 of 1; 50000 classes with a weight tile on the A2:
    tiles of (196608 - reserve) / 2 rounded down to 512 bytes, 23936 floats = two 8192-float chunks and 7552."""
    _, m = _kernel("cross_entropy_loss")
    block_dim, raw = m.tiling("atlas-a2", 13, 13192, m.REDUCTION_MEAN)
    t = np.frombuffer(raw.tobytes(), m.CrossEntropyLossTilingData)[0]
    assert (block_dim, t["frontCoreNum"], t["frontBatchNum"], t["tailCoreNum"], t["tailBatchNum"]) == (8, 5, 2, 3, 1)
    assert (t["inputUbSize"], t["ubLoopNum"], t["vecLoopNum"], t["vecTailNum"]) == (13192, 0, 1, 5000)
    block_dim, raw = m.tiling("atlas-a2", 3, 50000, m.REDUCTION_SUM, label_smoothing=0.2)
    t = np.frombuffer(raw.tobytes(), m.CrossEntropyLossTilingData)[0]
    assert (block_dim, t["inputUbSize"], t["ubLoopNum"], t["ubTailNum"]) == (3, 23936, 2, 2128)
    assert (t["vecLoopNum"], t["vecTailNum"], t["weight4SmoothingBufSize"]) == (2, 7552, 23936)
