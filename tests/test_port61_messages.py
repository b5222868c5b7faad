"""What the session-61 ports met (docs/decisions.md "What the session-61 ports found"): refusals and warnings that say
what to write, a count-form Compare's pad lanes followed to what reads their bits, "strict"'s fix inside a VF, the
study's error bound without padding adds, and the command line's entries."""
import importlib
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit import cli
from ascend_jit.kernels import load_file
from ascend_jit.order import explain_reduce_order
from ascend_jit.summing import depth_array

R = aj.Reg


# --- the C API, python -m, a kernel file's sibling module -----------------------------------------------------------
@pytest.mark.parametrize("name", ["asc_init", "asc_copy_gm2ub", "asc_add_sync"])
def test_the_c_api_is_not_offered_with_the_call_each_stands_for(name):
    with pytest.raises(aj.NotOfferedError) as err:
        getattr(aj, name)
    text = str(err.value)
    assert name in text and "aj.DataCopy" in text and "aj.Add(dst, a, b, count)" in text
    assert "aj.PipeBarrier(aj.PIPE_ALL)" in text and not hasattr(aj, name)
    with pytest.raises(aj.NotOfferedError, match=r"aj\.Reg\.asc_vf_call\(vf, \*args\)"):
        aj.asc_vf_call   # the VF launcher the emulator offers, in aj.Reg
    with pytest.raises(AttributeError) as plain:
        aj.no_such_name
    assert not isinstance(plain.value, aj.AscendJitError)


@pytest.mark.child_processes(seconds=2)
def test_python_dash_m_runs_the_command_line():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-m", "ascend_jit", "devices"], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and "ascend950" in done.stdout, done.stderr
    importlib.import_module("ascend_jit.__main__")   # importing it runs nothing (pkgutil.walk_packages imports all)


def test_run_of_a_file_imports_its_sibling_module(tmp_path, monkeypatch, capsys):
    (tmp_path / "port61_sibling_tiling.py").write_text("TILE = 64\n")
    (tmp_path / "port61_kernel.py").write_text(
        "import numpy as np\n"
        "from ascend_jit.kernels._base import KernelSpec\n"
        "from port61_sibling_tiling import TILE\n"
        "KERNEL = KernelSpec('port61_sibling', 'a kernel importing its tiling', lambda n, seed: {},\n"
        "                    lambda device, inputs: {}, lambda device, inputs: {}, TILE)\n")
    monkeypatch.setattr(sys, "path", list(sys.path))   # the folder the run adds goes with the test
    assert cli.main(["run", str(tmp_path / "port61_kernel.py"), "--list"]) == 0
    assert "port61_sibling" in capsys.readouterr().out
    assert str(tmp_path) in sys.path


_OWN_KERNEL = """import numpy as np
import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec


def run(device, inputs):
    core = aj.Core(device)
    a, b = core.local_tensor("half", 128), core.local_tensor("half", 128)
    a[:] = inputs["x"]
    with core:
        aj.Add(b, a, a, 128)
    return {"y": b.numpy().copy()}


KERNEL = KernelSpec("port61_double", "x + x", lambda n, seed: {"x": np.arange(128, dtype=np.float16) + seed}, run,
                    lambda device, inputs: {"y": inputs["x"] + inputs["x"]}, 128, devices=("atlas-a2", "ascend950"))
"""


def test_golden_pins_a_kernel_file_of_ones_own(tmp_path, monkeypatch, capsys):
    kernel, goldens = tmp_path / "port61_own.py", tmp_path / "goldens"
    kernel.write_text(_OWN_KERNEL)
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert cli.main(["golden", "record", str(goldens), "--kernels", str(kernel)]) == 0
    assert sorted(p.name for p in goldens.iterdir()) == ["port61_double.ascend950.y.npz",
                                                         "port61_double.atlas-a2.y.npz"]
    assert cli.main(["golden", "check", str(goldens), "--kernels", str(kernel)]) == 0
    assert "2 passed, 0 failed" in capsys.readouterr().out
    (goldens / "port61_double.atlas-a2.y.npz").unlink()
    assert cli.main(["golden", "check", str(goldens), "--kernels", str(kernel)]) == 1
    assert f"--kernels {kernel} --devices atlas-a2" in capsys.readouterr().out   # the hint names the file


# --- GM -------------------------------------------------------------------------------------------------------------
def test_a_global_tensor_index_at_its_end_names_set_global_buffer():
    g = aj.GlobalTensor("float")
    g.SetGlobalBuffer(np.zeros(16, np.float32))
    with pytest.raises(aj.OutOfBoundsError) as err:
        g[16]
    assert "SetGlobalBuffer size" in str(err.value) and "InitBuffer" not in str(err.value)


@pytest.mark.parametrize("array, dtype", [(np.arange(64.0), "float"), (np.arange(64), "half"),
                                          (np.arange(64.0), "bfloat16")])
def test_numpy_default_arrays_read_as_narrower_types_warn(array, dtype):
    g = aj.GlobalTensor(dtype)
    with pytest.warns(aj.PortingWarning, match=f"bytes as {dtype}"):
        g.SetGlobalBuffer(array)
    assert g.GetSize() == array.nbytes // aj.sizeof(dtype)   # still the pointer cast: the bytes as the type


def test_the_warning_names_the_user_s_line_whichever_path_sets_the_buffer(tmp_path):
    with pytest.warns(aj.PortingWarning) as caught:
        aj.GlobalTensor(np.arange(8.0), "float")
    assert caught[0].filename == __file__
    kernel = tmp_path / "port61_warns.py"   # a kernel file's module is ascend_jit_user_kernel_...: the user's line
    kernel.write_text(_OWN_KERNEL + "aj.GlobalTensor('float').SetGlobalBuffer(np.arange(8.0))\n")
    with pytest.warns(aj.PortingWarning) as caught:
        load_file(kernel)
    assert caught[0].filename == str(kernel)


@pytest.mark.parametrize("array, dtype", [(np.zeros(64, np.float32), "float"), (np.zeros(64), "uint8"),
                                          (np.zeros(64).view(np.uint8), "float"), (np.zeros(8, np.int64), "int64")])
def test_matching_arrays_and_byte_views_do_not_warn(array, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        aj.GlobalTensor(dtype).SetGlobalBuffer(array)


# --- refusals that say what to write --------------------------------------------------------------------------------
def _reg_call(core, call):
    with core, pytest.raises(aj.AscendJitError) as err:
        call()
    return str(err.value)


def test_reg_accesses_past_their_tensor_say_what_to_write_first():
    core = aj.Core("ascend950")
    t = core.local_tensor("float", 104)
    reg, full = R.RegTensor("float"), None
    with core:
        full = R.CreateMask("float")
    load = _reg_call(core, lambda: R.LoadAlign(reg, t, 64))
    assert "whole 256-byte loads" in load and "whatever the mask" in load
    store = _reg_call(core, lambda: R.StoreAlign(t, reg, full, 64))
    assert "mask the last vector" in store and "UpdateMask" in store and "write the next buffer" in store
    reg2, dual = R.RegTensor("float"), R.StoreDist.DIST_INTLV_B32   # a dual store ignores the mask: no mask advice
    dual_text = _reg_call(core, lambda: R.StoreAlign(t, reg, reg2, full, 64, dual))
    assert "accesses bytes [256, 768)" in dual_text and "mask the last vector" not in dual_text
    explicit = _reg_call(core, lambda: R.LoadAlign(reg, t, 64, dist=R.LoadDist.DIST_NORM))
    assert "whole 256-byte loads" in explicit
    ub_core = aj.Core("ascend950", bounds="ub")
    past_ub = ub_core.local_tensor("float", ub_core.spec.ub_bytes // 4)
    assert "mask the last vector" not in _reg_call(ub_core, lambda: R.StoreAlign(past_ub, reg, full,
                                                                                  ub_core.spec.ub_bytes // 4 - 8))


@R.simd_vf
def _store_past(dst, src):
    full = R.CreateMask("float")
    r = R.RegTensor("float")
    R.LoadAlign(r, src, 0)
    R.StoreAlign(dst, r, full, 64)


def test_a_compiled_store_past_its_tensor_says_the_same():
    core = aj.Core("ascend950")
    src, dst = core.local_tensor("float", 64), core.local_tensor("float", 104)
    with pytest.raises(aj.OutOfBoundsError) as err:
        _store_past(dst, src)
    assert "mask the last vector" in str(err.value)


def test_an_unaligned_reg_load_names_the_fix_and_an_int_operand_the_tensor():
    core = aj.Core("ascend950")
    t = core.local_tensor("float", 1024)
    reg = R.RegTensor("float")
    text = _reg_call(core, lambda: R.LoadAlign(reg, t, 100))
    assert "pad each row to whole 32 bytes" in text and "LoadUnAlign" in text
    text = _reg_call(core, lambda: R.LoadAlign(reg, t.GetPhyAddr(), 0))
    assert "GetPhyAddr" in text and "pass the tensor" in text


def test_a_data_copy_pad_into_a_one_element_slot_asks_for_whole_blocks():
    core = aj.Core("ascend950")
    g = aj.GlobalTensor("float").SetGlobalBuffer(np.arange(8, dtype=np.float32))
    with core:
        pipe, buf = aj.TPipe(), aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(buf, 512)
        slot = buf.GetWithOffset("float", 1, 32)
        with pytest.raises(aj.OutOfBoundsError) as err:
            aj.DataCopyPad(slot, g, aj.DataCopyExtParams(1, 4, 0, 0, 0), aj.DataCopyPadExtParams(False, 0, 0, 0))
    text = str(err.value)
    assert "burst 0" in text and "whole 32-byte blocks" in text and "8 x float" in text and "shorten" not in text


# --- the sanitizer --------------------------------------------------------------------------------------------------
def _compare_then_select(select_count):
    """HardSwishGradV2's idiom (port61a): 7 floats copied in, Compares over the 64 of a whole 256-byte block."""
    with aj.sanitize_session("report") as session:
        with aj.Core("atlas-a2"):
            pipe, buf = aj.TPipe(), aj.TBuf(aj.TPosition.VECCALC)
            pipe.InitBuffer(buf, 1024)
            x, bits = buf.Get("float")[0:64], buf.GetWithOffset("uint8", 32, 512)
            out = buf.GetWithOffset("float", 64, 768)
            gm = aj.GlobalTensor("float").SetGlobalBuffer(np.linspace(-5, 5, 7).astype(np.float32))
            aj.DataCopyPad(x, gm, aj.DataCopyExtParams(1, 28, 0, 0, 0), aj.DataCopyPadExtParams(False, 0, 0, 0))
            aj.SetFlag(0, event=aj.HardEvent.MTE2_V)
            aj.WaitFlag(0, event=aj.HardEvent.MTE2_V)
            aj.Compares(bits, x, np.float32(-3), aj.CMPMODE.GT, 64)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Select(out, bits, x, np.float32(0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, select_count)
    return session.reports


def test_a_count_compare_of_pad_lanes_is_reported_only_where_their_bits_are_read():
    assert _compare_then_select(7) == []   # the data's bits alone (its copy's 32-byte block wrote lanes 0-7)
    reports = [r for r in _compare_then_select(20) if r.operand == "sel_mask"]
    assert len(reports) == 1 and reports[0].check == "init" and reports[0].earlier.api == "Compares"
    assert "compares whole 256-byte blocks" in reports[0].fix and reports[0].address == 513
    # the Select of 20 lanes uses bits 8-19, unwritten lanes' (session 64: a Select reads only its lanes' bits)
    assert "a Select of the data's count does" in reports[0].fix


def test_a_compare_of_one_unwritten_tensor_with_itself_counts_its_bytes_once():
    with aj.Core("atlas-a2", sanitize="report") as core:
        x, bits, out = core.local_tensor("float", 64), core.local_tensor("uint8", 32), core.local_tensor("float", 64)
        aj.Compare(bits, x, x, aj.CMPMODE.NE, 64)
        aj.PipeBarrier(aj.PIPE_V)
        out[:] = np.zeros(64, np.float32)
        aj.Select(out, bits, out, out, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, 64)
    [report] = [r for r in core.sanitizer.reports if r.operand == "sel_mask"]
    assert f"lanes of src0 and src1 that nothing had written (UB byte {x.addr}, 256 bytes" in report.fix


def test_a_reg_load_of_compared_bits_keeps_the_compare_s_fix():
    with aj.Core("ascend950", sanitize="report") as core:
        x, bits, out = core.local_tensor("float", 64), core.local_tensor("uint8", 256), core.local_tensor("uint8", 256)
        bits[:] = np.zeros(256, np.uint8)
        aj.Compares(bits, x, 0.0, aj.CMPMODE.GT, 64)   # x never written: bits[0:8] computed from nothing
        aj.PipeBarrier(aj.PIPE_V)
        reg, full = R.RegTensor("uint8"), R.CreateMask("uint8")
        R.LoadAlign(reg, bits, 0)
        R.StoreAlign(out, reg, full, 0)
        aj.PipeBarrier(aj.PIPE_ALL)
        out.GetValue(0)
    [report] = [r for r in core.sanitizer.reports if r.instruction.api == "GetValue"]
    assert report.fix.startswith("these mask bits were computed from lanes of src0")


def test_a_normal_mode_gather_mask_of_pad_lanes_is_reported_only_where_its_output_is_read():
    """WholeReduceMax writes 2n halves of a 128-half buffer, a normal-mode GatherMask (the whole repeat) splits the
    values out, and n of them are used (port61g's row max)."""
    n = 10
    for used, expected in ((n, []), (16, [("Adds", "GatherMask")])):
        with aj.Core("atlas-a2", sanitize="report") as core:
            src, pairs, values, out = (core.local_tensor("half", k) for k in (n * 16, 128, 128, 128))
            src[:] = np.linspace(-1, 1, n * 16).astype(np.float16)
            aj.WholeReduceMax(pairs, src, 16, n, 1, 1, 1)
            aj.PipeBarrier(aj.PIPE_V)
            aj.GatherMask(values, pairs, 1, False, 0, aj.GatherMaskParams(1, 1, 8, 0))
            aj.PipeBarrier(aj.PIPE_V)
            aj.Adds(out, values, 1.0, used)
        reports = core.sanitizer.reports
        assert [(r.instruction.api, r.earlier.api) for r in reports] == expected
        assert all("gathered from bytes of src0" in r.fix and r.address == values.addr + 2 * n for r in reports)


@R.simd_vf
def _store_then_load(y, x, barred):
    full = R.CreateMask("float")
    r, back = R.RegTensor("float"), R.RegTensor("float")
    R.LoadAlign(r, x, 0)
    R.StoreAlign(y, r, full, 0)
    if barred:
        R.LocalMemBar(R.MemType.VEC_STORE, R.MemType.VEC_LOAD)
    R.LoadAlign(back, y, 0)
    R.StoreAlign(y, back, full, 64)


@pytest.mark.parametrize("barred", [False, True])
def test_strict_names_local_mem_bar_first_inside_a_vf(barred):
    """"strict" reports a VF's load of its own store without LocalMemBar (the default does not: DK LocalMemBar.md
    orders a store and a load through the same register, which the sanitizer does not follow); its fix had named
    PipeBarrier<PIPE_V> first, which has no place in a VF (port61c)."""
    for words, expected in (("report", 0), ("report,strict,device-sync", 0 if barred else 1)):
        with aj.sanitize_session(words) as session:
            core = aj.Core("ascend950")
            x, y = core.local_tensor("float", 64), core.local_tensor("float", 128)
            x[:] = np.ones(64, np.float32)
            with core:
                _store_then_load(y, x, barred)
                _store_then_load(y, x, True)   # a later VF reads the first one's stores: ordered on the device
        races = [r for r in session.reports if r.check == "race"]
        assert len(races) == expected
        assert all(r.kind == "RAW" and r.fix.startswith("Reg.LocalMemBar(") for r in races)


# --- the accumulation-order study -----------------------------------------------------------------------------------
def test_adds_of_padding_lanes_are_not_counted_as_rounded():
    assert explain_reduce_order("atlas-a2", "count", "float", 2).leaf_depths() == {0: 1, 1: 1}
    depths = explain_reduce_order("atlas-200i-500-a2", "count", "float", 4097).leaf_depths()
    assert (depths[0], depths[4096]) == (13, 1)
    a2, b310 = (depth_array(explain_reduce_order(d, "count", "half", 300), 300) for d in ("atlas-a2", "310b"))
    assert a2.max() == b310.max() == 9 and a2.sum() == b310.sum()


def test_the_study_names_a_chosen_device_without_the_dtype():
    report = aj.study.run_study(dtype="float", n=64, trials=2, devices="atlas-training,atlas-a2", api="ReduceSum")
    assert report["params"]["devices_without_dtype"] == ["atlas-training"]
    table = aj.study.format_table(report)
    assert "no row for atlas-training: ReduceSum there takes no float" in table
    alone = aj.study.format_table(aj.study.run_study(dtype="float", n=64, trials=2, devices="atlas-training",
                                                     api="ReduceSum"))
    assert "no device/API variant ran" in alone and "disagree" not in alone


@pytest.mark.parametrize("name, words", [("DataCopy", "copies bytes exactly"), ("SetAtomicAdd", "one rounded add")])
def test_fidelity_of_a_copy_or_an_atomic_says_why_it_has_no_row(name, words):
    with pytest.raises(aj.ParameterError) as err:
        aj.fidelity(name, "atlas-a2")
    assert words in str(err.value) and "BIT-EXACT" in str(err.value)
    with pytest.raises(aj.ParameterError, match="no instruction of this name"):
        aj.fidelity("NoSuchInstruction", "atlas-a2")


def test_a_compare_of_bytes_a_reg_store_wrote_from_unwritten_ones_names_the_store():
    """The Compare's lanes were written, by a Reg store of a load of never-written bytes: the fix names that store
    (it had said "nothing had written"), and a Compare of those lanes with never-written ones says both."""
    with aj.Core("ascend950", sanitize="report") as core:
        x, y, fresh = core.local_tensor("float", 64), core.local_tensor("float", 64), core.local_tensor("float", 64)
        bits, out = core.local_tensor("uint8", 256), core.local_tensor("float", 64)
        reg, full = R.RegTensor("float"), R.CreateMask("float")
        R.LoadAlign(reg, x)       # x never written: the stored lanes hold nothing written
        R.StoreAlign(y, reg, full)
        aj.PipeBarrier(aj.PIPE_V)
        out[:] = np.zeros(64, np.float32)
        for other in (y, fresh):
            aj.Compare(bits, y, other, aj.CMPMODE.GT, 64)
            aj.PipeBarrier(aj.PIPE_V)
            aj.Select(out, bits, out, out, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, 64)
            aj.PipeBarrier(aj.PIPE_V)
    stored, mixed = [r for r in core.sanitizer.reports if r.operand == "sel_mask"]
    assert stored.earlier.api == "Compare" and "nothing had written" not in stored.fix
    assert f"lanes of src0 and src1 that StoreAlign [PIPE_V] at " in stored.fix
    assert "wrote from never-written bytes (UB byte" in stored.fix
    assert "lanes of src0 and src1 that nothing had written, or that StoreAlign [PIPE_V] at " in mixed.fix


def test_the_study_names_a_pattern_no_chosen_device_offers_for_the_dtype():
    report = aj.study.run_study(dtype="float", n=64, trials=2, devices="atlas-training",
                                api="BlockReduceSum->WholeReduceSum")
    assert report["params"]["patterns_without_dtype"] == ["BlockReduceSum->WholeReduceSum"]
    table = aj.study.format_table(report)
    assert "no row for BlockReduceSum->WholeReduceSum: it takes no float on atlas-training" in table
    offered = aj.study.run_study(dtype="float", n=64, trials=2, devices="atlas-training,atlas-a2",
                                 api="BlockReduceSum->WholeReduceSum")
    assert offered["params"]["patterns_without_dtype"] == [] and "no row for" not in aj.study.format_table(offered)
