"""The porting surface session 40's port probes (port40pa, port40pb, port40pc) asked for: refusals that say what a
literal port did wrong, the devkit names not offered, AscendC::Barrier."""
import numpy as np
import pytest

import ascend_jit as aj


def test_update_mask_pair_passed_as_a_mask_says_to_unpack_it():
    """C++ `MaskReg m = UpdateMask<T>(n);` ported literally hands the (mask, count left) pair on: the refusal says to
    unpack it (session 40's port probe)."""
    R = aj.Reg
    core = aj.Core("ascend950")
    with core:
        x = core.local_tensor("float", 64)
        x[:] = np.arange(64, dtype=np.float32)
        a, b = R.RegTensor("float"), R.RegTensor("float")
        R.LoadAlign(a, x, 0)
        with pytest.raises(aj.ParameterError, match=r"UpdateMask's \(mask, count left\) pair: unpack it, `mask, n = "):
            R.Add(b, a, a, R.UpdateMask("float", 10))


def test_a_copy_past_a_global_tensor_window_says_where_the_window_comes_from():
    """The window SetGlobalBuffer gave is checked though the device does not check it: DataCopy and DataCopyPad say
    so and what a kernel that copies past it on purpose does (session 40's port probe)."""
    core = aj.Core("atlas-a2")
    with core:
        g = aj.GlobalTensor("half")
        g.SetGlobalBuffer(np.zeros(112, np.float16), 100)
        t = core.local_tensor("half", 112)
        with pytest.raises(aj.OutOfBoundsError, match=r"the copy needs 224: count 112 x 2 B\): the window "
                                                      r"SetGlobalBuffer .* does not check and the emulator does"):
            aj.DataCopy(t, g, 112)
        with pytest.raises(aj.OutOfBoundsError, match=r"GlobalTensor's 200 bytes: the window SetGlobalBuffer"):
            aj.DataCopyPad(g, t, aj.DataCopyExtParams(1, 224, 0, 0, 0))


@pytest.mark.parametrize("name", ["Trunc", "Fma", "Floor", "Sinh", "Concat", "Sigmoid", "LayerNorm", "Pad"])
def test_advanced_api_names_are_not_offered_with_a_reason(name):
    """The devkit's advanced (高阶) API names a port meets (ops-math's 950 cosh calls Trunc and Fma) raise a
    NotOfferedError saying what to do, which is still an AttributeError for hasattr."""
    with pytest.raises(aj.NotOfferedError, match=rf"{name}: .*an advanced \(高阶\) API, built by the devkit from basic"):
        getattr(aj, name)
    assert not hasattr(aj, name)


@pytest.mark.parametrize("name", ["TransDataTo5HD", "MrgSort", "Sort32"])
def test_basic_instructions_outside_the_brief_say_so(name):
    with pytest.raises(aj.NotOfferedError, match=rf"{name}: .*not offered \(SPEC-2 14: not in the brief\)"):
        getattr(aj, name)


def test_barrier_is_a_compiler_barrier_with_no_effect():
    """AscendC::Barrier() issues no instruction: UB, mask, flags and the sanitizer's view are unchanged (a race across
    it is still a race)."""
    core = aj.Core("atlas-a2", sanitize="report")
    with core:
        x = core.local_tensor("half", 128)
        aj.DataCopy(x, aj.GlobalTensor(np.ones(128, np.float16)), 128)
        before = (core.ub.copy(), core.mask_high, core.mask_low)
        assert aj.Barrier() is None
        assert np.array_equal(core.ub, before[0]) and (core.mask_high, core.mask_low) == before[1:]
        aj.Add(x, x, x, 128)
    assert sorted(r.kind for r in core.sanitizer.reports) == ["RAW", "WAW"]  # the in-place Add after the copy


def _init_then_read_unsynchronised(y):
    g = aj.GlobalTensor()
    g.SetGlobalBuffer(y, 64)
    aj.TPipe()
    if aj.GetBlockIdx() == 1:   # the later block's access is the one a blocks report names
        aj.InitGlobalMemory(g, 64, 1.0)
    else:
        g.GetValue(3)


def test_sanitizer_names_a_composite_api_for_its_own_instructions():
    """InitGlobalMemory is Duplicate, flags and DataCopyPad inside: a report about them names InitGlobalMemory (the
    kernel's line is the call's) as well as the instruction (port40pa)."""
    y = np.zeros(64, np.float32)
    with aj.sanitize_session("report") as session:
        aj.launch(_init_then_read_unsynchronised, 2, "atlas-a2", y)
    assert {r.instruction.api for r in session.reports} == {"InitGlobalMemory: DataCopyPad"}
    # the other block's access it races (session 62: blocks reports name it)
    assert {r.earlier.api for r in session.reports} == {"GetValue"}


@pytest.mark.parametrize("name, why", [("Squeeze", "not in the brief's Reg API list"),
                                       ("ClearSpr", "not in the brief's Reg API list"),
                                       ("PairReduce", r"PairReduce::SUM, which is what aj.Reg.PairReduceElem")])
def test_reg_names_of_the_devkit_examples_are_not_offered_with_a_reason(name, why):
    with pytest.raises(aj.NotOfferedError, match=why):
        getattr(aj.Reg, name)


@pytest.mark.parametrize("name, why", [("ShiftRight", "the Memory API's ShiftLeft / ShiftRight"),
                                       ("ReduceMaxWithDataBlock", r"aj.Reg.ReduceDataBlock\(dst, src, mask, "
                                                                  r"aj.Reg.ReduceType.MAX\)"),
                                       ("ReduceSumWithDataBlock", r"ReduceType.SUM")])
def test_reg_names_of_the_arch35_sources_say_what_to_write(name, why):
    with pytest.raises(aj.NotOfferedError, match=why):
        getattr(aj.Reg, name)


@pytest.mark.parametrize("name, why", [("GetCoreNumAiv", r"block count as a parameter, launched with aj.launch"),
                                       ("GetCoreNum", r"the SKU's, not the device family's"),
                                       ("GetCoreMemSize", r"aj.get_device\(device\).ub_bytes")])
def test_host_platform_queries_say_what_to_use(name, why):
    """A port's host tiling calls PlatformAscendC's queries first; they raised a bare AttributeError (session 51's
    fresh ports each hard-coded a core count without a word from the emulator)."""
    with pytest.raises(aj.NotOfferedError, match=why):
        getattr(aj, name)
    assert not hasattr(aj, name)
