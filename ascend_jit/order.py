"""explain_reduce_order: the reduction tree a summing reduction implements (SPEC 4, SPEC-2 8), for users, the study
and tests; and `ReduceOrder`, the Ascend output-order enum of ReduceRepeat (SPEC-2 D27).

A tree is nested tuples: a leaf is the element index (relative to src, in elements), `None` is a +0 padding lane
(D2), and `(left, right)` is one add rounded to the element type. Subtrees made only of padding collapse to None.
`ReduceTree.evaluate(x)` replays the tree with per-node rounding; the kernels must agree with it bit for bit.

D27 renamed the tree class from `ReduceOrder` to `ReduceTree`. For one release the old spellings keep working with
a DeprecationWarning: `aj.ReduceOrder(tree, device, form, dtype, description)` builds a ReduceTree,
`isinstance(t, aj.ReduceOrder)` is true for a ReduceTree, and the tree's methods are reachable as
`aj.ReduceOrder.<method>` (the enum's metaclass forwards them).
"""
import enum
import functools
import json
import math
import warnings

import numpy as np

from .api._common import INT32_MAX, UINT64_MAX, as_int
from .devices import TREE_SEQ, TREE_TREE_950, TREE_TREE_TAIL, get_device
from .dtypes import resolve
from .errors import ParameterError

_ZERO = None
_WALKS = {}      # id(tree) -> (tree, (post-order, add schedule)): ReduceTree._walks's memory
_WALKS_KEPT = 16
_REMEMBERED_OPS = 1 << 16   # the largest walk remembered: a tree of 32 Ki leaves (a tile; some 100 MB at most in all)
_BATCH_VALUES = 1 << 22   # evaluate_batch's node values per chunk of rows (16 MiB of float32)


def _add(a, b):
    return _ZERO if a is _ZERO and b is _ZERO else (a, b)


def _tree(items, lanes):
    level = list(items) + [_ZERO] * (lanes - len(items))
    while len(level) > 1:
        level = [_add(level[2 * k], level[2 * k + 1]) for k in range(len(level) // 2)]
    return level[0]


def _groups(items, lanes):
    return [_tree(items[g:g + lanes], lanes) for g in range(0, len(items), lanes)]


class ReduceTree:
    """The reduction tree of one call, with helpers to evaluate, measure and print it."""

    def __init__(self, tree, device, form, dtype, description):
        self.tree, self.device, self.form, self.dtype, self.description = tree, device, form, dtype, description

    # -- structure --------------------------------------------------------------------------------------------
    def postorder(self):
        """Iterative post-order: ('leaf', i) / ('zero',) / ('add',) instructions for a stack machine (a tuple,
        remembered per tree: a kernel's expectation replays one count-form tree per tile, and _count_tree hands
        every call of one shape the same tree)."""
        return self._walks()[0]

    def _walks(self):
        """(post-order, add schedule), computed once per tree object. The schedule numbers the nodes (0: the +0
        lane, then leaves and adds in post-order) and groups the adds by height, so that evaluate_batch does each
        height's adds, which depend only on lower ones, as one numpy operation."""
        tree = self.tree
        known = _WALKS.get(id(tree))
        if known is not None and known[0] is tree:
            return known[1]
        out, stack = [], [(tree, False)]
        while stack:
            node, expanded = stack.pop()
            if node is _ZERO:
                out.append(("zero",))
            elif isinstance(node, tuple):
                if expanded:
                    out.append(("add",))
                else:
                    stack.append((node, True))
                    stack.append((node[1], False))
                    stack.append((node[0], False))
            else:
                out.append(("leaf", node))
        leaf_nodes, leaf_elements, adds, nodes = [], [], {}, []   # nodes: (node id, height) stack
        count = 1
        for op in out:
            if op[0] == "zero":
                nodes.append((0, 0))
                continue
            if op[0] == "leaf":
                leaf_nodes.append(count)
                leaf_elements.append(op[1])
                nodes.append((count, 0))
            else:
                (b, hb), (a, ha) = nodes.pop(), nodes.pop()
                height = max(ha, hb) + 1
                adds.setdefault(height, []).append((count, a, b))
                nodes.append((count, height))
            count += 1
        levels = [tuple(np.array(column, np.intp) for column in zip(*adds[h])) for h in sorted(adds)]
        schedule = (count, np.array(leaf_nodes, np.intp), np.array(leaf_elements, np.intp), levels, nodes[0][0])
        walks = (tuple(out), schedule)
        if len(out) <= _REMEMBERED_OPS:   # the study's trees of millions of leaves are walked once and let go
            if len(_WALKS) >= _WALKS_KEPT:
                _WALKS.clear()
            _WALKS[id(tree)] = (tree, walks)   # the tree itself is kept too, so its id is not reused
        return walks

    def leaves(self):
        return [op[1] for op in self.postorder() if op[0] == "leaf"]

    def num_adds(self):
        return sum(1 for op in self.postorder() if op[0] == "add")

    def depth(self):
        """Longest chain of adds from a leaf to the root (the +0 padding's included)."""
        stack = []
        for op in self.postorder():
            if op[0] == "add":
                b, a = stack.pop(), stack.pop()
                stack.append(max(a, b) + 1)
            else:
                stack.append(0)
        return stack[0] if stack else 0

    def leaf_depths(self):
        """Number of rounded adds on the path from each leaf to the root: the per-element error multiplier. An add
        of the +0 padding lanes (a _ZERO child: _add folds +0 + +0 into one) rounds nothing, x + 0 being x, and is
        not counted (port61d: orders giving the same bits had bounds apart by 2x, the A2's count tree of 2 floats
        gave each a depth of 6 where one add sums them); depth() and num_adds() count every add the tree does."""
        depths, stack = {}, [(self.tree, 0)]
        while stack:
            node, d = stack.pop()
            if isinstance(node, tuple):
                rounds = node[0] is not _ZERO and node[1] is not _ZERO
                stack.append((node[0], d + rounds))
                stack.append((node[1], d + rounds))
            elif node is not _ZERO:
                depths[node] = d
        return depths

    # -- evaluation -------------------------------------------------------------------------------------------
    def evaluate(self, values, saturate=False):
        """Replay the tree on `values` (indexed by leaf) with one rounding per add (reference numerics). A NaN
        result is the canonical quiet NaN the instructions store (SPEC-2 D35; the host's inf - inf sets the sign bit,
        port64d)."""
        from .reference.numerics import add as rounded_add
        from .reference.numerics import round_to
        stack = []
        dt = self.dtype
        for op in self.postorder():
            if op[0] == "leaf":
                v = values[op[1]]
                stack.append(float(v) if dt in ("half", "float") else int(v))
            elif op[0] == "zero":
                stack.append(0.0 if dt in ("half", "float") else 0)
            else:
                b, a = stack.pop(), stack.pop()
                stack.append(rounded_add(dt, a, b, sat_half=saturate))
        result = stack[0]
        if dt not in ("half", "float"):
            return result
        result = round_to(dt, result)
        return math.nan if result != result else result

    def evaluate_batch(self, rows, saturate=False):
        """evaluate() for every row of a 2-D array at once (numpy arithmetic, one rounding per add): the
        independent check of kernels that reduce many same-sized tiles. The adds of one height (_walks) run as
        one numpy operation; each is still one float16 or float32 add of its two operands, rounded once."""
        np_t = {"half": np.float16, "float": np.float32}[self.dtype]
        rows = np.asarray(rows, np_t)
        count, leaf_nodes, leaf_elements, levels, root = self._walks()[1]
        result = np.empty(rows.shape[0], np_t)
        chunk = max(1, _BATCH_VALUES // count)
        with np.errstate(all="ignore"):
            for first in range(0, rows.shape[0], chunk):
                part = rows[first:first + chunk]
                values = np.empty((part.shape[0], count), np_t)
                values[:, 0] = 0
                values[:, leaf_nodes] = part[:, leaf_elements]
                for out, left, right in levels:
                    r = values[:, left] + values[:, right]  # numpy rounds half adds once (exact in float32, RNE)
                    if saturate and np_t is np.float16:
                        r = np.clip(np.where(np.isnan(r), np_t(0), r), np_t(-65504), np_t(65504))
                    values[:, out] = r
                result[first:first + chunk] = values[:, root]
        result[np.isnan(result)] = np_t(np.nan)   # the canonical quiet NaN, as evaluate()
        return result

    # -- output -----------------------------------------------------------------------------------------------
    def _to_lists(self):
        def conv(node):
            if node is _ZERO:
                return "+0"
            if isinstance(node, tuple):
                return [conv(node[0]), conv(node[1])]
            return node
        return conv(self.tree)

    def to_json(self):
        return json.dumps({"device": self.device, "form": self.form, "dtype": self.dtype,
                           "description": self.description, "adds": self.num_adds(), "depth": self.depth(),
                           "tree": self._to_lists()})

    def to_text(self, max_lines=200):
        lines = [f"{self.device} {self.form} {self.dtype}: {self.description}",
                 f"{self.num_adds()} adds, depth {self.depth()}"]
        stack = [(self.tree, 0)]
        while stack and len(lines) < max_lines + 2:
            node, indent = stack.pop()
            pad = "  " * indent
            if isinstance(node, tuple):
                lines.append(pad + "+")
                stack.append((node[1], indent + 1))
                stack.append((node[0], indent + 1))
            else:
                lines.append(pad + ("+0" if node is _ZERO else f"x[{node}]"))
        if stack:
            lines.append(f"... ({self.num_adds()} adds in all; use --format json for the whole tree)")
        return "\n".join(lines)

    def to_dot(self):
        lines = ["digraph reduce {", "  rankdir=BT;"]
        counter = [0]

        def emit(node):
            counter[0] += 1
            me = f"n{counter[0]}"
            if isinstance(node, tuple):
                lines.append(f'  {me} [label="+", shape=circle];')
                for child in node:
                    lines.append(f"  {emit(child)} -> {me};")
            else:
                label = "+0" if node is _ZERO else f"x[{node}]"
                lines.append(f'  {me} [label="{label}", shape=box];')
            return me
        stack_guard = self.depth()
        if stack_guard > 900:
            raise ParameterError("explain", "depth", stack_guard, legal="<= 900 for --format dot")
        emit(self.tree)
        lines.append("}")
        return "\n".join(lines)


_DEPRECATED = ("aj.ReduceOrder as the tree class is deprecated (SPEC-2 D27): the tree class is aj.ReduceTree and "
               "aj.ReduceOrder is the Ascend output-order enum; the old spelling goes away in the next release")


class _ReduceOrderType(enum.EnumMeta):
    """Metaclass of ReduceOrder: the D27 transition shims for code written against the old tree class."""

    def __call__(cls, value, *args, **kwargs):
        if len(args) == 4 or {"device", "form", "description"} & set(kwargs):  # the tree constructor's shape
            warnings.warn(_DEPRECATED, DeprecationWarning, stacklevel=2)
            return ReduceTree(value, *args, **kwargs)
        return super().__call__(value, *args, **kwargs)

    def __instancecheck__(cls, obj):
        if isinstance(obj, ReduceTree):
            warnings.warn(_DEPRECATED, DeprecationWarning, stacklevel=2)
            return True
        return super().__instancecheck__(obj)

    def __getattr__(cls, name):
        if not name.startswith("_") and hasattr(ReduceTree, name):
            warnings.warn(_DEPRECATED, DeprecationWarning, stacklevel=2)
            return getattr(ReduceTree, name)
        raise AttributeError(name)


class ReduceOrder(enum.IntEnum, metaclass=_ReduceOrderType):
    """Output order of ReduceRepeat MAX/MIN (SPEC-2 D27, 8.1; DK ReduceRepeat.md): [value, index], [index, value],
    [value] or [index as uint32] per repeat."""
    ORDER_VALUE_INDEX = 0
    ORDER_INDEX_VALUE = 1
    ORDER_ONLY_VALUE = 2
    ORDER_ONLY_INDEX = 3


# The summing reductions beyond ReduceSum (SPEC-2 8.1, 8.2) and the two-stage patterns real kernels use.
GROUP_FORMS = {"ReduceRepeat": "repeat", "WholeReduceSum": "repeat", "RepeatReduceSum": "repeat",
               "ReduceDataBlock": "block", "BlockReduceSum": "block"}
PATTERNS = {"ReduceRepeat->ReduceRepeat": "repeat", "WholeReduceSum->WholeReduceSum": "repeat",
            "BlockReduceSum->WholeReduceSum": "block", "ReduceDataBlock->ReduceRepeat": "block"}
FORMS = ("count", "highdim") + tuple(GROUP_FORMS) + tuple(PATTERNS)


def explain_reduce_order(device, form, dtype, count=None, mask=None, repeat_time=None, src_rep_stride=8,
                         counter_mode=False, src_blk_stride=1):
    """The summation tree of a summing reduction on `device` (leaves are element indices relative to src):

    - ReduceSum: form "count" (with `count`) or "highdim" (with `mask` and `repeat_time`, or on the 950 with
      counter_mode=True and the count in `mask`): one ReduceTree.
    - ReduceRepeat SUM (also "WholeReduceSum", "RepeatReduceSum") and ReduceDataBlock SUM ("BlockReduceSum"), with
      `mask`, `repeat_time`, `src_blk_stride`, `src_rep_stride`: a list with one entry per dst element (one per
      repeat, or eight per repeat); a DataBlock whose lanes are all masked is None where the device does not write
      it (SPEC-2 8.2, D51) and a +0 tree where it writes +0.
    - The two-stage patterns "ReduceRepeat->ReduceRepeat" and "BlockReduceSum->WholeReduceSum" over `count`
      contiguous elements: stage 1 over ceil(count/L) full-mask repeats (lanes past count are +0: zero padding or a
      mask), then WholeReduceSum over the stage-1 results (at least once), level by level (results past the last
      are +0) until one value is left (docs/decisions.md "Reductions"): one ReduceTree.
    """
    spec = get_device(device)
    d = resolve(dtype, "explain_reduce_order")
    spec.require_supported("explain_reduce_order")
    if d.name not in ("half", "float"):
        raise ParameterError("explain_reduce_order", "dtype", d.name, legal="half, float", device=spec.name)
    lanes = d.lanes_per_repeat
    # the parameters' C++ types (int32 count and ReduceSum repeatTime, SPEC 1.4; repeat_time 0..255 of the
    # ReduceRepeat / ReduceDataBlock forms, SPEC-2 1.2; uint16 strides; uint64 mask words) through the shared as_int,
    # before a tree is built node by node: a count of 2**40 or 2**64 ran for minutes and took gigabytes. Counts past
    # the UB stay accepted: the study and sweeps model tiled sums of millions of elements with these trees.
    api = "explain_reduce_order"
    src_rep_stride = as_int(api, spec, "src_rep_stride", src_rep_stride, 0, 65535)
    src_blk_stride = as_int(api, spec, "src_blk_stride", src_blk_stride, 0, 65535)
    if count is not None:
        count = as_int(api, spec, "count", count, 1, INT32_MAX)
    if repeat_time is not None:
        repeat_time = as_int(api, spec, "repeat_time", repeat_time, 0, 255 if form in GROUP_FORMS else INT32_MAX)
    if isinstance(mask, (list, tuple)):
        mask = [as_int(api, spec, "mask", word, 0, UINT64_MAX) for word in mask]
    elif mask is not None:
        mask = as_int(api, spec, "mask", mask, 0, UINT64_MAX)
    step = src_rep_stride * 32 // d.size
    form = {"high-dim": "highdim", "high_dim": "highdim"}.get(form, form)
    if form in GROUP_FORMS or form in PATTERNS:
        family = GROUP_FORMS.get(form) or PATTERNS[form]
        offered = (spec.reduce_data_block_dtypes if family == "block"
                   else [s for s, t in spec.reduce_repeat_sum_pairs if s == t])
        if d.name not in offered:
            raise ParameterError("explain_reduce_order", "dtype", d.name, legal=", ".join(offered), device=spec.name)
        if form in PATTERNS:
            return _explain_pattern(spec, form, family, d, count)
        return _explain_groups(spec, form, family, d, mask, repeat_time, src_blk_stride, src_rep_stride)
    if form == "count":
        _require_count(spec, count)
        tree, description = _count_tree(spec.reduce_sum_count_algorithm, count, lanes, 8 * 32 // d.size)
        return ReduceTree(tree, spec.name, form, d.name, description)
    if form != "highdim":
        raise ParameterError("explain_reduce_order", "form", form, legal=", ".join(FORMS), device=spec.name)
    if counter_mode:
        if spec.reduce_sum_highdim_algorithm != TREE_TREE_950:
            raise ParameterError("explain_reduce_order", "counter_mode", True, legal="ascend950 only (D23)",
                                 device=spec.name)
        if int(mask) & 0xFFFFFFFF == 0:   # as the call refuses it (review64b: a +0 tree had been given)
            raise ParameterError("explain_reduce_order", "mask (counter-mode count)", 0, device=spec.name,
                                 legal="a count of at least 1 in the mask's low 32 bits (D23): ReduceSum refuses 0")
        return ReduceTree(_vadd_tree(int(mask) & 0xFFFFFFFF, lanes, step), spec.name, form, d.name,
                           "950 counter-mode high-dim order (D23)")
    if isinstance(mask, (list, tuple)) and lanes == 64 and len(mask) > 1 and int(mask[1]) != 0:
        raise ParameterError("explain_reduce_order", "mask[1]", int(mask[1]), device=spec.name,
                             legal="0 for 32-bit types (SPEC 2.1), as ReduceSum refuses it")
    active = _active_lanes(spec, mask, repeat_time, lanes)
    repeat = repeat_time
    if not active:   # D14 (audit64c: a mask-0 tree had read as an ordinary TREE-TREE summing to +0)
        if spec.reduce_sum_highdim_algorithm == TREE_TREE_950:
            raise ParameterError("explain_reduce_order", "mask", mask, device=spec.name,
                                 legal="a mask with at least one lane: ReduceSum refuses mask 0 here (D14)")
        return ReduceTree(_ZERO, spec.name, form, d.name, "mask 0: the call writes nothing (D14)")
    if spec.reduce_sum_highdim_algorithm == TREE_TREE_950:
        repeat = max(repeat, 1)
    elif repeat == 0:
        return ReduceTree(_ZERO, spec.name, form, d.name, "repeat 0: nothing is summed (D14)")
    rows = [[i * step + j if j in active else _ZERO for j in range(lanes)] for i in range(repeat)]
    return ReduceTree(_tree_tree(rows, lanes), spec.name, form, d.name, "TREE-TREE (SPEC 4.2-4.4)")


def _count_tree(algo, count, lanes, step):
    """The ReduceSum count-form tree and its description (SPEC 4): one shared tuple per shape up to a tile's worth of
    elements, so that a kernel's expectation that replays it tile by tile builds it, and walks it
    (ReduceTree.postorder), once; the study's and sweeps' larger trees are built for their call only."""
    if count <= _REMEMBERED_OPS // 2:
        return _shared_count_tree(algo, count, lanes, step)
    return _build_count_tree(algo, count, lanes, step)


@functools.lru_cache(maxsize=16)
def _shared_count_tree(algo, count, lanes, step):
    return _build_count_tree(algo, count, lanes, step)


def _build_count_tree(algo, count, lanes, step):
    if algo == TREE_SEQ:
        reps = [_tree(range(r * lanes, min(count, (r + 1) * lanes)), lanes) for r in range(-(-count // lanes))]
        acc = reps[0]
        for r in reps[1:]:
            acc = (acc, r)
        return acc, "TREE-SEQ: tree per repeat, sequential accumulation (D1)"
    if algo == TREE_TREE_TAIL:
        body_n, tail = divmod(count, lanes)
        if body_n == 0:
            tree = _tree(range(count), lanes)
        else:
            tree = _tree_tree([list(range(r * lanes, (r + 1) * lanes)) for r in range(body_n)], lanes)
            if tail:
                tree = _tree([tree, _tree(range(body_n * lanes, count), lanes)], lanes)
        return tree, "TREE-TREE over full repeats, tail added last (SPEC 4.3)"
    return _vadd_tree(count, lanes, step), "950 software order (SPEC 4.4)"


def _active_lanes(spec, mask, repeat_time, lanes):
    """The lanes a mask form's mask enables (mask and repeat_time already in their C++ ranges, explain_reduce_order);
    the form needs both."""
    if mask is None or repeat_time is None:
        raise ParameterError("explain_reduce_order", "mask/repeat_time", (mask, repeat_time),
                             legal="a mask and repeat_time >= 0", device=spec.name)
    from .core import continuous_mask_words
    if isinstance(mask, (list, tuple)):
        lo, hi = int(mask[0]), int(mask[1]) if len(mask) > 1 else 0
    else:
        hi, lo = continuous_mask_words(min(int(mask), lanes))
    return [j for j in range(lanes) if ((hi if j >= 64 else lo) >> (j % 64)) & 1]


def _explain_groups(spec, form, family, d, mask, repeat_time, src_blk_stride, src_rep_stride):
    """ReduceRepeat SUM / ReduceDataBlock SUM: one tree per dst element (SPEC-2 8.1, 8.2)."""
    lanes, epb = d.lanes_per_repeat, d.lanes_per_block
    active = set(_active_lanes(spec, mask, repeat_time, lanes))
    group = lanes if family == "repeat" else epb
    out = []
    for i in range(repeat_time):
        addr = [i * src_rep_stride * epb + (j // epb) * src_blk_stride * epb + j % epb if j in active else _ZERO
                for j in range(lanes)]
        for g in range(0, lanes, group):
            if family == "block" and not active & set(range(g, g + group)) and spec.reduce_block_masked == "keep":
                out.append(None)  # not written (D51)
                continue
            desc = (f"repeat {i}: adjacent-pair tree over its {lanes} lanes (SPEC 4.1, SPEC-2 8.1)" if family == "repeat"
                    else f"repeat {i} block {g // epb}: adjacent-pair tree over {epb} lanes (SPEC-2 8.2)")
            out.append(ReduceTree(_tree(addr[g:g + group], group), spec.name, form, d.name, desc))
    return out


def _require_count(spec, count):
    """The count forms need a count (its range is checked by explain_reduce_order)."""
    if count is None:
        raise ParameterError("explain_reduce_order", "count", count, legal=">= 1", device=spec.name)


def _explain_pattern(spec, form, family, d, count):
    """Stage 1 (ReduceRepeat or BlockReduceSum over full repeats), then WholeReduceSum levels down to one value."""
    _require_count(spec, count)
    lanes = d.lanes_per_repeat
    items = list(range(int(count)))
    level = _groups(items, lanes if family == "repeat" else d.lanes_per_block)
    levels = 1
    while len(level) > 1 or levels == 1:  # stage 2 runs at least once
        level = _groups(level, lanes)
        levels += 1
    first = "ReduceRepeat SUM" if family == "repeat" else "BlockReduceSum"
    return ReduceTree(level[0], spec.name, form, d.name,
                      f"{first} over {-(-count // lanes)} repeats, then {levels - 1} WholeReduceSum level(s)")


def _tree_tree(rows, lanes):
    per = [_tree(r, lanes) for r in rows]
    if len(per) == 1:
        return per[0]
    groups = _groups(per, lanes)
    return groups[0] if len(groups) == 1 else _tree(groups, lanes)


def _vadd_tree(count, lanes, step):
    """SPEC 4.4 table; repeat k starts at element k*step."""
    def rep(k):
        return [k * step + j for j in range(lanes)]
    if count <= lanes:
        return _tree(range(count), lanes)
    nrep = math.ceil(count / lanes)
    if nrep <= 4:
        part = count - (nrep - 1) * lanes
        r = [rep(k) for k in range(nrep)]
        if nrep == 2:
            v = [(r[0][k], r[1][k]) if k < part else r[0][k] for k in range(lanes)]
        elif nrep == 3:
            v = [((r[0][k], r[1][k]), r[2][k]) if k < part else (r[0][k], r[1][k]) for k in range(lanes)]
        else:
            v = [((r[0][k], r[1][k]), (r[2][k], r[3][k]) if k < part else r[2][k]) for k in range(lanes)]
        return _tree(v, lanes)
    level = [_tree([k * step + j for j in range(min(lanes, count - k * lanes))], lanes) for k in range(nrep)]
    if nrep > lanes:
        level = _groups(level, lanes)
    return _tree(level, lanes)
