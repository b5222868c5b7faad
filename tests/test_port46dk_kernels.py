"""Session 46dk's audit of the devkit examples (docs/devkit_examples.md) and its ports: kernels/devkit_intro_add.py
(add, add_tpipe_tque), kernels/reg_intro_examples.py (the introductory Reg add; Reg mul, duplicate, arange, reduce),
kernels/sync_all_example.py, kernels/tmp_buffer_example.py, kernels/atomic_deterministic.py (scenario 1),
kernels/tensor_allocation.py (scenarios 1-4), kernels/gm_flag_examples.py (data_sync_barrier, gm_by_dcache),
kernels/scatter_compat.py (the compatibility guide's scatter, A2/A3 branch), kernels/gelu_high_performance.py (the
best-practice GELU, Memory-API and Reg scenarios, and GELU + element-wise, cases 0-3), kernels/reg_trait_div.py
(the Reg trait example, scenario 1: int64 Div), kernels/hello_world.py, and the scenario added to
kernels/element_wise_examples.py (element_wise_logic scenario 4, ShiftRight) and kernels/reg_load_store_align.py
(scenario 1, per-step offsets).

Each port against its numpy model bit for bit on every device the example names, against the example's own golden
(gen_data.py or the host code's check), clean under the sanitizer; the branches left out are refused as
docs/devkit_examples.md says; test_found_* pins the refusal wording the audit corrected."""

import ml_dtypes
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import registry
from ported import sanitizer_reports as _reports, same_bits as _same, spec_and_module as _spec_and_module

A2_A3_950 = ["ascend950", "atlas-a3", "atlas-a2"]
NEW = ["add_intro", "add_tpipe_tque", "add_reg_intro", "mul_reg", "duplicate_reg", "arange_reg", "reduce_sum_reg",
       "sync_all", "tmp_buffer", "atomic_deterministic", "tensor_allocation_1", "tensor_allocation_2",
       "tensor_allocation_3", "tensor_allocation_4", "data_sync_barrier", "gm_by_dcache", "shift_right_uint16",
       "scatter_compat", "gelu_hp_memory", "gelu_hp_reg", "reg_trait_div_int64", "gelu_eltwise_vl32", "gelu_eltwise",
       "gelu_eltwise_split", "hello_world", "reg_align_offset"]


def _run(name, device, size=None, seed=0):
    k, _ = _spec_and_module(name)
    inputs = k.make_inputs(k.default_size if size is None else size, seed)
    return k, inputs, k.run(device, inputs)


def _check(name, device, size=None, seed=0):
    k, inputs, out = _run(name, device, size, seed)
    want = k.expected(device, inputs)
    for key, value in want.items():
        assert out[key].dtype == value.dtype and _same(out[key], value), (name, device, key)
    return inputs, out


def test_every_port_names_its_devkit_original_and_the_audit_table_lists_it():
    from pathlib import Path
    table = (Path(__file__).resolve().parents[1] / "docs" / "devkit_examples.md").read_text()
    for name in NEW:
        k = registry()[name]
        assert k.source.startswith("mirror-cann/asc-devkit@82b89a15 examples/"), name
        assert f"`{name}`" in table, name


@pytest.mark.parametrize("name", NEW)
def test_port_is_its_model_on_every_device_it_names_with_the_specials(name):
    """The specials seed (+-0, +-inf, NaN, subnormals, the largest values where the example has float data) on
    every device of the KernelSpec; the default seed runs in tests/test_gallery.py."""
    k = registry()[name]
    for device in k.devices:
        _check(name, device, seed=3)


# ---- the examples' own goldens (step 3 of the audit: what the examples print or compare against)

@pytest.mark.parametrize("device", A2_A3_950)
def test_intro_adds_give_the_hosts_golden_exactly(device):
    """add.asc compares with std::equal against x + y computed by the host in float; add_tpipe_tque's golden is
    numpy's float32 x + y."""
    inputs, out = _run("add_intro", device)[1:]
    i = np.arange(8 * 2048)
    host_x = np.array([np.float32(v) * np.float32(0.1) for v in i[:50]], np.float32)
    assert np.array_equal(inputs["x"][:50], host_x)
    assert np.array_equal(out["z"], inputs["x"] + inputs["y"])
    inputs, out = _run("add_tpipe_tque", device)[1:]
    assert np.array_equal(out["z"][6:], inputs["x"][6:] + inputs["y"][6:])


def test_reg_examples_give_their_gen_data_goldens():
    """add: ones + ones = 2; mul: x * y (within the example's 1e-4, here exact); duplicate: 3.14 as float;
    arange: 0..255; reduce: [sum(x), 0 x 7] within the example's EPS 1e-4 (absolute or relative)."""
    _, inputs, out = _run("add_reg_intro", "ascend950")
    assert np.all(out["y"] == 2.0) and out["y"].size == 256 * 256
    _, inputs, out = _run("mul_reg", "ascend950")
    assert np.array_equal(out["z"], inputs["x"] * inputs["y"])
    assert np.all(_run("duplicate_reg", "ascend950")[2]["y"] == np.float32(3.14))
    assert np.array_equal(_run("arange_reg", "ascend950")[2]["y"], np.arange(256, dtype=np.float32))
    _, inputs, out = _run("reduce_sum_reg", "ascend950")
    golden = np.sum(inputs["x"])
    assert abs(out["y"][0] - golden) <= 1e-4 * abs(golden) and not out["y"][1:].any()


@pytest.mark.parametrize("device", A2_A3_950)
def test_sync_tmp_buffer_and_atomic_examples_give_their_goldens(device):
    """sync_all: x * 2 * 8 = 16 for ones; tmp_buffer: gen_data.py's (x + y).astype(bfloat16) bit for bit;
    set_atomic_deterministic_computation scenario 1: 0 + 1e16 - 1e16 + 1 = 1.0 (x + (y + z)), where the other
    association would give 0."""
    assert np.all(_run("sync_all", device)[2]["z"] == 16.0)
    _, inputs, out = _run("tmp_buffer", device)
    assert _same(out["z"], (inputs["x"] + inputs["y"]).astype(ml_dtypes.bfloat16))
    out = _run("atomic_deterministic", device)[2]["out"]
    assert np.all(out == 1.0)
    x, y, z = np.float32(1.0), np.float32(1e16), np.float32(-1e16)
    assert (x + y) + z == 0.0 and x + (y + z) == 1.0


@pytest.mark.parametrize("device", A2_A3_950)
def test_gm_flag_and_tensor_allocation_examples_give_their_goldens(device):
    """data_sync_barrier: dst[0] = 2 * 7, the rest 0; gm_by_dcache: within 1e-3 of the host's float sum (equal
    here); tensor_allocation: within 1e-3 of x + y (equal)."""
    out = _run("data_sync_barrier", device)[2]["z"]
    assert out[0] == 14 and not out[1:].any()
    inputs, out = _run("gm_by_dcache", device)[1:]
    host = np.float32(0)
    for v in inputs["x"]:
        host = np.float32(host + v)
    assert abs(float(out["z"][0]) - float(host)) <= 1e-3
    for s in (1, 2, 3) + ((4,) if device == "ascend950" else ()):
        inputs, out = _run(f"tensor_allocation_{s}", device)[1:]
        assert np.array_equal(out["z"], inputs["x"] + inputs["y"]), s


def test_shift_right_gives_the_golden_and_its_scenario_siblings_are_refused():
    """element_wise_logic scenario 4: (1..512) >> 2. Scenarios 2 (Ors with src0Local[0] as the scalar, first) and 3
    (ShiftLeft by a tensor of amounts) are refused before anything is written (docs/devkit_examples.md)."""
    assert np.array_equal(_run("shift_right_uint16", "atlas-a2")[2]["z"], np.arange(1, 513, dtype=np.uint16) >> 2)
    core = aj.Core("ascend950")
    with core:
        a, b, d = (core.local_tensor("uint16", 512) for _ in range(3))
        a[:], b[:], d[:] = np.ones(512, np.uint16), np.arange(512, dtype=np.uint16), np.zeros(512, np.uint16)
        before = core.ub.copy()
        with pytest.raises(aj.ParameterError, match="flexible scalar position"):
            aj.Ors(d, a[0], b, 512)
        with pytest.raises(aj.ParameterError, match="tensor form"):
            aj.ShiftLeft(d, a, b.ReinterpretCast("int16"), 512)
        assert np.array_equal(core.ub, before)


def test_found_shift_and_ors_tensor_operand_refusals_name_their_own_forms():
    """The audit's finding: ShiftLeft given a tensor of per-element amounts (the 950's tensor form the devkit's
    element_wise_logic scenario 3 calls) and Ors given src0Local[0] as its scalar (scenario 2) were refused with
    the Adds/Muls/Maxs/Mins flexible-scalar text, naming neither form. The refusal now says what is not offered
    and where the rule is (docs/decisions.md "ShiftLeft, ShiftRight, Not", "Ands, Ors"); Adds keeps its text."""
    core = aj.Core("ascend950")
    with core:
        a, b, d = (core.local_tensor("int16", 256) for _ in range(3))
        for call, words in ((lambda: aj.ShiftLeft(d, a, b, 256), ("ShiftLeft", "tensor form", "ShiftLeft, ShiftRight")),
                            (lambda: aj.ShiftRight(d, a, b[0], 256), ("ShiftRight", "tensor element as the amount")),
                            (lambda: aj.Ors(d, a, b[0], 256), ("Ors", "src0Local[0]", "Ands, Ors")),
                            (lambda: aj.Adds(d, a, b[0], 256), ("Adds", "Adds/Muls/Maxs/Mins"))):
            with pytest.raises(aj.ParameterError) as info:
                call()
            assert all(w in str(info.value) for w in words), str(info.value)
            assert "Adds/Muls/Maxs/Mins" not in str(info.value) or words[0] == "Adds"


def test_tensor_allocation_scenario_4_is_the_950s_and_the_flag_scenarios_not_the_310bs():
    """Scenario 4's VF is inside `#if __NPU_ARCH__ == 3510` (elsewhere the original computes nothing): the port
    lists the 950 only; scenarios 2-3 use SetFlag<HardEvent>, which the 310B refuses (SPEC-2 D62)."""
    ks = registry()
    assert ks["tensor_allocation_4"].devices == ("ascend950",)
    assert "atlas-200i-500-a2" in ks["tensor_allocation_1"].devices
    assert "atlas-200i-500-a2" not in ks["tensor_allocation_2"].devices
    with pytest.raises(aj.UnsupportedDeviceError):
        ks["tensor_allocation_4"].execute("atlas-a2")
    _check("tensor_allocation_1", "atlas-200i-500-a2", seed=2)


# ---- sanitizer

@pytest.mark.parametrize("name", NEW)
def test_port_runs_clean_under_the_sanitizer(name):
    k = registry()[name]
    device = k.devices[-1] if name != "tensor_allocation_1" else "atlas-a2"
    assert _reports(lambda: k.run(device, k.make_inputs(k.default_size, 1))) == [], name


@pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync,dcache", reason="runs the original's flags, whose vector "
                                                                             "write / scalar read race the test shows")
def test_gm_by_dcache_original_flags_leave_the_scalar_read_unordered():
    """The deviation's reason: the original reads dstLocal.GetValue(0) after the final ReduceRepeat with only an
    MTE3_S flag between (SPEC-2 10.4); the sanitizer reports the vector write / scalar read race, the port's V_S
    pair removes it, and the values are the same."""
    _, m = _spec_and_module("gm_by_dcache")
    inputs = m.make_inputs_dcache(4096, 0)
    reports = _reports(lambda: m.run_dcache("atlas-a2", inputs, vs_flag=False))
    assert reports and all(r.check == "race" for r in reports)
    assert any("GetValue" in str(r.instruction) and "ReduceRepeat" in str(r.earlier) for r in reports)
    assert _reports(lambda: m.run_dcache("atlas-a2", inputs)) == []
    assert _same(m.run_dcache("atlas-a2", inputs, vs_flag=False)["z"], m.run_dcache("atlas-a2", inputs)["z"])


def test_sync_all_sums_in_each_blocks_loop_order():
    """Random data: block b's result is its own doubled slice plus the others' in block order (float rounding
    shows the order); the blocks' results differ in their last bits though they sum the same numbers."""
    _, m = _spec_and_module("sync_all")
    inputs = m.make_inputs(512, 7)
    out = m.run("atlas-a2", inputs)["z"].reshape(8, 64)
    want = m.expected("atlas-a2", inputs)["z"].reshape(8, 64)
    assert _same(out, want)
    assert not all(np.array_equal(out[0], out[b]) for b in range(1, 8))


@pytest.mark.ascend_sanitize(checks="memory,init,blocks,sync,dcache", reason="runs the original's flags, which leave "
                                                                             "the scalar loop unordered, as the test "
                                                                             "shows")
def test_scatter_reverses_the_vector_and_its_original_flags_leave_the_scalar_loop_unordered():
    """gen_data.py's golden: arange(127, -1, -1). The original's MTE2_V / V_MTE3 flags do not order the scalar
    unit's loop (SPEC-2 10.4): the sanitizer reports the MTE2 -> S reads and the S -> MTE3 copy-out, the port's
    MTE2_S / S_MTE3 pairs remove them; the bits are the same."""
    _, m = _spec_and_module("scatter_compat")
    inputs = m.make_inputs(128, 0)
    for device in ("atlas-a2", "atlas-a3"):
        assert np.array_equal(m.run(device, inputs)["z"], np.arange(127, -1, -1).astype(np.float16))
    reports = _reports(lambda: m.run("atlas-a2", inputs, original_flags=True))
    kinds = {(r.instruction.api, r.earlier.api) for r in reports}
    assert kinds == {("GetValue", "DataCopy"), ("DataCopy", "SetValue")}, kinds
    assert _same(m.run("atlas-a2", inputs, original_flags=True)["z"], m.run("atlas-a2", inputs)["z"])


def _verify_result(out, golden):
    """The examples' scripts/verify_result.py: isclose(rtol 1e-4, atol 1e-5, equal_nan), at most 1e-4 of the
    elements outside."""
    bad = ~np.isclose(out, golden, rtol=1e-4, atol=1e-5, equal_nan=True)
    return bad.mean() <= 1e-4


def test_gelu_best_practice_scenarios_agree_and_pass_the_examples_verify_result():
    """Scenario 0 (Memory API) and scenarios 1-2 (Reg VF) give the same bits (the 950's Memory and Reg Exp / Div
    compute alike, docs/decisions.md "Reg API"); within 2e-5 relative (plus 1e-37 absolute) of gen_data.py's
    float64 golden and passing verify_result.py; 21 rows: a 5-row last row block and a one-row last tile. The
    GELU + element-wise cases 0-3 likewise agree with each other and pass their verify_result.py."""
    _, m = _spec_and_module("gelu_hp_memory")
    inputs = m.make_inputs(21 * 512, 0)
    mem = m._run(0)("ascend950", inputs)["y"]
    reg = m._run(1)("ascend950", inputs)["y"]
    assert _same(mem, reg) and _same(mem, m.gelu_model(inputs["x"]))
    g = m.golden(inputs["x"]).astype(np.float64)
    assert np.all(np.abs(mem - g) <= 2e-5 * np.abs(g) + 1e-37) and _verify_result(mem, m.golden(inputs["x"]))
    assert m.num_blocks(21) == 6
    cases = [m._run(s)("ascend950", inputs)["y"] for s in (10, 11, 12)]
    assert all(_same(c, cases[0]) for c in cases) and _same(cases[0], m.gelu_eltwise_model(inputs["x"]))
    assert _verify_result(cases[0], m.golden_eltwise(inputs["x"]))


def test_gelu_eltwise_case_0_reads_whole_registers_past_its_tile():
    """The deviation's reason: case 0's VL32 steps load 256 bytes at 128-byte steps, so a full tile's last load
    reads 128 bytes past it. The original layout refuses under tensor bounds and runs on a bounds="ub" launch with
    the same bits. The lanes carry the init check (session 54) and the memory check (session 66: bytes outside the
    tensor are followed, not race-checked at the load, port66c), and those lanes (32..63, off the VL32 mask) never
    reach a store: no report, though the next tile's DataCopyPad may be writing those bytes meanwhile."""
    _, m = _spec_and_module("gelu_eltwise_vl32")
    inputs = m.make_inputs(4 * 512, 0)
    with pytest.raises(aj.OutOfBoundsError, match="LoadAlign"):
        aj.launch(m.gelu_custom, m.num_blocks(4), "ascend950", inputs["x"], np.zeros(2048, np.float32), 4, 512, 8,
                  256, 512, 10, True)
    original = m._run(10, original_layout=True)("ascend950", inputs)["y"]
    assert _same(original, m._run(10)("ascend950", inputs)["y"])
    checks = {r.check for r in _reports(lambda: m._run(10, original_layout=True)("ascend950", inputs))}
    assert checks == set()   # session 66: the lanes past the tile reach no store: no memory or race report


def test_reg_trait_div_gives_gen_data_golden():
    """gen_data.py: (x / y).astype(int64) in float64 for x in [1, 1000), y in [1, 100): the truncated quotient."""
    _, inputs, out = _run("reg_trait_div_int64", "ascend950")
    assert np.array_equal(out["z"], (inputs["x"] / inputs["y"]).astype(np.int64))


def test_hello_world_prints_the_readmes_lines():
    """The quickstart README's expected output: eight lines, one a core, in block order."""
    out = _run("hello_world", "atlas-a2")[2]["stdout"].tobytes().decode()
    assert out.splitlines() == [f"[AIV Block {i}/8] Hello World!!!" for i in range(8)]


def test_reg_align_offset_gives_gen_data_golden():
    """gen_data.py scenario 1: z = x + y for 1021 elements, the last 3 zeros (the Duplicate before the VF)."""
    _, inputs, out = _run("reg_align_offset", "ascend950")
    want = inputs["x"] + inputs["y"]
    want[-3:] = 0
    assert np.array_equal(out["z"], want) and not out["z"][-3:].any()
