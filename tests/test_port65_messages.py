"""Session 65's fresh ports (docs/decisions.md "What the session-65 ports found"): the refusals and forms they met."""
import numpy as np
import pytest

import ascend_jit as aj


def _scalar_list_read(scalars, out, declared, n):
    """ops-nn's A2 foreach kernels: SetGlobalBuffer(scalar list, 1), then GetValue(tensorIndex) per tensor."""
    g, o = aj.GlobalTensor("float"), aj.GlobalTensor("float")
    g.SetGlobalBuffer(scalars, declared)
    o.SetGlobalBuffer(out, n)
    for i in range(n):
        o.SetValue(i, g.GetValue(i))


def test_a_global_tensor_index_past_its_declared_size_names_the_host_arrays_room():
    """port65f: the refusal stands (the window bounds every access) and now says the host array holds the element
    and what SetGlobalBuffer size declares it; an index past the array too keeps the plain refusal."""
    scalars, out = np.array([0.5, -1.25, 3.0, 7.0], np.float32), np.zeros(4, np.float32)
    with pytest.raises(aj.OutOfBoundsError, match=r"GetValue: parameter 'index' = 1 is past the size SetGlobalBuffer "
                       r"declared \(1\), inside the array it was given \(4 elements\).*"
                       r"SetGlobalBuffer\(x, 4\) \(legal: \[0, 1\)\)"):
        aj.launch(_scalar_list_read, 1, "atlas-a2", scalars, out, 1, 4)
    aj.launch(_scalar_list_read, 1, "atlas-a2", scalars, out, 4, 4)
    np.testing.assert_array_equal(out, scalars)
    with aj.Core("atlas-a2"):
        g = aj.GlobalTensor("float")
        g.SetGlobalBuffer(scalars[1:], 2)     # a window of 2 cut from a view of 3 elements
        with pytest.raises(aj.OutOfBoundsError, match=r"inside the array it was given \(3 elements\)"):
            g.SetValue(2, 1.0)
        with pytest.raises(aj.OutOfBoundsError, match=r"SetGlobalBuffer\(x, 3\)"):
            g[1].GetValue(1)                  # a sub-tensor's element 1 is the window's 2 (review65)
        for past in (lambda: g.GetValue(3), lambda: g[0:1].GetValue(1)):   # past the given array; inside the window
            with pytest.raises(aj.OutOfBoundsError) as refused:
                past()
            assert "it was given" not in str(refused.value)
        assert g[1].GetValue(0) == scalars[2]


@pytest.mark.parametrize("placeholder", [aj.MASK_PLACEHOLDER, 0, np.uint64(0), [0, 0]])
@pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync,dcache", reason="reads the sum by GetValue right after "
                                                                             "WholeReduceSum, with no V_S flag between "
                                                                             "them")
def test_zero_is_the_mask_placeholder_with_is_set_mask_false(placeholder):
    """port65b: C++'s MASK_PLACEHOLDER is the constant 0 (DK kernel_reg.h), so `Sub<float, false>(..., 0UL, ...)`
    passes it; another value is refused naming what to write (SPEC 2.5), a bool as before."""
    core = aj.Core("atlas-a2")
    with core:
        src, dst = core.local_tensor("float", 64), core.local_tensor("float", 8)
        src[:] = np.arange(64, dtype=np.float32)
        aj.SetVectorMask(32, dtype="float")
        aj.WholeReduceSum(dst, src, placeholder, 1, 1, 1, 8, is_set_mask=False)
        assert dst.GetValue(0) == np.float32(sum(range(32)))
        with pytest.raises(aj.ParameterError, match=r"'mask' = 64 the device ignores the argument then .* ports as "
                           r"aj.MASK_PLACEHOLDER \(legal: aj.MASK_PLACEHOLDER \(or 0, its C\+\+ value\)"):
            aj.WholeReduceSum(dst, src, 64, 1, 1, 1, 8, is_set_mask=False)
        with pytest.raises(aj.ParameterError, match=r"'mask' = False"):
            aj.WholeReduceSum(dst, src, False, 1, 1, 1, 8, is_set_mask=False)


@pytest.mark.parametrize("name", ["ListTensorDesc", "TensorDesc", "GetTensorAddr"])
def test_the_tensor_list_descriptors_say_what_to_write(name):
    """port65a: ops-nn FusedSgd and the foreach kernels' descriptor table was an AttributeError."""
    with pytest.raises(aj.NotOfferedError, match=r"Python list of host arrays .* list\[i\]"):
        getattr(aj, name)


def test_a_data_copy_pad_of_more_than_4095_blocks_says_to_split_it():
    """port65h: ops-cv CheckValid's tiling gives copies of 5288 rows, past the device's 4095 blocks a call."""
    core = aj.Core("atlas-a2")
    with core:
        t, g = core.local_tensor("float", 64), aj.GlobalTensor(np.zeros(64, np.float32))
        with pytest.raises(aj.ParameterError, match=r"'blockCount' = 5000 one DataCopyPad moves at most 4095 blocks .*"
                           r"split a longer copy into calls of at most 4095 blocks each \(legal: an integer in "
                           r"\[0, 4095\]\)"):
            aj.DataCopyPad(t, g, aj.DataCopyExtParams(5000, 4, 0, 0, 0), aj.DataCopyPadExtParams(False, 0, 0, 0))


@pytest.mark.parametrize("name", ["MultiCopyConfig", "MultiCopyParams"])
def test_the_nddma_structs_say_what_to_write_for_short_and_broadcast_rows(name):
    """port65j: MultiCopyConfig (declared first by DequantBias) was an AttributeError; port65i: Scale's rows of 12
    floats and its scale broadcast along a row, which one DataCopyPad a row cannot write."""
    with pytest.raises(aj.NotOfferedError, match=r"own DataCopyPad .* padded layout .* GetValue and Duplicate per "
                       r"row, or Brcb"):
        getattr(aj, name)


def _load_at_the_ub_end(dst):
    x = aj.Reg.RegTensor("float")
    aj.Reg.LoadAlign(x, dst, 0)


def test_a_reg_load_past_the_950s_ub_end_says_how_much_lower_the_buffer_goes():
    """port65i: ops-math AsStrided's tiling puts its last queue at the UB's end and loads a whole vector there; the
    device's reserved bytes past the 248 KB are not offered (SPEC-2 D70), even with bounds="ub"."""
    core = aj.Core("ascend950", bounds="ub")
    t = core.local_tensor("float", 8, addr=core.spec.ub_bytes - 32)
    with core, pytest.raises(aj.OutOfBoundsError, match=r"lies outside the UB \[0, 253952\): the emulated UB ends "
                             r"there .* needs that buffer 256 bytes lower"):
        _load_at_the_ub_end(t)


@pytest.mark.parametrize("count", [-1, True, 4095.0])
def test_the_split_advice_is_for_a_count_past_4095_only(count):
    """review65: the advice was attached to every blockCount refusal."""
    core = aj.Core("atlas-a2")
    with core:
        t, g = core.local_tensor("float", 64), aj.GlobalTensor(np.zeros(64, np.float32))
        with pytest.raises(aj.ParameterError, match="blockCount") as refused:
            aj.DataCopyPad(t, g, aj.DataCopyExtParams(count, 4, 0, 0, 0), aj.DataCopyPadExtParams(False, 0, 0, 0))
        assert "split" not in str(refused.value)


def _copy_through_without_a_flag(y):
    core = aj.core.current_core()
    t = core.local_tensor("float", 8)
    aj.DataCopy(t, aj.GlobalTensor(np.ones(8, np.float32)), 8)
    aj.DataCopy(aj.GlobalTensor(y), t, 8)     # no MTE2_MTE3 flag: a RAW race


@pytest.mark.ascend_sanitize(checks="", reason="the test is about a launch sanitized explicitly outside a sanitizer")
def test_an_explicitly_sanitized_launch_inside_an_off_session_warns_its_reports():
    """sanfix65: a sanitize_session(False) (what `pytest --ascend-sanitize` runs a checks="" test in) had collected
    the reports of a launch given sanitize="report", so they reached no one; it warns them as outside a session."""
    with aj.sanitize_session(False) as off:
        with pytest.warns(aj.SanitizerWarning, match=r"aj.launch on atlas-a2, 1 block \(.*\): .*RAW"):
            aj.launch(_copy_through_without_a_flag, 1, "atlas-a2", np.zeros(8, np.float32), sanitize="report")
    assert off.reports == []
