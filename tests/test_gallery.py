"""The kernel gallery (top-level kernels/): each ported kernel on every device it supports, at its default size and
at a size that leaves a tail (rows or tiles that do not fill the last block), checked by its own declared
expectation (bit for bit, or within its stated tolerance for MODELLED kernels)."""
import numpy as np
import pytest

import ascend_jit as aj
from ascend_jit.kernels import gallery_dir, registry
from gallery_tails import TAILS
from ported import module as _module

GALLERY = {name: k for name, k in registry().items() if k.source}
BIG = 16 * 1024 * 1024


def test_the_gallery_is_found_from_the_checkout():
    assert gallery_dir() is not None
    assert {"softmax", "rmsnorm", "layernorm", "reduce_computation", "reduce_repeat", "add_custom", "leaky_relu",
            "select", "select_950", "compare", "compare_950", "sigmoid", "data_copy_pad", "data_copy_pad_950",
            "add_relu", "axpy", "cast_ceil", "clip_by_value", "clip_by_value_bf16", "gather",
            "reduce_tiling", "greater_equal", "greater_equal_float", "get_tpipe_ptr", "tpipe_reuse", "gelu_grad",
            "gelu_grad_float", "log", "log_half", "brcb", "duplicate", "add_best_practice",
            "add_best_practice_scalar", "gelu_reg", "select_reg", "muls_reg", "abs_reg", "heaviside",
            "heaviside_scalar", "swish", "swish_half", "data_copy_pad_modes",
            "data_copy_pad_modes_950", "xlogy", "xlogy_broadcast", "xlogy_scalar", "sasum", "ge_glu", "ge_glu_aligned",
            "ge_glu_vreduce", "reshape", "leaky_relu_high_dim", "and_uint16", "tbufpool_reuse",
            "tbufpool_subdivision", "add_rms_norm", "is_finite", "is_finite_bf16", "bitwise_and_int16",
            "bitwise_and_int32", "addcmul", "addcmul_int32", "addcmul_bf16", "argmax_llm",
            "argmax_llm_half", "rotary_embedding", "rotary_embedding_float", "fake_quant", "relu_grad",
            "relu_grad_half", "relu_grad_bf16", "relu_grad_int32", "relu_grad_int8", "relu_grad_uint8", "selu",
            "selu_half", "selu_bf16", "selu_int32", "selu_int8", "hard_swish_grad", "hard_swish_grad_half",
            "hard_swish_grad_bf16", "mse_loss", "mse_loss_sum_half", "mse_loss_none_bf16", "huber_loss",
            "huber_loss_sum_half", "huber_loss_none_bf16", "log_softmax_grad", "log_softmax_grad_padded",
            "log_softmax_grad_narrow", "sync_batch_norm_gather_stats",
            "sync_batch_norm_gather_stats_chunked", "bitwise_not_int16", "bitwise_not_int32", "bitwise_not_int8",
            "arange", "arange_int32", "right_shift_int32", "right_shift_int16",
            "right_shift_scalar_int32", "neg_int8", "neg_int32", "neg_bf16", "floor", "floor_half", "floor_bf16",
            "nan_to_num", "nan_to_num_half", "nan_to_num_bf16", "is_pos_inf_half", "is_pos_inf", "is_pos_inf_bf16",
            "real_complex64", "real_complex32", "real_complex64_single", "real_float", "round", "round_half",
            "round_bf16", "round_int32", "round_decimals", "l2_loss", "l2_loss_half", "l2_loss_single_bf16", "lerp",
            "lerp_half", "lerp_bf16", "hardtanh_grad", "hardtanh_grad_half", "hardtanh_grad_bf16", "kl_div",
            "kl_div_mean_half", "kl_div_batchmean_bf16_log_target", "approximate_equal", "approximate_equal_half",
            "approximate_equal_bf16", "is_close", "is_close_half_equal_nan", "is_close_bf16", "is_close_int32", "exp",
            "exp_half", "exp_bf16", "softmax_grad", "softmax_grad_half", "softmax_grad_bf16", "reduce_max_v2",
            "reduce_max_v2_half_axis0", "reduce_max_v2_axis1", "relu6_d", "relu6_d_half", "relu6_d_int32",
            "relu6_d_bf16", "drop_out_v3_grad", "drop_out_v3_grad_half", "drop_out_v3_grad_bf16",
            "angle_v2_int8", "angle_v2_int16", "angle_v2_int32", "angle_v2_int64", "masked_select_v3",
            "masked_select_v3_half", "masked_select_v3_int8", "masked_select_v3_int64", "nll_loss",
            "nll_loss_none_half", "fused_add_rms_norm", "fused_add_rms_norm_half", "population_count",
            "population_count_uint16", "square_sum_all", "non_finite_check", "non_finite_check_half",
            "non_finite_check_bf16", "gcd_int32", "reg_unalign_copy", "reg_unalign_reduce_max", "sigmoid_regbase",
            "sigmoid_regbase_half", "sigmoid_regbase_bf16", "index_fill_d", "index_fill_d_half",
            "index_fill_d_bf16", "quantize", "quantize_half", "quantize_per_channel_bf16", "shrink",
            "shrink_half", "data_format_dim_map", "data_format_dim_map_int64", "sign_bits_unpack",
            "sign_bits_unpack_half", "sign_bits_pack", "sign_bits_pack_half", "cross_entropy_loss",
            "cross_entropy_loss_none_smoothing", "cross_entropy_loss_sum_big_c", "diag_part", "diag_part_half",
            "diag_part_int32", "relu_v2", "relu_v2_int8", "relu_v2_int64", "softplus", "softplus_half",
            "softplus_bf16", "mish", "mish_half", "mish_bf16", "soft_margin_loss", "soft_margin_loss_mean",
            "soft_margin_loss_half", "soft_margin_loss_sum_half", "group_norm", "group_norm_half",
            "group_norm_bf16_big_group", "group_norm_single", "dynamic_quant", "dynamic_quant_bf16",
            "dynamic_quant_smooth_half", "trace_v2", "trace_v2_half", "logical_and", "bincount", "bincount_int64",
            "bincount_large_bins", "reg_align_post_update", "reg_align_addr_reg", "reg_align_data_block",
            "reg_align_broadcast", "reg_align_upsample", "reg_interleave", "reg_pack", "reg_merge_mode",
            "logit", "logit_half", "logit_bf16", "linear_index", "linear_index_int64",
            "linear_index_dim0", "linear_index_dim1_int64", "avg_pool3d_grad", "avg_pool3d_grad_half",
            "avg_pool3d_grad_bf16_disjoint"} <= \
        set(GALLERY)


def test_no_two_gallery_kernels_share_a_name():
    """registry() keys kernels by name: a second file defining a taken name would hide the first."""
    from ascend_jit.kernels import load_file
    names = [k.name for path in sorted(gallery_dir().glob("*.py")) if not path.name.startswith("_")
             for k in load_file(path)]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


@pytest.mark.parametrize("name", sorted(GALLERY))
@pytest.mark.parametrize("device", aj.SUPPORTED_NAMES)
def test_gallery_kernel_passes_on_every_device(name, device):
    k = GALLERY[name]
    if not k.supports(device):
        pytest.skip(f"{name} is not offered on {device}")
    sizes = [k.default_size] + ([TAILS[name]] if TAILS.get(name) else [])
    for size in sizes:
        ok, lines, _, _ = k.execute(device, size, 7)
        assert ok, "\n".join(lines)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["softmax", "rmsnorm", "layernorm"])
def test_gallery_kernel_at_16_mi_elements(name):
    k = GALLERY[name]
    ok, lines, _, _ = k.execute(k.devices[-1], BIG, 3)
    assert ok, "\n".join(lines)


@pytest.mark.parametrize("device", ["ascend950", "atlas-a2"])
def test_softmax_of_float_rows_within_float_rounding(device):
    """The original's float instantiation (no casts; Div straight into y): float32 roundings only, 2e-6 relative."""
    from ascend_jit.kernels._base import within_tolerance
    k = GALLERY["softmax"]
    inputs = k.make_inputs(21 * 1024, 4, dtype=np.float32)
    ok, line = within_tolerance(k.run(device, inputs, dtype="float")["y"], k.expected(device, inputs)["y"], 2e-6)
    assert ok, line


@pytest.mark.parametrize("device", ["ascend950", "atlas-a2"])
@pytest.mark.parametrize("size", [64, 4000])
def test_reduce_tiling_runs_its_other_regimes(device, size):
    """The devkit reduce example picks its sequence by size: 64 floats take regime 1 (one normal-mode ReduceRepeat),
    4000 regime 3 with a 32-lane last repeat (the default 4096 and the tail 504 cover regimes 3 and 2)."""
    ok, lines, _, _ = GALLERY["reduce_tiling"].execute(device, size, 5)
    assert ok, "\n".join(lines)


@pytest.mark.parametrize("name, printed", [
    ("data_copy_pad_modes", ([1.0] * 12 + [0.0] * 4) * 3),
    ("data_copy_pad_modes_950", [1.0] * 36 + [0.0] * 4),
])
def test_data_copy_pad_modes_match_the_guide_printout(name, printed):
    """The devkit guide prints the UB after each listing's CopyIn for all-ones blocks (the rest of the tile: the
    Duplicate's zeros)."""
    y = GALLERY[name].run("ascend950", {"x": np.ones(36, np.float32)})["y"]
    assert y.tolist() == printed + [0.0] * (64 - len(printed))


@pytest.mark.parametrize("size", [5, 37])
def test_sasum_runs_its_small_vector_tilings(size):
    """Fewer than 8 floats: all on core 0 (the other cores add nothing); 4 blocks of 8: one block each on cores 0-3,
    the 5 left over on core 3 (its CopyInPad tile of 13 floats padded to 16)."""
    ok, lines, _, _ = GALLERY["sasum"].execute("atlas-a2", size, 2)
    assert ok, "\n".join(lines)


@pytest.mark.parametrize("dtype, c", [("float", 1), ("float", 4099), ("half", 16), ("half", 129), ("bfloat16", 300)])
def test_softmax_grad_against_float64_and_its_own_row_widths(dtype, c):
    """Row widths other than the gallery's (one element, a DataBlock exactly, several ReduceSum repeats with a partial
    one): bit for bit against the composed expectation, and within the output type's rounding (plus float's for
    the dot) of the float64 formula y * (dy - sum(dy * y))."""
    m = _module("softmax_grad")
    inputs = m._make_inputs(dtype, c)(13 * c, c)
    dx = m._run(dtype, c)("atlas-a2", inputs)["dx"]
    aj.testing.assert_bit_equal(dx, m._expected(dtype, c)("atlas-a2", inputs)["dx"])
    y, dy = (inputs[k].astype(np.float64).reshape(13, c) for k in ("y", "dy"))
    dot = (y * dy).sum(axis=1, keepdims=True)
    want, scale = y * (dy - dot), np.abs(y) * (np.abs(dy) + np.abs(dot))
    ulp, tiny = {"float": (2.0**-24, 2.0**-149), "half": (2.0**-11, 2.0**-24), "bfloat16": (2.0**-8, 2.0**-133)}[dtype]
    err = np.abs(dx.astype(np.float64).reshape(13, c) - want)
    assert (err <= ulp * np.abs(want) + 4 * c * 2.0**-24 * scale + tiny).all()


def test_softmax_grad_rows_the_tiling_accepts_can_overflow_the_ub():
    """The host tiling bounds a float row by 6 row buffers (8192 floats on the A2) but the kernel allocates 7 and the
    reduce buffer: a row of 6000 fits, one of 8000 passes the tiling and is refused at InitBuffer."""
    m = _module("softmax_grad")
    m.tiling("atlas-a2", 1, 8000, "float")
    with pytest.raises(aj.ParameterError):
        m.tiling("atlas-a2", 1, 8193, "float")
    for c, fits in ((6000, True), (8000, False)):
        run = lambda: m._run("float", c)("atlas-a2", m._make_inputs("float", c)(c, 1))
        if fits:
            run()
        else:
            with pytest.raises(aj.OutOfBoundsError, match="InitBuffer"):
                run()


@pytest.mark.parametrize("name, size", [("reduce_max_v2", 7 * 97), ("reduce_max_v2_axis1", 7 * 50)])
def test_reduce_max_v2_runs_on_one_core_when_a_tile_holds_the_input(name, size):
    assert _module(name).tiling("atlas-a2", size // (97 if name == "reduce_max_v2" else 50),
                                97 if name == "reduce_max_v2" else 50, "float", -1)[0] == 1
    ok, lines, _, _ = GALLERY[name].execute("atlas-a2", size, 3)
    assert ok, "\n".join(lines)


@pytest.mark.slow
@pytest.mark.parametrize("name, size", [("reduce_max_v2", 400 * 97), ("reduce_max_v2_half_axis0", 2003 * 33),
                                        ("reduce_max_v2_axis1", 1001 * 50)])
@pytest.mark.parametrize("device", ["ascend950", "atlas-a2"])
def test_reduce_max_v2_with_several_tiles_a_core(name, size, device):
    """Above 8 tiles of input (4096 floats or 8192 halves on the A2): two tiles a core, the last short."""
    ok, lines, _, _ = GALLERY[name].execute(device, size, 5)
    assert ok, "\n".join(lines)


def test_reduce_max_v2_all_axes_reads_the_padding_past_the_input():
    """The original's axes -1 maximum runs over the last tile's 32-byte rounded length: 679 negative floats (one
    element short of whole DataBlocks) give the zero padding's 0, where axes 1 (which skips by index) does not."""
    m = _module("reduce_max_v2")
    x = -1 - np.abs(m._make_inputs("float")(679, 3)["x"])
    assert m._run("float", 97, -1)("atlas-a2", {"x": x})["z"].tolist() == [0.0]
    assert m._run("float", 97, 1)("atlas-a2", {"x": x})["z"].tolist() == x.reshape(7, 97).max(axis=1).tolist()


@pytest.mark.parametrize("dtype, cols, axes", [("float", 97, -1), ("half", 33, 0)])
def test_reduce_max_v2_original_sequence_is_reported(monkeypatch, dtype, cols, axes):
    """Without the port's flags and axes -1's SyncAll after the fill (the original's sequence), the sanitizer reports
    the scalar unit's unordered UB accesses and, for axes -1, core 0's InitGlobalMemory against another core's
    atomic copy (the results happen to agree: the emulator's atomics commit in block order)."""
    m = _module("reduce_max_v2")
    monkeypatch.setattr(m.ReduceMaxV2, "Fence", staticmethod(lambda event: None))
    monkeypatch.setattr(m.ReduceMaxV2, "FillBarrier", staticmethod(lambda: None))
    inputs = m._make_inputs(dtype)(100 * cols, 1)
    with aj.sanitize_session("report") as session:
        z = m._run(dtype, cols, axes)("atlas-a2", inputs)["z"]
    aj.testing.assert_bit_equal(z, m._expected(dtype, cols, axes)("atlas-a2", inputs)["z"])
    found = {(r.check, r.kind) for r in session.reports}
    assert ("race", "RAW") in found and (("blocks", "two blocks write the same GM bytes") in found) == (axes == -1)


def test_tail_sizes_are_legal_and_not_defaults():
    for name, size in TAILS.items():
        assert GALLERY[name].size_ok(size) and size != GALLERY[name].default_size, name


@pytest.mark.slow   # every kernel on every device twice more (29 s warm); test_cli.py keeps a golden round trip
def test_golden_record_and_check_cover_every_gallery_kernel_on_every_device(tmp_path, capsys):
    from ascend_jit.cli import main
    names = ",".join(sorted(GALLERY))
    assert main(["golden", "record", str(tmp_path), "--kernels", names]) == 0
    for name, k in GALLERY.items():
        outputs = k.run(k.devices[0], k.make_inputs(k.default_size, 0))
        for device in aj.SUPPORTED_NAMES:
            for key in outputs:
                assert (tmp_path / f"{name}.{device}.{key}.npz").is_file() == k.supports(device), (name, device, key)
    capsys.readouterr()
    assert main(["golden", "check", str(tmp_path), "--kernels", names]) == 0
    assert " 0 failed" in capsys.readouterr().out


def test_compare_devices_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from ascend_jit.cli import main
    path = tmp_path / "softmax.png"
    assert main(["run", "softmax", "--size", "2048", "--compare-devices", "--plot", str(path)]) == 0
    out = capsys.readouterr().out
    assert path.stat().st_size > 1000 and "outputs against ascend950" in out and "atlas-a2" in out


def test_plot_without_matplotlib_or_without_compare_devices_is_refused(tmp_path, monkeypatch, capsys):
    import sys

    from ascend_jit.cli import main
    assert main(["run", "softmax", "--size", "2048", "--plot", str(tmp_path / "a.png")]) == 2
    assert "--compare-devices" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # `import matplotlib` raises ImportError
    assert main(["run", "softmax", "--size", "2048", "--compare-devices", "--plot", str(tmp_path / "b.png")]) == 2
    assert "matplotlib" in capsys.readouterr().err and not (tmp_path / "b.png").exists()


def test_a_kernel_file_is_an_importable_module_under_a_stable_name():
    """numba's cache of a VF defined in a kernel file records the module by name and imports it in later processes."""
    import importlib
    import inspect

    from ascend_jit.kernels import load_file
    [k] = load_file(gallery_dir() / "reduce_block.py")
    module = inspect.getmodule(k.run)
    assert module is not None and importlib.import_module(module.__name__) is module
    assert module.__name__.startswith("ascend_jit_user_kernel_reduce_block_")
    [again] = load_file(gallery_dir() / "reduce_block.py")
    assert inspect.getmodule(again.run).__name__ == module.__name__


def test_a_kernel_file_is_run_again_only_when_it_changed(tmp_path):
    """registry() runs every gallery file: a file unchanged since it was loaded gives its specs and module again (a
    second registry() call was about a second), an edited one runs afresh, and one whose module left sys.modules too."""
    import inspect
    import os
    import sys

    from ascend_jit.kernels import load_file
    path = tmp_path / "counted.py"
    source = (
        "import numpy as np\nfrom ascend_jit.kernels._base import KernelSpec\n"
        "KERNEL = KernelSpec('counted', 'y = x', lambda n, s: {'x': np.zeros(n)}, lambda d, i: {'y': i['x']},\n"
        "                    lambda d, i: {'y': i['x']}, default_size={size}, source='a test')\n")
    path.write_text(source.replace("{size}", "8"))
    [first] = load_file(path)
    [again] = load_file(path)
    assert again is first and registry()["softmax"] is registry()["softmax"]
    path.write_text(source.replace("{size}", "16"))           # one byte longer, and a later modification time
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    [edited] = load_file(path)
    assert edited is not first and edited.default_size == 16
    del sys.modules[edited.run.__module__]
    [reloaded] = load_file(path)
    assert reloaded is not edited and sys.modules[reloaded.run.__module__] is inspect.getmodule(reloaded.run)


def test_modelled_kernels_state_a_tolerance_and_bit_exact_ones_do_not():
    assert GALLERY["softmax"].fidelity == "MODELLED" and GALLERY["softmax"].tolerance
    assert GALLERY["rmsnorm"].fidelity == "BIT-EXACT" and GALLERY["layernorm"].fidelity == "BIT-EXACT"


def test_a_kernel_file_runs_from_its_path(tmp_path):
    from ascend_jit.kernels import load_file
    path = tmp_path / "my_kernel.py"
    path.write_text('''
import numpy as np
import ascend_jit as aj
from ascend_jit.kernels._base import KernelSpec

def run(device, inputs):
    with aj.Core(device) as core:
        a = core.local_tensor("half", 128); a[:] = inputs["x"]
        aj.Muls(a, a, 2.0, 128)
        return {"y": a.numpy()}

KERNEL = KernelSpec("double", "y = 2x", lambda n, s: {"x": np.arange(n, dtype=np.float16)}, run,
                    lambda d, i: {"y": (i["x"] * 2).astype(np.float16)}, default_size=128, source="a test")
''')
    [k] = load_file(path)
    ok, lines, _, _ = k.execute("atlas-a2")
    assert ok and k.name == "double"


def test_within_tolerance_reports_bfloat16_and_integer_outputs_without_nan():
    """bfloat16 has no numpy finfo: its smallest subnormal and normal come from ml_dtypes, so zeros stay out of the
    relative-error figure (it read nan before); an integer output's zeros too."""
    import ml_dtypes

    from ascend_jit.kernels._base import within_tolerance
    want = np.array([0.0, 1.0, 3.0, -2.0])
    ok, line = within_tolerance(want.astype(ml_dtypes.bfloat16), want, 1e-3)
    assert ok and "nan" not in line and "max relative error 0" in line
    ok, line = within_tolerance(np.array([0, 5, 7], np.int8), np.array([0.0, 5.0, 7.0]), 1e-9)
    assert ok and "nan" not in line
    ok, line = within_tolerance(np.array([2.0], ml_dtypes.bfloat16), np.array([2.5]), 1e-3)
    assert not ok and "OUT OF TOLERANCE" in line


def test_within_tolerance_matches_infinities_and_nans_alike():
    """nn38: a MODELLED output whose formula gives inf or NaN matched nothing (inf - inf is NaN); the same infinity
    and a NaN against a NaN match, anything else against them does not, and the relative-error figure stays finite."""
    from ascend_jit.kernels._base import within_tolerance
    inf, nan = np.inf, np.nan
    ok, line = within_tolerance(np.array([inf, -inf, nan, 1.0], np.float32), np.array([inf, -inf, nan, 1.0]), 1e-3)
    assert ok and "nan" not in line
    for got, want in ((inf, -inf), (nan, 1.0), (1.0, nan), (65504.0, inf), (inf, 1.0)):
        ok, line = within_tolerance(np.array([got], np.float16), np.array([want]), 1e-3)
        assert not ok and "OUT OF TOLERANCE" in line, (got, want)


def test_an_absolute_floor_admits_errors_near_zero_that_a_relative_bound_refuses():
    """A normalised output near zero carries the rounding of the larger values it is the difference of: relative to
    itself that error is large. `abs_tolerance` adds a floor to the bound; the floor alone decides near zero, the
    relative part away from it, and the report names both."""
    from ascend_jit.errors import ParameterError
    from ascend_jit.kernels._base import KernelSpec, within_tolerance
    got, want = np.array([1e-4, 1.0005], np.float32), np.array([1.5e-4, 1.0])
    ok, line = within_tolerance(got, want, 1e-3)
    assert not ok and "element 0" in line
    ok, line = within_tolerance(got, want, 1e-3, 1e-4)
    assert ok and "0.001 relative + 0.0001 absolute" in line
    ok, line = within_tolerance(np.array([1e-4, 1.01], np.float32), want, 1e-3, 1e-4)
    assert not ok and "element 1" in line and "+ 0.0001 absolute" in line

    def run(device, inputs):
        return {"y": got}

    spec = KernelSpec("near_zero", "y", lambda n, s: {}, run, lambda d, i: {"y": want}, default_size=2,
                      tolerance=1e-3, abs_tolerance=1e-4)
    ok, lines, _, _ = spec.execute("atlas-a2")
    assert ok and spec.fidelity == "MODELLED", lines
    with pytest.raises(ParameterError, match="abs_tolerance"):
        KernelSpec("exact", "y", lambda n, s: {}, run, lambda d, i: {"y": want}, default_size=2, abs_tolerance=1e-4)
    for bad in ({"tolerance": 1e-3, "abs_tolerance": -1.0}, {"tolerance": 1e-3, "abs_tolerance": float("nan")},
                {"tolerance": -1e-3}, {"tolerance": float("inf")}, {"tolerance": True}):   # review 57
        with pytest.raises(ParameterError, match=r"tolerance.*a finite number >= 0"):
            KernelSpec("bad", "y", lambda n, s: {}, run, lambda d, i: {"y": want}, default_size=2, **bad)


@pytest.mark.parametrize("name", ["angle_v2_int8", "angle_v2_int16", "angle_v2_int64"])
def test_angle_v2_910_sequence_runs_clean_under_the_sanitizer(name):
    """The 910 build converts int16 / int64 through the high byte or word (bit-mask Duplicate, PairReduceSum) and
    selects in mode 0, one 64-lane repeat a tile, and int8 in a 128-lane repeat past its 64-element tile: its own
    path (the sanitizer sweep runs the A2's)."""
    k = GALLERY[name]
    with aj.sanitize_session("report") as session:
        outputs = k.run("atlas-training", k.make_inputs(TAILS[name], 0))
    assert session.reports == [], aj.format_reports(session.reports)
    want = k.expected("atlas-training", k.make_inputs(TAILS[name], 0))
    assert outputs["y"].tobytes() == want["y"].tobytes()
