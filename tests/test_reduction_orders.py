"""explain_reduce_order for the summing reductions beyond ReduceSum (SPEC-2 8.1, 8.2) and the two-stage patterns:
the kernels agree with the explained trees bit for bit at the boundary counts, and an FPRev-style probe (one large
value and its negation among ones) recovers, from the kernels alone, the same tree shape as explain_reduce_order."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit import study

PATTERNS = ("ReduceRepeat->ReduceRepeat", "BlockReduceSum->WholeReduceSum")
NP = {"half": np.float16, "float": np.float32}


def _dtypes(device):
    return aj.get_device(device).reduce_data_block_dtypes


def _same_bits(got, want, dtype):
    got, want = np.asarray(got, NP[dtype]), np.asarray(want, NP[dtype])
    if np.isnan(want):
        return bool(np.isnan(got))
    return got.tobytes() == want.tobytes()


def _pattern_tensors(core, dtype, n):
    lanes = 256 // np.dtype(NP[dtype]).itemsize
    padded = -(-n // lanes) * lanes
    work_n = -(-8 * (padded // lanes) // lanes) * lanes
    return core.local_tensor(dtype, padded), (core.local_tensor(dtype, work_n), core.local_tensor(dtype, work_n))


def _run_pattern(core, pattern, x):
    src, work = _pattern_tensors(core, str(x.dtype).replace("float16", "half").replace("float32", "float"), x.size)
    src[:] = np.concatenate([x, np.zeros(src.size - x.size, x.dtype)])
    return study.run_pattern(pattern, src, work, x.size)


# --- kernel == tree --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pattern", PATTERNS)
def test_patterns_match_the_explained_tree_at_boundary_counts(device, pattern):
    for dtype in _dtypes(device):
        lanes = 256 // np.dtype(NP[dtype]).itemsize
        for n in (1, lanes - 1, lanes, lanes + 1, 8 * lanes + 3, 65 * lanes, lanes * lanes // 8 + 1, lanes * lanes + 5):
            core = aj.Core(device)
            if 3 * n * np.dtype(NP[dtype]).itemsize > core.spec.ub_bytes:
                continue
            x = (np.random.default_rng(n).standard_normal(n) * 300).astype(NP[dtype])
            got = _run_pattern(core, pattern, x)
            tree = aj.explain_reduce_order(device, pattern, dtype, count=n)
            assert sorted(tree.leaves()) == list(range(n))
            assert _same_bits(got, tree.evaluate(x, saturate=core.half_saturating), dtype), (pattern, dtype, n)


@pytest.mark.parametrize("form", ["ReduceRepeat", "ReduceDataBlock"])
def test_group_sums_match_the_explained_trees(device, form):
    rng = np.random.default_rng(7)
    for mask, repeat, blk, rep in ((128, 3, 1, 8), ([0xF0F0F0F0F0F0F0F0, 0xFFFF], 2, 2, 17), (77, 2, 0, 3),
                                   (16, 1, 1, 8)):
        core = aj.Core(device)
        src = core.local_tensor("half", 8192)
        x = (rng.standard_normal(8192) * 500).astype(np.float16)
        src[:] = x
        dst = core.local_tensor("half", 64)
        dst[:] = np.full(64, 0x5555, np.uint16).view(np.float16)
        if form == "ReduceRepeat":
            aj.ReduceRepeat(dst, src, mask, repeat, 1, blk, rep, reduce_type=aj.ReduceType.SUM)
        else:
            aj.ReduceDataBlock(dst, src, mask, repeat, 1, blk, rep, reduce_type=aj.ReduceType.SUM)
        trees = aj.explain_reduce_order(device, form, "half", mask=mask, repeat_time=repeat, src_blk_stride=blk,
                                        src_rep_stride=rep)
        out = dst.numpy()
        for k, tree in enumerate(trees):
            if tree is None:
                assert out.view(np.uint16)[k] == 0x5555  # not written (D51)
            else:
                assert _same_bits(out[k], tree.evaluate(x, saturate=core.half_saturating), "half"), (mask, k)
        assert (out.view(np.uint16)[len(trees):] == 0x5555).all()


# --- FPRev-style order recovery ---------------------------------------------------------------------------------------
def _lca_sizes(tree):
    """{(i, j): number of leaves under the lowest common ancestor of leaves i < j} of a ReduceTree."""
    sizes = {}

    def walk(node):
        if node is None:
            return []
        if not isinstance(node, tuple):
            return [node]
        a, b = walk(node[0]), walk(node[1])
        for i in a:
            for j in b:
                sizes[(min(i, j), max(i, j))] = len(a) + len(b)
        return a + b
    walk(tree.tree)
    return sizes


def _probe_pairs(leaves, rng, limit=150):
    pairs = [(a, b) for k, a in enumerate(leaves) for b in leaves[k + 1:]]
    if len(pairs) > limit:
        pairs = [pairs[k] for k in rng.choice(len(pairs), limit, replace=False)]
    return pairs


def _recover(run, tree, size, dtype, seed):
    """FPRev (Xie et al., 2025): with x_i = M, x_j = -M and every other element 1, the ones inside the subtree
    where M and -M meet are absorbed by M, so the result is (ones outside it): result = leaves - |LCA(i, j)|.
    M = 2**40 (float) absorbs any partial sum of < 2**16 ones; M = 2**15 (half) absorbs up to 16 ones, enough for
    the small half shapes used below. Checks the measured LCA size of every probed pair against the tree's."""
    want = _lca_sizes(tree)
    leaves = sorted(tree.leaves())
    big = 2.0 ** 40 if dtype == "float" else 2.0 ** 15
    for i, j in _probe_pairs(leaves, np.random.default_rng(seed)):
        x = np.ones(size, NP[dtype])
        x[i], x[j] = big, -big
        got = float(run(x))
        assert len(leaves) - got == want[(i, j)], (i, j, got, want[(i, j)])


def _fprev_dtype(device, n_float, n_half):
    return ("float", n_float) if "float" in _dtypes(device) else ("half", n_half)


def test_fprev_reduce_sum(device):
    dtype, n = _fprev_dtype(device, 300, 24)
    core = aj.Core(device)
    src, dst = core.local_tensor(dtype, 512), core.local_tensor(dtype, 16)
    tmp = core.local_tensor(dtype, 64)

    def count_form(x):
        src[:x.size] = x
        aj.ReduceSum(dst, src, tmp, n)
        return dst.numpy()[0]
    _recover(count_form, aj.explain_reduce_order(device, "count", dtype, count=n), n, dtype, 1)
    lanes = 256 // np.dtype(NP[dtype]).itemsize
    mask, repeat = (lanes, 3) if dtype == "float" else (8, 3)

    def high_dim(x):
        src[:x.size] = x
        aj.ReduceSum(dst, src, tmp, mask, repeat, 8)
        return dst.numpy()[0]
    _recover(high_dim, aj.explain_reduce_order(device, "highdim", dtype, mask=mask, repeat_time=repeat), 3 * lanes,
             dtype, 2)


def test_fprev_reduce_repeat_and_data_block(device):
    dtype, _ = _fprev_dtype(device, 0, 0)
    core = aj.Core(device)
    src, dst = core.local_tensor(dtype, 1024), core.local_tensor(dtype, 16)
    lanes = 256 // np.dtype(NP[dtype]).itemsize
    mask = [0x0F0F0F0F0F0F0F0F] if dtype == "float" else [0xF000F0F0, 0xF0F]  # 32 / 24 scattered lanes
    for form, call in (("ReduceRepeat", lambda: aj.ReduceRepeat(dst, src, mask, 1, 1, 2, 8,
                                                                reduce_type=aj.ReduceType.SUM)),
                       ("ReduceDataBlock", lambda: aj.ReduceDataBlock(dst, src, lanes, 1, 1, 1, 8,
                                                                      reduce_type=aj.ReduceType.SUM))):
        def run(x):
            src[:x.size] = x
            call()
            return dst.numpy()[0]
        m = mask if form == "ReduceRepeat" else lanes
        tree = aj.explain_reduce_order(device, form, dtype, mask=m, repeat_time=1,
                                       src_blk_stride=2 if form == "ReduceRepeat" else 1)[0]
        _recover(run, tree, 1024 if form == "ReduceRepeat" else lanes, dtype, 3)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_fprev_patterns(device, pattern):
    dtype, n = _fprev_dtype(device, 700, 12)
    core = aj.Core(device)
    src, work = _pattern_tensors(core, dtype, n)

    def run(x):
        src[:] = np.concatenate([x, np.zeros(src.size - x.size, x.dtype)])
        return study.run_pattern(pattern, src, work, n)
    _recover(run, aj.explain_reduce_order(device, pattern, dtype, count=n), n, dtype, 4)


# --- formats, refusals, the study and the CLI ---------------------------------------------------------------------------
def test_group_explain_formats_and_refusals():
    trees = aj.explain_reduce_order("ascend950", "BlockReduceSum", "float", mask=8, repeat_time=1)
    assert len(trees) == 8 and trees[1].tree is None  # the 950 writes +0 for a fully masked block
    assert aj.explain_reduce_order("a2", "BlockReduceSum", "float", mask=8, repeat_time=1)[1] is None
    t = aj.explain_reduce_order("a2", "BlockReduceSum->WholeReduceSum", "half", count=300)
    data = json.loads(t.to_json())
    assert data["form"] == "BlockReduceSum->WholeReduceSum" and data["adds"] == t.num_adds()
    assert t.to_dot().startswith("digraph") and "x[299]" in t.to_text(max_lines=10**6)
    rows = (np.random.default_rng(0).standard_normal((3, 300)) * 9).astype(np.float16)
    for r in range(3):
        assert np.float16(t.evaluate(rows[r])).tobytes() == t.evaluate_batch(rows)[r].tobytes()
    with pytest.raises(aj.ParameterError):
        aj.explain_reduce_order("910", "ReduceRepeat", "float", mask=64, repeat_time=1)
    with pytest.raises(aj.ParameterError):
        aj.explain_reduce_order("a2", "ReduceRepeat->ReduceRepeat", "half", count=0)
    with pytest.raises(aj.ParameterError):
        aj.explain_reduce_order("a2", "ReduceDataBlock", "half", mask=128)


def test_study_api_selection():
    r = study.run_study(n=1000, trials=2, devices="atlas-a2,atlas-training", api="BlockReduceSum->WholeReduceSum")
    labels = [v["variant"] for v in r["variants"]]
    assert labels[0] == "atlas-a2 BlockReduceSum->WholeReduceSum" and not any("count" in lb for lb in labels)
    full = study.run_study(n=1000, trials=2, devices="atlas-a2")
    assert {"atlas-a2 ReduceRepeat->ReduceRepeat", "atlas-a2 count (tree-seq)"} <= {v["variant"] for v in
                                                                                   full["variants"]}
    x = study.draw_inputs(np.random.default_rng(0), 1000, "normal", np.float16)
    got = _run_pattern(aj.Core("atlas-a2"), "ReduceRepeat->ReduceRepeat", x)
    err = abs(float(got) - full["exact"][0]) / study.ulp_of(full["exact"][0], np.float16)
    assert err == pytest.approx(full["ulp_errors"]["atlas-a2 ReduceRepeat->ReduceRepeat"][0])
    with pytest.raises(aj.ParameterError):
        study.run_study(n=100, trials=1, api="ReduceMax")


def test_cli_explain_and_study_api():
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    out = subprocess.run([sys.executable, "-m", "ascend_jit.cli", "explain", "--device", "a2", "--form",
                          "BlockReduceSum", "--n", "128"], capture_output=True, text=True, env=env)
    assert out.returncode == 0 and "--- dst[7]" in out.stdout
    out = subprocess.run([sys.executable, "-m", "ascend_jit.cli", "study", "--n", "300", "--trials", "2",
                          "--devices", "910", "--api", "ReduceSum,ReduceRepeat->ReduceRepeat"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0 and "atlas-training ReduceRepeat->ReduceRepeat" in out.stdout
    assert "BlockReduceSum" not in out.stdout
