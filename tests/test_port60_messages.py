"""Refusals the session-60 ports met (port60a-d; docs/decisions.md "What the session-60 ports found"): each names
what to write instead, and changes nothing. A count or burst past its tensor is a length bug, not strides meant to
leave it; a freed tensor's refusal names the operand and the line that freed it; DeQue of an empty queue names the
queue; a second SetFlag names the first one's line when sanitized; a Reg call with its C++ template arguments written
first names the Python form; `float32_t` is float; Log off the 950 is Ln; the 310P's hard SyncAll does nothing in
the devkit's device build; a ReduceSum work buffer over src says to pass another."""
import functools
import re

import numpy as np
import pytest

import ascend_jit as aj

R = aj.Reg
HERE = "test_port60_messages.py"


def test_a_single_burst_past_its_tensor_is_told_to_shorten_not_to_use_bounds_ub():
    """port60d followed the bounds="ub" advice for a DataCopyPad blockLen longer than its buffer, and the copy wrote
    the next queue's buffer: a contiguous footprint's refusal says shorten or enlarge first, and bounds="ub" only for
    an original that goes past its buffer on purpose; a strided one offers the escape (tests/test_porting_surface.py)."""
    with aj.Core("atlas-a2") as core:
        t = core.local_tensor("float", 64)
        neighbour = core.local_tensor("float", 64)
        neighbour[:] = 5.0
        before = core.ub.copy()
        gm = aj.GlobalTensor(np.arange(256, dtype=np.float32))
        contiguous = r'shorten the count or length, or allocate a larger tensor; .* on purpose .*bounds="ub"'
        with pytest.raises(aj.OutOfBoundsError, match=contiguous):
            aj.DataCopyPad(t, gm, aj.DataCopyExtParams(1, 80 * 4, 0, 0, 0), aj.DataCopyPadExtParams(False, 0, 0, 0))
        with pytest.raises(aj.OutOfBoundsError, match=contiguous):
            aj.Add(t, t, t, 64, 2, aj.BinaryRepeatParams(1, 1, 1, 8, 8, 8))   # whole repeats back to back
        with pytest.raises(aj.OutOfBoundsError, match='make the core with bounds="ub"'):
            aj.Add(t, t, t, 64, 2, aj.BinaryRepeatParams(1, 1, 1, 16, 16, 16))   # repeats apart: strides
        assert np.array_equal(core.ub, before)


def _line_of(marker):
    """The line of this file holding `marker` (a refusal names the line that freed or set)."""
    with open(__file__, encoding="utf-8") as f:
        return next(i for i, text in enumerate(f, 1) if marker in text and "_line_of" not in text)


@pytest.mark.ascend_sanitize(checks="", reason="compares a core without a sanitizer with one made with "
                                               "sanitize=\"report\"")
def test_a_freed_tensor_is_named_as_its_operand_with_the_call_that_freed_it():
    """The call always; its line on a sanitizing core (as a second SetFlag's: a stack walk on every FreeTensor
    tripled its cost, review 60)."""
    with aj.Core("atlas-a2") as core:
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, 256)
        x = q.AllocTensor("float")
        y = core.local_tensor("float", 64)
        q.FreeTensor(x)
        with pytest.raises(aj.StateError, match=r"parameter 'src1'.*by FreeTensor \(a core made with "
                                                r'sanitize="report" names its line\)'):
            aj.Add(y, y, x, 64)
    with aj.Core("atlas-a2", sanitize="report") as core:
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, 256)
        x = q.AllocTensor("float")
        y = core.local_tensor("float", 64)
        q.FreeTensor(x)   # freed here
        with pytest.raises(aj.StateError, match=rf"parameter 'src1'.*by FreeTensor at {HERE}:"
                                                rf"{_line_of('# freed here')} .*free it after its last use"):
            aj.Add(y, y, x, 64)
        with pytest.raises(aj.StateError, match=r"parameter 'dst'.*by FreeTensor at"):
            aj.Add(x, y, y, 64)
        z = core.local_tensor("float", 8)
        core.free(z.addr)   # core.free here
        with pytest.raises(aj.StateError, match=rf"parameter 'src'.*by core\.free at {HERE}:"
                                                rf"{_line_of('# core.free here')}"):
            aj.DataCopy(aj.GlobalTensor(np.zeros(8, np.float32)), z, 8)
        t = q.AllocTensor("float")
        pipe.Destroy()   # destroyed here
        with pytest.raises(aj.StateError, match=rf"by TPipe\.Destroy at {HERE}:{_line_of('# destroyed here')}"):
            t.GetValue(0)


def test_deque_of_an_empty_queue_names_the_queue():
    with aj.Core("atlas-a2"):
        pipe = aj.TPipe()
        q = aj.TQue(aj.TPosition.VECOUT, 2)
        pipe.InitBuffer(q, 2, 256)
        with pytest.raises(aj.StateError, match=r"the TQue\(VECOUT, depth 2\) at UB byte \d+ holds no tensor .*"
                                                r"block forever"):
            q.DeQue("float")


@pytest.mark.ascend_sanitize(checks="", reason="compares a core without a sanitizer with one made with "
                                               "sanitize=\"report\"")
def test_a_second_setflag_names_the_first_when_sanitized():
    with aj.Core("atlas-a2"):
        aj.SetFlag(0, event=aj.HardEvent.V_MTE2)
        with pytest.raises(aj.StateError, match=r'already set \(a core made with sanitize="report" names the first '
                                                r"SetFlag's line\).*before the next iteration's SetFlag"):
            aj.SetFlag(0, event=aj.HardEvent.V_MTE2)
        aj.WaitFlag(0, event=aj.HardEvent.V_MTE2)
    with aj.Core("atlas-a2", sanitize="report"):
        aj.SetFlag(0, event=aj.HardEvent.V_MTE2)   # the first SetFlag
        with pytest.raises(aj.StateError, match=rf"already set by the SetFlag at {HERE}:"
                                                rf"{_line_of('# the first SetFlag')}:"):
            aj.SetFlag(0, event=aj.HardEvent.V_MTE2)
        aj.WaitFlag(0, event=aj.HardEvent.V_MTE2)


def _template_first_calls(t, r, m):
    return {
        "Cast": (lambda: R.Cast("float", "half", R.CastTrait(), r, r, m), "Cast(dst, src, mask, trait=CastTrait())"),
        "Cast dst": (lambda: R.Cast("float", r, m), "Cast(dst, src, mask, trait=CastTrait())"),
        "Reduce": (lambda: R.Reduce(R.ReduceType.SUM, r, r, m),
                   "Reduce(dst, src, mask, reduce_type=ReduceType.SUM, mode=MaskMergeMode.ZEROING)"),
        "LoadAlign": (lambda: R.LoadAlign("float", R.LoadDist.DIST_BRC_B32, r, t),
                      "LoadAlign(reg, tensor, offset=0, dist=LoadDist.DIST_NORM)"),
        "StoreAlign": (lambda: R.StoreAlign("float", t, r, m), "StoreAlign(tensor, reg, mask, offset=0"),
        "Add": (lambda: R.Add("float", r, r, r, m), "Add(dst, src0, src1, mask, mode=MaskMergeMode.ZEROING)"),
    }


@pytest.mark.parametrize("call", ["Cast", "Cast dst", "Reduce", "LoadAlign", "StoreAlign", "Add"])
def test_reg_template_arguments_written_first_are_told_the_python_form(call):
    """port60a wrote `Cast<float, half, trait>(f, h, mask)` as R.Cast("float", "half", trait, f, h, mask): a bare
    TypeError; Reduce<ReduceType::SUM> first named the MaskReg as the bad reduce type."""
    with aj.Core("ascend950") as core:
        t = core.local_tensor("float", 64)
        r = R.RegTensor("float")
        m = R.CreateMask("float")
        before = core.ub.copy()
        fn, form = _template_first_calls(t, r, m)[call]
        with pytest.raises(aj.ParameterError, match="is a C\\+\\+ template argument") as info:
            fn()
        assert form in str(info.value)
        assert np.array_equal(core.ub, before)


@R.simd_vf
def _cast_template_first_vf(dst, src, n):
    f = R.RegTensor("float")
    h = R.RegTensor("half")
    m = R.CreateMask("half")
    R.LoadAlign(h, src, 0)
    R.Cast("float", "half", R.CastTrait(), f, h, m)
    R.StoreAlign(dst, f, m, 0)


def test_a_vf_writing_reg_cast_template_first_gets_the_refusal_not_a_type_error():
    with aj.Core("ascend950") as core:
        src, dst = core.local_tensor("half", 128), core.local_tensor("float", 64)
        with pytest.raises(aj.ParameterError, match=re.escape("Cast(dst, src, mask, trait=")):
            _cast_template_first_vf(dst, src, 64)


def test_float32_t_is_float():
    """ge::float32_t, which ops-math kernels write as T (port60b: Pow's IsSameType<TYPE_X, float32_t>)."""
    assert aj.sizeof("float32_t") == 4
    with aj.Core("atlas-a2") as core:
        assert core.local_tensor("float32_t", 8).dtype.name == "float"


def test_a_sub_tensor_at_the_end_says_the_buffer_is_too_small():
    with aj.Core("atlas-a2") as core:
        t = core.local_tensor("float", 64)
        with pytest.raises(aj.OutOfBoundsError, match="its buffer is too small"):
            t[64]


def test_log_points_to_ln():
    with pytest.raises(aj.NotOfferedError, match=re.escape("aj.Ln(dst, src, count)")):
        aj.Log


def test_the_310p_hard_sync_all_says_the_device_build_does_nothing():
    with aj.Core("atlas-inference-aicore"):
        with pytest.raises(aj.UnsupportedDeviceError, match="ASCENDC_REPORT_NOT_SUPPORT.*does not wait"):
            aj.SyncAll()
    with aj.Core("atlas-training"):
        with pytest.raises(aj.UnsupportedDeviceError) as info:
            aj.SyncAll()
        assert "ASCENDC_REPORT_NOT_SUPPORT" not in str(info.value)


def test_a_reduce_sum_work_buffer_over_src_says_to_pass_another():
    """port60c's ReduceSum(t, t, t, n) on the 310P, whose tree writes its partial sums to the work buffer: since
    session 66 a work buffer at src's own address is the in-place form there (repeat i's sum lands in bytes a repeat
    already read; decisions.md "Reductions in place") and gives the out-of-place sum; a work buffer starting
    elsewhere inside src is refused, nothing written, and the message says what to pass."""
    with aj.Core("atlas-inference-aicore") as core:
        t = core.local_tensor("float", 64)
        t[:] = 1.0
        aj.ReduceSum(t, t, t, 8)
        assert t.numpy()[0] == 8
        before = core.ub.copy()
        with pytest.raises(aj.OverlapError, match="not elsewhere inside src: pass src itself or a buffer apart "
                                                  "from src"):
            aj.ReduceSum(t, t, t[8:], 64)
        assert np.array_equal(core.ub, before)


def test_reg_data_register_or_and_a_reinterpreting_load_give_their_recipes():
    """port60e: ops-cv's resize Ors two packed uint16 index registers, and loads DIST_UNPACK_B16 into a 32-bit
    register reinterpreted as 16-bit (`(RegTensor<T1>&)reg`): neither is offered; the refusals say what to write."""
    with aj.Core("ascend950") as core:
        t = core.local_tensor("uint16", 128)
        wide, narrow = R.RegTensor("uint32"), R.RegTensor("uint16")
        with pytest.raises(aj.ParameterError, match="Memory API's aj.And / aj.Or"):
            R.Or(narrow, narrow, narrow, R.CreateMask("uint16"))
        with pytest.raises(aj.UnsupportedDTypeError, match="RegLayout.ZERO"):
            R.LoadAlign(wide, t, 0, dist=R.LoadDist.DIST_UNPACK_B16)
        R.LoadAlign(narrow, t, 0, dist=R.LoadDist.DIST_UNPACK_B16)   # the recipe's first step
        R.Cast(wide, narrow, R.CreateMask("uint16"), R.CastTrait(layoutMode=R.RegLayout.ZERO))


# --- the second round (port60f-i) ---------------------------------------------------------------------------------
def test_reg_argument_order_mistakes_name_the_order():
    """port60i: Cast's trait fields one by one, Add's mask before the sources (read as the carry form), StoreAlign's
    mask before the register and LoadAlign's tensor first each named what was wrong elsewhere."""
    with aj.Core("ascend950") as core:
        t = core.local_tensor("float", 64)
        f, h = R.RegTensor("float"), R.RegTensor("half")
        m = R.CreateMask("float")
        before = core.ub.copy()
        with pytest.raises(aj.ParameterError, match=r"parameter 'trait'.*one aj\.Reg\.CastTrait"):
            R.Cast(h, f, m, R.RegLayout.ZERO, R.SatMode.NO_SAT, R.MaskMergeMode.ZEROING, aj.RoundMode.CAST_RINT)
        with pytest.raises(aj.ParameterError, match=r"parameter 'arguments' = 5 .*four at most"):
            R.Cast(h, f, m, R.CastTrait(), 5)
        with pytest.raises(aj.ParameterError, match=r"the carry form Add\(carry, dst, src0, src1, mask\).*the mask "
                                                    r"after the sources"):
            R.Add(m, f, f, f)
        with pytest.raises(aj.ParameterError, match=r"StoreAlign\(tensor, reg, mask, offset\) stores a register"):
            R.StoreAlign(t, m, f, 0)
        with pytest.raises(aj.ParameterError, match="takes the register first"):
            R.LoadAlign(t, f, 0)
        assert np.array_equal(core.ub, before)


def test_mula_is_mul_add_dst():
    """The devkit's Mula calls MulAddDstImpl (port60f: ops-nn's regbase norms' Newton-Raphson rstd)."""
    assert R.Mula is R.MulAddDst
    with aj.Core("ascend950"):
        d, a, b = R.RegTensor("float"), R.RegTensor("float"), R.RegTensor("float")
        m = R.CreateMask("float")
        R.Duplicate(d, 1.0, m)
        R.Duplicate(a, 2.0, m)
        R.Duplicate(b, 3.0, m)
        R.Mula(d, a, b, m)
        assert (d.numpy() == 7.0).all()


@R.simd_vf
def _divides_by_zero(dst, n):
    r = R.RegTensor("float")
    m = R.CreateMask("float")
    R.Duplicate(r, 1.0, m)
    R.StoreAlign(dst, r, m, n // (n - 64))


@pytest.mark.ascend_sanitize(checks="", reason="compiled-VF behaviour: a sanitizing core runs every VF plain")
def test_a_python_error_inside_a_compiled_vf_names_the_vf():
    with aj.Core("ascend950") as core:
        dst = core.local_tensor("float", 64)
        with pytest.raises(ZeroDivisionError) as info:
            _divides_by_zero(dst, 64)
        assert any("raised inside the compiled VF _divides_by_zero" in n for n in info.value.__notes__)


def test_launch_binds_the_kernel_arguments_before_any_block_runs():
    ran = []

    def kernel(x, y):
        ran.append(aj.GetBlockIdx())
    for given, match in (({"blockdim": 4}, "blockdim= is not launch's block_dim="), ({}, "missing a required")):
        with pytest.raises(aj.ParameterError, match=match) as info:
            aj.launch(kernel, 4, "atlas-a2", 1, *(() if given == {} else (2,)), **given)
        assert "no block ran" in str(info.value) and "kernel(x, y)" in str(info.value)
    assert ran == []
    aj.launch(kernel, 2, "atlas-a2", 1, 2)
    assert sorted(ran) == [0, 1]

    def wrapping(f):   # a decorator whose wrapper takes other arguments than the function it wraps
        @functools.wraps(f)
        def wrapper(x, scale):
            return f(x * scale)
        return wrapper

    aj.launch(wrapping(lambda x: ran.append(x)), 1, "atlas-a2", 2, 3)
    assert ran[-1] == 6

    def seeded(x, *, seeds):
        pass
    with pytest.raises(aj.ParameterError, match="missing a required") as info:
        aj.launch(seeded, 1, "atlas-a2", seeds=1)
    assert "is not launch's" not in str(info.value)   # seeds= is the kernel's own keyword


def test_multi_copy_is_told_what_to_write():
    with pytest.raises(aj.NotOfferedError, match="its own DataCopyPad"):
        aj.MultiCopyParams


def test_a_zero_length_buffer_takes_no_ub_as_the_device_build_does():
    """port62d: the ops-nn 950 log-softmax / softmax AR kernels InitBuffer a 0-byte TBuf for rows of <= 128
    elements; the device build allows it (the len > 0 assert is the CPU-debug build's), giving 0-byte buffers."""
    with aj.Core("ascend950"):
        pipe, empty, que, after = aj.TPipe(), aj.TBuf(aj.TPosition.VECCALC), aj.TQue(aj.TPosition.VECIN, 2), aj.TBuf()
        pipe.InitBuffer(empty, 0)
        pipe.InitBuffer(que, 2, 0)
        pipe.InitBuffer(after, 64)
        t = empty.Get("float")
        assert t.GetSize() == 0 and t.addr == after.Get("float").addr   # no UB taken
        empty.EnQue(empty.AllocTensor("float"))
        empty.FreeTensor(empty.DeQue("float"))
        q = que.AllocTensor("half")
        assert q.GetSize() == 0
        que.EnQue(q)
        que.FreeTensor(que.DeQue("half"))
        with pytest.raises(aj.OutOfBoundsError):
            aj.Duplicate(t, 1.0, 8)
        with pytest.raises(aj.OutOfBoundsError, match="TBuf.Get"):
            empty.Get("float", 1)
        with pytest.raises(aj.ParameterError, match="'len' = -1"):
            pipe.InitBuffer(aj.TBuf(), -1)


def test_fidelity_takes_device_aliases_and_marks_the_d1_decision():
    assert aj.FIDELITY[("ReduceSum", "A2")] is aj.FIDELITY[("ReduceSum", "atlas-a2")]
    assert ("ReduceSum", "910B") in aj.FIDELITY and ("ReduceSum", "nowhere") not in aj.FIDELITY
    with pytest.raises(KeyError, match="aj.fidelity"):
        aj.FIDELITY[("NoSuchApi", "A2")]
    with pytest.raises(TypeError):
        aj.FIDELITY[("Add", "A2")] = None
    assert "decision D1" in aj.FIDELITY[("ReduceSum", "A3")].describe()
    assert "D1" not in aj.FIDELITY[("ReduceSum", "ascend950")].describe()


def test_the_study_takes_what_reduce_sum_takes_and_names_the_binding_limit():
    """port60h: the study sized tmp as large as src, so 1e5 halves on the 950 (its three-level tree) were refused;
    and past 255 repeats a two-stage pattern failed in the middle of the run."""
    from ascend_jit.study import run_study
    from ascend_jit.summing import largest_n
    spec = aj.get_device("ascend950")
    half = aj.dtypes.resolve("half")
    assert largest_n(spec, half, "count") > 100_000
    assert largest_n(spec, half, "ReduceRepeat->ReduceRepeat") == 255 * 128
    assert largest_n(aj.get_device("atlas-training"), aj.dtypes.resolve("float"), "count") == 0   # not summed there
    report = run_study("half", n=100_000, trials=1, devices="950", api="ReduceSum")
    assert report
    with pytest.raises(aj.ParameterError, match=r"<= 32640 elements.*ReduceRepeat->ReduceRepeat holds no more"):
        run_study("half", n=40_000, trials=1, devices="950")
    with pytest.raises(aj.ParameterError, match=r"<= 97408 elements.*atlas-a3"):
        run_study("half", n=100_000, trials=1, devices="950,A3", api="ReduceSum")
