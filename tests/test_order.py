"""explain_reduce_order: tree shapes, formats and the batch evaluator."""
import json

import numpy as np
import pytest

import ascend_jit as aj


def test_tree_seq_shape():
    o = aj.explain_reduce_order("atlas-a2", "count", "half", count=256)
    assert o.num_adds() == 2 * 127 + 1 and o.depth() == 8  # two 7-level trees, one sequential add
    assert sorted(o.leaves()) == list(range(256))


def test_tree_tree_tail_adds_the_tail_last():
    o = aj.explain_reduce_order("atlas-training", "count", "half", count=300)
    node = o.tree
    while node[1] is None:  # the final tree over [body, tail, +0, ...]: (((body + tail) + 0) + 0) ...
        node = node[0]
    body, tail = node
    assert sorted(aj.ReduceTree(body, "", "", "half", "").leaves()) == list(range(256))
    assert sorted(aj.ReduceTree(tail, "", "", "half", "").leaves()) == list(range(256, 300))


def test_950_vadd_two_repeats_merges_lane_wise():
    o = aj.explain_reduce_order("ascend950", "count", "half", count=130)
    assert o.tree[0][0][0][0][0][0][0] == (0, 128)  # lane 0 = r0[0] + r1[0] before the tree
    assert o.depth() == 8


def test_formats():
    o = aj.explain_reduce_order("910B", "highdim", "float", mask=64, repeat_time=3)
    data = json.loads(o.to_json())
    assert data["device"] == "atlas-a2" and data["dtype"] == "float" and data["adds"] == o.num_adds()
    assert o.to_dot().startswith("digraph") and "x[0]" in o.to_text()
    assert "use --format json" in aj.explain_reduce_order("a2", "count", "half", count=8320).to_text(max_lines=10)
    assert aj.explain_reduce_order("a2", "high-dim", "half", mask=128, repeat_time=2).num_adds() > 0


def test_evaluate_batch_equals_evaluate():
    o = aj.explain_reduce_order("atlas-inference-aicore", "count", "half", count=777)
    rows = (np.random.default_rng(2).standard_normal((5, 777)) * 300).astype(np.float16)
    batch = o.evaluate_batch(rows, saturate=True)
    for r in range(5):
        assert np.float16(o.evaluate(rows[r], saturate=True)).tobytes() == batch[r].tobytes()


def _trees(device, dtype):
    """Trees of every shape the forms build on `device`: one leaf, a +0 tree, +0 lanes inside, sequential chains."""
    explain = lambda form, **kw: aj.explain_reduce_order(device, form, dtype, **kw)
    trees = [explain("count", count=n) for n in (1, 2, 130, 777, 4100)]
    trees += [explain("highdim", mask=m, repeat_time=r) for m, r in ((5, 3), (2**40 + 1, 1), (1, 0))]
    for pattern in ("ReduceRepeat->ReduceRepeat", "BlockReduceSum->WholeReduceSum"):
        try:
            trees.append(explain(pattern, count=300))
        except aj.ParameterError:   # a device without the pattern's dtype
            pass
    return trees


@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
@pytest.mark.parametrize("dtype", ["half", "float"])
def test_evaluate_batch_is_evaluate_for_every_tree_shape_row_and_chunk(device, dtype, monkeypatch):
    """The batch evaluator adds a height of the tree at a time and splits the rows into chunks that fit its value
    budget: the same bits as evaluate() row by row, saturating or not, over sums that overflow, infinities and NaN."""
    from ascend_jit import order
    rng = np.random.default_rng(48)
    np_t = {"half": np.float16, "float": np.float32}[dtype]
    big = float(np.finfo(np_t).max) / 4
    for tree in _trees(device, dtype):
        width = max(tree.leaves(), default=0) + 1
        rows = (rng.standard_normal((6, width)) * big / 8).astype(np_t)
        rows[1, :] = big
        rows[2, ::3], rows[3, ::5], rows[4, ::7] = np.inf, -np.inf, np.nan
        for chunked in (False, True):
            monkeypatch.setattr(order, "_BATCH_VALUES", 1 if chunked else 1 << 22)   # one row per chunk
            for saturate in ((False, True) if dtype == "half" else (False,)):
                batch = tree.evaluate_batch(rows, saturate=saturate)
                assert batch.dtype == np_t and batch.shape == (6,)
                for r in range(6):
                    assert np_t(tree.evaluate(rows[r], saturate=saturate)).tobytes() == batch[r].tobytes(), \
                        (tree.description, r, saturate)


def test_large_trees_are_walked_for_their_call_only(monkeypatch):
    """The walks and count-form trees of up to a tile's elements are shared (a kernel's expectation replays one per
    tile); larger ones, the study's and sweeps', are not kept: same bits either way."""
    from ascend_jit import order
    small = aj.explain_reduce_order("atlas-a2", "count", "half", count=300)
    assert aj.explain_reduce_order("atlas-a2", "count", "half", count=300).tree is small.tree
    assert small.postorder() is small.postorder()
    rows = (np.random.default_rng(3).standard_normal((4, 777)) * 50).astype(np.float16)
    want = aj.explain_reduce_order("atlas-a2", "count", "half", count=777).evaluate_batch(rows)
    monkeypatch.setattr(order, "_REMEMBERED_OPS", 64)
    monkeypatch.setattr(order, "_WALKS", {})
    big = aj.explain_reduce_order("atlas-a2", "count", "half", count=777)
    assert big.tree is not aj.explain_reduce_order("atlas-a2", "count", "half", count=777).tree
    assert big.evaluate_batch(rows).tobytes() == want.tobytes() and order._WALKS == {}


@pytest.mark.parametrize("kwargs,error", [
    (dict(device="a2", form="count", dtype="half", count=0), aj.ParameterError),
    (dict(device="a2", form="diagonal", dtype="half", count=5), aj.ParameterError),
    (dict(device="a2", form="count", dtype="int32", count=5), aj.ParameterError),
    (dict(device="a2", form="highdim", dtype="half", mask=5, counter_mode=True), aj.ParameterError),
    (dict(device="310p-vectorcore", form="count", dtype="half", count=5), aj.UnsupportedDeviceError)])
def test_refusals(kwargs, error):
    with pytest.raises(error):
        aj.explain_reduce_order(**kwargs)


def test_d27_reduce_order_is_the_enum_and_the_old_tree_name_warns():
    assert [int(o) for o in aj.ReduceOrder] == [0, 1, 2, 3] and aj.ReduceOrder(1) is aj.ReduceOrder.ORDER_INDEX_VALUE
    t = aj.explain_reduce_order("a2", "count", "half", count=4)
    assert type(t) is aj.ReduceTree
    with pytest.warns(DeprecationWarning, match="ReduceTree"):
        old = aj.ReduceOrder((0, 1), "atlas-a2", "count", "half", "one add")
    assert type(old) is aj.ReduceTree and old.num_adds() == 1
    with pytest.warns(DeprecationWarning):
        assert isinstance(t, aj.ReduceOrder)
    with pytest.warns(DeprecationWarning):
        assert aj.ReduceOrder.leaves(t) == [0, 1, 2, 3]
    assert not isinstance(3, aj.ReduceOrder)
