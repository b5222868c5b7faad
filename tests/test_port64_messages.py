"""Session 64's fresh ports (docs/decisions.md "What the session-64 ports found"): the refusals, docs and queue
forms they met."""
import re
import warnings

import numpy as np
import pytest

import ascend_jit as aj
from tiles import flag, float_globals, queue_tile, scratch

R = aj.Reg


def _copy_through(x, y, src_end, dst_end):
    """x -> y through a TQueBind with a GM end for the copy-in and another for the copy-out (ops-math Roll's
    TQueBind<GM, VECIN> / TQueBind<VECOUT, GM>), and an Adds between them."""
    xg, yg = float_globals(x, y)
    pipe = aj.TPipe()
    qin, qout = aj.TQueBind(*src_end, 1), aj.TQueBind(*dst_end, 1)
    pipe.InitBuffer(qin, 1, 256)
    pipe.InitBuffer(qout, 1, 256)
    queue_tile(xg, yg, qin, qout, 2)


@pytest.mark.parametrize("mode", ["report", "report,device-sync"])
def test_tquebind_with_a_gm_end_is_the_tque_of_its_other_end(mode):
    """port64c: TQueBind<GM, VECIN> and TQueBind<VECOUT, GM> (the devkit's TQue<VECIN> / TQue<VECOUT> types) were
    refused, the first under TQue's name. They run as those queues, with their events under "device-sync"."""
    P = aj.TPosition
    x, y = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    with aj.sanitize_session(mode) as session:
        aj.launch(_copy_through, 1, "atlas-a2", x, y, (P.GM, P.VECIN), (P.VECOUT, P.GM))
    np.testing.assert_array_equal(y, x + 2)
    assert session.reports == []
    bind_in, que_in = aj.TQueBind(P.GM, P.VECIN, 2), aj.TQue(P.VECIN, 2)
    bind_out, que_out = aj.TQueBind(P.VECOUT, P.GM, 2), aj.TQue(P.VECOUT, 2)
    assert (bind_in.position, bind_out.position) == (P.VECIN, P.VECOUT)
    assert bind_in._pipes == que_in._pipes and bind_out._pipes == que_out._pipes
    with pytest.raises(aj.ParameterError, match=r"^TQueBind: parameter 'position' = <TPosition.GM"):
        aj.TQueBind(P.GM, P.GM, 1)


@pytest.mark.parametrize("name", ["Gather", "Scatter", "GatherB"])
def test_reg_gather_refusal_names_the_memory_api_route(name):
    """port64c: Reg::Gather's refusal said only that it is not offered."""
    with pytest.raises(aj.NotOfferedError, match=r"aj\.Gather\(dst, src, offsets, base, count\) before the VF"):
        getattr(R, name)


def test_unalign_reg_refusals_say_the_devkit_type_is_one():
    """port64c: the devkit aliases UnalignRegForLoad / ForStore / UnalignReg to one vector_align; the refusal had
    called UnalignReg "older" and a load register given to StoreUnAlign said only which class it wanted."""
    with pytest.raises(aj.NotOfferedError, match="vector_align"):
        R.UnalignReg
    with aj.Core("ascend950") as core:
        t = core.local_tensor("half", 256)
        with pytest.raises(aj.ParameterError, match=r"UnalignRegForStore \(the devkit's one vector_align type"):
            R.StoreUnAlign(t, R.RegTensor("half"), R.UnalignRegForLoad(), 0, 16)


@R.simd_vf
def _reinterpreting_move(out):
    a = R.RegTensor("int32")
    b = R.RegTensor("uint32")
    R.Arange(a, -3)
    R.Move(b, a)
    R.StoreAlign(out, b, R.CreateMask("uint32", R.MaskPattern.ALL), 0)


@pytest.mark.parametrize("compiled", [True, False])
def test_reinterpreting_move_says_to_store_into_the_other_type(compiled):
    """port64c: Move(uint32 register, (RegTensor<uint32_t>&)int32 register) was refused with Copy's one-type rule and
    no word of the same-width store that does the reinterpretation."""
    with aj.Core("ascend950") as core:
        out = core.local_tensor("uint32", 64)
        vf = _reinterpreting_move if compiled else _reinterpreting_move.py_func
        with pytest.raises(aj.UnsupportedDTypeError, match="Move on data registers is too.*store it into the "
                                                            "tensor of that type directly"):
            vf(out)


@pytest.mark.parametrize("name, call", [("DataCopyPadGm2UBImpl", r"aj\.DataCopyPad\(dst, src, DataCopyExtParams"),
                                        ("DataCopyPadUB2GMImpl", r"aj\.DataCopyPad\(dst, src, DataCopyExtParams"),
                                        ("DataCopyGM2UBImpl", r"aj\.DataCopy\(dst, src, aj\.DataCopyParams"),
                                        ("DataCopyUB2GMImpl", r"aj\.DataCopy\(dst, src, aj\.DataCopyParams")])
def test_devkit_copy_implementations_say_what_to_write(name, call):
    """port64b: DataCopyPadGm2UBImpl (ops-nn ScatterElementsV2's int64 index copy) was a bare AttributeError; port64h:
    DataCopyUB2GMImpl (the 310P GeGluGradV2's MemSetZero) was told to write DataCopyPad, which the 310P lacks."""
    with pytest.raises(aj.NotOfferedError, match=call + r".*aj\.GlobalTensor\(\"uint32\"\) over the same host "
                                                        r"array"):
        getattr(aj, name)


@pytest.mark.parametrize("name, stem", [("DuplicateImpl", "Duplicate"), ("CastImpl", "Cast")])
def test_devkit_implementation_names_point_at_their_api(name, stem):
    """port64h: the 310P GeGluGradV2 calls DuplicateImpl, a bare AttributeError; a name that is no API's stays one."""
    with pytest.raises(aj.NotOfferedError, match=rf"implementation of {stem} on raw pointers.*write aj\.{stem} on "
                                                 "tensors"):
        getattr(aj, name)
    assert not hasattr(aj, name)
    with pytest.raises(AttributeError) as caught:
        aj.NoSuchApiImpl
    assert not isinstance(caught.value, aj.AscendJitError)


@pytest.mark.parametrize("api, instead", [("Mins", "aj.Duplicate the scalar into a tensor, then aj.Min"),
                                          ("Maxs", "aj.Duplicate the scalar into a tensor, then aj.Max"),
                                          ("LeakyRelu", "aj.Muls(tmp, src, slope), then aj.Max(dst, src, tmp)")])
def test_an_instruction_the_910_lacks_says_what_to_write_there(api, instead):
    """port64h: Mins / Maxs on the 910 named only the devices that offer them."""
    with aj.Core("atlas-training") as core:
        src, dst = core.local_tensor("half", 128), core.local_tensor("half", 128)
        with pytest.raises(aj.UnsupportedDeviceError, match=rf"does not offer this instruction \(SPEC-2 1\.9\); "
                                                            rf"on it: .*{re.escape(instead)}"):
            getattr(aj, api)(dst, src, 1.0, 128)


def test_negative_global_tensor_index_explains_the_window():
    """port64c: CircularPad's copy from one element before x got a bare range."""
    g = aj.GlobalTensor("half")
    g.SetGlobalBuffer(np.zeros(8, np.float16), 8)
    with aj.Core("atlas-a2"):
        for access in (lambda: g[-1], lambda: g.GetValue(-1)):
            with pytest.raises(aj.OutOfBoundsError, match="give SetGlobalBuffer the host array from an earlier "
                                                          "element"):
                access()


def _every_block_writes_all(x, y):
    xg, yg = float_globals(x, y)
    pipe, buf = scratch(256)
    t = buf.Get("float")
    aj.DataCopy(t, xg, 64)
    flag(aj.HardEvent.MTE2_MTE3)
    aj.DataCopy(yg, t, 64)


def test_blocks_fix_for_same_bytes_names_each_blocks_share_first():
    """port64a: the devkit's Axpy example has every block write the whole output; the fix said SetAtomicAdd first,
    which would have summed the blocks' copies."""
    with aj.sanitize_session("report") as session:
        aj.launch(_every_block_writes_all, 2, "atlas-a2", np.arange(64, dtype=np.float32), np.zeros(64, np.float32))
    fixes = {r.fix for r in session.reports}
    assert fixes and all("give each block its own share of the output (an offset by GetBlockIdx())" in f
                         for f in fixes)


def _uninitialised_copy_out(x, y):
    yg = aj.GlobalTensor("half")
    yg.SetGlobalBuffer(y, 32)
    pipe = aj.TPipe()
    q = aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(q, 1, 64)
    t = q.AllocTensor("half")
    aj.Duplicate(t, np.float16(1), 16)
    q.EnQue(t)
    t = q.DeQue("half")
    aj.DataCopy(yg, t, 32)   # 16 of the 32 halves were never written
    q.FreeTensor(t)


@pytest.mark.ascend_sanitize(checks="", reason="checks the warnings of report-mode launches outside any session")
def test_report_mode_warning_names_the_launch_so_a_device_loop_shows_each():
    """port64a: outside a session a launch's reports come as one SanitizerWarning; Python shows a warning text once
    per line, and the text did not name the device, so a loop's second device showed nothing."""
    x, y = np.zeros(32, np.float16), np.zeros(32, np.float16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for device in ("atlas-a2", "atlas-inference-aicore"):
            aj.launch(_uninitialised_copy_out, 1, device, x, y, sanitize="report")
    texts = [str(w.message) for w in caught if w.category is aj.SanitizerWarning]
    assert len(texts) == 2
    assert texts[0].startswith("aj.launch on atlas-a2, 1 block (race,init,memory,blocks,sync): [init]")
    assert texts[1].startswith("aj.launch on atlas-inference-aicore, 1 block (race,init,memory,blocks,sync): [init]")


@pytest.mark.parametrize("device", ["atlas-a2", "ascend950"])
@pytest.mark.parametrize("dtype", ["half", "float"])
def test_reduce_order_evaluate_gives_the_canonical_nan_of_the_instruction(device, dtype):
    """port64d: inf + -inf in the host's arithmetic sets the NaN's sign bit; ReduceSum stores the canonical quiet
    NaN (SPEC-2 D35), so replaying a sweep's trial through the documented tree broke on it."""
    x = np.ones(35, aj.dtypes.resolve(dtype).np_dtype)
    x[0], x[1] = np.inf, -np.inf
    core = aj.Core(device)
    with core:
        src, dst = core.local_tensor(dtype, 64), core.local_tensor(dtype, 64)
        tmp = core.local_tensor(dtype, 256)
        src[:35] = x
        aj.ReduceSum(dst, src, tmp, 35)
    tree = aj.explain_reduce_order(device, "count", dtype, count=35)
    bits = np.uint16 if dtype == "half" else np.uint32
    want = dst.numpy()[:1].view(bits)[0]
    assert np.array(tree.evaluate(x), x.dtype).view(bits) == want
    assert tree.evaluate_batch(x[None, :]).view(bits)[0] == want


def test_a_sweep_run_again_while_a_worker_process_starts_names_the_main_guard(monkeypatch):
    """port64d: aj.sweep(workers=2) at a script's top level ran again in each worker process importing the script,
    ending in 440 lines of tracebacks and "Nanny failed to start"."""
    import multiprocessing.process
    from ascend_jit import sweeps
    monkeypatch.setattr(multiprocessing.process.current_process(), "_inheriting", True, raising=False)
    with pytest.raises(aj.StateError, match=r"under `if __name__ == \"__main__\":`: each worker process imports"):
        sweeps.local_cluster(None, 2)


def test_an_api_a_worker_never_registered_says_why():
    """port64d: a SummingApi registered only in the calling process reached a worker as a bare list of names."""
    from ascend_jit import summing
    with pytest.raises(aj.ParameterError, match="not registered in this process; an API registered with "
                                                "ascend_jit.summing.register must be registered in every process"):
        summing.get_api("port64d-tiled")


def test_a_zero_d_array_scalar_is_named_with_its_element():
    """port64g: a field of a 0-d structured tiling record (kernels/kv_rms_norm_rope_cache.py builds one) is a 0-d
    array, refused with a value that printed as a legal number."""
    record = np.zeros((), np.dtype([("reciprocal", np.float32), ("count", np.int32)]))
    core = aj.Core("atlas-a2")
    with core:
        a, b = core.local_tensor("float", 64), core.local_tensor("float", 64)
        i, j = core.local_tensor("int32", 64), core.local_tensor("int32", 64)
        for call in (lambda: aj.Muls(b, a, record["reciprocal"], 64), lambda: aj.Adds(j, i, record["count"], 64)):
            with pytest.raises(aj.ParameterError, match=r"got a 0-d numpy array; a scalar operand is one value: its "
                                                        r"element, x\[\(\)\] or np\.(float32|int32)\(x\)"):
                call()


@R.simd_vf
def _duplicate_with_its_template_part(out, src):
    r, d = R.RegTensor("float"), R.RegTensor("float")
    m = R.CreateMask("float")
    R.LoadAlign(r, src, 0)
    R.Duplicate(d, r, m, R.HighLowPart.LOWEST)
    R.StoreAlign(out, d, m, 0)


@pytest.mark.parametrize("compiled", [True, False])
def test_reg_duplicate_given_the_devkits_high_low_part_says_to_leave_it_out(compiled):
    """port64g: Duplicate<T, HighLowPart::LOWEST, MaskMergeMode::ZEROING>(dst, src, mask) ported in template order
    was refused as a mode, or as the scalar given twice."""
    with aj.Core("ascend950") as core:
        src, out = core.local_tensor("float", 64), core.local_tensor("float", 64)
        vf = _duplicate_with_its_template_part if compiled else _duplicate_with_its_template_part.py_func
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", aj.UncompiledVFWarning)
            with pytest.raises(aj.ParameterError, match=r"Duplicate: parameter 'HighLowPart' = <HighLowPart.LOWEST: "
                                                        r"0> \(legal: left out: Duplicate copies lane 0"):
                vf(out, src)
        r, d = R.RegTensor("float"), R.RegTensor("float")
        with pytest.raises(aj.ParameterError, match="parameter 'HighLowPart'"):
            R.Duplicate(d, r, R.CreateMask("float"), R.MaskMergeMode.ZEROING, R.HighLowPart.LOWEST)


def _copy_then_use(x, y, fill):
    """32 of a buffer's 64 floats copied in, the whole buffer copied UB -> UB, its unwritten half filled (`fill`)
    or not, then read by an Adds."""
    xg, yg = float_globals(x, y)
    pipe, buf = scratch(1024)
    a, w, o = (buf.GetWithOffset("float", 64, k * 256) for k in range(3))
    aj.DataCopy(a, xg, 32)
    flag(aj.HardEvent.MTE2_V)
    aj.DataCopy(w, a, 64)
    aj.PipeBarrier(aj.PIPE_V)
    if fill:
        aj.Duplicate(w[32], np.float32(0), 32)
        aj.PipeBarrier(aj.PIPE_V)
    aj.Adds(o, w, np.float32(1), 64)
    flag(aj.HardEvent.V_MTE3)
    aj.DataCopy(yg, o, 64)


@pytest.mark.parametrize("fill", [True, False])
def test_a_ub_to_ub_copy_of_unwritten_bytes_is_reported_where_they_are_used(fill):
    """port64f: ops-nn GlobalLpPool copies its rows' unwritten padding UB -> UB and rewrites it before any use; the
    copy itself was reported, where a Reg load and store of the same bytes are followed to their use."""
    with aj.sanitize_session("report") as session:
        aj.launch(_copy_then_use, 1, "atlas-a2", np.arange(32, dtype=np.float32), np.zeros(64, np.float32), fill)
    if fill:
        assert session.reports == []
        return
    (report,) = session.reports
    assert (report.kind, report.instruction.api, report.earlier.api, report.address, report.nbytes) == \
        ("uninitialised read", "Adds", "DataCopy", 256 + 128, 128)
    assert report.fix.startswith("the copy DataCopy [PIPE_V]")
    assert "(128 bytes, the first from UB byte 128;" in report.fix


@R.simd_vf
def _broadcast_rows(t, width, rows, alternate):
    """ReduceLogSumExp's DoUbBroadCast (TailA): row i loaded into a register and stored as row i + 1, the next
    iteration loading that row back into the same register (`alternate`: into the other one)."""
    first, second = R.RegTensor("float"), R.RegTensor("float")
    for i in range(rows - 1):
        m, _ = R.UpdateMask("float", width)
        reg = second if alternate and i % 2 else first
        R.LoadAlign(reg, t, i * width)
        R.StoreAlign(t, reg, m, (i + 1) * width)


def _broadcast_kernel(x, y, alternate):
    xg, yg = float_globals(x, y)
    pipe, buf = scratch(1024)
    t = buf.Get("float")
    aj.DataCopy(t, xg, 64)
    flag(aj.HardEvent.MTE2_V)
    R.asc_vf_call(_broadcast_rows, t, 64, 4, alternate)
    flag(aj.HardEvent.V_MTE3)
    aj.DataCopy(yg, t, 256)


@pytest.mark.parametrize("alternate", [False, True])
def test_strict_reports_a_store_then_a_load_even_through_one_register(alternate):
    """port64f took ReduceLogSumExp's DoUbBroadCast (a row stored from vreg, the next row loaded into vreg, no
    LocalMemBar) for the devkit's register order (DK LocalMemBar.md: 寄存器保序). The devkit's own reg_sync example
    says otherwise for this direction: its scenario 1 (a load, then a store through one register) needs no barrier,
    its scenario 2 (a store, then a load of those bytes into the register it stored from) needs LocalMemBar: "若缺少
    LocalMemBar，步骤5可能先执行". "strict" reports it through one register as through two."""
    x, y = np.arange(64, dtype=np.float32), np.zeros(256, np.float32)
    with aj.sanitize_session("report,strict,device-sync") as session:
        aj.launch(_broadcast_kernel, 1, "ascend950", x, y, alternate)
    np.testing.assert_array_equal(y, np.tile(x, 4))
    found = [(r.kind, r.instruction.api, r.earlier.api, r.address) for r in session.reports]
    assert found == [("RAW", "LoadAlign", "StoreAlign", 256), ("RAW", "LoadAlign", "StoreAlign", 512)]
    assert all("LocalMemBar(MemType.VEC_STORE, MemType.VEC_LOAD)" in r.fix for r in session.reports)


def test_sweep_rows_whose_partial_sums_left_the_range_say_so():
    """review64: a 310P partial sum saturated at 65504 and pulled back by later terms (128 x 1000 then 128 x -500)
    gives a finite result far over its bound; the rule had looked at the result and the exact sum only. A row within
    its bound is not marked, whatever its magnitudes (cancelling data)."""
    from ascend_jit.sweeps import left_range
    half = np.dtype(np.float16)
    x = np.r_[np.full(128, 1000.0), np.full(128, -500.0)]
    assert left_range(np.array([1504.0]), np.array([64000.0]), np.array([500.0]), np.array([np.abs(x).sum()]),
                      half).tolist() == [True]
    # 65520 is half's overflow threshold: magnitudes below it round every partial sum to at most 65504
    results, exact = np.array([60000.0, 60000.0, 60000.0, np.inf, np.nan]), np.full(5, 64000.0)
    bounds, magnitudes = np.array([10.0, 10.0, 1e4, 1.0, 1.0]), np.array([65519.0, 65520.0, 1e6, 10.0, 10.0])
    assert left_range(results, exact, bounds, magnitudes, half).tolist() == [False, True, False, True, True]
    assert left_range(np.array([1.0]), np.array([1.0]), np.array([0.0]), np.array([3.4e38]),
                      np.dtype(np.float32)).tolist() == [False]


def test_a_declared_global_tensor_has_its_dtype_before_its_buffer():
    """port64i: GlobalTensor("float").dtype was None until SetGlobalBuffer, so a port's xGm.dtype.name failed."""
    g = aj.GlobalTensor("float")
    assert g.dtype is aj.dtypes.FLOAT and repr(g) == "GlobalTensor(float, size=0)"
    g.SetGlobalBuffer(np.zeros(4, np.float16))   # the bytes as float: 2 elements
    assert g.dtype is aj.dtypes.FLOAT and g.GetSize() == 2
    g.array = None
    assert g.dtype is aj.dtypes.FLOAT and aj.GlobalTensor().dtype is None


def test_golden_outside_a_checkout_says_no_gallery_was_found(tmp_path, monkeypatch, capsys):
    """port64i: `golden record ... --kernels add_custom` outside the checkout listed the built-in kernels only."""
    from ascend_jit import cli
    monkeypatch.chdir(tmp_path)
    assert cli.main(["golden", "record", str(tmp_path / "g"), "--kernels", "add_custom"]) != 0
    assert "is no built-in kernel, and no gallery was found" in capsys.readouterr().err


@pytest.mark.parametrize("device", ["atlas-a2", "atlas-inference-aicore", "atlas-200i-500-a2"])
def test_explain_reduce_order_of_mask_0_says_the_call_writes_nothing(device):
    """audit64c: a mask-0 high-dim tree read as an ordinary TREE-TREE summing to +0, where the call (D14) leaves dst
    as it was; the 950 refuses mask 0, and so does its tree."""
    tree = aj.explain_reduce_order(device, "highdim", "half", mask=0, repeat_time=2)
    assert tree.description == "mask 0: the call writes nothing (D14)"
    with pytest.raises(aj.ParameterError, match=r"ReduceSum refuses mask 0 here \(D14\)"):
        aj.explain_reduce_order("ascend950", "highdim", "half", mask=[0, 0], repeat_time=2)


@pytest.mark.parametrize("n, m, expected", [(36, 36, []), (40, 40, []), (36, 40, [("sel_mask", 516, 1)])])
def test_a_select_reads_only_the_mask_bits_of_its_lanes(n, m, expected):
    """port64j: a Compares of a tile rounded up to 64 lanes (SPEC-2 D44's whole blocks) leaves the bits of the lanes
    past the data unknown; a Select of the data's count n reads the bits of lanes below n only, which were reported
    when n was no multiple of 8 (the byte holding them holds unknown bits too). A Select past the data still is; its
    never-written src0 lanes are followed to dst (port68d), not reported at the Select."""
    core = aj.Core("atlas-a2", sanitize="report")
    src, dst = core.local_tensor("float", 64), core.local_tensor("float", 64)
    bits = core.local_tensor("uint8", 32)
    with core:
        aj.Duplicate(src, np.float32(1.0), n)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Compares(bits, src, np.float32(7.0), aj.CMPMODE.LE, 64)
        aj.PipeBarrier(aj.PIPE_V)
        aj.Select(dst, bits, src, np.float32(0.0), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, m)
    assert [(r.operand, r.address, r.nbytes) for r in core.sanitizer.reports] == expected


def test_data_copy_pad_brace_list_pad_struct_is_remembered():
    """port64l: `DataCopyPad(ub, gm, DataCopyParams(...), (False, 0, 0, 0))`, the README's form of the original's
    `{false, 0, 0, 0}`, was converted again on every call (4x the call's time); it is the struct, remembered alike."""
    from ascend_jit.api import data_copy_pad
    x = np.arange(64, dtype=np.float32)
    with aj.Core("atlas-a2") as core:
        ub = core.local_tensor("float", 64)
        g = aj.GlobalTensor("float")
        g.SetGlobalBuffer(x)
        data_copy_pad._OLDER.clear()
        aj.DataCopyPad(ub, g, aj.DataCopyParams(1, 40, 0, 0), (False, 0, 0, 0))
        assert len(data_copy_pad._OLDER) == 1
        aj.DataCopyPad(ub, g, aj.DataCopyParams(1, 40, 0, 0), aj.DataCopyPadParams(False, 0, 0, 0))
        assert len(data_copy_pad._OLDER) == 1
        np.testing.assert_array_equal(ub.numpy()[:10], x[:10])


@R.simd_vf
def _mixed_types_mul(out):
    biased, f = R.RegTensor("int32"), R.RegTensor("float")
    m = R.CreateMask("float", R.MaskPattern.ALL)
    R.Mul(f, f, biased, m)
    R.StoreAlign(out, f, m, 0)


@pytest.mark.parametrize("compiled", [True, False])
def test_a_register_cast_is_told_as_a_store_and_a_load(compiled):
    """port64k: ops-cv BoundingBoxDecode's Mul<float>(d, s, (RegTensor<float>&)int_reg, m) got "one element type"
    with no way forward, and RegTensor.ReinterpretCast a bare AttributeError."""
    mixed = _mixed_types_mul
    with aj.Core("ascend950") as core:
        out = core.local_tensor("float", 64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", aj.UncompiledVFWarning)
            with pytest.raises(aj.UnsupportedDTypeError, match=r"a C\+\+ \(RegTensor<T>&\) cast of another type's "
                                                                r"register is a store of it into a tensor of T"):
                (mixed if compiled else mixed.py_func)(out)
        with pytest.raises(aj.NotOfferedError, match="store the register into a tensor of the other type"):
            R.RegTensor("int32").ReinterpretCast("float")


def test_the_910s_advice_names_the_dtypes_it_can_be_written_in():
    """review64b: the 910's AddRelu advice named Relu, which the 910 offers for half only, and Maxs's named Max,
    which it offers for no int16: each advice names the dtypes the device offers every step of it in."""
    with aj.Core("atlas-training") as core:
        a, b = core.local_tensor("float", 64), core.local_tensor("float", 64)
        with pytest.raises(aj.UnsupportedDeviceError, match=r"aj\.Add, then aj\.Relu of the sum \(the same bits: "
                                                            r"Relu does not round\) \(for half\)"):
            aj.AddRelu(a, a, b, 64)
        with pytest.raises(aj.UnsupportedDeviceError, match=r"then aj\.Max \(for half, float, int32\)"):
            aj.Maxs(a, b, np.float32(1), 64)


def test_explain_reduce_order_refuses_what_reduce_sum_refuses():
    """review64b: a 950 counter-mode count of 0 gave a +0 tree and a float mask[1] a tree (or "writes nothing"),
    where ReduceSum refuses both."""
    with pytest.raises(aj.ParameterError, match=r"counter-mode count\)' = 0"):
        aj.explain_reduce_order("ascend950", "highdim", "float", mask=2**32, repeat_time=1, counter_mode=True)
    for device in ("atlas-a2", "ascend950"):
        with pytest.raises(aj.ParameterError, match=r"mask\[1\]' = 1 \(legal: 0 for 32-bit types \(SPEC 2\.1\)"):
            aj.explain_reduce_order(device, "highdim", "float", mask=[0, 1], repeat_time=1)
    assert aj.explain_reduce_order("atlas-a2", "highdim", "half", mask=[0, 1], repeat_time=1).num_adds() > 0


def test_get_phy_addr_of_a_declared_global_tensor_without_a_buffer_is_refused():
    """review64b: a declared GlobalTensor's GetPhyAddr before SetGlobalBuffer raised a bare AttributeError."""
    with pytest.raises(aj.StateError, match="call SetGlobalBuffer"):
        aj.GlobalTensor("float").GetPhyAddr()
