"""Rules every registered instruction obeys on every device (driven by ascend_jit.api.registry)."""
import traceback

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.api.registry import INSTRUCTIONS
from ascend_jit.dtypes import ALL

IDS = [i.name for i in INSTRUCTIONS]


def _state(core):
    """What a refused call must leave unchanged besides the UB (DESIGN, SPEC-2 1.5): the mask register and CTRL."""
    return core.ub.copy(), core.mask_high, core.mask_low, core.mask_defined, core.ctrl


def _unchanged(core, before):
    after = _state(core)
    assert np.array_equal(after[0], before[0]) and after[1:] == before[1:]


def test_an_instruction_offers_dtypes_exactly_where_it_is_offered():
    """`dtypes(spec)` is empty exactly on the devices that do not offer the instruction: what walks the registry by
    its dtypes (benchmarks/compile_times.py picks each instruction's first device with dtypes, aj.fidelity reads
    them) took Truncate on atlas-a2 and RepeatReduceSum on the 310B as offered there."""
    wrong = [(inst.name, device) for inst in INSTRUCTIONS for device in aj.SUPPORTED_NAMES
             if bool(inst.dtypes(aj.get_device(device))) != bool(inst.offered(aj.get_device(device)))]
    assert not wrong


@pytest.mark.ascend_sanitize(checks="race,memory,blocks,sync", reason="calls every instruction on a fresh core's "
                             "never-written operands: it checks which dtypes are offered, not data")
@pytest.mark.parametrize("inst", INSTRUCTIONS, ids=IDS)
@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_every_offered_dtype_works_and_every_other_is_refused(inst, device):
    for d in ALL:
        core = aj.Core(device)
        tensors, call = inst.example(core, d.name)
        if not inst.offered(core.spec):
            before = _state(core)
            with pytest.raises(aj.UnsupportedDeviceError, match=f"{inst.api_name}.*{device}") as info:
                call(*tensors)
            _unchanged(core, before)
            # errors.py: every refusal names the device, also "not offered" outside `with core:` (audit16m: the
            # device was only the value of parameter 'device', the error's device field None)
            assert info.value.device == device and str(info.value).endswith(f"on device {device}")
            continue
        if d.name in inst.dtypes(core.spec):
            call(*tensors)
        else:
            before = _state(core)
            with pytest.raises(aj.UnsupportedDTypeError) as info:
                call(*tensors)
            _unchanged(core, before)
            assert inst.api_name in str(info.value) and device in str(info.value) and d.name in str(info.value)


@pytest.mark.parametrize("inst", INSTRUCTIONS, ids=IDS)
def test_vector_core_refuses_every_instruction(inst):
    core = aj.Core("atlas-inference-vectorcore")
    with pytest.raises(aj.UnsupportedDeviceError, match=inst.api_name):
        tensors, call = inst.example(core, "half")
        call(*tensors)


@pytest.mark.parametrize("inst", INSTRUCTIONS, ids=IDS)
def test_freed_tensors_are_refused(inst):
    core = aj.Core(inst.home)
    with core:
        pipe = aj.TPipe()
        que = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(que, 1, 4096)
        offered = inst.dtypes(core.spec)  # half, or the first dtype offered (Reg shifts: integers only)
        dtype = "half" if "half" in offered else offered[0]
        freed = que.AllocTensor(dtype)
        que.FreeTensor(freed)
        tensors, call = inst.example(core, dtype)
        for k in range(len(tensors)):
            args = list(tensors)
            args[k] = freed
            before = _state(core)
            with pytest.raises(aj.StateError, match="freed"):
                call(*args)
            _unchanged(core, before)


_NOT_TENSORS = {"GlobalTensor": lambda: aj.GlobalTensor(np.zeros(64, np.float16)),
                "ndarray": lambda: np.zeros(64, np.float16), "list": lambda: [0.0] * 64, "None": lambda: None,
                "int": lambda: 3}


@pytest.mark.parametrize("inst", INSTRUCTIONS, ids=IDS)
def test_an_operand_that_is_no_local_tensor_is_refused_naming_the_device(inst):
    """errors.py / DESIGN: every refusal names the device. An operand that is no LocalTensor (a GlobalTensor, host
    data, None, a scalar) in any position is a ParameterError naming the device of the call's other LocalTensors, or
    of the current core (`with core:`); only when neither exists does the message say that no device is known. The
    UB is unchanged."""
    for inside in (False, True):
        core = aj.Core(inst.home)
        offered = inst.dtypes(core.spec)
        tensors, call = inst.example(core, "half" if "half" in offered else offered[0])
        for k in range(len(tensors)):
            for kind, make in _NOT_TENSORS.items():
                args = list(tensors)
                args[k] = make()
                before = _state(core)
                try:
                    if inside:
                        with core:
                            call(*args)
                    else:
                        call(*args)
                except AttributeError as e:   # the example itself reads the operand (`a.size`): no API was called
                    assert traceback.extract_tb(e.__traceback__)[-1].filename.endswith("registry.py"), e
                    continue
                except aj.AscendJitError as e:
                    alone = not inside and not any(isinstance(t, aj.LocalTensor) for t in args)
                    # alone: the device is unknown, unless the API has one (the Reg API is the 950's)
                    assert f"on device {core.device}" in str(e) or alone and "no device known" in str(e), \
                        (k, kind, inside, str(e))
                else:
                    raise AssertionError(f"operand {k} = {kind} was not refused")
                _unchanged(core, before)


def test_the_reg_api_is_registered():
    """Issue 16: the Reg instructions get these checks too (non-950 devices and the vector core refused, unsupported
    dtypes refused by name with the UB unchanged, freed tensors refused)."""
    names = {i.name for i in INSTRUCTIONS}
    assert {f"Reg.{n}" for n in ("LoadAlign", "StoreAlign", "Add", "Sub", "Mul", "Duplicate", "Reduce", "Cast",
                                 "And", "Not", "Select", "Pack")} <= names
