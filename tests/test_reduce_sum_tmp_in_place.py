"""ReduceSum with sharedTmpBuffer at src's own address (session 66; ops-nn MSELossV2's 310P build calls
`ReduceSum<float>(t, t, t, blockNum * 8)`): on the non-950 trees (SPEC 4.2, 4.3) the first level's vcadd writes
repeat i's sum to tmp[i], a byte no later repeat reads, so the call is the repeat reductions' in-place form
(decisions.md "Reductions in place") and gives the out-of-place call's dst[0] bit for bit. Compared here on the
whole UB: every byte outside t unchanged, t[0] the out-of-place sum; t[1..] is unspecified (D18). The cases the
device computes otherwise (srcRepStride 0; the 910 / 310B second step through dst) and a tmp starting elsewhere in
src stay OverlapErrors that say why."""
import numpy as np
import pytest

import ascend_jit as aj

TREES = ["atlas-a2", "atlas-a3", "atlas-inference-aicore", "atlas-training", "atlas-200i-500-a2"]
STEP2_VIA_DST = {"atlas-training", "atlas-200i-500-a2"}   # dav_c100 / dav_m300 ReduceSumSecondStep
NP = {"half": np.float16, "float": np.float32}
BASE = 4096   # t's address; the out-of-place call's dst and tmp lie past t


def _dtypes(device):
    return [d for d in ("half", "float") if d in aj.Core(device).spec.reduce_sum_dtypes]


def _counts(lanes, ub_bytes):
    """Counts whose t, and the out-of-place call's dst and tmp past it, fit in the UB."""
    L, size = lanes, 256 // lanes
    counts = [1, 2, 7, 8, 9, L - 1, L, L + 1, 2 * L - 1, 3 * L + 5, 8 * L, 8 * L + 3, 16 * L, 16 * L + 1,
              31 * L + 17, 64 * L, 255 * L + 1, 256 * L, L * L - 1, L * L, L * L + 5, (L + 1) * L, (L + 1) * L + 3,
              2 * L * L, (2 * L + 1) * L - 1, 3 * L * L + 7]
    return [n for n in counts if BASE + n * size + 64 + (n // L + 66) * size + 64 <= ub_bytes]


def _core(device, dtype, n_elems, seed):
    core = aj.Core(device)
    rng = np.random.default_rng(seed)
    core.ub[:] = rng.integers(0, 256, core.ub.size, dtype=np.uint8)
    core.ub_written_by_host()
    t = core.local_tensor(dtype, n_elems, addr=BASE)
    t[:] = (rng.standard_normal(n_elems) * 100).astype(NP[dtype])
    return core, t


def _step2_refused(device, lanes, tree_repeats):
    return device in STEP2_VIA_DST and tree_repeats > lanes and tree_repeats % lanes != 0


def _compare(device, dtype, n_elems, seed, in_place, out_of_place, tree_repeats):
    """Run in_place(t) on one core and out_of_place(dst, t, tmp) on another with the same UB; the in-place UB is
    the original one but for t[0] (the out-of-place dst[0]) and t[1 .. n_elems-1] (unspecified, D18)."""
    size = np.dtype(NP[dtype]).itemsize
    lanes = 256 // size
    n_elems = max(n_elems, 32 // size)   # t holds sharedTmpBuffer's minimum, one 32-byte block (D11, D18)
    core, t = _core(device, dtype, n_elems, seed)
    before = core.ub.copy()
    if _step2_refused(device, lanes, tree_repeats):
        with pytest.raises(aj.OverlapError, match="ReduceSumSecondStep") as info:
            in_place(t)
        assert "dst/sharedTmpBuffer" in str(info.value) and "differs from the out-of-place" in str(info.value)
        assert np.array_equal(core.ub, before)
        return "refused"
    in_place(t)
    ref, s = _core(device, dtype, n_elems, seed)
    end = BASE + n_elems * size
    dst = ref.local_tensor(dtype, 16, addr=-(-end // 32) * 32)
    tmp = ref.local_tensor(dtype, max(tree_repeats, 2) + 64, addr=dst.addr + 64)
    out_of_place(dst, s, tmp)
    assert np.array_equal(ref.ub[BASE:end], before[BASE:end])            # the out-of-place src is intact
    want = before.copy()
    want[BASE:BASE + size] = ref.ub[dst.addr:dst.addr + size]
    got = core.ub.copy()
    got[BASE + size:end] = want[BASE + size:end]                          # t[1..]: unspecified (D18)
    assert got.tobytes() == want.tobytes(), (device, dtype, n_elems, tree_repeats)
    return "ran"


@pytest.mark.parametrize("device", TREES)
def test_count_form_with_tmp_and_dst_at_src_equals_the_out_of_place_call(device):
    """`ReduceSum(t, t, t, n)` over counts from 1 to several L*L (tails, R = multiples of 8 and 16, R > L), half and
    float: the out-of-place sum in t[0], no other byte outside t touched; on the 910 / 310B an R = n // L above L
    and not a multiple of it is refused (their second step sends the last group through dst)."""
    seen = set()
    for dtype in _dtypes(device):
        lanes = 256 // np.dtype(NP[dtype]).itemsize
        for i, n in enumerate(_counts(lanes, aj.Core(device).spec.ub_bytes)):
            seen.add(_compare(device, dtype, n, 1000 * i + n, lambda t, n=n: aj.ReduceSum(t, t, t, n),
                              lambda d, s, w, n=n: aj.ReduceSum(d, s, w, n), n // lanes))
    assert seen == ({"ran", "refused"} if device in STEP2_VIA_DST else {"ran"})


def _bit_mask_without_lane0(lanes):
    return [2**64 - 2, 2**64 - 1] if lanes == 128 else [2**64 - 2, 0]


@pytest.mark.parametrize("device", TREES)
def test_high_dim_form_with_tmp_and_dst_at_src_equals_the_out_of_place_call(device):
    """`ReduceSum(t, t, t, mask, R, stride)`: R from 1 to past 2L, full, partial and bit masks, strides 8, 9
    (repeats apart) and 1 (repeats overlapping): each later repeat starts past every tmp entry written before it."""
    for dtype in _dtypes(device):
        size = np.dtype(NP[dtype]).itemsize
        lanes = 256 // size
        for i, repeats in enumerate((1, 2, 7, 8, 16, 33, lanes - 1, lanes, lanes + 1, 2 * lanes, 2 * lanes + 3)):
            for j, (mask, stride) in enumerate(((lanes, 8), (lanes // 2 + 3, 9), (_bit_mask_without_lane0(lanes), 8),
                                                (lanes, 1), (17, 1))):
                n_elems = ((repeats - 1) * stride * 32 + 256) // size
                _compare(device, dtype, n_elems, 100 * i + j,
                         lambda t, m=mask, r=repeats, k=stride: aj.ReduceSum(t, t, t, m, r, k),
                         lambda d, s, w, m=mask, r=repeats, k=stride: aj.ReduceSum(d, s, w, m, r, k), repeats)


@pytest.mark.parametrize("device", TREES)
def test_tmp_at_src_with_dst_apart(device):
    """`ReduceSum(d, t, t, n)`: tmp at src's address, dst elsewhere (no second-step case: the tail group goes to
    the separate dst), equal to the out-of-place call on every device."""
    for dtype in _dtypes(device):
        lanes = 256 // np.dtype(NP[dtype]).itemsize
        for n in (3 * lanes + 5, (lanes + 1) * lanes + 3, 2 * lanes * lanes + 1):
            core, t = _core(device, dtype, n, n)
            d = core.local_tensor(dtype, 16, addr=0)
            aj.ReduceSum(d, t, t, n)
            ref, s = _core(device, dtype, n, n)
            d2 = ref.local_tensor(dtype, 16, addr=0)
            w = ref.local_tensor(dtype, n // lanes + 64, addr=BASE + -(-n * np.dtype(NP[dtype]).itemsize // 32) * 32)
            aj.ReduceSum(d2, s, w, n)
            assert d.numpy()[:1].tobytes() == d2.numpy()[:1].tobytes(), (device, dtype, n)


@pytest.mark.parametrize("device", TREES)
def test_tmp_elsewhere_in_src_and_stride_0_stay_refused(device):
    """A tmp starting inside src at another address, and a tmp at src's address with srcRepStride 0 (every repeat
    reads repeat 0's bytes, where tmp[0..] are written), stay OverlapErrors, nothing written; a stride-0 call whose
    mask skips the lanes under the entries written before the last repeat runs."""
    core, t = _core(device, "half", 2048, 7)
    d = core.local_tensor("half", 16, addr=0)
    before = core.ub.copy()
    cases = [] if core.spec.reduce_sum_tmp_untouched_count else [   # the A2 / A3 count form writes no tmp
        (lambda: aj.ReduceSum(t, t, t[16:], 1000), ("src/sharedTmpBuffer", "not elsewhere inside src"))]
    for call, words in cases + [
                        (lambda: aj.ReduceSum(d, t, t[16:], 128, 4, 8), ("src/sharedTmpBuffer", "not elsewhere")),
                        (lambda: aj.ReduceSum(t, t, t, 128, 3, 0), ("src_rep_stride 0", "repeat 0 writes its sum",
                                                                     "repeat 1 then reads again")),
                        (lambda: aj.ReduceSum(t, t, t, [2**64 - 2, 2**64 - 1], 3, 0), ("repeat 1 writes",))]:
        with pytest.raises(aj.OverlapError) as info:
            call()
        for w in words:
            assert w in str(info.value), (w, str(info.value))
        assert np.array_equal(core.ub, before)
    t[:] = np.ones(2048, np.float16)
    aj.ReduceSum(t, t, t, [2**64 - 4, 2**64 - 1], 3, 0)                   # lanes 0, 1 (tmp[0], tmp[1]) unread
    assert t.numpy()[0] == 3 * 126


def _counts_950(lanes, ub_bytes):
    """Every count from 1 to 5L + 3 (the VADD merges, the two-level tree's first tails), the multiples of 64 and
    128 and their neighbours up to 70 repeats, then tails around L*L (two levels to three) and up to 31000 (ops-nn
    IFMR's largest), as far as t and the out-of-place call's dst and tmp fit in the UB."""
    size = 256 // lanes
    counts = set(range(1, 5 * lanes + 4))
    for m in range(64, 70 * lanes + 1, 64):
        counts.update((m - 1, m, m + 1))
    counts.update((1000, 2047, 2049, 4000, 4096 + 17, 5555, 8191, 8193, 12288, 16384, 16385, 31000,
                   lanes * lanes - 1, lanes * lanes, lanes * lanes + 1, lanes * lanes + lanes - 1,
                   (lanes + 1) * lanes, (lanes + 1) * lanes + 1, 2 * lanes * lanes + 7, 3 * lanes * lanes + 5))
    return sorted(n for n in counts if BASE + n * size + 64 + (n // lanes + 66) * size + 64 <= ub_bytes)


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_950_count_form_with_tmp_and_dst_at_src_equals_the_out_of_place_call(dtype):
    """Session 67 (ops-nn IFMR, 950 only: `ReduceSum(t, t, t, n)` for n up to about 31000 floats): the 950's count
    form (dav_3510 ReduceSumCounterMode, SPEC 4.4) loads repeat i at byte 256*i and stores work entry i at byte
    i*sizeof(T), below every later load; the later levels read the work buffer only. t[0] is the out-of-place
    dst[0] bit for bit and no byte outside t changes, for every count from 1 up (tails, 1-4 repeats' VADD merges,
    two and three tree levels)."""
    lanes = 256 // np.dtype(NP[dtype]).itemsize
    counts = _counts_950(lanes, aj.Core("ascend950").spec.ub_bytes)
    assert len(counts) > 500 and counts[-1] > 3 * lanes * lanes
    for n in counts:
        assert _compare("ascend950", dtype, n, n, lambda t, n=n: aj.ReduceSum(t, t, t, n),
                        lambda d, s, w, n=n: aj.ReduceSum(d, s, w, n), n // lanes) == "ran"


def test_950_count_form_in_place_int32_and_tmp_at_src_with_dst_apart():
    """The same kernel for int32 (SPEC 4.4: one algorithm), and `ReduceSum(d, t, t, n)` with dst elsewhere."""
    for n in (257, 1000, 4097, 5000):
        core = aj.Core("ascend950")
        t = core.local_tensor("int32", n, addr=BASE)
        t[:] = np.arange(n, dtype=np.int32) % 1000 * 7 - 3
        aj.ReduceSum(t, t, t, n)
        assert int(t.GetValue(0)) == int(np.sum(np.arange(n, dtype=np.int64) % 1000 * 7 - 3))
        for dtype in ("half", "float"):
            core, t = _core("ascend950", dtype, n, n)
            d = core.local_tensor(dtype, 16, addr=0)
            aj.ReduceSum(d, t, t, n)
            ref, s = _core("ascend950", dtype, n, n)
            d2 = ref.local_tensor(dtype, 16, addr=0)
            w = ref.local_tensor(dtype, n // 64 + 64, addr=BASE + -(-n * np.dtype(NP[dtype]).itemsize // 32) * 32)
            aj.ReduceSum(d2, s, w, n)
            assert d.numpy()[:1].tobytes() == d2.numpy()[:1].tobytes(), (dtype, n)


def test_950_keeps_refusing_other_tmp_overlaps():
    """Still OverlapErrors on the 950, nothing written: a tmp starting elsewhere inside src (count form), and a tmp
    at src's address in the high-dim forms (normal mode past one repeat, counter mode past four), which the change
    of session 67 left out; the message says the count form is the one accepted."""
    core, t = _core("ascend950", "float", 1024, 3)
    before = core.ub.copy()
    with pytest.raises(aj.OverlapError, match="not elsewhere inside src"):
        aj.ReduceSum(t, t, t[16:], 1024)
    assert np.array_equal(core.ub, before)
    calls = [lambda: aj.ReduceSum(t, t, t, 64, 2, 8)]
    for call in calls:
        with pytest.raises(aj.OverlapError, match="accepted in the count form") as info:
            call()
        assert "not in the high-dim form" in str(info.value) and "pass a buffer apart from src" in str(info.value)
        assert np.array_equal(core.ub, before)
    core.SetMaskCount()
    with pytest.raises(aj.OverlapError, match="not in the high-dim form"):
        aj.ReduceSum(t, t, t, 1024, 1, 8)
    assert np.array_equal(core.ub, before)


def test_950_sanitizer_reports_nothing_for_the_in_place_count_form():
    """A sanitizing core ("report,strict") sees the 950's `ReduceSum(t, t, t, n)` (two and three levels) as one
    vector instruction each: no race or overlap of its own operands."""
    for dtype in ("half", "float"):
        lanes = 256 // np.dtype(NP[dtype]).itemsize
        with aj.sanitize_session("report,strict") as session:
            core = aj.Core("ascend950")
            t = core.local_tensor(dtype, lanes * lanes + 3 * lanes)
            t[:] = np.ones(t.GetSize(), NP[dtype]) / 4
            aj.ReduceSum(t, t, t, 17 * lanes + 3)
            core.PipeBarrier(aj.PIPE_V)
            aj.ReduceSum(t, t, t, lanes * lanes + 2 * lanes + 1)
            core.PipeBarrier(aj.PIPE_ALL)
            assert float(t.GetValue(0)) > 0
        assert session.reports == [], aj.format_reports(session.reports)


@pytest.mark.parametrize("device", TREES)
def test_sanitizer_reports_nothing_for_the_in_place_call(device):
    """A sanitizing core ("report,strict") sees `ReduceSum(t, t, t, n)` and the high-dim form as one vector
    instruction each: no race or overlap of its own operands; the caller's barriers order the calls."""
    dtype = _dtypes(device)[-1]
    lanes = 256 // np.dtype(NP[dtype]).itemsize
    with aj.sanitize_session("report,strict") as session:
        core = aj.Core(device)
        t = core.local_tensor(dtype, 40 * lanes)
        t[:] = np.ones(40 * lanes, NP[dtype])
        aj.ReduceSum(t, t, t, 17 * lanes + 3)
        core.PipeBarrier(aj.PIPE_V)
        aj.ReduceSum(t, t, t, lanes, 9, 8)
        core.PipeBarrier(aj.PIPE_ALL)
        assert float(t.GetValue(0)) > 0
    assert session.reports == [], aj.format_reports(session.reports)
